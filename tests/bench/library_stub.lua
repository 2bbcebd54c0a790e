-- tests/bench/library_stub.lua: the reference side of bench_library.sh.
--
--   lua5.4 tests/bench/library_stub.lua ROOT LIST [--bytecode]
--
-- Runs every material script named in LIST (one path a line, under ROOT)
-- the way `psoc check ROOT` does, minus psoc: one process, and for every
-- script a fresh environment of its own (new copies of the base, string,
-- table and math libraries, a require with its own module cache, and a
-- new `pso` module), so that no script sees what another did -- the
-- isolation the shipped tool gets from a fresh sandboxed lua_State per
-- file. The `pso` module here is a table-only stub: pso.graphics, mesh,
-- compute, derive, shader, blob, preset, root_signature and the preset
-- namespaces are Lua functions and tables that build plain tables and
-- read shader files, with no checking, no conversion and no streams.
--
-- require "NAME" reads ROOT/NAME.lua (dots -> '/') and compiles it from
-- source in the script's environment, once per script (as in a fresh
-- state: a module is shared by the files of a library, not by their
-- evaluations). Shader and blob files are read each time they are named.
-- --bytecode: a stricter reference for a host that caches compiled code:
-- each module's source is compiled once per process and string.dump'ed,
-- and every script's require loads those bytes (mode "b") into its own
-- environment (the analogue of psoc's per-process chunk cache).
--
-- Prints "files N pipelines P" at the end; exits 1 if a script fails.

local root, list, bytecode = arg[1], arg[2], arg[3] == "--bytecode"
if not root or not list then
  io.stderr:write("usage: lua5.4 library_stub.lua ROOT LIST\n")
  os.exit(2)
end

local open, load, pairs, ipairs, type, error = io.open, load, pairs, ipairs, type, error

local function read(path)
  local f, why = open(path, "rb")
  if not f then error(why, 0) end
  local s = f:read("a")
  f:close()
  return s
end

-- What a fresh sandboxed state offers a script (psol.h): the safe base
-- functions and fresh string, table, math and utf8 tables.
local base_names = {
  "assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall", "print", "rawequal",
  "rawget", "rawlen", "rawset", "select", "setmetatable", "tonumber", "tostring", "type",
  "xpcall", "load",
}
local libs = { string = string, table = table, math = math, utf8 = utf8 }

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

-- ---- the stub pso module (built anew for every script) -------------------

local function new_pso()
  local pso = {}
  local none = {}
  pso.none = none
  pso.version = "stub"
  pso.APPEND_ALIGNED = 0xffffffff

  local function pipeline(kind, t)
    if type(t) ~= "table" then error("pso." .. kind .. ": expected a table", 2) end
    return { kind = kind, desc = t }
  end
  function pso.graphics(t) return pipeline("graphics", t) end
  function pso.mesh(t) return pipeline("mesh", t) end
  function pso.compute(t) return pipeline("compute", t) end

  local function is_list(t) return t[1] ~= nil end
  local function merge(base, over)
    local out = {}
    for k, v in pairs(base) do out[k] = v end
    for k, v in pairs(over) do
      if v == none then
        out[k] = nil
      elseif type(v) == "table" and type(out[k]) == "table" and not is_list(v)
          and v.kind == nil and out[k].kind == nil then
        out[k] = merge(out[k], v)
      else
        out[k] = v
      end
    end
    return out
  end
  function pso.derive(base, over)
    if type(base) ~= "table" or type(base.desc) ~= "table" then
      error("pso.derive: argument 1 is not a pipeline", 2)
    end
    if type(over) ~= "table" or type(over.name) ~= "string" then
      error("pso.derive: overrides need a name", 2)
    end
    return { kind = base.kind, desc = merge(base.desc, over) }
  end

  local function blob(kind)
    return function(v)
      if type(v) == "string" then return { kind = kind, file = v, bytes = read(root .. "/" .. v) } end
      if type(v) == "table" and v.bytes then return { kind = kind, bytes = v.bytes } end
      if type(v) == "table" and v.file then
        return { kind = kind, file = v.file, bytes = read(root .. "/" .. v.file) }
      end
      error("pso." .. kind .. ": expected a file name or a table", 2)
    end
  end
  pso.shader = blob("shader")
  pso.blob = blob("blob")
  function pso.root_signature(t) return { kind = "root_signature", desc = t } end
  function pso.preset(name, t) return { preset = name, data = t } end
  function pso.copy(t) return t end

  local function preset_ns(ns, defs)
    local t = {}
    for k, v in pairs(defs) do t[k] = pso.preset(ns .. "." .. k, v) end
    pso[ns] = t
  end
  local function blend(enable, src, dst, src_alpha, dst_alpha)
    return {
      alpha_to_coverage = false, independent = false, enable = enable, logic_op_enable = false,
      src = src, dst = dst, op = "add", src_alpha = src_alpha, dst_alpha = dst_alpha,
      op_alpha = "add", logic_op = "noop", write_mask = "all",
    }
  end
  preset_ns("blend", {
    opaque = blend(false, "one", "zero", "one", "zero"),
    alpha = blend(true, "src_alpha", "inv_src_alpha", "one", "inv_src_alpha"),
    premultiplied = blend(true, "one", "inv_src_alpha", "one", "inv_src_alpha"),
    additive = blend(true, "one", "one", "one", "one"),
    multiply = blend(true, "dest_color", "zero", "dest_alpha", "zero"),
  })
  preset_ns("rasterizer", {
    default = { fill = "solid", cull = "back" },
    cull_none = { fill = "solid", cull = "none" },
    cull_front = { fill = "solid", cull = "front" },
    wireframe = { fill = "wireframe", cull = "none" },
    shadow_bias = { fill = "solid", cull = "back", depth_bias = 1000,
                    slope_scaled_depth_bias = 1.5, depth_bias_clamp = 0 },
  })
  preset_ns("depth", {
    default = { depth = true, write = "all", func = "less" },
    read_only = { depth = true, write = "zero", func = "less_equal" },
    reverse_z = { depth = true, write = "all", func = "greater_equal" },
    disabled = { depth = false, write = "zero" },
    equal = { depth = true, write = "zero", func = "equal" },
  })
  return pso
end

-- ---- one fresh environment per script ------------------------------------

local compiled = {} -- --bytecode: source text -> string.dump of its chunk
local function load_module(src, name, env)
  if not bytecode then return load(src, name, "t", env) end
  local bc = compiled[src]
  if not bc then
    local f, why = load(src, name, "t")
    if not f then return nil, why end
    bc = string.dump(f)
    compiled[src] = bc
  end
  return load(bc, name, "b", env)
end

local function new_env()
  local env = {}
  for _, k in ipairs(base_names) do env[k] = _G[k] end
  for k, v in pairs(libs) do env[k] = copy(v) end
  env._G = env
  local loaded = {}
  function env.require(name)
    local m = loaded[name]
    if m ~= nil then return m end
    if name == "pso" then
      m = new_pso()
    else
      local path = root .. "/" .. name:gsub("%.", "/") .. ".lua"
      local chunk, why = load_module(read(path), "@" .. path, env)
      if not chunk then error(why, 0) end
      m = chunk(name, path)
      if m == nil then m = true end
    end
    loaded[name] = m
    return m
  end
  return env
end

local files, pipelines, failed = 0, 0, 0
for path in io.lines(list) do
  local env = new_env()
  local ok, res = pcall(function()
    local chunk, why = load(read(path), "@" .. path, "t", env)
    if not chunk then error(why, 0) end
    return chunk()
  end)
  files = files + 1
  if not ok then
    failed = failed + 1
    io.stderr:write(tostring(res), "\n")
  elseif type(res) == "table" and res.kind then
    pipelines = pipelines + 1
  elseif type(res) == "table" then
    for _, p in ipairs(res) do
      if type(p) == "table" and p.kind then pipelines = pipelines + 1 end
    end
  end
end
print(("files %d pipelines %d"):format(files, pipelines))
os.exit(failed == 0 and 0 or 1)
