/*
** pso_test.c: the C half of the test API (pso_test.h): stack walks for
** the file:line of a failed expectation and for trimmed tracebacks,
** material scripts resolved inside the material roots and evaluated each in
** a fresh sandboxed state of its own (their pipelines copied into the test's
** state), checks under a capability profile, expectation verdicts kept where
** test code cannot reach them, and the per-test runner (hooks, test, hooks;
** each test under a fresh instruction budget that also pays for the
** materials it evaluates).
** The Lua half is testlib.lua (compiled into testlib_lua.c).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "compat.h"
#include "confine.h"
#include "pso_module.h"
#include "pso_test.h"
#include "psoc.h"
#include "psol.h"

extern const char psot_testlib_source[];
extern const size_t psot_testlib_size;

#define TESTLIB_CHUNK "=psoc test"
#define REG_T "psoc.test.T"
#define REG_RESULT "psoc.test.result"
#define REG_CTX "psoc.test.context"
#define REG_VERDICT "psoc.test.verdict" /* the first failed expectation of the test */
#define REG_CACHE "psoc.test.materials" /* real path -> list of pipelines, or false */
#define REG_WHERE "psoc.test.where"     /* imported pipeline -> "file:line" (weak keys) */
#define MESSAGE_MAX 8192                /* bytes of a material's error kept */
#define STATE_COST 20000u /* instructions charged for making a material's state */
#define RESOLVE_COST 1000u /* ... for resolving a path (realpath, stat) */
#define CTX_MT "psoc.test.ctx"
#define PATHS_MT "psoc.test.paths"
#define DIAGS_MT "psoc.test.diags"
#define MSTATE_MT "psoc.test.material_state"
#define TRACEBACK_MARK "\nstack traceback:"
#define TRACE_HEAD 10 /* frames shown before and after a cut */
#define TRACE_TAIL 4
#define SCAN_DEPTH 24
#define SCAN_FILES 20000

/* ------------------------------------------------------------------ */
/* Per-state context                                                    */
/* ------------------------------------------------------------------ */

typedef psoc_confine_root tpath; /* shown (as given) and real (canonical) */

typedef struct tctx {
  tpath *search;
  size_t nsearch;
  char **roots; /* realpaths of the --root directories */
  size_t nroots;
  char *cwd; /* realpath of the current directory, or NULL */
  /* Material states: the options of the test's state, roots = search. */
  psol_options mopts;
  const char **mroots;
  uint64_t budget;    /* instructions per test */
  uint64_t charged;   /* instructions the current test's materials used */
  int limit_hit;      /* a material spent the rest of the test's budget */
  int werror;         /* warnings count as errors in the test API's checks */
  size_t max_tests;   /* per file */
} tctx;

static void ctx_free(tctx *c) {
  size_t i;
  for (i = 0; c->search && i < c->nsearch; i++) psoc_confine_root_free(&c->search[i]);
  for (i = 0; c->roots && i < c->nroots; i++) free(c->roots[i]);
  free(c->search);
  free(c->roots);
  free(c->mroots);
  free(c->cwd);
  memset(c, 0, sizeof *c);
}

static int ctx_gc(lua_State *L) {
  tctx *c = (tctx *)luaL_checkudata(L, 1, CTX_MT);
  ctx_free(c);
  return 0;
}

static tctx *ctx_of(lua_State *L) { return (tctx *)lua_touserdata(L, lua_upvalueindex(1)); }

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = (char *)malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

/* ------------------------------------------------------------------ */
/* Stack walks                                                          */
/* ------------------------------------------------------------------ */

/* A frame of a Lua file (not C, not the test library, not a string). */
static int file_frame(const lua_Debug *ar) { return ar->source && ar->source[0] == '@'; }

/* Push "file:line" of the innermost file frame from 'level' up, or "". */
static void push_where(lua_State *L, int level) {
  lua_Debug ar;
  for (; lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sl", &ar)) continue;
    if (file_frame(&ar) && ar.currentline > 0) {
      lua_pushfstring(L, "%s:%d", ar.source + 1, ar.currentline);
      return;
    }
  }
  lua_pushliteral(L, "");
}

static void frame_text(char *out, size_t n, lua_Debug *ar) {
  const char *src = ar->source + 1;
  if (ar->namewhat && *ar->namewhat && ar->name)
    snprintf(out, n, "%s:%d: in function '%s'", src, ar->currentline, ar->name);
  else if (ar->what && *ar->what == 'm')
    snprintf(out, n, "%s:%d: in main chunk", src, ar->currentline);
  else
    snprintf(out, n, "%s:%d: in function <%s:%d>", src, ar->currentline, src, ar->linedefined);
}

/* Push the file frames from 'level' up, one per line, the middle of a deep
** stack cut out. */
static void push_traceback(lua_State *L, int level) {
  lua_Debug ar;
  char text[4096], line[PSOC_CONFINE_PATH_MAX + 128];
  size_t len = 0;
  int total = 0, shown = 0, lv;
  for (lv = level; lua_getstack(L, lv, &ar); lv++)
    if (lua_getinfo(L, "S", &ar) && file_frame(&ar)) total++;
  text[0] = '\0';
  for (lv = level; lua_getstack(L, lv, &ar); lv++) {
    int w;
    if (!lua_getinfo(L, "nSl", &ar) || !file_frame(&ar)) continue;
    shown++;
    if (total > TRACE_HEAD + TRACE_TAIL && shown > TRACE_HEAD && shown <= total - TRACE_TAIL) {
      if (shown == TRACE_HEAD + 1)
        snprintf(line, sizeof line, "... (%d more frames)", total - TRACE_HEAD - TRACE_TAIL);
      else
        continue;
    } else {
      frame_text(line, sizeof line, &ar);
    }
    w = snprintf(text + len, sizeof text - len, "%s%s", len ? "\n" : "", line);
    if (w < 0 || (size_t)w >= sizeof text - len) break;
    len += (size_t)w;
  }
  lua_pushstring(L, text);
}

/* C.where(): "file:line" of the innermost test-file frame. */
static int t_where(lua_State *L) {
  push_where(L, 1);
  return 1;
}

/* ------------------------------------------------------------------ */
/* Errors inside tests                                                  */
/* ------------------------------------------------------------------ */

/* Raw reads only: no metamethod may run once a limit has been hit. */
static int raw_field(lua_State *L, int idx, const char *key) {
  idx = lua_absindex(L, idx);
  lua_pushstring(L, key);
  return pso_compat_rawget(L, idx);
}

static int is_failure(lua_State *L, int idx) {
  int r;
  if (lua_type(L, idx) != LUA_TTABLE) return 0;
  raw_field(L, idx, "psoc_failure");
  r = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return r;
}

/* Message handler of a test's call: failures pass through; any other
** error becomes { message, where, traceback } while the stack is there. */
static int t_msgh(lua_State *L) {
  const char *msg;
  if (is_failure(L, 1)) {
    lua_settop(L, 1);
    return 1;
  }
  msg = lua_tostring(L, 1);
  if (!msg) {
    if (lua_type(L, 1) != LUA_TNIL && luaL_callmeta(L, 1, "__tostring") &&
        lua_type(L, -1) == LUA_TSTRING)
      msg = lua_tostring(L, -1);
    else
      msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  lua_createtable(L, 0, 3);
  lua_pushstring(L, msg);
  lua_setfield(L, -2, "message");
  push_where(L, 1);
  lua_setfield(L, -2, "where");
  push_traceback(L, 1);
  lua_setfield(L, -2, "traceback");
  return 1;
}

static int contains(const char *s, const char *what) { return s && strstr(s, what) != NULL; }

/* The sandbox's limits; some Luas report a refused allocation as a plain
** "not enough memory ..." runtime error. */
static int is_limit_error(const char *msg) {
  return contains(msg, "instruction budget exceeded") || contains(msg, "memory limit exceeded") ||
         contains(msg, "not enough memory");
}

/* Fill the result table at 'result' from the error value at 'err': the
** status ("fail" or "error"), the message (after 'phase', e.g.
** "before_each: "), where and the traceback. Raw reads only. */
static void record_error(lua_State *L, int result, int err, const char *status, const char *phase) {
  const char *msg;
  int top = lua_gettop(L);
  lua_pushstring(L, status);
  lua_setfield(L, result, "status");
  if (lua_type(L, err) == LUA_TTABLE) {
    raw_field(L, err, "message");
    msg = lua_tostring(L, -1);
    if (phase) lua_pushfstring(L, "%s: %s", phase, msg ? msg : "?");
    else lua_pushstring(L, msg ? msg : "?");
    lua_setfield(L, result, "message");
    lua_pop(L, 1);
    raw_field(L, err, "where");
    if (lua_type(L, -1) != LUA_TSTRING) {
      lua_pop(L, 1);
      lua_pushliteral(L, "");
    }
    lua_setfield(L, result, "where");
    raw_field(L, err, "traceback");
    if (lua_type(L, -1) != LUA_TSTRING) {
      lua_pop(L, 1);
      lua_pushliteral(L, "");
    }
    lua_setfield(L, result, "traceback");
  } else {
    msg = lua_tostring(L, err);
    lua_pushfstring(L, "%s%s%s", phase ? phase : "", phase ? ": " : "",
                    msg ? msg : "(error object is not a string)");
    lua_setfield(L, result, "message");
  }
  lua_settop(L, top);
}

static tctx *registry_ctx(lua_State *L) {
  tctx *c;
  lua_getfield(L, LUA_REGISTRYINDEX, REG_CTX);
  c = (tctx *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  return c;
}

/* Push the recorded verdict (the first failed expectation) and clear it;
** returns 1, or 0 with nothing pushed when there is none. */
static int take_verdict(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, REG_VERDICT);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, REG_VERDICT);
  return 1;
}

/* Runs under psol_pcall (a fresh budget): test i's plan, each function in
** its own protected call. Returns the result table. A failed expectation
** fails the test even when the test caught its error: the verdict is kept
** in the registry, out of the test's reach. */
static int t_run(lua_State *L) {
  lua_Integer i = lua_tointeger(L, 1);
  tctx *c = registry_ctx(L);
  int msgh, list, result, n, k, ti, failed = 0;
  lua_settop(L, 1);
  lua_pushcfunction(L, t_msgh);
  msgh = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, REG_T);
  lua_getfield(L, -1, "plan");
  lua_pushinteger(L, i + 1);
  lua_call(L, 1, 2);
  ti = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  list = lua_gettop(L);
  lua_createtable(L, 0, 4);
  result = lua_gettop(L);
  lua_pushliteral(L, "pass");
  lua_setfield(L, result, "status");
  n = (int)lua_rawlen(L, list);
  for (k = 1; k <= n; k++) {
    int status, limit = 0, err = 0;
    const char *phase = k < ti ? "before_each" : k > ti ? "after_each" : NULL;
    if (failed && k <= ti) continue; /* skip what is left before the test */
    lua_rawgeti(L, list, k);
    status = lua_pcall(L, 0, 0, msgh);
    if (status != LUA_OK) {
      const char *msg;
      if (status != LUA_ERRRUN || lua_type(L, -1) != LUA_TTABLE)
        return lua_error(L); /* memory, or the handler failed: psol names the limit */
      err = lua_gettop(L);
      raw_field(L, err, "message");
      msg = lua_tostring(L, -1);
      limit = is_limit_error(msg);
      if (contains(msg, "not enough memory") && !contains(msg, "memory limit exceeded")) {
        lua_pushfstring(L, "%s (memory limit exceeded)", msg);
        lua_setfield(L, err, "message");
      }
      lua_pop(L, 1);
    }
    if (c && c->limit_hit && !limit) { /* a material spent the budget; the test caught it */
      char text[96];
      snprintf(text, sizeof text, "instruction budget exceeded (%llu instructions, materials "
               "included)", (unsigned long long)c->budget);
      lua_createtable(L, 0, 2);
      lua_pushstring(L, text);
      lua_setfield(L, -2, "message");
      err = lua_gettop(L);
      limit = 1;
    }
    if (take_verdict(L)) {
      if (!failed) record_error(L, result, lua_gettop(L), "fail", phase);
      failed = 1;
    }
    if (err) {
      if (!failed) record_error(L, result, err, "error", phase);
      failed = 1;
    }
    lua_settop(L, result);
    if (limit) break; /* every further instruction fails */
  }
  lua_settop(L, result);
  return 1;
}

/* ------------------------------------------------------------------ */
/* The runner's C interface                                             */
/* ------------------------------------------------------------------ */

/* Push test i's record (T.tests[i + 1]), or nil. */
static void push_test(lua_State *L, size_t i) {
  lua_getfield(L, LUA_REGISTRYINDEX, REG_T);
  if (lua_type(L, -1) != LUA_TTABLE) return;
  lua_getfield(L, -1, "tests");
  lua_remove(L, -2);
  if (lua_type(L, -1) != LUA_TTABLE) return;
  lua_rawgeti(L, -1, (int)i + 1);
  lua_remove(L, -2);
}

size_t psot_count(lua_State *L) {
  size_t n = 0;
  tctx *c = registry_ctx(L);
  lua_getfield(L, LUA_REGISTRYINDEX, REG_T);
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_getfield(L, -1, "tests");
    if (lua_type(L, -1) == LUA_TTABLE) n = (size_t)lua_rawlen(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return c && n > c->max_tests ? c->max_tests : n;
}

static const char *field_string(lua_State *L, int idx, const char *key) {
  const char *s;
  lua_getfield(L, idx, key);
  s = lua_tostring(L, -1); /* anchored by the table */
  lua_pop(L, 1);
  return s ? s : "";
}

void psot_info(lua_State *L, size_t i, const char **name, const char **defined) {
  *name = *defined = "";
  push_test(L, i);
  if (lua_type(L, -1) == LUA_TTABLE) {
    *name = field_string(L, -1, "name");
    *defined = field_string(L, -1, "defined");
  }
  lua_pop(L, 1);
}

/* Does [s, end) start with 'prefix'? */
static int starts_with(const char *s, const char *end, const char *prefix) {
  size_t n = strlen(prefix);
  return (size_t)(end - s) >= n && memcmp(s, prefix, n) == 0;
}

/* Split a psol error message "MSG\nstack traceback:\n\t..." into the
** message and the file frames of the traceback. */
static void split_error(lua_State *L, const char *msg) {
  const char *cut = strstr(msg, TRACEBACK_MARK), *p;
  luaL_Buffer b;
  int first = 1;
  lua_pushlstring(L, msg, cut ? (size_t)(cut - msg) : strlen(msg));
  luaL_buffinit(L, &b);
  if (cut) {
    const char *end;
    for (p = cut + strlen(TRACEBACK_MARK); *p; p = end) {
      const char *text;
      if (*p == '\n') p++;
      end = strchr(p, '\n');
      if (!end) end = p + strlen(p);
      for (text = p; text < end && (*text == '\t' || *text == ' ');) text++;
      if (text < end && text[0] != '[' && text[0] != '(' && !starts_with(text, end, "...\t") &&
          !starts_with(text, end, &TESTLIB_CHUNK[1])) {
        if (!first) luaL_addchar(&b, '\n');
        luaL_addlstring(&b, text, (size_t)(end - text));
        first = 0;
      }
    }
  }
  luaL_pushresult(&b);
}

const char *psot_push_error(lua_State *L, int idx) {
  const char *msg = lua_tostring(L, idx);
  split_error(L, msg ? msg : "(error object is not a string)");
  return lua_tostring(L, -2);
}

/* Protected: a result table for an error the runner itself hit. */
static int t_error_result(lua_State *L) {
  lua_createtable(L, 0, 4);
  lua_pushliteral(L, "error");
  lua_setfield(L, -2, "status");
  psot_push_error(L, 1);
  lua_setfield(L, -3, "traceback");
  lua_setfield(L, -2, "message");
  return 1;
}

int psot_dofile(lua_State *L, const char *path) {
  int status;
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, REG_VERDICT);
  status = psol_dofile(L, path, 0);
  if (status == LUA_OK && take_verdict(L)) { /* failed at the top level, and caught */
    const char *where, *msg;
    raw_field(L, -1, "where");
    raw_field(L, -2, "message");
    where = lua_tostring(L, -2);
    msg = lua_tostring(L, -1);
    lua_pushfstring(L, "an expectation outside any test failed: %s%s%s", where ? where : "",
                    where && *where ? ": " : "", msg ? msg : "?");
    lua_replace(L, -4);
    lua_pop(L, 2);
    status = LUA_ERRRUN;
  }
  return status;
}

uint64_t psot_instructions(lua_State *L) {
  tctx *c = registry_ctx(L);
  return psol_instructions(L) + (c ? c->charged : 0);
}

void psot_run(lua_State *L, size_t i, psot_result *out) {
  int status, top = lua_gettop(L);
  tctx *c = registry_ctx(L);
  memset(out, 0, sizeof *out);
  if (c) {
    c->charged = 0;
    c->limit_hit = 0;
  }
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, REG_VERDICT);
  psot_info(L, i, &out->name, &out->defined);
  out->where = out->message = out->traceback = "";
  lua_pushcfunction(L, t_run);
  lua_pushinteger(L, (lua_Integer)i);
  status = psol_pcall(L, 1, 1);
  if (status != LUA_OK) {
    lua_pushcfunction(L, t_error_result);
    lua_insert(L, -2);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
      lua_settop(L, top);
      out->status = PSOT_ERROR;
      out->message = "not enough memory";
      out->instructions = psot_instructions(L);
      return;
    }
  }
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, REG_RESULT); /* anchors the strings */
  {
    const char *s = field_string(L, -1, "status");
    out->status = strcmp(s, "pass") == 0 ? PSOT_PASS : strcmp(s, "fail") == 0 ? PSOT_FAIL
                                                                              : PSOT_ERROR;
  }
  out->message = field_string(L, -1, "message");
  out->where = field_string(L, -1, "where");
  out->traceback = field_string(L, -1, "traceback");
  lua_settop(L, top);
  out->instructions = psot_instructions(L);
  /* A test stopped by the memory limit leaves its garbage behind: collect
  ** it now, so that the next test starts with the memory free again. */
  if (out->status == PSOT_ERROR) lua_gc(L, LUA_GCCOLLECT, 0);
}

/* ------------------------------------------------------------------ */
/* Material files                                                       */
/* ------------------------------------------------------------------ */

/* The path to show for a real path: relative to the current directory
** when inside it. */
static const char *shown_path(const tctx *c, const char *real) {
  size_t n;
  if (!c->cwd) return real;
  n = strlen(c->cwd);
  if (strcmp(real, c->cwd) == 0) return ".";
  if (n == 1 && c->cwd[0] == '/') return real + 1;
  if (strncmp(real, c->cwd, n) == 0 && real[n] == '/') return real + n + 1;
  return real;
}

/* Charge 'cost' instructions of C work (file system, states) to the running
** test; once its budget is spent, raise the budget error (and keep saying
** so: t_run fails the test even if it caught the error). */
static void charge(lua_State *L, tctx *c, uint64_t cost) {
  char text[32];
  c->charged += cost;
  if (!c->limit_hit && psol_instructions(L) + c->charged <= c->budget) return;
  c->limit_hit = 1;
  snprintf(text, sizeof text, "%llu", (unsigned long long)c->budget);
  luaL_error(L, "instruction budget exceeded (%s instructions, materials included)", text);
}

/* Raise "TEST_FILE:LINE: PREFIX: message" (the prefix is the API
** function, e.g. "materials.load"). */
static int raise_at_test(lua_State *L, const char *prefix, const char *fmt, const char *a,
                         const char *b) {
  push_where(L, 1);
  if (lua_rawlen(L, -1) > 0) lua_pushliteral(L, ": ");
  else lua_pushliteral(L, "");
  lua_pushfstring(L, "%s: ", prefix);
  lua_pushfstring(L, fmt, a, b);
  lua_concat(L, 4);
  return lua_error(L);
}

/* C.resolve(path, "file" | "directory", fname): the real path and the
** path to show, tried against the test file's directory and each root in
** turn; fname names the caller in errors. */
static int t_resolve(lua_State *L) {
  tctx *c = ctx_of(L);
  const char *path = luaL_checkstring(L, 1);
  int want_dir = strcmp(luaL_optstring(L, 2, "file"), "directory") == 0;
  const char *fname = luaL_optstring(L, 3, "materials");
  const char *what = want_dir ? "directory" : "file";
  char cand[PSOC_CONFINE_PATH_MAX], real[PSOC_CONFINE_PATH_MAX];
  luaL_Buffer tried;
  size_t i, ncand = path[0] == '/' ? 1 : c->nsearch;
  int escaped = 0, wrong = 0, ntried = 0;
  if (!*path) return raise_at_test(L, fname, "empty %s name%s", what, "");
  if (strlen(path) >= PSOC_CONFINE_PATH_MAX)
    return raise_at_test(L, fname, "%s name too long%s", what, "");
  charge(L, c, RESOLVE_COST * (uint64_t)ncand);
  luaL_buffinit(L, &tried);
  for (i = 0; i < ncand; i++) {
    int r, kind;
    if (path[0] == '/') snprintf(cand, sizeof cand, "%s", path);
    else psoc_confine_join(cand, sizeof cand, c->search[i].real, path);
    /* the sandbox's resolution: nothing outside the roots is looked at */
    r = psoc_confine_resolve(c->search, c->nsearch, cand, real);
    if (r == PSOC_CONFINE_LEAVES) {
      escaped = 1;
      continue;
    }
    if (r != PSOC_CONFINE_FOUND) {
      if (path[0] != '/') psoc_confine_join(cand, sizeof cand, c->search[i].shown, path);
      if (ntried++) luaL_addstring(&tried, ", ");
      luaL_addstring(&tried, cand);
      continue;
    }
    if (psoc_plat_stat(real, &kind, NULL) != 0 ||
        kind != (want_dir ? PSOC_PLAT_DIR : PSOC_PLAT_FILE)) {
      wrong = 1;
      continue;
    }
    luaL_pushresult(&tried);
    lua_pop(L, 1);
    lua_pushstring(L, real);
    lua_pushstring(L, shown_path(c, real));
    return 2;
  }
  luaL_pushresult(&tried);
  if (wrong)
    return raise_at_test(L, fname, "'%s' is not a %s", path, what);
  if (escaped)
    return raise_at_test(L, fname, "'%s' is outside the material roots (give psoc test "
                                   "--root DIR%s)", path, "");
  return raise_at_test(L, fname, "cannot find '%s' (tried %s)", path, lua_tostring(L, -1));
}

static int paths_gc(lua_State *L) {
  psoc_confine_paths *paths = (psoc_confine_paths *)luaL_checkudata(L, 1, PATHS_MT);
  psoc_confine_paths_free(paths);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* C.scan(dir): the sorted *.lua files (not *_test.lua, hidden names
** skipped, symlinked folders not followed) under dir. */
static int t_scan(lua_State *L) {
  const char *dir = luaL_checkstring(L, 1);
  psoc_confine_paths *paths;
  size_t i;
  int e;
  lua_settop(L, 1);
  /* in a userdata: a memory error while they become Lua strings frees them */
  paths = (psoc_confine_paths *)pso_compat_newuserdata(L, sizeof *paths);
  memset(paths, 0, sizeof *paths);
  luaL_setmetatable(L, PATHS_MT);
  e = psoc_confine_list(dir, ".lua", "_test.lua", SCAN_DEPTH, SCAN_FILES, paths);
  if (e == E2BIG) return luaL_error(L, "materials: more than %d files under '%s'", SCAN_FILES, dir);
  if (e == ENOMEM) return luaL_error(L, "not enough memory");
  if (e != 0)
    return luaL_error(L, "materials: cannot open directory '%s': %s", dir, psoc_plat_strerror(e));
  charge(L, ctx_of(L), RESOLVE_COST * (1 + (uint64_t)paths->count));
  if (paths->count) qsort(paths->items, paths->count, sizeof *paths->items, cmp_str);
  lua_createtable(L, (int)paths->count, 0);
  for (i = 0; i < paths->count; i++) {
    lua_pushstring(L, paths->items[i]);
    lua_rawseti(L, -2, (int)i + 1);
  }
  return 1;
}

/* Is the result at 'idx' of a material state a material: a pipeline or a
** list of pipelines? 1 yes, 0 no (a module), -1 a bad list (message in
** 'why'). Raw reads only: no code of the material runs any more. */
static int material_result(lua_State *M, int idx, char *why, size_t n) {
  size_t len, i, keys = 0;
  if (pso_topipeline(M, idx)) return 1;
  if (lua_type(M, idx) != LUA_TTABLE || lua_getmetatable(M, idx)) {
    if (lua_type(M, idx) == LUA_TTABLE) lua_pop(M, 1);
    return 0;
  }
  len = (size_t)lua_rawlen(M, idx);
  lua_pushnil(M);
  while (lua_next(M, idx)) {
    lua_pop(M, 1);
    keys++;
  }
  if (len == 0) return keys == 0 ? 1 : 0;
  pso_compat_rawgeti(M, idx, 1);
  if (!pso_topipeline(M, -1)) {
    lua_pop(M, 1);
    return 0;
  }
  lua_pop(M, 1);
  for (i = 1; i <= len; i++) {
    int ok;
    pso_compat_rawgeti(M, idx, (int)i);
    ok = pso_topipeline(M, -1) != NULL;
    if (!ok) snprintf(why, n, "result[%d] is a %s, not a pipeline", (int)i, luaL_typename(M, -1));
    lua_pop(M, 1);
    if (!ok) return -1;
  }
  if (keys != len) {
    snprintf(why, n, "a material returns a pipeline or a list of pipelines; its result also has "
                     "keys other than 1..%d", (int)len);
    return -1;
  }
  if (!pso_check_result(M, idx)) { /* no two pipelines named alike */
    snprintf(why, n, "%s", lua_tostring(M, -1));
    lua_pop(M, 1);
    return -1;
  }
  return 1;
}

/* Copy pipeline 'idx' of material state M into L (pushed), with where it
** was declared. */
static void import_pipeline(lua_State *L, lua_State *M, int idx, int where) {
  pso_pipeline *src = pso_topipeline(M, idx);
  char source[PSOC_CONFINE_PATH_MAX];
  int line = psol_pipeline_where(M, idx, source, sizeof source);
  pso_push_pipeline(L, pso_pipeline_stream(src), pso_pipeline_kind(src), pso_pipeline_name(src),
                    pso_pipeline_root_signature(src));
  if (line > 0 && source[0]) {
    lua_pushvalue(L, -1);
    lua_pushfstring(L, "%s:%d", source, line);
    lua_rawset(L, where);
  }
}

typedef struct mstate {
  lua_State *M;
} mstate;

static int mstate_gc(lua_State *L) {
  mstate *m = (mstate *)luaL_checkudata(L, 1, MSTATE_MT);
  if (m->M) psol_close(m->M);
  m->M = NULL;
  return 0;
}

/* Close the material state and raise the error at the top of L. */
static int close_and_raise(lua_State *L, mstate *m) {
  psol_close(m->M);
  m->M = NULL;
  return lua_error(L);
}

/* C.evaluate(real, shown): the pipelines of a material script (a list), or
** false for a module, evaluated once per test file. Each script runs in a
** fresh sandboxed state of its own (nothing it does reaches the test's
** state or another material) with what is left of the test's instruction
** budget; its pipelines are copied into this state. Its errors are raised
** again here with the material's file:line and without the traceback (and
** kept: loading it again raises the same error without a new state, but
** for a limit). Making the state is charged STATE_COST instructions. */
static int t_evaluate(lua_State *L) {
  tctx *c = ctx_of(L);
  const char *shown = luaL_checkstring(L, 2);
  uint64_t used, left;
  psol_options o;
  mstate *m;
  char err[512], why[160];
  int status, kind, where, list;
  luaL_checkstring(L, 1); /* the real path: the cache key */
  lua_settop(L, 2);
  lua_getfield(L, LUA_REGISTRYINDEX, REG_CACHE); /* 3 */
  lua_pushvalue(L, 1);
  lua_rawget(L, 3);
  if (lua_type(L, -1) == LUA_TSTRING) return lua_error(L); /* it failed before */
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  charge(L, c, STATE_COST); /* C work no hook sees: a loop of loads is not free */
  used = psol_instructions(L) + c->charged;
  left = used < c->budget ? c->budget - used : 1;
  o = c->mopts;
  o.instruction_limit = left;
  m = (mstate *)pso_compat_newuserdata(L, sizeof *m); /* 4: closes M on any error */
  m->M = NULL;
  luaL_setmetatable(L, MSTATE_MT);
  m->M = psol_newstate(&o, err, sizeof err);
  if (!m->M) return luaL_error(L, "%s: %s", shown, err);
  status = psol_dofile(m->M, shown, 1);
  c->charged += psol_instructions(m->M);
  if (status != LUA_OK) {
    const char *msg = lua_tostring(m->M, -1), *cut;
    size_t n;
    if (!msg) msg = "(error object is not a string)";
    cut = strstr(msg, TRACEBACK_MARK);
    n = cut ? (size_t)(cut - msg) : strlen(msg);
    int limit = strstr(msg, "instruction budget exceeded") != NULL;
    if (limit) c->limit_hit = 1; /* the rest of the test's budget is spent */
    if (n > MESSAGE_MAX) {
      lua_pushlstring(L, msg, MESSAGE_MAX);
      lua_pushfstring(L, "... (message truncated (%d bytes))", (int)n);
      lua_concat(L, 2);
    } else {
      lua_pushlstring(L, msg, n);
    }
    if (!limit && !strstr(msg, "limit exceeded") && !strstr(msg, "not enough memory")) {
      lua_pushvalue(L, 1); /* the same error next time, without a new state */
      lua_pushvalue(L, -2);
      lua_rawset(L, 3);
    }
    return close_and_raise(L, m);
  }
  kind = material_result(m->M, lua_gettop(m->M), why, sizeof why);
  if (kind < 0) {
    lua_pushvalue(L, 1);
    lua_pushfstring(L, "%s: %s", shown, why);
    lua_pushvalue(L, -1);
    lua_insert(L, -3);
    lua_rawset(L, 3); /* cached like any error of the script */
    return close_and_raise(L, m);
  }
  lua_getfield(L, LUA_REGISTRYINDEX, REG_WHERE); /* 5 */
  where = lua_gettop(L);
  if (kind == 0) {
    lua_pushboolean(L, 0);
  } else if (pso_topipeline(m->M, -1)) {
    lua_createtable(L, 1, 0);
    list = lua_gettop(L);
    import_pipeline(L, m->M, -1, where);
    lua_rawseti(L, list, 1);
  } else {
    int idx = lua_gettop(m->M), i, n = (int)lua_rawlen(m->M, idx);
    lua_createtable(L, n, 0);
    list = lua_gettop(L);
    for (i = 1; i <= n; i++) {
      pso_compat_rawgeti(m->M, idx, i);
      import_pipeline(L, m->M, -1, where);
      lua_pop(m->M, 1);
      lua_rawseti(L, list, i);
    }
  }
  psol_close(m->M);
  m->M = NULL;
  lua_pushvalue(L, 1);
  lua_pushvalue(L, -2);
  lua_rawset(L, 3);
  return 1;
}

/* C.declared(p): "file:line" of the pso.graphics/mesh/compute/derive call
** that made p, or nil. */
static int t_declared(lua_State *L) {
  char source[PSOC_CONFINE_PATH_MAX];
  int line;
  if (!pso_topipeline(L, 1)) return 0;
  lua_getfield(L, LUA_REGISTRYINDEX, REG_WHERE);
  lua_pushvalue(L, 1);
  lua_rawget(L, -2);
  if (lua_type(L, -1) == LUA_TSTRING) return 1;
  lua_pop(L, 2);
  line = psol_pipeline_where(L, 1, source, sizeof source);
  if (line <= 0 || !source[0]) return 0;
  lua_pushfstring(L, "%s:%d", source, line);
  return 1;
}

/* C.verdict(failure): keep the first failed expectation of the running
** test where test code cannot reach it (a pcall around expect cannot
** undo it). */
static int t_verdict(lua_State *L) {
  lua_settop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, REG_VERDICT);
  if (lua_isnil(L, -1)) {
    lua_pushvalue(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, REG_VERDICT);
  }
  return 0;
}

/* C.max_tests(): the cap on tests per file. */
static int t_max_tests(lua_State *L) {
  pso_compat_pushint(L, (lua_Integer)ctx_of(L)->max_tests);
  return 1;
}

/* C.werror(): do warnings count as errors (psoc test --werror)? */
static int t_werror(lua_State *L) {
  lua_pushboolean(L, ctx_of(L)->werror);
  return 1;
}

static int t_roots(lua_State *L) {
  tctx *c = ctx_of(L);
  size_t i;
  lua_createtable(L, (int)c->nroots, 0);
  for (i = 0; i < c->nroots; i++) {
    lua_pushstring(L, c->roots[i]);
    lua_rawseti(L, -2, (int)i + 1);
  }
  return 1;
}

/* ------------------------------------------------------------------ */
/* Checks under a capability profile                                    */
/* ------------------------------------------------------------------ */

static int diags_gc(lua_State *L) {
  psoc_diags *d = (psoc_diags *)luaL_checkudata(L, 1, DIAGS_MT);
  psoc_diags_free(d);
  memset(d, 0, sizeof *d);
  return 0;
}

/* Under --werror a warning is reported as an error: severity "error",
** "(a warning; an error under --werror)" after its message. */
static void push_diags(lua_State *L, const psoc_diags *diags, int werror) {
  size_t i;
  lua_createtable(L, (int)diags->count, 0);
  for (i = 0; i < diags->count; i++) {
    const psoc_diag *d = &diags->items[i];
    lua_createtable(L, 0, 7);
    int promoted = werror && d->severity == PSOC_SEVERITY_WARNING;
    lua_pushstring(L, psoc_severity_name(promoted ? PSOC_SEVERITY_ERROR : d->severity));
    lua_setfield(L, -2, "severity");
    lua_pushstring(L, psoc_code_name(d->code));
    lua_setfield(L, -2, "code");
    if (d->message_id) {
      lua_pushstring(L, d->message_id);
      lua_setfield(L, -2, "message_id");
    }
    if (d->field[0]) {
      lua_pushstring(L, d->field);
      lua_setfield(L, -2, "field");
    }
    if (promoted) lua_pushfstring(L, "%s (a warning; an error under --werror)", d->message);
    else lua_pushstring(L, d->message);
    lua_setfield(L, -2, "message");
    if (d->subobject >= 0) {
      pso_compat_pushint(L, d->subobject);
      lua_setfield(L, -2, "subobject");
    }
    if (d->offset >= 0) {
      pso_compat_pushint(L, d->offset);
      lua_setfield(L, -2, "offset");
    }
    lua_rawseti(L, -2, (int)i + 1);
  }
}

/* C.check(p [, profile]): p:check() (under the named capability profile
** when given), warnings promoted under --werror. */
static int t_check(lua_State *L) {
  pso_pipeline *p = pso_topipeline(L, 1);
  const char *name = luaL_optstring(L, 2, NULL);
  const psoc_profile *profile = name ? psoc_profile_find(name) : NULL;
  const psoc_stream *stream;
  psoc_check_options opts;
  psoc_allocator alloc;
  psoc_diags *diags;
  if (!p || !(stream = pso_pipeline_stream(p)))
    return raise_at_test(L, "check", "expected a pipeline%s%s", "", "");
  if (name && !profile) {
    luaL_Buffer b;
    size_t i;
    luaL_buffinit(L, &b);
    for (i = 0; psoc_profile_at(i); i++) {
      if (i) luaL_addstring(&b, ", ");
      luaL_addstring(&b, psoc_profile_at(i)->name);
    }
    luaL_pushresult(&b);
    return raise_at_test(L, "check", "unknown profile '%s' (profiles: %s)", name,
                         lua_tostring(L, -1));
  }
  diags = (psoc_diags *)pso_compat_newuserdata(L, sizeof *diags);
  alloc.fn = lua_getallocf(L, &alloc.ud);
  psoc_diags_init(diags, &alloc);
  luaL_setmetatable(L, DIAGS_MT);
  memset(&opts, 0, sizeof opts);
  opts.profile = profile;
  opts.flags = PSO_PIPELINE_CHECK_FLAGS; /* streams the module built */
  psoc_check(psoc_stream_data(stream), psoc_stream_size(stream), &opts, diags);
  push_diags(L, diags, ctx_of(L)->werror);
  return 1;
}

/* C.profiles(): { { name, description }, ... } */
static int t_profiles(lua_State *L) {
  size_t i;
  lua_newtable(L);
  for (i = 0; psoc_profile_at(i); i++) {
    const psoc_profile *p = psoc_profile_at(i);
    lua_createtable(L, 0, 2);
    lua_pushstring(L, p->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, p->description ? p->description : "");
    lua_setfield(L, -2, "description");
    lua_rawseti(L, -2, (int)i + 1);
  }
  return 1;
}

/* ------------------------------------------------------------------ */
/* Opening                                                              */
/* ------------------------------------------------------------------ */

static const luaL_Reg helpers[] = {
  { "where", t_where },       { "resolve", t_resolve },     { "scan", t_scan },
  { "evaluate", t_evaluate }, { "roots", t_roots },         { "check", t_check },
  { "profiles", t_profiles }, { "declared", t_declared },   { "verdict", t_verdict },
  { "max_tests", t_max_tests }, { "werror", t_werror },     { NULL, NULL }
};

static void new_metatable(lua_State *L, const char *name, lua_CFunction gc) {
  luaL_newmetatable(L, name);
  lua_pushcfunction(L, gc);
  lua_setfield(L, -2, "__gc");
  lua_pushliteral(L, "psoc test");
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
}

static int t_open(lua_State *L) {
  const psot_config *cfg = (const psot_config *)lua_touserdata(L, 1);
  tctx *c;
  size_t i;
  char buf[PSOC_CONFINE_PATH_MAX];
  int e;
  new_metatable(L, CTX_MT, ctx_gc);
  new_metatable(L, PATHS_MT, paths_gc);
  new_metatable(L, DIAGS_MT, diags_gc);
  new_metatable(L, MSTATE_MT, mstate_gc);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, REG_CACHE);
  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, REG_WHERE);
  c = (tctx *)pso_compat_newuserdata(L, sizeof *c);
  memset(c, 0, sizeof *c);
  luaL_setmetatable(L, CTX_MT);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, REG_CTX); /* lives as long as the state */
  if (psoc_plat_realpath(".", buf) == 0) c->cwd = dup_str(buf);
  if (cfg->search_count) {
    c->search = (tpath *)calloc(cfg->search_count, sizeof *c->search);
    if (!c->search) return luaL_error(L, "not enough memory");
  }
  for (i = 0; i < cfg->search_count; i++) {
    const char *dir = cfg->search[i] ? cfg->search[i] : "(null)";
    if ((e = psoc_confine_root_init(&c->search[i], dir, 0)) == ENOMEM)
      return luaL_error(L, "not enough memory");
    if (e != 0) return luaL_error(L, "material root '%s': %s", dir, psoc_plat_strerror(e));
    c->nsearch++;
  }
  if (cfg->root_count) {
    c->roots = (char **)calloc(cfg->root_count, sizeof *c->roots);
    if (!c->roots) return luaL_error(L, "not enough memory");
  }
  for (i = 0; i < cfg->root_count; i++) { /* absolute: the test's directory is tried first */
    const char *dir = cfg->roots[i] ? cfg->roots[i] : "(null)";
    if ((e = psoc_plat_realpath(dir, buf)) != 0)
      return luaL_error(L, "material root '%s': %s", dir, psoc_plat_strerror(e));
    c->roots[i] = dup_str(buf);
    c->nroots++;
    if (!c->roots[i]) return luaL_error(L, "not enough memory");
  }
  /* material states: the test state's options, the search list as roots */
  if (cfg->options) c->mopts = *cfg->options;
  else memset(&c->mopts, 0, sizeof c->mopts);
  c->mroots = (const char **)calloc(c->nsearch ? c->nsearch : 1, sizeof *c->mroots);
  if (!c->mroots) return luaL_error(L, "not enough memory");
  for (i = 0; i < c->nsearch; i++) c->mroots[i] = c->search[i].shown;
  c->mopts.roots = c->mroots;
  c->mopts.root_count = c->nsearch;
  c->budget = c->mopts.instruction_limit ? c->mopts.instruction_limit
                                         : PSOL_DEFAULT_INSTRUCTION_LIMIT;
  c->max_tests = cfg->max_tests ? cfg->max_tests : PSOT_DEFAULT_MAX_TESTS;
  c->werror = cfg->werror;
  /* the helpers table C, with the context as upvalue */
  lua_newtable(L);
  lua_pushvalue(L, -2);
  luaL_setfuncs(L, helpers, 1);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "pso");
  lua_call(L, 1, 1);
  lua_pushvalue(L, -1);
  lua_setglobal(L, "pso");
  lua_setfield(L, -2, "pso");
  if (psol_compat_loadtext(L, psot_testlib_source, psot_testlib_size, TESTLIB_CHUNK) != LUA_OK)
    return lua_error(L);
  lua_insert(L, -2);
  lua_call(L, 1, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, REG_T);
  return 0;
}

int psot_open(lua_State *L, const psot_config *cfg) {
  psot_config empty;
  if (!cfg) {
    memset(&empty, 0, sizeof empty);
    cfg = &empty;
  }
  lua_pushcfunction(L, t_open);
  lua_pushlightuserdata(L, (void *)cfg);
  return psol_pcall(L, 1, 0);
}
