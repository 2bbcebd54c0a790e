; particles.vs: passes the particle (particles.lua's layout) to the GS.
vs_5_0
; embedded root signature: input layout and stream output
root_signature allow_input_layout allow_stream_output
input  POSITION v0.xyz
input  VELOCITY v1.xyz
input  AGE      v2.x
output POSITION o0.xyz
output VELOCITY o1.xyz
output AGE      o2.x
mov o0.xyz, v0.xyzx
mov o1.xyz, v1.xyzx
mov o2.x, v2.x
ret
