/*
** pso_test.h: the test API of `psoc test` in a sandboxed state (psol.h).
**
**   lua_State *L = psol_newstate(&opts, err, sizeof err);
**   psot_open(L, &cfg);                   -- describe, it, expect, materials
**   psot_dofile(L, "x_test.lua");         -- collects the tests
**   for (i = 0; i < psot_count(L); i++) psot_run(L, i, &result);
**   psol_close(L);
**
** The Lua half (describe/it/expect and the materials helpers) lives in
** testlib.lua, compiled into testlib_lua.c; the C half (pso_test.c) walks
** the stack for file:line and tracebacks, resolves material scripts inside
** the material roots and evaluates each in a fresh sandboxed state of its
** own (its pipelines are copied into the test's state), keeps the verdicts
** of expectations out of the test's reach, and runs each test under its
** own instruction budget, which also pays for the materials it evaluates.
** See docs/testing.md for the API a test sees.
*/
#ifndef PSO_TEST_H
#define PSO_TEST_H

#include <stddef.h>

#include "lua.h"
#include "psol.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct psot_config {
  const char *file;               /* the test file, as shown in messages */
  /* Directories relative names (materials.load, materials.each) are tried
  ** against, in order, and that resolved files must lie inside: give the
  ** same list as psol_options.roots (the test file's directory first). */
  const char *const *search;
  size_t search_count;
  /* The material roots materials.each()/all()/files() use when neither
  ** an argument nor materials.root names a directory (psoc test --root). */
  const char *const *roots;
  size_t root_count;
  /* The options the test's state was made with (psol_newstate): every
  ** material script runs in a fresh state made with a copy of them (roots:
  ** 'search'; print() goes to their log). NULL: the defaults. */
  const psol_options *options;
  size_t max_tests;  /* tests one file may declare; 0 = PSOT_DEFAULT_MAX_TESTS */
  /* Warnings count as errors in the test API's checks (to_be_valid,
  ** to_fail_with, to_report, materials.check): psoc test --werror. */
  int werror;
} psot_config;

#define PSOT_DEFAULT_MAX_TESTS 10000

/* Install the test API as globals (describe, it, before_each, after_each,
** expect, materials, pso). Returns LUA_OK, or an error status with the
** message on the stack. Call once per state, before loading test files. */
int psot_open(lua_State *L, const psot_config *cfg);

typedef enum psot_status { PSOT_PASS = 0, PSOT_FAIL = 1, PSOT_ERROR = 2 } psot_status;

typedef struct psot_result {
  psot_status status;
  const char *name;      /* "describe > ... > it" */
  const char *defined;   /* "file:line" of the it() call */
  const char *where;     /* "file:line" of the failing expect or the error, or "" */
  const char *message;   /* what went wrong, "" when passed */
  const char *traceback; /* error frames in test files, one per line, or "" */
  uint64_t instructions; /* what the test used, its materials included */
} psot_result;

/* psol_dofile(L, path, 0) for a test file, and an error (status
** LUA_ERRRUN, the message on the stack) when an expectation outside any
** test failed, even if the file caught its error. */
int psot_dofile(lua_State *L, const char *path);
/* The number of tests the loaded file(s) declared (at most max_tests). */
size_t psot_count(lua_State *L);
/* Name and definition of test i (0-based), without running it. */
void psot_info(lua_State *L, size_t i, const char **name, const char **defined);
/* Run test i: its before_each hooks, the test, its after_each hooks, with a
** fresh instruction budget. A failed expectation is PSOT_FAIL, any other
** error (including an exceeded budget or memory limit) PSOT_ERROR. The
** strings stay valid until the next psot_run or psol_close. */
void psot_run(lua_State *L, size_t i, psot_result *out);
/* Instructions the last top-level call (psol_dofile of the test file, or
** psot_run) used, the materials it evaluated included. */
uint64_t psot_instructions(lua_State *L);
/* Split an error left on the stack at idx by psol_dofile/psol_pcall into
** the message and a traceback holding only frames of Lua files (no [C]
** frames, none of the test library). Both are pushed (message, then
** traceback); returns the message. */
const char *psot_push_error(lua_State *L, int idx);

#ifdef __cplusplus
}
#endif

#endif
