/*
** dxbc_asm_main.c: the psoc_dxbc_asm command.
**
**   psoc_dxbc_asm SOURCE.asm -o OUT.cso     assemble
**   psoc_dxbc_asm --check SOURCE.asm OUT.cso
**                                           exit 1 unless OUT.cso is what
**                                           SOURCE.asm assembles to
**
** Errors are printed as "SOURCE.asm:LINE: message".
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dxbc_asm.h"

static int read_file(const char *path, char **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  char *p = NULL;
  size_t n = 0, cap = 0;
  if (!f) return -1;
  for (;;) {
    size_t got;
    if (n == cap) {
      char *q;
      cap = cap ? cap * 2 : 4096;
      if (cap > ((size_t)16 << 20)) break; /* 16 MiB: not a small shader */
      q = realloc(p, cap);
      if (!q) break;
      p = q;
    }
    got = fread(p + n, 1, cap - n, f);
    n += got;
    if (got == 0) {
      if (ferror(f)) break;
      fclose(f);
      *data = p;
      *size = n;
      return 0;
    }
  }
  fclose(f);
  free(p);
  return -1;
}

static int usage(void) {
  fprintf(stderr, "usage: psoc_dxbc_asm SOURCE.asm -o OUT.cso\n"
                  "       psoc_dxbc_asm --check SOURCE.asm OUT.cso\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *src_path = NULL, *out_path = NULL;
  int check = 0, i, rc = 0;
  char *src = NULL, err[256];
  size_t len = 0;
  dxbc_asm_blob blob;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) out_path = argv[++i];
    else if (strcmp(argv[i], "--check") == 0 && i + 2 < argc) {
      check = 1;
      src_path = argv[++i];
      out_path = argv[++i];
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage();
      return 0;
    } else if (argv[i][0] != '-' && !src_path) src_path = argv[i];
    else return usage();
  }
  if (!src_path || !out_path) return usage();
  if (read_file(src_path, &src, &len)) {
    fprintf(stderr, "psoc_dxbc_asm: cannot read %s\n", src_path);
    return 1;
  }
  if (dxbc_asm(src, len, &blob, err, sizeof err)) {
    const char *msg = err;
    /* "line N: message" -> "PATH:N: message" */
    if (strncmp(msg, "line ", 5) == 0) msg += 5;
    fprintf(stderr, "%s:%s\n", src_path, msg);
    free(src);
    return 1;
  }
  free(src);
  if (check) {
    char *old = NULL;
    size_t old_len = 0;
    if (read_file(out_path, &old, &old_len) || old_len != blob.size ||
        memcmp(old, blob.data, blob.size) != 0) {
      fprintf(stderr, "%s is not what %s assembles to (run psoc_dxbc_asm %s -o %s)\n", out_path,
              src_path, src_path, out_path);
      rc = 1;
    }
    free(old);
  } else {
    FILE *f = fopen(out_path, "wb");
    if (!f || fwrite(blob.data, 1, blob.size, f) != blob.size || fclose(f) != 0) {
      fprintf(stderr, "psoc_dxbc_asm: cannot write %s\n", out_path);
      rc = 1;
    }
  }
  dxbc_asm_free(&blob);
  return rc;
}
