-- raster.lua: cull modes, winding and fill mode.
local pso = require "pso"
local b = require "lib.base"
local C = b.case
return {
  C("cull_back", { rasterizer = { cull = "back" } }),
  C("cull_front", { rasterizer = { cull = "front" } }),
  C("cull_none", { rasterizer = pso.rasterizer.cull_none }),
  C("front_ccw_cull_back", { rasterizer = { cull = "back", front_ccw = true } }),
  C("fill_solid", { rasterizer = { fill = "solid", cull = "none" } }),
  C("fill_wireframe", { rasterizer = { fill = "wireframe", cull = "none" } }),
}
