/*
** fuzz_dxbc.c: libFuzzer target for the DXBC/DXIL container reader.
** The input is copied into an exactly-sized buffer (ASan sees any read
** past the end); every signature element is decoded, every chunk looked
** up; a parsed container's invariants are asserted. The same bytes are
** also checked as the VS of a pipeline with PSOC_CHECK_FOLLOW_POINTERS.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dxbc.h"
#include "psoc.h"

static void walk_sig(const psoc_dxbc_sig *sig, size_t size) {
  psoc_dxbc_element e;
  uint32_t i;
  for (i = 0; psoc_dxbc_element_get(sig, i, &e); i++)
    if (e.name_len >= size || e.name[e.name_len] != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned char *copy = malloc(size ? size : 1);
  psoc_dxbc c;
  const unsigned char *chunk;
  uint32_t chunk_size;
  if (!copy) return 0;
  if (size) memcpy(copy, data, size);
  if (psoc_dxbc_parse(copy, size, &c) == PSOC_DXBC_OK) {
    if (c.size > size || c.size < PSOC_DXBC_HEADER_SIZE) abort();
    walk_sig(&c.input, size);
    walk_sig(&c.output, size);
    walk_sig(&c.patch_constant, size);
    if (psoc_dxbc_find_chunk(&c, PSOC_FOURCC('S', 'H', 'E', 'X'), &chunk, &chunk_size) &&
        (chunk < copy || chunk + chunk_size > copy + c.size))
      abort();
  }
  {
    /* the container as a VS with an input layout, checked end to end */
    static const D3D12_INPUT_ELEMENT_DESC el[1] = {
      { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 }
    };
    struct { uint32_t type, pad; D3D12_SHADER_BYTECODE bc; uint32_t t2, pad2;
             D3D12_INPUT_LAYOUT_DESC il; } stream;
    psoc_check_options o = { PSOC_CHECK_FOLLOW_POINTERS, NULL };
    psoc_diags d;
    memset(&stream, 0, sizeof stream);
    stream.type = 1; /* VS */
    stream.bc.pShaderBytecode = copy;
    stream.bc.BytecodeLength = size;
    stream.t2 = 12; /* INPUT_LAYOUT */
    stream.il.pInputElementDescs = el;
    stream.il.NumElements = 1;
    psoc_diags_init(&d, NULL);
    psoc_check(&stream, sizeof stream, &o, &d);
    psoc_diags_free(&d);
  }
  free(copy);
  return 0;
}
