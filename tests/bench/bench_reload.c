/*
** bench_reload.c: hot reload (bindings/lua/psol_reload.h), measured.
**
**  1. Latency from a file write to the changed pipeline returned by
**     psol_reload_poll(), p50/p99/max over N edits (default 1,000), for
**     an in-place overwrite, an editor's atomic save (temporary file +
**     rename) and a truncate-then-write, with inotify; and for in-place
**     edits with the polling backend (fewer edits: each waits a scan).
**     The render thread's side is simulated: poll, wait when empty.
**  2. A library of 1,000 materials (50 share a module, 10 a shader): one
**     change re-evaluates only that script and what depends on it
**     (counted through psol_reload_stats), beside the reference an engine
**     has without the library: evaluating all 1,000 again (time ratio).
**
** Output: a table, then machine-readable "bench_reload NAME VALUE" lines.
** A benchmark, not a test: it asserts nothing about time.
**
**   make -C build config=release psoc_bench_reload
**   build/bin/psoc_bench_reload [--edits=N] [--library=N] [--quick]
**   valgrind --tool=callgrind build/bin/psoc_bench_reload --loop=N
**     (N reload cycles in manual mode, no clock: instructions per reload)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "psol_reload.h"
#include "../reload/rm_tree.h"

int bench_reload_main(int argc, char **argv);

static char g_dir[512];

static void path_in(char *out, size_t n, const char *name) {
  snprintf(out, n, "%s/%s", g_dir, name);
}

static int write_text(const char *name, const char *text, const char *mode) {
  char p[1024];
  FILE *f;
  path_in(p, sizeof p, name);
  if (!(f = fopen(p, mode))) return -1;
  fwrite(text, 1, strlen(text), f);
  return fclose(f);
}

static void material_text(char *out, size_t n, const char *name, const char *vs, int samples,
                          int uses_module) {
  snprintf(out, n,
           "local pso = require 'pso'\n%s"
           "return pso.graphics { name = '%s', vs = pso.shader '%s',\n"
           "  render_targets = { 'R8G8B8A8_UNORM' }, sample_desc = { count = %s } }\n",
           uses_module ? "local lib = require 'lib.shared'\n" : "", name, vs,
           uses_module ? "lib.samples" : samples == 1 ? "1" : "4");
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Wait (bounded: 5 s) until poll returns CHANGED for 'pipeline'. */
static int wait_changed(psol_reload *r, const char *pipeline) {
  uint64_t deadline = psoc_plat_now_ns() + 5000000000u;
  for (;;) {
    psol_reload_events ev;
    size_t i;
    int found = 0;
    psol_reload_poll(r, &ev);
    for (i = 0; i < ev.count; i++)
      if (ev.events[i].kind == PSOL_RELOAD_CHANGED && strcmp(ev.events[i].pipeline, pipeline) == 0)
        found = 1;
    psol_reload_events_free(&ev);
    if (found) return 0;
    if (psoc_plat_now_ns() > deadline) return -1;
    psol_reload_wait(r, 100);
  }
}

enum { EDIT_INPLACE, EDIT_ATOMIC, EDIT_TRUNCATE };

static void report(const char *label, const char *key, uint64_t *ns, unsigned n, unsigned lost) {
  double p50, p99, mx;
  qsort(ns, n, sizeof *ns, cmp_u64);
  p50 = n ? ns[n / 2] / 1e6 : 0;
  p99 = n ? ns[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1] / 1e6 : 0;
  mx = n ? ns[n - 1] / 1e6 : 0;
  printf("  %-34s %6u  %8.3f  %8.3f  %8.3f  %u\n", label, n, p50, p99, mx, lost);
  printf("bench_reload %s_p50_ms %.3f\nbench_reload %s_p99_ms %.3f\n", key, p50, key, p99);
}

/* Latency of 'edits' edits of one material, in a folder of 'others' more. */
static void latency(psol_reload_watch watch, int how, unsigned edits, const char *label,
                    const char *key) {
  psol_reload_options o;
  psol_reload *r;
  const char *paths[1];
  char err[512], text[1024], tmp[1024], dst[1024];
  uint64_t *ns = (uint64_t *)calloc(edits ? edits : 1, sizeof *ns);
  unsigned i, n = 0, lost = 0;
  memset(&o, 0, sizeof o);
  paths[0] = g_dir;
  o.paths = paths;
  o.path_count = 1;
  o.watch = watch;
  o.poll_ms = 10;
  material_text(text, sizeof text, "edited", "s.vs", 1, 0);
  write_text("edited.lua", text, "wb");
  if (!ns || !(r = psol_reload_create(&o, err, sizeof err))) {
    printf("  %-34s cannot start: %s\n", label, err);
    free(ns);
    return;
  }
  wait_changed(r, "edited");
  path_in(tmp, sizeof tmp, "edited.lua.tmp~");
  path_in(dst, sizeof dst, "edited.lua");
  for (i = 0; i < edits; i++) {
    uint64_t t0;
    material_text(text, sizeof text, "edited", "s.vs", i % 2 ? 1 : 4, 0);
    t0 = psoc_plat_now_ns();
    if (how == EDIT_INPLACE) {
      write_text("edited.lua", text, "r+b");
    } else if (how == EDIT_TRUNCATE) {
      write_text("edited.lua", text, "wb");
    } else {
      write_text("edited.lua.tmp~", text, "wb");
      rename(tmp, dst);
    }
    if (wait_changed(r, "edited") != 0) {
      lost++;
      continue;
    }
    ns[n++] = psoc_plat_now_ns() - t0;
  }
  psol_reload_destroy(r);
  report(label, key, ns, n, lost);
  free(ns);
}

/* The library: 'count' materials, m0..m49 use lib/shared.lua, m50..m59
** the shader shared.vs, the others own.vs. */
static void make_library(unsigned count) {
  unsigned i;
  char name[64], file[80], text[1024];
  path_in(text, sizeof text, "lib");
  psoc_plat_mkdir(text);
  write_text("lib/shared.lua", "return { samples = 1 }\n", "wb");
  write_text("shared.vs", "shared-1", "wb");
  write_text("own.vs", "own", "wb");
  for (i = 0; i < count; i++) {
    snprintf(name, sizeof name, "m%u", i);
    snprintf(file, sizeof file, "m%u.lua", i);
    material_text(text, sizeof text, name, i >= 50 && i < 60 ? "shared.vs" : "own.vs", 1, i < 50);
    write_text(file, text, "wb");
  }
}

/* One change, then wait for the batch; returns the evaluations it cost. */
static uint64_t one_change(psol_reload *r, const char *file, const char *text, double *ms) {
  psol_reload_stats s0, s1;
  uint64_t t0;
  psol_reload_stats_get(r, &s0);
  write_text(file, text, "wb");
  t0 = psoc_plat_now_ns(); /* the library's part: notify + update */
  {
    char p[1024];
    path_in(p, sizeof p, file);
    psol_reload_notify(r, p);
  }
  psol_reload_update(r);
  *ms = (psoc_plat_now_ns() - t0) / 1e6;
  psol_reload_stats_get(r, &s1);
  {
    psol_reload_events ev;
    psol_reload_poll(r, &ev);
    psol_reload_events_free(&ev);
  }
  return s1.evaluations - s0.evaluations;
}

static void library(unsigned count) {
  psol_reload_options o;
  psol_reload *r;
  const char *paths[1];
  char err[512], text[1024];
  psol_reload_stats s;
  double ms, full_ms;
  uint64_t t0, n;
  memset(&o, 0, sizeof o);
  make_library(count);
  paths[0] = g_dir;
  o.paths = paths;
  o.path_count = 1;
  o.watch = PSOL_RELOAD_WATCH_NONE; /* counted without the watcher's timing */
  t0 = psoc_plat_now_ns();
  if (!(r = psol_reload_create(&o, err, sizeof err))) {
    printf("  library: %s\n", err);
    return;
  }
  psol_reload_stats_get(r, &s);
  full_ms = (psoc_plat_now_ns() - t0) / 1e6;
  printf("\nlibrary of %u materials (+ lib/shared.lua): first load %llu evaluations, %.1f ms "
         "(the reference: what re-evaluating everything costs)\n",
         count, (unsigned long long)s.evaluations, full_ms);
  printf("bench_reload library_full_ms %.3f\n", full_ms);
  printf("  %-42s %11s  %9s  %s\n", "change", "evaluated", "ms", "vs all");
  material_text(text, sizeof text, "m700", "own.vs", 4, 0);
  n = one_change(r, "m700.lua", text, &ms);
  printf("  %-42s %11llu  %9.3f  %.4fx\n", "one material script (m700.lua)",
         (unsigned long long)n, ms, ms / full_ms);
  printf("bench_reload evals_one_script %llu\n", (unsigned long long)n);
  n = one_change(r, "shared.vs", "shared-2", &ms);
  printf("  %-42s %11llu  %9.3f  %.4fx\n", "a shader used by 10 (shared.vs)",
         (unsigned long long)n, ms, ms / full_ms);
  printf("bench_reload evals_shared_shader %llu\n", (unsigned long long)n);
  n = one_change(r, "lib/shared.lua", "return { samples = 4 }\n", &ms);
  printf("  %-42s %11llu  %9.3f  %.4fx\n", "a module used by 50 (lib/shared.lua)",
         (unsigned long long)n, ms, ms / full_ms);
  printf("bench_reload evals_shared_module %llu\n", (unsigned long long)n);
  n = one_change(r, "own.vs", "own", &ms); /* rewritten with the same bytes */
  printf("  %-42s %11llu  %9.3f  %.4fx\n", "a touch of a shader used by 940 (own.vs)",
         (unsigned long long)n, ms, ms / full_ms);
  printf("bench_reload evals_touch %llu\n", (unsigned long long)n);
  psol_reload_destroy(r);
}

/* --loop=N: N manual reload cycles of one material, no clock (callgrind). */
static void loop(unsigned long cycles) {
  psol_reload_options o;
  psol_reload *r;
  const char *paths[1];
  char err[512], text[1024], p[1024];
  unsigned long i;
  memset(&o, 0, sizeof o);
  material_text(text, sizeof text, "edited", "s.vs", 1, 0);
  write_text("edited.lua", text, "wb");
  paths[0] = g_dir;
  o.paths = paths;
  o.path_count = 1;
  o.watch = PSOL_RELOAD_WATCH_NONE;
  if (!(r = psol_reload_create(&o, err, sizeof err))) return;
  path_in(p, sizeof p, "edited.lua");
  for (i = 0; i < cycles; i++) {
    psol_reload_events ev;
    material_text(text, sizeof text, "edited", "s.vs", i % 2 ? 1 : 4, 0);
    write_text("edited.lua", text, "r+b");
    psol_reload_notify(r, p);
    psol_reload_update(r);
    psol_reload_poll(r, &ev);
    psol_reload_events_free(&ev);
  }
  psol_reload_destroy(r);
  printf("bench_reload loop_cycles %lu\n", cycles);
}

int bench_reload_main(int argc, char **argv) {
  unsigned edits = 1000, lib = 1000;
  unsigned long loops = 0;
  int i;
  const char *base = getenv("TMPDIR");
  for (i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--edits=", 8) == 0) edits = (unsigned)atoi(argv[i] + 8);
    else if (strncmp(argv[i], "--library=", 10) == 0) lib = (unsigned)atoi(argv[i] + 10);
    else if (strncmp(argv[i], "--loop=", 7) == 0) loops = strtoul(argv[i] + 7, NULL, 10);
    else if (strcmp(argv[i], "--quick") == 0) edits = 100, lib = 200;
    else {
      fprintf(stderr, "usage: psoc_bench_reload [--edits=N] [--library=N] [--quick] [--loop=N]\n");
      return 2;
    }
  }
  if (!base || !*base) base = "/tmp";
  snprintf(g_dir, sizeof g_dir, "%s/psoc_bench_reload_%llu", base,
           (unsigned long long)psoc_plat_now_ns());
  if (psoc_plat_mkdir(g_dir) != 0) {
    fprintf(stderr, "psoc_bench_reload: cannot create %s\n", g_dir);
    return 2;
  }
  write_text("s.vs", "vs", "wb");
  if (loops) {
    loop(loops);
    rm_tree(g_dir);
    return 0;
  }
  printf("write -> poll() latency, ms (coalescing window %u ms; folder in %s)\n",
         PSOL_RELOAD_DEFAULT_COALESCE_MS, base);
  printf("  %-34s %6s  %8s  %8s  %8s  %s\n", "edit", "edits", "p50", "p99", "max", "lost");
  latency(PSOL_RELOAD_WATCH_NATIVE, EDIT_INPLACE, edits, "inotify, in-place overwrite",
          "inotify_inplace");
  latency(PSOL_RELOAD_WATCH_NATIVE, EDIT_ATOMIC, edits, "inotify, atomic save (rename)",
          "inotify_atomic");
  latency(PSOL_RELOAD_WATCH_NATIVE, EDIT_TRUNCATE, edits, "inotify, truncate then write",
          "inotify_truncate");
  latency(PSOL_RELOAD_WATCH_POLL, EDIT_INPLACE, edits / 10 ? edits / 10 : 1,
          "polling every 10 ms, in-place", "poll_inplace");
  rm_tree(g_dir);
  psoc_plat_mkdir(g_dir);
  write_text("s.vs", "vs", "wb");
  library(lib);
  rm_tree(g_dir);
  return 0;
}

#ifdef PSOC_BENCH_RELOAD_MAIN
int main(int argc, char **argv) { return bench_reload_main(argc, argv); }
#endif
