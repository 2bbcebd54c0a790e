/*
** confine.h: file confinement, the security boundary between material
** scripts and the file system, in one place (internal: not installed, not
** part of psoc.h). The sandbox (pso.shader, pso.blob, require), the test
** library (materials.load, materials.files) and the CLI (folders of
** scripts) resolve, read and list files through these functions; every OS
** call goes through platform.h.
**
** Paths are UTF-8 with '/' separators. A root is a directory given by the
** embedder ('shown', as given, for messages) with its canonical path
** ('real'). A path is inside a root when its canonical form is the root or
** below it.
*/
#ifndef PSOC_CONFINE_H
#define PSOC_CONFINE_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PSOC_CONFINE_PATH_MAX PSOC_PLAT_PATH_MAX

typedef struct psoc_confine_root {
  char *shown; /* as given, for messages and chunk names */
  char *real;  /* canonical absolute path */
  /* psoc_confine_open's handle of the directory 'real', opened on first
  ** use (dir_state PSOC_CONFINE_DIR_NONE: not yet, zeroed memory is fine),
  ** closed by psoc_confine_root_close_dir and psoc_confine_root_free */
  psoc_plat_dirh dir;
  int dir_state;
} psoc_confine_root;
enum { PSOC_CONFINE_DIR_NONE, PSOC_CONFINE_DIR_OPEN, PSOC_CONFINE_DIR_UNAVAILABLE };

/* 'dir' as given plus its canonical path (it must be an existing
** directory). With 'virtual' (files come from a read_file hook) a
** directory that does not exist is taken lexically (psoc_confine_absolute).
** 0 or an errno value; on failure both strings are NULL. */
int psoc_confine_root_init(psoc_confine_root *root, const char *dir, int virtual);
/* The same for the directory part of 'path' ("." when it has none). */
int psoc_confine_root_init_dirname(psoc_confine_root *root, const char *path, int virtual);
void psoc_confine_root_free(psoc_confine_root *root);
/* Close the root's directory handle (the next psoc_confine_open opens it
** again): an embedder's roots are looked at afresh by every evaluation. */
void psoc_confine_root_close_dir(psoc_confine_root *root);

/* Is the canonical 'real' the canonical 'root' or below it? */
int psoc_confine_inside(const char *real, const char *root);

/* Where the canonical 'real' lies against the roots: inside one, above one
** (a directory on the way to a root) or elsewhere. */
enum { PSOC_CONFINE_OUTSIDE, PSOC_CONFINE_INSIDE, PSOC_CONFINE_ABOVE };
int psoc_confine_place(const psoc_confine_root *roots, size_t count, const char *real);

/* Resolve the absolute 'path' one component at a time, following
** symlinks, without ever looking at anything outside the roots: the moment
** a component lands outside, the answer is PSOC_CONFINE_LEAVES, whether or
** not something exists there. A missing component ends the lookups (the
** rest is joined as written, "." and ".." lexically), so the answer for a
** path outside the roots never depends on what exists outside them.
** Returns PSOC_CONFINE_FOUND (canonical path in out[PSOC_CONFINE_PATH_MAX]),
** PSOC_CONFINE_MISSING (out holds the canonical path it would have),
** PSOC_CONFINE_LEAVES, or an errno value. */
enum { PSOC_CONFINE_FOUND = -1, PSOC_CONFINE_MISSING = -2, PSOC_CONFINE_LEAVES = -3 };
int psoc_confine_resolve(const psoc_confine_root *roots, size_t count, const char *path,
                         char *out);

/* A file psoc_confine_open found: open for reading, or why it cannot be. */
typedef struct psoc_confine_file {
  psoc_plat_file f;
  int open; /* f is open: psoc_confine_read_file reads and closes it */
  int err;  /* else what reading it answers: PSOC_PLAT_ENOTREG,
            ** PSOC_CONFINE_TOO_LARGE or an errno value */
} psoc_confine_file;

/* psoc_confine_resolve and, for a file found, opening it for reading, in
** as few system calls as the platform allows: where it has confined opens
** (platform.h: psoc_plat_open_beneath) a path below one of the roots is
** opened beneath that root's directory handle in one step, which never
** follows a symlink and never leaves the root; only when that cannot give
** the answer (a symlink on the way, ".." above the root, no confined opens
** here) is the path walked as psoc_confine_resolve does, and the file it
** finds opened as psoc_confine_read does. The answers (FOUND, MISSING,
** LEAVES or an errno value, and out) are psoc_confine_resolve's; with FOUND
** 'file' is open or holds the error reading it gives: a regular file over
** 'limit' bytes (PSOC_CONFINE_TOO_LARGE) and anything but a regular file
** (PSOC_PLAT_ENOTREG) are never read (the confined open may open one
** without blocking for the moment it takes to ask what it is). 'file' is
** closed (open 0) for every other answer. The roots' handles are opened on
** first use and stay open until psoc_confine_root_close_dir. */
int psoc_confine_open(psoc_confine_root *roots, size_t count, const char *path, uint64_t limit,
                      char *out, psoc_confine_file *file);
/* Read the whole file psoc_confine_open opened into a buffer from
** alloc(ud, size) (at least one byte), then close it; alloc may raise a
** Lua error (the file is then still open: its owner closes it with
** psoc_confine_file_close). 0, file->err when it was not open, ENOMEM or
** an errno value. */
int psoc_confine_read_file(psoc_confine_file *file, void *(*alloc)(void *ud, size_t size),
                           void *ud, void **data, size_t *size);
void psoc_confine_file_close(psoc_confine_file *file);

/* 'path' made absolute against the current directory, "." and ".." taken
** lexically, into out[PSOC_CONFINE_PATH_MAX]. 0 or an errno value. */
int psoc_confine_absolute(const char *path, char *out);

/* dir + "/" + name into out[n] (name alone when dir is "."). */
void psoc_confine_join(char *out, size_t n, const char *dir, const char *name);

/* Read the whole regular file 'path' (symlinks followed) without ever
** blocking: a FIFO or a device is refused at once. Files over 'limit'
** bytes give PSOC_CONFINE_TOO_LARGE before anything is allocated or
** opened. The buffer comes from alloc(ud, size) (at least one byte is
** asked for), called before the file is opened, so an alloc that does not
** return (a Lua error) leaves nothing open; alloc returning NULL gives
** ENOMEM. *size receives the bytes read. 0, PSOC_PLAT_ENOTREG,
** PSOC_CONFINE_TOO_LARGE or an errno value. */
#define PSOC_CONFINE_TOO_LARGE (-100)
int psoc_confine_read(const char *path, uint64_t limit, void *(*alloc)(void *ud, size_t size),
                      void *ud, void **data, size_t *size);

/* A message for an error of these functions (never NULL). */
const char *psoc_confine_strerror(int e);

/* A sorted list of paths (psoc_confine_list). */
typedef struct psoc_confine_paths {
  char **items;
  size_t count, cap;
} psoc_confine_paths;
void psoc_confine_paths_free(psoc_confine_paths *paths);

/* Append the regular files under 'dir' whose names end in 'suffix' and not
** in 'exclude' (NULL: none) to 'out', depth first, sorted by name at each
** level; hidden names (".x") are skipped and symlinked directories are not
** followed (symlinks to regular files are listed); at most 'depth_max'
** levels below 'dir' and 'max' paths in all (more: E2BIG). 0 or an errno
** value (ENOMEM, or the one from opening 'dir' itself; folders below that
** cannot be read are skipped). */
int psoc_confine_list(const char *dir, const char *suffix, const char *exclude, int depth_max,
                      size_t max, psoc_confine_paths *out);

#ifdef __cplusplus
}
#endif

#endif
