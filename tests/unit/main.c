/*
** main.c: the Check runner over every suite in suites.h.
** CK_RUN_SUITE / CK_RUN_CASE / CK_FORK select and configure runs as usual.
** Exit status: 0 when every test passed, 1 otherwise.
*/
#include <check.h>
#include <stdlib.h>

#include "suites.h"

typedef Suite *(*suite_fn)(void);

static const suite_fn suites[] = {
  suite_builder, suite_hash_dump, suite_parse, suite_rules, suite_resolve,
  suite_validation, suite_validation_shader, suite_sandbox, suite_language, suite_rootsig,
  suite_embed, suite_archive, suite_explain, suite_archive_merge,
};

int main(void) {
  SRunner *runner;
  size_t i;
  int failed;
  runner = srunner_create(NULL);
  for (i = 0; i < sizeof suites / sizeof suites[0]; i++) srunner_add_suite(runner, suites[i]());
  srunner_run_all(runner, CK_NORMAL);
  failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
