/*
** dxbc_asm.h: a small assembler for Direct3D shader model 4/5 bytecode
** (DXBC containers with ISGN/OSGN signatures and an SHDR/SHEX program),
** signed with psoc's container checksum (psoc_dxbc_checksum in src/dxbc.c).
**
** It is meant for the project's example and test shaders: a few dozen
** instructions each, no compiler needed. The language (docs in
** docs/dxbc_asm.md) is one statement a line, ';' or '//' starts a comment:
**
**   vs_5_0                          target: vs/ps/gs/cs _4_0 .. _5_0
**   input  POSITION v0.xyzw         a signature element; the register
**   input  SV_InstanceID v2.x uint  declaration (dcl_input*, its system
**   output SV_Position o0.xyzw      value and interpolation) follows from
**   output COLOR o1.xyzw            the name, the stage and the type
**   mov o0.xyzw, v0.xyzw            instructions: mov add mul mad dp4 ret
**   add o1.xy, v1.xyxx, l(0.5, 0.5, 0, 0)       emit cut store_raw
**   ret
**   root_signature allow_input_layout   an embedded root signature (RTS0,
**   root_parameter uav u0               version 1.0): flags, then root
**                                       constants/cbv/srv/uav parameters
**
** Targets ms_6_5 / as_6_5 / ps_6_5 ... (shader model 6) produce a DXIL
** container with ISG1/OSG1 signatures and a DXIL part that holds only the
** bitcode wrapper header, no LLVM module: structurally valid for psoc's
** checks, not runnable on any device (say so where such files live).
**
** The assembler allocates its output with malloc, never prints and never
** aborts; errors come back as "line N: message".
*/
#ifndef PSOC_DXBC_ASM_H
#define PSOC_DXBC_ASM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dxbc_asm_blob {
  unsigned char *data;
  size_t size;
} dxbc_asm_blob;

/* Assemble 'len' bytes of source. Returns 0 and sets *out (free it with
** dxbc_asm_free), or -1 with a message in err (always NUL-terminated when
** errlen > 0) and *out empty. */
int dxbc_asm(const char *src, size_t len, dxbc_asm_blob *out, char *err, size_t errlen);
void dxbc_asm_free(dxbc_asm_blob *blob);

#ifdef __cplusplus
}
#endif

#endif
