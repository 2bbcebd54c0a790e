/*
** builder.c: build self-contained pipeline state streams.
**
** A builder keeps one entry per duplicate class, each a single allocation
** holding a canonical copy of the payload followed by deep copies of every
** array, string and blob it points to. Finishing lays the subobjects out
** in insertion order, exactly as CD3DX12_PIPELINE_STATE_STREAM_SUBOBJECT
** does (type at +0, payload at +payload_offset, next subobject 8-aligned),
** in one block that also holds the out-of-line data.
**
** All payload handling is generic over the registry's field descriptors:
** one walker measures, copies or relocates the out-of-line data of any
** payload. Fields are copied one by one into zeroed memory, so padding
** bytes (in payloads and in out-of-line structs) are always zero.
**
** Allocators must return memory aligned like malloc (the lua_Alloc rule).
*/
#include <stdint.h>

#include "internal.h"

#define PIECE_ALIGN 8u

/* ---- the generic out-of-line walker ------------------------------ */

typedef enum walk_mode {
  WALK_MEASURE, /* add up the bytes the out-of-line data needs */
  WALK_COPY,    /* copy fields to 'dst' and pieces to the bump area */
  WALK_REBASE   /* rewrite pointers into the old block to the new one */
} walk_mode;

typedef struct walk {
  walk_mode mode;
  size_t need;                 /* MEASURE: bytes so far */
  unsigned char *next, *end;   /* COPY: where the next piece goes */
  uintptr_t old_lo, old_hi;    /* REBASE: the old block [lo, hi) */
  unsigned char *new_lo;       /* REBASE: the new block */
} walk;

/* Size of one out-of-line piece in the block (at least one slot, so that
** a non-null pointer to zero elements stays non-null and inside). */
static psoc_status piece_size(size_t n, size_t *out) {
  if (n == 0) n = 1;
  if (n > SIZE_MAX - (PIECE_ALIGN - 1)) return PSOC_ERR_SIZE;
  *out = PSOC_ALIGN_UP(n, PIECE_ALIGN);
  return PSOC_OK;
}

/* Reserve a piece of n bytes: MEASURE counts it, COPY hands it out. */
static psoc_status reserve(walk *w, size_t n, unsigned char **out) {
  size_t sz;
  psoc_status st = piece_size(n, &sz);
  *out = NULL;
  if (st != PSOC_OK) return st;
  if (w->mode == WALK_MEASURE) {
    if (w->need > SIZE_MAX - sz) return PSOC_ERR_SIZE;
    w->need += sz;
    return PSOC_OK;
  }
  if ((size_t)(w->end - w->next) < sz) return PSOC_ERR_SIZE; /* measure/copy mismatch */
  *out = w->next;
  w->next += sz;
  return PSOC_OK;
}

static int has_pointers(const psoc_struct *s) {
  uint32_t i;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    switch (f->kind) {
    case PSOC_FIELD_ARRAY:
    case PSOC_FIELD_BLOB:
    case PSOC_FIELD_STRING: return 1;
    case PSOC_FIELD_STRUCT:
    case PSOC_FIELD_FIXED:
      if (f->element && has_pointers(f->element)) return 1;
      break;
    default: break;
    }
  }
  return 0;
}

static void put_ptr(unsigned char *p, const void *v) { memcpy(p, &v, sizeof v); }
static const unsigned char *get_ptr(const unsigned char *p) {
  const unsigned char *v;
  memcpy(&v, p, sizeof v);
  return v;
}

static psoc_status walk_struct(walk *w, const psoc_struct *s, const unsigned char *src,
                               unsigned char *dst);

/* A pointer field: ARRAY, BLOB or STRING. */
static psoc_status walk_pointer(walk *w, const psoc_struct *s, const psoc_field *f,
                                const unsigned char *src, unsigned char *dst) {
  const unsigned char *p = get_ptr(src + f->offset);
  size_t count = 0, bytes = 0, i;
  unsigned char *q;
  psoc_status st;
  if (w->mode == WALK_REBASE) {
    uintptr_t u = (uintptr_t)p;
    if (p == NULL || u < w->old_lo || u >= w->old_hi) return PSOC_OK; /* not ours */
    q = w->new_lo + (u - w->old_lo);
    put_ptr(dst + f->offset, q);
    if (f->kind == PSOC_FIELD_ARRAY && f->element && has_pointers(f->element)) {
      count = psoc_field_count(s, f, dst);
      for (i = 0; i < count; i++) {
        st = walk_struct(w, f->element, q + i * f->stride, q + i * f->stride);
        if (st != PSOC_OK) return st;
      }
    }
    return PSOC_OK;
  }
  if (f->kind != PSOC_FIELD_STRING) count = psoc_field_count(s, f, src);
  if (p == NULL) return count == 0 ? PSOC_OK : PSOC_ERR_ARG; /* dst is already zero */
  switch (f->kind) {
  case PSOC_FIELD_ARRAY:
    if (f->stride == 0 || count > SIZE_MAX / f->stride) return PSOC_ERR_SIZE;
    bytes = count * f->stride;
    break;
  case PSOC_FIELD_BLOB: bytes = count; break;
  default: bytes = strlen((const char *)p) + 1; break;
  }
  st = reserve(w, bytes, &q);
  if (st != PSOC_OK) return st;
  if (w->mode == WALK_COPY) put_ptr(dst + f->offset, q);
  if (f->kind == PSOC_FIELD_ARRAY && f->element) {
    int deep = has_pointers(f->element);
    if (w->mode == WALK_MEASURE && !deep) return PSOC_OK;
    for (i = 0; i < count; i++) {
      st = walk_struct(w, f->element, p + i * f->stride, q ? q + i * f->stride : NULL);
      if (st != PSOC_OK) return st;
    }
  } else if (w->mode == WALK_COPY && bytes) {
    memcpy(q, p, bytes);
  }
  return PSOC_OK;
}

/* Walk one struct: COPY copies each described field from src to dst
** (never the padding), every mode handles the pointers. */
static psoc_status walk_struct(walk *w, const psoc_struct *s, const unsigned char *src,
                               unsigned char *dst) {
  uint32_t i, j;
  psoc_status st;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    switch (f->kind) {
    case PSOC_FIELD_STRUCT:
      if (!f->element) break;
      st = walk_struct(w, f->element, src + f->offset, dst ? dst + f->offset : NULL);
      if (st != PSOC_OK) return st;
      break;
    case PSOC_FIELD_FIXED:
      for (j = 0; j < f->count; j++) {
        size_t at = f->offset + (size_t)j * f->stride;
        if (f->element) {
          st = walk_struct(w, f->element, src + at, dst ? dst + at : NULL);
          if (st != PSOC_OK) return st;
        } else if (w->mode == WALK_COPY) {
          memcpy(dst + at, src + at, f->size);
        }
      }
      break;
    case PSOC_FIELD_ARRAY:
    case PSOC_FIELD_BLOB:
    case PSOC_FIELD_STRING:
      st = walk_pointer(w, s, f, src, dst);
      if (st != PSOC_OK) return st;
      break;
    default: /* scalars, COUNT and OBJECT: copied by value */
      if (w->mode == WALK_COPY) memcpy(dst + f->offset, src + f->offset, f->size);
      break;
    }
  }
  return PSOC_OK;
}

/* ---- builder ----------------------------------------------------- */

typedef struct entry {
  const psoc_subobject_info *info;
  unsigned char *block; /* payload copy, then its out-of-line data */
  size_t block_size;
} entry;

struct psoc_builder {
  psoc_allocator alloc;
  size_t count;
  entry entries[PSOC_SO_TYPE_COUNT]; /* at most one per duplicate class */
};

/* Stream blocks: this header, then the stream bytes, then the pieces. */
struct psoc_stream {
  psoc_allocator alloc;
  size_t block_size;
  size_t size;
};

#define STREAM_HEADER PSOC_ALIGN_UP(sizeof(struct psoc_stream), 16)

static unsigned char *stream_bytes(psoc_stream *s) { return (unsigned char *)s + STREAM_HEADER; }

psoc_status psoc_builder_new(const psoc_allocator *alloc, psoc_builder **out) {
  psoc_allocator a = psoc_alloc_or_default(alloc);
  psoc_builder *b;
  if (!out) return PSOC_ERR_ARG;
  *out = NULL;
  b = psoc_mem(&a, NULL, 0, sizeof *b);
  if (!b) return PSOC_ERR_NOMEM;
  memset(b, 0, sizeof *b);
  b->alloc = a;
  *out = b;
  return PSOC_OK;
}

static void entry_free(psoc_builder *b, entry *e) {
  if (e->block) psoc_mem(&b->alloc, e->block, e->block_size, 0);
  e->block = NULL;
  e->block_size = 0;
  e->info = NULL;
}

void psoc_builder_reset(psoc_builder *b) {
  size_t i;
  if (!b) return;
  for (i = 0; i < b->count; i++) entry_free(b, &b->entries[i]);
  b->count = 0;
}

void psoc_builder_free(psoc_builder *b) {
  psoc_allocator a;
  if (!b) return;
  psoc_builder_reset(b);
  a = b->alloc;
  psoc_mem(&a, b, sizeof *b, 0);
}

size_t psoc_builder_count(const psoc_builder *b) { return b ? b->count : 0; }

/* Deep-copy a payload into a new entry (one allocation). */
static psoc_status entry_make(psoc_builder *b, const psoc_subobject_info *info,
                              const void *payload, entry *out) {
  walk w;
  size_t head, total;
  unsigned char *block;
  psoc_status st;
  memset(&w, 0, sizeof w);
  w.mode = WALK_MEASURE;
  st = walk_struct(&w, info->payload, payload, NULL);
  if (st != PSOC_OK) return st;
  head = PSOC_ALIGN_UP((size_t)info->payload->size, PIECE_ALIGN);
  if (w.need > SIZE_MAX - head) return PSOC_ERR_SIZE;
  total = head + w.need;
  block = psoc_mem(&b->alloc, NULL, 0, total);
  if (!block) return PSOC_ERR_NOMEM;
  memset(block, 0, total);
  w.mode = WALK_COPY;
  w.next = block + head;
  w.end = block + total;
  st = walk_struct(&w, info->payload, payload, block);
  if (st != PSOC_OK) { /* cannot happen: the measure pass checked everything */
    psoc_mem(&b->alloc, block, total, 0);
    return st;
  }
  out->info = info;
  out->block = block;
  out->block_size = total;
  return PSOC_OK;
}

static entry *find_class(psoc_builder *b, uint32_t dup_class) {
  size_t i;
  for (i = 0; i < b->count; i++)
    if (b->entries[i].info->dup_class == dup_class) return &b->entries[i];
  return NULL;
}

static psoc_status put(psoc_builder *b, uint32_t type, const void *payload, size_t payload_size,
                       int replace) {
  const psoc_subobject_info *info;
  entry e, *old;
  psoc_status st;
  if (!b || !payload) return PSOC_ERR_ARG;
  info = psoc_subobject_info_get(type);
  if (!info || !info->payload) return PSOC_ERR_TYPE;
  if (payload_size != info->payload->size) return PSOC_ERR_SIZE;
  old = find_class(b, info->dup_class);
  if (old && !replace) return PSOC_ERR_DUPLICATE;
  if (!old && b->count >= PSOC_SO_TYPE_COUNT) return PSOC_ERR_DUPLICATE; /* cannot happen */
  st = entry_make(b, info, payload, &e);
  if (st != PSOC_OK) return st;
  if (old) {
    entry_free(b, old);
    *old = e;
  } else {
    b->entries[b->count++] = e;
  }
  return PSOC_OK;
}

psoc_status psoc_builder_add(psoc_builder *b, uint32_t type, const void *payload,
                             size_t payload_size) {
  return put(b, type, payload, payload_size, 0);
}

psoc_status psoc_builder_set(psoc_builder *b, uint32_t type, const void *payload,
                             size_t payload_size) {
  return put(b, type, payload, payload_size, 1);
}

psoc_status psoc_builder_finish(psoc_builder *b, psoc_stream **out) {
  size_t i, size = 0, total, off;
  walk w;
  psoc_stream *s;
  unsigned char *bytes;
  psoc_status st;
  if (out) *out = NULL;
  if (!b || !out) return PSOC_ERR_ARG;
  memset(&w, 0, sizeof w);
  w.mode = WALK_MEASURE;
  for (i = 0; i < b->count; i++) {
    const entry *e = &b->entries[i];
    size += e->info->stride; /* at most 30 strides of a few hundred bytes */
    st = walk_struct(&w, e->info->payload, e->block, NULL);
    if (st != PSOC_OK) return st;
  }
  if (w.need > SIZE_MAX - STREAM_HEADER - size) return PSOC_ERR_SIZE;
  total = STREAM_HEADER + size + w.need;
  s = psoc_mem(&b->alloc, NULL, 0, total);
  if (!s) return PSOC_ERR_NOMEM;
  memset(s, 0, total);
  s->alloc = b->alloc;
  s->block_size = total;
  s->size = size;
  bytes = stream_bytes(s);
  w.mode = WALK_COPY;
  w.next = bytes + size;
  w.end = (unsigned char *)s + total;
  for (i = 0, off = 0; i < b->count; i++) {
    const entry *e = &b->entries[i];
    uint32_t type = e->info->type;
    memcpy(bytes + off, &type, sizeof type);
    st = walk_struct(&w, e->info->payload, e->block, bytes + off + e->info->payload_offset);
    if (st != PSOC_OK) { /* cannot happen: measured above */
      psoc_mem(&b->alloc, s, total, 0);
      return st;
    }
    off += e->info->stride;
  }
  *out = s;
  return PSOC_OK;
}

/* ---- streams ----------------------------------------------------- */

D3D12_PIPELINE_STATE_STREAM_DESC psoc_stream_desc(const psoc_stream *s) {
  D3D12_PIPELINE_STATE_STREAM_DESC d;
  d.SizeInBytes = s ? s->size : 0;
  d.pPipelineStateSubobjectStream = s ? stream_bytes((psoc_stream *)s) : NULL;
  return d;
}

const void *psoc_stream_data(const psoc_stream *s) {
  return s ? stream_bytes((psoc_stream *)s) : NULL;
}

size_t psoc_stream_size(const psoc_stream *s) { return s ? s->size : 0; }

psoc_status psoc_stream_copy(const psoc_stream *s, const psoc_allocator *alloc,
                             psoc_stream **out) {
  psoc_allocator a = psoc_alloc_or_default(alloc);
  psoc_stream *c;
  unsigned char *bytes;
  size_t off;
  walk w;
  if (out) *out = NULL;
  if (!s || !out) return PSOC_ERR_ARG;
  c = psoc_mem(&a, NULL, 0, s->block_size);
  if (!c) return PSOC_ERR_NOMEM;
  memcpy(c, s, s->block_size);
  c->alloc = a;
  memset(&w, 0, sizeof w);
  w.mode = WALK_REBASE;
  w.old_lo = (uintptr_t)s;
  w.old_hi = (uintptr_t)s + s->block_size;
  w.new_lo = (unsigned char *)c;
  bytes = stream_bytes(c);
  /* The stream is ours, so it is well-formed: walk it directly. */
  for (off = 0; off + sizeof(uint32_t) <= c->size;) {
    const psoc_subobject_info *info = psoc_subobject_info_get(psoc_rd32(bytes + off));
    psoc_status st;
    if (!info || info->stride > c->size - off) break;
    st = walk_struct(&w, info->payload, bytes + off + info->payload_offset,
                     bytes + off + info->payload_offset);
    if (st != PSOC_OK) {
      psoc_mem(&a, c, c->block_size, 0);
      return st;
    }
    off += info->stride;
  }
  *out = c;
  return PSOC_OK;
}

void psoc_stream_free(psoc_stream *s) {
  psoc_allocator a;
  if (!s) return;
  a = s->alloc;
  psoc_mem(&a, s, s->block_size, 0);
}
