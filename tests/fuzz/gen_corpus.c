/*
** gen_corpus.c: writes the seed corpus of fuzz_parse (valid, duplicate,
** unknown, truncated and padded streams) in the exact d3dx12 layout.
**
**   cc -std=c11 -I src -I /usr/include/wsl/stubs tests/fuzz/gen_corpus.c -o build/gen_corpus
**   build/gen_corpus tests/fuzz/corpus/fuzz_parse
**
** The layout is computed here from the d3d12.h payload types (type at +0,
** payload at the next multiple of its alignment, the next subobject at the
** next multiple of 8), independently of psoc's registry, so the seeds
** also cross-check it. Pointers are fixed fake addresses: the parser never
** follows them, and the output is byte-identical on every run.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h" /* types only; nothing here links against psoc */

#define ALIGN_UP(x, a) (((x) + (a)-1) / (a) * (a))
#define PAYLOAD_OFFSET(T) ALIGN_UP(sizeof(uint32_t), _Alignof(T))
#define LAYOUT(T) { PAYLOAD_OFFSET(T), sizeof(T), ALIGN_UP(PAYLOAD_OFFSET(T) + sizeof(T), 8) }

typedef struct layout {
  size_t offset, size, stride;
} layout;

static const layout layouts[PSOC_SO_TYPE_COUNT] = {
  [PSOC_SO_ROOT_SIGNATURE] = LAYOUT(ID3D12RootSignature *),
  [PSOC_SO_VS] = LAYOUT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_PS] = LAYOUT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_DS] = LAYOUT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_HS] = LAYOUT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_GS] = LAYOUT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_CS] = LAYOUT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_STREAM_OUTPUT] = LAYOUT(D3D12_STREAM_OUTPUT_DESC),
  [PSOC_SO_BLEND] = LAYOUT(D3D12_BLEND_DESC),
  [PSOC_SO_SAMPLE_MASK] = LAYOUT(UINT),
  [PSOC_SO_RASTERIZER] = LAYOUT(D3D12_RASTERIZER_DESC),
  [PSOC_SO_DEPTH_STENCIL] = LAYOUT(D3D12_DEPTH_STENCIL_DESC),
  [PSOC_SO_INPUT_LAYOUT] = LAYOUT(D3D12_INPUT_LAYOUT_DESC),
  [PSOC_SO_IB_STRIP_CUT_VALUE] = LAYOUT(D3D12_INDEX_BUFFER_STRIP_CUT_VALUE),
  [PSOC_SO_PRIMITIVE_TOPOLOGY] = LAYOUT(D3D12_PRIMITIVE_TOPOLOGY_TYPE),
  [PSOC_SO_RENDER_TARGET_FORMATS] = LAYOUT(D3D12_RT_FORMAT_ARRAY),
  [PSOC_SO_DEPTH_STENCIL_FORMAT] = LAYOUT(DXGI_FORMAT),
  [PSOC_SO_SAMPLE_DESC] = LAYOUT(DXGI_SAMPLE_DESC),
  [PSOC_SO_NODE_MASK] = LAYOUT(UINT),
  [PSOC_SO_CACHED_PSO] = LAYOUT(D3D12_CACHED_PIPELINE_STATE),
  [PSOC_SO_FLAGS] = LAYOUT(D3D12_PIPELINE_STATE_FLAGS),
  [PSOC_SO_DEPTH_STENCIL1] = LAYOUT(D3D12_DEPTH_STENCIL_DESC1),
  [PSOC_SO_VIEW_INSTANCING] = LAYOUT(D3D12_VIEW_INSTANCING_DESC),
  [PSOC_SO_AS] = LAYOUT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_MS] = LAYOUT(D3D12_SHADER_BYTECODE),
  [PSOC_SO_DEPTH_STENCIL2] = LAYOUT(D3D12_DEPTH_STENCIL_DESC2),
  [PSOC_SO_RASTERIZER1] = LAYOUT(psoc_rasterizer_desc1),
  [PSOC_SO_RASTERIZER2] = LAYOUT(psoc_rasterizer_desc2),
  [PSOC_SO_SERIALIZED_ROOT_SIGNATURE] = LAYOUT(psoc_serialized_root_signature_desc),
};

static const char *const type_names[PSOC_SO_TYPE_COUNT] = {
  "root_signature", "vs", "ps", "ds", "hs", "gs", "cs", "stream_output", "blend",
  "sample_mask", "rasterizer", "depth_stencil", "input_layout", "ib_strip_cut_value",
  "primitive_topology", "render_target_formats", "depth_stencil_format", "sample_desc",
  "node_mask", "cached_pso", "flags", "depth_stencil1", "view_instancing", NULL, "as", "ms",
  "depth_stencil2", "rasterizer1", "rasterizer2", "serialized_root_signature",
};

/* ---- a growing stream --------------------------------------------- */

typedef struct stream {
  unsigned char data[4096];
  size_t size;
} stream;

static void put(stream *s, const void *bytes, size_t n) {
  if (s->size + n > sizeof s->data) {
    fprintf(stderr, "gen_corpus: stream too large\n");
    exit(1);
  }
  memcpy(s->data + s->size, bytes, n);
  s->size += n;
}

static void zeros(stream *s, size_t n) {
  static const unsigned char z[512];
  while (n) {
    size_t k = n < sizeof z ? n : sizeof z;
    put(s, z, k);
    n -= k;
  }
}

static void put_u32(stream *s, uint32_t v) { put(s, &v, sizeof v); }

/* One subobject: type, padding to the payload, payload, tail padding. */
static void add(stream *s, uint32_t type, const void *payload, size_t size) {
  const layout *l = &layouts[type];
  if (type >= PSOC_SO_TYPE_COUNT || l->stride == 0 || size != l->size) {
    fprintf(stderr, "gen_corpus: bad subobject %u (size %zu)\n", type, size);
    exit(1);
  }
  put_u32(s, type);
  zeros(s, l->offset - 4);
  put(s, payload, size);
  zeros(s, l->stride - l->offset - size);
}

#define ADD(s, type, value) add(s, type, &(value), sizeof(value))

/* An unrecognised type followed by 'extra' zero bytes. */
static void add_unknown(stream *s, uint32_t type, size_t extra) {
  put_u32(s, type);
  zeros(s, extra);
}

/* ---- payloads -------------------------------------------------------- */

#define FAKE_PTR(n) ((void *)(uintptr_t)(0x10000u + 0x100u * (n)))

static D3D12_SHADER_BYTECODE code(unsigned n, size_t size) {
  D3D12_SHADER_BYTECODE b;
  b.pShaderBytecode = FAKE_PTR(n);
  b.BytecodeLength = size;
  return b;
}

static const D3D12_SHADER_BYTECODE null_code = { NULL, 0 };

static D3D12_BLEND_DESC blend_alpha(void) {
  D3D12_BLEND_DESC b;
  unsigned i;
  memset(&b, 0, sizeof b);
  for (i = 0; i < 8; i++) {
    D3D12_RENDER_TARGET_BLEND_DESC *rt = &b.RenderTarget[i];
    rt->BlendEnable = i == 0;
    rt->SrcBlend = D3D12_BLEND_SRC_ALPHA;
    rt->DestBlend = D3D12_BLEND_INV_SRC_ALPHA;
    rt->BlendOp = D3D12_BLEND_OP_ADD;
    rt->SrcBlendAlpha = D3D12_BLEND_ONE;
    rt->DestBlendAlpha = D3D12_BLEND_ZERO;
    rt->BlendOpAlpha = D3D12_BLEND_OP_ADD;
    rt->LogicOp = D3D12_LOGIC_OP_NOOP;
    rt->RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL;
  }
  return b;
}

static D3D12_RASTERIZER_DESC rasterizer(void) {
  D3D12_RASTERIZER_DESC r;
  memset(&r, 0, sizeof r);
  r.FillMode = D3D12_FILL_MODE_SOLID;
  r.CullMode = D3D12_CULL_MODE_FRONT;
  r.DepthBias = -3;
  r.DepthBiasClamp = 0.5f;
  r.SlopeScaledDepthBias = 1.25f;
  r.DepthClipEnable = TRUE;
  r.MultisampleEnable = TRUE;
  return r;
}

static psoc_rasterizer_desc1 rasterizer1(void) {
  psoc_rasterizer_desc1 r;
  memset(&r, 0, sizeof r);
  r.FillMode = D3D12_FILL_MODE_WIREFRAME;
  r.CullMode = D3D12_CULL_MODE_NONE;
  r.DepthBias = 0.5f;
  r.DepthClipEnable = TRUE;
  r.AntialiasedLineEnable = TRUE;
  return r;
}

static psoc_rasterizer_desc2 rasterizer2(void) {
  psoc_rasterizer_desc2 r;
  memset(&r, 0, sizeof r);
  r.FillMode = D3D12_FILL_MODE_SOLID;
  r.CullMode = D3D12_CULL_MODE_BACK;
  r.DepthBias = 2.0f;
  r.DepthClipEnable = TRUE;
  r.LineRasterizationMode = PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW;
  r.ConservativeRaster = D3D12_CONSERVATIVE_RASTERIZATION_MODE_ON;
  return r;
}

static D3D12_DEPTH_STENCIL_DESC depth_stencil(void) {
  D3D12_DEPTH_STENCIL_DESC d;
  memset(&d, 0, sizeof d);
  d.DepthEnable = TRUE;
  d.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ALL;
  d.DepthFunc = D3D12_COMPARISON_FUNC_GREATER_EQUAL;
  d.StencilEnable = TRUE;
  d.StencilReadMask = 0x0F;
  d.StencilWriteMask = 0xF0;
  d.FrontFace.StencilFailOp = D3D12_STENCIL_OP_KEEP;
  d.FrontFace.StencilDepthFailOp = D3D12_STENCIL_OP_INCR;
  d.FrontFace.StencilPassOp = D3D12_STENCIL_OP_REPLACE;
  d.FrontFace.StencilFunc = D3D12_COMPARISON_FUNC_ALWAYS;
  d.BackFace = d.FrontFace;
  d.BackFace.StencilFunc = D3D12_COMPARISON_FUNC_NEVER;
  return d;
}

static D3D12_DEPTH_STENCIL_DESC1 depth_stencil1(void) {
  D3D12_DEPTH_STENCIL_DESC1 d;
  D3D12_DEPTH_STENCIL_DESC d0 = depth_stencil();
  memset(&d, 0, sizeof d);
  memcpy(&d, &d0, sizeof d0);
  d.DepthBoundsTestEnable = TRUE;
  return d;
}

static D3D12_DEPTH_STENCIL_DESC2 depth_stencil2(void) {
  D3D12_DEPTH_STENCIL_DESC2 d;
  memset(&d, 0, sizeof d);
  d.DepthEnable = TRUE;
  d.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ZERO;
  d.DepthFunc = D3D12_COMPARISON_FUNC_LESS;
  d.StencilEnable = TRUE;
  d.FrontFace.StencilFailOp = D3D12_STENCIL_OP_KEEP;
  d.FrontFace.StencilDepthFailOp = D3D12_STENCIL_OP_KEEP;
  d.FrontFace.StencilPassOp = D3D12_STENCIL_OP_INCR_SAT;
  d.FrontFace.StencilFunc = D3D12_COMPARISON_FUNC_EQUAL;
  d.FrontFace.StencilReadMask = 0xFF;
  d.FrontFace.StencilWriteMask = 0x01;
  d.BackFace = d.FrontFace;
  d.BackFace.StencilWriteMask = 0x02;
  return d;
}

static D3D12_RT_FORMAT_ARRAY rt_formats(unsigned n) {
  D3D12_RT_FORMAT_ARRAY a;
  memset(&a, 0, sizeof a);
  a.NumRenderTargets = n;
  if (n > 0) a.RTFormats[0] = DXGI_FORMAT_R8G8B8A8_UNORM;
  if (n > 1) a.RTFormats[1] = DXGI_FORMAT_R11G11B10_FLOAT;
  return a;
}

/* A value of the right payload type for each type alone. */
static void add_sample(stream *s, uint32_t type) {
  switch (type) {
  case PSOC_SO_ROOT_SIGNATURE: {
    void *rs = FAKE_PTR(1);
    ADD(s, type, rs);
    break;
  }
  case PSOC_SO_VS: case PSOC_SO_PS: case PSOC_SO_DS: case PSOC_SO_HS: case PSOC_SO_GS:
  case PSOC_SO_CS: case PSOC_SO_AS: case PSOC_SO_MS: {
    D3D12_SHADER_BYTECODE b = code(type + 2, 64 + type);
    ADD(s, type, b);
    break;
  }
  case PSOC_SO_STREAM_OUTPUT: {
    D3D12_STREAM_OUTPUT_DESC so;
    memset(&so, 0, sizeof so); /* zero the padding: the output must be deterministic */
    so.pSODeclaration = FAKE_PTR(40);
    so.NumEntries = 2;
    so.pBufferStrides = FAKE_PTR(41);
    so.NumStrides = 1;
    ADD(s, type, so);
    break;
  }
  case PSOC_SO_BLEND: {
    D3D12_BLEND_DESC b = blend_alpha();
    ADD(s, type, b);
    break;
  }
  case PSOC_SO_SAMPLE_MASK: {
    UINT m = 0x0000000Fu;
    ADD(s, type, m);
    break;
  }
  case PSOC_SO_RASTERIZER: {
    D3D12_RASTERIZER_DESC r = rasterizer();
    ADD(s, type, r);
    break;
  }
  case PSOC_SO_DEPTH_STENCIL: {
    D3D12_DEPTH_STENCIL_DESC d = depth_stencil();
    ADD(s, type, d);
    break;
  }
  case PSOC_SO_INPUT_LAYOUT: {
    D3D12_INPUT_LAYOUT_DESC il;
    memset(&il, 0, sizeof il);
    il.pInputElementDescs = FAKE_PTR(50);
    il.NumElements = 3;
    ADD(s, type, il);
    break;
  }
  case PSOC_SO_IB_STRIP_CUT_VALUE: {
    D3D12_INDEX_BUFFER_STRIP_CUT_VALUE v = D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_0xFFFF;
    ADD(s, type, v);
    break;
  }
  case PSOC_SO_PRIMITIVE_TOPOLOGY: {
    D3D12_PRIMITIVE_TOPOLOGY_TYPE t = D3D12_PRIMITIVE_TOPOLOGY_TYPE_LINE;
    ADD(s, type, t);
    break;
  }
  case PSOC_SO_RENDER_TARGET_FORMATS: {
    D3D12_RT_FORMAT_ARRAY a = rt_formats(2);
    ADD(s, type, a);
    break;
  }
  case PSOC_SO_DEPTH_STENCIL_FORMAT: {
    DXGI_FORMAT f = DXGI_FORMAT_D32_FLOAT;
    ADD(s, type, f);
    break;
  }
  case PSOC_SO_SAMPLE_DESC: {
    DXGI_SAMPLE_DESC d = { 4, 0 };
    ADD(s, type, d);
    break;
  }
  case PSOC_SO_NODE_MASK: {
    UINT m = 1;
    ADD(s, type, m);
    break;
  }
  case PSOC_SO_CACHED_PSO: {
    D3D12_CACHED_PIPELINE_STATE c = { FAKE_PTR(60), 128 };
    ADD(s, type, c);
    break;
  }
  case PSOC_SO_FLAGS: {
    D3D12_PIPELINE_STATE_FLAGS f = D3D12_PIPELINE_STATE_FLAG_TOOL_DEBUG;
    ADD(s, type, f);
    break;
  }
  case PSOC_SO_DEPTH_STENCIL1: {
    D3D12_DEPTH_STENCIL_DESC1 d = depth_stencil1();
    ADD(s, type, d);
    break;
  }
  case PSOC_SO_VIEW_INSTANCING: {
    D3D12_VIEW_INSTANCING_DESC v;
    memset(&v, 0, sizeof v);
    v.ViewInstanceCount = 2;
    v.pViewInstanceLocations = FAKE_PTR(70);
    ADD(s, type, v);
    break;
  }
  case PSOC_SO_DEPTH_STENCIL2: {
    D3D12_DEPTH_STENCIL_DESC2 d = depth_stencil2();
    ADD(s, type, d);
    break;
  }
  case PSOC_SO_RASTERIZER1: {
    psoc_rasterizer_desc1 r = rasterizer1();
    ADD(s, type, r);
    break;
  }
  case PSOC_SO_RASTERIZER2: {
    psoc_rasterizer_desc2 r = rasterizer2();
    ADD(s, type, r);
    break;
  }
  case PSOC_SO_SERIALIZED_ROOT_SIGNATURE: {
    psoc_serialized_root_signature_desc d = { FAKE_PTR(80), 96 };
    ADD(s, type, d);
    break;
  }
  default:
    fprintf(stderr, "gen_corpus: no sample for type %u\n", type);
    exit(1);
  }
}

static void add_code(stream *s, uint32_t type, int non_null) {
  D3D12_SHADER_BYTECODE b = non_null ? code(type + 2, 64 + type) : null_code;
  ADD(s, type, b);
}

/* ---- whole pipelines ----------------------------------------------- */

static void graphics_full(stream *s) {
  static const uint32_t order[] = {
    PSOC_SO_FLAGS, PSOC_SO_NODE_MASK, PSOC_SO_ROOT_SIGNATURE, PSOC_SO_INPUT_LAYOUT,
    PSOC_SO_IB_STRIP_CUT_VALUE, PSOC_SO_PRIMITIVE_TOPOLOGY, PSOC_SO_VS, PSOC_SO_PS,
    PSOC_SO_BLEND, PSOC_SO_DEPTH_STENCIL, PSOC_SO_DEPTH_STENCIL_FORMAT, PSOC_SO_RASTERIZER,
    PSOC_SO_RENDER_TARGET_FORMATS, PSOC_SO_SAMPLE_DESC, PSOC_SO_SAMPLE_MASK, PSOC_SO_CACHED_PSO,
  };
  size_t i;
  for (i = 0; i < sizeof order / sizeof order[0]; i++) add_sample(s, order[i]);
}

static void graphics_tess(stream *s) {
  static const uint32_t order[] = {
    PSOC_SO_ROOT_SIGNATURE, PSOC_SO_VS, PSOC_SO_HS, PSOC_SO_DS, PSOC_SO_GS, PSOC_SO_PS,
    PSOC_SO_STREAM_OUTPUT, PSOC_SO_RASTERIZER1, PSOC_SO_DEPTH_STENCIL1, PSOC_SO_VIEW_INSTANCING,
    PSOC_SO_RENDER_TARGET_FORMATS, PSOC_SO_DEPTH_STENCIL_FORMAT,
  };
  size_t i;
  D3D12_PRIMITIVE_TOPOLOGY_TYPE patch = D3D12_PRIMITIVE_TOPOLOGY_TYPE_PATCH;
  for (i = 0; i < sizeof order / sizeof order[0]; i++) add_sample(s, order[i]);
  ADD(s, PSOC_SO_PRIMITIVE_TOPOLOGY, patch);
}

static void compute(stream *s) {
  add_sample(s, PSOC_SO_ROOT_SIGNATURE);
  add_sample(s, PSOC_SO_CS);
  add_sample(s, PSOC_SO_NODE_MASK);
}

static void mesh(stream *s) {
  static const uint32_t order[] = {
    PSOC_SO_SERIALIZED_ROOT_SIGNATURE, PSOC_SO_AS, PSOC_SO_MS, PSOC_SO_PS, PSOC_SO_BLEND,
    PSOC_SO_RASTERIZER2, PSOC_SO_DEPTH_STENCIL2, PSOC_SO_RENDER_TARGET_FORMATS,
    PSOC_SO_DEPTH_STENCIL_FORMAT, PSOC_SO_SAMPLE_DESC, PSOC_SO_FLAGS,
  };
  size_t i;
  for (i = 0; i < sizeof order / sizeof order[0]; i++) add_sample(s, order[i]);
}

/* ---- output ---------------------------------------------------------- */

static const char *outdir;
static unsigned written;

static void emit(const char *name, const void *data, size_t size) {
  char path[1024];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", outdir, name);
  f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
    fprintf(stderr, "gen_corpus: cannot write %s\n", path);
    exit(1);
  }
  written++;
}

static void emit_stream(const char *name, const stream *s) { emit(name, s->data, s->size); }

/* 's' cut to 'size' bytes. */
static void emit_cut(const char *name, const stream *s, size_t size) {
  emit(name, s->data, size < s->size ? size : s->size);
}

int main(int argc, char **argv) {
  stream s;
  char name[128];
  uint32_t t;
  size_t i;
  if (argc != 2) {
    fprintf(stderr, "usage: gen_corpus OUTDIR\n");
    return 2;
  }
  outdir = argv[1];

  /* Valid pipelines. */
  memset(&s, 0, sizeof s), graphics_full(&s), emit_stream("valid_graphics_full", &s);
  memset(&s, 0, sizeof s), graphics_tess(&s), emit_stream("valid_graphics_tess_ds1_rast1", &s);
  memset(&s, 0, sizeof s), compute(&s), emit_stream("valid_compute", &s);
  memset(&s, 0, sizeof s), mesh(&s), emit_stream("valid_mesh_ds2_rast2", &s);
  memset(&s, 0, sizeof s), add_code(&s, PSOC_SO_VS, 1), emit_stream("valid_vs_only", &s);
  memset(&s, 0, sizeof s);
  add_code(&s, PSOC_SO_VS, 0), add_code(&s, PSOC_SO_CS, 1);
  emit_stream("valid_compute_null_vs", &s);
  memset(&s, 0, sizeof s);
  add_code(&s, PSOC_SO_CS, 0), add_code(&s, PSOC_SO_MS, 1);
  add_sample(&s, PSOC_SO_INPUT_LAYOUT), add_code(&s, PSOC_SO_VS, 0);
  emit_stream("valid_mesh_irrelevant_ia_null_vs_cs", &s);

  /* Every type alone. */
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    if (!type_names[t]) continue;
    memset(&s, 0, sizeof s);
    add_sample(&s, t);
    snprintf(name, sizeof name, "alone_%02u_%s", (unsigned)t, type_names[t]);
    emit_stream(name, &s);
  }

  /* Kind deduction failures. */
  memset(&s, 0, sizeof s), add_code(&s, PSOC_SO_VS, 1), add_code(&s, PSOC_SO_CS, 1);
  emit_stream("kind_vs_cs", &s);
  memset(&s, 0, sizeof s), add_code(&s, PSOC_SO_CS, 1), add_code(&s, PSOC_SO_MS, 1);
  emit_stream("kind_cs_ms", &s);
  memset(&s, 0, sizeof s), add_code(&s, PSOC_SO_VS, 0), add_sample(&s, PSOC_SO_PS);
  emit_stream("kind_none_null_vs", &s);

  /* Duplicates, including the derived versions in both orders. */
  {
    static const struct { uint32_t a, b; const char *name; } dups[] = {
      { PSOC_SO_DEPTH_STENCIL, PSOC_SO_DEPTH_STENCIL1, "dup_ds_ds1" },
      { PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL, "dup_ds1_ds" },
      { PSOC_SO_DEPTH_STENCIL2, PSOC_SO_DEPTH_STENCIL1, "dup_ds2_ds1" },
      { PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL1, "dup_ds1_ds1" },
      { PSOC_SO_RASTERIZER, PSOC_SO_RASTERIZER2, "dup_rast_rast2" },
      { PSOC_SO_RASTERIZER2, PSOC_SO_RASTERIZER1, "dup_rast2_rast1" },
      { PSOC_SO_RASTERIZER1, PSOC_SO_RASTERIZER, "dup_rast1_rast" },
      { PSOC_SO_BLEND, PSOC_SO_BLEND, "dup_blend_blend" },
    };
    for (i = 0; i < sizeof dups / sizeof dups[0]; i++) {
      memset(&s, 0, sizeof s);
      add_code(&s, PSOC_SO_VS, 1);
      add_sample(&s, dups[i].a);
      add_sample(&s, dups[i].b);
      emit_stream(dups[i].name, &s);
    }
    memset(&s, 0, sizeof s);
    add_code(&s, PSOC_SO_VS, 1), add_code(&s, PSOC_SO_VS, 1);
    emit_stream("dup_vs_vs", &s);
    /* Several problems in one stream: two duplicates, then an unknown type. */
    memset(&s, 0, sizeof s);
    add_code(&s, PSOC_SO_VS, 1);
    add_sample(&s, PSOC_SO_DEPTH_STENCIL1), add_sample(&s, PSOC_SO_DEPTH_STENCIL);
    add_sample(&s, PSOC_SO_RASTERIZER2), add_sample(&s, PSOC_SO_RASTERIZER);
    add_unknown(&s, 23, 4);
    emit_stream("dup_ds_rast_then_unknown_23", &s);
  }

  /* Unknown types. */
  {
    static const uint32_t unknown[] = { 23, 30, 31, 0x7FFFFFFFu, 0xFFFFFFFFu };
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
      memset(&s, 0, sizeof s);
      add_code(&s, PSOC_SO_VS, 1);
      add_unknown(&s, unknown[i], 12);
      add_sample(&s, PSOC_SO_PS);
      snprintf(name, sizeof name, "unknown_%08x_after_vs", unknown[i]);
      emit_stream(name, &s);
    }
    memset(&s, 0, sizeof s), add_unknown(&s, 0xFFFFFFFFu, 4), emit_stream("unknown_ffffffff_first", &s);
  }

  /* Truncated streams and trailing bytes. */
  memset(&s, 0, sizeof s), graphics_full(&s);
  emit_cut("truncated_graphics_full_mid", &s, s.size / 2 + 3);
  emit_cut("truncated_graphics_full_last_4", &s, s.size - 4);
  memset(&s, 0, sizeof s), add_code(&s, PSOC_SO_VS, 1);
  emit_cut("truncated_vs_12", &s, 12);
  emit_cut("truncated_vs_type_only", &s, 4);
  emit_cut("truncated_vs_3", &s, 3);
  memset(&s, 0, sizeof s), add_code(&s, PSOC_SO_VS, 1), add_sample(&s, PSOC_SO_SAMPLE_DESC);
  emit_cut("truncated_sample_desc_no_tail_padding", &s, s.size - 4);
  memset(&s, 0, sizeof s), add_code(&s, PSOC_SO_VS, 1), add_sample(&s, PSOC_SO_DEPTH_STENCIL1);
  emit_cut("truncated_ds1_no_tail_padding", &s, s.size - 4);
  memset(&s, 0, sizeof s), add_code(&s, PSOC_SO_VS, 1), add_sample(&s, PSOC_SO_BLEND);
  emit_cut("truncated_blend_half", &s, 24 + 160);
  for (i = 1; i <= 4; i++) {
    static const unsigned char junk[4] = { 0x01, 0x00, 0x00, 0x00 };
    memset(&s, 0, sizeof s), add_code(&s, PSOC_SO_VS, 1);
    put(&s, junk, i);
    snprintf(name, sizeof name, "trailing_%zu_bytes", i);
    emit_stream(name, &s);
  }
  memset(&s, 0, sizeof s), mesh(&s), zeros(&s, 4), emit_stream("trailing_4_zero_bytes_mesh", &s);

  /* Reproducers of bugs the fuzzer found. A float DepthBias outside the
  ** range of INT was converted to INT before the range check
  ** (undefined behaviour) in psoc_resolved_to_graphics_desc. */
  {
    psoc_rasterizer_desc2 r2 = rasterizer2();
    psoc_rasterizer_desc1 r1 = rasterizer1();
    r2.DepthBias = -1.59e38f;
    memset(&s, 0, sizeof s), ADD(&s, PSOC_SO_RASTERIZER2, r2);
    emit_stream("repro_rast2_depth_bias_out_of_int_range", &s);
    r1.DepthBias = 3.0e9f;
    memset(&s, 0, sizeof s), add_code(&s, PSOC_SO_VS, 1), ADD(&s, PSOC_SO_RASTERIZER1, r1);
    emit_stream("repro_vs_rast1_depth_bias_3e9", &s);
  }

  /* Empty. */
  emit("empty", "", 0);

  printf("gen_corpus: wrote %u files to %s\n", written, outdir);
  return 0;
}
