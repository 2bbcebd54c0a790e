/*
** internal.h: helpers shared by the core's modules (not installed).
*/
#ifndef PSOC_INTERNAL_H
#define PSOC_INTERNAL_H

#include <stdalign.h>
#include <stdio.h>
#include <string.h>

#include "psoc.h"
#include "enums.h"

#define PSOC_PTR_SIZE ((uint32_t)sizeof(void *))
#define PSOC_ALIGN_UP(x, a) (((x) + ((a)-1)) & ~(size_t)((a)-1))

/* Where a payload of type T starts in its subobject (after the 4-byte
** type, aligned for T) and the bytes the subobject occupies in a stream
** (padded to pointer size): the registry's payload_offset and stride. */
#define PSOC_PAYLOAD_OFFSET(T) ((uint32_t)PSOC_ALIGN_UP(sizeof(uint32_t), alignof(T)))
#define PSOC_STRIDE(T) ((uint32_t)PSOC_ALIGN_UP(PSOC_PAYLOAD_OFFSET(T) + sizeof(T), sizeof(void *)))

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

/* Each row's default_payload by type (NULL for 23), in one block. */
extern const unsigned char *const psoc_registry_defaults[PSOC_SO_TYPE_COUNT];
/* The length of each row's name (strlen of psoc_registry_rows[t].name; 0
** for values that are no type), for messages that write names. */
extern const uint8_t psoc_registry_name_len[PSOC_SO_TYPE_COUNT];
/* Each row's name NUL-padded to PSOC_NAME_PAD bytes ("" for values that are
** no type), so that a message copies a name with a few fixed moves. */
#define PSOC_NAME_PAD 32
extern const char psoc_registry_names_padded[PSOC_SO_TYPE_COUNT][PSOC_NAME_PAD];

/* psoc_subobject_info_get without the call, for the walk's hot path. */
static inline const psoc_subobject_info *psoc_info(uint32_t type) {
  return type < PSOC_SO_TYPE_COUNT && psoc_registry_rows[type].name ? &psoc_registry_rows[type]
                                                                     : NULL;
}

/* ---- type masks, expanded from the subobject list (psoc.h) ---------- */

/* A subobject type as a bit of a 64-bit type mask. */
#define PSOC_TYPE_BIT(t) ((uint64_t)1 << (t))

/* Index of the lowest set bit of a non-zero mask. */
static inline uint32_t psoc_lowest_bit(uint64_t m) {
#if defined(__GNUC__)
  return (uint32_t)__builtin_ctzll(m);
#else
  uint32_t t = 0;
  while (!(m & 1u)) m >>= 1, t++;
  return t;
#endif
}

#define PSOC_MASK_ALL_(NAME, id, key, CLASS, kinds, T, layout, bits) | PSOC_TYPE_BIT(id)
#define PSOC_MASK_VERSION_(NAME, id, key, CLASS, kinds, T, layout, bits) \
  | ((id) != PSOC_SO_##CLASS ? PSOC_TYPE_BIT(id) : 0)
#define PSOC_MASK_SHADER_(NAME, id, key, CLASS, kinds, T, layout, bits) \
  | (((bits) & PSOC_SUBOBJECT_SHADER) ? PSOC_TYPE_BIT(id) : 0)
#define PSOC_MASK_DECIDES_(NAME, id, key, CLASS, kinds, T, layout, bits) \
  | (((bits) & PSOC_SUBOBJECT_DECIDES_KIND) ? PSOC_TYPE_BIT(id) : 0)
#define PSOC_MASK_NOT_G_(NAME, id, key, CLASS, kinds, T, layout, bits) \
  | (((kinds) & PSOC_KINDS_G) ? 0 : PSOC_TYPE_BIT(id))
#define PSOC_MASK_NOT_C_(NAME, id, key, CLASS, kinds, T, layout, bits) \
  | (((kinds) & PSOC_KINDS_C) ? 0 : PSOC_TYPE_BIT(id))
#define PSOC_MASK_NOT_M_(NAME, id, key, CLASS, kinds, T, layout, bits) \
  | (((kinds) & PSOC_KINDS_M) ? 0 : PSOC_TYPE_BIT(id))

#define PSOC_KNOWN_TYPES ((uint64_t)0 PSOC_SUBOBJECTS(PSOC_MASK_ALL_))
/* Types that are a later version of another type's class (DEPTH_STENCIL1, ...). */
#define PSOC_VERSION_TYPES ((uint64_t)0 PSOC_SUBOBJECTS(PSOC_MASK_VERSION_))
/* The shader stages (D3D12_SHADER_BYTECODE payloads). */
#define PSOC_SHADER_TYPES ((uint64_t)0 PSOC_SUBOBJECTS(PSOC_MASK_SHADER_))
/* The shaders whose non-null bytecode decides the pipeline kind (VS, CS, MS). */
#define PSOC_DECIDER_TYPES ((uint64_t)0 PSOC_SUBOBJECTS(PSOC_MASK_DECIDES_))
/* The types each kind ignores: rows without the kind. */
#define PSOC_IGNORED_BY_GRAPHICS ((uint64_t)0 PSOC_SUBOBJECTS(PSOC_MASK_NOT_G_))
#define PSOC_IGNORED_BY_COMPUTE ((uint64_t)0 PSOC_SUBOBJECTS(PSOC_MASK_NOT_C_))
#define PSOC_IGNORED_BY_MESH ((uint64_t)0 PSOC_SUBOBJECTS(PSOC_MASK_NOT_M_))

_Static_assert(PSOC_SO_TYPE_COUNT <= 64, "type masks are 64-bit");

/* The classes present in a mask of types, as PSOC_TYPE_BIT()s of their
** base types. */
extern const uint64_t psoc_registry_class_bits[PSOC_SO_TYPE_COUNT]; /* by type (registry.c) */
static inline uint64_t psoc_classes_of(uint64_t types) {
  uint64_t c = types & ~PSOC_VERSION_TYPES, v;
  for (v = types & PSOC_VERSION_TYPES; v; v &= v - 1)
    c |= psoc_registry_class_bits[psoc_lowest_bit(v)];
  return c;
}

/* ---- diagnostics built piece by piece (diag.c) --------------------- */

/* The next diagnostic of 'diags', counted by its severity and with
** everything but its message filled; NULL when 'diags' is NULL (nothing
** counted) or the list cannot grow (then it counts as dropped), as
** psoc_diags_add does. The caller writes the message with a psoc_msg: the
** same text a format would give, without parsing one (for the diagnostics
** of common mistakes). */
psoc_diag *psoc_diags_slot(psoc_diags *diags, psoc_severity severity, psoc_code code,
                           const char *message_id, int32_t subobject, int64_t offset,
                           const char *field);
/* The same with the field's length given ('field' not NULL; a longer field
** is cut as psoc_diags_slot cuts it). */
psoc_diag *psoc_diags_slot_n(psoc_diags *diags, psoc_severity severity, psoc_code code,
                             const char *message_id, int32_t subobject, int64_t offset,
                             const char *field, size_t field_len);

/* A message being written into d->message, truncated as snprintf would. */
typedef struct psoc_msg {
  char *p;
  size_t left; /* bytes that still fit, the terminating NUL excluded */
} psoc_msg;

static inline void psoc_msg_begin(psoc_msg *m, psoc_diag *d) {
  m->p = d->message;
  m->left = sizeof d->message - 1;
}
/* Where n is a constant (PSOC_MSG_LIT) the copy is a few moves. */
PSOC_FORCE_INLINE_ void psoc_msg_put(psoc_msg *m, const char *s, size_t n) {
  if (n <= m->left) {
    memcpy(m->p, s, n);
  } else {
    memcpy(m->p, s, m->left);
    n = m->left;
  }
  m->p += n;
  m->left -= n;
}
#define PSOC_MSG_LIT(m, lit) psoc_msg_put((m), "" lit, sizeof(lit) - 1)
/* n (a constant of at least 16) bytes from s to p in 16-byte pieces, the
** last one overlapping (GCC copies some constant sizes with a string
** instruction, one step a byte); no bounds test. */
PSOC_FORCE_INLINE_ void psoc_copy16(char *p, const char *s, size_t n) {
  size_t i;
  for (i = 0; i + 16 <= n; i += 16) memcpy(p + i, s + i, 16);
  if (i < n) memcpy(p + n - 16, s + n - 16, 16);
}
void psoc_msg_str(psoc_msg *m, const char *s);          /* as %s (s not NULL) */
void psoc_msg_uint(psoc_msg *m, unsigned long long v);  /* as %u, %zu, %llu */
/* The digits of v (as %llu) at p, which has room for 20; returns their end. */
char *psoc_put_uint(char *p, unsigned long long v);
static inline void psoc_msg_end(psoc_msg *m) {
  *m->p = '\0';
}

/* ---- psoc_check's walk (parse.c) ----------------------------------- */

/* What the rules read of a stream and no more: psoc_parse's walk, its
** diagnostics in the same order and the same kind, but per kept subobject
** only the payload pointer (no view is written; psoc_walked_view builds one
** where a diagnostic needs its index and offset). */
typedef struct psoc_walked {
  const unsigned char *data;
  size_t size;
  psoc_kind kind;                    /* deduced, or PSOC_KIND_NONE */
  int complete;                      /* the walk reached the end */
  uint64_t type_mask;                /* the types kept (first of each class) */
  uint64_t classes;                  /* their classes: PSOC_TYPE_BIT()s of base types */
  /* by type: the payload kept where type_mask has the type, else, for the
  ** types of PSOC_WALK_DEFAULTS, the registry's default payload (so a
  ** class's payload is payload[class] for the classes with one version);
  ** unset for other absent types, whose readers test type_mask first */
  const unsigned char *payload[PSOC_SO_TYPE_COUNT];
} psoc_walked;

/* The type kept of class 'cls' (a base type) in 'types' (at most one type
** of each class, as a walk keeps): cls itself, a version of it, or -1 (what
** psoc_parsed.class_type[cls] holds). */
static inline int psoc_types_kept(uint64_t types, uint32_t cls) {
  uint64_t v;
  if ((types >> cls) & 1u) return (int)cls;
  for (v = types & PSOC_VERSION_TYPES; v; v &= v - 1)
    if (psoc_registry_class_bits[psoc_lowest_bit(v)] == PSOC_TYPE_BIT(cls))
      return (int)psoc_lowest_bit(v);
  return -1;
}
static inline int psoc_walked_kept(const psoc_walked *w, uint32_t cls) {
  return psoc_types_kept(w->type_mask, cls);
}

/* Fills 'out' (never NULL) as psoc_parse would walk; reports what psoc_parse
** reports. Returns psoc_parse's status. */
psoc_status psoc_walk_check(const void *data, size_t size, psoc_walked *out, psoc_diags *diags);

/* The view psoc_parse would hold for kept 'type' (its index counted again:
** for diagnostics, not for hot paths). */
void psoc_walked_view(const psoc_walked *w, uint32_t type, psoc_view *out);

/* The valid type values as text ("0-22, 24-29"), for messages that list
** them; returns out. */
const char *psoc_registry_types_text(char *out, size_t n);

/* The deciding shaders' names joined for a message; returns out. */
enum {
  PSOC_DECIDERS_OR,    /* "VS, CS or MS" */
  PSOC_DECIDERS_KINDS, /* "VS (graphics), CS (compute) or MS (mesh)" */
  PSOC_DECIDERS_LIST   /* "VS, CS, MS" */
};
const char *psoc_registry_deciders_text(char *out, size_t n, int style);

/* The base type of the duplicate class 'type' belongs to (type itself for
** ordinary types); PSOC_SO_TYPE_COUNT for unknown types. */
uint32_t psoc_class_of(uint32_t type);

#endif
