local pso = require "pso"
local m = pso.mesh { name = "m", as = pso.shader { bytes = "as" }, ms = pso.shader { bytes = "ms" }, ps = pso.shader { bytes = "ps" },
  render_targets = { "r8g8b8a8_unorm" }, rasterizer = { cull = "none" } }
local c = pso.compute { name = "c", root_signature = "cs", cs = pso.shader { bytes = "cs" }, node_mask = 0, flags = 0 }
return { m, c, pso.derive(c, { name = "c2", cs = pso.shader { bytes = "cs2" } }) }
