/*
** registry.c: the one table that describes every subobject type.
** Builder, parser, resolver, hash, dump and the Lua bindings read it;
** adding a subobject type is a row here plus its field list.
*/
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>

#include "internal.h"

/* ---- field descriptor shorthands ---------------------------------- */

#define MSIZE(S, m) ((uint8_t)sizeof(((S *)0)->m))
#define FLD(S, m, k, kind, en) \
  { #m, k, kind, MSIZE(S, m), (uint16_t)offsetof(S, m), 0, 0, 0, 0, en, NULL }
#define UINTF(S, m, k) FLD(S, m, k, PSOC_FIELD_UINT, NULL)
#define COUNTF(S, m, k) FLD(S, m, k, PSOC_FIELD_COUNT, NULL)
#define INTF(S, m, k) FLD(S, m, k, PSOC_FIELD_INT, NULL)
#define BOOLF(S, m, k) FLD(S, m, k, PSOC_FIELD_BOOL, NULL)
#define FLT(S, m, k) FLD(S, m, k, PSOC_FIELD_FLOAT, NULL)
#define ENUMF(S, m, k, en) FLD(S, m, k, PSOC_FIELD_ENUM, &en)
#define FLAGSF(S, m, k, en) FLD(S, m, k, PSOC_FIELD_FLAGS, &en)
#define STRING(S, m, k) FLD(S, m, k, PSOC_FIELD_STRING, NULL)
#define OBJECT(S, m, k) FLD(S, m, k, PSOC_FIELD_OBJECT, NULL)
#define STRUCTF(S, m, k, sub) \
  { #m, k, PSOC_FIELD_STRUCT, 0, (uint16_t)offsetof(S, m), 0, 0, 0, 0, NULL, &sub }
#define BLOB(S, m, n, k) \
  { #m, k, PSOC_FIELD_BLOB, MSIZE(S, m), (uint16_t)offsetof(S, m), \
    (uint16_t)offsetof(S, n), 0, 0, 0, NULL, NULL }
#define ARRAY_OF(S, m, n, k, sub, T) \
  { #m, k, PSOC_FIELD_ARRAY, MSIZE(S, m), (uint16_t)offsetof(S, m), \
    (uint16_t)offsetof(S, n), 0, (uint16_t)sizeof(T), 0, NULL, &sub }
#define ARRAY_U32(S, m, n, k) \
  { #m, k, PSOC_FIELD_ARRAY, MSIZE(S, m), (uint16_t)offsetof(S, m), \
    (uint16_t)offsetof(S, n), 0, 4, PSOC_FIELD_UINT, NULL, NULL }
#define FIXED_OF(S, m, cnt, k, sub, T) \
  { #m, k, PSOC_FIELD_FIXED, 0, (uint16_t)offsetof(S, m), 0, cnt, (uint16_t)sizeof(T), 0, NULL, &sub }
#define FIXED_ENUM(S, m, cnt, k, en) \
  { #m, k, PSOC_FIELD_FIXED, 4, (uint16_t)offsetof(S, m), 0, cnt, 4, PSOC_FIELD_ENUM, &en, NULL }
#define STRUCT_DESC(S, list) \
  { #S, (uint32_t)sizeof(S), (uint32_t)alignof(S), list, (uint32_t)(sizeof(list) / sizeof(list[0])) }

/* ---- shader-like and blob payloads ------------------------------- */

static const psoc_field f_bytecode[] = {
  BLOB(D3D12_SHADER_BYTECODE, pShaderBytecode, BytecodeLength, "code"),
  COUNTF(D3D12_SHADER_BYTECODE, BytecodeLength, "size"),
};
static const psoc_struct s_bytecode = STRUCT_DESC(D3D12_SHADER_BYTECODE, f_bytecode);

static const psoc_field f_cached[] = {
  BLOB(D3D12_CACHED_PIPELINE_STATE, pCachedBlob, CachedBlobSizeInBytes, "blob"),
  COUNTF(D3D12_CACHED_PIPELINE_STATE, CachedBlobSizeInBytes, "size"),
};
static const psoc_struct s_cached = STRUCT_DESC(D3D12_CACHED_PIPELINE_STATE, f_cached);

static const psoc_field f_serialized_rs[] = {
  BLOB(psoc_serialized_root_signature_desc, pSerializedBlob, SerializedBlobSizeInBytes, "blob"),
  COUNTF(psoc_serialized_root_signature_desc, SerializedBlobSizeInBytes, "size"),
};
static const psoc_struct s_serialized_rs =
    { "D3D12_SERIALIZED_ROOT_SIGNATURE_DESC", (uint32_t)sizeof(psoc_serialized_root_signature_desc),
      (uint32_t)alignof(psoc_serialized_root_signature_desc), f_serialized_rs, 2 };

/* Single-value payloads are described as one-field structs. */
typedef struct { ID3D12RootSignature *pRootSignature; } rs_payload;
static const psoc_field f_rs[] = { OBJECT(rs_payload, pRootSignature, "root_signature") };
static const psoc_struct s_rs = { "ID3D12RootSignature*", sizeof(void *), alignof(void *), f_rs, 1 };

typedef struct { UINT SampleMask; } mask_payload;
static const psoc_field f_mask[] = { UINTF(mask_payload, SampleMask, "sample_mask") };
static const psoc_struct s_mask = { "UINT", 4, 4, f_mask, 1 };

typedef struct { UINT NodeMask; } node_payload;
static const psoc_field f_node[] = { UINTF(node_payload, NodeMask, "node_mask") };
static const psoc_struct s_node = { "D3D12_NODE_MASK", 4, 4, f_node, 1 };

typedef struct { D3D12_INDEX_BUFFER_STRIP_CUT_VALUE IBStripCutValue; } cut_payload;
static const psoc_field f_cut[] = { ENUMF(cut_payload, IBStripCutValue, "strip_cut", psoc_enum_strip_cut) };
static const psoc_struct s_cut = { "D3D12_INDEX_BUFFER_STRIP_CUT_VALUE", 4, 4, f_cut, 1 };

typedef struct { D3D12_PRIMITIVE_TOPOLOGY_TYPE PrimitiveTopologyType; } topo_payload;
static const psoc_field f_topo[] = {
  ENUMF(topo_payload, PrimitiveTopologyType, "topology", psoc_enum_topology_type) };
static const psoc_struct s_topo = { "D3D12_PRIMITIVE_TOPOLOGY_TYPE", 4, 4, f_topo, 1 };

typedef struct { DXGI_FORMAT DSVFormat; } dsv_payload;
static const psoc_field f_dsv[] = { ENUMF(dsv_payload, DSVFormat, "depth_format", psoc_enum_dxgi_format) };
static const psoc_struct s_dsv = { "DXGI_FORMAT", 4, 4, f_dsv, 1 };

typedef struct { D3D12_PIPELINE_STATE_FLAGS Flags; } flags_payload;
static const psoc_field f_flags[] = { FLAGSF(flags_payload, Flags, "flags", psoc_enum_pipeline_flags) };
static const psoc_struct s_flags = { "D3D12_PIPELINE_STATE_FLAGS", 4, 4, f_flags, 1 };

/* ---- stream output ----------------------------------------------- */

static const psoc_field f_so_entry[] = {
  UINTF(D3D12_SO_DECLARATION_ENTRY, Stream, "stream"),
  STRING(D3D12_SO_DECLARATION_ENTRY, SemanticName, "semantic"),
  UINTF(D3D12_SO_DECLARATION_ENTRY, SemanticIndex, "index"),
  UINTF(D3D12_SO_DECLARATION_ENTRY, StartComponent, "start_component"),
  UINTF(D3D12_SO_DECLARATION_ENTRY, ComponentCount, "component_count"),
  UINTF(D3D12_SO_DECLARATION_ENTRY, OutputSlot, "slot"),
};
static const psoc_struct s_so_entry = STRUCT_DESC(D3D12_SO_DECLARATION_ENTRY, f_so_entry);

static const psoc_field f_so[] = {
  ARRAY_OF(D3D12_STREAM_OUTPUT_DESC, pSODeclaration, NumEntries, "entries", s_so_entry,
           D3D12_SO_DECLARATION_ENTRY),
  COUNTF(D3D12_STREAM_OUTPUT_DESC, NumEntries, "num_entries"),
  ARRAY_U32(D3D12_STREAM_OUTPUT_DESC, pBufferStrides, NumStrides, "strides"),
  COUNTF(D3D12_STREAM_OUTPUT_DESC, NumStrides, "num_strides"),
  UINTF(D3D12_STREAM_OUTPUT_DESC, RasterizedStream, "rasterized_stream"),
};
static const psoc_struct s_so = STRUCT_DESC(D3D12_STREAM_OUTPUT_DESC, f_so);

/* ---- blend ------------------------------------------------------- */

static const psoc_field f_rt_blend[] = {
  BOOLF(D3D12_RENDER_TARGET_BLEND_DESC, BlendEnable, "enable"),
  BOOLF(D3D12_RENDER_TARGET_BLEND_DESC, LogicOpEnable, "logic_op_enable"),
  ENUMF(D3D12_RENDER_TARGET_BLEND_DESC, SrcBlend, "src", psoc_enum_blend),
  ENUMF(D3D12_RENDER_TARGET_BLEND_DESC, DestBlend, "dst", psoc_enum_blend),
  ENUMF(D3D12_RENDER_TARGET_BLEND_DESC, BlendOp, "op", psoc_enum_blend_op),
  ENUMF(D3D12_RENDER_TARGET_BLEND_DESC, SrcBlendAlpha, "src_alpha", psoc_enum_blend),
  ENUMF(D3D12_RENDER_TARGET_BLEND_DESC, DestBlendAlpha, "dst_alpha", psoc_enum_blend),
  ENUMF(D3D12_RENDER_TARGET_BLEND_DESC, BlendOpAlpha, "op_alpha", psoc_enum_blend_op),
  ENUMF(D3D12_RENDER_TARGET_BLEND_DESC, LogicOp, "logic_op", psoc_enum_logic_op),
  FLAGSF(D3D12_RENDER_TARGET_BLEND_DESC, RenderTargetWriteMask, "write_mask", psoc_enum_color_write),
};
static const psoc_struct s_rt_blend = STRUCT_DESC(D3D12_RENDER_TARGET_BLEND_DESC, f_rt_blend);

static const psoc_field f_blend[] = {
  BOOLF(D3D12_BLEND_DESC, AlphaToCoverageEnable, "alpha_to_coverage"),
  BOOLF(D3D12_BLEND_DESC, IndependentBlendEnable, "independent"),
  FIXED_OF(D3D12_BLEND_DESC, RenderTarget, 8, "render_targets", s_rt_blend,
           D3D12_RENDER_TARGET_BLEND_DESC),
};
static const psoc_struct s_blend = STRUCT_DESC(D3D12_BLEND_DESC, f_blend);

/* ---- rasterizer (three generations) ------------------------------- */

static const psoc_field f_rast[] = {
  ENUMF(D3D12_RASTERIZER_DESC, FillMode, "fill", psoc_enum_fill_mode),
  ENUMF(D3D12_RASTERIZER_DESC, CullMode, "cull", psoc_enum_cull_mode),
  BOOLF(D3D12_RASTERIZER_DESC, FrontCounterClockwise, "front_ccw"),
  INTF(D3D12_RASTERIZER_DESC, DepthBias, "depth_bias"),
  FLT(D3D12_RASTERIZER_DESC, DepthBiasClamp, "depth_bias_clamp"),
  FLT(D3D12_RASTERIZER_DESC, SlopeScaledDepthBias, "slope_scaled_depth_bias"),
  BOOLF(D3D12_RASTERIZER_DESC, DepthClipEnable, "depth_clip"),
  BOOLF(D3D12_RASTERIZER_DESC, MultisampleEnable, "multisample"),
  BOOLF(D3D12_RASTERIZER_DESC, AntialiasedLineEnable, "antialiased_line"),
  UINTF(D3D12_RASTERIZER_DESC, ForcedSampleCount, "forced_sample_count"),
  ENUMF(D3D12_RASTERIZER_DESC, ConservativeRaster, "conservative", psoc_enum_conservative_raster),
};
static const psoc_struct s_rast = STRUCT_DESC(D3D12_RASTERIZER_DESC, f_rast);

static const psoc_field f_rast1[] = {
  ENUMF(psoc_rasterizer_desc1, FillMode, "fill", psoc_enum_fill_mode),
  ENUMF(psoc_rasterizer_desc1, CullMode, "cull", psoc_enum_cull_mode),
  BOOLF(psoc_rasterizer_desc1, FrontCounterClockwise, "front_ccw"),
  FLT(psoc_rasterizer_desc1, DepthBias, "depth_bias"),
  FLT(psoc_rasterizer_desc1, DepthBiasClamp, "depth_bias_clamp"),
  FLT(psoc_rasterizer_desc1, SlopeScaledDepthBias, "slope_scaled_depth_bias"),
  BOOLF(psoc_rasterizer_desc1, DepthClipEnable, "depth_clip"),
  BOOLF(psoc_rasterizer_desc1, MultisampleEnable, "multisample"),
  BOOLF(psoc_rasterizer_desc1, AntialiasedLineEnable, "antialiased_line"),
  UINTF(psoc_rasterizer_desc1, ForcedSampleCount, "forced_sample_count"),
  ENUMF(psoc_rasterizer_desc1, ConservativeRaster, "conservative", psoc_enum_conservative_raster),
};
static const psoc_struct s_rast1 = { "D3D12_RASTERIZER_DESC1", sizeof(psoc_rasterizer_desc1),
                                     alignof(psoc_rasterizer_desc1), f_rast1, 11 };

static const psoc_field f_rast2[] = {
  ENUMF(psoc_rasterizer_desc2, FillMode, "fill", psoc_enum_fill_mode),
  ENUMF(psoc_rasterizer_desc2, CullMode, "cull", psoc_enum_cull_mode),
  BOOLF(psoc_rasterizer_desc2, FrontCounterClockwise, "front_ccw"),
  FLT(psoc_rasterizer_desc2, DepthBias, "depth_bias"),
  FLT(psoc_rasterizer_desc2, DepthBiasClamp, "depth_bias_clamp"),
  FLT(psoc_rasterizer_desc2, SlopeScaledDepthBias, "slope_scaled_depth_bias"),
  BOOLF(psoc_rasterizer_desc2, DepthClipEnable, "depth_clip"),
  ENUMF(psoc_rasterizer_desc2, LineRasterizationMode, "line_mode", psoc_enum_line_raster),
  UINTF(psoc_rasterizer_desc2, ForcedSampleCount, "forced_sample_count"),
  ENUMF(psoc_rasterizer_desc2, ConservativeRaster, "conservative", psoc_enum_conservative_raster),
};
static const psoc_struct s_rast2 = { "D3D12_RASTERIZER_DESC2", sizeof(psoc_rasterizer_desc2),
                                     alignof(psoc_rasterizer_desc2), f_rast2, 10 };

/* ---- depth-stencil (three generations) ----------------------------- */

static const psoc_field f_stencil_op[] = {
  ENUMF(D3D12_DEPTH_STENCILOP_DESC, StencilFailOp, "fail", psoc_enum_stencil_op),
  ENUMF(D3D12_DEPTH_STENCILOP_DESC, StencilDepthFailOp, "depth_fail", psoc_enum_stencil_op),
  ENUMF(D3D12_DEPTH_STENCILOP_DESC, StencilPassOp, "pass", psoc_enum_stencil_op),
  ENUMF(D3D12_DEPTH_STENCILOP_DESC, StencilFunc, "func", psoc_enum_comparison_func),
};
static const psoc_struct s_stencil_op = STRUCT_DESC(D3D12_DEPTH_STENCILOP_DESC, f_stencil_op);

static const psoc_field f_stencil_op1[] = {
  ENUMF(D3D12_DEPTH_STENCILOP_DESC1, StencilFailOp, "fail", psoc_enum_stencil_op),
  ENUMF(D3D12_DEPTH_STENCILOP_DESC1, StencilDepthFailOp, "depth_fail", psoc_enum_stencil_op),
  ENUMF(D3D12_DEPTH_STENCILOP_DESC1, StencilPassOp, "pass", psoc_enum_stencil_op),
  ENUMF(D3D12_DEPTH_STENCILOP_DESC1, StencilFunc, "func", psoc_enum_comparison_func),
  UINTF(D3D12_DEPTH_STENCILOP_DESC1, StencilReadMask, "read_mask"),
  UINTF(D3D12_DEPTH_STENCILOP_DESC1, StencilWriteMask, "write_mask"),
};
static const psoc_struct s_stencil_op1 = STRUCT_DESC(D3D12_DEPTH_STENCILOP_DESC1, f_stencil_op1);

#define DS_COMMON(S)                                                              \
  BOOLF(S, DepthEnable, "depth"),                                                 \
  ENUMF(S, DepthWriteMask, "write", psoc_enum_depth_write_mask),                  \
  ENUMF(S, DepthFunc, "func", psoc_enum_comparison_func),                         \
  BOOLF(S, StencilEnable, "stencil")

static const psoc_field f_ds[] = {
  DS_COMMON(D3D12_DEPTH_STENCIL_DESC),
  UINTF(D3D12_DEPTH_STENCIL_DESC, StencilReadMask, "stencil_read_mask"),
  UINTF(D3D12_DEPTH_STENCIL_DESC, StencilWriteMask, "stencil_write_mask"),
  STRUCTF(D3D12_DEPTH_STENCIL_DESC, FrontFace, "front", s_stencil_op),
  STRUCTF(D3D12_DEPTH_STENCIL_DESC, BackFace, "back", s_stencil_op),
};
static const psoc_struct s_ds = STRUCT_DESC(D3D12_DEPTH_STENCIL_DESC, f_ds);

static const psoc_field f_ds1[] = {
  DS_COMMON(D3D12_DEPTH_STENCIL_DESC1),
  UINTF(D3D12_DEPTH_STENCIL_DESC1, StencilReadMask, "stencil_read_mask"),
  UINTF(D3D12_DEPTH_STENCIL_DESC1, StencilWriteMask, "stencil_write_mask"),
  STRUCTF(D3D12_DEPTH_STENCIL_DESC1, FrontFace, "front", s_stencil_op),
  STRUCTF(D3D12_DEPTH_STENCIL_DESC1, BackFace, "back", s_stencil_op),
  BOOLF(D3D12_DEPTH_STENCIL_DESC1, DepthBoundsTestEnable, "depth_bounds"),
};
static const psoc_struct s_ds1 = STRUCT_DESC(D3D12_DEPTH_STENCIL_DESC1, f_ds1);

static const psoc_field f_ds2[] = {
  DS_COMMON(D3D12_DEPTH_STENCIL_DESC2),
  STRUCTF(D3D12_DEPTH_STENCIL_DESC2, FrontFace, "front", s_stencil_op1),
  STRUCTF(D3D12_DEPTH_STENCIL_DESC2, BackFace, "back", s_stencil_op1),
  BOOLF(D3D12_DEPTH_STENCIL_DESC2, DepthBoundsTestEnable, "depth_bounds"),
};
static const psoc_struct s_ds2 = STRUCT_DESC(D3D12_DEPTH_STENCIL_DESC2, f_ds2);

/* ---- input layout ------------------------------------------------ */

static const psoc_field f_element[] = {
  STRING(D3D12_INPUT_ELEMENT_DESC, SemanticName, "semantic"),
  UINTF(D3D12_INPUT_ELEMENT_DESC, SemanticIndex, "index"),
  ENUMF(D3D12_INPUT_ELEMENT_DESC, Format, "format", psoc_enum_dxgi_format),
  UINTF(D3D12_INPUT_ELEMENT_DESC, InputSlot, "slot"),
  UINTF(D3D12_INPUT_ELEMENT_DESC, AlignedByteOffset, "offset"),
  ENUMF(D3D12_INPUT_ELEMENT_DESC, InputSlotClass, "classification", psoc_enum_input_classification),
  UINTF(D3D12_INPUT_ELEMENT_DESC, InstanceDataStepRate, "step_rate"),
};
static const psoc_struct s_element = STRUCT_DESC(D3D12_INPUT_ELEMENT_DESC, f_element);

static const psoc_field f_layout[] = {
  ARRAY_OF(D3D12_INPUT_LAYOUT_DESC, pInputElementDescs, NumElements, "elements", s_element,
           D3D12_INPUT_ELEMENT_DESC),
  COUNTF(D3D12_INPUT_LAYOUT_DESC, NumElements, "num_elements"),
};
static const psoc_struct s_layout = STRUCT_DESC(D3D12_INPUT_LAYOUT_DESC, f_layout);

/* ---- formats, samples, view instancing ----------------------------- */

static const psoc_field f_rtv[] = {
  FIXED_ENUM(D3D12_RT_FORMAT_ARRAY, RTFormats, 8, "formats", psoc_enum_dxgi_format),
  UINTF(D3D12_RT_FORMAT_ARRAY, NumRenderTargets, "count"),
};
static const psoc_struct s_rtv = STRUCT_DESC(D3D12_RT_FORMAT_ARRAY, f_rtv);

static const psoc_field f_sample[] = {
  UINTF(DXGI_SAMPLE_DESC, Count, "count"),
  UINTF(DXGI_SAMPLE_DESC, Quality, "quality"),
};
static const psoc_struct s_sample = STRUCT_DESC(DXGI_SAMPLE_DESC, f_sample);

static const psoc_field f_view_loc[] = {
  UINTF(D3D12_VIEW_INSTANCE_LOCATION, ViewportArrayIndex, "viewport"),
  UINTF(D3D12_VIEW_INSTANCE_LOCATION, RenderTargetArrayIndex, "render_target"),
};
static const psoc_struct s_view_loc = STRUCT_DESC(D3D12_VIEW_INSTANCE_LOCATION, f_view_loc);

static const psoc_field f_view[] = {
  COUNTF(D3D12_VIEW_INSTANCING_DESC, ViewInstanceCount, "count"),
  ARRAY_OF(D3D12_VIEW_INSTANCING_DESC, pViewInstanceLocations, ViewInstanceCount, "locations",
           s_view_loc, D3D12_VIEW_INSTANCE_LOCATION),
  FLAGSF(D3D12_VIEW_INSTANCING_DESC, Flags, "flags", psoc_enum_view_instancing_flags),
};
static const psoc_struct s_view = STRUCT_DESC(D3D12_VIEW_INSTANCING_DESC, f_view);

/* ---- runtime defaults (CD3DX12_DEFAULT and the documented values) -- */

#define RT_BLEND_DEFAULT                                                        \
  { FALSE, FALSE, D3D12_BLEND_ONE, D3D12_BLEND_ZERO, D3D12_BLEND_OP_ADD,        \
    D3D12_BLEND_ONE, D3D12_BLEND_ZERO, D3D12_BLEND_OP_ADD, D3D12_LOGIC_OP_NOOP, \
    D3D12_COLOR_WRITE_ENABLE_ALL }
static const D3D12_BLEND_DESC d_blend = {
  FALSE, FALSE,
  { RT_BLEND_DEFAULT, RT_BLEND_DEFAULT, RT_BLEND_DEFAULT, RT_BLEND_DEFAULT,
    RT_BLEND_DEFAULT, RT_BLEND_DEFAULT, RT_BLEND_DEFAULT, RT_BLEND_DEFAULT } };
static const UINT d_mask = 0xFFFFFFFFu;
static const D3D12_RASTERIZER_DESC d_rast = {
  D3D12_FILL_MODE_SOLID, D3D12_CULL_MODE_BACK, FALSE, D3D12_DEFAULT_DEPTH_BIAS,
  D3D12_DEFAULT_DEPTH_BIAS_CLAMP, D3D12_DEFAULT_SLOPE_SCALED_DEPTH_BIAS, TRUE, FALSE, FALSE, 0,
  D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF };
static const psoc_rasterizer_desc1 d_rast1 = {
  D3D12_FILL_MODE_SOLID, D3D12_CULL_MODE_BACK, FALSE, 0.0f, 0.0f, 0.0f, TRUE, FALSE, FALSE, 0,
  D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF };
static const psoc_rasterizer_desc2 d_rast2 = {
  D3D12_FILL_MODE_SOLID, D3D12_CULL_MODE_BACK, FALSE, 0.0f, 0.0f, 0.0f, TRUE,
  PSOC_LINE_RASTERIZATION_MODE_ALIASED, 0, D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF };
#define STENCIL_OP_DEFAULT \
  { D3D12_STENCIL_OP_KEEP, D3D12_STENCIL_OP_KEEP, D3D12_STENCIL_OP_KEEP, D3D12_COMPARISON_FUNC_ALWAYS }
#define STENCIL_OP1_DEFAULT                                                     \
  { D3D12_STENCIL_OP_KEEP, D3D12_STENCIL_OP_KEEP, D3D12_STENCIL_OP_KEEP,        \
    D3D12_COMPARISON_FUNC_ALWAYS, D3D12_DEFAULT_STENCIL_READ_MASK, D3D12_DEFAULT_STENCIL_WRITE_MASK }
static const D3D12_DEPTH_STENCIL_DESC d_ds = {
  TRUE, D3D12_DEPTH_WRITE_MASK_ALL, D3D12_COMPARISON_FUNC_LESS, FALSE,
  D3D12_DEFAULT_STENCIL_READ_MASK, D3D12_DEFAULT_STENCIL_WRITE_MASK, STENCIL_OP_DEFAULT,
  STENCIL_OP_DEFAULT };
static const D3D12_DEPTH_STENCIL_DESC1 d_ds1 = {
  TRUE, D3D12_DEPTH_WRITE_MASK_ALL, D3D12_COMPARISON_FUNC_LESS, FALSE,
  D3D12_DEFAULT_STENCIL_READ_MASK, D3D12_DEFAULT_STENCIL_WRITE_MASK, STENCIL_OP_DEFAULT,
  STENCIL_OP_DEFAULT, FALSE };
static const D3D12_DEPTH_STENCIL_DESC2 d_ds2 = {
  TRUE, D3D12_DEPTH_WRITE_MASK_ALL, D3D12_COMPARISON_FUNC_LESS, FALSE, STENCIL_OP1_DEFAULT,
  STENCIL_OP1_DEFAULT, FALSE };
static const D3D12_PRIMITIVE_TOPOLOGY_TYPE d_topo = D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE;
static const DXGI_SAMPLE_DESC d_sample = { 1, 0 };
/* every other default is all zeros */
static void *const d_rs = NULL;
static const D3D12_SHADER_BYTECODE d_bytecode = { 0 };
static const D3D12_STREAM_OUTPUT_DESC d_so = { 0 };
static const D3D12_INPUT_LAYOUT_DESC d_layout = { 0 };
static const D3D12_INDEX_BUFFER_STRIP_CUT_VALUE d_cut = D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_DISABLED;
static const D3D12_RT_FORMAT_ARRAY d_rtv = { { DXGI_FORMAT_UNKNOWN }, 0 };
static const DXGI_FORMAT d_dsv = DXGI_FORMAT_UNKNOWN;
static const UINT d_node = 0;
static const D3D12_CACHED_PIPELINE_STATE d_cached = { 0 };
static const D3D12_PIPELINE_STATE_FLAGS d_flags = D3D12_PIPELINE_STATE_FLAG_NONE;
static const D3D12_VIEW_INSTANCING_DESC d_view = { 0 };
static const psoc_serialized_root_signature_desc d_serialized_rs = { 0 };

/* ---- the table: PSOC_SUBOBJECTS (psoc.h), row by row ------------------ */

#define ROW(NAME, id, key, CLASS, kinds, T, layout, bits)                                   \
  [id] = { id, bits, #NAME, key, PSOC_SO_##CLASS, kinds, PSOC_PAYLOAD_OFFSET(T),             \
           PSOC_STRIDE(T),                                                                   \
           &s_##layout, &d_##layout },

const psoc_subobject_info psoc_registry_rows[PSOC_SO_TYPE_COUNT] = { PSOC_SUBOBJECTS(ROW) };

/* The rows' default payloads on their own, for psoc_walk_check to start from. */
#define DEFAULT_OF(NAME, id, key, CLASS, kinds, T, layout, bits) [id] = (const unsigned char *)&d_##layout,
const unsigned char *const psoc_registry_defaults[PSOC_SO_TYPE_COUNT] = {
  PSOC_SUBOBJECTS(DEFAULT_OF)
};
#undef DEFAULT_OF

#define NAME_LEN(NAME, id, key, CLASS, kinds, T, layout, bits) [id] = sizeof(#NAME) - 1,
const uint8_t psoc_registry_name_len[PSOC_SO_TYPE_COUNT] = { PSOC_SUBOBJECTS(NAME_LEN) };
#undef NAME_LEN
#define NAME_PADDED(NAME, id, key, CLASS, kinds, T, layout, bits) [id] = #NAME,
const char psoc_registry_names_padded[PSOC_SO_TYPE_COUNT][PSOC_NAME_PAD] = {
  PSOC_SUBOBJECTS(NAME_PADDED)
};
#undef NAME_PADDED
#define NAME_FITS(NAME, id, key, CLASS, kinds, T, layout, bits) \
  _Static_assert(sizeof(#NAME) <= PSOC_NAME_PAD, #NAME ": the name fits its padded copy");
PSOC_SUBOBJECTS(NAME_FITS)
#undef NAME_FITS

/* Each type's class as a PSOC_TYPE_BIT of its base type (psoc_classes_of). */
#define CLASS_BIT_OF(NAME, id, key, CLASS, kinds, T, layout, bits) [id] = PSOC_TYPE_BIT(PSOC_SO_##CLASS),
const uint64_t psoc_registry_class_bits[PSOC_SO_TYPE_COUNT] = { PSOC_SUBOBJECTS(CLASS_BIT_OF) };
#undef CLASS_BIT_OF

/* What the list's rows promise, checked when it is compiled: each row's
** value is below the count (rows in value order), its payload type is the
** size its layout describes and its default is of that type, a version
** belongs to a class of one kind set, and a deciding shader has one kind. */
#define CHECK_ROW(NAME, id, key, CLASS, kinds, T, layout, bits)                              \
  _Static_assert((id) < PSOC_SO_TYPE_COUNT, #NAME ": rows are in value order");            \
  _Static_assert(sizeof(T) == sizeof(d_##layout), #NAME ": default is of the payload type"); \
  _Static_assert(!((bits) & PSOC_SUBOBJECT_DECIDES_KIND) ||                                \
                     ((bits) & PSOC_SUBOBJECT_SHADER && ((kinds) & ((kinds) - 1)) == 0),    \
                 #NAME ": a deciding shader has exactly one kind");
PSOC_SUBOBJECTS(CHECK_ROW)

_Static_assert(sizeof(D3D12_RASTERIZER_DESC) == 44, "RASTERIZER payload size");
_Static_assert(sizeof(psoc_rasterizer_desc1) == 44, "RASTERIZER1 payload size");
_Static_assert(sizeof(psoc_rasterizer_desc2) == 40, "RASTERIZER2 payload size");

uint32_t psoc_kind_shader(psoc_kind kind) {
  uint64_t m;
  if ((unsigned)kind >= 4) return PSOC_SO_TYPE_COUNT;
  for (m = PSOC_DECIDER_TYPES; m; m &= m - 1) {
    uint32_t t = psoc_lowest_bit(m);
    if (psoc_registry_rows[t].kinds == PSOC_KIND_BIT(kind)) return t;
  }
  return PSOC_SO_TYPE_COUNT;
}

const char *psoc_registry_types_text(char *out, size_t n) {
  size_t len = 0;
  uint32_t t = 0;
  if (n) out[0] = '\0';
  while (t < PSOC_SO_TYPE_COUNT) {
    uint32_t first;
    int w;
    if (!psoc_registry_rows[t].name) {
      t++;
      continue;
    }
    first = t;
    while (t + 1 < PSOC_SO_TYPE_COUNT && psoc_registry_rows[t + 1].name) t++;
    w = first == t ? snprintf(out + len, n - len, "%s%u", len ? ", " : "", (unsigned)first)
                   : snprintf(out + len, n - len, "%s%u-%u", len ? ", " : "", (unsigned)first,
                              (unsigned)t);
    if (w < 0 || (size_t)w >= n - len) break;
    len += (size_t)w;
    t++;
  }
  return out;
}

const char *psoc_registry_deciders_text(char *out, size_t n, int style) {
  size_t len = 0;
  uint64_t m;
  if (n) out[0] = '\0';
  for (m = PSOC_DECIDER_TYPES; m; m &= m - 1) {
    const psoc_subobject_info *info = &psoc_registry_rows[psoc_lowest_bit(m)];
    const char *sep = len == 0 ? "" : (m & (m - 1)) || style == PSOC_DECIDERS_LIST ? ", " : " or ";
    int w = style == PSOC_DECIDERS_KINDS ? snprintf(out + len, n - len, "%s%s (%s)", sep, info->name,
                                  psoc_kind_name((psoc_kind)psoc_lowest_bit(info->kinds)))
                       : snprintf(out + len, n - len, "%s%s", sep, info->name);
    if (w < 0 || (size_t)w >= n - len) break;
    len += (size_t)w;
  }
  return out;
}

const psoc_subobject_info *psoc_subobject_info_get(uint32_t type) {
  return psoc_info(type);
}

uint32_t psoc_class_of(uint32_t type) {
  const psoc_subobject_info *info = psoc_subobject_info_get(type);
  return info ? info->dup_class : PSOC_SO_TYPE_COUNT;
}

static int same_nocase(const char *a, const char *b) {
  for (; *a && *b; a++, b++) {
    char x = *a, y = *b;
    if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = (char)(y - 'A' + 'a');
    if (x != y) return 0;
  }
  return *a == *b;
}

const psoc_subobject_info *psoc_subobject_info_find(const char *name) {
  static const char prefix[] = "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_";
  uint32_t i;
  if (name == NULL) return NULL;
  if (strncmp(name, prefix, sizeof prefix - 1) == 0) name += sizeof prefix - 1;
  for (i = 0; i < PSOC_SO_TYPE_COUNT; i++) {
    const psoc_subobject_info *info = &psoc_registry_rows[i];
    if (info->name && (same_nocase(name, info->name) || same_nocase(name, info->key))) return info;
  }
  return NULL;
}

const char *psoc_kind_name(psoc_kind kind) {
  static const char *const names[] = { "none", "graphics", "compute", "mesh" };
  return (unsigned)kind < 4 ? names[kind] : "unknown";
}

const char *psoc_status_name(psoc_status status) {
  static const char *const names[] = { "ok", "invalid argument", "out of memory",
                                       "unknown subobject type", "bad size",
                                       "duplicate subobject", "invalid stream",
                                       "lossy conversion", "write failed" };
  return (unsigned)status < sizeof names / sizeof names[0] ? names[status] : "unknown status";
}

const char *psoc_origin_name(psoc_origin origin) {
  static const char *const names[] = { "default", "explicit", "hidden default", "unused" };
  return (unsigned)origin < 4 ? names[origin] : "unknown";
}

/* ---- allocator ------------------------------------------------------ */

static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, nsize);
}

psoc_allocator psoc_alloc_or_default(const psoc_allocator *a) {
  psoc_allocator r;
  if (a && a->fn) return *a;
  r.fn = default_alloc;
  r.ud = NULL;
  return r;
}

void *psoc_mem(const psoc_allocator *a, void *ptr, size_t osize, size_t nsize) {
  if (a && a->fn) return a->fn(a->ud, ptr, osize, nsize);
  return default_alloc(NULL, ptr, osize, nsize);
}

uint64_t psoc_read_scalar(const unsigned char *p, unsigned size) {
  switch (size) {
  case 1: return p[0];
  case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
  case 4: return psoc_rd32(p);
  default: { uint64_t v; memcpy(&v, p, 8); return v; }
  }
}

size_t psoc_field_count(const psoc_struct *s, const psoc_field *f, const unsigned char *base) {
  unsigned size = f->kind == PSOC_FIELD_BLOB ? (unsigned)sizeof(SIZE_T) : 4u;
  uint32_t i;
  for (i = 0; i < s->field_count; i++)
    if (s->fields[i].kind == PSOC_FIELD_COUNT && s->fields[i].offset == f->count_offset) {
      size = s->fields[i].size;
      break;
    }
  return (size_t)psoc_read_scalar(base + f->count_offset, size);
}
