/*
** platform.c: the POSIX implementation of platform.h. A Win32 one goes in
** its own #ifdef _WIN32 section here, with the same functions.
*/
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath, readlink, O_CLOEXEC */
#endif
#include "platform.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* ---- time ---------------------------------------------------------------- */

uint64_t psoc_plat_now_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- threads --------------------------------------------------------------- */

int psoc_plat_once_run(psoc_plat_once *once, void (*fn)(void)) { return pthread_once(once, fn); }

int psoc_plat_mutex_init(psoc_plat_mutex *m) { return pthread_mutex_init(&m->m, NULL); }
void psoc_plat_mutex_destroy(psoc_plat_mutex *m) { pthread_mutex_destroy(&m->m); }
void psoc_plat_mutex_lock(psoc_plat_mutex *m) { pthread_mutex_lock(&m->m); }
void psoc_plat_mutex_unlock(psoc_plat_mutex *m) { pthread_mutex_unlock(&m->m); }

int psoc_plat_cond_init(psoc_plat_cond *c) {
  pthread_condattr_t a;
  int e = pthread_condattr_init(&a);
  if (e) return e;
  e = pthread_condattr_setclock(&a, CLOCK_MONOTONIC); /* as psoc_plat_now_ns */
  if (!e) e = pthread_cond_init(&c->c, &a);
  pthread_condattr_destroy(&a);
  return e;
}
void psoc_plat_cond_destroy(psoc_plat_cond *c) { pthread_cond_destroy(&c->c); }
void psoc_plat_cond_signal(psoc_plat_cond *c) { pthread_cond_signal(&c->c); }
void psoc_plat_cond_wait(psoc_plat_cond *c, psoc_plat_mutex *m) {
  pthread_cond_wait(&c->c, &m->m);
}
void psoc_plat_cond_wait_until(psoc_plat_cond *c, psoc_plat_mutex *m, uint64_t deadline_ns) {
  struct timespec ts;
  ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
  ts.tv_nsec = (long)(deadline_ns % 1000000000u);
  pthread_cond_timedwait(&c->c, &m->m, &ts);
}

typedef struct thread_start {
  void (*fn)(void *);
  void *arg;
} thread_start;

static void *thread_main(void *p) {
  thread_start s = *(thread_start *)p;
  free(p);
  s.fn(s.arg);
  return NULL;
}

int psoc_plat_thread_start(psoc_plat_thread *t, void (*fn)(void *), void *arg) {
  sigset_t all, old;
  thread_start *s = (thread_start *)malloc(sizeof *s);
  int e;
  if (!s) return ENOMEM;
  s->fn = fn;
  s->arg = arg;
  /* the host's signals stay with the host's threads */
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  e = pthread_create(&t->t, NULL, thread_main, s);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (e) free(s);
  return e;
}

int psoc_plat_thread_join(psoc_plat_thread *t) { return pthread_join(t->t, NULL); }

/* ---- files ------------------------------------------------------------------ */

int psoc_plat_realpath(const char *path, char *out) {
  char buf[PATH_MAX];
  size_t n;
  if (!realpath(path, buf)) return errno ? errno : ENOENT;
  n = strlen(buf);
  if (n >= PSOC_PLAT_PATH_MAX) return ENAMETOOLONG;
  memcpy(out, buf, n + 1);
  return 0;
}

static int kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return PSOC_PLAT_LINK;
  if (S_ISDIR(mode)) return PSOC_PLAT_DIR;
  if (S_ISREG(mode)) return PSOC_PLAT_FILE;
  if (S_ISFIFO(mode)) return PSOC_PLAT_FIFO;
  if (S_ISCHR(mode)) return PSOC_PLAT_CHARDEV;
  if (S_ISBLK(mode)) return PSOC_PLAT_BLOCKDEV;
  if (S_ISSOCK(mode)) return PSOC_PLAT_SOCKET;
  return PSOC_PLAT_OTHER;
}

static int stat_kind(int follow, const char *path, int *kind, uint64_t *size) {
  struct stat st;
  if (size) *size = 0;
  if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) {
    int e = errno;
    *kind = PSOC_PLAT_MISSING;
    return e == ENOENT || e == ENOTDIR ? 0 : e;
  }
  *kind = kind_of(st.st_mode);
  if (size && *kind == PSOC_PLAT_FILE) *size = (uint64_t)st.st_size;
  return 0;
}

int psoc_plat_lstat(const char *path, int *kind) { return stat_kind(0, path, kind, NULL); }

int psoc_plat_stat(const char *path, int *kind, uint64_t *size) {
  return stat_kind(1, path, kind, size);
}

const char *psoc_plat_kind_name(int kind) {
  switch (kind) {
  case PSOC_PLAT_MISSING: return "missing";
  case PSOC_PLAT_DIR: return "a directory";
  case PSOC_PLAT_FILE: return "a regular file";
  case PSOC_PLAT_LINK: return "a symbolic link";
  case PSOC_PLAT_FIFO: return "a FIFO";
  case PSOC_PLAT_CHARDEV: return "a character device";
  case PSOC_PLAT_BLOCKDEV: return "a block device";
  case PSOC_PLAT_SOCKET: return "a socket";
  default: return "not a regular file";
  }
}

int psoc_plat_readlink(const char *path, char *out, size_t size) {
  ssize_t n;
  if (size == 0) return ENAMETOOLONG;
  n = readlink(path, out, size);
  if (n < 0) return errno;
  if ((size_t)n >= size) return ENAMETOOLONG;
  out[n] = '\0';
  return 0;
}

int psoc_plat_is_dir(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return errno ? errno : ENOENT;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

int psoc_plat_regular_size(const char *path, uint64_t *size) {
  struct stat st;
  *size = 0;
  if (stat(path, &st) != 0) return errno ? errno : ENOENT;
  if (!S_ISREG(st.st_mode)) return PSOC_PLAT_ENOTREG;
  *size = (uint64_t)st.st_size;
  return 0;
}

int psoc_plat_open_regular(const char *path, psoc_plat_file *f) {
  struct stat st;
  f->fd = -1;
  f->size = 0;
  /* Refuse what stat already shows is not a file (no open of a device);
  ** then open without blocking and check the opened file itself. */
  if (stat(path, &st) != 0) return errno ? errno : ENOENT;
  if (!S_ISREG(st.st_mode)) return PSOC_PLAT_ENOTREG;
  f->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (f->fd < 0) return errno ? errno : EIO;
  if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(f->fd);
    f->fd = -1;
    return PSOC_PLAT_ENOTREG;
  }
  f->size = (uint64_t)st.st_size;
  return 0;
}

int psoc_plat_read(psoc_plat_file *f, void *buf, size_t size, size_t *got) {
  *got = 0;
  while (*got < size) {
    ssize_t n = read(f->fd, (char *)buf + *got, size - *got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno ? errno : EIO;
    if (n == 0) break;
    *got += (size_t)n;
  }
  return 0;
}

void psoc_plat_close(psoc_plat_file *f) {
  if (f->fd >= 0) close(f->fd);
  f->fd = -1;
}

int psoc_plat_stream_stat(FILE *f, int *kind, uint64_t *size) {
  struct stat st;
  *kind = PSOC_PLAT_MISSING;
  *size = 0;
  if (fstat(fileno(f), &st) != 0) return errno ? errno : EIO;
  *kind = kind_of(st.st_mode);
  if (*kind == PSOC_PLAT_FILE && st.st_size > 0) *size = (uint64_t)st.st_size;
  return 0;
}

int psoc_plat_file_id_of(const char *path, psoc_plat_file_id *id) {
  struct stat st;
  id->dev = id->ino = 0;
  if (stat(path, &st) != 0) return errno ? errno : ENOENT;
  id->dev = (uint64_t)st.st_dev;
  id->ino = (uint64_t)st.st_ino;
  return 0;
}

int psoc_plat_same_file(const psoc_plat_file_id *a, const psoc_plat_file_id *b) {
  return a->dev == b->dev && a->ino == b->ino;
}

/* ---- writing ------------------------------------------------------------ */

int psoc_plat_temp_create(const char *path, char *out, FILE **f) {
  size_t n = strlen(path);
  mode_t mask;
  int fd;
  *f = NULL;
  if (n + sizeof ".tmp.XXXXXX" > PSOC_PLAT_PATH_MAX) return ENAMETOOLONG;
  snprintf(out, PSOC_PLAT_PATH_MAX, "%s.tmp.XXXXXX", path);
  fd = mkstemp(out);
  if (fd < 0) return errno ? errno : EIO;
  mask = umask(0);
  umask(mask);
  (void)fchmod(fd, 0666 & ~mask); /* mkstemp made it 0600 */
  *f = fdopen(fd, "wb");
  if (!*f) {
    int e = errno ? errno : EIO;
    close(fd);
    unlink(out);
    return e;
  }
  return 0;
}

int psoc_plat_rename(const char *from, const char *to) {
  return rename(from, to) == 0 ? 0 : (errno ? errno : EIO);
}

int psoc_plat_remove(const char *path) {
  return unlink(path) == 0 ? 0 : (errno ? errno : EIO);
}

int psoc_plat_mkdir(const char *path) {
  struct stat st;
  if (mkdir(path, 0777) == 0) return 0;
  if (errno != EEXIST) return errno;
  if (stat(path, &st) != 0) return errno ? errno : EIO;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

int psoc_plat_redirect_stdout(const char *path,
                              int (*accept)(void *ud, const psoc_plat_file_id *id), void *ud) {
  struct stat st;
  psoc_plat_file_id id;
  int fd, flags, e = 0;
  /* no truncation yet: what was checked before the open may not be this file */
  fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
  if (fd < 0) return errno ? errno : EIO;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return PSOC_PLAT_ENOTREG;
  }
  id.dev = (uint64_t)st.st_dev;
  id.ino = (uint64_t)st.st_ino;
  if (accept && !accept(ud, &id)) {
    close(fd);
    return PSOC_PLAT_EREFUSED;
  }
  flags = fcntl(fd, F_GETFL);
  if ((flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) || ftruncate(fd, 0) != 0 ||
      fflush(stdout) != 0 || dup2(fd, STDOUT_FILENO) < 0)
    e = errno ? errno : EIO;
  close(fd);
  return e;
}

struct psoc_plat_dir {
  DIR *d;
};

int psoc_plat_dir_open(const char *path, psoc_plat_dir **dir) {
  psoc_plat_dir *p = (psoc_plat_dir *)malloc(sizeof *p);
  *dir = NULL;
  if (!p) return ENOMEM;
  p->d = opendir(path);
  if (!p->d) {
    int e = errno ? errno : EIO;
    free(p);
    return e;
  }
  *dir = p;
  return 0;
}

int psoc_plat_dir_next(psoc_plat_dir *dir, const char **name) {
  struct dirent *e;
  for (;;) {
    errno = 0;
    e = readdir(dir->d);
    if (!e) {
      *name = NULL;
      return errno;
    }
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) break;
  }
  *name = e->d_name;
  return 0;
}

void psoc_plat_dir_close(psoc_plat_dir *dir) {
  if (!dir) return;
  closedir(dir->d);
  free(dir);
}

const char *psoc_plat_strerror(int e) {
  if (e == PSOC_PLAT_ENOTREG) return "not a regular file";
  if (e == PSOC_PLAT_EREFUSED) return "refused";
  return strerror(e);
}

/* ---- archive files (owner h5) ------------------------------------------- */

#ifndef _WIN32
#include <stdio.h>
#include <sys/mman.h>

int psoc_plat_map_file(const char *path, psoc_plat_map *m) {
  psoc_plat_file f;
  void *p;
  int e;
  m->data = NULL;
  m->size = 0;
  m->handle = NULL;
  e = psoc_plat_open_regular(path, &f);
  if (e) return e;
  if (f.size > (uint64_t)SIZE_MAX) {
    psoc_plat_close(&f);
    return EFBIG;
  }
  if (f.size == 0) {
    psoc_plat_close(&f);
    return 0;
  }
  p = mmap(NULL, (size_t)f.size, PROT_READ, MAP_PRIVATE, f.fd, 0);
  e = p == MAP_FAILED ? (errno ? errno : ENOMEM) : 0;
  psoc_plat_close(&f); /* the mapping keeps the file */
  if (e) return e;
  m->data = p;
  m->size = (size_t)f.size;
  return 0;
}

void psoc_plat_unmap(psoc_plat_map *m) {
  if (m->data) munmap((void *)(uintptr_t)m->data, m->size);
  m->data = NULL;
  m->size = 0;
}

/* The folder part of 'path' ("." when it has none) into out[n]. */
static int atomic_dir_of(const char *path, char *out, size_t n) {
  const char *slash = strrchr(path, '/');
  size_t len;
  if (!slash) {
    if (n < 2) return ENAMETOOLONG;
    memcpy(out, ".", 2);
    return 0;
  }
  len = slash == path ? 1 : (size_t)(slash - path);
  if (len + 1 > n) return ENAMETOOLONG;
  memcpy(out, path, len);
  out[len] = 0;
  return 0;
}

static int write_all(int fd, const void *data, size_t size) {
  const char *p = data;
  while (size) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno ? errno : EIO;
    if (n == 0) return EIO;
    p += n;
    size -= (size_t)n;
  }
  return 0;
}

int psoc_plat_write_atomic(const char *path, const void *data, size_t size) {
  char tmp[PSOC_PLAT_PATH_MAX], dir[PSOC_PLAT_PATH_MAX];
  int fd = -1, e, attempt, dfd;
  if (!path || !*path || (!data && size)) return EINVAL;
  e = atomic_dir_of(path, dir, sizeof dir);
  if (e) return e;
  /* O_EXCL on a name made of the pid, the clock and the attempt: never
  ** someone else's file, and a stale temporary left by a killed writer is
  ** never reused. */
  for (attempt = 0; attempt < 100 && fd < 0; attempt++) {
    int len = snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%llx.%d", path, (long)getpid(),
                       (unsigned long long)psoc_plat_now_ns(), attempt);
    if (len < 0 || (size_t)len >= sizeof tmp) return ENAMETOOLONG;
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) return errno ? errno : EIO;
  }
  if (fd < 0) return EEXIST;
  e = write_all(fd, data, size);
  if (!e && fsync(fd) != 0) e = errno ? errno : EIO;
  if (close(fd) != 0 && !e) e = errno ? errno : EIO;
  if (!e && rename(tmp, path) != 0) e = errno ? errno : EIO;
  if (e) {
    unlink(tmp);
    return e;
  }
  dfd = open(dir, O_RDONLY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)fsync(dfd); /* best effort: some file systems refuse it on folders */
    close(dfd);
  }
  return 0;
}
#endif

/* ---- cooking: terminals, processors, cache files (owner h6) -------------- */

#ifndef _WIN32
#include <stdio.h> /* snprintf, rename */

int psoc_plat_isatty(int stream) {
  if (stream != 1 && stream != 2) return 0;
  return isatty(stream) == 1;
}

unsigned psoc_plat_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1u : n > 1024 ? 1024u : (unsigned)n;
}

int psoc_plat_replace_file(const char *path, const void *data, size_t size) {
  static psoc_plat_flag counter;
  char tmp[PSOC_PLAT_PATH_MAX];
  int fd, e, n;
  n = snprintf(tmp, sizeof tmp, "%s.tmp%ld-%d", path, (long)getpid(),
               atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed));
  if (n < 0 || (size_t)n >= sizeof tmp) return ENAMETOOLONG;
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
  if (fd < 0) return errno ? errno : EIO;
  e = write_all(fd, data, size); /* h5's, above */
  if (close(fd) != 0 && e == 0) e = errno ? errno : EIO;
  if (e == 0 && rename(tmp, path) != 0) e = errno ? errno : EIO;
  if (e != 0) unlink(tmp);
  return e;
}
#endif
