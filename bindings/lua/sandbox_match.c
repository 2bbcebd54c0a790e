/*
** sandbox_match.c: string.find, match, gmatch and gsub for the sandbox,
** with a step budget. Lua's own matcher backtracks in C, where no count
** hook fires: ("a"):rep(3000):find(".-.-.-b") runs for hours.
**
** The matcher itself is Lua 5.4.4's, vendored in
** vendor/lua-5.4.4/lstrlib_match.c (Copyright (C) 1994-2022 Lua.org,
** PUC-Rio, MIT license: vendor/lua-5.4.4/LICENSE) with a few hook lines
** marked "psoc" (vendor/lua-5.4.4/README.md lists them). This file is the
** psoc side: it defines those hooks, the names lstrlib.c takes from its
** own file and from Lua's internals, and the installation.
**
** The hooks count steps and, every PSOL_MATCH_TICK of them, call the
** charge function psol_match_install was given (the sandbox's charges the
** steps to the instruction budget and raises an error when it is spent).
** Every match() call and every repetition max_expand takes is a step, and
** so is every byte %b scans; [sets] cost their length / 16 at every
** position they are tried and back-references the bytes they compare / 16.
** Plain searches are charged by the bytes memchr scans and by each
** candidate's comparison (a long needle costs its length at each place its
** first byte occurs). Patterns follow Lua 5.4's rules in every Lua version
** (the 5.4 API the vendored code uses is supplied by compat.h).
*/
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "compat.h"
#include "sandbox_match.h"

#define PSOL_MATCH_TICK 1024u /* steps between calls of the charge function */

/* Registry key of a userdata holding the charge function. */
static const char charge_key = 'c';

static void no_charge(lua_State *L, uint64_t cost) {
  (void)L;
  (void)cost;
}

/* The charge function installed in L's registry (raw access: no
** allocation, nothing raised). */
static psol_charge_fn charge_of(lua_State *L) {
  const psol_charge_fn *f;
  lua_pushlightuserdata(L, (void *)&charge_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  f = (const psol_charge_fn *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  return f && *f ? *f : no_charge;
}

/* ---- what lstrlib.c takes from its own file and from Lua's internals */
#if !defined(LUA_MAXCAPTURES)
#define LUA_MAXCAPTURES 32
#endif
#define uchar(c) ((unsigned char)(c))
#ifndef l_unlikely /* luaconf.h defines it for LUA_LIB builds only */
#define l_unlikely(x) (x)
#endif
#ifndef lua_assert /* lauxlib.h has it from 5.4 on */
#define lua_assert(c) ((void)0)
#endif

/* ---- the budget hooks (the "psoc" lines of the vendored file) */

/* Extra MatchState fields: the charge function and the steps not yet
** charged. */
#define PSOC_MATCHSTATE_FIELDS \
  psol_charge_fn charge;       \
  size_t steps;

struct MatchState;
static void psoc_steps(struct MatchState *ms, size_t n);

#define PSOC_STEPS(ms, n) psoc_steps((ms), (n))
#define PSOC_STEP(ms) psoc_steps((ms), 1)
#define PSOC_PREPSTATE(ms) ((ms)->charge = charge_of((ms)->L), (ms)->steps = 0)

/* lmemfind: 'psoc_due' collects the cost of the plain search, charged
** every PSOL_MATCH_TICK and when the search ends. */
#define PSOC_MEMFIND_START(L)                \
  psol_charge_fn psoc_charge = charge_of(L); \
  uint64_t psoc_due = 1
#define PSOC_MEMFIND_TRY(L, scanned)          \
  do {                                        \
    psoc_due += 1 + ((scanned) >> 4);         \
    if (psoc_due >= PSOL_MATCH_TICK) {        \
      psoc_charge((L), psoc_due);             \
      psoc_due = 0;                           \
    }                                         \
  } while (0)
#define PSOC_MEMFIND_FOUND(L) psoc_charge((L), psoc_due)
#define PSOC_MEMFIND_END(L, rest) psoc_charge((L), psoc_due + (rest))

/* The vendored code is compiled here, as part of this file, so that it sees
** the hooks above (a relative path: every build of bindings/lua finds it). */
#include "../../vendor/lua-5.4.4/lstrlib_match.c" /* NOLINT(bugprone-suspicious-include) */

/* Count 'n' steps; every PSOL_MATCH_TICK of them are charged. */
static void psoc_steps(MatchState *ms, size_t n) {
  ms->steps += n;
  if (ms->steps >= PSOL_MATCH_TICK) {
    size_t due = ms->steps;
    ms->steps = 0;
    ms->charge(ms->L, (uint64_t)due);
  }
}

void psol_match_install(lua_State *L, int idx, psol_charge_fn charge) {
  static const luaL_Reg funcs[] = {
    { "find", str_find }, { "match", str_match }, { "gmatch", gmatch }, { "gsub", str_gsub },
    { NULL, NULL }
  };
  const luaL_Reg *r;
  psol_charge_fn *slot;
  idx = lua_absindex(L, idx);
  lua_pushlightuserdata(L, (void *)&charge_key);
  slot = (psol_charge_fn *)lua_newuserdata(L, sizeof *slot);
  *slot = charge;
  lua_rawset(L, LUA_REGISTRYINDEX);
  for (r = funcs; r->name; r++) {
    lua_pushcfunction(L, r->func);
    lua_setfield(L, idx, r->name);
  }
}
