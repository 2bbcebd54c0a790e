/*
** test_parse.c: the structural parse: layout, zero/NULL streams, truncation,
** trailing bytes, unknown types, duplicates, views, unaligned streams.
** Streams are packed by hand (stream_pack.h) and every check runs on an
** exactly-sized heap copy.
*/
#include <check.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* psoc_walk_check, psoc_walked_view */
#include "parse_walk.h" /* PSOC_WALK_DEFAULTS */
#include "rules_internal.h" /* psoc_rasterizer_default */
#include "psoc.h"
#include "stream_pack.h"
#include "suites.h"

#define MSG_INVALID "CREATEPIPELINESTATE_INVALID_STREAM"
#define MSG_UNKNOWN "CREATEPIPELINESTATE_UNKNOWN_SUBOBJECT"
#define MSG_DUP "CREATEPIPELINESTATE_DUPLICATE_SUBOBJECT"

static size_t stride_of(uint32_t type) { return psoc_subobject_info_get(type)->stride; }
static const char *name_of(uint32_t type) { return psoc_subobject_info_get(type)->name; }

/* ---- the registry's layout is d3dx12's ------------------------------ */

#define ALIGN_UP(x, a) (((x) + (a)-1) / (a) * (a))
#define EXPECT(T) { sizeof(T), alignof(T) }

static const struct { size_t size, align; } expected_layout[PSOC_SO_TYPE_COUNT] = {
  [PSOC_SO_ROOT_SIGNATURE] = EXPECT(ID3D12RootSignature *),
  [PSOC_SO_VS] = EXPECT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_PS] = EXPECT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_DS] = EXPECT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_HS] = EXPECT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_GS] = EXPECT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_CS] = EXPECT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_STREAM_OUTPUT] = EXPECT(D3D12_STREAM_OUTPUT_DESC),
  [PSOC_SO_BLEND] = EXPECT(D3D12_BLEND_DESC),
  [PSOC_SO_SAMPLE_MASK] = EXPECT(UINT),
  [PSOC_SO_RASTERIZER] = EXPECT(D3D12_RASTERIZER_DESC),
  [PSOC_SO_DEPTH_STENCIL] = EXPECT(D3D12_DEPTH_STENCIL_DESC),
  [PSOC_SO_INPUT_LAYOUT] = EXPECT(D3D12_INPUT_LAYOUT_DESC),
  [PSOC_SO_IB_STRIP_CUT_VALUE] = EXPECT(D3D12_INDEX_BUFFER_STRIP_CUT_VALUE),
  [PSOC_SO_PRIMITIVE_TOPOLOGY] = EXPECT(D3D12_PRIMITIVE_TOPOLOGY_TYPE),
  [PSOC_SO_RENDER_TARGET_FORMATS] = EXPECT(D3D12_RT_FORMAT_ARRAY),
  [PSOC_SO_DEPTH_STENCIL_FORMAT] = EXPECT(DXGI_FORMAT),
  [PSOC_SO_SAMPLE_DESC] = EXPECT(DXGI_SAMPLE_DESC),
  [PSOC_SO_NODE_MASK] = EXPECT(UINT),
  [PSOC_SO_CACHED_PSO] = EXPECT(D3D12_CACHED_PIPELINE_STATE),
  [PSOC_SO_FLAGS] = EXPECT(D3D12_PIPELINE_STATE_FLAGS),
  [PSOC_SO_DEPTH_STENCIL1] = EXPECT(D3D12_DEPTH_STENCIL_DESC1),
  [PSOC_SO_VIEW_INSTANCING] = EXPECT(D3D12_VIEW_INSTANCING_DESC),
  [PSOC_SO_AS] = EXPECT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_MS] = EXPECT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_DEPTH_STENCIL2] = EXPECT(D3D12_DEPTH_STENCIL_DESC2),
  [PSOC_SO_RASTERIZER1] = EXPECT(psoc_rasterizer_desc1),
  [PSOC_SO_RASTERIZER2] = EXPECT(psoc_rasterizer_desc2),
  [PSOC_SO_SERIALIZED_ROOT_SIGNATURE] = EXPECT(psoc_serialized_root_signature_desc),
};

START_TEST(test_registry_layout) {
  uint32_t t;
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    size_t off, stride;
    if (t == 23) {
      ck_assert_ptr_null(info);
      continue;
    }
    ck_assert_msg(info != NULL, "type %u has no registry row", t);
    off = ALIGN_UP(4u, expected_layout[t].align);
    stride = ALIGN_UP(off + expected_layout[t].size, sizeof(void *));
    ck_assert_uint_eq(info->type, t);
    ck_assert_msg(info->payload_offset == off, "%s payload at +%u, d3dx12 puts it at +%zu",
                  info->name, info->payload_offset, off);
    ck_assert_msg(info->stride == stride, "%s stride %u, d3dx12 %zu", info->name, info->stride,
                  stride);
    ck_assert_uint_eq(info->payload->size, expected_layout[t].size);
    /* psoc_classes_of's table: the row's class */
    ck_assert_uint_eq(psoc_registry_class_bits[t], PSOC_TYPE_BIT(info->dup_class));
    ck_assert_uint_eq(psoc_classes_of(PSOC_TYPE_BIT(t)), PSOC_TYPE_BIT(info->dup_class));
  }
  /* 4-byte payloads sit at +4, pointer payloads at +8 */
  ck_assert_uint_eq(psoc_subobject_info_get(PSOC_SO_PRIMITIVE_TOPOLOGY)->payload_offset, 4);
  ck_assert_uint_eq(psoc_subobject_info_get(PSOC_SO_PRIMITIVE_TOPOLOGY)->stride, 8);
  ck_assert_uint_eq(psoc_subobject_info_get(PSOC_SO_VS)->payload_offset, 8);
  ck_assert_uint_eq(psoc_subobject_info_get(PSOC_SO_VS)->stride, 24);
  ck_assert_uint_eq(psoc_subobject_info_get(PSOC_SO_SAMPLE_DESC)->stride, 16);
  ck_assert_ptr_null(psoc_subobject_info_get(30));
  ck_assert_ptr_null(psoc_subobject_info_get(31));
  ck_assert_ptr_null(psoc_subobject_info_get(0xFFFFFFFFu));
  /* duplicate classes */
  ck_assert_uint_eq(psoc_subobject_info_get(PSOC_SO_DEPTH_STENCIL1)->dup_class,
                    PSOC_SO_DEPTH_STENCIL);
  ck_assert_uint_eq(psoc_subobject_info_get(PSOC_SO_DEPTH_STENCIL2)->dup_class,
                    PSOC_SO_DEPTH_STENCIL);
  ck_assert_uint_eq(psoc_subobject_info_get(PSOC_SO_RASTERIZER1)->dup_class, PSOC_SO_RASTERIZER);
  ck_assert_uint_eq(psoc_subobject_info_get(PSOC_SO_RASTERIZER2)->dup_class, PSOC_SO_RASTERIZER);
  ck_assert_uint_eq(psoc_subobject_info_get(PSOC_SO_BLEND)->dup_class, PSOC_SO_BLEND);
}
END_TEST

/* ---- empty and NULL streams ---------------------------------------- */

START_TEST(test_zero_size) {
  static const unsigned char some[8] = { 1 };
  const void *ptrs[2] = { some, NULL };
  int i;
  for (i = 0; i < 2; i++) {
    psoc_diags d;
    psoc_parsed p;
    psoc_diags_init(&d, NULL);
    ck_assert_int_eq(psoc_check(ptrs[i], 0, NULL, &d), PSOC_ERR_INVALID);
    ck_assert_uint_eq(d.errors, 1);
    ck_assert_uint_eq(d.count, 1);
    SP_ASSERT_DIAG(&d.items[0], PSOC_SEVERITY_ERROR, PSOC_CODE_ZERO_SIZE_STREAM,
                   "CREATEPIPELINESTATE_ZERO_SIZE_STREAM", -1, -1, "SizeInBytes");
    psoc_diags_clear(&d);
    ck_assert_int_eq(psoc_parse(ptrs[i], 0, &p, &d), PSOC_ERR_INVALID);
    ck_assert_uint_eq(d.errors, 1);
    ck_assert_int_eq(d.items[0].code, PSOC_CODE_ZERO_SIZE_STREAM);
    ck_assert_uint_eq(p.count, 0);
    ck_assert_int_eq(p.kind, PSOC_KIND_NONE);
    ck_assert_int_eq(psoc_check(ptrs[i], 0, NULL, NULL), PSOC_ERR_INVALID);
    psoc_diags_free(&d);
  }
}
END_TEST

START_TEST(test_null_with_size) {
  psoc_diags d;
  psoc_parsed p;
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(psoc_check(NULL, 24, NULL, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 1);
  SP_ASSERT_DIAG(sp_find(&d, PSOC_CODE_NULL_STREAM, 0), PSOC_SEVERITY_ERROR,
                 PSOC_CODE_NULL_STREAM, MSG_INVALID, -1, -1, "pPipelineStateSubobjectStream");
  ck_assert_ptr_nonnull(strstr(d.items[0].message, "24"));
  psoc_diags_clear(&d);
  ck_assert_int_eq(psoc_parse(NULL, 8, &p, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 1);
  ck_assert_int_eq(p.count, 0);
  ck_assert_int_eq(psoc_parse(NULL, 8, NULL, &d), PSOC_ERR_ARG);
  psoc_diags_free(&d);
}
END_TEST

/* ---- a well-formed stream: the views ------------------------------- */

START_TEST(test_views) {
  sp_stream s;
  psoc_diags d;
  psoc_parsed p;
  unsigned char *buf;
  size_t o_vs, o_topo, o_rast, o_ds1, o_sample, o_ps;
  D3D12_PRIMITIVE_TOPOLOGY_TYPE topo = D3D12_PRIMITIVE_TOPOLOGY_TYPE_LINE;
  D3D12_RASTERIZER_DESC rast;
  D3D12_DEPTH_STENCIL_DESC1 ds1;
  DXGI_SAMPLE_DESC sample = { 4, 0 };
  D3D12_SHADER_BYTECODE code;

  memcpy(&rast, psoc_subobject_info_get(PSOC_SO_RASTERIZER)->default_payload, sizeof rast);
  rast.CullMode = D3D12_CULL_MODE_FRONT;
  rast.DepthBias = -5;
  memcpy(&ds1, psoc_subobject_info_get(PSOC_SO_DEPTH_STENCIL1)->default_payload, sizeof ds1);
  ds1.DepthEnable = FALSE;
  sp_init(&s);
  o_vs = sp_add_shader(&s, PSOC_SO_VS, 1);
  o_topo = SP_ADD(&s, PSOC_SO_PRIMITIVE_TOPOLOGY, topo);
  o_rast = SP_ADD(&s, PSOC_SO_RASTERIZER, rast);
  o_ds1 = SP_ADD(&s, PSOC_SO_DEPTH_STENCIL1, ds1);
  o_sample = SP_ADD(&s, PSOC_SO_SAMPLE_DESC, sample);
  o_ps = sp_add_shader(&s, PSOC_SO_PS, 0);
  ck_assert_uint_eq(o_topo, 24);
  ck_assert_uint_eq(o_rast, 32);
  ck_assert_uint_eq(o_ds1, 80);
  ck_assert_uint_eq(o_sample, 144);
  ck_assert_uint_eq(o_ps, 160);
  ck_assert_uint_eq(s.size, 184);

  buf = sp_exact(&s, s.size);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(psoc_parse(buf, s.size, &p, &d), PSOC_OK);
  ck_assert_uint_eq(d.count, 0);
  ck_assert_uint_eq(p.count, 6);
  ck_assert_uint_eq(p.present, 6);
  ck_assert_int_eq(p.complete, 1);
  ck_assert_int_eq(p.structural_errors, 0);
  ck_assert_int_eq(p.kind, PSOC_KIND_GRAPHICS);

  ck_assert_int_eq(p.has[PSOC_SO_VS], 1);
  ck_assert_uint_eq(p.views[PSOC_SO_VS].offset, o_vs);
  ck_assert_uint_eq(p.views[PSOC_SO_VS].index, 0);
  ck_assert_ptr_eq(p.views[PSOC_SO_VS].payload, buf + 8);
  memcpy(&code, p.views[PSOC_SO_VS].payload, sizeof code);
  ck_assert_ptr_eq(code.pShaderBytecode, sp_fake_dxil);
  ck_assert_uint_eq(code.BytecodeLength, sizeof sp_fake_dxil);

  ck_assert_ptr_eq(p.views[PSOC_SO_PRIMITIVE_TOPOLOGY].payload, buf + o_topo + 4);
  ck_assert_uint_eq(p.views[PSOC_SO_PRIMITIVE_TOPOLOGY].index, 1);
  ck_assert_ptr_eq(p.views[PSOC_SO_RASTERIZER].payload, buf + o_rast + 4);
  ck_assert_int_eq(memcmp(p.views[PSOC_SO_RASTERIZER].payload, &rast, sizeof rast), 0);
  ck_assert_ptr_eq(p.views[PSOC_SO_SAMPLE_DESC].payload, buf + o_sample + 4);
  ck_assert_uint_eq(p.views[PSOC_SO_SAMPLE_DESC].index, 4);
  ck_assert_ptr_eq(p.views[PSOC_SO_SAMPLE_DESC].info, psoc_subobject_info_get(PSOC_SO_SAMPLE_DESC));
  ck_assert_ptr_eq(p.views[PSOC_SO_PS].payload, buf + o_ps + 8);

  /* the depth-stencil class is supplied by DEPTH_STENCIL1 */
  ck_assert_int_eq(p.has[PSOC_SO_DEPTH_STENCIL], 0);
  ck_assert_int_eq(p.has[PSOC_SO_DEPTH_STENCIL1], 1);
  ck_assert_int_eq(p.class_type[PSOC_SO_DEPTH_STENCIL], PSOC_SO_DEPTH_STENCIL1);
  ck_assert_ptr_eq(psoc_parsed_class(&p, PSOC_SO_DEPTH_STENCIL), &p.views[PSOC_SO_DEPTH_STENCIL1]);
  ck_assert_uint_eq(psoc_parsed_class(&p, PSOC_SO_DEPTH_STENCIL)->offset, o_ds1);
  ck_assert_int_eq(p.class_type[PSOC_SO_BLEND], -1);
  ck_assert_ptr_null(psoc_parsed_class(&p, PSOC_SO_BLEND));
  ck_assert_ptr_null(psoc_parsed_class(&p, PSOC_SO_TYPE_COUNT));
  ck_assert_int_eq(p.has[PSOC_SO_CS], 0);

  ck_assert_int_eq(psoc_check(buf, s.size, NULL, &d), PSOC_OK);
  ck_assert_uint_eq(d.errors, 0);
  psoc_diags_free(&d);
  free(buf);
  sp_free(&s);
}
END_TEST

/* ---- truncation ------------------------------------------------------ */

static const uint32_t truncated_types[] = {
  PSOC_SO_VS, PSOC_SO_BLEND, PSOC_SO_RASTERIZER, PSOC_SO_DEPTH_STENCIL2, PSOC_SO_SAMPLE_DESC,
  PSOC_SO_INPUT_LAYOUT, PSOC_SO_VIEW_INSTANCING, PSOC_SO_RASTERIZER2, PSOC_SO_ROOT_SIGNATURE,
  PSOC_SO_PRIMITIVE_TOPOLOGY,
};

/* VS, then one subobject of type T cut at every length 1..stride-1. */
START_TEST(test_truncated_subobject) {
  uint32_t type = truncated_types[_i];
  size_t stride = stride_of(type), keep;
  sp_stream s;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  ck_assert_uint_eq(sp_add_default(&s, type), 24);
  for (keep = 1; keep < stride; keep++) {
    psoc_diags d;
    psoc_parsed p;
    unsigned char *buf = sp_exact(&s, 24 + keep);
    psoc_diags_init(&d, NULL);
    ck_assert_int_eq(sp_check_n(&s, 24 + keep, &d), PSOC_ERR_INVALID);
    ck_assert_msg(d.errors == 1, "%s cut to %zu bytes: %zu errors", name_of(type), keep,
                  d.errors);
    if (keep < 4)
      SP_ASSERT_DIAG(&d.items[0], PSOC_SEVERITY_ERROR, PSOC_CODE_TRAILING_BYTES, MSG_INVALID, 1,
                     24, "");
    else
      SP_ASSERT_DIAG(&d.items[0], PSOC_SEVERITY_ERROR, PSOC_CODE_TRUNCATED, MSG_INVALID, 1, 24,
                     name_of(type));
    psoc_diags_clear(&d);
    ck_assert_int_eq(psoc_parse(buf, 24 + keep, &p, &d), PSOC_ERR_INVALID);
    ck_assert_uint_eq(p.count, 1);
    ck_assert_int_eq(p.complete, 0);
    ck_assert_int_eq(p.has[PSOC_SO_VS], 1);
    ck_assert_int_eq(p.has[type] && type != PSOC_SO_VS, 0);
    free(buf);
    psoc_diags_free(&d);
  }
  /* and whole, it is fine structurally */
  {
    psoc_parsed p;
    unsigned char *buf = sp_exact(&s, s.size);
    ck_assert_int_eq(psoc_parse(buf, s.size, &p, NULL),
                     type == PSOC_SO_VS ? PSOC_ERR_INVALID /* duplicate */ : PSOC_OK);
    free(buf);
  }
  sp_free(&s);
}
END_TEST

/* A stream cut anywhere: valid exactly at subobject boundaries after VS. */
START_TEST(test_cut_everywhere) {
  sp_stream s;
  size_t bounds[8], nb = 0, len, i;
  DXGI_FORMAT dsv = DXGI_FORMAT_D32_FLOAT;
  UINT mask = 0xF;
  sp_init(&s);
  bounds[nb++] = SP_ADD(&s, PSOC_SO_SAMPLE_MASK, mask);
  bounds[nb++] = sp_add_shader(&s, PSOC_SO_VS, 1);
  bounds[nb++] = sp_add_default(&s, PSOC_SO_BLEND);
  bounds[nb++] = SP_ADD(&s, PSOC_SO_DEPTH_STENCIL_FORMAT, dsv);
  bounds[nb++] = sp_add_default(&s, PSOC_SO_DEPTH_STENCIL1);
  bounds[nb++] = sp_add_default(&s, PSOC_SO_RASTERIZER2);
  bounds[nb++] = s.size;
  for (len = 0; len <= s.size; len++) {
    psoc_diags d;
    int boundary = 0;
    for (i = 2; i < nb; i++) boundary |= len == bounds[i]; /* after VS */
    psoc_diags_init(&d, NULL);
    ck_assert_msg((sp_check_n(&s, len, &d) == PSOC_OK) == boundary, "cut at %zu: %s", len,
                  sp_summary(&d));
    ck_assert_uint_eq(d.errors == 0, boundary);
    psoc_diags_free(&d);
  }
  sp_free(&s);
}
END_TEST

START_TEST(test_trailing_bytes) {
  static const unsigned char junk[3] = { 0xAB, 0xCD, 0xEF };
  size_t k;
  for (k = 1; k <= 3; k++) {
    sp_stream s;
    psoc_diags d;
    sp_init(&s);
    sp_add_shader(&s, PSOC_SO_VS, 1);
    sp_add_default(&s, PSOC_SO_RASTERIZER);
    sp_bytes(&s, junk, k);
    psoc_diags_init(&d, NULL);
    ck_assert_int_eq(sp_check(&s, &d), PSOC_ERR_INVALID);
    ck_assert_uint_eq(d.errors, 1);
    SP_ASSERT_DIAG(&d.items[0], PSOC_SEVERITY_ERROR, PSOC_CODE_TRAILING_BYTES, MSG_INVALID, 2, 72,
                   "");
    psoc_diags_free(&d);
    sp_free(&s);
  }
}
END_TEST

/* The last subobject without its tail padding is truncated. */
START_TEST(test_missing_tail_padding) {
  static const uint32_t padded[] = { PSOC_SO_SAMPLE_DESC, PSOC_SO_DEPTH_STENCIL1, PSOC_SO_BLEND,
                                     PSOC_SO_RASTERIZER2 };
  size_t i;
  for (i = 0; i < sizeof padded / sizeof padded[0]; i++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(padded[i]);
    size_t used = info->payload_offset + info->payload->size;
    sp_stream s;
    psoc_diags d;
    ck_assert_msg(used < info->stride, "%s has no tail padding", info->name);
    sp_init(&s);
    sp_add_shader(&s, PSOC_SO_VS, 1);
    sp_add_default(&s, padded[i]);
    psoc_diags_init(&d, NULL);
    ck_assert_int_eq(sp_check_n(&s, 24 + used, &d), PSOC_ERR_INVALID);
    ck_assert_uint_eq(d.errors, 1);
    SP_ASSERT_DIAG(&d.items[0], PSOC_SEVERITY_ERROR, PSOC_CODE_TRUNCATED, MSG_INVALID, 1, 24,
                   info->name);
    psoc_diags_clear(&d);
    ck_assert_msg(sp_check(&s, &d) == PSOC_OK, "%s whole: %s", info->name, sp_summary(&d));
    psoc_diags_free(&d);
    sp_free(&s);
  }
}
END_TEST

/* ---- unknown types --------------------------------------------------- */

static const uint32_t unknown_types[] = { 23, 30, 31, 0x7FFFFFFFu, 0xFFFFFFFFu };

START_TEST(test_unknown_type) {
  uint32_t type = unknown_types[_i];
  char number[16];
  sp_stream s;
  psoc_diags d;
  psoc_parsed p;
  unsigned char *buf;
  snprintf(number, sizeof number, "%u", type);

  /* after a VS, followed by a valid PS */
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_raw(&s, type, 12);
  sp_add_shader(&s, PSOC_SO_PS, 1);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(sp_check(&s, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 1);
  SP_ASSERT_DIAG(&d.items[0], PSOC_SEVERITY_ERROR, PSOC_CODE_UNKNOWN_SUBOBJECT, MSG_UNKNOWN, 1, 24,
                 "type");
  ck_assert_msg(strstr(d.items[0].message, number) != NULL, "message '%s' lacks %s",
                d.items[0].message, number);
  buf = sp_exact(&s, s.size);
  psoc_diags_clear(&d);
  ck_assert_int_eq(psoc_parse(buf, s.size, &p, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(p.count, 1);
  ck_assert_int_eq(p.complete, 0);
  free(buf);
  sp_free(&s);

  /* first, with nothing after its 4 bytes */
  sp_init(&s);
  sp_add_raw(&s, type, 0);
  psoc_diags_clear(&d);
  ck_assert_int_eq(sp_check(&s, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 1);
  SP_ASSERT_DIAG(&d.items[0], PSOC_SEVERITY_ERROR, PSOC_CODE_UNKNOWN_SUBOBJECT, MSG_UNKNOWN, 0, 0,
                 "type");
  psoc_diags_free(&d);
  sp_free(&s);
}
END_TEST

/* ---- duplicates -------------------------------------------------------- */

static const uint32_t dup_pairs[][2] = {
  { PSOC_SO_DEPTH_STENCIL, PSOC_SO_DEPTH_STENCIL },   { PSOC_SO_DEPTH_STENCIL, PSOC_SO_DEPTH_STENCIL1 },
  { PSOC_SO_DEPTH_STENCIL, PSOC_SO_DEPTH_STENCIL2 },  { PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL },
  { PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL1 }, { PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL2 },
  { PSOC_SO_DEPTH_STENCIL2, PSOC_SO_DEPTH_STENCIL },  { PSOC_SO_DEPTH_STENCIL2, PSOC_SO_DEPTH_STENCIL1 },
  { PSOC_SO_DEPTH_STENCIL2, PSOC_SO_DEPTH_STENCIL2 }, { PSOC_SO_RASTERIZER, PSOC_SO_RASTERIZER },
  { PSOC_SO_RASTERIZER, PSOC_SO_RASTERIZER1 },        { PSOC_SO_RASTERIZER, PSOC_SO_RASTERIZER2 },
  { PSOC_SO_RASTERIZER1, PSOC_SO_RASTERIZER },        { PSOC_SO_RASTERIZER1, PSOC_SO_RASTERIZER1 },
  { PSOC_SO_RASTERIZER1, PSOC_SO_RASTERIZER2 },       { PSOC_SO_RASTERIZER2, PSOC_SO_RASTERIZER },
  { PSOC_SO_RASTERIZER2, PSOC_SO_RASTERIZER1 },       { PSOC_SO_RASTERIZER2, PSOC_SO_RASTERIZER2 },
  /* plain types twice */
  { PSOC_SO_PS, PSOC_SO_PS },                         { PSOC_SO_BLEND, PSOC_SO_BLEND },
  { PSOC_SO_SAMPLE_MASK, PSOC_SO_SAMPLE_MASK },       { PSOC_SO_ROOT_SIGNATURE, PSOC_SO_ROOT_SIGNATURE },
  { PSOC_SO_INPUT_LAYOUT, PSOC_SO_INPUT_LAYOUT },     { PSOC_SO_PRIMITIVE_TOPOLOGY, PSOC_SO_PRIMITIVE_TOPOLOGY },
  { PSOC_SO_VS, PSOC_SO_VS },
};

/* The duplicate's message as its two printf formats give it. */
static void duplicate_message(char *out, uint32_t first, uint32_t again, unsigned first_index,
                              size_t first_offset) {
  if (first == again)
    snprintf(out, PSOC_DIAG_MESSAGE_MAX, "%s appears again (first as subobject %u at offset %zu); "
             "each subobject type may appear once: remove one", name_of(again), first_index,
             first_offset);
  else
    snprintf(out, PSOC_DIAG_MESSAGE_MAX, "%s duplicates %s (subobject %u at offset %zu): they are "
             "versions of one state and may appear once together; keep one of them",
             name_of(again), name_of(first), first_index, first_offset);
}

START_TEST(test_duplicate_pair) {
  char want[PSOC_DIAG_MESSAGE_MAX];
  uint32_t a = dup_pairs[_i][0], b = dup_pairs[_i][1];
  uint32_t cls = psoc_subobject_info_get(a)->dup_class;
  DXGI_FORMAT dsv = DXGI_FORMAT_D32_FLOAT;
  sp_stream s;
  psoc_diags d;
  psoc_parsed p;
  unsigned char *buf;
  size_t at_a, at_b, at_gs;
  sp_init(&s);
  if (a != PSOC_SO_VS) sp_add_shader(&s, PSOC_SO_VS, 1);
  SP_ADD(&s, PSOC_SO_DEPTH_STENCIL_FORMAT, dsv);
  at_a = sp_add_default(&s, a);
  at_b = sp_add_default(&s, b);
  if (b == PSOC_SO_VS) {
    /* keep the duplicate VS non-null too: the first one decides */
    D3D12_SHADER_BYTECODE c = sp_code(1);
    memcpy(s.data + at_a + 8, &c, sizeof c);
    memcpy(s.data + at_b + 8, &c, sizeof c);
  }
  at_gs = sp_add_shader(&s, PSOC_SO_GS, 0);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(sp_check(&s, &d), PSOC_ERR_INVALID);
  ck_assert_msg(d.errors == 1, "%s then %s: %s", name_of(a), name_of(b), sp_summary(&d));
  SP_ASSERT_DIAG(sp_find(&d, PSOC_CODE_DUPLICATE_SUBOBJECT, 0), PSOC_SEVERITY_ERROR,
                 PSOC_CODE_DUPLICATE_SUBOBJECT, MSG_DUP, a == PSOC_SO_VS ? 2 : 3, (int64_t)at_b,
                 name_of(b));
  ck_assert_ptr_nonnull(strstr(sp_find(&d, PSOC_CODE_DUPLICATE_SUBOBJECT, 0)->message, name_of(a)));
  /* the message is built piece by piece: the text of its printf format */
  duplicate_message(want, a, b, a == PSOC_SO_VS ? 1u : 2u, at_a);
  ck_assert_str_eq(sp_find(&d, PSOC_CODE_DUPLICATE_SUBOBJECT, 0)->message, want);

  /* the first of the class is kept, and the walk went on to the end */
  buf = sp_exact(&s, s.size);
  psoc_diags_clear(&d);
  ck_assert_int_eq(psoc_parse(buf, s.size, &p, &d), PSOC_ERR_INVALID);
  ck_assert_str_eq(sp_find(&d, PSOC_CODE_DUPLICATE_SUBOBJECT, 0)->message, want);
  ck_assert_int_eq(p.complete, 1);
  ck_assert_int_eq(p.structural_errors, 1);
  ck_assert_uint_eq(p.count, a == PSOC_SO_VS ? 4 : 5);
  ck_assert_int_eq(p.class_type[cls], (int)a);
  ck_assert_int_eq(p.has[a], 1);
  ck_assert_uint_eq(p.views[a].offset, at_a);
  if (a != b) ck_assert_int_eq(p.has[b], 0);
  ck_assert_int_eq(p.has[PSOC_SO_GS], 1);
  ck_assert_uint_eq(p.views[PSOC_SO_GS].offset, at_gs);
  ck_assert_int_eq(p.kind, PSOC_KIND_GRAPHICS);
  free(buf);
  psoc_diags_free(&d);
  sp_free(&s);
}
END_TEST

/* Several problems in one stream: every duplicate, then the unknown type. */
START_TEST(test_multiple_problems) {
  sp_stream s;
  psoc_diags d;
  size_t at_ds, at_rast, at_rast1, at_unknown;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_default(&s, PSOC_SO_DEPTH_STENCIL1);
  at_ds = sp_add_default(&s, PSOC_SO_DEPTH_STENCIL);
  sp_add_default(&s, PSOC_SO_RASTERIZER2);
  at_rast = sp_add_default(&s, PSOC_SO_RASTERIZER);
  at_rast1 = sp_add_default(&s, PSOC_SO_RASTERIZER1);
  at_unknown = sp_add_raw(&s, 23, 4);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(sp_check(&s, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 4);
  ck_assert_uint_eq(sp_count(&d, PSOC_CODE_DUPLICATE_SUBOBJECT), 3);
  SP_ASSERT_DIAG(sp_find(&d, PSOC_CODE_DUPLICATE_SUBOBJECT, 0), PSOC_SEVERITY_ERROR,
                 PSOC_CODE_DUPLICATE_SUBOBJECT, MSG_DUP, 2, (int64_t)at_ds, "DEPTH_STENCIL");
  SP_ASSERT_DIAG(sp_find(&d, PSOC_CODE_DUPLICATE_SUBOBJECT, 1), PSOC_SEVERITY_ERROR,
                 PSOC_CODE_DUPLICATE_SUBOBJECT, MSG_DUP, 4, (int64_t)at_rast, "RASTERIZER");
  SP_ASSERT_DIAG(sp_find(&d, PSOC_CODE_DUPLICATE_SUBOBJECT, 2), PSOC_SEVERITY_ERROR,
                 PSOC_CODE_DUPLICATE_SUBOBJECT, MSG_DUP, 5, (int64_t)at_rast1, "RASTERIZER1");
  SP_ASSERT_DIAG(sp_find(&d, PSOC_CODE_UNKNOWN_SUBOBJECT, 0), PSOC_SEVERITY_ERROR,
                 PSOC_CODE_UNKNOWN_SUBOBJECT, MSG_UNKNOWN, 6, (int64_t)at_unknown, "type");
  psoc_diags_free(&d);
  sp_free(&s);

  /* a duplicate and no shader: both reported (the walk is complete) */
  sp_init(&s);
  {
    DXGI_FORMAT dsv = DXGI_FORMAT_D32_FLOAT;
    SP_ADD(&s, PSOC_SO_DEPTH_STENCIL_FORMAT, dsv);
  }
  sp_add_default(&s, PSOC_SO_DEPTH_STENCIL);
  sp_add_default(&s, PSOC_SO_DEPTH_STENCIL2);
  sp_add_shader(&s, PSOC_SO_CS, 0);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(sp_check(&s, &d), PSOC_ERR_INVALID);
  ck_assert_msg(d.errors == 2, "%s", sp_summary(&d));
  ck_assert_uint_eq(sp_count(&d, PSOC_CODE_DUPLICATE_SUBOBJECT), 1);
  ck_assert_uint_eq(sp_count(&d, PSOC_CODE_NO_SHADER), 1);
  psoc_diags_free(&d);
  sp_free(&s);
}
END_TEST

/* ---- unaligned streams ------------------------------------------------ */

START_TEST(test_unaligned) {
  size_t shift;
  sp_stream s;
  DXGI_SAMPLE_DESC sample = { 4, 0 };
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  SP_ADD(&s, PSOC_SO_SAMPLE_DESC, sample);
  sp_add_default(&s, PSOC_SO_RASTERIZER1);
  for (shift = 1; shift < 8; shift++) {
    unsigned char *block = malloc(s.size + shift), *at = block + shift;
    psoc_diags d;
    psoc_parsed p;
    psoc_resolved r;
    ck_assert_ptr_nonnull(block);
    memcpy(at, s.data, s.size);
    psoc_diags_init(&d, NULL);
    ck_assert_msg(psoc_check(at, s.size, NULL, &d) == PSOC_OK, "%s", sp_summary(&d));
    ck_assert_uint_eq(d.errors, 0);
    ck_assert_uint_eq(sp_count(&d, PSOC_CODE_UNALIGNED_STREAM), 1);
    SP_ASSERT_DIAG(sp_find(&d, PSOC_CODE_UNALIGNED_STREAM, 0), PSOC_SEVERITY_WARNING,
                   PSOC_CODE_UNALIGNED_STREAM, NULL, -1, -1, "pPipelineStateSubobjectStream");
    psoc_diags_clear(&d);
    ck_assert_int_eq(psoc_parse(at, s.size, &p, &d), PSOC_OK);
    ck_assert_uint_eq(p.count, 3);
    ck_assert_ptr_eq(p.views[PSOC_SO_SAMPLE_DESC].payload, at + 28);
    ck_assert_int_eq(p.kind, PSOC_KIND_GRAPHICS);
    ck_assert_int_eq(psoc_resolve(&p, &r), PSOC_OK);
    ck_assert_uint_eq(r.sample_desc.Count, 4);
    ck_assert_ptr_eq(r.vs.pShaderBytecode, sp_fake_dxil);
    psoc_diags_free(&d);
    free(block);
  }
  sp_free(&s);
}
END_TEST

/* ---- the walker -------------------------------------------------------- */

START_TEST(test_walker) {
  sp_stream s;
  psoc_walker w;
  psoc_view v;
  unsigned char *buf;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_default(&s, PSOC_SO_NODE_MASK);
  sp_bytes(&s, NULL, 2);
  buf = sp_exact(&s, s.size);
  psoc_walk_init(&w, buf, s.size);
  ck_assert_int_eq(psoc_walk_next(&w, &v, NULL), 1);
  ck_assert_uint_eq(v.type, PSOC_SO_VS);
  ck_assert_uint_eq(v.index, 0);
  ck_assert_int_eq(psoc_walk_next(&w, &v, NULL), 1);
  ck_assert_uint_eq(v.type, PSOC_SO_NODE_MASK);
  ck_assert_uint_eq(v.offset, 24);
  ck_assert_ptr_eq(v.payload, buf + 28);
  ck_assert_int_eq(psoc_walk_next(&w, &v, NULL), 0); /* 2 trailing bytes, no list */
  ck_assert_int_eq(w.done, 2);
  ck_assert_int_eq(psoc_walk_next(&w, &v, NULL), 0); /* stays done */
  free(buf);

  psoc_walk_init(&w, NULL, 100); /* NULL data walks nothing */
  ck_assert_int_eq(psoc_walk_next(&w, &v, NULL), 0);
  ck_assert_int_eq(w.done, 1);
  ck_assert_int_eq(psoc_walk_next(NULL, &v, NULL), 0);
  psoc_walk_init(&w, s.data, 24);
  ck_assert_int_eq(psoc_walk_next(&w, NULL, NULL), 0);
  sp_free(&s);
}
END_TEST


/* ---- psoc_check's walk is psoc_parse's -------------------------------- */

/* psoc_walk_check against psoc_parse on the first 'len' bytes of 's' at
** byte 'shift' of an aligned block: the same status, diagnostics (every
** field and the message), kind, completeness, kept types and classes, for
** each kept type the same payload and the same view from psoc_walked_view,
** and the registry's default payload for every other type. */
static void walk_matches_parse(const sp_stream *s, size_t len, size_t shift) {
  unsigned char *block = malloc(len + shift + 1), *p = block + shift;
  psoc_parsed parsed;
  psoc_walked walked;
  psoc_diags dp, dw;
  psoc_status sp, sw;
  uint64_t m;
  size_t i;
  ck_assert_ptr_nonnull(block);
  if (len) memcpy(p, s->data, len);
  psoc_diags_init(&dp, NULL);
  psoc_diags_init(&dw, NULL);
  sp = psoc_parse(p, len, &parsed, &dp);
  sw = psoc_walk_check(p, len, &walked, &dw);
  ck_assert_msg(sp == sw, "len %zu: status %d vs %d", len, sp, sw);
  ck_assert_msg(dp.count == dw.count, "len %zu: parse %s / walk %s", len, sp_summary(&dp),
                sp_summary(&dw));
  for (i = 0; i < dp.count; i++) {
    const psoc_diag *a = &dp.items[i], *b = &dw.items[i];
    ck_assert_int_eq(a->severity, b->severity);
    ck_assert_int_eq(a->code, b->code);
    ck_assert_int_eq(a->subobject, b->subobject);
    ck_assert_int_eq(a->offset, b->offset);
    ck_assert_str_eq(a->field, b->field);
    ck_assert_str_eq(a->message, b->message);
    ck_assert(a->message_id == b->message_id ||
              (a->message_id && b->message_id && !strcmp(a->message_id, b->message_id)));
  }
  ck_assert_int_eq(parsed.kind, walked.kind);
  ck_assert_int_eq(parsed.complete, walked.complete);
  ck_assert_uint_eq(parsed.type_mask, walked.type_mask);
  ck_assert_uint_eq(psoc_classes_of(parsed.type_mask), walked.classes);
  for (i = 0; i < PSOC_SO_TYPE_COUNT; i++) { /* the type kept of each class */
    if ((PSOC_VERSION_TYPES | ~PSOC_KNOWN_TYPES) & PSOC_TYPE_BIT(i)) /* no class */
      ck_assert_int_eq(parsed.class_type[i], -1);
    else
      ck_assert_int_eq(psoc_walked_kept(&walked, (uint32_t)i), parsed.class_type[i]);
  }
  for (i = 0; i < PSOC_SO_TYPE_COUNT; i++) { /* absent types: the registry's defaults */
    const psoc_subobject_info *info = psoc_subobject_info_get((uint32_t)i);
    if ((parsed.type_mask >> i) & 1u) continue;
    if (!((PSOC_WALK_DEFAULTS >> i) & 1u)) continue; /* unset: read only where present */
    ck_assert_ptr_eq(walked.payload[i], info ? info->default_payload : NULL);
  }
  for (m = parsed.type_mask; m; m &= m - 1) {
    uint32_t t = psoc_lowest_bit(m);
    psoc_view v;
    ck_assert_ptr_eq(walked.payload[t], parsed.views[t].payload);
    psoc_walked_view(&walked, t, &v);
    ck_assert_uint_eq(v.type, parsed.views[t].type);
    ck_assert_uint_eq(v.index, parsed.views[t].index);
    ck_assert_uint_eq(v.offset, parsed.views[t].offset);
    ck_assert_ptr_eq(v.payload, parsed.views[t].payload);
    ck_assert_ptr_eq(v.info, parsed.views[t].info);
  }
  psoc_diags_free(&dp);
  psoc_diags_free(&dw);
  free(block);
}

START_TEST(test_check_walk_is_parse) {
  sp_stream s;
  size_t len;
  DXGI_FORMAT dsv = DXGI_FORMAT_D32_FLOAT;
  UINT mask = 0xF;
  /* kept, duplicated and ignored subobjects, null and non-null deciders,
  ** then an unknown type (23) and a value past the list */
  sp_init(&s);
  SP_ADD(&s, PSOC_SO_SAMPLE_MASK, mask);
  sp_add_shader(&s, PSOC_SO_CS, 0);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_default(&s, PSOC_SO_DEPTH_STENCIL1);
  sp_add_default(&s, PSOC_SO_BLEND);
  sp_add_default(&s, PSOC_SO_DEPTH_STENCIL);
  SP_ADD(&s, PSOC_SO_DEPTH_STENCIL_FORMAT, dsv);
  sp_add_default(&s, PSOC_SO_RASTERIZER2);
  sp_add_default(&s, PSOC_SO_RASTERIZER);
  sp_add_shader(&s, PSOC_SO_MS, 1);
  sp_add_default(&s, PSOC_SO_SAMPLE_MASK);
  sp_add_default(&s, PSOC_SO_SERIALIZED_ROOT_SIGNATURE);
  sp_add_raw(&s, 23, 4);
  for (len = 0; len <= s.size; len++) { /* every cut, aligned and not */
    walk_matches_parse(&s, len, 0);
    walk_matches_parse(&s, len, 4);
  }
  sp_free(&s);
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_raw(&s, 0x7fffffffu, 4);
  walk_matches_parse(&s, s.size, 0);
  sp_free(&s);
  /* a base type then its versions, a version twice, both versioned classes
  ** kept as versions, and the walk going on after each duplicate */
  sp_init(&s);
  sp_add_default(&s, PSOC_SO_DEPTH_STENCIL);
  sp_add_default(&s, PSOC_SO_DEPTH_STENCIL2);
  sp_add_default(&s, PSOC_SO_RASTERIZER1);
  sp_add_default(&s, PSOC_SO_DEPTH_STENCIL1);
  sp_add_default(&s, PSOC_SO_RASTERIZER1);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_default(&s, PSOC_SO_RASTERIZER);
  sp_add_default(&s, PSOC_SO_BLEND);
  for (len = 0; len <= s.size; len++) walk_matches_parse(&s, len, 0);
  sp_free(&s);
  walk_matches_parse(&s, 0, 0); /* empty */
  {
    psoc_walked w;
    psoc_diags d;
    psoc_diags_init(&d, NULL);
    ck_assert_int_eq(psoc_walk_check(NULL, 16, &w, &d), PSOC_ERR_INVALID);
    ck_assert_uint_eq(sp_count(&d, PSOC_CODE_NULL_STREAM), 1);
    ck_assert_int_eq(w.kind, PSOC_KIND_NONE);
    ck_assert_uint_eq(w.type_mask, 0);
    psoc_diags_free(&d);
  }
}
END_TEST

/* psoc_check's rasterizer for a pipeline without one is a compile-time
** constant: it must be the registry's default payload widened. */
START_TEST(test_default_rasterizer_is_registry_default) {
  psoc_rasterizer_state widened;
  memset(&widened, 0xa5, sizeof widened);
  psoc_resolve_rasterizer_payload(PSOC_SO_RASTERIZER, psoc_registry_defaults[PSOC_SO_RASTERIZER],
                                  &widened);
  ck_assert(!memcmp(&widened, &psoc_rasterizer_default, sizeof widened));
}
END_TEST

/* psoc_format_get relies on the table's entry 0 (UNKNOWN) being a gap. */
START_TEST(test_format_unknown_is_no_format) {
  ck_assert_ptr_null(psoc_format_get(DXGI_FORMAT_UNKNOWN));
  ck_assert_ptr_null(psoc_format_get(PSOC_FORMAT_TABLE_SIZE));
  ck_assert_ptr_nonnull(psoc_format_get(DXGI_FORMAT_R8G8B8A8_UNORM));
}
END_TEST

Suite *suite_parse(void) {
  Suite *s = suite_create("parse");
  TCase *tc = tcase_create("structure");
  tcase_add_test(tc, test_registry_layout);
  tcase_add_test(tc, test_zero_size);
  tcase_add_test(tc, test_null_with_size);
  tcase_add_test(tc, test_views);
  tcase_add_loop_test(tc, test_truncated_subobject, 0,
                      (int)(sizeof truncated_types / sizeof truncated_types[0]));
  tcase_add_test(tc, test_cut_everywhere);
  tcase_add_test(tc, test_trailing_bytes);
  tcase_add_test(tc, test_missing_tail_padding);
  tcase_add_loop_test(tc, test_unknown_type, 0,
                      (int)(sizeof unknown_types / sizeof unknown_types[0]));
  tcase_add_loop_test(tc, test_duplicate_pair, 0, (int)(sizeof dup_pairs / sizeof dup_pairs[0]));
  tcase_add_test(tc, test_multiple_problems);
  tcase_add_test(tc, test_unaligned);
  tcase_add_test(tc, test_walker);
  tcase_add_test(tc, test_check_walk_is_parse);
  tcase_add_test(tc, test_default_rasterizer_is_registry_default);
  tcase_add_test(tc, test_format_unknown_is_no_format);
  suite_add_tcase(s, tc);
  return s;
}
