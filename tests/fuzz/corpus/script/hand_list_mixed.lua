local pso = require "pso"
local p = pso.compute { cs = pso.shader { bytes = "c" } }
return setmetatable({ p, p, [4] = p }, { __index = function() error("index") end, __len = function() return 100 end })
