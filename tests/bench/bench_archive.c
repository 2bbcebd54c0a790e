/*
** bench_archive.c: loading a cooked archive against merely reading its
** bytes, and what sharing saves (issue 11, Deliver 7, library side).
**
** The library is generated in C, deterministically: 10,000 graphics
** pipelines over 300 shaders (150 vertex shaders of 1-4 KB with 20 input
** layouts between them, 150 pixel shaders of 2-6 KB), each pipeline a
** choice of VS, PS, rasterizer (cull, fill, depth bias), blend (opaque,
** alpha, additive), depth state, render-target formats and sample count;
** names "mat_00000".., root signatures "rs_0".."rs_7" by name. It is cooked
** with psoc_archive_writer into a temporary file (the cook's time is shown,
** for information).
**
** Rows, each the median of 21 runs (7 with --quick), measured alternately in
** one process with the file in the page cache, by wall clock and by the
** thread's CPU time (psoc_plat_thread_cpu_ns: user and system time, which
** leaves out the time other processes held the CPU on a loaded machine):
**   read        open the file, malloc a buffer of its size, read all its
**               bytes into it with psoc_plat_read, close, free: the floor
**               any loader pays (glibc serves the 8 MB from the heap memory
**               the previous run freed, so the copy lands in pages already
**               mapped: a loader that keeps its read buffer; the page
**               faults column shows it);
**   verify_all  psoc_archive_open_file(VERIFY_ALL) (maps, checks every
**               checksum and structure), then psoc_archive_load of every
**               pipeline into one reused scratch buffer, then close;
**   lazy        the same with VERIFY_LAZY: each pipeline verified at its
**               first load, each component once;
**   map         psoc_plat_map_file, one byte read from every 4 KB page,
**               psoc_plat_unmap: the mapping's share of verify_all and lazy
**               (page faults and unmapping; small when the page cache holds
**               the file in large folios, docs/archive.md "Loading cost").
** Each row also gives its page faults per run (psoc_plat_page_faults).
** The ratios verify_all/read and lazy/read are the figure (goal <= 2x).
** For instruction counts, run the profiling mode under callgrind:
**   valgrind --tool=callgrind --collect-atstart=no \
**     --toggle-collect=bench_archive_load_once \
**     build/bin/psoc_bench --loop=archive_all --iterations=1
** (archive_lazy the same; archive_read with bench_archive_read_once, whose
** copy happens in the kernel, where callgrind does not count).
**
** With --library=DIR (a psoc_gen_library output): its material scripts
** (DIR/materials) are evaluated in-process (psol_evaluate_file, checked, as
** psoc cook does) and cooked into an archive; then evaluating them all
** again is timed against opening that archive (VERIFY_ALL) and loading
** every pipeline (goal: loading >= 100x faster).
**
** Size: the file against the sum of the unique components' bytes plus the
** tables' bytes without alignment padding (header, table of contents,
** pipeline, name, reference, hash-index and component tables, records, end
** marker): the format's overhead (goal <= 1.05x); and against the bytes
** the components would take without sharing.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "psoc.h"
#include "psoc_archive.h"
#include "psol.h"

int bench_archive_main(int quick);
int bench_archive_loop(const char *what, long iterations);
void bench_archive_set_library(const char *dir);
int bench_archive_read_once(const char *path, size_t *bytes);
int bench_archive_load_once(const char *path, uint32_t flags, unsigned char *scratch, size_t cap);
int bench_archive_map_once(const char *path, size_t *sum);

#define NPIPES 10000
#define NVS 150
#define NPS 150
#define NLAYOUTS 20

static uint32_t rng_state = 0x9e3779b9u;
static uint32_t rng(void) { /* xorshift32: deterministic */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

typedef struct library {
  unsigned char *vs[NVS], *ps[NPS];
  size_t vs_size[NVS], ps_size[NPS];
  D3D12_INPUT_ELEMENT_DESC layouts[NLAYOUTS][6];
  UINT layout_count[NLAYOUTS];
} library;

static const char *const semantics[6] = { "POSITION", "NORMAL", "TANGENT", "TEXCOORD", "COLOR", "BLENDINDICES" };

static void make_library(library *lib) {
  size_t i, k;
  for (i = 0; i < NVS; i++) {
    lib->vs_size[i] = 1024 + (rng() % 3072);
    lib->vs[i] = malloc(lib->vs_size[i]);
    for (k = 0; k < lib->vs_size[i]; k++) lib->vs[i][k] = (unsigned char)rng();
    memcpy(lib->vs[i], "DXBC", 4);
  }
  for (i = 0; i < NPS; i++) {
    lib->ps_size[i] = 2048 + (rng() % 4096);
    lib->ps[i] = malloc(lib->ps_size[i]);
    for (k = 0; k < lib->ps_size[i]; k++) lib->ps[i][k] = (unsigned char)rng();
    memcpy(lib->ps[i], "DXBC", 4);
  }
  for (i = 0; i < NLAYOUTS; i++) {
    UINT n = 2 + (UINT)(i % 5), off = 0;
    lib->layout_count[i] = n;
    for (k = 0; k < n; k++) {
      D3D12_INPUT_ELEMENT_DESC *e = &lib->layouts[i][k];
      memset(e, 0, sizeof *e);
      e->SemanticName = semantics[k];
      e->SemanticIndex = (UINT)(i / 5);
      e->Format = k == 0 ? DXGI_FORMAT_R32G32B32_FLOAT : DXGI_FORMAT_R32G32B32A32_FLOAT;
      e->AlignedByteOffset = off;
      e->InputSlotClass = D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA;
      off += k == 0 ? 12 : 16;
    }
  }
}

static void free_library(library *lib) {
  size_t i;
  for (i = 0; i < NVS; i++) free(lib->vs[i]);
  for (i = 0; i < NPS; i++) free(lib->ps[i]);
}

#define CHECK(x)                                                          \
  do {                                                                    \
    if ((x) != PSOC_OK) {                                                 \
      fprintf(stderr, "bench_archive: %s failed (line %d)\n", #x, __LINE__); \
      return 1;                                                           \
    }                                                                     \
  } while (0)

/* Pipeline i of the library into the builder. */
static int add_pipeline(psoc_builder *b, const library *lib, size_t i) {
  size_t v = i % NVS, p = (i / 7 + i * 13) % NPS, l = v % NLAYOUTS;
  D3D12_SHADER_BYTECODE vs = { lib->vs[v], lib->vs_size[v] }, ps = { lib->ps[p], lib->ps_size[p] };
  D3D12_INPUT_LAYOUT_DESC il = { lib->layouts[l], lib->layout_count[l] };
  D3D12_RASTERIZER_DESC r;
  D3D12_BLEND_DESC bl;
  D3D12_DEPTH_STENCIL_DESC ds;
  D3D12_RT_FORMAT_ARRAY rt;
  DXGI_SAMPLE_DESC sd = { 1u << (i % 3), 0 };
  DXGI_FORMAT dsf = DXGI_FORMAT_D32_FLOAT;
  D3D12_PRIMITIVE_TOPOLOGY_TYPE topo = D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE;
  void *rs = NULL;
  memset(&r, 0, sizeof r);
  r.FillMode = i % 11 == 0 ? D3D12_FILL_MODE_WIREFRAME : D3D12_FILL_MODE_SOLID;
  r.CullMode = (D3D12_CULL_MODE)(1 + i % 3);
  r.DepthBias = (INT)(i % 4);
  r.DepthClipEnable = TRUE;
  memset(&bl, 0, sizeof bl);
  bl.RenderTarget[0].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL;
  if (i % 3) {
    bl.RenderTarget[0].BlendEnable = TRUE;
    bl.RenderTarget[0].SrcBlend = i % 3 == 1 ? D3D12_BLEND_SRC_ALPHA : D3D12_BLEND_ONE;
    bl.RenderTarget[0].DestBlend = i % 3 == 1 ? D3D12_BLEND_INV_SRC_ALPHA : D3D12_BLEND_ONE;
    bl.RenderTarget[0].BlendOp = D3D12_BLEND_OP_ADD;
    bl.RenderTarget[0].SrcBlendAlpha = D3D12_BLEND_ONE;
    bl.RenderTarget[0].DestBlendAlpha = D3D12_BLEND_ZERO;
    bl.RenderTarget[0].BlendOpAlpha = D3D12_BLEND_OP_ADD;
  }
  memset(&ds, 0, sizeof ds);
  ds.DepthEnable = TRUE;
  ds.DepthWriteMask = i % 3 ? D3D12_DEPTH_WRITE_MASK_ZERO : D3D12_DEPTH_WRITE_MASK_ALL;
  ds.DepthFunc = D3D12_COMPARISON_FUNC_GREATER_EQUAL;
  memset(&rt, 0, sizeof rt);
  rt.NumRenderTargets = 1 + (UINT)(i % 2);
  rt.RTFormats[0] = DXGI_FORMAT_R11G11B10_FLOAT;
  rt.RTFormats[1] = DXGI_FORMAT_R8G8B8A8_UNORM;
  psoc_builder_reset(b);
  CHECK(psoc_builder_add(b, PSOC_SO_ROOT_SIGNATURE, &rs, sizeof rs));
  CHECK(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs));
  CHECK(psoc_builder_add(b, PSOC_SO_PS, &ps, sizeof ps));
  CHECK(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il));
  CHECK(psoc_builder_add(b, PSOC_SO_PRIMITIVE_TOPOLOGY, &topo, sizeof topo));
  CHECK(psoc_builder_add(b, PSOC_SO_RASTERIZER, &r, sizeof r));
  CHECK(psoc_builder_add(b, PSOC_SO_BLEND, &bl, sizeof bl));
  CHECK(psoc_builder_add(b, PSOC_SO_DEPTH_STENCIL, &ds, sizeof ds));
  CHECK(psoc_builder_add(b, PSOC_SO_RENDER_TARGET_FORMATS, &rt, sizeof rt));
  CHECK(psoc_builder_add(b, PSOC_SO_DEPTH_STENCIL_FORMAT, &dsf, sizeof dsf));
  CHECK(psoc_builder_add(b, PSOC_SO_SAMPLE_DESC, &sd, sizeof sd));
  return 0;
}

static char rs_names[8][8];

static void *resolve(void *ud, const char *name) {
  (void)name;
  return ud;
}

int bench_archive_read_once(const char *path, size_t *bytes) {
  psoc_plat_file f;
  unsigned char *buf;
  size_t got = 0;
  if (psoc_plat_open_regular(path, &f) != 0) return 1;
  buf = malloc((size_t)f.size);
  if (!buf || psoc_plat_read(&f, buf, (size_t)f.size, &got) != 0 || got != f.size) {
    free(buf);
    psoc_plat_close(&f);
    return 1;
  }
  psoc_plat_close(&f);
  *bytes = got + buf[got / 2]; /* touch it, so the read is not dead */
  free(buf);
  return 0;
}

/* The kernel's share of the mapped path: map the file as
** psoc_archive_open_file does, read one byte of every 4 KB page, unmap. */
int bench_archive_map_once(const char *path, size_t *sum) {
  psoc_plat_map m;
  size_t i, s = 0;
  if (psoc_plat_map_file(path, &m) != 0) return 1;
  for (i = 0; i < m.size; i += 4096) s += ((const unsigned char *)m.data)[i];
  psoc_plat_unmap(&m);
  *sum = s;
  return 0;
}

int bench_archive_load_once(const char *path, uint32_t flags, unsigned char *scratch, size_t cap) {
  psoc_archive *a;
  psoc_archive_load_options lo;
  size_t i, n;
  char err[256];
  memset(&lo, 0, sizeof lo);
  lo.resolve_root_signature = resolve;
  lo.ud = rs_names;
  if (psoc_archive_open_file(path, flags, NULL, &a, err, sizeof err) != PSOC_OK) {
    fprintf(stderr, "bench_archive: %s\n", err);
    return 1;
  }
  n = psoc_archive_count(a);
  for (i = 0; i < n; i++) {
    D3D12_PIPELINE_STATE_STREAM_DESC desc;
    if (psoc_archive_load(a, i, &lo, scratch, cap, &desc, NULL, err, sizeof err) != PSOC_OK) {
      fprintf(stderr, "bench_archive: %s\n", err);
      psoc_archive_close(a);
      return 1;
    }
  }
  psoc_archive_close(a);
  return 0;
}

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* Generate the library, cook it into a temporary file (its path into
** path[n]); the cook's nanoseconds and the writer's figures. */
static int cook_library(char *path, size_t n, uint64_t *cook_ns, psoc_archive_writer_stats *stats) {
  static library lib;
  psoc_builder *b;
  psoc_archive_writer *w;
  char err[512];
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  uint64_t t0;
  size_t i;
  for (i = 0; i < 8; i++) snprintf(rs_names[i], sizeof rs_names[i], "rs_%zu", i);
  rng_state = 0x9e3779b9u;
  make_library(&lib);
  CHECK(psoc_builder_new(NULL, &b));
  CHECK(psoc_archive_writer_create(NULL, &w));
  t0 = psoc_plat_now_ns();
  for (i = 0; i < NPIPES; i++) {
    psoc_stream *s;
    char name[16];
    if (add_pipeline(b, &lib, i)) return 1;
    CHECK(psoc_builder_finish(b, &s));
    snprintf(name, sizeof name, "mat_%05zu", i);
    CHECK(psoc_archive_writer_add(w, name, rs_names[i % 8], psoc_stream_data(s), psoc_stream_size(s), err,
                                  sizeof err));
    psoc_stream_free(s);
  }
  snprintf(path, n, "%s/psoc_bench_archive.%ld.psoa", tmp, (long)psoc_plat_now_ns());
  CHECK(psoc_archive_write_file(w, path, err, sizeof err));
  *cook_ns = psoc_plat_now_ns() - t0;
  psoc_archive_writer_stats_get(w, stats);
  psoc_archive_writer_free(w);
  psoc_builder_free(b);
  free_library(&lib);
  return 0;
}

/* Profiling mode (psoc_bench --loop=archive_WHAT): cook once, then run
** one workload 'iterations' times without a clock. WHAT: read, all
** (VERIFY_ALL + load every pipeline), lazy (VERIFY_LAZY + load every
** pipeline). Under callgrind, --toggle-collect=bench_archive_read_once (or
** bench_archive_load_once) counts the workload alone. */
int bench_archive_loop(const char *what, long iterations) {
  static _Alignas(16) unsigned char scratch[1 << 16];
  psoc_archive_writer_stats stats;
  char path[512];
  uint64_t cook_ns;
  size_t bytes = 0;
  long i;
  int w = strcmp(what, "read") == 0 ? 0 : strcmp(what, "all") == 0 ? 1 : strcmp(what, "lazy") == 0 ? 2 : -1;
  if (w < 0) {
    fprintf(stderr, "bench_archive: unknown loop archive_%s (archive_read, archive_all, archive_lazy)\n", what);
    return 2;
  }
  if (cook_library(path, sizeof path, &cook_ns, &stats)) return 1;
  for (i = 0; i < iterations; i++) {
    int r = w == 0 ? bench_archive_read_once(path, &bytes)
                   : bench_archive_load_once(path, w == 1 ? PSOC_ARCHIVE_VERIFY_ALL : PSOC_ARCHIVE_VERIFY_LAZY,
                                             scratch, sizeof scratch);
    if (r) {
      remove(path);
      return 1;
    }
  }
  remove(path);
  printf("loop archive_%s: %ld iterations done\n", what, iterations);
  return 0;
}

/* ---- evaluating the scripts vs loading their archive ---------------- */

static const char *g_library; /* psoc_bench --library=DIR */

void bench_archive_set_library(const char *dir) { g_library = dir; }

typedef struct script_list {
  char **paths;
  size_t count, cap;
  const char *dir; /* the folder being listed */
  int failed;
} script_list;

static int list_scripts(void *ud, const char *name, int kind);

static int add_scripts(script_list *l, const char *dir) {
  const char *outer = l->dir;
  int e;
  l->dir = dir;
  e = psoc_plat_list_dir(dir, list_scripts, l);
  l->dir = outer;
  return e || l->failed;
}

/* Folders are walked, .lua files kept (full paths). */
static int list_scripts(void *ud, const char *name, int kind) {
  script_list *l = ud;
  size_t n = strlen(name), dl = strlen(l->dir);
  char *full;
  if (kind != PSOC_PLAT_DIR && (kind != PSOC_PLAT_FILE || n < 4 || strcmp(name + n - 4, ".lua") != 0))
    return 0;
  if (!(full = malloc(dl + n + 2))) return l->failed = 1;
  memcpy(full, l->dir, dl);
  full[dl] = '/';
  memcpy(full + dl + 1, name, n + 1);
  if (kind == PSOC_PLAT_DIR) {
    int r = add_scripts(l, full);
    free(full);
    return r;
  }
  if (l->count == l->cap) {
    size_t c = l->cap ? l->cap * 2 : 256;
    char **np = realloc(l->paths, c * sizeof *np);
    if (!np) {
      free(full);
      return l->failed = 1;
    }
    l->paths = np;
    l->cap = c;
  }
  l->paths[l->count++] = full;
  return 0;
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* Evaluate every script of the library (psol_evaluate_file, checked as a
** cook checks them); with 'w', add each pipeline to it. The pipelines
** into *pipelines; non-zero on any failure. */
static int evaluate_library(const script_list *l, const char *root, psoc_archive_writer *w,
                            size_t *pipelines) {
  psol_options opts;
  const char *roots[1];
  size_t i, k;
  char err[512];
  memset(&opts, 0, sizeof opts);
  roots[0] = root;
  opts.roots = roots;
  opts.root_count = 1;
  *pipelines = 0;
  for (i = 0; i < l->count; i++) {
    psol_result r;
    if (psol_evaluate_file(&opts, l->paths[i], &r) != PSOC_OK) {
      fprintf(stderr, "bench_archive: %s\n", r.error);
      psol_result_free(&r);
      return 1;
    }
    for (k = 0; w && k < r.count; k++) {
      const psol_pipeline *p = &r.pipelines[k];
      if (psoc_archive_writer_add(w, p->name, p->root_signature, psoc_stream_data(p->stream),
                                  psoc_stream_size(p->stream), err, sizeof err) != PSOC_OK) {
        fprintf(stderr, "bench_archive: %s: %s\n", l->paths[i], err);
        psol_result_free(&r);
        return 1;
      }
    }
    *pipelines += r.count;
    psol_result_free(&r);
  }
  return 0;
}

/* The ">= 100x faster than evaluating" row: the library's material
** scripts (DIR/materials, as psoc_gen_library writes them) evaluated
** in-process, against opening the archive cooked from those very results
** (VERIFY_ALL) and loading every pipeline. */
static int bench_eval_vs_load(int quick, unsigned char *scratch, size_t cap) {
  script_list l;
  psoc_archive_writer *w = NULL;
  char dir[4096], path[512], err[512];
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  int runs = quick ? 3 : 7, eruns = quick ? 1 : 3, r, rc = 1;
  uint64_t te[3], tl[7], t0;
  size_t i, npipes = 0, n2 = 0;
  if (!g_library) {
    printf("  %-48s not measured: give --library=DIR (build/bin/psoc_gen_library DIR --pipelines 10000"
           " --shaders 300)\n", "evaluate the scripts vs load their archive");
    printf("TARGET archive_eval_vs_load >= 100: not measured\n");
    return 0;
  }
  memset(&l, 0, sizeof l);
  snprintf(dir, sizeof dir, "%s/materials", g_library);
  if (add_scripts(&l, dir) || l.count == 0) {
    fprintf(stderr, "bench_archive: no material scripts under %s\n", dir);
    goto done;
  }
  qsort(l.paths, l.count, sizeof *l.paths, cmp_str);
  /* the cook (not timed), then the timed evaluations */
  if (psoc_archive_writer_create(NULL, &w) != PSOC_OK || evaluate_library(&l, g_library, w, &npipes)) goto done;
  snprintf(path, sizeof path, "%s/psoc_bench_eval.%ld.psoa", tmp, (long)psoc_plat_now_ns());
  if (psoc_archive_write_file(w, path, err, sizeof err) != PSOC_OK) {
    fprintf(stderr, "bench_archive: %s\n", err);
    goto done;
  }
  for (r = 0; r < eruns; r++) {
    t0 = psoc_plat_now_ns();
    if (evaluate_library(&l, g_library, NULL, &n2)) goto done_file;
    te[r] = psoc_plat_now_ns() - t0;
  }
  for (r = 0; r < runs; r++) {
    t0 = psoc_plat_now_ns();
    if (bench_archive_load_once(path, PSOC_ARCHIVE_VERIFY_ALL, scratch, cap)) goto done_file;
    tl[r] = psoc_plat_now_ns() - t0;
  }
  qsort(te, (size_t)eruns, sizeof te[0], cmp_u64);
  qsort(tl, (size_t)runs, sizeof tl[0], cmp_u64);
  printf("  %-48s %9.2f ms   (%zu scripts, %zu pipelines; median of %d)\n", "evaluate the library's scripts",
         (double)te[eruns / 2] / 1e6, l.count, npipes, eruns);
  printf("  %-48s %9.2f ms   %.0fx faster (goal >= 100x)\n", "open VERIFY_ALL + load them from their archive",
         (double)tl[runs / 2] / 1e6, (double)te[eruns / 2] / (double)tl[runs / 2]);
  printf("RESULT archive_eval_ms %.3f\n", (double)te[eruns / 2] / 1e6);
  printf("RESULT archive_eval_load_ms %.3f\n", (double)tl[runs / 2] / 1e6);
  printf("RATIO archive_eval_vs_load %.1f\n", (double)te[eruns / 2] / (double)tl[runs / 2]);
  printf("TARGET archive_eval_vs_load >= 100: %s\n",
         (double)te[eruns / 2] >= 100.0 * (double)tl[runs / 2] ? "met" : "not met");
  rc = 0;
done_file:
  remove(path);
done:
  psoc_archive_writer_free(w);
  for (i = 0; i < l.count; i++) free(l.paths[i]);
  free(l.paths);
  return rc;
}

int bench_archive_main(int quick) {
  static _Alignas(16) unsigned char scratch[1 << 16];
  psoc_archive_writer_stats stats;
  psoc_archive *a;
  psoc_archive_info info;
  char path[512], err[512];
  int runs = quick ? 7 : 21, r, k;
  uint64_t t[4][21], cpu[4][21], faults[4] = { 0, 0, 0, 0 }, t0, cook_ns, tables = 0;
  double wall_ms[4], cpu_ms[4], flt[4];
  size_t i, bytes = 0;
  if (cook_library(path, sizeof path, &cook_ns, &stats)) return 1;

  CHECK(psoc_archive_open_file(path, PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED, NULL, &a, err,
                               sizeof err));
  psoc_archive_info_get(a, &info);
  /* the tables without padding: fixed parts, names, references, records */
  tables = 96 + 7 * 32 + 16 + (uint64_t)info.pipelines * (64 + 4) + (uint64_t)info.components * 48;
  for (i = 0; i < info.pipelines; i++) {
    psoc_archive_entry e;
    CHECK(psoc_archive_entry_get(a, i, &e));
    tables += strlen(e.name) + 1 + (e.root_signature ? strlen(e.root_signature) + 1 : 0) +
              4 * e.component_count + e.stream_size;
    if (e.load_size > sizeof scratch) {
      fprintf(stderr, "bench_archive: scratch too small\n");
      return 1;
    }
  }
  psoc_archive_close(a);

  /* one untimed round first: the read buffer's first two mallocs get fresh
  ** pages (an mmap, then new heap once glibc raised its mmap threshold),
  ** which the timed runs would otherwise count against reading */
  if (bench_archive_read_once(path, &bytes) || bench_archive_read_once(path, &bytes) ||
      bench_archive_load_once(path, PSOC_ARCHIVE_VERIFY_ALL, scratch, sizeof scratch))
    return 1;
  for (r = 0; r < runs; r++) {
    for (k = 0; k < 4; k++) { /* alternately: read, VERIFY_ALL, VERIFY_LAZY, map + touch */
      uint64_t c0 = psoc_plat_thread_cpu_ns(), f0 = psoc_plat_page_faults();
      int bad;
      t0 = psoc_plat_now_ns();
      bad = k == 0   ? bench_archive_read_once(path, &bytes)
            : k == 3 ? bench_archive_map_once(path, &bytes)
                     : bench_archive_load_once(path, k == 1 ? PSOC_ARCHIVE_VERIFY_ALL : PSOC_ARCHIVE_VERIFY_LAZY,
                                               scratch, sizeof scratch);
      t[k][r] = psoc_plat_now_ns() - t0;
      cpu[k][r] = psoc_plat_thread_cpu_ns() - c0;
      faults[k] += psoc_plat_page_faults() - f0;
      if (bad) return 1;
    }
  }
  for (k = 0; k < 4; k++) {
    qsort(t[k], (size_t)runs, sizeof t[k][0], cmp_u64);
    qsort(cpu[k], (size_t)runs, sizeof cpu[k][0], cmp_u64);
    wall_ms[k] = (double)t[k][runs / 2] / 1e6;
    cpu_ms[k] = (double)cpu[k][runs / 2] / 1e6;
    flt[k] = (double)faults[k] / runs;
  }
  printf("archive (bench_archive.c): %zu pipelines over %d shaders, %zu unique components, file %.2f MB;"
         " cooked in %.0f ms; median of %d runs, wall clock and the thread's CPU time\n",
         info.pipelines, NVS + NPS, info.components, (double)info.file_size / 1e6, (double)cook_ns / 1e6, runs);
  printf("  %-48s %9.2f ms %9.2f ms cpu   %6.1f page faults\n", "read the file's bytes", wall_ms[0], cpu_ms[0],
         flt[0]);
  printf("  %-48s %9.2f ms %9.2f ms cpu   %6.1f page faults   %.2fx read (cpu %.2fx; goal <= 2x)\n",
         "open VERIFY_ALL + load every pipeline", wall_ms[1], cpu_ms[1], flt[1], wall_ms[1] / wall_ms[0],
         cpu_ms[1] / cpu_ms[0]);
  printf("  %-48s %9.2f ms %9.2f ms cpu   %6.1f page faults   %.2fx read (cpu %.2fx)\n",
         "open VERIFY_LAZY + load every pipeline", wall_ms[2], cpu_ms[2], flt[2], wall_ms[2] / wall_ms[0],
         cpu_ms[2] / cpu_ms[0]);
  printf("  %-48s %9.2f ms %9.2f ms cpu   %6.1f page faults   (the mapping's share of the above)\n",
         "  of which: map, touch every 4 KB page, unmap", wall_ms[3], cpu_ms[3], flt[3]);
  printf("  %-48s %9.3f       (%llu bytes / %llu components + %llu tables; goal <= 1.05x)\n",
         "size / (unique components + tables)",
         (double)info.file_size / (double)(stats.component_bytes + tables),
         (unsigned long long)info.file_size, (unsigned long long)stats.component_bytes,
         (unsigned long long)tables);
  printf("  %-48s %9.3f       (%llu bytes of components without sharing)\n", "size / (no sharing)",
         (double)info.file_size / (double)(stats.referenced_bytes + tables),
         (unsigned long long)stats.referenced_bytes);
  printf("RESULT archive_read_ms %.3f\n", wall_ms[0]);
  printf("RESULT archive_verify_all_ms %.3f\n", wall_ms[1]);
  printf("RESULT archive_lazy_ms %.3f\n", wall_ms[2]);
  printf("RESULT archive_read_cpu_ms %.3f\n", cpu_ms[0]);
  printf("RESULT archive_verify_all_cpu_ms %.3f\n", cpu_ms[1]);
  printf("RESULT archive_lazy_cpu_ms %.3f\n", cpu_ms[2]);
  printf("RESULT archive_map_touch_ms %.3f\n", wall_ms[3]);
  printf("RESULT archive_map_touch_cpu_ms %.3f\n", cpu_ms[3]);
  printf("RESULT archive_read_faults %.1f\n", flt[0]);
  printf("RESULT archive_verify_all_faults %.1f\n", flt[1]);
  printf("RESULT archive_lazy_faults %.1f\n", flt[2]);
  printf("RESULT archive_map_touch_faults %.1f\n", flt[3]);
  printf("RATIO archive_verify_all_vs_read %.2f\n", wall_ms[1] / wall_ms[0]);
  printf("RATIO archive_lazy_vs_read %.2f\n", wall_ms[2] / wall_ms[0]);
  printf("RATIO archive_verify_all_vs_read_cpu %.2f\n", cpu_ms[1] / cpu_ms[0]);
  printf("RATIO archive_lazy_vs_read_cpu %.2f\n", cpu_ms[2] / cpu_ms[0]);
  printf("RATIO archive_size_overhead %.3f\n", (double)info.file_size / (double)(stats.component_bytes + tables));
  printf("TARGET archive_verify_all_vs_read <= 2: %s (wall), %s (cpu)\n", wall_ms[1] <= 2 * wall_ms[0] ? "met" : "not met",
         cpu_ms[1] <= 2 * cpu_ms[0] ? "met" : "not met");
  printf("TARGET archive_size_overhead <= 1.05: %s\n",
         (double)info.file_size <= 1.05 * (double)(stats.component_bytes + tables) ? "met" : "not met");
  remove(path);
  return bench_eval_vs_load(quick, scratch, sizeof scratch);
}
