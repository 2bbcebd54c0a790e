; lit.ps: writes both forward targets (lib/common.lua's targets: HDR colour
; and a normal buffer): a constant albedo and the normal mapped to 0..1.
ps_5_0
input  SV_Position v0.xyzw
input  NORMAL      v1.xyz
input  TEXCOORD    v2.xy
output SV_Target0  o0.xyzw
output SV_Target1  o1.xyzw
mov o0.xyzw, l(0.8, 0.7, 0.6, 1.0)
mad o1.xyz, v1.xyzx, l(0.5, 0.5, 0.5, 0.0), l(0.5, 0.5, 0.5, 0.0)
mov o1.w, l(1.0)
ret
