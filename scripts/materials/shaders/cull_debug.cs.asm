; cull_debug.cs: the debug build of the culling kernel: one thread writes a
; marker into the raw UAV u0 (the "culling" root signature's debug buffer).
cs_5_0
; embedded root signature: the debug buffer u0
root_signature
root_parameter uav u0
dcl_uav_raw u0
dcl_thread_group 1, 1, 1
store_raw u0.x, l(0), l(0xc0ffee)
ret
