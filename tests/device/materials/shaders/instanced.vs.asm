; instanced.vs: per-vertex position plus a per-instance offset and colour.
vs_5_0
root_signature allow_input_layout
input  POSITION v0.xyz
input  OFFSET   v1.xy
input  COLOR    v2.xyzw
output SV_Position o0.xyzw
output COLOR       o1.xyzw
add o0.xy, v0.xyxx, v1.xyxx
mov o0.z, v0.z
mov o0.w, l(1.0)
mov o1.xyzw, v2.xyzw
ret
