/*
** pso_context.c: the per-state context of the pso module and its errors
** (layer 1; see pso_context.h for the chain of layers). The context holds
** the state's allocator, the builder every declaration reuses, a scratch
** arena for out-of-line arrays, a pointer-keyed cache of interned strings
** and the embedder's hooks. Errors name the script's file and line, and
** inside a table constructor the line of the offending key.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pso_context.h"

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

/* The first Lua frame at or above 'level' (C wrappers such as the
** sandbox's are skipped); 0 when there is none within a few levels. */
static int lua_frame(lua_State *L, int level, lua_Debug *ar) {
  int limit = level + 8;
  for (; level < limit && lua_getstack(L, level, ar); level++) /* the line first: cheap */
    if (lua_getinfo(L, "l", ar) && ar->currentline > 0) return lua_getinfo(L, "S", ar) ? level : 0;
  return 0;
}

/* ---- the line of a key inside a table constructor ------------------- */
/*
** A small Lua tokenizer over the chunk's source: enough to skip strings,
** long strings and comments and to see names, '=', ',', ';' and braces.
** key_line finds, from the call's line, the first '{' (the declaration),
** then keys[0] at the constructor's top level, then each next key inside
** the previous key's value (a list index: that entry of the list); it
** returns the line of the deepest step found (0 when the first is not
** found: the call's line stays).
*/
typedef struct lex {
  const char *s;
  size_t i, n;
  int line;
} lex;

enum { TK_END, TK_NAME, TK_OPEN, TK_CLOSE, TK_SEP, TK_EQ, TK_OTHER };

static size_t long_bracket(const lex *x, size_t i) { /* level of "[==[" at i, or 0 */
  size_t j = i + 1, level = 0;
  while (j < x->n && x->s[j] == '=') j++, level++;
  return j < x->n && x->s[j] == '[' ? level + 1 : 0;
}

static void skip_long(lex *x, size_t level) { /* x->i at the opening '[' */
  x->i += level + 1;
  while (x->i < x->n) {
    char c = x->s[x->i];
    if (c == '\n') x->line++;
    if (c == ']') {
      size_t j = x->i + 1, k = 0;
      while (j < x->n && x->s[j] == '=') j++, k++;
      if (k + 1 == level && j < x->n && x->s[j] == ']') {
        x->i = j + 1;
        return;
      }
    }
    x->i++;
  }
}

static int lex_next(lex *x, size_t *start, size_t *len) {
  while (x->i < x->n) {
    char c = x->s[x->i];
    size_t lv;
    if (c == '\n') {
      x->line++;
      x->i++;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      x->i++;
    } else if (c == '-' && x->i + 1 < x->n && x->s[x->i + 1] == '-') {
      x->i += 2;
      if (x->i < x->n && x->s[x->i] == '[' && (lv = long_bracket(x, x->i)) != 0) {
        skip_long(x, lv);
      } else {
        while (x->i < x->n && x->s[x->i] != '\n') x->i++;
      }
    } else if (c == '"' || c == '\'') {
      x->i++;
      while (x->i < x->n && x->s[x->i] != c && x->s[x->i] != '\n') {
        if (x->s[x->i] == '\\' && x->i + 1 < x->n) {
          if (x->s[x->i + 1] == '\n') x->line++;
          x->i++;
        }
        x->i++;
      }
      x->i++;
      return TK_OTHER;
    } else if (c == '[' && (lv = long_bracket(x, x->i)) != 0) {
      skip_long(x, lv);
      return TK_OTHER;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
      *start = x->i;
      while (x->i < x->n && ((x->s[x->i] >= 'a' && x->s[x->i] <= 'z') ||
                             (x->s[x->i] >= 'A' && x->s[x->i] <= 'Z') ||
                             (x->s[x->i] >= '0' && x->s[x->i] <= '9') || x->s[x->i] == '_'))
        x->i++;
      *len = x->i - *start;
      return TK_NAME;
    } else {
      x->i++;
      if (c == '{') return TK_OPEN;
      if (c == '}') return TK_CLOSE;
      if (c == ',' || c == ';') return TK_SEP;
      if (c == '=') {
        if (x->i < x->n && x->s[x->i] == '=') {
          x->i++;
          return TK_OTHER;
        }
        return TK_EQ;
      }
      return TK_OTHER;
    }
  }
  return TK_END;
}

/* Within the current table (depth 1 = its top level) find 'key =' at
** depth 'want' relative to here (0: any depth), stopping when the table
** closes; the lexer is left after the '='. Returns the key's line or 0. */
static int find_key(lex *x, const char *key, int any_depth) {
  size_t klen = strlen(key), st = 0, ln = 0, guard;
  int depth = 1, prev_name = 0, name_line = 0;
  size_t prev_st = 0, prev_len = 0;
  for (guard = 0; guard < 200000; guard++) {
    int t = lex_next(x, &st, &ln), line = x->line;
    if (t == TK_END) return 0;
    if (t == TK_OPEN) depth++;
    if (t == TK_CLOSE && --depth == 0) return 0;
    if (t == TK_EQ && prev_name && (any_depth || depth == 1) && prev_len == klen &&
        memcmp(x->s + prev_st, key, klen) == 0)
      return name_line;
    prev_name = t == TK_NAME;
    if (prev_name) {
      prev_st = st;
      prev_len = ln;
      name_line = line;
    }
  }
  return 0;
}

/* At a value that should be a list constructor: move to the start of its
** entry 'index' (1-based); returns the line of that entry or 0. */
static int skip_to_entry(lex *x, int index) {
  size_t st, ln;
  int depth = 1, sep = 0, guard;
  lex peek;
  if (lex_next(x, &st, &ln) != TK_OPEN) return 0;
  for (guard = 0; sep < index - 1 && guard < 200000; guard++) {
    int t = lex_next(x, &st, &ln);
    if (t == TK_END) return 0;
    if (t == TK_OPEN) depth++;
    if (t == TK_CLOSE && --depth == 0) return 0;
    if (t == TK_SEP && depth == 1) sep++;
  }
  peek = *x;
  return lex_next(&peek, &st, &ln) == TK_CLOSE ? 0 : peek.line;
}

static int key_line(const char *src, size_t n, int call_line, const char *const *keys,
                    const int *indexes, int nkeys) {
  lex x;
  size_t st, ln;
  int k, line = 0, guard;
  x.s = src;
  x.n = n;
  x.i = 0;
  x.line = 1;
  while (x.i < n && x.line < call_line) /* to the call's line */
    if (src[x.i++] == '\n') x.line++;
  for (guard = 0;; guard++) { /* the declaration's '{' */
    int t = lex_next(&x, &st, &ln);
    if (t == TK_OPEN) break;
    if (t == TK_END || guard > 64) return 0;
  }
  for (k = 0; k < nkeys; k++) {
    int l = keys[k] ? find_key(&x, keys[k], k > 0) : skip_to_entry(&x, indexes[k]);
    if (!l) break;
    line = l;
  }
  return line;
}

/* Chunk sources the embedder remembered (pso_remember_source). */
#define PSOI_SOURCES_KEY "pso.sources"

void pso_remember_source(lua_State *L, const char *chunkname, const char *src, size_t len) {
  if (!chunkname || (chunkname[0] != '@' && chunkname[0] != '=')) return; /* source = name */
  if (!lua_checkstack(L, 4)) return;
  lua_getfield(L, LUA_REGISTRYINDEX, PSOI_SOURCES_KEY);
  if (lua_type(L, -1) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, PSOI_SOURCES_KEY);
  }
  lua_pushlstring(L, src, len);
  lua_setfield(L, -2, chunkname);
  lua_pop(L, 1);
}

/* The line of the offending key for a frame, or 0. */
static int frame_key_line(lua_State *L, const lua_Debug *ar, const char *const *keys,
                          const int *indexes, int nkeys) {
  const char *src = NULL;
  size_t n = 0;
  int line = 0;
  if (nkeys <= 0 || !keys[0]) return 0;
  if (ar->source[0] != '@' && ar->source[0] != '=') { /* a string chunk: the name is its text */
    src = ar->source;
    n = strlen(src);
    return key_line(src, n, ar->currentline, keys, indexes, nkeys);
  }
  if (!lua_checkstack(L, 3)) return 0;
  lua_getfield(L, LUA_REGISTRYINDEX, PSOI_SOURCES_KEY);
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_getfield(L, -1, ar->source);
    if (lua_type(L, -1) == LUA_TSTRING) {
      src = lua_tolstring(L, -1, &n);
      line = key_line(src, n, ar->currentline, keys, indexes, nkeys);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return line;
}

/* A frame's chunk as pso_site names it. */
static const char *site_source(const lua_Debug *ar) {
  return ar->source[0] == '@' || ar->source[0] == '=' ? ar->source + 1 : ar->short_src;
}

int psoi_site_cached(lua_State *L, psoi_ctx *ctx, int keys_idx, int level, pso_site *site) {
  lua_Debug ar;
  int limit = level + 8;
  site->source = NULL;
  site->line = 0;
  keys_idx = lua_absindex(L, keys_idx);
  for (; level < limit && lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "fl", &ar)) return 0; /* pushes the function */
    if (ar.currentline <= 0) { /* a C function (a wrapper): the next frame */
      lua_pop(L, 1);
      continue;
    }
    if (lua_topointer(L, -1) != ctx->site_fn || !ctx->site_fn) {
      /* another function: its chunk name, and anchor it (the pointer names
      ** this function only while the key table holds it) */
      if (!lua_getinfo(L, "S", &ar)) {
        lua_pop(L, 1);
        return 0;
      }
      if (ar.source[0] == '@' || ar.source[0] == '=') {
        ctx->site_source = ar.source + 1; /* kept alive by the function */
      } else {
        memcpy(ctx->site_short, ar.short_src, sizeof ctx->site_short);
        ctx->site_short[sizeof ctx->site_short - 1] = '\0';
        ctx->site_source = ctx->site_short;
      }
      ctx->site_fn = lua_topointer(L, -1);
      lua_rawseti(L, keys_idx, PSOI_K_SITE_FN);
    } else {
      lua_pop(L, 1);
    }
    site->source = ctx->site_source;
    site->line = ar.currentline;
    return 1;
  }
  return 0;
}

/* The last error the module raised, as data (pso_error_info): a list of
** the message as raised, then per error PSOI_ERR_FIELDS values: source
** (false: none), line, from source (false: none), from line, field path,
** message alone. */
#define PSOI_ERROR_KEY "pso.error"

static void set_string_or_false(lua_State *L, int t, int i, const char *s) {
  if (s)
    lua_pushstring(L, s);
  else
    lua_pushboolean(L, 0);
  lua_rawseti(L, t, i);
}

void psoi_push_where_keys(lua_State *L, int level, const char *field, const char *msg,
                          const char *const *keys, const int *indexes, int nkeys) {
  lua_Debug ar, up;
  char first[LUA_IDSIZE], from[LUA_IDSIZE + 24];
  int l, line = 0, from_line = 0, guard, rec;
  const char *sep;
  if (!field) field = "";
  sep = field[0] ? ": " : "";
  luaL_checkstack(L, 8, "pso: stack overflow");
  lua_createtable(L, 1 + PSOI_ERR_FIELDS, 0);
  rec = lua_gettop(L);
  set_string_or_false(L, rec, 2, NULL);
  set_string_or_false(L, rec, 4, NULL);
  l = lua_frame(L, level, &ar);
  if (!l) {
    lua_pushfstring(L, "%s%s%s", field, sep, msg);
  } else {
    snprintf(first, sizeof first, "%s", ar.short_src);
    line = frame_key_line(L, &ar, keys, indexes, nkeys);
    if (line < ar.currentline) line = ar.currentline;
    set_string_or_false(L, rec, 2, site_source(&ar));
    from[0] = '\0';
    /* Called from another file by Lua code (a factory in lib/eng.lua called
    ** by the material): name the outermost such caller too. The walk stops
    ** at the first C frame (pcall, the runner), so it never leaves the
    ** script. */
    for (guard = 0, l++; guard < 64 && lua_getstack(L, l, &up); guard++, l++) {
      if (!lua_getinfo(L, "Sl", &up) || up.currentline <= 0) break;
      if (strcmp(up.short_src, first) != 0) {
        snprintf(from, sizeof from, " (from %s:%d)", up.short_src, up.currentline);
        from_line = up.currentline;
        set_string_or_false(L, rec, 4, site_source(&up));
      }
    }
    lua_pushfstring(L, "%s:%d: %s%s%s%s", first, line, field, sep, msg, from);
  }
  lua_pushvalue(L, -1);
  lua_rawseti(L, rec, 1);
  lua_pushinteger(L, line);
  lua_rawseti(L, rec, 3);
  lua_pushinteger(L, from_line);
  lua_rawseti(L, rec, 5);
  lua_pushstring(L, field);
  lua_rawseti(L, rec, 6);
  lua_pushstring(L, msg);
  lua_rawseti(L, rec, 7);
  lua_pushvalue(L, rec);
  lua_setfield(L, LUA_REGISTRYINDEX, PSOI_ERROR_KEY);
  lua_remove(L, rec);
}

void psoi_push_where(lua_State *L, int level, const char *msg) {
  psoi_push_where_keys(L, level, NULL, msg, NULL, NULL, 0);
}

int psoi_push_error_record(lua_State *L, int idx) {
  const char *v, *m;
  size_t vlen, mlen;
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TSTRING || !lua_checkstack(L, 3)) return 0;
  lua_getfield(L, LUA_REGISTRYINDEX, PSOI_ERROR_KEY);
  if (lua_type(L, -1) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 0;
  }
  lua_rawgeti(L, -1, 1);
  m = lua_tolstring(L, -1, &mlen);
  v = lua_tolstring(L, idx, &vlen);
  lua_pop(L, 1);
  if (!m || vlen < mlen || memcmp(v, m, mlen) != 0 || (vlen > mlen && v[mlen] != '\n')) {
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

void psoi_set_error_record(lua_State *L, int idx) {
  lua_pushvalue(L, idx);
  lua_setfield(L, LUA_REGISTRYINDEX, PSOI_ERROR_KEY);
}

/* The string at t[i], or NULL (false). Anchored in t. */
static const char *string_at(lua_State *L, int t, int i) {
  const char *s;
  lua_rawgeti(L, t, i);
  s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  lua_pop(L, 1);
  return s;
}

static int int_at(lua_State *L, int t, int i) {
  int v;
  lua_rawgeti(L, t, i);
  v = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

size_t pso_error_info(lua_State *L, int idx, pso_error *out, size_t max) {
  size_t n, i;
  int t;
  if (!psoi_push_error_record(L, idx)) return 0;
  t = lua_gettop(L);
  n = (lua_rawlen(L, t) - 1) / PSOI_ERR_FIELDS;
  for (i = 0; i < n && i < max; i++) {
    int b = 2 + (int)i * PSOI_ERR_FIELDS;
    out[i].site.source = string_at(L, t, b);
    out[i].site.line = int_at(L, t, b + 1);
    out[i].from.source = string_at(L, t, b + 2);
    out[i].from.line = int_at(L, t, b + 3);
    out[i].field = string_at(L, t, b + 4);
    out[i].message = string_at(L, t, b + 5);
    if (!out[i].field) out[i].field = "";
    if (!out[i].message) out[i].message = "";
  }
  lua_pop(L, 1);
  return n;
}

int psoi_error(lua_State *L, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  psoi_push_where(L, 1, msg);
  return lua_error(L);
}

/* ------------------------------------------------------------------ */
/* Scratch arena (out-of-line arrays until the builder copies them)     */
/* ------------------------------------------------------------------ */

struct psoi_chunk {
  psoi_chunk *next;
  size_t size, used;
};

#define CHUNK_HEADER ((sizeof(psoi_chunk) + 15u) & ~(size_t)15u)
#define CHUNK_MIN 4096u

static unsigned char *chunk_data(psoi_chunk *c) { return (unsigned char *)c + CHUNK_HEADER; }

void *psoi_arena_take(psoi_ctx *ctx, size_t size) {
  psoi_chunk *c;
  size_t csize;
  unsigned char *p;
  if (size > ((size_t)-1) / 2) return NULL;
  size = (size + 15u) & ~(size_t)15u;
  for (c = ctx->chunks; c; c = c->next) {
    if (c->size - c->used >= size) {
      p = chunk_data(c) + c->used;
      c->used += size;
      return p;
    }
  }
  csize = size > CHUNK_MIN ? size : CHUNK_MIN;
  c = ctx->alloc.fn(ctx->alloc.ud, NULL, 0, CHUNK_HEADER + csize);
  if (!c) return NULL;
  c->size = csize;
  c->used = size;
  c->next = ctx->chunks;
  ctx->chunks = c;
  return chunk_data(c);
}

void *psoi_arena_alloc(psoi_ctx *ctx, size_t size) {
  void *p = psoi_arena_take(ctx, size);
  if (p) memset(p, 0, size);
  return p;
}

/* Keep the largest chunk only. */
void psoi_arena_reset(psoi_ctx *ctx) {
  psoi_chunk *c = ctx->chunks, *keep = NULL;
  if (c && !c->next) {
    c->used = 0;
    return;
  }
  while (c) {
    psoi_chunk *next = c->next;
    if (!keep || c->size > keep->size) {
      if (keep) ctx->alloc.fn(ctx->alloc.ud, keep, CHUNK_HEADER + keep->size, 0);
      keep = c;
    } else {
      ctx->alloc.fn(ctx->alloc.ud, c, CHUNK_HEADER + c->size, 0);
    }
    c = next;
  }
  if (keep) {
    keep->next = NULL;
    keep->used = 0;
  }
  ctx->chunks = keep;
}

/* ------------------------------------------------------------------ */
/* Pointer-keyed cache of interned strings                              */
/* ------------------------------------------------------------------ */

static size_t imap_slot(const void *owner, const char *str, size_t mask) {
  uint64_t h = (uint64_t)(uintptr_t)str * 0x9e3779b97f4a7c15ull;
  h ^= (uint64_t)(uintptr_t)owner * 0xc2b2ae3d27d4eb4full;
  return (size_t)(h >> 17) & mask;
}

int psoi_imap_get(const psoi_ctx *ctx, const void *owner, const char *str, int64_t *value) {
  size_t mask, i;
  if (!ctx->imap) return 0;
  mask = ctx->imap_cap - 1;
  for (i = imap_slot(owner, str, mask);; i = (i + 1) & mask) {
    const psoi_ientry *e = &ctx->imap[i];
    if (!e->str) return 0;
    if (e->str == str && e->owner == owner) {
      *value = e->value;
      return 1;
    }
  }
}

static void imap_insert(psoi_ientry *map, size_t cap, const void *owner, const char *str,
                        int64_t value) {
  size_t mask = cap - 1, i;
  for (i = imap_slot(owner, str, mask);; i = (i + 1) & mask) {
    psoi_ientry *e = &map[i];
    if (!e->str || (e->str == str && e->owner == owner)) {
      e->owner = owner;
      e->str = str;
      e->value = value;
      return;
    }
  }
}

void psoi_imap_put(psoi_ctx *ctx, const void *owner, const char *str, int64_t value) {
  if (ctx->imap_count + 1 > ctx->imap_cap / 2) { /* grow (or skip caching on failure) */
    size_t cap = ctx->imap_cap ? ctx->imap_cap * 2 : 512, i;
    psoi_ientry *map;
    if (cap > ((size_t)1 << 24)) return;
    map = ctx->alloc.fn(ctx->alloc.ud, NULL, 0, cap * sizeof *map);
    if (!map) return;
    memset(map, 0, cap * sizeof *map);
    for (i = 0; i < ctx->imap_cap; i++)
      if (ctx->imap[i].str)
        imap_insert(map, cap, ctx->imap[i].owner, ctx->imap[i].str, ctx->imap[i].value);
    if (ctx->imap) ctx->alloc.fn(ctx->alloc.ud, ctx->imap, ctx->imap_cap * sizeof *map, 0);
    ctx->imap = map;
    ctx->imap_cap = cap;
  }
  {
    int64_t old;
    if (!psoi_imap_get(ctx, owner, str, &old)) ctx->imap_count++;
  }
  imap_insert(ctx->imap, ctx->imap_cap, owner, str, value);
}

/* ------------------------------------------------------------------ */
/* Per-state context                                                    */
/* ------------------------------------------------------------------ */

static int context_gc(lua_State *L) {
  psoi_ctx *ctx = lua_touserdata(L, 1);
  psoi_chunk *c;
  if (!ctx) return 0;
  psoc_builder_free(ctx->builder);
  ctx->builder = NULL;
  c = ctx->chunks;
  while (c) {
    psoi_chunk *next = c->next;
    ctx->alloc.fn(ctx->alloc.ud, c, CHUNK_HEADER + c->size, 0);
    c = next;
  }
  ctx->chunks = NULL;
  if (ctx->imap) ctx->alloc.fn(ctx->alloc.ud, ctx->imap, ctx->imap_cap * sizeof *ctx->imap, 0);
  ctx->imap = NULL;
  return 0;
}

/* Push the state's context (created on first use). */
psoi_ctx *psoi_push_context(lua_State *L) {
  psoi_ctx *ctx;
  lua_getfield(L, LUA_REGISTRYINDEX, PSOI_CONTEXT_KEY);
  ctx = lua_touserdata(L, -1);
  if (ctx) return ctx;
  lua_pop(L, 1);
  ctx = pso_compat_newuserdata(L, sizeof *ctx);
  memset(ctx, 0, sizeof *ctx);
  ctx->alloc.fn = lua_getallocf(L, &ctx->alloc.ud);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, context_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  if (psoc_builder_new(&ctx->alloc, &ctx->builder) != PSOC_OK)
    luaL_error(L, "not enough memory");
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, PSOI_CONTEXT_KEY);
  return ctx;
}

psoi_ctx *psoi_context(lua_State *L) {
  psoi_ctx *ctx = lua_touserdata(L, PSOI_UV_CTX);
  if (ctx) return ctx;
  ctx = psoi_push_context(L);
  lua_pop(L, 1);
  return ctx;
}

void pso_set_hooks(lua_State *L, const pso_hooks *hooks) {
  psoi_ctx *ctx = psoi_push_context(L);
  lua_pop(L, 1);
  if (hooks)
    ctx->hooks = *hooks;
  else
    memset(&ctx->hooks, 0, sizeof ctx->hooks);
}

/* " (did you mean 'a', 'b'?)" from a list of candidate spellings. */
static void suggestion_text(const char *wrong, const char *const *cands, size_t ncands,
                            char *out, size_t n) {
  psoc_enum_value vals[160];
  psoc_enum e;
  const char *best[3];
  size_t i, nv = 0, ns, len = 0;
  out[0] = '\0';
  for (i = 0; i < ncands && nv < 160; i++) {
    size_t j;
    for (j = 0; j < nv; j++)
      if (strcmp(vals[j].key, cands[i]) == 0) break;
    if (j < nv) continue;
    vals[nv].name = cands[i];
    vals[nv].key = cands[i];
    vals[nv].value = (uint32_t)nv;
    nv++;
  }
  if (nv == 0) return;
  e.name = "";
  e.key = "";
  e.values = vals;
  e.count = (uint32_t)nv;
  ns = psoc_enum_suggest(&e, wrong, best, 3);
  if (ns > 0) {
    len = (size_t)snprintf(out, n, " (did you mean ");
    for (i = 0; i < ns && len < n; i++)
      len += (size_t)snprintf(out + len, n - len, "%s'%s'", i ? ", " : "", best[i]);
    if (len < n) snprintf(out + len, n - len, "?)");
  } else if (nv <= 16) {
    len = (size_t)snprintf(out, n, " (valid: ");
    for (i = 0; i < nv && len < n; i++)
      len += (size_t)snprintf(out + len, n - len, "%s%s", i ? ", " : "", vals[i].key);
    if (len < n) snprintf(out + len, n - len, ")");
  }
}

void psoi_suggest(const char *wrong, const char *const *cands, size_t ncands, char *out,
                  size_t n) {
  suggestion_text(wrong, cands, ncands, out, n);
}

