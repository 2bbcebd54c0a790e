/*
** sandbox.c: the material evaluator (psol.h). A fresh Lua state per
** evaluation, with only safe libraries, text-only chunks, files confined
** to the material roots, an instruction budget (count hook) and a memory
** limit (the lua_Alloc). Results are copied out of the state.
*/
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "compat.h"
#include "pso_module.h"
#include "psol.h"

#define PSOL_HOOK_STEP 100           /* instructions between count hooks */
#define PSOL_ALLOC_SHIFT 6           /* allocating 64 bytes costs one instruction */
#define PSOL_GRACE ((size_t)1 << 20) /* room for error handling past the limit */
#define PSOL_TRACEBACK "\nstack traceback:"

typedef struct psol_path {
  char *shown; /* as given, for messages and chunk names */
  char *real;  /* realpath, for containment checks */
} psol_path;

/* Which limit a sandboxed call exceeded. */
enum { LIMIT_NONE, LIMIT_INSTRUCTIONS, LIMIT_MEMORY, LIMIT_TIME };

typedef struct psol_state {
  /* memory */
  size_t limit, used;
  int enforce;         /* the limit applies (a sandboxed call is running) */
  lua_Alloc base;      /* LuaJIT fallback: the allocator we wrap, or NULL */
  void *base_ud;
  /* instructions and time */
  uint64_t ins_limit, ins_count;
  uint32_t time_limit_ms;
  uint64_t deadline_ns; /* CLOCK_MONOTONIC */
  int exceeded;        /* LIMIT_*: set once per top-level call */
  int depth;           /* psol_pcall nesting */
  /* files */
  psol_path *roots;
  size_t root_count;
  psol_path implicit;  /* the running script's directory when no roots */
  psol_path script;    /* directory of the running script, or shown NULL */
  const char *chunk;   /* display name of the running top-level chunk */
  /* host callbacks */
  void *(*resolve)(void *ud, const char *name);
  void (*log)(void *ud, const char *text, size_t len);
  void *ud;
} psol_state;

static psol_state *state_of(lua_State *L) {
  void *ud = NULL;
  lua_getallocf(L, &ud);
  return (psol_state *)ud;
}

/* ---- memory ----------------------------------------------------------- */

static void *psol_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  psol_state *S = (psol_state *)ud;
  size_t old = ptr ? osize : 0; /* 5.4 passes a type tag when ptr is NULL */
  void *p;
  if (nsize == 0) {
    if (S->base) S->base(S->base_ud, ptr, osize, 0);
    else free(ptr);
    S->used = old > S->used ? 0 : S->used - old;
    return NULL;
  }
  if (nsize > old && S->enforce) {
    size_t cap = S->limit + (S->exceeded ? PSOL_GRACE : 0);
    size_t grow = nsize - old;
    if (S->used > cap || grow > cap - S->used) {
      if (!S->exceeded) S->exceeded = LIMIT_MEMORY;
      return NULL;
    }
    /* Work done in C scales with the bytes it makes (s .. t, s:upper(),
    ** string.format, ...): charge them, so that a loop over a big string
    ** cannot run long on a few instructions. */
    if (!S->exceeded) {
      S->ins_count += grow >> PSOL_ALLOC_SHIFT;
      if (S->ins_count >= S->ins_limit) {
        S->exceeded = LIMIT_INSTRUCTIONS; /* this allocation fails; the hook reports it */
        return NULL;
      }
    }
  }
  p = S->base ? S->base(S->base_ud, ptr, osize, nsize) : realloc(ptr, nsize);
  if (!p) return NULL;
  S->used = (old > S->used ? 0 : S->used - old) + nsize;
  return p;
}

/* ---- instruction budget ------------------------------------------------ */

static void psol_hook(lua_State *L, lua_Debug *ar);

static uint64_t now_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "instruction budget exceeded (N instructions)" and the like. */
static const char *limit_text(const psol_state *S, char *buf, size_t n) {
  switch (S->exceeded) {
  case LIMIT_MEMORY:
    snprintf(buf, n, "memory limit exceeded (%llu bytes)", (unsigned long long)S->limit);
    break;
  case LIMIT_TIME:
    snprintf(buf, n, "time limit exceeded (%lu ms)", (unsigned long)S->time_limit_ms);
    break;
  default:
    snprintf(buf, n, "instruction budget exceeded (%llu instructions)",
             (unsigned long long)S->ins_limit);
    break;
  }
  return buf;
}

/* Raise the error of an exceeded limit at the running line of the script.
** From now on every instruction fails, so pcall cannot swallow it. */
static int limit_error(lua_State *L, psol_state *S) {
  lua_Debug where;
  char msg[96];
  int level;
  lua_sethook(L, psol_hook, LUA_MASKCOUNT, 1);
  limit_text(S, msg, sizeof msg);
  /* the hooked function or a C function's caller; not the sandbox's own
  ** sort comparator */
  for (level = 0; level < 3 && lua_getstack(L, level, &where); level++)
    if (lua_getinfo(L, "Sl", &where) && where.currentline > 0 &&
        strcmp(where.source, "=(sort)") != 0) {
      lua_pushfstring(L, "%s:%d: %s", where.short_src, where.currentline, msg);
      return lua_error(L);
    }
  lua_pushstring(L, msg);
  return lua_error(L);
}

static void psol_hook(lua_State *L, lua_Debug *ar) {
  psol_state *S = state_of(L);
  (void)ar;
  if (!S->exceeded) {
    S->ins_count += PSOL_HOOK_STEP;
    if (S->ins_count >= S->ins_limit) S->exceeded = LIMIT_INSTRUCTIONS;
    else if (S->deadline_ns && now_ns() > S->deadline_ns) S->exceeded = LIMIT_TIME;
    else return;
  }
  limit_error(L, S);
}

/* Charge 'cost' instructions for work done in C (the pattern matcher in
** sandbox_match.c, table and utf8 functions); raises when the budget is
** spent. */
void psol_charge(lua_State *L, uint64_t cost);
void psol_match_install(lua_State *L, int idx);

void psol_charge(lua_State *L, uint64_t cost) {
  psol_state *S = state_of(L);
  if (S->depth == 0) return; /* not in a sandboxed call */
  if (!S->exceeded) {
    S->ins_count += cost < S->ins_limit ? cost : S->ins_limit;
    if (S->ins_count < S->ins_limit) return;
    S->exceeded = LIMIT_INSTRUCTIONS;
  }
  limit_error(L, S);
}

/* A new top-level call: full budgets. */
static void budget_reset(lua_State *L, psol_state *S) {
  uint64_t now = now_ns();
  S->ins_count = 0;
  S->exceeded = LIMIT_NONE;
  S->deadline_ns = now ? now + (uint64_t)S->time_limit_ms * 1000000u : 0;
  lua_sethook(L, psol_hook, LUA_MASKCOUNT,
              S->ins_limit < PSOL_HOOK_STEP ? (int)S->ins_limit : PSOL_HOOK_STEP);
}

/* ---- paths -------------------------------------------------------------- */

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

static void path_free(psol_path *p) {
  free(p->shown);
  free(p->real);
  p->shown = p->real = NULL;
}

/* 'dir' as given plus its realpath; 0 or an errno value. */
static int path_init_dir(psol_path *p, const char *dir) {
  char buf[PATH_MAX];
  struct stat st;
  p->shown = p->real = NULL;
  if (!realpath(dir, buf)) return errno ? errno : ENOENT;
  if (stat(buf, &st) != 0) return errno ? errno : ENOENT;
  if (!S_ISDIR(st.st_mode)) return ENOTDIR;
  p->shown = dup_str(dir);
  p->real = dup_str(buf);
  if (!p->shown || !p->real) {
    path_free(p);
    return ENOMEM;
  }
  return 0;
}

/* The directory part of 'path' ("." when there is none). */
static int path_init_dirname(psol_path *p, const char *path) {
  const char *slash = strrchr(path, '/');
  char dir[PATH_MAX];
  size_t n;
  if (!slash) return path_init_dir(p, ".");
  n = slash == path ? 1 : (size_t)(slash - path);
  if (n >= sizeof dir) return ENAMETOOLONG;
  memcpy(dir, path, n);
  dir[n] = '\0';
  return path_init_dir(p, dir);
}

static int is_inside(const char *real, const char *root) {
  size_t n = strlen(root);
  if (n == 1 && root[0] == '/') return 1;
  return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

static int inside_roots(const psol_state *S, const char *real) {
  size_t i;
  for (i = 0; i < S->root_count; i++)
    if (is_inside(real, S->roots[i].real)) return 1;
  if (S->root_count == 0 && S->implicit.real) return is_inside(real, S->implicit.real);
  return 0;
}

static void join(char *out, size_t n, const char *dir, const char *name) {
  if (strcmp(dir, ".") == 0) snprintf(out, n, "%s", name);
  else snprintf(out, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
}

typedef struct psol_found {
  char real[PATH_MAX];
  char shown[PATH_MAX];
} psol_found;

/* Resolve 'name' inside the roots: relative names against the running
** script's directory, then each root. Returns 1, or 0 with the reason
** pushed ("outside the material roots", "not found (tried ...)"). */
static int resolve_file(lua_State *L, psol_state *S, const char *name, psol_found *f) {
  const psol_path *bases[64];
  size_t nbases = 0, i;
  int escaped = 0;
  luaL_Buffer tried;
  if (name[0] == '\0') {
    lua_pushliteral(L, "empty file name");
    return 0;
  }
  if (strlen(name) >= PATH_MAX) {
    lua_pushliteral(L, "file name too long");
    return 0;
  }
  if (S->root_count == 0 && !S->implicit.real) {
    lua_pushliteral(L, "no material roots to look in (set psol_options.roots)");
    return 0;
  }
  if (name[0] == '/') {
    if (realpath(name, f->real)) {
      if (inside_roots(S, f->real)) {
        snprintf(f->shown, sizeof f->shown, "%s", name);
        return 1;
      }
      lua_pushliteral(L, "outside the material roots");
    } else {
      lua_pushstring(L, strerror(errno));
    }
    return 0;
  }
  if (S->script.real) bases[nbases++] = &S->script;
  if (S->root_count == 0) bases[nbases++] = &S->implicit;
  for (i = 0; i < S->root_count && nbases < sizeof bases / sizeof bases[0]; i++)
    bases[nbases++] = &S->roots[i];
  luaL_buffinit(L, &tried);
  for (i = 0; i < nbases; i++) {
    char path[PATH_MAX];
    size_t j;
    for (j = 0; j < i; j++) /* the script directory is often a root too */
      if (strcmp(bases[j]->real, bases[i]->real) == 0) break;
    if (j < i) continue;
    join(path, sizeof path, bases[i]->real, name);
    if (!realpath(path, f->real)) {
      join(path, sizeof path, bases[i]->shown, name);
      if (i > 0) luaL_addstring(&tried, ", ");
      luaL_addstring(&tried, path);
      continue;
    }
    if (!inside_roots(S, f->real)) {
      escaped = 1;
      continue;
    }
    join(f->shown, sizeof f->shown, bases[i]->shown, name);
    luaL_pushresult(&tried);
    lua_pop(L, 1);
    return 1;
  }
  luaL_pushresult(&tried);
  if (escaped)
    lua_pushliteral(L, "outside the material roots");
  else
    lua_pushfstring(L, "not found (tried %s)", lua_tostring(L, -1));
  lua_remove(L, -2);
  return 0;
}

/* Push the contents of the regular file 'real'. Returns 1, or 0 with the
** reason pushed. May raise a memory error (nothing is left open then). */
static int push_file(lua_State *L, psol_state *S, const char *real) {
  struct stat st;
  size_t size, got = 0;
  char *buf;
  int fd;
  if (stat(real, &st) != 0) {
    lua_pushstring(L, strerror(errno));
    return 0;
  }
  if (!S_ISREG(st.st_mode)) {
    lua_pushliteral(L, "not a regular file");
    return 0;
  }
  if ((uint64_t)st.st_size > (uint64_t)S->limit) {
    lua_pushliteral(L, "larger than the memory limit");
    return 0;
  }
  size = (size_t)st.st_size;
  buf = (char *)lua_newuserdata(L, size ? size : 1);
  fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    lua_pop(L, 1);
    lua_pushstring(L, strerror(errno));
    return 0;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    lua_pop(L, 1);
    lua_pushliteral(L, "not a regular file");
    return 0;
  }
  while (got < size) {
    ssize_t n = read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      lua_pop(L, 1);
      lua_pushstring(L, strerror(e));
      return 0;
    }
    if (n == 0) break;
    got += (size_t)n;
  }
  close(fd);
  lua_pushlstring(L, buf, got);
  lua_remove(L, -2);
  return 1;
}

/* ---- text-only loading -------------------------------------------------- */

/* Load a text chunk; binary chunks are refused whatever the Lua version.
** Returns a lua_load status with the function or a message pushed. */
static int load_text(lua_State *L, const char *src, size_t len, const char *chunkname) {
  if (len > 0 && src[0] == '\x1b') {
    const char *name = chunkname;
    if (name[0] == '@' || name[0] == '=') lua_pushfstring(L, "%s: ", name + 1);
    else lua_pushliteral(L, "");
    lua_pushliteral(L, "attempt to load a binary chunk (only Lua source is allowed in "
                       "material scripts)");
    lua_concat(L, 2);
    return LUA_ERRSYNTAX;
  }
  pso_remember_source(L, chunkname, src, len); /* key lines in pso errors */
  return psol_compat_loadtext(L, src, len, chunkname);
}

/* ---- the sandboxed base functions ---------------------------------------- */

/* Does 'msg' start with a position ("file:12: ") on its first line? */
static int has_position(const char *msg) {
  const char *p;
  for (p = msg; *p && *p != '\n'; p++) {
    if (p[0] == ':' && p[1] >= '0' && p[1] <= '9') {
      const char *q = p + 1;
      while (*q >= '0' && *q <= '9') q++;
      if (q[0] == ':' && q[1] == ' ') return 1;
    }
  }
  return 0;
}

/* Rethrow the error of a function a wrapper called: at the wrapper's
** caller's line (the wrapped function named its caller, the wrapper), and
** with 'name' for the "?" of argument errors. */
static int rethrow(lua_State *L, const char *name) {
  if (lua_type(L, -1) == LUA_TSTRING) {
    const char *msg = lua_tostring(L, -1), *q = name ? strstr(msg, "'?'") : NULL;
    if (q) {
      lua_pushlstring(L, msg, (size_t)(q - msg));
      lua_pushfstring(L, "'%s'%s", name, q + 3);
      lua_concat(L, 2);
      lua_remove(L, -2);
      msg = lua_tostring(L, -1);
    }
    if (!has_position(msg)) {
      luaL_where(L, 1);
      lua_insert(L, -2);
      lua_concat(L, 2);
    }
  }
  return lua_error(L);
}

/* Call the wrapped function (upvalue 1) with the arguments on the stack;
** its errors are rethrown as if 'name' had raised them at the caller. */
static int call_wrapped(lua_State *L, const char *name, int nresults) {
  int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  if (lua_pcall(L, n, nresults, 0) != LUA_OK) return rethrow(L, name);
  return lua_gettop(L);
}


/* load(chunk [, chunkname [, mode [, env]]]): text chunks only. */
static int sb_load(lua_State *L) {
  size_t len;
  const char *src, *chunkname, *mode = luaL_optstring(L, 3, "bt");
  int has_env = !lua_isnone(L, 4);
  int status;
  if (lua_type(L, 1) == LUA_TSTRING) {
    src = lua_tolstring(L, 1, &len);
    chunkname = luaL_optstring(L, 2, src);
  } else {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    chunkname = luaL_optstring(L, 2, "=(load)");
    lua_settop(L, 4);
    lua_pushliteral(L, ""); /* the pieces so far */
    for (;;) {
      lua_pushvalue(L, 1);
      lua_call(L, 0, 1);
      if (lua_isnil(L, -1) || (lua_type(L, -1) == LUA_TSTRING && lua_rawlen(L, -1) == 0)) {
        lua_pop(L, 1);
        break;
      }
      if (lua_type(L, -1) != LUA_TSTRING)
        return luaL_error(L, "load: reader function must return a string");
      lua_concat(L, 2);
    }
    src = lua_tolstring(L, -1, &len);
  }
  if (strchr(mode, 't') == NULL) {
    lua_pushnil(L);
    lua_pushfstring(L, "attempt to load a text chunk (mode is '%s'); binary chunks are not "
                       "allowed in material scripts", mode);
    return 2;
  }
  status = load_text(L, src, len, chunkname);
  if (status != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  if (has_env) {
    lua_pushvalue(L, 4);
    psol_compat_setenv(L, -2);
  }
  return 1;
}

/* print(...): to options.log, tab-separated, with a newline. */
static int sb_print(lua_State *L) {
  psol_state *S = state_of(L);
  int n = lua_gettop(L), i;
  luaL_Buffer b;
  size_t len;
  const char *text;
  if (!S->log) return 0;
  luaL_buffinit(L, &b);
  for (i = 1; i <= n; i++) {
    if (i > 1) luaL_addchar(&b, '\t');
    luaL_tolstring(L, i, NULL);
    luaL_addvalue(&b);
  }
  luaL_addchar(&b, '\n');
  luaL_pushresult(&b);
  text = lua_tolstring(L, -1, &len);
  S->log(S->ud, text, len);
  return 0;
}

/* collectgarbage("count") only. */
static int sb_collectgarbage(lua_State *L) {
  const char *opt = luaL_optstring(L, 1, "collect");
  if (strcmp(opt, "count") != 0)
    return luaL_error(L, "collectgarbage: only \"count\" is allowed in material scripts "
                         "(got \"%s\")", opt);
  lua_pushnumber(L, (lua_Number)lua_gc(L, LUA_GCCOUNT, 0) +
                        (lua_Number)lua_gc(L, LUA_GCCOUNTB, 0) / 1024.0);
  return 1;
}

/* setmetatable without __gc: finalizers run with hooks off (5.2+), so a
** script could loop in one forever, even inside lua_close. */
static int sb_setmetatable(lua_State *L) {
  if (lua_istable(L, 2)) {
    lua_pushliteral(L, "__gc");
    lua_rawget(L, 2);
    if (!lua_isnil(L, -1))
      return luaL_error(L, "setmetatable: __gc metamethods are not allowed in material scripts");
    lua_pop(L, 1);
  }
  return call_wrapped(L, "setmetatable", LUA_MULTRET);
}

/* getmetatable that hides the metatables of userdata (the module's), whose
** __gc a script could otherwise replace. */
static int sb_getmetatable(lua_State *L) {
  luaL_checkany(L, 1);
  if (lua_type(L, 1) == LUA_TUSERDATA) {
    if (!lua_getmetatable(L, 1)) return 0;
    lua_pushliteral(L, "__metatable");
    lua_rawget(L, -2);
    return 1; /* the protected value, or nil */
  }
  return call_wrapped(L, "getmetatable", LUA_MULTRET);
}

/* string.rep with the result size checked first: some versions loop
** without allocating when the pieces are empty (string.rep("", 1e15)). */
static int sb_string_rep(lua_State *L) {
  psol_state *S = state_of(L);
  size_t l, lsep = 0;
  lua_Number n;
  luaL_checklstring(L, 1, &l);
  n = luaL_checknumber(L, 2);
  if (!lua_isnoneornil(L, 3)) luaL_checklstring(L, 3, &lsep);
  if (n != n) return luaL_argerror(L, 2, "number has no integer representation");
  if (n >= 1) {
    lua_Number total = n * (lua_Number)l + (n - 1) * (lua_Number)lsep;
    if (total <= 0) {
      lua_pushliteral(L, "");
      return 1;
    }
    if (total > (lua_Number)S->limit) {
      char msg[128];
      if (!S->exceeded) S->exceeded = LIMIT_MEMORY;
      snprintf(msg, sizeof msg, "memory limit exceeded (%llu bytes): string.rep would make a "
               "%.0f-byte string", (unsigned long long)S->limit, (double)total);
      return luaL_error(L, "%s", msg);
    }
  }
  return call_wrapped(L, "string.rep", 1);
}

/* ---- declaration sites ----------------------------------------------------- */

/* Registry key of a weak-keyed table: pipeline -> { source, line } of the
** pso.graphics/mesh/compute/derive call that made it. */
static const char where_key = 'w';

/* Wraps a pso declaration function (upvalue 1): calls it, records where
** the pipeline it returns was declared, and keeps its errors at the
** script's line (the module names its caller's line, now this wrapper's). */
static int sb_declare(lua_State *L) {
  int n = lua_gettop(L);
  lua_Debug ar;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  if (lua_pcall(L, n, 1, 0) != LUA_OK) return rethrow(L, NULL);
  if (lua_type(L, -1) == LUA_TUSERDATA && lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) &&
      ar.currentline > 0) {
    lua_pushlightuserdata(L, (void *)&where_key);
    lua_rawget(L, LUA_REGISTRYINDEX);
    if (lua_istable(L, -1)) {
      lua_pushvalue(L, -2);
      lua_createtable(L, 2, 0);
      lua_pushstring(L, ar.source[0] == '@' || ar.source[0] == '=' ? ar.source + 1 : ar.short_src);
      lua_rawseti(L, -2, 1);
      lua_pushnumber(L, (lua_Number)ar.currentline);
      lua_rawseti(L, -2, 2);
      lua_rawset(L, -3);
    }
    lua_pop(L, 1);
  }
  return 1;
}

/* Wrap the declaration functions of the module table at the top. */
static void wrap_module(lua_State *L) {
  static const char *const names[] = { "graphics", "mesh", "compute", "derive", NULL };
  int i;
  lua_pushlightuserdata(L, (void *)&where_key);
  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
  if (!lua_istable(L, -1)) return;
  for (i = 0; names[i]; i++) {
    lua_getfield(L, -1, names[i]);
    if (lua_type(L, -1) == LUA_TFUNCTION) {
      lua_pushcclosure(L, sb_declare, 1);
      lua_setfield(L, -2, names[i]);
    } else {
      lua_pop(L, 1);
    }
  }
}

int psol_pipeline_where(lua_State *L, int idx, char *source, size_t sourcelen) {
  int line = 0;
  if (source && sourcelen) source[0] = '\0';
  idx = lua_absindex(L, idx);
  lua_pushlightuserdata(L, (void *)&where_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  if (lua_istable(L, -1)) {
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    if (lua_istable(L, -1)) {
      lua_rawgeti(L, -1, 1);
      lua_rawgeti(L, -2, 2);
      line = (int)lua_tonumber(L, -1);
      if (source && sourcelen && lua_tostring(L, -2))
        snprintf(source, sourcelen, "%s", lua_tostring(L, -2));
      lua_pop(L, 2);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return line;
}

/* ---- table and utf8 functions with a cost ----------------------------------- */

/* What a call will cost, from its arguments: the elements it moves or the
** bytes it scans, all in C where no count hook fires. */
enum { COST_INSERT, COST_REMOVE, COST_MOVE, COST_SORT, COST_SCAN };

static uint64_t clamp_cost(lua_Number n) {
  if (!(n > 0)) return 0;
  return n >= 1e18 ? (uint64_t)1e18 : (uint64_t)n;
}

static uint64_t cost_of(lua_State *L, int kind) {
  lua_Number n, pos;
  switch (kind) {
  case COST_INSERT: /* (t, [pos,] v): shifts the elements from pos up */
    if (lua_type(L, 1) != LUA_TTABLE || lua_gettop(L) != 3) return 1;
    n = psol_compat_len(L, 1);
    pos = lua_tonumber(L, 2);
    return 1 + clamp_cost(n - pos + 1);
  case COST_REMOVE: /* (t, [pos]): shifts the elements above pos down */
    if (lua_type(L, 1) != LUA_TTABLE) return 1;
    n = psol_compat_len(L, 1);
    pos = lua_isnoneornil(L, 2) ? n : lua_tonumber(L, 2);
    return 1 + clamp_cost(n - pos + 1);
  case COST_MOVE: /* (a1, f, e, t [, a2]) */
    return 1 + clamp_cost(lua_tonumber(L, 3) - lua_tonumber(L, 2) + 1);
  case COST_SORT:
    return lua_type(L, 1) == LUA_TTABLE ? 1 + clamp_cost(psol_compat_len(L, 1)) : 1;
  default: /* COST_SCAN: (s, ...) */
    return lua_type(L, 1) == LUA_TSTRING ? 1 + (uint64_t)(lua_rawlen(L, 1) >> 4) : 1;
  }
}

/* upvalues: the original function, its name, the cost kind, and for sort
** a Lua comparator, so that sorting without one runs (and counts) Lua
** instructions: the C quicksort has quadratic inputs. */
static int sb_charged(lua_State *L) {
  int kind = (int)lua_tonumber(L, lua_upvalueindex(3)), n;
  psol_charge(L, cost_of(L, kind));
  if (kind == COST_SORT && lua_isnoneornil(L, 2)) {
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(4));
  }
  n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  if (lua_pcall(L, n, LUA_MULTRET, 0) != LUA_OK)
    return rethrow(L, lua_tostring(L, lua_upvalueindex(2)));
  return lua_gettop(L);
}

static const char less_than_lua[] = "return function(a, b) return a < b end";

/* Wrap lib[name] (the library table at the top) with a cost. */
static void charge_function(lua_State *L, const char *lib, const char *name, int kind) {
  lua_getfield(L, -1, name);
  if (lua_type(L, -1) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return;
  }
  lua_pushfstring(L, "%s.%s", lib, name);
  lua_pushnumber(L, kind);
  if (kind == COST_SORT) {
    if (luaL_loadbuffer(L, less_than_lua, sizeof less_than_lua - 1, "=(sort)") != LUA_OK)
      lua_error(L);
    lua_call(L, 0, 1);
  }
  lua_pushcclosure(L, sb_charged, kind == COST_SORT ? 4 : 3);
  lua_setfield(L, -2, name);
}

/* ---- require ------------------------------------------------------------- */

static int valid_module_name(const char *name) {
  const char *p;
  if (name[0] == '\0' || name[0] == '.' || name[0] == '/') return 0;
  for (p = name; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '.' && (p[1] == '.' || p[1] == '\0')) return 0;
    if (c == '/' && (p[1] == '/' || p[1] == '\0')) return 0;
    if (!(c == '_' || c == '-' || c == '.' || c == '/' || (c >= '0' && c <= '9') ||
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      return 0;
  }
  return 1;
}

/* require's cache holds this (as a light userdata) while a module loads. */
static const char loading_key = 'l';

static int sb_require(lua_State *L) {
  psol_state *S = state_of(L);
  const char *name = luaL_checkstring(L, 1);
  int cache = lua_upvalueindex(1);
  lua_settop(L, 1);
  lua_getfield(L, cache, name);
  if (lua_touserdata(L, -1) == (void *)&loading_key)
    return luaL_error(L, "require: loop while loading module '%s'", name);
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  if (strcmp(name, "pso") == 0) {
    lua_pushcfunction(L, luaopen_pso);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    wrap_module(L);
  } else {
    char rel[PATH_MAX], chunk[PATH_MAX + 1];
    psol_found *found;
    size_t i, n = strlen(name), len;
    const char *src;
    int status;
    if (!valid_module_name(name) || n + 5 > sizeof rel)
      return luaL_error(L, "require: invalid module name '%s' (use names like 'lib.common'; "
                           "modules are .lua files under the material roots)", name);
    for (i = 0; i < n; i++) rel[i] = name[i] == '.' ? '/' : name[i];
    memcpy(rel + n, ".lua", 5);
    found = (psol_found *)lua_newuserdata(L, sizeof *found); /* index 2 */
    if (!resolve_file(L, S, rel, found) || !push_file(L, S, found->real))
      return luaL_error(L, "require: cannot load module '%s' (%s): %s", name, rel,
                        lua_tostring(L, -1));
    /* the source is at index 3 */
    src = lua_tolstring(L, 3, &len);
    snprintf(chunk, sizeof chunk, "@%s", found->shown);
    status = load_text(L, src, len, chunk);
    if (status != LUA_OK) return lua_error(L);
    lua_pushlightuserdata(L, (void *)&loading_key);
    lua_setfield(L, cache, name);
    lua_pushstring(L, name);
    lua_pushstring(L, found->shown);
    status = lua_pcall(L, 2, 1, 0);
    if (status != LUA_OK) {
      lua_pushnil(L);
      lua_setfield(L, cache, name);
      return lua_error(L);
    }
  }
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
  }
  lua_pushvalue(L, -1);
  lua_setfield(L, cache, name);
  return 1;
}

/* ---- pso module hooks -------------------------------------------------- */

static int hook_read_file(void *ud, lua_State *L, const char *path) {
  psol_state *S = (psol_state *)ud;
  psol_found *found = (psol_found *)lua_newuserdata(L, sizeof *found);
  int ok = resolve_file(L, S, path, found) && push_file(L, S, found->real);
  lua_remove(L, -2);
  return ok;
}

static void *hook_resolve_root_signature(void *ud, const char *name) {
  psol_state *S = (psol_state *)ud;
  return S->resolve ? S->resolve(S->ud, name) : NULL;
}

/* ---- building the state ------------------------------------------------ */

static const char *const removed_globals[] = {
  "dofile", "loadfile", "loadstring", "getfenv", "setfenv", "gcinfo", "newproxy",
  "coroutine", "module", "package", "warn", "debug", "os", "io", "jit", "bit", "ffi", NULL
};

/* Runs protected: open the safe libraries, install the sandbox and the
** pso module's hooks. */
static int setup(lua_State *L) {
  psol_state *S = (psol_state *)lua_touserdata(L, 1);
  pso_hooks hooks;
  int i;
  hooks.read_file = hook_read_file;
  hooks.resolve_root_signature = hook_resolve_root_signature;
  hooks.ud = S;
  pso_set_hooks(L, &hooks);
  psol_compat_openlib(L, "_G", luaopen_base);
  psol_compat_openlib(L, LUA_STRLIBNAME, luaopen_string);
  psol_compat_openlib(L, LUA_TABLIBNAME, luaopen_table);
  psol_compat_openlib(L, LUA_MATHLIBNAME, luaopen_math);
#if PSOL_COMPAT_HAS_UTF8
  psol_compat_openlib(L, LUA_UTF8LIBNAME, luaopen_utf8);
#endif
  for (i = 0; removed_globals[i]; i++) {
    lua_pushnil(L);
    lua_setglobal(L, removed_globals[i]);
  }
  lua_pushcfunction(L, sb_load);
  lua_setglobal(L, "load");
if (PSOL_COMPAT_HAS_LOADSTRING) {
    lua_pushcfunction(L, sb_load);
    lua_setglobal(L, "loadstring");
  }
  lua_pushcfunction(L, sb_print);
  lua_setglobal(L, "print");
  lua_pushcfunction(L, sb_collectgarbage);
  lua_setglobal(L, "collectgarbage");
  lua_getglobal(L, "setmetatable");
  lua_pushcclosure(L, sb_setmetatable, 1);
  lua_setglobal(L, "setmetatable");
  lua_getglobal(L, "getmetatable");
  lua_pushcclosure(L, sb_getmetatable, 1);
  lua_setglobal(L, "getmetatable");
  lua_newtable(L); /* require's cache */
  lua_pushcclosure(L, sb_require, 1);
  lua_setglobal(L, "require");
  lua_getglobal(L, LUA_STRLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_getfield(L, -1, "rep");
  lua_pushcclosure(L, sb_string_rep, 1);
  lua_setfield(L, -2, "rep");
  psol_match_install(L, -1); /* find, match, gmatch, gsub with a step budget */
  lua_pop(L, 1);
  lua_getglobal(L, LUA_TABLIBNAME);
  charge_function(L, "table", "insert", COST_INSERT);
  charge_function(L, "table", "remove", COST_REMOVE);
  charge_function(L, "table", "move", COST_MOVE);
  charge_function(L, "table", "sort", COST_SORT);
  lua_pop(L, 1);
if (PSOL_COMPAT_HAS_UTF8) {
    lua_getglobal(L, "utf8");
    charge_function(L, "utf8", "len", COST_SCAN);
    charge_function(L, "utf8", "offset", COST_SCAN);
    charge_function(L, "utf8", "codepoint", COST_SCAN);
    lua_pop(L, 1);
  }
  return 0;
}

static void state_free(psol_state *S) {
  size_t i;
  for (i = 0; i < S->root_count; i++) path_free(&S->roots[i]);
  free(S->roots);
  path_free(&S->implicit);
  path_free(&S->script);
  free(S);
}

static lua_State *newstate(const psol_options *opts, char *err, size_t errlen,
                           psoc_status *why) {
  psol_state *S;
  lua_State *L;
  size_t i;
  int e;
  *why = PSOC_ERR_NOMEM;
  if (err && errlen) err[0] = '\0';
  S = (psol_state *)calloc(1, sizeof *S);
  if (!S) {
    if (err) snprintf(err, errlen, "out of memory");
    return NULL;
  }
  S->limit = opts && opts->memory_limit ? opts->memory_limit : PSOL_DEFAULT_MEMORY_LIMIT;
  S->ins_limit = opts && opts->instruction_limit ? opts->instruction_limit
                                                 : PSOL_DEFAULT_INSTRUCTION_LIMIT;
  S->time_limit_ms = opts && opts->time_limit_ms ? opts->time_limit_ms
                                                 : PSOL_DEFAULT_TIME_LIMIT_MS;
  if (opts) {
    S->resolve = opts->resolve_root_signature;
    S->log = opts->log;
    S->ud = opts->ud;
  }
  if (opts && opts->root_count) {
    if (!opts->roots) {
      if (err) snprintf(err, errlen, "root_count is %zu but roots is NULL", opts->root_count);
      *why = PSOC_ERR_ARG;
      state_free(S);
      return NULL;
    }
    S->roots = (psol_path *)calloc(opts->root_count, sizeof *S->roots);
    if (!S->roots) {
      if (err) snprintf(err, errlen, "out of memory");
      state_free(S);
      return NULL;
    }
    for (i = 0; i < opts->root_count; i++) {
      const char *root = opts->roots[i] ? opts->roots[i] : "(null)";
      if ((e = path_init_dir(&S->roots[S->root_count], root)) != 0) {
        if (err) snprintf(err, errlen, "material root '%s': %s", root, strerror(e));
        *why = e == ENOMEM ? PSOC_ERR_NOMEM : PSOC_ERR_ARG;
        state_free(S);
        return NULL;
      }
      S->root_count++;
    }
  }
  L = psol_compat_newstate(psol_alloc, S, &S->base, &S->base_ud);
  if (!L) {
    if (err) snprintf(err, errlen, "cannot create a Lua state (out of memory)");
    state_free(S);
    return NULL;
  }
  psol_compat_interpret_only(L);
  if (psol_compat_cpcall(L, setup, S) != LUA_OK) {
    if (err) snprintf(err, errlen, "cannot set up the sandbox: %s",
                      lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
    lua_close(L);
    state_free(S);
    return NULL;
  }
  *why = PSOC_OK; /* the count hook is installed by each sandboxed call */
  return L;
}

lua_State *psol_newstate(const psol_options *opts, char *err, size_t errlen) {
  psoc_status why;
  return newstate(opts, err, errlen, &why);
}

void psol_close(lua_State *L) {
  psol_state *S;
  if (!L) return;
  S = state_of(L);
  S->enforce = 0;
  lua_close(L);
  state_free(S);
}

uint64_t psol_instructions(lua_State *L) { return state_of(L)->ins_count; }
size_t psol_memory(lua_State *L) { return state_of(L)->used; }

/* ---- protected calls ----------------------------------------------------- */

static int msgh(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      msg = lua_tostring(L, -1);
    else
      msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  psol_compat_traceback(L, msg, 1);
  return 1;
}

static int contains(lua_State *L, int idx, const char *what) {
  const char *s = lua_tostring(L, idx);
  return s && strstr(s, what) != NULL;
}

/* Replace errors the limits caused (memory errors skip the message
** handler; a limit hit inside the handler gives "error in error handling")
** with a message that names the limit. */
static void fix_error(lua_State *L, psol_state *S, int status) {
  char text[96];
  if (S->exceeded && !contains(L, -1, limit_text(S, text, sizeof text))) {
    lua_pop(L, 1);
    if (S->chunk) lua_pushfstring(L, "%s: %s", S->chunk, text);
    else lua_pushstring(L, text);
  } else if (status == LUA_ERRMEM && !contains(L, -1, "memory")) {
    lua_pop(L, 1);
    lua_pushliteral(L, "not enough memory");
  }
}

int psol_pcall(lua_State *L, int nargs, int nresults) {
  psol_state *S = state_of(L);
  int base = lua_gettop(L) - nargs, status, outer = S->depth == 0, enforce = S->enforce;
  if (outer) budget_reset(L, S);
  lua_pushcfunction(L, msgh);
  lua_insert(L, base);
  S->depth++;
  S->enforce = 1;
  status = lua_pcall(L, nargs, nresults, base);
  S->depth--;
  S->enforce = enforce;
  lua_remove(L, base);
  if (status != LUA_OK) fix_error(L, S, status);
  if (outer) {
    S->exceeded = LIMIT_NONE;
    lua_sethook(L, NULL, 0, 0);
  }
  return status;
}

typedef struct psol_chunk {
  const char *path;      /* file to run, or NULL */
  const char *src;       /* else this source */
  size_t len;
  const char *chunkname;
} psol_chunk;

/* Protected: read and load the chunk, then run it; returns its results. */
static int run_chunk(lua_State *L) {
  psol_state *S = state_of(L);
  const psol_chunk *c = (const psol_chunk *)lua_touserdata(L, 1);
  const char *src = c->src, *chunkname = c->chunkname;
  size_t len = c->len;
  lua_settop(L, 0);
  if (c->path) {
    char real[PATH_MAX];
    if (!realpath(c->path, real))
      return luaL_error(L, "cannot open '%s': %s", c->path, strerror(errno));
    if (!push_file(L, S, real))
      return luaL_error(L, "cannot read '%s': %s", c->path, lua_tostring(L, -1));
    src = lua_tolstring(L, 1, &len);
    lua_pushfstring(L, "@%s", c->path);
    chunkname = lua_tostring(L, 2);
  } else {
    lua_pushnil(L);
    lua_pushnil(L);
  }
  if (load_text(L, src, len, chunkname) != LUA_OK) return lua_error(L);
  lua_call(L, 0, LUA_MULTRET);
  return lua_gettop(L) - 2;
}

static int run(lua_State *L, const psol_chunk *c, const char *display, int nresults) {
  psol_state *S = state_of(L);
  psol_path saved_script = S->script, saved_implicit = S->implicit;
  const char *saved_chunk = S->chunk;
  int status;
  S->script.shown = S->script.real = NULL;
  S->implicit.shown = S->implicit.real = NULL;
  if (c->path) {
    path_init_dirname(&S->script, c->path); /* failures surface when loading */
    if (S->root_count == 0 && S->script.real) {
      S->implicit.shown = dup_str(S->script.shown);
      S->implicit.real = dup_str(S->script.real);
    }
  }
  S->chunk = display;
  lua_pushcfunction(L, run_chunk);
  lua_pushlightuserdata(L, (void *)c);
  status = psol_pcall(L, 1, nresults);
  path_free(&S->script);
  path_free(&S->implicit);
  S->script = saved_script;
  S->implicit = saved_implicit;
  S->chunk = saved_chunk;
  return status;
}

int psol_dofile(lua_State *L, const char *path, int nresults) {
  psol_chunk c;
  c.path = path;
  c.src = NULL;
  c.len = 0;
  c.chunkname = NULL;
  return run(L, &c, path, nresults);
}

int psol_dostring(lua_State *L, const char *chunkname, const char *src, size_t len,
                  int nresults) {
  psol_chunk c;
  const char *display = chunkname ? chunkname : "=(string)";
  c.path = NULL;
  c.src = src ? src : "";
  c.len = src ? len : 0;
  c.chunkname = display;
  if (display[0] == '@' || display[0] == '=') display++;
  return run(L, &c, display, nresults);
}

const char *psol_error_message(lua_State *L, int idx, char *buf, size_t buflen) {
  const char *msg = lua_tostring(L, idx), *cut;
  size_t n;
  if (!buflen) return buf;
  if (!msg) msg = "(error object is not a string)";
  cut = strstr(msg, PSOL_TRACEBACK);
  n = cut ? (size_t)(cut - msg) : strlen(msg);
  if (n >= buflen) n = buflen - 1;
  memcpy(buf, msg, n);
  buf[n] = '\0';
  return buf;
}

/* ---- evaluate ----------------------------------------------------------- */

static void *res_alloc(const psoc_allocator *a, size_t n) {
  return a->fn ? a->fn(a->ud, NULL, 0, n) : malloc(n);
}

static void res_free(const psoc_allocator *a, void *p, size_t n) {
  if (!p) return;
  if (a->fn) a->fn(a->ud, p, n, 0);
  else free(p);
}

static char *res_strdup(const psoc_allocator *a, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = (char *)res_alloc(a, n);
  if (p) memcpy(p, s, n);
  return p;
}

void psol_result_free(psol_result *r) {
  size_t i;
  if (!r) return;
  for (i = 0; i < r->count; i++) {
    psol_pipeline *p = &r->pipelines[i];
    if (p->name) res_free(&r->alloc, p->name, strlen(p->name) + 1);
    if (p->root_signature) res_free(&r->alloc, p->root_signature, strlen(p->root_signature) + 1);
    psoc_stream_free(p->stream);
  }
  res_free(&r->alloc, r->pipelines, r->count * sizeof *r->pipelines);
  r->pipelines = NULL;
  r->count = 0;
}

static void result_init(psol_result *out, const psol_options *opts) {
  memset(out, 0, sizeof *out);
  if (opts && opts->alloc) out->alloc = *opts->alloc;
}

static psoc_status fail(psol_result *out, psoc_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static psoc_status fail(psol_result *out, psoc_status status, const char *fmt, ...) {
  va_list ap;
  psol_result_free(out);
  va_start(ap, fmt);
  vsnprintf(out->error, sizeof out->error, fmt, ap);
  va_end(ap);
  return status;
}

/* Copy one pipeline (at the top of the stack) out of the state and check
** it. */
static psoc_status take(lua_State *L, psol_result *out, const pso_pipeline *p,
                        const char *display, const psol_options *opts) {
  psol_pipeline *dst = &out->pipelines[out->count];
  const char *name = pso_pipeline_name(p), *rs = pso_pipeline_root_signature(p);
  const psoc_stream *stream = pso_pipeline_stream(p);
  psoc_diags diags;
  psoc_check_options check;
  psoc_status status;
  size_t i;
  memset(dst, 0, sizeof *dst);
  memset(&check, 0, sizeof check);
  if (opts) {
    check.profile = opts->profile;
    check.flags = opts->check_flags;
  }
  check.flags |= PSO_PIPELINE_CHECK_FLAGS; /* streams the module built */
  if (!stream) return fail(out, PSOC_ERR_INVALID, "%s: pipeline '%s' has no stream", display,
                           name ? name : "");
  dst->name = res_strdup(&out->alloc, name ? name : "");
  dst->root_signature = rs ? res_strdup(&out->alloc, rs) : NULL;
  dst->kind = pso_pipeline_kind(p);
  status = psoc_stream_copy(stream, out->alloc.fn ? &out->alloc : NULL, &dst->stream);
  out->count++; /* owned from here on */
  if (!dst->name || (rs && !dst->root_signature) || status == PSOC_ERR_NOMEM)
    return fail(out, PSOC_ERR_NOMEM, "out of memory copying pipeline '%s'", name ? name : "");
  if (status != PSOC_OK)
    return fail(out, status, "%s: pipeline '%s': cannot copy the stream: %s", display,
                name ? name : "", psoc_status_name(status));
  dst->hash = pso_pipeline_hash(p); /* content hash: the same for the copy */
  psoc_diags_init(&diags, out->alloc.fn ? &out->alloc : NULL);
  status = psoc_check(psoc_stream_data(dst->stream), psoc_stream_size(dst->stream), &check, &diags);
  if (status != PSOC_OK) {
    for (i = 0; i < diags.count; i++)
      if (diags.items[i].severity == PSOC_SEVERITY_ERROR) break;
    if (i < diags.count) {
      psoc_diag d = diags.items[i];
      char where[512], key[PSOC_DIAG_FIELD_MAX + 16];
      int line = psol_pipeline_where(L, -1, where, sizeof where);
      if (line > 0) snprintf(where + strlen(where), sizeof where - strlen(where), ":%d", line);
      else snprintf(where, sizeof where, "%s", display);
      psoc_diags_free(&diags);
      pso_field_path(d.field, key, sizeof key); /* the material's keys */
      /* 'name' belongs to the pipeline in the state: still valid */
      return fail(out, PSOC_ERR_INVALID, "%s: pipeline '%s': %s%s%s [%s]", where,
                  name ? name : "", key, key[0] ? ": " : "", d.message,
                  d.message_id ? d.message_id : psoc_code_name(d.code));
    }
    psoc_diags_free(&diags);
    return fail(out, status, "%s: pipeline '%s': check failed: %s", display, dst->name,
                psoc_status_name(status));
  }
  psoc_diags_free(&diags);
  return PSOC_OK;
}

/* The script's result (at the top of the stack) into 'out'. */
static psoc_status collect(lua_State *L, psol_result *out, const char *display,
                           const psol_options *opts) {
  pso_pipeline *p = pso_topipeline(L, -1);
  size_t n, i;
  psoc_status status;
  if (!pso_check_result(L, -1)) /* the shape, and no two pipelines named alike */
    return fail(out, PSOC_ERR_INVALID, "%s: %s", display, lua_tostring(L, -1));
  if (p) n = 1;
  else n = (size_t)lua_rawlen(L, -1);
  if (n == 0) return PSOC_OK;
  if (n > SIZE_MAX / sizeof *out->pipelines)
    return fail(out, PSOC_ERR_NOMEM, "%s: too many pipelines", display);
  out->pipelines = (psol_pipeline *)res_alloc(&out->alloc, n * sizeof *out->pipelines);
  if (!out->pipelines) return fail(out, PSOC_ERR_NOMEM, "out of memory");
  for (i = 0; i < n; i++) {
    pso_pipeline *q = p;
    if (q) lua_pushvalue(L, -1);
    else lua_rawgeti(L, -1, (int)(i + 1));
    if (!q && (q = pso_topipeline(L, -1)) == NULL) {
      const char *type = luaL_typename(L, -1);
      lua_pop(L, 1);
      return fail(out, PSOC_ERR_INVALID,
                  "%s: result[%zu] is a %s, not a pipeline (a material script returns a "
                  "pipeline or a list of pipelines)", display, i + 1, type);
    }
    status = take(L, out, q, display, opts);
    lua_pop(L, 1);
    if (status != PSOC_OK) return status;
  }
  return PSOC_OK;
}

static psoc_status evaluate(const psol_options *opts, const psol_chunk *c, const char *display,
                            psol_result *out) {
  psoc_status status;
  lua_State *L = newstate(opts, out->error, sizeof out->error, &status);
  if (!L) return status;
  if (c->path) status = psol_dofile(L, c->path, 1) == LUA_OK ? PSOC_OK : PSOC_ERR_INVALID;
  else status = psol_dostring(L, c->chunkname, c->src, c->len, 1) == LUA_OK ? PSOC_OK
                                                                            : PSOC_ERR_INVALID;
  if (status != PSOC_OK) psol_error_message(L, -1, out->error, sizeof out->error);
  else status = collect(L, out, display, opts);
  psol_close(L);
  return status;
}

psoc_status psol_evaluate_file(const psol_options *opts, const char *path, psol_result *out) {
  psol_chunk c;
  if (!out) return PSOC_ERR_ARG;
  result_init(out, opts);
  if (!path) return fail(out, PSOC_ERR_ARG, "no script path");
  c.path = path;
  c.src = NULL;
  c.len = 0;
  c.chunkname = NULL;
  return evaluate(opts, &c, path, out);
}

psoc_status psol_evaluate_string(const psol_options *opts, const char *chunkname,
                                 const char *src, size_t len, psol_result *out) {
  psol_chunk c;
  const char *display;
  if (!out) return PSOC_ERR_ARG;
  result_init(out, opts);
  if (!src && len) return fail(out, PSOC_ERR_ARG, "NULL source");
  c.path = NULL;
  c.src = src ? src : "";
  c.len = len;
  c.chunkname = chunkname ? chunkname : "=(string)";
  display = c.chunkname;
  if (display[0] == '@' || display[0] == '=') display++;
  return evaluate(opts, &c, display, out);
}
