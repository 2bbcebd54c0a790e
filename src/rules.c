/*
** rules.c: the checks that run over a parsed stream. One function per
** rule, listed in one table; each names what to change. The table also
** says when a rule can have nothing to say (the pipeline kinds it judges,
** the subobject classes it reads), so psoc_check skips it with a mask test.
*/
#include <stdarg.h>

#include "rules_internal.h"

enum {
  NEEDS_COMPLETE_WALK = 1u << 0, /* skipped when the walk stopped early */
  NEEDS_FOLLOW = 1u << 1         /* only with PSOC_CHECK_FOLLOW_POINTERS */
};

/* In rule.classes: run whatever classes the stream holds (bit 63 is no type). */
#define ANY_CLASS PSOC_TYPE_BIT(63)

typedef struct rule {
  const char *name;
  uint8_t kinds;    /* PSOC_KIND_BIT()s it judges (PSOC_KIND_NONE is bit 0) */
  uint8_t needs;    /* NEEDS_* */
  uint64_t classes; /* runs only when one of these classes is present
                       (PSOC_TYPE_BIT of the class base type), or ANY_CLASS */
  rule_fn fn;
} rule;

#define MSG_CANNOT_DEDUCE "CREATEPIPELINESTATE_CANNOT_DEDUCE_TYPE"

/* Kind: exactly one of the deciding shaders (VS, CS, MS: the registry's
** PSOC_DECIDER_TYPES) carries non-null bytecode. */
static void rule_kind(const rule_ctx *ctx) {
  const psoc_parsed *p = ctx->parsed;
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
    } else if (p->has[t]) {
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
static void rule_irrelevant(const rule_ctx *ctx) {
  const psoc_parsed *p = ctx->parsed;
  uint64_t types = p->type_mask & psoc_ignored_types(p->kind);
  for (; types; types &= types - 1) { /* in type order */
    uint32_t t = psoc_lowest_bit(types);
    const psoc_view *v = &p->views[t];
    if ((PSOC_SHADER_TYPES & PSOC_TYPE_BIT(t)) && psoc_rdptr(v->payload) == 0) continue;
    psoc_diags_add(ctx->diags, PSOC_SEVERITY_NOTE, PSOC_CODE_IRRELEVANT_SUBOBJECT, NULL,
                   (int32_t)v->index, (int64_t)v->offset, v->info->name,
                   "%s is ignored in a %s pipeline", v->info->name, psoc_kind_name(p->kind));
  }
}

#define B(t) PSOC_TYPE_BIT(PSOC_SO_##t)
#define K(k) PSOC_KIND_BIT(PSOC_KIND_##k)
#define DRAW (K(GRAPHICS) | K(MESH))
#define ANY_KIND (K(NONE) | PSOC_KINDS_ALL)

/* Each rule's kinds and classes restate the early returns and presence
** tests of its function (a superset of where it can emit): a rule reading
** an absent class sees the runtime default, which those rules accept. */
#define WALK NEEDS_COMPLETE_WALK

static const rule rules[] = {
  { "kind", ANY_KIND, WALK, ANY_CLASS, rule_kind },
  { "irrelevant", PSOC_KINDS_ALL, WALK, ANY_CLASS, rule_irrelevant },
  { "stages", K(NONE) | DRAW, WALK, B(AS) | B(HS) | B(DS) | B(MS), psoc_rules_stages },
  { "topology", K(GRAPHICS), WALK, B(PRIMITIVE_TOPOLOGY) | B(IB_STRIP_CUT_VALUE) | B(HS),
    psoc_rules_topology },
  { "stream_output", K(GRAPHICS), WALK, B(STREAM_OUTPUT), psoc_rules_stream_output },
  { "blend", DRAW, WALK, B(BLEND), psoc_rules_blend },
  { "render_targets", DRAW, WALK, B(RENDER_TARGET_FORMATS) | B(DEPTH_STENCIL_FORMAT),
    psoc_rules_render_targets },
  { "rasterizer", DRAW, WALK, B(RASTERIZER), psoc_rules_rasterizer },
  { "depth_stencil", DRAW, WALK, B(DEPTH_STENCIL), psoc_rules_depth_stencil },
  { "sample", DRAW, WALK, B(SAMPLE_DESC) | B(RASTERIZER), psoc_rules_sample },
  { "misc", ANY_KIND, WALK, B(FLAGS) | B(NODE_MASK) | B(VIEW_INSTANCING) | B(CACHED_PSO),
    psoc_rules_misc },
  { "input_layout", K(GRAPHICS), WALK, B(INPUT_LAYOUT), psoc_rules_input_layout },
  { "shaders", PSOC_KINDS_ALL, WALK | NEEDS_FOLLOW, ANY_CLASS, psoc_rules_shaders },
  { "root_bindings", PSOC_KINDS_ALL, WALK | NEEDS_FOLLOW, ANY_CLASS, psoc_rules_root_bindings },
};

#undef WALK

#undef B
#undef K

/* ---- helpers shared by the rule modules ----------------------------- */

void psoc_rule_diag(const rule_ctx *ctx, psoc_severity severity, psoc_code code,
                    const char *message_id, uint32_t cls, const char *field, const char *fmt, ...) {
  const psoc_view *view = cls < PSOC_SO_TYPE_COUNT ? psoc_parsed_class(ctx->parsed, cls) : NULL;
  va_list ap;
  va_start(ap, fmt);
  psoc_diags_addv(ctx->diags, severity, code, message_id, view ? (int32_t)view->index : -1,
                  view ? (int64_t)view->offset : -1, field, fmt, ap);
  va_end(ap);
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

psoc_status psoc_check(const void *data, size_t size, const psoc_check_options *options,
                       psoc_diags *diags) {
  psoc_parsed parsed;
  psoc_diags local;
  rule_ctx ctx_storage, *ctx;
  size_t i, errors_before, warnings_before;
  psoc_status status;
  uint32_t flags = options ? options->flags : 0, kind_bit, have;
  uint64_t classes;
  if (!diags) { /* still count errors when the caller wants only a verdict */
    psoc_diags_init(&local, NULL);
    status = psoc_check(data, size, options, &local);
    psoc_diags_free(&local);
    return status;
  }
  errors_before = diags->errors;
  warnings_before = diags->warnings;
  status = psoc_parse(data, size, &parsed, diags);
  if (status == PSOC_ERR_ARG) return status;
  if (size == 0 || !data) return PSOC_ERR_INVALID;
  ctx = &ctx_storage; /* a few KB: the resolved pipeline and 8 containers */
  ctx->parsed = &parsed;
  ctx->options = options;
  ctx->has_profile = options && options->profile;
  ctx->profile = ctx->has_profile ? options->profile : psoc_profile_unlimited();
  ctx->follow = (flags & PSOC_CHECK_FOLLOW_POINTERS) != 0;
  ctx->follow_layout = (flags & (PSOC_CHECK_FOLLOW_POINTERS | PSOC_CHECK_FOLLOW_LAYOUT)) != 0;
  ctx->diags = diags;
  if (flags & PSOC_CHECK_STRUCTURE_ONLY) { /* the walk, duplicates and the kind */
    if (parsed.complete) rule_kind(ctx);
    return verdict(diags, errors_before, warnings_before, flags);
  }
  psoc_resolve(&parsed, &ctx->resolved);
  /* Which stages have bytecode is in the stream; the containers are read
  ** only when pointers are valid (FOLLOW_POINTERS). */
  memset(ctx->shaders, 0, sizeof ctx->shaders);
  if (parsed.complete) psoc_rules_load_shaders(ctx);
  kind_bit = (unsigned)parsed.kind < 4 ? PSOC_KIND_BIT(parsed.kind) : 0;
  classes = psoc_classes_of(parsed.type_mask) | ANY_CLASS;
  have = (parsed.complete ? NEEDS_COMPLETE_WALK : 0u) | (ctx->follow ? NEEDS_FOLLOW : 0u);
  for (i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    const rule *r = &rules[i];
    if ((r->kinds & kind_bit) && (r->classes & classes) && !(r->needs & ~have)) r->fn(ctx);
  }
  return verdict(diags, errors_before, warnings_before, flags);
}
