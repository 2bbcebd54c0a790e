/*
** engine.c: an engine embedding the material language through psol.h,
** built only with `pkg-config --cflags --libs psolua` (which brings psoc
** and the Lua libpsolua was built for). It evaluates a material file in
** the sandbox, resolving the root signature by name as an engine would,
** and prints "NAME HASH" for each pipeline.
*/
#include <psol.h>

#include <stdio.h>
#include <string.h>

static int fake_root_signature;

static void *resolve_root_signature(void *ud, const char *name) {
  (void)ud;
  return strcmp(name, "forward") == 0 ? &fake_root_signature : NULL;
}

int main(int argc, char **argv) {
  psol_options opts;
  psol_result result;
  size_t i;
  char hex[33];
  if (argc != 2) {
    fprintf(stderr, "usage: engine MATERIAL.lua\n");
    return 2;
  }
  memset(&opts, 0, sizeof opts); /* zero means default everywhere */
  opts.resolve_root_signature = resolve_root_signature;
  if (psol_evaluate_file(&opts, argv[1], &result) != PSOC_OK) {
    fprintf(stderr, "engine: %s\n", result.error);
    psol_result_free(&result);
    return 1;
  }
  for (i = 0; i < result.count; i++) {
    const psol_pipeline *p = &result.pipelines[i];
    D3D12_PIPELINE_STATE_STREAM_DESC desc = psoc_stream_desc(p->stream);
    psoc_hash_hex(p->hash, hex);
    printf("%s %s (%s, %zu bytes)\n", p->name, hex, psoc_kind_name(p->kind),
           (size_t)desc.SizeInBytes);
  }
  psol_result_free(&result);
  return 0;
}
