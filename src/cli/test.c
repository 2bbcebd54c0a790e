/*
** test.c: 'psoc test': find *_test.lua files, run each in a fresh
** sandboxed state with the pso module and the test API (pso_test.h), and
** report: readable text (default), TAP version 13 (--tap), and a JUnit
** XML file for CI systems (--junit FILE). The last line of the output is
** "N passed, N failed" (a comment "# N passed, N failed" under --tap).
*/
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "cli.h"
#include "platform.h" /* clock, directories, files (POSIX and Win32) */
#include "pso_test.h"
#include "psoc.h"
#include "psol.h"

#define MAX_ROOTS 64
#define WALK_DEPTH 32
#define LOG_MAX ((size_t)64 * 1024) /* print() output kept per test */
#define MESSAGE_MAX ((size_t)16 * 1024) /* failure message kept per test */
#define TRACE_MAX ((size_t)4 * 1024) /* traceback kept per test */
#define NAME_MAX_ ((size_t)1024)      /* test name, file:line kept (each) */
#define FULL_MESSAGE_MAX (MESSAGE_MAX + NAME_MAX_ + 128) /* where: message (note) */
#define FILE_KEPT_MAX ((size_t)1 << 20) /* messages and output kept per test file */
#define DEFAULT_RUN_BUDGET ((uint64_t)5000000000u) /* instructions per run */
#define DEFAULT_RUN_TIME 600u         /* seconds per run */

static const char test_help[] =
  "usage: psoc test [--tap] [--junit FILE] [--root DIR]... [--filter TEXT]\n"
  "                 [--budget N] [--memory MIB] [--run-budget N] [--run-time S]\n"
  "                 [--werror] [--allow-empty] [PATH...]\n"
  "\n"
  "Run test suites written in Lua over materials. Each PATH is a test file (run\n"
  "whatever its name) or a directory searched recursively for files named\n"
  "*_test.lua (hidden entries skipped; sorted, so the order is stable). The\n"
  "default PATH is the current directory.\n"
  "\n"
  "Every test file runs in a fresh sandboxed Lua state (the one material scripts\n"
  "get) with these globals: pso (the module), describe, it, before_each,\n"
  "after_each, expect and materials. Every material a test loads runs in a\n"
  "fresh state of its own (it cannot see or change the test API, the test file\n"
  "or another material); its pipelines are copied into the test's state. A\n"
  "failed expectation fails its test even when the test catches the error.\n"
  "Tests look like\n"
  "\n"
  "  describe(\"lit\", function()\n"
  "    local lit = materials.load(\"lit.lua\")[1]\n"
  "    it(\"tests depth\", function()\n"
  "      expect(lit.depth_stencil.func).to_equal(\"greater_equal\")\n"
  "      expect(lit).to_be_valid { profile = \"desktop_fl12_0\" }\n"
  "    end)\n"
  "  end)\n"
  "\n"
  "Matchers: to_equal (deep; pipelines by effective state), to_be, to_be_truthy,\n"
  "to_be_falsy, to_be_nil, to_be_a, to_match, to_contain, to_have_length,\n"
  "to_be_close_to, to_be_greater_than, to_be_less_than, to_be_valid,\n"
  "to_fail_with, to_report; expect(x).never.MATCHER negates. materials.load,\n"
  "files, each, all, check, where, profiles reach the material library. The API\n"
  "is in docs/testing.md.\n"
  "\n"
  "options:\n"
  "  --tap              TAP version 13 on stdout instead of the text report\n"
  "  --junit FILE       also write a JUnit XML report to FILE (atomically: a\n"
  "                     temporary file in the same folder, renamed at the end).\n"
  "                     The folder is created and the file checked writable\n"
  "                     before any test runs. FILE must be new or a regular file\n"
  "                     (a symlink, FIFO, device or directory is refused), not\n"
  "                     a test file of the run, and not end in .lua\n"
  "  --root DIR         a material root (repeatable): materials.each() and\n"
  "                     materials.all() walk these, and files the tests name\n"
  "                     resolve inside them or the test file's directory;\n"
  "                     default: the current directory (walked only when a\n"
  "                     test names a directory)\n"
  "  --filter TEXT      run only the tests whose file or name (\"describe >\n"
  "                     it\") contains TEXT (plain text, not a pattern)\n"
  "  --budget N         VM instructions allowed to each test (default\n"
  "                     50000000); a test that exceeds it fails with\n"
  "                     \"instruction budget exceeded\" and the run goes on\n"
  "  --memory MIB       memory each test file's state may use (default 64); each\n"
  "                     material's own state has the same limit\n"
  "  --run-budget N     VM instructions the whole run may use (default\n"
  "                     5000000000); when spent, the tests left are not run\n"
  "                     and the run fails\n"
  "  --run-time S       seconds the whole run may take (default 600), likewise\n"
  "  --werror           warnings count as errors in the checks of the test API:\n"
  "                     to_be_valid fails on a warning, and to_fail_with,\n"
  "                     to_report and materials.check see each warning as an\n"
  "                     error (severity \"error\", its message ending in \"(a\n"
  "                     warning; an error under --werror)\"); p:check() itself\n"
  "                     is unchanged\n"
  "  --allow-empty      a test file with no tests, a run with no test files or\n"
  "                     one where no test ran (--filter) passes; without it\n"
  "                     such a file or run fails\n"
  "  -h, --help         show this help\n"
  "\n"
  "The budget is reset for every test (before_each and after_each hooks count\n"
  "toward their test, and so do the materials it evaluates) and for the loading\n"
  "of each file (describe bodies). A file may declare at most 10000 tests.\n"
  "Memory is limited per test file (--memory); the materials a file loads are\n"
  "evaluated once and shared by its tests.\n"
  "\n"
  "text output: the file name, then one line per test, '  ok    NAME' or\n"
  "'  FAIL  NAME' (a failed expectation) or '  ERROR NAME' (any other error,\n"
  "with a traceback of the test's frames); then every failure in detail,\n"
  "  FILE:LINE: what was expected\n"
  "    expected: ...\n"
  "      actual: ...\n"
  "and last the line 'N passed, N failed' (errors count as failed; a test\n"
  "file that does not load, e.g. a syntax error, counts as one failed test).\n"
  "print() output of a test follows its line, indented by '    | '. Control\n"
  "characters in names, messages and output are escaped (\\n, \\x1b), so a test\n"
  "cannot forge report lines. Kept per test: 16 KiB of message, 64 KiB of\n"
  "output; per file 1 MiB of both (then \"message truncated (N bytes)\").\n"
  "\n"
  "exit status: 0 every test passed, 1 a test failed, a file did not load or\n"
  "declared no test, no test ran, or the run's budget ran out (each counts as a\n"
  "failed test in the last line), 2 usage or I/O error (a PATH that does not\n"
  "exist, no test files found, the JUnit file cannot be written).\n";

typedef struct test_options {
  char **paths;
  int path_count;
  const char *roots[MAX_ROOTS];
  size_t root_count;
  int tap;
  const char *junit;
  const char *filter;
  uint64_t budget;
  size_t memory;
  uint64_t run_budget;
  unsigned run_time;
  int werror;
  int allow_empty;
} test_options;

/* One outcome: a test, or a file that did not load (name NULL). */
typedef struct outcome {
  char *file;
  char *name;       /* NULL: the file itself failed to load */
  char *defined;    /* "file:line" */
  psot_status status;
  char *where;
  char *message;
  char *traceback;
  char *output;     /* print() output */
  double seconds;
} outcome;

typedef struct text_buf {
  char *data;
  size_t len, cap;
  int truncated;
} text_buf;

typedef struct runner {
  const test_options *o;
  outcome *items;
  size_t count, cap;
  size_t passed, failed, errors;
  size_t tap_index;
  int oom;
  text_buf log;     /* print() output being collected */
  size_t file_kept; /* bytes of messages and output kept for the current file */
  size_t ran;       /* tests run */
  uint64_t spent;   /* instructions used by the run */
  double deadline;  /* now_seconds() when the run's time is up */
  int stopped;      /* the run's budget or time ran out */
  FILE *junit;      /* the JUnit temporary file, opened before the run */
  char *junit_tmp;
} runner;

/* ---- small helpers ------------------------------------------------------ */

static char *dup_or_null(const char *s) {
  size_t n;
  char *p;
  if (!s) return NULL;
  n = strlen(s) + 1;
  p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

static double now_seconds(void) { return (double)psoc_plat_now_ns() / 1e9; }

static int buf_reserve(text_buf *b, size_t extra) {
  size_t cap = b->cap ? b->cap : 256;
  char *p;
  if (b->len + extra + 1 <= b->cap) return 1;
  while (cap < b->len + extra + 1) cap *= 2;
  p = realloc(b->data, cap);
  if (!p) return 0;
  b->data = p;
  b->cap = cap;
  return 1;
}

/* Append, keeping at most LOG_MAX bytes (then a note). */
static void buf_add(text_buf *b, const char *s, size_t n) {
  static const char more[] = "(output truncated)\n";
  int cut = 0;
  if (b->truncated) return;
  if (b->len + n > LOG_MAX) {
    n = LOG_MAX - b->len;
    cut = 1;
  }
  if (!buf_reserve(b, n + sizeof more)) {
    b->truncated = 1;
    return;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  if (cut) {
    memcpy(b->data + b->len, more, sizeof more - 1);
    b->len += sizeof more - 1;
    b->truncated = 1;
  }
  b->data[b->len] = '\0';
}

static void buf_clear(text_buf *b) {
  b->len = 0;
  b->truncated = 0;
  if (b->data) b->data[0] = '\0';
}

/* print() output; NUL bytes are shown as "\0" (reports are C strings). */
static void log_capture(void *ud, const char *text, size_t len) {
  text_buf *b = &((runner *)ud)->log;
  const char *nul;
  while ((nul = memchr(text, '\0', len)) != NULL) {
    buf_add(b, text, (size_t)(nul - text));
    buf_add(b, "\\0", 2);
    len -= (size_t)(nul - text) + 1;
    text = nul + 1;
  }
  buf_add(b, text, len);
}

/* Print each line of 'text' with 'prefix' (nothing for empty text), the
** control characters inside a line escaped (cli_text). */
static void print_lines(FILE *out, const char *prefix, const char *text) {
  while (text && *text) {
    const char *nl = strchr(text, '\n');
    size_t n = nl ? (size_t)(nl - text) : strlen(text);
    fputs(prefix, out);
    cli_text_len(out, text, n);
    fputc('\n', out);
    text += n + (nl ? 1 : 0);
  }
}

/* ---- finding test files --------------------------------------------------- */

typedef struct file_list {
  char **items;
  size_t count, cap;
} file_list;

static int list_add(file_list *l, const char *path) {
  char *copy;
  size_t i;
  for (i = 0; i < l->count; i++)
    if (strcmp(l->items[i], path) == 0) return 0;
  if (l->count == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    char **p = realloc(l->items, cap * sizeof *p);
    if (!p) return -1;
    l->items = p;
    l->cap = cap;
  }
  if (!(copy = dup_or_null(path))) return -1;
  l->items[l->count++] = copy;
  return 0;
}

static void list_free(file_list *l) {
  size_t i;
  for (i = 0; i < l->count; i++) free(l->items[i]);
  free(l->items);
  memset(l, 0, sizeof *l);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void join_path(char *out, size_t n, const char *dir, const char *name) {
  size_t len = strlen(dir);
  if (strcmp(dir, ".") == 0) snprintf(out, n, "%s", name);
  else snprintf(out, n, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", name);
}

static int cmp_path(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *_test.lua under 'dir' (symlinked directories are not followed). */
static int walk(file_list *l, const char *dir, int depth) {
  psoc_plat_dir *d;
  const char *entry;
  file_list names = { 0 };
  size_t i;
  int rc = 0, e;
  if (depth > WALK_DEPTH) return 0;
  if ((e = psoc_plat_dir_open(dir, &d)) != 0) {
    fprintf(stderr, "psoc test: cannot read directory '%s': %s\n", dir, psoc_plat_strerror(e));
    return -1;
  }
  while ((entry = psoc_plat_dir_next(d)) != NULL) {
    if (entry[0] == '.') continue;
    if (list_add(&names, entry) != 0) {
      rc = -1;
      break;
    }
  }
  psoc_plat_dir_close(d);
  if (names.count) qsort(names.items, names.count, sizeof *names.items, cmp_path);
  for (i = 0; rc == 0 && i < names.count; i++) {
    char full[PSOC_PLAT_PATH_MAX];
    uint64_t size;
    int kind;
    join_path(full, sizeof full, dir, names.items[i]);
    if (psoc_plat_lstat(full, &kind) != 0) continue;
    if (kind == PSOC_PLAT_DIR) rc = walk(l, full, depth + 1);
    else if (ends_with(names.items[i], "_test.lua") && psoc_plat_regular_size(full, &size) == 0)
      rc = list_add(l, full);
  }
  list_free(&names);
  return rc;
}

static int find_files(const test_options *o, file_list *files) {
  int i;
  static char *dot[] = { "." };
  char **paths = o->path_count ? o->paths : dot;
  int n = o->path_count ? o->path_count : 1;
  for (i = 0; i < n; i++) {
    int e = psoc_plat_is_dir(paths[i]);
    if (e != 0 && e != ENOTDIR) {
      fprintf(stderr, "psoc test: %s: %s\n", paths[i], psoc_plat_strerror(e));
      return CLI_EXIT_USAGE;
    }
    if (e == 0) {
      if (walk(files, paths[i], 0) != 0) return CLI_EXIT_USAGE;
    } else if (list_add(files, paths[i]) != 0) {
      fprintf(stderr, "psoc test: out of memory\n");
      return CLI_EXIT_USAGE;
    }
  }
  if (files->count == 0 && o->allow_empty) return -2;
  if (files->count == 0) {
    fprintf(stderr, "psoc test: no test files (*_test.lua) under %s%s\n", paths[0],
            n > 1 ? " and the other paths" : "");
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* ---- outcomes and the text / TAP reports ------------------------------------ */

static const char *status_word(psot_status s) {
  return s == PSOT_PASS ? "ok" : s == PSOT_FAIL ? "FAIL" : "ERROR";
}

/* The message with its position: failures carry it separately. */
static void full_message(const outcome *t, char *out, size_t n) {
  if (t->status == PSOT_FAIL && t->where && *t->where)
    snprintf(out, n, "%s: %s", t->where, t->message ? t->message : "");
  else
    snprintf(out, n, "%s", t->message ? t->message : "");
}

/* A TAP description: '#' (a directive) escaped as "\#", control
** characters as cli_text does, so a name is always one line. */
static void tap_name(const char *s) {
  const char *hash;
  if (!s) return;
  while ((hash = strchr(s, '#')) != NULL) {
    cli_text_len(stdout, s, (size_t)(hash - s));
    fputs("\\#", stdout);
    s = hash + 1;
  }
  cli_text(stdout, s);
}

/* A YAML block scalar ('|': TAP::Parser's YAMLish reads no other style);
** empty lines keep the indentation so the block goes on. */
static void tap_block(const char *key, const char *text) {
  if (!text || !*text) return;
  printf("  %s: |\n", key);
  while (*text == ' ' || *text == '\t') text++;
  print_lines(stdout, "    ", text);
}

static void report(runner *r, const outcome *t) {
  const test_options *o = r->o;
  if (o->tap) {
    r->tap_index++;
    printf("%s %zu - ", t->status == PSOT_PASS ? "ok" : "not ok", r->tap_index);
    tap_name(t->file);
    fputs(": ", stdout);
    tap_name(t->name ? t->name : "(loading the file)");
    putchar('\n');
    if (t->status != PSOT_PASS) {
      static char msg[FULL_MESSAGE_MAX];
      full_message(t, msg, sizeof msg);
      printf("  ---\n");
      printf("  severity: %s\n", t->status == PSOT_FAIL ? "fail" : "error");
      if (t->where && *t->where) {
        const char *c;
        printf("  at: \"");
        for (c = t->where; *c; c++) {
          if (*c == '"' || *c == '\\') putchar('\\');
          putchar((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f ? '?' : *c);
        }
        printf("\"\n");
      }
      tap_block("message", msg);
      tap_block("traceback", t->traceback);
      printf("  ...\n");
    }
    print_lines(stdout, "# ", t->output);
  } else {
    printf("  %-5s ", status_word(t->status));
    cli_text(stdout, t->name ? t->name : "(loading the file)");
    putchar('\n');
    print_lines(stdout, "    | ", t->output);
  }
  fflush(stdout);
}

/* A copy of s, at most 'cap' bytes of it and, when 'shared', no more than
** the file's allowance has left (FILE_KEPT_MAX), with "... (WHAT
** truncated (N bytes))" after a cut: text copied out of a test's state is
** outside its memory limit, so what the run keeps is bounded here. */
static char *keep(runner *r, const char *s, size_t cap, int shared, const char *what) {
  size_t n, room;
  char *p;
  if (!s) return NULL;
  n = strlen(s);
  room = r->file_kept < FILE_KEPT_MAX ? FILE_KEPT_MAX - r->file_kept : 0;
  if (shared && cap > room) cap = room;
  if (n <= cap) {
    r->file_kept += n;
    return dup_or_null(s);
  }
  p = malloc(cap + 64);
  if (!p) return NULL;
  memcpy(p, s, cap);
  snprintf(p + cap, 64, "... (%s truncated (%zu bytes))", what, n);
  r->file_kept += cap + strlen(p + cap);
  return p;
}

static int add_outcome(runner *r, const char *file, const psot_result *res, const char *output,
                       double seconds) {
  outcome *t;
  if (r->count == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 64;
    outcome *p = realloc(r->items, cap * sizeof *p);
    if (!p) {
      r->oom = 1;
      return -1;
    }
    r->items = p;
    r->cap = cap;
  }
  t = &r->items[r->count++];
  memset(t, 0, sizeof *t);
  t->file = dup_or_null(file);
  t->name = keep(r, res->name, NAME_MAX_, 0, "name");
  t->defined = keep(r, res->defined, NAME_MAX_, 0, "location");
  t->status = res->status;
  t->where = keep(r, res->where, NAME_MAX_, 0, "location");
  t->message = keep(r, res->message, MESSAGE_MAX, 1, "message");
  t->traceback = keep(r, res->traceback, TRACE_MAX, 1, "traceback");
  /* the log is capped at LOG_MAX already (with its own note) */
  t->output = keep(r, output && *output ? output : NULL, LOG_MAX + 64, 1, "output");
  t->seconds = seconds;
  if (!t->file || (res->message && !t->message)) r->oom = 1;
  if (res->status == PSOT_PASS) r->passed++;
  else if (res->status == PSOT_FAIL) r->failed++;
  else r->errors++;
  report(r, t);
  return 0;
}

static void free_outcomes(runner *r) {
  size_t i;
  for (i = 0; i < r->count; i++) {
    outcome *t = &r->items[i];
    free(t->file);
    free(t->name);
    free(t->defined);
    free(t->where);
    free(t->message);
    free(t->traceback);
    free(t->output);
  }
  free(r->items);
  free(r->log.data);
}

static void print_failures(const runner *r) {
  size_t i, k = 0;
  if (r->failed + r->errors == 0) return;
  printf("\nFailures:\n");
  for (i = 0; i < r->count; i++) {
    const outcome *t = &r->items[i];
    static char msg[FULL_MESSAGE_MAX];
    if (t->status == PSOT_PASS) continue;
    printf("\n%zu) %s ", ++k, status_word(t->status));
    cli_text(stdout, t->file);
    fputs(": ", stdout);
    cli_text(stdout, t->name ? t->name : "(loading the file)");
    putchar('\n');
    full_message(t, msg, sizeof msg);
    print_lines(stdout, "   ", msg);
    if (t->traceback && *t->traceback) {
      printf("   traceback:\n");
      print_lines(stdout, "     ", t->traceback);
    }
  }
  printf("\n");
}

/* ---- JUnit XML ---------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s allowed in XML 1.0, or 0. */
static size_t xml_char_len(const unsigned char *s) {
  unsigned c = s[0];
  uint32_t cp;
  size_t n, i;
  if (c < 0x80) return (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') ? 1 : 0;
  if (c >= 0xc2 && c <= 0xdf) n = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef) n = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, cp = c & 0x07;
  else return 0;
  for (i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
  if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff) return 0;
  return n;
}

/* Write 's' escaped for XML text (attr 0) or an attribute value (attr 1);
** bytes XML cannot hold become '?'. */
static void xml_write(FILE *f, const char *s, int attr) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  while (*p) {
    size_t n = xml_char_len(p);
    if (n == 0) {
      fputc('?', f);
      p++;
      continue;
    }
    switch (*p) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs(attr ? "&quot;" : "\"", f); break;
    case '\'': fputs(attr ? "&apos;" : "'", f); break;
    case '\n': fputs(attr ? "&#10;" : "\n", f); break;
    case '\r': fputs("&#13;", f); break;
    case '\t': fputs(attr ? "&#9;" : "\t", f); break;
    default: fwrite(p, 1, n, f); break;
    }
    p += n;
  }
}

/* "scripts/tests/materials_test.lua" -> "scripts.tests.materials_test" */
static void class_name(const char *file, char *out, size_t n) {
  size_t k = 0;
  while (file[0] == '.' && file[1] == '/') file += 2;
  for (; *file && k + 1 < n; file++) out[k++] = *file == '/' ? '.' : *file;
  out[k] = '\0';
  if (ends_with(out, ".lua")) out[strlen(out) - 4] = '\0';
}

static long line_of(const char *defined) {
  const char *colon = defined ? strrchr(defined, ':') : NULL;
  return colon ? strtol(colon + 1, NULL, 10) : 0;
}

static void junit_case(FILE *f, const outcome *t) {
  char cls[1024];
  static char msg[FULL_MESSAGE_MAX];
  const char *first_end;
  class_name(t->file, cls, sizeof cls);
  fputs("    <testcase name=\"", f);
  xml_write(f, t->name ? t->name : "(loading the file)", 1);
  fputs("\" classname=\"", f);
  xml_write(f, cls, 1);
  fputs("\" file=\"", f);
  xml_write(f, t->file, 1);
  fputs("\"", f);
  if (line_of(t->defined) > 0) fprintf(f, " line=\"%ld\"", line_of(t->defined));
  fprintf(f, " time=\"%.6f\">\n", t->seconds);
  if (t->status != PSOT_PASS) {
    full_message(t, msg, sizeof msg);
    first_end = strchr(msg, '\n');
    fprintf(f, "      <%s message=\"", t->status == PSOT_FAIL ? "failure" : "error");
    if (first_end) {
      size_t n = (size_t)(first_end - msg);
      char save = msg[n];
      msg[n] = '\0';
      xml_write(f, msg, 1);
      msg[n] = save;
    } else {
      xml_write(f, msg, 1);
    }
    fprintf(f, "\" type=\"%s\">", t->status == PSOT_FAIL ? "assertion" : "error");
    xml_write(f, msg, 0);
    if (t->traceback && *t->traceback) {
      xml_write(f, "\nstack traceback:\n", 0);
      xml_write(f, t->traceback, 0);
    }
    fprintf(f, "</%s>\n", t->status == PSOT_FAIL ? "failure" : "error");
  }
  if (t->output) {
    fputs("      <system-out>", f);
    xml_write(f, t->output, 0);
    fputs("</system-out>\n", f);
  }
  fputs("    </testcase>\n", f);
}

static void junit_body(FILE *f, const runner *r, double total) {
  size_t i = 0;
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
  fprintf(f, "<testsuites name=\"psoc test\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
             "time=\"%.6f\">\n", r->count, r->failed, r->errors, total);
  while (i < r->count) {
    size_t j, tests = 0, failures = 0, errors = 0;
    double secs = 0;
    for (j = i; j < r->count && strcmp(r->items[j].file, r->items[i].file) == 0; j++) {
      tests++;
      secs += r->items[j].seconds;
      if (r->items[j].status == PSOT_FAIL) failures++;
      if (r->items[j].status == PSOT_ERROR) errors++;
    }
    fputs("  <testsuite name=\"", f);
    xml_write(f, r->items[i].file, 1);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" time=\"%.6f\">\n",
            tests, failures, errors, secs);
    for (; i < j; i++) junit_case(f, &r->items[i]);
    fputs("  </testsuite>\n", f);
  }
  fputs("</testsuites>\n", f);
}

#ifndef _WIN32
#include <sys/stat.h>

/* What a file that is not a regular file is, for errors. */
static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/* May the report replace 'path'? Only a regular file (or nothing) that is
** not one of the run's test files. */
static int junit_target_ok(const char *path, const file_list *inputs) {
  struct stat st, in;
  size_t i;
  if (lstat(path, &st) != 0) {
    if (errno == ENOENT) return 1;
    fprintf(stderr, "psoc test: cannot write '%s': %s\n", path, strerror(errno));
    return 0;
  }
  if (!S_ISREG(st.st_mode)) {
    fprintf(stderr, "psoc test: --junit '%s' is %s: refusing to replace it with a report "
                    "(give the name of a new or a regular file)\n", path, file_kind(st.st_mode));
    return 0;
  }
  for (i = 0; inputs && i < inputs->count; i++)
    if (stat(inputs->items[i], &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino) {
      fprintf(stderr, "psoc test: --junit '%s' is the test file '%s' of this run: refusing to "
                      "overwrite it\n", path, inputs->items[i]);
      return 0;
    }
  return 1;
}
#else
/* Win32: the platform file's kinds; the same file by canonical path. */
static int junit_target_ok(const char *path, const file_list *inputs) {
  char real[PSOC_PLAT_PATH_MAX], in[PSOC_PLAT_PATH_MAX];
  size_t i;
  int kind, e = psoc_plat_lstat(path, &kind);
  if (e != 0) {
    fprintf(stderr, "psoc test: cannot write '%s': %s\n", path, psoc_plat_strerror(e));
    return 0;
  }
  if (kind == PSOC_PLAT_MISSING) return 1;
  if (kind != PSOC_PLAT_FILE) {
    fprintf(stderr, "psoc test: --junit '%s' is %s: refusing to replace it with a report "
                    "(give the name of a new or a regular file)\n", path,
            kind == PSOC_PLAT_DIR ? "a directory" : kind == PSOC_PLAT_LINK ? "a symbolic link"
                                                                          : "not a regular file");
    return 0;
  }
  if (psoc_plat_realpath(path, real) != 0) return 1;
  for (i = 0; inputs && i < inputs->count; i++)
    if (psoc_plat_realpath(inputs->items[i], in) == 0 && strcmp(in, real) == 0) {
      fprintf(stderr, "psoc test: --junit '%s' is the test file '%s' of this run: refusing to "
                      "overwrite it\n", path, inputs->items[i]);
      return 0;
    }
  return 1;
}
#endif

/* mkdir -p of the folder holding 'path'. */
static int make_parents(const char *path) {
  size_t n = strlen(path), i;
  char *dir = malloc(n + 1);
  int rc = 0;
  if (!dir) return -1;
  memcpy(dir, path, n + 1);
  for (i = 1; i < n && rc == 0; i++) {
    int e;
    if (dir[i] != '/') continue;
    dir[i] = '\0';
    e = psoc_plat_mkdir(dir);
    if (e == 0 || e == EEXIST) e = psoc_plat_is_dir(dir) == 0 ? 0 : EEXIST;
    if (e) rc = -1;
    if (rc) fprintf(stderr, "psoc test: cannot create the folder '%s' for '%s': %s\n", dir, path,
                    e == EEXIST ? "not a directory" : psoc_plat_strerror(e));
    dir[i] = '/';
  }
  free(dir);
  return rc;
}

/* Before any test runs: check the report's path, create its folder and
** open the temporary file next to it (renamed over it at the end, so a
** reader never sees half a report). */
static int junit_open(runner *r, const char *path, const file_list *inputs) {
  size_t n = strlen(path);
  int e = EEXIST;
  unsigned attempt;
  uint64_t salt = psoc_plat_now_ns();
  if (!junit_target_ok(path, inputs) || make_parents(path) != 0) return -1;
  r->junit_tmp = malloc(n + 32);
  if (!r->junit_tmp) {
    fprintf(stderr, "psoc test: out of memory\n");
    return -1;
  }
  /* a new name of our own (created exclusively; mode 0666 less the umask) */
  for (attempt = 0; attempt < 100 && e == EEXIST; attempt++) {
    snprintf(r->junit_tmp, n + 32, "%s.tmp.%06lx", path,
             (unsigned long)((salt + attempt * 7919u) & 0xFFFFFFu));
    e = psoc_plat_create_new(r->junit_tmp, &r->junit);
  }
  if (e != 0) {
    fprintf(stderr, "psoc test: cannot write '%s': %s\n", path, psoc_plat_strerror(e));
    free(r->junit_tmp);
    r->junit_tmp = NULL;
    return -1;
  }
  return 0;
}

/* Write the report into the temporary file and rename it over 'path'
** (checked again: it may have changed while the tests ran). */
static int junit_finish(runner *r, const char *path, const file_list *inputs, double total) {
  int rc = 0;
  junit_body(r->junit, r, total);
  if (fflush(r->junit) != 0 || ferror(r->junit)) rc = -1;
  if (fclose(r->junit) != 0) rc = -1;
  r->junit = NULL;
  if (rc != 0) fprintf(stderr, "psoc test: cannot write '%s': %s\n", path, strerror(errno));
  if (rc == 0 && !junit_target_ok(path, inputs)) rc = -1;
  if (rc == 0) {
    int e = psoc_plat_replace(r->junit_tmp, path);
    if (e) {
      fprintf(stderr, "psoc test: cannot write '%s': %s\n", path, psoc_plat_strerror(e));
      rc = -1;
    }
  }
  if (rc != 0) psoc_plat_remove(r->junit_tmp);
  free(r->junit_tmp);
  r->junit_tmp = NULL;
  return rc;
}

/* ---- running ------------------------------------------------------------------- */

static int matches_filter(const test_options *o, const char *file, const char *name) {
  if (!o->filter) return 1;
  return strstr(file, o->filter) != NULL || strstr(name, o->filter) != NULL;
}

/* A file-level failure (state, API or the file itself; name NULL:
** "(loading the file)"). */
static void file_error(runner *r, const char *file, const char *name, const char *message,
                       const char *traceback) {
  psot_result res;
  memset(&res, 0, sizeof res);
  res.status = PSOT_ERROR;
  res.name = name;
  res.defined = "";
  res.where = "";
  res.message = message;
  res.traceback = traceback ? traceback : "";
  add_outcome(r, file, &res, r->log.data, 0);
  buf_clear(&r->log);
}

/* Has the run spent its budget or its time? The first time, the rest of
** the run is reported as one failed "(run budget)" entry of 'file'. */
static int out_of_run(runner *r, const char *file) {
  const test_options *o = r->o;
  char msg[256];
  if (r->stopped) return 1;
  if (r->spent >= o->run_budget)
    snprintf(msg, sizeof msg, "the run's instruction budget is spent (%llu instructions; "
             "--run-budget): the tests left are not run", (unsigned long long)o->run_budget);
  else if (now_seconds() >= r->deadline)
    snprintf(msg, sizeof msg, "the run's time is up (%u s; --run-time): the tests left are not "
             "run", o->run_time);
  else
    return 0;
  r->stopped = 1;
  file_error(r, file, "(run budget)", msg, NULL);
  return 1;
}

static void run_file(runner *r, const char *file) {
  const test_options *o = r->o;
  const char *search[MAX_ROOTS + 2];
  size_t nsearch = 0, i, n;
  char dir[4096], err[512];
  const char *slash = strrchr(file, '/');
  psol_options opts;
  psot_config cfg;
  lua_State *L;
  double left;
  if (out_of_run(r, file)) return;
  r->file_kept = 0;
  left = r->deadline - now_seconds();
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == file) snprintf(dir, sizeof dir, "/");
  else snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
  search[nsearch++] = dir;
  if (o->root_count)
    for (i = 0; i < o->root_count; i++) search[nsearch++] = o->roots[i];
  else
    search[nsearch++] = ".";
  memset(&opts, 0, sizeof opts);
  opts.roots = search;
  opts.root_count = nsearch;
  opts.instruction_limit = o->budget;
  opts.memory_limit = o->memory;
  opts.log = log_capture;
  opts.ud = r;
  /* the state's clock: its own limit, or what is left of the run's time */
  opts.time_limit_ms = left * 1000 < PSOL_DEFAULT_TIME_LIMIT_MS ? (uint32_t)(left * 1000) + 1 : 0;
  memset(&cfg, 0, sizeof cfg);
  cfg.file = file;
  cfg.search = search;
  cfg.search_count = nsearch;
  cfg.roots = o->roots;
  cfg.root_count = o->root_count;
  cfg.options = &opts;
  cfg.werror = o->werror;

  if (o->tap) fputs("# ", stdout);
  cli_text(stdout, file);
  putchar('\n');
  buf_clear(&r->log);
  L = psol_newstate(&opts, err, sizeof err);
  if (!L) {
    file_error(r, file, NULL, err, NULL);
    return;
  }
  if (psot_open(L, &cfg) != LUA_OK) {
    const char *msg = psot_push_error(L, -1);
    file_error(r, file, NULL, msg, lua_tostring(L, -1));
    psol_close(L);
    return;
  }
  if (psot_dofile(L, file) != LUA_OK) {
    const char *msg = psot_push_error(L, -1);
    r->spent += psot_instructions(L);
    file_error(r, file, NULL, msg, lua_tostring(L, -1));
    psol_close(L);
    return;
  }
  r->spent += psot_instructions(L);
  if (r->log.len) { /* print() at the file's top level or in describe bodies */
    if (o->tap) print_lines(stdout, "# ", r->log.data);
    else print_lines(stdout, "    | ", r->log.data);
    buf_clear(&r->log);
  }
  n = psot_count(L);
  if (n == 0) {
    if (o->allow_empty) printf("%s(no tests)\n", o->tap ? "# " : "  ");
    else
      file_error(r, file, "(no tests)", "the file declares no tests (it() calls); give "
                 "--allow-empty to accept a test file without tests", NULL);
  }
  for (i = 0; i < n; i++) {
    const char *name, *defined;
    psot_result res;
    double t0;
    psot_info(L, i, &name, &defined);
    if (!matches_filter(o, file, name)) continue;
    if (out_of_run(r, file)) break;
    buf_clear(&r->log);
    t0 = now_seconds();
    psot_run(L, i, &res);
    r->spent += res.instructions;
    r->ran++;
    add_outcome(r, file, &res, r->log.data, now_seconds() - t0);
    buf_clear(&r->log);
  }
  psol_close(L);
}

/* ---- arguments ------------------------------------------------------------------ */

static int option_value(const char *arg, const char *name, int argc, char **argv, int *i,
                        const char **out) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) == 0 && arg[n] == '=') {
    *out = arg + n + 1;
    return 1;
  }
  if (strcmp(arg, name) != 0) return 0;
  if (*i + 1 >= argc) {
    cli_usage_error("test", "%s needs a value", name);
    return -1;
  }
  *out = argv[++*i];
  return 1;
}

/* A positive decimal count into *out; 0 (after a usage error) when not. */
static int positive(const char *value, const char *option, const char *unit, uint64_t *out) {
  char *end;
  unsigned long long v;
  errno = 0;
  v = strtoull(value, &end, 10);
  if (errno || end == value || *end || v == 0 || value[0] == '-') {
    cli_usage_error("test", "%s needs a positive number of %s, got '%s'", option, unit, value);
    return 0;
  }
  *out = (uint64_t)v;
  return 1;
}

static int parse_args(test_options *o, int argc, char **argv) {
  int i, done = 0;
  for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (cli_is_help(argv[i])) {
      fputs(test_help, stdout);
      return CLI_EXIT_OK;
    }
  }
  for (i = 1; i < argc; i++) {
    const char *arg = argv[i], *value = NULL;
    int r;
    if (done || arg[0] != '-' || arg[1] == '\0') {
      o->paths[o->path_count++] = argv[i];
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      done = 1;
      continue;
    }
    if (strcmp(arg, "--tap") == 0) {
      o->tap = 1;
      continue;
    }
    if (strcmp(arg, "--werror") == 0) {
      o->werror = 1;
      continue;
    }
    if (strcmp(arg, "--allow-empty") == 0) {
      o->allow_empty = 1;
      continue;
    }
    if ((r = option_value(arg, "--junit", argc, argv, &i, &value)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (!*value) return cli_usage_error("test", "--junit needs a file name");
      /* never take an input for the report's name (a forgotten value) */
      if (ends_with(value, ".lua"))
        return cli_usage_error("test", "--junit '%s': a report does not end in .lua (did the "
                                       "option lose its value? give --junit FILE.xml)", value);
      o->junit = value;
      continue;
    }
    if ((r = option_value(arg, "--root", argc, argv, &i, &value)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (o->root_count == MAX_ROOTS)
        return cli_usage_error("test", "too many --root options (at most %d)", MAX_ROOTS);
      if (psoc_plat_is_dir(value) != 0)
        return cli_usage_error("test", "--root '%s' is not a directory", value);
      o->roots[o->root_count++] = value;
      continue;
    }
    if ((r = option_value(arg, "--filter", argc, argv, &i, &value)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      o->filter = value;
      continue;
    }
    if ((r = option_value(arg, "--budget", argc, argv, &i, &value)) != 0) {
      if (r < 0 || !positive(value, "--budget", "instructions", &o->budget)) return CLI_EXIT_USAGE;
      continue;
    }
    if ((r = option_value(arg, "--run-budget", argc, argv, &i, &value)) != 0) {
      if (r < 0 || !positive(value, "--run-budget", "instructions", &o->run_budget))
        return CLI_EXIT_USAGE;
      continue;
    }
    if ((r = option_value(arg, "--run-time", argc, argv, &i, &value)) != 0) {
      char *end;
      unsigned long v;
      if (r < 0) return CLI_EXIT_USAGE;
      errno = 0;
      v = strtoul(value, &end, 10);
      if (errno || end == value || *end || v == 0 || value[0] == '-' || v > 86400ul * 365)
        return cli_usage_error("test", "--run-time needs a positive number of seconds, got '%s'",
                               value);
      o->run_time = (unsigned)v;
      continue;
    }
    if ((r = option_value(arg, "--memory", argc, argv, &i, &value)) != 0) {
      char *end;
      unsigned long v;
      if (r < 0) return CLI_EXIT_USAGE;
      errno = 0;
      v = strtoul(value, &end, 10);
      if (errno || end == value || *end || v == 0 || value[0] == '-' ||
          v > (unsigned long)(SIZE_MAX >> 21))
        return cli_usage_error("test", "--memory needs a positive number of MiB, got '%s'", value);
      o->memory = (size_t)v << 20;
      continue;
    }
    return cli_usage_error("test", "unknown option '%s'", arg);
  }
  return -1;
}

int cli_test_main(int argc, char **argv) {
  test_options o;
  runner r;
  file_list files = { 0 };
  size_t i;
  int status;
  double start = now_seconds();
  memset(&o, 0, sizeof o);
  memset(&r, 0, sizeof r);
  o.paths = calloc((size_t)argc + 1, sizeof *o.paths);
  if (!o.paths) {
    fprintf(stderr, "psoc test: out of memory\n");
    return CLI_EXIT_USAGE;
  }
  o.run_budget = DEFAULT_RUN_BUDGET;
  o.run_time = DEFAULT_RUN_TIME;
  status = parse_args(&o, argc, argv);
  if (status < 0) status = find_files(&o, &files);
  if (status == -2) { /* no test files, --allow-empty */
    printf("%s0 passed, 0 failed\n", o.tap ? "TAP version 13\n1..0\n# " : "");
    status = CLI_EXIT_OK;
  }
  if (status >= 0) {
    free(o.paths);
    list_free(&files);
    return status;
  }
  r.o = &o;
  r.deadline = start + o.run_time;
  if (o.junit && junit_open(&r, o.junit, &files) != 0) {
    free(o.paths);
    list_free(&files);
    return CLI_EXIT_USAGE;
  }
  if (o.tap) printf("TAP version 13\n");
  for (i = 0; i < files.count; i++) run_file(&r, files.items[i]);
  if (o.filter && r.count == 0)
    fprintf(stderr, "psoc test: no test matches --filter '%s'\n", o.filter);
  if (r.count == 0 && !o.allow_empty) /* --filter matched no test */
    file_error(&r, "psoc test", "(no test ran)", "no test ran; give --allow-empty to accept a "
               "run without tests", NULL);
  if (o.tap) {
    printf("1..%zu\n", r.tap_index);
  } else {
    print_failures(&r);
  }
  status = (r.failed + r.errors) ? CLI_EXIT_ERRORS : CLI_EXIT_OK;
  if (o.junit && junit_finish(&r, o.junit, &files, now_seconds() - start) != 0)
    status = CLI_EXIT_USAGE;
  if (r.oom) {
    fprintf(stderr, "psoc test: out of memory while recording results\n");
    status = CLI_EXIT_USAGE;
  }
  printf("%s%zu passed, %zu failed\n", o.tap ? "# " : "", r.passed, r.failed + r.errors);
  free_outcomes(&r);
  list_free(&files);
  free(o.paths);
  return status;
}
