/*
** test_desc.cpp: classic descs in and out. A desc added with
** psoc_builder_add_graphics_desc / _compute_desc comes back unchanged from
** parse -> resolve -> psoc_resolved_to_*_desc, and the built bytes match the
** same subobjects laid out with d3dx12's structs.
*/
#include "conformance.h"

namespace {

/* What CD3DX12's defaults give for a VS-only desc. */
D3D12_GRAPHICS_PIPELINE_STATE_DESC default_graphics_desc() {
  D3D12_GRAPHICS_PIPELINE_STATE_DESC d;
  std::memset(&d, 0, sizeof d);
  d.VS = fixture().vs;
  d.BlendState = CD3DX12_BLEND_DESC(D3D12_DEFAULT);
  d.SampleMask = UINT_MAX;
  d.RasterizerState = CD3DX12_RASTERIZER_DESC(D3D12_DEFAULT);
  d.DepthStencilState = CD3DX12_DEPTH_STENCIL_DESC(D3D12_DEFAULT);
  d.PrimitiveTopologyType = D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE;
  d.SampleDesc.Count = 1;
  return d;
}

/* The subobjects psoc_builder_add_graphics_desc emits, in its order. */
struct GraphicsDescLayout {
  CD3DX12_PIPELINE_STATE_STREAM_FLAGS Flags;
  CD3DX12_PIPELINE_STATE_STREAM_NODE_MASK NodeMask;
  CD3DX12_PIPELINE_STATE_STREAM_ROOT_SIGNATURE pRootSignature;
  CD3DX12_PIPELINE_STATE_STREAM_INPUT_LAYOUT InputLayout;
  CD3DX12_PIPELINE_STATE_STREAM_IB_STRIP_CUT_VALUE IBStripCutValue;
  CD3DX12_PIPELINE_STATE_STREAM_PRIMITIVE_TOPOLOGY PrimitiveTopologyType;
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
  CD3DX12_PIPELINE_STATE_STREAM_GS GS;
  CD3DX12_PIPELINE_STATE_STREAM_STREAM_OUTPUT StreamOutput;
  CD3DX12_PIPELINE_STATE_STREAM_HS HS;
  CD3DX12_PIPELINE_STATE_STREAM_DS DS;
  CD3DX12_PIPELINE_STATE_STREAM_PS PS;
  CD3DX12_PIPELINE_STATE_STREAM_BLEND_DESC BlendState;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL DepthStencilState;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL_FORMAT DSVFormat;
  CD3DX12_PIPELINE_STATE_STREAM_RASTERIZER RasterizerState;
  CD3DX12_PIPELINE_STATE_STREAM_RENDER_TARGET_FORMATS RTVFormats;
  CD3DX12_PIPELINE_STATE_STREAM_SAMPLE_DESC SampleDesc;
  CD3DX12_PIPELINE_STATE_STREAM_SAMPLE_MASK SampleMask;
  CD3DX12_PIPELINE_STATE_STREAM_CACHED_PSO CachedPSO;
};

struct ComputeDescLayout {
  CD3DX12_PIPELINE_STATE_STREAM_FLAGS Flags;
  CD3DX12_PIPELINE_STATE_STREAM_NODE_MASK NodeMask;
  CD3DX12_PIPELINE_STATE_STREAM_ROOT_SIGNATURE pRootSignature;
  CD3DX12_PIPELINE_STATE_STREAM_CS CS;
  CD3DX12_PIPELINE_STATE_STREAM_CACHED_PSO CachedPSO;
};

StreamPtr build_from_graphics_desc(const D3D12_GRAPHICS_PIPELINE_STATE_DESC& d) {
  psoc_builder* b = nullptr;
  ck_assert_int_eq(psoc_builder_new(nullptr, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add_graphics_desc(b, &d), PSOC_OK);
  ck_assert_uint_eq(psoc_builder_count(b), 20);
  psoc_stream* s = nullptr;
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  psoc_builder_free(b);
  return StreamPtr(s);
}

void graphics_round_trip(const D3D12_GRAPHICS_PIPELINE_STATE_DESC& d, bool valid,
                         const char* what) {
  StreamPtr s = build_from_graphics_desc(d);
  const void* data = psoc_stream_data(s.get());
  size_t size = psoc_stream_size(s.get());
  if (valid) expect_clean_check(data, size, what);
  psoc_resolved r = parse_and_resolve(data, size, what);
  ck_assert_int_eq(r.kind, PSOC_KIND_GRAPHICS);
  D3D12_GRAPHICS_PIPELINE_STATE_DESC back;
  ck_assert_int_eq(psoc_resolved_to_graphics_desc(&r, &back), PSOC_OK);
  expect_graphics_desc_eq(d, back, true, what);
  /* the desc's depth-stencil is explicit: no hidden default applies */
  ck_assert_int_eq(r.depth_enable_origin, PSOC_ORIGIN_EXPLICIT);

  /* byte identity with the same subobjects laid out by d3dx12 */
  Zeroed<GraphicsDescLayout> x;
  x->Flags = d.Flags;
  x->NodeMask = d.NodeMask;
  x->pRootSignature = d.pRootSignature;
  x->InputLayout = d.InputLayout;
  x->IBStripCutValue = d.IBStripCutValue;
  x->PrimitiveTopologyType = d.PrimitiveTopologyType;
  x->VS = d.VS;
  x->GS = d.GS;
  x->StreamOutput = d.StreamOutput;
  x->HS = d.HS;
  x->DS = d.DS;
  x->PS = d.PS;
  x->BlendState = CD3DX12_BLEND_DESC(d.BlendState);
  x->DepthStencilState = CD3DX12_DEPTH_STENCIL_DESC(d.DepthStencilState);
  x->DSVFormat = d.DSVFormat;
  x->RasterizerState = CD3DX12_RASTERIZER_DESC(d.RasterizerState);
  x->RTVFormats = CD3DX12_RT_FORMAT_ARRAY(d.RTVFormats, d.NumRenderTargets);
  x->SampleDesc = d.SampleDesc;
  x->SampleMask = d.SampleMask;
  x->CachedPSO = d.CachedPSO;
  expect_stream_eq(x.bytes(), x.size(), data, size, what);
}

}  // namespace

START_TEST(test_graphics_desc_round_trip) {
  graphics_round_trip(full_graphics_desc(), true, "full graphics desc");
  /* every rasterizer field away from its default (not a valid combination,
  ** so not checked) */
  D3D12_GRAPHICS_PIPELINE_STATE_DESC d = full_graphics_desc();
  d.RasterizerState = fixture().rasterizer;
  graphics_round_trip(d, false, "full graphics desc, odd rasterizer");
}
END_TEST

START_TEST(test_graphics_desc_defaults_round_trip) {
  graphics_round_trip(default_graphics_desc(), true, "default graphics desc");
}
END_TEST

START_TEST(test_compute_desc_round_trip) {
  const char* what = "compute desc";
  const Fixture& f = fixture();
  D3D12_COMPUTE_PIPELINE_STATE_DESC d;
  std::memset(&d, 0, sizeof d);
  d.pRootSignature = f.root_signature;
  d.CS = f.cs;
  d.NodeMask = f.node_mask;
  d.CachedPSO = f.cached_pso;
  d.Flags = f.flags;
  psoc_builder* b = nullptr;
  ck_assert_int_eq(psoc_builder_new(nullptr, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add_compute_desc(b, &d), PSOC_OK);
  ck_assert_uint_eq(psoc_builder_count(b), 5);
  psoc_stream* raw = nullptr;
  ck_assert_int_eq(psoc_builder_finish(b, &raw), PSOC_OK);
  psoc_builder_free(b);
  StreamPtr s(raw);
  const void* data = psoc_stream_data(raw);
  size_t size = psoc_stream_size(raw);
  expect_clean_check(data, size, what);
  psoc_resolved r = parse_and_resolve(data, size, what);
  ck_assert_int_eq(r.kind, PSOC_KIND_COMPUTE);
  D3D12_COMPUTE_PIPELINE_STATE_DESC back;
  ck_assert_int_eq(psoc_resolved_to_compute_desc(&r, &back), PSOC_OK);
  expect_compute_desc_eq(d, back, true, what);
  /* a compute pipeline has no graphics desc */
  D3D12_GRAPHICS_PIPELINE_STATE_DESC g;
  ck_assert_int_eq(psoc_resolved_to_graphics_desc(&r, &g), PSOC_ERR_LOSSY);

  Zeroed<ComputeDescLayout> x;
  x->Flags = d.Flags;
  x->NodeMask = d.NodeMask;
  x->pRootSignature = d.pRootSignature;
  x->CS = d.CS;
  x->CachedPSO = d.CachedPSO;
  expect_stream_eq(x.bytes(), x.size(), data, size, what);
}
END_TEST

/* ---- what the classic descs cannot hold is reported as lossy ----------- */

namespace {

psoc_status to_graphics(std::vector<std::pair<uint32_t, std::vector<unsigned char>>> items,
                        D3D12_GRAPHICS_PIPELINE_STATE_DESC* out) {
  psoc_builder* b = nullptr;
  ck_assert_int_eq(psoc_builder_new(nullptr, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &fixture().vs, sizeof fixture().vs), PSOC_OK);
  for (auto& it : items)
    ck_assert_int_eq(psoc_builder_add(b, it.first, it.second.data(), it.second.size()), PSOC_OK);
  psoc_stream* s = nullptr;
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  psoc_builder_free(b);
  StreamPtr owned(s);
  psoc_resolved r = parse_and_resolve(psoc_stream_data(s), psoc_stream_size(s), "lossy");
  return psoc_resolved_to_graphics_desc(&r, out);
}

template <class T>
std::pair<uint32_t, std::vector<unsigned char>> so(uint32_t type, const T& v) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(&v);
  return { type, std::vector<unsigned char>(p, p + sizeof v) };
}

}  // namespace

START_TEST(test_lossy_conversions) {
  const Fixture& f = fixture();
  D3D12_GRAPHICS_PIPELINE_STATE_DESC d;

  /* DEPTH_STENCIL1 with depth bounds */
  ck_assert_int_eq(to_graphics({ so(PSOC_SO_DEPTH_STENCIL1, f.depth_stencil1) }, &d),
                   PSOC_ERR_LOSSY);
  ck_assert_uint_eq(d.DepthStencilState.StencilReadMask, f.depth_stencil1.StencilReadMask);

  /* DEPTH_STENCIL1 without depth bounds fits */
  CD3DX12_DEPTH_STENCIL_DESC1 ds1 = f.depth_stencil1;
  ds1.DepthBoundsTestEnable = FALSE;
  ck_assert_int_eq(to_graphics({ so(PSOC_SO_DEPTH_STENCIL1, ds1) }, &d), PSOC_OK);
  ck_assert_int_eq(d.DepthStencilState.DepthFunc, ds1.DepthFunc);

  /* DEPTH_STENCIL2 with equal masks on both faces fits */
  CD3DX12_DEPTH_STENCIL_DESC2 ds2 = f.depth_stencil2;
  ds2.BackFace.StencilReadMask = ds2.FrontFace.StencilReadMask;
  ds2.BackFace.StencilWriteMask = ds2.FrontFace.StencilWriteMask;
  ds2.DepthBoundsTestEnable = FALSE;
  ck_assert_int_eq(to_graphics({ so(PSOC_SO_DEPTH_STENCIL2, ds2) }, &d), PSOC_OK);
  ck_assert_uint_eq(d.DepthStencilState.StencilWriteMask, 0x22);
  ck_assert_int_eq(d.DepthStencilState.BackFace.StencilFunc, D3D12_COMPARISON_FUNC_NEVER);
  /* ... different masks do not */
  ck_assert_int_eq(to_graphics({ so(PSOC_SO_DEPTH_STENCIL2, f.depth_stencil2) }, &d),
                   PSOC_ERR_LOSSY);

  /* RASTERIZER1: a whole float depth bias fits, a fractional one does not */
  psoc_rasterizer_desc1 r1 = f.rasterizer1;
  r1.DepthBias = 7.0f;
  ck_assert_int_eq(to_graphics({ so(PSOC_SO_RASTERIZER1, r1) }, &d), PSOC_OK);
  ck_assert_int_eq(d.RasterizerState.DepthBias, 7);
  ck_assert_int_eq(d.RasterizerState.AntialiasedLineEnable, TRUE);
  ck_assert_int_eq(to_graphics({ so(PSOC_SO_RASTERIZER1, f.rasterizer1) }, &d), PSOC_ERR_LOSSY);

  /* view instancing has no place in the classic desc */
  ck_assert_int_eq(to_graphics({ so(PSOC_SO_VIEW_INSTANCING, f.view_instancing) }, &d),
                   PSOC_ERR_LOSSY);
}
END_TEST

START_TEST(test_desc_bad_arguments) {
  psoc_builder* b = nullptr;
  ck_assert_int_eq(psoc_builder_new(nullptr, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add_graphics_desc(b, nullptr), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_builder_add_compute_desc(b, nullptr), PSOC_ERR_ARG);
  D3D12_GRAPHICS_PIPELINE_STATE_DESC g = full_graphics_desc();
  ck_assert_int_eq(psoc_builder_add_graphics_desc(nullptr, &g), PSOC_ERR_ARG);
  /* a second desc duplicates every subobject */
  ck_assert_int_eq(psoc_builder_add_graphics_desc(b, &g), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add_graphics_desc(b, &g), PSOC_ERR_DUPLICATE);
  psoc_builder_free(b);
  ck_assert_int_eq(psoc_resolved_to_graphics_desc(nullptr, &g), PSOC_ERR_ARG);
}
END_TEST

Suite* desc_suite() {
  Suite* s = suite_create("desc conversions");
  TCase* tc = tcase_create("round trips");
  tcase_add_test(tc, test_graphics_desc_round_trip);
  tcase_add_test(tc, test_graphics_desc_defaults_round_trip);
  tcase_add_test(tc, test_compute_desc_round_trip);
  tcase_add_test(tc, test_lossy_conversions);
  tcase_add_test(tc, test_desc_bad_arguments);
  suite_add_tcase(s, tc);
  return s;
}
