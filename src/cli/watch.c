/*
** watch.c: 'psoc watch DIR|SCRIPT...': hot reload from the command line.
** Runs the reload library (bindings/lua/psol_reload.h) and prints one line
** per event until Ctrl-C (SIGINT) or SIGTERM.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "platform.h"
#include "psoc.h"
#include "psoc_archive.h"
#include "psol_reload.h"

static const char watch_help[] =
  "usage: psoc watch [--poll] [--coalesce-ms=N] [--poll-ms=N] [--once]\n"
  "                  [--cook FILE] [--root DIR]... SCRIPT|DIR...\n"
  "\n"
  "Evaluate material scripts, then watch them and every file they read\n"
  "(modules, pso.shader and pso.blob files) and evaluate a script again when\n"
  "one of its inputs changes (by content: a touch without change does\n"
  "nothing). A DIR stands for every *.lua under it, as in 'psoc check', also\n"
  "those created later. Prints one line per event, until Ctrl-C or SIGTERM:\n"
  "\n"
  "  TIME changed SCRIPT:PIPELINE vVERSION HASH   new or changed pipeline\n"
  "  TIME removed SCRIPT:PIPELINE vVERSION        no longer returned\n"
  "  TIME failed SCRIPT: ERROR                    the last good pipelines stay\n"
  "  TIME recovered SCRIPT                        good again after a failure\n"
  "  TIME cooked FILE: N pipelines                 (--cook) the archive was written\n"
  "  TIME cook-failed FILE: ERROR                  (--cook) the old archive stays\n"
  "\n"
  "TIME is the local time (HH:MM:SS.mmm), VERSION counts the changes of each\n"
  "pipeline from 1, HASH is its psoc hash (as 'psoc check' prints it).\n"
  "\n"
  "options:\n"
  "  --poll             poll the folders instead of the OS's notifications\n"
  "  --poll-ms=N        polling interval (default 50)\n"
  "  --coalesce-ms=N    quiet time that ends a burst of saves (default 3)\n"
  "  --once             print the first evaluation's events and exit\n"
  "  --cook FILE        keep the archive FILE (docs/archive.md) up to date: after\n"
  "                     every change it holds the last good version of every\n"
  "                     pipeline, by name (names must be unique across the\n"
  "                     scripts), written atomically (temporary file + rename)\n"
  "  --root DIR         a material root (repeatable); default: a DIR argument\n"
  "                     for its scripts, a SCRIPT's own directory\n"
  "  -h, --help         show this help\n"
  "\n"
  "exit status: 0 ok (after Ctrl-C or SIGTERM; with --once: every script\n"
  "evaluated), 1 a script or the cook failed (--once only), 2 usage or I/O\n"
  "error.\n";

static void print_time(void);

/* --cook: the last good stream of every pipeline (the events' streams, taken). */
typedef struct cooked {
  char *script, *name, *root_signature;
  psoc_stream *stream;
} cooked;

typedef struct cook_table {
  cooked *v;
  size_t n, cap;
  int dirty;
} cook_table;

static char *dup_text(const char *s) {
  size_t n;
  char *d;
  if (!s) return NULL;
  n = strlen(s) + 1;
  if ((d = (char *)malloc(n)) != NULL) memcpy(d, s, n);
  return d;
}

static void cooked_free(cooked *c) {
  free(c->script);
  free(c->name);
  free(c->root_signature);
  psoc_stream_free(c->stream);
}

static cooked *cook_find(cook_table *t, const char *script, const char *name) {
  size_t i;
  for (i = 0; i < t->n; i++)
    if (strcmp(t->v[i].script, script) == 0 && strcmp(t->v[i].name, name) == 0) return &t->v[i];
  return NULL;
}

/* Take what a CHANGED or REMOVED event says. -1 when out of memory. */
static int cook_apply(cook_table *t, psol_reload_event *e) {
  cooked *c;
  if (e->kind != PSOL_RELOAD_CHANGED && e->kind != PSOL_RELOAD_REMOVED) return 0;
  c = cook_find(t, e->script, e->pipeline);
  if (e->kind == PSOL_RELOAD_REMOVED) {
    if (c) {
      cooked_free(c);
      *c = t->v[--t->n];
      t->dirty = 1;
    }
    return 0;
  }
  if (!c) {
    if (t->n == t->cap) {
      size_t cap = t->cap ? t->cap * 2 : 64;
      cooked *v = (cooked *)realloc(t->v, cap * sizeof *v);
      if (!v) return -1;
      t->v = v;
      t->cap = cap;
    }
    c = &t->v[t->n];
    memset(c, 0, sizeof *c);
    if (!(c->script = dup_text(e->script)) || !(c->name = dup_text(e->pipeline))) {
      free(c->script);
      return -1;
    }
    t->n++;
  }
  free(c->root_signature);
  c->root_signature = e->root_signature; /* taken from the event */
  e->root_signature = NULL;
  psoc_stream_free(c->stream);
  c->stream = e->stream;
  e->stream = NULL;
  t->dirty = 1;
  return 0;
}

/* Write the archive; prints "cooked" or "cook-failed". 0 or -1. */
static int cook_write(cook_table *t, const char *path) {
  psoc_archive_writer *w = NULL;
  char err[1024] = "";
  size_t i;
  psoc_status st = psoc_archive_writer_create(NULL, &w);
  for (i = 0; st == PSOC_OK && i < t->n; i++) {
    const cooked *c = &t->v[i];
    st = psoc_archive_writer_add(w, c->name, c->root_signature, psoc_stream_data(c->stream),
                                 psoc_stream_size(c->stream), err, sizeof err);
    if (st == PSOC_ERR_DUPLICATE)
      snprintf(err, sizeof err, "pipeline '%s' of %s: another script has a pipeline of that name",
               c->name, c->script);
  }
  if (st == PSOC_OK) st = psoc_archive_write_file(w, path, err, sizeof err);
  psoc_archive_writer_free(w);
  t->dirty = 0;
  print_time();
  if (st != PSOC_OK) {
    fputs("cook-failed ", stdout);
    cli_text(stdout, path);
    fputs(": ", stdout);
    cli_text(stdout, err[0] ? err : psoc_status_name(st));
    putchar('\n');
    return -1;
  }
  fputs("cooked ", stdout);
  cli_text(stdout, path);
  printf(": %zu pipeline%s\n", t->n, t->n == 1 ? "" : "s");
  return 0;
}

static void cook_free(cook_table *t) {
  size_t i;
  for (i = 0; i < t->n; i++) cooked_free(&t->v[i]);
  free(t->v);
}

static void print_time(void) {
  int h, m, sec, ms;
  if (psoc_plat_local_time(&h, &m, &sec, &ms) != 0) {
    fputs("--:--:--.--- ", stdout);
    return;
  }
  printf("%02d:%02d:%02d.%03d ", h, m, sec, ms);
}

static int print_event(const psol_reload_event *e) {
  char hash[33];
  print_time();
  switch (e->kind) {
  case PSOL_RELOAD_CHANGED:
    psoc_hash_hex(e->hash, hash);
    fputs("changed ", stdout);
    cli_text(stdout, e->script);
    putchar(':');
    cli_text(stdout, e->pipeline);
    printf(" v%llu %s\n", (unsigned long long)e->version, hash);
    return 0;
  case PSOL_RELOAD_REMOVED:
    fputs("removed ", stdout);
    cli_text(stdout, e->script);
    putchar(':');
    cli_text(stdout, e->pipeline);
    printf(" v%llu\n", (unsigned long long)e->version);
    return 0;
  case PSOL_RELOAD_FAILED:
    fputs("failed ", stdout);
    cli_text(stdout, e->script);
    fputs(": ", stdout);
    cli_text(stdout, e->error ? e->error : "evaluation failed");
    putchar('\n');
    return 1;
  case PSOL_RELOAD_RECOVERED:
    fputs("recovered ", stdout);
    cli_text(stdout, e->script);
    putchar('\n');
    return 0;
  }
  return 0;
}

/* A decimal in [1, 60000] after "--name=". */
static int parse_ms(const char *arg, const char *name, uint32_t *out) {
  size_t n;
  if (cli_parse_count(arg, &n) != 0 || n < 1 || n > 60000)
    return cli_usage_error("watch", "%s wants milliseconds from 1 to 60000, got '%s'", name, arg);
  *out = (uint32_t)n;
  return 0;
}

int cli_watch_main(int argc, char **argv) {
  psol_reload_options o;
  const char **roots = NULL, **paths = NULL;
  size_t nroots = 0, npaths = 0;
  int i, once = 0, status = CLI_EXIT_OK, failed = 0;
  psoc_plat_flag stop;
  psol_reload *r;
  char err[1024];
  const char *cook = NULL;
  cook_table table;

  memset(&table, 0, sizeof table);
  memset(&o, 0, sizeof o);
  o.watch = PSOL_RELOAD_WATCH_AUTO;
  roots = (const char **)calloc((size_t)argc + 1, sizeof *roots);
  paths = (const char **)calloc((size_t)argc + 1, sizeof *paths);
  if (!roots || !paths) {
    free(roots);
    free(paths);
    fprintf(stderr, "psoc watch: out of memory\n");
    return CLI_EXIT_USAGE;
  }
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (cli_is_help(a)) {
      fputs(watch_help, stdout);
      goto done;
    } else if (strcmp(a, "--poll") == 0) {
      o.watch = PSOL_RELOAD_WATCH_POLL;
    } else if (strcmp(a, "--once") == 0) {
      once = 1;
    } else if (strncmp(a, "--coalesce-ms=", 14) == 0) {
      if ((status = parse_ms(a + 14, "--coalesce-ms", &o.coalesce_ms)) != 0) goto done;
    } else if (strncmp(a, "--poll-ms=", 10) == 0) {
      if ((status = parse_ms(a + 10, "--poll-ms", &o.poll_ms)) != 0) goto done;
    } else if (strcmp(a, "--root") == 0) {
      if (i + 1 >= argc) {
        status = cli_usage_error("watch", "--root needs a folder");
        goto done;
      }
      roots[nroots++] = argv[++i];
    } else if (strncmp(a, "--root=", 7) == 0) {
      roots[nroots++] = a + 7;
    } else if (strcmp(a, "--cook") == 0) {
      if (i + 1 >= argc) {
        status = cli_usage_error("watch", "--cook needs a FILE");
        goto done;
      }
      cook = argv[++i];
    } else if (strncmp(a, "--cook=", 7) == 0 && a[7]) {
      cook = a + 7;
    } else if (strcmp(a, "--") == 0) {
      for (i++; i < argc; i++) paths[npaths++] = argv[i];
    } else if (a[0] == '-' && a[1] != '\0') {
      status = cli_usage_error("watch", "unknown option '%s'", a);
      goto done;
    } else {
      paths[npaths++] = a;
    }
  }
  if (npaths == 0) {
    status = cli_usage_error("watch", "expected SCRIPT or DIR arguments");
    goto done;
  }
  o.paths = paths;
  o.path_count = npaths;
  o.eval.roots = roots;
  o.eval.root_count = nroots;
  if (once) o.watch = PSOL_RELOAD_WATCH_NONE;

  psoc_plat_flag_set(&stop, 0);
  if (!once && psoc_plat_on_interrupt(&stop) != 0) {
    fprintf(stderr, "psoc watch: cannot handle SIGINT/SIGTERM\n");
    status = CLI_EXIT_USAGE;
    goto done;
  }
  r = psol_reload_create(&o, err, sizeof err);
  if (!r) {
    fputs("psoc watch: ", stderr);
    cli_text(stderr, err);
    fputc('\n', stderr);
    status = CLI_EXIT_USAGE;
    goto done;
  }
  /* the whole first load before the first line (and the first archive) */
  if (!once) psol_reload_wait_batches(r, 1, 0xffffffffu);
  for (;;) {
    psol_reload_events ev;
    size_t k;
    if (!once) psol_reload_wait(r, 100);
    if (psol_reload_poll(r, &ev) != PSOC_OK) {
      fprintf(stderr, "psoc watch: out of memory\n");
      status = CLI_EXIT_USAGE;
      break;
    }
    for (k = 0; k < ev.count; k++) {
      failed |= print_event(&ev.events[k]);
      if (cook && cook_apply(&table, &ev.events[k]) != 0) {
        fprintf(stderr, "psoc watch: out of memory\n");
        status = CLI_EXIT_USAGE;
      }
    }
    psol_reload_events_free(&ev);
    if (cook && (table.dirty || (once && !table.n)) && cook_write(&table, cook) != 0) failed = 1;
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, "psoc watch: cannot write to standard output\n");
      status = CLI_EXIT_USAGE;
      break;
    }
    if (once) {
      status = failed ? CLI_EXIT_ERRORS : CLI_EXIT_OK;
      break;
    }
    if (psoc_plat_flag_get(&stop)) break;
  }
  psol_reload_destroy(r);
done:
  cook_free(&table);
  free(roots);
  free(paths);
  return status;
}
