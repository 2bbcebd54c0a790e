/*
** util.c: file reading, argument helpers and output helpers for the CLI.
*/
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "confine.h"
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
  uint64_t size;
  int kind;
  *hint = 0;
  if (psoc_plat_stream_stat(f, &kind, &size) != 0) return 0; /* let the read report it */
  if (kind == PSOC_PLAT_DIR) {
    snprintf(err, n, "is a directory");
    return -1;
  }
  if (kind == PSOC_PLAT_FILE) {
    if (size > (uint64_t)limit) {
      snprintf(err, n, "file too large (%llu bytes; the limit is %zu MiB)",
               (unsigned long long)size, limit / (1024 * 1024));
      return -1;
    }
    *hint = (size_t)size;
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

/* Is 'path' a regular file (symlinks followed)? 0, or -1 with the reason
** ("cannot open: ...", "is a directory", "not a regular file (a FIFO)"). */
static int check_regular(const char *path, uint64_t *size, char *err, size_t n) {
  int kind, e = psoc_plat_stat(path, &kind, size);
  if (e == 0 && kind == PSOC_PLAT_MISSING) e = ENOENT;
  if (e != 0) {
    set_err(err, n, "cannot open", e);
    return -1;
  }
  if (kind == PSOC_PLAT_DIR) {
    snprintf(err, n, "is a directory");
    return -1;
  }
  if (kind != PSOC_PLAT_FILE) {
    snprintf(err, n, "not a regular file (%s)", psoc_plat_kind_name(kind));
    return -1;
  }
  return 0;
}

static void *malloc_fn(void *ud, size_t size) {
  (void)ud;
  return malloc(size);
}

/* Read the regular file 'path' whole, without ever blocking (confine.h).
** psoc_confine_read stats the file itself: the reasons for a failure (a
** directory, a FIFO, too large) are asked of the file only then, so that
** a file read costs one stat, not two. */
static int read_named(const char *path, size_t limit, cli_file *out, char *err, size_t n) {
  uint64_t size;
  void *data;
  int e = psoc_confine_read(path, (uint64_t)limit, malloc_fn, NULL, &data, &out->size);
  out->data = (unsigned char *)data;
  if (e == 0) return 0;
  if (e == PSOC_CONFINE_TOO_LARGE || e == PSOC_PLAT_ENOTREG) {
    if (check_regular(path, &size, err, n) != 0) return -1;
    if (size > (uint64_t)limit) {
      snprintf(err, n, "file too large (%llu bytes; the limit is %zu MiB)",
               (unsigned long long)size, limit / (1024 * 1024));
      return -1;
    }
  }
  if (e == PSOC_PLAT_ENOTREG) snprintf(err, n, "not a regular file");
  else if (e == ENOMEM) snprintf(err, n, "out of memory");
  else if (e == PSOC_CONFINE_TOO_LARGE) snprintf(err, n, "file too large");
  else set_err(err, n, "cannot open", e);
  return -1;
}

typedef struct inputs_of_run {
  char *const *paths;
  size_t count;
} inputs_of_run;

/* Is the file 'id' none of the inputs of the run? */
static int not_an_input(void *ud, const psoc_plat_file_id *id) {
  const inputs_of_run *in = (const inputs_of_run *)ud;
  size_t i;
  for (i = 0; i < in->count; i++) {
    psoc_plat_file_id other;
    if (strcmp(in->paths[i], "-") == 0 || psoc_plat_file_id_of(in->paths[i], &other) != 0) continue;
    if (psoc_plat_same_file(id, &other)) return 0;
  }
  return 1;
}

int cli_redirect_stdout(const char *path, char *const *inputs, size_t input_count, char *err,
                        size_t n) {
  inputs_of_run in;
  psoc_plat_file_id id;
  int kind, e;
  in.paths = inputs;
  in.count = input_count;
  if (psoc_plat_lstat(path, &kind) == 0 && kind != PSOC_PLAT_MISSING) {
    if (kind == PSOC_PLAT_LINK) {
      snprintf(err, n, "refusing to write %s: it is a symbolic link (only a regular file is "
               "replaced)", path);
      return -1;
    }
    if (kind != PSOC_PLAT_FILE) {
      snprintf(err, n, "refusing to write %s: it is %s (only a regular file is replaced)", path,
               psoc_plat_kind_name(kind));
      return -1;
    }
    if (psoc_plat_file_id_of(path, &id) == 0 && !not_an_input(&in, &id)) {
      snprintf(err, n, "refusing to write %s: it is an input of this run", path);
      return -1;
    }
  }
  e = psoc_plat_redirect_stdout(path, not_an_input, &in);
  if (e == PSOC_PLAT_ENOTREG || e == PSOC_PLAT_EREFUSED) {
    snprintf(err, n, "refusing to write %s: it is not a regular file of its own", path);
    return -1;
  }
  if (e != 0) {
    snprintf(err, n, "cannot write %s: %s", path, psoc_plat_strerror(e));
    return -1;
  }
  return 0;
}

int cli_check_regular(const char *path, char *err, size_t err_size) {
  psoc_plat_file f;
  uint64_t size;
  int e;
  if (check_regular(path, &size, err, err_size) != 0) return -1;
  if ((e = psoc_plat_open_regular(path, &f)) != 0) {
    if (e == PSOC_PLAT_ENOTREG) snprintf(err, err_size, "not a regular file");
    else set_err(err, err_size, "cannot open", e);
    return -1;
  }
  psoc_plat_close(&f);
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
  if (!is_stdin) {
    rc = read_named(path, limit, out, err, err_size);
  } else {
    f = stdin;
    rc = precheck(f, limit, &hint, err, err_size);
    if (rc == 0) rc = read_all(f, limit, hint, out, err, err_size);
  }
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

#define WALK_DEPTH 32

/* Append every '*.lua' under 'dir' that is not '*_test.lua' (confine.h:
** sorted by name at each level, hidden entries skipped, symlinked folders
** not followed, regular files only). */
static int walk(cli_paths *l, const char *dir, const char *root, char *err, size_t n) {
  psoc_confine_paths found = { NULL, 0, 0 };
  size_t i;
  int e = psoc_confine_list(dir, ".lua", "_test.lua", WALK_DEPTH, (size_t)-1, &found);
  if (e == ENOMEM) snprintf(err, n, "out of memory");
  else if (e != 0) snprintf(err, n, "%s: cannot read the folder: %s", dir, psoc_plat_strerror(e));
  for (i = 0; e == 0 && i < found.count; i++)
    if (cli_paths_add(l, found.items[i], root) != 0) {
      snprintf(err, n, "out of memory");
      e = ENOMEM;
    }
  psoc_confine_paths_free(&found);
  return e == 0 ? 0 : -1;
}

int cli_collect_scripts(cli_paths *l, char **args, int count, char *err, size_t n) {
  int i;
  for (i = 0; i < count; i++) {
    int kind = PSOC_PLAT_MISSING;
    size_t before = l->count;
    if (strcmp(args[i], "-") != 0 && psoc_plat_stat(args[i], &kind, NULL) == 0 &&
        kind == PSOC_PLAT_DIR) {
      if (walk(l, args[i], args[i], err, n) != 0) return -1;
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

int cli_option_value(const char *command, const char *arg, const char *name, int argc, char **argv,
                     int *i, const char **out) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) == 0 && arg[n] == '=') {
    *out = arg + n + 1;
    return 1;
  }
  if (strcmp(arg, name) != 0) return 0;
  if (*i + 1 >= argc) {
    cli_usage_error(command, "%s needs a value", name);
    return -1;
  }
  *out = argv[++*i];
  return 1;
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

/* Runs of text that need no escape go out in one fwrite (stderr is not
** buffered: a call per character was a write(2) per character). */
static void escape_text(FILE *out, const char *s, size_t len, int keep_lines) {
  const unsigned char *p = (const unsigned char *)s, *end = p + len, *run = p;
  while (p < end) {
    unsigned long cp = 0;
    size_t n = utf8_sequence(p, (size_t)(end - p), &cp);
    if (n != 0 && ((keep_lines && (cp == '\n' || cp == '\t')) ||
                   (cp >= 0x20 && cp != 0x7f && cp != '\n' && cp != '\t' && cp != '\r' &&
                    !is_hidden_control(cp)))) {
      p += n; /* as it is */
      continue;
    }
    if (p > run) fwrite(run, 1, (size_t)(p - run), out);
    if (n == 0) { /* a byte that is not UTF-8 */
      fprintf(out, "\\x%02x", *p);
      n = 1;
    } else if (cp == '\n') fputs("\\n", out);
    else if (cp == '\t') fputs("\\t", out);
    else if (cp == '\r') fputs("\\r", out);
    else if (cp < 0x20 || cp == 0x7f) fprintf(out, "\\x%02lx", cp);
    else fprintf(out, "\\u%04lx", cp); /* a hidden control */
    p += n;
    run = p;
  }
  if (p > run) fwrite(run, 1, (size_t)(p - run), out);
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
