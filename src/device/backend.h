/*
** backend.h: the device suite's Direct3D 12 device (vkd3d on Vulkan), seen
** without any d3d12.h: vkd3d's headers conflict with DirectX-Headers', so
** vkd3d lives alone in backend_vkd3d.c and the descs psoc resolves (laid
** out by DirectX-Headers) cross this interface as bytes of the same layout.
*/
#ifndef PSOC_DEVICE_BACKEND_H
#define PSOC_DEVICE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#define DEV_SIZE 64      /* render targets are DEV_SIZE x DEV_SIZE */
#define DEV_MAX_RTS 8
#define DEV_MAX_DRAWS 4
#define DEV_MAX_FRAMES 4

typedef struct dev dev;

typedef struct dev_vb {
  const void *data;
  uint32_t size, stride;
} dev_vb;

typedef struct dev_drawcall {
  uint32_t vertex_count, instance_count, first_vertex, first_instance;
} dev_drawcall;

typedef struct dev_frame {
  const void *graphics_desc;   /* D3D12_GRAPHICS_PIPELINE_STATE_DESC */
  size_t desc_size;            /* its sizeof, checked against vkd3d's */
  dev_vb vb[2];
  uint32_t nvb;
  uint32_t topology;           /* D3D_PRIMITIVE_TOPOLOGY */
  dev_drawcall draws[DEV_MAX_DRAWS];
  uint32_t ndraws;
  float clear[DEV_MAX_RTS][4];
  float depth_clear;
  uint8_t stencil_clear;
  uint32_t stencil_ref;
  float blend_factor[4];
} dev_frame;

typedef struct dev_image {
  uint32_t format;             /* DXGI_FORMAT */
  uint32_t bpp;                /* bytes per pixel */
  unsigned char *data;         /* DEV_SIZE * DEV_SIZE * bpp, rows packed */
} dev_image;

/* Bytes per pixel of the render-target formats the suite uses; 0 if unknown. */
uint32_t dev_format_bpp(uint32_t dxgi_format);

/* Create the device (D3D12CreateDevice from vkd3d-utils), a queue, and the
** root signatures the suite names: "ia" (input assembler, no parameters),
** "uav0" (one root UAV at u0). 0 on success. */
int dev_create(dev **out, char *err, size_t errlen);
void dev_destroy(dev *d);
/* The ID3D12RootSignature* for a name, or NULL. */
void *dev_root_signature(dev *d, const char *name);
/* CreateGraphicsPipelineState only: the HRESULT (0 = S_OK); releases the PSO. */
long dev_create_graphics(dev *d, const void *desc, size_t desc_size);
/* Create the PSO, clear, draw, read every render target back. Fills
** out[0 .. NumRenderTargets-1] (free with dev_images_free). 0 on success. */
int dev_draw(dev *d, const dev_frame *frame, dev_image out[DEV_MAX_RTS], char *err, size_t errlen);
/* The same with several pipelines drawn in order into the same targets:
** frames[0] gives the targets (its desc's formats), clears and the first
** draws; each later frame binds its own PSO, vertex buffers and draws
** (their descs must use the same target and depth formats). */
int dev_draw_frames(dev *d, const dev_frame *frames, uint32_t nframes, dev_image out[DEV_MAX_RTS], char *err,
                    size_t errlen);
void dev_images_free(dev_image images[DEV_MAX_RTS]);
/* Create a compute PSO (D3D12_COMPUTE_PIPELINE_STATE_DESC bytes), bind a
** zeroed 256-byte raw buffer as the root UAV of parameter 0, dispatch
** groups x 1 x 1, read the first 'nwords' words back. 0 on success. */
int dev_dispatch(dev *d, const void *desc, size_t desc_size, uint32_t groups, uint32_t *words,
                 uint32_t nwords, char *err, size_t errlen);

#endif
