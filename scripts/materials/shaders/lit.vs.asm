; lit.vs: the forward renderer's vertex shader (lit.lua, transparent.lua).
; Inputs match lib/common.lua's static_mesh layout; the position goes out
; unchanged (w = 1), normal and texture coordinates pass through.
vs_5_0
; the pipeline's root signature, embedded (the engine's named one
; replaces it when it sets pRootSignature)
root_signature allow_input_layout
input  POSITION v0.xyz
input  NORMAL   v1.xyz
input  TANGENT  v2.xyzw
input  TEXCOORD v3.xy
output SV_Position o0.xyzw
output NORMAL      o1.xyz
output TEXCOORD    o2.xy
mov o0.xyz, v0.xyzx
mov o0.w, l(1.0)
mov o1.xyz, v1.xyzx
mov o2.xy, v3.xyxx
ret
