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

/* Length of the well-formed UTF-8 sequence at p (at most 'left' bytes
** readable), with its code point in *cp; 0 when the byte at p does not start
** one (a stray continuation byte, an overlong form, a surrogate, a value
** above U+10FFFF or a truncated sequence). Plain ASCII is length 1. */
static size_t utf8_sequence(const unsigned char *p, size_t left, unsigned long *cp) {
  size_t n, i;
  unsigned long v;
  if (p[0] < 0x80) {
    *cp = p[0];
    return 1;
  }
  if (p[0] >= 0xc2 && p[0] <= 0xdf) {
    n = 2;
    v = p[0] & 0x1fu;
  } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
    n = 3;
    v = p[0] & 0x0fu;
  } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
    n = 4;
    v = p[0] & 0x07u;
  } else {
    return 0;
  }
  if (left < n) return 0;
  for (i = 1; i < n; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    v = (v << 6) | (p[i] & 0x3fu);
  }
  if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff))) return 0;
  if (v >= 0xd800 && v <= 0xdfff) return 0;
  *cp = v;
  return n;
}

/* Code points that steer a terminal or reorder text: C1 controls (some
** terminals read U+009B as CSI) and the bidirectional embeddings, overrides
** and isolates (text that displays differently from what it says). */
static int is_hidden_control(unsigned long cp) {
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

void cli_text_len(FILE *out, const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s, *end = p + len;
  while (p < end) {
    unsigned long cp = 0;
    size_t n = utf8_sequence(p, (size_t)(end - p), &cp);
    if (n == 0) { /* a byte that is not UTF-8 */
      fprintf(out, "\\x%02x", *p);
      p++;
      continue;
    }
    if (cp == '\n') fputs("\\n", out);
    else if (cp == '\t') fputs("\\t", out);
    else if (cp == '\r') fputs("\\r", out);
    else if (cp < 0x20 || cp == 0x7f) fprintf(out, "\\x%02lx", cp);
    else if (is_hidden_control(cp)) fprintf(out, "\\u%04lx", cp);
    else fwrite(p, 1, n, out);
    p += n;
  }
}

void cli_text(FILE *out, const char *s) {
  if (s) cli_text_len(out, s, strlen(s));
}

void cli_json_string_len(FILE *out, const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s, *end = p + len;
  fputc('"', out);
  while (p < end) {
    unsigned long cp = 0;
    size_t n = utf8_sequence(p, (size_t)(end - p), &cp);
    if (n == 0) { /* not UTF-8: one replacement character per byte */
      fputs("\\ufffd", out);
      p++;
      continue;
    }
    switch (cp) {
    case '"': fputs("\\\"", out); break;
    case '\\': fputs("\\\\", out); break;
    case '\n': fputs("\\n", out); break;
    case '\t': fputs("\\t", out); break;
    case '\r': fputs("\\r", out); break;
    default:
      if (cp < 0x20 || cp == 0x7f || is_hidden_control(cp)) fprintf(out, "\\u%04lx", cp);
      else fwrite(p, 1, n, out);
    }
    p += n;
  }
  fputc('"', out);
}

void cli_json_string(FILE *out, const char *s) {
  cli_json_string_len(out, s ? s : "", s ? strlen(s) : 0);
}
