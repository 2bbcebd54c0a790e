; uint.ps: a constant integer colour for the logic-op cases (UINT target).
ps_5_0
input  SV_Position v0.xyzw
input  COLOR       v1.xyzw
output SV_Target0  o0.xyzw uint
mov o0.xyzw, l(0xf0, 0x0f, 0xff, 0x00)
ret
