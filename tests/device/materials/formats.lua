-- formats.lua: render target formats and several render targets.
local pso = require "pso"
local b = require "lib.base"
local C = b.case
return {
  C("rt_r8g8b8a8_unorm", { render_targets = { "R8G8B8A8_UNORM" } }),
  C("rt_r8g8b8a8_srgb", { render_targets = { "R8G8B8A8_UNORM_SRGB" } }),
  C("rt_b8g8r8a8_unorm", { render_targets = { "B8G8R8A8_UNORM" } }),
  C("rt_r16g16b16a16_float", { render_targets = { "R16G16B16A16_FLOAT" } }),
  C("rt_r32g32b32a32_float", { render_targets = { "R32G32B32A32_FLOAT" } }),
  C("rt_two_targets", { ps = pso.shader "shaders/mrt.ps.cso",
                        render_targets = { "R8G8B8A8_UNORM", "R16G16B16A16_FLOAT" } }),
}
