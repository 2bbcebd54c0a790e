-- compute.lua: compute pipelines (GPU-driven culling).
--
-- Demonstrates: pso.compute (a CS and a root signature are all it needs),
-- and derive swapping the shader for a debug build of the same kernel.
local pso = require "pso"
local common = require "lib.common"

local cull = pso.compute {
  name = "cull_instances",
  root_signature = "culling",
  cs = common.shader "cull.cs",
}

local cull_debug = pso.derive(cull, {
  name = "cull_instances_debug",
  cs = common.shader "cull_debug.cs",
})

return { cull, cull_debug }
