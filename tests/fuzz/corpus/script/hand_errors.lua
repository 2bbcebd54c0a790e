local pso = require "pso"
local vs = pso.shader { bytes = "x" }
local bad = {
  function() return pso.graphics { vs = vs, rasterizer = { cul = "back" } } end,
  function() return pso.graphics { vs = vs, rasterzer = {} } end,
  function() return pso.graphics { vs = vs, blend = { render_targets = { {}, { src = "src_alhpa" } } } } end,
  function() return pso.graphics { vs = vs, sample_mask = -1 } end,
  function() return pso.graphics { vs = vs, render_targets = { "nope" } } end,
  function() return pso.graphics { vs = vs, node_mask = 2^40 } end,
  function() return pso.graphics { vs = vs, input_layout = { { 1, 2 } } } end,
  function() return pso.graphics {} end,
  function() return pso.derive(1, {}) end,
  function() pso.blend.opaque.enable = true end,
  function() rawset(pso.blend, "x", 1) end,
  function() return pso.shader "missing.cso" end,
  function() return pso.graphics { vs = vs, cs = pso.shader { bytes = "c" } } end,
  function() return pso.graphics { vs = vs, depth_stencil = pso.depth.default, depth_stencil1 = {} } end,
  function() local p = pso.graphics { vs = vs }; p.name = "x" end,
  function() return pso.graphics { vs = vs, render_targets = { "r8g8b8a8_unorm", "r8g8b8a8_unorm", "r8g8b8a8_unorm", "r8g8b8a8_unorm", "r8g8b8a8_unorm", "r8g8b8a8_unorm", "r8g8b8a8_unorm", "r8g8b8a8_unorm", "r8g8b8a8_unorm" } } end,
}
for _, f in ipairs(bad) do pcall(f) end
return pso.graphics { vs = vs, rasterizer = { cull = "bakc" } }
