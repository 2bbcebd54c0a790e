/*
** test_archive.c: cooked pipeline archives (src/psoc_archive.h,
** docs/archive.md) and the canonical hash's definition (PSOC_HASH_VERSION 2).
**
**   round trip   the example materials (psol_evaluate_file) cooked, loaded
**                from memory and from a file: every stream equal in content
**                (dump text) and hash to the in-memory build
**   determinism  reversed add order gives identical bytes
**   corruption   every single-byte flip and every truncation of a small
**                archive is detected with a message; a flip inside one
**                component loses exactly the pipelines using it
**   mismatch     format version, pointer size, hash version
**   derive       a variant built at runtime hashes like the cooked variant
*/
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkdtemp */
#endif
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"
#include "psoc.h"
#include "psoc_archive.h"
#include "psol.h"
#include "suites.h"
#include "xxh.h"

/* ---- helpers ------------------------------------------------------------ */

static char fake_rs[4][8];

static void *resolve_rs(void *ud, const char *name) {
  (void)ud;
  /* a distinct fake object per name (by first letter) */
  return fake_rs[(unsigned char)name[0] % 4];
}

static void *resolve_none(void *ud, const char *name) {
  (void)ud;
  (void)name;
  return NULL;
}

typedef struct text {
  char *buf;
  size_t len, cap;
} text;

static int text_write(void *ud, const char *s, size_t n) {
  text *t = ud;
  if (t->len + n + 1 > t->cap) {
    size_t cap = (t->len + n + 1) * 2;
    char *b = realloc(t->buf, cap);
    if (!b) return 1;
    t->buf = b;
    t->cap = cap;
  }
  memcpy(t->buf + t->len, s, n);
  t->len += n;
  t->buf[t->len] = 0;
  return 0;
}

/* The dump of a stream with its pointers followed (content, not addresses;
** the root-signature object prints as its pointer). Caller frees. */
static char *dump_of(const void *data, size_t size) {
  text t = { NULL, 0, 0 };
  ck_assert_int_eq(psoc_dump(data, size, PSOC_FOLLOW_POINTERS, text_write, &t), PSOC_OK);
  ck_assert_ptr_nonnull(t.buf);
  return t.buf;
}

/* p lies inside [base, base + size) */
static int inside(const void *p, const void *base, size_t size) {
  uintptr_t x = (uintptr_t)p, b = (uintptr_t)base;
  return x >= b && x < b + size;
}

static unsigned popcount(unsigned v) {
  unsigned n = 0;
  for (; v; v &= v - 1) n++;
  return n;
}

static int heq(psoc_hash128 a, psoc_hash128 b) { return a.lo == b.lo && a.hi == b.hi; }

/* A 16-byte aligned copy of an archive's bytes. */
static unsigned char *aligned_copy(const void *data, size_t size) {
  void *p = NULL;
  ck_assert_int_eq(posix_memalign(&p, 16, size ? size : 16), 0);
  if (size) memcpy(p, data, size);
  return p;
}

static const char *const materials[] = {
  "scripts/materials/compute.lua", "scripts/materials/lit.lua",    "scripts/materials/meshlet.lua",
  "scripts/materials/particles.lua", "scripts/materials/shadow.lua", "scripts/materials/stereo.lua",
  "scripts/materials/transparent.lua",
};
#define NMATERIALS (sizeof materials / sizeof materials[0])

static psol_options material_options(void) {
  psol_options o;
  memset(&o, 0, sizeof o);
  o.resolve_root_signature = resolve_rs;
  return o;
}

/* Every example material's pipelines added to 'w', in order or reversed. */
static size_t add_materials(psoc_archive_writer *w, psol_result *results, int reversed) {
  psol_options o = material_options();
  size_t i, total = 0;
  char err[256];
  for (i = 0; i < NMATERIALS; i++) {
    size_t m = reversed ? NMATERIALS - 1 - i : i, k;
    psol_result *r = &results[m];
    ck_assert_msg(psol_evaluate_file(&o, materials[m], r) == PSOC_OK, "%s: %s", materials[m], r->error);
    for (k = 0; k < r->count; k++) {
      size_t j = reversed ? r->count - 1 - k : k;
      const psol_pipeline *p = &r->pipelines[j];
      ck_assert_msg(psoc_archive_writer_add(w, p->name, p->root_signature, psoc_stream_data(p->stream),
                                            psoc_stream_size(p->stream), err, sizeof err) == PSOC_OK,
                    "%s: %s", p->name, err);
      total++;
    }
  }
  return total;
}

static void free_results(psol_result *results) {
  size_t i;
  for (i = 0; i < NMATERIALS; i++) psol_result_free(&results[i]);
}

/* Load every pipeline of 'a' and compare it with the in-memory build. */
static void check_against(psoc_archive *a, psol_result *results, size_t total) {
  psoc_archive_load_options lo;
  size_t i, k, seen = 0;
  static _Alignas(16) unsigned char scratch[1 << 16];
  char err[256];
  memset(&lo, 0, sizeof lo);
  lo.resolve_root_signature = resolve_rs;
  ck_assert_uint_eq(psoc_archive_count(a), total);
  for (i = 0; i < NMATERIALS; i++)
    for (k = 0; k < results[i].count; k++) {
      const psol_pipeline *p = &results[i].pipelines[k];
      size_t idx = psoc_archive_find(a, p->name), needed = 0;
      psoc_archive_entry e;
      D3D12_PIPELINE_STATE_STREAM_DESC desc;
      psoc_hash128 h;
      char *d1, *d2;
      ck_assert_msg(idx != PSOC_ARCHIVE_NOT_FOUND, "%s not found", p->name);
      ck_assert_int_eq(psoc_archive_entry_get(a, idx, &e), PSOC_OK);
      ck_assert_str_eq(e.name, p->name);
      if (p->root_signature)
        ck_assert_str_eq(e.root_signature, p->root_signature);
      else
        ck_assert_ptr_null(e.root_signature);
      ck_assert(heq(e.hash, p->hash));
      ck_assert_int_eq(e.kind, p->kind);
      ck_assert_uint_eq(e.stream_size, psoc_stream_size(p->stream));
      ck_assert_uint_le(e.load_size, sizeof scratch);
      ck_assert_msg(psoc_archive_load(a, idx, &lo, scratch, sizeof scratch, &desc, &needed, err,
                                      sizeof err) == PSOC_OK, "%s: %s", p->name, err);
      ck_assert_uint_eq(needed, e.load_size);
      ck_assert_uint_eq(desc.SizeInBytes, psoc_stream_size(p->stream));
      ck_assert_int_eq(psoc_hash(desc.pPipelineStateSubobjectStream, desc.SizeInBytes,
                                 PSOC_FOLLOW_POINTERS, e.root_signature, &h), PSOC_OK);
      ck_assert_msg(heq(h, p->hash), "%s: loaded stream hashes differently", p->name);
      d1 = dump_of(psoc_stream_data(p->stream), psoc_stream_size(p->stream));
      d2 = dump_of(desc.pPipelineStateSubobjectStream, desc.SizeInBytes);
      ck_assert_str_eq(d2, d1);
      free(d1);
      free(d2);
      /* the loaded stream passes the same check as the original */
      {
        psoc_check_options co = { PSOC_CHECK_FOLLOW_POINTERS, NULL };
        ck_assert_int_eq(psoc_check(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, &co, NULL),
                         psoc_check(psoc_stream_data(p->stream), psoc_stream_size(p->stream), &co, NULL));
      }
      ck_assert_uint_ne(psoc_archive_find_hash(a, p->hash), PSOC_ARCHIVE_NOT_FOUND);
      {
        psoc_archive_entry f;
        ck_assert_int_eq(psoc_archive_entry_get(a, psoc_archive_find_hash(a, p->hash), &f), PSOC_OK);
        ck_assert(heq(f.hash, p->hash));
      }
      seen++;
    }
  ck_assert_uint_eq(seen, total);
}

/* ---- round trip ------------------------------------------------------------- */

START_TEST(test_roundtrip_materials) {
  psol_result results[NMATERIALS];
  psoc_archive_writer *w;
  psoc_archive *a;
  psoc_archive_writer_stats stats;
  psoc_archive_info info;
  const void *data;
  size_t size, total, i, shaders = 0;
  unsigned char *copy;
  char err[256];
  memset(results, 0, sizeof results);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  total = add_materials(w, results, 0);
  ck_assert_uint_ge(total, 8);
  ck_assert_int_eq(psoc_archive_writer_finish(w, &data, &size), PSOC_OK);
  psoc_archive_writer_stats_get(w, &stats);
  ck_assert_uint_eq(stats.pipelines, total);
  ck_assert_uint_lt(stats.component_bytes, stats.referenced_bytes); /* lit's shaders are shared */
  copy = aligned_copy(data, size);
  ck_assert_msg(psoc_archive_open_memory(copy, size, PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED,
                                         NULL, &a, err, sizeof err) == PSOC_OK, "%s", err);
  ck_assert_str_eq(err, "");
  psoc_archive_info_get(a, &info);
  ck_assert_uint_eq(info.format_version, PSOC_ARCHIVE_FORMAT_VERSION);
  ck_assert_uint_eq(info.pointer_size, sizeof(void *));
  ck_assert_uint_eq(info.hash_version, PSOC_HASH_VERSION);
  ck_assert_str_eq(info.psoc_version, PSOC_VERSION_STRING);
  ck_assert_uint_eq(info.components, stats.components);
  ck_assert_uint_eq(info.file_size, size);
  check_against(a, results, total);
  ck_assert_int_eq(psoc_archive_verify(a, NULL, NULL, NULL), PSOC_OK);
  /* components: shared ones have several users, users add up to references */
  for (i = 0; i < psoc_archive_component_count(a); i++) {
    psoc_archive_component c;
    ck_assert_int_eq(psoc_archive_component_get(a, i, &c), PSOC_OK);
    ck_assert_uint_ge(c.users, 1);
    if (c.kind == PSOC_ARCHIVE_COMPONENT_SHADER) shaders++;
  }
  ck_assert_uint_gt(shaders, 0);
  ck_assert_uint_eq(psoc_archive_find(a, "no such pipeline"), PSOC_ARCHIVE_NOT_FOUND);
  psoc_archive_close(a);
  free(copy);
  psoc_archive_writer_free(w);
  free_results(results);
}
END_TEST

static void make_tmpdir(char *dir, size_t n) {
  snprintf(dir, n, "%s/psoc_archive.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

START_TEST(test_roundtrip_file) {
  psol_result results[NMATERIALS];
  psoc_archive_writer *w;
  psoc_archive *a;
  char dir[256], path[320], err[512];
  size_t total;
  memset(results, 0, sizeof results);
  make_tmpdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/materials.psoa", dir);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  total = add_materials(w, results, 0);
  ck_assert_msg(psoc_archive_write_file(w, path, err, sizeof err) == PSOC_OK, "%s", err);
  ck_assert_msg(psoc_archive_open_file(path, PSOC_ARCHIVE_VERIFY_LAZY, NULL, &a, err, sizeof err) == PSOC_OK,
                "%s", err);
  check_against(a, results, total);
  psoc_archive_close(a);
  ck_assert_msg(psoc_archive_open_file(path, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err, sizeof err) == PSOC_OK,
                "%s", err);
  check_against(a, results, total);
  psoc_archive_close(a);
  /* a missing file is an I/O error naming the path */
  snprintf(path, sizeof path, "%s/missing.psoa", dir);
  ck_assert_int_eq(psoc_archive_open_file(path, 0, NULL, &a, err, sizeof err), PSOC_ERR_IO);
  ck_assert_ptr_null(a);
  ck_assert_ptr_nonnull(strstr(err, "missing.psoa"));
  psoc_archive_writer_free(w);
  free_results(results);
  snprintf(path, sizeof path, "%s/materials.psoa", dir);
  remove(path);
  rmdir(dir);
}
END_TEST

/* Merging cook units gives the archive cooking everything at once gives. */
START_TEST(test_merge_units) {
  psol_options o = material_options();
  psoc_archive_writer *all, *merged;
  psol_result r;
  const void *d1, *d2;
  size_t s1, s2, i, k;
  char err[256];
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &all), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &merged), PSOC_OK);
  for (i = 0; i < NMATERIALS; i++) {
    psoc_archive_writer *unit;
    psoc_archive *a;
    const void *ud;
    size_t us;
    unsigned char *copy;
    ck_assert_int_eq(psol_evaluate_file(&o, materials[i], &r), PSOC_OK);
    ck_assert_int_eq(psoc_archive_writer_create(NULL, &unit), PSOC_OK);
    for (k = 0; k < r.count; k++) {
      const psol_pipeline *p = &r.pipelines[k];
      ck_assert_int_eq(psoc_archive_writer_add(all, p->name, p->root_signature, psoc_stream_data(p->stream),
                                               psoc_stream_size(p->stream), err, sizeof err), PSOC_OK);
      ck_assert_int_eq(psoc_archive_writer_add(unit, p->name, p->root_signature, psoc_stream_data(p->stream),
                                               psoc_stream_size(p->stream), err, sizeof err), PSOC_OK);
    }
    ck_assert_int_eq(psoc_archive_writer_finish(unit, &ud, &us), PSOC_OK);
    copy = aligned_copy(ud, us);
    ck_assert_int_eq(psoc_archive_open_memory(copy, us, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err, sizeof err),
                     PSOC_OK);
    ck_assert_msg(psoc_archive_writer_add_archive(merged, a, err, sizeof err) == PSOC_OK, "%s", err);
    ck_assert_int_eq(psoc_archive_writer_add_archive(merged, a, err, sizeof err), PSOC_OK); /* twice: harmless */
    psoc_archive_close(a);
    free(copy);
    psoc_archive_writer_free(unit);
    psol_result_free(&r);
  }
  ck_assert_int_eq(psoc_archive_writer_finish(all, &d1, &s1), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_finish(merged, &d2, &s2), PSOC_OK);
  ck_assert_uint_eq(s1, s2);
  ck_assert_int_eq(memcmp(d1, d2, s1), 0);
  psoc_archive_writer_free(all);
  psoc_archive_writer_free(merged);
}
END_TEST

/* ---- determinism -------------------------------------------------------------- */

START_TEST(test_determinism) {
  psol_result r1[NMATERIALS], r2[NMATERIALS];
  psoc_archive_writer *w1, *w2;
  const void *d1, *d2;
  size_t s1, s2;
  char err[256];
  memset(r1, 0, sizeof r1);
  memset(r2, 0, sizeof r2);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w1), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w2), PSOC_OK);
  (void)add_materials(w1, r1, 0);
  (void)add_materials(w2, r2, 1);
  ck_assert_int_eq(psoc_archive_writer_finish(w1, &d1, &s1), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_finish(w2, &d2, &s2), PSOC_OK);
  ck_assert_uint_eq(s1, s2);
  ck_assert_int_eq(memcmp(d1, d2, s1), 0);
  /* finishing twice gives the same bytes; re-adding a pipeline is harmless */
  {
    const psol_pipeline *p = &r1[1].pipelines[0];
    const void *d3;
    size_t s3;
    psol_pipeline *q = &r1[1].pipelines[1];
    ck_assert_int_eq(psoc_archive_writer_add(w1, p->name, p->root_signature, psoc_stream_data(p->stream),
                                             psoc_stream_size(p->stream), err, sizeof err), PSOC_OK);
    ck_assert_int_eq(psoc_archive_writer_finish(w1, &d3, &s3), PSOC_OK);
    ck_assert_uint_eq(s3, s2);
    ck_assert_int_eq(memcmp(d3, d2, s3), 0);
    /* the same name with other content is refused, and says so */
    ck_assert_int_eq(psoc_archive_writer_add(w1, p->name, p->root_signature, psoc_stream_data(q->stream),
                                             psoc_stream_size(q->stream), err, sizeof err),
                     PSOC_ERR_DUPLICATE);
    ck_assert_ptr_nonnull(strstr(err, p->name));
  }
  psoc_archive_writer_free(w1);
  psoc_archive_writer_free(w2);
  free_results(r1);
  free_results(r2);
}
END_TEST

/* ---- a small hand-built archive ------------------------------------------------- */

static const unsigned char vs_code[40] = "DXBC vertex shader bytes for the test...";
static const unsigned char ps_code[24] = "DXBC pixel shader bytes";
static const unsigned char cs_code[16] = "DXBC compute cs";

static const D3D12_RASTERIZER_DESC rast = { D3D12_FILL_MODE_SOLID, D3D12_CULL_MODE_BACK, FALSE, 0, 0.0f,
                                            0.0f, TRUE, FALSE, FALSE, 0,
                                            D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF };

static psoc_stream *graphics_stream(D3D12_CULL_MODE cull, int with_layout) {
  psoc_builder *b;
  psoc_stream *s;
  D3D12_SHADER_BYTECODE vs = { vs_code, sizeof vs_code }, ps = { ps_code, sizeof ps_code };
  D3D12_INPUT_ELEMENT_DESC el[2] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "TEXCOORD", 0, DXGI_FORMAT_R32G32_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
  };
  D3D12_INPUT_LAYOUT_DESC il = { el, 2 };
  D3D12_RASTERIZER_DESC r = rast;
  D3D12_RT_FORMAT_ARRAY rt;
  void *rs = NULL;
  memset(&rt, 0, sizeof rt);
  rt.NumRenderTargets = 1;
  rt.RTFormats[0] = DXGI_FORMAT_R8G8B8A8_UNORM;
  r.CullMode = cull;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_ROOT_SIGNATURE, &rs, sizeof rs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &ps, sizeof ps), PSOC_OK);
  if (with_layout) ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_RASTERIZER, &r, sizeof r), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_RENDER_TARGET_FORMATS, &rt, sizeof rt), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  psoc_builder_free(b);
  return s;
}

static psoc_stream *compute_stream(void) {
  psoc_builder *b;
  psoc_stream *s;
  D3D12_SHADER_BYTECODE cs = { cs_code, sizeof cs_code };
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_CS, &cs, sizeof cs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  psoc_builder_free(b);
  return s;
}

#define NSMALL 3
static const char *const small_names[NSMALL] = { "a_opaque", "b_two_sided", "c_compute" };
static const char *const small_rs[NSMALL] = { "forward", "forward", NULL };

typedef struct small {
  psoc_stream *s[NSMALL];
  psoc_hash128 h[NSMALL];
  unsigned char *data;
  size_t size;
} small;

static void small_make(small *sm) {
  psoc_archive_writer *w;
  const void *d;
  size_t i;
  char err[256];
  sm->s[0] = graphics_stream(D3D12_CULL_MODE_BACK, 1);
  sm->s[1] = graphics_stream(D3D12_CULL_MODE_NONE, 0);
  sm->s[2] = compute_stream();
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  for (i = 0; i < NSMALL; i++) {
    ck_assert_int_eq(psoc_hash(psoc_stream_data(sm->s[i]), psoc_stream_size(sm->s[i]), PSOC_FOLLOW_POINTERS,
                               small_rs[i], &sm->h[i]), PSOC_OK);
    ck_assert_msg(psoc_archive_writer_add(w, small_names[i], small_rs[i], psoc_stream_data(sm->s[i]),
                                          psoc_stream_size(sm->s[i]), err, sizeof err) == PSOC_OK, "%s", err);
  }
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d, &sm->size), PSOC_OK);
  sm->data = aligned_copy(d, sm->size);
  psoc_archive_writer_free(w);
}

static void small_free(small *sm) {
  size_t i;
  for (i = 0; i < NSMALL; i++) psoc_stream_free(sm->s[i]);
  free(sm->data);
}

/* Which pipelines of 'a' load, as a bit set; each that loads must be
** exactly the original (hash with its root-signature name). */
static unsigned loadable(psoc_archive *a, const small *sm) {
  static _Alignas(16) unsigned char scratch[4096];
  psoc_archive_load_options lo;
  unsigned bits = 0;
  size_t i;
  memset(&lo, 0, sizeof lo);
  lo.resolve_root_signature = resolve_rs;
  for (i = 0; i < psoc_archive_count(a); i++) {
    D3D12_PIPELINE_STATE_STREAM_DESC desc;
    psoc_archive_entry e;
    psoc_hash128 h;
    char err[256];
    psoc_status st;
    size_t j;
    ck_assert_int_eq(psoc_archive_entry_get(a, i, &e), PSOC_OK);
    st = psoc_archive_load(a, i, &lo, scratch, sizeof scratch, &desc, NULL, err, sizeof err);
    if (st != PSOC_OK) {
      ck_assert_int_eq(st, PSOC_ERR_INVALID);
      ck_assert_msg(err[0] != 0, "a failed load without a message");
      continue;
    }
    for (j = 0; j < NSMALL && strcmp(small_names[j], e.name) != 0; j++) {
    }
    ck_assert_uint_lt(j, NSMALL);
    ck_assert_int_eq(psoc_hash(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, PSOC_FOLLOW_POINTERS,
                               e.root_signature, &h), PSOC_OK);
    ck_assert_msg(heq(h, sm->h[j]), "pipeline %s loaded with other content", e.name);
    bits |= 1u << j;
  }
  return bits;
}

typedef struct damage_log {
  unsigned lost;       /* bit per pipeline of small_names */
  size_t components, records, calls;
  char last[512];
} damage_log;

static int on_damage(void *ud, const psoc_archive_damage *d) {
  damage_log *l = ud;
  l->calls++;
  ck_assert_ptr_nonnull(d->message);
  ck_assert(d->message[0] != 0);
  snprintf(l->last, sizeof l->last, "%s", d->message);
  if (d->what == PSOC_ARCHIVE_DAMAGE_COMPONENT) l->components++;
  if (d->what == PSOC_ARCHIVE_DAMAGE_RECORD) l->records++;
  if (d->what == PSOC_ARCHIVE_LOST_PIPELINE) {
    size_t j;
    ck_assert_ptr_nonnull(d->name);
    ck_assert_ptr_nonnull(strstr(d->message, d->name));
    for (j = 0; j < NSMALL && strcmp(small_names[j], d->name) != 0; j++) {
    }
    ck_assert_uint_lt(j, NSMALL);
    l->lost |= 1u << j;
  }
  return 0;
}

START_TEST(test_small_roundtrip_and_sharing) {
  small sm;
  psoc_archive *a;
  char err[256];
  size_t i, users_vs = 0;
  small_make(&sm);
  ck_assert_int_eq(psoc_archive_open_memory(sm.data, sm.size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err,
                                            sizeof err), PSOC_OK);
  ck_assert_uint_eq(loadable(a, &sm), 7u);
  /* VS and PS are stored once for both graphics pipelines; the input
  ** layout (with its two semantic names) once for the first */
  ck_assert_uint_eq(psoc_archive_component_count(a), 4);
  for (i = 0; i < psoc_archive_component_count(a); i++) {
    psoc_archive_component c;
    ck_assert_int_eq(psoc_archive_component_get(a, i, &c), PSOC_OK);
    if (c.kind == PSOC_ARCHIVE_COMPONENT_SHADER && c.size == sizeof vs_code) users_vs = c.users;
    if (c.kind == PSOC_ARCHIVE_COMPONENT_INPUT_LAYOUT) {
      ck_assert_uint_eq(c.count, 2);
      ck_assert_ptr_nonnull(memchr(c.data, 'P', (size_t)c.size));
    }
  }
  ck_assert_uint_eq(users_vs, 2);
  psoc_archive_close(a);
  small_free(&sm);
}
END_TEST

START_TEST(test_every_flip_detected) {
  small sm;
  size_t i, bit;
  unsigned char *buf;
  small_make(&sm);
  buf = aligned_copy(sm.data, sm.size);
  for (i = 0; i < sm.size; i++)
    for (bit = 0; bit < 2; bit++) {
      unsigned char mask = bit ? 0xff : (unsigned char)(1u << (i % 8));
      psoc_archive *a = NULL;
      char err[512];
      psoc_status st;
      memcpy(buf, sm.data, sm.size);
      buf[i] ^= mask;
      /* strict: the open fails, with a message */
      err[0] = 0;
      st = psoc_archive_open_memory(buf, sm.size, PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED, NULL,
                                    &a, err, sizeof err);
      ck_assert_msg(st == PSOC_ERR_INVALID, "flip at byte %zu (mask %02x) accepted", i, mask);
      ck_assert_ptr_null(a);
      ck_assert_msg(err[0] != 0, "flip at byte %zu: no message", i);
      /* tolerant: either the open fails, or verify reports the damage and
      ** what still loads is exactly the original */
      st = psoc_archive_open_memory(buf, sm.size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err, sizeof err);
      if (st == PSOC_OK) {
        damage_log log;
        size_t lost = 0;
        unsigned ok;
        memset(&log, 0, sizeof log);
        ck_assert_msg(psoc_archive_verify(a, on_damage, &log, &lost) == PSOC_ERR_INVALID,
                      "flip at byte %zu not found by verify", i);
        ck_assert_uint_ge(log.components + log.records, 1);
        ck_assert_uint_eq(lost, (size_t)popcount(log.lost));
        ok = loadable(a, &sm);
        ck_assert_uint_eq(ok & log.lost, 0); /* lost ones do not load */
        ck_assert_uint_eq(ok | log.lost, 7u); /* the others do */
        psoc_archive_close(a);
      } else {
        ck_assert_int_eq(st, PSOC_ERR_INVALID);
        ck_assert(err[0] != 0);
      }
    }
  free(buf);
  small_free(&sm);
}
END_TEST

START_TEST(test_every_truncation_detected) {
  small sm;
  size_t n;
  small_make(&sm);
  for (n = 0; n < sm.size; n++) {
    unsigned char *buf = aligned_copy(sm.data, n);
    psoc_archive *a = NULL;
    char err[512];
    ck_assert_msg(psoc_archive_open_memory(buf, n, PSOC_ARCHIVE_VERIFY_LAZY, NULL, &a, err, sizeof err) ==
                      PSOC_ERR_INVALID, "truncation to %zu bytes accepted", n);
    ck_assert_ptr_null(a);
    ck_assert(err[0] != 0);
    ck_assert_msg(strstr(err, n >= 8 ? "truncated" : "not a psoc archive") != NULL, "%zu: %s", n, err);
    free(buf);
  }
  small_free(&sm);
}
END_TEST

/* A flip inside one component loses exactly the pipelines that use it, and
** verify names them; in lazy mode the others still load. */
START_TEST(test_component_flip_loses_its_pipelines) {
  small sm;
  psoc_archive *a;
  size_t c, n;
  char err[512];
  small_make(&sm);
  ck_assert_int_eq(psoc_archive_open_memory(sm.data, sm.size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err,
                                            sizeof err), PSOC_OK);
  n = psoc_archive_component_count(a);
  for (c = 0; c < n; c++) {
    psoc_archive_component info;
    unsigned users = 0, pass;
    size_t p, at;
    unsigned char *buf = aligned_copy(sm.data, sm.size);
    ck_assert_int_eq(psoc_archive_component_get(a, c, &info), PSOC_OK);
    for (p = 0; p < psoc_archive_count(a); p++) {
      psoc_archive_entry e;
      size_t k, comp;
      ck_assert_int_eq(psoc_archive_entry_get(a, p, &e), PSOC_OK);
      for (k = 0; k < e.component_count; k++) {
        ck_assert_int_eq(psoc_archive_entry_component(a, p, k, &comp), PSOC_OK);
        if (comp == c) {
          size_t j;
          for (j = 0; j < NSMALL && strcmp(small_names[j], e.name) != 0; j++) {
          }
          users |= 1u << j;
        }
      }
    }
    ck_assert_uint_eq((unsigned)popcount(users), info.users);
    at = (size_t)((const unsigned char *)info.data - sm.data) + (size_t)info.size / 2;
    buf[at] ^= 0x20;
    for (pass = 0; pass < 2; pass++) {
      psoc_archive *b;
      damage_log log;
      size_t lost;
      memset(&log, 0, sizeof log);
      ck_assert_int_eq(psoc_archive_open_memory(buf, sm.size, pass ? PSOC_ARCHIVE_VERIFY_LAZY
                                                                   : PSOC_ARCHIVE_VERIFY_ALL,
                                                NULL, &b, err, sizeof err), PSOC_OK);
      if (pass) {
        /* lazy: loading finds it, names the component, others load */
        ck_assert_uint_eq(loadable(b, &sm), 7u & ~users);
      }
      ck_assert_int_eq(psoc_archive_verify(b, on_damage, &log, &lost), PSOC_ERR_INVALID);
      ck_assert_uint_eq(log.components, 1);
      ck_assert_uint_eq(log.records, 0);
      ck_assert_uint_eq(log.lost, users);
      ck_assert_uint_eq(lost, info.users);
      ck_assert_ptr_nonnull(strstr(log.last, "uses damaged component"));
      ck_assert_ptr_nonnull(strstr(log.last, psoc_archive_component_kind_name(info.kind)));
      ck_assert_uint_eq(loadable(b, &sm), 7u & ~users);
      psoc_archive_close(b);
    }
    free(buf);
  }
  psoc_archive_close(a);
  small_free(&sm);
}
END_TEST

/* ---- records of one shape -------------------------------------------------- */

/* Little-endian helpers over an archive buffer (docs/archive.md). */
static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr64(unsigned char *p, uint64_t v) {
  unsigned i;
  for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* After editing pipeline i's record: its record checksum, the pipeline
** table's checksum, the table of contents' and the header's (and the end
** marker's copy) made consistent again, as a writer with a bug would. */
static void reseal_record(unsigned char *buf, size_t size, size_t i) {
  unsigned char *toc = buf + 96, *pipe = buf + rd32(toc + 8), *e = pipe + i * 64;
  unsigned char *recs = buf + rd32(toc + 5 * 32 + 8);
  uint64_t pipe_len = rd32(toc + 16);
  wr64(e + 56, psoc_xxh3(recs + rd32(e + 40), rd32(e + 36)));
  wr64(toc + 24, psoc_xxh3(pipe, (size_t)pipe_len));
  wr64(buf + 56, psoc_xxh3(toc, 7 * 32));
  wr64(buf + 88, psoc_xxh3(buf, 88));
  memcpy(buf + size - 8, buf + 88, 8);
}

/* SAME_SHAPE_N graphics pipelines "p0".. of one layout (a shape), with a
** root-signature name: the archive (an aligned copy) and its streams. */
enum { SAME_SHAPE_N = 6 };
static unsigned char *same_shape_archive(psoc_stream **s, char (*names)[16], size_t *size) {
  psoc_archive_writer *w;
  const void *d;
  unsigned char *clean;
  char err[512];
  size_t i;
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  for (i = 0; i < SAME_SHAPE_N; i++) {
    s[i] = graphics_stream(i % 2 ? D3D12_CULL_MODE_FRONT : D3D12_CULL_MODE_BACK, 1);
    snprintf(names[i], 16, "p%zu", i);
    ck_assert_int_eq(psoc_archive_writer_add(w, names[i], "forward", psoc_stream_data(s[i]),
                                             psoc_stream_size(s[i]), err, sizeof err), PSOC_OK);
  }
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d, size), PSOC_OK);
  clean = aligned_copy(d, *size);
  psoc_archive_writer_free(w);
  return clean;
}

/* Open a resealed same-shape archive (mode 0 VERIFY_ALL, 1 VERIFY_LAZY):
** every pipeline but 'victim' loads, in order; the victim fails with
** 'reason' in its message; verify counts one lost pipeline. */
static void only_victim_lost(const unsigned char *buf, size_t size, unsigned mode, char (*names)[16],
                             size_t victim, const char *reason) {
  psoc_archive *a;
  psoc_archive_entry ent;
  char err[512];
  size_t k, lost;
  ck_assert_msg(psoc_archive_open_memory(buf, size, mode ? PSOC_ARCHIVE_VERIFY_LAZY : PSOC_ARCHIVE_VERIFY_ALL,
                                         NULL, &a, err, sizeof err) == PSOC_OK, "%s", err);
  for (k = 0; k < SAME_SHAPE_N; k++) {
    static _Alignas(16) unsigned char scratch[4096];
    psoc_archive_load_options lo;
    D3D12_PIPELINE_STATE_STREAM_DESC desc;
    memset(&lo, 0, sizeof lo);
    lo.resolve_root_signature = resolve_rs;
    ck_assert_int_eq(psoc_archive_entry_get(a, k, &ent), PSOC_OK);
    ck_assert_str_eq(ent.name, names[k]);
    ck_assert_int_eq(psoc_archive_load(a, k, &lo, scratch, sizeof scratch, &desc, NULL, err, sizeof err),
                     k == victim ? PSOC_ERR_INVALID : PSOC_OK);
    if (k == victim) ck_assert_msg(strstr(err, reason) != NULL, "%s: %s", reason, err);
  }
  ck_assert_int_eq(psoc_archive_verify(a, NULL, NULL, &lost), PSOC_ERR_INVALID);
  ck_assert_uint_eq(lost, 1);
  psoc_archive_close(a);
}

/* Many records share one layout (a shape: parsed once, the others matched
** against it). A record of that size whose type words or deciding shader
** differ, under valid checksums, must still be found damaged, with the
** reason psoc_parse gives, and lose only its pipeline. */
START_TEST(test_same_shape_record_damage) {
  enum { N = SAME_SHAPE_N, VICTIM = 4 };
  psoc_stream *s[N];
  size_t size, i;
  unsigned char *clean;
  char err[512], names[N][16];
  int which;
  clean = same_shape_archive(s, names, &size);
  for (which = 0; which < 2; which++) {
    unsigned mode;
    for (mode = 0; mode < 2; mode++) {
      unsigned char *buf = aligned_copy(clean, size);
      unsigned char *toc = buf + 96, *e = buf + rd32(toc + 8) + VICTIM * 64;
      unsigned char *rec = buf + rd32(toc + 5 * 32 + 8) + rd32(e + 40);
      psoc_parsed parsed;
      size_t k;
      ck_assert_int_eq(psoc_parse(rec, rd32(e + 36), &parsed, NULL), PSOC_OK);
      if (which == 0) { /* the rasterizer's type word: a type that does not exist */
        rec[parsed.views[PSOC_SO_RASTERIZER].offset] = 0x7f;
      } else {
        /* no vertex shader, and its component taken off the references:
        ** a consistent record of the same size and types, but of no kind */
        size_t vs = (size_t)-1, first = rd32(e + 44), count = rd32(e + 48), c;
        unsigned char *refs = buf + rd32(toc + 2 * 32 + 8);
        for (k = 0; k < count; k++) {
          psoc_archive_component info;
          psoc_archive *ca;
          c = rd32(refs + (first + k) * 4);
          ck_assert_int_eq(psoc_archive_open_memory(clean, size, 0, NULL, &ca, err, sizeof err), PSOC_OK);
          ck_assert_int_eq(psoc_archive_component_get(ca, c, &info), PSOC_OK);
          if (info.kind == PSOC_ARCHIVE_COMPONENT_SHADER && info.size == sizeof vs_code) vs = k;
          psoc_archive_close(ca);
        }
        ck_assert_msg(vs == 0 || vs == count - 1, "the vertex shader is reference %zu of %zu", vs, count);
        if (vs == 0) e[44] = (unsigned char)(first + 1); /* first (< 256 here) */
        e[48] = (unsigned char)(count - 1);
        memset(rec + parsed.views[PSOC_SO_VS].offset + parsed.views[PSOC_SO_VS].info->payload_offset, 0,
               sizeof(D3D12_SHADER_BYTECODE));
      }
      reseal_record(buf, size, VICTIM);
      only_victim_lost(buf, size, mode, names, VICTIM, which == 0 ? "does not parse" : "kind");
      free(buf);
    }
  }
  free(clean);
  for (i = 0; i < N; i++) psoc_stream_free(s[i]);
}
END_TEST

/* A record's pointer slot (a little-endian integer of pointer size). */
static uint64_t rd_slot(const unsigned char *p) {
  uint64_t v = 0;
  size_t i;
  for (i = 0; i < sizeof(void *); i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static void wr_slot(unsigned char *p, uint64_t v) {
  size_t i;
  for (i = 0; i < sizeof(void *); i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The reference checks of records matched against a shape (the reader's
** fast path: the shape's slots against a table of the components): a
** record of the same layout whose references are wrong, under valid
** checksums, loses only its pipeline, in both verify modes, with the
** reason the full check gives. */
START_TEST(test_same_shape_reference_damage) {
  enum { N = SAME_SHAPE_N, VICTIM = 3, CASES = 9 };
  static const char *const reasons[CASES] = {
    "a component of the wrong kind", "a NULL reference with a non-zero count",
    "a component reference out of range", "root-signature reference does not match the entry",
    "a count that does not match its component", "references it does not use",
    "a count that does not match its component", "a component missing from its references",
    "a component missing from its references",
  };
  psoc_stream *s[N];
  size_t size, i;
  unsigned char *clean;
  char names[N][16];
  int which;
  clean = same_shape_archive(s, names, &size);
  for (which = 0; which < CASES; which++) {
    unsigned mode;
    for (mode = 0; mode < 2; mode++) {
      unsigned char *buf = aligned_copy(clean, size);
      unsigned char *toc = buf + 96, *e = buf + rd32(toc + 8) + VICTIM * 64;
      unsigned char *rec = buf + rd32(toc + 5 * 32 + 8) + rd32(e + 40), *vs, *ps, *il, *rs;
      psoc_parsed parsed;
      ck_assert_int_eq(psoc_parse(rec, rd32(e + 36), &parsed, NULL), PSOC_OK);
      vs = rec + parsed.views[PSOC_SO_VS].offset + parsed.views[PSOC_SO_VS].info->payload_offset;
      ps = rec + parsed.views[PSOC_SO_PS].offset + parsed.views[PSOC_SO_PS].info->payload_offset;
      il = rec + parsed.views[PSOC_SO_INPUT_LAYOUT].offset + parsed.views[PSOC_SO_INPUT_LAYOUT].info->payload_offset;
      rs = rec + parsed.views[PSOC_SO_ROOT_SIGNATURE].offset +
           parsed.views[PSOC_SO_ROOT_SIGNATURE].info->payload_offset;
      ck_assert(rd_slot(vs) != 0 && rd_slot(ps) != 0 && rd_slot(il) != 0 && rd_slot(rs) == 1);
      if (which == 0) wr_slot(vs, rd_slot(il));  /* the input layout where a shader belongs */
      if (which == 1) wr_slot(ps, 0);            /* NULL, its length kept */
      if (which == 2) wr_slot(vs, 1000);         /* no such component */
      if (which == 3) wr_slot(rs, 0);            /* the entry names a root signature */
      if (which == 4) il[sizeof(void *)] = 1;    /* NumElements 1 of the layout's 2 */
      if (which == 5) { /* the pixel shader twice: sound slots, the vertex shader's reference unused */
        wr_slot(vs, rd_slot(ps));
        wr_slot(vs + sizeof(void *), sizeof ps_code);
      }
      if (which == 6 && sizeof(void *) == 8) /* a length whose low bits match: 2^56 + the real one */
        vs[sizeof(void *) + 7] = 1;
      if (which == 6 && sizeof(void *) == 4) /* no 56-bit lengths there: the same case as 4 */
        il[sizeof(void *)] = 1;
      if (which == 7 || which == 8) { /* the first or the last reference taken off the list */
        ck_assert_uint_ge(rd32(e + 48), 2);
        if (which == 7) wr64(e + 44, rd32(e + 44) + 1 + ((uint64_t)(rd32(e + 48) - 1) << 32));
        if (which == 8) e[48] = (unsigned char)(rd32(e + 48) - 1);
      }
      reseal_record(buf, size, VICTIM);
      only_victim_lost(buf, size, mode, names, VICTIM, reasons[which]);
      free(buf);
    }
  }
  free(clean);
  for (i = 0; i < N; i++) psoc_stream_free(s[i]);
}
END_TEST

/* After editing the tables (names, references): every table's checksum,
** the table of contents' and the header's made consistent again. */
static void reseal_tables(unsigned char *buf, size_t size) {
  unsigned char *toc = buf + 96;
  size_t t;
  for (t = 0; t < 5; t++) /* PIPE, NAME, REFS, HIDX, COMP */
    wr64(toc + t * 32 + 24, psoc_xxh3(buf + rd32(toc + t * 32 + 8), rd32(toc + t * 32 + 16)));
  wr64(buf + 56, psoc_xxh3(toc, 7 * 32));
  wr64(buf + 88, psoc_xxh3(buf, 88));
  memcpy(buf + size - 8, buf + 88, 8);
}

/* The open's name checks (short names read 8 bytes at a time, longer ones
** byte by byte; root-signature names checked once per distinct name):
** names of every length around the word sizes, some the beginning of
** others, open and are found; under valid checksums, a name whose NUL is
** gone, a NUL inside a name, two names out of order or equal, and a
** damaged root-signature name are each refused with the reason. */
START_TEST(test_name_checks) {
  static const char *const names[] = {
    "a", "abcdef", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmn", "abcdefghijklmno",
    "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopqrstuvwxyz0123456789", "b", "bbbbbbbbbbbbbbb",
    "bbbbbbbbbbbbbbc", "c",
  };
  enum { N = sizeof names / sizeof names[0] };
  static const char *const rsn[3] = { "rs", "root_signature_", "a_long_root_signature_name" };
  psoc_archive_writer *w;
  psoc_stream *st = graphics_stream(D3D12_CULL_MODE_BACK, 1);
  const void *d;
  unsigned char *clean;
  size_t size, i, k;
  char err[512];
  psoc_archive *a;
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  for (i = 0; i < N; i++) /* in reverse: the writer sorts them */
    ck_assert_int_eq(psoc_archive_writer_add(w, names[N - 1 - i], rsn[i % 3], psoc_stream_data(st),
                                             psoc_stream_size(st), err, sizeof err), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d, &size), PSOC_OK);
  clean = aligned_copy(d, size);
  psoc_archive_writer_free(w);
  psoc_stream_free(st);
  ck_assert_msg(psoc_archive_open_memory(clean, size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err, sizeof err) == PSOC_OK,
                "%s", err);
  for (i = 0; i < N; i++) ck_assert_uint_eq(psoc_archive_find(a, names[i]), i);
  psoc_archive_close(a);
  for (k = 0; k < N; k++) {
    int which;
    for (which = 0; which < 5; which++) {
      unsigned char *buf = aligned_copy(clean, size), *toc = buf + 96;
      unsigned char *e = buf + rd32(toc + 8) + k * 64, *nt = buf + rd32(toc + 32 + 8);
      unsigned char *nm = nt + rd32(e + 0), *rs = nt + rd32(e + 8);
      size_t len = rd32(e + 4);
      const char *want = "name outside the name table";
      if (which == 0) nm[len] = 'z';                        /* its NUL gone */
      if (which == 1) nm[len / 2] = 0;                      /* a NUL inside */
      if (which == 2) { /* above the next name (or, for the last, below the one before) */
        if (k + 1 == N) {
          free(buf);
          continue;
        }
        nm[0] = 'd';
        want = "names not in strictly increasing order";
      }
      if (which == 3) { /* the same as the name before it */
        if (k == 0) {
          free(buf);
          continue;
        }
        memcpy(e + 0, e - 64, 8); /* its offset and length */
        want = "names not in strictly increasing order";
      }
      if (which == 4) { /* its root-signature name's NUL gone */
        rs[rd32(e + 12)] = 'z';
        want = "root-signature name outside the name table";
      }
      reseal_tables(buf, size);
      ck_assert_int_eq(psoc_archive_open_memory(buf, size, which == 4 ? PSOC_ARCHIVE_VERIFY_LAZY : 0, NULL, &a,
                                                err, sizeof err), PSOC_ERR_INVALID);
      ck_assert_msg(strstr(err, want) != NULL, "name %zu, case %d: %s", k, which, err);
      ck_assert_msg(strstr(err, "malformed pipeline table") != NULL, "name %zu, case %d: %s", k, which, err);
      free(buf);
    }
  }
  free(clean);
}
END_TEST

/* More layouts than the reader keeps shapes for (128): 256 pipelines, each
** with another subset of 8 optional subobjects, so half of them are
** checked and loaded by parsing their records (no shape). Every one loads,
** in both verify modes, with its content (hash) and its input layout's
** semantic names intact. */
START_TEST(test_many_shapes) {
  enum { N = 256 };
  static psoc_hash128 want[N];
  static _Alignas(16) unsigned char scratch[4096];
  static const uint32_t optional[8] = { PSOC_SO_SAMPLE_MASK, PSOC_SO_IB_STRIP_CUT_VALUE, PSOC_SO_PRIMITIVE_TOPOLOGY,
                                        PSOC_SO_DEPTH_STENCIL_FORMAT, PSOC_SO_SAMPLE_DESC, PSOC_SO_NODE_MASK,
                                        PSOC_SO_FLAGS, PSOC_SO_BLEND };
  D3D12_SHADER_BYTECODE vs = { vs_code, sizeof vs_code }, ps = { ps_code, sizeof ps_code };
  D3D12_INPUT_ELEMENT_DESC el[2] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "NORMAL", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
  };
  D3D12_INPUT_LAYOUT_DESC il = { el, 2 };
  psoc_archive_writer *w;
  psoc_builder *b;
  const void *d;
  unsigned char *buf, zero[512];
  size_t size, i, k;
  char err[512], name[16];
  unsigned mode;
  void *rs = NULL;
  memset(zero, 0, sizeof zero);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  for (i = 0; i < N; i++) {
    psoc_stream *st;
    psoc_builder_reset(b);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_ROOT_SIGNATURE, &rs, sizeof rs), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &ps, sizeof ps), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
    for (k = 0; k < 8; k++)
      if (i & ((size_t)1 << k)) {
        const psoc_subobject_info *info = psoc_subobject_info_get(optional[k]);
        ck_assert_ptr_nonnull(info);
        ck_assert_uint_le(info->payload->size, sizeof zero);
        ck_assert_int_eq(psoc_builder_add(b, optional[k], zero, info->payload->size), PSOC_OK);
      }
    ck_assert_int_eq(psoc_builder_finish(b, &st), PSOC_OK);
    ck_assert_int_eq(psoc_hash(psoc_stream_data(st), psoc_stream_size(st), PSOC_FOLLOW_POINTERS, "forward", &want[i]),
                     PSOC_OK);
    snprintf(name, sizeof name, "s%03zu", i);
    ck_assert_msg(psoc_archive_writer_add(w, name, "forward", psoc_stream_data(st), psoc_stream_size(st), err,
                                          sizeof err) == PSOC_OK, "%s", err);
    psoc_stream_free(st);
  }
  psoc_builder_free(b);
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d, &size), PSOC_OK);
  buf = aligned_copy(d, size);
  psoc_archive_writer_free(w);
  for (mode = 0; mode < 2; mode++) {
    psoc_archive *a;
    psoc_archive_load_options lo;
    ck_assert_msg(psoc_archive_open_memory(buf, size, mode ? PSOC_ARCHIVE_VERIFY_LAZY : PSOC_ARCHIVE_VERIFY_ALL, NULL,
                                           &a, err, sizeof err) == PSOC_OK, "%s", err);
    ck_assert_uint_eq(psoc_archive_count(a), N);
    memset(&lo, 0, sizeof lo);
    lo.resolve_root_signature = resolve_rs;
    for (i = 0; i < N; i++) {
      D3D12_PIPELINE_STATE_STREAM_DESC desc;
      psoc_parsed parsed;
      D3D12_INPUT_LAYOUT_DESC got;
      psoc_hash128 h;
      size_t at;
      snprintf(name, sizeof name, "s%03zu", i);
      at = psoc_archive_find(a, name);
      ck_assert_uint_ne(at, PSOC_ARCHIVE_NOT_FOUND);
      ck_assert_msg(psoc_archive_load(a, at, &lo, scratch, sizeof scratch, &desc, NULL, err, sizeof err) == PSOC_OK,
                    "%s", err);
      ck_assert_int_eq(psoc_hash(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, PSOC_FOLLOW_POINTERS,
                                 "forward", &h), PSOC_OK);
      ck_assert_msg(heq(h, want[i]), "%s loaded with other content", name);
      ck_assert_int_eq(psoc_parse(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, &parsed, NULL), PSOC_OK);
      memcpy(&got, parsed.views[PSOC_SO_INPUT_LAYOUT].payload, sizeof got);
      ck_assert_uint_eq(got.NumElements, 2);
      ck_assert_str_eq(got.pInputElementDescs[0].SemanticName, "POSITION");
      ck_assert_str_eq(got.pInputElementDescs[1].SemanticName, "NORMAL");
    }
    ck_assert_int_eq(psoc_archive_verify(a, NULL, NULL, NULL), PSOC_OK);
    psoc_archive_close(a);
  }
  free(buf);
}
END_TEST

/* Rewrite a header field and make the header's checksum (and the end
** marker's copy of it) consistent again, as another build would have. */
static void patch_header(unsigned char *buf, size_t size, size_t at, uint32_t value) {
  uint64_t sum;
  unsigned i;
  for (i = 0; i < 4; i++) buf[at + i] = (unsigned char)(value >> (8 * i));
  sum = psoc_xxh3(buf, 88);
  for (i = 0; i < 8; i++) buf[88 + i] = buf[size - 8 + i] = (unsigned char)(sum >> (8 * i));
}

START_TEST(test_version_and_pointer_size_mismatch) {
  static const struct { size_t at; uint32_t value; const char *says; } cases[] = {
    { 8, 2, "format version 2" },          /* a future format */
    { 16, 4, "4-byte pointers" },          /* a 32-bit cook */
    { 20, 1, "hashes are version 1" },     /* psoc 0.1's hash */
    { 28, 0x1u, "another subobject set" }, /* an older registry */
  };
  small sm;
  size_t i;
  small_make(&sm);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    unsigned char *buf = aligned_copy(sm.data, sm.size);
    psoc_archive *a = NULL;
    char err[512];
    patch_header(buf, sm.size, cases[i].at, cases[i].value);
    ck_assert_int_eq(psoc_archive_open_memory(buf, sm.size, PSOC_ARCHIVE_VERIFY_LAZY, NULL, &a, err, sizeof err),
                     PSOC_ERR_INVALID);
    ck_assert_msg(strstr(err, cases[i].says) != NULL, "case %zu: %s", i, err);
    free(buf);
  }
  {
    unsigned char *buf = aligned_copy(sm.data, sm.size);
    psoc_archive *a = NULL;
    char err[512];
    memcpy(buf, "NOTPSOC!", 8);
    ck_assert_int_eq(psoc_archive_open_memory(buf, sm.size, 0, NULL, &a, err, sizeof err), PSOC_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(err, "not a psoc archive"));
    /* unaligned buffers and bad flags are argument errors */
    ck_assert_int_eq(psoc_archive_open_memory(sm.data + 1, sm.size - 1, 0, NULL, &a, err, sizeof err),
                     PSOC_ERR_ARG);
    ck_assert_int_eq(psoc_archive_open_memory(sm.data, sm.size, 0x100, NULL, &a, err, sizeof err), PSOC_ERR_ARG);
    free(buf);
  }
  small_free(&sm);
}
END_TEST

START_TEST(test_load_options_and_scratch) {
  small sm;
  psoc_archive *a;
  psoc_archive_load_options lo;
  D3D12_PIPELINE_STATE_STREAM_DESC desc;
  static _Alignas(16) unsigned char scratch[4096];
  char err[256];
  size_t idx, needed = 0;
  psoc_archive_entry e;
  small_make(&sm);
  ck_assert_int_eq(psoc_archive_open_memory(sm.data, sm.size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err,
                                            sizeof err), PSOC_OK);
  idx = psoc_archive_find(a, "a_opaque");
  ck_assert_uint_ne(idx, PSOC_ARCHIVE_NOT_FOUND);
  ck_assert_int_eq(psoc_archive_entry_get(a, idx, &e), PSOC_OK);
  /* the scratch holds the stream alone: input layouts are relocated once
  ** per component, in the archive object */
  ck_assert_uint_eq(e.load_size, (e.stream_size + 7) & ~(size_t)7);
  memset(&lo, 0, sizeof lo);
  lo.resolve_root_signature = resolve_rs;
  ck_assert_int_eq(psoc_archive_load(a, idx, &lo, scratch, e.load_size - 1, &desc, &needed, err, sizeof err),
                   PSOC_ERR_SIZE);
  ck_assert_uint_eq(needed, e.load_size);
  ck_assert_int_eq(psoc_archive_load(a, idx, &lo, NULL, 0, &desc, &needed, err, sizeof err), PSOC_ERR_SIZE);
  ck_assert_int_eq(psoc_archive_load(a, idx, &lo, scratch + 4, sizeof scratch - 4, &desc, &needed, err,
                                     sizeof err), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_archive_load(a, idx, &lo, scratch, e.load_size, &desc, &needed, err, sizeof err),
                   PSOC_OK);
  /* the root signature comes from the callback; the shader from the archive */
  {
    psoc_parsed parsed;
    void *rs;
    D3D12_SHADER_BYTECODE vs;
    ck_assert_int_eq(psoc_parse(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, &parsed, NULL), PSOC_OK);
    memcpy(&rs, parsed.views[PSOC_SO_ROOT_SIGNATURE].payload, sizeof rs);
    ck_assert_ptr_eq(rs, resolve_rs(NULL, "forward"));
    memcpy(&vs, parsed.views[PSOC_SO_VS].payload, sizeof vs);
    ck_assert(inside(vs.pShaderBytecode, sm.data, sm.size));
    /* the input layout: neither in scratch nor in the (read-only) archive,
    ** its semantic names in the archive; a second load points at the same
    ** relocated copy */
    {
      D3D12_INPUT_LAYOUT_DESC il, il2;
      UINT k;
      memcpy(&il, parsed.views[PSOC_SO_INPUT_LAYOUT].payload, sizeof il);
      ck_assert_uint_gt(il.NumElements, 0);
      ck_assert(!inside(il.pInputElementDescs, scratch, sizeof scratch));
      ck_assert(!inside(il.pInputElementDescs, sm.data, sm.size));
      for (k = 0; k < il.NumElements; k++) {
        ck_assert(inside(il.pInputElementDescs[k].SemanticName, sm.data, sm.size));
        ck_assert_uint_gt(strlen(il.pInputElementDescs[k].SemanticName), 0);
      }
      ck_assert_int_eq(psoc_archive_load(a, idx, &lo, scratch + 2048, 2048, &desc, NULL, err, sizeof err),
                       PSOC_OK);
      ck_assert_int_eq(psoc_parse(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, &parsed, NULL), PSOC_OK);
      memcpy(&il2, parsed.views[PSOC_SO_INPUT_LAYOUT].payload, sizeof il2);
      ck_assert_ptr_eq(il2.pInputElementDescs, il.pInputElementDescs);
    }
  }
  /* a callback that cannot resolve fails the load and names the signature */
  lo.resolve_root_signature = resolve_none;
  ck_assert_int_eq(psoc_archive_load(a, idx, &lo, scratch, sizeof scratch, &desc, NULL, err, sizeof err),
                   PSOC_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(err, "forward"));
  /* no callback: an error, unless NULL root signatures are asked for */
  ck_assert_int_eq(psoc_archive_load(a, idx, NULL, scratch, sizeof scratch, &desc, NULL, err, sizeof err),
                   PSOC_ERR_INVALID);
  memset(&lo, 0, sizeof lo);
  lo.flags = PSOC_ARCHIVE_LOAD_NULL_ROOT_SIGNATURE;
  ck_assert_int_eq(psoc_archive_load(a, idx, &lo, scratch, sizeof scratch, &desc, NULL, err, sizeof err),
                   PSOC_OK);
  /* compute has no root signature: no callback needed */
  ck_assert_int_eq(psoc_archive_load(a, psoc_archive_find(a, "c_compute"), NULL, scratch, sizeof scratch,
                                     &desc, NULL, err, sizeof err), PSOC_OK);
  ck_assert_int_eq(psoc_archive_load(a, 99, NULL, scratch, sizeof scratch, &desc, NULL, err, sizeof err),
                   PSOC_ERR_ARG);
  psoc_archive_close(a);
  small_free(&sm);
}
END_TEST

START_TEST(test_writer_rejects) {
  psoc_archive_writer *w;
  char err[256];
  psoc_stream *s = graphics_stream(D3D12_CULL_MODE_BACK, 1);
  unsigned char bad[8] = { 99, 0, 0, 0, 0, 0, 0, 0 };
  unsigned char withrs[16];
  void *obj = fake_rs[0];
  uint32_t t = PSOC_SO_ROOT_SIGNATURE;
  const void *d;
  size_t size;
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_add(w, NULL, NULL, psoc_stream_data(s), psoc_stream_size(s), err,
                                           sizeof err), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_archive_writer_add(w, "bad", NULL, bad, sizeof bad, err, sizeof err), PSOC_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(err, "bad"));
  /* a root-signature object without a name cannot be cooked */
  memset(withrs, 0, sizeof withrs);
  memcpy(withrs, &t, 4);
  memcpy(withrs + 8, &obj, sizeof obj);
  ck_assert_int_eq(psoc_archive_writer_add(w, "rs", NULL, withrs, sizeof withrs, err, sizeof err),
                   PSOC_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(err, "ROOT_SIGNATURE"));
  /* failed adds leave the writer empty: an archive of no pipelines */
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d, &size), PSOC_OK);
  {
    unsigned char *copy = aligned_copy(d, size);
    psoc_archive *a;
    ck_assert_int_eq(psoc_archive_open_memory(copy, size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err, sizeof err),
                     PSOC_OK);
    ck_assert_uint_eq(psoc_archive_count(a), 0);
    ck_assert_uint_eq(psoc_archive_component_count(a), 0);
    psoc_archive_close(a);
    free(copy);
  }
  psoc_archive_writer_free(w);
  psoc_stream_free(s);
}
END_TEST

/* The whole file at 'path' (malloc'd) and its size. */
static unsigned char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  unsigned char *b;
  long n;
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
  n = ftell(f);
  ck_assert_int_ge(n, 0);
  rewind(f);
  b = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(b);
  ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *size = (size_t)n;
  return b;
}

/* write_file streams the file (head, then each record, then each
** component) when nothing was finished: the bytes are finish's, byte for
** byte, and so are those of a write after a finish. */
START_TEST(test_write_file_streams_finish_bytes) {
  small sm;
  psoc_archive_writer *w1, *w2;
  char dir[256], p1[320], p2[320], err[512];
  const void *d;
  size_t i, size, s1, s2;
  unsigned char *b1, *b2;
  small_make(&sm);
  make_tmpdir(dir, sizeof dir);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w1), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w2), PSOC_OK);
  for (i = 0; i < NSMALL; i++) {
    size_t k = NSMALL - 1 - i; /* the other writer in the other order */
    ck_assert_int_eq(psoc_archive_writer_add(w1, small_names[i], small_rs[i], psoc_stream_data(sm.s[i]),
                                             psoc_stream_size(sm.s[i]), err, sizeof err), PSOC_OK);
    ck_assert_int_eq(psoc_archive_writer_add(w2, small_names[k], small_rs[k], psoc_stream_data(sm.s[k]),
                                             psoc_stream_size(sm.s[k]), err, sizeof err), PSOC_OK);
  }
  snprintf(p1, sizeof p1, "%s/streamed.psoa", dir);
  snprintf(p2, sizeof p2, "%s/finished.psoa", dir);
  ck_assert_msg(psoc_archive_write_file(w1, p1, err, sizeof err) == PSOC_OK, "%s", err);
  ck_assert_int_eq(psoc_archive_writer_finish(w2, &d, &size), PSOC_OK);
  ck_assert_msg(psoc_archive_write_file(w2, p2, err, sizeof err) == PSOC_OK, "%s", err);
  b1 = slurp(p1, &s1);
  b2 = slurp(p2, &s2);
  ck_assert_uint_eq(s1, size);
  ck_assert_uint_eq(s2, size);
  ck_assert_int_eq(memcmp(b1, d, size), 0);
  ck_assert_int_eq(memcmp(b2, d, size), 0);
  free(b1);
  free(b2);
  /* and a finish after a streamed write gives those bytes too */
  ck_assert_int_eq(psoc_archive_writer_finish(w1, &d, &s1), PSOC_OK);
  ck_assert_uint_eq(s1, size);
  b2 = slurp(p2, &s2);
  ck_assert_int_eq(memcmp(b2, d, size), 0);
  free(b2);
  {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
  }
  psoc_archive_writer_free(w1);
  psoc_archive_writer_free(w2);
  small_free(&sm);
}
END_TEST

/* An allocator that counts blocks of 2 MB and more and, when 'refuse' is
** set, refuses them. */
typedef struct big_alloc {
  int refuse;
  size_t big;
} big_alloc;

static void *big_alloc_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
  big_alloc *b = ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (nsize >= ((size_t)2 << 20)) {
    b->big++;
    if (b->refuse) return NULL;
  }
  return realloc(ptr, nsize);
}

/* write_file streams through a 2 MB stdio buffer of its own (so the file
** is written in 2 MB pieces, which the page cache keeps in large folios:
** docs/archive.md, "Loading cost"), from the writer's allocator; without
** that memory it writes through stdio's buffer, the same bytes. */
START_TEST(test_write_file_buffer) {
  small sm;
  int refuse;
  char dir[256], path[320], err[512];
  make_tmpdir(dir, sizeof dir);
  small_make(&sm);
  for (refuse = 0; refuse < 2; refuse++) {
    big_alloc b;
    psoc_allocator al;
    psoc_archive_writer *w;
    const void *d;
    size_t i, size, got;
    unsigned char *bytes;
    b.refuse = refuse;
    b.big = 0;
    al.fn = big_alloc_fn;
    al.ud = &b;
    ck_assert_int_eq(psoc_archive_writer_create(&al, &w), PSOC_OK);
    for (i = 0; i < NSMALL; i++)
      ck_assert_int_eq(psoc_archive_writer_add(w, small_names[i], small_rs[i], psoc_stream_data(sm.s[i]),
                                               psoc_stream_size(sm.s[i]), err, sizeof err), PSOC_OK);
    snprintf(path, sizeof path, "%s/b%d.psoa", dir, refuse);
    ck_assert_uint_eq(b.big, 0u);
    ck_assert_msg(psoc_archive_write_file(w, path, err, sizeof err) == PSOC_OK, "%s", err);
    ck_assert_uint_eq(b.big, 1u); /* the buffer, asked for (and refused the second time) */
    ck_assert_int_eq(psoc_archive_writer_finish(w, &d, &size), PSOC_OK);
    bytes = slurp(path, &got);
    ck_assert_uint_eq(got, size);
    ck_assert_int_eq(memcmp(bytes, d, size), 0);
    free(bytes);
    psoc_archive_writer_free(w);
  }
  {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
  }
  small_free(&sm);
}
END_TEST

/* psoc_plat_page_faults, which the archive bench reports beside its
** times: touching fresh memory, page by page, counts. */
START_TEST(test_page_faults_count) {
  size_t n = (size_t)16 << 20, i;
  unsigned char *p = malloc(n);
  uint64_t f0, f1;
  ck_assert_ptr_nonnull(p);
  f0 = psoc_plat_page_faults();
  for (i = 0; i < n; i += 4096) p[i] = (unsigned char)i;
  f1 = psoc_plat_page_faults();
  ck_assert_uint_gt(f0, 0u); /* a process has faulted by the time it gets here */
  ck_assert_uint_gt(f1, f0);
  free(p);
}
END_TEST

START_TEST(test_write_file_atomic) {
  small sm;
  psoc_archive_writer *w;
  char dir[256], path[320], err[512];
  size_t i;
  FILE *f;
  small_make(&sm);
  make_tmpdir(dir, sizeof dir);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  for (i = 0; i < NSMALL; i++)
    ck_assert_int_eq(psoc_archive_writer_add(w, small_names[i], small_rs[i], psoc_stream_data(sm.s[i]),
                                             psoc_stream_size(sm.s[i]), err, sizeof err), PSOC_OK);
  /* into a folder that does not exist: an I/O error naming the path */
  snprintf(path, sizeof path, "%s/none/x.psoa", dir);
  ck_assert_int_eq(psoc_archive_write_file(w, path, err, sizeof err), PSOC_ERR_IO);
  ck_assert_ptr_nonnull(strstr(err, "none/x.psoa"));
  /* over a folder: the rename fails, the folder stays, no temporary is left */
  snprintf(path, sizeof path, "%s/busy", dir);
  ck_assert_int_eq(mkdir(path, 0700), 0);
  snprintf(path, sizeof path, "%s/busy/keep", dir);
  f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  snprintf(path, sizeof path, "%s/busy", dir);
  ck_assert_int_eq(psoc_archive_write_file(w, path, err, sizeof err), PSOC_ERR_IO);
  {
    struct stat st;
    char cmd[400];
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    /* only 'busy' is in the folder: no temporary left behind */
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = busy", dir);
    ck_assert_int_eq(system(cmd), 0);
  }
  /* a real write replaces an old file in one step */
  snprintf(path, sizeof path, "%s/a.psoa", dir);
  f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("old", f);
  fclose(f);
  ck_assert_int_eq(psoc_archive_write_file(w, path, err, sizeof err), PSOC_OK);
  {
    psoc_archive *a;
    ck_assert_msg(psoc_archive_open_file(path, PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED, NULL, &a,
                                         err, sizeof err) == PSOC_OK, "%s", err);
    ck_assert_uint_eq(loadable(a, &sm), 7u);
    psoc_archive_close(a);
  }
  {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
  }
  psoc_archive_writer_free(w);
  small_free(&sm);
}
END_TEST

/* Every component kind: input layout, SO entries and strides, view-instance
** locations, cached blob, serialized root signature (and NULL-vs-empty
** arrays, which hash differently) come back equal in content and hash. */
START_TEST(test_every_component_kind) {
  static const unsigned char gs_code[24] = "DXBC geometry shader...";
  static const unsigned char blob[10] = "cachedPSO";
  static const unsigned char rsblob[16] = "DXBC rootsig...";
  static _Alignas(16) unsigned char scratch[4096];
  D3D12_SHADER_BYTECODE vs = { vs_code, sizeof vs_code }, gs = { gs_code, sizeof gs_code },
                        cs = { cs_code, sizeof cs_code };
  D3D12_INPUT_ELEMENT_DESC el[3] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "COLOR", 1, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "COLOR", 2, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 16, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
  };
  D3D12_INPUT_LAYOUT_DESC il = { el, 3 }, il_empty = { el, 0 };
  D3D12_SO_DECLARATION_ENTRY so_el[2] = { { 0, "POSITION", 0, 0, 4, 0 }, { 0, NULL, 0, 0, 4, 0 } };
  UINT strides[2] = { 32, 16 };
  D3D12_STREAM_OUTPUT_DESC so = { so_el, 2, strides, 2, 0 };
  D3D12_VIEW_INSTANCE_LOCATION loc[2] = { { 0, 0 }, { 1, 0 } };
  D3D12_VIEW_INSTANCING_DESC vi = { 2, loc, D3D12_VIEW_INSTANCING_FLAG_NONE };
  D3D12_CACHED_PIPELINE_STATE cached = { blob, sizeof blob };
  psoc_serialized_root_signature_desc srs = { rsblob, sizeof rsblob };
  psoc_stream *s[3];
  psoc_builder *b;
  psoc_archive_writer *w;
  psoc_archive *a;
  const void *d;
  size_t size, i;
  unsigned char *copy;
  char err[256];
  unsigned kinds = 0;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_GS, &gs, sizeof gs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_STREAM_OUTPUT, &so, sizeof so), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VIEW_INSTANCING, &vi, sizeof vi), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s[0]), PSOC_OK);
  psoc_builder_reset(b);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_CS, &cs, sizeof cs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_CACHED_PSO, &cached, sizeof cached), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, &srs, sizeof srs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s[1]), PSOC_OK);
  psoc_builder_reset(b);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il_empty, sizeof il_empty), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s[2]), PSOC_OK);
  psoc_builder_free(b);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  for (i = 0; i < 3; i++) {
    char name[8];
    snprintf(name, sizeof name, "p%zu", i);
    ck_assert_msg(psoc_archive_writer_add(w, name, NULL, psoc_stream_data(s[i]), psoc_stream_size(s[i]), err,
                                          sizeof err) == PSOC_OK, "%s", err);
  }
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d, &size), PSOC_OK);
  copy = aligned_copy(d, size);
  ck_assert_int_eq(psoc_archive_open_memory(copy, size, PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED,
                                            NULL, &a, err, sizeof err), PSOC_OK);
  for (i = 0; i < psoc_archive_component_count(a); i++) {
    psoc_archive_component c;
    ck_assert_int_eq(psoc_archive_component_get(a, i, &c), PSOC_OK);
    kinds |= 1u << c.kind;
  }
  ck_assert_uint_eq(kinds, 0xfeu); /* all seven kinds */
  for (i = 0; i < 3; i++) {
    char name[8];
    D3D12_PIPELINE_STATE_STREAM_DESC desc;
    psoc_hash128 h0, h1;
    char *d0, *d1;
    snprintf(name, sizeof name, "p%zu", i);
    ck_assert_int_eq(psoc_archive_load(a, psoc_archive_find(a, name), NULL, scratch, sizeof scratch, &desc, NULL,
                                       err, sizeof err), PSOC_OK);
    ck_assert_int_eq(psoc_hash(psoc_stream_data(s[i]), psoc_stream_size(s[i]), PSOC_FOLLOW_POINTERS, NULL, &h0),
                     PSOC_OK);
    ck_assert_int_eq(psoc_hash(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, PSOC_FOLLOW_POINTERS, NULL,
                               &h1), PSOC_OK);
    ck_assert(heq(h0, h1));
    d0 = dump_of(psoc_stream_data(s[i]), psoc_stream_size(s[i]));
    d1 = dump_of(desc.pPipelineStateSubobjectStream, desc.SizeInBytes);
    ck_assert_str_eq(d1, d0);
    free(d0);
    free(d1);
  }
  psoc_archive_close(a);
  free(copy);
  psoc_archive_writer_free(w);
  for (i = 0; i < 3; i++) psoc_stream_free(s[i]);
}
END_TEST

/* ---- derived pipelines ---------------------------------------------------------- */

START_TEST(test_derive_matches_cooked_variant) {
  psol_options o = material_options();
  psol_result r;
  psoc_archive_writer *w;
  psoc_archive *a;
  const void *d;
  size_t size, base, variant;
  unsigned char *copy;
  static _Alignas(16) unsigned char scratch[1 << 14];
  static _Alignas(16) unsigned char dscratch[1 << 12];
  psoc_archive_load_options lo;
  D3D12_PIPELINE_STATE_STREAM_DESC desc, derived;
  psoc_archive_entry eb, ev;
  psoc_parsed parsed;
  psoc_archive_override ov;
  const psoc_view *rv;
  unsigned char payload[64];
  psoc_hash128 h;
  char err[256];
  size_t needed;
  ck_assert_int_eq(psol_evaluate_file(&o, "scripts/materials/lit.lua", &r), PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_create(NULL, &w), PSOC_OK);
  for (size = 0; size < r.count; size++)
    ck_assert_int_eq(psoc_archive_writer_add(w, r.pipelines[size].name, r.pipelines[size].root_signature,
                                             psoc_stream_data(r.pipelines[size].stream),
                                             psoc_stream_size(r.pipelines[size].stream), err, sizeof err),
                     PSOC_OK);
  ck_assert_int_eq(psoc_archive_writer_finish(w, &d, &size), PSOC_OK);
  copy = aligned_copy(d, size);
  ck_assert_int_eq(psoc_archive_open_memory(copy, size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &a, err, sizeof err),
                   PSOC_OK);
  base = psoc_archive_find(a, "lit_opaque");
  variant = psoc_archive_find(a, "lit_two_sided");
  ck_assert_uint_ne(base, PSOC_ARCHIVE_NOT_FOUND);
  ck_assert_uint_ne(variant, PSOC_ARCHIVE_NOT_FOUND);
  ck_assert_int_eq(psoc_archive_entry_get(a, base, &eb), PSOC_OK);
  ck_assert_int_eq(psoc_archive_entry_get(a, variant, &ev), PSOC_OK);
  memset(&lo, 0, sizeof lo);
  lo.resolve_root_signature = resolve_rs;
  ck_assert_int_eq(psoc_archive_load(a, base, &lo, scratch, sizeof scratch, &desc, NULL, err, sizeof err),
                   PSOC_OK);
  /* the variant: the base's rasterizer with cull none */
  ck_assert_int_eq(psoc_parse(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, &parsed, NULL), PSOC_OK);
  rv = psoc_parsed_class(&parsed, PSOC_SO_RASTERIZER);
  ck_assert_ptr_nonnull(rv);
  ck_assert_uint_le(rv->info->payload->size, sizeof payload);
  memcpy(payload, rv->payload, rv->info->payload->size);
  {
    D3D12_CULL_MODE none = D3D12_CULL_MODE_NONE;
    /* CullMode is the second field of every rasterizer desc */
    memcpy(payload + 4, &none, sizeof none);
  }
  ov.type = rv->type;
  ov.payload = payload;
  ov.payload_size = rv->info->payload->size;
  ck_assert_int_eq(psoc_archive_derive(&desc, &ov, 1, dscratch, 8, &derived, &needed), PSOC_ERR_SIZE);
  ck_assert_uint_eq(needed, desc.SizeInBytes);
  ck_assert_int_eq(psoc_archive_derive(&desc, &ov, 1, dscratch, sizeof dscratch, &derived, &needed), PSOC_OK);
  ck_assert_int_eq(psoc_hash(derived.pPipelineStateSubobjectStream, derived.SizeInBytes, PSOC_FOLLOW_POINTERS,
                             eb.root_signature, &h), PSOC_OK);
  ck_assert(heq(h, ev.hash));  /* equal to cooking the variant */
  ck_assert(!heq(h, eb.hash));
  /* it shares the base's components: the VS points into the archive */
  {
    psoc_parsed dp;
    D3D12_SHADER_BYTECODE vs1, vs2;
    ck_assert_int_eq(psoc_parse(derived.pPipelineStateSubobjectStream, derived.SizeInBytes, &dp, NULL), PSOC_OK);
    memcpy(&vs1, dp.views[PSOC_SO_VS].payload, sizeof vs1);
    memcpy(&vs2, parsed.views[PSOC_SO_VS].payload, sizeof vs2);
    ck_assert_ptr_eq(vs1.pShaderBytecode, vs2.pShaderBytecode);
    ck_assert(inside(vs1.pShaderBytecode, copy, size));
  }
  /* an added subobject (sample mask) and argument errors */
  {
    psoc_archive_override two[2];
    UINT mask = 0xfu;
    two[0] = ov;
    two[1].type = PSOC_SO_SAMPLE_MASK;
    two[1].payload = &mask;
    two[1].payload_size = sizeof mask;
    ck_assert_int_eq(psoc_archive_derive(&desc, two, 2, dscratch, sizeof dscratch, &derived, NULL), PSOC_OK);
    ck_assert_uint_eq(derived.SizeInBytes, desc.SizeInBytes + 8);
    two[1].type = PSOC_SO_RASTERIZER2 == ov.type ? PSOC_SO_RASTERIZER : PSOC_SO_RASTERIZER2;
    two[1].payload = payload;
    two[1].payload_size = psoc_subobject_info_get(two[1].type)->payload->size;
    ck_assert_int_eq(psoc_archive_derive(&desc, two, 2, dscratch, sizeof dscratch, &derived, NULL),
                     PSOC_ERR_DUPLICATE);
    two[1].type = 23;
    ck_assert_int_eq(psoc_archive_derive(&desc, two, 2, dscratch, sizeof dscratch, &derived, NULL), PSOC_ERR_TYPE);
    two[1].type = PSOC_SO_SAMPLE_MASK;
    two[1].payload_size = 2;
    ck_assert_int_eq(psoc_archive_derive(&desc, two, 2, dscratch, sizeof dscratch, &derived, NULL), PSOC_ERR_SIZE);
    ck_assert_int_eq(psoc_archive_derive(&desc, &ov, 1, dscratch + 4, 64, &derived, NULL), PSOC_ERR_ARG);
  }
  psoc_archive_close(a);
  free(copy);
  psoc_archive_writer_free(w);
  psol_result_free(&r);
}
END_TEST

/* ---- the hash's definition (docs/archive.md) -------------------------------------- */

static size_t put_word(unsigned char *p, uint64_t w) {
  unsigned i;
  for (i = 0; i < 8; i++) p[i] = (unsigned char)(w >> (8 * i));
  return 8;
}

/* VS {code, n} + SAMPLE_MASK: the word sequence spelled out by hand. */
static void hash_spec_case(size_t n) {
  static unsigned char code[5000], seq[6000];
  D3D12_SHADER_BYTECODE vs;
  UINT mask = 0x12345678u;
  psoc_builder *b;
  psoc_stream *s;
  psoc_hash128 h, want;
  size_t len = 0, i;
  for (i = 0; i < n; i++) code[i] = (unsigned char)(i * 7 + 3);
  vs.pShaderBytecode = code;
  vs.BytecodeLength = n;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_SAMPLE_MASK, &mask, sizeof mask), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  psoc_builder_free(b);
  /* type 1 (VS): pShaderBytecode followed (2), its length, the bytes
  ** zero-padded to a word; BytecodeLength by value; type 9: the mask */
  len += put_word(seq + len, PSOC_SO_VS);
  len += put_word(seq + len, 2);
  len += put_word(seq + len, n);
  memset(seq + len, 0, (n + 7) / 8 * 8);
  memcpy(seq + len, code, n);
  len += (n + 7) / 8 * 8;
  len += put_word(seq + len, n);
  len += put_word(seq + len, PSOC_SO_SAMPLE_MASK);
  len += put_word(seq + len, mask);
  psoc_xxh3_128(seq, len, &want.lo, &want.hi);
  ck_assert_int_eq(psoc_hash(psoc_stream_data(s), psoc_stream_size(s), PSOC_FOLLOW_POINTERS, NULL, &h), PSOC_OK);
  ck_assert_msg(heq(h, want), "hash of a %zu-byte shader differs from the documented sequence", n);
  psoc_stream_free(s);
}

/* psoc_xxh3 (one-shot; AVX2 past 240 bytes where the CPU has it) agrees
** with the streaming XXH3-64 (the baseline SSE2 path) for every length up
** to 4 KiB and some long ones, at every alignment mod 8. */
START_TEST(test_xxh3_paths_agree) {
  static unsigned char buf[(1 << 17) + 16];
  static const size_t longs[] = { 8191, 8192, 65537, 1 << 17 };
  psoc_xxh3_state st;
  size_t n, i;
  uint32_t x = 12345u;
  for (i = 0; i < sizeof buf; i++) {
    x = x * 1103515245u + 12345u;
    buf[i] = (unsigned char)(x >> 16);
  }
  memset(&st, 0, sizeof st);
  for (n = 0; n < 4096 + sizeof longs / sizeof longs[0]; n++) {
    size_t len = n < 4096 ? n : longs[n - 4096];
    const unsigned char *p = buf + n % 8;
    psoc_xxh3_reset(&st);
    psoc_xxh3_update(&st, p, len / 3);
    psoc_xxh3_update(&st, p + len / 3, len - len / 3);
    ck_assert_msg(psoc_xxh3(p, len) == psoc_xxh3_digest(&st), "XXH3-64 of %zu bytes: one-shot and streaming differ",
                  len);
  }
}
END_TEST

START_TEST(test_hash_definition) {
  /* short (one buffer), around the 1 KiB buffer, and long (streamed) */
  static const size_t sizes[] = { 0, 1, 13, 900, 990, 1000, 1024, 1500, 4999 };
  size_t i;
  ck_assert_uint_eq(PSOC_HASH_VERSION, 2);
  for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) hash_spec_case(sizes[i]);
}
END_TEST

Suite *suite_archive(void) {
  Suite *s = suite_create("archive");
  TCase *t = tcase_create("archive");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, test_roundtrip_materials);
  tcase_add_test(t, test_roundtrip_file);
  tcase_add_test(t, test_merge_units);
  tcase_add_test(t, test_determinism);
  tcase_add_test(t, test_small_roundtrip_and_sharing);
  tcase_add_test(t, test_every_component_kind);
  tcase_add_test(t, test_every_flip_detected);
  tcase_add_test(t, test_every_truncation_detected);
  tcase_add_test(t, test_component_flip_loses_its_pipelines);
  tcase_add_test(t, test_same_shape_record_damage);
  tcase_add_test(t, test_same_shape_reference_damage);
  tcase_add_test(t, test_name_checks);
  tcase_add_test(t, test_many_shapes);
  tcase_add_test(t, test_version_and_pointer_size_mismatch);
  tcase_add_test(t, test_load_options_and_scratch);
  tcase_add_test(t, test_writer_rejects);
  tcase_add_test(t, test_write_file_atomic);
  tcase_add_test(t, test_write_file_streams_finish_bytes);
  tcase_add_test(t, test_write_file_buffer);
  tcase_add_test(t, test_page_faults_count);
  tcase_add_test(t, test_derive_matches_cooked_variant);
  tcase_add_test(t, test_hash_definition);
  tcase_add_test(t, test_xxh3_paths_agree);
  suite_add_tcase(s, t);
  return s;
}
