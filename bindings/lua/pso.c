/*
** pso.c: the `pso` Lua module: material authors declare Direct3D 12
** pipeline state and get pipelines holding D3D12_PIPELINE_STATE_STREAM_DESC
** bytes. The language (see also DESIGN.md section 3):
**
**   pso.graphics { name = "lit", vs = pso.shader "lit.vs.cso", ... }
**   pso.mesh { ms = ..., ... }      pso.compute { cs = ..., ... }
**       Top-level keys are the registry's subobject keys (plus name).
**       Sub-keys are field keys or D3D12 member names. Strict: unknown
**       keys, unknown names, wrong types and out-of-range numbers raise
**       "FILE:LINE: PATH: message (did you mean 'x'?)". Shorthands are
**       listed in pso_convert.c.
**   pso.derive(base, overrides)     overrides.name is required; records
**       merge key by key, lists and scalars replace (blend.render_targets
**       too: the override's list replaces the base's); pso.none removes a
**       subobject. The base's declaration tables must not be modified
**       after declaring (derive checks, and says so).
**   pso.shader "file" | pso.shader { file = ... } | pso.shader { bytes = ... }
**   pso.blob   (same forms)         for cached_pso, serialized_root_signature
**   pso.none                        "remove / not given"
**   pso.preset(name, table)         an immutable preset tagged "preset NAME"
**       (a read-only userdata proxy: p.key, #p, pairs(p) on 5.2+)
**   pso.preset_pairs(p)             pairs over a preset, every Lua version
**   pso.copy(value)                 a modifiable deep copy (presets unwrapped)
**   pso.blend.{opaque, alpha, premultiplied, additive, multiply}
**       (namespaces: an unknown name, pso.blend.alpah, is an error)
**   pso.rasterizer.{default, cull_none, cull_front, wireframe, shadow_bias}
**   pso.depth.{default, read_only, reverse_z, disabled, equal}
**   pso.is_pipeline(v), pso.same(a, b) (equal hashes)
**   pso.check_bytes(bytes)          psoc_check diagnostics of a raw stream
**   pso.version, pso.APPEND_ALIGNED
** Pipelines: see pso_pipeline.c.
*/
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pso_internal.h"
#include "pso_rootsig.h"

const char psoi_preset_data_tag = 'd';
const char psoi_preset_label_tag = 'l';
const char psoi_namespace_tag = 'n';

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

/* The first Lua frame at or above 'level' (C wrappers such as the
** sandbox's are skipped); 0 when there is none within a few levels. */
static int lua_frame(lua_State *L, int level, lua_Debug *ar) {
  int limit = level + 8;
  for (; level < limit && lua_getstack(L, level, ar); level++)
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0) return level;
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

void psoi_push_where_keys(lua_State *L, int level, const char *msg, const char *const *keys,
                          const int *indexes, int nkeys) {
  lua_Debug ar, up;
  char first[LUA_IDSIZE], from[LUA_IDSIZE + 24];
  int l = lua_frame(L, level, &ar), line, guard;
  if (!l) {
    lua_pushstring(L, msg);
    return;
  }
  snprintf(first, sizeof first, "%s", ar.short_src);
  line = frame_key_line(L, &ar, keys, indexes, nkeys);
  if (line < ar.currentline) line = ar.currentline;
  from[0] = '\0';
  /* Called from another file by Lua code (a factory in lib/eng.lua called by
  ** the material): name the outermost such caller too. The walk stops at
  ** the first C frame (pcall, the runner), so it never leaves the script. */
  for (guard = 0, l++; guard < 64 && lua_getstack(L, l, &up); guard++, l++) {
    if (!lua_getinfo(L, "Sl", &up) || up.currentline <= 0) break;
    if (strcmp(up.short_src, first) != 0)
      snprintf(from, sizeof from, " (from %s:%d)", up.short_src, up.currentline);
  }
  lua_pushfstring(L, "%s:%d: %s%s", first, line, msg, from);
}

void psoi_push_where(lua_State *L, int level, const char *msg) {
  psoi_push_where_keys(L, level, msg, NULL, NULL, 0);
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

/* The builder's allocator: the state's lua_Alloc, except that a stream
** block being captured comes from the pipeline userdata prepared for it. */
static void *ctx_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  psoi_ctx *ctx = ud;
  if (!ptr && nsize && ctx->capture_mem) {
    unsigned char *mem = ctx->capture_mem;
    if (nsize > ctx->capture_cap) {
      ctx->capture_need = nsize;
      return NULL;
    }
    ctx->capture_mem = NULL;
    ctx->captured = mem;
    return mem;
  }
  if (ptr && ptr == ctx->captured) { /* owned by the userdata: never freed */
    if (nsize == 0) ctx->captured = NULL;
    return NULL;
  }
  return ctx->alloc.fn(ctx->alloc.ud, ptr, osize, nsize);
}

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
static psoi_ctx *push_context(lua_State *L) {
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
  ctx->builder_alloc.fn = ctx_alloc;
  ctx->builder_alloc.ud = ctx;
  if (psoc_builder_new(&ctx->builder_alloc, &ctx->builder) != PSOC_OK)
    luaL_error(L, "not enough memory");
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, PSOI_CONTEXT_KEY);
  return ctx;
}

psoi_ctx *psoi_context(lua_State *L) {
  psoi_ctx *ctx = lua_touserdata(L, PSOI_UV_CTX);
  if (ctx) return ctx;
  ctx = push_context(L);
  lua_pop(L, 1);
  return ctx;
}

void pso_set_hooks(lua_State *L, const pso_hooks *hooks) {
  psoi_ctx *ctx = push_context(L);
  lua_pop(L, 1);
  if (hooks)
    ctx->hooks = *hooks;
  else
    memset(&ctx->hooks, 0, sizeof ctx->hooks);
}

/* ------------------------------------------------------------------ */
/* Shader and blob objects                                              */
/* ------------------------------------------------------------------ */

psoi_blob *psoi_push_blob(lua_State *L, int kind, const void *bytes, size_t size,
                          const char *file) {
  size_t flen = file ? strlen(file) : 0;
  psoi_blob *b;
  if (size > ((size_t)-1) / 2 - flen - sizeof *b) luaL_error(L, "blob too large");
  b = pso_compat_newuserdata(L, sizeof *b + size + flen + 1);
  b->kind = kind;
  b->size = size;
  b->file_len = flen;
  if (size) memcpy(b->data, bytes, size);
  if (flen) memcpy(b->data + size, file, flen);
  b->data[size + flen] = '\0';
  luaL_setmetatable(L, PSOI_BLOB_MT);
  return b;
}

psoi_blob *psoi_toblob(lua_State *L, int idx, int keys_idx) {
  psoi_blob *b;
  const void *mt;
  (void)keys_idx;
  if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return NULL;
  mt = lua_topointer(L, -1);
  lua_pop(L, 1);
  b = lua_touserdata(L, idx);
  return mt && mt == psoi_context(L)->blob_mt ? b : NULL;
}

const char *psoi_blob_file(const psoi_blob *b) {
  return b->file_len ? (const char *)b->data + b->size : NULL;
}

static const char *blob_kind_name(const psoi_blob *b) {
  return b->kind == PSOI_BLOB_SHADER ? "shader" : "blob";
}

static int blob_index(lua_State *L) {
  const psoi_blob *b = luaL_checkudata(L, 1, PSOI_BLOB_MT);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "bytes") == 0) lua_pushlstring(L, (const char *)b->data, b->size);
  else if (strcmp(k, "size") == 0) pso_compat_pushuint(L, b->size);
  else if (strcmp(k, "file") == 0) {
    if (b->file_len) lua_pushlstring(L, (const char *)b->data + b->size, b->file_len);
    else lua_pushnil(L);
  } else if (strcmp(k, "kind") == 0) lua_pushstring(L, blob_kind_name(b));
  else return psoi_error(L, "a %s has no field '%s' (it has bytes, size, file, kind)",
                         blob_kind_name(b), k);
  return 1;
}

static int blob_newindex(lua_State *L) {
  const psoi_blob *b = luaL_checkudata(L, 1, PSOI_BLOB_MT);
  return psoi_error(L, "a %s is read-only", blob_kind_name(b));
}

static int blob_tostring(lua_State *L) {
  const psoi_blob *b = luaL_checkudata(L, 1, PSOI_BLOB_MT);
  const char *file = psoi_blob_file(b);
  if (file)
    lua_pushfstring(L, "%s '%s' (%d bytes)", blob_kind_name(b), file, (int)b->size);
  else
    lua_pushfstring(L, "%s (%d bytes)", blob_kind_name(b), (int)b->size);
  return 1;
}

static int blob_eq(lua_State *L) {
  const psoi_blob *a = luaL_testudata(L, 1, PSOI_BLOB_MT), *b = luaL_testudata(L, 2, PSOI_BLOB_MT);
  lua_pushboolean(L, a && b && a->kind == b->kind && a->size == b->size &&
                         memcmp(a->data, b->data, a->size) == 0);
  return 1;
}

static int blob_len(lua_State *L) {
  const psoi_blob *b = luaL_checkudata(L, 1, PSOI_BLOB_MT);
  pso_compat_pushuint(L, b->size);
  return 1;
}

/* Default file reader: fopen relative to the current directory. */
static int read_file_default(lua_State *L, const char *path) {
  luaL_Buffer buf;
  FILE *f = fopen(path, "rb");
  size_t n;
  if (!f) {
    lua_pushstring(L, strerror(errno));
    return 0;
  }
  luaL_buffinit(L, &buf);
  do {
    char *p = luaL_prepbuffer(&buf);
    n = fread(p, 1, LUAL_BUFFERSIZE, f);
    luaL_addsize(&buf, n);
  } while (n == LUAL_BUFFERSIZE);
  if (ferror(f)) {
    int e = errno;
    fclose(f);
    luaL_pushresult(&buf);
    lua_pop(L, 1);
    lua_pushstring(L, strerror(e));
    return 0;
  }
  fclose(f);
  luaL_pushresult(&buf);
  return 1;
}

static int make_blob(lua_State *L, int kind) {
  const char *fn = kind == PSOI_BLOB_SHADER ? "pso.shader" : "pso.blob";
  const char *path = NULL;
  size_t size;
  const char *bytes;
  int top;
  psoi_ctx *ctx = psoi_context(L);
  if (lua_type(L, 1) == LUA_TSTRING) {
    path = lua_tostring(L, 1);
  } else if (lua_type(L, 1) == LUA_TTABLE) {
    int have = 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
      const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
      if (k && strcmp(k, "file") == 0) {
        if (lua_type(L, -1) != LUA_TSTRING) return psoi_error(L, "%s: file: expected a string", fn);
        path = lua_tostring(L, -1);
        have |= 1;
      } else if (k && strcmp(k, "bytes") == 0) {
        if (lua_type(L, -1) != LUA_TSTRING)
          return psoi_error(L, "%s: bytes: expected a string", fn);
        have |= 2;
      } else {
        const char *dym = "";
        if (k && (k[0] == 'f' || k[0] == 'F')) dym = " (did you mean 'file'?)";
        if (k && (k[0] == 'b' || k[0] == 'B')) dym = " (did you mean 'bytes'?)";
        return psoi_error(L, "%s: unknown key '%s'%s; give file = \"path\" or bytes = \"...\"",
                          fn, k ? k : "?", dym);
      }
      lua_pop(L, 1);
    }
    if (have == 3) return psoi_error(L, "%s: give file or bytes, not both", fn);
    if (have == 0) return psoi_error(L, "%s: give file = \"path\" or bytes = \"...\"", fn);
  } else {
    return psoi_error(L, "%s: expected a file name or a table { file = ... } / { bytes = ... }, "
                         "got %s", fn, luaL_typename(L, 1));
  }
  top = lua_gettop(L);
  if (path) {
    int ok;
    if (!*path) return psoi_error(L, "%s: the file name is empty", fn);
    if (ctx->hooks.read_file)
      ok = ctx->hooks.read_file(ctx->hooks.ud, L, path);
    else
      ok = read_file_default(L, path);
    if (lua_gettop(L) != top + 1)
      return psoi_error(L, "%s: the read_file hook must push exactly one value", fn);
    if (!ok || lua_type(L, -1) != LUA_TSTRING)
      return psoi_error(L, "%s: cannot read '%s': %s", fn, path,
                        lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "read failed");
  } else {
    lua_getfield(L, 1, "bytes");
  }
  bytes = lua_tolstring(L, -1, &size);
  if (size == 0)
    return path ? psoi_error(L, "%s: '%s' is empty", fn, path) : psoi_error(L, "%s: bytes is empty", fn);
  psoi_push_blob(L, kind, bytes, size, path);
  return 1;
}

static int l_shader(lua_State *L) { return make_blob(L, PSOI_BLOB_SHADER); }
static int l_blob(lua_State *L) { return make_blob(L, PSOI_BLOB_DATA); }

/* ------------------------------------------------------------------ */
/* Presets and namespaces (immutable proxies)                           */
/* ------------------------------------------------------------------ */
/*
** A preset (or a namespace such as pso.blend) is a userdata whose own
** metatable holds its data table under psoi_preset_data_tag, and its label
** or namespace name. Userdata, not a table: rawset/rawget cannot reach it,
** and __metatable hides the metatable from getmetatable. Reading goes
** through __index (an unknown name in a namespace is an error with
** suggestions), # through __len, pairs through __pairs (Lua 5.2+) or
** pso.preset_pairs (every version); the iterator takes the proxy, never the
** data table, so the data is unreachable from scripts and explain's
** "(preset NAME)" always describes the values the preset was made with.
*/

static int proxy_label(lua_State *L, int idx) {
  if (lua_getmetatable(L, idx)) {
    if (lua_rawgetp(L, -1, &psoi_preset_label_tag) == LUA_TSTRING) return 1;
    lua_pop(L, 1);
    if (lua_rawgetp(L, -1, &psoi_namespace_tag) == LUA_TSTRING) {
      lua_pushfstring(L, "pso.%s", lua_tostring(L, -1));
      return 1;
    }
    lua_pop(L, 2);
  }
  lua_pushliteral(L, "preset");
  return 1;
}

int psoi_preset_data(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return 0;
  if (lua_rawgetp(L, -1, &psoi_preset_data_tag) == LUA_TTABLE) {
    lua_remove(L, -2);
    return 1;
  }
  lua_pop(L, 2);
  return 0;
}

static int proxy_newindex(lua_State *L) {
  proxy_label(L, 1);
  return psoi_error(L, "%s is read-only (pso.copy(...) makes a modifiable copy; pso.derive "
                       "overrides fields)", lua_tostring(L, -1));
}

static int proxy_tostring(lua_State *L) {
  proxy_label(L, 1);
  return 1;
}

static void proxy_checked_data(lua_State *L, int idx, const char *fn) {
  if (!psoi_preset_data(L, idx))
    psoi_error(L, "%s: expected a preset or a preset namespace, got %s", fn, luaL_typename(L, idx));
}

/* proxy[key]: the preset's value; in a namespace, an unknown name is an
** error naming the presets there ("never nil": a typo must not silently
** become the runtime default). */
static int proxy_index(lua_State *L) {
  proxy_checked_data(L, 1, "index");
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  if (!lua_isnil(L, -1)) return 1;
  lua_getmetatable(L, 1);
  if (lua_rawgetp(L, -1, &psoi_namespace_tag) == LUA_TSTRING) {
    const char *cands[64], *ns = lua_tostring(L, -1);
    char sugg[320];
    size_t n = 0;
    int data = lua_gettop(L) - 3;
    lua_pushnil(L);
    while (lua_next(L, data)) {
      lua_pop(L, 1);
      if (lua_type(L, -1) == LUA_TSTRING && n < 64) cands[n++] = lua_tostring(L, -1);
    }
    if (lua_type(L, 2) != LUA_TSTRING)
      return psoi_error(L, "pso.%s has no preset %s", ns, luaL_typename(L, 2));
    psoi_suggest(lua_tostring(L, 2), cands, n, sugg, sizeof sugg);
    if (!sugg[0]) { /* nothing close: list them all */
      size_t i, len = (size_t)snprintf(sugg, sizeof sugg, " (presets: ");
      for (i = 0; i < n && len < sizeof sugg; i++)
        len += (size_t)snprintf(sugg + len, sizeof sugg - len, "%s%s", i ? ", " : "", cands[i]);
      if (len < sizeof sugg) snprintf(sugg + len, sizeof sugg - len, ")");
    }
    return psoi_error(L, "pso.%s.%.60s: unknown preset%s", ns, lua_tostring(L, 2), sugg);
  }
  lua_pushnil(L);
  return 1;
}

static int proxy_len(lua_State *L) {
  proxy_checked_data(L, 1, "#");
  lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
  return 1;
}

/* The iterator of pairs(proxy) / pso.preset_pairs(proxy): (proxy, key) ->
** the next key and value of the data table. */
static int proxy_next(lua_State *L) {
  lua_settop(L, 2);
  proxy_checked_data(L, 1, "pso.preset_pairs");
  lua_pushvalue(L, 2);
  if (lua_next(L, 3)) return 2;
  lua_pushnil(L);
  return 1;
}

static int proxy_pairs(lua_State *L) {
  lua_settop(L, 1);
  proxy_checked_data(L, 1, "pso.preset_pairs");
  lua_pop(L, 1);
  lua_pushcfunction(L, proxy_next);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

/* A new proxy for the data table at data_idx and a tag value at -1 (stored
** under tag). Pops the tag value, pushes the proxy. */
static void push_proxy(lua_State *L, int data_idx, const void *tag) {
  int tagv = lua_gettop(L);
  data_idx = lua_absindex(L, data_idx);
  pso_compat_newuserdata(L, 1); /* the proxy */
  lua_createtable(L, 0, 10);
  lua_pushcfunction(L, proxy_index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, proxy_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, proxy_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, proxy_len);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, proxy_pairs);
  lua_setfield(L, -2, "__pairs");
  lua_pushliteral(L, "read-only");
  lua_setfield(L, -2, "__metatable");
  lua_pushvalue(L, data_idx);
  lua_rawsetp(L, -2, &psoi_preset_data_tag);
  lua_pushvalue(L, tagv);
  lua_rawsetp(L, -2, tag);
  lua_setmetatable(L, -2);
  lua_remove(L, tagv);
}

static int is_proxy(lua_State *L, int idx) {
  if (!psoi_preset_data(L, idx)) return 0;
  lua_pop(L, 1);
  return 1;
}

/* Freeze the table at idx into a preset proxy labelled by the string at
** label_idx; nested plain tables are frozen too. */
static void freeze(lua_State *L, int idx, int label_idx, int depth) {
  int data;
  idx = lua_absindex(L, idx);
  if (depth > 16) psoi_error(L, "pso.preset: tables nested too deeply (or a cycle)");
  luaL_checkstack(L, 8, "pso.preset: nesting too deep");
  lua_newtable(L);
  data = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pushvalue(L, -2);
    if (lua_type(L, -2) == LUA_TTABLE) {
      freeze(L, -2, label_idx, depth + 1);
      lua_rawset(L, data);
    } else {
      lua_pushvalue(L, -2);
      lua_rawset(L, data);
    }
    lua_pop(L, 1);
  }
  lua_pushvalue(L, label_idx);
  push_proxy(L, data, &psoi_preset_label_tag);
  lua_remove(L, data);
}

static int l_preset(lua_State *L) {
  size_t len;
  const char *name = luaL_checklstring(L, 1, &len);
  if (len == 0) return psoi_error(L, "pso.preset: the name is empty");
  if (is_proxy(L, 2)) return psoi_error(L, "pso.preset: argument 2 is already a preset");
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_pushfstring(L, "preset %s", name);
  freeze(L, 2, lua_gettop(L), 0);
  return 1;
}

/* pso.preset_pairs(p): pairs over a preset or namespace in every Lua
** version (5.1 and LuaJIT have no __pairs). */
static int l_preset_pairs(lua_State *L) { return proxy_pairs(L); }

int psoi_freeze_namespace(lua_State *L) {
  luaL_checkstring(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_newtable(L);
  lua_pushnil(L);
  while (lua_next(L, 2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, 3);
  }
  lua_pushvalue(L, 1);
  push_proxy(L, 3, &psoi_namespace_tag);
  return 1;
}

/* pso.copy: a plain, modifiable deep copy (presets unwrapped). */
static void deep_copy(lua_State *L, int idx, int depth) {
  int out;
  idx = lua_absindex(L, idx);
  if (depth > 32) psoi_error(L, "pso.copy: tables nested too deeply (or a cycle)");
  luaL_checkstack(L, 8, "pso.copy: nesting too deep");
  if (psoi_preset_data(L, idx)) {
    int data = lua_gettop(L);
    deep_copy(L, data, depth + 1);
    lua_remove(L, data);
    return;
  }
  if (lua_type(L, idx) != LUA_TTABLE) {
    lua_pushvalue(L, idx);
    return;
  }
  lua_newtable(L);
  out = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pushvalue(L, -2);
    deep_copy(L, -2, depth + 1);
    lua_rawset(L, out);
    lua_pop(L, 1);
  }
}

static int l_copy(lua_State *L) {
  luaL_checkany(L, 1);
  deep_copy(L, 1, 0);
  return 1;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

static int raw_graphics(lua_State *L) { return psoi_declare(L, PSOC_KIND_GRAPHICS, 1); }
static int raw_mesh(lua_State *L) { return psoi_declare(L, PSOC_KIND_MESH, 1); }
static int raw_compute(lua_State *L) { return psoi_declare(L, PSOC_KIND_COMPUTE, 1); }
static int l_graphics(lua_State *L) { return psoi_declare_all(L, PSOC_KIND_GRAPHICS); }
static int l_mesh(lua_State *L) { return psoi_declare_all(L, PSOC_KIND_MESH); }
static int l_compute(lua_State *L) { return psoi_declare_all(L, PSOC_KIND_COMPUTE); }
static int l_derive(lua_State *L) { return psoi_derive(L, 1, 2); }

static int l_is_pipeline(lua_State *L) {
  lua_pushboolean(L, pso_topipeline(L, 1) != NULL);
  return 1;
}

static int l_same(lua_State *L) {
  const pso_pipeline *a = pso_topipeline(L, 1), *b = pso_topipeline(L, 2);
  psoc_hash128 ha, hb;
  if (!a || !b) return psoi_error(L, "pso.same: expected two pipelines");
  ha = pso_pipeline_hash(a);
  hb = pso_pipeline_hash(b);
  lua_pushboolean(L, ha.lo == hb.lo && ha.hi == hb.hi && a->kind == b->kind);
  return 1;
}

static int l_check_bytes(lua_State *L) {
  size_t size;
  const char *s = luaL_checklstring(L, 1, &size);
  void *copy = pso_compat_newuserdata(L, size ? size : 1);
  psoi_ctx *ctx = psoi_context(L);
  psoc_diags diags;
  memcpy(copy, s, size);
  psoc_diags_init(&diags, &ctx->alloc);
  psoc_check(copy, size, NULL, &diags);
  psoi_push_diags(L, &diags, 0); /* raw bytes: D3D12 member paths */
  psoc_diags_free(&diags);
  return 1;
}

static const luaL_Reg module_funcs[] = {
  { "graphics", l_graphics },   { "mesh", l_mesh },
  { "compute", l_compute },     { "derive", l_derive },
  { "shader", l_shader },       { "blob", l_blob },
  { "preset", l_preset },       { "copy", l_copy },
  { "preset_pairs", l_preset_pairs },
  { "is_pipeline", l_is_pipeline }, { "same", l_same },
  { "check_bytes", l_check_bytes }, { NULL, NULL }
};

static const luaL_Reg blob_meta[] = {
  { "__index", blob_index }, { "__newindex", blob_newindex }, { "__tostring", blob_tostring },
  { "__eq", blob_eq },       { "__len", blob_len },           { NULL, NULL }
};

static int none_tostring(lua_State *L) {
  lua_pushliteral(L, "pso.none");
  return 1;
}

/* The key table K (created and filled once per state); pushed. */
static void push_keys(lua_State *L, psoi_ctx *ctx, int ctx_idx) {
  int K;
  lua_getfield(L, LUA_REGISTRYINDEX, PSOI_KEYS_KEY);
  if (lua_type(L, -1) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_newtable(L);
  K = lua_gettop(L);
  psoi_init_keys(L, ctx, K);
  /* shader and blob objects */
  luaL_newmetatable(L, PSOI_BLOB_MT);
  luaL_setfuncs(L, blob_meta, 0);
  lua_pushliteral(L, "read-only");
  lua_setfield(L, -2, "__metatable");
  ctx->blob_mt = lua_topointer(L, -1);
  lua_rawseti(L, K, PSOI_K_BLOB_MT);
  /* pso.none */
  ctx->none_ud = pso_compat_newuserdata(L, 1);
  luaL_newmetatable(L, PSOI_NONE_MT);
  lua_pushcfunction(L, none_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_setmetatable(L, -2);
  lua_rawseti(L, K, PSOI_K_NONE);
  /* converted presets, by their data table (weak keys) */
  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_rawseti(L, K, PSOI_K_PRESET_CACHE);
  /* the declaration functions, run protected by psoi_declare_all */
  {
    static const lua_CFunction raw[] = { raw_graphics, raw_compute, raw_mesh };
    static const psoc_kind kinds[] = { PSOC_KIND_GRAPHICS, PSOC_KIND_COMPUTE, PSOC_KIND_MESH };
    int i;
    for (i = 0; i < 3; i++) {
      lua_pushvalue(L, ctx_idx);
      lua_pushvalue(L, K);
      lua_pushcclosure(L, raw[i], 2);
      lua_rawseti(L, K, PSOI_K_RAW_DECLARE + (int)kinds[i]);
    }
  }
  /* pipelines */
  psoi_open_pipeline(L, ctx_idx, K);
  lua_pushvalue(L, K);
  lua_setfield(L, LUA_REGISTRYINDEX, PSOI_KEYS_KEY);
}

int luaopen_pso(lua_State *L) {
  psoi_ctx *ctx;
  int ctx_idx, K, mod;
  luaL_checkstack(L, 16, "pso: stack overflow");
  ctx = push_context(L);
  ctx_idx = lua_gettop(L);
  push_keys(L, ctx, ctx_idx);
  K = lua_gettop(L);
  luaL_newlibtable(L, module_funcs);
  mod = lua_gettop(L);
  lua_pushvalue(L, ctx_idx);
  lua_pushvalue(L, K);
  luaL_setfuncs(L, module_funcs, 2);
  lua_rawgeti(L, K, PSOI_K_NONE);
  lua_setfield(L, mod, "none");
  lua_pushliteral(L, PSOC_VERSION_STRING);
  lua_setfield(L, mod, "version");
  pso_compat_pushuint(L, 0xffffffffu);
  lua_setfield(L, mod, "APPEND_ALIGNED");
  psoi_open_presets(L, mod);
  psoi_open_rootsig(L, mod);
  lua_settop(L, mod);
  return 1;
}
