/*
** vkd3d_side.c: the vkd3d half of the root signature comparison: vkd3d's
** D3D12SerializeVersionedRootSignature and a device (vkd3d-utils on
** whatever Vulkan driver the loader finds: lavapipe here) to create root
** signatures on. Only vkd3d's headers are included here.
*/
#define COBJMACROS
#define INITGUID
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vkd3d_utils.h>

#include "bridge.h"

static ID3D12Device *device;

int rsv_vkd3d_serialize(const void *desc, unsigned char **data, size_t *size, char *err, size_t n) {
  ID3DBlob *blob = NULL, *error = NULL;
  HRESULT hr = D3D12SerializeVersionedRootSignature(desc, &blob, &error);
  *data = NULL;
  *size = 0;
  if (FAILED(hr)) {
    snprintf(err, n, "hr 0x%08x: %s", (unsigned)hr,
             error ? (const char *)ID3D10Blob_GetBufferPointer(error) : "(no error blob)");
    if (error) ID3D10Blob_Release(error);
    if (blob) ID3D10Blob_Release(blob);
    return 0;
  }
  *size = ID3D10Blob_GetBufferSize(blob);
  *data = malloc(*size ? *size : 1);
  if (*data) memcpy(*data, ID3D10Blob_GetBufferPointer(blob), *size);
  ID3D10Blob_Release(blob);
  if (error) ID3D10Blob_Release(error);
  return *data != NULL;
}

int rsv_vkd3d_open_device(char *err, size_t n) {
  HRESULT hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device);
  if (FAILED(hr)) {
    snprintf(err, n, "D3D12CreateDevice failed: hr 0x%08x", (unsigned)hr);
    device = NULL;
    return 0;
  }
  return 1;
}

long rsv_vkd3d_create(const void *blob, size_t size) {
  ID3D12RootSignature *rs = NULL;
  HRESULT hr;
  if (!device) return (long)E_FAIL;
  hr = ID3D12Device_CreateRootSignature(device, 0, blob, size, &IID_ID3D12RootSignature,
                                        (void **)&rs);
  if (SUCCEEDED(hr) && rs) ID3D12RootSignature_Release(rs);
  return (long)hr;
}

void rsv_vkd3d_close_device(void) {
  if (device) ID3D12Device_Release(device);
  device = NULL;
}
