-- shadow.lua: the shadow-map pass: depth only, no pixel shader and no
-- render targets, with depth bias against shadow acne.
--
-- Demonstrates: a graphics pipeline without a PS or render targets (the
-- depth buffer is the only output), pso.rasterizer.shadow_bias (depth
-- bias and slope-scaled bias), a plain depth test (pso.depth.default:
-- shadow maps use the classic less-is-closer depth), and an alpha-tested
-- variant that adds a PS (for foliage) while still writing no colour.
local pso = require "pso"
local common = require "lib.common"

local shadow = pso.graphics {
  name = "shadow_depth",
  root_signature = "shadow",
  vs = common.shader "shadow.vs",
  input_layout = common.position_only,
  rasterizer = pso.rasterizer.shadow_bias,
  depth_stencil = pso.depth.default,
  depth_format = "D16_UNORM",
}

local shadow_alpha = pso.derive(shadow, {
  name = "shadow_alpha_tested",
  ps = common.shader "shadow_alpha.ps",
  input_layout = {
    { "POSITION", "R32G32B32_FLOAT" },
    { "TEXCOORD", "R32G32_FLOAT" },
  },
  rasterizer = { cull = "none", depth_bias = 500 },
})

return { shadow, shadow_alpha }
