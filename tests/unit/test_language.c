/*
** test_language.c: promises of the material language that only show
** through the embedding API (psol_evaluate_*, pso_module.h), where
** the tests in tests/lua cannot reach: a script's result is checked as a
** whole (no two pipelines named alike), and its streams with the
** input-layout rules.
*/
#include <check.h>
#include <string.h>

#include "pso_module.h"
#include "psoc.h"
#include "psol.h"
#include "suites.h"

static psoc_status eval(const char *src, psol_result *r) {
  return psol_evaluate_string(NULL, "=mat.lua", src, strlen(src), r);
}

#define VS "local pso = require 'pso'\nlocal vs = pso.shader { bytes = 'x' }\n"

/* Two pipelines named alike in one result would overwrite each other in a
** cache or a cooked pack: an error naming both entries (issue 9.6). */
START_TEST(test_duplicate_names_are_an_error) {
  psol_result r;
  ck_assert_int_eq(eval(VS "return { pso.graphics { name = 'lit', vs = vs },\n"
                           "         pso.graphics { name = 'other', vs = vs },\n"
                           "         pso.graphics { name = 'lit', vs = vs } }\n", &r),
                   PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "mat.lua: result[3]: two pipelines are named 'lit' "
                                "(result[1] and result[3])") != NULL, "%s", r.error);
  ck_assert_uint_eq(r.count, 0);
  psol_result_free(&r);
  /* the same pipeline twice, and a derived one keeping the name */
  ck_assert_int_eq(eval(VS "local p = pso.graphics { name = 'a', vs = vs }\nreturn { p, p }\n", &r),
                   PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "named 'a'") != NULL, "%s", r.error);
  psol_result_free(&r);
}
END_TEST

/* Distinct names, and any number of unnamed pipelines, are fine. */
START_TEST(test_distinct_and_unnamed_names_pass) {
  psol_result r;
  ck_assert_int_eq(eval(VS "local a = pso.graphics { name = 'a', vs = vs }\n"
                           "return { a, pso.derive(a, { name = 'b' }), pso.graphics { vs = vs },\n"
                           "         pso.graphics { vs = vs } }\n", &r),
                   PSOC_OK);
  ck_assert_str_eq(r.error, "");
  ck_assert_uint_eq(r.count, 4);
  psol_result_free(&r);
}
END_TEST

/* pso_check_result itself: the shape, with the reason pushed. */
START_TEST(test_check_result_api) {
  lua_State *L = psol_newstate(NULL, NULL, 0);
  ck_assert_ptr_nonnull(L);
  ck_assert_int_eq(psol_dostring(L, "=m", VS "return { pso.graphics { vs = vs }, 42 }",
                                 strlen(VS "return { pso.graphics { vs = vs }, 42 }"), 1),
                   LUA_OK);
  ck_assert_int_eq(pso_check_result(L, -1), 0);
  ck_assert_msg(strstr(lua_tostring(L, -1), "result[2] is a number, not a pipeline") != NULL, "%s",
                lua_tostring(L, -1));
  lua_pop(L, 2);
  lua_pushinteger(L, 1);
  ck_assert_int_eq(pso_check_result(L, -1), 0);
  ck_assert_msg(strstr(lua_tostring(L, -1), "(it returned number)") != NULL, "%s",
                lua_tostring(L, -1));
  lua_settop(L, 0);
  psol_close(L);
}
END_TEST

/* psol_evaluate_* checks every stream with PSO_PIPELINE_CHECK_FLAGS: the
** input-layout rules that need no shader run without any option (the
** module built the element array), and a duplicate semantic fails as
** CreatePipelineState would (CREATEINPUTLAYOUT_DUPLICATESEMANTIC). */
START_TEST(test_evaluate_checks_the_input_layout) {
  psol_result r;
  ck_assert_int_eq(eval(VS "return pso.graphics { name = 'd', vs = vs, input_layout = {\n"
                           "  { 'TEXCOORD', 'R32G32_FLOAT' }, { 'TEXCOORD', 'R32G32_FLOAT' } } }\n", &r),
                   PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "DUPLICATESEMANTIC") != NULL, "%s", r.error);
  psol_result_free(&r);
  ck_assert_int_eq(eval(VS "return pso.graphics { name = 'd', vs = vs, input_layout = {\n"
                           "  { 'TEXCOORD', 'R32G32_FLOAT' }, { 'TEXCOORD', 'R32G32_FLOAT', index = 1 } } }\n",
                        &r),
                   PSOC_OK);
  ck_assert_str_eq(r.error, "");
  psol_result_free(&r);
}
END_TEST

/* pso_field_path: D3D12 diagnostic paths as the material spells them. */
START_TEST(test_field_path) {
  static const char *const cases[][2] = {
    { "RENDER_TARGET_FORMATS.RTFormats[0]", "render_targets[1]" },
    { "DEPTH_STENCIL_FORMAT", "depth_format" },
    { "BLEND.RenderTarget[1].SrcBlend", "blend.render_targets[2].src" },
    { "BLEND.IndependentBlendEnable", "blend.independent" },
    { "INPUT_LAYOUT.pInputElementDescs[3].SemanticIndex", "input_layout[4].index" },
    { "RASTERIZER1.CullMode", "rasterizer.cull" },
    { "SAMPLE_DESC.Count", "sample_desc.count" },
    { "CS.pShaderBytecode", "cs" },
    { "NOT_A_SUBOBJECT.X", "NOT_A_SUBOBJECT.X" },     /* unknown: unchanged */
    { "RASTERIZER.NoSuchMember", "RASTERIZER.NoSuchMember" },
    { "", "" },
  };
  char out[96];
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n = pso_field_path(cases[i][0], out, sizeof out);
    ck_assert_msg(strcmp(out, cases[i][1]) == 0, "%s -> %s (want %s)", cases[i][0], out, cases[i][1]);
    ck_assert_uint_eq(n, strlen(out));
  }
  ck_assert_uint_eq(pso_field_path("DEPTH_STENCIL_FORMAT", out, 4), 3); /* truncated, terminated */
  ck_assert_str_eq(out, "dep");
}
END_TEST

Suite *suite_language(void) {
  Suite *s = suite_create("language");
  TCase *tc = tcase_create("result");
  tcase_add_test(tc, test_duplicate_names_are_an_error);
  tcase_add_test(tc, test_distinct_and_unnamed_names_pass);
  tcase_add_test(tc, test_check_result_api);
  tcase_add_test(tc, test_evaluate_checks_the_input_layout);
  tcase_add_test(tc, test_field_path);
  suite_add_tcase(s, tc);
  return s;
}
