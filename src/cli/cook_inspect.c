/*
** cook_inspect.c: looking into archives: 'psoc ls', 'psoc verify', and the
** archive forms of 'psoc dump' and 'psoc diff'.
**
** Archives are opened with lazy verification, so that a damaged one still
** lists and verify can name every damaged part; a pipeline is verified
** when it is loaded (dump, diff) and one that is damaged is reported, not
** shown. diff compares psoc_dump's field lines of the two loaded streams
** (the same generic dump 'psoc dump --raw' prints), keyed by subobject and
** field; an archive is compared with scripts by cooking the scripts in
** memory first (no cache, nothing written).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook.h"
#include "platform.h"

static const char ls_help[] =
    "usage: psoc ls [--components] ARCHIVE\n"
    "\n"
    "List a pipeline archive: its header (format, psoc version, pointer size), one\n"
    "line per pipeline (name, kind, stream bytes, components it uses and their\n"
    "bytes, root signature, canonical hash) and the components that several\n"
    "pipelines share (kind, bytes, users, content hash).\n"
    "\n"
    "options:\n"
    "  --components  list every component, shared or not\n"
    "  -h, --help    show this help\n"
    "\n"
    "exit status: 0 listed, 1 not a readable archive, 2 usage or I/O error.\n";

static const char verify_help[] =
    "usage: psoc verify ARCHIVE...\n"
    "\n"
    "Check every table, record and component checksum of each archive and say\n"
    "what is damaged: each damaged component or record, then each pipeline lost\n"
    "to it (the others still load).\n"
    "\n"
    "exit status: 0 intact, 1 any damage (or not an archive), 2 usage or I/O.\n";

static const char dump_help[] =
    "usage: psoc dump ARCHIVE [NAME...]\n"
    "\n"
    "Print the pipelines called NAME (default: every pipeline) of a pipeline\n"
    "archive subobject by subobject, as loaded (the same format as 'psoc dump\n"
    "--raw'; root signatures are shown by name, their pointer as NULL).\n"
    "\n"
    "exit status: 0 printed, 1 a NAME is missing or damaged, 2 usage or I/O.\n";

static const char diff_help[] =
    "usage: psoc diff ARCHIVE ARCHIVE\n"
    "       psoc diff ARCHIVE DIR|SCRIPT... [--root DIR] [--profile NAME]\n"
    "\n"
    "Compare an archive with another archive, or with material scripts (cooked in\n"
    "memory as 'psoc cook' would; nothing is written). Pipelines are paired by\n"
    "name; for each pair with different content, one line per differing field,\n"
    "  SUBOBJECT.FIELD: VALUE_IN_A -> VALUE_IN_B\n"
    "((absent) where one side lacks it), and 'only in A: NAME' / 'only in B:\n"
    "NAME' for unpaired pipelines.\n"
    "\n"
    "exit status: 0 same, 1 different, 2 usage or I/O error, or a script failed.\n";

static int report_open_error(const char *path, psoc_status s, const char *err) {
  size_t n = strlen(path);
  if (strncmp(err, path, n) == 0 && strncmp(err + n, ": ", 2) == 0) err += n + 2; /* no twice */
  cli_text(stderr, path);
  fputs(s == PSOC_ERR_INVALID ? ": error: " : ": cannot open: ", stderr);
  cli_text(stderr, err);
  fputs("\n", stderr);
  return s == PSOC_ERR_INVALID ? CLI_EXIT_ERRORS : CLI_EXIT_USAGE;
}

static int open_archive(const char *path, psoc_archive **a) {
  char err[512];
  psoc_status s = psoc_archive_open_file(path, PSOC_ARCHIVE_VERIFY_LAZY, NULL, a, err, sizeof err);
  return s == PSOC_OK ? CLI_EXIT_OK : report_open_error(path, s, err);
}

static const char *kind_name(psoc_kind k) {
  switch (k) {
  case PSOC_KIND_GRAPHICS: return "graphics";
  case PSOC_KIND_COMPUTE: return "compute";
  case PSOC_KIND_MESH: return "mesh";
  default: return "none";
  }
}

/* The first 8 bytes of every psoc archive (docs/archive.md). */
#define ARCHIVE_MAGIC "PSOCARCH"

/* Is this command argument an archive (and not a material script)? An
** existing regular file that starts with the archive's magic (a damaged
** archive too: the archive command then reports the damage). */
static int is_archive_file(const char *path) {
  psoc_plat_file f;
  char head[8];
  size_t got = 0;
  if (strcmp(path, "-") == 0 || psoc_plat_open_regular(path, &f) != 0) return 0;
  if (psoc_plat_read(&f, head, sizeof head, &got) != 0) got = 0;
  psoc_plat_close(&f);
  return got == sizeof head && memcmp(head, ARCHIVE_MAGIC, sizeof head) == 0;
}

int cli_archive_arg(int argc, char **argv) {
  int i;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return i + 1 < argc && is_archive_file(argv[i + 1]);
    if (argv[i][0] == '-' && argv[i][1] != '\0') continue;
    return is_archive_file(argv[i]);
  }
  return 0;
}

/* ---- ls ------------------------------------------------------------------ */

int cli_ls_main(int argc, char **argv) {
  const char *path = NULL;
  int i, all = 0;
  psoc_archive *a;
  psoc_archive_info info;
  size_t k, shared = 0;
  char hex[33];
  int rc;
  for (i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(ls_help, stdout);
      return CLI_EXIT_OK;
    }
  }
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--components") == 0) all = 1;
    else if (argv[i][0] == '-' && argv[i][1] != '\0')
      return cli_usage_error("ls", "unknown option '%s'", argv[i]);
    else if (path) return cli_usage_error("ls", "expected one ARCHIVE, got '%s' too", argv[i]);
    else path = argv[i];
  }
  if (!path) return cli_usage_error("ls", "no ARCHIVE given");
  if ((rc = open_archive(path, &a)) != CLI_EXIT_OK) return rc;
  psoc_archive_info_get(a, &info);
  cli_text(stdout, path);
  printf(": psoc archive format %u, cooked by psoc %.16s, %u-byte pointers, hash version %u\n",
         info.format_version, info.psoc_version, info.pointer_size, info.hash_version);
  printf("  %zu pipelines, %zu components (%llu bytes), tables %llu bytes, file %llu bytes\n",
         info.pipelines, info.components, (unsigned long long)info.component_bytes,
         (unsigned long long)info.table_bytes, (unsigned long long)info.file_size);
  printf("\n%-32s %-8s %7s %5s %10s  %-16s %s\n", "pipeline", "kind", "stream", "comp",
         "comp-bytes", "root-signature", "hash");
  for (k = 0; k < psoc_archive_count(a); k++) {
    psoc_archive_entry e;
    size_t len;
    if (psoc_archive_entry_get(a, k, &e) != PSOC_OK) continue;
    cli_text(stdout, e.name);
    len = strlen(e.name);
    printf("%*s %-8s %7zu %5zu %10llu  ", len < 32 ? (int)(32 - len) : 0, "", kind_name(e.kind),
           e.stream_size, e.component_count, (unsigned long long)e.component_bytes);
    cli_text(stdout, e.root_signature ? e.root_signature : "-");
    len = e.root_signature ? strlen(e.root_signature) : 1;
    psoc_hash_hex(e.hash, hex);
    printf("%*s %s\n", len < 16 ? (int)(16 - len) : 0, "", hex);
  }
  for (k = 0; k < psoc_archive_component_count(a); k++) {
    psoc_archive_component c;
    if (psoc_archive_component_get(a, k, &c) != PSOC_OK) continue;
    if (!all && c.users < 2) continue;
    if (shared++ == 0)
      printf("\n%-6s %-16s %9s %6s  %s\n", all ? "comp" : "shared", "kind", "bytes", "users",
             "hash");
    printf("%-6zu %-16s %9llu %6u  %016llx\n", k, psoc_archive_component_kind_name(c.kind),
           (unsigned long long)c.size, c.users, (unsigned long long)c.hash);
  }
  if (shared == 0 && !all) printf("\nno component is shared by two pipelines\n");
  psoc_archive_close(a);
  return CLI_EXIT_OK;
}

/* ---- verify --------------------------------------------------------------- */

typedef struct verify_run {
  const char *path;
  size_t damaged;
} verify_run;

static int on_damage(void *ud, const psoc_archive_damage *d) {
  verify_run *v = ud;
  if (d->what != PSOC_ARCHIVE_LOST_PIPELINE) v->damaged++;
  cli_text(stdout, v->path);
  /* a lost pipeline's message names it: "pipeline 'lit' lost: uses ..." */
  fputs(d->what == PSOC_ARCHIVE_LOST_PIPELINE ? ": " : ": damaged: ", stdout);
  cli_text(stdout, d->message);
  fputs("\n", stdout);
  return 0;
}

int cli_verify_main(int argc, char **argv) {
  int i, rc = CLI_EXIT_OK, any = 0;
  for (i = 1; i < argc; i++)
    if (cli_is_help(argv[i])) {
      fputs(verify_help, stdout);
      return CLI_EXIT_OK;
    }
  for (i = 1; i < argc; i++) {
    psoc_archive *a;
    psoc_archive_info info;
    verify_run v;
    size_t lost = 0;
    int r;
    if (argv[i][0] == '-' && argv[i][1] != '\0')
      return cli_usage_error("verify", "unknown option '%s'", argv[i]);
    any = 1;
    if ((r = open_archive(argv[i], &a)) != CLI_EXIT_OK) {
      rc = r > rc ? r : rc;
      continue;
    }
    v.path = argv[i];
    v.damaged = 0;
    psoc_archive_info_get(a, &info);
    if (psoc_archive_verify(a, on_damage, &v, &lost) != PSOC_OK) {
      cli_text(stdout, argv[i]);
      printf(": DAMAGED: %zu damaged part(s), %zu of %zu pipelines lost\n", v.damaged, lost,
             info.pipelines);
      if (rc < CLI_EXIT_ERRORS) rc = CLI_EXIT_ERRORS;
    } else {
      cli_text(stdout, argv[i]);
      printf(": ok: %zu pipelines, %zu components verified\n", info.pipelines, info.components);
    }
    psoc_archive_close(a);
  }
  if (!any) return cli_usage_error("verify", "no ARCHIVE given");
  return rc;
}

/* ---- loading one pipeline -------------------------------------------------- */

/* Pipeline 'index' of 'a' loaded into *scratch (malloc, the caller frees). */
static int load_pipeline(psoc_archive *a, size_t index, void **scratch,
                         D3D12_PIPELINE_STATE_STREAM_DESC *desc, char *err, size_t n) {
  psoc_archive_entry e;
  psoc_archive_load_options lo;
  psoc_status s;
  *scratch = NULL;
  if (psoc_archive_entry_get(a, index, &e) != PSOC_OK) {
    snprintf(err, n, "no pipeline %zu", index);
    return -1;
  }
  memset(&lo, 0, sizeof lo);
  lo.flags = PSOC_ARCHIVE_LOAD_NULL_ROOT_SIGNATURE;
  if ((*scratch = malloc(e.load_size ? e.load_size : 8)) == NULL) {
    snprintf(err, n, "out of memory");
    return -1;
  }
  s = psoc_archive_load(a, index, &lo, *scratch, e.load_size, desc, NULL, err, n);
  return s == PSOC_OK ? 0 : -1;
}

/* ---- dump ------------------------------------------------------------------ */

static int dump_one(const char *path, psoc_archive *a, size_t index) {
  psoc_archive_entry e;
  D3D12_PIPELINE_STATE_STREAM_DESC desc;
  void *scratch;
  char err[512], hex[33];
  int rc = CLI_EXIT_OK;
  if (psoc_archive_entry_get(a, index, &e) != PSOC_OK) return CLI_EXIT_ERRORS;
  fputs("==> ", stdout);
  cli_text(stdout, path);
  fputs(": ", stdout);
  cli_text(stdout, e.name);
  psoc_hash_hex(e.hash, hex);
  printf(" (%s, hash %s", kind_name(e.kind), hex);
  if (e.root_signature) {
    fputs(", root signature '", stdout);
    cli_text(stdout, e.root_signature);
    fputs("'", stdout);
  }
  fputs(") <==\n", stdout);
  if (load_pipeline(a, index, &scratch, &desc, err, sizeof err) != 0) {
    cli_text(stderr, path);
    fputs(": error: pipeline '", stderr);
    cli_text(stderr, e.name);
    fputs("' does not load: ", stderr);
    cli_text(stderr, err);
    fputs("\n", stderr);
    rc = CLI_EXIT_ERRORS;
  } else if (psoc_dump(desc.pPipelineStateSubobjectStream, desc.SizeInBytes,
                       PSOC_FOLLOW_POINTERS, cli_write_file, stdout) != PSOC_OK) {
    rc = CLI_EXIT_USAGE;
  }
  free(scratch);
  return rc;
}

int cli_archive_dump_main(int argc, char **argv) {
  const char *path = NULL;
  psoc_archive *a;
  int i, rc, names = 0, worst = CLI_EXIT_OK;
  size_t k;
  for (i = 1; i < argc; i++)
    if (cli_is_help(argv[i])) {
      fputs(dump_help, stdout);
      return CLI_EXIT_OK;
    }
  for (i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1] != '\0' && strcmp(argv[i], "--") != 0)
      return cli_usage_error("dump", "unknown option '%s' for an archive", argv[i]);
    if (strcmp(argv[i], "--") == 0) continue;
    if (!path) path = argv[i];
    else names++;
  }
  if (!path) return cli_usage_error("dump", "no ARCHIVE given");
  if ((rc = open_archive(path, &a)) != CLI_EXIT_OK) return rc;
  if (names == 0) {
    for (k = 0; k < psoc_archive_count(a); k++) {
      rc = dump_one(path, a, k);
      if (rc > worst) worst = rc;
    }
  }
  for (i = 1; names && i < argc; i++) {
    if (strcmp(argv[i], "--") == 0 || argv[i] == path) continue;
    k = psoc_archive_find(a, argv[i]);
    if (k == PSOC_ARCHIVE_NOT_FOUND) {
      cli_text(stderr, path);
      fputs(": error: no pipeline called '", stderr);
      cli_text(stderr, argv[i]);
      fputs("'\n", stderr);
      rc = CLI_EXIT_ERRORS;
    } else {
      rc = dump_one(path, a, k);
    }
    if (rc > worst) worst = rc;
  }
  psoc_archive_close(a);
  return worst;
}

/* ---- diff ------------------------------------------------------------------ */

/* psoc_dump's text of a stream as sorted "SUBOBJECT.FIELD\tVALUE" rows. */
typedef struct dump_rows {
  char **rows;
  size_t count, cap;
  char section[128];
  char *text;
  size_t len, text_cap;
  int failed;
} dump_rows;

static int collect_text(void *ud, const char *s, size_t n) {
  dump_rows *d = ud;
  if (d->len + n + 1 > d->text_cap) {
    size_t want = d->text_cap ? d->text_cap * 2 : 4096;
    char *p;
    while (want < d->len + n + 1) want *= 2;
    if ((p = realloc(d->text, want)) == NULL) return -1;
    d->text = p;
    d->text_cap = want;
  }
  memcpy(d->text + d->len, s, n);
  d->len += n;
  d->text[d->len] = '\0';
  return 0;
}

static int add_row(dump_rows *d, const char *field, size_t flen, const char *value, size_t vlen) {
  size_t sl = strlen(d->section);
  char *row;
  if (d->count == d->cap) {
    size_t want = d->cap ? d->cap * 2 : 64;
    char **p = realloc(d->rows, want * sizeof *p);
    if (!p) return -1;
    d->rows = p;
    d->cap = want;
  }
  if ((row = malloc(sl + 1 + flen + 1 + vlen + 1)) == NULL) return -1;
  memcpy(row, d->section, sl);
  row[sl] = '.';
  memcpy(row + sl + 1, field, flen);
  row[sl + 1 + flen] = '\t';
  memcpy(row + sl + 2 + flen, value, vlen);
  row[sl + 2 + flen + vlen] = '\0';
  d->rows[d->count++] = row;
  return 0;
}

static int cmp_rows(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Split the dump into rows: "[i] @off TYPE (STRUCT)" starts a section named
** TYPE; "  FIELD = VALUE" lines are its rows; other lines are dropped (the
** stream's size and offsets differ between equal pipelines). */
static int make_rows(dump_rows *d) {
  char *line = d->text, *nl;
  while (line && *line) {
    nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (line[0] == '[') {
      char *at = strchr(line, ' '), *end;
      if (at && at[1] == '@') at = strchr(at + 1, ' ');
      if (at) {
        at++;
        end = strchr(at, ' ');
        snprintf(d->section, sizeof d->section, "%.*s", end ? (int)(end - at) : (int)strlen(at),
                 at);
      }
    } else if (line[0] == ' ' && line[1] == ' ') {
      char *eq = strstr(line, " = ");
      if (eq && add_row(d, line + 2, (size_t)(eq - line - 2), eq + 3, strlen(eq + 3)) != 0)
        return -1;
    }
    line = nl ? nl + 1 : NULL;
  }
  qsort(d->rows, d->count, sizeof *d->rows, cmp_rows);
  return 0;
}

static void rows_free(dump_rows *d) {
  size_t i;
  for (i = 0; i < d->count; i++) free(d->rows[i]);
  free(d->rows);
  free(d->text);
}

static int stream_rows(psoc_archive *a, size_t index, dump_rows *d, char *err, size_t n) {
  D3D12_PIPELINE_STATE_STREAM_DESC desc;
  void *scratch;
  int rc = -1;
  memset(d, 0, sizeof *d);
  if (load_pipeline(a, index, &scratch, &desc, err, n) == 0) {
    if (psoc_dump(desc.pPipelineStateSubobjectStream, desc.SizeInBytes, PSOC_FOLLOW_POINTERS,
                  collect_text, d) == PSOC_OK &&
        make_rows(d) == 0)
      rc = 0;
    else snprintf(err, n, "out of memory");
  }
  free(scratch);
  return rc;
}

static void print_value(const char *row) {
  const char *tab = row ? strchr(row, '\t') : NULL;
  cli_text(stdout, tab ? tab + 1 : "(absent)");
}

static size_t key_len(const char *row) {
  const char *tab = strchr(row, '\t');
  return tab ? (size_t)(tab - row) : strlen(row);
}

static int cmp_key(const char *a, const char *b) {
  size_t la = key_len(a), lb = key_len(b);
  int c = memcmp(a, b, la < lb ? la : lb);
  return c ? c : la < lb ? -1 : la > lb;
}

static void print_change(const char *key_row, const char *ra, const char *rb) {
  cli_text_len(stdout, key_row, key_len(key_row));
  fputs(": ", stdout);
  print_value(ra);
  fputs(" -> ", stdout);
  print_value(rb);
  fputs("\n", stdout);
}

/* 1 when the two pipelines differ (printed), 0 same, -1 one does not load. */
static int diff_pair(psoc_archive *a, size_t ia, psoc_archive *b, size_t ib, const char *name) {
  dump_rows ra, rb;
  char err[512];
  size_t i = 0, j = 0;
  psoc_archive_entry ea, eb;
  int header = 0;
  if (psoc_archive_entry_get(a, ia, &ea) != PSOC_OK || psoc_archive_entry_get(b, ib, &eb) != PSOC_OK)
    return -1;
  if (ea.hash.lo == eb.hash.lo && ea.hash.hi == eb.hash.hi) return 0;
  memset(&rb, 0, sizeof rb);
  if (stream_rows(a, ia, &ra, err, sizeof err) != 0 || stream_rows(b, ib, &rb, err, sizeof err) != 0) {
    fputs("psoc diff: pipeline '", stderr);
    cli_text(stderr, name);
    fputs("' does not load: ", stderr);
    cli_text(stderr, err);
    fputs("\n", stderr);
    rows_free(&ra);
    rows_free(&rb);
    return -1;
  }
  fputs("--- A:", stdout);
  cli_text(stdout, name);
  fputs("\n+++ B:", stdout);
  cli_text(stdout, name);
  fputs("\n", stdout);
  if ((ea.root_signature == NULL) != (eb.root_signature == NULL) ||
      (ea.root_signature && strcmp(ea.root_signature, eb.root_signature) != 0)) {
    fputs("root_signature: ", stdout);
    cli_text(stdout, ea.root_signature ? ea.root_signature : "(none)");
    fputs(" -> ", stdout);
    cli_text(stdout, eb.root_signature ? eb.root_signature : "(none)");
    fputs("\n", stdout);
    header = 1;
  }
  while (i < ra.count || j < rb.count) {
    int c = i == ra.count ? 1 : j == rb.count ? -1 : cmp_key(ra.rows[i], rb.rows[j]);
    if (c < 0) {
      print_change(ra.rows[i], ra.rows[i], NULL);
      header = 1;
      i++;
    } else if (c > 0) {
      print_change(rb.rows[j], NULL, rb.rows[j]);
      header = 1;
      j++;
    } else {
      if (strcmp(ra.rows[i], rb.rows[j]) != 0) {
        print_change(ra.rows[i], ra.rows[i], rb.rows[j]);
        header = 1;
      }
      i++;
      j++;
    }
  }
  if (!header) fputs("(the same fields; the hashes differ in content not shown by dump)\n", stdout);
  rows_free(&ra);
  rows_free(&rb);
  return 1;
}

static void print_only(const char *side, const char *name) {
  printf("only in %s: ", side);
  cli_text(stdout, name);
  fputs("\n", stdout);
}

static int diff_archives(psoc_archive *a, psoc_archive *b) {
  size_t i = 0, j = 0, na = psoc_archive_count(a), nb = psoc_archive_count(b);
  int rc = CLI_EXIT_OK;
  while (i < na || j < nb) {
    psoc_archive_entry ea, eb;
    int c, d;
    if (i < na && psoc_archive_entry_get(a, i, &ea) != PSOC_OK) return CLI_EXIT_USAGE;
    if (j < nb && psoc_archive_entry_get(b, j, &eb) != PSOC_OK) return CLI_EXIT_USAGE;
    c = i == na ? 1 : j == nb ? -1 : strcmp(ea.name, eb.name);
    if (c < 0) {
      print_only("A", ea.name);
      rc = CLI_EXIT_ERRORS;
      i++;
    } else if (c > 0) {
      print_only("B", eb.name);
      rc = CLI_EXIT_ERRORS;
      j++;
    } else {
      d = diff_pair(a, i, b, j, ea.name);
      if (d < 0) return CLI_EXIT_USAGE;
      if (d > 0) rc = CLI_EXIT_ERRORS;
      i++;
      j++;
    }
  }
  return rc;
}

/* Cook 'count' script arguments in memory into an archive over *bytes. */
static int cook_in_memory(const cook_options *o, char **args, int count, void **bytes,
                          psoc_archive **out) {
  cli_paths scripts = { NULL, 0, 0 };
  cook_material *m = NULL;
  psoc_archive_writer *w = NULL;
  const void *data;
  size_t size, i;
  char err[512];
  int rc = CLI_EXIT_USAGE;
  *bytes = NULL;
  if (cli_collect_scripts(&scripts, args, count, err, sizeof err) != 0) {
    fputs("psoc diff: ", stderr);
    cli_text(stderr, err);
    fputs("\n", stderr);
    goto done;
  }
  if ((m = calloc(scripts.count, sizeof *m)) == NULL) goto done;
  for (i = 0; i < scripts.count; i++) {
    m[i].path = scripts.items[i].path;
    m[i].root = scripts.items[i].root;
  }
  if (cook_evaluate(o, m, scripts.count) != 0) goto done;
  if (psoc_archive_writer_create(NULL, &w) != PSOC_OK) goto done;
  for (i = 0; i < scripts.count; i++) {
    psoc_archive *u = NULL;
    psoc_status s = PSOC_ERR_INVALID;
    cli_text_block(stderr, m[i].report ? m[i].report : "", m[i].report ? strlen(m[i].report) : 0);
    if (!m[i].failed &&
        psoc_archive_open_memory(m[i].unit, m[i].unit_size, PSOC_ARCHIVE_VERIFY_ALL, NULL, &u,
                                 err, sizeof err) == PSOC_OK)
      s = psoc_archive_writer_add_archive(w, u, err, sizeof err);
    psoc_archive_close(u);
    if (s != PSOC_OK) {
      if (!m[i].failed) {
        cli_text(stderr, m[i].path);
        fputs(": error: ", stderr);
        cli_text(stderr, err);
        fputs("\n", stderr);
      }
      goto done;
    }
  }
  if (psoc_archive_writer_finish(w, &data, &size) != PSOC_OK) goto done;
  if ((*bytes = malloc(size ? size : 1)) == NULL) goto done;
  memcpy(*bytes, data, size);
  if (psoc_archive_open_memory(*bytes, size, PSOC_ARCHIVE_VERIFY_ALL, NULL, out, err,
                               sizeof err) != PSOC_OK)
    goto done;
  rc = CLI_EXIT_OK;
done:
  if (rc != CLI_EXIT_OK) {
    free(*bytes);
    *bytes = NULL;
  }
  psoc_archive_writer_free(w);
  for (i = 0; m && i < scripts.count; i++) cook_material_free(&m[i]);
  free(m);
  cli_paths_free(&scripts);
  return rc;
}

int cli_archive_diff_main(int argc, char **argv) {
  cook_options o;
  const char *roots[64];
  char **args = calloc((size_t)argc + 1, sizeof *args);
  int i, count = 0, rc;
  psoc_archive *a = NULL, *b = NULL;
  void *bytes = NULL;
  size_t jobs;
  if (!args) return CLI_EXIT_USAGE;
  memset(&o, 0, sizeof o);
  o.command = "diff";
  o.roots = roots;
  o.jobs = psoc_plat_cpu_count();
  for (i = 1; i < argc; i++)
    if (cli_is_help(argv[i])) {
      fputs(diff_help, stdout);
      free(args);
      return CLI_EXIT_OK;
    }
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--root") == 0 && i + 1 < argc && o.root_count < 64) {
      roots[o.root_count++] = argv[++i];
    } else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
      if ((rc = cli_find_profile("diff", argv[++i], &o.profile)) != 0) goto out;
    } else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) {
      if (cli_parse_count(argv[++i], &jobs) != 0 || jobs < 1 || jobs > 256) {
        rc = cli_usage_error("diff", "--jobs needs a count from 1 to 256");
        goto out;
      }
      o.jobs = (unsigned)jobs;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      rc = cli_usage_error("diff", "unknown option '%s' for an archive", argv[i]);
      goto out;
    } else {
      args[count++] = argv[i];
    }
  }
  if (count < 2) {
    rc = cli_usage_error("diff", "expected ARCHIVE and ARCHIVE or DIR|SCRIPT..., got %d argument(s)",
                         count);
    goto out;
  }
  if ((rc = open_archive(args[0], &a)) != CLI_EXIT_OK) goto out;
  if (count == 2 && is_archive_file(args[1])) {
    if ((rc = open_archive(args[1], &b)) != CLI_EXIT_OK) goto out;
  } else if (cook_in_memory(&o, args + 1, count - 1, &bytes, &b) != CLI_EXIT_OK) {
    rc = CLI_EXIT_USAGE; /* a script failed: its diagnostics are printed */
    goto out;
  }
  rc = diff_archives(a, b);
out:
  psoc_archive_close(a);
  psoc_archive_close(b);
  free(bytes);
  free(args);
  return rc;
}
