/*
** bridge.h: what the two halves of the vkd3d comparison test share. The
** psoc half (cases.c) sees DirectX-Headers' d3d12.h, the vkd3d half
** (vkd3d_side.c) sees vkd3d's; the two headers cannot meet in one
** translation unit, so descs cross as pointers to the layout-identical
** D3D12_VERSIONED_ROOT_SIGNATURE_DESC and blobs as bytes.
*/
#ifndef RSV_BRIDGE_H
#define RSV_BRIDGE_H

#include <stddef.h>

size_t rsv_case_count(void);
const char *rsv_case_name(size_t i);
const void *rsv_case_desc(size_t i);
/* psoc's blob of case i (malloc'd); 0 on failure */
int rsv_psoc_serialize(size_t i, unsigned char **data, size_t *size);
/* psoc parses a blob and serializes the desc it read again (malloc'd) */
int rsv_psoc_reserialize(const void *blob, size_t size, unsigned char **data, size_t *out_size);

/* vkd3d: serialize a desc (malloc'd copy of the blob); 0 on failure with
** vkd3d's error text in err */
int rsv_vkd3d_serialize(const void *desc, unsigned char **data, size_t *size, char *err, size_t n);
int rsv_vkd3d_open_device(char *err, size_t n);
/* CreateRootSignature on the device; returns the HRESULT */
long rsv_vkd3d_create(const void *blob, size_t size);
void rsv_vkd3d_close_device(void);

#endif
