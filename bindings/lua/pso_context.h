/*
** pso_context.h: layer 1 of the pso module (pso_context.c): the per-state
** context (allocator, builder, scratch arena, interned-string cache,
** hooks), the key-table slots every layer uses, and errors with their
** position in the script. It calls nothing of the module above it.
**
** The module's files form one chain; each includes and calls only the
** layers before it (docs/design.md, "The bindings"; scripts/check_layers.sh
** checks it):
**   pso_context -> pso_values -> pso_presets -> pso_convert -> pso_pipeline
**     -> pso_rootsig -> pso_declare -> pso (luaopen_pso)
** Embedders use pso_module.h only.
*/
#ifndef PSO_CONTEXT_H
#define PSO_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "compat.h"
#include "enums.h"
#include "platform.h" /* psoc_plat_once: what every context shares (s21) */
#include "psoc.h"
#include "pso_module.h"

#define PSOI_PIPELINE_MT "pso.pipeline"
#define PSOI_BLOB_MT "pso.blob"
#define PSOI_NONE_MT "pso.none"
#define PSOI_CONTEXT_KEY "pso.context"
#define PSOI_KEYS_KEY "pso.keys"

/* Module functions are closures with these two upvalues. */
#define PSOI_UV_CTX lua_upvalueindex(1)
#define PSOI_UV_KEYS lua_upvalueindex(2)

/* Integer slots of the key table K (upvalue 2). Structs and enums are
** keyed by their address (lightuserdata): K[struct] is the struct's key
** table (key or D3D12 member name -> field index + 1; negative for the
** element keys a struct accepts directly, see pso_convert.c), K[enum] the
** enum's spelling cache (spelling -> value); both are made on first use. */
enum {
  PSOI_K_TOP = 1,       /* top-level key -> type id, "name" -> -1 */
  PSOI_K_TYPEKEYS = 2,  /* [type + 1] -> type key string */
  PSOI_K_NONE = 3,      /* the pso.none sentinel */
  PSOI_K_BLOB_MT = 4,   /* metatable of shader and blob objects */
  PSOI_K_METHODS = 5,   /* pipeline methods */
  PSOI_K_PIPE_MT = 6,   /* pipeline metatable */
  PSOI_K_PRESET_CACHE = 7, /* preset object -> converted payload (weak keys) */
  PSOI_K_RAW_DECLARE = 8,  /* + psoc_kind: the declaration closure of that kind
                              (psoi_declare itself, run protected by
                              collect_errors) */
  PSOI_K_SITE_FN = 12,     /* the function psoi_site_cached last named (anchors
                              the ctx->site_* cache) */
  PSOI_K_ANCHORS = 13      /* scratch list of the blob objects a declaration's
                              stream borrows, until they move into the new
                              pipeline's user values ([1..ctx->anchor_top]) */
};

/* ---- per-state context ----------------------------------------------- */

typedef struct psoi_chunk psoi_chunk;

/* Pointer-keyed cache: (owner, interned Lua string) -> value. Only strings
** anchored in the key table K go in, so a pointer can never be reused for
** another string while the entry exists. */
typedef struct psoi_ientry {
  const void *owner;
  const char *str;
  int64_t value;
} psoi_ientry;

/* A struct's shape: fallthrough_field and single_field (pso_convert.c). */
#define PSOI_SHAPES 64
typedef struct psoi_shape {
  const psoc_struct *s;
  int8_t fallthrough, single;
} psoi_shape;

typedef struct psoi_ctx {
  psoc_allocator alloc;     /* the state's lua_Alloc */
  psoc_builder *builder;    /* reused by every declaration */
  psoi_chunk *chunks;       /* scratch arena for out-of-line arrays */
  pso_hooks hooks;
  const psoc_struct *input_element; /* shorthand anchors (found at init) */
  int input_semantic, input_format, input_offset; /* its field indices */
  const psoc_field *code_field;     /* D3D12_SHADER_BYTECODE's blob */
  size_t payload_max;       /* largest payload in the registry */
  uint8_t class_types[PSOC_SO_TYPE_COUNT][4]; /* per class base type: its
                                                 types in version order */
  uint8_t class_ntypes[PSOC_SO_TYPE_COUNT];
  psoi_ientry *imap;        /* open addressing, capacity a power of two */
  size_t imap_cap, imap_count;
  int arena_lock;           /* declarations converting: no arena reset */
  int building;             /* the builder holds entries: no re-entry */
  uint8_t type_has_ptr[PSOC_SO_TYPE_COUNT];
  /* Per type: its one pointer is a blob (shader bytecode, a cached PSO),
  ** which a declaration takes from immutable pso.shader/pso.blob objects:
  ** the stream borrows it (PSOC_BUILDER_BORROW_BLOBS decides the same) and
  ** the pipeline keeps the objects alive. */
  uint8_t type_borrow[PSOC_SO_TYPE_COUNT];
  /* Identities for checks without Lua calls (set with K; anchored there):
  ** the pso.none userdata and the metatable of shader and blob objects. */
  const void *none_ud;
  const void *blob_mt;
  /* Per type (from the registry, at init): the field a payload is given
  ** as (its only field besides COUNT fields) or -1; per class base type:
  ** the largest payload of its types. */
  const psoc_subobject_info *info[PSOC_SO_TYPE_COUNT]; /* NULL: no such type */
  int8_t single_field[PSOC_SO_TYPE_COUNT];
  uint16_t class_payload_max[PSOC_SO_TYPE_COUNT];
  psoi_shape shapes[PSOI_SHAPES]; /* direct-mapped cache by struct address */
  /* psoi_site_cached: the chunk name of the function anchored at
  ** K[PSOI_K_SITE_FN] (site_fn: its identity; site_source: into that
  ** function's source string, or site_short). */
  int anchor_top;           /* K[PSOI_K_ANCHORS] slots that may be set */
  const void *site_fn;
  const char *site_source;
  char site_short[LUA_IDSIZE];
} psoi_ctx;

int psoi_imap_get(const psoi_ctx *ctx, const void *owner, const char *str, int64_t *value);
void psoi_imap_put(psoi_ctx *ctx, const void *owner, const char *str, int64_t value);

psoi_ctx *psoi_context(lua_State *L); /* created on first use */
psoi_ctx *psoi_push_context(lua_State *L); /* the same, and push its userdata */
void *psoi_arena_alloc(psoi_ctx *ctx, size_t size); /* zeroed; NULL: no memory */
void *psoi_arena_take(psoi_ctx *ctx, size_t size);  /* the same, not zeroed */
void psoi_arena_reset(psoi_ctx *ctx);

/* ---- errors (the position in the script) ----------------------------------------------------------- */

/* Push "FILE:LINE: msg" for the first Lua frame at or above level (C
** wrappers skipped), plus " (from FILE:LINE)" naming the outermost Lua
** caller in another file (a shared module's factory called by the
** material); msg alone when no Lua frame is found. */
void psoi_push_where(lua_State *L, int level, const char *msg);
/* The same for an error at a field path: "FILE:LINE: FIELD: msg" (field
** NULL or "": none), where keys[] is the path (keys[i] NULL for list index
** indexes[i]): the line is the one of the deepest key of the path found in
** the constructor of the call (when the chunk's source is known: a string
** chunk, or one given to pso_remember_source), else the call's. Both
** record the error as data for pso_error_info (the last error raised). */
void psoi_push_where_keys(lua_State *L, int level, const char *field, const char *msg,
                          const char *const *keys, const int *indexes, int nkeys);
/* The record of the last error (a table: the message as raised, then
** PSOI_ERR_FIELDS values per error, see pso_context.c) when the string at
** idx is that message (or it followed by a newline): pushed, returns 1;
** else nothing pushed, 0. */
#define PSOI_ERR_FIELDS 6
int psoi_push_error_record(lua_State *L, int idx);
/* Make the record at idx the last error (several errors raised as one). */
void psoi_set_error_record(lua_State *L, int idx);
/* Where the first Lua frame at or above level is (C wrappers skipped):
** 1 and *site; 0 and {NULL, 0} when there is none within a few levels.
** The chunk name is cached per function (the Lua function found,
** anchored in the key table at keys_idx): a declaration site costs the
** line lookup only when the same function declares again. site->source
** may point into ctx (copy it before anything can declare again). */
int psoi_site_cached(lua_State *L, psoi_ctx *ctx, int keys_idx, int level, pso_site *site);
/* Raise "WHERE: message" with the caller's position (level 1). */
int psoi_error(lua_State *L, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 2, 3)))
#endif
    ;
/* " (did you mean 'a', 'b'?)" (or " (valid: ...)" for short lists). */
void psoi_suggest(const char *wrong, const char *const *cands, size_t ncands, char *out, size_t n);

#endif
