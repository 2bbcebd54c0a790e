; particles.gs: one point in, the advanced particle out (stream 0, which
; particles.lua streams out as POSITION, VELOCITY, AGE), plus SV_Position
; for the variant that also rasterizes stream 0.
gs_5_0
dcl_input_primitive point
dcl_output_topology pointlist
dcl_max_vertices 1
input  POSITION v0.xyz
input  VELOCITY v1.xyz
input  AGE      v2.x
output SV_Position o0.xyzw
output POSITION    o1.xyz
output VELOCITY    o2.xyz
output AGE         o3.x
add r0.xyz, v[0][0].xyzx, v[0][1].xyzx
mov o0.xyz, r0.xyzx
mov o0.w, l(1.0)
mov o1.xyz, r0.xyzx
mov o2.xyz, v[0][1].xyzx
add o3.x, v[0][2].x, l(0.016)
emit
ret
