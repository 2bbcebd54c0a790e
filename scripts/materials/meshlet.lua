-- meshlet.lua: a mesh-shader pipeline: amplification shader (meshlet
-- culling), mesh shader and pixel shader.
--
-- Demonstrates: pso.mesh with as/ms/ps (no input layout, no vertex
-- shader: the kind is deduced from the MS), presets shared with the
-- graphics pipelines, and a wireframe debug variant by derive.
local pso = require "pso"
local common = require "lib.common"

local meshlets = pso.mesh {
  name = "meshlet_opaque",
  root_signature = "meshlets",
  as = common.shader "meshlet.as",
  ms = common.shader "meshlet.ms",
  ps = common.shader "meshlet.ps",
  rasterizer = pso.rasterizer.default,
  blend = pso.blend.opaque,
  depth_stencil = pso.depth.reverse_z,
  render_targets = common.targets,
  depth_format = common.depth_format,
}

local wireframe = pso.derive(meshlets, {
  name = "meshlet_wireframe",
  rasterizer = pso.rasterizer.wireframe,
})

return { meshlets, wireframe }
