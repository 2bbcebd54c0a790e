/*
** dump.c: a readable listing of a stream, generic over the registry.
**
**   stream: 2 subobjects, 64 bytes
**   [0] @0 VS (D3D12_SHADER_BYTECODE)
**     pShaderBytecode = <1234 bytes, non-null>
**     BytecodeLength = 1234
**
** Enums print by full name, flags joined with '|', BOOLs as TRUE/FALSE,
** floats with %.9g. Inline arrays of structs print element 0 and every
** element up to the last one that differs from it; the identical tail is
** one "Name[i..n] = same as [0]" line. Pointers are followed only with
** PSOC_FOLLOW_POINTERS. Nothing outside [data, data + size) is read from
** the stream itself.
*/
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "internal.h"

/* hash.c */

/* ---- bounded text buffers ---------------------------------------- */

typedef struct text {
  char *p;
  size_t n, len; /* capacity (incl. NUL), characters written */
} text;

static void t_puts(text *t, const char *s) {
  while (*s && t->len + 1 < t->n) t->p[t->len++] = *s++;
  if (t->n) t->p[t->len] = '\0';
}

static void t_printf(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 2, 3)))
#endif
    ;
static void t_printf(text *t, const char *fmt, ...) {
  char buf[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  t_puts(t, buf);
}

/* ---- scalars ------------------------------------------------------ */

static uint64_t sign_extend(uint64_t v, unsigned size) {
  if (size >= 8) return v;
  if (v & (1ull << (size * 8 - 1))) v |= ~0ull << (size * 8);
  return v;
}

static void format_flags(text *t, const psoc_enum *e, uint32_t v) {
  uint32_t rest = v, i;
  const psoc_enum_value *exact = psoc_enum_value_by_value(e, v);
  int first = 1;
  if (exact) { /* includes the zero-named value and named combinations */
    t_puts(t, exact->name);
    return;
  }
  if (v == 0) {
    t_puts(t, "0");
    return;
  }
  for (i = 0; e && i < e->count; i++) {
    uint32_t bits = e->values[i].value;
    if (bits == 0 || (bits & rest) != bits) continue;
    if (!first) t_puts(t, "|");
    t_puts(t, e->values[i].name);
    rest &= ~bits;
    first = 0;
  }
  if (rest) t_printf(t, first ? "0x%x" : "|0x%x", (unsigned)rest);
}

size_t psoc_format_scalar(uint8_t kind, unsigned size, const psoc_enum *enumeration,
                          const unsigned char *src, char *out, size_t n) {
  text t;
  uint64_t v;
  if (!out || n == 0) return 0;
  t.p = out;
  t.n = n;
  t.len = 0;
  out[0] = '\0';
  if (!src || (size != 1 && size != 2 && size != 4 && size != 8)) return 0;
  v = psoc_read_scalar(src, size);
  switch (kind) {
  case PSOC_FIELD_INT: t_printf(&t, "%lld", (long long)sign_extend(v, size)); break;
  case PSOC_FIELD_BOOL:
    if (v == 0) t_puts(&t, "FALSE");
    else if (v == 1) t_puts(&t, "TRUE");
    else t_printf(&t, "%llu", (unsigned long long)v);
    break;
  case PSOC_FIELD_FLOAT:
    if (size == 4) {
      float f;
      memcpy(&f, src, 4);
      t_printf(&t, "%.9g", (double)f);
    } else if (size == 8) {
      double d;
      memcpy(&d, src, 8);
      t_printf(&t, "%.17g", d);
    } else {
      t_printf(&t, "0x%llx", (unsigned long long)v);
    }
    break;
  case PSOC_FIELD_ENUM: {
    const psoc_enum_value *ev = v <= UINT32_MAX ? psoc_enum_value_by_value(enumeration, (uint32_t)v) : NULL;
    if (ev) t_puts(&t, ev->name);
    else t_printf(&t, "%llu (unknown)", (unsigned long long)v);
    break;
  }
  case PSOC_FIELD_FLAGS:
    if (v <= UINT32_MAX) format_flags(&t, enumeration, (uint32_t)v);
    else t_printf(&t, "0x%llx", (unsigned long long)v);
    break;
  default: /* UINT, COUNT */
    t_printf(&t, "%llu", (unsigned long long)v);
    break;
  }
  return t.len;
}

/* ---- the dump ------------------------------------------------------ */

#define LINE_MAX_ 1024
#define PATH_MAX_ 256

typedef struct dumper {
  psoc_write_fn write;
  void *ud;
  uint32_t flags;
  int failed;
} dumper;

static void emit(dumper *d, const char *line, size_t len) {
  if (d->failed) return;
  if (d->write(d->ud, line, len) != 0) d->failed = 1;
}

static void emitf(dumper *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 2, 3)))
#endif
    ;
static void emitf(dumper *d, const char *fmt, ...) {
  char buf[LINE_MAX_];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof buf) { /* keep the line a line */
    n = (int)sizeof buf - 1;
    buf[n - 1] = '\n';
  }
  emit(d, buf, (size_t)n);
}

static const unsigned char *get_ptr(const unsigned char *p) {
  const unsigned char *v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Equal by value, field by field (padding ignored). Pointers compare by
** address: followed content is not compared, so the tail elision stays
** exact. */
static int same_value(const psoc_struct *s, const unsigned char *a, const unsigned char *b) {
  uint32_t i, j;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    switch (f->kind) {
    case PSOC_FIELD_STRUCT:
      if (f->element && !same_value(f->element, a + f->offset, b + f->offset)) return 0;
      break;
    case PSOC_FIELD_FIXED:
      for (j = 0; j < f->count; j++) {
        size_t at = f->offset + (size_t)j * f->stride;
        if (f->element ? !same_value(f->element, a + at, b + at)
                       : memcmp(a + at, b + at, f->size) != 0)
          return 0;
      }
      break;
    case PSOC_FIELD_ARRAY:
    case PSOC_FIELD_BLOB:
    case PSOC_FIELD_STRING:
    case PSOC_FIELD_OBJECT:
      if (memcmp(a + f->offset, b + f->offset, sizeof(void *)) != 0) return 0;
      break;
    default:
      if (memcmp(a + f->offset, b + f->offset, f->size) != 0) return 0;
      break;
    }
  }
  return 1;
}

static void dump_struct(dumper *d, const psoc_struct *s, const unsigned char *p, char *path,
                        size_t plen);

/* Append text to the field path (truncating); returns the new length. */
static size_t path_add(char *path, size_t plen, const char *name, size_t index, int indexed) {
  int n;
  if (plen + 1 >= PATH_MAX_) return plen;
  n = indexed ? snprintf(path + plen, PATH_MAX_ - plen, "%s[%zu]", name, index)
              : snprintf(path + plen, PATH_MAX_ - plen, "%s", name);
  if (n < 0) return plen;
  return plen + (size_t)n >= PATH_MAX_ ? PATH_MAX_ - 1 : plen + (size_t)n;
}

static void dump_scalar(dumper *d, uint8_t kind, unsigned size, const psoc_enum *e,
                        const unsigned char *p, const char *path) {
  char value[LINE_MAX_ / 2];
  psoc_format_scalar(kind, size, e, p, value, sizeof value);
  emitf(d, "  %s = %s\n", path, value);
}

/* Element i of a FIXED or ARRAY field: a struct or one scalar. */
static void dump_element(dumper *d, const psoc_field *f, const unsigned char *e, unsigned ssize,
                         char *path, size_t plen) {
  if (f->element)
    dump_struct(d, f->element, e, path, path_add(path, plen, ".", 0, 0));
  else
    dump_scalar(d, f->element_kind, ssize, f->enumeration, e, path);
}

static void dump_elements(dumper *d, const psoc_field *f, const unsigned char *p, size_t count,
                          unsigned ssize, char *path, size_t plen, int elide) {
  size_t i, last = count ? count - 1 : 0;
  if (elide && count > 1) {
    while (last > 0 && (f->element ? same_value(f->element, p, p + last * f->stride)
                                   : memcmp(p, p + last * f->stride, ssize) == 0))
      last--;
  }
  for (i = 0; i < count && i <= last; i++) {
    size_t n = path_add(path, plen, f->name, i, 1);
    dump_element(d, f, p + i * f->stride, ssize, path, n);
    path[plen] = '\0';
  }
  if (count && last + 1 < count) {
    path_add(path, plen, f->name, 0, 0);
    if (last + 2 == count)
      emitf(d, "  %s[%zu] = same as [0]\n", path, count - 1);
    else
      emitf(d, "  %s[%zu..%zu] = same as [0]\n", path, last + 1, count - 1);
    path[plen] = '\0';
  }
}

static void dump_string(dumper *d, const char *s, const char *path) {
  char line[LINE_MAX_];
  text t;
  t.p = line;
  t.n = sizeof line - 2; /* room for the closing quote and newline */
  t.len = 0;
  t_printf(&t, "  %s = \"", path);
  for (; *s && t.len + 5 < t.n; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') t_printf(&t, "\\%c", ch);
    else if (ch < 0x20 || ch >= 0x7f) t_printf(&t, "\\x%02x", ch);
    else t_printf(&t, "%c", ch);
  }
  if (*s) t_puts(&t, "...");
  line[t.len++] = '"';
  line[t.len++] = '\n';
  emit(d, line, t.len);
}

static void dump_pointer(dumper *d, const psoc_struct *s, const psoc_field *f,
                         const unsigned char *base, char *path, size_t plen) {
  const unsigned char *p = get_ptr(base + f->offset);
  int follow = (d->flags & PSOC_FOLLOW_POINTERS) != 0;
  size_t count = f->kind == PSOC_FIELD_STRING ? 0 : psoc_field_count(s, f, base);
  const char *unit = f->kind == PSOC_FIELD_ARRAY ? (count == 1 ? "element" : "elements")
                                                 : (count == 1 ? "byte" : "bytes");
  char hex[33];
  path_add(path, plen, f->name, 0, 0);
  if (f->kind == PSOC_FIELD_STRING) {
    if (!p) emitf(d, "  %s = NULL\n", path);
    else if (!follow) emitf(d, "  %s = <string, pointer not followed>\n", path);
    else dump_string(d, (const char *)p, path);
  } else if (!p) {
    emitf(d, "  %s = <null, %zu %s>\n", path, count, unit);
  } else if (!follow) {
    emitf(d, "  %s = <%zu %s, %s>\n", path, count, unit,
          f->kind == PSOC_FIELD_ARRAY ? "pointer not followed" : "non-null");
  } else if (f->kind == PSOC_FIELD_BLOB) {
    psoc_hash_hex(psoc_hash_bytes(p, count), hex);
    emitf(d, "  %s = <%zu %s, hash %s>\n", path, count, unit, hex);
  } else {
    emitf(d, "  %s = <%zu %s>\n", path, count, unit);
    path[plen] = '\0';
    dump_elements(d, f, p, count, f->stride, path, plen, 0);
  }
  path[plen] = '\0';
}

static void dump_struct(dumper *d, const psoc_struct *s, const unsigned char *p, char *path,
                        size_t plen) {
  uint32_t i;
  for (i = 0; i < s->field_count && !d->failed; i++) {
    const psoc_field *f = &s->fields[i];
    switch (f->kind) {
    case PSOC_FIELD_STRUCT:
      if (f->element)
        dump_struct(d, f->element, p + f->offset, path,
                    path_add(path, path_add(path, plen, f->name, 0, 0), ".", 0, 0));
      break;
    case PSOC_FIELD_FIXED:
      dump_elements(d, f, p + f->offset, f->count, f->size, path, plen, 1);
      break;
    case PSOC_FIELD_ARRAY:
    case PSOC_FIELD_BLOB:
    case PSOC_FIELD_STRING: dump_pointer(d, s, f, p, path, plen); break;
    case PSOC_FIELD_OBJECT: {
      uint64_t v = psoc_rdptr(p + f->offset);
      path_add(path, plen, f->name, 0, 0);
      if (v) emitf(d, "  %s = 0x%llx\n", path, (unsigned long long)v);
      else emitf(d, "  %s = NULL\n", path);
      break;
    }
    default:
      path_add(path, plen, f->name, 0, 0);
      dump_scalar(d, f->kind, f->size, f->enumeration, p + f->offset, path);
      break;
    }
    path[plen] = '\0';
  }
}

psoc_status psoc_dump(const void *data, size_t size, uint32_t flags, psoc_write_fn write,
                      void *ud) {
  dumper d;
  psoc_walker walker;
  psoc_view view;
  psoc_diags diags;
  uint32_t count = 0;
  int complete;
  char path[PATH_MAX_];
  if (!write) return PSOC_ERR_ARG;
  d.write = write;
  d.ud = ud;
  d.flags = flags;
  d.failed = 0;
  if (size == 0 || !data) {
    emitf(&d, "stream: 0 subobjects, %zu bytes\n", size);
    emitf(&d, "error at offset 0: %s\n",
          size ? "pPipelineStateSubobjectStream is NULL" : "the stream is empty (SizeInBytes is 0)");
    return d.failed ? PSOC_ERR_IO : PSOC_ERR_INVALID;
  }
  /* Count first, so the header can say how many there are. */
  psoc_walk_init(&walker, data, size);
  while (psoc_walk_next(&walker, &view, NULL)) count++;
  complete = walker.done == 1;
  emitf(&d, "stream: %u subobject%s%s, %zu bytes\n", count, count == 1 ? "" : "s",
        complete ? "" : " before an error", size);
  psoc_diags_init(&diags, NULL);
  psoc_walk_init(&walker, data, size);
  while (!d.failed && psoc_walk_next(&walker, &view, &diags)) {
    emitf(&d, "[%u] @%zu %s (%s)\n", view.index, view.offset, view.info->name,
          view.info->payload->name);
    path[0] = '\0';
    dump_struct(&d, view.info->payload, view.payload, path, 0);
  }
  if (!d.failed && walker.done == 2) {
    if (diags.count)
      emitf(&d, "error at offset %lld: %s\n", (long long)diags.items[diags.count - 1].offset,
            diags.items[diags.count - 1].message);
    else
      emitf(&d, "error at offset %zu: the stream cannot be walked further\n", walker.offset);
  }
  psoc_diags_free(&diags);
  if (d.failed) return PSOC_ERR_IO;
  return complete ? PSOC_OK : PSOC_ERR_INVALID;
}
