/*
** gen_annotations.c: print LuaLS / EmmyLua annotations of the material
** language (the `pso` module) from psoc's registry, so that an editor
** completes subobject keys, field keys and enum names and flags typos.
**
**   psoc_gen_annotations               print to stdout
**   psoc_gen_annotations -o FILE       write FILE
**   psoc_gen_annotations --check FILE  exit 1 (and say where) when FILE is
**                                      not what would be printed
**
** The committed copy is scripts/types/pso.lua; scripts/test.sh runs the
** check, and scripts/types/check.lua loads the module under each Lua and
** verifies that it accepts every key and enum name written there.
**
** Everything below is generic over the registry (subobject rows, field
** descriptors, enum tables), as pso_convert.c is. What is not in the
** registry is written here once and marked "language:":
**   - the module's functions and the pipeline methods (pso.c, pso_pipeline.c)
**   - the built-in presets (pso_presets.c)
**   - the shorthands listed at the top of pso_convert.c
**   - which shader decides the pipeline kind (vs, cs, ms)
** check.lua catches drift of the first two; the shorthands are exercised by
** the Lua suites.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enums.h"
#include "psoc.h"

/* ------------------------------------------------------------------ */
/* Output buffer                                                        */
/* ------------------------------------------------------------------ */

typedef struct buf {
  char *data;
  size_t len, cap;
  int failed;
} buf;

static void out(buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void out(buf *b, const char *fmt, ...) {
  va_list ap;
  int n;
  if (b->failed) return;
  for (;;) {
    size_t room = b->cap - b->len;
    va_start(ap, fmt);
    n = vsnprintf(b->data ? b->data + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->failed = 1;
      return;
    }
    if ((size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    {
      size_t cap = b->cap ? b->cap * 2 : 65536;
      char *p;
      while (cap - b->len <= (size_t)n) cap *= 2;
      p = realloc(b->data, cap);
      if (!p) {
        b->failed = 1;
        return;
      }
      b->data = p;
      b->cap = cap;
    }
  }
}

/* ------------------------------------------------------------------ */
/* Names                                                                */
/* ------------------------------------------------------------------ */

#define NAME_MAX_ 160

static void upper(const char *s, char *o, size_t n) {
  size_t i;
  for (i = 0; s[i] && i + 1 < n; i++) o[i] = (s[i] >= 'a' && s[i] <= 'z') ? (char)(s[i] - 32) : s[i];
  o[i] = '\0';
}

/* Type name of a struct class: pso.struct.D3D12_RASTERIZER_DESC */
static void struct_type(const psoc_struct *s, char *o, size_t n) {
  size_t i, len;
  snprintf(o, n, "pso.struct.%s", s->name);
  len = strlen(o);
  for (i = 0; i < len; i++)
    if (!((o[i] >= 'A' && o[i] <= 'Z') || (o[i] >= 'a' && o[i] <= 'z') ||
          (o[i] >= '0' && o[i] <= '9') || o[i] == '_' || o[i] == '.'))
      o[i] = '_';
}

static const char *kind_list(uint32_t kinds, char *o, size_t n) {
  size_t len = 0;
  int k;
  o[0] = '\0';
  for (k = PSOC_KIND_GRAPHICS; k <= PSOC_KIND_MESH; k++)
    if (kinds & PSOC_KIND_BIT(k))
      len += (size_t)snprintf(o + len, n - len, "%s%s", len ? ", " : "", psoc_kind_name((psoc_kind)k));
  return o;
}

/* ------------------------------------------------------------------ */
/* Registry helpers (the same generic rules as pso_convert.c)           */
/* ------------------------------------------------------------------ */

/* Index of the only field besides COUNT fields, or -1. */
static int single_field(const psoc_struct *s) {
  int idx = -1;
  uint32_t i;
  for (i = 0; i < s->field_count; i++) {
    if (s->fields[i].kind == PSOC_FIELD_COUNT) continue;
    if (idx >= 0) return -1;
    idx = (int)i;
  }
  return idx;
}

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

/* The types of a duplicate class, in version order (registry order). */
static int class_types(uint32_t cls, uint32_t *types, int max) {
  int n = 0;
  uint32_t t;
  for (t = 0; t < PSOC_SO_TYPE_COUNT && n < max; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    if (info && info->dup_class == cls) types[n++] = t;
  }
  return n;
}

/* language: the element struct of input_layout takes semantic [1] and
** format [2] by position (pso_convert.c, "Shorthands"). */
static const psoc_struct *input_element(void) {
  const psoc_subobject_info *info = psoc_subobject_info_get(PSOC_SO_INPUT_LAYOUT);
  uint32_t i;
  if (!info) return NULL;
  for (i = 0; i < info->payload->field_count; i++)
    if (info->payload->fields[i].kind == PSOC_FIELD_ARRAY && info->payload->fields[i].element)
      return info->payload->fields[i].element;
  return NULL;
}

/* ------------------------------------------------------------------ */
/* Enumerations                                                         */
/* ------------------------------------------------------------------ */


static void emit_enum(buf *b, const psoc_enum *e) {
  uint32_t i;
  char up[NAME_MAX_];
  out(b, "\n---%s: %s names (%u values). Short lowercase names, the same in upper case,\n"
         "---and the full %s names are all accepted (case does not matter).\n",
      e->name, e->is_flags ? "flag" : "enum", (unsigned)e->count,
      strncmp(e->name, "DXGI", 4) == 0 ? "DXGI" : "D3D12");
  out(b, "---@alias pso.enum.%s\n", e->key);
  for (i = 0; i < e->count; i++) {
    const psoc_enum_value *v = &e->values[i];
    out(b, "---| \"%s\" # %s = %s%x\n", v->key, v->name, e->is_flags ? "0x" : "", v->value);
  }
  for (i = 0; i < e->count; i++) {
    upper(e->values[i].key, up, sizeof up);
    if (strcmp(up, e->values[i].key) != 0) out(b, "---| \"%s\"\n", up);
  }
  for (i = 0; i < e->count; i++) out(b, "---| \"%s\"\n", e->values[i].name);
}

/* The type written for an enum field. */
static void enum_type(const psoc_enum *e, char *o, size_t n) {
  if (e->is_flags)
    snprintf(o, n, "pso.flags.%s", e->key);
  else if (e == &psoc_enum_depth_write_mask) /* language: write = true/false */
    snprintf(o, n, "pso.enum.%s|boolean", e->key);
  else
    snprintf(o, n, "pso.enum.%s", e->key);
}

static void emit_flags_aliases(buf *b) {
  size_t i;
  out(b, "\n-- Flags: a name, a list of names, a string \"a|b\" or an integer.\n"
         "-- (Editors check the name and list forms; \"a|b\" strings are accepted by pso\n"
         "-- but are not in these aliases, so prefer a list.)\n");
  for (i = 0; i < psoc_enum_all_count; i++) {
    const psoc_enum *e = psoc_enum_all[i];
    if (!e->is_flags) continue;
    if (e == &psoc_enum_color_write)
      out(b, "---@alias pso.flags.%s pso.enum.%s|pso.enum.%s[]|pso.color_letters|integer\n", e->key,
          e->key, e->key);
    else
      out(b, "---@alias pso.flags.%s pso.enum.%s|pso.enum.%s[]|integer\n", e->key, e->key, e->key);
  }
  /* language: write_mask = "rgb" (letters r, g, b, a) */
  out(b, "\n---write_mask shorthand: the channels as letters (\"rgb\", \"a\", ...).\n"
         "---@alias pso.color_letters\n");
  for (i = 1; i < 16; i++) {
    char s[5];
    size_t n = 0;
    if (i & 1) s[n++] = 'r';
    if (i & 2) s[n++] = 'g';
    if (i & 4) s[n++] = 'b';
    if (i & 8) s[n++] = 'a';
    s[n] = '\0';
    out(b, "---| \"%s\"\n", s);
  }
}

/* ------------------------------------------------------------------ */
/* Field types                                                          */
/* ------------------------------------------------------------------ */

static void scalar_type(uint8_t kind, const psoc_enum *e, char *o, size_t n) {
  switch (kind) {
  case PSOC_FIELD_UINT:
  case PSOC_FIELD_INT:
  case PSOC_FIELD_COUNT: snprintf(o, n, "integer"); break;
  case PSOC_FIELD_BOOL: snprintf(o, n, "boolean"); break;
  case PSOC_FIELD_FLOAT: snprintf(o, n, "number"); break;
  case PSOC_FIELD_ENUM:
  case PSOC_FIELD_FLAGS: enum_type(e, o, n); break;
  default: snprintf(o, n, "any"); break;
  }
}

static void field_type(const psoc_field *f, char *o, size_t n) {
  char t[NAME_MAX_];
  switch (f->kind) {
  case PSOC_FIELD_STRUCT: struct_type(f->element, o, n); break;
  case PSOC_FIELD_FIXED:
  case PSOC_FIELD_ARRAY:
    if (f->element)
      struct_type(f->element, t, sizeof t);
    else
      scalar_type(f->element_kind, f->enumeration, t, sizeof t);
    if (strchr(t, '|'))
      snprintf(o, n, "(%s)[]", t);
    else
      snprintf(o, n, "%s[]", t);
    break;
  case PSOC_FIELD_BLOB: /* language: "code" holds a shader, other blobs pso.blob */
    snprintf(o, n, "%s", strcmp(f->key, "code") == 0 ? "pso.Shader" : "pso.Blob");
    break;
  case PSOC_FIELD_STRING: snprintf(o, n, "string"); break;
  case PSOC_FIELD_OBJECT: snprintf(o, n, "string|lightuserdata"); break;
  default: scalar_type(f->kind, f->enumeration, o, n); break;
  }
}

/* ------------------------------------------------------------------ */
/* Struct classes                                                       */
/* ------------------------------------------------------------------ */

#define MAX_STRUCTS 64

typedef struct seen {
  const psoc_struct *items[MAX_STRUCTS];
  int count;
} seen;

static int seen_add(seen *s, const psoc_struct *st) {
  int i;
  for (i = 0; i < s->count; i++)
    if (s->items[i] == st) return 0;
  if (s->count == MAX_STRUCTS) return 0;
  s->items[s->count++] = st;
  return 1;
}

static void emit_field_lines(buf *b, const psoc_struct *s, const psoc_field *f, const char *note) {
  char t[NAME_MAX_ * 2];
  field_type(f, t, sizeof t);
  out(b, "---@field %s? %s %s.%s%s\n", f->key, t, s->name, f->name, note);
}

static void emit_member_names(buf *b, const psoc_field *f) {
  char t[NAME_MAX_ * 2];
  if (strcmp(f->name, f->key) == 0) return;
  field_type(f, t, sizeof t);
  out(b, "---@field %s? %s same as `%s`\n", f->name, t, f->key);
}

static void emit_struct(buf *b, seen *done, const psoc_struct *s) {
  char name[NAME_MAX_];
  uint32_t i;
  int ft;
  if (!seen_add(done, s)) return;
  struct_type(s, name, sizeof name);
  ft = fallthrough_field(s);
  out(b, "\n---%s. Keys or the D3D12 member names; every field is optional (the\n"
         "---runtime's default applies).",
      s->name);
  if (ft >= 0)
    out(b, " The keys of one %s may be given directly:\n---they apply to %s[1].",
        s->fields[ft].element->name, s->fields[ft].key);
  out(b, "\n---@class (exact) %s\n", name);
  if (s == input_element()) { /* language: positional semantic and format */
    out(b, "---@field [1] string semantic, by position: { \"POSITION\", \"R32G32B32_FLOAT\" }\n");
    out(b, "---@field [2] pso.enum.%s format, by position\n", psoc_enum_dxgi_format.key);
  }
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    if (f->kind == PSOC_FIELD_COUNT) continue; /* implied by its list */
    emit_field_lines(b, s, f, "");
  }
  if (ft >= 0) {
    const psoc_struct *e = s->fields[ft].element;
    for (i = 0; i < e->field_count; i++) {
      if (e->fields[i].kind == PSOC_FIELD_COUNT) continue;
      emit_field_lines(b, e, &e->fields[i], " (of render target 1)");
    }
  }
  for (i = 0; i < s->field_count; i++)
    if (s->fields[i].kind != PSOC_FIELD_COUNT) emit_member_names(b, &s->fields[i]);
  if (ft >= 0) {
    const psoc_struct *e = s->fields[ft].element;
    for (i = 0; i < e->field_count; i++)
      if (e->fields[i].kind != PSOC_FIELD_COUNT) emit_member_names(b, &e->fields[i]);
  }
  for (i = 0; i < s->field_count; i++)
    if (s->fields[i].element) emit_struct(b, done, s->fields[i].element);
  if (ft >= 0) {
    const psoc_struct *e = s->fields[ft].element;
    for (i = 0; i < e->field_count; i++)
      if (e->fields[i].element) emit_struct(b, done, e->fields[i].element);
  }
}

/* ------------------------------------------------------------------ */
/* Merged classes: `rasterizer` and `depth_stencil` take the keys of    */
/* every version and pick the oldest version that has them all          */
/* ------------------------------------------------------------------ */

#define MAX_VERSIONS 4

/* Types of the same key across versions differ: a number for INT/FLOAT,
** a merged class for structs, else a union. */
static void merged_field_type(const psoc_field *const *fs, int nf, const char *merged_name,
                              char *o, size_t n) {
  char first[NAME_MAX_ * 2], t[NAME_MAX_ * 2];
  int i, same = 1, numeric = 1, structs = 1;
  field_type(fs[0], first, sizeof first);
  for (i = 0; i < nf; i++) {
    field_type(fs[i], t, sizeof t);
    if (strcmp(t, first) != 0) same = 0;
    if (fs[i]->kind != PSOC_FIELD_INT && fs[i]->kind != PSOC_FIELD_UINT &&
        fs[i]->kind != PSOC_FIELD_FLOAT)
      numeric = 0;
    if (fs[i]->kind != PSOC_FIELD_STRUCT) structs = 0;
  }
  if (same)
    snprintf(o, n, "%s", first);
  else if (numeric)
    snprintf(o, n, "number");
  else if (structs)
    snprintf(o, n, "%s", merged_name);
  else {
    size_t len = 0;
    o[0] = '\0';
    for (i = 0; i < nf; i++) {
      field_type(fs[i], t, sizeof t);
      if (!strstr(o, t)) len += (size_t)snprintf(o + len, n - len, "%s%s", len ? "|" : "", t);
    }
  }
}

static const psoc_field *find_key(const psoc_struct *s, const char *key) {
  uint32_t i;
  for (i = 0; s && i < s->field_count; i++)
    if (strcmp(s->fields[i].key, key) == 0) return &s->fields[i];
  return NULL;
}

static const psoc_field *find_name(const psoc_struct *s, const char *name) {
  uint32_t i;
  for (i = 0; s && i < s->field_count; i++)
    if (strcmp(s->fields[i].name, name) == 0) return &s->fields[i];
  return NULL;
}

/* vs[j]: the struct of version j (NULL where the version lacks it);
** vkeys[j]: the version's subobject key, for the notes. */
static void emit_merged(buf *b, const char *name, const char *title,
                        const psoc_struct *const *vs, const char *const *vkeys, int nv) {
  int j, k, pass;
  uint32_t i;
  /* nested merged structs first (their names are needed below) */
  out(b, "\n---%s: the keys of every version; the oldest version that has every key\n"
         "---given (and can hold every value) is picked.\n---@class (exact) %s\n",
      title, name);
  for (pass = 0; pass < 2; pass++) { /* 0: keys, 1: D3D12 member names */
    const char *done[64];
    int ndone = 0;
    for (j = 0; j < nv; j++) {
      if (!vs[j]) continue;
      for (i = 0; i < vs[j]->field_count; i++) {
        const psoc_field *f = &vs[j]->fields[i], *fs[MAX_VERSIONS];
        const char *id = pass == 0 ? f->key : f->name;
        char sub[NAME_MAX_], t[NAME_MAX_ * 2], have[NAME_MAX_];
        size_t hl = 0;
        int nf = 0, dup = 0;
        if (f->kind == PSOC_FIELD_COUNT) continue;
        if (pass == 1 && strcmp(f->name, f->key) == 0) continue;
        for (k = 0; k < ndone; k++)
          if (strcmp(done[k], id) == 0) dup = 1;
        if (dup || ndone == 64) continue;
        done[ndone++] = id;
        have[0] = '\0';
        for (k = 0; k < nv; k++) {
          const psoc_field *g = vs[k] ? (pass == 0 ? find_key(vs[k], id) : find_name(vs[k], id)) : NULL;
          if (!g) continue;
          fs[nf++] = g;
          hl += (size_t)snprintf(have + hl, sizeof have - hl, "%s%s", hl ? ", " : "", vkeys[k]);
        }
        snprintf(sub, sizeof sub, "%s.%s", name, f->key);
        merged_field_type(fs, nf, sub, t, sizeof t);
        if (pass == 1)
          out(b, "---@field %s? %s same as `%s`\n", id, t, f->key);
        else if (nf < nv)
          out(b, "---@field %s? %s %s (%s)\n", id, t, f->name, have);
        else
          out(b, "---@field %s? %s %s\n", id, t, f->name);
      }
    }
  }
  /* merged nested records */
  for (j = 0; j < nv; j++) {
    if (!vs[j]) continue;
    for (i = 0; i < vs[j]->field_count; i++) {
      const psoc_field *f = &vs[j]->fields[i];
      const psoc_struct *subs[MAX_VERSIONS];
      const char *subkeys[MAX_VERSIONS];
      char sub[NAME_MAX_], ttl[NAME_MAX_ * 2];
      int distinct = 0, first_owner = -1;
      if (f->kind != PSOC_FIELD_STRUCT) continue;
      for (k = 0; k < nv; k++) {
        const psoc_field *g = vs[k] ? find_key(vs[k], f->key) : NULL;
        subs[k] = g && g->kind == PSOC_FIELD_STRUCT ? g->element : NULL;
        subkeys[k] = vkeys[k];
        if (subs[k] && first_owner < 0) first_owner = k;
        if (subs[k] && subs[k] != f->element) distinct = 1;
      }
      if (!distinct || first_owner != j) continue; /* one struct: its own class */
      snprintf(sub, sizeof sub, "%s.%s", name, f->key);
      snprintf(ttl, sizeof ttl, "%s.%s", title, f->key);
      emit_merged(b, sub, ttl, subs, subkeys, nv);
    }
  }
}

/* ------------------------------------------------------------------ */
/* Subobject values and the declaration classes                         */
/* ------------------------------------------------------------------ */

static int is_class_base_with_versions(const psoc_subobject_info *info) {
  uint32_t types[MAX_VERSIONS];
  return info->dup_class == info->type && class_types(info->type, types, MAX_VERSIONS) > 1;
}

/* The type of a subobject's value in a declaration. */
static void subobject_type(const psoc_subobject_info *info, char *o, size_t n) {
  const psoc_struct *s = info->payload;
  int single = single_field(s);
  char t[NAME_MAX_ * 2];
  if (is_class_base_with_versions(info))
    snprintf(t, sizeof t, "pso.decl.%s", info->key);
  else if (single >= 0)
    field_type(&s->fields[single], t, sizeof t);
  else
    struct_type(s, t, sizeof t);
  /* language shorthands (pso_convert.c) */
  if (info->type == PSOC_SO_RENDER_TARGET_FORMATS)
    snprintf(o, n, "pso.enum.%s[]|%s", psoc_enum_dxgi_format.key, t);
  else if (info->type == PSOC_SO_SAMPLE_DESC)
    snprintf(o, n, "integer|%s", t);
  else
    snprintf(o, n, "%s", t);
}

static const char *shorthand_note(uint32_t type) {
  switch (type) { /* language: pso_convert.c, "Shorthands" */
  case PSOC_SO_RENDER_TARGET_FORMATS: return " A list of formats: { \"R8G8B8A8_UNORM\", ... }.";
  case PSOC_SO_SAMPLE_DESC: return " A number is the sample count: sample_desc = 4.";
  case PSOC_SO_INPUT_LAYOUT: return " A list of elements: { \"POSITION\", \"R32G32B32_FLOAT\" }, ...";
  case PSOC_SO_ROOT_SIGNATURE: return " A name the engine resolves, or a pointer.";
  default: return "";
  }
}

/* A pipeline declaration per kind; the shader that decides the kind
** (psoc_kind_shader) is its one required field. */
static void emit_decl(buf *b, psoc_kind kind) {
  uint32_t t;
  char kinds[64];
  if (kind == PSOC_KIND_NONE) {
    out(b, "\n---The overrides of pso.derive(base, overrides): `name` is required; records\n"
           "---merge key by key, lists and scalars replace, pso.none removes a subobject.\n"
           "---@class (exact) pso.decl.overrides\n"
           "---@field name string the new pipeline's name\n");
  } else {
    out(b, "\n---The table given to pso.%s { ... }.\n---@class (exact) pso.decl.%s\n"
           "---@field name? string the pipeline's name (explain, diff and the engine see it)\n",
        psoc_kind_name(kind), psoc_kind_name(kind));
  }
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    char type[NAME_MAX_ * 4];
    if (!info) continue;
    if (kind != PSOC_KIND_NONE && !(info->kinds & PSOC_KIND_BIT(kind))) continue;
    subobject_type(info, type, sizeof type);
    out(b, "---@field %s%s %s|pso.None %s (%s) in %s pipelines.%s\n", info->key,
        (kind != PSOC_KIND_NONE && psoc_kind_shader(kind) == t) ? "" : "?", type, info->name,
        info->payload->name, kind_list(info->kinds, kinds, sizeof kinds), shorthand_note(t));
  }
}

/* ------------------------------------------------------------------ */
/* The module (language: pso.c, pso_pipeline.c, pso_presets.c)          */
/* ------------------------------------------------------------------ */

static const char module_head[] =
  "\n-- The module ------------------------------------------------------------------\n"
  "\n---A shader loaded with pso.shader (read-only).\n"
  "---@class (exact) pso.Shader: userdata\n"
  "---@field bytes string the bytecode\n"
  "---@field size integer\n"
  "---@field file string? the file it was read from\n"
  "---@field kind \"shader\"\n"
  "\n---Bytes loaded with pso.blob, for cached_pso and serialized_root_signature (read-only).\n"
  "---@class (exact) pso.Blob: userdata\n"
  "---@field bytes string\n"
  "---@field size integer\n"
  "---@field file string?\n"
  "---@field kind \"blob\"\n"
  "\n---pso.none: \"remove / not given\" (in pso.derive overrides).\n"
  "---@class pso.None: userdata\n"
  "\n---@alias pso.kind \"graphics\"|\"compute\"|\"mesh\"\n"
  "\n---One diagnostic of psoc_check.\n"
  "---@class pso.Diag\n"
  "---@field severity \"error\"|\"warning\"|\"note\"\n"
  "---@field code string stable code, e.g. \"PSOC_DUPLICATE_SUBOBJECT\"\n"
  "---@field message_id string? D3D12 debug-layer ID name, without D3D12_MESSAGE_ID_\n"
  "---@field field string? e.g. \"RASTERIZER.CullMode\"\n"
  "---@field message string\n"
  "---@field subobject integer? index in the stream\n"
  "---@field offset integer? byte offset in the stream\n"
  "\n---@alias pso.FileOrBytes string|{ file: string }|{ bytes: string }\n";

static const char module_funcs[] =
  "\n---@class pso\n"
  "---@field version string psoc's version, e.g. \"0.1.0\"\n"
  "---@field APPEND_ALIGNED integer D3D12_APPEND_ALIGNED_ELEMENT (an input element's default offset)\n"
  "---@field none pso.None removes a subobject in pso.derive overrides\n"
  "---@field blend pso.presets.blend\n"
  "---@field rasterizer pso.presets.rasterizer\n"
  "---@field depth pso.presets.depth\n"
  "local pso = {}\n"
  "\n---Declare a graphics pipeline (vertex shader required).\n"
  "---@param decl pso.decl.graphics\n"
  "---@return pso.Pipeline\n"
  "function pso.graphics(decl) end\n"
  "\n---Declare a mesh-shader pipeline (ms required).\n"
  "---@param decl pso.decl.mesh\n"
  "---@return pso.Pipeline\n"
  "function pso.mesh(decl) end\n"
  "\n---Declare a compute pipeline (cs required).\n"
  "---@param decl pso.decl.compute\n"
  "---@return pso.Pipeline\n"
  "function pso.compute(decl) end\n"
  "\n---A variant of `base`: records merge key by key, lists and scalars replace.\n"
  "---@param base pso.Pipeline\n"
  "---@param overrides pso.decl.overrides\n"
  "---@return pso.Pipeline\n"
  "function pso.derive(base, overrides) end\n"
  "\n---Shader bytecode: pso.shader \"file.cso\", { file = ... } or { bytes = ... }.\n"
  "---@param source pso.FileOrBytes\n"
  "---@return pso.Shader\n"
  "function pso.shader(source) end\n"
  "\n---Opaque bytes for cached_pso and serialized_root_signature (same forms as pso.shader).\n"
  "---@param source pso.FileOrBytes\n"
  "---@return pso.Blob\n"
  "function pso.blob(source) end\n"
  "\n---An immutable preset; explain names its fields \"(preset NAME)\".\n"
  "---@generic T: table\n"
  "---@param name string\n"
  "---@param value T\n"
  "---@return T\n"
  "function pso.preset(name, value) end\n"
  "\n---pairs() over a preset or a preset namespace in every Lua version (5.1 and\n"
  "---LuaJIT have no __pairs); the iterator is given the read-only proxy, never\n"
  "---its data.\n"
  "---@param preset table\n"
  "---@return fun(preset: table, key: any): any, any\n"
  "---@return table\n"
  "function pso.preset_pairs(preset) end\n"
  "\n---A modifiable deep copy (presets unwrapped).\n"
  "---@generic T\n"
  "---@param value T\n"
  "---@return T\n"
  "function pso.copy(value) end\n"
  "\n---@param value any\n"
  "---@return boolean\n"
  "function pso.is_pipeline(value) end\n"
  "\n---True when the two pipelines have equal canonical hashes.\n"
  "---@param a pso.Pipeline\n"
  "---@param b pso.Pipeline\n"
  "---@return boolean\n"
  "function pso.same(a, b) end\n"
  "\n---psoc_check diagnostics of a raw stream.\n"
  "---@param bytes string\n"
  "---@return pso.Diag[]\n"
  "function pso.check_bytes(bytes) end\n";

static const char pipeline_methods[] =
  "---@field bytes fun(self: pso.Pipeline): string the stream bytes\n"
  "---@field size fun(self: pso.Pipeline): integer\n"
  "---@field hash fun(self: pso.Pipeline): string 32 hex digits, canonical\n"
  "---@field check fun(self: pso.Pipeline): pso.Diag[]\n"
  "---@field valid fun(self: pso.Pipeline): boolean\n"
  "---@field dump fun(self: pso.Pipeline): string\n"
  "---@field explain fun(self: pso.Pipeline, opts?: { changed?: boolean }): string every field and where it comes from (changed = true: only non-default values)\n"
  "---@field explain_table fun(self: pso.Pipeline, opts?: { changed?: boolean }): table[]\n"
  "---@field json fun(self: pso.Pipeline): string\n"
  "---@field diff fun(self: pso.Pipeline, other: pso.Pipeline): table[]\n"
  "---@field table fun(self: pso.Pipeline): table a declaration that reproduces it\n"
  "---@field subobjects fun(self: pso.Pipeline): pso.subobject_key[]\n";

#include "gen_annotations_rootsig.h"

/* language: the presets of pso_presets.c, by namespace and type key. */
typedef struct preset_ns {
  const char *ns, *type_key;
  const char *names[8];
} preset_ns;

static const preset_ns presets[] = {
  { "blend", "blend", { "opaque", "alpha", "premultiplied", "additive", "multiply", NULL } },
  { "rasterizer", "rasterizer", { "default", "cull_none", "cull_front", "wireframe", "shadow_bias", NULL } },
  { "depth", "depth_stencil", { "default", "read_only", "reverse_z", "disabled", "equal", NULL } },
};

static void emit_module(buf *b) {
  uint32_t t;
  size_t i;
  out(b, "%s", module_head);
  out(b, "\n---A declared pipeline (immutable). Fields read back the effective values.\n"
         "---@class (exact) pso.Pipeline: userdata\n"
         "---@field name string?\n"
         "---@field kind pso.kind\n"
         "---@field root_signature string?\n");
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    char type[NAME_MAX_ * 4];
    if (!info || t == PSOC_SO_ROOT_SIGNATURE) continue;
    subobject_type(info, type, sizeof type);
    out(b, "---@field %s? %s\n", info->key, type);
  }
  out(b, "%s", pipeline_methods);
  for (i = 0; i < sizeof presets / sizeof presets[0]; i++) {
    const psoc_subobject_info *info = psoc_subobject_info_find(presets[i].type_key);
    char type[NAME_MAX_ * 4];
    size_t k;
    if (!info) continue;
    subobject_type(info, type, sizeof type);
    out(b, "\n---pso.%s: built-in presets (read-only; pso.copy makes a modifiable copy).\n"
           "---@class (exact) pso.presets.%s\n",
        presets[i].ns, presets[i].ns);
    for (k = 0; presets[i].names[k]; k++) out(b, "---@field %s %s\n", presets[i].names[k], type);
  }
  out(b, "%s", module_funcs);
  emit_rootsig(b);
  out(b, "\nreturn pso\n");
}

/* ------------------------------------------------------------------ */
/* The whole file                                                       */
/* ------------------------------------------------------------------ */

static void generate(buf *b) {
  seen done;
  uint32_t t;
  size_t i;
  int k;
  memset(&done, 0, sizeof done);
  out(b, "---@meta pso\n"
         "-- pso.lua: LuaLS / EmmyLua annotations of the material language (the `pso`\n"
         "-- module of psoc %s), for completion of keys and enum names and for typo\n"
         "-- warnings while writing materials.\n"
         "--\n"
         "-- GENERATED from psoc's registry by scripts/gen_annotations.c; do not edit.\n"
         "--   regenerate: build/bin/psoc_gen_annotations -o scripts/types/pso.lua\n"
         "--   check:      build/bin/psoc_gen_annotations --check scripts/types/pso.lua\n"
         "--\n"
         "-- Use: point the editor's Lua language server at this folder, e.g. in\n"
         "-- .luarc.json: { \"workspace.library\": [\"<psoc>/scripts/types\"] } (installed:\n"
         "-- PREFIX/share/psoc/types). See docs/embedding.md.\n",
      PSOC_VERSION_STRING);
  /* luacheck: this is a definition file; its functions are stubs */
  out(b, "-- luacheck: ignore 212\n");

  out(b, "\n-- Enumerations ----------------------------------------------------------------\n");
  for (i = 0; i < psoc_enum_all_count; i++) emit_enum(b, psoc_enum_all[i]);
  emit_flags_aliases(b);
  out(b, "\n---The subobject keys of the material language (pipeline:subobjects()).\n"
         "---@alias pso.subobject_key\n");
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    if (info) out(b, "---| \"%s\" # %s\n", info->key, info->name);
  }

  out(b, "\n-- Payload structs -------------------------------------------------------------\n");
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    const psoc_struct *s;
    int single;
    uint32_t j;
    if (!info) continue;
    s = info->payload;
    single = single_field(s);
    /* a class base with versions is written as its merged class below */
    if (single < 0 && !is_class_base_with_versions(info)) {
      emit_struct(b, &done, s);
    } else {
      for (j = 0; j < s->field_count; j++)
        if (s->fields[j].element) emit_struct(b, &done, s->fields[j].element);
    }
  }

  out(b, "\n-- Versioned subobjects --------------------------------------------------------\n");
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    uint32_t types[MAX_VERSIONS];
    const psoc_struct *vs[MAX_VERSIONS];
    const char *vkeys[MAX_VERSIONS];
    char name[NAME_MAX_], title[NAME_MAX_];
    int nv;
    if (!info || !is_class_base_with_versions(info)) continue;
    nv = class_types(t, types, MAX_VERSIONS);
    for (k = 0; k < nv; k++) {
      vs[k] = psoc_subobject_info_get(types[k])->payload;
      vkeys[k] = psoc_subobject_info_get(types[k])->key;
    }
    snprintf(name, sizeof name, "pso.decl.%s", info->key);
    snprintf(title, sizeof title, "%s", info->key);
    emit_merged(b, name, title, vs, vkeys, nv);
  }

  out(b, "\n-- Declarations ----------------------------------------------------------------\n");
  emit_decl(b, PSOC_KIND_GRAPHICS);
  emit_decl(b, PSOC_KIND_MESH);
  emit_decl(b, PSOC_KIND_COMPUTE);
  emit_decl(b, PSOC_KIND_NONE);

  emit_module(b);
}

/* ------------------------------------------------------------------ */
/* Main                                                                 */
/* ------------------------------------------------------------------ */

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *data = NULL;
  size_t cap = 0, n = 0;
  if (!f) return NULL;
  for (;;) {
    size_t got;
    if (n == cap) {
      char *p;
      cap = cap ? cap * 2 : 65536;
      p = realloc(data, cap);
      if (!p) {
        free(data);
        fclose(f);
        return NULL;
      }
      data = p;
    }
    got = fread(data + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  *len = n;
  return data;
}

static int check(const buf *b, const char *path) {
  size_t len = 0, i, line = 1;
  char *cur = read_all(path, &len);
  if (!cur) {
    fprintf(stderr, "psoc_gen_annotations: cannot read %s\n", path);
    return 2;
  }
  for (i = 0; i < len && i < b->len && cur[i] == b->data[i]; i++)
    if (cur[i] == '\n') line++;
  free(cur);
  if (i == len && len == b->len) return 0;
  fprintf(stderr,
          "psoc_gen_annotations: %s is out of date with the registry (first difference at "
          "line %zu);\nregenerate: build/bin/psoc_gen_annotations -o %s\n",
          path, line, path);
  return 1;
}

static int usage(void) {
  fprintf(stderr, "usage: psoc_gen_annotations [-o FILE | --check FILE]\n");
  return 2;
}

int main(int argc, char **argv) {
  buf b = { NULL, 0, 0, 0 };
  const char *check_path = NULL, *out_path = NULL;
  int rc = 0;
  if (argc == 3 && strcmp(argv[1], "--check") == 0)
    check_path = argv[2];
  else if (argc == 3 && strcmp(argv[1], "-o") == 0)
    out_path = argv[2];
  else if (argc != 1)
    return usage();
  generate(&b);
  if (b.failed) {
    fprintf(stderr, "psoc_gen_annotations: out of memory\n");
    free(b.data);
    return 2;
  }
  if (check_path) {
    rc = check(&b, check_path);
  } else {
    FILE *f = out_path ? fopen(out_path, "wb") : stdout;
    if (!f || fwrite(b.data, 1, b.len, f) != b.len) rc = 2;
    if (f && f != stdout && fclose(f) != 0) rc = 2;
    if (rc) fprintf(stderr, "psoc_gen_annotations: cannot write %s\n", out_path ? out_path : "stdout");
  }
  free(b.data);
  return rc;
}
