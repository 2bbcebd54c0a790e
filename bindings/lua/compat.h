/*
** compat.h: every Lua version difference the pso bindings care about
** (5.1, LuaJIT 2.1, 5.2, 5.3, 5.4) lives here and only here.
**
** The rest of the bindings use the 5.4 spelling of the API plus the
** pso_compat_* helpers below. Under 5.1 and LuaJIT the missing functions
** are provided as static functions and the 5.2+ names are mapped onto them
** with macros, so LuaJIT's own (partial) 5.2 extensions never clash.
*/
#ifndef PSO_COMPAT_H
#define PSO_COMPAT_H

#include <math.h>
#include <stdint.h>

#include "lua.h"
#include "lauxlib.h"

#if LUA_VERSION_NUM < 502 /* ---------------- Lua 5.1 and LuaJIT ------- */

#ifndef LUA_OK
#define LUA_OK 0
#endif

static inline int pso_compat_absindex(lua_State *L, int idx) {
  return (idx > 0 || idx <= LUA_REGISTRYINDEX) ? idx : lua_gettop(L) + idx + 1;
}
#define lua_absindex pso_compat_absindex

#define lua_rawlen(L, i) lua_objlen(L, (i))

static inline void pso_compat_setfuncs(lua_State *L, const luaL_Reg *l, int nup) {
  luaL_checkstack(L, nup, "too many upvalues");
  for (; l->name != NULL; l++) {
    int i;
    for (i = 0; i < nup; i++) lua_pushvalue(L, -nup);
    lua_pushcclosure(L, l->func, nup);
    lua_setfield(L, -(nup + 2), l->name);
  }
  lua_pop(L, nup);
}
#undef luaL_setfuncs
#define luaL_setfuncs pso_compat_setfuncs
#undef luaL_newlibtable
#define luaL_newlibtable(L, l) lua_createtable(L, 0, (int)(sizeof(l) / sizeof((l)[0]) - 1))
#undef luaL_newlib
#define luaL_newlib(L, l) (luaL_newlibtable(L, l), luaL_setfuncs(L, l, 0))

static inline void *pso_compat_testudata(lua_State *L, int ud, const char *tname) {
  void *p = lua_touserdata(L, ud);
  if (p == NULL || !lua_getmetatable(L, ud)) return NULL;
  luaL_getmetatable(L, tname);
  if (!lua_rawequal(L, -1, -2)) p = NULL;
  lua_pop(L, 2);
  return p;
}
#define luaL_testudata pso_compat_testudata

static inline void pso_compat_setmetatable(lua_State *L, const char *tname) {
  luaL_getmetatable(L, tname);
  lua_setmetatable(L, -2);
}
#define luaL_setmetatable pso_compat_setmetatable

static inline int pso_compat_rawgetp(lua_State *L, int idx, const void *p) {
  idx = pso_compat_absindex(L, idx);
  lua_pushlightuserdata(L, (void *)p);
  lua_rawget(L, idx);
  return lua_type(L, -1);
}
#define lua_rawgetp pso_compat_rawgetp

static inline void pso_compat_rawsetp(lua_State *L, int idx, const void *p) {
  idx = pso_compat_absindex(L, idx);
  lua_pushlightuserdata(L, (void *)p);
  lua_insert(L, -2);
  lua_rawset(L, idx);
}
#define lua_rawsetp pso_compat_rawsetp

/* lua_rawget/lua_rawgeti return the type from 5.3 on; use these. */
static inline int pso_compat_rawget(lua_State *L, int idx) {
  lua_rawget(L, idx);
  return lua_type(L, -1);
}
static inline int pso_compat_rawgeti(lua_State *L, int idx, int n) {
  lua_rawgeti(L, idx, n);
  return lua_type(L, -1);
}

/* Userdata "user values" are environment tables in 5.1 (tables only). */
#define pso_compat_setuservalue(L, idx) lua_setfenv(L, (idx))
#define pso_compat_getuservalue(L, idx) (lua_getfenv(L, (idx)), lua_type(L, -1))
#define pso_compat_newuserdata(L, size) lua_newuserdata(L, (size))

#define pso_compat_isinteger(L, idx) 0

static inline const char *pso_compat_tolstring(lua_State *L, int idx, size_t *len) {
  if (luaL_callmeta(L, idx, "__tostring")) {
    if (!lua_isstring(L, -1)) luaL_error(L, "'__tostring' must return a string");
  } else {
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
    case LUA_TSTRING: lua_pushvalue(L, idx); break;
    case LUA_TBOOLEAN: lua_pushstring(L, lua_toboolean(L, idx) ? "true" : "false"); break;
    case LUA_TNIL: lua_pushliteral(L, "nil"); break;
    default:
      lua_pushfstring(L, "%s: %p", luaL_typename(L, idx), lua_topointer(L, idx));
      break;
    }
  }
  return lua_tolstring(L, -1, len);
}
#define luaL_tolstring pso_compat_tolstring

#else /* ---------------------------------------------- Lua 5.2 and later -- */

#if LUA_VERSION_NUM >= 503
#define pso_compat_rawget(L, idx) lua_rawget(L, (idx))
#define pso_compat_rawgeti(L, idx, n) lua_rawgeti(L, (idx), (n))
#define pso_compat_isinteger(L, idx) lua_isinteger(L, (idx))
#else
static inline int pso_compat_rawget(lua_State *L, int idx) {
  lua_rawget(L, idx);
  return lua_type(L, -1);
}
static inline int pso_compat_rawgeti(lua_State *L, int idx, int n) {
  lua_rawgeti(L, idx, n);
  return lua_type(L, -1);
}
#define pso_compat_isinteger(L, idx) 0
#endif

#if LUA_VERSION_NUM >= 504
#define pso_compat_newuserdata(L, size) lua_newuserdatauv(L, (size), 0)
#else
#define pso_compat_newuserdata(L, size) lua_newuserdata(L, (size))
#endif

#define pso_compat_setuservalue(L, idx) lua_setuservalue(L, (idx))
#if LUA_VERSION_NUM >= 503
#define pso_compat_getuservalue(L, idx) lua_getuservalue(L, (idx))
#else
#define pso_compat_getuservalue(L, idx) (lua_getuservalue(L, (idx)), lua_type(L, -1))
#endif

#endif /* ------------------------------------------------------------------ */

/* A userdata with n user values, numbered 1..n (nil at first): Lua 5.4's
** inline user values (no table); before 5.4 a table of n slots set as its
** user value (its environment in 5.1). pso_compat_setiuservalue pops the
** value into slot n of the userdata at idx; pso_compat_getiuservalue
** pushes slot n and returns its type (nil, or LUA_TNONE in 5.4, for a
** slot the userdata lacks). */
#if LUA_VERSION_NUM >= 504
#define pso_compat_newuserdata_n(L, size, n) lua_newuserdatauv(L, (size), (n))
#define pso_compat_setiuservalue(L, idx, n) ((void)lua_setiuservalue(L, (idx), (n)))
#define pso_compat_getiuservalue(L, idx, n) lua_getiuservalue(L, (idx), (n))
#else
static inline void *pso_compat_newuserdata_n(lua_State *L, size_t size, int n) {
  void *p = lua_newuserdata(L, size);
  lua_createtable(L, n, 0);
  pso_compat_setuservalue(L, -2);
  return p;
}
static inline void pso_compat_setiuservalue(lua_State *L, int idx, int n) {
  idx = lua_absindex(L, idx);
  pso_compat_getuservalue(L, idx);
  lua_insert(L, -2);
  lua_rawseti(L, -2, n);
  lua_pop(L, 1);
}
static inline int pso_compat_getiuservalue(lua_State *L, int idx, int n) {
  idx = lua_absindex(L, idx);
  if (pso_compat_getuservalue(L, idx) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_pushnil(L);
    return LUA_TNIL;
  }
  lua_rawgeti(L, -1, n);
  lua_remove(L, -2);
  return lua_type(L, -1);
}
#endif

/* Integers: 5.3+ has an integer subtype; elsewhere (and for floats with an
** exact integer value) a number counts as an integer when it is integral
** and fits an int64_t. Returns 1 and stores it, or 0 (not integral or too
** large). The value at idx must be a number. */
static inline int pso_compat_tointeger(lua_State *L, int idx, int64_t *out) {
  lua_Number n;
  if (pso_compat_isinteger(L, idx)) {
    *out = (int64_t)lua_tointeger(L, idx);
    return 1;
  }
  n = lua_tonumber(L, idx);
  if (!(n == floor(n)) || n < -9223372036854775808.0 || n >= 9223372036854775808.0) return 0;
  *out = (int64_t)n;
  return 1;
}

/* lua_pushinteger for values that may exceed a 5.1 lua_Integer's range on
** 32-bit hosts (UINT fields): exact as a double in every version. */
static inline void pso_compat_pushuint(lua_State *L, uint64_t v) {
#if LUA_VERSION_NUM >= 503
  if (v <= (uint64_t)LUA_MAXINTEGER) {
    lua_pushinteger(L, (lua_Integer)v);
    return;
  }
#endif
  lua_pushnumber(L, (lua_Number)v);
}

static inline void pso_compat_pushint(lua_State *L, int64_t v) {
#if LUA_VERSION_NUM >= 503
  lua_pushinteger(L, (lua_Integer)v);
#else
  lua_pushnumber(L, (lua_Number)v);
#endif
}

/* sandbox ------------------------------------------------------------
** Helpers for bindings/lua/sandbox.c (psol_compat_*). */
#if defined(LUA_LJDIR) || defined(LUAJIT_VERSION)
#define PSOL_COMPAT_LUAJIT 1
#include <luajit.h>
#endif
/* Load a text chunk (the caller has already refused a leading "\27"). */
static inline int psol_compat_loadtext(lua_State *L, const char *s, size_t len,
                                       const char *name) {
#if LUA_VERSION_NUM >= 502 || defined(PSOL_COMPAT_LUAJIT)
  return luaL_loadbufferx(L, s, len, name, "t");
#else
  return luaL_loadbuffer(L, s, len, name);
#endif
}

/* Dump the function on the top (with its debug information: lines and
** names stay in error messages) through 'writer'; lua_dump's status. */
static inline int psol_compat_dump(lua_State *L, lua_Writer writer, void *data) {
#if LUA_VERSION_NUM >= 503
  return lua_dump(L, writer, data, 0);
#else
  return lua_dump(L, writer, data);
#endif
}

/* Load a binary chunk that this process dumped itself (the sandbox's
** chunk cache, never bytes from a script or a file). 5.1 has no mode
** argument; its loader tells binary from text by the first byte. */
static inline int psol_compat_loadbinary(lua_State *L, const char *s, size_t len,
                                         const char *name) {
#if LUA_VERSION_NUM >= 502 || defined(PSOL_COMPAT_LUAJIT)
  return luaL_loadbufferx(L, s, len, name, "b");
#else
  return luaL_loadbuffer(L, s, len, name);
#endif
}

/* Pop a table and make it the environment of the loaded chunk at 'idx'
** (a negative index counted with the table still pushed). */
static inline void psol_compat_setenv(lua_State *L, int idx) {
#if LUA_VERSION_NUM >= 502
  if (!lua_setupvalue(L, idx, 1)) lua_pop(L, 1); /* _ENV is upvalue 1 */
#else
  lua_setfenv(L, idx);
#endif
}

/* luaL_traceback of the running thread, pushed. */
static inline void psol_compat_traceback(lua_State *L, const char *msg, int level) {
#if LUA_VERSION_NUM >= 502 || defined(PSOL_COMPAT_LUAJIT)
  luaL_traceback(L, L, msg, level);
#else
  lua_Debug ar;
  int top = lua_gettop(L), shown = 0;
  if (msg) lua_pushstring(L, msg);
  lua_pushliteral(L, "\nstack traceback:");
  while (lua_getstack(L, level++, &ar)) {
    if (shown++ == 12 && lua_getstack(L, level + 10, &ar)) { /* skip the middle */
      lua_pushliteral(L, "\n\t...");
      while (lua_getstack(L, level + 10, &ar)) level++;
      continue;
    }
    lua_getinfo(L, "Snl", &ar);
    lua_pushfstring(L, "\n\t%s:", ar.short_src);
    if (ar.currentline > 0) lua_pushfstring(L, "%d:", ar.currentline);
    else lua_pushliteral(L, "");
    if (*ar.namewhat != '\0') lua_pushfstring(L, " in function '%s'", ar.name);
    else if (*ar.what == 'm') lua_pushliteral(L, " in main chunk");
    else if (*ar.what == 'C') lua_pushliteral(L, " in ?");
    else lua_pushfstring(L, " in function <%s:%d>", ar.short_src, ar.linedefined);
    lua_concat(L, lua_gettop(L) - top);
  }
  lua_concat(L, lua_gettop(L) - top);
#endif
}

/* Open a standard library and set its global. */
static inline void psol_compat_openlib(lua_State *L, const char *name, lua_CFunction open) {
#if LUA_VERSION_NUM >= 502
  luaL_requiref(L, name, open, 1);
  lua_pop(L, 1);
#else
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
#endif
}

/* Call f(ud) in protected mode, nothing returned; an error message is
** left on the stack. */
static inline int psol_compat_cpcall(lua_State *L, lua_CFunction f, void *ud) {
#if LUA_VERSION_NUM >= 502
  lua_pushcfunction(L, f);
  lua_pushlightuserdata(L, ud);
  return lua_pcall(L, 1, 0, 0);
#else
  return lua_cpcall(L, f, ud);
#endif
}
/* The length of the value at 'idx' as table functions see it (5.2+: with
** __len; 5.1: the raw length), as a number. */
static inline lua_Number psol_compat_len(lua_State *L, int idx) {
#if LUA_VERSION_NUM >= 502
  return (lua_Number)luaL_len(L, idx);
#else
  return (lua_Number)lua_objlen(L, idx);
#endif
}
/* Element access as the table library of each version does it: 5.3+
** honours __index/__newindex (lua_geti/lua_seti), 5.1 and 5.2 are raw. */
static inline void psol_compat_geti(lua_State *L, int idx, lua_Number i) {
#if LUA_VERSION_NUM >= 503
  lua_geti(L, idx, (lua_Integer)i);
#else
  lua_rawgeti(L, idx, (int)i);
#endif
}
static inline void psol_compat_seti(lua_State *L, int idx, lua_Number i) {
#if LUA_VERSION_NUM >= 503
  lua_seti(L, idx, (lua_Integer)i);
#else
  lua_rawseti(L, idx, (int)i);
#endif
}
/* table.move (5.3+). */
#define PSOL_COMPAT_HAS_TABLE_MOVE (LUA_VERSION_NUM >= 503)
/* To-be-closed variables (local x <close>, 5.4). */
#define PSOL_COMPAT_HAS_TOCLOSE (LUA_VERSION_NUM >= 504)
/* Whether a failed allocation is followed by a full (emergency) garbage
** collection and one retry (5.2+), or raises at once (5.1, LuaJIT). */
#define PSOL_COMPAT_EMERGENCY_GC (LUA_VERSION_NUM >= 502)
/* table.insert/remove refuse positions out of bounds (5.2+); 5.1's
** insert grows the table to the position and its remove returns nothing. */
#define PSOL_COMPAT_TABLE_POS_CHECKS (LUA_VERSION_NUM >= 502)
#if LUA_VERSION_NUM < 502
#define lua_pushglobaltable(L) lua_pushvalue(L, LUA_GLOBALSINDEX)
#endif
/* The standard libraries a version has beyond 5.1's. */
#define PSOL_COMPAT_HAS_UTF8 (LUA_VERSION_NUM >= 503)
/* 5.1 and LuaJIT spell text-chunk loading 'loadstring' as well. */
#define PSOL_COMPAT_HAS_LOADSTRING (LUA_VERSION_NUM == 501)

/* A state on allocator 'f'. Some LuaJIT builds refuse custom allocators
** (lua_newstate returns NULL): then wrap the built-in one, reporting it in
** *base / *base_ud so 'f' can forward to it. */
static inline lua_State *psol_compat_newstate(lua_Alloc f, void *ud, lua_Alloc *base,
                                              void **base_ud) {
  lua_State *L = lua_newstate(f, ud);
#ifdef PSOL_COMPAT_LUAJIT
  if (!L) {
    L = luaL_newstate();
    if (L) {
      *base = lua_getallocf(L, base_ud);
      lua_setallocf(L, f, ud);
    }
  }
#else
  (void)base;
  (void)base_ud;
#endif
  return L;
}

/* Count hooks must fire for the instruction budget; LuaJIT's compiled
** traces skip them, so sandboxed LuaJIT states only interpret. */
static inline void psol_compat_interpret_only(lua_State *L) {
#ifdef PSOL_COMPAT_LUAJIT
  luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
#else
  (void)L;
#endif
}

/* Whether the caller runs inside a finalizer: 1 yes, 0 no, -1 when the
** version cannot tell (only 5.4's lua_gc reports it, returning -1). */
static inline int pso_compat_in_finalizer(lua_State *L) {
#if LUA_VERSION_NUM >= 504
  return lua_gc(L, LUA_GCISRUNNING, 0) == -1;
#else
  (void)L;
  return -1;
#endif
}
/* end sandbox */

/* ---- vendored matcher (owner h10) ----
** The 5.4 API that vendor/lua-5.4.4/lstrlib_match.c (through
** sandbox_match.c) uses, for the versions before 5.4. */
#if LUA_VERSION_NUM < 504
#ifndef luaL_pushfail
#define luaL_pushfail(L) lua_pushnil(L)
#endif
#ifndef lua_newuserdatauv
#define lua_newuserdatauv(L, size, nuv) ((void)(nuv), lua_newuserdata(L, (size)))
#endif
#ifndef luaL_argexpected /* 5.4 names the type as luaL_typeerror does */
#define luaL_argexpected(L, cond, arg, tname)                                        \
  ((void)((cond) || luaL_argerror(L, (arg), lua_pushfstring(L, "%s expected, got %s", \
                                                            (tname), luaL_typename(L, (arg))))))
#endif
#endif
/* end vendored matcher */

/* Room made with lua_checkstack lasts for the rest of the C call in PUC
** Lua 5.1-5.4 (the collector never shrinks the stack below a C frame's
** top); LuaJIT's collector may halve the stack down to the slots in use,
** so there the bindings ask again every time (pso_convert.h
** psoi_cv_room). */
#ifdef PSOL_COMPAT_LUAJIT
#define PSO_COMPAT_ROOM_LASTS 0
#else
#define PSO_COMPAT_ROOM_LASTS 1
#endif

/* The class index of the lowest bit of a non-zero class mask (walking a
** declaration's given classes). */
#if defined(_MSC_VER)
#include <intrin.h>
static inline uint32_t pso_compat_first_class(uint32_t m) {
  unsigned long at;
  _BitScanForward(&at, m);
  return (uint32_t)at;
}
#elif defined(__GNUC__)
#define pso_compat_first_class(m) ((uint32_t)__builtin_ctz(m))
#else
static inline uint32_t pso_compat_first_class(uint32_t m) {
  uint32_t at = 0;
  for (; !(m & 1u); m >>= 1) at++;
  return at;
}
#endif

#endif
