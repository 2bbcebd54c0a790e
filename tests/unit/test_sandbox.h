/*
** test_sandbox.h: cases of the "sandbox" suite that live in other files.
*/
#ifndef PSOC_TEST_SANDBOX_H
#define PSOC_TEST_SANDBOX_H

#include <check.h>

/* test_sandbox_limits.c: runaways, charges, memory, print cap, files. */
void sandbox_limit_cases(Suite *s);

#endif
