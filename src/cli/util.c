/*
** util.c: file reading, argument helpers and output helpers for the CLI.
*/
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* malloc's alignment covers max_align_t, so every buffer it returns can
** hold a stream (whose subobjects are 8-byte aligned). */
_Static_assert(_Alignof(max_align_t) >= 8, "malloc must return 8-byte aligned memory");

#define READ_CHUNK ((size_t)64 * 1024)

static void set_err(char *err, size_t n, const char *what, int code) {
  snprintf(err, n, "%s: %s", what, strerror(code));
}

/* Fail early on directories and on regular files above the limit; returns
** a capacity hint (0 when the size is unknown, e.g. a pipe). */
static int precheck(FILE *f, size_t limit, size_t *hint, char *err, size_t n) {
  struct stat st;
  *hint = 0;
  if (fstat(fileno(f), &st) != 0) return 0; /* let the read report it */
  if (S_ISDIR(st.st_mode)) {
    snprintf(err, n, "is a directory");
    return -1;
  }
  if (S_ISREG(st.st_mode) && st.st_size >= 0) {
    if ((uintmax_t)st.st_size > (uintmax_t)limit) {
      snprintf(err, n, "file too large (%jd bytes; the limit is %zu MiB)", (intmax_t)st.st_size,
               limit / (1024 * 1024));
      return -1;
    }
    *hint = (size_t)st.st_size;
  }
  return 0;
}

/* Make room for at least one more byte than 'need' (up to limit + 1, so
** that reading one byte past the limit detects an oversized input). */
static int grow(cli_file *out, size_t *cap, size_t need, size_t limit) {
  size_t want = *cap ? *cap : READ_CHUNK;
  unsigned char *p;
  while (want <= need) want = want > (SIZE_MAX / 2) ? SIZE_MAX : want * 2;
  if (want > limit + 1) want = limit + 1;
  if (want < 8) want = 8;
  if (want <= *cap) return 0;
  p = realloc(out->data, want);
  if (!p) return -1;
  out->data = p;
  *cap = want;
  return 0;
}

static int read_all(FILE *f, size_t limit, size_t hint, cli_file *out, char *err, size_t n) {
  size_t cap = 0;
  if (grow(out, &cap, hint, limit) != 0) goto nomem;
  for (;;) {
    size_t got;
    if (out->size == cap && grow(out, &cap, out->size, limit) != 0) goto nomem;
    if (out->size == cap) break; /* cap == limit + 1 and full: too large */
    got = fread(out->data + out->size, 1, cap - out->size, f);
    out->size += got;
    if (got == 0) break;
  }
  if (ferror(f)) {
    set_err(err, n, "read error", errno ? errno : EIO);
    return -1;
  }
  if (out->size > limit) {
    snprintf(err, n, "file too large (more than %zu MiB)", limit / (1024 * 1024));
    return -1;
  }
  return 0;
nomem:
  snprintf(err, n, "out of memory");
  return -1;
}

int cli_read_file(const char *path, size_t limit, cli_file *out, char *err, size_t err_size) {
  int is_stdin = strcmp(path, "-") == 0;
  FILE *f;
  size_t hint;
  int rc;
  out->data = NULL;
  out->size = 0;
  errno = 0;
  f = is_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    set_err(err, err_size, "cannot open", errno ? errno : ENOENT);
    return -1;
  }
  rc = precheck(f, limit, &hint, err, err_size);
  if (rc == 0) rc = read_all(f, limit, hint, out, err, err_size);
  if (!is_stdin) fclose(f);
  if (rc != 0) cli_file_free(out);
  return rc;
}

void cli_file_free(cli_file *file) {
  free(file->data);
  file->data = NULL;
  file->size = 0;
}

const char *cli_display_name(const char *path) {
  return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

int cli_is_help(const char *arg) {
  return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int cli_has_arg(int argc, char **argv, const char *flag) {
  int i;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], flag) == 0) return 1;
  }
  return 0;
}

int cli_usage_error(const char *command, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "psoc%s%s: ", command ? " " : "", command ? command : "");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\ntry 'psoc%s%s --help'\n", command ? " " : "", command ? command : "");
  return CLI_EXIT_USAGE;
}

int cli_write_file(void *ud, const char *text, size_t length) {
  FILE *out = ud;
  return fwrite(text, 1, length, out) == length ? 0 : -1;
}

void cli_json_string(FILE *out, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  fputc('"', out);
  for (; *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", out); break;
    case '\\': fputs("\\\\", out); break;
    case '\n': fputs("\\n", out); break;
    case '\t': fputs("\\t", out); break;
    case '\r': fputs("\\r", out); break;
    default:
      if (*p < 0x20)
        fprintf(out, "\\u%04x", *p);
      else
        fputc(*p, out);
    }
  }
  fputc('"', out);
}
