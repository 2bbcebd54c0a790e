/*
** pso_values.c: the values of the material language besides tables and
** scalars (layer 2; see pso_context.h for the chain of layers): shader
** and blob objects (pso.shader, pso.blob: read-only userdata holding the
** bytes and the file name), pso.none, and immutable presets and
** namespaces (pso.preset, pso.copy, pso.preset_pairs: read-only proxies
** over a data table).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pso_values.h"
#include "platform.h" /* read_file_default */

/* Keys (their addresses) of the shared proxy metatable: in the registry,
** and inside the metatable as its mark. */
static const char proxy_mt_key = 'm';

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
  b->data = b->own;
  if (size) memcpy(b->own, bytes, size);
  if (flen) memcpy(b->own + size, file, flen);
  b->own[size + flen] = '\0';
  b->file = flen ? (const char *)b->own + size : NULL;
  luaL_setmetatable(L, PSOI_BLOB_MT);
  return b;
}

/* A new shader/blob object over the bytes of the string on the top (held
** as its user value, not copied), which it replaces. */
static psoi_blob *push_blob_over(lua_State *L, int kind, const char *file) {
  size_t flen = file ? strlen(file) : 0, size;
  const char *bytes = lua_tolstring(L, -1, &size);
  psoi_blob *b = pso_compat_newuserdata_n(L, sizeof *b + flen + 1, 1);
  b->kind = kind;
  b->size = size;
  b->file_len = flen;
  b->data = (const unsigned char *)bytes;
  if (flen) memcpy(b->own, file, flen);
  b->own[flen] = '\0';
  b->file = flen ? (const char *)b->own : NULL;
  luaL_setmetatable(L, PSOI_BLOB_MT);
  lua_insert(L, -2);
  pso_compat_setiuservalue(L, -2, 1); /* keeps the bytes alive */
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

const char *psoi_blob_file(const psoi_blob *b) { return b->file; }

static const char *blob_kind_name(const psoi_blob *b) {
  return b->kind == PSOI_BLOB_SHADER ? "shader" : "blob";
}

static int blob_index(lua_State *L) {
  const psoi_blob *b = luaL_checkudata(L, 1, PSOI_BLOB_MT);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "bytes") == 0) {
    if (b->data == b->own || pso_compat_getiuservalue(L, 1, 1) != LUA_TSTRING) {
      if (b->data != b->own) lua_pop(L, 1);
      lua_pushlstring(L, (const char *)b->data, b->size);
    }
  }
  else if (strcmp(k, "size") == 0) pso_compat_pushuint(L, b->size);
  else if (strcmp(k, "file") == 0) {
    if (b->file) lua_pushlstring(L, b->file, b->file_len);
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

/* Default file reader: the platform file's regular-file read, relative to
** the current directory (a FIFO or device is refused, never waited on). */
static int read_file_default(lua_State *L, const char *path) {
  luaL_Buffer buf;
  psoc_plat_file f;
  size_t got = 0;
  int e = psoc_plat_open_regular(path, &f);
  if (e != 0) {
    lua_pushstring(L, psoc_plat_strerror(e));
    return 0;
  }
  luaL_buffinit(L, &buf);
  do {
    char *p = luaL_prepbuffer(&buf);
    e = psoc_plat_read(&f, p, LUAL_BUFFERSIZE, &got);
    luaL_addsize(&buf, got);
  } while (e == 0 && got == LUAL_BUFFERSIZE);
  psoc_plat_close(&f);
  luaL_pushresult(&buf);
  if (e != 0) {
    lua_pop(L, 1);
    lua_pushstring(L, psoc_plat_strerror(e));
    return 0;
  }
  return 1;
}

static int make_blob(lua_State *L, int kind) {
  const char *fn = kind == PSOI_BLOB_SHADER ? "pso.shader" : "pso.blob";
  const char *path = NULL;
  size_t size;
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
  (void)lua_tolstring(L, -1, &size);
  if (size == 0)
    return path ? psoi_error(L, "%s: '%s' is empty", fn, path) : psoi_error(L, "%s: bytes is empty", fn);
  push_blob_over(L, kind, path);
  return 1;
}

static int l_shader(lua_State *L) { return make_blob(L, PSOI_BLOB_SHADER); }
static int l_blob(lua_State *L) { return make_blob(L, PSOI_BLOB_DATA); }

/* ------------------------------------------------------------------ */
/* Presets and namespaces (immutable proxies)                           */
/* ------------------------------------------------------------------ */
/*
** A preset (or a namespace such as pso.blend) is a userdata (one byte: its
** kind) with two user values, its data table and its tag (the label, or
** the namespace name); every proxy of a state shares one metatable.
** Userdata, not a table: rawset/rawget cannot reach it, and __metatable
** hides the metatable from getmetatable. Reading goes
** through __index (an unknown name in a namespace is an error with
** suggestions), # through __len, pairs through __pairs (Lua 5.2+) or
** pso.preset_pairs (every version); the iterator takes the proxy, never the
** data table, so the data is unreachable from scripts and explain's
** "(preset NAME)" always describes the values the preset was made with.
*/

/* A proxy's userdata. A built-in namespace (s21) has its definitions in
** ns and makes its presets on first use: its data table (user value 1) is
** nil until something is read, and holds only the presets made so far
** until 'complete'. */
typedef struct proxy_ud {
  unsigned char kind;     /* PSOI_PROXY_PRESET or PSOI_PROXY_NAMESPACE */
  unsigned char complete; /* every preset of ns is in the data table */
  const psoi_preset_ns *ns; /* NULL: the data table is all there is */
} proxy_ud;

int psoi_proxy_kind(lua_State *L, int idx) {
  const proxy_ud *p;
  int mark;
  if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return 0;
  mark = lua_rawgetp(L, -1, &proxy_mt_key);
  lua_pop(L, 2);
  if (mark != LUA_TBOOLEAN) return 0;
  p = lua_touserdata(L, idx);
  return p->kind;
}

int psoi_proxy_tag(lua_State *L, int idx) {
  int kind = psoi_proxy_kind(L, idx);
  if (!kind) return 0;
  pso_compat_getiuservalue(L, idx, 2);
  return kind;
}

static int proxy_label(lua_State *L, int idx) {
  switch (psoi_proxy_tag(L, idx)) {
  case PSOI_PROXY_PRESET: return 1;
  case PSOI_PROXY_NAMESPACE:
    lua_pushfstring(L, "pso.%s", lua_tostring(L, -1));
    lua_remove(L, -2);
    return 1;
  default: break;
  }
  lua_pushliteral(L, "preset");
  return 1;
}

static void push_builtin_preset(lua_State *L, const psoi_preset_def *d);

/* A new data table of preset proxies for the built-in namespace p (the
** proxy at idx), each made now unless the old data table (at old_idx, or
** 0) has it: keys inserted in the definitions' order, as they were when
** every preset was made as the module opened (so pairs visits them in the
** same order). Replaces the proxy's data table; pushes nothing. */
static void builtin_complete(lua_State *L, int idx, proxy_ud *p, int old_idx) {
  size_t i;
  luaL_checkstack(L, 8, "pso: stack overflow");
  lua_createtable(L, 0, (int)p->ns->count);
  for (i = 0; i < p->ns->count; i++) {
    const psoi_preset_def *d = &p->ns->defs[i];
    int made = 0;
    if (old_idx) {
      lua_pushstring(L, d->key);
      made = pso_compat_rawget(L, old_idx) != LUA_TNIL; /* keep its identity */
      if (!made) lua_pop(L, 1);
    }
    if (!made) push_builtin_preset(L, d);
    lua_setfield(L, -2, d->key);
  }
  pso_compat_setiuservalue(L, idx, 1);
  p->complete = 1;
}

/* Push the data table of the proxy at idx (a proxy: checked by the
** caller), every preset of a built-in namespace made first when whole is
** set; else perhaps only the presets made so far. */
static void proxy_data(lua_State *L, int idx, int whole) {
  proxy_ud *p = lua_touserdata(L, idx);
  idx = lua_absindex(L, idx);
  if (p->ns && !p->complete) {
    int t = pso_compat_getiuservalue(L, idx, 1);
    if (t != LUA_TTABLE) {
      lua_pop(L, 1);
      if (whole) {
        builtin_complete(L, idx, p, 0);
      } else {
        lua_createtable(L, 0, (int)p->ns->count);
        pso_compat_setiuservalue(L, idx, 1);
      }
    } else if (whole) {
      builtin_complete(L, idx, p, lua_gettop(L));
      lua_pop(L, 1);
    } else {
      return;
    }
  }
  pso_compat_getiuservalue(L, idx, 1);
}

int psoi_preset_data(lua_State *L, int idx) {
  if (!psoi_proxy_kind(L, idx)) return 0;
  proxy_data(L, idx, 1);
  return 1;
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
  const proxy_ud *p;
  if (!psoi_proxy_kind(L, 1))
    return psoi_error(L, "index: expected a preset or a preset namespace, got %s",
                      luaL_typename(L, 1));
  lua_settop(L, 2);
  proxy_data(L, 1, 0);
  lua_pushvalue(L, 2);
  lua_rawget(L, 3);
  if (!lua_isnil(L, -1)) return 1;
  p = lua_touserdata(L, 1);
  if (p->ns && !p->complete) { /* a built-in preset not made yet, or none */
    size_t i;
    const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    for (i = 0; key && i < p->ns->count; i++) {
      if (strcmp(p->ns->defs[i].key, key) != 0) continue;
      lua_pop(L, 1);
      push_builtin_preset(L, &p->ns->defs[i]);
      lua_pushvalue(L, 2);
      lua_pushvalue(L, -2);
      lua_rawset(L, 3);
      return 1;
    }
    lua_settop(L, 2); /* unknown: the whole namespace for the message */
    proxy_data(L, 1, 1);
    lua_pushnil(L);
  }
  if (psoi_proxy_tag(L, 1) == PSOI_PROXY_NAMESPACE) {
    const char *cands[64], *ns = lua_tostring(L, -1);
    char sugg[320];
    size_t n = 0;
    int data = lua_gettop(L) - 2;
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

/* The metatable every proxy of the state shares (made on first use). */
static void push_proxy_mt(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &proxy_mt_key) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_createtable(L, 0, 7);
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
  lua_pushboolean(L, 1);
  lua_rawsetp(L, -2, &proxy_mt_key); /* the mark psoi_proxy_kind looks for */
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &proxy_mt_key);
}

/* A new proxy of the given kind for the data table at data_idx, tagged
** with the string at -1. Pops the tag, pushes the proxy. */
static void push_proxy(lua_State *L, int data_idx, int kind) {
  proxy_ud *p;
  data_idx = lua_absindex(L, data_idx);
  p = pso_compat_newuserdata_n(L, sizeof *p, 2); /* the proxy */
  p->kind = (unsigned char)kind;
  p->complete = 0;
  p->ns = NULL;
  lua_insert(L, -2);
  pso_compat_setiuservalue(L, -2, 2); /* the tag */
  lua_pushvalue(L, data_idx);
  pso_compat_setiuservalue(L, -2, 1);
  push_proxy_mt(L);
  lua_setmetatable(L, -2);
}

/* (s4-setup) See pso_values.h: the proxy over the given table, no copy. */
void psoi_wrap_preset(lua_State *L, int data_idx, const char *name) {
  data_idx = lua_absindex(L, data_idx);
  lua_pushfstring(L, "preset %s", name);
  push_proxy(L, data_idx, PSOI_PROXY_PRESET);
}

/* A built-in preset: its data table made from the definition, the proxy
** over it. Pushed. */
static void push_builtin_preset(lua_State *L, const psoi_preset_def *d) {
  const psoi_preset_field *f;
  int n = 0;
  for (f = d->fields; f->kind; f++) n++;
  lua_createtable(L, 0, n);
  for (f = d->fields; f->kind; f++) {
    switch (f->kind) {
    case 'b': lua_pushboolean(L, f->n != 0); break;
    case 's': lua_pushstring(L, f->s); break;
    case 'i': lua_pushinteger(L, (lua_Integer)f->n); break;
    default: lua_pushnumber(L, (lua_Number)f->n); break;
    }
    lua_setfield(L, -2, f->key);
  }
  lua_pushstring(L, d->label);
  push_proxy(L, -2, PSOI_PROXY_PRESET);
  lua_remove(L, -2);
}

void psoi_push_builtin_namespace(lua_State *L, const psoi_preset_ns *ns) {
  proxy_ud *p;
  luaL_checkstack(L, 4, "pso: stack overflow");
  p = pso_compat_newuserdata_n(L, sizeof *p, 2);
  p->kind = PSOI_PROXY_NAMESPACE;
  p->complete = 0;
  p->ns = ns;
  lua_pushstring(L, ns->name);
  pso_compat_setiuservalue(L, -2, 2); /* the tag; the data table comes on first use */
  push_proxy_mt(L);
  lua_setmetatable(L, -2);
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
  push_proxy(L, data, PSOI_PROXY_PRESET);
  lua_remove(L, data);
}

void psoi_push_preset(lua_State *L, int table_idx, const char *name) {
  int label;
  table_idx = lua_absindex(L, table_idx);
  lua_pushfstring(L, "preset %s", name);
  label = lua_gettop(L);
  freeze(L, table_idx, label, 0);
  lua_remove(L, label);
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
  push_proxy(L, 3, PSOI_PROXY_NAMESPACE);
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
/* Registration                                                         */
/* ------------------------------------------------------------------ */

static const luaL_Reg blob_meta[] = {
  { "__index", blob_index }, { "__newindex", blob_newindex }, { "__tostring", blob_tostring },
  { "__eq", blob_eq },       { "__len", blob_len },           { NULL, NULL }
};

static int none_tostring(lua_State *L) {
  lua_pushliteral(L, "pso.none");
  return 1;
}

void psoi_open_values(lua_State *L, psoi_ctx *ctx, int K) {
  K = lua_absindex(L, K);
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
}

const luaL_Reg psoi_value_funcs[] = {
  { "shader", l_shader }, { "blob", l_blob },
  { "preset", l_preset }, { "copy", l_copy },
  { "preset_pairs", l_preset_pairs }, { NULL, NULL }
};
