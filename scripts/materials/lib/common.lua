-- lib/common.lua: what the example materials share (loaded with
-- `require "lib.common"`; modules resolve inside the material roots).
--
-- Demonstrates: a plain Lua module for a material library, presets of
-- your own with pso.preset (immutable; `psoc explain` names them), and
-- shared input layouts and render-target formats.
local pso = require "pso"

local M = {}

-- The forward renderer's targets: HDR colour plus a normal buffer, and a
-- reverse-Z depth buffer (near = 1, far = 0: depth tests use greater_equal).
M.targets = { "R11G11B10_FLOAT", "R8G8B8A8_UNORM" }
M.hdr_target = { "R16G16B16A16_FLOAT" }
M.depth_format = "D32_FLOAT"

-- Vertex formats.
M.static_mesh = {
  { "POSITION", "R32G32B32_FLOAT" },
  { "NORMAL",   "R32G32B32_FLOAT" },
  { "TANGENT",  "R32G32B32A32_FLOAT" },
  { "TEXCOORD", "R32G32_FLOAT", index = 0 },
}
M.position_only = {
  { "POSITION", "R32G32B32_FLOAT" },
}

-- A preset of the project's own: reverse-Z depth test, read only (for
-- transparent surfaces drawn after the opaque pass).
M.depth_read_only_reverse_z = pso.preset("common.depth_read_only_reverse_z", {
  depth = true, write = false, func = "greater_equal",
})

-- Shaders by base name: shader "lit.vs" -> shaders/lit.vs.cso
function M.shader(name)
  return pso.shader("shaders/" .. name .. ".cso")
end

return M
