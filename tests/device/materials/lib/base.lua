-- lib/base.lua: the device suite's base pipeline: colour VS and PS, one
-- R8G8B8A8_UNORM target, no depth, no culling surprises (cull back, the
-- runtime default), the "ia" root signature (created by the suite).
local pso = require "pso"

local M = {}

M.layout = {
  { "POSITION", "R32G32B32_FLOAT" },
  { "COLOR",    "R32G32B32A32_FLOAT" },
}

M.base = pso.graphics {
  name = "base",
  root_signature = "ia",
  vs = pso.shader "shaders/color.vs.cso",
  ps = pso.shader "shaders/color.ps.cso",
  input_layout = M.layout,
  topology = "triangle",
  render_targets = { "R8G8B8A8_UNORM" },
}

-- pso.derive(base, fields) with the name set.
function M.case(name, fields)
  fields.name = name
  return pso.derive(M.base, fields)
end

return M
