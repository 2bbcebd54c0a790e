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
** psoc_stream_free it. Its shader bytecode and blobs are borrowed from the
** state (the pso.shader and pso.blob objects, which the pipeline keeps
** alive), so psoc_stream_copy of it is valid only while the pipeline is;
** pso_pipeline_copy_stream makes a copy that outlives the state. */
PSOL_API pso_pipeline *pso_topipeline(lua_State *L, int idx);
PSOL_API const psoc_stream *pso_pipeline_stream(const pso_pipeline *p);
/* ---- self-contained copies (owner s3) ---- */
/* A self-contained copy of the pipeline's stream (everything it points to
** copied in, the borrowed shader and blob bytes too), allocated with
** 'alloc' (NULL: malloc) in one block that psoc_stream_free releases; the
** stream bytes and hash are those of the original. L is the pipeline's
** state (its builder does the copy). PSOC_ERR_NOMEM when 'alloc' fails. */
PSOL_API psoc_status pso_pipeline_copy_stream(lua_State *L, const pso_pipeline *p,
                                              const psoc_allocator *alloc, psoc_stream **out);
/* An upper bound of the bytes that copy takes (its footprint). */
PSOL_API size_t pso_pipeline_copy_size(const pso_pipeline *p);
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

/* ---- where things were declared and went wrong (data, not text) ------ */

/* A place in a script. */
typedef struct pso_site {
  /* The chunk: its file for "@file" chunks, the name for "=name" chunks,
  ** Lua's short form ([string "..."]) for string chunks; NULL: unknown. */
  const char *source;
  int line; /* 0: unknown */
} pso_site;

/* Where the pipeline was declared: the line of its pso.graphics, mesh,
** compute or derive call in the first Lua function on the stack (the
** shared module's factory when a material called one). {NULL, 0} for a
** pipeline made by pso_push_pipeline. Valid while the pipeline is. */
PSOL_API pso_site pso_pipeline_site(const pso_pipeline *p);

/* One error the module raised, as data. */
typedef struct pso_error {
  pso_site site;       /* the offending key's line inside the declaration's
                          table constructor when known, else the call's */
  pso_site from;       /* the outermost Lua caller in another file (the
                          material that called a shared module's factory),
                          or {NULL, 0} */
  const char *field;   /* the material's field path ("rasterizer.cull"),
                          "" when the error is not about one field */
  const char *message; /* the message alone: no position, no field path */
} pso_error;

/* The errors behind the error value at idx when this state's pso module
** raised it (a declaration, pso.derive, a preset, a method): the value is
** the message the module raised, or starts with it and a newline (a
** traceback appended). Fills at most max entries of out, in the order the
** message lists them (source order for the several errors of one
** declaration), and returns how many there are: 0 when the value is not
** the module's last error (another error was raised since, or the script
** raised its own). The strings stay valid until the module raises its
** next error in this state. No Lua error is raised. */
PSOL_API size_t pso_error_info(lua_State *L, int idx, pso_error *out, size_t max);

/* ---- explain: counts and where values came from (owner s7) ----------- */

/* The number of subobjects in the pipeline's stream (what the builder
** added; psoc_parsed.count of its stream), without walking it. */
PSOL_API uint32_t pso_pipeline_subobjects(const pso_pipeline *p);

/* Where the values of one class of a pipeline came from: per byte of the
** payload its stream holds for the class (psoc_explain_row.offset indexes
** it), the declaration that set it. */
#define PSO_ORIGIN_BYTES 512
typedef struct pso_origins {
  /* 0: a field the declaration left to the runtime's default; else the
  ** index of its text in text[] */
  uint8_t label[PSO_ORIGIN_BYTES];
  /* text[i] for label i ("script", "preset blend.opaque", "base lit"):
  ** valid while the value pso_pipeline_origins pushed stays reachable;
  ** NULL where unknown */
  const char *text[256];
  size_t text_count;
  /* 0: the declaration table was modified after the pipeline was declared,
  ** so the labels cannot be trusted */
  int known;
} pso_origins;

/* Fill 'out' for class 'dup_class' (a base type, e.g. PSOC_SO_RASTERIZER)
** of the pipeline at idx, as p:explain() labels its rows; a class the
** stream lacks has every label 0. Pushes one value that keeps out->text
** alive (pop it when done) and returns 1; or returns 0 with an error
** message pushed (not a pipeline, not a class, out of memory). Runs
** protected: raises no Lua error. */
PSOL_API int pso_pipeline_origins(lua_State *L, int idx, uint32_t dup_class, pso_origins *out);

#ifdef __cplusplus
}
#endif

#endif
