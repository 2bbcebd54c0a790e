/*
** test_sandbox.c: the material evaluator (bindings/lua/psol.h): streams
** that come back and pass psoc_check, every sandbox escape failing cleanly
** with a message (and a fresh evaluation working afterwards), the limits,
** the material roots and the result allocator.
**
** Each test builds a scratch tree (checked fixture, so it lives in the
** forked child):
**   ROOT/cs.cso vs.cso ps.cso        fake shader bytecode
**   ROOT/lib/common.lua              a module: require "lib.common"
**   ROOT/lib/evil.lua                a binary chunk ("\27Lua...")
**   ROOT/lib/native.so               what a C module would be
**   ROOT/escape -> OUTSIDE           a symlink out of the root
**   ROOT/mat.lua                     a material (two pipelines)
**   OUTSIDE/secret.lua secret.cso    files outside every root
*/
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkdtemp, symlink */
#endif
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pso_module.h"
#include "psoc.h"
#include "psol.h"
#include "suites.h"
#include "test_sandbox.h"

static char tmp_dir[256];
char root_dir[300];
char outside_dir[300];
static const char *roots[1];

static const unsigned char cs_bytes[] = "DXBC fake compute shader bytecode";

static void write_file(const char *dir, const char *name, const void *data, size_t size) {
  char path[512];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot create %s", path);
  ck_assert_uint_eq(fwrite(data, 1, size, f), size);
  fclose(f);
}

static void write_text(const char *dir, const char *name, const char *text) {
  write_file(dir, name, text, strlen(text));
}

void sandbox_make_tree(void) {
  char path[512];
  snprintf(tmp_dir, sizeof tmp_dir, "%s/psol_test.XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  ck_assert_msg(mkdtemp(tmp_dir) != NULL, "mkdtemp failed");
  snprintf(root_dir, sizeof root_dir, "%s/root", tmp_dir);
  snprintf(outside_dir, sizeof outside_dir, "%s/outside", tmp_dir);
  ck_assert_int_eq(mkdir(root_dir, 0700), 0);
  ck_assert_int_eq(mkdir(outside_dir, 0700), 0);
  snprintf(path, sizeof path, "%s/lib", root_dir);
  ck_assert_int_eq(mkdir(path, 0700), 0);
  write_file(root_dir, "cs.cso", cs_bytes, sizeof cs_bytes);
  write_text(root_dir, "vs.cso", "DXBC fake vertex shader");
  write_text(root_dir, "ps.cso", "DXBC fake pixel shader");
  write_text(root_dir, "lib/common.lua",
             "local M = {}\n"
             "M.cs = \"cs.cso\"\n"
             "return M\n");
  write_file(root_dir, "lib/evil.lua", "\x1bLuaT\0\x19\x93\r\n\x1a\n", 12);
  write_file(root_dir, "lib/native.so", "\x7f" "ELF\2\1\1", 7);
  write_text(root_dir, "mat.lua",
             "local pso = require \"pso\"\n"
             "local common = require \"lib.common\"\n"
             "print(\"hello from\", \"mat.lua\")\n"
             "local a = pso.compute { name = \"first\", cs = pso.shader(common.cs) }\n"
             "local b = pso.compute { name = \"second\", cs = pso.shader \"cs.cso\" }\n"
             "return { a, b }\n");
  write_text(outside_dir, "secret.lua", "return 'secret'\n");
  write_text(outside_dir, "secret.cso", "secret bytes");
  snprintf(path, sizeof path, "%s/escape", root_dir);
  ck_assert_int_eq(symlink(outside_dir, path), 0);
  roots[0] = root_dir;
}

void sandbox_remove_tree(void) {
  static const char *const files[] = {
    "root/cs.cso", "root/vs.cso", "root/ps.cso", "root/lib/common.lua", "root/lib/evil.lua",
    "root/lib/native.so", "root/mat.lua", "root/bin.lua", "root/escape", "root/lib",
    "outside/secret.lua", "outside/secret.cso", "root", "outside", NULL
  };
  char path[512];
  int i;
  if (!tmp_dir[0]) return;
  for (i = 0; files[i]; i++) {
    snprintf(path, sizeof path, "%s/%s", tmp_dir, files[i]);
    if (remove(path) != 0) rmdir(path);
  }
  rmdir(tmp_dir);
  tmp_dir[0] = '\0';
}

psol_options sandbox_options(void) {
  psol_options o;
  memset(&o, 0, sizeof o);
  o.roots = roots;
  o.root_count = 1;
  return o;
}

static const char compute_src[] =
  "local pso = require \"pso\"\n"
  "return pso.compute { name = \"c\", cs = pso.shader \"cs.cso\" }\n";

/* The CS bytecode of a stream, or NULL. */
static const D3D12_SHADER_BYTECODE *find_cs(const psoc_stream *s, D3D12_SHADER_BYTECODE *bc) {
  psoc_parsed parsed;
  if (psoc_parse(psoc_stream_data(s), psoc_stream_size(s), &parsed, NULL) != PSOC_OK) return NULL;
  if (!parsed.has[PSOC_SO_CS]) return NULL;
  memcpy(bc, parsed.views[PSOC_SO_CS].payload, sizeof *bc);
  return bc;
}

static void assert_stream_ok(const psol_pipeline *p) {
  psoc_diags diags;
  psoc_check_options check;
  memset(&check, 0, sizeof check);
  psoc_diags_init(&diags, NULL);
  ck_assert_ptr_nonnull(p->stream);
  ck_assert_uint_gt(psoc_stream_size(p->stream), 0);
  ck_assert_int_eq(psoc_check(psoc_stream_data(p->stream), psoc_stream_size(p->stream), &check,
                              &diags), PSOC_OK);
  ck_assert_uint_eq(diags.errors, 0);
  psoc_diags_free(&diags);
}

/* A fresh evaluation works and gives the compute pipeline back. */
static void assert_fresh_evaluation_works(void) {
  psol_options o = sandbox_options();
  psol_result r;
  D3D12_SHADER_BYTECODE bc;
  ck_assert_int_eq(psol_evaluate_string(&o, "=fresh", compute_src, strlen(compute_src), &r),
                   PSOC_OK);
  ck_assert_str_eq(r.error, "");
  ck_assert_uint_eq(r.count, 1);
  ck_assert_str_eq(r.pipelines[0].name, "c");
  ck_assert_int_eq(r.pipelines[0].kind, PSOC_KIND_COMPUTE);
  assert_stream_ok(&r.pipelines[0]);
  ck_assert_ptr_nonnull(find_cs(r.pipelines[0].stream, &bc));
  ck_assert_uint_eq(bc.BytecodeLength, sizeof cs_bytes);
  ck_assert_int_eq(memcmp(bc.pShaderBytecode, cs_bytes, sizeof cs_bytes), 0);
  psol_result_free(&r);
}

/* ---- streams come back ------------------------------------------------ */

START_TEST(test_evaluate_string) {
  psol_options o = sandbox_options();
  psol_result r;
  psoc_hash128 h;
  const psol_pipeline *p;
  ck_assert_int_eq(psol_evaluate_string(&o, "=compute", compute_src, strlen(compute_src), &r),
                   PSOC_OK);
  ck_assert_uint_eq(r.count, 1);
  p = &r.pipelines[0];
  ck_assert_str_eq(p->name, "c");
  ck_assert_ptr_null(p->root_signature);
  ck_assert_int_eq(p->kind, PSOC_KIND_COMPUTE);
  assert_stream_ok(p);
  /* the hash is the canonical content hash of the copied stream */
  ck_assert_int_eq(psoc_hash(psoc_stream_data(p->stream), psoc_stream_size(p->stream),
                             PSOC_FOLLOW_POINTERS, NULL, &h), PSOC_OK);
  ck_assert(h.lo == p->hash.lo && h.hi == p->hash.hi);
  psol_result_free(&r);
  ck_assert_uint_eq(r.count, 0);
  ck_assert_ptr_null(r.pipelines);
  psol_result_free(&r); /* twice is fine */
}
END_TEST

/* A shader object holds the string its bytes came in (the file read, or
** bytes = ...) instead of a copy of it: the bytes stay the object's after
** every other reference to the string is gone and the collector has run
** many times, and the stream borrows exactly them. */
START_TEST(test_shader_holds_its_bytes) {
  static const char src[] =
    "local pso = require 'pso'\n"
    "local function make() return pso.shader { bytes = string.rep('DXBC', 64) .. tostring(12345) } end\n"
    "local s, f = make(), pso.shader 'cs.cso'\n"
    "local junk = {}\n"
    "for i = 1, 20000 do junk[i % 64 + 1] = string.rep('z', 256) .. (i % 10000 + 10000) end\n"
    "assert(s.bytes == string.rep('DXBC', 64) .. '12345' and s.size == 261 and #s == 261)\n"
    "assert(s.file == nil and f.file == 'cs.cso' and f.kind == 'shader' and f.size == #f.bytes)\n"
    "assert(s == pso.shader { bytes = s.bytes } and s ~= f)\n"
    "assert(tostring(f) == \"shader 'cs.cso' (\" .. f.size .. ' bytes)')\n"
    "return { pso.compute { name = 'a', cs = s }, pso.compute { name = 'b', cs = f } }\n";
  psol_options o = sandbox_options();
  psol_result r;
  D3D12_SHADER_BYTECODE bc;
  char want[261];
  int i;
  for (i = 0; i < 256; i++) want[i] = "DXBC"[i % 4];
  for (i = 0; i < 5; i++) want[256 + i] = (char)('1' + i); /* .. "12345" */
  ck_assert_int_eq(psol_evaluate_string(&o, "=held", src, strlen(src), &r), PSOC_OK);
  ck_assert_msg(r.count == 2, "%s", r.error);
  ck_assert_ptr_nonnull(find_cs(r.pipelines[0].stream, &bc));
  ck_assert_uint_eq(bc.BytecodeLength, 261);
  ck_assert_int_eq(memcmp(bc.pShaderBytecode, want, 261), 0);
  ck_assert_ptr_nonnull(find_cs(r.pipelines[1].stream, &bc));
  ck_assert_uint_eq(bc.BytecodeLength, sizeof cs_bytes);
  ck_assert_int_eq(memcmp(bc.pShaderBytecode, cs_bytes, sizeof cs_bytes), 0);
  psol_result_free(&r);
}
END_TEST

typedef struct log_capture {
  char text[256];
  size_t len;
  int calls;
} log_capture;

static void capture_log(void *ud, const char *text, size_t len) {
  log_capture *c = ud;
  c->calls++;
  if (c->len + len < sizeof c->text) {
    memcpy(c->text + c->len, text, len);
    c->len += len;
    c->text[c->len] = '\0';
  }
}

START_TEST(test_evaluate_file_with_require_and_print) {
  psol_options o = sandbox_options();
  psol_result r;
  log_capture log;
  char path[512];
  size_t i;
  memset(&log, 0, sizeof log);
  o.log = capture_log;
  o.ud = &log;
  snprintf(path, sizeof path, "%s/mat.lua", root_dir);
  ck_assert_msg(psol_evaluate_file(&o, path, &r) == PSOC_OK, "%s", r.error);
  ck_assert_uint_eq(r.count, 2);
  ck_assert_str_eq(r.pipelines[0].name, "first");
  ck_assert_str_eq(r.pipelines[1].name, "second");
  for (i = 0; i < r.count; i++) assert_stream_ok(&r.pipelines[i]);
  /* same content, same hash, whatever the name */
  ck_assert(r.pipelines[0].hash.lo == r.pipelines[1].hash.lo &&
            r.pipelines[0].hash.hi == r.pipelines[1].hash.hi);
  ck_assert_int_eq(log.calls, 1);
  ck_assert_str_eq(log.text, "hello from\tmat.lua\n");
  psol_result_free(&r);
}
END_TEST

START_TEST(test_default_root_is_script_directory) {
  psol_result r;
  char path[512];
  snprintf(path, sizeof path, "%s/mat.lua", root_dir);
  ck_assert_msg(psol_evaluate_file(NULL, path, &r) == PSOC_OK, "%s", r.error);
  ck_assert_uint_eq(r.count, 2);
  psol_result_free(&r);
  /* a string chunk without roots has no file access */
  ck_assert_int_eq(psol_evaluate_string(NULL, "=noroot", compute_src, strlen(compute_src), &r),
                   PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "no material roots") != NULL, "%s", r.error);
  psol_result_free(&r);
}
END_TEST

/* Counts live bytes and calls of the result allocator. */
typedef struct counting {
  long long live;
  int allocs, frees;
} counting;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counting *c = ud;
  if (ptr) c->live -= (long long)osize;
  if (nsize == 0) {
    if (ptr) c->frees++;
    free(ptr);
    return NULL;
  }
  ptr = realloc(ptr, nsize);
  if (ptr) {
    c->live += (long long)nsize;
    c->allocs++;
  }
  return ptr;
}

START_TEST(test_result_allocator_is_honoured) {
  counting c;
  psoc_allocator a;
  psol_options o = sandbox_options();
  psol_result r;
  char path[512];
  memset(&c, 0, sizeof c);
  a.fn = counting_alloc;
  a.ud = &c;
  o.alloc = &a;
  snprintf(path, sizeof path, "%s/mat.lua", root_dir);
  ck_assert_msg(psol_evaluate_file(&o, path, &r) == PSOC_OK, "%s", r.error);
  ck_assert_uint_eq(r.count, 2);
  /* the pipeline array, two names and two streams at least */
  ck_assert_int_ge(c.allocs, 5);
  ck_assert_int_gt(c.live, (long long)(psoc_stream_size(r.pipelines[0].stream) +
                                      psoc_stream_size(r.pipelines[1].stream)));
  psol_result_free(&r);
  ck_assert_int_eq(c.live, 0);
  ck_assert_int_eq(c.frees, c.allocs);
  /* a failing evaluation leaves nothing behind either */
  ck_assert_int_eq(psol_evaluate_string(&o, "=bad", "error('no')", 11, &r), PSOC_ERR_INVALID);
  psol_result_free(&r);
  ck_assert_int_eq(c.live, 0);
}
END_TEST

static void *resolve_rs(void *ud, const char *name) {
  int *calls = ud;
  (*calls)++;
  return strcmp(name, "forward") == 0 ? (void *)(uintptr_t)0x1234 : NULL;
}

START_TEST(test_root_signature_resolver) {
  static const char src[] =
    "local pso = require \"pso\"\n"
    "return pso.compute { name = \"c\", root_signature = \"forward\", cs = pso.shader \"cs.cso\" }\n";
  psol_options o = sandbox_options();
  psol_result r;
  psoc_parsed parsed;
  void *rs = NULL;
  int calls = 0;
  o.resolve_root_signature = resolve_rs;
  o.ud = &calls;
  ck_assert_msg(psol_evaluate_string(&o, "=rs", src, strlen(src), &r) == PSOC_OK, "%s", r.error);
  ck_assert_uint_eq(r.count, 1);
  ck_assert_ptr_nonnull(r.pipelines[0].root_signature);
  ck_assert_str_eq(r.pipelines[0].root_signature, "forward");
  ck_assert_int_ge(calls, 1);
  ck_assert_int_eq(psoc_parse(psoc_stream_data(r.pipelines[0].stream),
                              psoc_stream_size(r.pipelines[0].stream), &parsed, NULL), PSOC_OK);
  ck_assert(parsed.has[PSOC_SO_ROOT_SIGNATURE]);
  memcpy(&rs, parsed.views[PSOC_SO_ROOT_SIGNATURE].payload, sizeof rs);
  ck_assert_ptr_eq(rs, (void *)(uintptr_t)0x1234);
  psol_result_free(&r);
}
END_TEST

/* Results are checked against the options' profile. */
START_TEST(test_check_profile) {
  static const char src[] =
    "local pso = require 'pso'\n"
    "local p = pso.graphics { name = 'stereo', vs = pso.shader 'vs.cso',\n"
    "  view_instancing = { locations = { { render_target = 0 }, { render_target = 1 } } } }\n"
    "return p\n"; /* not a tail call: LuaJIT would drop the line */
  psol_options o = sandbox_options();
  psol_result r;
  /* a NULL profile holds nothing to a capability tier (psoc_check_options) */
  ck_assert_msg(psol_evaluate_string(&o, "=stereo", src, strlen(src), &r) == PSOC_OK, "%s",
                r.error);
  psol_result_free(&r);
  o.profile = psoc_profile_find("desktop_fl12_0"); /* view instancing tier 0 */
  ck_assert_int_eq(psol_evaluate_string(&o, "=stereo", src, strlen(src), &r), PSOC_ERR_INVALID);
  /* named by its declaration's line, and the material's key (pso_field_path) */
  ck_assert_msg(strncmp(r.error, "stereo:2: pipeline 'stereo': view_instancing.locations: ", 56) == 0,
                "%s", r.error);
  psol_result_free(&r);
  o.profile = psoc_profile_find("desktop_fl12_1");
  ck_assert_ptr_nonnull(o.profile);
  ck_assert_msg(psol_evaluate_string(&o, "=stereo", src, strlen(src), &r) == PSOC_OK, "%s",
                r.error);
  ck_assert_uint_eq(r.count, 1);
  psol_result_free(&r);
}
END_TEST

/* PSOC_CHECK_WERROR fails a pipeline whose only finding is a warning: the
** message names that warning (found by fuzz_script: the message used to be
** formatted from the freed copy's name, a heap-use-after-free). */
START_TEST(test_werror_result) {
  static const char src[] =
    "local pso = require 'pso'\n"
    "local p = pso.graphics { name = 'warned', vs = pso.shader { bytes = 'vs' },\n"
    "  depth_stencil = { depth = true } }\n"
    "return p\n";
  psol_options o = sandbox_options();
  psol_result r;
  ck_assert_msg(psol_evaluate_string(&o, "=warned", src, strlen(src), &r) == PSOC_OK, "%s",
                r.error);
  psol_result_free(&r);
  o.check_flags = PSOC_CHECK_WERROR;
  ck_assert_int_eq(psol_evaluate_string(&o, "=warned", src, strlen(src), &r), PSOC_ERR_INVALID);
  ck_assert_uint_eq(r.count, 0);
  ck_assert_msg(strncmp(r.error, "warned:2: pipeline 'warned': ", 29) == 0, "%s", r.error);
  ck_assert_msg(strstr(r.error, "(a warning; an error under PSOC_CHECK_WERROR)") != NULL, "%s",
                r.error);
  /* as data, the failing warning is an error (warnings count as errors) */
  {
    size_t i, errors = 0;
    for (i = 0; i < r.diagnostic_count; i++)
      if (r.diagnostics[i].severity == PSOC_SEVERITY_ERROR) errors++;
    ck_assert_uint_ge(errors, 1);
  }
  psol_result_free(&r);
}
END_TEST

/* What is copied out of the state counts against the memory limit: a list
** of many references to one pipeline fails cleanly instead of making a copy
** per entry (fuzz_script's result_copies_unbounded reached 7.8 GB). */
START_TEST(test_result_copy_budget) {
  static const char src[] =
    "local pso = require 'pso'\n"
    "local p = pso.compute { cs = pso.shader { bytes = string.rep('x', 65536) } }\n"
    "local t = {}\n"
    "for i = 1, 2000 do t[i] = p end\n"
    "return t\n";
  static const char few[] =
    "local pso = require 'pso'\n"
    "local p = pso.compute { name = 'big', cs = pso.shader { bytes = string.rep('x', 65536) } }\n"
    "return { p }\n";
  psol_options o = sandbox_options();
  psol_result r;
  o.memory_limit = (size_t)8 << 20; /* 2000 copies of 64 KiB would be 128 MiB */
  ck_assert_int_eq(psol_evaluate_string(&o, "=many", src, strlen(src), &r), PSOC_ERR_INVALID);
  ck_assert_uint_eq(r.count, 0);
  ck_assert_msg(strstr(r.error, "memory limit exceeded (8388608 bytes)") != NULL, "%s", r.error);
  psol_result_free(&r);
  ck_assert_msg(psol_evaluate_string(&o, "=few", few, strlen(few), &r) == PSOC_OK, "%s", r.error);
  ck_assert_uint_eq(r.count, 1);
  psol_result_free(&r);
}
END_TEST

/* An allocator that trusts the sizes it is given: every block comes back
** with the size it was allocated with, also when copying the result fails
** part-way (fuzz_script's alloc_free_size_mismatch). */
void *sized_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
  sized_alloc *a = (sized_alloc *)ud;
  size_t *h;
  if (ptr) {
    h = (size_t *)ptr - 2;
    if (h[0] != osize) a->mismatch = 1;
    a->live--;
    a->bytes -= h[0];
    if (nsize == 0) {
      free(h);
      return NULL;
    }
    h = (size_t *)realloc(h, nsize + 2 * sizeof(size_t));
    ck_assert_ptr_nonnull(h);
    h[0] = nsize;
    a->live++;
    a->bytes += nsize;
    return h + 2;
  }
  if (nsize == 0) return NULL;
  if (++a->calls == a->fail_at) return NULL;
  h = (size_t *)malloc(nsize + 2 * sizeof(size_t));
  if (!h) return NULL;
  h[0] = nsize;
  a->live++;
  a->bytes += nsize;
  return h + 2;
}

/* Every allocation of evaluating 'src' fails in turn (up to 'max'): the
** result is whole or PSOC_ERR_NOMEM, and every block (pipelines, names,
** streams, files, diagnostics) comes back with its size. Returns the
** allocations the evaluation makes when none fails. */
size_t alloc_failure_sweep(const char *src, size_t max, size_t pipelines) {
  size_t k, full = 0;
  for (k = 0; k < max; k++) { /* 0: nothing fails; then each request in turn */
    sized_alloc a;
    psoc_allocator al;
    psol_options o = sandbox_options();
    psol_result r;
    psoc_status st;
    memset(&a, 0, sizeof a);
    a.fail_at = k;
    al.fn = sized_fn;
    al.ud = &a;
    o.alloc = &al;
    st = psol_evaluate_string(&o, "=sweep", src, strlen(src), &r);
    ck_assert_msg(k == 0 ? st == PSOC_OK : (st == PSOC_OK || st == PSOC_ERR_NOMEM), "%zu: %s", k,
                  r.error);
    if (st == PSOC_OK) ck_assert_uint_eq(r.count, pipelines);
    if (k == 0) full = a.calls;
    psol_result_free(&r);
    ck_assert_msg(!a.mismatch, "request %zu failing: a block came back with another size", k);
    ck_assert_msg(a.live == 0 && a.bytes == 0, "request %zu failing: %zu blocks not freed", k,
                  a.live);
  }
  return full;
}

START_TEST(test_result_alloc_sizes) {
  static const char src[] =
    "local pso = require 'pso'\n"
    "local t = {}\n"
    "for i = 1, 6 do t[i] = pso.compute { name = 'c' .. i, cs = pso.shader { bytes = 'cs' } } end\n"
    "return t\n";
  alloc_failure_sweep(src, 12, 6);
}
END_TEST

START_TEST(test_bad_results) {
  psol_options o = sandbox_options();
  psol_result r;
  ck_assert_int_eq(psol_evaluate_string(&o, "=nothing", "local x = 1", 11, &r), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "must return a pipeline") != NULL, "%s", r.error);
  ck_assert_uint_eq(r.count, 0);
  psol_result_free(&r);
  ck_assert_int_eq(psol_evaluate_string(&o, "=list", "return { 1 }", 12, &r), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "result[1]") != NULL, "%s", r.error);
  psol_result_free(&r);
  ck_assert_int_eq(psol_evaluate_string(&o, "=empty", "return {}", 9, &r), PSOC_OK);
  ck_assert_uint_eq(r.count, 0);
  psol_result_free(&r);
  ck_assert_int_eq(psol_evaluate_string(&o, "@m.lua", "local x = \n  nil + 1", 20, &r),
                   PSOC_ERR_INVALID);
  ck_assert_msg(strncmp(r.error, "m.lua:2: ", 9) == 0, "%s", r.error);
  ck_assert_ptr_null(strstr(r.error, "stack traceback"));
  psol_result_free(&r);
}
END_TEST

START_TEST(test_bad_arguments) {
  psol_options o = sandbox_options();
  psol_result r;
  const char *bad[1] = { "/nonexistent/psol/root" };
  ck_assert_int_eq(psol_evaluate_file(&o, NULL, &r), PSOC_ERR_ARG);
  psol_result_free(&r);
  ck_assert_int_eq(psol_evaluate_file(&o, "x.lua", NULL), PSOC_ERR_ARG);
  o.roots = bad;
  ck_assert_int_eq(psol_evaluate_string(&o, "=x", compute_src, strlen(compute_src), &r),
                   PSOC_ERR_ARG);
  ck_assert_msg(strstr(r.error, "/nonexistent/psol/root") != NULL, "%s", r.error);
  psol_result_free(&r);
  ck_assert_int_eq(psol_evaluate_file(NULL, "/nonexistent/psol/m.lua", &r), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "cannot open") != NULL, "%s", r.error);
  psol_result_free(&r);
}
END_TEST

START_TEST(test_library_surface) {
  static const char src[] =
    "assert(dofile == nil and loadfile == nil and os == nil and io == nil)\n"
    "assert(debug == nil and package == nil and string.dump == nil)\n"
    "assert(getfenv == nil and setfenv == nil and newproxy == nil and coroutine == nil)\n"
    "assert(type(string.format) == 'function' and type(table.concat) == 'function')\n"
    "assert(type(math.floor) == 'function' and type(load) == 'function')\n"
    "assert(_VERSION < 'Lua 5.3' or type(utf8.char) == 'function')\n"
    "assert(string.rep('', 1e15) == '' and string.rep('ab', 3) == 'ababab')\n"
    "assert(type(collectgarbage('count')) == 'number')\n"
    "assert(('a.b.c'):gsub('%.', '/') == 'a/b/c' and ('k=v'):match('(%w+)=') == 'k')\n"
    "assert(select(2, ('hello world'):find('o w')) == 7 and ('x'):find('.', 1, true) == nil)\n"
    "local n = 0 for w in ('one two three'):gmatch('%a+') do n = n + 1 end assert(n == 3)\n"
    "assert(('$a $b'):gsub('%$(%w+)', { a = 1 }) == '1 $b')\n"
    "local t = { 3, 1, 2 } table.sort(t) assert(table.concat(t) == '123')\n"
    "table.sort(t, function(a, b) return a > b end) assert(table.concat(t) == '321')\n"
    "table.insert(t, 1, 9) table.insert(t, 0) assert(table.remove(t, 1) == 9)\n"
    "assert(table.remove(t) == 0 and table.concat(t) == '321')\n"
    "local ok, e = pcall(table.insert, nil, 1)\n"
    "assert(not ok and e:find(\"bad argument #1 to 'table.insert'\", 1, true), e)\n"
    "local f = assert(load('return x + 1', '=chunk', 't', { x = 41 }))\n"
    "assert(f() == 42)\n"
    "local parts, i = { 'return ', '7' }, 0\n"
    "local g = assert(load(function() i = i + 1 return parts[i] end))\n"
    "assert(g() == 7)\n"
    "assert(require 'lib.common' == require 'lib.common')\n"
    "local pso = require 'pso'\n"
    "assert(pso == require 'pso')\n"
    "return pso.compute { name = 'ok', cs = pso.shader 'cs.cso' }\n";
  psol_options o = sandbox_options();
  psol_result r;
  ck_assert_msg(psol_evaluate_string(&o, "=surface", src, strlen(src), &r) == PSOC_OK, "%s",
                r.error);
  ck_assert_uint_eq(r.count, 1);
  psol_result_free(&r);
}
END_TEST

/* The sandbox's matcher (vendor/lua-5.4.4) follows Lua 5.4.4's pattern
** rules under every Lua version: each line below differs under 5.1's
** stock string library (find from past the end, empty matches after a
** match, '%x' in a replacement, gmatch's init argument). */
START_TEST(test_pattern_rules_are_54s) {
  static const char src[] =
    "assert(('abc'):find('', 10) == nil and ('abc'):find('', 4) == 4)\n"
    "local s, n = ('hello world'):gsub('%w*', '-') assert(s == '- -' and n == 2, s)\n"
    "s, n = ('abc'):gsub('b*', 'X') assert(s == 'XaXcX' and n == 3, s)\n"
    "local ok, e = pcall(string.gsub, 'abc', 'b', '%x')\n"
    "assert(not ok and e:find(\"invalid use of '%' in replacement string\", 1, true), e)\n"
    "local k = 0 for _ in ('abab'):gmatch('b', 3) do k = k + 1 end assert(k == 1, k)\n"
    "assert(select(2, ('THE (quick) fox'):find('%f[%a]%a+', 5)) == 10)\n"
    "assert(('word'):find('%f[%z]') == 5 and ('x(a(b)c)y'):match('%b()') == '(a(b)c)')\n"
    "assert(('abcabc'):match('(abc)%1') == 'abc' and select(2, ('aaa'):match('()a()')) == 2)\n"
    "ok, e = pcall(string.gsub, 'abc', 'b', true)\n"
    "assert(not ok and e:find('string/function/table expected, got boolean', 1, true), e)\n"
    "ok, e = pcall(string.find, 'a', '[a')\n"
    "assert(not ok and e:find(\"malformed pattern (missing ']')\", 1, true), e)\n"
    "local pso = require 'pso'\n"
    "return pso.compute { name = 'ok', cs = pso.shader 'cs.cso' }\n";
  psol_options o = sandbox_options();
  psol_result r;
  ck_assert_msg(psol_evaluate_string(&o, "=patterns", src, strlen(src), &r) == PSOC_OK, "%s",
                r.error);
  ck_assert_uint_eq(r.count, 1);
  psol_result_free(&r);
}
END_TEST

/* ---- escapes: each fails cleanly, then a fresh evaluation works -------- */

typedef struct escape {
  const char *what;
  const char *src;
  const char *expect; /* in the error message */
  const char *expect2; /* alternative, or NULL */
} escape;

static const escape escapes[] = {
  { "os.execute", "os.execute('touch /tmp/psol_pwned')", "'os'", NULL },
  { "io.open", "return io.open('/etc/passwd'):read('*a')", "'io'", NULL },
  { "load of a binary chunk",
    "local f, e = load('\\27Lua\\84\\0\\25\\147\\r\\n\\26\\n\\4\\8\\8') if f then f() end error(e, 0)",
    "binary chunk", NULL },
  { "load of a binary chunk through a reader",
    "local done\n"
    "local f, e = load(function() if done then return nil end done = true return '\\27LuaQ\\0' end)\n"
    "if f then f() end error(e, 0)",
    "binary chunk", NULL },
  { "load in binary mode", "local f, e = load('return 1', 'x', 'b') if f then f() end error(e, 0)",
    "binary chunks are not allowed", NULL },
  { "string.dump", "return string.dump(function() end)", "dump", NULL },
  { "string.dump as a method", "return (''):dump()", "dump", NULL },
  { "debug.getinfo", "return debug.getinfo(1)", "'debug'", NULL },
  { "debug.sethook", "debug.sethook()", "'debug'", NULL },
  { "package.loadlib", "return package.loadlib('libc.so.6', 'system')", "'package'", NULL },
  { "require of a C module", "return require 'lib.native'", "not found", NULL },
  { "require of a binary chunk", "return require 'lib.evil'", "binary chunk", NULL },
  { "require ../../etc/passwd", "return require '../../etc/passwd'", "invalid module name", NULL },
  { "require of an absolute path", "return require '/etc/passwd'", "invalid module name", NULL },
  { "require through a symlink", "return require 'escape.secret'",
    "outside the material roots", NULL },
  { "pso.shader ../", "local pso = require 'pso' return pso.shader '../outside/secret.cso'",
    "outside the material roots", NULL },
  { "pso.shader ../../etc/passwd",
    "local pso = require 'pso' return pso.shader '../../../../../../../../etc/passwd'",
    "outside the material roots", NULL },
  { "pso.shader of an absolute path", "local pso = require 'pso' return pso.shader '/etc/passwd'",
    "outside the material roots", NULL },
  { "pso.shader through a symlink",
    "local pso = require 'pso' return pso.shader 'escape/secret.cso'",
    "outside the material roots", NULL },
  { "endless loop", "while true do end", "instruction budget exceeded (5000000 instructions)",
    NULL },
  { "endless loop behind pcall",
    "while true do pcall(function() while true do end end) end",
    "instruction budget exceeded", NULL },
  { "backtracking string.find", "local s = string.rep('a', 3000) return s:find('.-.-.-b')",
    "instruction budget exceeded", NULL },
  { "backtracking string.match as a method", "return (('a'):rep(3000)):match('(.-)(.-)(.-)b')",
    "instruction budget exceeded", NULL },
  { "backtracking string.gsub", "return string.gsub(string.rep('a', 3000), '.-.-.-b', '')",
    "instruction budget exceeded", NULL },
  { "backtracking string.gmatch",
    "for x in string.rep('a', 3000):gmatch('.-.-.-b') do end", "instruction budget exceeded",
    NULL },
  { "backtracking behind pcall",
    "while true do pcall(string.find, string.rep('a', 3000), '.-.-.-b') end",
    "instruction budget exceeded", NULL },
  { "table.insert with a lying __len", /* 5.1 and LuaJIT ignore __len here */
    "local t = setmetatable({}, { __len = function() return 2^50 end }) table.insert(t, 1, 0)\n"
    "error('raw length: ' .. #t, 0)",
    "instruction budget exceeded", "raw length: " },
  { "table.move of 2^50 elements",
    "if not table.move then error('no table.move', 0) end table.move({}, 1, 2^50, 2)",
    "instruction budget exceeded", "no table.move" },
  { "front inserts into a big table",
    "local t = {} for i = 1, 2e5 do t[i] = i end for i = 1, 1e6 do table.insert(t, 1, i) end",
    "instruction budget exceeded", NULL },
  { "copies of a big string", /* distinct results: LuaJIT interns equal ones */
    "local s = string.rep('x', 1e6) for i = 1, 1e7 do local u = s .. i end",
    "instruction budget exceeded", NULL },
  { "scans of a big string",
    "local s = string.rep('x', 4e6) for i = 1, 1e7 do local u = s:find('y', 1, true) end",
    "instruction budget exceeded", NULL },
  { "string.rep bomb", "local s = string.rep('x', 2^40)", "memory limit exceeded", NULL },
  { "string doubling", "local s = 'x' while true do s = s .. s end", "memory limit exceeded",
    NULL },
  { "table growth", "local t = {} for i = 1, 1e9 do t[i] = { i } end", "memory limit exceeded",
    NULL },
  { "memory bomb behind pcall",
    "while true do pcall(function() local t = {} for i = 1, 1e9 do t[i] = { i } end end) end",
    "memory limit exceeded", NULL },
  { "deep recursion", "local function f(n) return 1 + f(n + 1) end return f(1)",
    "stack overflow", "memory limit exceeded" },
  { "collectgarbage", "collectgarbage('stop') while true do end", "only \"count\"", NULL },
  { "__gc finalizer", "setmetatable({}, { __gc = function() while true do end end })", "__gc",
    NULL },
  { "replacing a module finalizer",
    "local pso = require 'pso'\n"
    "local p = pso.compute { cs = pso.shader 'cs.cso' }\n"
    "local mt = getmetatable(p)\n"
    "if type(mt) == 'table' then mt.__gc = function() while true do end end end\n"
    "error('metatable: ' .. type(mt), 0)",
    "metatable: ", NULL },
};

#define ESCAPE_COUNT ((int)(sizeof escapes / sizeof escapes[0]))

START_TEST(test_escape) {
  const escape *e = &escapes[_i];
  psol_options o = sandbox_options();
  psol_result r;
  o.instruction_limit = 5000000;
  o.memory_limit = (size_t)16 << 20;
  remove("/tmp/psol_pwned");
  ck_assert_msg(psol_evaluate_string(&o, "=escape", e->src, strlen(e->src), &r) ==
                    PSOC_ERR_INVALID, "%s: not refused", e->what);
  ck_assert_uint_eq(r.count, 0);
  ck_assert_ptr_null(r.pipelines);
  ck_assert_msg(strstr(r.error, e->expect) != NULL ||
                    (e->expect2 && strstr(r.error, e->expect2) != NULL),
                "%s: unexpected message: %s", e->what, r.error);
  psol_result_free(&r);
  ck_assert_msg(access("/tmp/psol_pwned", F_OK) != 0, "%s: os.execute ran", e->what);
  assert_fresh_evaluation_works();
}
END_TEST

/* What the instruction budget does not charge, the clock stops. */
START_TEST(test_time_limit) {
  static const char src[] =
    "local a, b = string.rep('x', 8e6), string.rep('x', 8e6)\n"
    "while true do local same = (a == b) end\n";
  psol_options o = sandbox_options();
  psol_result r;
  o.time_limit_ms = 200;
  o.instruction_limit = (uint64_t)1 << 40;
  ck_assert_int_eq(psol_evaluate_string(&o, "=clock", src, strlen(src), &r), PSOC_ERR_INVALID);
  /* line 2 normally; line 1 when a slow (sanitizer) build is still making the strings */
  ck_assert_msg(strncmp(r.error, "clock:", 6) == 0 &&
                    strstr(r.error, ": time limit exceeded (200 ms)") != NULL, "%s", r.error);
  psol_result_free(&r);
  assert_fresh_evaluation_works();
}
END_TEST

START_TEST(test_binary_script_file) {
  psol_result r;
  char path[512];
  write_file(root_dir, "bin.lua", "\x1bLuaT\0\x19\x93\r\n\x1a\n", 12);
  snprintf(path, sizeof path, "%s/bin.lua", root_dir);
  ck_assert_int_eq(psol_evaluate_file(NULL, path, &r), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "binary chunk") != NULL, "%s", r.error);
  psol_result_free(&r);
  assert_fresh_evaluation_works();
}
END_TEST

START_TEST(test_default_instruction_limit) {
  psol_options o = sandbox_options();
  psol_result r;
  ck_assert_int_eq(psol_evaluate_string(&o, "=loop", "while true do end", 17, &r),
                   PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "instruction budget exceeded (50000000 instructions)") != NULL,
                "%s", r.error);
  ck_assert_msg(strncmp(r.error, "loop:1: ", 8) == 0, "%s", r.error);
  psol_result_free(&r);
}
END_TEST

START_TEST(test_default_memory_limit) {
  psol_options o = sandbox_options();
  psol_result r;
  static const char src[] = "local t = {} for i = 1, 1e9 do t[i] = i .. '' end";
  ck_assert_int_eq(psol_evaluate_string(&o, "=mem", src, strlen(src), &r), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "memory limit exceeded (67108864 bytes)") != NULL, "%s", r.error);
  psol_result_free(&r);
  assert_fresh_evaluation_works();
}
END_TEST

/* ---- the lower-level API ----------------------------------------------- */

START_TEST(test_state_api) {
  psol_options o = sandbox_options();
  char err[256], msg[1024], path[512];
  lua_State *L;
  static const char loop[] = "local n = 0 for i = 1, 200000 do n = n + i end return n";
  o.instruction_limit = 1000000;
  L = psol_newstate(&o, err, sizeof err);
  ck_assert_msg(L != NULL, "%s", err);
  snprintf(path, sizeof path, "%s/mat.lua", root_dir);
  ck_assert_int_eq(psol_dofile(L, path, 1), LUA_OK);
  ck_assert(lua_istable(L, -1));
  lua_rawgeti(L, -1, 1);
  ck_assert_ptr_nonnull(pso_topipeline(L, -1));
  /* declared on line 4 of mat.lua */
  ck_assert_int_eq(psol_pipeline_where(L, -1, msg, sizeof msg), 4);
  ck_assert_str_eq(msg, path);
  ck_assert_int_eq(psol_pipeline_where(L, -2, msg, sizeof msg), 0); /* not a pipeline */
  lua_pop(L, 2);
  /* an error keeps its traceback on the stack; the message drops it */
  ck_assert_int_ne(psol_dostring(L, "=broken", "local x = nil; return x.y", 25, 0), LUA_OK);
  ck_assert_ptr_nonnull(strstr(lua_tostring(L, -1), "stack traceback:"));
  psol_error_message(L, -1, msg, sizeof msg);
  ck_assert_ptr_null(strstr(msg, "stack traceback"));
  ck_assert_msg(strncmp(msg, "broken:1: ", 10) == 0, "%s", msg);
  lua_pop(L, 1);
  /* the budget is per call: 60% of it twice is fine */
  ck_assert_int_eq(psol_dostring(L, "=loop", loop, strlen(loop), 1), LUA_OK);
  lua_pop(L, 1);
  ck_assert_uint_gt(psol_instructions(L), 0);
  ck_assert_int_eq(psol_dostring(L, "=loop", loop, strlen(loop), 1), LUA_OK);
  lua_pop(L, 1);
  /* after an exceeded budget the state still runs new calls */
  ck_assert_int_ne(psol_dostring(L, "=spin", "while true do end", 17, 0), LUA_OK);
  lua_pop(L, 1);
  ck_assert_int_eq(psol_dostring(L, "=again", "return 1", 8, 1), LUA_OK);
  ck_assert_int_eq((int)lua_tonumber(L, -1), 1);
  lua_pop(L, 1);
  ck_assert_uint_gt(psol_memory(L), 0);
  psol_close(L);
  psol_close(NULL);
  L = psol_newstate(NULL, NULL, 0); /* all defaults, no error buffer */
  ck_assert_ptr_nonnull(L);
  psol_close(L);
}
END_TEST

START_TEST(test_newstate_bad_root) {
  const char *bad[2];
  psol_options o = sandbox_options();
  char err[256];
  bad[0] = root_dir;
  bad[1] = "/nonexistent/psol/root";
  o.roots = bad;
  o.root_count = 2;
  ck_assert_ptr_null(psol_newstate(&o, err, sizeof err));
  ck_assert_msg(strstr(err, "material root '/nonexistent/psol/root'") != NULL, "%s", err);
  o.roots = NULL;
  ck_assert_ptr_null(psol_newstate(&o, err, sizeof err));
  o.root_count = 0;
  {
    lua_State *L = psol_newstate(&o, err, sizeof err);
    ck_assert_ptr_nonnull(L);
    psol_close(L);
  }
}
END_TEST

Suite *suite_sandbox(void) {
  Suite *s = suite_create("sandbox");
  TCase *tc = tcase_create("evaluate");
  tcase_add_checked_fixture(tc, sandbox_make_tree, sandbox_remove_tree);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_evaluate_string);
  tcase_add_test(tc, test_shader_holds_its_bytes);
  tcase_add_test(tc, test_evaluate_file_with_require_and_print);
  tcase_add_test(tc, test_default_root_is_script_directory);
  tcase_add_test(tc, test_result_allocator_is_honoured);
  tcase_add_test(tc, test_root_signature_resolver);
  tcase_add_test(tc, test_check_profile);
  tcase_add_test(tc, test_bad_results);
  tcase_add_test(tc, test_bad_arguments);
  tcase_add_test(tc, test_library_surface);
  tcase_add_test(tc, test_pattern_rules_are_54s);
  suite_add_tcase(s, tc);

  tc = tcase_create("escapes");
  tcase_add_checked_fixture(tc, sandbox_make_tree, sandbox_remove_tree);
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_escape, 0, ESCAPE_COUNT);
  tcase_add_test(tc, test_time_limit);
  tcase_add_test(tc, test_binary_script_file);
  tcase_add_test(tc, test_default_instruction_limit);
  tcase_add_test(tc, test_default_memory_limit);
  suite_add_tcase(s, tc);

  tc = tcase_create("state");
  tcase_add_checked_fixture(tc, sandbox_make_tree, sandbox_remove_tree);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_state_api);
  tcase_add_test(tc, test_newstate_bad_root);
  tcase_add_test(tc, test_werror_result);
  tcase_add_test(tc, test_result_copy_budget);
  tcase_add_test(tc, test_result_alloc_sizes);
  suite_add_tcase(s, tc);
  sandbox_limit_cases(s);
  sandbox_confine_cases(s);
  sandbox_cache_cases(s);
  return s;
}
