/*
** platform.h: the operating-system calls of psoc, in one place (internal:
** not installed, not part of psoc.h). Every other file reaches the clock,
** threads and the file system through these functions.
**
** Paths are UTF-8 strings; no POSIX type appears here (FILE is C's).
** Two implementations in platform.c: POSIX (pthreads, realpath, open with
** O_NONBLOCK, opendir, rename, dup2) and, in its #if defined(_WIN32)
** half, Win32 (QueryPerformanceCounter, CreateThread, SRWLOCK and
** CONDITION_VARIABLE, wide-character paths, GetFinalPathNameByHandleW,
** CreateFileW + GetFileType, FindFirstFileExW, MoveFileExW); see
** docs/windows.md.
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
/* The local wall-clock time of day, for log lines: hours, minutes,
** seconds and milliseconds. 0, or an errno value (all zero). */
int psoc_plat_local_time(int *hour, int *minute, int *second, int *ms);

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
enum {
  PSOC_PLAT_MISSING, PSOC_PLAT_DIR, PSOC_PLAT_FILE, PSOC_PLAT_LINK, PSOC_PLAT_OTHER,
  PSOC_PLAT_FIFO, PSOC_PLAT_CHARDEV, PSOC_PLAT_BLOCKDEV, PSOC_PLAT_SOCKET
};
/* Sets *kind; returns 0, or an errno value for errors other than "does
** not exist" (ENOENT and ENOTDIR give PSOC_PLAT_MISSING and 0). */
int psoc_plat_lstat(const char *path, int *kind);
/* The same following symlinks; *size (may be NULL) gets a regular file's
** size (0 otherwise). */
int psoc_plat_stat(const char *path, int *kind, uint64_t *size);
/* "a directory", "a FIFO", "a symbolic link", ... for messages. */
const char *psoc_plat_kind_name(int kind);
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
/* psoc_plat_open_regular for a 'path' the caller has just found to be a
** regular file (psoc_plat_regular_size): without looking at it first, the
** opened file itself still checked. */
int psoc_plat_open_checked(const char *path, psoc_plat_file *f);
/* Read up to 'size' bytes from the start; *got receives the count (less
** when the file shrank). 0 or an errno value. */
int psoc_plat_read(psoc_plat_file *f, void *buf, size_t size, size_t *got);
void psoc_plat_close(psoc_plat_file *f);

/* Confined opens: a directory opened once as a handle, and files opened
** beneath it in one kernel step (Linux 5.6+: openat2 with RESOLVE_BENEATH
** and RESOLVE_NO_SYMLINKS), which cannot be redirected by a component
** swapped for a symlink while it runs. Where the system has no such call
** (Windows, older kernels, a seccomp filter refusing it) psoc_plat_dirh_open
** fails and callers resolve paths themselves (src/confine.c's walk). */
typedef struct psoc_plat_dirh {
#if defined(_WIN32)
  void *handle; /* unused: never opened */
#else
  int fd;
#endif
} psoc_plat_dirh;
/* Open the directory at the canonical absolute 'path' as a handle, no
** component of the path a symlink at that moment. 0 or an errno value
** (ENOSYS: no confined opens here). */
int psoc_plat_dirh_open(const char *path, psoc_plat_dirh *d);
void psoc_plat_dirh_close(psoc_plat_dirh *d);
/* Open 'rel' ('/'-separated, relative, not empty) beneath 'd', never
** following a symlink (the last component included) and never leaving
** 'd' (no ".." above it). 0 with *kind what it is (PSOC_PLAT_FILE,
** PSOC_PLAT_DIR, ...): a regular file of at most 'limit' bytes is then open
** for reading in *f (f->size its size); a larger one has f->size set and
** nothing open; anything else is closed again at once (it is opened
** without blocking, O_NONBLOCK and O_NOCTTY, and asked what it is: a FIFO
** never blocks, and nothing but a regular file is ever read). Or an errno
** value:
** ENOENT when a component does not exist (every component before it was a
** directory and none a symlink); any other value (ELOOP: a symlink on the
** way; EXDEV: ".." above 'd'; ENOTDIR, EACCES, ENOSYS, ...) tells the
** caller to resolve the path its own way. */
int psoc_plat_open_beneath(const psoc_plat_dirh *d, const char *rel, uint64_t limit, int *kind,
                           psoc_plat_file *f);

/* psoc_plat_stat for an open stdio stream (standard input). */
int psoc_plat_stream_stat(FILE *f, int *kind, uint64_t *size);

/* Identity of a file (device and inode on POSIX; volume serial and file
** index on Windows), to tell whether two paths are the same file. */
typedef struct psoc_plat_file_id {
  uint64_t dev, ino;
} psoc_plat_file_id;
/* The identity of 'path' (symlinks followed). 0 or an errno value. */
int psoc_plat_file_id_of(const char *path, psoc_plat_file_id *id);
int psoc_plat_same_file(const psoc_plat_file_id *a, const psoc_plat_file_id *b);

/* 'path' as the system's other programs read it, for files psoc writes
** for them (depfiles): on Windows a drive path in psoc's POSIX view
** ("/C:/dir/x", what psoc_plat_realpath gives) loses its leading '/'
** ("C:/dir/x": ninja, make and cmd read that; "/C:/..." they do not);
** anything else, and every path on POSIX, is returned as it is. */
const char *psoc_plat_native_path(const char *path);

/* ---- writing ------------------------------------------------------------ */

/* Create a new file next to 'path' ("PATH.tmp.PID.CLOCK.N", made
** exclusively, with the permissions a new file gets: 0666 less the umask;
** the same temporary files as psoc_plat_write_atomic's), its name in
** out[PSOC_PLAT_PATH_MAX], opened for binary writing in *f. For writes that
** must never leave a broken 'path': write, fclose, then psoc_plat_rename
** over it (psoc_plat_remove it on failure). 0 or an errno value. */
int psoc_plat_temp_create(const char *path, char *out, FILE **f);
/* Rename 'from' to 'to', atomically replacing 'to'. 0 or an errno value. */
int psoc_plat_rename(const char *from, const char *to);
/* Remove the file (not a directory) 'path'. 0 or an errno value. */
int psoc_plat_remove(const char *path);
/* Make 'to' a second name (a hard link) of the existing file 'from'; fails
** with EEXIST when 'to' exists, EXDEV across file systems, and where the
** file system has no hard links. 0 or an errno value. */
int psoc_plat_link(const char *from, const char *to);
/* Create the directory 'path' (0777 less the umask); 0 also when it
** exists as a directory. 0 or an errno value (ENOTDIR: something else is
** there). */
int psoc_plat_mkdir(const char *path);
/* Point standard output at the regular file 'path', created if missing,
** never through a symlink and never blocking on a FIFO, and truncate it,
** but only when accept(ud, id) of the file actually opened (checked
** before anything is truncated) returns nonzero. 0, PSOC_PLAT_ENOTREG
** (not a regular file once opened), PSOC_PLAT_EREFUSED (accept said no)
** or an errno value. stdout is flushed first. */
#define PSOC_PLAT_EREFUSED (-2)
int psoc_plat_redirect_stdout(const char *path,
                              int (*accept)(void *ud, const psoc_plat_file_id *id), void *ud);

/* Directory listings: the names in 'path' (without "." and ".."), in the
** order the system gives them. psoc_plat_dir_next sets *name (valid until
** the next call) or NULL at the end; 0 or an errno value. */
typedef struct psoc_plat_dir psoc_plat_dir;
int psoc_plat_dir_open(const char *path, psoc_plat_dir **dir);
int psoc_plat_dir_next(psoc_plat_dir *dir, const char **name);
void psoc_plat_dir_close(psoc_plat_dir *dir);

/* A message for an error number of these functions (never NULL). */
const char *psoc_plat_strerror(int e);

/* ---- archive files (owner h5) ------------------------------------------- */

/* A whole regular file mapped read-only. */
typedef struct psoc_plat_map {
  const void *data; /* NULL for an empty file */
  size_t size;
  void *handle;     /* the platform's mapping handle (unused on POSIX) */
} psoc_plat_map;
/* Map the regular file 'path' read-only, privately. 0, PSOC_PLAT_ENOTREG
** or an errno value (EFBIG when it does not fit the address space). */
int psoc_plat_map_file(const char *path, psoc_plat_map *m);
void psoc_plat_unmap(psoc_plat_map *m);

/* Replace 'path' with 'size' bytes at 'data' atomically: a new temporary
** file beside it (same folder, so the rename cannot cross file systems),
** written in full, flushed to disk (fsync), renamed over 'path', and the
** folder flushed so the rename itself is durable. A crash at any point
** leaves either the old file or the new one, never a mix; on failure the
** temporary file is removed and 'path' is untouched. The new file's mode
** follows the umask (0666 &~ umask). 0 or an errno value. */
int psoc_plat_write_atomic(const char *path, const void *data, size_t size);

/* ---- cooking: terminals, processors, cache files (owner h6) -------------- */

/* 1 when standard output (stream 1) or standard error (stream 2) is a
** terminal, else 0. */
int psoc_plat_isatty(int stream);
/* Processors available to this process (at least 1). */
unsigned psoc_plat_cpu_count(void);
/* psoc_plat_write_atomic without the flushes: a new temporary file in the
** same folder ("PATH.tmp.PID.CLOCK.N", created exclusively), written and renamed
** over 'path'; on failure it is removed and 'path' is untouched. A killed
** process leaves the old file or the new one; a crash of the machine may
** leave a short file, so this is for files whose content is verified when
** read (the cook cache), where an fsync per file would cost more than the
** work it saves. 0 or an errno value. */
int psoc_plat_replace_file(const char *path, const void *data, size_t size);

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

/* ---- file watching, directory listing, signals (owner h7) ---- */
/* Used by the reload library (bindings/lua/reload.c) and 'psoc watch'.
** A guard of its own, so this section stays apart from the rest. */
#ifndef PSOC_PLATFORM_WATCH_H
#define PSOC_PLATFORM_WATCH_H
#ifdef __cplusplus
extern "C" {
#endif

/* Call fn(ud, name, kind) for every entry of the directory 'dir' except
** "." and "..", in no particular order; 'kind' is a PSOC_PLAT_* kind of
** the entry itself (a symlink is PSOC_PLAT_LINK). A nonzero return of fn
** stops the listing and is returned. 0 or an errno value. */
int psoc_plat_list_dir(const char *dir, int (*fn)(void *ud, const char *name, int kind),
                       void *ud);

/* A change signature of 'path' (symlinks followed): size, modification
** and status-change times, file number. *exists is 0 for a missing path
** (and the signature is zeroed). 0 or an errno value. */
typedef struct psoc_plat_stat_sig {
  uint64_t size, mtime_ns, ctime_ns, ino;
  int kind;
} psoc_plat_stat_sig;
int psoc_plat_stat_sig_get(const char *path, psoc_plat_stat_sig *sig, int *exists);

/* A file watcher. It watches directories: every entry of a watched
** directory that is created, written, truncated, renamed (either name),
** deleted or has its attributes changed is reported as "DIR/NAME" (DIR as
** given to psoc_plat_watch_add). Callers filter the paths they care about.
**   native  inotify on Linux; ReadDirectoryChangesW on Windows (one
**           overlapped read per directory; a lost batch, the system's
**           buffer overflowing, reports the directory "DIR" itself, as
**           inotify's queue overflow reports every directory: rescan);
**   poll    stats every entry of every watched directory each interval and
**           reports what changed; a file whose modification time is within
**           10 ms of the previous scan is reported again (a second write
**           within the file system's timestamp granularity changes no
**           signature), so the caller must compare contents (the reload
**           library hashes).
** AUTO picks native where there is one, else poll. */
enum { PSOC_PLAT_WATCH_AUTO = 0, PSOC_PLAT_WATCH_NATIVE = 1, PSOC_PLAT_WATCH_POLL = 2 };
typedef struct psoc_plat_watch psoc_plat_watch;
/* 0, ENOSYS (no native backend here) or an errno value. poll_ms: the
** polling interval (0 = 50 ms). */
int psoc_plat_watch_open(psoc_plat_watch **out, int backend, uint32_t poll_ms);
/* PSOC_PLAT_WATCH_NATIVE or PSOC_PLAT_WATCH_POLL. */
int psoc_plat_watch_backend(const psoc_plat_watch *w);
/* Watch the directory 'dir' (not recursively). Adding one twice is a
** no-op. 0 or an errno value (ENOENT for a missing directory). Only from
** the thread that waits (or before it starts). */
int psoc_plat_watch_add(psoc_plat_watch *w, const char *dir);
/* Wait up to timeout_ms (0: do not block) for changes and call
** fn(ud, path, flags) for each, in order; returns the number of paths
** reported, 0 on timeout or after psoc_plat_watch_wake, or -errno. One
** thread at a time. flags: PSOC_PLAT_WATCH_WRITING when more is likely to
** come (a truncate-then-write save): the native backend saw the file
** written and not yet closed, the poll backend sees it empty and just
** modified (so does ReadDirectoryChangesW, which sees no close: a file
** created or modified and found empty); 0 otherwise (closed, renamed,
** deleted, attributes). */
#define PSOC_PLAT_WATCH_WRITING 1
int psoc_plat_watch_wait(psoc_plat_watch *w, uint32_t timeout_ms,
                         void (*fn)(void *ud, const char *path, int flags), void *ud);
/* From any thread: make the current (or next) psoc_plat_watch_wait
** return at once. */
void psoc_plat_watch_wake(psoc_plat_watch *w);
void psoc_plat_watch_close(psoc_plat_watch *w);

/* SIGINT and SIGTERM (Ctrl-C, kill) set *flag to 1 instead of ending the
** process and interrupt blocking calls (install once, from the main
** thread). 0 or an errno value. */
int psoc_plat_on_interrupt(psoc_plat_flag *flag);

/* ---- thread CPU clock (owner s5) ---- */
/* CPU time the calling thread has used, user and system, in nanoseconds
** (0 when the system cannot say). Benchmarks time with it beside
** psoc_plat_now_ns: on a loaded machine it leaves out the time other
** processes held the CPU. Windows counts it in scheduler ticks. */
uint64_t psoc_plat_thread_cpu_ns(void);

/* ---- streamed atomic writes (owner t4) ---- */
/* For a file made by psoc_plat_temp_create, written piece by piece and
** then renamed over its target (psoc_plat_write_atomic's steps, for bytes
** that are never all in memory at once): psoc_plat_file_sync flushes f's
** buffers and the file's bytes to disk before the rename (fflush, then
** fsync; FlushFileBuffers on Windows), 0 or an errno value;
** psoc_plat_sync_parent flushes the folder holding 'path' after it, so the
** rename itself is durable (best effort, as psoc_plat_write_atomic does;
** nothing to do on Windows). */
int psoc_plat_file_sync(FILE *f);
void psoc_plat_sync_parent(const char *path);
/* Start writing to disk the bytes of f already handed to the system (not
** its stdio buffer), without waiting for them, so that the
** psoc_plat_file_sync at the end waits only for the last ones: the
** archive writer calls it as each 2 MB of the file goes out, which
** overlaps the disk's work with making the rest (Linux: sync_file_range
** with SYNC_FILE_RANGE_WRITE; elsewhere nothing, the final sync does it
** all). Best effort: nothing is reported. */
void psoc_plat_file_writeback(FILE *f);

/* ---- page faults (owner t4) ---- */
/* Page faults the process has taken so far, soft and hard (getrusage's
** ru_minflt + ru_majflt; the PageFaultCount of GetProcessMemoryInfo on
** Windows; Wine leaves that 0), 0 when the system cannot say. Benchmarks report the
** difference around a step: what mapping a file or touching fresh memory
** costs in faults (tests/bench/bench_archive.c). */
uint64_t psoc_plat_page_faults(void);

/* ---- process heap (owner t5) ---- */
/* Ask the C library to keep up to 'bytes' of freed heap memory in the
** process instead of handing it back to the system at each free, and to
** serve blocks up to that size (32 MiB at most) from that heap rather than
** from a mapping of their own: a program that makes and frees the same
** memory over and over (psoc check: a sandboxed state per script) then
** finds it mapped again instead of faulting every page in anew; each
** heap (the main one, every thread's) also grows by up to 8 MiB more than
** asked and keeps as much when trimmed (psoc cook: its tables and
** threads' heaps grow, free and grow again). A
** process-wide setting for programs, not for libraries to make (glibc:
** mallopt M_TRIM_THRESHOLD, M_MMAP_THRESHOLD and M_TOP_PAD; elsewhere
** nothing). */
void psoc_plat_heap_retain(size_t bytes);

/* ---- huge pages for a large buffer (owner s23-io) ---- */
/* The size of the pages that psoc_plat_huge_window asks for (2 MiB). */
#define PSOC_PLAT_HUGE_PAGE ((size_t)2 << 20)

/* A window of 'want' bytes (a multiple of PSOC_PLAT_HUGE_PAGE) inside the
** memory [p, p + n): at a PSOC_PLAT_HUGE_PAGE boundary when the memory
** holds one (n >= want + PSOC_PLAT_HUGE_PAGE serves any p), with the
** system asked to back it with huge pages when it is first touched
** (Linux: madvise MADV_HUGEPAGE, honoured when transparent huge pages are
** "madvise" or "always"); else p itself. Only a hint: the window is
** ordinary memory either way. A first touch of 2 MiB fresh from the
** system takes one fault instead of 512 (0.3-0.6 ms instead of 1.3-5.4
** ms on the 2-core virtual machine, whose host gives the guest's free
** pages back and maps each one anew). */
void *psoc_plat_huge_window(void *p, size_t n, size_t want);

#ifdef __cplusplus
}
#endif
#endif /* PSOC_PLATFORM_WATCH_H */

/* ---- file status for the cook cache (owner u4) ---- */
/* psoc cook's cache index takes a file whose status still matches what it
** recorded as unchanged, without reading it again (docs/cooking.md). */
#ifndef PSOC_PLATFORM_FILE_SIG_H
#define PSOC_PLATFORM_FILE_SIG_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/* The status of 'path': size, modification and status-change times (ns
** since 1970; on Windows the NTFS change time), file number and device
** (inode and st_dev; file index and volume serial on Windows); kind is a
** PSOC_PLAT_* kind. follow 0: the final symlink itself (PSOC_PLAT_LINK).
** 0 or an errno value (ENOENT for a missing path). */
typedef struct psoc_plat_file_sig {
  uint64_t size, mtime_ns, ctime_ns, ino, dev;
  int kind;
} psoc_plat_file_sig;
int psoc_plat_file_sig_get(const char *path, int follow, psoc_plat_file_sig *sig);
/* The wall clock (ns since 1970 UTC), the clock file times are stamped
** with: a time taken before a stat is never later than the stamps of
** writes after it (POSIX: CLOCK_REALTIME; Windows: the system time). */
uint64_t psoc_plat_wall_now_ns(void);
#ifdef __cplusplus
}
#endif
#endif /* PSOC_PLATFORM_FILE_SIG_H */
