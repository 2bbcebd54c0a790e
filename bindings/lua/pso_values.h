/*
** pso_values.h: layer 2 of the pso module (pso_values.c): the values a
** declaration holds besides plain tables and scalars: shader and blob
** objects (pso.shader, pso.blob), pso.none, and immutable presets and
** namespaces (pso.preset, pso.copy, pso.preset_pairs). Uses pso_context
** only.
*/
#ifndef PSO_VALUES_H
#define PSO_VALUES_H

#include "pso_context.h"

/* ---- shader and blob objects ----------------------------------------- */

enum { PSOI_BLOB_SHADER = 1, PSOI_BLOB_DATA = 2 };

typedef struct psoi_blob {
  int kind;              /* PSOI_BLOB_SHADER or PSOI_BLOB_DATA */
  size_t size;           /* bytes in data */
  size_t file_len;       /* 0: no file name */
  unsigned char data[];  /* the bytes, then the file name and a NUL */
} psoi_blob;

/* Push a new shader/blob object holding a copy of the bytes. */
psoi_blob *psoi_push_blob(lua_State *L, int kind, const void *bytes, size_t size,
                          const char *file);
psoi_blob *psoi_toblob(lua_State *L, int idx, int keys_idx);
const char *psoi_blob_file(const psoi_blob *b); /* NULL when none */

/* ---- presets and namespaces ------------------------------------------- */

/* Preset and namespace proxies: userdata sharing one metatable per state
** (made once, on the first proxy), each with two user values: its data
** table and its tag, the label ("preset blend.alpha") of a preset or the
** name of a namespace. */
enum { PSOI_PROXY_PRESET = 1, PSOI_PROXY_NAMESPACE = 2 };
/* PSOI_PROXY_PRESET or PSOI_PROXY_NAMESPACE for a proxy at idx, else 0
** (nothing pushed). */
int psoi_proxy_kind(lua_State *L, int idx);
/* For a proxy at idx: push its tag (a string) and return its kind; else
** push nothing and return 0. */
int psoi_proxy_tag(lua_State *L, int idx);

int psoi_freeze_namespace(lua_State *L); /* (name, table) -> proxy */
/* pso.preset(name, t) from C: push the preset made of the table at
** table_idx (deep-copied and frozen), labelled "preset NAME". */
void psoi_push_preset(lua_State *L, int table_idx, const char *name);
/* (s4-setup: the built-in presets, pso_presets.c) Make the plain table at
** data_idx itself the data of a new preset labelled "preset NAME"
** (psoi_wrap_preset) or of the namespace pso.NAME (psoi_wrap_namespace),
** without the copy psoi_push_preset and psoi_freeze_namespace make: for a
** table the caller just built and hands over (no other reference to it;
** preset fields scalars only). Push the proxy. */
void psoi_wrap_preset(lua_State *L, int data_idx, const char *name);
void psoi_wrap_namespace(lua_State *L, int data_idx, const char *name);
/* When the value at idx is a preset or namespace proxy (a userdata), push
** its data table and return 1; else push nothing and return 0. */
int psoi_preset_data(lua_State *L, int idx);

/* ---- registration ------------------------------------------------------- */

/* Fill the key table K at keys_idx: the shader/blob metatable
** (PSOI_K_BLOB_MT, ctx->blob_mt) and pso.none (PSOI_K_NONE, ctx->none_ud). */
void psoi_open_values(lua_State *L, psoi_ctx *ctx, int keys_idx);
/* pso.shader, pso.blob, pso.preset, pso.copy, pso.preset_pairs (closures
** over the context and K, like every module function). */
extern const luaL_Reg psoi_value_funcs[];

#endif
