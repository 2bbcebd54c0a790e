/*
** test_dxbc_asm.c: known answers for the DXBC assembler (src/tools):
** program tokens checked against hand-encoded words of the tokenized
** program format, signatures and checksum read back through libpsoc's
** container reader, and error messages with line numbers.
** vkd3d-compiler's independent check is tests/dxbc_asm/test_vkd3d_compiler.sh.
*/
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dxbc.h"
#include "dxbc_asm.h"

static int failures, checks;

#define CHECK(cond)                                                      \
  do {                                                                   \
    checks++;                                                            \
    if (!(cond)) {                                                       \
      failures++;                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                    \
  } while (0)

static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int assemble(const char *src, dxbc_asm_blob *blob, char *err, size_t errlen) {
  return dxbc_asm(src, strlen(src), blob, err, errlen);
}

/* The program chunk's words must equal 'want'. */
static void expect_program(const char *name, const char *src, uint32_t fourcc, const uint32_t *want,
                           size_t nwant) {
  dxbc_asm_blob b;
  char err[256];
  psoc_dxbc c;
  const unsigned char *chunk;
  uint32_t size, i;
  int rc = assemble(src, &b, err, sizeof err);
  CHECK(rc == 0);
  if (rc) {
    fprintf(stderr, "%s: %s\n", name, err);
    return;
  }
  CHECK(psoc_dxbc_parse(b.data, b.size, &c) == PSOC_DXBC_OK);
  CHECK(c.digest_ok && !c.digest_zero);
  CHECK(psoc_dxbc_find_chunk(&c, fourcc, &chunk, &size));
  if (psoc_dxbc_find_chunk(&c, fourcc, &chunk, &size)) {
    CHECK(size == nwant * 4);
    for (i = 0; i < size / 4 && i < nwant; i++) {
      if (rd32(chunk + 4 * i) != want[i]) {
        fprintf(stderr, "%s: word %u is 0x%08x, expected 0x%08x\n", name, (unsigned)i,
                (unsigned)rd32(chunk + 4 * i), (unsigned)want[i]);
        CHECK(0);
      }
    }
  }
  dxbc_asm_free(&b);
}

static const char VS[] =
  "vs_4_0 ; position and colour through\n"
  "input POSITION v0.xyzw\n"
  "input COLOR v1.xyzw\n"
  "output SV_Position o0.xyzw\n"
  "output COLOR o1.xyzw\n"
  "mov o0.xyzw, v0.xyzw\n"
  "mov o1.xyzw, v1.xyzw // comment\n"
  "ret\n";

static void test_vs(void) {
  static const uint32_t want[] = {
    0x00010040, 26,                         /* vs_4_0, length */
    0x0300005f, 0x001010f2, 0,              /* dcl_input v0.xyzw */
    0x0300005f, 0x001010f2, 1,              /* dcl_input v1.xyzw */
    0x04000067, 0x001020f2, 0, 1,           /* dcl_output_siv o0.xyzw, position */
    0x03000065, 0x001020f2, 1,              /* dcl_output o1.xyzw */
    0x05000036, 0x001020f2, 0, 0x00101e46, 0, /* mov o0.xyzw, v0.xyzw */
    0x05000036, 0x001020f2, 1, 0x00101e46, 1, /* mov o1.xyzw, v1.xyzw */
    0x0100003e                              /* ret */
  };
  dxbc_asm_blob b;
  psoc_dxbc c;
  psoc_dxbc_element e;
  expect_program("vs", VS, PSOC_FOURCC('S', 'H', 'D', 'R'), want, sizeof want / sizeof want[0]);
  if (assemble(VS, &b, NULL, 0) != 0) {
    CHECK(0);
    return;
  }
  CHECK(psoc_dxbc_parse(b.data, b.size, &c) == PSOC_DXBC_OK);
  CHECK(c.program_type == PSOC_PROGRAM_VS && c.major == 4 && c.minor == 0 && !c.is_dxil);
  CHECK(c.input.present && c.input.count == 2 && c.output.count == 2);
  CHECK(psoc_dxbc_element_get(&c.input, 1, &e));
  CHECK(e.name_len == 5 && memcmp(e.name, "COLOR", 5) == 0 && e.reg == 1 && e.mask == 0xf &&
        e.component_type == 3 && e.system_value == 0);
  CHECK(psoc_dxbc_element_get(&c.output, 0, &e));
  CHECK(e.name_len == 11 && memcmp(e.name, "SV_Position", 11) == 0 &&
        e.system_value == PSOC_SV_POSITION && e.reg == 0);
  /* The checksum covers every byte after the digest: flip one, it fails. */
  b.data[b.size - 1] ^= 1;
  CHECK(psoc_dxbc_parse(b.data, b.size, &c) == PSOC_DXBC_OK && !c.digest_ok);
  dxbc_asm_free(&b);
}

static void test_ps(void) {
  static const char src[] =
    "ps_5_0\n"
    "input SV_Position v0.xyzw\n"
    "input COLOR v1.xyzw\n"
    "input BLENDINDICES v2.x uint\n"
    "output SV_Target0 o0.xyzw\n"
    "output SV_Target1 o1.xyzw\n"
    "mov o0.xyzw, v1.xyzw\n"
    "mul_sat r0.xy, -v1.yxww, l(0.5, 2.0, 0, 0)\n"
    "mov o1.xyzw, l(1.0, 0.0, 0x3f800000, -1)\n"
    "ret\n";
  static const uint32_t want[] = {
    0x00000050, 45,
    0x04002064, 0x001010f2, 0, 1,            /* dcl_input_ps_siv linear noperspective v0 position */
    0x03001062, 0x001010f2, 1,               /* dcl_input_ps linear v1.xyzw */
    0x03000862, 0x00101012, 2,               /* dcl_input_ps constant v2.x */
    0x03000065, 0x001020f2, 0,               /* dcl_output o0.xyzw */
    0x03000065, 0x001020f2, 1,               /* dcl_output o1.xyzw */
    0x02000068, 1,                           /* dcl_temps 1 */
    0x05000036, 0x001020f2, 0, 0x00101e46, 1,
    0x0b002038, 0x00100032, 0, 0x80101f16, 0x00000041, 1, /* mul_sat r0.xy, -v1.yxww, l(...) */
    0x00004002, 0x3f000000, 0x40000000, 0, 0,
    0x08000036, 0x001020f2, 1, 0x00004002, 0x3f800000, 0, 0x3f800000, 0xffffffff,
    0x0100003e
  };
  expect_program("ps", src, PSOC_FOURCC('S', 'H', 'E', 'X'), want, sizeof want / sizeof want[0]);
}

static void test_cs(void) {
  static const char src[] =
    "cs_5_0\n"
    "dcl_uav_raw u0\n"
    "dcl_thread_group 8, 4, 1\n"
    "store_raw u0.x, l(0), l(0x12345678)\n"
    "ret\n";
  static const uint32_t want[] = {
    0x00050050, 17,
    0x0300009d, 0x0011e000, 0,               /* dcl_uav_raw u0 */
    0x0400009b, 8, 4, 1,                     /* dcl_thread_group 8, 4, 1 */
    0x070000a6, 0x0011e012, 0, 0x00004001, 0, 0x00004001, 0x12345678, /* store_raw */
    0x0100003e
  };
  expect_program("cs", src, PSOC_FOURCC('S', 'H', 'E', 'X'), want, sizeof want / sizeof want[0]);
}

static void test_gs(void) {
  static const char src[] =
    "gs_4_0\n"
    "dcl_input_primitive point\n"
    "dcl_output_topology trianglestrip\n"
    "dcl_max_vertices 3\n"
    "input POSITION v0.xyzw\n"
    "output SV_Position o0.xyzw\n"
    "mov o0.xyzw, v[0][0].xyzw\n"
    "emit\n"
    "ret\n";
  static const uint32_t want[] = {
    0x00020040, 22,
    0x0100085d,                              /* dcl_inputprimitive point */
    0x0100285c,                              /* dcl_outputtopology trianglestrip */
    0x0200005e, 3,                           /* dcl_maxout 3 */
    0x0400005f, 0x002010f2, 1, 0,            /* dcl_input v[1][0].xyzw */
    0x04000067, 0x001020f2, 0, 1,            /* dcl_output_siv o0.xyzw, position */
    0x06000036, 0x001020f2, 0, 0x00201e46, 0, 0, /* mov o0, v[0][0] */
    0x01000013, 0x0100003e
  };
  expect_program("gs", src, PSOC_FOURCC('S', 'H', 'D', 'R'), want, sizeof want / sizeof want[0]);
}

static void test_dxil(void) {
  dxbc_asm_blob b;
  psoc_dxbc c;
  static const char src[] = "ms_6_5\noutput SV_Position o0.xyzw\noutput COLOR o1.xyzw\n";
  CHECK(assemble(src, &b, NULL, 0) == 0);
  if (!b.data) return;
  CHECK(psoc_dxbc_parse(b.data, b.size, &c) == PSOC_DXBC_OK);
  CHECK(c.is_dxil && c.program_type == PSOC_PROGRAM_MS && c.major == 6 && c.minor == 5);
  CHECK(c.digest_ok && c.output.count == 2 && c.output.stride == 32);
  dxbc_asm_free(&b);
}

static void test_root_signature(void) {
  static const char src[] =
    "cs_5_0\nroot_signature 0x10 deny_vs\nroot_parameter uav u3\nroot_parameter constants b1 4\n"
    "dcl_thread_group 1, 1, 1\nret\n";
  static const uint32_t want[] = {
    1, 2, 24, 0, 0, 0x12,       /* version 1.0, 2 parameters, no samplers, flags */
    4, 0, 48, 1, 0, 56,         /* UAV (payload at 48), 32-bit constants (at 56) */
    3, 0, 1, 0, 4               /* u3 space 0; b1 space 0, 4 values */
  };
  dxbc_asm_blob b;
  psoc_dxbc c;
  const unsigned char *chunk;
  uint32_t size, i;
  CHECK(assemble(src, &b, NULL, 0) == 0);
  if (!b.data) return;
  CHECK(psoc_dxbc_parse(b.data, b.size, &c) == PSOC_DXBC_OK && c.digest_ok);
  CHECK(c.has_root_signature && c.root_signature_version == 1 && c.root_signature_flags == 0x12);
  CHECK(psoc_dxbc_find_chunk(&c, PSOC_FOURCC('R', 'T', 'S', '0'), &chunk, &size) &&
        size == sizeof want);
  for (i = 0; i < sizeof want / 4 && i < size / 4; i++) CHECK(rd32(chunk + 4 * i) == want[i]);
  dxbc_asm_free(&b);
  {
    dxbc_asm_blob e;
    char err[256];
    CHECK(assemble("vs_4_0\nroot_parameter cbv b0\nret\n", &e, err, sizeof err) != 0 &&
          strstr(err, "line 2: root_parameter needs a root_signature") != NULL);
    CHECK(assemble("vs_4_0\nroot_signature frob\nret\n", &e, err, sizeof err) != 0 &&
          strstr(err, "unknown root signature flag 'frob'") != NULL);
  }
}

static void expect_error_n(const char *src, size_t len, const char *want) {
  dxbc_asm_blob b;
  char err[256];
  int rc = dxbc_asm(src, len, &b, err, sizeof err);
  CHECK(rc != 0 && b.data == NULL);
  if (!strstr(err, want)) {
    fprintf(stderr, "error '%s' does not contain '%s'\n", err, want);
    CHECK(0);
  }
}

static void expect_error(const char *src, const char *want) {
  expect_error_n(src, strlen(src), want);
}

static void test_errors(void) {
  expect_error("", "line 0: no target");
  expect_error("vs_4_0\nmov o0, v0\n", "line 2: the program must end with ret");
  expect_error("vs_4_0\n\nfrob o0, v0\nret\n", "line 3: unknown instruction 'frob'");
  expect_error("mov o0, v0\n", "line 1: the target (e.g. vs_5_0) comes first");
  expect_error("vs_4_0\nmov v0, o0\nret\n", "line 2: this register cannot be written");
  expect_error("vs_4_0\nmov o0.yx, v0\nret\n", "line 2: bad write mask");
  expect_error("vs_4_0\nmov o0, l(1, 2)\nret\n", "line 2: an immediate holds 1 or 4 values");
  expect_error("vs_4_0\nmov o0, v0\nret\nvs_4_0\n", "line 4: the target is given twice");
  expect_error("ps_4_0\noutput SV_Target0 o0.xyzw\noutput SV_Target0 o1.xyzw\nret\n",
               "line 3: SV_Target0 is declared twice");
  expect_error("cs_5_0\nret\n", "a compute shader needs dcl_thread_group");
  expect_error("cs_5_0\ndcl_thread_group 2048, 1, 1\nret\n", "line 2: thread group 2048x1x1");
  expect_error("vs_3_0\n", "line 1: shader model 3.0 is not supported");
  expect_error("vs_5_0\nemit\nret\n", "line 2: 'emit' is for geometry shaders");
  expect_error("ms_6_5\nret\n", "line 2: shader model 6 containers hold no instructions");
  expect_error_n("vs_4_0\nmov o0, v0\0ret\n", 22, "line 2: NUL byte");
}

int main(void) {
  test_vs();
  test_ps();
  test_cs();
  test_gs();
  test_dxil();
  test_root_signature();
  test_errors();
  printf("dxbc_asm: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
