local s = string.rep("ab", 1e6)
local t = {}
for i = 1, 1e9 do t[i] = s .. i end
