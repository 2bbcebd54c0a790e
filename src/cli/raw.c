/*
** raw.c: 'psoc check --raw FILE...' and 'psoc dump --raw FILE...'.
**
** A raw FILE holds the bytes of a pipeline state stream as they lie in
** memory on x86-64 (pPipelineStateSubobjectStream, SizeInBytes = the file
** size). Pointers in it are never followed; a non-zero one is non-null.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "psoc.h"

typedef struct raw_options {
  const char *command; /* "check" or "dump" */
  int quiet;           /* check: errors only, no ok lines or summary */
  int json;            /* check: one JSON document on stdout */
  const psoc_profile *profile; /* check: the target device's capabilities, or
                                  NULL: the runtime's rules alone */
  int werror;          /* check: warnings fail too */
  size_t max_diags;    /* check: text diagnostics shown per file (0: all) */
  const char *output;  /* check: the report goes to this file, not stdout */
  char **files;
  int file_count;
} raw_options;

typedef struct raw_totals {
  size_t files, errors, warnings, notes, unreadable;
  int json_items; /* file objects printed so far */
} raw_totals;

/* Subobject types by index, from one walk over the file, so diagnostics
** can name the subobject they point at. */
static int worse(int a, int b) { return a > b ? a : b; }

/* ---- help ------------------------------------------------------------- */

static const char check_help[] =
  "usage: psoc check --raw [-q] [--format=text|json] [--profile=NAME] [--werror]\n"
  "                        [--max-diagnostics=N] [-o FILE] FILE...\n"
  "\n"
  "Check D3D12 pipeline state streams the way ID3D12Device2::CreatePipelineState\n"
  "would, and report every problem found. Each FILE holds a stream's bytes as they\n"
  "lie in memory on x86-64 (pPipelineStateSubobjectStream; SizeInBytes is the file\n"
  "size): subobjects 8-byte aligned, pointers 8 bytes. Pointers are never followed;\n"
  "a non-zero pointer counts as non-null. '-' reads standard input; any other\n"
  "FILE must be a regular file (a FIFO or a device is refused without waiting on\n"
  "it). Files above 64 MiB are refused.\n"
  "\n"
  "options:\n"
  "  --raw              FILEs are raw stream bytes\n"
  "  -q, --quiet        print error diagnostics only (no notes, warnings, ok lines\n"
  "                     or summary)\n"
  "  --format=FORMAT    'text' (default) or 'json'\n"
  "  --profile=NAME     check capabilities (mesh shaders, depth bounds, ...)\n"
  "                     against device profile NAME (see below); without it\n"
  "                     the stream is judged by the runtime's rules alone and\n"
  "                     held to no capability tier\n"
  "  --werror           warnings count as errors (exit 1)\n"
  "  -o, --output=FILE  write the report to FILE instead of stdout; FILE is\n"
  "                     created or replaced only when it is a regular file\n"
  "                     and not one of the FILEs checked (never a symlink,\n"
  "                     FIFO or device)\n"
  "  --max-diagnostics=N  print at most N diagnostics per file, then a count of\n"
  "                     the rest (default 50; 0: all; text output only)\n"
  "  --version          print psoc's version\n"
  "  -h, --help         show this help\n"
  "\n"
  "text output, on stdout: one line per diagnostic,\n"
  "  FILE[:@OFFSET]: SEVERITY: [LOCATION: ]MESSAGE [CODE[ / MESSAGE_ID]]\n"
  "where OFFSET is the byte offset in the stream, SEVERITY is error, warning or\n"
  "note, LOCATION is 'subobject INDEX (TYPE)', 'field FIELD' or both joined by\n"
  "', ', CODE is psoc's stable code (PSOC_...) and MESSAGE_ID the equivalent\n"
  "D3D12 debug-layer message ID (D3D12_MESSAGE_ID_...) when there is one:\n"
  "  a.bin:@96: error: subobject 3 (DEPTH_STENCIL1): DEPTH_STENCIL1 duplicates ...\n"
  "    [PSOC_DUPLICATE_SUBOBJECT / D3D12_MESSAGE_ID_CREATEPIPELINESTATE_DUPLICATE_SUBOBJECT]\n"
  "  (one line in the real output)\n"
  "then, for a file without errors,\n"
  "  FILE: ok (KIND, N subobjects, N bytes)\n"
  "and last, one summary line:\n"
  "  N file(s): N error(s), N warning(s), N note(s)[, N unreadable]\n"
  "where the errors include one per unreadable FILE. Usage and I/O errors go to\n"
  "stderr as 'psoc: FILE: REASON'. FILE names and messages are printed with\n"
  "control characters and invalid UTF-8 escaped (\\n, \\x1b, \\xff).\n"
  "\n"
  "json output, on stdout: one document,\n"
  "  {\"command\":\"check\",\"profile\",\"werror\",\"files\":[{\"file\",\"bytes\",\"kind\",\n"
  "   \"subobjects\",\"errors\",\n"
  "   \"warnings\",\"notes\",\"diagnostics\":[{\"severity\",\"code\",\"message_id\",\n"
  "   \"subobject\",\"type\",\"offset\",\"field\",\"message\"}]} or {\"file\",\"error\"}],\n"
  "   \"summary\":{\"files\",\"errors\",\"warnings\",\"notes\",\"unreadable\"}}\n"
  "(absent subobject, type, offset or message_id are null; \"profile\" is null\n"
  "without --profile; docs/json.md). The document is valid UTF-8: bytes that\n"
  "are not become U+FFFD.\n"
  "\n"
  "exit status: 0 no errors (notes and warnings allowed unless --werror), 1 a\n"
  "stream has errors (or warnings, with --werror), 2 usage or I/O error (every\n"
  "readable FILE is still checked).\n";

static const char dump_help[] =
  "usage: psoc dump --raw FILE...\n"
  "\n"
  "Print D3D12 pipeline state streams subobject by subobject: type, offset and\n"
  "every payload field by name. Each FILE holds a stream's bytes as they lie in\n"
  "memory on x86-64; pointers are never followed (arrays, strings and blobs show\n"
  "as null or non-null). '-' reads standard input. Files above 64 MiB are refused.\n"
  "With several FILEs each listing starts with a '==> FILE <==' line.\n"
  "A stream that cannot be walked to its end is listed up to the problem.\n"
  "\n"
  "options:\n"
  "  --raw              FILEs are raw stream bytes\n"
  "  -h, --help         show this help\n"
  "\n"
  "exit status: 0 ok, 1 a stream could not be walked to its end ('psoc check\n"
  "--raw' tells why), 2 usage or I/O error.\n";

static void list_profiles(FILE *out) {
  const psoc_profile *p;
  size_t i;
  fputs("\nprofiles (none by default: without --profile no capability tier applies):\n", out);
  for (i = 0; (p = psoc_profile_at(i)) != NULL; i++)
    fprintf(out, "  %-18s %s\n", p->name, p->description);
}

void cli_raw_help(FILE *out, const char *command) {
  if (strcmp(command, "dump") == 0) {
    fputs(dump_help, out);
    return;
  }
  fputs(check_help, out);
  list_profiles(out);
}

/* ---- arguments -------------------------------------------------------- */

static int set_format(raw_options *o, const char *value) {
  if (strcmp(value, "text") == 0) o->json = 0;
  else if (strcmp(value, "json") == 0) o->json = 1;
  else return cli_usage_error(o->command, "unknown format '%s' (use text or json)", value);
  return 0;
}

static int set_max_diags(raw_options *o, const char *value) {
  if (cli_parse_count(value, &o->max_diags) != 0)
    return cli_usage_error(o->command, "--max-diagnostics needs a count (0 for all), got '%s'",
                           value);
  return 0;
}

/* "--name=value" or "--name value" at argv[*i]: the value, or NULL when
** argv[*i] is another option. Sets *missing when the value is absent. */
static const char *option_value(const char *name, int argc, char **argv, int *i, int *missing) {
  size_t n = strlen(name);
  const char *arg = argv[*i];
  *missing = 0;
  if (strncmp(arg, name, n) != 0) return NULL;
  if (arg[n] == '=') return arg + n + 1;
  if (arg[n] != '\0') return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

/* One check option at argv[*i]; may consume a value. Returns 0 or an exit
** status; -1 when argv[*i] is not a check option. */
static int parse_check_option(raw_options *o, int argc, char **argv, int *i) {
  const char *arg = argv[*i], *value;
  int missing;
  if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
    o->quiet = 1;
    return 0;
  }
  if ((value = option_value("--format", argc, argv, i, &missing)) != NULL)
    return set_format(o, value);
  if (missing) return cli_usage_error(o->command, "--format needs a value (text or json)");
  if ((value = option_value("--profile", argc, argv, i, &missing)) != NULL)
    return cli_find_profile(o->command, value, &o->profile);
  if (missing) return cli_usage_error(o->command, "--profile needs a profile name");
  if ((value = option_value("--output", argc, argv, i, &missing)) != NULL ||
      (!missing && (value = option_value("-o", argc, argv, i, &missing)) != NULL)) {
    o->output = value;
    return 0;
  }
  if (missing) return cli_usage_error(o->command, "--output needs a FILE");
  if (strcmp(arg, "--werror") == 0) {
    o->werror = 1;
    return 0;
  }
  if ((value = option_value("--max-diagnostics", argc, argv, i, &missing)) != NULL)
    return set_max_diags(o, value);
  if (missing) return cli_usage_error(o->command, "--max-diagnostics needs a count");
  return -1;
}

/* One option at argv[*i]. Returns 0 or an exit status. */
static int parse_option(raw_options *o, int argc, char **argv, int *i) {
  int rc;
  if (strcmp(argv[*i], "--raw") == 0) return 0;
  if (strcmp(o->command, "check") == 0 && (rc = parse_check_option(o, argc, argv, i)) >= 0)
    return rc;
  return cli_usage_error(o->command, "unknown option '%s'", argv[*i]);
}

/* Fills 'o' (o->files must hold argc pointers). Returns -1 when the options
** are fine, otherwise the exit status to end with (0 after --help). */
static int parse_args(raw_options *o, int argc, char **argv) {
  int i, options_done = 0, rc;
  for (i = 1; i < argc; i++)
    if (strcmp(argv[i], "--") == 0) break;
    else if (cli_is_help(argv[i])) {
      cli_raw_help(stdout, o->command);
      return CLI_EXIT_OK;
    }
  for (i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!options_done && strcmp(arg, "--") == 0) options_done = 1;
    else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
      if ((rc = parse_option(o, argc, argv, &i)) != 0) return rc;
    } else {
      o->files[o->file_count++] = argv[i];
    }
  }
  if (o->file_count == 0) return cli_usage_error(o->command, "no FILE given");
  return -1;
}

/* ---- naming subobjects -------------------------------------------------- */

/* "subobject 3 (DEPTH_STENCIL1), field RASTERIZER.CullMode" or parts of
** it; the field is left out when it only repeats the type name. */
static void location(const cli_type_map *m, const psoc_diag *d, char *buf, size_t n) {
  char type[32];
  int len = 0;
  cli_type_label(m, d->subobject, type, sizeof type);
  if (type[0]) len = snprintf(buf, n, "subobject %d (%s)", (int)d->subobject, type);
  else buf[0] = '\0';
  if (d->field[0] && strcmp(d->field, type) != 0)
    snprintf(buf + len, n - (size_t)len, "%sfield %s", len ? ", " : "", d->field);
}

/* ---- check: text and json output --------------------------------------- */

static void print_diag_text(const char *name, const cli_type_map *m, const psoc_diag *d) {
  char where[PSOC_DIAG_FIELD_MAX + 64], id[PSOC_DIAG_MESSAGE_MAX];
  const char *context[3];
  cli_diag_view v;
  location(m, d, where, sizeof where);
  cli_diag_view_of(&v, d, NULL, id, sizeof id);
  context[0] = where;
  context[1] = where[0] ? ": " : "";
  context[2] = NULL;
  cli_diag_text(stdout, name, d->offset, context, &v);
}

static void print_diag_json(const cli_type_map *m, const psoc_diag *d, int first) {
  char type[32], id[PSOC_DIAG_MESSAGE_MAX];
  cli_diag_view v;
  cli_type_label(m, d->subobject, type, sizeof type);
  cli_diag_view_of(&v, d, type, id, sizeof id);
  cli_diag_json(stdout, &v, first);
}

static void print_ok_line(const char *name, const psoc_parsed *parsed, size_t size) {
  cli_text(stdout, name);
  printf(": ok (%s, %u subobject%s, %zu byte%s)\n", psoc_kind_name(parsed->kind),
         parsed->count, parsed->count == 1 ? "" : "s", size, size == 1 ? "" : "s");
}

static void json_file_open(raw_totals *t, const char *name) {
  printf("%s{\"file\":", t->json_items++ ? "," : "");
  cli_json_string(stdout, name);
}

static void report_json(const raw_options *o, const char *name, const cli_file *file,
                        const psoc_diags *diags, raw_totals *t) {
  psoc_parsed parsed;
  cli_type_map m;
  size_t i;
  int first = 1;
  psoc_parse(file->data, file->size, &parsed, NULL); /* kind and count, once */
  memset(&m, 0, sizeof m); /* subobject types: walked only to label diagnostics */
  if (diags->count) cli_type_map_build(&m, file->data, file->size);
  json_file_open(t, name);
  printf(",\"bytes\":%zu,\"kind\":\"%s\",\"subobjects\":%u", file->size,
         psoc_kind_name(parsed.kind), parsed.count);
  printf(",\"errors\":%zu,\"warnings\":%zu,\"notes\":%zu,\"diagnostics\":[", diags->errors,
         diags->warnings, diags->notes);
  for (i = 0; i < diags->count; i++) {
    if (o->quiet && diags->items[i].severity != PSOC_SEVERITY_ERROR) continue;
    print_diag_json(&m, &diags->items[i], first);
    first = 0;
  }
  fputs("]}", stdout);
  cli_type_map_free(&m);
}

static void report_text(const raw_options *o, const char *name, const cli_file *file,
                        const psoc_diags *diags) {
  cli_type_map m;
  size_t i, shown = 0, hidden = 0;
  memset(&m, 0, sizeof m); /* subobject types: walked only to label diagnostics */
  if (diags->count) cli_type_map_build(&m, file->data, file->size);
  for (i = 0; i < diags->count; i++) {
    if (o->quiet && diags->items[i].severity != PSOC_SEVERITY_ERROR) continue;
    if (o->max_diags && shown == o->max_diags) {
      hidden++;
      continue;
    }
    print_diag_text(name, &m, &diags->items[i]);
    shown++;
  }
  cli_type_map_free(&m);
  if (hidden) {
    cli_text(stdout, name);
    printf(": %zu more diagnostic(s) not shown (--max-diagnostics=%zu)\n", hidden, o->max_diags);
  }
  if (diags->errors == 0 && !(o->werror && diags->warnings) && !o->quiet) {
    psoc_parsed parsed;
    psoc_parse(file->data, file->size, &parsed, NULL);
    print_ok_line(name, &parsed, file->size);
  }
}

/* ---- check and dump, file by file ------------------------------------- */

/* Reads 'path'; on failure reports it (stderr, and the JSON document). */
static int load(const raw_options *o, const char *path, cli_file *file, raw_totals *t) {
  char err[256];
  const char *name = cli_display_name(path);
  if (cli_read_file(path, CLI_MAX_FILE_SIZE, file, err, sizeof err) == 0) return 0;
  fputs("psoc: ", stderr);
  cli_text(stderr, name);
  fprintf(stderr, ": %s\n", err);
  t->unreadable++;
  t->errors++; /* the summary counts what the exit status says */
  if (o->json) {
    json_file_open(t, name);
    fputs(",\"error\":", stdout);
    cli_json_string(stdout, err);
    fputs("}", stdout);
  }
  return CLI_EXIT_USAGE;
}

static int check_file(const raw_options *o, const char *path, raw_totals *t) {
  const char *name = cli_display_name(path);
  cli_file file;
  psoc_diags diags;
  psoc_check_options options;
  int rc;
  t->files++;
  if ((rc = load(o, path, &file, t)) != 0) return rc;
  memset(&options, 0, sizeof options); /* never PSOC_CHECK_FOLLOW_POINTERS */
  options.profile = o->profile;
  if (o->werror) options.flags |= PSOC_CHECK_WERROR;
  psoc_diags_init(&diags, NULL);
  psoc_check(file.data, file.size, &options, &diags);
  if (o->json) report_json(o, name, &file, &diags, t);
  else report_text(o, name, &file, &diags);
  if (diags.dropped) {
    fputs("psoc: ", stderr);
    cli_text(stderr, name);
    fprintf(stderr, ": %zu diagnostic(s) not shown (out of memory)\n", diags.dropped);
  }
  t->errors += diags.errors;
  t->warnings += diags.warnings;
  t->notes += diags.notes;
  rc = diags.errors || (o->werror && diags.warnings) ? CLI_EXIT_ERRORS : CLI_EXIT_OK;
  psoc_diags_free(&diags);
  cli_file_free(&file);
  return rc;
}

static void print_summary(const raw_options *o, const raw_totals *t) {
  if (o->json) {
    printf("],\"summary\":{\"files\":%zu,\"errors\":%zu,\"warnings\":%zu,\"notes\":%zu,"
           "\"unreadable\":%zu}}\n", t->files, t->errors, t->warnings, t->notes, t->unreadable);
    return;
  }
  if (o->quiet) return;
  printf("%zu file(s): %zu error(s), %zu warning(s), %zu note(s)", t->files, t->errors,
         t->warnings, t->notes);
  if (t->unreadable) printf(", %zu unreadable", t->unreadable);
  if (o->werror && t->warnings) fputs(" (--werror: warnings fail)", stdout);
  fputs("\n", stdout);
}

static int run_check(const raw_options *o) {
  raw_totals t;
  int i, rc = CLI_EXIT_OK;
  memset(&t, 0, sizeof t);
  if (o->json) {
    fputs("{\"command\":\"check\",\"profile\":", stdout);
    if (o->profile) cli_json_string(stdout, o->profile->name);
    else fputs("null", stdout);
    printf(",\"werror\":%s,\"files\":[", o->werror ? "true" : "false");
  }
  for (i = 0; i < o->file_count; i++) rc = worse(rc, check_file(o, o->files[i], &t));
  print_summary(o, &t);
  return rc;
}

static int dump_file(const raw_options *o, const char *path, int index, raw_totals *t) {
  cli_file file;
  psoc_status status;
  int rc;
  if ((rc = load(o, path, &file, t)) != 0) return rc;
  if (o->file_count > 1) {
    fputs(index ? "\n==> " : "==> ", stdout);
    cli_text(stdout, cli_display_name(path));
    fputs(" <==\n", stdout);
  }
  status = psoc_dump(file.data, file.size, 0, cli_write_file, stdout);
  cli_file_free(&file);
  if (status == PSOC_OK) return CLI_EXIT_OK;
  if (status == PSOC_ERR_INVALID) return CLI_EXIT_ERRORS;
  fputs("psoc: ", stderr);
  cli_text(stderr, cli_display_name(path));
  fprintf(stderr, ": dump failed: %s\n", psoc_status_name(status));
  return CLI_EXIT_USAGE;
}

static int run_dump(const raw_options *o) {
  raw_totals t;
  int i, rc = CLI_EXIT_OK;
  memset(&t, 0, sizeof t);
  for (i = 0; i < o->file_count; i++) rc = worse(rc, dump_file(o, o->files[i], i, &t));
  return rc;
}

int cli_raw_main(const char *command, int argc, char **argv) {
  raw_options o;
  int rc;
  memset(&o, 0, sizeof o);
  o.command = command;
  o.profile = NULL; /* the runtime's rules alone unless --profile names one */
  o.max_diags = CLI_DEFAULT_MAX_DIAGNOSTICS;
  if (sizeof(void *) != 8) {
    fprintf(stderr, "psoc %s: raw streams use the x86-64 layout; this psoc is not 64-bit\n",
            command);
    return CLI_EXIT_USAGE;
  }
  o.files = malloc((size_t)argc * sizeof *o.files);
  if (!o.files) {
    fprintf(stderr, "psoc %s: out of memory\n", command);
    return CLI_EXIT_USAGE;
  }
  rc = parse_args(&o, argc, argv);
  if (rc < 0 && o.output) {
    char err[512];
    if (cli_redirect_stdout(o.output, o.files, (size_t)o.file_count, err, sizeof err) != 0) {
      fprintf(stderr, "psoc %s: ", command);
      cli_text(stderr, err);
      fputs("\n", stderr);
      rc = CLI_EXIT_USAGE;
    }
  }
  if (rc < 0) rc = strcmp(command, "dump") == 0 ? run_dump(&o) : run_check(&o);
  free(o.files);
  return rc;
}
