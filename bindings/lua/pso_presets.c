/*
** pso_presets.c: the built-in presets, written in the material language
** itself. Each is an immutable pso.preset, so explain reports its fields
** as "(preset blend.alpha)". The namespaces pso.blend, pso.rasterizer and
** pso.depth are read-only too.
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

static const char presets_lua[] =
  "local pso, namespace = ...\n"
  "local P = pso.preset\n"
  "local function rt(src, dst, src_alpha, dst_alpha)\n"
  "  return { alpha_to_coverage = false, independent = false,\n"
  "           enable = src ~= nil, logic_op_enable = false,\n"
  "           src = src or 'one', dst = dst or 'zero', op = 'add',\n"
  "           src_alpha = src_alpha or 'one', dst_alpha = dst_alpha or 'zero', op_alpha = 'add',\n"
  "           logic_op = 'noop', write_mask = 'all' }\n"
  "end\n"
  "pso.blend = namespace('blend', {\n"
  "  opaque        = P('blend.opaque', rt()),\n"
  "  alpha         = P('blend.alpha', rt('src_alpha', 'inv_src_alpha', 'one', 'inv_src_alpha')),\n"
  "  premultiplied = P('blend.premultiplied', rt('one', 'inv_src_alpha', 'one', 'inv_src_alpha')),\n"
  "  additive      = P('blend.additive', rt('one', 'one', 'one', 'one')),\n"
  "  multiply      = P('blend.multiply', rt('dest_color', 'zero', 'dest_alpha', 'zero')),\n"
  "})\n"
  "pso.rasterizer = namespace('rasterizer', {\n"
  "  default     = P('rasterizer.default', { fill = 'solid', cull = 'back' }),\n"
  "  cull_none   = P('rasterizer.cull_none', { fill = 'solid', cull = 'none' }),\n"
  "  cull_front  = P('rasterizer.cull_front', { fill = 'solid', cull = 'front' }),\n"
  "  wireframe   = P('rasterizer.wireframe', { fill = 'wireframe', cull = 'none' }),\n"
  "  shadow_bias = P('rasterizer.shadow_bias', { fill = 'solid', cull = 'back', depth_bias = 1000,\n"
  "                  slope_scaled_depth_bias = 1.5, depth_bias_clamp = 0 }),\n"
  "})\n"
  "pso.depth = namespace('depth', {\n"
  "  default   = P('depth.default', { depth = true, write = 'all', func = 'less' }),\n"
  "  read_only = P('depth.read_only', { depth = true, write = 'zero', func = 'less_equal' }),\n"
  "  reverse_z = P('depth.reverse_z', { depth = true, write = 'all', func = 'greater_equal' }),\n"
  "  disabled  = P('depth.disabled', { depth = false, write = 'zero' }),\n"
  "  equal     = P('depth.equal', { depth = true, write = 'zero', func = 'equal' }),\n"
  "})\n";

void psoi_open_presets(lua_State *L, int module_idx) {
  module_idx = lua_absindex(L, module_idx);
  if (luaL_loadbuffer(L, presets_lua, sizeof presets_lua - 1, "=pso.presets") != LUA_OK)
    lua_error(L);
  lua_pushvalue(L, module_idx);
  lua_pushcfunction(L, psoi_freeze_namespace);
  lua_call(L, 2, 0);
}
