/*
** test_explain.c: psoc_explain, psoc_diff_* and psoc_json (src/explain.c):
** rows as data for hand-built streams, hidden defaults, versions and
** offsets, pointers not followed on raw bytes, allocator failures, and the
** same text as the pso module's p:explain_table() (its own flattening, an
** independent oracle) and p:json() for material scripts. p:json() is
** psoc_json since the bindings switched to it, so that comparison now
** checks the wrapper's name, root-signature name and flags; the JSON text
** itself was compared with the bindings' former writer when src/explain.c
** came in (test_scripts.sh checks only the ends of 'dump --json').
*/
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "compat.h" /* lua_rawlen on Lua 5.1 and LuaJIT */
#include "pso_module.h"
#include "psoc.h"
#include "psol.h"
#include "stream_pack.h"
#include "suites.h"

/* ---- helpers ------------------------------------------------------ */

static const unsigned char vs_code[40] = { 0x44, 0x58, 0x42, 0x43, 1, 2, 3 };

static psoc_stream *build2(uint32_t t1, const void *p1, size_t s1, uint32_t t2, const void *p2,
                           size_t s2) {
  psoc_builder *b;
  psoc_stream *s;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  if (p1) ck_assert_int_eq(psoc_builder_add(b, t1, p1, s1), PSOC_OK);
  if (p2) ck_assert_int_eq(psoc_builder_add(b, t2, p2, s2), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  psoc_builder_free(b);
  return s;
}

static D3D12_SHADER_BYTECODE vs_bytecode(void) {
  D3D12_SHADER_BYTECODE bc;
  bc.pShaderBytecode = vs_code;
  bc.BytecodeLength = sizeof vs_code;
  return bc;
}

static const psoc_explain_row *row_of(const psoc_explanation *e, const char *path) {
  size_t i;
  for (i = 0; i < e->count; i++)
    if (strcmp(e->rows[i].path, path) == 0) return &e->rows[i];
  return NULL;
}

static const psoc_explain_options follow = { PSOC_FOLLOW_POINTERS, NULL };

static void explain_stream(const psoc_stream *s, const psoc_explain_options *o, psoc_explanation *e) {
  ck_assert_int_eq(psoc_explain(psoc_stream_data(s), psoc_stream_size(s), o, NULL, e), PSOC_OK);
}

/* ---- explain ------------------------------------------------------ */

START_TEST(test_explain_defaults_and_hidden) {
  D3D12_SHADER_BYTECODE vs = vs_bytecode();
  psoc_stream *s = build2(PSOC_SO_VS, &vs, sizeof vs, 0, NULL, 0);
  psoc_explanation e;
  const psoc_explain_row *r;
  explain_stream(s, &follow, &e);
  ck_assert_int_eq(e.kind, PSOC_KIND_GRAPHICS);
  ck_assert_uint_eq(e.subobjects, 1);
  ck_assert_uint_eq(e.render_targets, 0);
  /* the stream's shader, by content */
  r = row_of(&e, "vs");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(strncmp(r->value, "shader, 40 bytes, xxh3 ", 23), 0);
  ck_assert_uint_eq(strlen(r->value), 23 + 16);
  ck_assert_int_eq(r->origin, PSOC_ORIGIN_EXPLICIT);
  ck_assert_uint_eq(r->dup_class, PSOC_SO_VS);
  ck_assert_int_eq(r->field_kind, PSOC_FIELD_BLOB);
  /* runtime defaults of absent classes */
  r = row_of(&e, "rasterizer.cull");
  ck_assert_ptr_nonnull(r);
  ck_assert_str_eq(r->value, "back");
  ck_assert_int_eq(r->origin, PSOC_ORIGIN_DEFAULT);
  ck_assert_ptr_null(r->note);
  ck_assert_str_eq(row_of(&e, "sample_mask")->value, "4294967295");
  ck_assert_str_eq(row_of(&e, "rasterizer.depth_clip")->value, "true");
  /* the hidden defaults, with why */
  r = row_of(&e, "topology");
  ck_assert_ptr_nonnull(r);
  ck_assert_str_eq(r->value, "triangle");
  ck_assert_int_eq(r->origin, PSOC_ORIGIN_HIDDEN_DEFAULT);
  ck_assert_ptr_nonnull(r->note);
  ck_assert_ptr_nonnull(strstr(r->note, "triangles"));
  r = row_of(&e, "depth_stencil.depth");
  ck_assert_ptr_nonnull(r);
  ck_assert_str_eq(r->value, "false"); /* the default payload says true */
  ck_assert_int_eq(r->origin, PSOC_ORIGIN_HIDDEN_DEFAULT);
  ck_assert_int_eq(row_of(&e, "depth_stencil.func")->origin, PSOC_ORIGIN_DEFAULT);
  /* one render target listed when none is set; classes of other kinds absent */
  ck_assert_ptr_nonnull(row_of(&e, "blend.render_targets[1].src"));
  ck_assert_ptr_null(row_of(&e, "blend.render_targets[2].src"));
  ck_assert_ptr_null(row_of(&e, "cs"));
  ck_assert_ptr_null(row_of(&e, "ms"));
  /* no version row for an absent class */
  ck_assert_ptr_null(row_of(&e, "rasterizer"));
  psoc_explain_free(&e);
  ck_assert_ptr_null(e.rows);
  psoc_explain_free(&e); /* twice is harmless */
  psoc_stream_free(s);
}
END_TEST

START_TEST(test_explain_versions_offsets_render_targets) {
  D3D12_SHADER_BYTECODE vs = vs_bytecode();
  psoc_rasterizer_desc1 r1;
  D3D12_RT_FORMAT_ARRAY rt;
  psoc_builder *b;
  psoc_stream *s;
  psoc_explanation e;
  const psoc_explain_row *r;
  memset(&r1, 0, sizeof r1);
  r1.FillMode = D3D12_FILL_MODE_WIREFRAME;
  r1.CullMode = D3D12_CULL_MODE_NONE;
  r1.DepthBias = 0.5f;
  memset(&rt, 0, sizeof rt);
  rt.NumRenderTargets = 3;
  rt.RTFormats[0] = DXGI_FORMAT_R8G8B8A8_UNORM;
  rt.RTFormats[2] = DXGI_FORMAT_R16G16B16A16_FLOAT;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_RASTERIZER1, &r1, sizeof r1), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_RENDER_TARGET_FORMATS, &rt, sizeof rt), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  psoc_builder_free(b);
  explain_stream(s, &follow, &e);
  ck_assert_uint_eq(e.subobjects, 3);
  ck_assert_uint_eq(e.render_targets, 3);
  r = row_of(&e, "rasterizer");
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->what, PSOC_EXPLAIN_VERSION);
  ck_assert_str_eq(r->value, "rasterizer1");
  ck_assert_int_eq(r->offset, -1);
  ck_assert_uint_eq(r->type, PSOC_SO_RASTERIZER1);
  ck_assert_uint_eq(r->dup_class, PSOC_SO_RASTERIZER);
  /* the version row comes before its fields */
  ck_assert_ptr_eq(r + 1, row_of(&e, "rasterizer.fill"));
  r = row_of(&e, "rasterizer.cull");
  ck_assert_str_eq(r->value, "none");
  ck_assert_int_eq(r->origin, PSOC_ORIGIN_EXPLICIT);
  ck_assert_int_eq(r->offset, (int)offsetof(psoc_rasterizer_desc1, CullMode));
  ck_assert_uint_eq(r->type, PSOC_SO_RASTERIZER1);
  ck_assert_str_eq(row_of(&e, "rasterizer.fill")->value, "wireframe");
  ck_assert_str_eq(row_of(&e, "rasterizer.depth_bias")->value, "0.5");
  ck_assert_int_eq(row_of(&e, "rasterizer.depth_bias")->field_kind, PSOC_FIELD_FLOAT);
  /* render targets as a list; blend lists as many as are in effect */
  ck_assert_str_eq(row_of(&e, "render_targets[1]")->value, "r8g8b8a8_unorm");
  ck_assert_str_eq(row_of(&e, "render_targets[2]")->value, "unknown");
  ck_assert_str_eq(row_of(&e, "render_targets[3]")->value, "r16g16b16a16_float");
  ck_assert_int_eq(row_of(&e, "render_targets[3]")->offset,
                   (int)offsetof(D3D12_RT_FORMAT_ARRAY, RTFormats[2]));
  ck_assert_ptr_null(row_of(&e, "render_targets[4]"));
  ck_assert_ptr_nonnull(row_of(&e, "blend.render_targets[3].write_mask"));
  ck_assert_str_eq(row_of(&e, "blend.render_targets[3].write_mask")->value, "all");
  ck_assert_ptr_null(row_of(&e, "blend.render_targets[4].write_mask"));
  /* depth testing follows the (absent) depth-stencil default once a format could be given:
  ** here none is, so it is still hidden */
  ck_assert_int_eq(row_of(&e, "depth_stencil.depth")->origin, PSOC_ORIGIN_HIDDEN_DEFAULT);
  psoc_explain_free(&e);
  psoc_stream_free(s);
}
END_TEST

START_TEST(test_explain_arrays_followed_or_not) {
  D3D12_SHADER_BYTECODE vs = vs_bytecode();
  D3D12_INPUT_ELEMENT_DESC el[2];
  D3D12_INPUT_LAYOUT_DESC il;
  psoc_stream *s;
  psoc_explanation e;
  const psoc_explain_row *r;
  sp_stream raw;
  unsigned char *copy;
  memset(el, 0, sizeof el);
  el[0].SemanticName = "POSITION";
  el[0].Format = DXGI_FORMAT_R32G32B32_FLOAT;
  el[0].AlignedByteOffset = D3D12_APPEND_ALIGNED_ELEMENT;
  el[1].SemanticName = "TEXCOORD";
  el[1].SemanticIndex = 1;
  el[1].Format = DXGI_FORMAT_R32G32_FLOAT;
  el[1].AlignedByteOffset = 12;
  il.pInputElementDescs = el;
  il.NumElements = 2;
  s = build2(PSOC_SO_VS, &vs, sizeof vs, PSOC_SO_INPUT_LAYOUT, &il, sizeof il);
  explain_stream(s, &follow, &e);
  ck_assert_str_eq(row_of(&e, "input_layout[1].semantic")->value, "POSITION");
  ck_assert_str_eq(row_of(&e, "input_layout[1].offset")->value, "append_aligned");
  ck_assert_str_eq(row_of(&e, "input_layout[2].offset")->value, "12");
  ck_assert_str_eq(row_of(&e, "input_layout[2].format")->value, "r32g32_float");
  /* elements out of line give their array field's offset */
  r = row_of(&e, "input_layout[2].semantic");
  ck_assert_int_eq(r->offset, (int)offsetof(D3D12_INPUT_LAYOUT_DESC, pInputElementDescs));
  ck_assert_ptr_null(row_of(&e, "input_layout[3].semantic"));
  psoc_explain_free(&e);
  psoc_stream_free(s);

  /* raw bytes whose pointers point nowhere: never followed */
  sp_init(&raw);
  vs.pShaderBytecode = (const void *)(uintptr_t)0x10;
  il.pInputElementDescs = (const D3D12_INPUT_ELEMENT_DESC *)(uintptr_t)0x20;
  il.NumElements = 5;
  sp_add(&raw, PSOC_SO_VS, &vs, sizeof vs);
  sp_add(&raw, PSOC_SO_INPUT_LAYOUT, &il, sizeof il);
  copy = malloc(raw.size);
  ck_assert_ptr_nonnull(copy);
  memcpy(copy, raw.data, raw.size);
  {
    psoc_explain_options none = { 0, "rs_main" };
    ck_assert_int_eq(psoc_explain(copy, raw.size, &none, NULL, &e), PSOC_OK);
  }
  ck_assert_str_eq(row_of(&e, "input_layout")->value, "5 elements, not followed");
  ck_assert_int_eq(row_of(&e, "input_layout")->field_kind, PSOC_FIELD_ARRAY);
  ck_assert_ptr_null(row_of(&e, "input_layout[1].semantic"));
  ck_assert_str_eq(row_of(&e, "vs")->value, "shader, 40 bytes");
  ck_assert_str_eq(row_of(&e, "root_signature")->value, "rs_main"); /* the name stands in */
  psoc_explain_free(&e);
  free(copy);
  sp_free(&raw);
}
END_TEST

START_TEST(test_explain_bad_input) {
  psoc_explanation e;
  psoc_explain_options o = { 0, NULL };
  unsigned char junk[16];
  uint32_t t = 23; /* not a subobject type */
  memset(junk, 0, sizeof junk);
  memcpy(junk, &t, sizeof t);
  ck_assert_int_eq(psoc_explain(junk, sizeof junk, &o, NULL, NULL), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_explain(junk, sizeof junk, NULL, NULL, &e), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_explain(junk, sizeof junk, &o, NULL, &e), PSOC_ERR_INVALID);
  ck_assert_ptr_null(e.rows);
  ck_assert_int_eq(psoc_explain(NULL, 0, &o, NULL, &e), PSOC_ERR_INVALID);
  ck_assert_int_eq(psoc_json(junk, sizeof junk, &o, NULL, NULL, NULL), PSOC_ERR_ARG);
}
END_TEST

/* An allocator that fails once 'left' allocations were made. */
typedef struct limited {
  int left, live;
} limited;

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  limited *l = ud;
  (void)osize;
  if (nsize == 0) {
    if (ptr) l->live--;
    free(ptr);
    return NULL;
  }
  if (l->left-- <= 0) return NULL;
  if (!ptr) l->live++;
  return realloc(ptr, nsize);
}

START_TEST(test_explain_out_of_memory) {
  D3D12_SHADER_BYTECODE vs = vs_bytecode();
  psoc_stream *s = build2(PSOC_SO_VS, &vs, sizeof vs, 0, NULL, 0);
  int n, ok = 0;
  for (n = 0; n < 64 && !ok; n++) {
    limited l = { n, 0 };
    psoc_allocator a;
    psoc_explanation e;
    psoc_diff d;
    psoc_status st;
    a.fn = limited_alloc;
    a.ud = &l;
    st = psoc_explain(psoc_stream_data(s), psoc_stream_size(s), &follow, &a, &e);
    if (st == PSOC_OK) {
      ck_assert_int_eq(l.live, 1); /* one block */
      psoc_explain_free(&e);
      l.left = n;
      st = psoc_diff_streams(psoc_stream_data(s), psoc_stream_size(s), &follow,
                             psoc_stream_data(s), psoc_stream_size(s), &follow, &a, &d);
      if (st == PSOC_OK) {
        ck_assert_uint_eq(d.count, 0);
        psoc_diff_free(&d);
        ok = 1;
      } else {
        ck_assert_int_eq(st, PSOC_ERR_NOMEM);
      }
    } else {
      ck_assert_int_eq(st, PSOC_ERR_NOMEM);
      ck_assert_ptr_null(e.rows);
    }
    ck_assert_int_eq(l.live, 0); /* nothing leaks on either path */
  }
  ck_assert(ok);
  psoc_stream_free(s);
}
END_TEST

/* ---- diff --------------------------------------------------------- */

START_TEST(test_diff_fields_kind_and_sides) {
  D3D12_SHADER_BYTECODE vs = vs_bytecode();
  D3D12_RASTERIZER_DESC ra, rb;
  D3D12_RT_FORMAT_ARRAY rt;
  psoc_stream *a, *b, *c;
  psoc_diff d;
  size_t i;
  int saw_cull = 0, saw_rt2 = 0;
  memset(&ra, 0, sizeof ra);
  ra.FillMode = D3D12_FILL_MODE_SOLID;
  ra.CullMode = D3D12_CULL_MODE_BACK;
  ra.DepthClipEnable = TRUE;
  rb = ra;
  rb.CullMode = D3D12_CULL_MODE_NONE;
  memset(&rt, 0, sizeof rt);
  rt.NumRenderTargets = 2;
  a = build2(PSOC_SO_VS, &vs, sizeof vs, PSOC_SO_RASTERIZER, &ra, sizeof ra);
  b = build2(PSOC_SO_VS, &vs, sizeof vs, PSOC_SO_RASTERIZER, &rb, sizeof rb);
  /* the same: nothing */
  ck_assert_int_eq(psoc_diff_streams(psoc_stream_data(a), psoc_stream_size(a), &follow,
                                     psoc_stream_data(a), psoc_stream_size(a), &follow, NULL, &d),
                   PSOC_OK);
  ck_assert_uint_eq(d.count, 0);
  psoc_diff_free(&d);
  /* one field */
  ck_assert_int_eq(psoc_diff_streams(psoc_stream_data(a), psoc_stream_size(a), &follow,
                                     psoc_stream_data(b), psoc_stream_size(b), &follow, NULL, &d),
                   PSOC_OK);
  ck_assert_uint_eq(d.count, 1);
  ck_assert_str_eq(d.rows[0].path, "rasterizer.cull");
  ck_assert_str_eq(d.rows[0].a, "back");
  ck_assert_str_eq(d.rows[0].b, "none");
  psoc_diff_free(&d);
  psoc_stream_free(b);
  /* a field only one side has (a second render target), and a changed one */
  b = build2(PSOC_SO_RASTERIZER, &rb, sizeof rb, PSOC_SO_RENDER_TARGET_FORMATS, &rt, sizeof rt);
  {
    psoc_builder *bu;
    ck_assert_int_eq(psoc_builder_new(NULL, &bu), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(bu, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(bu, PSOC_SO_RASTERIZER, &rb, sizeof rb), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(bu, PSOC_SO_RENDER_TARGET_FORMATS, &rt, sizeof rt), PSOC_OK);
    psoc_stream_free(b);
    ck_assert_int_eq(psoc_builder_finish(bu, &b), PSOC_OK);
    psoc_builder_free(bu);
  }
  ck_assert_int_eq(psoc_diff_streams(psoc_stream_data(a), psoc_stream_size(a), &follow,
                                     psoc_stream_data(b), psoc_stream_size(b), &follow, NULL, &d),
                   PSOC_OK);
  for (i = 0; i < d.count; i++) {
    if (strcmp(d.rows[i].path, "rasterizer.cull") == 0) saw_cull = 1;
    if (strcmp(d.rows[i].path, "blend.render_targets[2].src") == 0) {
      ck_assert_ptr_null(d.rows[i].a);
      ck_assert_str_eq(d.rows[i].b, "one");
      ck_assert(saw_cull); /* rows only B has come after A's */
      saw_rt2 = 1;
    }
  }
  ck_assert(saw_cull && saw_rt2);
  psoc_diff_free(&d);
  /* kinds differ: "kind" first; rows A has and B lacks have b NULL */
  c = build2(PSOC_SO_CS, &vs, sizeof vs, 0, NULL, 0);
  ck_assert_int_eq(psoc_diff_streams(psoc_stream_data(a), psoc_stream_size(a), &follow,
                                     psoc_stream_data(c), psoc_stream_size(c), &follow, NULL, &d),
                   PSOC_OK);
  ck_assert_uint_gt(d.count, 2);
  ck_assert_str_eq(d.rows[0].path, "kind");
  ck_assert_str_eq(d.rows[0].a, "graphics");
  ck_assert_str_eq(d.rows[0].b, "compute");
  ck_assert_str_eq(d.rows[1].path, "vs");
  ck_assert_ptr_null(d.rows[1].b);
  ck_assert_str_eq(d.rows[d.count - 1].path, "cs");
  ck_assert_ptr_null(d.rows[d.count - 1].a);
  psoc_diff_free(&d);
  psoc_stream_free(a);
  psoc_stream_free(b);
  psoc_stream_free(c);
}
END_TEST

/* ---- json --------------------------------------------------------- */

typedef struct sink {
  char *data;
  size_t len;
  int fail_after; /* calls before a failure; <0 never */
  int calls;
} sink;

static int sink_write(void *ud, const char *text, size_t length) {
  sink *s = ud;
  char *p;
  if (s->fail_after >= 0 && s->calls++ >= s->fail_after) return 1;
  p = realloc(s->data, s->len + length + 1);
  ck_assert_ptr_nonnull(p);
  memcpy(p + s->len, text, length);
  s->data = p;
  s->len += length;
  s->data[s->len] = '\0';
  return 0;
}

START_TEST(test_json_object) {
  D3D12_SHADER_BYTECODE vs = vs_bytecode();
  psoc_stream *s = build2(PSOC_SO_VS, &vs, sizeof vs, 0, NULL, 0);
  psoc_explain_options o = { PSOC_FOLLOW_POINTERS, "forward" };
  sink k = { NULL, 0, -1, 0 };
  psoc_hash128 h;
  char hex[33], want[320];
  ck_assert_int_eq(psoc_json(psoc_stream_data(s), psoc_stream_size(s), &o, "lit\xff", sink_write,
                             &k),
                   PSOC_OK);
  ck_assert_int_eq(psoc_hash(psoc_stream_data(s), psoc_stream_size(s), PSOC_FOLLOW_POINTERS,
                             "forward", &h),
                   PSOC_OK);
  psoc_hash_hex(h, hex);
  snprintf(want, sizeof want,
           "{\"name\":\"lit\\ufffd\",\"kind\":\"graphics\",\"root_signature\":\"forward\","
           "\"hash\":\"%s\",\"subobjects\":[\"vs\"],\"state\":{\"root_signature\":\"forward\","
           "\"vs\":{\"kind\":\"shader\",\"size\":40,\"xxh3\":\"",
           hex);
  ck_assert_int_eq(strncmp(k.data, want, strlen(want)), 0);
  ck_assert_ptr_nonnull(strstr(k.data, ",\"topology\":\"triangle\","));
  ck_assert_ptr_nonnull(strstr(k.data, "\"sample_mask\":4294967295,"));
  ck_assert_ptr_nonnull(strstr(k.data, "\"depth_bias_clamp\":0,"));
  /* every render target in JSON (explain lists those in effect) */
  ck_assert_ptr_nonnull(strstr(k.data, "\"render_targets\":[{"));
  {
    size_t n = 0;
    const char *p = k.data;
    while ((p = strstr(p, "\"logic_op_enable\"")) != NULL) n++, p++;
    ck_assert_uint_eq(n, 8);
  }
  ck_assert_int_eq(k.data[k.len - 1], '}');
  ck_assert_ptr_null(strstr(k.data, "\"cs\""));
  free(k.data);
  /* a failing writer: PSOC_ERR_IO */
  memset(&k, 0, sizeof k);
  k.fail_after = 0;
  ck_assert_int_eq(psoc_json(psoc_stream_data(s), psoc_stream_size(s), &o, NULL, sink_write, &k),
                   PSOC_ERR_IO);
  free(k.data);
  psoc_stream_free(s);
}
END_TEST

/* ---- the same text as the pso module ------------------------------- */

static const char *const materials[] = {
  "local pso = require 'pso' return pso.graphics { name = 'a', vs = pso.shader { bytes = 'vs' }, "
  "ps = pso.shader { bytes = 'ps' }, rasterizer = { cull = 'none', depth_bias = 0.25 }, "
  "render_targets = { 'r8g8b8a8_unorm', 'r16g16_float' }, depth_format = 'd32_float', "
  "input_layout = { { 'POSITION', 'r32g32b32_float' }, { 'TEXCOORD', 'r32g32_float' } }, "
  "root_signature = 'forward' }",
  "local pso = require 'pso' return pso.graphics { vs = pso.shader { bytes = 'vs' }, "
  "depth_stencil1 = { depth = true, func = 'greater' }, blend = { render_targets = { { enable = "
  "true, src = 'src_alpha', dst = 'inv_src_alpha' } } }, topology = 'line', "
  "stream_output = { entries = { { semantic = 'A', component_count = 1 } }, strides = { 4 } } }",
  "local pso = require 'pso' return pso.compute { name = 'c', cs = pso.shader { bytes = 'cs' } }",
  "local pso = require 'pso' return pso.mesh { ms = pso.shader { bytes = 'ms' }, "
  "rasterizer2 = { fill = 'wireframe' }, view_instancing = { locations = { { viewport = 1 }, { render_target = 2 } } } }",
};

/* p:METHOD() of the pipeline the script returns, as a malloc'd string. */
static char *method_text(lua_State *L, const char *method) {
  const char *t;
  char *out;
  lua_getfield(L, -1, method);
  lua_pushvalue(L, -2);
  ck_assert_int_eq(psol_pcall(L, 1, 1), LUA_OK);
  t = lua_tostring(L, -1);
  ck_assert_ptr_nonnull(t);
  out = strdup(t);
  lua_pop(L, 1);
  return out;
}

START_TEST(test_same_text_as_module) {
  lua_State *L = psol_newstate(NULL, NULL, 0);
  size_t m;
  ck_assert_ptr_nonnull(L);
  for (m = 0; m < sizeof materials / sizeof materials[0]; m++) {
    pso_pipeline *p;
    const psoc_stream *s;
    psoc_explanation e;
    psoc_explain_options o;
    sink k = { NULL, 0, -1, 0 };
    char *json;
    size_t i, n;
    ck_assert_msg(psol_dostring(L, "=m", materials[m], strlen(materials[m]), 1) == LUA_OK,
                  "material %zu: %s", m, lua_tostring(L, -1));
    p = pso_topipeline(L, -1);
    ck_assert_ptr_nonnull(p);
    s = pso_pipeline_stream(p);
    o.flags = PSOC_FOLLOW_POINTERS;
    o.root_signature_name = pso_pipeline_root_signature(p);
    explain_stream(s, &o, &e);
    ck_assert_int_eq(e.kind, pso_pipeline_kind(p));
    /* p:explain_table(): the same paths and values, in the same order */
    lua_getfield(L, -1, "explain_table");
    lua_pushvalue(L, -2);
    ck_assert_int_eq(psol_pcall(L, 1, 1), LUA_OK);
    n = (size_t)lua_rawlen(L, -1);
    ck_assert_uint_eq(n, e.count);
    for (i = 0; i < n; i++) {
      lua_rawgeti(L, -1, (int)i + 1);
      lua_getfield(L, -1, "path");
      lua_getfield(L, -2, "value");
      ck_assert_str_eq(lua_tostring(L, -2), e.rows[i].path);
      ck_assert_str_eq(lua_tostring(L, -1), e.rows[i].value);
      lua_pop(L, 3);
    }
    lua_pop(L, 1);
    psoc_explain_free(&e);
    /* p:json(): byte for byte */
    json = method_text(L, "json");
    ck_assert_int_eq(psoc_json(psoc_stream_data(s), psoc_stream_size(s), &o, pso_pipeline_name(p),
                               sink_write, &k),
                     PSOC_OK);
    ck_assert_str_eq(k.data, json);
    free(k.data);
    free(json);
    lua_pop(L, 1);
  }
  psol_close(L);
}
END_TEST

/* pso_pipeline_origins: the labels p:explain() prints, per payload byte;
** pso_pipeline_subobjects: the builder's count. */
START_TEST(test_module_origins_and_count) {
  static const char src[] =
    "local pso = require 'pso' "
    "local base = pso.graphics { name = 'base', vs = pso.shader { bytes = 'vs' }, "
    "  blend = pso.blend.opaque, rasterizer = { cull = 'front' } } "
    "return { base, pso.derive(base, { name = 'd', rasterizer = { fill = 'wireframe' } }) }";
  lua_State *L = psol_newstate(NULL, NULL, 0);
  pso_origins *org = calloc(1, sizeof *org);
  const pso_pipeline *p;
  psoc_parsed parsed;
  ck_assert_ptr_nonnull(L);
  ck_assert_ptr_nonnull(org);
  ck_assert_int_eq(psol_dostring(L, "=m", src, strlen(src), 1), LUA_OK);
  lua_rawgeti(L, -1, 1); /* base */
  p = pso_topipeline(L, -1);
  ck_assert_int_eq(psoc_parse(psoc_stream_data(pso_pipeline_stream(p)),
                              psoc_stream_size(pso_pipeline_stream(p)), &parsed, NULL),
                   PSOC_OK);
  ck_assert_uint_eq(pso_pipeline_subobjects(p), parsed.count);
  ck_assert_uint_eq(pso_pipeline_subobjects(p), 3);
  ck_assert_uint_eq(pso_pipeline_subobjects(NULL), 0);
  /* a field the script set, and one it left to the runtime */
  ck_assert_int_eq(pso_pipeline_origins(L, -1, PSOC_SO_RASTERIZER, org), 1);
  ck_assert(org->known);
  ck_assert_uint_ne(org->label[offsetof(D3D12_RASTERIZER_DESC, CullMode)], 0);
  ck_assert_str_eq(org->text[org->label[offsetof(D3D12_RASTERIZER_DESC, CullMode)]], "script");
  ck_assert_uint_eq(org->label[offsetof(D3D12_RASTERIZER_DESC, FrontCounterClockwise)], 0);
  lua_pop(L, 1);
  /* a preset */
  ck_assert_int_eq(pso_pipeline_origins(L, -1, PSOC_SO_BLEND, org), 1);
  ck_assert_str_eq(org->text[org->label[offsetof(D3D12_BLEND_DESC, RenderTarget[0].SrcBlend)]],
                   "preset blend.opaque");
  lua_pop(L, 1);
  /* an absent class: nothing labelled */
  ck_assert_int_eq(pso_pipeline_origins(L, -1, PSOC_SO_DEPTH_STENCIL, org), 1);
  ck_assert(org->known);
  ck_assert_uint_eq(org->label[0], 0);
  lua_pop(L, 1);
  /* not a class base: an error message, nothing raised */
  ck_assert_int_eq(pso_pipeline_origins(L, -1, PSOC_SO_RASTERIZER1, org), 0);
  ck_assert(lua_isstring(L, -1));
  lua_pop(L, 2);
  /* the derived pipeline: its own field, then its base's */
  lua_rawgeti(L, -1, 2);
  ck_assert_int_eq(pso_pipeline_origins(L, -1, PSOC_SO_RASTERIZER, org), 1);
  ck_assert_str_eq(org->text[org->label[offsetof(D3D12_RASTERIZER_DESC, FillMode)]], "script");
  ck_assert_str_eq(org->text[org->label[offsetof(D3D12_RASTERIZER_DESC, CullMode)]], "base base");
  lua_pop(L, 2);
  lua_pop(L, 1);
  /* a declaration table changed after the pipeline was declared */
  {
    static const char mod[] =
      "local pso = require 'pso' local t = { vs = pso.shader { bytes = 'vs' }, "
      "rasterizer = { cull = 'front' } } local p = pso.graphics(t) t.rasterizer.cull = 'none' "
      "return p";
    ck_assert_int_eq(psol_dostring(L, "=mod", mod, strlen(mod), 1), LUA_OK);
    ck_assert_int_eq(pso_pipeline_origins(L, -1, PSOC_SO_RASTERIZER, org), 1);
    ck_assert(!org->known);
    lua_pop(L, 2);
  }
  psol_close(L);
  free(org);
}
END_TEST

Suite *suite_explain(void) {
  Suite *s = suite_create("explain");
  TCase *tc = tcase_create("explain");
  tcase_add_test(tc, test_explain_defaults_and_hidden);
  tcase_add_test(tc, test_explain_versions_offsets_render_targets);
  tcase_add_test(tc, test_explain_arrays_followed_or_not);
  tcase_add_test(tc, test_explain_bad_input);
  tcase_add_test(tc, test_explain_out_of_memory);
  tcase_add_test(tc, test_diff_fields_kind_and_sides);
  tcase_add_test(tc, test_json_object);
  tcase_add_test(tc, test_same_text_as_module);
  tcase_add_test(tc, test_module_origins_and_count);
  suite_add_tcase(s, tc);
  return s;
}
