/*
** The Win32 half of the platform watcher (src/platform.c, section "file
** watching"), both backends, driven directly: create, write, an atomic
** rename over a file (both names for the native backend), delete, two
** files at once, a new subfolder, UTF-8 names, a path in the POSIX view
** ("/C:/dir"), the WRITING flag (an empty file just made), 70 folders
** (more than one WaitForMultipleObjects), a watched folder removed, and
** the wake-up (before a wait and from another thread).
** Cross-compiled with mingw-w64 and run under wine by ../test_watch_win32.sh
** (in a folder of its own: not part of the Linux psoc_reload_tests):
**
**   test_watch_win32.exe SCRATCH_DIR      (exit status 0: all passed)
**   test_watch_win32.exe --overflow DIR   (built with a tiny read buffer)
**
** Every wait is bounded (EXPECT_MS); nothing sleeps except the thread
** that wakes the watcher.
*/
#include "platform.h"

#include <windows.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPECT_MS 5000u
#define MAX_SEEN 256

static int fails;

static void check(int ok, const char *what) {
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) fails++;
}

typedef struct seen_t {
  char *path[MAX_SEEN];
  int flags[MAX_SEEN];
  int n, calls;
} seen_t;

static void seen_clear(seen_t *s) {
  int i;
  for (i = 0; i < s->n; i++) free(s->path[i]);
  s->n = 0;
  s->calls = 0;
}

static void collect(void *ud, const char *path, int flags) {
  seen_t *s = (seen_t *)ud;
  size_t len = strlen(path) + 1;
  s->calls++;
  if (s->n == MAX_SEEN) return;
  if (!(s->path[s->n] = (char *)malloc(len))) return;
  memcpy(s->path[s->n], path, len);
  s->flags[s->n++] = flags;
}

static int seen_has(const seen_t *s, const char *path) {
  int i;
  for (i = 0; i < s->n; i++)
    if (strcmp(s->path[i], path) == 0) return 1;
  return 0;
}

/* Wait (bounded) until every path of want[] has been reported. */
static int expect(psoc_plat_watch *w, seen_t *s, const char *const *want, int nwant) {
  ULONGLONG start = GetTickCount64();
  for (;;) {
    int i, all = 1, r;
    for (i = 0; i < nwant; i++)
      if (!seen_has(s, want[i])) all = 0;
    if (all) return 1;
    if (GetTickCount64() - start > EXPECT_MS) break;
    r = psoc_plat_watch_wait(w, 50, collect, s);
    if (r < 0) {
      printf("     psoc_plat_watch_wait: %d\n", r);
      return 0;
    }
  }
  {
    int i;
    printf("     wanted:");
    for (i = 0; i < nwant; i++) printf(" %s", want[i]);
    printf("\n     seen:");
    for (i = 0; i < s->n; i++) printf(" %s", s->path[i]);
    printf("\n");
  }
  return 0;
}

static int expect1(psoc_plat_watch *w, seen_t *s, const char *path) {
  return expect(w, s, &path, 1);
}

/* Take what is still coming (until a quiet 100 ms, bounded). */
static void drain(psoc_plat_watch *w, seen_t *s) {
  int i;
  for (i = 0; i < 50 && psoc_plat_watch_wait(w, 100, collect, s) > 0; i++) {
  }
  seen_clear(s);
}

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  fputs(text, f);
  return fclose(f) == 0;
}

static int append_file(const char *path, const char *text) {
  FILE *f = fopen(path, "ab");
  if (!f) return 0;
  fputs(text, f);
  return fclose(f) == 0;
}

/* A UTF-8 path to UTF-16, for the calls of the test itself. */
static void wide(const char *u, wchar_t *w, int n) {
  MultiByteToWideChar(CP_UTF8, 0, u, -1, w, n);
}

static int write_file_utf8(const char *path, const char *text) {
  wchar_t w[MAX_PATH * 2];
  HANDLE h;
  DWORD got;
  BOOL ok;
  wide(path, w, MAX_PATH * 2);
  h = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
  if (h == INVALID_HANDLE_VALUE) return 0;
  ok = WriteFile(h, text, (DWORD)strlen(text), &got, NULL);
  return CloseHandle(h) && ok;
}

typedef struct waker_t {
  psoc_plat_watch *w;
  DWORD delay_ms;
} waker_t;

static DWORD WINAPI waker(LPVOID p) {
  waker_t *k = (waker_t *)p;
  Sleep(k->delay_ms);
  psoc_plat_watch_wake(k->w);
  return 0;
}

static void run(const char *base, int backend) {
  const char *bn = backend == PSOC_PLAT_WATCH_NATIVE ? "native" : "poll";
  char dir[MAX_PATH], a[MAX_PATH], tmp[MAX_PATH], b[MAX_PATH], c[MAX_PATH], sub[MAX_PATH];
  char what[256], udir[MAX_PATH], uname[MAX_PATH];
  psoc_plat_watch *w = NULL;
  seen_t s;
  int e, r;
  memset(&s, 0, sizeof s);
  snprintf(dir, sizeof dir, "%s/%s", base, bn);
  snprintf(a, sizeof a, "%s/a.lua", dir);
  snprintf(tmp, sizeof tmp, "%s/a.lua.tmp", dir);
  snprintf(b, sizeof b, "%s/b.lua", dir);
  snprintf(c, sizeof c, "%s/c.lua", dir);
  snprintf(sub, sizeof sub, "%s/sub", dir);
  CreateDirectoryA(dir, NULL);

#define CHECK(ok, text)                                                                        \
  do {                                                                                         \
    snprintf(what, sizeof what, "%s: %s", bn, text);                                           \
    check((ok), what);                                                                         \
  } while (0)

  e = psoc_plat_watch_open(&w, backend, 10);
  CHECK(e == 0 && w, "open");
  if (e || !w) return;
  CHECK(psoc_plat_watch_backend(w) == backend, "the backend asked for");
  CHECK(psoc_plat_watch_add(w, dir) == 0, "add");
  CHECK(psoc_plat_watch_add(w, dir) == 0, "add twice: no-op");
  {
    char missing[MAX_PATH];
    snprintf(missing, sizeof missing, "%s/missing", dir);
    CHECK(psoc_plat_watch_add(w, missing) == ENOENT, "add a missing folder: ENOENT");
  }
  r = psoc_plat_watch_wait(w, 0, collect, &s);
  CHECK(r == 0 && s.calls == 0, "nothing changed: wait(0) reports nothing");

  CHECK(write_file(a, "one") && expect1(w, &s, a), "create a file");
  CHECK(s.flags[s.n - 1] == 0, "a written file is not WRITING");
  drain(w, &s);
  {
    char empty[MAX_PATH];
    int i, writing = 0;
    snprintf(empty, sizeof empty, "%s/empty.lua", dir);
    CHECK(write_file(empty, "") && expect1(w, &s, empty), "create an empty file");
    for (i = 0; i < s.n; i++)
      if (strcmp(s.path[i], empty) == 0 && (s.flags[i] & PSOC_PLAT_WATCH_WRITING)) writing = 1;
    CHECK(writing, "an empty file just made is WRITING (truncate-then-write)");
    drain(w, &s);
    DeleteFileA(empty);
    drain(w, &s);
  }
  CHECK(append_file(a, " two") && expect1(w, &s, a), "write to it");
  drain(w, &s);
  {
    int ok = write_file(tmp, "three") && MoveFileExA(tmp, a, MOVEFILE_REPLACE_EXISTING);
    CHECK(ok && expect1(w, &s, a), "atomic rename over it (editor's save)");
    if (backend == PSOC_PLAT_WATCH_NATIVE) CHECK(seen_has(&s, tmp), "rename: the old name too");
  }
  drain(w, &s);
  CHECK(DeleteFileA(a) && expect1(w, &s, a), "delete");
  drain(w, &s);
  {
    const char *both[2];
    both[0] = b;
    both[1] = c;
    CHECK(write_file(b, "b") && write_file(c, "c") && expect(w, &s, both, 2),
          "two files at once: both");
  }
  drain(w, &s);
  CHECK(CreateDirectoryA(sub, NULL) && expect1(w, &s, sub), "a new subfolder");
  drain(w, &s);
  {
    /* "\xc3\xa9" is U+00E9: the name goes through UTF-16 both ways */
    snprintf(uname, sizeof uname, "%s/caf\xc3\xa9.lua", dir);
    CHECK(write_file_utf8(uname, "x") && expect1(w, &s, uname), "a UTF-8 file name");
  }
  drain(w, &s);

  /* wake: before the wait, and from another thread during it */
  {
    ULONGLONG t0;
    psoc_plat_watch_wake(w);
    t0 = GetTickCount64();
    r = psoc_plat_watch_wait(w, 20000, collect, &s);
    CHECK(r == 0 && GetTickCount64() - t0 < EXPECT_MS, "wake before wait: returns 0 at once");
  }
  {
    waker_t k;
    HANDLE th;
    ULONGLONG t0, dt;
    k.w = w;
    k.delay_ms = 100;
    th = CreateThread(NULL, 0, waker, &k, 0, NULL);
    t0 = GetTickCount64();
    r = psoc_plat_watch_wait(w, 20000, collect, &s);
    dt = GetTickCount64() - t0;
    CHECK(th && r == 0 && dt < EXPECT_MS, "wake from another thread ends the wait");
    if (th) {
      WaitForSingleObject(th, INFINITE);
      CloseHandle(th);
    }
  }
  /* after a wake the watcher still works */
  CHECK(write_file(b, "b2") && expect1(w, &s, b), "after a wake: still reporting");
  drain(w, &s);
  psoc_plat_watch_close(w);
  w = NULL;

  /* a folder with a UTF-8 name, given in the POSIX view "/C:/..." when
  ** the base is a drive path */
  {
    char full[MAX_PATH], file[MAX_PATH];
    wchar_t wd[MAX_PATH];
    snprintf(udir, sizeof udir, "%s/d\xc3\xa9j\xc3\xa0", dir);
    wide(udir, wd, MAX_PATH);
    CreateDirectoryW(wd, NULL);
    if (GetFullPathNameA(dir, sizeof full, full, NULL) && full[1] == ':') {
      char *p;
      for (p = full; *p; p++)
        if (*p == '\\') *p = '/';
      snprintf(udir, sizeof udir, "/%s/d\xc3\xa9j\xc3\xa0", full);
    }
    snprintf(file, sizeof file, "%s/m.lua", udir);
    e = psoc_plat_watch_open(&w, backend, 10);
    CHECK(e == 0 && psoc_plat_watch_add(w, udir) == 0, "add a UTF-8 folder as /C:/...");
    if (e == 0) {
      /* the test writes through the plain drive path */
      char plain[MAX_PATH];
      snprintf(plain, sizeof plain, "%s/m.lua", udir[0] == '/' && udir[2] == ':' ? udir + 1 : udir);
      CHECK(write_file_utf8(plain, "m") && expect1(w, &s, file),
            "a change in it is reported as DIR/NAME with DIR as given");
      psoc_plat_watch_close(w);
    }
  }
  seen_clear(&s);

  /* more folders than one WaitForMultipleObjects takes (63 beside the
  ** wake event): a change in the last one is still seen */
  {
    char many[MAX_PATH], last[MAX_PATH], file[MAX_PATH];
    int i, ok = 1;
    e = psoc_plat_watch_open(&w, backend, 10);
    ok = e == 0;
    for (i = 0; ok && i < 70; i++) {
      snprintf(many, sizeof many, "%s/many%02d", dir, i);
      CreateDirectoryA(many, NULL);
      ok = psoc_plat_watch_add(w, many) == 0;
      memcpy(last, many, sizeof last);
    }
    CHECK(ok, "add 70 folders");
    if (ok) {
      snprintf(file, sizeof file, "%s/x.lua", last);
      CHECK(write_file(file, "x") && expect1(w, &s, file), "70 folders: a change in the 70th");
    }
    if (e == 0) psoc_plat_watch_close(w);
    seen_clear(&s);
  }

  /* a watched folder removed: its files are reported gone, and waiting
  ** goes on without an error (Windows completes the pending read with an
  ** error, reported as the folder itself; wine leaves it pending) */
  {
    char gone[MAX_PATH];
    snprintf(gone, sizeof gone, "%s/gone", dir);
    CreateDirectoryA(gone, NULL);
    e = psoc_plat_watch_open(&w, backend, 10);
    CHECK(e == 0 && psoc_plat_watch_add(w, gone) == 0, "add a folder to remove");
    if (e == 0) {
      char f[MAX_PATH];
      snprintf(f, sizeof f, "%s/f.lua", gone);
      CHECK(write_file(f, "f") && expect1(w, &s, f), "a file in it");
      drain(w, &s);
      CHECK(DeleteFileA(f) && RemoveDirectoryA(gone) && expect1(w, &s, f),
            "remove it: its file reported gone");
      drain(w, &s);
      r = psoc_plat_watch_wait(w, 0, collect, &s);
      CHECK(r >= 0, "wait after the folder went: no error");
      psoc_plat_watch_close(w);
    }
    seen_clear(&s);
  }
#undef CHECK
}

/* Built with a read buffer too small for a batch (PSOC_PLAT_RDCW_BUFFER):
** the notifications are lost and the directory itself is reported, so the
** caller rescans it; the watcher goes on working after that. */
static void overflow(const char *base) {
  char dir[MAX_PATH], f[MAX_PATH];
  psoc_plat_watch *w = NULL;
  seen_t s;
  int i, ok = 1;
  memset(&s, 0, sizeof s);
  snprintf(dir, sizeof dir, "%s/overflow", base);
  CreateDirectoryA(dir, NULL);
  if (psoc_plat_watch_open(&w, PSOC_PLAT_WATCH_NATIVE, 0) != 0 || psoc_plat_watch_add(w, dir) != 0) {
    check(0, "overflow: open and add");
    return;
  }
  for (i = 0; i < 40; i++) { /* far more than 64 bytes of notifications */
    snprintf(f, sizeof f, "%s/a_rather_long_file_name_%02d.lua", dir, i);
    ok = ok && write_file(f, "x");
  }
  check(ok && expect1(w, &s, dir), "overflow: the directory itself is reported (rescan)");
  drain(w, &s);
  snprintf(f, sizeof f, "%s/z.lua", dir);
  check(write_file(f, "z") && expect1(w, &s, f), "overflow: still watching after it");
  seen_clear(&s);
  psoc_plat_watch_close(w);
}

int main(int argc, char **argv) {
  psoc_plat_watch *w = NULL;
  if (argc == 3 && strcmp(argv[1], "--overflow") == 0) {
    CreateDirectoryA(argv[2], NULL);
    overflow(argv[2]);
    printf("test_watch_win32 --overflow: %s\n", fails ? "FAILED" : "all passed");
    return fails ? 1 : 0;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: test_watch_win32 [--overflow] SCRATCH_DIR\n");
    return 2;
  }
  CreateDirectoryA(argv[1], NULL);
  check(psoc_plat_watch_open(&w, PSOC_PLAT_WATCH_AUTO, 0) == 0 && w &&
            psoc_plat_watch_backend(w) == PSOC_PLAT_WATCH_NATIVE,
        "AUTO picks the native backend (ReadDirectoryChangesW)");
  psoc_plat_watch_close(w);
  run(argv[1], PSOC_PLAT_WATCH_NATIVE);
  run(argv[1], PSOC_PLAT_WATCH_POLL);
  if (fails) {
    printf("test_watch_win32: %d failure(s)\n", fails);
    return 1;
  }
  printf("test_watch_win32: all passed\n");
  return 0;
}
