/*
** test_rules.c: the rules psoc_check runs after the parse: pipeline kind
** deduction and subobjects irrelevant to the deduced kind; the rule
** machinery (the structure-only check, the compile-time tables the rules
** use instead of registry and enum lookups, the screens that skip a rule
** with nothing to say).
*/
#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h"
#include "rules_internal.h"
#include "stream_pack.h"
#include "suites.h"

#define MSG_DEDUCE "CREATEPIPELINESTATE_CANNOT_DEDUCE_TYPE"

/* Parse an exactly-sized copy and return the deduced kind. */
static psoc_kind kind_of(const sp_stream *s) {
  psoc_parsed p;
  unsigned char *buf = sp_exact(s, s->size);
  psoc_parse(buf, s->size, &p, NULL);
  free(buf);
  return p.kind;
}

/* ---- kind deduction ------------------------------------------------- */

typedef struct kind_case {
  const char *name;
  int vs, cs, ms;     /* -1 absent, 0 null bytecode, 1 non-null */
  psoc_kind kind;     /* expected; NONE: expect 'code' */
  psoc_code code;
} kind_case;

static const kind_case kind_cases[] = {
  { "VS only", 1, -1, -1, PSOC_KIND_GRAPHICS, 0 },
  { "CS only", -1, 1, -1, PSOC_KIND_COMPUTE, 0 },
  { "MS only", -1, -1, 1, PSOC_KIND_MESH, 0 },
  { "VS null, CS", 0, 1, -1, PSOC_KIND_COMPUTE, 0 },
  { "VS, CS null", 1, 0, -1, PSOC_KIND_GRAPHICS, 0 },
  { "CS null, MS", -1, 0, 1, PSOC_KIND_MESH, 0 },
  { "VS null, CS null, MS", 0, 0, 1, PSOC_KIND_MESH, 0 },
  { "none", -1, -1, -1, PSOC_KIND_NONE, PSOC_CODE_NO_SHADER },
  { "VS null", 0, -1, -1, PSOC_KIND_NONE, PSOC_CODE_NO_SHADER },
  { "all null", 0, 0, 0, PSOC_KIND_NONE, PSOC_CODE_NO_SHADER },
  { "VS and CS", 1, 1, -1, PSOC_KIND_NONE, PSOC_CODE_AMBIGUOUS_KIND },
  { "VS and MS", 1, -1, 1, PSOC_KIND_NONE, PSOC_CODE_AMBIGUOUS_KIND },
  { "CS and MS", -1, 1, 1, PSOC_KIND_NONE, PSOC_CODE_AMBIGUOUS_KIND },
  { "VS, CS and MS", 1, 1, 1, PSOC_KIND_NONE, PSOC_CODE_AMBIGUOUS_KIND },
};

START_TEST(test_kind) {
  const kind_case *c = &kind_cases[_i];
  sp_stream s;
  psoc_diags d;
  psoc_status st;
  UINT node = 1;
  sp_init(&s);
  SP_ADD(&s, PSOC_SO_NODE_MASK, node); /* relevant to every kind */
  if (c->ms >= 0) sp_add_shader(&s, PSOC_SO_MS, c->ms);
  if (c->cs >= 0) sp_add_shader(&s, PSOC_SO_CS, c->cs);
  if (c->vs >= 0) sp_add_shader(&s, PSOC_SO_VS, c->vs);
  ck_assert_msg(kind_of(&s) == c->kind, "%s: kind %s, want %s", c->name,
                psoc_kind_name(kind_of(&s)), psoc_kind_name(c->kind));
  psoc_diags_init(&d, NULL);
  st = sp_check(&s, &d);
  if (c->kind != PSOC_KIND_NONE) {
    ck_assert_msg(st == PSOC_OK, "%s: %s", c->name, sp_summary(&d));
    ck_assert_uint_eq(d.errors, 0);
  } else {
    ck_assert_int_eq(st, PSOC_ERR_INVALID);
    ck_assert_msg(d.errors == 1, "%s: %zu errors", c->name, d.errors);
    SP_ASSERT_DIAG(sp_find(&d, c->code, 0), PSOC_SEVERITY_ERROR, c->code, MSG_DEDUCE, -1, -1, "");
    ck_assert_uint_eq(d.notes, 0); /* nothing is irrelevant without a kind */
  }
  ck_assert_int_eq(psoc_check(s.data, s.size, sp_options(), NULL), st);
  psoc_diags_free(&d);
  sp_free(&s);
}
END_TEST

/* The ambiguity message names the shaders that carry code. */
START_TEST(test_ambiguous_message) {
  sp_stream s;
  psoc_diags d;
  const psoc_diag *g;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_shader(&s, PSOC_SO_CS, 0);
  sp_add_shader(&s, PSOC_SO_MS, 1);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(sp_check(&s, &d), PSOC_ERR_INVALID);
  g = sp_find(&d, PSOC_CODE_AMBIGUOUS_KIND, 0);
  ck_assert_ptr_nonnull(g);
  ck_assert_ptr_nonnull(strstr(g->message, "VS"));
  ck_assert_ptr_nonnull(strstr(g->message, "MS"));
  ck_assert_ptr_null(strstr(g->message, "CS and"));
  psoc_diags_free(&d);
  sp_free(&s);
}
END_TEST

/* ---- irrelevant subobjects: a note each, never an error --------------- */

/* A shader subobject with null bytecode is absent to the runtime: no note
** (d3dx12's STREAM2/3 carry null CS, AS and MS). Every other subobject the
** deduced kind ignores gets one. */

typedef struct irrelevant_case {
  const char *name;
  uint32_t types[6];   /* subobjects in stream order; 0xFF ends */
  int code[6];         /* for shader types: 1 non-null, 0 null */
  psoc_kind kind;
  uint32_t noted[3];   /* types expected as notes; 0xFF ends */
} irrelevant_case;

#define END 0xFFu

static const irrelevant_case irrelevant_cases[] = {
  { "CS (null) in graphics: absent, no note",
    { PSOC_SO_VS, PSOC_SO_PS, PSOC_SO_CS, END }, { 1, 1, 0 }, PSOC_KIND_GRAPHICS,
    { END } },
  { "AS and MS (null) in graphics",
    { PSOC_SO_AS, PSOC_SO_VS, PSOC_SO_MS, END }, { 1, 1, 0 }, PSOC_KIND_GRAPHICS,
    { PSOC_SO_AS, END } },
  { "PS (non-null) and HS (null) in compute",
    { PSOC_SO_PS, PSOC_SO_CS, PSOC_SO_HS, END }, { 1, 1, 0 }, PSOC_KIND_COMPUTE,
    { PSOC_SO_PS, END } },
  { "INPUT_LAYOUT in compute",
    { PSOC_SO_INPUT_LAYOUT, PSOC_SO_CS, PSOC_SO_ROOT_SIGNATURE, END }, { 0, 1, 0 },
    PSOC_KIND_COMPUTE, { PSOC_SO_INPUT_LAYOUT, END } },
  { "RASTERIZER1 and BLEND in compute",
    { PSOC_SO_CS, PSOC_SO_RASTERIZER1, PSOC_SO_BLEND, PSOC_SO_FLAGS, END }, { 1, 0, 0, 0 },
    PSOC_KIND_COMPUTE, { PSOC_SO_BLEND, PSOC_SO_RASTERIZER1, END } },
  { "VS (null) and INPUT_LAYOUT in mesh",
    { PSOC_SO_VS, PSOC_SO_MS, PSOC_SO_PS, PSOC_SO_INPUT_LAYOUT, END }, { 0, 1, 1, 0 },
    PSOC_KIND_MESH, { PSOC_SO_INPUT_LAYOUT, END } },
  { "STREAM_OUTPUT in mesh",
    { PSOC_SO_MS, PSOC_SO_STREAM_OUTPUT, PSOC_SO_SAMPLE_DESC, END }, { 1, 0, 0 },
    PSOC_KIND_MESH, { PSOC_SO_STREAM_OUTPUT, END } },
};

START_TEST(test_irrelevant) {
  const irrelevant_case *c = &irrelevant_cases[_i];
  size_t at[6], i, j, n_noted = 0;
  sp_stream s;
  psoc_diags d;
  sp_init(&s);
  for (i = 0; c->types[i] != END; i++) {
    uint32_t t = c->types[i];
    if (t == PSOC_SO_VS || t == PSOC_SO_CS || t == PSOC_SO_MS || t == PSOC_SO_AS ||
        t == PSOC_SO_PS || t == PSOC_SO_HS)
      at[i] = sp_add_shader(&s, t, c->code[i]);
    else
      at[i] = sp_add_default(&s, t);
  }
  psoc_diags_init(&d, NULL);
  ck_assert_msg(sp_check(&s, &d) == PSOC_OK, "%s: %s", c->name, sp_summary(&d));
  ck_assert_int_eq(kind_of(&s), c->kind);
  ck_assert_uint_eq(d.errors, 0);
  ck_assert_msg(d.warnings == 0, "%s: %s", c->name, sp_summary(&d));
  for (j = 0; c->noted[j] != END; j++) {
    uint32_t t = c->noted[j];
    const char *name = psoc_subobject_info_get(t)->name;
    const psoc_diag *g = NULL;
    for (i = 0; i < d.count; i++)
      if (d.items[i].code == PSOC_CODE_IRRELEVANT_SUBOBJECT && strcmp(d.items[i].field, name) == 0)
        g = &d.items[i];
    ck_assert_msg(g != NULL, "%s: no note for %s", c->name, name);
    for (i = 0; c->types[i] != t; i++) {}
    SP_ASSERT_DIAG(g, PSOC_SEVERITY_NOTE, PSOC_CODE_IRRELEVANT_SUBOBJECT, NULL, (int)i,
                   (int64_t)at[i], name);
    ck_assert_ptr_nonnull(strstr(g->message, name));
    ck_assert_ptr_nonnull(strstr(g->message, psoc_kind_name(c->kind)));
    n_noted++;
  }
  ck_assert_msg(d.notes == n_noted, "%s: %zu notes, want %zu", c->name, d.notes, n_noted);
  ck_assert_uint_eq(sp_count(&d, PSOC_CODE_IRRELEVANT_SUBOBJECT), n_noted);
  psoc_diags_free(&d);
  sp_free(&s);
}
END_TEST

/* Full pipelines of each kind: everything in them is relevant. */
START_TEST(test_all_relevant) {
  static const uint32_t graphics[] = {
    PSOC_SO_ROOT_SIGNATURE, PSOC_SO_INPUT_LAYOUT, PSOC_SO_IB_STRIP_CUT_VALUE,
    PSOC_SO_PRIMITIVE_TOPOLOGY, PSOC_SO_VS, PSOC_SO_HS, PSOC_SO_DS, PSOC_SO_GS,
    PSOC_SO_STREAM_OUTPUT, PSOC_SO_PS, PSOC_SO_BLEND, PSOC_SO_SAMPLE_MASK, PSOC_SO_RASTERIZER2,
    PSOC_SO_DEPTH_STENCIL1, PSOC_SO_RENDER_TARGET_FORMATS, PSOC_SO_DEPTH_STENCIL_FORMAT,
    PSOC_SO_SAMPLE_DESC, PSOC_SO_NODE_MASK, PSOC_SO_CACHED_PSO, PSOC_SO_FLAGS,
    PSOC_SO_VIEW_INSTANCING, END };
  static const uint32_t compute[] = { PSOC_SO_ROOT_SIGNATURE, PSOC_SO_CS, PSOC_SO_NODE_MASK,
                                      PSOC_SO_CACHED_PSO, PSOC_SO_FLAGS, END };
  static const uint32_t mesh[] = {
    PSOC_SO_ROOT_SIGNATURE, PSOC_SO_AS, PSOC_SO_MS, PSOC_SO_PS, PSOC_SO_BLEND, PSOC_SO_SAMPLE_MASK,
    PSOC_SO_RASTERIZER, PSOC_SO_DEPTH_STENCIL2, PSOC_SO_RENDER_TARGET_FORMATS,
    PSOC_SO_DEPTH_STENCIL_FORMAT, PSOC_SO_SAMPLE_DESC, PSOC_SO_PRIMITIVE_TOPOLOGY,
    PSOC_SO_VIEW_INSTANCING, PSOC_SO_FLAGS, END };
  static const uint32_t *const lists[] = { graphics, compute, mesh };
  static const psoc_kind kinds[] = { PSOC_KIND_GRAPHICS, PSOC_KIND_COMPUTE, PSOC_KIND_MESH };
  size_t k, i;
  for (k = 0; k < 3; k++) {
    sp_stream s;
    psoc_diags d;
    sp_init(&s);
    for (i = 0; lists[k][i] != END; i++) {
      uint32_t t = lists[k][i];
      if (t == PSOC_SO_VS || t == PSOC_SO_CS || t == PSOC_SO_MS) {
        sp_add_shader(&s, t, 1);
      } else if (t == PSOC_SO_ROOT_SIGNATURE) {
        ID3D12RootSignature *rs = (ID3D12RootSignature *)(uintptr_t)0x1000;
        SP_ADD(&s, t, rs);
      } else if (t == PSOC_SO_DEPTH_STENCIL_FORMAT) {
        DXGI_FORMAT dsv = DXGI_FORMAT_D32_FLOAT;
        SP_ADD(&s, t, dsv);
      } else {
        sp_add_default(&s, t);
      }
    }
    psoc_diags_init(&d, NULL);
    ck_assert_msg(sp_check(&s, &d) == PSOC_OK, "%s pipeline: %s", psoc_kind_name(kinds[k]),
                  sp_summary(&d));
    ck_assert_int_eq(kind_of(&s), kinds[k]);
    ck_assert_msg(d.count == 0, "%s pipeline: %s", psoc_kind_name(kinds[k]), sp_summary(&d));
    psoc_diags_free(&d);
    sp_free(&s);
  }
}
END_TEST

/* An irrelevant subobject is still checked structurally: a duplicate AS in
** a graphics stream is an error, and the note is given once; a duplicate
** null CS is an error too, with no note. */
START_TEST(test_irrelevant_duplicate) {
  sp_stream s;
  psoc_diags d;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_shader(&s, PSOC_SO_AS, 1);
  sp_add_shader(&s, PSOC_SO_AS, 1);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(sp_check(&s, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 1);
  ck_assert_uint_eq(sp_count(&d, PSOC_CODE_DUPLICATE_SUBOBJECT), 1);
  ck_assert_uint_eq(d.notes, 1);
  SP_ASSERT_DIAG(sp_find(&d, PSOC_CODE_IRRELEVANT_SUBOBJECT, 0), PSOC_SEVERITY_NOTE,
                 PSOC_CODE_IRRELEVANT_SUBOBJECT, NULL, 1, 24, "AS");
  psoc_diags_free(&d);
  sp_free(&s);
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_shader(&s, PSOC_SO_CS, 0);
  sp_add_shader(&s, PSOC_SO_CS, 0);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(sp_check(&s, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 1);
  ck_assert_uint_eq(sp_count(&d, PSOC_CODE_DUPLICATE_SUBOBJECT), 1);
  ck_assert_uint_eq(d.notes, 0);
  psoc_diags_free(&d);
  sp_free(&s);
}
END_TEST

/* Every type against every kind: a note exactly where the registry says the
** kind does not use the type (non-null bytecode for shader types), and the
** resolved class marked unused there. */
START_TEST(test_irrelevant_every_type) {
  static const uint32_t decider[4] = { 0, PSOC_SO_VS, PSOC_SO_CS, PSOC_SO_MS };
  psoc_kind k;
  uint32_t t;
  for (k = PSOC_KIND_GRAPHICS; k <= PSOC_KIND_MESH; k++) {
    for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
      const psoc_subobject_info *info = psoc_subobject_info_get(t);
      int ignored, shader;
      size_t at;
      sp_stream s;
      psoc_diags d;
      psoc_parsed p;
      psoc_resolved r;
      if (!info || t == decider[k]) continue;
      ignored = !(info->kinds & PSOC_KIND_BIT(k));
      shader = t == PSOC_SO_VS || t == PSOC_SO_PS || t == PSOC_SO_DS || t == PSOC_SO_HS ||
               t == PSOC_SO_GS || t == PSOC_SO_CS || t == PSOC_SO_AS || t == PSOC_SO_MS;
      /* another kind's decider with code would make the kind ambiguous */
      if (shader && ignored && (t == PSOC_SO_VS || t == PSOC_SO_CS || t == PSOC_SO_MS)) continue;
      sp_init(&s);
      sp_add_shader(&s, decider[k], 1);
      at = shader ? sp_add_shader(&s, t, 1) : sp_add_default(&s, t);
      psoc_diags_init(&d, NULL);
      sp_check(&s, &d);
      ck_assert_msg(sp_count(&d, PSOC_CODE_IRRELEVANT_SUBOBJECT) == (size_t)ignored,
                    "%s in a %s pipeline: %s", info->name, psoc_kind_name(k), sp_summary(&d));
      if (ignored)
        SP_ASSERT_DIAG(sp_find(&d, PSOC_CODE_IRRELEVANT_SUBOBJECT, 0), PSOC_SEVERITY_NOTE,
                       PSOC_CODE_IRRELEVANT_SUBOBJECT, NULL, 1, (int64_t)at, info->name);
      ck_assert_uint_eq((psoc_ignored_types(k) >> t) & 1u, (unsigned)ignored);
      ck_assert_int_eq(psoc_parse(s.data, s.size, &p, NULL), PSOC_OK);
      ck_assert_uint_eq(p.type_mask, PSOC_TYPE_BIT(decider[k]) | PSOC_TYPE_BIT(t));
      ck_assert_int_eq(psoc_resolve(&p, &r), PSOC_OK);
      ck_assert_int_eq(r.origin[info->dup_class],
                       ignored ? PSOC_ORIGIN_UNUSED : PSOC_ORIGIN_EXPLICIT);
      ck_assert_uint_eq(r.source_type[info->dup_class], t);
      psoc_diags_free(&d);
      sp_free(&s);
    }
  }
  ck_assert_uint_eq(psoc_ignored_types(PSOC_KIND_NONE), 0);
}
END_TEST

/* ---- the compile-time tables of rules_internal.h ----------------------- */

/* Each PSOC_VALID_* set holds exactly the values of its enum table, and
** every generated table's valid_mask holds exactly its values below 64. */
START_TEST(test_valid_sets) {
  const struct {
    const psoc_enum *e;
    uint64_t valid;
  } sets[] = {
    { &psoc_enum_blend, PSOC_VALID_BLEND },
    { &psoc_enum_blend_op, PSOC_VALID_BLEND_OP },
    { &psoc_enum_logic_op, PSOC_VALID_LOGIC_OP },
    { &psoc_enum_fill_mode, PSOC_VALID_FILL_MODE },
    { &psoc_enum_cull_mode, PSOC_VALID_CULL_MODE },
    { &psoc_enum_conservative_raster, PSOC_VALID_CONSERVATIVE },
    { &psoc_enum_line_raster, PSOC_VALID_LINE_RASTER },
    { &psoc_enum_comparison_func, PSOC_VALID_COMPARISON },
    { &psoc_enum_stencil_op, PSOC_VALID_STENCIL_OP },
    { &psoc_enum_depth_write_mask, PSOC_VALID_DEPTH_WRITE },
    { &psoc_enum_strip_cut, PSOC_VALID_STRIP_CUT },
    { &psoc_enum_topology_type, PSOC_VALID_TOPOLOGY },
  };
  static const uint32_t far[] = { 32, 33, 63, 64, 255, 0x80000000u, 0xffffffffu };
  size_t i, j;
  uint32_t v;
  for (i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    for (j = 0; j < sets[i].e->count; j++)
      ck_assert_msg(sets[i].e->values[j].value < 64, "%s has a value past 63", sets[i].e->name);
    for (v = 0; v < 64; v++)
      ck_assert_msg(psoc_rule_valid(sets[i].valid, v) ==
                        (psoc_enum_value_by_value(sets[i].e, v) != NULL),
                    "%s: value %u", sets[i].e->name, v);
    for (j = 0; j < sizeof far / sizeof far[0]; j++)
      ck_assert(!psoc_rule_valid(sets[i].valid, far[j]));
  }
  for (i = 0; i < psoc_enum_all_count; i++) {
    const psoc_enum *e = psoc_enum_all[i];
    uint64_t want = 0;
    for (j = 0; j < e->count; j++)
      if (e->values[j].value < 64) want |= (uint64_t)1 << e->values[j].value;
    ck_assert_msg(e->valid_mask == want, "%s: valid_mask", e->name);
  }
}
END_TEST

/* ---- messages: psoc_diags_add formats like vsnprintf -------------------- */

/* psoc_diags_add's message for 'fmt' and the arguments equals vsnprintf's
** into a buffer of the same size. */
static void same_as_printf(const char *fmt, ...) {
  char want[PSOC_DIAG_MESSAGE_MAX];
  psoc_diags d;
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  vsnprintf(want, sizeof want, fmt, aq);
  va_end(aq);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(psoc_diags_addv(&d, PSOC_SEVERITY_NOTE, PSOC_CODE_NODE_MASK, NULL, -1, -1,
                                   "f", fmt, ap), PSOC_OK);
  va_end(ap);
  ck_assert_uint_eq(d.count, 1);
  ck_assert_msg(strcmp(d.items[0].message, want) == 0, "format \"%s\": got \"%s\", want \"%s\"",
                fmt, d.items[0].message, want);
  psoc_diags_free(&d);
}

START_TEST(test_message_format) {
  char long_text[400];
  const char *null_text = NULL;
  memset(long_text, 'x', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  same_as_printf("plain text, no conversion");
  same_as_printf("");
  same_as_printf("100%% sure, %s", "yes");
  same_as_printf("%s appears again (first as subobject %u at offset %zu)", "BLEND", 3u,
                 (size_t)48);
  same_as_printf("%u %u %u", 0u, 4294967295u, 10u);
  same_as_printf("%x 0x%x 0x%08x 0x%02x/0x%02x", 0u, 0xdeadbeefu, 0x1fu, 0xabcu, 5u);
  same_as_printf("%5u|%05u|%2x", 42u, 42u, 0x123u);
  same_as_printf("%zu %llu %llx", (size_t)-1, 18446744073709551615ull, 0x123456789abull);
  same_as_printf("\"%.40s\" \"%.40s\"", "short", long_text);
  same_as_printf("%.*s%u and %.*s", 3, "POSITION", 7u, -1, "whole");
  same_as_printf("%.0s|%.*s|", "gone", 0, "gone");
  same_as_printf("%s", long_text); /* truncated to PSOC_DIAG_MESSAGE_MAX - 1 */
  same_as_printf("%s%u%s", long_text + 200, 123456u, "tail");
  same_as_printf("%.200s %u", long_text, 99u);
  /* outside the subset: vsnprintf formats them */
  same_as_printf("%d %i %c %5.2f %-4s| %+d %ld", -5, 7, 'c', 3.14159, "ab", 3, -9L);
  same_as_printf("%s then %d", "subset", -1);
  same_as_printf("null: %s", null_text);
  same_as_printf("%p", (void *)0);
}
END_TEST

/* psoc_diags_slot and psoc_msg (internal.h): a message built piece by piece
** is the text snprintf gives for the same pieces, truncated alike, and the
** slot is counted and filled as psoc_diags_add fills it. */
START_TEST(test_message_pieces) {
  static const unsigned long long numbers[] = { 0, 7, 10, 4294967295ull, 18446744073709551615ull };
  char long_text[300], want[PSOC_DIAG_MESSAGE_MAX];
  psoc_diags d;
  unsigned i, cut;
  memset(long_text, 'y', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  psoc_diags_init(&d, NULL);
  ck_assert_ptr_null(psoc_diags_slot(NULL, PSOC_SEVERITY_ERROR, PSOC_CODE_NODE_MASK, NULL, -1, -1, ""));
  for (i = 0; i < sizeof numbers / sizeof numbers[0]; i++) { /* psoc_put_uint is %llu */
    char got[24], *end;
    unsigned long long v;
    for (v = numbers[i], cut = 0; cut < 3; cut++, v = v / 10 * 10 + 9) { /* and ...9 */
      memset(got, 'x', sizeof got);
      end = psoc_put_uint(got, v);
      *end = '\0';
      snprintf(want, sizeof want, "%llu", v);
      ck_assert_str_eq(got, want);
    }
  }
  for (i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
    /* 'cut' bytes of text ahead move the end of the message across every piece */
    for (cut = 0; cut < 240; cut += 7) {
      psoc_msg m;
      psoc_diag *slot = psoc_diags_slot(&d, PSOC_SEVERITY_WARNING, PSOC_CODE_NODE_MASK, "ID", 3, 40,
                                        long_text);
      ck_assert_ptr_nonnull(slot);
      psoc_msg_begin(&m, slot);
      psoc_msg_put(&m, long_text, cut);
      PSOC_MSG_LIT(&m, " literal (");
      psoc_msg_uint(&m, numbers[i]);
      PSOC_MSG_LIT(&m, ") then ");
      psoc_msg_str(&m, "a name");
      PSOC_MSG_LIT(&m, "; and a longer literal tail that runs on past the end of the message");
      psoc_msg_end(&m);
      snprintf(want, sizeof want, "%.*s literal (%llu) then %s; and a longer literal tail that "
               "runs on past the end of the message", (int)cut, long_text, numbers[i], "a name");
      ck_assert_msg(strcmp(slot->message, want) == 0, "cut %u: got \"%s\", want \"%s\"", cut,
                    slot->message, want);
      ck_assert_int_eq(slot->severity, PSOC_SEVERITY_WARNING);
      ck_assert_int_eq(slot->subobject, 3);
      ck_assert_int_eq(slot->offset, 40);
      ck_assert_str_eq(slot->message_id, "ID");
      ck_assert_uint_eq(strlen(slot->field), PSOC_DIAG_FIELD_MAX - 1); /* truncated like %s */
    }
  }
  ck_assert_uint_eq(d.warnings, d.count);
  ck_assert_uint_eq(d.errors + d.notes, 0);
  /* the field given with its length: the same field as psoc_diags_slot's,
  ** cut alike, at every length around the limit */
  for (cut = 0; cut < PSOC_DIAG_FIELD_MAX + 3; cut++) {
    char field[PSOC_DIAG_FIELD_MAX + 3];
    psoc_diag *a, *b;
    memcpy(field, long_text, cut);
    field[cut] = '\0';
    a = psoc_diags_slot(&d, PSOC_SEVERITY_ERROR, PSOC_CODE_NODE_MASK, "ID", 1, 2, field);
    ck_assert_ptr_nonnull(a);
    b = psoc_diags_slot_n(&d, PSOC_SEVERITY_ERROR, PSOC_CODE_NODE_MASK, "ID", 1, 2, field, cut);
    ck_assert_ptr_nonnull(b);
    a = &d.items[d.count - 2]; /* the list may have moved */
    ck_assert_str_eq(a->field, b->field);
    ck_assert_uint_eq(strlen(b->field), cut < PSOC_DIAG_FIELD_MAX ? cut : PSOC_DIAG_FIELD_MAX - 1);
  }
  ck_assert_uint_eq(d.errors, 2 * (PSOC_DIAG_FIELD_MAX + 3));
  ck_assert_ptr_null(psoc_diags_slot_n(NULL, PSOC_SEVERITY_ERROR, PSOC_CODE_NODE_MASK, NULL, -1, -1,
                                       "", 0));
  psoc_diags_free(&d);
}
END_TEST

/* psoc_registry_name_len (internal.h): each row's name's length, 0 for
** values that are no type. */
START_TEST(test_registry_name_len) {
  uint32_t t;
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    ck_assert_uint_eq(psoc_registry_name_len[t], info ? strlen(info->name) : 0);
  }
}
END_TEST

/* The warning of depth or stencil testing without a DSV format is a fixed
** text for each (PSOC_RULE_TEXT): its words, location and field. */
START_TEST(test_dsv_not_set_text) {
  static const char *const want[2] = {
    "depth testing is enabled but DSVFormat is UNKNOWN, so no depth buffer can be bound; set "
    "DEPTH_STENCIL_FORMAT to the depth buffer's format or disable DepthEnable",
    "stencil testing is enabled but DSVFormat is UNKNOWN, so no depth buffer can be bound; set "
    "DEPTH_STENCIL_FORMAT to the depth buffer's format or disable StencilEnable",
  };
  int stencil;
  for (stencil = 0; stencil < 2; stencil++) {
    D3D12_DEPTH_STENCIL_DESC1 ds;
    const psoc_diag *g;
    sp_stream s;
    psoc_diags d;
    size_t at;
    memcpy(&ds, psoc_subobject_info_get(PSOC_SO_DEPTH_STENCIL1)->default_payload, sizeof ds);
    ds.DepthEnable = !stencil;
    ds.StencilEnable = stencil;
    sp_init(&s);
    sp_add_shader(&s, PSOC_SO_VS, 1);
    at = SP_ADD(&s, PSOC_SO_DEPTH_STENCIL1, ds);
    psoc_diags_init(&d, NULL);
    ck_assert_int_eq(sp_check(&s, &d), PSOC_OK);
    ck_assert_msg(d.count == 1 && d.warnings == 1, "%s", sp_summary(&d));
    g = sp_find(&d, PSOC_CODE_DEPTH_STENCIL, 0);
    SP_ASSERT_DIAG(g, PSOC_SEVERITY_WARNING, PSOC_CODE_DEPTH_STENCIL,
                   "CREATEGRAPHICSPIPELINESTATE_DEPTHSTENCILVIEW_NOT_SET", 1, (int64_t)at,
                   "DEPTH_STENCIL_FORMAT");
    ck_assert_str_eq(g->message, want[stencil]);
    psoc_diags_free(&d);
    sp_free(&s);
  }
}
END_TEST

/* ---- the structure-only check ------------------------------------------ */

/* psoc_check with 'o' on an exactly-sized copy of the first 'size' bytes. */
static psoc_status check_with(const sp_stream *s, size_t size, const psoc_check_options *o,
                              psoc_diags *d) {
  unsigned char *p = sp_exact(s, size);
  psoc_status st = psoc_check(p, size, o, d);
  free(p);
  return st;
}

/* PSOC_CHECK_STRUCTURE_ONLY reports what the stream parser and the kind
** deduction find, and nothing the field rules would add. */
START_TEST(test_structure_only) {
  psoc_check_options o = *sp_options();
  D3D12_BLEND_DESC blend;
  sp_stream s;
  psoc_diags d;
  o.flags = PSOC_CHECK_STRUCTURE_ONLY;
  memcpy(&blend, psoc_subobject_info_get(PSOC_SO_BLEND)->default_payload, sizeof blend);
  blend.RenderTarget[0].BlendEnable = TRUE;
  blend.RenderTarget[0].SrcBlend = (D3D12_BLEND)99; /* a field error */
  /* a field error and an irrelevant subobject: clean on structure alone */
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  SP_ADD(&s, PSOC_SO_BLEND, blend);
  sp_add_shader(&s, PSOC_SO_AS, 1);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(check_with(&s, s.size, &o, &d), PSOC_OK);
  ck_assert_msg(d.count == 0, "%s", sp_summary(&d));
  ck_assert_int_eq(sp_check(&s, &d), PSOC_ERR_INVALID); /* the full check sees both */
  ck_assert_uint_eq(sp_count(&d, PSOC_CODE_INVALID_ENUM), 1);
  ck_assert_uint_eq(sp_count(&d, PSOC_CODE_IRRELEVANT_SUBOBJECT), 1);
  psoc_diags_free(&d);
  /* a duplicate and an ambiguous kind are structural */
  sp_add_shader(&s, PSOC_SO_CS, 1);
  SP_ADD(&s, PSOC_SO_BLEND, blend);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(check_with(&s, s.size, &o, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 2);
  ck_assert_uint_eq(sp_count(&d, PSOC_CODE_DUPLICATE_SUBOBJECT), 1);
  ck_assert_uint_eq(sp_count(&d, PSOC_CODE_AMBIGUOUS_KIND), 1);
  ck_assert_uint_eq(d.count, 2);
  ck_assert_int_eq(check_with(&s, s.size, &o, NULL), PSOC_ERR_INVALID);
  psoc_diags_free(&d);
  /* a truncated stream: the walk's error, no kind rule after it */
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(check_with(&s, s.size - 4, &o, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 1);
  ck_assert_uint_eq(sp_count(&d, PSOC_CODE_TRUNCATED), 1);
  psoc_diags_free(&d);
  sp_free(&s);
}
END_TEST

/* The verdict counts only what this check added to a shared list. */
START_TEST(test_check_appends) {
  sp_stream bad, good;
  psoc_diags d;
  size_t errors, count;
  sp_init(&bad);
  sp_init(&good);
  sp_add_shader(&bad, PSOC_SO_PS, 1);
  sp_add_shader(&good, PSOC_SO_CS, 1);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(sp_check(&bad, &d), PSOC_ERR_INVALID);
  errors = d.errors;
  count = d.count;
  ck_assert_uint_ge(errors, 1);
  ck_assert_msg(sp_check(&good, &d) == PSOC_OK, "%s", sp_summary(&d));
  ck_assert_uint_eq(d.errors, errors);
  ck_assert_uint_eq(d.count, count);
  ck_assert_int_eq(sp_check(&bad, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 2 * errors);
  ck_assert_uint_eq(d.count, 2 * count);
  psoc_diags_clear(&d);
  ck_assert_uint_eq(d.count, 0);
  ck_assert_uint_eq(d.errors, 0);
  psoc_diags_free(&d);
  sp_free(&bad);
  sp_free(&good);
}
END_TEST

/* Diagnostics survive an allocator that cannot give memory: counted, dropped. */
static void *refuse(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) free(ptr);
  return NULL;
}

START_TEST(test_check_without_memory) {
  psoc_allocator a = { refuse, NULL };
  sp_stream s;
  psoc_diags d;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_shader(&s, PSOC_SO_CS, 1);
  sp_add_default(&s, PSOC_SO_INPUT_LAYOUT);
  sp_add_default(&s, PSOC_SO_INPUT_LAYOUT);
  psoc_diags_init(&d, &a);
  ck_assert_int_eq(sp_check(&s, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 2); /* the duplicate and the ambiguous kind */
  ck_assert_uint_eq(d.count, 0);
  ck_assert_uint_eq(d.dropped, 2);
  psoc_diags_free(&d);
  sp_free(&s);
}
END_TEST

/* ---- screens: a rule is skipped only where it has nothing to say ----- */

/* The two checks' diagnostics are the same, item by item. */
static void same_diags(const psoc_diags *a, const psoc_diags *b, unsigned round) {
  size_t i;
  ck_assert_msg(a->count == b->count, "round %u: %zu diagnostics with the screens, %zu without "
                "(without: %s)", round, a->count, b->count, sp_summary(b));
  ck_assert_uint_eq(a->errors, b->errors);
  ck_assert_uint_eq(a->warnings, b->warnings);
  ck_assert_uint_eq(a->notes, b->notes);
  for (i = 0; i < a->count; i++) {
    const psoc_diag *x = &a->items[i], *y = &b->items[i];
    ck_assert_msg(x->severity == y->severity && x->code == y->code &&
                      x->subobject == y->subobject && x->offset == y->offset &&
                      strcmp(x->field, y->field) == 0 && strcmp(x->message, y->message) == 0 &&
                      (x->message_id == y->message_id ||
                       (x->message_id && y->message_id && strcmp(x->message_id, y->message_id) == 0)),
                  "round %u, diagnostic %zu: '%s' with the screens, '%s' without", round, i,
                  x->message, y->message);
  }
}

static uint32_t screen_rand(uint32_t *state) { /* xorshift32: the same rounds every run */
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

/* Words of the payloads that hold pointers: set only to NULL. */
static int screen_pointer_word(uint32_t type, size_t at) {
  switch (type) {
  case PSOC_SO_INPUT_LAYOUT: return at < 8;
  case PSOC_SO_STREAM_OUTPUT: return at < 8 || (at >= 16 && at < 24);
  case PSOC_SO_VIEW_INSTANCING: return at >= 8 && at < 16;
  case PSOC_SO_CACHED_PSO: return at < 8;
  default: return 0;
  }
}

static int screen_has_pointers(uint32_t type) {
  return type == PSOC_SO_INPUT_LAYOUT || type == PSOC_SO_STREAM_OUTPUT ||
         type == PSOC_SO_VIEW_INSTANCING || type == PSOC_SO_CACHED_PSO;
}

/* Dual-source blending on target 0 with a second target bound is an error,
** whichever of the four factors holds the SRC1 factor: the blend-and-targets
** screen, which leaves the SRC1 factors out of its factor sets, lets the
** rules speak and they say the same as without it. */
START_TEST(test_screen_dual_source) {
  static const uint32_t dual[] = { D3D12_BLEND_SRC1_COLOR, D3D12_BLEND_INV_SRC1_COLOR,
                                   D3D12_BLEND_SRC1_ALPHA, D3D12_BLEND_INV_SRC1_ALPHA };
  unsigned field, k;
  for (field = 0; field < 4; field++) {
    for (k = 0; k < 4; k++) {
      D3D12_BLEND_DESC b;
      D3D12_RT_FORMAT_ARRAY rt;
      D3D12_RENDER_TARGET_BLEND_DESC *t0 = &b.RenderTarget[0];
      psoc_check_options screened, unscreened;
      psoc_diags a, u;
      sp_stream s;
      unsigned char *buf;
      memcpy(&b, psoc_subobject_info_get(PSOC_SO_BLEND)->default_payload, sizeof b);
      t0->BlendEnable = TRUE;
      switch (field) {
      case 0: t0->SrcBlend = (D3D12_BLEND)dual[k]; break;
      case 1: t0->DestBlend = (D3D12_BLEND)dual[k]; break;
      case 2: t0->SrcBlendAlpha = (D3D12_BLEND)dual[k]; break;
      default: t0->DestBlendAlpha = (D3D12_BLEND)dual[k]; break;
      }
      memset(&rt, 0, sizeof rt);
      rt.NumRenderTargets = 2;
      rt.RTFormats[0] = rt.RTFormats[1] = DXGI_FORMAT_R8G8B8A8_UNORM;
      sp_init(&s);
      sp_add_shader(&s, PSOC_SO_VS, 1);
      sp_add_shader(&s, PSOC_SO_PS, 1);
      SP_ADD(&s, PSOC_SO_BLEND, b);
      SP_ADD(&s, PSOC_SO_RENDER_TARGET_FORMATS, rt);
      memset(&screened, 0, sizeof screened);
      unscreened = screened;
      unscreened.flags |= PSOC_CHECK_UNSCREENED_;
      buf = sp_exact(&s, s.size);
      psoc_diags_init(&a, NULL);
      psoc_diags_init(&u, NULL);
      ck_assert_int_eq(psoc_check(buf, s.size, &screened, &a), PSOC_ERR_INVALID);
      ck_assert_int_eq(psoc_check(buf, s.size, &unscreened, &u), PSOC_ERR_INVALID);
      {
        size_t i, found = 0;
        for (i = 0; i < a.count; i++)
          found += a.items[i].message_id &&
                   strstr(a.items[i].message_id, "OM_DUAL_SOURCE_BLENDING_CAN_ONLY_HAVE_RENDER_TARGET_0");
        ck_assert_msg(found == 1, "field %u, factor %u: %s", field, dual[k], sp_summary(&a));
      }
      same_diags(&a, &u, field * 4 + k);
      psoc_diags_free(&a);
      psoc_diags_free(&u);
      free(buf);
      sp_free(&s);
    }
  }
}
END_TEST

/* Random pipelines (every kind, every version of the versioned classes,
** classes present or not) built from valid payloads, then a few payload
** words set to boundary values: each is checked with the rules' screens
** and with every rule run (PSOC_CHECK_UNSCREENED_), under several option
** sets; the diagnostics must not differ. A screen that calls a pipeline
** quiet where its rule has something to say fails here. */
START_TEST(test_screens_agree) {
  static const uint32_t values[] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 24, 28, 32, 33,
    40, 45, 55, 0xf, 0x10, 0x1f, 0xff, 0xffff, 0x10000, 0xfffffffe, 0xffffffff,
    0x7f800000 /* +inf */, 0x7fc00000 /* NaN */, 0x3f800000 /* 1.0f */, 0xbf800000 /* -1.0f */
  };
  static const D3D12_INPUT_ELEMENT_DESC elements[2] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "TEXCOORD", 0, DXGI_FORMAT_R32G32_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
  };
  static const uint32_t states[] = {
    PSOC_SO_BLEND, PSOC_SO_RENDER_TARGET_FORMATS, PSOC_SO_DEPTH_STENCIL_FORMAT,
    PSOC_SO_SAMPLE_DESC, PSOC_SO_SAMPLE_MASK, PSOC_SO_PRIMITIVE_TOPOLOGY,
    PSOC_SO_IB_STRIP_CUT_VALUE, PSOC_SO_FLAGS, PSOC_SO_NODE_MASK, PSOC_SO_INPUT_LAYOUT,
    PSOC_SO_STREAM_OUTPUT, PSOC_SO_VIEW_INSTANCING, PSOC_SO_CACHED_PSO,
  };
  static const uint32_t rt_formats[] = { /* plain, blend-less, not RT, optional, compressed */
    DXGI_FORMAT_UNKNOWN, DXGI_FORMAT_R8G8B8A8_UNORM, DXGI_FORMAT_R11G11B10_FLOAT,
    DXGI_FORMAT_R32_UINT, DXGI_FORMAT_D32_FLOAT, DXGI_FORMAT_R32G32B32_FLOAT, DXGI_FORMAT_BC1_UNORM,
    DXGI_FORMAT_UNKNOWN
  };
  static const uint32_t rasterizers[] = { PSOC_SO_RASTERIZER, PSOC_SO_RASTERIZER1, PSOC_SO_RASTERIZER2 };
  static const uint32_t depths[] = { PSOC_SO_DEPTH_STENCIL, PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL2 };
  psoc_check_options options[5];
  psoc_profile none; /* a made-up device without multisampling */
  uint32_t seed = 0x9e3779b9u;
  unsigned round, quiet_rounds = 0;
  memset(options, 0, sizeof options);
  options[1].profile = psoc_profile_find("max");
  options[2].profile = psoc_profile_default();
  options[2].flags = PSOC_CHECK_FOLLOW_LAYOUT;
  options[3].flags = PSOC_CHECK_WERROR;
  options[3].profile = psoc_profile_find("desktop_fl11_0");
  none = *psoc_profile_default();
  none.max_sample_count = 0;
  options[4].profile = &none;
  for (round = 0; round < 20000; round++) {
    D3D12_INPUT_ELEMENT_DESC el[2];
    sp_stream s;
    size_t at[40];
    uint32_t types[40], deciders = screen_rand(&seed) % 6, i, n = 0, k, mutations, tries = 0;
    int follow = (round % 5) == 2;
    const psoc_check_options *opt = &options[round % 5];
    sp_init(&s);
#define KEEP(call, type) (at[n] = (call), types[n++] = (type))
    if (deciders == 0 || deciders == 5) KEEP(sp_add_shader(&s, PSOC_SO_VS, 1), PSOC_SO_VS);
    if (deciders == 1) KEEP(sp_add_shader(&s, PSOC_SO_MS, 1), PSOC_SO_MS);
    if (deciders == 2) KEEP(sp_add_shader(&s, PSOC_SO_CS, 1), PSOC_SO_CS);
    if (deciders == 3) KEEP(sp_add_shader(&s, PSOC_SO_AS, 1), PSOC_SO_AS);
    if (deciders == 5) { /* tessellation, or half of it */
      if (screen_rand(&seed) % 4) KEEP(sp_add_shader(&s, PSOC_SO_HS, 1), PSOC_SO_HS);
      if (screen_rand(&seed) % 4) KEEP(sp_add_shader(&s, PSOC_SO_DS, 1), PSOC_SO_DS);
    }
    if (screen_rand(&seed) % 4) KEEP(sp_add_shader(&s, PSOC_SO_PS, 1), PSOC_SO_PS);
    for (i = 0; i < sizeof states / sizeof states[0]; i++) {
      uint32_t t = states[i];
      if (screen_rand(&seed) % 3 == 0) continue;
      if (t == PSOC_SO_INPUT_LAYOUT) {
        D3D12_INPUT_LAYOUT_DESC il = { el, 2 };
        memcpy(el, elements, sizeof el);
        switch (screen_rand(&seed) % 8) { /* read where the elements are followed */
        case 0: el[1].AlignedByteOffset = 13; break;
        case 1: el[1].Format = (DXGI_FORMAT)9999; break;
        case 2: el[1].InputSlot = 40; break;
        default: break;
        }
        KEEP(SP_ADD(&s, t, il), t);
      } else if (t == PSOC_SO_BLEND) {
        D3D12_BLEND_DESC b;
        memcpy(&b, psoc_subobject_info_get(t)->default_payload, sizeof b);
        if (screen_rand(&seed) % 2) {
          b.RenderTarget[0].BlendEnable = TRUE;
          b.RenderTarget[0].SrcBlend = D3D12_BLEND_SRC_ALPHA;
          b.RenderTarget[0].DestBlend = D3D12_BLEND_INV_SRC_ALPHA;
        }
        KEEP(SP_ADD(&s, t, b), t);
      } else if (t == PSOC_SO_RENDER_TARGET_FORMATS) {
        D3D12_RT_FORMAT_ARRAY r;
        memset(&r, 0, sizeof r);
        r.NumRenderTargets = screen_rand(&seed) % 4 ? 2 : screen_rand(&seed) % 3;
        for (k = 0; k < r.NumRenderTargets; k++)
          r.RTFormats[k] = screen_rand(&seed) % 2 ? (uint32_t)DXGI_FORMAT_R8G8B8A8_UNORM
                                                  : rt_formats[screen_rand(&seed) % 8];
        KEEP(SP_ADD(&s, t, r), t);
      } else if (t == PSOC_SO_DEPTH_STENCIL_FORMAT) {
        uint32_t f = screen_rand(&seed) % 4 ? (uint32_t)DXGI_FORMAT_D32_FLOAT : rt_formats[screen_rand(&seed) % 8];
        KEEP(SP_ADD(&s, t, f), t);
      } else {
        KEEP(sp_add_default(&s, t), t);
      }
    }
    if (screen_rand(&seed) % 4) {
      uint32_t t = rasterizers[screen_rand(&seed) % 3];
      KEEP(sp_add_default(&s, t), t);
    }
    if (screen_rand(&seed) % 4) {
      uint32_t t = depths[screen_rand(&seed) % 3];
      KEEP(sp_add_default(&s, t), t);
    }
#undef KEEP
    /* a few words of the state (not the shaders) set to boundary values */
    mutations = round % 5 == 0 ? 0 : 1 + screen_rand(&seed) % 3;
    for (k = 0; k < mutations && n > 0; k++) {
      uint32_t j = screen_rand(&seed) % n, t = types[j], v;
      const psoc_subobject_info *info = psoc_subobject_info_get(t);
      size_t word;
      if (PSOC_TYPE_BIT(t) & PSOC_SHADER_TYPES) {
        k--; /* another subobject; there is one that is no shader in most rounds */
        if (++tries > 20) break;
        continue;
      }
      if (follow && screen_has_pointers(t)) continue; /* the rules would follow the pointers */
      word = (screen_rand(&seed) % (info->payload->size / 4)) * 4;
      v = screen_rand(&seed);
      if (v % 4) v = values[(v >> 2) % (sizeof values / sizeof values[0])];
      if (screen_pointer_word(t, word)) {
        memset(s.data + at[j] + info->payload_offset + (word & ~(size_t)7), 0, 8);
      } else {
        memcpy(s.data + at[j] + info->payload_offset + word, &v, sizeof v);
      }
    }
    {
      psoc_diags a, b;
      psoc_check_options unscreened = *opt;
      unsigned char *buf = sp_exact(&s, s.size);
      psoc_status sa, sb;
      unscreened.flags |= PSOC_CHECK_UNSCREENED_;
      psoc_diags_init(&a, NULL);
      psoc_diags_init(&b, NULL);
      sa = psoc_check(buf, s.size, opt, &a);
      sb = psoc_check(buf, s.size, &unscreened, &b);
      ck_assert_int_eq(sa, sb);
      same_diags(&a, &b, round);
      if (a.count == 0) quiet_rounds++;
      psoc_diags_free(&a);
      psoc_diags_free(&b);
      free(buf);
    }
    sp_free(&s);
  }
  /* both sides are exercised: pipelines with nothing to say, and others */
  ck_assert_uint_gt(quiet_rounds, 200);
  ck_assert_uint_lt(quiet_rounds, 19000);
}
END_TEST

Suite *suite_rules(void) {
  Suite *s = suite_create("rules");
  TCase *tc = tcase_create("kind");
  tcase_add_loop_test(tc, test_kind, 0, (int)(sizeof kind_cases / sizeof kind_cases[0]));
  tcase_add_test(tc, test_ambiguous_message);
  suite_add_tcase(s, tc);
  tc = tcase_create("irrelevant");
  tcase_add_loop_test(tc, test_irrelevant, 0,
                      (int)(sizeof irrelevant_cases / sizeof irrelevant_cases[0]));
  tcase_add_test(tc, test_all_relevant);
  tcase_add_test(tc, test_irrelevant_duplicate);
  tcase_add_test(tc, test_irrelevant_every_type);
  suite_add_tcase(s, tc);
  tc = tcase_create("tables");
  tcase_add_test(tc, test_valid_sets);
  tcase_add_test(tc, test_message_format);
  tcase_add_test(tc, test_message_pieces);
  tcase_add_test(tc, test_registry_name_len);
  tcase_add_test(tc, test_dsv_not_set_text);
  suite_add_tcase(s, tc);
  tc = tcase_create("check");
  tcase_add_test(tc, test_check_appends);
  tcase_add_test(tc, test_check_without_memory);
  tcase_add_test(tc, test_structure_only);
  suite_add_tcase(s, tc);
  tc = tcase_create("screens"); /* 20,000 pipelines checked twice: a second in release */
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_screens_agree);
  tcase_add_test(tc, test_screen_dual_source);
  suite_add_tcase(s, tc);
  return s;
}
