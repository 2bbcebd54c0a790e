/*
** helpers.cpp: the reference state, the independent stream layout table
** and the deep comparisons shared by the conformance suites.
*/
#include "conformance.h"

#include <cstdio>
#include <type_traits>

/* ---- the reference state ------------------------------------------- */

static Fixture g_fixture; /* static storage: every byte, padding too, starts at 0 */

static void fill_fixture(Fixture& f) {
  f.root_signature = reinterpret_cast<ID3D12RootSignature*>(uintptr_t(0x5eed0000u));
  for (unsigned k = 0; k < 8; k++)
    for (unsigned i = 0; i < sizeof f.code[k]; i++)
      f.code[k][i] = static_cast<unsigned char>(k * 31u + i * 7u + 1u);
  D3D12_SHADER_BYTECODE* shaders[8] = { &f.vs, &f.ps, &f.ds, &f.hs, &f.gs, &f.cs, &f.as, &f.ms };
  for (unsigned k = 0; k < 8; k++) {
    shaders[k]->pShaderBytecode = f.code[k];
    shaders[k]->BytecodeLength = sizeof f.code[k] - 4 * k; /* all lengths differ */
  }

  D3D12_INPUT_ELEMENT_DESC* e = f.elements;
  e[0].SemanticName = "POSITION";
  e[0].SemanticIndex = 0;
  e[0].Format = DXGI_FORMAT_R32G32B32_FLOAT;
  e[0].InputSlot = 0;
  e[0].AlignedByteOffset = 0;
  e[0].InputSlotClass = D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA;
  e[0].InstanceDataStepRate = 0;
  e[1].SemanticName = "NORMAL";
  e[1].SemanticIndex = 0;
  e[1].Format = DXGI_FORMAT_R16G16B16A16_SNORM;
  e[1].InputSlot = 0;
  e[1].AlignedByteOffset = 12;
  e[1].InputSlotClass = D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA;
  e[1].InstanceDataStepRate = 0;
  e[2].SemanticName = "TEXCOORD";
  e[2].SemanticIndex = 1;
  e[2].Format = DXGI_FORMAT_R32G32_FLOAT;
  e[2].InputSlot = 1;
  e[2].AlignedByteOffset = D3D12_APPEND_ALIGNED_ELEMENT;
  e[2].InputSlotClass = D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA;
  e[2].InstanceDataStepRate = 2;
  f.input_layout.pInputElementDescs = f.elements;
  f.input_layout.NumElements = 3;

  D3D12_SO_DECLARATION_ENTRY* so = f.so_entries;
  so[0].Stream = 0;
  so[0].SemanticName = "SV_POSITION";
  so[0].SemanticIndex = 0;
  so[0].StartComponent = 0;
  so[0].ComponentCount = 4;
  so[0].OutputSlot = 0;
  so[1].Stream = 1;
  so[1].SemanticName = "TEXCOORD";
  so[1].SemanticIndex = 3;
  so[1].StartComponent = 1;
  so[1].ComponentCount = 2;
  so[1].OutputSlot = 1;
  so[2].Stream = 0;
  so[2].SemanticName = nullptr; /* a gap: skip components */
  so[2].SemanticIndex = 0;
  so[2].StartComponent = 0;
  so[2].ComponentCount = 3;
  so[2].OutputSlot = 0;
  f.so_strides[0] = 32;
  f.so_strides[1] = 16;
  f.stream_output.pSODeclaration = f.so_entries;
  f.stream_output.NumEntries = 3;
  f.stream_output.pBufferStrides = f.so_strides;
  f.stream_output.NumStrides = 2;
  f.stream_output.RasterizedStream = 1;

  /* Valid for D3D12: no _COLOR factor for alpha, no dual-source factor
  ** beyond RT0 (there are 3 RTs), no logic op (it needs
  ** IndependentBlendEnable FALSE and a UINT format). */
  static const D3D12_BLEND color_src[] = { D3D12_BLEND_SRC_ALPHA, D3D12_BLEND_DEST_COLOR,
                                           D3D12_BLEND_BLEND_FACTOR, D3D12_BLEND_SRC_ALPHA_SAT,
                                           D3D12_BLEND_INV_DEST_ALPHA };
  static const D3D12_BLEND color_dst[] = { D3D12_BLEND_INV_SRC_ALPHA, D3D12_BLEND_ONE,
                                           D3D12_BLEND_INV_SRC_COLOR, D3D12_BLEND_DEST_ALPHA,
                                           D3D12_BLEND_INV_BLEND_FACTOR };
  static const D3D12_BLEND alpha[] = { D3D12_BLEND_ZERO, D3D12_BLEND_SRC_ALPHA,
                                       D3D12_BLEND_INV_SRC_ALPHA, D3D12_BLEND_DEST_ALPHA,
                                       D3D12_BLEND_INV_DEST_ALPHA, D3D12_BLEND_BLEND_FACTOR };
  static const D3D12_BLEND_OP ops[] = { D3D12_BLEND_OP_SUBTRACT, D3D12_BLEND_OP_REV_SUBTRACT,
                                        D3D12_BLEND_OP_ADD };
  f.blend.AlphaToCoverageEnable = TRUE;
  f.blend.IndependentBlendEnable = TRUE;
  for (unsigned i = 0; i < 8; i++) {
    D3D12_RENDER_TARGET_BLEND_DESC& rt = f.blend.RenderTarget[i];
    rt.BlendEnable = i % 2 == 0;
    rt.LogicOpEnable = FALSE;
    rt.SrcBlend = color_src[i % 5];
    rt.DestBlend = color_dst[(i + 1) % 5];
    rt.BlendOp = ops[i % 3];
    rt.SrcBlendAlpha = alpha[i % 6];
    rt.DestBlendAlpha = alpha[(i + 3) % 6];
    rt.BlendOpAlpha = ops[(i + 1) % 3];
    rt.LogicOp = static_cast<D3D12_LOGIC_OP>(D3D12_LOGIC_OP_CLEAR + i); /* ignored: no logic op */
    rt.RenderTargetWriteMask = static_cast<UINT8>((i + 1) & 0xF);
  }
  f.sample_mask = 0x0000FFFEu;

  /* Every field away from its default (byte-identity tests catch a field
  ** the builder forgets to copy). Not a valid combination: wireframe with
  ** conservative rasterization, a forced sample count with a DSV. */
  f.rasterizer.FillMode = D3D12_FILL_MODE_WIREFRAME;
  f.rasterizer.CullMode = D3D12_CULL_MODE_FRONT;
  f.rasterizer.FrontCounterClockwise = TRUE;
  f.rasterizer.DepthBias = 3;
  f.rasterizer.DepthBiasClamp = 0.5f;
  f.rasterizer.SlopeScaledDepthBias = 1.25f;
  f.rasterizer.DepthClipEnable = FALSE;
  f.rasterizer.MultisampleEnable = TRUE;
  f.rasterizer.AntialiasedLineEnable = TRUE;
  f.rasterizer.ForcedSampleCount = 1;
  f.rasterizer.ConservativeRaster = D3D12_CONSERVATIVE_RASTERIZATION_MODE_ON;
  /* The valid one used where psoc_check must pass. */
  f.rasterizer_valid = f.rasterizer;
  f.rasterizer_valid.ForcedSampleCount = 0;
  f.rasterizer_valid.ConservativeRaster = D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF;

  f.rasterizer1.FillMode = D3D12_FILL_MODE_WIREFRAME;
  f.rasterizer1.CullMode = D3D12_CULL_MODE_NONE;
  f.rasterizer1.FrontCounterClockwise = TRUE;
  f.rasterizer1.DepthBias = 2.5f;
  f.rasterizer1.DepthBiasClamp = 0.25f;
  f.rasterizer1.SlopeScaledDepthBias = 0.75f;
  f.rasterizer1.DepthClipEnable = FALSE;
  f.rasterizer1.MultisampleEnable = FALSE;
  f.rasterizer1.AntialiasedLineEnable = TRUE;
  f.rasterizer1.ForcedSampleCount = 2;
  f.rasterizer1.ConservativeRaster = D3D12_CONSERVATIVE_RASTERIZATION_MODE_ON;

  f.rasterizer2.FillMode = D3D12_FILL_MODE_WIREFRAME;
  f.rasterizer2.CullMode = D3D12_CULL_MODE_FRONT;
  f.rasterizer2.FrontCounterClockwise = TRUE;
  f.rasterizer2.DepthBias = -1.5f;
  f.rasterizer2.DepthBiasClamp = 0.125f;
  f.rasterizer2.SlopeScaledDepthBias = 2.0f;
  f.rasterizer2.DepthClipEnable = FALSE;
  f.rasterizer2.LineRasterizationMode = PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW;
  f.rasterizer2.ForcedSampleCount = 8;
  f.rasterizer2.ConservativeRaster = D3D12_CONSERVATIVE_RASTERIZATION_MODE_ON;

  D3D12_DEPTH_STENCIL_DESC& d0 = f.depth_stencil;
  d0.DepthEnable = TRUE;
  d0.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ZERO;
  d0.DepthFunc = D3D12_COMPARISON_FUNC_GREATER_EQUAL;
  d0.StencilEnable = TRUE;
  d0.StencilReadMask = 0x0F;
  d0.StencilWriteMask = 0xF0;
  d0.FrontFace.StencilFailOp = D3D12_STENCIL_OP_INCR;
  d0.FrontFace.StencilDepthFailOp = D3D12_STENCIL_OP_DECR;
  d0.FrontFace.StencilPassOp = D3D12_STENCIL_OP_REPLACE;
  d0.FrontFace.StencilFunc = D3D12_COMPARISON_FUNC_EQUAL;
  d0.BackFace.StencilFailOp = D3D12_STENCIL_OP_INVERT;
  d0.BackFace.StencilDepthFailOp = D3D12_STENCIL_OP_ZERO;
  d0.BackFace.StencilPassOp = D3D12_STENCIL_OP_INCR_SAT;
  d0.BackFace.StencilFunc = D3D12_COMPARISON_FUNC_NOT_EQUAL;

  D3D12_DEPTH_STENCIL_DESC1& d1 = f.depth_stencil1;
  d1.DepthEnable = TRUE;
  d1.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ZERO;
  d1.DepthFunc = D3D12_COMPARISON_FUNC_GREATER;
  d1.StencilEnable = TRUE;
  d1.StencilReadMask = 0x3C;
  d1.StencilWriteMask = 0xC3;
  d1.FrontFace.StencilFailOp = D3D12_STENCIL_OP_ZERO;
  d1.FrontFace.StencilDepthFailOp = D3D12_STENCIL_OP_REPLACE;
  d1.FrontFace.StencilPassOp = D3D12_STENCIL_OP_INCR_SAT;
  d1.FrontFace.StencilFunc = D3D12_COMPARISON_FUNC_LESS_EQUAL;
  d1.BackFace.StencilFailOp = D3D12_STENCIL_OP_DECR_SAT;
  d1.BackFace.StencilDepthFailOp = D3D12_STENCIL_OP_INVERT;
  d1.BackFace.StencilPassOp = D3D12_STENCIL_OP_INCR;
  d1.BackFace.StencilFunc = D3D12_COMPARISON_FUNC_GREATER;
  d1.DepthBoundsTestEnable = TRUE;

  D3D12_DEPTH_STENCIL_DESC2& d2 = f.depth_stencil2;
  d2.DepthEnable = TRUE;
  d2.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ZERO;
  d2.DepthFunc = D3D12_COMPARISON_FUNC_LESS_EQUAL;
  d2.StencilEnable = TRUE;
  d2.FrontFace.StencilFailOp = D3D12_STENCIL_OP_INCR;
  d2.FrontFace.StencilDepthFailOp = D3D12_STENCIL_OP_KEEP;
  d2.FrontFace.StencilPassOp = D3D12_STENCIL_OP_DECR;
  d2.FrontFace.StencilFunc = D3D12_COMPARISON_FUNC_GREATER_EQUAL;
  d2.FrontFace.StencilReadMask = 0x11;
  d2.FrontFace.StencilWriteMask = 0x22;
  d2.BackFace.StencilFailOp = D3D12_STENCIL_OP_REPLACE;
  d2.BackFace.StencilDepthFailOp = D3D12_STENCIL_OP_INVERT;
  d2.BackFace.StencilPassOp = D3D12_STENCIL_OP_ZERO;
  d2.BackFace.StencilFunc = D3D12_COMPARISON_FUNC_NEVER;
  d2.BackFace.StencilReadMask = 0x33;
  d2.BackFace.StencilWriteMask = 0x44;
  d2.DepthBoundsTestEnable = TRUE;

  f.strip_cut = D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_0xFFFFFFFF;
  f.topology = D3D12_PRIMITIVE_TOPOLOGY_TYPE_PATCH; /* HS and DS are present */
  f.rtv.NumRenderTargets = 3;
  f.rtv.RTFormats[0] = DXGI_FORMAT_R16G16B16A16_FLOAT;
  f.rtv.RTFormats[1] = DXGI_FORMAT_R8G8B8A8_UNORM_SRGB;
  f.rtv.RTFormats[2] = DXGI_FORMAT_R10G10B10A2_UNORM;
  f.dsv = DXGI_FORMAT_D32_FLOAT;
  f.sample_desc.Count = 4;
  f.sample_desc.Quality = 0;
  f.node_mask = 1;
  for (unsigned i = 0; i < sizeof f.cached_blob; i++)
    f.cached_blob[i] = static_cast<unsigned char>(0xC0 ^ (i * 13u));
  f.cached_pso.pCachedBlob = f.cached_blob;
  f.cached_pso.CachedBlobSizeInBytes = sizeof f.cached_blob;
  f.flags = D3D12_PIPELINE_STATE_FLAG_TOOL_DEBUG;
  f.view_locations[0].ViewportArrayIndex = 0;
  f.view_locations[0].RenderTargetArrayIndex = 1;
  f.view_locations[1].ViewportArrayIndex = 1;
  f.view_locations[1].RenderTargetArrayIndex = 0;
  f.view_instancing.ViewInstanceCount = 2;
  f.view_instancing.pViewInstanceLocations = f.view_locations;
  f.view_instancing.Flags = D3D12_VIEW_INSTANCING_FLAG_ENABLE_VIEW_INSTANCE_MASKING;
  for (unsigned i = 0; i < sizeof f.serialized_rs_blob; i++)
    f.serialized_rs_blob[i] = static_cast<unsigned char>(0x5A + i);
  f.serialized_rs.pSerializedBlob = f.serialized_rs_blob;
  f.serialized_rs.SerializedBlobSizeInBytes = sizeof f.serialized_rs_blob;
}

const Fixture& fixture() {
  static bool filled = false;
  if (!filled) {
    fill_fixture(g_fixture);
    filled = true;
  }
  return g_fixture;
}

/* Every member of a classic graphics desc, from the fixture. */
D3D12_GRAPHICS_PIPELINE_STATE_DESC full_graphics_desc() {
  const Fixture& f = fixture();
  D3D12_GRAPHICS_PIPELINE_STATE_DESC d;
  std::memset(&d, 0, sizeof d);
  d.pRootSignature = f.root_signature;
  d.VS = f.vs;
  d.PS = f.ps;
  d.DS = f.ds;
  d.HS = f.hs;
  d.GS = f.gs;
  d.StreamOutput = f.stream_output;
  d.BlendState = f.blend;
  d.SampleMask = f.sample_mask;
  d.RasterizerState = f.rasterizer_valid;
  d.DepthStencilState = f.depth_stencil;
  d.InputLayout = f.input_layout;
  d.IBStripCutValue = f.strip_cut;
  d.PrimitiveTopologyType = f.topology;
  d.NumRenderTargets = f.rtv.NumRenderTargets;
  std::memcpy(d.RTVFormats, f.rtv.RTFormats, sizeof d.RTVFormats);
  d.DSVFormat = f.dsv;
  d.SampleDesc = f.sample_desc;
  d.NodeMask = f.node_mask;
  d.CachedPSO = f.cached_pso;
  d.Flags = f.flags;
  return d;
}

const void* fixture_payload(uint32_t type, size_t* size) {
  const Fixture& f = fixture();
  const void* p = nullptr;
  size_t n = 0;
#define P(T, member) \
  case T: p = &f.member; n = sizeof f.member; break
  switch (type) {
    P(PSOC_SO_ROOT_SIGNATURE, root_signature);
    P(PSOC_SO_VS, vs);
    P(PSOC_SO_PS, ps);
    P(PSOC_SO_DS, ds);
    P(PSOC_SO_HS, hs);
    P(PSOC_SO_GS, gs);
    P(PSOC_SO_CS, cs);
    P(PSOC_SO_STREAM_OUTPUT, stream_output);
    P(PSOC_SO_BLEND, blend);
    P(PSOC_SO_SAMPLE_MASK, sample_mask);
    P(PSOC_SO_RASTERIZER, rasterizer);
    P(PSOC_SO_DEPTH_STENCIL, depth_stencil);
    P(PSOC_SO_INPUT_LAYOUT, input_layout);
    P(PSOC_SO_IB_STRIP_CUT_VALUE, strip_cut);
    P(PSOC_SO_PRIMITIVE_TOPOLOGY, topology);
    P(PSOC_SO_RENDER_TARGET_FORMATS, rtv);
    P(PSOC_SO_DEPTH_STENCIL_FORMAT, dsv);
    P(PSOC_SO_SAMPLE_DESC, sample_desc);
    P(PSOC_SO_NODE_MASK, node_mask);
    P(PSOC_SO_CACHED_PSO, cached_pso);
    P(PSOC_SO_FLAGS, flags);
    P(PSOC_SO_DEPTH_STENCIL1, depth_stencil1);
    P(PSOC_SO_VIEW_INSTANCING, view_instancing);
    P(PSOC_SO_AS, as);
    P(PSOC_SO_MS, ms);
    P(PSOC_SO_DEPTH_STENCIL2, depth_stencil2);
    P(PSOC_SO_RASTERIZER1, rasterizer1);
    P(PSOC_SO_RASTERIZER2, rasterizer2);
    P(PSOC_SO_SERIALIZED_ROOT_SIGNATURE, serialized_rs);
    default: break;
  }
#undef P
  if (size) *size = n;
  return p;
}

/* ---- the independent layout table ----------------------------------- */

template <class Sub>
static LayoutInfo layout_from_d3dx12(uint32_t type, const char* name) {
  using Inner = typename std::remove_pointer<decltype(&std::declval<Sub&>())>::type;
  Zeroed<Sub> sub;
  const unsigned char* base = static_cast<const unsigned char*>(sub.bytes());
  /* d3dx12's operator& gives the payload's address */
  const unsigned char* inner = reinterpret_cast<const unsigned char*>(&*sub);
  LayoutInfo li = { type, name, static_cast<size_t>(inner - base), sizeof(Inner), sizeof(Sub) };
  return li;
}

template <class Payload, uint32_t Type>
static LayoutInfo layout_local(const char* name) {
  using S = LocalSubobject<Payload, Type>;
  LayoutInfo li = { Type, name, offsetof(S, payload), sizeof(Payload), sizeof(S) };
  return li;
}

const LayoutInfo* layout_of(uint32_t type) {
  static std::vector<LayoutInfo> table;
  if (table.empty()) {
#define L(T, SUB) table.push_back(layout_from_d3dx12<CD3DX12_PIPELINE_STATE_STREAM_##SUB>(T, #SUB))
    L(PSOC_SO_ROOT_SIGNATURE, ROOT_SIGNATURE);
    L(PSOC_SO_VS, VS);
    L(PSOC_SO_PS, PS);
    L(PSOC_SO_DS, DS);
    L(PSOC_SO_HS, HS);
    L(PSOC_SO_GS, GS);
    L(PSOC_SO_CS, CS);
    L(PSOC_SO_STREAM_OUTPUT, STREAM_OUTPUT);
    L(PSOC_SO_BLEND, BLEND_DESC);
    L(PSOC_SO_SAMPLE_MASK, SAMPLE_MASK);
    L(PSOC_SO_RASTERIZER, RASTERIZER);
    L(PSOC_SO_DEPTH_STENCIL, DEPTH_STENCIL);
    L(PSOC_SO_INPUT_LAYOUT, INPUT_LAYOUT);
    L(PSOC_SO_IB_STRIP_CUT_VALUE, IB_STRIP_CUT_VALUE);
    L(PSOC_SO_PRIMITIVE_TOPOLOGY, PRIMITIVE_TOPOLOGY);
    L(PSOC_SO_RENDER_TARGET_FORMATS, RENDER_TARGET_FORMATS);
    L(PSOC_SO_DEPTH_STENCIL_FORMAT, DEPTH_STENCIL_FORMAT);
    L(PSOC_SO_SAMPLE_DESC, SAMPLE_DESC);
    L(PSOC_SO_NODE_MASK, NODE_MASK);
    L(PSOC_SO_CACHED_PSO, CACHED_PSO);
    L(PSOC_SO_FLAGS, FLAGS);
    L(PSOC_SO_DEPTH_STENCIL1, DEPTH_STENCIL1);
    L(PSOC_SO_VIEW_INSTANCING, VIEW_INSTANCING);
    L(PSOC_SO_AS, AS);
    L(PSOC_SO_MS, MS);
    L(PSOC_SO_DEPTH_STENCIL2, DEPTH_STENCIL2);
#undef L
    table.push_back(layout_local<psoc_rasterizer_desc1, PSOC_SO_RASTERIZER1>("RASTERIZER1"));
    table.push_back(layout_local<psoc_rasterizer_desc2, PSOC_SO_RASTERIZER2>("RASTERIZER2"));
    table.push_back(layout_local<psoc_serialized_root_signature_desc,
                                 PSOC_SO_SERIALIZED_ROOT_SIGNATURE>("SERIALIZED_ROOT_SIGNATURE"));
  }
  for (const LayoutInfo& li : table)
    if (li.type == type) return &li;
  return nullptr;
}

/* ---- deep comparisons ------------------------------------------------ */

template <class T>
static T load(const unsigned char* p) {
  T t;
  std::memcpy(&t, p, sizeof t);
  return t;
}

static void zero_pointer(unsigned char* payload, size_t offset) {
  std::memset(payload + offset, 0, sizeof(void*));
}

static void expect_blob_eq(const void* e, const void* a, size_t n, const char* what,
                           const char* field) {
  ck_assert_msg((e == nullptr) == (a == nullptr), "%s: %s is %s but expected %s", what, field,
                a ? "non-null" : "null", e ? "non-null" : "null");
  if (e && n) {
    const unsigned char* x = static_cast<const unsigned char*>(e);
    const unsigned char* y = static_cast<const unsigned char*>(a);
    for (size_t i = 0; i < n; i++)
      ck_assert_msg(x[i] == y[i], "%s: %s byte %zu is 0x%02x, expected 0x%02x", what, field, i,
                    y[i], x[i]);
  }
}

static void expect_str_eq(const char* e, const char* a, const char* what, const char* field) {
  ck_assert_msg((e == nullptr) == (a == nullptr), "%s: %s is %s but expected %s", what, field,
                a ? a : "NULL", e ? e : "NULL");
  if (e)
    ck_assert_msg(std::strcmp(e, a) == 0, "%s: %s is \"%s\", expected \"%s\"", what, field, a, e);
}

/* Deep-compare the pointer fields of two payload copies of 'type', then
** zero those pointers in both so the rest can be compared bytewise. */
static void normalize_pair(uint32_t type, unsigned char* e, unsigned char* a, const char* what) {
  char field[96];
  switch (type) {
    case PSOC_SO_VS:
    case PSOC_SO_PS:
    case PSOC_SO_DS:
    case PSOC_SO_HS:
    case PSOC_SO_GS:
    case PSOC_SO_CS:
    case PSOC_SO_AS:
    case PSOC_SO_MS: {
      auto x = load<D3D12_SHADER_BYTECODE>(e), y = load<D3D12_SHADER_BYTECODE>(a);
      ck_assert_msg(x.BytecodeLength == y.BytecodeLength, "%s: BytecodeLength %zu, expected %zu",
                    what, (size_t)y.BytecodeLength, (size_t)x.BytecodeLength);
      expect_blob_eq(x.pShaderBytecode, y.pShaderBytecode, x.BytecodeLength, what,
                     "pShaderBytecode");
      zero_pointer(e, offsetof(D3D12_SHADER_BYTECODE, pShaderBytecode));
      zero_pointer(a, offsetof(D3D12_SHADER_BYTECODE, pShaderBytecode));
      break;
    }
    case PSOC_SO_STREAM_OUTPUT: {
      auto x = load<D3D12_STREAM_OUTPUT_DESC>(e), y = load<D3D12_STREAM_OUTPUT_DESC>(a);
      ck_assert_msg(x.NumEntries == y.NumEntries && x.NumStrides == y.NumStrides,
                    "%s: SO counts %u/%u, expected %u/%u", what, y.NumEntries, y.NumStrides,
                    x.NumEntries, x.NumStrides);
      ck_assert_msg((x.pSODeclaration == nullptr) == (y.pSODeclaration == nullptr),
                    "%s: pSODeclaration null-ness differs", what);
      for (UINT i = 0; x.pSODeclaration && i < x.NumEntries; i++) {
        const D3D12_SO_DECLARATION_ENTRY &p = x.pSODeclaration[i], &q = y.pSODeclaration[i];
        std::snprintf(field, sizeof field, "pSODeclaration[%u]", i);
        ck_assert_msg(p.Stream == q.Stream && p.SemanticIndex == q.SemanticIndex &&
                          p.StartComponent == q.StartComponent &&
                          p.ComponentCount == q.ComponentCount && p.OutputSlot == q.OutputSlot,
                      "%s: %s differs", what, field);
        std::snprintf(field, sizeof field, "pSODeclaration[%u].SemanticName", i);
        expect_str_eq(p.SemanticName, q.SemanticName, what, field);
      }
      expect_blob_eq(x.pBufferStrides, y.pBufferStrides, x.NumStrides * sizeof(UINT), what,
                     "pBufferStrides");
      zero_pointer(e, offsetof(D3D12_STREAM_OUTPUT_DESC, pSODeclaration));
      zero_pointer(a, offsetof(D3D12_STREAM_OUTPUT_DESC, pSODeclaration));
      zero_pointer(e, offsetof(D3D12_STREAM_OUTPUT_DESC, pBufferStrides));
      zero_pointer(a, offsetof(D3D12_STREAM_OUTPUT_DESC, pBufferStrides));
      break;
    }
    case PSOC_SO_INPUT_LAYOUT: {
      auto x = load<D3D12_INPUT_LAYOUT_DESC>(e), y = load<D3D12_INPUT_LAYOUT_DESC>(a);
      ck_assert_msg(x.NumElements == y.NumElements, "%s: NumElements %u, expected %u", what,
                    y.NumElements, x.NumElements);
      ck_assert_msg((x.pInputElementDescs == nullptr) == (y.pInputElementDescs == nullptr),
                    "%s: pInputElementDescs null-ness differs", what);
      for (UINT i = 0; x.pInputElementDescs && i < x.NumElements; i++) {
        const D3D12_INPUT_ELEMENT_DESC &p = x.pInputElementDescs[i], &q = y.pInputElementDescs[i];
        std::snprintf(field, sizeof field, "pInputElementDescs[%u]", i);
        ck_assert_msg(p.SemanticIndex == q.SemanticIndex && p.Format == q.Format &&
                          p.InputSlot == q.InputSlot &&
                          p.AlignedByteOffset == q.AlignedByteOffset &&
                          p.InputSlotClass == q.InputSlotClass &&
                          p.InstanceDataStepRate == q.InstanceDataStepRate,
                      "%s: %s differs", what, field);
        std::snprintf(field, sizeof field, "pInputElementDescs[%u].SemanticName", i);
        expect_str_eq(p.SemanticName, q.SemanticName, what, field);
      }
      zero_pointer(e, offsetof(D3D12_INPUT_LAYOUT_DESC, pInputElementDescs));
      zero_pointer(a, offsetof(D3D12_INPUT_LAYOUT_DESC, pInputElementDescs));
      break;
    }
    case PSOC_SO_CACHED_PSO: {
      auto x = load<D3D12_CACHED_PIPELINE_STATE>(e), y = load<D3D12_CACHED_PIPELINE_STATE>(a);
      ck_assert_msg(x.CachedBlobSizeInBytes == y.CachedBlobSizeInBytes, "%s: blob size differs",
                    what);
      expect_blob_eq(x.pCachedBlob, y.pCachedBlob, x.CachedBlobSizeInBytes, what, "pCachedBlob");
      zero_pointer(e, offsetof(D3D12_CACHED_PIPELINE_STATE, pCachedBlob));
      zero_pointer(a, offsetof(D3D12_CACHED_PIPELINE_STATE, pCachedBlob));
      break;
    }
    case PSOC_SO_VIEW_INSTANCING: {
      auto x = load<D3D12_VIEW_INSTANCING_DESC>(e), y = load<D3D12_VIEW_INSTANCING_DESC>(a);
      ck_assert_msg(x.ViewInstanceCount == y.ViewInstanceCount,
                    "%s: ViewInstanceCount %u, expected %u", what, y.ViewInstanceCount,
                    x.ViewInstanceCount);
      expect_blob_eq(x.pViewInstanceLocations, y.pViewInstanceLocations,
                     x.ViewInstanceCount * sizeof(D3D12_VIEW_INSTANCE_LOCATION), what,
                     "pViewInstanceLocations");
      zero_pointer(e, offsetof(D3D12_VIEW_INSTANCING_DESC, pViewInstanceLocations));
      zero_pointer(a, offsetof(D3D12_VIEW_INSTANCING_DESC, pViewInstanceLocations));
      break;
    }
    case PSOC_SO_SERIALIZED_ROOT_SIGNATURE: {
      auto x = load<psoc_serialized_root_signature_desc>(e);
      auto y = load<psoc_serialized_root_signature_desc>(a);
      ck_assert_msg(x.SerializedBlobSizeInBytes == y.SerializedBlobSizeInBytes,
                    "%s: serialized blob size differs", what);
      expect_blob_eq(x.pSerializedBlob, y.pSerializedBlob, x.SerializedBlobSizeInBytes, what,
                     "pSerializedBlob");
      zero_pointer(e, offsetof(psoc_serialized_root_signature_desc, pSerializedBlob));
      zero_pointer(a, offsetof(psoc_serialized_root_signature_desc, pSerializedBlob));
      break;
    }
    default: /* no out-of-line data (ROOT_SIGNATURE is an opaque pointer: compared as bytes) */
      break;
  }
}

/* ---- padding ------------------------------------------------------------
** The bytes of a payload that belong to a field, from the D3D12 structs
** (offsetof/sizeof), never from psoc's registry. Everything else is padding:
** psoc must write it as zero; d3dx12 leaves it unspecified (the compiler may
** merge a 4-byte type store with 4 bytes of garbage, or copy a temporary's
** padding), so it is masked out of the oracle before comparing. */
struct Span {
  size_t offset, size;
};

#define SPAN(S, m) spans.push_back(Span{ base + offsetof(S, m), sizeof(((S*)nullptr)->m) })

static void stencil_op_spans(size_t base, std::vector<Span>& spans) {
  SPAN(D3D12_DEPTH_STENCILOP_DESC, StencilFailOp);
  SPAN(D3D12_DEPTH_STENCILOP_DESC, StencilDepthFailOp);
  SPAN(D3D12_DEPTH_STENCILOP_DESC, StencilPassOp);
  SPAN(D3D12_DEPTH_STENCILOP_DESC, StencilFunc);
}

static void stencil_op1_spans(size_t base, std::vector<Span>& spans) {
  SPAN(D3D12_DEPTH_STENCILOP_DESC1, StencilFailOp);
  SPAN(D3D12_DEPTH_STENCILOP_DESC1, StencilDepthFailOp);
  SPAN(D3D12_DEPTH_STENCILOP_DESC1, StencilPassOp);
  SPAN(D3D12_DEPTH_STENCILOP_DESC1, StencilFunc);
  SPAN(D3D12_DEPTH_STENCILOP_DESC1, StencilReadMask);
  SPAN(D3D12_DEPTH_STENCILOP_DESC1, StencilWriteMask);
}

template <class DS>
static void ds_common_spans(size_t base, std::vector<Span>& spans) {
  SPAN(DS, DepthEnable);
  SPAN(DS, DepthWriteMask);
  SPAN(DS, DepthFunc);
  SPAN(DS, StencilEnable);
}

/* Field spans of a payload of 'type' (relative to the payload). */
static std::vector<Span> field_spans(uint32_t type) {
  std::vector<Span> spans;
  const size_t base = 0;
  switch (type) {
    case PSOC_SO_STREAM_OUTPUT:
      SPAN(D3D12_STREAM_OUTPUT_DESC, pSODeclaration);
      SPAN(D3D12_STREAM_OUTPUT_DESC, NumEntries);
      SPAN(D3D12_STREAM_OUTPUT_DESC, pBufferStrides);
      SPAN(D3D12_STREAM_OUTPUT_DESC, NumStrides);
      SPAN(D3D12_STREAM_OUTPUT_DESC, RasterizedStream);
      break;
    case PSOC_SO_BLEND:
      SPAN(D3D12_BLEND_DESC, AlphaToCoverageEnable);
      SPAN(D3D12_BLEND_DESC, IndependentBlendEnable);
      for (size_t i = 0; i < 8; i++) {
        const size_t rt = offsetof(D3D12_BLEND_DESC, RenderTarget) +
                          i * sizeof(D3D12_RENDER_TARGET_BLEND_DESC);
#define RT(m)                                                               \
  spans.push_back(Span{ rt + offsetof(D3D12_RENDER_TARGET_BLEND_DESC, m),   \
                        sizeof(((D3D12_RENDER_TARGET_BLEND_DESC*)nullptr)->m) })
        RT(BlendEnable);
        RT(LogicOpEnable);
        RT(SrcBlend);
        RT(DestBlend);
        RT(BlendOp);
        RT(SrcBlendAlpha);
        RT(DestBlendAlpha);
        RT(BlendOpAlpha);
        RT(LogicOp);
        RT(RenderTargetWriteMask);
#undef RT
      }
      break;
    case PSOC_SO_DEPTH_STENCIL:
    case PSOC_SO_DEPTH_STENCIL1:
      /* DESC1 is DESC plus DepthBoundsTestEnable at the end */
      ds_common_spans<D3D12_DEPTH_STENCIL_DESC1>(base, spans);
      SPAN(D3D12_DEPTH_STENCIL_DESC1, StencilReadMask);
      SPAN(D3D12_DEPTH_STENCIL_DESC1, StencilWriteMask);
      stencil_op_spans(offsetof(D3D12_DEPTH_STENCIL_DESC1, FrontFace), spans);
      stencil_op_spans(offsetof(D3D12_DEPTH_STENCIL_DESC1, BackFace), spans);
      if (type == PSOC_SO_DEPTH_STENCIL1) SPAN(D3D12_DEPTH_STENCIL_DESC1, DepthBoundsTestEnable);
      break;
    case PSOC_SO_DEPTH_STENCIL2:
      ds_common_spans<D3D12_DEPTH_STENCIL_DESC2>(base, spans);
      stencil_op1_spans(offsetof(D3D12_DEPTH_STENCIL_DESC2, FrontFace), spans);
      stencil_op1_spans(offsetof(D3D12_DEPTH_STENCIL_DESC2, BackFace), spans);
      SPAN(D3D12_DEPTH_STENCIL_DESC2, DepthBoundsTestEnable);
      break;
    case PSOC_SO_INPUT_LAYOUT:
      SPAN(D3D12_INPUT_LAYOUT_DESC, pInputElementDescs);
      SPAN(D3D12_INPUT_LAYOUT_DESC, NumElements);
      break;
    case PSOC_SO_VIEW_INSTANCING:
      SPAN(D3D12_VIEW_INSTANCING_DESC, ViewInstanceCount);
      SPAN(D3D12_VIEW_INSTANCING_DESC, pViewInstanceLocations);
      SPAN(D3D12_VIEW_INSTANCING_DESC, Flags);
      break;
    default: { /* payloads without internal padding: every byte is a field */
      const LayoutInfo* li = layout_of(type);
      if (li) spans.push_back(Span{ 0, li->payload_size });
      break;
    }
  }
  return spans;
}
#undef SPAN

/* 1 for field bytes, 0 for padding, over one whole subobject (type at +0). */
static std::vector<unsigned char> subobject_mask(const LayoutInfo& li) {
  std::vector<unsigned char> mask(li.stride, 0);
  std::memset(mask.data(), 1, sizeof(uint32_t));
  for (const Span& sp : field_spans(li.type)) {
    ck_assert(li.payload_offset + sp.offset + sp.size <= li.stride);
    std::memset(mask.data() + li.payload_offset + sp.offset, 1, sp.size);
  }
  return mask;
}

/* Compare field bytes; with psoc_zero_padding, psoc's padding must be 0. */
static void expect_masked_eq(const unsigned char* e, const unsigned char* a,
                             const unsigned char* mask, size_t n, bool psoc_zero_padding,
                             const char* what) {
  for (size_t i = 0; i < n; i++) {
    if (mask[i])
      ck_assert_msg(e[i] == a[i], "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, a[i], e[i]);
    else if (psoc_zero_padding)
      ck_assert_msg(a[i] == 0, "%s: padding byte %zu is 0x%02x, psoc must write 0", what, i, a[i]);
  }
}

void expect_payload_eq(uint32_t type, const void* expected, const void* actual, const char* what,
                       bool psoc_zero_padding) {
  const LayoutInfo* li = layout_of(type);
  ck_assert_msg(li != nullptr, "%s: no layout for type %u", what, type);
  std::vector<unsigned char> e(static_cast<const unsigned char*>(expected),
                               static_cast<const unsigned char*>(expected) + li->payload_size);
  std::vector<unsigned char> a(static_cast<const unsigned char*>(actual),
                               static_cast<const unsigned char*>(actual) + li->payload_size);
  normalize_pair(type, e.data(), a.data(), what);
  std::vector<unsigned char> mask = subobject_mask(*li);
  expect_masked_eq(e.data(), a.data(), mask.data() + li->payload_offset, e.size(),
                   psoc_zero_padding, what);
}

void expect_stream_eq(const void* expected, size_t expected_size, const void* actual,
                      size_t actual_size, const char* what) {
  ck_assert_msg(expected_size == actual_size, "%s: stream is %zu bytes, expected %zu", what,
                actual_size, expected_size);
  std::vector<unsigned char> e(static_cast<const unsigned char*>(expected),
                               static_cast<const unsigned char*>(expected) + expected_size);
  std::vector<unsigned char> a(static_cast<const unsigned char*>(actual),
                               static_cast<const unsigned char*>(actual) + actual_size);
  size_t off = 0;
  unsigned index = 0;
  char where[160];
  while (off < expected_size) {
    ck_assert_msg(expected_size - off >= sizeof(uint32_t), "%s: trailing bytes in the oracle",
                  what);
    uint32_t te = load<uint32_t>(&e[off]), ta = load<uint32_t>(&a[off]);
    ck_assert_msg(te == ta, "%s: subobject %u at offset %zu has type %u, expected %u", what, index,
                  off, ta, te);
    const LayoutInfo* li = layout_of(te);
    ck_assert_msg(li != nullptr, "%s: oracle has unknown type %u", what, te);
    ck_assert_msg(off + li->stride <= expected_size, "%s: oracle truncated", what);
    std::snprintf(where, sizeof where, "%s: subobject %u (%s)", what, index, li->name);
    normalize_pair(te, &e[off + li->payload_offset], &a[off + li->payload_offset], where);
    std::vector<unsigned char> mask = subobject_mask(*li);
    expect_masked_eq(&e[off], &a[off], mask.data(), li->stride, true, where);
    off += li->stride;
    index++;
  }
}

/* The out-of-line pointers of one payload (top level and nested names). */
static void collect_pointers(uint32_t type, const unsigned char* p, std::vector<const void*>& out) {
  switch (type) {
    case PSOC_SO_VS: case PSOC_SO_PS: case PSOC_SO_DS: case PSOC_SO_HS:
    case PSOC_SO_GS: case PSOC_SO_CS: case PSOC_SO_AS: case PSOC_SO_MS:
      out.push_back(load<D3D12_SHADER_BYTECODE>(p).pShaderBytecode);
      break;
    case PSOC_SO_STREAM_OUTPUT: {
      auto d = load<D3D12_STREAM_OUTPUT_DESC>(p);
      out.push_back(d.pSODeclaration);
      out.push_back(d.pBufferStrides);
      for (UINT i = 0; d.pSODeclaration && i < d.NumEntries; i++)
        out.push_back(d.pSODeclaration[i].SemanticName);
      break;
    }
    case PSOC_SO_INPUT_LAYOUT: {
      auto d = load<D3D12_INPUT_LAYOUT_DESC>(p);
      out.push_back(d.pInputElementDescs);
      for (UINT i = 0; d.pInputElementDescs && i < d.NumElements; i++)
        out.push_back(d.pInputElementDescs[i].SemanticName);
      break;
    }
    case PSOC_SO_CACHED_PSO: out.push_back(load<D3D12_CACHED_PIPELINE_STATE>(p).pCachedBlob); break;
    case PSOC_SO_VIEW_INSTANCING:
      out.push_back(load<D3D12_VIEW_INSTANCING_DESC>(p).pViewInstanceLocations);
      break;
    case PSOC_SO_SERIALIZED_ROOT_SIGNATURE:
      out.push_back(load<psoc_serialized_root_signature_desc>(p).pSerializedBlob);
      break;
    default: break;
  }
}

void expect_deep_copied(const void* source_stream, size_t size, const void* psoc_bytes,
                        const char* what) {
  const unsigned char* s = static_cast<const unsigned char*>(source_stream);
  const unsigned char* q = static_cast<const unsigned char*>(psoc_bytes);
  size_t off = 0;
  while (off + sizeof(uint32_t) <= size) {
    uint32_t type = load<uint32_t>(s + off);
    const LayoutInfo* li = layout_of(type);
    ck_assert(li != nullptr);
    std::vector<const void*> from, copy;
    collect_pointers(type, s + off + li->payload_offset, from);
    collect_pointers(type, q + off + li->payload_offset, copy);
    ck_assert_uint_eq(from.size(), copy.size());
    for (size_t i = 0; i < from.size(); i++)
      if (from[i])
        ck_assert_msg(from[i] != copy[i], "%s: %s pointer %zu aliases the caller's memory", what,
                      li->name, i);
    off += li->stride;
  }
}

/* ---- desc comparisons -------------------------------------------------- */

static void expect_bytecode_eq(const D3D12_SHADER_BYTECODE& e, const D3D12_SHADER_BYTECODE& a,
                               bool by_content, const char* what, const char* field) {
  ck_assert_msg(e.BytecodeLength == a.BytecodeLength, "%s: %s.BytecodeLength %zu, expected %zu",
                what, field, (size_t)a.BytecodeLength, (size_t)e.BytecodeLength);
  if (by_content)
    expect_blob_eq(e.pShaderBytecode, a.pShaderBytecode, e.BytecodeLength, what, field);
  else
    ck_assert_msg(e.pShaderBytecode == a.pShaderBytecode, "%s: %s pointer differs", what, field);
}

#define FIELD_EQ(f)                                                                           \
  ck_assert_msg(expected.f == actual.f, "%s: " #f " is %lld, expected %lld", what,            \
                (long long)actual.f, (long long)expected.f)
#define FLOAT_EQ(f)                                                                           \
  ck_assert_msg(expected.f == actual.f, "%s: " #f " is %g, expected %g", what, (double)actual.f, \
                (double)expected.f)

static void expect_cached_eq(const D3D12_CACHED_PIPELINE_STATE& expected,
                             const D3D12_CACHED_PIPELINE_STATE& actual, bool by_content,
                             const char* what) {
  FIELD_EQ(CachedBlobSizeInBytes);
  if (by_content)
    expect_blob_eq(expected.pCachedBlob, actual.pCachedBlob, expected.CachedBlobSizeInBytes, what,
                   "CachedPSO.pCachedBlob");
  else
    ck_assert_msg(expected.pCachedBlob == actual.pCachedBlob, "%s: pCachedBlob differs", what);
}

void expect_graphics_desc_eq(const D3D12_GRAPHICS_PIPELINE_STATE_DESC& expected,
                             const D3D12_GRAPHICS_PIPELINE_STATE_DESC& actual, bool by_content,
                             const char* what) {
  ck_assert_msg(expected.pRootSignature == actual.pRootSignature, "%s: pRootSignature differs",
                what);
  expect_bytecode_eq(expected.VS, actual.VS, by_content, what, "VS");
  expect_bytecode_eq(expected.PS, actual.PS, by_content, what, "PS");
  expect_bytecode_eq(expected.DS, actual.DS, by_content, what, "DS");
  expect_bytecode_eq(expected.HS, actual.HS, by_content, what, "HS");
  expect_bytecode_eq(expected.GS, actual.GS, by_content, what, "GS");
  {
    /* stream output and input layout: reuse the payload comparison */
    char w[128];
    std::snprintf(w, sizeof w, "%s: StreamOutput", what);
    if (by_content) {
      expect_payload_eq(PSOC_SO_STREAM_OUTPUT, &expected.StreamOutput, &actual.StreamOutput, w);
    } else {
      FIELD_EQ(StreamOutput.NumEntries);
      FIELD_EQ(StreamOutput.NumStrides);
      FIELD_EQ(StreamOutput.RasterizedStream);
      ck_assert_msg(expected.StreamOutput.pSODeclaration == actual.StreamOutput.pSODeclaration &&
                        expected.StreamOutput.pBufferStrides == actual.StreamOutput.pBufferStrides,
                    "%s pointers differ", w);
    }
    std::snprintf(w, sizeof w, "%s: InputLayout", what);
    if (by_content) {
      expect_payload_eq(PSOC_SO_INPUT_LAYOUT, &expected.InputLayout, &actual.InputLayout, w);
    } else {
      FIELD_EQ(InputLayout.NumElements);
      ck_assert_msg(
          expected.InputLayout.pInputElementDescs == actual.InputLayout.pInputElementDescs,
          "%s pointer differs", w);
    }
  }
  FIELD_EQ(BlendState.AlphaToCoverageEnable);
  FIELD_EQ(BlendState.IndependentBlendEnable);
  for (int i = 0; i < 8; i++) {
    FIELD_EQ(BlendState.RenderTarget[i].BlendEnable);
    FIELD_EQ(BlendState.RenderTarget[i].LogicOpEnable);
    FIELD_EQ(BlendState.RenderTarget[i].SrcBlend);
    FIELD_EQ(BlendState.RenderTarget[i].DestBlend);
    FIELD_EQ(BlendState.RenderTarget[i].BlendOp);
    FIELD_EQ(BlendState.RenderTarget[i].SrcBlendAlpha);
    FIELD_EQ(BlendState.RenderTarget[i].DestBlendAlpha);
    FIELD_EQ(BlendState.RenderTarget[i].BlendOpAlpha);
    FIELD_EQ(BlendState.RenderTarget[i].LogicOp);
    FIELD_EQ(BlendState.RenderTarget[i].RenderTargetWriteMask);
  }
  FIELD_EQ(SampleMask);
  FIELD_EQ(RasterizerState.FillMode);
  FIELD_EQ(RasterizerState.CullMode);
  FIELD_EQ(RasterizerState.FrontCounterClockwise);
  FIELD_EQ(RasterizerState.DepthBias);
  FLOAT_EQ(RasterizerState.DepthBiasClamp);
  FLOAT_EQ(RasterizerState.SlopeScaledDepthBias);
  FIELD_EQ(RasterizerState.DepthClipEnable);
  FIELD_EQ(RasterizerState.MultisampleEnable);
  FIELD_EQ(RasterizerState.AntialiasedLineEnable);
  FIELD_EQ(RasterizerState.ForcedSampleCount);
  FIELD_EQ(RasterizerState.ConservativeRaster);
  FIELD_EQ(DepthStencilState.DepthEnable);
  FIELD_EQ(DepthStencilState.DepthWriteMask);
  FIELD_EQ(DepthStencilState.DepthFunc);
  FIELD_EQ(DepthStencilState.StencilEnable);
  FIELD_EQ(DepthStencilState.StencilReadMask);
  FIELD_EQ(DepthStencilState.StencilWriteMask);
  FIELD_EQ(DepthStencilState.FrontFace.StencilFailOp);
  FIELD_EQ(DepthStencilState.FrontFace.StencilDepthFailOp);
  FIELD_EQ(DepthStencilState.FrontFace.StencilPassOp);
  FIELD_EQ(DepthStencilState.FrontFace.StencilFunc);
  FIELD_EQ(DepthStencilState.BackFace.StencilFailOp);
  FIELD_EQ(DepthStencilState.BackFace.StencilDepthFailOp);
  FIELD_EQ(DepthStencilState.BackFace.StencilPassOp);
  FIELD_EQ(DepthStencilState.BackFace.StencilFunc);
  FIELD_EQ(IBStripCutValue);
  FIELD_EQ(PrimitiveTopologyType);
  FIELD_EQ(NumRenderTargets);
  for (int i = 0; i < 8; i++) FIELD_EQ(RTVFormats[i]);
  FIELD_EQ(DSVFormat);
  FIELD_EQ(SampleDesc.Count);
  FIELD_EQ(SampleDesc.Quality);
  FIELD_EQ(NodeMask);
  expect_cached_eq(expected.CachedPSO, actual.CachedPSO, by_content, what);
  FIELD_EQ(Flags);
}

void expect_compute_desc_eq(const D3D12_COMPUTE_PIPELINE_STATE_DESC& expected,
                            const D3D12_COMPUTE_PIPELINE_STATE_DESC& actual, bool by_content,
                            const char* what) {
  ck_assert_msg(expected.pRootSignature == actual.pRootSignature, "%s: pRootSignature differs",
                what);
  expect_bytecode_eq(expected.CS, actual.CS, by_content, what, "CS");
  FIELD_EQ(NodeMask);
  expect_cached_eq(expected.CachedPSO, actual.CachedPSO, by_content, what);
  FIELD_EQ(Flags);
}

/* ---- psoc helpers ------------------------------------------------------ */

StreamPtr build_fixture_stream(const std::vector<uint32_t>& types) {
  psoc_builder* b = nullptr;
  ck_assert_int_eq(psoc_builder_new(nullptr, &b), PSOC_OK);
  for (uint32_t t : types) {
    size_t n = 0;
    const void* p = fixture_payload(t, &n);
    ck_assert_msg(p != nullptr, "no fixture payload for type %u", t);
    psoc_status st = psoc_builder_add(b, t, p, n);
    ck_assert_msg(st == PSOC_OK, "psoc_builder_add(type %u) = %s", t, psoc_status_name(st));
  }
  psoc_stream* s = nullptr;
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  psoc_builder_free(b);
  return StreamPtr(s);
}

psoc_resolved parse_and_resolve(const void* data, size_t size, const char* what) {
  psoc_diags diags;
  psoc_diags_init(&diags, nullptr);
  psoc_parsed parsed;
  psoc_status st = psoc_parse(data, size, &parsed, &diags);
  ck_assert_msg(st == PSOC_OK, "%s: psoc_parse = %s (%s)", what, psoc_status_name(st),
                diags.count ? diags.items[0].message : "no diagnostic");
  psoc_diags_free(&diags);
  psoc_resolved r;
  ck_assert_int_eq(psoc_resolve(&parsed, &r), PSOC_OK);
  return r;
}

const psoc_check_options* max_profile() {
  static psoc_check_options options;
  options.flags = 0; /* the fixture's shader bytes are not real containers */
  options.profile = psoc_profile_find("max");
  ck_assert_ptr_nonnull(options.profile);
  return &options;
}

void expect_clean_check(const void* data, size_t size, const char* what) {
  psoc_diags diags;
  psoc_diags_init(&diags, nullptr);
  psoc_status st = psoc_check(data, size, max_profile(), &diags);
  const char* first = "-";
  for (size_t i = 0; i < diags.count; i++)
    if (diags.items[i].severity == PSOC_SEVERITY_ERROR) {
      first = diags.items[i].message;
      break;
    }
  ck_assert_msg(st == PSOC_OK && diags.errors == 0,
                "%s: psoc_check = %s with %zu errors (first: %s)", what, psoc_status_name(st),
                diags.errors, first);
  psoc_diags_free(&diags);
}

size_t check_errors(const void* data, size_t size) {
  psoc_diags diags;
  psoc_diags_init(&diags, nullptr);
  psoc_check(data, size, max_profile(), &diags);
  size_t errors = diags.errors;
  psoc_diags_free(&diags);
  return errors;
}

size_t count_code(const psoc_diags& diags, psoc_code code) {
  size_t n = 0;
  for (size_t i = 0; i < diags.count; i++)
    if (diags.items[i].code == code) n++;
  return n;
}
