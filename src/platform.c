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
  case ERROR_ALREADY_EXISTS:
  case ERROR_FILE_EXISTS: return EEXIST;
  case ERROR_DIRECTORY: return ENOTDIR;
  case ERROR_NOT_SAME_DEVICE: return EXDEV;
  case ERROR_CANT_RESOLVE_FILENAME: return ELOOP;
  case ERROR_NOT_SUPPORTED:
  case ERROR_INVALID_FUNCTION: return ENOSYS;
  default: return EIO;
  }
}
static int last_errno(void) { return win_errno(GetLastError()); }

/* ---- time ---------------------------------------------------------------- */

int psoc_plat_local_time(int *hour, int *minute, int *second, int *ms) {
  SYSTEMTIME t;
  GetLocalTime(&t);
  *hour = t.wHour;
  *minute = t.wMinute;
  *second = t.wSecond;
  *ms = t.wMilliseconds;
  return 0;
}

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

const char *psoc_plat_native_path(const char *path) {
  /* "/C:/dir" -> "C:/dir" */
  return path && path[0] == '/' && path[1] && path[1] != '/' && path[2] == ':' ? path + 1 : path;
}

/* UTF-8 'path' (either separator, "/C:/x" accepted) as a UTF-16 path with
** backslashes into w[PSOC_PLAT_PATH_MAX]. 0, EILSEQ, ENAMETOOLONG or ENOENT
** (empty). */
static int to_wide(const char *path, wchar_t *w) {
  int n, i;
  if (!path || !path[0]) return ENOENT;
  path = psoc_plat_native_path(path);
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

/* The kind and size of what an open handle refers to: GetFileType tells
** pipes (PSOC_PLAT_FIFO) and character devices (the console, NUL; under
** Wine also a Unix FIFO or /dev/null) from files and directories. 'links':
** the handle was opened with FILE_FLAG_OPEN_REPARSE_POINT, so a reparse
** point is the link itself (PSOC_PLAT_LINK); a handle opened through it
** may still carry the attribute (cloud and deduplicated files) and is
** then what it holds. */
static int handle_kind(HANDLE h, int links, int *kind, uint64_t *size) {
  BY_HANDLE_FILE_INFORMATION info;
  *kind = PSOC_PLAT_MISSING;
  if (size) *size = 0;
  if (h == INVALID_HANDLE_VALUE || h == NULL) return EBADF;
  switch (GetFileType(h)) {
  case FILE_TYPE_PIPE: *kind = PSOC_PLAT_FIFO; return 0;
  case FILE_TYPE_CHAR: *kind = PSOC_PLAT_CHARDEV; return 0;
  case FILE_TYPE_DISK: break;
  default: *kind = PSOC_PLAT_OTHER; return 0;
  }
  if (!GetFileInformationByHandle(h, &info)) return last_errno();
  if (links && (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) *kind = PSOC_PLAT_LINK;
  else if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) *kind = PSOC_PLAT_DIR;
  else if (info.dwFileAttributes & FILE_ATTRIBUTE_DEVICE) *kind = PSOC_PLAT_OTHER;
  else {
    *kind = PSOC_PLAT_FILE;
    if (size) *size = ((uint64_t)info.nFileSizeHigh << 32) | info.nFileSizeLow;
  }
  return 0;
}

/* The kind of what 'path' names, opened with 'flags' (0 follows a final
** link, FILE_FLAG_OPEN_REPARSE_POINT does not); a missing path is
** PSOC_PLAT_MISSING and 0. */
static int path_kind(const char *path, DWORD flags, int *kind, uint64_t *size) {
  int e;
  HANDLE h = open_meta(path, flags, &e);
  *kind = PSOC_PLAT_MISSING;
  if (size) *size = 0;
  if (h == INVALID_HANDLE_VALUE) return e == ENOENT || e == ENOTDIR ? 0 : e;
  e = handle_kind(h, (flags & FILE_FLAG_OPEN_REPARSE_POINT) != 0, kind, size);
  CloseHandle(h);
  return e;
}

int psoc_plat_lstat(const char *path, int *kind) {
  int e;
  DWORD a = attributes(path, &e);
  *kind = PSOC_PLAT_MISSING;
  if (a == INVALID_FILE_ATTRIBUTES) {
    if (e == ENOENT || e == ENOTDIR) return 0;
    /* What has no attributes may still open: a pipe or a device (Wine
    ** answers ERROR_INVALID_PARAMETER for a Unix FIFO or /dev/null). */
    return path_kind(path, FILE_FLAG_OPEN_REPARSE_POINT, kind, NULL) == 0 &&
                   *kind != PSOC_PLAT_MISSING
               ? 0
               : e;
  }
  if (a & FILE_ATTRIBUTE_REPARSE_POINT) *kind = PSOC_PLAT_LINK;
  else if (a & FILE_ATTRIBUTE_DIRECTORY) *kind = PSOC_PLAT_DIR;
  else if (a & FILE_ATTRIBUTE_DEVICE)
    return path_kind(path, FILE_FLAG_OPEN_REPARSE_POINT, kind, NULL);
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
  int e;
  DWORD a;
  f->handle = NULL;
  f->size = 0;
  /* Refuse what the attributes already show is not a file (no open of a
  ** directory or device); then check the opened file itself. */
  a = attributes(path, &e);
  if (a == INVALID_FILE_ATTRIBUTES) return e;
  if (a & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_DEVICE)) return PSOC_PLAT_ENOTREG;
  return psoc_plat_open_checked(path, f);
}

int psoc_plat_open_checked(const char *path, psoc_plat_file *f) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  int e;
  HANDLE h;
  f->handle = NULL;
  f->size = 0;
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

/* No confined opens on Windows (yet): callers walk the path themselves. */
int psoc_plat_dirh_open(const char *path, psoc_plat_dirh *d) {
  (void)path;
  d->handle = NULL;
  return ENOSYS;
}

void psoc_plat_dirh_close(psoc_plat_dirh *d) { d->handle = NULL; }

int psoc_plat_open_beneath(const psoc_plat_dirh *d, const char *rel, uint64_t limit, int *kind,
                           psoc_plat_file *f) {
  (void)d;
  (void)rel;
  (void)limit;
  f->handle = NULL;
  f->size = 0;
  *kind = PSOC_PLAT_MISSING;
  return ENOSYS;
}

int psoc_plat_stat(const char *path, int *kind, uint64_t *size) {
  return path_kind(path, 0, kind, size); /* follows symlinks and junctions */
}

int psoc_plat_stream_stat(FILE *f, int *kind, uint64_t *size) {
  return handle_kind((HANDLE)_get_osfhandle(_fileno(f)), 0, kind, size);
}

/* The volume serial number and file index: a file's identity on Windows. */
static int handle_id(HANDLE h, psoc_plat_file_id *id) {
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(h, &info)) return last_errno();
  id->dev = info.dwVolumeSerialNumber;
  id->ino = ((uint64_t)info.nFileIndexHigh << 32) | info.nFileIndexLow;
  return 0;
}

int psoc_plat_file_id_of(const char *path, psoc_plat_file_id *id) {
  int e;
  HANDLE h = open_meta(path, 0, &e);
  id->dev = id->ino = 0;
  if (h == INVALID_HANDLE_VALUE) return e;
  e = handle_id(h, id);
  CloseHandle(h);
  return e;
}

/* Create 'path' exclusively for writing; *h on success. */
static int create_exclusive(const char *path, HANDLE *h) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  int e = to_wide(path, w);
  *h = INVALID_HANDLE_VALUE;
  if (e) return e;
  *h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, CREATE_NEW,
                   FILE_ATTRIBUTE_NORMAL, NULL);
  if (*h != INVALID_HANDLE_VALUE) return 0;
  return GetLastError() == ERROR_FILE_EXISTS || GetLastError() == ERROR_ALREADY_EXISTS
             ? EEXIST
             : last_errno();
}

/* A new temporary file beside 'path' (name in tmp[PSOC_PLAT_PATH_MAX]):
** the process id, the clock and an attempt number, created exclusively. */
static int temp_beside(const char *path, char *tmp, HANDLE *h) {
  int attempt, e = EEXIST;
  for (attempt = 0; attempt < 100 && e == EEXIST; attempt++) {
    int len = snprintf(tmp, PSOC_PLAT_PATH_MAX, "%s.tmp.%lu.%llx.%d", path,
                       (unsigned long)GetCurrentProcessId(),
                       (unsigned long long)psoc_plat_now_ns(), attempt);
    if (len < 0 || len >= PSOC_PLAT_PATH_MAX) return ENAMETOOLONG;
    e = create_exclusive(tmp, h);
  }
  return e;
}

int psoc_plat_temp_create(const char *path, char *out, FILE **f) {
  HANDLE h;
  int fd, e;
  *f = NULL;
  if ((e = temp_beside(path, out, &h)) != 0) return e;
  fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);
  if (fd < 0) {
    CloseHandle(h);
    (void)psoc_plat_remove(out);
    return EIO;
  }
  *f = _fdopen(fd, "wb");
  if (!*f) {
    e = errno ? errno : EIO;
    _close(fd);
    (void)psoc_plat_remove(out);
    return e;
  }
  return 0;
}

int psoc_plat_redirect_stdout(const char *path,
                              int (*accept)(void *ud, const psoc_plat_file_id *id), void *ud) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  psoc_plat_file_id id;
  int fd, kind, e;
  uint64_t size;
  HANDLE h;
  if ((e = to_wide(path, w)) != 0) return e;
  /* no truncation yet: what was checked before the open may not be this
  ** file; a symbolic link is opened as itself (and is not a file) */
  h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, OPEN_ALWAYS,
                  FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  if (h == INVALID_HANDLE_VALUE) return last_errno();
  if (handle_kind(h, 1, &kind, &size) != 0 || kind != PSOC_PLAT_FILE || handle_id(h, &id) != 0) {
    CloseHandle(h);
    return PSOC_PLAT_ENOTREG;
  }
  if (accept && !accept(ud, &id)) {
    CloseHandle(h);
    return PSOC_PLAT_EREFUSED;
  }
  if (!SetEndOfFile(h)) {
    e = last_errno();
    CloseHandle(h);
    return e;
  }
  fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);
  if (fd < 0) {
    CloseHandle(h);
    return EIO;
  }
  e = 0;
  if (fflush(stdout) != 0 || _dup2(fd, _fileno(stdout)) != 0) e = errno ? errno : EIO;
  _close(fd);
  return e;
}

/* Write size bytes at data to a new file beside 'path' and move it over
** 'path' in one step; 'flush' forces the bytes to disk first. The
** temporary file is removed on failure and 'path' is untouched. */
static int replace_with(const char *path, const void *data, size_t size, int flush) {
  char tmp[PSOC_PLAT_PATH_MAX];
  const char *p = (const char *)data;
  HANDLE h;
  int e;
  if (!path || !*path || (!data && size)) return EINVAL;
  if ((e = temp_beside(path, tmp, &h)) != 0) return e;
  while (size && !e) {
    DWORD want = size > 0x40000000u ? 0x40000000u : (DWORD)size, n = 0;
    if (!WriteFile(h, p, want, &n, NULL)) e = last_errno();
    else if (n == 0) e = EIO;
    p += n;
    size -= n;
  }
  if (!e && flush && !FlushFileBuffers(h)) e = last_errno();
  if (!CloseHandle(h) && !e) e = last_errno();
  if (!e) e = psoc_plat_rename(tmp, path);
  if (e) (void)psoc_plat_remove(tmp);
  return e;
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

int psoc_plat_dir_next(psoc_plat_dir *d, const char **name) {
  *name = NULL;
  if (d->find == INVALID_HANDLE_VALUE) return 0;
  for (;;) {
    const wchar_t *n = d->data.cFileName;
    if (!d->first && !FindNextFileW(d->find, &d->data))
      return GetLastError() == ERROR_NO_MORE_FILES ? 0 : last_errno();
    d->first = 0;
    if (n[0] == L'.' && (n[1] == 0 || (n[1] == L'.' && n[2] == 0))) continue;
    if (WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, n, -1, d->name, sizeof d->name, NULL,
                            NULL) <= 0)
      continue; /* a name that is not valid UTF-16: cannot be named in UTF-8 */
    *name = d->name;
    return 0;
  }
}

void psoc_plat_dir_close(psoc_plat_dir *d) {
  if (!d) return;
  if (d->find != INVALID_HANDLE_VALUE) FindClose(d->find);
  free(d);
}

/* psoc_plat_dir_next with the kind of the entry itself (a link or a
** junction is PSOC_PLAT_LINK), from the attributes that FindNextFileW
** returned with the name: no call per entry ('path' is not needed). */
static int dir_next_kind(psoc_plat_dir *d, const char *path, const char **name, int *kind) {
  int e = psoc_plat_dir_next(d, name);
  DWORD a;
  (void)path;
  *kind = PSOC_PLAT_MISSING;
  if (e || !*name) return e;
  a = d->data.dwFileAttributes;
  *kind = (a & FILE_ATTRIBUTE_REPARSE_POINT) ? PSOC_PLAT_LINK
          : (a & FILE_ATTRIBUTE_DIRECTORY)   ? PSOC_PLAT_DIR
          : (a & FILE_ATTRIBUTE_DEVICE)      ? PSOC_PLAT_OTHER
                                             : PSOC_PLAT_FILE;
  return 0;
}

/* ---- writing files (owner h8) ------------------------------------------- */

int psoc_plat_rename(const char *from, const char *to) {
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

int psoc_plat_link(const char *from, const char *to) {
  wchar_t wf[PSOC_PLAT_PATH_MAX], wt[PSOC_PLAT_PATH_MAX];
  int e;
  if ((e = to_wide(from, wf)) != 0 || (e = to_wide(to, wt)) != 0) return e;
  return CreateHardLinkW(wt, wf, NULL) ? 0 : last_errno();
}

int psoc_plat_mkdir(const char *path) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  int e;
  if ((e = to_wide(path, w)) != 0) return e;
  if (CreateDirectoryW(w, NULL)) return 0;
  if (GetLastError() == ERROR_ALREADY_EXISTS) return psoc_plat_is_dir(path) == 0 ? 0 : EEXIST;
  return last_errno();
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
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* O_PATH and syscall() for psoc_plat_open_beneath */
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
#if defined(__linux__)
#include <sys/syscall.h>
#if defined(SYS_openat2) && defined(O_PATH)
#include <linux/openat2.h>
#define PSOC_PLAT_HAVE_OPENAT2 1
#endif
#endif

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* ---- time ---------------------------------------------------------------- */

int psoc_plat_local_time(int *hour, int *minute, int *second, int *ms) {
  struct timespec ts;
  struct tm tm;
  time_t s;
  *hour = *minute = *second = *ms = 0;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return errno ? errno : EIO;
  s = ts.tv_sec;
  if (!localtime_r(&s, &tm)) return errno ? errno : EIO;
  *hour = tm.tm_hour;
  *minute = tm.tm_min;
  *second = tm.tm_sec;
  *ms = (int)(ts.tv_nsec / 1000000L);
  return 0;
}

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
  return psoc_plat_open_checked(path, f);
}

int psoc_plat_open_checked(const char *path, psoc_plat_file *f) {
  struct stat st;
  f->size = 0;
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

/* Confined opens (platform.h). One openat2 resolves the whole path in the
** kernel: RESOLVE_BENEATH refuses ".." above the handle and absolute
** paths, RESOLVE_NO_SYMLINKS every symlink (magic links included). The
** file is opened for reading without blocking (O_NONBLOCK: a FIFO without
** a writer opens at once; O_NOCTTY) and what it is asked of the open file
** itself, so what is read is what was checked; anything but a regular
** file within the limit is closed at once. */
#if defined(PSOC_PLAT_HAVE_OPENAT2)
static int openat2_fd(int dir, const char *path, int flags, unsigned long long resolve) {
  struct open_how how;
  long fd;
  memset(&how, 0, sizeof how);
  how.flags = (unsigned long long)flags;
  how.resolve = resolve;
  do fd = syscall(SYS_openat2, dir, path, &how, sizeof how);
  while (fd < 0 && errno == EINTR);
  return fd < 0 ? -(errno ? errno : EIO) : (int)fd;
}
#define BENEATH (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
#endif

int psoc_plat_dirh_open(const char *path, psoc_plat_dirh *d) {
  d->fd = -1;
#if defined(PSOC_PLAT_HAVE_OPENAT2)
  {
    int fd = openat2_fd(AT_FDCWD, path, O_PATH | O_DIRECTORY | O_CLOEXEC,
                        RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
    if (fd < 0) return -fd;
    d->fd = fd;
    return 0;
  }
#else
  (void)path;
  return ENOSYS;
#endif
}

void psoc_plat_dirh_close(psoc_plat_dirh *d) {
  if (d->fd >= 0) close(d->fd);
  d->fd = -1;
}

int psoc_plat_open_beneath(const psoc_plat_dirh *d, const char *rel, uint64_t limit, int *kind,
                           psoc_plat_file *f) {
  f->fd = -1;
  f->size = 0;
  *kind = PSOC_PLAT_MISSING;
#if defined(PSOC_PLAT_HAVE_OPENAT2)
  {
    struct stat st;
    int fd, e;
    if (d->fd < 0 || rel[0] == '\0' || rel[0] == '/') return EINVAL;
    fd = openat2_fd(d->fd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, BENEATH);
    if (fd < 0) return -fd;
    if (fstat(fd, &st) != 0) {
      e = errno ? errno : EIO;
      close(fd);
      return e;
    }
    *kind = kind_of(st.st_mode);
    f->size = *kind == PSOC_PLAT_FILE ? (uint64_t)st.st_size : 0;
    if (*kind != PSOC_PLAT_FILE || f->size > limit) { /* refused: closed at once */
      close(fd);
      return 0;
    }
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    return 0;
  }
#else
  (void)d;
  (void)rel;
  (void)limit;
  return ENOSYS;
#endif
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

/* ---- writing ------------------------------------------------------------ */

/* A new file beside 'path', "PATH.tmp.PID.CLOCK.N", created exclusively
** (O_EXCL: never someone else's file, never a stale temporary left by a
** killed writer; another thread's name at the same clock tick only moves
** on to the next N) with mode 0666 less the umask; its name in
** tmp[PSOC_PLAT_PATH_MAX], its descriptor in *fd. 0 or an errno value. */
static int temp_beside(const char *path, char *tmp, int *fd) {
  int attempt;
  *fd = -1;
  for (attempt = 0; attempt < 100; attempt++) {
    int len = snprintf(tmp, PSOC_PLAT_PATH_MAX, "%s.tmp.%ld.%llx.%d", path, (long)getpid(),
                       (unsigned long long)psoc_plat_now_ns(), attempt);
    if (len < 0 || len >= PSOC_PLAT_PATH_MAX) return ENAMETOOLONG;
    *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
    if (*fd >= 0) return 0;
    if (errno != EEXIST) return errno ? errno : EIO;
  }
  return EEXIST;
}

static int write_all(int fd, const void *data, size_t size) {
  const char *p = (const char *)data;
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

/* The folder part of 'path' ("." when it has none) into out[n]. */
static int dir_of(const char *path, char *out, size_t n) {
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

/* Force a folder's entries to disk after a rename into it: best effort,
** some file systems refuse fsync on folders. */
static void fsync_dir(const char *dir) {
  int dfd = open(dir, O_RDONLY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)fsync(dfd);
    close(dfd);
  }
}

/* The one atomic replace of both halves: 'size' bytes at 'data' into a
** temp_beside file, renamed over 'path'; 'flush' forces the bytes to disk
** first (fsync) and the folder after the rename. The temporary file is
** removed on failure and 'path' is untouched. */
static int replace_with(const char *path, const void *data, size_t size, int flush) {
  char tmp[PSOC_PLAT_PATH_MAX], dir[PSOC_PLAT_PATH_MAX];
  int fd, e;
  if (!path || !*path || (!data && size)) return EINVAL;
  if (flush && (e = dir_of(path, dir, sizeof dir)) != 0) return e;
  if ((e = temp_beside(path, tmp, &fd)) != 0) return e;
  e = write_all(fd, data, size);
  if (!e && flush && fsync(fd) != 0) e = errno ? errno : EIO;
  if (close(fd) != 0 && !e) e = errno ? errno : EIO;
  if (!e && rename(tmp, path) != 0) e = errno ? errno : EIO;
  if (e) {
    unlink(tmp);
    return e;
  }
  if (flush) fsync_dir(dir);
  return 0;
}

int psoc_plat_temp_create(const char *path, char *out, FILE **f) {
  int fd, e;
  *f = NULL;
  if ((e = temp_beside(path, out, &fd)) != 0) return e;
  *f = fdopen(fd, "wb");
  if (!*f) {
    e = errno ? errno : EIO;
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

int psoc_plat_link(const char *from, const char *to) {
  return link(from, to) == 0 ? 0 : (errno ? errno : EIO);
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
  int kind; /* the last entry's kind from its d_type, or PSOC_PLAT_MISSING when unknown */
};

int psoc_plat_dir_open(const char *path, psoc_plat_dir **dir) {
  psoc_plat_dir *p = (psoc_plat_dir *)malloc(sizeof *p);
  *dir = NULL;
  if (!p) return ENOMEM;
  p->d = opendir(path);
  p->kind = PSOC_PLAT_MISSING;
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
  dir->kind = PSOC_PLAT_MISSING;
#ifdef DT_UNKNOWN
  /* kind_of's kinds (what lstat would tell) */
  dir->kind = e->d_type == DT_REG    ? PSOC_PLAT_FILE
              : e->d_type == DT_DIR  ? PSOC_PLAT_DIR
              : e->d_type == DT_LNK  ? PSOC_PLAT_LINK
              : e->d_type == DT_FIFO ? PSOC_PLAT_FIFO
              : e->d_type == DT_CHR  ? PSOC_PLAT_CHARDEV
              : e->d_type == DT_BLK  ? PSOC_PLAT_BLOCKDEV
              : e->d_type == DT_SOCK ? PSOC_PLAT_SOCKET
              : e->d_type == DT_UNKNOWN ? PSOC_PLAT_MISSING
                                        : PSOC_PLAT_OTHER;
#endif
  return 0;
}

void psoc_plat_dir_close(psoc_plat_dir *dir) {
  if (!dir) return;
  closedir(dir->d);
  free(dir);
}

/* psoc_plat_dir_next with the kind of the entry itself: readdir's d_type
** where the file system gives one (no call per entry: a walk of 1,000
** scripts saved 1,000 lstat), else lstat of "path/name"; an entry gone
** since readdir, or too long to be named, is skipped. */
static int dir_next_kind(psoc_plat_dir *d, const char *path, const char **name, int *kind) {
  char full[PSOC_PLAT_PATH_MAX];
  size_t dl = strlen(path), nl;
  int e;
  for (;;) {
    *kind = PSOC_PLAT_MISSING;
    if ((e = psoc_plat_dir_next(d, name)) != 0 || !*name) return e;
    if ((*kind = d->kind) != PSOC_PLAT_MISSING) return 0;
    nl = strlen(*name);
    if (dl + 1 + nl >= sizeof full) continue;
    memcpy(full, path, dl);
    full[dl] = '/';
    memcpy(full + dl + 1, *name, nl + 1);
    if (psoc_plat_lstat(full, kind) == 0 && *kind != PSOC_PLAT_MISSING) return 0;
  }
}

const char *psoc_plat_strerror(int e) {
  if (e == PSOC_PLAT_ENOTREG) return "not a regular file";
  if (e == PSOC_PLAT_EREFUSED) return "refused";
  return strerror(e);
}

/* ---- programs (owner h8) ------------------------------------------------ */

int psoc_plat_main_init(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

const char *psoc_plat_native_path(const char *path) { return path; }

#endif /* _WIN32 */

/* ---- both systems --------------------------------------------------------- */

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

int psoc_plat_same_file(const psoc_plat_file_id *a, const psoc_plat_file_id *b) {
  return a->dev == b->dev && a->ino == b->ino;
}

/* ---- file watching, directory listing, signals (owner h7) ---- */
/* The OS-specific part first (POSIX, then Win32: GetFileAttributesExW, an
** event object), then what both share: the directory listing (one walk
** through psoc_plat_dir_*), the watcher's directory table and the polling
** backend, with the native backends beside it (inotify on Linux,
** ReadDirectoryChangesW on Windows). */
#include <stdio.h>
#if !defined(_WIN32)
#include <poll.h>
#ifdef __linux__
#include <sys/inotify.h>
#define PSOC_PLAT_HAVE_INOTIFY 1
#endif

int psoc_plat_stat_sig_get(const char *path, psoc_plat_stat_sig *sig, int *exists) {
  struct stat st;
  memset(sig, 0, sizeof *sig);
  *exists = 0;
  if (stat(path, &st) != 0) {
    int e = errno;
    return e == ENOENT || e == ENOTDIR ? 0 : e;
  }
  *exists = 1;
  sig->size = (uint64_t)st.st_size;
  sig->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
  sig->ctime_ns = (uint64_t)st.st_ctim.tv_sec * 1000000000u + (uint64_t)st.st_ctim.tv_nsec;
  sig->ino = (uint64_t)st.st_ino;
  sig->kind = S_ISDIR(st.st_mode) ? PSOC_PLAT_DIR : S_ISREG(st.st_mode) ? PSOC_PLAT_FILE
                                                                        : PSOC_PLAT_OTHER;
  return 0;
}

/* The poll backend's scan time, compared with files' modification times:
** the coarse wall clock where there is one, the clock Linux stamps files
** with (a file changed after a scan then never looks older than it; the
** precise clock can run a tick or more ahead of the stamps, which made a
** file written just after a scan look older on a loaded machine). */
static uint64_t wall_ns(void) {
  struct timespec ts;
#ifdef CLOCK_REALTIME_COARSE
  if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) != 0 && clock_gettime(CLOCK_REALTIME, &ts) != 0)
    return 0;
#else
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 0;
#endif
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wakes a waiting watcher: a non-blocking pipe. */
typedef struct wake_t {
  int fd[2];
} wake_t;

static int wake_open(wake_t *k) {
  int i;
  if (pipe(k->fd) != 0) return errno;
  for (i = 0; i < 2; i++) {
    fcntl(k->fd[i], F_SETFL, O_NONBLOCK);
    fcntl(k->fd[i], F_SETFD, FD_CLOEXEC);
  }
  return 0;
}

static void wake_close(wake_t *k) {
  close(k->fd[0]);
  close(k->fd[1]);
}

static void wake_signal(wake_t *k) {
  char c = 1;
  ssize_t n = write(k->fd[1], &c, 1); /* a full pipe is already awake */
  (void)n;
}

static void wake_drain(wake_t *k) {
  char buf[64];
  while (read(k->fd[0], buf, sizeof buf) > 0) {
  }
}

/* Sleep up to 'ms'; 1 when woken (and drained), 0 after the time, -errno. */
static int wake_sleep(wake_t *k, uint32_t ms) {
  struct pollfd fd;
  int r;
  fd.fd = k->fd[0];
  fd.events = POLLIN;
  fd.revents = 0;
  r = poll(&fd, 1, (int)(ms > 0x7fffffffu ? 0x7fffffffu : ms));
  if (r < 0) return errno == EINTR ? 0 : -errno;
  if (r > 0 && fd.revents) {
    wake_drain(k);
    return 1;
  }
  return 0;
}

static psoc_plat_flag *interrupt_flag;

static void on_interrupt(int sig) {
  (void)sig;
  if (interrupt_flag) psoc_plat_flag_set(interrupt_flag, 1);
}

int psoc_plat_on_interrupt(psoc_plat_flag *flag) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  interrupt_flag = flag;
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: blocking calls return EINTR */
  if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0) return errno;
  return 0;
}

#else /* _WIN32 */
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0600 /* Vista: CancelIoEx */
#endif
#include <windows.h>
#define PSOC_PLAT_HAVE_RDCW 1 /* ReadDirectoryChangesW, below */

/* Paths go through the Win32 half's to_wide and errors through its
** win_errno; this section's own helpers are prefixed watch_. */

/* 100 ns ticks since 1601 -> ns since 1970 */
static uint64_t filetime_ns(FILETIME ft) {
  uint64_t t = ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
  const uint64_t epoch = 116444736000000000ull; /* 1970-01-01 in 100 ns ticks */
  return t > epoch ? (t - epoch) * 100u : 0;
}

/* 'len' UTF-16 units at 'w' as NUL-terminated UTF-8 with '/' separators
** into out[n]. 0, EILSEQ or ENAMETOOLONG. */
static int watch_utf8(const wchar_t *w, int len, char *out, int n) {
  int got, i;
  if (len == 0) {
    out[0] = '\0';
    return 0;
  }
  got = WideCharToMultiByte(CP_UTF8, 0, w, len, out, n - 1, NULL, NULL);
  if (got <= 0) return GetLastError() == ERROR_INSUFFICIENT_BUFFER ? ENAMETOOLONG : EILSEQ;
  out[got] = '\0';
  for (i = 0; i < got; i++)
    if (out[i] == '\\') out[i] = '/';
  return 0;
}

int psoc_plat_stat_sig_get(const char *path, psoc_plat_stat_sig *sig, int *exists) {
  WIN32_FILE_ATTRIBUTE_DATA a;
  wchar_t w[PSOC_PLAT_PATH_MAX];
  int e;
  memset(sig, 0, sizeof *sig);
  *exists = 0;
  if ((e = to_wide(path, w)) != 0) return e == ENOENT ? 0 : e;
  if (!GetFileAttributesExW(w, GetFileExInfoStandard, &a)) {
    DWORD err = GetLastError();
    return err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND ? 0 : win_errno(err);
  }
  *exists = 1;
  sig->size = ((uint64_t)a.nFileSizeHigh << 32) | a.nFileSizeLow;
  sig->mtime_ns = filetime_ns(a.ftLastWriteTime);
  sig->ctime_ns = filetime_ns(a.ftCreationTime);
  sig->kind = (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? PSOC_PLAT_DIR : PSOC_PLAT_FILE;
  return 0;
}

static uint64_t wall_ns(void) {
  FILETIME ft;
  GetSystemTimeAsFileTime(&ft);
  return filetime_ns(ft);
}

/* Wakes a waiting watcher: an auto-reset event (both backends wait on it). */
typedef struct wake_t {
  HANDLE ev;
} wake_t;

static int wake_open(wake_t *k) {
  k->ev = CreateEventW(NULL, FALSE, FALSE, NULL);
  return k->ev ? 0 : win_errno(GetLastError());
}

static void wake_close(wake_t *k) { CloseHandle(k->ev); }
static void wake_signal(wake_t *k) { SetEvent(k->ev); }

static int wake_sleep(wake_t *k, uint32_t ms) {
  DWORD r = WaitForSingleObject(k->ev, ms);
  if (r == WAIT_OBJECT_0) return 1;
  return r == WAIT_TIMEOUT ? 0 : -EIO;
}

static psoc_plat_flag *interrupt_flag;

static BOOL WINAPI on_console_event(DWORD type) {
  if (type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT || type == CTRL_CLOSE_EVENT) {
    if (interrupt_flag) psoc_plat_flag_set(interrupt_flag, 1);
    return TRUE;
  }
  return FALSE;
}

int psoc_plat_on_interrupt(psoc_plat_flag *flag) {
  interrupt_flag = flag;
  return SetConsoleCtrlHandler(on_console_event, TRUE) ? 0 : win_errno(GetLastError());
}
#endif /* _WIN32 */

/* One walk of a directory for both: psoc_plat_dir_open and each half's
** dir_next_kind (Windows: the attributes FindNextFileW gives with the name;
** POSIX: lstat of the entry). */
int psoc_plat_list_dir(const char *dir, int (*fn)(void *ud, const char *name, int kind),
                       void *ud) {
  psoc_plat_dir *d = NULL;
  const char *name;
  int rc, kind;
  if ((rc = psoc_plat_dir_open(dir, &d)) != 0 || !d) return rc ? rc : EIO;
  while ((rc = dir_next_kind(d, dir, &name, &kind)) == 0 && name)
    if ((rc = fn(ud, name, kind)) != 0) break;
  psoc_plat_dir_close(d);
  return rc;
}

/* One entry of a polled directory, as last seen. */
typedef struct watch_entry {
  char *name;
  psoc_plat_stat_sig sig;
  int seen; /* in the current scan */
} watch_entry;

#ifdef PSOC_PLAT_HAVE_RDCW
typedef struct watch_native watch_native;
#endif

typedef struct watch_dir {
  char *path;
  int wd;               /* inotify watch, or -1 */
#ifdef PSOC_PLAT_HAVE_RDCW
  watch_native *nat;    /* ReadDirectoryChangesW, or NULL */
#endif
  watch_entry *entries; /* poll backend */
  uint64_t last_scan;   /* wall-clock ns of the previous scan */
  size_t count, cap;
} watch_dir;

struct psoc_plat_watch {
  int backend;
  uint32_t poll_ms;
  int ifd;         /* inotify descriptor, or -1 */
  wake_t wake;     /* psoc_plat_watch_wake */
  watch_dir *dirs;
  size_t count, cap;
};

int psoc_plat_watch_open(psoc_plat_watch **out, int backend, uint32_t poll_ms) {
  psoc_plat_watch *w;
  *out = NULL;
#if !defined(PSOC_PLAT_HAVE_INOTIFY) && !defined(PSOC_PLAT_HAVE_RDCW)
  if (backend == PSOC_PLAT_WATCH_NATIVE) return ENOSYS;
  backend = PSOC_PLAT_WATCH_POLL;
#endif
  if (!(w = (psoc_plat_watch *)calloc(1, sizeof *w))) return ENOMEM;
  w->backend = backend == PSOC_PLAT_WATCH_POLL ? PSOC_PLAT_WATCH_POLL : PSOC_PLAT_WATCH_NATIVE;
  w->poll_ms = poll_ms ? poll_ms : 50;
  w->ifd = -1;
  {
    int e = wake_open(&w->wake);
    if (e) {
      free(w);
      return e;
    }
  }
#ifdef PSOC_PLAT_HAVE_INOTIFY
  if (w->backend == PSOC_PLAT_WATCH_NATIVE) {
    w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->ifd < 0) {
      int e = errno;
      wake_close(&w->wake);
      free(w);
      return e;
    }
  }
#endif
  *out = w;
  return 0;
}

int psoc_plat_watch_backend(const psoc_plat_watch *w) { return w->backend; }

typedef struct scan_ctx {
  psoc_plat_watch *w;
  watch_dir *d;
  void (*fn)(void *ud, const char *path, int flags);
  void *ud;
  int reported;
  int initial;        /* the first scan: records, reports nothing */
  uint64_t recent_ns; /* wall-clock ns: mtimes after this count as recent */

} scan_ctx;

static void watch_report(scan_ctx *c, const char *name, int flags) {
  char full[PSOC_PLAT_PATH_MAX];
  if ((size_t)snprintf(full, sizeof full, "%s/%s", c->d->path, name) >= sizeof full) return;
  if (c->fn) c->fn(c->ud, full, flags);
  c->reported++;
}

/* Poll backend: an empty file modified just now is most likely truncated
** and about to be written (truncate-then-write): say so. */
static int scan_flags(const scan_ctx *c, const psoc_plat_stat_sig *sig) {
  return sig->kind == PSOC_PLAT_FILE && sig->size == 0 && sig->mtime_ns >= c->recent_ns
             ? PSOC_PLAT_WATCH_WRITING
             : 0;
}

static int sig_equal(const psoc_plat_stat_sig *a, const psoc_plat_stat_sig *b) {
  return a->size == b->size && a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns &&
         a->ino == b->ino && a->kind == b->kind;
}

/* Poll backend: compare one entry with the last scan. */
static int scan_entry(void *ud, const char *name, int kind) {
  scan_ctx *c = (scan_ctx *)ud;
  watch_dir *d = c->d;
  char full[PSOC_PLAT_PATH_MAX];
  psoc_plat_stat_sig sig;
  int exists;
  size_t i;
  (void)kind;
  if ((size_t)snprintf(full, sizeof full, "%s/%s", d->path, name) >= sizeof full) return 0;
  if (psoc_plat_stat_sig_get(full, &sig, &exists) != 0 || !exists) return 0;
  for (i = 0; i < d->count; i++)
    if (strcmp(d->entries[i].name, name) == 0) break;
  if (i == d->count) { /* new */
    watch_entry *e;
    size_t len = strlen(name) + 1;
    if (d->count == d->cap) {
      size_t cap = d->cap ? d->cap * 2 : 16;
      e = (watch_entry *)realloc(d->entries, cap * sizeof *e);
      if (!e) return ENOMEM;
      d->entries = e;
      d->cap = cap;
    }
    e = &d->entries[d->count];
    if (!(e->name = (char *)malloc(len))) return ENOMEM;
    memcpy(e->name, name, len);
    e->sig = sig;
    e->seen = 1;
    d->count++;
    if (!c->initial) watch_report(c, name, scan_flags(c, &sig));
    return 0;
  }
  d->entries[i].seen = 1;
  if (!sig_equal(&d->entries[i].sig, &sig) ||
      (sig.kind == PSOC_PLAT_FILE && sig.mtime_ns >= c->recent_ns)) {
    d->entries[i].sig = sig;
    if (!c->initial) watch_report(c, name, scan_flags(c, &sig));
  }
  return 0;
}

/* How close to the previous scan a modification time must be to be
** reported again: above the timestamp granularity of common file systems
** (ext4 and tmpfs stamp with a clock that ticks every 1-10 ms). */
#define RECENT_NS 10000000u

static int scan_dir(psoc_plat_watch *w, watch_dir *d, int initial,
                    void (*fn)(void *, const char *, int), void *ud) {
  scan_ctx c;
  size_t i, j;
  uint64_t now = wall_ns();
  c.w = w;
  c.d = d;
  c.fn = fn;
  c.ud = ud;
  c.reported = 0;
  c.initial = initial;
  c.recent_ns = d->last_scan > RECENT_NS ? d->last_scan - RECENT_NS : 0;
  d->last_scan = now;
  for (i = 0; i < d->count; i++) d->entries[i].seen = 0;
  if (psoc_plat_list_dir(d->path, scan_entry, &c) == ENOMEM) return -ENOMEM;
  for (i = j = 0; i < d->count; i++) { /* what is gone */
    if (!d->entries[i].seen) {
      if (!c.initial) watch_report(&c, d->entries[i].name, 0);
      free(d->entries[i].name);
      continue;
    }
    d->entries[j++] = d->entries[i];
  }
  d->count = j;
  return c.reported;
}

#ifdef PSOC_PLAT_HAVE_RDCW
/* Windows native backend: one directory handle per watched directory
** (FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OVERLAPPED), always one
** overlapped ReadDirectoryChangesW pending on it, completed through a
** manual-reset event of its own. The waiting thread waits on the wake
** event and the directories' events together (in slices when there are
** more than WaitForMultipleObjects takes), then collects every completed
** read and issues the next one. A read that comes back empty (the
** system's buffer overflowed) or aborted reports the directory itself,
** so callers rescan it. Windows says nothing when a file is closed: a
** file created or modified and found empty is reported as
** PSOC_PLAT_WATCH_WRITING (the middle of a truncate-then-write), as the
** poll backend does. */
#define RDCW_FILTER                                                                              \
  (FILE_NOTIFY_CHANGE_FILE_NAME | FILE_NOTIFY_CHANGE_DIR_NAME | FILE_NOTIFY_CHANGE_SIZE |        \
   FILE_NOTIFY_CHANGE_LAST_WRITE | FILE_NOTIFY_CHANGE_ATTRIBUTES | FILE_NOTIFY_CHANGE_CREATION)
/* bytes; at most 64 KiB for directories on network shares (a test build
** makes it small to see an overflow) */
#ifndef PSOC_PLAT_RDCW_BUFFER
#define PSOC_PLAT_RDCW_BUFFER 65536
#endif
#define RDCW_BUFFER PSOC_PLAT_RDCW_BUFFER

struct watch_native {
  HANDLE h;        /* the directory */
  OVERLAPPED ov;   /* ov.hEvent: manual reset, set when the read completes */
  int pending;     /* a read is in flight */
  DWORD buf[RDCW_BUFFER / sizeof(DWORD)]; /* DWORD-aligned, as the call needs */
};

/* Issue the next read. 0 or an errno value. */
static int rdcw_arm(watch_native *n) {
  HANDLE ev = n->ov.hEvent;
  memset(&n->ov, 0, sizeof n->ov);
  n->ov.hEvent = ev;
  ResetEvent(ev);
  if (!ReadDirectoryChangesW(n->h, n->buf, (DWORD)sizeof n->buf, FALSE, RDCW_FILTER, NULL, &n->ov,
                             NULL))
    return win_errno(GetLastError());
  n->pending = 1;
  return 0;
}

/* Stop the read in flight (waiting for it: the buffer is ours until it
** completes) and close the handles. */
static void rdcw_close(watch_native *n) {
  if (!n) return;
  if (n->pending) {
    DWORD got;
    CancelIoEx(n->h, &n->ov);
    GetOverlappedResult(n->h, &n->ov, &got, TRUE);
  }
  if (n->h != INVALID_HANDLE_VALUE) CloseHandle(n->h);
  if (n->ov.hEvent) CloseHandle(n->ov.hEvent);
  free(n);
}

static int rdcw_open(const char *dir, watch_native **out) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  watch_native *n;
  int e;
  *out = NULL;
  if ((e = to_wide(dir, w)) != 0) return e;
  if (!(n = (watch_native *)calloc(1, sizeof *n))) return ENOMEM;
  n->h = CreateFileW(w, FILE_LIST_DIRECTORY, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                     NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OVERLAPPED, NULL);
  if (n->h == INVALID_HANDLE_VALUE) {
    e = win_errno(GetLastError());
    free(n);
    return e;
  }
  n->ov.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
  e = n->ov.hEvent ? rdcw_arm(n) : win_errno(GetLastError());
  if (e) {
    rdcw_close(n);
    return e;
  }
  *out = n;
  return 0;
}

/* Report "DIR/NAME" for 'len' UTF-16 units of a notification. */
static int rdcw_report(const watch_dir *d, const wchar_t *name, int len, DWORD action,
                       void (*fn)(void *, const char *, int), void *ud) {
  char full[PSOC_PLAT_PATH_MAX];
  size_t dl = strlen(d->path);
  int flags = 0;
  if (dl + 2 >= sizeof full) return 0;
  memcpy(full, d->path, dl);
  full[dl] = '/';
  if (watch_utf8(name, len, full + dl + 1, (int)(sizeof full - dl - 1)) != 0) return 0;
  if (action == FILE_ACTION_ADDED || action == FILE_ACTION_MODIFIED) {
    psoc_plat_stat_sig sig;
    int exists;
    if (psoc_plat_stat_sig_get(full, &sig, &exists) == 0 && exists &&
        sig.kind == PSOC_PLAT_FILE && sig.size == 0)
      flags = PSOC_PLAT_WATCH_WRITING;
  }
  if (fn) fn(ud, full, flags);
  return 1;
}

static int rdcw_report_dir(const watch_dir *d, void (*fn)(void *, const char *, int), void *ud) {
  if (fn) fn(ud, d->path, 0);
  return 1;
}

/* Collect the completed read of 'd' (if any) and issue the next. */
static int rdcw_collect(watch_dir *d, void (*fn)(void *, const char *, int), void *ud) {
  watch_native *n = d->nat;
  DWORD got = 0, err = 0;
  int reported = 0;
  if (!n) return 0;
  if (n->pending) {
    if (WaitForSingleObject(n->ov.hEvent, 0) != WAIT_OBJECT_0) return 0; /* still waiting */
    if (!GetOverlappedResult(n->h, &n->ov, &got, FALSE)) err = GetLastError();
    if (err == ERROR_IO_INCOMPLETE) return 0;
    n->pending = 0;
    if (err == 0 && got > 0) {
      const unsigned char *p = (const unsigned char *)n->buf;
      size_t off = 0, head = offsetof(FILE_NOTIFY_INFORMATION, FileName);
      for (;;) {
        const FILE_NOTIFY_INFORMATION *fi = (const FILE_NOTIFY_INFORMATION *)(p + off);
        if (off + head > got || off + head + fi->FileNameLength > got) break;
        reported += rdcw_report(d, fi->FileName, (int)(fi->FileNameLength / sizeof(WCHAR)),
                                fi->Action, fn, ud);
        if (fi->NextEntryOffset == 0) break;
        off += fi->NextEntryOffset;
      }
    } else {
      reported += rdcw_report_dir(d, fn, ud); /* overflowed (0 bytes), aborted or failed */
    }
  }
  if (rdcw_arm(n) != 0) { /* the directory is gone: it stays reported, no longer watched */
    if (!reported) reported += rdcw_report_dir(d, fn, ud);
    rdcw_close(n);
    d->nat = NULL;
  }
  return reported;
}

static int rdcw_wait(psoc_plat_watch *w, uint32_t timeout_ms,
                     void (*fn)(void *, const char *, int), void *ud) {
  ULONGLONG start = GetTickCount64();
  for (;;) {
    HANDLE hs[MAXIMUM_WAIT_OBJECTS];
    DWORD nh = 0, r, slice;
    ULONGLONG spent = GetTickCount64() - start;
    size_t i, active = 0;
    int total = 0;
    hs[nh++] = w->wake.ev;
    for (i = 0; i < w->count; i++) {
      watch_native *n = w->dirs[i].nat;
      if (!n) continue;
      active++;
      if (nh < MAXIMUM_WAIT_OBJECTS) hs[nh++] = n->ov.hEvent; /* always pending here */
    }
    slice = spent >= timeout_ms ? 0 : (DWORD)(timeout_ms - spent);
    if (active + 1 > nh && slice > 10) slice = 10; /* the rest are looked at between slices */
    r = WaitForMultipleObjects(nh, hs, FALSE, slice);
    if (r == WAIT_OBJECT_0) return 0; /* woken (the auto-reset event is consumed) */
    if (r == WAIT_FAILED) return -win_errno(GetLastError());
    for (i = 0; i < w->count; i++) total += rdcw_collect(&w->dirs[i], fn, ud);
    if (total) return total;
    if (GetTickCount64() - start >= timeout_ms) return 0;
  }
}
#endif

int psoc_plat_watch_add(psoc_plat_watch *w, const char *dir) {
  watch_dir *d;
  size_t i, len = strlen(dir);
  psoc_plat_stat_sig sig;
  int exists, e = psoc_plat_stat_sig_get(dir, &sig, &exists);
  if (e) return e;
  if (!exists) return ENOENT;
  if (sig.kind != PSOC_PLAT_DIR) return ENOTDIR;
  while (len > 1 && dir[len - 1] == '/') len--;
  for (i = 0; i < w->count; i++)
    if (strlen(w->dirs[i].path) == len && memcmp(w->dirs[i].path, dir, len) == 0) return 0;
  if (w->count == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 8;
    d = (watch_dir *)realloc(w->dirs, cap * sizeof *d);
    if (!d) return ENOMEM;
    w->dirs = d;
    w->cap = cap;
  }
  d = &w->dirs[w->count];
  memset(d, 0, sizeof *d);
  d->wd = -1;
  if (!(d->path = (char *)malloc(len + 1))) return ENOMEM;
  memcpy(d->path, dir, len);
  d->path[len] = '\0';
#ifdef PSOC_PLAT_HAVE_INOTIFY
  if (w->backend == PSOC_PLAT_WATCH_NATIVE) {
    d->wd = inotify_add_watch(w->ifd, d->path,
                              IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM |
                                  IN_MOVED_TO | IN_ATTRIB | IN_ONLYDIR);
    if (d->wd < 0) {
      e = errno;
      free(d->path);
      return e;
    }
  }
#endif
#ifdef PSOC_PLAT_HAVE_RDCW
  d->nat = NULL;
  if (w->backend == PSOC_PLAT_WATCH_NATIVE && (e = rdcw_open(d->path, &d->nat)) != 0) {
    free(d->path);
    return e;
  }
#endif
  if (w->backend == PSOC_PLAT_WATCH_POLL && scan_dir(w, d, 1, NULL, NULL) < 0) {
    for (i = 0; i < d->count; i++) free(d->entries[i].name);
    free(d->entries);
    free(d->path);
    return ENOMEM;
  }
  w->count++;
  return 0;
}

#ifdef PSOC_PLAT_HAVE_INOTIFY
static int read_inotify(psoc_plat_watch *w, void (*fn)(void *, const char *, int), void *ud) {
  /* aligned as struct inotify_event */
  union {
    struct inotify_event ev;
    char bytes[16384];
  } buf;
  int reported = 0;
  for (;;) {
    ssize_t n = read(w->ifd, buf.bytes, sizeof buf.bytes);
    size_t off = 0;
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    while (off + sizeof(struct inotify_event) <= (size_t)n) {
      const struct inotify_event *ev = (const struct inotify_event *)(buf.bytes + off);
      size_t i;
      off += sizeof *ev + ev->len;
      if (ev->mask & IN_Q_OVERFLOW) { /* events were lost: report every directory */
        for (i = 0; i < w->count; i++) {
          if (fn) fn(ud, w->dirs[i].path, 0);
          reported++;
        }
        continue;
      }
      if (ev->len == 0 || ev->name[0] == '\0') continue;
      for (i = 0; i < w->count; i++) {
        if (w->dirs[i].wd == ev->wd) {
          char full[PSOC_PLAT_PATH_MAX];
          if ((size_t)snprintf(full, sizeof full, "%s/%s", w->dirs[i].path, ev->name) <
              sizeof full) {
            if (fn)
              fn(ud, full,
                 (ev->mask & (IN_MODIFY | IN_CREATE)) && !(ev->mask & IN_ISDIR)
                     ? PSOC_PLAT_WATCH_WRITING
                     : 0);
            reported++;
          }
          break;
        }
      }
    }
  }
  return reported;
}
#endif

int psoc_plat_watch_wait(psoc_plat_watch *w, uint32_t timeout_ms,
                         void (*fn)(void *ud, const char *path, int flags), void *ud) {
  uint32_t t;
  size_t i;
  int r, total = 0;
#ifdef PSOC_PLAT_HAVE_INOTIFY
  if (w->backend == PSOC_PLAT_WATCH_NATIVE) {
    struct pollfd fds[2];
    fds[0].fd = w->wake.fd[0];
    fds[1].fd = w->ifd;
    fds[0].events = fds[1].events = POLLIN;
    fds[0].revents = fds[1].revents = 0;
    r = poll(fds, 2, (int)(timeout_ms > 0x7fffffffu ? 0x7fffffffu : timeout_ms));
    if (r < 0) return errno == EINTR ? 0 : -errno;
    if (fds[0].revents) {
      wake_drain(&w->wake);
      return 0;
    }
    return fds[1].revents ? read_inotify(w, fn, ud) : 0;
  }
#endif
#ifdef PSOC_PLAT_HAVE_RDCW
  if (w->backend == PSOC_PLAT_WATCH_NATIVE) return rdcw_wait(w, timeout_ms, fn, ud);
#endif
  /* poll backend: sleep one interval (or less), then scan */
  t = timeout_ms < w->poll_ms ? timeout_ms : w->poll_ms;
  r = wake_sleep(&w->wake, t);
  if (r != 0) return r < 0 ? r : 0;
  for (i = 0; i < w->count; i++) {
    int n = scan_dir(w, &w->dirs[i], 0, fn, ud);
    if (n < 0) return n;
    total += n;
  }
  return total;
}

void psoc_plat_watch_wake(psoc_plat_watch *w) { wake_signal(&w->wake); }

void psoc_plat_watch_close(psoc_plat_watch *w) {
  size_t i, j;
  if (!w) return;
  for (i = 0; i < w->count; i++) {
    for (j = 0; j < w->dirs[i].count; j++) free(w->dirs[i].entries[j].name);
    free(w->dirs[i].entries);
    free(w->dirs[i].path);
#ifdef PSOC_PLAT_HAVE_RDCW
    rdcw_close(w->dirs[i].nat);
#endif
  }
  free(w->dirs);
#ifdef PSOC_PLAT_HAVE_INOTIFY
  if (w->ifd >= 0) close(w->ifd);
#endif
  wake_close(&w->wake);
  free(w);
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

#else /* _WIN32: a file mapping */

int psoc_plat_map_file(const char *path, psoc_plat_map *m) {
  psoc_plat_file f;
  HANDLE map;
  const void *p;
  int e;
  m->data = NULL;
  m->size = 0;
  m->handle = NULL;
  if ((e = psoc_plat_open_regular(path, &f)) != 0) return e;
  if (f.size > (uint64_t)SIZE_MAX) {
    psoc_plat_close(&f);
    return EFBIG;
  }
  if (f.size == 0) {
    psoc_plat_close(&f);
    return 0;
  }
  map = CreateFileMappingW((HANDLE)f.handle, NULL, PAGE_READONLY, 0, 0, NULL);
  e = map ? 0 : last_errno();
  psoc_plat_close(&f); /* the mapping keeps the file */
  if (e) return e;
  p = MapViewOfFile(map, FILE_MAP_READ, 0, 0, (SIZE_T)f.size);
  if (!p) {
    e = last_errno();
    CloseHandle(map);
    return e;
  }
  m->data = p;
  m->size = (size_t)f.size;
  m->handle = map;
  return 0;
}

void psoc_plat_unmap(psoc_plat_map *m) {
  if (m->data) UnmapViewOfFile(m->data);
  if (m->handle) CloseHandle((HANDLE)m->handle);
  m->data = NULL;
  m->size = 0;
  m->handle = NULL;
}

#endif

int psoc_plat_write_atomic(const char *path, const void *data, size_t size) {
  return replace_with(path, data, size, 1); /* each half's, above */
}

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

#else /* _WIN32 */

int psoc_plat_isatty(int stream) {
  DWORD mode;
  HANDLE h;
  if (stream != 1 && stream != 2) return 0;
  h = GetStdHandle(stream == 1 ? STD_OUTPUT_HANDLE : STD_ERROR_HANDLE);
  return h != NULL && h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode) != 0;
}

unsigned psoc_plat_cpu_count(void) {
  SYSTEM_INFO si;
  GetSystemInfo(&si);
  return si.dwNumberOfProcessors < 1 ? 1u : si.dwNumberOfProcessors > 1024 ? 1024u
                                                                          : (unsigned)si.dwNumberOfProcessors;
}

#endif

int psoc_plat_replace_file(const char *path, const void *data, size_t size) {
  return replace_with(path, data, size, 0); /* each half's, above */
}

/* ---- thread CPU clock (owner s5) ---- */
#ifndef _WIN32
uint64_t psoc_plat_thread_cpu_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#else
uint64_t psoc_plat_thread_cpu_ns(void) {
  FILETIME created, ended, kernel, user;
  if (!GetThreadTimes(GetCurrentThread(), &created, &ended, &kernel, &user)) return 0;
  return ((((uint64_t)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime) +
          (((uint64_t)user.dwHighDateTime << 32) | user.dwLowDateTime)) * 100u;
}
#endif

/* ---- streamed atomic writes (owner t4) ---- */
#ifndef _WIN32
int psoc_plat_file_sync(FILE *f) {
  if (fflush(f) != 0) return errno ? errno : EIO;
  return fsync(fileno(f)) == 0 ? 0 : (errno ? errno : EIO);
}

void psoc_plat_sync_parent(const char *path) {
  char dir[PSOC_PLAT_PATH_MAX];
  if (dir_of(path, dir, sizeof dir) == 0) fsync_dir(dir);
}

void psoc_plat_file_writeback(FILE *f) {
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
  (void)sync_file_range(fileno(f), 0, 0, SYNC_FILE_RANGE_WRITE);
#else
  (void)f;
#endif
}
#else
int psoc_plat_file_sync(FILE *f) {
  HANDLE h;
  if (fflush(f) != 0) return errno ? errno : EIO;
  h = (HANDLE)_get_osfhandle(_fileno(f));
  if (h == INVALID_HANDLE_VALUE) return EBADF;
  return FlushFileBuffers(h) ? 0 : last_errno();
}

void psoc_plat_sync_parent(const char *path) { (void)path; }

void psoc_plat_file_writeback(FILE *f) { (void)f; }
#endif

/* ---- page faults (owner t4) ---- */
#ifndef _WIN32
#include <sys/resource.h>

uint64_t psoc_plat_page_faults(void) {
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return (uint64_t)u.ru_minflt + (uint64_t)u.ru_majflt;
}
#else
/* PSAPI_VERSION 2: GetProcessMemoryInfo is kernel32's K32GetProcessMemoryInfo
** (Windows 7 on), so nothing links psapi.lib */
#ifndef PSAPI_VERSION
#define PSAPI_VERSION 2
#endif
#include <psapi.h>

uint64_t psoc_plat_page_faults(void) {
  PROCESS_MEMORY_COUNTERS c;
  memset(&c, 0, sizeof c);
  c.cb = sizeof c;
  if (!GetProcessMemoryInfo(GetCurrentProcess(), &c, sizeof c)) return 0;
  return (uint64_t)c.PageFaultCount;
}
#endif

/* ---- process heap (owner t5) ---------------------------------------------- */

#if defined(__GLIBC__)
#include <malloc.h>

void psoc_plat_heap_retain(size_t bytes) {
  size_t mmap_max = (size_t)32 << 20; /* glibc's upper bound for M_MMAP_THRESHOLD */
  int keep = bytes > (size_t)INT_MAX ? INT_MAX : (int)bytes;
  size_t pad_max = (size_t)8 << 20;
  mallopt(M_TRIM_THRESHOLD, keep);
  mallopt(M_MMAP_THRESHOLD, bytes > mmap_max ? (int)mmap_max : keep);
  /* each growth of a heap (the main one and every thread's) by this much
  ** more than asked, and as much kept at a trim */
  mallopt(M_TOP_PAD, bytes > pad_max ? (int)pad_max : keep);
}
#else
void psoc_plat_heap_retain(size_t bytes) { (void)bytes; }
#endif

/* ---- huge pages for a large buffer (owner s23-io) ---- */
#if defined(__linux__)
#include <sys/mman.h>
#endif

void *psoc_plat_huge_window(void *p, size_t n, size_t want) {
  uintptr_t a = ((uintptr_t)p + (PSOC_PLAT_HUGE_PAGE - 1)) & ~(uintptr_t)(PSOC_PLAT_HUGE_PAGE - 1);
  if (!p || a < (uintptr_t)p || a - (uintptr_t)p > n || n - (size_t)(a - (uintptr_t)p) < want)
    return p;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  (void)madvise((void *)a, want, MADV_HUGEPAGE);
#endif
  return (void *)a;
}

/* ---- file status for the cook cache (owner u4) ---- */
#ifndef _WIN32
int psoc_plat_file_sig_get(const char *path, int follow, psoc_plat_file_sig *sig) {
  struct stat st;
  memset(sig, 0, sizeof *sig);
  if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) return errno ? errno : ENOENT;
  sig->size = (uint64_t)st.st_size;
  sig->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
  sig->ctime_ns = (uint64_t)st.st_ctim.tv_sec * 1000000000u + (uint64_t)st.st_ctim.tv_nsec;
  sig->ino = (uint64_t)st.st_ino;
  sig->dev = (uint64_t)st.st_dev;
  sig->kind = S_ISREG(st.st_mode) ? PSOC_PLAT_FILE : S_ISDIR(st.st_mode) ? PSOC_PLAT_DIR
              : S_ISLNK(st.st_mode) ? PSOC_PLAT_LINK : PSOC_PLAT_OTHER;
  return 0;
}

/* the watcher's wall clock: the coarse one files are stamped with, so a
** status is never taken "later" than it was */
uint64_t psoc_plat_wall_now_ns(void) { return wall_ns(); }
#else
/* 100 ns ticks since 1601 -> ns since 1970 (filetime_ns's conversion) */
static uint64_t sig_ticks_ns(uint64_t t) {
  FILETIME ft;
  ft.dwLowDateTime = (DWORD)t;
  ft.dwHighDateTime = (DWORD)(t >> 32);
  return filetime_ns(ft);
}

int psoc_plat_file_sig_get(const char *path, int follow, psoc_plat_file_sig *sig) {
  wchar_t w[PSOC_PLAT_PATH_MAX];
  BY_HANDLE_FILE_INFORMATION bh;
  FILE_BASIC_INFO basic;
  HANDLE h;
  int e;
  memset(sig, 0, sizeof *sig);
  if ((e = to_wide(path, w)) != 0) return e;
  h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                  NULL, OPEN_EXISTING,
                  FILE_FLAG_BACKUP_SEMANTICS | (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT), NULL);
  if (h == INVALID_HANDLE_VALUE) return last_errno();
  if (!GetFileInformationByHandle(h, &bh) ||
      !GetFileInformationByHandleEx(h, FileBasicInfo, &basic, sizeof basic)) {
    e = last_errno();
    CloseHandle(h);
    return e;
  }
  CloseHandle(h);
  sig->size = ((uint64_t)bh.nFileSizeHigh << 32) | bh.nFileSizeLow;
  sig->mtime_ns = sig_ticks_ns((uint64_t)basic.LastWriteTime.QuadPart);
  sig->ctime_ns = sig_ticks_ns((uint64_t)basic.ChangeTime.QuadPart);
  sig->ino = ((uint64_t)bh.nFileIndexHigh << 32) | bh.nFileIndexLow;
  sig->dev = bh.dwVolumeSerialNumber;
  sig->kind = (bh.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) && !follow ? PSOC_PLAT_LINK
              : (bh.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? PSOC_PLAT_DIR
                                                                  : PSOC_PLAT_FILE;
  if (sig->kind != PSOC_PLAT_FILE) sig->size = 0;
  return 0;
}

/* coarse, so never ahead of the stamps */
uint64_t psoc_plat_wall_now_ns(void) { return wall_ns(); }
#endif
