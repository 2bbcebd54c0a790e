-- negative.lua: pipelines psoc rejects (with --deep / FOLLOW_POINTERS) and
-- vkd3d creates without a word.
local pso = require "pso"
local b = require "lib.base"
local C = b.case
return {
  -- the pixel shader's bytecode in the VS slot
  C("ps_in_vs_slot", { vs = pso.shader "shaders/color.ps.cso" }),
  -- the VS reads COLOR, the input layout does not provide it
  C("missing_semantic", { input_layout = { { "POSITION", "R32G32B32_FLOAT" } } }),
}
