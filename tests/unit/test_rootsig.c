/*
** test_rootsig.c: root signatures (src/rootsig.c): known blobs from an
** independent serializer (vkd3d 1.2's D3D12SerializeVersionedRootSignature,
** recorded), parsing back, every validation rule with both verdicts,
** malformed blobs and allocation failures.
*/
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dxbc.h"
#include "dxbc_writer.h"
#include "rootsig.h"
#include "suites.h"

/* blob_empty_ia (vkd3d 1.2's serializer) */
static const unsigned char blob_empty_ia[68] = {
  0x44, 0x58, 0x42, 0x43, 0x2e, 0xd6, 0xbb, 0x05, 0x46, 0x36, 0x4d, 0xc7,
  0xa5, 0x07, 0x14, 0xde, 0x3d, 0x27, 0x99, 0x0d, 0x01, 0x00, 0x00, 0x00,
  0x44, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00, 0x00,
  0x52, 0x54, 0x53, 0x30, 0x18, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x18, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
};
/* blob_v11_cbv_table_sampler (vkd3d 1.2's serializer) */
static const unsigned char blob_v11_cbv_table_sampler[188] = {
  0x44, 0x58, 0x42, 0x43, 0x55, 0x7f, 0x9e, 0x8b, 0x1d, 0xe7, 0x51, 0x4d,
  0x36, 0xa9, 0xf5, 0x40, 0xe8, 0xea, 0x8c, 0x59, 0x01, 0x00, 0x00, 0x00,
  0xbc, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00, 0x00,
  0x52, 0x54, 0x53, 0x30, 0x90, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
  0x02, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x5c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
  0x05, 0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
  0x01, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x44, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
  0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
  0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
  0x03, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7a, 0x44, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
};
/* blob_v10_constants_table (vkd3d 1.2's serializer) */
static const unsigned char blob_v10_constants_table[132] = {
  0x44, 0x58, 0x42, 0x43, 0x55, 0xe5, 0x66, 0xea, 0xec, 0x08, 0x9c, 0x74,
  0x93, 0x3d, 0xbd, 0x2d, 0x33, 0xae, 0xcf, 0x27, 0x01, 0x00, 0x00, 0x00,
  0x84, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00, 0x00,
  0x52, 0x54, 0x53, 0x30, 0x58, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x02, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x58, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x44, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* ---- helpers ------------------------------------------------------ */

static void expect_blob(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d, const unsigned char *want,
                        size_t n) {
  psoc_rootsig_blob b;
  ck_assert_int_eq(psoc_rootsig_serialize(d, NULL, NULL, &b), PSOC_OK);
  ck_assert_uint_eq(b.size, n);
  ck_assert_mem_eq(b.data, want, n);
  psoc_rootsig_blob_free(&b);
  ck_assert_ptr_null(b.data);
}

/* The first diagnostic whose field starts with 'field', or NULL. */
static const psoc_diag *find_diag(const psoc_diags *d, psoc_severity sev, const char *field) {
  size_t i;
  for (i = 0; i < d->count; i++)
    if (d->items[i].severity == sev && strncmp(d->items[i].field, field, strlen(field)) == 0)
      return &d->items[i];
  return NULL;
}

/* A 1.1 root signature every rule test starts from: valid, no warnings. */
typedef struct fixture {
  D3D12_DESCRIPTOR_RANGE1 ranges[3];
  D3D12_DESCRIPTOR_RANGE1 sampler_range;
  D3D12_ROOT_PARAMETER1 params[5];
  D3D12_STATIC_SAMPLER_DESC samplers[1];
  D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc;
} fixture;

static void fixture_init(fixture *f) {
  memset(f, 0, sizeof *f);
  f->ranges[0] = (D3D12_DESCRIPTOR_RANGE1){ D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 4, 0, 0, 0,
                                            D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND };
  f->ranges[1] = (D3D12_DESCRIPTOR_RANGE1){ D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 2, 0, 0, 0,
                                            D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND };
  f->ranges[2] = (D3D12_DESCRIPTOR_RANGE1){ D3D12_DESCRIPTOR_RANGE_TYPE_CBV, 1, 3, 0, 0,
                                            D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND };
  f->sampler_range = (D3D12_DESCRIPTOR_RANGE1){ D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER, 2, 1, 0, 0, 0 };
  f->params[0].ParameterType = D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
  f->params[0].DescriptorTable.NumDescriptorRanges = 3;
  f->params[0].DescriptorTable.pDescriptorRanges = f->ranges;
  f->params[0].ShaderVisibility = D3D12_SHADER_VISIBILITY_PIXEL;
  f->params[1].ParameterType = D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
  f->params[1].DescriptorTable.NumDescriptorRanges = 1;
  f->params[1].DescriptorTable.pDescriptorRanges = &f->sampler_range;
  f->params[1].ShaderVisibility = D3D12_SHADER_VISIBILITY_PIXEL;
  f->params[2].ParameterType = D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS;
  f->params[2].Constants.ShaderRegister = 0;
  f->params[2].Constants.Num32BitValues = 4;
  f->params[2].ShaderVisibility = D3D12_SHADER_VISIBILITY_VERTEX;
  f->params[3].ParameterType = D3D12_ROOT_PARAMETER_TYPE_CBV;
  f->params[3].Descriptor.ShaderRegister = 1;
  f->params[3].ShaderVisibility = D3D12_SHADER_VISIBILITY_VERTEX;
  f->params[4].ParameterType = D3D12_ROOT_PARAMETER_TYPE_SRV;
  f->params[4].Descriptor.ShaderRegister = 0;
  f->params[4].Descriptor.RegisterSpace = 1;
  f->params[4].ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
  f->samplers[0] = (D3D12_STATIC_SAMPLER_DESC){
    D3D12_FILTER_ANISOTROPIC, D3D12_TEXTURE_ADDRESS_MODE_WRAP, D3D12_TEXTURE_ADDRESS_MODE_WRAP,
    D3D12_TEXTURE_ADDRESS_MODE_WRAP, 0.0f, 16, D3D12_COMPARISON_FUNC_NEVER,
    D3D12_STATIC_BORDER_COLOR_OPAQUE_BLACK, 0.0f, 1000.0f, 0, 0, D3D12_SHADER_VISIBILITY_PIXEL };
  f->desc.Version = D3D_ROOT_SIGNATURE_VERSION_1_1;
  f->desc.Desc_1_1.NumParameters = 5;
  f->desc.Desc_1_1.pParameters = f->params;
  f->desc.Desc_1_1.NumStaticSamplers = 1;
  f->desc.Desc_1_1.pStaticSamplers = f->samplers;
  f->desc.Desc_1_1.Flags = D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT;
}

/* Validate; expect exactly 'errors' errors and 'warnings' warnings, and
** (when field is not NULL) one of severity 'sev' whose field starts so. */
static void expect_verdict(const fixture *f, size_t errors, size_t warnings, psoc_severity sev,
                           const char *field) {
  psoc_diags d;
  psoc_status st;
  psoc_diags_init(&d, NULL);
  st = psoc_rootsig_validate(&f->desc, &d);
  if (d.errors != errors || d.warnings != warnings || (field && !find_diag(&d, sev, field))) {
    size_t i;
    for (i = 0; i < d.count; i++)
      fprintf(stderr, "  %s %s: %s\n", psoc_severity_name(d.items[i].severity), d.items[i].field,
              d.items[i].message);
  }
  ck_assert_uint_eq(d.errors, errors);
  ck_assert_uint_eq(d.warnings, warnings);
  if (field) ck_assert_ptr_nonnull(find_diag(&d, sev, field));
  ck_assert_int_eq(st, errors ? PSOC_ERR_INVALID : PSOC_OK);
  psoc_diags_free(&d);
}
#define ERROR_AT(f, field) expect_verdict(f, 1, 0, PSOC_SEVERITY_ERROR, field)
#define WARNING_AT(f, field) expect_verdict(f, 0, 1, PSOC_SEVERITY_WARNING, field)
#define CLEAN(f) expect_verdict(f, 0, 0, PSOC_SEVERITY_ERROR, NULL)

/* ---- known blobs -------------------------------------------------- */

START_TEST(known_blob_empty_1_0) {
  D3D12_VERSIONED_ROOT_SIGNATURE_DESC d;
  memset(&d, 0, sizeof d);
  d.Version = D3D_ROOT_SIGNATURE_VERSION_1_0;
  d.Desc_1_0.Flags = D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT;
  expect_blob(&d, blob_empty_ia, sizeof blob_empty_ia);
}
END_TEST

START_TEST(known_blob_1_1) {
  D3D12_DESCRIPTOR_RANGE1 r = { D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 3, 1, 0,
                                D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE, 0xffffffffu };
  D3D12_ROOT_PARAMETER1 p[2];
  D3D12_STATIC_SAMPLER_DESC s = { D3D12_FILTER_MIN_MAG_MIP_POINT, D3D12_TEXTURE_ADDRESS_MODE_CLAMP,
                                  D3D12_TEXTURE_ADDRESS_MODE_CLAMP, D3D12_TEXTURE_ADDRESS_MODE_CLAMP,
                                  0.0f, 1, D3D12_COMPARISON_FUNC_NEVER,
                                  D3D12_STATIC_BORDER_COLOR_TRANSPARENT_BLACK, 0.0f, 1000.0f, 0, 0,
                                  D3D12_SHADER_VISIBILITY_PIXEL };
  D3D12_VERSIONED_ROOT_SIGNATURE_DESC d;
  memset(p, 0, sizeof p);
  memset(&d, 0, sizeof d);
  p[0].ParameterType = D3D12_ROOT_PARAMETER_TYPE_CBV;
  p[0].Descriptor.ShaderRegister = 2;
  p[0].Descriptor.RegisterSpace = 1;
  p[0].Descriptor.Flags = D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC;
  p[0].ShaderVisibility = D3D12_SHADER_VISIBILITY_PIXEL;
  p[1].ParameterType = D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
  p[1].DescriptorTable.NumDescriptorRanges = 1;
  p[1].DescriptorTable.pDescriptorRanges = &r;
  d.Version = D3D_ROOT_SIGNATURE_VERSION_1_1;
  d.Desc_1_1.NumParameters = 2;
  d.Desc_1_1.pParameters = p;
  d.Desc_1_1.NumStaticSamplers = 1;
  d.Desc_1_1.pStaticSamplers = &s;
  expect_blob(&d, blob_v11_cbv_table_sampler, sizeof blob_v11_cbv_table_sampler);
}
END_TEST

START_TEST(known_blob_1_0_constants_table) {
  D3D12_DESCRIPTOR_RANGE r = { D3D12_DESCRIPTOR_RANGE_TYPE_CBV, 1, 0, 0, 0 };
  D3D12_ROOT_PARAMETER p[2];
  D3D12_VERSIONED_ROOT_SIGNATURE_DESC d;
  memset(p, 0, sizeof p);
  memset(&d, 0, sizeof d);
  p[0].ParameterType = D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS;
  p[0].Constants.ShaderRegister = 1;
  p[0].Constants.Num32BitValues = 4;
  p[0].ShaderVisibility = D3D12_SHADER_VISIBILITY_VERTEX;
  p[1].ParameterType = D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
  p[1].DescriptorTable.NumDescriptorRanges = 1;
  p[1].DescriptorTable.pDescriptorRanges = &r;
  d.Version = D3D_ROOT_SIGNATURE_VERSION_1_0;
  d.Desc_1_0.NumParameters = 2;
  d.Desc_1_0.pParameters = p;
  expect_blob(&d, blob_v10_constants_table, sizeof blob_v10_constants_table);
}
END_TEST

/* The blob is a signed container psoc's own reader accepts. */
START_TEST(blob_is_signed_container) {
  fixture f;
  psoc_rootsig_blob b;
  psoc_dxbc dx;
  fixture_init(&f);
  ck_assert_int_eq(psoc_rootsig_serialize(&f.desc, NULL, NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_dxbc_parse(b.data, b.size, &dx), PSOC_DXBC_OK);
  ck_assert(dx.digest_ok);
  ck_assert(dx.has_root_signature);
  ck_assert_uint_eq(dx.root_signature_version, 2);
  ck_assert_uint_eq(dx.root_signature_flags, 1);
  psoc_rootsig_blob_free(&b);
}
END_TEST

/* ---- parsing back ------------------------------------------------- */

START_TEST(parse_known_1_1) {
  psoc_rootsig *rs = NULL;
  const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d;
  ck_assert_int_eq(psoc_rootsig_parse(blob_v11_cbv_table_sampler, sizeof blob_v11_cbv_table_sampler,
                                      NULL, &rs, NULL), PSOC_OK);
  d = psoc_rootsig_desc(rs);
  ck_assert_int_eq(d->Version, D3D_ROOT_SIGNATURE_VERSION_1_1);
  ck_assert_uint_eq(d->Desc_1_1.NumParameters, 2);
  ck_assert_int_eq(d->Desc_1_1.pParameters[0].ParameterType, D3D12_ROOT_PARAMETER_TYPE_CBV);
  ck_assert_uint_eq(d->Desc_1_1.pParameters[0].Descriptor.ShaderRegister, 2);
  ck_assert_uint_eq(d->Desc_1_1.pParameters[0].Descriptor.RegisterSpace, 1);
  ck_assert_int_eq(d->Desc_1_1.pParameters[0].Descriptor.Flags,
                   D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC);
  ck_assert_int_eq(d->Desc_1_1.pParameters[0].ShaderVisibility, D3D12_SHADER_VISIBILITY_PIXEL);
  ck_assert_uint_eq(d->Desc_1_1.pParameters[1].DescriptorTable.NumDescriptorRanges, 1);
  ck_assert_uint_eq(d->Desc_1_1.pParameters[1].DescriptorTable.pDescriptorRanges[0].NumDescriptors, 3);
  ck_assert_int_eq(d->Desc_1_1.pParameters[1].DescriptorTable.pDescriptorRanges[0].Flags,
                   D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE);
  ck_assert_uint_eq(
      d->Desc_1_1.pParameters[1].DescriptorTable.pDescriptorRanges[0].OffsetInDescriptorsFromTableStart,
      0xffffffffu);
  ck_assert_uint_eq(d->Desc_1_1.NumStaticSamplers, 1);
  ck_assert(d->Desc_1_1.pStaticSamplers[0].MaxLOD == 1000.0f);
  ck_assert_int_eq(d->Desc_1_1.pStaticSamplers[0].AddressV, D3D12_TEXTURE_ADDRESS_MODE_CLAMP);
  expect_blob(d, blob_v11_cbv_table_sampler, sizeof blob_v11_cbv_table_sampler);
  psoc_rootsig_free(rs);
}
END_TEST

START_TEST(parse_known_1_0) {
  psoc_rootsig *rs = NULL;
  const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d;
  ck_assert_int_eq(psoc_rootsig_parse(blob_v10_constants_table, sizeof blob_v10_constants_table,
                                      NULL, &rs, NULL), PSOC_OK);
  d = psoc_rootsig_desc(rs);
  ck_assert_int_eq(d->Version, D3D_ROOT_SIGNATURE_VERSION_1_0);
  ck_assert_uint_eq(d->Desc_1_0.NumParameters, 2);
  ck_assert_uint_eq(d->Desc_1_0.pParameters[0].Constants.Num32BitValues, 4);
  ck_assert_int_eq(d->Desc_1_0.pParameters[1].DescriptorTable.pDescriptorRanges[0].RangeType,
                   D3D12_DESCRIPTOR_RANGE_TYPE_CBV);
  ck_assert_ptr_null(d->Desc_1_0.pStaticSamplers);
  expect_blob(d, blob_v10_constants_table, sizeof blob_v10_constants_table);
  ck_assert_int_eq(psoc_rootsig_check(blob_v10_constants_table, sizeof blob_v10_constants_table,
                                      NULL), PSOC_OK);
  psoc_rootsig_free(rs);
}
END_TEST

/* The fixture serializes, parses back and serializes to the same bytes. */
START_TEST(roundtrip_fixture) {
  fixture f;
  psoc_rootsig_blob a, b;
  psoc_rootsig *rs = NULL;
  fixture_init(&f);
  ck_assert_int_eq(psoc_rootsig_serialize(&f.desc, NULL, NULL, &a), PSOC_OK);
  ck_assert_int_eq(psoc_rootsig_parse(a.data, a.size, NULL, &rs, NULL), PSOC_OK);
  ck_assert_int_eq(psoc_rootsig_serialize(psoc_rootsig_desc(rs), NULL, NULL, &b), PSOC_OK);
  ck_assert_uint_eq(a.size, b.size);
  ck_assert_mem_eq(a.data, b.data, a.size);
  psoc_rootsig_free(rs);
  psoc_rootsig_blob_free(&a);
  psoc_rootsig_blob_free(&b);
}
END_TEST

/* Every prefix of a valid blob is rejected without reading past it (ASan
** build), and so is every single-byte corruption that keeps the checksum
** valid; nothing crashes. */
START_TEST(parse_truncated_and_corrupt) {
  fixture f;
  psoc_rootsig_blob a;
  size_t n, i;
  fixture_init(&f);
  ck_assert_int_eq(psoc_rootsig_serialize(&f.desc, NULL, NULL, &a), PSOC_OK);
  for (n = 0; n < a.size; n++) {
    unsigned char *copy = malloc(n ? n : 1);
    psoc_rootsig *rs = (psoc_rootsig *)&f; /* must be reset to NULL */
    memcpy(copy, a.data, n);
    ck_assert_int_eq(psoc_rootsig_parse(copy, n, NULL, &rs, NULL), PSOC_ERR_INVALID);
    ck_assert_ptr_null(rs);
    free(copy);
  }
  for (i = 44; i < a.size; i++) {
    unsigned char *copy = malloc(a.size);
    psoc_rootsig *rs = NULL;
    memcpy(copy, a.data, a.size);
    copy[i] ^= 0xff;
    psoc_dxbc_checksum(copy, a.size, copy + 4);
    if (psoc_rootsig_parse(copy, a.size, NULL, &rs, NULL) == PSOC_OK) {
      psoc_rootsig_validate(psoc_rootsig_desc(rs), NULL);
      psoc_rootsig_free(rs);
    }
    free(copy);
  }
  psoc_rootsig_blob_free(&a);
}
END_TEST

static unsigned char *resigned_copy(const unsigned char *src, size_t n) {
  unsigned char *c = malloc(n);
  memcpy(c, src, n);
  return c;
}

static void expect_parse_error(unsigned char *blob, size_t n, int resign, const char *field) {
  psoc_diags d;
  psoc_rootsig *rs = NULL;
  if (resign) psoc_dxbc_checksum(blob, n, blob + 4);
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(psoc_rootsig_parse(blob, n, NULL, &rs, &d), PSOC_ERR_INVALID);
  ck_assert_ptr_null(rs);
  ck_assert_uint_eq(d.errors, 1);
  ck_assert_str_eq(d.items[0].field, field);
  ck_assert_int_eq(d.items[0].code, PSOC_CODE_ROOT_SIGNATURE);
  psoc_diags_free(&d);
  free(blob);
}

START_TEST(parse_rejects) {
  const unsigned char *k = blob_v11_cbv_table_sampler;
  size_t n = sizeof blob_v11_cbv_table_sampler;
  unsigned char *c;
  /* checksum */
  c = resigned_copy(k, n);
  c[60] ^= 1;
  expect_parse_error(c, n, 0, "");
  c = resigned_copy(k, n);
  memset(c + 4, 0, 16);
  expect_parse_error(c, n, 0, "");
  /* no RTS0 chunk */
  c = resigned_copy(k, n);
  memcpy(c + 36, "RTS1", 4);
  expect_parse_error(c, n, 1, "");
  /* version 3 */
  c = resigned_copy(k, n);
  c[44] = 3;
  expect_parse_error(c, n, 1, "RTS0+0x0");
  /* parameter count past the chunk */
  c = resigned_copy(k, n);
  c[48] = 0xff;
  expect_parse_error(c, n, 1, "RTS0+0x4");
  /* static sampler offset past the chunk */
  c = resigned_copy(k, n);
  c[60] = 0xf0;
  expect_parse_error(c, n, 1, "RTS0+0xc");
  /* parameter 0's type 9 */
  c = resigned_copy(k, n);
  c[44 + 24] = 9;
  expect_parse_error(c, n, 1, "RTS0+0x18");
  /* parameter 1's table offset past the chunk */
  c = resigned_copy(k, n);
  c[44 + 24 + 12 + 8] = 0xfc;
  expect_parse_error(c, n, 1, "RTS0+0x2c");
  /* the table's range count past the chunk */
  c = resigned_copy(k, n);
  c[44 + 0x3c] = 0x40;
  expect_parse_error(c, n, 1, "RTS0+0x3c");
}
END_TEST

/* ---- validation: each rule, both verdicts ------------------------- */

START_TEST(rule_fixture_clean) {
  fixture f;
  fixture_init(&f);
  CLEAN(&f);
  f.desc.Version = D3D_ROOT_SIGNATURE_VERSION_1_0; /* the 1.0 view of the same arrays */
  {
    D3D12_DESCRIPTOR_RANGE r = { D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 1, 0, 0, 0 };
    D3D12_ROOT_PARAMETER p;
    memset(&p, 0, sizeof p);
    p.ParameterType = D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
    p.DescriptorTable.NumDescriptorRanges = 1;
    p.DescriptorTable.pDescriptorRanges = &r;
    f.desc.Desc_1_0.NumParameters = 1;
    f.desc.Desc_1_0.pParameters = &p;
    CLEAN(&f);
  }
}
END_TEST

START_TEST(rule_version) {
  fixture f;
  fixture_init(&f);
  f.desc.Version = (D3D_ROOT_SIGNATURE_VERSION)3;
  ERROR_AT(&f, "Version");
}
END_TEST

START_TEST(rule_flags) {
  fixture f;
  fixture_init(&f);
  f.desc.Desc_1_1.Flags = (D3D12_ROOT_SIGNATURE_FLAGS)0xfff;
  /* every known flag: the denies make the 4 vertex/pixel parameters and the
  ** pixel static sampler unreachable */
  expect_verdict(&f, 0, 5, PSOC_SEVERITY_WARNING, "Parameters[0].ShaderVisibility");
  f.desc.Desc_1_1.Flags = (D3D12_ROOT_SIGNATURE_FLAGS)0x1000;
  ERROR_AT(&f, "Flags");
}
END_TEST

START_TEST(rule_deny_flags_warn) {
  fixture f;
  fixture_init(&f);
  f.desc.Desc_1_1.Flags = D3D12_ROOT_SIGNATURE_FLAG_DENY_HULL_SHADER_ROOT_ACCESS;
  CLEAN(&f);
  f.params[4].ShaderVisibility = D3D12_SHADER_VISIBILITY_HULL;
  WARNING_AT(&f, "Parameters[4].ShaderVisibility");
}
END_TEST

START_TEST(rule_parameter_type) {
  fixture f;
  fixture_init(&f);
  f.params[4].ParameterType = (D3D12_ROOT_PARAMETER_TYPE)5;
  ERROR_AT(&f, "Parameters[4].ParameterType");
}
END_TEST

START_TEST(rule_visibility) {
  fixture f;
  fixture_init(&f);
  f.params[4].ShaderVisibility = D3D12_SHADER_VISIBILITY_MESH;
  CLEAN(&f);
  f.params[4].ShaderVisibility = (D3D12_SHADER_VISIBILITY)8;
  ERROR_AT(&f, "Parameters[4].ShaderVisibility");
  fixture_init(&f);
  f.samplers[0].ShaderVisibility = (D3D12_SHADER_VISIBILITY)9;
  ERROR_AT(&f, "StaticSamplers[0].ShaderVisibility");
}
END_TEST

START_TEST(rule_range_type) {
  fixture f;
  fixture_init(&f);
  f.ranges[1].RangeType = (D3D12_DESCRIPTOR_RANGE_TYPE)4;
  ERROR_AT(&f, "Parameters[0].Ranges[1].RangeType");
}
END_TEST

START_TEST(rule_range_count) {
  fixture f;
  fixture_init(&f);
  f.ranges[2].NumDescriptors = 0;
  ERROR_AT(&f, "Parameters[0].Ranges[2].NumDescriptors");
  f.ranges[2].NumDescriptors = 1;
  f.ranges[2].BaseShaderRegister = 0xffffffffu;
  CLEAN(&f);
  f.ranges[2].NumDescriptors = 2;
  ERROR_AT(&f, "Parameters[0].Ranges[2].NumDescriptors");
}
END_TEST

START_TEST(rule_unbounded_then_append) {
  fixture f;
  fixture_init(&f);
  f.ranges[0].NumDescriptors = UINT_MAX; /* t0 and up; the UAVs after it get offset 0 */
  f.ranges[1].OffsetInDescriptorsFromTableStart = 0;
  f.ranges[2].OffsetInDescriptorsFromTableStart = 2;
  CLEAN(&f);
  f.ranges[1].OffsetInDescriptorsFromTableStart = D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND;
  ERROR_AT(&f, "Parameters[0].Ranges[1].Offset");
}
END_TEST

START_TEST(rule_unbounded_overlaps) {
  fixture f;
  fixture_init(&f);
  f.ranges[0].NumDescriptors = UINT_MAX;
  f.ranges[1].OffsetInDescriptorsFromTableStart = 0;
  f.params[4].Descriptor.RegisterSpace = 0; /* root SRV t0 visible to all: inside t0.. */
  f.params[4].Descriptor.ShaderRegister = 100;
  ERROR_AT(&f, "Parameters[");
}
END_TEST

START_TEST(rule_mixed_sampler_table) {
  fixture f;
  fixture_init(&f);
  f.ranges[2].RangeType = D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER;
  f.ranges[2].BaseShaderRegister = 8;
  ERROR_AT(&f, "Parameters[0].DescriptorTable");
}
END_TEST

START_TEST(rule_empty_table_warns) {
  fixture f;
  fixture_init(&f);
  f.params[1].DescriptorTable.NumDescriptorRanges = 0;
  WARNING_AT(&f, "Parameters[1].DescriptorTable");
  f.params[1].DescriptorTable.NumDescriptorRanges = 1;
  f.params[1].DescriptorTable.pDescriptorRanges = NULL;
  ERROR_AT(&f, "Parameters[1].DescriptorTable");
}
END_TEST

START_TEST(rule_reserved_space) {
  fixture f;
  fixture_init(&f);
  f.ranges[0].RegisterSpace = 0xffffffefu;
  CLEAN(&f);
  f.ranges[0].RegisterSpace = 0xfffffff0u;
  ERROR_AT(&f, "Parameters[0].Ranges[0].RegisterSpace");
  fixture_init(&f);
  f.params[3].Descriptor.RegisterSpace = 0xfffffffeu;
  ERROR_AT(&f, "Parameters[3].RegisterSpace");
  fixture_init(&f);
  f.samplers[0].RegisterSpace = 0xffffffffu;
  ERROR_AT(&f, "StaticSamplers[0].RegisterSpace");
}
END_TEST

START_TEST(rule_overlap) {
  fixture f;
  fixture_init(&f);
  /* root CBV b1 (vertex) against the table's CBV b3 (pixel): moved onto b3 */
  f.params[3].Descriptor.ShaderRegister = 3;
  CLEAN(&f); /* different visibilities never overlap */
  f.params[3].ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
  ERROR_AT(&f, "Parameters[");
  f.params[3].Descriptor.RegisterSpace = 2; /* another space */
  CLEAN(&f);
  fixture_init(&f);
  /* root constants b0 (vertex) and the root CBV b1 (vertex) */
  f.params[2].Constants.ShaderRegister = 1;
  ERROR_AT(&f, "Parameters[");
  fixture_init(&f);
  /* the static sampler s0 against the sampler table s1-s2 */
  f.samplers[0].ShaderRegister = 2;
  ERROR_AT(&f, "StaticSamplers[0]");
  f.samplers[0].ShaderRegister = 3;
  CLEAN(&f);
  fixture_init(&f);
  /* an SRV and a UAV on the same register number are different classes */
  f.ranges[1].BaseShaderRegister = 0;
  CLEAN(&f);
}
END_TEST

START_TEST(rule_root_size) {
  fixture f;
  fixture_init(&f);
  /* 2 tables (2) + 4 constants + 2 descriptors (4) = 10; 58 more fill 64 */
  f.params[2].Constants.Num32BitValues = 58;
  CLEAN(&f);
  f.params[2].Constants.Num32BitValues = 59;
  ERROR_AT(&f, "Parameters");
  f.params[2].Constants.Num32BitValues = 0;
  WARNING_AT(&f, "Parameters[2].Num32BitValues");
}
END_TEST

START_TEST(rule_range_flags) {
  fixture f;
  fixture_init(&f);
  f.ranges[0].Flags = D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE |
                      D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC_WHILE_SET_AT_EXECUTE;
  f.ranges[1].Flags = D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS;
  f.sampler_range.Flags = D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE;
  CLEAN(&f);
  f.ranges[0].Flags = (D3D12_DESCRIPTOR_RANGE_FLAGS)0x20;
  ERROR_AT(&f, "Parameters[0].Ranges[0].Flags");
  f.ranges[0].Flags = D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE | D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC;
  ERROR_AT(&f, "Parameters[0].Ranges[0].Flags");
  f.ranges[0].Flags = D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE | D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC;
  ERROR_AT(&f, "Parameters[0].Ranges[0].Flags");
  f.ranges[0].Flags = D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE |
                      D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS;
  ERROR_AT(&f, "Parameters[0].Ranges[0].Flags");
  fixture_init(&f);
  f.sampler_range.Flags = D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC;
  ERROR_AT(&f, "Parameters[1].Ranges[0].Flags");
}
END_TEST

START_TEST(rule_descriptor_flags) {
  fixture f;
  fixture_init(&f);
  f.params[3].Descriptor.Flags = D3D12_ROOT_DESCRIPTOR_FLAG_DATA_VOLATILE;
  CLEAN(&f);
  f.params[3].Descriptor.Flags = (D3D12_ROOT_DESCRIPTOR_FLAGS)0x1;
  ERROR_AT(&f, "Parameters[3].Flags");
  f.params[3].Descriptor.Flags =
      D3D12_ROOT_DESCRIPTOR_FLAG_DATA_VOLATILE | D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC;
  ERROR_AT(&f, "Parameters[3].Flags");
}
END_TEST

START_TEST(rule_sampler_fields) {
  fixture f;
  fixture_init(&f);
  f.samplers[0].Filter = (D3D12_FILTER)0x56;
  ERROR_AT(&f, "StaticSamplers[0].Filter");
  fixture_init(&f);
  f.samplers[0].AddressW = (D3D12_TEXTURE_ADDRESS_MODE)0;
  ERROR_AT(&f, "StaticSamplers[0].AddressW");
  fixture_init(&f);
  f.samplers[0].MipLODBias = 15.99f;
  CLEAN(&f);
  f.samplers[0].MipLODBias = 16.0f;
  ERROR_AT(&f, "StaticSamplers[0].MipLODBias");
  f.samplers[0].MipLODBias = NAN;
  ERROR_AT(&f, "StaticSamplers[0].MipLODBias");
  fixture_init(&f);
  f.samplers[0].MaxAnisotropy = 17;
  ERROR_AT(&f, "StaticSamplers[0].MaxAnisotropy");
  f.samplers[0].Filter = D3D12_FILTER_MIN_MAG_MIP_LINEAR; /* ignored without anisotropy */
  CLEAN(&f);
  fixture_init(&f);
  f.samplers[0].Filter = D3D12_FILTER_COMPARISON_MIN_MAG_MIP_LINEAR;
  CLEAN(&f);
  f.samplers[0].ComparisonFunc = (D3D12_COMPARISON_FUNC)0;
  ERROR_AT(&f, "StaticSamplers[0].ComparisonFunc");
  f.samplers[0].ComparisonFunc = (D3D12_COMPARISON_FUNC)9;
  ERROR_AT(&f, "StaticSamplers[0].ComparisonFunc");
  fixture_init(&f);
  f.samplers[0].BorderColor = (D3D12_STATIC_BORDER_COLOR)5;
  ERROR_AT(&f, "StaticSamplers[0].BorderColor");
  fixture_init(&f);
  f.samplers[0].MaxLOD = NAN;
  ERROR_AT(&f, "StaticSamplers[0].MinLOD");
  f.samplers[0].MaxLOD = 0.0f;
  f.samplers[0].MinLOD = 2.0f;
  WARNING_AT(&f, "StaticSamplers[0].MinLOD");
}
END_TEST

/* Serialize refuses what validate rejects and still writes with warnings. */
START_TEST(serialize_follows_verdict) {
  fixture f;
  psoc_rootsig_blob b;
  psoc_diags d;
  fixture_init(&f);
  f.ranges[2].NumDescriptors = 0;
  psoc_diags_init(&d, NULL);
  ck_assert_int_eq(psoc_rootsig_serialize(&f.desc, NULL, &d, &b), PSOC_ERR_INVALID);
  ck_assert_ptr_null(b.data);
  ck_assert_uint_eq(d.errors, 1);
  psoc_diags_clear(&d);
  fixture_init(&f);
  f.params[1].DescriptorTable.NumDescriptorRanges = 0;
  ck_assert_int_eq(psoc_rootsig_serialize(&f.desc, NULL, &d, &b), PSOC_OK);
  ck_assert_uint_eq(d.warnings, 1);
  psoc_rootsig_blob_free(&b);
  psoc_diags_free(&d);
  ck_assert_int_eq(psoc_rootsig_serialize(NULL, NULL, NULL, &b), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_rootsig_serialize(&f.desc, NULL, NULL, NULL), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_rootsig_validate(NULL, NULL), PSOC_ERR_ARG);
  ck_assert_int_eq(psoc_rootsig_parse(blob_empty_ia, sizeof blob_empty_ia, NULL, NULL, NULL),
                   PSOC_ERR_ARG);
  psoc_rootsig_free(NULL);
  psoc_rootsig_blob_free(NULL);
}
END_TEST

/* ---- in a pipeline ------------------------------------------------ */

/* psoc_check reads the flags of a root signature psoc serialized and
** carried as SERIALIZED_ROOT_SIGNATURE: an input layout needs
** ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT. */
START_TEST(check_reads_serialized_flags) {
  int with;
  for (with = 0; with < 2; with++) {
    D3D12_VERSIONED_ROOT_SIGNATURE_DESC d;
    psoc_rootsig_blob blob;
    static const unsigned char vs_bytes[4] = { 0 };
    D3D12_SHADER_BYTECODE vs = { vs_bytes, sizeof vs_bytes };
    D3D12_INPUT_ELEMENT_DESC el = { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0,
                                    D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA, 0 };
    D3D12_INPUT_LAYOUT_DESC il = { &el, 1 };
    psoc_serialized_root_signature_desc srs;
    psoc_check_options opts = { PSOC_CHECK_FOLLOW_POINTERS, NULL };
    psoc_builder *b;
    psoc_stream *st;
    psoc_diags diags;
    size_t i, found = 0;
    memset(&d, 0, sizeof d);
    d.Version = D3D_ROOT_SIGNATURE_VERSION_1_0;
    d.Desc_1_0.Flags = with ? D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT
                            : D3D12_ROOT_SIGNATURE_FLAG_NONE;
    ck_assert_int_eq(psoc_rootsig_serialize(&d, NULL, NULL, &blob), PSOC_OK);
    srs.pSerializedBlob = blob.data;
    srs.SerializedBlobSizeInBytes = blob.size;
    ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &vs, sizeof vs), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &il, sizeof il), PSOC_OK);
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, &srs, sizeof srs),
                     PSOC_OK);
    ck_assert_int_eq(psoc_builder_finish(b, &st), PSOC_OK);
    psoc_builder_free(b);
    psoc_rootsig_blob_free(&blob); /* the stream holds its own copy */
    psoc_diags_init(&diags, NULL);
    psoc_check(psoc_stream_data(st), psoc_stream_size(st), &opts, &diags);
    for (i = 0; i < diags.count; i++)
      if (diags.items[i].message_id &&
          strcmp(diags.items[i].message_id,
                 "CREATEGRAPHICSPIPELINESTATE_MISSING_ROOT_SIGNATURE_FLAGS") == 0)
        found++;
    ck_assert_uint_eq(found, with ? 0 : 1);
    psoc_diags_free(&diags);
    psoc_stream_free(st);
  }
}
END_TEST

/* ---- shader bindings against the root signature (rules_bindings.c) - */

typedef struct rdef_bind {
  uint32_t type;  /* D3D_SHADER_INPUT_TYPE: 0 cbuffer, 2 texture, 3 sampler, 4 RW texture */
  uint32_t point, count, space;
} rdef_bind;

/* A DXBC shader (dw_shader's chunks) plus an RDEF chunk listing 'binds';
** shader model 5.1 (40-byte bindings with a space) when sm51. */
static dw_blob shader_with_rdef(uint32_t program, const rdef_bind *binds, size_t n, int sm51,
                                long rs_flags) {
  static const dw_elem pos = { "SV_Position", 0, 1, 3, 0, 0xf, 0xf, 0, 0 };
  dw_blob base = dw_shader(program, 5, sm51 ? 1 : 0, 0, NULL, 0, program == 5 ? NULL : &pos,
                           program == 5 ? 0 : 1, rs_flags);
  psoc_dxbc dx;
  dw_chunk chunks[8];
  size_t nc = 0, i, stride = sm51 ? 40 : 32, size = 28 + n * stride;
  unsigned char *rdef = calloc(1, size);
  dw_blob out;
  ck_assert_int_eq(psoc_dxbc_parse(base.data, base.size, &dx), PSOC_DXBC_OK);
  for (i = 0; i < dx.chunk_count && nc < 7; i++) {
    uint32_t off;
    memcpy(&off, base.data + 32 + 4 * i, 4);
    memcpy(&chunks[nc].fourcc, base.data + off, 4);
    memcpy(&chunks[nc].size, base.data + off + 4, 4);
    chunks[nc].size &= 0xffffffffu;
    chunks[nc].data = base.data + off + 8;
    nc++;
  }
  rdef[8] = (unsigned char)n;
  rdef[12] = 28;
  rdef[16] = sm51 ? 1 : 0;
  rdef[17] = 5;
  for (i = 0; i < n; i++) {
    unsigned char *b = rdef + 28 + i * stride;
    uint32_t w[10] = { 0, binds[i].type, 0, 0, 0, binds[i].point, binds[i].count, 0,
                       binds[i].space, (uint32_t)i };
    memcpy(b, w, stride);
  }
  chunks[nc++] = (dw_chunk){ PSOC_FOURCC('R', 'D', 'E', 'F'), rdef, size };
  out = dw_container(chunks, nc, 1);
  free(rdef);
  dw_free(&base);
  return out;
}

/* psoc_check a pipeline of one shader (VS, or CS when program is 5) and an
** optional serialized root signature; count the diagnostics with message
** id 'id'. */
static size_t check_bindings(uint32_t program, const dw_blob *shader,
                             const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *rs, const char *id) {
  psoc_rootsig_blob blob = { NULL, 0, { NULL, NULL } };
  D3D12_SHADER_BYTECODE code = { shader->data, shader->size };
  psoc_serialized_root_signature_desc srs;
  psoc_check_options opts = { PSOC_CHECK_FOLLOW_POINTERS, NULL };
  psoc_builder *b;
  psoc_stream *st;
  psoc_diags diags;
  size_t i, found = 0;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, program == 5 ? PSOC_SO_CS : PSOC_SO_VS, &code, sizeof code),
                   PSOC_OK);
  if (rs) {
    psoc_diags v;
    psoc_diags_init(&v, NULL);
    /* an invalid desc is written by hand below; valid ones by psoc */
    if (psoc_rootsig_serialize(rs, NULL, &v, &blob) != PSOC_OK) ck_abort_msg("invalid desc");
    psoc_diags_free(&v);
    srs.pSerializedBlob = blob.data;
    srs.SerializedBlobSizeInBytes = blob.size;
    ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, &srs, sizeof srs),
                     PSOC_OK);
  }
  ck_assert_int_eq(psoc_builder_finish(b, &st), PSOC_OK);
  psoc_builder_free(b);
  psoc_rootsig_blob_free(&blob);
  psoc_diags_init(&diags, NULL);
  psoc_check(psoc_stream_data(st), psoc_stream_size(st), &opts, &diags);
  for (i = 0; i < diags.count; i++) {
    const psoc_diag *d = &diags.items[i];
    if (d->message_id && strcmp(d->message_id, id) == 0) found++;
  }
  psoc_diags_free(&diags);
  psoc_stream_free(st);
  return found;
}

#define VS_MISMATCH "CREATEGRAPHICSPIPELINESTATE_VS_ROOT_SIGNATURE_MISMATCH"
#define CS_MISMATCH "CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH"

typedef struct small_rs {
  D3D12_DESCRIPTOR_RANGE1 range;
  D3D12_ROOT_PARAMETER1 params[2];
  D3D12_STATIC_SAMPLER_DESC sampler;
  D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc;
} small_rs;

/* root CBV b0 (vertex), a table t0-t3 (all), static sampler s0 (vertex) */
static void small_rs_init(small_rs *r) {
  fixture f;
  fixture_init(&f); /* for a valid static sampler */
  memset(r, 0, sizeof *r);
  r->range = (D3D12_DESCRIPTOR_RANGE1){ D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 4, 0, 0, 0, 0 };
  r->params[0].ParameterType = D3D12_ROOT_PARAMETER_TYPE_CBV;
  r->params[0].ShaderVisibility = D3D12_SHADER_VISIBILITY_VERTEX;
  r->params[1].ParameterType = D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE;
  r->params[1].DescriptorTable.NumDescriptorRanges = 1;
  r->params[1].DescriptorTable.pDescriptorRanges = &r->range;
  r->sampler = f.samplers[0];
  r->sampler.ShaderVisibility = D3D12_SHADER_VISIBILITY_VERTEX;
  r->desc.Version = D3D_ROOT_SIGNATURE_VERSION_1_1;
  r->desc.Desc_1_1.NumParameters = 2;
  r->desc.Desc_1_1.pParameters = r->params;
  r->desc.Desc_1_1.NumStaticSamplers = 1;
  r->desc.Desc_1_1.pStaticSamplers = &r->sampler;
}

START_TEST(bindings_covered_and_not) {
  static const rdef_bind binds[] = { { 0, 0, 1, 0 }, { 2, 0, 4, 0 }, { 3, 0, 1, 0 } };
  dw_blob vs = shader_with_rdef(1, binds, 3, 0, -1);
  small_rs r;
  small_rs_init(&r);
  ck_assert_uint_eq(check_bindings(1, &vs, &r.desc, VS_MISMATCH), 0);
  r.range.NumDescriptors = 2; /* t2, t3 uncovered */
  ck_assert_uint_eq(check_bindings(1, &vs, &r.desc, VS_MISMATCH), 1);
  r.range.NumDescriptors = UINT_MAX; /* unbounded covers them */
  ck_assert_uint_eq(check_bindings(1, &vs, &r.desc, VS_MISMATCH), 0);
  small_rs_init(&r);
  r.params[0].ShaderVisibility = D3D12_SHADER_VISIBILITY_PIXEL; /* b0 not visible to the VS */
  ck_assert_uint_eq(check_bindings(1, &vs, &r.desc, VS_MISMATCH), 1);
  small_rs_init(&r);
  r.sampler.ShaderRegister = 1; /* s0 missing */
  ck_assert_uint_eq(check_bindings(1, &vs, &r.desc, VS_MISMATCH), 1);
  small_rs_init(&r);
  r.params[0].ParameterType = D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS; /* constants are b0 too */
  r.params[0].Constants.Num32BitValues = 4;
  ck_assert_uint_eq(check_bindings(1, &vs, &r.desc, VS_MISMATCH), 0);
  small_rs_init(&r);
  r.desc.Desc_1_1.Flags = D3D12_ROOT_SIGNATURE_FLAG_DENY_VERTEX_SHADER_ROOT_ACCESS;
  r.params[0].ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
  r.sampler.ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
  ck_assert_uint_eq(check_bindings(1, &vs, &r.desc, VS_MISMATCH), 1);
  /* without any root signature object to compare with, nothing is said */
  ck_assert_uint_eq(check_bindings(1, &vs, NULL, VS_MISMATCH), 0);
  dw_free(&vs);
}
END_TEST

START_TEST(bindings_register_spaces) {
  static const rdef_bind binds[] = { { 2, 2, 1, 1 } }; /* t2, space 1 (SM 5.1) */
  dw_blob vs = shader_with_rdef(1, binds, 1, 1, -1);
  small_rs r;
  small_rs_init(&r);
  ck_assert_uint_eq(check_bindings(1, &vs, &r.desc, VS_MISMATCH), 1);
  r.range.RegisterSpace = 1;
  ck_assert_uint_eq(check_bindings(1, &vs, &r.desc, VS_MISMATCH), 0);
  dw_free(&vs);
}
END_TEST

START_TEST(bindings_compute) {
  static const rdef_bind binds[] = { { 4, 0, 1, 0 } }; /* u0 */
  dw_blob cs = shader_with_rdef(5, binds, 1, 0, -1);
  D3D12_ROOT_PARAMETER1 p;
  D3D12_VERSIONED_ROOT_SIGNATURE_DESC d;
  memset(&p, 0, sizeof p);
  memset(&d, 0, sizeof d);
  p.ParameterType = D3D12_ROOT_PARAMETER_TYPE_UAV;
  d.Version = D3D_ROOT_SIGNATURE_VERSION_1_1;
  d.Desc_1_1.NumParameters = 1;
  d.Desc_1_1.pParameters = &p;
  ck_assert_uint_eq(check_bindings(5, &cs, &d, CS_MISMATCH), 0);
  p.ShaderVisibility = D3D12_SHADER_VISIBILITY_PIXEL; /* compute sees only "all" */
  ck_assert_uint_eq(check_bindings(5, &cs, &d, CS_MISMATCH), 1);
  dw_free(&cs);
}
END_TEST

/* The RTS0 a shader embeds is used when the pipeline has no other. */
START_TEST(bindings_embedded_root_signature) {
  static const rdef_bind binds[] = { { 0, 3, 1, 0 } }; /* b3 */
  dw_blob vs = shader_with_rdef(1, binds, 1, 0, 0); /* RTS0 without parameters */
  ck_assert_uint_eq(check_bindings(1, &vs, NULL, VS_MISMATCH), 1);
  dw_free(&vs);
}
END_TEST

/* A broken serialized root signature fails the pipeline, at its subobject. */
START_TEST(bindings_invalid_serialized) {
  static const rdef_bind binds[] = { { 0, 0, 1, 0 } };
  dw_blob vs = shader_with_rdef(1, binds, 1, 0, -1);
  psoc_rootsig_blob blob;
  small_rs r;
  D3D12_SHADER_BYTECODE code = { vs.data, vs.size };
  psoc_serialized_root_signature_desc srs;
  psoc_check_options opts = { PSOC_CHECK_FOLLOW_POINTERS, NULL };
  psoc_builder *b;
  psoc_stream *st;
  psoc_diags diags;
  const psoc_diag *e;
  unsigned char *bad;
  small_rs_init(&r);
  ck_assert_int_eq(psoc_rootsig_serialize(&r.desc, NULL, NULL, &blob), PSOC_OK);
  bad = malloc(blob.size);
  memcpy(bad, blob.data, blob.size);
  /* the range's count (RTS0 + 0x30 + 4 in the table's range) to zero, re-signed */
  {
    uint32_t zero = 0, roff;
    memcpy(&roff, bad + 44 + 24 + 12 + 8, 4); /* parameter 1's payload offset */
    memcpy(&roff, bad + 44 + roff + 4, 4);   /* its ranges' offset */
    memcpy(bad + 44 + roff + 4, &zero, 4);
    psoc_dxbc_checksum(bad, blob.size, bad + 4);
  }
  srs.pSerializedBlob = bad;
  srs.SerializedBlobSizeInBytes = blob.size;
  ck_assert_int_eq(psoc_builder_new(NULL, &b), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_VS, &code, sizeof code), PSOC_OK);
  ck_assert_int_eq(psoc_builder_add(b, PSOC_SO_SERIALIZED_ROOT_SIGNATURE, &srs, sizeof srs), PSOC_OK);
  ck_assert_int_eq(psoc_builder_finish(b, &st), PSOC_OK);
  psoc_builder_free(b);
  psoc_diags_init(&diags, NULL);
  ck_assert_int_eq(psoc_check(psoc_stream_data(st), psoc_stream_size(st), &opts, &diags),
                   PSOC_ERR_INVALID);
  /* the field is truncated to PSOC_DIAG_FIELD_MAX */
  e = find_diag(&diags, PSOC_SEVERITY_ERROR, "SERIALIZED_ROOT_SIGNATURE.Parameters[1].Ranges[0].Num");
  ck_assert_ptr_nonnull(e);
  ck_assert_ptr_nonnull(strstr(e->message, "at least one descriptor"));
  ck_assert_int_eq(e->code, PSOC_CODE_ROOT_SIGNATURE);
  ck_assert_int_ge(e->subobject, 1);
  psoc_diags_free(&diags);
  psoc_stream_free(st);
  free(bad);
  psoc_rootsig_blob_free(&blob);
  dw_free(&vs);
}
END_TEST

/* ---- allocation failures ------------------------------------------ */

typedef struct failing {
  int left; /* allocations that succeed */
  long live;
} failing;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  failing *f = ud;
  (void)osize;
  if (nsize == 0) {
    if (ptr) f->live--;
    free(ptr);
    return NULL;
  }
  if (ptr == NULL) {
    if (f->left-- <= 0) return NULL;
    f->live++;
  }
  return realloc(ptr, nsize);
}

START_TEST(allocation_failures) {
  fixture f;
  failing fa = { 0, 0 };
  psoc_allocator a = { failing_alloc, &fa };
  psoc_rootsig_blob b;
  psoc_rootsig *rs = NULL;
  psoc_diags d;
  fixture_init(&f);
  /* validate's binding list, then the blob */
  psoc_diags_init(&d, &a);
  fa.left = 0;
  ck_assert_int_eq(psoc_rootsig_serialize(&f.desc, &a, &d, &b), PSOC_ERR_NOMEM);
  fa.left = 1;
  ck_assert_int_eq(psoc_rootsig_serialize(&f.desc, &a, &d, &b), PSOC_ERR_NOMEM);
  ck_assert_int_eq(fa.live, 0);
  fa.left = 2;
  ck_assert_int_eq(psoc_rootsig_serialize(&f.desc, &a, &d, &b), PSOC_OK);
  ck_assert_int_eq(fa.live, 1);
  fa.left = 0;
  ck_assert_int_eq(psoc_rootsig_parse(b.data, b.size, &a, &rs, NULL), PSOC_ERR_NOMEM);
  ck_assert_ptr_null(rs);
  fa.left = 1;
  ck_assert_int_eq(psoc_rootsig_parse(b.data, b.size, &a, &rs, NULL), PSOC_OK);
  ck_assert_int_eq(fa.live, 2);
  psoc_rootsig_free(rs);
  psoc_rootsig_blob_free(&b);
  psoc_diags_free(&d);
  ck_assert_int_eq(fa.live, 0);
}
END_TEST

Suite *suite_rootsig(void) {
  Suite *s = suite_create("rootsig");
  TCase *t = tcase_create("rootsig");
  tcase_add_test(t, known_blob_empty_1_0);
  tcase_add_test(t, known_blob_1_1);
  tcase_add_test(t, known_blob_1_0_constants_table);
  tcase_add_test(t, blob_is_signed_container);
  tcase_add_test(t, parse_known_1_1);
  tcase_add_test(t, parse_known_1_0);
  tcase_add_test(t, roundtrip_fixture);
  tcase_add_test(t, parse_truncated_and_corrupt);
  tcase_add_test(t, parse_rejects);
  tcase_add_test(t, rule_fixture_clean);
  tcase_add_test(t, rule_version);
  tcase_add_test(t, rule_flags);
  tcase_add_test(t, rule_deny_flags_warn);
  tcase_add_test(t, rule_parameter_type);
  tcase_add_test(t, rule_visibility);
  tcase_add_test(t, rule_range_type);
  tcase_add_test(t, rule_range_count);
  tcase_add_test(t, rule_unbounded_then_append);
  tcase_add_test(t, rule_unbounded_overlaps);
  tcase_add_test(t, rule_mixed_sampler_table);
  tcase_add_test(t, rule_empty_table_warns);
  tcase_add_test(t, rule_reserved_space);
  tcase_add_test(t, rule_overlap);
  tcase_add_test(t, rule_root_size);
  tcase_add_test(t, rule_range_flags);
  tcase_add_test(t, rule_descriptor_flags);
  tcase_add_test(t, rule_sampler_fields);
  tcase_add_test(t, serialize_follows_verdict);
  tcase_add_test(t, check_reads_serialized_flags);
  tcase_add_test(t, allocation_failures);
  suite_add_tcase(s, t);
  t = tcase_create("bindings");
  tcase_add_test(t, bindings_covered_and_not);
  tcase_add_test(t, bindings_register_spaces);
  tcase_add_test(t, bindings_compute);
  tcase_add_test(t, bindings_embedded_root_signature);
  tcase_add_test(t, bindings_invalid_serialized);
  suite_add_tcase(s, t);
  return s;
}
