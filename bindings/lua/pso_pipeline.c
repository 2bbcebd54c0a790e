/*
** pso_pipeline.c: pipeline objects (userdata owning a psoc_stream).
**
** Fields read back as the language spells values (enum and format names
** as their short lowercase keys, flags as "a|b", BOOL as booleans):
**   p.name, p.kind ("graphics" | "compute" | "mesh"), p.root_signature
**   p.<subobject key>   the effective value: what the stream holds, or the
**                       runtime default when absent (hidden defaults
**                       applied: p.depth_stencil.depth is false without a
**                       depth-stencil state or depth format)
**   p.rasterizer1 etc.  the value only when that exact type is present
** Methods:
**   p:bytes() p:size() p:hash() p:check() p:valid() p:dump()
**   p:explain() p:explain_table() p:json() p:diff(q) p:table()
**   p:explain { changed = true }, p:explain_table { changed = true }:
**                       only the values that differ from the runtime
**                       default (input-element offsets read
**                       "append_aligned" for D3D12_APPEND_ALIGNED_ELEMENT)
**   p:subobjects()      the stream's subobject type keys, in stream order
**   tostring(p)
** Pipelines are immutable (pso.derive makes variants).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pso_pipeline.h"
#include "pso_values.h"

#define PATH_MAX_ 256
#define DEPTH_MAX 24

/* ------------------------------------------------------------------ */
/* The C interface                                                      */
/* ------------------------------------------------------------------ */

/* The pipeline metatable holds, at integer key 1 (its array part), a light
** userdata with this C address, which no script can make: one array read
** in the metatable (lua_rawgeti) instead of luaL_testudata's registry
** lookup by name or a hashed lookup by pointer key (lua_rawgetp). */
static const char pipeline_tag = 'p';

pso_pipeline *pso_topipeline(lua_State *L, int idx) {
  void *p = lua_touserdata(L, idx);
  int ok;
  if (!p || lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return NULL;
  ok = pso_compat_rawgeti(L, -1, 1) == LUA_TLIGHTUSERDATA &&
       lua_touserdata(L, -1) == &pipeline_tag;
  lua_pop(L, 2);
  return ok ? p : NULL;
}

const psoc_stream *pso_pipeline_stream(const pso_pipeline *p) { return p ? p->stream : NULL; }
const char *pso_pipeline_name(const pso_pipeline *p) { return p ? p->name : NULL; }
const char *pso_pipeline_root_signature(const pso_pipeline *p) {
  return p ? p->root_signature : NULL;
}
psoc_kind pso_pipeline_kind(const pso_pipeline *p) { return p ? (psoc_kind)p->kind : PSOC_KIND_NONE; }

pso_site pso_pipeline_site(const pso_pipeline *p) {
  pso_site site;
  site.source = p->source;
  site.line = p->line;
  return site;
}

int pso_check_result(lua_State *L, int idx) {
  int n, i, seen;
  luaL_checkstack(L, 6, "pso: stack overflow");
  idx = lua_absindex(L, idx);
  if (pso_topipeline(L, idx)) return 1;
  if (!lua_istable(L, idx)) {
    lua_pushfstring(L, "a material script must return a pipeline or a list of pipelines "
                       "(it returned %s)", luaL_typename(L, idx));
    return 0;
  }
  n = (int)lua_rawlen(L, idx);
  lua_newtable(L); /* name -> first index (linear, in the state's memory) */
  seen = lua_gettop(L);
  for (i = 1; i <= n; i++) {
    const pso_pipeline *p;
    lua_rawgeti(L, idx, i);
    p = pso_topipeline(L, -1);
    if (!p) {
      const char *type = luaL_typename(L, -1);
      lua_settop(L, seen - 1);
      lua_pushfstring(L, "result[%d] is a %s, not a pipeline (a material script returns a "
                         "pipeline or a list of pipelines)", i, type);
      return 0;
    }
    lua_pop(L, 1);
    if (!p->name) continue; /* unnamed pipelines have nothing to clash */
    lua_pushstring(L, p->name);
    lua_pushvalue(L, -1);
    lua_rawget(L, seen);
    if (!lua_isnil(L, -1)) {
      int first = (int)lua_tointeger(L, -1);
      lua_settop(L, seen - 1);
      lua_pushfstring(L, "result[%d]: two pipelines are named '%s' (result[%d] and result[%d]); "
                         "pipeline names must be unique in a script", i, p->name, first, i);
      return 0;
    }
    lua_pop(L, 1);
    lua_pushinteger(L, i);
    lua_rawset(L, seen);
  }
  lua_settop(L, seen - 1);
  return 1;
}

psoc_hash128 pso_pipeline_hash(const pso_pipeline *p) {
  psoc_hash128 h;
  memset(&h, 0, sizeof h);
  if (!p || !p->stream) return h;
  if (!p->hash_valid) {
    pso_pipeline *w = (pso_pipeline *)p; /* a cache of an immutable value */
    psoc_hash(psoc_stream_data(p->stream), psoc_stream_size(p->stream), PSOC_FOLLOW_POINTERS,
              p->root_signature, &w->hash);
    w->hash_valid = 1;
  }
  return p->hash;
}

pso_pipeline *psoi_pipeline_new(lua_State *L, int keys_idx, psoc_kind kind, const char *name,
                                size_t name_len, const char *rs, size_t rs_len,
                                const pso_site *site, size_t stream_cap,
                                unsigned char **stream_mem, int nuv) {
  const char *src = site ? site->source : NULL;
  size_t src_len = src ? strlen(src) : 0;
  size_t head = sizeof(pso_pipeline) + (name ? name_len + 1 : 0) + (rs ? rs_len + 1 : 0) +
                (src ? src_len + 1 : 0);
  pso_pipeline *p;
  char *s;
  head = (head + 15u) & ~(size_t)15u;
  if (stream_cap > ((size_t)-1) / 2 - head) luaL_error(L, "pipeline too large");
  p = pso_compat_newuserdata_n(L, head + stream_cap, nuv);
  s = p->strings;
  memset(p, 0, sizeof *p);
  *stream_mem = (unsigned char *)p + head;
  p->kind = (uint8_t)kind;
  if (name) {
    memcpy(s, name, name_len);
    s[name_len] = '\0';
    p->name = s;
    s += name_len + 1;
  }
  if (rs) {
    memcpy(s, rs, rs_len);
    s[rs_len] = '\0';
    p->root_signature = s;
    s += rs_len + 1;
  }
  if (src) {
    memcpy(s, src, src_len + 1);
    p->source = s;
  }
  if (site) p->line = site->line;
  lua_rawgeti(L, keys_idx, PSOI_K_PIPE_MT);
  lua_setmetatable(L, -2);
  return p;
}

static pso_pipeline *check_pipeline(lua_State *L, int idx) {
  pso_pipeline *p = pso_topipeline(L, idx);
  if (!p) {
    psoi_error(L, "expected a pipeline, got %s (call methods with ':', e.g. p:hash())",
               luaL_typename(L, idx));
    return NULL;
  }
  if (!p->stream) psoi_error(L, "this pipeline was never completed");
  return p;
}

/* ---- declarations of a pipeline (derive, explain) ------------------- */

const char *psoi_pipeline_label(const pso_pipeline *p) { return p->name ? p->name : "(unnamed)"; }

/* Tracking: the label id of "base NAME". */
static uint8_t base_label(psoi_cv *c, const pso_pipeline *p) {
  if (!c->marks) return 0;
  lua_pushfstring(c->L, "base %s", psoi_pipeline_label(p));
  return psoi_cv_label_id(c);
}

/* The values class 'cls' has in the layers of the pipeline at pipe_idx
** (its own declaration first, then its base's), pushed on the stack and
** stored in out[]; returns how many. Each layer gives at most one. */
int psoi_pipeline_sources(psoi_cv *c, int pipe_idx, uint32_t cls, psoi_csrc *out, int max, int layer,
                   uint8_t own_label) {
  lua_State *L = c->L;
  const pso_pipeline *p = lua_touserdata(L, pipe_idx);
  psoi_ctx *ctx = c->ctx;
  int found = 0, j, decl_idx, keys, none;
  if (layer >= max || layer > 250) return psoi_cv_error(c, "derive chain deeper than %d", max);
  luaL_checkstack(L, 12, "pso: derive chain too deep");
  pipe_idx = lua_absindex(L, pipe_idx);
  pso_compat_getiuservalue(L, pipe_idx, 1); /* its declaration (or overrides) */
  decl_idx = lua_gettop(L);
  lua_rawgeti(L, c->K, PSOI_K_TYPEKEYS);
  keys = lua_gettop(L);
  lua_rawgeti(L, c->K, PSOI_K_NONE);
  none = lua_gettop(L);
  for (j = 0; j < ctx->class_ntypes[cls] && !found; j++) {
    uint32_t type = ctx->class_types[cls][j];
    lua_rawgeti(L, keys, (int)type + 1);
    if (pso_compat_rawget(L, decl_idx) == LUA_TNIL) {
      lua_pop(L, 1);
      continue;
    }
    if (lua_rawequal(L, -1, none)) return 0; /* removed here: nothing below counts */
    out[0].idx = lua_gettop(L);
    out[0].layer = (uint8_t)layer;
    out[0].label = own_label;
    out[0].type = type;
    out[0].key = psoc_subobject_info_get(type)->key;
    found = 1;
  }
  if (p->derived) {
    int base;
    pso_compat_getiuservalue(L, pipe_idx, 2);
    base = lua_gettop(L);
    found += psoi_pipeline_sources(c, base, cls, out + found, max, layer + 1,
                     base_label(c, lua_touserdata(L, base)));
  }
  return found;
}

/* ------------------------------------------------------------------ */
/* Origins (explain)                                                    */
/* ------------------------------------------------------------------ */

int psoi_class_origins(lua_State *L, int K, int pipe_idx, uint32_t cls, uint8_t *labels,
                       size_t labels_size, int label_list_idx) {
  psoi_cv c;
  psoi_payload_buf buf;
  psoi_csrc srcs[PSOI_CV_SOURCES];
  psoc_parsed parsed;
  const psoc_view *view;
  const pso_pipeline *p;
  int n, r, top = lua_gettop(L);
  uint32_t type;
  pipe_idx = lua_absindex(L, pipe_idx);
  label_list_idx = lua_absindex(L, label_list_idx);
  psoi_cv_init(&c, L, K);
  c.marks = labels;
  c.marks_size = labels_size;
  c.label_list = c.label_map = label_list_idx;
  c.verify = 1;
  memset(labels, PSOI_LABEL_DEFAULT, labels_size);
  p = pso_topipeline(L, pipe_idx);
  if (!p || psoc_parse(psoc_stream_data(p->stream), psoc_stream_size(p->stream), &parsed, NULL) !=
                PSOC_OK)
    return 0;
  view = psoc_parsed_class(&parsed, cls);
  psoi_cv_lock(&c);
  n = psoi_pipeline_sources(&c, pipe_idx, cls, srcs, PSOI_CV_SOURCES, 0, PSOI_LABEL_SCRIPT);
  if (n == 0) {
    psoi_cv_unlock(&c);
    lua_settop(L, top);
    return view == NULL;
  }
  type = psoi_cv_class(&c, cls, srcs, n, buf.b);
  psoi_cv_unlock(&c);
  r = view && psoi_same_payload(type, buf.b, view->type, view->payload);
  lua_settop(L, top);
  return r;
}


/* ------------------------------------------------------------------ */
/* Effective state                                                      */
/* ------------------------------------------------------------------ */


typedef struct state {
  psoc_parsed parsed;
  psoc_resolved resolved;
} state;

static void parse_state(lua_State *L, const pso_pipeline *p, state *st) {
  if (psoc_parse(psoc_stream_data(p->stream), psoc_stream_size(p->stream), &st->parsed, NULL) !=
      PSOC_OK)
    luaL_error(L, "pso: internal error: a pipeline's stream does not parse");
  psoc_resolve(&st->parsed, &st->resolved);
}

static const psoc_field *field_by_key(const psoc_struct *s, const char *key) {
  uint32_t i;
  for (i = 0; i < s->field_count; i++)
    if (strcmp(s->fields[i].key, key) == 0) return &s->fields[i];
  return NULL;
}

/* The effective payload of a class: the stream's, or the runtime default
** with hidden defaults applied (visit.h). Returns the type; *present says which. */
static uint32_t effective(const state *st, uint32_t cls, psoi_payload_buf *buf, int *present) {
  return psoc_visit_effective_payload(&st->parsed, &st->resolved, cls, buf->b, present);
}

static int is_class_base(const psoc_subobject_info *info) {
  return info && info->dup_class == info->type;
}

static int class_versions(uint32_t cls) {
  uint32_t t;
  int n = 0;
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *i = psoc_subobject_info_get(t);
    if (i && i->dup_class == cls) n++;
  }
  return n;
}

/* ------------------------------------------------------------------ */
/* __index and friends                                                  */
/* ------------------------------------------------------------------ */

static int pipe_index(lua_State *L) {
  pso_pipeline *p = check_pipeline(L, 1);
  const char *key;
  const psoc_subobject_info *info;
  state st;
  psoi_payload_buf buf;
  int present;
  uint32_t type;
  if (lua_type(L, 2) != LUA_TSTRING) return psoi_error(L, "pipeline fields are named by strings");
  key = lua_tostring(L, 2);
  lua_pushvalue(L, 2);
  if (pso_compat_rawget(L, lua_upvalueindex(3)) != LUA_TNIL) return 1; /* a method */
  lua_pop(L, 1);
  if (strcmp(key, "name") == 0) {
    if (p->name) lua_pushstring(L, p->name);
    else lua_pushnil(L);
    return 1;
  }
  if (strcmp(key, "kind") == 0) {
    lua_pushstring(L, psoc_kind_name((psoc_kind)p->kind));
    return 1;
  }
  lua_rawgeti(L, PSOI_UV_KEYS, PSOI_K_TOP);
  lua_pushvalue(L, 2);
  if (pso_compat_rawget(L, -2) != LUA_TNUMBER || lua_tointeger(L, -1) < 0) {
    const char *cands[64];
    size_t n = 0;
    uint32_t t;
    char sugg[320];
    lua_pushnil(L);
    while (lua_next(L, lua_upvalueindex(3)) && n < 30) {
      if (lua_type(L, -2) == LUA_TSTRING) cands[n++] = lua_tostring(L, -2);
      lua_pop(L, 1);
    }
    cands[n++] = "name";
    cands[n++] = "kind";
    for (t = 0; t < PSOC_SO_TYPE_COUNT; t++)
      if (psoc_subobject_info_get(t)) cands[n++] = psoc_subobject_info_get(t)->key;
    psoi_suggest(key, cands, n, sugg, sizeof sugg);
    return psoi_error(L, "a pipeline has no field '%s'%s", key, sugg);
  }
  info = psoc_subobject_info_get((uint32_t)lua_tointeger(L, -1));
  parse_state(L, p, &st);
  type = effective(&st, info->dup_class, &buf, &present);
  if (!is_class_base(info) && (!present || type != info->type)) {
    lua_pushnil(L); /* that exact version is not in the stream */
    return 1;
  }
  psoi_push_class(L, PSOI_UV_KEYS, type, buf.b, p->root_signature);
  return 1;
}

static int pipe_newindex(lua_State *L) {
  return psoi_error(L, "pipelines are immutable (use pso.derive(p, { ... }) for a variant)");
}

static int pipe_tostring(lua_State *L) {
  pso_pipeline *p = check_pipeline(L, 1);
  char hex[33];
  psoc_hash_hex(pso_pipeline_hash(p), hex);
  lua_pushfstring(L, "pipeline %s (%s, %d subobject%s, %d bytes, hash %s)",
                  p->name ? p->name : "(unnamed)", psoc_kind_name((psoc_kind)p->kind), (int)p->count,
                  p->count == 1 ? "" : "s", (int)psoc_stream_size(p->stream), hex);
  return 1;
}

/* ------------------------------------------------------------------ */
/* Simple methods                                                       */
/* ------------------------------------------------------------------ */

static int m_bytes(lua_State *L) {
  pso_pipeline *p = check_pipeline(L, 1);
  lua_pushlstring(L, psoc_stream_data(p->stream), psoc_stream_size(p->stream));
  return 1;
}

static int m_size(lua_State *L) {
  pso_pipeline *p = check_pipeline(L, 1);
  pso_compat_pushuint(L, psoc_stream_size(p->stream));
  return 1;
}

static int m_hash(lua_State *L) {
  pso_pipeline *p = check_pipeline(L, 1);
  char hex[33];
  psoc_hash_hex(pso_pipeline_hash(p), hex);
  lua_pushstring(L, hex);
  return 1;
}

void psoi_push_diags(lua_State *L, const psoc_diags *diags, int keys) {
  size_t i;
  lua_createtable(L, (int)diags->count, 0);
  for (i = 0; i < diags->count; i++) {
    const psoc_diag *d = &diags->items[i];
    lua_createtable(L, 0, 7);
    lua_pushstring(L, psoc_severity_name(d->severity));
    lua_setfield(L, -2, "severity");
    lua_pushstring(L, psoc_code_name(d->code));
    lua_setfield(L, -2, "code");
    if (d->message_id) {
      lua_pushstring(L, d->message_id);
      lua_setfield(L, -2, "message_id");
    }
    if (d->field[0]) {
      if (keys) { /* script mode: the material's keys; the D3D12 path as member */
        char path[PSOC_DIAG_FIELD_MAX + 16];
        pso_field_path(d->field, path, sizeof path);
        lua_pushstring(L, path);
        lua_setfield(L, -2, "field");
        lua_pushstring(L, d->field);
        lua_setfield(L, -2, "member");
      } else {
        lua_pushstring(L, d->field);
        lua_setfield(L, -2, "field");
      }
    }
    lua_pushstring(L, d->message);
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

static int run_check(lua_State *L, const pso_pipeline *p, int push) {
  psoc_diags diags;
  psoi_ctx *ctx = psoi_context(L);
  size_t errors;
  psoc_check_options options;
  memset(&options, 0, sizeof options);
  options.flags = PSO_PIPELINE_CHECK_FLAGS; /* the module built the layout arrays */
  psoc_diags_init(&diags, &ctx->alloc);
  psoc_check(psoc_stream_data(p->stream), psoc_stream_size(p->stream), &options, &diags);
  errors = diags.errors;
  if (push) psoi_push_diags(L, &diags, 1);
  psoc_diags_free(&diags);
  return errors == 0;
}

static int m_check(lua_State *L) {
  run_check(L, check_pipeline(L, 1), 1);
  return 1;
}

static int m_valid(lua_State *L) {
  lua_pushboolean(L, run_check(L, check_pipeline(L, 1), 0));
  return 1;
}

static int dump_write(void *ud, const char *text, size_t length) {
  luaL_addlstring((luaL_Buffer *)ud, text, length);
  return 0;
}

static int m_dump(lua_State *L) {
  pso_pipeline *p = check_pipeline(L, 1);
  luaL_Buffer buf;
  luaL_buffinit(L, &buf);
  psoc_dump(psoc_stream_data(p->stream), psoc_stream_size(p->stream), PSOC_FOLLOW_POINTERS,
            dump_write, &buf);
  luaL_pushresult(&buf);
  return 1;
}

static int m_subobjects(lua_State *L) {
  pso_pipeline *p = check_pipeline(L, 1);
  psoc_walker w;
  psoc_view v;
  int i = 0;
  lua_newtable(L);
  psoc_walk_init(&w, psoc_stream_data(p->stream), psoc_stream_size(p->stream));
  while (psoc_walk_next(&w, &v, NULL)) {
    lua_pushstring(L, v.info->key);
    lua_rawseti(L, -2, ++i);
  }
  return 1;
}

/* Push a declaration that reproduces p (exact type keys). */
static void push_table(lua_State *L, const pso_pipeline *p) {
  psoc_walker w;
  psoc_view v;
  psoi_payload_buf buf;
  lua_newtable(L);
  if (p->name) {
    lua_pushstring(L, p->name);
    lua_setfield(L, -2, "name");
  }
  psoc_walk_init(&w, psoc_stream_data(p->stream), psoc_stream_size(p->stream));
  while (psoc_walk_next(&w, &v, NULL)) {
    memcpy(buf.b, v.payload, v.info->payload->size);
    psoi_push_class(L, PSOI_UV_KEYS, v.type, buf.b, p->root_signature);
    lua_setfield(L, -2, v.info->key);
  }
}

/* p:table(): a declaration that reproduces the pipeline (exact type keys). */
static int m_table(lua_State *L) {
  push_table(L, check_pipeline(L, 1));
  return 1;
}

/* ---- pipelines from streams of another state (pso_push_pipeline) ---- */

/* Add every subobject of stream s to the builder (reset first), each to
** be copied by finish (PSOC_BUILDER_COPY_AT_FINISH): what finish then
** makes is self-contained, whatever s borrows. */
static psoc_status restage(psoc_builder *b, const psoc_stream *s) {
  psoc_walker w;
  psoc_view v;
  psoc_status st = PSOC_OK;
  psoi_payload_buf buf;
  psoc_builder_reset(b);
  psoc_builder_set_mode(b, PSOC_BUILDER_COPY_AT_FINISH);
  psoc_walk_init(&w, psoc_stream_data(s), psoc_stream_size(s));
  while (st == PSOC_OK && psoc_walk_next(&w, &v, NULL)) {
    memcpy(buf.b, v.payload, v.info->payload->size); /* aligned */
    /* the exported function: the type is a run-time value (pso_declare.c
    ** add_all says why the inline form does not pay here) */
    st = (psoc_builder_add)(b, v.type, buf.b, v.info->payload->size);
  }
  return st;
}

/* The context of L without creating it (NULL when the module never ran
** there, or while its builder is busy). */
static psoi_ctx *idle_context(lua_State *L) {
  psoi_ctx *ctx;
  lua_getfield(L, LUA_REGISTRYINDEX, PSOI_CONTEXT_KEY);
  ctx = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return ctx && !ctx->building ? ctx : NULL;
}

size_t pso_pipeline_copy_size(const pso_pipeline *p) {
  return p && p->stream ? psoc_stream_footprint(p->stream) + p->lent : 0;
}

/* malloc, for a NULL allocator (what psoc_stream_copy uses then) */
static void *malloc_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud, (void)osize;
  if (nsize) return realloc(ptr, nsize);
  free(ptr);
  return NULL;
}

psoc_status pso_pipeline_copy_stream(lua_State *L, const pso_pipeline *p,
                                     const psoc_allocator *alloc, psoc_stream **out) {
  psoc_allocator a;
  psoi_ctx *ctx;
  psoc_stream *tmp = NULL;
  psoc_status st;
  void *mem = NULL;
  size_t need = 0;
  if (out) *out = NULL;
  if (!p || !p->stream || !out) return PSOC_ERR_ARG;
  if (!p->lent) return psoc_stream_copy(p->stream, alloc, out); /* self-contained already */
  if (!(ctx = idle_context(L))) return PSOC_ERR_ARG;
  a.fn = alloc && alloc->fn ? alloc->fn : malloc_alloc;
  a.ud = alloc && alloc->fn ? alloc->ud : NULL;
  /* finish into memory of 'alloc' (not the state's: it may be at its
  ** limit), then one psoc_stream_copy so that psoc_stream_free releases
  ** the result */
  st = restage(ctx->builder, p->stream);
  if (st == PSOC_OK) {
    need = psoc_builder_finish_size(ctx->builder);
    mem = need ? a.fn(a.ud, NULL, 0, need) : NULL;
    st = !need ? PSOC_ERR_SIZE : !mem ? PSOC_ERR_NOMEM
                                      : psoc_builder_finish_into(ctx->builder, mem, need, NULL, &tmp);
  }
  psoc_builder_reset(ctx->builder);
  if (st == PSOC_OK) st = psoc_stream_copy(tmp, &a, out);
  if (mem) a.fn(a.ud, mem, need, 0);
  return st;
}

/* psoc_stream_copy makes one allocation: it is handed the userdata's room
** for the stream (measured before). */
typedef struct copy_room {
  unsigned char *mem;
  size_t cap;
} copy_room;

static void *copy_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  copy_room *r = (copy_room *)ud;
  (void)osize;
  if (nsize == 0 || ptr) return NULL; /* the userdata owns the block: never freed here */
  if (!r->mem || nsize > r->cap) return NULL;
  ptr = r->mem;
  r->mem = NULL; /* once */
  return ptr;
}

/* Push a pipeline holding a self-contained copy of 'stream' (rebuilt by
** the state's builder, straight into the userdata; psoc_stream_copy when
** the builder does not take the stream). */
pso_pipeline *pso_push_pipeline(lua_State *L, const psoc_stream *stream, psoc_kind kind,
                                const char *name, const char *root_signature) {
  psoc_parsed parsed;
  psoc_walker w;
  psoc_view v;
  psoi_ctx *ctx;
  pso_pipeline *p;
  unsigned char *mem;
  uint32_t count = 0;
  size_t need;
  int K, rebuilt;
  luaL_checkstack(L, 8, "pso: stack overflow");
  if (!stream || kind <= PSOC_KIND_NONE || kind > PSOC_KIND_MESH ||
      psoc_parse(psoc_stream_data(stream), psoc_stream_size(stream), &parsed, NULL) != PSOC_OK)
    luaL_error(L, "pso: not a pipeline stream");
  lua_getfield(L, LUA_REGISTRYINDEX, PSOI_KEYS_KEY);
  if (lua_type(L, -1) != LUA_TTABLE) luaL_error(L, "pso: the module is not open in this state");
  K = lua_gettop(L);
  ctx = idle_context(L);
  if (!ctx) luaL_error(L, "pso: re-entrant pso_push_pipeline while building a stream");
  /* measure, then (no Lua code runs while the builder holds entries)
  ** create the userdata, then build again into it */
  rebuilt = restage(ctx->builder, stream) == PSOC_OK;
  need = rebuilt ? psoc_builder_finish_size(ctx->builder) : psoc_stream_footprint(stream);
  psoc_builder_reset(ctx->builder);
  if (!need) luaL_error(L, "pso: cannot copy the stream");
  p = psoi_pipeline_new(L, K, kind, name, name ? strlen(name) : 0, root_signature,
                        root_signature ? strlen(root_signature) : 0, NULL, need, &mem, 1);
  if (rebuilt) {
    psoc_status st = restage(ctx->builder, stream);
    if (st == PSOC_OK) st = psoc_builder_finish_into(ctx->builder, mem, need, NULL, &p->stream);
    psoc_builder_reset(ctx->builder);
    if (st != PSOC_OK) luaL_error(L, "pso: cannot copy the stream");
  } else { /* a stream the builder does not take: copied as it is */
    copy_room room;
    psoc_allocator a;
    psoc_stream *copy = NULL;
    room.mem = mem;
    room.cap = need;
    a.fn = copy_alloc;
    a.ud = &room;
    if (psoc_stream_copy(stream, &a, &copy) != PSOC_OK || (unsigned char *)copy != mem)
      luaL_error(L, "pso: cannot copy the stream");
    p->stream = copy;
  }
  psoc_walk_init(&w, psoc_stream_data(p->stream), psoc_stream_size(p->stream));
  while (psoc_walk_next(&w, &v, NULL)) count++;
  p->count = count;
  push_table(L, p); /* its declaration, for pso.derive and explain */
  pso_compat_setiuservalue(L, -2, 1);
  lua_remove(L, K);
  return p;
}

/* ------------------------------------------------------------------ */
/* Flattening: one row per effective field (explain, diff)              */
/* ------------------------------------------------------------------ */

typedef struct flat flat;
struct flat {
  psoi_vis v;
  lua_State *L;
  const char *rs_name;
  char path[PATH_MAX_];
  size_t plen[DEPTH_MAX + 1];
  int depth;
  void (*row)(flat *f, const char *path, const char *value, const psoi_vval *val);
  /* explain */
  int rows;                 /* list of {path, value, origin} */
  const uint8_t *labels;    /* per payload byte, or NULL */
  int label_list;
  int origins_ok;
  const char *fixed_origin; /* every row: this origin (absent classes) */
  int hidden_off;           /* this payload offset: hidden_text */
  const char *hidden_text;
  int defaults;             /* explain {changed}: path -> default value text */
  /* diff */
  int list, map;
};

static void path_push(flat *f, const char *key, int index) {
  size_t len = f->depth <= DEPTH_MAX ? f->plen[f->depth] : strlen(f->path);
  int w;
  if (key)
    w = snprintf(f->path + len, PATH_MAX_ - len, "%s%s", len ? "." : "", key);
  else
    w = snprintf(f->path + len, PATH_MAX_ - len, "[%d]", index);
  if (w > 0) len += (size_t)w;
  if (len >= PATH_MAX_) len = PATH_MAX_ - 1;
  f->depth++;
  if (f->depth <= DEPTH_MAX) f->plen[f->depth] = len;
}

static void path_pop(flat *f) {
  f->depth--;
  if (f->depth <= DEPTH_MAX) f->path[f->plen[f->depth]] = '\0';
}

static void flat_open(psoi_vis *v, const char *key, int index, int is_list) {
  flat *f = (flat *)v;
  (void)is_list;
  path_push(f, key, index);
}

static void flat_close(psoi_vis *v, int is_list) {
  (void)is_list;
  path_pop((flat *)v);
}

static void flat_leaf(psoi_vis *v, const char *key, int index, const psoi_vval *val) {
  flat *f = (flat *)v;
  char text[256];
  path_push(f, key, index);
  psoi_format_leaf(val, f->rs_name, text, sizeof text);
  /* D3D12_APPEND_ALIGNED_ELEMENT, by name (the language's default offset) */
  if (key && strcmp(key, "offset") == 0 && strncmp(f->path, "input_layout[", 13) == 0 &&
      strcmp(text, "4294967295") == 0)
    snprintf(text, sizeof text, "append_aligned");
  f->row(f, f->path, text, val);
  path_pop(f);
}

static void flat_init(flat *f, lua_State *L, const char *rs_name) {
  memset(f, 0, sizeof *f);
  f->v.open = flat_open;
  f->v.close = flat_close;
  f->v.leaf = flat_leaf;
  f->L = L;
  f->rs_name = rs_name;
  f->hidden_off = -1;
}

static void flat_class(flat *f, const char *key, uint32_t type, const unsigned char *payload) {
  f->depth = 0;
  f->plen[0] = 0;
  f->path[0] = '\0';
  psoi_visit_class(&f->v, key, type, payload);
}

/* ---- explain ------------------------------------------------------- */

#define HIDDEN_DEPTH                                                                         \
  "hidden default: depth testing is off because neither a depth-stencil state nor a depth " \
  "format is given"
#define HIDDEN_TOPOLOGY \
  "hidden default: a graphics pipeline without a topology draws triangles (not undefined)"
#define ORIGIN_UNKNOWN \
  "unknown: the declaration table was modified after the pipeline was declared"

static void push_row(lua_State *L, int rows, const char *path, const char *value,
                     const char *origin) {
  lua_createtable(L, 0, 3);
  lua_pushstring(L, path);
  lua_setfield(L, -2, "path");
  lua_pushstring(L, value);
  lua_setfield(L, -2, "value");
  lua_pushstring(L, origin);
  lua_setfield(L, -2, "origin");
  lua_rawseti(L, rows, (int)lua_rawlen(L, rows) + 1);
}

static void explain_row(flat *f, const char *path, const char *value, const psoi_vval *val) {
  lua_State *L = f->L;
  const char *origin = "runtime default";
  if (f->defaults) { /* only values that differ from the runtime default */
    int same;
    lua_getfield(L, f->defaults, path);
    same = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), value) == 0;
    lua_pop(L, 1);
    if (same) return;
  }
  if (f->hidden_text && val->off == f->hidden_off) {
    origin = f->hidden_text;
  } else if (f->fixed_origin) {
    origin = f->fixed_origin;
  } else if (!f->origins_ok) {
    origin = ORIGIN_UNKNOWN;
  } else if (f->labels && val->off >= 0 && f->labels[val->off]) {
    lua_rawgeti(L, f->label_list, f->labels[val->off]);
    origin = lua_tostring(L, -1);
    push_row(L, f->rows, path, value, origin ? origin : "script");
    lua_pop(L, 1);
    return;
  }
  push_row(L, f->rows, path, value, origin);
}

static int uses(const pso_pipeline *p, const psoc_subobject_info *info) {
  return (info->kinds & PSOC_KIND_BIT(p->kind)) != 0;
}

static void diff_row(flat *f, const char *path, const char *value, const psoi_vval *val);

/* Push a table path -> value text of the runtime default payload of
** 'type', spelt under the class key (explain {changed = true}). */
static void push_default_map(lua_State *L, const char *key, uint32_t type, int fixed_limit) {
  flat d;
  flat_init(&d, L, NULL); /* no root-signature name: a default has none */
  d.row = diff_row;
  d.v.fixed_limit = fixed_limit;
  lua_newtable(L);
  d.list = lua_gettop(L);
  lua_newtable(L);
  d.map = lua_gettop(L);
  flat_class(&d, key, type, psoc_subobject_info_get(type)->default_payload);
  lua_remove(L, d.list);
}

/* Push the explain rows of the pipeline at idx; 'changed': only the rows
** whose value differs from the runtime default. */
static void explain_rows(lua_State *L, int idx, int changed) {
  pso_pipeline *p = check_pipeline(L, idx);
  state st;
  flat f;
  uint32_t cls;
  int rows, labels_list;
  uint8_t labels[512];
  idx = lua_absindex(L, idx);
  parse_state(L, p, &st);
  lua_newtable(L);
  rows = lua_gettop(L);
  lua_newtable(L);
  labels_list = lua_gettop(L);
  lua_pushliteral(L, "script");
  lua_rawseti(L, labels_list, 1);
  lua_pushliteral(L, "script");
  lua_pushinteger(L, 1);
  lua_rawset(L, labels_list);
  flat_init(&f, L, p->root_signature);
  f.row = explain_row;
  f.rows = rows;
  f.label_list = labels_list;
  f.v.fixed_limit = st.resolved.render_targets.NumRenderTargets > 1
                        ? (int)st.resolved.render_targets.NumRenderTargets
                        : 1;
  for (cls = 0; cls < PSOC_SO_TYPE_COUNT; cls++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(cls);
    psoi_payload_buf buf;
    int present;
    uint32_t type;
    if (!is_class_base(info) || !uses(p, info)) continue;
    type = effective(&st, cls, &buf, &present);
    f.labels = NULL;
    f.fixed_origin = NULL;
    f.hidden_text = NULL;
    f.origins_ok = 1;
    f.defaults = 0;
    if (present) {
      f.origins_ok = psoi_class_origins(L, PSOI_UV_KEYS, idx, cls, labels, sizeof labels,
                                        labels_list);
      f.labels = labels;
      if (class_versions(cls) > 1) {
        const char *origin = "script";
        size_t k, size = psoc_subobject_info_get(type)->payload->size;
        for (k = 0; k < size; k++)
          if (labels[k]) break;
        if (!f.origins_ok) origin = ORIGIN_UNKNOWN;
        else if (k < size) {
          lua_rawgeti(L, labels_list, labels[k]);
          origin = lua_tostring(L, -1);
        }
        if (!changed || type != cls)
          push_row(L, rows, info->key, psoc_subobject_info_get(type)->key,
                   origin ? origin : "script");
        lua_settop(L, labels_list);
      }
    } else {
      f.fixed_origin = "runtime default";
      if (cls == PSOC_SO_DEPTH_STENCIL &&
          st.resolved.depth_enable_origin == PSOC_ORIGIN_HIDDEN_DEFAULT) {
        const psoc_field *df = field_by_key(info->payload, "depth");
        f.hidden_text = HIDDEN_DEPTH;
        f.hidden_off = df ? (int)df->offset : -1;
      }
      if (cls == PSOC_SO_PRIMITIVE_TOPOLOGY &&
          st.resolved.topology_origin == PSOC_ORIGIN_HIDDEN_DEFAULT) {
        f.hidden_text = HIDDEN_TOPOLOGY;
        f.hidden_off = 0;
      }
    }
    if (changed) {
      push_default_map(L, info->key, type, f.v.fixed_limit);
      f.defaults = lua_gettop(L);
    }
    flat_class(&f, info->key, type, buf.b);
    lua_settop(L, labels_list);
  }
  lua_settop(L, rows);
}

/* The options of explain / explain_table at idx: { changed = boolean }. */
static int explain_options(lua_State *L, int idx) {
  int changed = 0;
  if (lua_isnoneornil(L, idx)) return 0;
  if (lua_type(L, idx) != LUA_TTABLE)
    return psoi_error(L, "explain: expected a table of options ({ changed = true }), got %s",
                      luaL_typename(L, idx));
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (!k || strcmp(k, "changed") != 0) {
      static const char *const cands[] = { "changed" };
      char sugg[96];
      psoi_suggest(k ? k : "", cands, 1, sugg, sizeof sugg);
      return psoi_error(L, "explain: unknown option '%s'%s", k ? k : luaL_typename(L, -2), sugg);
    }
    if (lua_type(L, -1) != LUA_TBOOLEAN)
      return psoi_error(L, "explain: changed: expected a boolean, got %s", luaL_typename(L, -1));
    changed = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  return changed;
}

static int m_explain_table(lua_State *L) {
  int changed = explain_options(L, 2);
  explain_rows(L, 1, changed);
  return 1;
}

static int m_explain(lua_State *L) {
  luaL_Buffer buf;
  size_t i, n, width = 0;
  int rows, changed = explain_options(L, 2);
  explain_rows(L, 1, changed);
  rows = lua_gettop(L);
  n = lua_rawlen(L, rows);
  for (i = 1; i <= n; i++) {
    size_t lp, lv;
    lua_rawgeti(L, rows, (int)i);
    lua_getfield(L, -1, "path");
    lua_getfield(L, -2, "value");
    lua_tolstring(L, -2, &lp);
    lua_tolstring(L, -1, &lv);
    if (lp + lv + 3 > width) width = lp + lv + 3;
    lua_pop(L, 3);
  }
  if (width > 56) width = 56;
  luaL_buffinit(L, &buf);
  for (i = 1; i <= n; i++) {
    char line[1024];
    const char *path, *value, *origin;
    int len;
    lua_rawgeti(L, rows, (int)i);
    lua_getfield(L, -1, "path");
    lua_getfield(L, -2, "value");
    lua_getfield(L, -3, "origin");
    path = lua_tostring(L, -3);
    value = lua_tostring(L, -2);
    origin = lua_tostring(L, -1);
    len = snprintf(line, sizeof line, "%s = %s", path, value);
    if (len < 0) len = 0;
    if ((size_t)len >= sizeof line) len = (int)sizeof line - 1;
    while ((size_t)len < width && (size_t)len < sizeof line - 1) line[len++] = ' ';
    line[len] = '\0';
    lua_pop(L, 4);
    luaL_addstring(&buf, line);
    luaL_addstring(&buf, "   (");
    luaL_addstring(&buf, origin);
    luaL_addstring(&buf, ")\n");
  }
  luaL_pushresult(&buf);
  return 1;
}

/* ---- diff ---------------------------------------------------------- */

static void diff_row(flat *f, const char *path, const char *value, const psoi_vval *val) {
  lua_State *L = f->L;
  (void)val;
  lua_pushstring(L, path);
  lua_pushvalue(L, -1);
  lua_rawseti(L, f->list, (int)lua_rawlen(L, f->list) + 1);
  lua_pushstring(L, value);
  lua_rawset(L, f->map);
}

/* Push list (paths in order) and map (path -> value) of a pipeline. */
static void diff_rows(lua_State *L, const pso_pipeline *p, psoc_kind kind_a, psoc_kind kind_b) {
  state st;
  flat f;
  uint32_t cls;
  parse_state(L, p, &st);
  lua_newtable(L);
  lua_newtable(L);
  flat_init(&f, L, p->root_signature);
  f.row = diff_row;
  f.list = lua_gettop(L) - 1;
  f.map = lua_gettop(L);
  for (cls = 0; cls < PSOC_SO_TYPE_COUNT; cls++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(cls);
    psoi_payload_buf buf;
    int present;
    uint32_t type;
    char path[96];
    if (!is_class_base(info)) continue;
    if (!(info->kinds & (PSOC_KIND_BIT(kind_a) | PSOC_KIND_BIT(kind_b)))) continue;
    type = effective(&st, cls, &buf, &present);
    snprintf(path, sizeof path, "%s (subobject)", info->key);
    lua_pushstring(L, path);
    lua_pushvalue(L, -1);
    lua_rawseti(L, f.list, (int)lua_rawlen(L, f.list) + 1);
    lua_pushstring(L, present ? psoc_subobject_info_get(type)->key : "absent");
    lua_rawset(L, f.map);
    flat_class(&f, info->key, type, buf.b);
  }
}

static void push_diff(lua_State *L, int out, const char *path, int va, int vb) {
  va = lua_absindex(L, va);
  vb = lua_absindex(L, vb);
  lua_createtable(L, 0, 3);
  lua_pushstring(L, path);
  lua_setfield(L, -2, "path");
  lua_pushvalue(L, va);
  lua_setfield(L, -2, "a");
  lua_pushvalue(L, vb);
  lua_setfield(L, -2, "b");
  lua_rawseti(L, out, (int)lua_rawlen(L, out) + 1);
}

static int m_diff(lua_State *L) {
  pso_pipeline *a = check_pipeline(L, 1), *b = check_pipeline(L, 2);
  int la, ma, lb, mb, out;
  size_t i, n;
  lua_settop(L, 2);
  diff_rows(L, a, (psoc_kind)a->kind, (psoc_kind)b->kind);
  la = 3;
  ma = 4;
  diff_rows(L, b, (psoc_kind)a->kind, (psoc_kind)b->kind);
  lb = 5;
  mb = 6;
  lua_newtable(L);
  out = 7;
  if (a->kind != b->kind) {
    lua_pushstring(L, psoc_kind_name((psoc_kind)a->kind));
    lua_pushstring(L, psoc_kind_name((psoc_kind)b->kind));
    push_diff(L, out, "kind", -2, -1);
    lua_pop(L, 2);
  }
  n = lua_rawlen(L, la);
  for (i = 1; i <= n; i++) {
    lua_rawgeti(L, la, (int)i);
    lua_pushvalue(L, -1);
    lua_rawget(L, ma);
    lua_pushvalue(L, -2);
    lua_rawget(L, mb);
    if (!lua_rawequal(L, -1, -2)) push_diff(L, out, lua_tostring(L, -3), -2, -1);
    lua_pop(L, 3);
  }
  n = lua_rawlen(L, lb);
  for (i = 1; i <= n; i++) {
    lua_rawgeti(L, lb, (int)i);
    lua_pushvalue(L, -1);
    lua_rawget(L, ma);
    if (lua_isnil(L, -1)) {
      lua_pushvalue(L, -2);
      lua_rawget(L, mb);
      push_diff(L, out, lua_tostring(L, -3), -2, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 2);
  }
  lua_settop(L, out);
  return 1;
}

/* ---- json ---------------------------------------------------------- */

static int json_write(void *ud, const char *text, size_t length) {
  luaL_addlstring((luaL_Buffer *)ud, text, length);
  return 0;
}

/* p:json(): psoc_json over the stream (libpsoc writes the object). */
static int m_json(lua_State *L) {
  pso_pipeline *p = check_pipeline(L, 1);
  psoc_explain_options o;
  luaL_Buffer b;
  memset(&o, 0, sizeof o);
  o.flags = PSOC_FOLLOW_POINTERS;
  o.root_signature_name = p->root_signature;
  lua_settop(L, 1);
  luaL_buffinit(L, &b);
  if (psoc_json(psoc_stream_data(p->stream), psoc_stream_size(p->stream), &o, p->name, json_write,
                &b) != PSOC_OK)
    return luaL_error(L, "pso: internal error: a pipeline's stream does not parse");
  luaL_pushresult(&b);
  return 1;
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */
/* ------------------------------------------------------------------ */

static const luaL_Reg methods[] = {
  { "bytes", m_bytes },       { "size", m_size },
  { "hash", m_hash },         { "check", m_check },
  { "valid", m_valid },       { "dump", m_dump },
  { "explain", m_explain },   { "explain_table", m_explain_table },
  { "json", m_json },         { "diff", m_diff },
  { "table", m_table },       { "subobjects", m_subobjects },
  { NULL, NULL }
};

static const luaL_Reg meta[] = {
  { "__newindex", pipe_newindex }, { "__tostring", pipe_tostring },
  { NULL, NULL }
};

void psoi_open_pipeline(lua_State *L, int ctx_idx, int keys_idx) {
  int mt, mtab;
  ctx_idx = lua_absindex(L, ctx_idx);
  keys_idx = lua_absindex(L, keys_idx);
  luaL_newmetatable(L, PSOI_PIPELINE_MT);
  mt = lua_gettop(L);
  lua_pushvalue(L, ctx_idx);
  lua_pushvalue(L, keys_idx);
  luaL_setfuncs(L, meta, 2);
  lua_newtable(L);
  mtab = lua_gettop(L);
  lua_pushvalue(L, ctx_idx);
  lua_pushvalue(L, keys_idx);
  luaL_setfuncs(L, methods, 2);
  lua_pushvalue(L, ctx_idx);
  lua_pushvalue(L, keys_idx);
  lua_pushvalue(L, mtab);
  lua_pushcclosure(L, pipe_index, 3);
  lua_setfield(L, mt, "__index");
  lua_pushliteral(L, "pso.pipeline");
  lua_setfield(L, mt, "__metatable");
  lua_pushlightuserdata(L, (void *)&pipeline_tag);
  lua_rawseti(L, mt, 1);
  lua_pushvalue(L, mtab);
  lua_rawseti(L, keys_idx, PSOI_K_METHODS);
  lua_pushvalue(L, mt);
  lua_rawseti(L, keys_idx, PSOI_K_PIPE_MT);
  lua_settop(L, mt - 1);
}

/* ---- explain origins for embedders (pso_module.h; owner s7) --------- */

uint32_t pso_pipeline_subobjects(const pso_pipeline *p) { return p ? p->count : 0; }

/* origins_body(out, cls, pipeline): the label list explain_rows keeps. */
static int origins_body(lua_State *L) {
  pso_origins *o = (pso_origins *)lua_touserdata(L, 1);
  uint32_t cls = (uint32_t)lua_tointeger(L, 2);
  int K, list;
  lua_getfield(L, LUA_REGISTRYINDEX, PSOI_KEYS_KEY);
  K = lua_gettop(L);
  lua_newtable(L);
  list = lua_gettop(L);
  lua_pushliteral(L, "script");
  lua_rawseti(L, list, 1);
  lua_pushliteral(L, "script");
  lua_pushinteger(L, 1);
  lua_rawset(L, list);
  o->known = psoi_class_origins(L, K, 3, cls, o->label, sizeof o->label, list);
  lua_settop(L, list);
  return 1;
}

int pso_pipeline_origins(lua_State *L, int idx, uint32_t dup_class, pso_origins *out) {
  const psoc_subobject_info *info = psoc_subobject_info_get(dup_class);
  size_t i, n;
  idx = lua_absindex(L, idx);
  memset(out, 0, sizeof *out);
  if (!pso_topipeline(L, idx) || !info || info->dup_class != dup_class) {
    lua_pushliteral(L, "pso_pipeline_origins: not a pipeline and a class");
    return 0;
  }
  if (!lua_checkstack(L, 8)) return 0;
  lua_pushcfunction(L, origins_body);
  lua_pushlightuserdata(L, out);
  lua_pushinteger(L, (lua_Integer)dup_class);
  lua_pushvalue(L, idx);
  if (lua_pcall(L, 3, 1, 0) != LUA_OK) return 0;
  n = (size_t)lua_rawlen(L, -1);
  for (i = 1; i <= n && i < sizeof out->text / sizeof out->text[0]; i++) {
    lua_rawgeti(L, -1, (int)i);
    out->text[i] = lua_tostring(L, -1); /* anchored in the list */
    lua_pop(L, 1);
  }
  out->text_count = i;
  return 1;
}
