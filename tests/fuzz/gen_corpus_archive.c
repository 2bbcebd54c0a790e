/*
** gen_corpus_archive.c: writes the seed corpus of fuzz_archive: archives of
** a few hand-built pipelines (shared shaders, an input layout with semantic
** names, stream output with strides, view instancing, a cached blob and a
** serialized root signature, a named root signature), an empty archive, and
** one of each damage kind (a flipped component byte, a flipped record byte,
** a truncation).
**
**   cc -std=c11 -D_POSIX_C_SOURCE=200809L -I src -I /usr/include/wsl/stubs \
**      tests/fuzz/gen_corpus_archive.c src/[a-z]*.c -o build/gen_corpus_archive &&
**   build/gen_corpus_archive tests/fuzz/corpus/fuzz_archive
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h"
#include "psoc_archive.h"

static int save(const char *dir, const char *name, const void *data, size_t size) {
  char path[512];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size) return 1;
  return fclose(f) != 0;
}

#define TRY(x)                                                      \
  do {                                                              \
    if ((x) != PSOC_OK) {                                           \
      fprintf(stderr, "gen_corpus_archive: %s failed\n", #x);       \
      exit(1);                                                      \
    }                                                               \
  } while (0)

static const unsigned char vs_code[48] = "DXBC vertex shader of the fuzz seed corpus....";
static const unsigned char ps_code[20] = "DXBC pixel shader..";
static const unsigned char gs_code[24] = "DXBC geometry shader...";
static const unsigned char cs_code[12] = "DXBC cs....";
static const unsigned char blob[10] = "cachedPSO";
static const unsigned char rsblob[16] = "DXBC rootsig...";

static psoc_stream *finish(psoc_builder *b) {
  psoc_stream *s;
  TRY(psoc_builder_finish(b, &s));
  psoc_builder_reset(b);
  return s;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "tests/fuzz/corpus/fuzz_archive";
  psoc_builder *b;
  psoc_archive_writer *w, *empty;
  psoc_stream *s[4];
  const void *data;
  size_t size, i;
  unsigned char *copy;
  void *rs = NULL;
  D3D12_SHADER_BYTECODE vs = { vs_code, sizeof vs_code }, ps = { ps_code, sizeof ps_code },
                        gs = { gs_code, sizeof gs_code }, cs = { cs_code, sizeof cs_code };
  D3D12_INPUT_ELEMENT_DESC el[2] = {
    { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
    { "COLOR", 1, DXGI_FORMAT_R8G8B8A8_UNORM, 0, 12, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 },
  };
  D3D12_INPUT_LAYOUT_DESC il = { el, 2 };
  D3D12_SO_DECLARATION_ENTRY so_el[2] = { { 0, "POSITION", 0, 0, 4, 0 }, { 0, "COLOR", 1, 0, 4, 0 } };
  UINT strides[1] = { 32 };
  D3D12_STREAM_OUTPUT_DESC so = { so_el, 2, strides, 1, 0 };
  D3D12_VIEW_INSTANCE_LOCATION loc[2] = { { 0, 0 }, { 1, 0 } };
  D3D12_VIEW_INSTANCING_DESC vi = { 2, loc, D3D12_VIEW_INSTANCING_FLAG_NONE };
  D3D12_CACHED_PIPELINE_STATE cached = { blob, sizeof blob };
  psoc_serialized_root_signature_desc srs = { rsblob, sizeof rsblob };

  TRY(psoc_builder_new(NULL, &b));
  TRY(psoc_builder_add(b, PSOC_SO_ROOT_SIGNATURE, &rs, sizeof rs));
  TRY(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs));
  TRY(psoc_builder_add(b, PSOC_SO_PS, &ps, sizeof ps));
  TRY(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il));
  TRY(psoc_builder_add(b, PSOC_SO_VIEW_INSTANCING, &vi, sizeof vi));
  s[0] = finish(b);
  TRY(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs));
  TRY(psoc_builder_add(b, PSOC_SO_GS, &gs, sizeof gs));
  TRY(psoc_builder_add(b, PSOC_SO_STREAM_OUTPUT, &so, sizeof so));
  TRY(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il));
  s[1] = finish(b);
  TRY(psoc_builder_add(b, PSOC_SO_CS, &cs, sizeof cs));
  TRY(psoc_builder_add(b, PSOC_SO_CACHED_PSO, &cached, sizeof cached));
  TRY(psoc_builder_add(b, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, &srs, sizeof srs));
  s[2] = finish(b);
  TRY(psoc_builder_add(b, PSOC_SO_CS, &cs, sizeof cs));
  s[3] = finish(b);
  psoc_builder_free(b);

  TRY(psoc_archive_writer_create(NULL, &w));
  TRY(psoc_archive_writer_add(w, "lit", "forward", psoc_stream_data(s[0]), psoc_stream_size(s[0]), NULL, 0));
  TRY(psoc_archive_writer_add(w, "particles_so", NULL, psoc_stream_data(s[1]), psoc_stream_size(s[1]), NULL, 0));
  TRY(psoc_archive_writer_add(w, "cull_cached", NULL, psoc_stream_data(s[2]), psoc_stream_size(s[2]), NULL, 0));
  TRY(psoc_archive_writer_add(w, "cull", NULL, psoc_stream_data(s[3]), psoc_stream_size(s[3]), NULL, 0));
  TRY(psoc_archive_writer_finish(w, &data, &size));
  if (save(dir, "four_pipelines", data, size)) return 1;
  copy = malloc(size);
  if (!copy) return 1;
  /* damaged copies: the last component's middle byte, the first record's
  ** first payload byte, and a truncation */
  memcpy(copy, data, size);
  copy[size - 16 - 8] ^= 0x40;
  if (save(dir, "damaged_component", copy, size)) return 1;
  memcpy(copy, data, size);
  {
    /* the record area's offset: table of contents entry 5 (RECS), at 8 */
    const unsigned char *t = copy + 96 + 5 * 32 + 8;
    size_t recs = 0;
    for (i = 0; i < 8; i++) recs |= (size_t)t[i] << (8 * i);
    copy[recs + 8] ^= 0x01;
  }
  if (save(dir, "damaged_record", copy, size)) return 1;
  if (save(dir, "truncated", data, size - 40)) return 1;
  free(copy);
  TRY(psoc_archive_writer_create(NULL, &empty));
  TRY(psoc_archive_writer_finish(empty, &data, &size));
  if (save(dir, "empty", data, size)) return 1;
  psoc_archive_writer_free(empty);
  psoc_archive_writer_free(w);
  for (i = 0; i < 4; i++) psoc_stream_free(s[i]);
  return 0;
}
