/*
** rules.c: the checks that run over a parsed stream. One function per
** rule, listed in one table; each names what to change.
*/
#include <stdarg.h>

#include "rules_internal.h"

typedef struct rule {
  const char *name;
  int needs_complete_walk; /* skipped when the walk stopped early */
  rule_fn fn;
} rule;

#define MSG_CANNOT_DEDUCE "CREATEPIPELINESTATE_CANNOT_DEDUCE_TYPE"

static int has_code(const psoc_parsed *p, uint32_t type) {
  return p->has[type] && psoc_rdptr(p->views[type].payload) != 0;
}

/* Kind: exactly one of VS, CS, MS carries non-null bytecode. */
static void rule_kind(const rule_ctx *ctx) {
  static const uint32_t deciders[] = { PSOC_SO_VS, PSOC_SO_CS, PSOC_SO_MS };
  const psoc_parsed *p = ctx->parsed;
  char list[64] = "";
  size_t len = 0;
  unsigned n = 0, i, nulls = 0;
  for (i = 0; i < 3; i++) {
    uint32_t t = deciders[i];
    if (has_code(p, t)) {
      const char *name = psoc_subobject_info_get(t)->name;
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", n ? " and " : "", name);
      n++;
    } else if (p->has[t]) {
      nulls++;
    }
  }
  if (n == 1) return;
  if (n == 0)
    psoc_diags_add(ctx->diags, PSOC_SEVERITY_ERROR, PSOC_CODE_NO_SHADER, MSG_CANNOT_DEDUCE, -1, -1,
                   "", "cannot deduce the pipeline type: no VS, CS or MS subobject has non-null "
                   "bytecode%s; give VS (graphics), CS (compute) or MS (mesh) a shader",
                   nulls ? " (a shader subobject with null bytecode does not count)" : "");
  else
    psoc_diags_add(ctx->diags, PSOC_SEVERITY_ERROR, PSOC_CODE_AMBIGUOUS_KIND, MSG_CANNOT_DEDUCE,
                   -1, -1, "", "cannot deduce the pipeline type: %s all have non-null bytecode; "
                   "exactly one of VS, CS, MS may carry a shader, set the others' bytecode to "
                   "null or remove them", list);
}

/* Subobjects the deduced kind does not use are ignored by the runtime. */
static void rule_irrelevant(const rule_ctx *ctx) {
  const psoc_parsed *p = ctx->parsed;
  uint32_t t;
  if (p->kind == PSOC_KIND_NONE) return;
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_view *v = &p->views[t];
    if (!p->has[t] || (v->info->kinds & PSOC_KIND_BIT(p->kind))) continue;
    psoc_diags_add(ctx->diags, PSOC_SEVERITY_NOTE, PSOC_CODE_IRRELEVANT_SUBOBJECT, NULL,
                   (int32_t)v->index, (int64_t)v->offset, v->info->name,
                   "%s is ignored in a %s pipeline", v->info->name, psoc_kind_name(p->kind));
  }
}

static const rule rules[] = {
  { "kind", 1, rule_kind },
  { "irrelevant", 1, rule_irrelevant },
  { "stages", 1, psoc_rules_stages },
  { "topology", 1, psoc_rules_topology },
  { "stream_output", 1, psoc_rules_stream_output },
  { "blend", 1, psoc_rules_blend },
  { "render_targets", 1, psoc_rules_render_targets },
  { "rasterizer", 1, psoc_rules_rasterizer },
  { "depth_stencil", 1, psoc_rules_depth_stencil },
  { "sample", 1, psoc_rules_sample },
  { "misc", 1, psoc_rules_misc },
  { "input_layout", 1, psoc_rules_input_layout },
  { "shaders", 1, psoc_rules_shaders },
};

/* ---- helpers shared by the rule modules ----------------------------- */

void psoc_rule_diag(const rule_ctx *ctx, psoc_severity severity, psoc_code code,
                    const char *message_id, uint32_t cls, const char *field, const char *fmt, ...) {
  char message[PSOC_DIAG_MESSAGE_MAX];
  const psoc_view *view = cls < PSOC_SO_TYPE_COUNT ? psoc_parsed_class(ctx->parsed, cls) : NULL;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  psoc_diags_add(ctx->diags, severity, code, message_id, view ? (int32_t)view->index : -1,
                 view ? (int64_t)view->offset : -1, field, "%s", message);
}

int psoc_rule_has(const rule_ctx *ctx, uint32_t cls) {
  return ctx->resolved.origin[cls] == PSOC_ORIGIN_EXPLICIT;
}

const char *psoc_rule_enum_name(const psoc_enum *e, uint32_t value) {
  const psoc_enum_value *v = psoc_enum_value_by_value(e, value);
  return v ? v->name : "an invalid value";
}

int psoc_rule_is_draw(const rule_ctx *ctx) {
  return ctx->parsed->kind == PSOC_KIND_GRAPHICS || ctx->parsed->kind == PSOC_KIND_MESH;
}

psoc_status psoc_check(const void *data, size_t size, const psoc_check_options *options,
                       psoc_diags *diags) {
  psoc_parsed parsed;
  psoc_diags local;
  rule_ctx ctx_storage, *ctx;
  size_t i, errors_before;
  psoc_status status;
  if (!diags) { /* still count errors when the caller wants only a verdict */
    psoc_diags_init(&local, NULL);
    status = psoc_check(data, size, options, &local);
    psoc_diags_free(&local);
    return status;
  }
  errors_before = diags->errors;
  status = psoc_parse(data, size, &parsed, diags);
  if (status == PSOC_ERR_ARG) return status;
  if (size == 0 || !data) return PSOC_ERR_INVALID;
  ctx = &ctx_storage; /* a few KB: the resolved pipeline and 8 containers */
  memset(ctx, 0, sizeof *ctx);
  ctx->parsed = &parsed;
  ctx->options = options;
  ctx->profile = options && options->profile ? options->profile : psoc_profile_default();
  ctx->follow = options && (options->flags & PSOC_CHECK_FOLLOW_POINTERS);
  ctx->diags = diags;
  psoc_resolve(&parsed, &ctx->resolved);
  if (parsed.complete) psoc_rules_load_shaders(ctx);
  for (i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    if (rules[i].needs_complete_walk && !parsed.complete) continue;
    rules[i].fn(ctx);
  }
  return diags->errors > errors_before ? PSOC_ERR_INVALID : PSOC_OK;
}
