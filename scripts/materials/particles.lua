-- particles.lua: GPU particle simulation with stream output: the GS
-- writes updated particles to a buffer (and, in the second pipeline, also
-- draws them).
--
-- Demonstrates: stream_output with declaration entries (semantic, start
-- component, component count, output slot), buffer strides, the
-- rasterized stream, and a VS+GS pipeline without a PS that only streams
-- out (rasterized_stream = 0xFFFFFFFF: D3D12_SO_NO_RASTERIZED_STREAM).
local pso = require "pso"

local NO_RASTERIZED_STREAM = 0xFFFFFFFF

local particle_layout = {
  { "POSITION", "R32G32B32_FLOAT" },
  { "VELOCITY", "R32G32B32_FLOAT" },
  { "AGE",      "R32_FLOAT" },
}

local simulate = pso.graphics {
  name = "particles_simulate",
  root_signature = "particles",
  vs = pso.shader "shaders/particles.vs.cso",
  gs = pso.shader "shaders/particles.gs.cso",
  input_layout = particle_layout,
  topology = "point",
  stream_output = {
    entries = {
      { semantic = "POSITION", component_count = 3 },
      { semantic = "VELOCITY", component_count = 3 },
      { semantic = "AGE",      component_count = 1 },
    },
    strides = { 28 },
    rasterized_stream = NO_RASTERIZED_STREAM,
  },
  depth_stencil = pso.depth.disabled,
}

-- Simulate and draw in one pass: stream 0 is also rasterized.
local simulate_and_draw = pso.derive(simulate, {
  name = "particles_simulate_draw",
  ps = pso.shader "shaders/particles.ps.cso",
  stream_output = { rasterized_stream = 0 },
  blend = pso.blend.additive,
  render_targets = { "R16G16B16A16_FLOAT" },
})

return { simulate, simulate_and_draw }
