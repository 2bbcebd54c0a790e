/*
** diag.c: the diagnostics list. Diagnostics are data; the library never
** prints them.
*/
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static const char *const code_names[PSOC_CODE_COUNT_] = {
  [PSOC_CODE_NULL_STREAM] = "PSOC_NULL_STREAM",
  [PSOC_CODE_ZERO_SIZE_STREAM] = "PSOC_ZERO_SIZE_STREAM",
  [PSOC_CODE_TRUNCATED] = "PSOC_TRUNCATED",
  [PSOC_CODE_TRAILING_BYTES] = "PSOC_TRAILING_BYTES",
  [PSOC_CODE_UNKNOWN_SUBOBJECT] = "PSOC_UNKNOWN_SUBOBJECT",
  [PSOC_CODE_DUPLICATE_SUBOBJECT] = "PSOC_DUPLICATE_SUBOBJECT",
  [PSOC_CODE_NO_SHADER] = "PSOC_NO_SHADER",
  [PSOC_CODE_AMBIGUOUS_KIND] = "PSOC_AMBIGUOUS_KIND",
  [PSOC_CODE_IRRELEVANT_SUBOBJECT] = "PSOC_IRRELEVANT_SUBOBJECT",
  [PSOC_CODE_UNALIGNED_STREAM] = "PSOC_UNALIGNED_STREAM",
  [PSOC_CODE_INVALID_ENUM] = "PSOC_INVALID_ENUM",
  [PSOC_CODE_INVALID_FLAGS] = "PSOC_INVALID_FLAGS",
  [PSOC_CODE_BLEND_STATE] = "PSOC_BLEND_STATE",
  [PSOC_CODE_FORMAT_UNSUPPORTED] = "PSOC_FORMAT_UNSUPPORTED",
  [PSOC_CODE_RENDER_TARGETS] = "PSOC_RENDER_TARGETS",
  [PSOC_CODE_DEPTH_STENCIL] = "PSOC_DEPTH_STENCIL",
  [PSOC_CODE_SAMPLE_DESC] = "PSOC_SAMPLE_DESC",
  [PSOC_CODE_RASTERIZER] = "PSOC_RASTERIZER",
  [PSOC_CODE_TOPOLOGY] = "PSOC_TOPOLOGY",
  [PSOC_CODE_TESSELLATION] = "PSOC_TESSELLATION",
  [PSOC_CODE_STREAM_OUTPUT] = "PSOC_STREAM_OUTPUT",
  [PSOC_CODE_STRIP_CUT] = "PSOC_STRIP_CUT",
  [PSOC_CODE_INPUT_LAYOUT] = "PSOC_INPUT_LAYOUT",
  [PSOC_CODE_VIEW_INSTANCING] = "PSOC_VIEW_INSTANCING",
  [PSOC_CODE_NODE_MASK] = "PSOC_NODE_MASK",
  [PSOC_CODE_UNSUPPORTED] = "PSOC_UNSUPPORTED",
  [PSOC_CODE_SHADER_CONTAINER] = "PSOC_SHADER_CONTAINER",
  [PSOC_CODE_SHADER_STAGE] = "PSOC_SHADER_STAGE",
  [PSOC_CODE_SHADER_MODEL] = "PSOC_SHADER_MODEL",
  [PSOC_CODE_INPUT_SIGNATURE] = "PSOC_INPUT_SIGNATURE",
  [PSOC_CODE_PS_OUTPUT] = "PSOC_PS_OUTPUT",
  [PSOC_CODE_SHADER_LINKAGE] = "PSOC_SHADER_LINKAGE",
  [PSOC_CODE_ROOT_SIGNATURE] = "PSOC_ROOT_SIGNATURE",
  [PSOC_CODE_CACHED_PSO] = "PSOC_CACHED_PSO",
  [PSOC_CODE_MISSING_SHADER] = "PSOC_MISSING_SHADER",
  [PSOC_CODE_SCRIPT] = "PSOC_SCRIPT",
  [PSOC_CODE_LIMIT] = "PSOC_LIMIT",
  [PSOC_CODE_FILE] = "PSOC_FILE",
};

const char *psoc_code_name(psoc_code code) {
  if ((unsigned)code < PSOC_CODE_COUNT_ && code_names[code]) return code_names[code];
  return "PSOC_UNKNOWN_CODE";
}

const char *psoc_severity_name(psoc_severity severity) {
  switch (severity) {
  case PSOC_SEVERITY_NOTE: return "note";
  case PSOC_SEVERITY_WARNING: return "warning";
  case PSOC_SEVERITY_ERROR: return "error";
  }
  return "unknown";
}

void psoc_diags_init(psoc_diags *diags, const psoc_allocator *alloc) {
  if (!diags) return;
  memset(diags, 0, sizeof *diags);
  diags->alloc = psoc_alloc_or_default(alloc);
}

void psoc_diags_clear(psoc_diags *diags) {
  if (!diags) return;
  diags->count = 0;
  diags->errors = diags->warnings = diags->notes = diags->dropped = 0;
}

void psoc_diags_free(psoc_diags *diags) {
  if (!diags) return;
  if (diags->items) psoc_mem(&diags->alloc, diags->items, diags->capacity * sizeof(psoc_diag), 0);
  diags->items = NULL;
  diags->capacity = 0;
  psoc_diags_clear(diags);
}

/* ---- messages: a printf subset, vsnprintf for the rest ----------------- */

/* The conversions diagnostics use, formatted without stdio (vsnprintf costs
** a few thousand instructions a message): %%, %s with an optional precision
** (%.40s, %.*s), %u and %x with an optional 0 flag and width (%02x, %08x),
** and the lengths z (%zu) and ll (%llu, %llx). */
typedef struct spec {
  char conv;    /* 's', 'u', 'x' or '%' */
  char zero;    /* the 0 flag */
  char length;  /* 0, 'z' or 'L' (ll) */
  int width;    /* 0: none */
  int precision;/* -1: none, -2: from the arguments (.*) */
} spec;

/* Parse the conversion at 'f' (just past the '%'); returns the text after
** it, or NULL when it is not one of the subset. */
static const char *parse_spec(const char *f, spec *sp) {
  sp->zero = 0;
  sp->length = 0;
  sp->width = 0;
  sp->precision = -1;
  if (*f == '%') {
    sp->conv = '%';
    return f + 1;
  }
  if (*f == '0') sp->zero = 1, f++;
  while (*f >= '0' && *f <= '9' && sp->width < 100) sp->width = sp->width * 10 + (*f++ - '0');
  if (*f == '.') {
    f++;
    if (*f == '*') {
      sp->precision = -2;
      f++;
    } else {
      sp->precision = 0;
      while (*f >= '0' && *f <= '9' && sp->precision < 1000)
        sp->precision = sp->precision * 10 + (*f++ - '0');
    }
  }
  if (*f == 'z') sp->length = 'z', f++;
  else if (f[0] == 'l' && f[1] == 'l') sp->length = 'L', f += 2;
  sp->conv = *f;
  switch (*f) {
  case 's': /* precision only */
    return sp->zero || sp->width || sp->length ? NULL : f + 1;
  case 'u':
    return sp->precision != -1 ? NULL : f + 1;
  case 'x':
    return sp->precision != -1 || sp->length == 'z' ? NULL : f + 1;
  default:
    return NULL;
  }
}

typedef struct sink {
  char *p;
  size_t left; /* bytes that still fit, the terminating NUL excluded */
} sink;

static void put(sink *o, const char *s, size_t n) {
  if (n > o->left) n = o->left;
  memcpy(o->p, s, n);
  o->p += n;
  o->left -= n;
}

/* Format into dst (cap > 0 bytes) like vsnprintf. Returns 0 when 'fmt'
** uses a conversion outside the subset, or passes NULL to %s (printf's
** rendering of it is its own): the caller then formats the message again
** with vsnprintf, from its own copy of the arguments. */
static int format_subset(char *dst, size_t cap, const char *fmt, va_list ap) {
  sink o;
  spec sp;
  const char *f;
  o.p = dst;
  o.left = cap - 1;
  for (f = fmt; *f;) {
    const char *pc = strchr(f, '%');
    char digits[24];
    size_t n;
    if (!pc) {
      put(&o, f, strlen(f));
      break;
    }
    put(&o, f, (size_t)(pc - f));
    if (pc[1] == 's' || pc[1] == 'u') { /* the common plain %s and %u, without parse_spec */
      sp.conv = pc[1];
      sp.zero = 0;
      sp.length = 0;
      sp.width = 0;
      sp.precision = -1;
      f = pc + 2;
    } else {
      f = parse_spec(pc + 1, &sp);
      if (!f) return 0;
    }
    if (sp.conv == '%') {
      put(&o, "%", 1);
    } else if (sp.conv == 's') {
      int precision = sp.precision == -2 ? va_arg(ap, int) : sp.precision;
      const char *str = va_arg(ap, const char *);
      if (!str) return 0;
      put(&o, str, precision >= 0 ? strnlen(str, (size_t)precision) : strlen(str));
    } else {
      unsigned long long v = sp.length == 'z' ? (unsigned long long)va_arg(ap, size_t)
                             : sp.length == 'L' ? va_arg(ap, unsigned long long)
                                                : (unsigned long long)va_arg(ap, unsigned);
      unsigned base = sp.conv == 'x' ? 16 : 10;
      char *d = digits + sizeof digits;
      do {
        *--d = "0123456789abcdef"[v % base];
        v /= base;
      } while (v);
      n = (size_t)(digits + sizeof digits - d);
      for (; (size_t)sp.width > n; sp.width--) put(&o, sp.zero ? "0" : " ", 1);
      put(&o, d, n);
    }
  }
  *o.p = '\0';
  return 1;
}

/* Copy a NUL-terminated string into 'dst' of 'cap' bytes, truncating like
** snprintf(dst, cap, "%s", src). */
/* The next diagnostic, counted and filled but for its message, where the
** list has room for it. */
static inline psoc_diag *slot_fill(psoc_diags *diags, psoc_severity severity, psoc_code code,
                                   const char *message_id, int32_t subobject, int64_t offset,
                                   const char *field, size_t field_len) {
  psoc_diag *d = &diags->items[diags->count++];
  d->severity = severity;
  d->code = code;
  d->message_id = message_id;
  d->subobject = subobject;
  d->offset = offset;
  if (field_len > sizeof d->field - 1) field_len = sizeof d->field - 1;
  memcpy(d->field, field, field_len);
  d->field[field_len] = '\0';
  return d;
}

static inline void count_severity(psoc_diags *diags, psoc_severity severity) {
  switch (severity) {
  case PSOC_SEVERITY_ERROR: diags->errors++; break;
  case PSOC_SEVERITY_WARNING: diags->warnings++; break;
  default: diags->notes++; break;
  }
}

/* psoc_diags_slot_n where the list is full: it grows first (out of line, so
** the common path saves no registers for the calls). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static psoc_diag *slot_grow(psoc_diags *diags, psoc_severity severity, psoc_code code,
                            const char *message_id, int32_t subobject, int64_t offset,
                            const char *field, size_t field_len) {
  size_t cap = diags->capacity ? diags->capacity * 2 : 8;
  psoc_diag *items;
  count_severity(diags, severity);
  if (cap > SIZE_MAX / sizeof(psoc_diag)) {
    diags->dropped++;
    return NULL;
  }
  if (!diags->alloc.fn) diags->alloc = psoc_alloc_or_default(NULL);
  items = psoc_mem(&diags->alloc, diags->items, diags->capacity * sizeof(psoc_diag),
                   cap * sizeof(psoc_diag));
  if (!items) {
    diags->dropped++;
    return NULL;
  }
  diags->items = items;
  diags->capacity = cap;
  return slot_fill(diags, severity, code, message_id, subobject, offset, field, field_len);
}

psoc_diag *psoc_diags_slot_n(psoc_diags *diags, psoc_severity severity, psoc_code code,
                             const char *message_id, int32_t subobject, int64_t offset,
                             const char *field, size_t field_len) {
  if (!diags) return NULL;
  if (diags->count == diags->capacity)
    return slot_grow(diags, severity, code, message_id, subobject, offset, field, field_len);
  count_severity(diags, severity);
  return slot_fill(diags, severity, code, message_id, subobject, offset, field, field_len);
}

psoc_diag *psoc_diags_slot(psoc_diags *diags, psoc_severity severity, psoc_code code,
                           const char *message_id, int32_t subobject, int64_t offset,
                           const char *field) {
  if (!field) field = "";
  return psoc_diags_slot_n(diags, severity, code, message_id, subobject, offset, field,
                           strnlen(field, PSOC_DIAG_FIELD_MAX - 1));
}

void psoc_msg_str(psoc_msg *m, const char *s) {
  psoc_msg_put(m, s, strlen(s));
}

void psoc_msg_uint(psoc_msg *m, unsigned long long v) {
  char digits[20], *end = psoc_put_uint(digits, v), *p = m->p; /* p, left in locals: a char */
  size_t n = (size_t)(end - digits), left = m->left, i;     /* store could change *m */
  if (n > left) n = left;
  for (i = 0; i < n; i++) p[i] = digits[i]; /* a number has a few digits: no memcpy call */
  m->p = p + n;
  m->left = left - n;
}

char *psoc_put_uint(char *p, unsigned long long v) {
  unsigned long long t = v;
  size_t n = 1, i;
  while (t >= 10) { /* count the digits, then write them from the last */
    t /= 10;
    n++;
  }
  for (i = n; i-- > 0; v /= 10) p[i] = (char)('0' + v % 10);
  return p + n;
}

psoc_status psoc_diags_addv(psoc_diags *diags, psoc_severity severity, psoc_code code,
                            const char *message_id, int32_t subobject, int64_t offset,
                            const char *field, const char *fmt, va_list ap) {
  psoc_diag *d;
  if (!diags || !fmt) return PSOC_ERR_ARG;
  d = psoc_diags_slot(diags, severity, code, message_id, subobject, offset, field);
  if (!d) return PSOC_ERR_NOMEM;
  {
    va_list aq;
    int done;
    va_copy(aq, ap);
    done = format_subset(d->message, sizeof d->message, fmt, aq);
    va_end(aq);
    if (!done) vsnprintf(d->message, sizeof d->message, fmt, ap);
  }
  return PSOC_OK;
}

psoc_status psoc_diags_add(psoc_diags *diags, psoc_severity severity, psoc_code code,
                           const char *message_id, int32_t subobject, int64_t offset,
                           const char *field, const char *fmt, ...) {
  psoc_status status;
  va_list ap;
  va_start(ap, fmt);
  status = psoc_diags_addv(diags, severity, code, message_id, subobject, offset, field, fmt, ap);
  va_end(ap);
  return status;
}
