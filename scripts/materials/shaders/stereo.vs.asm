; stereo.vs: the stereo pass's vertex shader (static_mesh layout).
vs_5_0
; the pipeline's root signature, embedded (the engine's named one
; replaces it when it sets pRootSignature)
root_signature allow_input_layout
input  POSITION v0.xyz
input  NORMAL   v1.xyz
input  TANGENT  v2.xyzw
input  TEXCOORD v3.xy
output SV_Position o0.xyzw
output TEXCOORD    o1.xy
mov o0.xyz, v0.xyzx
mov o0.w, l(1.0)
mov o1.xy, v3.xyxx
ret
