/*
** parse_walk.h: psoc_check's walk (parse.c), inline so that psoc_check
** (rules.c) walks without a call and psoc_walk_check is the same code
** (internal).
*/
#ifndef PSOC_PARSE_WALK_H
#define PSOC_PARSE_WALK_H

#include "internal.h"

/* The walk's view of the registry, one entry per type value: stride,
** payload offset and class base type, each read with one load; stride 0
** for values that are no type (23). */
typedef struct psoc_walk_entry {
  uint16_t stride;
  uint8_t payload_offset;
  uint8_t cls;
} psoc_walk_entry;
extern const psoc_walk_entry psoc_walk_table[PSOC_SO_TYPE_COUNT];
/* Each type's bit of the walk's type mask, by type value (0 for 23). */
extern const uint64_t psoc_walk_bits[PSOC_SO_TYPE_COUNT];

/* What psoc_parse and the walk report before walking: 1 when the stream
** cannot be walked at all (empty, or NULL). */
int psoc_parse_prologue(const void *data, size_t size, psoc_diags *diags);
/* Out of the walk's way (cold): the walk stopped at 'offset' before the end;
** the subobject at 'at' repeats a class kept earlier. */
void psoc_walked_stop(const psoc_walked *w, size_t offset, psoc_diags *diags);
void psoc_walked_duplicate(const psoc_walked *w, const unsigned char *at, psoc_diags *diags);
/* The walk from 'at', a complete subobject whose class is kept already (a
** duplicate), to where it stops, reporting every duplicate; ORs the types
** it keeps into *mask and returns where it stopped (cold). */
const unsigned char *psoc_walk_rest(psoc_walked *out, const unsigned char *at, size_t remaining,
                                    uint64_t *mask, psoc_diags *diags);

/* psoc_walk_check (internal.h). */
PSOC_FORCE_INLINE_ psoc_status psoc_walk_check_inline(const void *data, size_t size,
                                                   psoc_walked *out, psoc_diags *diags) {
  const unsigned char *bytes = data;
  size_t offset = 0;
  uint64_t mask = 0;
  int duplicates = 0;
  out->data = bytes;
  out->size = data ? size : 0;
  out->kind = PSOC_KIND_NONE;
  out->complete = 0;
  out->type_mask = 0;
  out->classes = 0;
  memset(out->class_type, -1, sizeof out->class_type);
  memcpy(out->payload, psoc_registry_defaults, sizeof out->payload);
  /* the prologue has something to say only about these */
  if ((size == 0 || !data || ((uintptr_t)data & (PSOC_PTR_SIZE - 1)) != 0) &&
      psoc_parse_prologue(data, size, diags))
    return PSOC_ERR_INVALID;
  /* psoc_parse's loop, keeping only the payload pointers. 'at' walks from
  ** 'bytes' while a type can be read (4 bytes remain); a subobject's stride
  ** is at most what remains, so 'at' never passes the end and the walk is
  ** complete exactly when it stops at the end. */
  if (size >= sizeof(uint32_t)) {
    const unsigned char *at = bytes;
    const psoc_walk_entry *table = psoc_walk_table;
    const uint64_t *bits = psoc_walk_bits;
    size_t remaining = size;
#if defined(__GNUC__)
    /* the tables' addresses held in registers through the loop (GCC would
    ** otherwise form them again in every step) */
    __asm__("" : "+r"(table), "+r"(bits));
#endif
    do {
      size_t type = psoc_rd32(at), stride;
      const psoc_walk_entry *e;
      uint32_t cls;
      if (type >= PSOC_SO_TYPE_COUNT) break;
      e = &table[type];
      stride = e->stride;
      if (stride - 1u >= remaining) break; /* no such type (stride 0), or truncated */
      cls = e->cls;
      if (out->class_type[cls] >= 0) { /* a duplicate: the rest of the walk out of line */
        duplicates = 1;
        break;
      }
      out->payload[type] = at + e->payload_offset;
      out->class_type[cls] = (int8_t)type;
      mask |= bits[type];
      at += stride;
      remaining -= stride;
    } while (remaining >= sizeof(uint32_t));
    /* the loop above calls nothing, so its tables and cursor stay in registers */
    if (duplicates) {
      uint64_t kept = mask; /* the loop's mask stays a register: its address is not taken */
      at = psoc_walk_rest(out, at, (size_t)(bytes + size - at), &kept, diags);
      mask = kept;
    }
    offset = (size_t)(at - bytes);
  }
  if (offset == size) out->complete = 1;
  else psoc_walked_stop(out, offset, diags);
  out->type_mask = mask;
  out->classes = psoc_classes_of(mask);
  /* deduce_kind on the payloads: an absent decider's payload is the
  ** registry's default, whose bytecode is null, so each deciding row is one
  ** pointer test (expanded from the registry's list) */
  {
    uint32_t n = 0, kinds = 0;
#define PSOC_DECIDE_(NAME, id, key, CLASS, kinds_, T, layout, bits)                    \
    if (((bits) & PSOC_SUBOBJECT_DECIDES_KIND) && psoc_rdptr(out->payload[id]) != 0) { \
      n++;                                                                            \
      kinds = (kinds_);                                                               \
    }
    PSOC_SUBOBJECTS(PSOC_DECIDE_)
#undef PSOC_DECIDE_
    if (n == 1) out->kind = (psoc_kind)psoc_lowest_bit(kinds);
  }
  if (!out->complete || duplicates) return PSOC_ERR_INVALID;
  return PSOC_OK;
}

#endif
