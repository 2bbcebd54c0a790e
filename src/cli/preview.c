/*
** preview.c: 'psoc preview', a picture of what a material pipeline's
** fixed-function state does.
**
**   psoc preview SCRIPT [--pipeline NAME] -o FILE.png
**
** The pipeline's blend, depth-stencil, rasterizer, sample mask and render
** target 0 format are kept; its shaders, input layout and root signature
** are replaced by reference ones (assembled here with psoc_dxbc_asm's
** library) that draw three overlapping triangles of different colours,
** alphas and depths (the middle one counter-clockwise) over a checkerboard
** drawn with plain opaque state. The 64x64 result is written 4x enlarged.
** Runs on vkd3d (src/device/backend_vkd3d.c), like the device suite.
** Graphics pipelines only (a mesh pipeline's state cannot be created
** without DXIL). Built into psoc only where vkd3d's and libpng's headers
** are installed (premake5.lua defines PSOC_CLI_HAVE_PREVIEW); elsewhere
** this file is empty and psoc has no 'preview' command.
*/
#ifndef PSOC_CLI_HAVE_PREVIEW
typedef int cli_preview_not_built; /* ISO C: no empty translation unit */
#else
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "dxbc_asm.h"
#include "psoc.h"
#include "psol.h"

#define SCALE 4

static const char REF_VS[] =
  "vs_5_0\nroot_signature allow_input_layout\ninput POSITION v0.xyz\ninput COLOR v1.xyzw\n"
  "output SV_Position o0.xyzw\noutput COLOR o1.xyzw\n"
  "mov o0.xyz, v0.xyzx\nmov o0.w, l(1.0)\nmov o1.xyzw, v1.xyzw\nret\n";
static const char REF_PS[] =
  "ps_5_0\ninput SV_Position v0.xyzw\ninput COLOR v1.xyzw\noutput SV_Target0 o0.xyzw\n"
  "mov o0.xyzw, v1.xyzw\nret\n";

typedef struct vtx {
  float x, y, z, r, g, b, a;
} vtx;

static void put(vtx *v, float x, float y, float z, const float c[4]) {
  v->x = x, v->y = y, v->z = z, v->r = c[0], v->g = c[1], v->b = c[2], v->a = c[3];
}

/* 8x8 checkerboard cells, two triangles each (clockwise). */
static uint32_t checkerboard(vtx *v) {
  static const float light[4] = { 0.8f, 0.8f, 0.8f, 1 }, dark[4] = { 0.35f, 0.35f, 0.35f, 1 };
  uint32_t n = 0;
  int i, j;
  for (j = 0; j < 8; j++)
    for (i = 0; i < 8; i++) {
      float x0 = -1 + i * 0.25f, x1 = x0 + 0.25f, y0 = -1 + j * 0.25f, y1 = y0 + 0.25f;
      const float *c = ((i + j) & 1) ? dark : light;
      put(&v[n++], x0, y0, 0.5f, c), put(&v[n++], x0, y1, 0.5f, c), put(&v[n++], x1, y0, 0.5f, c);
      put(&v[n++], x1, y0, 0.5f, c), put(&v[n++], x0, y1, 0.5f, c), put(&v[n++], x1, y1, 0.5f, c);
    }
  return n;
}

/* Three overlapping triangles: red (alpha .8, depth .6, clockwise), green
** (alpha .5, depth .4, counter-clockwise), blue (alpha .5, depth .2,
** clockwise); drawn in that order. */
static uint32_t scene(vtx *v) {
  static const float red[4] = { 1, 0.2f, 0.2f, 0.8f }, green[4] = { 0.2f, 1, 0.2f, 0.5f },
                     blue[4] = { 0.2f, 0.4f, 1, 0.5f };
  put(&v[0], -0.9f, -0.7f, 0.6f, red), put(&v[1], -0.6f, 0.8f, 0.6f, red), put(&v[2], 0.4f, -0.7f, 0.6f, red);
  put(&v[3], -0.4f, -0.5f, 0.4f, green), put(&v[4], 0.6f, -0.5f, 0.4f, green), put(&v[5], 0.1f, 0.9f, 0.4f, green);
  put(&v[6], -0.1f, -0.9f, 0.2f, blue), put(&v[7], 0.3f, 0.6f, 0.2f, blue), put(&v[8], 0.9f, -0.9f, 0.2f, blue);
  return 9;
}

static float half_to_float(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? (float)m / 16777216.0f : e == 31 ? 65504.0f
                                                      : (float)(m | 1024) * (float)(1u << e) / 33554432.0f;
  return (h & 0x8000) ? -v : v;
}

static unsigned char to8(float f) {
  if (!(f > 0)) return 0;
  if (f >= 1) return 255;
  return (unsigned char)(f * 255.0f + 0.5f);
}

static void rgba8(const dev_image *im, int x, int y, unsigned char out[4]) {
  const unsigned char *p = im->data + ((size_t)y * DEV_SIZE + (size_t)x) * im->bpp;
  int i;
  switch (im->format) {
    case DXGI_FORMAT_B8G8R8A8_UNORM: case DXGI_FORMAT_B8G8R8A8_UNORM_SRGB:
      out[0] = p[2], out[1] = p[1], out[2] = p[0], out[3] = p[3];
      break;
    case DXGI_FORMAT_R16G16B16A16_FLOAT:
      for (i = 0; i < 4; i++) out[i] = to8(half_to_float((uint16_t)(p[2 * i] | p[2 * i + 1] << 8)));
      break;
    case DXGI_FORMAT_R32G32B32A32_FLOAT:
      for (i = 0; i < 4; i++) {
        float f;
        memcpy(&f, p + 4 * i, 4);
        out[i] = to8(f);
      }
      break;
    default:
      memcpy(out, p, 4);
  }
  out[3] = 255; /* the picture shows colour; alpha stays in the target */
}

/* The picture as PNG on 'f' (standard output, sent to the -o file). */
static int write_png(FILE *f, const dev_image *im) {
  png_structp png;
  png_infop info;
  unsigned char row[DEV_SIZE * SCALE * 4];
  int x, y;
  png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png ? png_create_info_struct(png) : NULL;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return -1;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, DEV_SIZE * SCALE, DEV_SIZE * SCALE, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (y = 0; y < DEV_SIZE * SCALE; y++) {
    for (x = 0; x < DEV_SIZE * SCALE; x++) rgba8(im, x / SCALE, y / SCALE, row + 4 * x);
    png_write_row(png, row);
  }
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

/* A render-target format the picture can be read from; others become the
** nearest readable one (said on stderr). */
static DXGI_FORMAT readable(DXGI_FORMAT f) {
  switch (f) {
    case DXGI_FORMAT_R8G8B8A8_UNORM: case DXGI_FORMAT_R8G8B8A8_UNORM_SRGB: case DXGI_FORMAT_B8G8R8A8_UNORM:
    case DXGI_FORMAT_R16G16B16A16_FLOAT: case DXGI_FORMAT_R32G32B32A32_FLOAT:
      return f;
    case DXGI_FORMAT_R11G11B10_FLOAT: case DXGI_FORMAT_R16G16B16A16_UNORM: case DXGI_FORMAT_R10G10B10A2_UNORM:
      return DXGI_FORMAT_R16G16B16A16_FLOAT;
    default:
      return DXGI_FORMAT_R8G8B8A8_UNORM;
  }
}

static const char preview_help[] =
  "usage: psoc preview SCRIPT [--pipeline NAME] -o FILE.png\n"
  "\n"
  "Draw what a material pipeline's fixed-function state does: its blend,\n"
  "depth-stencil, rasterizer, sample mask and render target 0 format, with\n"
  "reference shaders, on a reference scene (three overlapping triangles of\n"
  "different colours, alphas and depths, the middle one counter-clockwise,\n"
  "over a checkerboard). The 64x64 picture is written 4x enlarged as PNG.\n"
  "Runs on vkd3d (Direct3D 12 on Vulkan; lavapipe where there is no GPU).\n"
  "\n"
  "options:\n"
  "  --pipeline NAME  the pipeline to draw (default: the script's first)\n"
  "  -o FILE.png      where to write the picture (created or replaced)\n"
  "  -h, --help       show this help\n"
  "\n"
  "Graphics pipelines only: compute and mesh pipelines are refused.\n"
  "exit status: 0 picture written, 1 the pipeline cannot be drawn, 2 usage.\n";

int cli_preview_main(int argc, char **argv) {
  const char *script = NULL, *name = NULL, *out = NULL;
  psol_options o;
  psol_result res;
  const psol_pipeline *p = NULL;
  psoc_parsed parsed;
  psoc_resolved r;
  D3D12_GRAPHICS_PIPELINE_STATE_DESC mat, bg;
  static const D3D12_INPUT_ELEMENT_DESC layout[2] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "COLOR", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
  };
  dxbc_asm_blob vs = { NULL, 0 }, ps = { NULL, 0 };
  static vtx bgv[384], sv[9];
  dev_frame frames[2];
  dev_image img[DEV_MAX_RTS];
  dev *d = NULL;
  char err[512];
  size_t i;
  int k, rc = 1;
  for (k = 1; k < argc; k++) {
    if (cli_is_help(argv[k])) {
      fputs(preview_help, stdout);
      return CLI_EXIT_OK;
    }
    if (strcmp(argv[k], "--pipeline") == 0 && k + 1 < argc) name = argv[++k];
    else if (strcmp(argv[k], "-o") == 0 && k + 1 < argc) out = argv[++k];
    else if (argv[k][0] != '-' && !script) script = argv[k];
    else if (argv[k][0] == '-') return cli_usage_error("preview", "unknown option '%s'", argv[k]);
    else return cli_usage_error("preview", "expected one SCRIPT, got '%s' too", argv[k]);
  }
  if (!script) return cli_usage_error("preview", "no SCRIPT given");
  if (!out) return cli_usage_error("preview", "no output file given (-o FILE.png)");

  memset(&o, 0, sizeof o);
  if (psol_evaluate_file(&o, script, &res) != PSOC_OK) {
    cli_text(stderr, res.error);
    fputc('\n', stderr);
    psol_result_free(&res);
    return 1;
  }
  for (i = 0; i < res.count && !p; i++)
    if (!name || strcmp(res.pipelines[i].name, name) == 0) p = &res.pipelines[i];
  if (!p) {
    cli_text(stderr, script);
    fputs(": no pipeline '", stderr);
    cli_text(stderr, name ? name : "");
    fputs("'\n", stderr);
    goto done;
  }
  if (psoc_parse(psoc_stream_data(p->stream), psoc_stream_size(p->stream), &parsed, NULL) != PSOC_OK ||
      psoc_resolve(&parsed, &r) != PSOC_OK || r.kind != PSOC_KIND_GRAPHICS ||
      psoc_resolved_to_graphics_desc(&r, &mat) != PSOC_OK) {
    cli_text(stderr, script);
    fputs(": pipeline '", stderr);
    cli_text(stderr, p->name);
    fputs("' is not a graphics pipeline (the preview draws VS/PS pipelines)\n", stderr);
    goto done;
  }
  if (dxbc_asm(REF_VS, sizeof REF_VS - 1, &vs, err, sizeof err) ||
      dxbc_asm(REF_PS, sizeof REF_PS - 1, &ps, err, sizeof err)) {
    fprintf(stderr, "reference shaders: %s\n", err);
    goto done;
  }
  setenv("VKD3D_DEBUG", "err", 0);
  if (dev_create(&d, err, sizeof err)) {
    fprintf(stderr, "device: %s\n", err);
    goto free_shaders;
  }
  /* The material's fixed-function state with reference shaders. */
  mat.pRootSignature = dev_root_signature(d, "ia");
  mat.VS.pShaderBytecode = vs.data, mat.VS.BytecodeLength = vs.size;
  mat.PS.pShaderBytecode = ps.data, mat.PS.BytecodeLength = ps.size;
  memset(&mat.GS, 0, sizeof mat.GS);
  memset(&mat.HS, 0, sizeof mat.HS);
  memset(&mat.DS, 0, sizeof mat.DS);
  memset(&mat.StreamOutput, 0, sizeof mat.StreamOutput);
  mat.InputLayout.pInputElementDescs = layout, mat.InputLayout.NumElements = 2;
  mat.PrimitiveTopologyType = D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE;
  if (mat.NumRenderTargets == 0) mat.RTVFormats[0] = DXGI_FORMAT_R8G8B8A8_UNORM;
  if (readable(mat.RTVFormats[0]) != mat.RTVFormats[0])
    fprintf(stderr, "note: render target 0 drawn as format %d instead of %d\n", readable(mat.RTVFormats[0]),
            mat.RTVFormats[0]);
  mat.RTVFormats[0] = readable(mat.RTVFormats[0]);
  for (i = 1; i < 8; i++) mat.RTVFormats[i] = DXGI_FORMAT_UNKNOWN;
  mat.NumRenderTargets = 1;
  mat.SampleDesc.Count = 1, mat.SampleDesc.Quality = 0;
  mat.CachedPSO.pCachedBlob = NULL, mat.CachedPSO.CachedBlobSizeInBytes = 0;
  /* The checkerboard: the same targets, plain opaque state. */
  bg = mat;
  memset(&bg.BlendState, 0, sizeof bg.BlendState);
  for (i = 0; i < 8; i++) {
    bg.BlendState.RenderTarget[i].SrcBlend = D3D12_BLEND_ONE;
    bg.BlendState.RenderTarget[i].DestBlend = D3D12_BLEND_ZERO;
    bg.BlendState.RenderTarget[i].BlendOp = D3D12_BLEND_OP_ADD;
    bg.BlendState.RenderTarget[i].SrcBlendAlpha = D3D12_BLEND_ONE;
    bg.BlendState.RenderTarget[i].DestBlendAlpha = D3D12_BLEND_ZERO;
    bg.BlendState.RenderTarget[i].BlendOpAlpha = D3D12_BLEND_OP_ADD;
    bg.BlendState.RenderTarget[i].LogicOp = D3D12_LOGIC_OP_NOOP;
    bg.BlendState.RenderTarget[i].RenderTargetWriteMask = D3D12_COLOR_WRITE_ENABLE_ALL;
  }
  bg.SampleMask = 0xffffffffu;
  bg.RasterizerState.FillMode = D3D12_FILL_MODE_SOLID;
  bg.RasterizerState.CullMode = D3D12_CULL_MODE_NONE;
  bg.RasterizerState.DepthBias = 0, bg.RasterizerState.SlopeScaledDepthBias = 0;
  memset(&bg.DepthStencilState, 0, sizeof bg.DepthStencilState);
  bg.DepthStencilState.DepthFunc = D3D12_COMPARISON_FUNC_ALWAYS;
  memset(frames, 0, sizeof frames);
  frames[0].graphics_desc = &bg, frames[0].desc_size = sizeof bg;
  frames[0].vb[0].data = bgv, frames[0].vb[0].stride = sizeof(vtx);
  frames[0].draws[0].vertex_count = checkerboard(bgv), frames[0].draws[0].instance_count = 1;
  frames[0].vb[0].size = (uint32_t)(frames[0].draws[0].vertex_count * sizeof(vtx));
  frames[0].nvb = 1, frames[0].ndraws = 1, frames[0].topology = D3D_PRIMITIVE_TOPOLOGY_TRIANGLELIST;
  frames[0].depth_clear = (mat.DepthStencilState.DepthFunc == D3D12_COMPARISON_FUNC_GREATER ||
                           mat.DepthStencilState.DepthFunc == D3D12_COMPARISON_FUNC_GREATER_EQUAL) ? 0.0f : 1.0f;
  frames[1] = frames[0];
  frames[1].graphics_desc = &mat;
  frames[1].vb[0].data = sv;
  frames[1].draws[0].vertex_count = scene(sv);
  frames[1].vb[0].size = (uint32_t)(frames[1].draws[0].vertex_count * sizeof(vtx));
  for (i = 0; i < 4; i++) frames[1].blend_factor[i] = 0.5f;
  if (dev_draw_frames(d, frames, 2, img, err, sizeof err)) {
    fprintf(stderr, "%s: pipeline '%s': %s\n", script, p->name, err);
    goto free_dev;
  }
  /* the same rules as every output path: only a regular file that is not
  ** the script is replaced (a failed draw leaves no file behind) */
  if (cli_redirect_stdout(out, (char *const *)&script, 1, err, sizeof err) != 0) {
    fprintf(stderr, "psoc preview: %s\n", err);
    rc = CLI_EXIT_USAGE;
  } else if (write_png(stdout, &img[0])) {
    fputs("psoc preview: cannot write ", stderr);
    cli_text(stderr, out);
    fputc('\n', stderr);
  } else {
    rc = 0;
  }
  dev_images_free(img);
free_dev:
  dev_destroy(d);
free_shaders:
  dxbc_asm_free(&vs);
  dxbc_asm_free(&ps);
done:
  psol_result_free(&res);
  return rc;
}
#endif /* PSOC_CLI_HAVE_PREVIEW */
