-- input.lua: input layout offsets, slots and per-instance data; topologies;
-- the sample mask.
local pso = require "pso"
local b = require "lib.base"
local C = b.case
return {
  C("input_offsets", { input_layout = {
    { "POSITION", "R32G32B32_FLOAT", offset = 20 },
    { "COLOR",    "R32G32B32A32_FLOAT", offset = 0 },
  } }),
  C("input_slots", { input_layout = {
    { "POSITION", "R32G32B32_FLOAT", slot = 0 },
    { "COLOR",    "R32G32B32A32_FLOAT", slot = 1 },
  } }),
  C("input_per_instance", {
    vs = pso.shader "shaders/instanced.vs.cso",
    rasterizer = { cull = "none" },
    input_layout = {
      { "POSITION", "R32G32B32_FLOAT" },
      { "OFFSET",   "R32G32_FLOAT", slot = 1, classification = "per_instance_data", step_rate = 1 },
      { "COLOR",    "R32G32B32A32_FLOAT", slot = 1, classification = "per_instance_data", step_rate = 1 },
    },
  }),
  C("topology_triangle_strip", { topology = "triangle" }),
  C("topology_line", { topology = "line" }),
  C("topology_point", { topology = "point" }),
  C("sample_mask_all", { sample_mask = 0xffffffff }),
  C("sample_mask_without_0", { sample_mask = 0xfffffffe }),
}
