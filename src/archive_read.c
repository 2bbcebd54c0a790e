/*
** archive_read.c: opening, verifying and loading archives (libpsoc only,
** no Lua). Every offset and length read from the file is checked against
** the region it must lie in before it is used; open checks the header,
** the table of contents and the tables (checksums and structure), and the
** records and components are checked at open (VERIFY_ALL) or when first
** loaded (VERIFY_LAZY). docs/archive.md describes the format.
*/
#include <stdio.h>

#include "archive_internal.h"
#include "platform.h"

/* The per-pipeline steps of verifying, inlined into their callers (the
** calls cost as much as the steps). */
#if defined(__GNUC__) || defined(__clang__)
#define ARC_HOT static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define ARC_HOT static __forceinline
#else
#define ARC_HOT static inline
#endif

/* Verdicts: a record or component not checked yet, sound, damaged; and a
** pipeline whose record and every component are sound (it loads). */
enum { ST_UNKNOWN = 0, ST_OK = 1, ST_DAMAGED = 2, ST_LOADS = 3 };

/* A shape: the layout of records that psoc_parse would walk the same way
** (the same size, subobject types in the same order, the same deciding
** shaders non-NULL, so the same kind) and so the same pointer slots, in
** stream order. The first record of a shape is parsed in full; the others
** are matched against it (one pass over their type words) and reuse its
** slots, for checking and for loading. */
#define SHAPE_MAX 128u           /* shapes per archive; more fall back to parsing */
#define SHAPE_BUCKETS 256u       /* hash table over them (a power of two) */
#define SHAPE_SLOTS 32u
#define SHAPE_NONE 0xffu

/* A pointer slot in the form checking and loading read it. */
typedef struct pslot {
  uint32_t offset;             /* of the pointer, in the stream */
  uint32_t count_offset;       /* of its COUNT field */
  uint8_t count_size;
  uint8_t kind;                /* component kind; 0 for the root-signature object */
  uint8_t blob;                /* the count is bytes (a blob), not elements */
  uint8_t nstrings;            /* string fields per element (arrays whose elements
                                  hold strings: copied and relocated), or
                                  ARC_STRINGS_DEEP; 0: pointed at in place */
  uint32_t stride;             /* element bytes (relocated arrays) */
  uint16_t strings[ARC_SLOT_STRINGS];
  const psoc_struct *elements; /* for ARC_STRINGS_DEEP */
} pslot;

/* A component slot of a shape, as the fast paths read it. */
typedef struct cslot {
  uint32_t offset;             /* of the pointer, in the stream */
  uint32_t count_offset;       /* of its COUNT field */
  uint32_t count_size;
  uint32_t kind;               /* component kind (never 0) */
  uint64_t count_mask;         /* the COUNT field's bits in the 8 bytes at count_offset */
  uint32_t dbit;               /* 1 << k when it is the shape's deciding shader k, else 0 */
} cslot;

typedef struct shape {
  uint32_t size, ntypes, nslots, ndeciders, deciders;
  uint32_t nmatch;             /* ntypes rounded up to 4, the rest repeating entry 0 */
  psoc_kind kind;
  uint8_t types[PSOC_SO_TYPE_COUNT + 3];
  uint32_t words[PSOC_SO_TYPE_COUNT + 3];   /* the same as 32-bit words, for the match */
  uint32_t offsets[PSOC_SO_TYPE_COUNT + 3]; /* of each subobject */
  uint32_t decider_at[PSOC_SO_TYPE_COUNT]; /* each deciding shader's pointer */
  pslot slots[SHAPE_SLOTS];
  /* The same slots split for the fast paths (rec_check_shape, load): the
  ** component slots, and the root-signature objects' offsets. */
  uint32_t ncslots, nrslots;
  /* rec_fast may read every COUNT field as 8 bytes (4 or 8 bytes wide,
  ** with 8 bytes of the record there), and every deciding shader's
  ** pointer is a component slot's (its dbit) */
  uint32_t fast;
  cslot cslots[SHAPE_SLOTS];
  uint32_t rslots[SHAPE_SLOTS];
} shape;

/* What checking and loading a reference to component c read, at index
** c + 1 (the value a record's pointer slot holds); index 0 stands for
** NULL, index ncomps + 1 for any value past the last component. 'count'
** is the element count of an array, the size of a blob; 'ptr' is what a
** loaded stream points at and 'key' (count << 8 | kind) what rec_fast
** matches a slot against, both set once the component is verified sound
** (NULL and 0 before, for damage, and at 0 and ncomps + 1). */
typedef struct cref {
  const void *ptr;
  uint64_t count;
  uint64_t key;
  uint32_t kind;
} cref;

struct psoc_archive {
  psoc_allocator alloc;
  psoc_plat_map map;
  int mapped;
  const unsigned char *data;
  size_t size;
  uint32_t flags;
  uint64_t off[ARC_TABLES], len[ARC_TABLES];
  size_t npipes, ncomps, nrefs;
  unsigned char *pstate; /* per pipeline: its record */
  unsigned char *cstate; /* per component */
  unsigned char *pshape; /* per pipeline: its shape, or SHAPE_NONE */
  shape *shapes;         /* nshapes of them, room for cshapes */
  size_t nshapes, cshapes;
  unsigned char bucket[SHAPE_BUCKETS]; /* shape index + 1, 0 empty */
  unsigned hint;         /* the shape matched last, tried first */
  /* Input-element and stream-output arrays with their semantic-name
  ** pointers relocated, made once per component when it is verified:
  ** loads point at them. Component c's copy is at reloc + roff[c]. */
  unsigned char *reloc;
  uint64_t *roff;
  size_t reloc_size;
  cref *cref;            /* ncomps + 2 of them */
  /* Per component c at c + 1 (ncomps + 2 of them), while a record's
  ** references are checked: the check's stamp << 8 | the component's
  ** position in the pipeline's references (rec_fast, shape_refs_check;
  ** written only while verifying). */
  uint64_t *mark;
  uint64_t stamp;
};

static const unsigned char *tab(const psoc_archive *a, int t) { return a->data + a->off[t]; }
static const unsigned char *pent(const psoc_archive *a, size_t i) {
  return tab(a, ARC_T_PIPE) + i * ARC_PIPE_ENTRY;
}
static const unsigned char *cent(const psoc_archive *a, size_t i) {
  return tab(a, ARC_T_COMP) + i * ARC_COMP_ENTRY;
}
static const char *pname(const psoc_archive *a, size_t i) {
  return (const char *)tab(a, ARC_T_NAME) + arc_get32(pent(a, i) + ARC_P_NAME);
}
static const unsigned char *crec(const psoc_archive *a, size_t i) {
  return tab(a, ARC_T_RECS) + arc_get32(pent(a, i) + ARC_P_REC_OFFSET);
}
static const unsigned char *cdata(const psoc_archive *a, size_t c) {
  return tab(a, ARC_T_DATA) + arc_get64(cent(a, c) + ARC_C_OFFSET);
}

static int all_zero(const unsigned char *p, size_t n) {
  uint64_t w, acc = 0;
  for (; n >= 8; n -= 8, p += 8) {
    memcpy(&w, p, 8);
    acc |= w;
  }
  for (; n; n--) acc |= *p++;
  return acc == 0;
}

/* A NUL-terminated string of exactly 'len' bytes at 'off' in a region of
** 'size' bytes. */
static int string_ok(const unsigned char *region, uint64_t size, uint32_t off, uint32_t len) {
  if ((uint64_t)off + len >= size) return 0;
  return region[off + len] == 0 && memchr(region + off, 0, len) == NULL;
}

/* The bytes of a short name, read 8 at a time: string_ok's verdict, for
** names of at most 15 bytes with 16 bytes of the region at 'off', without
** a call (and, in w, the name's 16 bytes with every byte past its NUL
** zeroed, for name_less). -1 when the name is longer or too near the
** region's end: the caller uses string_ok. */
#define NAME_WORDS_MAX 15u
static inline uint64_t zero_bytes(uint64_t x) { /* lowest set bit: the first zero byte */
  return (x - 0x0101010101010101u) & ~x & 0x8080808080808080u;
}
static inline int short_name(const unsigned char *region, uint64_t size, uint32_t off, uint32_t len,
                             uint64_t w[2]) {
  uint64_t z0, z1;
  if (len > NAME_WORDS_MAX || (uint64_t)off + 16 > size) return -1;
  w[0] = arc_get64(region + off);
  w[1] = arc_get64(region + off + 8);
  z0 = zero_bytes(w[0]);
  z1 = zero_bytes(w[1]);
  if (len < 8) { /* the NUL in the first word, at byte len */
    if (!z0 || psoc_lowest_bit(z0) != 8 * len + 7) return 0;
    if (len < 7) w[0] &= ((uint64_t)1 << (8 * len + 8)) - 1;
    w[1] = 0;
  } else {
    if (z0 || !z1 || psoc_lowest_bit(z1) != 8 * (len - 8) + 7) return 0;
    if (len < 15) w[1] &= ((uint64_t)1 << (8 * (len - 8) + 8)) - 1;
  }
  return 1;
}
/* Whether name x sorts strictly before name y, both from short_name:
** their bytes compared in order, a NUL (and the zeros after it) below any
** byte, so a name before every longer name it begins. */
static inline int name_less(const uint64_t x[2], const uint64_t y[2]) {
  uint64_t d = x[0] ^ y[0];
  unsigned i = 0, b;
  if (!d) {
    d = x[1] ^ y[1];
    i = 1;
    if (!d) return 0;
  }
  b = psoc_lowest_bit(d) & ~7u;
  return ((x[i] >> b) & 0xff) < ((y[i] >> b) & 0xff);
}

/* A hint to the processor to fetch the cache line at p (no effect on
** what the program computes; none where the compiler has no such hint). */
#if defined(__GNUC__) || defined(__clang__)
#define ARC_PREFETCH(p) __builtin_prefetch(p)
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <xmmintrin.h>
#define ARC_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#else
#define ARC_PREFETCH(p) ((void)(p))
#endif

/* Loads ahead whose records a load asks the processor for: a loader
** going through the table in order (loading everything at start-up)
** finds them in cache instead of waiting on memory at each record; the
** hardware prefetchers do not follow the copies across pages. */
#define LOAD_PREFETCH_AHEAD 4u

ARC_HOT void prefetch_record(const psoc_archive *a, size_t index) {
  const unsigned char *r = crec(a, index);
  uint32_t size = arc_get32(pent(a, index) + ARC_P_REC_SIZE), k;
  for (k = 0; k + 256 <= size; k += 256) {
    ARC_PREFETCH(r + k);
    ARC_PREFETCH(r + k + 64);
    ARC_PREFETCH(r + k + 128);
    ARC_PREFETCH(r + k + 192);
  }
  for (; k < size; k += 64) ARC_PREFETCH(r + k);
  ARC_PREFETCH(r + size - 1);
}

/* Hash-index entries ahead whose pipeline entries check_tables asks the
** processor for (each entry reads a pipeline entry anywhere in the table). */
#define HIDX_PREFETCH_AHEAD 16u

/* ---- opening --------------------------------------------------------- */

static psoc_status check_header(psoc_archive *a, char *err, size_t errlen) {
  const unsigned char *h = a->data;
  uint32_t v, ps, hv;
  uint64_t fsize;
  size_t i;
  if (a->size < 8 || memcmp(h + ARC_H_MAGIC, arc_magic, 8) != 0) {
    arc_errf(err, errlen, "not a psoc archive (no PSOCARCH magic)");
    return PSOC_ERR_INVALID;
  }
  if (a->size < ARC_HEADER_SIZE + ARC_END_SIZE) {
    arc_errf(err, errlen, "truncated archive: %zu bytes, less than a header and an end marker",
             a->size);
    return PSOC_ERR_INVALID;
  }
  v = arc_get32(h + ARC_H_VERSION);
  if (v != PSOC_ARCHIVE_FORMAT_VERSION) {
    arc_errf(err, errlen, "archive format version %u; this psoc (%s) reads version %u", v,
             PSOC_VERSION_STRING, PSOC_ARCHIVE_FORMAT_VERSION);
    return PSOC_ERR_INVALID;
  }
  if (arc_get32(h + ARC_H_HEADER_SIZE) != ARC_HEADER_SIZE ||
      arc_get64(h + ARC_H_CHECKSUM) != psoc_xxh3(h, ARC_H_CHECKSUM)) {
    arc_errf(err, errlen, "damaged archive header (checksum mismatch)");
    return PSOC_ERR_INVALID;
  }
  ps = arc_get32(h + ARC_H_POINTER_SIZE);
  if (ps != PSOC_PTR_SIZE) {
    arc_errf(err, errlen, "archive cooked for %u-byte pointers; this build uses %u-byte pointers", ps,
             PSOC_PTR_SIZE);
    return PSOC_ERR_INVALID;
  }
  hv = arc_get32(h + ARC_H_HASH_VERSION);
  if (hv != PSOC_HASH_VERSION) {
    arc_errf(err, errlen, "archive hashes are version %u; this psoc computes version %u", hv,
             PSOC_HASH_VERSION);
    return PSOC_ERR_INVALID;
  }
  if (arc_get32(h + ARC_H_SUBOBJECT_MASK) != arc_subobject_mask() ||
      arc_get64(h + ARC_H_SUBOBJECT_PRINT) != arc_subobject_fingerprint()) {
    char ver[16];
    memcpy(ver, h + ARC_H_VERSION_STRING, 15);
    ver[15] = 0;
    arc_errf(err, errlen,
             "archive cooked by psoc %s with another subobject set or layout; this psoc is %s",
             ver, PSOC_VERSION_STRING);
    return PSOC_ERR_INVALID;
  }
  fsize = arc_get64(h + ARC_H_FILE_SIZE);
  if (fsize != a->size) {
    arc_errf(err, errlen, "%s archive: the header says %llu bytes, there are %zu",
             fsize > a->size ? "truncated" : "overlong", (unsigned long long)fsize, a->size);
    return PSOC_ERR_INVALID;
  }
  {
    const unsigned char *e = h + a->size - ARC_END_SIZE;
    if (memcmp(e, arc_end_magic, 8) != 0 || memcmp(e + 8, h + ARC_H_CHECKSUM, 8) != 0) {
      arc_errf(err, errlen, "damaged archive: no end marker matching the header");
      return PSOC_ERR_INVALID;
    }
  }
  if (arc_get32(h + ARC_H_TOC_OFFSET) != ARC_HEADER_SIZE || arc_get32(h + ARC_H_TOC_COUNT) != ARC_TABLES ||
      a->size < ARC_HEADER_SIZE + ARC_TABLES * ARC_TOC_ENTRY + ARC_END_SIZE ||
      arc_get64(h + ARC_H_TOC_CHECKSUM) != psoc_xxh3(h + ARC_HEADER_SIZE, ARC_TABLES * ARC_TOC_ENTRY)) {
    arc_errf(err, errlen, "damaged table of contents (checksum mismatch)");
    return PSOC_ERR_INVALID;
  }
  {
    uint64_t pos = ARC_HEADER_SIZE + ARC_TABLES * ARC_TOC_ENTRY;
    for (i = 0; i < ARC_TABLES; i++) {
      const unsigned char *t = h + ARC_HEADER_SIZE + i * ARC_TOC_ENTRY;
      uint64_t off = arc_get64(t + 8), len = arc_get64(t + 16);
      if (memcmp(t, arc_table_tags[i], 4) != 0 || arc_get32(t + 4) != 0 || off != pos ||
          len > a->size - ARC_END_SIZE - pos || (len & (ARC_ALIGN - 1))) {
        arc_errf(err, errlen, "malformed table of contents (entry %zu, %s)", i, arc_table_names[i]);
        return PSOC_ERR_INVALID;
      }
      a->off[i] = off;
      a->len[i] = len;
      pos += len;
      if (i == ARC_T_RECS || i == ARC_T_DATA) {
        if (arc_get64(t + 24) != 0) {
          arc_errf(err, errlen, "malformed table of contents (entry %zu, %s)", i, arc_table_names[i]);
          return PSOC_ERR_INVALID;
        }
      } else if (arc_get64(t + 24) != psoc_xxh3(h + off, (size_t)len)) {
        arc_errf(err, errlen, "damaged %s (checksum mismatch)", arc_table_names[i]);
        return PSOC_ERR_INVALID;
      }
    }
    if (pos != a->size - ARC_END_SIZE) {
      arc_errf(err, errlen, "malformed table of contents (the tables do not reach the end marker)");
      return PSOC_ERR_INVALID;
    }
  }
  return PSOC_OK;
}

/* What is wrong with pipeline entry i, whose record should start at
** rec_pos, the entries before it sound: check_tables' message ("?" when
** nothing is, which its fast pass never asks). */
static const char *entry_why(const psoc_archive *a, size_t i, uint64_t rec_pos) {
  const unsigned char *names = tab(a, ARC_T_NAME), *e = pent(a, i);
  uint32_t name = arc_get32(e + ARC_P_NAME), nlen = arc_get32(e + ARC_P_NAME_LEN);
  uint32_t rs = arc_get32(e + ARC_P_RS), rslen = arc_get32(e + ARC_P_RS_LEN);
  uint32_t kind = arc_get32(e + ARC_P_KIND), rsize = arc_get32(e + ARC_P_REC_SIZE);
  uint32_t first = arc_get32(e + ARC_P_REF_FIRST), count = arc_get32(e + ARC_P_REF_COUNT), k;
  if (!string_ok(names, a->len[ARC_T_NAME], name, nlen)) return "name outside the name table";
  if (rs != ARC_NO_STRING && !string_ok(names, a->len[ARC_T_NAME], rs, rslen))
    return "root-signature name outside the name table";
  if (rs == ARC_NO_STRING && rslen != 0) return "root-signature length without a name";
  if (kind < PSOC_KIND_GRAPHICS || kind > PSOC_KIND_MESH) return "unknown pipeline kind";
  if (arc_get32(e + ARC_P_REC_OFFSET) != rec_pos || rsize == 0 || rsize > a->len[ARC_T_RECS] - rec_pos)
    return "record outside the record area";
  if (first > a->nrefs || count > a->nrefs - first) return "references outside the reference table";
  if (arc_get32(e + ARC_P_RESERVED) != 0) return "reserved field set";
  if (i > 0) {
    const unsigned char *pe = pent(a, i - 1);
    uint32_t plen = arc_get32(pe + ARC_P_NAME_LEN);
    size_t mn = plen < nlen ? plen : nlen;
    int c = memcmp(names + arc_get32(pe + ARC_P_NAME), names + name, mn);
    if (c > 0 || (c == 0 && plen >= nlen)) return "names not in strictly increasing order";
  }
  for (k = 0; k < count; k++) {
    uint32_t r = arc_get32(tab(a, ARC_T_REFS) + ((size_t)first + k) * 4);
    if (r >= a->ncomps || (k > 0 && r <= arc_get32(tab(a, ARC_T_REFS) + ((size_t)first + k - 1) * 4)))
      return "references out of range or not ascending";
  }
  return "?";
}

/* The tables' structure: every offset in its region, names sorted, records
** and components tiling their areas, references and the hash index in
** range. O(tables). */
static psoc_status check_tables(psoc_archive *a, char *err, size_t errlen) {
  size_t i, n, m;
  uint64_t rec_pos = 0, data_pos = 0;
  const unsigned char *names = tab(a, ARC_T_NAME);
  if (a->len[ARC_T_PIPE] % ARC_PIPE_ENTRY || a->len[ARC_T_COMP] % ARC_COMP_ENTRY) goto bad_sizes;
  n = (size_t)(a->len[ARC_T_PIPE] / ARC_PIPE_ENTRY);
  m = (size_t)(a->len[ARC_T_COMP] / ARC_COMP_ENTRY);
  a->npipes = n;
  a->ncomps = m;
  a->nrefs = (size_t)(a->len[ARC_T_REFS] / 4);
  if (a->len[ARC_T_HIDX] != arc_align((uint64_t)n * 4)) goto bad_sizes;
  for (i = 0; i < m; i++) {
    const unsigned char *c = cent(a, i);
    uint32_t kind = arc_get32(c + ARC_C_KIND);
    uint64_t size = arc_get64(c + ARC_C_SIZE);
    if (!arc_kind_field(kind) || arc_get64(c + ARC_C_OFFSET) != data_pos ||
        size > a->len[ARC_T_DATA] - data_pos || arc_get64(c + ARC_C_RESERVED) != 0) {
      arc_errf(err, errlen, "malformed component table (component %zu)", i);
      return PSOC_ERR_INVALID;
    }
    data_pos += arc_align(size);
  }
  if (data_pos != a->len[ARC_T_DATA]) {
    arc_errf(err, errlen, "malformed component table (the components do not fill the store)");
    return PSOC_ERR_INVALID;
  }
  {
    /* The fast pass: every check of entry_why folded into one flag, short
    ** names (and root-signature names: the writer stores one per
    ** pipeline, after its name) read by words; entry_why says what is
    ** wrong when the flag is set. */
    const unsigned char *e = tab(a, ARC_T_PIPE), *refs = tab(a, ARC_T_REFS);
    uint64_t nsize = a->len[ARC_T_NAME], rlen = a->len[ARC_T_RECS], nrefs = a->nrefs;
    uint64_t cur[2] = { 0, 0 }, prev[2] = { 0, 0 };
    int cur_short = 0;
    for (i = 0; i < n; i++, e += ARC_PIPE_ENTRY) {
      uint32_t name = arc_get32(e + ARC_P_NAME), nlen = arc_get32(e + ARC_P_NAME_LEN);
      uint32_t rs = arc_get32(e + ARC_P_RS), rslen = arc_get32(e + ARC_P_RS_LEN);
      uint32_t kind = arc_get32(e + ARC_P_KIND), rsize = arc_get32(e + ARC_P_REC_SIZE);
      uint32_t first = arc_get32(e + ARC_P_REF_FIRST), count = arc_get32(e + ARC_P_REF_COUNT), k;
      int bad = (arc_get32(e + ARC_P_REC_OFFSET) != rec_pos) | ((uint64_t)rsize - 1 >= rlen - rec_pos) |
                (kind - (uint32_t)PSOC_KIND_GRAPHICS > (uint32_t)(PSOC_KIND_MESH - PSOC_KIND_GRAPHICS)) |
                (first > nrefs) | (count > nrefs - first) | (arc_get32(e + ARC_P_RESERVED) != 0) |
                ((rs == ARC_NO_STRING) & (rslen != 0));
      int sn;
      prev[0] = cur[0];
      prev[1] = cur[1];
      sn = short_name(names, nsize, name, nlen, cur);
      if (sn == 1 && cur_short) { /* both short: by words */
        bad |= i > 0 && !name_less(prev, cur);
      } else if (sn == 0 || (sn < 0 && !string_ok(names, nsize, name, nlen))) {
        bad = 1;
      } else if (i > 0) { /* a long name, or the first short one after one */
        const unsigned char *pe = e - ARC_PIPE_ENTRY;
        uint32_t plen = arc_get32(pe + ARC_P_NAME_LEN);
        int c = memcmp(names + arc_get32(pe + ARC_P_NAME), names + name, plen < nlen ? plen : nlen);
        bad |= c > 0 || (c == 0 && plen >= nlen);
      }
      cur_short = sn == 1;
      if (rs != ARC_NO_STRING) { /* each pipeline's own copy (docs/archive.md) */
        uint64_t w[2];
        int rn = short_name(names, nsize, rs, rslen, w);
        bad |= rn == 0 || (rn < 0 && !string_ok(names, nsize, rs, rslen));
      }
      if (count && !bad) { /* ascending, so in range when the last is */
        const unsigned char *r = refs + (size_t)first * 4;
        uint32_t x = arc_get32(r), up = 1;
        for (k = 1; k < count; k++) {
          uint32_t q = arc_get32(r + (size_t)k * 4);
          up &= q > x;
          x = q;
        }
        bad |= !up || x >= m;
      }
      if (bad) {
        arc_errf(err, errlen, "malformed pipeline table (pipeline %zu: %s)", i, entry_why(a, i, rec_pos));
        return PSOC_ERR_INVALID;
      }
      rec_pos += arc_align(rsize);
    }
  }
  if (rec_pos != a->len[ARC_T_RECS]) {
    arc_errf(err, errlen, "malformed pipeline table (the records do not fill the record area)");
    return PSOC_ERR_INVALID;
  }
  {
    uint64_t yh = 0, yl = 0; /* the previous entry's hash */
    uint32_t y = 0;
    for (i = 0; i < n; i++) {
      uint32_t x = arc_get32(tab(a, ARC_T_HIDX) + i * 4);
      if (i + HIDX_PREFETCH_AHEAD < n) { /* the entries it reads are in hash order: all over the table */
        uint32_t ahead = arc_get32(tab(a, ARC_T_HIDX) + (i + HIDX_PREFETCH_AHEAD) * 4);
        ARC_PREFETCH(pent(a, ahead < n ? ahead : 0) + ARC_P_HASH_LO);
      }
      uint64_t xh, xl;
      const char *why = NULL;
      if (x >= n) {
        why = "index out of range";
      } else {
        xh = arc_get64(pent(a, x) + ARC_P_HASH_HI);
        xl = arc_get64(pent(a, x) + ARC_P_HASH_LO);
        if (i > 0 && (yh > xh || (yh == xh && (yl > xl || (yl == xl && y >= x))))) why = "not sorted by hash";
        y = x;
        yh = xh;
        yl = xl;
      }
      if (why) {
        arc_errf(err, errlen, "malformed hash index (entry %zu: %s)", i, why);
        return PSOC_ERR_INVALID;
      }
    }
  }
  return PSOC_OK;
bad_sizes:
  arc_errf(err, errlen, "malformed table of contents (table sizes do not match their entries)");
  return PSOC_ERR_INVALID;
}

/* ---- components and records ------------------------------------------ */

static void comp_desc(const psoc_archive *a, size_t c, char *buf, size_t n) {
  const unsigned char *e = cent(a, c);
  snprintf(buf, n, "component %zu (%s, %llu bytes)", c,
           psoc_archive_component_kind_name(arc_get32(e + ARC_C_KIND)),
           (unsigned long long)arc_get64(e + ARC_C_SIZE));
}

/* The strings of one element: every slot 0 or an offset + 1 of a string
** that ends inside the component. */
static int element_strings_ok(const unsigned char *el, const psoc_struct *s, const unsigned char *comp,
                              uint64_t start, uint64_t size, int depth) {
  uint32_t i, k;
  if (depth > 8) return 0;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    if (f->kind == PSOC_FIELD_STRING) {
      uint64_t v = arc_get_slot(el + f->offset);
      if (v && (v - 1 < start || v - 1 >= size || !memchr(comp + v - 1, 0, (size_t)(size - (v - 1)))))
        return 0;
    } else if (f->kind == PSOC_FIELD_STRUCT && f->element) {
      if (!element_strings_ok(el + f->offset, f->element, comp, start, size, depth + 1)) return 0;
    } else if (f->kind == PSOC_FIELD_FIXED && f->element) {
      for (k = 0; k < f->count; k++)
        if (!element_strings_ok(el + f->offset + (size_t)k * f->stride, f->element, comp, start, size,
                                depth + 1))
          return 0;
    }
  }
  return 1;
}

/* Check component c; on damage write why into msg. */
static int comp_check(const psoc_archive *a, size_t c, char *msg, size_t n) {
  const unsigned char *e = cent(a, c), *p = cdata(a, c);
  uint32_t kind = arc_get32(e + ARC_C_KIND), count = arc_get32(e + ARC_C_COUNT);
  uint32_t stride = arc_get32(e + ARC_C_STRIDE);
  uint64_t size = arc_get64(e + ARC_C_SIZE);
  const psoc_field *f = arc_kind_field(kind);
  const psoc_struct *strings = arc_kind_string_elements(kind);
  char d[96];
  const char *why = NULL;
  if (psoc_xxh3(p, (size_t)size) != arc_get64(e + ARC_C_CHECKSUM))
    why = "checksum mismatch";
  else if (!all_zero(p + size, (size_t)(arc_align(size) - size)))
    why = "padding not zero";
  else if (!f)
    why = "unknown kind";
  else if (f->kind == PSOC_FIELD_BLOB && (count || stride))
    why = "a blob with an element count";
  else if (f->kind == PSOC_FIELD_ARRAY && stride != f->stride)
    why = "element size does not match this build";
  else if (f->kind == PSOC_FIELD_ARRAY && (uint64_t)count * stride > size)
    why = "elements run past its end";
  else if (f->kind == PSOC_FIELD_ARRAY && !strings && (uint64_t)count * stride != size)
    why = "bytes beyond its elements";
  else if (strings) {
    uint32_t i;
    for (i = 0; i < count && !why; i++)
      if (!element_strings_ok(p + (size_t)i * stride, strings, p, (uint64_t)count * stride, size, 0))
        why = "a string outside the component";
  }
  if (!why) return 1;
  comp_desc(a, c, d, sizeof d);
  snprintf(msg, n, "%s: %s", d, why);
  return 0;
}

typedef struct rec_ctx {
  const unsigned char *rec;
  const unsigned char *comps;  /* the component table */
  const unsigned char *refs;   /* the pipeline's references (ascending) */
  size_t ncomps;
  uint32_t nrefs;
  int has_rs;
  const char *why;
  uint64_t used;               /* bit k: refs[k] is used by a slot */
} rec_ctx;

static void pslot_of(const arc_slot *slot, pslot *out) {
  memset(out, 0, sizeof *out);
  out->offset = (uint32_t)slot->offset;
  out->count_offset = (uint32_t)(slot->base + slot->f->count_offset);
  out->count_size = (uint8_t)slot->count_size;
  out->kind = (uint8_t)slot->kind;
  out->blob = slot->f->kind == PSOC_FIELD_BLOB;
  if (slot->kind && slot->f->kind == PSOC_FIELD_ARRAY && arc_kind_strings(slot->kind) && slot->f->element) {
    out->stride = slot->f->stride;
    out->elements = slot->f->element;
    out->nstrings = slot->nstrings;
    memcpy(out->strings, slot->strings, sizeof out->strings);
    if (!out->nstrings) out->nstrings = ARC_STRINGS_DEEP; /* relocated either way */
  }
}

static inline size_t pslot_count(const unsigned char *rec, const pslot *s) {
  if (s->count_size == 4) return arc_get32(rec + s->count_offset);
  if (s->count_size == 8) return (size_t)arc_get64(rec + s->count_offset);
  return (size_t)psoc_read_scalar(rec + s->count_offset, s->count_size);
}

/* One pointer slot of a record: a reference of the right kind and count
** to a component in the pipeline's reference list (whose entry it marks
** used). Non-zero, with r->why, on damage. */
static inline int check_slot(rec_ctx *r, const pslot *slot) {
  uint64_t v = arc_get_slot(r->rec + slot->offset);
  size_t count;
  const unsigned char *ce;
  uint32_t k;
  if (slot->kind == 0) {
    if (v > 1 || (v == 1) != (r->has_rs != 0)) r->why = "root-signature reference does not match the entry";
    return r->why != NULL;
  }
  count = pslot_count(r->rec, slot);
  if (v == 0) {
    if (count) r->why = "a NULL reference with a non-zero count";
    return r->why != NULL;
  }
  if (v - 1 >= r->ncomps) {
    r->why = "a component reference out of range";
    return 1;
  }
  ce = r->comps + (size_t)(v - 1) * ARC_COMP_ENTRY;
  if (arc_get32(ce + ARC_C_KIND) != slot->kind) {
    r->why = "a component of the wrong kind";
    return 1;
  }
  if (slot->blob ? arc_get64(ce + ARC_C_SIZE) != count : arc_get32(ce + ARC_C_COUNT) != count) {
    r->why = "a count that does not match its component";
    return 1;
  }
  for (k = 0; k < r->nrefs && arc_get32(r->refs + (size_t)k * 4) != v - 1; k++) {
  }
  if (k == r->nrefs) {
    r->why = "a component missing from its references";
    return 1;
  }
  if (k >= 64) { /* more references than a stream has pointers */
    r->why = "too many components";
    return 1;
  }
  r->used |= (uint64_t)1 << k;
  return 0;
}

/* Pointer slots collected by arc_slots_* into an array. */
typedef struct slot_list {
  pslot *slots;
  uint32_t n, cap;
} slot_list;

static int collect_slot(void *ud, const arc_slot *slot) {
  slot_list *l = ud;
  if (l->n == l->cap) return 1;
  pslot_of(slot, &l->slots[l->n++]);
  return 0;
}

/* ---- shapes ------------------------------------------------------------ */

/* Walk a record's type words as psoc_parse would (bounds-checked; no
** views, no messages): its types and their offsets, which deciding
** shaders are non-NULL, and a hash of both. 0 when the walk would stop
** early or has more subobjects than a stream without duplicates can hold
** (psoc_parse rejects those). */
static int shape_walk(const unsigned char *rec, size_t size, shape *out, uint32_t *hash) {
  size_t off = 0;
  uint32_t n = 0, d = 0, nd = 0, h = (uint32_t)size * 0x9e3779b1u;
  while (off < size) {
    const psoc_subobject_info *info;
    uint32_t type;
    if (size - off < 4 || n == PSOC_SO_TYPE_COUNT) return 0;
    type = psoc_rd32(rec + off);
    if (type >= PSOC_SO_TYPE_COUNT) return 0;
    info = &psoc_registry_rows[type];
    if (!info->stride || info->stride > size - off) return 0;
    if (PSOC_DECIDER_TYPES & PSOC_TYPE_BIT(type)) {
      out->decider_at[nd] = (uint32_t)(off + info->payload_offset);
      if (psoc_rdptr(rec + off + info->payload_offset)) d |= 1u << nd;
      nd++;
    }
    out->types[n] = (uint8_t)type;
    out->words[n] = type;
    out->offsets[n++] = (uint32_t)off;
    h = (h ^ type) * 0x01000193u;
    off += info->stride;
  }
  if (n == 0) return 0;
  out->size = (uint32_t)size;
  out->ntypes = n;
  for (out->nmatch = n; out->nmatch & 3u; out->nmatch++) { /* whole groups of 4 for the match */
    out->types[out->nmatch] = out->types[0];
    out->words[out->nmatch] = out->words[0];
    out->offsets[out->nmatch] = out->offsets[0];
  }
  out->ndeciders = nd;
  out->deciders = d;
  *hash = (h ^ d * 0x85ebca6bu) ^ (h >> 15);
  return 1;
}

/* Whether psoc_parse walks 'rec' as it walked the shape's first record:
** the same size and the same type at each subobject offset make the same
** walk, and the same deciding shaders non-NULL the same kind. */
/* The first half of that: the same size and types (a walk the same way). */
ARC_HOT int shape_types_match(const shape *sh, const unsigned char *rec, uint32_t size) {
  uint32_t k = 16, diff = 0;
  if (size != sh->size) return 0;
#define TYPE_GROUP(k)                                                                                          \
  ((psoc_rd32(rec + sh->offsets[k]) ^ sh->words[k]) | (psoc_rd32(rec + sh->offsets[(k) + 1]) ^ sh->words[(k) + 1]) | \
   (psoc_rd32(rec + sh->offsets[(k) + 2]) ^ sh->words[(k) + 2]) | (psoc_rd32(rec + sh->offsets[(k) + 3]) ^ sh->words[(k) + 3]))
  /* every type word, without a branch each: up to four groups unrolled */
  switch (sh->nmatch / 4) {
  default:
    for (; k < sh->nmatch; k += 4) diff |= TYPE_GROUP(k);
    /* fall through */
  case 4:
    diff |= TYPE_GROUP(12);
    /* fall through */
  case 3:
    diff |= TYPE_GROUP(8);
    /* fall through */
  case 2:
    diff |= TYPE_GROUP(4);
    /* fall through */
  case 1:
    diff |= TYPE_GROUP(0);
  }
#undef TYPE_GROUP
  return diff == 0;
}
ARC_HOT int shape_matches(const shape *sh, const unsigned char *rec, uint32_t size) {
  uint32_t k, d = 0;
  if (!shape_types_match(sh, rec, size)) return 0;
  for (k = 0; k < sh->ndeciders; k++) d |= (uint32_t)(psoc_rdptr(rec + sh->decider_at[k]) != 0) << k;
  return d == sh->deciders;
}

static int shape_any(void *ud, const arc_slot *slot) {
  (void)ud;
  (void)slot;
  return 0;
}

/* The shape of a record: found, or made from psoc_parse's verdict on it.
** SHAPE_NONE when the record does not parse the way a shape can stand for
** (the caller then parses it itself), or when no room is left. */
static unsigned find_shape(psoc_archive *a, const unsigned char *rec, uint32_t size) {
  shape probe, *sh;
  uint32_t h, b;
  psoc_parsed parsed;
  if (a->hint < a->nshapes && shape_matches(&a->shapes[a->hint], rec, size)) return a->hint;
  if (!shape_walk(rec, size, &probe, &h)) return SHAPE_NONE;
  for (b = h & (SHAPE_BUCKETS - 1);; b = (b + 1) & (SHAPE_BUCKETS - 1)) {
    unsigned x = a->bucket[b];
    if (!x) break;
    sh = &a->shapes[x - 1];
    if (sh->size == probe.size && sh->ntypes == probe.ntypes && sh->deciders == probe.deciders &&
        memcmp(sh->types, probe.types, probe.ntypes) == 0)
      return a->hint = x - 1;
  }
  /* a new shape, for bucket b */
  if (a->nshapes == SHAPE_MAX || psoc_parse(rec, size, &parsed, NULL) != PSOC_OK) return SHAPE_NONE;
  if (a->nshapes == a->cshapes) {
    size_t c = a->cshapes ? a->cshapes * 2 : 4;
    shape *ns = psoc_mem(&a->alloc, a->shapes, a->cshapes * sizeof *ns, c * sizeof *ns);
    if (!ns) return SHAPE_NONE;
    a->shapes = ns;
    a->cshapes = c;
  }
  sh = &a->shapes[a->nshapes];
  *sh = probe;
  sh->kind = parsed.kind;
  {
    slot_list l;
    l.slots = sh->slots;
    l.n = 0;
    l.cap = SHAPE_SLOTS;
    if (arc_slots_trusted(rec, size, collect_slot, &l) != 0 ||
        arc_slots_parsed(&parsed, shape_any, NULL) != 0) /* every pointer field storable */
      return SHAPE_NONE;
    sh->nslots = l.n;
  }
  {
    uint32_t k;
    sh->ncslots = sh->nrslots = 0;
    sh->fast = 1;
    for (k = 0; k < sh->nslots; k++) {
      const pslot *ps = &sh->slots[k];
      if (ps->kind == 0) {
        sh->rslots[sh->nrslots++] = ps->offset;
      } else {
        cslot *cs = &sh->cslots[sh->ncslots++];
        cs->offset = ps->offset;
        cs->count_offset = ps->count_offset;
        cs->count_size = ps->count_size;
        cs->kind = ps->kind;
        cs->count_mask = ps->count_size == 8 ? ~(uint64_t)0 : 0xffffffffu;
        if ((ps->count_size != 4 && ps->count_size != 8) || (uint64_t)ps->count_offset + 8 > size)
          sh->fast = 0;
        cs->dbit = 0;
      }
    }
    for (k = 0; k < sh->ndeciders; k++) {
      uint32_t j;
      for (j = 0; j < sh->ncslots && sh->cslots[j].offset != sh->decider_at[k]; j++) {
      }
      if (j == sh->ncslots)
        sh->fast = 0;
      else
        sh->cslots[j].dbit = (uint32_t)1 << k;
    }
  }
  a->bucket[b] = (unsigned char)(a->nshapes + 1);
  return a->hint = (unsigned)a->nshapes++;
}

ARC_HOT size_t cslot_count(const unsigned char *rec, const cslot *s) {
  if (s->count_size == 8) return (size_t)arc_get64(rec + s->count_offset);
  if (s->count_size == 4) return arc_get32(rec + s->count_offset);
  return (size_t)psoc_read_scalar(rec + s->count_offset, s->count_size);
}

/* check_slot's checks over every slot of a record of shape sh, read from
** the shape's split slots and the per-component table: NULL when every
** reference is sound and the references list exactly the components
** used, else why (rec_check gives the same verdict without a shape). */
static const char *shape_refs_check(psoc_archive *a, const shape *sh, const unsigned char *rec,
                                    const unsigned char *refs, uint32_t nrefs, int has_rs) {
  uint64_t used = 0, st;
  uint32_t k;
  for (k = 0; k < sh->nrslots; k++)
    if (arc_get_slot(rec + sh->rslots[k]) != (uint64_t)(has_rs != 0))
      return "root-signature reference does not match the entry";
  if (nrefs > 64) return "references it does not use"; /* a shape has at most SHAPE_SLOTS */
  /* each reference marked with its position (check_tables proved them in
  ** range), so a slot finds its own with one read */
  st = ++a->stamp << 8;
  for (k = 0; k < nrefs; k++) a->mark[arc_get32(refs + (size_t)k * 4) + 1] = st | k;
  for (k = 0; k < sh->ncslots; k++) {
    const cslot *s = &sh->cslots[k];
    uint64_t v = arc_get_slot(rec + s->offset), m;
    size_t count = cslot_count(rec, s);
    const cref *c;
    if (v == 0) {
      if (count) return "a NULL reference with a non-zero count";
      continue;
    }
    if (v > a->ncomps) return "a component reference out of range";
    c = &a->cref[v];
    if (c->kind != s->kind) return "a component of the wrong kind";
    if (c->count != count) return "a count that does not match its component";
    m = a->mark[v];
    if ((m & ~(uint64_t)0xff) != st) return "a component missing from its references";
    used |= (uint64_t)1 << (m & 0xff);
  }
  if (used != (nrefs == 64 ? ~(uint64_t)0 : ((uint64_t)1 << nrefs) - 1)) return "references it does not use";
  return NULL;
}

/* The common case of a pipeline's verdict, in one pass and with few
** branches: a record of the shape matched last (one pass over its
** type words, no parse, no lookup) whose every reference is to a
** component already verified sound. 1 when the record and every component
** it uses are sound (its shape into *shape_out): the verdict rec_check
** plus each component's comp_check give, as cref keys are set only for
** sound components and every reference must be used by a slot. 0 when
** rec_check (and pipe_ok) must decide; the checksum is computed last, so
** a reference to a component not verified yet costs no hash.
**
** The references: each is marked with this check's stamp, and a slot
** must find its component marked, then unmarks it. So the non-NULL slots
** name distinct references (a second slot naming the same component finds
** it unmarked: the full check decides, which allows that), and as many as
** there are references (strictly ascending, check_tables proved): every
** reference is used. */
ARC_HOT int rec_fast(psoc_archive *a, const unsigned char *e, const unsigned char *rec,
                     unsigned char *shape_out) {
  uint32_t size = arc_get32(e + ARC_P_REC_SIZE), nrefs = arc_get32(e + ARC_P_REF_COUNT), k;
  const unsigned char *refs;
  const shape *sh;
  const cref *cr = a->cref;
  uint64_t *mark = a->mark;
  uint64_t st, bad, has_rs, top = (uint64_t)a->ncomps + 1, d = 0, nn = 0;
  if (a->hint >= a->nshapes) return 0;
  sh = &a->shapes[a->hint];
  /* the same size: every offset the match reads is inside the record */
  if (!sh->fast || nrefs > sh->ncslots || !shape_types_match(sh, rec, size)) return 0;
  /* each reference marked (check_tables proved them in range); the low
  ** byte of a stamp is 0, so no mark shape_refs_check wrote (stamp << 8 |
  ** position) or the 0 of an unmarked one equals it */
  refs = tab(a, ARC_T_REFS) + (size_t)arc_get32(e + ARC_P_REF_FIRST) * 4;
  st = ++a->stamp << 8;
  for (k = 0; k < nrefs; k++) mark[arc_get32(refs + (size_t)k * 4) + 1] = st;
  has_rs = arc_get32(e + ARC_P_RS) != ARC_NO_STRING;
  bad = (uint32_t)sh->kind ^ arc_get32(e + ARC_P_KIND);
  for (k = 0; k < sh->nrslots; k++) bad |= arc_get_slot(rec + sh->rslots[k]) ^ has_rs;
  for (k = 0; k < sh->ncslots; k++) {
    /* NULL with a zero count, or a sound component of the slot's kind and
    ** count that is one of the pipeline's references (marked, and
    ** unmarked now) */
    const cslot *s = &sh->cslots[k];
    uint64_t v = arc_get_slot(rec + s->offset), n = arc_get64(rec + s->count_offset) & s->count_mask, x;
    if (!v) {
      bad |= n;
      continue;
    }
    x = v < top ? v : top; /* mark[top] is never set */
    bad |= (cr[x].key ^ (n << 8 | s->kind)) | n >> 56 | (mark[x] ^ st);
    mark[x] = 0;
    nn++;
    d |= s->dbit; /* the deciding shaders non-NULL as in the shape */
  }
  bad |= (d ^ sh->deciders) | (nn ^ nrefs);
  if (bad || !all_zero(rec + size, (size_t)(arc_align(size) - size)) ||
      psoc_xxh3(rec, size) != arc_get64(e + ARC_P_REC_CHECKSUM))
    return 0;
  *shape_out = (unsigned char)a->hint;
  return 1;
}

/* Check pipeline i's record; on damage write why into msg, else its
** shape into *shape_out (may be NULL: then no shape is looked up or made). */
static int rec_check(psoc_archive *a, size_t i, char *msg, size_t n, unsigned char *shape_out) {
  const unsigned char *e = pent(a, i), *rec = crec(a, i);
  uint32_t size = arc_get32(e + ARC_P_REC_SIZE), kind = 0;
  unsigned sx = SHAPE_NONE;
  rec_ctx r;
  psoc_parsed parsed;
  if (shape_out && rec_fast(a, e, rec, shape_out)) return 1;
  r.why = NULL;
  r.rec = rec;
  r.comps = tab(a, ARC_T_COMP);
  r.refs = tab(a, ARC_T_REFS) + (size_t)arc_get32(e + ARC_P_REF_FIRST) * 4;
  r.ncomps = a->ncomps;
  r.nrefs = arc_get32(e + ARC_P_REF_COUNT);
  r.has_rs = arc_get32(e + ARC_P_RS) != ARC_NO_STRING;
  r.used = 0;
  if (shape_out) *shape_out = SHAPE_NONE;
  if (psoc_xxh3(rec, size) != arc_get64(e + ARC_P_REC_CHECKSUM))
    r.why = "checksum mismatch";
  else if (!all_zero(rec + size, (size_t)(arc_align(size) - size)))
    r.why = "padding not zero";
  else if (shape_out && (sx = find_shape(a, rec, size)) != SHAPE_NONE)
    kind = (uint32_t)a->shapes[sx].kind; /* parsed when the shape was made */
  else if (psoc_parse(rec, size, &parsed, NULL) != PSOC_OK)
    r.why = "the stream does not parse";
  else
    kind = (uint32_t)parsed.kind;
  if (!r.why && kind != arc_get32(e + ARC_P_KIND)) r.why = "the stream's kind differs from the entry's";
  if (!r.why && sx != SHAPE_NONE) { /* the shape's slots */
    r.why = shape_refs_check(a, &a->shapes[sx], rec, r.refs, r.nrefs, r.has_rs);
  } else if (!r.why) {
    pslot own[SHAPE_SLOTS];
    const pslot *slots = own;
    uint32_t nslots = 0, k;
    { /* the parsed stream's, in type order */
      slot_list l;
      l.slots = own;
      l.n = 0;
      l.cap = SHAPE_SLOTS;
      if (arc_slots_parsed(&parsed, collect_slot, &l) != 0) r.why = "a pointer field this build cannot load";
      nslots = l.n;
    }
    for (k = 0; !r.why && k < nslots && !check_slot(&r, &slots[k]); k++) {
    }
    if (!r.why && (r.nrefs > 64 || r.used != (r.nrefs == 64 ? ~(uint64_t)0 : ((uint64_t)1 << r.nrefs) - 1)))
      r.why = "references it does not use";
  }
  if (!r.why) {
    if (shape_out) *shape_out = (unsigned char)sx;
    return 1;
  }
  snprintf(msg, n, "record of pipeline '%s': %s", pname(a, i), r.why);
  return 0;
}

static void put_ptr(unsigned char *p, const void *v) { memcpy(p, &v, sizeof v); }

static void relocate_strings(unsigned char *el, const psoc_struct *s, const unsigned char *comp, int depth) {
  uint32_t i, k;
  if (depth > 8) return;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    if (f->kind == PSOC_FIELD_STRING) {
      uint64_t v = arc_get_slot(el + f->offset);
      put_ptr(el + f->offset, v ? comp + v - 1 : NULL);
    } else if (f->kind == PSOC_FIELD_STRUCT && f->element) {
      relocate_strings(el + f->offset, f->element, comp, depth + 1);
    } else if (f->kind == PSOC_FIELD_FIXED && f->element) {
      for (k = 0; k < f->count; k++)
        relocate_strings(el + f->offset + (size_t)k * f->stride, f->element, comp, depth + 1);
    }
  }
}

/* Record component c's verdict; a sound array whose elements hold strings
** gets its relocated copy (component_check proved every string inside it). */
static void comp_verdict(psoc_archive *a, size_t c, int ok) {
  const unsigned char *e = cent(a, c);
  uint32_t kind = arc_get32(e + ARC_C_KIND);
  a->cstate[c] = ok ? ST_OK : ST_DAMAGED;
  a->cref[c + 1].key = ok ? a->cref[c + 1].count << 8 | kind : 0;
  a->cref[c + 1].ptr = !ok ? NULL
                       : arc_kind_strings(kind) && arc_get32(e + ARC_C_COUNT) ? a->reloc + a->roff[c]
                                                                                : cdata(a, c);
  if (ok && arc_kind_strings(kind)) {
    const psoc_struct *el = arc_kind_string_elements(kind);
    const unsigned char *p = cdata(a, c);
    unsigned char *dst = a->reloc + a->roff[c];
    size_t count = arc_get32(e + ARC_C_COUNT), stride = arc_get32(e + ARC_C_STRIDE), i;
    memcpy(dst, p, count * stride);
    for (i = 0; el && i < count; i++) relocate_strings(dst + i * stride, el, p, 0);
  }
}

static int comp_ok(psoc_archive *a, size_t c) {
  char msg[8];
  if (a->cstate[c] == ST_UNKNOWN) comp_verdict(a, c, comp_check(a, c, msg, sizeof msg));
  return a->cstate[c] == ST_OK;
}

static int rec_ok(psoc_archive *a, size_t i) {
  char msg[8];
  if (a->pstate[i] == ST_UNKNOWN)
    a->pstate[i] = rec_check(a, i, msg, sizeof msg, &a->pshape[i]) ? ST_OK : ST_DAMAGED;
  return a->pstate[i] == ST_OK || a->pstate[i] == ST_LOADS;
}

/* 1 when pipeline i loads; else its first damaged part (component index,
** or (size_t)-1 for the record) in *bad. */
static int pipe_ok(psoc_archive *a, size_t i, size_t *bad) {
  const unsigned char *e = pent(a, i);
  uint32_t first, count, k;
  if (a->pstate[i] == ST_LOADS) return 1; /* the verdict of an earlier call */
  first = arc_get32(e + ARC_P_REF_FIRST);
  count = arc_get32(e + ARC_P_REF_COUNT);
  for (k = 0; k < count; k++) {
    uint32_t c = arc_get32(tab(a, ARC_T_REFS) + ((size_t)first + k) * 4);
    if (a->cstate[c] != ST_OK && !comp_ok(a, c)) {
      *bad = c;
      return 0;
    }
  }
  if (!rec_ok(a, i)) {
    *bad = (size_t)-1;
    return 0;
  }
  a->pstate[i] = ST_LOADS;
  return 1;
}

/* pipe_ok, first trying the common case (rec_fast: the record of the
** shape matched last, every component it uses sound); anything else, and
** every damage, goes through pipe_ok. */
ARC_HOT int pipe_verdict(psoc_archive *a, size_t i, size_t *bad) {
  if (a->pstate[i] == ST_LOADS) return 1;
  if (a->pstate[i] == ST_UNKNOWN && rec_fast(a, pent(a, i), crec(a, i), &a->pshape[i])) {
    a->pstate[i] = ST_LOADS;
    return 1;
  }
  return pipe_ok(a, i, bad);
}

/* Every verdict, so that loads afterwards only read them (VERIFY_ALL
** archives may be loaded from several threads at once). */
static void verify_all(psoc_archive *a) {
  size_t i, bad;
  for (i = 0; i < a->ncomps; i++) (void)comp_ok(a, i);
  for (i = 0; i < a->npipes; i++) (void)pipe_verdict(a, i, &bad);
}

/* The message of pipeline i's first damage. */
static void damage_message(psoc_archive *a, size_t i, size_t bad, char *msg, size_t n) {
  char why[256];
  if (bad == (size_t)-1) {
    if (rec_check(a, i, why, sizeof why, NULL)) snprintf(why, sizeof why, "record damaged");
    snprintf(msg, n, "pipeline '%s' lost: %s", pname(a, i), why);
  } else {
    if (comp_check(a, bad, why, sizeof why)) comp_desc(a, bad, why, sizeof why);
    snprintf(msg, n, "pipeline '%s' lost: uses damaged %s", pname(a, i), why);
  }
}

static psoc_status open_common(psoc_archive *a, char *err, size_t errlen) {
  psoc_status st = check_header(a, err, errlen);
  if (st == PSOC_OK) st = check_tables(a, err, errlen);
  if (st != PSOC_OK) return st;
  a->pstate = psoc_mem(&a->alloc, NULL, 0, a->npipes + 1);
  a->cstate = psoc_mem(&a->alloc, NULL, 0, a->ncomps + 1);
  a->pshape = psoc_mem(&a->alloc, NULL, 0, a->npipes + 1);
  a->roff = psoc_mem(&a->alloc, NULL, 0, (a->ncomps + 1) * sizeof *a->roff);
  if (a->roff) { /* room for each array with strings: its elements are within its bytes */
    size_t c;
    for (c = 0; c < a->ncomps; c++) {
      a->roff[c] = a->reloc_size;
      if (arc_kind_strings(arc_get32(cent(a, c) + ARC_C_KIND)))
        a->reloc_size += (size_t)arc_align(arc_get64(cent(a, c) + ARC_C_SIZE));
    }
    a->reloc = psoc_mem(&a->alloc, NULL, 0, a->reloc_size + 1);
  }
  a->cref = psoc_mem(&a->alloc, NULL, 0, (a->ncomps + 2) * sizeof *a->cref);
  a->mark = psoc_mem(&a->alloc, NULL, 0, (a->ncomps + 2) * sizeof *a->mark);
  if (!a->pstate || !a->cstate || !a->pshape || !a->roff || !a->reloc || !a->cref || !a->mark) {
    arc_errf(err, errlen, "out of memory");
    return PSOC_ERR_NOMEM;
  }
  { /* index 0: NULL, which no component matches (kind 0); ncomps + 1: past the end */
    size_t c;
    memset(&a->cref[0], 0, sizeof a->cref[0]);
    memset(&a->cref[a->ncomps + 1], 0, sizeof a->cref[0]);
    for (c = 0; c < a->ncomps; c++) {
      const unsigned char *ce = cent(a, c);
      uint32_t kind = arc_get32(ce + ARC_C_KIND);
      const psoc_field *f = arc_kind_field(kind); /* check_tables proved it known */
      a->cref[c + 1].ptr = NULL;
      a->cref[c + 1].key = 0;
      a->cref[c + 1].kind = kind;
      a->cref[c + 1].count = f && f->kind == PSOC_FIELD_BLOB ? arc_get64(ce + ARC_C_SIZE) : arc_get32(ce + ARC_C_COUNT);
    }
  }
  memset(a->pstate, ST_UNKNOWN, a->npipes + 1);
  memset(a->cstate, ST_UNKNOWN, a->ncomps + 1);
  memset(a->pshape, SHAPE_NONE, a->npipes + 1);
  memset(a->mark, 0, (a->ncomps + 2) * sizeof *a->mark); /* stamps start at 1 */
  if (a->flags & PSOC_ARCHIVE_VERIFY_ALL) {
    verify_all(a);
    if (a->flags & PSOC_ARCHIVE_REJECT_DAMAGED) {
      size_t i, bad;
      for (i = 0; i < a->npipes; i++)
        if (!pipe_ok(a, i, &bad)) {
          damage_message(a, i, bad, err, errlen);
          return PSOC_ERR_INVALID;
        }
      for (i = 0; i < a->ncomps; i++) /* a damaged component nobody uses */
        if (!comp_ok(a, i)) {
          (void)comp_check(a, i, err, errlen);
          return PSOC_ERR_INVALID;
        }
    }
  }
  return PSOC_OK;
}

static psoc_status new_archive(uint32_t flags, const psoc_allocator *alloc, psoc_archive **out,
                               char *err, size_t errlen) {
  psoc_allocator al;
  psoc_archive *a;
  if (err && errlen) err[0] = 0;
  if (!out) return PSOC_ERR_ARG;
  *out = NULL;
  if ((flags & ~(uint32_t)(PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_VERIFY_LAZY |
                           PSOC_ARCHIVE_REJECT_DAMAGED)) ||
      ((flags & PSOC_ARCHIVE_VERIFY_ALL) && (flags & PSOC_ARCHIVE_VERIFY_LAZY)) ||
      ((flags & PSOC_ARCHIVE_REJECT_DAMAGED) && !(flags & PSOC_ARCHIVE_VERIFY_ALL))) {
    arc_errf(err, errlen, "unknown or conflicting open flags 0x%x", (unsigned)flags);
    return PSOC_ERR_ARG;
  }
  al = psoc_alloc_or_default(alloc);
  a = psoc_mem(&al, NULL, 0, sizeof *a);
  if (!a) {
    arc_errf(err, errlen, "out of memory");
    return PSOC_ERR_NOMEM;
  }
  memset(a, 0, sizeof *a);
  a->alloc = al;
  a->flags = flags;
  *out = a;
  return PSOC_OK;
}

psoc_status psoc_archive_open_memory(const void *data, size_t size, uint32_t flags,
                                     const psoc_allocator *alloc, psoc_archive **out, char *err,
                                     size_t errlen) {
  psoc_archive *a;
  psoc_status st;
  if (out) *out = NULL;
  if (!data || ((uintptr_t)data & (ARC_ALIGN - 1))) {
    arc_errf(err, errlen, data ? "archive buffer not 16-byte aligned" : "NULL archive buffer");
    return PSOC_ERR_ARG;
  }
  st = new_archive(flags, alloc, out, err, errlen);
  if (st != PSOC_OK) return st;
  a = *out;
  a->data = data;
  a->size = size;
  st = open_common(a, err, errlen);
  if (st != PSOC_OK) {
    psoc_archive_close(a);
    *out = NULL;
  }
  return st;
}

psoc_status psoc_archive_open_file(const char *path, uint32_t flags, const psoc_allocator *alloc,
                                   psoc_archive **out, char *err, size_t errlen) {
  psoc_archive *a;
  psoc_status st;
  char why[512];
  int e;
  if (out) *out = NULL;
  if (!path) {
    arc_errf(err, errlen, "NULL path");
    return PSOC_ERR_ARG;
  }
  st = new_archive(flags, alloc, out, err, errlen);
  if (st != PSOC_OK) return st;
  a = *out;
  e = psoc_plat_map_file(path, &a->map);
  if (e) {
    arc_errf(err, errlen, "%s: %s", path, psoc_plat_strerror(e));
    psoc_archive_close(a);
    *out = NULL;
    return PSOC_ERR_IO;
  }
  a->mapped = 1;
  a->data = a->map.data ? a->map.data : (const unsigned char *)"";
  a->size = a->map.size;
  why[0] = 0;
  st = open_common(a, why, sizeof why);
  if (st != PSOC_OK) {
    arc_errf(err, errlen, "%s: %s", path, why);
    psoc_archive_close(a);
    *out = NULL;
  }
  return st;
}

void psoc_archive_close(psoc_archive *a) {
  psoc_allocator al;
  if (!a) return;
  if (a->mapped) psoc_plat_unmap(&a->map);
  if (a->pstate) psoc_mem(&a->alloc, a->pstate, a->npipes + 1, 0);
  if (a->cstate) psoc_mem(&a->alloc, a->cstate, a->ncomps + 1, 0);
  if (a->pshape) psoc_mem(&a->alloc, a->pshape, a->npipes + 1, 0);
  if (a->roff) psoc_mem(&a->alloc, a->roff, (a->ncomps + 1) * sizeof *a->roff, 0);
  if (a->reloc) psoc_mem(&a->alloc, a->reloc, a->reloc_size + 1, 0);
  if (a->cref) psoc_mem(&a->alloc, a->cref, (a->ncomps + 2) * sizeof *a->cref, 0);
  if (a->mark) psoc_mem(&a->alloc, a->mark, (a->ncomps + 2) * sizeof *a->mark, 0);
  if (a->shapes) psoc_mem(&a->alloc, a->shapes, a->cshapes * sizeof *a->shapes, 0);
  al = a->alloc;
  psoc_mem(&al, a, sizeof *a, 0);
}

/* ---- inspection -------------------------------------------------------- */

void psoc_archive_info_get(const psoc_archive *a, psoc_archive_info *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  if (!a) return;
  out->format_version = arc_get32(a->data + ARC_H_VERSION);
  out->pointer_size = arc_get32(a->data + ARC_H_POINTER_SIZE);
  out->hash_version = arc_get32(a->data + ARC_H_HASH_VERSION);
  memcpy(out->psoc_version, a->data + ARC_H_VERSION_STRING, 15);
  out->psoc_version[15] = 0;
  out->subobject_mask = arc_get32(a->data + ARC_H_SUBOBJECT_MASK);
  out->pipelines = a->npipes;
  out->components = a->ncomps;
  out->file_size = a->size;
  out->component_bytes = a->len[ARC_T_DATA];
  out->table_bytes = a->size - a->len[ARC_T_DATA];
}

size_t psoc_archive_count(const psoc_archive *a) { return a ? a->npipes : 0; }
size_t psoc_archive_component_count(const psoc_archive *a) { return a ? a->ncomps : 0; }

/* Scratch bytes: the stream, 8-aligned (the arrays whose strings need
** relocating are relocated once per component, in the archive object). */
static size_t load_size(const psoc_archive *a, size_t i) {
  return PSOC_ALIGN_UP((size_t)arc_get32(pent(a, i) + ARC_P_REC_SIZE), 8);
}

psoc_status psoc_archive_entry_get(const psoc_archive *a, size_t index, psoc_archive_entry *out) {
  const unsigned char *e;
  uint32_t first, count, k, rs;
  if (!out) return PSOC_ERR_ARG;
  memset(out, 0, sizeof *out);
  if (!a || index >= a->npipes) return PSOC_ERR_ARG;
  e = pent(a, index);
  out->name = pname(a, index);
  rs = arc_get32(e + ARC_P_RS);
  out->root_signature = rs == ARC_NO_STRING ? NULL : (const char *)tab(a, ARC_T_NAME) + rs;
  out->hash.lo = arc_get64(e + ARC_P_HASH_LO);
  out->hash.hi = arc_get64(e + ARC_P_HASH_HI);
  out->kind = (psoc_kind)arc_get32(e + ARC_P_KIND);
  out->stream_size = arc_get32(e + ARC_P_REC_SIZE);
  out->load_size = load_size(a, index);
  first = arc_get32(e + ARC_P_REF_FIRST);
  count = arc_get32(e + ARC_P_REF_COUNT);
  out->component_count = count;
  for (k = 0; k < count; k++)
    out->component_bytes += arc_get64(cent(a, arc_get32(tab(a, ARC_T_REFS) + ((size_t)first + k) * 4)) +
                                       ARC_C_SIZE);
  return PSOC_OK;
}

psoc_status psoc_archive_entry_component(const psoc_archive *a, size_t index, size_t i,
                                         size_t *component) {
  const unsigned char *e;
  if (!component) return PSOC_ERR_ARG;
  *component = 0;
  if (!a || index >= a->npipes) return PSOC_ERR_ARG;
  e = pent(a, index);
  if (i >= arc_get32(e + ARC_P_REF_COUNT)) return PSOC_ERR_ARG;
  *component = arc_get32(tab(a, ARC_T_REFS) + ((size_t)arc_get32(e + ARC_P_REF_FIRST) + i) * 4);
  return PSOC_OK;
}

size_t psoc_archive_find(const psoc_archive *a, const char *name) {
  size_t lo = 0, hi, len;
  if (!a || !name) return PSOC_ARCHIVE_NOT_FOUND;
  hi = a->npipes;
  len = strlen(name);
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const unsigned char *e = pent(a, mid);
    uint32_t nlen = arc_get32(e + ARC_P_NAME_LEN);
    int c = memcmp(pname(a, mid), name, nlen < len ? nlen : len);
    if (c == 0) c = nlen < len ? -1 : nlen > len;
    if (c == 0) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return PSOC_ARCHIVE_NOT_FOUND;
}

size_t psoc_archive_find_hash(const psoc_archive *a, psoc_hash128 hash) {
  size_t lo = 0, hi;
  if (!a) return PSOC_ARCHIVE_NOT_FOUND;
  hi = a->npipes;
  while (lo < hi) { /* the first index entry not below 'hash' */
    size_t mid = lo + (hi - lo) / 2;
    const unsigned char *e = pent(a, arc_get32(tab(a, ARC_T_HIDX) + mid * 4));
    uint64_t h = arc_get64(e + ARC_P_HASH_HI), l = arc_get64(e + ARC_P_HASH_LO);
    if (h < hash.hi || (h == hash.hi && l < hash.lo))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < a->npipes) {
    uint32_t x = arc_get32(tab(a, ARC_T_HIDX) + lo * 4);
    const unsigned char *e = pent(a, x);
    if (arc_get64(e + ARC_P_HASH_HI) == hash.hi && arc_get64(e + ARC_P_HASH_LO) == hash.lo) return x;
  }
  return PSOC_ARCHIVE_NOT_FOUND;
}

psoc_status psoc_archive_component_get(const psoc_archive *a, size_t index,
                                       psoc_archive_component *out) {
  const unsigned char *e;
  if (!out) return PSOC_ERR_ARG;
  memset(out, 0, sizeof *out);
  if (!a || index >= a->ncomps) return PSOC_ERR_ARG;
  e = cent(a, index);
  out->kind = arc_get32(e + ARC_C_KIND);
  out->count = arc_get32(e + ARC_C_COUNT);
  out->users = arc_get32(e + ARC_C_USERS);
  out->size = arc_get64(e + ARC_C_SIZE);
  out->hash = arc_get64(e + ARC_C_CHECKSUM);
  out->data = cdata(a, index);
  return PSOC_OK;
}

/* ---- loading ------------------------------------------------------------- */

typedef struct load_ctx {
  const psoc_archive *a;
  unsigned char *out;          /* the stream in scratch */
  const char *rs;
  void *(*resolve)(void *ud, const char *name); /* the options', read once */
  void *ud;
  int null_ok;                 /* PSOC_ARCHIVE_LOAD_NULL_ROOT_SIGNATURE */
  int failed;
} load_ctx;

/* The root-signature object at 'offset': the callback's pointer for the
** pipeline's name (1 in the record), or NULL (0). */
ARC_HOT int load_rs(load_ctx *c, uint32_t offset) {
  void *rs = NULL;
  if (arc_get_slot(c->out + offset)) {
    if (c->resolve) {
      rs = c->resolve(c->ud, c->rs);
      if (!rs) {
        c->failed = 1;
        return 1;
      }
    } else if (!c->null_ok) {
      c->failed = 2;
      return 1;
    }
  }
  put_ptr(c->out + offset, rs);
  return 0;
}

static inline int load_slot(load_ctx *c, const pslot *slot) {
  uint64_t v = arc_get_slot(c->out + slot->offset);
  const unsigned char *comp;
  if (slot->kind == 0) return load_rs(c, slot->offset);
  if (!v) {
    put_ptr(c->out + slot->offset, NULL);
    return 0;
  }
  comp = slot->nstrings && pslot_count(c->out, slot) ? c->a->reloc + c->a->roff[v - 1] /* relocated */
                                                     : cdata(c->a, (size_t)(v - 1));
  put_ptr(c->out + slot->offset, comp);
  return 0;
}

psoc_status psoc_archive_load(psoc_archive *a, size_t index, const psoc_archive_load_options *opts,
                              void *scratch, size_t scratch_size,
                              D3D12_PIPELINE_STATE_STREAM_DESC *desc, size_t *needed, char *err,
                              size_t errlen) {
  const unsigned char *e, *src;
  uint32_t size, rs;
  size_t need, bad;
  load_ctx c;
  if (err && errlen) err[0] = 0;
  if (needed) *needed = 0;
  if (!a || !desc || index >= a->npipes || (!scratch && scratch_size) || ((uintptr_t)scratch & 7u)) {
    arc_errf(err, errlen, "bad arguments (NULL archive or desc, index past the end, unaligned scratch)");
    return PSOC_ERR_ARG;
  }
  desc->pPipelineStateSubobjectStream = NULL;
  desc->SizeInBytes = 0;
  if (index + LOAD_PREFETCH_AHEAD < a->npipes) prefetch_record(a, index + LOAD_PREFETCH_AHEAD);
  if (a->pstate[index] != ST_LOADS && !pipe_verdict(a, index, &bad)) {
    damage_message(a, index, bad, err, errlen);
    return PSOC_ERR_INVALID;
  }
  e = pent(a, index);
  size = arc_get32(e + ARC_P_REC_SIZE);
  need = PSOC_ALIGN_UP((size_t)size, 8); /* load_size */
  if (needed) *needed = need;
  if (scratch_size < need || !scratch) {
    arc_errf(err, errlen, "pipeline '%s' needs %zu bytes of scratch, got %zu", pname(a, index), need,
             scratch_size);
    return PSOC_ERR_SIZE;
  }
  src = tab(a, ARC_T_RECS) + arc_get32(e + ARC_P_REC_OFFSET); /* crec */
  memcpy(scratch, src, size);
  rs = arc_get32(e + ARC_P_RS);
  c.a = a;
  c.out = scratch;
  c.rs = rs == ARC_NO_STRING ? NULL : (const char *)tab(a, ARC_T_NAME) + rs;
  c.resolve = opts ? opts->resolve_root_signature : NULL;
  c.ud = opts ? opts->ud : NULL;
  c.null_ok = opts && (opts->flags & PSOC_ARCHIVE_LOAD_NULL_ROOT_SIGNATURE);
  c.failed = 0;
  {
    pslot own[SHAPE_SLOTS];
    const pslot *slots = own;
    uint32_t nslots, k;
    if (a->pshape[index] != SHAPE_NONE) { /* its shape's slots: no walk */
      const shape *sh = &a->shapes[a->pshape[index]];
      const cref *cr = a->cref;
      const cslot *cs = sh->cslots;
      unsigned char *out = scratch;
      uint64_t top = (uint64_t)a->ncomps + 1; /* its entry's ptr is NULL */
      uint32_t ncs = sh->ncslots, nrs = sh->nrslots;
      /* verified: every component slot holds 0 or a sound component + 1
      ** (bounded again all the same, without a branch, in case the bytes
      ** changed under the mapping since); read from the record, not from
      ** the copy just written (whose wide stores a narrow load would wait
      ** for) */
      for (k = 0; k < ncs; k++) {
        uint64_t v = arc_get_slot(src + cs[k].offset);
        put_ptr(out + cs[k].offset, cr[v < top ? v : top].ptr);
      }
      for (k = 0; k < nrs && !load_rs(&c, sh->rslots[k]); k++) {
      }
      nslots = 0;
    } else { /* verified by pipe_ok: it walks */
      slot_list l;
      l.slots = own;
      l.n = 0;
      l.cap = SHAPE_SLOTS;
      (void)arc_slots_trusted(scratch, size, collect_slot, &l);
      nslots = l.n;
    }
    for (k = 0; k < nslots && !load_slot(&c, &slots[k]); k++) {
    }
  }
  if (c.failed) {
    arc_errf(err, errlen,
             c.failed == 1 ? "pipeline '%s': root signature '%s' did not resolve"
                           : "pipeline '%s': root signature '%s' needs a resolve callback",
             pname(a, index), c.rs);
    return PSOC_ERR_INVALID;
  }
  desc->pPipelineStateSubobjectStream = scratch;
  desc->SizeInBytes = size;
  return PSOC_OK;
}

/* ---- verifying ------------------------------------------------------------- */

psoc_status psoc_archive_verify(psoc_archive *a, psoc_archive_damage_fn fn, void *ud, size_t *lost) {
  size_t i, nlost = 0, damaged = 0, bad;
  char msg[512];
  psoc_archive_damage d;
  int stop = 0;
  if (lost) *lost = 0;
  if (!a) return PSOC_ERR_ARG;
  memset(a->cstate, ST_UNKNOWN, a->ncomps);
  memset(a->pstate, ST_UNKNOWN, a->npipes);
  for (i = 0; i < a->ncomps; i++) {
    if (comp_check(a, i, msg, sizeof msg)) {
      comp_verdict(a, i, 1);
      continue;
    }
    comp_verdict(a, i, 0);
    damaged++;
    if (fn && !stop) {
      d.what = PSOC_ARCHIVE_DAMAGE_COMPONENT;
      d.index = i;
      d.name = NULL;
      d.message = msg;
      stop = fn(ud, &d);
    }
  }
  for (i = 0; i < a->npipes; i++) {
    if (rec_check(a, i, msg, sizeof msg, &a->pshape[i])) {
      a->pstate[i] = ST_OK;
      continue;
    }
    a->pstate[i] = ST_DAMAGED;
    damaged++;
    if (fn && !stop) {
      d.what = PSOC_ARCHIVE_DAMAGE_RECORD;
      d.index = i;
      d.name = pname(a, i);
      d.message = msg;
      stop = fn(ud, &d);
    }
  }
  for (i = 0; i < a->npipes; i++) {
    if (pipe_ok(a, i, &bad)) continue;
    nlost++;
    if (fn && !stop) {
      damage_message(a, i, bad, msg, sizeof msg);
      d.what = PSOC_ARCHIVE_LOST_PIPELINE;
      d.index = i;
      d.name = pname(a, i);
      d.message = msg;
      stop = fn(ud, &d);
    }
  }
  if (lost) *lost = nlost;
  return damaged ? PSOC_ERR_INVALID : PSOC_OK;
}

/* ---- raw parts for the writer's merge (owner s6) ---------------------------- */

psoc_status arc_raw_pipeline(psoc_archive *a, size_t index, arc_raw_pipe *out, char *err,
                             size_t errlen) {
  const unsigned char *e;
  uint32_t rs;
  size_t bad;
  if (!a || !out || index >= a->npipes) return PSOC_ERR_ARG;
  if (!pipe_ok(a, index, &bad)) {
    damage_message(a, index, bad, err, errlen);
    return PSOC_ERR_INVALID;
  }
  e = pent(a, index);
  out->name = pname(a, index);
  out->name_len = arc_get32(e + ARC_P_NAME_LEN);
  rs = arc_get32(e + ARC_P_RS);
  out->rs = rs == ARC_NO_STRING ? NULL : (const char *)tab(a, ARC_T_NAME) + rs;
  out->rs_len = rs == ARC_NO_STRING ? 0 : arc_get32(e + ARC_P_RS_LEN);
  out->hash.lo = arc_get64(e + ARC_P_HASH_LO);
  out->hash.hi = arc_get64(e + ARC_P_HASH_HI);
  out->kind = arc_get32(e + ARC_P_KIND);
  out->record = crec(a, index);
  out->record_size = arc_get32(e + ARC_P_REC_SIZE);
  out->checksum = arc_get64(e + ARC_P_REC_CHECKSUM); /* pipe_ok: the record's own */
  return PSOC_OK;
}

psoc_status arc_raw_component(psoc_archive *a, size_t index, arc_raw_comp *out) {
  const unsigned char *e;
  if (!a || !out || index >= a->ncomps) return PSOC_ERR_ARG;
  if (!comp_ok(a, index)) return PSOC_ERR_INVALID;
  e = cent(a, index);
  out->kind = arc_get32(e + ARC_C_KIND);
  out->count = arc_get32(e + ARC_C_COUNT);
  out->stride = arc_get32(e + ARC_C_STRIDE);
  out->hash = arc_get64(e + ARC_C_CHECKSUM);
  out->size = (size_t)arc_get64(e + ARC_C_SIZE);
  out->data = cdata(a, index);
  return PSOC_OK;
}
