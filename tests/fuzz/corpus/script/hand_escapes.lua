print(io, os, debug, package, dofile, loadfile, getfenv, setfenv, newproxy, string.dump, coroutine, jit, ffi)
print(pcall(require, "os"), pcall(require, "../../etc/passwd"), pcall(require, "lib.common"))
print(pcall(load, "\27Lua"), pcall(load, function() return nil end))
print(getmetatable(""), getmetatable(require "pso"), pcall(setmetatable, {}, { __gc = print }))
print(pcall(collectgarbage, "collect"), collectgarbage("count"))
local pso = require "pso"
print(pcall(pso.shader, "/etc/passwd"), pcall(pso.blob, "../x"))
for k, v in pairs(pso.blend) do print(k, v) end
print(pcall(rawset, pso, "graphics", print), pcall(rawget, pso.depth, "default"))
print(string.format("%q", "\0\1\255\27[31m"), ("\xff\xfe"):len(), utf8 and utf8.char(0x10ffff))
return pso.graphics { name = "\27[2J\n\0\xff", vs = pso.shader { bytes = "\0" }, root_signature = "\xc3\x28" }
