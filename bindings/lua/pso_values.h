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
  /* The bytes: in own[] (psoi_push_blob), or those of the Lua string the
  ** object holds as its user value 1 (pso.shader and pso.blob: the string
  ** the file was read into, or the one given as bytes, not copied again;
  ** Lua strings never move and are immutable). */
  const unsigned char *data;
  const char *file;      /* the file name (NUL-terminated, in own[]), or NULL */
  unsigned char own[];   /* copied bytes, then the file name and a NUL */
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
** name of a namespace. A built-in namespace (psoi_push_builtin_namespace)
** makes its data table on first use. */
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
** data_idx itself the data of a new preset labelled "preset NAME", without
** the copy psoi_push_preset makes: for a table the caller just built and
** hands over (no other reference to it; preset fields scalars only). Push
** the proxy. */
void psoi_wrap_preset(lua_State *L, int data_idx, const char *name);

/* Built-in presets as constant data (s21): one definition per preset,
** static and read-only, shared by every state of the process. A state
** makes a preset's data table and proxy only when a script first names it
** (pso.blend.alpha), and the whole namespace only when it is read as a
** whole (pairs, #, pso.copy, pso.preset_pairs, an unknown name): what a
** script sees is the same as if every preset had been made when the module
** opened (the same tables, keys inserted in the same order; a preset is
** made once per state, so pso.blend.alpha is always the same proxy). */
typedef struct psoi_preset_field {
  const char *key;
  char kind; /* 'b' boolean, 's' string, 'i' integer, 'n' number; 0 ends the list */
  const char *s;
  double n;
} psoi_preset_field;
#define PSOI_PRESET_FIELDS 13 /* the END entry included */
typedef struct psoi_preset_def {
  const char *key;   /* its name in the namespace: "alpha" */
  const char *label; /* "preset blend.alpha" */
  psoi_preset_field fields[PSOI_PRESET_FIELDS];
} psoi_preset_def;
typedef struct psoi_preset_ns {
  const char *name; /* "blend" */
  const psoi_preset_def *defs;
  size_t count;
} psoi_preset_ns;
/* Push the namespace proxy pso.NAME over the built-in presets ns (nothing
** of them made yet). */
void psoi_push_builtin_namespace(lua_State *L, const psoi_preset_ns *ns);
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
