/*
** cli.h: the psoc command-line tool's internal interface.
**
** Every subcommand is a cli_command_fn. It gets its own argv with argv[0]
** set to the command name ("check") and argv[argc] == NULL, and returns the
** process exit status (CLI_EXIT_*). Commands print to stdout/stderr; the
** library under them never prints.
*/
#ifndef PSOC_CLI_H
#define PSOC_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "psoc.h" /* PSOC_PRINTF_FORMAT */
struct psoc_diag;

/* Exit statuses, shared by every command. */
enum {
  CLI_EXIT_OK = 0,     /* nothing wrong (notes and warnings allowed) */
  CLI_EXIT_ERRORS = 1, /* at least one error diagnostic */
  CLI_EXIT_USAGE = 2   /* usage error or I/O error */
};

typedef int (*cli_command_fn)(int argc, char **argv);

typedef struct cli_command {
  const char *name;    /* "check" */
  const char *summary; /* one line for 'psoc --help' */
  cli_command_fn fn;
} cli_command;

/* ---- report.c: the diagnostics renderer of both check modes --------- */

/* The subobject type at each index of a stream (one walk), so that a
** diagnostic's subobject index can be named. */
typedef struct cli_type_map {
  uint32_t *types;
  size_t count;       /* subobjects walked */
  int stop_readable;  /* the walk stopped at a readable type value */
  uint32_t stop_type; /* ... which is this (unknown or truncated) */
} cli_type_map;

void cli_type_map_build(cli_type_map *m, const void *data, size_t size);
void cli_type_map_free(cli_type_map *m);
/* "DEPTH_STENCIL1", "type 23", or "" when subobject 'index' has no type. */
void cli_type_label(const cli_type_map *m, int32_t index, char *buf, size_t n);

/* One diagnostic as both renderers print it (docs/json.md). */
typedef struct cli_diag_view {
  const char *severity;   /* "error", "warning", "note" */
  const char *code;       /* "PSOC_CULL_MODE_INVALID", "PSOC_DUPLICATE_NAME", ... */
  const char *message_id; /* "D3D12_MESSAGE_ID_...", or NULL */
  long long subobject;    /* index in the stream, or -1 */
  const char *type;       /* that subobject's type ("RASTERIZER"), or NULL */
  long long offset;       /* byte offset in the stream, or -1 */
  const char *field;      /* "RASTERIZER.CullMode", or "" */
  const char *message;
} cli_diag_view;

/* Fill 'v' from 'd'; 'type' may be NULL or ""; the message ID is formatted
** into 'id' (PSOC_DIAG_MESSAGE_MAX bytes is enough). */
void cli_diag_view_of(cli_diag_view *v, const struct psoc_diag *d, const char *type, char *id,
                      size_t id_size);
/* The JSON object: severity, code, message_id, subobject, type, offset,
** field, message (a ',' first unless 'first'). */
void cli_diag_json(FILE *out, const cli_diag_view *v, int first);
/* The text line "WHERE[:@OFFSET]: SEVERITY: CONTEXT...MESSAGE [CODE / MESSAGE_ID]":
** ':@OFFSET' when at_offset >= 0; 'context' is a NULL-terminated list of
** strings printed in order (may be NULL). Everything goes through cli_text. */
void cli_diag_text(FILE *out, const char *where, long long at_offset,
                   const char *const *context, const cli_diag_view *v);

/* ---- raw.c: 'check --raw' and 'dump --raw' -------------------------- */

/* Run 'command' ("check" or "dump") on raw stream files. argv is the
** command's own argv; it must contain "--raw" (checked by the caller). */
int cli_raw_main(const char *command, int argc, char **argv);

/* The help text of the raw form of 'command' ("check" or "dump"). A
** script-mode help may print it too, so that one page covers both forms. */
void cli_raw_help(FILE *out, const char *command);

/* ---- script.c: material-script commands ----------------------------- */

/* Implemented by src/cli/script.c and only called when the tool is built
** with PSOC_CLI_HAVE_SCRIPTS. 'command' is the subcommand ("check",
** "dump", ...), argv its own argv (argv[0] == command), passed unparsed:
** the hook owns every option of the script form, including --help.
** Returns a CLI_EXIT_* status. */
int cli_script_main(const char *command, int argc, char **argv);

/* ---- test.c: 'psoc test' (script builds only) ------------------------ */

/* Run test suites (*_test.lua) over materials; argv[0] == "test". */
int cli_test_main(int argc, char **argv);

/* ---- preview.c: 'psoc preview' (builds with vkd3d and libpng) ------- */

/* Draw a material pipeline's fixed-function state into a PNG; argv[0] ==
** "preview". Only built with PSOC_CLI_HAVE_PREVIEW. */
int cli_preview_main(int argc, char **argv);

/* ---- util.c: files, arguments and output helpers -------------------- */

/* Raw files larger than this are refused. */
#define CLI_MAX_FILE_SIZE ((size_t)64 * 1024 * 1024)

/* A whole file in memory. 'data' is 8-byte aligned (as a stream must be)
** and never NULL after a successful read, even for an empty file. */
typedef struct cli_file {
  unsigned char *data;
  size_t size;
} cli_file;

/* Read 'path' ("-" is standard input) into 'out'. Returns 0, or -1 with a
** one-line reason ("cannot open: No such file or directory") in 'err'.
** A named path must be a regular file: it is opened without blocking (a
** FIFO without a writer, a device) and anything else is refused
** ("not a regular file (a FIFO)", "is a directory"). */
int cli_read_file(const char *path, size_t limit, cli_file *out, char *err, size_t err_size);
void cli_file_free(cli_file *file);
/* The same test without reading: 0 when 'path' opens as a regular file,
** else -1 with the reason in 'err'. */
int cli_check_regular(const char *path, char *err, size_t err_size);
/* A list of script paths, each with the folder it was found in (NULL when
** named on the command line). */
typedef struct cli_path {
  char *path;
  const char *root;
} cli_path;
typedef struct cli_paths {
  cli_path *items;
  size_t count, cap;
} cli_paths;
int cli_paths_add(cli_paths *l, const char *path, const char *root);
void cli_paths_free(cli_paths *l);
/* Append args[0..count) to 'l', each folder replaced by the material
** scripts under it: every '*.lua' except '*_test.lua', recursively, hidden
** entries skipped, symlinked folders not followed, sorted by name at each
** level (the order is deterministic). Returns 0, or -1 with the reason in
** 'err' (an unreadable folder, a folder without scripts, no memory). */
int cli_collect_scripts(cli_paths *l, char **args, int count, char *err, size_t n);

/* The name to show for 'path' ("<stdin>" for "-"). */
const char *cli_display_name(const char *path);

int cli_is_help(const char *arg); /* "-h" or "--help" */
/* Is 'flag' one of argv[1..] before a "--"? */
int cli_has_arg(int argc, char **argv, const char *flag);

/* Option 'name' taking a value, at argv[*i] ('arg'): "NAME VALUE" (*i then
** moves to the value) or "NAME=VALUE". 1 with *out set; 0 when 'arg' is not
** that option; -1 after "psoc COMMAND: NAME needs a value" on stderr (the
** caller returns CLI_EXIT_USAGE). Shared by every command's parser. */
int cli_option_value(const char *command, const char *arg, const char *name, int argc, char **argv,
                     int *i, const char **out);

/* "psoc COMMAND: MESSAGE" plus "try 'psoc COMMAND --help'" on stderr
** (COMMAND NULL: the global form). Returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 2, 3)))
#endif
    ;

/* Send standard output to the file 'path' (an output option such as
** --output). Refuses, with the reason in 'err' and -1, to replace anything
** but a regular file (a symlink, a FIFO, a device, a folder) and a file that
** is one of 'inputs' (the same device and inode, through any name); never
** blocks on opening. Creates or truncates the file only once it is checked. */
int cli_redirect_stdout(const char *path, char *const *inputs, size_t input_count, char *err,
                        size_t n);

/* The capability profile called 'name' in *out (0), or a usage error on
** stderr that suggests the nearest profile name (CLI_EXIT_USAGE). */
struct psoc_profile;
int cli_find_profile(const char *command, const char *name, const struct psoc_profile **out);

/* Diagnostics printed per file by default (--max-diagnostics). */
#define CLI_DEFAULT_MAX_DIAGNOSTICS ((size_t)50)

/* A decimal count ("0", "50"): 0 with *out set, or -1. */
int cli_parse_count(const char *text, size_t *out);

/* psoc_write_fn writing to the FILE * in 'ud'. */
int cli_write_file(void *ud, const char *text, size_t length);

/* Print 's' for a terminal or a log: valid UTF-8 passes through, except
** control characters, which are escaped so that text from a script (a
** pipeline name, an error message, a path) can neither start a new output
** line nor steer the terminal: newline, tab and carriage return as \n, \t,
** \r; other C0 controls and DEL as \xHH (\x1b); C1 controls and the
** bidirectional overrides/isolates (U+202A..U+202E, U+2066..U+2069) as
** \uHHHH; each byte that is not part of well-formed UTF-8 as \xHH (\xff).
** A backslash is printed as it is. NULL prints nothing. */
void cli_text(FILE *out, const char *s);
void cli_text_len(FILE *out, const char *s, size_t len);
/* The same for text of several lines (a dump, a script's print output):
** newlines and tabs pass through, everything else as cli_text. */
void cli_text_block(FILE *out, const char *s, size_t len);
/* Write 's' with each byte that is not part of well-formed UTF-8 replaced
** by U+FFFD (for JSON text made elsewhere, whose strings are escaped). */
void cli_utf8_write(FILE *out, const char *s, size_t len);

/* Print 's' as a JSON string literal (with the quotes). The output is always
** valid UTF-8 JSON: each byte that is not part of well-formed UTF-8
** (including encoded surrogates and overlong forms) becomes U+FFFD, written
** as \ufffd; control characters, DEL, C1 controls and the bidirectional
** overrides are written as \uHHHH escapes (\n, \t, \r, \", \\ as usual).
** NULL prints "". */
void cli_json_string(FILE *out, const char *s);
void cli_json_string_len(FILE *out, const char *s, size_t len);

#endif
