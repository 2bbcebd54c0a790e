/*
** test_validation_shader.c: checks that read shader containers (with
** PSOC_CHECK_FOLLOW_POINTERS): container integrity and checksum, stage
** slots, shader model, root signatures, input layout against the VS
** inputs, PS outputs against the render targets, stage linkage. The
** containers come from the test writer (dxbc_writer.c).
*/
#include "dxbc.h"
#include "suites.h"
#include "test_validation.h"

#define GPS "CREATEGRAPHICSPIPELINESTATE_"
#define IL "CREATEINPUTLAYOUT_"

enum { PS = 0, VS = 1, GS = 2, HS = 3, DS = 4, CS = 5, MS = 13 };
enum { F = 3, U = 1 };

#define E(name, idx, sv, comp, reg, mask, rw) { name, idx, sv, comp, reg, mask, rw, 0, 0 }

static const dw_elem vs_in[] = { E("POSITION", 0, 0, F, 0, 7, 7), E("TEXCOORD", 0, 0, F, 1, 3, 3),
                                 E("SV_VertexID", 0, 6, U, 2, 1, 1) };
static const dw_elem vs_out[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("TEXCOORD", 0, 0, F, 1, 3, 0) };
static const dw_elem ps_in[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("TEXCOORD", 0, 0, F, 1, 3, 3) };
static const dw_elem ps_out[] = { E("SV_Target", 0, 0, F, 0, 0xf, 0) };

static const D3D12_INPUT_ELEMENT_DESC layout[] = {
  { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
  { "TEXCOORD", 0, DXGI_FORMAT_R16G16_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
};

typedef struct pipe {
  dw_blob vs, ps, extra[3];
  const D3D12_INPUT_ELEMENT_DESC *layout;
  UINT elements;
  D3D12_RT_FORMAT_ARRAY rts;
} pipe;

/* A VS+PS pipeline: layout, one R8G8B8A8_UNORM target. Blobs are owned. */
static pipe pipe_default(void) {
  pipe p;
  memset(&p, 0, sizeof p);
  p.vs = dw_shader(VS, 5, 0, 0, vs_in, 3, vs_out, 2, 1);
  p.ps = dw_shader(PS, 5, 0, 0, ps_in, 2, ps_out, 1, 1);
  p.layout = layout;
  p.elements = 2;
  p.rts.NumRenderTargets = 1;
  p.rts.RTFormats[0] = DXGI_FORMAT_R8G8B8A8_UNORM;
  return p;
}

static void pipe_stream(const pipe *p, vt_stream *s) {
  D3D12_INPUT_LAYOUT_DESC il = { p->layout, p->elements };
  memset(s, 0, sizeof *s);
  if (p->vs.data) vt_shader(s, PSOC_SO_VS, p->vs.data, p->vs.size);
  if (p->ps.data) vt_shader(s, PSOC_SO_PS, p->ps.data, p->ps.size);
  if (p->layout) VT_ADD(s, PSOC_SO_INPUT_LAYOUT, il);
  VT_ADD(s, PSOC_SO_RENDER_TARGET_FORMATS, p->rts);
}

static void pipe_free(pipe *p, vt_stream *s) {
  unsigned i;
  dw_free(&p->vs);
  dw_free(&p->ps);
  for (i = 0; i < 3; i++) dw_free(&p->extra[i]);
  vt_free(s);
}

START_TEST(shader_clean_pipelines) {
  pipe p = pipe_default();
  vt_stream s;
  pipe_stream(&p, &s);
  VT_CLEAN(&s, FOLLOW, NULL);
  VT_CLEAN(&s, 0, NULL);
  pipe_free(&p, &s);
  /* the same as DXIL 6.0 */
  p = pipe_default();
  dw_free(&p.vs);
  dw_free(&p.ps);
  p.vs = dw_shader(VS, 6, 0, 1, vs_in, 3, vs_out, 2, 1);
  p.ps = dw_shader(PS, 6, 0, 1, ps_in, 2, ps_out, 1, 1);
  pipe_stream(&p, &s);
  VT_CLEAN(&s, FOLLOW, NULL);
  pipe_free(&p, &s);
}
END_TEST

START_TEST(shader_container_integrity) {
  pipe p = pipe_default();
  vt_stream s;
  size_t full = p.vs.size;
  /* truncated: the container says more bytes than BytecodeLength */
  p.vs.size = full - 8;
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, "CREATEVERTEXSHADER_INVALIDSHADERBYTECODE");
  VT_ABSENT(&s, 0, NULL, "CREATEVERTEXSHADER_INVALIDSHADERBYTECODE"); /* not read without FOLLOW */
  vt_free(&s);
  p.vs.size = full;
  /* a modified byte: checksum mismatch */
  p.vs.data[full - 1] ^= 1;
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, "CREATEVERTEXSHADER_INVALIDSHADERBYTECODE");
  vt_free(&s);
  /* unsigned (zero digest): a warning */
  memset(p.vs.data + 4, 0, 16);
  pipe_stream(&p, &s);
  VT_WARNING(&s, FOLLOW, NULL, "CREATEVERTEXSHADER_INVALIDSHADERBYTECODE");
  vt_free(&s);
  dw_resign(&p.vs);
  /* bad magic, then a chunk offset outside the container */
  p.ps.data[0] = 'X';
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, "CREATEPIXELSHADER_INVALIDSHADERBYTECODE");
  vt_free(&s);
  p.ps.data[0] = 'D';
  p.ps.data[32] = 0xff;
  p.ps.data[33] = 0xff;
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, "CREATEPIXELSHADER_INVALIDSHADERBYTECODE");
  pipe_free(&p, &s);
}
END_TEST

START_TEST(shader_unparseable_input_signature) {
  static const uint32_t bad_isgn[2] = { 1000, 8 }; /* 1000 elements in 8 bytes */
  dw_chunk c[1] = { { PSOC_FOURCC('I', 'S', 'G', 'N'), bad_isgn, sizeof bad_isgn } };
  pipe p = pipe_default();
  vt_stream s;
  dw_free(&p.vs);
  p.vs = dw_container(c, 1, 1);
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, IL "UNPARSEABLEINPUTSIGNATURE");
  pipe_free(&p, &s);
}
END_TEST

START_TEST(shader_wrong_stage) {
  pipe p = pipe_default();
  vt_stream s;
  dw_blob tmp = p.vs;
  p.vs = p.ps; /* swapped */
  p.ps = tmp;
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, "CREATEVERTEXSHADER_INVALIDSHADERTYPE");
  VT_ERROR(&s, FOLLOW, NULL, "CREATEPIXELSHADER_INVALIDSHADERTYPE");
  pipe_free(&p, &s);
}
END_TEST

START_TEST(shader_compute) {
  dw_blob cs = dw_shader(CS, 5, 1, 0, NULL, 0, NULL, 0, 0), vs = dw_shader(VS, 5, 1, 0, NULL, 0, NULL, 0, 0);
  dw_blob bare = dw_shader(CS, 5, 1, 0, NULL, 0, NULL, 0, -1);
  vt_stream s;
  memset(&s, 0, sizeof s);
  vt_shader(&s, PSOC_SO_CS, cs.data, cs.size);
  VT_CLEAN(&s, FOLLOW, NULL);
  vt_free(&s);
  vt_shader(&s, PSOC_SO_CS, vs.data, vs.size);
  VT_ERROR(&s, FOLLOW, NULL, "CREATECOMPUTEPIPELINESTATE_INVALID_SHADER");
  vt_free(&s);
  vt_shader(&s, PSOC_SO_CS, cs.data, cs.size - 1);
  VT_ERROR(&s, FOLLOW, NULL, "CREATECOMPUTEPIPELINESTATE_INVALID_SHADER");
  vt_free(&s);
  vt_shader(&s, PSOC_SO_CS, bare.data, bare.size);
  VT_ERROR(&s, FOLLOW, NULL, "CREATECOMPUTEPIPELINESTATE_MISSING_ROOT_SIGNATURE");
  {
    ID3D12RootSignature *rs = (ID3D12RootSignature *)(uintptr_t)0x1000; /* never followed */
    VT_ADD(&s, PSOC_SO_ROOT_SIGNATURE, rs);
    VT_CLEAN(&s, FOLLOW, NULL);
  }
  vt_free(&s);
  dw_free(&cs);
  dw_free(&vs);
  dw_free(&bare);
}
END_TEST

START_TEST(shader_model_profile) {
  pipe p = pipe_default();
  vt_stream s;
  dw_free(&p.vs);
  dw_free(&p.ps);
  p.vs = dw_shader(VS, 6, 6, 1, vs_in, 3, vs_out, 2, 1);
  p.ps = dw_shader(PS, 6, 6, 1, ps_in, 2, ps_out, 1, 1);
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, "desktop_fl12_0", GPS "SHADER_MODEL_MISMATCH");
  VT_CLEAN(&s, FOLLOW, NULL); /* issue 9.5: the shader model is a capability */
  VT_CLEAN(&s, FOLLOW, "desktop_sm6_6");
  vt_free(&s);
  dw_free(&p.ps); /* DXIL VS with a DXBC PS */
  p.ps = dw_shader(PS, 5, 0, 0, ps_in, 2, ps_out, 1, 1);
  pipe_stream(&p, &s);
  VT_WARNING(&s, FOLLOW, "desktop_sm6_6", GPS "SHADER_MODEL_MISMATCH");
  pipe_free(&p, &s);
  /* shader model 5.1 on a feature level 11_0 profile is fine; 6.0 is not */
  p = pipe_default();
  pipe_stream(&p, &s);
  VT_CLEAN(&s, FOLLOW, "desktop_fl11_0");
  pipe_free(&p, &s);
}
END_TEST

START_TEST(shader_root_signature) {
  pipe p = pipe_default();
  vt_stream s;
  dw_blob rs_ia = dw_root_signature(1), rs_no = dw_root_signature(0);
  psoc_serialized_root_signature_desc srs;
  dw_free(&p.vs);
  dw_free(&p.ps);
  p.vs = dw_shader(VS, 5, 0, 0, vs_in, 3, vs_out, 2, -1);
  p.ps = dw_shader(PS, 5, 0, 0, ps_in, 2, ps_out, 1, -1);
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, GPS "MISSING_ROOT_SIGNATURE");
  VT_ABSENT(&s, 0, NULL, GPS "MISSING_ROOT_SIGNATURE");
  srs.pSerializedBlob = rs_ia.data;
  srs.SerializedBlobSizeInBytes = rs_ia.size;
  VT_ADD(&s, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, srs);
  VT_CLEAN(&s, FOLLOW, NULL);
  vt_free(&s);
  pipe_stream(&p, &s);
  srs.pSerializedBlob = rs_no.data;
  srs.SerializedBlobSizeInBytes = rs_no.size;
  VT_ADD(&s, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, srs);
  VT_ERROR(&s, FOLLOW, NULL, GPS "MISSING_ROOT_SIGNATURE_FLAGS");
  vt_free(&s);
  /* embedded root signature without ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT */
  dw_free(&p.vs);
  p.vs = dw_shader(VS, 5, 0, 0, vs_in, 3, vs_out, 2, 0);
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, GPS "MISSING_ROOT_SIGNATURE_FLAGS");
  pipe_free(&p, &s);
  dw_free(&rs_ia);
  dw_free(&rs_no);
  {
    /* stream output without ALLOW_STREAM_OUTPUT (0x40): E_INVALIDARG in
    ** vkd3d-proton's test_create_graphics_pipeline_state (was accepted) */
    static const D3D12_SO_DECLARATION_ENTRY so_decl[] = { { 0, "SV_Position", 0, 0, 4, 0 } };
    static const UINT strides[] = { 16 };
    D3D12_STREAM_OUTPUT_DESC so = { so_decl, 1, strides, 1, 0 };
    dw_blob rs_so = dw_root_signature(0x41);
    rs_ia = dw_root_signature(1);
    p = pipe_default();
    pipe_stream(&p, &s);
    VT_ADD(&s, PSOC_SO_STREAM_OUTPUT, so);
    srs.pSerializedBlob = rs_ia.data;
    srs.SerializedBlobSizeInBytes = rs_ia.size;
    VT_ADD(&s, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, srs);
    VT_ERROR(&s, FOLLOW, NULL, GPS "MISSING_ROOT_SIGNATURE_FLAGS");
    vt_free(&s);
    pipe_stream(&p, &s);
    VT_ADD(&s, PSOC_SO_STREAM_OUTPUT, so);
    srs.pSerializedBlob = rs_so.data;
    srs.SerializedBlobSizeInBytes = rs_so.size;
    VT_ADD(&s, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, srs);
    VT_ABSENT(&s, FOLLOW, NULL, GPS "MISSING_ROOT_SIGNATURE_FLAGS");
    pipe_free(&p, &s);
    dw_free(&rs_ia);
    dw_free(&rs_so);
  }
}
END_TEST

START_TEST(shader_input_layout_vs_inputs) {
  static const D3D12_INPUT_ELEMENT_DESC missing[] = { { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT,
                                                        0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 } };
  static const D3D12_INPUT_ELEMENT_DESC uint_pos[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_UINT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "texcoord", 0, DXGI_FORMAT_R16G16_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
  };
  pipe p = pipe_default();
  vt_stream s;
  p.layout = NULL;
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, GPS "INPUTLAYOUT_NOT_SET");
  vt_free(&s);
  p.layout = missing;
  p.elements = 1;
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, IL "MISSINGELEMENT");
  vt_free(&s);
  p.layout = uint_pos;
  p.elements = 2;
  pipe_stream(&p, &s);
  VT_WARNING(&s, FOLLOW, NULL, IL "TYPE_MISMATCH");
  VT_ABSENT(&s, FOLLOW, NULL, IL "MISSINGELEMENT"); /* names match case-insensitively */
  pipe_free(&p, &s);
}
END_TEST

START_TEST(shader_ps_outputs) {
  static const dw_elem out1[] = { E("SV_Target", 1, 64, F, 1, 0xf, 0) };
  static const dw_elem outu[] = { E("SV_TARGET", 0, 0, F, 0, 0xf, 0) };
  static const dw_elem depth[] = { E("SV_Target", 0, 64, F, 0, 0xf, 0), E("SV_Depth", 0, 65, F, ~0u, 1, 0) };
  pipe p = pipe_default();
  vt_stream s;
  dw_free(&p.ps);
  p.ps = dw_shader(PS, 5, 0, 0, ps_in, 2, out1, 1, 1);
  pipe_stream(&p, &s);
  VT_WARNING(&s, FOLLOW, NULL, GPS "RENDERTARGETVIEW_NOT_SET");
  VT_WARNING(&s, FOLLOW, NULL, GPS "PS_OUTPUT_RT_OUTPUT_MISMATCH");
  vt_free(&s);
  dw_free(&p.ps);
  p.ps = dw_shader(PS, 5, 0, 0, ps_in, 2, outu, 1, 1);
  p.rts.RTFormats[0] = DXGI_FORMAT_R32_UINT;
  pipe_stream(&p, &s);
  VT_WARNING(&s, FOLLOW, NULL, GPS "PS_OUTPUT_TYPE_MISMATCH");
  vt_free(&s);
  p.rts.RTFormats[0] = DXGI_FORMAT_R16G16B16A16_FLOAT;
  pipe_stream(&p, &s);
  VT_CLEAN(&s, FOLLOW, NULL);
  vt_free(&s);
  dw_free(&p.ps);
  p.ps = dw_shader(PS, 5, 0, 0, ps_in, 2, depth, 2, 1);
  pipe_stream(&p, &s);
  VT_WARNING(&s, FOLLOW, NULL, GPS "DEPTHSTENCILVIEW_NOT_SET");
  {
    DXGI_FORMAT dsv = DXGI_FORMAT_D32_FLOAT;
    VT_ADD(&s, PSOC_SO_DEPTH_STENCIL_FORMAT, dsv);
    VT_CLEAN(&s, FOLLOW, NULL);
  }
  pipe_free(&p, &s);
}
END_TEST

/* A blend desc: RenderTarget[0] blends (SRC_ALPHA / INV_SRC_ALPHA, or
** with SRC1 factors when 'dual'). */
static D3D12_BLEND_DESC blend_on(int dual) {
  D3D12_BLEND_DESC b = vt_blend_default();
  b.RenderTarget[0].BlendEnable = TRUE;
  b.RenderTarget[0].SrcBlend = D3D12_BLEND_SRC_ALPHA;
  b.RenderTarget[0].DestBlend = dual ? D3D12_BLEND_INV_SRC1_COLOR : D3D12_BLEND_INV_SRC_ALPHA;
  return b;
}

/* Issue 9.4: blending on an integer render target fails only when the PS
** writes that target. vkd3d-proton's test_integer_blending_pipeline_state
** (the native runtime's verdicts): R32_UINT with blending is created with a
** PS that has no SV_Target and fails with a PS writing SV_Target0, even
** with RenderTargetWriteMask 0. Without FOLLOW the signature is unknown: a
** warning (tests/unit/test_validation.c: blend_format_support). */
START_TEST(shader_blend_format_writes) {
  static const dw_elem outu[] = { E("SV_Target", 0, 64, U, 0, 0xf, 0) };
  pipe p = pipe_default();
  vt_stream s;
  D3D12_BLEND_DESC b = blend_on(0);
  dw_free(&p.ps);
  p.ps = dw_shader(PS, 5, 0, 0, ps_in, 2, outu, 1, 1);
  p.rts.RTFormats[0] = DXGI_FORMAT_R32_UINT;
  pipe_stream(&p, &s);
  VT_ADD(&s, PSOC_SO_BLEND, b);
  VT_ERROR(&s, FOLLOW, NULL, GPS "OM_RENDER_TARGET_DOES_NOT_SUPPORT_BLENDING");
  VT_WARNING(&s, 0, NULL, GPS "OM_RENDER_TARGET_DOES_NOT_SUPPORT_BLENDING");
  vt_free(&s);
  b.RenderTarget[0].RenderTargetWriteMask = 0; /* not enough */
  pipe_stream(&p, &s);
  VT_ADD(&s, PSOC_SO_BLEND, b);
  VT_ERROR(&s, FOLLOW, NULL, GPS "OM_RENDER_TARGET_DOES_NOT_SUPPORT_BLENDING");
  vt_free(&s);
  b.RenderTarget[0].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL;
  dw_free(&p.ps); /* a PS with no SV_Target: created */
  p.ps = dw_shader(PS, 5, 0, 0, ps_in, 2, NULL, 0, 1);
  pipe_stream(&p, &s);
  VT_ADD(&s, PSOC_SO_BLEND, b);
  VT_ABSENT(&s, FOLLOW, NULL, GPS "OM_RENDER_TARGET_DOES_NOT_SUPPORT_BLENDING");
  pipe_free(&p, &s);
}
END_TEST

/* Issue 9.3 with the shader known, after vkd3d-proton's
** test_dual_source_blending: a bound render target beyond 0 fails only when
** the PS writes it ("only RTs with an IOSIG entry" count). */
START_TEST(shader_dual_source_writes) {
  static const dw_elem two[] = { E("SV_Target", 0, 64, F, 0, 0xf, 0),
                                 E("SV_Target", 1, 64, F, 1, 0xf, 0) };
  static const dw_elem three[] = { E("SV_Target", 0, 64, F, 0, 0xf, 0),
                                   E("SV_Target", 1, 64, F, 1, 0xf, 0),
                                   E("SV_Target", 2, 64, F, 2, 0xf, 0) };
  pipe p = pipe_default();
  vt_stream s;
  D3D12_BLEND_DESC b = blend_on(1);
  dw_free(&p.ps);
  p.ps = dw_shader(PS, 5, 0, 0, ps_in, 2, two, 2, 1);
  p.rts.NumRenderTargets = 3;
  p.rts.RTFormats[2] = DXGI_FORMAT_R8G8B8A8_UNORM; /* 1 UNKNOWN, 2 bound, not written */
  pipe_stream(&p, &s);
  VT_ADD(&s, PSOC_SO_BLEND, b);
  VT_ABSENT(&s, FOLLOW, NULL, GPS "OM_DUAL_SOURCE_BLENDING_CAN_ONLY_HAVE_RENDER_TARGET_0");
  VT_WARNING(&s, 0, NULL, GPS "OM_DUAL_SOURCE_BLENDING_CAN_ONLY_HAVE_RENDER_TARGET_0");
  vt_free(&s);
  dw_free(&p.ps); /* now the PS writes SV_Target2 */
  p.ps = dw_shader(PS, 5, 0, 0, ps_in, 2, three, 3, 1);
  pipe_stream(&p, &s);
  VT_ADD(&s, PSOC_SO_BLEND, b);
  VT_ERROR(&s, FOLLOW, NULL, GPS "OM_DUAL_SOURCE_BLENDING_CAN_ONLY_HAVE_RENDER_TARGET_0");
  vt_free(&s);
  p.rts.NumRenderTargets = 2; /* RTFormats[1] bound: SV_Target1 is written */
  p.rts.RTFormats[1] = DXGI_FORMAT_R8G8B8A8_UNORM;
  p.rts.RTFormats[2] = DXGI_FORMAT_UNKNOWN;
  pipe_stream(&p, &s);
  VT_ADD(&s, PSOC_SO_BLEND, b);
  VT_ERROR(&s, FOLLOW, NULL, GPS "OM_DUAL_SOURCE_BLENDING_CAN_ONLY_HAVE_RENDER_TARGET_0");
  VT_ERROR(&s, 0, NULL, GPS "OM_DUAL_SOURCE_BLENDING_CAN_ONLY_HAVE_RENDER_TARGET_0");
  pipe_free(&p, &s);
}
END_TEST

START_TEST(shader_position_not_present) {
  static const dw_elem out[] = { E("TEXCOORD", 0, 0, F, 1, 3, 0) };
  pipe p = pipe_default();
  vt_stream s;
  dw_free(&p.vs);
  p.vs = dw_shader(VS, 5, 0, 0, vs_in, 3, out, 1, 1);
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, GPS "POSITION_NOT_PRESENT");
  vt_free(&s);
  dw_free(&p.ps); /* no PS and no depth: nothing is rasterized */
  pipe_stream(&p, &s);
  VT_ABSENT(&s, FOLLOW, NULL, GPS "POSITION_NOT_PRESENT");
  pipe_free(&p, &s);
}
END_TEST

/* One linkage case: the PS input signature 'in' against vs_out. */
static void link_case(const dw_elem *in, size_t n, const dw_elem *vsout, size_t nout, int dxil,
                      const char *id, psoc_severity sev) {
  pipe p = pipe_default();
  vt_stream s;
  dw_free(&p.vs);
  dw_free(&p.ps);
  p.vs = dw_shader(VS, dxil ? 6 : 5, 0, dxil, vs_in, 3, vsout, nout, 1);
  p.ps = dw_shader(PS, dxil ? 6 : 5, 0, dxil, in, n, ps_out, 1, 1);
  pipe_stream(&p, &s);
  if (id)
    vt_expect_at(&s, FOLLOW, NULL, id, sev, __FILE__, __LINE__);
  else
    VT_CLEAN(&s, FOLLOW, NULL);
  pipe_free(&p, &s);
}

START_TEST(shader_linkage) {
  static const dw_elem color[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("COLOR", 0, 0, F, 1, 0xf, 0xf) };
  static const dw_elem uintc[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("TEXCOORD", 0, 0, U, 1, 3, 3) };
  static const dw_elem wide[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("TEXCOORD", 0, 0, F, 1, 0xf, 0xf) };
  static const dw_elem moved[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("TEXCOORD", 0, 0, F, 2, 3, 3) };
  static const dw_elem clip_out[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("SV_ClipDistance", 0, 2, F, 1, 1, 0) };
  static const dw_elem clip_in[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("SV_ClipDistance", 0, 3, F, 1, 1, 0) };
  static const dw_elem never_out[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("TEXCOORD", 0, 0, F, 1, 3, 2) };
  static const dw_elem low_out[] = { { "SV_Position", 0, 1, F, 0, 0xf, 0, 0, 0 },
                                     { "TEXCOORD", 0, 0, F, 1, 3, 0, 0, 1 } };
  link_case(ps_in, 2, vs_out, 2, 0, NULL, PSOC_SEVERITY_NOTE); /* clean */
  link_case(color, 2, vs_out, 2, 0, GPS "SHADER_LINKAGE_SEMANTICNAME_NOT_FOUND", PSOC_SEVERITY_ERROR);
  link_case(uintc, 2, vs_out, 2, 0, GPS "SHADER_LINKAGE_COMPONENTTYPE", PSOC_SEVERITY_ERROR);
  link_case(wide, 2, vs_out, 2, 0, GPS "SHADER_LINKAGE_REGISTERMASK", PSOC_SEVERITY_ERROR);
  link_case(moved, 2, vs_out, 2, 0, GPS "SHADER_LINKAGE_REGISTERINDEX", PSOC_SEVERITY_ERROR);
  link_case(moved, 2, vs_out, 2, 1, NULL, PSOC_SEVERITY_NOTE); /* DXIL links by semantic */
  link_case(clip_in, 2, clip_out, 2, 0, GPS "SHADER_LINKAGE_SYSTEMVALUE", PSOC_SEVERITY_ERROR);
  link_case(ps_in, 2, never_out, 2, 0, GPS "SHADER_LINKAGE_NEVERWRITTEN_ALWAYSREADS",
            PSOC_SEVERITY_WARNING);
  link_case(ps_in, 2, low_out, 2, 1, GPS "SHADER_LINKAGE_MINPRECISION", PSOC_SEVERITY_WARNING);
}
END_TEST

START_TEST(shader_linkage_hs_ds) {
  static const dw_elem cp[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("TEXCOORD", 0, 0, F, 1, 3, 0) };
  static const dw_elem ds_in_bad[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0xf), E("NORMAL", 0, 0, F, 1, 7, 7) };
  D3D12_PRIMITIVE_TOPOLOGY_TYPE patch = D3D12_PRIMITIVE_TOPOLOGY_TYPE_PATCH;
  pipe p = pipe_default();
  vt_stream s;
  p.extra[0] = dw_shader(HS, 5, 0, 0, cp, 2, cp, 2, 1);
  p.extra[1] = dw_shader(DS, 5, 0, 0, cp, 2, cp, 2, 1);
  p.extra[2] = dw_shader(DS, 5, 0, 0, ds_in_bad, 2, cp, 2, 1);
  pipe_stream(&p, &s);
  VT_ADD(&s, PSOC_SO_PRIMITIVE_TOPOLOGY, patch);
  vt_shader(&s, PSOC_SO_HS, p.extra[0].data, p.extra[0].size);
  vt_shader(&s, PSOC_SO_DS, p.extra[1].data, p.extra[1].size);
  VT_CLEAN(&s, FOLLOW, NULL);
  vt_free(&s);
  pipe_stream(&p, &s);
  VT_ADD(&s, PSOC_SO_PRIMITIVE_TOPOLOGY, patch);
  vt_shader(&s, PSOC_SO_HS, p.extra[0].data, p.extra[0].size);
  vt_shader(&s, PSOC_SO_DS, p.extra[2].data, p.extra[2].size);
  VT_ERROR(&s, FOLLOW, NULL, GPS "SHADER_LINKAGE_HS_DS_SIGNATURE_MISMATCH");
  pipe_free(&p, &s);
}
END_TEST

START_TEST(shader_linkage_ms_ps) {
  static const dw_elem ms_out[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("TEXCOORD", 0, 0, F, 1, 3, 0) };
  static const dw_elem ps_color[] = { E("SV_Position", 0, 1, F, 0, 0xf, 0), E("COLOR", 0, 0, F, 1, 0xf, 0xf) };
  dw_blob ms = dw_shader(MS, 6, 5, 1, NULL, 0, ms_out, 2, 0);
  dw_blob ps = dw_shader(PS, 6, 5, 1, ps_in, 2, ps_out, 1, 0);
  dw_blob bad = dw_shader(PS, 6, 5, 1, ps_color, 2, ps_out, 1, 0);
  D3D12_RT_FORMAT_ARRAY r;
  vt_stream s;
  memset(&r, 0, sizeof r);
  r.NumRenderTargets = 1;
  r.RTFormats[0] = DXGI_FORMAT_R8G8B8A8_UNORM;
  memset(&s, 0, sizeof s);
  vt_shader(&s, PSOC_SO_MS, ms.data, ms.size);
  vt_shader(&s, PSOC_SO_PS, ps.data, ps.size);
  VT_ADD(&s, PSOC_SO_RENDER_TARGET_FORMATS, r);
  VT_CLEAN(&s, FOLLOW, "desktop_fl12_2");
  vt_free(&s);
  vt_shader(&s, PSOC_SO_MS, ms.data, ms.size);
  vt_shader(&s, PSOC_SO_PS, bad.data, bad.size);
  VT_ADD(&s, PSOC_SO_RENDER_TARGET_FORMATS, r);
  VT_ERROR(&s, FOLLOW, "desktop_fl12_2", GPS "MS_NOT_PS_MISMATCH");
  vt_free(&s);
  dw_free(&ms);
  dw_free(&ps);
  dw_free(&bad);
}
END_TEST

/* The container reader against a real fxc container's layout, hand-made
** edge cases and a deterministic mutation sweep (run under ASan). */
START_TEST(dxbc_reader) {
  dw_blob b = dw_shader(PS, 5, 0, 0, ps_in, 2, ps_out, 1, 3);
  psoc_dxbc c;
  psoc_dxbc_element e;
  uint32_t seed = 12345;
  size_t i;
  ck_assert_int_eq(psoc_dxbc_parse(b.data, b.size, &c), PSOC_DXBC_OK);
  ck_assert(c.digest_ok);
  ck_assert_uint_eq(c.program_type, PSOC_PROGRAM_PS);
  ck_assert_uint_eq(c.major, 5);
  ck_assert_uint_eq(c.input.count, 2);
  ck_assert(psoc_dxbc_element_get(&c.input, 1, &e));
  ck_assert_uint_eq(e.name_len, 8);
  ck_assert_int_eq(memcmp(e.name, "TEXCOORD", 8), 0);
  ck_assert_uint_eq(e.reg, 1);
  ck_assert_uint_eq(e.mask, 3);
  ck_assert(!psoc_dxbc_element_get(&c.input, 2, &e));
  ck_assert(c.has_root_signature);
  ck_assert_uint_eq(c.root_signature_flags, 3);
  ck_assert_int_eq(psoc_dxbc_parse(b.data, 31, &c), PSOC_DXBC_TOO_SMALL);
  ck_assert_int_eq(psoc_dxbc_parse(NULL, 100, &c), PSOC_DXBC_TOO_SMALL);
  ck_assert_int_eq(psoc_dxbc_parse(b.data, b.size - 1, &c), PSOC_DXBC_BAD_SIZE);
  ck_assert_str_ne(psoc_dxbc_error_text(PSOC_DXBC_BAD_CHUNK), "unknown error");
  /* every prefix and many single-byte mutations: no crash, no over-read */
  for (i = 0; i <= b.size; i++) {
    unsigned char *copy = malloc(i ? i : 1);
    memcpy(copy, b.data, i);
    psoc_dxbc_parse(copy, i, &c);
    free(copy);
  }
  for (i = 0; i < 4000; i++) {
    unsigned char *copy = malloc(b.size);
    uint32_t k;
    memcpy(copy, b.data, b.size);
    for (k = 0; k < 1 + i % 4; k++) {
      seed = seed * 1103515245u + 12345u;
      copy[(seed >> 8) % b.size] = (unsigned char)(seed >> 24);
    }
    if (psoc_dxbc_parse(copy, b.size, &c) == PSOC_DXBC_OK) {
      uint32_t j;
      for (j = 0; psoc_dxbc_element_get(&c.input, j, &e); j++) ck_assert(e.name_len < b.size);
      for (j = 0; psoc_dxbc_element_get(&c.output, j, &e); j++) ck_assert(e.name_len < b.size);
    }
    free(copy);
  }
  dw_free(&b);
}
END_TEST

/* The checksum of an empty-bodied container and of sizes around the 56-byte
** boundary of the final MD5 block: stable, and sensitive to every byte. */
START_TEST(dxbc_checksum_blocks) {
  unsigned char buf[20 + 130];
  uint8_t a[16], b2[16];
  size_t n;
  for (n = 0; n < sizeof buf; n++) buf[n] = (unsigned char)(n * 7 + 3);
  for (n = 20; n <= sizeof buf; n++) {
    psoc_dxbc_checksum(buf, n, a);
    psoc_dxbc_checksum(buf, n, b2);
    ck_assert_int_eq(memcmp(a, b2, 16), 0);
    if (n > 20) {
      buf[n - 1] ^= 0x40;
      psoc_dxbc_checksum(buf, n, b2);
      buf[n - 1] ^= 0x40;
      ck_assert_int_ne(memcmp(a, b2, 16), 0);
    }
  }
}
END_TEST

/* psoc_check_known takes a listed blob's checksum instead of computing it:
** the right one changes nothing, a wrong one is reported as the container's
** (so the list is what is used); psoc_shader_checksum gives the right one. */
START_TEST(shader_known_checksums) {
  pipe p = pipe_default();
  vt_stream s;
  psoc_known_checksum known[2];
  psoc_check_options o = { PSOC_CHECK_FOLLOW_POINTERS, NULL };
  psoc_diags d;
  uint8_t digest[16];
  size_t i;
  pipe_stream(&p, &s);
  ck_assert_int_eq(psoc_shader_checksum(p.vs.data, p.vs.size, known[0].checksum), 0);
  ck_assert_int_eq(memcmp(known[0].checksum, p.vs.data + 4, 16), 0); /* what it was signed with */
  ck_assert_int_eq(psoc_shader_checksum(p.ps.data, p.ps.size, known[1].checksum), 0);
  known[0].blob = p.vs.data, known[0].size = p.vs.size;
  known[1].blob = p.ps.data, known[1].size = p.ps.size;
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(psoc_check_known(s.data, s.size, &o, known, 2, &d), PSOC_OK);
  ck_assert_uint_eq(d.count, 0);
  known[1].checksum[3] ^= 1; /* the list is believed: the PS now fails its checksum */
  psoc_diags_clear(&d);
  ck_assert_int_eq(psoc_check_known(s.data, s.size, &o, known, 2, &d), PSOC_ERR_INVALID);
  ck_assert_uint_eq(d.errors, 1);
  ck_assert_str_eq(d.items[0].message_id, "CREATEPIXELSHADER_INVALIDSHADERBYTECODE");
  /* matched by pointer and size: another size is not the listed blob */
  known[1].size = p.ps.size - 1;
  psoc_diags_clear(&d);
  ck_assert_int_eq(psoc_check_known(s.data, s.size, &o, known, 2, &d), PSOC_OK);
  ck_assert_int_eq(psoc_check_known(s.data, s.size, &o, NULL, 5, &d), PSOC_OK); /* NULL list */
  psoc_diags_free(&d);
  /* not a container */
  ck_assert_int_eq(psoc_shader_checksum(p.vs.data, 16, digest), -1);
  for (i = 0; i < 4; i++) p.vs.data[i] = 'x';
  ck_assert_int_eq(psoc_shader_checksum(p.vs.data, p.vs.size, digest), -1);
  pipe_free(&p, &s);
}
END_TEST

/* One blob in two slots of a stream is read once and judged in each: a VS
** container in the PS slot still fails there as the wrong stage. */
START_TEST(shader_shared_blob) {
  pipe p = pipe_default();
  vt_stream s;
  dw_free(&p.ps);
  p.ps = p.vs;
  p.ps.data = p.vs.data;
  pipe_stream(&p, &s);
  VT_ERROR(&s, FOLLOW, NULL, "CREATEPIXELSHADER_INVALIDSHADERTYPE");
  p.ps.data = NULL;
  pipe_free(&p, &s);
}
END_TEST

Suite *suite_validation_shader(void) {
  Suite *s = suite_create("validation_shader");
  TCase *tc = tcase_create("containers");
  tcase_add_test(tc, shader_clean_pipelines);
  tcase_add_test(tc, shader_container_integrity);
  tcase_add_test(tc, shader_unparseable_input_signature);
  tcase_add_test(tc, shader_wrong_stage);
  tcase_add_test(tc, shader_compute);
  tcase_add_test(tc, shader_model_profile);
  tcase_add_test(tc, shader_root_signature);
  tcase_add_test(tc, shader_input_layout_vs_inputs);
  tcase_add_test(tc, shader_ps_outputs);
  tcase_add_test(tc, shader_blend_format_writes);
  tcase_add_test(tc, shader_dual_source_writes);
  tcase_add_test(tc, shader_position_not_present);
  tcase_add_test(tc, shader_linkage);
  tcase_add_test(tc, shader_linkage_hs_ds);
  tcase_add_test(tc, shader_linkage_ms_ps);
  tcase_add_test(tc, dxbc_reader);
  tcase_add_test(tc, dxbc_checksum_blocks);
  tcase_add_test(tc, shader_known_checksums);
  tcase_add_test(tc, shader_shared_blob);
  suite_add_tcase(s, tc);
  return s;
}
