/*
** test_builder.cpp: psoc's builder writes the same bytes as d3dx12's
** stream structs (pointers to out-of-line data aside: psoc deep-copies, so
** those are compared by what they point to).
*/
#include "conformance.h"

#include <type_traits>

namespace {

template <class Sub>
using InnerOf = typename std::remove_pointer<decltype(&std::declval<Sub&>())>::type;

void expect_psoc_matches(const void* oracle, size_t size, const std::vector<uint32_t>& types,
                         const char* what) {
  StreamPtr s = build_fixture_stream(types);
  expect_stream_eq(oracle, size, psoc_stream_data(s.get()), psoc_stream_size(s.get()), what);
  expect_deep_copied(oracle, size, psoc_stream_data(s.get()), what);
  /* psoc_stream_desc describes the same bytes */
  D3D12_PIPELINE_STATE_STREAM_DESC d = psoc_stream_desc(s.get());
  ck_assert_uint_eq(d.SizeInBytes, size);
  ck_assert_ptr_eq(d.pPipelineStateSubobjectStream, psoc_stream_data(s.get()));
}

}  // namespace

/* ---- whole d3dx12 stream structs ---------------------------------- */

START_TEST(test_stream2_full) {
  const Fixture& f = fixture();
  Zeroed<CD3DX12_PIPELINE_STATE_STREAM2> s;
  s->Flags = f.flags;
  s->NodeMask = f.node_mask;
  s->pRootSignature = f.root_signature;
  s->InputLayout = f.input_layout;
  s->IBStripCutValue = f.strip_cut;
  s->PrimitiveTopologyType = f.topology;
  s->VS = f.vs;
  s->GS = f.gs;
  s->StreamOutput = f.stream_output;
  s->HS = f.hs;
  s->DS = f.ds;
  s->PS = f.ps;
  s->AS = f.as;
  s->MS = f.ms;
  s->CS = f.cs;
  s->BlendState = f.blend;
  s->DepthStencilState = f.depth_stencil1;
  s->DSVFormat = f.dsv;
  s->RasterizerState = f.rasterizer;
  s->RTVFormats = f.rtv;
  s->SampleDesc = f.sample_desc;
  s->SampleMask = f.sample_mask;
  s->CachedPSO = f.cached_pso;
  s->ViewInstancingDesc = f.view_instancing;
  const std::vector<uint32_t> order = {
    PSOC_SO_FLAGS, PSOC_SO_NODE_MASK, PSOC_SO_ROOT_SIGNATURE, PSOC_SO_INPUT_LAYOUT,
    PSOC_SO_IB_STRIP_CUT_VALUE, PSOC_SO_PRIMITIVE_TOPOLOGY, PSOC_SO_VS, PSOC_SO_GS,
    PSOC_SO_STREAM_OUTPUT, PSOC_SO_HS, PSOC_SO_DS, PSOC_SO_PS, PSOC_SO_AS, PSOC_SO_MS, PSOC_SO_CS,
    PSOC_SO_BLEND, PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL_FORMAT, PSOC_SO_RASTERIZER,
    PSOC_SO_RENDER_TARGET_FORMATS, PSOC_SO_SAMPLE_DESC, PSOC_SO_SAMPLE_MASK, PSOC_SO_CACHED_PSO,
    PSOC_SO_VIEW_INSTANCING };
  expect_psoc_matches(s.bytes(), s.size(), order, "STREAM2");
}
END_TEST

START_TEST(test_stream3_full) {
  const Fixture& f = fixture();
  Zeroed<CD3DX12_PIPELINE_STATE_STREAM3> s;
  s->Flags = f.flags;
  s->NodeMask = f.node_mask;
  s->pRootSignature = f.root_signature;
  s->InputLayout = f.input_layout;
  s->IBStripCutValue = f.strip_cut;
  s->PrimitiveTopologyType = f.topology;
  s->VS = f.vs;
  s->GS = f.gs;
  s->StreamOutput = f.stream_output;
  s->HS = f.hs;
  s->DS = f.ds;
  s->PS = f.ps;
  s->AS = f.as;
  s->MS = f.ms;
  s->CS = f.cs;
  s->BlendState = f.blend;
  s->DepthStencilState = f.depth_stencil2; /* STREAM3 carries DEPTH_STENCIL2 */
  s->DSVFormat = f.dsv;
  s->RasterizerState = f.rasterizer;
  s->RTVFormats = f.rtv;
  s->SampleDesc = f.sample_desc;
  s->SampleMask = f.sample_mask;
  s->CachedPSO = f.cached_pso;
  s->ViewInstancingDesc = f.view_instancing;
  const std::vector<uint32_t> order = {
    PSOC_SO_FLAGS, PSOC_SO_NODE_MASK, PSOC_SO_ROOT_SIGNATURE, PSOC_SO_INPUT_LAYOUT,
    PSOC_SO_IB_STRIP_CUT_VALUE, PSOC_SO_PRIMITIVE_TOPOLOGY, PSOC_SO_VS, PSOC_SO_GS,
    PSOC_SO_STREAM_OUTPUT, PSOC_SO_HS, PSOC_SO_DS, PSOC_SO_PS, PSOC_SO_AS, PSOC_SO_MS, PSOC_SO_CS,
    PSOC_SO_BLEND, PSOC_SO_DEPTH_STENCIL2, PSOC_SO_DEPTH_STENCIL_FORMAT, PSOC_SO_RASTERIZER,
    PSOC_SO_RENDER_TARGET_FORMATS, PSOC_SO_SAMPLE_DESC, PSOC_SO_SAMPLE_MASK, PSOC_SO_CACHED_PSO,
    PSOC_SO_VIEW_INSTANCING };
  expect_psoc_matches(s.bytes(), s.size(), order, "STREAM3");
}
END_TEST

START_TEST(test_stream1_full) {
  const Fixture& f = fixture();
  Zeroed<CD3DX12_PIPELINE_STATE_STREAM1> s;
  s->Flags = f.flags;
  s->NodeMask = f.node_mask;
  s->pRootSignature = f.root_signature;
  s->InputLayout = f.input_layout;
  s->IBStripCutValue = f.strip_cut;
  s->PrimitiveTopologyType = f.topology;
  s->VS = f.vs;
  s->GS = f.gs;
  s->StreamOutput = f.stream_output;
  s->HS = f.hs;
  s->DS = f.ds;
  s->PS = f.ps;
  s->CS = f.cs;
  s->BlendState = f.blend;
  s->DepthStencilState = f.depth_stencil1;
  s->DSVFormat = f.dsv;
  s->RasterizerState = f.rasterizer;
  s->RTVFormats = f.rtv;
  s->SampleDesc = f.sample_desc;
  s->SampleMask = f.sample_mask;
  s->CachedPSO = f.cached_pso;
  s->ViewInstancingDesc = f.view_instancing;
  const std::vector<uint32_t> order = {
    PSOC_SO_FLAGS, PSOC_SO_NODE_MASK, PSOC_SO_ROOT_SIGNATURE, PSOC_SO_INPUT_LAYOUT,
    PSOC_SO_IB_STRIP_CUT_VALUE, PSOC_SO_PRIMITIVE_TOPOLOGY, PSOC_SO_VS, PSOC_SO_GS,
    PSOC_SO_STREAM_OUTPUT, PSOC_SO_HS, PSOC_SO_DS, PSOC_SO_PS, PSOC_SO_CS, PSOC_SO_BLEND,
    PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL_FORMAT, PSOC_SO_RASTERIZER,
    PSOC_SO_RENDER_TARGET_FORMATS, PSOC_SO_SAMPLE_DESC, PSOC_SO_SAMPLE_MASK, PSOC_SO_CACHED_PSO,
    PSOC_SO_VIEW_INSTANCING };
  expect_psoc_matches(s.bytes(), s.size(), order, "STREAM1");
}
END_TEST

START_TEST(test_mesh_stream) {
  const Fixture& f = fixture();
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
  s->RasterizerState = f.rasterizer;
  s->RTVFormats = f.rtv;
  s->SampleDesc = f.sample_desc;
  s->SampleMask = f.sample_mask;
  s->CachedPSO = f.cached_pso;
  s->ViewInstancingDesc = f.view_instancing;
  const std::vector<uint32_t> order = {
    PSOC_SO_FLAGS, PSOC_SO_NODE_MASK, PSOC_SO_ROOT_SIGNATURE, PSOC_SO_PS, PSOC_SO_AS, PSOC_SO_MS,
    PSOC_SO_BLEND, PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL_FORMAT, PSOC_SO_RASTERIZER,
    PSOC_SO_RENDER_TARGET_FORMATS, PSOC_SO_SAMPLE_DESC, PSOC_SO_SAMPLE_MASK, PSOC_SO_CACHED_PSO,
    PSOC_SO_VIEW_INSTANCING };
  expect_psoc_matches(s.bytes(), s.size(), order, "MESH_STATE_STREAM");
}
END_TEST

/* An arrangement no d3dx12 struct has: 4-byte payloads between 8-byte ones,
** so every padding case (4 after the type, 4 after the payload) occurs. */
struct CustomArrangement {
  CD3DX12_PIPELINE_STATE_STREAM_SAMPLE_MASK SampleMask;
  CD3DX12_PIPELINE_STATE_STREAM_PS PS;
  CD3DX12_PIPELINE_STATE_STREAM_PRIMITIVE_TOPOLOGY Topology;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL DepthStencil;
  CD3DX12_PIPELINE_STATE_STREAM_VIEW_INSTANCING ViewInstancing;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL_FORMAT DSV;
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
  CD3DX12_PIPELINE_STATE_STREAM_NODE_MASK NodeMask;
};

START_TEST(test_custom_arrangement) {
  const Fixture& f = fixture();
  Zeroed<CustomArrangement> s;
  s->SampleMask = f.sample_mask;
  s->PS = f.ps;
  s->Topology = f.topology;
  s->DepthStencil = f.depth_stencil;
  s->ViewInstancing = f.view_instancing;
  s->DSV = f.dsv;
  s->VS = f.vs;
  s->NodeMask = f.node_mask;
  expect_psoc_matches(s.bytes(), s.size(),
                      { PSOC_SO_SAMPLE_MASK, PSOC_SO_PS, PSOC_SO_PRIMITIVE_TOPOLOGY,
                        PSOC_SO_DEPTH_STENCIL, PSOC_SO_VIEW_INSTANCING,
                        PSOC_SO_DEPTH_STENCIL_FORMAT, PSOC_SO_VS, PSOC_SO_NODE_MASK },
                      "custom arrangement");
}
END_TEST

/* ---- one subobject at a time ---------------------------------------- */

namespace {

struct SingleCase {
  const char* name;
  uint32_t type;
  void (*with_value)(const char* name);
  void (*with_default)(const char* name);
};

/* d3dx12 subobject constructed from the fixture value vs psoc with it. */
template <class Sub, uint32_t Type>
void single_value(const char* name) {
  using Inner = InnerOf<Sub>;
  size_t n = 0;
  const void* p = fixture_payload(Type, &n);
  ck_assert_uint_eq(n, sizeof(Inner));
  Zeroed<Sub> sub(*static_cast<const Inner*>(p));
  ck_assert_uint_eq(*static_cast<const uint32_t*>(sub.bytes()), Type);
  expect_psoc_matches(sub.bytes(), sub.size(), { Type }, name);
}

/* d3dx12's default-constructed subobject (CD3DX12_DEFAULT, DefaultSampleMask,
** DefaultSampleDesc or value-initialised) vs psoc's registry default. */
template <class Sub, uint32_t Type>
void single_default(const char* name) {
  using Inner = InnerOf<Sub>;
  Zeroed<Sub> sub;
  const psoc_subobject_info* info = psoc_subobject_info_get(Type);
  ck_assert_ptr_nonnull(info);
  ck_assert_uint_eq(info->payload->size, sizeof(Inner));
  psoc_builder* b = nullptr;
  ck_assert_int_eq(psoc_builder_new(nullptr, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, Type, info->default_payload, sizeof(Inner)), PSOC_OK);
  psoc_stream* s = nullptr;
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  StreamPtr owned(s);
  psoc_builder_free(b);
  if (Type == PSOC_SO_PRIMITIVE_TOPOLOGY) {
    /* By design: the d3dx12 subobject value-initialises to UNDEFINED, the
    ** runtime (and psoc's registry) default is TRIANGLE. */
    const unsigned char* d = static_cast<const unsigned char*>(sub.bytes());
    const unsigned char* q = static_cast<const unsigned char*>(psoc_stream_data(s));
    uint32_t dv, qv;
    std::memcpy(&dv, d + 4, 4);
    std::memcpy(&qv, q + 4, 4);
    ck_assert_uint_eq(dv, D3D12_PRIMITIVE_TOPOLOGY_TYPE_UNDEFINED);
    ck_assert_uint_eq(qv, D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE);
    return;
  }
  expect_stream_eq(sub.bytes(), sub.size(), psoc_stream_data(s), psoc_stream_size(s), name);
}

/* Types the installed header lacks: the documented layout. */
template <class Payload, uint32_t Type>
void local_value(const char* name) {
  size_t n = 0;
  const void* p = fixture_payload(Type, &n);
  ck_assert_uint_eq(n, sizeof(Payload));
  Zeroed<LocalSubobject<Payload, Type>> sub(*static_cast<const Payload*>(p));
  expect_psoc_matches(sub.bytes(), sub.size(), { Type }, name);
}

#define CASE(SUB, T) \
  { #SUB, T, single_value<CD3DX12_PIPELINE_STATE_STREAM_##SUB, T>, \
    single_default<CD3DX12_PIPELINE_STATE_STREAM_##SUB, T> }

const SingleCase single_cases[] = {
  CASE(FLAGS, PSOC_SO_FLAGS),
  CASE(NODE_MASK, PSOC_SO_NODE_MASK),
  CASE(ROOT_SIGNATURE, PSOC_SO_ROOT_SIGNATURE),
  CASE(INPUT_LAYOUT, PSOC_SO_INPUT_LAYOUT),
  CASE(IB_STRIP_CUT_VALUE, PSOC_SO_IB_STRIP_CUT_VALUE),
  CASE(PRIMITIVE_TOPOLOGY, PSOC_SO_PRIMITIVE_TOPOLOGY),
  CASE(VS, PSOC_SO_VS),
  CASE(GS, PSOC_SO_GS),
  CASE(STREAM_OUTPUT, PSOC_SO_STREAM_OUTPUT),
  CASE(HS, PSOC_SO_HS),
  CASE(DS, PSOC_SO_DS),
  CASE(PS, PSOC_SO_PS),
  CASE(AS, PSOC_SO_AS),
  CASE(MS, PSOC_SO_MS),
  CASE(CS, PSOC_SO_CS),
  CASE(BLEND_DESC, PSOC_SO_BLEND),
  CASE(DEPTH_STENCIL, PSOC_SO_DEPTH_STENCIL),
  CASE(DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL1),
  CASE(DEPTH_STENCIL2, PSOC_SO_DEPTH_STENCIL2),
  CASE(DEPTH_STENCIL_FORMAT, PSOC_SO_DEPTH_STENCIL_FORMAT),
  CASE(RASTERIZER, PSOC_SO_RASTERIZER),
  CASE(RENDER_TARGET_FORMATS, PSOC_SO_RENDER_TARGET_FORMATS),
  CASE(SAMPLE_DESC, PSOC_SO_SAMPLE_DESC),
  CASE(SAMPLE_MASK, PSOC_SO_SAMPLE_MASK),
  CASE(CACHED_PSO, PSOC_SO_CACHED_PSO),
  CASE(VIEW_INSTANCING, PSOC_SO_VIEW_INSTANCING),
  { "RASTERIZER1 (layout per docs)", PSOC_SO_RASTERIZER1,
    local_value<psoc_rasterizer_desc1, PSOC_SO_RASTERIZER1>, nullptr },
  { "RASTERIZER2 (layout per docs)", PSOC_SO_RASTERIZER2,
    local_value<psoc_rasterizer_desc2, PSOC_SO_RASTERIZER2>, nullptr },
  { "SERIALIZED_ROOT_SIGNATURE (layout per docs)", PSOC_SO_SERIALIZED_ROOT_SIGNATURE,
    local_value<psoc_serialized_root_signature_desc, PSOC_SO_SERIALIZED_ROOT_SIGNATURE>, nullptr },
};
#undef CASE

const int single_count = static_cast<int>(sizeof single_cases / sizeof single_cases[0]);

}  // namespace

START_TEST(test_single_subobject) {
  const SingleCase& c = single_cases[_i];
  c.with_value(c.name);
}
END_TEST

START_TEST(test_single_default) {
  const SingleCase& c = single_cases[_i];
  if (c.with_default) c.with_default(c.name);
}
END_TEST

/* Every type the installed header has a subobject for is covered above,
** and psoc's registry agrees with d3dx12 on each stride. */
START_TEST(test_layout_agrees_with_registry) {
  int seen[PSOC_SO_TYPE_COUNT] = { 0 };
  for (const SingleCase& c : single_cases) seen[c.type]++;
  for (uint32_t t = 0; t < D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_MAX_VALID; t++) {
    if (t == 23) continue;
    ck_assert_msg(seen[t] == 1, "type %u covered %d times", t, seen[t]);
  }
  for (uint32_t t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const LayoutInfo* li = layout_of(t);
    const psoc_subobject_info* info = psoc_subobject_info_get(t);
    if (t == 23) {
      ck_assert_ptr_null(li);
      ck_assert_ptr_null(info);
      continue;
    }
    ck_assert_ptr_nonnull(li);
    ck_assert_ptr_nonnull(info);
    ck_assert_msg(info->stride == li->stride && info->payload_offset == li->payload_offset &&
                      info->payload->size == li->payload_size,
                  "%s: psoc stride/offset/size %u/%u/%u, d3dx12 %zu/%zu/%zu", li->name,
                  info->stride, info->payload_offset, info->payload->size, li->stride,
                  li->payload_offset, li->payload_size);
  }
}
END_TEST

Suite* builder_identity_suite() {
  Suite* s = suite_create("builder byte identity");
  TCase* tc = tcase_create("streams");
  tcase_add_test(tc, test_stream2_full);
  tcase_add_test(tc, test_stream3_full);
  tcase_add_test(tc, test_stream1_full);
  tcase_add_test(tc, test_mesh_stream);
  tcase_add_test(tc, test_custom_arrangement);
  tcase_add_test(tc, test_layout_agrees_with_registry);
  suite_add_tcase(s, tc);
  tc = tcase_create("single subobjects");
  tcase_add_loop_test(tc, test_single_subobject, 0, single_count);
  tcase_add_loop_test(tc, test_single_default, 0, single_count);
  suite_add_tcase(s, tc);
  return s;
}
