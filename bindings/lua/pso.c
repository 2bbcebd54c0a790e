/*
** pso.c: the `pso` Lua module: material authors declare Direct3D 12
** pipeline state and get pipelines holding D3D12_PIPELINE_STATE_STREAM_DESC
** bytes. The language (see also DESIGN.md section 3):
**
**   pso.graphics { name = "lit", vs = pso.shader "lit.vs.cso", ... }
**   pso.mesh { ms = ..., ... }      pso.compute { cs = ..., ... }
**       Top-level keys are the registry's subobject keys (plus name).
**       Sub-keys are field keys or D3D12 member names. Strict: unknown
**       keys, unknown names, wrong types and out-of-range numbers raise
**       "FILE:LINE: PATH: message (did you mean 'x'?)". Shorthands are
**       listed in pso_convert.c.
**   pso.derive(base, overrides)     overrides.name is required; records
**       merge key by key, lists and scalars replace (blend.render_targets
**       too: the override's list replaces the base's); pso.none removes a
**       subobject. The base's declaration tables must not be modified
**       after declaring (derive checks, and says so).
**   pso.shader "file" | pso.shader { file = ... } | pso.shader { bytes = ... }
**   pso.blob   (same forms)         for cached_pso, serialized_root_signature
**   pso.none                        "remove / not given"
**   pso.preset(name, table)         an immutable preset tagged "preset NAME"
**       (a read-only userdata proxy: p.key, #p, pairs(p) on 5.2+)
**   pso.preset_pairs(p)             pairs over a preset, every Lua version
**   pso.copy(value)                 a modifiable deep copy (presets unwrapped)
**   pso.blend.{opaque, alpha, premultiplied, additive, multiply}
**       (namespaces: an unknown name, pso.blend.alpah, is an error)
**   pso.rasterizer.{default, cull_none, cull_front, wireframe, shadow_bias}
**   pso.depth.{default, read_only, reverse_z, disabled, equal}
**   pso.is_pipeline(v), pso.same(a, b) (equal hashes)
**   pso.check_bytes(bytes)          psoc_check diagnostics of a raw stream
**   pso.version, pso.APPEND_ALIGNED
** Pipelines: see pso_pipeline.c.
*/
#include <string.h>

#include "pso_declare.h"
#include "pso_pipeline.h"
#include "pso_presets.h"
#include "pso_rootsig.h"
#include "pso_values.h"

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

static int raw_graphics(lua_State *L) { return psoi_declare(L, PSOC_KIND_GRAPHICS, 1); }
static int raw_mesh(lua_State *L) { return psoi_declare(L, PSOC_KIND_MESH, 1); }
static int raw_compute(lua_State *L) { return psoi_declare(L, PSOC_KIND_COMPUTE, 1); }
static int l_graphics(lua_State *L) { return psoi_declare_all(L, PSOC_KIND_GRAPHICS); }
static int l_mesh(lua_State *L) { return psoi_declare_all(L, PSOC_KIND_MESH); }
static int l_compute(lua_State *L) { return psoi_declare_all(L, PSOC_KIND_COMPUTE); }
static int l_derive(lua_State *L) { return psoi_derive(L, 1, 2); }

static int l_is_pipeline(lua_State *L) {
  lua_pushboolean(L, pso_topipeline(L, 1) != NULL);
  return 1;
}

static int l_same(lua_State *L) {
  const pso_pipeline *a = pso_topipeline(L, 1), *b = pso_topipeline(L, 2);
  psoc_hash128 ha, hb;
  if (!a || !b) return psoi_error(L, "pso.same: expected two pipelines");
  ha = pso_pipeline_hash(a);
  hb = pso_pipeline_hash(b);
  lua_pushboolean(L, ha.lo == hb.lo && ha.hi == hb.hi && a->kind == b->kind);
  return 1;
}

static int l_check_bytes(lua_State *L) {
  size_t size;
  const char *s = luaL_checklstring(L, 1, &size);
  void *copy = pso_compat_newuserdata(L, size ? size : 1);
  psoi_ctx *ctx = psoi_context(L);
  psoc_diags diags;
  memcpy(copy, s, size);
  psoc_diags_init(&diags, &ctx->alloc);
  psoc_check(copy, size, NULL, &diags);
  psoi_push_diags(L, &diags, 0); /* raw bytes: D3D12 member paths */
  psoc_diags_free(&diags);
  return 1;
}

static const luaL_Reg module_funcs[] = {
  { "graphics", l_graphics },   { "mesh", l_mesh },
  { "compute", l_compute },     { "derive", l_derive },
  { "is_pipeline", l_is_pipeline }, { "same", l_same },
  { "check_bytes", l_check_bytes }, { NULL, NULL }
};


/* The key table K (created and filled once per state); pushed. */
static void push_keys(lua_State *L, psoi_ctx *ctx, int ctx_idx) {
  int K;
  lua_getfield(L, LUA_REGISTRYINDEX, PSOI_KEYS_KEY);
  if (lua_type(L, -1) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_newtable(L);
  K = lua_gettop(L);
  psoi_init_keys(L, ctx, K);
  psoi_open_values(L, ctx, K); /* shader and blob objects, pso.none */
  /* converted presets, by the preset object (weak keys) */
  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_rawseti(L, K, PSOI_K_PRESET_CACHE);
  /* the blob objects a declaration's stream borrows, until its pipeline
  ** holds them (pso_declare.c) */
  lua_createtable(L, 8, 0);
  lua_rawseti(L, K, PSOI_K_ANCHORS);
  /* the declaration functions, run protected by collect_errors */
  {
    static const lua_CFunction raw[] = { raw_graphics, raw_compute, raw_mesh };
    static const psoc_kind kinds[] = { PSOC_KIND_GRAPHICS, PSOC_KIND_COMPUTE, PSOC_KIND_MESH };
    int i;
    for (i = 0; i < 3; i++) {
      lua_pushvalue(L, ctx_idx);
      lua_pushvalue(L, K);
      lua_pushcclosure(L, raw[i], 2);
      lua_rawseti(L, K, PSOI_K_RAW_DECLARE + (int)kinds[i]);
    }
  }
  /* pipelines */
  psoi_open_pipeline(L, ctx_idx, K);
  lua_pushvalue(L, K);
  lua_setfield(L, LUA_REGISTRYINDEX, PSOI_KEYS_KEY);
}

int luaopen_pso(lua_State *L) {
  psoi_ctx *ctx;
  int ctx_idx, K, mod;
  luaL_checkstack(L, 16, "pso: stack overflow");
  ctx = psoi_push_context(L);
  ctx_idx = lua_gettop(L);
  push_keys(L, ctx, ctx_idx);
  K = lua_gettop(L);
  luaL_newlibtable(L, module_funcs);
  mod = lua_gettop(L);
  lua_pushvalue(L, ctx_idx);
  lua_pushvalue(L, K);
  luaL_setfuncs(L, module_funcs, 2);
  lua_pushvalue(L, ctx_idx);
  lua_pushvalue(L, K);
  luaL_setfuncs(L, psoi_value_funcs, 2);
  lua_rawgeti(L, K, PSOI_K_NONE);
  lua_setfield(L, mod, "none");
  lua_pushliteral(L, PSOC_VERSION_STRING);
  lua_setfield(L, mod, "version");
  pso_compat_pushuint(L, 0xffffffffu);
  lua_setfield(L, mod, "APPEND_ALIGNED");
  psoi_open_presets(L, mod);
  psoi_open_rootsig(L, mod);
  lua_settop(L, mod);
  return 1;
}
