/*
** test_embed.c: the embedding API of psol.h (issue 12): the files an
** evaluation read, the read_file hook, every diagnostic as data and
** PSOL_STRICT_ROOT_SIGNATURES.
*/
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "psoc.h"
#include "psol.h"
#include "suites.h"

/* An allocator that trusts the sizes it is given: it records each block's
** size and flags a free with another one. */
typedef struct sized_alloc {
  size_t live, bytes;
  int mismatch;
} sized_alloc;

static void *sized_fn(void *ud, void *ptr, size_t osize, size_t nsize) {
  sized_alloc *a = (sized_alloc *)ud;
  size_t *h;
  if (ptr) {
    h = (size_t *)ptr - 2;
    if (h[0] != osize) a->mismatch = 1;
    a->live--;
    a->bytes -= h[0];
    if (nsize == 0) {
      free(h);
      return NULL;
    }
    h = (size_t *)realloc(h, nsize + 2 * sizeof(size_t));
    ck_assert_ptr_nonnull(h);
  } else {
    if (nsize == 0) return NULL;
    h = (size_t *)malloc(nsize + 2 * sizeof(size_t));
    if (!h) return NULL;
  }
  h[0] = nsize;
  a->live++;
  a->bytes += nsize;
  return h + 2;
}

static char *sized_strdup(psoc_allocator *al, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = (char *)al->fn(al->ud, NULL, 0, n);
  ck_assert_ptr_nonnull(p);
  memcpy(p, s, n);
  return p;
}

/* psol_result_free frees the files and diagnostics with the sizes they
** were allocated with (a result filled by hand, as the library fills it). */
START_TEST(test_result_free_frees_files_and_diagnostics) {
  sized_alloc a;
  psoc_allocator al;
  psol_result r;
  memset(&a, 0, sizeof a);
  al.fn = sized_fn;
  al.ud = &a;
  memset(&r, 0, sizeof r);
  r.alloc = al;
  r.file_capacity = 3;
  r.files = (psol_file *)al.fn(al.ud, NULL, 0, 3 * sizeof *r.files);
  ck_assert_ptr_nonnull(r.files);
  r.files[0].path = sized_strdup(&al, "/m/a.lua");
  r.files[1].path = sized_strdup(&al, "/m/shaders/vs.cso");
  r.file_count = 2;
  r.diagnostic_capacity = 2;
  r.diagnostics = (psol_diagnostic *)al.fn(al.ud, NULL, 0, 2 * sizeof *r.diagnostics);
  ck_assert_ptr_nonnull(r.diagnostics);
  memset(r.diagnostics, 0, 2 * sizeof *r.diagnostics);
  r.diagnostics[0].file = sized_strdup(&al, "/m/a.lua");
  r.diagnostics[0].pipeline = sized_strdup(&al, "lit");
  r.diagnostics[0].field = sized_strdup(&al, "rasterizer.cull");
  r.diagnostics[0].message = sized_strdup(&al, "bad");
  r.diagnostics[1].message = sized_strdup(&al, "only a message");
  r.diagnostic_count = 2;
  psol_result_free(&r);
  ck_assert(!a.mismatch);
  ck_assert_uint_eq(a.live, 0);
  ck_assert_ptr_null(r.files);
  ck_assert_ptr_null(r.diagnostics);
  ck_assert_uint_eq(r.file_count + r.diagnostic_count, 0);
  psol_result_free(&r); /* twice is harmless */
}
END_TEST

START_TEST(test_code_names) {
  ck_assert_str_eq(psoc_code_name(PSOC_CODE_SCRIPT), "PSOC_SCRIPT");
  ck_assert_str_eq(psoc_code_name(PSOC_CODE_LIMIT), "PSOC_LIMIT");
  ck_assert_str_eq(psoc_code_name(PSOC_CODE_FILE), "PSOC_FILE");
}
END_TEST

Suite *suite_embed(void) {
  Suite *s = suite_create("embed");
  TCase *tc = tcase_create("result");
  tcase_add_test(tc, test_result_free_frees_files_and_diagnostics);
  tcase_add_test(tc, test_code_names);
  suite_add_tcase(s, tc);
  return s;
}
