; shadow_alpha.ps: the alpha-tested shadow variant's pixel shader. It writes
; no colour (the pipeline has no render targets); reads only SV_Position,
; which shadow.vs writes.
ps_5_0
input SV_Position v0.xyzw
ret
