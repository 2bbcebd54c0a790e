/*
** rules_internal.h: what the rule modules (rules*.c) share: the rule
** context, the diagnostic helper and the DXGI format table (internal).
*/
#ifndef PSOC_RULES_INTERNAL_H
#define PSOC_RULES_INTERNAL_H

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

/* NULL for DXGI_FORMAT_UNKNOWN and values that are no DXGI format. */
const psoc_format_info *psoc_format_get(uint32_t format);
const char *psoc_format_name(uint32_t format);
const char *psoc_comp_type_name(uint32_t type);

/* The profile psoc_check judges by when the caller gives none: every
** capability present, so that no capability check can fire (profile.c). */
const psoc_profile *psoc_profile_unlimited(void);

/* ---- rule context --------------------------------------------------- */

typedef struct psoc_shader {
  int present;          /* the stream has non-null bytecode for the stage
                           (known with or without FOLLOW_POINTERS) */
  int parsed;           /* the container was read (FOLLOW_POINTERS) */
  uint32_t slot;        /* PSOC_SO_VS, ... */
  psoc_dxbc dxbc;       /* valid when parsed; dxbc.error says if it is whole */
} psoc_shader;

/* Stages in pipeline order. */
enum { PSOC_STAGE_AS, PSOC_STAGE_MS, PSOC_STAGE_VS, PSOC_STAGE_HS, PSOC_STAGE_DS,
       PSOC_STAGE_GS, PSOC_STAGE_PS, PSOC_STAGE_CS, PSOC_STAGE_COUNT };

typedef struct rule_ctx {
  const psoc_parsed *parsed;
  const psoc_check_options *options;
  const psoc_profile *profile;  /* never NULL: without a profile, one that
                                   has every capability */
  int has_profile;              /* the caller chose a profile: capability
                                   and format-support checks apply */
  int follow;                   /* PSOC_CHECK_FOLLOW_POINTERS */
  int follow_layout;            /* FOLLOW_LAYOUT or FOLLOW_POINTERS: input
                                   elements, SO declarations, view locations */
  psoc_diags *diags;
  psoc_resolved resolved;       /* the effective pipeline */
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

/* Format a field path into 'buf' (PSOC_DIAG_FIELD_MAX bytes); returns buf. */
const char *psoc_rule_field(char *buf, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 2, 3)))
#endif
    ;

/* Is the class explicitly present in the stream? */
static inline int psoc_rule_has(const rule_ctx *ctx, uint32_t cls) {
  return ctx->resolved.origin[cls] == PSOC_ORIGIN_EXPLICIT;
}
/* Name of a value in an enum table, or "an invalid value". */
const char *psoc_rule_enum_name(const psoc_enum *e, uint32_t value);
/* Does the graphics-like pipeline rasterize with render targets (graphics or mesh)? */
static inline int psoc_rule_is_draw(const rule_ctx *ctx) {
  return ctx->parsed->kind == PSOC_KIND_GRAPHICS || ctx->parsed->kind == PSOC_KIND_MESH;
}
/* Does the stream hold a 'type' subobject with non-null bytecode? */
static inline int psoc_rule_code(const rule_ctx *ctx, uint32_t type) {
  const psoc_parsed *p = ctx->parsed;
  return p->has[type] && psoc_rdptr(p->views[type].payload) != 0;
}

/* ---- compile-time tables ------------------------------------------- */

#define PSOC_TYPE_BIT(t) (1u << (t))

/* Index of the lowest set bit of a non-zero mask. */
static inline uint32_t psoc_lowest_bit(uint32_t m) {
#if defined(__GNUC__)
  return (uint32_t)__builtin_ctz(m);
#else
  uint32_t t = 0;
  while (!(m & 1u)) m >>= 1, t++;
  return t;
#endif
}

/* Subobject types a pipeline kind ignores: those whose registry row
** (registry.c) lacks the kind. test_rules.c checks it against the registry. */
static inline uint32_t psoc_ignored_types(psoc_kind kind) {
  switch (kind) {
  case PSOC_KIND_GRAPHICS:
    return PSOC_TYPE_BIT(PSOC_SO_CS) | PSOC_TYPE_BIT(PSOC_SO_AS) | PSOC_TYPE_BIT(PSOC_SO_MS);
  case PSOC_KIND_COMPUTE:
    return PSOC_TYPE_BIT(PSOC_SO_VS) | PSOC_TYPE_BIT(PSOC_SO_PS) | PSOC_TYPE_BIT(PSOC_SO_DS) |
           PSOC_TYPE_BIT(PSOC_SO_HS) | PSOC_TYPE_BIT(PSOC_SO_GS) | PSOC_TYPE_BIT(PSOC_SO_AS) |
           PSOC_TYPE_BIT(PSOC_SO_MS) | PSOC_TYPE_BIT(PSOC_SO_STREAM_OUTPUT) |
           PSOC_TYPE_BIT(PSOC_SO_BLEND) | PSOC_TYPE_BIT(PSOC_SO_SAMPLE_MASK) |
           PSOC_TYPE_BIT(PSOC_SO_RASTERIZER) | PSOC_TYPE_BIT(PSOC_SO_RASTERIZER1) |
           PSOC_TYPE_BIT(PSOC_SO_RASTERIZER2) | PSOC_TYPE_BIT(PSOC_SO_DEPTH_STENCIL) |
           PSOC_TYPE_BIT(PSOC_SO_DEPTH_STENCIL1) | PSOC_TYPE_BIT(PSOC_SO_DEPTH_STENCIL2) |
           PSOC_TYPE_BIT(PSOC_SO_INPUT_LAYOUT) | PSOC_TYPE_BIT(PSOC_SO_IB_STRIP_CUT_VALUE) |
           PSOC_TYPE_BIT(PSOC_SO_PRIMITIVE_TOPOLOGY) |
           PSOC_TYPE_BIT(PSOC_SO_RENDER_TARGET_FORMATS) |
           PSOC_TYPE_BIT(PSOC_SO_DEPTH_STENCIL_FORMAT) | PSOC_TYPE_BIT(PSOC_SO_SAMPLE_DESC) |
           PSOC_TYPE_BIT(PSOC_SO_VIEW_INSTANCING);
  case PSOC_KIND_MESH:
    return PSOC_TYPE_BIT(PSOC_SO_VS) | PSOC_TYPE_BIT(PSOC_SO_DS) | PSOC_TYPE_BIT(PSOC_SO_HS) |
           PSOC_TYPE_BIT(PSOC_SO_GS) | PSOC_TYPE_BIT(PSOC_SO_CS) |
           PSOC_TYPE_BIT(PSOC_SO_STREAM_OUTPUT) | PSOC_TYPE_BIT(PSOC_SO_INPUT_LAYOUT) |
           PSOC_TYPE_BIT(PSOC_SO_IB_STRIP_CUT_VALUE);
  default:
    return 0;
  }
}

/* The shader subobject types (bytecode payloads). */
#define PSOC_SHADER_TYPES                                                              \
  (PSOC_TYPE_BIT(PSOC_SO_VS) | PSOC_TYPE_BIT(PSOC_SO_PS) | PSOC_TYPE_BIT(PSOC_SO_DS) | \
   PSOC_TYPE_BIT(PSOC_SO_HS) | PSOC_TYPE_BIT(PSOC_SO_GS) | PSOC_TYPE_BIT(PSOC_SO_CS) | \
   PSOC_TYPE_BIT(PSOC_SO_AS) | PSOC_TYPE_BIT(PSOC_SO_MS))

/* The values of the enum tables the rules check (enums.c), as bit sets:
** every value is below 32. test_rules.c checks each against its table. */
#define PSOC_VALID_BLEND 0x003fcffeu           /* 1-11, 14-21 */
#define PSOC_VALID_BLEND_OP 0x0000003eu        /* 1-5 */
#define PSOC_VALID_LOGIC_OP 0x0000ffffu        /* 0-15 */
#define PSOC_VALID_FILL_MODE 0x0000000cu       /* 2-3 */
#define PSOC_VALID_CULL_MODE 0x0000000eu       /* 1-3 */
#define PSOC_VALID_CONSERVATIVE 0x00000003u    /* 0-1 */
#define PSOC_VALID_LINE_RASTER 0x0000000fu     /* 0-3 */
#define PSOC_VALID_COMPARISON 0x000001ffu      /* 0-8 */
#define PSOC_VALID_STENCIL_OP 0x000001feu      /* 1-8 */
#define PSOC_VALID_DEPTH_WRITE 0x00000003u     /* 0-1 */
#define PSOC_VALID_STRIP_CUT 0x00000007u       /* 0-2 */
#define PSOC_VALID_TOPOLOGY 0x0000001fu        /* 0-4 */

/* Is 'value' in the set 'valid' (a PSOC_VALID_* mask)? */
static inline int psoc_rule_valid(uint32_t valid, uint32_t value) {
  return value < 32 && ((valid >> value) & 1u);
}

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
void psoc_rules_load_shaders(rule_ctx *ctx);
/* Does the pixel shader write SV_Target<target>? 1 yes, 0 no (also when the
** pipeline has no PS), -1 unknown (containers not read, or unreadable). */
int psoc_rule_ps_writes_target(const rule_ctx *ctx, unsigned target);

#endif
