-- materials_test.lua: the example test suite over the bundled materials
-- (scripts/materials). Run it from the repository root with
--
--     build/bin/psoc test scripts/tests
--
-- It shows the three kinds of test a rendering team writes: assertions on
-- the effective state of one material, on check results, and invariants
-- over the whole material library. docs/testing.md describes the API.

-- The material library these tests cover, relative to this file. (CI could
-- pass `--root scripts/materials` instead.)
materials.root = "../materials"

-- The capability profile the game ships on: every pipeline must pass
-- check under it. psoc check --help lists the profiles.
local TARGET_PROFILE = "desktop_fl12_2"

-- A pipeline is transparent when render target 0 blends.
local function is_transparent(p)
  return p.kind ~= "compute" and p.blend.render_targets[1].enable
end

-- Depth writes are off when the depth test is off or the write mask is zero.
local function writes_depth(p)
  local ds = p.depth_stencil
  return ds.depth and ds.write ~= "zero"
end

local function by_name(name)
  for p in materials.each() do
    if p.name == name then return p end
  end
  error("no pipeline called " .. name)
end

describe("lit.lua", function()
  local pipelines = materials.load("../materials/lit.lua")
  local lit, two_sided = pipelines[1], pipelines[2]

  it("returns the opaque pipeline and its two-sided variant", function()
    expect(lit.name).to_equal("lit_opaque")
    expect(two_sided.name).to_equal("lit_two_sided")
  end)

  it("uses reverse-Z: depth test greater_equal, depth writes on", function()
    expect(lit.depth_stencil.depth).to_be(true)
    expect(lit.depth_stencil.func).to_equal("greater_equal")
    expect(lit.depth_stencil.write).to_equal("all")
    expect(lit.depth_format).to_equal("d32_float")
  end)

  it("renders to the HDR and normal buffers", function()
    expect(lit.render_targets).to_equal({ "r11g11b10_float", "r8g8b8a8_unorm" })
    expect(lit.blend.render_targets[1].enable).to_be(false)
  end)

  it("culls back faces; the two-sided variant differs only in culling", function()
    expect(lit.rasterizer.cull).to_equal("back")
    expect(two_sided.rasterizer.cull).to_equal("none")
    expect(two_sided).never.to_equal(lit)
    expect(pso.derive(two_sided, { name = "lit_again", rasterizer = { cull = "back" } }))
      .to_equal(lit)
  end)

  it("feeds the vertex shader position, normal, tangent and one UV set", function()
    local semantics = {}
    for i, e in ipairs(lit.input_layout) do semantics[i] = e.semantic end
    expect(semantics).to_equal({ "POSITION", "NORMAL", "TANGENT", "TEXCOORD" })
  end)
end)

describe("shadow.lua", function()
  it("writes depth only, with a depth bias against shadow acne", function()
    local shadow = by_name("shadow_depth")
    expect(shadow.ps).to_be_nil()
    expect(shadow.render_targets).to_equal({})
    expect(shadow.depth_format).to_equal("d16_unorm")
    expect(shadow.rasterizer.depth_bias).to_be_greater_than(0)
    expect(writes_depth(shadow)).to_be_truthy()
  end)
end)

describe("check results", function()
  it("meshlet pipelines need mesh shader tier 1", function()
    local meshlet = by_name("meshlet_opaque")
    expect(meshlet).to_be_valid { profile = "desktop_fl12_2" }
    expect(meshlet).to_fail_with("PSOC_UNSUPPORTED", "mesh shader tier", { profile = "desktop_fl12_0" })
  end)

  it("stereo rendering needs view instancing", function()
    expect(by_name("stereo_lit")).to_fail_with("view instancing", { profile = "desktop_fl11_0" })
  end)

  it("a typo in a material is an error that names the field", function()
    expect(function()
      pso.graphics { name = "typo", vs = pso.shader { bytes = "vs" }, rasterizer = { cul = "none" } }
    end).to_fail_with("cul")
  end)
end)

describe("the material library", function()
  it("has materials", function()
    expect(#materials.all()).to_be_greater_than(0)
  end)

  it("every pipeline passes check under the target profile", function()
    for p in materials.each() do
      expect(p).to_be_valid { profile = TARGET_PROFILE }
    end
  end)

  it("every transparent material disables depth write", function()
    local transparent = 0
    for p, file in materials.each() do
      if is_transparent(p) then
        transparent = transparent + 1
        expect(writes_depth(p), file .. ": " .. p.name .. " writes depth").to_be_falsy()
      end
    end
    expect(transparent).to_be_greater_than(0)
  end)

  it("no two materials compile to the same pipeline under different names", function()
    local seen = {}
    for p, file in materials.each() do
      local other = seen[p:hash()]
      if other and other.name ~= p.name then
        error(("%s: pipeline %s compiles to the same stream as %s (%s)")
          :format(file, p.name, other.name, other.file))
      end
      seen[p:hash()] = { name = p.name, file = file }
    end
  end)

  it("pipeline names are unique and snake_case", function()
    local files = {}
    for p, file, name in materials.each() do
      expect(name).to_match("^[a-z][a-z0-9_]*$")
      expect(files[name]).to_be_nil()
      files[name] = file
    end
  end)

  it("every pipeline names a root signature", function()
    for p in materials.each() do
      expect(p.root_signature).to_be_a("string")
    end
  end)
end)
