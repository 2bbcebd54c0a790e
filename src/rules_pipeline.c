/*
** rules_pipeline.c: which stages a pipeline has, topology and strip cut,
** stream output, flags, node mask, view instancing and the cached PSO.
*/
#include "rules_internal.h"

#define GPS "CREATEGRAPHICSPIPELINESTATE_"
#define PS_ "CREATEPIPELINESTATE_"
#define SO "CREATEGEOMETRYSHADERWITHSTREAMOUTPUT_"

static int code_of(const rule_ctx *ctx, uint32_t type) { return psoc_rule_code(ctx, type); }

static int trailing_digit(const char *s, size_t n) { return n > 0 && s[n - 1] >= '0' && s[n - 1] <= '9'; }

void psoc_rules_stages(const rule_ctx *ctx) {
  psoc_kind kind = ctx->walk->kind;
  int hs = code_of(ctx, PSOC_SO_HS), ds = code_of(ctx, PSOC_SO_DS);
  /* A PS (or HS, DS, GS) without a VS is reported by the kind rule as
  ** CANNOT_DEDUCE_TYPE: in a stream, the missing VS is what leaves the type
  ** undecided, so VERTEX_SHADER_NOT_SET is not repeated here. */
  if (kind == PSOC_KIND_NONE) {
    if (code_of(ctx, PSOC_SO_AS))
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_MISSING_SHADER,
                     PS_ "MS_INCOMPLETE_TYPE", PSOC_SO_AS, "AS",
                     "the stream has an amplification shader but no mesh shader; add an MS "
                     "subobject (an AS only feeds an MS)");
    return;
  }
  if (kind == PSOC_KIND_GRAPHICS && hs != ds)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_TESSELLATION, GPS "HS_XOR_DS_MISMATCH",
                   hs ? PSOC_SO_HS : PSOC_SO_DS, hs ? "HS" : "DS",
                   "the pipeline has a %s but no %s; tessellation needs both a hull and a domain "
                   "shader: add the %s or remove the %s", hs ? "HS" : "DS", hs ? "DS" : "HS",
                   hs ? "DS" : "HS", hs ? "HS" : "DS");
  /* An AS in a VS pipeline is ignored like any irrelevant subobject (the
  ** note comes from the irrelevant rule). */
  /* Whether the pipeline kind itself exists on the device is judged only
  ** against a profile the caller chose, like every capability:
  ** psoc_check(..., NULL, ...) checks a mesh stream by the runtime's rules. */
  if (kind == PSOC_KIND_MESH && ctx->has_profile && ctx->profile->mesh_shader_tier == 0)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_UNSUPPORTED, NULL, PSOC_SO_MS, "MS",
                   "mesh pipelines need mesh shader tier 1, which profile '%s' lacks; choose a "
                   "feature level 12_2 profile", ctx->profile->name);
}

void psoc_rules_topology(const rule_ctx *ctx) {
  uint32_t topo = ctx->state.primitive_topology;
  uint32_t cut = ctx->state.ib_strip_cut_value;
  int hs = code_of(ctx, PSOC_SO_HS);
  if (ctx->walk->kind != PSOC_KIND_GRAPHICS) return;
  if (!psoc_rule_valid(PSOC_VALID_TOPOLOGY, topo)) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, GPS "INVALID_PRIMITIVETOPOLOGY",
                   PSOC_SO_PRIMITIVE_TOPOLOGY, "PRIMITIVE_TOPOLOGY",
                   "PrimitiveTopologyType is %u; use POINT, LINE, TRIANGLE or PATCH (1-4)", topo);
  } else if (topo == D3D12_PRIMITIVE_TOPOLOGY_TYPE_UNDEFINED) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_TOPOLOGY, GPS "INVALID_PRIMITIVETOPOLOGY",
                   PSOC_SO_PRIMITIVE_TOPOLOGY, "PRIMITIVE_TOPOLOGY",
                   "PrimitiveTopologyType is UNDEFINED in a VS pipeline; say what you draw: "
                   "TRIANGLE, LINE, POINT or PATCH (omit the subobject for TRIANGLE)");
  } else if (hs && topo != D3D12_PRIMITIVE_TOPOLOGY_TYPE_PATCH) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_TESSELLATION,
                   GPS "HULL_SHADER_INPUT_TOPOLOGY_MISMATCH", PSOC_SO_PRIMITIVE_TOPOLOGY,
                   "PRIMITIVE_TOPOLOGY",
                   "the pipeline has a hull shader but PrimitiveTopologyType is %s%s; a hull "
                   "shader reads patches: set it to PATCH", psoc_rule_enum_name(&psoc_enum_topology_type, topo),
                   psoc_rule_has(ctx, PSOC_SO_PRIMITIVE_TOPOLOGY) ? "" : " (the hidden default)");
  } else if (!hs && topo == D3D12_PRIMITIVE_TOPOLOGY_TYPE_PATCH) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_TESSELLATION, GPS "INVALID_PRIMITIVETOPOLOGY",
                   PSOC_SO_PRIMITIVE_TOPOLOGY, "PRIMITIVE_TOPOLOGY",
                   "PrimitiveTopologyType is PATCH but the pipeline has no hull shader; add HS and "
                   "DS or draw TRIANGLE/LINE/POINT");
  }
  if (!psoc_rule_valid(PSOC_VALID_STRIP_CUT, cut)) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM,
                   GPS "INVALID_INDEX_BUFFER_PROPERTIES", PSOC_SO_IB_STRIP_CUT_VALUE,
                   "IB_STRIP_CUT_VALUE", "IBStripCutValue is %u; use DISABLED (0), 0xFFFF (1) or "
                   "0xFFFFFFFF (2)", cut);
  } else if (cut != D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_DISABLED &&
             (topo == D3D12_PRIMITIVE_TOPOLOGY_TYPE_POINT || topo == D3D12_PRIMITIVE_TOPOLOGY_TYPE_PATCH)) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_STRIP_CUT,
                   GPS "INVALID_INDEX_BUFFER_PROPERTIES", PSOC_SO_IB_STRIP_CUT_VALUE,
                   "IB_STRIP_CUT_VALUE", "IBStripCutValue is %s but %s primitives have no strips "
                   "to cut; set it to DISABLED", psoc_rule_enum_name(&psoc_enum_strip_cut, cut),
                   topo == D3D12_PRIMITIVE_TOPOLOGY_TYPE_POINT ? "point" : "patch");
  }
}

void psoc_rules_stream_output(const rule_ctx *ctx) {
  const D3D12_STREAM_OUTPUT_DESC *so = ctx->state.stream_output;
  int gs = code_of(ctx, PSOC_SO_GS);
  uint32_t rs = so->RasterizedStream, i, slot_stream[4] = { ~0u, ~0u, ~0u, ~0u }, gaps = 0;
  if (ctx->walk->kind != PSOC_KIND_GRAPHICS || !psoc_rule_has(ctx, PSOC_SO_STREAM_OUTPUT)) return;
  if (so->NumEntries > 512)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT, SO "INVALIDNUMENTRIES",
                   PSOC_SO_STREAM_OUTPUT, "STREAM_OUTPUT.NumEntries",
                   "NumEntries is %u; at most 512 declarations (4 streams x 128 components) exist",
                   so->NumEntries);
  if (so->NumEntries > 0 && !so->pSODeclaration)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT, SO "INVALIDNUMENTRIES",
                   PSOC_SO_STREAM_OUTPUT, "STREAM_OUTPUT.pSODeclaration",
                   "NumEntries is %u but pSODeclaration is NULL; point it at the entries or set "
                   "NumEntries to 0", so->NumEntries);
  if (so->NumStrides > 4)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT, SO "INVALIDNUMSTRIDES",
                   PSOC_SO_STREAM_OUTPUT, "STREAM_OUTPUT.NumStrides",
                   "NumStrides is %u; there are 4 stream-output buffers: use 1-4", so->NumStrides);
  if (so->NumStrides > 0 && !so->pBufferStrides)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT, SO "INVALIDNUMSTRIDES",
                   PSOC_SO_STREAM_OUTPUT, "STREAM_OUTPUT.pBufferStrides",
                   "NumStrides is %u but pBufferStrides is NULL; point it at the strides",
                   so->NumStrides);
  if (so->NumEntries > 0 && so->NumStrides == 0)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT, SO "UNEXPECTEDENTRIES",
                   PSOC_SO_STREAM_OUTPUT, "STREAM_OUTPUT.NumStrides",
                   "stream output declares %u entries but no buffer strides; give one stride "
                   "per output slot used", so->NumEntries);
  if (so->NumEntries == 0 && so->NumStrides > 0)
    psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_STREAM_OUTPUT, SO "UNEXPECTEDSTRIDES",
                   PSOC_SO_STREAM_OUTPUT, "STREAM_OUTPUT.NumStrides",
                   "stream output has %u strides but no entries; remove the strides or declare "
                   "what to write", so->NumStrides);
  if (rs != D3D12_SO_NO_RASTERIZED_STREAM && rs >= 4)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT,
                   SO "INVALIDSTREAMTORASTERIZER", PSOC_SO_STREAM_OUTPUT,
                   "STREAM_OUTPUT.RasterizedStream",
                   "RasterizedStream is %u; use a stream 0-3 or D3D12_SO_NO_RASTERIZED_STREAM", rs);
  else if (rs != 0 && rs != D3D12_SO_NO_RASTERIZED_STREAM && !gs)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT,
                   SO "INVALIDSTREAMTORASTERIZER", PSOC_SO_STREAM_OUTPUT,
                   "STREAM_OUTPUT.RasterizedStream",
                   "RasterizedStream is %u but only a geometry shader emits streams other than 0; "
                   "add a GS or rasterize stream 0", rs);
  if (!ctx->follow_layout) return;
  if (so->pBufferStrides && so->NumStrides <= 4)
    for (i = 0; i < so->NumStrides; i++) {
      uint32_t stride = so->pBufferStrides[i];
      if (stride % 4 == 0 && stride <= 2048) continue;
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT,
                     SO "INVALIDOUTPUTSTREAMSTRIDE", PSOC_SO_STREAM_OUTPUT,
                     "STREAM_OUTPUT.pBufferStrides", "pBufferStrides[%u] is %u; strides are "
                     "multiples of 4 bytes up to 2048", i, stride);
    }
  if (!so->pSODeclaration || so->NumEntries > 512) return;
  for (i = 0; i < so->NumEntries; i++) {
    const D3D12_SO_DECLARATION_ENTRY *e = &so->pSODeclaration[i];
    char field[PSOC_DIAG_FIELD_MAX];
#define SO_FIELD psoc_rule_field(field, "STREAM_OUTPUT.pSODeclaration[%u]", i)
    if (e->Stream >= 4 || (e->Stream > 0 && !gs)) {
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT, SO "INVALIDSTREAM",
                     PSOC_SO_STREAM_OUTPUT, SO_FIELD, "entry %u writes stream %u; %s", i, e->Stream,
                     e->Stream >= 4 ? "streams are 0-3" : "only a geometry shader emits streams "
                     "other than 0: add a GS or use stream 0");
      continue;
    }
    if (e->OutputSlot >= 4 || e->OutputSlot >= so->NumStrides) {
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT, SO "INVALIDOUTPUTSLOT",
                     PSOC_SO_STREAM_OUTPUT, SO_FIELD, "entry %u writes output slot %u but %s; use "
                     "a slot below NumStrides", i, (unsigned)e->OutputSlot,
                     e->OutputSlot >= 4 ? "there are 4 slots" : "that slot has no stride");
      continue;
    }
    if (slot_stream[e->OutputSlot] != ~0u && slot_stream[e->OutputSlot] != e->Stream)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT,
                     SO "ONLYONEELEMENTPERSLOT", PSOC_SO_STREAM_OUTPUT, SO_FIELD,
                     "entry %u sends stream %u to slot %u, which stream %u already writes; one "
                     "buffer takes one stream", i, e->Stream, (unsigned)e->OutputSlot,
                     slot_stream[e->OutputSlot]);
    slot_stream[e->OutputSlot] = e->Stream;
    if (!e->SemanticName) {
      gaps++;
      if (e->ComponentCount < 1 || e->ComponentCount > 4 || e->StartComponent != 0)
        psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT,
                       SO "INVALIDGAPDEFINITION", PSOC_SO_STREAM_OUTPUT, SO_FIELD,
                       "entry %u is a gap (SemanticName NULL) with StartComponent %u and "
                       "ComponentCount %u; a gap has StartComponent 0 and 1-4 components", i,
                       (unsigned)e->StartComponent, (unsigned)e->ComponentCount);
      continue;
    }
    if (e->ComponentCount < 1 || (uint32_t)e->StartComponent + e->ComponentCount > 4)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT,
                     SO "INVALIDSTARTCOMPONENTANDCOMPONENTCOUNT", PSOC_SO_STREAM_OUTPUT, SO_FIELD,
                     "entry %u writes components %u..%u; a register has components 0-3 and an "
                     "entry writes 1-4 of them", i, (unsigned)e->StartComponent,
                     (unsigned)e->StartComponent + e->ComponentCount - 1u);
    if (trailing_digit(e->SemanticName, strnlen(e->SemanticName, 256)))
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT,
                     SO "TRAILING_DIGIT_IN_SEMANTIC", PSOC_SO_STREAM_OUTPUT, SO_FIELD,
                     "entry %u's SemanticName \"%.40s\" ends in a digit; put the number in "
                     "SemanticIndex", i, e->SemanticName);
  }
#undef SO_FIELD
  if (so->NumEntries > 0 && gaps == so->NumEntries)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_STREAM_OUTPUT, SO "CANTHAVEONLYGAPS",
                   PSOC_SO_STREAM_OUTPUT, "STREAM_OUTPUT.pSODeclaration",
                   "every stream-output entry is a gap; declare at least one output to write");
}

static unsigned popcount32(uint32_t v) {
  unsigned n = 0;
  for (; v; v &= v - 1) n++;
  return n;
}

void psoc_rules_misc(const rule_ctx *ctx) {
  const psoc_rule_state *r = &ctx->state;
  const psoc_profile *pr = ctx->profile;
  if (psoc_rule_has(ctx, PSOC_SO_FLAGS)) {
    uint32_t f = r->flags, known = D3D12_PIPELINE_STATE_FLAG_TOOL_DEBUG |
                                    PSOC_PIPELINE_STATE_FLAG_DYNAMIC_DEPTH_BIAS |
                                    PSOC_PIPELINE_STATE_FLAG_DYNAMIC_INDEX_BUFFER_STRIP_CUT;
    if (f & ~known)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_FLAGS, PS_ "INVALID_FLAGS",
                     PSOC_SO_FLAGS, "FLAGS", "Flags 0x%x has unknown bits 0x%x; the flags are "
                     "TOOL_DEBUG (0x1), DYNAMIC_DEPTH_BIAS (0x4), DYNAMIC_INDEX_BUFFER_STRIP_CUT "
                     "(0x8)", f, f & ~known);
    if ((f & PSOC_PIPELINE_STATE_FLAG_DYNAMIC_DEPTH_BIAS) && !pr->dynamic_depth_bias)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_UNSUPPORTED, PS_ "INVALID_FLAGS",
                     PSOC_SO_FLAGS, "FLAGS", "DYNAMIC_DEPTH_BIAS needs DynamicDepthBiasSupported, "
                     "which profile '%s' lacks; clear the flag and set the bias in the rasterizer",
                     pr->name);
    if ((f & PSOC_PIPELINE_STATE_FLAG_DYNAMIC_INDEX_BUFFER_STRIP_CUT) && !pr->dynamic_ib_strip_cut)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_UNSUPPORTED,
                     GPS "DYNAMIC_INDEX_BUFFER_STRIP_CUT_NOT_SUPPORTED", PSOC_SO_FLAGS, "FLAGS",
                     "DYNAMIC_INDEX_BUFFER_STRIP_CUT needs DynamicIndexBufferStripCutSupported, "
                     "which profile '%s' lacks; clear the flag and use IB_STRIP_CUT_VALUE",
                     pr->name);
  }
  if (psoc_rule_has(ctx, PSOC_SO_NODE_MASK)) {
    uint32_t m = r->node_mask;
    if (popcount32(m) > 1)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_NODE_MASK, NULL, PSOC_SO_NODE_MASK,
                     "NODE_MASK", "NodeMask 0x%x names several GPU nodes; a pipeline lives on "
                     "one node: set a single bit (or 0 for node 0)", m);
    else if (m != 0 && (pr->node_count >= 32 ? 0 : (m >> pr->node_count) != 0))
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_NODE_MASK, NULL, PSOC_SO_NODE_MASK,
                     "NODE_MASK", "NodeMask 0x%x names a node that profile '%s' (%u node%s) does "
                     "not have; use 0 or a bit below %u", m, pr->name, pr->node_count,
                     pr->node_count == 1 ? "" : "s", pr->node_count);
  }
  if (psoc_rule_has(ctx, PSOC_SO_VIEW_INSTANCING) && psoc_rule_is_draw(ctx)) {
    const D3D12_VIEW_INSTANCING_DESC *v = r->view_instancing;
    uint32_t i;
    if (v->Flags & ~1u)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_FLAGS, NULL,
                     PSOC_SO_VIEW_INSTANCING, "VIEW_INSTANCING.Flags",
                     "view-instancing Flags 0x%x has unknown bits; only "
                     "ENABLE_VIEW_INSTANCE_MASKING (0x1) exists", (unsigned)v->Flags);
    if (v->ViewInstanceCount > 4)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_VIEW_INSTANCING, NULL,
                     PSOC_SO_VIEW_INSTANCING, "VIEW_INSTANCING.ViewInstanceCount",
                     "ViewInstanceCount is %u; at most 4 views (D3D12_MAX_VIEW_INSTANCE_COUNT)",
                     v->ViewInstanceCount);
    if (v->ViewInstanceCount > 0 && !v->pViewInstanceLocations)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_VIEW_INSTANCING, NULL,
                     PSOC_SO_VIEW_INSTANCING, "VIEW_INSTANCING.pViewInstanceLocations",
                     "ViewInstanceCount is %u but pViewInstanceLocations is NULL; give one "
                     "location per view", v->ViewInstanceCount);
    if (v->ViewInstanceCount > 0 && pr->view_instancing_tier == 0)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_UNSUPPORTED, NULL,
                     PSOC_SO_VIEW_INSTANCING, "VIEW_INSTANCING.ViewInstanceCount",
                     "view instancing needs ViewInstancingTier 1+, which profile '%s' lacks; set "
                     "ViewInstanceCount to 0 or choose a feature level 12_1 profile", pr->name);
    if (ctx->follow_layout && v->pViewInstanceLocations && v->ViewInstanceCount <= 4)
      for (i = 0; i < v->ViewInstanceCount; i++) {
        const D3D12_VIEW_INSTANCE_LOCATION *l = &v->pViewInstanceLocations[i];
        if (l->ViewportArrayIndex < 16 && l->RenderTargetArrayIndex < 2048) continue;
        psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_VIEW_INSTANCING, NULL,
                       PSOC_SO_VIEW_INSTANCING, "VIEW_INSTANCING.pViewInstanceLocations",
                       "view %u uses viewport %u and array slice %u; viewports are 0-15 and "
                       "slices 0-2047", i, l->ViewportArrayIndex, l->RenderTargetArrayIndex);
      }
  }
  if (psoc_rule_has(ctx, PSOC_SO_CACHED_PSO)) {
    const D3D12_CACHED_PIPELINE_STATE *c = r->cached_pso;
    if (!c->pCachedBlob && c->CachedBlobSizeInBytes)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_CACHED_PSO, PS_ "INVALIDCACHEDBLOB",
                     PSOC_SO_CACHED_PSO, "CACHED_PSO.pCachedBlob",
                     "CachedBlobSizeInBytes is %zu but pCachedBlob is NULL; pass the blob from "
                     "GetCachedBlob or set the size to 0", (size_t)c->CachedBlobSizeInBytes);
    else if (c->pCachedBlob && !c->CachedBlobSizeInBytes)
      psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_CACHED_PSO, PS_ "INVALIDCACHEDBLOB",
                     PSOC_SO_CACHED_PSO, "CACHED_PSO.CachedBlobSizeInBytes",
                     "pCachedBlob is set but CachedBlobSizeInBytes is 0, so the blob is ignored; "
                     "give its size");
  }
}
