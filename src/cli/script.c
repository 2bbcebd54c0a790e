/*
** script.c: the material-script forms of 'psoc check', 'dump', 'explain'
** and 'diff'. Scripts run in the sandbox of bindings/lua (psol.h); the CLI
** takes the streams of the pipelines they return through pso_module.h and
** hands them to libpsoc: psoc_dump (dump), psoc_json (dump --json),
** psoc_explain with the module's declaration origins (explain),
** psoc_diff_streams (diff) and psoc_check (check, so that it can take a
** capability profile and follow the stream's pointers). No pipeline method
** is called by name. Every script runs in a fresh state of its own, in
** every command (diff compares two states' streams in C), so no script can
** change what another one returns.
**
** Everything a script controls (names, messages, paths, print output) is
** printed through cli_text / cli_json_string: escaped, and valid UTF-8.
**
** main.c calls in here when built with PSOC_CLI_HAVE_SCRIPTS (premake5.lua
** sets it for the psoc project).
*/
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"
#include "compat.h"
#include "platform.h"
#include "pso_module.h"
#include "psoc.h"
#include "psol.h"
#include "xxh.h"

#define MAX_ROOTS 64

typedef struct script_options {
  const char *command;
  const char *roots[MAX_ROOTS];
  size_t root_count;
  int quiet;             /* check: errors only */
  int json;              /* check --format=json, dump --json */
  int summary;           /* check: a table of every pipeline at the end */
  int deep;              /* check: follow the stream's pointers */
  const psoc_profile *profile; /* check: NULL = the runtime's rules alone */
  int werror;            /* check: warnings fail too */
  size_t max_diags;      /* check: text diagnostics shown per script (0: all) */
  int changed;           /* explain: only fields that are not defaults */
  const char *output;    /* check: the report goes to this file */
  const char *pipeline;  /* explain/dump: only this pipeline */
  char **args;           /* positional arguments */
  int arg_count;
  cli_paths scripts;     /* check/dump/explain: args with folders walked */
} script_options;

/* print() output kept per script; the rest is counted and reported. */
#define PRINT_CAP ((size_t)64 * 1024)

static int worse(int a, int b) { return a > b ? a : b; }

/* ---- help ------------------------------------------------------------- */

static const char common_options[] =
  "  --root DIR         a material root (repeatable): files and modules the\n"
  "                     script names must resolve inside one; default: the\n"
  "                     script's directory\n"
  "  -h, --help         show this help\n";

static const char check_help[] =
  "usage: psoc check [-q] [--summary] [--format=text|json] [--profile=NAME] [--deep]\n"
  "                  [--werror] [--max-diagnostics=N] [-o FILE] [--root DIR]...\n"
  "                  SCRIPT|DIR...\n"
  "       psoc check --raw [OPTIONS] FILE...     (raw stream bytes; see below)\n"
  "\n"
  "Run material scripts in the sandbox and check every pipeline they return the\n"
  "way ID3D12Device2::CreatePipelineState would. Each script runs in a fresh\n"
  "state of its own. A DIR stands for every *.lua under it (recursively, sorted,\n"
  "hidden entries and *_test.lua skipped) and is their default --root. Every\n"
  "SCRIPT must be a regular file. Two pipelines with the same name are an\n"
  "error: in one script's result the script fails (naming both entries), in\n"
  "two scripts of one run PSOC_DUPLICATE_NAME names both declarations.\n"
  "\n"
  "options:\n"
  "  -q, --quiet        print error diagnostics only (no ok lines or summary)\n"
  "  --summary          end with a table of every pipeline: kind, subobjects,\n"
  "                     bytes, hash prefix, errors and warnings\n"
  "  --format=FORMAT    'text' (default) or 'json'\n"
  "  --profile=NAME     check capabilities (mesh shaders, view instancing, depth\n"
  "                     bounds, ...) against device profile NAME (listed below);\n"
  "                     without it the streams are judged by the runtime's rules\n"
  "                     alone and held to no capability tier\n"
  "  --werror           warnings count as errors (exit 1)\n"
  "  -o, --output=FILE  write the report to FILE instead of stdout; FILE is\n"
  "                     created or replaced only when it is a regular file and\n"
  "                     not one of the SCRIPTs (never a symlink, FIFO or device)\n"
  "  --max-diagnostics=N  print at most N diagnostics per script, then a count of\n"
  "                     the rest (default 50; 0: all; text output only)\n"
  "  --deep             also read what the streams point to (input element names,\n"
  "                     stream-output declarations, view-instance locations and\n"
  "                     shader containers: needs real compiled shaders)\n"
  "%s"
  "\n"
  "text output, on stdout: one line per diagnostic,\n"
  "  SCRIPT[:LINE]: SEVERITY: [pipeline 'NAME': ][FIELD: ]MESSAGE [CODE[ / MESSAGE_ID]]\n"
  "Script errors (syntax, a misspelt key, a sandbox violation) carry the line of\n"
  "the Lua error; stream diagnostics carry the line of the pipeline's declaration\n"
  "(its pso.graphics/mesh/compute/derive call) and name the pipeline. For each\n"
  "pipeline without errors:\n"
  "  SCRIPT: pipeline 'NAME': ok (KIND, N subobjects, N bytes, hash HASH)\n"
  "and last, one summary line:\n"
  "  N script(s), N pipeline(s): N error(s), N warning(s), N note(s)[, N unreadable]\n"
  "where the errors include one per failed or unreadable script. Names, paths and\n"
  "messages are printed with control characters and invalid UTF-8 escaped (\\n,\n"
  "\\x1b, \\xff). A script's print() output goes to stderr, escaped the same way\n"
  "(newlines and tabs kept), at most 64 KiB per script; the rest is counted.\n"
  "\n"
  "json output: {\"command\":\"check\",\"profile\" (null without --profile),\"werror\",\n"
  "  \"scripts\":[{\"file\",\"error\":null or\n"
  "  {\"line\",\"message\"},\"pipelines\":[{\"name\",\"kind\",\"subobjects\",\"bytes\",\"hash\",\"line\",\n"
  "  \"errors\",\"warnings\",\"notes\",\"diagnostics\":[{\"severity\",\"code\",\"message_id\",\n"
  "  \"subobject\",\"type\",\"offset\",\"field\",\"message\"}]}]}],\"summary\":{\"scripts\",\n"
  "  \"failed_scripts\",\"unreadable\",\"pipelines\",\"errors\",\"warnings\",\"notes\"}}\n"
  "Diagnostics have the schema of 'check --raw' (docs/json.md); an absent\n"
  "message_id, subobject, type or offset is null. The document is valid UTF-8:\n"
  "bytes that are not become U+FFFD.\n"
  "\n"
  "exit status: 0 no errors (notes and warnings allowed unless --werror), 1 a\n"
  "script or a pipeline has errors (or warnings, with --werror), 2 usage or I/O\n"
  "error (an unreadable script; the others are still checked).\n"
  "\n"
  "---- the raw form ----\n";

static const char dump_help[] =
  "usage: psoc dump [--json] [--pipeline NAME] [--root DIR]... SCRIPT|DIR...\n"
  "       psoc dump --raw FILE...                (raw stream bytes; see below)\n"
  "\n"
  "Run material scripts in the sandbox and print every pipeline they return,\n"
  "subobject by subobject, each under a '==> SCRIPT: NAME (KIND) <==' line. A DIR\n"
  "stands for the *.lua under it, as in 'psoc check'.\n"
  "\n"
  "options:\n"
  "  --json             one JSON array holding every pipeline (p:json())\n"
  "  --pipeline NAME    only the pipeline called NAME\n"
  "%s"
  "\n"
  "exit status: 0 ok, 1 a script failed, 2 usage or I/O error.\n"
  "\n"
  "---- the raw form ----\n";

static const char explain_help[] =
  "usage: psoc explain [--changed] [--pipeline NAME] [--root DIR]... SCRIPT|DIR...\n"
  "\n"
  "Run material scripts in the sandbox and explain every pipeline they return:\n"
  "the effective value of every field and where it comes from (the script, a\n"
  "preset, a derive base, a runtime default or a hidden default), one line each:\n"
  "  PATH = VALUE   (ORIGIN)\n"
  "An input element's offset D3D12_APPEND_ALIGNED_ELEMENT shows as\n"
  "append_aligned. A DIR stands for the *.lua under it, as in 'psoc check'.\n"
  "\n"
  "options:\n"
  "  --changed          only the fields whose value is not the runtime's\n"
  "                     default (the value a pipeline of the same kind that\n"
  "                     sets nothing but its shader has)\n"
  "  --pipeline NAME    only the pipeline called NAME\n"
  "%s"
  "\n"
  "exit status: 0 ok, 1 a script failed, 2 usage or I/O error (also when no\n"
  "pipeline is called NAME).\n";

static const char diff_help[] =
  "usage: psoc diff [--root DIR]... A B\n"
  "\n"
  "Compare pipelines field by field. A and B are material scripts, or\n"
  "SCRIPT:NAME for the pipeline called NAME in SCRIPT (both may name the same\n"
  "script). When each side holds one pipeline they are compared; otherwise\n"
  "pipelines are paired by name and unpaired ones are reported. A and B each run\n"
  "in a fresh sandboxed state of their own, and the effective values of every\n"
  "field (what 'psoc explain' prints) are compared outside both, so neither\n"
  "script can change what the other returns or how it is compared.\n"
  "\n"
  "options:\n"
  "%s"
  "\n"
  "output: '--- A' and '+++ B' lines per pair, then one line per difference,\n"
  "  PATH: VALUE_IN_A -> VALUE_IN_B\n"
  "((absent) where a field exists on one side only: pipelines of other kinds)\n"
  "and 'only in A: NAME' / 'only in B: NAME' for unpaired pipelines.\n"
  "\n"
  "exit status: 0 same, 1 different, 2 usage or I/O error, or a script failed.\n";

static void print_help(const char *command) {
  const char *text = check_help;
  if (strcmp(command, "dump") == 0) text = dump_help;
  else if (strcmp(command, "explain") == 0) text = explain_help;
  else if (strcmp(command, "diff") == 0) text = diff_help;
  printf(text, common_options);
  if (strcmp(command, "check") == 0 || strcmp(command, "dump") == 0) {
    fputs("\n", stdout);
    cli_raw_help(stdout, command);
  }
}

/* ---- arguments -------------------------------------------------------- */

static int takes_value(const char *arg, const char *name, int argc, char **argv, int *i,
                       const char **out, const char *command) {
  return cli_option_value(command, arg, name, argc, argv, i, out); /* util.c */
}

/* Returns -1 to go on, else the exit status to end with. */
static int parse_args(script_options *o, int argc, char **argv) {
  int i, options_done = 0;
  const char *cmd = o->command;
  int is_check = strcmp(cmd, "check") == 0, is_dump = strcmp(cmd, "dump") == 0;
  int is_explain = strcmp(cmd, "explain") == 0;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) break;
    if (cli_is_help(argv[i])) {
      print_help(cmd);
      return CLI_EXIT_OK;
    }
  }
  for (i = 1; i < argc; i++) {
    const char *arg = argv[i], *value = NULL;
    int r;
    if (options_done || arg[0] != '-' || arg[1] == '\0') {
      o->args[o->arg_count++] = argv[i];
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      options_done = 1;
      continue;
    }
    if ((r = takes_value(arg, "--root", argc, argv, &i, &value, cmd)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (o->root_count == MAX_ROOTS)
        return cli_usage_error(cmd, "too many --root options (at most %d)", MAX_ROOTS);
      o->roots[o->root_count++] = value;
      continue;
    }
    if ((is_explain || is_dump) &&
        (r = takes_value(arg, "--pipeline", argc, argv, &i, &value, cmd)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      o->pipeline = value;
      continue;
    }
    if (is_check && (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0)) {
      o->quiet = 1;
      continue;
    }
    if (is_check && strcmp(arg, "--summary") == 0) {
      o->summary = 1;
      continue;
    }
    if (is_check && strcmp(arg, "--deep") == 0) {
      o->deep = 1;
      continue;
    }
    if (is_check && (r = takes_value(arg, "--profile", argc, argv, &i, &value, cmd)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if ((r = cli_find_profile(cmd, value, &o->profile)) != 0) return r;
      continue;
    }
    if (is_check && ((r = takes_value(arg, "--output", argc, argv, &i, &value, cmd)) != 0 ||
                     (r = takes_value(arg, "-o", argc, argv, &i, &value, cmd)) != 0)) {
      if (r < 0) return CLI_EXIT_USAGE;
      o->output = value;
      continue;
    }
    if (is_check && strcmp(arg, "--werror") == 0) {
      o->werror = 1;
      continue;
    }
    if (is_check &&
        (r = takes_value(arg, "--max-diagnostics", argc, argv, &i, &value, cmd)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (cli_parse_count(value, &o->max_diags) != 0)
        return cli_usage_error(cmd, "--max-diagnostics needs a count (0 for all), got '%s'",
                               value);
      continue;
    }
    if (is_explain && strcmp(arg, "--changed") == 0) {
      o->changed = 1;
      continue;
    }
    if (is_check && (r = takes_value(arg, "--format", argc, argv, &i, &value, cmd)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (strcmp(value, "text") == 0) o->json = 0;
      else if (strcmp(value, "json") == 0) o->json = 1;
      else return cli_usage_error(cmd, "unknown format '%s' (use text or json)", value);
      continue;
    }
    if (is_dump && strcmp(arg, "--json") == 0) {
      o->json = 1;
      continue;
    }
    return cli_usage_error(cmd, "unknown option '%s'", arg);
  }
  if (strcmp(cmd, "diff") == 0) {
    if (o->arg_count != 2)
      return cli_usage_error(cmd, "expected two pipelines A and B, got %d argument(s)",
                             o->arg_count);
  } else if (o->arg_count == 0) {
    return cli_usage_error(cmd, "no SCRIPT given");
  } else {
    char err[512];
    if (cli_collect_scripts(&o->scripts, o->args, o->arg_count, err, sizeof err) != 0) {
      fprintf(stderr, "psoc %s: ", cmd);
      cli_text(stderr, err);
      fputs("\n", stderr);
      return CLI_EXIT_USAGE;
    }
  }
  return -1;
}

/* ---- running scripts -------------------------------------------------- */

/* What one script printed: kept up to PRINT_CAP bytes, the rest counted. */
typedef struct print_log {
  size_t written, dropped;
} print_log;

static void log_print(void *ud, const char *text, size_t len) {
  print_log *log = ud;
  size_t room = log->written < PRINT_CAP ? PRINT_CAP - log->written : 0;
  size_t n = len < room ? len : room;
  if (n) cli_text_block(stderr, text, n); /* keep stdout for results */
  log->written += n;
  log->dropped += len - n;
}

static void report_dropped_print(const char *command, const char *path, const print_log *log) {
  if (!log->dropped) return;
  fflush(stdout);
  fprintf(stderr, "\npsoc %s: ", command);
  cli_text(stderr, path);
  fprintf(stderr, ": print output over %zu KiB: %zu more byte(s) not shown\n", PRINT_CAP / 1024,
          log->dropped);
}

/* A fresh sandboxed state for one script. 'root' (a folder the script was
** found in) is its root when no --root was given. */
static lua_State *open_state(const script_options *o, const char *root, print_log *log) {
  psol_options opts;
  char err[512];
  lua_State *L;
  const char *roots[1];
  memset(&opts, 0, sizeof opts);
  opts.roots = o->roots;
  opts.root_count = o->root_count;
  if (!o->root_count && root) {
    roots[0] = root;
    opts.roots = roots;
    opts.root_count = 1;
  }
  if (log) {
    memset(log, 0, sizeof *log);
    opts.log = log_print;
    opts.ud = log;
  }
  L = psol_newstate(&opts, err, sizeof err);
  if (!L) {
    fprintf(stderr, "psoc %s: ", o->command);
    cli_text(stderr, err);
    fputs("\n", stderr);
  }
  return L;
}

/* Split "FILE:LINE: message" into its line and message. */
static const char *split_position(const char *msg, const char *file, long *line) {
  size_t n = strlen(file);
  *line = 0;
  if (strncmp(msg, file, n) == 0 && msg[n] == ':') {
    char *end;
    long v = strtol(msg + n + 1, &end, 10);
    if (end > msg + n + 1 && end[0] == ':' && end[1] == ' ') {
      *line = v;
      return end + 2;
    }
    if (msg[n + 1] == ' ') return msg + n + 2;
  }
  /* A position in another file (a required module): keep it in the text. */
  return msg;
}

static void print_io_error(const char *command, const char *path, const char *why) {
  fflush(stdout);
  fprintf(stderr, "psoc %s: ", command);
  cli_text(stderr, path);
  fprintf(stderr, ": %s\n", why);
}

/* Run 'path' and leave a list of its pipelines on the stack. Returns 0, or
** CLI_EXIT_ERRORS with the error message on the stack (the script failed),
** or CLI_EXIT_USAGE with the reason in 'why' (not a readable regular file;
** the sandbox reads it without blocking, a FIFO or device is refused at
** once, so this is asked only when the script failed). */
static int run_script(lua_State *L, const char *path, char *why, size_t why_size) {
  if (psol_dofile(L, path, 1) != LUA_OK)
    return cli_check_regular(path, why, why_size) != 0 ? CLI_EXIT_USAGE : CLI_EXIT_ERRORS;
  if (pso_topipeline(L, -1)) {
    lua_createtable(L, 1, 0);
    lua_insert(L, -2);
    lua_rawseti(L, -2, 1);
    return 0;
  }
  /* the module's check: a list of pipelines, no two named alike */
  if (!pso_check_result(L, -1)) {
    lua_pushfstring(L, "%s: %s", path, lua_tostring(L, -1));
    lua_replace(L, -3);
    lua_pop(L, 1);
    return CLI_EXIT_ERRORS;
  }
  return 0;
}

static const char *pipeline_name(const pso_pipeline *p) {
  const char *name = pso_pipeline_name(p);
  return name ? name : "";
}

static void print_script_error(lua_State *L, const char *path, const char *label) {
  char msg[2048];
  long line;
  const char *text;
  psol_error_message(L, -1, msg, sizeof msg);
  text = split_position(msg, path, &line);
  cli_text(stdout, path);
  if (line > 0) printf(":%ld", line);
  printf(": %s: ", label);
  cli_text(stdout, text);
  fputs("\n", stdout);
}

/* A script's error on stderr (dump, explain, diff). */
static void print_stderr_error(lua_State *L) {
  char msg[2048];
  fflush(stdout);
  cli_text(stderr, psol_error_message(L, -1, msg, sizeof msg));
  fputs("\n", stderr);
}

/* ---- check ------------------------------------------------------------ */

typedef struct check_totals {
  size_t scripts, pipelines, errors, warnings, notes, failed_scripts, unreadable;
  int json_scripts;
  size_t shown, hidden; /* text diagnostics of the current script */
} check_totals;

typedef struct summary_row {
  char *file, *name, *kind, hash[13];
  size_t subobjects, bytes, errors, warnings;
  int failed; /* the script failed: no pipeline */
  struct summary_row *next;
} summary_row;

/* Every named pipeline of the run so far, with where it was declared,
** found through an open-addressing index of XXH3-64 name hashes (a library
** of 10,000 pipelines made a linear scan quadratic: 15% of a check). */
typedef struct name_seen {
  char *name, *where;
  uint64_t hash;
} name_seen;
typedef struct name_table {
  name_seen *items;
  size_t count, cap;
  size_t *slots; /* index + 1 into items, 0 = empty; 'mask' + 1 of them */
  size_t mask;
} name_table;

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

/* Grow the index to twice the items' capacity (load <= 1/2). */
static int name_index_grow(name_table *t, size_t items_cap) {
  size_t n = 64, i;
  size_t *slots;
  while (n < items_cap * 2) n *= 2;
  if (t->slots && n <= t->mask + 1) return 1;
  slots = calloc(n, sizeof *slots);
  if (!slots) return 0;
  for (i = 0; i < t->count; i++) {
    size_t at = (size_t)t->items[i].hash & (n - 1);
    while (slots[at]) at = (at + 1) & (n - 1);
    slots[at] = i + 1;
  }
  free(t->slots);
  t->slots = slots;
  t->mask = n - 1;
  return 1;
}

/* The earlier declaration of 'name', or NULL (then 'name' is recorded). */
static const char *name_first(name_table *t, const char *name, const char *where) {
  uint64_t h = psoc_xxh3(name, strlen(name));
  size_t at;
  name_seen *e;
  if (t->slots) {
    for (at = (size_t)h & t->mask; t->slots[at]; at = (at + 1) & t->mask) {
      e = &t->items[t->slots[at] - 1];
      if (e->hash == h && strcmp(e->name, name) == 0) return e->where;
    }
  }
  if (t->count == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 32;
    name_seen *p = realloc(t->items, cap * sizeof *p);
    if (!p) return NULL;
    t->items = p;
    t->cap = cap;
  }
  if (!name_index_grow(t, t->cap)) return NULL;
  e = &t->items[t->count];
  e->name = xstrdup(name);
  e->where = xstrdup(where);
  e->hash = h;
  if (e->name && e->where) {
    for (at = (size_t)h & t->mask; t->slots[at]; at = (at + 1) & t->mask) {}
    t->slots[at] = ++t->count;
  } else {
    free(e->name);
    free(e->where);
  }
  return NULL;
}

static void name_table_free(name_table *t) {
  size_t i;
  for (i = 0; i < t->count; i++) {
    free(t->items[i].name);
    free(t->items[i].where);
  }
  free(t->items);
  free(t->slots);
}

typedef struct check_run {
  const script_options *o;
  check_totals t;
  summary_row *rows, **tail; /* --summary */
  name_table names;
} check_run;

static summary_row *add_row(check_run *r, const char *file, const char *name, const char *kind) {
  summary_row *row;
  if (!r->o->summary || !(row = calloc(1, sizeof *row))) return NULL;
  row->file = xstrdup(file);
  row->name = xstrdup(name);
  row->kind = xstrdup(kind);
  *r->tail = row;
  r->tail = &row->next;
  return row;
}

static void json_key_string(const char *key, const char *value, int comma) {
  printf("%s\"%s\":", comma ? "," : "", key);
  if (value) cli_json_string(stdout, value);
  else fputs("null", stdout);
}

static void json_key_int(const char *key, long long v, int comma) {
  printf("%s\"%s\":", comma ? "," : "", key);
  if (v >= 0) printf("%lld", v);
  else fputs("null", stdout);
}

/* Does a diagnostic of 'severity' fail the run? */
static int fails(const script_options *o, psoc_severity severity) {
  return severity == PSOC_SEVERITY_ERROR || (o->werror && severity == PSOC_SEVERITY_WARNING);
}

/* 'where' is "FILE:LINE" of the pipeline's declaration, or the script;
** 'types' names the subobjects of the pipeline's stream (JSON only). */
static void print_diag(check_run *r, const char *where, const char *name, const psoc_diag *d,
                       const cli_type_map *types, int first) {
  const script_options *o = r->o;
  char id[PSOC_DIAG_MESSAGE_MAX], key[PSOC_DIAG_FIELD_MAX + 16], type[32];
  const char *context[6];
  cli_diag_view v;
  if (o->json) {
    cli_type_label(types, d->subobject, type, sizeof type);
    cli_diag_view_of(&v, d, type, id, sizeof id);
    cli_diag_json(stdout, &v, first);
    return;
  }
  if (o->quiet && !fails(o, d->severity)) return;
  if (o->max_diags && r->t.shown >= o->max_diags) {
    r->t.hidden++;
    return;
  }
  r->t.shown++;
  pso_field_path(d->field, key, sizeof key); /* text names the material's keys */
  cli_diag_view_of(&v, d, NULL, id, sizeof id);
  context[0] = "pipeline '";
  context[1] = name;
  context[2] = "': ";
  context[3] = key;
  context[4] = key[0] ? ": " : "";
  context[5] = NULL;
  cli_diag_text(stdout, where, -1, context, &v);
}

/* A second pipeline called 'name' in the run: an error on the second one. */
static int print_duplicate(check_run *r, const char *where, const char *name, const char *first,
                           int first_diag) {
  const script_options *o = r->o;
  char msg[PSOC_DIAG_MESSAGE_MAX];
  const char *context[4] = { "pipeline '", name, "': name: ", NULL };
  cli_diag_view v;
  snprintf(msg, sizeof msg, "another pipeline of this run is called '%s' (declared at %s); "
           "pipeline names must be unique", name, first);
  v.severity = "error";
  v.code = "PSOC_DUPLICATE_NAME";
  v.message_id = NULL;
  v.subobject = -1;
  v.type = NULL;
  v.offset = -1;
  v.field = "name";
  v.message = msg;
  if (o->json) {
    cli_diag_json(stdout, &v, first_diag);
    return 1;
  }
  if (o->max_diags && r->t.shown >= o->max_diags) {
    r->t.hidden++;
    return 1;
  }
  r->t.shown++;
  cli_diag_text(stdout, where, -1, context, &v);
  return 1;
}

static int check_pipeline(lua_State *L, check_run *r, const char *path, int idx, int first) {
  const script_options *o = r->o;
  pso_pipeline *p = pso_topipeline(L, idx);
  const psoc_stream *stream = pso_pipeline_stream(p);
  const char *name = pipeline_name(p), *kind = psoc_kind_name(pso_pipeline_kind(p));
  const char *earlier = NULL;
  size_t bytes = stream ? psoc_stream_size(stream) : 0, i, errors;
  size_t subobjects = pso_pipeline_subobjects(p); /* the module's count: no walk */
  char hash[33];
  psoc_check_options options;
  psoc_diags diags;
  cli_type_map types;
  summary_row *row;
  int shown = 0, rc, line;
  char where[1024];
  line = psol_pipeline_where(L, idx, where, sizeof where);
  if (line > 0) snprintf(where + strlen(where), sizeof where - strlen(where), ":%d", line);
  else snprintf(where, sizeof where, "%s", path);
  psoc_hash_hex(pso_pipeline_hash(p), hash);
  memset(&options, 0, sizeof options);
  options.profile = o->profile;
  /* the pso module built the layout arrays itself: the input-layout rules
  ** that need no shader always run; --deep also reads shader containers */
  options.flags = o->deep ? PSOC_CHECK_FOLLOW_POINTERS : PSO_PIPELINE_CHECK_FLAGS;
  if (o->werror) options.flags |= PSOC_CHECK_WERROR;
  psoc_diags_init(&diags, NULL);
  if (stream) psoc_check(psoc_stream_data(stream), bytes, &options, &diags);
  if (name[0]) earlier = name_first(&r->names, name, where);
  errors = diags.errors + (earlier ? 1 : 0);
  r->t.pipelines++;
  if (o->json) {
    printf("%s{", first ? "" : ",");
    json_key_string("name", name, 0);
    json_key_string("kind", kind, 1);
    printf(",\"subobjects\":%zu,\"bytes\":%zu", subobjects, bytes);
    json_key_string("hash", hash, 1);
    json_key_int("line", line > 0 ? line : -1, 1);
    printf(",\"errors\":%zu,\"warnings\":%zu,\"notes\":%zu,\"diagnostics\":[", errors,
           diags.warnings, diags.notes);
  }
  if (earlier) shown += print_duplicate(r, where, name, earlier, 1);
  memset(&types, 0, sizeof types);
  if (o->json && diags.count && stream) cli_type_map_build(&types, psoc_stream_data(stream), bytes);
  for (i = 0; i < diags.count; i++)
    print_diag(r, where, name, &diags.items[i], &types, shown++ == 0);
  cli_type_map_free(&types);
  rc = errors || (o->werror && diags.warnings) ? CLI_EXIT_ERRORS : CLI_EXIT_OK;
  if (o->json) {
    fputs("]}", stdout);
  } else if (rc == CLI_EXIT_OK && !o->quiet && !o->summary) {
    cli_text(stdout, path);
    fputs(": pipeline '", stdout);
    cli_text(stdout, name);
    printf("': ok (%s, %zu subobject%s, %zu byte%s, hash %s)\n", kind, subobjects,
           subobjects == 1 ? "" : "s", bytes, bytes == 1 ? "" : "s", hash);
  }
  if (diags.dropped) {
    fflush(stdout);
    fputs("psoc check: ", stderr);
    cli_text(stderr, path);
    fprintf(stderr, ": %zu diagnostic(s) not shown (out of memory)\n", diags.dropped);
  }
  r->t.errors += errors;
  r->t.warnings += diags.warnings;
  r->t.notes += diags.notes;
  if ((row = add_row(r, path, name, kind)) != NULL) {
    memcpy(row->hash, hash, 12);
    row->hash[12] = '\0';
    row->subobjects = subobjects;
    row->bytes = bytes;
    row->errors = errors;
    row->warnings = diags.warnings;
  }
  psoc_diags_free(&diags);
  return rc;
}

static int check_script(check_run *r, const cli_path *script) {
  const script_options *o = r->o;
  const char *path = script->path;
  char why[512];
  int rc, n, i;
  print_log log;
  lua_State *L;
  summary_row *row;
  r->t.scripts++;
  r->t.shown = r->t.hidden = 0;
  /* each script in a fresh state: no globals or modules from the last */
  if ((L = open_state(o, script->root, &log)) == NULL) {
    snprintf(why, sizeof why, "cannot create a sandboxed state");
    rc = CLI_EXIT_USAGE;
  } else {
    rc = run_script(L, path, why, sizeof why);
  }
  if (o->json) {
    printf("%s{", r->t.json_scripts++ ? "," : "");
    json_key_string("file", path, 0);
  }
  if (rc == CLI_EXIT_USAGE) {
    r->t.failed_scripts++;
    r->t.unreadable++;
    r->t.errors++; /* the summary counts what the exit status says */
    print_io_error(o->command, path, why);
    if (o->json) {
      fputs(",\"error\":{\"line\":null,\"message\":", stdout);
      cli_json_string(stdout, why);
      fputs("},\"pipelines\":[]}", stdout);
    }
    if ((row = add_row(r, path, "-", "-")) != NULL) {
      row->failed = 1;
      row->errors = 1;
    }
    if (L) psol_close(L);
    return rc;
  }
  if (rc != 0) {
    r->t.errors++;
    r->t.failed_scripts++;
    if (o->json) {
      char msg[2048];
      long line;
      const char *text;
      psol_error_message(L, -1, msg, sizeof msg);
      text = split_position(msg, path, &line);
      fputs(",\"error\":{", stdout);
      json_key_int("line", line > 0 ? line : -1, 0);
      json_key_string("message", text, 1);
      fputs("},\"pipelines\":[]}", stdout);
    } else {
      print_script_error(L, path, "error");
    }
    if ((row = add_row(r, path, "-", "-")) != NULL) {
      row->failed = 1;
      row->errors = 1;
    }
    psol_close(L);
    report_dropped_print(o->command, path, &log);
    return CLI_EXIT_ERRORS;
  }
  if (o->json) fputs(",\"error\":null,\"pipelines\":[", stdout);
  n = (int)lua_rawlen(L, -1);
  for (i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    rc = worse(rc, check_pipeline(L, r, path, lua_gettop(L), i == 1));
    lua_pop(L, 1);
  }
  if (n == 0 && !o->json && !o->quiet) {
    cli_text(stdout, path);
    fputs(": ok (no pipelines)\n", stdout);
  }
  if (o->json) fputs("]}", stdout);
  if (r->t.hidden) {
    cli_text(stdout, path);
    printf(": %zu more diagnostic(s) not shown (--max-diagnostics=%zu)\n", r->t.hidden,
           o->max_diags);
  }
  psol_close(L);
  report_dropped_print(o->command, path, &log);
  return rc;
}

/* Pad with spaces to 'width' columns after printing 'len' of them. */
static void pad(size_t len, size_t width) {
  for (; len < width; len++) fputc(' ', stdout);
}

static void print_summary_table(summary_row *rows) {
  size_t wf = 8, wn = 15; /* "(script failed)" */
  summary_row *r;
  for (r = rows; r; r = r->next) {
    if (strlen(r->file) > wf) wf = strlen(r->file);
    if (strlen(r->name) > wn) wn = strlen(r->name);
  }
  printf("\n%-*s  %-*s  %-8s  %10s  %6s  %-12s  %6s  %8s\n", (int)wf, "MATERIAL", (int)wn,
         "PIPELINE", "KIND", "SUBOBJECTS", "BYTES", "HASH", "ERRORS", "WARNINGS");
  for (r = rows; r; r = r->next) {
    cli_text(stdout, r->file);
    pad(strlen(r->file), wf);
    fputs("  ", stdout);
    if (r->failed) {
      printf("%-*s  %-8s  %10s  %6s  %-12s  %6zu  %8s\n", (int)wn, "(script failed)", "-", "-",
             "-", "-", r->errors, "-");
    } else {
      cli_text(stdout, r->name);
      pad(strlen(r->name), wn);
      printf("  %-8s  %10zu  %6zu  %-12s  %6zu  %8zu\n", r->kind, r->subobjects, r->bytes,
             r->hash, r->errors, r->warnings);
    }
  }
}

static void free_rows(summary_row *rows) {
  while (rows) {
    summary_row *next = rows->next;
    free(rows->file);
    free(rows->name);
    free(rows->kind);
    free(rows);
    rows = next;
  }
}

/* --output: refuse anything but a regular file that is not a script. */
static int redirect_output(const script_options *o) {
  char err[512], **inputs;
  size_t i;
  int rc = 0;
  if (!o->output) return 0;
  inputs = malloc((o->scripts.count + 1) * sizeof *inputs);
  if (!inputs) {
    fprintf(stderr, "psoc %s: out of memory\n", o->command);
    return -1;
  }
  for (i = 0; i < o->scripts.count; i++) inputs[i] = o->scripts.items[i].path;
  if (cli_redirect_stdout(o->output, inputs, o->scripts.count, err, sizeof err) != 0) {
    fprintf(stderr, "psoc %s: ", o->command);
    cli_text(stderr, err);
    fputs("\n", stderr);
    rc = -1;
  }
  free(inputs);
  return rc;
}

static int run_check(const script_options *o) {
  check_run r;
  size_t i;
  int rc = CLI_EXIT_OK;
  lua_State *L;
  /* a state per script, each freed before the next is made: keep the
  ** freed memory mapped for the next one (the sandbox's collector lets a
  ** new state grow to about 600 KB before its first cycle, docs/embedding.md) */
  psoc_plat_heap_retain((size_t)32 << 20);
  L = open_state(o, NULL, NULL); /* fails early on a bad --root */
  if (!L) return CLI_EXIT_USAGE;
  psol_close(L);
  if (redirect_output(o) != 0) return CLI_EXIT_USAGE;
  memset(&r, 0, sizeof r);
  r.o = o;
  r.tail = &r.rows;
  if (o->json) {
    fputs("{\"command\":\"check\",\"profile\":", stdout);
    if (o->profile) cli_json_string(stdout, o->profile->name);
    else fputs("null", stdout);
    printf(",\"werror\":%s,\"scripts\":[", o->werror ? "true" : "false");
  }
  for (i = 0; i < o->scripts.count; i++)
    rc = worse(rc, check_script(&r, &o->scripts.items[i]));
  if (o->json) {
    printf("],\"summary\":{\"scripts\":%zu,\"failed_scripts\":%zu,\"unreadable\":%zu,"
           "\"pipelines\":%zu,\"errors\":%zu,\"warnings\":%zu,\"notes\":%zu}}\n",
           r.t.scripts, r.t.failed_scripts, r.t.unreadable, r.t.pipelines, r.t.errors,
           r.t.warnings, r.t.notes);
  } else {
    if (o->summary) print_summary_table(r.rows);
    if (!o->quiet) {
      printf("%s%zu script(s), %zu pipeline(s): %zu error(s), %zu warning(s), %zu note(s)",
             o->summary ? "\n" : "", r.t.scripts, r.t.pipelines, r.t.errors, r.t.warnings,
             r.t.notes);
      if (r.t.unreadable) printf(", %zu unreadable", r.t.unreadable);
      if (o->werror && r.t.warnings) fputs(" (--werror: warnings fail)", stdout);
      fputs("\n", stdout);
    }
  }
  free_rows(r.rows);
  name_table_free(&r.names);
  return rc;
}

/* ---- explain rows (explain, explain --changed, diff) ------------------ */

typedef struct field_row {
  char *path, *value, *origin;
} field_row;

typedef struct field_rows {
  field_row *items;
  size_t count, cap;
} field_rows;

static void rows_free(field_rows *r) {
  size_t i;
  for (i = 0; i < r->count; i++) {
    free(r->items[i].path);
    free(r->items[i].value);
    free(r->items[i].origin);
  }
  free(r->items);
  memset(r, 0, sizeof *r);
}

static int rows_add(field_rows *r, const char *path, const char *value, const char *origin) {
  field_row *row;
  if (r->count == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 128;
    field_row *p = realloc(r->items, cap * sizeof *p);
    if (!p) return -1;
    r->items = p;
    r->cap = cap;
  }
  row = &r->items[r->count];
  row->path = xstrdup(path);
  row->value = xstrdup(value);
  row->origin = xstrdup(origin);
  if (!row->path || !row->value || !row->origin) {
    free(row->path);
    free(row->value);
    free(row->origin);
    return -1;
  }
  r->count++;
  return 0;
}

/* The value of 'path' in 'r', or NULL. */
static const char *rows_find(const field_rows *r, const char *path) {
  size_t i;
  for (i = 0; i < r->count; i++)
    if (strcmp(r->items[i].path, path) == 0) return r->items[i].value;
  return NULL;
}

#define ORIGIN_DEFAULT "runtime default"
#define ORIGIN_UNKNOWN "unknown: the declaration table was modified after the pipeline was declared"

/* The text of label 'id' of 'org' ("script" when it has none). */
static const char *label_text(const pso_origins *org, uint8_t id) {
  const char *t = id < org->text_count ? org->text[id] : NULL;
  return t ? t : "script";
}

/* The origin text of an explain row (what p:explain() prints in
** parentheses): libpsoc's default and hidden-default origins, else the
** declaration that set the byte (pso_pipeline_origins). */
static const char *row_origin(const psoc_explain_row *r, const pso_origins *org) {
  if (r->origin == PSOC_ORIGIN_HIDDEN_DEFAULT && r->note) return r->note;
  if (r->origin != PSOC_ORIGIN_EXPLICIT) return ORIGIN_DEFAULT;
  if (!org->known) return ORIGIN_UNKNOWN;
  if (r->what == PSOC_EXPLAIN_VERSION) { /* the first byte the declaration set */
    const psoc_subobject_info *info = psoc_subobject_info_get(r->type);
    size_t k, size = info ? info->payload->size : 0;
    if (size > PSO_ORIGIN_BYTES) size = PSO_ORIGIN_BYTES;
    for (k = 0; k < size; k++)
      if (org->label[k]) return label_text(org, org->label[k]);
    return "script";
  }
  if (r->offset < 0 || r->offset >= PSO_ORIGIN_BYTES || !org->label[r->offset])
    return ORIGIN_DEFAULT;
  return label_text(org, org->label[r->offset]);
}

/* The explain rows of the pipeline at 'idx': psoc_explain over its stream,
** each row's origin from the module's declaration records. Returns LUA_OK,
** or an error with its message on the stack. */
static int collect_rows(lua_State *L, int idx, field_rows *out) {
  pso_pipeline *p = pso_topipeline(L, idx);
  const psoc_stream *stream = p ? pso_pipeline_stream(p) : NULL;
  psoc_explain_options eo;
  psoc_explanation e;
  pso_origins *org;
  uint32_t cls = PSOC_SO_TYPE_COUNT;
  int anchored = 0, rc = LUA_OK;
  size_t i;
  psoc_status st = PSOC_ERR_NOMEM;
  idx = lua_absindex(L, idx);
  if (!stream) {
    lua_pushliteral(L, "not a pipeline");
    return LUA_ERRRUN;
  }
  memset(&eo, 0, sizeof eo);
  eo.flags = PSOC_FOLLOW_POINTERS;
  eo.root_signature_name = pso_pipeline_root_signature(p);
  if ((org = calloc(1, sizeof *org)) != NULL)
    st = psoc_explain(psoc_stream_data(stream), psoc_stream_size(stream), &eo, NULL, &e);
  if (st != PSOC_OK) {
    free(org);
    if (st == PSOC_ERR_NOMEM) lua_pushliteral(L, "out of memory");
    else lua_pushliteral(L, "the pipeline's stream does not parse");
    return st == PSOC_ERR_NOMEM ? LUA_ERRMEM : LUA_ERRRUN;
  }
  for (i = 0; i < e.count && rc == LUA_OK; i++) {
    const psoc_explain_row *r = &e.rows[i];
    if (r->origin == PSOC_ORIGIN_EXPLICIT && r->dup_class != cls) { /* a present class */
      if (anchored) lua_pop(L, 1);
      anchored = 0;
      cls = r->dup_class;
      if (!pso_pipeline_origins(L, idx, cls, org)) {
        rc = LUA_ERRRUN; /* the message is on the stack */
        break;
      }
      anchored = 1;
    }
    if (rows_add(out, r->path, r->value, row_origin(r, org)) != 0) {
      lua_pushliteral(L, "out of memory");
      rc = LUA_ERRMEM;
    }
  }
  if (rc != LUA_OK && anchored) lua_remove(L, -2); /* keep only the message */
  else if (anchored) lua_pop(L, 1);
  psoc_explain_free(&e);
  free(org);
  return rc;
}

/* The runtime's defaults of a pipeline kind, as explain rows: two
** pipelines of that kind that set nothing but their shader and, for
** graphics, one input element and one stream-output entry each. The two
** differ in the fields that have no default (semantic, format, component
** count, stride), so a field counts as a default only where both
** pipelines agree with it. Built once per kind, in states of
** their own that run no material. */
typedef struct kind_defaults {
  field_rows variant[2];
} kind_defaults;

static const kind_defaults *default_rows(psoc_kind kind) {
  static kind_defaults cache[3];
  static int built[3];
  static const char *const sources[3][2] = {
    { "local pso = require 'pso' return pso.graphics { vs = pso.shader { bytes = 'vs' }, "
      "input_layout = { { 'A', 'r32_float' } }, stream_output = { entries = { { semantic = "
      "'A', component_count = 1 } }, strides = { 4 } } }",
      "local pso = require 'pso' return pso.graphics { vs = pso.shader { bytes = 'vs' }, "
      "input_layout = { { 'B', 'r8_uint' } }, stream_output = { entries = { { semantic = "
      "'B', component_count = 2 } }, strides = { 8 } } }" },
    { "local pso = require 'pso' return pso.mesh { ms = pso.shader { bytes = 'ms' } }",
      "local pso = require 'pso' return pso.mesh { ms = pso.shader { bytes = 'ms' } }" },
    { "local pso = require 'pso' return pso.compute { cs = pso.shader { bytes = 'cs' } }",
      "local pso = require 'pso' return pso.compute { cs = pso.shader { bytes = 'cs' } }" },
  };
  int k = kind == PSOC_KIND_MESH ? 1 : kind == PSOC_KIND_COMPUTE ? 2 : 0, v;
  if (built[k]) return &cache[k];
  built[k] = 1;
  for (v = 0; v < 2; v++) {
    psol_options opts;
    lua_State *L;
    char err[256];
    field_rows *rows = &cache[k].variant[v];
    memset(&opts, 0, sizeof opts);
    if ((L = psol_newstate(&opts, err, sizeof err)) == NULL) continue;
    if (psol_dostring(L, "=defaults", sources[k][v], strlen(sources[k][v]), 1) == LUA_OK &&
        pso_topipeline(L, -1) && collect_rows(L, -1, rows) != LUA_OK)
      rows_free(rows);
    psol_close(L);
  }
  return &cache[k];
}

/* The value of r's path in 'defaults', or NULL. Rows of list entries the
** defaults lack (blend.render_targets[3], input_layout[2]) take those of
** the first entry. */
static const char *default_value(const field_rows *defaults, const char *path) {
  char first[512];
  const char *def = rows_find(defaults, path), *p;
  size_t n = 0;
  if (def) return def;
  for (p = path; *p && n + 4 < sizeof first; p++) { /* "a[3].b" -> "a[1].b" */
    first[n++] = *p;
    if (*p == '[' && p[1] >= '0' && p[1] <= '9') {
      first[n++] = '1';
      while (p[1] >= '0' && p[1] <= '9') p++;
    }
  }
  first[n] = '\0';
  return rows_find(defaults, first);
}

/* --changed: does row r hold the runtime's default? A class given in its
** oldest version ("rasterizer = rasterizer") is the default choice. */
static int is_default(const kind_defaults *defaults, const field_row *r) {
  int v;
  if (strcmp(r->path, r->value) == 0) return 1;
  for (v = 0; v < 2; v++) {
    const char *def = default_value(&defaults->variant[v], r->path);
    if (!def || strcmp(def, r->value) != 0) return 0;
  }
  return 1;
}

/* Print the rows the way p:explain() does: "PATH = VALUE   (ORIGIN)". */
static void print_rows(const field_rows *rows, const kind_defaults *defaults) {
  size_t i, width = 0;
  for (i = 0; i < rows->count; i++) {
    size_t w = strlen(rows->items[i].path) + strlen(rows->items[i].value) + 3;
    if (w > width) width = w;
  }
  if (width > 56) width = 56;
  for (i = 0; i < rows->count; i++) {
    const field_row *r = &rows->items[i];
    if (defaults && is_default(defaults, r)) continue; /* --changed */
    cli_text(stdout, r->path);
    fputs(" = ", stdout);
    cli_text(stdout, r->value);
    pad(strlen(r->path) + strlen(r->value) + 3, width);
    fputs("   (", stdout);
    cli_text(stdout, r->origin);
    fputs(")\n", stdout);
  }
}

/* ---- dump and explain ------------------------------------------------- */

/* A growing text buffer for psoc_dump (psoc_write_fn). */
typedef struct text_buf {
  char *data;
  size_t len, cap;
} text_buf;

static int text_buf_write(void *ud, const char *text, size_t length) {
  text_buf *b = ud;
  if (length > b->cap - b->len) {
    size_t cap = b->cap ? b->cap : 4096;
    char *p;
    while (cap - b->len < length) {
      if (cap > ((size_t)-1) / 2) return 1;
      cap *= 2;
    }
    if ((p = realloc(b->data, cap)) == NULL) return 1;
    b->data = p;
    b->cap = cap;
  }
  memcpy(b->data + b->len, text, length);
  b->len += length;
  return 0;
}

/* The dump of the pipeline at the top of the stack: psoc_dump over its
** stream (what p:dump() returns), through the public headers. Returns
** LUA_OK, or an error with its message on the stack. */
static int print_dump(lua_State *L) {
  pso_pipeline *p = pso_topipeline(L, -1);
  const psoc_stream *stream = p ? pso_pipeline_stream(p) : NULL;
  text_buf b;
  if (!stream) {
    lua_pushliteral(L, "not a pipeline");
    return LUA_ERRRUN;
  }
  memset(&b, 0, sizeof b);
  if (psoc_dump(psoc_stream_data(stream), psoc_stream_size(stream), PSOC_FOLLOW_POINTERS,
                text_buf_write, &b) == PSOC_ERR_IO) {
    free(b.data);
    lua_pushliteral(L, "out of memory");
    return LUA_ERRMEM;
  }
  if (b.len) {
    cli_text_block(stdout, b.data, b.len);
    if (b.data[b.len - 1] != '\n') fputs("\n", stdout);
  }
  free(b.data);
  return LUA_OK;
}

/* The JSON object of the pipeline at the top of the stack: psoc_json over
** its stream (what p:json() returns). Returns LUA_OK, or an error with its
** message on the stack. */
static int print_json(lua_State *L) {
  pso_pipeline *p = pso_topipeline(L, -1);
  const psoc_stream *stream = p ? pso_pipeline_stream(p) : NULL;
  psoc_explain_options eo;
  psoc_status st;
  text_buf b;
  if (!stream) {
    lua_pushliteral(L, "not a pipeline");
    return LUA_ERRRUN;
  }
  memset(&eo, 0, sizeof eo);
  eo.flags = PSOC_FOLLOW_POINTERS;
  eo.root_signature_name = pso_pipeline_root_signature(p);
  memset(&b, 0, sizeof b);
  st = psoc_json(psoc_stream_data(stream), psoc_stream_size(stream), &eo, pso_pipeline_name(p),
                 text_buf_write, &b);
  if (st != PSOC_OK) {
    free(b.data);
    if (st == PSOC_ERR_INVALID) lua_pushliteral(L, "the pipeline's stream does not parse");
    else lua_pushliteral(L, "out of memory"); /* the text buffer could not grow */
    return st == PSOC_ERR_INVALID ? LUA_ERRRUN : LUA_ERRMEM;
  }
  cli_utf8_write(stdout, b.data, b.len);
  free(b.data);
  return LUA_OK;
}

/* Print one pipeline (at the top of the stack) in 'mode' ("dump", "json"
** or "explain"). Returns LUA_OK or an error with its message on the stack. */
static int print_pipeline(lua_State *L, const script_options *o, const char *mode) {
  field_rows rows;
  int rc;
  if (strcmp(mode, "explain") == 0) {
    memset(&rows, 0, sizeof rows);
    rc = collect_rows(L, -1, &rows);
    if (rc == LUA_OK)
      print_rows(&rows, o->changed ? default_rows(pso_pipeline_kind(pso_topipeline(L, -1)))
                                   : NULL);
    rows_free(&rows);
    return rc;
  }
  if (strcmp(mode, "json") == 0) return print_json(L);
  return print_dump(L);
}

/* Print every pipeline of every script (or only those called
** o->pipeline) in 'mode', each script in a fresh state. */
static int run_print(const script_options *o, const char *mode) {
  int j, n, rc = CLI_EXIT_OK, printed = 0, matched = 0;
  size_t i;
  lua_State *L = open_state(o, NULL, NULL); /* fails early on a bad --root */
  if (!L) return CLI_EXIT_USAGE;
  psol_close(L);
  if (o->json) fputs("[", stdout);
  for (i = 0; i < o->scripts.count; i++) {
    const char *path = o->scripts.items[i].path;
    char why[512];
    print_log log;
    int r;
    if ((L = open_state(o, o->scripts.items[i].root, &log)) == NULL) {
      rc = CLI_EXIT_USAGE;
      break;
    }
    r = run_script(L, path, why, sizeof why);
    if (r == CLI_EXIT_USAGE) print_io_error(o->command, path, why);
    else if (r != 0) print_stderr_error(L);
    if (r != 0) {
      rc = worse(rc, r);
      psol_close(L);
      report_dropped_print(o->command, path, &log);
      continue;
    }
    n = (int)lua_rawlen(L, -1);
    for (j = 1; j <= n; j++) {
      pso_pipeline *p;
      lua_rawgeti(L, -1, j);
      p = pso_topipeline(L, -1);
      if (o->pipeline && strcmp(pipeline_name(p), o->pipeline) != 0) {
        lua_pop(L, 1);
        continue;
      }
      matched++;
      if (o->json) {
        if (printed) fputs(",\n", stdout);
      } else {
        fputs(printed ? "\n==> " : "==> ", stdout);
        cli_text(stdout, path);
        fputs(": ", stdout);
        cli_text(stdout, pipeline_name(p));
        printf(" (%s) <==\n", psoc_kind_name(pso_pipeline_kind(p)));
      }
      if (print_pipeline(L, o, mode) != LUA_OK) {
        char msg[2048];
        if (o->json) fputs("null", stdout);
        fflush(stdout);
        fprintf(stderr, "psoc %s: ", o->command);
        cli_text(stderr, path);
        fputs(": pipeline '", stderr);
        cli_text(stderr, pipeline_name(p));
        fputs("': ", stderr);
        cli_text(stderr, psol_error_message(L, -1, msg, sizeof msg));
        fputs("\n", stderr);
        lua_pop(L, 1);
        rc = worse(rc, CLI_EXIT_ERRORS);
      }
      printed++;
      lua_pop(L, 1);
    }
    psol_close(L);
    report_dropped_print(o->command, path, &log);
  }
  if (o->json) fputs("]\n", stdout);
  if (o->pipeline && matched == 0 && rc == CLI_EXIT_OK) {
    fprintf(stderr, "psoc %s: no pipeline called '", o->command);
    cli_text(stderr, o->pipeline);
    fputs("'\n", stderr);
    rc = CLI_EXIT_USAGE;
  }
  return rc;
}

/* ---- diff ------------------------------------------------------------- */

/* One side of a diff: a script evaluated in a state of its own. */
typedef struct diff_side {
  char *path;       /* the script */
  const char *name; /* the pipeline, or NULL for all */
  lua_State *L;     /* its own fresh state */
  int list;         /* stack index (in L) of its pipeline list */
  print_log log;
} diff_side;

/* "script.lua:name": split at the last ':' when the whole argument is not
** a file but the part before the ':' is. */
static int parse_side(const char *arg, diff_side *s) {
  const char *colon = strrchr(arg, ':');
  int kind;
  s->name = NULL;
  s->path = xstrdup(arg);
  if (!s->path) return -1;
  if ((psoc_plat_stat(arg, &kind, NULL) == 0 && kind != PSOC_PLAT_MISSING) || !colon ||
      colon == arg)
    return 0;
  s->path[colon - arg] = '\0';
  if (psoc_plat_stat(s->path, &kind, NULL) != 0 || kind == PSOC_PLAT_MISSING) {
    s->path[colon - arg] = ':';
    return 0;
  }
  s->name = colon + 1;
  return 0;
}

static int load_side(const script_options *o, diff_side *s) {
  char why[512];
  int r;
  if ((s->L = open_state(o, NULL, &s->log)) == NULL) return CLI_EXIT_USAGE;
  r = run_script(s->L, s->path, why, sizeof why);
  if (r == CLI_EXIT_USAGE) {
    print_io_error("diff", s->path, why);
    return r;
  }
  if (r != 0) {
    print_stderr_error(s->L);
    return CLI_EXIT_USAGE;
  }
  if (s->name) { /* keep only the named pipeline */
    lua_State *L = s->L;
    int n = (int)lua_rawlen(L, -1), i, found = 0;
    lua_newtable(L);
    for (i = 1; i <= n; i++) {
      lua_rawgeti(L, -2, i);
      if (strcmp(pipeline_name(pso_topipeline(L, -1)), s->name) == 0) {
        lua_rawseti(L, -2, 1);
        found = 1;
        break;
      }
      lua_pop(L, 1);
    }
    lua_remove(L, -2);
    if (!found) {
      fputs("psoc diff: ", stderr);
      cli_text(stderr, s->path);
      fputs(": no pipeline called '", stderr);
      cli_text(stderr, s->name);
      fputs("'\n", stderr);
      return CLI_EXIT_USAGE;
    }
  }
  s->list = lua_gettop(s->L);
  return 0;
}

static int side_count(const diff_side *s) { return (int)lua_rawlen(s->L, s->list); }

/* Pipeline i of side s (borrowed: valid while s->L lives). */
static pso_pipeline *side_pipeline(const diff_side *s, int i) {
  pso_pipeline *p;
  lua_rawgeti(s->L, s->list, i);
  p = pso_topipeline(s->L, -1);
  lua_pop(s->L, 1); /* still referenced by the list */
  return p;
}

static void print_change(const char *path, const char *a, const char *b) {
  cli_text(stdout, path);
  fputs(": ", stdout);
  cli_text(stdout, a ? a : "(absent)");
  fputs(" -> ", stdout);
  cli_text(stdout, b ? b : "(absent)");
  fputs("\n", stdout);
}

/* Print the differences of pipeline ai of a and bi of b, compared outside
** both states (psoc_diff_streams over their streams); returns 1 when they
** differ, 0 when they are the same, or CLI_EXIT_USAGE. */
static int diff_pair(const diff_side *a, int ai, const diff_side *b, int bi) {
  pso_pipeline *pa = side_pipeline(a, ai), *pb = side_pipeline(b, bi);
  const psoc_stream *sa = pso_pipeline_stream(pa), *sb = pso_pipeline_stream(pb);
  psoc_explain_options oa, ob;
  psoc_diff d;
  psoc_status st;
  size_t i, n;
  memset(&oa, 0, sizeof oa);
  oa.flags = PSOC_FOLLOW_POINTERS;
  ob = oa;
  oa.root_signature_name = pso_pipeline_root_signature(pa);
  ob.root_signature_name = pso_pipeline_root_signature(pb);
  st = psoc_diff_streams(psoc_stream_data(sa), psoc_stream_size(sa), &oa, psoc_stream_data(sb),
                         psoc_stream_size(sb), &ob, NULL, &d);
  if (st != PSOC_OK) {
    fflush(stdout);
    fprintf(stderr, "psoc diff: %s\n",
            st == PSOC_ERR_NOMEM ? "out of memory" : "a pipeline's stream does not parse");
    return CLI_EXIT_USAGE;
  }
  fputs("--- ", stdout);
  cli_text(stdout, a->path);
  fputs(":", stdout);
  cli_text(stdout, pipeline_name(pa));
  fputs("\n+++ ", stdout);
  cli_text(stdout, b->path);
  fputs(":", stdout);
  cli_text(stdout, pipeline_name(pb));
  fputs("\n", stdout);
  for (i = 0; i < d.count; i++) print_change(d.rows[i].path, d.rows[i].a, d.rows[i].b);
  if (d.count == 0) puts("(no differences)");
  n = d.count;
  psoc_diff_free(&d);
  return n ? 1 : 0;
}

/* The index of the pipeline called 'name' in s, or 0. */
static int side_find(const diff_side *s, const char *name) {
  int i, n = side_count(s);
  for (i = 1; i <= n; i++)
    if (strcmp(pipeline_name(side_pipeline(s, i)), name) == 0) return i;
  return 0;
}

static void print_only(const char *path, const char *name) {
  fputs("only in ", stdout);
  cli_text(stdout, path);
  fputs(": ", stdout);
  cli_text(stdout, name);
  fputs("\n", stdout);
}

static int run_diff(const script_options *o) {
  diff_side a, b;
  int rc = 0, differ = 0, na, nb, i, j;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  if (parse_side(o->args[0], &a) != 0 || parse_side(o->args[1], &b) != 0) {
    free(a.path);
    free(b.path);
    fprintf(stderr, "psoc diff: out of memory\n");
    return CLI_EXIT_USAGE;
  }
  /* each side in a fresh state of its own: A cannot reach B */
  rc = load_side(o, &a);
  if (!rc) rc = load_side(o, &b);
  if (!rc) {
    na = side_count(&a);
    nb = side_count(&b);
    if (na == 1 && nb == 1) {
      differ = diff_pair(&a, 1, &b, 1);
    } else {
      for (i = 1; i <= na && differ != CLI_EXIT_USAGE; i++) {
        const char *name = pipeline_name(side_pipeline(&a, i));
        if ((j = side_find(&b, name)) != 0) {
          int d = diff_pair(&a, i, &b, j);
          differ = d == CLI_EXIT_USAGE ? d : worse(differ, d);
        } else {
          print_only(a.path, name);
          differ = worse(differ, 1);
        }
      }
      for (j = 1; j <= nb && differ != CLI_EXIT_USAGE; j++) {
        const char *name = pipeline_name(side_pipeline(&b, j));
        if (!side_find(&a, name)) {
          print_only(b.path, name);
          differ = worse(differ, 1);
        }
      }
    }
    rc = differ;
  }
  if (a.L) psol_close(a.L);
  if (b.L) psol_close(b.L);
  report_dropped_print("diff", a.path, &a.log);
  report_dropped_print("diff", b.path, &b.log);
  free(a.path);
  free(b.path);
  return rc;
}

/* ---- entry ------------------------------------------------------------ */

int cli_script_main(const char *command, int argc, char **argv) {
  script_options o;
  int rc;
  memset(&o, 0, sizeof o);
  o.command = command;
  o.max_diags = CLI_DEFAULT_MAX_DIAGNOSTICS;
  o.args = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *o.args);
  if (!o.args) {
    fprintf(stderr, "psoc %s: out of memory\n", command);
    return CLI_EXIT_USAGE;
  }
  rc = parse_args(&o, argc, argv);
  if (rc < 0) {
    if (strcmp(command, "check") == 0) rc = run_check(&o);
    else if (strcmp(command, "dump") == 0) rc = run_print(&o, o.json ? "json" : "dump");
    else if (strcmp(command, "explain") == 0) rc = run_print(&o, "explain");
    else if (strcmp(command, "diff") == 0) rc = run_diff(&o);
    else rc = cli_usage_error(NULL, "unknown command '%s'", command);
  }
  cli_paths_free(&o.scripts);
  free(o.args);
  return rc;
}
