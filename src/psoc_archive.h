/*
** psoc_archive.h: cooked pipeline archives (docs/archive.md).
**
** A cook turns pipeline state streams, whose pointers are only valid in
** the process that built them, into one file an engine ships: a pipeline
** table (name, canonical hash, kind, root-signature name, and a record of
** the stream with every pointer replaced by a component reference) and a
** content-addressed component store (shader bytecode, input layouts with
** their semantic names, stream-output declarations and strides,
** view-instance locations, serialized root signatures, cached PSO blobs),
** each component stored once however many pipelines use it. Every
** component and every table carries an XXH3 checksum.
**
** The writer is deterministic (the bytes depend on the set of pipelines
** only, never on the order they were added, the time or the machine) and
** writes files atomically. The reader needs libpsoc alone (no Lua): it
** maps a file or reads a caller-owned buffer, verifies at open or lazily
** per pipeline, and hands back D3D12_PIPELINE_STATE_STREAM_DESCs built in
** a caller-given scratch buffer whose pointers point into the archive (and
** into copies of the input-element and stream-output arrays, relocated once
** per component when it is verified), with no heap allocation per
** pipeline. A damaged component loses only the pipelines that use it.
**
** Like the rest of libpsoc: never prints, never aborts, never reads
** outside the bytes it was given. Functions that take 'err'/'errlen' write
** a one-line message there on failure ("" on success); err may be NULL.
*/
#ifndef PSOC_ARCHIVE_H
#define PSOC_ARCHIVE_H

#include "psoc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the file format this psoc reads and writes. */
#define PSOC_ARCHIVE_FORMAT_VERSION 1u

/* ------------------------------------------------------------------ */
/* Components                                                          */
/* ------------------------------------------------------------------ */

typedef enum psoc_archive_component_kind {
  PSOC_ARCHIVE_COMPONENT_SHADER = 1,          /* bytecode of VS, PS, DS, HS, GS, CS, AS, MS */
  PSOC_ARCHIVE_COMPONENT_INPUT_LAYOUT = 2,    /* D3D12_INPUT_ELEMENT_DESCs + semantic names */
  PSOC_ARCHIVE_COMPONENT_SO_DECLARATION = 3,  /* D3D12_SO_DECLARATION_ENTRYs + semantic names */
  PSOC_ARCHIVE_COMPONENT_SO_STRIDES = 4,      /* stream-output buffer strides (UINT) */
  PSOC_ARCHIVE_COMPONENT_VIEW_INSTANCES = 5,  /* D3D12_VIEW_INSTANCE_LOCATIONs */
  PSOC_ARCHIVE_COMPONENT_ROOT_SIGNATURE = 6,  /* a serialized root signature blob */
  PSOC_ARCHIVE_COMPONENT_CACHED_BLOB = 7,     /* a CACHED_PSO blob */
  PSOC_ARCHIVE_COMPONENT_KIND_COUNT_
} psoc_archive_component_kind;

/* "shader", "input_layout", "so_declaration", "so_strides",
** "view_instances", "root_signature", "cached_blob"; "unknown" otherwise. */
PSOC_API const char *psoc_archive_component_kind_name(uint32_t kind);

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

typedef struct psoc_archive_writer psoc_archive_writer;
typedef struct psoc_archive psoc_archive;

/* A new, empty writer; memory from 'alloc' (NULL: realloc/free). */
PSOC_API psoc_status psoc_archive_writer_create(const psoc_allocator *alloc, psoc_archive_writer **out);
PSOC_API void psoc_archive_writer_free(psoc_archive_writer *w);

/* Make room for 'pipelines' pipelines more than w holds now: its pipeline
** table and name index grow once to that size instead of doubling as the
** pipelines arrive (each doubling moves the table into fresh memory, a
** page fault per 4 KiB). Only a hint: adding more than reserved still
** works, and reserving changes no byte written. PSOC_OK, PSOC_ERR_ARG (w
** NULL), or PSOC_ERR_NOMEM (w unchanged). */
PSOC_API psoc_status psoc_archive_writer_reserve(psoc_archive_writer *w, size_t pipelines);

/* Add one pipeline. 'stream' is a stream whose pointers are valid in this
** process (a psoc_stream, a psol_pipeline's stream, a hand-built one):
** every array, string and blob it points to is read and stored as a
** component (once per content in the whole archive). 'root_signature' is
** the name of the pipeline's root signature, or NULL: the ROOT_SIGNATURE
** subobject's pointer is not stored, the name is, and a loader maps it back
** through its callback. The stream must be structurally valid (psoc_parse
** succeeds); its field values are not checked here (cook tools run
** psoc_check first). The canonical hash recorded is psoc_hash(stream,
** PSOC_FOLLOW_POINTERS, root_signature): what psol_pipeline.hash holds.
** Returns
**   PSOC_ERR_ARG        NULL w, name or stream, a name longer than 65535
**                       bytes or holding a NUL
**   PSOC_ERR_INVALID    the stream does not parse, a pointer field is NULL
**                       with a non-zero count, a string is missing, or a
**                       ROOT_SIGNATURE object is set without a name
**   PSOC_ERR_DUPLICATE  'name' was added before with different content
**                       (the same name with the same hash and root
**                       signature is accepted once: merging a cook unit
**                       twice is harmless)
**   PSOC_ERR_SIZE       the archive would pass 4 GiB of records or 2^32
**                       pipelines or components
**   PSOC_ERR_TYPE       a pointer field the format has no component kind
**                       for (a registry entry newer than the format)
**   PSOC_ERR_NOMEM
** On failure the writer is unchanged. */
PSOC_API psoc_status psoc_archive_writer_add(psoc_archive_writer *w, const char *name,
                                    const char *root_signature, const void *stream, size_t size,
                                    char *err, size_t errlen);

/* Add every pipeline of an opened archive (merging cook units), with the
** result psoc_archive_writer_add of its stream would give: each record is
** copied as the archive verified it, its component references renumbered,
** and each component it uses interned by its checksum (nothing is loaded,
** parsed or hashed again; a lazily opened archive verifies the pipelines
** as they are copied). A damaged pipeline or a name clash fails the call
** (PSOC_ERR_INVALID, PSOC_ERR_DUPLICATE) with the pipelines added before
** it kept. */
PSOC_API psoc_status psoc_archive_writer_add_archive(psoc_archive_writer *w, psoc_archive *a, char *err,
                                            size_t errlen);

/* Add some pipelines of an opened archive: those at indices[0..count), in
** that order, each exactly as psoc_archive_writer_add_archive adds it.
** 'map' (NULL, or psoc_archive_component_count(a) entries that the caller
** sets to PSOC_ARCHIVE_MAP_EMPTY before the first call and then passes,
** unchanged, to every later call with the same writer and archive) records
** which writer component each of a's components became, so that a
** component shared by pipelines added in several calls is compared with
** the writer's copy once, not once per call. An index out of range is
** PSOC_ERR_ARG; failures as psoc_archive_writer_add_archive's, with the
** pipelines added before the failing one kept (and 'map' still valid). */
#define PSOC_ARCHIVE_MAP_EMPTY 0xFFFFFFFFu
PSOC_API psoc_status psoc_archive_writer_add_archive_pipelines(psoc_archive_writer *w,
                                                               psoc_archive *a,
                                                               const size_t *indices, size_t count,
                                                               uint32_t *map, char *err,
                                                               size_t errlen);
/* psoc_archive_writer_add_archive_pipelines without copying the records:
** the writer keeps pointers to the bytes 'a' verified (each reference's
** writer id beside them), so 'a' must stay open, over memory that does not
** change, until the writer is freed. Components are copied as before. The
** bytes written are the same (psoc cook borrows from its pack: 7 MB of
** records a re-cook of 10,000 pipelines no longer copies). */
PSOC_API psoc_status psoc_archive_writer_borrow_archive_pipelines(psoc_archive_writer *w,
                                                                  psoc_archive *a,
                                                                  const size_t *indices,
                                                                  size_t count, uint32_t *map,
                                                                  char *err, size_t errlen);

/* Pipelines added so far, unique components, their bytes, and the bytes
** the components would take without sharing (every reference counted). */
typedef struct psoc_archive_writer_stats {
  size_t pipelines;
  size_t components;
  uint64_t component_bytes;
  uint64_t referenced_bytes;
} psoc_archive_writer_stats;
PSOC_API void psoc_archive_writer_stats_get(const psoc_archive_writer *w, psoc_archive_writer_stats *out);

/* Serialize. The bytes depend only on the set of pipelines added (names,
** root-signature names and stream content), never on the add order. They
** belong to the writer and stay valid until the next add, finish or free
** (a finish with nothing added since gives the same bytes again at once). */
PSOC_API psoc_status psoc_archive_writer_finish(psoc_archive_writer *w, const void **data, size_t *size);

/* Finish, then write the archive to 'path' atomically: a temporary file in
** the same folder, written, flushed to disk (fsync) and renamed over
** 'path'. On any failure the temporary file is removed and a previous file
** at 'path' is untouched. PSOC_ERR_IO with the OS's reason in 'err'. Unless
** finished already, the file is streamed in aligned 2 MB pieces through a
** buffer from the writer's allocator (stdio's own when that fails), which
** the page cache keeps in large folios for a reader mapping it next. */
PSOC_API psoc_status psoc_archive_write_file(psoc_archive_writer *w, const char *path, char *err,
                                    size_t errlen);

/* ------------------------------------------------------------------ */
/* Reader                                                              */
/* ------------------------------------------------------------------ */

enum {
  /* Verify every record and component checksum (and the structure of
  ** every record and component) at open. Damaged parts are remembered:
  ** the pipelines that use them fail to load, the others load. */
  PSOC_ARCHIVE_VERIFY_ALL = 1u << 0,
  /* Verify a pipeline's record and components when it is first loaded
  ** (each component once). Open then checks only the header, the table of
  ** contents and the tables, and costs O(tables). */
  PSOC_ARCHIVE_VERIFY_LAZY = 1u << 1,
  /* With PSOC_ARCHIVE_VERIFY_ALL: fail the open on any damage instead of
  ** losing the pipelines concerned (the message names the first damage). */
  PSOC_ARCHIVE_REJECT_DAMAGED = 1u << 2
};

/* Open the archive at 'path', mapped read-only. 'flags' holds
** PSOC_ARCHIVE_VERIFY_ALL or PSOC_ARCHIVE_VERIFY_LAZY (neither: LAZY), and
** optionally PSOC_ARCHIVE_REJECT_DAMAGED. Returns
**   PSOC_ERR_ARG      NULL path or out, unknown flags
**   PSOC_ERR_IO       the file cannot be opened or mapped
**   PSOC_ERR_INVALID  not a psoc archive, another format version, pointer
**                     size, hash version or subobject set, truncated, or a
**                     damaged header, table of contents or table; with
**                     PSOC_ARCHIVE_REJECT_DAMAGED any damage
**   PSOC_ERR_NOMEM
** 'alloc' (NULL: realloc/free) serves the archive object only. */
PSOC_API psoc_status psoc_archive_open_file(const char *path, uint32_t flags, const psoc_allocator *alloc,
                                   psoc_archive **out, char *err, size_t errlen);
/* The same over 'size' bytes at 'data', which the caller owns and keeps
** unchanged until psoc_archive_close. 'data' must be 16-byte aligned
** (PSOC_ERR_ARG otherwise): loaded streams point into it. */
PSOC_API psoc_status psoc_archive_open_memory(const void *data, size_t size, uint32_t flags,
                                     const psoc_allocator *alloc, psoc_archive **out, char *err,
                                     size_t errlen);
/* Unmap (open_file) and free. Loaded streams point into the archive: they
** are invalid afterwards. NULL is ignored. */
PSOC_API void psoc_archive_close(psoc_archive *a);

/* What the header says. */
typedef struct psoc_archive_info {
  uint32_t format_version;     /* PSOC_ARCHIVE_FORMAT_VERSION */
  uint32_t pointer_size;       /* 8 (or 4) */
  uint32_t hash_version;       /* PSOC_HASH_VERSION of the cook */
  char psoc_version[16];       /* PSOC_VERSION_STRING of the cook */
  uint32_t subobject_mask;     /* bit t set: subobject type t known to the cook */
  size_t pipelines;
  size_t components;
  uint64_t file_size;
  uint64_t component_bytes;    /* bytes of the component store */
  uint64_t table_bytes;        /* header, table of contents, tables, records, end marker */
} psoc_archive_info;
PSOC_API void psoc_archive_info_get(const psoc_archive *a, psoc_archive_info *out);

PSOC_API size_t psoc_archive_count(const psoc_archive *a);

/* One pipeline. Pointers point into the archive and live until close. */
typedef struct psoc_archive_entry {
  const char *name;            /* NUL-terminated */
  const char *root_signature;  /* NUL-terminated, or NULL when none */
  psoc_hash128 hash;           /* psoc_hash(stream, PSOC_FOLLOW_POINTERS, root_signature) */
  psoc_kind kind;
  size_t stream_size;          /* bytes of the stream psoc_archive_load makes */
  size_t load_size;            /* scratch bytes psoc_archive_load needs: the
                                  stream's size rounded up to 8 */
  size_t component_count;      /* components it references */
  uint64_t component_bytes;    /* their bytes */
} psoc_archive_entry;

/* Entries are sorted by name (bytewise). PSOC_ERR_ARG past the end. */
PSOC_API psoc_status psoc_archive_entry_get(const psoc_archive *a, size_t index, psoc_archive_entry *out);
/* The i-th component index the pipeline references (ascending). */
PSOC_API psoc_status psoc_archive_entry_component(const psoc_archive *a, size_t index, size_t i,
                                         size_t *component);

#define PSOC_ARCHIVE_NOT_FOUND ((size_t)-1)
/* Index of the pipeline called 'name' (binary search), or
** PSOC_ARCHIVE_NOT_FOUND. */
PSOC_API size_t psoc_archive_find(const psoc_archive *a, const char *name);
/* Index of the first pipeline (in name order) with this canonical hash,
** or PSOC_ARCHIVE_NOT_FOUND. */
PSOC_API size_t psoc_archive_find_hash(const psoc_archive *a, psoc_hash128 hash);

/* One component of the store (for listings such as psoc ls). */
typedef struct psoc_archive_component {
  uint32_t kind;               /* psoc_archive_component_kind */
  uint64_t size;               /* bytes */
  uint64_t hash;               /* XXH3-64 of its bytes: its identity and checksum */
  uint32_t count;              /* elements (arrays), 0 for blobs */
  uint32_t users;              /* pipelines referencing it */
  const void *data;            /* in the archive; unverified in lazy mode */
} psoc_archive_component;

PSOC_API size_t psoc_archive_component_count(const psoc_archive *a);
PSOC_API psoc_status psoc_archive_component_get(const psoc_archive *a, size_t index,
                                       psoc_archive_component *out);

/* ---- loading ------------------------------------------------------- */

enum {
  /* Pipelines cooked with a root-signature name load with a NULL
  ** ROOT_SIGNATURE pointer when no callback is given (inspection tools);
  ** without this flag that is an error. */
  PSOC_ARCHIVE_LOAD_NULL_ROOT_SIGNATURE = 1u << 0
};

typedef struct psoc_archive_load_options {
  /* Maps a root-signature name to an ID3D12RootSignature*. A NULL result
  ** fails the load (PSOC_ERR_INVALID, the message names the signature).
  ** Pipelines carrying a SERIALIZED_ROOT_SIGNATURE subobject get its blob
  ** from the archive and need no callback. */
  void *(*resolve_root_signature)(void *ud, const char *name);
  void *ud;
  uint32_t flags;              /* PSOC_ARCHIVE_LOAD_* */
} psoc_archive_load_options;

/* Build pipeline 'index' into 'scratch' (8-byte aligned, 'scratch_size'
** bytes; may be NULL when scratch_size is 0): its stream, whose pointers
** are patched in. Bytecode, blobs, strides and view-instance locations are
** pointed at in the archive itself; input-element and stream-output arrays,
** whose semantic-name pointers must be real pointers, at copies the archive
** object relocated once per component when it verified it (the names stay
** in the archive; loaded streams share the copies). '*desc' is then ready for
** ID3D12Device2::CreatePipelineState and valid while the archive is open
** and the scratch unchanged; '*needed' (may be NULL) receives the scratch
** bytes required (psoc_archive_entry.load_size). No heap allocation.
** 'opts' may be NULL (no callback, no flags). Returns
**   PSOC_ERR_ARG      NULL archive or desc, index past the end, unaligned
**                     scratch
**   PSOC_ERR_SIZE     the scratch is too small (*needed says how much)
**   PSOC_ERR_INVALID  the pipeline's record or one of its components is
**                     damaged, or its root signature did not resolve
** In lazy mode the first load of a pipeline verifies it; lazy archives
** must not be loaded from several threads at once (VERIFY_ALL ones may). */
PSOC_API psoc_status psoc_archive_load(psoc_archive *a, size_t index, const psoc_archive_load_options *opts,
                              void *scratch, size_t scratch_size,
                              D3D12_PIPELINE_STATE_STREAM_DESC *desc, size_t *needed, char *err,
                              size_t errlen);

/* ---- verifying ----------------------------------------------------- */

typedef enum psoc_archive_damage_kind {
  PSOC_ARCHIVE_DAMAGE_COMPONENT = 1, /* index: the component */
  PSOC_ARCHIVE_DAMAGE_RECORD = 2,    /* index: the pipeline whose record is damaged */
  PSOC_ARCHIVE_LOST_PIPELINE = 3     /* index: a pipeline that cannot load */
} psoc_archive_damage_kind;

typedef struct psoc_archive_damage {
  uint32_t what;               /* psoc_archive_damage_kind */
  size_t index;
  const char *name;            /* the pipeline's name (RECORD, LOST_PIPELINE), else NULL */
  const char *message;         /* one line, e.g. "component 4 (shader, 812 bytes): checksum
                                  mismatch" or "pipeline 'lit' lost: uses damaged component 4" */
} psoc_archive_damage;

/* Return non-zero to stop the verification early. */
typedef int (*psoc_archive_damage_fn)(void *ud, const psoc_archive_damage *damage);

/* Check every record and component now (whatever the open mode), report
** each damaged component and record and then each pipeline lost to them
** (through 'fn', which may be NULL), and remember the verdicts for later
** loads. '*lost' (may be NULL) receives the number of pipelines that
** cannot load. PSOC_OK when nothing is damaged, PSOC_ERR_INVALID
** otherwise. */
PSOC_API psoc_status psoc_archive_verify(psoc_archive *a, psoc_archive_damage_fn fn, void *ud,
                                size_t *lost);

/* ------------------------------------------------------------------ */
/* Derived pipelines                                                   */
/* ------------------------------------------------------------------ */

/* One replaced or added subobject: 'payload' is its payload struct (e.g.
** D3D12_RASTERIZER_DESC for PSOC_SO_RASTERIZER) and 'payload_size' its
** size. */
typedef struct psoc_archive_override {
  uint32_t type;               /* psoc_subobject_type */
  const void *payload;
  size_t payload_size;
} psoc_archive_override;

/* A variant of 'base' (typically a stream from psoc_archive_load) built in
** 'scratch' (8-byte aligned): every subobject of 'base' whose duplicate
** class an override names is replaced by that override (in place; e.g. a
** RASTERIZER2 override replaces a RASTERIZER), the other overrides are
** appended in their order, and the rest is copied. No array, string or
** blob is copied: the variant shares the base's components (so the base's
** archive and scratch must outlive it) and points at the overrides'
** own arrays and blobs, if they have any. Its psoc_hash equals the hash of
** cooking the same variant. '*needed' (may be NULL) receives the bytes
** required. Returns PSOC_ERR_ARG (NULL arguments, unaligned scratch),
** PSOC_ERR_TYPE (unknown override type), PSOC_ERR_SIZE (a payload of the
** wrong size, or the scratch too small: see *needed), PSOC_ERR_DUPLICATE
** (two overrides of one class), PSOC_ERR_INVALID (the base does not
** parse). */
PSOC_API psoc_status psoc_archive_derive(const D3D12_PIPELINE_STATE_STREAM_DESC *base,
                                const psoc_archive_override *overrides, size_t override_count,
                                void *scratch, size_t scratch_size,
                                D3D12_PIPELINE_STATE_STREAM_DESC *out, size_t *needed);

#ifdef __cplusplus
}
#endif

#endif
