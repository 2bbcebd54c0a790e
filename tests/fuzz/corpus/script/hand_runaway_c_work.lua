local t = {}
for i = 1, 20000 do t[i] = "x" end
local s = table.concat(t)
for i = 1, 100 do s = table.concat({ s, s }) end
local mt = setmetatable({}, { __len = function() return 1e8 end, __index = function() return 1 end })
table.insert(mt, 1)
print(table.unpack({}, 1, 1e7))
print(select("#", table.unpack(t)))
table.sort(t, function(a, b) return a < b end)
print(table.move(t, 1, 1e8, 2))
local weak = setmetatable({}, { __mode = "k" })
local k = {} for i = 1, 1e6 do local n = {} weak[k] = n k = n end
print(string.rep("a", 1e6) < string.rep("a", 1e6))
