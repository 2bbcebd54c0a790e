local pso = require "pso"
local p = pso.graphics { vs = pso.shader { bytes = string.rep("x", 2 ^ 20) } }
local t = {}
for i = 1, 20000 do t[i] = p end
return t
