/*
** test_hash_dump.c: the canonical hash and the readable dump.
*/
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h"
#include "suites.h"

/* ---- helpers ------------------------------------------------------ */

typedef struct item {
  uint32_t type;
  const void *payload;
  size_t size;
} item;

static psoc_stream *build(const item *items, size_t n) {
  psoc_builder *b;
  psoc_stream *s;
  size_t i;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  for (i = 0; i < n; i++)
    ck_assert_int_eq(psoc_builder_add(b, items[i].type, items[i].payload, items[i].size), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  psoc_builder_free(b);
  return s;
}

static psoc_hash128 hash_of(const void *data, size_t size, uint32_t flags, const char *rs_name) {
  psoc_hash128 h;
  ck_assert_int_eq(psoc_hash(data, size, flags, rs_name, &h), PSOC_OK);
  return h;
}

static psoc_hash128 hash_stream(const psoc_stream *s, uint32_t flags) {
  return hash_of(psoc_stream_data(s), psoc_stream_size(s), flags, NULL);
}

static int heq(psoc_hash128 a, psoc_hash128 b) { return a.lo == b.lo && a.hi == b.hi; }

/* An exactly sized heap copy, so that reading past the end is caught. */
static unsigned char *dup_bytes(const void *p, size_t n) {
  unsigned char *q = malloc(n ? n : 1);
  ck_assert_ptr_nonnull(q);
  if (n) memcpy(q, p, n);
  return q;
}

static const D3D12_RASTERIZER_DESC rast_default = {
  D3D12_FILL_MODE_SOLID, D3D12_CULL_MODE_BACK, FALSE, 0, 0.0f, 0.0f, TRUE, FALSE, FALSE, 0,
  D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF
};

static D3D12_BLEND_DESC blend_opaque(void) {
  D3D12_BLEND_DESC d;
  int i;
  memset(&d, 0, sizeof d);
  for (i = 0; i < 8; i++) {
    d.RenderTarget[i].SrcBlend = D3D12_BLEND_ONE;
    d.RenderTarget[i].DestBlend = D3D12_BLEND_ZERO;
    d.RenderTarget[i].BlendOp = D3D12_BLEND_OP_ADD;
    d.RenderTarget[i].SrcBlendAlpha = D3D12_BLEND_ONE;
    d.RenderTarget[i].DestBlendAlpha = D3D12_BLEND_ZERO;
    d.RenderTarget[i].BlendOpAlpha = D3D12_BLEND_OP_ADD;
    d.RenderTarget[i].LogicOp = D3D12_LOGIC_OP_NOOP;
    d.RenderTarget[i].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL;
  }
  return d;
}

/* A pipeline whose out-of-line data lives in fresh heap copies. */
typedef struct pipeline {
  unsigned char *code;
  char *names[2];
  D3D12_INPUT_ELEMENT_DESC elems[2];
  UINT *strides;
  D3D12_SO_DECLARATION_ENTRY so_entries[1];
  D3D12_SHADER_BYTECODE vs;
  D3D12_INPUT_LAYOUT_DESC il;
  D3D12_STREAM_OUTPUT_DESC so;
  D3D12_RASTERIZER_DESC rast;
  D3D12_BLEND_DESC blend;
  item items[5];
} pipeline;

static void pipeline_make(pipeline *p, const char *name0) {
  static const unsigned char code[40] = { 0x44, 0x58, 0x42, 0x43, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
  memset(p, 0, sizeof *p);
  p->code = dup_bytes(code, sizeof code);
  p->names[0] = strdup(name0);
  p->names[1] = strdup("TEXCOORD");
  p->elems[0].SemanticName = p->names[0];
  p->elems[0].Format = DXGI_FORMAT_R32G32B32_FLOAT;
  p->elems[1].SemanticName = p->names[1];
  p->elems[1].Format = DXGI_FORMAT_R32G32_FLOAT;
  p->elems[1].AlignedByteOffset = 12;
  p->strides = malloc(2 * sizeof(UINT));
  p->strides[0] = 16;
  p->strides[1] = 32;
  p->so_entries[0].SemanticName = p->names[1];
  p->so_entries[0].ComponentCount = 2;
  p->vs.pShaderBytecode = p->code;
  p->vs.BytecodeLength = sizeof code;
  p->il.pInputElementDescs = p->elems;
  p->il.NumElements = 2;
  p->so.pSODeclaration = p->so_entries;
  p->so.NumEntries = 1;
  p->so.pBufferStrides = p->strides;
  p->so.NumStrides = 2;
  p->rast = rast_default;
  p->blend = blend_opaque();
  p->items[0] = (item){ PSOC_SO_VS, &p->vs, sizeof p->vs };
  p->items[1] = (item){ PSOC_SO_INPUT_LAYOUT, &p->il, sizeof p->il };
  p->items[2] = (item){ PSOC_SO_STREAM_OUTPUT, &p->so, sizeof p->so };
  p->items[3] = (item){ PSOC_SO_RASTERIZER, &p->rast, sizeof p->rast };
  p->items[4] = (item){ PSOC_SO_BLEND, &p->blend, sizeof p->blend };
}

static void pipeline_free(pipeline *p) {
  free(p->code);
  free(p->names[0]);
  free(p->names[1]);
  free(p->strides);
}

/* Text written by psoc_dump. */
typedef struct capture {
  char *text;
  size_t len, cap;
  int fail_after; /* fail the call after this many (0: never) */
  int calls;
} capture;

static int capture_write(void *ud, const char *text, size_t length) {
  capture *c = ud;
  c->calls++;
  if (c->fail_after && c->calls > c->fail_after) return -1;
  if (c->len + length + 1 > c->cap) {
    c->cap = (c->len + length + 1) * 2;
    c->text = realloc(c->text, c->cap);
    ck_assert_ptr_nonnull(c->text);
  }
  memcpy(c->text + c->len, text, length);
  c->len += length;
  c->text[c->len] = '\0';
  return 0;
}

static char *dump_text(const void *data, size_t size, uint32_t flags, psoc_status expect) {
  capture c;
  memset(&c, 0, sizeof c);
  ck_assert_int_eq(psoc_dump(data, size, flags, capture_write, &c), expect);
  ck_assert_ptr_nonnull(c.text);
  return c.text;
}

static void has_line(const char *text, const char *line) {
  size_t n = strlen(line);
  const char *p = text;
  while ((p = strstr(p, line)) != NULL) {
    if ((p == text || p[-1] == '\n') && p[n] == '\n') return;
    p++;
  }
  fprintf(stderr, "--- dump without the line \"%s\":\n%s---\n", line, text);
  ck_abort_msg("line \"%s\" not found", line);
}

/* ---- hash ---------------------------------------------------------- */

START_TEST(test_hash_same_content_other_addresses) {
  pipeline a, b;
  psoc_stream *sa, *sb, *sc;
  pipeline_make(&a, "POSITION");
  pipeline_make(&b, "POSITION");
  sa = build(a.items, 5);
  sb = build(b.items, 5);
  ck_assert_ptr_ne(psoc_stream_data(sa), psoc_stream_data(sb));
  ck_assert(heq(hash_stream(sa, 0), hash_stream(sb, 0)));
  ck_assert(heq(hash_stream(sa, PSOC_FOLLOW_POINTERS), hash_stream(sb, PSOC_FOLLOW_POINTERS)));
  ck_assert(!heq(hash_stream(sa, 0), hash_stream(sa, PSOC_FOLLOW_POINTERS)));
  /* the caller's own stream-shaped memory hashes like the built stream */
  ck_assert_int_eq(psoc_stream_copy(sa, NULL, &sc), PSOC_OK);
  psoc_stream_free(sa);
  ck_assert(heq(hash_stream(sc, PSOC_FOLLOW_POINTERS), hash_stream(sb, PSOC_FOLLOW_POINTERS)));
  psoc_stream_free(sb);
  psoc_stream_free(sc);
  pipeline_free(&a);
  pipeline_free(&b);
}
END_TEST

START_TEST(test_hash_order_independent) {
  pipeline p;
  item shuffled[5];
  psoc_stream *s1, *s2, *x, *y;
  unsigned char *two;
  size_t nx, ny;
  D3D12_SHADER_BYTECODE other;
  pipeline_make(&p, "POSITION");
  shuffled[0] = p.items[4];
  shuffled[1] = p.items[2];
  shuffled[2] = p.items[0];
  shuffled[3] = p.items[3];
  shuffled[4] = p.items[1];
  s1 = build(p.items, 5);
  s2 = build(shuffled, 5);
  ck_assert_int_ne(memcmp(psoc_stream_data(s1), psoc_stream_data(s2), 4), 0);
  ck_assert(heq(hash_stream(s1, 0), hash_stream(s2, 0)));
  ck_assert(heq(hash_stream(s1, PSOC_FOLLOW_POINTERS), hash_stream(s2, PSOC_FOLLOW_POINTERS)));
  /* within one type the stream order is kept (a stream with duplicates) */
  other = p.vs;
  other.BytecodeLength = 8;
  x = build(&p.items[0], 1);
  {
    item i = { PSOC_SO_VS, &other, sizeof other };
    y = build(&i, 1);
  }
  nx = psoc_stream_size(x);
  ny = psoc_stream_size(y);
  two = malloc(nx + ny);
  memcpy(two, psoc_stream_data(x), nx);
  memcpy(two + nx, psoc_stream_data(y), ny);
  {
    psoc_hash128 h1 = hash_of(two, nx + ny, 0, NULL);
    memcpy(two, psoc_stream_data(y), ny);
    memcpy(two + ny, psoc_stream_data(x), nx);
    ck_assert(!heq(h1, hash_of(two, nx + ny, 0, NULL)));
  }
  free(two);
  psoc_stream_free(x);
  psoc_stream_free(y);
  psoc_stream_free(s1);
  psoc_stream_free(s2);
  pipeline_free(&p);
}
END_TEST

/* Flip one bit of every scalar field (found through the registry) of a
** payload and check the hash changes; restore it afterwards. */
static void flip_each_field(unsigned char *buf, size_t size, const psoc_struct *s,
                            unsigned char *p, psoc_hash128 base, int *flips) {
  uint32_t i, j;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    unsigned char *at = p + f->offset;
    switch (f->kind) {
    case PSOC_FIELD_STRUCT: flip_each_field(buf, size, f->element, at, base, flips); break;
    case PSOC_FIELD_FIXED:
      for (j = 0; j < f->count; j++) {
        if (f->element) {
          flip_each_field(buf, size, f->element, at + j * f->stride, base, flips);
        } else {
          at[j * f->stride] ^= 1;
          ck_assert_msg(!heq(base, hash_of(buf, size, 0, NULL)), "%s[%u] not hashed", f->name, j);
          at[j * f->stride] ^= 1;
          ++*flips;
        }
      }
      break;
    case PSOC_FIELD_ARRAY:
    case PSOC_FIELD_BLOB:
    case PSOC_FIELD_STRING:
    case PSOC_FIELD_OBJECT: break; /* see the pointer tests */
    default:
      at[0] ^= 1;
      ck_assert_msg(!heq(base, hash_of(buf, size, 0, NULL)), "%s not hashed", f->name);
      at[0] ^= 1;
      /* the top byte too (catches hashing fewer bytes than the field) */
      at[f->size - 1] ^= 0x40;
      ck_assert_msg(!heq(base, hash_of(buf, size, 0, NULL)), "%s high byte not hashed", f->name);
      at[f->size - 1] ^= 0x40;
      ++*flips;
      break;
    }
  }
}

START_TEST(test_hash_every_field_counts) {
  uint32_t type;
  int flips = 0;
  for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(type);
    unsigned char *buf;
    size_t i;
    psoc_hash128 base;
    if (!info) continue;
    buf = calloc(1, info->stride);
    memcpy(buf, &type, 4);
    base = hash_of(buf, info->stride, 0, NULL);
    flip_each_field(buf, info->stride, info->payload, buf + info->payload_offset, base, &flips);
    /* padding never counts: between type and payload, and the tail */
    for (i = 4; i < info->payload_offset; i++) {
      buf[i] = 0xee;
      ck_assert(heq(base, hash_of(buf, info->stride, 0, NULL)));
    }
    for (i = info->payload_offset + info->payload->size; i < info->stride; i++) {
      buf[i] = 0xee;
      ck_assert(heq(base, hash_of(buf, info->stride, 0, NULL)));
    }
    /* the type itself counts */
    free(buf);
  }
  ck_assert_int_ge(flips, 150);
}
END_TEST

START_TEST(test_hash_internal_padding_ignored) {
  /* D3D12_STREAM_OUTPUT_DESC has 4 padding bytes after NumEntries */
  D3D12_STREAM_OUTPUT_DESC so;
  unsigned char buf[8 + sizeof so];
  psoc_hash128 h;
  uint32_t type = PSOC_SO_STREAM_OUTPUT;
  memset(buf, 0, sizeof buf);
  memcpy(buf, &type, 4);
  h = hash_of(buf, sizeof buf, PSOC_FOLLOW_POINTERS, NULL);
  buf[8 + offsetof(D3D12_STREAM_OUTPUT_DESC, NumEntries) + 4] = 0x77;
  ck_assert(heq(h, hash_of(buf, sizeof buf, PSOC_FOLLOW_POINTERS, NULL)));
}
END_TEST

START_TEST(test_hash_pointers) {
  pipeline a, b;
  psoc_stream *sa, *sb;
  pipeline_make(&a, "POSITION");
  pipeline_make(&b, "POSITIOM");
  /* strings: by value only when following pointers */
  sa = build(a.items, 5);
  sb = build(b.items, 5);
  ck_assert(heq(hash_stream(sa, 0), hash_stream(sb, 0)));
  ck_assert(!heq(hash_stream(sa, PSOC_FOLLOW_POINTERS), hash_stream(sb, PSOC_FOLLOW_POINTERS)));
  psoc_stream_free(sb);
  /* blob content */
  pipeline_free(&b);
  pipeline_make(&b, "POSITION");
  b.code[20] ^= 1;
  sb = build(b.items, 5);
  ck_assert(heq(hash_stream(sa, 0), hash_stream(sb, 0)));
  ck_assert(!heq(hash_stream(sa, PSOC_FOLLOW_POINTERS), hash_stream(sb, PSOC_FOLLOW_POINTERS)));
  psoc_stream_free(sb);
  /* array element content (an SO stride) */
  pipeline_free(&b);
  pipeline_make(&b, "POSITION");
  b.strides[1] = 48;
  sb = build(b.items, 5);
  ck_assert(heq(hash_stream(sa, 0), hash_stream(sb, 0)));
  ck_assert(!heq(hash_stream(sa, PSOC_FOLLOW_POINTERS), hash_stream(sb, PSOC_FOLLOW_POINTERS)));
  psoc_stream_free(sb);
  /* null vs non-null counts either way, and so do counts */
  pipeline_free(&b);
  pipeline_make(&b, "POSITION");
  b.elems[1].SemanticName = NULL;
  sb = build(b.items, 5);
  ck_assert(!heq(hash_stream(sa, PSOC_FOLLOW_POINTERS), hash_stream(sb, PSOC_FOLLOW_POINTERS)));
  psoc_stream_free(sb);
  b.elems[1].SemanticName = b.names[1];
  b.il.NumElements = 1;
  sb = build(b.items, 5);
  ck_assert(!heq(hash_stream(sa, 0), hash_stream(sb, 0)));
  psoc_stream_free(sb);
  b.il.NumElements = 2;
  b.vs.pShaderBytecode = NULL;
  b.vs.BytecodeLength = 0;
  sb = build(b.items, 5);
  ck_assert(!heq(hash_stream(sa, 0), hash_stream(sb, 0)));
  {
    /* same (zero) length, null vs non-null, pointers not followed */
    psoc_stream *sc;
    psoc_hash128 h0 = hash_stream(sb, 0);
    b.vs.pShaderBytecode = b.code;
    sc = build(b.items, 5);
    ck_assert(!heq(h0, hash_stream(sc, 0)));
    ck_assert(!heq(hash_stream(sb, PSOC_FOLLOW_POINTERS), hash_stream(sc, PSOC_FOLLOW_POINTERS)));
    psoc_stream_free(sc);
  }
  psoc_stream_free(sb);
  psoc_stream_free(sa);
  pipeline_free(&a);
  pipeline_free(&b);
}
END_TEST

START_TEST(test_hash_floats) {
  static const uint32_t nans[] = { 0x7fc00000u, 0x7f800001u, 0xffc00000u, 0xffffffffu, 0x7fbfffffu };
  D3D12_RASTERIZER_DESC r = rast_default;
  item it = { PSOC_SO_RASTERIZER, &r, sizeof r };
  psoc_stream *s;
  psoc_hash128 first = { 0, 0 }, zero, negzero;
  size_t i;
  for (i = 0; i < sizeof nans / sizeof nans[0]; i++) {
    psoc_hash128 h;
    memcpy(&r.SlopeScaledDepthBias, &nans[i], 4);
    s = build(&it, 1);
    h = hash_stream(s, 0);
    if (i == 0) first = h;
    else ck_assert(heq(first, h));
    psoc_stream_free(s);
  }
  r.SlopeScaledDepthBias = 0.0f;
  s = build(&it, 1);
  zero = hash_stream(s, 0);
  psoc_stream_free(s);
  r.SlopeScaledDepthBias = -0.0f;
  s = build(&it, 1);
  negzero = hash_stream(s, 0);
  psoc_stream_free(s);
  ck_assert(!heq(zero, negzero));
  ck_assert(!heq(zero, first));
  r.SlopeScaledDepthBias = __builtin_inff();
  s = build(&it, 1);
  ck_assert(!heq(hash_stream(s, 0), first));
  psoc_stream_free(s);
}
END_TEST

START_TEST(test_hash_root_signature_name) {
  void *rs1 = (void *)(uintptr_t)0x1000, *rs2 = (void *)(uintptr_t)0x2000;
  item i1 = { PSOC_SO_ROOT_SIGNATURE, &rs1, sizeof rs1 }, i2 = { PSOC_SO_ROOT_SIGNATURE, &rs2, sizeof rs2 };
  UINT mask = 0xff;
  item m = { PSOC_SO_SAMPLE_MASK, &mask, sizeof mask };
  psoc_stream *a = build(&i1, 1), *b = build(&i2, 1), *c = build(&m, 1);
  const void *da = psoc_stream_data(a), *db = psoc_stream_data(b);
  size_t na = psoc_stream_size(a), nb = psoc_stream_size(b);
  ck_assert(!heq(hash_of(da, na, 0, NULL), hash_of(db, nb, 0, NULL)));
  ck_assert(heq(hash_of(da, na, 0, "forward"), hash_of(db, nb, 0, "forward")));
  ck_assert(heq(hash_of(da, na, PSOC_FOLLOW_POINTERS, "forward"),
                hash_of(db, nb, PSOC_FOLLOW_POINTERS, "forward")));
  ck_assert(!heq(hash_of(da, na, 0, "forward"), hash_of(db, nb, 0, "deferred")));
  ck_assert(!heq(hash_of(da, na, 0, "forward"), hash_of(da, na, 0, NULL)));
  /* no root signature: the name changes nothing */
  ck_assert(heq(hash_of(psoc_stream_data(c), psoc_stream_size(c), 0, "forward"),
                hash_of(psoc_stream_data(c), psoc_stream_size(c), 0, NULL)));
  psoc_stream_free(a);
  psoc_stream_free(b);
  psoc_stream_free(c);
}
END_TEST

START_TEST(test_hash_invalid_streams) {
  pipeline p;
  psoc_stream *s;
  unsigned char *buf;
  size_t n;
  psoc_hash128 h;
  uint32_t bad = 23;
  pipeline_make(&p, "POSITION");
  s = build(p.items, 5);
  n = psoc_stream_size(s);
  /* every truncation is structural, and no read goes past the end */
  for (size_t cut = 1; cut < n; cut++) {
    buf = dup_bytes(psoc_stream_data(s), cut);
    if (cut != 24 && cut != 48 && cut != 88 && cut != 136)
      ck_assert_int_eq(psoc_hash(buf, cut, PSOC_FOLLOW_POINTERS, NULL, &h), PSOC_ERR_INVALID);
    free(buf);
  }
  buf = dup_bytes(psoc_stream_data(s), n);
  ck_assert_int_eq(psoc_hash(buf, n, 0, NULL, &h), PSOC_OK);
  memcpy(buf + 24, &bad, 4); /* the second subobject's type */
  ck_assert_int_eq(psoc_hash(buf, n, 0, NULL, &h), PSOC_ERR_INVALID);
  free(buf);
  ck_assert_int_eq(psoc_hash(psoc_stream_data(s), 0, 0, NULL, &h), PSOC_ERR_INVALID);
  ck_assert_int_eq(psoc_hash(NULL, 16, 0, NULL, &h), PSOC_ERR_INVALID);
  ck_assert_int_eq(psoc_hash(psoc_stream_data(s), n, 0, NULL, NULL), PSOC_ERR_ARG);
  psoc_stream_free(s);
  pipeline_free(&p);
}
END_TEST

START_TEST(test_hash_known_answer) {
  /* Pinned: the hash is part of cooked data and must not drift across
  ** versions, processes or machines. */
  static const unsigned char code[8] = { 'D', 'X', 'B', 'C', 0, 1, 2, 3 };
  D3D12_SHADER_BYTECODE vs = { code, sizeof code };
  UINT mask = 0xffffffffu;
  item items[3] = { { PSOC_SO_VS, &vs, sizeof vs },
                    { PSOC_SO_RASTERIZER, &rast_default, sizeof rast_default },
                    { PSOC_SO_SAMPLE_MASK, &mask, sizeof mask } };
  psoc_stream *s = build(items, 3);
  char hex[33];
  psoc_hash_hex(hash_stream(s, 0), hex);
  ck_assert_str_eq(hex, "3e384dde0335024ccee9445bd8502afa");
  psoc_hash_hex(hash_stream(s, PSOC_FOLLOW_POINTERS), hex);
  ck_assert_str_eq(hex, "fb996bc9c3cff5fb87381a372d59ccb2");
  psoc_stream_free(s);
}
END_TEST

START_TEST(test_hash_known_answer_tails) {
  /* Pinned like test_hash_known_answer: blobs whose length is not a
  ** multiple of 8 (the tail is zero-filled), in a stream added out of
  ** type order. */
  static const unsigned char code[17] = { 'D', 'X', 'B', 'C', 9, 8, 7, 6, 5,
                                          4, 3, 2, 1, 0xff, 0x80, 0x7f, 0x01 };
  D3D12_SHADER_BYTECODE vs = { code, 13 }, ps = { code + 4, 3 }, ds = { code, 17 };
  item items[3] = { { PSOC_SO_PS, &ps, sizeof ps },
                    { PSOC_SO_DS, &ds, sizeof ds },
                    { PSOC_SO_VS, &vs, sizeof vs } };
  psoc_stream *s = build(items, 3);
  char hex[33];
  psoc_hash_hex(hash_stream(s, PSOC_FOLLOW_POINTERS), hex);
  ck_assert_str_eq(hex, "3d4477a553ab83edd11a27f489bad713");
  psoc_stream_free(s);
}
END_TEST

/* 'pairs' SAMPLE_MASK and NODE_MASK subobjects (duplicates: hashable,
** though invalid), interleaved or grouped by type; each type's values
** keep their order. Returns the size. */
static size_t masks_stream(unsigned char *buf, int pairs, int grouped, int swap) {
  size_t off = 0;
  int i, pass;
  for (pass = 0; pass < (grouped ? 2 : 1); pass++)
    for (i = 0; i < pairs; i++) {
      int j = swap && i < 2 ? 1 - i : i; /* swap: the first two SAMPLE_MASKs trade places */
      uint32_t sm[2] = { PSOC_SO_SAMPLE_MASK, 0x100u + (uint32_t)j };
      uint32_t nm[2] = { PSOC_SO_NODE_MASK, 1u << (i % 32) };
      if (!grouped || pass == 0) {
        memcpy(buf + off, grouped ? nm : sm, 8);
        off += 8;
      }
      if (!grouped || pass == 1) {
        memcpy(buf + off, grouped ? sm : nm, 8);
        off += 8;
      }
    }
  return off;
}

START_TEST(test_hash_long_streams) {
  /* Short streams are hashed from one walk, streams of more than 64
  ** subobjects by walking once per type: both hash the types in type
  ** order and each type's subobjects in stream order. Pinned values. */
  static const struct { int pairs; const char *hex; } cases[] = {
    { 20, "bde2a50dd7f54cd71637156be1fecd43" }, /* 40 subobjects */
    { 32, NULL },                               /* 64 */
    { 33, NULL },                               /* 66 */
    { 50, "e738dd305e8ffb4c2e5981c3feef17cf" }, /* 100 */
  };
  static unsigned char a[1024], b[1024], c[1024];
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t na = masks_stream(a, cases[i].pairs, 0, 0), nb = masks_stream(b, cases[i].pairs, 1, 0),
           nc = masks_stream(c, cases[i].pairs, 0, 1);
    psoc_hash128 ha = hash_of(a, na, 0, NULL), hb = hash_of(b, nb, 0, NULL),
                 hc = hash_of(c, nc, 0, NULL);
    char hex[33];
    ck_assert(heq(ha, hb));  /* interleaving across types does not matter */
    ck_assert(!heq(ha, hc)); /* the order within a type does */
    if (cases[i].hex) {
      psoc_hash_hex(ha, hex);
      ck_assert_str_eq(hex, cases[i].hex);
    }
  }
}
END_TEST

START_TEST(test_hash_hex) {
  psoc_hash128 h = { 0x0123456789abcdefull, 0xfedcba9876543210ull };
  char hex[33];
  memset(hex, 'z', sizeof hex);
  psoc_hash_hex(h, hex);
  ck_assert_str_eq(hex, "fedcba98765432100123456789abcdef");
}
END_TEST

static int cmp_hash(const void *a, const void *b) {
  const psoc_hash128 *x = a, *y = b;
  if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  return 0;
}

START_TEST(test_hash_spreads) {
  enum { N = 4096 };
  psoc_hash128 *hs = malloc(N * sizeof *hs);
  unsigned char buf[8] = { PSOC_SO_SAMPLE_MASK };
  uint32_t i, bit;
  double total = 0;
  int samples = 0;
  for (i = 0; i < N; i++) {
    memcpy(buf + 4, &i, 4);
    hs[i] = hash_of(buf, 8, 0, NULL);
  }
  qsort(hs, N, sizeof *hs, cmp_hash);
  for (i = 1; i < N; i++) ck_assert_int_ne(cmp_hash(&hs[i - 1], &hs[i]), 0);
  /* one input bit flips about half of the 128 output bits */
  for (i = 0; i < 64; i++) {
    uint32_t v = i * 0x9e3779b9u;
    psoc_hash128 h0, h1;
    memcpy(buf + 4, &v, 4);
    h0 = hash_of(buf, 8, 0, NULL);
    for (bit = 0; bit < 32; bit++) {
      uint32_t w = v ^ (1u << bit);
      int d;
      memcpy(buf + 4, &w, 4);
      h1 = hash_of(buf, 8, 0, NULL);
      d = __builtin_popcountll(h0.lo ^ h1.lo) + __builtin_popcountll(h0.hi ^ h1.hi);
      ck_assert_int_ge(d, 24);
      total += d;
      samples++;
    }
  }
  ck_assert_double_ge(total / samples, 60.0);
  ck_assert_double_le(total / samples, 68.0);
  free(hs);
}
END_TEST

/* ---- dump ---------------------------------------------------------- */

START_TEST(test_dump_lines) {
  static unsigned char code[1234];
  D3D12_SHADER_BYTECODE vs = { code, sizeof code };
  D3D12_BLEND_DESC blend = blend_opaque();
  D3D12_RASTERIZER_DESC r = rast_default;
  item items[3] = { { PSOC_SO_VS, &vs, sizeof vs }, { PSOC_SO_RASTERIZER, &r, sizeof r },
                    { PSOC_SO_BLEND, &blend, sizeof blend } };
  psoc_stream *s;
  char *t;
  r.DepthBias = -7;
  r.SlopeScaledDepthBias = 0.1f;
  blend.RenderTarget[0].BlendEnable = TRUE;
  s = build(items, 3);
  ck_assert_uint_eq(psoc_stream_size(s), 24 + 48 + 336);
  t = dump_text(psoc_stream_data(s), psoc_stream_size(s), 0, PSOC_OK);
  has_line(t, "stream: 3 subobjects, 408 bytes");
  has_line(t, "[0] @0 VS (D3D12_SHADER_BYTECODE)");
  has_line(t, "  pShaderBytecode = <1234 bytes, non-null>");
  has_line(t, "  BytecodeLength = 1234");
  has_line(t, "[1] @24 RASTERIZER (D3D12_RASTERIZER_DESC)");
  has_line(t, "  FillMode = D3D12_FILL_MODE_SOLID");
  has_line(t, "  CullMode = D3D12_CULL_MODE_BACK");
  has_line(t, "  FrontCounterClockwise = FALSE");
  has_line(t, "  DepthBias = -7");
  has_line(t, "  SlopeScaledDepthBias = 0.100000001");
  has_line(t, "  DepthClipEnable = TRUE");
  has_line(t, "  ConservativeRaster = D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF");
  has_line(t, "[2] @72 BLEND (D3D12_BLEND_DESC)");
  has_line(t, "  AlphaToCoverageEnable = FALSE");
  has_line(t, "  RenderTarget[0].BlendEnable = TRUE");
  has_line(t, "  RenderTarget[0].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL");
  /* elements 1..7 differ from element 0, so all of them are printed */
  has_line(t, "  RenderTarget[7].BlendEnable = FALSE");
  ck_assert_ptr_null(strstr(t, "same as"));
  free(t);
  /* identical tail elided */
  blend = blend_opaque();
  blend.RenderTarget[1].LogicOp = D3D12_LOGIC_OP_XOR;
  psoc_stream_free(s);
  s = build(&items[2], 1);
  t = dump_text(psoc_stream_data(s), psoc_stream_size(s), 0, PSOC_OK);
  has_line(t, "stream: 1 subobject, 336 bytes");
  has_line(t, "  RenderTarget[1].LogicOp = D3D12_LOGIC_OP_XOR");
  has_line(t, "  RenderTarget[2..7] = same as [0]");
  ck_assert_ptr_null(strstr(t, "RenderTarget[2].BlendEnable"));
  free(t);
  psoc_stream_free(s);
}
END_TEST

START_TEST(test_dump_follow_pointers) {
  pipeline p;
  psoc_stream *s;
  char *t, *line, hex[33];
  pipeline_make(&p, "POS\"ITION");
  s = build(p.items, 5);
  t = dump_text(psoc_stream_data(s), psoc_stream_size(s), 0, PSOC_OK);
  has_line(t, "  pInputElementDescs = <2 elements, pointer not followed>");
  has_line(t, "  pBufferStrides = <2 elements, pointer not followed>");
  has_line(t, "  pShaderBytecode = <40 bytes, non-null>");
  ck_assert_ptr_null(strstr(t, "SemanticName"));
  free(t);
  t = dump_text(psoc_stream_data(s), psoc_stream_size(s), PSOC_FOLLOW_POINTERS, PSOC_OK);
  has_line(t, "  pInputElementDescs = <2 elements>");
  has_line(t, "  pInputElementDescs[0].SemanticName = \"POS\\\"ITION\"");
  has_line(t, "  pInputElementDescs[0].Format = DXGI_FORMAT_R32G32B32_FLOAT");
  has_line(t, "  pInputElementDescs[1].SemanticName = \"TEXCOORD\"");
  has_line(t, "  pInputElementDescs[1].AlignedByteOffset = 12");
  has_line(t, "  pInputElementDescs[1].InputSlotClass = D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA");
  has_line(t, "  pSODeclaration[0].SemanticName = \"TEXCOORD\"");
  has_line(t, "  pBufferStrides[0] = 16");
  has_line(t, "  pBufferStrides[1] = 32");
  has_line(t, "  NumStrides = 2");
  line = strstr(t, "  pShaderBytecode = <40 bytes, hash ");
  ck_assert_ptr_nonnull(line);
  memcpy(hex, line + strlen("  pShaderBytecode = <40 bytes, hash "), 32);
  hex[32] = '\0';
  ck_assert_uint_eq(strspn(hex, "0123456789abcdef"), 32);
  free(t);
  psoc_stream_free(s);
  pipeline_free(&p);
}
END_TEST

START_TEST(test_dump_values) {
  D3D12_RASTERIZER_DESC r = rast_default;
  D3D12_BLEND_DESC blend = blend_opaque();
  D3D12_PIPELINE_STATE_FLAGS flags = D3D12_PIPELINE_STATE_FLAG_NONE;
  D3D12_VIEW_INSTANCING_DESC vi = { 0, NULL, D3D12_VIEW_INSTANCING_FLAG_NONE };
  void *rs = NULL;
  item items[5] = { { PSOC_SO_RASTERIZER, &r, sizeof r }, { PSOC_SO_BLEND, &blend, sizeof blend },
                    { PSOC_SO_FLAGS, &flags, sizeof flags },
                    { PSOC_SO_VIEW_INSTANCING, &vi, sizeof vi },
                    { PSOC_SO_ROOT_SIGNATURE, &rs, sizeof rs } };
  psoc_stream *s;
  char *t;
  r.CullMode = (D3D12_CULL_MODE)77;
  r.MultisampleEnable = 2;
  blend.RenderTarget[0].RenderTargetWriteMask =
      D3D12_COLOR_WRITE_ENABLE_RED | D3D12_COLOR_WRITE_ENABLE_BLUE;
  blend.RenderTarget[1].RenderTargetWriteMask = 0;
  blend.RenderTarget[2].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_GREEN | 0x30;
  s = build(items, 5);
  t = dump_text(psoc_stream_data(s), psoc_stream_size(s), PSOC_FOLLOW_POINTERS, PSOC_OK);
  has_line(t, "  CullMode = 77 (unknown)");
  has_line(t, "  MultisampleEnable = 2");
  has_line(t, "  RenderTarget[0].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_RED|D3D12_COLOR_WRITE_ENABLE_BLUE");
  has_line(t, "  RenderTarget[1].RenderTargetWriteMask = 0");
  has_line(t, "  RenderTarget[2].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_GREEN|0x30");
  has_line(t, "  RenderTarget[7].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL");
  has_line(t, "  Flags = D3D12_PIPELINE_STATE_FLAG_NONE");
  has_line(t, "  pViewInstanceLocations = <null, 0 elements>");
  has_line(t, "  Flags = D3D12_VIEW_INSTANCING_FLAG_NONE");
  has_line(t, "  pRootSignature = NULL");
  has_line(t, "[4] @424 ROOT_SIGNATURE (ID3D12RootSignature*)");
  free(t);
  psoc_stream_free(s);
}
END_TEST

START_TEST(test_dump_broken_streams) {
  pipeline p;
  psoc_stream *s;
  unsigned char *buf;
  char *t, *last;
  size_t n;
  uint32_t bad = 30;
  pipeline_make(&p, "POSITION");
  s = build(p.items, 5);
  n = psoc_stream_size(s);
  /* truncated inside the second subobject (INPUT_LAYOUT at 24, 24 bytes) */
  buf = dup_bytes(psoc_stream_data(s), 40);
  t = dump_text(buf, 40, PSOC_FOLLOW_POINTERS, PSOC_ERR_INVALID);
  has_line(t, "stream: 1 subobject before an error, 40 bytes");
  has_line(t, "[0] @0 VS (D3D12_SHADER_BYTECODE)");
  ck_assert_ptr_null(strstr(t, "[1]"));
  last = strstr(t, "error at offset 24: ");
  ck_assert_ptr_nonnull(last);
  ck_assert_ptr_eq(strchr(last, '\n'), t + strlen(t) - 1); /* the last line */
  free(t);
  free(buf);
  /* every cut is safe (exact-size buffers catch over-reads) */
  for (size_t cut = 1; cut < n; cut++) {
    psoc_status st;
    capture c;
    buf = dup_bytes(psoc_stream_data(s), cut);
    memset(&c, 0, sizeof c);
    st = psoc_dump(buf, cut, 0, capture_write, &c);
    ck_assert(st == PSOC_ERR_INVALID || st == PSOC_OK);
    if (st == PSOC_ERR_INVALID) ck_assert_ptr_nonnull(strstr(c.text, "\nerror at offset "));
    free(c.text);
    free(buf);
  }
  /* an unknown type */
  buf = dup_bytes(psoc_stream_data(s), n);
  memcpy(buf + 48, &bad, 4);
  t = dump_text(buf, n, 0, PSOC_ERR_INVALID);
  has_line(t, "[1] @24 INPUT_LAYOUT (D3D12_INPUT_LAYOUT_DESC)");
  ck_assert_ptr_nonnull(strstr(t, "\nerror at offset 48: "));
  free(t);
  free(buf);
  /* empty and NULL */
  t = dump_text(psoc_stream_data(s), 0, 0, PSOC_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(t, "error at offset 0: "));
  free(t);
  t = dump_text(NULL, 8, 0, PSOC_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(t, "error at offset 0: "));
  free(t);
  psoc_stream_free(s);
  pipeline_free(&p);
}
END_TEST

START_TEST(test_dump_write_errors) {
  pipeline p;
  psoc_stream *s;
  capture c;
  int k;
  pipeline_make(&p, "POSITION");
  s = build(p.items, 5);
  ck_assert_int_eq(psoc_dump(psoc_stream_data(s), psoc_stream_size(s), 0, NULL, NULL), PSOC_ERR_ARG);
  for (k = 1; k < 6; k++) {
    memset(&c, 0, sizeof c);
    c.fail_after = k;
    ck_assert_int_eq(psoc_dump(psoc_stream_data(s), psoc_stream_size(s), 0, capture_write, &c),
                     PSOC_ERR_IO);
    ck_assert_int_eq(c.calls, k + 1); /* stops at the first failure */
    free(c.text);
  }
  psoc_stream_free(s);
  pipeline_free(&p);
}
END_TEST

START_TEST(test_format_scalar) {
  char out[128];
  uint32_t u = 0xffffffffu;
  int32_t i = -5;
  float f = 1.0f / 3.0f;
  uint32_t cull = D3D12_CULL_MODE_NONE, flags = 0x9;
  uint8_t b8 = 200;
  ck_assert_uint_eq(psoc_format_scalar(PSOC_FIELD_UINT, 4, NULL, (const unsigned char *)&u, out, sizeof out), 10);
  ck_assert_str_eq(out, "4294967295");
  psoc_format_scalar(PSOC_FIELD_INT, 4, NULL, (const unsigned char *)&i, out, sizeof out);
  ck_assert_str_eq(out, "-5");
  psoc_format_scalar(PSOC_FIELD_FLOAT, 4, NULL, (const unsigned char *)&f, out, sizeof out);
  ck_assert_str_eq(out, "0.333333343");
  psoc_format_scalar(PSOC_FIELD_ENUM, 4, psoc_enum_find("D3D12_CULL_MODE"), (const unsigned char *)&cull,
                     out, sizeof out);
  ck_assert_str_eq(out, "D3D12_CULL_MODE_NONE");
  psoc_format_scalar(PSOC_FIELD_UINT, 1, NULL, &b8, out, sizeof out);
  ck_assert_str_eq(out, "200");
  psoc_format_scalar(PSOC_FIELD_FLAGS, 4, psoc_enum_find("D3D12_PIPELINE_STATE_FLAGS"),
                     (const unsigned char *)&flags, out, sizeof out);
  ck_assert_str_eq(out, "D3D12_PIPELINE_STATE_FLAG_TOOL_DEBUG|D3D12_PIPELINE_STATE_FLAG_DYNAMIC_INDEX_BUFFER_STRIP_CUT");
  psoc_format_scalar(PSOC_FIELD_BOOL, 4, NULL, (const unsigned char *)&u, out, sizeof out);
  ck_assert_str_eq(out, "4294967295");
  /* truncation: the length written, always NUL-terminated */
  ck_assert_uint_eq(psoc_format_scalar(PSOC_FIELD_ENUM, 4, psoc_enum_find("D3D12_CULL_MODE"),
                                       (const unsigned char *)&cull, out, 8), 7);
  ck_assert_str_eq(out, "D3D12_C");
  ck_assert_uint_eq(psoc_format_scalar(PSOC_FIELD_UINT, 4, NULL, (const unsigned char *)&u, out, 0), 0);
}
END_TEST

Suite *suite_hash_dump(void) {
  Suite *s = suite_create("hash_dump");
  TCase *h = tcase_create("hash"), *d = tcase_create("dump");
  tcase_add_test(h, test_hash_same_content_other_addresses);
  tcase_add_test(h, test_hash_order_independent);
  tcase_add_test(h, test_hash_every_field_counts);
  tcase_add_test(h, test_hash_internal_padding_ignored);
  tcase_add_test(h, test_hash_pointers);
  tcase_add_test(h, test_hash_floats);
  tcase_add_test(h, test_hash_root_signature_name);
  tcase_add_test(h, test_hash_invalid_streams);
  tcase_add_test(h, test_hash_known_answer);
  tcase_add_test(h, test_hash_known_answer_tails);
  tcase_add_test(h, test_hash_long_streams);
  tcase_add_test(h, test_hash_hex);
  tcase_add_test(h, test_hash_spreads);
  tcase_add_test(d, test_dump_lines);
  tcase_add_test(d, test_dump_follow_pointers);
  tcase_add_test(d, test_dump_values);
  tcase_add_test(d, test_dump_broken_streams);
  tcase_add_test(d, test_dump_write_errors);
  tcase_add_test(d, test_format_scalar);
  suite_add_tcase(s, h);
  suite_add_tcase(s, d);
  return s;
}
