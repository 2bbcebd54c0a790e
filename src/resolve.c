/*
** resolve.c: the effective pipeline a stream describes, with the runtime's
** defaults (including the hidden ones) and where each value came from;
** conversions to and from the classic graphics and compute descs.
*/
#include <limits.h>
#include <math.h>

#include "platform.h"
#include "rules_internal.h" /* psoc_ignored_types */

/* take, resolve_rasterizer and resolve_depth_stencil have two callers (psoc_resolve, once per
** subobject, and init_defaults, once per process): inlined into the hot one. */
#if defined(__GNUC__)
#define HOT_INLINE __attribute__((always_inline)) inline
#else
#define HOT_INLINE inline
#endif

static psoc_line_rasterization_mode line_mode_of(BOOL multisample, BOOL antialiased) {
  if (multisample) return PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_WIDE;
  return antialiased ? PSOC_LINE_RASTERIZATION_MODE_ALPHA_ANTIALIASED
                     : PSOC_LINE_RASTERIZATION_MODE_ALIASED;
}

/* The members every older rasterizer version shares with the widened state,
** at the same offsets (DepthBias differs in type only in RASTERIZER). */
#define RAST_LEAD offsetof(psoc_rasterizer_state, LineRasterizationMode)
#define RAST_SAME(m)                                                                     \
  _Static_assert(offsetof(psoc_rasterizer_state, m) == offsetof(psoc_rasterizer_desc1, m) && \
                     offsetof(psoc_rasterizer_state, m) == offsetof(D3D12_RASTERIZER_DESC, m), \
                 "rasterizer member " #m " at one offset")
RAST_SAME(FillMode);
RAST_SAME(CullMode);
RAST_SAME(FrontCounterClockwise);
RAST_SAME(DepthBias);
RAST_SAME(DepthBiasClamp);
RAST_SAME(SlopeScaledDepthBias);
RAST_SAME(DepthClipEnable);
RAST_SAME(MultisampleEnable);
RAST_SAME(AntialiasedLineEnable);
#undef RAST_SAME
_Static_assert(RAST_LEAD == offsetof(psoc_rasterizer_desc1, ForcedSampleCount) &&
                   sizeof(INT) == sizeof(FLOAT),
               "the shared members end where RASTERIZER1 has ForcedSampleCount");
_Static_assert(offsetof(D3D12_RASTERIZER_DESC, ForcedSampleCount) ==
                       offsetof(psoc_rasterizer_desc1, ForcedSampleCount) &&
                   offsetof(D3D12_RASTERIZER_DESC, ConservativeRaster) ==
                       offsetof(psoc_rasterizer_desc1, ConservativeRaster),
               "RASTERIZER and RASTERIZER1 end alike");

/* The rasterizer payload of 'type' (RASTERIZER, RASTERIZER1 or RASTERIZER2). */
static HOT_INLINE void resolve_rasterizer(uint32_t type, const unsigned char *payload,
                                          psoc_rasterizer_state *r) {
  if (type == PSOC_SO_RASTERIZER2) {
    psoc_rasterizer_desc2 d;
    memcpy(&d, payload, sizeof d);
    r->FillMode = d.FillMode;
    r->CullMode = d.CullMode;
    r->FrontCounterClockwise = d.FrontCounterClockwise;
    r->DepthBias = d.DepthBias;
    r->DepthBiasClamp = d.DepthBiasClamp;
    r->SlopeScaledDepthBias = d.SlopeScaledDepthBias;
    r->DepthClipEnable = d.DepthClipEnable;
    r->LineRasterizationMode = d.LineRasterizationMode;
    r->AntialiasedLineEnable =
        d.LineRasterizationMode == PSOC_LINE_RASTERIZATION_MODE_ALPHA_ANTIALIASED;
    r->MultisampleEnable = d.LineRasterizationMode != PSOC_LINE_RASTERIZATION_MODE_ALIASED &&
                           !r->AntialiasedLineEnable;
    r->ForcedSampleCount = d.ForcedSampleCount;
    r->ConservativeRaster = d.ConservativeRaster;
    return;
  }
  /* RASTERIZER and RASTERIZER1 lead with FillMode .. AntialiasedLineEnable
  ** as the widened state does (RASTERIZER's DepthBias is an INT there) */
  memcpy(r, payload, RAST_LEAD);
  if (type != PSOC_SO_RASTERIZER1) {
    INT bias;
    memcpy(&bias, payload + offsetof(D3D12_RASTERIZER_DESC, DepthBias), sizeof bias);
    r->DepthBias = (FLOAT)bias;
  }
  r->LineRasterizationMode = line_mode_of(r->MultisampleEnable, r->AntialiasedLineEnable);
  r->ForcedSampleCount =
      psoc_rd32(payload + offsetof(psoc_rasterizer_desc1, ForcedSampleCount));
  r->ConservativeRaster = (D3D12_CONSERVATIVE_RASTERIZATION_MODE)psoc_rd32(
      payload + offsetof(psoc_rasterizer_desc1, ConservativeRaster));
}

static void widen_stencil_op(const D3D12_DEPTH_STENCILOP_DESC *src, UINT8 read, UINT8 write,
                             D3D12_DEPTH_STENCILOP_DESC1 *dst) {
  dst->StencilFailOp = src->StencilFailOp;
  dst->StencilDepthFailOp = src->StencilDepthFailOp;
  dst->StencilPassOp = src->StencilPassOp;
  dst->StencilFunc = src->StencilFunc;
  dst->StencilReadMask = read;
  dst->StencilWriteMask = write;
}

/* The depth-stencil payload of 'type' (DEPTH_STENCIL, 1 or 2), widened. */
static HOT_INLINE void widen_depth_stencil(uint32_t type, const unsigned char *payload,
                                           D3D12_DEPTH_STENCIL_DESC2 *ds) {
  if (type == PSOC_SO_DEPTH_STENCIL2) {
    memcpy(ds, payload, sizeof *ds);
  } else {
    D3D12_DEPTH_STENCIL_DESC1 d;
    if (type == PSOC_SO_DEPTH_STENCIL1) {
      memcpy(&d, payload, sizeof d);
    } else {
      memcpy(&d, payload, sizeof(D3D12_DEPTH_STENCIL_DESC));
      d.DepthBoundsTestEnable = FALSE;
    }
    ds->DepthEnable = d.DepthEnable;
    ds->DepthWriteMask = d.DepthWriteMask;
    ds->DepthFunc = d.DepthFunc;
    ds->StencilEnable = d.StencilEnable;
    widen_stencil_op(&d.FrontFace, d.StencilReadMask, d.StencilWriteMask, &ds->FrontFace);
    widen_stencil_op(&d.BackFace, d.StencilReadMask, d.StencilWriteMask, &ds->BackFace);
    ds->DepthBoundsTestEnable = d.DepthBoundsTestEnable;
  }
}

/* The depth-stencil subobject 'view' (DEPTH_STENCIL, 1 or 2). */
static HOT_INLINE void resolve_depth_stencil(const psoc_view *view, psoc_resolved *out) {
  widen_depth_stencil(view->type, view->payload, &out->depth_stencil);
  out->depth_enable_origin = PSOC_ORIGIN_EXPLICIT;
}

#define TAKE(type, member)                                   \
  case type:                                                 \
    memcpy(&out->member, view->payload, sizeof out->member); \
    break

/* Copy one subobject's payload into its typed member, widening versions
** (classes without a typed member keep only origin and source_type). */
static HOT_INLINE void take(const psoc_view *view, psoc_resolved *out) {
  switch (view->type) {
  TAKE(PSOC_SO_ROOT_SIGNATURE, root_signature);
  TAKE(PSOC_SO_SERIALIZED_ROOT_SIGNATURE, serialized_root_signature);
  TAKE(PSOC_SO_VS, vs);
  TAKE(PSOC_SO_PS, ps);
  TAKE(PSOC_SO_DS, ds);
  TAKE(PSOC_SO_HS, hs);
  TAKE(PSOC_SO_GS, gs);
  TAKE(PSOC_SO_CS, cs);
  TAKE(PSOC_SO_AS, as);
  TAKE(PSOC_SO_MS, ms);
  TAKE(PSOC_SO_STREAM_OUTPUT, stream_output);
  TAKE(PSOC_SO_BLEND, blend);
  TAKE(PSOC_SO_SAMPLE_MASK, sample_mask);
  TAKE(PSOC_SO_INPUT_LAYOUT, input_layout);
  TAKE(PSOC_SO_IB_STRIP_CUT_VALUE, ib_strip_cut_value);
  TAKE(PSOC_SO_RENDER_TARGET_FORMATS, render_targets);
  TAKE(PSOC_SO_DEPTH_STENCIL_FORMAT, depth_stencil_format);
  TAKE(PSOC_SO_SAMPLE_DESC, sample_desc);
  TAKE(PSOC_SO_NODE_MASK, node_mask);
  TAKE(PSOC_SO_CACHED_PSO, cached_pso);
  TAKE(PSOC_SO_FLAGS, flags);
  TAKE(PSOC_SO_VIEW_INSTANCING, view_instancing);
  case PSOC_SO_PRIMITIVE_TOPOLOGY:
    memcpy(&out->primitive_topology, view->payload, sizeof out->primitive_topology);
    out->topology_origin = PSOC_ORIGIN_EXPLICIT; /* before marking unused */
    break;
  case PSOC_SO_RASTERIZER:
  case PSOC_SO_RASTERIZER1:
  case PSOC_SO_RASTERIZER2:
    resolve_rasterizer(view->type, view->payload, &out->rasterizer);
    break;
  default: /* DEPTH_STENCIL, 1 and 2: after the DSV format, in psoc_resolve */
    break;
  }
}

/* ---- the runtime's defaults, resolved once from the registry ---------- */

/* Per kind: every class at its registry default payload (through take, so
** versions widen the same way), the classes the kind ignores marked unused
** (psoc_ignored_types), and a VS pipeline without a topology draws
** triangles (a hidden default). test_resolve.c checks each value against
** CD3DX12_DEFAULT. */
static psoc_resolved resolved_default[4];
static psoc_plat_once resolved_once = PSOC_PLAT_ONCE_INIT;

static void init_defaults(void) {
  psoc_resolved base;
  uint32_t t, k;
  memset(&base, 0, sizeof base);
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_info(t);
    psoc_view view;
    if (!info || info->dup_class != t) continue;
    view.type = t;
    view.index = 0;
    view.offset = 0;
    view.payload = info->default_payload;
    view.info = info;
    take(&view, &base);
    if (t == PSOC_SO_DEPTH_STENCIL) resolve_depth_stencil(&view, &base);
    base.source_type[t] = (uint8_t)t;
  }
  base.depth_enable_origin = PSOC_ORIGIN_DEFAULT;
  base.topology_origin = PSOC_ORIGIN_DEFAULT;
  for (k = 0; k < 4; k++) {
    psoc_resolved *r = &resolved_default[k];
    uint64_t ignored = psoc_ignored_types((psoc_kind)k) & ~PSOC_VERSION_TYPES;
    *r = base;
    r->kind = (psoc_kind)k;
    for (; ignored; ignored &= ignored - 1) r->origin[psoc_lowest_bit(ignored)] = PSOC_ORIGIN_UNUSED;
    if (k == PSOC_KIND_GRAPHICS) r->topology_origin = PSOC_ORIGIN_HIDDEN_DEFAULT;
  }
}

psoc_status psoc_resolve(const psoc_parsed *parsed, psoc_resolved *out) {
  uint64_t types;
  if (!parsed || !out) return PSOC_ERR_ARG;
  if (psoc_plat_once_run(&resolved_once, init_defaults) != 0) return PSOC_ERR_NOMEM;
  *out = resolved_default[(unsigned)parsed->kind < 4 ? parsed->kind : PSOC_KIND_NONE];
  out->kind = parsed->kind;
  for (types = parsed->type_mask; types; types &= types - 1) {
    uint32_t t = psoc_lowest_bit(types);
    const psoc_view *view = &parsed->views[t];
    uint32_t cls = view->info->dup_class;
    take(view, out);
    /* Classes the kind does not use stay marked unused. */
    if (out->origin[cls] != PSOC_ORIGIN_UNUSED) out->origin[cls] = PSOC_ORIGIN_EXPLICIT;
    out->source_type[cls] = (uint8_t)t;
  }
  if (parsed->class_type[PSOC_SO_DEPTH_STENCIL] >= 0) {
    resolve_depth_stencil(&parsed->views[parsed->class_type[PSOC_SO_DEPTH_STENCIL]], out);
  } else if (out->depth_stencil_format == DXGI_FORMAT_UNKNOWN) {
    /* Hidden default: without a depth-stencil subobject, depth testing is
    ** off unless a DSV format other than UNKNOWN is given. */
    out->depth_stencil.DepthEnable = FALSE;
    out->depth_enable_origin = PSOC_ORIGIN_HIDDEN_DEFAULT;
  }
  return PSOC_OK;
}

#undef TAKE

/* ---- to and from the classic descs --------------------------------- */

psoc_status psoc_resolved_to_graphics_desc(const psoc_resolved *r,
                                           D3D12_GRAPHICS_PIPELINE_STATE_DESC *out) {
  const psoc_rasterizer_state *rs;
  const D3D12_DEPTH_STENCIL_DESC2 *ds;
  int lossy = 0;
  if (!r || !out) return PSOC_ERR_ARG;
  memset(out, 0, sizeof *out);
  rs = &r->rasterizer;
  ds = &r->depth_stencil;
  out->pRootSignature = r->root_signature;
  out->VS = r->vs;
  out->PS = r->ps;
  out->DS = r->ds;
  out->HS = r->hs;
  out->GS = r->gs;
  out->StreamOutput = r->stream_output;
  out->BlendState = r->blend;
  out->SampleMask = r->sample_mask;
  out->RasterizerState.FillMode = rs->FillMode;
  out->RasterizerState.CullMode = rs->CullMode;
  out->RasterizerState.FrontCounterClockwise = rs->FrontCounterClockwise;
  if (fabsf(rs->DepthBias) < 2147483520.0f) { /* converting outside INT is undefined */
    out->RasterizerState.DepthBias = (INT)rs->DepthBias;
    if ((FLOAT)out->RasterizerState.DepthBias != rs->DepthBias) lossy = 1;
  } else { /* NaN, infinite or beyond INT: saturate */
    out->RasterizerState.DepthBias = rs->DepthBias > 0 ? INT_MAX : rs->DepthBias < 0 ? INT_MIN : 0;
    lossy = 1;
  }
  out->RasterizerState.DepthBiasClamp = rs->DepthBiasClamp;
  out->RasterizerState.SlopeScaledDepthBias = rs->SlopeScaledDepthBias;
  out->RasterizerState.DepthClipEnable = rs->DepthClipEnable;
  out->RasterizerState.MultisampleEnable = rs->MultisampleEnable;
  out->RasterizerState.AntialiasedLineEnable = rs->AntialiasedLineEnable;
  out->RasterizerState.ForcedSampleCount = rs->ForcedSampleCount;
  out->RasterizerState.ConservativeRaster = rs->ConservativeRaster;
  if (rs->LineRasterizationMode == PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW) lossy = 1;
  out->DepthStencilState.DepthEnable = ds->DepthEnable;
  out->DepthStencilState.DepthWriteMask = ds->DepthWriteMask;
  out->DepthStencilState.DepthFunc = ds->DepthFunc;
  out->DepthStencilState.StencilEnable = ds->StencilEnable;
  out->DepthStencilState.StencilReadMask = ds->FrontFace.StencilReadMask;
  out->DepthStencilState.StencilWriteMask = ds->FrontFace.StencilWriteMask;
  if (ds->BackFace.StencilReadMask != ds->FrontFace.StencilReadMask ||
      ds->BackFace.StencilWriteMask != ds->FrontFace.StencilWriteMask || ds->DepthBoundsTestEnable)
    lossy = 1;
  out->DepthStencilState.FrontFace.StencilFailOp = ds->FrontFace.StencilFailOp;
  out->DepthStencilState.FrontFace.StencilDepthFailOp = ds->FrontFace.StencilDepthFailOp;
  out->DepthStencilState.FrontFace.StencilPassOp = ds->FrontFace.StencilPassOp;
  out->DepthStencilState.FrontFace.StencilFunc = ds->FrontFace.StencilFunc;
  out->DepthStencilState.BackFace.StencilFailOp = ds->BackFace.StencilFailOp;
  out->DepthStencilState.BackFace.StencilDepthFailOp = ds->BackFace.StencilDepthFailOp;
  out->DepthStencilState.BackFace.StencilPassOp = ds->BackFace.StencilPassOp;
  out->DepthStencilState.BackFace.StencilFunc = ds->BackFace.StencilFunc;
  out->InputLayout = r->input_layout;
  out->IBStripCutValue = r->ib_strip_cut_value;
  out->PrimitiveTopologyType = r->primitive_topology;
  out->NumRenderTargets = r->render_targets.NumRenderTargets;
  memcpy(out->RTVFormats, r->render_targets.RTFormats, sizeof out->RTVFormats);
  out->DSVFormat = r->depth_stencil_format;
  out->SampleDesc = r->sample_desc;
  out->NodeMask = r->node_mask;
  out->CachedPSO = r->cached_pso;
  out->Flags = r->flags;
  if (r->kind != PSOC_KIND_GRAPHICS || r->view_instancing.ViewInstanceCount != 0 ||
      r->serialized_root_signature.pSerializedBlob != NULL)
    lossy = 1;
  return lossy ? PSOC_ERR_LOSSY : PSOC_OK;
}

psoc_status psoc_resolved_to_compute_desc(const psoc_resolved *r,
                                          D3D12_COMPUTE_PIPELINE_STATE_DESC *out) {
  if (!r || !out) return PSOC_ERR_ARG;
  memset(out, 0, sizeof *out);
  out->pRootSignature = r->root_signature;
  out->CS = r->cs;
  out->NodeMask = r->node_mask;
  out->CachedPSO = r->cached_pso;
  out->Flags = r->flags;
  if (r->kind != PSOC_KIND_COMPUTE || r->serialized_root_signature.pSerializedBlob != NULL)
    return PSOC_ERR_LOSSY;
  return PSOC_OK;
}

#define ADD(b, type, value)                                            \
  do {                                                                 \
    psoc_status s_ = psoc_builder_add(b, type, &(value), sizeof(value)); \
    if (s_ != PSOC_OK) return s_;                                      \
  } while (0)

/* Member order of d3dx12's CD3DX12_PIPELINE_STATE_STREAM, but with the desc's own
** types: DEPTH_STENCIL (not DEPTH_STENCIL1) and no null CS subobject. */
psoc_status psoc_builder_add_graphics_desc(psoc_builder *b,
                                           const D3D12_GRAPHICS_PIPELINE_STATE_DESC *d) {
  D3D12_RT_FORMAT_ARRAY rtv;
  if (!b || !d) return PSOC_ERR_ARG;
  memset(&rtv, 0, sizeof rtv);
  memcpy(rtv.RTFormats, d->RTVFormats, sizeof rtv.RTFormats);
  rtv.NumRenderTargets = d->NumRenderTargets;
  ADD(b, PSOC_SO_FLAGS, d->Flags);
  ADD(b, PSOC_SO_NODE_MASK, d->NodeMask);
  ADD(b, PSOC_SO_ROOT_SIGNATURE, d->pRootSignature);
  ADD(b, PSOC_SO_INPUT_LAYOUT, d->InputLayout);
  ADD(b, PSOC_SO_IB_STRIP_CUT_VALUE, d->IBStripCutValue);
  ADD(b, PSOC_SO_PRIMITIVE_TOPOLOGY, d->PrimitiveTopologyType);
  ADD(b, PSOC_SO_VS, d->VS);
  ADD(b, PSOC_SO_GS, d->GS);
  ADD(b, PSOC_SO_STREAM_OUTPUT, d->StreamOutput);
  ADD(b, PSOC_SO_HS, d->HS);
  ADD(b, PSOC_SO_DS, d->DS);
  ADD(b, PSOC_SO_PS, d->PS);
  ADD(b, PSOC_SO_BLEND, d->BlendState);
  ADD(b, PSOC_SO_DEPTH_STENCIL, d->DepthStencilState);
  ADD(b, PSOC_SO_DEPTH_STENCIL_FORMAT, d->DSVFormat);
  ADD(b, PSOC_SO_RASTERIZER, d->RasterizerState);
  ADD(b, PSOC_SO_RENDER_TARGET_FORMATS, rtv);
  ADD(b, PSOC_SO_SAMPLE_DESC, d->SampleDesc);
  ADD(b, PSOC_SO_SAMPLE_MASK, d->SampleMask);
  ADD(b, PSOC_SO_CACHED_PSO, d->CachedPSO);
  return PSOC_OK;
}

psoc_status psoc_builder_add_compute_desc(psoc_builder *b,
                                          const D3D12_COMPUTE_PIPELINE_STATE_DESC *d) {
  if (!b || !d) return PSOC_ERR_ARG;
  ADD(b, PSOC_SO_FLAGS, d->Flags);
  ADD(b, PSOC_SO_NODE_MASK, d->NodeMask);
  ADD(b, PSOC_SO_ROOT_SIGNATURE, d->pRootSignature);
  ADD(b, PSOC_SO_CS, d->CS);
  ADD(b, PSOC_SO_CACHED_PSO, d->CachedPSO);
  return PSOC_OK;
}

/* ---- one versioned class at a time, for psoc_check (owner h2) -------- */

/* psoc_check reads payloads in place and widens only the two versioned
** classes, with the same conversions as psoc_resolve. */
void psoc_resolve_rasterizer_payload(uint32_t type, const unsigned char *payload,
                                     psoc_rasterizer_state *out) {
  resolve_rasterizer(type, payload, out);
}

void psoc_resolve_depth_stencil_payload(uint32_t type, const unsigned char *payload,
                                        D3D12_DEPTH_STENCIL_DESC2 *out) {
  widen_depth_stencil(type, payload, out);
}

/* resolve_rasterizer(PSOC_SO_RASTERIZER, the registry's default payload):
** D3D12's default rasterizer, with the line mode MultisampleEnable and
** AntialiasedLineEnable (both FALSE) give. tests/unit/test_parse.c compares
** it with the widened registry default. */
const psoc_rasterizer_state psoc_rasterizer_default = {
  D3D12_FILL_MODE_SOLID, D3D12_CULL_MODE_BACK, FALSE, (FLOAT)D3D12_DEFAULT_DEPTH_BIAS,
  D3D12_DEFAULT_DEPTH_BIAS_CLAMP, D3D12_DEFAULT_SLOPE_SCALED_DEPTH_BIAS, TRUE, FALSE, FALSE,
  PSOC_LINE_RASTERIZATION_MODE_ALIASED, 0, D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF };
