local pso = require "pso"
local p = pso.graphics { vs = pso.shader { bytes = "x" } }
local t = {}
for i = 1, 5000 do t[i] = p end
return t
