/*
** test_language.c: promises of the material language that only show
** through the embedding API (psol_evaluate_*, pso_module.h), where
** the tests in tests/lua cannot reach: a script's result is checked as a
** whole (no two pipelines named alike), and its streams with the
** input-layout rules; where a pipeline was declared and where an error
** is, as data (pso_pipeline_site, pso_error_info).
*/
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "compat.h" /* lua_rawlen on Lua 5.1 */
#include "pso_module.h"
#include "psoc.h"
#include "psol.h"
#include "suites.h"

static psoc_status eval(const char *src, psol_result *r) {
  return psol_evaluate_string(NULL, "=mat.lua", src, strlen(src), r);
}

#define VS "local pso = require 'pso'\nlocal vs = pso.shader { bytes = 'x' }\n"

/* Two pipelines named alike in one result would overwrite each other in a
** cache or a cooked pack: an error naming both entries (issue 9.6). */
START_TEST(test_duplicate_names_are_an_error) {
  psol_result r;
  ck_assert_int_eq(eval(VS "return { pso.graphics { name = 'lit', vs = vs },\n"
                           "         pso.graphics { name = 'other', vs = vs },\n"
                           "         pso.graphics { name = 'lit', vs = vs } }\n", &r),
                   PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "mat.lua: result[3]: two pipelines are named 'lit' "
                                "(result[1] and result[3])") != NULL, "%s", r.error);
  ck_assert_uint_eq(r.count, 0);
  psol_result_free(&r);
  /* the same pipeline twice, and a derived one keeping the name */
  ck_assert_int_eq(eval(VS "local p = pso.graphics { name = 'a', vs = vs }\nreturn { p, p }\n", &r),
                   PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "named 'a'") != NULL, "%s", r.error);
  psol_result_free(&r);
}
END_TEST

/* Distinct names, and any number of unnamed pipelines, are fine. */
START_TEST(test_distinct_and_unnamed_names_pass) {
  psol_result r;
  ck_assert_int_eq(eval(VS "local a = pso.graphics { name = 'a', vs = vs }\n"
                           "return { a, pso.derive(a, { name = 'b' }), pso.graphics { vs = vs },\n"
                           "         pso.graphics { vs = vs } }\n", &r),
                   PSOC_OK);
  ck_assert_str_eq(r.error, "");
  ck_assert_uint_eq(r.count, 4);
  psol_result_free(&r);
}
END_TEST

/* pso_check_result itself: the shape, with the reason pushed. */
START_TEST(test_check_result_api) {
  lua_State *L = psol_newstate(NULL, NULL, 0);
  ck_assert_ptr_nonnull(L);
  ck_assert_int_eq(psol_dostring(L, "=m", VS "return { pso.graphics { vs = vs }, 42 }",
                                 strlen(VS "return { pso.graphics { vs = vs }, 42 }"), 1),
                   LUA_OK);
  ck_assert_int_eq(pso_check_result(L, -1), 0);
  ck_assert_msg(strstr(lua_tostring(L, -1), "result[2] is a number, not a pipeline") != NULL, "%s",
                lua_tostring(L, -1));
  lua_pop(L, 2);
  lua_pushinteger(L, 1);
  ck_assert_int_eq(pso_check_result(L, -1), 0);
  ck_assert_msg(strstr(lua_tostring(L, -1), "(it returned number)") != NULL, "%s",
                lua_tostring(L, -1));
  lua_settop(L, 0);
  psol_close(L);
}
END_TEST

/* psol_evaluate_* checks every stream with PSO_PIPELINE_CHECK_FLAGS: the
** input-layout rules that need no shader run without any option (the
** module built the element array), and a duplicate semantic fails as
** CreatePipelineState would (CREATEINPUTLAYOUT_DUPLICATESEMANTIC). */
START_TEST(test_evaluate_checks_the_input_layout) {
  psol_result r;
  ck_assert_int_eq(eval(VS "return pso.graphics { name = 'd', vs = vs, input_layout = {\n"
                           "  { 'TEXCOORD', 'R32G32_FLOAT' }, { 'TEXCOORD', 'R32G32_FLOAT' } } }\n", &r),
                   PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "DUPLICATESEMANTIC") != NULL, "%s", r.error);
  psol_result_free(&r);
  ck_assert_int_eq(eval(VS "return pso.graphics { name = 'd', vs = vs, input_layout = {\n"
                           "  { 'TEXCOORD', 'R32G32_FLOAT' }, { 'TEXCOORD', 'R32G32_FLOAT', index = 1 } } }\n",
                        &r),
                   PSOC_OK);
  ck_assert_str_eq(r.error, "");
  psol_result_free(&r);
}
END_TEST

/* pso_field_path: D3D12 diagnostic paths as the material spells them. */
START_TEST(test_field_path) {
  static const char *const cases[][2] = {
    { "RENDER_TARGET_FORMATS.RTFormats[0]", "render_targets[1]" },
    { "DEPTH_STENCIL_FORMAT", "depth_format" },
    { "BLEND.RenderTarget[1].SrcBlend", "blend.render_targets[2].src" },
    { "BLEND.IndependentBlendEnable", "blend.independent" },
    { "INPUT_LAYOUT.pInputElementDescs[3].SemanticIndex", "input_layout[4].index" },
    { "RASTERIZER1.CullMode", "rasterizer.cull" },
    { "SAMPLE_DESC.Count", "sample_desc.count" },
    { "CS.pShaderBytecode", "cs" },
    { "NOT_A_SUBOBJECT.X", "NOT_A_SUBOBJECT.X" },     /* unknown: unchanged */
    { "RASTERIZER.NoSuchMember", "RASTERIZER.NoSuchMember" },
    { "", "" },
  };
  char out[96];
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n = pso_field_path(cases[i][0], out, sizeof out);
    ck_assert_msg(strcmp(out, cases[i][1]) == 0, "%s -> %s (want %s)", cases[i][0], out, cases[i][1]);
    ck_assert_uint_eq(n, strlen(out));
  }
  ck_assert_uint_eq(pso_field_path("DEPTH_STENCIL_FORMAT", out, 4), 3); /* truncated, terminated */
  ck_assert_str_eq(out, "dep");
}
END_TEST

/* A plain state with the pso module (no sandbox: what the module itself
** records), and a chunk run in it; its source is remembered as the
** sandbox does, so errors can name the line of a key. The scripts make no
** tail calls (LuaJIT drops the caller's frame for them). */
static lua_State *plain_state(void) {
  lua_State *L = luaL_newstate();
  ck_assert_ptr_nonnull(L);
  luaL_openlibs(L);
  lua_pushcfunction(L, luaopen_pso); /* require "pso", in every Lua version */
  lua_call(L, 0, 1);
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "loaded");
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "pso");
  lua_pop(L, 3);
  return L;
}

static int run_chunk(lua_State *L, const char *name, const char *src) {
  pso_remember_source(L, name, src, strlen(src));
  ck_assert_int_eq(luaL_loadbuffer(L, src, strlen(src), name), LUA_OK);
  return lua_pcall(L, 0, 1, 0);
}

/* The declaration site is recorded when a pipeline is declared: the line
** of its pso.graphics/derive call, as data. */
START_TEST(test_pipeline_site) {
  lua_State *L = plain_state();
  const pso_pipeline *p;
  pso_site site;
  ck_assert_int_eq(run_chunk(L, "=mat.lua",
                             "local pso = require 'pso'\n"
                             "local vs = pso.shader { bytes = 'x' }\n"
                             "local a = pso.graphics {\n"
                             "  name = 'a', vs = vs }\n"
                             "local function f() local p = pso.derive(a, { name = 'b' }) return p end\n"
                             "return { a, f() }\n"),
                   LUA_OK);
  lua_rawgeti(L, -1, 1);
  p = pso_topipeline(L, -1);
  ck_assert_ptr_nonnull(p);
  site = pso_pipeline_site(p);
  ck_assert_str_eq(site.source, "mat.lua");
  ck_assert_int_eq(site.line, 3);
  lua_pop(L, 1);
  lua_rawgeti(L, -1, 2);
  p = pso_topipeline(L, -1);
  ck_assert_ptr_nonnull(p);
  site = pso_pipeline_site(p);
  ck_assert_str_eq(site.source, "mat.lua");
  ck_assert_int_eq(site.line, 5);
  lua_pop(L, 1);
  /* a copy from another state has no site */
  p = pso_push_pipeline(L, pso_pipeline_stream(p), pso_pipeline_kind(p), "c", NULL);
  site = pso_pipeline_site(p);
  ck_assert_ptr_null(site.source);
  ck_assert_int_eq(site.line, 0);
  lua_close(L);
}
END_TEST

/* The chunk name of a declaration site is cached per function: pipelines
** declared alternately from functions of different chunks (a "@file", a
** "=name" and a string chunk) each name their own chunk, also after a
** factory has been collected and a new one loaded in its place. (No tail
** calls: LuaJIT drops the caller's frame for them.) */
static const char site_a[] = "local pso = ...\nreturn function(vs) local p = pso.graphics { vs = vs } return p end\n";
static const char site_b[] = "local pso = ...\n\nreturn function(vs) local p = pso.graphics { vs = vs } return p end\n";
static const char site_s[] = "local pso = ... return function(vs) local p = pso.graphics { vs = vs } return p end";

static void push_factory(lua_State *L, const char *src, const char *name) {
  ck_assert_int_eq(name ? luaL_loadbuffer(L, src, strlen(src), name) : luaL_loadstring(L, src), LUA_OK);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "pso");
  lua_call(L, 1, 1);
  lua_call(L, 1, 1);
}

START_TEST(test_pipeline_site_per_function) {
  lua_State *L = plain_state();
  static const int order[] = { 0, 1, 2, 0, 2, 1, 1, 0 };
  static const int line[] = { 2, 3, 1 };
  const char *src[3] = { "a.lua", "b.lua", NULL };
  char short_src[LUA_IDSIZE];
  lua_Debug ar;
  int round, i, base;
  push_factory(L, site_a, "@a.lua");
  push_factory(L, site_b, "=b.lua");
  push_factory(L, site_s, NULL);
  base = lua_gettop(L) - 3;
  lua_pushvalue(L, base + 3); /* a string chunk: named as this Lua shortens it */
  ck_assert(lua_getinfo(L, ">S", &ar));
  snprintf(short_src, sizeof short_src, "%s", ar.short_src);
  ck_assert_int_eq(short_src[0], '[');
  src[2] = short_src;
  for (round = 0; round < 3; round++) {
    for (i = 0; i < (int)(sizeof order / sizeof order[0]); i++) {
      const pso_pipeline *p;
      pso_site site;
      lua_pushvalue(L, base + 1 + order[i]);
      ck_assert_int_eq(luaL_dostring(L, "return require('pso').shader { bytes = 'x' }"), 0);
      lua_call(L, 1, 1);
      p = pso_topipeline(L, -1);
      ck_assert_ptr_nonnull(p);
      site = pso_pipeline_site(p);
      ck_assert_ptr_nonnull(site.source);
      ck_assert_str_eq(site.source, src[order[i]]);
      ck_assert_int_eq(site.line, line[order[i]]);
      lua_pop(L, 1);
    }
    /* new factories in place of a.lua's and the string chunk's (the old
    ** ones are collected; the cache keeps only the last function alive) */
    push_factory(L, site_a, "@a.lua");
    lua_replace(L, base + 1);
    push_factory(L, site_s, NULL);
    lua_replace(L, base + 3);
    lua_gc(L, LUA_GCCOLLECT, 0);
  }
  lua_close(L);
}
END_TEST

/* A declaration that fails after converting its shaders does not keep
** them alive: the blob objects it had set aside for its pipeline are let
** go with the error (no later declaration needed). */
START_TEST(test_failed_declaration_releases_shaders) {
  lua_State *L = plain_state();
  ck_assert_int_eq(run_chunk(L, "=mat.lua",
                             "local pso = require 'pso'\n"
                             "local seen = setmetatable({}, { __mode = 'k' })\n"
                             "do\n"
                             "  local vs = pso.shader { bytes = string.rep('v', 100) }\n"
                             "  seen[vs] = true\n"
                             "  local ok = pcall(pso.graphics, { vs = vs, rasterizer = { cull = 'bogus' } })\n"
                             "  assert(not ok)\n"
                             "end\n"
                             "return seen\n"),
                   LUA_OK);
  lua_gc(L, LUA_GCCOLLECT, 0);
  lua_gc(L, LUA_GCCOLLECT, 0);
  lua_pushnil(L);
  ck_assert_msg(lua_next(L, -2) == 0, "the shader of the failed declaration is still referenced");
  lua_close(L);
}
END_TEST

/* Declarations made by finalizers, which a GC step may run in the middle
** of another declaration (between its conversion and its pipeline): each
** pipeline keeps the shaders it borrows, whatever declared in between.
** (Where the GC steps land is not controlled: the rounds hit that window
** a few times, not in every build.) */
START_TEST(test_declarations_from_finalizers) {
  lua_State *L = plain_state();
  ck_assert_int_eq(run_chunk(L, "=mat.lua",
      "local pso = require 'pso'\n"
      "local alive = setmetatable({}, { __mode = 'k' })\n"
      "local function mk(c) local s = pso.shader { bytes = string.rep(c, 300) } alive[s] = true return s end\n"
      "local function decl(c)\n"
      "  local t = { vs = mk(c), ps = mk(c) }\n"
      "  local p = pso.graphics(t)\n"
      "  t.vs, t.ps = nil, nil -- only the pipeline keeps the shaders now\n"
      "  return p\n"
      "end\n"
      "local ref = { a = decl('a'):hash(), b = decl('b'):hash() }\n"
      "local gcobj\n"
      "if newproxy then\n"
      "  gcobj = function(f) local u = newproxy(true) getmetatable(u).__gc = f return u end\n"
      "else\n"
      "  gcobj = function(f) return setmetatable({}, { __gc = f }) end\n"
      "end\n"
      "local made, n = {}, 0\n"
      "collectgarbage('setpause', 50)\n"
      "collectgarbage('setstepmul', 400)\n"
      "for _ = 1, 500 do\n"
      "  gcobj(function() local p = decl('b') n = n + 1 made[n] = p end)\n"
      "  local i = n + 1\n"
      "  n = i\n"
      "  made[i] = decl('a') -- a finalizer may declare (and take made[n + 1]) in there\n"
      "end\n"
      "collectgarbage() collectgarbage()\n"
      "collectgarbage('setpause', 200)\n"
      "collectgarbage('setstepmul', 200)\n"
      "local seen = { [ref.a] = 0, [ref.b] = 0 }\n"
      "for i = 1, n do\n"
      "  local h = made[i]:hash()\n"
      "  assert(seen[h], 'pipeline ' .. i .. ' changed')\n"
      "  seen[h] = seen[h] + 1\n"
      "end\n"
      "assert(seen[ref.a] == 500 and seen[ref.b] == 500, n)\n"
      "local shaders = 0\n"
      "for _ in pairs(alive) do shaders = shaders + 1 end\n"
      "assert(shaders == 2 * n, shaders .. ' shaders kept for ' .. n .. ' pipelines')\n"
      "return n\n"),
      LUA_OK);
  ck_assert_int_eq((int)lua_tointeger(L, -1), 1000);
  lua_close(L);
}
END_TEST

/* ---- shader bytes are borrowed, copies out of the state are not ---- */

/* The VS bytecode pointer of a stream, and whether it lies inside the
** stream's own block (psoc_stream_data .. + footprint). */
static const unsigned char *vs_bytes(const psoc_stream *s, int *inside) {
  psoc_parsed parsed;
  const psoc_view *v;
  const unsigned char *code = NULL, *lo = psoc_stream_data(s);
  ck_assert_int_eq(psoc_parse(lo, psoc_stream_size(s), &parsed, NULL), PSOC_OK);
  v = psoc_parsed_class(&parsed, PSOC_SO_VS);
  ck_assert_ptr_nonnull(v);
  memcpy(&code, v->payload, sizeof code); /* D3D12_SHADER_BYTECODE.pShaderBytecode */
  ck_assert_ptr_nonnull(code);
  *inside = code >= lo && code < lo + psoc_stream_footprint(s);
  return code;
}

static psoc_hash128 deep_hash(const psoc_stream *s) {
  psoc_hash128 h;
  psoc_hash(psoc_stream_data(s), psoc_stream_size(s), PSOC_FOLLOW_POINTERS, NULL, &h);
  return h;
}

#define BIG_VS                                                                                     \
  "local pso = require 'pso'\n"                                                                    \
  "local t = { name = 'a', vs = pso.shader { bytes = string.rep('v', 4096) },\n"                   \
  "            ps = pso.shader { bytes = string.rep('p', 8192) } }\n"                              \
  "local a = pso.graphics(t)\n"                                                                    \
  "local d = pso.derive(a, { name = 'd', rasterizer = { cull = 'none' } })\n"                      \
  "local function drop() t.vs = nil t.ps = nil a = nil collectgarbage() collectgarbage() end\n"   \
  "return { a, d, drop }\n"

/* A pipeline's stream points at the bytes of its pso.shader objects (not
** copied into the pipeline), and the pipeline keeps them alive: clearing
** the declaration table's fields and collecting leaves its stream (and a
** derived pipeline's, which borrows its base's) intact. A copy for another
** state (pso_push_pipeline) or for the embedder (pso_pipeline_copy_stream)
** holds the bytes itself and outlives the state. */
START_TEST(test_shader_bytes_borrowed) {
  lua_State *L = plain_state(), *L2 = plain_state();
  const pso_pipeline *a, *d, *b2;
  psoc_stream *copy = NULL;
  psoc_hash128 ha, hd;
  const unsigned char *code;
  int inside, i;
  ck_assert_int_eq(run_chunk(L, "=mat.lua", BIG_VS), LUA_OK);
  lua_rawgeti(L, -1, 1);
  a = pso_topipeline(L, -1);
  lua_rawgeti(L, -2, 2);
  d = pso_topipeline(L, -1);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(d);
  code = vs_bytes(pso_pipeline_stream(a), &inside);
  ck_assert_int_eq(inside, 0); /* borrowed */
  ck_assert_int_eq(code[0], 'v');
  ck_assert_uint_lt(psoc_stream_footprint(pso_pipeline_stream(a)), 4096);
  ck_assert_uint_lt(lua_rawlen(L, -2), 4096); /* the pipeline object: no shader copy */
  ck_assert_uint_ge(pso_pipeline_copy_size(a), psoc_stream_footprint(pso_pipeline_stream(a)) + 4096 + 8192);
  ck_assert_ptr_eq(vs_bytes(pso_pipeline_stream(d), &inside), code); /* the base's */
  ha = deep_hash(pso_pipeline_stream(a));
  hd = deep_hash(pso_pipeline_stream(d));
  /* drop every other reference to the shaders (and to a, for d) */
  lua_pushvalue(L, -3);
  lua_rawgeti(L, -1, 3);
  lua_call(L, 0, 0);
  lua_pop(L, 1);
  lua_gc(L, LUA_GCCOLLECT, 0);
  {
    psoc_hash128 h = deep_hash(pso_pipeline_stream(a));
    ck_assert_mem_eq(&h, &ha, sizeof h);
    h = deep_hash(pso_pipeline_stream(d));
    ck_assert_mem_eq(&h, &hd, sizeof h);
  }
  code = vs_bytes(pso_pipeline_stream(d), &inside);
  for (i = 0; i < 4096; i++) ck_assert_int_eq(code[i], 'v');
  /* copies: self-contained, the same stream */
  ck_assert_int_eq(pso_pipeline_copy_stream(L, d, NULL, &copy), PSOC_OK);
  ck_assert_uint_eq(psoc_stream_size(copy), psoc_stream_size(pso_pipeline_stream(d)));
  ck_assert_uint_le(psoc_stream_footprint(copy), pso_pipeline_copy_size(d));
  b2 = pso_push_pipeline(L2, pso_pipeline_stream(d), pso_pipeline_kind(d), "d2", NULL);
  lua_close(L);
  code = vs_bytes(copy, &inside);
  ck_assert_int_eq(inside, 1);
  for (i = 0; i < 4096; i++) ck_assert_int_eq(code[i], 'v');
  {
    psoc_hash128 h = deep_hash(copy);
    ck_assert_mem_eq(&h, &hd, sizeof h);
    h = deep_hash(pso_pipeline_stream(b2));
    ck_assert_mem_eq(&h, &hd, sizeof h);
  }
  (void)vs_bytes(pso_pipeline_stream(b2), &inside);
  ck_assert_int_eq(inside, 1);
  psoc_stream_free(copy);
  lua_close(L2);
}
END_TEST

/* psol_evaluate_* results are self-contained: their shader bytes are in
** their own blocks (the state that made them is gone). */
START_TEST(test_evaluate_results_self_contained) {
  psol_result r;
  const unsigned char *code;
  int inside, i;
  ck_assert_int_eq(eval("local pso = require 'pso'\n"
                        "local vs = pso.shader { bytes = string.rep('v', 3000) }\n"
                        "local a = pso.graphics { name = 'a', vs = vs }\n"
                        "return { a, pso.derive(a, { name = 'b', topology = 'line' }) }\n",
                        &r),
                   PSOC_OK);
  ck_assert_uint_eq(r.count, 2);
  for (i = 0; i < 2; i++) {
    psoc_hash128 h;
    code = vs_bytes(r.pipelines[i].stream, &inside);
    ck_assert_int_eq(inside, 1);
    ck_assert_int_eq(code[0], 'v');
    ck_assert_int_eq(code[2999], 'v');
    psoc_hash(psoc_stream_data(r.pipelines[i].stream), psoc_stream_size(r.pipelines[i].stream),
              PSOC_FOLLOW_POINTERS, r.pipelines[i].root_signature, &h);
    ck_assert_mem_eq(&h, &r.pipelines[i].hash, sizeof h);
  }
  psol_result_free(&r);
}
END_TEST

/* Errors as data: every error of a declaration with its file, the line of
** its key, its field path and the message alone, in source order; the
** same through a traceback; nothing for a message the module did not
** raise. */
START_TEST(test_error_info) {
  lua_State *L = plain_state();
  pso_error e[4];
  const char *msg;
  ck_assert_int_eq(run_chunk(L, "=mat.lua",
                             "local pso = require 'pso'\n"
                             "local vs = pso.shader { bytes = 'x' }\n"
                             "local p = pso.graphics {\n"
                             "  topology = 'trianglez',\n"
                             "  vs = vs,\n"
                             "  rasterizer = { cull = 'backk' },\n"
                             "}\n"
                             "return p\n"),
                   LUA_ERRRUN);
  msg = lua_tostring(L, -1);
  ck_assert_msg(strstr(msg, "mat.lua:4: topology: ") == msg, "%s", msg);
  ck_assert_msg(strstr(msg, "\nmat.lua:6: rasterizer.cull: ") != NULL, "%s", msg);
  ck_assert_uint_eq(pso_error_info(L, -1, e, 4), 2);
  ck_assert_str_eq(e[0].site.source, "mat.lua");
  ck_assert_int_eq(e[0].site.line, 4);
  ck_assert_str_eq(e[0].field, "topology");
  ck_assert_ptr_null(e[0].from.source);
  ck_assert_msg(strstr(e[0].message, "trianglez") != NULL && strstr(e[0].message, "mat.lua") == NULL,
                "%s", e[0].message);
  ck_assert_str_eq(e[1].site.source, "mat.lua");
  ck_assert_int_eq(e[1].site.line, 6);
  ck_assert_str_eq(e[1].field, "rasterizer.cull");
  ck_assert_msg(strstr(e[1].message, "backk") != NULL, "%s", e[1].message);
  ck_assert_uint_eq(pso_error_info(L, -1, e, 1), 2); /* counts beyond max */
  lua_pushfstring(L, "%s\nstack traceback:\n\t[C]: in ?", msg);
  ck_assert_uint_eq(pso_error_info(L, -1, e, 4), 2);
  lua_pushstring(L, "mat.lua:4: something else");
  ck_assert_uint_eq(pso_error_info(L, -1, e, 4), 0);
  lua_pushinteger(L, 4);
  ck_assert_uint_eq(pso_error_info(L, -1, e, 4), 0);
  lua_settop(L, 0);
  /* one error, in a factory of a shared module: its line there, and the
  ** material's call as 'from' */
  ck_assert_int_eq(run_chunk(L, "=lib.lua",
                             "local pso = require 'pso'\n"
                             "return function(vs)\n"
                             "  local p = pso.graphics { vs = vs, depth_format = 'd33' }\n"
                             "  return p\n"
                             "end\n"),
                   LUA_OK);
  lua_setglobal(L, "make");
  ck_assert_int_eq(run_chunk(L, "=mat.lua",
                             "local pso = require 'pso'\n"
                             "\n"
                             "local p = make(pso.shader { bytes = 'x' })\n"
                             "return p\n"),
                   LUA_ERRRUN);
  ck_assert_uint_eq(pso_error_info(L, -1, e, 4), 1);
  ck_assert_str_eq(e[0].site.source, "lib.lua");
  ck_assert_int_eq(e[0].site.line, 3);
  ck_assert_str_eq(e[0].from.source, "mat.lua");
  ck_assert_int_eq(e[0].from.line, 3);
  ck_assert_str_eq(e[0].field, "depth_format");
  lua_close(L);
}
END_TEST

Suite *suite_language(void) {
  Suite *s = suite_create("language");
  TCase *tc = tcase_create("result");
  tcase_add_test(tc, test_duplicate_names_are_an_error);
  tcase_add_test(tc, test_distinct_and_unnamed_names_pass);
  tcase_add_test(tc, test_check_result_api);
  tcase_add_test(tc, test_evaluate_checks_the_input_layout);
  tcase_add_test(tc, test_field_path);
  tcase_add_test(tc, test_pipeline_site);
  tcase_add_test(tc, test_pipeline_site_per_function);
  tcase_add_test(tc, test_failed_declaration_releases_shaders);
  tcase_add_test(tc, test_declarations_from_finalizers);
  tcase_add_test(tc, test_error_info);
  tcase_add_test(tc, test_shader_bytes_borrowed);
  tcase_add_test(tc, test_evaluate_results_self_contained);
  suite_add_tcase(s, tc);
  return s;
}
