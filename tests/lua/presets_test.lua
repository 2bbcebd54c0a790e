-- presets_test.lua: presets and their namespaces are truly read-only, and
-- reading a name that is not there is an error, never nil (README: "nothing
-- silently falls back to a default"; issue 15: no raw access to the data
-- behind a preset).
-- Run by `psoc test` (docs/testing.md), which provides these globals:
-- luacheck: read globals describe it expect
local pso = require "pso"
local compile = loadstring or load

local vs = pso.shader { bytes = "DXBC-vertex" }

-- Run a chunk named mat.lua (line 1 is "local pso = ...") and return its error.
local function fails(src, ...)
  local chunk = assert(compile("local pso = ...\n" .. src, "=mat.lua"))
  return expect(function() chunk(pso) end).to_fail_with(...)
end

local function row(p, path)
  for _, r in ipairs(p:explain_table()) do
    if r.path == path then return r end
  end
  error("no explain row " .. path)
end

-- 5.1 and LuaJIT have no __pairs: pso.preset_pairs works everywhere.
local has_pairs_mm = _VERSION ~= "Lua 5.1"

describe("preset names", function()
  it("an unknown preset is an error at that line, with suggestions", function()
    fails("local b = pso.blend.alpah", "mat.lua:2:", "pso.blend.alpah: unknown preset",
          "did you mean 'alpha'?")
    fails("local x = 1\nlocal d = pso.depth.revers_z", "mat.lua:3:", "pso.depth.revers_z: unknown preset",
          "'reverse_z'")
    fails("local r = pso.rasterizer.cull_nothing", "pso.rasterizer.cull_nothing: unknown preset", "'cull_none'")
    -- nothing close: the message lists the presets there
    local msg = fails("local b = pso.blend.zzzzzzzz", "pso.blend.zzzzzzzz: unknown preset")
    expect(msg).to_contain("alpha")
    expect(msg).to_contain("opaque")
  end)

  it("known presets read as before", function()
    expect(tostring(pso.blend.alpha)).to_equal("preset blend.alpha")
    expect(tostring(pso.depth.reverse_z)).to_equal("preset depth.reverse_z")
    expect(pso.depth.reverse_z.func).to_equal("greater_equal")
    -- a field a preset does not set reads as nil (it is not a namespace)
    expect(pso.rasterizer.default.front_ccw).to_be_nil()
  end)
end)

describe("read-only presets", function()
  it("rawset on a namespace or a preset does not stick", function()
    local before = pso.blend.alpha
    expect(pcall(rawset, pso.blend, "alpha", { src = "zero" })).to_be(false)
    expect(pcall(rawset, pso.blend, "mine", {})).to_be(false)
    expect(pcall(rawset, pso.blend.alpha, "src", "zero")).to_be(false)
    expect(pcall(rawget, pso.blend, "alpha")).to_be(false)
    expect(rawequal(pso.blend.alpha, before)).to_be(true)
    expect(pso.blend.alpha.src).to_equal("src_alpha")
    fails("pso.blend.alpha.src = 'one'", "mat.lua:2:", "preset blend.alpha is read-only")
    fails("pso.depth.mine = {}", "pso.depth is read-only")
  end)

  it("a script cannot change the preset another pipeline gets", function()
    local first = pso.graphics { name = "a", vs = vs, blend = pso.blend.alpha }
    local alpha = pso.blend.alpha
    expect(pcall(function() alpha.src = "zero" end)).to_be(false)
    expect(pcall(rawset, alpha, "src", "zero")).to_be(false)
    expect(pcall(setmetatable, alpha, {})).to_be(false)
    local mt = getmetatable(alpha)
    expect(type(mt)).never.to_equal("table") -- protected: nothing to edit
    expect(pcall(function() pso.blend.alpha = pso.blend.opaque end)).to_be(false)
    local again = pso.graphics { name = "a", vs = vs, blend = pso.blend.alpha }
    expect(again:hash()).to_equal(first:hash())
    expect(row(again, "blend.render_targets[1].src").value).to_equal("src_alpha")
  end)

  it("pairs never hands out the data table", function()
    if not has_pairs_mm then return end
    local f, state = pairs(pso.blend.alpha)
    expect(rawequal(state, pso.blend.alpha)).to_be(true) -- the proxy, not its data
    expect(type(state)).never.to_equal("table")
    local seen = {}
    for k, v in f, state, nil do seen[k] = v end
    expect(seen.src).to_equal("src_alpha")
    local names = {}
    for k in pairs(pso.depth) do names[#names + 1] = k end
    table.sort(names)
    expect(table.concat(names, ",")).to_equal("default,disabled,equal,read_only,reverse_z")
  end)

  it("pso.preset_pairs works in every Lua version", function()
    local f, state = pso.preset_pairs(pso.rasterizer.shadow_bias)
    expect(rawequal(state, pso.rasterizer.shadow_bias)).to_be(true)
    local seen, n = {}, 0
    for k, v in f, state, nil do
      seen[k] = v
      n = n + 1
    end
    expect(n).to_equal(5)
    expect(seen.depth_bias).to_equal(1000)
    expect(function() pso.preset_pairs({}) end).to_fail_with("expected a preset")
  end)

  it("script presets are frozen copies, nested tables too", function()
    local src = { fill = "solid", cull = "none" }
    local mine = pso.preset("mine", src)
    src.cull = "back" -- the preset copied the table when it was made
    expect(mine.cull).to_equal("none")
    local list = pso.preset("layout", { { "POSITION", "R32G32B32_FLOAT" }, { "UV", "R32G32_FLOAT" } })
    expect(#list).to_equal(2)
    expect(pcall(rawset, list[1], 1, "HACKED")).to_be(false)
    expect(function() list[1][1] = "HACKED" end).to_fail_with("preset layout is read-only")
    local p = pso.graphics { vs = vs, input_layout = list }
    expect(p.input_layout[1].semantic).to_equal("POSITION")
  end)

  it("are compared and shown by content in tests", function()
    expect(pso.rasterizer.default).to_equal({ fill = "solid", cull = "back" })
    expect(pso.rasterizer.default).to_equal(pso.preset("same", { fill = "solid", cull = "back" }))
    expect(pso.rasterizer.default).never.to_equal({ fill = "solid", cull = "front" })
  end)

  it("explain attributes only the preset's own values to it", function()
    pcall(rawset, pso.blend.alpha, "dst", "zero")
    local p = pso.graphics { vs = vs, blend = pso.blend.alpha }
    expect(row(p, "blend.render_targets[1].dst").value).to_equal("inv_src_alpha")
    expect(row(p, "blend.render_targets[1].dst").origin).to_equal("preset blend.alpha")
    local c = pso.copy(pso.blend.alpha) -- a modifiable copy is the script's
    c.dst = "zero"
    local q = pso.graphics { vs = vs, blend = c }
    expect(row(q, "blend.render_targets[1].dst").value).to_equal("zero")
    expect(row(q, "blend.render_targets[1].dst").origin).to_equal("script")
  end)
end)
