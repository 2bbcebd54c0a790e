/*
** fuzz_archive.c: libFuzzer target for the archive reader (psoc_archive.h).
**
**   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
**     -std=c11 -D_POSIX_C_SOURCE=200809L -I src -I /usr/include/wsl/stubs src/[a-z]*.c \
**     tests/fuzz/fuzz_archive.c -o build/fuzz/fuzz_archive
**
** The input is archive bytes, copied into a 16-aligned heap block of exactly
** its size (ASan reports any read past it). It is opened lazily, fully
** verified and strictly; every pipeline is listed, looked up, loaded and
** the loaded stream hashed, checked and dumped with its pointers followed
** (they point into the archive, the archive object's relocated element
** arrays and the scratch: an out-of-bounds pointer is an ASan report), and derived with an override. Invariants (they trap):
** the three modes agree on which pipelines load; lookups by name find the
** entry; every stream that loads can be cooked again into an archive that
** opens strictly and holds the same hashes.
**
** Each input runs twice: as given, and with every checksum recomputed
** (records, components, tables, table of contents, header, end marker), so
** that mutations reach the structural checks behind the checksums as a
** hostile archive would.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h"
#include "psoc_archive.h"
#include "xxh.h"

#define REQUIRE(cond)              \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

#define MAX_PIPES 64
#define SCRATCH_MAX (1u << 20)

static char fake_rs;

/* A 16-aligned block of exactly n bytes (ASan poisons what follows). */
static unsigned char *alloc16(size_t n) {
  void *p = NULL;
  if (posix_memalign(&p, 16, n ? n : 1) != 0) return NULL;
  return p;
}

static void *resolve(void *ud, const char *name) {
  (void)ud;
  REQUIRE(name != NULL);
  (void)strlen(name);
  return &fake_rs;
}

static int discard(void *ud, const char *text, size_t length) {
  (void)ud;
  REQUIRE(text != NULL);
  REQUIRE(length == 0 || memchr(text, '\0', length) == NULL);
  return 0;
}

static int on_damage(void *ud, const psoc_archive_damage *d) {
  size_t *n = ud;
  REQUIRE(d->message != NULL && d->message[0] != 0);
  (void)strlen(d->message);
  if (d->name) (void)strlen(d->name);
  (*n)++;
  return 0;
}

/* Load every pipeline; bit i of the result: pipeline i loaded. Loaded
** streams are exercised and, when w is given, cooked again. */
static uint64_t load_all(psoc_archive *a, psoc_archive_writer *w, uint64_t *skipped) {
  psoc_archive_load_options lo = { resolve, NULL, 0 };
  uint64_t bits = 0;
  size_t i, n = psoc_archive_count(a);
  *skipped = 0;
  for (i = 0; i < n && i < MAX_PIPES; i++) {
    psoc_archive_entry e;
    D3D12_PIPELINE_STATE_STREAM_DESC desc;
    unsigned char *scratch;
    size_t needed = 0, k;
    char err[256];
    psoc_status st;
    REQUIRE(psoc_archive_entry_get(a, i, &e) == PSOC_OK);
    REQUIRE(e.name != NULL);
    REQUIRE(psoc_archive_find(a, e.name) == i);
    REQUIRE(psoc_archive_find_hash(a, e.hash) != PSOC_ARCHIVE_NOT_FOUND);
    for (k = 0; k < e.component_count; k++) {
      size_t c;
      REQUIRE(psoc_archive_entry_component(a, i, k, &c) == PSOC_OK);
      REQUIRE(c < psoc_archive_component_count(a));
    }
    if (e.load_size > SCRATCH_MAX) {
      *skipped |= (uint64_t)1 << i;
      continue;
    }
    scratch = alloc16(e.load_size);
    REQUIRE(scratch != NULL);
    st = psoc_archive_load(a, i, &lo, scratch, e.load_size, &desc, &needed, err, sizeof err);
    if (st == PSOC_OK) {
      psoc_hash128 h;
      psoc_check_options co = { PSOC_CHECK_FOLLOW_POINTERS, NULL };
      UINT mask = 1;
      psoc_archive_override ov = { PSOC_SO_SAMPLE_MASK, &mask, sizeof mask };
      D3D12_PIPELINE_STATE_STREAM_DESC derived;
      unsigned char *ds;
      REQUIRE(needed == e.load_size);
      REQUIRE(desc.SizeInBytes == e.stream_size);
      REQUIRE(psoc_hash(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, PSOC_FOLLOW_POINTERS,
                        e.root_signature, &h) == PSOC_OK);
      (void)psoc_check(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, &co, NULL);
      (void)psoc_dump(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, PSOC_FOLLOW_POINTERS, discard,
                      NULL);
      ds = alloc16(desc.SizeInBytes + 16);
      REQUIRE(ds != NULL);
      REQUIRE(psoc_archive_derive(&desc, &ov, 1, ds, desc.SizeInBytes + 16, &derived, NULL) == PSOC_OK);
      REQUIRE(psoc_hash(derived.pPipelineStateSubobjectStream, derived.SizeInBytes, PSOC_FOLLOW_POINTERS,
                        e.root_signature, &h) == PSOC_OK);
      free(ds);
      if (w)
        REQUIRE(psoc_archive_writer_add(w, e.name, e.root_signature, desc.pPipelineStateSubobjectStream,
                                        desc.SizeInBytes, err, sizeof err) == PSOC_OK);
      bits |= (uint64_t)1 << i;
    } else {
      REQUIRE(st == PSOC_ERR_INVALID);
      REQUIRE(err[0] != 0);
    }
    free(scratch);
  }
  return bits;
}

static uint64_t get(const unsigned char *p, unsigned n) {
  uint64_t v = 0;
  unsigned i;
  for (i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static void put64(unsigned char *p, uint64_t v) {
  unsigned i;
  for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Region t of the table of contents, if it lies inside the buffer. */
static int region(const unsigned char *b, size_t size, unsigned t, uint64_t *off, uint64_t *len) {
  const unsigned char *e = b + 96 + t * 32;
  *off = get(e + 8, 8);
  *len = get(e + 16, 8);
  return *off <= size && *len <= size - *off;
}

/* Recompute every checksum the format has (docs/archive.md), wherever the
** offsets it needs are in bounds. */
static void refresh_checksums(unsigned char *b, size_t size) {
  uint64_t po, pl, ro, rl, co, cl, dof, dl, off, len, i;
  unsigned t;
  if (size < 96 + 7 * 32 + 16) return;
  if (region(b, size, 0, &po, &pl) && region(b, size, 5, &ro, &rl))
    for (i = 0; i + 64 <= pl; i += 64) {
      unsigned char *e = b + po + i;
      uint64_t at = get(e + 40, 4), n = get(e + 36, 4);
      if (at <= rl && n <= rl - at) put64(e + 56, psoc_xxh3(b + ro + at, (size_t)n));
    }
  if (region(b, size, 4, &co, &cl) && region(b, size, 6, &dof, &dl))
    for (i = 0; i + 48 <= cl; i += 48) {
      unsigned char *e = b + co + i;
      uint64_t at = get(e + 16, 8), n = get(e + 24, 8);
      if (at <= dl && n <= dl - at) put64(e + 32, psoc_xxh3(b + dof + at, (size_t)n));
    }
  for (t = 0; t < 7; t++)
    if (t != 5 && t != 6 && region(b, size, t, &off, &len))
      put64(b + 96 + t * 32 + 24, psoc_xxh3(b + off, (size_t)len));
  put64(b + 56, psoc_xxh3(b + 96, 7 * 32));
  put64(b + 88, psoc_xxh3(b, 88));
  memcpy(b + size - 8, b + 88, 8);
}

static void run(const uint8_t *data, size_t size, int refresh);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  run(data, size, 0);
  run(data, size, 1);
  return 0;
}

static void run(const uint8_t *data, size_t size, int refresh) {
  unsigned char *buf = alloc16(size);
  psoc_archive *lazy = NULL, *full = NULL, *strict = NULL;
  psoc_status sl, sf, ss;
  char err[512];
  REQUIRE(buf != NULL);
  memcpy(buf, data, size);
  if (refresh) refresh_checksums(buf, size);
  sl = psoc_archive_open_memory(buf, size, PSOC_ARCHIVE_VERIFY_LAZY, NULL, &lazy, err, sizeof err);
  REQUIRE(sl == PSOC_OK || (lazy == NULL && err[0] != 0));
  sf = psoc_archive_open_memory(buf, size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &full, err, sizeof err);
  ss = psoc_archive_open_memory(buf, size, PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED, NULL,
                                &strict, err, sizeof err);
  REQUIRE(sl == sf);                      /* the tables decide the open */
  REQUIRE(ss == PSOC_OK ? sf == PSOC_OK : 1);
  if (sf == PSOC_OK) {
    psoc_archive_writer *w = NULL;
    psoc_archive_info info;
    size_t damage = 0, lost = 0, i;
    uint64_t bl, bf, skl, skf;
    psoc_status sv;
    psoc_archive_info_get(full, &info);
    REQUIRE(info.file_size == size);
    for (i = 0; i < psoc_archive_component_count(full); i++) {
      psoc_archive_component c;
      REQUIRE(psoc_archive_component_get(full, i, &c) == PSOC_OK);
    }
    REQUIRE(psoc_archive_writer_create(NULL, &w) == PSOC_OK);
    bl = load_all(lazy, NULL, &skl);
    bf = load_all(full, psoc_archive_count(full) <= MAX_PIPES ? w : NULL, &skf);
    REQUIRE(bl == bf && skl == skf);      /* lazy and full agree */
    sv = psoc_archive_verify(full, on_damage, &damage, &lost);
    REQUIRE((sv == PSOC_OK) == (damage == 0));
    REQUIRE((ss == PSOC_OK) == (sv == PSOC_OK));
    if (psoc_archive_count(full) <= MAX_PIPES && skf == 0) {
      size_t n = psoc_archive_count(full), loaded = 0;
      for (i = 0; i < n; i++) loaded += (bf >> i) & 1;
      REQUIRE(lost == n - loaded);
      if (sv == PSOC_OK) REQUIRE(loaded == n);
      {
        /* what loads cooks again into a clean archive */
        const void *out;
        size_t out_size;
        unsigned char *copy;
        psoc_archive *again = NULL;
        REQUIRE(psoc_archive_writer_finish(w, &out, &out_size) == PSOC_OK);
        copy = alloc16(out_size);
        REQUIRE(copy != NULL);
        memcpy(copy, out, out_size);
        REQUIRE(psoc_archive_open_memory(copy, out_size, PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED,
                                         NULL, &again, err, sizeof err) == PSOC_OK);
        REQUIRE(psoc_archive_count(again) == loaded);
        psoc_archive_close(again);
        free(copy);
      }
    }
    psoc_archive_writer_free(w);
  }
  psoc_archive_close(strict);
  psoc_archive_close(full);
  psoc_archive_close(lazy);
  free(buf);
}
