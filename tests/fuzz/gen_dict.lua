-- gen_dict.lua: the libFuzzer dictionary of the material language,
-- tests/fuzz/script.dict, for tests/fuzz/fuzz_script.c.
--
--   LUA_CPATH="DIR/?.so" lua5.4 tests/fuzz/gen_dict.lua [-o FILE | --check FILE]
--
-- (run from the repository root; DIR holds a pso.so, e.g. build/lib: the
-- tokens come from the live module). Without options it prints the
-- dictionary; -o writes it; --check FILE exits 1 (saying what differs)
-- when FILE is not what it would write. scripts/fuzz.sh runs --check
-- before it fuzzes fuzz_script.
--
-- Tokens:
--   * Lua's keywords, operators and the names of the base, string, table,
--     math and utf8 libraries, taken from the running interpreter, plus
--     the names the sandbox removes (io, os, debug, dofile, string.dump,
--     ...) and the metamethods: scripts that try them must fail cleanly.
--   * The pso module as it loads: every function and field, and every
--     preset of each preset namespace (pso.blend.opaque, ...).
--   * The pipeline methods and fields, by calling them on a pipeline.
--   * The registry's keys and enum spellings (short and full D3D12/DXGI
--     names) from scripts/types/pso.lua, which scripts/gen_annotations.c
--     prints from the registry (test.sh checks it is current).
local out_path, check_path
do
  local i = 1
  while arg[i] do
    if arg[i] == "-o" then out_path = arg[i + 1]; i = i + 2
    elseif arg[i] == "--check" then check_path = arg[i + 1]; i = i + 2
    else io.stderr:write("gen_dict.lua: unknown argument ", arg[i], "\n"); os.exit(2) end
  end
end

local tokens, order = {}, {}
local function add(s, section)
  if type(s) ~= "string" or s == "" or #s > 64 then return end
  if not tokens[s] then
    tokens[s] = section
    order[#order + 1] = s
  end
end

-- Lua -----------------------------------------------------------------------
for w in ([[and break do else elseif end false for function goto if in local nil not or
  repeat return then true until while]]):gmatch("%S+") do add(w, "lua") end
for w in ([[== ~= <= >= // .. ... :: << >> [[ ]] --[[ -- ]=] [=[ 0x 1e308 -0.0 0/0 1/0
  math.huge math.mininteger math.maxinteger 9223372036854775807 2^53 \z \x \u{ \ddd
  %a %d %s %w %b() %f[%w] %1 .- .* [^ ]]):gmatch("%S+") do add(w, "lua") end
local libs = { _G = _G, string = string, table = table, math = math, utf8 = utf8 }
for _, lib in ipairs({ "_G", "string", "table", "math", "utf8" }) do
  local names = {}
  for k, v in pairs(libs[lib] or {}) do
    if type(k) == "string" and (lib ~= "_G" or type(v) == "function") then names[#names + 1] = k end
  end
  table.sort(names)
  for _, k in ipairs(names) do
    add(k, "lua")
    if lib ~= "_G" then add(lib .. "." .. k, "lua") end
  end
end
for w in ([[io os debug package coroutine jit ffi dofile loadfile loadstring getfenv setfenv
  newproxy string.dump io.open os.execute os.exit debug.sethook debug.getinfo package.loadlib
  coroutine.wrap coroutine.create require _ENV _G _VERSION collectgarbage("count")
  "collect" "step" "stop" "restart" "generational" "incremental" __index __newindex __call
  __gc __mode __len __eq __lt __le __concat __tostring __metatable __pairs __ipairs __close
  __name __unm __add __sub __mul __div __mod __pow __idiv __band __bor __bxor __shl __shr __bnot
  "k" "v" "kv" <const> <close> ]]):gmatch("%S+") do add(w, "lua") end

-- The live pso module ---------------------------------------------------------
local pso = require "pso"
local function sorted_keys(t)
  local keys = {}
  local ok = pcall(function()
    for k in pairs(t) do if type(k) == "string" then keys[#keys + 1] = k end end
  end)
  table.sort(keys)
  return ok and keys or {}
end
add("pso", "pso")
add('require "pso"', "pso")
add('local pso = require "pso"', "pso")
for _, k in ipairs(sorted_keys(pso)) do
  add(k, "pso")
  add("pso." .. k, "pso")
  local v = pso[k]
  if type(v) == "table" then
    for _, name in ipairs(sorted_keys(v)) do
      add(name, "preset")
      add("pso." .. k .. "." .. name, "preset")
    end
  end
end

-- A pipeline's methods and fields, found by asking one.
local p = pso.graphics { name = "dict", vs = pso.shader { bytes = "DXBC" } }
for w in ([[bytes size hash check valid dump explain explain_table json diff table subobjects
  name kind]]):gmatch("%S+") do
  local v = p[w]
  if type(v) == "function" then add(w, "pipeline"); add(":" .. w .. "()", "pipeline")
  elseif v ~= nil or w == "name" then add(w, "pipeline"); add("." .. w, "pipeline") end
end
for _, path in ipairs((function()
  local rows, out = p:explain_table(), {}
  for _, row in ipairs(rows) do out[#out + 1] = row.path end
  return out
end)()) do
  add(path, "pipeline")
end

-- The registry, through the generated annotations ------------------------------
local f = assert(io.open("scripts/types/pso.lua", "rb"))
local annotations = f:read("a")
f:close()
local preset_ns
for line in annotations:gmatch("[^\n]+") do
  local cls = line:match("^%-%-%-@class %(exact%) ([%w_.]+)")
  if cls then preset_ns = cls:match("^pso%.presets%.([%w_]+)$") end
  if not line:match("^%-%-%-@field") and not cls then preset_ns = nil end
  local enum, full = line:match('^%-%-%-| "([^"]+)" # ([%w_]+) =')
  if enum then
    add(enum, "enum")
    add(full, "enum")
  end
  local field = line:match("^%-%-%-@field ([%a_][%w_]*)%??")
  if field and preset_ns then
    add(field, "preset") -- presets also when the namespaces cannot be listed
    add("pso." .. preset_ns .. "." .. field, "preset")
  elseif field then
    add(field, "key")
  end
end

-- Output --------------------------------------------------------------------
local function escape(s)
  return (s:gsub('[%c"\\\128-\255]', function(c) return string.format("\\x%02X", c:byte()) end))
end
local sections = { "lua", "pso", "preset", "pipeline", "key", "enum" }
local titles = {
  lua = "Lua: keywords, operators, library names, what the sandbox removes, metamethods",
  pso = "the pso module (live)",
  preset = "presets (live module, and the annotations)",
  pipeline = "pipeline methods and fields (live)",
  key = "subobject and field keys (registry, via scripts/types/pso.lua)",
  enum = "enum spellings (registry, via scripts/types/pso.lua)",
}
local out = {
  "# script.dict: libFuzzer dictionary of the material language for fuzz_script.",
  "# GENERATED by tests/fuzz/gen_dict.lua from the live pso module and the",
  "# registry; do not edit. scripts/fuzz.sh checks it is current.",
}
for _, section in ipairs(sections) do
  out[#out + 1] = ""
  out[#out + 1] = "# " .. titles[section]
  local list = {}
  for _, s in ipairs(order) do
    if tokens[s] == section then list[#list + 1] = s end
  end
  table.sort(list) -- stable whatever order the module lists its names in
  for _, s in ipairs(list) do out[#out + 1] = '"' .. escape(s) .. '"' end
end
local text = table.concat(out, "\n") .. "\n"

if check_path then
  local cf = io.open(check_path, "rb")
  local old = cf and cf:read("a") or ""
  if cf then cf:close() end
  if old == text then
    io.write("gen_dict.lua: ", check_path, " is current (", #order, " tokens)\n")
    os.exit(0)
  end
  local have = {}
  for l in old:gmatch("[^\n]+") do have[l] = true end
  local want = {}
  for l in text:gmatch("[^\n]+") do want[l] = true end
  for l in text:gmatch("[^\n]+") do if not have[l] then io.stderr:write("missing: ", l, "\n") end end
  for l in old:gmatch("[^\n]+") do if not want[l] then io.stderr:write("stale:   ", l, "\n") end end
  io.stderr:write("gen_dict.lua: ", check_path, " is out of date; regenerate with\n",
                  "  LUA_CPATH='build/lib/?.so' lua5.4 tests/fuzz/gen_dict.lua -o ", check_path, "\n")
  os.exit(1)
elseif out_path then
  local wf = assert(io.open(out_path, "wb"))
  wf:write(text)
  wf:close()
  io.write("gen_dict.lua: wrote ", out_path, " (", #order, " tokens)\n")
else
  io.write(text)
end
