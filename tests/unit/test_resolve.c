/*
** test_resolve.c: the effective pipeline: runtime defaults (including the
** hidden ones), where each value came from, the superset rasterizer and
** depth-stencil states, and the conversions to and from the classic descs.
*/
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h"
#include "internal.h" /* the registry's type masks */
#include "stream_pack.h"
#include "suites.h"

/* Parse an exactly-sized copy of 's' and resolve it. The resolved state
** holds values, never pointers into the stream, so the copy is freed. */
static void resolve_stream(const sp_stream *s, psoc_resolved *r) {
  psoc_parsed p;
  unsigned char *buf = sp_exact(s, s->size);
  ck_assert_int_eq(psoc_parse(buf, s->size, &p, NULL), PSOC_OK);
  ck_assert_int_eq(psoc_resolve(&p, r), PSOC_OK);
  free(buf);
}

/* A stream of a VS and one more subobject. */
static void resolve_vs_and(uint32_t type, const void *payload, size_t size, psoc_resolved *r) {
  sp_stream s;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  if (payload) sp_add(&s, type, payload, size);
  resolve_stream(&s, r);
  sp_free(&s);
}

static int is_class(uint32_t t) {
  const psoc_subobject_info *info = psoc_subobject_info_get(t);
  return info && info->dup_class == t;
}

/* ---- the CD3DX12_DEFAULT values, written out here -------------------- */

static void assert_default_blend(const D3D12_BLEND_DESC *b) {
  int i;
  ck_assert_int_eq(b->AlphaToCoverageEnable, FALSE);
  ck_assert_int_eq(b->IndependentBlendEnable, FALSE);
  for (i = 0; i < 8; i++) {
    const D3D12_RENDER_TARGET_BLEND_DESC *rt = &b->RenderTarget[i];
    ck_assert_int_eq(rt->BlendEnable, FALSE);
    ck_assert_int_eq(rt->LogicOpEnable, FALSE);
    ck_assert_int_eq(rt->SrcBlend, D3D12_BLEND_ONE);
    ck_assert_int_eq(rt->DestBlend, D3D12_BLEND_ZERO);
    ck_assert_int_eq(rt->BlendOp, D3D12_BLEND_OP_ADD);
    ck_assert_int_eq(rt->SrcBlendAlpha, D3D12_BLEND_ONE);
    ck_assert_int_eq(rt->DestBlendAlpha, D3D12_BLEND_ZERO);
    ck_assert_int_eq(rt->BlendOpAlpha, D3D12_BLEND_OP_ADD);
    ck_assert_int_eq(rt->LogicOp, D3D12_LOGIC_OP_NOOP);
    ck_assert_uint_eq(rt->RenderTargetWriteMask, 0xF);
  }
}

static void assert_default_rasterizer(const psoc_rasterizer_state *r) {
  ck_assert_int_eq(r->FillMode, D3D12_FILL_MODE_SOLID);
  ck_assert_int_eq(r->CullMode, D3D12_CULL_MODE_BACK);
  ck_assert_int_eq(r->FrontCounterClockwise, FALSE);
  ck_assert_float_eq(r->DepthBias, 0.0f);
  ck_assert_float_eq(r->DepthBiasClamp, 0.0f);
  ck_assert_float_eq(r->SlopeScaledDepthBias, 0.0f);
  ck_assert_int_eq(r->DepthClipEnable, TRUE);
  ck_assert_int_eq(r->MultisampleEnable, FALSE);
  ck_assert_int_eq(r->AntialiasedLineEnable, FALSE);
  ck_assert_int_eq(r->LineRasterizationMode, PSOC_LINE_RASTERIZATION_MODE_ALIASED);
  ck_assert_uint_eq(r->ForcedSampleCount, 0);
  ck_assert_int_eq(r->ConservativeRaster, D3D12_CONSERVATIVE_RASTERIZATION_MODE_OFF);
}

static void assert_default_stencil_face(const D3D12_DEPTH_STENCILOP_DESC1 *f) {
  ck_assert_int_eq(f->StencilFailOp, D3D12_STENCIL_OP_KEEP);
  ck_assert_int_eq(f->StencilDepthFailOp, D3D12_STENCIL_OP_KEEP);
  ck_assert_int_eq(f->StencilPassOp, D3D12_STENCIL_OP_KEEP);
  ck_assert_int_eq(f->StencilFunc, D3D12_COMPARISON_FUNC_ALWAYS);
  ck_assert_uint_eq(f->StencilReadMask, 0xFF);
  ck_assert_uint_eq(f->StencilWriteMask, 0xFF);
}

/* Everything but DepthEnable, which depends on the DSV format. */
static void assert_default_depth_stencil(const D3D12_DEPTH_STENCIL_DESC2 *d) {
  ck_assert_int_eq(d->DepthWriteMask, D3D12_DEPTH_WRITE_MASK_ALL);
  ck_assert_int_eq(d->DepthFunc, D3D12_COMPARISON_FUNC_LESS);
  ck_assert_int_eq(d->StencilEnable, FALSE);
  assert_default_stencil_face(&d->FrontFace);
  assert_default_stencil_face(&d->BackFace);
  ck_assert_int_eq(d->DepthBoundsTestEnable, FALSE);
}

/* ---- defaults ---------------------------------------------------------- */

START_TEST(test_defaults_graphics) {
  psoc_resolved r;
  uint32_t t;
  resolve_vs_and(0, NULL, 0, &r);
  ck_assert_int_eq(r.kind, PSOC_KIND_GRAPHICS);
  assert_default_blend(&r.blend);
  assert_default_rasterizer(&r.rasterizer);
  assert_default_depth_stencil(&r.depth_stencil);
  ck_assert_uint_eq(r.sample_mask, 0xFFFFFFFFu);
  ck_assert_uint_eq(r.sample_desc.Count, 1);
  ck_assert_uint_eq(r.sample_desc.Quality, 0);
  ck_assert_int_eq(r.primitive_topology, D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE);
  ck_assert_int_eq(r.depth_stencil_format, DXGI_FORMAT_UNKNOWN);
  ck_assert_uint_eq(r.render_targets.NumRenderTargets, 0);
  ck_assert_int_eq(r.ib_strip_cut_value, D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_DISABLED);
  ck_assert_uint_eq(r.node_mask, 0);
  ck_assert_int_eq(r.flags, D3D12_PIPELINE_STATE_FLAG_NONE);
  ck_assert_ptr_null(r.root_signature);
  ck_assert_ptr_null(r.ps.pShaderBytecode);
  ck_assert_ptr_null(r.input_layout.pInputElementDescs);
  ck_assert_uint_eq(r.view_instancing.ViewInstanceCount, 0);
  ck_assert_ptr_eq(r.vs.pShaderBytecode, sp_fake_dxil);
  ck_assert_uint_eq(r.vs.BytecodeLength, sizeof sp_fake_dxil);
  /* hidden defaults: no DS and no DSV -> no depth test; VS -> triangles */
  ck_assert_int_eq(r.depth_stencil.DepthEnable, FALSE);
  ck_assert_int_eq(r.depth_enable_origin, PSOC_ORIGIN_HIDDEN_DEFAULT);
  ck_assert_int_eq(r.topology_origin, PSOC_ORIGIN_HIDDEN_DEFAULT);
  /* origins: only VS is explicit; graphics uses everything but CS, AS, MS */
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    psoc_origin want;
    if (!is_class(t)) continue;
    want = t == PSOC_SO_VS ? PSOC_ORIGIN_EXPLICIT
           : (t == PSOC_SO_CS || t == PSOC_SO_AS || t == PSOC_SO_MS) ? PSOC_ORIGIN_UNUSED
                                                                      : PSOC_ORIGIN_DEFAULT;
    ck_assert_msg(r.origin[t] == want, "%s: origin %s, want %s",
                  psoc_subobject_info_get(t)->name, psoc_origin_name((psoc_origin)r.origin[t]),
                  psoc_origin_name(want));
    ck_assert_uint_eq(r.source_type[t], t);
  }
}
END_TEST

START_TEST(test_depth_hidden_default) {
  psoc_resolved r;
  DXGI_FORMAT d32 = DXGI_FORMAT_D32_FLOAT, unknown = DXGI_FORMAT_UNKNOWN;
  D3D12_DEPTH_STENCIL_DESC ds;

  /* no DS, DSV D32_FLOAT: the default DepthEnable TRUE stands */
  resolve_vs_and(PSOC_SO_DEPTH_STENCIL_FORMAT, &d32, sizeof d32, &r);
  ck_assert_int_eq(r.depth_stencil.DepthEnable, TRUE);
  ck_assert_int_eq(r.depth_enable_origin, PSOC_ORIGIN_DEFAULT);
  ck_assert_int_eq(r.origin[PSOC_SO_DEPTH_STENCIL], PSOC_ORIGIN_DEFAULT);
  ck_assert_int_eq(r.origin[PSOC_SO_DEPTH_STENCIL_FORMAT], PSOC_ORIGIN_EXPLICIT);
  ck_assert_int_eq(r.depth_stencil_format, DXGI_FORMAT_D32_FLOAT);
  assert_default_depth_stencil(&r.depth_stencil);

  /* no DS, DSV given as UNKNOWN: still off */
  resolve_vs_and(PSOC_SO_DEPTH_STENCIL_FORMAT, &unknown, sizeof unknown, &r);
  ck_assert_int_eq(r.depth_stencil.DepthEnable, FALSE);
  ck_assert_int_eq(r.depth_enable_origin, PSOC_ORIGIN_HIDDEN_DEFAULT);

  /* a DS subobject decides, DSV or not */
  memset(&ds, 0, sizeof ds);
  ds.DepthEnable = TRUE;
  ds.DepthFunc = D3D12_COMPARISON_FUNC_GREATER;
  resolve_vs_and(PSOC_SO_DEPTH_STENCIL, &ds, sizeof ds, &r);
  ck_assert_int_eq(r.depth_stencil.DepthEnable, TRUE);
  ck_assert_int_eq(r.depth_stencil.DepthFunc, D3D12_COMPARISON_FUNC_GREATER);
  ck_assert_int_eq(r.depth_enable_origin, PSOC_ORIGIN_EXPLICIT);
  ck_assert_int_eq(r.origin[PSOC_SO_DEPTH_STENCIL], PSOC_ORIGIN_EXPLICIT);
  ds.DepthEnable = FALSE;
  {
    sp_stream s;
    sp_init(&s);
    sp_add_shader(&s, PSOC_SO_VS, 1);
    SP_ADD(&s, PSOC_SO_DEPTH_STENCIL_FORMAT, d32);
    SP_ADD(&s, PSOC_SO_DEPTH_STENCIL, ds);
    resolve_stream(&s, &r);
    sp_free(&s);
  }
  ck_assert_int_eq(r.depth_stencil.DepthEnable, FALSE);
  ck_assert_int_eq(r.depth_enable_origin, PSOC_ORIGIN_EXPLICIT);
}
END_TEST

START_TEST(test_topology) {
  psoc_resolved r;
  D3D12_PRIMITIVE_TOPOLOGY_TYPE line = D3D12_PRIMITIVE_TOPOLOGY_TYPE_LINE,
                                undefined = D3D12_PRIMITIVE_TOPOLOGY_TYPE_UNDEFINED;
  sp_stream s;
  resolve_vs_and(PSOC_SO_PRIMITIVE_TOPOLOGY, &line, sizeof line, &r);
  ck_assert_int_eq(r.primitive_topology, D3D12_PRIMITIVE_TOPOLOGY_TYPE_LINE);
  ck_assert_int_eq(r.topology_origin, PSOC_ORIGIN_EXPLICIT);
  ck_assert_int_eq(r.origin[PSOC_SO_PRIMITIVE_TOPOLOGY], PSOC_ORIGIN_EXPLICIT);
  resolve_vs_and(PSOC_SO_PRIMITIVE_TOPOLOGY, &undefined, sizeof undefined, &r);
  ck_assert_int_eq(r.primitive_topology, D3D12_PRIMITIVE_TOPOLOGY_TYPE_UNDEFINED);
  ck_assert_int_eq(r.topology_origin, PSOC_ORIGIN_EXPLICIT);
  /* a mesh pipeline: the topology is not a VS pipeline's hidden default */
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_MS, 1);
  resolve_stream(&s, &r);
  sp_free(&s);
  ck_assert_int_eq(r.kind, PSOC_KIND_MESH);
  ck_assert_int_ne(r.topology_origin, PSOC_ORIGIN_HIDDEN_DEFAULT);
  ck_assert_int_eq(r.origin[PSOC_SO_PRIMITIVE_TOPOLOGY], PSOC_ORIGIN_DEFAULT);
  /* compute: unused */
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_CS, 1);
  resolve_stream(&s, &r);
  sp_free(&s);
  ck_assert_int_eq(r.origin[PSOC_SO_PRIMITIVE_TOPOLOGY], PSOC_ORIGIN_UNUSED);
  ck_assert_int_ne(r.topology_origin, PSOC_ORIGIN_HIDDEN_DEFAULT);
}
END_TEST

/* ---- rasterizer generations ----------------------------------------- */

START_TEST(test_rasterizer_int_bias) {
  static const INT biases[] = { 0, -7, 1, 100000, -16777216 };
  size_t i;
  for (i = 0; i < sizeof biases / sizeof biases[0]; i++) {
    D3D12_RASTERIZER_DESC rd;
    psoc_resolved r;
    memset(&rd, 0, sizeof rd);
    rd.FillMode = D3D12_FILL_MODE_WIREFRAME;
    rd.CullMode = D3D12_CULL_MODE_FRONT;
    rd.FrontCounterClockwise = TRUE;
    rd.DepthBias = biases[i];
    rd.DepthBiasClamp = 0.25f;
    rd.SlopeScaledDepthBias = 2.5f;
    rd.DepthClipEnable = FALSE;
    rd.ForcedSampleCount = 4;
    rd.ConservativeRaster = D3D12_CONSERVATIVE_RASTERIZATION_MODE_ON;
    resolve_vs_and(PSOC_SO_RASTERIZER, &rd, sizeof rd, &r);
    ck_assert_float_eq(r.rasterizer.DepthBias, (FLOAT)biases[i]);
    ck_assert_int_eq(r.rasterizer.FillMode, D3D12_FILL_MODE_WIREFRAME);
    ck_assert_int_eq(r.rasterizer.CullMode, D3D12_CULL_MODE_FRONT);
    ck_assert_int_eq(r.rasterizer.FrontCounterClockwise, TRUE);
    ck_assert_float_eq(r.rasterizer.DepthBiasClamp, 0.25f);
    ck_assert_float_eq(r.rasterizer.SlopeScaledDepthBias, 2.5f);
    ck_assert_int_eq(r.rasterizer.DepthClipEnable, FALSE);
    ck_assert_uint_eq(r.rasterizer.ForcedSampleCount, 4);
    ck_assert_int_eq(r.rasterizer.ConservativeRaster, D3D12_CONSERVATIVE_RASTERIZATION_MODE_ON);
    ck_assert_int_eq(r.origin[PSOC_SO_RASTERIZER], PSOC_ORIGIN_EXPLICIT);
    ck_assert_uint_eq(r.source_type[PSOC_SO_RASTERIZER], PSOC_SO_RASTERIZER);
  }
}
END_TEST

/* RASTERIZER / RASTERIZER1: MultisampleEnable and AntialiasedLineEnable
** pick the line mode (MSDN: multisample on -> quadrilateral lines). */
static const struct { BOOL ms, aa; psoc_line_rasterization_mode mode; } old_lines[] = {
  { FALSE, FALSE, PSOC_LINE_RASTERIZATION_MODE_ALIASED },
  { FALSE, TRUE, PSOC_LINE_RASTERIZATION_MODE_ALPHA_ANTIALIASED },
  { TRUE, FALSE, PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_WIDE },
  { TRUE, TRUE, PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_WIDE },
};

START_TEST(test_rasterizer_line_mode_from_flags) {
  D3D12_RASTERIZER_DESC r0;
  psoc_rasterizer_desc1 r1;
  psoc_resolved r;
  memset(&r0, 0, sizeof r0);
  r0.MultisampleEnable = old_lines[_i].ms;
  r0.AntialiasedLineEnable = old_lines[_i].aa;
  resolve_vs_and(PSOC_SO_RASTERIZER, &r0, sizeof r0, &r);
  ck_assert_int_eq(r.rasterizer.LineRasterizationMode, old_lines[_i].mode);
  ck_assert_int_eq(r.rasterizer.MultisampleEnable, old_lines[_i].ms);
  ck_assert_int_eq(r.rasterizer.AntialiasedLineEnable, old_lines[_i].aa);

  memset(&r1, 0, sizeof r1);
  r1.MultisampleEnable = old_lines[_i].ms;
  r1.AntialiasedLineEnable = old_lines[_i].aa;
  r1.DepthBias = 0.75f;
  resolve_vs_and(PSOC_SO_RASTERIZER1, &r1, sizeof r1, &r);
  ck_assert_int_eq(r.rasterizer.LineRasterizationMode, old_lines[_i].mode);
  ck_assert_float_eq(r.rasterizer.DepthBias, 0.75f);
  ck_assert_uint_eq(r.source_type[PSOC_SO_RASTERIZER], PSOC_SO_RASTERIZER1);
  ck_assert_int_eq(r.origin[PSOC_SO_RASTERIZER], PSOC_ORIGIN_EXPLICIT);
}
END_TEST

/* RASTERIZER2: the line mode gives the two flags. */
static const struct { psoc_line_rasterization_mode mode; BOOL ms, aa; } new_lines[] = {
  { PSOC_LINE_RASTERIZATION_MODE_ALIASED, FALSE, FALSE },
  { PSOC_LINE_RASTERIZATION_MODE_ALPHA_ANTIALIASED, FALSE, TRUE },
  { PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_WIDE, TRUE, FALSE },
  { PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW, TRUE, FALSE },
};

START_TEST(test_rasterizer2_line_mode) {
  psoc_rasterizer_desc2 r2;
  psoc_resolved r;
  memset(&r2, 0, sizeof r2);
  r2.FillMode = D3D12_FILL_MODE_SOLID;
  r2.CullMode = D3D12_CULL_MODE_NONE;
  r2.DepthBias = -1.5f;
  r2.DepthClipEnable = TRUE;
  r2.LineRasterizationMode = new_lines[_i].mode;
  r2.ForcedSampleCount = 8;
  resolve_vs_and(PSOC_SO_RASTERIZER2, &r2, sizeof r2, &r);
  ck_assert_int_eq(r.rasterizer.LineRasterizationMode, new_lines[_i].mode);
  ck_assert_int_eq(r.rasterizer.MultisampleEnable, new_lines[_i].ms);
  ck_assert_int_eq(r.rasterizer.AntialiasedLineEnable, new_lines[_i].aa);
  ck_assert_float_eq(r.rasterizer.DepthBias, -1.5f);
  ck_assert_int_eq(r.rasterizer.CullMode, D3D12_CULL_MODE_NONE);
  ck_assert_uint_eq(r.rasterizer.ForcedSampleCount, 8);
  ck_assert_uint_eq(r.source_type[PSOC_SO_RASTERIZER], PSOC_SO_RASTERIZER2);
}
END_TEST

/* ---- depth-stencil generations ----------------------------------------- */

static D3D12_DEPTH_STENCIL_DESC sample_ds(void) {
  D3D12_DEPTH_STENCIL_DESC d;
  memset(&d, 0, sizeof d);
  d.DepthEnable = TRUE;
  d.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ZERO;
  d.DepthFunc = D3D12_COMPARISON_FUNC_GREATER_EQUAL;
  d.StencilEnable = TRUE;
  d.StencilReadMask = 0x0F;
  d.StencilWriteMask = 0xF0;
  d.FrontFace.StencilFailOp = D3D12_STENCIL_OP_ZERO;
  d.FrontFace.StencilDepthFailOp = D3D12_STENCIL_OP_INCR;
  d.FrontFace.StencilPassOp = D3D12_STENCIL_OP_REPLACE;
  d.FrontFace.StencilFunc = D3D12_COMPARISON_FUNC_EQUAL;
  d.BackFace.StencilFailOp = D3D12_STENCIL_OP_INVERT;
  d.BackFace.StencilDepthFailOp = D3D12_STENCIL_OP_DECR;
  d.BackFace.StencilPassOp = D3D12_STENCIL_OP_INCR_SAT;
  d.BackFace.StencilFunc = D3D12_COMPARISON_FUNC_NEVER;
  return d;
}

static void assert_widened(const D3D12_DEPTH_STENCIL_DESC2 *w, const D3D12_DEPTH_STENCIL_DESC *d) {
  ck_assert_int_eq(w->DepthEnable, d->DepthEnable);
  ck_assert_int_eq(w->DepthWriteMask, d->DepthWriteMask);
  ck_assert_int_eq(w->DepthFunc, d->DepthFunc);
  ck_assert_int_eq(w->StencilEnable, d->StencilEnable);
  ck_assert_int_eq(w->FrontFace.StencilFailOp, d->FrontFace.StencilFailOp);
  ck_assert_int_eq(w->FrontFace.StencilDepthFailOp, d->FrontFace.StencilDepthFailOp);
  ck_assert_int_eq(w->FrontFace.StencilPassOp, d->FrontFace.StencilPassOp);
  ck_assert_int_eq(w->FrontFace.StencilFunc, d->FrontFace.StencilFunc);
  ck_assert_int_eq(w->BackFace.StencilFailOp, d->BackFace.StencilFailOp);
  ck_assert_int_eq(w->BackFace.StencilDepthFailOp, d->BackFace.StencilDepthFailOp);
  ck_assert_int_eq(w->BackFace.StencilPassOp, d->BackFace.StencilPassOp);
  ck_assert_int_eq(w->BackFace.StencilFunc, d->BackFace.StencilFunc);
  /* the one pair of masks lands on both faces */
  ck_assert_uint_eq(w->FrontFace.StencilReadMask, d->StencilReadMask);
  ck_assert_uint_eq(w->FrontFace.StencilWriteMask, d->StencilWriteMask);
  ck_assert_uint_eq(w->BackFace.StencilReadMask, d->StencilReadMask);
  ck_assert_uint_eq(w->BackFace.StencilWriteMask, d->StencilWriteMask);
}

START_TEST(test_depth_stencil_widen) {
  D3D12_DEPTH_STENCIL_DESC ds = sample_ds();
  D3D12_DEPTH_STENCIL_DESC1 ds1;
  D3D12_DEPTH_STENCIL_DESC2 ds2;
  psoc_resolved r;

  resolve_vs_and(PSOC_SO_DEPTH_STENCIL, &ds, sizeof ds, &r);
  assert_widened(&r.depth_stencil, &ds);
  ck_assert_int_eq(r.depth_stencil.DepthBoundsTestEnable, FALSE);
  ck_assert_uint_eq(r.source_type[PSOC_SO_DEPTH_STENCIL], PSOC_SO_DEPTH_STENCIL);
  ck_assert_int_eq(r.origin[PSOC_SO_DEPTH_STENCIL], PSOC_ORIGIN_EXPLICIT);

  memset(&ds1, 0, sizeof ds1);
  memcpy(&ds1, &ds, sizeof ds);
  ds1.DepthBoundsTestEnable = TRUE;
  resolve_vs_and(PSOC_SO_DEPTH_STENCIL1, &ds1, sizeof ds1, &r);
  assert_widened(&r.depth_stencil, &ds);
  ck_assert_int_eq(r.depth_stencil.DepthBoundsTestEnable, TRUE);
  ck_assert_uint_eq(r.source_type[PSOC_SO_DEPTH_STENCIL], PSOC_SO_DEPTH_STENCIL1);

  memset(&ds2, 0, sizeof ds2);
  ds2.DepthEnable = TRUE;
  ds2.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ALL;
  ds2.DepthFunc = D3D12_COMPARISON_FUNC_LESS_EQUAL;
  ds2.StencilEnable = TRUE;
  ds2.FrontFace.StencilFunc = D3D12_COMPARISON_FUNC_ALWAYS;
  ds2.FrontFace.StencilReadMask = 0x12;
  ds2.FrontFace.StencilWriteMask = 0x34;
  ds2.BackFace.StencilFunc = D3D12_COMPARISON_FUNC_LESS;
  ds2.BackFace.StencilReadMask = 0x56;
  ds2.BackFace.StencilWriteMask = 0x78;
  resolve_vs_and(PSOC_SO_DEPTH_STENCIL2, &ds2, sizeof ds2, &r);
  ck_assert_int_eq(memcmp(&r.depth_stencil, &ds2, sizeof ds2), 0);
  ck_assert_uint_eq(r.source_type[PSOC_SO_DEPTH_STENCIL], PSOC_SO_DEPTH_STENCIL2);
  ck_assert_int_eq(r.depth_enable_origin, PSOC_ORIGIN_EXPLICIT);
}
END_TEST

/* ---- origins and source types -------------------------------------------- */

START_TEST(test_origins_compute) {
  sp_stream s;
  psoc_resolved r;
  ID3D12RootSignature *rs = (ID3D12RootSignature *)(uintptr_t)0x1000;
  UINT node = 2;
  uint32_t t;
  sp_init(&s);
  SP_ADD(&s, PSOC_SO_ROOT_SIGNATURE, rs);
  sp_add_shader(&s, PSOC_SO_CS, 1);
  SP_ADD(&s, PSOC_SO_NODE_MASK, node);
  sp_add_default(&s, PSOC_SO_BLEND);            /* irrelevant, present */
  sp_add_default(&s, PSOC_SO_DEPTH_STENCIL1);   /* irrelevant, present */
  sp_add_shader(&s, PSOC_SO_VS, 0);          /* irrelevant, null */
  resolve_stream(&s, &r);
  sp_free(&s);
  ck_assert_int_eq(r.kind, PSOC_KIND_COMPUTE);
  ck_assert_ptr_eq(r.root_signature, rs);
  ck_assert_uint_eq(r.node_mask, 2);
  ck_assert_ptr_eq(r.cs.pShaderBytecode, sp_fake_dxil);
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    psoc_origin want;
    if (!is_class(t)) continue;
    if (t == PSOC_SO_ROOT_SIGNATURE || t == PSOC_SO_CS || t == PSOC_SO_NODE_MASK)
      want = PSOC_ORIGIN_EXPLICIT;
    else if (t == PSOC_SO_CACHED_PSO || t == PSOC_SO_FLAGS ||
             t == PSOC_SO_SERIALIZED_ROOT_SIGNATURE)
      want = PSOC_ORIGIN_DEFAULT;
    else
      want = PSOC_ORIGIN_UNUSED;
    ck_assert_msg(r.origin[t] == want, "compute %s: origin %s, want %s",
                  psoc_subobject_info_get(t)->name, psoc_origin_name((psoc_origin)r.origin[t]),
                  psoc_origin_name(want));
  }
  /* unused, yet the source type still says what the stream held */
  ck_assert_uint_eq(r.source_type[PSOC_SO_DEPTH_STENCIL], PSOC_SO_DEPTH_STENCIL1);
}
END_TEST

START_TEST(test_origins_mesh_and_none) {
  sp_stream s;
  psoc_resolved r;
  uint32_t t;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 0);
  sp_add_shader(&s, PSOC_SO_MS, 1);
  sp_add_default(&s, PSOC_SO_INPUT_LAYOUT);
  sp_add_default(&s, PSOC_SO_RASTERIZER2);
  resolve_stream(&s, &r);
  sp_free(&s);
  ck_assert_int_eq(r.kind, PSOC_KIND_MESH);
  ck_assert_int_eq(r.origin[PSOC_SO_VS], PSOC_ORIGIN_UNUSED);
  ck_assert_int_eq(r.origin[PSOC_SO_INPUT_LAYOUT], PSOC_ORIGIN_UNUSED);
  ck_assert_int_eq(r.origin[PSOC_SO_CS], PSOC_ORIGIN_UNUSED);
  ck_assert_int_eq(r.origin[PSOC_SO_STREAM_OUTPUT], PSOC_ORIGIN_UNUSED);
  ck_assert_int_eq(r.origin[PSOC_SO_MS], PSOC_ORIGIN_EXPLICIT);
  ck_assert_int_eq(r.origin[PSOC_SO_RASTERIZER], PSOC_ORIGIN_EXPLICIT);
  ck_assert_uint_eq(r.source_type[PSOC_SO_RASTERIZER], PSOC_SO_RASTERIZER2);
  ck_assert_int_eq(r.origin[PSOC_SO_AS], PSOC_ORIGIN_DEFAULT);
  ck_assert_int_eq(r.origin[PSOC_SO_PS], PSOC_ORIGIN_DEFAULT);
  ck_assert_int_eq(r.origin[PSOC_SO_BLEND], PSOC_ORIGIN_DEFAULT);

  /* no kind: nothing is marked unused */
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_PS, 1);
  resolve_stream(&s, &r);
  sp_free(&s);
  ck_assert_int_eq(r.kind, PSOC_KIND_NONE);
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++)
    if (is_class(t))
      ck_assert_int_eq(r.origin[t], t == PSOC_SO_PS ? PSOC_ORIGIN_EXPLICIT : PSOC_ORIGIN_DEFAULT);
}
END_TEST

/* Pointer fields are copied, never followed (these would crash if read). */
START_TEST(test_pointers_copied) {
  sp_stream s;
  psoc_resolved r;
  D3D12_INPUT_LAYOUT_DESC il;
  D3D12_STREAM_OUTPUT_DESC so;
  D3D12_CACHED_PIPELINE_STATE cached;
  memset(&il, 0, sizeof il);
  memset(&so, 0, sizeof so);
  il.pInputElementDescs = (const D3D12_INPUT_ELEMENT_DESC *)(uintptr_t)0x10;
  il.NumElements = 1000;
  so.pSODeclaration = (const D3D12_SO_DECLARATION_ENTRY *)(uintptr_t)0x20;
  so.NumEntries = 3;
  so.RasterizedStream = 1;
  cached.pCachedBlob = (const void *)(uintptr_t)0x30;
  cached.CachedBlobSizeInBytes = 4096;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  SP_ADD(&s, PSOC_SO_INPUT_LAYOUT, il);
  SP_ADD(&s, PSOC_SO_STREAM_OUTPUT, so);
  SP_ADD(&s, PSOC_SO_CACHED_PSO, cached);
  resolve_stream(&s, &r);
  sp_free(&s);
  ck_assert_ptr_eq(r.input_layout.pInputElementDescs, il.pInputElementDescs);
  ck_assert_uint_eq(r.input_layout.NumElements, 1000);
  ck_assert_ptr_eq(r.stream_output.pSODeclaration, so.pSODeclaration);
  ck_assert_uint_eq(r.stream_output.RasterizedStream, 1);
  ck_assert_ptr_eq(r.cached_pso.pCachedBlob, cached.pCachedBlob);
  ck_assert_uint_eq(r.cached_pso.CachedBlobSizeInBytes, 4096);
}
END_TEST

/* ---- to the classic descs ---------------------------------------------- */

static psoc_status graphics_desc_of(const sp_stream *s, D3D12_GRAPHICS_PIPELINE_STATE_DESC *g) {
  psoc_resolved r;
  resolve_stream(s, &r);
  return psoc_resolved_to_graphics_desc(&r, g);
}

START_TEST(test_graphics_desc_exact) {
  sp_stream s;
  D3D12_GRAPHICS_PIPELINE_STATE_DESC g;
  D3D12_DEPTH_STENCIL_DESC ds = sample_ds();
  D3D12_RASTERIZER_DESC rd;
  psoc_rasterizer_desc1 r1;
  DXGI_SAMPLE_DESC sample = { 4, 2 };
  UINT mask = 0x3;

  memset(&rd, 0, sizeof rd);
  rd.FillMode = D3D12_FILL_MODE_SOLID;
  rd.CullMode = D3D12_CULL_MODE_NONE;
  rd.DepthBias = -3;
  rd.MultisampleEnable = TRUE;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  SP_ADD(&s, PSOC_SO_DEPTH_STENCIL, ds);
  SP_ADD(&s, PSOC_SO_RASTERIZER, rd);
  SP_ADD(&s, PSOC_SO_SAMPLE_DESC, sample);
  SP_ADD(&s, PSOC_SO_SAMPLE_MASK, mask);
  ck_assert_int_eq(graphics_desc_of(&s, &g), PSOC_OK);
  sp_free(&s);
  ck_assert_int_eq(g.RasterizerState.DepthBias, -3);
  ck_assert_int_eq(g.RasterizerState.CullMode, D3D12_CULL_MODE_NONE);
  ck_assert_int_eq(g.RasterizerState.MultisampleEnable, TRUE);
  ck_assert_int_eq(memcmp(&g.DepthStencilState, &ds, sizeof ds), 0);
  ck_assert_uint_eq(g.SampleDesc.Count, 4);
  ck_assert_uint_eq(g.SampleDesc.Quality, 2);
  ck_assert_uint_eq(g.SampleMask, 3);
  ck_assert_ptr_eq(g.VS.pShaderBytecode, sp_fake_dxil);
  ck_assert_int_eq(g.PrimitiveTopologyType, D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE);
  ck_assert_int_eq(g.DepthStencilState.DepthEnable, TRUE);
  assert_default_blend(&g.BlendState);

  /* a whole-number float bias converts exactly */
  memset(&r1, 0, sizeof r1);
  r1.DepthBias = 3.0f;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  SP_ADD(&s, PSOC_SO_RASTERIZER1, r1);
  ck_assert_int_eq(graphics_desc_of(&s, &g), PSOC_OK);
  ck_assert_int_eq(g.RasterizerState.DepthBias, 3);
  sp_free(&s);
}
END_TEST

typedef enum lossy_kind {
  LOSSY_FRACTIONAL_BIAS,
  LOSSY_READ_MASKS,
  LOSSY_WRITE_MASKS,
  LOSSY_DEPTH_BOUNDS,
  LOSSY_NARROW_LINES,
  LOSSY_VIEW_INSTANCING,
  LOSSY_SERIALIZED_RS,
  LOSSY_COMPUTE,
  LOSSY_MESH,
  LOSSY_HUGE_BIAS,
  LOSSY_COUNT_
} lossy_kind;

START_TEST(test_graphics_desc_lossy) {
  sp_stream s;
  D3D12_GRAPHICS_PIPELINE_STATE_DESC g;
  psoc_rasterizer_desc1 r1;
  psoc_rasterizer_desc2 r2;
  D3D12_DEPTH_STENCIL_DESC1 ds1;
  D3D12_DEPTH_STENCIL_DESC2 ds2;
  D3D12_VIEW_INSTANCING_DESC vi;
  psoc_serialized_root_signature_desc srs;
  static const unsigned char blob[4] = { 1, 2, 3, 4 };

  memset(&r1, 0, sizeof r1);
  memset(&r2, 0, sizeof r2);
  memset(&ds1, 0, sizeof ds1);
  memset(&ds2, 0, sizeof ds2);
  memset(&vi, 0, sizeof vi);
  ds2.FrontFace.StencilReadMask = ds2.BackFace.StencilReadMask = 0xFF;
  ds2.FrontFace.StencilWriteMask = ds2.BackFace.StencilWriteMask = 0xFF;
  sp_init(&s);
  sp_add_shader(&s, _i == LOSSY_COMPUTE ? PSOC_SO_CS : _i == LOSSY_MESH ? PSOC_SO_MS : PSOC_SO_VS,
                1);
  switch ((lossy_kind)_i) {
  case LOSSY_FRACTIONAL_BIAS:
    r1.DepthBias = 0.5f;
    SP_ADD(&s, PSOC_SO_RASTERIZER1, r1);
    break;
  case LOSSY_HUGE_BIAS: /* outside INT: must be reported, not converted */
    r1.DepthBias = 3.0e9f;
    SP_ADD(&s, PSOC_SO_RASTERIZER1, r1);
    break;
  case LOSSY_READ_MASKS:
    ds2.BackFace.StencilReadMask = 0x0F;
    SP_ADD(&s, PSOC_SO_DEPTH_STENCIL2, ds2);
    break;
  case LOSSY_WRITE_MASKS:
    ds2.FrontFace.StencilWriteMask = 0x01;
    SP_ADD(&s, PSOC_SO_DEPTH_STENCIL2, ds2);
    break;
  case LOSSY_DEPTH_BOUNDS:
    ds1.DepthBoundsTestEnable = TRUE;
    SP_ADD(&s, PSOC_SO_DEPTH_STENCIL1, ds1);
    break;
  case LOSSY_NARROW_LINES:
    r2.LineRasterizationMode = PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW;
    SP_ADD(&s, PSOC_SO_RASTERIZER2, r2);
    break;
  case LOSSY_VIEW_INSTANCING:
    vi.ViewInstanceCount = 2;
    vi.pViewInstanceLocations = (const D3D12_VIEW_INSTANCE_LOCATION *)(uintptr_t)0x40;
    SP_ADD(&s, PSOC_SO_VIEW_INSTANCING, vi);
    break;
  case LOSSY_SERIALIZED_RS:
    srs.pSerializedBlob = blob;
    srs.SerializedBlobSizeInBytes = sizeof blob;
    SP_ADD(&s, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, srs);
    break;
  case LOSSY_COMPUTE:
  case LOSSY_MESH:
  case LOSSY_COUNT_:
    break;
  }
  ck_assert_msg(graphics_desc_of(&s, &g) == PSOC_ERR_LOSSY, "case %d is not reported lossy", _i);
  sp_free(&s);
}
END_TEST

START_TEST(test_compute_desc) {
  sp_stream s;
  psoc_resolved r;
  D3D12_COMPUTE_PIPELINE_STATE_DESC c;
  ID3D12RootSignature *rs = (ID3D12RootSignature *)(uintptr_t)0x2000;
  UINT node = 4;
  D3D12_PIPELINE_STATE_FLAGS flags = D3D12_PIPELINE_STATE_FLAG_TOOL_DEBUG;
  sp_init(&s);
  SP_ADD(&s, PSOC_SO_FLAGS, flags);
  SP_ADD(&s, PSOC_SO_ROOT_SIGNATURE, rs);
  sp_add_shader(&s, PSOC_SO_CS, 1);
  SP_ADD(&s, PSOC_SO_NODE_MASK, node);
  resolve_stream(&s, &r);
  sp_free(&s);
  ck_assert_int_eq(psoc_resolved_to_compute_desc(&r, &c), PSOC_OK);
  ck_assert_ptr_eq(c.pRootSignature, rs);
  ck_assert_ptr_eq(c.CS.pShaderBytecode, sp_fake_dxil);
  ck_assert_uint_eq(c.CS.BytecodeLength, sizeof sp_fake_dxil);
  ck_assert_uint_eq(c.NodeMask, 4);
  ck_assert_int_eq(c.Flags, D3D12_PIPELINE_STATE_FLAG_TOOL_DEBUG);
  ck_assert_ptr_null(c.CachedPSO.pCachedBlob);

  resolve_vs_and(0, NULL, 0, &r);
  ck_assert_int_eq(psoc_resolved_to_compute_desc(&r, &c), PSOC_ERR_LOSSY);
  ck_assert_int_eq(psoc_resolved_to_compute_desc(NULL, &c), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_resolved_to_compute_desc(&r, NULL), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_resolved_to_graphics_desc(NULL, NULL), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_resolve(NULL, &r), PSOC_ERR_ARG);
}
END_TEST

/* ---- round trips through the builder ----------------------------------- */

/* stream -> resolve -> desc -> builder -> stream -> resolve -> desc */
START_TEST(test_graphics_desc_round_trip) {
  static const D3D12_INPUT_ELEMENT_DESC elements[2] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "TEXCOORD", 1, DXGI_FORMAT_R32G32_FLOAT, 1, 12, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 1 },
  };
  static const unsigned char ps_code[8] = { 'P', 'S', 0, 1, 2, 3, 4, 5 };
  ID3D12RootSignature *rs = (ID3D12RootSignature *)(uintptr_t)0x3000;
  D3D12_INPUT_LAYOUT_DESC il;
  D3D12_SHADER_BYTECODE ps = { ps_code, sizeof ps_code };
  D3D12_DEPTH_STENCIL_DESC ds = sample_ds();
  D3D12_RASTERIZER_DESC rd;
  D3D12_RT_FORMAT_ARRAY rtv;
  DXGI_FORMAT dsv = DXGI_FORMAT_D24_UNORM_S8_UINT;
  D3D12_PRIMITIVE_TOPOLOGY_TYPE topo = D3D12_PRIMITIVE_TOPOLOGY_TYPE_LINE;
  D3D12_INDEX_BUFFER_STRIP_CUT_VALUE cut = D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_0xFFFFFFFF;
  D3D12_GRAPHICS_PIPELINE_STATE_DESC g1, g2;
  psoc_builder *b = NULL;
  psoc_stream *out = NULL;
  psoc_parsed p;
  psoc_resolved r;
  psoc_diags d;
  uint32_t t;
  sp_stream s;

  memset(&il, 0, sizeof il);
  il.pInputElementDescs = elements;
  il.NumElements = 2;
  memset(&rd, 0, sizeof rd);
  rd.FillMode = D3D12_FILL_MODE_WIREFRAME;
  rd.CullMode = D3D12_CULL_MODE_FRONT;
  rd.DepthBias = 5;
  rd.SlopeScaledDepthBias = 1.5f;
  rd.AntialiasedLineEnable = TRUE;
  memset(&rtv, 0, sizeof rtv);
  rtv.NumRenderTargets = 2;
  rtv.RTFormats[0] = DXGI_FORMAT_R16G16B16A16_FLOAT;
  rtv.RTFormats[1] = DXGI_FORMAT_R8G8B8A8_UNORM_SRGB;

  sp_init(&s);
  SP_ADD(&s, PSOC_SO_ROOT_SIGNATURE, rs);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  SP_ADD(&s, PSOC_SO_PS, ps);
  SP_ADD(&s, PSOC_SO_INPUT_LAYOUT, il);
  SP_ADD(&s, PSOC_SO_DEPTH_STENCIL, ds);
  SP_ADD(&s, PSOC_SO_RASTERIZER, rd);
  SP_ADD(&s, PSOC_SO_RENDER_TARGET_FORMATS, rtv);
  SP_ADD(&s, PSOC_SO_DEPTH_STENCIL_FORMAT, dsv);
  SP_ADD(&s, PSOC_SO_PRIMITIVE_TOPOLOGY, topo);
  SP_ADD(&s, PSOC_SO_IB_STRIP_CUT_VALUE, cut);
  ck_assert_int_eq(graphics_desc_of(&s, &g1), PSOC_OK);
  sp_free(&s);

  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add_graphics_desc(b, &g1), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &out), PSOC_OK);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(psoc_check(psoc_stream_data(out), psoc_stream_size(out), NULL, &d), PSOC_OK);
  ck_assert_uint_eq(d.count, 0);
  psoc_diags_free(&d);
  ck_assert_int_eq(psoc_parse(psoc_stream_data(out), psoc_stream_size(out), &p, NULL), PSOC_OK);
  ck_assert_int_eq(psoc_resolve(&p, &r), PSOC_OK);
  /* everything a graphics desc holds is now explicit */
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    if (!is_class(t)) continue;
    if (t == PSOC_SO_CS || t == PSOC_SO_AS || t == PSOC_SO_MS)
      ck_assert_int_eq(r.origin[t], PSOC_ORIGIN_UNUSED);
    else if (t == PSOC_SO_VIEW_INSTANCING || t == PSOC_SO_SERIALIZED_ROOT_SIGNATURE)
      ck_assert_int_eq(r.origin[t], PSOC_ORIGIN_DEFAULT);
    else
      ck_assert_msg(r.origin[t] == PSOC_ORIGIN_EXPLICIT, "%s is not explicit after the round trip",
                    psoc_subobject_info_get(t)->name);
  }
  ck_assert_int_eq(r.topology_origin, PSOC_ORIGIN_EXPLICIT);
  ck_assert_int_eq(r.depth_enable_origin, PSOC_ORIGIN_EXPLICIT);
  ck_assert_int_eq(psoc_resolved_to_graphics_desc(&r, &g2), PSOC_OK);

  /* deep copies: same content at new addresses */
  ck_assert_uint_eq(g2.VS.BytecodeLength, sizeof sp_fake_dxil);
  ck_assert_int_eq(memcmp(g2.VS.pShaderBytecode, sp_fake_dxil, sizeof sp_fake_dxil), 0);
  ck_assert_uint_eq(g2.PS.BytecodeLength, sizeof ps_code);
  ck_assert_int_eq(memcmp(g2.PS.pShaderBytecode, ps_code, sizeof ps_code), 0);
  ck_assert_uint_eq(g2.InputLayout.NumElements, 2);
  for (t = 0; t < 2; t++) {
    const D3D12_INPUT_ELEMENT_DESC *e = &g2.InputLayout.pInputElementDescs[t];
    ck_assert_str_eq(e->SemanticName, elements[t].SemanticName);
    ck_assert_uint_eq(e->SemanticIndex, elements[t].SemanticIndex);
    ck_assert_int_eq(e->Format, elements[t].Format);
    ck_assert_uint_eq(e->InputSlot, elements[t].InputSlot);
    ck_assert_uint_eq(e->AlignedByteOffset, elements[t].AlignedByteOffset);
    ck_assert_int_eq(e->InputSlotClass, elements[t].InputSlotClass);
    ck_assert_uint_eq(e->InstanceDataStepRate, elements[t].InstanceDataStepRate);
  }
  ck_assert_ptr_eq(g2.pRootSignature, rs);
  /* with the copied pointers swapped back, the descs are identical */
  g2.VS.pShaderBytecode = g1.VS.pShaderBytecode;
  g2.PS.pShaderBytecode = g1.PS.pShaderBytecode;
  g2.InputLayout.pInputElementDescs = g1.InputLayout.pInputElementDescs;
  ck_assert_int_eq(memcmp(&g1, &g2, sizeof g1), 0);
  ck_assert_int_eq(g2.RasterizerState.DepthBias, 5);
  ck_assert_int_eq(g2.DSVFormat, DXGI_FORMAT_D24_UNORM_S8_UINT);
  ck_assert_uint_eq(g2.SampleMask, 0xFFFFFFFFu);
  ck_assert_uint_eq(g2.SampleDesc.Count, 1);

  psoc_stream_free(out);
  psoc_builder_free(b);
}
END_TEST

START_TEST(test_compute_desc_round_trip) {
  D3D12_COMPUTE_PIPELINE_STATE_DESC c1, c2;
  psoc_builder *b = NULL;
  psoc_stream *out = NULL;
  psoc_parsed p;
  psoc_resolved r;
  memset(&c1, 0, sizeof c1);
  c1.pRootSignature = (ID3D12RootSignature *)(uintptr_t)0x4000;
  c1.CS = sp_code(1);
  c1.NodeMask = 1;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add_compute_desc(b, &c1), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &out), PSOC_OK);
  ck_assert_int_eq(psoc_check(psoc_stream_data(out), psoc_stream_size(out), NULL, NULL), PSOC_OK);
  ck_assert_int_eq(psoc_parse(psoc_stream_data(out), psoc_stream_size(out), &p, NULL), PSOC_OK);
  ck_assert_int_eq(p.kind, PSOC_KIND_COMPUTE);
  ck_assert_int_eq(psoc_resolve(&p, &r), PSOC_OK);
  ck_assert_int_eq(psoc_resolved_to_compute_desc(&r, &c2), PSOC_OK);
  ck_assert_int_eq(memcmp(c2.CS.pShaderBytecode, sp_fake_dxil, sizeof sp_fake_dxil), 0);
  c2.CS.pShaderBytecode = c1.CS.pShaderBytecode;
  ck_assert_int_eq(memcmp(&c1, &c2, sizeof c1), 0);
  psoc_stream_free(out);
  psoc_builder_free(b);
}
END_TEST

/* ---- what the registry's list expands into ------------------------------- */

/* Every mask in internal.h against the rows it comes from. */
START_TEST(test_registry_masks) {
  uint64_t known = 0, versions = 0, shaders = 0, deciders = 0, ign[4] = { 0, 0, 0, 0 };
  uint32_t t, k;
  for (t = 0; t < 64; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    if (!info) continue;
    ck_assert_uint_eq(info->type, t);
    known |= PSOC_TYPE_BIT(t);
    if (info->dup_class != t) versions |= PSOC_TYPE_BIT(t);
    if (strcmp(info->payload->name, "D3D12_SHADER_BYTECODE") == 0) shaders |= PSOC_TYPE_BIT(t);
    if (info->bits & PSOC_SUBOBJECT_DECIDES_KIND) deciders |= PSOC_TYPE_BIT(t);
    for (k = PSOC_KIND_GRAPHICS; k <= PSOC_KIND_MESH; k++)
      if (!(info->kinds & PSOC_KIND_BIT(k))) ign[k] |= PSOC_TYPE_BIT(t);
  }
  ck_assert_uint_eq(PSOC_KNOWN_TYPES, known);
  ck_assert_uint_eq(PSOC_KNOWN_TYPES, ((uint64_t)1 << 30) - 1 - PSOC_TYPE_BIT(23));
  ck_assert_uint_eq(PSOC_VERSION_TYPES, versions);
  ck_assert_uint_eq(PSOC_VERSION_TYPES, PSOC_TYPE_BIT(PSOC_SO_DEPTH_STENCIL1) |
                                            PSOC_TYPE_BIT(PSOC_SO_DEPTH_STENCIL2) |
                                            PSOC_TYPE_BIT(PSOC_SO_RASTERIZER1) |
                                            PSOC_TYPE_BIT(PSOC_SO_RASTERIZER2));
  ck_assert_uint_eq(PSOC_SHADER_TYPES, shaders);
  ck_assert_uint_eq(PSOC_DECIDER_TYPES, deciders);
  ck_assert_uint_eq(PSOC_DECIDER_TYPES, PSOC_TYPE_BIT(PSOC_SO_VS) | PSOC_TYPE_BIT(PSOC_SO_CS) |
                                            PSOC_TYPE_BIT(PSOC_SO_MS));
  ck_assert_uint_eq(PSOC_IGNORED_BY_GRAPHICS, ign[PSOC_KIND_GRAPHICS]);
  ck_assert_uint_eq(PSOC_IGNORED_BY_COMPUTE, ign[PSOC_KIND_COMPUTE]);
  ck_assert_uint_eq(PSOC_IGNORED_BY_MESH, ign[PSOC_KIND_MESH]);
  ck_assert_uint_eq(PSOC_IGNORED_BY_GRAPHICS, PSOC_TYPE_BIT(PSOC_SO_CS) |
                                                  PSOC_TYPE_BIT(PSOC_SO_AS) |
                                                  PSOC_TYPE_BIT(PSOC_SO_MS));
  /* every version folds into its class; other types stay */
  ck_assert_uint_eq(psoc_classes_of(PSOC_TYPE_BIT(PSOC_SO_DEPTH_STENCIL2) |
                                    PSOC_TYPE_BIT(PSOC_SO_RASTERIZER1) |
                                    PSOC_TYPE_BIT(PSOC_SO_VS)),
                    PSOC_TYPE_BIT(PSOC_SO_DEPTH_STENCIL) | PSOC_TYPE_BIT(PSOC_SO_RASTERIZER) |
                        PSOC_TYPE_BIT(PSOC_SO_VS));
  ck_assert_uint_eq(psoc_classes_of(0), 0);
  ck_assert_uint_eq(psoc_lowest_bit(PSOC_TYPE_BIT(63)), 63);
}
END_TEST

START_TEST(test_registry_deciders) {
  char buf[96];
  ck_assert_uint_eq(psoc_kind_shader(PSOC_KIND_GRAPHICS), PSOC_SO_VS);
  ck_assert_uint_eq(psoc_kind_shader(PSOC_KIND_COMPUTE), PSOC_SO_CS);
  ck_assert_uint_eq(psoc_kind_shader(PSOC_KIND_MESH), PSOC_SO_MS);
  ck_assert_uint_eq(psoc_kind_shader(PSOC_KIND_NONE), PSOC_SO_TYPE_COUNT);
  ck_assert_uint_eq(psoc_kind_shader((psoc_kind)7), PSOC_SO_TYPE_COUNT);
  ck_assert_str_eq(psoc_registry_deciders_text(buf, sizeof buf, PSOC_DECIDERS_OR), "VS, CS or MS");
  ck_assert_str_eq(psoc_registry_deciders_text(buf, sizeof buf, PSOC_DECIDERS_LIST), "VS, CS, MS");
  ck_assert_str_eq(psoc_registry_deciders_text(buf, sizeof buf, PSOC_DECIDERS_KINDS),
                   "VS (graphics), CS (compute) or MS (mesh)");
  ck_assert_str_eq(psoc_registry_types_text(buf, sizeof buf), "0-22, 24-29");
  /* a short buffer keeps what fits, NUL-terminated */
  ck_assert_uint_lt(strlen(psoc_registry_types_text(buf, 6)), 6);
  ck_assert_uint_lt(strlen(psoc_registry_deciders_text(buf, 4, PSOC_DECIDERS_KINDS)), 4);
}
END_TEST

/* Each class absent from a stream resolves to its registry default payload
** and names itself as its source; versions name nothing. */
START_TEST(test_defaults_from_registry) {
  sp_stream s;
  psoc_resolved r;
  uint32_t t;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  resolve_stream(&s, &r);
  sp_free(&s);
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_subobject_info_get(t);
    if (!info || t == PSOC_SO_VS) continue;
    ck_assert_uint_eq(r.source_type[t], info->dup_class == t ? t : 0);
  }
  ck_assert_mem_eq(&r.blend, psoc_subobject_info_get(PSOC_SO_BLEND)->default_payload,
                   sizeof r.blend);
  ck_assert_mem_eq(&r.sample_mask, psoc_subobject_info_get(PSOC_SO_SAMPLE_MASK)->default_payload,
                   sizeof r.sample_mask);
  ck_assert_mem_eq(&r.sample_desc, psoc_subobject_info_get(PSOC_SO_SAMPLE_DESC)->default_payload,
                   sizeof r.sample_desc);
  ck_assert_mem_eq(&r.primitive_topology,
                   psoc_subobject_info_get(PSOC_SO_PRIMITIVE_TOPOLOGY)->default_payload,
                   sizeof r.primitive_topology);
  ck_assert_int_eq(r.topology_origin, PSOC_ORIGIN_HIDDEN_DEFAULT);
  ck_assert_int_eq(r.depth_enable_origin, PSOC_ORIGIN_HIDDEN_DEFAULT);
}
END_TEST

/* The messages that list registry rows (valid types, deciding shaders)
** read them from the registry and say what they said when the lists were
** written by hand. */
static const char *message_of(const sp_stream *s, psoc_code code) {
  static psoc_diag kept;
  psoc_diags d;
  const psoc_diag *found;
  psoc_diags_init(&d, NULL);
  sp_check(s, &d);
  found = sp_find(&d, code, 0);
  ck_assert_msg(found != NULL, "no diagnostic %d: %s", (int)code, sp_summary(&d));
  kept = *found;
  psoc_diags_free(&d);
  return kept.message;
}

START_TEST(test_registry_messages) {
  sp_stream s;
  psoc_diags d;
  static const unsigned char one = 0;
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_PS, 1);
  ck_assert_str_eq(message_of(&s, PSOC_CODE_NO_SHADER),
                   "cannot deduce the pipeline type: no VS, CS or MS subobject has non-null "
                   "bytecode; give VS (graphics), CS (compute) or MS (mesh) a shader");
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_shader(&s, PSOC_SO_MS, 1);
  ck_assert_str_eq(message_of(&s, PSOC_CODE_AMBIGUOUS_KIND),
                   "cannot deduce the pipeline type: VS and MS all have non-null bytecode; "
                   "exactly one of VS, CS, MS may carry a shader, set the others' bytecode to "
                   "null or remove them");
  sp_free(&s);
  sp_init(&s);
  sp_add_shader(&s, PSOC_SO_VS, 1);
  sp_add_raw(&s, 23, 4);
  ck_assert_ptr_nonnull(strstr(message_of(&s, PSOC_CODE_UNKNOWN_SUBOBJECT),
                               "is not a D3D12_PIPELINE_STATE_SUBOBJECT_TYPE (valid: 0-22, 24-29);"));
  sp_free(&s);
  psoc_diags_init(&d, NULL);
  psoc_check(&one, 0, NULL, &d);
  ck_assert_ptr_nonnull(sp_find(&d, PSOC_CODE_ZERO_SIZE_STREAM, 0));
  ck_assert_str_eq(sp_find(&d, PSOC_CODE_ZERO_SIZE_STREAM, 0)->message,
                   "the stream is empty (SizeInBytes is 0); a pipeline needs at least a VS, CS "
                   "or MS subobject");
  psoc_diags_free(&d);
}
END_TEST

/* psoc_enum.is_flags marks exactly the bit-set tables (the generator's
** 'flags' tables: the *_FLAGS enums and D3D12_COLOR_WRITE_ENABLE). */
START_TEST(test_enum_flags_bit) {
  size_t i, n = 0;
  for (i = 0; i < psoc_enum_all_count; i++) {
    const psoc_enum *e = psoc_enum_all[i];
    size_t len = strlen(e->name);
    int want = (len > 6 && strcmp(e->name + len - 6, "_FLAGS") == 0) ||
               strcmp(e->name, "D3D12_COLOR_WRITE_ENABLE") == 0;
    ck_assert_msg((e->is_flags != 0) == want, "%s: is_flags %u", e->name, (unsigned)e->is_flags);
    n += (size_t)want;
  }
  ck_assert_uint_eq(n, 6);
}
END_TEST

Suite *suite_resolve(void) {
  Suite *s = suite_create("resolve");
  TCase *tc = tcase_create("defaults");
  tcase_add_test(tc, test_defaults_graphics);
  tcase_add_test(tc, test_depth_hidden_default);
  tcase_add_test(tc, test_topology);
  tcase_add_test(tc, test_defaults_from_registry);
  suite_add_tcase(s, tc);
  tc = tcase_create("registry");
  tcase_add_test(tc, test_registry_masks);
  tcase_add_test(tc, test_registry_deciders);
  tcase_add_test(tc, test_enum_flags_bit);
  tcase_add_test(tc, test_registry_messages);
  suite_add_tcase(s, tc);
  tc = tcase_create("state");
  tcase_add_test(tc, test_rasterizer_int_bias);
  tcase_add_loop_test(tc, test_rasterizer_line_mode_from_flags, 0,
                      (int)(sizeof old_lines / sizeof old_lines[0]));
  tcase_add_loop_test(tc, test_rasterizer2_line_mode, 0,
                      (int)(sizeof new_lines / sizeof new_lines[0]));
  tcase_add_test(tc, test_depth_stencil_widen);
  tcase_add_test(tc, test_origins_compute);
  tcase_add_test(tc, test_origins_mesh_and_none);
  tcase_add_test(tc, test_pointers_copied);
  suite_add_tcase(s, tc);
  tc = tcase_create("descs");
  tcase_add_test(tc, test_graphics_desc_exact);
  tcase_add_loop_test(tc, test_graphics_desc_lossy, 0, LOSSY_COUNT_);
  tcase_add_test(tc, test_compute_desc);
  tcase_add_test(tc, test_graphics_desc_round_trip);
  tcase_add_test(tc, test_compute_desc_round_trip);
  suite_add_tcase(s, tc);
  return s;
}
