-- The material every consumer evaluates (C through psol.h, each Lua through
-- require "pso"); they all print its canonical hash, which must agree.
local pso = require "pso"

return pso.graphics {
  name = "consumer_lit",
  root_signature = "forward",
  vs = pso.shader { bytes = "not really DXBC: consumers never create the pipeline" },
  input_layout = {
    { "POSITION", "R32G32B32_FLOAT" },
    { "TEXCOORD", "R32G32_FLOAT", index = 0 },
  },
  rasterizer = { cull = "none", depth_bias = 0.5 },
  blend = pso.blend.alpha,
  depth_stencil = pso.depth.reverse_z,
  render_targets = { "R16G16B16A16_FLOAT" },
  depth_format = "D32_FLOAT",
  sample_desc = 4,
}
