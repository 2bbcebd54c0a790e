/*
** main.c: the psoc command-line tool: global options and dispatch of
** subcommands through one table.
**
** To add a command, write a cli_command_fn (see cli.h) and add a row to
** 'commands'. 'check' and 'dump' take raw stream files with --raw and
** material scripts otherwise; the script form lives in script.c behind
** PSOC_CLI_HAVE_SCRIPTS.
*/
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cook.h"
#include "platform.h"
#include "psoc.h"

static int cmd_check(int argc, char **argv);
static int cmd_dump(int argc, char **argv);
static int cmd_help(int argc, char **argv);
#ifdef PSOC_CLI_HAVE_SCRIPTS
static int cmd_explain(int argc, char **argv) { return cli_script_main("explain", argc, argv); }
static int cmd_diff(int argc, char **argv) {
  int rc;
  if (cli_archive_arg(argc, argv)) return cli_archive_diff_main(argc, argv); /* cook.h */
  rc = cli_script_main("diff", argc, argv);
  if (cli_has_arg(argc, argv, "--help") || cli_has_arg(argc, argv, "-h"))
    fputs("\nArchives: 'psoc diff ARCHIVE ARCHIVE|DIR|SCRIPT...' ('psoc diff ARCHIVE --help').\n",
          stdout);
  return rc;
}
static int cmd_test(int argc, char **argv) { return cli_test_main(argc, argv); }
int cli_watch_main(int argc, char **argv); /* watch.c: 'psoc watch' (hot reload) */
#endif
#ifdef PSOC_CLI_HAVE_PREVIEW
static int cmd_preview(int argc, char **argv) { return cli_preview_main(argc, argv); }
#endif

static const cli_command commands[] = {
  { "check", "check pipeline state streams for errors", cmd_check },
  { "dump", "print pipeline state streams subobject by subobject", cmd_dump },
#ifdef PSOC_CLI_HAVE_SCRIPTS
  { "explain", "show every field of a material's pipelines and where it comes from",
    cmd_explain },
  { "diff", "compare two material pipelines field by field", cmd_diff },
  { "test", "run Lua test suites over materials (*_test.lua)", cmd_test },
  { "watch", "evaluate materials again as they or their files change", cli_watch_main },
#endif
#ifdef PSOC_CLI_HAVE_PREVIEW
  { "preview", "draw a material pipeline's fixed-function state into a PNG", cmd_preview },
#endif
  { "cook", "cook material scripts into a pipeline archive", cli_cook_main },
  { "merge", "join cook units into a pipeline archive", cli_merge_main },
  { "ls", "list the pipelines and shared components of an archive", cli_ls_main },
  { "verify", "check every checksum of an archive, naming what is damaged", cli_verify_main },
  { "help", "show the help of psoc or of a command", cmd_help },
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static const cli_command *find_command(const char *name) {
  size_t i;
  for (i = 0; i < COMMAND_COUNT; i++)
    if (strcmp(commands[i].name, name) == 0) return &commands[i];
  return NULL;
}

static void print_usage(FILE *out) {
  size_t i;
  fputs("usage: psoc [-h | --help] [--version] COMMAND [ARGS...]\n"
        "\n"
        "Build, check and inspect Direct3D 12 pipeline state streams\n"
        "(D3D12_PIPELINE_STATE_STREAM_DESC).\n"
        "\n"
        "commands:\n", out);
  for (i = 0; i < COMMAND_COUNT; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fputs("\n"
        "options:\n"
        "  -h, --help  show this help\n"
        "  --version   print psoc's version (also 'psoc COMMAND --version')\n"
        "\n"
        "Run 'psoc COMMAND --help' for a command's options and output format.\n"
        "exit status: 0 ok, 1 errors found, 2 usage or I/O error.\n", out);
#ifndef PSOC_CLI_HAVE_SCRIPTS
  fputs("This psoc is built without material-script support: use --raw.\n", out);
#endif
}

/* check and dump: --raw selects raw stream files, anything else goes to
** the material-script implementation when there is one. */
static int stream_command(const char *name, int argc, char **argv) {
  if (cli_has_arg(argc, argv, "--raw")) return cli_raw_main(name, argc, argv);
  if (strcmp(name, "dump") == 0 && cli_archive_arg(argc, argv)) /* cook.h: dump ARCHIVE */
    return cli_archive_dump_main(argc, argv);
#ifdef PSOC_CLI_HAVE_SCRIPTS
  return cli_script_main(name, argc, argv);
#else
  if (cli_has_arg(argc, argv, "-h") || cli_has_arg(argc, argv, "--help")) {
    cli_raw_help(stdout, name);
    printf("\nThe material-script form ('psoc %s SCRIPT...') is not built into this psoc.\n",
           name);
    return CLI_EXIT_OK;
  }
  fprintf(stderr, "psoc %s: script support not built; use --raw\n", name);
  return CLI_EXIT_USAGE;
#endif
}

static int cmd_check(int argc, char **argv) { return stream_command("check", argc, argv); }
static int cmd_dump(int argc, char **argv) {
  int rc = stream_command("dump", argc, argv);
  if (!cli_archive_arg(argc, argv) &&
      (cli_has_arg(argc, argv, "--help") || cli_has_arg(argc, argv, "-h")))
    fputs("\nArchives: 'psoc dump ARCHIVE [NAME...]' ('psoc dump ARCHIVE --help').\n", stdout);
  return rc;
}

/* 'psoc help [COMMAND]' runs 'psoc COMMAND --help'. */
static int cmd_help(int argc, char **argv) {
  const cli_command *command;
  char *help_argv[3];
  if (argc < 2 || cli_is_help(argv[1])) {
    print_usage(stdout);
    return CLI_EXIT_OK;
  }
  if (argc > 2) return cli_usage_error("help", "expected one COMMAND, got %d", argc - 1);
  command = find_command(argv[1]);
  if (!command) return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
  if (command->fn == cmd_help) return cmd_help(1, argv);
  help_argv[0] = argv[1];
  help_argv[1] = "--help";
  help_argv[2] = NULL;
  return command->fn(2, help_argv);
}

static int finish(int status) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "psoc: cannot write to standard output: %s\n", strerror(errno));
    return CLI_EXIT_USAGE;
  }
  return status;
}

static int print_version(void) {
  printf("psoc %s\n", PSOC_VERSION_STRING);
  return finish(CLI_EXIT_OK);
}

int main(int argc, char **argv) {
  const cli_command *command;
  (void)psoc_plat_main_init(&argc, &argv); /* Windows: UTF-8 argv, binary stdio */
  if (argc < 2) {
    print_usage(stderr);
    return CLI_EXIT_USAGE;
  }
  if (cli_is_help(argv[1])) {
    print_usage(stdout);
    return finish(CLI_EXIT_OK);
  }
  if (strcmp(argv[1], "--version") == 0) return print_version();
  if (argv[1][0] == '-') return cli_usage_error(NULL, "unknown option '%s'", argv[1]);
  command = find_command(argv[1]);
  if (!command) return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
  /* 'psoc COMMAND --version' (before any '--'): the same line for every
  ** command, so a CI log shows which psoc ran whatever it ran. */
  if (cli_has_arg(argc - 1, argv + 1, "--version")) return print_version();
  return finish(command->fn(argc - 1, argv + 1));
}
