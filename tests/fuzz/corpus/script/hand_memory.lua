local t = {}
for i = 1, 1e7 do t[#t + 1] = { i, tostring(i) } end
local ok, err = pcall(function() return string.rep("x", 2^40) end)
print(ok, err, collectgarbage("count"))
