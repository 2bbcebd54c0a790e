; color.vs: the device suite's vertex shader: position (w = 1) and colour
; through. Embeds the "ia" root signature's shape (input layout allowed).
vs_5_0
root_signature allow_input_layout
input  POSITION v0.xyz
input  COLOR    v1.xyzw
output SV_Position o0.xyzw
output COLOR       o1.xyzw
mov o0.xyz, v0.xyzx
mov o0.w, l(1.0)
mov o1.xyzw, v1.xyzw
ret
