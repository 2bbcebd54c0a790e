/*
** stream_pack.h: hand-packed streams for the parse, rules and resolve
** suites, so they do not depend on the builder. A subobject is the type at
** +0, the payload at the registry's payload_offset, zero padding up to the
** registry's stride. Every check runs on an exactly-sized heap copy so that
** ASan reports any read past the end.
*/
#ifndef PSOC_TEST_STREAM_PACK_H
#define PSOC_TEST_STREAM_PACK_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h"

typedef struct sp_stream {
  unsigned char *data;
  size_t size, cap;
} sp_stream;

static inline void sp_init(sp_stream *s) { memset(s, 0, sizeof *s); }

static inline void sp_free(sp_stream *s) {
  free(s->data);
  sp_init(s);
}

/* Append raw bytes (NULL: zeros). */
static inline void sp_bytes(sp_stream *s, const void *bytes, size_t n) {
  if (s->size + n > s->cap) {
    size_t cap = s->cap ? s->cap : 64;
    while (cap < s->size + n) cap *= 2;
    s->data = realloc(s->data, cap);
    ck_assert_ptr_nonnull(s->data);
    s->cap = cap;
  }
  if (bytes)
    memcpy(s->data + s->size, bytes, n);
  else
    memset(s->data + s->size, 0, n);
  s->size += n;
}

static inline void sp_u32(sp_stream *s, uint32_t v) { sp_bytes(s, &v, sizeof v); }

/* Append one subobject of a known type; returns its byte offset. */
static inline size_t sp_add(sp_stream *s, uint32_t type, const void *payload, size_t size) {
  const psoc_subobject_info *info = psoc_subobject_info_get(type);
  size_t at = s->size;
  ck_assert_msg(info != NULL, "sp_add: unknown type %u", type);
  ck_assert_msg(size == info->payload->size, "sp_add: %s payload is %u bytes, not %zu",
                info->name, info->payload->size, size);
  sp_u32(s, type);
  sp_bytes(s, NULL, info->payload_offset - 4);
  sp_bytes(s, payload, size);
  sp_bytes(s, NULL, info->stride - info->payload_offset - size);
  return at;
}

#define SP_ADD(s, type, value) sp_add(s, type, &(value), sizeof(value))

/* Append a subobject of any type with an all-zero payload; returns its offset. */
static inline size_t sp_add_zero(sp_stream *s, uint32_t type) {
  const psoc_subobject_info *info = psoc_subobject_info_get(type);
  size_t at = s->size;
  ck_assert_msg(info != NULL, "sp_add_zero: unknown type %u", type);
  sp_u32(s, type);
  sp_bytes(s, NULL, info->stride - 4);
  return at;
}

/* Append a subobject holding the runtime's default payload (a valid value
** for every type: the registry's default_payload); returns its offset. */
static inline size_t sp_add_default(sp_stream *s, uint32_t type) {
  const psoc_subobject_info *info = psoc_subobject_info_get(type);
  ck_assert_msg(info != NULL && info->default_payload != NULL, "sp_add_default: type %u", type);
  return sp_add(s, type, info->default_payload, info->payload->size);
}

/* Append an arbitrary (e.g. unknown) type followed by 'extra' zero bytes. */
static inline size_t sp_add_raw(sp_stream *s, uint32_t type, size_t extra) {
  size_t at = s->size;
  sp_u32(s, type);
  sp_bytes(s, NULL, extra);
  return at;
}

/* Shader bytecode that points at real bytes (never followed by the parser). */
static const unsigned char sp_fake_dxil[16] = { 'D', 'X', 'B', 'C', 1, 2, 3, 4,
                                                5, 6, 7, 8, 9, 10, 11, 12 };

static inline D3D12_SHADER_BYTECODE sp_code(int non_null) {
  D3D12_SHADER_BYTECODE b;
  b.pShaderBytecode = non_null ? sp_fake_dxil : NULL;
  b.BytecodeLength = non_null ? sizeof sp_fake_dxil : 0;
  return b;
}

static inline size_t sp_add_shader(sp_stream *s, uint32_t type, int non_null) {
  D3D12_SHADER_BYTECODE b = sp_code(non_null);
  return SP_ADD(s, type, b);
}

/* An exactly-sized heap copy of the first 'size' bytes ('size' may be 0). */
static inline unsigned char *sp_exact(const sp_stream *s, size_t size) {
  unsigned char *p = malloc(size ? size : 1);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_le(size, s->size);
  if (size) memcpy(p, s->data, size);
  return p;
}

/* The options the structural tests check with: the "max" capability
** profile, so that only the stream itself is judged, not a device. */
static inline const psoc_check_options *sp_options(void) {
  static psoc_check_options options;
  options.flags = 0;
  options.profile = psoc_profile_find("max");
  ck_assert_msg(options.profile != NULL, "no capability profile named 'max'");
  return &options;
}

/* psoc_check on an exactly-sized copy of the first 'size' bytes. */
static inline psoc_status sp_check_n(const sp_stream *s, size_t size, psoc_diags *diags) {
  unsigned char *p = sp_exact(s, size);
  psoc_status st = psoc_check(p, size, sp_options(), diags);
  free(p);
  return st;
}

static inline psoc_status sp_check(const sp_stream *s, psoc_diags *diags) {
  return sp_check_n(s, s->size, diags);
}

/* ---- finding diagnostics ------------------------------------------- */

static inline const psoc_diag *sp_find(const psoc_diags *d, psoc_code code, size_t nth) {
  size_t i;
  for (i = 0; i < d->count; i++)
    if (d->items[i].code == code && nth-- == 0) return &d->items[i];
  return NULL;
}

static inline size_t sp_count(const psoc_diags *d, psoc_code code) {
  size_t i, n = 0;
  for (i = 0; i < d->count; i++) n += d->items[i].code == code;
  return n;
}

/* A one-line summary of every diagnostic, for failure messages. */
static inline const char *sp_summary(const psoc_diags *d) {
  static char text[2048];
  size_t i, len = 0;
  text[0] = '\0';
  for (i = 0; i < d->count && len < sizeof text - 1; i++) {
    int n = snprintf(text + len, sizeof text - len, "%s[%s %s @%lld %s: %s]", i ? " " : "",
                     psoc_severity_name(d->items[i].severity), psoc_code_name(d->items[i].code),
                     (long long)d->items[i].offset, d->items[i].field, d->items[i].message);
    if (n < 0) break;
    len += (size_t)n;
  }
  if (len >= sizeof text) len = sizeof text - 1;
  text[len] = '\0';
  return text;
}

/* Assert one diagnostic's location and identity. */
#define SP_ASSERT_DIAG(diag, sev, code_, msg_id, index, off, fld)                      \
  do {                                                                                 \
    const psoc_diag *d_ = (diag);                                                      \
    ck_assert_msg(d_ != NULL, "no diagnostic with code %s", psoc_code_name(code_));  \
    ck_assert_int_eq(d_->severity, sev);                                               \
    ck_assert_int_eq(d_->code, code_);                                                 \
    if ((const char *)(msg_id) == NULL)                                                \
      ck_assert_ptr_null(d_->message_id);                                              \
    else                                                                               \
      ck_assert_str_eq(d_->message_id ? d_->message_id : "(null)", (const char *)(msg_id)); \
    ck_assert_int_eq(d_->subobject, index);                                            \
    ck_assert_int_eq(d_->offset, off);                                                 \
    ck_assert_str_eq(d_->field, fld);                                                  \
    ck_assert_str_ne(d_->message, "");                                                 \
  } while (0)

#endif
