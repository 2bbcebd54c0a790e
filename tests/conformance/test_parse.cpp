/*
** test_parse.cpp: streams built with d3dx12's structs parse in psoc, check
** clean, and resolve to the values the structs hold (with the runtime's
** defaults, taken from d3dx12's CD3DX12_DEFAULT constructors, for what is
** absent).
*/
#include "conformance.h"

#include <cstdlib>

namespace {

#define EQ(got, want, name)                                                                   \
  ck_assert_msg((got) == (want), "%s: %s is %lld, expected %lld", what, name, (long long)(got), \
                (long long)(want))
#define FEQ(got, want, name)                                                                  \
  ck_assert_msg((got) == (want), "%s: %s is %g, expected %g", what, name, (double)(got),       \
                (double)(want))

void expect_shader(const D3D12_SHADER_BYTECODE& got, const D3D12_SHADER_BYTECODE& want,
                   const char* what, const char* name) {
  ck_assert_msg(got.pShaderBytecode == want.pShaderBytecode, "%s: %s pointer %p, expected %p",
                what, name, got.pShaderBytecode, want.pShaderBytecode);
  EQ(got.BytecodeLength, want.BytecodeLength, name);
}

void expect_blend(const D3D12_BLEND_DESC& got, const D3D12_BLEND_DESC& want, const char* what) {
  EQ(got.AlphaToCoverageEnable, want.AlphaToCoverageEnable, "AlphaToCoverageEnable");
  EQ(got.IndependentBlendEnable, want.IndependentBlendEnable, "IndependentBlendEnable");
  for (int i = 0; i < 8; i++) {
    const D3D12_RENDER_TARGET_BLEND_DESC &g = got.RenderTarget[i], &w = want.RenderTarget[i];
    EQ(g.BlendEnable, w.BlendEnable, "BlendEnable");
    EQ(g.LogicOpEnable, w.LogicOpEnable, "LogicOpEnable");
    EQ(g.SrcBlend, w.SrcBlend, "SrcBlend");
    EQ(g.DestBlend, w.DestBlend, "DestBlend");
    EQ(g.BlendOp, w.BlendOp, "BlendOp");
    EQ(g.SrcBlendAlpha, w.SrcBlendAlpha, "SrcBlendAlpha");
    EQ(g.DestBlendAlpha, w.DestBlendAlpha, "DestBlendAlpha");
    EQ(g.BlendOpAlpha, w.BlendOpAlpha, "BlendOpAlpha");
    EQ(g.LogicOp, w.LogicOp, "LogicOp");
    EQ(g.RenderTargetWriteMask, w.RenderTargetWriteMask, "RenderTargetWriteMask");
  }
}

/* D3D12_RASTERIZER_DESC's two line booleans map to one mode (docs of
** D3D12_LINE_RASTERIZATION_MODE): MultisampleEnable -> quadrilateral wide,
** else AntialiasedLineEnable -> alpha antialiased, else aliased. */
void expect_rasterizer(const psoc_rasterizer_state& got, const D3D12_RASTERIZER_DESC& want,
                       const char* what) {
  EQ(got.FillMode, want.FillMode, "FillMode");
  EQ(got.CullMode, want.CullMode, "CullMode");
  EQ(got.FrontCounterClockwise, want.FrontCounterClockwise, "FrontCounterClockwise");
  FEQ(got.DepthBias, (FLOAT)want.DepthBias, "DepthBias");
  FEQ(got.DepthBiasClamp, want.DepthBiasClamp, "DepthBiasClamp");
  FEQ(got.SlopeScaledDepthBias, want.SlopeScaledDepthBias, "SlopeScaledDepthBias");
  EQ(got.DepthClipEnable, want.DepthClipEnable, "DepthClipEnable");
  EQ(got.MultisampleEnable, want.MultisampleEnable, "MultisampleEnable");
  EQ(got.AntialiasedLineEnable, want.AntialiasedLineEnable, "AntialiasedLineEnable");
  psoc_line_rasterization_mode mode =
      want.MultisampleEnable       ? PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_WIDE
      : want.AntialiasedLineEnable ? PSOC_LINE_RASTERIZATION_MODE_ALPHA_ANTIALIASED
                                   : PSOC_LINE_RASTERIZATION_MODE_ALIASED;
  EQ(got.LineRasterizationMode, mode, "LineRasterizationMode");
  EQ(got.ForcedSampleCount, want.ForcedSampleCount, "ForcedSampleCount");
  EQ(got.ConservativeRaster, want.ConservativeRaster, "ConservativeRaster");
}

void expect_stencil_op(const D3D12_DEPTH_STENCILOP_DESC1& got,
                       const D3D12_DEPTH_STENCILOP_DESC& want, UINT8 read, UINT8 write,
                       const char* what) {
  EQ(got.StencilFailOp, want.StencilFailOp, "StencilFailOp");
  EQ(got.StencilDepthFailOp, want.StencilDepthFailOp, "StencilDepthFailOp");
  EQ(got.StencilPassOp, want.StencilPassOp, "StencilPassOp");
  EQ(got.StencilFunc, want.StencilFunc, "StencilFunc");
  EQ(got.StencilReadMask, read, "StencilReadMask");
  EQ(got.StencilWriteMask, write, "StencilWriteMask");
}

/* psoc resolves every depth-stencil generation to the DESC2 superset, the
** way d3dx12's CD3DX12_DEPTH_STENCIL_DESC2(const D3D12_DEPTH_STENCIL_DESC1&)
** widens it: both faces take the shared masks. */
void expect_ds_from1(const D3D12_DEPTH_STENCIL_DESC2& got, const D3D12_DEPTH_STENCIL_DESC1& want,
                     const char* what) {
  EQ(got.DepthEnable, want.DepthEnable, "DepthEnable");
  EQ(got.DepthWriteMask, want.DepthWriteMask, "DepthWriteMask");
  EQ(got.DepthFunc, want.DepthFunc, "DepthFunc");
  EQ(got.StencilEnable, want.StencilEnable, "StencilEnable");
  const UINT8 read = want.StencilReadMask, write = want.StencilWriteMask;
  expect_stencil_op(got.FrontFace, want.FrontFace, read, write, what);
  expect_stencil_op(got.BackFace, want.BackFace, read, write, what);
  EQ(got.DepthBoundsTestEnable, want.DepthBoundsTestEnable, "DepthBoundsTestEnable");
}

void expect_ds_from0(const D3D12_DEPTH_STENCIL_DESC2& got, const D3D12_DEPTH_STENCIL_DESC& want,
                     const char* what) {
  expect_ds_from1(got, CD3DX12_DEPTH_STENCIL_DESC1(want), what);
}

void expect_ds2(const D3D12_DEPTH_STENCIL_DESC2& got, const D3D12_DEPTH_STENCIL_DESC2& want,
                const char* what) {
  EQ(got.DepthEnable, want.DepthEnable, "DepthEnable");
  EQ(got.DepthWriteMask, want.DepthWriteMask, "DepthWriteMask");
  EQ(got.DepthFunc, want.DepthFunc, "DepthFunc");
  EQ(got.StencilEnable, want.StencilEnable, "StencilEnable");
  const D3D12_DEPTH_STENCILOP_DESC1* g[2] = { &got.FrontFace, &got.BackFace };
  const D3D12_DEPTH_STENCILOP_DESC1* w[2] = { &want.FrontFace, &want.BackFace };
  for (int i = 0; i < 2; i++) {
    EQ(g[i]->StencilFailOp, w[i]->StencilFailOp, "StencilFailOp");
    EQ(g[i]->StencilDepthFailOp, w[i]->StencilDepthFailOp, "StencilDepthFailOp");
    EQ(g[i]->StencilPassOp, w[i]->StencilPassOp, "StencilPassOp");
    EQ(g[i]->StencilFunc, w[i]->StencilFunc, "StencilFunc");
    EQ(g[i]->StencilReadMask, w[i]->StencilReadMask, "StencilReadMask");
    EQ(g[i]->StencilWriteMask, w[i]->StencilWriteMask, "StencilWriteMask");
  }
  EQ(got.DepthBoundsTestEnable, want.DepthBoundsTestEnable, "DepthBoundsTestEnable");
}

void expect_stream_output(const D3D12_STREAM_OUTPUT_DESC& got, const D3D12_STREAM_OUTPUT_DESC& want,
                          const char* what) {
  ck_assert_msg(got.pSODeclaration == want.pSODeclaration, "%s: pSODeclaration differs", what);
  EQ(got.NumEntries, want.NumEntries, "NumEntries");
  ck_assert_msg(got.pBufferStrides == want.pBufferStrides, "%s: pBufferStrides differs", what);
  EQ(got.NumStrides, want.NumStrides, "NumStrides");
  EQ(got.RasterizedStream, want.RasterizedStream, "RasterizedStream");
}

void expect_input_layout(const D3D12_INPUT_LAYOUT_DESC& got, const D3D12_INPUT_LAYOUT_DESC& want,
                         const char* what) {
  ck_assert_msg(got.pInputElementDescs == want.pInputElementDescs, "%s: pInputElementDescs differs",
                what);
  EQ(got.NumElements, want.NumElements, "NumElements");
}

void expect_rtv(const D3D12_RT_FORMAT_ARRAY& got, const D3D12_RT_FORMAT_ARRAY& want,
                const char* what) {
  EQ(got.NumRenderTargets, want.NumRenderTargets, "NumRenderTargets");
  for (int i = 0; i < 8; i++) EQ(got.RTFormats[i], want.RTFormats[i], "RTFormats[i]");
}

void expect_cached(const D3D12_CACHED_PIPELINE_STATE& got, const D3D12_CACHED_PIPELINE_STATE& want,
                   const char* what) {
  ck_assert_msg(got.pCachedBlob == want.pCachedBlob, "%s: pCachedBlob differs", what);
  EQ(got.CachedBlobSizeInBytes, want.CachedBlobSizeInBytes, "CachedBlobSizeInBytes");
}

void expect_view_instancing(const D3D12_VIEW_INSTANCING_DESC& got,
                            const D3D12_VIEW_INSTANCING_DESC& want, const char* what) {
  EQ(got.ViewInstanceCount, want.ViewInstanceCount, "ViewInstanceCount");
  ck_assert_msg(got.pViewInstanceLocations == want.pViewInstanceLocations,
                "%s: pViewInstanceLocations differs", what);
  EQ(got.Flags, want.Flags, "Flags");
}

/* Everything every CD3DX12 graphics/mesh stream struct has. */
template <class S>
void expect_common_graphics(const psoc_resolved& r, S& s, const char* what) {
  ck_assert_msg(r.root_signature == static_cast<ID3D12RootSignature*>(s.pRootSignature),
                "%s: root signature differs", what);
  expect_shader(r.ps, s.PS, what, "PS");
  expect_blend(r.blend, s.BlendState, what);
  EQ(r.sample_mask, static_cast<UINT>(s.SampleMask), "SampleMask");
  expect_rasterizer(r.rasterizer, s.RasterizerState, what);
  expect_rtv(r.render_targets, s.RTVFormats, what);
  EQ(r.depth_stencil_format, static_cast<DXGI_FORMAT>(s.DSVFormat), "DSVFormat");
  const DXGI_SAMPLE_DESC& sd = s.SampleDesc;
  EQ(r.sample_desc.Count, sd.Count, "SampleDesc.Count");
  EQ(r.sample_desc.Quality, sd.Quality, "SampleDesc.Quality");
  EQ(r.node_mask, static_cast<UINT>(s.NodeMask), "NodeMask");
  expect_cached(r.cached_pso, s.CachedPSO, what);
  EQ(r.flags, static_cast<D3D12_PIPELINE_STATE_FLAGS>(s.Flags), "Flags");
}

/* STREAM, STREAM1, STREAM2 and STREAM3: the VS-pipeline members. */
template <class S>
void expect_vs_members(const psoc_resolved& r, S& s, const char* what) {
  expect_common_graphics(r, s, what);
  expect_input_layout(r.input_layout, s.InputLayout, what);
  EQ(r.ib_strip_cut_value, static_cast<D3D12_INDEX_BUFFER_STRIP_CUT_VALUE>(s.IBStripCutValue),
     "IBStripCutValue");
  EQ(r.primitive_topology, static_cast<D3D12_PRIMITIVE_TOPOLOGY_TYPE>(s.PrimitiveTopologyType),
     "PrimitiveTopologyType");
  expect_shader(r.vs, s.VS, what, "VS");
  expect_shader(r.gs, s.GS, what, "GS");
  expect_stream_output(r.stream_output, s.StreamOutput, what);
  expect_shader(r.hs, s.HS, what, "HS");
  expect_shader(r.ds, s.DS, what, "DS");
  expect_shader(r.cs, s.CS, what, "CS");
}

/* Fill the VS-pipeline members of a CD3DX12 stream struct from the fixture. */
template <class S>
void fill_graphics(S& s) {
  const Fixture& f = fixture();
  s.Flags = f.flags;
  s.NodeMask = f.node_mask;
  s.pRootSignature = f.root_signature;
  s.InputLayout = f.input_layout;
  s.IBStripCutValue = f.strip_cut;
  s.PrimitiveTopologyType = f.topology;
  s.VS = f.vs;
  s.GS = f.gs;
  s.StreamOutput = f.stream_output;
  s.HS = f.hs;
  s.DS = f.ds;
  s.PS = f.ps;
  s.BlendState = f.blend;
  s.DSVFormat = f.dsv;
  s.RasterizerState = f.rasterizer_valid;
  s.RTVFormats = f.rtv;
  s.SampleDesc = f.sample_desc;
  s.SampleMask = f.sample_mask;
  s.CachedPSO = f.cached_pso;
}

void expect_all_explicit(const psoc_resolved& r, const std::vector<uint32_t>& classes,
                         const char* what) {
  for (uint32_t c : classes)
    ck_assert_msg(r.origin[c] == PSOC_ORIGIN_EXPLICIT, "%s: class %u origin %s, expected explicit",
                  what, c, psoc_origin_name(static_cast<psoc_origin>(r.origin[c])));
}

const std::vector<uint32_t> graphics_classes = {
  PSOC_SO_ROOT_SIGNATURE, PSOC_SO_VS, PSOC_SO_PS, PSOC_SO_DS, PSOC_SO_HS, PSOC_SO_GS,
  PSOC_SO_STREAM_OUTPUT, PSOC_SO_BLEND, PSOC_SO_SAMPLE_MASK, PSOC_SO_RASTERIZER,
  PSOC_SO_DEPTH_STENCIL, PSOC_SO_INPUT_LAYOUT, PSOC_SO_IB_STRIP_CUT_VALUE,
  PSOC_SO_PRIMITIVE_TOPOLOGY, PSOC_SO_RENDER_TARGET_FORMATS, PSOC_SO_DEPTH_STENCIL_FORMAT,
  PSOC_SO_SAMPLE_DESC, PSOC_SO_NODE_MASK, PSOC_SO_CACHED_PSO, PSOC_SO_FLAGS,
  PSOC_SO_VIEW_INSTANCING };

}  // namespace

/* ---- the d3dx12 stream structs ------------------------------------- */

START_TEST(test_stream2_graphics) {
  const char* what = "STREAM2 graphics";
  const Fixture& f = fixture();
  Zeroed<CD3DX12_PIPELINE_STATE_STREAM2> s;
  fill_graphics(*s);
  s->DepthStencilState = f.depth_stencil1;
  s->ViewInstancingDesc = f.view_instancing; /* AS, MS, CS stay null */
  expect_clean_check(s.bytes(), s.size(), what);

  psoc_parsed parsed;
  ck_assert_int_eq(psoc_parse(s.bytes(), s.size(), &parsed, nullptr), PSOC_OK);
  EQ(parsed.kind, PSOC_KIND_GRAPHICS, "kind");
  EQ(parsed.count, 24u, "count");
  EQ(parsed.present, 24u, "present");
  ck_assert(parsed.complete);
  EQ(parsed.class_type[PSOC_SO_DEPTH_STENCIL], PSOC_SO_DEPTH_STENCIL1, "class_type[DS]");
  /* views point into the stream at d3dx12's offsets */
  const psoc_view* v = psoc_parsed_class(&parsed, PSOC_SO_DEPTH_STENCIL);
  ck_assert_ptr_nonnull(v);
  ck_assert_ptr_eq(v->payload, reinterpret_cast<const unsigned char*>(&s->DepthStencilState));

  psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
  EQ(r.kind, PSOC_KIND_GRAPHICS, "kind");
  expect_vs_members(r, *s, what);
  expect_shader(r.as, s->AS, what, "AS");
  expect_shader(r.ms, s->MS, what, "MS");
  expect_ds_from1(r.depth_stencil, s->DepthStencilState, what);
  expect_view_instancing(r.view_instancing, s->ViewInstancingDesc, what);
  expect_all_explicit(r, graphics_classes, what);
  EQ(r.source_type[PSOC_SO_DEPTH_STENCIL], PSOC_SO_DEPTH_STENCIL1, "source_type[DS]");
  EQ(r.source_type[PSOC_SO_RASTERIZER], PSOC_SO_RASTERIZER, "source_type[RASTERIZER]");
  EQ(r.origin[PSOC_SO_CS], PSOC_ORIGIN_UNUSED, "origin[CS]");
  EQ(r.origin[PSOC_SO_AS], PSOC_ORIGIN_UNUSED, "origin[AS]");
  EQ(r.origin[PSOC_SO_MS], PSOC_ORIGIN_UNUSED, "origin[MS]");
  EQ(r.depth_enable_origin, PSOC_ORIGIN_EXPLICIT, "depth_enable_origin");
  EQ(r.topology_origin, PSOC_ORIGIN_EXPLICIT, "topology_origin");
  EQ(r.origin[PSOC_SO_SERIALIZED_ROOT_SIGNATURE], PSOC_ORIGIN_DEFAULT, "origin[SERIALIZED_RS]");
}
END_TEST

START_TEST(test_stream3_graphics) {
  const char* what = "STREAM3 graphics";
  const Fixture& f = fixture();
  Zeroed<CD3DX12_PIPELINE_STATE_STREAM3> s;
  fill_graphics(*s);
  s->DepthStencilState = f.depth_stencil2;
  s->ViewInstancingDesc = f.view_instancing;
  expect_clean_check(s.bytes(), s.size(), what);
  psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
  EQ(r.kind, PSOC_KIND_GRAPHICS, "kind");
  expect_vs_members(r, *s, what);
  expect_ds2(r.depth_stencil, s->DepthStencilState, what);
  expect_view_instancing(r.view_instancing, s->ViewInstancingDesc, what);
  expect_all_explicit(r, graphics_classes, what);
  EQ(r.source_type[PSOC_SO_DEPTH_STENCIL], PSOC_SO_DEPTH_STENCIL2, "source_type[DS]");
}
END_TEST

START_TEST(test_stream1_graphics) {
  const char* what = "STREAM1 graphics";
  const Fixture& f = fixture();
  Zeroed<CD3DX12_PIPELINE_STATE_STREAM1> s;
  fill_graphics(*s);
  s->DepthStencilState = f.depth_stencil1;
  s->ViewInstancingDesc = f.view_instancing;
  expect_clean_check(s.bytes(), s.size(), what);
  psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
  EQ(r.kind, PSOC_KIND_GRAPHICS, "kind");
  expect_vs_members(r, *s, what);
  expect_ds_from1(r.depth_stencil, s->DepthStencilState, what);
  expect_view_instancing(r.view_instancing, s->ViewInstancingDesc, what);
}
END_TEST

/* The classic stream built by d3dx12 from a graphics desc. */
START_TEST(test_stream_from_graphics_desc) {
  const char* what = "STREAM(D3D12_GRAPHICS_PIPELINE_STATE_DESC)";
  const Fixture& f = fixture();
  D3D12_GRAPHICS_PIPELINE_STATE_DESC d = full_graphics_desc();
  Zeroed<CD3DX12_PIPELINE_STATE_STREAM> s(d);
  expect_clean_check(s.bytes(), s.size(), what);
  psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
  expect_vs_members(r, *s, what);
  expect_ds_from0(r.depth_stencil, f.depth_stencil, what);
  EQ(r.source_type[PSOC_SO_DEPTH_STENCIL], PSOC_SO_DEPTH_STENCIL1, "source_type[DS]");
  D3D12_GRAPHICS_PIPELINE_STATE_DESC back;
  ck_assert_int_eq(psoc_resolved_to_graphics_desc(&r, &back), PSOC_OK);
  expect_graphics_desc_eq(d, back, false, what);
  expect_graphics_desc_eq(s->GraphicsDescV0(), back, false, what);
}
END_TEST

START_TEST(test_stream2_compute) {
  const char* what = "STREAM2(D3D12_COMPUTE_PIPELINE_STATE_DESC)";
  const Fixture& f = fixture();
  D3D12_COMPUTE_PIPELINE_STATE_DESC d;
  std::memset(&d, 0, sizeof d);
  d.pRootSignature = f.root_signature;
  d.CS = f.cs;
  d.NodeMask = f.node_mask;
  d.CachedPSO = f.cached_pso;
  d.Flags = f.flags;
  Zeroed<CD3DX12_PIPELINE_STATE_STREAM2> s(d);
  expect_clean_check(s.bytes(), s.size(), what);
  psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
  EQ(r.kind, PSOC_KIND_COMPUTE, "kind");
  expect_shader(r.cs, f.cs, what, "CS");
  ck_assert(r.root_signature == f.root_signature);
  EQ(r.node_mask, f.node_mask, "NodeMask");
  expect_cached(r.cached_pso, f.cached_pso, what);
  EQ(r.flags, f.flags, "Flags");
  EQ(r.origin[PSOC_SO_CS], PSOC_ORIGIN_EXPLICIT, "origin[CS]");
  EQ(r.origin[PSOC_SO_VS], PSOC_ORIGIN_UNUSED, "origin[VS]");
  EQ(r.origin[PSOC_SO_BLEND], PSOC_ORIGIN_UNUSED, "origin[BLEND]");
  D3D12_COMPUTE_PIPELINE_STATE_DESC back;
  ck_assert_int_eq(psoc_resolved_to_compute_desc(&r, &back), PSOC_OK);
  expect_compute_desc_eq(d, back, false, what);
  expect_compute_desc_eq(s->ComputeDescV0(), back, false, what);
}
END_TEST

START_TEST(test_mesh_streams) {
  const Fixture& f = fixture();
  {
    const char* what = "MESH_STATE_STREAM";
    Zeroed<CD3DX12_PIPELINE_MESH_STATE_STREAM> s;
    s->Flags = f.flags;
    s->NodeMask = f.node_mask;
    s->pRootSignature = f.root_signature;
    s->PS = f.ps;
    s->AS = f.as;
    s->MS = f.ms;
    s->BlendState = f.blend;
    s->DepthStencilState = f.depth_stencil1;
    s->DSVFormat = f.dsv;
    s->RasterizerState = f.rasterizer_valid;
    s->RTVFormats = f.rtv;
    s->SampleDesc = f.sample_desc;
    s->SampleMask = f.sample_mask;
    s->CachedPSO = f.cached_pso;
    s->ViewInstancingDesc = f.view_instancing;
    expect_clean_check(s.bytes(), s.size(), what);
    psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
    EQ(r.kind, PSOC_KIND_MESH, "kind");
    expect_common_graphics(r, *s, what);
    expect_shader(r.as, f.as, what, "AS");
    expect_shader(r.ms, f.ms, what, "MS");
    expect_ds_from1(r.depth_stencil, f.depth_stencil1, what);
    expect_view_instancing(r.view_instancing, f.view_instancing, what);
    EQ(r.origin[PSOC_SO_INPUT_LAYOUT], PSOC_ORIGIN_UNUSED, "origin[INPUT_LAYOUT]");
  }
  {
    const char* what = "STREAM2(D3DX12_MESH_SHADER_PIPELINE_STATE_DESC)";
    D3DX12_MESH_SHADER_PIPELINE_STATE_DESC d;
    std::memset(&d, 0, sizeof d);
    d.pRootSignature = f.root_signature;
    d.AS = f.as;
    d.MS = f.ms;
    d.PS = f.ps;
    d.BlendState = f.blend;
    d.SampleMask = f.sample_mask;
    d.RasterizerState = f.rasterizer_valid;
    d.DepthStencilState = f.depth_stencil;
    d.PrimitiveTopologyType = D3D12_PRIMITIVE_TOPOLOGY_TYPE_POINT;
    d.NumRenderTargets = 1;
    d.RTVFormats[0] = DXGI_FORMAT_B8G8R8A8_UNORM;
    d.DSVFormat = DXGI_FORMAT_D16_UNORM;
    d.SampleDesc = f.sample_desc;
    d.NodeMask = f.node_mask;
    d.Flags = f.flags;
    Zeroed<CD3DX12_PIPELINE_STATE_STREAM2> s(d);
    expect_clean_check(s.bytes(), s.size(), what);
    psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
    EQ(r.kind, PSOC_KIND_MESH, "kind");
    expect_common_graphics(r, *s, what);
    EQ(r.primitive_topology, D3D12_PRIMITIVE_TOPOLOGY_TYPE_POINT, "PrimitiveTopologyType");
    expect_shader(r.ms, f.ms, what, "MS");
    expect_ds_from0(r.depth_stencil, f.depth_stencil, what);
  }
}
END_TEST

/* ---- partial streams: what is absent gets the runtime's default ------- */

struct MinimalStream {
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
  CD3DX12_PIPELINE_STATE_STREAM_PS PS;
  CD3DX12_PIPELINE_STATE_STREAM_RENDER_TARGET_FORMATS RTV;
};

START_TEST(test_minimal_defaults) {
  const char* what = "VS+PS+RTV";
  const Fixture& f = fixture();
  Zeroed<MinimalStream> s;
  s->VS = f.vs;
  s->PS = f.ps;
  s->RTV = f.rtv;
  expect_clean_check(s.bytes(), s.size(), what);
  psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
  EQ(r.kind, PSOC_KIND_GRAPHICS, "kind");
  expect_shader(r.vs, f.vs, what, "VS");
  expect_rtv(r.render_targets, f.rtv, what);
  /* defaults, with d3dx12's CD3DX12_DEFAULT as the oracle */
  expect_blend(r.blend, CD3DX12_BLEND_DESC(D3D12_DEFAULT), what);
  expect_rasterizer(r.rasterizer, CD3DX12_RASTERIZER_DESC(D3D12_DEFAULT), what);
  EQ(r.sample_mask, 0xFFFFFFFFu, "SampleMask");
  EQ(r.sample_desc.Count, 1u, "SampleDesc.Count");
  EQ(r.sample_desc.Quality, 0u, "SampleDesc.Quality");
  EQ(r.depth_stencil_format, DXGI_FORMAT_UNKNOWN, "DSVFormat");
  EQ(r.node_mask, 0u, "NodeMask");
  EQ(r.flags, 0u, "Flags");
  EQ(r.input_layout.NumElements, 0u, "NumElements");
  EQ(r.ib_strip_cut_value, D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_DISABLED, "IBStripCutValue");
  /* hidden defaults: topology TRIANGLE; depth off without DS and DSV */
  EQ(r.primitive_topology, D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE, "PrimitiveTopologyType");
  EQ(r.topology_origin, PSOC_ORIGIN_HIDDEN_DEFAULT, "topology_origin");
  CD3DX12_DEPTH_STENCIL_DESC2 off(D3D12_DEFAULT);
  off.DepthEnable = FALSE;
  expect_ds2(r.depth_stencil, off, what);
  EQ(r.depth_enable_origin, PSOC_ORIGIN_HIDDEN_DEFAULT, "depth_enable_origin");
  EQ(r.origin[PSOC_SO_DEPTH_STENCIL], PSOC_ORIGIN_DEFAULT, "origin[DS]");
  EQ(r.origin[PSOC_SO_BLEND], PSOC_ORIGIN_DEFAULT, "origin[BLEND]");
  EQ(r.origin[PSOC_SO_VS], PSOC_ORIGIN_EXPLICIT, "origin[VS]");
}
END_TEST

struct DsvOnlyStream {
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL_FORMAT DSV;
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
};

START_TEST(test_dsv_enables_default_depth) {
  const char* what = "DSV+VS";
  const Fixture& f = fixture();
  Zeroed<DsvOnlyStream> s;
  s->DSV = DXGI_FORMAT_D32_FLOAT;
  s->VS = f.vs;
  expect_clean_check(s.bytes(), s.size(), what);
  psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
  expect_ds2(r.depth_stencil, CD3DX12_DEPTH_STENCIL_DESC2(D3D12_DEFAULT), what);
  EQ(r.depth_stencil.DepthEnable, TRUE, "DepthEnable");
  EQ(r.depth_enable_origin, PSOC_ORIGIN_DEFAULT, "depth_enable_origin");
}
END_TEST

/* DSV UNKNOWN given explicitly behaves like no DSV. */
START_TEST(test_dsv_unknown_keeps_depth_off) {
  const char* what = "DSV(UNKNOWN)+VS";
  const Fixture& f = fixture();
  Zeroed<DsvOnlyStream> s;
  s->DSV = DXGI_FORMAT_UNKNOWN;
  s->VS = f.vs;
  psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
  EQ(r.depth_stencil.DepthEnable, FALSE, "DepthEnable");
  EQ(r.depth_enable_origin, PSOC_ORIGIN_HIDDEN_DEFAULT, "depth_enable_origin");
}
END_TEST

/* A depth-stencil subobject wins over the hidden default in either order. */
struct DsBeforeDsv {
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL DS;
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL_FORMAT DSV;
};

START_TEST(test_explicit_depth_off) {
  const char* what = "DS(depth off)+VS+DSV";
  const Fixture& f = fixture();
  CD3DX12_DEPTH_STENCIL_DESC ds(D3D12_DEFAULT);
  ds.DepthEnable = FALSE;
  ds.StencilEnable = TRUE;
  Zeroed<DsBeforeDsv> s;
  s->DS = ds;
  s->VS = f.vs;
  s->DSV = DXGI_FORMAT_D24_UNORM_S8_UINT;
  psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
  expect_ds_from0(r.depth_stencil, ds, what);
  EQ(r.depth_enable_origin, PSOC_ORIGIN_EXPLICIT, "depth_enable_origin");
  EQ(r.source_type[PSOC_SO_DEPTH_STENCIL], PSOC_SO_DEPTH_STENCIL, "source_type[DS]");
}
END_TEST

/* ---- types newer than the installed header (documented layouts) -------- */

struct NewTypesStream {
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
  LocalSubobject<psoc_serialized_root_signature_desc, PSOC_SO_SERIALIZED_ROOT_SIGNATURE> SRS;
  LocalSubobject<psoc_rasterizer_desc1, PSOC_SO_RASTERIZER1> Rasterizer1;
};

struct Rasterizer2Stream {
  LocalSubobject<psoc_rasterizer_desc2, PSOC_SO_RASTERIZER2> Rasterizer2;
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
};

START_TEST(test_newer_types) {
  const Fixture& f = fixture();
  {
    const char* what = "VS+SERIALIZED_ROOT_SIGNATURE+RASTERIZER1";
    /* conservative rasterization does not go with wireframe */
    psoc_rasterizer_desc1 r1 = f.rasterizer1;
    r1.ConservativeRaster = D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF;
    Zeroed<NewTypesStream> s;
    s->VS = f.vs;
    s->SRS.payload = f.serialized_rs;
    s->Rasterizer1.payload = r1;
    expect_clean_check(s.bytes(), s.size(), what);
    psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
    ck_assert_ptr_eq(r.serialized_root_signature.pSerializedBlob, f.serialized_rs.pSerializedBlob);
    EQ(r.serialized_root_signature.SerializedBlobSizeInBytes,
       f.serialized_rs.SerializedBlobSizeInBytes, "SerializedBlobSizeInBytes");
    const psoc_rasterizer_desc1& w = r1;
    EQ(r.rasterizer.FillMode, w.FillMode, "FillMode");
    EQ(r.rasterizer.CullMode, w.CullMode, "CullMode");
    EQ(r.rasterizer.FrontCounterClockwise, w.FrontCounterClockwise, "FrontCounterClockwise");
    FEQ(r.rasterizer.DepthBias, w.DepthBias, "DepthBias");
    FEQ(r.rasterizer.DepthBiasClamp, w.DepthBiasClamp, "DepthBiasClamp");
    FEQ(r.rasterizer.SlopeScaledDepthBias, w.SlopeScaledDepthBias, "SlopeScaledDepthBias");
    EQ(r.rasterizer.DepthClipEnable, w.DepthClipEnable, "DepthClipEnable");
    EQ(r.rasterizer.MultisampleEnable, w.MultisampleEnable, "MultisampleEnable");
    EQ(r.rasterizer.AntialiasedLineEnable, w.AntialiasedLineEnable, "AntialiasedLineEnable");
    EQ(r.rasterizer.LineRasterizationMode, PSOC_LINE_RASTERIZATION_MODE_ALPHA_ANTIALIASED,
       "LineRasterizationMode");
    EQ(r.rasterizer.ForcedSampleCount, w.ForcedSampleCount, "ForcedSampleCount");
    EQ(r.rasterizer.ConservativeRaster, w.ConservativeRaster, "ConservativeRaster");
    EQ(r.source_type[PSOC_SO_RASTERIZER], PSOC_SO_RASTERIZER1, "source_type[RASTERIZER]");
    EQ(r.origin[PSOC_SO_SERIALIZED_ROOT_SIGNATURE], PSOC_ORIGIN_EXPLICIT, "origin[SRS]");
    /* neither has a place in the classic desc */
    D3D12_GRAPHICS_PIPELINE_STATE_DESC d;
    ck_assert_int_eq(psoc_resolved_to_graphics_desc(&r, &d), PSOC_ERR_LOSSY);
  }
  {
    const char* what = "RASTERIZER2+VS";
    psoc_rasterizer_desc2 r2 = f.rasterizer2;
    r2.ConservativeRaster = D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF;
    Zeroed<Rasterizer2Stream> s;
    s->Rasterizer2.payload = r2;
    s->VS = f.vs;
    expect_clean_check(s.bytes(), s.size(), what);
    psoc_resolved r = parse_and_resolve(s.bytes(), s.size(), what);
    const psoc_rasterizer_desc2& w = r2;
    EQ(r.rasterizer.FillMode, w.FillMode, "FillMode");
    EQ(r.rasterizer.CullMode, w.CullMode, "CullMode");
    FEQ(r.rasterizer.DepthBias, w.DepthBias, "DepthBias");
    FEQ(r.rasterizer.DepthBiasClamp, w.DepthBiasClamp, "DepthBiasClamp");
    FEQ(r.rasterizer.SlopeScaledDepthBias, w.SlopeScaledDepthBias, "SlopeScaledDepthBias");
    EQ(r.rasterizer.DepthClipEnable, w.DepthClipEnable, "DepthClipEnable");
    EQ(r.rasterizer.LineRasterizationMode, w.LineRasterizationMode, "LineRasterizationMode");
    EQ(r.rasterizer.AntialiasedLineEnable, FALSE, "AntialiasedLineEnable");
    EQ(r.rasterizer.ForcedSampleCount, w.ForcedSampleCount, "ForcedSampleCount");
    EQ(r.rasterizer.ConservativeRaster, w.ConservativeRaster, "ConservativeRaster");
    EQ(r.source_type[PSOC_SO_RASTERIZER], PSOC_SO_RASTERIZER2, "source_type[RASTERIZER]");
    /* QUADRILATERAL_NARROW has no D3D12_RASTERIZER_DESC spelling */
    D3D12_GRAPHICS_PIPELINE_STATE_DESC d;
    ck_assert_int_eq(psoc_resolved_to_graphics_desc(&r, &d), PSOC_ERR_LOSSY);
  }
}
END_TEST

/* ---- bounds: psoc never reads outside [p, p + SizeInBytes) ------------
** The buffers are exact-size heap copies, so ASan flags any overread. */

START_TEST(test_truncated_stream) {
  const char* what = "truncated STREAM2";
  Zeroed<CD3DX12_PIPELINE_STATE_STREAM2> s;
  fill_graphics(*s);
  const size_t last = offsetof(CD3DX12_PIPELINE_STATE_STREAM2, ViewInstancingDesc);
  const size_t cuts[] = { s.size() - 4, s.size() - 8, last + 4, last + 2 };
  for (size_t n : cuts) {
    unsigned char* copy = static_cast<unsigned char*>(std::malloc(n));
    std::memcpy(copy, s.bytes(), n);
    psoc_diags diags;
    psoc_diags_init(&diags, nullptr);
    psoc_parsed parsed;
    ck_assert_int_eq(psoc_parse(copy, n, &parsed, &diags), PSOC_ERR_INVALID);
    ck_assert(!parsed.complete);
    EQ(parsed.count, 23u, "subobjects walked");
    psoc_code want = n - last < 4 ? PSOC_CODE_TRAILING_BYTES : PSOC_CODE_TRUNCATED;
    ck_assert_msg(count_code(diags, want) == 1, "cut at %zu: expected %s, got %zu diags (%s)", n,
                  psoc_code_name(want), diags.count, diags.count ? diags.items[0].message : "-");
    ck_assert_int_eq(diags.items[0].subobject, 23);
    ck_assert_int_eq(diags.items[0].offset, (int64_t)last);
    psoc_diags_free(&diags);
    std::free(copy);
  }
}
END_TEST

START_TEST(test_unaligned_stream) {
  const char* what = "unaligned copy";
  const Fixture& f = fixture();
  Zeroed<MinimalStream> s;
  s->VS = f.vs;
  s->PS = f.ps;
  s->RTV = f.rtv;
  unsigned char* buf = static_cast<unsigned char*>(std::malloc(s.size() + 4));
  std::memcpy(buf + 4, s.bytes(), s.size());
  psoc_diags diags;
  psoc_diags_init(&diags, nullptr);
  ck_assert_int_eq(psoc_check(buf + 4, s.size(), nullptr, &diags), PSOC_OK);
  ck_assert_uint_eq(count_code(diags, PSOC_CODE_UNALIGNED_STREAM), 1);
  ck_assert_uint_eq(diags.errors, 0);
  psoc_diags_free(&diags);
  psoc_parsed parsed;
  ck_assert_int_eq(psoc_parse(buf + 4, s.size(), &parsed, nullptr), PSOC_OK);
  psoc_resolved r;
  ck_assert_int_eq(psoc_resolve(&parsed, &r), PSOC_OK);
  expect_shader(r.vs, f.vs, what, "VS");
  expect_rtv(r.render_targets, f.rtv, what);
  std::free(buf);
}
END_TEST

Suite* parse_d3dx12_suite() {
  Suite* s = suite_create("d3dx12 streams parse in psoc");
  TCase* tc = tcase_create("stream structs");
  tcase_add_test(tc, test_stream2_graphics);
  tcase_add_test(tc, test_stream3_graphics);
  tcase_add_test(tc, test_stream1_graphics);
  tcase_add_test(tc, test_stream_from_graphics_desc);
  tcase_add_test(tc, test_stream2_compute);
  tcase_add_test(tc, test_mesh_streams);
  suite_add_tcase(s, tc);
  tc = tcase_create("partial streams and defaults");
  tcase_add_test(tc, test_minimal_defaults);
  tcase_add_test(tc, test_dsv_enables_default_depth);
  tcase_add_test(tc, test_dsv_unknown_keeps_depth_off);
  tcase_add_test(tc, test_explicit_depth_off);
  tcase_add_test(tc, test_newer_types);
  suite_add_tcase(s, tc);
  tc = tcase_create("bounds");
  tcase_add_test(tc, test_truncated_stream);
  tcase_add_test(tc, test_unaligned_stream);
  suite_add_tcase(s, tc);
  return s;
}
