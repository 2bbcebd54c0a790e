-- blend.lua: every blend preset, factor/op combinations, write masks and
-- logic ops.
local pso = require "pso"
local b = require "lib.base"
local C = b.case
return {
  C("blend_opaque", { blend = pso.blend.opaque }),
  C("blend_alpha", { blend = pso.blend.alpha }),
  C("blend_premultiplied", { blend = pso.blend.premultiplied }),
  C("blend_additive", { blend = pso.blend.additive }),
  C("blend_multiply", { blend = pso.blend.multiply }),
  C("blend_subtract", { blend = { enable = true, src = "one", dst = "one", op = "subtract" } }),
  C("blend_rev_subtract", { blend = { enable = true, src = "one", dst = "one", op = "rev_subtract" } }),
  C("blend_min", { blend = { enable = true, src = "one", dst = "one", op = "min" } }),
  C("blend_max", { blend = { enable = true, src = "one", dst = "one", op = "max" } }),
  C("blend_factor", { blend = { enable = true, src = "blend_factor", dst = "inv_blend_factor" } }),
  C("blend_inv_dest_color", { blend = { enable = true, src = "inv_dest_color", dst = "zero" } }),
  C("write_mask_r", { blend = { write_mask = "r" } }),
  C("write_mask_ga", { blend = { write_mask = "ga" } }),
  C("write_mask_none", { blend = { write_mask = 0 } }),
  C("logic_xor", { ps = pso.shader "shaders/uint.ps.cso", render_targets = { "R8G8B8A8_UINT" },
                   blend = { logic_op_enable = true, logic_op = "xor" } }),
  C("logic_and", { ps = pso.shader "shaders/uint.ps.cso", render_targets = { "R8G8B8A8_UINT" },
                   blend = { logic_op_enable = true, logic_op = "and" } }),
  C("logic_or", { ps = pso.shader "shaders/uint.ps.cso", render_targets = { "R8G8B8A8_UINT" },
                  blend = { logic_op_enable = true, logic_op = "or" } }),
  C("logic_copy_inverted", { ps = pso.shader "shaders/uint.ps.cso", render_targets = { "R8G8B8A8_UINT" },
                             blend = { logic_op_enable = true, logic_op = "copy_inverted" } }),
}
