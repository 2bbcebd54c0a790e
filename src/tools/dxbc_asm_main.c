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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dxbc_asm.h"
#include "platform.h"

/* The whole regular file 'path' (at most 16 MiB: not a small shader),
** through the platform file. 0 or an errno value (PSOC_PLAT_ENOTREG). */
static int read_file(const char *path, char **data, size_t *size) {
  psoc_plat_file f;
  char *p;
  size_t got = 0;
  int e = psoc_plat_open_regular(path, &f);
  if (e) return e;
  if (f.size > ((uint64_t)16 << 20)) {
    psoc_plat_close(&f);
    return EFBIG;
  }
  p = malloc(f.size ? (size_t)f.size : 1);
  if (!p) {
    psoc_plat_close(&f);
    return ENOMEM;
  }
  e = psoc_plat_read(&f, p, (size_t)f.size, &got);
  psoc_plat_close(&f);
  if (e) {
    free(p);
    return e;
  }
  *data = p;
  *size = got;
  return 0;
}

static int usage(void) {
  fprintf(stderr, "usage: psoc_dxbc_asm SOURCE.asm -o OUT.cso\n"
                  "       psoc_dxbc_asm --check SOURCE.asm OUT.cso\n");
  return 2;
}

int main(int argc, char **argv) {
  const char *src_path = NULL, *out_path = NULL;
  int check = 0, i, rc = 0, e;
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
  if ((e = read_file(src_path, &src, &len)) != 0) {
    fprintf(stderr, "psoc_dxbc_asm: cannot read %s: %s\n", src_path, psoc_plat_strerror(e));
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
    /* atomically: a failed write leaves the old OUT.cso (or none) */
    if ((e = psoc_plat_write_atomic(out_path, blob.data, blob.size)) != 0) {
      fprintf(stderr, "psoc_dxbc_asm: cannot write %s: %s\n", out_path, psoc_plat_strerror(e));
      rc = 1;
    }
  }
  dxbc_asm_free(&blob);
  return rc;
}
