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
  /* The cache index (cook_cache.c), kept after the unit is dropped: */
  uint64_t key;           /* the cache key (cook_cache_key) */
  uint64_t unit_hash;     /* the unit's fingerprint (cook_unit_fingerprint) */
  uint64_t unit_bytes;    /* the unit's size */
  int indexed;            /* 1: an entry for the index (a hit, or stored now) */
  /* The pack (cook_pack_open): a hit whose pipelines are taken from the
  ** pack has pack_idx (malloc: their indices there, m->pipelines of them)
  ** and no unit. pack_list: the names and hashes of the material's
  ** pipelines as the index records them (cook_pack_list_*), pack_list_own
  ** when made this run (malloc), else borrowed from the loaded index. */
  size_t *pack_idx;
  const unsigned char *pack_list;
  unsigned char *pack_list_own;
  size_t pack_list_len;
  const void *from_entry; /* a hit through the index: its entry there (the
                          ** files are that entry's; m->files is empty) */
  int pack_old;           /* its pipelines are its own in the loaded pack */
  int pack_new;           /* ... and in the archive this cook writes */
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
/* The real path of the script 'path' (a regular file, not a symlink) as
** the memo's real path of its folder plus its name: one lstat instead of
** a readlink per path component; psoc_plat_realpath for anything else.
** *regular: 1 when 'path' was seen to be a regular file. 0 or an errno
** value. */
int cook_memo_script_realpath(cook_memo *memo, const char *path, char *out, int *regular);
/* The content hash and size of 'path' now (cook_cache.c): stat'ed once
** per run; taken from the index without reading the file when its status
** (size, times, file number, device) is the one the index recorded with
** that hash and was recorded long enough after the file's last change
** (the racy guard); read and hashed otherwise. 0, or -1 when unreadable. */
int cook_memo_current(cook_memo *memo, const char *path, uint64_t *hash, uint64_t *size);

/* What the run's cache did, for -v: files taken as unchanged by their
** status, files read and hashed, and the index. */
typedef struct cook_cache_stats {
  size_t by_status, hashed;
  size_t index_entries;   /* entries loaded */
  int index_state;        /* COOK_INDEX_* */
  size_t index_written;   /* entries written (0: not rewritten) */
} cook_cache_stats;
enum { COOK_INDEX_NONE, COOK_INDEX_LOADED, COOK_INDEX_DAMAGED, COOK_INDEX_STALE };
void cook_memo_stats(cook_memo *memo, cook_cache_stats *st);

/* The cache index: CACHE/index, one file for the whole cache, loaded once
** before the materials are looked up (read-only during the run) and
** rewritten atomically at the end when anything changed. A missing,
** stale (another psoc version) or damaged index is empty: every lookup
** then takes the exact path of the entry's .dep file. */
typedef struct cook_index cook_index;
/* NULL when there is none to use (st->index_state says why). Fills the
** memo with the statuses the index recorded. */
cook_index *cook_index_load(const char *cache_dir, cook_memo *memo, cook_cache_stats *st);
void cook_index_free(cook_index *ix);
/* Write CACHE/index: the entries of 'old' and of the materials m[0..count)
** (the materials' replacing old ones of the same key), with the memo's
** statuses; only when something changed (an entry stored or taken from
** its .dep file, a file read afresh) or there was no usable index. 0, or
** -1 with the reason in 'err' (a cache that cannot be written only costs
** speed). st->index_written: the entries written (0: not rewritten). */
/* pack_id: the pack the new index names; when it is not the loaded
** index's (new_pack), only the materials with pack_new keep their
** pipeline lists, else those with pack_old and the old entries not
** replaced by this run's. */
int cook_index_save(const char *cache_dir, const cook_index *old, cook_memo *memo,
                    const cook_material *m, size_t count, uint64_t pack_id, int new_pack,
                    cook_cache_stats *st, char *err, size_t n);

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
  const cook_index *index;      /* the cache index, or NULL */
  /* The index's pack (cook_pack_open), or NULL: pack_get(pack_ud) waits
  ** until it is read and verified (NULL pack_get: no pack). */
  psoc_archive *(*pack_get)(void *ud);
  void *pack_ud;
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

/* The pack: CACHE/pack-ID.psoa, a hard link to the archive the last
** successful cook with this cache wrote, named by a random ID that the
** index records (cook_cache.c explains). A re-cook takes the pipelines of
** unchanged materials from it instead of reading each material's unit. */
typedef struct cook_pack cook_pack;
/* The index's pack, read into memory and opened with every checksum
** verified (it is then read by several threads at once); NULL when the
** index names none or it is missing, damaged or unreadable. */
cook_pack *cook_pack_open(const char *cache_dir, const cook_index *ix);
void cook_pack_free(cook_pack *p);
psoc_archive *cook_pack_archive(const cook_pack *p);
/* The pack the new index no longer names, retired: renamed to
** CACHE/retired.psoa (removed when the rename fails), which the next cook
** removes (cook_pack_remove_retired) on the thread that loads the index,
** beside the lookups. Removing the last name of a 7 MB file frees its
** page cache and its blocks (on a file system mounted with 'discard',
** waiting for the device), about 5 ms; a rename is not that. */
void cook_pack_retire(const char *cache_dir, uint64_t id);
void cook_pack_remove_retired(const char *cache_dir);
/* The pack ID the loaded index names (0: none). */
uint64_t cook_index_pack_id(const cook_index *ix);
/* The pipelines the loaded index's entries hold, in all (0: no index): a
** size hint for the merge. */
size_t cook_index_pipelines(const cook_index *ix);
/* A new pack ID (never 0). */
uint64_t cook_pack_new_id(const char *output);
/* CACHE/pack-ID.psoa into out[PSOC_PLAT_PATH_MAX]; 0, or -1 when too long. */
int cook_pack_path(const char *cache_dir, uint64_t id, char *out);
/* A material's pipeline list for the index, from the unit it was merged
** from: per pipeline its canonical hash (16 bytes), the name's length
** (u32) and the name with a NUL. 0, or -1 when out of memory. */
int cook_pack_list_make(cook_material *m, psoc_archive *unit);
/* The list's next entry at *pos (0 first): 1 with its name (NUL-terminated)
** and hash, 0 at the end or where the list is malformed. */
int cook_pack_list_next(const unsigned char *list, size_t len, size_t *pos, const char **name,
                        psoc_hash128 *hash);

/* The key of a material under options 'o': psoc's version, the archive
** format, the options that change a result (profile, --werror, the roots or
** the folder 'root' the script was found in) and the script's real path. */
uint64_t cook_cache_key(const cook_options *o, const char *root, const char *script_realpath);
/* On a hit: 1, with m->unit, m->archive, m->pipelines, m->report and
** m->files filled from the entry (every recorded file still has its
** recorded content, and the unit opens with every checksum verified).
** 0 on a miss (no entry, a file changed, a damaged entry). */
int cook_cache_lookup(const cook_options *o, uint64_t key, cook_material *m);
/* Record m (a successful evaluation with its files, m->unit_hash set). 0;
** 1 when it cannot be recorded (a path with a newline); or -1 with the
** reason in 'err' (a cache that cannot be written only costs speed). */
int cook_cache_store(const cook_options *o, uint64_t key, const cook_material *m, char *err,
                     size_t n);

/* The fingerprint of a verified unit: XXH3-64 of its header, which holds
** the checksums that cover every other byte. */
uint64_t cook_unit_fingerprint(const void *unit, size_t size);

/* XXH3-64 of a whole file's bytes (read through cli_read_file). 0, or -1
** with the reason in 'err'. */
int cook_hash_file(const char *path, uint64_t *hash, uint64_t *size, char *err, size_t n);

/* Replace 'path' with 'size' bytes atomically (temporary file in the same
** folder, renamed; 'durable': fsync'ed first). 0, or -1 with the reason in
** 'err'. */
int cook_write_atomic(const char *path, const void *data, size_t size, int durable, char *err,
                      size_t n);

#endif
