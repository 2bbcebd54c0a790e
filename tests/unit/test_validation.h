/*
** test_validation.h: stream packing and diagnostic assertions shared by the
** validation suites (test_validation*.c). Streams are checked from an
** exactly-sized heap copy so ASan catches any read past the end.
*/
#ifndef PSOC_TEST_VALIDATION_H
#define PSOC_TEST_VALIDATION_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dxbc_writer.h"
#include "psoc.h"

typedef struct vt_stream {
  unsigned char *data;
  size_t size, cap;
} vt_stream;

static const unsigned char vt_dummy_code[4] = { 1, 2, 3, 4 };

static inline void vt_raw(vt_stream *s, const void *p, size_t n) {
  if (s->size + n > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 256;
    while (cap < s->size + n) cap *= 2;
    s->data = realloc(s->data, cap);
    ck_assert_ptr_nonnull(s->data);
    s->cap = cap;
  }
  if (p) memcpy(s->data + s->size, p, n);
  else memset(s->data + s->size, 0, n);
  s->size += n;
}

static inline void vt_add(vt_stream *s, uint32_t type, const void *payload, size_t size) {
  const psoc_subobject_info *info = psoc_subobject_info_get(type);
  ck_assert_ptr_nonnull(info);
  ck_assert_uint_eq(size, info->payload->size);
  vt_raw(s, &type, 4);
  vt_raw(s, NULL, info->payload_offset - 4);
  vt_raw(s, payload, size);
  vt_raw(s, NULL, info->stride - info->payload_offset - size);
}

#define VT_ADD(s, type, value) vt_add(s, type, &(value), sizeof(value))

static inline void vt_shader(vt_stream *s, uint32_t type, const void *code, size_t size) {
  D3D12_SHADER_BYTECODE bc;
  bc.pShaderBytecode = code;
  bc.BytecodeLength = size;
  VT_ADD(s, type, bc);
}

/* A minimal valid vs_5_0 container: no inputs, writes SV_Position, embeds a
** root signature that allows an input layout. Built once, kept for the run. */
static inline dw_blob vt_plain_vs(void) {
  static dw_blob vs;
  if (!vs.data) {
    static const dw_elem out[] = { { "SV_Position", 0, 1, 3, 0, 0xf, 0, 0, 0 } };
    vs = dw_shader(1, 5, 0, 0, NULL, 0, out, 1, 1);
  }
  return vs;
}

/* A VS pipeline whose VS is vt_plain_vs(). */
static inline void vt_graphics(vt_stream *s) {
  dw_blob vs = vt_plain_vs();
  memset(s, 0, sizeof *s);
  vt_shader(s, PSOC_SO_VS, vs.data, vs.size);
}

static inline void vt_free(vt_stream *s) {
  free(s->data);
  memset(s, 0, sizeof *s);
}

/* The runtime's default blend desc (CD3DX12_BLEND_DESC(D3D12_DEFAULT)). */
static inline D3D12_BLEND_DESC vt_blend_default(void) {
  D3D12_BLEND_DESC b;
  unsigned i;
  memset(&b, 0, sizeof b);
  for (i = 0; i < 8; i++) {
    D3D12_RENDER_TARGET_BLEND_DESC *rt = &b.RenderTarget[i];
    rt->SrcBlend = rt->SrcBlendAlpha = D3D12_BLEND_ONE;
    rt->DestBlend = rt->DestBlendAlpha = D3D12_BLEND_ZERO;
    rt->BlendOp = rt->BlendOpAlpha = D3D12_BLEND_OP_ADD;
    rt->LogicOp = D3D12_LOGIC_OP_NOOP;
    rt->RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL;
  }
  return b;
}

static inline psoc_status vt_run(const vt_stream *s, uint32_t flags, const char *profile,
                                 psoc_diags *d) {
  psoc_check_options o;
  unsigned char *copy = malloc(s->size ? s->size : 1);
  psoc_status st;
  ck_assert_ptr_nonnull(copy);
  if (s->size) memcpy(copy, s->data, s->size);
  o.flags = flags;
  o.profile = profile ? psoc_profile_find(profile) : NULL;
  if (profile) ck_assert_msg(o.profile != NULL, "unknown profile %s", profile);
  psoc_diags_init(d, NULL);
  st = psoc_check(copy, s->size, &o, d);
  free(copy);
  return st;
}

static inline const char *vt_summary(const psoc_diags *d) {
  static char text[4096];
  size_t i, n = 0;
  text[0] = 0;
  for (i = 0; i < d->count && n < sizeof text - 300; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "\n  %s %s [%s] %s: %s",
                          psoc_severity_name(d->items[i].severity), psoc_code_name(d->items[i].code),
                          d->items[i].message_id ? d->items[i].message_id : "-",
                          d->items[i].field, d->items[i].message);
  return text;
}

static inline const psoc_diag *vt_find(const psoc_diags *d, const char *id) {
  size_t i;
  for (i = 0; i < d->count; i++)
    if (d->items[i].message_id && strcmp(d->items[i].message_id, id) == 0) return &d->items[i];
  return NULL;
}

/* The check reports 'id' with 'severity'. */
static inline void vt_expect_at(const vt_stream *s, uint32_t flags, const char *profile,
                                const char *id, psoc_severity severity, const char *file, int line) {
  psoc_diags d;
  psoc_status st = vt_run(s, flags, profile, &d);
  const psoc_diag *x = vt_find(&d, id);
  ck_assert_msg(x != NULL, "%s:%d: expected %s; got:%s", file, line, id, vt_summary(&d));
  ck_assert_msg(x->severity == severity, "%s:%d: %s is %s, expected %s", file, line, id,
                psoc_severity_name(x->severity), psoc_severity_name(severity));
  ck_assert_msg(x->message[0] != 0, "%s:%d: empty message", file, line);
  if (severity == PSOC_SEVERITY_ERROR) ck_assert_int_eq(st, PSOC_ERR_INVALID);
  psoc_diags_free(&d);
}

/* The check does not report 'id'. */
static inline void vt_absent_at(const vt_stream *s, uint32_t flags, const char *profile,
                                const char *id, const char *file, int line) {
  psoc_diags d;
  vt_run(s, flags, profile, &d);
  ck_assert_msg(vt_find(&d, id) == NULL, "%s:%d: unexpected %s:%s", file, line, id, vt_summary(&d));
  psoc_diags_free(&d);
}

/* No error and no warning at all. */
static inline void vt_clean_at(const vt_stream *s, uint32_t flags, const char *profile,
                               const char *file, int line) {
  psoc_diags d;
  psoc_status st = vt_run(s, flags, profile, &d);
  ck_assert_msg(st == PSOC_OK && d.errors == 0 && d.warnings == 0, "%s:%d: not clean:%s", file,
                line, vt_summary(&d));
  psoc_diags_free(&d);
}

#define VT_ERROR(s, flags, profile, id) \
  vt_expect_at(s, flags, profile, id, PSOC_SEVERITY_ERROR, __FILE__, __LINE__)
#define VT_WARNING(s, flags, profile, id) \
  vt_expect_at(s, flags, profile, id, PSOC_SEVERITY_WARNING, __FILE__, __LINE__)
#define VT_NOTE(s, flags, profile, id) \
  vt_expect_at(s, flags, profile, id, PSOC_SEVERITY_NOTE, __FILE__, __LINE__)
#define VT_ABSENT(s, flags, profile, id) vt_absent_at(s, flags, profile, id, __FILE__, __LINE__)
#define VT_CLEAN(s, flags, profile) vt_clean_at(s, flags, profile, __FILE__, __LINE__)

#define FOLLOW PSOC_CHECK_FOLLOW_POINTERS

#endif
