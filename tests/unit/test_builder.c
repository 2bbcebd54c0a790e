/*
** test_builder.c: the builder and self-contained streams.
*/
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h"
#include "suites.h"

/* ---- a counting allocator that can fail -------------------------- */

#define TA_HDR 16

typedef struct test_alloc {
  size_t outstanding; /* bytes currently allocated */
  size_t blocks;      /* blocks currently allocated */
  size_t calls;       /* allocation requests so far */
  size_t fail_at;     /* fail this request (1-based); 0: never */
  int fail_after;     /* also fail every later request */
  size_t bad_osize;   /* frees whose osize was not the block's size */
  size_t max_size;    /* refuse bigger requests (0: 1 GiB) */
  int poison;         /* fill new blocks with 0xAA */
  unsigned char *last;
  size_t last_size;
} test_alloc;

static void *ta_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
  test_alloc *t = ud;
  unsigned char *raw = ptr ? (unsigned char *)ptr - TA_HDR : NULL;
  size_t limit = t->max_size ? t->max_size : ((size_t)1 << 30);
  if (raw) {
    size_t real;
    memcpy(&real, raw, sizeof real);
    if (real != osize) t->bad_osize++;
  }
  if (nsize == 0) {
    if (raw) {
      t->outstanding -= osize;
      t->blocks--;
      free(raw);
    }
    return NULL;
  }
  t->calls++;
  if ((t->fail_at && (t->calls == t->fail_at || (t->fail_after && t->calls > t->fail_at))) ||
      nsize > limit)
    return NULL;
  {
    unsigned char *n = realloc(raw, nsize + TA_HDR);
    if (!n) return NULL;
    if (raw) t->outstanding -= osize;
    else t->blocks++;
    memcpy(n, &nsize, sizeof nsize);
    if (t->poison && nsize > (raw ? osize : 0))
      memset(n + TA_HDR + (raw ? osize : 0), 0xAA, nsize - (raw ? osize : 0));
    t->outstanding += nsize;
    t->last = n + TA_HDR;
    t->last_size = nsize;
    return n + TA_HDR;
  }
}

static psoc_allocator ta_make(test_alloc *t) {
  psoc_allocator a;
  memset(t, 0, sizeof *t);
  a.fn = ta_fn;
  a.ud = t;
  return a;
}

/* ---- sample payloads, one per type, none of them the default -------- */

static const unsigned char code_a[] = { 0x44, 0x58, 0x42, 0x43, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
static const unsigned char code_b[] = { 0x44, 0x58, 0x42, 0x43, 0xff, 0xfe };
static const unsigned char cached_blob[] = { 'c', 'a', 'c', 'h', 'e', 0, 1, 2, 3 };
static const unsigned char rs_blob[] = { 'R', 'T', 'S', '0', 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0xaa, 0xbb, 0xcc };
static const D3D12_INPUT_ELEMENT_DESC sample_elements[3] = {
  { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
  { "NORMAL", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
  { "TEXCOORD", 3, DXGI_FORMAT_R32G32_FLOAT, 1, 0, D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA, 2 },
};
static const D3D12_SO_DECLARATION_ENTRY sample_so[2] = {
  { 0, "SV_POSITION", 0, 0, 4, 0 },
  { 1, "COLOR", 2, 1, 3, 1 },
};
static const UINT sample_strides[2] = { 16, 28 };
static const D3D12_VIEW_INSTANCE_LOCATION sample_locs[3] = { { 0, 1 }, { 2, 3 }, { 4, 5 } };

typedef union payload {
  void *rs;
  D3D12_SHADER_BYTECODE bc;
  D3D12_STREAM_OUTPUT_DESC so;
  D3D12_BLEND_DESC blend;
  UINT u;
  D3D12_RASTERIZER_DESC rast;
  psoc_rasterizer_desc1 rast1;
  psoc_rasterizer_desc2 rast2;
  D3D12_DEPTH_STENCIL_DESC ds;
  D3D12_DEPTH_STENCIL_DESC1 ds1;
  D3D12_DEPTH_STENCIL_DESC2 ds2;
  D3D12_INPUT_LAYOUT_DESC il;
  D3D12_INDEX_BUFFER_STRIP_CUT_VALUE cut;
  D3D12_PRIMITIVE_TOPOLOGY_TYPE topo;
  D3D12_RT_FORMAT_ARRAY rtv;
  DXGI_FORMAT fmt;
  DXGI_SAMPLE_DESC sample;
  D3D12_CACHED_PIPELINE_STATE cached;
  D3D12_PIPELINE_STATE_FLAGS flags;
  D3D12_VIEW_INSTANCING_DESC vi;
  psoc_serialized_root_signature_desc srs;
  unsigned char bytes[512];
} payload;

/* Fill 'p' with a non-default payload of 'type'; returns its size. */
static size_t sample_payload(uint32_t type, payload *p) {
  int i;
  memset(p, 0, sizeof *p);
  switch (type) {
  case PSOC_SO_ROOT_SIGNATURE: p->rs = (void *)(uintptr_t)0x12345670u; return sizeof(void *);
  case PSOC_SO_VS: case PSOC_SO_PS: case PSOC_SO_DS: case PSOC_SO_HS: case PSOC_SO_GS:
  case PSOC_SO_CS: case PSOC_SO_AS: case PSOC_SO_MS:
    p->bc.pShaderBytecode = type % 2 ? code_a : code_b;
    p->bc.BytecodeLength = type % 2 ? sizeof code_a : sizeof code_b;
    return sizeof p->bc;
  case PSOC_SO_STREAM_OUTPUT:
    p->so.pSODeclaration = sample_so;
    p->so.NumEntries = 2;
    p->so.pBufferStrides = sample_strides;
    p->so.NumStrides = 2;
    p->so.RasterizedStream = 1;
    return sizeof p->so;
  case PSOC_SO_BLEND:
    p->blend.AlphaToCoverageEnable = TRUE;
    p->blend.IndependentBlendEnable = TRUE;
    for (i = 0; i < 8; i++) {
      D3D12_RENDER_TARGET_BLEND_DESC *rt = &p->blend.RenderTarget[i];
      rt->BlendEnable = i & 1;
      rt->SrcBlend = D3D12_BLEND_SRC_ALPHA;
      rt->DestBlend = D3D12_BLEND_INV_SRC_ALPHA;
      rt->BlendOp = D3D12_BLEND_OP_ADD;
      rt->SrcBlendAlpha = D3D12_BLEND_ONE;
      rt->DestBlendAlpha = D3D12_BLEND_ZERO;
      rt->BlendOpAlpha = D3D12_BLEND_OP_MAX;
      rt->LogicOp = D3D12_LOGIC_OP_NOOP;
      rt->RenderTargetWriteMask = (UINT8)(i + 1);
    }
    return sizeof p->blend;
  case PSOC_SO_SAMPLE_MASK: p->u = 0x0000f00fu; return sizeof(UINT);
  case PSOC_SO_NODE_MASK: p->u = 0x2u; return sizeof(UINT);
  case PSOC_SO_RASTERIZER:
    p->rast.FillMode = D3D12_FILL_MODE_WIREFRAME;
    p->rast.CullMode = D3D12_CULL_MODE_FRONT;
    p->rast.FrontCounterClockwise = TRUE;
    p->rast.DepthBias = -7;
    p->rast.DepthBiasClamp = 0.25f;
    p->rast.SlopeScaledDepthBias = 1.5f;
    p->rast.DepthClipEnable = FALSE;
    p->rast.MultisampleEnable = TRUE;
    p->rast.ForcedSampleCount = 4;
    p->rast.ConservativeRaster = D3D12_CONSERVATIVE_RASTERIZATION_MODE_ON;
    return sizeof p->rast;
  case PSOC_SO_RASTERIZER1:
    p->rast1.FillMode = D3D12_FILL_MODE_WIREFRAME;
    p->rast1.CullMode = D3D12_CULL_MODE_NONE;
    p->rast1.DepthBias = 2.5f;
    p->rast1.DepthBiasClamp = 0.5f;
    p->rast1.DepthClipEnable = TRUE;
    p->rast1.AntialiasedLineEnable = TRUE;
    return sizeof p->rast1;
  case PSOC_SO_RASTERIZER2:
    p->rast2.FillMode = D3D12_FILL_MODE_SOLID;
    p->rast2.CullMode = D3D12_CULL_MODE_NONE;
    p->rast2.DepthBias = -1.25f;
    p->rast2.LineRasterizationMode = PSOC_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW;
    p->rast2.ForcedSampleCount = 8;
    return sizeof p->rast2;
  case PSOC_SO_DEPTH_STENCIL:
    p->ds.DepthEnable = TRUE;
    p->ds.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ZERO;
    p->ds.DepthFunc = D3D12_COMPARISON_FUNC_GREATER_EQUAL;
    p->ds.StencilEnable = TRUE;
    p->ds.StencilReadMask = 0x0f;
    p->ds.StencilWriteMask = 0xf0;
    p->ds.FrontFace.StencilFailOp = D3D12_STENCIL_OP_INCR;
    p->ds.FrontFace.StencilDepthFailOp = D3D12_STENCIL_OP_DECR;
    p->ds.FrontFace.StencilPassOp = D3D12_STENCIL_OP_REPLACE;
    p->ds.FrontFace.StencilFunc = D3D12_COMPARISON_FUNC_EQUAL;
    p->ds.BackFace.StencilFunc = D3D12_COMPARISON_FUNC_NEVER;
    return sizeof p->ds;
  case PSOC_SO_DEPTH_STENCIL1:
    p->ds1.DepthEnable = TRUE;
    p->ds1.DepthFunc = D3D12_COMPARISON_FUNC_LESS_EQUAL;
    p->ds1.StencilReadMask = 0x3;
    p->ds1.BackFace.StencilPassOp = D3D12_STENCIL_OP_INVERT;
    p->ds1.DepthBoundsTestEnable = TRUE;
    return sizeof p->ds1;
  case PSOC_SO_DEPTH_STENCIL2:
    p->ds2.DepthEnable = FALSE;
    p->ds2.DepthFunc = D3D12_COMPARISON_FUNC_ALWAYS;
    p->ds2.StencilEnable = TRUE;
    p->ds2.FrontFace.StencilReadMask = 0x11;
    p->ds2.BackFace.StencilWriteMask = 0x22;
    p->ds2.DepthBoundsTestEnable = TRUE;
    return sizeof p->ds2;
  case PSOC_SO_INPUT_LAYOUT:
    p->il.pInputElementDescs = sample_elements;
    p->il.NumElements = 3;
    return sizeof p->il;
  case PSOC_SO_IB_STRIP_CUT_VALUE:
    p->cut = D3D12_INDEX_BUFFER_STRIP_CUT_VALUE_0xFFFFFFFF;
    return sizeof p->cut;
  case PSOC_SO_PRIMITIVE_TOPOLOGY: p->topo = D3D12_PRIMITIVE_TOPOLOGY_TYPE_LINE; return sizeof p->topo;
  case PSOC_SO_RENDER_TARGET_FORMATS:
    p->rtv.NumRenderTargets = 2;
    p->rtv.RTFormats[0] = DXGI_FORMAT_R11G11B10_FLOAT;
    p->rtv.RTFormats[1] = DXGI_FORMAT_R8G8B8A8_UNORM;
    return sizeof p->rtv;
  case PSOC_SO_DEPTH_STENCIL_FORMAT: p->fmt = DXGI_FORMAT_D32_FLOAT; return sizeof p->fmt;
  case PSOC_SO_SAMPLE_DESC: p->sample.Count = 4; p->sample.Quality = 1; return sizeof p->sample;
  case PSOC_SO_CACHED_PSO:
    p->cached.pCachedBlob = cached_blob;
    p->cached.CachedBlobSizeInBytes = sizeof cached_blob;
    return sizeof p->cached;
  case PSOC_SO_FLAGS: p->flags = D3D12_PIPELINE_STATE_FLAG_TOOL_DEBUG; return sizeof p->flags;
  case PSOC_SO_VIEW_INSTANCING:
    p->vi.ViewInstanceCount = 3;
    p->vi.pViewInstanceLocations = sample_locs;
    p->vi.Flags = D3D12_VIEW_INSTANCING_FLAG_ENABLE_VIEW_INSTANCE_MASKING;
    return sizeof p->vi;
  case PSOC_SO_SERIALIZED_ROOT_SIGNATURE:
    p->srs.pSerializedBlob = rs_blob;
    p->srs.SerializedBlobSizeInBytes = sizeof rs_blob;
    return sizeof p->srs;
  default: return 0;
  }
}

/* Compare a payload in a stream with the payload it was built from:
** scalars by bytes, out-of-line data by content at a different address. */
static void check_same_payload(uint32_t type, const payload *want, const unsigned char *got) {
  payload g;
  size_t size;
  payload tmp;
  uint32_t i;
  size = sample_payload(type, &tmp);
  ck_assert_uint_gt(size, 0);
  memcpy(&g, got, size);
  switch (type) {
  case PSOC_SO_VS: case PSOC_SO_PS: case PSOC_SO_DS: case PSOC_SO_HS: case PSOC_SO_GS:
  case PSOC_SO_CS: case PSOC_SO_AS: case PSOC_SO_MS:
    ck_assert_uint_eq(g.bc.BytecodeLength, want->bc.BytecodeLength);
    ck_assert_ptr_ne(g.bc.pShaderBytecode, want->bc.pShaderBytecode);
    ck_assert_mem_eq(g.bc.pShaderBytecode, want->bc.pShaderBytecode, want->bc.BytecodeLength);
    break;
  case PSOC_SO_CACHED_PSO:
    ck_assert_uint_eq(g.cached.CachedBlobSizeInBytes, want->cached.CachedBlobSizeInBytes);
    ck_assert_ptr_ne(g.cached.pCachedBlob, want->cached.pCachedBlob);
    ck_assert_mem_eq(g.cached.pCachedBlob, want->cached.pCachedBlob, want->cached.CachedBlobSizeInBytes);
    break;
  case PSOC_SO_SERIALIZED_ROOT_SIGNATURE:
    ck_assert_uint_eq(g.srs.SerializedBlobSizeInBytes, want->srs.SerializedBlobSizeInBytes);
    ck_assert_ptr_ne(g.srs.pSerializedBlob, want->srs.pSerializedBlob);
    ck_assert_mem_eq(g.srs.pSerializedBlob, want->srs.pSerializedBlob,
                     want->srs.SerializedBlobSizeInBytes);
    break;
  case PSOC_SO_INPUT_LAYOUT:
    ck_assert_uint_eq(g.il.NumElements, want->il.NumElements);
    ck_assert_ptr_ne(g.il.pInputElementDescs, want->il.pInputElementDescs);
    for (i = 0; i < want->il.NumElements; i++) {
      const D3D12_INPUT_ELEMENT_DESC *a = &g.il.pInputElementDescs[i], *b = &want->il.pInputElementDescs[i];
      ck_assert_ptr_ne(a->SemanticName, b->SemanticName);
      ck_assert_str_eq(a->SemanticName, b->SemanticName);
      ck_assert_uint_eq(a->SemanticIndex, b->SemanticIndex);
      ck_assert_uint_eq(a->Format, b->Format);
      ck_assert_uint_eq(a->InputSlot, b->InputSlot);
      ck_assert_uint_eq(a->AlignedByteOffset, b->AlignedByteOffset);
      ck_assert_uint_eq(a->InputSlotClass, b->InputSlotClass);
      ck_assert_uint_eq(a->InstanceDataStepRate, b->InstanceDataStepRate);
    }
    break;
  case PSOC_SO_STREAM_OUTPUT:
    ck_assert_uint_eq(g.so.NumEntries, want->so.NumEntries);
    ck_assert_uint_eq(g.so.NumStrides, want->so.NumStrides);
    ck_assert_uint_eq(g.so.RasterizedStream, want->so.RasterizedStream);
    ck_assert_ptr_ne(g.so.pSODeclaration, want->so.pSODeclaration);
    ck_assert_ptr_ne(g.so.pBufferStrides, want->so.pBufferStrides);
    ck_assert_mem_eq(g.so.pBufferStrides, want->so.pBufferStrides, want->so.NumStrides * sizeof(UINT));
    for (i = 0; i < want->so.NumEntries; i++) {
      const D3D12_SO_DECLARATION_ENTRY *a = &g.so.pSODeclaration[i], *b = &want->so.pSODeclaration[i];
      ck_assert_uint_eq(a->Stream, b->Stream);
      ck_assert_str_eq(a->SemanticName, b->SemanticName);
      ck_assert_ptr_ne(a->SemanticName, b->SemanticName);
      ck_assert_uint_eq(a->SemanticIndex, b->SemanticIndex);
      ck_assert_uint_eq(a->StartComponent, b->StartComponent);
      ck_assert_uint_eq(a->ComponentCount, b->ComponentCount);
      ck_assert_uint_eq(a->OutputSlot, b->OutputSlot);
    }
    break;
  case PSOC_SO_VIEW_INSTANCING:
    ck_assert_uint_eq(g.vi.ViewInstanceCount, want->vi.ViewInstanceCount);
    ck_assert_uint_eq(g.vi.Flags, want->vi.Flags);
    ck_assert_ptr_ne(g.vi.pViewInstanceLocations, want->vi.pViewInstanceLocations);
    ck_assert_mem_eq(g.vi.pViewInstanceLocations, want->vi.pViewInstanceLocations,
                     want->vi.ViewInstanceCount * sizeof(D3D12_VIEW_INSTANCE_LOCATION));
    break;
  default: /* no pointers to follow (ROOT_SIGNATURE is an opaque value) */
    ck_assert_mem_eq(got, want->bytes, size);
    break;
  }
}

static int is_type(uint32_t t) { return t < PSOC_SO_TYPE_COUNT && t != 23; }

/* ---- registry-driven layout checks ------------------------------- */

static size_t count_at(const psoc_struct *s, const psoc_field *f, const unsigned char *base) {
  uint32_t i;
  for (i = 0; i < s->field_count; i++)
    if (s->fields[i].kind == PSOC_FIELD_COUNT && s->fields[i].offset == f->count_offset) {
      uint64_t v = 0;
      memcpy(&v, base + f->count_offset, s->fields[i].size);
      return (size_t)v;
    }
  ck_abort_msg("no COUNT field for %s", f->name);
  return 0;
}

/* Mark the bytes a struct's fields occupy (and, for pointers into the
** block, the pieces they point to). */
static void mark_struct(const psoc_struct *s, const unsigned char *p, const unsigned char *block,
                        size_t block_size, unsigned char *mask) {
  uint32_t i, j;
  size_t at = (size_t)(p - block), k;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    switch (f->kind) {
    case PSOC_FIELD_STRUCT: mark_struct(f->element, p + f->offset, block, block_size, mask); break;
    case PSOC_FIELD_FIXED:
      for (j = 0; j < f->count; j++) {
        if (f->element)
          mark_struct(f->element, p + f->offset + j * f->stride, block, block_size, mask);
        else
          memset(mask + at + f->offset + j * f->stride, 1, f->size);
      }
      break;
    case PSOC_FIELD_ARRAY:
    case PSOC_FIELD_BLOB:
    case PSOC_FIELD_STRING: {
      const unsigned char *q;
      size_t n, off;
      memset(mask + at + f->offset, 1, sizeof(void *));
      memcpy(&q, p + f->offset, sizeof q);
      if (!q) break;
      ck_assert_msg(q >= block && q < block + block_size, "%s points outside the block", f->name);
      off = (size_t)(q - block);
      ck_assert_uint_eq(off % 8, 0);
      if (f->kind == PSOC_FIELD_STRING) {
        n = strlen((const char *)q) + 1;
        ck_assert_uint_le(off + n, block_size);
        memset(mask + off, 1, n);
      } else if (f->kind == PSOC_FIELD_BLOB) {
        n = count_at(s, f, p);
        ck_assert_uint_le(off + n, block_size);
        memset(mask + off, 1, n);
      } else {
        n = count_at(s, f, p);
        ck_assert_uint_le(off + n * f->stride, block_size);
        for (k = 0; k < n; k++) {
          if (f->element)
            mark_struct(f->element, q + k * f->stride, block, block_size, mask);
          else
            memset(mask + off + k * f->stride, 1, f->stride);
        }
      }
      break;
    }
    case PSOC_FIELD_OBJECT: memset(mask + at + f->offset, 1, sizeof(void *)); break;
    default: memset(mask + at + f->offset, 1, f->size); break;
    }
  }
}

/* Every byte of the stream and its out-of-line data that no field covers
** must be zero. 'block' is the allocation that holds the stream. */
static void check_padding_zero(const unsigned char *block, size_t block_size,
                               const unsigned char *data, size_t size) {
  unsigned char *mask = calloc(block_size, 1);
  size_t off = 0, i, start = (size_t)(data - block);
  ck_assert_ptr_nonnull(mask);
  ck_assert_uint_le(start + size, block_size);
  ck_assert_uint_eq((uintptr_t)data % 8, 0);
  while (off < size) {
    uint32_t type;
    const psoc_subobject_info *info;
    ck_assert_uint_eq(off % 8, 0);
    memcpy(&type, data + off, 4);
    info = psoc_subobject_info_get(type);
    ck_assert_ptr_nonnull(info);
    memset(mask + start + off, 1, 4);
    mark_struct(info->payload, data + off + info->payload_offset, block, block_size, mask);
    off += info->stride;
  }
  ck_assert_uint_eq(off, size);
  for (i = start; i < block_size; i++)
    ck_assert_msg(mask[i] || block[i] == 0, "padding byte at block offset %zu is 0x%02x", i,
                  block[i]);
  free(mask);
}

/* Two blocks built from the same input are identical from 'start' on,
** except for pointers into themselves, which sit at the same offsets. */
static void check_same_layout(const unsigned char *a, const unsigned char *b, size_t start,
                              size_t n) {
  size_t i;
  ck_assert_uint_eq(n % 8, 0);
  ck_assert_uint_eq(start % 8, 0);
  for (i = start; i < n; i += 8) {
    uintptr_t x, y;
    if (memcmp(a + i, b + i, 8) == 0) continue;
    memcpy(&x, a + i, sizeof x);
    memcpy(&y, b + i, sizeof y);
    ck_assert_msg(x >= (uintptr_t)a && x < (uintptr_t)a + n && y >= (uintptr_t)b &&
                      y < (uintptr_t)b + n && x - (uintptr_t)a == y - (uintptr_t)b,
                  "blocks differ at offset %zu beyond relocation", i);
  }
}

/* Finish 'b' again and check it gives the same block as 'block' ('size'
** bytes, the one 'ta' allocated before): the same bytes but for pointers
** relocated into each block. */
static void check_finish_same(psoc_builder *b, const test_alloc *ta, const unsigned char *block,
                              size_t size) {
  psoc_stream *ref;
  ck_assert_int_eq(psoc_builder_finish(b, &ref), PSOC_OK);
  ck_assert_uint_eq(ta->last_size, size);
  check_same_layout(block, ta->last, 0, size);
  psoc_stream_free(ref);
}

/* ---- tests ------------------------------------------------------- */

START_TEST(test_each_type_round_trips) {
  uint32_t type;
  for (type = 0; type < 32; type++) {
    psoc_builder *b;
    psoc_stream *s;
    payload p;
    size_t size = sample_payload(type, &p);
    psoc_parsed parsed;
    const psoc_subobject_info *info = psoc_subobject_info_get(type);
    if (!is_type(type)) {
      ck_assert_ptr_null(info);
      continue;
    }
    ck_assert_ptr_nonnull(info);
    ck_assert_uint_eq(size, info->payload->size);
    ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, type, &p, size), PSOC_OK);
    ck_assert_uint_eq(psoc_builder_count(b), 1);
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
    ck_assert_uint_eq(psoc_stream_size(s), info->stride);
    ck_assert_int_eq(psoc_parse(psoc_stream_data(s), psoc_stream_size(s), &parsed, NULL), PSOC_OK);
    ck_assert_uint_eq(parsed.count, 1);
    ck_assert_int_eq(parsed.has[type], 1);
    ck_assert_uint_eq(parsed.views[type].offset, 0);
    ck_assert_ptr_eq(parsed.views[type].payload,
                     (const unsigned char *)psoc_stream_data(s) + info->payload_offset);
    check_same_payload(type, &p, parsed.views[type].payload);
    psoc_stream_free(s);
    psoc_builder_free(b);
  }
}
END_TEST

/* Every type in few streams: one per duplicate class member. */
START_TEST(test_all_types_in_three_streams) {
  static const uint32_t variants[3][2] = {
    { PSOC_SO_DEPTH_STENCIL, PSOC_SO_RASTERIZER },
    { PSOC_SO_DEPTH_STENCIL1, PSOC_SO_RASTERIZER1 },
    { PSOC_SO_DEPTH_STENCIL2, PSOC_SO_RASTERIZER2 },
  };
  int v;
  for (v = 0; v < 3; v++) {
    psoc_builder *b;
    psoc_stream *s;
    psoc_parsed parsed;
    payload p;
    uint32_t type, n = 0;
    size_t expect_size = 0, off = 0;
    ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
    for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
      const psoc_subobject_info *info = psoc_subobject_info_get(type);
      if (!info) continue;
      if ((info->dup_class == PSOC_SO_DEPTH_STENCIL || info->dup_class == PSOC_SO_RASTERIZER) &&
          type != variants[v][0] && type != variants[v][1])
        continue;
      ck_assert_int_eq(psoc_builder_add(b, type, &p, sample_payload(type, &p)), PSOC_OK);
      expect_size += info->stride;
      n++;
    }
    ck_assert_uint_eq(n, 25);
    ck_assert_uint_eq(psoc_builder_count(b), 25);
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
    ck_assert_uint_eq(psoc_stream_size(s), expect_size);
    ck_assert_int_eq(psoc_parse(psoc_stream_data(s), psoc_stream_size(s), &parsed, NULL), PSOC_OK);
    ck_assert_uint_eq(parsed.count, 25);
    for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
      if (!parsed.has[type]) continue;
      sample_payload(type, &p);
      /* insertion order: ascending type, each at the running offset */
      ck_assert_uint_eq(parsed.views[type].offset, off);
      off += psoc_subobject_info_get(type)->stride;
      check_same_payload(type, &p, parsed.views[type].payload);
    }
    psoc_stream_free(s);
    psoc_builder_free(b);
  }
}
END_TEST

START_TEST(test_layout_matches_d3dx12) {
  /* alignas(void*) { type; payload }: 4-byte payloads at +4, pointer
  ** payloads at +8, every subobject padded to a multiple of 8. */
  static const struct { uint32_t type; uint32_t offset, stride; } want[] = {
    { PSOC_SO_ROOT_SIGNATURE, 8, 16 }, { PSOC_SO_VS, 8, 24 },
    { PSOC_SO_STREAM_OUTPUT, 8, 40 }, { PSOC_SO_BLEND, 4, 336 },
    { PSOC_SO_SAMPLE_MASK, 4, 8 }, { PSOC_SO_RASTERIZER, 4, 48 },
    { PSOC_SO_DEPTH_STENCIL, 4, 56 }, { PSOC_SO_INPUT_LAYOUT, 8, 24 },
    { PSOC_SO_IB_STRIP_CUT_VALUE, 4, 8 }, { PSOC_SO_PRIMITIVE_TOPOLOGY, 4, 8 },
    { PSOC_SO_RENDER_TARGET_FORMATS, 4, 40 }, { PSOC_SO_DEPTH_STENCIL_FORMAT, 4, 8 },
    { PSOC_SO_SAMPLE_DESC, 4, 16 }, { PSOC_SO_CACHED_PSO, 8, 24 }, { PSOC_SO_FLAGS, 4, 8 },
    { PSOC_SO_DEPTH_STENCIL1, 4, 64 }, { PSOC_SO_VIEW_INSTANCING, 8, 32 },
    { PSOC_SO_AS, 8, 24 }, { PSOC_SO_MS, 8, 24 },
    { PSOC_SO_DEPTH_STENCIL2, 4, 64 }, { PSOC_SO_RASTERIZER1, 4, 48 },
    { PSOC_SO_RASTERIZER2, 4, 48 }, { PSOC_SO_SERIALIZED_ROOT_SIGNATURE, 8, 24 },
  };
  size_t i;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    psoc_builder *b;
    psoc_stream *s;
    payload p;
    uint32_t type;
    const psoc_subobject_info *info = psoc_subobject_info_get(want[i].type);
    ck_assert_uint_eq(info->payload_offset, want[i].offset);
    ck_assert_uint_eq(info->stride, want[i].stride);
    ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
    /* a 4-byte subobject first, then the one under test */
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_NODE_MASK, &p, sample_payload(PSOC_SO_NODE_MASK, &p)),
                     PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, want[i].type, &p, sample_payload(want[i].type, &p)), PSOC_OK);
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
    ck_assert_uint_eq(psoc_stream_size(s), 8 + want[i].stride);
    memcpy(&type, (const unsigned char *)psoc_stream_data(s) + 8, 4);
    ck_assert_uint_eq(type, want[i].type);
    check_same_payload(want[i].type, &p, (const unsigned char *)psoc_stream_data(s) + 8 + want[i].offset);
    psoc_stream_free(s);
    psoc_builder_free(b);
  }
}
END_TEST

START_TEST(test_out_of_line_data_is_copied) {
  psoc_builder *b;
  psoc_stream *s;
  psoc_parsed parsed;
  char *names[3];
  char *so_name = strdup("SV_POSITION");
  D3D12_INPUT_ELEMENT_DESC *elems = malloc(sizeof sample_elements);
  D3D12_SO_DECLARATION_ENTRY *so = malloc(sizeof sample_so);
  UINT *strides = malloc(sizeof sample_strides);
  D3D12_VIEW_INSTANCE_LOCATION *locs = malloc(sizeof sample_locs);
  unsigned char *vs = malloc(sizeof code_a), *cached = malloc(sizeof cached_blob),
                *srs = malloc(sizeof rs_blob);
  payload p;
  int i;
  D3D12_INPUT_LAYOUT_DESC il;
  D3D12_STREAM_OUTPUT_DESC sod;
  D3D12_VIEW_INSTANCING_DESC vi;
  D3D12_SHADER_BYTECODE bc;
  D3D12_CACHED_PIPELINE_STATE cp;
  psoc_serialized_root_signature_desc sr;
  const D3D12_INPUT_LAYOUT_DESC *gil;
  const D3D12_STREAM_OUTPUT_DESC *gso;

  memcpy(elems, sample_elements, sizeof sample_elements);
  for (i = 0; i < 3; i++) {
    names[i] = strdup(sample_elements[i].SemanticName);
    elems[i].SemanticName = names[i];
  }
  memcpy(so, sample_so, sizeof sample_so);
  so[0].SemanticName = so_name;
  so[1].SemanticName = NULL; /* NULL strings stay NULL */
  memcpy(strides, sample_strides, sizeof sample_strides);
  memcpy(locs, sample_locs, sizeof sample_locs);
  memcpy(vs, code_a, sizeof code_a);
  memcpy(cached, cached_blob, sizeof cached_blob);
  memcpy(srs, rs_blob, sizeof rs_blob);
  il.pInputElementDescs = elems;
  il.NumElements = 3;
  memset(&sod, 0, sizeof sod);
  sod.pSODeclaration = so;
  sod.NumEntries = 2;
  sod.pBufferStrides = strides;
  sod.NumStrides = 2;
  sod.RasterizedStream = D3D12_SO_NO_RASTERIZED_STREAM;
  memset(&vi, 0, sizeof vi);
  vi.ViewInstanceCount = 3;
  vi.pViewInstanceLocations = locs;
  bc.pShaderBytecode = vs;
  bc.BytecodeLength = sizeof code_a;
  cp.pCachedBlob = cached;
  cp.CachedBlobSizeInBytes = sizeof cached_blob;
  sr.pSerializedBlob = srs;
  sr.SerializedBlobSizeInBytes = sizeof rs_blob;

  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_STREAM_OUTPUT, &sod, sizeof sod), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VIEW_INSTANCING, &vi, sizeof vi), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &bc, sizeof bc), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_CACHED_PSO, &cp, sizeof cp), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, &sr, sizeof sr), PSOC_OK);

  /* scribble over and free everything the caller owned */
  for (i = 0; i < 3; i++) {
    memset(names[i], 'X', strlen(names[i]));
    free(names[i]);
  }
  memset(so_name, 'Y', strlen(so_name));
  free(so_name);
  memset(elems, 0x5a, sizeof sample_elements);
  memset(so, 0x5a, sizeof sample_so);
  memset(strides, 0x5a, sizeof sample_strides);
  memset(locs, 0x5a, sizeof sample_locs);
  memset(vs, 0x5a, sizeof code_a);
  memset(cached, 0x5a, sizeof cached_blob);
  memset(srs, 0x5a, sizeof rs_blob);
  free(elems);
  free(so);
  free(strides);
  free(locs);
  free(vs);
  free(cached);
  free(srs);

  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  psoc_builder_free(b); /* the stream owns its data */
  ck_assert_int_eq(psoc_parse(psoc_stream_data(s), psoc_stream_size(s), &parsed, NULL), PSOC_OK);
  ck_assert_uint_eq(parsed.count, 6);

  gil = (const D3D12_INPUT_LAYOUT_DESC *)parsed.views[PSOC_SO_INPUT_LAYOUT].payload;
  ck_assert_uint_eq(gil->NumElements, 3);
  for (i = 0; i < 3; i++) {
    ck_assert_str_eq(gil->pInputElementDescs[i].SemanticName, sample_elements[i].SemanticName);
    ck_assert_uint_eq(gil->pInputElementDescs[i].Format, sample_elements[i].Format);
    ck_assert_uint_eq(gil->pInputElementDescs[i].AlignedByteOffset,
                      sample_elements[i].AlignedByteOffset);
  }
  gso = (const D3D12_STREAM_OUTPUT_DESC *)parsed.views[PSOC_SO_STREAM_OUTPUT].payload;
  ck_assert_str_eq(gso->pSODeclaration[0].SemanticName, "SV_POSITION");
  ck_assert_ptr_null(gso->pSODeclaration[1].SemanticName);
  ck_assert_uint_eq(gso->pSODeclaration[1].ComponentCount, 3);
  ck_assert_mem_eq(gso->pBufferStrides, sample_strides, sizeof sample_strides);
  ck_assert_uint_eq(gso->RasterizedStream, D3D12_SO_NO_RASTERIZED_STREAM);
  memcpy(&vi, parsed.views[PSOC_SO_VIEW_INSTANCING].payload, sizeof vi);
  ck_assert_mem_eq(vi.pViewInstanceLocations, sample_locs, sizeof sample_locs);
  memcpy(&bc, parsed.views[PSOC_SO_VS].payload, sizeof bc);
  ck_assert_mem_eq(bc.pShaderBytecode, code_a, sizeof code_a);
  memcpy(&cp, parsed.views[PSOC_SO_CACHED_PSO].payload, sizeof cp);
  ck_assert_mem_eq(cp.pCachedBlob, cached_blob, sizeof cached_blob);
  memcpy(&sr, parsed.views[PSOC_SO_SERIALIZED_ROOT_SIGNATURE].payload, sizeof sr);
  ck_assert_mem_eq(sr.pSerializedBlob, rs_blob, sizeof rs_blob);
  /* out-of-line data follows the stream bytes, 8-aligned */
  ck_assert((const unsigned char *)bc.pShaderBytecode >=
            (const unsigned char *)psoc_stream_data(s) + psoc_stream_size(s));
  ck_assert_uint_eq((uintptr_t)bc.pShaderBytecode % 8, 0);
  ck_assert_uint_eq((uintptr_t)gil->pInputElementDescs[2].SemanticName % 8, 0);
  (void)p;
  psoc_stream_free(s);
}
END_TEST

START_TEST(test_null_and_empty_pointers) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  psoc_stream *s;
  D3D12_SHADER_BYTECODE bc = { NULL, 0 }, ps = { code_b, 0 };
  D3D12_INPUT_LAYOUT_DESC il = { NULL, 0 };
  const D3D12_SHADER_BYTECODE *g;
  psoc_parsed parsed;
  ta.poison = 1;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &bc, sizeof bc), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &ps, sizeof ps), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  /* also: the empty piece lies inside the block */
  check_padding_zero(ta.last, ta.last_size, psoc_stream_data(s), psoc_stream_size(s));
  ck_assert_int_eq(psoc_parse(psoc_stream_data(s), psoc_stream_size(s), &parsed, NULL), PSOC_OK);
  g = (const D3D12_SHADER_BYTECODE *)parsed.views[PSOC_SO_VS].payload;
  ck_assert_ptr_null(g->pShaderBytecode);
  ck_assert_uint_eq(g->BytecodeLength, 0);
  /* non-null with zero length stays non-null (the runtime looks at the
  ** pointer to deduce the pipeline kind), pointing into the block */
  g = (const D3D12_SHADER_BYTECODE *)parsed.views[PSOC_SO_PS].payload;
  ck_assert_ptr_nonnull(g->pShaderBytecode);
  ck_assert_ptr_ne(g->pShaderBytecode, code_b);
  ck_assert_uint_eq(g->BytecodeLength, 0);
  ck_assert_ptr_null(((const D3D12_INPUT_LAYOUT_DESC *)parsed.views[PSOC_SO_INPUT_LAYOUT].payload)
                         ->pInputElementDescs);
  psoc_stream_free(s);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

START_TEST(test_copy_relocates) {
  test_alloc ta, tb;
  psoc_allocator a = ta_make(&ta), ab = ta_make(&tb);
  psoc_builder *b;
  psoc_stream *s, *c, *c2;
  payload p;
  uint32_t type;
  unsigned char *sblock, *cblock;
  size_t sblock_size, cblock_size;
  psoc_parsed parsed;
  D3D12_PIPELINE_STATE_STREAM_DESC d;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  for (type = 0; type < PSOC_SO_TYPE_COUNT; type++)
    if (is_type(type) && psoc_subobject_info_get(type)->dup_class == type)
      ck_assert_int_eq(psoc_builder_add(b, type, &p, sample_payload(type, &p)), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  sblock = ta.last;
  sblock_size = ta.last_size;
  psoc_builder_free(b);
  ck_assert_int_eq(psoc_stream_copy(s, &ab, &c), PSOC_OK);
  cblock = tb.last;
  cblock_size = tb.last_size;
  ck_assert_uint_eq(tb.blocks, 1);
  ck_assert_uint_eq(sblock_size, cblock_size);
  ck_assert_uint_eq((const unsigned char *)psoc_stream_data(s) - sblock,
                    (const unsigned char *)psoc_stream_data(c) - cblock);
  /* the header holds the allocator; the rest is a relocated copy */
  check_same_layout(sblock, cblock, (size_t)((const unsigned char *)psoc_stream_data(s) - sblock),
                    sblock_size);
  psoc_stream_free(s); /* the copy must not depend on the original */
  ck_assert_uint_eq(ta.outstanding, 0);
  ck_assert_uint_eq(ta.bad_osize, 0);
  d = psoc_stream_desc(c);
  ck_assert_ptr_eq(d.pPipelineStateSubobjectStream, psoc_stream_data(c));
  ck_assert_uint_eq(d.SizeInBytes, psoc_stream_size(c));
  check_padding_zero(cblock, cblock_size, psoc_stream_data(c), psoc_stream_size(c));
  ck_assert_int_eq(psoc_parse(d.pPipelineStateSubobjectStream, d.SizeInBytes, &parsed, NULL), PSOC_OK);
  for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
    if (!parsed.has[type]) continue;
    sample_payload(type, &p);
    check_same_payload(type, &p, parsed.views[type].payload);
  }
  /* a copy with the default allocator, then free the middle one */
  ck_assert_int_eq(psoc_stream_copy(c, NULL, &c2), PSOC_OK);
  psoc_stream_free(c);
  ck_assert_uint_eq(tb.outstanding, 0);
  ck_assert_uint_eq(tb.bad_osize, 0);
  ck_assert_int_eq(psoc_parse(psoc_stream_data(c2), psoc_stream_size(c2), &parsed, NULL), PSOC_OK);
  for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
    if (!parsed.has[type]) continue;
    sample_payload(type, &p);
    check_same_payload(type, &p, parsed.views[type].payload);
  }
  psoc_stream_free(c2);
}
END_TEST

START_TEST(test_padding_is_zero) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  psoc_stream *s;
  payload p, dirty;
  D3D12_SO_DECLARATION_ENTRY dirty_so[2];
  uint32_t type;
  const unsigned char *data;
  size_t off = 0;
  ta.poison = 1; /* fresh memory is 0xAA everywhere */
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
    size_t size, i;
    if (!is_type(type) || psoc_subobject_info_get(type)->dup_class != type) continue;
    size = sample_payload(type, &p);
    /* the caller's padding is garbage: every byte that is not a field */
    memset(&dirty, 0xCD, sizeof dirty);
    for (i = 0; i < size; i++) dirty.bytes[i] = p.bytes[i];
    if (type == PSOC_SO_STREAM_OUTPUT) { /* NumEntries is followed by 4 padding bytes */
      memset(dirty.bytes + offsetof(D3D12_STREAM_OUTPUT_DESC, NumEntries) + 4, 0xCD, 4);
      /* and so is each entry's Stream */
      memset(dirty_so, 0xCD, sizeof dirty_so);
      for (i = 0; i < 2; i++) {
        dirty_so[i].Stream = sample_so[i].Stream;
        dirty_so[i].SemanticName = sample_so[i].SemanticName;
        dirty_so[i].SemanticIndex = sample_so[i].SemanticIndex;
        dirty_so[i].StartComponent = sample_so[i].StartComponent;
        dirty_so[i].ComponentCount = sample_so[i].ComponentCount;
        dirty_so[i].OutputSlot = sample_so[i].OutputSlot;
      }
      dirty.so.pSODeclaration = dirty_so;
    }
    if (type == PSOC_SO_VIEW_INSTANCING) { /* after the count, and at the end */
      memset(dirty.bytes + offsetof(D3D12_VIEW_INSTANCING_DESC, ViewInstanceCount) + 4, 0xCD, 4);
      memset(dirty.bytes + offsetof(D3D12_VIEW_INSTANCING_DESC, Flags) + 4, 0xCD, 4);
    }
    ck_assert_int_eq(psoc_builder_add(b, type, &dirty, size), PSOC_OK);
  }
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  check_padding_zero(ta.last, ta.last_size, psoc_stream_data(s), psoc_stream_size(s));
  /* spot checks without the registry: bytes 4..7 before 8-aligned
  ** payloads, and the SO desc's internal padding */
  data = psoc_stream_data(s);
  while (off < psoc_stream_size(s)) {
    uint32_t t;
    const psoc_subobject_info *info;
    memcpy(&t, data + off, 4);
    info = psoc_subobject_info_get(t);
    if (info->payload_offset == 8) {
      static const unsigned char zero[4];
      ck_assert_mem_eq(data + off + 4, zero, 4);
    }
    if (t == PSOC_SO_STREAM_OUTPUT) {
      D3D12_STREAM_OUTPUT_DESC so;
      uint32_t pad;
      memcpy(&pad, data + off + 8 + offsetof(D3D12_STREAM_OUTPUT_DESC, NumEntries) + 4, 4);
      ck_assert_uint_eq(pad, 0);
      memcpy(&so, data + off + 8, sizeof so);
      memcpy(&pad, (const unsigned char *)&so.pSODeclaration[0] + 4, 4); /* after Stream */
      ck_assert_uint_eq(pad, 0);
    }
    off += info->stride;
  }
  psoc_stream_free(s);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* Pairs of types of one duplicate class. */
static const uint32_t dup_pairs[][2] = {
  { PSOC_SO_DEPTH_STENCIL, PSOC_SO_DEPTH_STENCIL1 }, { PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL },
  { PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL1 }, { PSOC_SO_DEPTH_STENCIL2, PSOC_SO_DEPTH_STENCIL },
  { PSOC_SO_DEPTH_STENCIL1, PSOC_SO_DEPTH_STENCIL2 }, { PSOC_SO_RASTERIZER2, PSOC_SO_RASTERIZER },
  { PSOC_SO_RASTERIZER, PSOC_SO_RASTERIZER1 }, { PSOC_SO_RASTERIZER1, PSOC_SO_RASTERIZER2 },
  { PSOC_SO_VS, PSOC_SO_VS }, { PSOC_SO_INPUT_LAYOUT, PSOC_SO_INPUT_LAYOUT },
};

/* On an empty builder: 'first' is added, 'second' is refused as a
** duplicate (and a wrong size as a wrong size), other classes are fine. */
static void check_dup_pair(psoc_builder *b, uint32_t first, uint32_t second) {
  payload p;
  ck_assert_int_eq(psoc_builder_add(b, first, &p, sample_payload(first, &p)), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, second, &p, sample_payload(second, &p)), PSOC_ERR_DUPLICATE);
  ck_assert_int_eq(psoc_builder_add(b, second, &p, sample_payload(second, &p) - 1), PSOC_ERR_SIZE);
  ck_assert_uint_eq(psoc_builder_count(b), 1);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &p, sample_payload(PSOC_SO_PS, &p)),
                   first == PSOC_SO_PS ? PSOC_ERR_DUPLICATE : PSOC_OK);
}

START_TEST(test_duplicate_classes) {
  size_t i;
  for (i = 0; i < sizeof dup_pairs / sizeof dup_pairs[0]; i++) {
    psoc_builder *b;
    ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
    check_dup_pair(b, dup_pairs[i][0], dup_pairs[i][1]);
    psoc_builder_free(b);
  }
}
END_TEST

/* The same pairs on a builder that has made every type's plan, so that
** the second add takes add's inline path, in every mode. */
START_TEST(test_duplicate_classes_inline) {
  static const psoc_builder_mode modes[4] = { PSOC_BUILDER_COPY, PSOC_BUILDER_COPY_AT_FINISH,
                                              PSOC_BUILDER_BORROW, PSOC_BUILDER_BORROW_BLOBS };
  psoc_builder *b;
  payload p;
  uint32_t type;
  size_t i, m;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
    if (!is_type(type)) continue;
    psoc_builder_reset(b);
    ck_assert_int_eq(psoc_builder_add(b, type, &p, sample_payload(type, &p)), PSOC_OK);
  }
  for (m = 0; m < 4; m++) {
    ck_assert_int_eq(psoc_builder_set_mode(b, modes[m]), PSOC_OK);
    for (i = 0; i < sizeof dup_pairs / sizeof dup_pairs[0]; i++) {
      psoc_builder_reset(b);
      check_dup_pair(b, dup_pairs[i][0], dup_pairs[i][1]);
    }
  }
  psoc_builder_free(b);
}
END_TEST

START_TEST(test_set_replaces_in_place) {
  psoc_builder *b;
  psoc_stream *s;
  payload p;
  psoc_parsed parsed;
  uint32_t type;
  D3D12_SHADER_BYTECODE bad = { NULL, 4 };
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &p, sample_payload(PSOC_SO_VS, &p)), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_DEPTH_STENCIL, &p, sample_payload(PSOC_SO_DEPTH_STENCIL, &p)),
                   PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &p, sample_payload(PSOC_SO_PS, &p)), PSOC_OK);
  /* DS -> DS1 keeps position 1 */
  ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_DEPTH_STENCIL1, &p, sample_payload(PSOC_SO_DEPTH_STENCIL1, &p)),
                   PSOC_OK);
  ck_assert_uint_eq(psoc_builder_count(b), 3);
  /* set of an absent class appends */
  ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_SAMPLE_MASK, &p, sample_payload(PSOC_SO_SAMPLE_MASK, &p)),
                   PSOC_OK);
  ck_assert_uint_eq(psoc_builder_count(b), 4);
  /* a failing set leaves the old member alone */
  ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_VS, &bad, sizeof bad), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_VS, &p, 3), PSOC_ERR_SIZE);
  /* replace VS with other bytecode */
  sample_payload(PSOC_SO_PS, &p);
  ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_VS, &p, sizeof p.bc), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  ck_assert_int_eq(psoc_parse(psoc_stream_data(s), psoc_stream_size(s), &parsed, NULL), PSOC_OK);
  ck_assert_uint_eq(parsed.count, 4);
  ck_assert_int_eq(parsed.has[PSOC_SO_DEPTH_STENCIL], 0);
  ck_assert_int_eq(parsed.has[PSOC_SO_DEPTH_STENCIL1], 1);
  ck_assert_uint_eq(parsed.views[PSOC_SO_VS].index, 0);
  ck_assert_uint_eq(parsed.views[PSOC_SO_DEPTH_STENCIL1].index, 1);
  ck_assert_uint_eq(parsed.views[PSOC_SO_PS].index, 2);
  ck_assert_uint_eq(parsed.views[PSOC_SO_SAMPLE_MASK].index, 3);
  sample_payload(PSOC_SO_DEPTH_STENCIL1, &p);
  check_same_payload(PSOC_SO_DEPTH_STENCIL1, &p, parsed.views[PSOC_SO_DEPTH_STENCIL1].payload);
  sample_payload(PSOC_SO_PS, &p); /* VS now holds the PS sample's bytecode */
  check_same_payload(PSOC_SO_PS, &p, parsed.views[PSOC_SO_VS].payload);
  type = PSOC_SO_VS;
  (void)type;
  psoc_stream_free(s);
  psoc_builder_free(b);
}
END_TEST

START_TEST(test_bad_arguments) {
  psoc_builder *b;
  psoc_stream *s = (psoc_stream *)&s;
  payload p;
  D3D12_SHADER_BYTECODE bc;
  D3D12_INPUT_LAYOUT_DESC il = { NULL, 3 };
  D3D12_STREAM_OUTPUT_DESC so;
  D3D12_PIPELINE_STATE_STREAM_DESC d;
  size_t size = sample_payload(PSOC_SO_RASTERIZER, &p);
  ck_assert_int_eq(psoc_builder_new(NULL, NULL), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(NULL, PSOC_SO_RASTERIZER, &p, size), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_RASTERIZER, NULL, size), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_builder_set(NULL, PSOC_SO_RASTERIZER, &p, size), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_RASTERIZER, NULL, size), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_builder_add(b, 23, &p, size), PSOC_ERR_TYPE);
  ck_assert_int_eq(psoc_builder_add(b, 30, &p, size), PSOC_ERR_TYPE);
  ck_assert_int_eq(psoc_builder_add(b, 0xffffffffu, &p, size), PSOC_ERR_TYPE);
  ck_assert_int_eq(psoc_builder_set(b, 23, &p, size), PSOC_ERR_TYPE);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_RASTERIZER, &p, size - 1), PSOC_ERR_SIZE);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_RASTERIZER, &p, size + 1), PSOC_ERR_SIZE);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_RASTERIZER, &p, 0), PSOC_ERR_SIZE);
  /* RASTERIZER2 is smaller than RASTERIZER */
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_RASTERIZER2, &p, size), PSOC_ERR_SIZE);
  /* NULL pointer with a count cannot be copied */
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_ERR_ARG);
  bc.pShaderBytecode = NULL;
  bc.BytecodeLength = 16;
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &bc, sizeof bc), PSOC_ERR_ARG);
  memset(&so, 0, sizeof so);
  so.pSODeclaration = sample_so;
  so.NumEntries = 2;
  so.NumStrides = 1; /* strides NULL */
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_STREAM_OUTPUT, &so, sizeof so), PSOC_ERR_ARG);
  /* sizes that overflow size_t (never read) */
  bc.pShaderBytecode = code_a;
  bc.BytecodeLength = SIZE_MAX;
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &bc, sizeof bc), PSOC_ERR_SIZE);
  bc.BytecodeLength = SIZE_MAX - 6;
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &bc, sizeof bc), PSOC_ERR_SIZE);
  bc.BytecodeLength = SIZE_MAX - 7; /* aligns exactly, then the block overflows */
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_CACHED_PSO, &bc, sizeof bc), PSOC_ERR_SIZE);
  ck_assert_uint_eq(psoc_builder_count(b), 0);
  ck_assert_int_eq(psoc_builder_finish(NULL, &s), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_builder_finish(b, NULL), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_stream_copy(NULL, NULL, &s), PSOC_ERR_ARG);
  ck_assert_ptr_null(s);
  ck_assert_uint_eq(psoc_builder_count(NULL), 0);
  ck_assert_ptr_null(psoc_stream_data(NULL));
  ck_assert_uint_eq(psoc_stream_size(NULL), 0);
  d = psoc_stream_desc(NULL);
  ck_assert_ptr_null(d.pPipelineStateSubobjectStream);
  ck_assert_uint_eq(d.SizeInBytes, 0);
  psoc_builder_reset(NULL);
  psoc_builder_free(NULL);
  psoc_stream_free(NULL);
  psoc_builder_free(b);
}
END_TEST

START_TEST(test_huge_sizes_fail_cleanly) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  D3D12_SHADER_BYTECODE bc = { code_a, (SIZE_T)1 << 40 }; /* fits size_t, not memory */
  D3D12_INPUT_LAYOUT_DESC il = { sample_elements, 0xffffffffu };
  ta.max_size = (size_t)1 << 24;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &bc, sizeof bc), PSOC_ERR_NOMEM);
  if (sizeof(size_t) == 4) /* 2^32-1 elements of 32 bytes overflow */
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_ERR_SIZE);
  ck_assert_uint_eq(psoc_builder_count(b), 0);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

START_TEST(test_finish_is_repeatable) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  psoc_stream *s1, *s2, *s3;
  unsigned char *b1, *b2;
  size_t n1, n2;
  payload p;
  uint32_t type;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  for (type = PSOC_SO_TYPE_COUNT; type-- > 0;) /* descending: insertion order is kept */
    if (is_type(type) && psoc_subobject_info_get(type)->dup_class == type)
      ck_assert_int_eq(psoc_builder_add(b, type, &p, sample_payload(type, &p)), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s1), PSOC_OK);
  b1 = ta.last;
  n1 = ta.last_size;
  ck_assert_int_eq(psoc_builder_finish(b, &s2), PSOC_OK);
  b2 = ta.last;
  n2 = ta.last_size;
  ck_assert_uint_eq(n1, n2);
  ck_assert_uint_eq(psoc_stream_size(s1), psoc_stream_size(s2));
  check_same_layout(b1, b2, 0, n1);
  {
    uint32_t first;
    memcpy(&first, psoc_stream_data(s1), 4);
    ck_assert_uint_eq(first, PSOC_SO_SERIALIZED_ROOT_SIGNATURE);
  }
  /* still usable: add more, finish again */
  psoc_stream_free(s1);
  psoc_stream_free(s2);
  ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_RASTERIZER2, &p, sample_payload(PSOC_SO_RASTERIZER2, &p)),
                   PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s3), PSOC_OK);
  check_padding_zero(ta.last, ta.last_size, psoc_stream_data(s3), psoc_stream_size(s3));
  psoc_stream_free(s3);
  /* reset empties it; an empty builder gives an empty stream */
  psoc_builder_reset(b);
  ck_assert_uint_eq(psoc_builder_count(b), 0);
  ck_assert_int_eq(psoc_builder_finish(b, &s3), PSOC_OK);
  ck_assert_uint_eq(psoc_stream_size(s3), 0);
  ck_assert_ptr_nonnull(psoc_stream_data(s3));
  psoc_stream_free(s3);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &p, sample_payload(PSOC_SO_VS, &p)), PSOC_OK);
  ck_assert_uint_eq(psoc_builder_count(b), 1);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
  ck_assert_uint_eq(ta.blocks, 0);
  ck_assert_uint_eq(ta.bad_osize, 0);
}
END_TEST

/* Replacing members that have out-of-line data (set) must give the same
** block as building the final members in the same order from scratch. */
START_TEST(test_set_matches_fresh_build) {
  static unsigned char big[1000];
  test_alloc ta, tb;
  psoc_allocator a = ta_make(&ta), ab = ta_make(&tb);
  psoc_builder *b, *fresh;
  psoc_stream *s, *t;
  payload p, vs, il, ds;
  const unsigned char *sblock, *tblock;
  size_t sblock_size, tblock_size, i;
  for (i = 0; i < sizeof big; i++) big[i] = (unsigned char)(i * 13 + 5);
  ta.poison = 1;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &p, sample_payload(PSOC_SO_VS, &p)), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &p, sample_payload(PSOC_SO_INPUT_LAYOUT, &p)),
                   PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_DEPTH_STENCIL, &p, sample_payload(PSOC_SO_DEPTH_STENCIL, &p)),
                   PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &p, sample_payload(PSOC_SO_PS, &p)), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_STREAM_OUTPUT, &p, sample_payload(PSOC_SO_STREAM_OUTPUT, &p)),
                   PSOC_OK);
  /* the first member gets a bigger blob, the second fewer elements, the
  ** third a wider member of its class; then each again */
  sample_payload(PSOC_SO_VS, &vs);
  vs.bc.pShaderBytecode = big;
  vs.bc.BytecodeLength = sizeof big;
  sample_payload(PSOC_SO_INPUT_LAYOUT, &il);
  il.il.NumElements = 2;
  sample_payload(PSOC_SO_DEPTH_STENCIL1, &ds);
  for (i = 0; i < 2; i++) {
    ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_VS, &vs, sizeof vs.bc), PSOC_OK);
    ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il.il), PSOC_OK);
    ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_DEPTH_STENCIL1, &ds, sizeof ds.ds1), PSOC_OK);
  }
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  sblock = ta.last;
  sblock_size = ta.last_size;
  ck_assert_int_eq(psoc_builder_new(&ab, &fresh), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(fresh, PSOC_SO_VS, &vs, sizeof vs.bc), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(fresh, PSOC_SO_INPUT_LAYOUT, &il, sizeof il.il), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(fresh, PSOC_SO_DEPTH_STENCIL1, &ds, sizeof ds.ds1), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(fresh, PSOC_SO_PS, &p, sample_payload(PSOC_SO_PS, &p)), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(fresh, PSOC_SO_STREAM_OUTPUT, &p, sample_payload(PSOC_SO_STREAM_OUTPUT, &p)),
                   PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(fresh, &t), PSOC_OK);
  tblock = tb.last;
  tblock_size = tb.last_size;
  ck_assert_uint_eq(psoc_stream_size(s), psoc_stream_size(t));
  ck_assert_uint_eq(sblock_size, tblock_size);
  check_same_layout(sblock, tblock, (size_t)((const unsigned char *)psoc_stream_data(s) - sblock),
                    sblock_size);
  check_padding_zero(sblock, sblock_size, psoc_stream_data(s), psoc_stream_size(s));
  psoc_stream_free(s);
  psoc_stream_free(t);
  psoc_builder_free(b);
  psoc_builder_free(fresh);
  ck_assert_uint_eq(ta.outstanding, 0);
  ck_assert_uint_eq(tb.outstanding, 0);
  ck_assert_uint_eq(ta.bad_osize, 0);
}
END_TEST

/* A builder reused without reset, members replaced over and over: the
** memory it holds stays bounded by what it holds live. */
START_TEST(test_set_memory_is_bounded) {
  static unsigned char big[4096];
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  psoc_stream *s;
  payload p, vs;
  size_t i, peak = 0;
  psoc_parsed parsed;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &p, sample_payload(PSOC_SO_INPUT_LAYOUT, &p)),
                   PSOC_OK);
  sample_payload(PSOC_SO_VS, &vs);
  for (i = 0; i < 2000; i++) {
    vs.bc.pShaderBytecode = big;
    vs.bc.BytecodeLength = 1 + (i * 37) % sizeof big;
    big[i % sizeof big] = (unsigned char)i;
    ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_VS, &vs, sizeof vs.bc), PSOC_OK);
    ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_STREAM_OUTPUT, &p, sample_payload(PSOC_SO_STREAM_OUTPUT, &p)),
                     PSOC_OK);
    if (ta.outstanding > peak) peak = ta.outstanding;
  }
  /* live data is under 5 KB; 2000 replacements would be megabytes */
  ck_assert_uint_lt(peak, 64 * 1024);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  ck_assert_int_eq(psoc_parse(psoc_stream_data(s), psoc_stream_size(s), &parsed, NULL), PSOC_OK);
  ck_assert_uint_eq(parsed.count, 3);
  check_same_payload(PSOC_SO_VS, &vs, parsed.views[PSOC_SO_VS].payload);
  sample_payload(PSOC_SO_INPUT_LAYOUT, &p);
  check_same_payload(PSOC_SO_INPUT_LAYOUT, &p, parsed.views[PSOC_SO_INPUT_LAYOUT].payload);
  sample_payload(PSOC_SO_STREAM_OUTPUT, &p);
  check_same_payload(PSOC_SO_STREAM_OUTPUT, &p, parsed.views[PSOC_SO_STREAM_OUTPUT].payload);
  check_padding_zero(ta.last, ta.last_size, psoc_stream_data(s), psoc_stream_size(s));
  psoc_stream_free(s);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
  ck_assert_uint_eq(ta.bad_osize, 0);
}
END_TEST

/* One scenario under allocation failures. Each step that fails with
** PSOC_ERR_NOMEM must leave things as they were; with 'retry' the step is
** tried again (the allocator fails once) and the result must match. */
typedef struct scenario_result {
  int failures;
  size_t calls;
  unsigned char stream[2048];
  size_t size;
} scenario_result;

#define STEP(expr, retry, res, ok)                       \
  do {                                                   \
    psoc_status st_ = (expr);                            \
    if (st_ == PSOC_ERR_NOMEM) {                         \
      (res)->failures++;                                 \
      if (!(retry)) { ok = 0; break; }                   \
      st_ = (expr);                                      \
    }                                                    \
    ck_assert_int_eq(st_, PSOC_OK);                      \
  } while (0)

static void run_scenario(test_alloc *ta, psoc_allocator *a, int retry, scenario_result *res) {
  psoc_builder *b = NULL;
  psoc_stream *s = NULL, *c = NULL;
  payload p;
  int ok = 1;
  size_t before;
  memset(res, 0, sizeof *res);
  STEP(psoc_builder_new(a, &b), retry, res, ok);
  if (ok) {
    static const uint32_t types[] = { PSOC_SO_VS, PSOC_SO_INPUT_LAYOUT, PSOC_SO_STREAM_OUTPUT,
                                      PSOC_SO_BLEND, PSOC_SO_DEPTH_STENCIL, PSOC_SO_VIEW_INSTANCING,
                                      PSOC_SO_CACHED_PSO };
    size_t i;
    for (i = 0; ok && i < sizeof types / sizeof types[0]; i++) {
      before = psoc_builder_count(b);
      {
        psoc_status st = psoc_builder_add(b, types[i], &p, sample_payload(types[i], &p));
        if (st == PSOC_ERR_NOMEM) {
          res->failures++;
          ck_assert_uint_eq(psoc_builder_count(b), before);
          if (!retry) { ok = 0; break; }
          st = psoc_builder_add(b, types[i], &p, sample_payload(types[i], &p));
        }
        ck_assert_int_eq(st, PSOC_OK);
      }
    }
    if (ok) {
      psoc_status st = psoc_builder_set(b, PSOC_SO_DEPTH_STENCIL2, &p,
                                        sample_payload(PSOC_SO_DEPTH_STENCIL2, &p));
      if (st == PSOC_ERR_NOMEM) {
        res->failures++;
        ck_assert_uint_eq(psoc_builder_count(b), 7);
        if (!retry) ok = 0;
        else st = psoc_builder_set(b, PSOC_SO_DEPTH_STENCIL2, &p,
                                   sample_payload(PSOC_SO_DEPTH_STENCIL2, &p));
      }
      if (ok) ck_assert_int_eq(st, PSOC_OK);
    }
    if (ok) STEP(psoc_builder_finish(b, &s), retry, res, ok);
    if (ok) STEP(psoc_stream_copy(s, a, &c), retry, res, ok);
    if (ok) {
      psoc_parsed parsed;
      uint32_t t;
      ck_assert_uint_le(psoc_stream_size(c), sizeof res->stream);
      res->size = psoc_stream_size(c);
      ck_assert_int_eq(psoc_parse(psoc_stream_data(c), psoc_stream_size(c), &parsed, NULL), PSOC_OK);
      ck_assert_uint_eq(parsed.count, 7);
      for (t = 0; t < PSOC_SO_TYPE_COUNT; t++)
        if (parsed.has[t]) {
          sample_payload(t, &p);
          check_same_payload(t, &p, parsed.views[t].payload);
        }
    }
  }
  psoc_stream_free(c);
  psoc_stream_free(s);
  psoc_builder_free(b);
  res->calls = ta->calls;
  ck_assert_uint_eq(ta->outstanding, 0);
  ck_assert_uint_eq(ta->blocks, 0);
  ck_assert_uint_eq(ta->bad_osize, 0);
}

START_TEST(test_allocation_failures) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  scenario_result clean, res;
  size_t n;
  run_scenario(&ta, &a, 0, &clean);
  ck_assert_int_eq(clean.failures, 0);
  ck_assert_uint_ge(clean.calls, 10);
  for (n = 1; n <= clean.calls; n++) {
    /* fail once at n, retry the step */
    a = ta_make(&ta);
    ta.fail_at = n;
    run_scenario(&ta, &a, 1, &res);
    ck_assert_int_eq(res.failures, 1);
    ck_assert_uint_eq(res.size, clean.size);
    /* fail at n and ever after: give up at the first failure */
    a = ta_make(&ta);
    ta.fail_at = n;
    ta.fail_after = 1;
    run_scenario(&ta, &a, 0, &res);
    ck_assert_int_eq(res.failures, 1);
  }
  /* one past the last allocation: nothing fails */
  a = ta_make(&ta);
  ta.fail_at = clean.calls + 1;
  run_scenario(&ta, &a, 0, &res);
  ck_assert_int_eq(res.failures, 0);
}
END_TEST

/* ---- modes and finishing into caller memory ------------------------ */

/* Every class once (ascending types, the base type of each class) in
** 'mode'; returns the finished block (ta->last) and its size. */
static psoc_stream *build_all(psoc_builder *b, psoc_builder_mode mode) {
  psoc_stream *s;
  payload p;
  uint32_t type;
  psoc_builder_reset(b);
  ck_assert_int_eq(psoc_builder_set_mode(b, mode), PSOC_OK);
  for (type = 0; type < PSOC_SO_TYPE_COUNT; type++)
    if (is_type(type) && psoc_subobject_info_get(type)->dup_class == type)
      ck_assert_int_eq(psoc_builder_add(b, type, &p, sample_payload(type, &p)), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  return s;
}

/* COPY_AT_FINISH copies each byte once at finish and gives the very block
** COPY gives (pointers relocated into it), padding zero. */
START_TEST(test_copy_at_finish_matches_copy) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  psoc_stream *s1, *s2;
  unsigned char *b1, *b2;
  size_t n1, n2;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  s1 = build_all(b, PSOC_BUILDER_COPY);
  b1 = ta.last;
  n1 = ta.last_size;
  s2 = build_all(b, PSOC_BUILDER_COPY_AT_FINISH);
  b2 = ta.last;
  n2 = ta.last_size;
  ck_assert_uint_eq(n1, n2);
  ck_assert_uint_eq(psoc_stream_footprint(s2), n2);
  ck_assert_uint_gt(n1, psoc_stream_size(s1) + 64); /* the out-of-line data is in the block */
  check_same_layout(b1, b2, 0, n1);
  check_padding_zero(b2, n2, psoc_stream_data(s2), psoc_stream_size(s2));
  psoc_stream_free(s1);
  psoc_stream_free(s2);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
  ck_assert_uint_eq(ta.bad_osize, 0);
}
END_TEST

/* COPY_AT_FINISH reads the caller's data at finish: data that changed
** size since add fails cleanly instead of overrunning the block. */
START_TEST(test_copy_at_finish_detects_changed_data) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  psoc_stream *s = NULL;
  char name[32] = "POS";
  D3D12_INPUT_ELEMENT_DESC e = sample_elements[0];
  D3D12_INPUT_LAYOUT_DESC il;
  e.SemanticName = name;
  il.pInputElementDescs = &e;
  il.NumElements = 1;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_set_mode(b, PSOC_BUILDER_COPY_AT_FINISH), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
  strcpy(name, "POSITION_AND_MORE"); /* a longer piece than measured */
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_ERR_ARG);
  ck_assert_ptr_null(s);
  strcpy(name, "P"); /* a shorter one: the stream's size would be wrong */
  name[1] = '\0';
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK); /* same 8-byte piece as "POS" */
  psoc_stream_free(s);
  strcpy(name, "POSITION"); /* 9 bytes: two pieces of 8 */
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_ERR_ARG);
  strcpy(name, "POS");
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  {
    const unsigned char *d = psoc_stream_data(s);
    D3D12_INPUT_LAYOUT_DESC got;
    memcpy(&got, d + 8, sizeof got);
    ck_assert_ptr_ne(got.pInputElementDescs, &e);
    ck_assert_str_eq(got.pInputElementDescs[0].SemanticName, "POS");
    ck_assert_ptr_ne(got.pInputElementDescs[0].SemanticName, name);
  }
  psoc_stream_free(s);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* BORROW copies nothing: the stream points at the caller's arrays and its
** block is only the stream; NULL arrays with a count are still refused. */
START_TEST(test_borrow_keeps_pointers) {
  psoc_builder *b;
  psoc_stream *s;
  psoc_parsed parsed;
  D3D12_SHADER_BYTECODE vs = { code_a, sizeof code_a }, bad = { NULL, 4 };
  D3D12_INPUT_LAYOUT_DESC il = { sample_elements, 3 };
  D3D12_SHADER_BYTECODE got;
  D3D12_INPUT_LAYOUT_DESC got_il;
  size_t borrowed;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_set_mode(b, PSOC_BUILDER_BORROW), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &bad, sizeof bad), PSOC_ERR_ARG);
  ck_assert_uint_eq(psoc_builder_count(b), 2);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  borrowed = psoc_stream_footprint(s);
  ck_assert_uint_eq(borrowed, psoc_builder_finish_size(b));
  ck_assert_uint_le(borrowed, psoc_stream_size(s) + 64); /* the header only */
  ck_assert_int_eq(psoc_parse(psoc_stream_data(s), psoc_stream_size(s), &parsed, NULL), PSOC_OK);
  memcpy(&got, parsed.views[PSOC_SO_VS].payload, sizeof got);
  memcpy(&got_il, parsed.views[PSOC_SO_INPUT_LAYOUT].payload, sizeof got_il);
  ck_assert_ptr_eq(got.pShaderBytecode, code_a);
  ck_assert_ptr_eq(got_il.pInputElementDescs, sample_elements);
  psoc_stream_free(s);
  /* the same adds in the default mode copy: a bigger block, other pointers */
  psoc_builder_reset(b);
  ck_assert_int_eq(psoc_builder_set_mode(b, PSOC_BUILDER_COPY), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  ck_assert_uint_gt(psoc_stream_footprint(s), borrowed);
  memcpy(&got, (const unsigned char *)psoc_stream_data(s) + 8, sizeof got);
  ck_assert_ptr_ne(got.pShaderBytecode, code_a);
  psoc_stream_free(s);
  ck_assert_int_eq(psoc_builder_set_mode(b, (psoc_builder_mode)7), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_builder_set_mode(NULL, PSOC_BUILDER_COPY), PSOC_ERR_ARG);
  psoc_builder_free(b);
}
END_TEST

/* Entries of every mode in one stream, with a set replacing a copied
** entry by a deferred one. */
START_TEST(test_mixed_modes) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  psoc_stream *s;
  D3D12_SHADER_BYTECODE vs = { code_a, sizeof code_a }, ps = { code_b, sizeof code_b };
  D3D12_INPUT_LAYOUT_DESC il = { sample_elements, 3 };
  D3D12_SHADER_BYTECODE got;
  unsigned char *b1;
  size_t n1;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &ps, sizeof ps), PSOC_OK); /* replaced below */
  ck_assert_int_eq(psoc_builder_set_mode(b, PSOC_BUILDER_BORROW), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &ps, sizeof ps), PSOC_OK);
  ck_assert_int_eq(psoc_builder_set_mode(b, PSOC_BUILDER_COPY_AT_FINISH), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
  ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
  b1 = ta.last;
  n1 = ta.last_size;
  memcpy(&got, (const unsigned char *)psoc_stream_data(s) + 8 + 24, sizeof got); /* PS */
  ck_assert_ptr_eq(got.pShaderBytecode, code_b);
  /* against all copied, with the borrowed PS as the one pointer outside */
  psoc_builder_reset(b);
  ck_assert_int_eq(psoc_builder_set_mode(b, PSOC_BUILDER_COPY), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_set_mode(b, PSOC_BUILDER_BORROW), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &ps, sizeof ps), PSOC_OK);
  ck_assert_int_eq(psoc_builder_set_mode(b, PSOC_BUILDER_COPY), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
  check_finish_same(b, &ta, b1, n1);
  psoc_stream_free(s);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* Plans made in one mode serve every later mode: the same builder, after a
** reset, borrows, copies at add and copies at finish the types whose plans
** were made in another mode (a mode change updates add's inline table for
** the types already planned). COPY copies at add: bytes changed between
** add and finish must not reach the stream. */
START_TEST(test_mode_switch_reuses_plans) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  psoc_stream *s;
  unsigned char code[sizeof code_a];
  D3D12_SHADER_BYTECODE vs = { code, sizeof code }, ps = { code_b, sizeof code_b };
  D3D12_SHADER_BYTECODE got;
  static const psoc_builder_mode modes[] = { PSOC_BUILDER_BORROW, PSOC_BUILDER_COPY,
                                             PSOC_BUILDER_COPY_AT_FINISH, PSOC_BUILDER_BORROW,
                                             PSOC_BUILDER_COPY };
  size_t round;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  for (round = 0; round < sizeof modes / sizeof modes[0]; round++) {
    psoc_builder_mode m = modes[round];
    memcpy(code, code_a, sizeof code);
    psoc_builder_reset(b);
    ck_assert_int_eq(psoc_builder_set_mode(b, m), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
    ck_assert_int_eq(psoc_builder_set_mode(b, m == PSOC_BUILDER_BORROW ? PSOC_BUILDER_COPY
                                                                       : PSOC_BUILDER_BORROW),
                     PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &ps, sizeof ps), PSOC_OK);
    if (m == PSOC_BUILDER_COPY) code[0] ^= 0xff; /* after add: COPY has its bytes already */
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
    memcpy(&got, (const unsigned char *)psoc_stream_data(s) + 8, sizeof got); /* VS */
    if (m == PSOC_BUILDER_BORROW) ck_assert_ptr_eq(got.pShaderBytecode, code);
    else ck_assert_ptr_ne(got.pShaderBytecode, code);
    ck_assert_mem_eq(got.pShaderBytecode, code_a, sizeof code_a);
    memcpy(&got, (const unsigned char *)psoc_stream_data(s) + 8 + 24, sizeof got); /* PS */
    if (m == PSOC_BUILDER_BORROW) ck_assert_ptr_ne(got.pShaderBytecode, code_b);
    else ck_assert_ptr_eq(got.pShaderBytecode, code_b);
    ck_assert_mem_eq(got.pShaderBytecode, code_b, sizeof code_b);
    psoc_stream_free(s);
  }
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* finish_into writes finish's block into caller memory: the size on
** request, nothing written when too small, psoc_stream_free a no-op. */
START_TEST(test_finish_into) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  psoc_stream *s, *in, *copy;
  unsigned char *block, *mem;
  size_t n, needed = 0, i, blocks, header;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  s = build_all(b, PSOC_BUILDER_COPY);
  block = ta.last;
  n = ta.last_size;
  ck_assert_uint_eq(psoc_builder_finish_size(b), n);
  ck_assert_int_eq(psoc_builder_finish_into(b, NULL, 0, &needed, &in), PSOC_ERR_SIZE);
  ck_assert_uint_eq(needed, n);
  ck_assert_ptr_null(in);
  mem = malloc(n + 16); /* aligned for any object, a pointer included */
  ck_assert_ptr_nonnull(mem);
  memset(mem, 0x5a, n + 16);
  needed = 0;
  ck_assert_int_eq(psoc_builder_finish_into(b, mem, n - 8, &needed, &in), PSOC_ERR_SIZE);
  ck_assert_uint_eq(needed, n);
  for (i = 0; i < n + 16; i++) ck_assert_uint_eq(mem[i], 0x5a);
  ck_assert_int_eq(psoc_builder_finish_into(b, mem + 4, n, NULL, &in), PSOC_ERR_ARG);
  blocks = ta.blocks;
  ck_assert_int_eq(psoc_builder_finish_into(b, mem, n, NULL, &in), PSOC_OK);
  ck_assert_ptr_eq(in, mem);
  ck_assert_uint_eq(ta.blocks, blocks); /* nothing allocated */
  ck_assert_uint_eq(psoc_stream_size(in), psoc_stream_size(s));
  ck_assert_uint_eq(psoc_stream_footprint(in), n);
  /* the same bytes from the stream on (the headers name other allocators) */
  header = (size_t)((const unsigned char *)psoc_stream_data(s) - block);
  ck_assert_ptr_eq(psoc_stream_data(in), mem + header);
  check_same_layout(block, mem, header, n);
  for (i = n; i < n + 16; i++) ck_assert_uint_eq(mem[i], 0x5a); /* nothing past the block */
  ck_assert_int_eq(psoc_stream_copy(in, &a, &copy), PSOC_OK);
  check_same_layout(mem, ta.last, header, n);
  psoc_stream_free(copy);
  psoc_stream_free(in); /* releases nothing */
  ck_assert_uint_eq(ta.blocks, blocks);
  /* the same for a deferred stream */
  psoc_stream_free(s);
  s = build_all(b, PSOC_BUILDER_COPY_AT_FINISH);
  block = ta.last;
  ck_assert_int_eq(psoc_builder_finish_into(b, mem, n, NULL, &in), PSOC_OK);
  check_same_layout(block, mem, header, n);
  psoc_stream_free(s);
  free(mem);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* ---- every mode: add's inline path, padding, finish_into ---------- */

static const psoc_builder_mode all_modes[3] = { PSOC_BUILDER_COPY, PSOC_BUILDER_COPY_AT_FINISH,
                                                PSOC_BUILDER_BORROW };

/* Mark the bytes of the fields of 's' placed at mask[at..] (pointers as
** pointers, nothing followed). */
static void mark_inline_fields(const psoc_struct *s, size_t at, unsigned char *mask) {
  uint32_t i, j;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    switch (f->kind) {
    case PSOC_FIELD_STRUCT: mark_inline_fields(f->element, at + f->offset, mask); break;
    case PSOC_FIELD_FIXED:
      for (j = 0; j < f->count; j++) {
        if (f->element)
          mark_inline_fields(f->element, at + f->offset + j * f->stride, mask);
        else
          memset(mask + at + f->offset + j * f->stride, 1, f->size);
      }
      break;
    case PSOC_FIELD_ARRAY:
    case PSOC_FIELD_BLOB:
    case PSOC_FIELD_STRING: memset(mask + at + f->offset, 1, sizeof(void *)); break;
    default: memset(mask + at + f->offset, 1, f->size); break;
    }
  }
}

/* 'type's sample payload with every byte that is not a field (the padding
** inside the struct: blend's after each RenderTargetWriteMask, the input
** layout's after NumElements, ...) set to 0xCD. Returns its size. */
static size_t dirty_payload(uint32_t type, payload *p) {
  unsigned char mask[sizeof(payload)];
  size_t size = sample_payload(type, p), i;
  memset(mask, 0, sizeof mask);
  mark_inline_fields(psoc_subobject_info_get(type)->payload, 0, mask);
  for (i = 0; i < size; i++)
    if (!mask[i]) p->bytes[i] = 0xCD;
  return size;
}

/* Every byte of the stream that is neither a type nor a field is zero
** (pointers are not followed: borrowed ones point at the caller). */
static void check_stream_padding_zero(const unsigned char *data, size_t size) {
  unsigned char *mask = calloc(size, 1);
  size_t off = 0, i;
  ck_assert_ptr_nonnull(mask);
  while (off < size) {
    uint32_t type;
    const psoc_subobject_info *info;
    memcpy(&type, data + off, 4);
    info = psoc_subobject_info_get(type);
    ck_assert_ptr_nonnull(info);
    memset(mask + off, 1, 4);
    mark_inline_fields(info->payload, off + info->payload_offset, mask);
    off += info->stride;
  }
  for (i = 0; i < size; i++)
    ck_assert_msg(mask[i] || data[i] == 0, "padding byte at stream offset %zu is 0x%02x", i, data[i]);
  free(mask);
}

/* The padding inside every payload is garbage: every mode writes zeros
** there, in finish and in finish_into. */
START_TEST(test_padding_is_zero_every_mode) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  int m;
  ta.poison = 1;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  for (m = 0; m < 3; m++) {
    psoc_stream *s, *in;
    uint32_t type;
    size_t n;
    unsigned char *mem;
    psoc_builder_reset(b);
    ck_assert_int_eq(psoc_builder_set_mode(b, all_modes[m]), PSOC_OK);
    for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
      payload p;
      size_t size;
      if (!is_type(type) || psoc_subobject_info_get(type)->dup_class != type) continue;
      size = dirty_payload(type, &p);
      ck_assert_int_eq(psoc_builder_add(b, type, &p, size), PSOC_OK);
    }
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
    check_stream_padding_zero(psoc_stream_data(s), psoc_stream_size(s));
    if (all_modes[m] != PSOC_BUILDER_BORROW)
      check_padding_zero(ta.last, ta.last_size, psoc_stream_data(s), psoc_stream_size(s));
    n = psoc_builder_finish_size(b);
    mem = malloc(n);
    ck_assert_ptr_nonnull(mem);
    memset(mem, 0xEE, n);
    ck_assert_int_eq(psoc_builder_finish_into(b, mem, n, NULL, &in), PSOC_OK);
    check_stream_padding_zero(psoc_stream_data(in), psoc_stream_size(in));
    if (all_modes[m] != PSOC_BUILDER_BORROW)
      check_padding_zero(mem, n, psoc_stream_data(in), psoc_stream_size(in));
    free(mem);
    psoc_stream_free(s);
  }
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* add takes an inline path for the common case, set always the general
** one: in every mode both give the same block, padding garbage included. */
/* Reset 'b' and add (set: set) one dirty payload of every class's first
** type in 'mode'. */
static void fill_every_class(psoc_builder *b, psoc_builder_mode mode, int set) {
  uint32_t type;
  psoc_builder_reset(b);
  ck_assert_int_eq(psoc_builder_set_mode(b, mode), PSOC_OK);
  for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
    payload p;
    size_t n;
    if (!is_type(type) || psoc_subobject_info_get(type)->dup_class != type) continue;
    n = dirty_payload(type, &p);
    if (!set)
      ck_assert_int_eq(psoc_builder_add(b, type, &p, n), PSOC_OK);
    else
      ck_assert_int_eq(psoc_builder_set(b, type, &p, n), PSOC_OK);
  }
}

START_TEST(test_add_matches_set_every_mode) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  int m, pass;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  for (m = 0; m < 3; m++) {
    psoc_stream *s[2];
    unsigned char *block[2];
    size_t size[2];
    for (pass = 0; pass < 2; pass++) {
      fill_every_class(b, all_modes[m], pass);
      ck_assert_int_eq(psoc_builder_finish(b, &s[pass]), PSOC_OK);
      block[pass] = ta.last;
      size[pass] = ta.last_size;
    }
    ck_assert_uint_eq(size[0], size[1]);
    check_same_layout(block[0], block[1], 0, size[0]);
    psoc_stream_free(s[0]);
    psoc_stream_free(s[1]);
  }
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* The payload's one pointer is a blob (shaders, cached PSO, serialized
** root signature): the types PSOC_BUILDER_BORROW_BLOBS borrows. */
static int blob_only_type(uint32_t type) {
  const psoc_struct *s = psoc_subobject_info_get(type)->payload;
  uint32_t i;
  int blobs = 0, others = 0;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    if (f->kind == PSOC_FIELD_BLOB) blobs++;
    if (f->kind == PSOC_FIELD_ARRAY || f->kind == PSOC_FIELD_STRING) others++;
    if ((f->kind == PSOC_FIELD_STRUCT || f->kind == PSOC_FIELD_FIXED) && f->element) {
      uint32_t j;
      for (j = 0; j < f->element->field_count; j++)
        if (f->element->fields[j].kind == PSOC_FIELD_ARRAY ||
            f->element->fields[j].kind == PSOC_FIELD_BLOB ||
            f->element->fields[j].kind == PSOC_FIELD_STRING)
          others++;
    }
  }
  return blobs == 1 && !others;
}

/* PSOC_BUILDER_BORROW_BLOBS is BORROW for the blob-only types and
** COPY_AT_FINISH for the others: a stream of every class (add and set,
** finish and finish_into) is the one those two modes give type by type,
** its blobs are the caller's and its padding is zero. */
START_TEST(test_borrow_blobs_is_per_type) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  int pass, borrowed = 0, copied = 0;
  ta.poison = 1;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  for (pass = 0; pass < 2; pass++) {
    psoc_stream *s, *ref, *in;
    unsigned char *block, *mem;
    size_t size, n;
    uint32_t type;
    fill_every_class(b, PSOC_BUILDER_BORROW_BLOBS, pass);
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
    block = ta.last;
    size = ta.last_size;
    check_stream_padding_zero(psoc_stream_data(s), psoc_stream_size(s));
    n = psoc_builder_finish_size(b);
    mem = malloc(n);
    ck_assert_ptr_nonnull(mem);
    ck_assert_int_eq(psoc_builder_finish_into(b, mem, n, NULL, &in), PSOC_OK);
    ck_assert_uint_eq(psoc_stream_size(in), psoc_stream_size(s));
    psoc_builder_reset(b);
    for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
      payload p;
      size_t len;
      if (!is_type(type) || psoc_subobject_info_get(type)->dup_class != type) continue;
      if (blob_only_type(type))
        borrowed++;
      else
        copied++;
      ck_assert_int_eq(psoc_builder_set_mode(b, blob_only_type(type) ? PSOC_BUILDER_BORROW
                                                                     : PSOC_BUILDER_COPY_AT_FINISH),
                       PSOC_OK);
      len = dirty_payload(type, &p);
      if (!pass)
        ck_assert_int_eq(psoc_builder_add(b, type, &p, len), PSOC_OK);
      else
        ck_assert_int_eq(psoc_builder_set(b, type, &p, len), PSOC_OK);
    }
    ck_assert_int_eq(psoc_builder_finish(b, &ref), PSOC_OK);
    ck_assert_uint_eq(ta.last_size, size);
    check_same_layout(block, ta.last, 0, size);
    ck_assert_uint_eq(psoc_builder_finish_size(b), n);
    {
      psoc_parsed parsed;
      D3D12_SHADER_BYTECODE vs, want;
      payload p;
      ck_assert_int_eq(psoc_parse(psoc_stream_data(in), psoc_stream_size(in), &parsed, NULL),
                       PSOC_OK);
      memcpy(&vs, parsed.views[PSOC_SO_VS].payload, sizeof vs);
      sample_payload(PSOC_SO_VS, &p);
      memcpy(&want, p.bytes, sizeof want);
      ck_assert_ptr_eq(vs.pShaderBytecode, want.pShaderBytecode); /* borrowed */
    }
    free(mem);
    psoc_stream_free(s);
    psoc_stream_free(ref);
  }
  ck_assert_int_gt(borrowed, 0);
  ck_assert_int_gt(copied, 0);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* A blob in each mode: NULL with a size is refused at add, NULL with none
** stays NULL, an empty non-NULL blob gets its own (8-byte) piece; the
** self-contained modes give the same block. */
START_TEST(test_blob_edges_every_mode) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  D3D12_SHADER_BYTECODE bad = { NULL, 4 }, none = { NULL, 0 }, empty = { code_a, 0 };
  D3D12_SHADER_BYTECODE vs = { code_a, sizeof code_a }, got;
  unsigned char *block[3] = { NULL, NULL, NULL };
  size_t size[3] = { 0, 0, 0 };
  psoc_stream *s[3];
  int m;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  for (m = 0; m < 3; m++) {
    const unsigned char *d;
    psoc_builder_reset(b);
    ck_assert_int_eq(psoc_builder_set_mode(b, all_modes[m]), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &bad, sizeof bad), PSOC_ERR_ARG);
    ck_assert_uint_eq(psoc_builder_count(b), 0);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &none, sizeof none), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_GS, &empty, sizeof empty), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_ERR_DUPLICATE);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs - 1), PSOC_ERR_SIZE);
    ck_assert_uint_eq(psoc_builder_count(b), 3);
    ck_assert_int_eq(psoc_builder_finish(b, &s[m]), PSOC_OK);
    block[m] = ta.last;
    size[m] = ta.last_size;
    ck_assert_uint_eq(size[m], psoc_builder_finish_size(b));
    d = psoc_stream_data(s[m]);
    memcpy(&got, d + 8, sizeof got); /* PS */
    ck_assert_ptr_null(got.pShaderBytecode);
    ck_assert_uint_eq(got.BytecodeLength, 0);
    memcpy(&got, d + 24 + 8, sizeof got); /* GS */
    ck_assert_uint_eq(got.BytecodeLength, 0);
    ck_assert_ptr_nonnull(got.pShaderBytecode);
    if (all_modes[m] == PSOC_BUILDER_BORROW) {
      ck_assert_ptr_eq(got.pShaderBytecode, code_a);
      ck_assert_uint_eq(size[m], psoc_builder_finish_size(b));
    } else {
      ck_assert_ptr_ne(got.pShaderBytecode, code_a);
      ck_assert((const unsigned char *)got.pShaderBytecode > d);
      ck_assert((const unsigned char *)got.pShaderBytecode < block[m] + size[m]);
    }
    memcpy(&got, d + 48 + 8, sizeof got); /* VS */
    ck_assert_uint_eq(got.BytecodeLength, sizeof code_a);
    ck_assert_mem_eq(got.pShaderBytecode, code_a, sizeof code_a);
  }
  ck_assert_uint_eq(size[0], size[1]); /* COPY, COPY_AT_FINISH */
  check_same_layout(block[0], block[1], 0, size[0]);
  ck_assert_uint_eq(size[2] + 8 + ((sizeof code_a + 7) & ~(size_t)7), size[0]); /* BORROW: no pieces */
  for (m = 0; m < 3; m++) psoc_stream_free(s[m]);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* finish_into in every mode (and all mixed): the size finish would take
** is reported, a buffer one byte short gets PSOC_ERR_SIZE and is not
** touched, the exact size works (the same bytes as finish), memory that
** is not pointer-aligned is refused (PSOC_ERR_ARG) while any pointer-
** aligned address works. */
START_TEST(test_finish_into_every_mode) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  int m;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  for (m = 0; m < 4; m++) {
    psoc_stream *s, *in = NULL;
    unsigned char *block, *raw, *mem;
    size_t n, needed = 0, header, i, k = 0;
    uint32_t type;
    psoc_builder_reset(b);
    ck_assert_int_eq(psoc_builder_set_mode(b, all_modes[m % 3]), PSOC_OK);
    for (type = 0; type < PSOC_SO_TYPE_COUNT; type++) {
      payload p;
      size_t size;
      if (!is_type(type) || psoc_subobject_info_get(type)->dup_class != type) continue;
      if (m == 3) ck_assert_int_eq(psoc_builder_set_mode(b, all_modes[k++ % 3]), PSOC_OK);
      size = sample_payload(type, &p);
      ck_assert_int_eq(psoc_builder_add(b, type, &p, size), PSOC_OK);
    }
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
    block = ta.last;
    n = ta.last_size;
    ck_assert_uint_eq(psoc_builder_finish_size(b), n);
    raw = malloc(n + 24);
    ck_assert_ptr_nonnull(raw);
    memset(raw, 0x5a, n + 24);
    mem = raw + 8;
    ck_assert_int_eq(psoc_builder_finish_into(b, mem, n - 1, &needed, &in), PSOC_ERR_SIZE);
    ck_assert_uint_eq(needed, n);
    ck_assert_ptr_null(in);
    for (i = 0; i < n + 24; i++) ck_assert_uint_eq(raw[i], 0x5a);
    ck_assert_int_eq(psoc_builder_finish_into(b, raw + 1, n, NULL, &in), PSOC_ERR_ARG);
    ck_assert_int_eq(psoc_builder_finish_into(b, raw + 4, n, NULL, &in), PSOC_ERR_ARG);
    for (i = 0; i < n + 24; i++) ck_assert_uint_eq(raw[i], 0x5a);
    needed = 0;
    ck_assert_int_eq(psoc_builder_finish_into(b, mem, n, &needed, &in), PSOC_OK);
    ck_assert_uint_eq(needed, n);
    ck_assert_ptr_eq(in, mem);
    ck_assert_uint_eq(psoc_stream_footprint(in), n);
    header = (size_t)((const unsigned char *)psoc_stream_data(s) - block);
    check_same_layout(block, mem, header, n);
    for (i = 0; i < 8; i++) ck_assert_uint_eq(raw[i], 0x5a);        /* nothing before */
    for (i = n + 8; i < n + 24; i++) ck_assert_uint_eq(raw[i], 0x5a); /* nor after */
    ck_assert_int_eq(psoc_check(psoc_stream_data(in), psoc_stream_size(in), NULL, NULL) ==
                         psoc_check(psoc_stream_data(s), psoc_stream_size(s), NULL, NULL),
                     1);
    { /* a copy of the stream in caller memory: one block, pointers into
      ** it relocated, borrowed ones kept */
      psoc_stream *c;
      size_t blocks = ta.blocks;
      ck_assert_int_eq(psoc_stream_copy(in, &a, &c), PSOC_OK);
      ck_assert_uint_eq(ta.blocks, blocks + 1);
      ck_assert_uint_eq(ta.last_size, n);
      check_same_layout(mem, ta.last, header, n);
      psoc_stream_free(c);
    }
    psoc_stream_free(in); /* releases nothing */
    psoc_stream_free(s);
    free(raw);
  }
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* A builder that has seen an input layout takes add's inline path for it
** in COPY_AT_FINISH mode (one array of structs with only strings out of
** line): the same checks and the same block as the general path and as
** COPY, and finish still notices names that changed size since add. */
START_TEST(test_copy_at_finish_inline_array) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b, *r;
  psoc_stream *s = NULL, *ref = NULL;
  char name[32] = "POS";
  D3D12_INPUT_ELEMENT_DESC e[3];
  D3D12_INPUT_LAYOUT_DESC il, bad = { NULL, 2 }, none = { NULL, 0 }, got;
  unsigned char *b1, *b2;
  size_t n1, n2;
  int pass;
  memcpy(e, sample_elements, sizeof e);
  e[0].SemanticName = name;
  e[1].SemanticName = NULL; /* stays NULL, takes no piece */
  il.pInputElementDescs = e;
  il.NumElements = 3;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_new(&a, &r), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(r, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK); /* COPY */
  ck_assert_int_eq(psoc_builder_finish(r, &ref), PSOC_OK);
  b1 = ta.last;
  n1 = ta.last_size;
  ck_assert_int_eq(psoc_builder_set_mode(b, PSOC_BUILDER_COPY_AT_FINISH), PSOC_OK);
  for (pass = 0; pass < 2; pass++) { /* pass 0: the type's first add (general path); 1: inline */
    psoc_builder_reset(b);
    if (pass == 1) {
      ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &bad, sizeof bad), PSOC_ERR_ARG);
      ck_assert_uint_eq(psoc_builder_count(b), 0);
    }
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_ERR_DUPLICATE);
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
    b2 = ta.last;
    n2 = ta.last_size;
    ck_assert_uint_eq(n1, n2);
    ck_assert_uint_eq(n2, psoc_builder_finish_size(b));
    check_same_layout(b1, b2, 0, n1);
    check_padding_zero(b2, n2, psoc_stream_data(s), psoc_stream_size(s));
    memcpy(&got, (const unsigned char *)psoc_stream_data(s) + 8, sizeof got);
    ck_assert_ptr_ne(got.pInputElementDescs, e);
    ck_assert_str_eq(got.pInputElementDescs[0].SemanticName, "POS");
    ck_assert_ptr_ne(got.pInputElementDescs[0].SemanticName, name);
    ck_assert_ptr_null(got.pInputElementDescs[1].SemanticName);
    ck_assert_str_eq(got.pInputElementDescs[2].SemanticName, "TEXCOORD");
    psoc_stream_free(s);
    s = NULL;
    strcpy(name, "POSITION_AND_MORE"); /* longer than measured */
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_ERR_ARG);
    ck_assert_ptr_null(s);
    strcpy(name, "POSITION"); /* 9 bytes: two pieces of 8 */
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_ERR_ARG);
    e[1].SemanticName = "N"; /* a name where there was none */
    strcpy(name, "POS");
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_ERR_ARG);
    e[1].SemanticName = NULL;
    e[2].SemanticName = NULL; /* one name fewer: the pieces would not fill the block */
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_ERR_ARG);
    e[2].SemanticName = sample_elements[2].SemanticName;
    strcpy(name, "P"); /* shorter, the same piece */
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
    psoc_stream_free(s);
    strcpy(name, "POS");
    /* a NULL array without elements stays NULL and takes no piece */
    psoc_builder_reset(b);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &none, sizeof none), PSOC_OK);
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
    ck_assert_uint_eq(psoc_stream_footprint(s), psoc_builder_finish_size(b));
    ck_assert_uint_le(psoc_stream_footprint(s), psoc_stream_size(s) + 64); /* the header only */
    memcpy(&got, (const unsigned char *)psoc_stream_data(s) + 8, sizeof got);
    ck_assert_ptr_null(got.pInputElementDescs);
    psoc_stream_free(s);
    s = NULL;
  }
  psoc_stream_free(ref);
  psoc_builder_free(r);
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* A set that gives an entry pieces where it had none (or takes them
** away) in every mode: finish copies and relocates exactly the entries
** that have pieces, as a fresh build of the same members does. */
START_TEST(test_set_changes_pieces_every_mode) {
  test_alloc ta;
  psoc_allocator a = ta_make(&ta);
  psoc_builder *b;
  D3D12_SHADER_BYTECODE none = { NULL, 0 }, vs = { code_a, sizeof code_a },
                        ps = { code_b, sizeof code_b }, got;
  D3D12_INPUT_LAYOUT_DESC il = { sample_elements, 3 };
  int m;
  ck_assert_int_eq(psoc_builder_new(&a, &b), PSOC_OK);
  for (m = 0; m < 3; m++) {
    psoc_stream *s;
    unsigned char *b1;
    size_t n1;
    const unsigned char *d;
    psoc_builder_reset(b);
    ck_assert_int_eq(psoc_builder_set_mode(b, all_modes[m]), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &none, sizeof none), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &ps, sizeof ps), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
    ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK); /* gains pieces */
    ck_assert_int_eq(psoc_builder_set(b, PSOC_SO_PS, &none, sizeof none), PSOC_OK); /* loses them */
    ck_assert_int_eq(psoc_builder_finish(b, &s), PSOC_OK);
    b1 = ta.last;
    n1 = ta.last_size;
    ck_assert_uint_eq(n1, psoc_builder_finish_size(b));
    d = psoc_stream_data(s);
    memcpy(&got, d + 8, sizeof got); /* VS */
    ck_assert_uint_eq(got.BytecodeLength, sizeof code_a);
    ck_assert_mem_eq(got.pShaderBytecode, code_a, sizeof code_a);
    if (all_modes[m] == PSOC_BUILDER_BORROW) {
      ck_assert_ptr_eq(got.pShaderBytecode, code_a);
    } else {
      ck_assert((const unsigned char *)got.pShaderBytecode > d);
      ck_assert((const unsigned char *)got.pShaderBytecode < b1 + n1);
    }
    memcpy(&got, d + 24 + 8, sizeof got); /* PS */
    ck_assert_ptr_null(got.pShaderBytecode);
    psoc_builder_reset(b);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_PS, &none, sizeof none), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
    check_finish_same(b, &ta, b1, n1);
    psoc_stream_free(s);
  }
  psoc_builder_free(b);
  ck_assert_uint_eq(ta.outstanding, 0);
}
END_TEST

/* ---- the inline add (psoc.h) ------------------------------------ */

/* The subobject layout psoc.h derives from the payload types (for the
** inline add) is the registry's: class, payload offset, stride, size. */
START_TEST(test_inline_layout_matches_registry) {
  size_t rows = 0;
#define CHECK_ROW(NAME, id, key, CLASS, kinds, T, layout, bits)                 \
  do {                                                                          \
    const psoc_subobject_info *info = psoc_subobject_info_get(id);              \
    ck_assert_ptr_nonnull(info);                                                \
    ck_assert_uint_eq(info->dup_class, PSOC_SO_##CLASS);                        \
    ck_assert_uint_eq(info->payload_offset, PSOC_SO_PAYLOAD_AT(T));             \
    ck_assert_uint_eq(info->stride, PSOC_SO_STRIDE(T));                         \
    ck_assert_uint_eq(info->payload->size, sizeof(T));                          \
    if ((bits) & PSOC_SUBOBJECT_SHADER)                                         \
      ck_assert_uint_eq(sizeof(T), sizeof(D3D12_SHADER_BYTECODE));              \
    rows++;                                                                     \
  } while (0);
  PSOC_SUBOBJECTS(CHECK_ROW)
#undef CHECK_ROW
  ck_assert_uint_eq(rows, PSOC_SO_TYPE_COUNT - 1); /* every type but 23 */
}
END_TEST

/* Which types the inline add takes once their plan is made: payloads
** without padding or pointers in every mode, shader stages in BORROW
** only; never a type with padding (zeroed out of line) or a class that is
** present. */
START_TEST(test_inline_takes) {
  psoc_builder *b;
  const psoc_builder_head *h;
  int m;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  h = (const psoc_builder_head *)(const void *)b;
  ck_assert_uint_eq(h->inline_size[PSOC_SO_RASTERIZER], 0); /* no plan yet */
  for (m = 0; m < 3; m++) {
    fill_every_class(b, all_modes[m], 0);
    ck_assert_uint_eq(h->count, psoc_builder_count(b));
    ck_assert_uint_eq(h->inline_size[PSOC_SO_RASTERIZER], sizeof(D3D12_RASTERIZER_DESC));
    ck_assert_uint_eq(h->inline_size[PSOC_SO_ROOT_SIGNATURE], sizeof(void *));
    ck_assert_uint_eq(h->inline_size[PSOC_SO_RENDER_TARGET_FORMATS], sizeof(D3D12_RT_FORMAT_ARRAY));
    ck_assert_uint_eq(h->inline_size[PSOC_SO_BLEND], 0);         /* padding */
    ck_assert_uint_eq(h->inline_size[PSOC_SO_DEPTH_STENCIL], 0); /* padding */
    ck_assert_uint_eq(h->inline_size[PSOC_SO_INPUT_LAYOUT], 0);  /* padding, pointers */
    ck_assert_uint_eq(h->inline_size[PSOC_SO_CACHED_PSO], 0);    /* a blob, not a stage */
    ck_assert_uint_eq(h->inline_size[PSOC_SO_VS],
                      all_modes[m] == PSOC_BUILDER_BORROW ? sizeof(D3D12_SHADER_BYTECODE) : 0);
  }
  psoc_builder_free(b);
}
END_TEST

/* One step of a scripted build, done by the inline add (psoc_builder_add,
** the macro) on 'b[0]' and by the exported function on 'b[1]'. */
static void inline_step(psoc_builder *b[2], test_alloc ta[2], unsigned op, uint32_t type,
                        unsigned *finishes) {
  payload p;
  size_t n = 0;
  psoc_status st[2];
  int k;
  D3D12_SHADER_BYTECODE bad = { NULL, 4 };
  memset(&p, 0, sizeof p);
  if (is_type(type)) n = dirty_payload(type, &p);
  switch (op) {
  case 0: case 1: case 2: case 3: /* add */
    st[0] = psoc_builder_add(b[0], type, &p, n);
    st[1] = (psoc_builder_add)(b[1], type, &p, n);
    break;
  case 4: /* set */
    st[0] = psoc_builder_set(b[0], type, &p, n);
    st[1] = psoc_builder_set(b[1], type, &p, n);
    break;
  case 5: /* a wrong size, a NULL shader with a size, a type that is none */
    st[0] = psoc_builder_add(b[0], type, &p, n + 4);
    st[1] = (psoc_builder_add)(b[1], type, &p, n + 4);
    ck_assert_int_eq(st[0], st[1]);
    st[0] = psoc_builder_add(b[0], PSOC_SO_PS, &bad, sizeof bad);
    st[1] = (psoc_builder_add)(b[1], PSOC_SO_PS, &bad, sizeof bad);
    ck_assert_int_eq(st[0], st[1]);
    st[0] = psoc_builder_add(b[0], 23, &p, 8);
    st[1] = (psoc_builder_add)(b[1], 23, &p, 8);
    break;
  case 6: /* a mode */
    for (k = 0; k < 2; k++) st[k] = psoc_builder_set_mode(b[k], all_modes[type % 3]);
    break;
  case 7: { /* finish, compared; sometimes a reset */
    psoc_stream *s[2];
    for (k = 0; k < 2; k++) {
      st[k] = psoc_builder_finish(b[k], &s[k]);
      ck_assert_int_eq(st[k], PSOC_OK);
    }
    ck_assert_uint_eq(ta[0].last_size, ta[1].last_size);
    check_same_layout(ta[0].last, ta[1].last, 16, ta[0].last_size); /* past the allocators */
    check_stream_padding_zero(psoc_stream_data(s[0]), psoc_stream_size(s[0]));
    for (k = 0; k < 2; k++) psoc_stream_free(s[k]);
    if (type % 2)
      for (k = 0; k < 2; k++) psoc_builder_reset(b[k]);
    (*finishes)++;
    break;
  }
  default: return;
  }
  ck_assert_int_eq(st[0], st[1]);
  ck_assert_uint_eq(psoc_builder_count(b[0]), psoc_builder_count(b[1]));
}

/* The inline add and the exported function give the same statuses and
** the same blocks over a long scripted mix of adds (new types, present
** classes, bad ones), sets, mode changes, finishes and resets; the
** entries the inline add leaves for later are right whatever reads them
** (a set that moves later entries, a finish that copies or relocates). */
START_TEST(test_inline_matches_call) {
  test_alloc ta[2];
  psoc_allocator a[2];
  psoc_builder *b[2];
  uint32_t x = 12345;
  unsigned i, finishes = 0;
  int k;
  for (k = 0; k < 2; k++) {
    a[k] = ta_make(&ta[k]);
    ck_assert_int_eq(psoc_builder_new(&a[k], &b[k]), PSOC_OK);
  }
  for (i = 0; i < 4000; i++) {
    x = x * 1103515245u + 12345u;
    inline_step(b, ta, (x >> 16) % 8, (x >> 8) % (PSOC_SO_TYPE_COUNT + 1), &finishes);
  }
  inline_step(b, ta, 7, 0, &finishes);
  ck_assert_uint_gt(finishes, 100);
  for (k = 0; k < 2; k++) {
    psoc_builder_free(b[k]);
    ck_assert_uint_eq(ta[k].outstanding, 0);
  }
}
END_TEST

Suite *suite_builder(void) {
  Suite *s = suite_create("builder");
  TCase *tc = tcase_create("builder");
  tcase_add_test(tc, test_each_type_round_trips);
  tcase_add_test(tc, test_all_types_in_three_streams);
  tcase_add_test(tc, test_layout_matches_d3dx12);
  tcase_add_test(tc, test_out_of_line_data_is_copied);
  tcase_add_test(tc, test_null_and_empty_pointers);
  tcase_add_test(tc, test_copy_relocates);
  tcase_add_test(tc, test_padding_is_zero);
  tcase_add_test(tc, test_duplicate_classes);
  tcase_add_test(tc, test_duplicate_classes_inline);
  tcase_add_test(tc, test_set_replaces_in_place);
  tcase_add_test(tc, test_bad_arguments);
  tcase_add_test(tc, test_huge_sizes_fail_cleanly);
  tcase_add_test(tc, test_finish_is_repeatable);
  tcase_add_test(tc, test_set_matches_fresh_build);
  tcase_add_test(tc, test_set_memory_is_bounded);
  tcase_add_test(tc, test_allocation_failures);
  tcase_add_test(tc, test_copy_at_finish_matches_copy);
  tcase_add_test(tc, test_copy_at_finish_detects_changed_data);
  tcase_add_test(tc, test_borrow_keeps_pointers);
  tcase_add_test(tc, test_mixed_modes);
  tcase_add_test(tc, test_mode_switch_reuses_plans);
  tcase_add_test(tc, test_finish_into);
  tcase_add_test(tc, test_padding_is_zero_every_mode);
  tcase_add_test(tc, test_add_matches_set_every_mode);
  tcase_add_test(tc, test_borrow_blobs_is_per_type);
  tcase_add_test(tc, test_blob_edges_every_mode);
  tcase_add_test(tc, test_finish_into_every_mode);
  tcase_add_test(tc, test_copy_at_finish_inline_array);
  tcase_add_test(tc, test_set_changes_pieces_every_mode);
  tcase_add_test(tc, test_inline_layout_matches_registry);
  tcase_add_test(tc, test_inline_takes);
  tcase_add_test(tc, test_inline_matches_call);
  suite_add_tcase(s, tc);
  return s;
}
