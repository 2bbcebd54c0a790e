/*
** gen_corpus_dxbc.c: writes the seed corpus of fuzz_dxbc with the test
** container writer: DXBC and DXIL shaders of several stages, a root
** signature, an unsigned container and a few damaged ones.
**
**   cc -std=c11 -I src -I tests/unit tests/fuzz/gen_corpus_dxbc.c tests/unit/dxbc_writer.c \
**      src/dxbc.c -o build/gen_corpus_dxbc && build/gen_corpus_dxbc tests/fuzz/corpus/fuzz_dxbc
*/
#include <stdio.h>
#include <string.h>

#include "dxbc_writer.h"

static int save(const char *dir, const char *name, const dw_blob *b) {
  char path[512];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "wb");
  if (!f || fwrite(b->data, 1, b->size, f) != b->size) return 1;
  return fclose(f) != 0;
}

int main(int argc, char **argv) {
  static const dw_elem vin[] = { { "POSITION", 0, 0, 3, 0, 7, 7, 0, 0 }, { "TEXCOORD", 0, 0, 3, 1, 3, 3, 0, 0 } };
  static const dw_elem vout[] = { { "SV_Position", 0, 1, 3, 0, 15, 0, 0, 0 }, { "TEXCOORD", 0, 0, 3, 1, 3, 0, 0, 0 } };
  static const dw_elem pout[] = { { "SV_Target", 0, 64, 3, 0, 15, 0, 0, 0 } };
  dw_blob b[8];
  int err = 0, i;
  if (argc != 2) return 2;
  b[0] = dw_shader(1, 5, 0, 0, vin, 2, vout, 2, 1);
  b[1] = dw_shader(0, 5, 0, 0, vout, 2, pout, 1, -1);
  b[2] = dw_shader(1, 6, 6, 1, vin, 2, vout, 2, 1);
  b[3] = dw_shader(13, 6, 5, 1, NULL, 0, vout, 2, 0);
  b[4] = dw_root_signature(1);
  b[5] = dw_shader(5, 5, 1, 0, NULL, 0, NULL, 0, -1);
  memset(b[5].data + 4, 0, 16); /* unsigned */
  b[6] = dw_shader(0, 6, 0, 1, vout, 2, pout, 1, 1);
  b[6].data[b[6].size - 3] ^= 0x55; /* checksum mismatch */
  b[7] = dw_shader(1, 5, 0, 0, vin, 2, vout, 2, 1);
  b[7].size -= 9; /* truncated */
  err |= save(argv[1], "vs_5_0", &b[0]);
  err |= save(argv[1], "ps_5_0_no_rts0", &b[1]);
  err |= save(argv[1], "vs_6_6_dxil", &b[2]);
  err |= save(argv[1], "ms_6_5_dxil", &b[3]);
  err |= save(argv[1], "root_signature", &b[4]);
  err |= save(argv[1], "cs_unsigned", &b[5]);
  err |= save(argv[1], "ps_dxil_bad_checksum", &b[6]);
  err |= save(argv[1], "vs_truncated", &b[7]);
  for (i = 0; i < 8; i++) dw_free(&b[i]);
  return err;
}
