/*
** test_sandbox_confine.c: the one confinement module (src/confine.h) that
** the sandbox, the test library and the CLI share, and the platform calls
** under it (cases of the "sandbox" suite, see test_sandbox.h): resolution
** that never looks outside the roots, lexical absolute paths, reading
** regular files without blocking, and sorted directory listings.
*/
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkfifo, symlink, realpath */
#endif
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confine.h"
#include "test_sandbox.h"

static psoc_confine_root root;
static char real_root[PSOC_CONFINE_PATH_MAX];

static void put(const char *rel, const char *text) {
  char path[PSOC_CONFINE_PATH_MAX + 64];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", root_dir, rel);
  f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "%s", path);
  fputs(text, f);
  fclose(f);
}

static void at(char *out, size_t n, const char *rel) { snprintf(out, n, "%s/%s", root_dir, rel); }

static void setup(void) {
  char path[PSOC_CONFINE_PATH_MAX];
  sandbox_make_tree();
  ck_assert_int_eq(psoc_confine_root_init(&root, root_dir, 0), 0);
  ck_assert_ptr_nonnull(realpath(root_dir, real_root));
  ck_assert_str_eq(root.real, real_root);
  /* a listing tree: ROOT/list/{b.lua, a.lua, a_test.lua, .hidden.lua, z/c.lua,
  ** m/d.lua, link.lua -> a.lua, dirlink -> z, fifo.lua} */
  at(path, sizeof path, "list");
  ck_assert_int_eq(mkdir(path, 0700), 0);
  at(path, sizeof path, "list/z");
  ck_assert_int_eq(mkdir(path, 0700), 0);
  at(path, sizeof path, "list/m");
  ck_assert_int_eq(mkdir(path, 0700), 0);
  put("list/b.lua", "b");
  put("list/a.lua", "a");
  put("list/a_test.lua", "t");
  put("list/.hidden.lua", "h");
  put("list/z/c.lua", "c");
  put("list/m/d.lua", "d");
  at(path, sizeof path, "list/link.lua");
  ck_assert_int_eq(symlink("a.lua", path), 0);
  at(path, sizeof path, "list/dirlink");
  ck_assert_int_eq(symlink("z", path), 0);
  at(path, sizeof path, "list/fifo.lua");
  ck_assert_int_eq(mkfifo(path, 0600), 0);
}

static void teardown(void) {
  static const char *const rels[] = { "list/b.lua", "list/a.lua", "list/a_test.lua",
                                      "list/.hidden.lua", "list/z/c.lua", "list/m/d.lua",
                                      "list/link.lua", "list/dirlink", "list/fifo.lua",
                                      "list/z", "list/m", "list", "d/f.txt", "d/sub", "d",
                                      "d_old/f.txt", "d_old/sub", "d_old", "lnk", "alnk",
                                      "esc2", "../outside/f.txt", NULL };
  char path[PSOC_CONFINE_PATH_MAX];
  int i;
  for (i = 0; rels[i]; i++) {
    at(path, sizeof path, rels[i]);
    if (remove(path) != 0) rmdir(path);
  }
  psoc_confine_root_free(&root);
  sandbox_remove_tree();
}

static int resolve(const char *rel, char *out) {
  char path[PSOC_CONFINE_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", real_root, rel);
  return psoc_confine_resolve(&root, 1, path, out);
}

/* psoc_confine_join: "." adds nothing, a trailing slash is not doubled, and
** a result longer than the buffer is cut with its NUL (as snprintf did). */
START_TEST(test_join) {
  char out[16];
  psoc_confine_join(out, sizeof out, "a/b", "c.lua");
  ck_assert_str_eq(out, "a/b/c.lua");
  psoc_confine_join(out, sizeof out, "a/b/", "c.lua");
  ck_assert_str_eq(out, "a/b/c.lua");
  psoc_confine_join(out, sizeof out, ".", "c.lua");
  ck_assert_str_eq(out, "c.lua");
  psoc_confine_join(out, sizeof out, "", "c");
  ck_assert_str_eq(out, "/c");
  psoc_confine_join(out, sizeof out, "/", "c");
  ck_assert_str_eq(out, "/c");
  psoc_confine_join(out, sizeof out, "0123456789", "abcdefgh");
  ck_assert_str_eq(out, "0123456789/abcd");
  psoc_confine_join(out, sizeof out, "0123456789abcdefghij", "x");
  ck_assert_str_eq(out, "0123456789abcde");
  psoc_confine_join(out, 1, "a", "b");
  ck_assert_str_eq(out, "");
  out[0] = 'z';
  psoc_confine_join(out, 0, "a", "b"); /* no room: nothing written */
  ck_assert_int_eq(out[0], 'z');
}
END_TEST

START_TEST(test_resolve_confined) {
  char out[PSOC_CONFINE_PATH_MAX], want[PSOC_CONFINE_PATH_MAX + 32];
  ck_assert_int_eq(resolve("cs.cso", out), PSOC_CONFINE_FOUND);
  snprintf(want, sizeof want, "%s/cs.cso", real_root);
  ck_assert_str_eq(out, want);
  ck_assert_int_eq(resolve("lib/../cs.cso", out), PSOC_CONFINE_FOUND);
  ck_assert_str_eq(out, want);
  ck_assert_int_eq(resolve("list/link.lua", out), PSOC_CONFINE_FOUND); /* a link inside */
  snprintf(want, sizeof want, "%s/list/a.lua", real_root);
  ck_assert_str_eq(out, want);
  /* missing inside: the canonical path it would have */
  ck_assert_int_eq(resolve("lib/none/x.cso", out), PSOC_CONFINE_MISSING);
  snprintf(want, sizeof want, "%s/lib/none/x.cso", real_root);
  ck_assert_str_eq(out, want);
  /* every way out leaves, whether or not the target exists */
  ck_assert_int_eq(resolve("../outside/secret.cso", out), PSOC_CONFINE_LEAVES);
  ck_assert_int_eq(resolve("../outside/nothing.cso", out), PSOC_CONFINE_LEAVES);
  ck_assert_int_eq(resolve("escape/secret.cso", out), PSOC_CONFINE_LEAVES);
  ck_assert_int_eq(resolve("escape/nothing.cso", out), PSOC_CONFINE_LEAVES);
  ck_assert_int_eq(psoc_confine_resolve(&root, 1, "/etc/passwd", out), PSOC_CONFINE_LEAVES);
  ck_assert_int_eq(psoc_confine_resolve(&root, 0, want, out), PSOC_CONFINE_LEAVES); /* no roots */
  ck_assert_int_eq(psoc_confine_place(&root, 1, real_root), PSOC_CONFINE_INSIDE);
  ck_assert_int_eq(psoc_confine_place(&root, 1, "/"), PSOC_CONFINE_ABOVE);
  ck_assert_int_eq(psoc_confine_place(&root, 1, "/nonexistent-elsewhere"), PSOC_CONFINE_OUTSIDE);
  ck_assert(psoc_confine_inside("/a/b", "/a"));
  ck_assert(!psoc_confine_inside("/ab", "/a"));
  ck_assert(psoc_confine_inside("/x", "/"));
}
END_TEST

START_TEST(test_absolute_lexical) {
  char out[PSOC_CONFINE_PATH_MAX], cwd[PSOC_CONFINE_PATH_MAX], want[PSOC_CONFINE_PATH_MAX + 8];
  psoc_confine_root r;
  ck_assert_int_eq(psoc_confine_absolute("/a/./b/../c//d", out), 0);
  ck_assert_str_eq(out, "/a/c/d");
  ck_assert_int_eq(psoc_confine_absolute("/..", out), 0);
  ck_assert_str_eq(out, "/");
  ck_assert_int_eq(psoc_plat_realpath(".", cwd), 0);
  ck_assert_int_eq(psoc_confine_absolute("x/../y", out), 0);
  snprintf(want, sizeof want, "%s/y", strcmp(cwd, "/") == 0 ? "" : cwd);
  ck_assert_str_eq(out, want);
  /* a root that does not exist: refused, or lexical when files are virtual */
  ck_assert_int_eq(psoc_confine_root_init(&r, "/psoc-no-such/dir", 0), ENOENT);
  ck_assert_ptr_null(r.real);
  ck_assert_int_eq(psoc_confine_root_init(&r, "/psoc-no-such/./dir/", 1), 0);
  ck_assert_str_eq(r.real, "/psoc-no-such/dir");
  ck_assert_str_eq(r.shown, "/psoc-no-such/./dir/");
  psoc_confine_root_free(&r);
  ck_assert_int_eq(psoc_confine_root_init_dirname(&r, "/psoc-no-such/m/a.lua", 1), 0);
  ck_assert_str_eq(r.real, "/psoc-no-such/m");
  psoc_confine_root_free(&r);
}
END_TEST

static int allocs;
static void *count_alloc(void *ud, size_t size) {
  (void)ud;
  allocs++;
  return malloc(size);
}

START_TEST(test_read_regular_only) {
  char path[PSOC_CONFINE_PATH_MAX];
  void *data = NULL;
  size_t size = 99;
  int kind;
  uint64_t fsize;
  allocs = 0;
  at(path, sizeof path, "list/b.lua");
  ck_assert_int_eq(psoc_confine_read(path, 100, count_alloc, NULL, &data, &size), 0);
  ck_assert_uint_eq(size, 1);
  ck_assert_int_eq(memcmp(data, "b", 1), 0);
  free(data);
  /* too large: refused before anything is allocated */
  at(path, sizeof path, "list/z/c.lua");
  ck_assert_int_eq(psoc_confine_read(path, 0, count_alloc, NULL, &data, &size),
                   PSOC_CONFINE_TOO_LARGE);
  ck_assert_str_eq(psoc_confine_strerror(PSOC_CONFINE_TOO_LARGE), "larger than the memory limit");
  ck_assert_int_eq(allocs, 1);
  /* a FIFO without a writer: refused at once, never opened for a blocking read */
  at(path, sizeof path, "list/fifo.lua");
  ck_assert_int_eq(psoc_confine_read(path, 100, count_alloc, NULL, &data, &size),
                   PSOC_PLAT_ENOTREG);
  ck_assert_int_eq(allocs, 1);
  ck_assert_int_eq(psoc_plat_stat(path, &kind, &fsize), 0);
  ck_assert_int_eq(kind, PSOC_PLAT_FIFO);
  ck_assert_str_eq(psoc_plat_kind_name(kind), "a FIFO");
  at(path, sizeof path, "list/dirlink");
  ck_assert_int_eq(psoc_plat_lstat(path, &kind), 0);
  ck_assert_int_eq(kind, PSOC_PLAT_LINK);
  ck_assert_int_eq(psoc_plat_stat(path, &kind, NULL), 0);
  ck_assert_int_eq(kind, PSOC_PLAT_DIR);
  at(path, sizeof path, "list/a.lua");
  ck_assert_int_eq(psoc_plat_stat(path, &kind, &fsize), 0);
  ck_assert_int_eq(kind, PSOC_PLAT_FILE);
  ck_assert_uint_eq(fsize, 1);
  at(path, sizeof path, "list/none");
  ck_assert_int_eq(psoc_plat_stat(path, &kind, NULL), 0);
  ck_assert_int_eq(kind, PSOC_PLAT_MISSING);
}
END_TEST

START_TEST(test_sorted_listing) {
  static const char *const want[] = { "a.lua", "b.lua", "link.lua", "m/d.lua", "z/c.lua" };
  char dir[PSOC_CONFINE_PATH_MAX], path[PSOC_CONFINE_PATH_MAX + 16];
  psoc_confine_paths l;
  size_t i;
  memset(&l, 0, sizeof l);
  at(dir, sizeof dir, "list");
  /* sorted at each level; not the hidden file, the _test file, the FIFO or
  ** what is behind the symlinked folder */
  ck_assert_int_eq(psoc_confine_list(dir, ".lua", "_test.lua", 8, 100, &l), 0);
  ck_assert_uint_eq(l.count, 5);
  for (i = 0; i < l.count; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, want[i]);
    ck_assert_str_eq(l.items[i], path);
  }
  psoc_confine_paths_free(&l);
  ck_assert_int_eq(psoc_confine_list(dir, "_test.lua", NULL, 8, 100, &l), 0);
  ck_assert_uint_eq(l.count, 1);
  psoc_confine_paths_free(&l);
  ck_assert_int_eq(psoc_confine_list(dir, ".lua", "_test.lua", 0, 100, &l), 0); /* no depth */
  ck_assert_uint_eq(l.count, 3);
  psoc_confine_paths_free(&l);
  ck_assert_int_eq(psoc_confine_list(dir, ".lua", "_test.lua", 8, 4, &l), E2BIG);
  psoc_confine_paths_free(&l);
  at(dir, sizeof dir, "list/none");
  ck_assert_int_eq(psoc_confine_list(dir, ".lua", NULL, 8, 100, &l), ENOENT);
  ck_assert_uint_eq(l.count, 0);
}
END_TEST

static int refuse(void *ud, const psoc_plat_file_id *id) {
  *(psoc_plat_file_id *)ud = *id;
  return 0;
}

/* The writing calls: a temporary file next to the target with the
** permissions of a new file, renamed over it; mkdir -p's step; identities;
** standard output pointed only at a regular file the caller accepts. */
START_TEST(test_platform_writes) {
  char path[PSOC_CONFINE_PATH_MAX], tmp[PSOC_PLAT_PATH_MAX], dir[PSOC_CONFINE_PATH_MAX];
  psoc_plat_file_id a, b, seen;
  struct stat st;
  FILE *f;
  int kind;
  uint64_t size;
  mode_t mask = umask(022);
  at(path, sizeof path, "list/report.xml");
  put("list/report.xml", "old");
  ck_assert_int_eq(psoc_plat_temp_create(path, tmp, &f), 0);
  ck_assert_msg(strncmp(tmp, path, strlen(path)) == 0 && strstr(tmp, ".tmp.") != NULL, "%s", tmp);
  fputs("new", f);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(stat(tmp, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0644);
  ck_assert_int_eq(psoc_plat_rename(tmp, path), 0);
  ck_assert_int_eq(psoc_plat_stat(tmp, &kind, NULL), 0);
  ck_assert_int_eq(kind, PSOC_PLAT_MISSING); /* renamed away */
  ck_assert_int_eq(psoc_plat_stat(path, &kind, &size), 0);
  ck_assert_uint_eq(size, 3);
  ck_assert_int_eq(psoc_plat_file_id_of(path, &a), 0);
  at(dir, sizeof dir, "list/link.lua");
  ck_assert_int_eq(psoc_plat_file_id_of(dir, &b), 0); /* -> a.lua */
  ck_assert(!psoc_plat_same_file(&a, &b));
  at(dir, sizeof dir, "list/a.lua");
  ck_assert_int_eq(psoc_plat_file_id_of(dir, &a), 0);
  ck_assert(psoc_plat_same_file(&a, &b));
  /* the accept callback sees the file opened, and nothing is truncated */
  ck_assert_int_eq(psoc_plat_redirect_stdout(dir, refuse, &seen), PSOC_PLAT_EREFUSED);
  ck_assert(psoc_plat_same_file(&seen, &a));
  ck_assert_int_eq(stat(dir, &st), 0);
  ck_assert_int_eq(st.st_size, 1);
  at(dir, sizeof dir, "list/fifo.lua"); /* no reader: refused at once */
  ck_assert_int_ne(psoc_plat_redirect_stdout(dir, refuse, &seen), 0);
  at(dir, sizeof dir, "list/link.lua"); /* never through a symlink */
  ck_assert_int_ne(psoc_plat_redirect_stdout(dir, refuse, &seen), 0);
  ck_assert_int_eq(psoc_plat_remove(path), 0);
  ck_assert_int_eq(psoc_plat_remove(path), ENOENT);
  at(dir, sizeof dir, "list/z");
  ck_assert_int_eq(psoc_plat_mkdir(dir), 0); /* exists: fine */
  at(dir, sizeof dir, "list/a.lua");
  ck_assert_int_eq(psoc_plat_mkdir(dir), ENOTDIR);
  at(dir, sizeof dir, "list/new");
  ck_assert_int_eq(psoc_plat_mkdir(dir), 0);
  ck_assert_int_eq(rmdir(dir), 0);
  umask(mask);
}
END_TEST

/* psoc_confine_open answers exactly what the walk (psoc_confine_resolve,
** then psoc_confine_read) answers, whether the kernel's confined lookup
** answers it (plain paths, missing files, directories, FIFOs, files over
** the limit) or the walk has to (a symlink in the middle, ".." after a
** symlink, a relative or absolute symlink out, ".." above the root and
** back, ".." after a missing component or after a file). */
static const char *const open_cases[] = {
  "cs.cso", "lib/../cs.cso", "list/link.lua", "lnk/f.txt", "lnk/../cs.cso",
  "lnk/../../outside/secret.cso", "lnk/sub/../f.txt", "alnk/f.txt", "alnk/../cs.cso",
  "escape/secret.cso", "escape/nothing.cso", "escape/../root/cs.cso", "esc2/secret.cso",
  "esc2/../root/cs.cso", "d/none/../f.txt", "d/none/../../../outside/secret.cso",
  "d/f.txt/../f.txt", "d/f.txt/", "d/f.txt/.", "d//f.txt", "./d/./f.txt", "d", "d/", "",
  "list/fifo.lua", "list/dirlink/c.lua", "none.cso", "none/x.cso", "d/f.txt/x",
  "../root/cs.cso", "../outside/secret.cso", "d/sub/../../cs.cso", "d/sub/../../../outside",
  "../../../../../../../../etc/passwd", NULL
};

static void same_as_walk(const char *rel, uint64_t limit) {
  char path[PSOC_CONFINE_PATH_MAX + 64], walked[PSOC_CONFINE_PATH_MAX],
      opened[PSOC_CONFINE_PATH_MAX];
  psoc_confine_file file;
  void *a = NULL, *b = NULL;
  size_t na = 0, nb = 0;
  int r1, r2, e1, e2;
  snprintf(path, sizeof path, "%s/%s", real_root, rel);
  r1 = psoc_confine_resolve(&root, 1, path, walked);
  r2 = psoc_confine_open(&root, 1, path, limit, opened, &file);
  ck_assert_msg(r1 == r2, "'%s': walk %d, open %d", rel, r1, r2);
  if (r1 == PSOC_CONFINE_FOUND || r1 == PSOC_CONFINE_MISSING)
    ck_assert_msg(strcmp(walked, opened) == 0, "'%s': %s vs %s", rel, walked, opened);
  if (r1 != PSOC_CONFINE_FOUND) {
    ck_assert_msg(!file.open, "'%s': left open", rel);
    return;
  }
  e1 = psoc_confine_read(walked, limit, count_alloc, NULL, &a, &na);
  e2 = psoc_confine_read_file(&file, count_alloc, NULL, &b, &nb);
  ck_assert_msg(e1 == e2, "'%s': read %d vs %d", rel, e1, e2);
  ck_assert_msg(!file.open, "'%s': still open", rel);
  ck_assert_uint_eq(na, nb);
  if (e1 == 0) ck_assert_int_eq(memcmp(a, b, na), 0);
  free(a);
  free(b);
}

START_TEST(test_open_matches_walk) {
  char path[PSOC_CONFINE_PATH_MAX + 16], target[PSOC_CONFINE_PATH_MAX + 16], out[PSOC_CONFINE_PATH_MAX];
  psoc_plat_dirh probe;
  psoc_confine_file file;
  int fast, i;
  at(path, sizeof path, "d");
  ck_assert_int_eq(mkdir(path, 0700), 0);
  at(path, sizeof path, "d/sub");
  ck_assert_int_eq(mkdir(path, 0700), 0);
  put("d/f.txt", "F");
  at(path, sizeof path, "lnk");
  ck_assert_int_eq(symlink("d", path), 0);
  at(path, sizeof path, "alnk");
  snprintf(target, sizeof target, "%s/d", real_root);
  ck_assert_int_eq(symlink(target, path), 0);
  at(path, sizeof path, "esc2");
  ck_assert_int_eq(symlink("../outside", path), 0);
  for (i = 0; open_cases[i]; i++) {
    same_as_walk(open_cases[i], 1000);
    same_as_walk(open_cases[i], 0); /* every file over the limit */
  }
  /* where the platform has confined opens, the root's handle was used */
  fast = psoc_plat_dirh_open(real_root, &probe) == 0;
  if (fast) psoc_plat_dirh_close(&probe);
  ck_assert_int_eq(root.dir_state, fast ? PSOC_CONFINE_DIR_OPEN : PSOC_CONFINE_DIR_UNAVAILABLE);
  /* a directory swapped for a symlink out while the root's handle is
  ** open: the next lookup through it leaves, as the walk says */
  at(path, sizeof path, "d");
  at(target, sizeof target, "d_old");
  ck_assert_int_eq(rename(path, target), 0);
  snprintf(target, sizeof target, "%s", outside_dir);
  ck_assert_int_eq(symlink(target, path), 0);
  put("../outside/f.txt", "outside");
  snprintf(path, sizeof path, "%s/d/f.txt", real_root);
  ck_assert_int_eq(psoc_confine_open(&root, 1, path, 1000, out, &file), PSOC_CONFINE_LEAVES);
  ck_assert(!file.open);
  same_as_walk("d/f.txt", 1000);
  same_as_walk("d/secret.cso", 1000);
  same_as_walk("d_old/f.txt", 1000);
  psoc_confine_root_close_dir(&root);
  ck_assert_int_eq(root.dir_state, PSOC_CONFINE_DIR_NONE);
  same_as_walk("d/f.txt", 1000);
}
END_TEST

void sandbox_confine_cases(Suite *s) {
  TCase *tc = tcase_create("confine");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_join);
  tcase_add_test(tc, test_resolve_confined);
  tcase_add_test(tc, test_absolute_lexical);
  tcase_add_test(tc, test_read_regular_only);
  tcase_add_test(tc, test_open_matches_walk);
  tcase_add_test(tc, test_sorted_listing);
  tcase_add_test(tc, test_platform_writes);
  suite_add_tcase(s, tc);
}
