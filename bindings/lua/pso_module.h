/*
** pso_module.h: the `pso` Lua module, seen from C.
**
** luaopen_pso() opens the material language (see DESIGN.md section 3 and
** the comment at the top of pso.c) in a lua_State; the functions below
** let an embedder (the sandbox, the CLI, an engine) install hooks and get
** at the streams of the pipelines a script returned.
**
** Memory: every psoc allocation made on behalf of a state goes through the
** state's lua_Alloc (as returned by lua_getallocf when the module is first
** opened), so an allocator that enforces a memory limit bounds them too.
*/
#ifndef PSO_MODULE_H
#define PSO_MODULE_H

#include "lua.h"
#include "psoc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* require "pso": pushes the module table. Safe to call more than once per
** state (the per-state context is shared). */
PSO_MODULE_API int luaopen_pso(lua_State *L);

typedef struct pso_hooks {
  /* Read a file named by a script (pso.shader / pso.blob). Push the
  ** contents as a Lua string and return 1, or push an error message and
  ** return 0. NULL hook: read relative to the current directory with
  ** fopen (no sandboxing: install a hook for untrusted scripts). */
  int (*read_file)(void *ud, lua_State *L, const char *path);
  /* Resolve a root-signature name to a pointer. NULL hook or NULL
  ** result: the pointer stays NULL and the name is kept. */
  void *(*resolve_root_signature)(void *ud, const char *name);
  void *ud;
} pso_hooks;

/* Stored per state (copied); NULL restores the defaults. May be called
** before or after luaopen_pso. */
PSOL_API void pso_set_hooks(lua_State *L, const pso_hooks *hooks);

/* Remember the source text of a chunk loaded under 'chunkname' ("@file"
** or "=name"; other names are the text itself already) so that errors
** inside a table constructor can name the line of the offending key, not
** only the line of the call. The sandbox calls it for every chunk it
** loads. Kept in the state's registry (its memory counts as the state's). */
PSOL_API void pso_remember_source(lua_State *L, const char *chunkname, const char *src, size_t len);

typedef struct pso_pipeline pso_pipeline;

/* The pipeline at idx, or NULL if the value there is not a pipeline. The
** pointer (and everything it hands out) stays valid while the Lua value is
** reachable. The stream lives inside the pipeline's userdata: never
** psoc_stream_free it; psoc_stream_copy it to keep it longer. */
PSOL_API pso_pipeline *pso_topipeline(lua_State *L, int idx);
PSOL_API const psoc_stream *pso_pipeline_stream(const pso_pipeline *p);
/* The pipeline's name, or NULL when the script gave none. */
PSOL_API const char *pso_pipeline_name(const pso_pipeline *p);
/* The root-signature name, or NULL (none given, or given as a pointer). */
PSOL_API const char *pso_pipeline_root_signature(const pso_pipeline *p);
PSOL_API psoc_kind pso_pipeline_kind(const pso_pipeline *p);
/* Push a new pipeline holding a copy of 'stream' (a stream psoc made, e.g.
** the stream of a pipeline of another state), with its kind, name (NULL:
** unnamed) and root-signature name (NULL: none). It reads back, hashes,
** checks and derives like the original; its declaration (pso.derive,
** explain) is what p:table() gives. The pso module must be open in L.
** Raises a Lua error when the stream does not parse or memory runs out. */
PSOL_API pso_pipeline *pso_push_pipeline(lua_State *L, const psoc_stream *stream, psoc_kind kind,
                                         const char *name, const char *root_signature);

/* The psoc_check flags every stream of a pipeline can be checked with:
** the module filled in the input-layout, stream-output and view-instancing
** arrays itself, so the input-layout rules that need no shader run on every
** script check (shader bytecode and blobs still need
** PSOC_CHECK_FOLLOW_POINTERS, psoc check --deep). */
#define PSO_PIPELINE_CHECK_FLAGS PSOC_CHECK_FOLLOW_LAYOUT

/* The material language's path of a diagnostic's D3D12 field, for script
** mode: "RENDER_TARGET_FORMATS.RTFormats[0]" -> "render_targets[1]",
** "DEPTH_STENCIL_FORMAT" -> "depth_format", "BLEND.RenderTarget[1].SrcBlend"
** -> "blend.render_targets[2].src". A field it cannot map is copied
** unchanged. Writes at most n bytes (NUL included); returns the length. */
PSOL_API size_t pso_field_path(const char *field, char *out, size_t n);

/* Check a material script's result at idx: a pipeline, or a list of
** pipelines in which no two share a name (unnamed ones never clash).
** Returns 1 (nothing pushed), or 0 with the reason pushed as a string
** ("result[3]: two pipelines are named 'lit' (result[1] and result[3]);
** ..."), for the embedder to prefix with the script's name. Work and
** memory are linear in the list (a Lua table in the state). */
PSOL_API int pso_check_result(lua_State *L, int idx);
/* Canonical hash: psoc_hash with PSOC_FOLLOW_POINTERS and the
** root-signature name in place of the pointer (what p:hash() prints). */
PSOL_API psoc_hash128 pso_pipeline_hash(const pso_pipeline *p);

#ifdef __cplusplus
}
#endif

#endif
