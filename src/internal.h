/*
** internal.h: helpers shared by the core's modules (not installed).
*/
#ifndef PSOC_INTERNAL_H
#define PSOC_INTERNAL_H

#include <stdio.h>
#include <string.h>

#include "psoc.h"
#include "enums.h"

#define PSOC_PTR_SIZE ((uint32_t)sizeof(void *))
#define PSOC_ALIGN_UP(x, a) (((x) + ((a)-1)) & ~(size_t)((a)-1))

/* allocator: NULL or fn == NULL selects realloc/free */
void *psoc_mem(const psoc_allocator *a, void *ptr, size_t osize, size_t nsize);
psoc_allocator psoc_alloc_or_default(const psoc_allocator *a);

/* unaligned little-endian-as-host reads from stream bytes */
static inline uint32_t psoc_rd32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline uint64_t psoc_rdptr(const unsigned char *p) {
  uint64_t v = 0;
  memcpy(&v, p, sizeof(void *));
  return v;
}
static inline uint8_t psoc_rd8(const unsigned char *p) { return *p; }

/* Read a scalar field of 'kind' and 'size' bytes as a 64-bit pattern. */
uint64_t psoc_read_scalar(const unsigned char *p, unsigned size);

/* The element count (ARRAY) or byte size (BLOB) of field 'f' of struct
** 's' whose bytes start at 'base': read from the COUNT field that lives at
** f->count_offset, with that field's size. */
size_t psoc_field_count(const psoc_struct *s, const psoc_field *f, const unsigned char *base);

/* Content hash of a byte range (hash.c); used for blob identities. */
psoc_hash128 psoc_hash_bytes(const void *data, size_t size);

/* The registry's rows, indexed by type (registry.c); row 23 has no name. */
extern const psoc_subobject_info psoc_registry_rows[PSOC_SO_TYPE_COUNT];

/* psoc_subobject_info_get without the call, for the walk's hot path. */
static inline const psoc_subobject_info *psoc_info(uint32_t type) {
  return type < PSOC_SO_TYPE_COUNT && psoc_registry_rows[type].name ? &psoc_registry_rows[type]
                                                                     : NULL;
}

/* The base type of the duplicate class 'type' belongs to (type itself for
** ordinary types); PSOC_SO_TYPE_COUNT for unknown types. */
uint32_t psoc_class_of(uint32_t type);

#endif
