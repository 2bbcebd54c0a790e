/*
** consumer.c: an engine-side program that knows psoc only through its
** installed headers and `pkg-config --cflags --libs psoc`. It builds a
** stream with the builder, checks, hashes and dumps it, and prints one
** line per step. tests/consumer/test_consumer.sh builds and runs it.
*/
#include <psoc.h>

#include <stdio.h>
#include <string.h>

static int write_stdout(void *ud, const char *text, size_t length) {
  (void)ud;
  return fwrite(text, 1, length, stdout) == length ? 0 : 1;
}

#define TRY(call)                                                         \
  do {                                                                    \
    psoc_status st_ = (call);                                             \
    if (st_ != PSOC_OK) {                                                 \
      fprintf(stderr, "consumer: %s: %s\n", #call, psoc_status_name(st_)); \
      return 1;                                                           \
    }                                                                     \
  } while (0)

int main(int argc, char **argv) {
  static const unsigned char vs_bytes[] = "not really DXBC";
  D3D12_SHADER_BYTECODE vs;
  D3D12_PRIMITIVE_TOPOLOGY_TYPE topology = D3D12_PRIMITIVE_TOPOLOGY_TYPE_LINE;
  D3D12_RT_FORMAT_ARRAY rts;
  psoc_builder *builder = NULL;
  psoc_stream *stream = NULL;
  psoc_diags diags;
  psoc_hash128 hash;
  D3D12_PIPELINE_STATE_STREAM_DESC desc;
  char hex[33];
  size_t i;

  /* The version of the headers must be the one pkg-config reports. */
  if (argc > 1 && strcmp(argv[1], PSOC_VERSION_STRING) != 0) {
    fprintf(stderr, "consumer: headers say %s, pkg-config says %s\n", PSOC_VERSION_STRING,
            argv[1]);
    return 1;
  }
  printf("psoc %s (C API %d.%d)\n", PSOC_VERSION_STRING, PSOC_VERSION_MAJOR, PSOC_VERSION_MINOR);

  vs.pShaderBytecode = vs_bytes;
  vs.BytecodeLength = sizeof vs_bytes;
  memset(&rts, 0, sizeof rts);
  rts.NumRenderTargets = 1;
  rts.RTFormats[0] = DXGI_FORMAT_R8G8B8A8_UNORM;

  TRY(psoc_builder_new(NULL, &builder));
  TRY(psoc_builder_add(builder, PSOC_SO_VS, &vs, sizeof vs));
  TRY(psoc_builder_add(builder, PSOC_SO_PRIMITIVE_TOPOLOGY, &topology, sizeof topology));
  TRY(psoc_builder_add(builder, PSOC_SO_RENDER_TARGET_FORMATS, &rts, sizeof rts));
  if (psoc_builder_add(builder, PSOC_SO_VS, &vs, sizeof vs) != PSOC_ERR_DUPLICATE) {
    fprintf(stderr, "consumer: a second VS was not refused\n");
    return 1;
  }
  TRY(psoc_builder_finish(builder, &stream));
  psoc_builder_free(builder);

  desc = psoc_stream_desc(stream);
  printf("stream: %zu subobject bytes\n", (size_t)desc.SizeInBytes);

  psoc_diags_init(&diags, NULL);
  if (psoc_check(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, NULL, &diags) != PSOC_OK) {
    for (i = 0; i < diags.count; i++)
      fprintf(stderr, "consumer: %s: %s\n", psoc_severity_name(diags.items[i].severity),
              diags.items[i].message);
    return 1;
  }
  printf("check: %zu errors, %zu warnings, %zu notes\n", diags.errors, diags.warnings, diags.notes);
  psoc_diags_free(&diags);

  TRY(psoc_hash(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, PSOC_FOLLOW_POINTERS, NULL,
                &hash));
  psoc_hash_hex(hash, hex);
  printf("hash: %s\n", hex);

  TRY(psoc_dump(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, PSOC_FOLLOW_POINTERS,
                write_stdout, NULL));
  psoc_stream_free(stream);
  printf("consumer: ok\n");
  return 0;
}
