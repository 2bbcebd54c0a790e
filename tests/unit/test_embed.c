/*
** test_embed.c: the embedding API of psol.h (issue 12): the files an
** evaluation read, the read_file hook, every diagnostic as data and
** PSOL_STRICT_ROOT_SIGNATURES.
*/
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h"
#include "psol.h"
#include "suites.h"
#include "test_sandbox.h"
#include "xxh.h"

#define PSOC_PATH_BUF 4096

/* The sandbox suite's scratch tree (test_sandbox.c): ROOT/mat.lua
** requires lib.common and reads cs.cso twice; ROOT/escape -> OUTSIDE. */
static char real_root[PSOC_PATH_BUF];

static void make_tree(void) {
  sandbox_make_tree();
  ck_assert_ptr_nonnull(realpath(root_dir, real_root));
}

static psol_options options(void) { return sandbox_options(); }

/* The bytes of ROOT/rel, hashed (NUL-terminated copy in buf). */
static size_t read_root_file(const char *rel, char *buf, size_t n) {
  char path[600];
  FILE *f;
  size_t got;
  snprintf(path, sizeof path, "%s/%s", root_dir, rel);
  f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "%s", path);
  got = fread(buf, 1, n - 1, f);
  fclose(f);
  buf[got] = '\0';
  return got;
}

/* The file of the result whose path ends in 'suffix' (after the real
** root), or NULL; fails when it is listed twice. */
static const psol_file *find_file(const psol_result *r, const char *rel) {
  char want[PSOC_PATH_BUF + 64];
  const psol_file *found = NULL;
  size_t i;
  snprintf(want, sizeof want, "%s/%s", real_root, rel);
  for (i = 0; i < r->file_count; i++)
    if (strcmp(r->files[i].path, want) == 0) {
      ck_assert_msg(found == NULL, "%s listed twice", want);
      found = &r->files[i];
    }
  return found;
}

/* 'rel' was read once, with the hash and size of its bytes on disk. */
static void assert_file(const psol_result *r, const char *rel) {
  const psol_file *f = find_file(r, rel);
  char bytes[4096];
  size_t n = read_root_file(rel, bytes, sizeof bytes);
  ck_assert_msg(f != NULL, "%s not among the %zu files read", rel, r->file_count);
  ck_assert_uint_eq(f->size, n);
  ck_assert_msg(f->hash == psoc_xxh3(bytes, n), "%s: hash", rel);
}

/* The first diagnostic of 'code', or NULL. */
static const psol_diagnostic *find_diag(const psol_result *r, psoc_code code) {
  size_t i;
  for (i = 0; i < r->diagnostic_count; i++)
    if (r->diagnostics[i].code == code) return &r->diagnostics[i];
  return NULL;
}

static char *sized_strdup(psoc_allocator *al, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = (char *)al->fn(al->ud, NULL, 0, n);
  ck_assert_ptr_nonnull(p);
  memcpy(p, s, n);
  return p;
}

/* psol_result_free frees the files and diagnostics with the sizes they
** were allocated with (a result filled by hand, as the library fills it). */
START_TEST(test_result_free_frees_files_and_diagnostics) {
  sized_alloc a;
  psoc_allocator al;
  psol_result r;
  memset(&a, 0, sizeof a);
  al.fn = sized_fn;
  al.ud = &a;
  memset(&r, 0, sizeof r);
  r.alloc = al;
  r.file_capacity = 3;
  r.files = (psol_file *)al.fn(al.ud, NULL, 0, 3 * sizeof *r.files);
  ck_assert_ptr_nonnull(r.files);
  r.files[0].path = sized_strdup(&al, "/m/a.lua");
  r.files[1].path = sized_strdup(&al, "/m/shaders/vs.cso");
  r.file_count = 2;
  r.diagnostic_capacity = 2;
  r.diagnostics = (psol_diagnostic *)al.fn(al.ud, NULL, 0, 2 * sizeof *r.diagnostics);
  ck_assert_ptr_nonnull(r.diagnostics);
  memset(r.diagnostics, 0, 2 * sizeof *r.diagnostics);
  r.diagnostics[0].file = sized_strdup(&al, "/m/a.lua");
  r.diagnostics[0].pipeline = sized_strdup(&al, "lit");
  r.diagnostics[0].field = sized_strdup(&al, "rasterizer.cull");
  r.diagnostics[0].message = sized_strdup(&al, "bad");
  r.diagnostics[1].message = sized_strdup(&al, "only a message");
  r.diagnostic_count = 2;
  psol_result_free(&r);
  ck_assert(!a.mismatch);
  ck_assert_uint_eq(a.live, 0);
  ck_assert_ptr_null(r.files);
  ck_assert_ptr_null(r.diagnostics);
  ck_assert_uint_eq(r.file_count + r.diagnostic_count, 0);
  psol_result_free(&r); /* twice is harmless */
}
END_TEST

START_TEST(test_code_names) {
  ck_assert_str_eq(psoc_code_name(PSOC_CODE_SCRIPT), "PSOC_SCRIPT");
  ck_assert_str_eq(psoc_code_name(PSOC_CODE_LIMIT), "PSOC_LIMIT");
  ck_assert_str_eq(psoc_code_name(PSOC_CODE_FILE), "PSOC_FILE");
}
END_TEST


/* Every file an evaluation read, once, with its hash and size: the
** script, the module it requires and the shader it reads twice. */
START_TEST(test_files_read) {
  psol_options o = options();
  psol_result r;
  char path[600];
  snprintf(path, sizeof path, "%s/mat.lua", root_dir);
  ck_assert_msg(psol_evaluate_file(&o, path, &r) == PSOC_OK, "%s", r.error);
  ck_assert_uint_eq(r.count, 2);
  ck_assert_uint_eq(r.file_count, 3);
  assert_file(&r, "mat.lua");
  assert_file(&r, "lib/common.lua");
  assert_file(&r, "cs.cso");
  ck_assert_ptr_eq(find_file(&r, "mat.lua"), &r.files[0]); /* in the order read */
  ck_assert_uint_eq(r.diagnostic_count, 0);
  psol_result_free(&r);
}
END_TEST

/* A failed evaluation still says what it read (what to watch for a fix),
** and a missing file is a PSOC_CODE_FILE diagnostic at the script's line. */
START_TEST(test_files_on_failure) {
  static const char src[] =
    "local pso = require 'pso'\n"
    "local common = require 'lib.common'\n"
    "return pso.compute { cs = pso.shader 'missing.cso' }\n";
  psol_options o = options();
  psol_result r;
  const psol_diagnostic *d;
  ck_assert_int_eq(psol_evaluate_string(&o, "@virtual.lua", src, strlen(src), &r),
                   PSOC_ERR_INVALID);
  ck_assert_uint_eq(r.count, 0);
  ck_assert_uint_eq(r.file_count, 1);
  assert_file(&r, "lib/common.lua");
  ck_assert_uint_eq(r.diagnostic_count, 1);
  d = &r.diagnostics[0];
  ck_assert_int_eq(d->severity, PSOC_SEVERITY_ERROR);
  ck_assert_int_eq(d->code, PSOC_CODE_FILE);
  ck_assert_str_eq(d->file, "virtual.lua");
  ck_assert_int_eq(d->line, 3);
  ck_assert_msg(strstr(d->message, "missing.cso") != NULL, "%s", d->message);
  ck_assert_msg(strncmp(d->message, "virtual.lua", 11) != 0, "position left in: %s", d->message);
  ck_assert_ptr_null(d->pipeline);
  ck_assert_msg(strstr(r.error, "virtual.lua:3: ") == r.error, "%s", r.error);
  psol_result_free(&r);
}
END_TEST

/* Script errors, limits and caught file errors get their own codes. */
START_TEST(test_script_error_codes) {
  static const char caught[] =
    "local pso = require 'pso'\n"
    "pcall(pso.shader, 'missing.cso')\n"
    "error('plain')\n";
  static const char spin[] = "local x = 0\nwhile true do x = x + 1 end";
  psol_options o = options();
  psol_result r;
  const psol_diagnostic *d;
  ck_assert_int_eq(psol_evaluate_string(&o, "=syntax", "return {", 8, &r), PSOC_ERR_INVALID);
  ck_assert_uint_eq(r.diagnostic_count, 1);
  d = &r.diagnostics[0];
  ck_assert_int_eq(d->code, PSOC_CODE_SCRIPT);
  ck_assert_str_eq(d->file, "syntax");
  ck_assert_int_eq(d->line, 1);
  psol_result_free(&r);

  ck_assert_int_eq(psol_evaluate_string(&o, "=caught", caught, strlen(caught), &r),
                   PSOC_ERR_INVALID);
  d = find_diag(&r, PSOC_CODE_SCRIPT);
  ck_assert_ptr_nonnull(d);
  ck_assert_int_eq(d->line, 3);
  ck_assert_str_eq(d->message, "plain");
  ck_assert_ptr_null(find_diag(&r, PSOC_CODE_FILE));
  psol_result_free(&r);

  o.instruction_limit = 10000;
  ck_assert_int_eq(psol_evaluate_string(&o, "=spin", spin, strlen(spin), &r), PSOC_ERR_INVALID);
  ck_assert_uint_eq(r.diagnostic_count, 1);
  d = &r.diagnostics[0];
  ck_assert_int_eq(d->code, PSOC_CODE_LIMIT);
  ck_assert_str_eq(d->file, "spin");
  ck_assert_int_eq(d->line, 2);
  ck_assert_msg(strstr(d->message, "instruction budget exceeded") == d->message, "%s", d->message);
  psol_result_free(&r);
}
END_TEST

/* Check diagnostics as data, at the declaration: warnings on success, every
** error of every pipeline on failure (result.error keeps the first). */
START_TEST(test_check_diagnostics) {
  static const char warned[] =
    "local pso = require 'pso'\n"
    "local p = pso.graphics { name = 'warned', vs = pso.shader { bytes = 'vs' },\n"
    "  depth_stencil = { depth = true } }\n"
    "return p\n";
  static const char stereo[] =
    "local pso = require 'pso'\n"
    "local vi = { locations = { { render_target = 0 }, { render_target = 1 } } }\n"
    "local a = pso.graphics { name = 'one', vs = pso.shader 'cs.cso', view_instancing = vi }\n"
    "local b = pso.graphics { name = 'two', vs = pso.shader 'cs.cso', view_instancing = vi }\n"
    "return { a, b }\n";
  psol_options o = options();
  psol_result r;
  const psol_diagnostic *d;
  size_t i, errors = 0;
  ck_assert_msg(psol_evaluate_string(&o, "=warned", warned, strlen(warned), &r) == PSOC_OK, "%s",
                r.error);
  ck_assert_uint_eq(r.count, 1);
  ck_assert_uint_ge(r.diagnostic_count, 1);
  d = &r.diagnostics[0];
  ck_assert_int_eq(d->severity, PSOC_SEVERITY_WARNING);
  ck_assert_str_eq(d->file, "warned");
  ck_assert_int_eq(d->line, 2);
  ck_assert_str_eq(d->pipeline, "warned");
  ck_assert_int_eq(d->code, PSOC_CODE_DEPTH_STENCIL);
  ck_assert_str_eq(d->message_id, "CREATEGRAPHICSPIPELINESTATE_DEPTHSTENCILVIEW_NOT_SET");
  ck_assert_str_eq(d->field, "depth_format");
  ck_assert_msg(strstr(d->message, "DSVFormat is UNKNOWN") != NULL, "%s", d->message);
  ck_assert_str_eq(r.error, "");
  psol_result_free(&r);

  o.profile = psoc_profile_find("desktop_fl12_0"); /* view instancing tier 0 */
  ck_assert_ptr_nonnull(o.profile);
  ck_assert_int_eq(psol_evaluate_string(&o, "=stereo", stereo, strlen(stereo), &r),
                   PSOC_ERR_INVALID);
  ck_assert_uint_eq(r.count, 0);
  for (i = 0; i < r.diagnostic_count; i++) {
    d = &r.diagnostics[i];
    if (d->severity != PSOC_SEVERITY_ERROR) continue;
    ck_assert_int_eq(d->code, PSOC_CODE_UNSUPPORTED);
    ck_assert_str_eq(d->file, "stereo");
    ck_assert_str_eq(d->pipeline, errors == 0 ? "one" : "two");
    ck_assert_int_eq(d->line, errors == 0 ? 3 : 4);
    ck_assert_ptr_nonnull(d->field);
    ck_assert_str_eq(d->field, "view_instancing.locations");
    errors++;
  }
  ck_assert_uint_eq(errors, 2);
  ck_assert_msg(strncmp(r.error, "stereo:3: pipeline 'one': view_instancing.locations: ", 53) == 0,
                "%s", r.error);
  psol_result_free(&r);
}
END_TEST

static void *resolve_forward(void *ud, const char *name) {
  (void)ud;
  return strcmp(name, "forward") == 0 ? (void *)(uintptr_t)0x1234 : NULL;
}

/* PSOL_STRICT_ROOT_SIGNATURES: a name the resolver does not know is an
** error (without the flag it stays a NULL root signature). */
START_TEST(test_strict_root_signatures) {
  static const char src[] =
    "local pso = require 'pso'\n"
    "local good = pso.compute { name = 'good', root_signature = 'forward', cs = pso.shader 'cs.cso' }\n"
    "local bad = pso.compute { name = 'bad', root_signature = 'forwrad', cs = pso.shader 'cs.cso' }\n"
    "return { good, bad }\n";
  psol_options o = options();
  psol_result r;
  const psol_diagnostic *d;
  o.resolve_root_signature = resolve_forward;
  ck_assert_msg(psol_evaluate_string(&o, "=rs", src, strlen(src), &r) == PSOC_OK, "%s", r.error);
  ck_assert_uint_eq(r.count, 2);
  ck_assert_ptr_null(find_diag(&r, PSOC_CODE_ROOT_SIGNATURE));
  psol_result_free(&r);
  o.flags = PSOL_STRICT_ROOT_SIGNATURES;
  ck_assert_int_eq(psol_evaluate_string(&o, "=rs", src, strlen(src), &r), PSOC_ERR_INVALID);
  ck_assert_uint_eq(r.count, 0);
  d = find_diag(&r, PSOC_CODE_ROOT_SIGNATURE);
  ck_assert_ptr_nonnull(d);
  ck_assert_int_eq(d->severity, PSOC_SEVERITY_ERROR);
  ck_assert_str_eq(d->pipeline, "bad");
  ck_assert_int_eq(d->line, 3);
  ck_assert_str_eq(d->field, "root_signature");
  ck_assert_msg(strstr(d->message, "'forwrad'") != NULL, "%s", d->message);
  ck_assert_msg(strstr(r.error, "rs:3: pipeline 'bad': root_signature: ") == r.error, "%s",
                r.error);
  psol_result_free(&r);
  /* strict without a resolver: every name is unresolved */
  o.resolve_root_signature = NULL;
  ck_assert_int_eq(psol_evaluate_string(&o, "=rs", src, strlen(src), &r), PSOC_ERR_INVALID);
  ck_assert_str_eq(find_diag(&r, PSOC_CODE_ROOT_SIGNATURE)->pipeline, "good");
  psol_result_free(&r);
}
END_TEST

/* A read_file hook over a virtual tree: answers only paths under /vfs/m
** (a root that does not exist on disk) and logs every question. */
typedef struct vfs {
  char asked[32][PSOC_PATH_BUF];
  int nasked, supplied, released;
  const char *prefix;
} vfs;

static void vfs_release(void *ud, const void *data) {
  vfs *v = (vfs *)ud;
  free((void *)data);
  v->released++;
}

static int vfs_read(void *ud, const char *path, psol_bytes *out) {
  static const struct { const char *name, *text; } files[] = {
    { "mat.lua", "local pso = require 'pso'\nlocal c = require 'lib.common'\n"
                 "return pso.compute { name = 'v', cs = pso.shader(c.cs) }\n" },
    { "lib/common.lua", "return { cs = 'shaders/cs.cso' }\n" },
    { "shaders/cs.cso", "virtual bytecode" },
    { "big.cso", NULL },
  };
  vfs *v = (vfs *)ud;
  size_t i, n = strlen(v->prefix);
  if (v->nasked < 32) snprintf(v->asked[v->nasked], PSOC_PATH_BUF, "%s", path);
  v->nasked++;
  if (strncmp(path, v->prefix, n) != 0 || path[n] != '/') return 1;
  for (i = 0; i < sizeof files / sizeof files[0]; i++) {
    if (strcmp(path + n + 1, files[i].name) != 0) continue;
    if (files[i].text) {
      out->size = strlen(files[i].text);
      out->data = malloc(out->size);
      memcpy((void *)out->data, files[i].text, out->size);
    } else {
      out->size = 1 << 20; /* more than the memory limit below */
      out->data = calloc(1, out->size);
    }
    out->release = vfs_release;
    v->supplied++;
    return 0;
  }
  return 1;
}

START_TEST(test_read_file_hook) {
  static const char *const vroots[] = { "/psol-vfs-test/m" };
  static const char escapes[] =
    "local pso = require 'pso'\n"
    "for _, f in ipairs { '../x.cso', '/etc/passwd', '/psol-vfs-test/other/a.cso',\n"
    "                     'shaders/../../n.cso', 'nope.cso' } do\n"
    "  assert(not pcall(pso.shader, f), f)\n"
    "end\n"
    "return pso.compute { cs = pso.shader 'big.cso' }\n";
  psol_options o;
  psol_result r;
  vfs v;
  int i;
  memset(&o, 0, sizeof o);
  memset(&v, 0, sizeof v);
  v.prefix = vroots[0];
  o.roots = vroots;
  o.root_count = 1;
  o.read_file = vfs_read;
  o.read_file_ud = &v;
  ck_assert_msg(psol_evaluate_file(&o, "/psol-vfs-test/m/mat.lua", &r) == PSOC_OK, "%s", r.error);
  ck_assert_uint_eq(r.count, 1);
  ck_assert_uint_eq(r.file_count, 3);
  ck_assert_str_eq(r.files[0].path, "/psol-vfs-test/m/mat.lua");
  ck_assert_str_eq(r.files[1].path, "/psol-vfs-test/m/lib/common.lua");
  ck_assert_str_eq(r.files[2].path, "/psol-vfs-test/m/shaders/cs.cso");
  ck_assert(r.files[2].hash == psoc_xxh3("virtual bytecode", 16));
  ck_assert_int_eq(v.supplied, 3);
  ck_assert_int_eq(v.released, 3);
  psol_result_free(&r);

  /* escapes never reach the hook; a file over the memory limit is refused */
  v.nasked = v.supplied = v.released = 0;
  o.memory_limit = 512 << 10;
  ck_assert_int_eq(psol_evaluate_string(&o, "=esc", escapes, strlen(escapes), &r),
                   PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "larger than the memory limit") != NULL, "%s", r.error);
  ck_assert_int_eq(find_diag(&r, PSOC_CODE_FILE)->line, 6);
  ck_assert_int_le(v.nasked, 32);
  for (i = 0; i < v.nasked; i++)
    ck_assert_msg(strncmp(v.asked[i], "/psol-vfs-test/m/", 17) == 0, "asked for %s", v.asked[i]);
  ck_assert_int_eq(v.nasked, 2); /* nope.cso and big.cso */
  ck_assert_int_eq(v.released, v.supplied);
  ck_assert_uint_eq(r.file_count, 0);
  psol_result_free(&r);

  /* a script outside the roots is not asked for */
  v.nasked = 0;
  ck_assert_int_eq(psol_evaluate_file(&o, "/psol-vfs-test/x.lua", &r), PSOC_ERR_INVALID);
  ck_assert_int_eq(v.nasked, 0);
  ck_assert_int_eq(find_diag(&r, PSOC_CODE_FILE)->code, PSOC_CODE_FILE);
  psol_result_free(&r);
}
END_TEST

/* The hook over a real root: symlinks out of the root are still refused
** before the hook is asked. */
START_TEST(test_read_file_hook_real_root) {
  static const char src[] =
    "local pso = require 'pso'\n"
    "assert(not pcall(pso.shader, 'escape/secret.cso'))\n"
    "return pso.compute { cs = pso.shader 'cs.cso' }\n";
  psol_options o = options();
  psol_result r;
  vfs v;
  char prefix[PSOC_PATH_BUF];
  memset(&v, 0, sizeof v);
  snprintf(prefix, sizeof prefix, "%s", real_root);
  v.prefix = prefix;
  o.read_file = vfs_read;
  o.read_file_ud = &v;
  ck_assert_int_eq(psol_evaluate_string(&o, "=real", src, strlen(src), &r), PSOC_ERR_INVALID);
  /* cs.cso exists on disk but the hook does not have it: the hook decides */
  ck_assert_msg(strstr(r.error, "cs.cso") != NULL, "%s", r.error);
  ck_assert_int_eq(v.nasked, 1);
  ck_assert_msg(strncmp(v.asked[0], real_root, strlen(real_root)) == 0, "%s", v.asked[0]);
  psol_result_free(&r);
}
END_TEST

/* Files and diagnostics come back with the result's allocator, with the
** sizes they were allocated with, whichever allocation fails. */
START_TEST(test_result_allocations) {
  static const char src[] =
    "local pso = require 'pso'\n"
    "local common = require 'lib.common'\n"
    "local w = pso.graphics { name = 'w', vs = pso.shader(common.cs), depth_stencil = { depth = true } }\n"
    "local x = pso.graphics { name = 'x', vs = pso.shader 'cs.cso', depth_stencil = { depth = true } }\n"
    "return { w, x }\n";
  psol_options o = options();
  psol_result r;
  size_t full;
  ck_assert_msg(psol_evaluate_string(&o, "=w", src, strlen(src), &r) == PSOC_OK, "%s", r.error);
  ck_assert_uint_eq(r.file_count, 2);
  ck_assert_uint_ge(r.diagnostic_count, 2);
  psol_result_free(&r);
  full = alloc_failure_sweep(src, 40, 2);
  ck_assert_uint_ge(full, 10); /* the loop reached every allocation */
  ck_assert_uint_le(full, 40);
}
END_TEST

Suite *suite_embed(void) {
  Suite *s = suite_create("embed");
  TCase *tc = tcase_create("result");
  tcase_add_test(tc, test_result_free_frees_files_and_diagnostics);
  tcase_add_test(tc, test_code_names);
  suite_add_tcase(s, tc);
  tc = tcase_create("evaluate");
  tcase_add_checked_fixture(tc, make_tree, sandbox_remove_tree);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_files_read);
  tcase_add_test(tc, test_files_on_failure);
  tcase_add_test(tc, test_script_error_codes);
  tcase_add_test(tc, test_check_diagnostics);
  tcase_add_test(tc, test_strict_root_signatures);
  tcase_add_test(tc, test_read_file_hook);
  tcase_add_test(tc, test_read_file_hook_real_root);
  tcase_add_test(tc, test_result_allocations);
  suite_add_tcase(s, tc);
  return s;
}
