/*
** test_sandbox.h: cases of the "sandbox" suite that live in other files.
*/
#ifndef PSOC_TEST_SANDBOX_H
#define PSOC_TEST_SANDBOX_H

#include <check.h>
#include <stddef.h>

#include "psol.h"

/* test_sandbox.c: the scratch tree (a checked fixture; see there for what
** it holds), the options with its root, and an allocator that trusts the
** sizes it is given (a block freed with another size sets 'mismatch'; the
** fail_at-th new block fails, 0: none). */
extern char root_dir[300];
extern char outside_dir[300];
void sandbox_make_tree(void);
void sandbox_remove_tree(void);
psol_options sandbox_options(void);
typedef struct sized_alloc {
  size_t live, bytes, fail_at, calls;
  int mismatch;
} sized_alloc;
void *sized_fn(void *ud, void *ptr, size_t osize, size_t nsize);
/* Fail each of the first 'max' allocations of evaluating 'src' in turn
** (with the sandbox options and sized_fn as the result allocator): the
** result is whole ('pipelines' of them) or PSOC_ERR_NOMEM and leaves
** nothing behind. Returns how many allocations the whole evaluation made. */
size_t alloc_failure_sweep(const char *src, size_t max, size_t pipelines);

/* test_sandbox_limits.c: runaways, charges, memory, print cap, files. */
void sandbox_limit_cases(Suite *s);
/* test_sandbox_confine.c: src/confine.h and the platform calls under it. */
void sandbox_confine_cases(Suite *s);
/* test_sandbox_cache.c: the per-process chunk cache (isolation, edits). */
void sandbox_cache_cases(Suite *s);

#endif
