/*
** pso_presets.c: the built-in presets, kept as constant data and made
** into material-language tables when the module opens (no Lua source to
** compile in every state). Each is an immutable pso.preset, so explain
** reports its fields as "(preset blend.alpha)". The namespaces pso.blend,
** pso.rasterizer and pso.depth are read-only too.
**
** Factor choices (colour; alpha in parentheses):
**   blend.opaque         blending off, write all channels
**   blend.alpha          src_alpha, inv_src_alpha, add  (one, inv_src_alpha)
**   blend.premultiplied  one, inv_src_alpha, add        (one, inv_src_alpha)
**   blend.additive       one, one, add                  (one, one)
**                        (pure additive: the shader scales by alpha itself
**                        when it wants to; premultiplied-friendly)
**   blend.multiply       dest_color, zero, add          (dest_alpha, zero)
**   rasterizer.default     solid, cull back
**   rasterizer.cull_none   solid, cull none
**   rasterizer.cull_front  solid, cull front
**   rasterizer.wireframe   wireframe, cull none
**   rasterizer.shadow_bias solid, cull back, depth_bias 1000,
**                          slope_scaled_depth_bias 1.5, depth_bias_clamp 0
**   depth.default    test on, write all, less
**   depth.read_only  test on, write zero, less_equal
**   depth.reverse_z  test on, write all, greater_equal
**   depth.disabled   test off, write zero
**   depth.equal      test on, write zero, equal (after a depth prepass)
*/
#include "pso_presets.h"
#include "pso_values.h"

/* One field of a preset: a boolean, a string, an integer or a number. */
typedef struct preset_field {
  const char *key;
  char kind; /* 'b', 's', 'i', 'n' */
  const char *s;
  double n;
} preset_field;

#define B(k, v) { k, 'b', NULL, (v) }
#define S(k, v) { k, 's', v, 0 }
#define I(k, v) { k, 'i', NULL, (v) }
#define N(k, v) { k, 'n', NULL, (v) }
#define END { NULL, 0, NULL, 0 }

typedef struct preset_def {
  const char *key;  /* in its namespace */
  const char *name; /* the label: "blend.alpha" */
  preset_field fields[8];
} preset_def;

/* Blend presets: one render target's keys given directly in blend. NULL
** src: blending off. */
typedef struct blend_def {
  const char *key, *name, *src, *dst, *src_alpha, *dst_alpha;
} blend_def;

static const blend_def blends[] = {
  { "opaque", "blend.opaque", NULL, NULL, NULL, NULL },
  { "alpha", "blend.alpha", "src_alpha", "inv_src_alpha", "one", "inv_src_alpha" },
  { "premultiplied", "blend.premultiplied", "one", "inv_src_alpha", "one", "inv_src_alpha" },
  { "additive", "blend.additive", "one", "one", "one", "one" },
  { "multiply", "blend.multiply", "dest_color", "zero", "dest_alpha", "zero" },
};

static const preset_def rasterizers[] = {
  { "default", "rasterizer.default", { S("fill", "solid"), S("cull", "back"), END } },
  { "cull_none", "rasterizer.cull_none", { S("fill", "solid"), S("cull", "none"), END } },
  { "cull_front", "rasterizer.cull_front", { S("fill", "solid"), S("cull", "front"), END } },
  { "wireframe", "rasterizer.wireframe", { S("fill", "wireframe"), S("cull", "none"), END } },
  { "shadow_bias", "rasterizer.shadow_bias",
    { S("fill", "solid"), S("cull", "back"), I("depth_bias", 1000),
      N("slope_scaled_depth_bias", 1.5), I("depth_bias_clamp", 0), END } },
};

static const preset_def depths[] = {
  { "default", "depth.default", { B("depth", 1), S("write", "all"), S("func", "less"), END } },
  { "read_only", "depth.read_only",
    { B("depth", 1), S("write", "zero"), S("func", "less_equal"), END } },
  { "reverse_z", "depth.reverse_z",
    { B("depth", 1), S("write", "all"), S("func", "greater_equal"), END } },
  { "disabled", "depth.disabled", { B("depth", 0), S("write", "zero"), END } },
  { "equal", "depth.equal", { B("depth", 1), S("write", "zero"), S("func", "equal"), END } },
};

static void set_field(lua_State *L, const preset_field *f) {
  switch (f->kind) {
  case 'b': lua_pushboolean(L, f->n != 0); break;
  case 's': lua_pushstring(L, f->s); break;
  case 'i': lua_pushinteger(L, (lua_Integer)f->n); break;
  default: lua_pushnumber(L, (lua_Number)f->n); break;
  }
  lua_setfield(L, -2, f->key);
}

/* A new table holding the fields (up to the END entry). */
static void push_fields(lua_State *L, const preset_field *fields) {
  const preset_field *f;
  int n = 0;
  for (f = fields; f->key; f++) n++;
  lua_createtable(L, 0, n);
  for (f = fields; f->key; f++) set_field(L, f);
}

static void push_blend(lua_State *L, const blend_def *d) {
  const preset_field fields[13] = {
    B("alpha_to_coverage", 0), B("independent", 0), B("enable", d->src != NULL),
    B("logic_op_enable", 0), S("src", d->src ? d->src : "one"),
    S("dst", d->dst ? d->dst : "zero"), S("op", "add"),
    S("src_alpha", d->src_alpha ? d->src_alpha : "one"),
    S("dst_alpha", d->dst_alpha ? d->dst_alpha : "zero"), S("op_alpha", "add"),
    S("logic_op", "noop"), S("write_mask", "all"), END
  };
  push_fields(L, fields);
}

/* module[name] = a read-only namespace over the table on the top (popped).
** The tables are built here and handed over to their proxies as they are
** (no copies: nothing else holds them). */
static void set_namespace(lua_State *L, int module_idx, const char *name) {
  psoi_wrap_namespace(L, -1, name);
  lua_setfield(L, module_idx, name);
  lua_pop(L, 1);
}

/* ns[key] = the preset made of the fields table on the top (popped). */
static void add_preset(lua_State *L, const char *key, const char *name) {
  psoi_wrap_preset(L, -1, name);
  lua_setfield(L, -3, key);
  lua_pop(L, 1);
}

static void add_presets(lua_State *L, int module_idx, const char *name, const preset_def *defs,
                        size_t n) {
  size_t i;
  lua_createtable(L, 0, (int)n);
  for (i = 0; i < n; i++) {
    push_fields(L, defs[i].fields);
    add_preset(L, defs[i].key, defs[i].name);
  }
  set_namespace(L, module_idx, name);
}

void psoi_open_presets(lua_State *L, int module_idx) {
  size_t i;
  module_idx = lua_absindex(L, module_idx);
  luaL_checkstack(L, 12, "pso: stack overflow");
  lua_createtable(L, 0, (int)(sizeof blends / sizeof blends[0]));
  for (i = 0; i < sizeof blends / sizeof blends[0]; i++) {
    push_blend(L, &blends[i]);
    add_preset(L, blends[i].key, blends[i].name);
  }
  set_namespace(L, module_idx, "blend");
  add_presets(L, module_idx, "rasterizer", rasterizers, sizeof rasterizers / sizeof rasterizers[0]);
  add_presets(L, module_idx, "depth", depths, sizeof depths / sizeof depths[0]);
}
