/*
** backend_vkd3d.c: see backend.h. The only file of the suite that includes
** vkd3d's headers. No waits on events (vkd3d 1.2 has no finite waits):
** fences are polled with a deadline. Nothing here forks.
*/
#define COBJMACROS
#define INITGUID
#define WIDL_C_INLINE_WRAPPERS
#include <vkd3d_utils.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "platform.h" /* psoc_plat_now_ns */

#define FENCE_DEADLINE_MS 5000

struct dev {
  ID3D12Device *device;
  ID3D12CommandQueue *queue;
  ID3D12CommandAllocator *allocator;
  ID3D12Fence *fence;
  UINT64 fence_value;
  ID3D12RootSignature *rs_ia, *rs_uav0;
};

static int fail(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  if (err && n) {
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

uint32_t dev_format_bpp(uint32_t f) {
  switch (f) {
    case DXGI_FORMAT_R8G8B8A8_UNORM: case DXGI_FORMAT_R8G8B8A8_UNORM_SRGB:
    case DXGI_FORMAT_R8G8B8A8_UINT: case DXGI_FORMAT_B8G8R8A8_UNORM:
    case DXGI_FORMAT_B8G8R8A8_UNORM_SRGB: case DXGI_FORMAT_R10G10B10A2_UNORM:
    case DXGI_FORMAT_R11G11B10_FLOAT: case DXGI_FORMAT_R32_FLOAT: case DXGI_FORMAT_R32_UINT:
      return 4;
    case DXGI_FORMAT_R16G16B16A16_FLOAT: case DXGI_FORMAT_R16G16B16A16_UNORM:
      return 8;
    case DXGI_FORMAT_R32G32B32A32_FLOAT: case DXGI_FORMAT_R32G32B32A32_UINT:
      return 16;
    default:
      return 0;
  }
}

static ID3D12RootSignature *make_rs(ID3D12Device *device, const D3D12_ROOT_SIGNATURE_DESC *desc) {
  ID3DBlob *blob = NULL, *errors = NULL;
  ID3D12RootSignature *rs = NULL;
  if (FAILED(D3D12SerializeRootSignature(desc, D3D_ROOT_SIGNATURE_VERSION_1_0, &blob, &errors)))
    return NULL;
  if (FAILED(ID3D12Device_CreateRootSignature(device, 0, ID3D10Blob_GetBufferPointer(blob),
                                              ID3D10Blob_GetBufferSize(blob),
                                              &IID_ID3D12RootSignature, (void **)&rs)))
    rs = NULL;
  ID3D10Blob_Release(blob);
  if (errors) ID3D10Blob_Release(errors);
  return rs;
}

int dev_create(dev **out, char *err, size_t n) {
  dev *d = calloc(1, sizeof *d);
  D3D12_COMMAND_QUEUE_DESC qd;
  D3D12_ROOT_SIGNATURE_DESC rsd;
  D3D12_ROOT_PARAMETER param;
  HRESULT hr;
  *out = NULL;
  if (!d) return fail(err, n, "out of memory");
  hr = D3D12CreateDevice(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&d->device);
  if (FAILED(hr)) {
    free(d);
    return fail(err, n, "D3D12CreateDevice failed (hr 0x%08lx): no Vulkan driver?", (unsigned long)hr);
  }
  memset(&qd, 0, sizeof qd);
  qd.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
  if (FAILED(ID3D12Device_CreateCommandQueue(d->device, &qd, &IID_ID3D12CommandQueue, (void **)&d->queue)) ||
      FAILED(ID3D12Device_CreateCommandAllocator(d->device, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                                 &IID_ID3D12CommandAllocator, (void **)&d->allocator)) ||
      FAILED(ID3D12Device_CreateFence(d->device, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
                                      (void **)&d->fence))) {
    dev_destroy(d);
    return fail(err, n, "cannot create the queue, allocator or fence");
  }
  memset(&rsd, 0, sizeof rsd);
  rsd.Flags = D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT;
  d->rs_ia = make_rs(d->device, &rsd);
  memset(&param, 0, sizeof param);
  param.ParameterType = D3D12_ROOT_PARAMETER_TYPE_UAV;
  param.ShaderVisibility = D3D12_SHADER_VISIBILITY_ALL;
  rsd.NumParameters = 1;
  rsd.pParameters = &param;
  rsd.Flags = D3D12_ROOT_SIGNATURE_FLAG_NONE;
  d->rs_uav0 = make_rs(d->device, &rsd);
  if (!d->rs_ia || !d->rs_uav0) {
    dev_destroy(d);
    return fail(err, n, "cannot create the root signatures");
  }
  *out = d;
  return 0;
}

void dev_destroy(dev *d) {
  if (!d) return;
  if (d->rs_uav0) ID3D12RootSignature_Release(d->rs_uav0);
  if (d->rs_ia) ID3D12RootSignature_Release(d->rs_ia);
  if (d->fence) ID3D12Fence_Release(d->fence);
  if (d->allocator) ID3D12CommandAllocator_Release(d->allocator);
  if (d->queue) ID3D12CommandQueue_Release(d->queue);
  if (d->device) ID3D12Device_Release(d->device);
  free(d);
}

void *dev_root_signature(dev *d, const char *name) {
  if (strcmp(name, "ia") == 0) return d->rs_ia;
  if (strcmp(name, "uav0") == 0) return d->rs_uav0;
  return NULL;
}

long dev_create_graphics(dev *d, const void *desc, size_t desc_size) {
  ID3D12PipelineState *pso = NULL;
  HRESULT hr;
  if (desc_size != sizeof(D3D12_GRAPHICS_PIPELINE_STATE_DESC)) return (long)E_INVALIDARG;
  hr = ID3D12Device_CreateGraphicsPipelineState(d->device, (const D3D12_GRAPHICS_PIPELINE_STATE_DESC *)desc,
                                                &IID_ID3D12PipelineState, (void **)&pso);
  if (SUCCEEDED(hr)) ID3D12PipelineState_Release(pso);
  return (long)hr;
}

static double now_ms(void) { return (double)psoc_plat_now_ns() / 1e6; }

/* Execute one closed list and poll the fence until it completes. */
static int submit(dev *d, ID3D12GraphicsCommandList *list, char *err, size_t n) {
  ID3D12CommandList *lists[1];
  double deadline;
  if (FAILED(ID3D12GraphicsCommandList_Close(list))) return fail(err, n, "Close failed");
  lists[0] = (ID3D12CommandList *)list;
  ID3D12CommandQueue_ExecuteCommandLists(d->queue, 1, lists);
  d->fence_value++;
  if (FAILED(ID3D12CommandQueue_Signal(d->queue, d->fence, d->fence_value)))
    return fail(err, n, "Signal failed");
  deadline = now_ms() + FENCE_DEADLINE_MS;
  while (ID3D12Fence_GetCompletedValue(d->fence) < d->fence_value) {
    struct timespec ts = { 0, 50000 };
    if (now_ms() > deadline) return fail(err, n, "the GPU did not finish within %d ms", FENCE_DEADLINE_MS);
    nanosleep(&ts, NULL);
  }
  return 0;
}

static ID3D12Resource *buffer(dev *d, D3D12_HEAP_TYPE heap, UINT64 size, D3D12_RESOURCE_FLAGS flags,
                              D3D12_RESOURCE_STATES state) {
  D3D12_HEAP_PROPERTIES hp;
  D3D12_RESOURCE_DESC rd;
  ID3D12Resource *r = NULL;
  memset(&hp, 0, sizeof hp);
  hp.Type = heap;
  memset(&rd, 0, sizeof rd);
  rd.Dimension = D3D12_RESOURCE_DIMENSION_BUFFER;
  rd.Width = size;
  rd.Height = 1;
  rd.DepthOrArraySize = 1;
  rd.MipLevels = 1;
  rd.SampleDesc.Count = 1;
  rd.Layout = D3D12_TEXTURE_LAYOUT_ROW_MAJOR;
  rd.Flags = flags;
  if (FAILED(ID3D12Device_CreateCommittedResource(d->device, &hp, D3D12_HEAP_FLAG_NONE, &rd, state, NULL,
                                                  &IID_ID3D12Resource, (void **)&r)))
    return NULL;
  return r;
}

static ID3D12Resource *texture(dev *d, DXGI_FORMAT format, D3D12_RESOURCE_FLAGS flags,
                               D3D12_RESOURCE_STATES state, UINT samples) {
  D3D12_HEAP_PROPERTIES hp;
  D3D12_RESOURCE_DESC rd;
  ID3D12Resource *r = NULL;
  memset(&hp, 0, sizeof hp);
  hp.Type = D3D12_HEAP_TYPE_DEFAULT;
  memset(&rd, 0, sizeof rd);
  rd.Dimension = D3D12_RESOURCE_DIMENSION_TEXTURE2D;
  rd.Width = DEV_SIZE;
  rd.Height = DEV_SIZE;
  rd.DepthOrArraySize = 1;
  rd.MipLevels = 1;
  rd.Format = format;
  rd.SampleDesc.Count = samples ? samples : 1;
  rd.Layout = D3D12_TEXTURE_LAYOUT_UNKNOWN;
  rd.Flags = flags;
  if (FAILED(ID3D12Device_CreateCommittedResource(d->device, &hp, D3D12_HEAP_FLAG_NONE, &rd, state, NULL,
                                                  &IID_ID3D12Resource, (void **)&r)))
    return NULL;
  return r;
}

static void transition(ID3D12GraphicsCommandList *list, ID3D12Resource *r, D3D12_RESOURCE_STATES from,
                       D3D12_RESOURCE_STATES to) {
  D3D12_RESOURCE_BARRIER b;
  memset(&b, 0, sizeof b);
  b.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
  b.Transition.pResource = r;
  b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
  b.Transition.StateBefore = from;
  b.Transition.StateAfter = to;
  ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &b);
}

static int has_stencil(DXGI_FORMAT f) {
  return f == DXGI_FORMAT_D24_UNORM_S8_UINT || f == DXGI_FORMAT_D32_FLOAT_S8X24_UINT;
}

void dev_images_free(dev_image images[DEV_MAX_RTS]) {
  int i;
  for (i = 0; i < DEV_MAX_RTS; i++) {
    free(images[i].data);
    images[i].data = NULL;
  }
}

int dev_draw(dev *d, const dev_frame *f, dev_image out[DEV_MAX_RTS], char *err, size_t n) {
  return dev_draw_frames(d, f, 1, out, err, n);
}

int dev_draw_frames(dev *d, const dev_frame *frames, uint32_t nframes, dev_image out[DEV_MAX_RTS], char *err,
                    size_t n) {
  const dev_frame *f = frames;
  const D3D12_GRAPHICS_PIPELINE_STATE_DESC *desc = f->graphics_desc;
  ID3D12PipelineState *psos[DEV_MAX_FRAMES] = { 0 };
  uint32_t fi;
  ID3D12GraphicsCommandList *list = NULL;
  ID3D12Resource *rt[DEV_MAX_RTS] = { 0 }, *ds = NULL, *vb[DEV_MAX_FRAMES][2] = { { 0 } }, *readback = NULL;
  ID3D12DescriptorHeap *rtv_heap = NULL, *dsv_heap = NULL;
  D3D12_DESCRIPTOR_HEAP_DESC hd;
  D3D12_CPU_DESCRIPTOR_HANDLE rtv[DEV_MAX_RTS], dsv = { 0 };
  D3D12_VERTEX_BUFFER_VIEW views[DEV_MAX_FRAMES][2];
  D3D12_VIEWPORT vp = { 0, 0, DEV_SIZE, DEV_SIZE, 0, 1 };
  D3D12_RECT sc = { 0, 0, DEV_SIZE, DEV_SIZE };
  UINT rt_count, i, inc;
  UINT64 pitch[DEV_MAX_RTS], offset[DEV_MAX_RTS], total = 0;
  HRESULT hr;
  int rc = -1;
  memset(out, 0, sizeof(dev_image) * DEV_MAX_RTS);
  if (nframes == 0 || nframes > DEV_MAX_FRAMES) return fail(err, n, "1 to %d frames", DEV_MAX_FRAMES);
  for (fi = 0; fi < nframes; fi++)
    if (frames[fi].desc_size != sizeof *desc)
      return fail(err, n, "desc size %zu, vkd3d's is %zu", frames[fi].desc_size, sizeof *desc);
  rt_count = desc->NumRenderTargets;
  if (rt_count > DEV_MAX_RTS) return fail(err, n, "NumRenderTargets %u", rt_count);
  for (fi = 0; fi < nframes; fi++) {
    hr = ID3D12Device_CreateGraphicsPipelineState(d->device, frames[fi].graphics_desc, &IID_ID3D12PipelineState,
                                                  (void **)&psos[fi]);
    if (FAILED(hr)) {
      fail(err, n, "CreateGraphicsPipelineState failed (hr 0x%08lx)", (unsigned long)hr);
      goto done;
    }
  }

  memset(&hd, 0, sizeof hd);
  hd.Type = D3D12_DESCRIPTOR_HEAP_TYPE_RTV;
  hd.NumDescriptors = DEV_MAX_RTS;
  if (FAILED(ID3D12Device_CreateDescriptorHeap(d->device, &hd, &IID_ID3D12DescriptorHeap, (void **)&rtv_heap))) {
    fail(err, n, "cannot create the RTV heap");
    goto done;
  }
  hd.Type = D3D12_DESCRIPTOR_HEAP_TYPE_DSV;
  hd.NumDescriptors = 1;
  if (FAILED(ID3D12Device_CreateDescriptorHeap(d->device, &hd, &IID_ID3D12DescriptorHeap, (void **)&dsv_heap))) {
    fail(err, n, "cannot create the DSV heap");
    goto done;
  }
  inc = ID3D12Device_GetDescriptorHandleIncrementSize(d->device, D3D12_DESCRIPTOR_HEAP_TYPE_RTV);
  for (i = 0; i < rt_count; i++) {
    uint32_t bpp = dev_format_bpp(desc->RTVFormats[i]);
    if (!bpp) {
      fail(err, n, "render target %u: format %u is not one the suite reads back", i,
           (unsigned)desc->RTVFormats[i]);
      goto done;
    }
    rt[i] = texture(d, desc->RTVFormats[i], D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET,
                    D3D12_RESOURCE_STATE_RENDER_TARGET, desc->SampleDesc.Count);
    if (!rt[i]) {
      fail(err, n, "cannot create render target %u (format %u)", i, (unsigned)desc->RTVFormats[i]);
      goto done;
    }
    rtv[i] = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(rtv_heap);
    rtv[i].ptr += (SIZE_T)inc * i;
    ID3D12Device_CreateRenderTargetView(d->device, rt[i], NULL, rtv[i]);
    out[i].format = desc->RTVFormats[i];
    out[i].bpp = bpp;
    pitch[i] = ((DEV_SIZE * bpp) + 255u) & ~(UINT64)255u;
    offset[i] = total;
    total += pitch[i] * DEV_SIZE;
    total = (total + 511u) & ~(UINT64)511u;
  }
  if (desc->DSVFormat != DXGI_FORMAT_UNKNOWN) {
    ds = texture(d, desc->DSVFormat, D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL, D3D12_RESOURCE_STATE_DEPTH_WRITE,
                 desc->SampleDesc.Count);
    if (!ds) {
      fail(err, n, "cannot create the depth buffer (format %u)", (unsigned)desc->DSVFormat);
      goto done;
    }
    dsv = ID3D12DescriptorHeap_GetCPUDescriptorHandleForHeapStart(dsv_heap);
    ID3D12Device_CreateDepthStencilView(d->device, ds, NULL, dsv);
  }
  for (fi = 0; fi < nframes; fi++) {
    for (i = 0; i < frames[fi].nvb && i < 2; i++) {
      void *p;
      D3D12_RANGE none = { 0, 0 };
      vb[fi][i] = buffer(d, D3D12_HEAP_TYPE_UPLOAD, frames[fi].vb[i].size, D3D12_RESOURCE_FLAG_NONE,
                         D3D12_RESOURCE_STATE_GENERIC_READ);
      if (!vb[fi][i] || FAILED(ID3D12Resource_Map(vb[fi][i], 0, &none, &p))) {
        fail(err, n, "cannot create vertex buffer %u", i);
        goto done;
      }
      memcpy(p, frames[fi].vb[i].data, frames[fi].vb[i].size);
      ID3D12Resource_Unmap(vb[fi][i], 0, NULL);
      views[fi][i].BufferLocation = ID3D12Resource_GetGPUVirtualAddress(vb[fi][i]);
      views[fi][i].SizeInBytes = frames[fi].vb[i].size;
      views[fi][i].StrideInBytes = frames[fi].vb[i].stride;
    }
  }
  if (rt_count) {
    readback = buffer(d, D3D12_HEAP_TYPE_READBACK, total, D3D12_RESOURCE_FLAG_NONE, D3D12_RESOURCE_STATE_COPY_DEST);
    if (!readback) {
      fail(err, n, "cannot create the readback buffer");
      goto done;
    }
  }
  if (FAILED(ID3D12CommandAllocator_Reset(d->allocator)) ||
      FAILED(ID3D12Device_CreateCommandList(d->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, d->allocator, NULL,
                                            &IID_ID3D12GraphicsCommandList, (void **)&list))) {
    fail(err, n, "cannot create the command list");
    goto done;
  }
  for (i = 0; i < rt_count; i++) ID3D12GraphicsCommandList_ClearRenderTargetView(list, rtv[i], f->clear[i], 0, NULL);
  if (ds)
    ID3D12GraphicsCommandList_ClearDepthStencilView(
        list, dsv, D3D12_CLEAR_FLAG_DEPTH | (has_stencil(desc->DSVFormat) ? D3D12_CLEAR_FLAG_STENCIL : 0),
        f->depth_clear, f->stencil_clear, 0, NULL);
  ID3D12GraphicsCommandList_OMSetRenderTargets(list, rt_count, rt_count ? rtv : NULL, FALSE, ds ? &dsv : NULL);
  ID3D12GraphicsCommandList_RSSetViewports(list, 1, &vp);
  ID3D12GraphicsCommandList_RSSetScissorRects(list, 1, &sc);
  for (fi = 0; fi < nframes; fi++) {
    const dev_frame *g = &frames[fi];
    const D3D12_GRAPHICS_PIPELINE_STATE_DESC *gd = g->graphics_desc;
    ID3D12GraphicsCommandList_SetGraphicsRootSignature(list, gd->pRootSignature);
    ID3D12GraphicsCommandList_SetPipelineState(list, psos[fi]);
    ID3D12GraphicsCommandList_IASetPrimitiveTopology(list, (D3D12_PRIMITIVE_TOPOLOGY)g->topology);
    if (g->nvb) ID3D12GraphicsCommandList_IASetVertexBuffers(list, 0, g->nvb, views[fi]);
    ID3D12GraphicsCommandList_OMSetStencilRef(list, g->stencil_ref);
    ID3D12GraphicsCommandList_OMSetBlendFactor(list, g->blend_factor);
    for (i = 0; i < g->ndraws && i < DEV_MAX_DRAWS; i++)
      ID3D12GraphicsCommandList_DrawInstanced(list, g->draws[i].vertex_count, g->draws[i].instance_count,
                                              g->draws[i].first_vertex, g->draws[i].first_instance);
  }
  for (i = 0; i < rt_count; i++) {
    D3D12_TEXTURE_COPY_LOCATION dst, src;
    transition(list, rt[i], D3D12_RESOURCE_STATE_RENDER_TARGET, D3D12_RESOURCE_STATE_COPY_SOURCE);
    memset(&dst, 0, sizeof dst);
    dst.pResource = readback;
    dst.Type = D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT;
    dst.PlacedFootprint.Offset = offset[i];
    dst.PlacedFootprint.Footprint.Format = desc->RTVFormats[i];
    dst.PlacedFootprint.Footprint.Width = DEV_SIZE;
    dst.PlacedFootprint.Footprint.Height = DEV_SIZE;
    dst.PlacedFootprint.Footprint.Depth = 1;
    dst.PlacedFootprint.Footprint.RowPitch = (UINT)pitch[i];
    memset(&src, 0, sizeof src);
    src.pResource = rt[i];
    src.Type = D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX;
    src.SubresourceIndex = 0;
    ID3D12GraphicsCommandList_CopyTextureRegion(list, &dst, 0, 0, 0, &src, NULL);
  }
  if (submit(d, list, err, n)) goto done;
  if (rt_count) {
    unsigned char *p;
    D3D12_RANGE all = { 0, (SIZE_T)total };
    if (FAILED(ID3D12Resource_Map(readback, 0, &all, (void **)&p))) {
      fail(err, n, "cannot map the readback buffer");
      goto done;
    }
    for (i = 0; i < rt_count; i++) {
      UINT y;
      out[i].data = malloc((size_t)DEV_SIZE * DEV_SIZE * out[i].bpp);
      if (!out[i].data) break;
      for (y = 0; y < DEV_SIZE; y++)
        memcpy(out[i].data + (size_t)y * DEV_SIZE * out[i].bpp, p + offset[i] + pitch[i] * y,
               (size_t)DEV_SIZE * out[i].bpp);
    }
    ID3D12Resource_Unmap(readback, 0, NULL);
    if (i < rt_count) {
      fail(err, n, "out of memory");
      goto done;
    }
  }
  rc = 0;
done:
  if (rc) dev_images_free(out);
  if (list) ID3D12GraphicsCommandList_Release(list);
  if (readback) ID3D12Resource_Release(readback);
  for (fi = 0; fi < DEV_MAX_FRAMES; fi++)
    for (i = 0; i < 2; i++)
      if (vb[fi][i]) ID3D12Resource_Release(vb[fi][i]);
  if (ds) ID3D12Resource_Release(ds);
  for (i = 0; i < DEV_MAX_RTS; i++)
    if (rt[i]) ID3D12Resource_Release(rt[i]);
  if (dsv_heap) ID3D12DescriptorHeap_Release(dsv_heap);
  if (rtv_heap) ID3D12DescriptorHeap_Release(rtv_heap);
  for (fi = 0; fi < DEV_MAX_FRAMES; fi++)
    if (psos[fi]) ID3D12PipelineState_Release(psos[fi]);
  return rc;
}

int dev_dispatch(dev *d, const void *desc_bytes, size_t desc_size, uint32_t groups, uint32_t *words,
                 uint32_t nwords, char *err, size_t n) {
  const D3D12_COMPUTE_PIPELINE_STATE_DESC *desc = desc_bytes;
  ID3D12PipelineState *pso = NULL;
  ID3D12GraphicsCommandList *list = NULL;
  ID3D12Resource *uav = NULL, *readback = NULL;
  HRESULT hr;
  int rc = -1;
  if (desc_size != sizeof *desc) return fail(err, n, "desc size %zu, vkd3d's is %zu", desc_size, sizeof *desc);
  if (nwords > 64) return fail(err, n, "at most 64 words");
  hr = ID3D12Device_CreateComputePipelineState(d->device, desc, &IID_ID3D12PipelineState, (void **)&pso);
  if (FAILED(hr)) return fail(err, n, "CreateComputePipelineState failed (hr 0x%08lx)", (unsigned long)hr);
  uav = buffer(d, D3D12_HEAP_TYPE_DEFAULT, 256, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS,
               D3D12_RESOURCE_STATE_COPY_DEST);
  readback = buffer(d, D3D12_HEAP_TYPE_READBACK, 256, D3D12_RESOURCE_FLAG_NONE, D3D12_RESOURCE_STATE_COPY_DEST);
  if (!uav || !readback) {
    fail(err, n, "cannot create the buffers");
    goto done;
  }
  if (FAILED(ID3D12CommandAllocator_Reset(d->allocator)) ||
      FAILED(ID3D12Device_CreateCommandList(d->device, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, d->allocator, NULL,
                                            &IID_ID3D12GraphicsCommandList, (void **)&list))) {
    fail(err, n, "cannot create the command list");
    goto done;
  }
  transition(list, uav, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS);
  ID3D12GraphicsCommandList_SetComputeRootSignature(list, desc->pRootSignature);
  ID3D12GraphicsCommandList_SetPipelineState(list, pso);
  ID3D12GraphicsCommandList_SetComputeRootUnorderedAccessView(list, 0, ID3D12Resource_GetGPUVirtualAddress(uav));
  ID3D12GraphicsCommandList_Dispatch(list, groups, 1, 1);
  transition(list, uav, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE);
  ID3D12GraphicsCommandList_CopyBufferRegion(list, readback, 0, uav, 0, 256);
  if (submit(d, list, err, n)) goto done;
  {
    void *p;
    D3D12_RANGE all = { 0, 256 };
    if (FAILED(ID3D12Resource_Map(readback, 0, &all, &p))) {
      fail(err, n, "cannot map the readback buffer");
      goto done;
    }
    memcpy(words, p, (size_t)nwords * 4);
    ID3D12Resource_Unmap(readback, 0, NULL);
  }
  rc = 0;
done:
  if (list) ID3D12GraphicsCommandList_Release(list);
  if (readback) ID3D12Resource_Release(readback);
  if (uav) ID3D12Resource_Release(uav);
  if (pso) ID3D12PipelineState_Release(pso);
  return rc;
}
