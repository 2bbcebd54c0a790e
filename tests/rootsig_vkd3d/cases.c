/*
** cases.c: the psoc half of the root signature comparison, and main. A
** table of root signatures (every parameter kind, both versions, static
** samplers, flags, visibilities, unbounded ranges, explicit offsets) is
** serialized by psoc and by vkd3d; the blobs must be equal byte for byte,
** psoc must read vkd3d's blob back to the same bytes, and vkd3d's device
** must create each root signature from psoc's blob.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rootsig.h"
#include "bridge.h"

#define N(a) (UINT)(sizeof(a) / sizeof((a)[0]))
#define V10 D3D_ROOT_SIGNATURE_VERSION_1_0
#define V11 D3D_ROOT_SIGNATURE_VERSION_1_1

/* ---- 1.0 ---- */
static const D3D12_DESCRIPTOR_RANGE srv_cbv_ranges[] = {
  { D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 8, 0, 0, D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND },
  { D3D12_DESCRIPTOR_RANGE_TYPE_CBV, 2, 2, 0, D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND },
  { D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 3, 2, 12 },
};
static const D3D12_DESCRIPTOR_RANGE sampler_ranges[] = {
  { D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER, 4, 0, 0, 0 },
};
static const D3D12_DESCRIPTOR_RANGE unbounded_ranges[] = {
  { D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 4, 0, 1, 0 },
  { D3D12_DESCRIPTOR_RANGE_TYPE_SRV, UINT_MAX, 0, 3, 4 },
};
static const D3D12_ROOT_PARAMETER params10[] = {
  { D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, { .Constants = { 0, 0, 4 } },
    D3D12_SHADER_VISIBILITY_VERTEX },
  { D3D12_ROOT_PARAMETER_TYPE_CBV, { .Descriptor = { 1, 0 } }, D3D12_SHADER_VISIBILITY_ALL },
  { D3D12_ROOT_PARAMETER_TYPE_SRV, { .Descriptor = { 9, 1 } }, D3D12_SHADER_VISIBILITY_PIXEL },
  { D3D12_ROOT_PARAMETER_TYPE_UAV, { .Descriptor = { 0, 0 } }, D3D12_SHADER_VISIBILITY_ALL },
  { D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
    { .DescriptorTable = { N(srv_cbv_ranges), srv_cbv_ranges } }, D3D12_SHADER_VISIBILITY_PIXEL },
  { D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
    { .DescriptorTable = { N(sampler_ranges), sampler_ranges } }, D3D12_SHADER_VISIBILITY_PIXEL },
};
static const D3D12_ROOT_PARAMETER params10_unbounded[] = {
  { D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
    { .DescriptorTable = { N(unbounded_ranges), unbounded_ranges } }, D3D12_SHADER_VISIBILITY_ALL },
};
static const D3D12_STATIC_SAMPLER_DESC samplers[] = {
  { D3D12_FILTER_MIN_MAG_MIP_LINEAR, D3D12_TEXTURE_ADDRESS_MODE_WRAP, D3D12_TEXTURE_ADDRESS_MODE_WRAP,
    D3D12_TEXTURE_ADDRESS_MODE_WRAP, 0.0f, 1, D3D12_COMPARISON_FUNC_NEVER,
    D3D12_STATIC_BORDER_COLOR_TRANSPARENT_BLACK, 0.0f, D3D12_FLOAT32_MAX, 4, 0,
    D3D12_SHADER_VISIBILITY_PIXEL },
  { D3D12_FILTER_ANISOTROPIC, D3D12_TEXTURE_ADDRESS_MODE_CLAMP, D3D12_TEXTURE_ADDRESS_MODE_MIRROR,
    D3D12_TEXTURE_ADDRESS_MODE_BORDER, -1.5f, 16, D3D12_COMPARISON_FUNC_ALWAYS,
    D3D12_STATIC_BORDER_COLOR_OPAQUE_WHITE, 1.0f, 8.0f, 5, 0, D3D12_SHADER_VISIBILITY_ALL },
  { D3D12_FILTER_COMPARISON_MIN_MAG_LINEAR_MIP_POINT, D3D12_TEXTURE_ADDRESS_MODE_MIRROR_ONCE,
    D3D12_TEXTURE_ADDRESS_MODE_CLAMP, D3D12_TEXTURE_ADDRESS_MODE_CLAMP, 0.25f, 1,
    D3D12_COMPARISON_FUNC_LESS_EQUAL, D3D12_STATIC_BORDER_COLOR_OPAQUE_BLACK, 0.0f, 0.0f, 0, 7,
    D3D12_SHADER_VISIBILITY_PIXEL },
};

/* ---- 1.1 ---- */
static const D3D12_DESCRIPTOR_RANGE1 ranges11[] = {
  { D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 8, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC,
    D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND },
  { D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 2, 0, 0,
    D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE | D3D12_DESCRIPTOR_RANGE_FLAG_DATA_VOLATILE,
    D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND },
  { D3D12_DESCRIPTOR_RANGE_TYPE_CBV, 1, 4, 1, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 20 },
  { D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 4, 0, 5, D3D12_DESCRIPTOR_RANGE_FLAG_DATA_STATIC_WHILE_SET_AT_EXECUTE,
    32 },
};
static const D3D12_DESCRIPTOR_RANGE1 unbounded_ranges11[] = {
  { D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 2, 0, 0, D3D12_DESCRIPTOR_RANGE_FLAG_NONE, 0 },
  { D3D12_DESCRIPTOR_RANGE_TYPE_SRV, UINT_MAX, 0, 5,
    D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS, 2 },
};
static const D3D12_ROOT_PARAMETER1 params11_unbounded[] = {
  { D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
    { .DescriptorTable = { N(unbounded_ranges11), unbounded_ranges11 } },
    D3D12_SHADER_VISIBILITY_PIXEL },
};
static const D3D12_DESCRIPTOR_RANGE1 sampler_ranges11[] = {
  { D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER, 2, 1, 0, D3D12_DESCRIPTOR_RANGE_FLAG_DESCRIPTORS_VOLATILE,
    D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND },
};
static const D3D12_ROOT_PARAMETER1 params11[] = {
  { D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, { .DescriptorTable = { N(ranges11), ranges11 } },
    D3D12_SHADER_VISIBILITY_ALL },
  { D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS, { .Constants = { 2, 0, 16 } },
    D3D12_SHADER_VISIBILITY_GEOMETRY },
  { D3D12_ROOT_PARAMETER_TYPE_CBV,
    { .Descriptor = { 0, 0, D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC } },
    D3D12_SHADER_VISIBILITY_ALL },
  { D3D12_ROOT_PARAMETER_TYPE_SRV,
    { .Descriptor = { 1, 3, D3D12_ROOT_DESCRIPTOR_FLAG_DATA_STATIC_WHILE_SET_AT_EXECUTE } },
    D3D12_SHADER_VISIBILITY_HULL },
  { D3D12_ROOT_PARAMETER_TYPE_UAV,
    { .Descriptor = { 7, 0, D3D12_ROOT_DESCRIPTOR_FLAG_DATA_VOLATILE } },
    D3D12_SHADER_VISIBILITY_DOMAIN },
  { D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
    { .DescriptorTable = { N(sampler_ranges11), sampler_ranges11 } },
    D3D12_SHADER_VISIBILITY_PIXEL },
};

/* vkd3d 1.2 serializes unbounded ranges but cannot create them: its
** CreateRootSignature answers E_NOTIMPL ("Unhandled unbound descriptor
** range"). Those cases expect exactly that, so a vkd3d that learns them
** shows up here. */
#define NOTIMPL 0x80004001UL

typedef struct rs_case {
  const char *name;
  D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc;
  unsigned long create_hr; /* what vkd3d's CreateRootSignature answers (32 bits) */
} rs_case;

static const rs_case cases[] = {
  { "1.0 empty", { V10, { .Desc_1_0 = { 0, NULL, 0, NULL, D3D12_ROOT_SIGNATURE_FLAG_NONE } } }, 0 },
  { "1.1 empty", { V11, { .Desc_1_1 = { 0, NULL, 0, NULL, D3D12_ROOT_SIGNATURE_FLAG_NONE } } }, 0 },
  { "1.0 input layout flag",
    { V10, { .Desc_1_0 = { 0, NULL, 0, NULL,
                           D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT } } }, 0 },
  { "1.0 every parameter kind",
    { V10, { .Desc_1_0 = { N(params10), params10, 0, NULL,
                           D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT } } }, 0 },
  { "1.0 parameters and static samplers",
    { V10, { .Desc_1_0 = { N(params10), params10, N(samplers), samplers,
                           D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT |
                               D3D12_ROOT_SIGNATURE_FLAG_DENY_HULL_SHADER_ROOT_ACCESS |
                               D3D12_ROOT_SIGNATURE_FLAG_DENY_DOMAIN_SHADER_ROOT_ACCESS |
                               D3D12_ROOT_SIGNATURE_FLAG_DENY_GEOMETRY_SHADER_ROOT_ACCESS } } }, 0 },
  { "1.0 static samplers only", { V10, { .Desc_1_0 = { 0, NULL, N(samplers), samplers, 0 } } }, 0 },
  { "1.0 unbounded range", { V10, { .Desc_1_0 = { N(params10_unbounded), params10_unbounded, 0,
                                                  NULL, 0 } } }, NOTIMPL },
  { "1.1 unbounded range with flags",
    { V11, { .Desc_1_1 = { N(params11_unbounded), params11_unbounded, 0, NULL, 0 } } }, NOTIMPL },
  { "1.1 every parameter kind with flags",
    { V11, { .Desc_1_1 = { N(params11), params11, 0, NULL,
                           D3D12_ROOT_SIGNATURE_FLAG_ALLOW_STREAM_OUTPUT } } }, 0 },
  { "1.1 parameters and static samplers",
    { V11, { .Desc_1_1 = { N(params11), params11, N(samplers), samplers,
                           D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT } } }, 0 },
  { "1.1 static samplers only", { V11, { .Desc_1_1 = { 0, NULL, 2, samplers + 1, 0 } } }, 0 },
};

size_t rsv_case_count(void) { return sizeof cases / sizeof cases[0]; }
const char *rsv_case_name(size_t i) { return cases[i].name; }
const void *rsv_case_desc(size_t i) { return &cases[i].desc; }

static int copy_out(psoc_rootsig_blob *b, unsigned char **data, size_t *size) {
  *data = malloc(b->size);
  if (!*data) return 0;
  memcpy(*data, b->data, b->size);
  *size = b->size;
  psoc_rootsig_blob_free(b);
  return 1;
}

static void print_diags(const psoc_diags *d) {
  size_t i;
  for (i = 0; i < d->count; i++)
    printf("    %s %s: %s\n", psoc_severity_name(d->items[i].severity), d->items[i].field,
           d->items[i].message);
}

int rsv_psoc_serialize(size_t i, unsigned char **data, size_t *size) {
  psoc_rootsig_blob b;
  psoc_diags d;
  psoc_status st;
  psoc_diags_init(&d, NULL);
  st = psoc_rootsig_serialize(&cases[i].desc, NULL, &d, &b);
  if (st != PSOC_OK || d.count) print_diags(&d);
  psoc_diags_free(&d);
  return st == PSOC_OK && copy_out(&b, data, size);
}

int rsv_psoc_reserialize(const void *blob, size_t size, unsigned char **data, size_t *out_size) {
  psoc_rootsig *rs = NULL;
  psoc_rootsig_blob b;
  psoc_diags d;
  psoc_status st;
  psoc_diags_init(&d, NULL);
  st = psoc_rootsig_parse(blob, size, NULL, &rs, &d);
  if (st == PSOC_OK) st = psoc_rootsig_serialize(psoc_rootsig_desc(rs), NULL, &d, &b);
  if (st != PSOC_OK) print_diags(&d);
  psoc_rootsig_free(rs);
  psoc_diags_free(&d);
  return st == PSOC_OK && copy_out(&b, data, out_size);
}

static void hexdiff(const unsigned char *a, size_t na, const unsigned char *b, size_t nb) {
  size_t i, n = na < nb ? na : nb, shown = 0;
  printf("    sizes: psoc %zu, vkd3d %zu\n", na, nb);
  for (i = 0; i < n && shown < 8; i++)
    if (a[i] != b[i]) printf("    byte %zu: psoc %02x, vkd3d %02x\n", i, a[i], b[i]), shown++;
}

int main(void) {
  size_t i, n = rsv_case_count(), failures = 0, created = 0;
  char err[512];
  int have_device = rsv_vkd3d_open_device(err, sizeof err);
  if (!have_device) {
    printf("FAIL: %s\n", err);
    return 1;
  }
  for (i = 0; i < n; i++) {
    unsigned char *mine = NULL, *theirs = NULL, *again = NULL;
    size_t nm = 0, nt = 0, na = 0;
    int ok = 1;
    long hr;
    if (!rsv_psoc_serialize(i, &mine, &nm)) {
      printf("FAIL %s: psoc rejects it\n", rsv_case_name(i));
      ok = 0;
    }
    if (!rsv_vkd3d_serialize(rsv_case_desc(i), &theirs, &nt, err, sizeof err)) {
      printf("FAIL %s: vkd3d rejects it: %s\n", rsv_case_name(i), err);
      ok = 0;
    }
    if (ok && (nm != nt || memcmp(mine, theirs, nm) != 0)) {
      printf("FAIL %s: the blobs differ\n", rsv_case_name(i));
      hexdiff(mine, nm, theirs, nt);
      ok = 0;
    }
    if (ok && (!rsv_psoc_reserialize(theirs, nt, &again, &na) || na != nt ||
               memcmp(again, theirs, nt) != 0)) {
      printf("FAIL %s: psoc does not read vkd3d's blob back to the same bytes\n",
             rsv_case_name(i));
      ok = 0;
    }
    if (ok && ((unsigned long)(hr = rsv_vkd3d_create(mine, nm)) & 0xffffffffUL) != cases[i].create_hr) {
      printf("FAIL %s: CreateRootSignature on psoc's blob: hr 0x%08lx, expected 0x%08lx\n",
             rsv_case_name(i), (unsigned long)hr & 0xffffffffUL,
             cases[i].create_hr);
      ok = 0;
    }
    if (ok) printf("ok   %s: %zu bytes, equal to vkd3d's; %s\n", rsv_case_name(i), nm,
                   cases[i].create_hr ? "vkd3d 1.2 cannot create it (E_NOTIMPL, as expected)"
                                      : "created on the device");
    created += ok && !cases[i].create_hr;
    failures += !ok;
    free(mine);
    free(theirs);
    free(again);
  }
  rsv_vkd3d_close_device();
  printf("%zu of %zu root signatures equal vkd3d's blobs byte for byte; %zu created on the device\n",
         n - failures, n, created);
  return failures ? 1 : 0;
}
