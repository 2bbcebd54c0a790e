; particles.ps: additive particle colour into R16G16B16A16_FLOAT.
ps_5_0
input  SV_Position v0.xyzw
output SV_Target0  o0.xyzw
mov o0.xyzw, l(1.0, 0.5, 0.1, 1.0)
ret
