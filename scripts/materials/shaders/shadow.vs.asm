; shadow.vs: depth-only pass, position in (lib/common.lua's position_only).
vs_5_0
; the pipeline's root signature, embedded (the engine's named one
; replaces it when it sets pRootSignature)
root_signature allow_input_layout
input  POSITION v0.xyz
output SV_Position o0.xyzw
mov o0.xyz, v0.xyzx
mov o0.w, l(1.0)
ret
