/*
** pso_internal.h: what the files of the pso module share (not installed;
** embedders use pso_module.h).
**
**   pso.c           luaopen_pso, the per-state context, hooks, shader and
**                   blob objects, pso.none, pso.preset, the entry points
**   pso_convert.c   declaration tables -> payloads (generic over the
**                   registry), payloads -> visitor events / Lua tables
**   pso_pipeline.c  the pipeline userdata and its methods
**   pso_presets.c   the built-in presets (Lua source)
*/
#ifndef PSO_INTERNAL_H
#define PSO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "compat.h"
#include "enums.h"
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
** enum's spelling cache (spelling -> value). */
enum {
  PSOI_K_TOP = 1,       /* top-level key -> type id, "name" -> -1 */
  PSOI_K_TYPEKEYS = 2,  /* [type + 1] -> type key string */
  PSOI_K_NONE = 3,      /* the pso.none sentinel */
  PSOI_K_BLOB_MT = 4,   /* metatable of shader and blob objects */
  PSOI_K_METHODS = 5,   /* pipeline methods */
  PSOI_K_PIPE_MT = 6,   /* pipeline metatable */
  PSOI_K_PRESET_CACHE = 7, /* preset data table -> converted payload (weak keys) */
  PSOI_K_RAW_DECLARE = 8   /* + psoc_kind: the declaration closure of that kind
                              (psoi_declare itself, run protected) */
};

/* Preset and namespace proxies: the metatable holds these (lightuserdata
** keys): the data table, the label ("preset blend.alpha") and, for
** namespaces, the namespace name. */
extern const char psoi_preset_data_tag;
extern const char psoi_preset_label_tag;
extern const char psoi_namespace_tag;

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
  psoc_allocator builder_alloc; /* the builder's: ctx_alloc (capture) */
  /* Stream capture: while capture_mem is set, the builder's next new block
  ** of at most capture_cap bytes is capture_mem (inside a pipeline
  ** userdata). capture_need reports a larger request. */
  unsigned char *capture_mem;
  size_t capture_cap, capture_need;
  void *captured;           /* the block handed out: frees of it are no-ops */
  int arena_lock;           /* declarations converting: no arena reset */
  int building;             /* the builder holds entries: no re-entry */
  uint8_t type_has_ptr[PSOC_SO_TYPE_COUNT];
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
} psoi_ctx;

int psoi_imap_get(const psoi_ctx *ctx, const void *owner, const char *str, int64_t *value);
void psoi_imap_put(psoi_ctx *ctx, const void *owner, const char *str, int64_t value);

psoi_ctx *psoi_context(lua_State *L); /* created on first use */
void *psoi_arena_alloc(psoi_ctx *ctx, size_t size); /* zeroed; NULL: no memory */
void *psoi_arena_take(psoi_ctx *ctx, size_t size);  /* the same, not zeroed */
void psoi_arena_reset(psoi_ctx *ctx);

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

/* ---- pipelines -------------------------------------------------------- */

struct pso_pipeline {
  psoc_stream *stream;     /* inside this userdata (after strings[]) */
  const char *name;        /* into strings[], or NULL */
  const char *root_signature; /* into strings[], or NULL */
  psoc_hash128 hash;
  uint32_t count;          /* subobjects in the stream */
  uint8_t kind;            /* psoc_kind */
  uint8_t derived;         /* user value: {overrides, base} instead of the
                              declaration table */
  uint8_t hash_valid;
  char strings[];
};

/* Push a new pipeline userdata, metatable set, with room for a stream of
** stream_cap bytes after its strings (*stream_mem, 16-aligned). The stream
** lives inside the userdata: the GC frees it, no __gc. */
pso_pipeline *psoi_pipeline_new(lua_State *L, int keys_idx, psoc_kind kind, const char *name,
                                size_t name_len, const char *rs, size_t rs_len, size_t stream_cap,
                                unsigned char **stream_mem);
/* Metatable and methods (closures over the context and K). */
void psoi_open_pipeline(lua_State *L, int ctx_idx, int keys_idx);
/* Diagnostics as a Lua list of { severity, code, message_id, field,
** message, subobject, offset } tables; with 'keys', field is the
** material's path (pso_field_path) and member the D3D12 one. */
void psoi_push_diags(lua_State *L, const psoc_diags *diags, int keys);

/* ---- conversion (pso_convert.c) --------------------------------------- */

void psoi_init_keys(lua_State *L, psoi_ctx *ctx, int keys_idx);

/* pso.graphics/mesh/compute: convert the declaration at decl_idx and push
** the pipeline. Errors are raised at the caller's line. */
int psoi_declare(lua_State *L, psoc_kind kind, int decl_idx);
/* pso.graphics/mesh/compute as the module exposes them: psoi_declare on
** argument 1, run protected; when it fails, every top-level key is
** converted on its own too, and all their errors are raised together (one
** per line, each with its own location; the first error alone when there
** is only one). */
int psoi_declare_all(lua_State *L, psoc_kind kind);
/* pso.derive */
int psoi_derive(lua_State *L, int base_idx, int overrides_idx);

/* Where each payload byte of one class came from, for explain: labels[]
** receives a label id per payload byte (0 = runtime default); label ids
** index the Lua list left on the stack (one string per id, id 1 first).
** Returns 1 when the declaration still produces the pipeline's bytes, 0
** when it was modified after declaring (labels then unknown). */
int psoi_class_origins(lua_State *L, int keys_idx, int pipe_idx, uint32_t cls,
                       uint8_t *labels, size_t labels_size, int label_list_idx);

/* Field-by-field equality of two payloads of one struct (pointers
** followed: arrays by element, blobs by content, strings by value). */
int psoi_payload_equal(const psoc_struct *s, const unsigned char *a, const unsigned char *b);

/* ---- visiting payloads (pso_convert.c) -------------------------------- */

typedef struct psoi_vval {
  uint8_t kind;                 /* psoc_field_kind: scalars, BLOB, STRING, OBJECT */
  uint8_t size;                 /* scalar bytes */
  uint8_t is_shader;            /* BLOB: a shader (else a data blob) */
  uint8_t append_aligned;       /* UINT: D3D12_APPEND_ALIGNED_ELEMENT (an
                                   input element's offset): text
                                   "append_aligned", value pso.APPEND_ALIGNED */
  const psoc_enum *e;           /* ENUM/FLAGS */
  const unsigned char *p;       /* scalar bytes (unaligned) */
  const unsigned char *blob;    /* BLOB (NULL: null pointer) */
  size_t blob_size;
  const char *str;              /* STRING (NULL: null pointer) */
  const void *ptr;              /* OBJECT pointer */
  int off;                      /* byte offset in the payload, -1 if out of line */
} psoi_vval;

typedef struct psoi_vis psoi_vis;
struct psoi_vis {
  /* key is NULL for list elements (then index is 1-based) */
  void (*open)(psoi_vis *v, const char *key, int index, int is_list);
  void (*close)(psoi_vis *v, int is_list);
  void (*leaf)(psoi_vis *v, const char *key, int index, const psoi_vval *val);
  int fixed_limit;              /* FIXED of structs: at most this many (0: all) */
};

/* Visit the payload of 'type' as the language spells it, under 'key'. */
void psoi_visit_class(psoi_vis *v, const char *key, uint32_t type, const unsigned char *payload);

/* Push the Lua value of a payload (readback); rs_name names OBJECT fields. */
void psoi_push_class(lua_State *L, int keys_idx, uint32_t type, const unsigned char *payload,
                     const char *rs_name);
void psoi_push_leaf(lua_State *L, const psoi_vval *val, const char *rs_name);
/* Text of a leaf (enum keys, flags joined with '|'); returns the length. */
size_t psoi_format_leaf(const psoi_vval *val, const char *rs_name, char *out, size_t n);
/* Shortest decimal that reads back as the same float. */
double psoi_float_value(float f, char *text, size_t n);

/* ---- presets (pso_presets.c) ------------------------------------------ */

/* Install pso.blend, pso.rasterizer, pso.depth into the module table at
** module_idx (pso.preset must already be there). */
void psoi_open_presets(lua_State *L, int module_idx);
int psoi_freeze_namespace(lua_State *L); /* (name, table) -> proxy */
/* When the value at idx is a preset or namespace proxy (a userdata), push
** its data table and return 1; else push nothing and return 0. */
int psoi_preset_data(lua_State *L, int idx);

/* " (did you mean 'a', 'b'?)" (or " (valid: ...)" for short lists). */
void psoi_suggest(const char *wrong, const char *const *cands, size_t ncands, char *out, size_t n);

/* ---- errors ----------------------------------------------------------- */

/* Push "FILE:LINE: msg" for the first Lua frame at or above level (C
** wrappers skipped), plus " (from FILE:LINE)" naming the outermost Lua
** caller in another file (a shared module's factory called by the
** material); msg alone when no Lua frame is found. */
void psoi_push_where(lua_State *L, int level, const char *msg);
/* The same for an error at a field path (keys[i] NULL for list index
** indexes[i]):
** the line is the one of the deepest key of the path found in the
** constructor of the call (when the chunk's source is known: a string
** chunk, or one given to pso_remember_source), else the call's. */
void psoi_push_where_keys(lua_State *L, int level, const char *msg, const char *const *keys,
                          const int *indexes, int nkeys);
/* Raise "WHERE: message" with the caller's position (level 1). */
int psoi_error(lua_State *L, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 2, 3)))
#endif
    ;

#endif
