/*
** cook_cache.c: the incremental cache of 'psoc cook'.
**
** One entry per material and set of options, in two files of the cache
** folder named after the entry's key (cook_cache_key, 16 hex digits):
**
**   KEY.unit   the material's cook unit (an archive of its pipelines)
**   KEY.dep    text: what the unit was made from
**                psoc-cook-cache 1
**                unit HASH SIZE PIPELINES
**                file HASH SIZE PATH        (one per file read, script first)
**                report LENGTH              (then LENGTH bytes: its warnings)
**
** and one file for the whole cache, 'index' (format below): every entry
** again, and each file's status (size, modification and change times,
** inode, device) beside the content hash it had then. The index is read
** once before the materials are looked up and rewritten (temporary file,
** rename) at the end of a cook that changed anything; it only saves work:
** a lookup the index cannot answer (no index, a damaged or stale one, an
** entry it lacks or whose files changed) reads the entry's .dep as before.
**
** The pack: CACHE/pack-ID.psoa (ID: 16 hex digits, made afresh by each
** cook that writes an archive, cook_pack_new_id) is a hard link to the
** archive the cook wrote, and the index names the ID and lists, for each
** entry whose pipelines went into that archive as its own (every one of
** them added by it, none left out as a copy of another material's), their
** names and canonical hashes. A re-cook opens the pack once, with every
** checksum verified, and takes such an entry's pipelines from it when each
** listed name is there with the listed hash; otherwise, and when there is
** no pack, it reads the entry's unit. One file read instead of a unit per
** material, and no shared shader read and compared again for every
** material that uses it. A cook that writes a new pack removes the old one
** after its index names the new one; entries whose pipelines are not in
** the new pack lose their list. No pack is made where the output's folder
** and the cache's are on different file systems (or have no hard links).
**
** HASH is XXH3-64 (src/xxh.h) in 16 hex digits. An entry is used only when
** every file it lists still has the recorded size and content hash and the
** unit file has its recorded size, fingerprint (cook_unit_fingerprint) and
** pipeline count and opens as an archive with every checksum verified: a changed script, module,
** shader or blob, a damaged or half-written entry all read as a miss, and
** the material is evaluated again. A file's content is taken from the
** index without reading it only when its status now is the one recorded
** with that content and was recorded at least RACY_NS after the file's
** last change (git's racy case: two writes within one tick of the file
** system's clock leave one status); otherwise it is read and hashed, and
** an unchanged content is still a hit. Entries are written atomically
** (unit first, then the .dep that points at it), so a cook killed at any
** moment leaves either the old entry or the new one. They are not
** fsync'ed: a machine crash may leave a short file, which its hash then
** rejects. Nothing but a replaced pack is ever deleted: remove the folder
** to empty the cache.
*/
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook.h"
#include "platform.h"
#include "xxh.h"

#define CACHE_MAGIC "psoc-cook-cache 1"
/* Limits on what a .dep file may hold (a damaged one is a miss). */
#define DEP_MAX_SIZE ((size_t)16 * 1024 * 1024)
#define UNIT_MAX_SIZE ((size_t)1024 * 1024 * 1024)

static void key_add(psoc_xxh3_state *st, const char *s) {
  psoc_xxh3_update(st, s ? s : "", s ? strlen(s) + 1 : 1);
}

uint64_t cook_cache_key(const cook_options *o, const char *root, const char *script_realpath) {
  psoc_xxh3_state st;
  char real[PSOC_PLAT_PATH_MAX], num[32];
  size_t i;
  psoc_xxh3_reset(&st);
  key_add(&st, CACHE_MAGIC);
  key_add(&st, PSOC_VERSION_STRING);
  snprintf(num, sizeof num, "%u", (unsigned)PSOC_ARCHIVE_FORMAT_VERSION);
  key_add(&st, num);
  key_add(&st, o->profile ? o->profile->name : "(no profile)");
  key_add(&st, o->werror ? "werror" : "");
  /* the roots decide what a require or pso.shader finds */
  if (o->root_count) {
    for (i = 0; i < o->root_count; i++)
      key_add(&st, cook_memo_realpath(o->memo, o->roots[i], real) == 0 ? real : o->roots[i]);
  } else if (root) {
    key_add(&st, cook_memo_realpath(o->memo, root, real) == 0 ? real : root);
  }
  key_add(&st, script_realpath);
  return psoc_xxh3_digest(&st);
}

int cook_hash_file(const char *path, uint64_t *hash, uint64_t *size, char *err, size_t n) {
  cli_file f;
  if (cli_read_file(path, UNIT_MAX_SIZE, &f, err, n) != 0) return -1;
  *hash = psoc_xxh3(f.data, f.size);
  *size = f.size;
  cli_file_free(&f);
  return 0;
}

/* ---- the memo: path -> content hash, path -> real path, for one run ------ */

typedef struct memo_entry {
  char *path; /* NULL: free slot */
  char *real; /* the real-path table: the answer (NULL where err says why) */
  uint64_t key, hash, size;
  int ok;     /* the hash table: 0 when the file could not be read */
  int err;    /* the real-path table: psoc_plat_realpath's errno, 0 when found */
  /* The hash table's status pair: 'sig', taken at wall time 'taken'
  ** before the bytes hashed as 'hash' were read (pair: 1 when valid). */
  int state;  /* MEMO_FROM_INDEX: as an earlier run recorded it, not looked at
              ** yet; MEMO_CHECKED: hash and size are the content now */
  int pair;
  psoc_plat_file_sig sig;
  uint64_t taken;
  uint32_t out_id; /* cook_index_save: the path's number + 1 in the new index */
  /* A status of the file taken this run already (the script's lstat,
  ** cook_memo_script_realpath), at wall time seed_taken: used instead of
  ** a stat of its own (seeded: 1). */
  int seeded;
  psoc_plat_file_sig seed_sig;
  uint64_t seed_taken;
} memo_entry;

enum { MEMO_CHECKED = 0, MEMO_FROM_INDEX = 1 };

typedef struct memo_table {
  memo_entry *items; /* the entries, dense, in the order they came */
  size_t used, items_cap;
  uint32_t *slots;   /* open addressing over items: index + 1, 0 free */
  size_t cap;        /* slots: a power of two, at most half full */
} memo_table;

struct cook_memo {
  psoc_plat_mutex lock;
  memo_table hashes, reals;
  uint64_t racy_ns;  /* a status recorded less than this after the file's
                     ** last change is not trusted (the racy guard) */
  size_t by_status, hashed, changed; /* changed: pairs new since the index */
};

/* File systems stamp times with a granularity of up to 2 s (FAT; ext3 and
** HFS+ 1 s; Linux's others the kernel's tick): two writes within one tick
** can leave the same status. A status taken at least this long after the
** file's last change cannot be followed by a write with the same stamps. */
#define RACY_NS_DEFAULT 2000000000ull

static int table_init(memo_table *t, size_t cap) {
  memset(t, 0, sizeof *t);
  t->cap = cap;
  return (t->slots = calloc(t->cap, sizeof *t->slots)) != NULL ? 0 : -1;
}

static void table_free(memo_table *t) {
  size_t i;
  for (i = 0; i < t->used; i++) {
    free(t->items[i].path);
    free(t->items[i].real);
  }
  free(t->items);
  free(t->slots);
}

cook_memo *cook_memo_new(void) {
  cook_memo *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  const char *racy = getenv("PSOC_COOK_RACY_MS");
  /* the file table is sized for an index's paths when one loads
  ** (index_parse); the real paths are the scripts' folders */
  if (table_init(&m->hashes, 1024) != 0 || table_init(&m->reals, 64) != 0 ||
      psoc_plat_mutex_init(&m->lock) != 0) {
    table_free(&m->hashes);
    table_free(&m->reals);
    free(m);
    return NULL;
  }
  /* tests set the guard (milliseconds) to see the status path on files
  ** they have just written */
  m->racy_ns = RACY_NS_DEFAULT;
  if (racy && racy[0] >= '0' && racy[0] <= '9')
    m->racy_ns = (uint64_t)strtoull(racy, NULL, 10) * 1000000u;
  return m;
}

void cook_memo_free(cook_memo *m) {
  if (!m) return;
  table_free(&m->hashes);
  table_free(&m->reals);
  psoc_plat_mutex_destroy(&m->lock);
  free(m);
}

/* The entry of 'path' (key 'key') in 't', or NULL. */
static memo_entry *table_find(const memo_table *t, uint64_t key, const char *path) {
  size_t i = (size_t)key & (t->cap - 1);
  uint32_t at;
  while ((at = t->slots[i]) != 0) {
    memo_entry *e = &t->items[at - 1];
    if (e->key == key && strcmp(e->path, path) == 0) return e;
    i = (i + 1) & (t->cap - 1);
  }
  return NULL;
}

/* Room in 't' for 'more' entries beyond those it holds (exactly when more
** than one is asked for, else by doubling), its slots at most half full.
** 0, or -1 when out of memory (t unchanged). Moves the entries: no entry
** pointer is kept across a call. */
static int memo_reserve(memo_table *t, size_t more) {
  size_t want, cap = t->cap, i;
  uint32_t *slots;
  if (more > UINT32_MAX / 4 - t->used) return -1;
  want = t->used + more;
  if (want > t->items_cap) {
    size_t n = more > 1 ? want : t->items_cap ? t->items_cap * 2 : 16;
    memo_entry *items = realloc(t->items, n * sizeof *items);
    if (!items) return -1;
    t->items = items;
    t->items_cap = n;
  }
  while (cap < want * 2 + 2) cap *= 2;
  if (cap == t->cap) return 0;
  if ((slots = calloc(cap, sizeof *slots)) == NULL) return -1;
  for (i = 0; i < t->used; i++) {
    size_t j = (size_t)t->items[i].key & (cap - 1);
    while (slots[j]) j = (j + 1) & (cap - 1);
    slots[j] = (uint32_t)i + 1;
  }
  free(t->slots);
  t->slots = slots;
  t->cap = cap;
  return 0;
}

/* A new entry for 'path' in 't', its path copied and the rest zero; NULL
** when 't' has one already or when out of memory (no entry: only slower).
** The caller fills in the rest. */
static memo_entry *memo_put(memo_table *t, uint64_t key, const char *path) {
  memo_entry *e;
  size_t len = strlen(path) + 1, j;
  char *copy;
  if (table_find(t, key, path) || memo_reserve(t, 1) != 0 || (copy = malloc(len)) == NULL)
    return NULL;
  memcpy(copy, path, len);
  e = &t->items[t->used];
  memset(e, 0, sizeof *e);
  e->path = copy;
  e->key = key;
  for (j = (size_t)key & (t->cap - 1); t->slots[j]; j = (j + 1) & (t->cap - 1)) continue;
  t->slots[j] = (uint32_t)++t->used;
  return e;
}

static int sig_same(const psoc_plat_file_sig *a, const psoc_plat_file_sig *b) {
  return a->size == b->size && a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns &&
         a->ino == b->ino && a->dev == b->dev && a->kind == b->kind;
}

/* May a status taken at 'taken' stand for the content read after it? Not
** when the file changed less than the guard before (racy: a second write
** in the same tick would leave the same status), nor when its times are
** ahead of the clock. */
static int sig_trusted(const cook_memo *m, const psoc_plat_file_sig *sig, uint64_t taken) {
  uint64_t changed = sig->mtime_ns > sig->ctime_ns ? sig->mtime_ns : sig->ctime_ns;
  return sig->kind == PSOC_PLAT_FILE && taken > changed && taken - changed >= m->racy_ns;
}

/* cook_memo_current of 'path', which is entry id - 1 of the file table
** when id is not 0 (cook_index.memo_ids: no hash of the path, no search). */
static int memo_current(cook_memo *m, const char *path, uint32_t id, uint64_t *hash,
                        uint64_t *size) {
  char err[256];
  uint64_t key = 0, taken, old_hash = 0, old_size = 0;
  psoc_plat_file_sig sig, old_sig;
  int ok, have_old = 0, have_sig, from_status = 0, seeded;
  memo_entry *e;
  memset(&old_sig, 0, sizeof old_sig);
  memset(&sig, 0, sizeof sig);
  taken = 0;
  if (!m) return cook_hash_file(path, hash, size, err, sizeof err);
  if (!id) key = psoc_xxh3(path, strlen(path));
  psoc_plat_mutex_lock(&m->lock);
  e = id ? &m->hashes.items[id - 1] : table_find(&m->hashes, key, path);
  if (e && e->state == MEMO_CHECKED) {
    *hash = e->hash;
    *size = e->size;
    ok = e->ok;
    psoc_plat_mutex_unlock(&m->lock);
    return ok ? 0 : -1;
  }
  if (e && e->pair && sig_trusted(m, &e->sig, e->taken)) {
    have_old = 1;
    old_sig = e->sig;
    old_hash = e->hash;
    old_size = e->size;
  }
  seeded = e && e->seeded;
  if (seeded) {
    sig = e->seed_sig;
    taken = e->seed_taken;
  }
  psoc_plat_mutex_unlock(&m->lock);
  /* the status first, then the bytes: a write between the two changes
  ** the status the next run sees, so the pair never names newer bytes */
  if (seeded) {
    have_sig = sig.kind == PSOC_PLAT_FILE;
  } else {
    taken = psoc_plat_wall_now_ns();
    have_sig = psoc_plat_file_sig_get(path, 1, &sig) == 0 && sig.kind == PSOC_PLAT_FILE;
  }
  if (have_old && have_sig && sig_same(&sig, &old_sig)) {
    *hash = old_hash;
    *size = old_size;
    ok = 1;
    from_status = 1;
  } else {
    ok = cook_hash_file(path, hash, size, err, sizeof err) == 0;
  }
  psoc_plat_mutex_lock(&m->lock);
  e = id ? &m->hashes.items[id - 1] : table_find(&m->hashes, key, path);
  if (e && e->state == MEMO_CHECKED) { /* another worker was first: its answer */
    *hash = e->hash;
    *size = e->size;
    ok = e->ok;
    psoc_plat_mutex_unlock(&m->lock);
    return ok ? 0 : -1;
  }
  if (from_status) m->by_status++;
  else m->hashed++;
  if (e || (e = memo_put(&m->hashes, key, path)) != NULL) {
    if (!from_status) {
      e->sig = sig;
      e->taken = taken;
      e->pair = ok && have_sig;
      m->changed++;
    }
    e->hash = ok ? *hash : 0;
    e->size = ok ? *size : 0;
    e->ok = ok;
    e->state = MEMO_CHECKED;
  }
  psoc_plat_mutex_unlock(&m->lock);
  return ok ? 0 : -1;
}

int cook_memo_current(cook_memo *m, const char *path, uint64_t *hash, uint64_t *size) {
  return memo_current(m, path, 0, hash, size);
}

void cook_memo_stats(cook_memo *m, cook_cache_stats *st) {
  if (!m) return;
  psoc_plat_mutex_lock(&m->lock);
  st->by_status = m->by_status;
  st->hashed = m->hashed;
  psoc_plat_mutex_unlock(&m->lock);
}

/* Give the memo the status of 'path' just taken (at 'taken'), for
** cook_memo_current to use instead of a stat of its own. */
static void memo_seed(cook_memo *m, const char *path, const psoc_plat_file_sig *sig,
                      uint64_t taken) {
  uint64_t key = psoc_xxh3(path, strlen(path));
  memo_entry *e;
  psoc_plat_mutex_lock(&m->lock);
  if ((e = table_find(&m->hashes, key, path)) == NULL &&
      (e = memo_put(&m->hashes, key, path)) != NULL)
    e->state = MEMO_FROM_INDEX; /* no pair */
  if (e && e->state == MEMO_FROM_INDEX) {
    e->seeded = 1;
    e->seed_sig = *sig;
    e->seed_taken = taken;
  }
  psoc_plat_mutex_unlock(&m->lock);
}

int cook_memo_script_realpath(cook_memo *m, const char *path, char *out, int *regular) {
  char dir[PSOC_PLAT_PATH_MAX];
  psoc_plat_file_sig sig;
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  size_t dlen = slash ? (size_t)(slash - path) : 0, rlen, blen = strlen(base);
  int e;
  /* only the plain form ("DIR/NAME", '/' separators) is taken apart */
  uint64_t taken = psoc_plat_wall_now_ns();
  if (!m || !base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ||
      strchr(path, '\\') || strchr(path, ':') ||
      dlen + 1 >= sizeof dir || psoc_plat_file_sig_get(path, 0, &sig) != 0 ||
      sig.kind != PSOC_PLAT_FILE) {
    *regular = 0;
    return psoc_plat_realpath(path, out);
  }
  *regular = 1;
  if (slash) {
    memcpy(dir, path, dlen ? dlen : 1); /* "/x": the folder is "/" */
    dir[dlen ? dlen : 1] = '\0';
  } else {
    memcpy(dir, ".", 2);
  }
  if ((e = cook_memo_realpath(m, dir, out)) != 0) return e;
  rlen = strlen(out);
  if (rlen && out[rlen - 1] == '/') rlen--; /* the root */
  if (rlen + 1 + blen + 1 > PSOC_PLAT_PATH_MAX) {
    *regular = 0;
    return psoc_plat_realpath(path, out);
  }
  out[rlen] = '/';
  memcpy(out + rlen + 1, base, blen + 1);
  memo_seed(m, out, &sig, taken);
  return 0;
}

int cook_memo_realpath(cook_memo *m, const char *path, char *out) {
  uint64_t key;
  memo_entry *e;
  char *real = NULL;
  size_t len;
  int err;
  if (!m) return psoc_plat_realpath(path, out);
  key = psoc_xxh3(path, strlen(path));
  psoc_plat_mutex_lock(&m->lock);
  if ((e = table_find(&m->reals, key, path)) != NULL) {
    err = e->err;
    if (!err) memcpy(out, e->real, strlen(e->real) + 1);
    psoc_plat_mutex_unlock(&m->lock);
    return err;
  }
  psoc_plat_mutex_unlock(&m->lock);
  err = psoc_plat_realpath(path, out);
  len = err ? 0 : strlen(out) + 1;
  if (!err && (real = malloc(len)) == NULL) return 0; /* no entry: only slower */
  if (real) memcpy(real, out, len);
  psoc_plat_mutex_lock(&m->lock);
  if ((e = memo_put(&m->reals, key, path)) != NULL) {
    e->err = err;
    e->real = real;
    real = NULL;
  }
  psoc_plat_mutex_unlock(&m->lock);
  free(real);
  return err;
}

static void entry_path(const cook_options *o, uint64_t key, const char *ext, char *out, size_t n) {
  snprintf(out, n, "%s/%016" PRIx64 ".%s", o->cache_dir, key, ext);
}

/* ---- reading an entry ---------------------------------------------------- */

typedef struct dep_reader {
  const char *p, *end;
} dep_reader;

/* The next line (without its newline) in line and len; 0 at the end. */
static int next_line(dep_reader *r, const char **line, size_t *len) {
  const char *nl;
  if (r->p >= r->end) return 0;
  nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
  if (!nl) return 0; /* every line ends with a newline: a cut file is a miss */
  *line = r->p;
  *len = (size_t)(nl - r->p);
  r->p = nl + 1;
  return 1;
}

/* "HASH SIZE" at the start of 's' (then a space or the end): 16 hex digits
** and a decimal number, parsed by hand (a cache lookup reads one such line
** per file every material read). NULL when malformed. */
static const char *parse_hash_size(const char *s, const char *end, uint64_t *hash,
                                   uint64_t *size) {
  uint64_t h = 0, n = 0;
  int i;
  if (end - s < 18 || s[16] != ' ') return NULL;
  for (i = 0; i < 16; i++) {
    char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
    else return NULL;
    h = h << 4 | d;
  }
  s += 17;
  if (s >= end || *s < '0' || *s > '9') return NULL;
  for (i = 0; s < end && *s >= '0' && *s <= '9'; s++, i++) {
    if (i == 19) return NULL; /* more digits than a uint64_t holds safely */
    n = n * 10 + (uint64_t)(*s - '0');
  }
  if (s < end && *s != ' ') return NULL;
  *hash = h;
  *size = n;
  return s;
}

static char *dup_len(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (p) {
    memcpy(p, s, n);
    p[n] = '\0';
  }
  return p;
}

static int add_file(cook_material *m, size_t *cap, const char *path, size_t len, uint64_t hash,
                    uint64_t size) {
  cook_file *f;
  if (m->file_count == *cap) {
    size_t want = *cap ? *cap * 2 : 8;
    if ((f = realloc(m->files, want * sizeof *f)) == NULL) return -1;
    m->files = f;
    *cap = want;
  }
  f = &m->files[m->file_count];
  if ((f->path = dup_len(path, len)) == NULL) return -1;
  f->hash = hash;
  f->size = size;
  m->file_count++;
  return 0;
}

/* Parse a .dep file into m (files, report) and the unit's hash, size and
** pipeline count. 0, or -1 when it is not a complete entry. */
static int parse_dep(const cli_file *dep, cook_material *m, uint64_t *unit_hash,
                     uint64_t *unit_size, size_t *pipelines) {
  dep_reader r;
  const char *line, *rest;
  size_t len, cap = 0;
  unsigned long long count;
  char *stop;
  r.p = (const char *)dep->data;
  r.end = r.p + dep->size;
  if (!next_line(&r, &line, &len) || len != strlen(CACHE_MAGIC) ||
      memcmp(line, CACHE_MAGIC, len) != 0)
    return -1;
  if (!next_line(&r, &line, &len) || len < 5 || memcmp(line, "unit ", 5) != 0) return -1;
  rest = parse_hash_size(line + 5, line + len, unit_hash, unit_size);
  if (!rest || *rest != ' ') return -1;
  count = strtoull(rest + 1, &stop, 10);
  if (stop != line + len) return -1;
  *pipelines = (size_t)count;
  while (next_line(&r, &line, &len)) {
    uint64_t hash, size;
    if (len > 5 && memcmp(line, "file ", 5) == 0) {
      rest = parse_hash_size(line + 5, line + len, &hash, &size);
      if (!rest || *rest != ' ' || rest + 1 >= line + len) return -1;
      if (add_file(m, &cap, rest + 1, (size_t)(line + len - rest - 1), hash, size) != 0)
        return -1;
      continue;
    }
    if (len > 7 && memcmp(line, "report ", 7) == 0) {
      count = strtoull(line + 7, &stop, 10);
      if (stop != line + len || count != (unsigned long long)(r.end - r.p)) return -1;
      if ((m->report = dup_len(r.p, (size_t)count)) == NULL) return -1;
      return m->file_count > 0 ? 0 : -1;
    }
    return -1;
  }
  return -1; /* no report line: cut short */
}

/* The unit's header (its first 96 bytes) holds the XXH3-64 of itself and
** of the table of contents, which holds those of the tables, which hold
** those of every record and component: with the unit verified (every
** checksum, PSOC_ARCHIVE_VERIFY_ALL), the header's hash names all its
** bytes, at the cost of 96 bytes instead of the whole unit. */
#define UNIT_HEAD 96u

uint64_t cook_unit_fingerprint(const void *unit, size_t size) {
  return psoc_xxh3(unit, size < UNIT_HEAD ? size : UNIT_HEAD);
}

/* A unit file's bytes: one open, its status, one read. 0 or -1. */
static int read_unit(const char *path, cli_file *out) {
  psoc_plat_file f;
  size_t got = 0;
  out->data = NULL;
  out->size = 0;
  if (psoc_plat_open_checked(path, &f) != 0) return -1;
  if (f.size == 0 || f.size > UNIT_MAX_SIZE || (out->data = malloc((size_t)f.size)) == NULL ||
      psoc_plat_read(&f, out->data, (size_t)f.size, &got) != 0 || got != f.size) {
    psoc_plat_close(&f);
    free(out->data);
    out->data = NULL;
    return -1;
  }
  psoc_plat_close(&f);
  out->size = got;
  return 0;
}

/* The unit of entry 'key' into m, verified: its size, fingerprint and
** pipeline count as recorded, and every checksum of it as an archive. 1,
** or 0 (m's unit left empty). */
static int take_unit(const cook_options *o, uint64_t key, cook_material *m, uint64_t unit_hash,
                     uint64_t unit_size, size_t pipelines) {
  char path[PSOC_PLAT_PATH_MAX], err[256];
  cli_file unit;
  entry_path(o, key, "unit", path, sizeof path);
  if (read_unit(path, &unit) != 0) return 0;
  /* The unit is an archive: its own checksums (header, tables, every
  ** record and component) verify it; the fingerprint says it is the very
  ** unit the entry was written with, not one another cook wrote under the
  ** key since; the merge then copies it as it is. */
  if (unit.size != unit_size || cook_unit_fingerprint(unit.data, unit.size) != unit_hash ||
      psoc_archive_open_memory(unit.data, unit.size,
                               PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED, NULL,
                               &m->archive, err, sizeof err) != PSOC_OK) {
    cli_file_free(&unit);
    return 0;
  }
  if (psoc_archive_count(m->archive) != pipelines) {
    psoc_archive_close(m->archive);
    m->archive = NULL;
    cli_file_free(&unit);
    return 0;
  }
  m->unit = unit.data;
  m->unit_size = unit.size;
  m->unit_bytes = unit.size;
  m->unit_hash = unit_hash;
  m->pipelines = pipelines;
  m->cacheable = 1;
  m->indexed = 1;
  return 1;
}

static int index_lookup(const cook_options *o, uint64_t key, cook_material *m);

int cook_cache_lookup(const cook_options *o, uint64_t key, cook_material *m) {
  char path[PSOC_PLAT_PATH_MAX], err[256];
  cli_file dep;
  uint64_t unit_hash = 0, unit_size = 0, hash, size;
  size_t pipelines = 0, i;
  m->key = key;
  if (o->index && index_lookup(o, key, m)) return 1;
  /* the exact path: the entry's own .dep file (no index, or an index that
  ** does not hold this entry or holds an older one) */
  entry_path(o, key, "dep", path, sizeof path);
  if (cli_read_file(path, DEP_MAX_SIZE, &dep, err, sizeof err) != 0) return 0;
  if (parse_dep(&dep, m, &unit_hash, &unit_size, &pipelines) != 0) goto miss;
  for (i = 0; i < m->file_count; i++) {
    if (cook_memo_current(o->memo, m->files[i].path, &hash, &size) != 0 ||
        hash != m->files[i].hash || size != m->files[i].size)
      goto miss;
  }
  if (!take_unit(o, key, m, unit_hash, unit_size, pipelines)) goto miss;
  cli_file_free(&dep);
  return 1;
miss:
  cli_file_free(&dep);
  cook_material_free(m);
  return 0;
}

/* ---- the index ------------------------------------------------------------ */

/* CACHE/index, little-endian:
**   header  "PSOCCIX1", u32 version 2, u32 0, u64 build (XXH3-64 of the
**           cache magic, psoc's version and the archive format: another
**           psoc's index is stale), u64 paths, u64 entries, u64 payload
**           bytes, u64 XXH3-64 of the payload
**   payload u64 the pack's ID (0: none), then
**   paths   per path: u64 size, hash (its content when it was last
**           read), mtime_ns, ctime_ns, ino, dev (its status then), taken
**           (the wall time before the status was taken); u32 flags (1:
**           content known, 2: the status stands for that content), u32
**           length, the bytes and a NUL
**   entries per entry, in key order: u64 key, unit fingerprint, unit size,
**           pipelines; u32 files, report length; per file (what the unit
**           was made from, script first) u32 path number, with bit 31 set
**           when u64 hash and u64 size follow (else they are the path's
**           content above); the report's bytes; u32 the pipeline list's
**           length + 1 and its bytes (0: the pack does not hold its
**           pipelines; per pipeline: 16 bytes of canonical hash, lo then hi, u32 name
**           length, the name and a NUL)
** Anything that does not parse, or a checksum that does not match, makes
** the whole index unusable (then every lookup takes the .dep path). */
#define INDEX_MAGIC "PSOCCIX1"
#define INDEX_NAME "index"
#define INDEX_HEADER 56
#define INDEX_VERSION 2
#define INDEX_MAX_SIZE ((uint64_t)1 << 31)

typedef struct ix_file {
  uint32_t path;
  uint64_t hash, size;
} ix_file;

typedef struct ix_entry {
  uint64_t key, unit_hash, unit_size, pipelines;
  const ix_file *files; /* into cook_index.files */
  uint32_t file_count, report_len;
  const char *report;   /* into cook_index.data */
  const unsigned char *list; /* the pipeline list (into cook_index.data), NULL: none */
  uint32_t list_len;
} ix_entry;

struct cook_index {
  unsigned char *data;  /* the file */
  size_t size;
  const char **paths;   /* NUL-terminated copies */
  size_t path_count;
  ix_entry *entries;
  size_t entry_count;
  ix_file *files;
  ix_file *known;       /* per path: its content (path: 1 when known) */
  size_t *slots;        /* key -> entry + 1 (0: free) */
  size_t cap;
  uint64_t pack_id;     /* 0: none */
  uint64_t pipelines;   /* the entries' pipelines, in all */
  const cook_memo *memo; /* the memo the paths were put in (NULL: none) */
  uint32_t *memo_ids;   /* per path: its entry in memo's file table + 1 */
};

static uint64_t index_build(void) {
  psoc_xxh3_state st;
  char num[32];
  psoc_xxh3_reset(&st);
  key_add(&st, CACHE_MAGIC);
  key_add(&st, PSOC_VERSION_STRING);
  snprintf(num, sizeof num, "%u", (unsigned)PSOC_ARCHIVE_FORMAT_VERSION);
  key_add(&st, num);
  return psoc_xxh3_digest(&st);
}

static uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static uint32_t get32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void cook_index_free(cook_index *ix) {
  if (!ix) return;
  free(ix->data);
  free((void *)ix->paths);
  free(ix->entries);
  free(ix->files);
  free(ix->known);
  free(ix->slots);
  free(ix->memo_ids);
  free(ix);
}

/* Parse ix->data. 0, or -1 when damaged (or out of memory). */
static int index_parse(cook_index *ix, cook_memo *memo) {
  const unsigned char *p = ix->data, *end = ix->data + ix->size;
  uint64_t npaths, nentries, payload, i, total_files = 0;
  size_t k;
  if (ix->size < INDEX_HEADER || memcmp(p, INDEX_MAGIC, 8) != 0 ||
      get32(p + 8) != INDEX_VERSION || get32(p + 12) != 0)
    return -1;

  npaths = get64(p + 24);
  nentries = get64(p + 32);
  payload = get64(p + 40);
  if (payload != ix->size - INDEX_HEADER ||
      psoc_xxh3(p + INDEX_HEADER, (size_t)payload) != get64(p + 48))
    return -1;
  /* every path takes 64 bytes at least, every entry 44 */
  if (payload < 8 || npaths > payload / 64 || nentries > payload / 44) return -1;
  p += INDEX_HEADER;
  ix->pack_id = get64(p);
  p += 8;
  if ((ix->paths = calloc((size_t)npaths + 1, sizeof *ix->paths)) == NULL ||
      (ix->known = calloc((size_t)npaths + 1, sizeof *ix->known)) == NULL)
    return -1;
  if (memo) { /* its table sized for them at once (only slower when it cannot be) */
    if ((ix->memo_ids = calloc((size_t)npaths + 1, sizeof *ix->memo_ids)) == NULL) return -1;
    ix->memo = memo;
    psoc_plat_mutex_lock(&memo->lock);
    (void)memo_reserve(&memo->hashes, (size_t)npaths);
    psoc_plat_mutex_unlock(&memo->lock);
  }
  /* the paths (each NUL-terminated in the file), and their recorded
  ** statuses into the memo: every path an entry names is there, valid
  ** or not (cook_index_save finds them all in it) */
  for (i = 0; i < npaths; i++) {
    psoc_plat_file_sig sig;
    uint64_t hash, size, taken;
    uint32_t flags, len;
    memo_entry *e;
    if (end - p < 64) return -1;
    len = get32(p + 60);
    if ((uint64_t)(end - p - 64) < (uint64_t)len + 1 || len == 0) return -1;
    memset(&sig, 0, sizeof sig);
    size = get64(p);
    hash = get64(p + 8);
    sig.mtime_ns = get64(p + 16);
    sig.ctime_ns = get64(p + 24);
    sig.ino = get64(p + 32);
    sig.dev = get64(p + 40);
    taken = get64(p + 48);
    flags = get32(p + 56);
    sig.size = size;
    sig.kind = PSOC_PLAT_FILE;
    if (p[64 + len] != 0 || memchr(p + 64, 0, len)) return -1; /* NUL-terminated, no NUL inside */
    ix->paths[i] = (const char *)p + 64;
    if (flags > 3 || flags == 2) return -1;
    ix->known[i].hash = hash;
    ix->known[i].size = size;
    ix->known[i].path = flags & 1;
    if (memo) {
      uint64_t key = psoc_xxh3(ix->paths[i], len);
      psoc_plat_mutex_lock(&memo->lock);
      if ((e = memo_put(&memo->hashes, key, ix->paths[i])) != NULL) { /* not there before */
        e->state = MEMO_FROM_INDEX;
        e->pair = flags == 3;
        e->sig = sig;
        e->taken = taken;
        e->hash = hash;
        e->size = size;
        e->ok = 1;
      } else {
        e = table_find(&memo->hashes, key, ix->paths[i]);
      }
      /* the entries' files find it by number, not by their paths' hashes */
      if (e) ix->memo_ids[i] = (uint32_t)(e - memo->hashes.items) + 1;
      psoc_plat_mutex_unlock(&memo->lock);
    }
    p += 64 + len + 1;
  }
  ix->path_count = (size_t)npaths;
  if ((ix->entries = calloc((size_t)nentries + 1, sizeof *ix->entries)) == NULL) return -1;
  /* first pass: the entries' sizes, so that the file table is allocated once */
  {
    const unsigned char *q = p;
    for (i = 0; i < nentries; i++) {
      uint32_t nf, rl, f;
      if (end - q < 40) return -1;
      nf = get32(q + 32);
      rl = get32(q + 36);
      q += 40;
      for (f = 0; f < nf; f++) {
        if (end - q < 4) return -1;
        q += get32(q) & 0x80000000u ? 20 : 4;
      }
      if (q > end || (uint64_t)(end - q) < rl) return -1;
      total_files += nf;
      q += rl;
      if (end - q < 4 || (get32(q) && (uint64_t)(end - q - 4) < get32(q) - 1u)) return -1;
      q += 4 + (get32(q) ? get32(q) - 1u : 0u);
    }
    if (q != end) return -1;
  }
  if ((ix->files = calloc((size_t)total_files + 1, sizeof *ix->files)) == NULL) return -1;
  total_files = 0;
  for (i = 0; i < nentries; i++) {
    ix_entry *en = &ix->entries[i];
    uint32_t f;
    en->key = get64(p);
    en->unit_hash = get64(p + 8);
    en->unit_size = get64(p + 16);
    en->pipelines = get64(p + 24);
    ix->pipelines += en->pipelines < (uint64_t)1 << 32 ? en->pipelines : (uint64_t)1 << 32;
    en->file_count = get32(p + 32);
    en->report_len = get32(p + 36);
    if (en->file_count == 0 || (i > 0 && en->key <= ix->entries[i - 1].key)) return -1;
    p += 40;
    en->files = &ix->files[total_files];
    for (f = 0; f < en->file_count; f++) {
      ix_file *xf = &ix->files[total_files++];
      uint32_t ref = get32(p);
      xf->path = ref & 0x7fffffffu;
      if (xf->path >= npaths) return -1;
      if (ref & 0x80000000u) {
        xf->hash = get64(p + 4);
        xf->size = get64(p + 12);
        p += 20;
      } else {
        if (!ix->known[xf->path].path) return -1;
        xf->hash = ix->known[xf->path].hash;
        xf->size = ix->known[xf->path].size;
        p += 4;
      }
    }
    en->report = (const char *)p;
    p += en->report_len;
    en->list_len = get32(p) ? get32(p) - 1u : 0u;
    en->list = get32(p) ? p + 4 : NULL;
    p += 4 + en->list_len;
  }
  ix->entry_count = (size_t)nentries;
  for (ix->cap = 16; ix->cap < ix->entry_count * 2; ix->cap *= 2) continue;
  if ((ix->slots = calloc(ix->cap, sizeof *ix->slots)) == NULL) return -1;
  for (k = 0; k < ix->entry_count; k++) {
    size_t j = (size_t)ix->entries[k].key & (ix->cap - 1);
    while (ix->slots[j]) j = (j + 1) & (ix->cap - 1);
    ix->slots[j] = k + 1;
  }
  return 0;
}

cook_index *cook_index_load(const char *cache_dir, cook_memo *memo, cook_cache_stats *st) {
  char path[PSOC_PLAT_PATH_MAX];
  psoc_plat_file f;
  size_t got = 0;
  cook_index *ix;
  st->index_state = COOK_INDEX_NONE;
  st->index_entries = 0;
  if ((size_t)snprintf(path, sizeof path, "%s/" INDEX_NAME, cache_dir) >= sizeof path) return NULL;
  if (psoc_plat_open_checked(path, &f) != 0) return NULL;
  st->index_state = COOK_INDEX_DAMAGED;
  if (f.size < INDEX_HEADER || f.size > INDEX_MAX_SIZE || (ix = calloc(1, sizeof *ix)) == NULL) {
    psoc_plat_close(&f);
    return NULL;
  }
  if ((ix->data = malloc((size_t)f.size)) == NULL ||
      psoc_plat_read(&f, ix->data, (size_t)f.size, &got) != 0 || got != f.size) {
    psoc_plat_close(&f);
    cook_index_free(ix);
    return NULL;
  }
  psoc_plat_close(&f);
  ix->size = got;
  if (memcmp(ix->data, INDEX_MAGIC, 8) == 0 &&
      (get64(ix->data + 16) != index_build() || get32(ix->data + 8) != INDEX_VERSION)) {
    st->index_state = COOK_INDEX_STALE;
    cook_index_free(ix);
    return NULL;
  }
  if (index_parse(ix, memo) != 0) {
    /* the statuses it gave the memo are dropped with it: a damaged index
    ** vouches for nothing */
    if (memo) {
      size_t i;
      psoc_plat_mutex_lock(&memo->lock);
      for (i = 0; i < memo->hashes.used; i++)
        if (memo->hashes.items[i].state == MEMO_FROM_INDEX) {
          memo->hashes.items[i].pair = 0;
          memo->hashes.items[i].ok = 0;
        }
      psoc_plat_mutex_unlock(&memo->lock);
    }
    cook_index_free(ix);
    return NULL;
  }
  st->index_state = COOK_INDEX_LOADED;
  st->index_entries = ix->entry_count;
  return ix;
}

static const ix_entry *index_find(const cook_index *ix, uint64_t key) {
  size_t j = (size_t)key & (ix->cap - 1);
  while (ix->slots[j]) {
    const ix_entry *e = &ix->entries[ix->slots[j] - 1];
    if (e->key == key) return e;
    j = (j + 1) & (ix->cap - 1);
  }
  return NULL;
}

/* Entry e's pipelines from the pack: each name its list gives is there
** with the listed hash (then they are the very records its unit holds:
** cook_index_save lists only pipelines the pack took from the entry's own
** unit). 1 with m->pack_idx, or 0. */
static int take_pack(const cook_options *o, const ix_entry *e, cook_material *m) {
  size_t pos = 0, n = 0;
  const char *name;
  psoc_hash128 hash;
  psoc_archive *pack;
  if (!o->pack_get || !e->list || e->pipelines > e->list_len / 21) return 0;
  if ((pack = o->pack_get(o->pack_ud)) == NULL) return 0;
  if ((m->pack_idx = malloc(((size_t)e->pipelines + 1) * sizeof *m->pack_idx)) == NULL) return 0;
  while (cook_pack_list_next(e->list, e->list_len, &pos, &name, &hash)) {
    psoc_archive_entry pe;
    size_t i;
    /* the list is in name order, as the pack is, and one material's names
    ** are most often neighbours there: the entry after the last one found
    ** first, the binary search (~13 name comparisons in 10,000) else */
    if (n > 0 && psoc_archive_entry_get(pack, m->pack_idx[n - 1] + 1, &pe) == PSOC_OK &&
        strcmp(pe.name, name) == 0)
      i = m->pack_idx[n - 1] + 1;
    else if ((i = psoc_archive_find(pack, name)) == PSOC_ARCHIVE_NOT_FOUND ||
             psoc_archive_entry_get(pack, i, &pe) != PSOC_OK)
      break;
    if (n == e->pipelines || pe.hash.lo != hash.lo || pe.hash.hi != hash.hi) break;
    m->pack_idx[n++] = i;
  }
  if (n != e->pipelines || pos != e->list_len) {
    free(m->pack_idx);
    m->pack_idx = NULL;
    return 0;
  }
  m->unit_bytes = e->unit_size;
  m->unit_hash = e->unit_hash;
  m->pipelines = n;
  m->cacheable = 1;
  m->pack_list = e->list;
  m->pack_list_len = e->list_len;
  m->pack_old = 1;
  return 1;
}

/* The fast path: the entry in the index, its files by their status. */
static int index_lookup(const cook_options *o, uint64_t key, cook_material *m) {
  const ix_entry *e = index_find(o->index, key);
  size_t i;
  uint64_t hash, size;
  const uint32_t *ids;
  if (!e) return 0;
  ids = o->index->memo == o->memo ? o->index->memo_ids : NULL; /* paths by number */
  for (i = 0; i < e->file_count; i++) {
    size_t at = e->files[i].path;
    if (memo_current(o->memo, o->index->paths[at], ids ? ids[at] : 0, &hash, &size) != 0 ||
        hash != e->files[i].hash || size != e->files[i].size)
      return 0;
  }
  if (!take_pack(o, e, m) && !take_unit(o, key, m, e->unit_hash, e->unit_size, (size_t)e->pipelines))
    return 0;
  m->indexed = 2; /* as the index has it: nothing to write for it */
  m->from_entry = e; /* its files: cook_index_save reads them there */
  if ((m->report = dup_len(e->report, e->report_len)) == NULL) goto fail;
  return 1;
fail:
  cook_material_free(m);
  m->indexed = 0;
  m->cacheable = 0;
  return 0;
}

/* ---- writing the index ------------------------------------------------------ */

typedef struct out_buf {
  unsigned char *data;
  size_t size, cap;
  int failed;
} out_buf;

/* Room for n more bytes at the end of b (its size grown by n), or NULL
** (b->failed set) when out of memory. */
static unsigned char *out_room(out_buf *b, size_t n) {
  unsigned char *p;
  if (b->failed) return NULL;
  if (b->size + n > b->cap) {
    size_t want = b->cap ? b->cap : 65536;
    while (want < b->size + n) want *= 2;
    if ((p = realloc(b->data, want)) == NULL) {
      b->failed = 1;
      return NULL;
    }
    b->data = p;
    b->cap = want;
  }
  p = b->data + b->size;
  b->size += n;
  return p;
}

/* Room for 'n' bytes in all in b, made at once (a hint: nothing when out
** of memory; out_room then grows it). */
static void out_reserve(out_buf *b, size_t n) {
  unsigned char *p;
  if (b->failed || n <= b->cap || (p = realloc(b->data, n)) == NULL) return;
  b->data = p;
  b->cap = n;
}

static void out_add(out_buf *b, const void *s, size_t n) {
  unsigned char *p = out_room(b, n);
  if (p && n) memcpy(p, s, n);
}

static unsigned char *put64(unsigned char *p, uint64_t v) {
  int i;
  for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
  return p + 8;
}

static unsigned char *put32(unsigned char *p, uint32_t v) {
  int i;
  for (i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
  return p + 4;
}

/* One entry to write: a material of this run or an old entry. */
typedef struct out_entry {
  uint64_t key;
  const cook_material *m;
  const ix_entry *old;
} out_entry;

static int out_entry_cmp(const void *a, const void *b) {
  uint64_t x = ((const out_entry *)a)->key, y = ((const out_entry *)b)->key;
  if (x != y) return x < y ? -1 : 1;
  /* a material before an old entry of its key (the old one is dropped) */
  return (((const out_entry *)a)->m == NULL) - (((const out_entry *)b)->m == NULL);
}

/* The memo entry of 'path' (NULL when it has none). */
static memo_entry *memo_find(cook_memo *memo, const char *path) {
  return table_find(&memo->hashes, psoc_xxh3(path, strlen(path)), path);
}

int cook_index_save(const char *cache_dir, const cook_index *old, cook_memo *memo,
                    const cook_material *m, size_t count, uint64_t pack_id, int new_pack,
                    cook_cache_stats *st, char *err, size_t n) {
  char path[PSOC_PLAT_PATH_MAX];
  out_entry *all;
  size_t total = 0, kept = 0, i, j, news = 0;
  memo_entry **order = NULL;
  const uint32_t *old_ids;
  uint32_t npaths = 0;
  out_buf paths = { NULL, 0, 0, 0 }, entries = { NULL, 0, 0, 0 };
  unsigned char *q;
  int rc = -1, e;
  st->index_written = 0;
  if (!memo) return 0;
  for (i = 0; i < count; i++)
    if (m[i].indexed && !m[i].failed) news++;
  /* nothing new: no entry evaluated or taken by the .dep path, no status
  ** read afresh (a cook with nothing to do writes nothing) */
  if (old && memo->changed == 0 && !new_pack) {
    for (i = 0; i < count; i++)
      if (m[i].indexed == 1 && !m[i].failed) break;
    if (i == count) return 0;
  }
  if (news == 0 && !old) return 0;
  all = calloc(news + (old ? old->entry_count : 0) + 1, sizeof *all);
  order = calloc(memo->hashes.used + 1, sizeof *order);
  if (!all || !order) goto nomem;
  old_ids = old && old->memo == memo ? old->memo_ids : NULL; /* its paths by number */
  if (old) { /* the new index is about the old one's size: grown once, not doubling */
    out_reserve(&entries, old->size + old->size / 8 + 4096);
    out_reserve(&paths, old->size + old->size / 8 + 4096);
  }
  for (i = 0; i < count; i++)
    if (m[i].indexed && !m[i].failed) {
      all[total].key = m[i].key;
      all[total++].m = &m[i];
    }
  for (i = 0; old && i < old->entry_count; i++) {
    all[total].key = old->entries[i].key;
    all[total++].old = &old->entries[i];
  }
  qsort(all, total, sizeof *all, out_entry_cmp);
  for (i = 0; i < memo->hashes.used; i++) memo->hashes.items[i].out_id = 0;
  for (i = 0; i < total; i++) {
    const cook_material *mm = all[i].m, *fm;
    const ix_entry *oe = all[i].old;
    size_t nf, report_len, list_len;
    const char *report;
    const unsigned char *list;
    if (i > 0 && all[i].key == all[i - 1].key) continue; /* replaced by this run's */
    if (!mm && !old) continue; /* (an old entry comes with its index) */
    if (mm && mm->from_entry) oe = mm->from_entry; /* its files are the entry's */
    fm = mm && !mm->from_entry ? mm : NULL;
    nf = fm ? fm->file_count : oe->file_count;
    report = mm ? (mm->report ? mm->report : "") : oe->report;
    report_len = mm ? strlen(report) : oe->report_len;
    /* the pipeline list where the pack the index names holds them */
    if (mm && (new_pack ? mm->pack_new : mm->pack_old)) {
      list = mm->pack_list;
      list_len = mm->pack_list_len;
    } else if (!mm && !new_pack) {
      list = oe->list;
      list_len = oe->list_len;
    } else {
      list = NULL;
      list_len = 0;
    }
    if (!list) list_len = 0;
    if (list_len >= UINT32_MAX) goto nomem;
    if ((q = out_room(&entries, 44 + nf * 20 + report_len + list_len)) == NULL) goto nomem;
    q = put64(q, all[i].key);
    q = put64(q, mm ? mm->unit_hash : oe->unit_hash);
    q = put64(q, mm ? mm->unit_bytes : oe->unit_size);
    q = put64(q, mm ? (uint64_t)mm->pipelines : oe->pipelines);
    q = put32(q, (uint32_t)nf);
    q = put32(q, (uint32_t)report_len);
    for (j = 0; j < nf; j++) {
      const char *fp = fm ? fm->files[j].path : old->paths[oe->files[j].path];
      uint64_t fh = fm ? fm->files[j].hash : oe->files[j].hash;
      uint64_t fs = fm ? fm->files[j].size : oe->files[j].size;
      uint32_t id = !fm && old_ids ? old_ids[oe->files[j].path] : 0;
      memo_entry *me = id ? &memo->hashes.items[id - 1] : memo_find(memo, fp);
      if (!me) goto nomem; /* every path is in the memo (the index's were put there) */
      if (!me->out_id) {
        me->out_id = ++npaths;
        order[npaths - 1] = me;
      }
      if (me->ok && me->hash == fh && me->size == fs) {
        q = put32(q, me->out_id - 1);
      } else {
        q = put32(q, (me->out_id - 1) | 0x80000000u);
        q = put64(q, fh);
        q = put64(q, fs);
      }
    }
    memcpy(q, report, report_len);
    q += report_len;
    q = put32(q, list ? (uint32_t)list_len + 1u : 0u);
    if (list_len) memcpy(q, list, list_len);
    q += list_len;
    entries.size = (size_t)(q - entries.data); /* the room not taken by short refs */
    kept++;
  }
  if ((q = out_room(&paths, INDEX_HEADER + 8)) == NULL) goto nomem;
  (void)put64(q + INDEX_HEADER, pack_id);
  for (i = 0; i < npaths; i++) {
    const memo_entry *me = order[i];
    size_t len = strlen(me->path);
    uint32_t flags = me->ok ? (me->pair ? 3u : 1u) : 0u;
    int sig = flags == 3;
    if ((q = out_room(&paths, 64 + len + 1)) == NULL) goto nomem;
    q = put64(q, me->ok ? me->size : 0);
    q = put64(q, me->ok ? me->hash : 0);
    q = put64(q, sig ? me->sig.mtime_ns : 0);
    q = put64(q, sig ? me->sig.ctime_ns : 0);
    q = put64(q, sig ? me->sig.ino : 0);
    q = put64(q, sig ? me->sig.dev : 0);
    q = put64(q, sig ? me->taken : 0);
    q = put32(q, flags);
    q = put32(q, (uint32_t)len);
    memcpy(q, me->path, len);
    q[len] = '\0';
  }
  out_add(&paths, entries.data ? entries.data : (const unsigned char *)"", entries.size);
  if (paths.failed) goto nomem;
  q = paths.data;
  memcpy(q, INDEX_MAGIC, 8);
  q = put32(q + 8, INDEX_VERSION);
  q = put32(q, 0);
  q = put64(q, index_build());
  q = put64(q, npaths);
  q = put64(q, kept);
  q = put64(q, paths.size - INDEX_HEADER);
  (void)put64(q, psoc_xxh3(paths.data + INDEX_HEADER, paths.size - INDEX_HEADER));
  if ((e = psoc_plat_mkdir(cache_dir)) != 0 ||
      (size_t)snprintf(path, sizeof path, "%s/" INDEX_NAME, cache_dir) >= sizeof path) {
    snprintf(err, n, "%s: cannot create the cache folder: %s", cache_dir,
             psoc_plat_strerror(e ? e : ENAMETOOLONG));
    goto out;
  }
  /* temporary file and rename, no fsync: a killed cook leaves the old
  ** index or the new one, and a short file after a machine crash fails
  ** its checksum */
  rc = cook_write_atomic(path, paths.data, paths.size, 0, err, n);
  if (rc == 0) st->index_written = kept;
  goto out;
nomem:
  snprintf(err, n, "out of memory");
out:
  free(all);
  free(order);
  free(paths.data);
  free(entries.data);
  return rc;
}

/* ---- the pack ---------------------------------------------------------------- */

struct cook_pack {
  unsigned char *data; /* the file's bytes (malloc) */
  psoc_archive *a;     /* opened over them, every checksum verified */
};

uint64_t cook_index_pack_id(const cook_index *ix) { return ix ? ix->pack_id : 0; }
size_t cook_index_pipelines(const cook_index *ix) {
  return ix && ix->pipelines <= (uint64_t)SIZE_MAX / 4 ? (size_t)ix->pipelines : 0;
}

int cook_pack_path(const char *cache_dir, uint64_t id, char *out) {
  return (size_t)snprintf(out, PSOC_PLAT_PATH_MAX, "%s/pack-%016" PRIx64 ".psoa", cache_dir, id) <
                 PSOC_PLAT_PATH_MAX
             ? 0
             : -1;
}

#define PACK_RETIRED "retired.psoa"

/* CACHE/retired.psoa, where the last cook's old pack waits to be removed. */
static int retired_path(const char *cache_dir, char *out) {
  return (size_t)snprintf(out, PSOC_PLAT_PATH_MAX, "%s/%s", cache_dir, PACK_RETIRED) <
                 PSOC_PLAT_PATH_MAX
             ? 0
             : -1;
}

void cook_pack_retire(const char *cache_dir, uint64_t id) {
  char pack[PSOC_PLAT_PATH_MAX], to[PSOC_PLAT_PATH_MAX];
  if (cook_pack_path(cache_dir, id, pack) != 0) return;
  if (retired_path(cache_dir, to) != 0 || psoc_plat_rename(pack, to) != 0)
    (void)psoc_plat_remove(pack);
}

void cook_pack_remove_retired(const char *cache_dir) {
  char path[PSOC_PLAT_PATH_MAX];
  if (retired_path(cache_dir, path) == 0) (void)psoc_plat_remove(path);
}

uint64_t cook_pack_new_id(const char *output) {
  uint64_t v[3], id;
  v[0] = psoc_plat_wall_now_ns();
  v[1] = psoc_plat_now_ns();
  v[2] = psoc_xxh3(output, strlen(output));
  id = psoc_xxh3(v, sizeof v);
  return id ? id : 1;
}

/* The pack is read into memory of its own (not mapped: the merge copies
** what was verified, so the bytes must not change under it), in a window
** the system is asked to back with huge pages: a fresh 7 MB buffer is
** otherwise some 1,800 first-touch faults, which a virtual machine whose
** host takes free pages back makes dear (psoc_plat_huge_window). */
cook_pack *cook_pack_open(const char *cache_dir, const cook_index *ix) {
  char path[PSOC_PLAT_PATH_MAX], err[64];
  psoc_plat_file f;
  cook_pack *p;
  size_t got = 0, want, n;
  unsigned char *win;
  if (!ix || !ix->pack_id || cook_pack_path(cache_dir, ix->pack_id, path) != 0) return NULL;
  if (psoc_plat_open_checked(path, &f) != 0) return NULL;
  if (f.size == 0 || f.size > UNIT_MAX_SIZE || (p = calloc(1, sizeof *p)) == NULL) {
    psoc_plat_close(&f);
    return NULL;
  }
  want = ((size_t)f.size + PSOC_PLAT_HUGE_PAGE - 1) / PSOC_PLAT_HUGE_PAGE * PSOC_PLAT_HUGE_PAGE;
  n = want + PSOC_PLAT_HUGE_PAGE;
  if ((p->data = malloc(n)) == NULL) {
    psoc_plat_close(&f);
    free(p);
    return NULL;
  }
  win = psoc_plat_huge_window(p->data, n, want);
  if (psoc_plat_read(&f, win, (size_t)f.size, &got) != 0 || got != f.size ||
      psoc_archive_open_memory(win, got, PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED,
                               NULL, &p->a, err, sizeof err) != PSOC_OK) {
    psoc_plat_close(&f);
    free(p->data);
    free(p);
    return NULL;
  }
  psoc_plat_close(&f);
  return p;
}

void cook_pack_free(cook_pack *p) {
  if (!p) return;
  psoc_archive_close(p->a);
  free(p->data);
  free(p);
}

psoc_archive *cook_pack_archive(const cook_pack *p) { return p ? p->a : NULL; }

int cook_pack_list_make(cook_material *m, psoc_archive *unit) {
  size_t n = psoc_archive_count(unit), i, len = 0;
  unsigned char *q;
  free(m->pack_list_own);
  m->pack_list_own = NULL;
  m->pack_list = NULL;
  m->pack_list_len = 0;
  for (i = 0; i < n; i++) {
    psoc_archive_entry e;
    if (psoc_archive_entry_get(unit, i, &e) != PSOC_OK) return -1;
    len += 21 + strlen(e.name);
  }
  if (len >= UINT32_MAX || (m->pack_list_own = malloc(len ? len : 1)) == NULL) return -1;
  q = m->pack_list_own;
  for (i = 0; i < n; i++) {
    psoc_archive_entry e;
    size_t nl;
    (void)psoc_archive_entry_get(unit, i, &e);
    nl = strlen(e.name);
    q = put64(q, e.hash.lo);
    q = put64(q, e.hash.hi);
    q = put32(q, (uint32_t)nl);
    memcpy(q, e.name, nl + 1);
    q += nl + 1;
  }
  m->pack_list = m->pack_list_own;
  m->pack_list_len = len;
  return 0;
}

int cook_pack_list_next(const unsigned char *list, size_t len, size_t *pos, const char **name,
                        psoc_hash128 *hash) {
  size_t p = *pos;
  uint32_t nl;
  if (p >= len || len - p < 21) return 0;
  nl = get32(list + p + 16);
  if (nl == 0 || len - p - 20 < (size_t)nl + 1 || list[p + 20 + nl] != 0 ||
      memchr(list + p + 20, 0, nl))
    return 0;
  hash->lo = get64(list + p);
  hash->hi = get64(list + p + 8);
  *name = (const char *)list + p + 20;
  *pos = p + 21 + nl;
  return 1;
}

/* ---- writing an entry --------------------------------------------------- */

int cook_cache_store(const cook_options *o, uint64_t key, const cook_material *m, char *err,
                     size_t n) {
  char path[PSOC_PLAT_PATH_MAX], line[128];
  size_t i, report_len = m->report ? strlen(m->report) : 0;
  cli_file text = { NULL, 0 };
  size_t cap = 0;
  int rc;
  int e = psoc_plat_mkdir(o->cache_dir);
  if (e != 0) {
    snprintf(err, n, "%s: cannot create the cache folder: %s", o->cache_dir,
             psoc_plat_strerror(e));
    return -1;
  }
  /* a path with a newline cannot be recorded: no entry (a miss next time) */
  for (i = 0; i < m->file_count; i++)
    if (strchr(m->files[i].path, '\n')) return 1;
  entry_path(o, key, "unit", path, sizeof path);
  if (cook_write_atomic(path, m->unit, m->unit_size, 0, err, n) != 0) return -1;
#define APPEND(s, len)                                                  \
  do {                                                                  \
    size_t add_ = (len);                                                \
    if (text.size + add_ + 1 > cap) {                                   \
      size_t want_ = cap ? cap : 1024;                                  \
      unsigned char *p_;                                                \
      while (want_ < text.size + add_ + 1) want_ *= 2;                  \
      if ((p_ = realloc(text.data, want_)) == NULL) goto nomem;         \
      text.data = p_;                                                   \
      cap = want_;                                                      \
    }                                                                   \
    memcpy(text.data + text.size, (s), add_);                           \
    text.size += add_;                                                  \
  } while (0)
  APPEND(CACHE_MAGIC "\n", strlen(CACHE_MAGIC) + 1);
  snprintf(line, sizeof line, "unit %016" PRIx64 " %zu %zu\n", m->unit_hash, m->unit_size,
           m->pipelines);
  APPEND(line, strlen(line));
  for (i = 0; i < m->file_count; i++) {
    snprintf(line, sizeof line, "file %016" PRIx64 " %" PRIu64 " ", m->files[i].hash,
             m->files[i].size);
    APPEND(line, strlen(line));
    APPEND(m->files[i].path, strlen(m->files[i].path));
    APPEND("\n", 1);
  }
  snprintf(line, sizeof line, "report %zu\n", report_len);
  APPEND(line, strlen(line));
  if (report_len) APPEND(m->report, report_len);
#undef APPEND
  entry_path(o, key, "dep", path, sizeof path);
  rc = cook_write_atomic(path, text.data, text.size, 0, err, n);
  free(text.data);
  return rc;
nomem:
  free(text.data);
  snprintf(err, n, "out of memory");
  return -1;
}
