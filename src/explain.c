/*
** explain.c: a stream's effective state as the material language spells
** it, generic over the registry: the rows of psoc_explain, the changed
** fields of psoc_diff_*, and the JSON object of psoc_json (psoc.h,
** docs/json.md). 'psoc explain', 'psoc diff' and 'psoc dump --json' print
** these; the pso module's p:explain() adds where each value was declared.
**
** One visitor walks a payload the way the language spells it: a payload
** of one field (besides counts) is that field under the class key; render
** target formats are a list when nothing is lost; lists count from 1;
** D3D12_APPEND_ALIGNED_ELEMENT is "append_aligned". Pointers are followed
** only with PSOC_FOLLOW_POINTERS. The library never prints: text goes into
** caller-owned blocks or through the caller's write function.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "visit.h"
#include "xxh.h"

#define APPEND_ALIGNED 0xffffffffu
#define PATH_CAP 256  /* a row's path, truncated beyond (as the bindings do) */
#define TEXT_CAP 256  /* a value's text */
#define DEPTH_CAP 24  /* nesting tracked for paths and JSON */

#define HIDDEN_DEPTH                                                                         \
  "hidden default: depth testing is off because neither a depth-stencil state nor a depth " \
  "format is given"
#define HIDDEN_TOPOLOGY \
  "hidden default: a graphics pipeline without a topology draws triangles (not undefined)"

/* ---- reading payload bytes ------------------------------------------ */

static uint64_t read_uint(const unsigned char *p, unsigned size) {
  switch (size) {
  case 1: return p[0];
  case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
  case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
  default: { uint64_t v; memcpy(&v, p, 8); return v; }
  }
}

static const unsigned char *read_ptr(const unsigned char *p) {
  const unsigned char *v;
  memcpy(&v, p, sizeof v);
  return v;
}

static int64_t sign_extend(uint64_t v, unsigned size) {
  if (size < 8 && (v & ((uint64_t)1 << (size * 8 - 1)))) v |= ~(((uint64_t)1 << (size * 8)) - 1);
  return (int64_t)v;
}

/* The element count (or byte size) of an ARRAY/BLOB field: visit.h. */
size_t psoc_visit_count_of(const psoc_struct *s, const psoc_field *f, const unsigned char *base) {
  uint32_t i;
  unsigned size = f->kind == PSOC_FIELD_BLOB ? (unsigned)sizeof(SIZE_T) : 4u;
  for (i = 0; i < s->field_count; i++)
    if (s->fields[i].kind == PSOC_FIELD_COUNT && s->fields[i].offset == f->count_offset) {
      size = s->fields[i].size;
      break;
    }
  return (size_t)read_uint(base + f->count_offset, size);
}

/* Index of the only field besides COUNT fields, or -1: visit.h. */
int psoc_visit_single_field(const psoc_struct *s) {
  int idx = -1;
  uint32_t i;
  for (i = 0; i < s->field_count; i++) {
    if (s->fields[i].kind == PSOC_FIELD_COUNT) continue;
    if (idx >= 0) return -1;
    idx = (int)i;
  }
  return idx;
}

/* ---- the visitor ----------------------------------------------------- */

static void visit_struct(psoc_vis *v, const psoc_struct *s, const unsigned char *p, int off,
                         int pinned);

static void leaf_scalar(psoc_vis *v, const char *key, int index, uint8_t kind, unsigned size,
                        const psoc_enum *e, const unsigned char *p, int off) {
  psoc_vval val;
  memset(&val, 0, sizeof val);
  val.kind = kind;
  val.size = (uint8_t)size;
  val.e = e;
  val.p = p;
  val.off = off;
  v->leaf(v, key, index, &val);
}

/* One field of the struct at 'base'; off: the payload offset of base (or,
** when pinned inside an out-of-line array, the offset every leaf gives). */
static void visit_field(psoc_vis *v, const psoc_struct *s, const psoc_field *f, const char *key,
                        int index, const unsigned char *base, int off, int pinned) {
  int foff = pinned ? off : off + (int)f->offset;
  size_t k, n;
  psoc_vval val;
  memset(&val, 0, sizeof val);
  val.off = foff;
  val.followed = (uint8_t)v->follow;
  switch (f->kind) {
  case PSOC_FIELD_COUNT: return;
  case PSOC_FIELD_STRUCT:
    v->open(v, key, index, 0);
    visit_struct(v, f->element, base + f->offset, foff, pinned);
    v->close(v, 0);
    return;
  case PSOC_FIELD_FIXED:
    n = f->count;
    if (f->element && v->fixed_limit > 0 && n > (size_t)v->fixed_limit) n = (size_t)v->fixed_limit;
    v->open(v, key, index, 1);
    for (k = 0; k < n; k++) {
      const unsigned char *e = base + f->offset + k * f->stride;
      int eoff = pinned ? off : foff + (int)(k * f->stride);
      if (f->element) {
        v->open(v, NULL, (int)k + 1, 0);
        visit_struct(v, f->element, e, eoff, pinned);
        v->close(v, 0);
      } else {
        leaf_scalar(v, NULL, (int)k + 1, f->element_kind, f->size, f->enumeration, e, eoff);
      }
    }
    v->close(v, 1);
    return;
  case PSOC_FIELD_ARRAY: {
    const unsigned char *p = read_ptr(base + f->offset);
    n = p ? psoc_visit_count_of(s, f, base) : 0;
    if (!v->follow) { /* the elements live outside the stream's bytes */
      val.kind = PSOC_FIELD_ARRAY;
      val.count = n;
      v->leaf(v, key, index, &val);
      return;
    }
    v->open(v, key, index, 1);
    for (k = 0; k < n; k++) {
      const unsigned char *e = p + k * f->stride;
      if (f->element) {
        v->open(v, NULL, (int)k + 1, 0);
        visit_struct(v, f->element, e, foff, 1);
        v->close(v, 0);
      } else {
        leaf_scalar(v, NULL, (int)k + 1, f->element_kind, f->stride, f->enumeration, e, foff);
      }
    }
    v->close(v, 1);
    return;
  }
  case PSOC_FIELD_BLOB:
    val.kind = PSOC_FIELD_BLOB;
    val.blob = read_ptr(base + f->offset);
    val.count = val.blob ? psoc_visit_count_of(s, f, base) : 0;
    val.is_shader = (uint8_t)(strcmp(f->key, "code") == 0);
    v->leaf(v, key, index, &val);
    return;
  case PSOC_FIELD_STRING:
    val.kind = PSOC_FIELD_STRING;
    val.str = (const char *)read_ptr(base + f->offset);
    v->leaf(v, key, index, &val);
    return;
  case PSOC_FIELD_OBJECT:
    val.kind = PSOC_FIELD_OBJECT;
    val.ptr = read_ptr(base + f->offset);
    v->leaf(v, key, index, &val);
    return;
  default:
    if (f->kind == PSOC_FIELD_UINT && f->size == 4 &&
        read_uint(base + f->offset, 4) == APPEND_ALIGNED &&
        strcmp(f->name, "AlignedByteOffset") == 0) {
      val.kind = PSOC_FIELD_UINT; /* D3D12_APPEND_ALIGNED_ELEMENT: a name */
      val.size = 4;
      val.p = base + f->offset;
      val.append_aligned = 1;
      v->leaf(v, key, index, &val);
      return;
    }
    leaf_scalar(v, key, index, f->kind, f->size, f->enumeration, base + f->offset, foff);
    return;
  }
}

static void visit_struct(psoc_vis *v, const psoc_struct *s, const unsigned char *p, int off,
                         int pinned) {
  uint32_t i;
  for (i = 0; i < s->field_count; i++)
    visit_field(v, s, &s->fields[i], s->fields[i].key, 0, p, off, pinned);
}

/* Render-target formats read as a list when nothing is lost. */
static int rtf_as_list(const psoc_struct *s, const unsigned char *payload,
                       const psoc_field **ff_out, size_t *count_out) {
  const psoc_field *ff = NULL, *cf = NULL;
  size_t k, count;
  uint32_t i;
  for (i = 0; i < s->field_count; i++) {
    if (s->fields[i].kind == PSOC_FIELD_FIXED) ff = &s->fields[i];
    if (s->fields[i].kind == PSOC_FIELD_UINT) cf = &s->fields[i];
  }
  if (!ff || !cf) return 0;
  count = (size_t)read_uint(payload + cf->offset, cf->size);
  if (count > ff->count) return 0;
  for (k = count; k < ff->count; k++)
    if (read_uint(payload + ff->offset + k * ff->stride, ff->size) != 0) return 0;
  *ff_out = ff;
  *count_out = count;
  return 1;
}

/* Visit the payload of 'type' under 'key' (the class key): visit.h. */
void psoc_visit_class(psoc_vis *v, const char *key, uint32_t type, const unsigned char *payload) {
  const psoc_subobject_info *info = psoc_subobject_info_get(type);
  const psoc_struct *s;
  const psoc_field *ff;
  size_t count, k;
  int single;
  if (!info) return;
  s = info->payload;
  single = psoc_visit_single_field(s);
  if (single >= 0) {
    visit_field(v, s, &s->fields[single], key, 0, payload, 0, 0);
    return;
  }
  if (type == PSOC_SO_RENDER_TARGET_FORMATS && rtf_as_list(s, payload, &ff, &count)) {
    v->open(v, key, 0, 1);
    for (k = 0; k < count; k++)
      leaf_scalar(v, NULL, (int)k + 1, ff->element_kind, ff->size, ff->enumeration,
                  payload + ff->offset + k * ff->stride, (int)(ff->offset + k * ff->stride));
    v->close(v, 1);
    return;
  }
  v->open(v, key, 0, 0);
  visit_struct(v, s, payload, 0, 0);
  v->close(v, 0);
}

/* ---- values as text --------------------------------------------------- */

/* The shortest decimal that reads back as the same float. */
static void float_text(float f, char *out, size_t n) {
  char buf[48];
  int prec;
  double d = (double)f;
  if (!isfinite(d)) {
    snprintf(out, n, "%s", isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
    return;
  }
  for (prec = 1; prec <= 9; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, d);
    if ((float)strtod(buf, NULL) == f) break;
  }
  if (prec > 9) snprintf(buf, sizeof buf, "%.9g", d);
  snprintf(out, n, "%s", buf);
}

/* Flags as keys joined with '|', unknown bits as hex (visit.h). */
int psoc_visit_flags_text(const psoc_enum *e, uint64_t v, char *out, size_t n) {
  const psoc_enum_value *ev = psoc_enum_value_by_value(e, (uint32_t)v);
  uint64_t rest = v;
  size_t len = 0;
  uint32_t i;
  out[0] = '\0';
  if (ev && v <= 0xffffffffu) {
    snprintf(out, n, "%s", ev->key);
    return 1;
  }
  if (v == 0) {
    snprintf(out, n, "0");
    return 0;
  }
  for (i = 0; i < e->count; i++) {
    uint32_t b = e->values[i].value;
    if (b == 0 || (b & (b - 1)) != 0 || !(rest & b)) continue;
    if (len < n) len += (size_t)snprintf(out + len, n - len, "%s%s", len ? "|" : "", e->values[i].key);
    rest &= ~(uint64_t)b;
  }
  if (rest) {
    if (len < n) snprintf(out + len, n - len, "%s0x%llx", len ? "|" : "", (unsigned long long)rest);
    return 0;
  }
  return 1;
}

/* The text of a leaf; returns out (visit.h). */
const char *psoc_visit_leaf_text(const psoc_vval *val, const char *rs_name, char *out, size_t n) {
  uint64_t u;
  out[0] = '\0';
  switch (val->kind) {
  case PSOC_FIELD_UINT:
  case PSOC_FIELD_COUNT:
    if (val->append_aligned) snprintf(out, n, "append_aligned");
    else snprintf(out, n, "%llu", (unsigned long long)read_uint(val->p, val->size));
    break;
  case PSOC_FIELD_INT:
    snprintf(out, n, "%lld", (long long)sign_extend(read_uint(val->p, val->size), val->size));
    break;
  case PSOC_FIELD_BOOL: snprintf(out, n, "%s", read_uint(val->p, val->size) ? "true" : "false"); break;
  case PSOC_FIELD_FLOAT: {
    float f;
    memcpy(&f, val->p, sizeof f);
    float_text(f, out, n);
    break;
  }
  case PSOC_FIELD_ENUM: {
    const psoc_enum_value *ev;
    u = read_uint(val->p, val->size);
    ev = psoc_enum_value_by_value(val->e, (uint32_t)u);
    if (ev) snprintf(out, n, "%s", ev->key);
    else snprintf(out, n, "%llu", (unsigned long long)u);
    break;
  }
  case PSOC_FIELD_FLAGS: psoc_visit_flags_text(val->e, read_uint(val->p, val->size), out, n); break;
  case PSOC_FIELD_BLOB:
    if (!val->blob) snprintf(out, n, "null");
    else if (!val->followed)
      snprintf(out, n, "%s, %zu bytes", val->is_shader ? "shader" : "blob", val->count);
    else
      snprintf(out, n, "%s, %zu bytes, xxh3 %016llx", val->is_shader ? "shader" : "blob",
               val->count, (unsigned long long)psoc_xxh3(val->blob, val->count));
    break;
  case PSOC_FIELD_STRING:
    if (!val->str) snprintf(out, n, "null");
    else snprintf(out, n, "%s", val->followed ? val->str : "set");
    break;
  case PSOC_FIELD_OBJECT:
    if (rs_name) snprintf(out, n, "%s", rs_name);
    else if (val->ptr) snprintf(out, n, "%p", val->ptr);
    else snprintf(out, n, "null");
    break;
  case PSOC_FIELD_ARRAY:
    snprintf(out, n, "%zu element%s, not followed", val->count, val->count == 1 ? "" : "s");
    break;
  default: break;
  }
  return out;
}

/* ---- the effective state of a stream ---------------------------------- */

typedef union payload_buf {
  unsigned char b[512];
  void *align_p;
  double align_d;
  uint64_t align_u;
} payload_buf;

typedef struct effective {
  psoc_parsed parsed;
  psoc_resolved resolved;
} effective;

static psoc_status effective_init(effective *st, const void *data, size_t size) {
  if (psoc_parse(data, size, &st->parsed, NULL) != PSOC_OK) return PSOC_ERR_INVALID;
  return psoc_resolve(&st->parsed, &st->resolved) == PSOC_OK ? PSOC_OK : PSOC_ERR_INVALID;
}

static const psoc_field *field_by_key(const psoc_struct *s, const char *key) {
  uint32_t i;
  for (i = 0; i < s->field_count; i++)
    if (strcmp(s->fields[i].key, key) == 0) return &s->fields[i];
  return NULL;
}

/* A class the kind uses, its base type: the ones the state lists. */
static int listed_class(const effective *st, uint32_t cls) {
  const psoc_subobject_info *info = psoc_subobject_info_get(cls);
  return info && info->dup_class == cls && info->payload->size <= sizeof(payload_buf) &&
         (info->kinds & PSOC_KIND_BIT(st->parsed.kind)) != 0;
}

/* The payload of a class in effect (visit.h): the stream's, or the runtime
** default with its hidden defaults applied. Returns the type. */
uint32_t psoc_visit_effective_payload(const psoc_parsed *parsed, const psoc_resolved *resolved,
                                      uint32_t cls, unsigned char *buf, int *present) {
  const psoc_view *view = psoc_parsed_class(parsed, cls);
  const psoc_subobject_info *info;
  if (view) {
    memcpy(buf, view->payload, view->info->payload->size);
    *present = 1;
    return view->type;
  }
  *present = 0;
  info = psoc_subobject_info_get(cls);
  memcpy(buf, info->default_payload, info->payload->size);
  if (cls == PSOC_SO_DEPTH_STENCIL && resolved->depth_enable_origin == PSOC_ORIGIN_HIDDEN_DEFAULT) {
    const psoc_field *f = field_by_key(info->payload, "depth");
    if (f) memset(buf + f->offset, 0, f->size);
  }
  return cls;
}

static uint32_t class_payload(const effective *st, uint32_t cls, payload_buf *buf, int *present) {
  return psoc_visit_effective_payload(&st->parsed, &st->resolved, cls, buf->b, present);
}

static int class_versions(uint32_t cls) {
  uint32_t t;
  int n = 0;
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *i = psoc_subobject_info_get(t);
    if (i && i->dup_class == cls) n++;
  }
  return n;
}

/* ---- explain rows ----------------------------------------------------- */

typedef struct row_build {
  psoc_vis v;
  const char *rs_name;
  char path[PATH_CAP];
  size_t plen[DEPTH_CAP + 1];
  int depth;
  /* the class being visited */
  uint32_t cls, type;
  uint8_t origin;
  int hidden_off;
  const char *hidden_note;
  /* rows, their strings as offsets into 'pool' until the end */
  psoc_explain_row *rows;
  size_t count, cap;
  size_t *spans; /* per row: path offset, value offset */
  char *pool;
  size_t pool_len, pool_cap;
  psoc_allocator alloc;
  int failed;
} row_build;

static void path_push(row_build *b, const char *key, int index) {
  size_t len = b->depth <= DEPTH_CAP ? b->plen[b->depth] : strlen(b->path);
  int w;
  if (key) w = snprintf(b->path + len, PATH_CAP - len, "%s%s", len ? "." : "", key);
  else w = snprintf(b->path + len, PATH_CAP - len, "[%d]", index);
  if (w > 0) len += (size_t)w;
  if (len >= PATH_CAP) len = PATH_CAP - 1;
  b->depth++;
  if (b->depth <= DEPTH_CAP) b->plen[b->depth] = len;
}

static void path_pop(row_build *b) {
  b->depth--;
  if (b->depth <= DEPTH_CAP) b->path[b->plen[b->depth]] = '\0';
}

static size_t pool_add(row_build *b, const char *s) {
  size_t n = strlen(s) + 1, at = b->pool_len;
  if (n > b->pool_cap - b->pool_len) {
    size_t cap = b->pool_cap ? b->pool_cap : 4096;
    char *p;
    while (cap - b->pool_len < n) cap *= 2;
    p = psoc_mem(&b->alloc, b->pool, b->pool_cap, cap);
    if (!p) {
      b->failed = 1;
      return 0;
    }
    b->pool = p;
    b->pool_cap = cap;
  }
  memcpy(b->pool + at, s, n);
  b->pool_len += n;
  return at;
}

static void add_row(row_build *b, const char *path, const char *value, uint8_t what,
                    uint8_t field_kind, int offset) {
  psoc_explain_row *r;
  if (b->failed) return;
  if (b->count == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 128;
    psoc_explain_row *rows = psoc_mem(&b->alloc, b->rows, b->cap * sizeof *rows, cap * sizeof *rows);
    size_t *spans;
    if (!rows) {
      b->failed = 1;
      return;
    }
    b->rows = rows;
    spans = psoc_mem(&b->alloc, b->spans, b->cap * 2 * sizeof *spans, cap * 2 * sizeof *spans);
    if (!spans) {
      b->failed = 1;
      return;
    }
    b->spans = spans;
    b->cap = cap;
  }
  b->spans[2 * b->count] = pool_add(b, path);
  b->spans[2 * b->count + 1] = pool_add(b, value);
  if (b->failed) return;
  r = &b->rows[b->count++];
  memset(r, 0, sizeof *r);
  r->dup_class = b->cls;
  r->type = b->type;
  r->origin = b->origin;
  r->what = what;
  r->field_kind = field_kind;
  r->offset = offset;
  if (what == PSOC_EXPLAIN_FIELD && b->hidden_note && offset == b->hidden_off) {
    r->origin = PSOC_ORIGIN_HIDDEN_DEFAULT;
    r->note = b->hidden_note;
  }
}

static void rows_open(psoc_vis *v, const char *key, int index, int is_list) {
  (void)is_list;
  path_push((row_build *)v, key, index);
}

static void rows_close(psoc_vis *v, int is_list) {
  (void)is_list;
  path_pop((row_build *)v);
}

static void rows_leaf(psoc_vis *v, const char *key, int index, const psoc_vval *val) {
  row_build *b = (row_build *)v;
  char text[TEXT_CAP];
  path_push(b, key, index);
  add_row(b, b->path, psoc_visit_leaf_text(val, b->rs_name, text, sizeof text),
          PSOC_EXPLAIN_FIELD, val->kind, val->off);
  path_pop(b);
}

static void build_free(row_build *b) {
  psoc_mem(&b->alloc, b->rows, b->cap * sizeof *b->rows, 0);
  psoc_mem(&b->alloc, b->spans, b->cap * 2 * sizeof *b->spans, 0);
  psoc_mem(&b->alloc, b->pool, b->pool_cap, 0);
}

psoc_status psoc_explain(const void *data, size_t size, const psoc_explain_options *options,
                         const psoc_allocator *alloc, psoc_explanation *out) {
  effective st;
  row_build b;
  uint32_t cls, nrt;
  size_t i, rows_bytes;
  unsigned char *block;
  psoc_status status;
  if (!out || !options) return PSOC_ERR_ARG;
  memset(out, 0, sizeof *out);
  if ((status = effective_init(&st, data, size)) != PSOC_OK) return status;
  memset(&b, 0, sizeof b);
  b.alloc = psoc_alloc_or_default(alloc);
  b.v.open = rows_open;
  b.v.close = rows_close;
  b.v.leaf = rows_leaf;
  b.v.follow = (options->flags & PSOC_FOLLOW_POINTERS) != 0;
  b.rs_name = options->root_signature_name;
  nrt = st.resolved.render_targets.NumRenderTargets;
  b.v.fixed_limit = nrt > 1 ? (int)nrt : 1;
  for (cls = 0; cls < PSOC_SO_TYPE_COUNT && !b.failed; cls++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(cls);
    payload_buf buf;
    int present;
    if (!listed_class(&st, cls)) continue;
    b.cls = cls;
    b.type = class_payload(&st, cls, &buf, &present);
    b.origin = present ? PSOC_ORIGIN_EXPLICIT : PSOC_ORIGIN_DEFAULT;
    b.hidden_note = NULL;
    b.hidden_off = -1;
    if (present && class_versions(cls) > 1)
      add_row(&b, info->key, psoc_subobject_info_get(b.type)->key, PSOC_EXPLAIN_VERSION, 0, -1);
    if (!present && cls == PSOC_SO_DEPTH_STENCIL &&
        st.resolved.depth_enable_origin == PSOC_ORIGIN_HIDDEN_DEFAULT) {
      const psoc_field *df = field_by_key(info->payload, "depth");
      b.hidden_note = HIDDEN_DEPTH;
      b.hidden_off = df ? (int)df->offset : -1;
    }
    if (!present && cls == PSOC_SO_PRIMITIVE_TOPOLOGY &&
        st.resolved.topology_origin == PSOC_ORIGIN_HIDDEN_DEFAULT) {
      b.hidden_note = HIDDEN_TOPOLOGY;
      b.hidden_off = 0;
    }
    b.depth = 0;
    b.plen[0] = 0;
    b.path[0] = '\0';
    psoc_visit_class(&b.v, info->key, b.type, buf.b);
  }
  /* one block: the rows, then their strings */
  rows_bytes = b.count * sizeof(psoc_explain_row);
  block = b.failed ? NULL : psoc_mem(&b.alloc, NULL, 0, rows_bytes + b.pool_len + 1);
  if (!block) {
    build_free(&b);
    return PSOC_ERR_NOMEM;
  }
  if (b.count) memcpy(block, b.rows, rows_bytes);
  if (b.pool_len) memcpy(block + rows_bytes, b.pool, b.pool_len);
  out->rows = (psoc_explain_row *)(void *)block;
  for (i = 0; i < b.count; i++) {
    out->rows[i].path = (const char *)block + rows_bytes + b.spans[2 * i];
    out->rows[i].value = (const char *)block + rows_bytes + b.spans[2 * i + 1];
  }
  out->count = b.count;
  out->kind = st.parsed.kind;
  out->subobjects = st.parsed.count;
  out->render_targets = nrt;
  out->alloc_ = b.alloc;
  out->block_ = block;
  out->block_size_ = rows_bytes + b.pool_len + 1;
  build_free(&b);
  return PSOC_OK;
}

void psoc_explain_free(psoc_explanation *explain) {
  if (!explain) return;
  if (explain->block_) psoc_mem(&explain->alloc_, explain->block_, explain->block_size_, 0);
  memset(explain, 0, sizeof *explain);
}

/* ---- diff ------------------------------------------------------------- */

static int cmp_row_path(const void *x, const void *y) {
  const psoc_explain_row *a = *(const psoc_explain_row *const *)x;
  const psoc_explain_row *b = *(const psoc_explain_row *const *)y;
  int c = strcmp(a->path, b->path);
  if (c) return c;
  return a < b ? -1 : a > b; /* the first of equal paths wins */
}

/* The first row of 'path' among 'sorted' (n rows sorted by path), or NULL. */
static const psoc_explain_row *find_path(const psoc_explain_row *const *sorted, size_t n,
                                         const char *path) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(sorted[mid]->path, path) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && strcmp(sorted[lo]->path, path) == 0 ? sorted[lo] : NULL;
}

static const psoc_explain_row **sorted_rows(const psoc_explanation *e, psoc_allocator *a) {
  const psoc_explain_row **s = psoc_mem(a, NULL, 0, (e->count ? e->count : 1) * sizeof *s);
  size_t i;
  if (!s) return NULL;
  for (i = 0; i < e->count; i++) s[i] = &e->rows[i];
  if (e->count > 1) qsort((void *)s, e->count, sizeof *s, cmp_row_path);
  return s;
}

psoc_status psoc_diff_explains(const psoc_explanation *a, const psoc_explanation *b,
                               const psoc_allocator *alloc, psoc_diff *out) {
  psoc_allocator al;
  const psoc_explain_row **sa, **sb;
  psoc_diff_row *rows;
  size_t i, n = 0, cap;
  if (!out || !a || !b) return PSOC_ERR_ARG;
  memset(out, 0, sizeof *out);
  al = psoc_alloc_or_default(alloc);
  /* at most every row of both sides and the kind: strings stay in a and b */
  cap = a->count + b->count + 1;
  sa = sorted_rows(a, &al);
  sb = sorted_rows(b, &al);
  rows = psoc_mem(&al, NULL, 0, cap * sizeof *rows);
  if (!sa || !sb || !rows) {
    psoc_mem(&al, (void *)sa, (a->count ? a->count : 1) * sizeof *sa, 0);
    psoc_mem(&al, (void *)sb, (b->count ? b->count : 1) * sizeof *sb, 0);
    psoc_mem(&al, rows, cap * sizeof *rows, 0);
    return PSOC_ERR_NOMEM;
  }
  if (a->kind != b->kind) {
    rows[n].path = "kind";
    rows[n].a = psoc_kind_name(a->kind);
    rows[n].b = psoc_kind_name(b->kind);
    n++;
  }
  for (i = 0; i < a->count; i++) {
    const psoc_explain_row *rb = find_path(sb, b->count, a->rows[i].path);
    if (!rb || strcmp(rb->value, a->rows[i].value) != 0) {
      rows[n].path = a->rows[i].path;
      rows[n].a = a->rows[i].value;
      rows[n].b = rb ? rb->value : NULL;
      n++;
    }
  }
  for (i = 0; i < b->count; i++)
    if (!find_path(sa, a->count, b->rows[i].path)) {
      rows[n].path = b->rows[i].path;
      rows[n].a = NULL;
      rows[n].b = b->rows[i].value;
      n++;
    }
  psoc_mem(&al, (void *)sa, (a->count ? a->count : 1) * sizeof *sa, 0);
  psoc_mem(&al, (void *)sb, (b->count ? b->count : 1) * sizeof *sb, 0);
  out->rows = rows;
  out->count = n;
  out->alloc_ = al;
  out->block_ = rows;
  out->block_size_ = cap * sizeof *rows;
  return PSOC_OK;
}

/* The strings of the rows point into the explains: copy them into the
** diff's own block so that it outlives them. */
static psoc_status diff_own(psoc_diff *d) {
  size_t i, bytes = d->count * sizeof *d->rows, len = 0;
  unsigned char *block;
  char *s;
  for (i = 0; i < d->count; i++) {
    len += strlen(d->rows[i].path) + 1;
    if (d->rows[i].a) len += strlen(d->rows[i].a) + 1;
    if (d->rows[i].b) len += strlen(d->rows[i].b) + 1;
  }
  block = psoc_mem(&d->alloc_, NULL, 0, bytes + len + 1);
  if (!block) return PSOC_ERR_NOMEM;
  if (bytes) memcpy(block, d->rows, bytes);
  s = (char *)block + bytes;
#define DIFF_COPY_(field)                      \
  if (r->field) {                              \
    size_t n_ = strlen(r->field) + 1;          \
    memcpy(s, r->field, n_);                   \
    r->field = s;                              \
    s += n_;                                   \
  }
  for (i = 0; i < d->count; i++) {
    psoc_diff_row *r = &((psoc_diff_row *)(void *)block)[i];
    DIFF_COPY_(path)
    DIFF_COPY_(a)
    DIFF_COPY_(b)
  }
#undef DIFF_COPY_
  psoc_mem(&d->alloc_, d->block_, d->block_size_, 0);
  d->rows = (psoc_diff_row *)(void *)block;
  d->block_ = block;
  d->block_size_ = bytes + len + 1;
  return PSOC_OK;
}

psoc_status psoc_diff_streams(const void *a, size_t a_size, const psoc_explain_options *a_options,
                              const void *b, size_t b_size, const psoc_explain_options *b_options,
                              const psoc_allocator *alloc, psoc_diff *out) {
  psoc_explain_options none;
  psoc_explanation ea, eb;
  psoc_status status;
  if (!out) return PSOC_ERR_ARG;
  memset(out, 0, sizeof *out);
  memset(&none, 0, sizeof none);
  if ((status = psoc_explain(a, a_size, a_options ? a_options : &none, alloc, &ea)) != PSOC_OK)
    return status;
  if ((status = psoc_explain(b, b_size, b_options ? b_options : &none, alloc, &eb)) != PSOC_OK) {
    psoc_explain_free(&ea);
    return status;
  }
  status = psoc_diff_explains(&ea, &eb, alloc, out);
  if (status == PSOC_OK && (status = diff_own(out)) != PSOC_OK) psoc_diff_free(out);
  psoc_explain_free(&ea);
  psoc_explain_free(&eb);
  return status;
}

void psoc_diff_free(psoc_diff *diff) {
  if (!diff) return;
  if (diff->block_) psoc_mem(&diff->alloc_, diff->block_, diff->block_size_, 0);
  memset(diff, 0, sizeof *diff);
}

/* ---- JSON ------------------------------------------------------------- */

typedef struct json_out {
  psoc_vis v;
  psoc_write_fn write;
  void *ud;
  const char *rs_name;
  char buf[1024]; /* written through in pieces: psoc_json allocates nothing */
  size_t len;
  int failed;
  int depth;
  uint8_t first[DEPTH_CAP + 2];
  uint8_t list[DEPTH_CAP + 2];
} json_out;

static void j_flush(json_out *j) {
  if (j->len && !j->failed && j->write(j->ud, j->buf, j->len) != 0) j->failed = 1;
  j->len = 0;
}

static void j_put(json_out *j, const char *s, size_t n) {
  while (n && !j->failed) {
    size_t room = sizeof j->buf - j->len, k = n < room ? n : room;
    memcpy(j->buf + j->len, s, k);
    j->len += k;
    s += k;
    n -= k;
    if (j->len == sizeof j->buf) j_flush(j);
  }
}

static void j_puts(json_out *j, const char *s) { j_put(j, s, strlen(s)); }

/* Length of the well-formed UTF-8 sequence at s (1-4), or 0: a stray
** continuation byte, a truncated sequence, an overlong form, a surrogate or
** a code point past U+10FFFF. */
static size_t utf8_sequence(const unsigned char *s) {
  unsigned c = s[0], lo = 0x80, hi = 0xbf;
  size_t n, i;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c >= 0xe0 && c <= 0xef) n = 3;
  else if (c >= 0xf0 && c <= 0xf4) n = 4;
  else return 0;
  if (c == 0xe0) lo = 0xa0;
  else if (c == 0xed) hi = 0x9f;
  else if (c == 0xf0) lo = 0x90;
  else if (c == 0xf4) hi = 0x8f;
  if (s[1] < lo || s[1] > hi) return 0;
  for (i = 2; i < n; i++)
    if (s[i] < 0x80 || s[i] > 0xbf) return 0;
  return n;
}

/* A JSON string literal, always valid UTF-8 (a byte outside a well-formed
** sequence becomes U+FFFD). */
static void j_string(json_out *j, const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  j_put(j, "\"", 1);
  while (*u) {
    size_t n;
    if (*u == '"' || *u == '\\') {
      char esc[2];
      esc[0] = '\\';
      esc[1] = (char)*u++;
      j_put(j, esc, 2);
    } else if (*u < 0x20) {
      char esc[8];
      snprintf(esc, sizeof esc, "\\u%04x", *u++);
      j_puts(j, esc);
    } else if ((n = utf8_sequence(u)) == 0) {
      j_puts(j, "\\ufffd");
      u++;
    } else {
      j_put(j, (const char *)u, n);
      u += n;
    }
  }
  j_put(j, "\"", 1);
}

static void j_key(json_out *j, const char *key) {
  int d = j->depth < DEPTH_CAP ? j->depth : DEPTH_CAP;
  if (!j->first[d]) j_put(j, ",", 1);
  j->first[d] = 0;
  if (key && !j->list[d]) {
    j_string(j, key);
    j_put(j, ":", 1);
  }
}

static void j_open(psoc_vis *v, const char *key, int index, int is_list) {
  json_out *j = (json_out *)v;
  (void)index;
  j_key(j, key);
  j_put(j, is_list ? "[" : "{", 1);
  j->depth++;
  if (j->depth <= DEPTH_CAP) {
    j->first[j->depth] = 1;
    j->list[j->depth] = (uint8_t)is_list;
  }
}

static void j_close(psoc_vis *v, int is_list) {
  json_out *j = (json_out *)v;
  j->depth--;
  j_put(j, is_list ? "]" : "}", 1);
}

static void j_leaf(psoc_vis *v, const char *key, int index, const psoc_vval *val) {
  json_out *j = (json_out *)v;
  char text[TEXT_CAP];
  (void)index;
  j_key(j, key);
  switch (val->kind) {
  case PSOC_FIELD_UINT:
  case PSOC_FIELD_INT:
  case PSOC_FIELD_COUNT:
  case PSOC_FIELD_BOOL:
    psoc_visit_leaf_text(val, NULL, text, sizeof text);
    if (val->append_aligned) j_string(j, text); /* "append_aligned": a name */
    else j_puts(j, text);
    break;
  case PSOC_FIELD_FLOAT: {
    char *c;
    psoc_visit_leaf_text(val, NULL, text, sizeof text);
    for (c = text; *c; c++)
      if (*c == ',') *c = '.'; /* a decimal comma from the locale */
    j_puts(j, strchr(text, 'n') || strchr(text, 'i') ? "null" : text);
    break;
  }
  case PSOC_FIELD_ENUM:
  case PSOC_FIELD_FLAGS: j_string(j, psoc_visit_leaf_text(val, NULL, text, sizeof text)); break;
  case PSOC_FIELD_BLOB:
    if (!val->blob) {
      j_puts(j, "null");
      break;
    }
    snprintf(text, sizeof text, "{\"kind\":\"%s\",\"size\":%zu", val->is_shader ? "shader" : "blob",
             val->count);
    j_puts(j, text);
    if (val->followed) {
      snprintf(text, sizeof text, ",\"xxh3\":\"%016llx\"",
               (unsigned long long)psoc_xxh3(val->blob, val->count));
      j_puts(j, text);
    }
    j_puts(j, "}");
    break;
  case PSOC_FIELD_STRING:
  case PSOC_FIELD_OBJECT:
    if ((val->kind == PSOC_FIELD_STRING && !val->str) ||
        (val->kind == PSOC_FIELD_OBJECT && !val->ptr && !j->rs_name))
      j_puts(j, "null");
    else
      j_string(j, psoc_visit_leaf_text(val, j->rs_name, text, sizeof text));
    break;
  case PSOC_FIELD_ARRAY: /* not followed */
    snprintf(text, sizeof text, "{\"count\":%zu}", val->count);
    j_puts(j, text);
    break;
  default: j_puts(j, "null"); break;
  }
}

psoc_status psoc_json(const void *data, size_t size, const psoc_explain_options *options,
                      const char *name, psoc_write_fn write, void *ud) {
  effective st;
  json_out jo, *j = &jo;
  psoc_walker w;
  psoc_view view;
  psoc_hash128 hash;
  char hex[33];
  uint32_t cls;
  int first = 1;
  psoc_status status;
  if (!options || !write) return PSOC_ERR_ARG;
  if ((status = effective_init(&st, data, size)) != PSOC_OK) return status;
  if (psoc_hash(data, size, options->flags, options->root_signature_name, &hash) != PSOC_OK)
    return PSOC_ERR_INVALID;
  psoc_hash_hex(hash, hex);
  memset(j, 0, sizeof *j);
  j->v.open = j_open;
  j->v.close = j_close;
  j->v.leaf = j_leaf;
  j->v.follow = (options->flags & PSOC_FOLLOW_POINTERS) != 0;
  j->write = write;
  j->ud = ud;
  j->rs_name = options->root_signature_name;
  j_puts(j, "{\"name\":");
  if (name) j_string(j, name);
  else j_puts(j, "null");
  j_puts(j, ",\"kind\":");
  j_string(j, psoc_kind_name(st.parsed.kind));
  j_puts(j, ",\"root_signature\":");
  if (options->root_signature_name) j_string(j, options->root_signature_name);
  else j_puts(j, "null");
  j_puts(j, ",\"hash\":");
  j_string(j, hex);
  j_puts(j, ",\"subobjects\":[");
  psoc_walk_init(&w, data, size);
  while (psoc_walk_next(&w, &view, NULL)) {
    if (!first) j_put(j, ",", 1);
    first = 0;
    j_string(j, view.info->key);
  }
  j_puts(j, "],\"state\":{");
  j->first[0] = 1;
  for (cls = 0; cls < PSOC_SO_TYPE_COUNT; cls++) {
    payload_buf buf;
    int present;
    uint32_t type;
    if (!listed_class(&st, cls)) continue;
    type = class_payload(&st, cls, &buf, &present);
    psoc_visit_class(&j->v, psoc_subobject_info_get(cls)->key, type, buf.b);
  }
  j_puts(j, "}}");
  j_flush(j);
  return j->failed ? PSOC_ERR_IO : PSOC_OK;
}
