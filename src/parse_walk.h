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
/* The walk's mask: a base type's bit (a class) stays set while the class
** is free and is cleared when a type of the class is kept; a version's bit
** (DEPTH_STENCIL1, ...) is set when it is kept. It starts as the base types
** (PSOC_WALK_FREE). By type value, in one object (one base register for the
** three): 'cls' is the type's class bit, which the mask still holds where
** the type may be kept (0 for values that are no type, such as 23: so the
** loop stops there too); 'flip' is what keeping the type XORs into the
** mask (its class bit, and its own where it is a version). */
#define PSOC_WALK_FREE (PSOC_KNOWN_TYPES & ~PSOC_VERSION_TYPES)
typedef struct psoc_walk_tables {
  psoc_walk_entry entry[PSOC_SO_TYPE_COUNT];
  uint64_t cls[PSOC_SO_TYPE_COUNT];
  uint64_t flip[PSOC_SO_TYPE_COUNT];
} psoc_walk_tables;
extern const psoc_walk_tables psoc_walk_tables_;
#define psoc_walk_table (psoc_walk_tables_.entry)

/* The absent types whose payload the walk sets to the registry's default:
** all but those only read where present (the shaders, root signature and
** versions) and SAMPLE_MASK (no rule reads it). They are copied as one run
** of types and one more (statically asserted), fewer moves than all. */
#define PSOC_WALK_DEFAULTS                                                                    \
  (PSOC_KNOWN_TYPES & ~(PSOC_SHADER_TYPES | PSOC_VERSION_TYPES |                              \
                        PSOC_TYPE_BIT(PSOC_SO_ROOT_SIGNATURE) | PSOC_TYPE_BIT(PSOC_SO_SAMPLE_MASK)))
#define PSOC_WALK_RUN_FIRST_ PSOC_SO_STREAM_OUTPUT
#define PSOC_WALK_RUN_END_ (PSOC_SO_VIEW_INSTANCING + 1)
_Static_assert((PSOC_WALK_DEFAULTS & ~(((PSOC_TYPE_BIT(PSOC_WALK_RUN_END_) - 1) &
                                        ~(PSOC_TYPE_BIT(PSOC_WALK_RUN_FIRST_) - 1)) |
                                       PSOC_TYPE_BIT(PSOC_SO_SERIALIZED_ROOT_SIGNATURE))) == 0,
               "the walk's defaults lie in its run and SERIALIZED_ROOT_SIGNATURE");

/* The classes present by the walk's mask. */
static inline uint64_t psoc_walk_classes_of(uint64_t mask) {
  return PSOC_WALK_FREE & ~mask;
}
/* The types kept by the walk's mask: the versions kept, and the classes
** present that no version of theirs brought (one type per class is kept). */
static inline uint64_t psoc_walk_types_of(uint64_t mask) {
  uint64_t types = PSOC_WALK_FREE & ~mask, v;
  for (v = mask & PSOC_VERSION_TYPES; v; v &= v - 1) {
    uint32_t t = psoc_lowest_bit(v);
    types = (types & ~psoc_registry_class_bits[t]) | PSOC_TYPE_BIT(t);
  }
  return types;
}

/* What psoc_parse and the walk report before walking: 1 when the stream
** cannot be walked at all (empty, or NULL). */
int psoc_parse_prologue(const void *data, size_t size, psoc_diags *diags);
/* Out of the walk's way (cold): the walk stopped at 'offset' before the end;
** the subobject at 'at' repeats a class kept earlier ('mask': the walk's
** mask so far). */
void psoc_walked_stop(const psoc_walked *w, size_t offset, psoc_diags *diags);
void psoc_walked_duplicate(const psoc_walked *w, const unsigned char *at, uint64_t mask,
                           psoc_diags *diags);
/* The walk from 'at', where the inline loop left it (a duplicate, or 23),
** to where it stops, reporting every duplicate; ORs what it keeps into the
** walk's *mask and returns where it stopped (cold). */
const unsigned char *psoc_walk_rest(psoc_walked *out, const unsigned char *at, size_t remaining,
                                    uint64_t *mask, psoc_diags *diags);

/* psoc_walk_check (internal.h). */
PSOC_FORCE_INLINE_ psoc_status psoc_walk_check_inline(const void *data, size_t size,
                                                   psoc_walked *out, psoc_diags *diags) {
  const unsigned char *bytes = data;
  size_t offset = 0;
  uint64_t mask = PSOC_WALK_FREE;
  int stopped = 0;
  out->data = bytes;
  out->size = data ? size : 0;
  out->kind = PSOC_KIND_NONE;
  out->complete = 0;
  memcpy(out->payload + PSOC_WALK_RUN_FIRST_, psoc_registry_defaults + PSOC_WALK_RUN_FIRST_,
         (PSOC_WALK_RUN_END_ - PSOC_WALK_RUN_FIRST_) * sizeof out->payload[0]);
  out->payload[PSOC_SO_SERIALIZED_ROOT_SIGNATURE] =
      psoc_registry_defaults[PSOC_SO_SERIALIZED_ROOT_SIGNATURE];
  /* the prologue has something to say only about these */
  if ((size == 0 || !data || ((uintptr_t)data & (PSOC_PTR_SIZE - 1)) != 0) &&
      psoc_parse_prologue(data, size, diags)) {
    out->type_mask = 0; /* set at the end of the walk otherwise */
    out->classes = 0;
    return PSOC_ERR_INVALID;
  }
  /* psoc_parse's loop, keeping only the payload pointers. 'at' walks from
  ** 'bytes' while a type can be read (4 bytes remain); a subobject's stride
  ** is at most what remains, so 'at' never passes the end and the walk is
  ** complete exactly when it stops at the end. */
  if (size >= sizeof(uint32_t)) {
    const unsigned char *at = bytes;
    const psoc_walk_tables *tables = &psoc_walk_tables_;
    size_t remaining = size;
#if defined(__GNUC__)
    /* the tables' address held in a register through the loop (GCC would
    ** otherwise form it again in every step) */
    __asm__("" : "+r"(tables));
#endif
    do {
      size_t type = psoc_rd32(at), stride;
      if (type >= PSOC_SO_TYPE_COUNT) break;
      stride = tables->entry[type].stride;
      if (stride > remaining) break; /* truncated */
      /* a duplicate, or 23 (no type): the rest out of line */
      if (!(tables->cls[type] & mask)) {
        stopped = 1;
        break;
      }
      mask ^= tables->flip[type];
      out->payload[type] = at + tables->entry[type].payload_offset;
      at += stride;
      remaining -= stride;
    } while (remaining >= sizeof(uint32_t));
    /* the loop above calls nothing, so its tables and cursor stay in registers */
    if (stopped) {
      uint64_t kept = mask; /* the loop's mask stays a register: its address is not taken */
      at = psoc_walk_rest(out, at, (size_t)(bytes + size - at), &kept, diags);
      mask = kept;
    }
    offset = (size_t)(at - bytes);
  }
  out->classes = psoc_walk_classes_of(mask);
  out->type_mask = psoc_walk_types_of(mask);
  if (offset == size) out->complete = 1;
  else psoc_walked_stop(out, offset, diags);
  /* deduce_kind on the payloads: a decider kept with non-null bytecode
  ** (expanded from the registry's list) */
  {
    uint32_t n = 0, kinds = 0;
#define PSOC_DECIDE_(NAME, id, key, CLASS, kinds_, T, layout, bits)                    \
    if (((bits) & PSOC_SUBOBJECT_DECIDES_KIND) && ((out->type_mask >> (id)) & 1u) &&     \
        psoc_rdptr(out->payload[id]) != 0) {                                              \
      n++;                                                                            \
      kinds = (kinds_);                                                               \
    }
    PSOC_SUBOBJECTS(PSOC_DECIDE_)
#undef PSOC_DECIDE_
    if (n == 1) out->kind = (psoc_kind)psoc_lowest_bit(kinds);
  }
  if (!out->complete || stopped) return PSOC_ERR_INVALID; /* incomplete, or duplicates */
  return PSOC_OK;
}

#endif
