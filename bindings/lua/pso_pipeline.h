/*
** pso_pipeline.h: layer 5 of the pso module (pso_pipeline.c): pipeline
** objects (a userdata holding its stream), their fields and methods, and
** the declarations a pipeline remembers (its own table, or for a derived
** one its overrides and its base). Uses pso_context, pso_values and
** pso_convert.
*/
#ifndef PSO_PIPELINE_H
#define PSO_PIPELINE_H

#include "pso_convert.h"

struct pso_pipeline {
  psoc_stream *stream;     /* inside this userdata (after strings[]); its
                              blob-only subobjects (shaders, cached PSOs)
                              point at bytes it borrows (lent > 0) */
  const char *name;        /* into strings[], or NULL */
  const char *root_signature; /* into strings[], or NULL */
  const char *source;      /* declared in (pso_site): into strings[], or NULL */
  int line;                /* declared at (0: unknown) */
  psoc_hash128 hash;
  uint32_t count;          /* subobjects in the stream */
  uint8_t kind;            /* psoc_kind */
  uint8_t derived;         /* user value: {overrides, base} instead of the
                              declaration table */
  uint8_t hash_valid;
  size_t lent;             /* an upper bound of the bytes the stream borrows
                              from blob objects and base pipelines (0: self-
                              contained), kept alive by the user value */
  char strings[];
};

/* A pipeline's user values (compat.h: inline in Lua 5.4, a table before):
** [1] its declaration table (a derived pipeline's: its overrides), [2] the
** base pipeline (derived only), [3..] the shader and blob objects whose
** bytes the stream borrows. */

/* Push a new pipeline userdata, metatable set, with room for a stream of
** stream_cap bytes after its strings (*stream_mem, 16-aligned). The stream
** lives inside the userdata: the GC frees it, no __gc. site: where it was
** declared (copied; NULL: unknown). nuv: its number of user values (at
** least 1; all nil). */
pso_pipeline *psoi_pipeline_new(lua_State *L, int keys_idx, psoc_kind kind, const char *name,
                                size_t name_len, const char *rs, size_t rs_len,
                                const pso_site *site, size_t stream_cap,
                                unsigned char **stream_mem, int nuv);
/* Metatable and methods (closures over the context and K). */
void psoi_open_pipeline(lua_State *L, int ctx_idx, int keys_idx);
/* Diagnostics as a Lua list of { severity, code, message_id, field,
** message, subobject, offset } tables; with 'keys', field is the
** material's path (pso_field_path) and member the D3D12 one. */
void psoi_push_diags(lua_State *L, const psoc_diags *diags, int keys);

/* The pipeline's name for messages: its name or "(unnamed)". */
const char *psoi_pipeline_label(const pso_pipeline *p);
/* The values class 'cls' has in the declarations of the pipeline at
** pipe_idx (its own first, then its base's, at layers layer, layer + 1,
** ...; own_label for its own), pushed on the stack and stored in out[];
** returns how many (at most one per layer; 0 when a layer removed it with
** pso.none). */
int psoi_pipeline_sources(psoi_cv *c, int pipe_idx, uint32_t cls, psoi_csrc *out, int max,
                          int layer, uint8_t own_label);
/* Where each payload byte of one class came from, for explain: labels[]
** receives a label id per payload byte (0 = runtime default); label ids
** index the Lua list at label_list_idx (one string per id, id 1 first).
** Returns 1 when the declaration still produces the pipeline's bytes, 0
** when it was modified after declaring (labels then unknown). */
int psoi_class_origins(lua_State *L, int keys_idx, int pipe_idx, uint32_t cls,
                       uint8_t *labels, size_t labels_size, int label_list_idx);

#endif
