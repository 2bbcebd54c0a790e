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
** HASH is XXH3-64 (src/xxh.h) in 16 hex digits. An entry is used only when
** every file it lists still has the recorded size and content hash and the
** unit file has its recorded size and pipeline count and opens as an
** archive with every checksum verified (the unit's HASH is recorded, not
** checked: the archive's own checksums cover every byte that is used): a
** changed script, module, shader or blob, a damaged or half-written entry
** all read as a miss, and the material is evaluated again. Entries are written atomically (unit first,
** then the .dep that points at it), so a cook killed at any moment leaves
** either the old entry or the new one. They are not fsync'ed: a machine
** crash may leave a short file, which its hash then rejects. Nothing is ever deleted: remove the
** folder to empty the cache.
*/
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
} memo_entry;

typedef struct memo_table {
  memo_entry *slots;
  size_t cap, used; /* cap: a power of two */
} memo_table;

struct cook_memo {
  psoc_plat_mutex lock;
  memo_table hashes, reals;
};

static int table_init(memo_table *t) {
  t->cap = 1024;
  t->used = 0;
  return (t->slots = calloc(t->cap, sizeof *t->slots)) != NULL ? 0 : -1;
}

static void table_free(memo_table *t) {
  size_t i;
  for (i = 0; t->slots && i < t->cap; i++) {
    free(t->slots[i].path);
    free(t->slots[i].real);
  }
  free(t->slots);
}

cook_memo *cook_memo_new(void) {
  cook_memo *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  if (table_init(&m->hashes) != 0 || table_init(&m->reals) != 0 || psoc_plat_mutex_init(&m->lock) != 0) {
    table_free(&m->hashes);
    table_free(&m->reals);
    free(m);
    return NULL;
  }
  return m;
}

void cook_memo_free(cook_memo *m) {
  if (!m) return;
  table_free(&m->hashes);
  table_free(&m->reals);
  psoc_plat_mutex_destroy(&m->lock);
  free(m);
}

/* The slot of 'path' (key 'key'), or the free slot where it goes. */
static memo_entry *memo_slot(memo_entry *slots, size_t cap, uint64_t key, const char *path) {
  size_t i = (size_t)key & (cap - 1);
  while (slots[i].path && (slots[i].key != key || strcmp(slots[i].path, path) != 0))
    i = (i + 1) & (cap - 1);
  return &slots[i];
}

/* A new entry for 'path' in 't' (NULL when out of memory: no entry, only
** slower), its path copied; the caller fills in the rest. */
static memo_entry *memo_put(memo_table *t, uint64_t key, const char *path) {
  memo_entry *e;
  size_t len = strlen(path) + 1;
  if (t->used * 2 >= t->cap) { /* grow at half full */
    size_t cap = t->cap * 2, i;
    memo_entry *slots = calloc(cap, sizeof *slots);
    if (!slots) return NULL;
    for (i = 0; i < t->cap; i++)
      if (t->slots[i].path) *memo_slot(slots, cap, t->slots[i].key, t->slots[i].path) = t->slots[i];
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
  }
  e = memo_slot(t->slots, t->cap, key, path);
  if (e->path || (e->path = malloc(len)) == NULL) return NULL;
  memcpy(e->path, path, len);
  e->key = key;
  t->used++;
  return e;
}

/* cook_hash_file through the memo (when there is one). */
static int memo_hash_file(cook_memo *m, const char *path, uint64_t *hash, uint64_t *size) {
  char err[256];
  uint64_t key;
  int ok;
  memo_entry *e;
  if (!m) return cook_hash_file(path, hash, size, err, sizeof err);
  key = psoc_xxh3(path, strlen(path));
  psoc_plat_mutex_lock(&m->lock);
  e = memo_slot(m->hashes.slots, m->hashes.cap, key, path);
  if (e->path) {
    *hash = e->hash;
    *size = e->size;
    ok = e->ok;
    psoc_plat_mutex_unlock(&m->lock);
    return ok ? 0 : -1;
  }
  psoc_plat_mutex_unlock(&m->lock);
  ok = cook_hash_file(path, hash, size, err, sizeof err) == 0;
  psoc_plat_mutex_lock(&m->lock);
  if ((e = memo_put(&m->hashes, key, path)) != NULL) {
    e->hash = ok ? *hash : 0;
    e->size = ok ? *size : 0;
    e->ok = ok;
  }
  psoc_plat_mutex_unlock(&m->lock);
  return ok ? 0 : -1;
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
  e = memo_slot(m->reals.slots, m->reals.cap, key, path);
  if (e->path) {
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

int cook_cache_lookup(const cook_options *o, uint64_t key, cook_material *m) {
  char path[PSOC_PLAT_PATH_MAX], err[256];
  cli_file dep, unit;
  uint64_t unit_hash = 0, unit_size = 0, hash, size;
  size_t pipelines = 0, i;
  entry_path(o, key, "dep", path, sizeof path);
  if (cli_read_file(path, DEP_MAX_SIZE, &dep, err, sizeof err) != 0) return 0;
  if (parse_dep(&dep, m, &unit_hash, &unit_size, &pipelines) != 0) goto miss;
  for (i = 0; i < m->file_count; i++) {
    if (memo_hash_file(o->memo, m->files[i].path, &hash, &size) != 0 ||
        hash != m->files[i].hash || size != m->files[i].size)
      goto miss;
  }
  entry_path(o, key, "unit", path, sizeof path);
  if (cli_read_file(path, UNIT_MAX_SIZE, &unit, err, sizeof err) != 0) goto miss;
  /* The unit is an archive: its own checksums (header, tables, every
  ** record and component) verify it, so its bytes are read once here and
  ** not hashed again as a whole; the merge then copies it as it is. */
  (void)unit_hash;
  if (unit.size != unit_size ||
      psoc_archive_open_memory(unit.data, unit.size,
                               PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED, NULL,
                               &m->archive, err, sizeof err) != PSOC_OK) {
    cli_file_free(&unit);
    goto miss;
  }
  if (psoc_archive_count(m->archive) != pipelines) {
    psoc_archive_close(m->archive);
    m->archive = NULL;
    cli_file_free(&unit);
    goto miss;
  }
  cli_file_free(&dep);
  m->unit = unit.data;
  m->unit_size = unit.size;
  m->pipelines = pipelines;
  m->cacheable = 1;
  return 1;
miss:
  cli_file_free(&dep);
  cook_material_free(m);
  return 0;
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
    if (strchr(m->files[i].path, '\n')) return 0;
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
  snprintf(line, sizeof line, "unit %016" PRIx64 " %zu %zu\n", psoc_xxh3(m->unit, m->unit_size),
           m->unit_size, m->pipelines);
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
