--[[
check.lua: check the LuaLS annotations (scripts/types/pso.lua) against the
`pso` module itself, under whichever Lua runs it (5.1, 5.3, 5.4, LuaJIT).

  LUA_CPATH="BUILD/lib/?.so" lua5.4 scripts/types/check.lua [scripts/types/pso.lua]

The annotations are generated from the registry (scripts/gen_annotations.c),
so they cannot miss a registry key; what could drift is the hand-written
part (module functions, presets, shorthands) and the generator's idea of
the language. This script loads the module and checks that:
  - every function and field of the module is annotated, and the other way
    round; every preset named in the annotations exists, and (through
    pso.preset_pairs) no preset is missing
  - every pipeline method annotated on pso.Pipeline exists
  - every top-level key annotated for pso.graphics / pso.mesh / pso.compute
    is accepted there
  - every field of every record reachable from those keys, with a value of
    each type of its union, is accepted (nested records and lists included)
  - every enum name of every alias is accepted where that enum is used
Prints one line per failure and "annotations: N passed, M failed".
]]

local annotations = arg and arg[1] or "scripts/types/pso.lua"
local pso = require "pso"

-- ---------------------------------------------------------------------
-- Parse the annotation file
-- ---------------------------------------------------------------------

local aliases = {}   -- name -> { values = {...} } or { type = "..." }
local classes = {}   -- name -> { fields = { {name=, type=, optional=} ... }, by = {} }
local functions = {} -- name -> true (function pso.NAME)

do
  local f = assert(io.open(annotations, "r"))
  local current_alias, current_class
  for line in f:lines() do
    local name, rest = line:match("^%-%-%-@alias%s+(%S+)%s*(.*)$")
    if name then
      current_class = nil
      if rest ~= "" then
        aliases[name] = { type = rest }
        current_alias = nil
      else
        aliases[name] = { values = {} }
        current_alias = aliases[name]
      end
    elseif line:match("^%-%-%-@class") then
      current_alias = nil
      local cname = line:match("^%-%-%-@class%s+%(exact%)%s+([^%s:]+)") or
                    line:match("^%-%-%-@class%s+([^%s:]+)")
      classes[cname] = { fields = {}, by = {} }
      current_class = classes[cname]
    elseif line:match("^%-%-%-|") and current_alias then
      local v = line:match('^%-%-%-|%s+"([^"]*)"')
      if v then table.insert(current_alias.values, v) end
    elseif line:match("^%-%-%-@field") and current_class then
      local fname, opt, ftype, desc = line:match("^%-%-%-@field%s+([%w_%[%]]+)(%??)%s+(%S+)%s*(.*)$")
      local field = { name = fname, optional = opt == "?", type = ftype, desc = desc }
      table.insert(current_class.fields, field)
      current_class.by[fname] = field
    else
      local fn = line:match("^function%s+pso%.([%w_]+)%s*%(")
      if fn then functions[fn] = true end
      if not line:match("^%-%-%-") then
        current_alias, current_class = nil, nil
      end
    end
  end
  f:close()
end

-- ---------------------------------------------------------------------
-- Reporting
-- ---------------------------------------------------------------------

local passed, failed = 0, 0
local function ok(cond, msg)
  if cond then
    passed = passed + 1
  else
    failed = failed + 1
    print("FAIL " .. msg)
  end
  return cond
end

-- Split a type at top-level '|' (no nesting in what the generator writes
-- except "(A|B)[]").
local function alternatives(t)
  local out, depth, cur = {}, 0, ""
  for ch in t:gmatch(".") do
    if ch == "(" then depth = depth + 1 end
    if ch == ")" then depth = depth - 1 end
    if ch == "|" and depth == 0 then
      table.insert(out, cur)
      cur = ""
    else
      cur = cur .. ch
    end
  end
  table.insert(out, cur)
  return out
end

-- ---------------------------------------------------------------------
-- Module surface
-- ---------------------------------------------------------------------

local module_class = assert(classes["pso"], "no ---@class pso")
for k, v in pairs(pso) do
  if type(v) == "function" then
    ok(functions[k], "pso." .. k .. " is a function of the module but has no annotation")
  else
    ok(module_class.by[k], "pso." .. k .. " is a field of the module but has no annotation")
  end
end
for k in pairs(functions) do
  ok(type(pso[k]) == "function", "pso." .. k .. " is annotated but is not a function of the module")
end
for _, f in ipairs(module_class.fields) do
  ok(pso[f.name] ~= nil, "pso." .. f.name .. " is annotated but missing from the module")
  local preset_class = classes[f.type]
  if f.type:match("^pso%.presets%.") and ok(preset_class, "no class " .. f.type) then
    for _, pf in ipairs(preset_class.fields) do
      ok(pso[f.name][pf.name] ~= nil, "preset pso." .. f.name .. "." .. pf.name .. " is annotated but missing")
    end
    for name in pso.preset_pairs(pso[f.name]) do -- every Lua version (5.1 has no __pairs)
      ok(preset_class.by[name], "preset pso." .. f.name .. "." .. tostring(name) .. " has no annotation")
    end
  end
end

-- ---------------------------------------------------------------------
-- Declarations
-- ---------------------------------------------------------------------

local shader = pso.shader { bytes = "DXBC-not-really" }
local blob = pso.blob { bytes = "blob" }
local deciders = { graphics = "vs", mesh = "ms", compute = "cs" }

local function declare(kind, key, value)
  local decl = { [deciders[kind]] = shader }
  if key ~= deciders[kind] then decl[key] = value else decl[key] = value end
  return pcall(pso[kind], decl)
end

local samples -- forward

-- Values for a type: a list of { value, label }.
local function values_of(t, depth)
  local out = {}
  for _, alt in ipairs(alternatives(t)) do
    for _, v in ipairs(samples(alt, depth)) do table.insert(out, v) end
  end
  return out
end

-- One sample value per alternative (the first enum name for aliases).
function samples(alt, depth)
  if depth > 6 then return {} end
  local elem = alt:match("^%((.*)%)%[%]$") or alt:match("^(.-)%[%]$")
  if elem then
    local out = {}
    for _, v in ipairs(values_of(elem, depth + 1)) do
      table.insert(out, { { v[1] }, "{ " .. v[2] .. " }" })
    end
    return out
  end
  if alt == "integer" then return { { 1, "1" } } end
  if alt == "number" then return { { 0.5, "0.5" } } end
  if alt == "boolean" then return { { true, "true" } } end
  if alt == "string" then return { { "TEXCOORD", '"TEXCOORD"' } } end
  if alt == "lightuserdata" then return {} end
  if alt == "pso.None" then return { { pso.none, "pso.none" } } end
  if alt == "pso.Shader" then return { { shader, "shader" } } end
  if alt == "pso.Blob" then return { { blob, "blob" } } end
  local a = aliases[alt]
  if a then
    if a.values then return { { a.values[1], '"' .. a.values[1] .. '"' } } end
    return values_of(a.type, depth + 1)
  end
  local c = classes[alt]
  if c then
    local t = {}
    if c.by["[1]"] then t[1] = "POSITION" end
    if c.by["[2]"] then t[2] = "R32G32B32_FLOAT" end
    return { { t, "{}" } }
  end
  ok(false, "unknown type " .. alt)
  return {}
end

-- Records are tables, except the userdata classes (pso.Shader, ...).
local function is_record(cname)
  return classes[cname] ~= nil and (cname:match("^pso%.struct%.") or cname:match("^pso%.decl%."))
end

-- The key a field stands for: its own, or the key a D3D12 member name is
-- "same as".
local function canonical(f)
  return f.desc:match("^same as `([%w_]+)`") or f.name
end

-- A record with the fields it cannot go without (the input element's
-- positional semantic and format), except the one being tested.
local function base_record(cname, tested)
  local c = classes[cname]
  local t = {}
  for i = 1, 2 do
    local pf = c and c.by["[" .. i .. "]"]
    if pf then
      local key = pf.desc:match("^([%w_]+)")
      if key ~= tested then t[i] = (i == 1) and "POSITION" or "R32G32B32_FLOAT" end
    end
  end
  return t
end

-- Call fn(target, wrap) for each alternative of type t, through lists
-- (wrap puts a value in a one-element list) and type aliases.
local function each_target(t, wrap, fn)
  for _, alt in ipairs(alternatives(t)) do
    local elem = alt:match("^%((.*)%)%[%]$") or alt:match("^(.-)%[%]$")
    if elem then
      each_target(elem, function(v) return wrap({ v }) end, fn)
    elseif aliases[alt] and aliases[alt].type then
      each_target(aliases[alt].type, wrap, fn)
    else
      fn(alt, wrap)
    end
  end
end

local enum_sites = {} -- alias -> function(value) -> ok, err

local walk_class

-- Where a value of type t goes (wrap), note enum sites and walk records.
local function visit(kind, key, t, wrap, path, depth)
  each_target(t, wrap, function(target, w)
    if is_record(target) then
      walk_class(kind, key, target, w, path, depth + 1)
    elseif aliases[target] and aliases[target].values and not enum_sites[target] then
      enum_sites[target] = function(v) return declare(kind, key, w(v)) end
    end
  end)
end

-- wrap(v) builds the top-level value that puts v at the walked path.
local walked = {}

function walk_class(kind, key, cname, wrap, path, depth)
  local c = classes[cname]
  walked[cname] = true
  if depth > 5 then return end
  for _, f in ipairs(c.fields) do
    if not f.name:match("^%[") then
      local fpath = path .. "." .. f.name
      local function put(v)
        local rec = base_record(cname, canonical(f))
        rec[f.name] = v
        return wrap(rec)
      end
      for _, s in ipairs(values_of(f.type, 0)) do
        local good, err = declare(kind, key, put(s[1]))
        ok(good, string.format("%s %s = %s: %s", kind, fpath, s[2], tostring(err)))
      end
      visit(kind, key, f.type, put, fpath, depth)
    end
  end
end

for _, kind in ipairs({ "graphics", "mesh", "compute" }) do
  local c = classes["pso.decl." .. kind]
  if ok(c, "no class pso.decl." .. kind) then
    for _, f in ipairs(c.fields) do
      if f.name ~= "name" and f.name ~= deciders[kind] then
        -- the key itself, then a value of each type of its union, and the
        -- records below
        local good, err = declare(kind, f.name, pso.none)
        ok(good, string.format("%s: top-level key %s: %s", kind, f.name, tostring(err)))
        for _, s in ipairs(values_of(f.type, 0)) do
          good, err = declare(kind, f.name, s[1])
          ok(good, string.format("%s %s = %s: %s", kind, f.name, s[2], tostring(err)))
        end
        visit(kind, f.name, f.type, function(v) return v end, f.name, 0)
      end
    end
  end
end

-- A field named by a D3D12 member must be given in place of its key, not
-- with it; both spellings were accepted above one at a time.

-- Root signatures (pso.root_signature, bindings/lua/pso_rootsig.c): every
-- field of the pso.rootsig classes with a value of each type of its union,
-- and (below) every enum name where it is used, is accepted. Fields whose
-- sample would be an empty parameter, range or constants ({}: none of its
-- kinds, no count) are covered by that class's own fields.
do
  local rs_sites = { -- class -> function(key, value) -> declaration
    ["pso.rootsig.Decl"] = function(k, v) return { [k] = v } end,
    ["pso.rootsig.Parameter"] = function(k, v)
      local p = { [k] = v }
      if k == "visibility" then p.cbv = {} end
      return { parameters = { p } }
    end,
    ["pso.rootsig.Constants"] = function(k, v)
      local c = { count = 1 }
      c[k] = v
      return { parameters = { { constants = c } } }
    end,
    ["pso.rootsig.Descriptor"] = function(k, v) return { parameters = { { cbv = { [k] = v } } } } end,
    ["pso.rootsig.TableEntry"] = function(k, v) return { parameters = { { table = { { [k] = v } } } } } end,
    ["pso.rootsig.Range"] = function(k, v) return { parameters = { { table = { { srv = { [k] = v } } } } } } end,
    ["pso.rootsig.StaticSampler"] = function(k, v)
      local smp = { comparison = "less" }
      smp[k] = v
      return { static_samplers = { smp } }
    end,
  }
  local function declare_rs(decl) return pcall(pso.root_signature, decl) end
  for cname, site in pairs(rs_sites) do
    local c = classes[cname]
    if ok(c, "no class " .. cname) then
      for _, f in ipairs(c.fields) do
        if not f.type:match("pso%.rootsig%.Parameter") and not f.type:match("pso%.rootsig%.TableEntry")
           and not f.type:match("pso%.rootsig%.Constants") then
          for _, smp in ipairs(values_of(f.type, 0)) do
            local v = smp[1]
            if f.name == "name" then v = "check.lua root signature" end
            local good, err = declare_rs(site(f.name, v))
            ok(good, string.format("root_signature %s.%s = %s: %s", cname, f.name, smp[2], tostring(err)))
          end
        end
        each_target(f.type, function(v) return v end, function(target, w)
          if aliases[target] and aliases[target].values and not enum_sites[target] then
            enum_sites[target] = function(v) return declare_rs(site(f.name, w(v))) end
          end
        end)
      end
    end
  end
end

-- Every enum name, where its enum is used.
for name, a in pairs(aliases) do
  if a.values and enum_sites[name] then
    for _, v in ipairs(a.values) do
      local good, err = enum_sites[name](v)
      ok(good, string.format("%s \"%s\": %s", name, v, tostring(err)))
    end
  elseif a.values and name == "pso.subobject_key" then
    -- not a field type: the top-level keys
    local decl = classes["pso.decl.overrides"]
    for _, v in ipairs(a.values) do
      ok(decl.by[v], name .. " \"" .. v .. "\" is not a top-level key")
    end
    local p = pso.graphics { vs = shader }
    for _, key in ipairs(p:subobjects()) do
      local found = false
      for _, v in ipairs(a.values) do found = found or v == key end
      ok(found, "pipeline:subobjects() returned \"" .. key .. "\", not in " .. name)
    end
  elseif a.values and name == "pso.enum.pipeline_state_subobject_type" then
    -- D3D12's own enum, annotated for completeness; the language names
    -- subobjects by pso.subobject_key
    passed = passed + 1
  elseif a.values then
    ok(false, name .. " is not used by any field")
  end
end

-- Every record class is reachable from a declaration (so checked above).
for cname in pairs(classes) do
  if is_record(cname) and not cname:match("^pso%.decl%.[%a]+$") then
    ok(walked[cname], "class " .. cname .. " is not reachable from any declaration")
  end
end

-- Pipeline methods.
do
  local p = pso.graphics { vs = shader }
  for _, f in ipairs(classes["pso.Pipeline"].fields) do
    if f.type:match("^fun%(") then
      ok(type(p[f.name]) == "function", "pipeline method " .. f.name .. " is annotated but missing")
    end
  end
end

print(string.format("annotations (%s): %d passed, %d failed", _VERSION .. (jit and " " .. jit.version or ""),
                    passed, failed))
os.exit(failed == 0 and 0 or 1)
