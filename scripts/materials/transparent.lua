-- transparent.lua: alpha-blended surfaces (glass, particles on meshes),
-- drawn after the opaque pass with depth testing on and depth writes off.
--
-- Demonstrates: pso.blend.alpha and pso.blend.additive, a depth preset of
-- the project's own from lib/common.lua (read-only reverse-Z), derive of a
-- derived pipeline, and blend settings for render target 1 given directly
-- in `blend` (they apply to render_targets[1]).
local pso = require "pso"
local common = require "lib.common"

local glass = pso.graphics {
  name = "transparent_alpha",
  root_signature = "forward",
  vs = common.shader "lit.vs",
  ps = common.shader "transparent.ps",
  input_layout = common.static_mesh,
  rasterizer = pso.rasterizer.cull_none,
  blend = pso.blend.alpha,
  depth_stencil = common.depth_read_only_reverse_z,
  render_targets = common.hdr_target,
  depth_format = common.depth_format,
}

-- Additive glow: same state, other blend factors.
local glow = pso.derive(glass, {
  name = "transparent_additive",
  blend = pso.blend.additive,
})

-- Premultiplied-alpha decals that only write colour, not alpha.
local decal = pso.derive(glow, {
  name = "transparent_decal",
  blend = { src = "one", dst = "inv_src_alpha", write_mask = "rgb" },
})

return { glass, glow, decal }
