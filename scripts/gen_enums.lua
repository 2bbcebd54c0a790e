#!/usr/bin/env lua5.4
--[==[
gen_enums.lua: generate src/enums.c (psoc's enum name tables) from the
installed DirectX headers.

Usage:
  lua5.4 scripts/gen_enums.lua [--check] [HEADER_DIR [OUTPUT]]

  HEADER_DIR  directory holding d3d12.h and dxgiformat.h
              (default /usr/include/directx)
  OUTPUT      the generated C file (default src/enums.c next to this
              script's directory)
  --check     do not write; compare the generated text with OUTPUT and
              exit 1 when it differs (used by the tests to verify that the
              committed copy is current)

The output depends only on the header contents (never on dpkg or the
environment), so --check is reproducible.
]==]

-- ---------------------------------------------------------------------
-- Values newer than the installed header (Debian's directx-headers 1.606).
-- Taken from the D3D12 documentation / newer DirectX-Headers releases.
-- Each one is added only when the header does not already define that
-- name; if the header defines it with a different value, generation fails.
-- An enum marked optional in TABLES may be missing from the header
-- altogether; it is then made of these extras alone.
-- ---------------------------------------------------------------------
local EXTRAS = {
  D3D12_LINE_RASTERIZATION_MODE = {
    { "D3D12_LINE_RASTERIZATION_MODE_ALIASED", 0 },
    { "D3D12_LINE_RASTERIZATION_MODE_ALPHA_ANTIALIASED", 1 },
    { "D3D12_LINE_RASTERIZATION_MODE_QUADRILATERAL_WIDE", 2 },
    { "D3D12_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW", 3 },
  },
  D3D12_BLEND = {
    { "D3D12_BLEND_ALPHA_FACTOR", 20 },
    { "D3D12_BLEND_INV_ALPHA_FACTOR", 21 },
  },
  D3D12_COMPARISON_FUNC = {
    { "D3D12_COMPARISON_FUNC_NONE", 0 },
  },
  D3D12_PIPELINE_STATE_FLAGS = {
    { "D3D12_PIPELINE_STATE_FLAG_DYNAMIC_DEPTH_BIAS", 0x4 },
    { "D3D12_PIPELINE_STATE_FLAG_DYNAMIC_INDEX_BUFFER_STRIP_CUT", 0x8 },
  },
  D3D12_PIPELINE_STATE_SUBOBJECT_TYPE = {
    { "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_RASTERIZER1", 27 },
    { "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_RASTERIZER2", 28 },
    { "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_SERIALIZED_ROOT_SIGNATURE", 29 },
  },
}

-- ---------------------------------------------------------------------
-- The tables, in output order.
--   id      C identifier of the psoc_enum object
--   type    C enum type (also the psoc_enum name field)
--   file    header it comes from
--   key     psoc_enum key (default: type without D3D12_/DXGI_, lowercased)
--   flags   a bit set (values printed in hex)
--   skip    member names to leave out
--   optional  the enum may be missing from the header (then EXTRAS only)
-- ---------------------------------------------------------------------
local TABLES = {
  { id = "psoc_enum_dxgi_format", type = "DXGI_FORMAT", file = "dxgiformat.h",
    key = "format", skip = { DXGI_FORMAT_FORCE_UINT = true } },
  { id = "psoc_enum_fill_mode", type = "D3D12_FILL_MODE" },
  { id = "psoc_enum_cull_mode", type = "D3D12_CULL_MODE" },
  { id = "psoc_enum_conservative_raster", type = "D3D12_CONSERVATIVE_RASTERIZATION_MODE" },
  { id = "psoc_enum_line_raster", type = "D3D12_LINE_RASTERIZATION_MODE", optional = true },
  { id = "psoc_enum_blend", type = "D3D12_BLEND" },
  { id = "psoc_enum_blend_op", type = "D3D12_BLEND_OP" },
  { id = "psoc_enum_logic_op", type = "D3D12_LOGIC_OP" },
  { id = "psoc_enum_color_write", type = "D3D12_COLOR_WRITE_ENABLE", flags = true },
  { id = "psoc_enum_comparison_func", type = "D3D12_COMPARISON_FUNC" },
  { id = "psoc_enum_stencil_op", type = "D3D12_STENCIL_OP" },
  { id = "psoc_enum_depth_write_mask", type = "D3D12_DEPTH_WRITE_MASK" },
  { id = "psoc_enum_input_classification", type = "D3D12_INPUT_CLASSIFICATION" },
  { id = "psoc_enum_strip_cut", type = "D3D12_INDEX_BUFFER_STRIP_CUT_VALUE" },
  { id = "psoc_enum_topology_type", type = "D3D12_PRIMITIVE_TOPOLOGY_TYPE" },
  { id = "psoc_enum_pipeline_flags", type = "D3D12_PIPELINE_STATE_FLAGS", flags = true },
  { id = "psoc_enum_view_instancing_flags", type = "D3D12_VIEW_INSTANCING_FLAGS", flags = true },
  { id = "psoc_enum_subobject_type", type = "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE",
    skip = { D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_MAX_VALID = true } },
  -- root signatures (src/rootsig.c, pso.root_signature); flags without their
  -- NONE member: a root signature's flags are listed, never "none"
  { id = "psoc_enum_shader_visibility", type = "D3D12_SHADER_VISIBILITY" },
  { id = "psoc_enum_root_signature_flags", type = "D3D12_ROOT_SIGNATURE_FLAGS", flags = true,
    skip = { D3D12_ROOT_SIGNATURE_FLAG_NONE = true } },
  { id = "psoc_enum_descriptor_range_flags", type = "D3D12_DESCRIPTOR_RANGE_FLAGS", flags = true,
    skip = { D3D12_DESCRIPTOR_RANGE_FLAG_NONE = true } },
  { id = "psoc_enum_root_descriptor_flags", type = "D3D12_ROOT_DESCRIPTOR_FLAGS", flags = true,
    skip = { D3D12_ROOT_DESCRIPTOR_FLAG_NONE = true } },
  { id = "psoc_enum_filter", type = "D3D12_FILTER" },
  { id = "psoc_enum_texture_address_mode", type = "D3D12_TEXTURE_ADDRESS_MODE" },
  { id = "psoc_enum_static_border_color", type = "D3D12_STATIC_BORDER_COLOR" },
}

local NAME_MAX = 79 -- enums.h: keys and full names are shorter than PSOC_ENUM_NAME_MAX (80)

-- ---------------------------------------------------------------------

local function die(fmt, ...)
  io.stderr:write("gen_enums.lua: ", string.format(fmt, ...), "\n")
  os.exit(2)
end

local function script_dir()
  local src = debug.getinfo(1, "S").source
  if src:sub(1, 1) == "@" then
    local dir = src:sub(2):match("^(.*)[/\\]")
    return dir or "."
  end
  return "."
end

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local s = f:read("a")
  f:close()
  return s
end

-- Remove CRs and comments (enum bodies are then plain "NAME = expr," lists).
local function clean_source(text)
  text = text:gsub("\r", "")
  text = text:gsub("/%*.-%*/", " ")
  text = text:gsub("//[^\n]*", " ")
  return text
end

-- ---- tiny expression evaluator: numbers, names, ( ), unary -/~, + - << >> & ^ | ----

local function tokenize(expr, where)
  local toks, i, n = {}, 1, #expr
  while i <= n do
    local c = expr:sub(i, i)
    if c:match("%s") then
      i = i + 1
    elseif expr:match("^0[xX]%x+", i) then
      local s = expr:match("^0[xX]%x+", i)
      i = i + #s
      i = i + #(expr:match("^[uUlL]*", i))
      toks[#toks + 1] = { k = "num", v = tonumber(s:sub(3), 16) }
    elseif c:match("%d") then
      local s = expr:match("^%d+", i)
      i = i + #s
      i = i + #(expr:match("^[uUlL]*", i))
      toks[#toks + 1] = { k = "num", v = tonumber(s, 10) }
    elseif c:match("[%a_]") then
      local s = expr:match("^[%w_]+", i)
      i = i + #s
      toks[#toks + 1] = { k = "name", v = s }
    elseif expr:sub(i, i + 1) == "<<" or expr:sub(i, i + 1) == ">>" then
      toks[#toks + 1] = { k = "op", v = expr:sub(i, i + 1) }
      i = i + 2
    elseif c:match("[%+%-|&%^~%(%)]") then
      toks[#toks + 1] = { k = "op", v = c }
      i = i + 1
    else
      die("%s: cannot parse value expression '%s'", where, expr)
    end
  end
  return toks
end

local function evaluate(expr, known, where)
  local toks, pos = tokenize(expr, where), 1
  local function peek() return toks[pos] end
  local function take() pos = pos + 1; return toks[pos - 1] end
  local function is_op(v) local t = peek(); return t and t.k == "op" and t.v == v end

  local binary -- forward
  local function primary()
    local t = take()
    if not t then die("%s: unexpected end of expression '%s'", where, expr) end
    if t.k == "num" then return t.v end
    if t.k == "name" then
      local v = known[t.v]
      if v == nil then die("%s: unknown name '%s' in '%s'", where, t.v, expr) end
      return v
    end
    if t.v == "(" then
      local v = binary(1)
      if not is_op(")") then die("%s: missing ')' in '%s'", where, expr) end
      take()
      return v
    end
    if t.v == "-" then return -primary() end
    if t.v == "~" then return ~primary() end
    if t.v == "+" then return primary() end
    die("%s: unexpected '%s' in '%s'", where, t.v, expr)
  end
  local PREC = { ["|"] = 1, ["^"] = 2, ["&"] = 3, ["<<"] = 4, [">>"] = 4, ["+"] = 5, ["-"] = 5 }
  binary = function(min)
    local lhs = primary()
    while true do
      local t = peek()
      local p = t and t.k == "op" and PREC[t.v]
      if not p or p < min then break end
      take()
      local rhs = binary(p + 1)
      if t.v == "|" then lhs = lhs | rhs
      elseif t.v == "^" then lhs = lhs ~ rhs
      elseif t.v == "&" then lhs = lhs & rhs
      elseif t.v == "<<" then lhs = lhs << rhs
      elseif t.v == ">>" then lhs = lhs >> rhs
      elseif t.v == "+" then lhs = lhs + rhs
      else lhs = lhs - rhs end
    end
    return lhs
  end
  local v = binary(1)
  if pos <= #toks then die("%s: trailing tokens in '%s'", where, expr) end
  return v & 0xffffffff
end

-- ---- header parsing ----

-- Returns the members of 'enum TYPE { ... }' in header order:
-- { {name=, value=}, ... }, or nil when the enum is absent.
local function parse_enum(src, type_name, file)
  local pat = "%f[%w_]enum%s+" .. type_name .. "%s*(%b{})"
  local body = src:match(pat)
  if not body then return nil end
  local s, e = src:find(pat)
  if src:find(pat, e + 1) then die("%s: enum %s is defined twice", file, type_name) end
  body = body:sub(2, -2)
  local members, known, next_value = {}, {}, 0
  for item in (body .. ","):gmatch("([^,]*),") do
    item = item:match("^%s*(.-)%s*$")
    if item ~= "" then
      if item:match("^#") then die("%s: preprocessor line inside enum %s", file, type_name) end
      local name, expr = item:match("^([%a_][%w_]*)%s*=%s*(.-)$")
      if not name then
        name = item:match("^([%a_][%w_]*)$")
        if not name then die("%s: cannot parse enum member '%s' of %s", file, item, type_name) end
      end
      local where = file .. ": " .. name
      local value = expr and evaluate(expr, known, where) or (next_value & 0xffffffff)
      if known[name] then die("%s: duplicate member %s", file, name) end
      known[name] = value
      next_value = value + 1
      members[#members + 1] = { name = name, value = value }
    end
  end
  return members
end

-- The prefix shared by every member: TYPE_, or TYPE minus a plural S
-- (D3D12_PIPELINE_STATE_FLAGS -> D3D12_PIPELINE_STATE_FLAG_), or, failing
-- both, the longest common prefix ending at an underscore.
local function member_prefix(type_name, members)
  local function all_start(prefix)
    for _, m in ipairs(members) do
      if m.name:sub(1, #prefix) ~= prefix or #m.name == #prefix then return false end
    end
    return true
  end
  local candidates = { type_name .. "_" }
  if type_name:match("S$") then candidates[2] = type_name:sub(1, -2) .. "_" end
  for _, c in ipairs(candidates) do
    if all_start(c) then return c end
  end
  local p = members[1].name
  for _, m in ipairs(members) do
    local i = 0
    while i < #p and i < #m.name and p:byte(i + 1) == m.name:byte(i + 1) do i = i + 1 end
    p = p:sub(1, i)
  end
  p = p:match("^(.*_)") or ""
  if p == "" or not all_start(p) then die("cannot derive a member prefix for %s", type_name) end
  return p
end

local function build_table(t, sources)
  local members = parse_enum(sources[t.file], t.type, t.file)
  if not members then
    if not t.optional then die("%s: enum %s not found", t.file, t.type) end
    members = {}
  end

  local values, by_name = {}, {}
  for _, m in ipairs(members) do
    if not (t.skip and t.skip[m.name]) then
      values[#values + 1] = { name = m.name, value = m.value }
      by_name[m.name] = values[#values]
    end
  end
  for _, x in ipairs(EXTRAS[t.type] or {}) do
    local name, value = x[1], x[2]
    local have = by_name[name]
    if have then
      if have.value ~= value then
        die("%s: header has %s = %d but the extras table says %d", t.file, name, have.value, value)
      end
    else
      values[#values + 1] = { name = name, value = value, extra = true }
      by_name[name] = values[#values]
    end
  end
  if #values == 0 then die("enum %s has no values", t.type) end

  local prefix = member_prefix(t.type, values)
  local keys = {}
  for _, v in ipairs(values) do
    v.key = v.name:sub(#prefix + 1):lower()
    if v.key == "" then die("%s: empty key for %s", t.type, v.name) end
    if #v.name > NAME_MAX then die("%s: name %s is longer than %d characters", t.type, v.name, NAME_MAX) end
    if keys[v.key] then die("%s: duplicate key '%s'", t.type, v.key) end
    keys[v.key] = true
  end
  return {
    id = t.id,
    name = t.type,
    key = t.key or t.type:gsub("^D3D12_", ""):gsub("^DXGI_", ""):lower(),
    flags = t.flags,
    values = values,
  }
end

-- ---- output ----

local function c_string(s)
  assert(not s:find('[%c"\\]'), "unexpected character in " .. s)
  return '"' .. s .. '"'
end

local function generate(header_dir)
  local sources = {}
  for _, t in ipairs(TABLES) do
    t.file = t.file or "d3d12.h"
    if not sources[t.file] then
      local path = header_dir .. "/" .. t.file
      local text, err = read_file(path)
      if not text then die("cannot read %s: %s", path, err) end
      sources[t.file] = clean_source(text)
    end
  end

  local sdk = sources["d3d12.h"]:match("#define%s+D3D12_SDK_VERSION%s+%(?%s*(%d+)")
  local out = {}
  local function emit(s) out[#out + 1] = s end

  emit("/* generated by scripts/gen_enums.lua from directx-headers"
    .. (sdk and (" (D3D12_SDK_VERSION " .. sdk .. ")") or "") .. "; do not edit */")
  emit("/* Values marked 'extra' are newer than the installed header (see the")
  emit("** EXTRAS table in scripts/gen_enums.lua). */")
  emit("")
  emit('#include "enums.h"')
  emit("")

  local tables = {}
  for _, t in ipairs(TABLES) do
    local tab = build_table(t, sources)
    tables[#tables + 1] = tab
    emit(string.format("/* %s%s */", tab.name, tab.flags and " (flags)" or ""))
    emit(string.format("static const psoc_enum_value %s_values[] = {", tab.id))
    for _, v in ipairs(tab.values) do
      local num = tab.flags and string.format("0x%xu", v.value) or string.format("%uu", v.value)
      emit(string.format("  {%s, %s, %s},%s", c_string(v.name), c_string(v.key), num,
        v.extra and " /* extra */" or ""))
    end
    emit("};")
    -- the values below 64 as a bit set, for range checks without a search
    local valid = 0
    for _, v in ipairs(tab.values) do
      if v.value >= 0 and v.value < 64 then valid = valid | (1 << v.value) end
    end
    emit(string.format("const psoc_enum %s = {%s, %s, %s_values, %du, %du, UINT64_C(0x%x)};",
      tab.id, c_string(tab.name), c_string(tab.key), tab.id, #tab.values, tab.flags and 1 or 0,
      valid))
    emit("")
  end

  emit("const psoc_enum *const psoc_enum_all[] = {")
  for _, tab in ipairs(tables) do emit(string.format("  &%s,", tab.id)) end
  emit("};")
  emit("const size_t psoc_enum_all_count = sizeof psoc_enum_all / sizeof psoc_enum_all[0];")
  return table.concat(out, "\n") .. "\n", tables
end

-- ---- main ----

local check, positional = false, {}
for _, a in ipairs(arg) do
  if a == "--check" then check = true
  elseif a == "-h" or a == "--help" then
    io.write("usage: lua5.4 scripts/gen_enums.lua [--check] [HEADER_DIR [OUTPUT]]\n")
    os.exit(0)
  elseif a:sub(1, 2) == "--" then die("unknown option %s", a)
  else positional[#positional + 1] = a end
end
if #positional > 2 then die("too many arguments (see --help)") end

local header_dir = positional[1] or "/usr/include/directx"
local output = positional[2] or (script_dir() .. "/../src/enums.c")

local text, tables = generate(header_dir)

if check then
  local current = read_file(output)
  if current == nil then
    io.stderr:write("gen_enums.lua: ", output, " does not exist; run lua5.4 scripts/gen_enums.lua\n")
    os.exit(1)
  end
  if current ~= text then
    local line, n = 1, math.min(#current, #text)
    for i = 1, n do
      if current:byte(i) ~= text:byte(i) then break end
      if current:byte(i) == 10 then line = line + 1 end
    end
    io.stderr:write("gen_enums.lua: ", output, " is out of date (first difference at line ",
      line, "); regenerate it with: lua5.4 scripts/gen_enums.lua\n")
    os.exit(1)
  end
  io.write(output, " is up to date\n")
  os.exit(0)
end

local f, err = io.open(output, "wb")
if not f then die("cannot write %s: %s", output, err) end
f:write(text)
f:close()
local total = 0
for _, t in ipairs(tables) do total = total + #t.values end
io.write(string.format("wrote %s: %d tables, %d values\n", output, #tables, total))
