/*
** test_archive_merge.c: merging cook units into a writer
** (psoc_archive_writer_add_archive) and finishing twice, as psoc cook does.
**
**   merge       every example material's unit, opened lazily or verified,
**               merged in any order gives the bytes and the statistics of
**               adding the streams themselves
**   damage      a lazily opened unit with one damaged component: the merge
**               fails naming it, keeps the pipelines before the first user
**               and nothing of that user
**   clash       the same name with other content is PSOC_ERR_DUPLICATE and
**               leaves the writer as it was
**   finish      a finish with nothing added since gives the same bytes (the
**               same buffer); an add of something new makes a new finish
**   pipelines   pipelines of one archive added a few at a time, by index,
**               through one component map (psoc_archive_writer_add_archive_pipelines,
**               as psoc cook takes materials from its pack) give the bytes
**               and statistics of adding every stream; bad arguments; the
**               same with the records borrowed
**               (psoc_archive_writer_borrow_archive_pipelines); both
**               finished in memory and streamed to a file
**   renumbered  records borrowed from one unit into a writer that holds
**               other materials' components too (their numbers change in
**               the file) give the bytes of adding every stream, as do
**               records whose numbers stay (written as they are, with the
**               checksums their unit verified)
**   reserve     psoc_archive_writer_reserve: bad arguments, too many, fewer
**               than added and more than added all give the bytes of a
**               writer that never reserved
*/
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkdtemp */
#endif
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h"
#include "psoc_archive.h"
#include "psol.h"
#include "suites.h"

static char fake_rs;

static void *resolve_rs(void *ud, const char *name) {
  (void)ud;
  (void)name;
  return &fake_rs;
}

/* A copy archives can be opened over (16-byte aligned; C11 aligned_alloc). */
static unsigned char *aligned_copy(const void *data, size_t size) {
  unsigned char *p = aligned_alloc(16, (size + 15) / 16 * 16 + 16);
  ck_assert_ptr_nonnull(p);
  memcpy(p, data, size);
  return p;
}

/* Units of four materials that share shaders and layouts; lit.lua (index
** 1) has several pipelines. */
static const char *const materials[] = { "scripts/materials/compute.lua", "scripts/materials/lit.lua",
                                         "scripts/materials/transparent.lua", "scripts/materials/shadow.lua" };
#define NMATERIALS (sizeof materials / sizeof materials[0])

typedef struct unit {
  unsigned char *data; /* 16-byte aligned copy of the unit's bytes */
  size_t size;
} unit;

/* Every material's unit, and 'all' with every stream added directly. */
static void make_units(unit *u, psoc_archive_writer *all) {
  psol_options o;
  size_t i, k;
  char err[256];
  memset(&o, 0, sizeof o);
  o.resolve_root_signature = resolve_rs;
  for (i = 0; i < NMATERIALS; i++) {
    psol_result r;
    psoc_archive_writer *w;
    const void *d;
    ck_assert_msg(psol_evaluate_file(&o, materials[i], &r) == PSOC_OK, "%s: %s", materials[i], r.error);
    ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
    for (k = 0; k < r.count; k++) {
      const psol_pipeline *p = &r.pipelines[k];
      ck_assert_int_eq(psoc_archive_writer_add(w, p->name, p->root_signature, psoc_stream_data(p->stream),
                                               psoc_stream_size(p->stream), err, sizeof err), PSOC_OK);
      ck_assert_int_eq(psoc_archive_writer_add(all, p->name, p->root_signature, psoc_stream_data(p->stream),
                                               psoc_stream_size(p->stream), err, sizeof err), PSOC_OK);
    }
    ck_assert_int_eq(psoc_archive_writer_finish(w, &d, &u[i].size), PSOC_OK);
    u[i].data = aligned_copy(d, u[i].size);
    psoc_archive_writer_free(w);
    psol_result_free(&r);
  }
}

static void free_units(unit *u) {
  size_t i;
  for (i = 0; i < NMATERIALS; i++) free(u[i].data);
}

/* The two writers hold the same pipelines and components. */
static void same_stats(const psoc_archive_writer *a, const psoc_archive_writer *b) {
  psoc_archive_writer_stats sa, sb;
  psoc_archive_writer_stats_get(a, &sa);
  psoc_archive_writer_stats_get(b, &sb);
  ck_assert_uint_eq(sa.pipelines, sb.pipelines);
  ck_assert_uint_eq(sa.components, sb.components);
  ck_assert_uint_eq(sa.component_bytes, sb.component_bytes);
  ck_assert_uint_eq(sa.referenced_bytes, sb.referenced_bytes);
}

/* Unit u opened (flags: PSOC_ARCHIVE_VERIFY_*) and merged into w whole. */
static void add_unit(psoc_archive_writer *w, const unit *u, uint32_t flags) {
  psoc_archive *a;
  char err[256];
  ck_assert_int_eq(psoc_archive_open_memory(u->data, u->size, flags, NULL, &a, err, sizeof err),
                   PSOC_OK);
  ck_assert_msg(psoc_archive_writer_add_archive(w, a, err, sizeof err) == PSOC_OK, "%s", err);
  psoc_archive_close(a);
}

/* a and b hold the same pipelines and components and finish to the same
** bytes: a's into *data, *size (they live as long as a). */
static void same_bytes(psoc_archive_writer *a, psoc_archive_writer *b, const void **data,
                       size_t *size) {
  const void *d;
  size_t n;
  same_stats(a, b);
  ck_assert_int_eq(psoc_archive_writer_finish(a, data, size), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_finish(b, &d, &n), PSOC_OK);
  ck_assert_uint_eq(*size, n);
  ck_assert_int_eq(memcmp(*data, d, n), 0);
}

START_TEST(test_merge_equals_adding_streams) {
  unit u[NMATERIALS];
  psoc_archive_writer *all, *merged;
  const void *d1;
  size_t s1, i;
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &all), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &merged), PSOC_OK);
  make_units(u, all);
  /* reversed order; every other unit lazily opened (verified as merged) */
  for (i = 0; i < NMATERIALS; i++)
    add_unit(merged, &u[NMATERIALS - 1 - i],
             i % 2 ? PSOC_ARCHIVE_VERIFY_LAZY : PSOC_ARCHIVE_VERIFY_ALL);
  same_bytes(all, merged, &d1, &s1);
  psoc_archive_writer_free(all);
  psoc_archive_writer_free(merged);
  free_units(u);
}
END_TEST

START_TEST(test_reserve_changes_nothing) {
  unit u[NMATERIALS];
  psoc_archive_writer *all, *r;
  const void *d1;
  size_t s1, i;
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &all), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &r), PSOC_OK);
  make_units(u, all);
  ck_assert_int_eq(psoc_archive_writer_reserve(NULL, 4), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_archive_writer_reserve(r, 0), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_reserve(r, (size_t)-1), PSOC_ERR_NOMEM);
  ck_assert_int_eq(psoc_archive_writer_reserve(r, 2), PSOC_OK); /* fewer than will come */
  for (i = 0; i < NMATERIALS; i++) {
    add_unit(r, &u[i], PSOC_ARCHIVE_VERIFY_ALL);
    /* more than will come, with pipelines already held (their index
    ** rehashed: the first unit added again finds every name, adds none) */
    if (i == 1) {
      ck_assert_int_eq(psoc_archive_writer_reserve(r, 5000), PSOC_OK);
      add_unit(r, &u[0], PSOC_ARCHIVE_VERIFY_ALL);
    }
  }
  same_bytes(all, r, &d1, &s1);
  psoc_archive_writer_free(all);
  psoc_archive_writer_free(r);
  free_units(u);
}
END_TEST

/* w streamed into a file (psoc_archive_write_file) holds want[0..size). */
static void same_file(psoc_archive_writer *w, const void *want, size_t size) {
  char dir[256], path[320], err[256];
  FILE *f;
  unsigned char *back = malloc(size + 1);
  ck_assert_ptr_nonnull(back);
  snprintf(dir, sizeof dir, "%s/psoc_merge.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/merged.psoa", dir);
  ck_assert_msg(psoc_archive_write_file(w, path, err, sizeof err) == PSOC_OK, "%s", err);
  f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fread(back, 1, size + 1, f), size);
  fclose(f);
  ck_assert_int_eq(remove(path), 0);
  ck_assert_int_eq(remove(dir), 0);
  ck_assert_int_eq(memcmp(want, back, size), 0);
  free(back);
}

/* The component indices pipeline 'index' of 'a' references, into c[64]. */
static size_t refs_of(psoc_archive *a, size_t index, size_t *c) {
  psoc_archive_entry e;
  size_t i;
  ck_assert_int_eq(psoc_archive_entry_get(a, index, &e), PSOC_OK);
  ck_assert_uint_le(e.component_count, 64);
  for (i = 0; i < e.component_count; i++)
    ck_assert_int_eq(psoc_archive_entry_component(a, index, i, &c[i]), PSOC_OK);
  return e.component_count;
}

START_TEST(test_borrow_renumbered) {
  unit u[NMATERIALS];
  psoc_archive_writer *all, *w, *alone;
  psoc_archive *lit, *out;
  const void *d1, *d3;
  size_t s1, s3, i, k, j, n, moved = 0, idx[64];
  uint32_t *map;
  unsigned char *copy;
  char err[256];
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &all), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &alone), PSOC_OK);
  make_units(u, all);
  ck_assert_int_eq(psoc_archive_open_memory(u[1].data, u[1].size, PSOC_ARCHIVE_VERIFY_ALL, NULL,
                                            &lit, err, sizeof err), PSOC_OK);
  n = psoc_archive_count(lit);
  ck_assert_uint_le(n, 64);
  for (k = 0; k < n; k++) idx[k] = k;
  map = malloc((psoc_archive_component_count(lit) + 1) * sizeof *map);
  ck_assert_ptr_nonnull(map);
  for (k = 0; k < psoc_archive_component_count(lit); k++) map[k] = PSOC_ARCHIVE_MAP_EMPTY;
  for (i = 0; i < NMATERIALS; i++) {
    if (i == 1) /* lit.lua's records borrowed, the others' copied */
      ck_assert_msg(psoc_archive_writer_borrow_archive_pipelines(w, lit, idx, n, map, err,
                                                                 sizeof err) == PSOC_OK, "%s", err);
    else
      add_unit(w, &u[i], PSOC_ARCHIVE_VERIFY_ALL);
  }
  same_bytes(all, w, &d1, &s1);
  same_file(w, d1, s1);
  /* the case is the one it means to be: some of lit's references have
  ** other numbers in the file than in its unit */
  copy = aligned_copy(d1, s1);
  ck_assert_int_eq(psoc_archive_open_memory(copy, s1, PSOC_ARCHIVE_VERIFY_ALL, NULL, &out, err,
                                            sizeof err), PSOC_OK);
  for (k = 0; k < n; k++) {
    size_t a_refs[64], b_refs[64], na, nb;
    psoc_archive_entry e;
    ck_assert_int_eq(psoc_archive_entry_get(lit, k, &e), PSOC_OK);
    na = refs_of(lit, k, a_refs);
    nb = refs_of(out, psoc_archive_find(out, e.name), b_refs);
    ck_assert_uint_eq(na, nb);
    for (j = 0; j < na; j++) moved += a_refs[j] != b_refs[j];
  }
  ck_assert_uint_gt(moved, 0);
  psoc_archive_close(out);
  free(copy);
  /* alone, the unit's numbers stay: the file is the unit, byte for byte */
  for (k = 0; k < psoc_archive_component_count(lit); k++) map[k] = PSOC_ARCHIVE_MAP_EMPTY;
  ck_assert_msg(psoc_archive_writer_borrow_archive_pipelines(alone, lit, idx, n, map, err,
                                                             sizeof err) == PSOC_OK, "%s", err);
  same_file(alone, u[1].data, u[1].size);
  ck_assert_int_eq(psoc_archive_writer_finish(alone, &d3, &s3), PSOC_OK);
  ck_assert_uint_eq(s3, u[1].size);
  ck_assert_int_eq(memcmp(d3, u[1].data, s3), 0);
  psoc_archive_writer_free(all);
  psoc_archive_writer_free(w);
  psoc_archive_writer_free(alone);
  psoc_archive_close(lit);
  free(map);
  free_units(u);
}
END_TEST

typedef psoc_status (*add_pipelines_fn)(psoc_archive_writer *, psoc_archive *, const size_t *,
                                        size_t, uint32_t *, char *, size_t);

/* _i 0: copied (add), 1: borrowed */
START_TEST(test_merge_pipelines_by_index) {
  add_pipelines_fn add = _i ? psoc_archive_writer_borrow_archive_pipelines
                            : psoc_archive_writer_add_archive_pipelines;
  unit u[NMATERIALS];
  psoc_archive_writer *all, *w;
  psoc_archive *pack;
  psoc_archive_writer_stats sw;
  const void *d1, *d2;
  size_t s1, s2, i, k, nc;
  uint32_t *map;
  char err[256];
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &all), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  make_units(u, all);
  ck_assert_int_eq(psoc_archive_writer_finish(all, &d1, &s1), PSOC_OK);
  {
    unsigned char *copy = aligned_copy(d1, s1);
    ck_assert_int_eq(psoc_archive_open_memory(copy, s1, PSOC_ARCHIVE_VERIFY_ALL, NULL, &pack, err,
                                              sizeof err), PSOC_OK);
    nc = psoc_archive_component_count(pack);
    map = malloc((nc + 1) * sizeof *map);
    ck_assert_ptr_nonnull(map);
    for (k = 0; k < nc; k++) map[k] = PSOC_ARCHIVE_MAP_EMPTY;
    /* bad arguments change nothing */
    {
      size_t bad = psoc_archive_count(pack);
      ck_assert_int_eq(add(w, pack, &bad, 1, map, err, sizeof err), PSOC_ERR_ARG);
      ck_assert_int_eq(add(w, pack, NULL, 1, map, err, sizeof err), PSOC_ERR_ARG);
      ck_assert_int_eq(add(w, NULL, &bad, 0, map, err, sizeof err), PSOC_ERR_ARG);
      ck_assert_int_eq(add(w, pack, NULL, 0, map, err, sizeof err), PSOC_OK);
      psoc_archive_writer_stats_get(w, &sw);
      ck_assert_uint_eq(sw.pipelines, 0);
      for (k = 0; k < nc; k++) ck_assert_uint_eq(map[k], PSOC_ARCHIVE_MAP_EMPTY);
    }
    /* material by material, in reverse, each unit's pipelines by name in
    ** the whole archive; the first one's twice (the copy adds nothing) */
    for (i = 0; i < NMATERIALS; i++) {
      size_t m = NMATERIALS - 1 - i, n, idx[64];
      psoc_archive *a;
      ck_assert_int_eq(psoc_archive_open_memory(u[m].data, u[m].size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err,
                                                sizeof err), PSOC_OK);
      n = psoc_archive_count(a);
      ck_assert_uint_le(n, 64);
      for (k = 0; k < n; k++) {
        psoc_archive_entry e;
        ck_assert_int_eq(psoc_archive_entry_get(a, k, &e), PSOC_OK);
        idx[k] = psoc_archive_find(pack, e.name);
        ck_assert_uint_ne(idx[k], PSOC_ARCHIVE_NOT_FOUND);
      }
      ck_assert_msg(add(w, pack, idx, n, map, err, sizeof err) == PSOC_OK, "%s", err);
      if (i == 0) ck_assert_msg(add(w, pack, idx, n, map, err, sizeof err) == PSOC_OK, "%s", err);
      psoc_archive_close(a);
    }
    same_stats(all, w);
    psoc_archive_writer_stats_get(w, &sw);
    for (k = 0; k < nc; k++) ck_assert_uint_lt(map[k], sw.components);
    same_file(w, d1, s1); /* streamed from the records, not finish's bytes */
    ck_assert_int_eq(psoc_archive_writer_finish(w, &d2, &s2), PSOC_OK);
    ck_assert_uint_eq(s1, s2);
    ck_assert_int_eq(memcmp(d1, d2, s1), 0);
    psoc_archive_writer_free(w); /* before the pack it may borrow from */
    psoc_archive_close(pack);
    free(copy);
  }
  free(map);
  psoc_archive_writer_free(all);
  free_units(u);
}
END_TEST

START_TEST(test_merge_damaged_component) {
  unit u[NMATERIALS];
  psoc_archive_writer *all, *w;
  psoc_archive *a;
  psoc_archive_component c;
  psoc_archive_writer_stats st;
  size_t i, n, first_user = (size_t)-1, at;
  const void *d;
  size_t size;
  char err[256];
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &all), PSOC_OK);
  make_units(u, all);
  /* lit.lua's unit: damage the component its last pipeline uses last */
  ck_assert_int_eq(psoc_archive_open_memory(u[1].data, u[1].size, PSOC_ARCHIVE_VERIFY_LAZY, NULL, &a, err,
                                            sizeof err), PSOC_OK);
  n = psoc_archive_count(a);
  ck_assert_uint_ge(n, 2);
  {
    psoc_archive_entry e;
    size_t comp, p, k;
    ck_assert_int_eq(psoc_archive_entry_get(a, n - 1, &e), PSOC_OK);
    ck_assert_uint_gt(e.component_count, 0);
    ck_assert_int_eq(psoc_archive_entry_component(a, n - 1, e.component_count - 1, &comp), PSOC_OK);
    ck_assert_int_eq(psoc_archive_component_get(a, comp, &c), PSOC_OK);
    ck_assert_uint_gt(c.size, 0);
    for (p = 0; p < n && first_user == (size_t)-1; p++) {
      psoc_archive_entry pe;
      ck_assert_int_eq(psoc_archive_entry_get(a, p, &pe), PSOC_OK);
      for (k = 0; k < pe.component_count; k++) {
        size_t pc;
        ck_assert_int_eq(psoc_archive_entry_component(a, p, k, &pc), PSOC_OK);
        if (pc == comp) first_user = p;
      }
    }
  }
  at = (size_t)((const unsigned char *)c.data - u[1].data) + (size_t)c.size / 2;
  psoc_archive_close(a);
  u[1].data[at] ^= 0x10;
  ck_assert_int_eq(psoc_archive_open_memory(u[1].data, u[1].size, PSOC_ARCHIVE_VERIFY_LAZY, NULL, &a, err,
                                            sizeof err), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_add_archive(w, a, err, sizeof err), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(err, "uses damaged component") != NULL, "%s", err);
  psoc_archive_writer_stats_get(w, &st);
  ck_assert_uint_eq(st.pipelines, first_user); /* those before it kept, it not */
  /* what was kept is a complete archive */
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d, &size), PSOC_OK);
  {
    unsigned char *copy = aligned_copy(d, size);
    psoc_archive *b;
    ck_assert_int_eq(psoc_archive_open_memory(copy, size,
                                              PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED, NULL, &b,
                                              err, sizeof err), PSOC_OK);
    ck_assert_uint_eq(psoc_archive_count(b), first_user);
    ck_assert_uint_eq(psoc_archive_verify(b, NULL, NULL, &i), PSOC_OK);
    psoc_archive_close(b);
    free(copy);
  }
  psoc_archive_close(a);
  psoc_archive_writer_free(w);
  psoc_archive_writer_free(all);
  free_units(u);
}
END_TEST

START_TEST(test_merge_clash_and_finish_again) {
  unit u[NMATERIALS];
  psoc_archive_writer *all, *w;
  psoc_archive *a;
  psoc_archive_writer_stats before, after;
  const void *d1, *d2, *d3;
  size_t s1, s2, s3, i;
  char err[256];
  /* a compute pipeline named like one of lit.lua's, with other content */
  static const unsigned char cs[16] = "DXBC compute cs";
  psoc_stream *clash;
  psoc_builder *b;
  psoc_archive_entry e;
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &all), PSOC_OK);
  make_units(u, all);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  for (i = 0; i < NMATERIALS; i++) {
    ck_assert_int_eq(psoc_archive_open_memory(u[i].data, u[i].size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err,
                                              sizeof err), PSOC_OK);
    if (i == 1) ck_assert_int_eq(psoc_archive_entry_get(a, 0, &e), PSOC_OK);
    ck_assert_int_eq(psoc_archive_writer_add_archive(w, a, err, sizeof err), PSOC_OK);
    psoc_archive_close(a);
  }
  /* finishing twice: the same bytes, the same buffer */
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d1, &s1), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d2, &s2), PSOC_OK);
  ck_assert_ptr_eq(d1, d2);
  ck_assert_uint_eq(s1, s2);
  /* merging a unit again adds nothing: still the same bytes */
  ck_assert_int_eq(psoc_archive_open_memory(u[1].data, u[1].size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err,
                                            sizeof err), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_add_archive(w, a, err, sizeof err), PSOC_OK);
  psoc_archive_close(a);
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d2, &s2), PSOC_OK);
  ck_assert_ptr_eq(d1, d2);
  /* a clash: a unit holding e.name with other content */
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  {
    D3D12_SHADER_BYTECODE bc;
    bc.pShaderBytecode = cs;
    bc.BytecodeLength = sizeof cs;
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_CS, &bc, sizeof bc), PSOC_OK);
  }
  ck_assert_int_eq(psoc_builder_finish(b, &clash), PSOC_OK);
  {
    psoc_archive_writer *cw;
    psoc_archive *ca;
    const void *cd;
    size_t cs_size;
    unsigned char *copy;
    ck_assert_int_eq(psoc_archive_writer_create(NULL, &cw), PSOC_OK);
    ck_assert_int_eq(psoc_archive_writer_add(cw, e.name, NULL, psoc_stream_data(clash), psoc_stream_size(clash),
                                             err, sizeof err), PSOC_OK);
    ck_assert_int_eq(psoc_archive_writer_finish(cw, &cd, &cs_size), PSOC_OK);
    copy = aligned_copy(cd, cs_size);
    ck_assert_int_eq(psoc_archive_open_memory(copy, cs_size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &ca, err,
                                              sizeof err), PSOC_OK);
    psoc_archive_writer_stats_get(w, &before);
    ck_assert_int_eq(psoc_archive_writer_add_archive(w, ca, err, sizeof err), PSOC_ERR_DUPLICATE);
    ck_assert_msg(strstr(err, e.name) != NULL, "%s", err);
    psoc_archive_writer_stats_get(w, &after);
    ck_assert_uint_eq(before.pipelines, after.pipelines);
    ck_assert_uint_eq(before.components, after.components);
    ck_assert_uint_eq(before.referenced_bytes, after.referenced_bytes);
    ck_assert_int_eq(psoc_archive_writer_finish(w, &d2, &s2), PSOC_OK);
    ck_assert_ptr_eq(d1, d2); /* nothing was added */
    psoc_archive_close(ca);
    free(copy);
    psoc_archive_writer_free(cw);
  }
  /* something new: a new finish, one pipeline more */
  ck_assert_int_eq(psoc_archive_writer_add(w, "zz_new", NULL, psoc_stream_data(clash), psoc_stream_size(clash),
                                           err, sizeof err), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d3, &s3), PSOC_OK);
  ck_assert_uint_gt(s3, s1);
  {
    unsigned char *copy = aligned_copy(d3, s3);
    ck_assert_int_eq(psoc_archive_open_memory(copy, s3, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err, sizeof err),
                     PSOC_OK);
    d3 = copy; /* freed below */
  }
  psoc_archive_writer_stats_get(w, &after);
  ck_assert_uint_eq(psoc_archive_count(a), after.pipelines);
  ck_assert_uint_ne(psoc_archive_find(a, "zz_new"), PSOC_ARCHIVE_NOT_FOUND);
  psoc_archive_close(a);
  free((void *)d3);
  psoc_stream_free(clash);
  psoc_builder_free(b);
  psoc_archive_writer_free(w);
  psoc_archive_writer_free(all);
  free_units(u);
}
END_TEST

Suite *suite_archive_merge(void) {
  Suite *s = suite_create("archive_merge");
  TCase *t = tcase_create("archive_merge");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_merge_equals_adding_streams);
  tcase_add_test(t, test_reserve_changes_nothing);
  tcase_add_test(t, test_borrow_renumbered);
  tcase_add_test(t, test_merge_damaged_component);
  tcase_add_test(t, test_merge_clash_and_finish_again);
  tcase_add_loop_test(t, test_merge_pipelines_by_index, 0, 2);
  suite_add_tcase(s, t);
  return s;
}
