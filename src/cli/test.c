/*
** test.c: 'psoc test': find *_test.lua files, run each in a fresh
** sandboxed state with the pso module and the test API (pso_test.h), and
** report: readable text (default), TAP version 13 (--tap), and a JUnit
** XML file for CI systems (--junit FILE). The last line of the output is
** "N passed, N failed" (a comment "# N passed, N failed" under --tap).
*/
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lua.h>

#include "cli.h"
#include "pso_test.h"
#include "psoc.h"
#include "psol.h"

#define MAX_ROOTS 64
#define WALK_DEPTH 32
#define LOG_MAX ((size_t)64 * 1024) /* print() output kept per test */

static const char test_help[] =
  "usage: psoc test [--tap] [--junit FILE] [--root DIR]... [--filter TEXT]\n"
  "                 [--budget N] [--memory MIB] [PATH...]\n"
  "\n"
  "Run test suites written in Lua over materials. Each PATH is a test file (run\n"
  "whatever its name) or a directory searched recursively for files named\n"
  "*_test.lua (hidden entries skipped; sorted, so the order is stable). The\n"
  "default PATH is the current directory.\n"
  "\n"
  "Every test file runs in a fresh sandboxed Lua state (the one material scripts\n"
  "get) with these globals: pso (the module), describe, it, before_each,\n"
  "after_each, expect and materials. Tests look like\n"
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
  "  --junit FILE       also write a JUnit XML report to FILE (atomically)\n"
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
  "  --memory MIB       memory each test file's state may use (default 64)\n"
  "  -h, --help         show this help\n"
  "\n"
  "The budget is reset for every test (before_each and after_each hooks count\n"
  "toward their test) and for the loading of each file (describe bodies).\n"
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
  "print() output of a test follows its line, indented by '    | '.\n"
  "\n"
  "exit status: 0 every test passed, 1 a test failed or a file did not load,\n"
  "2 usage or I/O error (a PATH that does not exist, no test files found, the\n"
  "JUnit file cannot be written).\n";

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

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

/* Print each line of 'text' with 'prefix' (nothing for empty text). */
static void print_lines(FILE *out, const char *prefix, const char *text) {
  while (text && *text) {
    const char *nl = strchr(text, '\n');
    size_t n = nl ? (size_t)(nl - text) : strlen(text);
    fprintf(out, "%s%.*s\n", prefix, (int)n, text);
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
  DIR *d;
  struct dirent *e;
  file_list names = { 0 };
  size_t i;
  int rc = 0;
  if (depth > WALK_DEPTH) return 0;
  if (!(d = opendir(dir))) {
    fprintf(stderr, "psoc test: cannot read directory '%s': %s\n", dir, strerror(errno));
    return -1;
  }
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    if (list_add(&names, e->d_name) != 0) {
      rc = -1;
      break;
    }
  }
  closedir(d);
  if (names.count) qsort(names.items, names.count, sizeof *names.items, cmp_path);
  for (i = 0; rc == 0 && i < names.count; i++) {
    char full[4096];
    struct stat st;
    join_path(full, sizeof full, dir, names.items[i]);
    if (lstat(full, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) rc = walk(l, full, depth + 1);
    else if (ends_with(names.items[i], "_test.lua") && stat(full, &st) == 0 &&
             S_ISREG(st.st_mode))
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
    struct stat st;
    if (stat(paths[i], &st) != 0) {
      fprintf(stderr, "psoc test: %s: %s\n", paths[i], strerror(errno));
      return CLI_EXIT_USAGE;
    }
    if (S_ISDIR(st.st_mode)) {
      if (walk(files, paths[i], 0) != 0) return CLI_EXIT_USAGE;
    } else if (list_add(files, paths[i]) != 0) {
      fprintf(stderr, "psoc test: out of memory\n");
      return CLI_EXIT_USAGE;
    }
  }
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

static void tap_escape_name(const char *s, char *out, size_t n) {
  size_t k = 0;
  for (; *s && k + 3 < n; s++) {
    if (*s == '#') out[k++] = '\\';
    out[k++] = (*s == '\n' || *s == '\r') ? ' ' : *s;
  }
  out[k] = '\0';
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
    char name[1024], label[1100];
    snprintf(label, sizeof label, "%s: %s", t->file, t->name ? t->name : "(loading the file)");
    tap_escape_name(label, name, sizeof name);
    r->tap_index++;
    printf("%s %zu - %s\n", t->status == PSOT_PASS ? "ok" : "not ok", r->tap_index, name);
    if (t->status != PSOT_PASS) {
      static char msg[16384];
      full_message(t, msg, sizeof msg);
      printf("  ---\n");
      printf("  severity: %s\n", t->status == PSOT_FAIL ? "fail" : "error");
      if (t->where && *t->where) {
        const char *c;
        printf("  at: \"");
        for (c = t->where; *c; c++) {
          if (*c == '"' || *c == '\\') putchar('\\');
          putchar((unsigned char)*c < 0x20 ? '?' : *c);
        }
        printf("\"\n");
      }
      tap_block("message", msg);
      tap_block("traceback", t->traceback);
      printf("  ...\n");
    }
    print_lines(stdout, "# ", t->output);
  } else {
    printf("  %-5s %s\n", status_word(t->status), t->name ? t->name : "(loading the file)");
    print_lines(stdout, "    | ", t->output);
  }
  fflush(stdout);
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
  t->name = dup_or_null(res->name);
  t->defined = dup_or_null(res->defined);
  t->status = res->status;
  t->where = dup_or_null(res->where);
  t->message = dup_or_null(res->message);
  t->traceback = dup_or_null(res->traceback);
  t->output = dup_or_null(output && *output ? output : NULL);
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
    static char msg[16384];
    if (t->status == PSOT_PASS) continue;
    printf("\n%zu) %s %s: %s\n", ++k, status_word(t->status), t->file,
           t->name ? t->name : "(loading the file)");
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
  static char msg[16384];
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

/* Temporary file next to 'path', then rename: readers never see half a file. */
static int write_junit(const char *path, const runner *r, double total) {
  size_t n = strlen(path);
  char *tmp = malloc(n + 16);
  int fd, rc = 0;
  FILE *f;
  mode_t mask;
  if (!tmp) {
    fprintf(stderr, "psoc test: out of memory\n");
    return -1;
  }
  snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
  fd = mkstemp(tmp);
  if (fd < 0) {
    fprintf(stderr, "psoc test: cannot write '%s': %s\n", path, strerror(errno));
    free(tmp);
    return -1;
  }
  mask = umask(0);
  umask(mask);
  (void)fchmod(fd, 0666 & ~mask);
  f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    rc = -1;
  } else {
    junit_body(f, r, total);
    if (fflush(f) != 0 || ferror(f)) rc = -1;
    if (fclose(f) != 0) rc = -1;
  }
  if (rc == 0 && rename(tmp, path) != 0) rc = -1;
  if (rc != 0) {
    fprintf(stderr, "psoc test: cannot write '%s': %s\n", path, strerror(errno));
    unlink(tmp);
  }
  free(tmp);
  return rc;
}

/* ---- running ------------------------------------------------------------------- */

static int matches_filter(const test_options *o, const char *file, const char *name) {
  if (!o->filter) return 1;
  return strstr(file, o->filter) != NULL || strstr(name, o->filter) != NULL;
}

/* A file-level failure (state, API or the file itself). */
static void file_error(runner *r, const char *file, const char *message, const char *traceback) {
  psot_result res;
  memset(&res, 0, sizeof res);
  res.status = PSOT_ERROR;
  res.name = NULL;
  res.defined = "";
  res.where = "";
  res.message = message;
  res.traceback = traceback ? traceback : "";
  add_outcome(r, file, &res, r->log.data, 0);
  buf_clear(&r->log);
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
  memset(&cfg, 0, sizeof cfg);
  cfg.file = file;
  cfg.search = search;
  cfg.search_count = nsearch;
  cfg.roots = o->roots;
  cfg.root_count = o->root_count;
  cfg.options = &opts;

  if (!o->tap) printf("%s\n", file);
  else printf("# %s\n", file);
  buf_clear(&r->log);
  L = psol_newstate(&opts, err, sizeof err);
  if (!L) {
    file_error(r, file, err, NULL);
    return;
  }
  if (psot_open(L, &cfg) != LUA_OK) {
    const char *msg = psot_push_error(L, -1);
    file_error(r, file, msg, lua_tostring(L, -1));
    psol_close(L);
    return;
  }
  if (psol_dofile(L, file, 0) != LUA_OK) {
    const char *msg = psot_push_error(L, -1);
    file_error(r, file, msg, lua_tostring(L, -1));
    psol_close(L);
    return;
  }
  if (r->log.len) { /* print() at the file's top level or in describe bodies */
    if (o->tap) print_lines(stdout, "# ", r->log.data);
    else print_lines(stdout, "    | ", r->log.data);
    buf_clear(&r->log);
  }
  n = psot_count(L);
  if (n == 0) {
    if (o->tap) printf("# (no tests)\n");
    else printf("  (no tests)\n");
  }
  for (i = 0; i < n; i++) {
    const char *name, *defined;
    psot_result res;
    double t0;
    psot_info(L, i, &name, &defined);
    if (!matches_filter(o, file, name)) continue;
    buf_clear(&r->log);
    t0 = now_seconds();
    psot_run(L, i, &res);
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
    if ((r = option_value(arg, "--junit", argc, argv, &i, &value)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (!*value) return cli_usage_error("test", "--junit needs a file name");
      o->junit = value;
      continue;
    }
    if ((r = option_value(arg, "--root", argc, argv, &i, &value)) != 0) {
      struct stat st;
      if (r < 0) return CLI_EXIT_USAGE;
      if (o->root_count == MAX_ROOTS)
        return cli_usage_error("test", "too many --root options (at most %d)", MAX_ROOTS);
      if (stat(value, &st) != 0 || !S_ISDIR(st.st_mode))
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
      char *end;
      unsigned long long v;
      if (r < 0) return CLI_EXIT_USAGE;
      errno = 0;
      v = strtoull(value, &end, 10);
      if (errno || end == value || *end || v == 0 || value[0] == '-')
        return cli_usage_error("test", "--budget needs a positive number of instructions, "
                                       "got '%s'", value);
      o->budget = (uint64_t)v;
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
  status = parse_args(&o, argc, argv);
  if (status < 0) status = find_files(&o, &files);
  if (status >= 0) {
    free(o.paths);
    list_free(&files);
    return status;
  }
  r.o = &o;
  if (o.tap) printf("TAP version 13\n");
  for (i = 0; i < files.count; i++) run_file(&r, files.items[i]);
  if (o.tap) {
    printf("1..%zu\n", r.tap_index);
  } else {
    print_failures(&r);
  }
  if (o.filter && r.count == 0)
    fprintf(stderr, "psoc test: no test matches --filter '%s'\n", o.filter);
  status = (r.failed + r.errors) ? CLI_EXIT_ERRORS : CLI_EXIT_OK;
  if (o.junit && write_junit(o.junit, &r, now_seconds() - start) != 0) status = CLI_EXIT_USAGE;
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
