; meshlet.ps: NOT RUNNABLE (DXIL without a module, see meshlet.as.asm): a
; mesh pipeline's pixel shader is shader model 6 as well. Two targets
; (lib/common.lua's targets).
ps_6_5
input  SV_Position v0.xyzw
input  NORMAL      v1.xyz
output SV_Target0  o0.xyzw
output SV_Target1  o1.xyzw
