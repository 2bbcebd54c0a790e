-- shim.lua: a tiny busted-like runner (describe / it / expect) for plain Lua.
-- Usage: lua shim.lua SPEC.lua ...   (exits 1 when a test fails)
local passed, failed, stack = 0, 0, {}
function describe(name, fn) stack[#stack + 1] = name; fn(); stack[#stack] = nil end
function it(name, fn)
  local ok, err = xpcall(fn, function(e) return debug and debug.traceback(tostring(e), 2) or tostring(e) end)
  if ok then passed = passed + 1 return end
  failed = failed + 1
  io.stderr:write("FAIL: ", table.concat(stack, " > "), " > ", name, "\n  ", tostring(err), "\n")
end
local function show(v) return type(v) == "string" and string.format("%q", v) or tostring(v) end
function expect(v)
  local to = {}
  local function check(ok, msg) if not ok then error(msg, 3) end end
  function to.equal(x) check(v == x, "expected " .. show(x) .. ", got " .. show(v)) end
  function to.differ(x) check(v ~= x, "expected something other than " .. show(x)) end
  function to.be_true() check(v == true, "expected true, got " .. show(v)) end
  function to.be_false() check(v == false, "expected false, got " .. show(v)) end
  function to.be_nil() check(v == nil, "expected nil, got " .. show(v)) end
  function to.contain(s) check(type(v) == "string" and v:find(s, 1, true), show(v) .. " does not contain " .. show(s)) end
  function to.match(p) check(type(v) == "string" and v:match(p), show(v) .. " does not match " .. show(p)) end
  function to.fail(...) -- v is a function; its error message must contain every argument
    local ok, e = pcall(v)
    check(not ok, "expected an error")
    for _, s in ipairs({ ... }) do check(tostring(e):find(s, 1, true), "error " .. show(e) .. " lacks " .. show(s)) end
    return e
  end
  return { to = to }
end
for i = 1, #arg do
  local f, err = loadfile(arg[i])
  if not f then failed = failed + 1; io.stderr:write("FAIL: cannot load ", arg[i], ": ", err, "\n")
  else stack = { (arg[i]:match("[^/]+$")) }; local ok, e = pcall(f)
    if not ok then failed = failed + 1; io.stderr:write("FAIL: ", arg[i], ": ", tostring(e), "\n") end end
end
print(string.format("%s: %d passed, %d failed", (#arg == 1 and arg[1]:match("[^/]+$")) or "specs", passed, failed))
os.exit(failed == 0 and 0 or 1)
