-- lit.lua: the forward renderer's lit opaque surface, and a two-sided
-- variant for foliage and cloth.
--
-- Demonstrates: pso.graphics with an input layout, presets for blend,
-- rasterizer and depth (pso.blend.opaque, pso.rasterizer.default,
-- pso.depth.reverse_z), a root signature by name (the engine resolves it),
-- two render targets, and pso.derive: the variant names only what differs
-- (`psoc explain --pipeline lit_two_sided` shows every other field coming
-- from "base lit_opaque").
local pso = require "pso"
local common = require "lib.common"

local lit = pso.graphics {
  name = "lit_opaque",
  root_signature = "forward",
  vs = common.shader "lit.vs",
  ps = common.shader "lit.ps",
  input_layout = common.static_mesh,
  topology = "triangle",
  rasterizer = pso.rasterizer.default,
  blend = pso.blend.opaque,
  depth_stencil = pso.depth.reverse_z,
  render_targets = common.targets,
  depth_format = common.depth_format,
}

local two_sided = pso.derive(lit, {
  name = "lit_two_sided",
  rasterizer = { cull = "none" },
})

return { lit, two_sided }
