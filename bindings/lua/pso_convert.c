/*
** pso_convert.c: declaration tables -> payload bytes, and payload bytes ->
** the language's values. Generic over the registry's field descriptors:
** a subobject type added to the registry is declarable and readable here
** without edits. The few shorthands of the language are listed (and
** documented) in one place below ("Shorthands").
**
** Sources. A value may come from several declaration tables at once:
** pso.derive (pso_declare.c) merges the overrides over the base's
** declaration ("layers", 0 = topmost). Records merge key by key, lists and scalars replace. A
** plain pso.graphics{} has one layer, and the code below is the same.
**
** Speed. Declarations are read with raw accesses only (no metamethods).
** Each table is walked once with lua_next (lists twice: once to check
** their shape, then element by element); values found are used where
** lua_next left them on the stack. Keys and enum spellings resolve through
** the context's pointer cache (the interned string's address; the Lua key
** tables only on a miss), identities (pso.none, the shader metatable) are
** compared by address, and a payload given as its only field (vs = ...,
** input_layout = {...}) skips the version and merge machinery. Payloads are
** converted in place in the per-state arena. Nothing allocates on the
** success path except out-of-line arrays (arena) and the pipeline with the
** builder's copies. Error messages are built only when raising.
** tests/bench/bench_lua.c measures this path (see its header for the
** callgrind recipe).
**
** Memory. Converted payloads and their out-of-line arrays go to a per-state
** arena (see psoi_cv_lock for re-entrancy from finalizers) and are staged
** (psoi_stage); pso_declare.c then creates the pipeline userdata with room
** for the stream (an upper bound), and the shared builder assembles the
** stream straight into it. No Lua function is called while the builder
** holds entries, so nothing can re-enter it.
**
** Layer 4 of the module (pso_context.h has the chain): uses pso_context
** and pso_values only; the pipeline objects and declarations sit above.
*/
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pso_convert.h"
#include "xxh.h" /* content tags of blobs in text output */
#include "pso_values.h"

#define MAX_FIELDS 32   /* fields per struct (checked at init) */
#define MAX_STASH 256   /* record values kept for merging, per struct */

enum { CV_OK = 0, CV_SOFT = 1 };

/* Rare paths kept out of the hot functions (less code in the L1 cache). */
#if defined(__GNUC__)
#define PSOI_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define PSOI_NOINLINE __declspec(noinline)
#else
#define PSOI_NOINLINE
#endif

/* ------------------------------------------------------------------ */
/* Shorthands (on top of the generic rules)                            */
/* ------------------------------------------------------------------ */
/*
** Generic rules: a subobject whose payload has one field besides COUNT
** fields is given as that field's value (topology = "triangle",
** vs = pso.shader(...), input_layout = { ... }); everything else is a
** table of field keys (or D3D12 member names). Lists (ARRAY) and scalars
** replace, records (STRUCT, FIXED) merge in pso.derive. COUNT fields are
** implied by their list or blob.
**
** Shorthands:
**  - input_layout elements: [1] = semantic, [2] = format; offset defaults
**    to D3D12_APPEND_ALIGNED_ELEMENT.
**  - render_targets = { "fmt", ... }: the formats, count = #list (<= 8).
**  - sample_desc = 4: { count = 4, quality = 0 }.
**  - depth_stencil.write = true/false: "all"/"zero".
**  - write_mask (D3D12_COLOR_WRITE_ENABLE) = "rgb": letters r, g, b, a.
**  - flags everywhere: a name, "a|b", a list of names, or an integer.
**  - blend: the keys of one render target given directly in blend apply
**    to render_targets[1] (generic: a struct with a FIXED field of structs
**    accepts that element's keys for element 1).
**  - rasterizer / depth_stencil pick the oldest version that has every key
**    given and can hold every value (a fractional depth_bias needs
**    RASTERIZER1, line_mode RASTERIZER2, depth_bounds DEPTH_STENCIL1,
**    per-face read_mask/write_mask DEPTH_STENCIL2); rasterizer1 etc. force
**    one (generic over duplicate classes with several types).
*/

#define APPEND_ALIGNED 0xffffffffu

static const char psoi_top_owner = 't'; /* imap owner of the top-level keys */

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */

static uint64_t read_uint(const unsigned char *p, unsigned size) {
  switch (size) {
  case 1: return p[0];
  case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
  case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
  default: { uint64_t v; memcpy(&v, p, 8); return v; }
  }
}

static void put_uint(unsigned char *p, unsigned size, uint64_t v) {
  switch (size) {
  case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
  case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
  case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
  default: memcpy(p, &v, 8); break;
  }
}

static const unsigned char *get_ptr(const unsigned char *p) {
  const unsigned char *v;
  memcpy(&v, p, sizeof v);
  return v;
}

static void put_ptr(unsigned char *p, const void *v) { memcpy(p, &v, sizeof v); }

/* The COUNT field that holds the count of an ARRAY/BLOB field. */
static const psoc_field *count_field(const psoc_struct *s, const psoc_field *f) {
  uint32_t i;
  for (i = 0; i < s->field_count; i++)
    if (s->fields[i].kind == PSOC_FIELD_COUNT && s->fields[i].offset == f->count_offset)
      return &s->fields[i];
  return NULL;
}

/* count_of and single_field are the core's (visit.h). */

/* The FIXED-of-structs field whose element keys the struct accepts
** directly (blend's render_targets), or -1. */
static int fallthrough_field(const psoc_struct *s) {
  int idx = -1;
  uint32_t i;
  for (i = 0; i < s->field_count; i++) {
    if (s->fields[i].kind != PSOC_FIELD_FIXED || !s->fields[i].element) continue;
    if (idx >= 0) return -1;
    idx = (int)i;
  }
  return idx;
}

/* fallthrough_field(s) and psoc_visit_single_field(s) through a small direct-mapped
** cache in the context (structs are static registry data). */
static const psoi_shape *shape_of(psoi_ctx *ctx, const psoc_struct *s) {
  psoi_shape *e = &ctx->shapes[((uintptr_t)s >> 4) % PSOI_SHAPES];
  if (e->s != s) {
    e->s = s;
    e->fallthrough = (int8_t)fallthrough_field(s);
    e->single = (int8_t)psoc_visit_single_field(s);
  }
  return e;
}

#define shape_fallthrough(ctx, s) (shape_of((ctx), (s))->fallthrough)
#define shape_single(ctx, s) (shape_of((ctx), (s))->single)

#define IS_SHADER_FIELD(ctx, f) ((f) == (ctx)->code_field)

/* ------------------------------------------------------------------ */
/* Key tables (per state, each built on first use)                      */
/* ------------------------------------------------------------------ */

static void add_keys(lua_State *L, int t, const psoc_field *f, lua_Integer v, int only_new) {
  const char *names[2];
  int i;
  names[0] = f->key;
  names[1] = f->name;
  for (i = 0; i < 2; i++) {
    if (!names[i]) continue;
    if (only_new) {
      lua_getfield(L, t, names[i]);
      if (!lua_isnil(L, -1)) {
        lua_pop(L, 1);
        continue;
      }
      lua_pop(L, 1);
    }
    lua_pushinteger(L, v);
    lua_setfield(L, t, names[i]);
  }
}

/* Cache the key strings of the table at t (its own, anchored key objects)
** under 'owner'. */
static void cache_keys(lua_State *L, psoi_ctx *ctx, int t, const void *owner) {
  lua_pushnil(L);
  while (lua_next(L, t)) {
    if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TNUMBER)
      psoi_imap_put(ctx, owner, lua_tostring(L, -2), (int64_t)lua_tointeger(L, -1));
    lua_pop(L, 1);
  }
}

/* The key table K[s] of struct s, built on first use (a material uses a
** few of the registry's structs: opening the module builds none). Pushed. */
static void push_struct_keys(lua_State *L, psoi_ctx *ctx, int K, const psoc_struct *s) {
  uint32_t i;
  int t, ft;
  if (lua_rawgetp(L, K, s) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_createtable(L, 0, (int)s->field_count * 2);
  t = lua_gettop(L);
  for (i = 0; i < s->field_count; i++) add_keys(L, t, &s->fields[i], (lua_Integer)i + 1, 0);
  ft = fallthrough_field(s);
  if (ft >= 0) {
    const psoc_struct *e = s->fields[ft].element;
    for (i = 0; i < e->field_count; i++) add_keys(L, t, &e->fields[i], -((lua_Integer)i + 1), 1);
  }
  lua_pushvalue(L, t);
  lua_rawsetp(L, K, s);
  cache_keys(L, ctx, t, s);
}

/* Every struct of the registry fits the converter (checked at init). */
static void check_struct(lua_State *L, const psoc_struct *s, int depth) {
  uint32_t i;
  if (!s || depth > 8) return;
  if (s->field_count > MAX_FIELDS)
    luaL_error(L, "pso: struct %s has more than %d fields", s->name, MAX_FIELDS);
  for (i = 0; i < s->field_count; i++) check_struct(L, s->fields[i].element, depth + 1);
}

static int struct_has_pointers(const psoc_struct *s) {
  uint32_t i;
  for (i = 0; s && i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    if (f->kind == PSOC_FIELD_ARRAY || f->kind == PSOC_FIELD_BLOB || f->kind == PSOC_FIELD_STRING ||
        f->kind == PSOC_FIELD_OBJECT)
      return 1;
    if ((f->kind == PSOC_FIELD_STRUCT || f->kind == PSOC_FIELD_FIXED) && struct_has_pointers(f->element))
      return 1;
  }
  return 0;
}

/* The payload's one pointer is a blob: the rule by which
** PSOC_BUILDER_BORROW_BLOBS borrows a payload (pso_declare.c add_all). */
static int struct_blob_only(const psoc_struct *s) {
  uint32_t i;
  int blobs = 0;
  for (i = 0; s && i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    if (f->kind == PSOC_FIELD_BLOB) blobs++;
    if (f->kind == PSOC_FIELD_ARRAY || f->kind == PSOC_FIELD_STRING) return 0;
    if ((f->kind == PSOC_FIELD_STRUCT || f->kind == PSOC_FIELD_FIXED) && struct_has_pointers(f->element))
      return 0;
  }
  return blobs == 1;
}

static int field_index(const psoc_struct *s, const char *key) {
  uint32_t i;
  for (i = 0; s && i < s->field_count; i++)
    if (strcmp(s->fields[i].key, key) == 0) return (int)i;
  return -1;
}

/* (psoi_init_keys, s21) What a context knows of the registry: static
** data, the same for every state, so worked out once per process into
** this template (registry_facts) and copied into each new context. */
static psoi_ctx reg_facts;
static psoc_plat_once reg_facts_once = PSOC_PLAT_ONCE_INIT;

static void registry_facts(psoi_ctx *ctx) {
  uint32_t t;
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    if (!info) continue;
    if (info->payload->size > ctx->payload_max) ctx->payload_max = info->payload->size;
    ctx->type_has_ptr[t] = (uint8_t)struct_has_pointers(info->payload);
    ctx->type_borrow[t] = (uint8_t)struct_blob_only(info->payload);
    ctx->single_field[t] = (int8_t)psoc_visit_single_field(info->payload);
    ctx->info[t] = info;
    if (info->payload->size > ctx->class_payload_max[info->dup_class])
      ctx->class_payload_max[info->dup_class] = (uint16_t)info->payload->size;
    if (ctx->class_ntypes[info->dup_class] < 4)
      ctx->class_types[info->dup_class][ctx->class_ntypes[info->dup_class]++] = (uint8_t)t;
    if (t == PSOC_SO_INPUT_LAYOUT) {
      int e = field_index(info->payload, "elements");
      if (e >= 0) ctx->input_element = info->payload->fields[e].element;
      ctx->input_semantic = field_index(ctx->input_element, "semantic");
      ctx->input_format = field_index(ctx->input_element, "format");
      ctx->input_offset = field_index(ctx->input_element, "offset");
    }
    if (t == PSOC_SO_VS) {
      int e = field_index(info->payload, "code");
      if (e >= 0) ctx->code_field = &info->payload->fields[e];
    }
  }
}

static void init_reg_facts(void) { registry_facts(&reg_facts); }

/* The top-level keys (K[PSOI_K_TOP]: type key -> type, "name" -> -1, each
** also in the pointer cache) and the type keys (K[PSOI_K_TYPEKEYS]: [type
** + 1] -> key), made in tables of their final size, each key string
** interned once; the registry facts copied from the process's template. */
void psoi_init_keys(lua_State *L, psoi_ctx *ctx, int K) {
  const psoi_ctx *f = &reg_facts;
  uint32_t t;
  int top, types, ntypes = 0;
  K = lua_absindex(L, K);
  if (psoc_plat_once_run(&reg_facts_once, init_reg_facts) != 0) {
    registry_facts(ctx); /* no once: this context's own */
    f = ctx;
  }
  if (f != ctx) {
    ctx->payload_max = f->payload_max;
    memcpy(ctx->type_has_ptr, f->type_has_ptr, sizeof ctx->type_has_ptr);
    memcpy(ctx->type_borrow, f->type_borrow, sizeof ctx->type_borrow);
    memcpy(ctx->single_field, f->single_field, sizeof ctx->single_field);
    memcpy(ctx->info, f->info, sizeof ctx->info);
    memcpy(ctx->class_payload_max, f->class_payload_max, sizeof ctx->class_payload_max);
    memcpy(ctx->class_types, f->class_types, sizeof ctx->class_types);
    memcpy(ctx->class_ntypes, f->class_ntypes, sizeof ctx->class_ntypes);
    ctx->input_element = f->input_element;
    ctx->input_semantic = f->input_semantic;
    ctx->input_format = f->input_format;
    ctx->input_offset = f->input_offset;
    ctx->code_field = f->code_field;
  }
  if (ctx->payload_max > PSOI_PAYLOAD_MAX) luaL_error(L, "pso: payloads larger than %d bytes", PSOI_PAYLOAD_MAX);
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++)
    if (ctx->info[t]) {
      check_struct(L, ctx->info[t]->payload, 0);
      ntypes++;
    }
  luaL_checkstack(L, 6, "pso: stack overflow");
  lua_createtable(L, 0, ntypes + 1); /* top-level keys */
  top = lua_gettop(L);
  lua_createtable(L, (int)PSOC_SO_TYPE_COUNT, 0); /* type keys */
  types = top + 1;
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const char *key;
    if (!ctx->info[t]) continue;
    lua_pushstring(L, ctx->info[t]->key);
    key = lua_tostring(L, -1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, types, (int)t + 1);
    lua_pushinteger(L, (lua_Integer)t);
    lua_rawset(L, top);
    psoi_imap_put(ctx, &psoi_top_owner, key, (int64_t)t);
  }
  lua_rawseti(L, K, PSOI_K_TYPEKEYS);
  lua_pushliteral(L, "name");
  psoi_imap_put(ctx, &psoi_top_owner, lua_tostring(L, -1), -1);
  lua_pushinteger(L, -1);
  lua_rawset(L, top);
  lua_rawseti(L, K, PSOI_K_TOP);
}

/* ------------------------------------------------------------------ */
/* The converter                                                        */
/* ------------------------------------------------------------------ */

typedef struct src {
  int idx;          /* absolute stack index of the value (tables: resolved) */
  uint8_t layer;    /* 0 = topmost declaration */
  uint8_t label;    /* origin label id (tracking) */
  uint8_t filtered; /* read only the element keys of the parent struct */
  uint8_t pdepth;   /* path depth of this source's keys */
  const psoc_struct *parent_s; /* filtered: the parent struct */
} src;

/* (frames[] are written before they are read: no need to clear them) */
void psoi_cv_init(psoi_cv *c, lua_State *L, int K) {
  c->L = L;
  c->ctx = psoi_context(L);
  c->K = K;
  c->depth = 0;
  c->soft = c->soft_keys = c->verify = c->locked = 0;
  c->extra = 0;
  c->marks = NULL;
  c->marks_size = 0;
  c->label_list = c->label_map = 0;
  c->anchors = c->anchor_base = c->nanchors = 0;
  c->stable = 0;
  c->room = 0;
  c->collect = NULL;
  c->collect_arg = 0;
}

void psoi_cv_room_slow(psoi_cv *c, int n) {
  luaL_checkstack(c->L, n + 16, "pso: nesting too deep");
  c->room = PSO_COMPAT_ROOM_LASTS ? lua_gettop(c->L) + n + 16 : 0;
}

void psoi_cv_push_frame(psoi_cv *c, const char *key, int index) {
  if (c->depth < PSOI_CV_DEPTH) {
    c->frames[c->depth].key = key;
    c->frames[c->depth].index = index;
  }
  c->depth++;
}

static size_t path_text(const psoi_cv *c, char *out, size_t n) {
  size_t len = 0;
  int i, depth = c->depth < PSOI_CV_DEPTH ? c->depth : PSOI_CV_DEPTH;
  out[0] = '\0';
  for (i = 0; i < depth && len + 1 < n; i++) {
    const psoi_frame *f = &c->frames[i];
    int w;
    if (f->key)
      w = snprintf(out + len, n - len, "%s%s", len ? "." : "", f->key);
    else
      w = snprintf(out + len, n - len, "[%d]", f->index);
    if (w < 0) break;
    len += (size_t)w;
  }
  if (len >= n) len = n - 1;
  return len;
}

void psoi_cv_unlock(psoi_cv *c) {
  if (c->locked) {
    c->locked = 0;
    if (c->ctx->arena_lock > 0) c->ctx->arena_lock--;
  }
}

/* The arena is shared by every declaration of the state; a declaration
** locks it while its converted data lives there. A declaration can only
** start inside another one from a finalizer run by a GC step (the only
** Lua calls that may run while locked allocate), and the nested one must
** not reset the arena. Lua 5.4 tells whether a finalizer is running
** (lua_gc returns -1), so a lock left behind by an error Lua raised (out
** of memory) is dropped there; other versions keep it until a declaration
** of the same state ends normally with no other running. Lua is asked
** only when a lock is held (lua_gc is a large function, and most
** declarations find the arena unlocked). */
void psoi_cv_lock(psoi_cv *c) {
  if (c->ctx->arena_lock != 0 && pso_compat_in_finalizer(c->L) == 0) c->ctx->arena_lock = 0;
  if (c->ctx->arena_lock == 0) psoi_arena_reset(c->ctx);
  c->ctx->arena_lock++;
  c->locked = 1;
}

/* Let go of the blob objects this declaration set aside for its pipeline
** (the scratch list's entries above where it found it). */
void psoi_cv_drop_anchors(psoi_cv *c) {
  psoi_ctx *ctx = c->ctx;
  int i;
  if (!c->anchors) return;
  for (i = c->anchor_base + 1; i <= ctx->anchor_top; i++) {
    lua_pushnil(c->L);
    lua_rawseti(c->L, c->anchors, i);
  }
  if (ctx->anchor_top > c->anchor_base) ctx->anchor_top = c->anchor_base;
  c->nanchors = 0;
}

int psoi_cv_error(psoi_cv *c, const char *fmt, ...) {
  char msg[768], path[256];
  va_list ap;
  psoi_cv_unlock(c);
  psoi_cv_drop_anchors(c);
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  path_text(c, path, sizeof path);
  {
    const char *keys[PSOI_CV_DEPTH];
    int i, n = c->depth < PSOI_CV_DEPTH ? c->depth : PSOI_CV_DEPTH, indexes[PSOI_CV_DEPTH];
    for (i = 0; i < n; i++) {
      keys[i] = c->frames[i].key;
      indexes[i] = c->frames[i].index;
    }
    psoi_push_where_keys(c->L, 1, path, msg, keys, indexes, n);
  }
  if (c->collect) {
    void (*collect)(lua_State *, int) = c->collect;
    c->collect = NULL;
    collect(c->L, c->collect_arg);
  }
  return lua_error(c->L);
}

/* A short description of a value for messages: "a string ('x')". */
static const char *describe(lua_State *L, int idx, char *buf, size_t n) {
  switch (lua_type(L, idx)) {
  case LUA_TSTRING: snprintf(buf, n, "a string ('%.60s')", lua_tostring(L, idx)); break;
  case LUA_TNUMBER: {
    int64_t v;
    if (pso_compat_tointeger(L, idx, &v))
      snprintf(buf, n, "a number (%lld)", (long long)v);
    else
      snprintf(buf, n, "a number (%.17g)", (double)lua_tonumber(L, idx));
    break;
  }
  case LUA_TBOOLEAN: snprintf(buf, n, "a boolean (%s)", lua_toboolean(L, idx) ? "true" : "false"); break;
  case LUA_TNIL: snprintf(buf, n, "nil"); break;
  case LUA_TUSERDATA:
    if (luaL_testudata(L, idx, PSOI_BLOB_MT)) {
      const psoi_blob *b = lua_touserdata(L, idx);
      snprintf(buf, n, "%s", b->kind == PSOI_BLOB_SHADER ? "a shader" : "a blob");
    } else if (luaL_testudata(L, idx, PSOI_PIPELINE_MT)) {
      snprintf(buf, n, "a pipeline");
    } else if (luaL_testudata(L, idx, PSOI_NONE_MT)) {
      snprintf(buf, n, "pso.none");
    } else if (psoi_proxy_kind(L, idx)) {
      if (psoi_proxy_tag(L, idx) == PSOI_PROXY_PRESET)
        snprintf(buf, n, "%.80s", lua_tostring(L, -1));
      else
        snprintf(buf, n, "pso.%.60s", lua_tostring(L, -1));
      lua_pop(L, 1);
    } else {
      snprintf(buf, n, "a userdata");
    }
    break;
  default: snprintf(buf, n, "a %s", luaL_typename(L, idx)); break;
  }
  return buf;
}

int psoi_cv_type_error(psoi_cv *c, int idx, const char *expected) {
  char d[96];
  return psoi_cv_error(c, "expected %s, got %s", expected, describe(c->L, idx, d, sizeof d));
}

/* Candidate keys of structs (COUNT fields left out), plus the element keys
** a struct accepts directly: the language's keys, or with 'members' the
** D3D12 member names (for a misspelt "CullMdoe"). */
static size_t struct_keys(const psoc_struct *const *ss, int ns, int members, const char **out,
                          size_t max) {
  size_t n = 0;
  int k;
  for (k = 0; k < ns; k++) {
    const psoc_struct *s = ss[k];
    int ft;
    uint32_t i;
    if (!s) continue;
    for (i = 0; i < s->field_count && n < max; i++)
      if (s->fields[i].kind != PSOC_FIELD_COUNT)
        out[n++] = members ? s->fields[i].name : s->fields[i].key;
    ft = fallthrough_field(s);
    if (ft >= 0) {
      const psoc_struct *e = s->fields[ft].element;
      for (i = 0; i < e->field_count && n < max; i++)
        out[n++] = members ? e->fields[i].name : e->fields[i].key;
    }
  }
  return n;
}

static int unknown_key(psoi_cv *c, const psoc_struct *const *ss, int ns, int key_idx) {
  const char *cands[160];
  char sugg[320];
  size_t n;
  if (lua_type(c->L, key_idx) != LUA_TSTRING) {
    char d[96];
    return psoi_cv_error(c, "unexpected key %s", describe(c->L, key_idx, d, sizeof d));
  }
  {
    /* A key spelt like a D3D12 member (capital first letter) is matched
    ** against the member names first, then against the keys. */
    const char *key = lua_tostring(c->L, key_idx);
    sugg[0] = '\0';
    if (key[0] >= 'A' && key[0] <= 'Z') {
      n = struct_keys(ss, ns, 1, cands, 160);
      psoi_suggest(key, cands, n, sugg, sizeof sugg);
      if (strncmp(sugg, " (did", 5) != 0) sugg[0] = '\0';
    }
    if (!sugg[0]) {
      n = struct_keys(ss, ns, 0, cands, 160);
      psoi_suggest(key, cands, n, sugg, sizeof sugg);
    }
  }
  psoi_cv_push_frame(c, lua_tostring(c->L, key_idx), 0);
  return psoi_cv_error(c, "unknown key%s", sugg);
}

/* Key lookup for struct s: field index + 1, negative for a fallthrough
** key, 0 unknown. 'key' is the string at key_idx. Through the pointer
** cache (owner s); on a miss, the struct's key table K[s]. */
static int key_lookup_table(psoi_cv *c, const psoc_struct *s, int key_idx);
static int key_lookup(psoi_cv *c, const psoc_struct *s, const char *key, int key_idx) {
  int64_t v;
  if (psoi_imap_get(c->ctx, s, key, &v)) return (int)v;
  return key_lookup_table(c, s, key_idx);
}

/* key_lookup's miss: the struct's key table. */
static PSOI_NOINLINE int key_lookup_table(psoi_cv *c, const psoc_struct *s, int key_idx) {
  lua_State *L = c->L;
  int r = 0;
  key_idx = lua_absindex(L, key_idx);
  push_struct_keys(L, c->ctx, c->K, s);
  lua_pushvalue(L, key_idx);
  if (pso_compat_rawget(L, -2) == LUA_TNUMBER) r = (int)lua_tointeger(L, -1);
  lua_pop(L, 2);
  return r;
}

/* Bytes an out-of-line piece takes in a stream block: the builder rounds
** each to 8 bytes (a piece of nothing takes 8). The pipeline object is
** sized from it (pso_declare.c build); were the builder to round further,
** build would only need a second try. */
static size_t piece_bound(size_t n) { return ((n ? n : 1) + 7u) & ~(size_t)7u; }

static void mark(psoi_cv *c, int off, size_t size, uint8_t label) {
  if (!c->marks || off < 0) return;
  if ((size_t)off + size > c->marks_size) return;
  memset(c->marks + off, label, size);
}

/* Tracking: the id of the label text on the top of the stack (popped). */
uint8_t psoi_cv_label_id(psoi_cv *c) {
  lua_State *L = c->L;
  uint8_t id;
  lua_pushvalue(L, -1);
  if (pso_compat_rawget(L, c->label_map) == LUA_TNUMBER) {
    id = (uint8_t)lua_tointeger(L, -1);
    lua_pop(L, 2);
    return id;
  }
  lua_pop(L, 1);
  id = (uint8_t)(lua_rawlen(L, c->label_list) + 1);
  if (id == 255 || id == 0) { /* too many labels: reuse the last one */
    lua_pop(L, 1);
    return 254;
  }
  lua_pushvalue(L, -1);
  lua_rawseti(L, c->label_list, id);
  lua_pushinteger(L, id);
  lua_rawset(L, c->label_map);
  return id;
}

/* The table to read for the value at idx: for a preset, its data table
** (pushed; and its label, when tracking a script value); for a plain
** table, idx itself (absolute; nothing pushed). 0 when the value is not a
** table (nothing pushed). Callers restore the stack top themselves. */
static int resolve(psoi_cv *c, int idx, uint8_t *label) {
  lua_State *L = c->L;
  int t;
  idx = lua_absindex(L, idx);
  t = lua_type(L, idx);
  if (t == LUA_TTABLE) return idx; /* plain tables are read raw */
  if (t != LUA_TUSERDATA) return 0;
  switch (psoi_proxy_kind(L, idx)) {
  case PSOI_PROXY_NAMESPACE: {
    const char *ns;
    psoi_proxy_tag(L, idx);
    ns = lua_tostring(L, -1);
    return psoi_cv_error(c, "pso.%s is a collection of presets; pick one of them (e.g. pso.%s.%s)", ns,
                    ns, strcmp(ns, "blend") == 0 ? "alpha" : "default");
  }
  case PSOI_PROXY_PRESET:
    if (c->marks && label && *label == PSOI_LABEL_SCRIPT) {
      psoi_proxy_tag(L, idx);
      *label = psoi_cv_label_id(c);
    }
    psoi_preset_data(L, idx);
    return lua_gettop(L);
  default: return 0;
  }
}

/* A table, or a preset / namespace proxy (a userdata; resolve reads it). */
static int tabular(lua_State *L, int idx) {
  int t = lua_type(L, idx);
  if (t == LUA_TTABLE) return 1;
  return t == LUA_TUSERDATA && psoi_proxy_kind(L, idx) != 0;
}

/* The same, always leaving exactly one value pushed (the table to read,
** or a copy of the value when it is not a table); returns its type. */
static int push_resolved(psoi_cv *c, int idx, uint8_t *label) {
  lua_State *L = c->L;
  int r;
  idx = lua_absindex(L, idx);
  r = resolve(c, idx, label);
  if (r == 0 || r == idx) lua_pushvalue(L, idx);
  return lua_type(L, -1);
}

static void list_payload_keys(psoi_cv *c, const psoc_struct *s, int idx);

/* Check that the table at idx is a list of n = #t entries (no holes, no
** other keys); returns n. 'single': the struct of a payload given as the
** list itself (its field keys get a more helpful message), or NULL. */
#define LIST_KEEP 32 /* lists up to this long keep their values on the stack */

/* check_list, and when pos is given and the list has at most LIST_KEEP
** entries, its values stay on the stack where lua_next left them: pos[i]
** is the stack index of entry i + 1 (read without a lua_rawgeti each; the
** caller restores the top). Returns n. */
static size_t check_list_at(psoi_cv *c, int idx, size_t max, const char *what,
                            const psoc_struct *single, int *pos) {
  lua_State *L = c->L;
  size_t n = lua_rawlen(L, idx), seen = 0;
  int keep = pos && n <= LIST_KEEP, at;
  if (keep) psoi_cv_room(c, 2 * (int)n + 4);
  lua_pushnil(L);
  at = lua_gettop(L); /* the key lua_next steps from */
  while (lua_next(L, idx)) {
    int64_t k = 0;
    /* 5.3+: an integer key in one call (float keys with integral values
    ** are stored as integers); other keys and 5.1 take the general test */
    int ok = pso_compat_isinteger(L, -2) ? (k = (int64_t)lua_tointeger(L, -2), 1)
                                         : lua_type(L, -2) == LUA_TNUMBER &&
                                               pso_compat_tointeger(L, -2, &k);
    if (!ok || k < 1 || (uint64_t)k > n) {
      char d[96];
      if (single) list_payload_keys(c, single, idx);
      return (size_t)psoi_cv_error(c, "expected a list of %s; found key %s", what,
                              describe(L, -2, d, sizeof d));
    }
    seen++;
    if (keep) { /* the value stays; a copy of the key goes on for lua_next */
      pos[k - 1] = at + 1;
      lua_pushvalue(L, at);
      at += 2;
    } else {
      lua_pop(L, 1);
    }
  }
  if (seen != n) return (size_t)psoi_cv_error(c, "expected a list of %s without holes", what);
  if (n > max)
    return (size_t)psoi_cv_error(c, "at most %u %s, got %u", (unsigned)max, what, (unsigned)n);
  return n;
}

/* Check that the table at idx is a list of n = #t entries (no holes, no
** other keys); returns n. 'single': the struct of a payload given as the
** list itself (its field keys get a more helpful message), or NULL. */
static size_t check_list(psoi_cv *c, int idx, size_t max, const char *what, const psoc_struct *single) {
  return check_list_at(c, idx, max, what, single, NULL);
}

/* ---- scalars ------------------------------------------------------- */

static int cv_integer(psoi_cv *c, int vidx, int is_signed, unsigned size, uint64_t *out) {
  lua_State *L = c->L;
  int64_t v;
  if (lua_type(L, vidx) != LUA_TNUMBER) return psoi_cv_type_error(c, vidx, "an integer");
  if (!pso_compat_tointeger(L, vidx, &v)) {
    char d[96];
    if (c->soft) return CV_SOFT;
    return psoi_cv_error(c, "expected an integer, got %s", describe(L, vidx, d, sizeof d));
  }
  if (is_signed) {
    int64_t lo = size >= 8 ? INT64_MIN : -((int64_t)1 << (size * 8 - 1));
    int64_t hi = size >= 8 ? INT64_MAX : ((int64_t)1 << (size * 8 - 1)) - 1;
    if (v < lo || v > hi) {
      if (c->soft) return CV_SOFT;
      return psoi_cv_error(c, "%lld is out of range for a %u-bit signed integer (%lld..%lld)",
                      (long long)v, size * 8, (long long)lo, (long long)hi);
    }
  } else {
    uint64_t hi = size >= 8 ? UINT64_MAX : (((uint64_t)1 << (size * 8)) - 1);
    if (v < 0 || (uint64_t)v > hi) {
      if (c->soft) return CV_SOFT;
      return psoi_cv_error(c, "%lld is out of range for a %u-bit unsigned integer (0..%llu)",
                      (long long)v, size * 8, (unsigned long long)hi);
    }
  }
  *out = (uint64_t)v;
  return CV_OK;
}

static void enum_valid_list(const psoc_enum *e, char *out, size_t n) {
  const char *cands[160];
  uint32_t i;
  size_t k = 0;
  for (i = 0; i < e->count && k < 160; i++) cands[k++] = e->values[i].key;
  out[0] = '\0';
  if (k <= 16) {
    size_t len = (size_t)snprintf(out, n, " (valid: ");
    for (i = 0; i < k && len < n; i++)
      len += (size_t)snprintf(out + len, n - len, "%s%s", i ? ", " : "", cands[i]);
    if (len < n) snprintf(out + len, n - len, ")");
  }
}

/* Engine shorthands for formats ("RGBA8", "rgba16f", "D32", "R11G11B10F",
** "R8G8B8A8_SRGB", "D24S8") -> the DXGI key they most likely mean, written
** to out; 0 when s is not read as one. Channels are given packed ("rgba8":
** one width for all) or per channel ("r11g11b10"), then an optional type
** suffix (f/float, srgb, unorm, snorm, ui/uint, i/sint; none: unorm, or
** float for 32-bit channels). Only a key the enum has is returned. */
static int format_shorthand(const char *s, char *out, size_t n) {
  char low[40], ch[5];
  unsigned bits[4], nch = 0, i;
  size_t len = strlen(s), k, w = 0;
  const char *p, *ty, *type;
  static const char *const depth[][2] = {
    { "d16", "d16_unorm" },         { "d32", "d32_float" },
    { "d32f", "d32_float" },        { "d24s8", "d24_unorm_s8_uint" },
    { "d24", "d24_unorm_s8_uint" }, { "d32s8", "d32_float_s8x24_uint" },
    { "d32fs8", "d32_float_s8x24_uint" }
  };
  if (len == 0 || len >= sizeof low) return 0;
  for (k = 0; k < len; k++) { /* lower case, separators dropped */
    char c = s[k];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c == '_' || c == '-' || c == ' ') continue;
    low[w++] = c;
  }
  low[w] = '\0';
  for (k = 0; k < sizeof depth / sizeof depth[0]; k++)
    if (strcmp(low, depth[k][0]) == 0) {
      snprintf(out, n, "%s", depth[k][1]);
      return psoc_enum_value_by_name(&psoc_enum_dxgi_format, out) != NULL;
    }
  p = low;
  while (*p && strchr("rgbax", *p) && nch < 4) {
    if (p[1] >= '0' && p[1] <= '9') { /* per channel: r8g8... */
      ch[nch] = *p++;
      bits[nch] = 0;
      while (*p >= '0' && *p <= '9' && bits[nch] < 100) bits[nch] = bits[nch] * 10u + (unsigned)(*p++ - '0');
      nch++;
    } else { /* packed: rgba8 */
      unsigned b = 0, m = 0;
      while (*p && strchr("rgbax", *p) && nch + m < 4) ch[nch + m++] = *p++;
      if (!(*p >= '0' && *p <= '9')) return 0;
      while (*p >= '0' && *p <= '9' && b < 100) b = b * 10u + (unsigned)(*p++ - '0');
      for (i = 0; i < m; i++) bits[nch + i] = b;
      nch += m;
    }
  }
  if (nch == 0) return 0;
  for (i = 0; i < nch; i++)
    if (bits[i] == 0) return 0;
  ty = p;
  if (!*ty) type = bits[0] == 32 ? "float" : "unorm";
  else if (!strcmp(ty, "f") || !strcmp(ty, "float")) type = "float";
  else if (!strcmp(ty, "srgb") || !strcmp(ty, "unormsrgb")) type = "unorm_srgb";
  else if (!strcmp(ty, "unorm") || !strcmp(ty, "un")) type = "unorm";
  else if (!strcmp(ty, "snorm") || !strcmp(ty, "sn")) type = "snorm";
  else if (!strcmp(ty, "ui") || !strcmp(ty, "uint") || !strcmp(ty, "u")) type = "uint";
  else if (!strcmp(ty, "i") || !strcmp(ty, "sint") || !strcmp(ty, "si")) type = "sint";
  else return 0;
  w = 0;
  out[0] = '\0';
  for (i = 0; i < nch && w + 8 < n; i++)
    w += (size_t)snprintf(out + w, n - w, "%c%u", ch[i], bits[i]);
  if (w + strlen(type) + 2 > n) return 0;
  snprintf(out + w, n - w, "_%s", type);
  if (psoc_enum_value_by_name(&psoc_enum_dxgi_format, out)) return 1;
  /* a type the format does not have in that form: the typeless variant's
  ** sibling (r11g11b10 exists only as float, r10g10b10a2 as unorm/uint) */
  if (!*ty) {
    snprintf(out + w, n - w, "_float");
    if (psoc_enum_value_by_name(&psoc_enum_dxgi_format, out)) return 1;
  }
  return 0;
}

static int unknown_enum(psoi_cv *c, const psoc_enum *e, const char *s, const char *what) {
  const char *best[3];
  char sugg[320], alias[48];
  size_t ns = psoc_enum_suggest(e, s, best, 3), i, len;
  if (e == &psoc_enum_dxgi_format && format_shorthand(s, alias, sizeof alias)) {
    /* the shorthand's meaning first, then the closest spellings */
    len = (size_t)snprintf(sugg, sizeof sugg, " (did you mean '%s'", alias);
    for (i = 0; i < ns && len < sizeof sugg; i++)
      if (strcmp(best[i], alias) != 0)
        len += (size_t)snprintf(sugg + len, sizeof sugg - len, ", '%s'", best[i]);
    if (len < sizeof sugg) snprintf(sugg + len, sizeof sugg - len, "?)");
  } else if (ns > 0) {
    len = (size_t)snprintf(sugg, sizeof sugg, " (did you mean ");
    for (i = 0; i < ns && len < sizeof sugg; i++)
      len += (size_t)snprintf(sugg + len, sizeof sugg - len, "%s'%s'", i ? ", " : "", best[i]);
    if (len < sizeof sugg) snprintf(sugg + len, sizeof sugg - len, "?)");
  } else {
    enum_valid_list(e, sugg, sizeof sugg);
  }
  return psoi_cv_error(c, "unknown %s '%.60s'%s", what, s, sugg);
}

static int memo_get_table(psoi_cv *c, const psoc_enum *e, int vidx, uint64_t *out);

/* Cached spelling -> value; 1 when found. s: the string at vidx. */
static int memo_get(psoi_cv *c, const psoc_enum *e, const char *s, int vidx, uint64_t *out) {
  int64_t cached;
  if (psoi_imap_get(c->ctx, e, s, &cached)) {
    *out = (uint64_t)cached;
    return 1;
  }
  return memo_get_table(c, e, vidx, out);
}

/* memo_get's miss in the pointer cache: the enum's memo table in K. */
static PSOI_NOINLINE int memo_get_table(psoi_cv *c, const psoc_enum *e, int vidx, uint64_t *out) {
  lua_State *L = c->L;
  int found = 0;
  if (lua_rawgetp(L, c->K, e) != LUA_TTABLE) { /* no spelling cached yet */
    lua_pop(L, 1);
    return 0;
  }
  lua_pushvalue(L, vidx);
  if (pso_compat_rawget(L, -2) == LUA_TNUMBER) {
    int64_t v = 0;
    pso_compat_tointeger(L, -1, &v);
    *out = (uint64_t)v;
    found = 1;
  }
  lua_pop(L, 2);
  return found;
}

static void memo_put(psoi_cv *c, const psoc_enum *e, int vidx, uint64_t v) {
  lua_State *L = c->L;
  if (lua_rawgetp(L, c->K, e) != LUA_TTABLE) { /* the enum's first spelling */
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, c->K, e);
  }
  lua_pushvalue(L, vidx);
  pso_compat_pushuint(L, v);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  /* the memo table now holds this very string object as a key */
  psoi_imap_put(c->ctx, e, lua_tostring(L, vidx), (int64_t)v);
}

static int enum_type_error(psoi_cv *c, const psoc_enum *e, int vidx);
static int enum_by_name(psoi_cv *c, const psoc_enum *e, int vidx, const char *s, size_t len,
                        uint64_t *out);

static int cv_enum(psoi_cv *c, const psoc_enum *e, int vidx, uint64_t *out) {
  lua_State *L = c->L;
  size_t len;
  const char *s;
  if (lua_type(L, vidx) != LUA_TSTRING) {
    if (e == &psoc_enum_depth_write_mask && lua_type(L, vidx) == LUA_TBOOLEAN) {
      *out = lua_toboolean(L, vidx) ? D3D12_DEPTH_WRITE_MASK_ALL : D3D12_DEPTH_WRITE_MASK_ZERO;
      return CV_OK;
    }
    return enum_type_error(c, e, vidx);
  }
  s = lua_tolstring(L, vidx, &len);
  if (memo_get(c, e, s, vidx, out)) return CV_OK;
  return enum_by_name(c, e, vidx, s, len, out);
}

/* cv_enum's first sight of a spelling: look it up and cache it. */
static PSOI_NOINLINE int enum_by_name(psoi_cv *c, const psoc_enum *e, int vidx, const char *s,
                                      size_t len, uint64_t *out) {
  const psoc_enum_value *v = strlen(s) == len ? psoc_enum_value_by_name(e, s) : NULL;
  if (!v) return unknown_enum(c, e, s, e->key);
  *out = v->value;
  memo_put(c, e, vidx, *out);
  return CV_OK;
}

static PSOI_NOINLINE int enum_type_error(psoi_cv *c, const psoc_enum *e, int vidx) {
  {
    char what[400], valid[320];
    enum_valid_list(e, valid, sizeof valid);
    if (valid[0])
      snprintf(what, sizeof what, "a %s name%s", e->key, valid);
    else
      snprintf(what, sizeof what, "a %s name (e.g. '%s')", e->key, e->values[e->count > 1].key);
    return psoi_cv_type_error(c, vidx, what);
  }
}

static uint64_t flags_known(const psoc_enum *e) {
  uint64_t m = 0;
  uint32_t i;
  for (i = 0; i < e->count; i++) m |= e->values[i].value;
  return m;
}

/* "rgba" letters for D3D12_COLOR_WRITE_ENABLE; 1 when s is such a string. */
static int color_letters(const char *s, uint64_t *out) {
  uint64_t v = 0;
  if (!*s) return 0;
  for (; *s; s++) {
    switch (*s) {
    case 'r': case 'R': v |= D3D12_COLOR_WRITE_ENABLE_RED; break;
    case 'g': case 'G': v |= D3D12_COLOR_WRITE_ENABLE_GREEN; break;
    case 'b': case 'B': v |= D3D12_COLOR_WRITE_ENABLE_BLUE; break;
    case 'a': case 'A': v |= D3D12_COLOR_WRITE_ENABLE_ALPHA; break;
    default: return 0;
    }
  }
  *out = v;
  return 1;
}

/* One flags string: a name, "a|b|c", or color letters. */
static int flags_string(psoi_cv *c, const psoc_enum *e, int vidx, uint64_t *out) {
  lua_State *L = c->L;
  size_t len;
  const char *s = lua_tolstring(L, vidx, &len);
  const char *p = s;
  uint64_t v = 0;
  if (memo_get(c, e, s, vidx, out)) return CV_OK;
  if (strlen(s) != len || len == 0 || len >= 256)
    return psoi_cv_error(c, "unknown %s '%.60s'", e->key, s);
  while (*p) {
    char tok[PSOC_ENUM_NAME_MAX + 1];
    size_t n = 0;
    const psoc_enum_value *ev;
    while (*p == ' ') p++;
    while (*p && *p != '|' && *p != ' ' && n < PSOC_ENUM_NAME_MAX) tok[n++] = *p++;
    tok[n] = '\0';
    while (*p == ' ') p++;
    if (*p && *p != '|') return psoi_cv_error(c, "unknown %s '%.60s'", e->key, s);
    if (*p == '|') p++;
    ev = n ? psoc_enum_value_by_name(e, tok) : NULL;
    if (ev) {
      v |= ev->value;
      continue;
    }
    if (e == &psoc_enum_color_write && n && color_letters(tok, out)) {
      v |= *out;
      continue;
    }
    return unknown_enum(c, e, n ? tok : s, e->key);
  }
  *out = v;
  memo_put(c, e, vidx, v);
  return CV_OK;
}

static int cv_flags(psoi_cv *c, const psoc_enum *e, unsigned size, int vidx, uint64_t *out) {
  lua_State *L = c->L;
  uint64_t known = flags_known(e);
  switch (lua_type(L, vidx)) {
  case LUA_TNUMBER: {
    uint64_t v;
    int soft = c->soft;
    c->soft = 0;
    cv_integer(c, vidx, 0, size, &v);
    c->soft = soft;
    if (v & ~known) {
      char valid[320];
      enum_valid_list(e, valid, sizeof valid);
      return psoi_cv_error(c, "unknown %s bits 0x%llx%s", e->key, (unsigned long long)(v & ~known),
                      valid);
    }
    *out = v;
    return CV_OK;
  }
  case LUA_TSTRING: return flags_string(c, e, vidx, out);
  case LUA_TTABLE: {
    int top = lua_gettop(L), list = resolve(c, vidx, NULL); /* a preset: its data */
    size_t n = check_list(c, list, 64, "flag names", NULL), i;
    uint64_t v = 0;
    vidx = list;
    for (i = 1; i <= n; i++) {
      uint64_t one;
      lua_rawgeti(L, vidx, (int)i);
      psoi_cv_push_frame(c, NULL, (int)i);
      if (lua_type(L, -1) != LUA_TSTRING) psoi_cv_type_error(c, -1, "a flag name");
      flags_string(c, e, lua_gettop(L), &one);
      c->depth--;
      v |= one;
      lua_pop(L, 1);
    }
    lua_settop(L, top);
    *out = v;
    return CV_OK;
  }
  default: {
    char what[160];
    snprintf(what, sizeof what, "%s: a name, a list of names or an integer", e->key);
    return psoi_cv_type_error(c, vidx, what);
  }
  }
}

/* A scalar field kind (UINT, INT, BOOL, FLOAT, ENUM, FLAGS) into dst. */
static int cv_scalar(psoi_cv *c, uint8_t kind, unsigned size, const psoc_enum *e, int vidx,
                     unsigned char *dst) {
  lua_State *L = c->L;
  uint64_t v = 0;
  int r;
  switch (kind) {
  case PSOC_FIELD_UINT:
  case PSOC_FIELD_INT:
    r = cv_integer(c, vidx, kind == PSOC_FIELD_INT, size, &v);
    if (r) return r;
    put_uint(dst, size, v);
    return CV_OK;
  case PSOC_FIELD_BOOL:
    if (lua_type(L, vidx) != LUA_TBOOLEAN) return psoi_cv_type_error(c, vidx, "a boolean");
    put_uint(dst, size, lua_toboolean(L, vidx) ? 1u : 0u);
    return CV_OK;
  case PSOC_FIELD_FLOAT: {
    lua_Number n;
    float f;
    if (lua_type(L, vidx) != LUA_TNUMBER) return psoi_cv_type_error(c, vidx, "a number");
    n = lua_tonumber(L, vidx);
    if (!isfinite(n)) {
      char d[96];
      return psoi_cv_error(c, "expected a finite number, got %s", describe(L, vidx, d, sizeof d));
    }
    if (fabs(n) > (lua_Number)FLT_MAX)
      return psoi_cv_error(c, "%.17g is out of range for a float", (double)n);
    f = (float)n;
    memcpy(dst, &f, sizeof f);
    return CV_OK;
  }
  case PSOC_FIELD_ENUM:
    cv_enum(c, e, vidx, &v);
    put_uint(dst, size, v);
    return CV_OK;
  case PSOC_FIELD_FLAGS:
    cv_flags(c, e, size, vidx, &v);
    put_uint(dst, size, v);
    return CV_OK;
  default: return psoi_cv_error(c, "internal error: field kind %d is not a scalar", kind);
  }
}

/* ---- records, lists, blobs --------------------------------------------- */

static int cv_struct(psoi_cv *c, const psoc_struct *s, const src *srcs, int n, unsigned char *dst,
                     int off);

/* A payload given as a list (input_layout = { {...}, ... }) whose table
** also has keys of the payload struct: raise the specific error. Called
** while reporting a malformed list. */
static void list_payload_keys(psoi_cv *c, const psoc_struct *s, int idx) {
  lua_State *L = c->L;
  idx = lua_absindex(L, idx);
  luaL_checkstack(L, 4, "pso: nesting too deep");
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -2);
      uint32_t j;
      for (j = 0; j < s->field_count; j++) {
        const psoc_field *g = &s->fields[j];
        if (strcmp(k, g->key) != 0 && strcmp(k, g->name) != 0) continue;
        psoi_cv_push_frame(c, k, 0);
        if (g->kind == PSOC_FIELD_COUNT)
          psoi_cv_error(c, "is implied by the length of the list and must not be given");
        psoi_cv_error(c, "give the entries as the list itself ({ {...}, {...} })");
      }
    }
    lua_pop(L, 1);
  }
}

static int cv_array(psoi_cv *c, const psoc_struct *s, const psoc_field *f, int vidx, unsigned char *dst,
                    int off, const src *sr) {
  lua_State *L = c->L;
  const psoc_field *cf = count_field(s, f);
  unsigned char *mem = NULL;
  size_t n, i, stride = f->stride;
  uint8_t list_label = sr->label;
  int top0 = lua_gettop(L), top, pos[LIST_KEEP];
  vidx = lua_absindex(L, vidx);
  if (!tabular(L, vidx)) return psoi_cv_type_error(c, vidx, "a list");
  vidx = resolve(c, vidx, &list_label); /* a list given as a preset: its data */
  n = check_list_at(c, vidx, 0xffffffffu, f->element ? "tables" : "integers",
                    shape_single(c->ctx, s) >= 0 ? s : NULL, pos);
  top = lua_gettop(L);
  if (n > 0) {
    if (n > ((size_t)-1) / stride) return psoi_cv_error(c, "list too long");
    mem = psoi_arena_alloc(c->ctx, n * stride);
    if (!mem) return psoi_cv_error(c, "not enough memory");
  }
  psoi_cv_room(c, 8);
  for (i = 0; i < n; i++) {
    unsigned char *e = mem + i * stride;
    int r, at = top + 1;
    if (n <= LIST_KEEP) /* check_list_at left it on the stack */
      at = pos[i];
    else
      lua_rawgeti(L, vidx, (int)i + 1);
    psoi_cv_push_frame(c, NULL, (int)i + 1);
    if (f->element) {
      src es;
      uint8_t label = list_label;
      if (!(es.idx = resolve(c, at, &label))) psoi_cv_type_error(c, at, "a table");
      if (f->element == c->ctx->input_element && c->ctx->input_offset >= 0)
        put_uint(e + f->element->fields[c->ctx->input_offset].offset, 4, APPEND_ALIGNED);
      es.layer = sr->layer;
      es.label = label;
      es.filtered = 0;
      es.pdepth = (uint8_t)c->depth;
      es.parent_s = NULL;
      r = cv_struct(c, f->element, &es, 1, e, -1);
    } else {
      r = cv_scalar(c, f->element_kind, (unsigned)stride, f->enumeration, at, e);
    }
    c->depth--;
    lua_settop(L, top);
    if (r) return r;
  }
  lua_settop(L, top0);
  put_ptr(dst + f->offset, mem);
  if (cf) put_uint(dst + cf->offset, cf->size, n);
  if (n) c->extra += piece_bound(n * stride);
  mark(c, off >= 0 ? off + f->offset : -1, f->size, list_label);
  if (cf) mark(c, off >= 0 ? off + cf->offset : -1, cf->size, list_label);
  return CV_OK;
}

static int cv_blob(psoi_cv *c, const psoc_struct *s, const psoc_field *f, int vidx, unsigned char *dst,
                   int off, const src *sr) {
  lua_State *L = c->L;
  const psoc_field *cf = count_field(s, f);
  int want = IS_SHADER_FIELD(c->ctx, f) ? PSOI_BLOB_SHADER : PSOI_BLOB_DATA;
  const psoi_blob *b = NULL;
  if (lua_type(L, vidx) == LUA_TUSERDATA && lua_getmetatable(L, vidx)) {
    if (lua_topointer(L, -1) == c->ctx->blob_mt) b = lua_touserdata(L, vidx);
    lua_pop(L, 1);
  }
  if (!b || b->kind != want)
    return psoi_cv_type_error(c, vidx, want == PSOI_BLOB_SHADER ? "a shader (pso.shader \"file.cso\")"
                                                        : "a blob (pso.blob \"file\")");
  put_ptr(dst + f->offset, b->data);
  if (cf) put_uint(dst + cf->offset, cf->size, b->size);
  if (c->anchors && !c->verify) { /* the stream borrows b->data: the pipeline keeps b */
    int i = c->nanchors++, at = c->anchor_base + i + 1;
    vidx = lua_absindex(L, vidx);
    if (i < PSOI_CV_ANCHORS && vidx <= c->stable) {
      c->anchor_at[i] = vidx; /* a value of the declaration: stays where it is */
    } else {
      if (i < PSOI_CV_ANCHORS) c->anchor_at[i] = 0;
      lua_pushvalue(L, vidx);
      lua_rawseti(L, c->anchors, at);
      if (c->ctx->anchor_top < at) c->ctx->anchor_top = at;
    }
  }
  c->extra += piece_bound(b->size);
  mark(c, off >= 0 ? off + f->offset : -1, f->size, sr->label);
  if (cf) mark(c, off >= 0 ? off + cf->offset : -1, cf->size, sr->label);
  return CV_OK;
}

static int cv_string(psoi_cv *c, const psoc_field *f, int vidx, unsigned char *dst, int off,
                     const src *sr) {
  size_t len;
  const char *s;
  if (lua_type(c->L, vidx) != LUA_TSTRING) return psoi_cv_type_error(c, vidx, "a string");
  s = lua_tolstring(c->L, vidx, &len);
  if (len == 0) return psoi_cv_error(c, "expected a non-empty string");
  if (strlen(s) != len) return psoi_cv_error(c, "the string contains a NUL character");
  put_ptr(dst + f->offset, s);
  c->extra += piece_bound(len + 1);
  mark(c, off >= 0 ? off + f->offset : -1, f->size, sr->label);
  return CV_OK;
}

static int cv_object(psoi_cv *c, const psoc_field *f, int vidx, unsigned char *dst, int off,
                     const src *sr) {
  lua_State *L = c->L;
  void *p = NULL;
  if (lua_type(L, vidx) == LUA_TSTRING) {
    size_t len;
    const char *name = lua_tolstring(L, vidx, &len);
    if (len == 0 || strlen(name) != len) return psoi_cv_error(c, "expected a non-empty name");
    if (!c->verify && c->ctx->hooks.resolve_root_signature)
      p = c->ctx->hooks.resolve_root_signature(c->ctx->hooks.ud, name);
  } else if (lua_type(L, vidx) == LUA_TLIGHTUSERDATA) {
    p = lua_touserdata(L, vidx);
  } else {
    return psoi_cv_type_error(c, vidx, "a name (string) or a pointer (light userdata)");
  }
  put_ptr(dst + f->offset, p);
  mark(c, off >= 0 ? off + f->offset : -1, f->size, sr->label);
  return CV_OK;
}

static int cv_fixed(psoi_cv *c, const psoc_struct *s, int fi, int *lists, src *lsrcs,
                    int nl, uint64_t fall, const src *srcs, int n, unsigned char *dst, int off);

/* One field from one source (no merging): the value at vidx. */
static int cv_field(psoi_cv *c, const psoc_struct *s, const psoc_field *f, int vidx, unsigned char *dst,
                    int off, const src *sr) {
  int foff = off >= 0 ? off + f->offset : -1;
  int r;
  switch (f->kind) {
  case PSOC_FIELD_COUNT: {
    uint32_t i;
    const char *of = "its list";
    for (i = 0; i < s->field_count; i++)
      if ((s->fields[i].kind == PSOC_FIELD_ARRAY || s->fields[i].kind == PSOC_FIELD_BLOB) &&
          s->fields[i].count_offset == f->offset)
        of = s->fields[i].key;
    return psoi_cv_error(c, "is implied by the length of '%s' and must not be given", of);
  }
  case PSOC_FIELD_STRUCT: {
    src es;
    uint8_t label = sr->label;
    int top = lua_gettop(c->L);
    if (!(es.idx = resolve(c, vidx, &label))) return psoi_cv_type_error(c, vidx, "a table");
    es.layer = sr->layer;
    es.label = label;
    es.filtered = 0;
    es.pdepth = (uint8_t)c->depth;
    es.parent_s = NULL;
    r = cv_struct(c, f->element, &es, 1, dst + f->offset, foff);
    lua_settop(c->L, top);
    return r;
  }
  case PSOC_FIELD_FIXED: {
    int idx = lua_absindex(c->L, vidx);
    int fi = (int)(f - s->fields);
    src one = *sr;
    c->depth--;
    r = cv_fixed(c, s, fi, &idx, &one, 1, 0, NULL, 0, dst, off);
    c->depth++;
    return r;
  }
  case PSOC_FIELD_ARRAY: return cv_array(c, s, f, vidx, dst, off, sr);
  case PSOC_FIELD_BLOB: return cv_blob(c, s, f, vidx, dst, off, sr);
  case PSOC_FIELD_STRING: return cv_string(c, f, vidx, dst, off, sr);
  case PSOC_FIELD_OBJECT: return cv_object(c, f, vidx, dst, off, sr);
  default:
    r = cv_scalar(c, f->kind, f->size, f->enumeration, vidx, dst + f->offset);
    if (r == CV_OK) mark(c, foff, f->size, sr->label);
    return r;
  }
}

/* A FIXED field: lists[i] (absolute indices) from sources lsrcs[i], top
** first; element 1 also reads the parent's sources whose bit is set in
** 'fall' (keys given directly in the parent struct s).
** Called at the parent's path depth. */
static int cv_fixed(psoi_cv *c, const psoc_struct *s, int fi, int *lists, src *lsrcs,
                    int nl, uint64_t fall, const src *srcs, int n, unsigned char *dst,
                    int off) {
  lua_State *L = c->L;
  const psoc_field *f = &s->fields[fi];
  int base_depth = c->depth, i, k, r = CV_OK, top0 = lua_gettop(L);
  int rl[PSOI_CV_SOURCES];           /* the lists to read (a preset: its data) */
  uint8_t rlabel[PSOI_CV_SOURCES];
  int top_layer = 256;           /* the topmost layer that gives the list */
  if (nl > PSOI_CV_SOURCES) return psoi_cv_error(c, "derive chain deeper than %d", PSOI_CV_SOURCES);
  /* Lists replace (README, "derive"): only the topmost layer's list is
  ** read, and per-target keys given directly in a lower layer's parent
  ** belonged to the list that was replaced. */
  for (i = 0; i < nl; i++)
    if (lsrcs[i].layer < top_layer) top_layer = lsrcs[i].layer;
  for (i = 0, k = 0; i < nl; i++)
    if (lsrcs[i].layer == top_layer) {
      lists[k] = lists[i];
      lsrcs[k] = lsrcs[i];
      k++;
    }
  nl = k;
  psoi_cv_push_frame(c, f->key, 0);
  luaL_checkstack(L, nl + 8, "pso: nesting too deep");
  for (i = 0; i < nl; i++) {
    if (!tabular(L, lists[i]))
      psoi_cv_type_error(c, lists[i], f->element ? "a list of tables" : "a list");
    rlabel[i] = lsrcs[i].label;
    rl[i] = resolve(c, lists[i], &rlabel[i]);
    check_list(c, rl[i], f->count, f->element ? "entries" : "values", NULL);
  }
  luaL_checkstack(L, nl + n + 8, "pso: nesting too deep");
  for (k = 0; k < (int)f->count && r == CV_OK; k++) {
    src es[PSOI_CV_SOURCES * 2];
    int ne = 0, top = lua_gettop(L), done = 0;
    unsigned char *edst = dst + f->offset + (size_t)k * f->stride;
    int eoff = off >= 0 ? off + f->offset + k * f->stride : -1;
    c->depth = base_depth + 1;
    psoi_cv_push_frame(c, NULL, k + 1);
    /* by layer: keys given in the parent (element 1 only), then the list */
    for (i = 0; i < n && k == 0; i++) {
      if (!(fall & ((uint64_t)1 << i)) || srcs[i].layer > top_layer) continue;
      es[ne] = srcs[i];
      es[ne].filtered = 1;
      es[ne].parent_s = s;
      es[ne].pdepth = (uint8_t)base_depth;
      ne++;
    }
    for (i = 0; i < nl; i++) {
      int j, pos = ne;
      lua_rawgeti(L, rl[i], k + 1);
      if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        continue;
      }
      if (f->element) {
        uint8_t label = rlabel[i];
        if (push_resolved(c, lua_gettop(L), &label) != LUA_TTABLE) psoi_cv_type_error(c, -2, "a table");
        /* keep layer order: before the parent's sources of lower layers */
        for (j = 0; j < ne; j++)
          if (es[j].layer > lsrcs[i].layer) {
            pos = j;
            break;
          }
        for (j = ne; j > pos; j--) es[j] = es[j - 1];
        es[pos].idx = lua_gettop(L);
        es[pos].layer = lsrcs[i].layer;
        es[pos].label = label;
        es[pos].filtered = 0;
        es[pos].pdepth = (uint8_t)c->depth;
        es[pos].parent_s = NULL;
        ne++;
      } else if (!done) { /* scalars: the topmost list wins */
        r = cv_scalar(c, f->element_kind, f->size, f->enumeration, lua_gettop(L), edst);
        if (r == CV_OK) mark(c, eoff, f->size, rlabel[i]);
        done = 1;
      }
    }
    if (f->element && ne > 0 && r == CV_OK) r = cv_struct(c, f->element, es, ne, edst, eoff);
    lua_settop(L, top);
  }
  c->depth = base_depth;
  lua_settop(L, top0);
  return r;
}

/* Values kept for merging record fields (STRUCT, FIXED) across sources. */
typedef struct stash {
  uint8_t field;
  uint8_t source; /* index in srcs */
  int idx;        /* absolute stack index of the value */
  const char *key;
} stash;

/* cv_struct's common case, one small loop: one plain source (no merge,
** not a parent's keys), no tracking marks, each key a string naming a
** scalar or string field (in an input element also [1] and [2]). At the
** first key it does not take (unknown, a record or list field, given
** twice, a key of an element given directly) it returns CV_SLOW, having
** undone what it counted, and the general loop below starts over: the
** keys before it convert the same there, so what is written and what is
** reported stay the same. Otherwise CV_OK, or the field's CV_SOFT. */
enum { CV_SLOW = 2 };
static int cv_struct_flat(psoi_cv *c, const psoc_struct *s, int t, unsigned char *dst,
                          const src *sr) {
  lua_State *L = c->L;
  int depth = c->depth, b = lua_gettop(L), key_idx = b + 1, r;
  size_t extra = c->extra;
  uint32_t seen = 0;
  psoi_cv_room(c, 24);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    const psoc_field *f;
    const char *key;
    int fi;
    if (lua_type(L, key_idx) == LUA_TSTRING) {
      key = lua_tostring(L, key_idx);
      fi = key_lookup(c, s, key, key_idx);
    } else {
      int64_t k = 0;
      if (s != c->ctx->input_element || !pso_compat_tointeger(L, key_idx, &k)) break;
      fi = k == 1 ? c->ctx->input_semantic + 1 : k == 2 ? c->ctx->input_format + 1 : 0;
      key = fi > 0 ? s->fields[fi - 1].key : NULL;
    }
    if (fi <= 0 || (seen >> --fi & 1u)) break;
    f = &s->fields[fi];
    if (f->kind == PSOC_FIELD_STRING) {
      psoi_cv_push_frame(c, key, 0);
      r = cv_string(c, f, b + 2, dst, -1, sr);
    } else if (f->kind <= PSOC_FIELD_FLAGS) { /* UINT, INT, BOOL, FLOAT, ENUM, FLAGS */
      psoi_cv_push_frame(c, key, 0);
      r = cv_scalar(c, f->kind, f->size, f->enumeration, b + 2, dst + f->offset);
    } else {
      break;
    }
    c->depth = depth;
    if (r) {
      lua_settop(L, b);
      return r;
    }
    seen |= 1u << fi;
    lua_settop(L, key_idx);
  }
  if (lua_gettop(L) == b) return CV_OK; /* lua_next came to the end */
  lua_settop(L, b);
  c->extra = extra;
  return CV_SLOW;
}

static int cv_struct(psoi_cv *c, const psoc_struct *s, const src *srcs, int n, unsigned char *dst,
                     int off) {
  lua_State *L = c->L;
  uint8_t setter[MAX_FIELDS];
  const char *setkey[MAX_FIELDS];
  uint8_t setfilt[MAX_FIELDS];
  uint8_t merged[MAX_FIELDS];
  stash st[MAX_STASH];
  int nst = 0, ft = shape_fallthrough(c->ctx, s), i, r;
  int depth = c->depth, top = lua_gettop(L);
  uint64_t fall = 0;
  if (n == 1 && !srcs[0].filtered && !c->marks) {
    r = cv_struct_flat(c, s, srcs[0].idx, dst, &srcs[0]);
    if (r != CV_SLOW) return r;
  }
  if (n > PSOI_CV_SOURCES) return psoi_cv_error(c, "derive chain deeper than %d", PSOI_CV_SOURCES);
  memset(setter, 0xff, sizeof setter);
  memset(setfilt, 0, sizeof setfilt);
  memset(merged, 0, sizeof merged);
  psoi_cv_room(c, 24);
  for (i = 0; i < n; i++) {
    int t = srcs[i].idx;
    int b = lua_gettop(L); /* the key is at b + 1, the value at b + 2 */
    uint8_t layer = srcs[i].layer;
    psoi_frame saved[4];
    int nsaved = 0;
    if (srcs[i].filtered) { /* keys of the parent: the parent's path */
      nsaved = depth - srcs[i].pdepth;
      if (nsaved < 0 || nsaved > 4 || depth > PSOI_CV_DEPTH) nsaved = 0;
      if (nsaved > 0) memcpy(saved, c->frames + depth - nsaved, (size_t)nsaved * sizeof(psoi_frame));
      c->depth = depth - nsaved;
    }
    lua_pushnil(L);
    while (lua_next(L, t)) {
      int fi, key_idx = b + 1, ktype = lua_type(L, key_idx);
      const psoc_field *f;
      const char *key = ktype == LUA_TSTRING ? lua_tostring(L, key_idx) : NULL;
      if (srcs[i].filtered) { /* blend's own keys are read by blend */
        if (!key || key_lookup(c, srcs[i].parent_s, key, key_idx) > 0) {
          lua_pop(L, 1);
          continue;
        }
      }
      if (key) {
        fi = key_lookup(c, s, key, key_idx);
      } else if (s == c->ctx->input_element && ktype == LUA_TNUMBER) {
        /* positional shorthand: { "SEMANTIC", "FORMAT", ... } */
        int64_t k = 0;
        pso_compat_tointeger(L, key_idx, &k);
        fi = k == 1 ? c->ctx->input_semantic + 1 : k == 2 ? c->ctx->input_format + 1 : 0;
        if (fi == 0) {
          psoi_cv_push_frame(c, NULL, (int)k);
          return psoi_cv_error(c, "only semantic [1] and format [2] may be given by position; "
                             "name the other fields (index = ..., slot = ...)");
        }
      } else {
        fi = 0;
      }
      if (fi == 0) {
        if (c->soft_keys && key) { /* maybe a newer version's key */
          c->depth = depth;
          lua_settop(L, top);
          return CV_SOFT;
        }
        if (!key && ktype == LUA_TNUMBER) {
          char d[96];
          return psoi_cv_error(c, "unexpected positional value: %s (this table takes named keys)",
                          describe(L, -1, d, sizeof d));
        }
        return unknown_key(c, &s, 1, key_idx);
      }
      if (fi < 0) { /* an element key given directly: element 1 of the FIXED field */
        fall |= (uint64_t)1 << i;
        lua_pop(L, 1);
        continue;
      }
      fi--;
      f = &s->fields[fi];
      if (!key) key = f->key;
      if (setter[fi] == layer) {
        psoi_cv_push_frame(c, key, 0);
        if (setfilt[fi] != srcs[i].filtered)
          return psoi_cv_error(c, "given twice: directly in the parent table and in this entry "
                             "(per-target keys given directly apply to entry [1])");
        return psoi_cv_error(c, "given twice in the same table (as '%s' and '%s')", setkey[fi], key);
      }
      if (f->kind == PSOC_FIELD_STRUCT || f->kind == PSOC_FIELD_FIXED) {
        if (nst >= MAX_STASH) return psoi_cv_error(c, "derive chain too deep");
        if (setter[fi] == 0xff) {
          setter[fi] = layer;
          setkey[fi] = key;
          setfilt[fi] = srcs[i].filtered;
        }
        /* the value stays where it is; a copy of the key goes on for lua_next */
        st[nst].field = (uint8_t)fi;
        st[nst].source = (uint8_t)i;
        st[nst].idx = b + 2;
        st[nst].key = key;
        nst++;
        merged[fi] = 1;
        lua_pushvalue(L, key_idx);
        b += 2;
        continue;
      }
      if (setter[fi] != 0xff) { /* a higher layer set it */
        lua_pop(L, 1);
        continue;
      }
      setter[fi] = layer;
      setkey[fi] = key;
      setfilt[fi] = srcs[i].filtered;
      psoi_cv_push_frame(c, key, 0);
      r = cv_field(c, s, f, b + 2, dst, off, &srcs[i]);
      c->depth--;
      if (r) {
        c->depth = depth;
        lua_settop(L, top);
        return r;
      }
      lua_settop(L, b + 1);
    }
    if (nsaved) memcpy(c->frames + depth - nsaved, saved, (size_t)nsaved * sizeof(psoi_frame));
    c->depth = depth;
  }
  /* merged records */
  for (i = 0; (nst || fall) && i < (int)s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    int j;
    if (!merged[i] && !(i == ft && fall)) continue;
    if (f->kind == PSOC_FIELD_STRUCT) {
      src es[PSOI_CV_SOURCES];
      int ne = 0, mtop = lua_gettop(L);
      for (j = 0; j < nst; j++) {
        uint8_t label;
        const src *from;
        if (st[j].field != i) continue;
        from = &srcs[st[j].source];
        label = from->label;
        c->depth = depth;
        psoi_cv_push_frame(c, st[j].key, 0);
        if (!(es[ne].idx = resolve(c, st[j].idx, &label))) psoi_cv_type_error(c, st[j].idx, "a table");
        es[ne].layer = from->layer;
        es[ne].label = label;
        es[ne].filtered = 0;
        es[ne].pdepth = (uint8_t)c->depth;
        es[ne].parent_s = NULL;
        ne++;
      }
      c->depth = depth;
      psoi_cv_push_frame(c, setkey[i], 0);
      r = cv_struct(c, f->element, es, ne, dst + f->offset, off >= 0 ? off + (int)f->offset : -1);
      c->depth = depth;
      lua_settop(L, mtop);
    } else {
      int lists[PSOI_CV_SOURCES];
      src ls[PSOI_CV_SOURCES];
      int nl = 0;
      for (j = 0; j < nst; j++) {
        if (st[j].field != i) continue;
        lists[nl] = st[j].idx;
        ls[nl] = srcs[st[j].source];
        nl++;
      }
      r = cv_fixed(c, s, i, lists, ls, nl, i == ft ? fall : 0, srcs, n, dst, off);
    }
    if (r) {
      c->depth = depth;
      lua_settop(L, top);
      return r;
    }
  }
  c->depth = depth;
  lua_settop(L, top);
  return CV_OK;
}

/* ------------------------------------------------------------------ */
/* Subobjects: version selection and the payload                        */
/* ------------------------------------------------------------------ */

static int version_of(const psoi_ctx *ctx, uint32_t cls, uint32_t type) {
  int j;
  for (j = 0; j < ctx->class_ntypes[cls]; j++)
    if (ctx->class_types[cls][j] == type) return j;
  return 0;
}

static void version_names(const psoi_ctx *ctx, uint32_t cls, unsigned mask, char *out, size_t n) {
  size_t len = 0;
  int j;
  out[0] = '\0';
  for (j = 0; j < ctx->class_ntypes[cls] && len < n; j++)
    if (mask & (1u << j))
      len += (size_t)snprintf(out + len, n - len, "%s%s", len ? ", " : "",
                              psoc_subobject_info_get(ctx->class_types[cls][j])->key);
}

typedef struct restriction {
  const char *key;
  unsigned set;
} restriction;

/* Which versions have every key given (recursively through records).
** Raises for keys no version has and for keys no single version has
** together. */
static unsigned key_mask(psoi_cv *c, uint32_t cls, const psoc_struct *const *vs, int nv,
                         unsigned acc, const src *srcs, int n, restriction *rs, int *nrs,
                         int forced) {
  lua_State *L = c->L;
  int kts[4], i, j, top = lua_gettop(L), base_depth = c->depth;
  unsigned all = 0;
  luaL_checkstack(L, 16, "pso: nesting too deep");
  for (j = 0; j < nv; j++) {
    if (vs[j]) {
      push_struct_keys(L, c->ctx, c->K, vs[j]);
      kts[j] = lua_gettop(L);
      all |= 1u << j;
    } else {
      kts[j] = 0;
    }
  }
  for (i = 0; i < n; i++) {
    int t = srcs[i].idx;
    c->depth = srcs[i].pdepth;
    lua_pushnil(L);
    while (lua_next(L, t)) {
      int key_idx = lua_gettop(L) - 1, fis[4];
      unsigned set = 0;
      const char *key;
      if (lua_type(L, key_idx) != LUA_TSTRING) { /* reported by the conversion */
        lua_pop(L, 1);
        continue;
      }
      key = lua_tostring(L, key_idx);
      for (j = 0; j < nv; j++) {
        fis[j] = kts[j] ? key_lookup(c, vs[j], key, key_idx) : 0;
        if (fis[j] > 0) set |= 1u << j;
      }
      if (set == 0) return unknown_key(c, vs, nv, key_idx);
      /* records: the versions whose record has every sub-key */
      if (tabular(L, -1)) {
        const psoc_struct *sub[4];
        int any = 0;
        for (j = 0; j < nv; j++) {
          sub[j] = NULL;
          if ((set & (1u << j)) && vs[j]->fields[fis[j] - 1].kind == PSOC_FIELD_STRUCT) {
            sub[j] = vs[j]->fields[fis[j] - 1].element;
            any = 1;
          }
        }
        if (any) {
          src ss;
          uint8_t label = 0;
          psoi_cv_push_frame(c, key, 0);
          push_resolved(c, lua_gettop(L), &label);
          ss = srcs[i];
          ss.idx = lua_gettop(L);
          ss.pdepth = (uint8_t)c->depth;
          set &= key_mask(c, cls, sub, nv, set, &ss, 1, rs, nrs, forced);
          lua_pop(L, 1);
          c->depth--;
        }
      }
      if ((acc & set) == 0) {
        char have[64], other[64];
        int k;
        psoi_cv_push_frame(c, key, 0);
        version_names(c->ctx, cls, set, have, sizeof have);
        if (forced) {
          return psoi_cv_error(c, "not a field of %s; it is a field of %s (give '%s' and the "
                             "version is picked automatically)",
                          psoc_subobject_info_get(c->ctx->class_types[cls][forced - 1])->key, have,
                          psoc_subobject_info_get(cls)->key);
        }
        for (k = 0; k < *nrs; k++)
          if ((rs[k].set & set) == 0) break;
        if (k < *nrs) {
          version_names(c->ctx, cls, rs[k].set, other, sizeof other);
          return psoi_cv_error(c, "cannot be combined with '%s': '%s' needs %s, '%s' needs %s", rs[k].key,
                          key, have, rs[k].key, other);
        }
        version_names(c->ctx, cls, acc, other, sizeof other);
        return psoi_cv_error(c, "needs %s, but the declaration needs %s", have, other);
      }
      acc &= set;
      if (set != all && *nrs < 32) {
        rs[*nrs].key = key;
        rs[*nrs].set = set;
        (*nrs)++;
      }
      lua_pop(L, 1);
    }
  }
  c->depth = base_depth;
  lua_settop(L, top);
  return acc;
}

/* A class source as the record reader's source of path depth 1. */
static void top_source(src *one, const psoi_csrc *s) {
  one->idx = s->idx;
  one->layer = s->layer;
  one->label = s->label;
  one->filtered = 0;
  one->pdepth = 1;
  one->parent_s = NULL;
}

static int cv_payload(psoi_cv *c, const psoc_subobject_info *info, const psoi_csrc *srcs, int n,
                      unsigned char *payload) {
  lua_State *L = c->L;
  const psoc_struct *s = info->payload;
  int single = shape_single(c->ctx, s), top = lua_gettop(L), i, r;
  src one;
  top_source(&one, &srcs[0]);
  if (single >= 0) return cv_field(c, s, &s->fields[single], srcs[0].idx, payload, 0, &one);
  if (info->type == PSOC_SO_RENDER_TARGET_FORMATS && tabular(L, srcs[0].idx)) {
    uint8_t label = one.label;
    int rt = resolve(c, srcs[0].idx, &label), rtop = lua_gettop(L), list; /* a preset: its data */
    lua_rawgeti(L, rt, 1);
    list = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!list) {
      lua_pushnil(L);
      list = !lua_next(L, rt); /* {} */
      lua_settop(L, rtop);
    }
    if (list) { /* { "fmt", ... }: formats and their count */
      const psoc_field *ff = NULL, *cf = NULL;
      size_t k, cnt;
      int pos[LIST_KEEP];
      for (k = 0; k < s->field_count; k++) {
        if (s->fields[k].kind == PSOC_FIELD_FIXED) ff = &s->fields[k];
        if (s->fields[k].kind == PSOC_FIELD_UINT) cf = &s->fields[k];
      }
      if (!ff || !cf) return psoi_cv_error(c, "internal error: unexpected render-target layout");
      cnt = check_list_at(c, rt, ff->count, "render-target formats", NULL, pos);
      for (k = 0; k < cnt; k++) { /* cnt <= ff->count (8): each at pos[k] */
        uint64_t v;
        psoi_cv_push_frame(c, NULL, (int)k + 1);
        cv_enum(c, ff->enumeration, pos[k], &v);
        c->depth--;
        put_uint(payload + ff->offset + k * ff->stride, ff->size, v);
        mark(c, (int)(ff->offset + k * ff->stride), ff->size, label);
      }
      put_uint(payload + cf->offset, cf->size, cnt);
      mark(c, cf->offset, cf->size, label);
      lua_settop(L, top);
      return CV_OK;
    }
    lua_settop(L, top);
  }
  if (info->type == PSOC_SO_SAMPLE_DESC && lua_type(L, srcs[0].idx) == LUA_TNUMBER) {
    const psoc_field *f = &s->fields[0];
    r = cv_field(c, s, f, srcs[0].idx, payload, 0, &one);
    mark(c, 0, s->size, one.label);
    return r;
  }
  {
    src ts[PSOI_CV_SOURCES];
    int nt = 0;
    for (i = 0; i < n; i++) {
      uint8_t label = srcs[i].label;
      if (!tabular(L, srcs[i].idx)) {
        if (i == 0) {
          char what[96];
          snprintf(what, sizeof what, "a table of %s fields", info->key);
          if (info->type == PSOC_SO_RENDER_TARGET_FORMATS) snprintf(what, sizeof what, "a list of formats");
          if (info->type == PSOC_SO_SAMPLE_DESC) snprintf(what, sizeof what, "a sample count or { count = , quality = }");
          return psoi_cv_type_error(c, srcs[i].idx, what);
        }
        break; /* a lower layer's non-record is replaced */
      }
      /* a plain table is read where it is; a preset's data is pushed */
      if (!(ts[nt].idx = resolve(c, srcs[i].idx, &label))) {
        lua_pushvalue(L, srcs[i].idx);
        ts[nt].idx = lua_gettop(L);
      }
      ts[nt].layer = srcs[i].layer;
      ts[nt].label = label;
      ts[nt].filtered = 0;
      ts[nt].pdepth = 1;
      ts[nt].parent_s = NULL;
      nt++;
    }
    r = cv_struct(c, s, ts, nt, payload, 0);
    lua_settop(L, top);
    return r;
  }
}

/* Convert one class from its sources (top first) into payload; returns
** the type emitted. */
uint32_t psoi_cv_class(psoi_cv *c, uint32_t cls, const psoi_csrc *srcs, int n, unsigned char *payload) {
  lua_State *L = c->L;
  psoi_ctx *ctx = c->ctx;
  int nv = ctx->class_ntypes[cls], j, last = -1, top = lua_gettop(L), forced = 0, min = 0;
  int cache_data = 0; /* stack index of a preset's data table (cacheable) */
  unsigned acc = 1;
  int vt = n == 1 && !c->marks ? lua_type(L, srcs[0].idx) : LUA_TNONE; /* one source: its type */
  uint32_t emitted = PSOC_SO_TYPE_COUNT;
  c->depth = 0;
  psoi_cv_push_frame(c, srcs[0].key, 0);
  /* The commonest shape: one plain table of a class with versions, read
  ** as the oldest version would be by the fast path below (cv_payload's
  ** record case), in cv_struct_flat alone; anything else it does not take
  ** goes the whole way, from the start. */
  if (vt == LUA_TTABLE && nv > 1 && srcs[0].type == cls) {
    const psoc_subobject_info *info = ctx->info[ctx->class_types[cls][0]];
    size_t extra = c->extra;
    if (info->type != PSOC_SO_RENDER_TARGET_FORMATS && info->type != PSOC_SO_SAMPLE_DESC &&
        shape_single(ctx, info->payload) < 0) {
      src one;
      int r;
      top_source(&one, &srcs[0]);
      memcpy(payload, info->default_payload, info->payload->size);
      c->soft = c->soft_keys = 1;
      c->depth = 1;
      r = cv_struct_flat(c, info->payload, srcs[0].idx, payload, &one);
      c->soft = c->soft_keys = 0;
      lua_settop(L, top);
      if (r == CV_OK) return info->type;
      c->extra = extra;
      c->depth = 0;
      psoi_cv_push_frame(c, srcs[0].key, 0);
    }
  }
  /* An immutable preset given alone converts the same every time: the
  ** cache is keyed by the preset object itself (only presets go in), so a
  ** hit needs no look at its metatable or data. */
  if (vt == LUA_TUSERDATA) {
    size_t len;
    const char *hit;
    lua_rawgeti(L, c->K, PSOI_K_PRESET_CACHE);
    lua_pushvalue(L, srcs[0].idx);
    lua_rawget(L, -2);
    hit = lua_tolstring(L, -1, &len);
    if (hit && len > 8) {
      uint32_t req, type;
      memcpy(&req, hit, 4);
      memcpy(&type, hit + 4, 4);
      if (req == srcs[0].type && type < PSOC_SO_TYPE_COUNT && ctx->info[type] &&
          len == 8 + ctx->info[type]->payload->size) {
        memcpy(payload, hit + 8, len - 8);
        lua_settop(L, top);
        return type;
      }
    }
    lua_settop(L, top);
    if (psoi_preset_data(L, srcs[0].idx)) cache_data = lua_gettop(L);
  }
  if (nv > 1) {
    int i;
    if (srcs[0].type != cls) {
      forced = version_of(ctx, cls, srcs[0].type) + 1;
      acc = 1u << (forced - 1);
    } else {
      for (i = 1; i < n; i++) {
        int v = version_of(ctx, cls, srcs[i].type);
        if (v > min) min = v;
      }
      acc = ((1u << nv) - 1) & ~((1u << min) - 1);
    }
  }
  /* Fast path: the oldest candidate, with unknown keys and values it cannot
  ** hold reported softly; most declarations stop here. */
  if (nv > 1 && !forced && (acc >> min) > 1) {
    const psoc_subobject_info *info = ctx->info[ctx->class_types[cls][min]];
    memcpy(payload, info->default_payload, info->payload->size);
    if (c->marks) memset(c->marks, PSOI_LABEL_DEFAULT, c->marks_size);
    c->soft = c->soft_keys = 1;
    c->depth = 1;
    if (cv_payload(c, info, srcs, n, payload) == CV_OK) emitted = info->type;
    c->soft = c->soft_keys = 0;
    lua_settop(L, cache_data ? cache_data : top);
  }
  if (emitted == PSOC_SO_TYPE_COUNT) {
    if (nv > 1) {
      const psoc_struct *vs[4];
      src ts[PSOI_CV_SOURCES];
      restriction rs[32];
      int nt = 0, nrs = 0, i;
      for (j = 0; j < nv; j++) vs[j] = psoc_subobject_info_get(ctx->class_types[cls][j])->payload;
      for (i = 0; i < n; i++) {
        uint8_t label = 0;
        if (!tabular(L, srcs[i].idx)) break;
        push_resolved(c, srcs[i].idx, &label);
        ts[nt].idx = lua_gettop(L);
        ts[nt].layer = srcs[i].layer;
        ts[nt].label = 0;
        ts[nt].filtered = 0;
        ts[nt].pdepth = 1;
          ts[nt].parent_s = NULL;
        nt++;
      }
      c->depth = 1;
      if (nt > 0) acc = key_mask(c, cls, vs, nv, acc, ts, nt, rs, &nrs, forced);
      lua_settop(L, cache_data ? cache_data : top);
    }
    for (j = 0; j < nv; j++)
      if (acc & (1u << j)) last = j;
    for (j = 0; j < nv && emitted == PSOC_SO_TYPE_COUNT; j++) {
      const psoc_subobject_info *info = ctx->info[ctx->class_types[cls][j]];
      if (!(acc & (1u << j))) continue;
      memcpy(payload, info->default_payload, info->payload->size);
      if (c->marks) memset(c->marks, PSOI_LABEL_DEFAULT, c->marks_size);
      c->soft = j != last;
      c->depth = 1;
      if (cv_payload(c, info, srcs, n, payload) == CV_OK) emitted = info->type;
      c->soft = 0;
      lua_settop(L, cache_data ? cache_data : top);
    }
    if (emitted == PSOC_SO_TYPE_COUNT)
      return (uint32_t)psoi_cv_error(c, "internal error: no version accepted the declaration");
  }
  if (cache_data && !ctx->type_has_ptr[emitted]) {
    char buf[8 + PSOI_PAYLOAD_MAX];
    size_t size = ctx->info[emitted]->payload->size;
    memcpy(buf, &srcs[0].type, 4);
    memcpy(buf + 4, &emitted, 4);
    memcpy(buf + 8, payload, size);
    lua_rawgeti(L, c->K, PSOI_K_PRESET_CACHE);
    lua_pushvalue(L, srcs[0].idx); /* the preset */
    lua_pushlstring(L, buf, 8 + size);
    lua_rawset(L, -3);
  }
  lua_settop(L, top);
  return emitted;
}

/* ------------------------------------------------------------------ */
/* Declarations                                                         */
/* ------------------------------------------------------------------ */

const char *const psoi_decider_text[4] = { "", "a vertex shader (vs = pso.shader \"file.cso\")",
                                             "a compute shader (cs = pso.shader \"file.cso\")",
                                             "a mesh shader (ms = pso.shader \"file.cso\")" };

/* Pass 1 over a declaration (or overrides) table: keys, classes, kinds.
** Each value kept stays on the stack where lua_next left it (a copy of
** its key goes on top for the next step), so d->vidx[] index the stack. */
void psoi_cv_scan_decl(psoi_cv *c, psoc_kind kind, int t, psoi_decl *d) {
  lua_State *L = c->L;
  psoi_ctx *ctx = c->ctx;
  d->given = d->removed = 0;
  int k; /* stack index of the key lua_next steps from; its value at k + 1 */
  d->name_idx = 0;
  luaL_checkstack(L, 2 * PSOC_SO_TYPE_COUNT + 24, "pso: stack overflow");
  c->depth = 0;
  lua_pushnil(L);
  k = lua_gettop(L);
  while (lua_next(L, t)) {
    int code, vt;
    uint32_t type, cls, bit;
    const psoc_subobject_info *info;
    const char *key;
    int64_t v;
    if (lua_type(L, -2) != LUA_TSTRING) {
      char d1[96];
      return (void)psoi_cv_error(c, "unexpected positional value: %s (a pipeline is declared with "
                               "named keys: vs = ..., rasterizer = ...)",
                            describe(L, -1, d1, sizeof d1));
    }
    key = lua_tostring(L, -2);
    if (psoi_imap_get(ctx, &psoi_top_owner, key, &v)) {
      code = (int)v;
    } else {
      lua_rawgeti(L, c->K, PSOI_K_TOP);
      lua_pushvalue(L, -3);
      if (pso_compat_rawget(L, -2) != LUA_TNUMBER) {
        const char *cands[40];
        size_t nc = 0;
        uint32_t k;
        char sugg[320];
        lua_pop(L, 2);
        for (k = 0; k < PSOC_SO_TYPE_COUNT; k++) {
          const psoc_subobject_info *ik = psoc_subobject_info_get(k);
          if (ik) cands[nc++] = ik->key;
        }
        cands[nc++] = "name";
        psoi_suggest(key, cands, nc, sugg, sizeof sugg);
        psoi_cv_push_frame(c, key, 0);
        return (void)psoi_cv_error(c, "unknown key%s", sugg);
      }
      code = (int)lua_tointeger(L, -1);
      lua_pop(L, 2);
    }
    vt = lua_type(L, -1);
    if (code < 0) { /* name */
      psoi_cv_push_frame(c, key, 0);
      if (vt != LUA_TSTRING || lua_rawlen(L, -1) == 0) psoi_cv_type_error(c, -1, "a non-empty string");
      c->depth = 0;
      d->name_idx = k + 1;
      lua_pushvalue(L, k);
      k += 2;
      continue;
    }
    type = (uint32_t)code;
    info = ctx->info[type]; /* psoi_init_keys: every type of the registry */
    cls = info->dup_class;
    bit = 1u << cls;
    if ((d->given | d->removed) & bit) {
      const char *a = d->vkey[cls], *b = key;
      if (version_of(ctx, cls, d->vtype[cls]) > version_of(ctx, cls, type)) {
        a = key;
        b = d->vkey[cls];
      }
      psoi_cv_push_frame(c, b, 0);
      return (void)psoi_cv_error(c, "'%s' is also given: give only one of a class ('%s' picks the "
                               "version automatically)",
                            a, psoc_subobject_info_get(cls)->key);
    }
    d->vtype[cls] = type;
    d->vkey[cls] = key;
    if (vt == LUA_TUSERDATA && lua_touserdata(L, -1) == ctx->none_ud) {
      d->removed |= bit;
      lua_pop(L, 1);
      continue;
    }
    if (!(info->kinds & PSOC_KIND_BIT(kind))) {
      char users[64] = "";
      size_t len = 0;
      psoc_kind k;
      for (k = PSOC_KIND_GRAPHICS; k <= PSOC_KIND_MESH; k++)
        if (info->kinds & PSOC_KIND_BIT(k))
          len += (size_t)snprintf(users + len, sizeof users - len, "%s%s", len ? " and " : "",
                                  psoc_kind_name(k));
      return (void)psoi_cv_error(c, "%s is not used by %s pipelines (it applies to %s pipelines)", key,
                            psoc_kind_name(kind), users);
    }
    d->given |= bit;
    d->vidx[cls] = k + 1;
    lua_pushvalue(L, k);
    k += 2;
  }
}

void psoi_stage_add(psoi_cv *c, psoi_stage *st, uint32_t type, const unsigned char *payload,
                      size_t extra) {
  const psoc_subobject_info *info = c->ctx->info[type];
  unsigned char *mem = psoi_arena_take(c->ctx, info->payload->size);
  if (!mem) psoi_cv_error(c, "not enough memory");
  memcpy(mem, payload, info->payload->size);
  st->type[st->n] = type;
  st->payload[st->n] = mem;
  st->n++;
  if (c->ctx->type_borrow[type]) /* borrowed: not in the block */
    st->lent += extra, extra = 0;
  st->bound += info->stride + extra;
}

/* Room in the arena for a payload of class cls, converted in place (every
** conversion path writes the whole payload of the type it emits), then
** psoi_stage_commit. */
unsigned char *psoi_stage_take(psoi_cv *c, uint32_t cls) {
  unsigned char *mem = psoi_arena_take(c->ctx, c->ctx->class_payload_max[cls]);
  if (!mem) psoi_cv_error(c, "not enough memory");
  return mem;
}

void psoi_stage_commit(psoi_cv *c, psoi_stage *st, uint32_t type, unsigned char *payload, size_t extra) {
  st->type[st->n] = type;
  st->payload[st->n] = payload;
  st->n++;
  if (c->ctx->type_borrow[type]) st->lent += extra, extra = 0;
  st->bound += c->ctx->info[type]->stride + extra;
}

/* A class of one type whose payload is given as its only field (vs = ...,
** depth_format = ..., input_layout = { ... }), from one declaration: what
** psoi_cv_class does for it, without the general machinery. */
uint32_t psoi_cv_single(psoi_cv *c, uint32_t cls, int vidx, const char *key, unsigned char *payload) {
  const psoc_subobject_info *info = c->ctx->info[cls];
  const psoc_struct *s = info->payload;
  src one;
  one.idx = vidx;
  one.layer = 0;
  one.label = PSOI_LABEL_SCRIPT;
  one.filtered = 0;
  one.pdepth = 1;
  one.parent_s = NULL;
  memcpy(payload, info->default_payload, s->size);
  c->depth = 0;
  psoi_cv_push_frame(c, key, 0);
  c->soft = 0;
  if (cv_field(c, s, &s->fields[c->ctx->single_field[cls]], vidx, payload, 0, &one) != CV_OK)
    return (uint32_t)psoi_cv_error(c, "internal error: no version accepted the declaration");
  return info->type;
}

/* Out-of-line bytes of a payload (upper bound, as piece_bound counts). */
size_t psoi_payload_extra(const psoc_struct *s, const unsigned char *p) {
  size_t total = 0, k;
  uint32_t i;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    const unsigned char *q;
    switch (f->kind) {
    case PSOC_FIELD_STRUCT:
      if (f->element) total += psoi_payload_extra(f->element, p + f->offset);
      break;
    case PSOC_FIELD_FIXED:
      for (k = 0; f->element && k < f->count; k++)
        total += psoi_payload_extra(f->element, p + f->offset + k * f->stride);
      break;
    case PSOC_FIELD_ARRAY: {
      size_t n = psoc_visit_count_of(s, f, p);
      q = get_ptr(p + f->offset);
      if (!q) break;
      total += piece_bound(n * f->stride);
      for (k = 0; f->element && k < n; k++) total += psoi_payload_extra(f->element, q + k * f->stride);
      break;
    }
    case PSOC_FIELD_BLOB:
      if (get_ptr(p + f->offset)) total += piece_bound(psoc_visit_count_of(s, f, p));
      break;
    case PSOC_FIELD_STRING:
      q = get_ptr(p + f->offset);
      if (q) total += piece_bound(strlen((const char *)q) + 1);
      break;
    default: break;
    }
  }
  return total;
}
int psoi_same_payload(uint32_t ta, const unsigned char *a, uint32_t tb, const unsigned char *b) {
  const psoc_subobject_info *info = psoc_subobject_info_get(ta);
  return ta == tb && info && psoi_payload_equal(info->payload, a, b);
}

/* ------------------------------------------------------------------ */
/* Payload equality                                                     */
/* ------------------------------------------------------------------ */

int psoi_payload_equal(const psoc_struct *s, const unsigned char *a, const unsigned char *b) {
  uint32_t i;
  size_t k;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    switch (f->kind) {
    case PSOC_FIELD_STRUCT:
      if (f->element && !psoi_payload_equal(f->element, a + f->offset, b + f->offset)) return 0;
      break;
    case PSOC_FIELD_FIXED:
      for (k = 0; k < f->count; k++) {
        size_t at = f->offset + k * f->stride;
        if (f->element ? !psoi_payload_equal(f->element, a + at, b + at)
                       : memcmp(a + at, b + at, f->size) != 0)
          return 0;
      }
      break;
    case PSOC_FIELD_ARRAY: {
      size_t na = psoc_visit_count_of(s, f, a), nb = psoc_visit_count_of(s, f, b);
      const unsigned char *pa = get_ptr(a + f->offset), *pb = get_ptr(b + f->offset);
      if (na != nb || !pa != !pb) return 0;
      for (k = 0; pa && k < na; k++) {
        size_t at = k * f->stride;
        if (f->element ? !psoi_payload_equal(f->element, pa + at, pb + at)
                       : memcmp(pa + at, pb + at, f->stride) != 0)
          return 0;
      }
      break;
    }
    case PSOC_FIELD_BLOB: {
      size_t na = psoc_visit_count_of(s, f, a), nb = psoc_visit_count_of(s, f, b);
      const unsigned char *pa = get_ptr(a + f->offset), *pb = get_ptr(b + f->offset);
      if (na != nb || !pa != !pb || (pa && memcmp(pa, pb, na) != 0)) return 0;
      break;
    }
    case PSOC_FIELD_STRING: {
      const char *pa = (const char *)get_ptr(a + f->offset), *pb = (const char *)get_ptr(b + f->offset);
      if (!pa != !pb || (pa && strcmp(pa, pb) != 0)) return 0;
      break;
    }
    case PSOC_FIELD_OBJECT: break; /* resolved by a hook: compared by name elsewhere */
    default:
      if (memcmp(a + f->offset, b + f->offset, f->size) != 0) return 0;
      break;
    }
  }
  return 1;
}

/* ------------------------------------------------------------------ */
/* Visiting payloads                                                    */
/* ------------------------------------------------------------------ */

/* A pipeline's own stream: its pointers are live, so they are followed. */
void psoi_visit_class(psoi_vis *v, const char *key, uint32_t type, const unsigned char *payload) {
  v->follow = 1;
  psoc_visit_class(v, key, type, payload);
}

/* ---- leaves as Lua values and as text ------------------------------ */

double psoi_float_value(float f, char *text, size_t n) {
  char buf[48];
  int prec;
  double d = (double)f;
  if (!isfinite(d)) {
    if (text) snprintf(text, n, "%s", isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
    return d;
  }
  for (prec = 1; prec <= 9; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, d);
    if ((float)strtod(buf, NULL) == f) break;
  }
  if (prec > 9) snprintf(buf, sizeof buf, "%.9g", d);
  if (text) snprintf(text, n, "%s", buf);
  return strtod(buf, NULL);
}


static int64_t sign_extend(uint64_t v, unsigned size) {
  if (size < 8 && (v & ((uint64_t)1 << (size * 8 - 1)))) v |= ~(((uint64_t)1 << (size * 8)) - 1);
  return (int64_t)v;
}

void psoi_push_leaf(lua_State *L, const psoi_vval *val, const char *rs_name) {
  uint64_t u;
  switch (val->kind) {
  case PSOC_FIELD_UINT:
  case PSOC_FIELD_COUNT: pso_compat_pushuint(L, read_uint(val->p, val->size)); return;
  case PSOC_FIELD_INT: pso_compat_pushint(L, sign_extend(read_uint(val->p, val->size), val->size)); return;
  case PSOC_FIELD_BOOL: lua_pushboolean(L, read_uint(val->p, val->size) != 0); return;
  case PSOC_FIELD_FLOAT: {
    float f;
    memcpy(&f, val->p, sizeof f);
    lua_pushnumber(L, (lua_Number)psoi_float_value(f, NULL, 0));
    return;
  }
  case PSOC_FIELD_ENUM: {
    const psoc_enum_value *ev;
    u = read_uint(val->p, val->size);
    ev = psoc_enum_value_by_value(val->e, (uint32_t)u);
    if (ev) lua_pushstring(L, ev->key);
    else pso_compat_pushuint(L, u);
    return;
  }
  case PSOC_FIELD_FLAGS: {
    char buf[256];
    u = read_uint(val->p, val->size);
    if (psoc_visit_flags_text(val->e, u, buf, sizeof buf)) lua_pushstring(L, buf);
    else pso_compat_pushuint(L, u);
    return;
  }
  case PSOC_FIELD_BLOB:
    if (val->blob)
      psoi_push_blob(L, val->is_shader ? PSOI_BLOB_SHADER : PSOI_BLOB_DATA, val->blob,
                     val->count, NULL);
    else
      lua_pushnil(L);
    return;
  case PSOC_FIELD_STRING:
    if (val->str) lua_pushstring(L, val->str);
    else lua_pushnil(L);
    return;
  case PSOC_FIELD_OBJECT:
    if (rs_name) lua_pushstring(L, rs_name);
    else if (val->ptr) lua_pushlightuserdata(L, (void *)val->ptr);
    else lua_pushnil(L);
    return;
  default: lua_pushnil(L); return;
  }
}

size_t psoi_format_leaf(const psoi_vval *val, const char *rs_name, char *out, size_t n) {
  if (n == 0) return 0;
  return strlen(psoc_visit_leaf_text(val, rs_name, out, n)); /* the core's (visit.h) */
}

/* ---- readback: a payload as a Lua value ----------------------------- */

typedef struct lua_vis {
  psoi_vis v;
  lua_State *L;
  const char *rs_name;
  int depth;
  const char *keys[PSOI_CV_DEPTH];
  int index[PSOI_CV_DEPTH];
} lua_vis;

static void lv_set(lua_vis *lv, const char *key, int index) {
  if (lv->depth == 0) return; /* the root stays on the stack */
  if (key) lua_setfield(lv->L, -2, key);
  else lua_rawseti(lv->L, -2, index);
}

static void lv_open(psoi_vis *v, const char *key, int index, int is_list) {
  lua_vis *lv = (lua_vis *)v;
  luaL_checkstack(lv->L, 4, "pso: nesting too deep");
  lua_createtable(lv->L, is_list ? 4 : 0, is_list ? 0 : 8);
  if (lv->depth < PSOI_CV_DEPTH) {
    lv->keys[lv->depth] = key;
    lv->index[lv->depth] = index;
  }
  lv->depth++;
}

static void lv_close(psoi_vis *v, int is_list) {
  lua_vis *lv = (lua_vis *)v;
  (void)is_list;
  lv->depth--;
  if (lv->depth < PSOI_CV_DEPTH) lv_set(lv, lv->keys[lv->depth], lv->index[lv->depth]);
}

static void lv_leaf(psoi_vis *v, const char *key, int index, const psoi_vval *val) {
  lua_vis *lv = (lua_vis *)v;
  psoi_push_leaf(lv->L, val, lv->rs_name);
  lv_set(lv, key, index);
}

void psoi_push_class(lua_State *L, int keys_idx, uint32_t type, const unsigned char *payload,
                     const char *rs_name) {
  lua_vis lv;
  int top = lua_gettop(L);
  (void)keys_idx;
  memset(&lv, 0, sizeof lv);
  lv.v.open = lv_open;
  lv.v.close = lv_close;
  lv.v.leaf = lv_leaf;
  lv.L = L;
  lv.rs_name = rs_name;
  psoi_visit_class(&lv.v, psoc_subobject_info_get(type)->key, type, payload);
  if (lua_gettop(L) == top) lua_pushnil(L);
}

/* ------------------------------------------------------------------ */
/* D3D12 field paths -> the language's keys                             */
/* ------------------------------------------------------------------ */

/* "BLEND.RenderTarget[0].SrcBlend" -> "blend.render_targets[1].src",
** "RENDER_TARGET_FORMATS.RTFormats[0]" -> "render_targets[1]",
** "DEPTH_STENCIL_FORMAT" -> "depth_format": subobject names become their
** class's key, members their field keys (a payload given as its only
** field drops that member), indexes count from 1, a COUNT member names
** its list. Anything not understood: the field unchanged. */
size_t pso_field_path(const char *field, char *out, size_t n) {
  const psoc_subobject_info *info;
  const psoc_struct *s;
  char seg[64];
  const char *p = field ? field : "";
  size_t len = 0, k = 0;
  int first = 1, single;
  if (n == 0) return 0;
  while (p[k] && p[k] != '.' && p[k] != '[' && k + 1 < sizeof seg) {
    seg[k] = p[k];
    k++;
  }
  seg[k] = '\0';
  info = k ? psoc_subobject_info_find(seg) : NULL;
  if (!info || (p[k] && p[k] != '.' && p[k] != '[')) goto unchanged;
  info = psoc_subobject_info_get(info->dup_class) ? psoc_subobject_info_get(info->dup_class) : info;
  s = info->payload;
  single = psoc_visit_single_field(s);
  len = (size_t)snprintf(out, n, "%s", info->key);
  p += k;
  while (*p && len < n) {
    if (*p == '[') {
      char *end;
      unsigned long i = strtoul(p + 1, &end, 10);
      if (end == p + 1 || *end != ']' || i > 0xffffu) goto unchanged;
      len += (size_t)snprintf(out + len, n - len, "[%lu]", i + 1);
      p = end + 1;
    } else if (*p == '.') {
      const psoc_field *f = NULL;
      uint32_t i;
      p++;
      for (k = 0; p[k] && p[k] != '.' && p[k] != '[' && k + 1 < sizeof seg; k++) seg[k] = p[k];
      seg[k] = '\0';
      p += k;
      if (!s) goto unchanged;
      for (i = 0; i < s->field_count; i++)
        if (strcmp(s->fields[i].name, seg) == 0) f = &s->fields[i];
      if (!f) goto unchanged;
      if (f->kind == PSOC_FIELD_COUNT) { /* a count: the list it counts */
        const psoc_field *g = NULL;
        for (i = 0; i < s->field_count; i++)
          if ((s->fields[i].kind == PSOC_FIELD_ARRAY || s->fields[i].kind == PSOC_FIELD_BLOB) &&
              s->fields[i].count_offset == f->offset)
            g = &s->fields[i];
        if (g && !(first && single >= 0 && g == &s->fields[single]))
          len += (size_t)snprintf(out + len, n - len, ".%s", g->key);
        break;
      }
      if (!(first && ((single >= 0 && f == &s->fields[single]) ||
                      info->type == PSOC_SO_RENDER_TARGET_FORMATS))) /* given as the list */
        len += (size_t)snprintf(out + len, n - len, ".%s", f->key);
      s = f->element;
    } else {
      goto unchanged;
    }
    first = 0;
  }
  if (len >= n) len = n - 1;
  return len;
unchanged:
  snprintf(out, n, "%s", field ? field : "");
  return strlen(out);
}
