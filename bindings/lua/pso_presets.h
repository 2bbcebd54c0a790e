/*
** pso_presets.h: layer 3 of the pso module (pso_presets.c): the built-in
** presets, constant data shared by every state (each state makes a preset
** when a script first names it). Uses pso_values (presets and namespaces
** are its immutable proxies).
*/
#ifndef PSO_PRESETS_H
#define PSO_PRESETS_H

#include "pso_context.h"

/* Install pso.blend, pso.rasterizer, pso.depth into the module table at
** module_idx (pso.preset must already be there). */
void psoi_open_presets(lua_State *L, int module_idx);

#endif
