/*
** fuzz_script.c: libFuzzer target for the material-script front end.
**
**   scripts/fuzz.sh --target script      (builds and runs it; see there)
**
** Each input is a material script. It runs twice, each time in a fresh
** sandboxed state with small limits (200,000 instructions, 4 MiB, 1 s of
** wall clock) and no material roots (so no file access):
**
** 0. The profile evaluate checks against is chosen by the input's size:
**    each of psoc_profile_at(0..n-1), or NULL (the default).
**
** 1. Through psol_evaluate_string, the embedding API engines use. For
**    every pipeline it returns, the stream is re-checked with psoc_check
**    (it must pass as evaluate said; with PSOC_CHECK_FOLLOW_POINTERS and
**    with PSOC_CHECK_STRUCTURE_ONLY it must not crash and its diagnostics
**    must be well formed), hashed with PSOC_FOLLOW_POINTERS (equal to the
**    hash in the result), dumped (well-formed text) and copied with
**    psoc_stream_copy (same size, same hash, same verdict).
** 2. Through psol_newstate + psol_dostring, then the pipeline methods
**    (bytes, size, hash, check, valid, dump, explain, explain_table, json,
**    table, subobjects, diff) on up to 4 of the pipelines it returns, each
**    through psol_pcall. p:json() must be valid JSON; p:hash() and
**    p:bytes() must agree with the stream.
**
** 3. When evaluate succeeded: again with psol_options.alloc set to a
**    counting allocator (same verdict, every block freed with the size it
**    was allocated with), then with one of its requests failing (chosen by
**    the input): a clean PSOC_ERR_NOMEM or other error, no leak.
**
** Evaluate checks with flags chosen by the input's size class: none,
** PSOC_CHECK_FOLLOW_POINTERS (the shader containers the script built from
** its bytes are read), PSOC_CHECK_FOLLOW_LAYOUT, or PSOC_CHECK_WERROR with
** FOLLOW_POINTERS. Re-checks also use FOLLOW_LAYOUT and WERROR (which
** changes the verdict, never the diagnostics).
**
** The first two runs see the same script, so their verdicts are compared: a
** script that evaluates cleanly must also run cleanly through the lower
** level API. Any invariant violation calls abort() (the fuzzer's job; the
** library itself never aborts).
**
** Environment (read once):
**   PSOC_FUZZ_TIME_IS_CRASH=1   psol_evaluate_string stopped by the wall
**                               clock (1 s: its message, after 250 ms of
**                               CPU time), or using over 5 s of CPU, is a
**                               failure (CPU time, so that a starved
**                               process is not taken for a runaway): the
**                               instruction budget should have stopped the
**                               script long before (some C work is
**                               undercharged), or work outside the script
**                               is not bounded. Off by default, since a
**                               loaded machine can reach the clock
**                               legitimately.
**   PSOC_FUZZ_JSON_UTF8=0       p:json() need not be valid UTF-8 (on by
**                               default: it escapes invalid bytes now).
**   PSOC_FUZZ_ALLOC_SIZES=0     run 3 does not require every block to be
**                               freed with the size it was allocated with
**                               (on by default: psol_result_free frees the
**                               pipeline array with its allocated size). Leaks (blocks
**                               never freed) always fail.
**   PSOC_FUZZ_VERBOSE=1         print each input's verdict and pipeline
**                               count to stderr (to inspect seeds).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "psoc.h"
#include "psol.h"
#include "pso_module.h"

#include "compat.h" /* lua.h, lauxlib.h, and the 5.4 names under 5.1/LuaJIT */

#define FUZZ_INSTRUCTIONS 200000u
#define FUZZ_MEMORY ((size_t)4 << 20)
#define FUZZ_TIME_MS 1000u
#define TIME_LIMIT_TEXT "time limit exceeded (1000 ms)" /* the sandbox's, for FUZZ_TIME_MS */
#define FUZZ_DRIVEN 4 /* pipelines whose methods are called, per input */

static void require_failed(const char *what, int line) {
  fprintf(stderr, "fuzz_script: invariant failed at line %d: %s\n", line, what);
  abort();
}

#define REQUIRE(cond)                              \
  do {                                             \
    if (!(cond)) require_failed(#cond, __LINE__);         \
  } while (0)

#include "fuzz_diags.h"

static int time_is_crash = -1;
static int json_utf8 = -1;
static int verbose = -1;
static int alloc_sizes = -1;

static int env_flag(const char *name) {
  const char *v = getenv(name);
  return v && v[0] && strcmp(v, "0") != 0;
}

/* A check that is on unless NAME=0. */
static int env_flag_on(const char *name) {
  const char *v = getenv(name);
  return !v || !v[0] || strcmp(v, "0") != 0;
}

/* ------------------------------------------------------------------ */
/* Output sinks                                                         */
/* ------------------------------------------------------------------ */

typedef struct sink {
  size_t total;
  size_t calls;
} sink;

static void on_log(void *ud, const char *text, size_t len) {
  sink *s = ud;
  REQUIRE(text != NULL || len == 0);
  s->total += len;
  s->calls++;
}

static int on_dump(void *ud, const char *text, size_t length) {
  sink *s = ud;
  REQUIRE(text != NULL);
  REQUIRE(length == 0 || memchr(text, '\0', length) == NULL);
  s->total += length;
  s->calls++;
  return 0;
}

static void *fake_root_signature(void *ud, const char *name) {
  (void)ud;
  REQUIRE(name != NULL);
  /* Some names resolve to a (never dereferenced) pointer, others not. */
  return name[0] && (name[0] & 1) ? (void *)(uintptr_t)0x1000 : NULL;
}

/* ------------------------------------------------------------------ */
/* A strict JSON validator (RFC 8259), for p:json()                     */
/* ------------------------------------------------------------------ */

typedef struct jparser {
  const unsigned char *s, *end;
  int depth;
} jparser;

static void jws(jparser *p) {
  while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
    p->s++;
}

static int jlit(jparser *p, const char *lit) {
  size_t n = strlen(lit);
  if ((size_t)(p->end - p->s) < n || memcmp(p->s, lit, n) != 0) return 0;
  p->s += n;
  return 1;
}

/* One UTF-8 sequence at p->s (shortest form, no surrogates, <= U+10FFFF). */
static int jutf8(jparser *p) {
  const unsigned char *s = p->s;
  size_t left = (size_t)(p->end - s), n, i;
  uint32_t c;
  if (s[0] < 0x80) n = 1, c = s[0];
  else if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2, c = s[0] & 0x1fu;
  else if (s[0] >= 0xe0 && s[0] <= 0xef) n = 3, c = s[0] & 0x0fu;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4) n = 4, c = s[0] & 0x07u;
  else return 0;
  if (left < n) return 0;
  for (i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    c = (c << 6) | (s[i] & 0x3fu);
  }
  if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff))) return 0;
  if (c >= 0xd800 && c <= 0xdfff) return 0;
  p->s += n;
  return 1;
}

static int jhex4(jparser *p) {
  int i;
  if (p->end - p->s < 4) return 0;
  for (i = 0; i < 4; i++) {
    unsigned char c = p->s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return 0;
  }
  p->s += 4;
  return 1;
}

static int jstring(jparser *p) {
  if (p->s >= p->end || *p->s != '"') return 0;
  p->s++;
  while (p->s < p->end) {
    unsigned char c = *p->s;
    if (c == '"') {
      p->s++;
      return 1;
    }
    if (c < 0x20) return 0;
    if (c == '\\') {
      p->s++;
      if (p->s >= p->end) return 0;
      c = *p->s++;
      if (c == 'u') {
        if (!jhex4(p)) return 0;
      } else if (!strchr("\"\\/bfnrt", c) || c == 0) {
        return 0;
      }
      continue;
    }
    if (c >= 0x80 && json_utf8) {
      if (!jutf8(p)) return 0;
      continue;
    }
    p->s++;
  }
  return 0;
}

static int jdigits(jparser *p) {
  const unsigned char *start = p->s;
  while (p->s < p->end && *p->s >= '0' && *p->s <= '9') p->s++;
  return p->s > start;
}

static int jnumber(jparser *p) {
  if (p->s < p->end && *p->s == '-') p->s++;
  if (p->s < p->end && *p->s == '0') p->s++;
  else if (!(p->s < p->end && *p->s >= '1' && *p->s <= '9' && jdigits(p))) return 0;
  if (p->s < p->end && *p->s == '.') {
    p->s++;
    if (!jdigits(p)) return 0;
  }
  if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
    p->s++;
    if (p->s < p->end && (*p->s == '+' || *p->s == '-')) p->s++;
    if (!jdigits(p)) return 0;
  }
  return 1;
}

static int jvalue(jparser *p) {
  int ok = 0;
  jws(p);
  if (p->s >= p->end || ++p->depth > 64) return 0;
  switch (*p->s) {
  case '{':
    p->s++;
    jws(p);
    if (p->s < p->end && *p->s == '}') {
      p->s++;
      ok = 1;
      break;
    }
    for (;;) {
      jws(p);
      if (!jstring(p)) break;
      jws(p);
      if (p->s >= p->end || *p->s++ != ':') break;
      if (!jvalue(p)) break;
      jws(p);
      if (p->s < p->end && *p->s == ',') {
        p->s++;
        continue;
      }
      if (p->s < p->end && *p->s == '}') {
        p->s++;
        ok = 1;
      }
      break;
    }
    break;
  case '[':
    p->s++;
    jws(p);
    if (p->s < p->end && *p->s == ']') {
      p->s++;
      ok = 1;
      break;
    }
    for (;;) {
      if (!jvalue(p)) break;
      jws(p);
      if (p->s < p->end && *p->s == ',') {
        p->s++;
        continue;
      }
      if (p->s < p->end && *p->s == ']') {
        p->s++;
        ok = 1;
      }
      break;
    }
    break;
  case '"': ok = jstring(p); break;
  case 't': ok = jlit(p, "true"); break;
  case 'f': ok = jlit(p, "false"); break;
  case 'n': ok = jlit(p, "null"); break;
  default: ok = jnumber(p); break;
  }
  p->depth--;
  return ok;
}

static int json_valid(const char *s, size_t n) {
  jparser p;
  p.s = (const unsigned char *)s;
  p.end = p.s + n;
  p.depth = 0;
  if (!jvalue(&p)) return 0;
  jws(&p);
  return p.s == p.end;
}

/* ------------------------------------------------------------------ */
/* Re-checking one stream                                               */
/* ------------------------------------------------------------------ */

/* psoc_check with 'flags'; returns the status after checking the diags. */
static psoc_status recheck(const psoc_stream *s, const psoc_profile *profile, uint32_t flags,
                           size_t *errors) {
  psoc_check_options opts;
  psoc_diags diags;
  psoc_status st;
  memset(&opts, 0, sizeof opts);
  opts.flags = flags;
  opts.profile = profile;
  psoc_diags_init(&diags, NULL);
  st = psoc_check(psoc_stream_data(s), psoc_stream_size(s), &opts, &diags);
  REQUIRE(st == PSOC_OK || st == PSOC_ERR_INVALID);
  check_diags(&diags, psoc_stream_size(s), 0); /* streams from psoc are aligned */
  /* with PSOC_CHECK_WERROR warnings fail too, but keep their severity */
  REQUIRE((st == PSOC_OK) ==
          (diags.errors == 0 && (!(flags & PSOC_CHECK_WERROR) || diags.warnings == 0)));
  if (errors) *errors = diags.errors;
  psoc_diags_free(&diags);
  return st;
}

static int same_hash(psoc_hash128 a, psoc_hash128 b) { return a.lo == b.lo && a.hi == b.hi; }

static void check_stream(const psol_pipeline *p, const psoc_profile *profile, uint32_t flags) {
  const psoc_stream *s = p->stream;
  const void *data = psoc_stream_data(s);
  size_t size = psoc_stream_size(s), e_plain, e_follow, e_struct;
  psoc_hash128 h, h_copy;
  psoc_stream *copy = NULL;
  psoc_parsed parsed;
  sink dump = { 0, 0 };
  D3D12_PIPELINE_STATE_STREAM_DESC desc;

  REQUIRE(data != NULL && size > 0 && size % 8 == 0);
  desc = psoc_stream_desc(s);
  REQUIRE(desc.pPipelineStateSubobjectStream == data && desc.SizeInBytes == size);

  /* evaluate checked it with these options: it passed */
  REQUIRE(recheck(s, profile, flags, NULL) == PSOC_OK);
  recheck(s, profile, 0, &e_plain);
  recheck(s, profile, PSOC_CHECK_FOLLOW_POINTERS, &e_follow);
  {
    size_t e_layout, e_werror;
    recheck(s, profile, PSOC_CHECK_FOLLOW_LAYOUT, &e_layout);
    /* WERROR changes the verdict, never the diagnostics */
    recheck(s, profile, PSOC_CHECK_WERROR, &e_werror);
    REQUIRE(e_werror == e_plain);
  }
  REQUIRE(recheck(s, profile, PSOC_CHECK_STRUCTURE_ONLY, &e_struct) == PSOC_OK);
  recheck(s, psoc_profile_find("max"), PSOC_CHECK_FOLLOW_POINTERS, NULL);

  REQUIRE(psoc_parse(data, size, &parsed, NULL) == PSOC_OK);
  REQUIRE(parsed.kind == p->kind);

  REQUIRE(psoc_hash(data, size, PSOC_FOLLOW_POINTERS, p->root_signature, &h) == PSOC_OK);
  REQUIRE(same_hash(h, p->hash));

  REQUIRE(psoc_dump(data, size, PSOC_FOLLOW_POINTERS, on_dump, &dump) == PSOC_OK);
  REQUIRE(dump.total > 0);
  dump.total = 0;
  REQUIRE(psoc_dump(data, size, 0, on_dump, &dump) == PSOC_OK);

  REQUIRE(psoc_stream_copy(s, NULL, &copy) == PSOC_OK && copy != NULL);
  REQUIRE(psoc_stream_size(copy) == size);
  REQUIRE(psoc_stream_data(copy) != data);
  REQUIRE(psoc_hash(psoc_stream_data(copy), size, PSOC_FOLLOW_POINTERS, p->root_signature,
                    &h_copy) == PSOC_OK);
  REQUIRE(same_hash(h, h_copy));
  {
    size_t e2;
    REQUIRE(recheck(copy, profile, flags, NULL) == PSOC_OK);
    recheck(copy, profile, 0, &e2);
    REQUIRE(e2 == e_plain);
    recheck(copy, profile, PSOC_CHECK_FOLLOW_POINTERS, &e2);
    REQUIRE(e2 == e_follow);
  }
  psoc_stream_free(copy);
}

/* ------------------------------------------------------------------ */
/* 1. The embedding API                                                 */
/* ------------------------------------------------------------------ */

static uint32_t eval_flags(size_t size);

static void base_options(psol_options *o, sink *log) {
  memset(o, 0, sizeof *o);
  o->memory_limit = FUZZ_MEMORY;
  o->instruction_limit = FUZZ_INSTRUCTIONS;
  o->time_limit_ms = FUZZ_TIME_MS;
  o->log = on_log;
  o->resolve_root_signature = fake_root_signature;
  o->ud = log;
}

static uint64_t clock_ms(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wall time: what the sandbox's clock measures. */
static uint64_t now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }
/* CPU time of this thread: what a script really cost, however loaded the
** machine is (a starved process must not look like a runaway script). */
static uint64_t cpu_ms(void) { return clock_ms(CLOCK_THREAD_CPUTIME_ID); }

/* The flags evaluate checks with, by size class: none, following every
** pointer (shader containers from the script's bytes, input element
** names, ...), following the layout arrays only, and warnings as errors. */
static uint32_t eval_flags(size_t size) {
  static const uint32_t flags[] = { 0, PSOC_CHECK_FOLLOW_POINTERS, PSOC_CHECK_FOLLOW_LAYOUT,
                                    PSOC_CHECK_WERROR | PSOC_CHECK_FOLLOW_POINTERS };
  return flags[(size / 8) % (sizeof flags / sizeof flags[0])];
}

/* The options of every evaluate of this input. The profile: each of
** psoc_profile_at(0..n-1) in turn, chosen by the input's size, or NULL
** (the default, without the mesh tier). */
static void eval_options(psol_options *o, sink *log, size_t size) {
  size_t n = psoc_profile_count();
  base_options(o, log);
  o->profile = size % (n + 1) < n ? psoc_profile_at(size % (n + 1)) : NULL;
  o->check_flags = eval_flags(size);
}

/* The embedding API's report (psol.h): every diagnostic well formed, at
** least one error when the evaluation failed and none when it succeeded;
** files listed once each, inside nothing but what was read. */
static void check_report(const psol_result *r, psoc_status st) {
  size_t i, j, errors = 0;
  REQUIRE(r->diagnostic_count == 0 || r->diagnostics != NULL);
  REQUIRE(r->diagnostic_count <= r->diagnostic_capacity);
  for (i = 0; i < r->diagnostic_count; i++) {
    const psol_diagnostic *d = &r->diagnostics[i];
    REQUIRE(d->severity == PSOC_SEVERITY_NOTE || d->severity == PSOC_SEVERITY_WARNING ||
            d->severity == PSOC_SEVERITY_ERROR);
    REQUIRE(d->code > 0 && d->code < PSOC_CODE_COUNT_);
    REQUIRE(d->message != NULL);
    REQUIRE(d->line >= 0);
    REQUIRE(!d->file || d->file[0]);
    REQUIRE(!d->field || d->field[0]);
    if (d->severity == PSOC_SEVERITY_ERROR) errors++;
  }
  /* a failure says why as data too; a success has warnings at most */
  if (st == PSOC_ERR_INVALID) REQUIRE(errors > 0);
  if (st == PSOC_OK) REQUIRE(errors == 0);
  REQUIRE(r->file_count == 0 || r->files != NULL);
  REQUIRE(r->file_count <= r->file_capacity);
  for (i = 0; i < r->file_count; i++) {
    REQUIRE(r->files[i].path != NULL && r->files[i].path[0] == '/');
    for (j = 0; j < i; j++) REQUIRE(strcmp(r->files[i].path, r->files[j].path) != 0);
  }
}

static psoc_status run_evaluate(const uint8_t *data, size_t size, size_t *count) {
  psol_options opts;
  psol_result r;
  sink log = { 0, 0 };
  psoc_status st;
  size_t i;
  uint64_t start, elapsed;
  eval_options(&opts, &log, size);
  start = cpu_ms();
  st = psol_evaluate_string(&opts, "=fuzz", (const char *)data, size, &r);
  elapsed = cpu_ms() - start;
  if (verbose)
    fprintf(stderr, "fuzz_script: evaluate (%llu ms CPU): %s, %zu pipeline(s)%s%s\n",
            (unsigned long long)elapsed, psoc_status_name(st), r.count, r.error[0] ? ": " : "",
            r.error);
  /* The clock stopped the script (its message, after at least a quarter
  ** of its time in CPU: a script can print the message, and a starved
  ** process reaches the wall clock with little work done; a 200,000
  ** instruction budget costs a few ms), or evaluate used far more CPU than
  ** the clock allows (work outside it). */
  if (time_is_crash && ((elapsed >= FUZZ_TIME_MS / 4 && strstr(r.error, TIME_LIMIT_TEXT)) ||
                        elapsed >= 5 * FUZZ_TIME_MS)) {
    fprintf(stderr, "fuzz_script: evaluate took %llu ms of CPU (the clock allows %u): %s\n",
            (unsigned long long)elapsed, FUZZ_TIME_MS, r.error[0] ? r.error : "no error");
    abort();
  }
  REQUIRE(st == PSOC_OK || st == PSOC_ERR_INVALID || st == PSOC_ERR_NOMEM);
  REQUIRE(is_terminated(r.error, sizeof r.error));
  if (st != PSOC_OK) {
    REQUIRE(r.count == 0 && r.pipelines == NULL);
    REQUIRE(r.error[0] != '\0');
  } else {
    REQUIRE(r.error[0] == '\0');
    REQUIRE(r.count == 0 || r.pipelines != NULL);
  }
  check_report(&r, st);
  for (i = 0; i < r.count; i++) {
    const psol_pipeline *p = &r.pipelines[i];
    REQUIRE(p->name != NULL && p->stream != NULL);
    REQUIRE(p->kind == PSOC_KIND_GRAPHICS || p->kind == PSOC_KIND_COMPUTE ||
            p->kind == PSOC_KIND_MESH);
    check_stream(p, opts.profile, opts.check_flags);
  }
  *count = r.count;
  psol_result_free(&r);
  REQUIRE(r.count == 0 && r.pipelines == NULL);
  return st;
}

/* ------------------------------------------------------------------ */
/* 3. Result allocation through psol_options.alloc, failing once        */
/* ------------------------------------------------------------------ */

typedef struct counting {
  size_t calls;   /* allocation requests (nsize > 0) */
  size_t fail_at; /* this request fails (1-based); 0 = none */
  size_t blocks;  /* live blocks */
  size_t bytes;   /* live bytes, by the sizes the library reports */
} counting;

static void *count_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counting *c = ud;
  void *q;
  if (nsize == 0) {
    if (ptr) {
      REQUIRE(c->blocks > 0 && c->bytes >= osize);
      c->blocks--;
      c->bytes -= osize;
      free(ptr);
    }
    return NULL;
  }
  if (++c->calls == c->fail_at) return NULL;
  q = realloc(ptr, nsize);
  if (!q) return NULL;
  if (ptr) {
    REQUIRE(c->bytes >= osize);
    c->bytes -= osize;
  } else {
    c->blocks++;
  }
  c->bytes += nsize;
  return q;
}

/* Evaluate with a counting allocator whose 'fail_at'-th request fails;
** returns how many requests it made. Whatever fails, every block comes
** back, freed with the size it was allocated with. */
static size_t run_alloc(const uint8_t *data, size_t size, size_t fail_at, size_t want) {
  psol_options opts;
  psoc_allocator a;
  counting c;
  psol_result r;
  sink log = { 0, 0 };
  psoc_status st;
  size_t i;
  memset(&c, 0, sizeof c);
  c.fail_at = fail_at;
  a.fn = count_alloc;
  a.ud = &c;
  eval_options(&opts, &log, size);
  opts.alloc = &a;
  st = psol_evaluate_string(&opts, "=fuzz", (const char *)data, size, &r);
  REQUIRE(is_terminated(r.error, sizeof r.error));
  if (!fail_at || fail_at > c.calls) {
    /* nothing failed: the same verdict as with malloc */
    REQUIRE(st == PSOC_OK && r.count == want);
  } else {
    REQUIRE(st == PSOC_OK || st == PSOC_ERR_NOMEM || st == PSOC_ERR_INVALID);
  }
  if (st != PSOC_OK) REQUIRE(r.count == 0 && r.pipelines == NULL && r.error[0] != '\0');
  for (i = 0; i < r.count; i++) {
    REQUIRE(r.pipelines[i].name != NULL && r.pipelines[i].stream != NULL);
    REQUIRE(psoc_stream_size(r.pipelines[i].stream) > 0);
  }
  psol_result_free(&r);
  if (c.blocks != 0 || (alloc_sizes && c.bytes != 0)) {
    fprintf(stderr, "fuzz_script: with request %zu of %zu failing (status %s: %s), %zu block(s) "
            "and %zu byte(s) were not given back\n", fail_at, c.calls, psoc_status_name(st),
            r.error, c.blocks, c.bytes);
    abort();
  }
  return c.calls;
}

/* ------------------------------------------------------------------ */
/* 2. The lower-level API and the pipeline methods                      */
/* ------------------------------------------------------------------ */

static const char *const METHODS[] = { "bytes", "size",          "hash", "check",
                                       "valid", "dump",          "explain",
                                       "explain_table", "json",  "table",
                                       "subobjects",    "diff" };

/* Upvalue 1: method name. Arguments: pipeline [, other]. */
static int call_method(lua_State *L) {
  int nargs = lua_gettop(L);
  lua_getfield(L, 1, lua_tostring(L, lua_upvalueindex(1)));
  lua_insert(L, 1);
  lua_call(L, nargs, 1);
  return 1;
}

static void drive_pipeline(lua_State *L, int idx, int first) {
  const pso_pipeline *pp = pso_topipeline(L, idx);
  const psoc_stream *s;
  char source[256], hex[33];
  size_t i;
  int line, top = lua_gettop(L);
  REQUIRE(pp != NULL);
  s = pso_pipeline_stream(pp);
  REQUIRE(s != NULL);
  line = psol_pipeline_where(L, idx, source, sizeof source);
  REQUIRE(line >= 0 && is_terminated(source, sizeof source));
  psoc_hash_hex(pso_pipeline_hash(pp), hex);
  for (i = 0; i < sizeof METHODS / sizeof METHODS[0]; i++) {
    int rc, nargs = 1;
    lua_pushstring(L, METHODS[i]);
    lua_pushcclosure(L, call_method, 1);
    lua_pushvalue(L, idx);
    if (strcmp(METHODS[i], "diff") == 0) {
      lua_pushvalue(L, first);
      nargs = 2;
    }
    rc = psol_pcall(L, nargs, 1);
    if (rc != LUA_OK) {
      char msg[512];
      psol_error_message(L, -1, msg, sizeof msg);
      REQUIRE(is_terminated(msg, sizeof msg));
      /* Only the limits can stop a method on a pipeline: the state's
      ** budget was used up by the script, or the method's own work. */
      if (!strstr(msg, "exceeded")) {
        fprintf(stderr, "fuzz_script: p:%s() failed: %s\n", METHODS[i], msg);
        abort();
      }
    } else if (strcmp(METHODS[i], "json") == 0) {
      size_t n;
      const char *js = lua_tolstring(L, -1, &n);
      REQUIRE(js != NULL);
      if (!json_valid(js, n)) {
        fprintf(stderr, "fuzz_script: p:json() is not valid JSON: %.*s\n", (int)(n > 400 ? 400 : n),
                js);
        abort();
      }
    } else if (strcmp(METHODS[i], "hash") == 0) {
      const char *h = lua_tostring(L, -1);
      REQUIRE(h != NULL && strcmp(h, hex) == 0);
    } else if (strcmp(METHODS[i], "bytes") == 0) {
      size_t n;
      const char *b = lua_tolstring(L, -1, &n);
      REQUIRE(b != NULL && n == psoc_stream_size(s) && memcmp(b, psoc_stream_data(s), n) == 0);
    } else if (strcmp(METHODS[i], "valid") == 0) {
      /* p:valid() agrees with psoc_check under the flags the module checks
      ** with (PSO_PIPELINE_CHECK_FLAGS: it built the layout arrays, so they
      ** are read too) */
      REQUIRE(lua_toboolean(L, -1) ==
              (recheck(s, NULL, PSO_PIPELINE_CHECK_FLAGS, NULL) == PSOC_OK));
    }
    lua_settop(L, top);
  }
}

static int run_lowlevel(const uint8_t *data, size_t size, size_t *count, uint64_t *elapsed) {
  psol_options opts;
  sink log = { 0, 0 };
  char err[256];
  lua_State *L;
  int rc, res, first = 0;
  size_t n = 0, i, driven = 0;
  base_options(&opts, &log);
  L = psol_newstate(&opts, err, sizeof err);
  REQUIRE(L != NULL);
  *elapsed = now_ms();
  rc = psol_dostring(L, "=fuzz", (const char *)data, size, 1);
  *elapsed = now_ms() - *elapsed;
  if (rc != LUA_OK) {
    char msg[1024];
    psol_error_message(L, -1, msg, sizeof msg);
    REQUIRE(is_terminated(msg, sizeof msg) && msg[0] != '\0');
    if (verbose) fprintf(stderr, "fuzz_script: psol_dostring: %s\n", msg);
    psol_close(L);
    *count = 0;
    return rc;
  }
  REQUIRE(lua_gettop(L) >= 1);
  res = lua_gettop(L);
  if (pso_topipeline(L, res)) {
    drive_pipeline(L, res, res);
    n = 1;
  } else if (lua_type(L, res) == LUA_TTABLE) {
    n = (size_t)lua_rawlen(L, res);
    for (i = 1; i <= n && driven < FUZZ_DRIVEN; i++) {
      lua_rawgeti(L, res, (int)i);
      if (pso_topipeline(L, -1)) {
        if (!first) first = lua_gettop(L);
        drive_pipeline(L, lua_gettop(L), first);
        driven++;
      }
      if (lua_gettop(L) != first) lua_pop(L, 1);
    }
  }
  REQUIRE(psol_instructions(L) > 0);
  psol_close(L);
  *count = n;
  return LUA_OK;
}

/* ------------------------------------------------------------------ */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t n_eval = 0, n_low = 0;
  uint64_t low_ms = 0;
  psoc_status st;
  int rc;
  if (time_is_crash < 0) time_is_crash = env_flag("PSOC_FUZZ_TIME_IS_CRASH");
  if (json_utf8 < 0) json_utf8 = env_flag_on("PSOC_FUZZ_JSON_UTF8");
  if (verbose < 0) verbose = env_flag("PSOC_FUZZ_VERBOSE");
  if (alloc_sizes < 0) alloc_sizes = env_flag_on("PSOC_FUZZ_ALLOC_SIZES");
  if (size > 64 * 1024) return 0; /* scripts are small; keep runs short */
  st = run_evaluate(data, size, &n_eval);
  rc = run_lowlevel(data, size, &n_low, &low_ms);
  /* A script the embedding API accepted also runs through the lower level
  ** API and returns as many values in its list. (The converse need not
  ** hold: evaluate also rejects results that fail psoc_check.) */
  if (st == PSOC_OK && rc != LUA_OK && low_ms < FUZZ_TIME_MS) {
    /* The same script with the same budget and memory limit; only the
    ** clock (on a loaded machine) may stop one run and not the other. */
    fprintf(stderr, "fuzz_script: evaluate accepted the script, psol_dostring did not\n");
    abort();
  }
  if (st == PSOC_OK) REQUIRE(n_low == n_eval || n_eval == 0);
  if (st == PSOC_OK && n_eval > 0) {
    /* The same result through a counting allocator, then with one of its
    ** requests failing (which one follows from the input). */
    size_t calls = run_alloc(data, size, 0, n_eval);
    REQUIRE(calls > 0);
    run_alloc(data, size, 1 + (size_t)((size * 2654435761u) % calls), n_eval);
  }
  return 0;
}
