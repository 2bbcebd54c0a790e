/*
** archive_write.c: the archive writer. Pipelines are kept as records (the
** stream with padding zeroed and every pointer replaced by a component
** id); components are kept once per content. finish sorts pipelines by
** name and components by content, so the bytes depend on the set of
** pipelines only, and lays the file out as docs/archive.md describes.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "archive_internal.h"
#include "platform.h"

typedef struct wcomp {
  uint32_t kind, count, stride, users;
  uint64_t hash;
  size_t size;
  unsigned char *data;
} wcomp;

/* A pipeline's record is followed, in the same allocation (rec_alloc
** bytes), by the offsets of its component references (the slots that
** hold a component id + 1, not 0 and not the root signature's name):
** found once, when the pipeline is added, so that laying the file out
** renumbers and collects them without walking the record's subobjects
** again (three walks a pipeline, a third of a re-cook's archive write). */
typedef struct wpipe {
  char *name, *rs;
  size_t name_len, rs_len;
  psoc_hash128 hash;
  uint32_t kind;
  const unsigned char *record;
  size_t record_size;
  const uint32_t *slots;       /* nslots offsets into 'record' */
  const uint32_t *ids;         /* NULL: each slot of 'record' holds its
                                  writer component id + 1; else ids[k] is
                                  slot k's id (a borrowed record, which
                                  keeps its archive's numbering) */
  size_t nslots;
  uint64_t checksum;           /* a borrowed record's checksum in its archive */
  int as_is;                   /* set by layout_head: written as 'record' holds
                                  it (borrowed, every reference keeps its
                                  number), 'checksum' its checksum */
} wpipe;

/* The bytes of a record of 'size' bytes with 'nslots' reference offsets. */
static size_t rec_alloc(size_t size, size_t nslots) {
  return ((size + 3) & ~(size_t)3) + nslots * sizeof(uint32_t);
}

/* The pipelines' records and names live in chunks of one arena, freed
** together: two allocations a pipeline fewer (a re-cook's merge of 10,000
** pipelines spent about 7 M instructions allocating them and its end 6 M
** freeing them). What a failed add took stays until the writer is freed. */
typedef struct arena_chunk {
  struct arena_chunk *next;
  size_t size;                 /* bytes allocated, this header included */
} arena_chunk;

#define ARENA_CHUNK ((size_t)256 << 10)

struct psoc_archive_writer {
  psoc_allocator alloc;
  arena_chunk *chunks;         /* the newest first */
  size_t chunk_used;           /* bytes of the newest chunk in use */
  wpipe *pipes;
  size_t npipes, cap_pipes;
  wcomp *comps;
  size_t ncomps, cap_comps;
  uint32_t *ctab; /* open addressing: component id + 1, 0 empty */
  size_t ctab_cap;
  uint32_t *ntab; /* pipeline index + 1 by name */
  size_t ntab_cap;
  uint64_t referenced_bytes;
  unsigned char *out;
  size_t out_size;
  int out_current;             /* 'out' is the finish of the pipelines now held */
};

static void *wmem(psoc_archive_writer *w, void *p, size_t o, size_t n) {
  return psoc_mem(&w->alloc, p, o, n);
}

/* n bytes from the arena, 8-aligned; NULL when out of memory. */
static void *arena_get(psoc_archive_writer *w, size_t n) {
  size_t head = (sizeof(arena_chunk) + 7) & ~(size_t)7;
  unsigned char *at;
  n = (n + 7) & ~(size_t)7;
  if (n > SIZE_MAX / 2) return NULL;
  if (!w->chunks || w->chunk_used + n > w->chunks->size) {
    size_t size = head + n > ARENA_CHUNK ? head + n : ARENA_CHUNK;
    arena_chunk *c = wmem(w, NULL, 0, size);
    if (!c) return NULL;
    c->next = w->chunks;
    c->size = size;
    w->chunks = c;
    w->chunk_used = head;
  }
  at = (unsigned char *)w->chunks + w->chunk_used;
  w->chunk_used += n;
  return at;
}

static char *arena_str(psoc_archive_writer *w, const char *s, size_t n) {
  char *c = arena_get(w, n + 1);
  if (c) {
    memcpy(c, s, n);
    c[n] = 0;
  }
  return c;
}

psoc_status psoc_archive_writer_create(const psoc_allocator *alloc, psoc_archive_writer **out) {
  psoc_allocator a;
  psoc_archive_writer *w;
  if (!out) return PSOC_ERR_ARG;
  *out = NULL;
  a = psoc_alloc_or_default(alloc);
  w = psoc_mem(&a, NULL, 0, sizeof *w);
  if (!w) return PSOC_ERR_NOMEM;
  memset(w, 0, sizeof *w);
  w->alloc = a;
  *out = w;
  return PSOC_OK;
}

void psoc_archive_writer_free(psoc_archive_writer *w) {
  size_t i;
  psoc_allocator a;
  if (!w) return;
  while (w->chunks) {
    arena_chunk *c = w->chunks;
    w->chunks = c->next;
    wmem(w, c, c->size, 0);
  }
  for (i = 0; i < w->ncomps; i++)
    if (w->comps[i].data) wmem(w, w->comps[i].data, w->comps[i].size, 0);
  wmem(w, w->pipes, w->cap_pipes * sizeof *w->pipes, 0);
  wmem(w, w->comps, w->cap_comps * sizeof *w->comps, 0);
  wmem(w, w->ctab, w->ctab_cap * sizeof *w->ctab, 0);
  wmem(w, w->ntab, w->ntab_cap * sizeof *w->ntab, 0);
  if (w->out) wmem(w, w->out, w->out_size, 0);
  a = w->alloc;
  psoc_mem(&a, w, sizeof *w, 0);
}

/* ---- hash tables ---------------------------------------------------- */

static uint64_t name_hash(const char *s, size_t n) { return psoc_xxh3(s, n); }

/* Room in the open-addressing table *tab for 'used' + 1 entries at most
** half full (the 'used' present rehashed). 1, or 0 when out of memory. */
static int grow_table(psoc_archive_writer *w, uint32_t **tab, size_t *cap, size_t used,
                      uint64_t (*key)(psoc_archive_writer *, uint32_t)) {
  size_t ncap, i;
  uint32_t *t;
  if ((used + 1) * 2 <= *cap) return 1;
  if (used > SIZE_MAX / 2 / sizeof *t - 1) return 0;
  for (ncap = *cap ? *cap * 2 : 64; ncap < (used + 1) * 2; ncap *= 2) continue;
  t = wmem(w, NULL, 0, ncap * sizeof *t);
  if (!t) return 0;
  memset(t, 0, ncap * sizeof *t);
  for (i = 0; i < *cap; i++)
    if ((*tab)[i]) {
      size_t j = (size_t)key(w, (*tab)[i] - 1) & (ncap - 1);
      while (t[j]) j = (j + 1) & (ncap - 1);
      t[j] = (*tab)[i];
    }
  wmem(w, *tab, *cap * sizeof **tab, 0);
  *tab = t;
  *cap = ncap;
  return 1;
}

static uint64_t comp_key(psoc_archive_writer *w, uint32_t id) { return w->comps[id].hash; }
static uint64_t pipe_key(psoc_archive_writer *w, uint32_t id) {
  return name_hash(w->pipes[id].name, w->pipes[id].name_len);
}

static size_t find_pipe(const psoc_archive_writer *w, const char *name, size_t n) {
  size_t j;
  if (!w->ntab_cap) return (size_t)-1;
  for (j = (size_t)name_hash(name, n) & (w->ntab_cap - 1); w->ntab[j]; j = (j + 1) & (w->ntab_cap - 1)) {
    const wpipe *p = &w->pipes[w->ntab[j] - 1];
    if (p->name_len == n && memcmp(p->name, name, n) == 0) return w->ntab[j] - 1;
  }
  return (size_t)-1;
}

/* ---- building a record ---------------------------------------------- */

/* A component the pipeline being added references, before it is stored. */
typedef struct pending {
  size_t slot;                 /* offset of the pointer in the record */
  uint32_t kind, count, stride;
  uint64_t hash;
  size_t size;
  const unsigned char *bytes;  /* caller memory (blobs) or 'owned' */
  unsigned char *owned;
  size_t owned_size;           /* allocated bytes of 'owned' */
} pending;

#define MAX_PENDING 64

typedef struct build {
  psoc_archive_writer *w;
  const unsigned char *src;
  unsigned char *rec;
  const char *rs;
  pending pend[MAX_PENDING];
  size_t npend;
  char *err;
  size_t errlen;
  psoc_status status;
} build;

static const unsigned char *rd_ptr(const unsigned char *p) {
  const unsigned char *v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Copy the fields of struct 's' from src to dst (zeroed), so padding
** stays zero. Strings (elements only) become offsets into 'pool' + 1. */
typedef struct pool {
  unsigned char *base;         /* the component: elements, then strings */
  size_t start, end;           /* where strings go, and the first free byte */
} pool;

static size_t pool_put(pool *pl, const char *s) {
  size_t n = strlen(s), at;
  for (at = pl->start; at < pl->end; at += strlen((const char *)pl->base + at) + 1)
    if (strcmp((const char *)pl->base + at, s) == 0) return at;
  at = pl->end;
  memcpy(pl->base + at, s, n + 1);
  pl->end += n + 1;
  return at;
}

static void copy_fields(unsigned char *dst, const unsigned char *src, const psoc_struct *s, pool *pl);

static void copy_field(unsigned char *dst, const unsigned char *src, const psoc_field *f, pool *pl) {
  uint32_t k;
  switch (f->kind) {
  case PSOC_FIELD_STRUCT:
    if (f->element) copy_fields(dst + f->offset, src + f->offset, f->element, pl);
    break;
  case PSOC_FIELD_FIXED:
    for (k = 0; k < f->count; k++) {
      if (f->element)
        copy_fields(dst + f->offset + (size_t)k * f->stride, src + f->offset + (size_t)k * f->stride,
                    f->element, pl);
      else
        memcpy(dst + f->offset + (size_t)k * f->stride, src + f->offset + (size_t)k * f->stride, f->size);
    }
    break;
  case PSOC_FIELD_STRING: {
    const unsigned char *p = rd_ptr(src + f->offset);
    arc_put_slot(dst + f->offset, p && pl ? (uint64_t)pool_put(pl, (const char *)p) + 1 : 0);
    break;
  }
  case PSOC_FIELD_ARRAY: case PSOC_FIELD_BLOB: case PSOC_FIELD_OBJECT:
    break; /* pointer slots: filled by the caller */
  default: memcpy(dst + f->offset, src + f->offset, f->size); break;
  }
}

static void copy_fields(unsigned char *dst, const unsigned char *src, const psoc_struct *s, pool *pl) {
  uint32_t i;
  for (i = 0; i < s->field_count; i++) copy_field(dst, src, &s->fields[i], pl);
}

/* Bytes the strings of one element take (each NUL included). */
static size_t element_string_bytes(const unsigned char *e, const psoc_struct *s) {
  size_t n = 0;
  uint32_t i, k;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    if (f->kind == PSOC_FIELD_STRING) {
      const unsigned char *p = rd_ptr(e + f->offset);
      if (p) n += strlen((const char *)p) + 1;
    } else if (f->kind == PSOC_FIELD_STRUCT && f->element) {
      n += element_string_bytes(e + f->offset, f->element);
    } else if (f->kind == PSOC_FIELD_FIXED && f->element) {
      for (k = 0; k < f->count; k++) n += element_string_bytes(e + f->offset + (size_t)k * f->stride, f->element);
    }
  }
  return n;
}

static const char *field_path(const arc_slot *slot, char *buf, size_t n) {
  const psoc_subobject_info *info = psoc_info(slot->type);
  snprintf(buf, n, "%s.%s", info ? info->name : "?", slot->f->name);
  return buf;
}

static int slot_build(void *ud, const arc_slot *slot) {
  build *b = ud;
  const unsigned char *p = rd_ptr(b->src + slot->offset);
  size_t count;
  pending *pd;
  char path[96];
  if (slot->kind == 0) { /* the root-signature object */
    if (p && !b->rs) {
      arc_errf(b->err, b->errlen, "%s: a root signature object cannot be cooked without its name",
               field_path(slot, path, sizeof path));
      b->status = PSOC_ERR_INVALID;
      return 1;
    }
    arc_put_slot(b->rec + slot->offset, b->rs ? 1 : 0);
    return 0;
  }
  count = arc_slot_count(b->src, slot);
  if (!p) {
    if (count) {
      arc_errf(b->err, b->errlen, "%s: NULL with a count of %zu", field_path(slot, path, sizeof path),
               count);
      b->status = PSOC_ERR_INVALID;
      return 1;
    }
    arc_put_slot(b->rec + slot->offset, 0);
    return 0;
  }
  if (b->npend == MAX_PENDING) {
    b->status = PSOC_ERR_SIZE;
    arc_errf(b->err, b->errlen, "more than %d pointer fields", MAX_PENDING);
    return 1;
  }
  pd = &b->pend[b->npend];
  memset(pd, 0, sizeof *pd);
  pd->slot = slot->offset;
  pd->kind = slot->kind;
  if (slot->f->kind == PSOC_FIELD_BLOB) {
    pd->size = count;
    pd->bytes = p;
  } else {
    size_t stride = slot->f->stride, i, strings = 0;
    pool pl;
    if (count > UINT32_MAX || (stride && count > (SIZE_MAX / 2) / stride)) {
      b->status = PSOC_ERR_SIZE;
      arc_errf(b->err, b->errlen, "%s: %zu elements", field_path(slot, path, sizeof path), count);
      return 1;
    }
    if (slot->f->element)
      for (i = 0; i < count; i++) strings += element_string_bytes(p + i * stride, slot->f->element);
    pd->count = (uint32_t)count;
    pd->stride = (uint32_t)stride;
    pd->size = count * stride + strings;
    if (pd->size) {
      pd->owned = wmem(b->w, NULL, 0, pd->size);
      if (!pd->owned) {
        b->status = PSOC_ERR_NOMEM;
        return 1;
      }
      pd->owned_size = pd->size;
      memset(pd->owned, 0, pd->size);
    }
    pl.base = pd->owned;
    pl.start = pl.end = count * stride;
    for (i = 0; i < count; i++) {
      if (slot->f->element)
        copy_fields(pd->owned + i * stride, p + i * stride, slot->f->element, &pl);
      else
        memcpy(pd->owned + i * stride, p + i * stride, stride); /* a scalar element */
    }
    pd->size = pl.end; /* shared strings are stored once */
    pd->bytes = pd->owned;
  }
  pd->hash = psoc_xxh3(pd->bytes, pd->size);
  b->npend++;
  return 0;
}

static void free_pending(build *b) {
  size_t i;
  for (i = 0; i < b->npend; i++)
    if (b->pend[i].owned) wmem(b->w, b->pend[i].owned, b->pend[i].owned_size, 0);
  b->npend = 0;
}

static int comp_equal(const wcomp *c, const pending *p) {
  return c->kind == p->kind && c->hash == p->hash && c->size == p->size && c->count == p->count &&
         c->stride == p->stride && (c->size == 0 || memcmp(c->data, p->bytes, c->size) == 0);
}

/* The component id of 'p', stored now when new (*added counts it). */
static psoc_status intern(psoc_archive_writer *w, pending *p, uint32_t *id) {
  size_t j;
  wcomp *c;
  if (w->ctab_cap)
    for (j = (size_t)p->hash & (w->ctab_cap - 1); w->ctab[j]; j = (j + 1) & (w->ctab_cap - 1))
      if (comp_equal(&w->comps[w->ctab[j] - 1], p)) {
        *id = w->ctab[j] - 1;
        return PSOC_OK;
      }
  if (w->ncomps >= UINT32_MAX - 1) return PSOC_ERR_SIZE;
  if (w->ncomps == w->cap_comps) {
    size_t ncap = w->cap_comps ? w->cap_comps * 2 : 64;
    wcomp *n = wmem(w, w->comps, w->cap_comps * sizeof *n, ncap * sizeof *n);
    if (!n) return PSOC_ERR_NOMEM;
    w->comps = n;
    w->cap_comps = ncap;
  }
  if (!grow_table(w, &w->ctab, &w->ctab_cap, w->ncomps, comp_key)) return PSOC_ERR_NOMEM;
  c = &w->comps[w->ncomps];
  memset(c, 0, sizeof *c);
  c->kind = p->kind;
  c->count = p->count;
  c->stride = p->stride;
  c->hash = p->hash;
  c->size = p->size;
  if (p->size) {
    c->data = wmem(w, NULL, 0, p->size);
    if (!c->data) return PSOC_ERR_NOMEM;
    memcpy(c->data, p->bytes, p->size);
  }
  for (j = (size_t)p->hash & (w->ctab_cap - 1); w->ctab[j]; j = (j + 1) & (w->ctab_cap - 1)) {
  }
  w->ctab[j] = (uint32_t)w->ncomps + 1;
  *id = (uint32_t)w->ncomps++;
  return PSOC_OK;
}

/* Undo the components a failed add stored (they are the last ones). */
static void rollback(psoc_archive_writer *w, size_t ncomps) {
  size_t i;
  if (w->ncomps == ncomps) return;
  while (w->ncomps > ncomps) {
    wcomp *c = &w->comps[--w->ncomps];
    if (c->data) wmem(w, c->data, c->size, 0);
  }
  memset(w->ctab, 0, w->ctab_cap * sizeof *w->ctab);
  for (i = 0; i < w->ncomps; i++) {
    size_t j = (size_t)w->comps[i].hash & (w->ctab_cap - 1);
    while (w->ctab[j]) j = (j + 1) & (w->ctab_cap - 1);
    w->ctab[j] = (uint32_t)i + 1;
  }
}

psoc_status psoc_archive_writer_reserve(psoc_archive_writer *w, size_t pipelines) {
  size_t want;
  if (!w) return PSOC_ERR_ARG;
  if (pipelines == 0) return PSOC_OK;
  if (pipelines > UINT32_MAX - 1 - w->npipes) return PSOC_ERR_NOMEM; /* never that many */
  want = w->npipes + pipelines;
  if (want > w->cap_pipes) {
    wpipe *n = wmem(w, w->pipes, w->cap_pipes * sizeof *n, want * sizeof *n);
    if (!n) return PSOC_ERR_NOMEM;
    w->pipes = n;
    w->cap_pipes = want;
  }
  /* the name index for 'want' entries: commit_pipe then never grows it */
  return grow_table(w, &w->ntab, &w->ntab_cap, want - 1, pipe_key) ? PSOC_OK : PSOC_ERR_NOMEM;
}

/* Append a pipeline whose components are stored already: its record 'rec'
** of 'size' bytes, the offsets of its 'nslots' references and (a borrowed
** record) their writer ids, or ids NULL. */
static psoc_status commit_pipe(psoc_archive_writer *w, const char *name, size_t name_len,
                               const char *rs, size_t rs_len, psoc_hash128 hash, uint32_t kind,
                               const unsigned char *rec, size_t size, const uint32_t *slots,
                               const uint32_t *ids, size_t nslots) {
  wpipe *p;
  size_t j;
  if (w->npipes == w->cap_pipes) {
    size_t ncap = w->cap_pipes ? w->cap_pipes * 2 : 64;
    wpipe *n = wmem(w, w->pipes, w->cap_pipes * sizeof *n, ncap * sizeof *n);
    if (!n) return PSOC_ERR_NOMEM;
    w->pipes = n;
    w->cap_pipes = ncap;
  }
  if (!grow_table(w, &w->ntab, &w->ntab_cap, w->npipes, pipe_key)) return PSOC_ERR_NOMEM;
  p = &w->pipes[w->npipes];
  memset(p, 0, sizeof *p);
  p->name = arena_str(w, name, name_len);
  p->rs = rs ? arena_str(w, rs, rs_len) : NULL;
  if (!p->name || (rs && !p->rs)) return PSOC_ERR_NOMEM;
  p->name_len = name_len;
  p->rs_len = rs_len;
  p->hash = hash;
  p->kind = kind;
  p->record = rec;
  p->record_size = size;
  p->slots = slots;
  p->ids = ids;
  p->nslots = nslots;
  for (j = (size_t)name_hash(name, name_len) & (w->ntab_cap - 1); w->ntab[j];
       j = (j + 1) & (w->ntab_cap - 1)) {
  }
  w->ntab[j] = (uint32_t)w->npipes + 1;
  w->npipes++;
  w->out_current = 0;
  return PSOC_OK;
}

static int name_ok(const char *s, size_t *len) {
  size_t n = strlen(s);
  *len = n;
  return n <= ARC_NAME_MAX;
}

psoc_status psoc_archive_writer_add(psoc_archive_writer *w, const char *name,
                                    const char *root_signature, const void *stream, size_t size,
                                    char *err, size_t errlen) {
  build b;
  psoc_parsed parsed;
  psoc_hash128 hash;
  size_t name_len, rs_len = 0, existing, i, ncomps;
  psoc_status st;
  int r, in_arena = 0;
  if (err && errlen) err[0] = 0;
  if (!w || !name || !stream) {
    arc_errf(err, errlen, "NULL writer, name or stream");
    return PSOC_ERR_ARG;
  }
  if (!name_ok(name, &name_len) || (root_signature && !name_ok(root_signature, &rs_len))) {
    arc_errf(err, errlen, "pipeline '%.64s...': name or root-signature name longer than %u bytes",
             name, ARC_NAME_MAX);
    return PSOC_ERR_ARG;
  }
  {
    psoc_diags diags;
    psoc_diags_init(&diags, &w->alloc);
    st = psoc_parse(stream, size, &parsed, &diags);
    if (st != PSOC_OK) {
      size_t k;
      for (k = 0; k < diags.count && diags.items[k].severity != PSOC_SEVERITY_ERROR; k++) {
      }
      arc_errf(err, errlen, "pipeline '%s': the stream does not parse: %s", name,
               k < diags.count ? diags.items[k].message : "invalid");
      psoc_diags_free(&diags);
      return PSOC_ERR_INVALID;
    }
    psoc_diags_free(&diags);
  }
  if (size > UINT32_MAX) {
    arc_errf(err, errlen, "pipeline '%s': a %zu-byte stream", name, size);
    return PSOC_ERR_SIZE;
  }
  if (psoc_hash(stream, size, PSOC_FOLLOW_POINTERS, root_signature, &hash) != PSOC_OK) {
    arc_errf(err, errlen, "pipeline '%s': the stream cannot be hashed", name);
    return PSOC_ERR_INVALID;
  }
  existing = find_pipe(w, name, name_len);
  if (existing != (size_t)-1) {
    const wpipe *e = &w->pipes[existing];
    int same_rs = (!e->rs && !root_signature) ||
                  (e->rs && root_signature && strcmp(e->rs, root_signature) == 0);
    if (e->hash.lo == hash.lo && e->hash.hi == hash.hi && same_rs) return PSOC_OK;
    arc_errf(err, errlen, "pipeline '%s' is added twice with different content", name);
    return PSOC_ERR_DUPLICATE;
  }
  if (w->npipes >= UINT32_MAX - 1) return PSOC_ERR_SIZE;

  memset(&b, 0, sizeof b);
  b.w = w;
  b.src = stream;
  b.rs = root_signature;
  b.err = err;
  b.errlen = errlen;
  b.status = PSOC_OK;
  b.rec = wmem(w, NULL, 0, size);
  if (!b.rec) return PSOC_ERR_NOMEM;
  memset(b.rec, 0, size);
  {
    psoc_walker walker;
    psoc_view view;
    psoc_walk_init(&walker, stream, size);
    while (psoc_walk_next(&walker, &view, NULL)) {
      memcpy(b.rec + view.offset, &view.type, 4);
      copy_fields(b.rec + view.offset + view.info->payload_offset, view.payload, view.info->payload,
                  NULL);
    }
  }
  r = arc_slots(stream, size, slot_build, &b);
  if (r) {
    if (r < 0) {
      arc_errf(err, errlen, "pipeline '%s': a pointer field this archive format cannot store", name);
      b.status = PSOC_ERR_TYPE;
    }
    st = b.status;
    goto fail;
  }
  /* the record and its reference offsets, into the arena */
  {
    unsigned char *rec = arena_get(w, rec_alloc(size, b.npend));
    uint32_t *slots;
    if (!rec) {
      st = PSOC_ERR_NOMEM;
      goto fail;
    }
    memcpy(rec, b.rec, size);
    wmem(w, b.rec, size, 0);
    b.rec = rec;
    in_arena = 1;
    slots = (uint32_t *)(void *)(b.rec + rec_alloc(size, 0));
    for (i = 0; i < b.npend; i++) slots[i] = (uint32_t)b.pend[i].slot;
  }
  /* Commit: components first (undone on failure), then the pipeline. */
  ncomps = w->ncomps;
  for (i = 0; i < b.npend; i++) {
    uint32_t id;
    st = intern(w, &b.pend[i], &id);
    if (st != PSOC_OK) {
      rollback(w, ncomps);
      goto fail;
    }
    arc_put_slot(b.rec + b.pend[i].slot, (uint64_t)id + 1);
  }
  st = commit_pipe(w, name, name_len, root_signature, rs_len, hash, (uint32_t)parsed.kind, b.rec,
                   size, (const uint32_t *)(const void *)(b.rec + rec_alloc(size, 0)), NULL,
                   b.npend);
  if (st != PSOC_OK) {
    rollback(w, ncomps);
    goto fail;
  }
  for (i = 0; i < b.npend; i++) w->referenced_bytes += b.pend[i].size;
  free_pending(&b);
  return PSOC_OK;
fail:
  free_pending(&b);
  if (!in_arena) wmem(w, b.rec, size, 0);
  if (st == PSOC_ERR_NOMEM && err && errlen && !err[0]) arc_errf(err, errlen, "out of memory");
  return st;
}

void psoc_archive_writer_stats_get(const psoc_archive_writer *w, psoc_archive_writer_stats *out) {
  size_t i;
  if (!out) return;
  memset(out, 0, sizeof *out);
  if (!w) return;
  out->pipelines = w->npipes;
  out->components = w->ncomps;
  for (i = 0; i < w->ncomps; i++) out->component_bytes += w->comps[i].size;
  out->referenced_bytes = w->referenced_bytes;
}

/* ---- merging archives ------------------------------------------------ */

/* Merging copies what the archive verified: each record as it is stored
** there, its component references renumbered into the writer, and each
** component (by its verified checksum, which is its content hash) interned
** once. Nothing is loaded, parsed or hashed again: the records and
** components are exactly what psoc_archive_writer_add made of the streams
** they came from, so the result is the same as adding those streams. */
#define UNMAPPED UINT32_MAX

typedef struct merge_ctx {
  psoc_archive_writer *w;
  psoc_archive *a;
  const unsigned char *src;    /* the stored record (slot_collect) */
  uint32_t *map;               /* the archive's component index -> writer id */
  size_t ncomps;               /* components in the archive */
  uint64_t referenced;
  uint32_t slots[MAX_PENDING]; /* the record's reference offsets */
  uint32_t ids[MAX_PENDING];   /* their writer ids */
  size_t nslots;
  int borrow;                  /* records borrowed, not copied */
  psoc_status status;
} merge_ctx;

/* Collect the offsets of the record's component references (at most
** MAX_PENDING, as psoc_archive_writer_add stores). */
static int slot_collect(void *ud, const arc_slot *slot) {
  merge_ctx *m = ud;
  uint64_t v = arc_get_slot(m->src + slot->offset);
  if (slot->kind == 0 || v == 0) return 0; /* a root-signature name, or NULL */
  if (v > m->ncomps) { /* cannot happen in a verified record */
    m->status = PSOC_ERR_INVALID;
    return 1;
  }
  if (m->nslots == MAX_PENDING) {
    m->status = PSOC_ERR_SIZE;
    return 1;
  }
  m->slots[m->nslots++] = (uint32_t)slot->offset;
  return 0;
}

/* The writer id of the archive's reference v (its component interned when
** first seen) into *id. 0, or 1 with m->status. */
static int slot_id(merge_ctx *m, uint64_t v, uint32_t *id) {
  size_t c = (size_t)(v - 1);
  if (m->map[c] == UNMAPPED) {
    arc_raw_comp rc;
    pending pd;
    uint32_t nid;
    if ((m->status = arc_raw_component(m->a, c, &rc)) != PSOC_OK) return 1;
    memset(&pd, 0, sizeof pd);
    pd.kind = rc.kind;
    pd.count = rc.count;
    pd.stride = rc.stride;
    pd.hash = rc.hash;
    pd.size = rc.size;
    pd.bytes = rc.data;
    if ((m->status = intern(m->w, &pd, &nid)) != PSOC_OK) return 1;
    m->map[c] = nid;
  }
  m->referenced += m->w->comps[m->map[c]].size;
  *id = m->map[c];
  return 0;
}

/* Add pipeline i of m->a (m->map current). PSOC_OK, or the failure with
** 'err' set and the writer as it was before this pipeline. */
static psoc_status merge_one(merge_ctx *m, size_t i, char *err, size_t errlen) {
  psoc_archive_writer *w = m->w;
  arc_raw_pipe rp;
  size_t existing, k, ncomps = w->ncomps;
  psoc_status st = arc_raw_pipeline(m->a, i, &rp, err, errlen);
  if (st != PSOC_OK) return st;
  existing = find_pipe(w, rp.name, rp.name_len);
  if (existing != (size_t)-1) {
    const wpipe *e = &w->pipes[existing];
    int same_rs = (!e->rs && !rp.rs) ||
                  (e->rs && rp.rs && e->rs_len == rp.rs_len && memcmp(e->rs, rp.rs, rp.rs_len) == 0);
    if (e->hash.lo == rp.hash.lo && e->hash.hi == rp.hash.hi && same_rs) return PSOC_OK;
    arc_errf(err, errlen, "pipeline '%s' is added twice with different content", rp.name);
    return PSOC_ERR_DUPLICATE;
  }
  if (w->npipes >= UINT32_MAX - 1) return PSOC_ERR_SIZE;
  if (rp.record_size == 0) return PSOC_ERR_INVALID; /* a verified record parses: never empty */
  /* the references' offsets (one walk of the stored record) */
  m->src = rp.record;
  m->nslots = 0;
  m->status = PSOC_OK;
  if (arc_slots_trusted(rp.record, rp.record_size, slot_collect, m) != 0) {
    st = m->status == PSOC_OK ? PSOC_ERR_INVALID : m->status;
    if (st == PSOC_ERR_SIZE)
      arc_errf(err, errlen, "pipeline '%s': more than %d pointer fields", rp.name, MAX_PENDING);
    else if (st == PSOC_ERR_INVALID && err && errlen && !err[0])
      arc_errf(err, errlen, "pipeline '%s': a damaged record", rp.name);
    return st;
  }
  m->referenced = 0;
  for (k = 0; k < m->nslots && m->status == PSOC_OK; k++)
    (void)slot_id(m, arc_get_slot(rp.record + m->slots[k]), &m->ids[k]);
  st = m->status;
  if (st == PSOC_OK) {
    const unsigned char *rec = rp.record;
    const uint32_t *ids = NULL;
    uint32_t *slots;
    if (m->borrow) { /* the record stays in the archive: its offsets and ids */
      slots = arena_get(w, 2 * m->nslots * sizeof *slots + 1);
      if (slots) ids = memcpy(slots + m->nslots, m->ids, m->nslots * sizeof *m->ids);
    } else { /* the record copied, renumbered, its offsets after it */
      unsigned char *copy = arena_get(w, rec_alloc(rp.record_size, m->nslots));
      slots = copy ? (uint32_t *)(void *)(copy + rec_alloc(rp.record_size, 0)) : NULL;
      if (copy) {
        memcpy(copy, rp.record, rp.record_size);
        for (k = 0; k < m->nslots; k++) arc_put_slot(copy + m->slots[k], (uint64_t)m->ids[k] + 1);
        rec = copy;
      }
    }
    if (!slots) {
      st = PSOC_ERR_NOMEM;
    } else {
      if (m->nslots) memcpy(slots, m->slots, m->nslots * sizeof *m->slots);
      st = commit_pipe(w, rp.name, rp.name_len, rp.rs, rp.rs_len, rp.hash, rp.kind, rec,
                       rp.record_size, slots, ids, m->nslots);
      if (st == PSOC_OK) w->pipes[w->npipes - 1].checksum = rp.checksum;
    }
  }
  if (st != PSOC_OK) {
    /* undo this pipeline's new components, and forget their ids */
    for (k = 0; k < m->ncomps; k++)
      if (m->map[k] != UNMAPPED && m->map[k] >= ncomps) m->map[k] = UNMAPPED;
    rollback(w, ncomps);
    if (st == PSOC_ERR_INVALID && err && errlen && !err[0])
      arc_errf(err, errlen, "pipeline '%s': a damaged record", rp.name);
    return st;
  }
  w->referenced_bytes += m->referenced;
  return PSOC_OK;
}

/* The merge of a's pipelines indices[0..count) (all of them when indices
** is NULL), through the caller's map or one of its own. */
static psoc_status merge_pipelines(psoc_archive_writer *w, psoc_archive *a, const size_t *indices,
                                   size_t count, uint32_t *map, int borrow, char *err,
                                   size_t errlen) {
  merge_ctx m;
  size_t i, k, n;
  psoc_status st = PSOC_OK;
  if (err && errlen) err[0] = 0;
  if (!w || !a) return PSOC_ERR_ARG;
  memset(&m, 0, sizeof m);
  m.w = w;
  m.a = a;
  m.ncomps = psoc_archive_component_count(a);
  m.borrow = borrow;
  n = psoc_archive_count(a);
  if (indices)
    for (i = 0; i < count; i++)
      if (indices[i] >= n) return PSOC_ERR_ARG;
  m.map = map;
  if (!map) {
    m.map = wmem(w, NULL, 0, (m.ncomps + 1) * sizeof *m.map);
    if (!m.map) {
      arc_errf(err, errlen, "out of memory");
      return PSOC_ERR_NOMEM;
    }
    for (k = 0; k < m.ncomps; k++) m.map[k] = UNMAPPED;
  }
  if (!indices) count = n;
  for (i = 0; i < count && st == PSOC_OK; i++) st = merge_one(&m, indices ? indices[i] : i, err, errlen);
  if (st == PSOC_ERR_NOMEM && err && errlen && !err[0]) arc_errf(err, errlen, "out of memory");
  if (!map) wmem(w, m.map, (m.ncomps + 1) * sizeof *m.map, 0);
  return st;
}

psoc_status psoc_archive_writer_add_archive(psoc_archive_writer *w, psoc_archive *a, char *err,
                                            size_t errlen) {
  return merge_pipelines(w, a, NULL, 0, NULL, 0, err, errlen);
}

static psoc_status add_some(psoc_archive_writer *w, psoc_archive *a, const size_t *indices,
                            size_t count, uint32_t *map, int borrow, char *err, size_t errlen) {
  if (!w || !a || (!indices && count)) return PSOC_ERR_ARG;
  if (!count) {
    if (err && errlen) err[0] = 0;
    return PSOC_OK;
  }
  return merge_pipelines(w, a, indices, count, map, borrow, err, errlen);
}

psoc_status psoc_archive_writer_add_archive_pipelines(psoc_archive_writer *w, psoc_archive *a,
                                                      const size_t *indices, size_t count,
                                                      uint32_t *map, char *err, size_t errlen) {
  return add_some(w, a, indices, count, map, 0, err, errlen);
}

psoc_status psoc_archive_writer_borrow_archive_pipelines(psoc_archive_writer *w, psoc_archive *a,
                                                         const size_t *indices, size_t count,
                                                         uint32_t *map, char *err, size_t errlen) {
  return add_some(w, a, indices, count, map, 1, err, errlen);
}

/* ---- finishing -------------------------------------------------------- */

/* Sorting. The pipelines (by name) and the hash index (by hash) are
** sorted as (key, index) pairs by a merge sort with the comparison
** inline: the 64-bit key decides almost every comparison, and only equal
** keys ask 'tie' (the names past their first 8 bytes; the rest of the
** hash and the position). qsort's call per comparison cost a re-cook of
** 10,000 pipelines about 13 M instructions; this, about 2 M. */
typedef struct sort_item {
  uint64_t key;
  uint32_t index;
} sort_item;

typedef int (*sort_tie)(const void *ctx, uint32_t a, uint32_t b);

static int sort_before(const sort_item *a, const sort_item *b, sort_tie tie, const void *ctx) {
  if (a->key != b->key) return a->key < b->key;
  return tie(ctx, a->index, b->index) < 0;
}

/* Sort a[0..n) with tmp[0..n) as scratch: insertion sort of runs of 8,
** then merges, back and forth between the two arrays. Input in order
** already (a re-cook's pipelines, merged script by script in name order)
** is left as it is after one pass (n - 1 comparisons instead of about
** n log n: the name sort of 10,000 pipelines cost about 5 M instructions,
** most of them the names' ties); other input leaves that pass at its
** first pair out of order. */
static void sort_items(sort_item *a, sort_item *tmp, size_t n, sort_tie tie, const void *ctx) {
  sort_item *src = a, *dst = tmp, *t;
  size_t i, j, run;
  for (i = 1; i < n && !sort_before(&a[i], &a[i - 1], tie, ctx); i++) {
  }
  if (i >= n) return;
  for (i = 0; i < n; i += 8) {
    size_t end = i + 8 < n ? i + 8 : n;
    for (j = i + 1; j < end; j++) {
      sort_item v = a[j];
      size_t k = j;
      for (; k > i && sort_before(&v, &a[k - 1], tie, ctx); k--) a[k] = a[k - 1];
      a[k] = v;
    }
  }
  for (run = 8; run < n; run *= 2) {
    for (i = 0; i < n; i += 2 * run) {
      size_t mid = i + run < n ? i + run : n, end = i + 2 * run < n ? i + 2 * run : n;
      size_t x = i, y = mid, o = i;
      while (x < mid && y < end) dst[o++] = sort_before(&src[y], &src[x], tie, ctx) ? src[y++] : src[x++];
      while (x < mid) dst[o++] = src[x++];
      while (y < end) dst[o++] = src[y++];
    }
    t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, n * sizeof *a);
}

/* sort_items for keys spread evenly (hashes): the items dealt into up
** to 4,096 buckets by their keys' top bits (a count, then a stable
** scatter into tmp), each bucket, a few items, sorted by insertion and
** copied back; a bucket of more than 32 (keys that are not spread) by
** sort_items. The hash index's merge sort of 10,000 pipelines cost about
** 2.8 M instructions. */
#define SPREAD_BITS_MAX 12
static void sort_spread(sort_item *a, sort_item *tmp, size_t n, sort_tie tie, const void *ctx) {
  uint32_t start[(1u << SPREAD_BITS_MAX) + 1];
  unsigned bits = 1, shift;
  size_t i, j, b, nb;
  if (n < 64 || n > UINT32_MAX) {
    sort_items(a, tmp, n, tie, ctx);
    return;
  }
  while (bits < SPREAD_BITS_MAX && ((size_t)1 << (bits + 1)) <= n / 2) bits++;
  nb = (size_t)1 << bits;
  shift = 64 - bits;
  memset(start, 0, sizeof start);
  for (i = 0; i < n; i++) start[(a[i].key >> shift) + 1]++;
  for (b = 0; b < nb; b++) start[b + 1] += start[b];
  for (i = 0; i < n; i++) tmp[start[a[i].key >> shift]++] = a[i];
  /* start[b] is now the end of bucket b, the start of bucket b + 1 */
  for (b = 0, i = 0; b < nb; i = start[b++]) {
    size_t end = start[b];
    if (end - i > 32) {
      sort_items(tmp + i, a + i, end - i, tie, ctx);
      memcpy(a + i, tmp + i, (end - i) * sizeof *a);
      continue;
    }
    for (j = i; j < end; j++) {
      sort_item v = tmp[j];
      size_t k = j;
      for (; k > i && sort_before(&v, &a[k - 1], tie, ctx); k--) a[k] = a[k - 1];
      a[k] = v;
    }
  }
}

/* The first 8 bytes of a name, big-endian (zeros past its end: names hold
** no NUL, so the keys order as memcmp orders the names). */
static uint64_t name_prefix(const char *s, size_t n) {
  uint64_t k = 0;
  size_t i;
  for (i = 0; i < 8; i++) k = (k << 8) | (i < n ? (unsigned char)s[i] : 0);
  return k;
}

static int tie_name(const void *ctx, uint32_t x, uint32_t y) {
  const wpipe *a = &((const wpipe *)ctx)[x], *b = &((const wpipe *)ctx)[y];
  size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
  int c = memcmp(a->name, b->name, n);
  if (c) return c;
  return a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

typedef struct comp_key_item {
  const wcomp *c;
  uint32_t index;
} comp_key_item;

static int cmp_comp(const void *x, const void *y) {
  const wcomp *a = ((const comp_key_item *)x)->c, *b = ((const comp_key_item *)y)->c;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
  if (a->size != b->size) return a->size < b->size ? -1 : 1;
  if (a->count != b->count) return a->count < b->count ? -1 : 1;
  if (a->stride != b->stride) return a->stride < b->stride ? -1 : 1;
  return a->size ? memcmp(a->data, b->data, a->size) : 0;
}

/* Component ids in a record -> final indices (map NULL: only collect);
** collects the distinct ones. */
typedef struct remap {
  const uint32_t *map;
  unsigned char *rec;          /* written through map (map not NULL) */
  uint32_t refs[MAX_PENDING];
  size_t nrefs;
} remap;

/* The references of pipeline p (its ids, or read at its slot offsets in
** src, its record or a copy of it) through m->map into m->rec, collected
** once each. */
static void remap_slots(remap *m, const wpipe *p, const unsigned char *src) {
  size_t k, i;
  for (k = 0; k < p->nslots; k++) {
    uint64_t v = p->ids ? (uint64_t)p->ids[k] + 1 : arc_get_slot(src + p->slots[k]);
    uint32_t idx = m->map ? m->map[v - 1] : (uint32_t)(v - 1);
    if (m->map) arc_put_slot(m->rec + p->slots[k], (uint64_t)idx + 1);
    for (i = 0; i < m->nrefs && m->refs[i] != idx; i++) {
    }
    if (i == m->nrefs && m->nrefs < MAX_PENDING) m->refs[m->nrefs++] = idx;
  }
}

/* A record's few distinct references in ascending order: an insertion
** sort (qsort's call and merge set-up per record cost a re-cook of 10,000
** pipelines about 11 M instructions; this, about 1 M). */
static void sort_refs(uint32_t *r, size_t n) {
  size_t i, j;
  for (i = 1; i < n; i++) {
    uint32_t v = r[i];
    for (j = i; j > 0 && r[j - 1] > v; j--) r[j] = r[j - 1];
    r[j] = v;
  }
}

/* The file's layout, shared by finish (the bytes in memory) and
** write_file (streamed into the temporary file): the orders, the region
** offsets and the "head", every byte before the records (header, table
** of contents, pipeline, name, reference, hash-index and component tables,
** whose checksums need the records' checksums first). */
typedef struct layout {
  uint32_t *porder, *corder, *cmap; /* name order; content order; id -> index */
  sort_item *keys, *keys_tmp; /* n each: the name sort's, then the hash index's */
  const wpipe *pipes;         /* the hash index's ties: */
  comp_key_item *ck;
  size_t n, m, total_refs, max_record;
  uint64_t off[ARC_TABLES], len[ARC_TABLES], file;
} layout;

/* Pipelines in name order x and y with the same hash.hi: by hash.lo, then
** by position (as the format orders the hash index). */
static int tie_hash(const void *ctx, uint32_t x, uint32_t y) {
  const layout *L = ctx;
  uint64_t a = L->pipes[L->porder[x]].hash.lo, b = L->pipes[L->porder[y]].hash.lo;
  if (a != b) return a < b ? -1 : 1;
  return x < y ? -1 : x > y;
}

static void layout_free(psoc_archive_writer *w, layout *L) {
  if (L->porder) wmem(w, L->porder, (L->n + 1) * sizeof *L->porder, 0);
  if (L->corder) wmem(w, L->corder, (L->m + 1) * sizeof *L->corder, 0);
  if (L->cmap) wmem(w, L->cmap, (L->m + 1) * sizeof *L->cmap, 0);
  if (L->keys) wmem(w, L->keys, (L->n + 1) * sizeof *L->keys, 0);
  if (L->keys_tmp) wmem(w, L->keys_tmp, (L->n + 1) * sizeof *L->keys_tmp, 0);
  if (L->ck) wmem(w, L->ck, (L->m + 1) * sizeof *L->ck, 0);
}

/* Orders, sizes and offsets. */
static psoc_status layout_plan(psoc_archive_writer *w, layout *L) {
  size_t n = w->npipes, m = w->ncomps, i;
  uint64_t names = 0, recs = 0, store = 0, pos;
  memset(L, 0, sizeof *L);
  L->n = n;
  L->m = m;
  L->porder = wmem(w, NULL, 0, (n + 1) * sizeof *L->porder);
  L->corder = wmem(w, NULL, 0, (m + 1) * sizeof *L->corder);
  L->cmap = wmem(w, NULL, 0, (m + 1) * sizeof *L->cmap);
  L->keys = wmem(w, NULL, 0, (n + 1) * sizeof *L->keys);
  L->keys_tmp = wmem(w, NULL, 0, (n + 1) * sizeof *L->keys_tmp);
  L->ck = wmem(w, NULL, 0, (m + 1) * sizeof *L->ck);
  if (!L->porder || !L->corder || !L->cmap || !L->keys || !L->keys_tmp || !L->ck)
    return PSOC_ERR_NOMEM;
  L->pipes = w->pipes;
  for (i = 0; i < n; i++) {
    L->keys[i].key = name_prefix(w->pipes[i].name, w->pipes[i].name_len);
    L->keys[i].index = (uint32_t)i;
  }
  for (i = 0; i < m; i++) {
    L->ck[i].c = &w->comps[i];
    L->ck[i].index = (uint32_t)i;
  }
  sort_items(L->keys, L->keys_tmp, n, tie_name, w->pipes);
  qsort(L->ck, m, sizeof *L->ck, cmp_comp);
  for (i = 0; i < n; i++) L->porder[i] = L->keys[i].index;
  for (i = 0; i < m; i++) L->corder[i] = L->ck[i].index;
  for (i = 0; i < m; i++) {
    L->cmap[L->corder[i]] = (uint32_t)i;
    w->comps[i].users = 0;
  }
  /* Sizes. */
  for (i = 0; i < n; i++) {
    const wpipe *p = &w->pipes[i];
    names += p->name_len + 1 + (p->rs ? p->rs_len + 1 : 0);
    recs += arc_align(p->record_size);
    if (p->record_size > L->max_record) L->max_record = p->record_size;
  }
  for (i = 0; i < m; i++) store += arc_align(w->comps[i].size);
  if (names > UINT32_MAX || recs > UINT32_MAX) return PSOC_ERR_SIZE;
  /* References (final indices), per pipeline in name order. */
  for (i = 0; i < n; i++) {
    const wpipe *p = &w->pipes[i];
    remap rm;
    rm.map = NULL;
    rm.rec = NULL;
    rm.nrefs = 0;
    remap_slots(&rm, p, p->record);
    L->total_refs += rm.nrefs;
  }
  L->len[ARC_T_PIPE] = (uint64_t)n * ARC_PIPE_ENTRY;
  L->len[ARC_T_NAME] = arc_align(names);
  L->len[ARC_T_REFS] = arc_align((uint64_t)L->total_refs * 4);
  L->len[ARC_T_HIDX] = arc_align((uint64_t)n * 4);
  L->len[ARC_T_COMP] = (uint64_t)m * ARC_COMP_ENTRY;
  L->len[ARC_T_RECS] = recs;
  L->len[ARC_T_DATA] = store;
  pos = ARC_HEADER_SIZE + ARC_TABLES * ARC_TOC_ENTRY;
  for (i = 0; i < ARC_TABLES; i++) {
    L->off[i] = pos;
    pos += L->len[i];
  }
  L->file = pos + ARC_END_SIZE;
  if (L->file > (uint64_t)SIZE_MAX / 2) return PSOC_ERR_SIZE;
  return PSOC_OK;
}

/* Does borrowed pipeline p's record keep every reference's number in
** this layout (its archive's component order is the file's, as when a
** re-cook's components are the pack's)? Then the file holds the record
** as it is, with the checksum its archive verified: 1, its distinct
** references into *rm. Else 0. */
static int refs_kept(const layout *L, const wpipe *p, remap *rm) {
  size_t k, i;
  rm->map = L->cmap;
  rm->rec = NULL;
  rm->nrefs = 0;
  if (!p->ids) return 0;
  for (k = 0; k < p->nslots; k++) {
    uint32_t idx = L->cmap[p->ids[k]];
    if (arc_get_slot(p->record + p->slots[k]) != (uint64_t)idx + 1) return 0;
    for (i = 0; i < rm->nrefs && rm->refs[i] != idx; i++) {
    }
    if (i == rm->nrefs && rm->nrefs < MAX_PENDING) rm->refs[rm->nrefs++] = idx;
  }
  return 1;
}

/* Pipeline p's record with its component ids turned into final indices,
** into dst (record_size bytes); its distinct references into *rm. */
static void remap_record(const layout *L, const wpipe *p, unsigned char *dst, remap *rm) {
  memcpy(dst, p->record, p->record_size);
  rm->map = L->cmap;
  rm->rec = dst;
  rm->nrefs = 0;
  remap_slots(rm, p, dst);
}

/* The head (L->off[ARC_T_RECS] bytes, zeroed) into 'head'. With 'recs'
** (the record area, zeroed) the records go there too; else each is
** remapped into 'scratch' (L->max_record bytes) for its checksum only. */
static void layout_head(psoc_archive_writer *w, layout *L, unsigned char *head, unsigned char *recs,
                        unsigned char *scratch) {
  size_t i, n = L->n, m = L->m;
  uint64_t name_pos = 0, rec_pos = 0, ref_pos = 0, data_pos = 0;
  unsigned char *q;
  for (i = 0; i < n; i++) {
    wpipe *p = &w->pipes[L->porder[i]];
    unsigned char *e = head + L->off[ARC_T_PIPE] + i * ARC_PIPE_ENTRY;
    unsigned char *rec = recs ? recs + rec_pos : scratch;
    remap rm;
    size_t k;
    uint64_t sum;
    memcpy(head + L->off[ARC_T_NAME] + name_pos, p->name, p->name_len);
    arc_put32(e + ARC_P_NAME, (uint32_t)name_pos);
    arc_put32(e + ARC_P_NAME_LEN, (uint32_t)p->name_len);
    name_pos += p->name_len + 1;
    if (p->rs) {
      memcpy(head + L->off[ARC_T_NAME] + name_pos, p->rs, p->rs_len);
      arc_put32(e + ARC_P_RS, (uint32_t)name_pos);
      arc_put32(e + ARC_P_RS_LEN, (uint32_t)p->rs_len);
      name_pos += p->rs_len + 1;
    } else {
      arc_put32(e + ARC_P_RS, ARC_NO_STRING);
    }
    arc_put64(e + ARC_P_HASH_LO, p->hash.lo);
    arc_put64(e + ARC_P_HASH_HI, p->hash.hi);
    arc_put32(e + ARC_P_KIND, p->kind);
    arc_put32(e + ARC_P_REC_SIZE, (uint32_t)p->record_size);
    arc_put32(e + ARC_P_REC_OFFSET, (uint32_t)rec_pos);
    if ((p->as_is = refs_kept(L, p, &rm)) != 0) { /* no copy to hash, no hash */
      if (recs) memcpy(rec, p->record, p->record_size);
      sum = p->checksum;
    } else {
      remap_record(L, p, rec, &rm);
      sum = psoc_xxh3(rec, p->record_size);
    }
    sort_refs(rm.refs, rm.nrefs);
    arc_put32(e + ARC_P_REF_FIRST, (uint32_t)ref_pos);
    arc_put32(e + ARC_P_REF_COUNT, (uint32_t)rm.nrefs);
    for (k = 0; k < rm.nrefs; k++) {
      arc_put32(head + L->off[ARC_T_REFS] + (ref_pos + k) * 4, rm.refs[k]);
      w->comps[L->corder[rm.refs[k]]].users++;
    }
    ref_pos += rm.nrefs;
    arc_put64(e + ARC_P_REC_CHECKSUM, sum);
    rec_pos += arc_align(p->record_size);
    L->keys[i].key = p->hash.hi;
    L->keys[i].index = (uint32_t)i;
  }
  sort_spread(L->keys, L->keys_tmp, n, tie_hash, L);
  for (i = 0; i < n; i++) arc_put32(head + L->off[ARC_T_HIDX] + i * 4, L->keys[i].index);
  for (i = 0; i < m; i++) {
    const wcomp *c = &w->comps[L->corder[i]];
    unsigned char *e = head + L->off[ARC_T_COMP] + i * ARC_COMP_ENTRY;
    arc_put32(e + ARC_C_KIND, c->kind);
    arc_put32(e + ARC_C_COUNT, c->count);
    arc_put32(e + ARC_C_USERS, c->users);
    arc_put32(e + ARC_C_STRIDE, c->stride);
    arc_put64(e + ARC_C_OFFSET, data_pos);
    arc_put64(e + ARC_C_SIZE, c->size);
    arc_put64(e + ARC_C_CHECKSUM, c->hash);
    data_pos += arc_align(c->size);
  }
  /* Table of contents, header. */
  for (i = 0; i < ARC_TABLES; i++) {
    q = head + ARC_HEADER_SIZE + i * ARC_TOC_ENTRY;
    memcpy(q, arc_table_tags[i], 4);
    arc_put64(q + 8, L->off[i]);
    arc_put64(q + 16, L->len[i]);
    arc_put64(q + 24, i == ARC_T_RECS || i == ARC_T_DATA ? 0 : psoc_xxh3(head + L->off[i], (size_t)L->len[i]));
  }
  memcpy(head + ARC_H_MAGIC, arc_magic, sizeof arc_magic);
  arc_put32(head + ARC_H_VERSION, PSOC_ARCHIVE_FORMAT_VERSION);
  arc_put32(head + ARC_H_HEADER_SIZE, ARC_HEADER_SIZE);
  arc_put32(head + ARC_H_POINTER_SIZE, PSOC_PTR_SIZE);
  arc_put32(head + ARC_H_HASH_VERSION, PSOC_HASH_VERSION);
  arc_put32(head + ARC_H_PSOC_VERSION, arc_psoc_version());
  arc_put32(head + ARC_H_SUBOBJECT_MASK, arc_subobject_mask());
  arc_put64(head + ARC_H_SUBOBJECT_PRINT, arc_subobject_fingerprint());
  arc_put64(head + ARC_H_FILE_SIZE, L->file);
  arc_put32(head + ARC_H_TOC_OFFSET, ARC_HEADER_SIZE);
  arc_put32(head + ARC_H_TOC_COUNT, ARC_TABLES);
  arc_put64(head + ARC_H_TOC_CHECKSUM, psoc_xxh3(head + ARC_HEADER_SIZE, ARC_TABLES * ARC_TOC_ENTRY));
  {
    size_t vn = strlen(PSOC_VERSION_STRING);
    memcpy(head + ARC_H_VERSION_STRING, PSOC_VERSION_STRING, vn < 15 ? vn : 15);
  }
  arc_put64(head + ARC_H_CHECKSUM, psoc_xxh3(head, ARC_H_CHECKSUM));
}

/* The end marker (ARC_END_SIZE bytes) of a file whose header is 'head'. */
static void end_marker(const unsigned char *head, unsigned char *q) {
  memcpy(q, arc_end_magic, sizeof arc_end_magic);
  memcpy(q + 8, head + ARC_H_CHECKSUM, 8);
}

psoc_status psoc_archive_writer_finish(psoc_archive_writer *w, const void **data, size_t *size) {
  layout L;
  unsigned char *out;
  size_t i;
  uint64_t data_pos = 0;
  psoc_status st;
  if (data) *data = NULL;
  if (size) *size = 0;
  if (!w || !data || !size) return PSOC_ERR_ARG;
  if (w->out && w->out_current) { /* nothing added since: the same bytes */
    *data = w->out;
    *size = w->out_size;
    return PSOC_OK;
  }
  st = layout_plan(w, &L);
  if (st != PSOC_OK) goto done;
  st = PSOC_ERR_NOMEM;
  if (w->out) wmem(w, w->out, w->out_size, 0);
  w->out = NULL;
  w->out_size = 0;
  out = wmem(w, NULL, 0, (size_t)L.file);
  if (!out) goto done;
  memset(out, 0, (size_t)L.file);
  layout_head(w, &L, out, out + L.off[ARC_T_RECS], NULL);
  for (i = 0; i < L.m; i++) {
    const wcomp *c = &w->comps[L.corder[i]];
    if (c->size) memcpy(out + L.off[ARC_T_DATA] + data_pos, c->data, c->size);
    data_pos += arc_align(c->size);
  }
  end_marker(out, out + L.file - ARC_END_SIZE);
  w->out = out;
  w->out_size = (size_t)L.file;
  w->out_current = 1;
  *data = out;
  *size = (size_t)L.file;
  st = PSOC_OK;
done:
  layout_free(w, &L);
  return st;
}

#define ARC_WRITE_BUFFER ((size_t)2 << 20)

/* The streamed file, through a buffer of its own (ARC_WRITE_BUFFER bytes;
** the FILE is unbuffered then): a memcpy a piece instead of an fwrite call
** (two a record cost a re-cook of 10,000 pipelines about 4 M
** instructions), the file written in aligned 2 MB pieces, and after each
** the disk's writeback started (psoc_plat_file_writeback), so that it
** overlaps making the rest and the fsync at the end waits for less.
** Without the buffer (cap 0), fwrite into stdio's own. */
typedef struct out_file {
  FILE *f;
  unsigned char *buf;
  size_t used, cap;
} out_file;

static int out_flush(out_file *o) {
  if (!o->used) return 0;
  if (fwrite(o->buf, 1, o->used, o->f) != o->used) return 1;
  o->used = 0;
  psoc_plat_file_writeback(o->f);
  return 0;
}

static int put(out_file *o, const void *p, size_t n) {
  const unsigned char *q = p;
  if (!o->cap) return n && fwrite(p, 1, n, o->f) != n;
  while (n) {
    size_t k = o->cap - o->used < n ? o->cap - o->used : n;
    memcpy(o->buf + o->used, q, k);
    o->used += k;
    q += k;
    n -= k;
    if (o->used == o->cap && out_flush(o)) return 1;
  }
  return 0;
}

/* Write n bytes and then zeros up to a multiple of ARC_ALIGN. */
static int put_padded(out_file *o, const void *p, size_t n) {
  static const unsigned char zeros[ARC_ALIGN];
  size_t pad = (size_t)(arc_align(n) - n);
  return put(o, p, n) || put(o, zeros, pad);
}

/* The file streamed into f: the head from memory, then each record
** remapped again into a scratch buffer, each component from the writer's
** copy, the end marker. Only the head and one record are held besides
** the writer's own copy. */
static psoc_status stream_file(psoc_archive_writer *w, FILE *f, unsigned char *buf, int *io) {
  layout L;
  unsigned char *head = NULL, *hp, *rec = NULL, end[ARC_END_SIZE];
  size_t i, head_size = 0, rec_cap = 0;
  out_file o;
  psoc_status st = layout_plan(w, &L);
  *io = 0;
  o.f = f;
  o.buf = buf;
  o.used = 0;
  o.cap = buf ? ARC_WRITE_BUFFER : 0;
  if (st != PSOC_OK) goto done;
  st = PSOC_ERR_NOMEM;
  head_size = (size_t)L.off[ARC_T_RECS];
  rec_cap = L.max_record + 1;
  /* the head made in the buffer itself when it fits (no memory of its
  ** own to fault in, no copy), else in its own and put */
  if (!(o.cap && head_size <= o.cap)) head = wmem(w, NULL, 0, head_size);
  rec = wmem(w, NULL, 0, rec_cap);
  hp = head ? head : o.buf;
  if (!rec || !(head || (o.cap && head_size <= o.cap))) goto done;
  memset(hp, 0, head_size);
  layout_head(w, &L, hp, NULL, rec);
  end_marker(hp, end);
  st = PSOC_ERR_IO;
  if (head) {
    if (put(&o, head, head_size)) goto io_failed;
  } else {
    o.used = head_size;
    if (o.used == o.cap && out_flush(&o)) goto io_failed;
  }
  for (i = 0; i < L.n; i++) {
    const wpipe *p = &w->pipes[L.porder[i]];
    size_t padded = (size_t)arc_align(p->record_size);
    remap rm;
    if (p->as_is) { /* layout_head found its bytes the file's */
      if (put_padded(&o, p->record, p->record_size)) goto io_failed;
      continue;
    }
    if (o.cap && o.cap - o.used >= padded) {
      /* remapped straight into the buffer: no copy through 'rec'; the
      ** padding (< ARC_ALIGN bytes) zeroed by one store of ARC_ALIGN zeros
      ** at the end of the record's place first (a memset call per record
      ** cost about 1 M instructions) */
      static const unsigned char zeros[ARC_ALIGN];
      memcpy(o.buf + o.used + padded - ARC_ALIGN, zeros, ARC_ALIGN);
      remap_record(&L, p, o.buf + o.used, &rm);
      o.used += padded;
      if (o.used == o.cap && out_flush(&o)) goto io_failed;
      continue;
    }
    remap_record(&L, p, rec, &rm);
    if (put_padded(&o, rec, p->record_size)) goto io_failed;
  }
  for (i = 0; i < L.m; i++) {
    const wcomp *c = &w->comps[L.corder[i]];
    if (put_padded(&o, c->data, c->size)) goto io_failed;
  }
  if (put(&o, end, sizeof end) || out_flush(&o)) goto io_failed;
  st = PSOC_OK;
  goto done;
io_failed:
  *io = errno ? errno : EIO;
done:
  if (head) wmem(w, head, head_size, 0);
  if (rec) wmem(w, rec, rec_cap, 0);
  layout_free(w, &L);
  return st;
}

psoc_status psoc_archive_write_file(psoc_archive_writer *w, const char *path, char *err,
                                    size_t errlen) {
  char tmp[PSOC_PLAT_PATH_MAX];
  FILE *f;
  unsigned char *mem, *buf = NULL;
  size_t mem_size = ARC_WRITE_BUFFER + PSOC_PLAT_HUGE_PAGE;
  psoc_status st;
  int e, io = 0;
  if (err && errlen) err[0] = 0;
  if (!w || !path) return PSOC_ERR_ARG;
  if (w->out && w->out_current) { /* finished already: those bytes */
    e = psoc_plat_write_atomic(path, w->out, w->out_size);
    if (e) {
      arc_errf(err, errlen, "%s: %s", path, psoc_plat_strerror(e));
      return PSOC_ERR_IO;
    }
    return PSOC_OK;
  }
  /* streamed: a temporary file beside 'path', flushed to disk, renamed
  ** over it, the folder flushed (what psoc_plat_write_atomic does) */
  e = psoc_plat_temp_create(path, tmp, &f);
  if (e) {
    arc_errf(err, errlen, "%s: %s", path, psoc_plat_strerror(e));
    return PSOC_ERR_IO;
  }
  /* A 2 MB buffer (out_file): the file is written in aligned 2 MB pieces,
  ** which the page cache keeps in large folios, so a reader mapping the
  ** archive right after the cook maps it in a few batches instead of page
  ** by page (docs/archive.md, "Loading cost"). The buffer is a 2 MB huge
  ** page where the system gives one (psoc_plat_huge_window: 2 MB more of
  ** address space, one fault instead of 512 at its first touch), and the
  ** head is made in it (stream_file); without that memory, stdio's own
  ** buffer. */
  mem = wmem(w, NULL, 0, mem_size);
  if (mem) buf = psoc_plat_huge_window(mem, mem_size, ARC_WRITE_BUFFER);
  if (mem && setvbuf(f, NULL, _IONBF, 0) != 0) {
    wmem(w, mem, mem_size, 0);
    buf = mem = NULL;
  }
  errno = 0;
  st = stream_file(w, f, buf, &io);
  if (st == PSOC_OK && (io = psoc_plat_file_sync(f)) != 0) st = PSOC_ERR_IO;
  if (fclose(f) != 0 && st == PSOC_OK) {
    io = errno ? errno : EIO;
    st = PSOC_ERR_IO;
  }
  if (mem) wmem(w, mem, mem_size, 0);
  if (st == PSOC_OK && (io = psoc_plat_rename(tmp, path)) != 0) st = PSOC_ERR_IO;
  if (st != PSOC_OK) {
    (void)psoc_plat_remove(tmp);
    if (st == PSOC_ERR_IO)
      arc_errf(err, errlen, "%s: %s", path, psoc_plat_strerror(io ? io : EIO));
    else
      arc_errf(err, errlen, "%s: %s", path, st == PSOC_ERR_NOMEM ? "out of memory" : "archive too large");
    return st;
  }
  psoc_plat_sync_parent(path);
  return PSOC_OK;
}
