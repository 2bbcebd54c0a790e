; meshlet.ms: NOT RUNNABLE (DXIL without a module, see meshlet.as.asm).
; Its output signature is what meshlet.ps reads.
ms_6_5
; embedded root signature (no input assembler in a mesh pipeline)
root_signature
output SV_Position o0.xyzw
output NORMAL      o1.xyz
