-- stereo.lua: single-pass stereo rendering for VR with view instancing:
-- one draw renders both eyes into the two slices of a render-target array.
--
-- Demonstrates: view_instancing with view instance locations (view 0 ->
-- array slice 0, view 1 -> array slice 1) and flags, and derive of a
-- four-view variant (e.g. foveated rendering: two inset views per eye).
-- View instancing is an optional feature (ViewInstancingTier 1+), so check
-- it against a device profile that has it:
--   psoc check --profile desktop_fl12_1 stereo.lua
-- (against the default feature-level 12_0 profile it is an error).
local pso = require "pso"
local common = require "lib.common"

local stereo = pso.graphics {
  name = "stereo_lit",
  root_signature = "forward_vr",
  vs = common.shader "stereo.vs",
  ps = common.shader "stereo.ps",
  input_layout = common.static_mesh,
  rasterizer = pso.rasterizer.default,
  blend = pso.blend.opaque,
  depth_stencil = pso.depth.reverse_z,
  render_targets = { "R11G11B10_FLOAT" },
  depth_format = common.depth_format,
  view_instancing = {
    locations = {
      { viewport = 0, render_target = 0 },
      { viewport = 0, render_target = 1 },
    },
  },
}

local quad_view = pso.derive(stereo, {
  name = "stereo_lit_quad_view",
  view_instancing = {
    locations = {
      { viewport = 0, render_target = 0 },
      { viewport = 0, render_target = 1 },
      { viewport = 1, render_target = 0 },
      { viewport = 1, render_target = 1 },
    },
  },
})

return { stereo, quad_view }
