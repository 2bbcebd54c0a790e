-- language_test.lua: every subobject kind declared and read back, the
-- shorthands, version selection, and the exact stream layout.
-- Run by `psoc test` (docs/testing.md), which provides these globals:
-- luacheck: read globals describe it expect
local pso = require "pso"

local vs = pso.shader { bytes = "DXBC-vertex" }
local ps = pso.shader { bytes = "DXBC-pixel" }
local gs = pso.shader { bytes = "DXBC-geometry" }
local hs = pso.shader { bytes = "DXBC-hull" }
local ds = pso.shader { bytes = "DXBC-domain" }

local function u32(s, off) -- little-endian u32 at byte offset off (0-based)
  local a, b, c, d = s:byte(off + 1, off + 4)
  return a + b * 256 + c * 65536 + d * 16777216
end

local function keys(list) return table.concat(list, ",") end

describe("graphics pipelines", function()
  local p = pso.graphics {
    name = "everything",
    root_signature = "forward",
    vs = vs, ps = ps, gs = gs, hs = hs, ds = ds,
    stream_output = {
      entries = { { stream = 0, semantic = "POSITION", index = 0, start_component = 0, component_count = 4, slot = 0 } },
      strides = { 16 },
      rasterized_stream = 0,
    },
    blend = { alpha_to_coverage = true, independent = true,
              render_targets = { { enable = true, src = "src_alpha", dst = "inv_src_alpha" }, { write_mask = "rg" } } },
    sample_mask = 0xff,
    rasterizer = { fill = "wireframe", cull = "front", front_ccw = true, depth_bias = -4,
                   slope_scaled_depth_bias = 0.25, depth_clip = false, conservative = "on" },
    depth_stencil = { depth = true, write = "zero", func = "less_equal", stencil = true,
                      stencil_read_mask = 0x0f, front = { pass = "replace", func = "equal" } },
    input_layout = {
      { "POSITION", "R32G32B32_FLOAT" },
      { "TEXCOORD", "R16G16_FLOAT", index = 1, slot = 1, offset = 8, classification = "per_instance_data", step_rate = 1 },
    },
    strip_cut = "0xffff",
    topology = "patch",
    render_targets = { "R11G11B10_FLOAT", "r8g8b8a8_unorm_srgb" },
    depth_format = "D24_UNORM_S8_UINT",
    sample_desc = { count = 4, quality = 1 },
    node_mask = 1,
    cached_pso = pso.blob { bytes = "cache" },
    flags = "tool_debug",
    view_instancing = { locations = { { viewport = 0, render_target = 0 }, { viewport = 1, render_target = 1 } },
                        flags = "enable_view_instance_masking" },
    serialized_root_signature = pso.blob { bytes = "rootsig" },
  }

  it("keeps name and kind", function()
    expect(p.name).to_equal("everything")
    expect(p.kind).to_equal("graphics")
    expect(p.root_signature).to_equal("forward")
  end)

  it("emits the subobjects in class order (by the base type id)", function()
    expect(keys(p:subobjects())).to_equal("root_signature,vs,ps,ds,hs,gs,stream_output,blend,sample_mask,"
      .. "rasterizer,depth_stencil,input_layout,strip_cut,topology,render_targets,depth_format,sample_desc,"
      .. "node_mask,cached_pso,flags,view_instancing,serialized_root_signature")
  end)

  it("reads shaders and blobs back", function()
    expect(p.vs.bytes).to_equal("DXBC-vertex")
    expect(p.vs.kind).to_equal("shader")
    expect(p.ds.size).to_equal(#"DXBC-domain")
    expect(p.cached_pso.bytes).to_equal("cache")
    expect(p.cached_pso.kind).to_equal("blob")
    expect(p.serialized_root_signature.bytes).to_equal("rootsig")
    expect(p.vs == vs).to_be(true)
  end)

  it("reads stream output back", function()
    local so = p.stream_output
    expect(#so.entries).to_equal(1)
    expect(so.entries[1].semantic).to_equal("POSITION")
    expect(so.entries[1].component_count).to_equal(4)
    expect(so.strides[1]).to_equal(16)
    expect(so.rasterized_stream).to_equal(0)
  end)

  it("reads blend back", function()
    local b = p.blend
    expect(b.alpha_to_coverage).to_be(true)
    expect(b.independent).to_be(true)
    expect(#b.render_targets).to_equal(8)
    expect(b.render_targets[1].enable).to_be(true)
    expect(b.render_targets[1].src).to_equal("src_alpha")
    expect(b.render_targets[1].dst).to_equal("inv_src_alpha")
    expect(b.render_targets[1].op).to_equal("add")
    expect(b.render_targets[2].write_mask).to_equal("red|green")
    expect(b.render_targets[3].write_mask).to_equal("all")
  end)

  it("reads scalar subobjects back", function()
    expect(p.sample_mask).to_equal(255)
    expect(p.strip_cut).to_equal("0xffff")
    expect(p.topology).to_equal("patch")
    expect(p.depth_format).to_equal("d24_unorm_s8_uint")
    expect(p.node_mask).to_equal(1)
    expect(p.flags).to_equal("tool_debug")
  end)

  it("reads rasterizer and depth-stencil back", function()
    local r = p.rasterizer
    expect(r.fill).to_equal("wireframe")
    expect(r.cull).to_equal("front")
    expect(r.front_ccw).to_be(true)
    expect(r.depth_bias).to_equal(-4)
    expect(r.slope_scaled_depth_bias).to_equal(0.25)
    expect(r.depth_clip).to_be(false)
    expect(r.conservative).to_equal("on")
    local d = p.depth_stencil
    expect(d.write).to_equal("zero")
    expect(d.func).to_equal("less_equal")
    expect(d.stencil).to_be(true)
    expect(d.stencil_read_mask).to_equal(15)
    expect(d.stencil_write_mask).to_equal(255)
    expect(d.front.pass).to_equal("replace")
    expect(d.front.func).to_equal("equal")
    expect(d.back.func).to_equal("always")
  end)

  it("reads the input layout back", function()
    local il = p.input_layout
    expect(#il).to_equal(2)
    expect(il[1].semantic).to_equal("POSITION")
    expect(il[1].format).to_equal("r32g32b32_float")
    expect(il[1].offset).to_equal(pso.APPEND_ALIGNED)
    expect(il[2].index).to_equal(1)
    expect(il[2].slot).to_equal(1)
    expect(il[2].offset).to_equal(8)
    expect(il[2].classification).to_equal("per_instance_data")
    expect(il[2].step_rate).to_equal(1)
  end)

  it("reads formats, samples and view instancing back", function()
    expect(#p.render_targets).to_equal(2)
    expect(p.render_targets[1]).to_equal("r11g11b10_float")
    expect(p.render_targets[2]).to_equal("r8g8b8a8_unorm_srgb")
    expect(p.sample_desc.count).to_equal(4)
    expect(p.sample_desc.quality).to_equal(1)
    local vi = p.view_instancing
    expect(#vi.locations).to_equal(2)
    expect(vi.locations[2].viewport).to_equal(1)
    expect(vi.locations[2].render_target).to_equal(1)
    expect(vi.flags).to_equal("enable_view_instance_masking")
  end)

  it("round-trips through p:table()", function()
    local q = pso.graphics(p:table())
    expect(q:hash()).to_equal(p:hash())
    expect(q:size()).to_equal(p:size())
  end)
end)

describe("mesh and compute pipelines", function()
  it("declares a mesh pipeline", function()
    local m = pso.mesh { name = "meshlets", as = pso.shader { bytes = "amp" }, ms = pso.shader { bytes = "mesh" }, ps = ps,
                         rasterizer2 = { line_mode = "quadrilateral_wide" }, render_targets = { "r8g8b8a8_unorm" } }
    expect(m.kind).to_equal("mesh")
    expect(keys(m:subobjects())).to_equal("ps,rasterizer2,render_targets,as,ms")
    expect(m.ms.bytes).to_equal("mesh")
    expect(m.as.bytes).to_equal("amp")
    expect(m.rasterizer2.line_mode).to_equal("quadrilateral_wide")
    expect(m.rasterizer.line_mode).to_equal("quadrilateral_wide")
    expect(m.vs).to_be_nil()
    expect(pso.mesh(m:table()):hash()).to_equal(m:hash())
  end)

  it("declares a compute pipeline", function()
    local c = pso.compute { name = "cull", cs = pso.shader { bytes = "compute" }, root_signature = "compute_rs",
                            node_mask = 2, flags = { "tool_debug" }, cached_pso = pso.blob { bytes = "c" } }
    expect(c.kind).to_equal("compute")
    expect(keys(c:subobjects())).to_equal("root_signature,cs,node_mask,cached_pso,flags")
    expect(c.cs.bytes).to_equal("compute")
    expect(c.node_mask).to_equal(2)
    expect(c.root_signature).to_equal("compute_rs")
    expect(pso.compute(c:table()):hash()).to_equal(c:hash())
  end)
end)

describe("version selection", function()
  it("emits RASTERIZER for integral values", function()
    local p = pso.graphics { vs = vs, rasterizer = { depth_bias = 2 } }
    expect(keys(p:subobjects())).to_equal("vs,rasterizer")
    expect(p.rasterizer1).to_be_nil()
  end)
  it("needs RASTERIZER1 for a fractional depth bias", function()
    local p = pso.graphics { vs = vs, rasterizer = { depth_bias = 0.5, cull = "none" } }
    expect(keys(p:subobjects())).to_equal("vs,rasterizer1")
    expect(p.rasterizer.depth_bias).to_equal(0.5)
    expect(p.rasterizer1.cull).to_equal("none")
  end)
  it("needs RASTERIZER2 for line_mode", function()
    local p = pso.graphics { vs = vs, rasterizer = { line_mode = "alpha_antialiased" } }
    expect(keys(p:subobjects())).to_equal("vs,rasterizer2")
  end)
  it("forces a version with its key", function()
    local p = pso.graphics { vs = vs, rasterizer1 = { cull = "none" } }
    expect(keys(p:subobjects())).to_equal("vs,rasterizer1")
    p = pso.graphics { vs = vs, depth_stencil2 = {} }
    expect(keys(p:subobjects())).to_equal("vs,depth_stencil2")
  end)
  it("picks DEPTH_STENCIL1 for depth_bounds and DEPTH_STENCIL2 for per-face masks", function()
    expect(keys(pso.graphics { vs = vs, depth_stencil = { depth_bounds = true } }:subobjects())).to_equal("vs,depth_stencil1")
    local p = pso.graphics { vs = vs, depth_stencil = { back = { write_mask = 3 } } }
    expect(keys(p:subobjects())).to_equal("vs,depth_stencil2")
    expect(p.depth_stencil.back.write_mask).to_equal(3)
    expect(p.depth_stencil.front.write_mask).to_equal(255)
  end)
end)

describe("shorthands and spellings", function()
  it("accepts full names, short names in any case, and D3D12 member names", function()
    local a = pso.graphics { vs = vs, rasterizer = { cull = "none", fill = "wireframe" }, depth_format = "d32_float" }
    local b = pso.graphics { vs = vs, rasterizer = { CullMode = "D3D12_CULL_MODE_NONE", FillMode = "WIREFRAME" },
                             depth_format = "DXGI_FORMAT_D32_FLOAT" }
    local c = pso.graphics { vs = vs, rasterizer = { cull = "NONE", fill = "Wireframe" }, depth_format = "D32_FLOAT" }
    expect(b:hash()).to_equal(a:hash())
    expect(c:hash()).to_equal(a:hash())
  end)
  it("takes write = true/false for the depth write mask", function()
    expect(pso.graphics { vs = vs, depth_stencil = { write = true } }.depth_stencil.write).to_equal("all")
    expect(pso.graphics { vs = vs, depth_stencil = { write = false } }.depth_stencil.write).to_equal("zero")
  end)
  it("takes sample_desc as a number", function()
    local p = pso.graphics { vs = vs, sample_desc = 8 }
    expect(p.sample_desc.count).to_equal(8)
    expect(p.sample_desc.quality).to_equal(0)
  end)
  it("takes flags as names, a|b, lists, integers and rgba letters", function()
    local function mask(m) return pso.graphics { vs = vs, blend = { write_mask = m } }.blend.render_targets[1].write_mask end
    expect(mask("rgb")).to_equal("red|green|blue")
    expect(mask("red|alpha")).to_equal("red|alpha")
    expect(mask({ "green", "blue" })).to_equal("green|blue")
    expect(mask(15)).to_equal("all")
    expect(mask("D3D12_COLOR_WRITE_ENABLE_ALL")).to_equal("all")
    expect(mask(0)).to_equal(0)
  end)
  it("applies per-target blend keys to render target 1", function()
    local p = pso.graphics { vs = vs, blend = { enable = true, src = "one", dst = "one" } }
    expect(p.blend.render_targets[1].enable).to_be(true)
    expect(p.blend.render_targets[1].dst).to_equal("one")
    expect(p.blend.render_targets[2].enable).to_be(false)
    local q = pso.graphics { vs = vs, blend = { render_targets = { { enable = true, src = "one", dst = "one" } } } }
    expect(q:hash()).to_equal(p:hash())
  end)
  it("takes render targets as a list of formats", function()
    local p = pso.graphics { vs = vs, render_targets = { "r8g8b8a8_unorm", "r16g16b16a16_float", "r32_float" } }
    expect(#p.render_targets).to_equal(3)
    expect(p.render_targets[3]).to_equal("r32_float")
    local q = pso.graphics { vs = vs, render_targets = { formats = { "r8g8b8a8_unorm", "r16g16b16a16_float", "r32_float" }, count = 3 } }
    expect(q:hash()).to_equal(p:hash())
    expect(#pso.graphics { vs = vs, render_targets = {} }.render_targets).to_equal(0)
  end)
  it("gives root signatures as names or pointers", function()
    expect(pso.graphics { vs = vs, root_signature = "rs" }.root_signature).to_equal("rs")
    expect(pso.graphics { vs = vs }.root_signature).to_be_nil()
  end)
  it("treats pso.none as not given", function()
    local a = pso.graphics { vs = vs, rasterizer = pso.none }
    expect(keys(a:subobjects())).to_equal("vs")
  end)
end)

describe("effective values", function()
  local p = pso.graphics { vs = vs }
  it("reads runtime defaults for omitted subobjects", function()
    expect(p.rasterizer.cull).to_equal("back")
    expect(p.rasterizer.depth_clip).to_be(true)
    expect(p.sample_mask).to_equal(0xffffffff)
    expect(p.sample_desc.count).to_equal(1)
    expect(p.blend.render_targets[1].write_mask).to_equal("all")
    expect(p.topology).to_equal("triangle")
    expect(p.ps).to_be_nil()
    expect(#p.input_layout).to_equal(0)
  end)
  it("applies the hidden depth default", function()
    expect(p.depth_stencil.depth).to_be(false)
    expect(pso.graphics { vs = vs, depth_format = "d32_float" }.depth_stencil.depth).to_be(true)
    expect(pso.graphics { vs = vs, depth_stencil = {} }.depth_stencil.depth).to_be(true)
  end)
  it("returns nil for an exact version that is not present", function()
    expect(p.rasterizer2).to_be_nil()
    expect(p.depth_stencil1).to_be_nil()
  end)
end)

describe("stream layout", function()
  it("puts 4-byte payloads at offset 4 and pointer payloads at offset 8", function()
    local p = pso.graphics { vs = vs, topology = "line", sample_mask = 7 }
    local s = p:bytes()
    expect(#s).to_equal(p:size())
    expect(u32(s, 0)).to_equal(1)   -- VS
    expect(u32(s, 16)).to_equal(#"DXBC-vertex") -- BytecodeLength (low half) at 8 + 8
    expect(u32(s, 24)).to_equal(9)  -- SAMPLE_MASK after 24 bytes of VS
    expect(u32(s, 28)).to_equal(7)
    expect(u32(s, 32)).to_equal(14) -- PRIMITIVE_TOPOLOGY
    expect(u32(s, 36)).to_equal(2)  -- LINE
    expect(#s).to_equal(40)
  end)
end)

describe("shader files", function()
  -- psoc test runs this file in the material sandbox: relative names
  -- resolve against the test file's directory (a material root).
  it("reads pso.shader \"file\" relative to the script's directory", function()
    local name = "fixtures/from_file.cso"
    local s = pso.shader(name)
    local t = pso.shader { file = name }
    expect(s.bytes).to_equal("DXBC-from-file")
    expect(s.file).to_equal(name)
    expect(s == t).to_be(true)
    expect(tostring(s)).to_contain("14 bytes")
  end)
end)
