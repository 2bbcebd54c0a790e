/*
** cook.h: the cooking commands of the psoc tool (internal to src/cli).
**
**   cook.c         'psoc cook' (whole archive, or --unit with a depfile) and
**                  'psoc merge'
**   cook_eval.c    evaluating materials on worker threads, each in its own
**                  sandboxed state, results kept in input order
**   cook_cache.c   the incremental cache: a material's cook unit, keyed by
**                  the content of every file its evaluation read
**   cook_inspect.c 'psoc ls', 'psoc verify', and the archive forms of
**                  'psoc dump' and 'psoc diff'
**
** A cook unit is an archive (src/psoc_archive.h) holding one material's
** pipelines. 'psoc cook' makes a unit per material (or takes it from the
** cache) and merges the units, exactly as 'psoc merge' does with units made
** by 'psoc cook --unit': the two give the same bytes.
*/
#ifndef PSOC_CLI_COOK_H
#define PSOC_CLI_COOK_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "psoc.h"
#include "psoc_archive.h"

/* ---- entry points (main.c) -------------------------------------------- */

int cli_cook_main(int argc, char **argv);   /* argv[0] == "cook" */
int cli_merge_main(int argc, char **argv);  /* argv[0] == "merge" */
int cli_ls_main(int argc, char **argv);     /* argv[0] == "ls" */
int cli_verify_main(int argc, char **argv); /* argv[0] == "verify" */
/* 'psoc dump FILE NAME' and 'psoc diff' where an argument is an archive.
** cli_archive_arg says whether argv (the command's own) names an archive
** in the position the archive form expects. */
int cli_archive_arg(int argc, char **argv);
int cli_archive_dump_main(int argc, char **argv);
int cli_archive_diff_main(int argc, char **argv);

/* ---- materials and their evaluation (cook_eval.c) --------------------- */

/* One file an evaluation read, as the cache records it. */
typedef struct cook_file {
  char *path;
  uint64_t hash, size;
} cook_file;

typedef struct cook_material {
  const char *path;       /* as collected from the command line */
  const char *root;       /* the folder it was found in, or NULL */
  /* Filled by cook_evaluate: */
  int failed;             /* 1: the material does not cook (diagnostics in 'report') */
  int unreadable;         /* 1: the script cannot be opened (an I/O error) */
  int evaluated;          /* 1: evaluated now; 0: taken from the cache */
  int cacheable;          /* the evaluation said which files it read */
  unsigned char *unit;    /* the cook unit's bytes (malloc) */
  size_t unit_size;
  psoc_archive *archive;  /* the unit opened and verified (over 'unit') */
  size_t pipelines;       /* pipelines in the unit */
  char *report;           /* diagnostics to print, "" when none (malloc) */
  cook_file *files;       /* every file the evaluation read (script first) */
  size_t file_count;
} cook_material;

/* Content hashes of files already hashed in this run (cook_cache.c): a
** module or shader shared by many materials is read once per cook. */
typedef struct cook_memo cook_memo;
cook_memo *cook_memo_new(void); /* NULL when out of memory (then no memo) */
void cook_memo_free(cook_memo *memo);
/* psoc_plat_realpath through the memo (NULL: none): each path is resolved
** once per run. psoc cook asks it for every file each evaluation read, and
** the shaders and modules a library shares were resolved again for every
** material (about 130 failing readlink calls a material, most of a full
** cook's system time). A file moved during the run is seen as it was when
** first asked, as its content hash already is. */
int cook_memo_realpath(cook_memo *memo, const char *path, char *out);

typedef struct cook_options {
  const char *command;          /* "cook" */
  const char *const *roots;     /* --root folders (none: the material's folder) */
  size_t root_count;
  const psoc_profile *profile;  /* --profile, or NULL */
  int werror;                   /* --werror: warnings fail a material */
  const char *cache_dir;        /* NULL: no cache */
  unsigned jobs;                /* worker threads (>= 1) */
  int progress;                 /* draw a progress bar on stderr */
  int verbose;                  /* one line per material on stderr */
  cook_memo *memo;              /* NULL: hash and resolve every file every time */
  /* Called for each material in input order, as soon as it and every
  ** material before it are done: from one worker thread at a time (the
  ** calls never overlap), while the others go on evaluating. It may free
  ** the material's unit (cook_material_drop_unit). NULL: none. */
  void (*ready)(void *ud, cook_material *m);
  void *ready_ud;
} cook_options;

/* Evaluate (or take from the cache) every material, on o->jobs threads.
** Each result lands in its own cook_material, so the outcome does not
** depend on which thread ran what. Returns 0, or -1 when threads could not
** be started (then nothing was evaluated). */
int cook_evaluate(const cook_options *o, cook_material *m, size_t count);
void cook_material_free(cook_material *m);
/* Free the unit (bytes and archive) and keep the rest (report, files). */
void cook_material_drop_unit(cook_material *m);

/* ---- the cache (cook_cache.c) ----------------------------------------- */

/* The key of a material under options 'o': psoc's version, the archive
** format, the options that change a result (profile, --werror, the roots or
** the folder 'root' the script was found in) and the script's real path. */
uint64_t cook_cache_key(const cook_options *o, const char *root, const char *script_realpath);
/* On a hit: 1, with m->unit, m->archive, m->pipelines, m->report and
** m->files filled from the entry (every recorded file still has its
** recorded content, and the unit opens with every checksum verified).
** 0 on a miss (no entry, a file changed, a damaged entry). */
int cook_cache_lookup(const cook_options *o, uint64_t key, cook_material *m);
/* Record m (a successful evaluation with its files). 0, or -1 with the
** reason in 'err' (a cache that cannot be written only costs speed). */
int cook_cache_store(const cook_options *o, uint64_t key, const cook_material *m, char *err,
                     size_t n);

/* XXH3-64 of a whole file's bytes (read through cli_read_file). 0, or -1
** with the reason in 'err'. */
int cook_hash_file(const char *path, uint64_t *hash, uint64_t *size, char *err, size_t n);

/* Replace 'path' with 'size' bytes atomically (temporary file in the same
** folder, renamed; 'durable': fsync'ed first). 0, or -1 with the reason in
** 'err'. */
int cook_write_atomic(const char *path, const void *data, size_t size, int durable, char *err,
                      size_t n);

#endif
