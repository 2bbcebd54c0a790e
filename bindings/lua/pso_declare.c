/*
** pso_declare.c: declaring and deriving pipelines (layer 7 of the pso
** module; see pso_context.h for the chain). pso.graphics/mesh/compute
** scan the declaration's top-level keys, convert each class (pso_convert)
** and build the stream straight into a new pipeline object
** (pso_pipeline); pso.derive merges the overrides over the base's
** declarations, class by class, after checking that the base's
** declaration still produces the base's bytes.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pso_convert.h"
#include "pso_declare.h"
#include "pso_pipeline.h"

/* ------------------------------------------------------------------ */
/* Declarations                                                         */
/* ------------------------------------------------------------------ */

static void check_status(psoi_cv *c, psoc_status st) {
  if (st == PSOC_OK) return;
  if (st == PSOC_ERR_NOMEM) luaL_error(c->L, "not enough memory");
  luaL_error(c->L, "pso: internal error: %s", psoc_status_name(st));
}

/* Add the staged payloads to the (reset) builder: blobs borrowed (the
** pso.shader/pso.blob objects' bytes, which the pipeline anchors), the
** rest, built in the arena, copied at finish (PSOC_BUILDER_BORROW_BLOBS,
** which decides per type as ctx->type_borrow does). The type is only
** known at run time here, so the call goes to the exported function,
** (psoc_builder_add)(...), past psoc.h's inline form: that form is a
** switch with an inlined copy of the add for every type of the registry
** (about 4 KB of code in this function, a different part of it for each
** type a pipeline has), which only pays where the type is a constant. */
static psoc_status add_all(psoi_ctx *ctx, const psoi_stage *st) {
  psoc_builder *b = ctx->builder;
  psoc_status s = PSOC_OK;
  int i;
  psoc_builder_reset(b);
  psoc_builder_set_mode(b, PSOC_BUILDER_BORROW_BLOBS); /* restage leaves another */
  for (i = 0; i < st->n && s == PSOC_OK; i++) {
    uint32_t type = st->type[i];
    s = (psoc_builder_add)(b, type, st->payload[i], ctx->info[type]->payload->size);
  }
  return s;
}

/* The scratch list of borrowed blob objects (K[PSOI_K_ANCHORS]), pushed;
** call after psoi_cv_lock. The outermost declaration first clears what an
** error left there (a declaration run by a finalizer inside another one
** appends after the outer one's entries and removes its own at the end). */
static void anchors_begin(psoi_cv *c) {
  lua_State *L = c->L;
  psoi_ctx *ctx = c->ctx;
  lua_rawgeti(L, c->K, PSOI_K_ANCHORS);
  c->anchors = lua_gettop(L);
  if (ctx->arena_lock == 1)
    for (; ctx->anchor_top > 0; ctx->anchor_top--) {
      lua_pushnil(L);
      lua_rawseti(L, c->anchors, ctx->anchor_top);
    }
  c->anchor_base = ctx->anchor_top;
  c->nanchors = 0;
}

/* Move the declaration's anchors into user values 3.. of the pipeline on
** the top, set values 1 and 2 from stack indices v1, v2 (0: leave nil),
** and clear the scratch list back to where this declaration found it. */
static void anchors_end(psoi_cv *c, int v1, int v2) {
  lua_State *L = c->L;
  int i;
  if (v1) {
    lua_pushvalue(L, v1);
    pso_compat_setiuservalue(L, -2, 1);
  }
  if (v2) {
    lua_pushvalue(L, v2);
    pso_compat_setiuservalue(L, -2, 2);
  }
  for (i = 1; i <= c->nanchors; i++) {
    if (i <= PSOI_CV_ANCHORS && c->anchor_at[i - 1])
      lua_pushvalue(L, c->anchor_at[i - 1]);
    else
      lua_rawgeti(L, c->anchors, c->anchor_base + i);
    pso_compat_setiuservalue(L, -2, 2 + i);
  }
  psoi_cv_drop_anchors(c);
}

/* Room for the stream block beyond st->bound: the block's header. */
#define BLOCK_SLACK 32u

/* Create the pipeline userdata (a GC step may run here: the arena stays
** locked for re-entrant declarations, the builder is idle), then build the
** stream straight into it (psoc_builder_finish_into). Blob-only payloads
** (shaders, cached PSOs) are borrowed: the stream points at the bytes of
** the pso.shader/pso.blob objects (or of the base pipeline's), which the
** pipeline's user value keeps alive; the rest is copied once, at finish,
** from the arena and the declaration's strings. No Lua call runs while
** the builder holds entries. level: the stack level of the declaring call
** (the first Lua function at or above it names the site). v1, v2: user
** values 1 and 2 (stack indices; 0: none). Leaves the pipeline on the
** stack. */
static pso_pipeline *build(psoi_cv *c, const psoi_stage *st, psoc_kind kind, const char *name,
                           size_t name_len, const char *rs, size_t rs_len, int level, int v1,
                           int v2) {
  lua_State *L = c->L;
  psoi_ctx *ctx = c->ctx;
  psoc_builder *b = ctx->builder;
  unsigned char *mem;
  size_t cap = st->bound + BLOCK_SLACK, need = 0;
  psoc_status s;
  pso_pipeline *p;
  pso_site site;
  char short_src[LUA_IDSIZE];
  int again;
  if (st->bound > ((size_t)1 << 40)) psoi_cv_error(c, "the pipeline is too large");
  psoi_site_cached(L, ctx, c->K, level, &site); /* the pso.graphics/.../derive call */
  if (site.source == ctx->site_short) { /* a finalizer's declaration may reuse it */
    memcpy(short_src, ctx->site_short, sizeof short_src);
    site.source = short_src;
  }
  if (ctx->building) luaL_error(L, "pso: re-entrant declaration while building a stream");
  for (again = 0;; again++) {
    p = psoi_pipeline_new(L, c->K, kind, name, name_len, rs, rs_len, &site, cap, &mem,
                          2 + c->nanchors);
    ctx->building = 1;
    s = add_all(ctx, st);
    if (s == PSOC_OK) s = psoc_builder_finish_into(b, mem, cap, &need, &p->stream);
    p->count = (uint32_t)psoc_builder_count(b);
    p->lent = st->lent;
    psoc_builder_reset(b);
    ctx->building = 0;
    /* the bound fell short (it should not): once more with the exact size */
    if (s != PSOC_ERR_SIZE || need <= cap || again) break;
    lua_pop(L, 1);
    cap = need;
  }
  psoi_cv_unlock(c);
  if (s == PSOC_ERR_SIZE && need > cap)
    luaL_error(L, "pso: internal error: stream larger than its bound (%d > %d bytes)", (int)need,
               (int)cap);
  check_status(c, s);
  anchors_end(c, v1, v2);
  return p;
}

/* A class's payload room in the arena, rounded as the arena rounds. */
#define PAYLOAD_ROOM(ctx, cls) (((ctx)->class_payload_max[cls] + 15u) & ~(size_t)15u)

static void collect_errors(lua_State *L, psoc_kind kind);

/* psoi_cv_error's hook on psoi_declare_all's declarations: the errors of
** every other key joined to the message on the top. */
static void collect_hook(lua_State *L, int kind) {
  if (lua_type(L, -1) == LUA_TSTRING && lua_type(L, 1) == LUA_TTABLE)
    collect_errors(L, (psoc_kind)kind);
}

/* A declaration of kind 'kind' from the table at t. level: the stack level
** the first Lua function at or above which names the pipeline's site.
** collect: on an error, collect_errors first (psoi_declare_all). */
static int declare(lua_State *L, psoc_kind kind, int t, int level, int collect) {
  psoi_cv c;
  psoi_decl d;
  psoi_stage st;
  uint32_t cls, m;
  const char *rs = NULL, *name = NULL;
  size_t rs_len = 0, name_len = 0, room = 0;
  unsigned char *block;
  t = lua_absindex(L, t);
  psoi_cv_init(&c, L, PSOI_UV_KEYS);
  if (lua_type(L, t) != LUA_TTABLE) return psoi_cv_type_error(&c, t, "a table declaring the pipeline");
  if (collect) {
    c.collect = collect_hook;
    c.collect_arg = (int)kind;
  }
  psoi_cv_scan_decl(&c, kind, t, &d);
  if (!PSOI_DECL_VIDX(&d, psoi_decider_of(kind))) {
    c.depth = 0;
    psoi_cv_push_frame(&c, psoc_subobject_info_get(psoi_decider_of(kind))->key, 0);
    return psoi_cv_error(&c, "missing: a %s pipeline needs %s", psoc_kind_name(kind), psoi_decider_text[kind]);
  }
  if (PSOI_DECL_VIDX(&d, PSOC_SO_ROOT_SIGNATURE) &&
      lua_type(L, d.vidx[PSOC_SO_ROOT_SIGNATURE]) == LUA_TSTRING)
    rs = lua_tolstring(L, d.vidx[PSOC_SO_ROOT_SIGNATURE], &rs_len);
  if (d.name_idx) name = lua_tolstring(L, d.name_idx, &name_len);
  st.n = 0;
  st.bound = st.lent = 0;
  c.stable = lua_gettop(L); /* the declaration's values stay until build */
  psoi_cv_lock(&c);
  anchors_begin(&c);
  /* one piece of the arena for every given class's payload (each as
  ** psoi_stage_take would size and align it) */
  for (m = d.given; m; m &= m - 1) room += PAYLOAD_ROOM(c.ctx, pso_compat_first_class(m));
  block = psoi_arena_take(c.ctx, room);
  if (!block) psoi_cv_error(&c, "not enough memory");
  for (m = d.given; m; m &= m - 1) { /* the given classes, in class order */
    psoi_csrc s;
    uint32_t type;
    unsigned char *payload;
    cls = pso_compat_first_class(m);
    payload = block;
    block += PAYLOAD_ROOM(c.ctx, cls);
    c.extra = 0;
    if (c.ctx->class_ntypes[cls] == 1 && c.ctx->single_field[cls] >= 0) {
      type = psoi_cv_single(&c, cls, d.vidx[cls], d.vkey[cls], payload);
    } else {
      s.idx = d.vidx[cls];
      s.layer = 0;
      s.label = PSOI_LABEL_SCRIPT;
      s.type = d.vtype[cls];
      s.key = d.vkey[cls];
      type = psoi_cv_class(&c, cls, &s, 1, payload);
    }
    psoi_stage_commit(&c, &st, type, payload, c.extra);
  }
  build(&c, &st, kind, name, name_len, rs, rs_len, level, t, 0);
  return 1;
}

/* level 2: run protected (collect_errors) under the C function
** pso.graphics/mesh/compute */
int psoi_declare(lua_State *L, psoc_kind kind, int t) { return declare(L, kind, t, 2, 0); }

/* ---- all the errors of one declaration ----------------------------------- */

#define MAX_REPORTED 16

static int key_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef struct numbered {
  int idx;   /* stack index of the message */
  int rec;   /* stack index of its record (psoi_push_error_record), or 0 */
  long line; /* its line (from the record: data, not the message text) */
  int order;
} numbered;

/* By line, then in key order (stable). */
static int line_cmp(const void *a, const void *b) {
  const numbered *x = a, *y = b;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  return x->order - y->order;
}

/* Add the message at msg_idx to list (with its record in seen) unless it
** is there already; returns 1 when added, 0 when seen, -1 when full. */
static int add_message(lua_State *L, int msg_idx, int seen, int list, int *nmsg) {
  lua_pushvalue(L, msg_idx);
  if (pso_compat_rawget(L, seen) != LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pop(L, 1);
  if (*nmsg >= MAX_REPORTED) return -1;
  lua_pushvalue(L, msg_idx);
  if (!psoi_push_error_record(L, msg_idx)) lua_pushboolean(L, 1);
  lua_rawset(L, seen);
  lua_pushvalue(L, msg_idx);
  lua_rawseti(L, list, ++*nmsg);
  return 1;
}

/* Append the errors of one message to the combined record at out: its
** record's entries, or one entry with the message alone. */
static void append_record(lua_State *L, int out, const numbered *m) {
  int n = (int)lua_rawlen(L, out), k, j, count;
  if (m->rec) {
    count = ((int)lua_rawlen(L, m->rec) - 1) / PSOI_ERR_FIELDS;
    for (k = 0; k < count; k++)
      for (j = 0; j < PSOI_ERR_FIELDS; j++) {
        lua_rawgeti(L, m->rec, 2 + k * PSOI_ERR_FIELDS + j);
        lua_rawseti(L, out, ++n);
      }
    return;
  }
  lua_pushboolean(L, 0);
  lua_rawseti(L, out, ++n);
  lua_pushinteger(L, 0);
  lua_rawseti(L, out, ++n);
  lua_pushboolean(L, 0);
  lua_rawseti(L, out, ++n);
  lua_pushinteger(L, 0);
  lua_rawseti(L, out, ++n);
  lua_pushliteral(L, "");
  lua_rawseti(L, out, ++n);
  lua_pushvalue(L, m->idx);
  lua_rawseti(L, out, ++n);
}

/* The declaration at index 1 failed with the message on the top: convert
** each top-level key on its own (with the deciding shader, which most
** keys need), in key order, and leave every distinct message, one per
** line, on the top instead, in source order (by the line each error's
** record gives). The combined record becomes the last error, so
** pso_error_info lists every error. Only on the error path; no Lua code
** runs. */
static void collect_errors(lua_State *L, psoc_kind kind) {
  const char *keys[64], *decider = psoc_subobject_info_get(psoi_decider_of(kind))->key;
  int nkeys = 0, i, nmsg = 0, more = 0, first = lua_gettop(L), seen, list;
  luaL_checkstack(L, 2 * MAX_REPORTED + 16, "pso: stack overflow");
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING && nkeys < 64) keys[nkeys++] = lua_tostring(L, -1);
  }
  if (nkeys > 1) qsort(keys, (size_t)nkeys, sizeof keys[0], key_cmp);
  lua_newtable(L); /* message -> its record, or true */
  seen = lua_gettop(L);
  lua_newtable(L); /* the distinct messages, in key order */
  list = lua_gettop(L);
  add_message(L, first, seen, list, &nmsg); /* its record is still the last error */
  for (i = 0; i < nkeys; i++) {
    int status;
    if (strcmp(keys[i], decider) == 0) continue;
    lua_rawgeti(L, PSOI_UV_KEYS, PSOI_K_RAW_DECLARE + (int)kind);
    lua_createtable(L, 0, 2);
    lua_pushstring(L, decider);
    lua_rawget(L, 1);
    lua_setfield(L, -2, decider);
    lua_pushstring(L, keys[i]);
    lua_pushvalue(L, -1);
    lua_rawget(L, 1);
    lua_rawset(L, -3);
    status = lua_pcall(L, 1, 1, 0);
    if (status != LUA_OK && status != LUA_ERRRUN) lua_error(L); /* memory: as it is */
    if (status == LUA_ERRRUN && lua_type(L, -1) == LUA_TSTRING &&
        add_message(L, lua_gettop(L), seen, list, &nmsg) < 0)
      more++;
    lua_pop(L, 1);
  }
  {
    numbered ms[MAX_REPORTED];
    luaL_Buffer b;
    int out;
    memset(ms, 0, sizeof ms);
    for (i = 0; i < nmsg; i++) {
      lua_rawgeti(L, list, i + 1);
      ms[i].idx = lua_gettop(L);
      lua_pushvalue(L, -1);
      if (pso_compat_rawget(L, seen) == LUA_TTABLE) {
        ms[i].rec = lua_gettop(L);
        lua_rawgeti(L, -1, 3);
        ms[i].line = (long)lua_tointeger(L, -1);
        lua_pop(L, 1);
      }
      ms[i].order = i;
    }
    if (nmsg == 1) { /* the first error alone: its record again */
      if (ms[0].rec) psoi_set_error_record(L, ms[0].rec);
      lua_settop(L, first);
      return;
    }
    qsort(ms, (size_t)nmsg, sizeof ms[0], line_cmp); /* in source order */
    luaL_buffinit(L, &b);
    for (i = 0; i < nmsg; i++) {
      if (i) luaL_addchar(&b, '\n');
      lua_pushvalue(L, ms[i].idx);
      luaL_addvalue(&b);
    }
    if (more) {
      char tail[48];
      snprintf(tail, sizeof tail, "\n(and %d more errors)", more);
      luaL_addstring(&b, tail);
    }
    luaL_pushresult(&b);
    lua_replace(L, first);
    lua_createtable(L, 1 + nmsg * PSOI_ERR_FIELDS, 0);
    out = lua_gettop(L);
    lua_pushvalue(L, first);
    lua_rawseti(L, out, 1);
    for (i = 0; i < nmsg; i++) append_record(L, out, &ms[i]);
    psoi_set_error_record(L, out);
  }
  lua_settop(L, first);
}

/* Not run protected: the conversion's errors (psoi_cv_error) call
** collect_hook before they are raised, so a declaration that succeeds
** pays no pcall. Other errors (memory, the stack, internal ones) are
** raised as they are. */
int psoi_declare_all(lua_State *L, psoc_kind kind) {
  lua_settop(L, 1);
  return declare(L, kind, 1, 1, 1);
}

int psoi_derive(lua_State *L, int base_idx, int ov) {
  psoi_cv c;
  psoi_decl d;
  psoi_payload_buf vbuf;
  psoi_stage st;
  const pso_pipeline *base;
  psoc_parsed parsed;
  uint32_t cls, dc;
  const char *rs = NULL, *name;
  size_t rs_len = 0, name_len;
  base_idx = lua_absindex(L, base_idx);
  ov = lua_absindex(L, ov);
  psoi_cv_init(&c, L, PSOI_UV_KEYS);
  base = pso_topipeline(L, base_idx);
  if (!base) return psoi_cv_type_error(&c, base_idx, "a pipeline to derive from (argument 1)");
  if (lua_type(L, ov) != LUA_TTABLE) return psoi_cv_type_error(&c, ov, "a table of overrides (argument 2)");
  psoi_cv_scan_decl(&c, (psoc_kind)base->kind, ov, &d);
  if (!d.name_idx) {
    c.depth = 0;
    psoi_cv_push_frame(&c, "name", 0);
    return psoi_cv_error(&c, "missing: a derived pipeline needs its own name");
  }
  name = lua_tolstring(L, d.name_idx, &name_len);
  dc = psoi_decider_of(base->kind);
  if (PSOI_DECL_NONE(&d, dc)) {
    c.depth = 0;
    psoi_cv_push_frame(&c, psoc_subobject_info_get(dc)->key, 0);
    return psoi_cv_error(&c, "cannot be removed: a %s pipeline needs %s", psoc_kind_name(base->kind),
                    psoi_decider_text[base->kind]);
  }
  if (psoc_parse(psoc_stream_data(base->stream), psoc_stream_size(base->stream), &parsed, NULL) !=
      PSOC_OK)
    return psoi_cv_error(&c, "internal error: the base pipeline's stream does not parse");
  if (PSOI_DECL_VIDX(&d, PSOC_SO_ROOT_SIGNATURE)) {
    if (lua_type(L, d.vidx[PSOC_SO_ROOT_SIGNATURE]) == LUA_TSTRING)
      rs = lua_tolstring(L, d.vidx[PSOC_SO_ROOT_SIGNATURE], &rs_len);
  } else if (!PSOI_DECL_NONE(&d, PSOC_SO_ROOT_SIGNATURE) && base->root_signature) {
    rs = base->root_signature;
    rs_len = strlen(rs);
  }
  memset(&st, 0, sizeof st);
  c.stable = lua_gettop(L); /* the overrides' values stay until build */
  psoi_cv_lock(&c);
  anchors_begin(&c);
  for (cls = 0; cls < PSOC_SO_TYPE_COUNT; cls++) {
    const psoc_view *view = psoc_parsed_class(&parsed, cls);
    psoi_csrc srcs[PSOI_CV_SOURCES];
    int n, top = lua_gettop(L);
    unsigned char *payload;
    uint32_t type;
    if (!PSOI_DECL_VIDX(&d, cls)) { /* untouched: the base's bytes */
      if (PSOI_DECL_NONE(&d, cls) || !view) continue;
      memcpy(vbuf.b, view->payload, view->info->payload->size);
      psoi_stage_add(&c, &st, view->type, vbuf.b,
                c.ctx->type_has_ptr[view->type] ? psoi_payload_extra(view->info->payload, vbuf.b) : 0);
      continue;
    }
    srcs[0].idx = d.vidx[cls];
    srcs[0].layer = 0;
    srcs[0].label = PSOI_LABEL_SCRIPT;
    srcs[0].type = d.vtype[cls];
    srcs[0].key = d.vkey[cls];
    n = 1 + psoi_pipeline_sources(&c, base_idx, cls, srcs + 1, PSOI_CV_SOURCES - 1, 1, 0);
    /* the base's declaration must still produce the base's bytes */
    if (n > 1 || view) {
      int ok = n > 1 && view != NULL;
      if (ok) {
        uint32_t bt;
        c.verify = 1;
        bt = psoi_cv_class(&c, cls, srcs + 1, n - 1, vbuf.b);
        c.verify = 0;
        ok = psoi_same_payload(bt, vbuf.b, view->type, view->payload);
      }
      if (!ok) {
        c.depth = 0;
        psoi_cv_push_frame(&c, d.vkey[cls], 0);
        return psoi_cv_error(&c, "the declaration of base pipeline '%s' was modified after it was "
                            "declared (declaration tables must not change once declared; "
                            "build a new table instead)",
                        psoi_pipeline_label(base));
      }
    }
    c.extra = 0;
    payload = psoi_stage_take(&c, cls);
    type = psoi_cv_class(&c, cls, srcs, n, payload);
    psoi_stage_commit(&c, &st, type, payload, c.extra);
    lua_settop(L, top);
  }
  /* user value 2, the base, also keeps what it lends its untouched classes */
  build(&c, &st, (psoc_kind)base->kind, name, name_len, rs, rs_len, 1, ov, base_idx)->derived = 1;
  return 1;
}

