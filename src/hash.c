/*
** hash.c: canonical 128-bit content hash of a pipeline state stream.
**
** The hash covers values, never bytes as laid out: subobjects are hashed
** in type order (stable), each field by value as the registry describes
** it (padding never), NaNs as one canonical NaN, and pointers as a
** null/non-null marker unless PSOC_FOLLOW_POINTERS asks for the content
** (blobs by bytes, strings by value, arrays element by element). Values
** become a sequence of little-endian 64-bit words, so the result is the
** same on every machine and in every process; the hash is XXH3-128
** (seed 0) of that byte sequence (PSOC_HASH_VERSION 2, docs/archive.md
** spells the sequence out).
*/
#include <stdint.h>
#include <stdio.h>

#include "internal.h"
#include "xxh.h"

/* ---- the word sequence, hashed with XXH3-128 -------------------- */

/* Words are gathered in a buffer; a sequence that fits is hashed in one
** XXH3_128bits call, a longer one streams through the state (the same
** value either way). */
#define HBUF 1024

typedef struct hasher {
  unsigned char buf[HBUF];
  size_t n;
  int streaming;
  psoc_xxh3_state st;
} hasher;

static void h_init(hasher *h) {
  h->n = 0;
  h->streaming = 0;
}

static void h_flush(hasher *h) {
  if (!h->streaming) {
    memset(&h->st, 0, sizeof h->st); /* reset sets it up; zeroed so no tool sees it read unset */
    psoc_xxh3_128_reset(&h->st);
    h->streaming = 1;
  }
  psoc_xxh3_128_update(&h->st, h->buf, h->n);
  h->n = 0;
}

static void h_word(hasher *h, uint64_t w) {
  unsigned char *p;
  unsigned i;
  if (h->n + 8 > HBUF) h_flush(h);
  p = h->buf + h->n;
  for (i = 0; i < 8; i++) p[i] = (unsigned char)(w >> (8 * i));
  h->n += 8;
}

/* Length, then the bytes as they are (read as little-endian words and
** written back as such, they are unchanged), the tail zero-filled to a
** whole word. Long runs skip the buffer. */
static void h_bytes(hasher *h, const unsigned char *p, size_t n) {
  size_t whole = n & ~(size_t)7;
  h_word(h, (uint64_t)n);
  if (whole > HBUF - h->n) {
    h_flush(h);
    psoc_xxh3_128_update(&h->st, p, whole);
  } else if (whole) {
    memcpy(h->buf + h->n, p, whole);
    h->n += whole;
  }
  if (n > whole) {
    if (h->n + 8 > HBUF) h_flush(h);
    memset(h->buf + h->n, 0, 8);
    memcpy(h->buf + h->n, p + whole, n - whole);
    h->n += 8;
  }
}

static psoc_hash128 h_final(hasher *h) {
  psoc_hash128 r;
  if (h->streaming) {
    h_flush(h);
    psoc_xxh3_128_digest(&h->st, &r.lo, &r.hi);
  } else {
    psoc_xxh3_128(h->buf, h->n, &r.lo, &r.hi);
  }
  return r;
}

/* Content hash of a byte range (shared with dump.c for blob hashes):
** XXH3-128 of the bytes. */
psoc_hash128 psoc_hash_bytes(const void *data, size_t size) {
  psoc_hash128 r;
  psoc_xxh3_128(data ? data : "", data ? size : 0, &r.lo, &r.hi);
  return r;
}

void psoc_hash_hex(psoc_hash128 hash, char out[33]) {
  if (!out) return;
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)hash.hi, (unsigned long long)hash.lo);
}

/* ---- hashing payloads by their descriptors ----------------------- */

enum { PTR_NULL = 0, PTR_SET = 1, PTR_FOLLOWED = 2, OBJECT_NAMED = 3 };

typedef struct hash_ctx {
  hasher h;
  uint32_t flags;
  const char *root_signature_name; /* for the current subobject, or NULL */
} hash_ctx;

static uint64_t read_scalar(const unsigned char *p, unsigned size) {
  if (size == 4) return psoc_rd32(p);
  return psoc_read_scalar(p, size);
}

static uint64_t scalar_value(uint8_t kind, unsigned size, const unsigned char *p) {
  uint64_t v = read_scalar(p, size);
  if (kind == PSOC_FIELD_FLOAT) {
    if (size == 4 && (v & 0x7f800000u) == 0x7f800000u && (v & 0x007fffffu))
      v = 0x7fc00000u;
    else if (size == 8 && (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
             (v & 0x000fffffffffffffull))
      v = 0x7ff8000000000000ull;
  }
  return v;
}

static const unsigned char *get_ptr(const unsigned char *p) {
  const unsigned char *v;
  memcpy(&v, p, sizeof v);
  return v;
}

static void hash_struct(hash_ctx *c, const psoc_struct *s, const unsigned char *p);

static void hash_elements(hash_ctx *c, const psoc_field *f, const unsigned char *p, size_t count,
                          unsigned scalar_size) {
  size_t i;
  for (i = 0; i < count; i++) {
    const unsigned char *e = p + i * f->stride;
    if (f->element)
      hash_struct(c, f->element, e);
    else
      h_word(&c->h, scalar_value(f->element_kind, scalar_size, e));
  }
}

static void hash_pointer(hash_ctx *c, const psoc_struct *s, const psoc_field *f,
                         const unsigned char *base) {
  const unsigned char *p = get_ptr(base + f->offset);
  size_t count;
  if (!p || !(c->flags & PSOC_FOLLOW_POINTERS)) {
    h_word(&c->h, p ? PTR_SET : PTR_NULL);
    return;
  }
  h_word(&c->h, PTR_FOLLOWED);
  switch (f->kind) {
  case PSOC_FIELD_ARRAY:
    count = psoc_field_count(s, f, base);
    h_word(&c->h, (uint64_t)count);
    hash_elements(c, f, p, count, f->stride);
    break;
  case PSOC_FIELD_BLOB: h_bytes(&c->h, p, psoc_field_count(s, f, base)); break;
  default: h_bytes(&c->h, p, strlen((const char *)p)); break;
  }
}

static void hash_struct(hash_ctx *c, const psoc_struct *s, const unsigned char *p) {
  uint32_t i;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    switch (f->kind) {
    case PSOC_FIELD_STRUCT:
      if (f->element) hash_struct(c, f->element, p + f->offset);
      break;
    case PSOC_FIELD_FIXED: hash_elements(c, f, p + f->offset, f->count, f->size); break;
    case PSOC_FIELD_ARRAY:
    case PSOC_FIELD_BLOB:
    case PSOC_FIELD_STRING: hash_pointer(c, s, f, p); break;
    case PSOC_FIELD_OBJECT:
      if (c->root_signature_name) {
        h_word(&c->h, OBJECT_NAMED);
        h_bytes(&c->h, (const unsigned char *)c->root_signature_name,
                strlen(c->root_signature_name));
      } else {
        h_word(&c->h, psoc_rdptr(p + f->offset));
      }
      break;
    default: h_word(&c->h, scalar_value(f->kind, f->size, p + f->offset)); break;
    }
  }
}

/* One subobject: its type, then its payload. */
static void hash_subobject(hash_ctx *c, const psoc_view *view, const char *root_signature_name) {
  c->root_signature_name = view->type == PSOC_SO_ROOT_SIGNATURE ? root_signature_name : NULL;
  h_word(&c->h, view->type);
  hash_struct(c, view->info->payload, view->payload);
}

/* Streams with more subobjects than this (necessarily with duplicates)
** are hashed by walking them once per type present. */
#define HASH_VIEWS 64

psoc_status psoc_hash(const void *data, size_t size, uint32_t flags,
                      const char *root_signature_name, psoc_hash128 *out) {
  psoc_walker walker;
  psoc_view view, views[HASH_VIEWS];
  uint8_t order[HASH_VIEWS];
  uint32_t start[PSOC_SO_TYPE_COUNT + 1] = { 0 };
  hash_ctx c;
  uint64_t present = 0, m; /* PSOC_TYPE_BIT()s of the types walked */
  uint32_t type, n = 0, i;
  if (!out) return PSOC_ERR_ARG;
  memset(out, 0, sizeof *out);
  if (!data || size == 0) return PSOC_ERR_INVALID;
  /* One walk: structure, and the subobjects kept in stream order. */
  psoc_walk_init(&walker, data, size);
  while (psoc_walk_next(&walker, &view, NULL)) {
    if (view.type >= PSOC_SO_TYPE_COUNT) return PSOC_ERR_INVALID; /* the walk knows the type */
    present |= PSOC_TYPE_BIT(view.type);
    if (n < HASH_VIEWS) views[n] = view;
    n++;
  }
  if (walker.done != 1) return PSOC_ERR_INVALID;
  /* Then the subobjects of each type, in type order and stream order. */
  h_init(&c.h);
  c.flags = flags;
  if (n <= HASH_VIEWS) {
    for (i = 0; i < n; i++) start[views[i].type + 1]++; /* a stable counting sort */
    for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) start[type + 1] += start[type];
    for (i = 0; i < n; i++) order[start[views[i].type]++] = (uint8_t)i;
    for (i = 0; i < n; i++) hash_subobject(&c, &views[order[i]], root_signature_name);
  } else {
    for (m = present; m; m &= m - 1) {
      type = psoc_lowest_bit(m);
      psoc_walk_init(&walker, data, size);
      while (psoc_walk_next(&walker, &view, NULL))
        if (view.type == type) hash_subobject(&c, &view, root_signature_name);
    }
  }
  *out = h_final(&c.h);
  return PSOC_OK;
}
