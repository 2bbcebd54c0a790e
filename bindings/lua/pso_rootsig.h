/*
** pso_rootsig.h: root signatures in the material language (pso_rootsig.c).
**
**   pso.root_signature { ... }       -> a blob (the serialized root
**                                       signature) and a list of warnings
**   pso.root_signature_desc(blob)    -> the declaration table of a blob
**   pso.named_root_signature(name)   -> the blob declared with that name
*/
#ifndef PSO_ROOTSIG_H
#define PSO_ROOTSIG_H

#include <stddef.h>

#include "lua.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Add the functions above to the module table at module_idx (luaopen_pso). */
void psoi_open_rootsig(lua_State *L, int module_idx);

/* The serialized root signature a script of this state declared with
** name = NAME (the bytes D3D12 takes, e.g. for CreateRootSignature when a
** pipeline says root_signature = NAME), or NULL. Valid while the state
** lives. */
const void *pso_named_root_signature(lua_State *L, const char *name, size_t *size);

#ifdef __cplusplus
}
#endif

#endif
