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
#include <errno.h>
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
  uint64_t retire;                      /* the old pack, to retire (cook_pack_retire) */
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

/* The merge writer's large blocks (the arena chunks that hold the records
** and names, 256 KiB each: the archive's size in all when the records are
** copied, as a full cook's are; a re-cook borrows the pack's) come from
** slabs of huge pages (psoc_plat_huge_window). 6 MB of records copied into
** fresh memory at 4 KiB a page were about 1,500 page faults, on the 2-core
** virtual machine (whose host maps each freed guest page anew) most of a
** merge's time, when stop 24 measured a re-cook that still copied them. A block is
** cut from the newest slab (a new slab when it does not fit), never given
** back alone (the slabs go with the allocator, after the writer): only
** fresh requests of SLAB_MIN bytes or more come here. A block that grows
** (the writer's tables and arrays) leaves for malloc at its first growth
** and grows by realloc from then on: were each growth cut from a slab,
** every smaller generation would stay behind in it (22 MB more peak
** memory cooking 100,000 pipelines). Everything else is realloc's. */
#define SLAB_SIZE ((size_t)8 << 20)
#define SLAB_MIN ((size_t)2 << 10)

typedef struct slab {
  struct slab *next;
  unsigned char *base;         /* the window: huge-page aligned where possible */
  size_t used, size;
} slab;

typedef struct slab_alloc {
  slab *slabs;                 /* the newest first */
} slab_alloc;

static int slab_owns(const slab_alloc *sa, const void *p) {
  const slab *s;
  for (s = sa->slabs; s; s = s->next)
    if ((const unsigned char *)p >= s->base && (const unsigned char *)p < s->base + s->size)
      return 1;
  return 0;
}

static void *slab_take(slab_alloc *sa, size_t n) {
  slab *s = sa->slabs;
  unsigned char *p;
  n = (n + 63) & ~(size_t)63;
  if (!s || s->size - s->used < n) {
    size_t want = n > SLAB_SIZE ? (n + PSOC_PLAT_HUGE_PAGE - 1) & ~(PSOC_PLAT_HUGE_PAGE - 1)
                                : SLAB_SIZE;
    size_t total = sizeof *s + 64 + want + PSOC_PLAT_HUGE_PAGE;
    unsigned char *mem;
    if (n > SIZE_MAX / 4 || (mem = malloc(total)) == NULL) return NULL;
    s = (slab *)(void *)mem;
    mem += sizeof *s;
    s->base = psoc_plat_huge_window(mem, total - sizeof *s, want);
    if (s->base == mem) s->base = mem + ((64 - ((uintptr_t)mem & 63)) & 63);
    s->size = want;
    s->used = 0;
    s->next = sa->slabs;
    sa->slabs = s;
  }
  p = s->base + s->used;
  s->used += n;
  return p;
}

static void *slab_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
  slab_alloc *sa = ud;
  void *q;
  if (ptr && slab_owns(sa, ptr)) {
    if (nsize == 0) return NULL; /* freed with its slab */
    if (nsize <= osize) return ptr;
    if ((q = malloc(nsize)) != NULL) memcpy(q, ptr, osize); /* a growing block: to malloc */
    return q;
  }
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (!ptr && nsize >= SLAB_MIN && (q = slab_take(sa, nsize)) != NULL) return q;
  return realloc(ptr, nsize);
}

static void slab_free_all(slab_alloc *sa) {
  while (sa->slabs) {
    slab *s = sa->slabs;
    sa->slabs = s->next;
    free(s);
  }
}

typedef struct merger {
  const char *cmd;             /* "cook" or "merge" */
  slab_alloc slabs;            /* the writer's large blocks */
  psoc_archive_writer *w;
  merge_slot *slots;
  size_t cap, used;            /* cap: a power of two */
  int rc;                      /* CLI_EXIT_OK until an input fails */
  char message[1024];          /* why it failed, a line to print (when rc != OK) */
} merger;

static int merger_init(merger *mg, const char *cmd) {
  psoc_allocator alloc;
  memset(mg, 0, sizeof *mg);
  mg->cmd = cmd;
  mg->rc = CLI_EXIT_OK;
  mg->cap = 1024;
  if ((mg->slots = calloc(mg->cap, sizeof *mg->slots)) == NULL) return -1;
  alloc.fn = slab_fn;
  alloc.ud = &mg->slabs;
  if (psoc_archive_writer_create(&alloc, &mg->w) != PSOC_OK) {
    free(mg->slots);
    mg->slots = NULL;
    return -1;
  }
  return 0;
}

static void merger_free(merger *mg) {
  psoc_archive_writer_free(mg->w);
  slab_free_all(&mg->slabs);
  free(mg->slots);
  mg->w = NULL;
  mg->slots = NULL;
}

static merge_slot *merger_slot(merge_slot *slots, size_t cap, uint64_t name_hash) {
  size_t i = (size_t)name_hash & (cap - 1);
  while (slots[i].label && slots[i].name_hash != name_hash) i = (i + 1) & (cap - 1);
  return &slots[i];
}

/* Room in the name table for 'more' names beyond those it holds, at most
** three quarters full. 1, or 0 when out of memory (the table unchanged). */
static int merger_grow(merger *mg, size_t more) {
  size_t cap = mg->cap, i;
  merge_slot *slots;
  if (more > SIZE_MAX / 4 / sizeof *slots - mg->used) return 0;
  while (cap < (mg->used + more) * 4 / 3 + 2) cap *= 2;
  if (cap == mg->cap) return 1;
  if ((slots = calloc(cap, sizeof *slots)) == NULL) return 0;
  for (i = 0; i < mg->cap; i++)
    if (mg->slots[i].label) *merger_slot(slots, cap, mg->slots[i].name_hash) = mg->slots[i];
  free(mg->slots);
  mg->slots = slots;
  mg->cap = cap;
  return 1;
}

/* Room for 'pipelines' more (a hint: the name table and the writer sized
** once instead of doubling; nothing when out of memory, only slower). */
static void merger_reserve(merger *mg, size_t pipelines) {
  if (!pipelines) return;
  (void)psoc_archive_writer_reserve(mg->w, pipelines);
  (void)merger_grow(mg, pipelines);
}

/* Remember where a's pipelines came from (those seen before keep their
** first input). Only costs the clash message its second name when out of
** memory. 1 when every one of them was new to the merge (none seen before
** under its name, as far as the remembered names' hashes tell), else 0. */
static int merger_remember(merger *mg, psoc_archive *a, const size_t *idx, size_t count,
                           const char *label) {
  size_t k, n = idx ? count : psoc_archive_count(a);
  int all_new = 1;
  for (k = 0; k < n; k++) {
    psoc_archive_entry e;
    merge_slot *sl;
    uint64_t h;
    if (!merger_grow(mg, 1)) return 0;
    if (psoc_archive_entry_get(a, idx ? idx[k] : k, &e) != PSOC_OK) {
      all_new = 0;
      continue;
    }
    h = psoc_xxh3(e.name, strlen(e.name));
    sl = merger_slot(mg->slots, mg->cap, h);
    if (sl->label) {
      all_new = 0;
      continue;
    }
    sl->name_hash = h;
    sl->hash = e.hash;
    sl->label = label;
    mg->used++;
  }
  return all_new;
}

/* Add archive 'a' (input 'label') to the merge: all its pipelines, or
** (idx not NULL) those at idx[0..count), through the component map 'map'
** (psoc_archive_writer_add_archive_pipelines), their records borrowed
** (psoc_archive_writer_borrow_archive_pipelines) when 'a' outlives the
** merge (the pack). 1 when every pipeline was added as new
** (merger_remember), else 0. On a clash or damage, mg->rc and mg->message
** say why (later inputs are then ignored). */
static int merger_add(merger *mg, psoc_archive *a, const size_t *idx, size_t count, uint32_t *map,
                      int borrow, const char *label) {
  char err[512];
  size_t k, total = idx ? count : psoc_archive_count(a);
  int n;
  psoc_status s;
  if (mg->rc != CLI_EXIT_OK) return 0;
  s = !idx     ? psoc_archive_writer_add_archive(mg->w, a, err, sizeof err)
      : borrow ? psoc_archive_writer_borrow_archive_pipelines(mg->w, a, idx, count, map, err,
                                                                sizeof err)
               : psoc_archive_writer_add_archive_pipelines(mg->w, a, idx, count, map, err,
                                                           sizeof err);
  if (s == PSOC_OK) return merger_remember(mg, a, idx, count, label);
  mg->rc = s == PSOC_ERR_NOMEM ? CLI_EXIT_USAGE : CLI_EXIT_ERRORS;
  if (s == PSOC_ERR_DUPLICATE) {
    /* the clashing pipeline: the first of this input's whose name an
    ** earlier input holds with other content */
    for (k = 0; k < total; k++) {
      psoc_archive_entry e;
      const merge_slot *sl;
      if (psoc_archive_entry_get(a, idx ? idx[k] : k, &e) != PSOC_OK) continue;
      sl = merger_slot(mg->slots, mg->cap, psoc_xxh3(e.name, strlen(e.name)));
      if (!sl->label || (sl->hash.lo == e.hash.lo && sl->hash.hi == e.hash.hi)) continue;
      n = snprintf(mg->message, sizeof mg->message,
                   "%s: error: pipeline '%s' is also declared, with different content, by %s "
                   "(pipeline names must be unique in an archive)",
                   label, e.name, sl->label);
      if (n >= 0) return 0;
    }
  }
  snprintf(mg->message, sizeof mg->message, "%s: error: cannot %s: %s", label, mg->cmd, err);
  return 0;
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
  const cook_options *o;       /* for the pack, got with the first material from it */
  psoc_archive *pack;          /* the cache's pack, or NULL */
  uint32_t *pack_map;          /* its components in the writer (NULL: none kept) */
  size_t from_pack;            /* materials whose pipelines it gave */
} cook_sink;

/* Merge m (in input order); with a cache, note whether its pipelines all
** went into the archive as its own (pack_new: the new pack will hold
** them, cook_index_save lists them). */
static void sink_ready(void *ud, cook_material *m) {
  cook_sink *k = ud;
  if (m->failed) k->any_failed = 1;
  if (!k->any_failed && (m->archive || m->pack_idx)) {
    int own;
    if (m->pack_idx && !k->pack) { /* (the pack m's lookup took: ready, never NULL here) */
      size_t nc, i;
      k->pack = k->o->pack_get(k->o->pack_ud);
      nc = psoc_archive_component_count(k->pack);
      if ((k->pack_map = malloc((nc ? nc : 1) * sizeof *k->pack_map)) != NULL)
        for (i = 0; i < nc; i++) k->pack_map[i] = PSOC_ARCHIVE_MAP_EMPTY;
    }
    if (m->pack_idx) {
      /* the pack stays open until the cook ends, after the merge's writer */
      own = merger_add(&k->mg, k->pack, m->pack_idx, m->pipelines, k->pack_map, 1, m->path);
      k->from_pack++;
    } else {
      own = merger_add(&k->mg, m->archive, NULL, 0, NULL, 0, m->path);
    }
    if (own && m->indexed) m->pack_new = m->pack_idx || cook_pack_list_make(m, m->archive) == 0;
  }
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
  uint64_t pack_id;            /* the pack the index names */
  size_t from_pack;            /* materials whose pipelines the old pack gave */
  int pack_loaded;             /* there was a pack to take them from */
  int new_pack;                /* it is made by this cook */
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
                              j->pack_id, j->new_pack, &j->cs, j->err, sizeof j->err) != 0;
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
  fprintf(stderr, "psoc cook: cache pack %s; pipelines of %zu material(s) taken from it%s\n",
          j->pack_loaded ? "loaded" : "none", j->from_pack,
          j->new_pack ? "; a new pack made" : "");
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
  uint64_t old_pack = cook_index_pack_id(a->o.index);
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
    /* as many pipelines as the last cook had, most likely */
    merger_reserve(&sink.mg, cook_index_pipelines(a->o.index));
    sink.any_failed = 0;
    sink.o = &a->o;
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
    job.pack_id = old_pack;
    job.from_pack = sink.from_pack;
    /* a new pack when an archive is to be written and the current pack
    ** does not already hold every material's pipelines */
    job.pack_loaded = a->o.pack_get && a->o.pack_get(a->o.pack_ud) != NULL;
    if (!a->unit && !failed && sink.mg.rc == CLI_EXIT_OK) {
      for (i = 0; i < scripts->count && m[i].pack_old; i++) continue;
      if (i < scripts->count || !job.pack_loaded) {
        job.new_pack = 1;
        job.pack_id = cook_pack_new_id(a->output);
      }
    }
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
  if (job.new_pack) { /* the pack: the archive just written, by a second name */
    char pack[PSOC_PLAT_PATH_MAX];
    if (cook_pack_path(a->o.cache_dir, job.pack_id, pack) == 0 &&
        psoc_plat_link(a->output, pack) == EEXIST && psoc_plat_remove(pack) == 0)
      (void)psoc_plat_link(a->output, pack);
  }
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
  if (have_job && job.new_pack) {
    /* the pack the index on disk does not name goes: the old one once the
    ** new index names the new one, else the new one */
    char pack[PSOC_PLAT_PATH_MAX];
    uint64_t gone = job.cs.index_written ? old_pack : job.pack_id;
    if (gone && gone != (job.cs.index_written ? job.pack_id : old_pack)) {
      if (gone == old_pack) a->retire = old_pack; /* cli_cook_main, after the prep thread */
      else if (cook_pack_path(a->o.cache_dir, gone, pack) == 0) (void)psoc_plat_remove(pack);
    }
  }
  free(sink.pack_map);
  if (have_job && a->o.verbose && !printed) index_job_print(&job);
  for (i = 0; m && !have_job && i < scripts->count; i++) cook_material_free(&m[i]);
  free(m);
  return rc;
}

/* Loading the cache index and the pack it names, on a thread of its own
** while the main thread finds the scripts (or inline when no thread
** starts). */
typedef struct cache_prep {
  const char *dir;
  cook_memo *memo;
  cook_index *index;
  cook_pack *pack;
  cook_cache_stats stats;
  /* The thread says when the index, then the pack, is there: the
  ** materials are looked up (their files' statuses checked, the edited
  ** ones evaluated) while the pack is still being verified. */
  int sync;                    /* lock and cond made (else: run inline) */
  psoc_plat_mutex lock;
  psoc_plat_cond cond;
  int index_done, pack_done;
} cache_prep;

static void prep_mark(cache_prep *p, int *flag) {
  if (!p->sync) {
    *flag = 1;
    return;
  }
  psoc_plat_mutex_lock(&p->lock);
  *flag = 1;
  psoc_plat_cond_signal(&p->cond);
  psoc_plat_mutex_unlock(&p->lock);
}

static void prep_wait(cache_prep *p, const int *flag) {
  if (!p->sync) return; /* run inline: done */
  psoc_plat_mutex_lock(&p->lock);
  while (!*flag) psoc_plat_cond_wait(&p->cond, &p->lock);
  psoc_plat_cond_signal(&p->cond); /* the next waiter (one signal wakes one) */
  psoc_plat_mutex_unlock(&p->lock);
}

static void cache_prep_run(void *ud) {
  cache_prep *p = ud;
  memset(&p->stats, 0, sizeof p->stats);
  p->index = cook_index_load(p->dir, p->memo, &p->stats);
  prep_mark(p, &p->index_done);
  p->pack = cook_pack_open(p->dir, p->index);
  prep_mark(p, &p->pack_done);
  cook_pack_remove_retired(p->dir); /* the last cook's old pack: beside the lookups */
}

static psoc_archive *prep_pack_get(void *ud) {
  cache_prep *p = ud;
  prep_wait(p, &p->pack_done);
  return cook_pack_archive(p->pack);
}

int cli_cook_main(int argc, char **argv) {
  cook_args a;
  cli_paths scripts = { NULL, 0, 0 };
  char err[512], cache[PSOC_PLAT_PATH_MAX];
  uint64_t start = psoc_plat_now_ns();
  cache_prep prep;
  psoc_plat_thread prep_t;
  int rc, cache_ok = 1, have_prep = 0, prep_thread = 0;
  /* freed memory kept for the next table, thread heap or state: a
  ** re-cook of 10,000 pipelines takes ~1,900 page faults instead of
  ** ~2,850 (tests/bench/README.md, "Stop 26") */
  psoc_plat_heap_retain((size_t)32 << 20);
  memset(&a, 0, sizeof a);
  memset(&prep, 0, sizeof prep);
  if ((a.inputs = calloc((size_t)argc + 1, sizeof *a.inputs)) == NULL) {
    fprintf(stderr, "psoc cook: out of memory\n");
    return CLI_EXIT_USAGE;
  }
  if ((rc = parse_cook(&a, argc, argv)) >= 0) goto done;
  if (!a.unit && !a.no_cache) {
    if (!a.cache) {
      if ((size_t)snprintf(cache, sizeof cache, "%s.cache", a.output) >= sizeof cache)
        cache_ok = 0; /* said after the scripts' own errors */
      else
        a.cache = cache;
    }
    if (cache_ok) a.o.cache_dir = a.cache;
  }
  a.o.memo = cook_memo_new(); /* NULL: no memo, only slower */
  if (a.o.cache_dir && a.o.memo) {
    prep.dir = a.o.cache_dir;
    prep.memo = a.o.memo;
    have_prep = 1;
    if (psoc_plat_mutex_init(&prep.lock) == 0) {
      if (psoc_plat_cond_init(&prep.cond) == 0)
        prep.sync = 1;
      else
        psoc_plat_mutex_destroy(&prep.lock);
    }
    prep_thread = prep.sync && psoc_plat_thread_start(&prep_t, cache_prep_run, &prep) == 0;
    if (!prep_thread && prep.sync) { /* inline, below */
      psoc_plat_cond_destroy(&prep.cond);
      psoc_plat_mutex_destroy(&prep.lock);
      prep.sync = 0;
    }
  }
  if (cli_collect_scripts(&scripts, a.inputs, a.input_count, err, sizeof err) != 0) {
    fputs("psoc cook: ", stderr);
    cli_text(stderr, err);
    fputs("\n", stderr);
    rc = CLI_EXIT_USAGE;
    goto done;
  }
  if (!cache_ok) {
    rc = cli_usage_error("cook", "the output path is too long");
    goto done;
  }
  a.o.progress = a.progress == 1 || (a.progress == -1 && !a.quiet && psoc_plat_isatty(1) &&
                                     psoc_plat_isatty(2));
  if (have_prep) {
    if (prep_thread) prep_wait(&prep, &prep.index_done);
    else cache_prep_run(&prep);
    a.o.index = prep.index;
    a.o.pack_get = prep_pack_get;
    a.o.pack_ud = &prep;
    a.index_stats = &prep.stats;
  }
  rc = run_cook(&a, &scripts, start, psoc_plat_now_ns());
done:
  if (prep_thread) psoc_plat_thread_join(&prep_t);
  if (a.retire) cook_pack_retire(a.o.cache_dir, a.retire);
  if (prep.sync) {
    psoc_plat_cond_destroy(&prep.cond);
    psoc_plat_mutex_destroy(&prep.lock);
  }
  cook_pack_free(prep.pack);
  cook_index_free(prep.index);
  cook_memo_free(a.o.memo);
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
  psoc_plat_heap_retain((size_t)32 << 20); /* as psoc cook */
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
    (void)merger_add(&mg, a, NULL, 0, NULL, 0, in[i]);
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
