; meshlet.as: NOT RUNNABLE. Amplification shaders need DXIL (shader model
; 6.5) and this project has no DXIL compiler: the container is structurally
; valid (signed, ISG1/OSG1, a DXIL part with an empty bitcode wrapper) so
; psoc checks it, but no device can create it.
as_6_5
