; stereo.ps: one R11G11B10_FLOAT target.
ps_5_0
input  SV_Position v0.xyzw
input  TEXCOORD    v1.xy
output SV_Target0  o0.xyzw
mov o0.xy, v1.xyxx
mov o0.zw, l(0, 0, 0.5, 1.0)
ret
