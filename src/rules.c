/*
** rules.c: the checks that run over a parsed stream. One function per
** rule, listed in one table; each names what to change. The table also
** says when a rule can have nothing to say (the pipeline kinds it judges,
** the subobject classes it reads), so psoc_check skips it with a mask test.
*/
#include <stdalign.h>
#include <stdarg.h>

#include "parse_walk.h"
#include "rules_internal.h"

enum {
  NEEDS_COMPLETE_WALK = 1u << 0, /* skipped when the walk stopped early */
  NEEDS_FOLLOW = 1u << 1,        /* only with PSOC_CHECK_FOLLOW_POINTERS */
  UNSCREENED = 1u << 2           /* no rule's screen is asked (PSOC_CHECK_UNSCREENED_) */
};

/* In a rule's classes: run whatever classes the stream holds (bit 63 is no
** type), or when the stream holds a type its kind ignores (bit 62). */
#define ANY_CLASS PSOC_TYPE_BIT(63)
#define IGNORED_PRESENT PSOC_TYPE_BIT(62)
_Static_assert(PSOC_SO_TYPE_COUNT <= 62, "bits 62 and 63 of a class mask are no type");

#define MSG_CANNOT_DEDUCE "CREATEPIPELINESTATE_CANNOT_DEDUCE_TYPE"

/* Kind: exactly one of the deciding shaders (VS, CS, MS: the registry's
** PSOC_DECIDER_TYPES) carries non-null bytecode. */
static void rule_kind(const rule_ctx *ctx) {
  const psoc_walked *p = ctx->walk;
  char list[64], deciders[64], with_kinds[96];
  size_t len = 0;
  unsigned n = 0, nulls = 0;
  uint64_t m, with_code = 0;
  if (p->kind != PSOC_KIND_NONE) return; /* psoc_parse found exactly one */
  for (m = PSOC_DECIDER_TYPES; m; m &= m - 1) {
    uint32_t t = psoc_lowest_bit(m);
    if (psoc_rule_code(ctx, t)) {
      with_code |= PSOC_TYPE_BIT(t);
      n++;
    } else if ((p->type_mask >> t) & 1u) {
      nulls++;
    }
  }
  if (n == 1) return;
  psoc_registry_deciders_text(deciders, sizeof deciders, PSOC_DECIDERS_OR);
  if (n == 0) {
    psoc_diags_add(ctx->diags, PSOC_SEVERITY_ERROR, PSOC_CODE_NO_SHADER, MSG_CANNOT_DEDUCE, -1, -1,
                   "", "cannot deduce the pipeline type: no %s subobject has non-null "
                   "bytecode%s; give %s a shader", deciders,
                   nulls ? " (a shader subobject with null bytecode does not count)" : "",
                   psoc_registry_deciders_text(with_kinds, sizeof with_kinds, PSOC_DECIDERS_KINDS));
    return;
  }
  list[0] = '\0';
  for (m = with_code, n = 0; m; m &= m - 1) {
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", n ? " and " : "",
                            psoc_registry_rows[psoc_lowest_bit(m)].name);
    n++;
  }
  psoc_diags_add(ctx->diags, PSOC_SEVERITY_ERROR, PSOC_CODE_AMBIGUOUS_KIND, MSG_CANNOT_DEDUCE,
                 -1, -1, "", "cannot deduce the pipeline type: %s all have non-null bytecode; "
                 "exactly one of %s may carry a shader, set the others' bytecode to "
                 "null or remove them", list,
                 psoc_registry_deciders_text(deciders, sizeof deciders, PSOC_DECIDERS_LIST));
}

/* Subobjects the deduced kind does not use are ignored by the runtime. A
** shader subobject with null bytecode is absent to the runtime, so it gets
** no note (d3dx12's STREAM2/3 carry null CS, AS and MS subobjects). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void report_irrelevant(const rule_ctx *ctx, uint64_t types) {
  const psoc_walked *p = ctx->walk;
  for (; types; types &= types - 1) { /* in type order */
    uint32_t t = psoc_lowest_bit(types);
    psoc_view v;
    if ((PSOC_SHADER_TYPES & PSOC_TYPE_BIT(t)) && psoc_rdptr(p->payload[t]) == 0) continue;
    psoc_walked_view(p, t, &v);
    psoc_diags_add(ctx->diags, PSOC_SEVERITY_NOTE, PSOC_CODE_IRRELEVANT_SUBOBJECT, NULL,
                   (int32_t)v.index, (int64_t)v.offset, v.info->name,
                   "%s is ignored in a %s pipeline", v.info->name, psoc_kind_name(p->kind));
  }
}

/* The types to report found first without a call (d3dx12's STREAM2/3 hold
** only null shaders the kind ignores), then reported out of line. */
static void rule_irrelevant(const rule_ctx *ctx) {
  const psoc_walked *p = ctx->walk;
  uint64_t types = p->type_mask & psoc_ignored_types(p->kind), m;
  for (m = types; m; m &= m - 1) {
    uint32_t t = psoc_lowest_bit(m);
    if (!(PSOC_SHADER_TYPES & PSOC_TYPE_BIT(t)) || psoc_rdptr(p->payload[t]) != 0) {
      report_irrelevant(ctx, m); /* from the first to report on */
      return;
    }
  }
}

/* The blend rule (where the stream holds a blend desc) then the render-
** target formats rule (where it holds formats), behind one screen that
** reads the formats once. */
static void rules_blend_targets(const rule_ctx *ctx) {
  uint64_t classes = ctx->walk->classes;
  if (classes & PSOC_TYPE_BIT(PSOC_SO_BLEND)) psoc_rules_blend(ctx);
  if (classes & (PSOC_TYPE_BIT(PSOC_SO_RENDER_TARGET_FORMATS) |
                 PSOC_TYPE_BIT(PSOC_SO_DEPTH_STENCIL_FORMAT)))
    psoc_rules_render_targets(ctx);
}

/* The rules that read the widened rasterizer widen it first (once: the
** screens read the payload in place, so a quiet pipeline never widens). */
static void widen_rasterizer(rule_ctx *ctx) {
  psoc_rule_state *s = &ctx->state;
  if (s->rasterizer) return;
  psoc_resolve_rasterizer_payload(s->rasterizer_type, s->rasterizer_payload, &s->widened);
  s->rasterizer = &s->widened;
}

static void rule_rasterizer(rule_ctx *ctx) {
  widen_rasterizer(ctx);
  psoc_rules_rasterizer(ctx);
}

static void rule_sample(rule_ctx *ctx) {
  widen_rasterizer(ctx);
  psoc_rules_sample(ctx);
}

#define B(t) PSOC_TYPE_BIT(PSOC_SO_##t)
#define K(k) PSOC_KIND_BIT(PSOC_KIND_##k)
#define DRAW (K(GRAPHICS) | K(MESH))
#define ANY_KIND (K(NONE) | PSOC_KINDS_ALL)

/* Each rule's kinds and classes restate the early returns and presence
** tests of its function (a superset of where it can emit): a rule reading
** an absent class sees the runtime default, which those rules accept.
** X(k, h, name, kinds, needs, classes, function, screen); k and h pass
** through to CALL below. The screen (rules_internal.h) says cheaply, for
** the common pipeline, that the rule has nothing to say; then it is not
** called. */
#define WALK NEEDS_COMPLETE_WALK
#define RULE_LIST(X, k, h)                                                                      \
  X(k, h, kind, K(NONE), WALK, ANY_CLASS, rule_kind, psoc_quiet_never)                         \
  X(k, h, irrelevant, PSOC_KINDS_ALL, WALK, IGNORED_PRESENT, rule_irrelevant, psoc_quiet_never) \
  X(k, h, stages, K(NONE) | DRAW, WALK, B(AS) | B(HS) | B(DS) | B(MS), psoc_rules_stages,      \
    psoc_quiet_stages)                                                                          \
  X(k, h, topology, K(GRAPHICS), WALK, B(PRIMITIVE_TOPOLOGY) | B(IB_STRIP_CUT_VALUE) | B(HS),   \
    psoc_rules_topology, psoc_quiet_topology)                                                   \
  X(k, h, stream_output, K(GRAPHICS), WALK, B(STREAM_OUTPUT), psoc_rules_stream_output,         \
    psoc_quiet_stream_output)                                                                   \
  X(k, h, blend_targets, DRAW, WALK, B(BLEND) | B(RENDER_TARGET_FORMATS) | B(DEPTH_STENCIL_FORMAT), \
    rules_blend_targets, psoc_quiet_blend_targets)                                              \
  X(k, h, rasterizer, DRAW, WALK, B(RASTERIZER), rule_rasterizer, psoc_quiet_rasterizer)        \
  X(k, h, depth_stencil, DRAW, WALK, B(DEPTH_STENCIL), psoc_rules_depth_stencil,                \
    psoc_quiet_depth_stencil)                                                                   \
  X(k, h, sample, DRAW, WALK, B(SAMPLE_DESC) | B(RASTERIZER), rule_sample,                      \
    psoc_quiet_sample)                                                                          \
  X(k, h, misc, ANY_KIND, WALK, B(FLAGS) | B(NODE_MASK) | B(VIEW_INSTANCING) | B(CACHED_PSO),   \
    psoc_rules_misc, psoc_quiet_misc)                                                           \
  X(k, h, input_layout, K(GRAPHICS), WALK, B(INPUT_LAYOUT), psoc_rules_input_layout,            \
    psoc_quiet_input_layout)                                                                    \
  X(k, h, shaders, PSOC_KINDS_ALL, WALK | NEEDS_FOLLOW, ANY_CLASS, psoc_rules_shaders,          \
    psoc_quiet_never)                                                                           \
  X(k, h, root_bindings, PSOC_KINDS_ALL, WALK | NEEDS_FOLLOW, ANY_CLASS, psoc_rules_root_bindings, \
    psoc_quiet_never)

/* The rules that can run for kind bit 'k' when the check has 'h'
** (NEEDS_*), in list order: each a direct call behind one test, whether
** one of its classes is present. Whether the rule runs for the kind and
** the options is a compile-time constant of each expansion (psoc_check
** expands the list once per kind and NEEDS_* set), so it costs nothing. */
#define CALL(k, h, name, kinds, needs, cls, fn, quiet)                        \
  if ((((kinds) & (k)) && !((needs) & ~(h))) && (classes & (cls)) &&          \
      (((h) & UNSCREENED) || !quiet(ctx)))                                    \
    fn(ctx);
#define RUN_RULES(kind, h)                                      \
  case PSOC_KIND_##kind * 8 + (h):                              \
    RULE_LIST(CALL, K(kind), h)                                 \
    break;
#define RUN_SET(kind, u) \
  RUN_RULES(kind, (u) + 0) RUN_RULES(kind, (u) + 1) RUN_RULES(kind, (u) + 2) RUN_RULES(kind, (u) + 3)
#define RUN_KIND(kind) RUN_SET(kind, 0) RUN_SET(kind, UNSCREENED)
_Static_assert((NEEDS_COMPLETE_WALK | NEEDS_FOLLOW | UNSCREENED) == 7, "eight sets per kind");
_Static_assert((PSOC_KIND_GRAPHICS & 1) && (PSOC_KIND_MESH & 1) && !(PSOC_KIND_NONE & 1) &&
                   !(PSOC_KIND_COMPUTE & 1),
               "the drawing kinds are the odd ones");
_Static_assert(NEEDS_COMPLETE_WALK == 1 && NEEDS_FOLLOW == (unsigned)PSOC_CHECK_FOLLOW_POINTERS << 1 &&
                   UNSCREENED == PSOC_CHECK_UNSCREENED_ >> 29,
               "psoc_check_known shifts the flags into a NEEDS_* set");

/* ---- helpers shared by the rule modules ----------------------------- */

void psoc_rule_diag(const rule_ctx *ctx, psoc_severity severity, psoc_code code,
                    const char *message_id, uint32_t cls, const char *field, const char *fmt, ...) {
  psoc_view view;
  int kept = cls < PSOC_SO_TYPE_COUNT ? psoc_walked_kept(ctx->walk, cls) : -1, at = kept >= 0;
  va_list ap;
  if (at) psoc_walked_view(ctx->walk, (uint32_t)kept, &view);
  va_start(ap, fmt);
  psoc_diags_addv(ctx->diags, severity, code, message_id, at ? (int32_t)view.index : -1,
                  at ? (int64_t)view.offset : -1, field, fmt, ap);
  va_end(ap);
}

psoc_diag *psoc_rule_slot(const rule_ctx *ctx, psoc_severity severity, psoc_code code,
                          const char *message_id, uint32_t cls, const char *field,
                          size_t field_len) {
  psoc_view view;
  int kept = cls < PSOC_SO_TYPE_COUNT ? psoc_walked_kept(ctx->walk, cls) : -1, at = kept >= 0;
  if (at) psoc_walked_view(ctx->walk, (uint32_t)kept, &view);
  return psoc_diags_slot_n(ctx->diags, severity, code, message_id, at ? (int32_t)view.index : -1,
                           at ? (int64_t)view.offset : -1, field, field_len);
}

const char *psoc_rule_field(char *buf, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, PSOC_DIAG_FIELD_MAX, fmt, ap);
  va_end(ap);
  return buf;
}

const char *psoc_rule_enum_name(const psoc_enum *e, uint32_t value) {
  const psoc_enum_value *v = psoc_enum_value_by_value(e, value);
  return v ? v->name : "an invalid value";
}

/* Errors fail the check; with PSOC_CHECK_WERROR warnings do too. The
** diagnostics keep their severities either way. */
static psoc_status verdict(const psoc_diags *diags, size_t errors_before, size_t warnings_before,
                           uint32_t flags) {
  if (diags->errors > errors_before) return PSOC_ERR_INVALID;
  if ((flags & PSOC_CHECK_WERROR) && diags->warnings > warnings_before) return PSOC_ERR_INVALID;
  return PSOC_OK;
}

/* ---- the effective pipeline, read in place -------------------------- */

/* The payload of class 'cls': the kept view's when present, else the
** registry's default payload; in place when aligned for its type, else
** copied to 'storage'. */
static const void *class_payload(const psoc_walked *p, uint32_t cls, void *storage, size_t size,
                                 size_t align) {
  const void *src = p->payload[cls]; /* kept, or the default */
  if (((uintptr_t)src & (align - 1)) == 0) return src;
  memcpy(storage, src, size);
  return storage;
}

static uint32_t class_u32(const psoc_walked *p, uint32_t cls) {
  return psoc_rd32(p->payload[cls]); /* kept, or the default */
}

/* The types of the class PSOC_CLASS_ (a base type), from the list. */
#define CLASS_MEMBER(NAME, id, key, CLASS, kinds, T, layout, bits) \
  | (PSOC_SO_##CLASS == PSOC_CLASS_ ? PSOC_TYPE_BIT(id) : 0)
#define PSOC_CLASS_ PSOC_SO_RASTERIZER
static const uint64_t rasterizer_types = 0 PSOC_SUBOBJECTS(CLASS_MEMBER);
#undef PSOC_CLASS_
#define PSOC_CLASS_ PSOC_SO_DEPTH_STENCIL
static const uint64_t depth_stencil_types = 0 PSOC_SUBOBJECTS(CLASS_MEMBER);
#undef PSOC_CLASS_
#undef CLASS_MEMBER

/* In a stream that starts pointer-aligned every payload is aligned for its
** type (subobjects start at multiples of the pointer size, a payload at
** its type's alignment after the type field, and no payload type needs
** more than a pointer's alignment); the registry's defaults are aligned
** too. Then the payload pointers are taken as they are. */
#define ALIGN_FITS(NAME, id, key, CLASS, kinds, T, layout, bits) \
  _Static_assert(alignof(T) <= sizeof(void *), #NAME ": payload alignment within a pointer's");
PSOC_SUBOBJECTS(ALIGN_FITS)
#undef ALIGN_FITS

#define PAYLOAD(cls, member, T)                                                      \
  (s->member = aligned ? (const T *)(const void *)p->payload[cls]                    \
                       : (const T *)class_payload(p, cls, &s->copy.member,           \
                                                  sizeof s->copy.member, alignof(T)))

_Static_assert(offsetof(psoc_rule_depth, StencilEnable) == 3 * sizeof(uint32_t),
               "psoc_rule_depth starts like every DEPTH_STENCIL version");

/* The root signatures: only the rules that follow pointers read them
** (shaders, root bindings), so they are loaded where pointers are followed. */
static void load_follow_state(rule_ctx *ctx) {
  const psoc_walked *p = ctx->walk;
  psoc_rule_state *s = &ctx->state;
  int aligned = ((uintptr_t)p->data & (sizeof(void *) - 1)) == 0;
  uint64_t rs = (p->type_mask & PSOC_TYPE_BIT(PSOC_SO_ROOT_SIGNATURE))
                    ? psoc_rdptr(p->payload[PSOC_SO_ROOT_SIGNATURE])
                    : 0;
  s->root_signature = (const void *)(uintptr_t)rs;
  PAYLOAD(PSOC_SO_SERIALIZED_ROOT_SIGNATURE, serialized_root_signature,
          psoc_serialized_root_signature_desc);
}

static void load_state(rule_ctx *ctx) {
  const psoc_walked *p = ctx->walk;
  psoc_rule_state *s = &ctx->state;
  int aligned = ((uintptr_t)p->data & (sizeof(void *) - 1)) == 0;
  PAYLOAD(PSOC_SO_CACHED_PSO, cached_pso, D3D12_CACHED_PIPELINE_STATE);
  s->node_mask = class_u32(p, PSOC_SO_NODE_MASK);
  s->flags = class_u32(p, PSOC_SO_FLAGS);
  PAYLOAD(PSOC_SO_VIEW_INSTANCING, view_instancing, D3D12_VIEW_INSTANCING_DESC);
  if (p->kind == PSOC_KIND_COMPUTE) return; /* the rest is for drawing */
  PAYLOAD(PSOC_SO_BLEND, blend, D3D12_BLEND_DESC);
  PAYLOAD(PSOC_SO_RENDER_TARGET_FORMATS, render_targets, D3D12_RT_FORMAT_ARRAY);
  PAYLOAD(PSOC_SO_INPUT_LAYOUT, input_layout, D3D12_INPUT_LAYOUT_DESC);
  PAYLOAD(PSOC_SO_STREAM_OUTPUT, stream_output, D3D12_STREAM_OUTPUT_DESC);
  PAYLOAD(PSOC_SO_SAMPLE_DESC, sample_desc, DXGI_SAMPLE_DESC);
  s->ib_strip_cut_value = class_u32(p, PSOC_SO_IB_STRIP_CUT_VALUE);
  s->primitive_topology = class_u32(p, PSOC_SO_PRIMITIVE_TOPOLOGY);
  s->depth_stencil_format = class_u32(p, PSOC_SO_DEPTH_STENCIL_FORMAT);
  if (p->kind == PSOC_KIND_NONE) return;
  {
    /* the versioned classes: the type kept (one of a class), else the base
    ** type with the registry's default payload, where the walk left it */
    uint64_t kept = p->type_mask & rasterizer_types;
    const unsigned char *v;
    uint32_t type;
    if (kept) { /* widened where a rule reads it */
      type = psoc_lowest_bit(kept);
      v = p->payload[type];
      s->rasterizer = NULL;
      s->forced_sample_count =
          psoc_rd32(v + (type == PSOC_SO_RASTERIZER2
                             ? offsetof(psoc_rasterizer_desc2, ForcedSampleCount)
                             : offsetof(psoc_rasterizer_desc1, ForcedSampleCount)));
    } else { /* absent: the constant default */
      type = PSOC_SO_RASTERIZER;
      v = p->payload[PSOC_SO_RASTERIZER];
      s->rasterizer = &psoc_rasterizer_default;
      s->forced_sample_count = psoc_rasterizer_default.ForcedSampleCount;
    }
    s->rasterizer_type = type;
    s->rasterizer_payload = v;
    kept = p->type_mask & depth_stencil_types;
    type = kept ? psoc_lowest_bit(kept) : PSOC_SO_DEPTH_STENCIL;
    v = p->payload[type];
    s->depth_stencil_type = type;
    /* DepthEnable .. StencilEnable lead every version of the class */
    memcpy(&s->depth_stencil, v, 4 * sizeof(uint32_t));
    s->depth_stencil.DepthBoundsTestEnable =
        type == PSOC_SO_DEPTH_STENCIL1
            ? psoc_rd32(v + offsetof(D3D12_DEPTH_STENCIL_DESC1, DepthBoundsTestEnable))
        : type == PSOC_SO_DEPTH_STENCIL2
            ? psoc_rd32(v + offsetof(D3D12_DEPTH_STENCIL_DESC2, DepthBoundsTestEnable))
            : FALSE;
    /* Hidden default: without a depth-stencil subobject, depth testing is
    ** off unless a DSV format other than UNKNOWN is given. */
    if (!kept && s->depth_stencil_format == DXGI_FORMAT_UNKNOWN) s->depth_stencil.DepthEnable = FALSE;
  }
}

#undef PAYLOAD

psoc_status psoc_check(const void *data, size_t size, const psoc_check_options *options,
                       psoc_diags *diags) {
  return psoc_check_known(data, size, options, NULL, 0, diags);
}

psoc_status psoc_check_known(const void *data, size_t size, const psoc_check_options *options,
                             const psoc_known_checksum *known, size_t known_count,
                             psoc_diags *diags) {
  psoc_walked walk;
  psoc_diags local;
  rule_ctx ctx_storage, *ctx;
  size_t errors_before, warnings_before;
  psoc_status status;
  uint32_t flags = options ? options->flags : 0, have;
  uint64_t classes, ignored;
  if (!diags) { /* still count errors when the caller wants only a verdict */
    psoc_diags_init(&local, NULL);
    status = psoc_check_known(data, size, options, known, known_count, &local);
    psoc_diags_free(&local);
    return status;
  }
  errors_before = diags->errors;
  warnings_before = diags->warnings;
  (void)psoc_walk_check_inline(data, size, &walk, diags); /* its problems are in diags */
  if (size == 0 || !data) return PSOC_ERR_INVALID;
  ctx = &ctx_storage; /* a few KB: the state and 8 containers, written only where used */
  ctx->walk = &walk;
  if (!options) { /* the default check: no profile, no pointers followed */
    ctx->has_profile = 0;
    ctx->profile = psoc_profile_unlimited();
    ctx->follow = 0;
    ctx->follow_layout = 0;
  } else {
    ctx->has_profile = options->profile != NULL;
    ctx->profile = ctx->has_profile ? options->profile : psoc_profile_unlimited();
    ctx->follow = (flags & PSOC_CHECK_FOLLOW_POINTERS) != 0;
    ctx->follow_layout = (flags & (PSOC_CHECK_FOLLOW_POINTERS | PSOC_CHECK_FOLLOW_LAYOUT)) != 0;
  }
  ctx->diags = diags;
  ctx->known = known;
  ctx->known_count = known_count;
  if (flags & PSOC_CHECK_STRUCTURE_ONLY) { /* the walk, duplicates and the kind */
    if (walk.complete) rule_kind(ctx);
    return verdict(diags, errors_before, warnings_before, flags);
  }
  classes = walk.classes;
  ignored = psoc_ignored_types(walk.kind);
  ctx->explicit_classes = classes & ~ignored;
  load_state(ctx);
  /* Which stages have bytecode is in the stream (psoc_rule_shader_present
  ** reads it on demand); the containers are read only when pointers are
  ** valid (FOLLOW_POINTERS). */
  ctx->shader_types = walk.kind == PSOC_KIND_NONE
                          ? 0
                          : walk.type_mask & PSOC_SHADER_TYPES & ~ignored;
  ctx->shaders_parsed = 0;
  if (walk.complete && (flags & PSOC_CHECK_FOLLOW_POINTERS)) {
    /* the rules that follow pointers run: what they read */
    load_follow_state(ctx);
    psoc_rules_load_shaders(ctx);
  }
  classes |= ANY_CLASS | ((walk.type_mask & ignored) ? IGNORED_PRESENT : 0);
  /* the NEEDS_* set from the flags' bits without a branch (walk.complete is 0 or 1) */
  have = (uint32_t)walk.complete | ((flags & PSOC_CHECK_FOLLOW_POINTERS) << 1) |
         ((flags & PSOC_CHECK_UNSCREENED_) >> 29);
  switch (((unsigned)walk.kind & 3u) * 8u + have) {
    RUN_KIND(NONE)
    RUN_KIND(GRAPHICS)
    RUN_KIND(COMPUTE)
    RUN_KIND(MESH)
  default: break;
  }
  return verdict(diags, errors_before, warnings_before, flags);
}

#undef RUN_KIND
#undef RUN_SET
#undef RUN_RULES
#undef CALL
#undef WALK
#undef B
#undef K
