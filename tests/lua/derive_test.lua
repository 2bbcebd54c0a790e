-- derive_test.lua: pso.derive, presets, and where explain says values
-- came from.
-- Run by `psoc test` (docs/testing.md), which provides these globals:
-- luacheck: read globals describe it expect
local pso = require "pso"

local vs = pso.shader { bytes = "DXBC-vertex" }
local ps = pso.shader { bytes = "DXBC-pixel" }

local function row(p, path)
  for _, r in ipairs(p:explain_table()) do
    if r.path == path then return r end
  end
  error("no explain row " .. path)
end

local function base()
  return pso.graphics {
    name = "lit_opaque",
    root_signature = "forward",
    vs = vs, ps = ps,
    input_layout = { { "POSITION", "R32G32B32_FLOAT" }, { "NORMAL", "R32G32B32_FLOAT" } },
    rasterizer = { cull = "back", fill = "solid" },
    blend = pso.blend.alpha,
    depth_stencil = { depth = true, write = "all", func = "greater_equal" },
    render_targets = { "R11G11B10_FLOAT", "R8G8B8A8_UNORM" },
    depth_format = "D32_FLOAT",
  }
end

describe("derive", function()
  it("merges records key by key", function()
    local b = base()
    local d = pso.derive(b, { name = "lit_two_sided", rasterizer = { cull = "none" } })
    expect(d.name).to_equal("lit_two_sided")
    expect(d.kind).to_equal("graphics")
    expect(d.rasterizer.cull).to_equal("none")
    expect(d.rasterizer.fill).to_equal("solid")
    expect(d.depth_stencil.func).to_equal("greater_equal")
    expect(d.root_signature).to_equal("forward")
    expect(#d.input_layout).to_equal(2)
  end)

  it("does not change the base", function()
    local b = base()
    local before, bytes = b:hash(), b:bytes()
    pso.derive(b, { name = "x", rasterizer = { cull = "none" }, blend = pso.none, depth_format = "d16_unorm" })
    expect(b:hash()).to_equal(before)
    expect(b:bytes()).to_equal(bytes)
    expect(b.rasterizer.cull).to_equal("back")
    expect(b.blend.render_targets[1].enable).to_be(true)
  end)

  it("equals the same pipeline declared directly", function()
    local d = pso.derive(base(), { name = "two", rasterizer = { cull = "none" } })
    local direct = pso.graphics {
      name = "other name", root_signature = "forward", vs = vs, ps = ps,
      input_layout = { { "POSITION", "R32G32B32_FLOAT" }, { "NORMAL", "R32G32B32_FLOAT" } },
      rasterizer = { cull = "none", fill = "solid" }, blend = pso.blend.alpha,
      depth_stencil = { depth = true, write = "all", func = "greater_equal" },
      render_targets = { "R11G11B10_FLOAT", "R8G8B8A8_UNORM" }, depth_format = "D32_FLOAT",
    }
    expect(d:hash()).to_equal(direct:hash())
    expect(pso.same(d, direct)).to_be(true)
  end)

  it("replaces lists and removes subobjects with pso.none", function()
    local d = pso.derive(base(), { name = "d", input_layout = { { "POSITION", "R16G16B16A16_FLOAT" } },
                                   render_targets = { "R8G8B8A8_UNORM" }, depth_stencil = pso.none,
                                   depth_format = pso.none })
    expect(#d.input_layout).to_equal(1)
    expect(d.input_layout[1].format).to_equal("r16g16b16a16_float")
    expect(#d.render_targets).to_equal(1)
    expect(d.depth_stencil.depth).to_be(false) -- hidden default: no state, no format
    for _, k in ipairs(d:subobjects()) do expect(k).never.to_equal("depth_stencil") end
  end)

  -- README "derive": lists replace. blend.render_targets is a list too: the
  -- override's list replaces the base's whole list (targets it leaves out
  -- get the runtime defaults), while per-target keys given directly still
  -- merge into entry [1] of the list they sit beside.
  it("replaces blend.render_targets as a whole list", function()
    local b = pso.graphics { name = "two", vs = vs, render_targets = { "r8g8b8a8_unorm", "r8g8b8a8_unorm" },
                             blend = { independent = true, render_targets = {
                               { enable = true, src = "one", dst = "one" },
                               { enable = true, src = "src_alpha", dst = "inv_src_alpha" } } } }
    local d = pso.derive(b, { name = "d", blend = { render_targets = { { enable = true, src = "zero" } } } })
    expect(d.blend.render_targets[1].src).to_equal("zero")
    expect(d.blend.render_targets[1].dst).to_equal("zero") -- not the base's 'one'
    expect(d.blend.render_targets[2].enable).to_be(false) -- the base's entry [2] is gone
    expect(d.blend.independent).to_be(true)               -- a record key: merged
    -- keys beside the list in the override still merge into the base's list
    local e = pso.derive(b, { name = "e", blend = { dst = "inv_src_color" } })
    expect(e.blend.render_targets[1].src).to_equal("one")
    expect(e.blend.render_targets[1].dst).to_equal("inv_src_color")
    expect(e.blend.render_targets[2].src).to_equal("src_alpha")
    -- and a list in the override drops the base's per-target keys (a preset)
    local f = pso.derive(base(), { name = "f", blend = { render_targets = { { write_mask = "rgb" } } } })
    expect(f.blend.render_targets[1].enable).to_be(false)
    expect(f.blend.render_targets[1].write_mask).to_equal("red|green|blue")
  end)

  it("merges blend per-target keys over a preset", function()
    local d = pso.derive(base(), { name = "d", blend = { dst = "one" } })
    expect(d.blend.render_targets[1].src).to_equal("src_alpha")
    expect(d.blend.render_targets[1].dst).to_equal("one")
    expect(d.blend.render_targets[1].enable).to_be(true)
  end)

  it("upgrades the version when an override needs it", function()
    local d = pso.derive(base(), { name = "biased", rasterizer = { depth_bias = 0.5 } })
    expect(table.concat(d:subobjects(), ",")).to_contain(",rasterizer1,")
    expect(d.rasterizer.cull).to_equal("back")
    expect(d.rasterizer.depth_bias).to_equal(0.5)
    local e = pso.derive(d, { name = "biased2", rasterizer = { cull = "front" } })
    expect(e.rasterizer1.depth_bias).to_equal(0.5) -- never downgraded
    expect(e.rasterizer.cull).to_equal("front")
  end)

  it("derives from derived pipelines", function()
    local a = pso.derive(base(), { name = "a", rasterizer = { cull = "none" } })
    local b = pso.derive(a, { name = "b", depth_stencil = { func = "less" } })
    local c = pso.derive(b, { name = "c", rasterizer = { fill = "wireframe" } })
    expect(c.rasterizer.cull).to_equal("none")
    expect(c.rasterizer.fill).to_equal("wireframe")
    expect(c.depth_stencil.func).to_equal("less")
    expect(c.depth_stencil.write).to_equal("all")
  end)

  it("keeps the base's kind and its rules", function()
    local c = pso.compute { name = "c", cs = pso.shader { bytes = "cs" } }
    local d = pso.derive(c, { name = "d", flags = "tool_debug" })
    expect(d.kind).to_equal("compute")
    expect(function() pso.derive(c, { name = "e", rasterizer = {} }) end).to_fail_with("rasterizer is not used by compute")
    expect(function() pso.derive(base(), { name = "e", vs = pso.none }) end).to_fail_with("vs: cannot be removed")
  end)

  it("notices a base declaration modified after declaring", function()
    local decl = { name = "m", vs = vs, rasterizer = { cull = "back" } }
    local b = pso.graphics(decl)
    decl.rasterizer.cull = "front"
    expect(function() pso.derive(b, { name = "x", rasterizer = { fill = "wireframe" } }) end)
      .to_fail_with("rasterizer: the declaration of base pipeline 'm' was modified")
    -- untouched subobjects come from the base's bytes and stay correct
    local ok = pso.derive(b, { name = "y", depth_format = "d32_float" })
    expect(ok.rasterizer.cull).to_equal("back")
  end)
end)

describe("presets", function()
  it("have the documented factors", function()
    local function rt(preset) return pso.graphics { vs = vs, blend = preset }.blend.render_targets[1] end
    expect(rt(pso.blend.opaque).enable).to_be(false)
    local a = rt(pso.blend.alpha)
    expect(a.src .. " " .. a.dst .. " " .. a.op).to_equal("src_alpha inv_src_alpha add")
    local p = rt(pso.blend.premultiplied)
    expect(p.src .. " " .. p.dst).to_equal("one inv_src_alpha")
    local add = rt(pso.blend.additive)
    expect(add.src .. " " .. add.dst).to_equal("one one")
    local m = rt(pso.blend.multiply)
    expect(m.src .. " " .. m.dst).to_equal("dest_color zero")
    local function r(preset) return pso.graphics { vs = vs, rasterizer = preset }.rasterizer end
    expect(r(pso.rasterizer.default).cull).to_equal("back")
    expect(r(pso.rasterizer.cull_none).cull).to_equal("none")
    expect(r(pso.rasterizer.cull_front).cull).to_equal("front")
    expect(r(pso.rasterizer.wireframe).fill).to_equal("wireframe")
    expect(r(pso.rasterizer.shadow_bias).depth_bias).to_equal(1000)
    local function d(preset) return pso.graphics { vs = vs, depth_stencil = preset }.depth_stencil end
    expect(d(pso.depth.default).func).to_equal("less")
    expect(d(pso.depth.read_only).write).to_equal("zero")
    expect(d(pso.depth.reverse_z).func).to_equal("greater_equal")
    expect(d(pso.depth.disabled).depth).to_be(false)
    expect(d(pso.depth.equal).func).to_equal("equal")
  end)

  it("are immutable and can be copied", function()
    expect(function() pso.rasterizer.default.cull = "none" end).to_fail_with("read-only")
    local copy = pso.copy(pso.rasterizer.default)
    copy.cull = "none"
    expect(copy.fill).to_equal("solid")
    expect(pso.rasterizer.default.cull).to_equal("back")
    expect(tostring(pso.depth.reverse_z)).to_equal("preset depth.reverse_z")
  end)

  it("can be made by scripts", function()
    local mine = pso.preset("mine", { cull = "none", fill = "wireframe" })
    local p = pso.graphics { vs = vs, rasterizer = mine }
    expect(p.rasterizer.cull).to_equal("none")
    expect(row(p, "rasterizer.cull").origin).to_equal("preset mine")
    expect(function() mine.cull = "back" end).to_fail_with("preset mine is read-only")
  end)
end)

describe("explain", function()
  it("says where each value came from", function()
    local b = base()
    expect(row(b, "rasterizer.cull").origin).to_equal("script")
    expect(row(b, "rasterizer.front_ccw").origin).to_equal("runtime default")
    expect(row(b, "blend.render_targets[1].src").origin).to_equal("preset blend.alpha")
    expect(row(b, "blend.render_targets[1].src").value).to_equal("src_alpha")
    expect(row(b, "input_layout[2].semantic").value).to_equal("NORMAL")
    expect(row(b, "sample_mask").origin).to_equal("runtime default")
    expect(row(b, "topology").origin).to_match("^hidden default")
    expect(b:explain()).to_contain("rasterizer.cull = back")
    expect(b:explain()).to_contain("(preset blend.alpha)")
  end)

  it("names the base for derived values", function()
    local d = pso.derive(base(), { name = "two", rasterizer = { cull = "none" }, blend = pso.blend.additive })
    expect(row(d, "rasterizer.cull").origin).to_equal("script")
    expect(row(d, "rasterizer.fill").origin).to_equal("base lit_opaque")
    expect(row(d, "depth_stencil.func").origin).to_equal("base lit_opaque")
    expect(row(d, "blend.render_targets[1].dst").origin).to_equal("preset blend.additive")
    expect(row(d, "root_signature").origin).to_equal("base lit_opaque")
    local e = pso.derive(d, { name = "three", depth_format = "d16_unorm" })
    expect(row(e, "depth_format").origin).to_equal("script")
    expect(row(e, "rasterizer.cull").origin).to_equal("base two")
    expect(row(e, "rasterizer.fill").origin).to_equal("base lit_opaque")
  end)

  it("explains the hidden depth default", function()
    local p = pso.graphics { vs = vs }
    local r = row(p, "depth_stencil.depth")
    expect(r.value).to_equal("false")
    expect(r.origin).to_contain("hidden default: depth testing is off")
    expect(p:explain()).to_contain("(hidden default: depth testing is off because neither a depth-stencil state nor a depth format is given)")
  end)

  it("shows the version that was picked", function()
    local p = pso.graphics { vs = vs, rasterizer = { depth_bias = 1.5 } }
    expect(row(p, "rasterizer").value).to_equal("rasterizer1")
    expect(row(p, "rasterizer.depth_bias").value).to_equal("1.5")
  end)

  -- D3D12_APPEND_ALIGNED_ELEMENT is a name in the docs, not a number to read.
  it("names append_aligned offsets", function()
    local p = pso.graphics { vs = vs, input_layout = { { "POSITION", "R32G32B32_FLOAT" },
                                                       { "UV", "R32G32_FLOAT", offset = 12 } } }
    expect(row(p, "input_layout[1].offset").value).to_equal("append_aligned")
    expect(row(p, "input_layout[2].offset").value).to_equal("12")
    expect(p:explain()).to_contain("input_layout[1].offset = append_aligned")
    expect(p:explain()).never.to_contain("offset = 4294967295")
    expect(p.input_layout[1].offset).to_equal(pso.APPEND_ALIGNED) -- readback stays a number
  end)

  -- explain { changed = true } (psoc explain --changed): rows whose value
  -- differs from the runtime default, whatever set them.
  it("lists only non-default values with changed = true", function()
    local b = base()
    local paths = {}
    for _, r in ipairs(b:explain_table { changed = true }) do paths[r.path] = r end
    expect(paths["rasterizer.cull"]).to_be_nil()        -- back: the runtime default
    expect(paths["rasterizer.front_ccw"]).to_be_nil()
    expect(paths["depth_stencil.func"].value).to_equal("greater_equal")
    expect(paths["blend.render_targets[1].src"].origin).to_equal("preset blend.alpha")
    expect(paths["root_signature"].value).to_equal("forward")
    expect(paths["input_layout[2].semantic"].value).to_equal("NORMAL")
    expect(#b:explain_table { changed = true }).to_be_less_than(#b:explain_table())
    local text = b:explain { changed = true }
    expect(text).to_contain("depth_stencil.func = greater_equal")
    expect(text).never.to_contain("rasterizer.cull")
    -- the hidden depth default differs from the runtime's (depth on): shown
    local p = pso.graphics { vs = vs }
    expect(p:explain { changed = true }).to_contain("depth_stencil.depth = false")
    expect(p:explain { changed = false }).to_equal(p:explain())
    expect(function() b:explain { chnaged = true } end).to_fail_with("unknown option 'chnaged'", "'changed'")
    expect(function() b:explain("changed") end).to_fail_with("expected a table of options")
  end)

  it("leaves out subobjects the kind does not use", function()
    local c = pso.compute { cs = pso.shader { bytes = "c" } }
    for _, r in ipairs(c:explain_table()) do
      expect(r.path:match("^rasterizer")).to_be_nil()
    end
    expect(row(c, "cs").origin).to_equal("script")
  end)
end)
