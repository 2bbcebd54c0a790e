; cull.cs: the culling kernel's shape (64 threads a group); the real
; culling work is the engine's, this one returns.
cs_5_0
; embedded root signature: the debug buffer u0 (unused here)
root_signature
root_parameter uav u0
dcl_thread_group 64, 1, 1
ret
