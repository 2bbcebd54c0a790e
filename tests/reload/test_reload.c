/*
** test_reload.c: the hot-reload library (psol_reload.h) against real files
** in a temporary folder: edits, editor-style saves, renames, deletes,
** broken-then-fixed, modules and shaders shared by several materials,
** bursts of files, both watcher backends (inotify and polling), the
** manual mode, 10,000 reload cycles (leaks: the sanitize build) and the
** threading contract (the tsan build).
**
** Every wait is bounded (WAIT_MS) and ends as soon as the awaited event or
** batch arrives; nothing sleeps.
**
**   PSOC_RELOAD_CYCLES  cycles of the leak test (default 10000)
*/
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "psol_reload.h"
#include "rm_tree.h"

#define WAIT_MS 10000u

/* ---- files ------------------------------------------------------------------- */

typedef struct tdir {
  char path[512];
} tdir;

static void tdir_make(tdir *d) {
  const char *base = getenv("TMPDIR");
  static unsigned serial;
  if (!base || !*base) base = "/tmp";
  snprintf(d->path, sizeof d->path, "%s/psoc_reload_%llu_%u", base,
           (unsigned long long)psoc_plat_now_ns(), serial++);
  ck_assert_int_eq(psoc_plat_mkdir(d->path), 0);
}

static void pathf(char *out, size_t n, const tdir *d, const char *name) {
  snprintf(out, n, "%s/%s", d->path, name);
}

/* Truncate, then write (what most programs do). */
static void put(const tdir *d, const char *name, const char *text) {
  char p[1024];
  FILE *f;
  pathf(p, sizeof p, d, name);
  f = fopen(p, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fwrite(text, 1, strlen(text), f), strlen(text));
  ck_assert_int_eq(fclose(f), 0);
}

/* Overwrite in place, same length (no truncation). */
static void put_inplace(const tdir *d, const char *name, const char *text) {
  char p[1024];
  FILE *f;
  pathf(p, sizeof p, d, name);
  f = fopen(p, "r+b");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fwrite(text, 1, strlen(text), f), strlen(text));
  ck_assert_int_eq(fclose(f), 0);
}

/* An editor's atomic save: write a temporary file, rename it over. */
static void put_atomic(const tdir *d, const char *name, const char *text) {
  char tmp[1100], p[1024];
  snprintf(tmp, sizeof tmp, "%s.swp~", name);
  put(d, tmp, text);
  pathf(tmp, sizeof tmp, d, name);
  strcat(tmp, ".swp~");
  pathf(p, sizeof p, d, name);
  ck_assert_int_eq(rename(tmp, p), 0);
}

static void del(const tdir *d, const char *name) {
  char p[1024];
  pathf(p, sizeof p, d, name);
  ck_assert_int_eq(remove(p), 0);
}

static void mv(const tdir *d, const char *from, const char *to) {
  char a[1024], b[1024];
  pathf(a, sizeof a, d, from);
  pathf(b, sizeof b, d, to);
  ck_assert_int_eq(rename(a, b), 0);
}

static void mkdir_in(const tdir *d, const char *name) {
  char p[1024];
  pathf(p, sizeof p, d, name);
  ck_assert_int_eq(psoc_plat_mkdir(p), 0);
}

/* A material: one graphics pipeline named 'name', its VS from 'vs', a
** comment 'tag' (to change the bytes without changing the pipeline) and a
** sample count (to change the pipeline: 1 or 4). */
static void material_by(void (*write)(const tdir *, const char *, const char *), const tdir *d,
                        const char *file, const char *name, const char *vs, int samples) {
  char text[1024];
  snprintf(text, sizeof text,
           "local pso = require \"pso\"\n"
           "return pso.graphics { name = \"%s\", vs = pso.shader \"%s\",\n"
           "  render_targets = { \"R8G8B8A8_UNORM\" }, sample_desc = { count = %d } }\n",
           name, vs, samples);
  write(d, file, text);
}

static void material(const tdir *d, const char *file, const char *name, const char *vs,
                     int samples) {
  material_by(put, d, file, name, vs, samples);
}

/* The same, saved the way an editor saves atomically (put_atomic). */
static void material_atomic(const tdir *d, const char *file, const char *name, const char *vs,
                            int samples) {
  material_by(put_atomic, d, file, name, vs, samples);
}

/* ---- events -------------------------------------------------------------------- */

typedef struct rec {
  psol_reload_kind kind;
  char script[256]; /* base name */
  char pipeline[128];
  uint64_t version;
  psoc_hash128 hash;
  size_t stream_size;
  char error[1024];
  size_t diagnostic_count;
  int diag_line;
  char diag_file[256];
  psoc_code diag_code;
} rec;

typedef struct tctx {
  psol_reload *r;
  tdir dir;
  rec *recs;
  size_t n, cap, from;
} tctx;

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

static void drain(tctx *t) {
  psol_reload_events ev;
  size_t i;
  ck_assert_int_eq(psol_reload_poll(t->r, &ev), PSOC_OK);
  for (i = 0; i < ev.count; i++) {
    const psol_reload_event *e = &ev.events[i];
    rec *r;
    if (t->n == t->cap) {
      t->cap = t->cap ? t->cap * 2 : 64;
      t->recs = (rec *)realloc(t->recs, t->cap * sizeof *t->recs);
      ck_assert_ptr_nonnull(t->recs);
    }
    r = &t->recs[t->n++];
    memset(r, 0, sizeof *r);
    r->kind = e->kind;
    ck_assert_ptr_nonnull(e->script);
    snprintf(r->script, sizeof r->script, "%s", base_name(e->script));
    if (e->kind == PSOL_RELOAD_CHANGED || e->kind == PSOL_RELOAD_REMOVED) {
      ck_assert_ptr_nonnull(e->pipeline);
      snprintf(r->pipeline, sizeof r->pipeline, "%s", e->pipeline);
      ck_assert_uint_ge(e->version, 1);
    }
    if (e->kind == PSOL_RELOAD_CHANGED) {
      ck_assert_ptr_nonnull(e->stream);
      r->stream_size = psoc_stream_size(e->stream);
      ck_assert_uint_gt(r->stream_size, 0);
    } else {
      ck_assert_ptr_null(e->stream);
    }
    if (e->kind == PSOL_RELOAD_FAILED) {
      ck_assert_ptr_nonnull(e->error);
      snprintf(r->error, sizeof r->error, "%s", e->error);
    }
    r->version = e->version;
    r->hash = e->hash;
    r->diagnostic_count = e->diagnostic_count;
    if (e->diagnostic_count) {
      size_t k;
      for (k = 0; k < e->diagnostic_count; k++)
        if (e->diagnostics[k].severity == PSOC_SEVERITY_ERROR) break;
      if (k == e->diagnostic_count) k = 0;
      r->diag_line = e->diagnostics[k].line;
      r->diag_code = e->diagnostics[k].code;
      if (e->diagnostics[k].file)
        snprintf(r->diag_file, sizeof r->diag_file, "%s", base_name(e->diagnostics[k].file));
    }
  }
  psol_reload_events_free(&ev);
}

/* Only events after this point count for find/wait_event. */
static void mark(tctx *t) {
  drain(t);
  t->from = t->n;
}

static const rec *find(tctx *t, psol_reload_kind kind, const char *name) {
  size_t i;
  for (i = t->from; i < t->n; i++) {
    const rec *r = &t->recs[i];
    if (r->kind != kind) continue;
    if (kind == PSOL_RELOAD_CHANGED || kind == PSOL_RELOAD_REMOVED) {
      if (strcmp(r->pipeline, name) == 0) return r;
    } else if (strcmp(r->script, name) == 0) {
      return r;
    }
  }
  return NULL;
}

static size_t count_kind(tctx *t, psol_reload_kind kind) {
  size_t i, c = 0;
  for (i = t->from; i < t->n; i++) c += t->recs[i].kind == kind;
  return c;
}

/* Wait (bounded) for an event of 'kind' about 'name' (a pipeline for
** CHANGED/REMOVED, a script's base name for FAILED/RECOVERED). */
static const rec *wait_event(tctx *t, psol_reload_kind kind, const char *name) {
  uint64_t deadline = psoc_plat_now_ns() + (uint64_t)WAIT_MS * 1000000u;
  for (;;) {
    const rec *r;
    drain(t);
    if ((r = find(t, kind, name)) != NULL) return r;
    if (psoc_plat_now_ns() >= deadline) break;
    psol_reload_wait(t->r, 100);
  }
  {
    /* say what did come */
    size_t i;
    fprintf(stderr, "events %zu..%zu\n", t->from, t->n);
    for (i = t->from; i < t->n; i++)
      fprintf(stderr, "  event %d %s %s v%llu %s\n", (int)t->recs[i].kind, t->recs[i].script,
              t->recs[i].pipeline, (unsigned long long)t->recs[i].version, t->recs[i].error);
  }
  ck_abort_msg("no %s event for '%s' within %u ms",
               kind == PSOL_RELOAD_CHANGED   ? "CHANGED"
               : kind == PSOL_RELOAD_REMOVED ? "REMOVED"
               : kind == PSOL_RELOAD_FAILED  ? "FAILED"
                                             : "RECOVERED",
               name, WAIT_MS);
  return NULL;
}

static void stats(tctx *t, psol_reload_stats *s) { psol_reload_stats_get(t->r, s); }

/* Wait until every change made so far has been handled. */
static void sync(tctx *t) { ck_assert_msg(psol_reload_sync(t->r, WAIT_MS), "no sync"); }

static const psol_reload_watch BACKENDS[] = { PSOL_RELOAD_WATCH_NATIVE, PSOL_RELOAD_WATCH_POLL };

static void start(tctx *t, psol_reload_watch watch, uint64_t instruction_limit) {
  psol_reload_options o;
  const char *paths[1];
  char err[512];
  memset(&o, 0, sizeof o);
  paths[0] = t->dir.path;
  o.paths = paths;
  o.path_count = 1;
  o.watch = watch;
  o.poll_ms = 10;
  o.eval.instruction_limit = instruction_limit;
  t->r = psol_reload_create(&o, err, sizeof err);
  ck_assert_msg(t->r != NULL, "create: %s", err);
  /* the first load is one batch */
  ck_assert(psol_reload_wait_batches(t->r, 1, WAIT_MS));
}

static void setup_dir(tctx *t) {
  memset(t, 0, sizeof *t);
  tdir_make(&t->dir);
}

static void finish(tctx *t) {
  psol_reload_destroy(t->r);
  rm_tree(t->dir.path);
  free(t->recs);
}

/* ---- tests ----------------------------------------------------------------------- */

/* First load, an edit, an atomic save, a touch that changes nothing. */
START_TEST(test_edit_save_touch) {
  tctx t;
  const rec *e;
  psol_reload_stats s0, s1;
  psoc_hash128 h1;
  setup_dir(&t);
  put(&t.dir, "s.vs", "vs-1");
  material(&t.dir, "a.lua", "a", "s.vs", 1);
  material(&t.dir, "b.lua", "b", "s.vs", 1);
  start(&t, BACKENDS[_i], 0);
  e = wait_event(&t, PSOL_RELOAD_CHANGED, "a");
  ck_assert_uint_eq(e->version, 1);
  ck_assert_str_eq(e->script, "a.lua");
  h1 = e->hash;
  wait_event(&t, PSOL_RELOAD_CHANGED, "b");

  /* truncate-then-write edit: a new stream, version 2 */
  mark(&t);
  stats(&t, &s0);
  material(&t.dir, "a.lua", "a", "s.vs", 4);
  e = wait_event(&t, PSOL_RELOAD_CHANGED, "a");
  ck_assert_uint_eq(e->version, 2);
  ck_assert(e->hash.lo != h1.lo || e->hash.hi != h1.hi);
  ck_assert_ptr_null(find(&t, PSOL_RELOAD_CHANGED, "b")); /* b did not change */

  /* editor-style atomic save: exactly one more evaluation */
  mark(&t);
  stats(&t, &s0);
  {
    char text[1024];
    snprintf(text, sizeof text,
             "local pso = require \"pso\"\n-- saved by an editor\n"
             "return pso.graphics { name = \"a\", vs = pso.shader \"s.vs\",\n"
             "  render_targets = { \"R8G8B8A8_UNORM\" }, sample_desc = { count = 2 } }\n");
    put_atomic(&t.dir, "a.lua", text);
  }
  e = wait_event(&t, PSOL_RELOAD_CHANGED, "a");
  ck_assert_uint_eq(e->version, 3);
  sync(&t);
  stats(&t, &s1);
  ck_assert_uint_eq(s1.evaluations - s0.evaluations, 1);

  /* the same bytes again (a touch): a batch, no evaluation, no event */
  mark(&t);
  stats(&t, &s0);
  {
    /* a pure touch: the same bytes written over in place */
    char text[1024];
    snprintf(text, sizeof text,
             "local pso = require \"pso\"\n"
             "return pso.graphics { name = \"%s\", vs = pso.shader \"%s\",\n"
             "  render_targets = { \"R8G8B8A8_UNORM\" }, sample_desc = { count = %d } }\n",
             "b", "s.vs", 1);
    put_inplace(&t.dir, "b.lua", text);
  }
  sync(&t);
  stats(&t, &s1);
  drain(&t);
  ck_assert_uint_eq(s1.evaluations, s0.evaluations);
  ck_assert_uint_eq(t.n, t.from);
  finish(&t);
}
END_TEST

/* Last good wins: syntax error, check error, runaway, missing shader,
** deleted script; each fixed again. The edits are atomic saves, so each
** evaluation sees a whole file: a truncating save can be caught between
** its truncation and its write by the poll backend on a loaded machine,
** which fails that evaluation for an empty script (then recovers on the
** write) and so reports an error other than the one this test expects.
** Truncating saves are test_edit_save_touch's. */
START_TEST(test_last_good_wins) {
  tctx t;
  const rec *e;
  setup_dir(&t);
  put(&t.dir, "s.vs", "vs-1");
  material(&t.dir, "a.lua", "a", "s.vs", 1);
  start(&t, BACKENDS[_i], 200000);
  wait_event(&t, PSOL_RELOAD_CHANGED, "a");

  /* syntax error on line 2 */
  mark(&t);
  put_atomic(&t.dir, "a.lua", "local pso = require \"pso\"\nreturn pso.graphics { name = = 1 }\n");
  e = wait_event(&t, PSOL_RELOAD_FAILED, "a.lua");
  ck_assert_msg(strstr(e->error, "a.lua:2") != NULL, "%s", e->error);
  /* every diagnostic as data: the error's file and line */
  ck_assert_uint_gt(e->diagnostic_count, 0);
  ck_assert_int_eq(e->diag_line, 2);
  ck_assert_str_eq(e->diag_file, "a.lua");
  ck_assert_int_eq(e->diag_code, PSOC_CODE_SCRIPT);
  ck_assert_ptr_null(find(&t, PSOL_RELOAD_CHANGED, "a"));
  ck_assert_ptr_null(find(&t, PSOL_RELOAD_REMOVED, "a"));
  /* fixed: back, with the same stream as before (no CHANGED) */
  mark(&t);
  material_atomic(&t.dir, "a.lua", "a", "s.vs", 1);
  wait_event(&t, PSOL_RELOAD_RECOVERED, "a.lua");
  ck_assert_ptr_null(find(&t, PSOL_RELOAD_CHANGED, "a"));

  /* a check error: SampleDesc.Count 3 */
  mark(&t);
  material_atomic(&t.dir, "a.lua", "a", "s.vs", 3);
  e = wait_event(&t, PSOL_RELOAD_FAILED, "a.lua");
  ck_assert_msg(strstr(e->error, "a.lua:2") && strstr(e->error, "sample_desc"), "%s", e->error);
  ck_assert_uint_gt(e->diagnostic_count, 0);
  ck_assert_int_eq(e->diag_line, 2);
  ck_assert_int_eq(e->diag_code, PSOC_CODE_SAMPLE_DESC);
  ck_assert_ptr_null(find(&t, PSOL_RELOAD_CHANGED, "a"));
  mark(&t);
  material_atomic(&t.dir, "a.lua", "a", "s.vs", 4);
  wait_event(&t, PSOL_RELOAD_RECOVERED, "a.lua");
  ck_assert_uint_eq(wait_event(&t, PSOL_RELOAD_CHANGED, "a")->version, 2);

  /* a runaway script stops at its budget */
  mark(&t);
  put_atomic(&t.dir, "a.lua", "local pso = require \"pso\"\nwhile true do end\n");
  e = wait_event(&t, PSOL_RELOAD_FAILED, "a.lua");
  ck_assert_msg(strstr(e->error, "a.lua:2") != NULL, "%s", e->error);
  ck_assert_uint_gt(e->diagnostic_count, 0);
  ck_assert_int_eq(e->diag_code, PSOC_CODE_LIMIT);
  mark(&t);
  material_atomic(&t.dir, "a.lua", "a", "s.vs", 4);
  wait_event(&t, PSOL_RELOAD_RECOVERED, "a.lua");

  /* the shader deleted, then recreated with other bytes */
  mark(&t);
  del(&t.dir, "s.vs");
  e = wait_event(&t, PSOL_RELOAD_FAILED, "a.lua");
  ck_assert_msg(strstr(e->error, "s.vs") != NULL, "%s", e->error);
  ck_assert_int_eq(e->diag_code, PSOC_CODE_FILE);
  mark(&t);
  put_atomic(&t.dir, "s.vs", "vs-2");
  wait_event(&t, PSOL_RELOAD_RECOVERED, "a.lua");
  ck_assert_uint_eq(wait_event(&t, PSOL_RELOAD_CHANGED, "a")->version, 3);

  /* the script deleted, then recreated */
  mark(&t);
  del(&t.dir, "a.lua");
  wait_event(&t, PSOL_RELOAD_FAILED, "a.lua");
  ck_assert_ptr_null(find(&t, PSOL_RELOAD_REMOVED, "a"));
  mark(&t);
  material_atomic(&t.dir, "a.lua", "a", "s.vs", 1);
  wait_event(&t, PSOL_RELOAD_RECOVERED, "a.lua");
  ck_assert_uint_eq(wait_event(&t, PSOL_RELOAD_CHANGED, "a")->version, 4);
  finish(&t);
}
END_TEST

/* A pipeline a script stops returning is REMOVED; back again, it goes on
** counting versions. New scripts in the folder are picked up. */
START_TEST(test_removed_and_new) {
  tctx t;
  const rec *e;
  static const char two[] =
    "local pso = require \"pso\"\n"
    "local a = pso.graphics { name = \"p1\", vs = pso.shader \"s.vs\" }\n"
    "return { a, pso.derive(a, { name = \"p2\", sample_desc = { count = 4 } }) }\n";
  static const char one[] =
    "local pso = require \"pso\"\n"
    "return { pso.graphics { name = \"p1\", vs = pso.shader \"s.vs\" } }\n";
  setup_dir(&t);
  put(&t.dir, "s.vs", "vs");
  put(&t.dir, "m.lua", two);
  start(&t, BACKENDS[_i], 0);
  wait_event(&t, PSOL_RELOAD_CHANGED, "p1");
  wait_event(&t, PSOL_RELOAD_CHANGED, "p2");
  mark(&t);
  put(&t.dir, "m.lua", one);
  e = wait_event(&t, PSOL_RELOAD_REMOVED, "p2");
  ck_assert_uint_eq(e->version, 1);
  ck_assert_ptr_null(find(&t, PSOL_RELOAD_CHANGED, "p1"));
  mark(&t);
  put(&t.dir, "m.lua", two);
  ck_assert_uint_eq(wait_event(&t, PSOL_RELOAD_CHANGED, "p2")->version, 2);

  /* a new script, and a new subfolder with one */
  mark(&t);
  material(&t.dir, "n.lua", "n", "s.vs", 1);
  ck_assert_uint_eq(wait_event(&t, PSOL_RELOAD_CHANGED, "n")->version, 1);
  mkdir_in(&t.dir, "sub");
  material(&t.dir, "sub/deep.lua", "deep", "../s.vs", 1);
  wait_event(&t, PSOL_RELOAD_CHANGED, "deep");
  /* *_test.lua and hidden files are not materials */
  mark(&t);
  material(&t.dir, "x_test.lua", "x_test", "s.vs", 1);
  material(&t.dir, ".hidden.lua", "hidden", "s.vs", 1);
  material(&t.dir, "z.lua", "z", "s.vs", 1);
  wait_event(&t, PSOL_RELOAD_CHANGED, "z");
  ck_assert_ptr_null(find(&t, PSOL_RELOAD_CHANGED, "x_test"));
  ck_assert_ptr_null(find(&t, PSOL_RELOAD_CHANGED, "hidden"));
  finish(&t);
}
END_TEST

/* A module and a shader shared by some materials: a change re-evaluates
** exactly the scripts that read it; renaming it away and back. */
START_TEST(test_shared_module_and_shader) {
  tctx t;
  psol_reload_stats s0, s1;
  int i;
  char name[32], file[32];
  setup_dir(&t);
  mkdir_in(&t.dir, "lib");
  put(&t.dir, "lib/util.lua", "return { count = 1 }\n");
  put(&t.dir, "shared.vs", "shared-1");
  put(&t.dir, "own.vs", "own");
  for (i = 0; i < 10; i++) {
    char text[1024];
    snprintf(name, sizeof name, "m%d", i);
    snprintf(file, sizeof file, "m%d.lua", i);
    /* m0..m3 use the shared shader, m0 and m5 the module */
    snprintf(text, sizeof text,
             "local pso = require \"pso\"\n%s"
             "return pso.graphics { name = \"%s\", vs = pso.shader \"%s\",\n"
             "  sample_desc = { count = %s } }\n",
             i == 0 || i == 5 ? "local u = require \"lib.util\"\n" : "", name,
             i < 4 ? "shared.vs" : "own.vs", i == 0 || i == 5 ? "u.count" : "1");
    put(&t.dir, file, text);
  }
  start(&t, BACKENDS[_i], 0);
  for (i = 0; i < 10; i++) {
    snprintf(name, sizeof name, "m%d", i);
    wait_event(&t, PSOL_RELOAD_CHANGED, name);
  }

  /* the shared shader: m0..m3, and nothing else */
  mark(&t);
  stats(&t, &s0);
  put(&t.dir, "shared.vs", "shared-2");
  for (i = 0; i < 4; i++) {
    snprintf(name, sizeof name, "m%d", i);
    ck_assert_uint_eq(wait_event(&t, PSOL_RELOAD_CHANGED, name)->version, 2);
  }
  sync(&t);
  stats(&t, &s1);
  ck_assert_uint_eq(s1.evaluations - s0.evaluations, 4);
  drain(&t);
  ck_assert_uint_eq(count_kind(&t, PSOL_RELOAD_CHANGED), 4);

  /* the module: m0, m5 and lib/util.lua itself (a script of the folder
  ** that returns no pipeline) */
  mark(&t);
  stats(&t, &s0);
  put_atomic(&t.dir, "lib/util.lua", "return { count = 4 }\n");
  wait_event(&t, PSOL_RELOAD_CHANGED, "m0");
  wait_event(&t, PSOL_RELOAD_CHANGED, "m5");
  sync(&t);
  stats(&t, &s1);
  ck_assert_uint_eq(s1.evaluations - s0.evaluations, 3);
  drain(&t);
  ck_assert_uint_eq(count_kind(&t, PSOL_RELOAD_CHANGED), 2);

  /* the module renamed away: its users fail (and keep their pipelines);
  ** renamed back: they recover */
  mark(&t);
  mv(&t.dir, "lib/util.lua", "lib/util.old");
  wait_event(&t, PSOL_RELOAD_FAILED, "m0.lua");
  wait_event(&t, PSOL_RELOAD_FAILED, "m5.lua");
  ck_assert_ptr_null(find(&t, PSOL_RELOAD_FAILED, "m1.lua"));
  mark(&t);
  mv(&t.dir, "lib/util.old", "lib/util.lua");
  wait_event(&t, PSOL_RELOAD_RECOVERED, "m0.lua");
  wait_event(&t, PSOL_RELOAD_RECOVERED, "m5.lua");
  ck_assert_ptr_null(find(&t, PSOL_RELOAD_CHANGED, "m0"));

  /* the shader renamed away and back */
  mark(&t);
  mv(&t.dir, "own.vs", "own.tmp");
  wait_event(&t, PSOL_RELOAD_FAILED, "m9.lua");
  mark(&t);
  mv(&t.dir, "own.tmp", "own.vs");
  wait_event(&t, PSOL_RELOAD_RECOVERED, "m9.lua");
  finish(&t);
}
END_TEST

/* Many files changed at once: every one arrives, each evaluated. */
START_TEST(test_many_at_once) {
  tctx t;
  int i;
  char name[32], file[32];
  setup_dir(&t);
  put(&t.dir, "s.vs", "vs");
  for (i = 0; i < 30; i++) {
    snprintf(name, sizeof name, "p%d", i);
    snprintf(file, sizeof file, "p%d.lua", i);
    material(&t.dir, file, name, "s.vs", 1);
  }
  start(&t, BACKENDS[_i], 0);
  for (i = 0; i < 30; i++) {
    snprintf(name, sizeof name, "p%d", i);
    wait_event(&t, PSOL_RELOAD_CHANGED, name);
  }
  mark(&t);
  for (i = 0; i < 30; i++) {
    snprintf(name, sizeof name, "p%d", i);
    snprintf(file, sizeof file, "p%d.lua", i);
    material(&t.dir, file, name, "s.vs", 4);
  }
  for (i = 0; i < 30; i++) {
    snprintf(name, sizeof name, "p%d", i);
    ck_assert_uint_eq(wait_event(&t, PSOL_RELOAD_CHANGED, name)->version, 2);
  }
  finish(&t);
}
END_TEST

/* Manual mode: no thread; notify + update; a pipeline changed twice
** between polls is one event with the latest version. */
START_TEST(test_manual_mode) {
  tctx t;
  char p[1024];
  const rec *e;
  psol_reload_stats s;
  setup_dir(&t);
  put(&t.dir, "s.vs", "vs");
  material(&t.dir, "a.lua", "a", "s.vs", 1);
  start(&t, PSOL_RELOAD_WATCH_NONE, 0);
  stats(&t, &s);
  ck_assert_int_eq(s.backend, PSOL_RELOAD_WATCH_NONE);
  ck_assert_uint_eq(wait_event(&t, PSOL_RELOAD_CHANGED, "a")->version, 1);
  mark(&t);
  pathf(p, sizeof p, &t.dir, "a.lua");
  material(&t.dir, "a.lua", "a", "s.vs", 4);
  /* nothing happens until update */
  drain(&t);
  ck_assert_uint_eq(t.n, t.from);
  psol_reload_notify(t.r, p);
  ck_assert_int_eq(psol_reload_update(t.r), PSOC_OK);
  material(&t.dir, "a.lua", "a", "s.vs", 2);
  psol_reload_rescan(t.r);
  ck_assert_int_eq(psol_reload_update(t.r), PSOC_OK);
  drain(&t);
  ck_assert_uint_eq(count_kind(&t, PSOL_RELOAD_CHANGED), 1);
  e = find(&t, PSOL_RELOAD_CHANGED, "a");
  ck_assert_uint_eq(e->version, 3);
  /* a notify of a path nobody depends on evaluates nothing */
  stats(&t, &s);
  pathf(p, sizeof p, &t.dir, "unrelated.txt");
  psol_reload_notify(t.r, p);
  ck_assert_int_eq(psol_reload_update(t.r), PSOC_OK);
  {
    psol_reload_stats s2;
    stats(&t, &s2);
    ck_assert_uint_eq(s2.evaluations, s.evaluations);
  }
  finish(&t);
}
END_TEST

/* A watched folder reported by itself (what the watchers do when their
** notifications are lost: inotify's queue or the Windows read buffer
** overflowed) looks again at every script and dependency directly in it:
** the folder of the material tree itself, and a shader folder below it. */
START_TEST(test_folder_reported_itself) {
  tctx t;
  const rec *e;
  char sub[1024];
  setup_dir(&t);
  mkdir_in(&t.dir, "sh");
  put(&t.dir, "sh/s.vs", "vs");
  material(&t.dir, "a.lua", "a", "sh/s.vs", 1);
  start(&t, PSOL_RELOAD_WATCH_NONE, 0);
  ck_assert_uint_eq(wait_event(&t, PSOL_RELOAD_CHANGED, "a")->version, 1);
  mark(&t);
  material(&t.dir, "a.lua", "a", "sh/s.vs", 4);
  material(&t.dir, "b.lua", "b", "sh/s.vs", 1); /* new while notifications were lost */
  psol_reload_notify(t.r, t.dir.path);
  ck_assert_int_eq(psol_reload_update(t.r), PSOC_OK);
  drain(&t);
  e = find(&t, PSOL_RELOAD_CHANGED, "a");
  ck_assert_ptr_nonnull(e);
  ck_assert_uint_eq(e->version, 2);
  e = find(&t, PSOL_RELOAD_CHANGED, "b");
  ck_assert_ptr_nonnull(e);
  ck_assert_uint_eq(e->version, 1);
  /* the shader's folder: both materials read it */
  mark(&t);
  put(&t.dir, "sh/s.vs", "vs2");
  pathf(sub, sizeof sub, &t.dir, "sh");
  psol_reload_notify(t.r, sub);
  ck_assert_int_eq(psol_reload_update(t.r), PSOC_OK);
  drain(&t);
  ck_assert_uint_eq(count_kind(&t, PSOL_RELOAD_CHANGED), 2);
  finish(&t);
}
END_TEST

/* A virtual file system: the engine's read_file hook has the files (none
** exist on disk); it notifies changes; hashes come from the hook. */
typedef struct vfs_file {
  const char *path;
  char text[512];
  int present;
} vfs_file;

typedef struct vfs {
  vfs_file files[3];
  int reads, releases;
} vfs;

static void vfs_release(void *ud, const void *data) {
  vfs *v = (vfs *)ud;
  (void)data;
  v->releases++;
}

static int vfs_read(void *ud, const char *path, psol_bytes *out) {
  vfs *v = (vfs *)ud;
  size_t i;
  for (i = 0; i < 3; i++) {
    if (v->files[i].present && strcmp(v->files[i].path, path) == 0) {
      out->data = v->files[i].text;
      out->size = strlen(v->files[i].text);
      out->release = vfs_release;
      v->reads++;
      return 0;
    }
  }
  return 1;
}

START_TEST(test_virtual_files) {
  psol_reload_options o;
  const char *paths[] = { "/psoc-vfs/m/a.lua" };
  const char *roots[] = { "/psoc-vfs/m" };
  char err[512];
  psol_reload_stats s0, s1;
  tctx t;
  const rec *e;
  vfs v;
  memset(&v, 0, sizeof v);
  memset(&t, 0, sizeof t);
  v.files[0].path = "/psoc-vfs/m/a.lua";
  snprintf(v.files[0].text, sizeof v.files[0].text, "%s",
           "local pso = require 'pso'\nlocal c = require 'common'\n"
           "return pso.graphics { name = 'a', vs = pso.shader 's.vs', sample_desc = c }\n");
  v.files[1].path = "/psoc-vfs/m/common.lua";
  snprintf(v.files[1].text, sizeof v.files[1].text, "%s", "return { count = 1 }\n");
  v.files[2].path = "/psoc-vfs/m/s.vs";
  snprintf(v.files[2].text, sizeof v.files[2].text, "%s", "vs-1");
  v.files[0].present = v.files[1].present = v.files[2].present = 1;
  memset(&o, 0, sizeof o);
  o.paths = paths;
  o.path_count = 1;
  o.watch = PSOL_RELOAD_WATCH_NONE;
  o.eval.roots = roots;
  o.eval.root_count = 1;
  o.eval.read_file = vfs_read;
  o.eval.read_file_ud = &v;
  t.r = psol_reload_create(&o, err, sizeof err);
  ck_assert_msg(t.r != NULL, "create: %s", err);
  ck_assert_uint_eq(wait_event(&t, PSOL_RELOAD_CHANGED, "a")->version, 1);
  ck_assert_int_gt(v.reads, 0);
  ck_assert_int_eq(v.reads, v.releases);

  /* the shader changes in memory: notified, evaluated again */
  mark(&t);
  snprintf(v.files[2].text, sizeof v.files[2].text, "%s", "vs-2");
  psol_reload_notify(t.r, "/psoc-vfs/m/s.vs");
  ck_assert_int_eq(psol_reload_update(t.r), PSOC_OK);
  ck_assert_uint_eq(wait_event(&t, PSOL_RELOAD_CHANGED, "a")->version, 2);
  /* a notify without a change: hashed through the hook, not evaluated */
  stats(&t, &s0);
  psol_reload_notify(t.r, "/psoc-vfs/m/common.lua");
  ck_assert_int_eq(psol_reload_update(t.r), PSOC_OK);
  stats(&t, &s1);
  ck_assert_uint_eq(s1.evaluations, s0.evaluations);
  ck_assert_uint_eq(s1.unchanged, s0.unchanged + 1);
  /* the module disappears: FAILED naming it; it comes back: RECOVERED */
  mark(&t);
  v.files[1].present = 0;
  psol_reload_notify(t.r, "/psoc-vfs/m/common.lua");
  ck_assert_int_eq(psol_reload_update(t.r), PSOC_OK);
  e = wait_event(&t, PSOL_RELOAD_FAILED, "a.lua");
  ck_assert_msg(strstr(e->error, "common") != NULL, "%s", e->error);
  mark(&t);
  v.files[1].present = 1;
  psol_reload_notify(t.r, "/psoc-vfs/m/common.lua");
  ck_assert_int_eq(psol_reload_update(t.r), PSOC_OK);
  wait_event(&t, PSOL_RELOAD_RECOVERED, "a.lua");
  psol_reload_destroy(t.r);
  ck_assert_int_eq(v.reads, v.releases);
  free(t.recs);
}
END_TEST

/* An engine's streams outlive the library; a stream can be taken. */
START_TEST(test_stream_lifetime) {
  tctx t;
  psol_reload_events ev;
  psoc_stream *kept = NULL;
  size_t i;
  setup_dir(&t);
  put(&t.dir, "s.vs", "vs");
  material(&t.dir, "a.lua", "a", "s.vs", 1);
  start(&t, PSOL_RELOAD_WATCH_NONE, 0);
  ck_assert_int_eq(psol_reload_poll(t.r, &ev), PSOC_OK);
  ck_assert_uint_eq(ev.count, 1);
  psol_reload_destroy(t.r);
  t.r = NULL;
  for (i = 0; i < ev.count; i++) {
    ck_assert(ev.events[i].kind == PSOL_RELOAD_CHANGED);
    ck_assert_uint_gt(psoc_stream_desc(ev.events[i].stream).SizeInBytes, 0);
    kept = ev.events[i].stream;
    ev.events[i].stream = NULL;
  }
  psol_reload_events_free(&ev);
  ck_assert_uint_gt(psoc_stream_size(kept), 0);
  psoc_stream_free(kept);
  rm_tree(t.dir.path);
  free(t.recs);
}
END_TEST

/* No leak and no growth over many reload cycles (LeakSanitizer in the
** sanitize build checks the end); the library is driven directly. */
START_TEST(test_many_cycles) {
  tctx t;
  char p[1024];
  long cycles = 10000, i;
  const char *env = getenv("PSOC_RELOAD_CYCLES");
  uint64_t version = 1;
  if (env && atol(env) > 0) cycles = atol(env);
  static const char text_1[] =
    "local pso = require 'pso'\nreturn pso.graphics { name = 'a', vs = pso.shader 's.vs',"
    " sample_desc = { count = 1 } }\n";
  static const char text_4[] =
    "local pso = require 'pso'\nreturn pso.graphics { name = 'a', vs = pso.shader 's.vs',"
    " sample_desc = { count = 4 } }\n";
  static const char text_broken[] =
    "local pso = require 'pso'\nreturn pso.graphics { name = 'a', vs = pso.shader 's.vs',"
    " sample_desc = { count = 4 } ]\n";
  setup_dir(&t);
  put(&t.dir, "s.vs", "vs");
  put(&t.dir, "a.lua", text_1);
  start(&t, PSOL_RELOAD_WATCH_NONE, 0);
  mark(&t); /* the first load's event */
  pathf(p, sizeof p, &t.dir, "a.lua");
  for (i = 0; i < cycles; i++) {
    psol_reload_events ev;
    int broken = i % 10 == 9;
    /* same length each time: overwritten in place (ext4 makes truncating
    ** a file cost milliseconds) */
    put_inplace(&t.dir, "a.lua", broken ? text_broken : i % 2 ? text_1 : text_4);
    psol_reload_notify(t.r, p);
    ck_assert_int_eq(psol_reload_update(t.r), PSOC_OK);
    ck_assert_int_eq(psol_reload_poll(t.r, &ev), PSOC_OK);
    ck_assert_uint_ge(ev.count, 1);
    if (!broken && ev.events[ev.count - 1].kind == PSOL_RELOAD_CHANGED) {
      ck_assert_uint_eq(ev.events[ev.count - 1].version, version + 1);
      version++;
    }
    psol_reload_events_free(&ev);
  }
  ck_assert_uint_gt(version, (uint64_t)cycles / 2);
  finish(&t);
}
END_TEST

/* The threading contract: the render thread polls, another thread asks
** for stats, rescans and notifies, the main thread edits; under TSan. */
typedef struct thread_ctx {
  psol_reload *r;
  psoc_plat_flag stop;
  uint64_t seen_version;  /* highest version of "a" seen by the poller */
  psoc_plat_mutex mu;
  int errors;
} thread_ctx;

static void poller(void *arg) {
  thread_ctx *c = (thread_ctx *)arg;
  while (!psoc_plat_flag_get(&c->stop)) {
    psol_reload_events ev;
    size_t i;
    psol_reload_wait(c->r, 20);
    if (psol_reload_poll(c->r, &ev) != PSOC_OK) c->errors++;
    for (i = 0; i < ev.count; i++) {
      const psol_reload_event *e = &ev.events[i];
      if (e->kind == PSOL_RELOAD_CHANGED && strcmp(e->pipeline, "a") == 0) {
        /* the stream is whole and readable on this thread */
        if (psoc_stream_size(e->stream) == 0) c->errors++;
        psoc_plat_mutex_lock(&c->mu);
        if (e->version > c->seen_version) c->seen_version = e->version;
        psoc_plat_mutex_unlock(&c->mu);
      }
    }
    psol_reload_events_free(&ev);
  }
}

static void meddler(void *arg) {
  thread_ctx *c = (thread_ctx *)arg;
  unsigned n = 0;
  while (!psoc_plat_flag_get(&c->stop)) {
    psol_reload_stats s;
    psol_reload_stats_get(c->r, &s);
    if (++n % 8 == 0) psol_reload_rescan(c->r);
    psol_reload_notify(c->r, "/nonexistent/psoc/reload/x.lua");
    psol_reload_wait_batches(c->r, s.batches + 1, 5);
  }
}

START_TEST(test_threads) {
  tctx t;
  thread_ctx c;
  psoc_plat_thread a, b;
  int i;
  setup_dir(&t);
  put(&t.dir, "s.vs", "vs");
  material(&t.dir, "a.lua", "a", "s.vs", 1);
  start(&t, BACKENDS[_i], 0);
  memset(&c, 0, sizeof c);
  c.r = t.r;
  ck_assert_int_eq(psoc_plat_mutex_init(&c.mu), 0);
  psoc_plat_flag_set(&c.stop, 0);
  ck_assert_int_eq(psoc_plat_thread_start(&a, poller, &c), 0);
  ck_assert_int_eq(psoc_plat_thread_start(&b, meddler, &c), 0);
  for (i = 2; i <= 12; i++) {
    uint64_t deadline = psoc_plat_now_ns() + (uint64_t)WAIT_MS * 1000000u, seen = 0;
    char text[512];
    snprintf(text, sizeof text,
             "local pso = require \"pso\"\n-- edit %d\n"
             "return pso.graphics { name = \"a\", vs = pso.shader \"s.vs\", "
             "sample_desc = { count = %d } }\n",
             i, i % 2 ? 1 : 4);
    put_atomic(&t.dir, "a.lua", text);
    while (psoc_plat_now_ns() < deadline) {
      psol_reload_stats s;
      psoc_plat_mutex_lock(&c.mu);
      seen = c.seen_version;
      psoc_plat_mutex_unlock(&c.mu);
      if (seen >= (uint64_t)i) break;
      psol_reload_stats_get(t.r, &s);
      psol_reload_wait_batches(t.r, s.batches + 1, 20);
    }
    ck_assert_msg(seen >= (uint64_t)i, "version %d not seen (got %llu)", i,
                  (unsigned long long)seen);
  }
  psoc_plat_flag_set(&c.stop, 1);
  psoc_plat_thread_join(&a);
  psoc_plat_thread_join(&b);
  ck_assert_int_eq(c.errors, 0);
  psoc_plat_mutex_destroy(&c.mu);
  finish(&t);
}
END_TEST

/* Bad arguments are errors, not crashes. */
START_TEST(test_bad_args) {
  char err[256];
  psol_reload_options o;
  const char *paths[] = { "/nonexistent/psoc/materials" };
  psol_reload_events ev;
  memset(&o, 0, sizeof o);
  o.paths = paths;
  o.path_count = 1;
  ck_assert_ptr_null(psol_reload_create(&o, err, sizeof err));
  ck_assert_msg(strstr(err, "/nonexistent/psoc/materials") != NULL, "%s", err);
  ck_assert_ptr_null(psol_reload_create(NULL, err, sizeof err));
  ck_assert_int_eq(psol_reload_poll(NULL, &ev), PSOC_ERR_ARG);
  ck_assert_uint_eq(ev.count, 0);
  ck_assert_int_eq(psol_reload_update(NULL), PSOC_ERR_ARG);
  psol_reload_destroy(NULL);
}
END_TEST

/* The platform watcher alone: both backends report a write, a rename and
** a delete in a watched folder; wake interrupts a wait. */
typedef struct seen_flags {
  int writing, done;
} seen_flags;

static void note_flags(void *ud, const char *path, int flags) {
  seen_flags *f = (seen_flags *)ud;
  if (!strstr(path, "/g.txt")) return;
  if (flags & PSOC_PLAT_WATCH_WRITING) f->writing++;
  else f->done++;
}

START_TEST(test_platform_watch) {
  psoc_plat_watch *w;
  tdir d;
  int got = 0, k;
  uint64_t t0;
  tdir_make(&d);
  ck_assert_int_eq(
    psoc_plat_watch_open(&w, _i == 0 ? PSOC_PLAT_WATCH_NATIVE : PSOC_PLAT_WATCH_POLL, 10), 0);
  ck_assert_int_eq(psoc_plat_watch_backend(w),
                   _i == 0 ? PSOC_PLAT_WATCH_NATIVE : PSOC_PLAT_WATCH_POLL);
  ck_assert_int_eq(psoc_plat_watch_add(w, d.path), 0);
  ck_assert_int_eq(psoc_plat_watch_add(w, d.path), 0); /* twice: a no-op */
  ck_assert_int_ne(psoc_plat_watch_add(w, "/nonexistent/psoc/dir"), 0);
  put(&d, "f.txt", "1");
  for (k = 0; k < 100 && got == 0; k++) got = psoc_plat_watch_wait(w, 100, NULL, NULL);
  ck_assert_int_gt(got, 0);
  /* wake: a wait returns at once with 0 */
  psoc_plat_watch_wake(w);
  t0 = psoc_plat_now_ns();
  ck_assert_int_eq(psoc_plat_watch_wait(w, 5000, NULL, NULL), 0);
  ck_assert_uint_lt(psoc_plat_now_ns() - t0, 2000000000u);
  /* a file being written: native sees it open (WRITING), then closed; the
  ** poll backend sees an empty, just-modified file as WRITING */
  {
    char p[1024];
    FILE *f;
    seen_flags sf;
    memset(&sf, 0, sizeof sf);
    pathf(p, sizeof p, &d, "g.txt");
    f = fopen(p, "wb");
    ck_assert_ptr_nonnull(f);
    if (_i == 0) {
      ck_assert_int_eq(fputs("partial", f) >= 0, 1);
      ck_assert_int_eq(fflush(f), 0);
    }
    for (k = 0; k < 100 && !sf.writing; k++) psoc_plat_watch_wait(w, 100, note_flags, &sf);
    ck_assert_int_gt(sf.writing, 0);
    ck_assert_int_eq(fclose(f), 0);
    if (_i == 0) {
      for (k = 0; k < 100 && !sf.done; k++) psoc_plat_watch_wait(w, 100, note_flags, &sf);
      ck_assert_int_gt(sf.done, 0); /* the close */
    }
  }
  psoc_plat_watch_close(w);
  rm_tree(d.path);
}
END_TEST

static Suite *reload_suite(void) {
  Suite *s = suite_create("reload");
  TCase *tc = tcase_create("files");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_edit_save_touch, 0, 2);
  tcase_add_loop_test(tc, test_last_good_wins, 0, 2);
  tcase_add_loop_test(tc, test_removed_and_new, 0, 2);
  tcase_add_loop_test(tc, test_shared_module_and_shader, 0, 2);
  tcase_add_loop_test(tc, test_many_at_once, 0, 2);
  tcase_add_test(tc, test_manual_mode);
  tcase_add_test(tc, test_folder_reported_itself);
  tcase_add_test(tc, test_stream_lifetime);
  tcase_add_test(tc, test_virtual_files);
  tcase_add_test(tc, test_many_cycles);
  tcase_add_loop_test(tc, test_threads, 0, 2);
  tcase_add_test(tc, test_bad_args);
  tcase_add_loop_test(tc, test_platform_watch, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(reload_suite());
  int failed;
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
