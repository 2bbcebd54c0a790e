/*
** rules_internal.h: what the rule modules (rules*.c) share: the rule
** context, the diagnostic helper and the DXGI format table (internal).
*/
#ifndef PSOC_RULES_INTERNAL_H
#define PSOC_RULES_INTERNAL_H

#include <math.h>

#include "internal.h"
#include "dxbc.h"

/* ---- DXGI format properties (formats.c) ----------------------------- */

enum { /* D3D_REGISTER_COMPONENT_TYPE */
  PSOC_COMP_UNKNOWN = 0, PSOC_COMP_UINT = 1, PSOC_COMP_SINT = 2, PSOC_COMP_FLOAT = 3
};

enum {
  PSOC_FMT_RT = 1u << 0,          /* required render-target support */
  PSOC_FMT_BLEND = 1u << 1,       /* required blend support */
  PSOC_FMT_VERTEX = 1u << 2,      /* required IA vertex-buffer support */
  PSOC_FMT_DEPTH = 1u << 3,       /* a depth-stencil (DSV) format */
  PSOC_FMT_STENCIL = 1u << 4,     /* has a stencil plane */
  PSOC_FMT_TYPELESS = 1u << 5,
  PSOC_FMT_LOGIC_OP = 1u << 6,    /* a UINT render target: logic ops allowed */
  PSOC_FMT_RT_OPTIONAL = 1u << 7, /* render target support is optional */
  PSOC_FMT_COMPRESSED = 1u << 8,  /* block-compressed */
  PSOC_FMT_VIDEO = 1u << 9        /* planar/video/palette formats */
};

typedef struct psoc_format_info {
  uint8_t components;
  uint8_t bytes;            /* per element; 0 for compressed and video */
  uint8_t component_bytes;  /* vertex-input alignment: 1, 2 or 4 */
  uint8_t type;             /* PSOC_COMP_* as a shader sees it */
  uint16_t flags;           /* PSOC_FMT_* */
  uint8_t known;
} psoc_format_info;

/* The table (formats.c), by DXGI_FORMAT value; 'known' is 0 for gaps. */
#define PSOC_FORMAT_TABLE_SIZE 192
extern const psoc_format_info psoc_formats[PSOC_FORMAT_TABLE_SIZE];

/* NULL for DXGI_FORMAT_UNKNOWN and values that are no DXGI format. Inline:
** the rules look formats up on every check. */
static inline const psoc_format_info *psoc_format_get(uint32_t format) {
  /* UNKNOWN (0) is a gap of the table: known 0 (tests/unit/test_parse.c) */
  if (format >= PSOC_FORMAT_TABLE_SIZE || !psoc_formats[format].known) return NULL;
  return &psoc_formats[format];
}
const char *psoc_format_name(uint32_t format);
const char *psoc_comp_type_name(uint32_t type);

/* The profile psoc_check judges by when the caller gives none: every
** capability present, so that no capability check can fire (profile.c). */
extern const psoc_profile psoc_profile_unlimited_;
static inline const psoc_profile *psoc_profile_unlimited(void) {
  return &psoc_profile_unlimited_;
}

/* ---- rule context --------------------------------------------------- */

typedef struct psoc_shader {
  uint32_t slot;        /* PSOC_SO_VS, ...: set where the stage is present */
  psoc_dxbc dxbc;       /* valid only where the stage is parsed (see
                           psoc_rule_shader_parsed); dxbc.error says if it is
                           whole. Nothing here is cleared per check. */
} psoc_shader;

/* Stages in pipeline order. */
enum { PSOC_STAGE_AS, PSOC_STAGE_MS, PSOC_STAGE_VS, PSOC_STAGE_HS, PSOC_STAGE_DS,
       PSOC_STAGE_GS, PSOC_STAGE_PS, PSOC_STAGE_CS, PSOC_STAGE_COUNT };

/* What every version of the depth-stencil class holds outside its stencil
** faces (the faces are widened only where StencilEnable is set:
** psoc_rule_stencil_faces). */
typedef struct psoc_rule_depth {
  BOOL DepthEnable;
  D3D12_DEPTH_WRITE_MASK DepthWriteMask;
  D3D12_COMPARISON_FUNC DepthFunc;
  BOOL StencilEnable;
  BOOL DepthBoundsTestEnable;
} psoc_rule_depth;

/* The effective pipeline the rules judge, read in place: each pointer is
** the payload in the stream when its class is present (whatever the kind,
** as the runtime would read it), else the registry's default payload (a
** copy in 'copy' only where either is not aligned for its type). The two
** versioned classes are widened to their newest form. Hidden defaults
** apply: without a depth-stencil subobject, depth is enabled only with a
** DSV format. Filled by psoc_check (rules.c) for the classes of the kind. */
typedef struct psoc_rule_state {
  const D3D12_BLEND_DESC *blend;
  const D3D12_RT_FORMAT_ARRAY *render_targets;
  const D3D12_INPUT_LAYOUT_DESC *input_layout;
  const D3D12_STREAM_OUTPUT_DESC *stream_output;
  const D3D12_VIEW_INSTANCING_DESC *view_instancing;
  const D3D12_CACHED_PIPELINE_STATE *cached_pso;
  const psoc_serialized_root_signature_desc *serialized_root_signature;
  const DXGI_SAMPLE_DESC *sample_desc;
  const void *root_signature;          /* the ROOT_SIGNATURE pointer (never followed);
                                          it and serialized_root_signature are
                                          loaded only with FOLLOW_POINTERS on a
                                          complete walk, where the rules reading
                                          them run */
  uint32_t ib_strip_cut_value, primitive_topology, depth_stencil_format; /* (no rule reads
                                       SAMPLE_MASK: every value is valid) */
  uint32_t node_mask, flags;
  uint32_t rasterizer_type;            /* the type that supplied the class */
  uint32_t depth_stencil_type;
  const psoc_rasterizer_state *rasterizer; /* widened (draw kinds): into
                                       'widened' when the class is present,
                                       else psoc_rasterizer_default. Widened
                                       only before a rule that reads it runs
                                       (rules.c): the screens read the
                                       payload in place */
  const unsigned char *rasterizer_payload; /* the rasterizer_type's payload
                                       (the registry's default when absent) */
  uint32_t forced_sample_count;        /* the rasterizer's ForcedSampleCount */
  psoc_rasterizer_state widened;
  psoc_rule_depth depth_stencil;       /* hidden default applied (draw kinds) */
  struct {                             /* storage for misaligned payloads */
    D3D12_BLEND_DESC blend;
    D3D12_RT_FORMAT_ARRAY render_targets;
    D3D12_INPUT_LAYOUT_DESC input_layout;
    D3D12_STREAM_OUTPUT_DESC stream_output;
    D3D12_VIEW_INSTANCING_DESC view_instancing;
    D3D12_CACHED_PIPELINE_STATE cached_pso;
    psoc_serialized_root_signature_desc serialized_root_signature;
    DXGI_SAMPLE_DESC sample_desc;
  } copy;
} psoc_rule_state;

typedef struct rule_ctx {
  const psoc_walked *walk;      /* the stream as psoc_walk_check saw it */
  const psoc_profile *profile;  /* never NULL: without a profile, one that
                                   has every capability */
  int has_profile;              /* the caller chose a profile: capability
                                   and format-support checks apply */
  int follow;                   /* PSOC_CHECK_FOLLOW_POINTERS */
  int follow_layout;            /* FOLLOW_LAYOUT or FOLLOW_POINTERS: input
                                   elements, SO declarations, view locations */
  psoc_diags *diags;
  const psoc_known_checksum *known; /* psoc_check_known's list (may be NULL) */
  size_t known_count;           /* its length (read only where known is not NULL) */
  uint64_t explicit_classes;    /* PSOC_TYPE_BIT()s of the classes present
                                   that the kind uses (psoc_rule_has) */
  uint64_t shader_types;        /* PSOC_TYPE_BIT()s of the shader subobjects
                                   present in slots the kind uses (0 without
                                   a kind); psoc_rule_shader_present tests
                                   their bytecode on demand */
  uint32_t shaders_parsed;      /* bit per stage: the container was read
                                   (FOLLOW_POINTERS); shaders[s].dxbc valid */
  psoc_rule_state state;        /* the effective pipeline */
  psoc_shader shaders[PSOC_STAGE_COUNT];
} rule_ctx;

typedef void (*rule_fn)(const rule_ctx *ctx);

/* Add a diagnostic located at the subobject of class 'cls' (or -1/-1 when
** the class is absent or cls >= PSOC_SO_TYPE_COUNT). 'field' is printf-free;
** the message is formatted once, into the list. Rules format nothing else
** unless they emit: a field path with an index is built by psoc_rule_field
** in the argument list of the call that emits it. */
void psoc_rule_diag(const rule_ctx *ctx, psoc_severity severity, psoc_code code,
                    const char *message_id, uint32_t cls, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 7, 8)))
#endif
    ;

/* psoc_rule_diag's slot (psoc_diags_slot_n: the field's length given) for
** a message written piece by piece; NULL where the list cannot grow. */
psoc_diag *psoc_rule_slot(const rule_ctx *ctx, psoc_severity severity, psoc_code code,
                          const char *message_id, uint32_t cls, const char *field,
                          size_t field_len);
/* psoc_rule_diag with a message that needs no formatting: the literal
** 'lit' (whole: it fits the message) and the literal field, copied with
** constant sizes. */
#define PSOC_RULE_TEXT(ctx, severity, code, message_id, cls, field, lit)                          \
  do {                                                                                            \
    psoc_diag *text_slot_;                                                                        \
    _Static_assert(sizeof(lit) >= 16 && sizeof(lit) <= PSOC_DIAG_MESSAGE_MAX, "a fixed text");   \
    text_slot_ = psoc_rule_slot((ctx), (severity), (code), (message_id), (cls), "" field,        \
                                sizeof(field) - 1);                                               \
    if (text_slot_) psoc_copy16(text_slot_->message, "" lit, sizeof(lit));                       \
  } while (0)

/* Format a field path into 'buf' (PSOC_DIAG_FIELD_MAX bytes); returns buf. */
const char *psoc_rule_field(char *buf, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 2, 3)))
#endif
    ;

/* Is the class explicitly present in the stream (and used by the kind)? */
static inline int psoc_rule_has(const rule_ctx *ctx, uint32_t cls) {
  return (ctx->explicit_classes >> cls) & 1u;
}
/* The shader subobject type of each stage (rules_shader.c). */
extern const uint8_t psoc_stage_slots[PSOC_STAGE_COUNT];
/* Does the stage have non-null bytecode (in a slot the kind uses)? Read
** from the stream when asked: only diagnostics and the rules that follow
** pointers ask. */
static inline int psoc_rule_shader_present(const rule_ctx *ctx, int stage) {
  uint32_t slot = psoc_stage_slots[stage];
  return ((ctx->shader_types >> slot) & 1u) && psoc_rdptr(ctx->walk->payload[slot]) != 0;
}
/* Was the stage's container read (FOLLOW_POINTERS)? Only then is
** ctx->shaders[stage].dxbc valid. */
static inline int psoc_rule_shader_parsed(const rule_ctx *ctx, int stage) {
  return (ctx->shaders_parsed >> stage) & 1u;
}
/* Name of a value in an enum table, or "an invalid value". */
const char *psoc_rule_enum_name(const psoc_enum *e, uint32_t value);
/* Does the graphics-like pipeline rasterize with render targets (graphics or mesh)? */
static inline int psoc_rule_is_draw(const rule_ctx *ctx) {
  return (int)((unsigned)ctx->walk->kind & 1u); /* graphics (1) or mesh (3) */
}
/* Does the stream hold a 'type' subobject with non-null bytecode? */
static inline int psoc_rule_code(const rule_ctx *ctx, uint32_t type) {
  const psoc_walked *w = ctx->walk;
  return ((w->type_mask >> type) & 1u) && psoc_rdptr(w->payload[type]) != 0;
}

/* ---- compile-time tables ------------------------------------------- */

/* PSOC_TYPE_BIT, psoc_lowest_bit and the type masks come from the
** registry's list (internal.h). */

/* Subobject types a pipeline kind ignores: those whose registry row lacks
** the kind. */
static inline uint64_t psoc_ignored_types(psoc_kind kind) {
  static const uint64_t ignored[4] = {
    [PSOC_KIND_NONE] = 0, [PSOC_KIND_GRAPHICS] = PSOC_IGNORED_BY_GRAPHICS,
    [PSOC_KIND_COMPUTE] = PSOC_IGNORED_BY_COMPUTE, [PSOC_KIND_MESH] = PSOC_IGNORED_BY_MESH,
  };
  return (unsigned)kind < 4u ? ignored[kind] : 0;
}

/* The values of the enum tables the rules check (enums.c, generated by
** scripts/gen_enums.lua), as bit sets: each table's valid_mask. */
#define PSOC_VALID_BLEND (psoc_enum_blend.valid_mask)
#define PSOC_VALID_BLEND_OP (psoc_enum_blend_op.valid_mask)
#define PSOC_VALID_LOGIC_OP (psoc_enum_logic_op.valid_mask)
#define PSOC_VALID_FILL_MODE (psoc_enum_fill_mode.valid_mask)
#define PSOC_VALID_CULL_MODE (psoc_enum_cull_mode.valid_mask)
#define PSOC_VALID_CONSERVATIVE (psoc_enum_conservative_raster.valid_mask)
#define PSOC_VALID_LINE_RASTER (psoc_enum_line_raster.valid_mask)
#define PSOC_VALID_COMPARISON (psoc_enum_comparison_func.valid_mask)
#define PSOC_VALID_STENCIL_OP (psoc_enum_stencil_op.valid_mask)
#define PSOC_VALID_DEPTH_WRITE (psoc_enum_depth_write_mask.valid_mask)
#define PSOC_VALID_STRIP_CUT (psoc_enum_strip_cut.valid_mask)
#define PSOC_VALID_TOPOLOGY (psoc_enum_topology_type.valid_mask)

/* Is 'value' in the set 'valid' (a PSOC_VALID_* mask)? */
static inline int psoc_rule_valid(uint64_t valid, uint32_t value) {
  return value < 64 && ((valid >> value) & 1u);
}

/* resolve.c: the payload of one versioned class (RASTERIZER*, DEPTH_STENCIL*)
** of subobject 'type' widened as psoc_resolve widens it. */
void psoc_resolve_rasterizer_payload(uint32_t type, const unsigned char *payload,
                                     psoc_rasterizer_state *out);
void psoc_resolve_depth_stencil_payload(uint32_t type, const unsigned char *payload,
                                        D3D12_DEPTH_STENCIL_DESC2 *out);
/* The registry's default RASTERIZER payload widened as above (resolve.c):
** the rasterizer of a pipeline without one, built at compile time. */
extern const psoc_rasterizer_state psoc_rasterizer_default;

/* Rule modules. */
void psoc_rules_blend(const rule_ctx *ctx);           /* rules_blend.c */
void psoc_rules_render_targets(const rule_ctx *ctx);
void psoc_rules_rasterizer(const rule_ctx *ctx);      /* rules_raster.c */
void psoc_rules_depth_stencil(const rule_ctx *ctx);
void psoc_rules_sample(const rule_ctx *ctx);
void psoc_rules_topology(const rule_ctx *ctx);        /* rules_pipeline.c */
void psoc_rules_stages(const rule_ctx *ctx);
void psoc_rules_stream_output(const rule_ctx *ctx);
void psoc_rules_misc(const rule_ctx *ctx);            /* flags, node mask, view instancing, cached PSO */
void psoc_rules_input_layout(const rule_ctx *ctx);    /* rules_input.c */
void psoc_rules_shaders(const rule_ctx *ctx);         /* rules_shader.c */
void psoc_rules_root_bindings(const rule_ctx *ctx); /* rules_bindings.c */
void psoc_rules_load_shaders(rule_ctx *ctx);           /* FOLLOW_POINTERS: read the containers */
/* Does the pixel shader write SV_Target<target>? 1 yes, 0 no (also when the
** pipeline has no PS), -1 unknown (containers not read, or unreadable). */
int psoc_rule_ps_writes_target(const rule_ctx *ctx, unsigned target);

/* ---- screens: "this rule has nothing to say", decided cheaply ------- */

/* Each psoc_quiet_* returns 1 only where its rule (psoc_rules_*) would
** emit nothing for this pipeline under any options, profile or flags; 0
** where it might (then the rule runs and decides). psoc_check tests the
** screen inline before it calls the rule, so the common pipeline pays a
** few loads and tests instead of a call. Each restates the first tests of
** its rule: change both together (tests/unit: test_rules_screens). */

/* The screens are inlined where psoc_check tests them (each is a few
** loads and tests; a call would cost what the screen saves). */
#if defined(__GNUC__)
#define PSOC_SCREEN static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define PSOC_SCREEN static __forceinline
#else
#define PSOC_SCREEN static inline
#endif

/* Blend factors the factor checks have nothing to say about: valid, and
** neither ALPHA_FACTOR nor INV_ALPHA_FACTOR (20, 21); for alpha also no
** _COLOR factor (3, 4, 9, 10, 16, 17). */
#define PSOC_QUIET_FACTORS (PSOC_VALID_BLEND & ~((1u << 20) | (1u << 21)))
#define PSOC_QUIET_ALPHA_FACTORS                                                            \
  (PSOC_QUIET_FACTORS & ~((1u << D3D12_BLEND_SRC_COLOR) | (1u << D3D12_BLEND_INV_SRC_COLOR) | \
                          (1u << D3D12_BLEND_DEST_COLOR) | (1u << D3D12_BLEND_INV_DEST_COLOR) | \
                          (1u << D3D12_BLEND_SRC1_COLOR) | (1u << D3D12_BLEND_INV_SRC1_COLOR)))

PSOC_SCREEN int psoc_blend_is_dual_source(uint32_t b) {
  return b == D3D12_BLEND_SRC1_COLOR || b == D3D12_BLEND_INV_SRC1_COLOR ||
         b == D3D12_BLEND_SRC1_ALPHA || b == D3D12_BLEND_INV_SRC1_ALPHA;
}

PSOC_SCREEN int psoc_blend_uses_dual_source(const D3D12_RENDER_TARGET_BLEND_DESC *rt) {
  return rt->BlendEnable &&
         (psoc_blend_is_dual_source(rt->SrcBlend) || psoc_blend_is_dual_source(rt->DestBlend) ||
          psoc_blend_is_dual_source(rt->SrcBlendAlpha) ||
          psoc_blend_is_dual_source(rt->DestBlendAlpha));
}

/* Does the op check have nothing to say about this op and its factors? */
PSOC_SCREEN int psoc_blend_quiet_op(uint32_t op, uint32_t src, uint32_t dst) {
  return psoc_rule_valid(PSOC_VALID_BLEND_OP, op) &&
         ((op != D3D12_BLEND_OP_MIN && op != D3D12_BLEND_OP_MAX) ||
          (src == D3D12_BLEND_ONE && dst == D3D12_BLEND_ONE));
}

/* Do a blending target's factors and ops leave the factor and op checks
** nothing to say? */
PSOC_SCREEN int psoc_blend_quiet_factors(const D3D12_RENDER_TARGET_BLEND_DESC *rt) {
  return psoc_rule_valid(PSOC_QUIET_FACTORS, rt->SrcBlend) &&
         psoc_rule_valid(PSOC_QUIET_FACTORS, rt->DestBlend) &&
         psoc_rule_valid(PSOC_QUIET_ALPHA_FACTORS, rt->SrcBlendAlpha) &&
         psoc_rule_valid(PSOC_QUIET_ALPHA_FACTORS, rt->DestBlendAlpha) &&
         psoc_blend_quiet_op(rt->BlendOp, rt->SrcBlend, rt->DestBlend) &&
         psoc_blend_quiet_op(rt->BlendOpAlpha, rt->SrcBlendAlpha, rt->DestBlendAlpha);
}

/* psoc_blend_quiet_factors(rt) && !psoc_blend_uses_dual_source(rt) for a
** blending target, with the dual-source factors (SRC1_*, 16-19) left out of
** the sets, so each factor is one set test. */
#define PSOC_DUAL_SOURCE_FACTORS                                                              \
  ((1u << D3D12_BLEND_SRC1_COLOR) | (1u << D3D12_BLEND_INV_SRC1_COLOR) |                      \
   (1u << D3D12_BLEND_SRC1_ALPHA) | (1u << D3D12_BLEND_INV_SRC1_ALPHA))
PSOC_SCREEN int psoc_blend_quiet_single_source(const D3D12_RENDER_TARGET_BLEND_DESC *rt) {
  return psoc_rule_valid(PSOC_QUIET_FACTORS & ~PSOC_DUAL_SOURCE_FACTORS, rt->SrcBlend) &&
         psoc_rule_valid(PSOC_QUIET_FACTORS & ~PSOC_DUAL_SOURCE_FACTORS, rt->DestBlend) &&
         psoc_rule_valid(PSOC_QUIET_ALPHA_FACTORS & ~PSOC_DUAL_SOURCE_FACTORS, rt->SrcBlendAlpha) &&
         psoc_rule_valid(PSOC_QUIET_ALPHA_FACTORS & ~PSOC_DUAL_SOURCE_FACTORS, rt->DestBlendAlpha) &&
         psoc_blend_quiet_op(rt->BlendOp, rt->SrcBlend, rt->DestBlend) &&
         psoc_blend_quiet_op(rt->BlendOpAlpha, rt->SrcBlendAlpha, rt->DestBlendAlpha);
}

/* The formats from index n (0-8) to 7 ORed: not zero when one is set. */
PSOC_SCREEN uint32_t psoc_formats_from(const DXGI_FORMAT *f, unsigned n) {
  uint32_t v = 0;
  switch (n) { /* each case falls through to the next: f[n] | ... | f[7] */
  case 0: v |= (uint32_t)f[0]; /* fall through */
  case 1: v |= (uint32_t)f[1]; /* fall through */
  case 2: v |= (uint32_t)f[2]; /* fall through */
  case 3: v |= (uint32_t)f[3]; /* fall through */
  case 4: v |= (uint32_t)f[4]; /* fall through */
  case 5: v |= (uint32_t)f[5]; /* fall through */
  case 6: v |= (uint32_t)f[6]; /* fall through */
  case 7: v |= (uint32_t)f[7]; /* fall through */
  default: break;
  }
  return v;
}

/* psoc_rules_blend and psoc_rules_render_targets together (one pass over
** the formats): one blend desc for every target (IndependentBlendEnable
** FALSE), no logic op and a valid write mask on RenderTarget[0], and if it
** blends, quiet factors and ops and no dual-source factor; a DSV format that is
** UNKNOWN or a depth format, at most 8 targets, none set past the count,
** each bound one a plain render-target format (not optional) that can
** blend where RenderTarget[0] blends, and not every one UNKNOWN. Where a
** class is absent this asks more than its rule would (the registry's
** defaults pass). */
PSOC_SCREEN int psoc_quiet_blend_targets(const rule_ctx *ctx) {
  const D3D12_BLEND_DESC *b = ctx->state.blend;
  const D3D12_RENDER_TARGET_BLEND_DESC *rt = &b->RenderTarget[0];
  const D3D12_RT_FORMAT_ARRAY *rts = ctx->state.render_targets;
  uint32_t dsv = ctx->state.depth_stencil_format, all = ~0u;
  unsigned i, n = rts->NumRenderTargets, unknown = 0;
  if (b->IndependentBlendEnable || rt->LogicOpEnable || rt->RenderTargetWriteMask > 0xf) return 0;
  if (rt->BlendEnable && !psoc_blend_quiet_single_source(rt))
    return 0;
  if (dsv != DXGI_FORMAT_UNKNOWN) {
    const psoc_format_info *f = psoc_format_get(dsv);
    if (!f || !(f->flags & PSOC_FMT_DEPTH)) return 0;
  }
  if (n > 8 || psoc_formats_from(rts->RTFormats, n)) return 0;
  for (i = 0; i < n; i++) {
    uint32_t fmt = rts->RTFormats[i];
    const psoc_format_info *f;
    if (fmt == DXGI_FORMAT_UNKNOWN) {
      unknown++;
      continue;
    }
    f = psoc_format_get(fmt);
    if (!f || (f->flags & (PSOC_FMT_RT | PSOC_FMT_RT_OPTIONAL)) != PSOC_FMT_RT) return 0;
    all &= f->flags;
  }
  if (n > 0 && unknown == n) return 0;
  return !rt->BlendEnable || (all & PSOC_FMT_BLEND);
}

/* A FLOAT member of a payload read in place. */
static inline float psoc_rule_float(const unsigned char *p) {
  float v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* The screen reads the payload of its type in place (the rules read it
** widened): FillMode .. SlopeScaledDepthBias are at one offset in every
** version (resolve.c asserts it), RASTERIZER's DepthBias is an INT (always
** finite); ForcedSampleCount and ConservativeRaster follow at other
** offsets in RASTERIZER2, which has a line mode where the others have
** MultisampleEnable and AntialiasedLineEnable. */
#define PSOC_RAST_SAME_(m)                                                                \
  _Static_assert(offsetof(psoc_rasterizer_desc2, m) == offsetof(psoc_rasterizer_desc1, m) && \
                     offsetof(psoc_rasterizer_desc2, m) == offsetof(D3D12_RASTERIZER_DESC, m), \
                 "rasterizer member " #m " at one offset in every version");
PSOC_RAST_SAME_(FillMode)
PSOC_RAST_SAME_(CullMode)
PSOC_RAST_SAME_(DepthBias)
PSOC_RAST_SAME_(DepthBiasClamp)
PSOC_RAST_SAME_(SlopeScaledDepthBias)
#undef PSOC_RAST_SAME_

/* psoc_rules_rasterizer: without the class nothing; with it valid fill and
** cull modes, finite depth-bias values, a forced sample count of 0, 1, 2,
** 4 or 8, conservative rasterization OFF, and for RASTERIZER2 a valid line
** mode other than QUADRILATERAL_NARROW. */
#define PSOC_RAST_AT(member) (r + offsetof(psoc_rasterizer_desc2, member))
PSOC_SCREEN int psoc_quiet_rasterizer(const rule_ctx *ctx) {
  const unsigned char *r = ctx->state.rasterizer_payload;
  uint32_t type = ctx->state.rasterizer_type, fsc = ctx->state.forced_sample_count, conservative;
  if (!psoc_rule_has(ctx, PSOC_SO_RASTERIZER)) return 1;
  if (!psoc_rule_valid(PSOC_VALID_FILL_MODE, psoc_rd32(PSOC_RAST_AT(FillMode))) ||
      !psoc_rule_valid(PSOC_VALID_CULL_MODE, psoc_rd32(PSOC_RAST_AT(CullMode))) || fsc > 8 ||
      (fsc & (fsc - 1)) != 0)
    return 0;
  if ((type != PSOC_SO_RASTERIZER && !isfinite(psoc_rule_float(PSOC_RAST_AT(DepthBias)))) ||
      !isfinite(psoc_rule_float(PSOC_RAST_AT(DepthBiasClamp))) ||
      !isfinite(psoc_rule_float(PSOC_RAST_AT(SlopeScaledDepthBias))))
    return 0;
  if (type != PSOC_SO_RASTERIZER2) {
    conservative = psoc_rd32(r + offsetof(psoc_rasterizer_desc1, ConservativeRaster));
    return conservative == D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF;
  }
  {
    uint32_t line = psoc_rd32(PSOC_RAST_AT(LineRasterizationMode));
    conservative = psoc_rd32(PSOC_RAST_AT(ConservativeRaster));
    return conservative == D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF &&
           psoc_rule_valid(PSOC_VALID_LINE_RASTER, line) &&
           line != PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW;
  }
}
#undef PSOC_RAST_AT

/* psoc_rules_depth_stencil: no depth or stencil test without a DSV format;
** without the class nothing else; with it a valid write mask and function
** (not NONE with depth on), stencil and depth bounds off. */
PSOC_SCREEN int psoc_quiet_depth_stencil(const rule_ctx *ctx) {
  const psoc_rule_depth *d = &ctx->state.depth_stencil;
  if ((d->DepthEnable || d->StencilEnable) &&
      ctx->state.depth_stencil_format == DXGI_FORMAT_UNKNOWN)
    return 0;
  if (!psoc_rule_has(ctx, PSOC_SO_DEPTH_STENCIL)) return 1;
  return psoc_rule_valid(PSOC_VALID_DEPTH_WRITE, d->DepthWriteMask) &&
         psoc_rule_valid(PSOC_VALID_COMPARISON, d->DepthFunc) &&
         !(d->DepthEnable && d->DepthFunc == D3D12_COMPARISON_FUNC_NONE) && !d->StencilEnable &&
         !d->DepthBoundsTestEnable;
}

/* psoc_rules_sample: no forced sample count; without the class nothing
** else; with it one sample of quality 0. */
PSOC_SCREEN int psoc_quiet_sample(const rule_ctx *ctx) {
  const DXGI_SAMPLE_DESC *s;
  if (ctx->state.forced_sample_count > 0) return 0;
  if (!psoc_rule_has(ctx, PSOC_SO_SAMPLE_DESC)) return 1;
  s = ctx->state.sample_desc;
  return s->Count == 1 && s->Quality == 0 && ctx->profile->max_sample_count >= 1;
}

/* psoc_rules_topology (graphics): a valid topology other than UNDEFINED,
** PATCH exactly when there is a hull shader, and a strip cut that is
** DISABLED or valid with a topology that has strips. */
PSOC_SCREEN int psoc_quiet_topology(const rule_ctx *ctx) {
  uint32_t topo = ctx->state.primitive_topology, cut = ctx->state.ib_strip_cut_value;
  int patch = topo == D3D12_PRIMITIVE_TOPOLOGY_TYPE_PATCH;
  if (!psoc_rule_valid(PSOC_VALID_TOPOLOGY, topo) ||
      topo == D3D12_PRIMITIVE_TOPOLOGY_TYPE_UNDEFINED || patch != psoc_rule_code(ctx, PSOC_SO_HS))
    return 0;
  return cut == D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_DISABLED ||
         (psoc_rule_valid(PSOC_VALID_STRIP_CUT, cut) && !patch &&
          topo != D3D12_PRIMITIVE_TOPOLOGY_TYPE_POINT);
}

/* psoc_rules_stream_output (graphics): without the class nothing; with it
** no entries, no strides and stream 0 or none rasterized. */
PSOC_SCREEN int psoc_quiet_stream_output(const rule_ctx *ctx) {
  const D3D12_STREAM_OUTPUT_DESC *so = ctx->state.stream_output;
  if (!psoc_rule_has(ctx, PSOC_SO_STREAM_OUTPUT)) return 1;
  return so->NumEntries == 0 && so->NumStrides == 0 &&
         (so->RasterizedStream == 0 || so->RasterizedStream == D3D12_SO_NO_RASTERIZED_STREAM);
}

/* psoc_rules_input_layout (graphics): without the class nothing; with it,
** where the elements are not followed, at most 32 of them and a pointer
** exactly when there are some. */
PSOC_SCREEN int psoc_quiet_input_layout(const rule_ctx *ctx) {
  const D3D12_INPUT_LAYOUT_DESC *il = ctx->state.input_layout;
  if (!psoc_rule_has(ctx, PSOC_SO_INPUT_LAYOUT)) return 1;
  return !ctx->follow_layout && il->NumElements <= D3D12_IA_VERTEX_INPUT_STRUCTURE_ELEMENT_COUNT &&
         (il->NumElements > 0) == (il->pInputElementDescs != NULL);
}

/* psoc_rules_misc: flags 0, node mask 0, no view instancing, and a cached
** blob given with its size or not at all (each where its class is present). */
PSOC_SCREEN int psoc_quiet_misc(const rule_ctx *ctx) {
  const psoc_rule_state *r = &ctx->state;
  if (psoc_rule_has(ctx, PSOC_SO_FLAGS) && r->flags != 0) return 0;
  if (psoc_rule_has(ctx, PSOC_SO_NODE_MASK) && r->node_mask != 0) return 0;
  if (psoc_rule_has(ctx, PSOC_SO_VIEW_INSTANCING) &&
      (r->view_instancing->Flags != 0 || r->view_instancing->ViewInstanceCount != 0))
    return 0;
  return !psoc_rule_has(ctx, PSOC_SO_CACHED_PSO) ||
         (r->cached_pso->pCachedBlob == NULL) == (r->cached_pso->CachedBlobSizeInBytes == 0);
}

/* psoc_rules_stages: graphics with both or neither of HS and DS; mesh
** where no chosen profile lacks mesh shaders; no kind without an AS. */
PSOC_SCREEN int psoc_quiet_stages(const rule_ctx *ctx) {
  switch (ctx->walk->kind) {
  case PSOC_KIND_NONE: return !psoc_rule_code(ctx, PSOC_SO_AS);
  case PSOC_KIND_GRAPHICS: return psoc_rule_code(ctx, PSOC_SO_HS) == psoc_rule_code(ctx, PSOC_SO_DS);
  case PSOC_KIND_MESH: return !ctx->has_profile || ctx->profile->mesh_shader_tier != 0;
  default: return 1;
  }
}

/* An option flag for tests, outside the public PSOC_CHECK_* bits: every
** rule runs without asking its screen. The diagnostics must be the same as
** with the screens (tests/unit/test_rules.c compares them). */
#define PSOC_CHECK_UNSCREENED_ (1u << 31)

/* For rules without a screen. */
PSOC_SCREEN int psoc_quiet_never(const rule_ctx *ctx) {
  (void)ctx;
  return 0;
}

#endif
