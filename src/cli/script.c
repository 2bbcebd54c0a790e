/*
** script.c: the material-script forms of 'psoc check', 'dump', 'explain'
** and 'diff'. Scripts run in the sandbox of bindings/lua (psol.h); the
** pipelines they return are inspected through the pso module's methods
** (p:dump(), p:json(), p:explain(), p:diff(q)); check runs psoc_check on
** their streams directly (what p:check() does), so that it can take a
** capability profile and follow the stream's pointers.
**
** main.c calls in here when built with PSOC_CLI_HAVE_SCRIPTS (premake5.lua
** sets it for the psoc project).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"
#include "compat.h"
#include "pso_module.h"
#include "psoc.h"
#include "psol.h"

#define MAX_ROOTS 64

typedef struct script_options {
  const char *command;
  const char *roots[MAX_ROOTS];
  size_t root_count;
  int quiet;             /* check: errors only */
  int json;              /* check --format=json, dump --json */
  int summary;           /* check: a table of every pipeline at the end */
  int deep;              /* check: follow the stream's pointers */
  const psoc_profile *profile; /* check: NULL = like p:check() */
  const char *pipeline;  /* explain/dump: only this pipeline */
  char **args;           /* positional arguments */
  int arg_count;
} script_options;

static int worse(int a, int b) { return a > b ? a : b; }

/* Text of a value in a diff row (converts numbers in place). */
static const char *value_text(lua_State *L, int idx) {
  switch (lua_type(L, idx)) {
  case LUA_TSTRING:
  case LUA_TNUMBER: return lua_tostring(L, idx);
  case LUA_TBOOLEAN: return lua_toboolean(L, idx) ? "true" : "false";
  case LUA_TNIL: return "(absent)";
  default: return luaL_typename(L, idx);
  }
}

/* ---- help ------------------------------------------------------------- */

static const char common_options[] =
  "  --root DIR         a material root (repeatable): files and modules the\n"
  "                     script names must resolve inside one; default: the\n"
  "                     script's directory\n"
  "  -h, --help         show this help\n";

static const char check_help[] =
  "usage: psoc check [-q] [--summary] [--format=text|json] [--profile=NAME] [--deep]\n"
  "                  [--root DIR]... SCRIPT...\n"
  "       psoc check --raw [OPTIONS] FILE...     (raw stream bytes; see below)\n"
  "\n"
  "Run material scripts in the sandbox and check every pipeline they return the\n"
  "way ID3D12Device2::CreatePipelineState would.\n"
  "\n"
  "options:\n"
  "  -q, --quiet        print error diagnostics only (no ok lines or summary)\n"
  "  --summary          end with a table of every pipeline: kind, subobjects,\n"
  "                     bytes, hash prefix, errors and warnings\n"
  "  --format=FORMAT    'text' (default) or 'json'\n"
  "  --profile=NAME     check capabilities (mesh shaders, view instancing, depth\n"
  "                     bounds, ...) against device profile NAME (listed below);\n"
  "                     without it, as p:check() does: the default profile, and\n"
  "                     mesh pipelines are not held to a mesh shader tier\n"
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
  "  N script(s), N pipeline(s): N error(s), N warning(s), N note(s)\n"
  "\n"
  "json output: {\"command\":\"check\",\"profile\",\"scripts\":[{\"file\",\"error\":null or\n"
  "  {\"line\",\"message\"},\"pipelines\":[{\"name\",\"kind\",\"subobjects\",\"bytes\",\"hash\",\"line\",\n"
  "  \"errors\",\"warnings\",\"notes\",\"diagnostics\":[{\"severity\",\"code\",\"message_id\",\n"
  "  \"subobject\",\"offset\",\"field\",\"message\"}]}]}],\"summary\":{\"scripts\",\n"
  "  \"failed_scripts\",\"pipelines\",\"errors\",\"warnings\",\"notes\"}}\n"
  "\n"
  "exit status: 0 no errors (notes and warnings allowed), 1 a script or a\n"
  "pipeline has errors, 2 usage or I/O error.\n"
  "\n"
  "---- the raw form ----\n";

static const char dump_help[] =
  "usage: psoc dump [--json] [--pipeline NAME] [--root DIR]... SCRIPT...\n"
  "       psoc dump --raw FILE...                (raw stream bytes; see below)\n"
  "\n"
  "Run material scripts in the sandbox and print every pipeline they return,\n"
  "subobject by subobject, each under a '==> SCRIPT: NAME (KIND) <==' line.\n"
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
  "usage: psoc explain [--pipeline NAME] [--root DIR]... SCRIPT...\n"
  "\n"
  "Run material scripts in the sandbox and explain every pipeline they return:\n"
  "the effective value of every field and where it comes from (the script, a\n"
  "preset, a derive base, a runtime default or a hidden default).\n"
  "\n"
  "options:\n"
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
  "pipelines are paired by name and unpaired ones are reported. A and B run in\n"
  "one sandboxed state (B sees the modules A required).\n"
  "\n"
  "options:\n"
  "%s"
  "\n"
  "output: '--- A' and '+++ B' lines per pair, then one line per difference,\n"
  "  PATH: VALUE_IN_A -> VALUE_IN_B\n"
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
      o->profile = psoc_profile_find(value);
      if (!o->profile)
        return cli_usage_error(cmd, "unknown profile '%s' (the list is in 'psoc check --help')",
                               value);
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
  }
  return -1;
}

/* ---- running scripts -------------------------------------------------- */

typedef struct script_ctx {
  const script_options *o;
  lua_State *L;
} script_ctx;

static void log_print(void *ud, const char *text, size_t len) {
  (void)ud;
  fwrite(text, 1, len, stderr); /* keep stdout for results */
}

static lua_State *open_state(const script_options *o) {
  psol_options opts;
  char err[512];
  lua_State *L;
  memset(&opts, 0, sizeof opts);
  opts.roots = o->roots;
  opts.root_count = o->root_count;
  opts.log = log_print;
  L = psol_newstate(&opts, err, sizeof err);
  if (!L) fprintf(stderr, "psoc %s: %s\n", o->command, err);
  return L;
}

/* Split "FILE:LINE: message" into its line and message. */
static const char *split_position(const char *msg, const char *file, long *line) {
  size_t n = strlen(file);
  const char *p;
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
  p = msg;
  return p;
}

static int is_readable_file(const char *path, char *why, size_t n) {
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(why, n, "cannot open: %s", strerror(errno));
    return 0;
  }
  if (S_ISDIR(st.st_mode)) {
    snprintf(why, n, "is a directory");
    return 0;
  }
  return 1;
}

/* Run 'path' and leave a list of its pipelines on the stack. Returns 0, or
** CLI_EXIT_ERRORS with the error message on the stack (the script failed),
** or CLI_EXIT_USAGE after printing (unreadable file). */
static int run_script(lua_State *L, const char *command, const char *path) {
  char why[256];
  int n, i;
  if (!is_readable_file(path, why, sizeof why)) {
    fprintf(stderr, "psoc %s: %s: %s\n", command, path, why);
    return CLI_EXIT_USAGE;
  }
  if (psol_dofile(L, path, 1) != LUA_OK) return CLI_EXIT_ERRORS;
  if (pso_topipeline(L, -1)) {
    lua_createtable(L, 1, 0);
    lua_insert(L, -2);
    lua_rawseti(L, -2, 1);
    return 0;
  }
  if (!lua_istable(L, -1)) {
    const char *type = luaL_typename(L, -1);
    lua_pop(L, 1);
    lua_pushfstring(L, "%s: a material script must return a pipeline or a list of pipelines "
                       "(it returned %s)", path, type);
    return CLI_EXIT_ERRORS;
  }
  n = (int)lua_rawlen(L, -1);
  for (i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    if (!pso_topipeline(L, -1)) {
      const char *type = luaL_typename(L, -1);
      lua_pop(L, 2);
      lua_pushfstring(L, "%s: result[%d] is a %s, not a pipeline", path, i, type);
      return CLI_EXIT_ERRORS;
    }
    lua_pop(L, 1);
  }
  return 0;
}

static const char *pipeline_name(const pso_pipeline *p) {
  const char *name = pso_pipeline_name(p);
  return name ? name : "";
}

/* Call method 'name' of the pipeline at 'idx' with 'nargs' arguments on
** the top of the stack; one result. Returns LUA_OK or the error. */
static int call_method(lua_State *L, int idx, const char *name, int nargs) {
  idx = lua_absindex(L, idx);
  lua_getfield(L, idx, name);
  lua_insert(L, -1 - nargs);
  lua_pushvalue(L, idx);
  lua_insert(L, -1 - nargs);
  return psol_pcall(L, nargs + 1, 1);
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

/* ---- check ------------------------------------------------------------ */

typedef struct check_totals {
  size_t scripts, pipelines, errors, warnings, notes, failed_scripts;
  int json_scripts;
} check_totals;

typedef struct summary_row {
  char *file, *name, *kind, hash[13];
  size_t subobjects, bytes, errors, warnings;
  int failed; /* the script failed: no pipeline */
  struct summary_row *next;
} summary_row;

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

static summary_row *add_row(summary_row ***tail, const char *file, const char *name,
                            const char *kind) {
  summary_row *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->file = xstrdup(file);
  r->name = xstrdup(name);
  r->kind = xstrdup(kind);
  **tail = r;
  *tail = &r->next;
  return r;
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

/* 'where' is "FILE:LINE" of the pipeline's declaration, or the script. */
static void print_diag(const script_options *o, const char *where, const char *name,
                       const psoc_diag *d, int first) {
  char id[PSOC_DIAG_MESSAGE_MAX];
  if (d->message_id) snprintf(id, sizeof id, "D3D12_MESSAGE_ID_%s", d->message_id);
  if (o->json) {
    printf("%s{", first ? "" : ",");
    json_key_string("severity", psoc_severity_name(d->severity), 0);
    json_key_string("code", psoc_code_name(d->code), 1);
    json_key_string("message_id", d->message_id ? id : NULL, 1);
    json_key_int("subobject", d->subobject, 1);
    json_key_int("offset", d->offset, 1);
    json_key_string("field", d->field, 1);
    json_key_string("message", d->message, 1);
    fputs("}", stdout);
    return;
  }
  if (o->quiet && d->severity != PSOC_SEVERITY_ERROR) return;
  cli_text(stdout, where);
  printf(": %s: pipeline '", psoc_severity_name(d->severity));
  cli_text(stdout, name);
  fputs("': ", stdout);
  cli_text(stdout, d->field);
  fputs(d->field[0] ? ": " : "", stdout);
  cli_text(stdout, d->message);
  printf(" [%s", psoc_code_name(d->code));
  if (d->message_id) printf(" / %s", id);
  fputs("]\n", stdout);
}

static int check_pipeline(lua_State *L, const script_options *o, const char *path, int idx,
                          check_totals *t, summary_row ***tail, int first) {
  pso_pipeline *p = pso_topipeline(L, idx);
  const psoc_stream *stream = pso_pipeline_stream(p);
  const char *name = pipeline_name(p), *kind = psoc_kind_name(pso_pipeline_kind(p));
  size_t bytes = stream ? psoc_stream_size(stream) : 0, subobjects = 0, i;
  char hash[33];
  psoc_parsed parsed;
  psoc_check_options options;
  psoc_diags diags;
  summary_row *row;
  int shown = 0, rc, line;
  char where[1024];
  line = psol_pipeline_where(L, idx, where, sizeof where);
  if (line > 0) snprintf(where + strlen(where), sizeof where - strlen(where), ":%d", line);
  else snprintf(where, sizeof where, "%s", path);
  psoc_hash_hex(pso_pipeline_hash(p), hash);
  memset(&options, 0, sizeof options);
  options.profile = o->profile;
  options.flags = o->deep ? PSOC_CHECK_FOLLOW_POINTERS : 0;
  psoc_diags_init(&diags, NULL);
  if (stream) {
    if (psoc_parse(psoc_stream_data(stream), bytes, &parsed, NULL) != PSOC_ERR_ARG)
      subobjects = parsed.count;
    psoc_check(psoc_stream_data(stream), bytes, &options, &diags);
  }
  t->pipelines++;
  if (o->json) {
    printf("%s{", first ? "" : ",");
    json_key_string("name", name, 0);
    json_key_string("kind", kind, 1);
    printf(",\"subobjects\":%zu,\"bytes\":%zu", subobjects, bytes);
    json_key_string("hash", hash, 1);
    json_key_int("line", line > 0 ? line : -1, 1);
    printf(",\"errors\":%zu,\"warnings\":%zu,\"notes\":%zu,\"diagnostics\":[", diags.errors,
           diags.warnings, diags.notes);
  }
  for (i = 0; i < diags.count; i++) print_diag(o, where, name, &diags.items[i], shown++ == 0);
  if (o->json) fputs("]}", stdout);
  else if (diags.errors == 0 && !o->quiet && !o->summary)
  {
    cli_text(stdout, path);
    fputs(": pipeline '", stdout);
    cli_text(stdout, name);
    printf("': ok (%s, %zu subobject%s, %zu byte%s, hash %s)\n", kind, subobjects,
           subobjects == 1 ? "" : "s", bytes, bytes == 1 ? "" : "s", hash);
  }
  if (diags.dropped)
    fprintf(stderr, "psoc check: %s: %zu diagnostic(s) not shown (out of memory)\n", path,
            diags.dropped);
  t->errors += diags.errors;
  t->warnings += diags.warnings;
  t->notes += diags.notes;
  if (tail && (row = add_row(tail, path, name, kind)) != NULL) {
    memcpy(row->hash, hash, 12);
    row->hash[12] = '\0';
    row->subobjects = subobjects;
    row->bytes = bytes;
    row->errors = diags.errors;
    row->warnings = diags.warnings;
  }
  rc = diags.errors ? CLI_EXIT_ERRORS : CLI_EXIT_OK;
  psoc_diags_free(&diags);
  return rc;
}

static int check_script(lua_State *L, const script_options *o, const char *path,
                        check_totals *t, summary_row ***tail) {
  int rc, top = lua_gettop(L), n, i;
  t->scripts++;
  rc = run_script(L, o->command, path);
  if (o->json) {
    printf("%s{", t->json_scripts++ ? "," : "");
    json_key_string("file", path, 0);
  }
  if (rc == CLI_EXIT_USAGE) {
    t->failed_scripts++;
    if (o->json) fputs(",\"error\":{\"line\":null,\"message\":\"cannot read the script\"},"
                       "\"pipelines\":[]}", stdout);
    lua_settop(L, top);
    return rc;
  }
  if (rc != 0) {
    t->errors++;
    t->failed_scripts++;
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
    if (tail) {
      summary_row *row = add_row(tail, path, "-", "-");
      if (row) {
        row->failed = 1;
        row->errors = 1;
      }
    }
    lua_settop(L, top);
    return CLI_EXIT_ERRORS;
  }
  if (o->json) fputs(",\"error\":null,\"pipelines\":[", stdout);
  n = (int)lua_rawlen(L, -1);
  for (i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    rc = worse(rc, check_pipeline(L, o, path, lua_gettop(L), t, tail, i == 1));
    lua_pop(L, 1);
  }
  if (n == 0 && !o->json && !o->quiet) printf("%s: ok (no pipelines)\n", path);
  if (o->json) fputs("]}", stdout);
  lua_settop(L, top);
  return rc;
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
    if (r->failed)
      printf("%-*s  %-*s  %-8s  %10s  %6s  %-12s  %6zu  %8s\n", (int)wf, r->file, (int)wn,
             "(script failed)", "-", "-", "-", "-", r->errors, "-");
    else
      printf("%-*s  %-*s  %-8s  %10zu  %6zu  %-12s  %6zu  %8zu\n", (int)wf, r->file, (int)wn,
             r->name, r->kind, r->subobjects, r->bytes, r->hash, r->errors, r->warnings);
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

static int run_check(const script_options *o) {
  check_totals t;
  summary_row *rows = NULL, **tail = &rows;
  int i, rc = CLI_EXIT_OK;
  lua_State *L = open_state(o); /* fails early on a bad --root */
  if (!L) return CLI_EXIT_USAGE;
  psol_close(L);
  memset(&t, 0, sizeof t);
  if (o->json) {
    fputs("{\"command\":\"check\",\"profile\":", stdout);
    if (o->profile) cli_json_string(stdout, o->profile->name);
    else fputs("null", stdout);
    fputs(",\"scripts\":[", stdout);
  }
  for (i = 0; i < o->arg_count; i++) {
    /* each script in a fresh state: no globals or modules from the last */
    if ((L = open_state(o)) == NULL) {
      rc = CLI_EXIT_USAGE;
      break;
    }
    rc = worse(rc, check_script(L, o, o->args[i], &t, o->summary ? &tail : NULL));
    psol_close(L);
  }
  if (o->json) {
    printf("],\"summary\":{\"scripts\":%zu,\"failed_scripts\":%zu,\"pipelines\":%zu,"
           "\"errors\":%zu,\"warnings\":%zu,\"notes\":%zu}}\n", t.scripts, t.failed_scripts,
           t.pipelines, t.errors, t.warnings, t.notes);
  } else {
    if (o->summary) print_summary_table(rows);
    if (!o->quiet)
      printf("%s%zu script(s), %zu pipeline(s): %zu error(s), %zu warning(s), %zu note(s)\n",
             o->summary ? "\n" : "", t.scripts, t.pipelines, t.errors, t.warnings, t.notes);
  }
  free_rows(rows);
  return rc;
}

/* ---- dump and explain ------------------------------------------------- */

/* Print the string result of method 'method' of every pipeline of every
** script (or only those called o->pipeline). */
static int run_print(const script_options *o, const char *method) {
  int i, j, n, rc = CLI_EXIT_OK, printed = 0, matched = 0;
  lua_State *L = open_state(o); /* fails early on a bad --root */
  if (!L) return CLI_EXIT_USAGE;
  psol_close(L);
  if (o->json) fputs("[", stdout);
  for (i = 0; i < o->arg_count; i++) {
    const char *path = o->args[i];
    int r;
    if ((L = open_state(o)) == NULL) { /* a fresh state per script */
      rc = CLI_EXIT_USAGE;
      break;
    }
    r = run_script(L, o->command, path);
    if (r == CLI_EXIT_USAGE) {
      rc = worse(rc, r);
      psol_close(L);
      continue;
    }
    if (r != 0) {
      char msg[2048];
      fflush(stdout);
      fprintf(stderr, "%s\n", psol_error_message(L, -1, msg, sizeof msg));
      psol_close(L);
      rc = worse(rc, CLI_EXIT_ERRORS);
      continue;
    }
    n = (int)lua_rawlen(L, -1);
    for (j = 1; j <= n; j++) {
      pso_pipeline *p;
      size_t len;
      const char *text;
      lua_rawgeti(L, -1, j);
      p = pso_topipeline(L, -1);
      if (o->pipeline && strcmp(pipeline_name(p), o->pipeline) != 0) {
        lua_pop(L, 1);
        continue;
      }
      matched++;
      if (call_method(L, -1, method, 0) != LUA_OK) {
        char msg[2048];
        fflush(stdout);
        fprintf(stderr, "psoc %s: %s: pipeline '%s': %s\n", o->command, path, pipeline_name(p),
                psol_error_message(L, -1, msg, sizeof msg));
        lua_pop(L, 2);
        rc = worse(rc, CLI_EXIT_ERRORS);
        continue;
      }
      text = lua_tolstring(L, -1, &len);
      if (o->json) {
        if (printed) fputs(",\n", stdout);
        fwrite(text ? text : "null", 1, text ? len : 4, stdout);
      } else {
        printf("%s==> %s: %s (%s) <==\n", printed ? "\n" : "", path, pipeline_name(p),
               psoc_kind_name(pso_pipeline_kind(p)));
        if (text) {
          fwrite(text, 1, len, stdout);
          if (len && text[len - 1] != '\n') fputs("\n", stdout);
        }
      }
      printed++;
      lua_pop(L, 2);
    }
    psol_close(L);
  }
  if (o->json) fputs("]\n", stdout);
  if (o->pipeline && matched == 0 && rc == CLI_EXIT_OK) {
    fprintf(stderr, "psoc %s: no pipeline called '%s'\n", o->command, o->pipeline);
    rc = CLI_EXIT_USAGE;
  }
  return rc;
}

/* ---- diff ------------------------------------------------------------- */

typedef struct diff_side {
  char *path;         /* the script */
  const char *name;   /* the pipeline, or NULL for all */
  int list;           /* stack index of its pipeline list */
} diff_side;

/* "script.lua:name": split at the last ':' when the whole argument is not
** a file but the part before the ':' is. */
static int parse_side(const char *arg, diff_side *s) {
  struct stat st;
  const char *colon = strrchr(arg, ':');
  s->name = NULL;
  s->path = xstrdup(arg);
  if (!s->path) return -1;
  if (stat(arg, &st) == 0 || !colon || colon == arg) return 0;
  s->path[colon - arg] = '\0';
  if (stat(s->path, &st) != 0) {
    s->path[colon - arg] = ':';
    return 0;
  }
  s->name = colon + 1;
  return 0;
}

static int load_side(lua_State *L, diff_side *s) {
  int r = run_script(L, "diff", s->path);
  if (r == CLI_EXIT_USAGE) return r;
  if (r != 0) {
    char msg[2048];
    fflush(stdout);
    fprintf(stderr, "%s\n", psol_error_message(L, -1, msg, sizeof msg));
    return CLI_EXIT_USAGE;
  }
  if (s->name) { /* keep only the named pipeline */
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
      fprintf(stderr, "psoc diff: %s: no pipeline called '%s'\n", s->path, s->name);
      return CLI_EXIT_USAGE;
    }
  }
  s->list = lua_gettop(L);
  return 0;
}

/* Print the differences of two pipelines; returns 1 when they differ, 0
** when they are the same, or CLI_EXIT_USAGE. */
static int diff_pair(lua_State *L, const diff_side *a, int ai, const diff_side *b, int bi) {
  int n, i;
  const char *an, *bn;
  lua_rawgeti(L, a->list, ai);
  lua_rawgeti(L, b->list, bi);
  an = pipeline_name(pso_topipeline(L, -2));
  bn = pipeline_name(pso_topipeline(L, -1));
  lua_pushvalue(L, -1);
  if (call_method(L, -3, "diff", 1) != LUA_OK) {
    char msg[2048];
    fflush(stdout);
    fprintf(stderr, "psoc diff: %s\n", psol_error_message(L, -1, msg, sizeof msg));
    lua_pop(L, 3);
    return CLI_EXIT_USAGE;
  }
  n = lua_istable(L, -1) ? (int)lua_rawlen(L, -1) : 0;
  printf("--- %s:%s\n+++ %s:%s\n", a->path, an, b->path, bn);
  for (i = 1; i <= n; i++) {
    int row;
    lua_rawgeti(L, -1, i);
    row = lua_gettop(L);
    lua_getfield(L, row, "path");
    lua_getfield(L, row, "a");
    lua_getfield(L, row, "b");
    printf("%s: %s -> %s\n", lua_tostring(L, -3) ? lua_tostring(L, -3) : "?",
           value_text(L, -2), value_text(L, -1));
    lua_settop(L, row - 1);
  }
  if (n == 0) puts("(no differences)");
  lua_pop(L, 3);
  return n ? 1 : 0;
}

static int run_diff(const script_options *o) {
  diff_side a, b;
  int rc = 0, differ = 0, na, nb, i, j;
  lua_State *L;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  if (parse_side(o->args[0], &a) != 0 || parse_side(o->args[1], &b) != 0) {
    free(a.path);
    free(b.path);
    fprintf(stderr, "psoc diff: out of memory\n");
    return CLI_EXIT_USAGE;
  }
  L = open_state(o);
  if (!L) rc = CLI_EXIT_USAGE;
  if (!rc) rc = load_side(L, &a);
  if (!rc) rc = load_side(L, &b);
  if (!rc) {
    na = (int)lua_rawlen(L, a.list);
    nb = (int)lua_rawlen(L, b.list);
    if (na == 1 && nb == 1) {
      differ = diff_pair(L, &a, 1, &b, 1);
    } else {
      for (i = 1; i <= na && differ != CLI_EXIT_USAGE; i++) {
        const char *name;
        lua_rawgeti(L, a.list, i);
        name = pipeline_name(pso_topipeline(L, -1));
        for (j = 1; j <= nb; j++) {
          int same;
          lua_rawgeti(L, b.list, j);
          same = strcmp(pipeline_name(pso_topipeline(L, -1)), name) == 0;
          lua_pop(L, 1);
          if (same) break;
        }
        if (j <= nb) {
          int d = diff_pair(L, &a, i, &b, j);
          differ = d == CLI_EXIT_USAGE ? d : worse(differ, d);
        } else {
          printf("only in %s: %s\n", a.path, name);
          differ = worse(differ, 1);
        }
        lua_pop(L, 1);
      }
      for (j = 1; j <= nb && differ != CLI_EXIT_USAGE; j++) {
        const char *name;
        lua_rawgeti(L, b.list, j);
        name = pipeline_name(pso_topipeline(L, -1));
        for (i = 1; i <= na; i++) {
          int same;
          lua_rawgeti(L, a.list, i);
          same = strcmp(pipeline_name(pso_topipeline(L, -1)), name) == 0;
          lua_pop(L, 1);
          if (same) break;
        }
        if (i > na) {
          printf("only in %s: %s\n", b.path, name);
          differ = worse(differ, 1);
        }
        lua_pop(L, 1);
      }
    }
    rc = differ;
  }
  if (L) psol_close(L);
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
  free(o.args);
  return rc;
}
