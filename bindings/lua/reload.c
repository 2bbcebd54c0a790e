/*
** reload.c: hot reload of material scripts (psol_reload.h).
**
** One worker thread owns the scripts, their dependencies and the watcher;
** the render thread only swaps the event queue under 'mu'. In manual mode
** (PSOL_RELOAD_WATCH_NONE) the same code runs on the caller's thread in
** psol_reload_update.
*/
#include "psol_reload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "xxh.h"

#define MAX_COALESCE_WINDOWS 20u
#define WALK_DEPTH 32
#define IDLE_WAIT_MS 1000u
#define BUSY_CAP_MS 250u /* longest wait for a file being written to be closed */

typedef struct dep {
  char *path;
  uint64_t hash;
  int present;
} dep;

typedef struct pipe_rec {
  char *name;
  psoc_hash128 hash;
  uint64_t version;
  int live;
  int seen; /* in the current evaluation */
} pipe_rec;

typedef struct script {
  char *path;  /* canonical */
  char *root;  /* the folder it came from, or NULL */
  dep *deps;
  size_t ndeps, capdeps;
  pipe_rec *pipes;
  size_t npipes, cappipes;
  int evaluated; /* at least once */
  int failed;    /* the last evaluation failed */
  int candidate; /* in the current batch */
} script;

typedef struct strlist {
  char **v;
  size_t n, cap;
} strlist;

/* One batch's content hashes, so a shader shared by many scripts is read once. */
typedef struct hash_entry {
  char *path;
  uint64_t hash;
  int present;
} hash_entry;

struct psol_reload {
  psol_options eval;        /* copied; roots point into 'roots' */
  strlist roots;
  psol_read_file_fn user_read;
  void *user_read_ud;
  int mode;                 /* psol_reload_watch (AUTO resolved) */
  uint32_t coalesce_ms;
  psoc_plat_watch *watch;
  psoc_plat_thread thread;
  int have_thread;

  /* worker-owned */
  script *scripts;
  size_t nscripts, capscripts;
  strlist folders;          /* canonical */
  strlist inputs;           /* canonical scripts named directly */
  strlist changed;          /* the batch being collected */
  strlist busy;             /* of those, written and not closed yet */
  hash_entry *hashes;
  size_t nhashes, caphashes;
  int nomem;                /* an allocation failed in the current batch */

  /* shared, under mu */
  psoc_plat_mutex mu;
  psoc_plat_cond cv;        /* signalled when events are queued or a batch ends */
  psol_reload_event *queue;
  size_t nqueue, capqueue;
  strlist notified;
  int rescan;
  int stop;
  uint64_t sync_req, sync_done; /* psol_reload_sync: requested, answered */
  psol_reload_stats stats;
};

/* ---- small helpers --------------------------------------------------------- */

static char *dup_str(const char *s) {
  size_t n;
  char *d;
  if (!s) return NULL;
  n = strlen(s) + 1;
  if ((d = (char *)malloc(n)) != NULL) memcpy(d, s, n);
  return d;
}

static int grow(void **p, size_t *cap, size_t need, size_t size) {
  size_t c;
  void *q;
  if (need <= *cap) return 0;
  c = *cap ? *cap : 8;
  while (c < need) c *= 2;
  if (!(q = realloc(*p, c * size))) return -1;
  *p = q;
  *cap = c;
  return 0;
}

static int strlist_find(const strlist *l, const char *s) {
  size_t i;
  for (i = 0; i < l->n; i++)
    if (strcmp(l->v[i], s) == 0) return (int)i;
  return -1;
}

static int strlist_add(strlist *l, const char *s) {
  char *d;
  if (strlist_find(l, s) >= 0) return 0;
  if (grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0) return -1;
  if (!(d = dup_str(s))) return -1;
  l->v[l->n++] = d;
  return 0;
}

static void strlist_clear(strlist *l) {
  size_t i;
  for (i = 0; i < l->n; i++) free(l->v[i]);
  l->n = 0;
}

static void strlist_free(strlist *l) {
  strlist_clear(l);
  free(l->v);
  l->v = NULL;
  l->cap = 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* 'path' lies under the folder 'dir' (a prefix followed by '/'). */
static int under(const char *path, const char *dir) {
  size_t n = strlen(dir);
  return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* 'path' is an entry of the directory 'dir' itself (not deeper). */
static int in_dir(const char *path, const char *dir) {
  return under(path, dir) && !strchr(path + strlen(dir) + 1, '/');
}

/* A script of a folder: *.lua, not *_test.lua, no hidden component below it. */
static int folder_script_name(const char *path, const char *dir) {
  const char *p = path + strlen(dir);
  if (!ends_with(path, ".lua") || ends_with(path, "_test.lua")) return 0;
  for (; *p; p++)
    if (p[0] == '/' && p[1] == '.') return 0;
  return 1;
}

/* The directory part of 'path' into out (PSOC_PLAT_PATH_MAX). */
static void dir_of(const char *path, char *out) {
  const char *slash = strrchr(path, '/');
  size_t n = slash ? (size_t)(slash - path) : 0;
  if (!slash) {
    memcpy(out, ".", 2);
    return;
  }
  if (n == 0) n = 1; /* "/x" */
  if (n >= PSOC_PLAT_PATH_MAX) n = PSOC_PLAT_PATH_MAX - 1;
  memcpy(out, path, n);
  out[n] = '\0';
}

/* ---- reading and hashing files --------------------------------------------- */

/* Read a whole regular file into malloc'ed memory. 0 or an error number. */
static int read_whole(const char *path, void **data, size_t *size) {
  psoc_plat_file f;
  size_t got = 0;
  void *buf;
  int e = psoc_plat_open_regular(path, &f);
  *data = NULL;
  *size = 0;
  if (e) return e;
  if (f.size > (uint64_t)((size_t)-1 >> 1)) {
    psoc_plat_close(&f);
    return PSOC_PLAT_ENOTREG;
  }
  if (!(buf = malloc(f.size ? (size_t)f.size : 1))) {
    psoc_plat_close(&f);
    return -2;
  }
  e = psoc_plat_read(&f, buf, (size_t)f.size, &got);
  psoc_plat_close(&f);
  if (e) {
    free(buf);
    return e;
  }
  *data = buf;
  *size = got;
  return 0;
}

/* The content hash of 'path' now (cached for the batch). */
static int hash_now(psol_reload *r, const char *path, uint64_t *hash) {
  size_t i;
  void *data;
  size_t size;
  hash_entry *h;
  for (i = 0; i < r->nhashes; i++)
    if (strcmp(r->hashes[i].path, path) == 0) {
      *hash = r->hashes[i].hash;
      return r->hashes[i].present;
    }
  if (grow((void **)&r->hashes, &r->caphashes, r->nhashes + 1, sizeof *r->hashes) != 0) {
    r->nomem = 1;
    *hash = 0;
    return -1; /* differs from everything: the script is evaluated */
  }
  h = &r->hashes[r->nhashes];
  if (!(h->path = dup_str(path))) {
    r->nomem = 1;
    *hash = 0;
    return -1;
  }
  if (r->user_read) { /* the engine's files: ask its hook */
    psol_bytes b;
    memset(&b, 0, sizeof b);
    if (r->user_read(r->user_read_ud, path, &b) == 0) {
      h->hash = psoc_xxh3(b.data, b.size);
      h->present = 1;
      if (b.release) b.release(r->user_read_ud, b.data);
    } else {
      h->hash = 0;
      h->present = 0;
    }
  } else if (read_whole(path, &data, &size) == 0) {
    h->hash = psoc_xxh3(data, size);
    h->present = 1;
    free(data);
  } else {
    h->hash = 0;
    h->present = 0;
  }
  r->nhashes++;
  *hash = h->hash;
  return h->present;
}

static void hashes_clear(psol_reload *r) {
  size_t i;
  for (i = 0; i < r->nhashes; i++) free(r->hashes[i].path);
  r->nhashes = 0;
}

/* ---- events ------------------------------------------------------------------ */

static void diag_free(psol_diagnostic *d) {
  free(d->file);
  free(d->pipeline);
  free(d->field);
  free(d->message);
}

static void event_free(psol_reload_event *e) {
  size_t i;
  free(e->script);
  free(e->pipeline);
  free(e->root_signature);
  free(e->error);
  psoc_stream_free(e->stream);
  for (i = 0; i < e->diagnostic_count; i++) diag_free(&e->diagnostics[i]);
  free(e->diagnostics);
  memset(e, 0, sizeof *e);
}

/* Queue 'e' (its contents move into the queue; on failure they are freed).
** A pipeline event replaces a pending one of the same pipeline. */
static void push_event(psol_reload *r, psol_reload_event *e) {
  size_t i;
  psoc_plat_mutex_lock(&r->mu);
  if (e->kind == PSOL_RELOAD_CHANGED || e->kind == PSOL_RELOAD_REMOVED) {
    for (i = 0; i < r->nqueue; i++) {
      psol_reload_event *q = &r->queue[i];
      if ((q->kind == PSOL_RELOAD_CHANGED || q->kind == PSOL_RELOAD_REMOVED) &&
          strcmp(q->script, e->script) == 0 && strcmp(q->pipeline, e->pipeline) == 0) {
        event_free(q);
        *q = *e;
        memset(e, 0, sizeof *e);
        psoc_plat_cond_signal(&r->cv);
        psoc_plat_mutex_unlock(&r->mu);
        return;
      }
    }
  }
  if (grow((void **)&r->queue, &r->capqueue, r->nqueue + 1, sizeof *r->queue) != 0) {
    psoc_plat_mutex_unlock(&r->mu);
    event_free(e);
    r->nomem = 1;
    return;
  }
  r->queue[r->nqueue++] = *e;
  memset(e, 0, sizeof *e);
  psoc_plat_cond_signal(&r->cv);
  psoc_plat_mutex_unlock(&r->mu);
}

static int copy_diagnostics(psol_reload_event *e, const psol_result *res) {
  size_t i;
  if (!res->diagnostic_count) return 0;
  if (!(e->diagnostics = (psol_diagnostic *)calloc(res->diagnostic_count, sizeof *e->diagnostics)))
    return -1;
  for (i = 0; i < res->diagnostic_count; i++) {
    const psol_diagnostic *s = &res->diagnostics[i];
    psol_diagnostic *d = &e->diagnostics[i];
    d->severity = s->severity;
    d->code = s->code;
    d->message_id = s->message_id;
    d->line = s->line;
    d->file = dup_str(s->file);
    d->pipeline = dup_str(s->pipeline);
    d->field = dup_str(s->field);
    d->message = dup_str(s->message ? s->message : "");
    e->diagnostic_count = i + 1;
    if ((s->file && !d->file) || (s->pipeline && !d->pipeline) || (s->field && !d->field) ||
        !d->message)
      return -1;
  }
  return 0;
}

/* ---- dependencies -------------------------------------------------------------- */

typedef struct read_ctx {
  psol_reload *r;
  dep *deps;
  size_t n, cap;
  int nomem;
} read_ctx;

static dep *dep_find(dep *deps, size_t n, const char *path) {
  size_t i;
  for (i = 0; i < n; i++)
    if (strcmp(deps[i].path, path) == 0) return &deps[i];
  return NULL;
}

/* Record 'path' with its hash; a later record of the same path wins. */
static void dep_record(read_ctx *c, const char *path, uint64_t hash, int present) {
  dep *d = dep_find(c->deps, c->n, path);
  if (d) {
    d->hash = hash;
    d->present = present;
    return;
  }
  if (grow((void **)&c->deps, &c->cap, c->n + 1, sizeof *c->deps) != 0) {
    c->nomem = 1;
    return;
  }
  d = &c->deps[c->n];
  if (!(d->path = dup_str(path))) {
    c->nomem = 1;
    return;
  }
  d->hash = hash;
  d->present = present;
  c->n++;
}

static void release_malloced(void *ud, const void *data) {
  (void)ud;
  free((void *)data);
}

/* The read_file hook every evaluation runs with: the engine's hook or the
** file system, and a record of the path and the hash of the bytes given. */
static int reload_read_file(void *ud, const char *path, psol_bytes *out) {
  read_ctx *c = (read_ctx *)ud;
  psol_reload *r = c->r;
  if (r->user_read) {
    /* the engine's bytes, copied: its release wants its own ud, and the
    ** sandbox releases with ours */
    psol_bytes b;
    void *copy;
    int rc;
    memset(&b, 0, sizeof b);
    rc = r->user_read(r->user_read_ud, path, &b);
    if (rc != 0) {
      dep_record(c, path, 0, 0);
      return rc;
    }
    copy = malloc(b.size ? b.size : 1);
    if (copy && b.size) memcpy(copy, b.data, b.size);
    dep_record(c, path, psoc_xxh3(b.data, b.size), 1);
    if (b.release) b.release(r->user_read_ud, b.data);
    if (!copy) {
      c->nomem = 1;
      return 1;
    }
    out->data = copy;
    out->size = b.size;
    out->release = release_malloced;
    return 0;
  } else {
    void *data;
    size_t size;
    if (read_whole(path, &data, &size) != 0) {
      dep_record(c, path, 0, 0);
      return 1;
    }
    dep_record(c, path, psoc_xxh3(data, size), 1);
    out->data = data;
    out->size = size;
    out->release = release_malloced;
    return 0;
  }
}

static void deps_free(dep *deps, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) free(deps[i].path);
  free(deps);
}

/* Watch the directory of every dependency (and of the script). */
static void watch_deps(psol_reload *r, const script *s) {
  char dir[PSOC_PLAT_PATH_MAX];
  size_t i;
  if (!r->watch) return;
  for (i = 0; i < s->ndeps; i++) {
    dir_of(s->deps[i].path, dir);
    psoc_plat_watch_add(r->watch, dir); /* a missing folder cannot be watched */
  }
}

/* ---- evaluation ------------------------------------------------------------------ */

static pipe_rec *pipe_find(script *s, const char *name) {
  size_t i;
  for (i = 0; i < s->npipes; i++)
    if (strcmp(s->pipes[i].name, name) == 0) return &s->pipes[i];
  return NULL;
}

static void set_failed_event(psol_reload_event *e, const script *s, const psol_result *res,
                             const char *fallback) {
  memset(e, 0, sizeof *e);
  e->kind = PSOL_RELOAD_FAILED;
  e->script = dup_str(s->path);
  e->error = dup_str(res && res->error[0] ? res->error : fallback);
  if (res) copy_diagnostics(e, res);
  e->time_ns = psoc_plat_now_ns();
}

static void evaluate(psol_reload *r, script *s) {
  psol_options o = r->eval;
  psol_result res;
  read_ctx c;
  psoc_status st;
  size_t i;
  uint64_t h;
  const char *root = s->root;
  psol_reload_event e;

  memset(&c, 0, sizeof c);
  c.r = r;
  if (!r->eval.root_count && root) {
    o.roots = &root;
    o.root_count = 1;
  }
  o.read_file = reload_read_file;
  o.read_file_ud = &c;
  st = psol_evaluate_file(&o, s->path, &res);

  /* what the sandbox says it read, then the script itself when neither
  ** named it (hashed now) */
  for (i = 0; i < res.file_count; i++)
    if (!dep_find(c.deps, c.n, res.files[i].path))
      dep_record(&c, res.files[i].path, res.files[i].hash, 1);
  if (!dep_find(c.deps, c.n, s->path)) {
    int present = hash_now(r, s->path, &h);
    dep_record(&c, s->path, h, present > 0);
  }

  psoc_plat_mutex_lock(&r->mu);
  r->stats.evaluations++;
  if (st != PSOC_OK) r->stats.failures++;
  psoc_plat_mutex_unlock(&r->mu);

  if (st != PSOC_OK) {
    /* last good wins: keep the old dependencies too, so that fixing any of
    ** them (or creating a missing one) brings the script back */
    for (i = 0; i < s->ndeps; i++)
      if (!dep_find(c.deps, c.n, s->deps[i].path))
        dep_record(&c, s->deps[i].path, s->deps[i].hash, s->deps[i].present);
    set_failed_event(&e, s, &res, "evaluation failed");
    s->failed = 1;
    push_event(r, &e);
  } else {
    int was_failed = s->failed;
    for (i = 0; i < s->npipes; i++) s->pipes[i].seen = 0;
    for (i = 0; i < res.count; i++) {
      psol_pipeline *p = &res.pipelines[i];
      pipe_rec *rec = pipe_find(s, p->name);
      if (!rec) {
        if (grow((void **)&s->pipes, &s->cappipes, s->npipes + 1, sizeof *s->pipes) != 0) {
          r->nomem = 1;
          continue;
        }
        rec = &s->pipes[s->npipes];
        memset(rec, 0, sizeof *rec);
        if (!(rec->name = dup_str(p->name))) {
          r->nomem = 1;
          continue;
        }
        s->npipes++;
      } else if (rec->live && rec->hash.lo == p->hash.lo && rec->hash.hi == p->hash.hi) {
        rec->seen = 1;
        continue; /* unchanged */
      }
      rec->seen = 1;
      rec->live = 1;
      rec->hash = p->hash;
      rec->version++;
      memset(&e, 0, sizeof e);
      e.kind = PSOL_RELOAD_CHANGED;
      e.script = dup_str(s->path);
      e.pipeline = dup_str(p->name);
      e.root_signature = dup_str(p->root_signature);
      e.pipeline_kind = p->kind;
      e.version = rec->version;
      e.hash = p->hash;
      e.stream = p->stream; /* moved */
      p->stream = NULL;
      e.time_ns = psoc_plat_now_ns();
      if (!e.script || !e.pipeline || (p->root_signature && !e.root_signature)) {
        event_free(&e);
        r->nomem = 1;
        continue;
      }
      push_event(r, &e);
    }
    for (i = 0; i < s->npipes; i++) {
      pipe_rec *rec = &s->pipes[i];
      if (!rec->live || rec->seen) continue;
      rec->live = 0;
      memset(&e, 0, sizeof e);
      e.kind = PSOL_RELOAD_REMOVED;
      e.script = dup_str(s->path);
      e.pipeline = dup_str(rec->name);
      e.version = rec->version;
      e.time_ns = psoc_plat_now_ns();
      if (!e.script || !e.pipeline) {
        event_free(&e);
        r->nomem = 1;
        continue;
      }
      push_event(r, &e);
    }
    s->failed = 0;
    if (was_failed) {
      memset(&e, 0, sizeof e);
      e.kind = PSOL_RELOAD_RECOVERED;
      e.script = dup_str(s->path);
      e.time_ns = psoc_plat_now_ns();
      if (!e.script) r->nomem = 1;
      else push_event(r, &e);
    }
  }
  s->evaluated = 1;
  psol_result_free(&res);
  if (!c.nomem) {
    deps_free(s->deps, s->ndeps);
    s->deps = c.deps;
    s->ndeps = c.n;
    s->capdeps = c.cap;
  } else { /* keep the old list; the next batch tries again */
    deps_free(c.deps, c.n);
    r->nomem = 1;
  }
  watch_deps(r, s);
}

/* The inputs of 's' hash as its last evaluation read them. */
static int unchanged(psol_reload *r, script *s) {
  size_t i;
  for (i = 0; i < s->ndeps; i++) {
    uint64_t h;
    int present = hash_now(r, s->deps[i].path, &h);
    if (present < 0 || present != s->deps[i].present || (present && h != s->deps[i].hash))
      return 0;
  }
  return 1;
}

/* ---- scripts and folders ------------------------------------------------------------ */

static script *script_find(psol_reload *r, const char *path) {
  size_t i;
  for (i = 0; i < r->nscripts; i++)
    if (strcmp(r->scripts[i].path, path) == 0) return &r->scripts[i];
  return NULL;
}

static script *script_add(psol_reload *r, const char *path, const char *root) {
  script *s = script_find(r, path);
  if (s) return s;
  if (grow((void **)&r->scripts, &r->capscripts, r->nscripts + 1, sizeof *r->scripts) != 0) {
    r->nomem = 1;
    return NULL;
  }
  s = &r->scripts[r->nscripts];
  memset(s, 0, sizeof *s);
  s->path = dup_str(path);
  s->root = dup_str(root);
  if (!s->path || (root && !s->root)) {
    free(s->path);
    free(s->root);
    r->nomem = 1;
    return NULL;
  }
  r->nscripts++;
  s->candidate = 1;
  return s;
}

static void script_free(script *s) {
  size_t i;
  free(s->path);
  free(s->root);
  deps_free(s->deps, s->ndeps);
  for (i = 0; i < s->npipes; i++) free(s->pipes[i].name);
  free(s->pipes);
}

typedef struct walk_ctx {
  psol_reload *r;
  const char *dir;
  const char *root;
  int depth;
} walk_ctx;

static void walk(psol_reload *r, const char *dir, const char *root, int depth);

static int walk_entry(void *ud, const char *name, int kind) {
  walk_ctx *c = (walk_ctx *)ud;
  char full[PSOC_PLAT_PATH_MAX];
  if (name[0] == '.') return 0;
  if ((size_t)snprintf(full, sizeof full, "%s/%s", c->dir, name) >= sizeof full) return 0;
  if (kind == PSOC_PLAT_DIR) walk(c->r, full, c->root, c->depth + 1);
  else if (kind == PSOC_PLAT_FILE && folder_script_name(full, c->root))
    script_add(c->r, full, c->root);
  return 0;
}

/* Add every script under 'dir' (new ones become candidates) and watch it. */
static void walk(psol_reload *r, const char *dir, const char *root, int depth) {
  walk_ctx c;
  if (depth > WALK_DEPTH) return;
  c.r = r;
  c.dir = dir;
  c.root = root;
  c.depth = depth;
  if (r->watch) psoc_plat_watch_add(r->watch, dir);
  psoc_plat_list_dir(dir, walk_entry, &c);
}

/* ---- batches ---------------------------------------------------------------------------- */

static void collect(void *ud, const char *path, int flags) {
  psol_reload *r = (psol_reload *)ud;
  int busy = strlist_find(&r->busy, path);
  if (strlist_add(&r->changed, path) != 0) r->nomem = 1;
  if (flags & PSOC_PLAT_WATCH_WRITING) {
    if (busy < 0 && strlist_add(&r->busy, path) != 0) r->nomem = 1;
  } else if (busy >= 0) { /* closed: no longer being written */
    free(r->busy.v[busy]);
    r->busy.v[busy] = r->busy.v[--r->busy.n];
  }
}

/* Handle r->changed (and a rescan): pick the candidate scripts, evaluate
** those whose inputs hash differently. */
static void run_batch(psol_reload *r, int rescan) {
  size_t i, j, k;
  int dir;
  for (i = 0; i < r->nscripts; i++) r->scripts[i].candidate = rescan;
  if (rescan)
    for (i = 0; i < r->folders.n; i++) walk(r, r->folders.v[i], r->folders.v[i], 0);
  for (k = 0; k < r->changed.n; k++) {
    const char *p = r->changed.v[k];
    for (i = 0; i < r->folders.n; i++) {
      const char *f = r->folders.v[i];
      int kind;
      int self = strcmp(p, f) == 0;
      if ((!self && !under(p, f)) || psoc_plat_lstat(p, &kind) != 0) continue;
      if (kind == PSOC_PLAT_DIR && !strstr(p + strlen(f), "/.")) walk(r, p, f, !self);
      else if (kind == PSOC_PLAT_FILE && folder_script_name(p, f) && !script_find(r, p))
        script_add(r, p, f);
    }
    /* a directory reported itself: the watcher lost its notifications
    ** (inotify's queue or the Windows read buffer overflowed), so what was
    ** read from it is looked at again (owner h9) */
    dir = psoc_plat_is_dir(p) == 0;
    for (i = 0; i < r->nscripts; i++) {
      script *s = &r->scripts[i];
      if (s->candidate) continue;
      if (strcmp(s->path, p) == 0 || (dir && in_dir(s->path, p))) s->candidate = 1;
      for (j = 0; j < s->ndeps && !s->candidate; j++)
        if (strcmp(s->deps[j].path, p) == 0 || (dir && in_dir(s->deps[j].path, p)))
          s->candidate = 1;
    }
  }
  for (i = 0; i < r->nscripts; i++) {
    script *s = &r->scripts[i];
    if (!s->candidate) continue;
    s->candidate = 0;
    if (s->evaluated && unchanged(r, s)) {
      psoc_plat_mutex_lock(&r->mu);
      r->stats.unchanged++;
      psoc_plat_mutex_unlock(&r->mu);
      continue;
    }
    evaluate(r, s);
  }
  strlist_clear(&r->changed);
  strlist_clear(&r->busy);
  hashes_clear(r);
  psoc_plat_mutex_lock(&r->mu);
  r->stats.batches++;
  r->stats.scripts = r->nscripts;
  psoc_plat_cond_signal(&r->cv);
  psoc_plat_mutex_unlock(&r->mu);
}

/* Take what notify and rescan asked for. Returns the rescan flag. */
static int take_requests(psol_reload *r) {
  size_t i;
  int rescan;
  psoc_plat_mutex_lock(&r->mu);
  for (i = 0; i < r->notified.n; i++)
    if (strlist_add(&r->changed, r->notified.v[i]) != 0) r->nomem = 1;
  strlist_clear(&r->notified);
  rescan = r->rescan;
  r->rescan = 0;
  psoc_plat_mutex_unlock(&r->mu);
  return rescan;
}

static int stopping(psol_reload *r) {
  int s;
  psoc_plat_mutex_lock(&r->mu);
  s = r->stop;
  psoc_plat_mutex_unlock(&r->mu);
  return s;
}

static void first_load(psol_reload *r) {
  size_t i;
  for (i = 0; i < r->folders.n; i++) walk(r, r->folders.v[i], r->folders.v[i], 0);
  for (i = 0; i < r->inputs.n; i++) script_add(r, r->inputs.v[i], NULL);
  for (i = 0; i < r->nscripts; i++) r->scripts[i].candidate = 0;
  for (i = 0; i < r->nscripts; i++) evaluate(r, &r->scripts[i]);
  hashes_clear(r);
  psoc_plat_mutex_lock(&r->mu);
  r->stats.batches++;
  r->stats.scripts = r->nscripts;
  psoc_plat_cond_signal(&r->cv);
  psoc_plat_mutex_unlock(&r->mu);
}

/* The sync request the worker has to answer (0: none). */
static uint64_t sync_wanted(psol_reload *r) {
  uint64_t want;
  psoc_plat_mutex_lock(&r->mu);
  want = r->sync_req > r->sync_done ? r->sync_req : 0;
  psoc_plat_mutex_unlock(&r->mu);
  return want;
}

static void worker(void *arg) {
  psol_reload *r = (psol_reload *)arg;
  first_load(r);
  while (!stopping(r)) {
    uint64_t sync = sync_wanted(r);
    int rescan, n;
    /* a sync takes what the watcher has already seen, without coalescing */
    if (sync) psoc_plat_watch_wait(r->watch, 0, collect, r);
    rescan = take_requests(r);
    if (rescan || r->changed.n) run_batch(r, rescan);
    if (sync) {
      psoc_plat_mutex_lock(&r->mu);
      r->sync_done = sync;
      psoc_plat_cond_signal(&r->cv);
      psoc_plat_mutex_unlock(&r->mu);
    }
    if (sync || rescan) continue;
    n = psoc_plat_watch_wait(r->watch, IDLE_WAIT_MS, collect, r);
    if (n > 0) {
      /* coalesce: wait until a window passes without changes and no file
      ** is left half written (truncated, not closed yet), within a cap */
      uint64_t start = psoc_plat_now_ns(), w = (uint64_t)r->coalesce_ms * 1000000u;
      for (;;) {
        uint64_t cap = r->busy.n ? (uint64_t)BUSY_CAP_MS * 1000000u : w * MAX_COALESCE_WINDOWS;
        int m;
        if (psoc_plat_now_ns() - start >= cap) break;
        m = psoc_plat_watch_wait(r->watch, r->coalesce_ms, collect, r);
        if (m < 0 || (m == 0 && !r->busy.n) || stopping(r)) break;
      }
    }
  }
}

/* ---- public API ---------------------------------------------------------------------------- */

static void reload_free(psol_reload *r) {
  size_t i;
  for (i = 0; i < r->nscripts; i++) script_free(&r->scripts[i]);
  free(r->scripts);
  for (i = 0; i < r->nqueue; i++) event_free(&r->queue[i]);
  free(r->queue);
  strlist_free(&r->roots);
  strlist_free(&r->folders);
  strlist_free(&r->inputs);
  strlist_free(&r->changed);
  strlist_free(&r->busy);
  strlist_free(&r->notified);
  hashes_clear(r);
  free(r->hashes);
  psoc_plat_watch_close(r->watch);
  free((void *)r->eval.roots);
  free(r);
}

psol_reload *psol_reload_create(const psol_reload_options *opts, char *err, size_t errlen) {
  psol_reload *r;
  size_t i;
  char buf[1];
  if (!err || !errlen) {
    err = buf;
    errlen = sizeof buf;
  }
  err[0] = '\0';
  if (!opts || (!opts->paths && opts->path_count)) {
    snprintf(err, errlen, "psol_reload_create: no options");
    return NULL;
  }
  if (!(r = (psol_reload *)calloc(1, sizeof *r))) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  r->eval = opts->eval;
  r->user_read = opts->eval.read_file;
  r->user_read_ud = opts->eval.read_file_ud;
  r->coalesce_ms = opts->coalesce_ms ? opts->coalesce_ms : PSOL_RELOAD_DEFAULT_COALESCE_MS;
  r->eval.roots = NULL;
  r->eval.root_count = 0;
  if (psoc_plat_mutex_init(&r->mu) != 0) {
    free(r);
    snprintf(err, errlen, "cannot create a mutex");
    return NULL;
  }
  if (psoc_plat_cond_init(&r->cv) != 0) {
    psoc_plat_mutex_destroy(&r->mu);
    free(r);
    snprintf(err, errlen, "cannot create a condition variable");
    return NULL;
  }
  for (i = 0; i < opts->eval.root_count; i++) {
    char canon[PSOC_PLAT_PATH_MAX];
    const char *root = opts->eval.roots[i];
    if (root && r->user_read && psoc_plat_realpath(root, canon) != 0) {
      /* the engine supplies the files: a root need not exist on disk */
      if (strlist_add(&r->roots, root) != 0) goto nomem;
      continue;
    }
    if (!root || psoc_plat_realpath(root, canon) != 0 || psoc_plat_is_dir(canon) != 0) {
      snprintf(err, errlen, "%s: not a folder (material root)", root ? root : "(null)");
      goto fail;
    }
    if (strlist_add(&r->roots, canon) != 0) goto nomem;
  }
  if (r->roots.n) {
    const char **v = (const char **)malloc(r->roots.n * sizeof *v);
    if (!v) goto nomem;
    for (i = 0; i < r->roots.n; i++) v[i] = r->roots.v[i];
    r->eval.roots = v;
    r->eval.root_count = r->roots.n;
  }
  for (i = 0; i < opts->path_count; i++) {
    char canon[PSOC_PLAT_PATH_MAX];
    int e;
    const char *p = opts->paths[i];
    if (p && r->user_read && psoc_plat_realpath(p, canon) != 0) {
      /* a script only the engine's read_file hook has */
      if (strlist_add(&r->inputs, p) != 0) goto nomem;
      continue;
    }
    if (!p || (e = psoc_plat_realpath(p, canon)) != 0) {
      snprintf(err, errlen, "%s: %s", p ? p : "(null)",
               p ? psoc_plat_strerror(e) : "no path");
      goto fail;
    }
    if (psoc_plat_is_dir(canon) == 0) {
      if (strlist_add(&r->folders, canon) != 0) goto nomem;
    } else if (strlist_add(&r->inputs, canon) != 0) {
      goto nomem;
    }
  }
  r->mode = (int)opts->watch;
  if (opts->watch != PSOL_RELOAD_WATCH_NONE) {
    int backend = opts->watch == PSOL_RELOAD_WATCH_NATIVE ? PSOC_PLAT_WATCH_NATIVE
                  : opts->watch == PSOL_RELOAD_WATCH_POLL ? PSOC_PLAT_WATCH_POLL
                                                          : PSOC_PLAT_WATCH_AUTO;
    int e = psoc_plat_watch_open(&r->watch, backend,
                                 opts->poll_ms ? opts->poll_ms : PSOL_RELOAD_DEFAULT_POLL_MS);
    if (e == ENOSYS && backend == PSOC_PLAT_WATCH_AUTO)
      e = psoc_plat_watch_open(&r->watch, PSOC_PLAT_WATCH_POLL, opts->poll_ms);
    if (e) {
      snprintf(err, errlen, "cannot watch files: %s", psoc_plat_strerror(e));
      goto fail;
    }
    r->mode = psoc_plat_watch_backend(r->watch) == PSOC_PLAT_WATCH_POLL ? PSOL_RELOAD_WATCH_POLL
                                                                        : PSOL_RELOAD_WATCH_NATIVE;
  }
  r->stats.backend = r->mode;
  if (r->mode == PSOL_RELOAD_WATCH_NONE) {
    first_load(r);
  } else {
    /* the folders are watched before the worker starts, so that nothing
    ** written after create returns is missed */
    for (i = 0; i < r->folders.n; i++) walk(r, r->folders.v[i], r->folders.v[i], 0);
    for (i = 0; i < r->inputs.n; i++) {
      char dir[PSOC_PLAT_PATH_MAX];
      dir_of(r->inputs.v[i], dir);
      psoc_plat_watch_add(r->watch, dir);
    }
    if (psoc_plat_thread_start(&r->thread, worker, r) != 0) {
      snprintf(err, errlen, "cannot start the reload thread");
      goto fail;
    }
    r->have_thread = 1;
  }
  return r;
nomem:
  snprintf(err, errlen, "out of memory");
fail:
  psoc_plat_cond_destroy(&r->cv);
  psoc_plat_mutex_destroy(&r->mu);
  reload_free(r);
  return NULL;
}

void psol_reload_destroy(psol_reload *r) {
  if (!r) return;
  if (r->have_thread) {
    psoc_plat_mutex_lock(&r->mu);
    r->stop = 1;
    psoc_plat_mutex_unlock(&r->mu);
    psoc_plat_watch_wake(r->watch);
    psoc_plat_thread_join(&r->thread);
  }
  psoc_plat_cond_destroy(&r->cv);
  psoc_plat_mutex_destroy(&r->mu);
  reload_free(r);
}

psoc_status psol_reload_poll(psol_reload *r, psol_reload_events *out) {
  if (!out) return PSOC_ERR_ARG;
  out->events = NULL;
  out->count = 0;
  if (!r) return PSOC_ERR_ARG;
  psoc_plat_mutex_lock(&r->mu);
  out->events = r->queue;
  out->count = r->nqueue;
  r->queue = NULL;
  r->nqueue = 0;
  r->capqueue = 0;
  psoc_plat_mutex_unlock(&r->mu);
  return PSOC_OK;
}

void psol_reload_events_free(psol_reload_events *ev) {
  size_t i;
  if (!ev) return;
  for (i = 0; i < ev->count; i++) event_free(&ev->events[i]);
  free(ev->events);
  ev->events = NULL;
  ev->count = 0;
}

int psol_reload_wait(psol_reload *r, uint32_t timeout_ms) {
  uint64_t deadline = psoc_plat_now_ns() + (uint64_t)timeout_ms * 1000000u;
  int pending;
  psoc_plat_mutex_lock(&r->mu);
  while (!r->nqueue && psoc_plat_now_ns() < deadline)
    psoc_plat_cond_wait_until(&r->cv, &r->mu, deadline);
  pending = r->nqueue > 0;
  psoc_plat_mutex_unlock(&r->mu);
  return pending;
}

int psol_reload_wait_batches(psol_reload *r, uint64_t batches, uint32_t timeout_ms) {
  uint64_t deadline = psoc_plat_now_ns() + (uint64_t)timeout_ms * 1000000u;
  int reached;
  psoc_plat_mutex_lock(&r->mu);
  while (r->stats.batches < batches && psoc_plat_now_ns() < deadline)
    psoc_plat_cond_wait_until(&r->cv, &r->mu, deadline);
  reached = r->stats.batches >= batches;
  psoc_plat_mutex_unlock(&r->mu);
  return reached;
}

int psol_reload_sync(psol_reload *r, uint32_t timeout_ms) {
  uint64_t deadline = psoc_plat_now_ns() + (uint64_t)timeout_ms * 1000000u, want;
  int done;
  if (!r) return 0;
  if (r->mode == PSOL_RELOAD_WATCH_NONE) return psol_reload_update(r) == PSOC_OK;
  psoc_plat_mutex_lock(&r->mu);
  want = ++r->sync_req;
  psoc_plat_mutex_unlock(&r->mu);
  psoc_plat_watch_wake(r->watch);
  psoc_plat_mutex_lock(&r->mu);
  while (r->sync_done < want && psoc_plat_now_ns() < deadline)
    psoc_plat_cond_wait_until(&r->cv, &r->mu, deadline);
  done = r->sync_done >= want;
  psoc_plat_mutex_unlock(&r->mu);
  return done;
}

void psol_reload_notify(psol_reload *r, const char *path) {
  char canon[PSOC_PLAT_PATH_MAX], dir[PSOC_PLAT_PATH_MAX];
  const char *p = path;
  if (!r || !path) return;
  /* a deleted file has no real path: resolve its folder */
  if (psoc_plat_realpath(path, canon) == 0) {
    p = canon;
  } else {
    const char *slash = strrchr(path, '/');
    dir_of(path, dir);
    if (psoc_plat_realpath(dir, canon) == 0) {
      size_t n = strlen(canon);
      if ((size_t)snprintf(canon + n, sizeof canon - n, "/%s", slash ? slash + 1 : path) <
          sizeof canon - n)
        p = canon;
    }
  }
  psoc_plat_mutex_lock(&r->mu);
  strlist_add(&r->notified, p); /* out of memory: the change is lost, as a watcher's would be */
  psoc_plat_mutex_unlock(&r->mu);
  if (r->watch) psoc_plat_watch_wake(r->watch);
}

void psol_reload_rescan(psol_reload *r) {
  if (!r) return;
  psoc_plat_mutex_lock(&r->mu);
  r->rescan = 1;
  psoc_plat_mutex_unlock(&r->mu);
  if (r->watch) psoc_plat_watch_wake(r->watch);
}

psoc_status psol_reload_update(psol_reload *r) {
  int rescan;
  if (!r || r->mode != PSOL_RELOAD_WATCH_NONE) return PSOC_ERR_ARG;
  rescan = take_requests(r);
  if (rescan || r->changed.n) run_batch(r, rescan);
  if (r->nomem) {
    r->nomem = 0;
    return PSOC_ERR_NOMEM;
  }
  return PSOC_OK;
}

void psol_reload_stats_get(psol_reload *r, psol_reload_stats *out) {
  if (!r || !out) return;
  psoc_plat_mutex_lock(&r->mu);
  *out = r->stats;
  psoc_plat_mutex_unlock(&r->mu);
}
