/*
** bench_lua.c: material script -> checked stream throughput of the `pso`
** Lua module, and what the conversion costs next to the script's own run
** time (the table construction), in one run.
**
** The workload is the typical material of DESIGN.md section 3, run in a
** loop inside one lua_State (the selected Lua: 5.4, 5.3, 5.1 or LuaJIT;
** plain luaL_newstate + luaL_openlibs, no sandbox hooks):
**
**   p = G {
**     name = "lit_opaque", root_signature = "forward",   -- by name
**     vs = vs, ps = ps,                                  -- pso.shader { bytes = ... }
**     input_layout = { {"POSITION","R32G32B32_FLOAT"}, {"NORMAL","R32G32B32_FLOAT"},
**                      {"TEXCOORD","R32G32_FLOAT", index = 0} },
**     rasterizer = { cull = "back", fill = "solid" }, blend = pso.blend.opaque,
**     depth_stencil = { depth = true, write = true, func = "greater_equal" },
**     render_targets = { "R11G11B10_FLOAT", "R8G8B8A8_UNORM" }, depth_format = "D32_FLOAT",
**   }
**
** The shaders (2 KB VS, 4 KB PS) are made once, before the loop, with
** pso.shader { bytes = ... }: a material file loads its shaders once and
** declares its pipelines with them.
**
** Rows (each the median of 7 runs of ~100 ms; 3 of ~10 ms with --quick):
**   tables     G = an identity function (a C function returning its
**              argument): the script's own run time -- building the nine
**              declaration tables, reading pso.blend.opaque, one call;
**   graphics   G = pso.graphics: the strict conversion, the builder writing
**              the stream into the new pipeline userdata, and (amortised)
**              the garbage collection of the pipeline;
**   checked    G = a C function calling pso.graphics, then psoc_check on
**              the pipeline's stream (default options: default capability
**              profile, pointers not followed) with one reused psoc_diags,
**              raising if the check reports an error. This is "checked"
**              and the headline: pipelines/s = 1 / (time per iteration),
**              table construction included. (p:check() from Lua does the
**              same check and also builds a Lua list of the diagnostics;
**              the row "p:check()" shows that path.)
**   64-byte shaders  "checked" with 64-byte shaders (information): the
**              pipeline borrows the bytes of its pso.shader objects
**              instead of copying them, so this row matches "checked";
**   derive     pso.derive(base, { name = "lit_two_sided",
**              rasterizer = { cull = "none" } }) + the same check (the time
**              of the overrides table alone is shown next to it).
**
**   state      a fresh lua_State per iteration (luaL_newstate,
**              luaL_openlibs, lua_close): what every material of a library
**              pays before its first line (psoc check runs each in its own);
**   state+pso  the same plus opening the pso module in it (require "pso":
**              the per-state context, key tables, presets). RATIO lua_open
**              = (state+pso - state) / state.
**
**   RATIO lua_conversion = (checked - tables) / tables: the conversion
**   (and check) cost as a multiple of the script's own run time. Target
**   <= 2. RATE lua_pipelines_per_s: target >= 300,000 per core (issue 10).
**
** Time is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID): per core, and
** not inflated when the machine is busy with other work (shared caches
** still are). Workloads of one measurement alternate run by run (tables,
** graphics, checked, ...), so drift hits all of them. For load-independent
** numbers run one workload under callgrind, twice, and take the
** difference (that removes the set-up):
**
**   gcc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I src -I bindings/lua \
**       -I /usr/include/wsl/stubs -I /usr/include/lua5.4 tests/bench/bench_lua.c \
**       build/lib/libpsolua.a build/lib/libpsoc.a -llua5.4 -lm -ldl -o /tmp/bench_lua
**   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.2000 \
**       /tmp/bench_lua --loop=checked --iterations=2000     # and 4000:
**   instructions per pipeline = (Ir at 4000 - Ir at 2000) / 2000
**
** bench_lua_main(quick) prints the rows and the machine-readable lines and
** returns 0 (1 when the inputs cannot be built); bench.cpp calls it.
** Allocations: the allocator calls (new blocks, resizes, frees) and the
** bytes asked for per iteration of "tables" and "checked", counted by a
** wrapper installed with lua_setallocf around two untimed runs only
** (RESULT lua_*_allocs, lua_*_alloc_bytes); what "checked" allocates
** beyond "tables" is what each pipeline leaves for the collector.
** --allocs [--iterations=N] prints them for every workload.
**
** bench_lua_loop(what, n) is the --loop mode (what: a workload above, or
** "state" / "state_pso"). Built alone (as above), the
** weak main below runs either.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#include "psoc.h"
#include "pso_module.h"

#if LUA_VERSION_NUM >= 502
#define lua_objlen_compat lua_rawlen
#else
#define lua_objlen_compat lua_objlen
#endif

int bench_lua_main(int quick);
/* One workload 'iterations' times with no clock (for a profiler); what is
** "tables", "graphics", "checked", "lua_check", "checked_small", "derive"
** or "derive_tables". Returns 0, or 1 for an unknown workload or a failure. */
int bench_lua_loop(const char *what, unsigned long iterations);

static volatile uint64_t g_sink;
static psoc_diags g_diags;

/* ---- the script ------------------------------------------------------- */

/* The loop bodies are the same text; only G (and for derive, D) differ. */
static const char bench_script[] =
  "local pso, vs_bytes, ps_bytes, identity, checked, checked_derive = ...\n"
  "local vs = pso.shader { bytes = vs_bytes }\n"
  "local ps = pso.shader { bytes = ps_bytes }\n"
  "local vs_small = pso.shader { bytes = vs_bytes:sub(1, 64) }\n"
  "local ps_small = pso.shader { bytes = ps_bytes:sub(1, 64) }\n"
  "local function material(G, vs, ps)\n"
  "  return function(n)\n"
  "    local p\n"
  "    for _ = 1, n do\n"
  "      p = G {\n"
  "        name = \"lit_opaque\",\n"
  "        root_signature = \"forward\",\n"
  "        vs = vs,\n"
  "        ps = ps,\n"
  "        input_layout = {\n"
  "          { \"POSITION\", \"R32G32B32_FLOAT\" },\n"
  "          { \"NORMAL\",   \"R32G32B32_FLOAT\" },\n"
  "          { \"TEXCOORD\", \"R32G32_FLOAT\", index = 0 },\n"
  "        },\n"
  "        rasterizer    = { cull = \"back\", fill = \"solid\" },\n"
  "        blend         = pso.blend.opaque,\n"
  "        depth_stencil = { depth = true, write = true, func = \"greater_equal\" },\n"
  "        render_targets = { \"R11G11B10_FLOAT\", \"R8G8B8A8_UNORM\" },\n"
  "        depth_format  = \"D32_FLOAT\",\n"
  "      }\n"
  "    end\n"
  "    return p\n"
  "  end\n"
  "end\n"
  "local base = material(pso.graphics, vs, ps)(1)\n"
  "local function variant(D)\n"
  "  return function(n)\n"
  "    local p\n"
  "    for _ = 1, n do\n"
  "      p = D(base, { name = \"lit_two_sided\", rasterizer = { cull = \"none\" } })\n"
  "    end\n"
  "    return p\n"
  "  end\n"
  "end\n"
  "local function lua_check(n)\n"
  "  local graphics, p = pso.graphics\n"
  "  for _ = 1, n do\n"
  "    p = graphics {\n"
  "      name = \"lit_opaque\",\n"
  "      root_signature = \"forward\",\n"
  "      vs = vs,\n"
  "      ps = ps,\n"
  "      input_layout = {\n"
  "        { \"POSITION\", \"R32G32B32_FLOAT\" },\n"
  "        { \"NORMAL\",   \"R32G32B32_FLOAT\" },\n"
  "        { \"TEXCOORD\", \"R32G32_FLOAT\", index = 0 },\n"
  "      },\n"
  "      rasterizer    = { cull = \"back\", fill = \"solid\" },\n"
  "      blend         = pso.blend.opaque,\n"
  "      depth_stencil = { depth = true, write = true, func = \"greater_equal\" },\n"
  "      render_targets = { \"R11G11B10_FLOAT\", \"R8G8B8A8_UNORM\" },\n"
  "      depth_format  = \"D32_FLOAT\",\n"
  "    }\n"
  "    if #p:check() > 0 then error(\"the material has diagnostics\") end\n"
  "  end\n"
  "  return p\n"
  "end\n"
  "local version = type(jit) == \"table\" and jit.version or _VERSION\n"
  "return {\n"
  "  tables = material(identity, vs, ps),\n"
  "  graphics = material(pso.graphics, vs, ps),\n"
  "  checked = material(checked, vs, ps),\n"
  "  checked_small = material(checked, vs_small, ps_small),\n"
  "  lua_check = lua_check,\n"
  "  derive = variant(checked_derive),\n"
  "  derive_tables = variant(identity),\n"
  "}, version, base\n";

enum {
  W_TABLES, W_GRAPHICS, W_CHECKED, W_LUA_CHECK, W_CHECKED_SMALL, W_DERIVE, W_DERIVE_TABLES,
  W_COUNT
};
static const char *const workload_names[W_COUNT] = {
  "tables", "graphics", "checked", "lua_check", "checked_small", "derive", "derive_tables"
};

typedef struct bench {
  lua_State *L;
  int fn[W_COUNT];       /* registry references of the loop functions */
  char version[64];
  size_t object_bytes;   /* the pipeline userdata */
  size_t stream_bytes;
} bench;

static int l_identity(lua_State *L) {
  lua_settop(L, 1);
  return 1;
}

/* psoc_check the pipeline on the top of the stack. */
static void check_top(lua_State *L) {
  const pso_pipeline *p = pso_topipeline(L, -1);
  const psoc_stream *s = pso_pipeline_stream(p);
  if (!s) luaL_error(L, "bench_lua: not a pipeline");
  psoc_diags_clear(&g_diags);
  psoc_check(psoc_stream_data(s), psoc_stream_size(s), NULL, &g_diags);
  if (g_diags.errors)
    luaL_error(L, "bench_lua: the material does not check: %s", g_diags.items[0].message);
  g_sink += g_diags.count + psoc_stream_size(s);
}

/* checked(t): pso.graphics(t) (upvalue 1), then the check. */
static int l_checked(lua_State *L) {
  lua_settop(L, 1);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 1, 1);
  check_top(L);
  return 1;
}

/* checked_derive(base, overrides): pso.derive (upvalue 1), then the check. */
static int l_checked_derive(lua_State *L) {
  lua_settop(L, 2);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 2, 1);
  check_top(L);
  return 1;
}

static void bench_close(bench *b) {
  if (b->L) lua_close(b->L);
  b->L = NULL;
  psoc_diags_free(&g_diags);
}

static int bench_open(bench *b) {
  static unsigned char vs[2048], ps[4096];
  lua_State *L;
  size_t i;
  int w, mod;
  memset(b, 0, sizeof *b);
  psoc_diags_init(&g_diags, NULL);
  for (i = 0; i < sizeof vs; i++) vs[i] = (unsigned char)(i * 7 + 1);
  for (i = 0; i < sizeof ps; i++) ps[i] = (unsigned char)(i * 11 + 2);
  b->L = L = luaL_newstate();
  if (!L) {
    fprintf(stderr, "bench_lua: cannot create a lua_State\n");
    return 1;
  }
  luaL_openlibs(L);
  lua_pushcfunction(L, luaopen_pso);
  if (lua_pcall(L, 0, 1, 0) != 0) goto fail;
  mod = lua_gettop(L);
  if (luaL_loadbuffer(L, bench_script, sizeof bench_script - 1, "=bench_lua") != 0) goto fail;
  lua_pushvalue(L, mod);
  lua_pushlstring(L, (const char *)vs, sizeof vs);
  lua_pushlstring(L, (const char *)ps, sizeof ps);
  lua_pushcfunction(L, l_identity);
  lua_getfield(L, mod, "graphics");
  lua_pushcclosure(L, l_checked, 1);
  lua_getfield(L, mod, "derive");
  lua_pushcclosure(L, l_checked_derive, 1);
  if (lua_pcall(L, 6, 3, 0) != 0) goto fail;
  /* functions, version, base */
  snprintf(b->version, sizeof b->version, "%s", lua_tostring(L, -2));
  if (pso_topipeline(L, -1)) {
    const psoc_stream *s = pso_pipeline_stream(pso_topipeline(L, -1));
    b->object_bytes = (size_t)lua_objlen_compat(L, -1);
    b->stream_bytes = psoc_stream_size(s);
  }
  for (w = 0; w < W_COUNT; w++) {
    lua_getfield(L, -3, workload_names[w]);
    b->fn[w] = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_settop(L, 0);
  return 0;
fail:
  fprintf(stderr, "bench_lua: %s\n", lua_tostring(L, -1));
  bench_close(b);
  return 1;
}

/* ---- timing ---------------------------------------------------------- */

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Run workload w for n iterations (one call of its Lua loop); ns taken,
** or a negative value on an error (printed). */
static double run(bench *b, int w, unsigned long n) {
  lua_State *L = b->L;
  double t0, t1;
  lua_rawgeti(L, LUA_REGISTRYINDEX, b->fn[w]);
  lua_pushnumber(L, (lua_Number)n);
  t0 = now_ns();
  if (lua_pcall(L, 1, 1, 0) != 0) {
    fprintf(stderr, "bench_lua: %s: %s\n", workload_names[w], lua_tostring(L, -1));
    lua_settop(L, 0);
    return -1;
  }
  t1 = now_ns();
  g_sink += (uint64_t)(uintptr_t)lua_touserdata(L, -1) + (uint64_t)lua_type(L, -1);
  lua_settop(L, 0);
  return t1 - t0;
}

/* Iterations so that one run takes about run_ms. */
static unsigned long calibrate(bench *b, int w, double run_ms) {
  unsigned long n = 1;
  for (;;) {
    double ns = run(b, w, n);
    if (ns < 0) return 0;
    if (ns >= run_ms * 1e6 / 8 || n >= (1ul << 30)) {
      double per = ns / (double)n, want = run_ms * 1e6 / (per > 0 ? per : 1);
      return want >= 1 ? (unsigned long)want : 1;
    }
    n *= 2;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define MAX_RUNS 31

/* The workloads in ws[0..nw) measured alternately, run by run; median ns
** per iteration into out[]. Returns 0, or 1 on an error. */
static int measure(bench *b, const int *ws, int nw, int runs, double run_ms, double *out) {
  unsigned long n[W_COUNT];
  double t[W_COUNT][MAX_RUNS];
  int i, r;
  for (i = 0; i < nw; i++) {
    n[i] = calibrate(b, ws[i], run_ms);
    if (!n[i] || run(b, ws[i], n[i] / 10 + 1) < 0) return 1; /* warm-up */
  }
  for (r = 0; r < runs; r++) {
    for (i = 0; i < nw; i++) {
      double ns = run(b, ws[i], n[i]);
      if (ns < 0) return 1;
      t[i][r] = ns / (double)n[i];
    }
  }
  for (i = 0; i < nw; i++) {
    qsort(t[i], (size_t)runs, sizeof(double), cmp_double);
    out[i] = runs % 2 ? t[i][runs / 2] : (t[i][runs / 2 - 1] + t[i][runs / 2]) / 2;
  }
  return 0;
}

/* ---- allocations ------------------------------------------------------ */

/* Calls into the state's allocator while a workload runs (lua_setallocf
** around the runs only: the timed runs use luaL_newstate's allocator
** unwrapped). A free is a call with nsize 0; bytes are the new sizes
** asked for (what the collector's debt follows). */
typedef struct alloc_count {
  lua_Alloc f;
  void *ud;
  unsigned long long allocs, reallocs, frees, bytes;
} alloc_count;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  alloc_count *a = ud;
  if (nsize == 0) {
    if (ptr) a->frees++;
  } else if (ptr) {
    a->reallocs++;
    if (nsize > osize) a->bytes += nsize - osize;
  } else {
    a->allocs++;
    a->bytes += nsize;
  }
  return a->f(a->ud, ptr, osize, nsize);
}

/* Allocator calls per iteration of workload w over n iterations (after
** one warm-up run); returns 0, or 1 on an error. */
static int count_allocs(bench *b, int w, unsigned long n, double out[4]) {
  alloc_count a;
  if (run(b, w, n) < 0) return 1;
  memset(&a, 0, sizeof a);
  a.f = lua_getallocf(b->L, &a.ud);
  lua_setallocf(b->L, counting_alloc, &a);
  if (run(b, w, n) < 0) {
    lua_setallocf(b->L, a.f, a.ud);
    return 1;
  }
  lua_setallocf(b->L, a.f, a.ud);
  out[0] = (double)a.allocs / (double)n;
  out[1] = (double)a.reallocs / (double)n;
  out[2] = (double)a.frees / (double)n;
  out[3] = (double)a.bytes / (double)n;
  return 0;
}

/* ---- fresh states ---------------------------------------------------- */

/* n fresh states, with the pso module opened in each when with_pso. */
static int open_states(unsigned long n, int with_pso) {
  unsigned long i;
  for (i = 0; i < n; i++) {
    lua_State *L = luaL_newstate();
    if (!L) return 1;
    luaL_openlibs(L);
    if (with_pso) {
      lua_pushcfunction(L, luaopen_pso);
      if (lua_pcall(L, 0, 1, 0) != 0) {
        fprintf(stderr, "bench_lua: luaopen_pso: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return 1;
      }
    }
    g_sink += (uint64_t)lua_gettop(L);
    lua_close(L);
  }
  return 0;
}

/* Median ns per state, without [0] and with [1] the module, measured
** alternately. Returns 0, or 1 on an error. */
static int measure_states(int runs, double run_ms, double *out) {
  double t[2][MAX_RUNS], t0;
  unsigned long n = 1;
  int r, k;
  for (;;) { /* calibrate on the larger one */
    t0 = now_ns();
    if (open_states(n, 1)) return 1;
    if (now_ns() - t0 >= run_ms * 1e6 / 8 || n >= (1ul << 24)) break;
    n *= 2;
  }
  n = (unsigned long)((double)n * run_ms * 1e6 / 8 / (now_ns() - t0 + 1) * 8) + 1;
  for (r = 0; r < runs; r++)
    for (k = 0; k < 2; k++) {
      t0 = now_ns();
      if (open_states(n, k)) return 1;
      t[k][r] = (now_ns() - t0) / (double)n;
    }
  for (k = 0; k < 2; k++) {
    qsort(t[k], (size_t)runs, sizeof(double), cmp_double);
    out[k] = runs % 2 ? t[k][runs / 2] : (t[k][runs / 2 - 1] + t[k][runs / 2]) / 2;
  }
  return 0;
}

/* ---- entry points ------------------------------------------------------ */

int bench_lua_main(int quick) {
  static const int material[] = { W_TABLES, W_GRAPHICS, W_CHECKED, W_LUA_CHECK, W_CHECKED_SMALL };
  static const int derive[] = { W_DERIVE_TABLES, W_DERIVE };
  int runs = quick ? 3 : 7;
  double run_ms = quick ? 10.0 : 100.0, m[5], d[2], st[2], ratio, rate, at[4], ac[4];
  unsigned long na = quick ? 2000 : 20000;
  bench b;
  if (bench_open(&b) != 0) return 1;
  if (count_allocs(&b, W_TABLES, na, at) != 0 || count_allocs(&b, W_CHECKED, na, ac) != 0 ||
      measure(&b, material, 5, runs, run_ms, m) != 0 ||
      measure(&b, derive, 2, runs, run_ms, d) != 0 || measure_states(runs, run_ms, st) != 0) {
    bench_close(&b);
    return 1;
  }
  ratio = (m[2] - m[0]) / m[0];
  rate = 1e9 / m[2];
  printf("lua: %s, typical material (DESIGN.md 3), median of %d runs of ~%.0f ms CPU time\n",
         b.version, runs, run_ms);
  printf("lua: tables only (identity for pso.graphics)   %7.0f ns\n", m[0]);
  printf("lua: pso.graphics                              %7.0f ns  %7.0f /s  conversion %.2fx tables\n",
         m[1], 1e9 / m[1], (m[1] - m[0]) / m[0]);
  printf("lua: pso.graphics + psoc_check (checked)       %7.0f ns  %7.0f /s  conversion %.2fx tables\n",
         m[2], rate, ratio);
  printf("lua: pso.graphics + p:check() from Lua         %7.0f ns  %7.0f /s\n", m[3], 1e9 / m[3]);
  printf("lua: checked, 64-byte shaders                  %7.0f ns  %7.0f /s  conversion %.2fx tables\n",
         m[4], 1e9 / m[4], (m[4] - m[0]) / m[0]);
  printf("lua: pso.derive + psoc_check                   %7.0f ns  %7.0f /s  (overrides table: %.0f ns)\n",
         d[1], 1e9 / d[1], d[0]);
  printf("lua: pipeline object %zu bytes (stream %zu bytes + layout copies; shaders borrowed)\n",
         b.object_bytes, b.stream_bytes);
  printf("lua: allocator calls per iteration: tables %.1f new + %.1f resize + %.1f free "
         "(%.0f bytes), checked %.1f + %.1f + %.1f (%.0f bytes: %.0f more for the collector)\n",
         at[0], at[1], at[2], at[3], ac[0], ac[1], ac[2], ac[3], ac[3] - at[3]);
  printf("lua: fresh state (openlibs)                    %7.0f ns\n", st[0]);
  printf("lua: fresh state + luaopen_pso                 %7.0f ns  open %.2fx the state\n", st[1],
         (st[1] - st[0]) / st[0]);
  printf("RESULT lua_tables_ns %.1f\n", m[0]);
  printf("RESULT lua_graphics_ns %.1f\n", m[1]);
  printf("RESULT lua_checked_ns %.1f\n", m[2]);
  printf("RESULT lua_lua_check_ns %.1f\n", m[3]);
  printf("RESULT lua_checked_small_shaders_ns %.1f\n", m[4]);
  printf("RESULT lua_derive_ns %.1f\n", d[1]);
  printf("RESULT lua_pipeline_object_bytes %zu\n", b.object_bytes);
  printf("RESULT lua_tables_allocs %.1f\n", at[0] + at[1]);
  printf("RESULT lua_tables_alloc_bytes %.0f\n", at[3]);
  printf("RESULT lua_checked_allocs %.1f\n", ac[0] + ac[1]);
  printf("RESULT lua_checked_alloc_bytes %.0f\n", ac[3]);
  printf("RESULT lua_state_ns %.1f\n", st[0]);
  printf("RESULT lua_state_pso_ns %.1f\n", st[1]);
  printf("RATIO lua_conversion %.2f\n", ratio);
  printf("RATIO lua_open %.2f\n", (st[1] - st[0]) / st[0]);
  printf("RATIO lua_conversion_unchecked %.2f\n", (m[1] - m[0]) / m[0]);
  printf("RATIO lua_conversion_small_shaders %.2f\n", (m[4] - m[0]) / m[0]);
  printf("RATE lua_pipelines_per_s %.0f\n", rate);
  printf("RATE lua_derives_per_s %.0f\n", 1e9 / d[1]);
  printf("TARGET lua_pipelines_per_s >= 300000: %s\n", rate >= 300000 ? "met" : "not met");
  printf("TARGET lua_conversion <= 2.00: %s\n", ratio <= 2.0 ? "met" : "not met");
  fflush(stdout);
  bench_close(&b);
  return 0;
}

int bench_lua_loop(const char *what, unsigned long iterations) {
  bench b;
  int w, r;
  if (strcmp(what, "state") == 0 || strcmp(what, "state_pso") == 0)
    return open_states(iterations, what[5] != '\0');
  for (w = 0; w < W_COUNT; w++)
    if (strcmp(what, workload_names[w]) == 0) break;
  if (w == W_COUNT) {
    fprintf(stderr, "bench_lua: unknown workload '%s'\n", what);
    return 1;
  }
  if (bench_open(&b) != 0) return 1;
  r = run(&b, w, iterations) < 0;
  bench_close(&b);
  return r;
}

/* --allocs: allocator calls and bytes per iteration of every workload. */
static int bench_lua_allocs(unsigned long n) {
  bench b;
  double a[4];
  int w;
  if (bench_open(&b) != 0) return 1;
  for (w = 0; w < W_COUNT; w++) {
    if (count_allocs(&b, w, n, a) != 0) {
      bench_close(&b);
      return 1;
    }
    printf("%-14s %6.2f new %6.2f resize %6.2f free %8.0f bytes per iteration\n",
           workload_names[w], a[0], a[1], a[2], a[3]);
  }
  bench_close(&b);
  return 0;
}

__attribute__((weak)) int main(int argc, char **argv) {
  const char *loop = NULL;
  unsigned long iterations = 10000;
  int quick = 0, allocs = 0, i;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if (strncmp(argv[i], "--loop=", 7) == 0) {
      loop = argv[i] + 7;
    } else if (strcmp(argv[i], "--allocs") == 0) {
      allocs = 1;
    } else if (strncmp(argv[i], "--iterations=", 13) == 0) {
      iterations = strtoul(argv[i] + 13, NULL, 10);
    } else {
      printf("usage: %s [--quick] [--loop=WHAT [--iterations=N]] [--allocs [--iterations=N]]\n"
             "  WHAT: tables, graphics, checked, lua_check, checked_small, derive, derive_tables\n",
             argv[0]);
      return strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  if (allocs) return bench_lua_allocs(iterations);
  return loop ? bench_lua_loop(loop, iterations) : bench_lua_main(quick);
}
