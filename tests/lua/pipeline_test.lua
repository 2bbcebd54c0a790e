-- pipeline_test.lua: pipeline methods: bytes, size, hash, check, valid,
-- dump, json, diff, table, subobjects, tostring; pso.same, pso.check_bytes.
-- Run by `psoc test` (docs/testing.md), which provides these globals:
-- luacheck: read globals describe it expect
local pso = require "pso"

local vs = pso.shader { bytes = "DXBC-vertex" }
local ps = pso.shader { bytes = "DXBC-pixel" }

local function lit(extra)
  local t = {
    name = "lit", root_signature = "forward", vs = vs, ps = ps,
    input_layout = { { "POSITION", "R32G32B32_FLOAT" } },
    rasterizer = { cull = "back" },
    depth_stencil = { depth = true, func = "greater_equal" },
    render_targets = { "R8G8B8A8_UNORM" },
    depth_format = "D32_FLOAT",
  }
  for k, v in pairs(extra or {}) do t[k] = v end
  return pso.graphics(t)
end

describe("what is a pipeline", function()
  -- pso_topipeline tells a pipeline by a mark in its metatable that no
  -- script can reach or make; other userdata and tables are not pipelines
  it("only a pipeline is one", function()
    local p = lit()
    expect(getmetatable(p)).to_equal("pso.pipeline")
    expect(pso.derive(p, { name = "d" }):hash()).to_equal(p:hash())
    expect(pso.is_pipeline(p)).to_be(true)
    for _, v in ipairs({ vs, pso.blend.opaque, pso.blend, pso.none, {}, { p } }) do
      expect(pso.is_pipeline(v)).to_be(false)
      expect(function() pso.derive(v, { name = "d" }) end)
        .to_fail_with("a pipeline to derive from (argument 1)")
    end
    expect(function() pso.derive(setmetatable({}, { __index = p }), { name = "d" }) end)
      .to_fail_with("a pipeline to derive from (argument 1)")
  end)

  it("keeps its mark out of reach", function()
    local p = lit()
    expect(function() return p[1] end).to_fail_with("pipeline fields are named by strings")
    expect(function() p[1] = true end).to_fail_with("pipelines are immutable")
  end)
end)

describe("bytes and size", function()
  it("agree", function()
    local p = lit()
    expect(#p:bytes()).to_equal(p:size())
    expect(p:size() % 8).to_equal(0)
  end)
end)

describe("hash", function()
  it("is 32 hex digits and stable", function()
    local p = lit()
    expect(p:hash()).to_match("^%x+$")
    expect(#p:hash()).to_equal(32)
    expect(lit():hash()).to_equal(p:hash())
  end)

  it("does not depend on key order, spelling or how a value was given", function()
    local a = pso.graphics { vs = vs, ps = ps, rasterizer = { cull = "none", fill = "wireframe" }, topology = "line",
                             blend = pso.blend.alpha, sample_desc = 4 }
    local b = pso.graphics { sample_desc = { count = 4, quality = 0 }, topology = "D3D12_PRIMITIVE_TOPOLOGY_TYPE_LINE",
                             blend = { render_targets = { { enable = true, logic_op_enable = false, src = "src_alpha",
                               dst = "inv_src_alpha", op = "add", src_alpha = "one", dst_alpha = "inv_src_alpha",
                               op_alpha = "add", logic_op = "noop", write_mask = "rgba" } },
                               alpha_to_coverage = false, independent = false },
                             rasterizer = { FillMode = "WIREFRAME", CullMode = "none" }, ps = ps, vs = vs }
    expect(b:hash()).to_equal(a:hash())
  end)

  it("covers shader contents and the root-signature name, not the name", function()
    local a = lit()
    expect(lit({ name = "other" }):hash()).to_equal(a:hash())
    expect(lit({ ps = pso.shader { bytes = "DXBC-pixeL" } }):hash()).never.to_equal(a:hash())
    expect(lit({ root_signature = "deferred" }):hash()).never.to_equal(a:hash())
  end)

  it("changes when a field changes", function()
    local a = lit()
    expect(lit({ rasterizer = { cull = "front" } }):hash()).never.to_equal(a:hash())
    expect(lit({ depth_format = "D16_UNORM" }):hash()).never.to_equal(a:hash())
    expect(lit({ input_layout = { { "POSITION", "R32G32B32_FLOAT", index = 1 } } }):hash()).never.to_equal(a:hash())
    expect(lit({ rasterizer = { cull = "back", depth_bias = 1 } }):hash()).never.to_equal(a:hash())
  end)

  it("is what pso.same compares", function()
    expect(pso.same(lit(), lit({ name = "x" }))).to_be(true)
    expect(pso.same(lit(), lit({ topology = "point" }))).to_be(false)
  end)
end)

describe("check", function()
  it("reports no errors for a clean pipeline", function()
    local p = lit()
    for _, d in ipairs(p:check()) do expect(d.severity).never.to_equal("error") end
    expect(p:valid()).to_be(true)
  end)

  it("returns diagnostics with codes and message ids", function()
    local p = lit({ blend = { enable = true, logic_op_enable = true } })
    local found
    for _, d in ipairs(p:check()) do
      if d.code == "PSOC_BLEND_STATE" then found = d end
    end
    expect(found ~= nil).to_be(true)
    expect(found.severity).to_equal("error")
    expect(type(found.message_id)).to_equal("string")
    expect(type(found.message)).to_equal("string")
    expect(p:valid()).to_be(false)
  end)

  -- The module built the input layout itself, so the rules that need no
  -- shader (D3D12 CREATEINPUTLAYOUT_*: duplicate semantic and index, formats,
  -- alignment) run on every p:check(), not only with --deep.
  it("runs the input-layout rules that need no shader", function()
    local dup = lit({ input_layout = { { "TEXCOORD", "R32G32_FLOAT" }, { "TEXCOORD", "R32G32_FLOAT" } } })
    expect(dup).to_fail_with("CREATEINPUTLAYOUT_DUPLICATESEMANTIC")
    expect(dup:valid()).to_be(false)
    local ids = {}
    for _, d in ipairs(dup:check()) do ids[#ids + 1] = d.message_id or "" end
    expect(table.concat(ids, " ")).to_contain("DUPLICATESEMANTIC")
    local misaligned = lit({ input_layout = { { "POSITION", "R32G32B32_FLOAT", offset = 2 } } })
    expect(misaligned).to_fail_with("CREATEINPUTLAYOUT_INVALIDALIGNMENT")
    -- distinct indices are fine
    local ok = lit({ input_layout = { { "TEXCOORD", "R32G32_FLOAT" }, { "TEXCOORD", "R32G32_FLOAT", index = 1 } } })
    expect(ok).to_be_valid()
    expect(ok:valid()).to_be(true)
  end)

  -- Issue 9.7: in script mode a diagnostic names the material's key
  -- (render_targets[2], depth_format); the D3D12 path stays as 'member'.
  -- Raw streams (pso.check_bytes) keep the D3D12 paths.
  it("names the material's keys in diagnostics", function()
    local p = lit({ render_targets = { "r8g8b8a8_unorm", "bc1_unorm" }, depth_format = "r8g8b8a8_unorm",
                    blend = { independent = true, render_targets = { {}, { enable = true, logic_op_enable = true } } },
                    input_layout = { { "TEXCOORD", "R32G32_FLOAT" }, { "TEXCOORD", "R32G32_FLOAT" } } })
    local by = {}
    for _, d in ipairs(p:check()) do by[d.field] = d.member end
    expect(by["render_targets[2]"]).to_equal("RENDER_TARGET_FORMATS.RTFormats[1]")
    expect(by["depth_format"]).to_equal("DEPTH_STENCIL_FORMAT")
    expect(by["blend.render_targets[2].logic_op_enable"]).to_equal("BLEND.RenderTarget[1].LogicOpEnable")
    expect(by["input_layout[2].index"]).to_equal("INPUT_LAYOUT.pInputElementDescs[1].SemanticIndex")
    local raw = {}
    for _, d in ipairs(pso.check_bytes(p:bytes())) do raw[#raw + 1] = d.field or "" end
    expect(table.concat(raw, " ")).to_contain("DEPTH_STENCIL_FORMAT")
    expect(table.concat(raw, " ")).never.to_contain("depth_format")
  end)

  it("checks raw streams: a subobject twice", function()
    local p = lit()
    local diags = pso.check_bytes(p:bytes() .. p:bytes())
    local dup
    for _, d in ipairs(diags) do
      if d.code == "PSOC_DUPLICATE_SUBOBJECT" then dup = dup or d end
    end
    expect(dup ~= nil).to_be(true)
    expect(dup.message_id).to_equal("CREATEPIPELINESTATE_DUPLICATE_SUBOBJECT")
    expect(dup.subobject).to_equal(#p:subobjects())
    expect(dup.offset).to_equal(p:size())
  end)
end)

describe("text and tables", function()
  it("dumps the stream", function()
    local d = lit():dump()
    expect(d).to_contain("RASTERIZER")
    expect(d).to_contain("D3D12_CULL_MODE_BACK")
    expect(d).to_contain("\"POSITION\"")
  end)

  it("writes stable JSON", function()
    local a, b = lit(), lit()
    local j = a:json()
    expect(j).to_equal(b:json())
    expect(j).to_match('^{"name":"lit","kind":"graphics","root_signature":"forward","hash":"%x+","subobjects":%[')
    expect(j).to_contain('"rasterizer":{"fill":"solid","cull":"back"')
    expect(j).to_contain('"render_targets":["r8g8b8a8_unorm"]')
    expect(j).to_contain('"depth_stencil":{"depth":true')
  end)

  it("diffs effective values", function()
    local a = lit()
    local b = lit({ rasterizer = { cull = "none" }, topology = "line" })
    local rows = {}
    for _, r in ipairs(a:diff(b)) do rows[r.path] = r end
    expect(rows["rasterizer.cull"].a).to_equal("back")
    expect(rows["rasterizer.cull"].b).to_equal("none")
    expect(rows["topology"].a).to_equal("triangle")
    expect(rows["topology"].b).to_equal("line")
    expect(rows["topology (subobject)"].a).to_equal("absent")
    expect(rows["rasterizer.fill"]).to_be_nil()
    expect(#a:diff(lit({ name = "same" }))).to_equal(0)
  end)

  it("prints a summary", function()
    local p = lit()
    local s = tostring(p)
    expect(s).to_contain("pipeline lit (graphics, " .. #p:subobjects() .. " subobjects, " .. p:size() .. " bytes, hash ")
    expect(s).to_contain(p:hash())
  end)

  it("returns a declaration that reproduces the pipeline", function()
    local p = lit({ rasterizer = { depth_bias = 0.25 }, blend = pso.blend.premultiplied })
    local t = p:table()
    expect(t.rasterizer1.depth_bias).to_equal(0.25)
    expect(t.name).to_equal("lit")
    expect(pso.graphics(t):hash()).to_equal(p:hash())
  end)

  -- JSON is valid UTF-8 whatever a name holds (RFC 8259 section 8.1): a byte
  -- outside a well-formed sequence becomes U+FFFD; good sequences stay.
  it("writes valid UTF-8 JSON for names with invalid bytes", function()
    local j = lit({ name = "bad\255\192\175 ok \226\130\172" }):json()
    expect(j).to_contain('"bad\\ufffd\\ufffd\\ufffd ok \226\130\172"')
    expect(j:find("\255", 1, true)).to_be_nil()
    -- a truncated sequence at the end of the name
    expect(lit({ name = "end\226\130" }):json()).to_contain('"end\\ufffd\\ufffd"')
  end)

  it("knows what is a pipeline", function()
    expect(pso.is_pipeline(lit())).to_be(true)
    expect(pso.is_pipeline({})).to_be(false)
    expect(tostring(pso.none)).to_equal("pso.none")
  end)
end)

describe("presets", function()
  -- A preset given alone is converted once and its payload cached by the
  -- preset object: every later use, under any key that takes it, must give
  -- the bytes a plain copy of it gives.
  it("give the same stream from the cache as their plain copies", function()
    local function with(key, value)
      local t = { name = "lit", vs = vs, ps = ps, render_targets = { "R8G8B8A8_UNORM" } }
      t[key] = value
      return pso.graphics(t)
    end
    for _ = 1, 3 do -- the first use fills the cache, the others read it
      for _, key in ipairs({ "rasterizer", "rasterizer1", "rasterizer2" }) do
        for _, name in ipairs({ "default", "shadow_bias", "wireframe" }) do
          local preset = pso.rasterizer[name]
          local a = with(key, preset)
          local b = with(key, pso.copy(preset))
          expect(a:hash()).to_equal(b:hash())
          expect(a:bytes() == b:bytes()).to_be(true)
        end
      end
      local c = with("blend", pso.blend.premultiplied)
      expect(c:hash()).to_equal(with("blend", pso.copy(pso.blend.premultiplied)):hash())
      expect(c:hash() == with("blend", pso.blend.opaque):hash()).to_be(false)
    end
  end)
end)

describe("shader bytes", function()
  -- (that they stay valid while the pipeline lives, whatever else lets go
  -- of them, is test_shader_bytes_borrowed in tests/unit/test_language.c:
  -- material scripts cannot force a collection)
  it("are referenced by each pipeline, not copied into it", function()
    local big = pso.shader { bytes = string.rep("x", 16384) }
    local keep = {}
    local before = collectgarbage("count")
    for i = 1, 20 do keep[i] = pso.graphics { name = "p" .. i, vs = big } end
    local per = (collectgarbage("count") - before) * 1024 / #keep
    expect(per).to_be_less_than(4096)
  end)
end)
