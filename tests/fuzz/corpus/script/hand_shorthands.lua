local pso = require "pso"
return {
  pso.graphics { vs = pso.shader { bytes = "a" }, sample_desc = 1, render_targets = { "R8G8B8A8_UNORM" },
    blend = { enable = true, src = "D3D12_BLEND_SRC_ALPHA", dst = "inv_src_alpha", write_mask = "rgb" },
    rasterizer = { CullMode = "D3D12_CULL_MODE_NONE", FillMode = "WIREFRAME", depth_bias = 0.5 },
    depth_stencil = { DepthEnable = true, depth_bounds = false }, topology = "line", flags = 0 },
  pso.graphics { vs = pso.shader { bytes = "b" }, input_layout = { { "COLOR", "r8g8b8a8_unorm" } },
    depth_stencil = { front = { write_mask = 1 }, back = { write_mask = 2 } } },
}
