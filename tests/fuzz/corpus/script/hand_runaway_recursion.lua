local function f(n) return f(n + 1) + 1 end
print(pcall(f, 1))
local function g() return g() end
g()
