-- testlib.lua: the test API of `psoc test` (busted-style), loaded into
-- each test file's sandboxed state by pso_test.c. It is compiled into
-- testlib_lua.c by scripts/gen_testlib.lua; edit this file, then run
--   lua5.4 scripts/gen_testlib.lua        (--check verifies the copy)
--
-- Globals it installs (see docs/testing.md):
--   describe(name, fn)  it(name, fn)  before_each(fn)  after_each(fn)
--   expect(value).MATCHER(...)       expect(value).never.MATCHER(...)
--   materials.load/files/each/all/check/profiles, materials.root
--   pso (the module)
-- Portable to Lua 5.1, LuaJIT, 5.3 and 5.4: no goto, no //, no integer
-- subtype assumptions.
--
-- Test code must not be able to change the runner: everything this file
-- uses is captured in locals when it loads (a test that replaces
-- string.sub, math.abs or pso.copy changes nothing here), its metatables
-- are locked (__metatable), tables are compared by raw access (no
-- __index, __pairs or __len of a test's value decides a verdict), and the
-- first failed expectation of a test is handed to C (C.verdict), so a
-- pcall around expect cannot turn a failure into a pass.
local C = ...           -- C helpers from pso_test.c
local pso = C.pso

local type, pairs, ipairs, tostring, select = type, pairs, ipairs, tostring, select
local error, pcall, rawequal, rawget, next = error, pcall, rawequal, rawget, next
local getmetatable, setmetatable = getmetatable, setmetatable
local sfind, sformat, srep, sgsub = string.find, string.format, string.rep, string.gsub
local ssub, sbyte = string.sub, string.byte
local concat, sort = table.concat, table.sort
local unpack = table.unpack or unpack
local floor, mmin, mabs = math.floor, math.min, math.abs
local rawlen = rawlen or function(t) return #t end -- 5.1: # ignores __len on tables

local T = {}            -- what C sees: T.tests, T.hooks(i)

-- ---------------------------------------------------------------------
-- Failures
-- ---------------------------------------------------------------------

local Failure = { __metatable = "psoc test failure" }
Failure.__index = Failure
Failure.__tostring = function(f)
  return (f.where ~= "" and (f.where .. ": ") or "") .. f.message
end

-- Raise an assertion failure located at the innermost frame outside this
-- library (the line of the expect call).
local function fail(message)
  local f = setmetatable({ psoc_failure = true, message = message, where = C.where() }, Failure)
  C.verdict(f)
  error(f, 0)
end

-- Raise a usage error (a mistake in the test, not a failed expectation)
-- at the test's line.
local function usage(message)
  local where = C.where()
  error((where ~= "" and (where .. ": ") or "") .. message, 0)
end

local function is_failure(e)
  return type(e) == "table" and rawget(e, "psoc_failure") == true
end

local function error_text(e)
  if is_failure(e) then return tostring(e) end
  if type(e) == "string" then return e end
  local ok, s = pcall(tostring, e)
  return ok and s or ("(error object is a " .. type(e) .. " value)")
end

-- ---------------------------------------------------------------------
-- Values: presets, pipelines, formatting
-- ---------------------------------------------------------------------

local is_pipeline, pso_copy = pso.is_pipeline, pso.copy

-- pso presets are read-only proxies (tables, or userdata in later module
-- versions); compare and show their contents.
local function unwrap(v)
  local t = type(v)
  if (t == "table" or t == "userdata") and getmetatable(v) == "read-only" then return pso_copy(v) end
  return v
end

local function quote(s)
  s = sgsub(s, '[%c"\\]', function(c)
    if c == "\n" then return "\\n" end
    if c == "\t" then return "\\t" end
    if c == "\r" then return "\\r" end
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    return sformat("\\%03d", sbyte(c))
  end)
  if #s > 200 then s = ssub(s, 1, 200) .. "...(" .. #s .. " bytes)" end
  return '"' .. s .. '"'
end

local function is_ident(k)
  return type(k) == "string" and sfind(k, "^[%a_][%w_]*$") ~= nil
end

local function key_text(k)
  if is_ident(k) then return k end
  if type(k) == "string" then return "[" .. quote(k) .. "]" end
  return "[" .. tostring(k) .. "]"
end

local function path_join(path, k)
  if is_ident(k) then return (path == "" and k or (path .. "." .. k)) end
  if type(k) == "string" then return path .. "[" .. quote(k) .. "]" end
  return path .. "[" .. tostring(k) .. "]"
end

local function scalar_text(v)
  local t = type(v)
  if t == "string" then return quote(v) end
  if t == "nil" or t == "boolean" or t == "number" then return tostring(v) end
  if is_pipeline(v) then return tostring(v) end
  local ok, s = pcall(tostring, v)
  return ok and s or t
end

-- Keys of a table: the sequence 1..n first, then the rest sorted by type
-- and text, so output is stable.
local function sorted_keys(t)
  local n, keys, rest = rawlen(t), {}, {}
  for i = 1, n do keys[i] = i end
  for k in next, t do
    if not (type(k) == "number" and k >= 1 and k <= n and k == floor(k)) then
      rest[#rest + 1] = k
    end
  end
  sort(rest, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta < tb end
    if ta == "number" or ta == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
  for _, k in ipairs(rest) do keys[#keys + 1] = k end
  return keys, n
end

local MAX_ITEMS, MAX_DEPTH, WIDTH = 40, 8, 72

-- One-line or indented text of any value; tables sorted, cycles marked.
local function show(v, indent, seen, depth)
  v = unwrap(v)
  if type(v) ~= "table" then return scalar_text(v) end
  indent, seen, depth = indent or "", seen or {}, depth or 0
  if seen[v] then return "<cycle>" end
  if depth >= MAX_DEPTH then return "{...}" end
  local keys, n = sorted_keys(v)
  if #keys == 0 then return "{}" end
  seen[v] = true
  local parts = {}
  for i, k in ipairs(keys) do
    if i > MAX_ITEMS then
      parts[#parts + 1] = "... (" .. (#keys - MAX_ITEMS) .. " more)"
      break
    end
    local text = show(rawget(v, k), indent .. "  ", seen, depth + 1)
    if type(k) == "number" and k >= 1 and k <= n then parts[#parts + 1] = text
    else parts[#parts + 1] = key_text(k) .. " = " .. text end
  end
  seen[v] = nil
  local one = "{ " .. concat(parts, ", ") .. " }"
  if #one + #indent <= WIDTH and not sfind(one, "\n", 1, true) then return one end
  return "{\n" .. indent .. "  " .. concat(parts, ",\n" .. indent .. "  ") .. "\n" .. indent .. "}"
end

-- "  label: text" with continuation lines indented under the text.
local function block(label, text)
  return "  " .. label .. ": " .. sgsub(text, "\n", "\n  " .. srep(" ", #label + 2))
end

-- ---------------------------------------------------------------------
-- Deep comparison
-- ---------------------------------------------------------------------

local MAX_DIFFS = 12

local function add_diff(diffs, text)
  diffs.n = diffs.n + 1
  if diffs.n <= MAX_DIFFS then diffs[#diffs + 1] = text end
end

local function where_text(path) return path == "" and "(top)" or path end

-- Compare actual 'a' with expected 'e'. Pipelines compare by effective
-- state (a:diff(e), names ignored); tables key by key; NaN equals NaN.
local function compare(a, e, path, diffs, seen)
  a, e = unwrap(a), unwrap(e)
  if rawequal(a, e) then return end
  local ta, te = type(a), type(e)
  if ta == "number" and te == "number" then
    if a ~= a and e ~= e then return end
    if a ~= e then
      add_diff(diffs, where_text(path) .. ": expected " .. scalar_text(e) .. ", got " .. scalar_text(a))
    end
    return
  end
  if is_pipeline(a) and is_pipeline(e) then
    local rows = a:diff(e)
    for _, r in ipairs(rows) do
      -- Which subobject carries the state is not state: an explicit default
      -- rasterizer equals an absent one. The field rows say what differs.
      if not sfind(r.path, " (subobject)", 1, true) then
          add_diff(diffs, (path == "" and "" or (path .. ".")) .. r.path .. ": expected " .. tostring(r.b) ..
          ", got " .. tostring(r.a))
      end
    end
    return
  end
  if ta ~= "table" or te ~= "table" then
    if ta ~= te or a ~= e then
      add_diff(diffs, where_text(path) .. ": expected " .. scalar_text(e) .. ", got " .. scalar_text(a))
    end
    return
  end
  if seen[a] == e then return end
  seen[a] = e
  local keys = sorted_keys(e)
  for _, k in ipairs(keys) do
    local av = rawget(a, k)
    if av == nil then
      add_diff(diffs, path_join(path, k) .. ": expected " .. show(rawget(e, k)) .. ", got nil (missing)")
    else
      compare(av, rawget(e, k), path_join(path, k), diffs, seen)
    end
  end
  for _, k in ipairs((sorted_keys(a))) do
    if rawget(e, k) == nil then
      add_diff(diffs, path_join(path, k) .. ": unexpected " .. show(rawget(a, k)) .. " (expected nil)")
    end
  end
end

local function deep_diff(a, e)
  local diffs = { n = 0 }
  compare(a, e, "", diffs, {})
  return diffs
end

local function diff_text(diffs, title)
  if diffs.n == 0 then return "" end
  local out = { "  " .. (title or "differences") .. ":" }
  for _, d in ipairs(diffs) do out[#out + 1] = "    " .. d end
  if diffs.n > #diffs then out[#out + 1] = "    ... and " .. (diffs.n - #diffs) .. " more" end
  return "\n" .. concat(out, "\n")
end

-- ---------------------------------------------------------------------
-- Diagnostics
-- ---------------------------------------------------------------------

local function check(p, opts)
  if opts ~= nil and type(opts) ~= "table" then
    usage("check options must be a table like { profile = \"desktop_fl12_2\" }")
  end
  local profile = opts and rawget(opts, "profile")
  if profile ~= nil and type(profile) ~= "string" then
    usage("check options: profile must be a name (a string), got " .. type(profile))
  end
  return C.check(p, profile)
end

local function diag_text(d)
  local id = d.message_id and (d.message_id .. " / " .. d.code) or d.code
  return d.severity .. ": " .. (d.field and (d.field .. ": ") or "") .. d.message .. " [" .. id .. "]"
end

local function diags_text(diags, severity)
  local out = {}
  for _, d in ipairs(diags) do
    if not severity or d.severity == severity then out[#out + 1] = "    " .. diag_text(d) end
  end
  if #out == 0 then return "    (none)" end
  return concat(out, "\n")
end

local function diag_matches(d, id)
  return d.message_id == id or d.code == id or d.code == "PSOC_" .. id or
    sfind(d.message, id, 1, true) ~= nil
end

-- "pipeline 'name' (FILE:LINE)": where the material declared it.
local function pipeline_label(p)
  local at = C.declared(p)
  return "pipeline '" .. (p.name or "(unnamed)") .. "'" .. (at and (" (" .. at .. ")") or "")
end

local function pipeline_text(p)
  local at = C.declared(p)
  return tostring(p) .. (at and ("\n  declared at " .. at) or "")
end

local function profile_text(opts)
  local profile = type(opts) == "table" and rawget(opts, "profile")
  return (type(profile) == "string" and (" under profile " .. profile) or "") ..
    (C.werror() and " (warnings count as errors: --werror)" or "")
end

-- ---------------------------------------------------------------------
-- Matchers: each returns ok, message (when not ok), negated message (when
-- ok under .never), and optionally a value for the caller.
-- ---------------------------------------------------------------------

local M = {}

function M.to_equal(a, e)
  local diffs = deep_diff(a, e)
  if is_pipeline(a) and is_pipeline(e) then
    return diffs.n == 0,
      "expected pipelines to have the same effective state\n" ..
        block("expected", pipeline_text(e)) .. "\n" .. block("  actual", pipeline_text(a)) ..
        diff_text(diffs, "differing fields"),
      "expected pipelines to differ in effective state, but every field is the same\n" ..
        block("expected", pipeline_text(e)) .. "\n" .. block("  actual", pipeline_text(a))
  end
  return diffs.n == 0,
    "expected values to be equal\n" .. block("expected", show(e)) .. "\n" .. block("  actual", show(a)) ..
      ((type(a) == "table" or type(e) == "table") and diff_text(diffs) or ""),
    "expected values to differ, but both are\n" .. block("value", show(a))
end

function M.to_be(a, e)
  local same = rawequal(a, e) or a == e
  return same,
    "expected " .. scalar_text(a) .. " to be " .. scalar_text(e) ..
      ((type(a) == "table" and type(e) == "table") and " (to_be compares identity; to_equal compares contents)" or ""),
    "expected " .. scalar_text(a) .. " not to be " .. scalar_text(e)
end

function M.to_be_truthy(a)
  return not not a, "expected a truthy value, got " .. scalar_text(a),
    "expected a falsy value (nil or false), got " .. scalar_text(a)
end

function M.to_be_falsy(a)
  return not a, "expected a falsy value (nil or false), got " .. scalar_text(a),
    "expected a truthy value, got " .. scalar_text(a)
end

function M.to_be_nil(a)
  return a == nil, "expected nil, got " .. show(a), "expected a value, got nil"
end

function M.to_be_a(a, tname)
  local actual = is_pipeline(a) and "pipeline" or type(a)
  return actual == tname, "expected a " .. tostring(tname) .. ", got a " .. actual .. ": " .. scalar_text(a),
    "expected anything but a " .. tostring(tname) .. ", got " .. scalar_text(a)
end

function M.to_match(a, pattern)
  if type(pattern) ~= "string" then usage("to_match: the pattern must be a string") end
  local ok = type(a) == "string" and sfind(a, pattern) ~= nil
  return ok, "expected " .. scalar_text(a) .. " to match the pattern " .. quote(pattern),
    "expected " .. scalar_text(a) .. " not to match the pattern " .. quote(pattern)
end

function M.to_contain(a, x)
  a = unwrap(a)
  local ok
  if type(a) == "string" then
    ok = type(x) == "string" and sfind(a, x, 1, true) ~= nil
  elseif type(a) == "table" then
    ok = false
    for _, v in pairs(a) do
      if deep_diff(v, x).n == 0 then ok = true break end
    end
  else
    usage("to_contain: expected a string or a table, got " .. type(a))
  end
  return ok, "expected " .. show(a) .. "\n  to contain " .. show(x),
    "expected " .. show(a) .. "\n  not to contain " .. show(x)
end

function M.to_have_length(a, n)
  a = unwrap(a)
  local len = (type(a) == "string" or type(a) == "table") and #a or nil
  if len == nil then usage("to_have_length: expected a string or a table, got " .. type(a)) end
  return len == n, "expected length " .. tostring(n) .. ", got " .. len .. ": " .. show(a),
    "expected a length other than " .. tostring(n) .. ": " .. show(a)
end

local function numbers(name, a, b)
  if type(a) ~= "number" or type(b) ~= "number" then
    usage(name .. ": expected numbers, got " .. type(a) .. " and " .. type(b))
  end
end

function M.to_be_close_to(a, e, tolerance)
  tolerance = tolerance or 1e-6
  numbers("to_be_close_to", a, e)
  local ok = mabs(a - e) <= tolerance
  return ok, "expected " .. tostring(a) .. " to be within " .. tostring(tolerance) .. " of " .. tostring(e),
    "expected " .. tostring(a) .. " not to be within " .. tostring(tolerance) .. " of " .. tostring(e)
end

function M.to_be_greater_than(a, b)
  numbers("to_be_greater_than", a, b)
  return a > b, "expected " .. tostring(a) .. " to be greater than " .. tostring(b),
    "expected " .. tostring(a) .. " not to be greater than " .. tostring(b)
end

function M.to_be_less_than(a, b)
  numbers("to_be_less_than", a, b)
  return a < b, "expected " .. tostring(a) .. " to be less than " .. tostring(b),
    "expected " .. tostring(a) .. " not to be less than " .. tostring(b)
end

function M.to_be_valid(a, opts)
  if not is_pipeline(a) then
    return false, "expected a valid pipeline, got " .. scalar_text(a), "expected a pipeline, got " .. scalar_text(a)
  end
  local diags = check(a, opts)
  local errors = 0
  for _, d in ipairs(diags) do if d.severity == "error" then errors = errors + 1 end end
  return errors == 0,
    "expected " .. pipeline_label(a) .. " to be valid" .. profile_text(opts) .. ", check reported " ..
      errors .. " error" .. (errors == 1 and "" or "s") .. ":\n" .. diags_text(diags, "error"),
    "expected " .. pipeline_label(a) .. " to be invalid" .. profile_text(opts) ..
      ", but check reported no errors"
end

-- The ids (strings) and options (a trailing table) of a matcher call.
local function ids_and_options(name, ...)
  local ids, n = { ... }, select("#", ...)
  local opts
  if n > 0 and type(ids[n]) == "table" then
    opts = ids[n]
    ids[n] = nil
    n = n - 1
  end
  if n == 0 then usage(name .. ": give a message id, psoc code or message text") end
  for i = 1, n do
    if type(ids[i]) ~= "string" then
      usage(name .. ": argument " .. i .. " must be a string, got " .. type(ids[i]))
    end
  end
  return ids, opts
end

local function pipeline_reports(name, p, severity, ...)
  local ids, opts = ids_and_options(name, ...)
  local diags = check(p, opts)
  local missing = {}
  for _, id in ipairs(ids) do
    local found = false
    for _, d in ipairs(diags) do
      if (not severity or d.severity == severity) and diag_matches(d, id) then found = true break end
    end
    if not found then missing[#missing + 1] = quote(id) end
  end
  local what = severity and "an error" or "a diagnostic"
  local label = pipeline_label(p) .. profile_text(opts)
  return #missing == 0,
    "expected " .. label .. " to report " .. what .. " matching " .. concat(missing, ", ") ..
      "; check reported:\n" .. diags_text(diags),
    "expected " .. label .. " not to report " .. what .. " matching " ..
      quote(concat(ids, ", ")) .. "; check reported:\n" .. diags_text(diags)
end

function M.to_fail_with(a, ...)
  if is_pipeline(a) then return pipeline_reports("to_fail_with", a, "error", ...) end
  if type(a) ~= "function" then
    usage("to_fail_with: expected a function or a pipeline, got " .. type(a))
  end
  local ids = ids_and_options("to_fail_with", ...)
  local ok, e = pcall(a)
  if ok then
    return false, "expected the function to raise an error containing " .. quote(ids[1]) ..
      ", but it returned normally", "", nil
  end
  local text = error_text(e)
  local missing = {}
  for _, id in ipairs(ids) do
    if not sfind(text, id, 1, true) then missing[#missing + 1] = quote(id) end
  end
  return #missing == 0,
    "expected the error to contain " .. concat(missing, ", ") .. "\n" .. block("error", text),
    "expected the function not to raise an error containing " .. quote(concat(ids, ", ")) ..
      "\n" .. block("error", text), text
end

function M.to_report(a, ...)
  if not is_pipeline(a) then usage("to_report: expected a pipeline, got " .. type(a)) end
  return pipeline_reports("to_report", a, nil, ...)
end

local matcher_names = {}
for k in pairs(M) do matcher_names[#matcher_names + 1] = k end
sort(matcher_names)

-- Closest matcher names, for a misspelt one.
local function suggest(name)
  local function distance(s, t)
    local prev = {}
    for j = 0, #t do prev[j] = j end
    for i = 1, #s do
      local cur = { [0] = i }
      for j = 1, #t do
        local cost = ssub(s, i, i) == ssub(t, j, j) and 0 or 1
        cur[j] = mmin(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
      end
      prev = cur
    end
    return prev[#t]
  end
  local best, bestd = nil, 4
  for _, m in ipairs(matcher_names) do
    local d = distance(name, m)
    if d < bestd then best, bestd = m, d end
  end
  return best and (" (did you mean '" .. best .. "'?)") or ""
end

local Expectation = { __metatable = "psoc test expectation" }

local function expectation(actual, negated, context)
  return setmetatable({ actual = actual, negated = negated, context = context }, Expectation)
end

Expectation.__index = function(self, key)
  if key == "never" then
    return expectation(rawget(self, "actual"), not rawget(self, "negated"), rawget(self, "context"))
  end
  local m = M[key]
  if not m then
    usage("expect(...): no matcher '" .. tostring(key) .. "'" .. suggest(tostring(key)) ..
      "; matchers: " .. concat(matcher_names, ", ") .. ", and .never to negate")
  end
  return function(...)
    local n, args = select("#", ...), { ... }
    if n > 0 and rawequal(args[1], self) then -- called with ':'
      n = n - 1
      args = { select(2, ...) }
    end
    local ok, msg, nmsg, value = m(rawget(self, "actual"), unpack(args, 1, n))
    local context = rawget(self, "context")
    if rawget(self, "negated") then ok, msg = not ok, nmsg end
    if not ok then
      if context ~= nil then msg = tostring(context) .. ": " .. msg end
      fail(msg)
    end
    return value
  end
end
Expectation.__tostring = function(self) return "expect(" .. show(rawget(self, "actual")) .. ")" end

-- expect(value [, context]): the context (e.g. the material's name) is
-- put in front of the failure message.
function expect(value, context)
  return expectation(value, false, context)
end

-- ---------------------------------------------------------------------
-- describe / it / hooks
-- ---------------------------------------------------------------------

T.tests = {}
local frames = { { befores = {}, afters = {} } } -- the file's top level
local running = false

local function frame_chain()
  local chain = {}
  for i = 1, #frames do chain[i] = frames[i] end
  return chain
end

local function check_name_fn(what, name, fn)
  if type(name) ~= "string" then usage(what .. ": the first argument must be a name (a string), got " .. type(name)) end
  if type(fn) ~= "function" then usage(what .. " '" .. name .. "': the second argument must be a function, got " .. type(fn)) end
  if running then usage(what .. " '" .. name .. "' inside a running test: declare tests at the top level or in describe blocks") end
end

function describe(name, fn)
  check_name_fn("describe", name, fn)
  frames[#frames + 1] = { name = name, befores = {}, afters = {} }
  fn()
  frames[#frames] = nil
end

local max_tests = C.max_tests()

function it(name, fn)
  check_name_fn("it", name, fn)
  if #T.tests >= max_tests then
    usage("it '" .. name .. "': more than " .. max_tests .. " tests in one file")
  end
  local parts = {}
  for i = 2, #frames do parts[#parts + 1] = frames[i].name end
  parts[#parts + 1] = name
  T.tests[#T.tests + 1] = {
    name = concat(parts, " > "),
    fn = fn,
    chain = frame_chain(),
    defined = C.where(),
  }
end

local function hook(kind, list)
  return function(fn)
    if type(fn) ~= "function" then usage(kind .. ": expected a function, got " .. type(fn)) end
    if running then usage(kind .. " inside a running test: declare hooks in describe blocks") end
    local f = frames[#frames]
    f[list][#f[list] + 1] = fn
  end
end
before_each = hook("before_each", "befores")
after_each = hook("after_each", "afters")

-- For C: the functions to run for test i, in order: before_each hooks
-- (outer first), the test, after_each hooks (inner first). Returns the
-- list and the index of the test function in it.
function T.plan(i)
  local t = T.tests[i]
  local list = {}
  running = true
  for _, f in ipairs(t.chain) do
    for _, h in ipairs(f.befores) do list[#list + 1] = h end
  end
  list[#list + 1] = t.fn
  local test_index = #list
  for k = #t.chain, 1, -1 do
    for _, h in ipairs(t.chain[k].afters) do list[#list + 1] = h end
  end
  return list, test_index
end

-- ---------------------------------------------------------------------
-- materials
-- ---------------------------------------------------------------------

-- Evaluate the script at a resolved path: C runs it in a fresh sandboxed
-- state of its own (once per test file) and copies its pipelines into this
-- state; false for a module (a file that returns no pipeline).
local function evaluate(real, shown)
  return C.evaluate(real, shown)
end

local function copy_list(list)
  local out = {}
  for i = 1, #list do out[i] = list[i] end
  return out
end

materials = {}

-- materials.load(path): the pipelines of one material script. The path is
-- relative to the test file's directory or to a material root.
function materials.load(path)
  if type(path) ~= "string" then usage("materials.load: expected a path, got " .. type(path)) end
  local real, shown = C.resolve(path, "file", "materials.load")
  local list = evaluate(real, shown)
  if not list then
    usage("materials.load: " .. shown .. " is not a material (it does not return a pipeline or " ..
      "a list of pipelines)")
  end
  return copy_list(list), shown
end

local function dirs_of(dir, fname)
  if dir ~= nil then
    if type(dir) ~= "string" then usage(fname .. ": expected a directory name, got " .. type(dir)) end
    return { dir }
  end
  local root = materials.root
  if type(root) == "string" then return { root } end
  if type(root) == "table" and #root > 0 then return root end
  local roots = C.roots()
  if #roots == 0 then
    usage(fname .. ": no material root: run 'psoc test --root DIR', set materials.root = \"DIR\" " ..
      "in the test file, or pass a directory: " .. fname .. " \"DIR\"")
  end
  return roots
end

-- materials.files(dir?): every *.lua file under the directories (sorted;
-- *_test.lua and hidden entries left out), modules included.
function materials.files(dir)
  local out = {}
  for _, d in ipairs(dirs_of(dir, "materials.files")) do
    local real = C.resolve(d, "directory", "materials.files")
    for _, f in ipairs(C.scan(real)) do
      local _, shown = C.resolve(f, "file", "materials.files")
      out[#out + 1] = shown
    end
  end
  return out
end

-- materials.all(dir?): every pipeline of every material under the
-- directories, and a parallel list of their files. Files that return no
-- pipeline (modules such as lib/common.lua) are skipped.
local function all(dir)
  local list, files = {}, {}
  for _, d in ipairs(dirs_of(dir, "materials.all")) do
    local real_dir = C.resolve(d, "directory", "materials.all")
    for _, f in ipairs(C.scan(real_dir)) do
      local real, shown = C.resolve(f, "file", "materials.all")
      local ps = evaluate(real, shown)
      if ps then
        for _, p in ipairs(ps) do
          list[#list + 1] = p
          files[#files + 1] = shown
        end
      end
    end
  end
  return list, files
end
materials.all = all

-- for p, file, name in materials.each(dir?) do ... end
function materials.each(dir)
  local list, files = all(dir)
  local i = 0
  return function()
    i = i + 1
    local p = list[i]
    if p then return p, files[i], p.name end
  end
end

-- materials.check(p, { profile = NAME }): p:check() under a capability
-- profile (psoc check --profile=NAME); without a profile, p:check().
function materials.check(p, opts)
  if not is_pipeline(p) then usage("materials.check: expected a pipeline, got " .. type(p)) end
  return check(p, opts)
end

-- materials.where(p): "file:line" of the call that declared p (nil when
-- unknown), for messages about pipelines found by materials.each().
function materials.where(p)
  if not is_pipeline(p) then usage("materials.where: expected a pipeline, got " .. type(p)) end
  return C.declared(p)
end

-- materials.profiles(): the capability profiles, { name = ..., description = ... }.
materials.profiles = C.profiles

-- ---------------------------------------------------------------------

T.show = show
T.error_text = error_text
return T
