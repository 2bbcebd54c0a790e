-- errors_test.lua: every error class names the script line, the field path
-- and, where it can, the closest valid spellings.
-- Run by `psoc test` (docs/testing.md), which provides these globals:
-- luacheck: read globals describe it expect
local pso = require "pso"
local compile = loadstring or load

-- Run a material chunk (named mat.lua; line 1 is "local pso = ...") and
-- return its error message. "return pso.x" becomes "local r = pso.x ...
-- return r": LuaJIT really tail-calls C functions and so loses the line
-- of a "return pso.graphics {...}" (see the tail-call test below).
local function fails(src, ...)
  src = src:gsub("return (pso%.[%w_]+)", "local r = %1")
  local chunk = assert(compile("local pso = ...\n" .. src .. "\nreturn r", "=mat.lua"))
  return expect(function() chunk(pso) end).to_fail_with(...)
end

local VS = 'vs = pso.shader { bytes = "x" }'

describe("errors", function()
  it("unknown key, with a suggestion", function()
    fails("return pso.graphics { " .. VS .. ", rasterizer = { cul = 'back' } }",
          "mat.lua:2:", "rasterizer.cul: unknown key", "did you mean 'cull'?")
  end)

  it("unknown top-level key, with a suggestion", function()
    fails("local x = 1\nreturn pso.graphics { " .. VS .. ", rasterzer = {} }",
          "mat.lua:3:", "rasterzer: unknown key", "'rasterizer'")
  end)

  it("unknown enum value, with a suggestion", function()
    fails("return pso.graphics { " .. VS .. ", blend = { render_targets = { {}, { src = 'src_alhpa' } } } }",
          "mat.lua:2:", "blend.render_targets[2].src", "unknown blend 'src_alhpa'", "did you mean 'src_alpha'")
  end)

  it("unknown format in a list, with a suggestion", function()
    fails("return pso.graphics { " .. VS .. ",\n input_layout = { { 'P', 'R32G32_FLOAT' }, { 'N', 'R32G32B32_FLAOT' } } }",
          "mat.lua:3:", "input_layout[2].format", "did you mean 'r32g32b32_float'") -- the key's line
  end)

  it("wrong type", function()
    fails("return pso.graphics { " .. VS .. ", rasterizer = { front_ccw = 1 } }",
          "mat.lua:2:", "rasterizer.front_ccw: expected a boolean, got a number (1)")
    fails("return pso.graphics { " .. VS .. ", rasterizer = 'back' }",
          "mat.lua:2:", "rasterizer: expected a table")
    fails("return pso.graphics { vs = 'x.cso' }", "mat.lua:2:", "vs: expected a shader")
    fails("return pso.graphics { " .. VS .. ", cached_pso = pso.shader { bytes = 'x' } }",
          "cached_pso: expected a blob")
  end)

  it("out of range and non-integral numbers", function()
    fails("return pso.graphics { " .. VS .. ", depth_stencil = { stencil_read_mask = 256 } }",
          "mat.lua:2:", "depth_stencil.stencil_read_mask", "out of range", "0..255")
    fails("return pso.graphics { " .. VS .. ", sample_desc = { count = -1 } }",
          "sample_desc.count", "out of range")
    fails("return pso.graphics { " .. VS .. ", input_layout = { { 'P', 'R32_FLOAT', slot = 1.5 } } }",
          "input_layout[1].slot: expected an integer, got a number (1.5)")
    fails("return pso.graphics { " .. VS .. ", rasterizer = { slope_scaled_depth_bias = 1/0 } }",
          "rasterizer.slope_scaled_depth_bias: expected a finite number")
    fails("return pso.graphics { " .. VS .. ", render_targets = { 'r8_unorm', 'r8_unorm', 'r8_unorm', 'r8_unorm', "
          .. "'r8_unorm', 'r8_unorm', 'r8_unorm', 'r8_unorm', 'r8_unorm' } }", "render_targets: at most 8")
  end)

  it("count fields are implied", function()
    fails("return pso.graphics { " .. VS .. ", input_layout = { { 'P', 'R32_FLOAT' }, num_elements = 1 } }",
          "mat.lua:2:", "input_layout.num_elements", "implied")
    fails("return pso.graphics { " .. VS .. ", view_instancing = { locations = { {} }, count = 1 } }",
          "view_instancing.count", "implied by the length of 'locations'")
    fails("return pso.graphics { " .. VS .. ", stream_output = { entries = {}, NumEntries = 0 } }",
          "stream_output.NumEntries", "implied")
  end)

  it("two of a class", function()
    fails("return pso.graphics { " .. VS .. ", rasterizer = {}, rasterizer1 = {} }",
          "mat.lua:2:", "rasterizer1: 'rasterizer' is also given", "only one")
    fails("return pso.graphics { " .. VS .. ", depth_stencil1 = {}, depth_stencil2 = {} }",
          "depth_stencil2: 'depth_stencil1' is also given")
  end)

  it("keys no single version has", function()
    fails("return pso.graphics { " .. VS .. ", rasterizer = { multisample = true, line_mode = 'aliased' } }",
          "mat.lua:2:", "cannot be combined", "rasterizer2")
    fails("return pso.graphics { " .. VS .. ", rasterizer1 = { line_mode = 'aliased' } }",
          "rasterizer1.line_mode: not a field of rasterizer1", "rasterizer2")
  end)

  it("a key irrelevant to the kind", function()
    fails("return pso.compute { cs = pso.shader { bytes = 'c' }, input_layout = {} }",
          "mat.lua:2:", "input_layout is not used by compute pipelines")
    fails("return pso.mesh { ms = pso.shader { bytes = 'm' }, " .. VS .. " }",
          "vs is not used by mesh pipelines")
  end)

  it("a missing shader", function()
    fails("return pso.graphics { ps = pso.shader { bytes = 'p' } }",
          "mat.lua:2:", "vs: missing: a graphics pipeline needs a vertex shader")
    fails("return pso.compute { }", "cs: missing")
    fails("return pso.mesh { }", "ms: missing")
  end)

  -- Keys may be spelt as D3D12 members (CullMode); a misspelt member name
  -- is matched against the member names, so the hint keeps its spelling.
  it("misspelt D3D12 member names, with a suggestion", function()
    fails("return pso.graphics { " .. VS .. ", rasterizer = { CullMdoe = 'back' } }",
          "mat.lua:2:", "rasterizer.CullMdoe: unknown key", "did you mean 'CullMode'?")
    fails("return pso.graphics { " .. VS .. ", depth_stencil = { DepthFunc = 'less', StencilReadMsk = 1 } }",
          "depth_stencil.StencilReadMsk: unknown key", "'StencilReadMask'")
    -- short keys keep the short suggestions
    fails("return pso.graphics { " .. VS .. ", rasterizer = { cul = 'back' } }", "did you mean 'cull'?")
    -- and a correct member name is accepted
    local ok = pso.graphics { vs = pso.shader { bytes = "x" }, rasterizer = { CullMode = "front" } }
    expect(ok.rasterizer.cull).to_equal("front")
  end)

  -- Engines name formats by channels and type (RGBA8, rgba16f, D32): the
  -- hint is the DXGI format that shorthand means (DXGI_FORMAT names).
  it("engine format shorthands suggest the DXGI format", function()
    local cases = {
      RGBA8 = "r8g8b8a8_unorm", rgba16f = "r16g16b16a16_float", D32 = "d32_float",
      R8G8B8A8_SRGB = "r8g8b8a8_unorm_srgb", RGBA32F = "r32g32b32a32_float", RG16F = "r16g16_float",
      R11G11B10F = "r11g11b10_float", D24S8 = "d24_unorm_s8_uint", D32S8 = "d32_float_s8x24_uint",
      BGRA8 = "b8g8r8a8_unorm", RGB10A2 = "r10g10b10a2_unorm", bgra8_srgb = "b8g8r8a8_unorm_srgb",
      rgba8ui = "r8g8b8a8_uint", R16F = "r16_float",
    }
    for short, want in pairs(cases) do
      fails("return pso.graphics { " .. VS .. ", render_targets = { '" .. short .. "' } }",
            "render_targets[1]: unknown format '" .. short .. "' (did you mean '" .. want .. "'")
    end
    fails("return pso.graphics { " .. VS .. ", depth_format = 'D32' }",
          "depth_format: unknown format 'D32' (did you mean 'd32_float'?)")
    -- a name that is no shorthand gets no invented format
    local msg = fails("return pso.graphics { " .. VS .. ", render_targets = { 'XYZ' } }", "unknown format 'XYZ'")
    expect(msg).never.to_contain("did you mean")
  end)

  -- A factory in a shared module raises at its own line; the message also
  -- names the material line that called it, the one to fix (issue 9.7).
  -- The walk stops at C frames, as psol_dofile and materials.load are.
  it("an error inside a shared module also names the material's line", function()
    local lib = assert(compile("local pso = ...\nlocal M = {}\nfunction M.make(cull)\n" ..
                               "  local p = pso.graphics { vs = pso.shader { bytes = 'x' }, rasterizer = { cull = cull } }\n" ..
                               "  return p\nend\nreturn M", "=lib/eng.lua"))(pso) -- (no tail call: LuaJIT drops those frames)
    local mat = assert(compile("local eng = ...\nlocal ok = eng.make('back')\n\nlocal bad = eng.make('bakc')\n",
                               "=materials/uses_lib.lua"))
    expect(function()
      local ok, err = pcall(mat, lib)
      if not ok then error(err, 0) end
    end).to_fail_with("lib/eng.lua:4: rasterizer.cull: unknown cull_mode 'bakc'",
                      "(did you mean 'back'?) (from materials/uses_lib.lua:4)")
    -- an error in the material itself names only the material
    local direct = assert(compile("local pso = ...\nlocal p = pso.graphics { vs = 1 }\nreturn p", "=materials/direct.lua"))
    local ok, err = pcall(direct, pso)
    expect(ok).to_be(false)
    expect(err).to_contain("materials/direct.lua:2: vs: expected a shader")
    expect(err).never.to_contain("(from")
  end)

  it("a key given twice under two spellings", function()
    fails("return pso.graphics { " .. VS .. ", rasterizer = { cull = 'back', CullMode = 'none' } }",
          "rasterizer.", "given twice")
    fails("return pso.graphics { " .. VS .. ", blend = { src = 'one', render_targets = { { src = 'zero' } } } }",
          "blend.", "given twice")
  end)

  it("positional values where names are expected", function()
    fails("return pso.graphics { " .. VS .. ", 'extra' }", "unexpected positional value")
    fails("return pso.graphics { " .. VS .. ", input_layout = { { 'P', 'R32_FLOAT', 0 } } }",
          "input_layout[1][3]", "only semantic [1] and format [2]")
  end)

  it("flags", function()
    fails("return pso.graphics { " .. VS .. ", blend = { write_mask = 'rgx' } }",
          "blend.write_mask: unknown color_write_enable 'rgx'")
    fails("return pso.graphics { " .. VS .. ", flags = 0x100 }", "flags: unknown pipeline_state_flags bits")
    fails("return pso.graphics { " .. VS .. ", flags = { 'tool_debgu' } }", "flags[1]", "did you mean 'tool_debug'")
  end)

  it("presets used wrongly", function()
    fails("return pso.graphics { " .. VS .. ", blend = pso.blend }", "pso.blend is a collection of presets")
    fails("pso.blend.alpha.src = 'one'", "mat.lua:2:", "preset blend.alpha is read-only")
    fails("pso.blend.mine = {}", "pso.blend is read-only")
    -- a preset (or a namespace of presets) where a list is expected is an
    -- error, not an empty list
    fails("return pso.graphics { " .. VS .. ", input_layout = pso.blend.alpha }", "input_layout")
    fails("return pso.graphics { " .. VS .. ", render_targets = pso.blend }",
          "pso.blend is a collection of presets")
  end)

  it("lists given as presets are read through the preset", function()
    local layout = pso.preset("test.layout", { { "POSITION", "R32G32B32_FLOAT" } })
    local p = pso.graphics { vs = pso.shader { bytes = "vs" }, input_layout = layout }
    expect(p.input_layout[1].semantic).to_equal("POSITION")
    expect(p.input_layout[1].format).to_equal("r32g32b32_float")
  end)

  it("names", function()
    fails("return pso.graphics { " .. VS .. ", name = 3 }", "name: expected a non-empty string")
    fails("local b = pso.graphics { " .. VS .. " }\nreturn pso.derive(b, { })", "mat.lua:3:", "name: missing")
  end)

  it("shaders", function()
    fails("return pso.shader { bytes = '' }", "mat.lua:2:", "pso.shader: bytes is empty")
    fails("return pso.shader { byte = 'x' }", "unknown key 'byte'", "did you mean 'bytes'")
    fails("return pso.shader 'no/such/file.cso'", "pso.shader: cannot read 'no/such/file.cso'")
  end)

  -- Issue 9.7: an error inside a table constructor names the line of the
  -- offending key (found in the chunk's source), not the line of the call.
  it("reports the line of the offending key in a multi-line declaration", function()
    fails("local p = 1\n\nreturn pso.graphics {\n  " .. VS .. ",\n  rasterizer = { cull = 'nope' },\n}",
          "mat.lua:6:", "rasterizer.cull")
    -- nested keys on their own lines: the deepest one found
    fails("return pso.graphics {\n  " .. VS .. ",\n  blend = {\n    independent = true,\n" ..
          "    render_targets = {\n      { src = 'one' },\n      { src = 'src_alhpa' },\n    },\n  },\n}",
          "mat.lua:8:", "blend.render_targets[2].src")
    -- a list entry: the line of that entry
    fails("return pso.graphics {\n  " .. VS .. ",\n  input_layout = {\n    { 'POSITION', 'R32G32B32_FLOAT' },\n" ..
          "    { 'NORMAL', 'R32G32B32_FLAOT' },\n  },\n}", "mat.lua:6:", "input_layout[2].format")
    -- strings, comments and other tables that mention the key are skipped
    fails("local other = { rasterizer = 1 }\nreturn pso.graphics {\n  -- rasterizer = { cull = 'x' }\n" ..
          "  name = 'rasterizer = {',\n  " .. VS .. ",\n  rasterizer = { cull = 'nope' },\n}",
          "mat.lua:7:", "rasterizer.cull")
    -- a key given through a variable is not in the constructor: the call's line
    fails("local r = { cull = 'nope' }\n\nreturn pso.graphics {\n  " .. VS .. ",\n  rasterizer = r,\n}",
          "mat.lua:6:", "rasterizer.cull")
    fails("local r = { cull = 'nope' }\nlocal d = { " .. VS .. ", rasterizer = r }\n\nreturn pso.graphics(d)",
          "mat.lua:5:", "rasterizer.cull")
  end)

  -- Issue 9.7: every top-level key that fails is reported, one per line,
  -- each with its own location; a single error reads as before.
  it("reports all field errors of one declaration together", function()
    local msg = fails("return pso.graphics {\n  " .. VS .. ",\n  rasterizer = { cul = 'back' },\n" ..
                      "  render_targets = { 'RGBA8' },\n  depth_format = 'D32',\n  rasterzer = {},\n}",
                      "mat.lua:4: rasterizer.cul: unknown key", "mat.lua:5: render_targets[1]: unknown format 'RGBA8'",
                      "mat.lua:6: depth_format: unknown format 'D32'", "mat.lua:7: rasterzer: unknown key")
    local lines = 0
    for _ in msg:gmatch("mat%.lua:%d+: ") do lines = lines + 1 end
    expect(lines).to_equal(4)
    -- in source order
    local order = {}
    for line in msg:gmatch("mat%.lua:(%d+): ") do order[#order + 1] = line end
    expect(table.concat(order, ",")).to_equal("4,5,6,7")
    local one = fails("return pso.graphics { " .. VS .. ", rasterizer = { cul = 'back' } }", "rasterizer.cul")
    expect(one).never.to_contain("\n")
    -- a missing shader is reported once, not once per key
    local nvs = fails("return pso.graphics { rasterizer = { cull = 'back' }, depth_format = 'd32_float' }",
                      "vs: missing")
    expect(select(2, nvs:gsub("vs: missing", ""))).to_equal(1)
  end)

  it("reports the line of a tail call (not under LuaJIT, which drops the frame)", function()
    -- psoc test's sandbox hides the jit table; LuaJIT (alone among the
    -- "Lua 5.1"s) compiles goto.
    if jit or (_VERSION == "Lua 5.1" and compile("goto a ::a::")) then return end
    local chunk = assert(compile("local pso = ...\n\nreturn pso.graphics { vs = 1 }", "=tail.lua"))
    expect(function() chunk(pso) end).to_fail_with("tail.lua:3:", "vs: expected a shader")
  end)

  it("pipelines are immutable and strict about fields", function()
    local p = pso.graphics { vs = pso.shader { bytes = "x" } }
    expect(function() p.name = "x" end).to_fail_with("immutable")
    expect(function() return p.rasterzer end).to_fail_with("no field 'rasterzer'", "did you mean 'rasterizer'")
  end)
end)
