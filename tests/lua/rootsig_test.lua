-- rootsig_test.lua: root signatures in the material language
-- (bindings/lua/pso_rootsig.c over src/rootsig.c): the blobs equal those
-- vkd3d 1.2's D3D12SerializeVersionedRootSignature wrote for the same
-- declarations (recorded; tests/rootsig_vkd3d compares live), pipelines
-- carry them as SERIALIZED_ROOT_SIGNATURE or by name, errors name the line
-- and the field, warnings come back.
-- Run by `psoc test` (docs/testing.md), which provides these globals:
-- luacheck: read globals describe it expect
local pso = require "pso"
local compile = loadstring or load

local function fails(src, ...)
  src = src:gsub("return (pso%.[%w_]+)", "local r = %1")
  local chunk = assert(compile("local pso = ...\n" .. src .. "\nreturn r", "=mat.lua"))
  return expect(function() chunk(pso) end).to_fail_with(...)
end

-- vkd3d's blobs (the same bytes tests/unit/test_rootsig.c checks)
local EMPTY_IA =
  "\68\88\66\67\46\214\187\5\70\54\77\199\165\7\20\222\61\39\153\13\1\0\0\0\68\0\0\0\1" ..
  "\0\0\0\36\0\0\0\82\84\83\48\24\0\0\0\1\0\0\0\0\0\0\0\24\0\0\0\0\0\0\0\24\0\0\0\1\0\0" ..
  "\0"
local V10_CONSTANTS_TABLE =
  "\68\88\66\67\85\229\102\234\236\8\156\116\147\61\189\45\51\174\207\39\1\0\0\0\132\0" ..
  "\0\0\1\0\0\0\36\0\0\0\82\84\83\48\88\0\0\0\1\0\0\0\2\0\0\0\24\0\0\0\0\0\0\0\88\0\0\0" ..
  "\0\0\0\0\1\0\0\0\1\0\0\0\48\0\0\0\0\0\0\0\0\0\0\0\60\0\0\0\1\0\0\0\0\0\0\0\4\0\0\0\1" ..
  "\0\0\0\68\0\0\0\2\0\0\0\1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
local V11_CBV_TABLE_SAMPLER =
  "\68\88\66\67\85\127\158\139\29\231\81\77\54\169\245\64\232\234\140\89\1\0\0\0\188\0" ..
  "\0\0\1\0\0\0\36\0\0\0\82\84\83\48\144\0\0\0\2\0\0\0\2\0\0\0\24\0\0\0\1\0\0\0\92\0\0" ..
  "\0\0\0\0\0\2\0\0\0\5\0\0\0\48\0\0\0\0\0\0\0\0\0\0\0\60\0\0\0\2\0\0\0\1\0\0\0\8\0\0\0" ..
  "\1\0\0\0\68\0\0\0\0\0\0\0\3\0\0\0\1\0\0\0\0\0\0\0\2\0\0\0\255\255\255\255\0\0\0\0\3" ..
  "\0\0\0\3\0\0\0\3\0\0\0\0\0\0\0\1\0\0\0\1\0\0\0\0\0\0\0\0\0\0\0\0\0\122\68\0\0\0\0\0" ..
  "\0\0\0\5\0\0\0"

local VS = pso.shader { bytes = "x" }

describe("root signatures", function()
  it("serializes like D3D12 (1.0, flags only)", function()
    local rs, warnings = pso.root_signature { version = "1.0", flags = "allow_input_assembler_input_layout" }
    expect(rs.kind).to_be("blob")
    expect(#warnings).to_be(0)
    expect(rs.bytes == EMPTY_IA).to_be(true)
  end)

  it("serializes like D3D12 (1.0, constants and a table)", function()
    local rs = pso.root_signature {
      version = "1.0",
      parameters = {
        { constants = { register = 1, count = 4 }, visibility = "vertex" },
        { table = { { cbv = { register = 0, offset = 0 } } } },
      },
    }
    expect(rs.bytes == V10_CONSTANTS_TABLE).to_be(true)
  end)

  it("serializes like D3D12 (1.1, flags on descriptors and ranges, a static sampler)", function()
    local rs = pso.root_signature {
      parameters = {
        { cbv = { register = 2, space = 1, flags = "data_static" }, visibility = "pixel" },
        { table = { { srv = { register = 1, count = 3, flags = { "data_volatile" } } } } },
      },
      static_samplers = {
        { filter = "min_mag_mip_point", address = "clamp", max_anisotropy = 1,
          comparison = "never", border = "transparent_black", max_lod = 1000,
          visibility = "pixel" },
      },
    }
    expect(rs.bytes == V11_CBV_TABLE_SAMPLER).to_be(true)
    expect(#rs).to_be(188)
  end)

  it("reads a blob back into a declaration that serializes to the same bytes", function()
    local decl = {
      version = "1.1",
      flags = { "allow_input_assembler_input_layout", "deny_hull_shader_root_access" },
      parameters = {
        { constants = { register = 0, count = 4 }, visibility = "vertex" },
        { uav = { register = 1, space = 2, flags = "data_volatile" } },
        { table = { { srv = { register = 0, count = "unbounded", flags = "descriptors_volatile" } } },
          visibility = "pixel" },
        { table = { { sampler = { register = 0, count = 2 } } }, visibility = "pixel" },
      },
      static_samplers = { { register = 4, filter = "comparison_min_mag_mip_linear",
                            address_u = "border", mip_lod_bias = -0.5 } },
    }
    local rs = pso.root_signature(decl)
    local back = pso.root_signature_desc(rs)
    expect(back.version).to_be("1.1")
    expect(back.flags).to_equal({ "allow_input_assembler_input_layout", "deny_hull_shader_root_access" })
    expect(back.parameters[3].table[1].srv.count).to_be("unbounded")
    expect(back.parameters[2].uav.flags).to_equal({ "data_volatile" })
    expect(back.static_samplers[1].address_u).to_be("border")
    expect(back.static_samplers[1].address_v).to_be("wrap")
    expect(back.static_samplers[1].mip_lod_bias).to_be(-0.5)
    expect(pso.root_signature(back).bytes == rs.bytes).to_be(true)
    local v10 = pso.root_signature_desc(pso.root_signature { version = 1.0, parameters = {
      { srv = { register = 3 } } } })
    expect(v10.version).to_be("1.0")
    expect(v10.parameters[1].srv.register).to_be(3)
  end)

  it("a pipeline carries it as SERIALIZED_ROOT_SIGNATURE", function()
    local rs = pso.root_signature { flags = "allow_input_assembler_input_layout",
                                    parameters = { { cbv = { register = 0 } } } }
    local p = pso.graphics { vs = VS, input_layout = { { "POSITION", "r32g32b32_float" } },
                             serialized_root_signature = rs }
    expect(p:subobjects()).to_contain("serialized_root_signature")
    expect(p.serialized_root_signature == rs).to_be(true)
    expect(p.serialized_root_signature.bytes == rs.bytes).to_be(true)
    local c = pso.compute { cs = pso.shader { bytes = "y" }, serialized_root_signature = rs }
    expect(c.serialized_root_signature.size).to_be(rs.size)
  end)

  it("is carried by name", function()
    local rs = pso.root_signature { name = "lit", parameters = { { srv = { register = 0 } } } }
    expect(pso.named_root_signature("lit") == rs).to_be(true)
    expect(pso.named_root_signature("unlit")).to_be_nil()
    local p = pso.graphics { vs = VS, root_signature = "lit" }
    expect(p.root_signature).to_be("lit")
    fails("return pso.root_signature { name = 'lit' }", "mat.lua:2:", "name: a root signature named 'lit' is already declared")
  end)

  it("returns warnings in the declaration's spelling", function()
    local _, warnings = pso.root_signature { parameters = { { cbv = { register = 0 } }, { table = {} } } }
    expect(#warnings).to_be(1)
    expect(warnings[1].severity).to_be("warning")
    expect(warnings[1].field).to_be("parameters[2].table")
  end)

  it("unknown keys and values, with suggestions", function()
    fails("return pso.root_signature { paramters = {} }", "mat.lua:2:", "pso.root_signature: unknown key 'paramters'", "parameters")
    fails("return pso.root_signature { parameters = { { cbv = {}, visibility = 'pixle' } } }",
          "mat.lua:2:", "parameters[1].visibility: unknown shader_visibility 'pixle'", "pixel")
    fails("return pso.root_signature { parameters = { { table = { { srv = { regster = 1 } } } } } }",
          "mat.lua:2:", "parameters[1].table[1].srv: unknown key 'regster'", "register")
    fails("return pso.root_signature { flags = { 'allow_input_layout' } }",
          "mat.lua:2:", "flags[1]: unknown root_signature_flags 'allow_input_layout'")
    fails("return pso.root_signature { static_samplers = { { filter = 'linear' } } }",
          "mat.lua:2:", "static_samplers[1].filter: unknown filter 'linear'")
    fails("return pso.root_signature { parameters = { { table = { { texture = {} } } } } }",
          "mat.lua:2:", "parameters[1].table[1]: unknown key 'texture'")
  end)

  it("wrong shapes and types", function()
    fails("return pso.root_signature 'x'", "mat.lua:2:", "expected a table")
    fails("return pso.root_signature { version = '1.2' }", "version: expected \"1.0\" or \"1.1\"")
    fails("return pso.root_signature { parameters = { { visibility = 'all' } } }",
          "parameters[1]: give exactly one of constants, cbv, srv, uav, table")
    fails("return pso.root_signature { parameters = { { cbv = {}, srv = {} } } }",
          "parameters[1]: give exactly one of")
    fails("return pso.root_signature { parameters = { { cbv = { register = -1 } } } }",
          "parameters[1].cbv.register: expected an integer from 0 to 4294967295")
    fails("return pso.root_signature { parameters = { { cbv = { register = 1.5 } } } }",
          "parameters[1].cbv.register: expected an integer")
    fails("return pso.root_signature { parameters = { { constants = { register = 0 } } } }",
          "parameters[1].constants: count (the number of 32-bit values) is required")
    fails("return pso.root_signature { parameters = { { table = { { srv = { count = 'all' } } } } } }",
          "parameters[1].table[1].srv.count: expected a number or \"unbounded\"")
    fails("return pso.root_signature { parameters = { x = 1 } }", "parameters: expected a list")
    fails("return pso.root_signature { version = '1.0', parameters = { { cbv = { flags = 'data_static' } } } }",
          "parameters[1].cbv.flags: flags need version = \"1.1\"")
  end)

  it("D3D12's rules, at the field that breaks them", function()
    fails("return pso.root_signature { parameters = {\n { cbv = { register = 1 } },\n { table = { { cbv = { register = 0, count = 2 } } } } } }",
          "mat.lua:2:", "parameters[1]: CBV register range b1 (space 0, visibility all)",
          "overlaps parameters[2].table[1]'s b0-b1")
    fails("return pso.root_signature { parameters = { { table = { { srv = { count = 0 } } } } } }",
          "parameters[1].table[1].srv.count: a descriptor range must hold at least one descriptor")
    fails("return pso.root_signature { parameters = { { table = { { srv = {} }, { sampler = {} } } } } }",
          "parameters[1].table: a descriptor table mixes sampler ranges with CBV/SRV/UAV ranges")
    fails("return pso.root_signature { parameters = { { table = { { srv = { count = 'unbounded' } }, { uav = {} } } } } }",
          "parameters[1].table[2].uav.offset: appended after range")
    fails("return pso.root_signature { parameters = { { constants = { count = 65 } } } }",
          "parameters: the root arguments take 65 DWORDs")
    fails("return pso.root_signature { parameters = { { table = { { sampler = { flags = 'data_static' } } } } } }",
          "parameters[1].table[1].sampler.flags: a sampler range takes only descriptors_volatile")
    fails("return pso.root_signature { static_samplers = { { max_anisotropy = 17 } } }",
          "static_samplers[1].max_anisotropy: max anisotropy 17 is above 16")
    fails("return pso.root_signature { static_samplers = { { space = 4294967295 } } }",
          "static_samplers[1].space: register space 0xffffffff is reserved")
  end)
end)
