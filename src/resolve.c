/*
** resolve.c: the effective pipeline a stream describes, with the runtime's
** defaults (including the hidden ones) and where each value came from;
** conversions to and from the classic graphics and compute descs.
*/
#include <math.h>

#include "internal.h"

/* Copy the payload of class 'cls' (or its default) into 'dst'. Returns the
** type that supplied it, or the class itself when defaulted. */
static uint32_t take(const psoc_parsed *parsed, uint32_t cls, void *dst, size_t size,
                     psoc_resolved *out) {
  const psoc_view *view = psoc_parsed_class(parsed, cls);
  const psoc_subobject_info *info;
  if (view) {
    memcpy(dst, view->payload, size);
    out->origin[cls] = PSOC_ORIGIN_EXPLICIT;
    out->source_type[cls] = (uint8_t)view->type;
    return view->type;
  }
  info = psoc_subobject_info_get(cls);
  memcpy(dst, info->default_payload, size);
  out->origin[cls] = PSOC_ORIGIN_DEFAULT;
  out->source_type[cls] = (uint8_t)cls;
  return cls;
}

static psoc_line_rasterization_mode line_mode_of(BOOL multisample, BOOL antialiased) {
  if (multisample) return PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_WIDE;
  return antialiased ? PSOC_LINE_RASTERIZATION_MODE_ALPHA_ANTIALIASED
                     : PSOC_LINE_RASTERIZATION_MODE_ALIASED;
}

static void resolve_rasterizer(const psoc_parsed *parsed, psoc_resolved *out) {
  const psoc_view *view = psoc_parsed_class(parsed, PSOC_SO_RASTERIZER);
  psoc_rasterizer_state *r = &out->rasterizer;
  uint32_t type = view ? view->type : PSOC_SO_RASTERIZER;
  if (type == PSOC_SO_RASTERIZER2) {
    psoc_rasterizer_desc2 d;
    take(parsed, PSOC_SO_RASTERIZER, &d, sizeof d, out);
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
  {
    psoc_rasterizer_desc1 d;
    if (type == PSOC_SO_RASTERIZER1) {
      take(parsed, PSOC_SO_RASTERIZER, &d, sizeof d, out);
    } else {
      D3D12_RASTERIZER_DESC d0;
      take(parsed, PSOC_SO_RASTERIZER, &d0, sizeof d0, out);
      memcpy(&d, &d0, sizeof d); /* same layout but DepthBias */
      d.DepthBias = (FLOAT)d0.DepthBias;
    }
    r->FillMode = d.FillMode;
    r->CullMode = d.CullMode;
    r->FrontCounterClockwise = d.FrontCounterClockwise;
    r->DepthBias = d.DepthBias;
    r->DepthBiasClamp = d.DepthBiasClamp;
    r->SlopeScaledDepthBias = d.SlopeScaledDepthBias;
    r->DepthClipEnable = d.DepthClipEnable;
    r->MultisampleEnable = d.MultisampleEnable;
    r->AntialiasedLineEnable = d.AntialiasedLineEnable;
    r->LineRasterizationMode = line_mode_of(d.MultisampleEnable, d.AntialiasedLineEnable);
    r->ForcedSampleCount = d.ForcedSampleCount;
    r->ConservativeRaster = d.ConservativeRaster;
  }
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

static void resolve_depth_stencil(const psoc_parsed *parsed, psoc_resolved *out) {
  const psoc_view *view = psoc_parsed_class(parsed, PSOC_SO_DEPTH_STENCIL);
  D3D12_DEPTH_STENCIL_DESC2 *ds = &out->depth_stencil;
  uint32_t type = view ? view->type : PSOC_SO_DEPTH_STENCIL;
  out->depth_enable_origin = view ? PSOC_ORIGIN_EXPLICIT : PSOC_ORIGIN_DEFAULT;
  if (type == PSOC_SO_DEPTH_STENCIL2) {
    take(parsed, PSOC_SO_DEPTH_STENCIL, ds, sizeof *ds, out);
  } else {
    D3D12_DEPTH_STENCIL_DESC1 d;
    if (type == PSOC_SO_DEPTH_STENCIL1) {
      take(parsed, PSOC_SO_DEPTH_STENCIL, &d, sizeof d, out);
    } else {
      D3D12_DEPTH_STENCIL_DESC d0;
      take(parsed, PSOC_SO_DEPTH_STENCIL, &d0, sizeof d0, out);
      memcpy(&d, &d0, sizeof d0);
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
  /* Hidden default: without a depth-stencil subobject, depth testing is
  ** off unless a DSV format other than UNKNOWN is given. */
  if (!view && out->depth_stencil_format == DXGI_FORMAT_UNKNOWN) {
    ds->DepthEnable = FALSE;
    out->depth_enable_origin = PSOC_ORIGIN_HIDDEN_DEFAULT;
  }
}

psoc_status psoc_resolve(const psoc_parsed *parsed, psoc_resolved *out) {
  uint32_t t;
  if (!parsed || !out) return PSOC_ERR_ARG;
  memset(out, 0, sizeof *out);
  out->kind = parsed->kind;
  take(parsed, PSOC_SO_ROOT_SIGNATURE, &out->root_signature, sizeof out->root_signature, out);
  take(parsed, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, &out->serialized_root_signature,
       sizeof out->serialized_root_signature, out);
  take(parsed, PSOC_SO_VS, &out->vs, sizeof out->vs, out);
  take(parsed, PSOC_SO_PS, &out->ps, sizeof out->ps, out);
  take(parsed, PSOC_SO_DS, &out->ds, sizeof out->ds, out);
  take(parsed, PSOC_SO_HS, &out->hs, sizeof out->hs, out);
  take(parsed, PSOC_SO_GS, &out->gs, sizeof out->gs, out);
  take(parsed, PSOC_SO_CS, &out->cs, sizeof out->cs, out);
  take(parsed, PSOC_SO_AS, &out->as, sizeof out->as, out);
  take(parsed, PSOC_SO_MS, &out->ms, sizeof out->ms, out);
  take(parsed, PSOC_SO_STREAM_OUTPUT, &out->stream_output, sizeof out->stream_output, out);
  take(parsed, PSOC_SO_BLEND, &out->blend, sizeof out->blend, out);
  take(parsed, PSOC_SO_SAMPLE_MASK, &out->sample_mask, sizeof out->sample_mask, out);
  take(parsed, PSOC_SO_INPUT_LAYOUT, &out->input_layout, sizeof out->input_layout, out);
  take(parsed, PSOC_SO_IB_STRIP_CUT_VALUE, &out->ib_strip_cut_value,
       sizeof out->ib_strip_cut_value, out);
  take(parsed, PSOC_SO_PRIMITIVE_TOPOLOGY, &out->primitive_topology,
       sizeof out->primitive_topology, out);
  take(parsed, PSOC_SO_RENDER_TARGET_FORMATS, &out->render_targets, sizeof out->render_targets,
       out);
  take(parsed, PSOC_SO_DEPTH_STENCIL_FORMAT, &out->depth_stencil_format,
       sizeof out->depth_stencil_format, out);
  take(parsed, PSOC_SO_SAMPLE_DESC, &out->sample_desc, sizeof out->sample_desc, out);
  take(parsed, PSOC_SO_NODE_MASK, &out->node_mask, sizeof out->node_mask, out);
  take(parsed, PSOC_SO_CACHED_PSO, &out->cached_pso, sizeof out->cached_pso, out);
  take(parsed, PSOC_SO_FLAGS, &out->flags, sizeof out->flags, out);
  take(parsed, PSOC_SO_VIEW_INSTANCING, &out->view_instancing, sizeof out->view_instancing, out);
  resolve_rasterizer(parsed, out);
  resolve_depth_stencil(parsed, out);
  /* Hidden default: a VS pipeline without a topology draws triangles. */
  out->topology_origin = out->origin[PSOC_SO_PRIMITIVE_TOPOLOGY];
  if (out->kind == PSOC_KIND_GRAPHICS && out->topology_origin == PSOC_ORIGIN_DEFAULT)
    out->topology_origin = PSOC_ORIGIN_HIDDEN_DEFAULT;
  /* Classes the kind does not use are marked unused. */
  if (out->kind != PSOC_KIND_NONE)
    for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
      const psoc_subobject_info *info = psoc_subobject_info_get(t);
      if (info && info->dup_class == t && !(info->kinds & PSOC_KIND_BIT(out->kind)))
        out->origin[t] = PSOC_ORIGIN_UNUSED;
    }
  return PSOC_OK;
}

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
  out->RasterizerState.DepthBias = (INT)rs->DepthBias;
  if (!(fabsf(rs->DepthBias) < 2147483520.0f) || (FLOAT)(INT)rs->DepthBias != rs->DepthBias)
    lossy = 1;
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
