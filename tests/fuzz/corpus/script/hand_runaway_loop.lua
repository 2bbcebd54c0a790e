local pso = require "pso"
local p = pso.graphics { vs = pso.shader { bytes = "x" } }
while true do end
return p
