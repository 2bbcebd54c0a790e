/*
** cook.c: 'psoc cook' and 'psoc merge'.
**
** cook evaluates every material (cook_eval.c: worker threads, one sandboxed
** state per material, the cache of cook_cache.c), prints every material's
** diagnostics in command-line order, and, only when no material failed,
** merges the materials' cook units into the archive, written atomically by
** psoc_archive_write_file. 'cook --unit' stops after one material's unit
** and writes a depfile; 'merge' does the last step over unit files. All
** three paths add units to the writer the same way, so a build system's
** merge and a one-shot cook give identical bytes.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook.h"
#include "platform.h"
#include "xxh.h"

#define MAX_ROOTS 64

static const char cook_help[] =
    "usage: psoc cook [OPTIONS] DIR|SCRIPT... -o FILE\n"
    "       psoc cook --unit [OPTIONS] SCRIPT -o UNIT [--depfile FILE]\n"
    "\n"
    "Cook material scripts into a pipeline archive (docs/archive.md) that an engine\n"
    "loads with libpsoc alone. Every material is evaluated in a sandboxed state of\n"
    "its own and every pipeline is checked (as 'psoc check' does); a folder stands\n"
    "for the *.lua under it (not *_test.lua), as in 'psoc check'. If any material\n"
    "fails, its diagnostics are printed (file, line, field) and FILE is left as it\n"
    "was; otherwise FILE is replaced atomically (temporary file, fsync, rename).\n"
    "The archive's bytes depend only on the pipelines: not on the order of the\n"
    "inputs, the working directory, the time or --jobs.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  the archive (or, with --unit, the cook unit) to write\n"
    "  -j, --jobs N       evaluate N materials at a time (default: the processors)\n"
    "  --cache DIR        the incremental cache (default: FILE.cache next to FILE)\n"
    "  --no-cache         evaluate every material, read and write no cache\n"
    "  --profile NAME     check against a device capability profile (psoc check)\n"
    "  --root DIR         material root (repeatable; default: each script's folder,\n"
    "                     or the folder named on the command line)\n"
    "  --werror           warnings fail a material too\n"
    "  --unit             build-system mode: cook one SCRIPT into the unit UNIT (an\n"
    "                     archive of its pipelines; 'psoc merge' joins units)\n"
    "  --depfile FILE     with --unit: write a Makefile-syntax depfile naming every\n"
    "                     file the evaluation read (for make, ninja 'deps = gcc')\n"
    "  -v, --verbose      one line per material: evaluated or taken from the cache;\n"
    "                     then what the cache did and where the time went\n"
    "  -q, --quiet        no summary; diagnostics only\n"
    "  --progress         draw the progress bar even when not on a terminal\n"
    "  --no-progress      never draw it (it is drawn on stderr when both stdout and\n"
    "                     stderr are terminals)\n"
    "  -h, --help         show this help\n"
    "\n"
    "The cache keeps each material's unit, keyed by psoc's version, the options\n"
    "above that change results and the content of every file the evaluation read\n"
    "(the script, its modules, shaders and blobs): a material none of whose files\n"
    "changed is not evaluated again. A file whose status (size, times, inode) is\n"
    "the one the cache's index recorded is not read again. Delete the folder to\n"
    "empty it.\n"
    "\n"
    "summary (stdout): pipelines, materials evaluated and cached, unique\n"
    "components, bytes saved by sharing them, archive size and time.\n"
    "exit status: 0 archive written, 1 a material failed (nothing written),\n"
    "2 usage or I/O error.\n";

static const char merge_help[] =
    "usage: psoc merge UNIT... -o FILE\n"
    "\n"
    "Join cook units ('psoc cook --unit') or archives into one archive, written\n"
    "atomically. Each input is verified first; a damaged input or two different\n"
    "pipelines with one name fail the merge and FILE is left as it was. Merging\n"
    "the units of a folder's materials gives the same bytes as 'psoc cook' of the\n"
    "folder.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  the archive to write\n"
    "  -q, --quiet        no summary\n"
    "  -h, --help         show this help\n"
    "\n"
    "exit status: 0 archive written, 1 a damaged input or a name clash,\n"
    "2 usage or I/O error.\n";

typedef struct cook_args {
  cook_options o;
  const char *roots[MAX_ROOTS];
  const char *output, *cache, *depfile;
  int no_cache, unit, quiet, progress; /* progress: -1 auto, 0 off, 1 on */
  const cook_cache_stats *index_stats;  /* what loading the index found */
  char **inputs;
  int input_count;
} cook_args;

/* -1 to go on, else the exit status. */
static int parse_cook(cook_args *a, int argc, char **argv) {
  int i, done = 0, r;
  const char *cmd = "cook", *v;
  size_t jobs;
  for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (cli_is_help(argv[i])) {
      fputs(cook_help, stdout);
      return CLI_EXIT_OK;
    }
  a->progress = -1;
  a->o.command = cmd;
  a->o.jobs = psoc_plat_cpu_count();
  a->o.roots = a->roots;
  for (i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (done || arg[0] != '-' || arg[1] == '\0') {
      a->inputs[a->input_count++] = argv[i];
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      done = 1;
      continue;
    }
    if ((r = cli_option_value(cmd, arg, "-o", argc, argv, &i, &v)) != 0 ||
        (r = cli_option_value(cmd, arg, "--output", argc, argv, &i, &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      a->output = v;
    } else if ((r = cli_option_value(cmd, arg, "-j", argc, argv, &i, &v)) != 0 ||
               (r = cli_option_value(cmd, arg, "--jobs", argc, argv, &i, &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (cli_parse_count(v, &jobs) != 0 || jobs < 1 || jobs > 256)
        return cli_usage_error(cmd, "--jobs needs a count from 1 to 256, got '%s'", v);
      a->o.jobs = (unsigned)jobs;
    } else if ((r = cli_option_value(cmd, arg, "--cache", argc, argv, &i, &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      a->cache = v;
    } else if ((r = cli_option_value(cmd, arg, "--depfile", argc, argv, &i, &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      a->depfile = v;
    } else if ((r = cli_option_value(cmd, arg, "--profile", argc, argv, &i, &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if ((r = cli_find_profile(cmd, v, &a->o.profile)) != 0) return r;
    } else if ((r = cli_option_value(cmd, arg, "--root", argc, argv, &i, &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (a->o.root_count == MAX_ROOTS)
        return cli_usage_error(cmd, "too many --root options (at most %d)", MAX_ROOTS);
      a->roots[a->o.root_count++] = v;
    } else if (strcmp(arg, "--no-cache") == 0) {
      a->no_cache = 1;
    } else if (strcmp(arg, "--werror") == 0) {
      a->o.werror = 1;
    } else if (strcmp(arg, "--unit") == 0) {
      a->unit = 1;
    } else if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0) {
      a->o.verbose = 1;
    } else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
      a->quiet = 1;
    } else if (strcmp(arg, "--progress") == 0) {
      a->progress = 1;
    } else if (strcmp(arg, "--no-progress") == 0) {
      a->progress = 0;
    } else {
      return cli_usage_error(cmd, "unknown option '%s'", arg);
    }
  }
  if (!a->output) return cli_usage_error(cmd, "no output file given (-o FILE)");
  if (a->input_count == 0) return cli_usage_error(cmd, "no DIR or SCRIPT given");
  if (a->depfile && !a->unit) return cli_usage_error(cmd, "--depfile needs --unit");
  if (a->unit && a->input_count != 1)
    return cli_usage_error(cmd, "--unit cooks one SCRIPT, got %d inputs", a->input_count);
  if (a->unit && a->cache) return cli_usage_error(cmd, "--unit keeps no cache (--cache)");
  return -1;
}

/* ---- printing ---------------------------------------------------------- */

/* A material's diagnostics (lines made by cook_eval.c) on stderr. */
static void print_report(const cook_material *m) {
  if (m->report && m->report[0]) cli_text_block(stderr, m->report, strlen(m->report));
}

static void print_bytes(FILE *out, uint64_t n) {
  if (n >= 10u * 1024 * 1024) fprintf(out, "%.1f MiB", (double)n / (1024.0 * 1024.0));
  else if (n >= 10u * 1024) fprintf(out, "%.1f KiB", (double)n / 1024.0);
  else fprintf(out, "%llu bytes", (unsigned long long)n);
}

/* ---- merging units --------------------------------------------------------- */

/* The merge: units are added to one writer one at a time, in input order,
** and may be freed as soon as they are added. For the message of a name
** clash, the merger remembers which input each pipeline came from: the
** XXH3-64 of its name, its canonical hash and the input's label, per
** pipeline (the writer itself keeps the names). */
typedef struct merge_slot {
  uint64_t name_hash;
  psoc_hash128 hash;
  const char *label;           /* NULL: free slot */
} merge_slot;

typedef struct merger {
  const char *cmd;             /* "cook" or "merge" */
  psoc_archive_writer *w;
  merge_slot *slots;
  size_t cap, used;            /* cap: a power of two */
  int rc;                      /* CLI_EXIT_OK until an input fails */
  char message[1024];          /* why it failed, a line to print (when rc != OK) */
} merger;

static int merger_init(merger *mg, const char *cmd) {
  memset(mg, 0, sizeof *mg);
  mg->cmd = cmd;
  mg->rc = CLI_EXIT_OK;
  mg->cap = 1024;
  if ((mg->slots = calloc(mg->cap, sizeof *mg->slots)) == NULL) return -1;
  if (psoc_archive_writer_create(NULL, &mg->w) != PSOC_OK) {
    free(mg->slots);
    mg->slots = NULL;
    return -1;
  }
  return 0;
}

static void merger_free(merger *mg) {
  psoc_archive_writer_free(mg->w);
  free(mg->slots);
  mg->w = NULL;
  mg->slots = NULL;
}

static merge_slot *merger_slot(merge_slot *slots, size_t cap, uint64_t name_hash) {
  size_t i = (size_t)name_hash & (cap - 1);
  while (slots[i].label && slots[i].name_hash != name_hash) i = (i + 1) & (cap - 1);
  return &slots[i];
}

/* Remember where a's pipelines came from (those seen before keep their
** first input). Only costs the clash message its second name when out of
** memory. */
static void merger_remember(merger *mg, psoc_archive *a, const char *label) {
  size_t k, n = psoc_archive_count(a);
  for (k = 0; k < n; k++) {
    psoc_archive_entry e;
    merge_slot *sl;
    uint64_t h;
    if (mg->used * 2 >= mg->cap) {
      size_t cap = mg->cap * 2, i;
      merge_slot *slots = calloc(cap, sizeof *slots);
      if (!slots) return;
      for (i = 0; i < mg->cap; i++)
        if (mg->slots[i].label) *merger_slot(slots, cap, mg->slots[i].name_hash) = mg->slots[i];
      free(mg->slots);
      mg->slots = slots;
      mg->cap = cap;
    }
    if (psoc_archive_entry_get(a, k, &e) != PSOC_OK) continue;
    h = psoc_xxh3(e.name, strlen(e.name));
    sl = merger_slot(mg->slots, mg->cap, h);
    if (sl->label) continue;
    sl->name_hash = h;
    sl->hash = e.hash;
    sl->label = label;
    mg->used++;
  }
}

/* Add archive 'a' (input 'label') to the merge. On a clash or damage,
** mg->rc and mg->message say why (later inputs are then ignored). */
static void merger_add(merger *mg, psoc_archive *a, const char *label) {
  char err[512];
  size_t k;
  int n;
  psoc_status s;
  if (mg->rc != CLI_EXIT_OK) return;
  s = psoc_archive_writer_add_archive(mg->w, a, err, sizeof err);
  if (s == PSOC_OK) {
    merger_remember(mg, a, label);
    return;
  }
  mg->rc = s == PSOC_ERR_NOMEM ? CLI_EXIT_USAGE : CLI_EXIT_ERRORS;
  if (s == PSOC_ERR_DUPLICATE) {
    /* the clashing pipeline: the first of this input's whose name an
    ** earlier input holds with other content */
    for (k = 0; k < psoc_archive_count(a); k++) {
      psoc_archive_entry e;
      const merge_slot *sl;
      if (psoc_archive_entry_get(a, k, &e) != PSOC_OK) continue;
      sl = merger_slot(mg->slots, mg->cap, psoc_xxh3(e.name, strlen(e.name)));
      if (!sl->label || (sl->hash.lo == e.hash.lo && sl->hash.hi == e.hash.hi)) continue;
      n = snprintf(mg->message, sizeof mg->message,
                   "%s: error: pipeline '%s' is also declared, with different content, by %s "
                   "(pipeline names must be unique in an archive)",
                   label, e.name, sl->label);
      if (n >= 0) return;
    }
  }
  snprintf(mg->message, sizeof mg->message, "%s: error: cannot %s: %s", label, mg->cmd, err);
}

/* The failure's line on stderr (control characters escaped). */
static void merger_print(const merger *mg) {
  cli_text(stderr, mg->message);
  fputs("\n", stderr);
}

static int write_archive(const char *cmd, psoc_archive_writer *w, const char *path,
                         psoc_archive_writer_stats *stats, uint64_t *size) {
  char err[512];
  psoc_plat_file f;
  uint64_t n = 0;
  psoc_archive_writer_stats_get(w, stats);
  /* write_file streams the bytes into the file (finish first would hold
  ** them all in memory beside the writer's copy); the summary's size is
  ** the file's */
  if (psoc_archive_write_file(w, path, err, sizeof err) != PSOC_OK) {
    fprintf(stderr, "psoc %s: ", cmd);
    cli_text(stderr, path);
    fputs(": cannot write: ", stderr);
    cli_text(stderr, err);
    fputs("\n", stderr);
    return CLI_EXIT_USAGE;
  }
  if (psoc_plat_open_regular(path, &f) == 0) {
    n = f.size;
    psoc_plat_close(&f);
  }
  *size = n;
  return CLI_EXIT_OK;
}

static void print_summary(const char *path, const psoc_archive_writer_stats *st, uint64_t size,
                          size_t inputs, const char *what, size_t evaluated, size_t cached,
                          uint64_t ns) {
  uint64_t saved = st->referenced_bytes > st->component_bytes
                       ? st->referenced_bytes - st->component_bytes
                       : 0;
  fputs("wrote ", stdout);
  cli_text(stdout, path);
  printf(": %zu pipelines from %zu %s", st->pipelines, inputs, what);
  if (evaluated + cached) printf(" (evaluated %zu, cached %zu)", evaluated, cached);
  printf("\n  %zu unique components (", st->components);
  print_bytes(stdout, st->component_bytes);
  fputs("), ", stdout);
  print_bytes(stdout, saved);
  fputs(" saved by sharing; archive ", stdout);
  print_bytes(stdout, size);
  printf("; %.3f s\n", (double)ns / 1e9);
}

/* ---- cook ------------------------------------------------------------------ */

/* ' ', '#', '\\' and '$' escaped as make (and ninja's depfile reader) read them. */
static void depfile_path(cli_file *buf, size_t *cap, const char *s, int *failed);

static int write_depfile(const cook_args *a, const cook_material *m) {
  cli_file buf = { NULL, 0 };
  size_t cap = 0, i;
  int failed = 0, e;
  char cwd[PSOC_PLAT_PATH_MAX];
  size_t cwd_len = 0;
  if (psoc_plat_realpath(".", cwd) == 0) cwd_len = strlen(cwd);
  depfile_path(&buf, &cap, a->output, &failed);
  depfile_path(&buf, &cap, ":", &failed);
  for (i = 0; i < m->file_count; i++) {
    const char *p = m->files[i].path;
    /* paths under the working directory relative, as the build file names them */
    if (cwd_len && strncmp(p, cwd, cwd_len) == 0 && p[cwd_len] == '/') p += cwd_len + 1;
    depfile_path(&buf, &cap, " ", &failed);
    depfile_path(&buf, &cap, psoc_plat_native_path(p), &failed); /* "C:/x" for ninja, make */
  }
  depfile_path(&buf, &cap, "\n", &failed);
  if (failed) {
    free(buf.data);
    fprintf(stderr, "psoc cook: out of memory\n");
    return CLI_EXIT_USAGE;
  }
  e = psoc_plat_write_atomic(a->depfile, buf.data, buf.size);
  free(buf.data);
  if (e != 0) {
    fputs("psoc cook: ", stderr);
    cli_text(stderr, a->depfile);
    fprintf(stderr, ": cannot write: %s\n", psoc_plat_strerror(e));
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

static void depfile_path(cli_file *buf, size_t *cap, const char *s, int *failed) {
  int raw = strcmp(s, ":") == 0 || strcmp(s, " ") == 0 || strcmp(s, "\n") == 0;
  for (; *s && !*failed; s++) {
    char tmp[2];
    size_t n = 0;
    if (!raw && (*s == ' ' || *s == '#' || *s == '\\')) tmp[n++] = '\\';
    else if (!raw && *s == '$') tmp[n++] = '$';
    tmp[n++] = *s;
    if (buf->size + n > *cap) {
      size_t want = *cap ? *cap * 2 : 1024;
      unsigned char *p = realloc(buf->data, want);
      if (!p) {
        *failed = 1;
        return;
      }
      buf->data = p;
      *cap = want;
    }
    memcpy(buf->data + buf->size, tmp, n);
    buf->size += n;
  }
}

static int cook_unit(const cook_args *a, cook_material *m) {
  char err[512];
  int rc;
  if (m->failed) return CLI_EXIT_ERRORS;
  if (cook_write_atomic(a->output, m->unit, m->unit_size, 1, err, sizeof err) != 0) {
    fputs("psoc cook: ", stderr);
    cli_text(stderr, err);
    fputs("\n", stderr);
    return CLI_EXIT_USAGE;
  }
  if (a->depfile && (rc = write_depfile(a, m)) != CLI_EXIT_OK) return rc;
  if (!a->quiet) {
    fputs("wrote ", stdout);
    cli_text(stdout, a->output);
    printf(": %zu pipelines from ", m->pipelines);
    cli_text(stdout, m->path);
    fputs("\n", stdout);
  }
  return CLI_EXIT_OK;
}

/* cook_options.ready: merge each material as it is done, in input order,
** and free its unit (so that the units of a big library are never all in
** memory at once). Failed materials are left to run_cook to report. */
typedef struct cook_sink {
  merger mg;
  int any_failed;
} cook_sink;

static void sink_ready(void *ud, cook_material *m) {
  cook_sink *k = ud;
  if (m->failed) k->any_failed = 1;
  if (!k->any_failed && m->archive) merger_add(&k->mg, m->archive, m->path);
  cook_material_drop_unit(m);
}

/* The end of a cook that keeps a cache: the index written (whether or not
** the cook succeeds: the entries stored are good either way) and the
** materials freed, on a thread of its own while the main thread writes
** the archive and waits for its fsync (or inline when no thread starts).
** It reads the memo, the old index and the materials, which nothing else
** uses by then. */
typedef struct index_job {
  const cook_args *a;
  cook_material *m;
  size_t count;
  cook_cache_stats cs;
  int failed;                  /* the index was not written: 'err' says why */
  char err[512];
  uint64_t ns;                 /* the time writing the index took */
} index_job;

static void index_job_run(void *ud) {
  index_job *j = ud;
  size_t i;
  uint64_t t0 = psoc_plat_now_ns();
  memset(&j->cs, 0, sizeof j->cs);
  if (j->a->index_stats) j->cs = *j->a->index_stats;
  cook_memo_stats(j->a->o.memo, &j->cs);
  j->failed = cook_index_save(j->a->o.cache_dir, j->a->o.index, j->a->o.memo, j->m, j->count,
                              &j->cs, j->err, sizeof j->err) != 0;
  j->ns = psoc_plat_now_ns() - t0;
  for (i = 0; i < j->count; i++) cook_material_free(&j->m[i]);
}

/* What the cache did, for -v (after the job). */
static void index_job_print(const index_job *j) {
  static const char *const states[] = { "none", "loaded", "damaged: not used",
                                        "of another psoc: not used" };
  if (j->failed) {
    fputs("psoc cook: the cache index was not written: ", stderr);
    cli_text(stderr, j->err);
    fputs("\n", stderr);
  }
  fprintf(stderr,
          "psoc cook: cache index %s (%zu entries); files unchanged by status %zu, read and "
          "hashed %zu; index %s",
          states[j->cs.index_state], j->cs.index_entries, j->cs.by_status, j->cs.hashed,
          j->cs.index_written ? "written" : "not rewritten");
  if (j->cs.index_written) fprintf(stderr, " (%zu entries)", j->cs.index_written);
  fputs("\n", stderr);
}

static int run_cook(cook_args *a, const cli_paths *scripts, uint64_t start, uint64_t listed) {
  cook_material *m = calloc(scripts->count ? scripts->count : 1, sizeof *m);
  cook_sink sink;
  psoc_archive_writer_stats st;
  size_t i, failed = 0, unreadable = 0, evaluated = 0, cached = 0;
  uint64_t size = 0, evaluated_ns = 0, printed_ns = 0, written_ns = 0;
  int rc = CLI_EXIT_OK, have_sink = 0, have_job = 0, job_thread = 0, printed = 0;
  index_job job;
  psoc_plat_thread job_t;
  memset(&sink, 0, sizeof sink);
  memset(&job, 0, sizeof job);
  if (!m) goto nomem;
  for (i = 0; i < scripts->count; i++) {
    m[i].path = scripts->items[i].path;
    m[i].root = scripts->items[i].root;
  }
  if (!a->unit) {
    if (merger_init(&sink.mg, "cook") != 0) goto nomem;
    have_sink = 1;
    sink.any_failed = 0;
    a->o.ready = sink_ready;
    a->o.ready_ud = &sink;
  }
  if (cook_evaluate(&a->o, m, scripts->count) != 0) goto nomem;
  evaluated_ns = psoc_plat_now_ns();
  for (i = 0; i < scripts->count; i++) {
    print_report(&m[i]);
    if (m[i].unreadable) unreadable++;
    if (m[i].failed) failed++;
    else if (m[i].evaluated) evaluated++;
    else cached++;
    if (a->o.verbose) {
      fputs("psoc cook: ", stderr);
      cli_text(stderr, m[i].path);
      fputs(m[i].failed ? ": failed\n"
                        : !m[i].evaluated ? ": cached\n"
                        : m[i].cacheable || !a->o.cache_dir ? ": evaluated\n"
                        : ": evaluated (not cacheable: the evaluation did not say what it read)\n",
            stderr);
    }
  }
  printed_ns = psoc_plat_now_ns();
  if (a->o.cache_dir) {
    job.a = a;
    job.m = m;
    job.count = scripts->count;
    have_job = 1;
    job_thread = psoc_plat_thread_start(&job_t, index_job_run, &job) == 0;
    if (!job_thread) index_job_run(&job);
  }
  if (a->unit) {
    rc = m[0].unreadable ? CLI_EXIT_USAGE : cook_unit(a, &m[0]);
    goto done;
  }
  if (failed || sink.mg.rc != CLI_EXIT_OK) { /* no archive: the index's line first */
    if (job_thread) psoc_plat_thread_join(&job_t);
    job_thread = 0;
    if (have_job && a->o.verbose) index_job_print(&job);
    printed = 1;
  }
  if (failed) {
    fprintf(stderr, "psoc cook: %zu of %zu material(s) failed; ", failed, scripts->count);
    cli_text(stderr, a->output);
    fputs(" was not written\n", stderr);
    rc = unreadable ? CLI_EXIT_USAGE : CLI_EXIT_ERRORS;
    goto done;
  }
  if ((rc = sink.mg.rc) != CLI_EXIT_OK) {
    merger_print(&sink.mg);
    goto done;
  }
  if ((rc = write_archive("cook", sink.mg.w, a->output, &st, &size)) != CLI_EXIT_OK) goto done;
  written_ns = psoc_plat_now_ns();
  merger_free(&sink.mg); /* while the index is written */
  have_sink = 0;
  if (job_thread) psoc_plat_thread_join(&job_t);
  job_thread = 0;
  if (a->o.verbose) { /* what the cache did, where the time went (ms) */
    if (have_job) index_job_print(&job);
    printed = 1;
    fprintf(stderr,
            "psoc cook: time: %.1f ms finding the scripts (and the cache index), %.1f ms "
            "evaluating or taking from the cache and merging, %.1f ms writing the archive; "
            "%.1f ms writing the index (beside it)\n",
            (double)(listed - start) / 1e6, (double)(evaluated_ns - listed) / 1e6,
            (double)(written_ns - printed_ns) / 1e6, (double)job.ns / 1e6);
  }
  if (!a->quiet)
    print_summary(a->output, &st, size, scripts->count, "materials", evaluated, cached,
                  psoc_plat_now_ns() - start);
  goto done;
nomem:
  fprintf(stderr, "psoc cook: out of memory\n");
  rc = CLI_EXIT_USAGE;
done:
  if (have_sink) merger_free(&sink.mg);
  if (job_thread) psoc_plat_thread_join(&job_t);
  if (have_job && a->o.verbose && !printed) index_job_print(&job);
  for (i = 0; m && !have_job && i < scripts->count; i++) cook_material_free(&m[i]);
  free(m);
  return rc;
}

int cli_cook_main(int argc, char **argv) {
  cook_args a;
  cli_paths scripts = { NULL, 0, 0 };
  char err[512], cache[PSOC_PLAT_PATH_MAX];
  uint64_t start = psoc_plat_now_ns();
  cook_index *index = NULL;
  cook_cache_stats index_stats;
  int rc;
  memset(&a, 0, sizeof a);
  if ((a.inputs = calloc((size_t)argc + 1, sizeof *a.inputs)) == NULL) {
    fprintf(stderr, "psoc cook: out of memory\n");
    return CLI_EXIT_USAGE;
  }
  if ((rc = parse_cook(&a, argc, argv)) >= 0) goto done;
  if (cli_collect_scripts(&scripts, a.inputs, a.input_count, err, sizeof err) != 0) {
    fputs("psoc cook: ", stderr);
    cli_text(stderr, err);
    fputs("\n", stderr);
    rc = CLI_EXIT_USAGE;
    goto done;
  }
  if (!a.unit && !a.no_cache) {
    if (!a.cache) {
      if ((size_t)snprintf(cache, sizeof cache, "%s.cache", a.output) >= sizeof cache) {
        rc = cli_usage_error("cook", "the output path is too long");
        goto done;
      }
      a.cache = cache;
    }
    a.o.cache_dir = a.cache;
  }
  a.o.progress = a.progress == 1 || (a.progress == -1 && !a.quiet && psoc_plat_isatty(1) &&
                                     psoc_plat_isatty(2));
  a.o.memo = cook_memo_new(); /* NULL: no memo, only slower */
  if (a.o.cache_dir && a.o.memo) {
    memset(&index_stats, 0, sizeof index_stats);
    index = cook_index_load(a.o.cache_dir, a.o.memo, &index_stats);
    a.o.index = index;
    a.index_stats = &index_stats;
  }
  rc = run_cook(&a, &scripts, start, psoc_plat_now_ns());
  cook_index_free(index);
  cook_memo_free(a.o.memo);
done:
  cli_paths_free(&scripts);
  free(a.inputs);
  return rc;
}

int cook_write_atomic(const char *path, const void *data, size_t size, int durable, char *err,
                      size_t n) {
  int e = durable ? psoc_plat_write_atomic(path, data, size)
                  : psoc_plat_replace_file(path, data, size);
  if (e == 0) return 0;
  snprintf(err, n, "%s: cannot write: %s", path, psoc_plat_strerror(e));
  return -1;
}

/* ---- merge ------------------------------------------------------------------ */

int cli_merge_main(int argc, char **argv) {
  const char *output = NULL, *v;
  const char **in = calloc((size_t)argc + 1, sizeof *in);
  merger mg;
  int have_mg = 0;
  psoc_archive_writer_stats st;
  size_t count = 0, i;
  uint64_t size = 0, start = psoc_plat_now_ns();
  int k, r, quiet = 0, done = 0, rc = CLI_EXIT_OK;
  char err[512];
  if (!in) {
    fprintf(stderr, "psoc merge: out of memory\n");
    return CLI_EXIT_USAGE;
  }
  for (k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
    if (cli_is_help(argv[k])) {
      fputs(merge_help, stdout);
      free(in);
      return CLI_EXIT_OK;
    }
  for (k = 1; k < argc; k++) {
    const char *arg = argv[k];
    if (done || arg[0] != '-' || arg[1] == '\0') {
      in[count++] = arg;
    } else if (strcmp(arg, "--") == 0) {
      done = 1;
    } else if ((r = cli_option_value("merge", arg, "-o", argc, argv, &k, &v)) != 0 ||
               (r = cli_option_value("merge", arg, "--output", argc, argv, &k, &v)) != 0) {
      if (r < 0) {
        rc = CLI_EXIT_USAGE;
        goto out;
      }
      output = v;
    } else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
      quiet = 1;
    } else {
      rc = cli_usage_error("merge", "unknown option '%s'", arg);
      goto out;
    }
  }
  if (!output) {
    rc = cli_usage_error("merge", "no output file given (-o FILE)");
    goto out;
  }
  if (count == 0) {
    rc = cli_usage_error("merge", "no UNIT given");
    goto out;
  }
  if (merger_init(&mg, "merge") != 0) {
    fprintf(stderr, "psoc merge: out of memory\n");
    rc = CLI_EXIT_USAGE;
    goto out;
  }
  have_mg = 1;
  /* one input open at a time: each is verified, merged and closed */
  for (i = 0; i < count; i++) {
    psoc_archive *a = NULL;
    psoc_status s = psoc_archive_open_file(in[i],
                                           PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED,
                                           NULL, &a, err, sizeof err);
    if (s != PSOC_OK) {
      cli_text(stderr, in[i]);
      fputs(s == PSOC_ERR_INVALID ? ": error: " : ": cannot open: ", stderr);
      cli_text(stderr, err);
      fputs("\n", stderr);
      rc = s == PSOC_ERR_INVALID ? CLI_EXIT_ERRORS : CLI_EXIT_USAGE;
      goto out;
    }
    merger_add(&mg, a, in[i]);
    psoc_archive_close(a);
    if ((rc = mg.rc) != CLI_EXIT_OK) {
      merger_print(&mg);
      goto out;
    }
  }
  if ((rc = write_archive("merge", mg.w, output, &st, &size)) != CLI_EXIT_OK) goto out;
  if (!quiet)
    print_summary(output, &st, size, count, "units", 0, 0, psoc_plat_now_ns() - start);
out:
  if (have_mg) merger_free(&mg);
  free(in);
  return rc;
}
