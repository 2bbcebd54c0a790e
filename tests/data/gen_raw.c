/*
** gen_raw.c: writes the raw pipeline-state-stream fixtures of tests/data.
**
**   cc -std=c11 -I src -I /usr/include/wsl/stubs tests/data/gen_raw.c -o gen_raw
**   ./gen_raw tests/data
**
** Streams are packed by hand, as CD3DX12_PIPELINE_STATE_STREAM_SUBOBJECT
** lays them out on x86-64 (type at +0, payload at +4 or, when the payload
** holds a pointer or SIZE_T, at +8; the next subobject at the next
** multiple of 8), independently of psoc's registry so that the fixtures
** test it. Padding is zero and pointers are fixed fake non-zero values, so
** the output is byte-identical on every run; tests/cli/test_cli.sh
** regenerates the files and compares them with the committed copies.
*/
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h" /* d3d12.h plus the payload structs newer than it */

#define STREAM_MAX 4096

typedef struct stream {
  unsigned char bytes[STREAM_MAX];
  size_t size;
} stream;

/* A recognisable fake address; n tells the pointers apart. */
static const void *fake(unsigned n) {
  return (const void *)(uintptr_t)(0x00007ff000000000ull + 0x1000ull * n);
}

static size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

static void add_raw(stream *s, uint32_t type, const void *payload, size_t size, size_t align) {
  size_t at = s->size, payload_at = at + align_up(sizeof type, align);
  size_t end = align_up(payload_at + size, sizeof(void *));
  if (end > STREAM_MAX) {
    fprintf(stderr, "gen_raw: stream too large\n");
    exit(1);
  }
  memcpy(s->bytes + at, &type, sizeof type);
  memcpy(s->bytes + payload_at, payload, size);
  s->size = end;
}

#define ADD(s, type, T, value) add_raw((s), (type), &(value), sizeof(T), alignof(T))

/* ---- payloads (zeroed first, so padding is zero) -------------------- */

static void add_u32(stream *s, uint32_t type, uint32_t value) { ADD(s, type, uint32_t, value); }

static void add_pointer(stream *s, uint32_t type, const void *p) { ADD(s, type, const void *, p); }

static void add_shader(stream *s, uint32_t type, unsigned id, SIZE_T length) {
  D3D12_SHADER_BYTECODE b;
  memset(&b, 0, sizeof b);
  b.pShaderBytecode = id ? fake(id) : NULL;
  b.BytecodeLength = id ? length : 0;
  ADD(s, type, D3D12_SHADER_BYTECODE, b);
}

static void add_input_layout(stream *s, unsigned id, UINT count) {
  D3D12_INPUT_LAYOUT_DESC l;
  memset(&l, 0, sizeof l);
  l.pInputElementDescs = id ? fake(id) : NULL;
  l.NumElements = count;
  ADD(s, PSOC_SO_INPUT_LAYOUT, D3D12_INPUT_LAYOUT_DESC, l);
}

static void add_blend(stream *s) { /* CD3DX12_BLEND_DESC(D3D12_DEFAULT) */
  D3D12_BLEND_DESC b;
  int i;
  memset(&b, 0, sizeof b);
  for (i = 0; i < 8; i++) {
    D3D12_RENDER_TARGET_BLEND_DESC *rt = &b.RenderTarget[i];
    rt->SrcBlend = rt->SrcBlendAlpha = D3D12_BLEND_ONE;
    rt->DestBlend = rt->DestBlendAlpha = D3D12_BLEND_ZERO;
    rt->BlendOp = rt->BlendOpAlpha = D3D12_BLEND_OP_ADD;
    rt->LogicOp = D3D12_LOGIC_OP_NOOP;
    rt->RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL;
  }
  ADD(s, PSOC_SO_BLEND, D3D12_BLEND_DESC, b);
}

static void add_rasterizer(stream *s, D3D12_CULL_MODE cull) { /* CD3DX12 default but cull */
  D3D12_RASTERIZER_DESC r;
  memset(&r, 0, sizeof r);
  r.FillMode = D3D12_FILL_MODE_SOLID;
  r.CullMode = cull;
  r.DepthClipEnable = TRUE;
  ADD(s, PSOC_SO_RASTERIZER, D3D12_RASTERIZER_DESC, r);
}

static void add_rasterizer2(stream *s) {
  psoc_rasterizer_desc2 r;
  memset(&r, 0, sizeof r);
  r.FillMode = D3D12_FILL_MODE_SOLID;
  r.CullMode = D3D12_CULL_MODE_NONE;
  r.DepthClipEnable = TRUE;
  r.LineRasterizationMode = PSOC_LINE_RASTERIZATION_MODE_ALIASED;
  ADD(s, PSOC_SO_RASTERIZER2, psoc_rasterizer_desc2, r);
}

static D3D12_DEPTH_STENCILOP_DESC stencil_op(void) {
  D3D12_DEPTH_STENCILOP_DESC op;
  op.StencilFailOp = op.StencilDepthFailOp = op.StencilPassOp = D3D12_STENCIL_OP_KEEP;
  op.StencilFunc = D3D12_COMPARISON_FUNC_ALWAYS;
  return op;
}

static void add_depth_stencil(stream *s) { /* CD3DX12_DEPTH_STENCIL_DESC(D3D12_DEFAULT) */
  D3D12_DEPTH_STENCIL_DESC d;
  memset(&d, 0, sizeof d);
  d.DepthEnable = TRUE;
  d.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ALL;
  d.DepthFunc = D3D12_COMPARISON_FUNC_LESS;
  d.StencilReadMask = D3D12_DEFAULT_STENCIL_READ_MASK;
  d.StencilWriteMask = D3D12_DEFAULT_STENCIL_WRITE_MASK;
  d.FrontFace = d.BackFace = stencil_op();
  ADD(s, PSOC_SO_DEPTH_STENCIL, D3D12_DEPTH_STENCIL_DESC, d);
}

static void add_depth_stencil1(stream *s, BOOL depth) {
  D3D12_DEPTH_STENCIL_DESC1 d;
  memset(&d, 0, sizeof d);
  d.DepthEnable = depth;
  d.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ALL;
  d.DepthFunc = D3D12_COMPARISON_FUNC_LESS;
  d.StencilReadMask = D3D12_DEFAULT_STENCIL_READ_MASK;
  d.StencilWriteMask = D3D12_DEFAULT_STENCIL_WRITE_MASK;
  d.FrontFace = d.BackFace = stencil_op();
  ADD(s, PSOC_SO_DEPTH_STENCIL1, D3D12_DEPTH_STENCIL_DESC1, d);
}

static void add_depth_stencil2(stream *s) {
  D3D12_DEPTH_STENCIL_DESC2 d;
  memset(&d, 0, sizeof d);
  d.DepthEnable = TRUE;
  d.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ALL;
  d.DepthFunc = D3D12_COMPARISON_FUNC_GREATER_EQUAL;
  d.FrontFace.StencilFailOp = d.FrontFace.StencilDepthFailOp = D3D12_STENCIL_OP_KEEP;
  d.FrontFace.StencilPassOp = D3D12_STENCIL_OP_KEEP;
  d.FrontFace.StencilFunc = D3D12_COMPARISON_FUNC_ALWAYS;
  d.FrontFace.StencilReadMask = D3D12_DEFAULT_STENCIL_READ_MASK;
  d.FrontFace.StencilWriteMask = D3D12_DEFAULT_STENCIL_WRITE_MASK;
  d.BackFace = d.FrontFace;
  ADD(s, PSOC_SO_DEPTH_STENCIL2, D3D12_DEPTH_STENCIL_DESC2, d);
}

static void add_rt_formats(stream *s, UINT count) {
  struct D3D12_RT_FORMAT_ARRAY rt;
  memset(&rt, 0, sizeof rt);
  if (count > 0) rt.RTFormats[0] = DXGI_FORMAT_R11G11B10_FLOAT;
  if (count > 1) rt.RTFormats[1] = DXGI_FORMAT_R8G8B8A8_UNORM;
  rt.NumRenderTargets = count;
  ADD(s, PSOC_SO_RENDER_TARGET_FORMATS, struct D3D12_RT_FORMAT_ARRAY, rt);
}

static void add_sample_desc(stream *s) {
  DXGI_SAMPLE_DESC d = { 1, 0 };
  ADD(s, PSOC_SO_SAMPLE_DESC, DXGI_SAMPLE_DESC, d);
}

static void add_stream_output(stream *s) { /* D3D12_STREAM_OUTPUT_DESC{} */
  D3D12_STREAM_OUTPUT_DESC so;
  memset(&so, 0, sizeof so);
  ADD(s, PSOC_SO_STREAM_OUTPUT, D3D12_STREAM_OUTPUT_DESC, so);
}

static void add_cached_pso(stream *s) { /* D3D12_CACHED_PIPELINE_STATE{} */
  D3D12_CACHED_PIPELINE_STATE c;
  memset(&c, 0, sizeof c);
  ADD(s, PSOC_SO_CACHED_PSO, D3D12_CACHED_PIPELINE_STATE, c);
}

static void add_view_instancing(stream *s) { /* CD3DX12_VIEW_INSTANCING_DESC(D3D12_DEFAULT) */
  D3D12_VIEW_INSTANCING_DESC v;
  memset(&v, 0, sizeof v);
  ADD(s, PSOC_SO_VIEW_INSTANCING, D3D12_VIEW_INSTANCING_DESC, v);
}

/* A type value with an 8-byte zero payload, for unknown types. */
static void add_unknown(stream *s, uint32_t type) {
  uint64_t zero = 0;
  add_raw(s, type, &zero, sizeof zero, 4);
}

/* ---- the fixtures ---------------------------------------------------- */

static void valid_graphics(stream *s) {
  add_pointer(s, PSOC_SO_ROOT_SIGNATURE, fake(1));
  add_input_layout(s, 2, 3);
  add_shader(s, PSOC_SO_VS, 3, 1200);
  add_shader(s, PSOC_SO_PS, 4, 2400);
  add_rasterizer(s, D3D12_CULL_MODE_BACK);
  add_blend(s);
  add_depth_stencil(s);
  add_rt_formats(s, 2);
  add_u32(s, PSOC_SO_DEPTH_STENCIL_FORMAT, DXGI_FORMAT_D32_FLOAT);
  add_u32(s, PSOC_SO_PRIMITIVE_TOPOLOGY, D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE);
  add_sample_desc(s);
}

static void valid_compute(stream *s) {
  add_pointer(s, PSOC_SO_ROOT_SIGNATURE, fake(1));
  add_shader(s, PSOC_SO_CS, 5, 800);
  add_u32(s, PSOC_SO_NODE_MASK, 0);
  add_u32(s, PSOC_SO_FLAGS, D3D12_PIPELINE_STATE_FLAG_NONE);
}

static void valid_mesh(stream *s) {
  add_pointer(s, PSOC_SO_ROOT_SIGNATURE, fake(1));
  add_shader(s, PSOC_SO_AS, 6, 640);
  add_shader(s, PSOC_SO_MS, 7, 1600);
  add_shader(s, PSOC_SO_PS, 4, 2400);
  add_rasterizer2(s);
  add_depth_stencil2(s);
  add_rt_formats(s, 1);
  add_u32(s, PSOC_SO_DEPTH_STENCIL_FORMAT, DXGI_FORMAT_D24_UNORM_S8_UINT);
}

/* VS, PS and a CS with null bytecode: valid, the CS is ignored (a note). */
static void valid_graphics_null_cs(stream *s) {
  add_shader(s, PSOC_SO_VS, 3, 1200);
  add_shader(s, PSOC_SO_PS, 4, 2400);
  add_shader(s, PSOC_SO_CS, 0, 0);
  add_rt_formats(s, 1);
}

/* CD3DX12_PIPELINE_STATE_STREAM2(const D3D12_GRAPHICS_PIPELINE_STATE_DESC&)
** for a desc with VS, PS, an input layout, default states, one render
** target and a D32 depth buffer: its 24 members in declaration order. */
static void valid_d3dx12_stream2(stream *s) {
  add_u32(s, PSOC_SO_FLAGS, D3D12_PIPELINE_STATE_FLAG_NONE);
  add_u32(s, PSOC_SO_NODE_MASK, 0);
  add_pointer(s, PSOC_SO_ROOT_SIGNATURE, fake(1));
  add_input_layout(s, 2, 3);
  add_u32(s, PSOC_SO_IB_STRIP_CUT_VALUE, D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_DISABLED);
  add_u32(s, PSOC_SO_PRIMITIVE_TOPOLOGY, D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE);
  add_shader(s, PSOC_SO_VS, 3, 1200);
  add_shader(s, PSOC_SO_GS, 0, 0);
  add_stream_output(s);
  add_shader(s, PSOC_SO_HS, 0, 0);
  add_shader(s, PSOC_SO_DS, 0, 0);
  add_shader(s, PSOC_SO_PS, 4, 2400);
  add_shader(s, PSOC_SO_AS, 0, 0);
  add_shader(s, PSOC_SO_MS, 0, 0);
  add_shader(s, PSOC_SO_CS, 0, 0);
  add_blend(s);
  add_depth_stencil1(s, TRUE);
  add_u32(s, PSOC_SO_DEPTH_STENCIL_FORMAT, DXGI_FORMAT_D32_FLOAT);
  add_rasterizer(s, D3D12_CULL_MODE_BACK);
  add_rt_formats(s, 1);
  add_sample_desc(s);
  add_u32(s, PSOC_SO_SAMPLE_MASK, 0xFFFFFFFFu);
  add_cached_pso(s);
  add_view_instancing(s);
}

static void bad_empty(stream *s) { (void)s; }

/* valid_graphics cut in the middle of its BLEND subobject. */
static void bad_truncated(stream *s) {
  add_pointer(s, PSOC_SO_ROOT_SIGNATURE, fake(1));
  add_input_layout(s, 2, 3);
  add_shader(s, PSOC_SO_VS, 3, 1200);
  add_shader(s, PSOC_SO_PS, 4, 2400);
  {
    size_t blend_at = s->size;
    add_blend(s);
    add_depth_stencil(s);
    s->size = blend_at + 100;
  }
}

/* valid_compute followed by 3 bytes, too few to hold a subobject type. */
static void bad_trailing_bytes(stream *s) {
  valid_compute(s);
  memset(s->bytes + s->size, 0xAB, 3);
  s->size += 3;
}

static void bad_unknown_type_23(stream *s) {
  add_shader(s, PSOC_SO_VS, 3, 1200);
  add_unknown(s, 23);
  add_shader(s, PSOC_SO_PS, 4, 2400);
}

static void bad_unknown_type_99(stream *s) {
  add_shader(s, PSOC_SO_VS, 3, 1200);
  add_unknown(s, 99);
  add_shader(s, PSOC_SO_PS, 4, 2400);
}

static void bad_duplicate_ds_ds1(stream *s) {
  add_shader(s, PSOC_SO_VS, 3, 1200);
  add_depth_stencil(s);
  add_depth_stencil1(s, TRUE);
}

/* The order d3dx12's D3DX12ParsePipelineStream does not catch. */
static void bad_duplicate_ds1_ds(stream *s) {
  add_shader(s, PSOC_SO_VS, 3, 1200);
  add_depth_stencil1(s, TRUE);
  add_depth_stencil(s);
}

static void bad_duplicate_rasterizer2_rasterizer(stream *s) {
  add_shader(s, PSOC_SO_VS, 3, 1200);
  add_rasterizer2(s);
  add_rasterizer(s, D3D12_CULL_MODE_BACK);
}

static void bad_duplicate_vs_vs(stream *s) {
  add_shader(s, PSOC_SO_VS, 3, 1200);
  add_shader(s, PSOC_SO_PS, 4, 2400);
  add_shader(s, PSOC_SO_VS, 8, 1300);
}

static void bad_no_shader(stream *s) { add_shader(s, PSOC_SO_VS, 0, 0); }

static void bad_ambiguous_vs_cs(stream *s) {
  add_shader(s, PSOC_SO_VS, 3, 1200);
  add_shader(s, PSOC_SO_CS, 5, 800);
}

typedef struct fixture {
  const char *name;
  void (*build)(stream *s);
} fixture;

static const fixture fixtures[] = {
  { "valid_graphics", valid_graphics },
  { "valid_compute", valid_compute },
  { "valid_mesh", valid_mesh },
  { "valid_graphics_null_cs", valid_graphics_null_cs },
  { "valid_d3dx12_stream2", valid_d3dx12_stream2 },
  { "bad_empty", bad_empty },
  { "bad_truncated", bad_truncated },
  { "bad_trailing_bytes", bad_trailing_bytes },
  { "bad_unknown_type_23", bad_unknown_type_23 },
  { "bad_unknown_type_99", bad_unknown_type_99 },
  { "bad_duplicate_ds_ds1", bad_duplicate_ds_ds1 },
  { "bad_duplicate_ds1_ds", bad_duplicate_ds1_ds },
  { "bad_duplicate_rasterizer2_rasterizer", bad_duplicate_rasterizer2_rasterizer },
  { "bad_duplicate_vs_vs", bad_duplicate_vs_vs },
  { "bad_no_shader", bad_no_shader },
  { "bad_ambiguous_vs_cs", bad_ambiguous_vs_cs },
};

static int write_fixture(const char *dir, const fixture *f) {
  stream s;
  char path[1024];
  FILE *out;
  int ok;
  memset(&s, 0, sizeof s);
  f->build(&s);
  snprintf(path, sizeof path, "%s/%s.bin", dir, f->name);
  out = fopen(path, "wb");
  if (!out) {
    perror(path);
    return 1;
  }
  ok = fwrite(s.bytes, 1, s.size, out) == s.size;
  if (fclose(out) != 0) ok = 0;
  if (!ok) perror(path);
  return !ok;
}

int main(int argc, char **argv) {
  size_t i;
  int failed = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: gen_raw OUTDIR\n");
    return 2;
  }
  if (sizeof(void *) != 8) {
    fprintf(stderr, "gen_raw: the fixtures use the x86-64 layout; build on a 64-bit host\n");
    return 2;
  }
  for (i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) failed |= write_fixture(argv[1], &fixtures[i]);
  return failed;
}
