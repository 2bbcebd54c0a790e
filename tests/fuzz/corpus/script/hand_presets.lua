local pso = require "pso"
local vs = pso.shader { bytes = "vs" }
local out = {}
for _, b in ipairs { pso.blend.opaque, pso.blend.alpha, pso.blend.premultiplied, pso.blend.additive, pso.blend.multiply } do
  for _, r in ipairs { pso.rasterizer.default, pso.rasterizer.cull_none, pso.rasterizer.cull_front, pso.rasterizer.wireframe, pso.rasterizer.shadow_bias } do
    for _, d in ipairs { pso.depth.default, pso.depth.read_only, pso.depth.reverse_z, pso.depth.disabled, pso.depth.equal } do
      out[#out + 1] = pso.graphics { name = "p" .. #out, vs = vs, blend = b, rasterizer = r, depth_stencil = d,
                                     render_targets = { "r8g8b8a8_unorm" }, depth_format = "d32_float" }
    end
  end
end
local mine = pso.preset("mine.blend", pso.copy(pso.blend.alpha))
out[#out + 1] = pso.graphics { vs = vs, blend = mine }
return out
