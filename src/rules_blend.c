/*
** rules_blend.c: blend state, render-target formats and the DSV format.
*/
#include "rules_internal.h"

#define BS "CREATEBLENDSTATE_"
#define GPS "CREATEGRAPHICSPIPELINESTATE_"

static int is_color_factor(uint32_t b) {
  return b == D3D12_BLEND_SRC_COLOR || b == D3D12_BLEND_INV_SRC_COLOR ||
         b == D3D12_BLEND_DEST_COLOR || b == D3D12_BLEND_INV_DEST_COLOR ||
         b == D3D12_BLEND_SRC1_COLOR || b == D3D12_BLEND_INV_SRC1_COLOR;
}

typedef struct factor_field {
  const char *name;
  const char *id;
  int alpha;
} factor_field;

/* The field path of RenderTarget[i].<member>, built only to emit. */
#define RT_FIELD(i, member) psoc_rule_field(field, "BLEND.RenderTarget[%u].%s", i, member)
#define RTF_FIELD(i) psoc_rule_field(field, "RENDER_TARGET_FORMATS.RTFormats[%u]", i)

static void check_factor(const rule_ctx *ctx, unsigned i, uint32_t value, const factor_field *f) {
  char field[PSOC_DIAG_FIELD_MAX];
  if (!psoc_rule_valid(PSOC_VALID_BLEND, value)) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, f->id, PSOC_SO_BLEND,
                   RT_FIELD(i, f->name),
                   "RenderTarget[%u].%s is %u, not a D3D12_BLEND value; use one of ZERO, ONE, "
                   "SRC_ALPHA, INV_SRC_ALPHA, ... (1-11, 14-19)", i, f->name, value);
  } else if (f->alpha && is_color_factor(value)) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_BLEND_STATE, f->id, PSOC_SO_BLEND,
                   RT_FIELD(i, f->name), "RenderTarget[%u].%s is %s, a _COLOR factor, which alpha blending cannot use; "
                   "use the matching _ALPHA factor", i, f->name, psoc_rule_enum_name(&psoc_enum_blend, value));
  } else if ((value == 20 || value == 21) && ctx->has_profile) {
    /* a device capability: judged only against a chosen profile, none of
    ** which records AlphaBlendFactorSupported, so it stays a warning */
    psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_UNSUPPORTED, f->id, PSOC_SO_BLEND,
                   RT_FIELD(i, f->name), "RenderTarget[%u].%s is %s, which needs AlphaBlendFactorSupported "
                   "(D3D12_OPTIONS13); use BLEND_FACTOR on devices without it", i, f->name,
                   psoc_rule_enum_name(&psoc_enum_blend, value));
  }
}

static void check_op(const rule_ctx *ctx, unsigned i, uint32_t op, uint32_t src, uint32_t dst,
                     int alpha) {
  char field[PSOC_DIAG_FIELD_MAX];
  const char *name = alpha ? "BlendOpAlpha" : "BlendOp";
  if (!psoc_rule_valid(PSOC_VALID_BLEND_OP, op)) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM,
                   alpha ? BS "INVALIDBLENDOPALPHA" : BS "INVALIDBLENDOP", PSOC_SO_BLEND,
                   RT_FIELD(i, name),
                   "RenderTarget[%u].%s is %u, not a D3D12_BLEND_OP; use ADD, SUBTRACT, "
                   "REV_SUBTRACT, MIN or MAX (1-5)", i, name, op);
  } else if ((op == D3D12_BLEND_OP_MIN || op == D3D12_BLEND_OP_MAX) &&
             (src != D3D12_BLEND_ONE || dst != D3D12_BLEND_ONE)) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_BLEND_STATE,
                   alpha ? BS "BLENDOPALPHA_WARNING" : BS "BLENDOP_WARNING", PSOC_SO_BLEND,
                   RT_FIELD(i, name),
                   "RenderTarget[%u].%s is %s, which ignores the source and destination factors; "
                   "set both %s factors to ONE to say so", i, name,
                   psoc_rule_enum_name(&psoc_enum_blend_op, op), alpha ? "alpha" : "color");
  }
}

/* Render target i's format cannot do what its blend desc asks ('what').
** An error when the pixel shader writes SV_Target<i>, a warning when its
** output signature is unknown, nothing when it does not write the target. */
static void format_cannot(const rule_ctx *ctx, unsigned i, const char *id, const char *what,
                          const char *member, const char *fix) {
  const D3D12_RT_FORMAT_ARRAY *rts = ctx->state.render_targets;
  char field[PSOC_DIAG_FIELD_MAX];
  int writes = psoc_rule_ps_writes_target(ctx, i);
  if (writes == 0) return;
  psoc_rule_diag(ctx, writes > 0 ? PSOC_SEVERITY_ERROR : PSOC_SEVERITY_WARNING,
                 PSOC_CODE_FORMAT_UNSUPPORTED, id, PSOC_SO_BLEND, RTF_FIELD(i),
                 "render target %u is %s, which cannot %s; %s: clear %s %s", i,
                 psoc_format_name(rts->RTFormats[i]), what,
                 writes > 0 ? "the pixel shader writes SV_Target, so the runtime rejects the pipeline"
                            : "the runtime rejects the pipeline if the pixel shader writes that "
                              "target (its output signature was not read)",
                 member, fix);
}

/* With IndependentBlendEnable, RenderTarget[0] using SRC1 factors
** (dual-source blending) forbids blending on every other target, whatever
** its factors or NumRenderTargets (vkd3d-proton's test_dual_source_blending
** records E_INVALIDARG from the native runtime for RenderTarget[1] with SRC1
** factors and with plain SRC_COLOR/SRC_ALPHA factors, NumRenderTargets 1).
** A SRC1 factor on another target while target 0 has none is rejected too
** (OM_DUAL_SOURCE_BLENDING_CAN_ONLY_HAVE_RENDER_TARGET_0). */
static void dual_source_targets(const rule_ctx *ctx, const D3D12_BLEND_DESC *b) {
  int dual0 = psoc_blend_uses_dual_source(&b->RenderTarget[0]);
  char field[PSOC_DIAG_FIELD_MAX];
  unsigned i;
  for (i = 1; i < 8; i++) {
    const D3D12_RENDER_TARGET_BLEND_DESC *rt = &b->RenderTarget[i];
    if (!rt->BlendEnable) continue;
    if (dual0)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_BLEND_STATE,
                     GPS "OM_DUAL_SOURCE_BLENDING_CAN_ONLY_HAVE_RENDER_TARGET_0", PSOC_SO_BLEND,
                     RT_FIELD(i, "BlendEnable"), "RenderTarget[%u] enables blending while "
                     "RenderTarget[0] uses SRC1 factors (dual-source blending, which feeds render "
                     "target 0 only): clear RenderTarget[%u].BlendEnable", i, i);
    else if (psoc_blend_uses_dual_source(rt))
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_BLEND_STATE,
                     GPS "OM_DUAL_SOURCE_BLENDING_CAN_ONLY_HAVE_RENDER_TARGET_0", PSOC_SO_BLEND,
                     RT_FIELD(i, "SrcBlend"), "RenderTarget[%u] uses a SRC1 blend factor; "
                     "dual-source blending works only on render target 0: move it to "
                     "RenderTarget[0]", i);
  }
}

/* Dual-source blending on target 0: the runtime counts bound formats, not
** NumRenderTargets. Targets beyond 0 whose format is UNKNOWN are fine; a
** bound target fails when the pixel shader writes it (vkd3d-proton's
** test_dual_source_blending: RTVFormats[1] set fails; NumRenderTargets 3
** with UNKNOWN formats is created; RTVFormats[2] set is created while the PS
** writes no SV_Target2 and fails once it does). SV_Target1 is the second
** colour of dual-source blending, so a format at 1 is an error even when the
** container was not read; beyond 1 an unread PS gives a warning. */
static void dual_source_formats(const rule_ctx *ctx, const D3D12_RT_FORMAT_ARRAY *rts) {
  unsigned i, n = rts->NumRenderTargets <= 8 ? rts->NumRenderTargets : 8;
  char field[PSOC_DIAG_FIELD_MAX];
  for (i = 1; i < n; i++) {
    int writes;
    if (rts->RTFormats[i] == DXGI_FORMAT_UNKNOWN) continue;
    writes = psoc_rule_ps_writes_target(ctx, i);
    if (writes < 0 && i == 1) writes = 1;
    if (writes == 0) continue;
    psoc_rule_diag(ctx, writes > 0 ? PSOC_SEVERITY_ERROR : PSOC_SEVERITY_WARNING,
                   PSOC_CODE_BLEND_STATE, GPS "OM_DUAL_SOURCE_BLENDING_CAN_ONLY_HAVE_RENDER_TARGET_0",
                   PSOC_SO_RENDER_TARGET_FORMATS, RTF_FIELD(i),
                   "RenderTarget[0] uses SRC1 factors (dual-source blending) and render target %u "
                   "is bound (%s)%s; dual-source blending allows one bound render target: set "
                   "RTFormats[%u] to UNKNOWN", i, psoc_format_name(rts->RTFormats[i]),
                   writes > 0 ? "" : ", which fails if the pixel shader writes SV_Target of that "
                   "index (its output signature was not read)", i);
  }
}

static void check_target(const rule_ctx *ctx, unsigned i, const D3D12_RENDER_TARGET_BLEND_DESC *rt) {
  static const factor_field src = { "SrcBlend", BS "INVALIDSRCBLEND", 0 };
  static const factor_field dst = { "DestBlend", BS "INVALIDDESTBLEND", 0 };
  static const factor_field srca = { "SrcBlendAlpha", BS "INVALIDSRCBLENDALPHA", 1 };
  static const factor_field dsta = { "DestBlendAlpha", BS "INVALIDDESTBLENDALPHA", 1 };
  char field[PSOC_DIAG_FIELD_MAX];
  if (rt->RenderTargetWriteMask > 0xf) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_BLEND_STATE,
                   BS "INVALIDRENDERTARGETWRITEMASK", PSOC_SO_BLEND,
                   RT_FIELD(i, "RenderTargetWriteMask"),
                   "RenderTarget[%u].RenderTargetWriteMask is 0x%x; only the bits RED|GREEN|BLUE|"
                   "ALPHA (0xF) exist, clear 0x%x", i, (unsigned)rt->RenderTargetWriteMask,
                   (unsigned)rt->RenderTargetWriteMask & ~0xfu);
  }
  if (rt->LogicOpEnable) {
    /* the profile diagnostic names LogicOp when that is invalid too */
    int op_valid = psoc_rule_valid(PSOC_VALID_LOGIC_OP, rt->LogicOp);
    const char *member = op_valid ? "LogicOpEnable" : "LogicOp";
    if (rt->BlendEnable)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_BLEND_STATE, BS "INVALIDLOGICOPS",
                     PSOC_SO_BLEND, RT_FIELD(i, "LogicOpEnable"),
                     "RenderTarget[%u] enables both BlendEnable and LogicOpEnable; a render "
                     "target either blends or applies a logic op: clear one of them", i);
    if (!op_valid)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, BS "INVALIDLOGICOPS",
                     PSOC_SO_BLEND, RT_FIELD(i, member),
                     "RenderTarget[%u].LogicOp is %u, not a D3D12_LOGIC_OP; use CLEAR..OR_INVERTED "
                     "(0-15), e.g. COPY", i, (unsigned)rt->LogicOp);
    if (!ctx->profile->logic_op)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_UNSUPPORTED, BS "INVALIDLOGICOPS",
                     PSOC_SO_BLEND, RT_FIELD(i, member),
                     "RenderTarget[%u] enables a logic op but profile '%s' lacks "
                     "OutputMergerLogicOp; clear LogicOpEnable or target feature level 11_1+",
                     i, ctx->profile->name);
  }
  if (!rt->BlendEnable) return; /* the factors and ops are ignored */
  if (psoc_blend_quiet_factors(rt)) return; /* the common case: nothing below would say anything */
  check_factor(ctx, i, rt->SrcBlend, &src);
  check_factor(ctx, i, rt->DestBlend, &dst);
  check_factor(ctx, i, rt->SrcBlendAlpha, &srca);
  check_factor(ctx, i, rt->DestBlendAlpha, &dsta);
  check_op(ctx, i, rt->BlendOp, rt->SrcBlend, rt->DestBlend, 0);
  check_op(ctx, i, rt->BlendOpAlpha, rt->SrcBlendAlpha, rt->DestBlendAlpha, 1);
}

void psoc_rules_blend(const rule_ctx *ctx) {
  const D3D12_BLEND_DESC *b = ctx->state.blend;
  const D3D12_RT_FORMAT_ARRAY *rts = ctx->state.render_targets;
  unsigned i, n, targets;
  if (!psoc_rule_is_draw(ctx)) return;
  if (psoc_rule_has(ctx, PSOC_SO_BLEND)) {
    n = b->IndependentBlendEnable ? 8 : 1;
    for (i = 0; i < n; i++) check_target(ctx, i, &b->RenderTarget[i]);
    /* D3D12_BLEND_DESC: with RenderTarget[0].LogicOpEnable TRUE,
    ** IndependentBlendEnable must be FALSE; the hardware applies one logic
    ** op to every render target. */
    if (b->RenderTarget[0].LogicOpEnable && b->IndependentBlendEnable)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_BLEND_STATE, BS "INVALIDLOGICOPS",
                     PSOC_SO_BLEND, "BLEND.IndependentBlendEnable",
                     "RenderTarget[0] enables a logic op while IndependentBlendEnable is TRUE; a "
                     "logic op applies to every render target alike: set IndependentBlendEnable "
                     "to FALSE and give the logic op in RenderTarget[0]");
    if (b->IndependentBlendEnable) dual_source_targets(ctx, b);
  }
  if (psoc_blend_uses_dual_source(&b->RenderTarget[0])) dual_source_formats(ctx, rts);
  /* Each bound format must support what its blend desc asks for. The
  ** runtime fails only when the pixel shader writes that target (vkd3d-
  ** proton's test_integer_blending_pipeline_state, run against the native
  ** runtime: R32_UINT with blending and a PS without SV_Target is created,
  ** with a PS writing SV_Target0 it fails, whatever the write mask). */
  targets = rts->NumRenderTargets <= 8 ? rts->NumRenderTargets : 8;
  for (i = 0; i < targets; i++) {
    const D3D12_RENDER_TARGET_BLEND_DESC *rt = &b->RenderTarget[b->IndependentBlendEnable ? i : 0];
    const psoc_format_info *f;
    if (!rt->BlendEnable && !rt->LogicOpEnable) continue; /* nothing asked of the format */
    f = psoc_format_get(rts->RTFormats[i]);
    if (!f || !(f->flags & (PSOC_FMT_RT | PSOC_FMT_RT_OPTIONAL))) continue;
    if (rt->BlendEnable && !rt->LogicOpEnable && !(f->flags & PSOC_FMT_BLEND))
      format_cannot(ctx, i, GPS "OM_RENDER_TARGET_DOES_NOT_SUPPORT_BLENDING", "blend (integer "
                    "formats never do)", b->IndependentBlendEnable ? "BlendEnable" : "BlendEnable "
                    "(it applies to every target while IndependentBlendEnable is FALSE)",
                    "or use a float/UNORM format");
    if (rt->LogicOpEnable && !(f->flags & PSOC_FMT_LOGIC_OP))
      format_cannot(ctx, i, GPS "OM_RENDER_TARGET_DOES_NOT_SUPPORT_LOGIC_OPS", "apply logic ops "
                    "(they need a UINT format)", "LogicOpEnable", "or use e.g. R8G8B8A8_UINT");
  }
}

void psoc_rules_render_targets(const rule_ctx *ctx) {
  const D3D12_RT_FORMAT_ARRAY *rts = ctx->state.render_targets;
  uint32_t dsv = ctx->state.depth_stencil_format;
  unsigned i, n, unknown = 0;
  uint32_t past;
  if (!psoc_rule_is_draw(ctx)) return;
  if (psoc_rule_has(ctx, PSOC_SO_RENDER_TARGET_FORMATS)) {
    n = rts->NumRenderTargets;
    if (n > 8) {
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_RENDER_TARGETS,
                     GPS "INVALID_RENDER_TARGET_COUNT", PSOC_SO_RENDER_TARGET_FORMATS,
                     "RENDER_TARGET_FORMATS.NumRenderTargets",
                     "NumRenderTargets is %u; at most 8 render targets exist: set it to the number "
                     "of formats you bind (0-8)", n);
      n = 8;
    }
    past = psoc_formats_from(rts->RTFormats, n);
    for (i = n; past && i < 8; i++) { /* only when a format past the count is set */
      char field[PSOC_DIAG_FIELD_MAX];
      if (rts->RTFormats[i] == DXGI_FORMAT_UNKNOWN) continue;
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_RENDER_TARGETS,
                     GPS "RTV_FORMAT_NOT_UNKNOWN", PSOC_SO_RENDER_TARGET_FORMATS, RTF_FIELD(i),
                     "RTFormats[%u] is %s but NumRenderTargets is %u; formats past the count must "
                     "be UNKNOWN: raise NumRenderTargets to %u or clear the format", i,
                     psoc_format_name(rts->RTFormats[i]), n, i + 1);
    }
    for (i = 0; i < n; i++) {
      char field[PSOC_DIAG_FIELD_MAX];
      uint32_t fmt = rts->RTFormats[i];
      const psoc_format_info *f = psoc_format_get(fmt);
      if (fmt == DXGI_FORMAT_UNKNOWN) {
        unknown++;
      } else if (!f) {
        psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, NULL,
                       PSOC_SO_RENDER_TARGET_FORMATS, RTF_FIELD(i),
                       "RTFormats[%u] is %u, not a DXGI_FORMAT; use a render-target format such "
                       "as R8G8B8A8_UNORM", i, fmt);
      } else if (f->flags & PSOC_FMT_RT_OPTIONAL) {
        psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_FORMAT_UNSUPPORTED, NULL,
                       PSOC_SO_RENDER_TARGET_FORMATS, RTF_FIELD(i),
                       "RTFormats[%u] is %s, whose render-target support is optional; check "
                       "D3D12_FORMAT_SUPPORT1_RENDER_TARGET or use the 4-component format", i,
                       psoc_format_name(fmt));
      } else if (!(f->flags & PSOC_FMT_RT)) {
        /* Format support is a device property the runtime does not check
        ** when it creates the pipeline (the render-target view fails
        ** later): a warning, an error only against a chosen profile, whose
        ** device lacks it by the D3D12 format support tables. */
        psoc_rule_diag(ctx, ctx->has_profile ? PSOC_SEVERITY_ERROR : PSOC_SEVERITY_WARNING,
                       PSOC_CODE_FORMAT_UNSUPPORTED, NULL, PSOC_SO_RENDER_TARGET_FORMATS,
                       RTF_FIELD(i), "RTFormats[%u] is %s, which cannot be a render target%s; "
                       "%s%s%s: use a typed color format", i, psoc_format_name(fmt),
                       (f->flags & PSOC_FMT_DEPTH) ? " (depth formats go in DEPTH_STENCIL_FORMAT)"
                       : (f->flags & PSOC_FMT_TYPELESS) ? " (it is TYPELESS)"
                       : (f->flags & PSOC_FMT_COMPRESSED) ? " (it is block-compressed)" : "",
                       ctx->has_profile ? "no D3D12 device (profile '" : "the pipeline is "
                       "created, but no render-target view of it can be",
                       ctx->has_profile ? ctx->profile->name : "",
                       ctx->has_profile ? "') supports it" : "");
      }
    }
    if (n > 0 && unknown == n)
      psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_RENDER_TARGETS,
                     GPS "ALL_RENDER_TARGETS_HAVE_UNKNOWN_FORMAT", PSOC_SO_RENDER_TARGET_FORMATS,
                     "RENDER_TARGET_FORMATS.RTFormats",
                     "NumRenderTargets is %u but every format is UNKNOWN; give the formats of the "
                     "render targets you bind, or set NumRenderTargets to 0", n);
  }
  if (dsv != DXGI_FORMAT_UNKNOWN) {
    const psoc_format_info *f = psoc_format_get(dsv);
    if (!f)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INVALID_ENUM, NULL,
                     PSOC_SO_DEPTH_STENCIL_FORMAT, "DEPTH_STENCIL_FORMAT",
                     "DSVFormat is %u, not a DXGI_FORMAT; use D32_FLOAT, D24_UNORM_S8_UINT, "
                     "D16_UNORM, D32_FLOAT_S8X24_UINT or UNKNOWN", dsv);
    else if (!(f->flags & PSOC_FMT_DEPTH))
      /* The native runtime creates a pipeline with DSVFormat R8G8B8A8_UNORM
      ** and depth enabled (vkd3d-proton's test_create_graphics_pipeline_state,
      ** "Invalid DSVFormat"): a warning, an error only against a profile. */
      psoc_rule_diag(ctx, ctx->has_profile ? PSOC_SEVERITY_ERROR : PSOC_SEVERITY_WARNING,
                     PSOC_CODE_FORMAT_UNSUPPORTED, NULL, PSOC_SO_DEPTH_STENCIL_FORMAT,
                     "DEPTH_STENCIL_FORMAT",
                     "DSVFormat is %s, not a depth format; %s%s%s: use D32_FLOAT, "
                     "D24_UNORM_S8_UINT, D16_UNORM or D32_FLOAT_S8X24_UINT (the typed depth view "
                     "of the resource)", psoc_format_name(dsv),
                     ctx->has_profile ? "no device (profile '" : "the pipeline is created, but "
                     "no depth-stencil view of it can be",
                     ctx->has_profile ? ctx->profile->name : "",
                     ctx->has_profile ? "') binds it as a depth-stencil view" : "");
  }
}
