/*
** builder.c: build self-contained pipeline state streams.
**
** A builder keeps one entry per duplicate class, in two buffers:
**   - the image: the stream bytes exactly as finish writes them, laid out
**     like CD3DX12_PIPELINE_STATE_STREAM_SUBOBJECT (type at +0, payload
**     at +payload_offset, next subobject 8-aligned), in insertion order;
**   - the arena: per entry, one run of deep copies of every array, string
**     and blob its payload points to ("pieces", 8-aligned, in field
**     order, depth first). Inside the builder a pointer to a piece holds
**     1 + the piece's offset in its run, so runs can move when the arena
**     grows or is compacted; reset rewinds the arena.
** Finishing is one allocation: the image, then the runs (one memcpy each,
** usually one for all), then the offsets turned into pointers.
**
** All payload handling is generic over the registry's field descriptors.
** The first time a builder sees a payload type it compiles a copy plan
** from them: a mask with 0xff bytes where a described field lives, and
** the list of pointer fields (nested ones flattened). Copying a struct is
** then one masked word copy, so padding bytes (in payloads and in
** out-of-line structs) are always zero, plus a walk over its pointers.
**
** Allocators must return memory aligned like malloc (the lua_Alloc rule).
*/
#include <stdint.h>
#include <stdlib.h>
#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif

#include "internal.h"

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define NOINLINE __declspec(noinline)
#else
#define NOINLINE
#endif

/* For the few helpers of the per-piece loops that the compiler would
** otherwise call (MSVC inlines them at /O2 anyway). */
#if defined(__GNUC__)
#define HOT_INLINE inline __attribute__((always_inline))
#else
#define HOT_INLINE inline
#endif

#define PIECE_ALIGN 8u
#define ARENA_MIN 4096u

/* ---- copy plans --------------------------------------------------- */

typedef struct plan plan;

typedef struct plan_ptr {
  uint32_t at;         /* offset of the pointer in the struct */
  uint32_t count_at;   /* ARRAY, BLOB: offset of the count or size */
  uint32_t stride;     /* ARRAY: bytes between elements */
  uint8_t kind;        /* PSOC_FIELD_ARRAY, _BLOB or _STRING */
  uint8_t count_size;  /* bytes of the count */
  const plan *element; /* ARRAY of structs: how to copy one element */
} plan_ptr;

/* A word of the struct that holds padding: after the plain copy of the
** struct, the 8 bytes at 'at' are ANDed with 'keep' (at + 8 <= size). */
typedef struct plan_fix {
  uint64_t keep;
  uint32_t at;
} plan_fix;

struct plan {
  const psoc_subobject_info *info; /* a type's plan: its type, and copies of */
  uint32_t type, dup_class, stride, payload_offset; /* what adding needs */
  size_t block_size;    /* a type's plan: bytes of its allocation */
  uint32_t size;        /* bytes of the struct (of an element: the stride) */
  uint32_t nptrs;       /* pointer fields, including those of nested structs */
  uint32_t nfix;        /* words with padding (see plan_fix) */
  uint64_t head;        /* a type's plan: the subobject's first 8 bytes (type, 0) */
  int masked;           /* padding in a struct under 8 bytes: copy with the mask */
  int blob_only;        /* one pointer field, a BLOB (shader bytecode, cached blobs) */
  int flat_array;       /* one pointer field, an ARRAY of structs whose own pointer
                           fields are all STRINGs (input layouts, view instancing) */
  int copy_out;         /* over 64 bytes, or masked: add copies it out of line */
  const uint64_t *mask; /* (size + 7) / 8 words; 0xff where a field lives */
  const plan_fix *fix;  /* in offset order */
  const plan_ptr *ptrs; /* in field order */
};

/* A bump allocator over a plan's block; with base NULL it only counts. */
typedef struct plan_alloc {
  unsigned char *base;
  size_t used;
} plan_alloc;

static void *plan_take(plan_alloc *pa, size_t n) {
  void *p = pa->base ? pa->base + pa->used : NULL;
  pa->used += PSOC_ALIGN_UP(n, 8);
  return p;
}

static uint32_t count_ptrs(const psoc_struct *s) {
  uint32_t i, n = 0;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    switch (f->kind) {
    case PSOC_FIELD_ARRAY:
    case PSOC_FIELD_BLOB:
    case PSOC_FIELD_STRING: n++; break;
    case PSOC_FIELD_STRUCT:
      if (f->element) n += count_ptrs(f->element);
      break;
    case PSOC_FIELD_FIXED:
      if (f->element) n += f->count * count_ptrs(f->element);
      break;
    default: break;
    }
  }
  return n;
}

/* The size of the COUNT field an ARRAY or BLOB reads (as psoc_field_count). */
static uint8_t count_size(const psoc_struct *s, const psoc_field *f) {
  uint32_t i;
  for (i = 0; i < s->field_count; i++)
    if (s->fields[i].kind == PSOC_FIELD_COUNT && s->fields[i].offset == f->count_offset)
      return s->fields[i].size;
  return f->kind == PSOC_FIELD_BLOB ? (uint8_t)sizeof(SIZE_T) : 4u;
}

static void mark(unsigned char *mask, size_t limit, size_t at, size_t n) {
  if (!mask || at >= limit) return;
  if (n > limit - at) n = limit - at;
  memset(mask + at, 0xff, n);
}

static plan *plan_make(plan_alloc *pa, const psoc_struct *s, uint32_t size);

/* Mark the fields of 's' (placed at 'base') and list its pointer fields. */
static void plan_fields(plan_alloc *pa, const psoc_struct *s, size_t base, unsigned char *mask,
                        size_t limit, plan_ptr *ptrs, uint32_t *n) {
  uint32_t i, j;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    size_t at = base + f->offset;
    switch (f->kind) {
    case PSOC_FIELD_STRUCT:
      if (f->element) plan_fields(pa, f->element, at, mask, limit, ptrs, n);
      break;
    case PSOC_FIELD_FIXED:
      for (j = 0; j < f->count; j++) {
        if (f->element)
          plan_fields(pa, f->element, at + (size_t)j * f->stride, mask, limit, ptrs, n);
        else
          mark(mask, limit, at + (size_t)j * f->stride, f->size);
      }
      break;
    case PSOC_FIELD_ARRAY:
    case PSOC_FIELD_BLOB:
    case PSOC_FIELD_STRING: {
      const plan *element = NULL;
      mark(mask, limit, at, sizeof(void *));
      if (f->kind == PSOC_FIELD_ARRAY && f->element) element = plan_make(pa, f->element, f->stride);
      if (ptrs) {
        plan_ptr *p = &ptrs[*n];
        p->at = (uint32_t)at;
        p->count_at = (uint32_t)(base + f->count_offset);
        p->stride = f->stride;
        p->kind = f->kind;
        p->count_size = f->kind == PSOC_FIELD_STRING ? 0 : count_size(s, f);
        p->element = element;
      }
      (*n)++;
      break;
    }
    default: /* scalars, COUNT and OBJECT */
      mark(mask, limit, at, f->size);
      break;
    }
  }
}

/* The padding words of a struct whose byte mask is 'm' (size bytes): each
** run of padding bytes is covered by 8-byte words inside the struct. */
static uint32_t plan_fixes(const unsigned char *m, uint32_t size, plan_fix *fix) {
  uint32_t i = 0, n = 0, at, k;
  while (i < size) {
    if (m[i]) {
      i++;
      continue;
    }
    at = i & ~7u;
    if (at + 8 > size) at = size - 8; /* size >= 8: the caller checked */
    fix[n].at = at;
    fix[n].keep = 0;
    for (k = 0; k < 8; k++)
      if (m[at + k]) fix[n].keep |= (uint64_t)0xff << (8 * k);
    n++;
    i = at + 8;
  }
  return n;
}

/* Lay out (base NULL: measure) the plan of struct 's', 'size' bytes long. */
static plan *plan_make(plan_alloc *pa, const psoc_struct *s, uint32_t size) {
  uint32_t words = (size + 7) / 8, nptrs = count_ptrs(s), n = 0, i;
  plan *p = plan_take(pa, sizeof *p);
  uint64_t *mask = plan_take(pa, (size_t)words * sizeof *mask);
  plan_fix *fix = plan_take(pa, (size_t)words * sizeof *fix);
  plan_ptr *ptrs = plan_take(pa, (size_t)nptrs * sizeof *ptrs);
  if (p) {
    memset(mask, 0, (size_t)words * sizeof *mask);
    memset(p, 0, sizeof *p); /* a type's fields: make_plan */
    p->size = size;
    p->nptrs = nptrs;
    p->mask = mask;
    p->fix = fix;
    p->ptrs = ptrs;
  }
  plan_fields(pa, s, 0, (unsigned char *)mask, size, ptrs, &n);
  if (p) {
    const unsigned char *m = (const unsigned char *)mask;
    p->nfix = 0;
    p->masked = 0;
    if (size < 8) {
      for (i = 0; i < size; i++)
        if (!m[i]) p->masked = 1;
    } else {
      p->nfix = plan_fixes(m, size, fix);
    }
  }
  return p;
}

/* ---- copying ------------------------------------------------------ */

static void put_ptr(unsigned char *p, const void *v) { memcpy(p, &v, sizeof v); }
static const unsigned char *get_ptr(const unsigned char *p) {
  const unsigned char *v;
  memcpy(&v, p, sizeof v);
  return v;
}
static void put_offset(unsigned char *p, size_t off) {
  uintptr_t v = (uintptr_t)off;
  memcpy(p, &v, sizeof v);
}
static size_t get_offset(const unsigned char *p) {
  uintptr_t v;
  memcpy(&v, p, sizeof v);
  return (size_t)v;
}

/* A count of 4 or 8 bytes (the only sizes add reads inline). */
static inline size_t count_word(const unsigned char *p, unsigned size) {
  if (size == 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    return (size_t)v;
  }
  return psoc_rd32(p);
}

static HOT_INLINE size_t read_count(const unsigned char *p, unsigned size) {
  if (size == 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    return (size_t)v;
  }
  if (size == 4) return psoc_rd32(p);
  return (size_t)psoc_read_scalar(p, size);
}

/* Copy the plan->size bytes of a struct, keeping only the fields' bytes
** (every other byte becomes zero). */
static inline void masked_copy(unsigned char *dst, const unsigned char *src, const plan *pl) {
  const uint64_t *mask = pl->mask;
  uint32_t i = 0, full = pl->size / 8, rest = pl->size % 8;
#if defined(__SSE2__) || defined(_M_X64)
  for (; i + 2 <= full; i += 2) { /* 16 bytes at a time */
    __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(src + 8 * (size_t)i));
    __m128i m = _mm_loadu_si128((const __m128i *)(const void *)(mask + i));
    _mm_storeu_si128((__m128i *)(void *)(dst + 8 * (size_t)i), _mm_and_si128(w, m));
  }
#endif
  for (; i + 2 <= full; i += 2) {
    uint64_t w0, w1;
    memcpy(&w0, src + 8 * (size_t)i, 8);
    memcpy(&w1, src + 8 * (size_t)i + 8, 8);
    w0 &= mask[i];
    w1 &= mask[i + 1];
    memcpy(dst + 8 * (size_t)i, &w0, 8);
    memcpy(dst + 8 * (size_t)i + 8, &w1, 8);
  }
  if (i < full) {
    uint64_t w;
    memcpy(&w, src + 8 * (size_t)i, 8);
    w &= mask[i];
    memcpy(dst + 8 * (size_t)i, &w, 8);
  }
  if (rest) {
    const unsigned char *m = (const unsigned char *)&mask[full];
    src += 8 * (size_t)full;
    dst += 8 * (size_t)full;
    i = 0;
    if (rest >= 4) {
      uint32_t w, mw;
      memcpy(&w, src, 4);
      memcpy(&mw, m, 4);
      w &= mw;
      memcpy(dst, &w, 4);
      i = 4;
    }
    for (; i < rest; i++) dst[i] = src[i] & m[i];
  }
}

/* Copy exactly n bytes (the source and the destination do not overlap):
** copy_small up to 64, inline in overlapping words; copy_exact any. */
static inline void copy_small(unsigned char *d, const unsigned char *src, size_t n) {
  if (n <= 16) {
    if (n >= 8) {
      memcpy(d, src, 8);
      memcpy(d + n - 8, src + n - 8, 8);
    } else if (n >= 4) {
      memcpy(d, src, 4);
      memcpy(d + n - 4, src + n - 4, 4);
    } else if (n >= 2) {
      memcpy(d, src, 2);
      memcpy(d + n - 2, src + n - 2, 2);
    } else if (n) {
      d[0] = src[0];
    }
  } else if (n <= 32) { /* two overlapping halves */
    memcpy(d, src, 16);
    memcpy(d + n - 16, src + n - 16, 16);
  } else if (n <= 64) {
    memcpy(d, src, 32);
    memcpy(d + n - 32, src + n - 32, 32);
  }
}

static inline void copy_exact(unsigned char *d, const unsigned char *src, size_t n) {
  if (n <= 64)
    copy_small(d, src, n);
  else
    memcpy(d, src, n);
}

/* Zero the padding of a struct copied plainly from 'src' to 'd' (its
** plan_fix words). Each word is read again from 'src', not from 'd': a
** load from bytes the copy has just stored (wider stores, other offsets)
** would wait for them to leave the store buffer. */
static HOT_INLINE void zero_word(unsigned char *d, const unsigned char *src, const plan_fix *f) {
  uint64_t w;
  memcpy(&w, src + f->at, 8);
  w &= f->keep;
  memcpy(d + f->at, &w, 8);
}

static inline void zero_padding(unsigned char *d, const unsigned char *src, const plan *pl) {
  const plan_fix *f = pl->fix, *end = f + pl->nfix;
  if (pl->nfix & 1) zero_word(d, src, f++);
  for (; f < end; f += 2) { /* two at a time: a blend desc has eight */
    zero_word(d, src, f);
    zero_word(d, src, f + 1);
  }
}

/* Copy the plan->size bytes of a struct, keeping only the fields' bytes
** (every other byte becomes zero): a plain copy, then the padding words. */
static inline void struct_copy(unsigned char *dst, const unsigned char *src, const plan *pl) {
  if (pl->masked) {
    masked_copy(dst, src, pl);
    return;
  }
  copy_exact(dst, src, pl->size);
  zero_padding(dst, src, pl);
}

/* Copy 'count' elements of 'stride' bytes (an array of structs). */
static inline void array_copy(unsigned char *dst, const unsigned char *src, const plan *el,
                              size_t count) {
  size_t k;
  if (!el->masked && !el->nfix) {
    memcpy(dst, src, count * el->size);
    return;
  }
  for (k = 0; k < count; k++) struct_copy(dst + k * el->size, src + k * el->size, el);
}

/* Size of one out-of-line piece (at least one slot, so that a non-null
** pointer to zero elements stays non-null and inside the block). */
static HOT_INLINE psoc_status piece_size(size_t n, size_t *out) {
  if (n == 0) n = 1;
  if (n > SIZE_MAX - (PIECE_ALIGN - 1)) return PSOC_ERR_SIZE;
  *out = PSOC_ALIGN_UP(n, PIECE_ALIGN);
  return PSOC_OK;
}

/* ---- builder ------------------------------------------------------ */

typedef struct entry {
  const plan *plan;   /* its type's */
  size_t image_at;    /* offset of the subobject in the image */
  size_t pieces_at;   /* arena offset of its pieces (PSOC_BUILDER_COPY) */
  size_t arena_size;  /* bytes of its pieces in the arena (PSOC_BUILDER_COPY) */
  size_t pieces_size; /* bytes of its pieces in the finished stream */
  int mode;           /* psoc_builder_mode it was added in; in the other modes
                         the image holds the caller's pointers */
} entry;

struct psoc_builder {
  /* First (psoc.h): image, image_size, count, slot (per duplicate class:
  ** index in entries, or -1) and the inline add's sizes in this mode. */
  psoc_builder_head h;
  psoc_allocator alloc;
  size_t block_size;                    /* this struct plus the image */
  /* Insertion order. Only those with their bit in 'written' are written:
  ** the inline add (psoc.h) and add_commit leave an entry without pieces to
  ** sync_entries, which reads its type from the image; what reads entries
  ** other than those with pieces syncs them first. */
  entry entries[PSOC_SO_TYPE_COUNT];
  uint64_t written;
  const plan *plans[PSOC_SO_TYPE_COUNT]; /* per type, made on first use */
  const plan *fast[PSOC_SO_TYPE_COUNT];  /* the plans add takes inline in this mode */
  /* Per type, copies of the fast plan's payload size (0 where fast is
  ** NULL) and duplicate class: add's checks load them side by side rather
  ** than one after the other through the plan. */
  uint32_t fast_size[PSOC_SO_TYPE_COUNT];
  uint8_t fast_class[PSOC_SO_TYPE_COUNT];
  /* The same three per mode, kept as plans are made, and the types whose
  ** plans have pointer fields (the only ones whose entries differ between
  ** modes): a mode change copies those few entries (the Lua module changes
  ** the mode between shaders and arrays within one pipeline). */
  struct fast_set {
    const plan *plan[PSOC_SO_TYPE_COUNT];
    uint32_t size[PSOC_SO_TYPE_COUNT];
    uint32_t inline_size[PSOC_SO_TYPE_COUNT]; /* h.inline_size in that mode */
    uint8_t cls[PSOC_SO_TYPE_COUNT];
  } fast_modes[4];
  uint8_t mode_types[PSOC_SO_TYPE_COUNT];
  uint32_t mode_type_count;
  /* h.image: the stream bytes as finish will write them, pointers to
  ** pieces held as offsets. Room for the largest member of every class,
  ** plus one subobject under construction and one of scratch. */
  size_t image_scratch;
  /* The pieces: each entry's in one run, runs in insertion order unless a
  ** set replaced an entry; replaced runs are garbage until compacted. */
  unsigned char *arena;
  size_t arena_cap, arena_top, arena_garbage, arena_live;
  size_t pieces_size;  /* bytes of every entry's pieces in a finished stream */
  size_t deferred;     /* entries whose pieces finish copies from the caller */
  /* The entries with pieces (pieces_size > 0), in insertion order, so that
  ** finish skips the others; stale after a set replaced an entry. */
  uint8_t with_pieces[PSOC_SO_TYPE_COUNT];
  size_t nwith_pieces;
  int with_pieces_stale;
  int mode;            /* psoc_builder_mode of the next add or set */
  size_t arena_limit; /* offsets beyond it would overflow a finished stream's size */
  int pieces_shuffled; /* a set replaced an entry with pieces: runs may be out of order */
  int plain_alloc;     /* the default allocator (realloc and free): finish calls malloc */
};

/* Stream blocks: this header, then the stream bytes, then the pieces. */
struct psoc_stream {
  psoc_allocator alloc;
  size_t block_size;
  size_t size;
};

#define STREAM_HEADER PSOC_ALIGN_UP(sizeof(struct psoc_stream), 16)

/* The allocator's user data of a block finish took from malloc (the
** default allocator ignores it): psoc_stream_free calls free directly. */
static char plain_block;
#define BUILDER_HEADER PSOC_ALIGN_UP(sizeof(struct psoc_builder), 16)

static unsigned char *stream_bytes(psoc_stream *s) { return (unsigned char *)s + STREAM_HEADER; }

psoc_status psoc_builder_new(const psoc_allocator *alloc, psoc_builder **out) {
  psoc_allocator a = psoc_alloc_or_default(alloc);
  psoc_builder *b;
  uint32_t widest[PSOC_SO_TYPE_COUNT] = { 0 }, type;
  size_t image = 0, largest = 0;
  if (!out) return PSOC_ERR_ARG;
  *out = NULL;
  for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(type);
    if (!info || !info->payload || info->dup_class >= PSOC_SO_TYPE_COUNT) continue;
    if (info->stride > widest[info->dup_class]) widest[info->dup_class] = info->stride;
    if (info->stride > largest) largest = info->stride;
  }
  for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) image += widest[type];
  b = psoc_mem(&a, NULL, 0, BUILDER_HEADER + image + 2 * largest);
  if (!b) return PSOC_ERR_NOMEM;
  memset(b, 0, sizeof *b);
  memset(b->h.slot, -1, sizeof b->h.slot);
  b->alloc = a;
  b->plain_alloc = !alloc || !alloc->fn;
  b->block_size = BUILDER_HEADER + image + 2 * largest;
  b->h.image = (unsigned char *)b + BUILDER_HEADER;
  b->image_scratch = image + largest;
  b->arena_limit = SIZE_MAX - STREAM_HEADER - b->block_size;
  *out = b;
  return PSOC_OK;
}

void psoc_builder_reset(psoc_builder *b) {
  if (!b) return;
  b->h.count = 0;
  memset(b->h.slot, -1, sizeof b->h.slot);
  b->h.image_size = 0;
  b->arena_top = b->arena_garbage = b->arena_live = b->pieces_size = 0; /* the arena and plans stay */
  b->deferred = 0;
  b->written = 0;
  b->nwith_pieces = 0;
  b->with_pieces_stale = 0;
  b->pieces_shuffled = 0;
}

void psoc_builder_free(psoc_builder *b) {
  psoc_allocator a;
  size_t i;
  if (!b) return;
  a = b->alloc;
  for (i = 0; i < PSOC_SO_TYPE_COUNT; i++)
    if (b->plans[i]) psoc_mem(&a, (void *)b->plans[i], b->plans[i]->block_size, 0);
  if (b->arena) psoc_mem(&a, b->arena, b->arena_cap, 0);
  psoc_mem(&a, b, b->block_size, 0);
}

size_t psoc_builder_count(const psoc_builder *b) { return b ? b->h.count : 0; }

/* Every count of the plan's pointer fields is 4 or 8 bytes (add reads
** them inline). */
static int counts_are_words(const plan *p) {
  uint32_t i;
  for (i = 0; i < p->nptrs; i++)
    if (p->ptrs[i].kind != PSOC_FIELD_STRING && p->ptrs[i].count_size != 4 &&
        p->ptrs[i].count_size != 8)
      return 0;
  return 1;
}

/* The mode an entry of plan 'p' is added in when the builder's mode is
** 'm': PSOC_BUILDER_BORROW_BLOBS stands for BORROW where the payload's one
** pointer is a blob and for COPY_AT_FINISH everywhere else. */
static int mode_for(int m, const plan *p) {
  if (m != PSOC_BUILDER_BORROW_BLOBS) return m;
  return p->blob_only ? PSOC_BUILDER_BORROW : PSOC_BUILDER_COPY_AT_FINISH;
}

/* What psoc_builder_add_inline (psoc.h) does in mode 'm': a payload
** without padding bytes and without pointer fields, or a shader stage's
** (one blob, which it checks) in PSOC_BUILDER_BORROW mode. */
static int inline_takes(const plan *p, int m) {
  if (p->masked || p->nfix) return 0;
  if (!p->nptrs) return 1;
  return m == PSOC_BUILDER_BORROW && p->blob_only && (p->info->bits & PSOC_SUBOBJECT_SHADER) &&
         p->size == sizeof(D3D12_SHADER_BYTECODE);
}

/* add's inline case: a plan without pointer fields, one whose pointers
** are borrowed, or a single blob or flat array in COPY_AT_FINISH mode.
** Records the new plan 'p' in every mode's set and in the current one. */
static void fast_update(psoc_builder *b, const plan *p) {
  uint32_t t = p->type;
  int i;
  for (i = 0; i < 4; i++) {
    struct fast_set *f = &b->fast_modes[i];
    int m = mode_for(i, p);
    int take = !p->nptrs || (counts_are_words(p) &&
                             (m == PSOC_BUILDER_BORROW ||
                              (m == PSOC_BUILDER_COPY_AT_FINISH && (p->blob_only || p->flat_array))));
    f->plan[t] = take ? p : NULL;
    f->size[t] = take ? p->size : 0;
    f->cls[t] = take ? (uint8_t)p->dup_class : 0;
    f->inline_size[t] = inline_takes(p, m) ? p->size : 0;
  }
  if (p->nptrs) b->mode_types[b->mode_type_count++] = (uint8_t)t;
  b->h.inline_size[t] = b->fast_modes[b->mode].inline_size[t];
  b->fast[t] = b->fast_modes[b->mode].plan[t];
  b->fast_size[t] = b->fast_modes[b->mode].size[t];
  b->fast_class[t] = b->fast_modes[b->mode].cls[t];
}

/* Every pointer field of the plan is a STRING (or it has none). */
static int strings_only(const plan *p) {
  uint32_t i;
  for (i = 0; i < p->nptrs; i++)
    if (p->ptrs[i].kind != PSOC_FIELD_STRING) return 0;
  return 1;
}

static psoc_status make_plan(psoc_builder *b, const psoc_subobject_info *info, const plan **out) {
  plan_alloc pa = { NULL, 0 };
  unsigned char *block;
  size_t size;
  plan *p;
  plan_make(&pa, info->payload, info->payload->size);
  size = pa.used;
  block = psoc_mem(&b->alloc, NULL, 0, size);
  if (!block) return PSOC_ERR_NOMEM;
  pa.base = block;
  pa.used = 0;
  p = plan_make(&pa, info->payload, info->payload->size);
  p->block_size = size;
  p->info = info;
  p->type = info->type;
  p->dup_class = info->dup_class;
  p->stride = info->stride;
  p->payload_offset = info->payload_offset;
  p->blob_only = p->nptrs == 1 && p->ptrs[0].kind == PSOC_FIELD_BLOB;
  p->flat_array = p->nptrs == 1 && p->ptrs[0].kind == PSOC_FIELD_ARRAY && p->ptrs[0].element &&
                  p->ptrs[0].stride != 0 && strings_only(p->ptrs[0].element);
  p->copy_out = p->size > 64 || p->masked;
  {
    unsigned char h[8] = { 0 };
    memcpy(h, &p->type, sizeof p->type);
    memcpy(&p->head, h, sizeof h);
  }
  b->plans[info->type] = p;
  fast_update(b, p);
  *out = p;
  return PSOC_OK;
}

/* Make room up to arena offset 'end'; runs keep their offsets. */
static psoc_status arena_reserve(psoc_builder *b, size_t end) {
  size_t cap = b->arena_cap < ARENA_MIN ? ARENA_MIN : b->arena_cap;
  unsigned char *p;
  if (end <= b->arena_cap) return PSOC_OK;
  while (cap < end) {
    if (cap > SIZE_MAX / 2) {
      cap = end;
      break;
    }
    cap *= 2;
  }
  p = psoc_mem(&b->alloc, b->arena, b->arena_cap, cap);
  if (!p) return PSOC_ERR_NOMEM;
  b->arena = p;
  b->arena_cap = cap;
  return PSOC_OK;
}

/* Slide the live runs down over the replaced ones, in arena order. */
static void arena_compact(psoc_builder *b) {
  entry *order[PSOC_SO_TYPE_COUNT];
  size_t i, j, n = 0, top = 0;
  for (i = 0; i < b->h.count; i++) { /* insertion sort by offset: at most 30 */
    entry *e = &b->entries[i];
    if (!e->arena_size) continue;
    for (j = n++; j > 0 && order[j - 1]->pieces_at > e->pieces_at; j--) order[j] = order[j - 1];
    order[j] = e;
  }
  for (i = 0; i < n; i++) {
    if (order[i]->pieces_at != top)
      memmove(b->arena + top, b->arena + order[i]->pieces_at, order[i]->arena_size);
    order[i]->pieces_at = top;
    top += order[i]->arena_size;
  }
  b->arena_top = top;
  b->arena_garbage = 0;
  for (i = 0, top = 0; i < b->h.count; i++) { /* back in insertion order? */
    entry *e = &b->entries[i];
    if (e->arena_size && e->pieces_at != top) return;
    top += e->arena_size;
  }
  b->pieces_shuffled = 0;
}

/* Copy the out-of-line data of the struct copied to 'dst' (in the image
** or, for array elements, in the arena: 'dst_in_arena') from 'src'. Each
** piece goes to the arena at *next, and the pointer in the copy becomes
** 1 + the piece's offset from 'base' (the start of the entry's run). */
static psoc_status copy_pointers(psoc_builder *b, const plan *pl, size_t dst, int dst_in_arena,
                                 const unsigned char *src, size_t base, size_t *next) {
  uint32_t i;
  for (i = 0; i < pl->nptrs; i++) {
    const plan_ptr *f = &pl->ptrs[i];
    const unsigned char *p = get_ptr(src + f->at);
    size_t count = 0, bytes, piece, off = *next, k;
    unsigned char *q;
    psoc_status st;
    if (f->kind != PSOC_FIELD_STRING) count = read_count(src + f->count_at, f->count_size);
    if (p == NULL) {
      if (count != 0) return PSOC_ERR_ARG;
      continue; /* the masked copy left it null */
    }
    switch (f->kind) {
    case PSOC_FIELD_ARRAY:
      if (f->stride == 0 || count > SIZE_MAX / f->stride) return PSOC_ERR_SIZE;
      bytes = count * f->stride;
      break;
    case PSOC_FIELD_BLOB: bytes = count; break;
    default: bytes = strlen((const char *)p) + 1; break;
    }
    st = piece_size(bytes, &piece);
    if (st != PSOC_OK) return st;
    if (piece > b->arena_limit - off) return PSOC_ERR_SIZE; /* no stream could hold it */
    st = arena_reserve(b, off + piece);
    if (st != PSOC_OK) return st;
    *next = off + piece;
    put_offset((dst_in_arena ? b->arena : b->h.image) + dst + f->at, off - base + 1);
    q = b->arena + off;
    memset(q + piece - 8, 0, 8); /* the tail padding, before the data */
    if (f->element) {
      array_copy(q, p, f->element, count);
      if (f->element->nptrs)
        for (k = 0; k < count; k++) {
          st = copy_pointers(b, f->element, off + k * f->stride, 1, p + k * f->stride, base, next);
          if (st != PSOC_OK) return st;
        }
    } else if (bytes) {
      memcpy(q, p, bytes);
    }
  }
  return PSOC_OK;
}

/* The bytes of one pointer field's piece; 0 with *st set when the field is
** invalid (a NULL pointer with a count) or too large. */
static HOT_INLINE size_t piece_bytes(const plan_ptr *f, const unsigned char *s, const unsigned char *p,
                          size_t *count, psoc_status *st) {
  size_t bytes;
  *count = 0;
  *st = PSOC_OK;
  if (f->kind != PSOC_FIELD_STRING) *count = read_count(s + f->count_at, f->count_size);
  if (p == NULL) {
    if (*count != 0) *st = PSOC_ERR_ARG;
    return 0;
  }
  switch (f->kind) {
  case PSOC_FIELD_ARRAY:
    if (f->stride == 0 || *count > SIZE_MAX / f->stride) {
      *st = PSOC_ERR_SIZE;
      return 0;
    }
    bytes = *count * f->stride;
    break;
  case PSOC_FIELD_BLOB: bytes = *count; break;
  default: bytes = strlen((const char *)p) + 1; break;
  }
  return bytes;
}

/* PSOC_BUILDER_COPY_AT_FINISH and _BORROW: check the pointer fields of the
** struct 's' as copy_pointers would and add the bytes their pieces take to
** *total (the pieces are copied by finish, or never). */
static psoc_status measure_pointers(const plan *pl, const unsigned char *s, size_t limit,
                                    size_t *total) {
  uint32_t i;
  for (i = 0; i < pl->nptrs; i++) {
    const plan_ptr *f = &pl->ptrs[i];
    const unsigned char *p = get_ptr(s + f->at);
    size_t count, bytes, piece, k;
    psoc_status st;
    bytes = piece_bytes(f, s, p, &count, &st);
    if (st != PSOC_OK) return st;
    if (!p) continue;
    st = piece_size(bytes, &piece);
    if (st != PSOC_OK) return st;
    if (piece > limit - *total) return PSOC_ERR_SIZE; /* no stream could hold it */
    *total += piece;
    if (f->element && f->element->nptrs)
      for (k = 0; k < count; k++) {
        st = measure_pointers(f->element, p + k * f->stride, limit, total);
        if (st != PSOC_OK) return st;
      }
  }
  return PSOC_OK;
}

/* PSOC_BUILDER_BORROW: the pointer fields of 's' as copy_pointers judges
** them (a NULL pointer with a count is invalid); nothing is read behind
** them. */
static inline psoc_status borrow_check(const plan *pl, const unsigned char *s) {
  uint32_t i;
  for (i = 0; i < pl->nptrs; i++) {
    const plan_ptr *f = &pl->ptrs[i];
    if (f->kind != PSOC_FIELD_STRING && !get_ptr(s + f->at) &&
        read_count(s + f->count_at, f->count_size) != 0)
      return PSOC_ERR_ARG;
  }
  return PSOC_OK;
}

/* PSOC_BUILDER_COPY_AT_FINISH, in finish: the struct 's' in the stream holds
** the caller's pointers; copy what they point to into the pieces at
** base[*next..] (in copy_pointers' order, so the stream is the same bytes
** as PSOC_BUILDER_COPY's) and point 's' there. 'end' bounds the pieces:
** data that grew since add fails with PSOC_ERR_ARG, nothing is written
** past it. */
static psoc_status deep_copy(const plan *pl, unsigned char *s, unsigned char *base, size_t *next,
                             size_t end) {
  uint32_t i;
  for (i = 0; i < pl->nptrs; i++) {
    const plan_ptr *f = &pl->ptrs[i];
    const unsigned char *p = get_ptr(s + f->at);
    size_t count, bytes, piece, k;
    unsigned char *q;
    psoc_status st;
    bytes = piece_bytes(f, s, p, &count, &st);
    if (st != PSOC_OK) return st;
    if (!p) continue;
    st = piece_size(bytes, &piece);
    if (st != PSOC_OK || piece > end - *next) return PSOC_ERR_ARG;
    q = base + *next;
    *next += piece;
    memset(q + piece - 8, 0, 8); /* the tail padding, before the data */
    if (f->element) {
      array_copy(q, p, f->element, count);
      if (f->element->nptrs)
        for (k = 0; k < count; k++) {
          st = deep_copy(f->element, q + k * f->stride, base, next, end);
          if (st != PSOC_OK) return st;
        }
    } else if (bytes) {
      memcpy(q, p, bytes);
    }
    put_ptr(s + f->at, q);
  }
  return PSOC_OK;
}

/* Write the entries the inline add and add_commit left (entries without
** pieces, each after the one before it in the image): the plan of the type
** at their place in the image, no pieces, PSOC_BUILDER_BORROW (an entry
** without pieces needs nothing from finish in any mode). */
static void sync_entries(psoc_builder *b) {
  size_t i, n = b->h.count, at = 0;
  uint64_t all = n < 64 ? ((uint64_t)1 << n) - 1 : ~(uint64_t)0;
  if (b->written == all) return;
  for (i = 0; i < n; i++) {
    entry *e = &b->entries[i];
    if (!(b->written >> i & 1)) {
      e->plan = b->plans[psoc_rd32(b->h.image + at)];
      e->image_at = at;
      e->pieces_at = 0;
      e->arena_size = 0;
      e->pieces_size = 0;
      e->mode = PSOC_BUILDER_BORROW;
    }
    at += e->plan->stride;
  }
  b->written = all;
}

/* The pointer fields of entry 'e' (its payload at image offset 'at'), as
** its mode wants: pieces deep-copied to the arena top (PSOC_BUILDER_COPY),
** checked (_BORROW) or checked and measured for finish (_COPY_AT_FINISH).
** Nothing is committed. */
static psoc_status entry_pointers(psoc_builder *b, const plan *pl, const unsigned char *payload,
                                  size_t at, entry *e) {
  size_t next = b->arena_top;
  psoc_status st;
  int mode = mode_for(b->mode, pl);
  e->pieces_size = 0;
  if (mode == PSOC_BUILDER_COPY) {
    st = copy_pointers(b, pl, at + pl->payload_offset, 0, payload, next, &next);
    e->pieces_size = next - b->arena_top;
  } else if (mode == PSOC_BUILDER_BORROW) {
    st = borrow_check(pl, payload);
  } else if (pl->blob_only) { /* measure_pointers for one blob */
    const plan_ptr *f = &pl->ptrs[0];
    size_t bytes = read_count(payload + f->count_at, f->count_size);
    st = PSOC_OK;
    if (!get_ptr(payload + f->at)) {
      if (bytes) st = PSOC_ERR_ARG;
    } else if (piece_size(bytes, &e->pieces_size) != PSOC_OK ||
               e->pieces_size > b->arena_limit - b->pieces_size) {
      st = PSOC_ERR_SIZE;
    }
  } else {
    st = measure_pointers(pl, payload, b->arena_limit - b->pieces_size, &e->pieces_size);
  }
  e->arena_size = next - b->arena_top;
  return st;
}

/* The subobject's bytes at 'd': type, payload, padding zero. */
static inline void image_head(unsigned char *d, const plan *pl) {
  static const uint64_t zero = 0;
  memcpy(d + pl->stride - 8, &zero, 8); /* the tail padding */
  memcpy(d, &pl->head, 8); /* the type, then zero (the gap before 8-aligned payloads) */
}

static inline void image_write(unsigned char *d, const plan *pl, const unsigned char *payload) {
  image_head(d, pl);
  struct_copy(d + pl->payload_offset, payload, pl);
}

/* Write subobject 'pl' with 'payload' at image offset 'at' and fill entry
** 'e' for it (nothing is committed). */
static inline psoc_status subobject_copy(psoc_builder *b, const plan *pl,
                                         const unsigned char *payload, size_t at, entry *e) {
  image_write(b->h.image + at, pl, payload);
  if (pl->nptrs) {
    psoc_status st = entry_pointers(b, pl, payload, at, e);
    if (st != PSOC_OK) return st;
  } else {
    e->pieces_size = 0;
    e->arena_size = 0;
  }
  e->plan = pl;
  e->image_at = at;
  e->mode = mode_for(b->mode, pl);
  e->pieces_at = b->arena_top;
  return PSOC_OK;
}

/* Move the subobject built at the image top into the place of entry
** 'slot', whose stride may differ. */
static void image_replace(psoc_builder *b, size_t slot, size_t n) {
  entry *old = &b->entries[slot];
  unsigned char *img = b->h.image;
  size_t at = old->image_at, o = old->plan->stride, top = b->h.image_size, i;
  if (n == o) {
    memcpy(img + at, img + top, n);
    return;
  }
  memcpy(img + b->image_scratch, img + top, n);
  memmove(img + at + n, img + at + o, top - at - o);
  memcpy(img + at, img + b->image_scratch, n);
  for (i = slot + 1; i < b->h.count; i++) b->entries[i].image_at = b->entries[i].image_at + n - o;
  b->h.image_size = top + n - o;
}

static psoc_status put_slow(psoc_builder *b, uint32_t type, const void *payload,
                            size_t payload_size, int replace);

/* A known type appended to a free class; put_slow does everything else. */
static psoc_status put(psoc_builder *b, uint32_t type, const void *payload, size_t payload_size,
                       int replace) {
  const plan *pl;
  entry *e;
  psoc_status st;
  if (!b || !payload) return PSOC_ERR_ARG;
  /* A free class means a free entry: there are no more entries than classes. */
  if (type >= PSOC_SO_TYPE_COUNT || !(pl = b->plans[type]) || b->h.slot[pl->dup_class] >= 0)
    return put_slow(b, type, payload, payload_size, replace);
  if (payload_size != pl->size) return PSOC_ERR_SIZE;
  e = &b->entries[b->h.count]; /* nothing counts until committed */
  st = subobject_copy(b, pl, payload, b->h.image_size, e);
  if (st != PSOC_OK) return st;
  b->written |= (uint64_t)1 << b->h.count;
  b->h.slot[pl->dup_class] = (int8_t)b->h.count++;
  b->h.image_size += pl->stride;
  if (pl->nptrs) {
    b->arena_top += e->arena_size;
    b->arena_live += e->arena_size;
    b->pieces_size += e->pieces_size;
    if (e->pieces_size) b->with_pieces[b->nwith_pieces++] = (uint8_t)(b->h.count - 1);
    if (e->mode == PSOC_BUILDER_COPY_AT_FINISH && e->pieces_size) b->deferred++;
  }
  return PSOC_OK;
}

/* A type's first use, a present class (duplicate, or replaced in place). */
static psoc_status put_slow(psoc_builder *b, uint32_t type, const void *payload,
                            size_t payload_size, int replace) {
  const psoc_subobject_info *info = psoc_subobject_info_get(type);
  const plan *pl;
  entry *e, fresh;
  int slot;
  psoc_status st;
  if (!info || !info->payload || info->dup_class >= PSOC_SO_TYPE_COUNT) return PSOC_ERR_TYPE;
  if (payload_size != info->payload->size) return PSOC_ERR_SIZE;
  slot = b->h.slot[info->dup_class];
  if (slot >= 0 && !replace) return PSOC_ERR_DUPLICATE;
  if (slot < 0 && b->h.count >= PSOC_SO_TYPE_COUNT) return PSOC_ERR_DUPLICATE; /* cannot happen */
  pl = b->plans[type];
  if (!pl) {
    st = make_plan(b, info, &pl);
    if (st != PSOC_OK) return st;
  }
  if (slot < 0) return put(b, type, payload, payload_size, replace); /* now the common case */
  sync_entries(b);
  /* Build the new member at the image top, then move it into place. */
  st = subobject_copy(b, pl, payload, b->h.image_size, &fresh);
  if (st != PSOC_OK) return st;
  e = &b->entries[slot];
  if (e->arena_size || fresh.arena_size) b->pieces_shuffled = 1;
  if (e->pieces_size || fresh.pieces_size) b->with_pieces_stale = 1;
  b->arena_top += fresh.arena_size;
  b->arena_garbage += e->arena_size;
  b->arena_live = b->arena_live - e->arena_size + fresh.arena_size;
  b->pieces_size = b->pieces_size - e->pieces_size + fresh.pieces_size;
  if (e->mode == PSOC_BUILDER_COPY_AT_FINISH && e->pieces_size) b->deferred--;
  if (fresh.mode == PSOC_BUILDER_COPY_AT_FINISH && fresh.pieces_size) b->deferred++;
  image_replace(b, (size_t)slot, info->stride);
  fresh.image_at = e->image_at;
  *e = fresh;
  if (b->arena_garbage > b->arena_live) arena_compact(b);
  return PSOC_OK;
}

/* struct_copy out of line, returning PSOC_OK: add's payloads over 64 bytes. */
static NOINLINE psoc_status struct_copy_out(unsigned char *dst, const unsigned char *src,
                                            const plan *pl) {
  struct_copy(dst, src, pl);
  return PSOC_OK;
}

/* add's inline path after its checks: append 'pl' with 'payload', whose
** pointers are borrowed or take 'pieces' bytes that finish copies. The
** same bytes and bookkeeping as put. Calls nothing but a tail call. */
static HOT_INLINE psoc_status add_commit(psoc_builder *b, const plan *pl, const unsigned char *payload,
                                     size_t pieces) {
  unsigned char *d;
  size_t at = b->h.image_size, n = b->h.count;
  /* the bookkeeping first: the image's byte stores may alias anything */
  if (pieces) { /* finish copies them: the entry is written */
    entry *e = &b->entries[n];
    e->plan = pl;
    e->image_at = at;
    e->arena_size = 0; /* no pieces in the arena: pieces_at is never read */
    e->pieces_size = pieces;
    e->mode = PSOC_BUILDER_COPY_AT_FINISH; /* the deferred adds' mode */
    b->written |= (uint64_t)1 << n;
    b->pieces_size += pieces;
    b->deferred++;
    b->with_pieces[b->nwith_pieces++] = (uint8_t)n;
  } /* else sync_entries writes it when something reads it */
  b->h.slot[pl->dup_class] = (int8_t)n;
  b->h.count = n + 1;
  b->h.image_size = at + pl->stride;
  d = b->h.image + at;
  image_head(d, pl);
  d += pl->payload_offset;
  if (pl->copy_out) return struct_copy_out(d, payload, pl); /* a tail call */
  copy_small(d, payload, pl->size);
  if (pl->nfix) zero_padding(d, payload, pl);
  return PSOC_OK;
}

/* add's inline path for a single blob in COPY_AT_FINISH mode: what
** measure_pointers says of it, then add_commit (out of line, so that add
** itself stays free of calls). */
static NOINLINE psoc_status add_deferred_blob(psoc_builder *b, const plan *pl,
                                              const unsigned char *payload) {
  const plan_ptr *f = pl->ptrs;
  size_t bytes = count_word(payload + f->count_at, f->count_size), pieces = 0;
  if (!get_ptr(payload + f->at)) {
    if (bytes) return PSOC_ERR_ARG;
  } else if (piece_size(bytes, &pieces) != PSOC_OK || pieces > b->arena_limit - b->pieces_size) {
    return PSOC_ERR_SIZE;
  }
  return add_commit(b, pl, payload, pieces);
}

/* One string of a flat array measured at add: its piece added to *total,
** 0 when no stream could hold it. */
static HOT_INLINE int measure_name(const char *str, size_t limit, size_t *total) {
  size_t piece;
  if (!str) return 1;
  if (piece_size(strlen(str) + 1, &piece) != PSOC_OK || piece > limit - *total) return 0;
  *total += piece;
  return 1;
}

/* add's inline path for one array of structs with only strings out of
** line (an input layout) in COPY_AT_FINISH mode: measure_pointers for it
** without the generic walk, then add_commit. */
static NOINLINE psoc_status add_deferred_array(psoc_builder *b, const plan *pl,
                                               const unsigned char *payload) {
  const plan_ptr *f = pl->ptrs, *sf, *send;
  const plan *el = f->element;
  const unsigned char *p = get_ptr(payload + f->at), *q, *qend;
  size_t count = count_word(payload + f->count_at, f->count_size), limit, total;
  if (!p) {
    if (count) return PSOC_ERR_ARG;
    return add_commit(b, pl, payload, 0);
  }
  limit = b->arena_limit - b->pieces_size;
  if (count > SIZE_MAX / f->stride || piece_size(count * f->stride, &total) != PSOC_OK ||
      total > limit)
    return PSOC_ERR_SIZE;
  qend = p + count * f->stride;
  if (el->nptrs == 1) { /* one string per element (an input element's name) */
    size_t at = el->ptrs[0].at;
    for (q = p; q < qend; q += f->stride)
      if (!measure_name((const char *)get_ptr(q + at), limit, &total)) return PSOC_ERR_SIZE;
  } else {
    send = el->ptrs + el->nptrs;
    for (q = p; q < qend; q += f->stride)
      for (sf = el->ptrs; sf < send; sf++)
        if (!measure_name((const char *)get_ptr(q + sf->at), limit, &total)) return PSOC_ERR_SIZE;
  }
  return add_commit(b, pl, payload, total);
}

/* One string of a flat array at finish: copied to its piece at q + *next
** and the element's copy at 'slot' pointed there; 0 when it no longer
** fits the 'pieces_size' bytes add measured. */
static HOT_INLINE int finish_name(const char *str, unsigned char *slot, unsigned char *q,
                                  size_t *next, size_t pieces_size) {
  size_t n, piece;
  unsigned char *to;
  if (!str) return 1;
  n = strlen(str) + 1;
  if (piece_size(n, &piece) != PSOC_OK || piece > pieces_size - *next) return 0;
  to = q + *next;
  *next += piece;
  memset(to + piece - 8, 0, 8);
  copy_exact(to, (const unsigned char *)str, n);
  put_ptr(slot, to);
  return 1;
}

/* finish's copy of a flat_array entry that add_deferred_array (or
** measure_pointers) measured at 'pieces_size' bytes: deep_copy without the
** generic walk, the same bytes. The payload is read from 'from' (the
** builder's image) and written at 'payload' (the stream's copy of it);
** the names' pointers are read from the caller's elements, not from
** their copy just stored at 'q'. */
static psoc_status finish_flat_array(const plan *pl, const unsigned char *from,
                                     unsigned char *payload, unsigned char *q, size_t pieces_size) {
  const plan_ptr *f = pl->ptrs, *sf, *send;
  const plan *el = f->element;
  const unsigned char *p = get_ptr(from + f->at), *src, *end;
  size_t count = count_word(from + f->count_at, f->count_size), bytes, piece, next, stride;
  unsigned char *d;
  bytes = count * f->stride; /* add checked that it fits */
  piece = PSOC_ALIGN_UP(bytes ? bytes : 1, PIECE_ALIGN);
  if (piece > pieces_size) return PSOC_ERR_ARG;
  memset(q + piece - 8, 0, 8); /* the tail padding, before the data */
  if (!el->masked && !el->nfix)
    memcpy(q, p, bytes);
  else
    array_copy(q, p, el, count);
  put_ptr(payload + f->at, q);
  next = piece;
  stride = f->stride;
  end = p + bytes;
  if (el->nptrs == 1) { /* one string per element (an input element's name) */
    size_t at = el->ptrs[0].at;
    for (d = q, src = p; src < end; d += stride, src += stride)
      if (!finish_name((const char *)get_ptr(src + at), d + at, q, &next, pieces_size))
        return PSOC_ERR_ARG;
  } else {
    send = el->ptrs + el->nptrs;
    for (d = q, src = p; src < end; d += stride, src += stride)
      for (sf = el->ptrs; sf < send; sf++)
        if (!finish_name((const char *)get_ptr(src + sf->at), d + sf->at, q, &next, pieces_size))
          return PSOC_ERR_ARG;
  }
  return next == pieces_size ? PSOC_OK : PSOC_ERR_ARG; /* the data shrank since add */
}

/* add's common case inline: a known type appended to a free class, its
** pointers (if any) borrowed, one blob or one flat array deferred. */
psoc_status(psoc_builder_add)(psoc_builder *b, uint32_t type, const void *payload,
                              size_t payload_size) {
  const unsigned char *src = payload;
  const plan *pl;
  if (!b || !payload || type >= PSOC_SO_TYPE_COUNT || payload_size != b->fast_size[type] ||
      b->h.slot[b->fast_class[type]] >= 0 || !(pl = b->fast[type]))
    return put(b, type, payload, payload_size, 0);
  if (pl->nptrs) {
    const plan_ptr *f = pl->ptrs, *end = f + pl->nptrs;
    if (mode_for(b->mode, pl) != PSOC_BUILDER_BORROW)
      return pl->blob_only ? add_deferred_blob(b, pl, src) : add_deferred_array(b, pl, src);
    for (; f < end; f++) { /* borrow_check, inline */
      if (f->kind == PSOC_FIELD_STRING || get_ptr(src + f->at)) continue;
      if (count_word(src + f->count_at, f->count_size)) return PSOC_ERR_ARG;
    }
  }
  return add_commit(b, pl, src, 0);
}

psoc_status psoc_builder_set(psoc_builder *b, uint32_t type, const void *payload,
                             size_t payload_size) {
  return put(b, type, payload, payload_size, 1);
}

/* Turn the offsets in a struct copied into a stream into pointers into
** its entry's pieces, now at 'pieces'. */
static void relocate(const plan *pl, unsigned char *s, unsigned char *pieces) {
  uint32_t i;
  for (i = 0; i < pl->nptrs; i++) {
    const plan_ptr *f = &pl->ptrs[i];
    size_t off = get_offset(s + f->at), k, count;
    unsigned char *q;
    if (off == 0) continue; /* null */
    q = pieces + (off - 1);
    put_ptr(s + f->at, q);
    if (f->element && f->element->nptrs) {
      count = read_count(s + f->count_at, f->count_size);
      for (k = 0; k < count; k++) relocate(f->element, q + k * f->stride, pieces);
    }
  }
}

size_t psoc_builder_finish_size(const psoc_builder *b) {
  if (!b || b->pieces_size > SIZE_MAX - STREAM_HEADER - b->h.image_size) return 0;
  return STREAM_HEADER + b->h.image_size + b->pieces_size;
}

/* Copy the pieces of entry 'e' to 'q' (its pieces_size bytes) and point
** its payload (in the stream at 'bytes', copied from the builder's image
** at 'image') there. The deferred pieces' pointers and sizes are read from
** the image, not from the copy just stored. */
static HOT_INLINE psoc_status finish_entry(const entry *e, unsigned char *bytes,
                                           const unsigned char *image, const unsigned char *arena,
                                           unsigned char *q) {
  const plan *pl = e->plan;
  size_t at = e->image_at + pl->payload_offset;
  unsigned char *payload = bytes + at;
  const unsigned char *from = image + at;
  if (e->mode == PSOC_BUILDER_COPY_AT_FINISH) {
    if (!e->pieces_size) return PSOC_OK;
    if (pl->blob_only) { /* one blob: its pointer and size are in the image, as add measured */
      const plan_ptr *f = &pl->ptrs[0];
      size_t n = read_count(from + f->count_at, f->count_size);
      memset(q + e->pieces_size - 8, 0, 8); /* the tail padding, before the data */
      if (n) memcpy(q, get_ptr(from + f->at), n);
      put_ptr(payload + f->at, q);
    } else if (pl->flat_array) {
      return finish_flat_array(pl, from, payload, q, e->pieces_size);
    } else {
      size_t next = 0;
      psoc_status st = deep_copy(pl, payload, q, &next, e->pieces_size);
      if (st != PSOC_OK) return st;
      if (next != e->pieces_size) return PSOC_ERR_ARG; /* the data shrank since add */
    }
  } else if (e->mode == PSOC_BUILDER_COPY) {
    if (e->arena_size) memcpy(q, arena + e->pieces_at, e->arena_size);
    if (pl->nptrs) relocate(pl, payload, q);
  }
  return PSOC_OK;
}

/* Write the finished stream into the block 's' of 'total' bytes. */
static HOT_INLINE psoc_status finish_block(psoc_builder *b, psoc_stream *s, size_t total,
                                const psoc_allocator *owner) {
  size_t i, n, off;
  unsigned char *bytes, *pieces;
  psoc_status st;
  memset(s, 0, STREAM_HEADER);
  if (owner) s->alloc = *owner;
  s->block_size = total;
  s->size = b->h.image_size;
  bytes = stream_bytes(s);
  pieces = bytes + b->h.image_size;
  memcpy(bytes, b->h.image, b->h.image_size);
  /* Unless a set replaced a run or finish copies some pieces itself, the
  ** runs are the arena's first bytes, in insertion order. */
  if (!b->pieces_shuffled && !b->deferred) {
    if (!b->arena_live) return PSOC_OK; /* no pieces: no pointers to relocate */
    sync_entries(b);
    memcpy(pieces, b->arena, b->arena_live);
    for (i = 0, off = 0; i < b->h.count; i++) {
      const entry *e = &b->entries[i];
      if (e->arena_size) /* all others hold no offsets */
        relocate(e->plan, bytes + e->image_at + e->plan->payload_offset, pieces + off);
      off += e->pieces_size;
    }
    return PSOC_OK;
  }
  /* Entries without pieces hold no pointers to relocate or copy: visit
  ** the list of those with pieces unless a set made it stale. */
  if (b->with_pieces_stale) sync_entries(b);
  n = b->with_pieces_stale ? b->h.count : b->nwith_pieces;
  for (i = 0, off = 0; i < n; i++) {
    const entry *e = &b->entries[b->with_pieces_stale ? i : b->with_pieces[i]];
    st = finish_entry(e, bytes, b->h.image, b->arena, pieces + off);
    if (st != PSOC_OK) return st;
    off += e->pieces_size;
  }
  return PSOC_OK;
}

psoc_status psoc_builder_finish(psoc_builder *b, psoc_stream **out) {
  size_t total;
  psoc_stream *s;
  psoc_status st;
  if (out) *out = NULL;
  if (!b || !out) return PSOC_ERR_ARG;
  total = psoc_builder_finish_size(b);
  if (!total) return PSOC_ERR_SIZE;
  s = b->plain_alloc ? malloc(total) : psoc_mem(&b->alloc, NULL, 0, total);
  if (!s) return PSOC_ERR_NOMEM;
  st = finish_block(b, s, total, &b->alloc);
  if (b->plain_alloc) s->alloc.ud = (void *)&plain_block;
  if (st != PSOC_OK) {
    psoc_mem(&b->alloc, s, total, 0);
    return st;
  }
  *out = s;
  return PSOC_OK;
}

psoc_status psoc_builder_finish_into(psoc_builder *b, void *mem, size_t capacity, size_t *needed,
                                     psoc_stream **out) {
  size_t total;
  psoc_status st;
  if (out) *out = NULL;
  if (!b || !out) return PSOC_ERR_ARG;
  total = psoc_builder_finish_size(b);
  if (needed) *needed = total;
  if (!total) return PSOC_ERR_SIZE;
  if (!mem || capacity < total) return PSOC_ERR_SIZE;
  if ((uintptr_t)mem % sizeof(void *) != 0) return PSOC_ERR_ARG;
  st = finish_block(b, mem, total, NULL); /* alloc.fn NULL: psoc_stream_free releases nothing */
  if (st != PSOC_OK) return st;
  *out = mem;
  return PSOC_OK;
}

psoc_status psoc_builder_set_mode(psoc_builder *b, psoc_builder_mode mode) {
  if (!b || (mode != PSOC_BUILDER_COPY && mode != PSOC_BUILDER_COPY_AT_FINISH &&
             mode != PSOC_BUILDER_BORROW && mode != PSOC_BUILDER_BORROW_BLOBS))
    return PSOC_ERR_ARG;
  if (b->mode != (int)mode) {
    const struct fast_set *f = &b->fast_modes[mode];
    uint32_t i;
    b->mode = mode;
    for (i = 0; i < b->mode_type_count; i++) {
      uint32_t t = b->mode_types[i];
      b->fast[t] = f->plan[t];
      b->fast_size[t] = f->size[t];
      b->fast_class[t] = f->cls[t];
      b->h.inline_size[t] = f->inline_size[t];
    }
  }
  return PSOC_OK;
}

/* ---- streams ------------------------------------------------------ */

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
size_t psoc_stream_footprint(const psoc_stream *s) { return s ? s->block_size : 0; }

/* Rewrite the pointers of a copied struct that point into the old block
** [lo, hi) to the same place in the new one. */
typedef struct rebase {
  uintptr_t old_lo, old_hi;
  unsigned char *new_lo;
} rebase;

static void rebase_struct(const rebase *r, const psoc_struct *s, unsigned char *p) {
  uint32_t i, j;
  size_t k, count;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    switch (f->kind) {
    case PSOC_FIELD_STRUCT:
      if (f->element) rebase_struct(r, f->element, p + f->offset);
      break;
    case PSOC_FIELD_FIXED:
      if (f->element)
        for (j = 0; j < f->count; j++) rebase_struct(r, f->element, p + f->offset + (size_t)j * f->stride);
      break;
    case PSOC_FIELD_ARRAY:
    case PSOC_FIELD_BLOB:
    case PSOC_FIELD_STRING: {
      uintptr_t u = (uintptr_t)get_ptr(p + f->offset);
      unsigned char *q;
      if (u == 0 || u < r->old_lo || u >= r->old_hi) break; /* not ours */
      q = r->new_lo + (u - r->old_lo);
      put_ptr(p + f->offset, q);
      if (f->kind == PSOC_FIELD_ARRAY && f->element && count_ptrs(f->element)) {
        count = psoc_field_count(s, f, p);
        for (k = 0; k < count; k++) rebase_struct(r, f->element, q + k * f->stride);
      }
      break;
    }
    default: break;
    }
  }
}

psoc_status psoc_stream_copy(const psoc_stream *s, const psoc_allocator *alloc,
                             psoc_stream **out) {
  psoc_allocator a = psoc_alloc_or_default(alloc);
  psoc_stream *c;
  unsigned char *bytes;
  size_t off;
  rebase r;
  if (out) *out = NULL;
  if (!s || !out) return PSOC_ERR_ARG;
  c = psoc_mem(&a, NULL, 0, s->block_size);
  if (!c) return PSOC_ERR_NOMEM;
  memcpy(c, s, s->block_size);
  c->alloc = a;
  r.old_lo = (uintptr_t)s;
  r.old_hi = (uintptr_t)s + s->block_size;
  r.new_lo = (unsigned char *)c;
  bytes = stream_bytes(c);
  /* The stream is ours, so it is well-formed: walk it directly. */
  for (off = 0; off + sizeof(uint32_t) <= c->size;) {
    const psoc_subobject_info *info = psoc_subobject_info_get(psoc_rd32(bytes + off));
    if (!info || info->stride > c->size - off) break;
    rebase_struct(&r, info->payload, bytes + off + info->payload_offset);
    off += info->stride;
  }
  *out = c;
  return PSOC_OK;
}

void psoc_stream_free(psoc_stream *s) {
  psoc_allocator a;
  if (!s || !s->alloc.fn) return; /* NULL, or in caller memory (finish_into) */
  if (s->alloc.ud == &plain_block) { /* finish's malloc */
    free(s);
    return;
  }
  a = s->alloc;
  psoc_mem(&a, s, s->block_size, 0);
}
