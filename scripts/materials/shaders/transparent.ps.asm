; transparent.ps: one HDR target, half-transparent colour for alpha blending.
ps_5_0
input  SV_Position v0.xyzw
input  NORMAL      v1.xyz
input  TEXCOORD    v2.xy
output SV_Target0  o0.xyzw
mov o0.xyzw, l(0.2, 0.4, 0.9, 0.5)
ret
