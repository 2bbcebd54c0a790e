-- depth.lua: depth functions, depth writes and depth bias (D32_FLOAT).
local b = require "lib.base"
local C = b.case
local out = {}
for _, func in ipairs { "never", "less", "equal", "less_equal", "greater", "not_equal",
                        "greater_equal", "always" } do
  out[#out + 1] = C("depth_" .. func, { depth_stencil = { depth = true, func = func },
                                        depth_format = "D32_FLOAT" })
end
out[#out + 1] = C("depth_write_all", { depth_stencil = { depth = true, write = "all", func = "less" },
                                       depth_format = "D32_FLOAT" })
out[#out + 1] = C("depth_write_zero", { depth_stencil = { depth = true, write = "zero", func = "less" },
                                        depth_format = "D32_FLOAT" })
out[#out + 1] = C("depth_bias_none", { depth_stencil = { depth = true, func = "less" },
                                       depth_format = "D32_FLOAT" })
out[#out + 1] = C("depth_bias_negative", { depth_stencil = { depth = true, func = "less" },
                                           rasterizer = { depth_bias = -100000 },
                                           depth_format = "D32_FLOAT" })
return out
