/*
** pso_rootsig.c: root signatures in the material language.
**
**   local rs, warnings = pso.root_signature {
**     name = "lit",                  -- optional: pipelines may then say
**                                    -- root_signature = "lit"
**     version = "1.1",               -- "1.0" or "1.1" (the default)
**     flags = { "allow_input_assembler_input_layout" }, -- or one string
**     parameters = {
**       { constants = { register = 0, space = 0, count = 4 }, visibility = "vertex" },
**       { cbv = { register = 1, flags = "data_static" } },   -- also srv, uav
**       { table = { { srv = { register = 0, count = 8 } },
**                   { cbv = { register = 2, offset = 8 } } }, visibility = "pixel" },
**       { table = { { sampler = { register = 0, count = "unbounded" } } } },
**     },
**     static_samplers = {
**       { register = 0, filter = "min_mag_mip_linear", address = "clamp",
**         visibility = "pixel" },
**     },
**   }
**   pso.graphics { ..., serialized_root_signature = rs }
**
** Ranges take register, space (0), count (1, or "unbounded"), offset
** ("append", or a number) and flags (1.1). Root descriptors take register,
** space, flags (1.1); constants register, space, count (32-bit values).
** visibility defaults to "all". Static samplers take register, space,
** visibility, filter ("anisotropic"), address (all three) or address_u,
** address_v, address_w ("wrap"), mip_lod_bias (0), max_anisotropy (16),
** comparison ("less_equal"), border ("opaque_white"), min_lod (0), max_lod
** (the largest float): the defaults of d3dx12's CD3DX12_STATIC_SAMPLER_DESC.
** Enum values are the short lowercase keys (or the D3D12 names).
**
** The result is a blob object (pso.blob's kind) holding what
** D3D12SerializeVersionedRootSignature would return, serialized by psoc
** (src/rootsig.c); errors D3D12 would report are raised at the script's
** line with the path of the offending field, warnings are returned.
*/
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pso_pipeline.h"
#include "pso_values.h"
#include "pso_rootsig.h"
#include "rootsig.h"

#define FN "pso.root_signature"

/* Registry key of the name -> blob table of this state. */
static const char named_key = 'r';

/* ---- errors and keys ---------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(PSOC_PRINTF_FORMAT, 3, 4)))
#endif
static int rs_error(lua_State *L, const char *path, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (path && *path) return psoi_error(L, FN ": %s: %s", path, msg);
  return psoi_error(L, FN ": %s", msg);
}

static size_t count_names(const char *const *names) {
  size_t n = 0;
  while (names[n]) n++;
  return n;
}

/* Every key of the table at idx is one of names[] (NULL-terminated). */
static void check_keys(lua_State *L, int idx, const char *path, const char *const *names) {
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    size_t i;
    int found = 0;
    for (i = 0; k && names[i]; i++)
      if (strcmp(k, names[i]) == 0) found = 1;
    if (!found) {
      char sugg[320];
      if (!k) rs_error(L, path, "keys must be strings (got a %s key)", luaL_typename(L, -2));
      psoi_suggest(k, names, count_names(names), sugg, sizeof sugg);
      rs_error(L, path, "unknown key '%s'%s", k, sugg);
    }
    lua_pop(L, 1);
  }
}

/* out = path "." key, or path "[" index "]" (index > 0), truncated to n. */
static void path_append(char *out, size_t n, const char *path, const char *key, size_t index) {
  size_t len = 0;
  char num[24];
  const char *parts[3];
  int i;
  if (index) snprintf(num, sizeof num, "[%u]", (unsigned)index);
  parts[0] = path;
  parts[1] = index ? num : (*path ? "." : "");
  parts[2] = index ? "" : key;
  for (i = 0; i < 3; i++) {
    size_t k = strlen(parts[i]);
    if (k > n - 1 - len) k = n - 1 - len;
    memmove(out + len, parts[i], k);
    len += k;
  }
  out[len] = '\0';
}

static void sub_path(char *out, size_t n, const char *path, const char *key) {
  path_append(out, n, path, key, 0);
}

/* Push t[key] (raw); returns its type. */
static int field(lua_State *L, int idx, const char *key) {
  lua_pushstring(L, key);
  return pso_compat_rawget(L, idx);
}

static uint32_t to_uint(lua_State *L, int vidx, const char *path) {
  lua_Number v;
  if (lua_type(L, vidx) != LUA_TNUMBER)
    rs_error(L, path, "expected an integer, got %s", luaL_typename(L, vidx));
  v = lua_tonumber(L, vidx);
  if (!(v >= 0 && v <= 4294967295.0) || floor(v) != v)
    rs_error(L, path, "expected an integer from 0 to 4294967295, got %s",
             lua_tostring(L, vidx));
  return (uint32_t)v;
}

static uint32_t get_uint(lua_State *L, int idx, const char *path, const char *key, uint32_t def) {
  char p[192];
  uint32_t v = def;
  sub_path(p, sizeof p, path, key);
  if (field(L, idx, key) != LUA_TNIL) v = to_uint(L, -1, p);
  lua_pop(L, 1);
  return v;
}

/* A number, or a word standing for one ("unbounded", "append"). */
static uint32_t get_uint_or(lua_State *L, int idx, const char *path, const char *key,
                            uint32_t def, const char *word, uint32_t word_value) {
  char p[192];
  uint32_t v = def;
  sub_path(p, sizeof p, path, key);
  if (field(L, idx, key) == LUA_TSTRING) {
    const char *s = lua_tostring(L, -1);
    if (strcmp(s, word) != 0) {
      const char *cands[1];
      char sugg[128];
      cands[0] = word;
      psoi_suggest(s, cands, 1, sugg, sizeof sugg);
      rs_error(L, p, "expected a number or \"%s\", got \"%s\"%s", word, s, sugg);
    }
    v = word_value;
  } else if (lua_type(L, -1) != LUA_TNIL) {
    if (lua_type(L, -1) != LUA_TNUMBER)
      rs_error(L, p, "expected a number or \"%s\", got %s", word, luaL_typename(L, -1));
    v = to_uint(L, -1, p);
  }
  lua_pop(L, 1);
  return v;
}

static float get_float(lua_State *L, int idx, const char *path, const char *key, float def) {
  char p[192];
  float v = def;
  sub_path(p, sizeof p, path, key);
  if (field(L, idx, key) != LUA_TNIL) {
    if (lua_type(L, -1) != LUA_TNUMBER)
      rs_error(L, p, "expected a number, got %s", luaL_typename(L, -1));
    v = (float)lua_tonumber(L, -1);
  }
  lua_pop(L, 1);
  return v;
}

static uint32_t enum_value(lua_State *L, int vidx, const char *path, const psoc_enum *e) {
  const psoc_enum_value *ev;
  const char *s;
  if (lua_type(L, vidx) != LUA_TSTRING)
    rs_error(L, path, "expected a string (one of the %s names), got %s", e->key,
             luaL_typename(L, vidx));
  s = lua_tostring(L, vidx);
  ev = psoc_enum_value_by_name(e, s);
  if (!ev) {
    const char *cands[64];
    char sugg[320];
    uint32_t i, n = e->count < 64 ? e->count : 64;
    for (i = 0; i < n; i++) cands[i] = e->values[i].key;
    psoi_suggest(s, cands, n, sugg, sizeof sugg);
    rs_error(L, path, "unknown %s '%s'%s", e->key, s, sugg);
    return 0;
  }
  return ev->value;
}

static uint32_t get_enum(lua_State *L, int idx, const char *path, const char *key,
                         const psoc_enum *e, uint32_t def) {
  char p[192];
  uint32_t v = def;
  sub_path(p, sizeof p, path, key);
  if (field(L, idx, key) != LUA_TNIL) v = enum_value(L, lua_gettop(L), p, e);
  lua_pop(L, 1);
  return v;
}

/* The table at idx is a list of n elements (keys 1..n only). */
static void check_list(lua_State *L, int idx, const char *path, size_t n) {
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    int ok = 0;
    if (lua_type(L, -2) == LUA_TNUMBER) {
      lua_Number k = lua_tonumber(L, -2);
      ok = k >= 1 && k <= (lua_Number)n && floor(k) == k;
    }
    if (!ok) {
      if (lua_type(L, -2) == LUA_TSTRING)
        rs_error(L, path, "expected a list, found the key '%s'", lua_tostring(L, -2));
      rs_error(L, path, "expected a list (keys 1 to %u)", (unsigned)n);
    }
    lua_pop(L, 1);
  }
}

/* flags = "one" | { "one", "two" } */
static uint32_t get_flags(lua_State *L, int idx, const char *path, const char *key,
                          const psoc_enum *e, int *given) {
  char p[192];
  uint32_t v = 0;
  int t = field(L, idx, key), top = lua_gettop(L);
  sub_path(p, sizeof p, path, key);
  *given = t != LUA_TNIL;
  if (t == LUA_TSTRING) {
    v = enum_value(L, top, p, e);
  } else if (t == LUA_TTABLE) {
    size_t i, n = lua_rawlen(L, top);
    check_list(L, top, p, n);
    for (i = 1; i <= n; i++) {
      char q[192];
      path_append(q, sizeof q, p, NULL, i);
      pso_compat_rawgeti(L, top, (int)i);
      v |= enum_value(L, lua_gettop(L), q, e);
      lua_pop(L, 1);
    }
  } else if (t != LUA_TNIL) {
    rs_error(L, p, "expected a flag name or a list of them, got %s", luaL_typename(L, top));
  }
  lua_pop(L, 1);
  return v;
}

/* ---- the declaration ---------------------------------------------------- */

typedef struct decl {
  int v11;
  uint32_t np, nr, ns, flags;
  D3D12_ROOT_PARAMETER1 *p1;
  D3D12_DESCRIPTOR_RANGE1 *r1;
  D3D12_ROOT_PARAMETER *p0;
  D3D12_DESCRIPTOR_RANGE *r0;
  D3D12_STATIC_SAMPLER_DESC *ss;
} decl;

static const char *const top_keys[] = { "name", "version", "flags", "parameters",
                                        "static_samplers", NULL };
static const char *const param_keys[] = { "constants", "cbv", "srv", "uav", "table",
                                          "visibility", NULL };
static const char *const param_kinds[] = { "table", "constants", "cbv", "srv", "uav" };
static const char *const range_kinds[] = { "srv", "uav", "cbv", "sampler", NULL };
static const char *const range_keys[] = { "register", "space", "count", "offset", "flags", NULL };
static const char *const descriptor_keys[] = { "register", "space", "flags", NULL };
static const char *const constants_keys[] = { "register", "space", "count", NULL };
static const char *const sampler_keys[] = {
  "register",  "space",     "visibility",   "filter",         "address",    "address_u",
  "address_v", "address_w", "mip_lod_bias", "max_anisotropy", "comparison", "border",
  "min_lod",   "max_lod",   NULL
};

static void expect_table(lua_State *L, int idx, const char *path, const char *what) {
  if (lua_type(L, idx) != LUA_TTABLE)
    rs_error(L, path, "expected %s, got %s", what, luaL_typename(L, idx));
}

/* The list at t[key] (or none): pushed; returns its length. */
static size_t get_list(lua_State *L, int idx, const char *path, const char *key, char *p,
                       size_t pn) {
  size_t n = 0;
  sub_path(p, pn, path, key);
  if (field(L, idx, key) != LUA_TNIL) {
    expect_table(L, -1, p, "a list");
    n = lua_rawlen(L, -1);
    check_list(L, lua_gettop(L), p, n);
  }
  return n;
}

static void no_flags_in_1_0(lua_State *L, const decl *d, int given, const char *path) {
  char p[192];
  if (given && !d->v11) {
    sub_path(p, sizeof p, path, "flags");
    rs_error(L, p, "flags need version = \"1.1\" (a 1.0 root signature has none)");
  }
}

/* Which of names[] (the first 'n') are keys of the table at idx: the index
** of the only one, -1 for none, -2 for several. */
static int which_key(lua_State *L, int idx, const char *const *names, int n) {
  int i, found = -1;
  for (i = 0; i < n; i++) {
    if (field(L, idx, names[i]) != LUA_TNIL) found = found == -1 ? i : -2;
    lua_pop(L, 1);
  }
  return found;
}

static void read_range(lua_State *L, int idx, const char *path, const decl *d,
                       D3D12_DESCRIPTOR_RANGE1 *r) {
  int kind = which_key(L, idx, range_kinds, 4), given, vidx;
  char p[192];
  check_keys(L, idx, path, range_kinds);
  if (kind < 0) {
    rs_error(L, path, "give exactly one of srv, uav, cbv, sampler (as { srv = { register = 0 } })");
    return;
  }
  sub_path(p, sizeof p, path, range_kinds[kind]);
  field(L, idx, range_kinds[kind]);
  vidx = lua_gettop(L);
  expect_table(L, vidx, p, "a table { register = ..., count = ... }");
  check_keys(L, vidx, p, range_keys);
  r->RangeType = (D3D12_DESCRIPTOR_RANGE_TYPE)kind;
  r->BaseShaderRegister = get_uint(L, vidx, p, "register", 0);
  r->RegisterSpace = get_uint(L, vidx, p, "space", 0);
  r->NumDescriptors = get_uint_or(L, vidx, p, "count", 1, "unbounded", UINT32_MAX);
  r->OffsetInDescriptorsFromTableStart =
      get_uint_or(L, vidx, p, "offset", D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND, "append",
                  D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND);
  r->Flags = (D3D12_DESCRIPTOR_RANGE_FLAGS)get_flags(L, vidx, p, "flags",
                                                     &psoc_enum_descriptor_range_flags, &given);
  no_flags_in_1_0(L, d, given, p);
  lua_pop(L, 1);
}

static void read_param(lua_State *L, int idx, const char *path, decl *d, uint32_t i,
                       uint32_t *next_range) {
  D3D12_ROOT_PARAMETER1 *q = &d->p1[i];
  int kind, vidx;
  char p[192];
  expect_table(L, idx, path, "a parameter table ({ cbv = {...} }, { table = {...} }, ...)");
  check_keys(L, idx, path, param_keys);
  kind = which_key(L, idx, param_keys, 5);
  if (kind < 0) {
    rs_error(L, path, "give exactly one of constants, cbv, srv, uav, table");
    return;
  }
  q->ShaderVisibility = (D3D12_SHADER_VISIBILITY)get_enum(L, idx, path, "visibility",
                                                          &psoc_enum_shader_visibility, 0);
  sub_path(p, sizeof p, path, param_keys[kind]);
  field(L, idx, param_keys[kind]);
  vidx = lua_gettop(L);
  if (kind == 4) { /* table */
    size_t j, n;
    expect_table(L, vidx, p, "a list of ranges ({ { srv = {...} }, ... })");
    n = lua_rawlen(L, vidx);
    check_list(L, vidx, p, n);
    q->ParameterType = D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
    q->DescriptorTable.NumDescriptorRanges = (UINT)n;
    q->DescriptorTable.pDescriptorRanges = n ? &d->r1[*next_range] : NULL;
    for (j = 1; j <= n; j++) {
      char rp[192];
      path_append(rp, sizeof rp, p, NULL, j);
      pso_compat_rawgeti(L, vidx, (int)j);
      expect_table(L, -1, rp, "a range ({ srv = { register = 0 } })");
      read_range(L, lua_gettop(L), rp, d, &d->r1[(*next_range)++]);
      lua_pop(L, 1);
    }
  } else if (kind == 0) { /* constants */
    expect_table(L, vidx, p, "a table { register = ..., count = ... }");
    check_keys(L, vidx, p, constants_keys);
    if (field(L, vidx, "count") == LUA_TNIL)
      rs_error(L, p, "count (the number of 32-bit values) is required");
    lua_pop(L, 1);
    q->ParameterType = D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS;
    q->Constants.ShaderRegister = get_uint(L, vidx, p, "register", 0);
    q->Constants.RegisterSpace = get_uint(L, vidx, p, "space", 0);
    q->Constants.Num32BitValues = get_uint(L, vidx, p, "count", 0);
  } else { /* cbv, srv, uav */
    int given;
    static const D3D12_ROOT_PARAMETER_TYPE types[] = { D3D12_ROOT_PARAMETER_TYPE_CBV,
                                                       D3D12_ROOT_PARAMETER_TYPE_SRV,
                                                       D3D12_ROOT_PARAMETER_TYPE_UAV };
    expect_table(L, vidx, p, "a table { register = ..., space = ... }");
    check_keys(L, vidx, p, descriptor_keys);
    q->ParameterType = types[kind - 1];
    q->Descriptor.ShaderRegister = get_uint(L, vidx, p, "register", 0);
    q->Descriptor.RegisterSpace = get_uint(L, vidx, p, "space", 0);
    q->Descriptor.Flags = (D3D12_ROOT_DESCRIPTOR_FLAGS)get_flags(
        L, vidx, p, "flags", &psoc_enum_root_descriptor_flags, &given);
    no_flags_in_1_0(L, d, given, p);
  }
  lua_pop(L, 1);
}

static void read_sampler(lua_State *L, int idx, const char *path, D3D12_STATIC_SAMPLER_DESC *s) {
  uint32_t address;
  const psoc_enum *cmp = psoc_enum_find("D3D12_COMPARISON_FUNC");
  expect_table(L, idx, path, "a static sampler table");
  check_keys(L, idx, path, sampler_keys);
  s->ShaderRegister = get_uint(L, idx, path, "register", 0);
  s->RegisterSpace = get_uint(L, idx, path, "space", 0);
  s->ShaderVisibility = (D3D12_SHADER_VISIBILITY)get_enum(L, idx, path, "visibility",
                                                          &psoc_enum_shader_visibility, 0);
  s->Filter = (D3D12_FILTER)get_enum(L, idx, path, "filter", &psoc_enum_filter,
                                     D3D12_FILTER_ANISOTROPIC);
  address = get_enum(L, idx, path, "address", &psoc_enum_texture_address_mode,
                     D3D12_TEXTURE_ADDRESS_MODE_WRAP);
  s->AddressU = (D3D12_TEXTURE_ADDRESS_MODE)get_enum(L, idx, path, "address_u",
                                                     &psoc_enum_texture_address_mode, address);
  s->AddressV = (D3D12_TEXTURE_ADDRESS_MODE)get_enum(L, idx, path, "address_v",
                                                     &psoc_enum_texture_address_mode, address);
  s->AddressW = (D3D12_TEXTURE_ADDRESS_MODE)get_enum(L, idx, path, "address_w",
                                                     &psoc_enum_texture_address_mode, address);
  s->MipLODBias = get_float(L, idx, path, "mip_lod_bias", 0.0f);
  s->MaxAnisotropy = get_uint(L, idx, path, "max_anisotropy", 16);
  s->ComparisonFunc = (D3D12_COMPARISON_FUNC)(cmp ? get_enum(L, idx, path, "comparison", cmp,
                                                             D3D12_COMPARISON_FUNC_LESS_EQUAL)
                                                  : D3D12_COMPARISON_FUNC_LESS_EQUAL);
  s->BorderColor = (D3D12_STATIC_BORDER_COLOR)get_enum(
      L, idx, path, "border", &psoc_enum_static_border_color, D3D12_STATIC_BORDER_COLOR_OPAQUE_WHITE);
  s->MinLOD = get_float(L, idx, path, "min_lod", 0.0f);
  s->MaxLOD = get_float(L, idx, path, "max_lod", FLT_MAX);
}

/* ---- diagnostics in the language's spelling ----------------------------- */

static const struct {
  const char *c, *lua;
} member_names[] = {
  { "ShaderVisibility", "visibility" }, { "DescriptorTable", "table" },
  { "NumDescriptors", "count" },        { "Offset", "offset" },
  { "RegisterSpace", "space" },         { "Flags", "flags" },
  { "Num32BitValues", "count" },        { "Filter", "filter" },
  { "AddressU", "address_u" },          { "AddressV", "address_v" },
  { "AddressW", "address_w" },          { "MipLODBias", "mip_lod_bias" },
  { "MaxAnisotropy", "max_anisotropy" }, { "ComparisonFunc", "comparison" },
  { "BorderColor", "border" },          { "MinLOD", "min_lod" },
  { "MaxLOD", "max_lod" },              { "Version", "version" },
  { "Parameters", "parameters" },       { "StaticSamplers", "static_samplers" },
  { "Ranges", "table" },                { "RangeType", "" },
  { "ParameterType", "" },
};

typedef struct out_buf {
  char *p;
  size_t n, len;
} out_buf;

static void put(out_buf *o, const char *s, size_t len) {
  while (len-- && o->len + 1 < o->n) o->p[o->len++] = *s++;
  o->p[o->len] = '\0';
}

static int is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Rewrite psoc's paths ("Parameters[1].Ranges[0].NumDescriptors") into the
** declaration's ("parameters[2].table[1].srv.count") inside any text. */
static void to_language(const decl *d, const char *in, char *out, size_t n) {
  out_buf o;
  const char *s = in;
  long param = -1, range = -1; /* the indices just read */
  o.p = out, o.n = n, o.len = 0;
  out[0] = '\0';
  while (*s) {
    size_t w = 0, k, found = (size_t)-1;
    if (!is_word(*s) || (s > in && is_word(s[-1]))) {
      if (*s == ' ') param = range = -1;
      put(&o, s++, 1);
      continue;
    }
    while (is_word(s[w])) w++;
    for (k = 0; k < sizeof member_names / sizeof member_names[0]; k++)
      if (strlen(member_names[k].c) == w && strncmp(s, member_names[k].c, w) == 0) found = k;
    if (found == (size_t)-1 || (s > in && s[-1] != '.' && s[-1] != ' ' && s[-1] != '(' &&
                                found != 18 && found != 19)) {
      put(&o, s, w);
      s += w;
      continue;
    }
    {
      const char *lua = member_names[found].lua;
      int is_index = s[w] == '[';
      /* a member of a parameter or range: say which kind it is first */
      if (range >= 0 && param >= 0 && (uint32_t)param < d->np && !is_index) {
        const D3D12_ROOT_PARAMETER1 *q = &d->p1[param];
        if (q->ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE &&
            (uint32_t)range < q->DescriptorTable.NumDescriptorRanges) {
          uint32_t t = (uint32_t)q->DescriptorTable.pDescriptorRanges[range].RangeType;
          const char *kind = t < 4 ? range_kinds[t] : "?";
          if (o.len && o.p[o.len - 1] == '.' && !*lua) o.len--, o.p[o.len] = '\0';
          put(&o, kind, strlen(kind));
          if (*lua) put(&o, ".", 1);
        }
      } else if (param >= 0 && (uint32_t)param < d->np && !is_index && found != 1 && found != 0) {
        uint32_t t = (uint32_t)d->p1[param].ParameterType;
        const char *kind = t < 5 ? param_kinds[t] : "?";
        if (o.len && o.p[o.len - 1] == '.' && !*lua) o.len--, o.p[o.len] = '\0';
        put(&o, kind, strlen(kind));
        if (*lua) put(&o, ".", 1);
      } else if (!*lua && o.len && o.p[o.len - 1] == '.') {
        o.len--, o.p[o.len] = '\0';
      }
      put(&o, lua, strlen(lua));
      s += w;
      if (is_index) {
        char num[24];
        unsigned long v = strtoul(s + 1, NULL, 10);
        while (*s && *s != ']') s++;
        if (*s == ']') s++;
        snprintf(num, sizeof num, "[%lu]", v + 1);
        put(&o, num, strlen(num));
        if (found == 18) param = (long)v, range = -1;
        else if (found == 20) range = (long)v;
        else param = range = -1;
      } else {
        param = range = -1;
      }
    }
  }
}

/* ---- pso.root_signature ------------------------------------------------- */

static void *scratch(lua_State *L, size_t size) {
  void *p = pso_compat_newuserdata(L, size ? size : 1);
  memset(p, 0, size ? size : 1);
  return p;
}

typedef struct results {
  const psoc_rootsig_blob *blob;
  const psoc_diags *diags;
} results;

static int push_results(lua_State *L) {
  const results *r = lua_touserdata(L, 1);
  psoi_push_blob(L, PSOI_BLOB_DATA, r->blob->data, r->blob->size, NULL);
  psoi_push_diags(L, r->diags, 0); /* root-signature desc paths */
  return 2;
}

static int l_root_signature(lua_State *L) {
  decl d;
  D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc;
  psoc_rootsig_blob blob;
  psoc_diags diags;
  psoc_status st;
  psoi_ctx *ctx = psoi_context(L);
  const char *name = NULL;
  char p[192];
  int given, plist, slist, top;
  size_t i, np, ns;
  uint32_t next_range = 0;
  memset(&d, 0, sizeof d);
  if (lua_type(L, 1) != LUA_TTABLE)
    return rs_error(L, NULL, "expected a table { parameters = {...}, ... }, got %s",
                    luaL_typename(L, 1));
  lua_settop(L, 1);
  check_keys(L, 1, "", top_keys);
  if (field(L, 1, "name") != LUA_TNIL) {
    size_t len;
    if (lua_type(L, -1) != LUA_TSTRING) return rs_error(L, "name", "expected a string");
    name = lua_tolstring(L, -1, &len);
    if (len == 0 || strlen(name) != len) return rs_error(L, "name", "expected a non-empty name");
  }
  lua_pop(L, 1); /* the string stays reachable from the table at 1 */
  d.v11 = 1;
  if (field(L, 1, "version") != LUA_TNIL) {
    const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (lua_type(L, -1) == LUA_TNUMBER) {
      lua_Number x = lua_tonumber(L, -1);
      d.v11 = x == 1.1 ? 1 : x == 1.0 ? 0 : -1;
    } else if (v) {
      d.v11 = strcmp(v, "1.1") == 0 ? 1 : strcmp(v, "1.0") == 0 ? 0 : -1;
    } else {
      d.v11 = -1;
    }
    if (d.v11 < 0) return rs_error(L, "version", "expected \"1.0\" or \"1.1\"");
  }
  lua_pop(L, 1);
  d.flags = get_flags(L, 1, "", "flags", &psoc_enum_root_signature_flags, &given);
  np = get_list(L, 1, "", "parameters", p, sizeof p);
  plist = lua_gettop(L);
  ns = get_list(L, 1, "", "static_samplers", p, sizeof p);
  slist = lua_gettop(L);
  if (np > 0xffffu || ns > 0xffffu)
    return rs_error(L, np > 0xffffu ? "parameters" : "static_samplers", "too many entries");
  /* count the ranges */
  for (i = 1; i <= np; i++) {
    pso_compat_rawgeti(L, plist, (int)i);
    if (lua_type(L, -1) == LUA_TTABLE) {
      if (field(L, lua_gettop(L), "table") == LUA_TTABLE) d.nr += (uint32_t)lua_rawlen(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (d.nr > 0xffffffu) return rs_error(L, "parameters", "too many ranges");
  }
  d.np = (uint32_t)np;
  d.ns = (uint32_t)ns;
  d.p1 = scratch(L, np * sizeof *d.p1);
  d.r1 = scratch(L, d.nr * sizeof *d.r1);
  d.ss = scratch(L, ns * sizeof *d.ss);
  top = lua_gettop(L);
  for (i = 1; i <= np; i++) {
    snprintf(p, sizeof p, "parameters[%u]", (unsigned)i);
    pso_compat_rawgeti(L, plist, (int)i);
    read_param(L, lua_gettop(L), p, &d, (uint32_t)(i - 1), &next_range);
    lua_settop(L, top);
  }
  for (i = 1; i <= ns; i++) {
    snprintf(p, sizeof p, "static_samplers[%u]", (unsigned)i);
    pso_compat_rawgeti(L, slist, (int)i);
    read_sampler(L, lua_gettop(L), p, &d.ss[i - 1]);
    lua_settop(L, top);
  }
  memset(&desc, 0, sizeof desc);
  if (d.v11) {
    desc.Version = D3D_ROOT_SIGNATURE_VERSION_1_1;
    desc.Desc_1_1.NumParameters = d.np;
    desc.Desc_1_1.pParameters = d.np ? d.p1 : NULL;
    desc.Desc_1_1.NumStaticSamplers = d.ns;
    desc.Desc_1_1.pStaticSamplers = d.ns ? d.ss : NULL;
    desc.Desc_1_1.Flags = (D3D12_ROOT_SIGNATURE_FLAGS)d.flags;
  } else { /* the same declaration in the 1.0 structs (no flags were given) */
    uint32_t k;
    d.p0 = scratch(L, np * sizeof *d.p0);
    d.r0 = scratch(L, d.nr * sizeof *d.r0);
    for (k = 0; k < d.nr; k++) {
      d.r0[k].RangeType = d.r1[k].RangeType;
      d.r0[k].NumDescriptors = d.r1[k].NumDescriptors;
      d.r0[k].BaseShaderRegister = d.r1[k].BaseShaderRegister;
      d.r0[k].RegisterSpace = d.r1[k].RegisterSpace;
      d.r0[k].OffsetInDescriptorsFromTableStart = d.r1[k].OffsetInDescriptorsFromTableStart;
    }
    for (k = 0; k < d.np; k++) {
      d.p0[k].ParameterType = d.p1[k].ParameterType;
      d.p0[k].ShaderVisibility = d.p1[k].ShaderVisibility;
      if (d.p1[k].ParameterType == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE) {
        d.p0[k].DescriptorTable.NumDescriptorRanges = d.p1[k].DescriptorTable.NumDescriptorRanges;
        d.p0[k].DescriptorTable.pDescriptorRanges =
            d.p1[k].DescriptorTable.pDescriptorRanges
                ? d.r0 + (d.p1[k].DescriptorTable.pDescriptorRanges - d.r1)
                : NULL;
      } else if (d.p1[k].ParameterType == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS) {
        d.p0[k].Constants = d.p1[k].Constants;
      } else {
        d.p0[k].Descriptor.ShaderRegister = d.p1[k].Descriptor.ShaderRegister;
        d.p0[k].Descriptor.RegisterSpace = d.p1[k].Descriptor.RegisterSpace;
      }
    }
    desc.Version = D3D_ROOT_SIGNATURE_VERSION_1_0;
    desc.Desc_1_0.NumParameters = d.np;
    desc.Desc_1_0.pParameters = d.np ? d.p0 : NULL;
    desc.Desc_1_0.NumStaticSamplers = d.ns;
    desc.Desc_1_0.pStaticSamplers = d.ns ? d.ss : NULL;
    desc.Desc_1_0.Flags = (D3D12_ROOT_SIGNATURE_FLAGS)d.flags;
  }
  psoc_diags_init(&diags, &ctx->alloc);
  st = psoc_rootsig_serialize(&desc, &ctx->alloc, &diags, &blob);
  for (i = 0; i < diags.count; i++) {
    char text[PSOC_DIAG_MESSAGE_MAX], path[PSOC_DIAG_FIELD_MAX];
    to_language(&d, diags.items[i].field, path, sizeof path);
    to_language(&d, diags.items[i].message, text, sizeof text);
    memcpy(diags.items[i].field, path, sizeof path);
    memcpy(diags.items[i].message, text, sizeof text);
  }
  if (st != PSOC_OK) {
    char msg[PSOC_DIAG_FIELD_MAX + PSOC_DIAG_MESSAGE_MAX + 8];
    const psoc_diag *e = NULL;
    for (i = 0; i < diags.count && !e; i++)
      if (diags.items[i].severity == PSOC_SEVERITY_ERROR) e = &diags.items[i];
    if (e)
      snprintf(msg, sizeof msg, "%s%s%s", e->field, e->field[0] ? ": " : "", e->message);
    else
      snprintf(msg, sizeof msg, "%s", st == PSOC_ERR_NOMEM ? "not enough memory"
                                                           : psoc_status_name(st));
    psoc_diags_free(&diags);
    return rs_error(L, NULL, "%s", msg);
  }
  lua_settop(L, 1);
  {
    results r;
    int rc;
    r.blob = &blob;
    r.diags = &diags;
    lua_pushcfunction(L, push_results);
    lua_pushlightuserdata(L, &r);
    rc = lua_pcall(L, 1, 2, 0); /* a memory error must not leak what psoc holds */
    psoc_rootsig_blob_free(&blob);
    psoc_diags_free(&diags);
    if (rc != 0) return lua_error(L);
  }
  if (name) { /* 2: blob, 3: warnings */
    lua_pushlightuserdata(L, (void *)&named_key);
    lua_rawget(L, LUA_REGISTRYINDEX);
    if (lua_type(L, -1) != LUA_TTABLE) {
      lua_pop(L, 1);
      lua_newtable(L);
      lua_pushlightuserdata(L, (void *)&named_key);
      lua_pushvalue(L, -2);
      lua_rawset(L, LUA_REGISTRYINDEX);
    }
    lua_pushstring(L, name);
    if (pso_compat_rawget(L, -2) != LUA_TNIL)
      return rs_error(L, "name", "a root signature named '%s' is already declared", name);
    lua_pop(L, 1);
    lua_pushstring(L, name);
    lua_pushvalue(L, 2);
    lua_rawset(L, -3);
    lua_pop(L, 1);
  }
  return 2;
}

const void *pso_named_root_signature(lua_State *L, const char *name, size_t *size) {
  const void *data = NULL;
  if (size) *size = 0;
  if (!L || !name) return NULL;
  lua_pushlightuserdata(L, (void *)&named_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_pushstring(L, name);
    pso_compat_rawget(L, -2);
    if (lua_type(L, -1) == LUA_TUSERDATA) {
      const psoi_blob *b = lua_touserdata(L, -1);
      data = b->data;
      if (size) *size = b->size;
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return data;
}

static int l_named_root_signature(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_pushlightuserdata(L, (void *)&named_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  if (lua_type(L, -1) != LUA_TTABLE) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushstring(L, name);
  pso_compat_rawget(L, -2);
  return 1;
}

/* ---- pso.root_signature_desc(blob) ------------------------------------- */

static void set_uint(lua_State *L, const char *key, uint32_t v) {
  pso_compat_pushuint(L, v);
  lua_setfield(L, -2, key);
}

static void set_str(lua_State *L, const char *key, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, -2, key);
}

static void set_enum(lua_State *L, const char *key, const psoc_enum *e, uint32_t v) {
  const psoc_enum_value *ev = psoc_enum_value_by_value(e, v);
  if (ev) set_str(L, key, ev->key);
  else set_uint(L, key, v);
}

/* flags as a list of keys (unknown bits as one number at the end) */
static void set_flags(lua_State *L, const char *key, const psoc_enum *e, uint32_t v) {
  uint32_t i;
  int n = 0;
  if (!v) return;
  lua_newtable(L);
  for (i = 0; i < e->count; i++)
    if (v & e->values[i].value) {
      lua_pushstring(L, e->values[i].key);
      lua_rawseti(L, -2, ++n);
      v &= ~e->values[i].value;
    }
  if (v) {
    pso_compat_pushuint(L, v);
    lua_rawseti(L, -2, ++n);
  }
  lua_setfield(L, -2, key);
}

static int push_desc(lua_State *L);

static int l_root_signature_desc(lua_State *L) {
  const psoi_blob *b = psoi_toblob(L, 1, 0);
  psoc_rootsig *rs = NULL;
  psoc_diags diags;
  psoi_ctx *ctx = psoi_context(L);
  int rc;
  if (!b) return psoi_error(L, "pso.root_signature_desc: expected a blob, got %s",
                            luaL_typename(L, 1));
  psoc_diags_init(&diags, &ctx->alloc);
  if (psoc_rootsig_parse(b->data, b->size, &ctx->alloc, &rs, &diags) != PSOC_OK) {
    char msg[PSOC_DIAG_FIELD_MAX + PSOC_DIAG_MESSAGE_MAX + 8];
    snprintf(msg, sizeof msg, "%s%s%s", diags.count ? diags.items[0].field : "",
             diags.count && diags.items[0].field[0] ? ": " : "",
             diags.count ? diags.items[0].message : "not enough memory");
    psoc_diags_free(&diags);
    return psoi_error(L, "pso.root_signature_desc: %s", msg);
  }
  psoc_diags_free(&diags);
  lua_pushcfunction(L, push_desc);
  lua_pushlightuserdata(L, (void *)psoc_rootsig_desc(rs));
  rc = lua_pcall(L, 1, 1, 0); /* a memory error must not leak rs */
  psoc_rootsig_free(rs);
  if (rc != 0) return lua_error(L);
  return 1;
}

static int push_desc(lua_State *L) {
  const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d = lua_touserdata(L, 1);
  const psoc_enum *cmp = psoc_enum_find("D3D12_COMPARISON_FUNC");
  uint32_t i, j, np, ns, flags;
  int v11;
  v11 = d->Version == D3D_ROOT_SIGNATURE_VERSION_1_1;
  np = v11 ? d->Desc_1_1.NumParameters : d->Desc_1_0.NumParameters;
  ns = v11 ? d->Desc_1_1.NumStaticSamplers : d->Desc_1_0.NumStaticSamplers;
  flags = (uint32_t)(v11 ? d->Desc_1_1.Flags : d->Desc_1_0.Flags);
  lua_newtable(L);
  set_str(L, "version", v11 ? "1.1" : "1.0");
  set_flags(L, "flags", &psoc_enum_root_signature_flags, flags);
  lua_createtable(L, (int)np, 0);
  for (i = 0; i < np; i++) {
    uint32_t type, vis;
    lua_newtable(L);
    if (v11) type = (uint32_t)d->Desc_1_1.pParameters[i].ParameterType,
             vis = (uint32_t)d->Desc_1_1.pParameters[i].ShaderVisibility;
    else type = (uint32_t)d->Desc_1_0.pParameters[i].ParameterType,
         vis = (uint32_t)d->Desc_1_0.pParameters[i].ShaderVisibility;
    if (vis) set_enum(L, "visibility", &psoc_enum_shader_visibility, vis);
    lua_newtable(L);
    if (type == 0) {
      uint32_t nr = v11 ? d->Desc_1_1.pParameters[i].DescriptorTable.NumDescriptorRanges
                        : d->Desc_1_0.pParameters[i].DescriptorTable.NumDescriptorRanges;
      for (j = 0; j < nr; j++) {
        uint32_t rt, count, base, space, off, rflags = 0;
        if (v11) {
          const D3D12_DESCRIPTOR_RANGE1 *r = &d->Desc_1_1.pParameters[i].DescriptorTable.pDescriptorRanges[j];
          rt = (uint32_t)r->RangeType, count = r->NumDescriptors, base = r->BaseShaderRegister;
          space = r->RegisterSpace, off = r->OffsetInDescriptorsFromTableStart;
          rflags = (uint32_t)r->Flags;
        } else {
          const D3D12_DESCRIPTOR_RANGE *r = &d->Desc_1_0.pParameters[i].DescriptorTable.pDescriptorRanges[j];
          rt = (uint32_t)r->RangeType, count = r->NumDescriptors, base = r->BaseShaderRegister;
          space = r->RegisterSpace, off = r->OffsetInDescriptorsFromTableStart;
        }
        lua_newtable(L);
        lua_newtable(L);
        set_uint(L, "register", base);
        if (space) set_uint(L, "space", space);
        if (count == UINT32_MAX) set_str(L, "count", "unbounded");
        else if (count != 1) set_uint(L, "count", count);
        if (off != D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND) set_uint(L, "offset", off);
        set_flags(L, "flags", &psoc_enum_descriptor_range_flags, rflags);
        lua_setfield(L, -2, rt < 4 ? range_kinds[rt] : "unknown");
        lua_rawseti(L, -2, (int)j + 1);
      }
    } else if (type == 1) {
      const D3D12_ROOT_CONSTANTS *k = v11 ? &d->Desc_1_1.pParameters[i].Constants
                                          : &d->Desc_1_0.pParameters[i].Constants;
      set_uint(L, "register", k->ShaderRegister);
      if (k->RegisterSpace) set_uint(L, "space", k->RegisterSpace);
      set_uint(L, "count", k->Num32BitValues);
    } else {
      uint32_t reg = v11 ? d->Desc_1_1.pParameters[i].Descriptor.ShaderRegister
                         : d->Desc_1_0.pParameters[i].Descriptor.ShaderRegister;
      uint32_t space = v11 ? d->Desc_1_1.pParameters[i].Descriptor.RegisterSpace
                           : d->Desc_1_0.pParameters[i].Descriptor.RegisterSpace;
      set_uint(L, "register", reg);
      if (space) set_uint(L, "space", space);
      if (v11) set_flags(L, "flags", &psoc_enum_root_descriptor_flags,
                         (uint32_t)d->Desc_1_1.pParameters[i].Descriptor.Flags);
    }
    lua_setfield(L, -2, type < 5 ? param_kinds[type] : "unknown");
    lua_rawseti(L, -2, (int)i + 1);
  }
  lua_setfield(L, -2, "parameters");
  lua_createtable(L, (int)ns, 0);
  for (i = 0; i < ns; i++) {
    const D3D12_STATIC_SAMPLER_DESC *s = v11 ? &d->Desc_1_1.pStaticSamplers[i]
                                             : &d->Desc_1_0.pStaticSamplers[i];
    lua_newtable(L);
    set_uint(L, "register", s->ShaderRegister);
    set_uint(L, "space", s->RegisterSpace);
    set_enum(L, "visibility", &psoc_enum_shader_visibility, (uint32_t)s->ShaderVisibility);
    set_enum(L, "filter", &psoc_enum_filter, (uint32_t)s->Filter);
    set_enum(L, "address_u", &psoc_enum_texture_address_mode, (uint32_t)s->AddressU);
    set_enum(L, "address_v", &psoc_enum_texture_address_mode, (uint32_t)s->AddressV);
    set_enum(L, "address_w", &psoc_enum_texture_address_mode, (uint32_t)s->AddressW);
    lua_pushnumber(L, (lua_Number)s->MipLODBias);
    lua_setfield(L, -2, "mip_lod_bias");
    set_uint(L, "max_anisotropy", s->MaxAnisotropy);
    if (cmp) set_enum(L, "comparison", cmp, (uint32_t)s->ComparisonFunc);
    set_enum(L, "border", &psoc_enum_static_border_color, (uint32_t)s->BorderColor);
    lua_pushnumber(L, (lua_Number)s->MinLOD);
    lua_setfield(L, -2, "min_lod");
    lua_pushnumber(L, (lua_Number)s->MaxLOD);
    lua_setfield(L, -2, "max_lod");
    lua_rawseti(L, -2, (int)i + 1);
  }
  lua_setfield(L, -2, "static_samplers");
  return 1;
}

void psoi_open_rootsig(lua_State *L, int module_idx) {
  lua_pushcfunction(L, l_root_signature);
  lua_setfield(L, module_idx, "root_signature");
  lua_pushcfunction(L, l_root_signature_desc);
  lua_setfield(L, module_idx, "root_signature_desc");
  lua_pushcfunction(L, l_named_root_signature);
  lua_setfield(L, module_idx, "named_root_signature");
}
