/*
** rules_raster.c: rasterizer, depth-stencil and sample-desc rules.
*/
#include <math.h>

#include "rules_internal.h"

#define RS "CREATERASTERIZERSTATE_"
#define DSS "CREATEDEPTHSTENCILSTATE_"
#define GPS "CREATEGRAPHICSPIPELINESTATE_"

/* DXGI_STANDARD_MULTISAMPLE_QUALITY_PATTERN and ..._CENTER_... */
#define STANDARD_PATTERN 0xffffffffu
#define CENTER_PATTERN 0xfffffffeu

static const char *rast_name(const rule_ctx *ctx) {
  return psoc_subobject_info_get(ctx->state.rasterizer_type)->name;
}

/* "<RASTERIZER type>.<member>", built only to emit. */
#define RAST_FIELD(member) psoc_rule_field(field, "%s.%s", rast_name(ctx), member)

static void float_rule(const rule_ctx *ctx, float v, const char *member, const char *id) {
  char field[PSOC_DIAG_FIELD_MAX];
  if (isfinite(v)) return;
  psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_RASTERIZER, id, PSOC_SO_RASTERIZER,
                 RAST_FIELD(member),
                 "%s.%s is %s; depth-bias values must be finite numbers: use 0 to disable it",
                 rast_name(ctx), member, isnan(v) ? "NaN" : "infinite");
}

void psoc_rules_rasterizer(const rule_ctx *ctx) {
  const psoc_rasterizer_state *r = ctx->state.rasterizer;
  char field[PSOC_DIAG_FIELD_MAX];
  uint32_t fsc;
  if (!psoc_rule_is_draw(ctx) || !psoc_rule_has(ctx, PSOC_SO_RASTERIZER)) return;
  if (!psoc_rule_valid(PSOC_VALID_FILL_MODE, r->FillMode))
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, RS "INVALIDFILLMODE",
                   PSOC_SO_RASTERIZER, RAST_FIELD("FillMode"),
                   "%s.FillMode is %u; use WIREFRAME (2) or SOLID (3)", rast_name(ctx),
                   (unsigned)r->FillMode);
  if (!psoc_rule_valid(PSOC_VALID_CULL_MODE, r->CullMode))
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, RS "INVALIDCULLMODE",
                   PSOC_SO_RASTERIZER, RAST_FIELD("CullMode"),
                   "%s.CullMode is %u; use NONE (1), FRONT (2) or BACK (3)", rast_name(ctx),
                   (unsigned)r->CullMode);
  float_rule(ctx, r->DepthBias, "DepthBias", NULL);
  float_rule(ctx, r->DepthBiasClamp, "DepthBiasClamp", RS "INVALIDDEPTHBIASCLAMP");
  float_rule(ctx, r->SlopeScaledDepthBias, "SlopeScaledDepthBias", RS "INVALIDSLOPESCALEDDEPTHBIAS");
  fsc = r->ForcedSampleCount;
  if (fsc != 0 && fsc != 1 && fsc != 2 && fsc != 4 && fsc != 8 && fsc != 16) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_RASTERIZER, RS "INVALIDFORCEDSAMPLECOUNT",
                   PSOC_SO_RASTERIZER, RAST_FIELD("ForcedSampleCount"),
                   "%s.ForcedSampleCount is %u; use 0 (not forced), 1, 2, 4, 8 or 16",
                   rast_name(ctx), fsc);
  } else if (fsc == 16 && !ctx->profile->forced_sample_count_16) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_UNSUPPORTED, RS "INVALIDFORCEDSAMPLECOUNT",
                   PSOC_SO_RASTERIZER, RAST_FIELD("ForcedSampleCount"),
                   "%s.ForcedSampleCount 16 is optional and profile '%s' does not support it; "
                   "use 8", rast_name(ctx), ctx->profile->name);
  }
  if (!psoc_rule_valid(PSOC_VALID_CONSERVATIVE, r->ConservativeRaster))
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM,
                   RS "INVALID_CONSERVATIVERASTERMODE", PSOC_SO_RASTERIZER,
                   RAST_FIELD("ConservativeRaster"),
                   "%s.ConservativeRaster is %u; use OFF (0) or ON (1)", rast_name(ctx),
                   (unsigned)r->ConservativeRaster);
  else if (r->ConservativeRaster == D3D12_CONSERVATIVE_RASTERIZATION_MODE_ON &&
           ctx->profile->conservative_raster_tier == 0)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_UNSUPPORTED,
                   RS "INVALID_CONSERVATIVERASTERMODE", PSOC_SO_RASTERIZER,
                   RAST_FIELD("ConservativeRaster"),
                   "%s.ConservativeRaster is ON but profile '%s' has no conservative "
                   "rasterization (tier 0); set it OFF or choose a feature level 12_1 profile",
                   rast_name(ctx), ctx->profile->name);
  if (ctx->state.rasterizer_type == PSOC_SO_RASTERIZER2) {
    if (!psoc_rule_valid(PSOC_VALID_LINE_RASTER, r->LineRasterizationMode))
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, NULL, PSOC_SO_RASTERIZER,
                     RAST_FIELD("LineRasterizationMode"),
                     "%s.LineRasterizationMode is %u; use ALIASED, ALPHA_ANTIALIASED, "
                     "QUADRILATERAL_WIDE or QUADRILATERAL_NARROW (0-3)", rast_name(ctx),
                     (unsigned)r->LineRasterizationMode);
    else if (r->LineRasterizationMode == PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW &&
             !ctx->profile->narrow_quad_lines)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_UNSUPPORTED, NULL, PSOC_SO_RASTERIZER,
                     RAST_FIELD("LineRasterizationMode"),
                     "QUADRILATERAL_NARROW lines need NarrowQuadrilateralLinesSupported, "
                     "which profile '%s' lacks; use QUADRILATERAL_WIDE", ctx->profile->name);
  }
}

/* ---- depth-stencil ---------------------------------------------------- */

static void stencil_face(const rule_ctx *ctx, const char *ds, const D3D12_DEPTH_STENCILOP_DESC1 *f,
                         int back) {
  static const char *const ids[2][4] = {
    { DSS "INVALIDFRONTFACESTENCILFAILOP", DSS "INVALIDFRONTFACESTENCILZFAILOP",
      DSS "INVALIDFRONTFACESTENCILPASSOP", DSS "INVALIDFRONTFACESTENCILFUNC" },
    { DSS "INVALIDBACKFACESTENCILFAILOP", DSS "INVALIDBACKFACESTENCILZFAILOP",
      DSS "INVALIDBACKFACESTENCILPASSOP", DSS "INVALIDBACKFACESTENCILFUNC" },
  };
  static const char *const members[3] = { "StencilFailOp", "StencilDepthFailOp", "StencilPassOp" };
  const uint32_t ops[3] = { f->StencilFailOp, f->StencilDepthFailOp, f->StencilPassOp };
  const char *face = back ? "BackFace" : "FrontFace";
  char field[PSOC_DIAG_FIELD_MAX];
  unsigned i;
  for (i = 0; i < 3; i++) {
    if (psoc_rule_valid(PSOC_VALID_STENCIL_OP, ops[i])) continue;
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, ids[back][i],
                   PSOC_SO_DEPTH_STENCIL, psoc_rule_field(field, "%s.%s.%s", ds, face, members[i]),
                   "%s.%s is %u with StencilEnable TRUE; use a D3D12_STENCIL_OP (KEEP..DECR, 1-8), "
                   "e.g. KEEP", face, members[i], ops[i]);
  }
  if (f->StencilFunc == D3D12_COMPARISON_FUNC_NONE ||
      !psoc_rule_valid(PSOC_VALID_COMPARISON, f->StencilFunc))
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, ids[back][3],
                   PSOC_SO_DEPTH_STENCIL, psoc_rule_field(field, "%s.%s.StencilFunc", ds, face),
                   "%s.StencilFunc is %u with StencilEnable TRUE; use NEVER..ALWAYS (1-8), e.g. "
                   "ALWAYS", face, (unsigned)f->StencilFunc);
}

void psoc_rules_depth_stencil(const rule_ctx *ctx) {
  const psoc_rule_depth *d = &ctx->state.depth_stencil;
  uint32_t type = ctx->state.depth_stencil_type;
  char field[PSOC_DIAG_FIELD_MAX];
  /* "<DEPTH_STENCIL type>.<member>", built only to emit */
#define DS_FIELD(member) psoc_rule_field(field, "%s." member, psoc_subobject_info_get(type)->name)
  if (!psoc_rule_is_draw(ctx)) return;
  if (psoc_rule_has(ctx, PSOC_SO_DEPTH_STENCIL)) {
    if (!psoc_rule_valid(PSOC_VALID_DEPTH_WRITE, d->DepthWriteMask))
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, DSS "INVALIDDEPTHWRITEMASK",
                     PSOC_SO_DEPTH_STENCIL, DS_FIELD("DepthWriteMask"),
                     "DepthWriteMask is %u; use ZERO (0) or ALL (1)", (unsigned)d->DepthWriteMask);
    if (!psoc_rule_valid(PSOC_VALID_COMPARISON, d->DepthFunc) ||
        (d->DepthEnable && d->DepthFunc == D3D12_COMPARISON_FUNC_NONE))
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, DSS "INVALIDDEPTHFUNC",
                     PSOC_SO_DEPTH_STENCIL, DS_FIELD("DepthFunc"),
                     "DepthFunc is %u%s; use NEVER..ALWAYS (1-8), e.g. LESS or GREATER_EQUAL",
                     (unsigned)d->DepthFunc, d->DepthEnable ? " with DepthEnable TRUE" : "");
    if (d->StencilEnable) { /* the faces, widened to DEPTH_STENCILOP_DESC1 */
      const char *ds = psoc_subobject_info_get(type)->name;
      D3D12_DEPTH_STENCIL_DESC2 full;
      psoc_resolve_depth_stencil_payload(type, ctx->walk->payload[type], &full);
      stencil_face(ctx, ds, &full.FrontFace, 0);
      stencil_face(ctx, ds, &full.BackFace, 1);
      if (type == PSOC_SO_DEPTH_STENCIL2 && !ctx->profile->independent_stencil_masks &&
          (full.FrontFace.StencilReadMask != full.BackFace.StencilReadMask ||
           full.FrontFace.StencilWriteMask != full.BackFace.StencilWriteMask))
        psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_UNSUPPORTED,
                       DSS "INDEPENDENT_MASKS_UNSUPPORTED", PSOC_SO_DEPTH_STENCIL,
                       DS_FIELD("BackFace"),
                       "front and back faces use different stencil masks (read 0x%02x/0x%02x, "
                       "write 0x%02x/0x%02x) but profile '%s' lacks "
                       "IndependentFrontAndBackStencilRefMaskSupported; use the same masks",
                       full.FrontFace.StencilReadMask, full.BackFace.StencilReadMask,
                       full.FrontFace.StencilWriteMask, full.BackFace.StencilWriteMask,
                       ctx->profile->name);
    }
    if (d->DepthBoundsTestEnable && !ctx->profile->depth_bounds_test)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_UNSUPPORTED,
                     DSS "DEPTHBOUNDSTEST_UNSUPPORTED", PSOC_SO_DEPTH_STENCIL,
                     DS_FIELD("DepthBoundsTestEnable"),
                     "DepthBoundsTestEnable is TRUE but profile '%s' lacks "
                     "DepthBoundsTestSupported; clear it or choose a profile with depth bounds",
                     ctx->profile->name);
  }
#undef DS_FIELD
  if ((d->DepthEnable || d->StencilEnable) &&
      ctx->state.depth_stencil_format == DXGI_FORMAT_UNKNOWN) {
    /* one fixed text for depth and one for stencil (no format to parse) */
#define DSV_NOT_SET(test, member)                                                               \
  PSOC_RULE_TEXT(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_DEPTH_STENCIL,                          \
                 GPS "DEPTHSTENCILVIEW_NOT_SET", PSOC_SO_DEPTH_STENCIL, "DEPTH_STENCIL_FORMAT", \
                 test " testing is enabled but DSVFormat is UNKNOWN, so no depth buffer can be " \
                 "bound; set DEPTH_STENCIL_FORMAT to the depth buffer's format or disable " member)
    if (d->DepthEnable) DSV_NOT_SET("depth", "DepthEnable");
    else DSV_NOT_SET("stencil", "StencilEnable");
#undef DSV_NOT_SET
  }
}

/* ---- sample desc and forced sample count ------------------------------ */

void psoc_rules_sample(const rule_ctx *ctx) {
  const DXGI_SAMPLE_DESC *s = ctx->state.sample_desc;
  const psoc_rasterizer_state *r = ctx->state.rasterizer;
  const psoc_rule_depth *d = &ctx->state.depth_stencil;
  if (!psoc_rule_is_draw(ctx)) return;
  if (psoc_rule_has(ctx, PSOC_SO_SAMPLE_DESC)) {
    uint32_t c = s->Count;
    if (c == 0 || c > 32 || (c & (c - 1)) != 0)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_SAMPLE_DESC,
                     GPS "INVALID_SAMPLE_DESC", PSOC_SO_SAMPLE_DESC, "SAMPLE_DESC.Count",
                     "SampleDesc.Count is %u; use 1 (no MSAA) or a power of two up to %u", c,
                     ctx->profile->max_sample_count);
    else if (c > ctx->profile->max_sample_count)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_UNSUPPORTED,
                     GPS "INVALID_SAMPLE_DESC", PSOC_SO_SAMPLE_DESC, "SAMPLE_DESC.Count",
                     "SampleDesc.Count %u exceeds the %u samples profile '%s' guarantees; use %u "
                     "or check CheckFeatureSupport(MULTISAMPLE_QUALITY_LEVELS)", c,
                     ctx->profile->max_sample_count, ctx->profile->name,
                     ctx->profile->max_sample_count);
    if (c == 1 && s->Quality == CENTER_PATTERN)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_SAMPLE_DESC,
                     GPS "INVALID_USE_OF_CENTER_MULTISAMPLE_PATTERN", PSOC_SO_SAMPLE_DESC,
                     "SAMPLE_DESC.Quality",
                     "SampleDesc.Quality is the center pattern (0xFFFFFFFE) with Count 1; the "
                     "center pattern is for multisampling: use Quality 0 or raise Count");
    else if (c == 1 && s->Quality != 0)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_SAMPLE_DESC,
                     GPS "INVALID_SAMPLE_DESC", PSOC_SO_SAMPLE_DESC, "SAMPLE_DESC.Quality",
                     "SampleDesc.Quality is %u with Count 1; a single sample has only quality 0",
                     s->Quality);
    else if (c > 1 && s->Quality != 0 && s->Quality != STANDARD_PATTERN &&
             s->Quality != CENTER_PATTERN)
      psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_SAMPLE_DESC,
                     GPS "INVALID_SAMPLE_DESC", PSOC_SO_SAMPLE_DESC, "SAMPLE_DESC.Quality",
                     "SampleDesc.Quality %u is a vendor quality level that only some devices "
                     "have; use 0 or the standard pattern (0xFFFFFFFF) for portable pipelines",
                     s->Quality);
  }
  if (r->ForcedSampleCount > 0) {
    if (s->Count > 1)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_SAMPLE_DESC,
                     GPS "INVALID_USE_OF_FORCED_SAMPLE_COUNT", PSOC_SO_RASTERIZER,
                     "RASTERIZER.ForcedSampleCount",
                     "ForcedSampleCount is %u with SampleDesc.Count %u; forced-sample (target-"
                     "independent) rasterization needs single-sample targets: set Count to 1 or "
                     "ForcedSampleCount to 0", r->ForcedSampleCount, s->Count);
    if (d->DepthEnable || d->StencilEnable)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_SAMPLE_DESC,
                     GPS "INVALID_USE_OF_FORCED_SAMPLE_COUNT", PSOC_SO_RASTERIZER,
                     "RASTERIZER.ForcedSampleCount",
                     "ForcedSampleCount is %u with %s testing enabled; forced-sample rasterization "
                     "cannot use depth-stencil: disable DepthEnable and StencilEnable",
                     r->ForcedSampleCount, d->DepthEnable ? "depth" : "stencil");
  }
}
