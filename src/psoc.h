/*
** psoc.h: build, parse, check, resolve, hash and dump Direct3D 12
** pipeline state streams (D3D12_PIPELINE_STATE_STREAM_DESC).
**
** The library never prints, never aborts and never reads outside the
** buffer it is given. Every function that can fail returns a psoc_status.
** Memory comes from an optional psoc_allocator (NULL: realloc/free).
*/
#ifndef PSOC_H
#define PSOC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h> /* memcpy: psoc_builder_add's inline part */

#ifdef _WIN32
#include <d3d12.h>
#else
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#endif

#ifndef __cplusplus
/* d3d12.h declares this one as a bare struct in C (C11 allows repeating
** the typedef should a newer header add it). */
typedef struct D3D12_RT_FORMAT_ARRAY D3D12_RT_FORMAT_ARRAY;
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define PSOC_VERSION_MAJOR 0
#define PSOC_VERSION_MINOR 1
#define PSOC_VERSION_PATCH 0
#define PSOC_VERSION_STRING "0.1.0"

/* ------------------------------------------------------------------ */
/* Exported symbols                                                    */
/* ------------------------------------------------------------------ */

/* PSOC_API marks the public functions of this header, PSOL_API those of
** psol.h and pso_module.h, PSO_MODULE_API luaopen_pso. Everything else in
** the libraries is compiled hidden (-fvisibility=hidden), so libpsoc.so
** and psoc.dll export exactly the PSOC_API functions and the pso module
** (pso.so, pso.dll) only luaopen_pso.
**   PSOC_BUILD_SHARED   defined while compiling libpsoc.so / psoc.dll
**   PSOC_DLL            define it in a Windows program that links psoc.dll
**                       (dllimport; optional for functions)
**   PSOL_BUILD_SHARED   defined while compiling a shared psol library
**   PSO_BUILD_MODULE    defined while compiling the pso module
** A static build defines none of them and every macro is empty. */
#if defined(_WIN32) || defined(__CYGWIN__)
#define PSOC_EXPORT_ __declspec(dllexport)
#define PSOC_IMPORT_ __declspec(dllimport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define PSOC_EXPORT_ __attribute__((visibility("default")))
#define PSOC_IMPORT_
#else
#define PSOC_EXPORT_
#define PSOC_IMPORT_
#endif

/* The archetype of printf-style format attributes: MinGW's "printf" is
** MSVCRT's (no %zu); psoc formats with C99 stdio there
** (__USE_MINGW_ANSI_STDIO=1), which GCC calls gnu_printf. */
#if defined(__MINGW32__)
#define PSOC_PRINTF_FORMAT gnu_printf
#else
#define PSOC_PRINTF_FORMAT printf
#endif

#ifndef PSOC_API
#if defined(PSOC_BUILD_SHARED)
#define PSOC_API PSOC_EXPORT_
#elif defined(PSOC_DLL)
#define PSOC_API PSOC_IMPORT_
#else
#define PSOC_API
#endif
#endif

#ifndef PSOL_API
#if defined(PSOL_BUILD_SHARED)
#define PSOL_API PSOC_EXPORT_
#elif defined(PSOL_DLL)
#define PSOL_API PSOC_IMPORT_
#else
#define PSOL_API
#endif
#endif

#ifndef PSO_MODULE_API
#if defined(PSO_BUILD_MODULE)
#define PSO_MODULE_API PSOC_EXPORT_
#else
#define PSO_MODULE_API PSOL_API
#endif
#endif

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

typedef enum psoc_status {
  PSOC_OK = 0,
  PSOC_ERR_ARG,       /* NULL pointer or invalid argument */
  PSOC_ERR_NOMEM,     /* the allocator failed */
  PSOC_ERR_TYPE,      /* unknown subobject type */
  PSOC_ERR_SIZE,      /* zero, mismatched or overflowing size */
  PSOC_ERR_DUPLICATE, /* a subobject of that class is already present */
  PSOC_ERR_INVALID,   /* the stream has errors (see the diagnostics) */
  PSOC_ERR_LOSSY,     /* the target format cannot hold every value */
  PSOC_ERR_IO         /* a write callback failed */
} psoc_status;

PSOC_API const char *psoc_status_name(psoc_status status);

/* ------------------------------------------------------------------ */
/* Allocator (same contract as lua_Alloc: nsize 0 frees)               */
/* ------------------------------------------------------------------ */

typedef void *(*psoc_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

typedef struct psoc_allocator {
  psoc_alloc_fn fn;
  void *ud;
} psoc_allocator;

/* ------------------------------------------------------------------ */
/* Subobject types: all 30 of the current SDK, whatever the header has */
/* ------------------------------------------------------------------ */

/* The subobject list: the one place a subobject type is written. It is
** expanded into the enum below, the registry table and the type masks
** (registry.c, internal.h), so adding a type is a row here plus its field
** list and default in registry.c. Rows are in SDK value order. Columns:
**   NAME    the SDK suffix: PSOC_SO_NAME, D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_NAME
**   id      the SDK's value (23 is unused by the SDK)
**   key     the material-language key
**   CLASS   its duplicate class: the base type it is a version of (NAME
**           itself for a class of one version); a stream holds one per class
**   kinds   the pipeline kinds that use it: PSOC_KINDS_G, _C, _M joined by |
**   T       the payload's C type
**   layout  the payload's field list and default in registry.c
**           (s_layout, d_layout)
**   bits    PSOC_SUBOBJECT_SHADER (a D3D12_SHADER_BYTECODE stage),
**           PSOC_SUBOBJECT_DECIDES_KIND (non-null bytecode makes the pipeline
**           of its one kind: the types of the kinds), or 0 */
#define PSOC_SUBOBJECTS(X)                                                                       \
  X(ROOT_SIGNATURE, 0, "root_signature", ROOT_SIGNATURE, PSOC_KINDS_GCM, void *, rs, 0)          \
  X(VS, 1, "vs", VS, PSOC_KINDS_G, D3D12_SHADER_BYTECODE, bytecode,                              \
    PSOC_SUBOBJECT_SHADER | PSOC_SUBOBJECT_DECIDES_KIND)                                         \
  X(PS, 2, "ps", PS, PSOC_KINDS_G | PSOC_KINDS_M, D3D12_SHADER_BYTECODE, bytecode,               \
    PSOC_SUBOBJECT_SHADER)                                                                       \
  X(DS, 3, "ds", DS, PSOC_KINDS_G, D3D12_SHADER_BYTECODE, bytecode, PSOC_SUBOBJECT_SHADER)       \
  X(HS, 4, "hs", HS, PSOC_KINDS_G, D3D12_SHADER_BYTECODE, bytecode, PSOC_SUBOBJECT_SHADER)       \
  X(GS, 5, "gs", GS, PSOC_KINDS_G, D3D12_SHADER_BYTECODE, bytecode, PSOC_SUBOBJECT_SHADER)       \
  X(CS, 6, "cs", CS, PSOC_KINDS_C, D3D12_SHADER_BYTECODE, bytecode,                              \
    PSOC_SUBOBJECT_SHADER | PSOC_SUBOBJECT_DECIDES_KIND)                                         \
  X(STREAM_OUTPUT, 7, "stream_output", STREAM_OUTPUT, PSOC_KINDS_G, D3D12_STREAM_OUTPUT_DESC,    \
    so, 0)                                                                                       \
  X(BLEND, 8, "blend", BLEND, PSOC_KINDS_GM, D3D12_BLEND_DESC, blend, 0)                         \
  X(SAMPLE_MASK, 9, "sample_mask", SAMPLE_MASK, PSOC_KINDS_GM, UINT, mask, 0)                    \
  X(RASTERIZER, 10, "rasterizer", RASTERIZER, PSOC_KINDS_GM, D3D12_RASTERIZER_DESC, rast, 0)     \
  X(DEPTH_STENCIL, 11, "depth_stencil", DEPTH_STENCIL, PSOC_KINDS_GM, D3D12_DEPTH_STENCIL_DESC,  \
    ds, 0)                                                                                       \
  X(INPUT_LAYOUT, 12, "input_layout", INPUT_LAYOUT, PSOC_KINDS_G, D3D12_INPUT_LAYOUT_DESC,       \
    layout, 0)                                                                                   \
  X(IB_STRIP_CUT_VALUE, 13, "strip_cut", IB_STRIP_CUT_VALUE, PSOC_KINDS_G,                       \
    D3D12_INDEX_BUFFER_STRIP_CUT_VALUE, cut, 0)                                                  \
  X(PRIMITIVE_TOPOLOGY, 14, "topology", PRIMITIVE_TOPOLOGY, PSOC_KINDS_GM,                       \
    D3D12_PRIMITIVE_TOPOLOGY_TYPE, topo, 0)                                                      \
  X(RENDER_TARGET_FORMATS, 15, "render_targets", RENDER_TARGET_FORMATS, PSOC_KINDS_GM,           \
    D3D12_RT_FORMAT_ARRAY, rtv, 0)                                                               \
  X(DEPTH_STENCIL_FORMAT, 16, "depth_format", DEPTH_STENCIL_FORMAT, PSOC_KINDS_GM, DXGI_FORMAT,  \
    dsv, 0)                                                                                      \
  X(SAMPLE_DESC, 17, "sample_desc", SAMPLE_DESC, PSOC_KINDS_GM, DXGI_SAMPLE_DESC, sample, 0)     \
  X(NODE_MASK, 18, "node_mask", NODE_MASK, PSOC_KINDS_GCM, UINT, node, 0)                        \
  X(CACHED_PSO, 19, "cached_pso", CACHED_PSO, PSOC_KINDS_GCM, D3D12_CACHED_PIPELINE_STATE,       \
    cached, 0)                                                                                   \
  X(FLAGS, 20, "flags", FLAGS, PSOC_KINDS_GCM, D3D12_PIPELINE_STATE_FLAGS, flags, 0)             \
  X(DEPTH_STENCIL1, 21, "depth_stencil1", DEPTH_STENCIL, PSOC_KINDS_GM,                          \
    D3D12_DEPTH_STENCIL_DESC1, ds1, 0)                                                           \
  X(VIEW_INSTANCING, 22, "view_instancing", VIEW_INSTANCING, PSOC_KINDS_GM,                      \
    D3D12_VIEW_INSTANCING_DESC, view, 0)                                                         \
  X(AS, 24, "as", AS, PSOC_KINDS_M, D3D12_SHADER_BYTECODE, bytecode, PSOC_SUBOBJECT_SHADER)      \
  X(MS, 25, "ms", MS, PSOC_KINDS_M, D3D12_SHADER_BYTECODE, bytecode,                             \
    PSOC_SUBOBJECT_SHADER | PSOC_SUBOBJECT_DECIDES_KIND)                                         \
  X(DEPTH_STENCIL2, 26, "depth_stencil2", DEPTH_STENCIL, PSOC_KINDS_GM,                          \
    D3D12_DEPTH_STENCIL_DESC2, ds2, 0)                                                           \
  X(RASTERIZER1, 27, "rasterizer1", RASTERIZER, PSOC_KINDS_GM, psoc_rasterizer_desc1, rast1, 0)  \
  X(RASTERIZER2, 28, "rasterizer2", RASTERIZER, PSOC_KINDS_GM, psoc_rasterizer_desc2, rast2, 0)  \
  X(SERIALIZED_ROOT_SIGNATURE, 29, "serialized_root_signature", SERIALIZED_ROOT_SIGNATURE,       \
    PSOC_KINDS_GCM, psoc_serialized_root_signature_desc, serialized_rs, 0)

/* Row bits (psoc_subobject_info.bits) */
#define PSOC_SUBOBJECT_SHADER 1u       /* a shader stage: D3D12_SHADER_BYTECODE */
#define PSOC_SUBOBJECT_DECIDES_KIND 2u /* its non-null bytecode decides the kind */

#define PSOC_SO_ENUM_ROW_(NAME, id, key, CLASS, kinds, T, layout, bits) PSOC_SO_##NAME = id,
typedef enum psoc_subobject_type {
  PSOC_SUBOBJECTS(PSOC_SO_ENUM_ROW_)
  PSOC_SO_TYPE_COUNT /* one past the last row's value */
} psoc_subobject_type;
#undef PSOC_SO_ENUM_ROW_

/* Payload structs newer than Debian's d3d12.h (1.606). Layouts follow the
** D3D12 documentation; the names are psoc's so they never clash. */
typedef enum psoc_line_rasterization_mode {
  PSOC_LINE_RASTERIZATION_MODE_ALIASED = 0,
  PSOC_LINE_RASTERIZATION_MODE_ALPHA_ANTIALIASED = 1,
  PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_WIDE = 2,
  PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW = 3
} psoc_line_rasterization_mode;

typedef struct psoc_rasterizer_desc1 { /* D3D12_RASTERIZER_DESC1 */
  D3D12_FILL_MODE FillMode;
  D3D12_CULL_MODE CullMode;
  BOOL FrontCounterClockwise;
  FLOAT DepthBias;
  FLOAT DepthBiasClamp;
  FLOAT SlopeScaledDepthBias;
  BOOL DepthClipEnable;
  BOOL MultisampleEnable;
  BOOL AntialiasedLineEnable;
  UINT ForcedSampleCount;
  D3D12_CONSERVATIVE_RASTERIZATION_MODE ConservativeRaster;
} psoc_rasterizer_desc1;

typedef struct psoc_rasterizer_desc2 { /* D3D12_RASTERIZER_DESC2 */
  D3D12_FILL_MODE FillMode;
  D3D12_CULL_MODE CullMode;
  BOOL FrontCounterClockwise;
  FLOAT DepthBias;
  FLOAT DepthBiasClamp;
  FLOAT SlopeScaledDepthBias;
  BOOL DepthClipEnable;
  psoc_line_rasterization_mode LineRasterizationMode;
  UINT ForcedSampleCount;
  D3D12_CONSERVATIVE_RASTERIZATION_MODE ConservativeRaster;
} psoc_rasterizer_desc2;

typedef struct psoc_serialized_root_signature_desc { /* D3D12_SERIALIZED_ROOT_SIGNATURE_DESC */
  const void *pSerializedBlob;
  SIZE_T SerializedBlobSizeInBytes;
} psoc_serialized_root_signature_desc;

/* Pipeline state flags newer than the installed header. */
#define PSOC_PIPELINE_STATE_FLAG_DYNAMIC_DEPTH_BIAS 0x4u
#define PSOC_PIPELINE_STATE_FLAG_DYNAMIC_INDEX_BUFFER_STRIP_CUT 0x8u

/* ------------------------------------------------------------------ */
/* Registry: one table describes every subobject type                  */
/* ------------------------------------------------------------------ */

typedef enum psoc_kind {
  PSOC_KIND_NONE = 0,
  PSOC_KIND_GRAPHICS = 1,
  PSOC_KIND_COMPUTE = 2,
  PSOC_KIND_MESH = 3
} psoc_kind;

#define PSOC_KIND_BIT(k) (1u << (k))
#define PSOC_KINDS_ALL \
  (PSOC_KIND_BIT(PSOC_KIND_GRAPHICS) | PSOC_KIND_BIT(PSOC_KIND_COMPUTE) | PSOC_KIND_BIT(PSOC_KIND_MESH))
/* The kinds column of PSOC_SUBOBJECTS */
#define PSOC_KINDS_G PSOC_KIND_BIT(PSOC_KIND_GRAPHICS)
#define PSOC_KINDS_C PSOC_KIND_BIT(PSOC_KIND_COMPUTE)
#define PSOC_KINDS_M PSOC_KIND_BIT(PSOC_KIND_MESH)
#define PSOC_KINDS_GM (PSOC_KINDS_G | PSOC_KINDS_M)
#define PSOC_KINDS_GCM PSOC_KINDS_ALL

PSOC_API const char *psoc_kind_name(psoc_kind kind); /* "graphics", "compute", "mesh", "none" */

typedef enum psoc_field_kind {
  PSOC_FIELD_UINT,    /* unsigned integer of 'size' bytes (1, 4 or 8) */
  PSOC_FIELD_INT,     /* signed integer of 'size' bytes */
  PSOC_FIELD_BOOL,    /* BOOL (4 bytes) */
  PSOC_FIELD_FLOAT,   /* FLOAT */
  PSOC_FIELD_ENUM,    /* enum of 'size' bytes; values in 'enumeration' */
  PSOC_FIELD_FLAGS,   /* bit set of 'size' bytes; bits in 'enumeration' */
  PSOC_FIELD_COUNT,   /* unsigned of 'size' bytes: the element count (or
                         byte size) of the ARRAY or BLOB field whose
                         count_offset equals this field's offset */
  PSOC_FIELD_STRUCT,  /* nested struct 'element' */
  PSOC_FIELD_FIXED,   /* inline array of 'count' elements, 'stride' apart */
  PSOC_FIELD_ARRAY,   /* pointer to elements; count at 'count_offset' */
  PSOC_FIELD_BLOB,    /* pointer to bytes; SIZE_T size at 'count_offset' */
  PSOC_FIELD_STRING,  /* const char * (NUL-terminated) */
  PSOC_FIELD_OBJECT   /* opaque COM pointer (never followed) */
} psoc_field_kind;

typedef struct psoc_enum_value {
  const char *name;  /* full name, e.g. "D3D12_CULL_MODE_BACK" */
  const char *key;   /* short lowercase name, e.g. "back" */
  uint32_t value;
} psoc_enum_value;

typedef struct psoc_enum {
  const char *name;  /* e.g. "D3D12_CULL_MODE" */
  const char *key;   /* e.g. "cull_mode" */
  const psoc_enum_value *values;
  uint32_t count;
  uint32_t is_flags;   /* 1 for a bit set (D3D12_COLOR_WRITE_ENABLE, ...) */
  uint64_t valid_mask; /* bit v set for each value v below 64 */
} psoc_enum;

struct psoc_struct;

typedef struct psoc_field {
  const char *name;            /* D3D12 member name, e.g. "CullMode" */
  const char *key;             /* material-language key, e.g. "cull" */
  uint8_t kind;                /* psoc_field_kind */
  uint8_t size;                /* bytes of one scalar (1, 4 or 8) */
  uint16_t offset;             /* from the start of the enclosing struct */
  uint16_t count_offset;       /* ARRAY/BLOB: where the count/size lives */
  uint16_t count;              /* FIXED: element count */
  uint16_t stride;             /* FIXED/ARRAY: bytes between elements */
  uint8_t element_kind;        /* FIXED/ARRAY of scalars: psoc_field_kind */
  const psoc_enum *enumeration;        /* ENUM, FLAGS (also for elements) */
  const struct psoc_struct *element;   /* STRUCT, or FIXED/ARRAY of structs */
} psoc_field;

typedef struct psoc_struct {
  const char *name;            /* e.g. "D3D12_RASTERIZER_DESC" */
  uint32_t size;
  uint32_t align;
  const psoc_field *fields;
  uint32_t field_count;
} psoc_struct;

typedef struct psoc_subobject_info {
  uint32_t type;               /* psoc_subobject_type */
  uint32_t bits;               /* PSOC_SUBOBJECT_SHADER, PSOC_SUBOBJECT_DECIDES_KIND */
  const char *name;            /* "RASTERIZER1" (the SDK suffix) */
  const char *key;             /* material-language key, "rasterizer1" */
  uint32_t dup_class;          /* base type of its duplicate class */
  uint32_t kinds;              /* PSOC_KIND_BIT()s of pipelines using it */
  uint32_t payload_offset;     /* 4 or 8 */
  uint32_t stride;             /* bytes it occupies in a stream */
  const psoc_struct *payload;  /* payload layout */
  const void *default_payload; /* the runtime's value when absent */
} psoc_subobject_info;

/* NULL for 23, >= 30 or any other unknown value. */
PSOC_API const psoc_subobject_info *psoc_subobject_info_get(uint32_t type);
/* Look up by SDK suffix ("DEPTH_STENCIL1", "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_VS")
** or by key ("depth_stencil1"); NULL when unknown. */
PSOC_API const psoc_subobject_info *psoc_subobject_info_find(const char *name);
/* The shader type whose non-null bytecode makes a pipeline of 'kind'
** (PSOC_SO_VS for graphics, PSOC_SO_CS for compute, PSOC_SO_MS for mesh),
** from the rows with PSOC_SUBOBJECT_DECIDES_KIND; PSOC_SO_TYPE_COUNT for
** PSOC_KIND_NONE and unknown kinds. */
PSOC_API uint32_t psoc_kind_shader(psoc_kind kind);

/* Enum tables (generated from the installed headers plus newer values). */
PSOC_API const psoc_enum *psoc_enum_find(const char *name); /* by full or key name */
PSOC_API const psoc_enum_value *psoc_enum_value_by_value(const psoc_enum *e, uint32_t value);
/* Accepts the full name, the key, or the full name without the enum's
** prefix, case-insensitively. NULL when unknown. */
PSOC_API const psoc_enum_value *psoc_enum_value_by_name(const psoc_enum *e, const char *name);
extern const psoc_enum psoc_enum_dxgi_format;

/* ------------------------------------------------------------------ */
/* Diagnostics                                                         */
/* ------------------------------------------------------------------ */

typedef enum psoc_severity {
  PSOC_SEVERITY_NOTE = 0,
  PSOC_SEVERITY_WARNING = 1,
  PSOC_SEVERITY_ERROR = 2
} psoc_severity;

/* Stable diagnostic codes; never renumbered, only appended. */
typedef enum psoc_code {
  PSOC_CODE_NULL_STREAM = 1,         /* NULL pointer with a non-zero size */
  PSOC_CODE_ZERO_SIZE_STREAM = 2,
  PSOC_CODE_TRUNCATED = 3,           /* a subobject runs past the end */
  PSOC_CODE_TRAILING_BYTES = 4,      /* bytes too few to hold a type */
  PSOC_CODE_UNKNOWN_SUBOBJECT = 5,
  PSOC_CODE_DUPLICATE_SUBOBJECT = 6,
  PSOC_CODE_NO_SHADER = 7,           /* none of VS, CS, MS non-null */
  PSOC_CODE_AMBIGUOUS_KIND = 8,      /* several of VS, CS, MS non-null */
  PSOC_CODE_IRRELEVANT_SUBOBJECT = 9,/* ignored for the deduced kind */
  PSOC_CODE_UNALIGNED_STREAM = 10,   /* stream pointer not 8-aligned */
  /* validation depth (rules_*.c); the message_id names the debug-layer ID */
  PSOC_CODE_INVALID_ENUM = 11,       /* a field outside its enum's values */
  PSOC_CODE_INVALID_FLAGS = 12,      /* unknown flag bits */
  PSOC_CODE_BLEND_STATE = 13,        /* write mask, logic op with blend, factors */
  PSOC_CODE_FORMAT_UNSUPPORTED = 14, /* a format cannot do what is asked of it */
  PSOC_CODE_RENDER_TARGETS = 15,     /* count, formats beyond the count */
  PSOC_CODE_DEPTH_STENCIL = 16,      /* depth/stencil state against the DSV */
  PSOC_CODE_SAMPLE_DESC = 17,        /* sample count/quality, forced count */
  PSOC_CODE_RASTERIZER = 18,         /* NaN biases, forced sample count */
  PSOC_CODE_TOPOLOGY = 19,
  PSOC_CODE_TESSELLATION = 20,       /* HS/DS pairing, PATCH topology */
  PSOC_CODE_STREAM_OUTPUT = 21,
  PSOC_CODE_STRIP_CUT = 22,
  PSOC_CODE_INPUT_LAYOUT = 23,
  PSOC_CODE_VIEW_INSTANCING = 24,
  PSOC_CODE_NODE_MASK = 25,
  PSOC_CODE_UNSUPPORTED = 26,        /* the capability profile lacks it */
  PSOC_CODE_SHADER_CONTAINER = 27,   /* corrupt DXBC/DXIL container */
  PSOC_CODE_SHADER_STAGE = 28,       /* a blob in the wrong stage slot */
  PSOC_CODE_SHADER_MODEL = 29,
  PSOC_CODE_INPUT_SIGNATURE = 30,    /* input layout against the VS inputs */
  PSOC_CODE_PS_OUTPUT = 31,          /* PS outputs against the render targets */
  PSOC_CODE_SHADER_LINKAGE = 32,     /* one stage's outputs, the next's inputs */
  PSOC_CODE_ROOT_SIGNATURE = 33,
  PSOC_CODE_CACHED_PSO = 34,
  PSOC_CODE_MISSING_SHADER = 35,     /* VS not set, HS without DS, AS without MS */
  /* material-script evaluation (psol.h): not from psoc_check */
  PSOC_CODE_SCRIPT = 36,             /* a script error (syntax, runtime, bad result) */
  PSOC_CODE_LIMIT = 37,              /* an instruction, memory or time limit was hit */
  PSOC_CODE_FILE = 38,               /* a script, module, shader or blob cannot be read */
  PSOC_CODE_COUNT_
} psoc_code;

PSOC_API const char *psoc_code_name(psoc_code code); /* e.g. "PSOC_DUPLICATE_SUBOBJECT" */

#define PSOC_DIAG_FIELD_MAX 64
#define PSOC_DIAG_MESSAGE_MAX 224

typedef struct psoc_diag {
  psoc_severity severity;
  psoc_code code;
  const char *message_id;   /* D3D12 debug-layer name without the
                               D3D12_MESSAGE_ID_ prefix, or NULL */
  int32_t subobject;        /* index in the stream, or -1 */
  int64_t offset;           /* byte offset in the stream, or -1 */
  char field[PSOC_DIAG_FIELD_MAX];     /* e.g. "RASTERIZER.CullMode", or "" */
  char message[PSOC_DIAG_MESSAGE_MAX];
} psoc_diag;

typedef struct psoc_diags {
  psoc_diag *items;
  size_t count;
  size_t capacity;
  size_t errors, warnings, notes;
  size_t dropped;           /* diagnostics lost to an allocation failure */
  psoc_allocator alloc;
} psoc_diags;

PSOC_API void psoc_diags_init(psoc_diags *diags, const psoc_allocator *alloc);
PSOC_API void psoc_diags_clear(psoc_diags *diags);
PSOC_API void psoc_diags_free(psoc_diags *diags);
/* Append one diagnostic; printf-style message. Returns PSOC_ERR_NOMEM
** (and counts it in 'dropped') if the list cannot grow. */
PSOC_API psoc_status psoc_diags_add(psoc_diags *diags, psoc_severity severity, psoc_code code,
                                    const char *message_id, int32_t subobject, int64_t offset,
                                    const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 8, 9)))
#endif
    ;
/* The same with a va_list (the message is formatted once, in place). */
PSOC_API psoc_status psoc_diags_addv(psoc_diags *diags, psoc_severity severity, psoc_code code,
                                     const char *message_id, int32_t subobject, int64_t offset,
                                     const char *field, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 8, 0)))
#endif
    ;
PSOC_API const char *psoc_severity_name(psoc_severity severity); /* "note", "warning", "error" */

/* ------------------------------------------------------------------ */
/* Builder and self-contained streams                                  */
/* ------------------------------------------------------------------ */

typedef struct psoc_builder psoc_builder;
typedef struct psoc_stream psoc_stream;

PSOC_API psoc_status psoc_builder_new(const psoc_allocator *alloc, psoc_builder **out);
PSOC_API void psoc_builder_free(psoc_builder *builder);
PSOC_API void psoc_builder_reset(psoc_builder *builder);

/* Append a subobject. 'payload' points to the payload struct of that type
** (e.g. D3D12_RASTERIZER_DESC) and 'payload_size' must be its size. Every
** out-of-line array, string and blob it points to is deep-copied (in the
** default mode, PSOC_BUILDER_COPY: see psoc_builder_set_mode).
** PSOC_ERR_DUPLICATE when a subobject of the same class is present. Its
** common case is inline (psoc_builder_add_inline, below). */
PSOC_API psoc_status(psoc_builder_add)(psoc_builder *builder, uint32_t type, const void *payload,
                                       size_t payload_size);
/* Like add, but replaces a present subobject of the same class in place. */
PSOC_API psoc_status psoc_builder_set(psoc_builder *builder, uint32_t type, const void *payload,
                                      size_t payload_size);
PSOC_API size_t psoc_builder_count(const psoc_builder *builder);

/* How adds treat the arrays, strings and blobs a payload points to (input
** elements and their semantic names, SO declarations and strides,
** view-instance locations, shader bytecode, cached and serialized blobs):
**   PSOC_BUILDER_COPY (the default): copied during add, so the caller may
**     free them as soon as add returns; finish copies them again into the
**     stream's block.
**   PSOC_BUILDER_COPY_AT_FINISH: add only measures them; finish copies each
**     byte once, straight into the stream's block. The stream is as
**     self-contained as with COPY (the same bytes, pointers relocated);
**     the caller keeps them alive and unchanged until finish returns
**     (finish fails with PSOC_ERR_ARG, writing nothing out of bounds, when
**     one grew or shrank).
**   PSOC_BUILDER_BORROW: nothing is copied; the finished stream points at
**     the caller's memory, which must outlive every use of the stream (and
**     of psoc_stream_copy's copies, which keep those pointers).
**   PSOC_BUILDER_BORROW_BLOBS: BORROW for a payload whose one pointer is
**     a blob (a shader stage's bytecode, a cached PSO, a serialized root
**     signature), COPY_AT_FINISH for every other payload with pointers:
**     one mode for a caller that keeps its blobs alive and builds the
**     rest in scratch memory (the Lua module).
** The mode applies to the adds and sets that follow and survives reset;
** one stream may mix entries of several modes. */
typedef enum psoc_builder_mode {
  PSOC_BUILDER_COPY = 0,
  PSOC_BUILDER_COPY_AT_FINISH = 1,
  PSOC_BUILDER_BORROW = 2,
  PSOC_BUILDER_BORROW_BLOBS = 3
} psoc_builder_mode;
PSOC_API psoc_status psoc_builder_set_mode(psoc_builder *builder, psoc_builder_mode mode);

/* One allocation holding the stream bytes followed by every out-of-line
** array it points to (none for borrowed entries). The builder stays
** usable. */
PSOC_API psoc_status psoc_builder_finish(psoc_builder *builder, psoc_stream **out);
/* Bytes the finished stream's block takes (what finish would allocate and
** finish_into needs); 0 when it would overflow. */
PSOC_API size_t psoc_builder_finish_size(const psoc_builder *builder);
/* Finish into caller memory: the same block finish allocates, written into
** [mem, mem + capacity) instead; nothing is allocated. *needed (may be
** NULL) receives the bytes required (psoc_builder_finish_size); when
** capacity is smaller (or mem is NULL) PSOC_ERR_SIZE is returned and
** nothing written. 'mem' must be aligned for a pointer (malloc's and
** lua_newuserdatauv's alignment will do): otherwise PSOC_ERR_ARG, nothing
** written. *out is the stream living in 'mem': every psoc_stream_*
** function works on it (psoc_stream_copy makes an owned copy),
** psoc_stream_free releases nothing, and the caller frees 'mem' after its
** last use. */
PSOC_API psoc_status psoc_builder_finish_into(psoc_builder *builder, void *mem, size_t capacity,
                                     size_t *needed, psoc_stream **out);

/* psoc_builder_add's inline part. psoc_builder_add is also a macro over
** psoc_builder_add_inline, which does the common add in the caller: a
** type whose payload has no pointer fields and no padding bytes (the root
** signature, rasterizer, formats, sample desc, topology, flags...), or a
** shader stage in PSOC_BUILDER_BORROW mode, appended to a free class. The
** type's duplicate class, payload offset, stride and payload size come from
** the subobject list (PSOC_SUBOBJECTS), so they are compile-time constants
** where the type is one. Everything else (a type's first use, padding to
** zero, pointers to copy or measure, a present class, any error) calls the
** exported function, written (psoc_builder_add)(...) to get past the macro.
** The stream's bytes and every status are the same either way. Define
** PSOC_BUILDER_NO_INLINE before including psoc.h to call the function
** always (bindings that load the library dynamically must).
**
** psoc_builder_head is the first member of every builder and the only part
** of it the inline code reads or writes; it is part of the API (and ABI):
** it changes only with PSOC_VERSION_MAJOR. Do not use it otherwise.
**   image, image_size  the stream's bytes so far (the builder keeps room
**                      for one subobject of every class)
**   count              the subobjects added (psoc_builder_count)
**   inline_size        per type: its payload size when the inline code may
**                      add it in the current mode, 0 when it may not
**   slot               per duplicate class: >= 0 while one is present */
typedef struct psoc_builder_head {
  unsigned char *image;
  size_t image_size;
  size_t count;
  uint32_t inline_size[PSOC_SO_TYPE_COUNT];
  int8_t slot[PSOC_SO_TYPE_COUNT];
} psoc_builder_head;

#if defined(__cplusplus)
#define PSOC_ALIGNOF_(T) alignof(T)
#elif defined(_MSC_VER)
#define PSOC_ALIGNOF_(T) __alignof(T)
#else
#define PSOC_ALIGNOF_(T) _Alignof(T)
#endif
#if defined(__GNUC__)
#define PSOC_FORCE_INLINE_ static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define PSOC_FORCE_INLINE_ static __forceinline
#else
#define PSOC_FORCE_INLINE_ static inline
#endif

/* The layout of a subobject whose payload is a T (that of
** CD3DX12_PIPELINE_STATE_STREAM_SUBOBJECT): the payload's offset after the
** 4-byte type, and the bytes to the next subobject (8-aligned). The
** registry's payload_offset and stride are the same (test_builder checks). */
#define PSOC_SO_PAYLOAD_AT(T) ((size_t)(PSOC_ALIGNOF_(T) > 4 ? 8u : 4u))
#define PSOC_SO_STRIDE(T) ((PSOC_SO_PAYLOAD_AT(T) + sizeof(T) + 7u) & ~(size_t)7u)

/* One type's inline add; every argument after 'size' is a constant of the
** type. */
PSOC_FORCE_INLINE_ psoc_status psoc_builder_add_row_(psoc_builder *b, uint32_t type,
                                                     const void *payload, size_t size,
                                                     uint32_t cls, size_t tsize, size_t at_off,
                                                     size_t stride, unsigned bits) {
  psoc_builder_head *h = (psoc_builder_head *)(void *)b;
  unsigned char *d;
  size_t at;
  uint32_t head[2];
  uint64_t zero = 0;
  if (size != tsize || h->inline_size[type] != tsize || h->slot[cls] >= 0)
    return (psoc_builder_add)(b, type, payload, size);
  if ((bits & PSOC_SUBOBJECT_SHADER) &&
      !((const D3D12_SHADER_BYTECODE *)payload)->pShaderBytecode &&
      ((const D3D12_SHADER_BYTECODE *)payload)->BytecodeLength)
    return (psoc_builder_add)(b, type, payload, size); /* PSOC_ERR_ARG */
  at = h->image_size;
  d = h->image + at;
  head[0] = type; /* the type, then zero up to an 8-aligned payload */
  head[1] = 0;
  memcpy(d + stride - 8, &zero, 8); /* the tail padding, before the payload */
  memcpy(d, head, 8);
  memcpy(d + at_off, payload, size); /* == tsize: a constant here too */
  h->slot[cls] = (int8_t)h->count;
  h->count++;
  h->image_size = at + stride;
  return PSOC_OK;
}

PSOC_FORCE_INLINE_ psoc_status psoc_builder_add_inline(psoc_builder *builder, uint32_t type,
                                                       const void *payload,
                                                       size_t payload_size) {
  if (builder && payload) {
    switch (type) {
#define PSOC_ADD_ROW_(NAME, id, key, CLASS, kinds, T, layout, bits)                             \
  case id:                                                                                      \
    return psoc_builder_add_row_(builder, id, payload, payload_size, PSOC_SO_##CLASS, sizeof(T), \
                                 PSOC_SO_PAYLOAD_AT(T), PSOC_SO_STRIDE(T), bits);
      PSOC_SUBOBJECTS(PSOC_ADD_ROW_)
#undef PSOC_ADD_ROW_
    default: break;
    }
  }
  return (psoc_builder_add)(builder, type, payload, payload_size);
}

#ifndef PSOC_BUILDER_NO_INLINE
#define psoc_builder_add(builder, type, payload, payload_size)                                  \
  psoc_builder_add_inline(builder, type, payload, payload_size)
#endif

PSOC_API D3D12_PIPELINE_STATE_STREAM_DESC psoc_stream_desc(const psoc_stream *stream);
PSOC_API const void *psoc_stream_data(const psoc_stream *stream);
PSOC_API size_t psoc_stream_size(const psoc_stream *stream);
/* Bytes the stream's one allocation takes: the stream, every out-of-line
** array, string and blob it points to, and its header (what a copy costs). */
PSOC_API size_t psoc_stream_footprint(const psoc_stream *stream);
/* Deep copy with pointers relocated into the new block. */
PSOC_API psoc_status psoc_stream_copy(const psoc_stream *stream, const psoc_allocator *alloc,
                                      psoc_stream **out);
PSOC_API void psoc_stream_free(psoc_stream *stream);

/* ------------------------------------------------------------------ */
/* Parsing (structure only) and checking (structure plus rules)        */
/* ------------------------------------------------------------------ */

typedef struct psoc_view {
  uint32_t type;                     /* psoc_subobject_type */
  uint32_t index;                    /* position in the stream */
  size_t offset;                     /* byte offset of the type field */
  const unsigned char *payload;      /* may be unaligned: read with memcpy */
  const psoc_subobject_info *info;
} psoc_view;

/* A bounds-checked walk. psoc_walk_next returns 1 and fills 'view' for
** each well-formed subobject, 0 at the end or at the first structural
** problem, which it reports to 'diags' (may be NULL). */
typedef struct psoc_walker {
  const unsigned char *data;
  size_t size;
  size_t offset;
  uint32_t index;
  int done;
} psoc_walker;

PSOC_API void psoc_walk_init(psoc_walker *walker, const void *data, size_t size);
PSOC_API int psoc_walk_next(psoc_walker *walker, psoc_view *view, psoc_diags *diags);

/* Result of a full parse: the first subobject of each duplicate class is
** kept, under the type that appeared. */
typedef struct psoc_parsed {
  psoc_kind kind;                    /* deduced, or PSOC_KIND_NONE */
  uint32_t count;                    /* subobjects walked */
  uint32_t present;                  /* number of distinct classes present */
  int8_t has[PSOC_SO_TYPE_COUNT];    /* 1 when this exact type was kept */
  psoc_view views[PSOC_SO_TYPE_COUNT]; /* by type, valid where has[] */
  int8_t class_type[PSOC_SO_TYPE_COUNT]; /* per class base type: the type
                                            that supplied it, or -1 */
  int complete;                      /* the walk reached the end */
  int structural_errors;             /* errors found while walking */
  uint64_t type_mask;                /* bit (1 << type) set where has[] */
} psoc_parsed;

/* Walks the whole stream, records views, reports structural problems
** (zero size, truncation, trailing bytes, unknown types, duplicates) and
** deduces the kind. Never follows pointers. PSOC_OK when there is no
** error, PSOC_ERR_INVALID otherwise, PSOC_ERR_ARG on NULL out. */
PSOC_API psoc_status psoc_parse(const void *data, size_t size, psoc_parsed *out, psoc_diags *diags);

/* The view of a class present in the stream (e.g. the DEPTH_STENCIL1 view
** when asked for PSOC_SO_DEPTH_STENCIL), or NULL. */
PSOC_API const psoc_view *psoc_parsed_class(const psoc_parsed *parsed, uint32_t dup_class);

/* Capability profile: what the target device supports. Checks that depend
** on a capability read it from psoc_check_options.profile. With a NULL
** profile psoc_check applies the runtime's rules alone: no capability tier,
** optional feature or format-support table is held against the stream. */
typedef struct psoc_profile {
  const char *name;                  /* e.g. "desktop_fl12_0" */
  const char *description;
  uint32_t feature_level;            /* D3D_FEATURE_LEVEL, e.g. 0xc000 */
  uint32_t shader_model;             /* D3D_SHADER_MODEL, e.g. 0x60 = 6.0 */
  uint32_t conservative_raster_tier; /* 0 = not supported .. 3 */
  uint32_t view_instancing_tier;     /* 0 = not supported .. 3 */
  uint32_t mesh_shader_tier;         /* 0 = not supported, 1 */
  uint32_t max_sample_count;         /* largest MSAA count for every RT format */
  uint32_t node_count;               /* GPU nodes (1 on a single adapter) */
  uint8_t logic_op;                  /* OutputMergerLogicOp */
  uint8_t depth_bounds_test;         /* DepthBoundsTestSupported */
  uint8_t independent_stencil_masks; /* IndependentFrontAndBackStencilRefMaskSupported */
  uint8_t dynamic_depth_bias;        /* DynamicDepthBiasSupported */
  uint8_t dynamic_ib_strip_cut;      /* DynamicIndexBufferStripCutSupported */
  uint8_t narrow_quad_lines;         /* NarrowQuadrilateralLinesSupported */
  uint8_t forced_sample_count_16;    /* ForcedSampleCount 16 is allowed */
} psoc_profile;

/* The profile "default" names (desktop_fl12_0, a conservative feature level
** 12_0 device). psoc_check does not fall back to it: NULL means no profile. */
PSOC_API const psoc_profile *psoc_profile_default(void);
PSOC_API const psoc_profile *psoc_profile_find(const char *name); /* NULL when unknown */
PSOC_API size_t psoc_profile_count(void);
PSOC_API const psoc_profile *psoc_profile_at(size_t index);       /* NULL past the end */

enum {
  /* The stream's pointers are valid: checks may read everything they point
  ** at: input elements and their semantic names, stream-output
  ** declarations and strides, view-instance locations and shader bytecode.
  ** Implies PSOC_CHECK_FOLLOW_LAYOUT. Without either flag (raw files from
  ** disk) only the stream bytes are read. */
  PSOC_CHECK_FOLLOW_POINTERS = 1u << 0,
  /* Only the stream-format rules of DESIGN.md section 1, as the runtime's
  ** stream parser applies them: the walk (sizes, unknown types, duplicate
  ** classes) and the pipeline kind. No resolve, no field rules, no notes
  ** on irrelevant subobjects. A cheaper, weaker verdict than the default. */
  PSOC_CHECK_STRUCTURE_ONLY = 1u << 1,
  /* Warnings fail the check like errors: psoc_check returns
  ** PSOC_ERR_INVALID when it reported an error or a warning. Every
  ** diagnostic keeps its severity (psoc_diags.errors counts errors only);
  ** only the verdict is stricter (the CLI's --werror). */
  PSOC_CHECK_WERROR = 1u << 2,
  /* The layout pointers are valid: checks may read the input elements and
  ** their semantic names, the stream-output declarations and strides and
  ** the view-instance locations (the arrays a builder such as the Lua
  ** module filled in itself), but never shader bytecode, root signature
  ** blobs or cached PSO blobs. The input-layout rules that need no shader
  ** (duplicate semantic and index, formats, offsets and alignment, slots)
  ** then run without PSOC_CHECK_FOLLOW_POINTERS. */
  PSOC_CHECK_FOLLOW_LAYOUT = 1u << 3
};

/* A shader blob whose container checksum the caller already computed. */
typedef struct psoc_known_checksum {
  const void *blob;              /* pShaderBytecode, as it appears in the stream */
  size_t size;                   /* BytecodeLength */
  uint8_t checksum[16];          /* psoc_shader_checksum(blob, size, ...) */
} psoc_known_checksum;

typedef struct psoc_check_options {
  uint32_t flags;                /* PSOC_CHECK_* */
  const psoc_profile *profile;   /* NULL: the runtime's rules alone, no
                                    capability checks (a mesh pipeline, a
                                    16x forced sample count, conservative
                                    rasterization ... pass) */
} psoc_check_options;

/* The DXBC container checksum of a shader blob, the 16 bytes its header's
** digest must hold (MD5 with DXBC's final block, over the container's
** bytes from offset 20 to its size field). 0, or -1 when the blob has no
** DXBC header with a size within 'size'. */
PSOC_API int psoc_shader_checksum(const void *blob, size_t size, uint8_t out[16]);

/* Parse, then run the rules: kind deduction, irrelevant subobjects, field
** and cross-field rules, capability checks against the profile (when one
** is given), input-layout element checks (PSOC_CHECK_FOLLOW_LAYOUT or
** PSOC_CHECK_FOLLOW_POINTERS) and shader container checks
** (PSOC_CHECK_FOLLOW_POINTERS). PSOC_OK when no error (and, with
** PSOC_CHECK_WERROR, no warning) was reported, PSOC_ERR_INVALID otherwise. */
PSOC_API psoc_status psoc_check(const void *data, size_t size, const psoc_check_options *options,
                       psoc_diags *diags);
/* psoc_check for a caller that checks many pipelines sharing shader blobs:
** with PSOC_CHECK_FOLLOW_POINTERS, a blob listed in known[0..known_count)
** (matched by pointer and size) has its container checksum taken from the
** list instead of computed, so each blob's checksum is computed once
** (psoc_shader_checksum, e.g. when the blob is loaded). A wrong checksum
** in the list is reported as the container's own. Within one stream a blob
** in several slots is read once either way. */
PSOC_API psoc_status psoc_check_known(const void *data, size_t size, const psoc_check_options *options,
                             const psoc_known_checksum *known, size_t known_count,
                             psoc_diags *diags);

/* ------------------------------------------------------------------ */
/* Resolve: the effective pipeline with the runtime's defaults         */
/* ------------------------------------------------------------------ */

typedef enum psoc_origin {
  PSOC_ORIGIN_DEFAULT = 0,        /* the runtime's documented default */
  PSOC_ORIGIN_EXPLICIT = 1,       /* given in the stream */
  PSOC_ORIGIN_HIDDEN_DEFAULT = 2, /* a default that depends on other state */
  PSOC_ORIGIN_UNUSED = 3          /* irrelevant for the pipeline kind */
} psoc_origin;

PSOC_API const char *psoc_origin_name(psoc_origin origin); /* "default", "explicit", ... */

/* Superset of RASTERIZER, RASTERIZER1 and RASTERIZER2. */
typedef struct psoc_rasterizer_state {
  D3D12_FILL_MODE FillMode;
  D3D12_CULL_MODE CullMode;
  BOOL FrontCounterClockwise;
  FLOAT DepthBias;
  FLOAT DepthBiasClamp;
  FLOAT SlopeScaledDepthBias;
  BOOL DepthClipEnable;
  BOOL MultisampleEnable;
  BOOL AntialiasedLineEnable;
  psoc_line_rasterization_mode LineRasterizationMode;
  UINT ForcedSampleCount;
  D3D12_CONSERVATIVE_RASTERIZATION_MODE ConservativeRaster;
} psoc_rasterizer_state;

typedef struct psoc_resolved {
  psoc_kind kind;
  ID3D12RootSignature *root_signature;
  psoc_serialized_root_signature_desc serialized_root_signature;
  D3D12_SHADER_BYTECODE vs, ps, ds, hs, gs, cs, as, ms;
  D3D12_STREAM_OUTPUT_DESC stream_output;
  D3D12_BLEND_DESC blend;
  UINT sample_mask;
  psoc_rasterizer_state rasterizer;
  D3D12_DEPTH_STENCIL_DESC2 depth_stencil; /* superset of DS, DS1, DS2 */
  D3D12_INPUT_LAYOUT_DESC input_layout;
  D3D12_INDEX_BUFFER_STRIP_CUT_VALUE ib_strip_cut_value;
  D3D12_PRIMITIVE_TOPOLOGY_TYPE primitive_topology;
  D3D12_RT_FORMAT_ARRAY render_targets;
  DXGI_FORMAT depth_stencil_format;
  DXGI_SAMPLE_DESC sample_desc;
  UINT node_mask;
  D3D12_CACHED_PIPELINE_STATE cached_pso;
  D3D12_PIPELINE_STATE_FLAGS flags;
  D3D12_VIEW_INSTANCING_DESC view_instancing;
  /* Per duplicate class (indexed by its base type): where it came from,
  ** and which exact type supplied it (e.g. PSOC_SO_DEPTH_STENCIL1). */
  uint8_t origin[PSOC_SO_TYPE_COUNT];
  uint8_t source_type[PSOC_SO_TYPE_COUNT];
  /* Fields whose value is a hidden default. */
  uint8_t depth_enable_origin;       /* psoc_origin of DepthEnable */
  uint8_t topology_origin;           /* psoc_origin of the topology */
} psoc_resolved;

/* Resolve a parsed stream. Pointer fields are copied, never followed. */
PSOC_API psoc_status psoc_resolve(const psoc_parsed *parsed, psoc_resolved *out);

/* Conversions to and from the classic descs. */
PSOC_API psoc_status psoc_resolved_to_graphics_desc(const psoc_resolved *resolved,
                                                    D3D12_GRAPHICS_PIPELINE_STATE_DESC *out);
PSOC_API psoc_status psoc_resolved_to_compute_desc(const psoc_resolved *resolved,
                                                   D3D12_COMPUTE_PIPELINE_STATE_DESC *out);
/* Append every subobject the desc holds to a builder (all explicit). */
PSOC_API psoc_status psoc_builder_add_graphics_desc(psoc_builder *builder,
                                                    const D3D12_GRAPHICS_PIPELINE_STATE_DESC *desc);
PSOC_API psoc_status psoc_builder_add_compute_desc(psoc_builder *builder,
                                                   const D3D12_COMPUTE_PIPELINE_STATE_DESC *desc);

/* ------------------------------------------------------------------ */
/* Hash and dump                                                       */
/* ------------------------------------------------------------------ */

typedef struct psoc_hash128 {
  uint64_t lo, hi;
} psoc_hash128;

enum {
  PSOC_FOLLOW_POINTERS = 1u << 0 /* the stream's pointers are valid: read
                                    arrays, strings and blobs they point to */
};

/* Version of psoc_hash's definition. 2: XXH3-128 of the canonical word
** sequence (docs/archive.md). Version 1 (psoc 0.1's own function) gave
** other values; cooked archives record the version they were hashed with. */
#define PSOC_HASH_VERSION 2u

/* Canonical content hash: subobjects in type order, each field by value,
** blobs by content and strings by value when PSOC_FOLLOW_POINTERS is set
** (otherwise pointers hash as null/non-null), padding never. Independent of
** subobject order. 'root_signature_name', when not NULL, replaces the
** root-signature pointer in the hash. */
PSOC_API psoc_status psoc_hash(const void *data, size_t size, uint32_t flags,
                               const char *root_signature_name, psoc_hash128 *out);
/* 32 lowercase hex digits plus NUL */
PSOC_API void psoc_hash_hex(psoc_hash128 hash, char out[33]);

typedef int (*psoc_write_fn)(void *ud, const char *text, size_t length); /* 0 = ok */

/* Readable text, one subobject per block, generic over the registry. */
PSOC_API psoc_status psoc_dump(const void *data, size_t size, uint32_t flags, psoc_write_fn write,
                               void *ud);

/* Format one scalar value of a field kind (UINT, INT, BOOL, FLOAT, ENUM,
** FLAGS, COUNT): enum names, flags joined with '|'.
** Returns the length written (truncated to n-1). */
PSOC_API size_t psoc_format_scalar(uint8_t kind, unsigned size, const psoc_enum *enumeration,
                                   const unsigned char *src, char *out, size_t n);

/* ------------------------------------------------------------------ */
/* Explain, diff and JSON: the effective state as data (owner s7)      */
/* ------------------------------------------------------------------ */

/* The effective state of a stream spelt the way the material language
** spells it (docs/json.md): every field of every class the pipeline's kind
** uses, whether the stream holds it or the runtime supplies it. What
** 'psoc explain', 'psoc diff' and 'psoc dump --json' print. Paths use the
** language's keys, list indexes count from 1 ("blend.render_targets[1].src",
** "input_layout[2].semantic"); values are the language's spelling (enum
** keys, flags joined with '|', the shortest float that reads back, "true",
** "shader, 532 bytes, xxh3 a17cc518fe50981d", "append_aligned"). */

typedef struct psoc_explain_options {
  /* PSOC_FOLLOW_POINTERS: the stream's pointers are valid (a built
  ** stream): input elements, stream-output entries, view-instance
  ** locations, strings and blobs are read. Without it (raw bytes from a
  ** file) nothing is followed: an array is one row "N elements, not
  ** followed" (JSON {"count":N}), a string is "set" or "null", a blob
  ** "shader, N bytes" without its xxh3 (JSON without "xxh3"). */
  uint32_t flags;
  /* Spelt in place of the root-signature pointer (NULL: the pointer is
  ** "null" or printed with %p). */
  const char *root_signature_name;
} psoc_explain_options;

/* Row kinds (psoc_explain_row.what) */
enum {
  PSOC_EXPLAIN_FIELD = 0,  /* one value of a field */
  PSOC_EXPLAIN_VERSION = 1 /* which version of a class the stream holds:
                              path is the class key, value the type's key
                              ("rasterizer = rasterizer1"); only for present
                              classes that have several versions */
};

typedef struct psoc_explain_row {
  const char *path;      /* "rasterizer.cull" */
  const char *value;     /* "back" */
  uint32_t dup_class;    /* the class (its base type) */
  uint32_t type;         /* the type the value is read from: the stream's
                            subobject, or the class base for a default */
  uint8_t origin;        /* PSOC_ORIGIN_EXPLICIT: the stream holds the class;
                            PSOC_ORIGIN_DEFAULT: the runtime's default;
                            PSOC_ORIGIN_HIDDEN_DEFAULT: a default that depends
                            on other state (see 'note') */
  uint8_t what;          /* PSOC_EXPLAIN_FIELD or PSOC_EXPLAIN_VERSION */
  uint8_t field_kind;    /* psoc_field_kind of a FIELD row's value */
  int32_t offset;        /* byte offset in the payload of 'type' that holds
                            the value; an element of an out-of-line array
                            gives its array field's offset; -1 for a
                            VERSION row */
  const char *note;      /* HIDDEN_DEFAULT: why ("hidden default: ..."), else NULL */
} psoc_explain_row;

typedef struct psoc_explanation {
  psoc_kind kind;          /* deduced from the stream */
  uint32_t subobjects;     /* subobjects in the stream (psoc_parsed.count) */
  uint32_t render_targets; /* NumRenderTargets in effect */
  psoc_explain_row *rows;  /* in class order, fields in payload order */
  size_t count;
  /* internal */
  psoc_allocator alloc_;
  void *block_;
  size_t block_size_;
} psoc_explanation;

/* Explain a stream: one row per field of each class its kind uses, in type
** order (blend lists max(1, NumRenderTargets) render targets). The stream
** must parse (PSOC_ERR_INVALID otherwise, with nothing allocated);
** PSOC_ERR_ARG on NULL out or options. 'alloc' may be NULL. The rows and
** their strings live in one block that psoc_explain_free releases. */
PSOC_API psoc_status psoc_explain(const void *data, size_t size, const psoc_explain_options *options,
                                  const psoc_allocator *alloc, psoc_explanation *out);
PSOC_API void psoc_explain_free(psoc_explanation *explain);

typedef struct psoc_diff_row {
  const char *path;  /* "kind" for the pipeline kind, else an explain path */
  const char *a;     /* the value in A, or NULL when A has no such row */
  const char *b;     /* the value in B, or NULL */
} psoc_diff_row;

typedef struct psoc_diff {
  psoc_diff_row *rows;
  size_t count;      /* 0: the two explain the same */
  /* internal */
  psoc_allocator alloc_;
  void *block_;
  size_t block_size_;
} psoc_diff;

/* The differences between the explain rows of A and B: "kind" first when
** the kinds differ, then each row of A whose value differs in B or that B
** lacks (in A's order), then each row only B has (in B's order). Options
** per side (NULL: none). PSOC_ERR_INVALID when either stream does not
** parse. Free with psoc_diff_free. */
PSOC_API psoc_status psoc_diff_streams(const void *a, size_t a_size, const psoc_explain_options *a_options,
                                       const void *b, size_t b_size, const psoc_explain_options *b_options,
                                       const psoc_allocator *alloc, psoc_diff *out);
/* The same for two explains already made. */
PSOC_API psoc_status psoc_diff_explains(const psoc_explanation *a, const psoc_explanation *b,
                                        const psoc_allocator *alloc, psoc_diff *out);
PSOC_API void psoc_diff_free(psoc_diff *diff);

/* One JSON object for a stream (docs/json.md, "pipeline objects"):
** {"name", "kind", "root_signature", "hash" (psoc_hash with the options'
** flags and root-signature name), "subobjects" (the keys of its
** subobjects in stream order), "state" (every class the kind uses, every
** render target)}. 'name' may be NULL (null). Strings are valid UTF-8
** (bad bytes become U+FFFD); NaN and infinities are null. Written in
** pieces through 'write' (it allocates nothing); PSOC_ERR_IO when that
** fails, PSOC_ERR_INVALID when the stream does not parse, PSOC_ERR_ARG on
** NULL options or write. */
PSOC_API psoc_status psoc_json(const void *data, size_t size, const psoc_explain_options *options,
                               const char *name, psoc_write_fn write, void *ud);

#ifdef __cplusplus
}
#endif

#endif
