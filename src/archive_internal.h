/*
** archive_internal.h: what the archive writer (archive_write.c) and reader
** (archive_read.c) share; the format is docs/archive.md.
*/
#ifndef PSOC_ARCHIVE_INTERNAL_H
#define PSOC_ARCHIVE_INTERNAL_H

#include <stdarg.h>

#include "internal.h"
#include "psoc_archive.h"
#include "xxh.h"

#define ARC_HEADER_SIZE 96u
#define ARC_TOC_ENTRY 32u
#define ARC_PIPE_ENTRY 64u
#define ARC_COMP_ENTRY 48u
#define ARC_END_SIZE 16u
#define ARC_ALIGN 16u
#define ARC_NAME_MAX 65535u
#define ARC_NO_STRING 0xffffffffu

/* Header fields (byte offsets). */
enum {
  ARC_H_MAGIC = 0,
  ARC_H_VERSION = 8,
  ARC_H_HEADER_SIZE = 12,
  ARC_H_POINTER_SIZE = 16,
  ARC_H_HASH_VERSION = 20,
  ARC_H_PSOC_VERSION = 24,
  ARC_H_SUBOBJECT_MASK = 28,
  ARC_H_SUBOBJECT_PRINT = 32,
  ARC_H_FILE_SIZE = 40,
  ARC_H_TOC_OFFSET = 48,
  ARC_H_TOC_COUNT = 52,
  ARC_H_TOC_CHECKSUM = 56,
  ARC_H_VERSION_STRING = 64,
  ARC_H_RESERVED = 80,
  ARC_H_CHECKSUM = 88
};

/* The tables, in file order (the table of contents lists them so). */
enum { ARC_T_PIPE, ARC_T_NAME, ARC_T_REFS, ARC_T_HIDX, ARC_T_COMP, ARC_T_RECS, ARC_T_DATA, ARC_TABLES };
/* The 8 bytes opening the header and the end marker. */
extern const unsigned char arc_magic[8], arc_end_magic[8];
extern const char arc_table_tags[ARC_TABLES][5];   /* "PIPE", ... */
extern const char *const arc_table_names[ARC_TABLES]; /* "pipeline table", ... */

/* Pipeline-table entry fields. */
enum {
  ARC_P_NAME = 0, ARC_P_NAME_LEN = 4, ARC_P_RS = 8, ARC_P_RS_LEN = 12,
  ARC_P_HASH_LO = 16, ARC_P_HASH_HI = 24, ARC_P_KIND = 32, ARC_P_REC_SIZE = 36,
  ARC_P_REC_OFFSET = 40, ARC_P_REF_FIRST = 44, ARC_P_REF_COUNT = 48, ARC_P_RESERVED = 52,
  ARC_P_REC_CHECKSUM = 56
};
/* Component-table entry fields. */
enum {
  ARC_C_KIND = 0, ARC_C_COUNT = 4, ARC_C_USERS = 8, ARC_C_STRIDE = 12, ARC_C_OFFSET = 16,
  ARC_C_SIZE = 24, ARC_C_CHECKSUM = 32, ARC_C_RESERVED = 40
};

static inline void arc_put32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
}
static inline void arc_put64(unsigned char *p, uint64_t v) {
  arc_put32(p, (uint32_t)v);
  arc_put32(p + 4, (uint32_t)(v >> 32));
}
static inline uint32_t arc_get32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t arc_get64(const unsigned char *p) {
  return (uint64_t)arc_get32(p) | (uint64_t)arc_get32(p + 4) << 32;
}
/* A pointer slot of a record: a little-endian integer of pointer size. */
static inline void arc_put_slot(unsigned char *p, uint64_t v) {
  if (PSOC_PTR_SIZE == 8)
    arc_put64(p, v);
  else
    arc_put32(p, (uint32_t)v);
}
static inline uint64_t arc_get_slot(const unsigned char *p) {
  return PSOC_PTR_SIZE == 8 ? arc_get64(p) : arc_get32(p);
}
static inline uint64_t arc_align(uint64_t n) { return (n + (ARC_ALIGN - 1)) & ~(uint64_t)(ARC_ALIGN - 1); }

/* What the cook's build knew: version, subobject set and its layout. */
uint32_t arc_psoc_version(void);
uint32_t arc_subobject_mask(void);
uint64_t arc_subobject_fingerprint(void);

#define ARC_SLOT_STRINGS 4
#define ARC_STRINGS_DEEP 0xff

/* One pointer field of a stream (or record), found by arc_slots. */
typedef struct arc_slot {
  uint32_t type;               /* the subobject's type */
  const psoc_struct *s;        /* the struct holding the field */
  const psoc_field *f;
  size_t base;                 /* offset of that struct in the stream */
  size_t offset;               /* offset of the pointer in the stream */
  uint32_t kind;               /* component kind; 0 for the root-signature object */
  uint32_t count_size;         /* bytes of the field's COUNT field */
  /* String fields of one element (arrays of structs), as offsets in the
  ** element; nstrings ARC_STRINGS_DEEP when there are more than fit. */
  uint8_t nstrings;
  uint16_t strings[ARC_SLOT_STRINGS];
} arc_slot;

/* Return non-zero to stop the walk (arc_slots returns it). */
typedef int (*arc_slot_fn)(void *ud, const arc_slot *slot);

/* Every pointer field of a well-formed stream, in stream order. Returns 0,
** fn's non-zero result, or -1 when a pointer field has no component kind
** (a registry entry the format does not know how to store). */
int arc_slots(const unsigned char *data, size_t size, arc_slot_fn fn, void *ud);

/* The same over a stream psoc_parse accepted (its views, in type order:
** one walk less). */
int arc_slots_parsed(const psoc_parsed *parsed, arc_slot_fn fn, void *ud);
/* The same over a stream already verified (psoc_parse accepted it): a walk
** by the registry's strides without the parser's checks, still in bounds.
** -1 on an unknown type or an overrun. */
int arc_slots_trusted(const unsigned char *data, size_t size, arc_slot_fn fn, void *ud);

/* The element count (ARRAY) or byte size (BLOB) of a slot's field. */
static inline size_t arc_slot_count(const unsigned char *data, const arc_slot *slot) {
  return (size_t)psoc_read_scalar(data + slot->base + slot->f->count_offset, slot->count_size);
}

/* The component kind a pointer field of subobject 'type' is stored as, or
** 0; and back: the field a kind comes from (NULL when unknown). */
uint32_t arc_component_kind(uint32_t type, const psoc_field *f);
const psoc_field *arc_kind_field(uint32_t kind);
/* The element struct of an array kind whose elements hold strings, or NULL. */
const psoc_struct *arc_kind_string_elements(uint32_t kind);
/* Whether a kind's elements hold strings (input layouts, SO declarations). */
static inline int arc_kind_strings(uint32_t kind) {
  return kind == PSOC_ARCHIVE_COMPONENT_INPUT_LAYOUT || kind == PSOC_ARCHIVE_COMPONENT_SO_DECLARATION;
}

void arc_errf(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 3, 4)))
#endif
    ;

/* ---- raw parts for the writer's merge (owner s6; archive_read.c's end) ---- */

/* A pipeline as its archive stores it: the record (pointer slots hold
** component index + 1 of that archive, 1 for a root-signature name). */
typedef struct arc_raw_pipe {
  const char *name, *rs;       /* rs NULL: none */
  size_t name_len, rs_len;
  psoc_hash128 hash;
  uint32_t kind;
  const unsigned char *record;
  size_t record_size;
  uint64_t checksum;           /* XXH3-64 of the record as stored (checked) */
} arc_raw_pipe;

typedef struct arc_raw_comp {
  uint32_t kind, count, stride;
  uint64_t hash;               /* XXH3-64 of its bytes */
  size_t size;
  const unsigned char *data;
} arc_raw_comp;

/* Pipeline 'index' once its record and every component it references
** verify (in lazy mode they are verified now): PSOC_OK, PSOC_ERR_INVALID
** with the damage in 'err' (the message psoc_archive_verify gives for a
** lost pipeline), PSOC_ERR_ARG past the end. */
psoc_status arc_raw_pipeline(psoc_archive *a, size_t index, arc_raw_pipe *out, char *err,
                             size_t errlen);
/* Component 'index' once it verifies: PSOC_OK, PSOC_ERR_INVALID, PSOC_ERR_ARG. */
psoc_status arc_raw_component(psoc_archive *a, size_t index, arc_raw_comp *out);

#endif
