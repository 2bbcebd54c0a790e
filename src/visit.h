/*
** visit.h: the payload visitor, internal to psoc (not installed). It walks
** a subobject's payload the way the material language spells it: a
** payload of one field (besides counts) is that field under the class key,
** render-target formats are a list when nothing is lost, lists count from
** 1, D3D12_APPEND_ALIGNED_ELEMENT is named. src/explain.c (explain, diff,
** JSON) and the pso module's readback and p:explain() (bindings/lua/
** pso_convert.c) both use it, so the two spell a stream alike.
*/
#ifndef PSOC_VISIT_H
#define PSOC_VISIT_H

#include <stddef.h>
#include <stdint.h>

#include "psoc.h"

/* One leaf: a scalar, a blob, a string, an object pointer, or (pointers
** not followed) an array left unread. */
typedef struct psoc_vval {
  uint8_t kind;           /* psoc_field_kind: scalars, BLOB, STRING, OBJECT, ARRAY */
  uint8_t size;           /* scalar bytes */
  uint8_t is_shader;      /* BLOB: shader bytecode (else a data blob) */
  uint8_t append_aligned; /* UINT: an input element's D3D12_APPEND_ALIGNED_ELEMENT */
  uint8_t followed;       /* BLOB, STRING, ARRAY: the pointer may be read */
  const psoc_enum *e;     /* ENUM/FLAGS */
  const unsigned char *p; /* scalar bytes (unaligned) */
  const unsigned char *blob; /* BLOB (NULL: a null pointer) */
  size_t count;           /* BLOB: bytes; ARRAY (not followed): elements */
  const char *str;        /* STRING (NULL: a null pointer) */
  const void *ptr;        /* OBJECT pointer */
  int off;                /* byte offset in the payload (out-of-line arrays:
                             the array field's) */
} psoc_vval;

typedef struct psoc_vis psoc_vis;
struct psoc_vis {
  /* key is NULL for list elements (then index is 1-based) */
  void (*open)(psoc_vis *v, const char *key, int index, int is_list);
  void (*close)(psoc_vis *v, int is_list);
  void (*leaf)(psoc_vis *v, const char *key, int index, const psoc_vval *val);
  int fixed_limit; /* FIXED arrays of structs: at most this many (0: all) */
  int follow;      /* read through pointers (arrays, blobs, strings) */
};

/* Visit the payload of 'type' under 'key' (the class key). */
void psoc_visit_class(psoc_vis *v, const char *key, uint32_t type, const unsigned char *payload);

/* The text of a leaf as explain, diff and p:explain() show it (enum keys,
** flags joined with '|', the shortest float that reads back, blobs with
** their size and XXH3); rs_name names OBJECT fields. Returns out. */
const char *psoc_visit_leaf_text(const psoc_vval *val, const char *rs_name, char *out, size_t n);

/* Flags as keys joined with '|', unknown bits as hex; 1 when every bit has
** a name (a value the language can spell). */
int psoc_visit_flags_text(const psoc_enum *e, uint64_t v, char *out, size_t n);

/* The element count (or byte size) of the ARRAY or BLOB field f of the
** struct s at base, read from its COUNT field. */
size_t psoc_visit_count_of(const psoc_struct *s, const psoc_field *f, const unsigned char *base);

/* Index of the only field of s besides COUNT fields, or -1. */
int psoc_visit_single_field(const psoc_struct *s);

/* The payload of class cls in effect, copied into buf (room for any
** payload): the stream's, or the runtime default with its hidden defaults
** applied (depth off without a depth-stencil state or format). Returns the
** type; *present says which. */
uint32_t psoc_visit_effective_payload(const psoc_parsed *parsed, const psoc_resolved *resolved,
                                      uint32_t cls, unsigned char *buf, int *present);

#endif
