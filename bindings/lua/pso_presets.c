/*
** pso_presets.c: the built-in presets, kept as constant data: static,
** read-only definitions every state of the process shares (no Lua source
** to compile, nothing built when the module opens). A state makes a
** preset's table and proxy when a script first names it (pso_values.c,
** psoi_push_builtin_namespace). Each is an immutable pso.preset, so
** explain reports its fields as "(preset blend.alpha)". The namespaces
** pso.blend, pso.rasterizer and pso.depth are read-only too.
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

#define B(k, v) { k, 'b', NULL, (v) }
#define S(k, v) { k, 's', v, 0 }
#define I(k, v) { k, 'i', NULL, (v) }
#define N(k, v) { k, 'n', NULL, (v) }
#define END { NULL, 0, NULL, 0 }

/* Blend presets: one render target's keys given directly in blend (on 0:
** blending off). */
#define BLEND(key, on, src, dst, src_alpha, dst_alpha)                                         \
  { key, "preset blend." key,                                                                 \
    { B("alpha_to_coverage", 0), B("independent", 0), B("enable", on),                        \
      B("logic_op_enable", 0), S("src", src), S("dst", dst), S("op", "add"),                  \
      S("src_alpha", src_alpha), S("dst_alpha", dst_alpha), S("op_alpha", "add"),             \
      S("logic_op", "noop"), S("write_mask", "all"), END } }

static const psoi_preset_def blends[] = {
  BLEND("opaque", 0, "one", "zero", "one", "zero"),
  BLEND("alpha", 1, "src_alpha", "inv_src_alpha", "one", "inv_src_alpha"),
  BLEND("premultiplied", 1, "one", "inv_src_alpha", "one", "inv_src_alpha"),
  BLEND("additive", 1, "one", "one", "one", "one"),
  BLEND("multiply", 1, "dest_color", "zero", "dest_alpha", "zero"),
};

static const psoi_preset_def rasterizers[] = {
  { "default", "preset rasterizer.default", { S("fill", "solid"), S("cull", "back"), END } },
  { "cull_none", "preset rasterizer.cull_none", { S("fill", "solid"), S("cull", "none"), END } },
  { "cull_front", "preset rasterizer.cull_front", { S("fill", "solid"), S("cull", "front"), END } },
  { "wireframe", "preset rasterizer.wireframe", { S("fill", "wireframe"), S("cull", "none"), END } },
  { "shadow_bias", "preset rasterizer.shadow_bias",
    { S("fill", "solid"), S("cull", "back"), I("depth_bias", 1000),
      N("slope_scaled_depth_bias", 1.5), I("depth_bias_clamp", 0), END } },
};

static const psoi_preset_def depths[] = {
  { "default", "preset depth.default", { B("depth", 1), S("write", "all"), S("func", "less"), END } },
  { "read_only", "preset depth.read_only",
    { B("depth", 1), S("write", "zero"), S("func", "less_equal"), END } },
  { "reverse_z", "preset depth.reverse_z",
    { B("depth", 1), S("write", "all"), S("func", "greater_equal"), END } },
  { "disabled", "preset depth.disabled", { B("depth", 0), S("write", "zero"), END } },
  { "equal", "preset depth.equal", { B("depth", 1), S("write", "zero"), S("func", "equal"), END } },
};

#define COUNT(a) (sizeof a / sizeof a[0])

static const psoi_preset_ns namespaces[] = {
  { "blend", blends, COUNT(blends) },
  { "rasterizer", rasterizers, COUNT(rasterizers) },
  { "depth", depths, COUNT(depths) },
};

void psoi_open_presets(lua_State *L, int module_idx) {
  size_t i;
  module_idx = lua_absindex(L, module_idx);
  for (i = 0; i < COUNT(namespaces); i++) {
    psoi_push_builtin_namespace(L, &namespaces[i]);
    lua_setfield(L, module_idx, namespaces[i].name);
  }
}
