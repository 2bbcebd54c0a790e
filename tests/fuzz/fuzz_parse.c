/*
** fuzz_parse.c: libFuzzer target for the stream parser and everything that
** reads a stream without following its pointers: psoc_check, psoc_parse,
** psoc_resolve and the desc conversions, psoc_hash and psoc_dump.
**
**   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
**     -std=c11 -I src -I /usr/include/wsl/stubs src/[a-z]*.c tests/fuzz/fuzz_parse.c \
**     -o build/fuzz/fuzz_parse
**
** Each input runs twice: copied into a heap buffer of exactly its size at
** an 8-aligned address (ASan reports any read past the end or before the
** start), then at an address offset by 1..7 bytes whose block also ends
** exactly at the input's end (UBSan's alignment check and ASan catch
** aligned loads and over-reads there). Both runs must agree on everything
** but the UNALIGNED_STREAM warning. The full check also runs with every
** rule and no screen (PSOC_CHECK_UNSCREENED_): the diagnostics must be the
** same. Invariant violations trap.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h"
#include "rules_internal.h" /* PSOC_CHECK_UNSCREENED_ */

#define REQUIRE(cond)                 \
  do {                                \
    if (!(cond)) __builtin_trap();    \
  } while (0)

#include "fuzz_diags.h"

/* Everything one run observed, to compare the aligned and unaligned runs. */
typedef struct outcome {
  psoc_status check, profile_check, parse, hash, dump;
  size_t profile_errors;
  size_t errors, warnings, notes, diag_count;
  psoc_kind kind;
  uint32_t count, present;
  int complete;
  int8_t has[PSOC_SO_TYPE_COUNT];
  int8_t class_type[PSOC_SO_TYPE_COUNT];
  size_t view_offset[PSOC_SO_TYPE_COUNT];
  psoc_hash128 hash_value;
} outcome;

static int discard(void *ud, const char *text, size_t length) {
  size_t *total = ud;
  REQUIRE(text != NULL);
  REQUIRE(length == 0 || memchr(text, '\0', length) == NULL);
  *total += length;
  return 0;
}

static int fail_write(void *ud, const char *text, size_t length) {
  (void)text;
  (void)length;
  ++*(int *)ud;
  return 1;
}

/* An allocator that always fails: diagnostics are dropped but counted. */
static void *no_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  return NULL;
}

static int in_buffer(const unsigned char *p, size_t n, const unsigned char *data, size_t size) {
  return p >= data && (size_t)(p - data) <= size && n <= size - (size_t)(p - data);
}

static int has_code(const psoc_parsed *p, uint32_t type) {
  uint64_t ptr = 0;
  if (!p->has[type]) return 0;
  memcpy(&ptr, p->views[type].payload, sizeof(void *));
  return ptr != 0;
}

static void check_parsed(const psoc_parsed *p, psoc_status st, const unsigned char *data,
                         size_t size) {
  uint32_t t, present = 0;
  psoc_kind kind;
  int vs, cs, ms;
  REQUIRE(st == PSOC_OK || st == PSOC_ERR_INVALID);
  REQUIRE(p->count <= size / 8);
  REQUIRE(p->present <= p->count);
  REQUIRE((st == PSOC_OK) == (p->complete && p->structural_errors == 0));
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    int8_t cls_type;
    if (info && info->dup_class == t) { /* a class: at most one member kept */
      cls_type = p->class_type[t];
      if (cls_type >= 0) {
        REQUIRE(cls_type < PSOC_SO_TYPE_COUNT && p->has[cls_type]);
        REQUIRE(psoc_subobject_info_get((uint32_t)cls_type)->dup_class == t);
        REQUIRE(psoc_parsed_class(p, t) == &p->views[cls_type]);
      } else {
        REQUIRE(psoc_parsed_class(p, t) == NULL);
      }
    } else {
      REQUIRE(p->class_type[t] == -1);
    }
    if (!p->has[t]) continue;
    REQUIRE(p->has[t] == 1 && info != NULL);
    present++;
    {
      const psoc_view *v = &p->views[t];
      REQUIRE(v->type == t && v->info == info);
      REQUIRE(v->index < p->count);
      REQUIRE(v->offset % 8 == 0);
      REQUIRE(v->offset < size && info->stride <= size - v->offset);
      REQUIRE(v->payload == data + v->offset + info->payload_offset);
      REQUIRE(in_buffer(v->payload, info->payload->size, data, size));
      REQUIRE(info->payload_offset + info->payload->size <= info->stride);
      REQUIRE(p->class_type[info->dup_class] == (int8_t)t);
    }
  }
  REQUIRE(present == p->present);
  /* The kind follows from the kept VS, CS, MS views. */
  vs = has_code(p, PSOC_SO_VS);
  cs = has_code(p, PSOC_SO_CS);
  ms = has_code(p, PSOC_SO_MS);
  kind = vs + cs + ms != 1 ? PSOC_KIND_NONE
         : vs            ? PSOC_KIND_GRAPHICS
         : cs            ? PSOC_KIND_COMPUTE
                         : PSOC_KIND_MESH;
  REQUIRE(p->kind == kind);
}

static void check_resolved(const psoc_parsed *p, const psoc_resolved *r) {
  uint32_t t;
  D3D12_GRAPHICS_PIPELINE_STATE_DESC g;
  D3D12_COMPUTE_PIPELINE_STATE_DESC c;
  psoc_status st;
  REQUIRE(r->kind == p->kind);
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    const psoc_view *v;
    if (!info || info->dup_class != t) continue;
    v = psoc_parsed_class(p, t);
    REQUIRE(r->origin[t] <= PSOC_ORIGIN_UNUSED);
    if (r->origin[t] == PSOC_ORIGIN_UNUSED) {
      REQUIRE(p->kind != PSOC_KIND_NONE && !(info->kinds & PSOC_KIND_BIT(p->kind)));
    } else {
      REQUIRE(r->origin[t] == (v ? PSOC_ORIGIN_EXPLICIT : PSOC_ORIGIN_DEFAULT));
    }
    REQUIRE(r->source_type[t] == (v ? v->type : t));
  }
  REQUIRE(r->depth_enable_origin <= PSOC_ORIGIN_UNUSED);
  REQUIRE(r->topology_origin <= PSOC_ORIGIN_UNUSED);
  if (!psoc_parsed_class(p, PSOC_SO_DEPTH_STENCIL) &&
      r->depth_stencil_format == DXGI_FORMAT_UNKNOWN)
    REQUIRE(!r->depth_stencil.DepthEnable &&
            r->depth_enable_origin == PSOC_ORIGIN_HIDDEN_DEFAULT);
  if (psoc_parsed_class(p, PSOC_SO_DEPTH_STENCIL))
    REQUIRE(r->depth_enable_origin == PSOC_ORIGIN_EXPLICIT);

  st = psoc_resolved_to_graphics_desc(r, &g);
  REQUIRE(st == PSOC_OK || st == PSOC_ERR_LOSSY);
  if (r->kind != PSOC_KIND_GRAPHICS) REQUIRE(st == PSOC_ERR_LOSSY);
  if (st == PSOC_OK) REQUIRE(g.SampleMask == r->sample_mask && g.DSVFormat == r->depth_stencil_format);
  st = psoc_resolved_to_compute_desc(r, &c);
  REQUIRE(st == PSOC_OK || st == PSOC_ERR_LOSSY);
  REQUIRE((st == PSOC_OK) == (r->kind == PSOC_KIND_COMPUTE &&
                              r->serialized_root_signature.pSerializedBlob == NULL));
}

static void run(const unsigned char *data, size_t size, int unaligned, outcome *o) {
  psoc_diags diags, dropped;
  psoc_allocator failing = { no_alloc, NULL };
  psoc_parsed parsed;
  psoc_resolved resolved;
  psoc_hash128 again;
  size_t written = 0;
  int failures = 0;
  uint32_t t;

  memset(o, 0, sizeof *o);

  /* check: the verdict agrees with the error count, with and without a
  ** list; with the default profile and with one picked by the size */
  psoc_diags_init(&diags, NULL);
  {
    psoc_check_options options;
    psoc_status st;
    size_t n = psoc_profile_count();
    options.flags = 0; /* never PSOC_CHECK_FOLLOW_POINTERS: the pointers are fuzz */
    options.profile = n ? psoc_profile_at(size % n) : NULL;
    st = psoc_check(data, size, &options, &diags);
    REQUIRE(st == PSOC_OK || st == PSOC_ERR_INVALID);
    REQUIRE((diags.errors == 0) == (st == PSOC_OK));
    check_diags(&diags, size, unaligned);
    o->profile_check = st;
    o->profile_errors = diags.errors;
    psoc_diags_clear(&diags);
  }
  o->check = psoc_check(data, size, NULL, &diags);
  REQUIRE(o->check == PSOC_OK || o->check == PSOC_ERR_INVALID);
  REQUIRE((diags.errors == 0) == (o->check == PSOC_OK));
  check_diags(&diags, size, unaligned);
  o->errors = diags.errors;
  o->warnings = diags.warnings;
  o->notes = diags.notes;
  o->diag_count = diags.count;
  REQUIRE(psoc_check(data, size, NULL, NULL) == o->check);
  {
    /* the rules' screens skip only rules with nothing to say: every rule
    ** run gives the same list */
    psoc_check_options all;
    psoc_diags every;
    size_t i;
    all.flags = PSOC_CHECK_UNSCREENED_;
    all.profile = NULL;
    psoc_diags_init(&every, NULL);
    REQUIRE(psoc_check(data, size, &all, &every) == o->check);
    REQUIRE(every.count == diags.count && every.errors == diags.errors &&
            every.warnings == diags.warnings);
    for (i = 0; i < every.count; i++) {
      const psoc_diag *x = &diags.items[i], *y = &every.items[i];
      REQUIRE(x->severity == y->severity && x->code == y->code && x->subobject == y->subobject &&
              x->offset == y->offset && strcmp(x->field, y->field) == 0 &&
              strcmp(x->message, y->message) == 0);
    }
    psoc_diags_free(&every);
  }

  /* a list that cannot grow still counts every diagnostic */
  psoc_diags_init(&dropped, &failing);
  REQUIRE(psoc_check(data, size, NULL, &dropped) == o->check);
  REQUIRE(dropped.count == 0 && dropped.dropped == diags.count);
  REQUIRE(dropped.errors == diags.errors && dropped.notes == diags.notes);
  psoc_diags_free(&dropped);

  /* parse: structure and views */
  psoc_diags_clear(&diags);
  o->parse = psoc_parse(data, size, &parsed, &diags);
  check_parsed(&parsed, o->parse, data, size);
  REQUIRE((diags.errors == 0) == (o->parse == PSOC_OK));
  REQUIRE(diags.errors <= o->errors); /* check adds rules on top */
  if (o->check == PSOC_OK) REQUIRE(o->parse == PSOC_OK && parsed.kind != PSOC_KIND_NONE);
  if (o->parse == PSOC_OK && parsed.kind == PSOC_KIND_NONE) REQUIRE(o->check != PSOC_OK);
  o->kind = parsed.kind;
  o->count = parsed.count;
  o->present = parsed.present;
  o->complete = parsed.complete;
  memcpy(o->has, parsed.has, sizeof o->has);
  memcpy(o->class_type, parsed.class_type, sizeof o->class_type);
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++)
    if (parsed.has[t]) o->view_offset[t] = parsed.views[t].offset;
  psoc_diags_free(&diags);

  /* resolve whatever was parsed, and the conversions */
  REQUIRE(psoc_resolve(&parsed, &resolved) == PSOC_OK);
  check_resolved(&parsed, &resolved);

  /* hash: defined exactly for streams that walk to the end; deterministic */
  o->hash = psoc_hash(data, size, 0, NULL, &o->hash_value);
  REQUIRE(o->hash == (parsed.complete ? PSOC_OK : PSOC_ERR_INVALID));
  REQUIRE(psoc_hash(data, size, 0, NULL, &again) == o->hash);
  REQUIRE(again.lo == o->hash_value.lo && again.hi == o->hash_value.hi);

  /* dump without following pointers, into a writer that discards */
  o->dump = psoc_dump(data, size, 0, discard, &written);
  REQUIRE(o->dump == (parsed.complete ? PSOC_OK : PSOC_ERR_INVALID));
  REQUIRE(written > 0);
  REQUIRE(psoc_dump(data, size, 0, fail_write, &failures) == PSOC_ERR_IO);
  REQUIRE(failures >= 1);
}

static void same_outcome(const outcome *a, const outcome *u) {
  REQUIRE(a->check == u->check && a->parse == u->parse);
  REQUIRE(a->profile_check == u->profile_check && a->profile_errors == u->profile_errors);
  REQUIRE(a->hash == u->hash && a->dump == u->dump);
  REQUIRE(a->errors == u->errors && a->notes == u->notes);
  REQUIRE(a->warnings + 1 == u->warnings && a->diag_count + 1 == u->diag_count);
  REQUIRE(a->kind == u->kind && a->count == u->count && a->present == u->present);
  REQUIRE(a->complete == u->complete);
  REQUIRE(memcmp(a->has, u->has, sizeof a->has) == 0);
  REQUIRE(memcmp(a->class_type, u->class_type, sizeof a->class_type) == 0);
  REQUIRE(memcmp(a->view_offset, u->view_offset, sizeof a->view_offset) == 0);
  REQUIRE(a->hash_value.lo == u->hash_value.lo && a->hash_value.hi == u->hash_value.hi);
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size) {
  outcome aligned, unaligned;
  unsigned char *block;
  size_t shift;

  /* Aligned: malloc is 16-aligned, and the block is exactly 'size' bytes. */
  block = malloc(size ? size : 1);
  REQUIRE(block != NULL);
  if (size) memcpy(block, input, size);
  run(block, size, 0, &aligned);
  free(block);

  if (size == 0) return 0; /* the empty stream is not "unaligned" */

  /* Unaligned: start 1..7 bytes past an aligned address, end at the
  ** block's end. The shift depends on the size only, so it does not steal
  ** input bytes from the stream. */
  shift = 1 + size % 7;
  block = malloc(size + shift);
  REQUIRE(block != NULL);
  memcpy(block + shift, input, size);
  run(block + shift, size, 1, &unaligned);
  free(block);

  same_outcome(&aligned, &unaligned);
  return 0;
}
