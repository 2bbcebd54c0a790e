/*
** rootsig.h: Direct3D 12 root signatures, versions 1.0 and 1.1.
**
**   psoc_rootsig_serialize  D3D12_VERSIONED_ROOT_SIGNATURE_DESC -> the blob
**                           D3D12SerializeVersionedRootSignature writes: a
**                           signed DXBC container holding one RTS0 chunk
**   psoc_rootsig_parse      a blob (or any DXBC container with an RTS0
**                           chunk) -> a desc, bounds-checked
**   psoc_rootsig_validate   the rules D3D12 applies when it serializes or
**                           creates a root signature
**
** Diagnostics use PSOC_CODE_ROOT_SIGNATURE and a field path in D3D12's
** member names with 0-based indices, shortened to fit PSOC_DIAG_FIELD_MAX:
** "Parameters[1].Ranges[0].NumDescriptors", "StaticSamplers[2].Filter",
** "Flags". Like the rest of the library: never prints, never aborts, never
** reads outside the buffer it is given, memory from the psoc_allocator.
*/
#ifndef PSOC_ROOTSIG_H
#define PSOC_ROOTSIG_H

#include "enums.h"
#include "psoc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The blob of a serialized root signature. */
typedef struct psoc_rootsig_blob {
  void *data;
  size_t size;
  psoc_allocator alloc;
} psoc_rootsig_blob;

/* Validate, then serialize. PSOC_ERR_INVALID (and no blob) when the desc
** breaks a rule that makes D3D12 reject it (diags, may be NULL, say which);
** warnings do not stop it. PSOC_ERR_ARG on NULL desc or out. */
psoc_status psoc_rootsig_serialize(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc,
                                   const psoc_allocator *alloc, psoc_diags *diags,
                                   psoc_rootsig_blob *out);
void psoc_rootsig_blob_free(psoc_rootsig_blob *blob);

/* The rules alone. PSOC_OK when there is no error. */
psoc_status psoc_rootsig_validate(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc,
                                  psoc_diags *diags);

/* A parsed root signature: one allocation holding the desc (of the blob's
** version) and every array it points to. */
typedef struct psoc_rootsig psoc_rootsig;

/* Structure only: the container (magic, sizes, checksum), the RTS0 chunk
** and every count and offset in it. PSOC_ERR_INVALID with diagnostics
** (field "RTS0+0x1c" style byte offsets into the chunk) on a malformed blob. */
psoc_status psoc_rootsig_parse(const void *data, size_t size, const psoc_allocator *alloc,
                               psoc_rootsig **out, psoc_diags *diags);
const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *psoc_rootsig_desc(const psoc_rootsig *rs);
void psoc_rootsig_free(psoc_rootsig *rs);

/* Parse, then validate: what CreateRootSignature checks. */
psoc_status psoc_rootsig_check(const void *data, size_t size, psoc_diags *diags);

/* The enumerations of root signatures (psoc_enum_shader_visibility,
** psoc_enum_root_signature_flags, psoc_enum_descriptor_range_flags,
** psoc_enum_root_descriptor_flags, psoc_enum_filter,
** psoc_enum_texture_address_mode, psoc_enum_static_border_color) are in
** enums.h with the others. */

#ifdef __cplusplus
}
#endif

#endif
