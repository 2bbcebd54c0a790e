; mrt.ps: two render targets: the colour, and the colour with red and blue
; swapped.
ps_5_0
input  SV_Position v0.xyzw
input  COLOR       v1.xyzw
output SV_Target0  o0.xyzw
output SV_Target1  o1.xyzw
mov o0.xyzw, v1.xyzw
mov o1.xyzw, v1.zyxw
ret
