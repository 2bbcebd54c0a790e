; color.ps: writes the interpolated vertex colour to render target 0.
ps_5_0
input  SV_Position v0.xyzw
input  COLOR       v1.xyzw
output SV_Target0  o0.xyzw
mov o0.xyzw, v1.xyzw
ret
