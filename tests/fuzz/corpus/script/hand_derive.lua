local pso = require "pso"
local base = pso.graphics { name = "base", vs = pso.shader { bytes = "v" }, ps = pso.shader { bytes = "p" },
  rasterizer = pso.rasterizer.default, depth_stencil = pso.depth.default, render_targets = { "r16g16b16a16_float" },
  depth_format = "d32_float", blend = { enable = true, src = "one", dst = "one" } }
local a = pso.derive(base, { name = "a", rasterizer = { cull = "none" }, ps = pso.none })
local b = pso.derive(a, { name = "b", blend = pso.blend.alpha, render_targets = { "r8g8b8a8_unorm", "r8g8b8a8_unorm" } })
local c = pso.derive(b, { name = "c", depth_stencil = pso.none, depth_format = pso.none })
local t = b:table()
local d = pso.graphics(t)
local e = pso.derive(d, { name = "e" })
assert(pso.same(b, d))
local diff = a:diff(b)
return { base, a, b, c, d, e }
