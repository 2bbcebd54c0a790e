-- stencil.lua: stencil functions with the reference value, pass ops, and
-- separate front and back faces (D32_FLOAT_S8X24_UINT, depth test off).
local b = require "lib.base"
local C = b.case
local function st(front, back)
  return { depth = false, stencil = true, front = front, back = back or front }
end
local F = "D32_FLOAT_S8X24_UINT"
return {
  C("stencil_equal_ref", { depth_stencil = st { func = "equal" }, depth_format = F }),
  C("stencil_pass_keep", { depth_stencil = st { func = "equal", pass = "keep" }, depth_format = F }),
  C("stencil_pass_incr", { depth_stencil = st { func = "equal", pass = "incr" }, depth_format = F }),
  C("stencil_pass_invert", { depth_stencil = st { func = "equal", pass = "invert" }, depth_format = F }),
  C("stencil_pass_zero", { depth_stencil = st { func = "equal", pass = "zero" }, depth_format = F }),
  C("stencil_front_only", { rasterizer = { cull = "none" },
                            depth_stencil = st({ func = "always" }, { func = "never" }), depth_format = F }),
  C("stencil_back_only", { rasterizer = { cull = "none" },
                           depth_stencil = st({ func = "never" }, { func = "always" }), depth_format = F }),
}
