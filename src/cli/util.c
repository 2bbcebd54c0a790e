/*
** util.c: file reading, argument helpers and output helpers for the CLI.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifndef _WIN32
#include <unistd.h>
#endif

#include "cli.h"
#include "platform.h"
#include "psoc.h"

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

/* "a FIFO", "a directory", ...: what a non-regular file is, for errors. */
static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
#ifdef S_ISFIFO
  if (S_ISFIFO(mode)) return "a FIFO";
#endif
#ifdef S_ISCHR
  if (S_ISCHR(mode)) return "a character device";
#endif
#ifdef S_ISBLK
  if (S_ISBLK(mode)) return "a block device";
#endif
#ifdef S_ISSOCK
  if (S_ISSOCK(mode)) return "a socket";
#endif
  return "not a regular file";
}

static void not_regular(char *err, size_t n, mode_t mode) {
  if (S_ISDIR(mode)) snprintf(err, n, "is a directory");
  else snprintf(err, n, "not a regular file (%s)", file_kind(mode));
}

/* Open 'path' for reading without ever blocking in open() (a FIFO without a
** writer, a tty), and refuse it unless it is a regular file. */
static FILE *open_regular(const char *path, char *err, size_t n) {
  struct stat st;
  FILE *f;
#ifdef _WIN32
  if (stat(path, &st) != 0) {
    set_err(err, n, "cannot open", errno ? errno : ENOENT);
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    not_regular(err, n, st.st_mode);
    return NULL;
  }
  f = fopen(path, "rb");
  if (!f) set_err(err, n, "cannot open", errno ? errno : ENOENT);
  return f;
#else
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    set_err(err, n, "cannot open", errno ? errno : ENOENT);
    return NULL;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fstat(fd, &st) != 0) set_err(err, n, "cannot open", errno ? errno : EIO);
    else not_regular(err, n, st.st_mode);
    close(fd);
    return NULL;
  }
  f = fdopen(fd, "rb");
  if (!f) {
    set_err(err, n, "cannot open", errno ? errno : EIO);
    close(fd);
  }
  return f;
#endif
}

#ifdef _WIN32
int cli_redirect_stdout(const char *path, char *const *inputs, size_t input_count, char *err,
                        size_t n) {
  (void)path, (void)inputs, (void)input_count;
  snprintf(err, n, "an output file is not supported on this platform; redirect stdout");
  return -1;
}
#else
/* Is the file behind 'st' one of 'inputs' (by device and inode)? */
static int is_input(const struct stat *st, char *const *inputs, size_t input_count) {
  size_t i;
  for (i = 0; i < input_count; i++) {
    struct stat in;
    if (strcmp(inputs[i], "-") == 0 || stat(inputs[i], &in) != 0) continue;
    if (in.st_dev == st->st_dev && in.st_ino == st->st_ino) return 1;
  }
  return 0;
}

int cli_redirect_stdout(const char *path, char *const *inputs, size_t input_count, char *err,
                        size_t n) {
  struct stat st;
  int fd, flags;
  if (lstat(path, &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      snprintf(err, n, "refusing to write %s: it is a symbolic link (only a regular file is "
               "replaced)", path);
      return -1;
    }
    if (!S_ISREG(st.st_mode)) {
      snprintf(err, n, "refusing to write %s: it is %s (only a regular file is replaced)", path,
               file_kind(st.st_mode));
      return -1;
    }
    if (is_input(&st, inputs, input_count)) {
      snprintf(err, n, "refusing to write %s: it is an input of this run", path);
      return -1;
    }
  }
  /* no truncation yet: the file opened may not be the one checked above */
  fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0666);
  if (fd < 0) {
    snprintf(err, n, "cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || is_input(&st, inputs, input_count)) {
    snprintf(err, n, "refusing to write %s: it is not a regular file of its own", path);
    close(fd);
    return -1;
  }
  flags = fcntl(fd, F_GETFL);
  if ((flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) || ftruncate(fd, 0) != 0 ||
      fflush(stdout) != 0 || dup2(fd, STDOUT_FILENO) < 0) {
    snprintf(err, n, "cannot write %s: %s", path, strerror(errno));
    close(fd);
    return -1;
  }
  close(fd);
  return 0;
}
#endif

int cli_check_regular(const char *path, char *err, size_t err_size) {
  FILE *f;
  errno = 0;
  f = open_regular(path, err, err_size);
  if (!f) return -1;
  fclose(f);
  return 0;
}

int cli_read_file(const char *path, size_t limit, cli_file *out, char *err, size_t err_size) {
  int is_stdin = strcmp(path, "-") == 0;
  FILE *f;
  size_t hint;
  int rc;
  out->data = NULL;
  out->size = 0;
  errno = 0;
  f = is_stdin ? stdin : open_regular(path, err, err_size);
  if (!f) return -1;
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

/* ---- path lists and directory walks ---------------------------------- */

int cli_paths_add(cli_paths *l, const char *path, const char *root) {
  size_t n = strlen(path) + 1;
  char *copy;
  if (l->count == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    cli_path *p = realloc(l->items, cap * sizeof *p);
    if (!p) return -1;
    l->items = p;
    l->cap = cap;
  }
  if (!(copy = malloc(n))) return -1;
  memcpy(copy, path, n);
  l->items[l->count].path = copy;
  l->items[l->count].root = root;
  l->count++;
  return 0;
}

void cli_paths_free(cli_paths *l) {
  size_t i;
  for (i = 0; i < l->count; i++) free(l->items[i].path);
  free(l->items);
  memset(l, 0, sizeof *l);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

#define WALK_DEPTH 32

/* Append every '*.lua' under 'dir' that is not '*_test.lua', sorted by name
** at each level, hidden entries skipped, symlinked folders not followed.
** Directories are read through the platform file (POSIX and Win32). */
static int walk(cli_paths *l, const char *dir, const char *root, int depth, char *err,
                size_t n) {
  psoc_plat_dir *d;
  const char *entry = NULL;
  char **names = NULL;
  size_t count = 0, cap = 0, i;
  int rc = 0, e;
  if (depth > WALK_DEPTH) return 0;
  if ((e = psoc_plat_dir_open(dir, &d)) != 0) {
    snprintf(err, n, "%s: cannot read the folder: %s", dir, psoc_plat_strerror(e));
    return -1;
  }
  while ((entry = psoc_plat_dir_next(d)) != NULL) {
    size_t len = strlen(entry) + 1;
    if (entry[0] == '.') continue;
    if (count == cap) {
      char **p = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof *p);
      if (!p) break;
      names = p;
    }
    if (!(names[count] = malloc(len))) break;
    memcpy(names[count++], entry, len);
  }
  psoc_plat_dir_close(d);
  if (entry != NULL) {
    snprintf(err, n, "out of memory");
    rc = -1;
  }
  if (count) qsort(names, count, sizeof *names, cmp_names);
  for (i = 0; rc == 0 && i < count; i++) {
    char full[PSOC_PLAT_PATH_MAX];
    int kind;
    size_t dl = strlen(dir);
    snprintf(full, sizeof full, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", names[i]);
    if (psoc_plat_lstat(full, &kind) != 0) continue;
    if (kind == PSOC_PLAT_DIR) rc = walk(l, full, root, depth + 1, err, n);
    else if (ends_with(names[i], ".lua") && !ends_with(names[i], "_test.lua") &&
             cli_paths_add(l, full, root) != 0) {
      snprintf(err, n, "out of memory");
      rc = -1;
    }
  }
  for (i = 0; i < count; i++) free(names[i]);
  free(names);
  return rc;
}

int cli_collect_scripts(cli_paths *l, char **args, int count, char *err, size_t n) {
  int i;
  for (i = 0; i < count; i++) {
    size_t before = l->count;
    if (strcmp(args[i], "-") != 0 && psoc_plat_is_dir(args[i]) == 0) {
      if (walk(l, args[i], args[i], 0, err, n) != 0) return -1;
      if (l->count == before) {
        snprintf(err, n, "%s: no material scripts (*.lua, not *_test.lua) in the folder",
                 args[i]);
        return -1;
      }
    } else if (cli_paths_add(l, args[i], NULL) != 0) {
      snprintf(err, n, "out of memory");
      return -1;
    }
  }
  return 0;
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

/* Edit distance of a and b, both short; larger than 'cap' counts as cap + 1. */
static size_t distance(const char *a, const char *b, size_t cap) {
  size_t row[64], la = strlen(a), lb = strlen(b), i, j;
  if (la >= sizeof row / sizeof row[0] || lb >= sizeof row / sizeof row[0]) return cap + 1;
  for (j = 0; j <= lb; j++) row[j] = j;
  for (i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (j = 1; j <= lb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb] > cap ? cap + 1 : row[lb];
}

/* Between two names equally far from 'typed', is 'a' the better guess
** than 'b'? The longer common prefix wins, then the nearer character where
** they first differ (desktop_fl12_3 -> desktop_fl12_2, not 12_0). */
static int closer(const char *typed, const char *a, const char *b) {
  size_t pa = 0, pb = 0;
  int da, db;
  while (typed[pa] && typed[pa] == a[pa]) pa++;
  while (typed[pb] && typed[pb] == b[pb]) pb++;
  if (pa != pb) return pa > pb;
  da = abs((unsigned char)typed[pa] - (unsigned char)a[pa]);
  db = abs((unsigned char)typed[pb] - (unsigned char)b[pb]);
  return da < db;
}

int cli_find_profile(const char *command, const char *name, const psoc_profile **out) {
  const psoc_profile *p, *best = NULL;
  size_t i, best_d;
  *out = psoc_profile_find(name);
  if (*out) return 0;
  /* suggest names at most 3 edits away, fewer for short names */
  best_d = strlen(name) / 3 + 2;
  if (best_d > 4) best_d = 4;
  for (i = 0; (p = psoc_profile_at(i)) != NULL; i++) {
    size_t d = distance(name, p->name, best_d);
    if (d < best_d || (d == best_d && best && closer(name, p->name, best->name))) {
      best_d = d;
      best = p;
    }
  }
  if (best)
    return cli_usage_error(command, "unknown profile '%s' (did you mean '%s'? the list is in "
                           "'psoc check --help')", name, best->name);
  return cli_usage_error(command, "unknown profile '%s' (the list is in 'psoc check --help')",
                         name);
}

int cli_parse_count(const char *text, size_t *out) {
  char *end;
  unsigned long long v;
  if (!text || *text < '0' || *text > '9') return -1;
  errno = 0;
  v = strtoull(text, &end, 10);
  if (*end != '\0' || errno == ERANGE || v > (unsigned long long)SIZE_MAX) return -1;
  *out = (size_t)v;
  return 0;
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

static void escape_text(FILE *out, const char *s, size_t len, int keep_lines) {
  const unsigned char *p = (const unsigned char *)s, *end = p + len;
  while (p < end) {
    unsigned long cp = 0;
    size_t n = utf8_sequence(p, (size_t)(end - p), &cp);
    if (n == 0) { /* a byte that is not UTF-8 */
      fprintf(out, "\\x%02x", *p);
      p++;
      continue;
    }
    if (keep_lines && (cp == '\n' || cp == '\t')) fputc((int)cp, out);
    else if (cp == '\n') fputs("\\n", out);
    else if (cp == '\t') fputs("\\t", out);
    else if (cp == '\r') fputs("\\r", out);
    else if (cp < 0x20 || cp == 0x7f) fprintf(out, "\\x%02lx", cp);
    else if (is_hidden_control(cp)) fprintf(out, "\\u%04lx", cp);
    else fwrite(p, 1, n, out);
    p += n;
  }
}

void cli_text_len(FILE *out, const char *s, size_t len) { escape_text(out, s, len, 0); }

void cli_text_block(FILE *out, const char *s, size_t len) { escape_text(out, s, len, 1); }

void cli_utf8_write(FILE *out, const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s, *end = p + len;
  while (p < end) {
    unsigned long cp = 0;
    size_t n = utf8_sequence(p, (size_t)(end - p), &cp);
    if (n == 0) {
      fputs("\xef\xbf\xbd", out); /* U+FFFD */
      p++;
    } else {
      fwrite(p, 1, n, out);
      p += n;
    }
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
