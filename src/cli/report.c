/*
** report.c: the one renderer of diagnostics for 'psoc check' in both of
** its modes (raw stream files, raw.c; material scripts, script.c): one
** text line format and one JSON object schema (docs/json.md).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "psoc.h"

void cli_type_map_build(cli_type_map *m, const void *data, size_t size) {
  psoc_walker walker;
  psoc_view view;
  memset(m, 0, sizeof *m);
  m->types = malloc((size / 8 + 1) * sizeof *m->types);
  if (!m->types) return;
  psoc_walk_init(&walker, data, size);
  while (psoc_walk_next(&walker, &view, NULL)) m->types[m->count++] = view.type;
  if (walker.done == 2 && size - walker.offset >= 4) {
    memcpy(&m->stop_type, (const unsigned char *)data + walker.offset, sizeof m->stop_type);
    m->stop_readable = 1;
  }
}

void cli_type_map_free(cli_type_map *m) {
  free(m->types);
  memset(m, 0, sizeof *m);
}

void cli_type_label(const cli_type_map *m, int32_t index, char *buf, size_t n) {
  const psoc_subobject_info *info;
  uint32_t type;
  buf[0] = '\0';
  if (!m || index < 0 || !m->types) return;
  if ((size_t)index < m->count) type = m->types[index];
  else if ((size_t)index == m->count && m->stop_readable) type = m->stop_type;
  else return;
  info = psoc_subobject_info_get(type);
  if (info) snprintf(buf, n, "%s", info->name);
  else snprintf(buf, n, "type %u", type);
}

void cli_diag_view_of(cli_diag_view *v, const psoc_diag *d, const char *type, char *id,
                      size_t id_size) {
  v->severity = psoc_severity_name(d->severity);
  v->code = psoc_code_name(d->code);
  v->message_id = NULL;
  if (d->message_id) {
    snprintf(id, id_size, "D3D12_MESSAGE_ID_%s", d->message_id);
    v->message_id = id;
  }
  v->subobject = d->subobject;
  v->type = type && type[0] ? type : NULL;
  v->offset = d->offset;
  v->field = d->field;
  v->message = d->message;
}

static void json_string_or_null(FILE *out, const char *key, const char *s) {
  fprintf(out, ",\"%s\":", key);
  if (s) cli_json_string(out, s);
  else fputs("null", out);
}

static void json_int_or_null(FILE *out, const char *key, long long v) {
  if (v >= 0) fprintf(out, ",\"%s\":%lld", key, v);
  else fprintf(out, ",\"%s\":null", key);
}

void cli_diag_json(FILE *out, const cli_diag_view *v, int first) {
  fprintf(out, "%s{\"severity\":", first ? "" : ",");
  cli_json_string(out, v->severity);
  json_string_or_null(out, "code", v->code);
  json_string_or_null(out, "message_id", v->message_id);
  json_int_or_null(out, "subobject", v->subobject);
  json_string_or_null(out, "type", v->type);
  json_int_or_null(out, "offset", v->offset);
  json_string_or_null(out, "field", v->field ? v->field : "");
  json_string_or_null(out, "message", v->message ? v->message : "");
  fputs("}", out);
}

void cli_diag_text(FILE *out, const char *where, long long at_offset,
                   const char *const *context, const cli_diag_view *v) {
  cli_text(out, where);
  if (at_offset >= 0) fprintf(out, ":@%lld", at_offset);
  fprintf(out, ": %s: ", v->severity);
  for (; context && *context; context++) cli_text(out, *context);
  cli_text(out, v->message);
  fprintf(out, " [%s", v->code);
  if (v->message_id) fprintf(out, " / %s", v->message_id);
  fputs("]\n", out);
}
