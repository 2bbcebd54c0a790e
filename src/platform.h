/*
** platform.h: the operating-system calls of psoc, in one place (internal:
** not installed, not part of psoc.h). Every other file reaches the clock,
** threads and the file system through these functions.
**
** Today there is one implementation, POSIX (pthreads, realpath, open with
** O_NONBLOCK). A Win32 one goes beside it in platform.c, in its own
** #ifdef _WIN32 section with the same functions (QueryPerformanceCounter,
** CreateThread, SRWLOCK/CONDITION_VARIABLE, GetFinalPathNameByHandle,
** CreateFile + GetFileType).
*/
#ifndef PSOC_PLATFORM_H
#define PSOC_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef _WIN32
#include <pthread.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Room for a resolved path, NUL included. */
#define PSOC_PLAT_PATH_MAX 4096

/* Extra error codes beside errno values (negative: never an errno). */
#define PSOC_PLAT_ENOTREG (-1) /* exists but is not a regular file */

/* ---- time ---------------------------------------------------------------- */

/* Monotonic clock in nanoseconds (0 when there is none). */
uint64_t psoc_plat_now_ns(void);

/* ---- threads --------------------------------------------------------------- */

#if defined(_WIN32)
/* Win32 (h8): an SRWLOCK, a CONDITION_VARIABLE and an INIT_ONCE are each
** one pointer, a thread a HANDLE; held as void * so that this header needs
** no <windows.h> (platform.c checks the sizes). */
typedef struct psoc_plat_mutex {
  void *srw;
} psoc_plat_mutex;
typedef struct psoc_plat_cond {
  void *cv;
} psoc_plat_cond;
typedef struct psoc_plat_thread {
  void *handle;
} psoc_plat_thread;
typedef struct psoc_plat_once {
  void *init_once;
} psoc_plat_once;
#define PSOC_PLAT_ONCE_INIT {0}
#else
typedef struct psoc_plat_mutex {
  pthread_mutex_t m;
} psoc_plat_mutex;
typedef struct psoc_plat_cond {
  pthread_cond_t c;
} psoc_plat_cond;
typedef struct psoc_plat_thread {
  pthread_t t;
} psoc_plat_thread;
typedef pthread_once_t psoc_plat_once;
#define PSOC_PLAT_ONCE_INIT PTHREAD_ONCE_INIT
#endif

/* All return 0 on success or an error number. */
int psoc_plat_once_run(psoc_plat_once *once, void (*fn)(void));
int psoc_plat_mutex_init(psoc_plat_mutex *m);
void psoc_plat_mutex_destroy(psoc_plat_mutex *m);
void psoc_plat_mutex_lock(psoc_plat_mutex *m);
void psoc_plat_mutex_unlock(psoc_plat_mutex *m);
/* A condition variable whose timed wait uses psoc_plat_now_ns's clock. */
int psoc_plat_cond_init(psoc_plat_cond *c);
void psoc_plat_cond_destroy(psoc_plat_cond *c);
void psoc_plat_cond_signal(psoc_plat_cond *c);
void psoc_plat_cond_wait(psoc_plat_cond *c, psoc_plat_mutex *m);
/* Wait until signalled or until psoc_plat_now_ns() reaches 'deadline_ns'. */
void psoc_plat_cond_wait_until(psoc_plat_cond *c, psoc_plat_mutex *m, uint64_t deadline_ns);
/* A detached-capable thread running fn(arg); all signals blocked in it. */
int psoc_plat_thread_start(psoc_plat_thread *t, void (*fn)(void *), void *arg);
int psoc_plat_thread_join(psoc_plat_thread *t);

/* A flag one thread sets and another polls (relaxed: a late read only
** delays the reaction by a poll). */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_ATOMICS__)
#include <stdatomic.h>
typedef atomic_int psoc_plat_flag;
#define psoc_plat_flag_get(f) atomic_load_explicit((f), memory_order_relaxed)
#define psoc_plat_flag_set(f, v) atomic_store_explicit((f), (v), memory_order_relaxed)
#elif defined(_MSC_VER)
/* MSVC without C11 atomics (h8): a volatile long, set with an interlocked
** exchange. */
#include <intrin.h>
typedef volatile long psoc_plat_flag;
#define psoc_plat_flag_get(f) (*(f))
#define psoc_plat_flag_set(f, v) ((void)_InterlockedExchange((f), (long)(v)))
#else
#error "platform.h: no C11 atomics"
#endif

/* ---- files ------------------------------------------------------------------ */

/* The canonical absolute path of an existing 'path' (symlinks followed)
** into out[PSOC_PLAT_PATH_MAX]. 0 or an errno value. */
int psoc_plat_realpath(const char *path, char *out);
/* What 'path' is, without following a final symlink. */
enum { PSOC_PLAT_MISSING, PSOC_PLAT_DIR, PSOC_PLAT_FILE, PSOC_PLAT_LINK, PSOC_PLAT_OTHER };
/* Sets *kind; returns 0, or an errno value for errors other than "does
** not exist" (ENOENT and ENOTDIR give PSOC_PLAT_MISSING and 0). */
int psoc_plat_lstat(const char *path, int *kind);
/* The target of the symlink 'path' into out[size] (NUL-terminated).
** 0 or an errno value (ENAMETOOLONG when it does not fit). */
int psoc_plat_readlink(const char *path, char *out, size_t size);
/* 0 when 'path' is an existing directory; an errno value otherwise. */
int psoc_plat_is_dir(const char *path);

/* The size of the regular file 'path' (symlinks followed), without
** opening it. 0, PSOC_PLAT_ENOTREG or an errno value. */
int psoc_plat_regular_size(const char *path, uint64_t *size);

/* An open regular file. */
typedef struct psoc_plat_file {
#if defined(_WIN32)
  void *handle; /* HANDLE (h8) */
#else
  int fd;
#endif
  uint64_t size;
} psoc_plat_file;
/* Open 'path' for reading without blocking (a FIFO or a device opens and
** is refused at once) and check that it is a regular file. 0,
** PSOC_PLAT_ENOTREG or an errno value; f->size holds its size. */
int psoc_plat_open_regular(const char *path, psoc_plat_file *f);
/* Read up to 'size' bytes from the start; *got receives the count (less
** when the file shrank). 0 or an errno value. */
int psoc_plat_read(psoc_plat_file *f, void *buf, size_t size, size_t *got);
void psoc_plat_close(psoc_plat_file *f);

/* A message for an error number of these functions (never NULL). */
const char *psoc_plat_strerror(int e);

/* ---- directories and the working directory (owner h8) ------------------- */

typedef struct psoc_plat_dir psoc_plat_dir;
/* Open the directory 'path' for listing (*out is NULL on failure). 0 or
** an errno value. */
int psoc_plat_dir_open(const char *path, psoc_plat_dir **out);
/* The next entry's name ("." and ".." are skipped), or NULL at the end.
** The name stays valid until the next call or psoc_plat_dir_close. */
const char *psoc_plat_dir_next(psoc_plat_dir *d);
void psoc_plat_dir_close(psoc_plat_dir *d);
/* The current directory into out[PSOC_PLAT_PATH_MAX]. 0 or an errno value. */
int psoc_plat_getcwd(char *out);

/* ---- writing files (owner h8) ------------------------------------------- */

/* Create the file 'path', which must not exist yet (EEXIST), for writing
** in binary: *out is an open stdio stream (fclose it). POSIX: mode 0666
** less the umask, never following a symlink. 0 or an errno value. */
int psoc_plat_create_new(const char *path, FILE **out);
/* Put 'from' in the place of 'to' in one step (an existing 'to' is
** replaced; a reader sees the old or the new file). rename(2), or
** MoveFileExW(MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH). */
int psoc_plat_replace(const char *from, const char *to);
/* Remove the file 'path'. 0 or an errno value. */
int psoc_plat_remove(const char *path);
/* Create the directory 'path' (0777 less the umask): 0, EEXIST (something
** is there already) or another errno value. */
int psoc_plat_mkdir(const char *path);

/* ---- programs (owner h8) ------------------------------------------------ */

/* For a program's main: on Windows, stdin, stdout and stderr become binary
** (no CRLF translation: streams and text come out byte for byte as on
** POSIX) and *argv is replaced by the UTF-8 form of the wide command line
** (the C runtime's argv is in the ANSI code page); the new argv lives until
** exit. Nothing to do on POSIX. 0 or an errno value (argv unchanged). */
int psoc_plat_main_init(int *argc, char ***argv);

#ifdef __cplusplus
}
#endif

#endif
