/*
** main.cpp: the psoc_conformance test program (Check). Exit status 0 only
** when every test passed. CK_FORK, CK_RUN_SUITE, CK_RUN_CASE and CK_VERBOSITY
** work as usual.
*/
#include "conformance.h"

#include <cstdlib>

int main() {
  SRunner* runner = srunner_create(builder_identity_suite());
  srunner_add_suite(runner, parse_d3dx12_suite());
  srunner_add_suite(runner, d3dx12_parser_suite());
  srunner_add_suite(runner, desc_suite());
  srunner_run_all(runner, CK_ENV);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
