/*
** pso_declare.h: layer 7 of the pso module (pso_declare.c): declaring
** pipelines (pso.graphics, pso.mesh, pso.compute) and deriving them
** (pso.derive). Uses the layers below: pso_context, pso_convert (tables ->
** payloads) and pso_pipeline (the objects it creates).
*/
#ifndef PSO_DECLARE_H
#define PSO_DECLARE_H

#include "pso_context.h"

/* pso.graphics/mesh/compute: convert the declaration at decl_idx and push
** the pipeline. Errors are raised at the caller's line. */
int psoi_declare(lua_State *L, psoc_kind kind, int decl_idx);
/* pso.graphics/mesh/compute as the module exposes them: psoi_declare on
** argument 1; when its conversion fails, every top-level key is converted
** on its own too (protected), and all their errors are raised together
** (one per line, each with its own location; the first error alone when
** there is only one). A declaration that succeeds runs unprotected. */
int psoi_declare_all(lua_State *L, psoc_kind kind);
/* pso.derive */
int psoi_derive(lua_State *L, int base_idx, int overrides_idx);

#endif
