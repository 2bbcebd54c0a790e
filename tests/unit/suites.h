/*
** suites.h: the Check suites the unit-test runner (main.c) runs.
*/
#ifndef PSOC_TEST_SUITES_H
#define PSOC_TEST_SUITES_H

#include <check.h>

Suite *suite_builder(void);
Suite *suite_hash_dump(void);
Suite *suite_parse(void);
Suite *suite_rules(void);
Suite *suite_resolve(void);
Suite *suite_validation(void);
Suite *suite_validation_shader(void);
Suite *suite_sandbox(void);
Suite *suite_language(void);
Suite *suite_rootsig(void);
Suite *suite_embed(void);
Suite *suite_archive(void);
Suite *suite_explain(void);
Suite *suite_archive_merge(void); /* test_archive_merge.c (s6) */

#endif
