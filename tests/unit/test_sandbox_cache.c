/*
** test_sandbox_cache.c: the sandbox's per-process chunk cache (psol.h,
** psol_chunk_cache_stats): modules and scripts compiled once per process
** are loaded from their dump by later states, and still every state is on
** its own (no module global, upvalue, table or library change of one
** evaluation is seen by another), edits are seen at once (the cache is
** keyed by content), errors name the right file and line, and budgets
** still stop runaways. And the state's own heap (small blocks in size
** classes from chunks of the state's, large ones malloc'd): blocks of every
** size grow, shrink, are freed and reused with their contents intact, and
** the memory count comes back when the garbage is collected.
*/
#ifndef _WIN32
#define _XOPEN_SOURCE 700
#endif
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "psol.h"
#include "test_sandbox.h"

static void put(const char *rel, const char *text) {
  char path[512];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", root_dir, rel);
  f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot create %s", path);
  ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
  fclose(f);
}

/* Run src in a fresh sandboxed state; the first result as a string (or
** the error message) into out. Returns the psol_dostring status. */
static int run_fresh(const psol_options *o, const char *src, char *out, size_t n) {
  char err[256];
  lua_State *L = psol_newstate(o, err, sizeof err);
  int status;
  ck_assert_msg(L != NULL, "%s", err);
  status = psol_dostring(L, "=cache_test", src, strlen(src), 1);
  if (status == LUA_OK) snprintf(out, n, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
  else psol_error_message(L, -1, out, n);
  psol_close(L);
  return status;
}

static const char iso_module[] =
  "local count = 0\n"
  "local M = { list = {} }\n"
  "function M.bump() count = count + 1 return count end\n"
  "SHARED = (SHARED or 0) + 1\n"
  "return M\n";

/* What one evaluation sees of the module, then changes in it. */
static const char iso_user[] =
  "local m = require 'lib.iso'\n"
  "local seen = table.concat({ m.bump(), tostring(m.list[1]), SHARED, tostring(string.extra),"
  " tostring(m.added), ('abc'):upper() }, ' ')\n"
  "m.bump() m.bump()\n"
  "m.list[1] = 'mutated' m.added = true SHARED = 100 string.extra = 'x'\n"
  "local mt = getmetatable('') if type(mt) == 'table' then pcall(function() mt.__index = {} end) end\n"
  "return seen\n";

START_TEST(test_cache_isolation) {
  psol_options o = sandbox_options();
  uint64_t hits0, hits1, misses0, misses1;
  char out[512];
  int i;
  put("lib/iso.lua", iso_module);
  psol_chunk_cache_stats(&hits0, &misses0, NULL);
  for (i = 0; i < 4; i++) {
    ck_assert_msg(run_fresh(&o, iso_user, out, sizeof out) == LUA_OK, "%s", out);
    /* every evaluation sees a module fresh from its source */
    ck_assert_msg(strcmp(out, "1 nil 1 nil nil ABC") == 0, "evaluation %d saw '%s'", i, out);
  }
  psol_chunk_cache_stats(&hits1, &misses1, NULL);
  /* the module and the script came from the cache from the third state on */
  ck_assert_uint_ge(hits1 - hits0, 4);
  ck_assert_uint_ge(misses1 - misses0, 2);
}
END_TEST

/* The built-in presets are one set of definitions for the whole process
** (static, read-only; pso_presets.c), each state making a preset's table
** and proxy when a script first names it. Every way a script has at a
** preset, a namespace or the values it got from one changes nothing the
** next state sees. */
static const char preset_attack[] =
  "local pso = require 'pso'\n"
  "local out = {}\n"
  "local function add(v) out[#out + 1] = tostring(v) end\n"
  "local a = pso.blend.alpha\n"
  "add(a.src) add(a.dst) add(a.enable) add(a.write_mask)\n"
  "add(pso.rasterizer.shadow_bias.depth_bias) add(pso.depth.reverse_z.func)\n"
  "add(rawequal(a, pso.blend.alpha)) add(type(getmetatable(a)))\n"
  "add(pcall(function() a.src = 'zero' end))\n"
  "add(pcall(rawset, a, 'src', 'zero'))\n"
  "add(pcall(rawset, pso.blend, 'alpha', { src = 'zero' }))\n"
  "add(pcall(setmetatable, a, {}))\n"
  "add(pcall(setmetatable, pso.blend, {}))\n"
  "add(pcall(function() pso.blend.alpha = pso.blend.opaque end))\n"
  "add(pcall(function() pso.depth.mine = {} end))\n"
  "local mt = getmetatable(pso.blend)\n"
  "add(pcall(function() mt.__index = function() return 'zero' end end))\n"
  "local c = pso.copy(a) c.src = 'zero' c.enable = false\n"
  "for k, v in pso.preset_pairs(a) do if type(v) == 'table' then v.src = 'zero' end end\n"
  "local p = pso.graphics { name = 'p', vs = pso.shader 'vs.cso', blend = a }\n"
  "add(p.blend.render_targets[1].src)\n"
  "pso.blend = { alpha = { src = 'zero' } }\n" /* this state's module table only */
  "return table.concat(out, ' ')\n";

START_TEST(test_builtin_presets_shared_readonly) {
  static const char expect[] = "src_alpha inv_src_alpha true all 1000 greater_equal true string "
                               "false false false false false false false false src_alpha";
  psol_options o = sandbox_options();
  char out[512];
  int i;
  for (i = 0; i < 3; i++) {
    ck_assert_msg(run_fresh(&o, preset_attack, out, sizeof out) == LUA_OK, "%s", out);
    ck_assert_msg(strcmp(out, expect) == 0, "evaluation %d saw '%s'", i, out);
  }
}
END_TEST

/* A namespace read as a whole (pairs, #, an unknown name's list) holds
** every preset whichever of them the state made before, and keeps those
** it made (the same proxies). (The order pairs gives depends on the
** state's string hash seed, so only the sets are compared.) */
static const char *const rasterizer_presets[] = {
  "default", "cull_none", "cull_front", "wireframe", "shadow_bias"
};

START_TEST(test_builtin_presets_made_on_use) {
  static const char whole[] =
    "local pso = require 'pso'\n"
    "local t = {}\n"
    "for _, ns in ipairs { 'blend', 'rasterizer', 'depth' } do\n"
    "  local names = {}\n"
    "  for k in pso.preset_pairs(pso[ns]) do names[#names + 1] = k end\n"
    "  table.sort(names)\n"
    "  t[#t + 1] = table.concat(names, ',')\n"
    "end\n"
    "return table.concat(t, ' ') .. ' ' .. #pso.blend\n";
  static const char named_first[] =
    "local pso = require 'pso'\n"
    "local m, al, ro = pso.blend.multiply, pso.blend.alpha, pso.depth.read_only\n"
    "local sb = pso.rasterizer.shadow_bias\n"
    "local t, same = {}, true\n"
    "for _, ns in ipairs { 'blend', 'rasterizer', 'depth' } do\n"
    "  local names = {}\n"
    "  for k, v in pso.preset_pairs(pso[ns]) do\n"
    "    names[#names + 1] = k\n"
    "    if tostring(v) ~= 'preset ' .. ns .. '.' .. k then same = false end\n"
    "    if k == 'alpha' then same = same and rawequal(v, al) end\n"
    "    if k == 'multiply' then same = same and rawequal(v, m) end\n"
    "    if k == 'read_only' then same = same and rawequal(v, ro) end\n"
    "    if k == 'shadow_bias' then same = same and rawequal(v, sb) end\n"
    "  end\n"
    "  table.sort(names)\n"
    "  t[#t + 1] = table.concat(names, ',')\n"
    "end\n"
    "same = same and rawequal(pso.blend.alpha, al) and al.src == 'src_alpha'\n"
    "return table.concat(t, ' ') .. ' ' .. #pso.blend .. ' ' .. tostring(same)\n";
  static const char unknown_fresh[] =
    "local pso = require 'pso'\n"
    "local ok, e = pcall(function() return pso.rasterizer.zzzzzzzz end)\n"
    "return tostring(ok) .. ' ' .. e\n";
  static const char unknown_after[] =
    "local pso = require 'pso'\n"
    "local w, d = pso.rasterizer.wireframe, pso.rasterizer.default\n"
    "local ok, e = pcall(function() return pso.rasterizer.zzzzzzzz end)\n"
    "return tostring(ok) .. ' ' .. e .. ' ' .. tostring(rawequal(w, pso.rasterizer.wireframe))\n";
  psol_options o = sandbox_options();
  char a[512], b[512];
  size_t i, n;
  ck_assert_msg(run_fresh(&o, whole, a, sizeof a) == LUA_OK, "%s", a);
  ck_assert_str_eq(a, "additive,alpha,multiply,opaque,premultiplied "
                      "cull_front,cull_none,default,shadow_bias,wireframe "
                      "default,disabled,equal,read_only,reverse_z 0");
  ck_assert_msg(run_fresh(&o, named_first, b, sizeof b) == LUA_OK, "%s", b);
  n = strlen(a);
  ck_assert_msg(strncmp(a, b, n) == 0 && strcmp(b + n, " true") == 0, "'%s' against '%s'", a, b);
  ck_assert_msg(run_fresh(&o, unknown_fresh, a, sizeof a) == LUA_OK, "%s", a);
  ck_assert_msg(run_fresh(&o, unknown_after, b, sizeof b) == LUA_OK, "%s", b);
  ck_assert_msg(strncmp(a, "false ", 6) == 0 && strstr(a, "unknown preset ("), "%s", a);
  ck_assert_msg(strcmp(b + strlen(b) - 5, " true") == 0, "%s", b);
  for (i = 0; i < 5; i++) { /* every name listed, made before or not */
    ck_assert_msg(strstr(a, rasterizer_presets[i]) != NULL, "%s: no %s", a, rasterizer_presets[i]);
    ck_assert_msg(strstr(b, rasterizer_presets[i]) != NULL, "%s: no %s", b, rasterizer_presets[i]);
  }
}
END_TEST

START_TEST(test_cache_off) {
  psol_options o = sandbox_options();
  uint64_t hits0, hits1, misses0, misses1;
  char out[512];
  int i;
  put("lib/iso.lua", iso_module);
  o.flags = PSOL_NO_CHUNK_CACHE;
  psol_chunk_cache_stats(&hits0, &misses0, NULL);
  for (i = 0; i < 3; i++) {
    ck_assert_msg(run_fresh(&o, iso_user, out, sizeof out) == LUA_OK, "%s", out);
    ck_assert_str_eq(out, "1 nil 1 nil nil ABC");
  }
  psol_chunk_cache_stats(&hits1, &misses1, NULL);
  ck_assert_uint_eq(hits1, hits0);
  ck_assert_uint_eq(misses1, misses0);
}
END_TEST

/* An edited module is new text: the next state sees the edit, even when
** the size is the same and the old text is cached. */
START_TEST(test_cache_sees_edits) {
  psol_options o = sandbox_options();
  static const char use[] = "return tostring(require 'lib.ver')";
  char out[256];
  int i;
  put("lib/ver.lua", "return 'one'\n");
  for (i = 0; i < 3; i++) {
    ck_assert_int_eq(run_fresh(&o, use, out, sizeof out), LUA_OK);
    ck_assert_str_eq(out, "one");
  }
  put("lib/ver.lua", "return 'two'\n");
  ck_assert_int_eq(run_fresh(&o, use, out, sizeof out), LUA_OK);
  ck_assert_str_eq(out, "two");
  put("lib/ver.lua", "return 'one'\n"); /* back: the cached entry again */
  ck_assert_int_eq(run_fresh(&o, use, out, sizeof out), LUA_OK);
  ck_assert_str_eq(out, "one");
}
END_TEST

/* The same text under two names: each error names its own file and the
** line, from the cache too. */
START_TEST(test_cache_error_positions) {
  psol_options o = sandbox_options();
  static const char body[] = "local M = {}\n\nerror('boom')\nreturn M\n";
  char out[512], want[600];
  int i;
  uint64_t hits0, hits1;
  put("lib/a.lua", body);
  put("lib/b.lua", body);
  psol_chunk_cache_stats(&hits0, NULL, NULL);
  for (i = 0; i < 3; i++) {
    ck_assert_int_ne(run_fresh(&o, "return require 'lib.a'", out, sizeof out), LUA_OK);
    snprintf(want, sizeof want, "%s/lib/a.lua:3: boom", root_dir);
    ck_assert_msg(strstr(out, want) != NULL, "run %d: '%s'", i, out);
    ck_assert_int_ne(run_fresh(&o, "return require 'lib.b'", out, sizeof out), LUA_OK);
    snprintf(want, sizeof want, "%s/lib/b.lua:3: boom", root_dir);
    ck_assert_msg(strstr(out, want) != NULL, "run %d: '%s'", i, out);
  }
  psol_chunk_cache_stats(&hits1, NULL, NULL);
  ck_assert_uint_gt(hits1, hits0);
}
END_TEST

/* A cached runaway is stopped like a compiled one, every time. */
START_TEST(test_cache_budget) {
  psol_options o = sandbox_options();
  char out[512];
  int i;
  put("lib/spin.lua", "local n = 0\nwhile true do n = n + 1 end\n");
  put("lib/hog.lua", "local t = {}\nfor i = 1, 1e9 do t[i] = ('x'):rep(64) .. i end\n");
  o.instruction_limit = 200000;
  o.memory_limit = 4u << 20;
  for (i = 0; i < 3; i++) {
    ck_assert_int_ne(run_fresh(&o, "return require 'lib.spin'", out, sizeof out), LUA_OK);
    ck_assert_msg(strstr(out, "instruction") != NULL, "run %d: '%s'", i, out);
  }
  o.instruction_limit = 0;
  for (i = 0; i < 3; i++) {
    ck_assert_int_ne(run_fresh(&o, "return require 'lib.hog'", out, sizeof out), LUA_OK);
    ck_assert_msg(strstr(out, "memory") != NULL, "run %d: '%s'", i, out);
  }
}
END_TEST

/* Binary chunks stay refused: a module file holding the cache's own kind
** of bytes (a dump) is not loaded, cached text or not. */
START_TEST(test_cache_binary_refused) {
  psol_options o = sandbox_options();
  char out[512];
  int i;
  for (i = 0; i < 3; i++) {
    ck_assert_int_ne(run_fresh(&o, "return require 'lib.evil'", out, sizeof out), LUA_OK);
    ck_assert_msg(strstr(out, "binary chunk") != NULL, "run %d: '%s'", i, out);
  }
}
END_TEST

/* Tables and strings of every size class and past it, grown one step at
** a time (each growth a realloc that may change class or go large), kept,
** checked, dropped and made again (the free lists reused). */
static const char heap_src[] =
  "local function build(round)\n"
  "  local keep = {}\n"
  "  for n = 1, 700, 7 do\n"
  "    local t = {}\n"
  "    for i = 1, n do t[i] = i * round end\n"
  "    local h = {}\n"
  "    for i = 1, n % 90 do h['k' .. i] = i end\n"
  "    keep[#keep + 1] = { t = t, h = h, s = ('ab'):rep(n) .. round, n = n }\n"
  "  end\n"
  "  return keep\n"
  "end\n"
  "local function check(keep, round)\n"
  "  for _, e in ipairs(keep) do\n"
  "    local n = e.n\n"
  "    if #e.t ~= n or e.t[n] ~= n * round or e.t[1] ~= round then return false end\n"
  "    for i = 1, n % 90 do if e.h['k' .. i] ~= i then return false end end\n"
  "    if #e.s ~= 2 * n + #tostring(round) or e.s:sub(-#tostring(round)) ~= tostring(round)"
  " then return false end\n"
  "  end\n"
  "  return true\n"
  "end\n"
  "local ok = true\n"
  "for round = 1, 4 do\n"
  "  local a = build(round)\n"
  "  local b = build(round + 10)\n"
  "  ok = ok and check(a, round) and check(b, round + 10)\n"
  "end\n"
  "return ok and 'intact' or 'damaged'\n";

START_TEST(test_state_heap) {
  psol_options o = sandbox_options();
  char err[256];
  lua_State *L;
  size_t before, peak, after;
  int i;
  L = psol_newstate(&o, err, sizeof err);
  ck_assert_msg(L != NULL, "%s", err);
  lua_gc(L, LUA_GCCOLLECT, 0);
  before = psol_memory(L);
  for (i = 0; i < 3; i++) {
    ck_assert_int_eq(psol_dostring(L, "=heap", heap_src, strlen(heap_src), 1), LUA_OK);
    ck_assert_str_eq(lua_tostring(L, -1), "intact");
    lua_pop(L, 1);
  }
  peak = psol_memory(L);
  lua_gc(L, LUA_GCCOLLECT, 0);
  after = psol_memory(L);
  /* the garbage went back: what is left is the state, the cached chunk's
  ** source (pso_remember_source) and Lua's caches, not the tables */
  ck_assert_uint_lt(after, before + 64 * 1024);
  ck_assert_uint_gt(peak, after);
  psol_close(L);
  /* a big allocation past the limit still fails cleanly */
  o.memory_limit = 8u << 20;
  L = psol_newstate(&o, err, sizeof err);
  ck_assert_msg(L != NULL, "%s", err);
  ck_assert_int_ne(psol_dostring(L, "=big", "return ('x'):rep(64 * 1024 * 1024)", 34, 1), LUA_OK);
  ck_assert_ptr_nonnull(strstr(lua_tostring(L, -1), "memory"));
  lua_pop(L, 1);
  ck_assert_int_eq(psol_dostring(L, "=heap", heap_src, strlen(heap_src), 1), LUA_OK);
  ck_assert_str_eq(lua_tostring(L, -1), "intact");
  psol_close(L);
}
END_TEST

/* A new state's collector waits until the state has made 512 KiB more
** than its setup (a quarter of the memory limit at most) where a refused
** allocation collects (5.2+): garbage below that is still counted after
** the script, garbage past it is collected without being asked; a small
** limit still lets a script make any amount of garbage, and live data past
** it still fails. Lua 5.1 and LuaJIT collect from the start. */
static int run_garbage(lua_State *L, int n) {
  char src[128];
  int status;
  snprintf(src, sizeof src, "for i = 1, %d do local t = { i, i } end return 'done'", n);
  status = psol_dostring(L, "=garbage", src, strlen(src), 1);
  if (status == LUA_OK) ck_assert_str_eq(lua_tostring(L, -1), "done");
  lua_pop(L, 1);
  return status;
}

START_TEST(test_state_gc_hold) {
  psol_options o = sandbox_options();
  char err[256];
  lua_State *L;
  size_t setup;
  L = psol_newstate(&o, err, sizeof err);
  ck_assert_msg(L != NULL, "%s", err);
  setup = psol_memory(L);
  /* 3,500 tables of two: about 300 KB of garbage */
  ck_assert_int_eq(run_garbage(L, 3500), LUA_OK);
#if LUA_VERSION_NUM >= 502 /* not LuaJIT (501) */
  ck_assert_msg(psol_memory(L) > setup + 250 * 1024, "%zu after, %zu before", psol_memory(L),
                setup);
#endif
  /* 100,000 more: 8 MB; the collector has run since */
  ck_assert_int_eq(run_garbage(L, 100000), LUA_OK);
  ck_assert_msg(psol_memory(L) < setup + 2 * 1024 * 1024, "%zu after, %zu before",
                psol_memory(L), setup);
  psol_close(L);
  /* a 1 MiB limit: 256 KiB held, then collected as before (garbage past
  ** the limit needs the emergency collection: 5.2+) */
  o.memory_limit = 1u << 20;
  L = psol_newstate(&o, err, sizeof err);
  ck_assert_msg(L != NULL, "%s", err);
#if LUA_VERSION_NUM >= 502
  ck_assert_int_eq(run_garbage(L, 200000), LUA_OK);
  ck_assert_uint_lt(psol_memory(L), 1u << 20);
#endif
  ck_assert_int_ne(psol_dostring(L, "=live", "local t = {} for i = 1, 1e6 do t[i] = { i } end",
                                 strlen("local t = {} for i = 1, 1e6 do t[i] = { i } end"), 0),
                   LUA_OK);
  ck_assert_ptr_nonnull(strstr(lua_tostring(L, -1), "memory"));
  lua_pop(L, 1);
#if LUA_VERSION_NUM >= 502
  ck_assert_int_eq(run_garbage(L, 200000), LUA_OK); /* the state still works */
#endif
  psol_close(L);
}
END_TEST

/* States on four threads load the same modules through the cache at once
** (and one of them clears it meanwhile): every evaluation still sees its
** own fresh module. */
typedef struct cache_worker {
  psol_options o;
  int clear, bad;
} cache_worker;

static void cache_worker_main(void *arg) {
  cache_worker *w = (cache_worker *)arg;
  char out[512];
  int i;
  for (i = 0; i < 25; i++) {
    if (run_fresh(&w->o, iso_user, out, sizeof out) != LUA_OK ||
        strcmp(out, "1 nil 1 nil nil ABC") != 0)
      w->bad++;
    if (w->clear && i % 5 == 0) psol_chunk_cache_clear();
  }
}

START_TEST(test_cache_threads) {
  cache_worker w[4];
  psoc_plat_thread t[4];
  int i, started[4];
  put("lib/iso.lua", iso_module);
  for (i = 0; i < 4; i++) {
    w[i].o = sandbox_options();
    w[i].clear = i == 3;
    w[i].bad = 0;
    started[i] = psoc_plat_thread_start(&t[i], cache_worker_main, &w[i]) == 0;
  }
  for (i = 0; i < 4; i++) {
    if (started[i]) psoc_plat_thread_join(&t[i]);
    else cache_worker_main(&w[i]);
    ck_assert_int_eq(w[i].bad, 0);
  }
}
END_TEST

void sandbox_cache_cases(Suite *s) {
  TCase *tc = tcase_create("chunk_cache");
  tcase_add_checked_fixture(tc, sandbox_make_tree, sandbox_remove_tree);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_cache_isolation);
  tcase_add_test(tc, test_cache_off);
  tcase_add_test(tc, test_builtin_presets_shared_readonly);
  tcase_add_test(tc, test_builtin_presets_made_on_use);
  tcase_add_test(tc, test_cache_sees_edits);
  tcase_add_test(tc, test_cache_error_positions);
  tcase_add_test(tc, test_cache_budget);
  tcase_add_test(tc, test_cache_binary_refused);
  tcase_add_test(tc, test_state_heap);
  tcase_add_test(tc, test_state_gc_hold);
  tcase_add_test(tc, test_cache_threads);
  suite_add_tcase(s, tc);
}
