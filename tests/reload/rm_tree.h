/*
** rm_tree.h: remove a test's scratch folder and everything in it, through
** the platform file. Shared by tests/reload/test_reload.c and
** tests/bench/bench_reload.c (header only: one static function each
** includer uses).
*/
#ifndef PSOC_TESTS_RM_TREE_H
#define PSOC_TESTS_RM_TREE_H

#include <stdio.h>

#include "platform.h"

static int rm_tree_entry(void *ud, const char *name, int kind);

/* Remove 'path': a file, or a folder with all it holds (links are removed,
** never followed). Best effort: what cannot be removed stays. */
static void rm_tree(const char *path) {
  int kind;
  if (psoc_plat_lstat(path, &kind) != 0 || kind == PSOC_PLAT_MISSING) return;
  if (kind == PSOC_PLAT_DIR) psoc_plat_list_dir(path, rm_tree_entry, (void *)path);
  remove(path);
}

static int rm_tree_entry(void *ud, const char *name, int kind) {
  char full[1024];
  (void)kind;
  if ((size_t)snprintf(full, sizeof full, "%s/%s", (const char *)ud, name) < sizeof full)
    rm_tree(full);
  return 0;
}

#endif
