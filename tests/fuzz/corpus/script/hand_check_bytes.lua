local pso = require "pso"
local p = pso.graphics { vs = pso.shader { bytes = "x" }, rasterizer = { cull = "front" } }
local b = p:bytes()
local d = pso.check_bytes(b)
d = pso.check_bytes(b:sub(1, #b - 8) .. "\23\0\0\0\0\0\0\0")
d = pso.check_bytes(string.rep("\0", 64))
print(p:dump(), p:explain(), p:json(), #p:check(), p:valid(), p:hash(), p:size(), tostring(p))
for k, v in pairs(p:explain_table()) do print(k, v.path, v.value, v.origin) end
return p
