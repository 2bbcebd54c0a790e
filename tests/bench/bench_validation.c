/*
** bench_validation.c: the cost of a full psoc_check (every rule, shader
** containers read and their checksums verified, linkage, input layout)
** on a typical graphics stream with two real-sized shaders (a 6 KB VS and
** a 12 KB PS), as a ratio to the core's structural walk (psoc_parse).
**
** bench_validation_main(quick) prints one line per measurement and returns
** 0; bench.cpp calls it. Built alone, the weak main below runs it.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dxbc.h"
#include "psoc.h"

int bench_validation_main(int quick);

typedef struct sig_el {
  const char *name;
  uint32_t index, sysval, comp, reg, mask;
} sig_el;

static size_t put32(unsigned char *p, size_t at, uint32_t v) {
  memcpy(p + at, &v, 4);
  return at + 4;
}

/* xSGN chunk data for 'n' elements into 'out' (size returned). */
static size_t signature(unsigned char *out, const sig_el *e, uint32_t n, int input) {
  size_t at = 0, name_at = 8 + 24 * (size_t)n, i;
  at = put32(out, at, n);
  at = put32(out, at, 8);
  for (i = 0; i < n; i++) {
    at = put32(out, at, (uint32_t)name_at);
    at = put32(out, at, e[i].index);
    at = put32(out, at, e[i].sysval);
    at = put32(out, at, e[i].comp);
    at = put32(out, at, e[i].reg);
    at = put32(out, at, e[i].mask | (input ? e[i].mask << 8 : 0)); /* rw: always read / never written */
    memcpy(out + name_at, e[i].name, strlen(e[i].name) + 1);
    name_at += strlen(e[i].name) + 1;
  }
  return (name_at + 3) & ~(size_t)3;
}

/* A signed container: ISGN, OSGN, RTS0 and a SHEX of 'code_bytes'. */
static unsigned char *shader(uint32_t program, const sig_el *in, uint32_t nin, const sig_el *out,
                             uint32_t nout, size_t code_bytes, size_t *size) {
  size_t total = 32 + 16 + 4 * 8 + 1024 + 1024 + 24 + code_bytes + 64, at;
  unsigned char *p = calloc(1, total), isg[1024], osg[1024];
  size_t ni = signature(isg, in, nin, 1), no = signature(osg, out, nout, 0), i;
  uint32_t off[4];
  uint8_t digest[16];
  if (!p) return NULL;
  memcpy(p, "DXBC", 4);
  put32(p, 20, 1);
  put32(p, 28, 4);
  at = 32 + 16;
  off[0] = (uint32_t)at; at = put32(p, at, 0x4e475349); at = put32(p, at, (uint32_t)ni);
  memcpy(p + at, isg, ni); at += ni;
  off[1] = (uint32_t)at; at = put32(p, at, 0x4e47534f); at = put32(p, at, (uint32_t)no);
  memcpy(p + at, osg, no); at += no;
  off[2] = (uint32_t)at; at = put32(p, at, 0x30535452); at = put32(p, at, 24);
  at = put32(p, at, 2); at = put32(p, at, 0); at = put32(p, at, 24); at = put32(p, at, 0);
  at = put32(p, at, 24); at = put32(p, at, 1);
  off[3] = (uint32_t)at; at = put32(p, at, 0x58454853); at = put32(p, at, (uint32_t)code_bytes);
  put32(p, at, (program << 16) | 0x50);
  put32(p, at + 4, (uint32_t)(code_bytes / 4));
  for (i = 8; i < code_bytes; i++) p[at + i] = (unsigned char)(i * 31);
  at += code_bytes;
  for (i = 0; i < 4; i++) put32(p, 32 + 4 * i, off[i]);
  put32(p, 24, (uint32_t)at);
  psoc_dxbc_checksum(p, at, digest);
  memcpy(p + 4, digest, 16);
  *size = at;
  return p;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bench_validation_main(int quick) {
  static const sig_el vin[] = { { "POSITION", 0, 0, 3, 0, 7 }, { "NORMAL", 0, 0, 3, 1, 7 },
                                { "TANGENT", 0, 0, 3, 2, 15 }, { "TEXCOORD", 0, 0, 3, 3, 3 } };
  static const sig_el vout[] = { { "SV_Position", 0, 1, 3, 0, 15 }, { "NORMAL", 0, 0, 3, 1, 7 },
                                 { "TANGENT", 0, 0, 3, 2, 15 }, { "TEXCOORD", 0, 0, 3, 3, 3 } };
  static const sig_el pout[] = { { "SV_Target", 0, 0, 3, 0, 15 }, { "SV_Target", 1, 0, 3, 1, 15 } };
  static const D3D12_INPUT_ELEMENT_DESC layout[] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "NORMAL", 0, DXGI_FORMAT_R16G16B16A16_SNORM, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "TANGENT", 0, DXGI_FORMAT_R16G16B16A16_SNORM, 0, 20, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "TEXCOORD", 0, DXGI_FORMAT_R16G16_FLOAT, 0, 28, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
  };
  size_t vs_size, ps_size, iters = quick ? 2000 : 50000, i;
  unsigned char *vs = shader(1, vin, 4, vout, 4, 6 * 1024, &vs_size);
  unsigned char *ps = shader(0, vout, 4, pout, 2, 12 * 1024, &ps_size);
  psoc_check_options full = { PSOC_CHECK_FOLLOW_POINTERS, NULL }, bare = { 0, NULL };
  psoc_builder *b = NULL;
  psoc_stream *stream = NULL;
  const void *data;
  size_t size;
  D3D12_SHADER_BYTECODE vsb, psb;
  D3D12_INPUT_LAYOUT_DESC il = { layout, 4 };
  D3D12_RT_FORMAT_ARRAY rts;
  DXGI_FORMAT dsv = DXGI_FORMAT_D32_FLOAT;
  D3D12_RASTERIZER_DESC rast;
  D3D12_DEPTH_STENCIL_DESC ds;
  D3D12_PRIMITIVE_TOPOLOGY_TYPE topo = D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE;
  ID3D12RootSignature *rs = NULL;
  psoc_diags d;
  psoc_parsed parsed;
  double t0, t_parse, t_rules, t_full, sink = 0;
  if (!vs || !ps) return 1;
  vsb.pShaderBytecode = vs;
  vsb.BytecodeLength = vs_size;
  psb.pShaderBytecode = ps;
  psb.BytecodeLength = ps_size;
  memset(&rts, 0, sizeof rts);
  rts.NumRenderTargets = 2;
  rts.RTFormats[0] = DXGI_FORMAT_R8G8B8A8_UNORM;
  rts.RTFormats[1] = DXGI_FORMAT_R16G16B16A16_FLOAT;
  memset(&rast, 0, sizeof rast);
  rast.FillMode = D3D12_FILL_MODE_SOLID;
  rast.CullMode = D3D12_CULL_MODE_BACK;
  rast.DepthClipEnable = TRUE;
  memset(&ds, 0, sizeof ds);
  ds.DepthEnable = TRUE;
  ds.DepthWriteMask = D3D12_DEPTH_WRITE_MASK_ALL;
  ds.DepthFunc = D3D12_COMPARISON_FUNC_GREATER_EQUAL;
  if (psoc_builder_new(NULL, &b) != PSOC_OK ||
      psoc_builder_add(b, PSOC_SO_ROOT_SIGNATURE, &rs, sizeof rs) != PSOC_OK ||
      psoc_builder_add(b, PSOC_SO_VS, &vsb, sizeof vsb) != PSOC_OK ||
      psoc_builder_add(b, PSOC_SO_PS, &psb, sizeof psb) != PSOC_OK ||
      psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il) != PSOC_OK ||
      psoc_builder_add(b, PSOC_SO_RENDER_TARGET_FORMATS, &rts, sizeof rts) != PSOC_OK ||
      psoc_builder_add(b, PSOC_SO_DEPTH_STENCIL_FORMAT, &dsv, sizeof dsv) != PSOC_OK ||
      psoc_builder_add(b, PSOC_SO_RASTERIZER, &rast, sizeof rast) != PSOC_OK ||
      psoc_builder_add(b, PSOC_SO_DEPTH_STENCIL, &ds, sizeof ds) != PSOC_OK ||
      psoc_builder_add(b, PSOC_SO_PRIMITIVE_TOPOLOGY, &topo, sizeof topo) != PSOC_OK ||
      psoc_builder_finish(b, &stream) != PSOC_OK) {
    fprintf(stderr, "bench_validation: cannot build the stream\n");
    return 1;
  }
  data = psoc_stream_data(stream);
  size = psoc_stream_size(stream);
  psoc_diags_init(&d, NULL);
  if (psoc_check(data, size, &full, &d) != PSOC_OK || d.warnings) {
    for (i = 0; i < d.count; i++) fprintf(stderr, "bench_validation: %s\n", d.items[i].message);
    return 1;
  }
  t0 = now();
  for (i = 0; i < iters; i++) sink += psoc_parse(data, size, &parsed, NULL) + parsed.count;
  t_parse = (now() - t0) / (double)iters;
  t0 = now();
  for (i = 0; i < iters; i++) {
    psoc_diags_clear(&d);
    sink += psoc_check(data, size, &bare, &d);
  }
  t_rules = (now() - t0) / (double)iters;
  t0 = now();
  for (i = 0; i < iters; i++) {
    psoc_diags_clear(&d);
    sink += psoc_check(data, size, &full, &d);
  }
  t_full = (now() - t0) / (double)iters;
  printf("validation: structural walk (psoc_parse)            %9.0f ns\n", t_parse * 1e9);
  printf("validation: check, stream only                      %9.0f ns  (%.1fx walk)\n",
         t_rules * 1e9, t_rules / t_parse);
  printf("validation: check with shaders (%zu+%zu bytes)     %9.0f ns  (%.1fx walk)\n", vs_size,
         ps_size, t_full * 1e9, t_full / t_parse);
  if (sink < 0) printf("%f\n", sink);
  psoc_diags_free(&d);
  psoc_stream_free(stream);
  psoc_builder_free(b);
  free(vs);
  free(ps);
  return 0;
}

__attribute__((weak)) int main(int argc, char **argv) {
  return bench_validation_main(argc > 1 && strcmp(argv[1], "--quick") == 0);
}
