; store.cs: writes 0xc0ffee to word 0 of the raw UAV u0 (root UAV of the
; "uav0" root signature, embedded here too).
cs_5_0
root_signature
root_parameter uav u0
dcl_uav_raw u0
dcl_thread_group 1, 1, 1
store_raw u0.x, l(0), l(0xc0ffee)
ret
