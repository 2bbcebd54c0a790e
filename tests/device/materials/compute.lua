-- compute.lua: a compute pipeline that stores a marker into a root UAV.
local pso = require "pso"
return pso.compute {
  name = "compute_store",
  root_signature = "uav0",
  cs = pso.shader "shaders/store.cs.cso",
}
