/*
** platform.c: the implementations of platform.h. The Win32 one (owner h8)
** comes first, in one #if defined(_WIN32) block; the POSIX one follows in
** the #else part.
*/
#if defined(_WIN32)

/* ---- Win32 (owner h8) ------------------------------------------------------
**
** Paths are UTF-8 in psoc and UTF-16 for Windows: every path is converted
** with MultiByteToWideChar / WideCharToMultiByte (invalid UTF-8 is refused
** with EILSEQ). Paths handed out (psoc_plat_realpath, psoc_plat_readlink)
** use a POSIX view of Windows paths, so that code written for '/'-rooted
** paths (the sandbox's confinement) works unchanged: '/' separators and a
** leading '/' before the drive, "/C:/dir/file"; a UNC path is
** "//server/share/dir". Paths handed in may use either separator and
** either form ("C:\\dir", "C:/dir", "/C:/dir"). */

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0600 /* Vista: SRW locks, condition variables, InitOnce */
#endif
#include "platform.h"

#include <windows.h>
#include <shellapi.h>
#include <winioctl.h>

#include <fcntl.h>
#include <io.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

_Static_assert(sizeof(SRWLOCK) == sizeof(void *), "psoc_plat_mutex holds an SRWLOCK");
_Static_assert(sizeof(CONDITION_VARIABLE) == sizeof(void *), "psoc_plat_cond holds one");
_Static_assert(sizeof(INIT_ONCE) == sizeof(void *), "psoc_plat_once holds an INIT_ONCE");

/* A Win32 error code as the errno value platform.h promises. */
static int win_errno(DWORD w) {
  switch (w) {
  case ERROR_FILE_NOT_FOUND:
  case ERROR_PATH_NOT_FOUND:
  case ERROR_INVALID_DRIVE:
  case ERROR_BAD_NETPATH:
  case ERROR_BAD_NET_NAME:
  case ERROR_INVALID_NAME:
  case ERROR_BAD_PATHNAME: return ENOENT;
  case ERROR_ACCESS_DENIED:
  case ERROR_SHARING_VIOLATION:
  case ERROR_LOCK_VIOLATION: return EACCES;
  case ERROR_NOT_ENOUGH_MEMORY:
  case ERROR_OUTOFMEMORY: return ENOMEM;
  case ERROR_FILENAME_EXCED_RANGE:
  case ERROR_BUFFER_OVERFLOW:
  case ERROR_INSUFFICIENT_BUFFER: return ENAMETOOLONG;
  case ERROR_DIRECTORY: return ENOTDIR;
  case ERROR_CANT_RESOLVE_FILENAME: return ELOOP;
  case ERROR_NOT_SUPPORTED:
  case ERROR_INVALID_FUNCTION: return ENOSYS;
  default: return EIO;
  }
}
static int last_errno(void) { return win_errno(GetLastError()); }

/* ---- time ---------------------------------------------------------------- */

uint64_t psoc_plat_now_ns(void) {
  static LARGE_INTEGER freq; /* the same on every call: a benign race */
  LARGE_INTEGER now;
  uint64_t q, r;
  if (freq.QuadPart == 0 && !QueryPerformanceFrequency(&freq)) return 0;
  if (freq.QuadPart <= 0 || !QueryPerformanceCounter(&now)) return 0;
  /* split so that counter * 1e9 cannot overflow */
  q = (uint64_t)now.QuadPart / (uint64_t)freq.QuadPart;
  r = (uint64_t)now.QuadPart % (uint64_t)freq.QuadPart;
  return q * 1000000000u + r * 1000000000u / (uint64_t)freq.QuadPart;
}

/* ---- threads --------------------------------------------------------------- */

static BOOL CALLBACK once_trampoline(PINIT_ONCE once, PVOID param, PVOID *ctx) {
  void (**fn)(void) = (void (**)(void))param;
  (void)once;
  (void)ctx;
  (*fn)();
  return TRUE;
}

int psoc_plat_once_run(psoc_plat_once *once, void (*fn)(void)) {
  return InitOnceExecuteOnce((PINIT_ONCE)&once->init_once, once_trampoline, (PVOID)&fn, NULL)
             ? 0
             : last_errno();
}

int psoc_plat_mutex_init(psoc_plat_mutex *m) {
  InitializeSRWLock((PSRWLOCK)&m->srw);
  return 0;
}
void psoc_plat_mutex_destroy(psoc_plat_mutex *m) { (void)m; /* SRW locks hold nothing */ }
void psoc_plat_mutex_lock(psoc_plat_mutex *m) { AcquireSRWLockExclusive((PSRWLOCK)&m->srw); }
void psoc_plat_mutex_unlock(psoc_plat_mutex *m) { ReleaseSRWLockExclusive((PSRWLOCK)&m->srw); }

int psoc_plat_cond_init(psoc_plat_cond *c) {
  InitializeConditionVariable((PCONDITION_VARIABLE)&c->cv);
  return 0;
}
void psoc_plat_cond_destroy(psoc_plat_cond *c) { (void)c; }
void psoc_plat_cond_signal(psoc_plat_cond *c) { WakeConditionVariable((PCONDITION_VARIABLE)&c->cv); }
void psoc_plat_cond_wait(psoc_plat_cond *c, psoc_plat_mutex *m) {
  SleepConditionVariableSRW((PCONDITION_VARIABLE)&c->cv, (PSRWLOCK)&m->srw, INFINITE, 0);
}
void psoc_plat_cond_wait_until(psoc_plat_cond *c, psoc_plat_mutex *m, uint64_t deadline_ns) {
  uint64_t now = psoc_plat_now_ns(), ms;
  if (now >= deadline_ns) return;
  ms = (deadline_ns - now + 999999u) / 1000000u; /* round up: never wake early */
  if (ms >= (uint64_t)INFINITE) ms = (uint64_t)INFINITE - 1;
  SleepConditionVariableSRW((PCONDITION_VARIABLE)&c->cv, (PSRWLOCK)&m->srw, (DWORD)ms, 0);
}

typedef struct thread_start {
  void (*fn)(void *);
  void *arg;
} thread_start;

static DWORD WINAPI thread_main(LPVOID p) {
  thread_start s = *(thread_start *)p;
  free(p);
  s.fn(s.arg);
  return 0;
}

/* Windows delivers no POSIX signals to threads: nothing to block. */
int psoc_plat_thread_start(psoc_plat_thread *t, void (*fn)(void *), void *arg) {
  thread_start *s = (thread_start *)malloc(sizeof *s);
  HANDLE h;
  if (!s) return ENOMEM;
  s->fn = fn;
  s->arg = arg;
  h = CreateThread(NULL, 0, thread_main, s, 0, NULL);
  if (!h) {
    int e = last_errno();
    free(s);
    return e;
  }
  t->handle = h;
  return 0;
}

int psoc_plat_thread_join(psoc_plat_thread *t) {
  DWORD w = WaitForSingleObject((HANDLE)t->handle, INFINITE);
  CloseHandle((HANDLE)t->handle);
  t->handle = NULL;
  return w == WAIT_OBJECT_0 ? 0 : EINVAL;
}

/* ---- paths ------------------------------------------------------------------ */

/* UTF-8 'path' (either separator, "/C:/x" accepted) as a UTF-16 path with
** backslashes into w[PSOC_PLAT_PATH_MAX]. 0, EILSEQ, ENAMETOOLONG or ENOENT
** (empty). */
static int to_wide(const char *path, wchar_t *w) {
  int n, i;
  if (!path || !path[0]) return ENOENT;
  /* "/C:/dir" -> "C:/dir" */
  if (path[0] == '/' && path[1] && path[1] != '/' && path[2] == ':') path++;
  n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, w, PSOC_PLAT_PATH_MAX);
  if (n <= 0) return GetLastError() == ERROR_INSUFFICIENT_BUFFER ? ENAMETOOLONG : EILSEQ;
  for (i = 0; w[i]; i++)
    if (w[i] == L'/') w[i] = L'\\';
  return 0;
}

/* A Windows path from the system (GetFinalPathNameByHandleW: "\\?\C:\x",
** "\\?\UNC\server\share\x"; or a plain "C:\x") in the POSIX view, UTF-8,
** into out[size]. 0, ENAMETOOLONG or EILSEQ. */
static int from_wide(const wchar_t *w, char *out, size_t size) {
  char *p = out;
  size_t room = size;
  int n;
  if (wcsncmp(w, L"\\\\?\\UNC\\", 8) == 0) {
    w += 8;
    if (room < 3) return ENAMETOOLONG;
    *p++ = '/';
    *p++ = '/';
    room -= 2;
  } else {
    if (wcsncmp(w, L"\\\\?\\", 4) == 0) w += 4;
    if (w[0] && w[1] == L':') {
      if (room < 2) return ENAMETOOLONG;
      *p++ = '/';
      room--;
    }
  }
  if (room > (size_t)INT_MAX) room = (size_t)INT_MAX;
  n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, p, (int)room, NULL, NULL);
  if (n <= 0) return GetLastError() == ERROR_INSUFFICIENT_BUFFER ? ENAMETOOLONG : EILSEQ;
  for (; *p; p++)
    if (*p == '\\') *p = '/';
  return 0;
}

/* ---- files ------------------------------------------------------------------ */

/* Open 'path' for its attributes only (directories too). 'flags' adds e.g.
** FILE_FLAG_OPEN_REPARSE_POINT. INVALID_HANDLE_VALUE with *err set. */
static HANDLE open_meta(const char *path, DWORD flags, int *err) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  HANDLE h;
  if ((*err = to_wide(path, w)) != 0) return INVALID_HANDLE_VALUE;
  h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                  OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | flags, NULL);
  if (h == INVALID_HANDLE_VALUE) *err = last_errno();
  return h;
}

int psoc_plat_realpath(const char *path, char *out) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  DWORD n;
  int e;
  HANDLE h = open_meta(path, 0, &e); /* follows symlinks and junctions */
  if (h == INVALID_HANDLE_VALUE) return e;
  n = GetFinalPathNameByHandleW(h, w, PSOC_PLAT_PATH_MAX, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  e = n == 0 ? last_errno() : n >= PSOC_PLAT_PATH_MAX ? ENAMETOOLONG : 0;
  CloseHandle(h);
  if (e) return e;
  return from_wide(w, out, PSOC_PLAT_PATH_MAX);
}

/* Attributes of 'path' (not following a final reparse point), or
** INVALID_FILE_ATTRIBUTES with *err set. */
static DWORD attributes(const char *path, int *err) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  DWORD a;
  if ((*err = to_wide(path, w)) != 0) return INVALID_FILE_ATTRIBUTES;
  a = GetFileAttributesW(w);
  if (a == INVALID_FILE_ATTRIBUTES) *err = last_errno();
  return a;
}

int psoc_plat_lstat(const char *path, int *kind) {
  int e;
  DWORD a = attributes(path, &e);
  *kind = PSOC_PLAT_MISSING;
  if (a == INVALID_FILE_ATTRIBUTES) return e == ENOENT || e == ENOTDIR ? 0 : e;
  if (a & FILE_ATTRIBUTE_REPARSE_POINT) *kind = PSOC_PLAT_LINK;
  else if (a & FILE_ATTRIBUTE_DIRECTORY) *kind = PSOC_PLAT_DIR;
  else if (a & FILE_ATTRIBUTE_DEVICE) *kind = PSOC_PLAT_OTHER;
  else *kind = PSOC_PLAT_FILE;
  return 0;
}

/* The reparse data of a symbolic link or a junction (winnt.h leaves
** REPARSE_DATA_BUFFER to the driver kit; this is its documented layout). */
typedef struct psoc_reparse {
  ULONG tag;
  USHORT data_length, reserved;
  USHORT substitute_offset, substitute_length, print_offset, print_length;
  /* symbolic links have ULONG flags here; junctions go straight on */
} psoc_reparse;
#define PSOC_SYMLINK_FLAG_RELATIVE 0x1u

int psoc_plat_readlink(const char *path, char *out, size_t size) {
  union {
    psoc_reparse r;
    unsigned char bytes[MAXIMUM_REPARSE_DATA_BUFFER_SIZE];
  } buf;
  wchar_t target[PSOC_PLAT_PATH_MAX];
  const unsigned char *names;
  DWORD got = 0;
  size_t off, len, i;
  int e, relative = 0;
  HANDLE h;
  if (size == 0) return ENAMETOOLONG;
  h = open_meta(path, FILE_FLAG_OPEN_REPARSE_POINT, &e);
  if (h == INVALID_HANDLE_VALUE) return e;
  if (!DeviceIoControl(h, FSCTL_GET_REPARSE_POINT, NULL, 0, &buf, sizeof buf, &got, NULL)) {
    e = GetLastError() == ERROR_NOT_A_REPARSE_POINT ? EINVAL : last_errno();
    CloseHandle(h);
    return e;
  }
  CloseHandle(h);
  if (got < sizeof buf.r) return EINVAL;
  if (buf.r.tag == IO_REPARSE_TAG_SYMLINK) {
    ULONG flags;
    if (got < sizeof buf.r + sizeof flags) return EINVAL;
    memcpy(&flags, buf.bytes + sizeof buf.r, sizeof flags);
    relative = (flags & PSOC_SYMLINK_FLAG_RELATIVE) != 0;
    names = buf.bytes + sizeof buf.r + sizeof flags;
  } else if (buf.r.tag == IO_REPARSE_TAG_MOUNT_POINT) {
    names = buf.bytes + sizeof buf.r;
  } else {
    return EINVAL; /* another kind of reparse point: not a link */
  }
  /* the print name is the target as the user wrote it */
  off = buf.r.print_offset;
  len = buf.r.print_length;
  if (len == 0) { /* some links only carry the substitute name ("\??\C:\x") */
    off = buf.r.substitute_offset;
    len = buf.r.substitute_length;
  }
  if ((size_t)(names - buf.bytes) + off + len > got || len % 2) return EINVAL;
  if (len / 2 >= PSOC_PLAT_PATH_MAX) return ENAMETOOLONG;
  memcpy(target, names + off, len);
  target[len / 2] = 0;
  if (wcsncmp(target, L"\\??\\", 4) == 0) target[1] = L'\\'; /* NT -> "\\?\" form */
  if (relative) { /* keep it relative: only the separators change */
    int n;
    if (size > (size_t)INT_MAX) size = (size_t)INT_MAX;
    n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, target, -1, out, (int)size, NULL,
                            NULL);
    if (n <= 0) return GetLastError() == ERROR_INSUFFICIENT_BUFFER ? ENAMETOOLONG : EILSEQ;
    for (i = 0; out[i]; i++)
      if (out[i] == '\\') out[i] = '/';
    return 0;
  }
  return from_wide(target, out, size);
}

int psoc_plat_is_dir(const char *path) {
  int e;
  BY_HANDLE_FILE_INFORMATION info;
  HANDLE h = open_meta(path, 0, &e);
  if (h == INVALID_HANDLE_VALUE) return e;
  e = GetFileInformationByHandle(h, &info) ? 0 : last_errno();
  CloseHandle(h);
  if (e) return e;
  return (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? 0 : ENOTDIR;
}

/* Size of the regular file behind an open handle (directories, devices,
** pipes: PSOC_PLAT_ENOTREG). */
static int handle_regular_size(HANDLE h, uint64_t *size) {
  BY_HANDLE_FILE_INFORMATION info;
  if (GetFileType(h) != FILE_TYPE_DISK) return PSOC_PLAT_ENOTREG;
  if (!GetFileInformationByHandle(h, &info)) return last_errno();
  if (info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_DEVICE))
    return PSOC_PLAT_ENOTREG;
  *size = ((uint64_t)info.nFileSizeHigh << 32) | info.nFileSizeLow;
  return 0;
}

int psoc_plat_regular_size(const char *path, uint64_t *size) {
  int e;
  HANDLE h;
  *size = 0;
  h = open_meta(path, 0, &e);
  if (h == INVALID_HANDLE_VALUE) return e;
  e = handle_regular_size(h, size);
  CloseHandle(h);
  return e;
}

int psoc_plat_open_regular(const char *path, psoc_plat_file *f) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  int e;
  DWORD a;
  HANDLE h;
  f->handle = NULL;
  f->size = 0;
  /* Refuse what the attributes already show is not a file (no open of a
  ** directory or device); then check the opened file itself. */
  a = attributes(path, &e);
  if (a == INVALID_FILE_ATTRIBUTES) return e;
  if (a & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_DEVICE)) return PSOC_PLAT_ENOTREG;
  if ((e = to_wide(path, w)) != 0) return e;
  h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                  OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
  if (h == INVALID_HANDLE_VALUE) return last_errno();
  if ((e = handle_regular_size(h, &f->size)) != 0) {
    CloseHandle(h);
    f->size = 0;
    return e;
  }
  f->handle = h;
  return 0;
}

int psoc_plat_read(psoc_plat_file *f, void *buf, size_t size, size_t *got) {
  *got = 0;
  while (*got < size) {
    DWORD want = size - *got > 0x40000000u ? 0x40000000u : (DWORD)(size - *got), n = 0;
    if (!ReadFile((HANDLE)f->handle, (char *)buf + *got, want, &n, NULL)) return last_errno();
    if (n == 0) break;
    *got += n;
  }
  return 0;
}

void psoc_plat_close(psoc_plat_file *f) {
  if (f->handle) CloseHandle((HANDLE)f->handle);
  f->handle = NULL;
}

const char *psoc_plat_strerror(int e) {
  if (e == PSOC_PLAT_ENOTREG) return "not a regular file";
  if (e == EILSEQ) return "not valid UTF-8";
  return strerror(e);
}

/* ---- directories and the working directory (owner h8) ------------------- */

struct psoc_plat_dir {
  HANDLE find;
  int first; /* data holds the first entry, not returned yet */
  WIN32_FIND_DATAW data;
  char name[PSOC_PLAT_PATH_MAX];
};

int psoc_plat_dir_open(const char *path, psoc_plat_dir **out) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  size_t n;
  int e;
  psoc_plat_dir *d;
  *out = NULL;
  if ((e = to_wide(path, w)) != 0) return e;
  n = wcslen(w);
  if (n + 3 > PSOC_PLAT_PATH_MAX) return ENAMETOOLONG;
  if (n > 0 && w[n - 1] != L'\\') w[n++] = L'\\';
  w[n++] = L'*';
  w[n] = 0;
  d = (psoc_plat_dir *)malloc(sizeof *d);
  if (!d) return ENOMEM;
  d->find = FindFirstFileExW(w, FindExInfoBasic, &d->data, FindExSearchNameMatch, NULL, 0);
  if (d->find == INVALID_HANDLE_VALUE) {
    e = GetLastError() == ERROR_FILE_NOT_FOUND ? 0 : last_errno(); /* empty */
    if (e) {
      free(d);
      return e;
    }
  }
  d->first = d->find != INVALID_HANDLE_VALUE;
  *out = d;
  return 0;
}

const char *psoc_plat_dir_next(psoc_plat_dir *d) {
  if (d->find == INVALID_HANDLE_VALUE) return NULL;
  for (;;) {
    const wchar_t *n = d->data.cFileName;
    if (!d->first && !FindNextFileW(d->find, &d->data)) return NULL;
    d->first = 0;
    if (n[0] == L'.' && (n[1] == 0 || (n[1] == L'.' && n[2] == 0))) continue;
    if (WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, n, -1, d->name, sizeof d->name, NULL,
                            NULL) <= 0)
      continue; /* a name that is not valid UTF-16: cannot be named in UTF-8 */
    return d->name;
  }
}

void psoc_plat_dir_close(psoc_plat_dir *d) {
  if (!d) return;
  if (d->find != INVALID_HANDLE_VALUE) FindClose(d->find);
  free(d);
}

int psoc_plat_getcwd(char *out) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  DWORD n = GetCurrentDirectoryW(PSOC_PLAT_PATH_MAX, w);
  if (n == 0) return last_errno();
  if (n >= PSOC_PLAT_PATH_MAX) return ENAMETOOLONG;
  return from_wide(w, out, PSOC_PLAT_PATH_MAX);
}

/* ---- writing files (owner h8) ------------------------------------------- */

int psoc_plat_create_new(const char *path, FILE **out) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  HANDLE h;
  int fd, e;
  *out = NULL;
  if ((e = to_wide(path, w)) != 0) return e;
  h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, CREATE_NEW,
                  FILE_ATTRIBUTE_NORMAL, NULL);
  if (h == INVALID_HANDLE_VALUE)
    return GetLastError() == ERROR_FILE_EXISTS || GetLastError() == ERROR_ALREADY_EXISTS
               ? EEXIST
               : last_errno();
  fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);
  if (fd < 0) {
    CloseHandle(h);
    return EIO;
  }
  *out = _fdopen(fd, "wb");
  if (!*out) {
    _close(fd);
    return errno ? errno : EIO;
  }
  return 0;
}

int psoc_plat_replace(const char *from, const char *to) {
  wchar_t wf[PSOC_PLAT_PATH_MAX], wt[PSOC_PLAT_PATH_MAX];
  int e;
  if ((e = to_wide(from, wf)) != 0 || (e = to_wide(to, wt)) != 0) return e;
  return MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ? 0
                                                                                 : last_errno();
}

int psoc_plat_remove(const char *path) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  int e;
  if ((e = to_wide(path, w)) != 0) return e;
  return DeleteFileW(w) ? 0 : last_errno();
}

int psoc_plat_mkdir(const char *path) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  int e;
  if ((e = to_wide(path, w)) != 0) return e;
  if (CreateDirectoryW(w, NULL)) return 0;
  return GetLastError() == ERROR_ALREADY_EXISTS ? EEXIST : last_errno();
}

/* ---- programs (owner h8) ------------------------------------------------ */

int psoc_plat_main_init(int *argc, char ***argv) {
  int n, i;
  LPWSTR *wargv;
  char **out;
  (void)_setmode(_fileno(stdin), _O_BINARY);
  (void)_setmode(_fileno(stdout), _O_BINARY);
  (void)_setmode(_fileno(stderr), _O_BINARY);
  wargv = CommandLineToArgvW(GetCommandLineW(), &n);
  if (!wargv) return last_errno();
  out = (char **)calloc((size_t)n + 1, sizeof *out);
  for (i = 0; out && i < n; i++) {
    int len = WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, NULL, 0, NULL, NULL);
    if (len <= 0 || !(out[i] = (char *)malloc((size_t)len))) break;
    WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, out[i], len, NULL, NULL);
  }
  LocalFree(wargv);
  if (!out || i < n) {
    if (out)
      while (i-- > 0) free(out[i]);
    free(out);
    return ENOMEM;
  }
  *argc = n;
  *argv = out; /* kept until exit, as the C runtime's argv is */
  return 0;
}

#else /* POSIX ------------------------------------------------------------------ */

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

int psoc_plat_lstat(const char *path, int *kind) {
  struct stat st;
  if (lstat(path, &st) != 0) {
    int e = errno;
    *kind = PSOC_PLAT_MISSING;
    return e == ENOENT || e == ENOTDIR ? 0 : e;
  }
  if (S_ISLNK(st.st_mode)) *kind = PSOC_PLAT_LINK;
  else if (S_ISDIR(st.st_mode)) *kind = PSOC_PLAT_DIR;
  else if (S_ISREG(st.st_mode)) *kind = PSOC_PLAT_FILE;
  else *kind = PSOC_PLAT_OTHER;
  return 0;
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

const char *psoc_plat_strerror(int e) {
  if (e == PSOC_PLAT_ENOTREG) return "not a regular file";
  return strerror(e);
}

/* ---- directories and the working directory (owner h8) ------------------- */

struct psoc_plat_dir {
  DIR *dir;
};

int psoc_plat_dir_open(const char *path, psoc_plat_dir **out) {
  psoc_plat_dir *d = (psoc_plat_dir *)malloc(sizeof *d);
  *out = NULL;
  if (!d) return ENOMEM;
  d->dir = opendir(path);
  if (!d->dir) {
    int e = errno ? errno : ENOENT;
    free(d);
    return e;
  }
  *out = d;
  return 0;
}

const char *psoc_plat_dir_next(psoc_plat_dir *d) {
  struct dirent *e;
  while ((e = readdir(d->dir)) != NULL) {
    const char *n = e->d_name;
    if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'))) continue;
    return n;
  }
  return NULL;
}

void psoc_plat_dir_close(psoc_plat_dir *d) {
  if (!d) return;
  closedir(d->dir);
  free(d);
}

int psoc_plat_getcwd(char *out) {
  if (!getcwd(out, PSOC_PLAT_PATH_MAX)) return errno == ERANGE ? ENAMETOOLONG : errno ? errno : EIO;
  return 0;
}

/* ---- writing files (owner h8) ------------------------------------------- */

int psoc_plat_create_new(const char *path, FILE **out) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
  *out = NULL;
  if (fd < 0) return errno ? errno : EIO;
  *out = fdopen(fd, "wb");
  if (!*out) {
    int e = errno ? errno : EIO;
    close(fd);
    unlink(path);
    return e;
  }
  return 0;
}

int psoc_plat_replace(const char *from, const char *to) {
  return rename(from, to) == 0 ? 0 : errno ? errno : EIO;
}

int psoc_plat_remove(const char *path) { return unlink(path) == 0 ? 0 : errno ? errno : EIO; }

int psoc_plat_mkdir(const char *path) {
  return mkdir(path, 0777) == 0 ? 0 : errno ? errno : EIO;
}

/* ---- programs (owner h8) ------------------------------------------------ */

int psoc_plat_main_init(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

#endif /* _WIN32 */
