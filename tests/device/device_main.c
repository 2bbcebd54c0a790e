/*
** device_main.c: the device suite. Each case names a pipeline of a material
** script in tests/device/materials; the pipeline goes
**   script -> psoc stream (psol, sandboxed) -> psoc_check (must pass, no
**   warnings) -> psoc_resolve -> D3D12_GRAPHICS/COMPUTE_PIPELINE_STATE_DESC
**   -> vkd3d (backend_vkd3d.c) -> draw or dispatch -> read back
** and the pixels at the case's probes must be what the declared state
** implies (worked out by hand in the table below, not by a model of the
** pipeline). vkd3d's own messages (VKD3D_DEBUG=warn, stderr captured per
** case) fail the case. Negative cases show pipelines psoc rejects that
** vkd3d creates: psoc's diagnostics are printed beside vkd3d's verdict.
**
**   psoc_device_tests [-v] [CASE...]     run all cases or the named ones
**
** Run from the repository root (material paths are relative to it).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "psoc.h"
#include "psol.h"

#define MAT "tests/device/materials/"

/* ---- geometry ------------------------------------------------------------ */

typedef struct vtx {
  float x, y, z, r, g, b, a;
} vtx;

enum geometry {
  G_FULL,        /* one full-screen clockwise triangle, colour S, depth z[0] */
  G_FULL_CCW,    /* the same, counter-clockwise */
  G_FULL_TWICE,  /* two full-screen draws: z[0] red, then z[1] green */
  G_THIRDS,      /* three vertical strips at depths z[0], z[1], z[2], colour S */
  G_HALVES,      /* left half clockwise, right half counter-clockwise, colour S */
  G_WIRE,        /* a triangle inside the target (edges at known pixels) */
  G_STRIP,       /* a full-screen quad as a 4-vertex triangle strip */
  G_LINE,        /* a horizontal line through pixel row 32 */
  G_POINT,       /* a point at the centre of pixel (32, 32) */
  G_OFFSETS,     /* G_FULL in a 32-byte vertex: COLOR at 0, POSITION at 20 */
  G_SLOTS,       /* G_FULL with POSITION in slot 0, COLOR in slot 1 */
  G_INSTANCES    /* a small triangle, two instances: offset and colour per instance */
};

/* The source colour S and the clear colour D used by most cases. */
#define S_COLOR { 1.0f, 0.75f, 0.0f, 0.5f }
#define D_COLOR { 0.25f, 0.5f, 1.0f, 1.0f }

typedef struct probe {
  int x, y, rt;
  float v[4];   /* expected stored value: UNORM as 0..1 of the stored byte,
                   sRGB as the encoded value, UINT as the integer */
} probe;

typedef struct dcase {
  const char *name, *script, *pipeline;
  int geometry;
  float z[3];
  float clear_depth;
  unsigned stencil_clear, stencil_ref;
  probe probes[4];
  /* A known gap of vkd3d 1.2 (not of psoc): when the pixels differ from
  ** the declared state's and vkd3d printed a line containing gap_msg (or
  ** gap_msg is NULL), the case is reported as GAP with gap_note instead of
  ** failing. Pixels as declared still pass. */
  const char *gap_msg, *gap_note;
} dcase;

#define P(x, y, r, g, b, a) { x, y, 0, { r, g, b, a } }
#define P1(x, y, r, g, b, a) { x, y, 1, { r, g, b, a } }
#define SP(x, y) P(x, y, 1.0f, 0.75f, 0.0f, 0.5f)   /* S landed */
#define DP(x, y) P(x, y, 0.25f, 0.5f, 1.0f, 1.0f)   /* only the clear colour */
#define RED(x, y) P(x, y, 1, 0, 0, 1)
#define GREEN(x, y) P(x, y, 0, 1, 0, 1)

/* Probes at the centre and in the three strips of G_THIRDS. */
static const dcase CASES[] = {
  /* culling and winding: a clockwise triangle is front-facing by default */
  { "cull_back", "raster.lua", "cull_back", G_FULL, { 0.5f }, 1, 0, 0, { SP(32, 32) }, NULL, NULL },
  { "cull_back_ccw", "raster.lua", "cull_back", G_FULL_CCW, { 0.5f }, 1, 0, 0, { DP(32, 32) }, NULL, NULL },
  { "cull_front", "raster.lua", "cull_front", G_FULL, { 0.5f }, 1, 0, 0, { DP(32, 32) }, NULL, NULL },
  { "cull_front_ccw", "raster.lua", "cull_front", G_FULL_CCW, { 0.5f }, 1, 0, 0, { SP(32, 32) }, NULL, NULL },
  { "cull_none", "raster.lua", "cull_none", G_FULL, { 0.5f }, 1, 0, 0, { SP(32, 32) }, NULL, NULL },
  { "cull_none_ccw", "raster.lua", "cull_none", G_FULL_CCW, { 0.5f }, 1, 0, 0, { SP(32, 32) }, NULL, NULL },
  { "front_ccw_cull_back", "raster.lua", "front_ccw_cull_back", G_FULL, { 0.5f }, 1, 0, 0, { DP(32, 32) }, NULL, NULL },
  { "front_ccw_cull_back_ccw", "raster.lua", "front_ccw_cull_back", G_FULL_CCW, { 0.5f }, 1, 0, 0,
    { SP(32, 32) }, NULL, NULL },
  /* fill mode: the interior pixel (16, 40) only when solid; the left edge
  ** (column 8) in wireframe */
  { "fill_solid", "raster.lua", "fill_solid", G_WIRE, { 0.5f }, 1, 0, 0, { SP(16, 40), DP(4, 32) }, NULL, NULL },
  { "fill_wireframe", "raster.lua", "fill_wireframe", G_WIRE, { 0.5f }, 1, 0, 0,
    { DP(16, 40), SP(8, 32), DP(4, 32) }, NULL, NULL },

  /* blending: S = (1, .75, 0, .5) over D = (.25, .5, 1, 1) */
  { "blend_opaque", "blend.lua", "blend_opaque", G_FULL, { 0.5f }, 1, 0, 0, { SP(32, 32) }, NULL, NULL },
  /* src_alpha, inv_src_alpha (alpha: one, inv_src_alpha) */
  { "blend_alpha", "blend.lua", "blend_alpha", G_FULL, { 0.5f }, 1, 0, 0,
    { P(32, 32, 0.625f, 0.625f, 0.5f, 1.0f) }, NULL, NULL },
  /* one, inv_src_alpha: 1 + .125 clamps to 1 */
  { "blend_premultiplied", "blend.lua", "blend_premultiplied", G_FULL, { 0.5f }, 1, 0, 0,
    { P(32, 32, 1.0f, 1.0f, 0.5f, 1.0f) }, NULL, NULL },
  { "blend_additive", "blend.lua", "blend_additive", G_FULL, { 0.5f }, 1, 0, 0,
    { P(32, 32, 1.0f, 1.0f, 1.0f, 1.0f) }, NULL, NULL },
  /* dest_color, zero (alpha: dest_alpha, zero) */
  { "blend_multiply", "blend.lua", "blend_multiply", G_FULL, { 0.5f }, 1, 0, 0,
    { P(32, 32, 0.25f, 0.375f, 0.0f, 0.5f) }, NULL, NULL },
  /* colour ops; alpha stays one, zero, add: .5 */
  { "blend_subtract", "blend.lua", "blend_subtract", G_FULL, { 0.5f }, 1, 0, 0,
    { P(32, 32, 0.75f, 0.25f, 0.0f, 0.5f) }, NULL, NULL },
  { "blend_rev_subtract", "blend.lua", "blend_rev_subtract", G_FULL, { 0.5f }, 1, 0, 0,
    { P(32, 32, 0.0f, 0.0f, 1.0f, 0.5f) }, NULL, NULL },
  { "blend_min", "blend.lua", "blend_min", G_FULL, { 0.5f }, 1, 0, 0, { P(32, 32, 0.25f, 0.5f, 0.0f, 0.5f) }, NULL, NULL },
  { "blend_max", "blend.lua", "blend_max", G_FULL, { 0.5f }, 1, 0, 0, { P(32, 32, 1.0f, 0.75f, 1.0f, 0.5f) }, NULL, NULL },
  /* blend factor .25 (set by the suite): S * .25 + D * .75 */
  { "blend_factor", "blend.lua", "blend_factor", G_FULL, { 0.5f }, 1, 0, 0,
    { P(32, 32, 0.4375f, 0.5625f, 0.75f, 0.5f) }, NULL, NULL },
  { "blend_inv_dest_color", "blend.lua", "blend_inv_dest_color", G_FULL, { 0.5f }, 1, 0, 0,
    { P(32, 32, 0.75f, 0.375f, 0.0f, 0.5f) }, NULL, NULL },
  /* write masks keep D in the masked-out channels */
  { "write_mask_r", "blend.lua", "write_mask_r", G_FULL, { 0.5f }, 1, 0, 0, { P(32, 32, 1.0f, 0.5f, 1.0f, 1.0f) }, NULL, NULL },
  { "write_mask_ga", "blend.lua", "write_mask_ga", G_FULL, { 0.5f }, 1, 0, 0,
    { P(32, 32, 0.25f, 0.75f, 1.0f, 0.5f) }, NULL, NULL },
  { "write_mask_none", "blend.lua", "write_mask_none", G_FULL, { 0.5f }, 1, 0, 0, { DP(32, 32) }, NULL, NULL },
  /* logic ops on R8G8B8A8_UINT: PS (0xf0, 0x0f, 0xff, 0x00), cleared to 0x3c */
  { "logic_xor", "blend.lua", "logic_xor", G_FULL, { 0.5f }, 1, 0, 0, { P(32, 32, 0xcc, 0x33, 0xc3, 0x3c) }, "Ignoring LogicOpEnable", "vkd3d 1.2 ignores LogicOpEnable (fixme in blend_attachment_from_d3d12)" },
  { "logic_and", "blend.lua", "logic_and", G_FULL, { 0.5f }, 1, 0, 0, { P(32, 32, 0x30, 0x0c, 0x3c, 0x00) }, "Ignoring LogicOpEnable", "vkd3d 1.2 ignores LogicOpEnable (fixme in blend_attachment_from_d3d12)" },
  { "logic_or", "blend.lua", "logic_or", G_FULL, { 0.5f }, 1, 0, 0, { P(32, 32, 0xfc, 0x3f, 0xff, 0x3c) }, "Ignoring LogicOpEnable", "vkd3d 1.2 ignores LogicOpEnable (fixme in blend_attachment_from_d3d12)" },
  { "logic_copy_inverted", "blend.lua", "logic_copy_inverted", G_FULL, { 0.5f }, 1, 0, 0,
    { P(32, 32, 0x0f, 0xf0, 0x00, 0xff) }, "Ignoring LogicOpEnable", "vkd3d 1.2 ignores LogicOpEnable (fixme in blend_attachment_from_d3d12)" },

  /* depth functions: strips at .25, .5, .75 against a buffer cleared to .5 */
  { "depth_never", "depth.lua", "depth_never", G_THIRDS, { .25f, .5f, .75f }, .5f, 0, 0,
    { DP(10, 32), DP(32, 32), DP(54, 32) }, NULL, NULL },
  { "depth_less", "depth.lua", "depth_less", G_THIRDS, { .25f, .5f, .75f }, .5f, 0, 0,
    { SP(10, 32), DP(32, 32), DP(54, 32) }, NULL, NULL },
  { "depth_equal", "depth.lua", "depth_equal", G_THIRDS, { .25f, .5f, .75f }, .5f, 0, 0,
    { DP(10, 32), SP(32, 32), DP(54, 32) }, NULL, NULL },
  { "depth_less_equal", "depth.lua", "depth_less_equal", G_THIRDS, { .25f, .5f, .75f }, .5f, 0, 0,
    { SP(10, 32), SP(32, 32), DP(54, 32) }, NULL, NULL },
  { "depth_greater", "depth.lua", "depth_greater", G_THIRDS, { .25f, .5f, .75f }, .5f, 0, 0,
    { DP(10, 32), DP(32, 32), SP(54, 32) }, NULL, NULL },
  { "depth_not_equal", "depth.lua", "depth_not_equal", G_THIRDS, { .25f, .5f, .75f }, .5f, 0, 0,
    { SP(10, 32), DP(32, 32), SP(54, 32) }, NULL, NULL },
  { "depth_greater_equal", "depth.lua", "depth_greater_equal", G_THIRDS, { .25f, .5f, .75f }, .5f, 0, 0,
    { DP(10, 32), SP(32, 32), SP(54, 32) }, NULL, NULL },
  { "depth_always", "depth.lua", "depth_always", G_THIRDS, { .25f, .5f, .75f }, .5f, 0, 0,
    { SP(10, 32), SP(32, 32), SP(54, 32) }, NULL, NULL },
  /* depth writes: red at .25, then green at .5, func less, cleared to 1 */
  { "depth_write_all", "depth.lua", "depth_write_all", G_FULL_TWICE, { .25f, .5f }, 1, 0, 0, { RED(32, 32) }, NULL, NULL },
  { "depth_write_zero", "depth.lua", "depth_write_zero", G_FULL_TWICE, { .25f, .5f }, 1, 0, 0,
    { GREEN(32, 32) }, NULL, NULL },
  /* depth bias: z = .5 against .5 with less fails, unless biased towards 0
  ** (-100000 * 2^-24 = -.006 for D32_FLOAT at z .5) */
  { "depth_bias_none", "depth.lua", "depth_bias_none", G_FULL, { 0.5f }, .5f, 0, 0, { DP(32, 32) }, NULL, NULL },
  { "depth_bias_negative", "depth.lua", "depth_bias_negative", G_FULL, { 0.5f }, .5f, 0, 0, { SP(32, 32) }, NULL, NULL },

  /* stencil: func equal against the reference */
  { "stencil_equal_ref", "stencil.lua", "stencil_equal_ref", G_FULL, { 0.5f }, 1, 3, 3, { SP(32, 32) }, NULL, NULL },
  { "stencil_unequal_ref", "stencil.lua", "stencil_equal_ref", G_FULL, { 0.5f }, 1, 2, 3, { DP(32, 32) }, NULL, NULL },
  /* pass ops: red then green, func equal, ref = clear value; the second
  ** draw passes only if the first one's pass op left the value alone */
  { "stencil_pass_keep", "stencil.lua", "stencil_pass_keep", G_FULL_TWICE, { .5f, .5f }, 1, 0, 0,
    { GREEN(32, 32) }, NULL, NULL },
  { "stencil_pass_incr", "stencil.lua", "stencil_pass_incr", G_FULL_TWICE, { .5f, .5f }, 1, 0, 0,
    { RED(32, 32) }, NULL, NULL },
  { "stencil_pass_invert", "stencil.lua", "stencil_pass_invert", G_FULL_TWICE, { .5f, .5f }, 1, 0, 0,
    { RED(32, 32) }, NULL, NULL },
  { "stencil_pass_zero", "stencil.lua", "stencil_pass_zero", G_FULL_TWICE, { .5f, .5f }, 1, 5, 5,
    { RED(32, 32) }, NULL, NULL },
  /* front faces (left, clockwise) and back faces (right) tested apart */
  { "stencil_front_only", "stencil.lua", "stencil_front_only", G_HALVES, { .5f }, 1, 0, 0,
    { SP(16, 32), DP(48, 32) }, NULL, NULL },
  { "stencil_back_only", "stencil.lua", "stencil_back_only", G_HALVES, { .5f }, 1, 0, 0,
    { DP(16, 32), SP(48, 32) }, NULL, NULL },

  /* render target formats: S stored as each format stores it */
  { "rt_r8g8b8a8_unorm", "formats.lua", "rt_r8g8b8a8_unorm", G_FULL, { .5f }, 1, 0, 0,
    { P(32, 32, 255 / 255.0f, 191 / 255.0f, 0.0f, 128 / 255.0f) }, NULL, NULL },
  /* sRGB encodes colour (.75 -> 225), not alpha */
  { "rt_r8g8b8a8_srgb", "formats.lua", "rt_r8g8b8a8_srgb", G_FULL, { .5f }, 1, 0, 0,
    { P(32, 32, 255 / 255.0f, 225 / 255.0f, 0.0f, 128 / 255.0f) }, NULL, NULL },
  { "rt_b8g8r8a8_unorm", "formats.lua", "rt_b8g8r8a8_unorm", G_FULL, { .5f }, 1, 0, 0, { SP(32, 32) }, NULL, NULL },
  { "rt_r16g16b16a16_float", "formats.lua", "rt_r16g16b16a16_float", G_FULL, { .5f }, 1, 0, 0, { SP(32, 32) }, NULL, NULL },
  { "rt_r32g32b32a32_float", "formats.lua", "rt_r32g32b32a32_float", G_FULL, { .5f }, 1, 0, 0, { SP(32, 32) }, NULL, NULL },
  { "rt_two_targets", "formats.lua", "rt_two_targets", G_FULL, { .5f }, 1, 0, 0,
    { SP(32, 32), P1(32, 32, 0.0f, 0.75f, 1.0f, 0.5f) }, NULL, NULL },

  /* input layouts */
  { "input_offsets", "input.lua", "input_offsets", G_OFFSETS, { .5f }, 1, 0, 0, { SP(32, 32) }, NULL, NULL },
  { "input_slots", "input.lua", "input_slots", G_SLOTS, { .5f }, 1, 0, 0, { SP(32, 32) }, NULL, NULL },
  { "input_per_instance", "input.lua", "input_per_instance", G_INSTANCES, { .5f }, 1, 0, 0,
    { RED(12, 36), GREEN(44, 36), DP(32, 36) }, NULL, NULL },
  /* topologies */
  { "topology_triangle_strip", "input.lua", "topology_triangle_strip", G_STRIP, { .5f }, 1, 0, 0,
    { SP(1, 1), SP(62, 62), SP(62, 1), SP(1, 62) }, NULL, NULL },
  { "topology_line", "input.lua", "topology_line", G_LINE, { .5f }, 1, 0, 0, { SP(32, 32), DP(32, 40) }, NULL, NULL },
  { "topology_point", "input.lua", "topology_point", G_POINT, { .5f }, 1, 0, 0,
    { SP(32, 32), DP(34, 32), DP(32, 34) }, NULL, NULL },
  /* sample mask (one sample per pixel: bit 0 decides) */
  { "sample_mask_all", "input.lua", "sample_mask_all", G_FULL, { .5f }, 1, 0, 0, { SP(32, 32) }, NULL, NULL },
  { "sample_mask_without_0", "input.lua", "sample_mask_without_0", G_FULL, { .5f }, 1, 0, 0, { DP(32, 32) }, NULL, "vkd3d 1.2 on this driver draws samples the SampleMask excludes (no message)" },
};

#define NCASES (sizeof CASES / sizeof CASES[0])

typedef struct ncase {
  const char *name, *pipeline, *why;
} ncase;

static const ncase NEGATIVES[] = {
  { "ps_in_vs_slot", "ps_in_vs_slot", "a pixel shader's bytecode in the VS slot" },
  { "missing_semantic", "missing_semantic", "the VS reads COLOR; the input layout lacks it" },
};

/* ---- scripts -------------------------------------------------------------- */

static dev *g_dev;
static int g_verbose;

static void *resolve_rs(void *ud, const char *name) {
  (void)ud;
  return g_dev ? dev_root_signature(g_dev, name) : NULL;
}

/* The scripts, and whether psol checks them with pointers followed (the
** negative cases' are checked here instead, to print the diagnostics). */
static const struct {
  const char *file;
  int deep;
} SCRIPT_FILES[] = {
  { "raster.lua", 1 }, { "blend.lua", 1 }, { "depth.lua", 1 }, { "stencil.lua", 1 },
  { "formats.lua", 1 }, { "input.lua", 1 }, { "compute.lua", 1 }, { "negative.lua", 0 },
};
#define NSCRIPTS (sizeof SCRIPT_FILES / sizeof SCRIPT_FILES[0])

typedef struct script {
  psol_result result;
  int loaded, ok;
} script;

static script SCRIPTS[NSCRIPTS];

static const psoc_profile *profile(void) {
  return psoc_profile_find("desktop_fl12_2");
}

/* The pipeline's stream, evaluating the script once. With deep, the
** script's pipelines are checked as psol does with FOLLOW_POINTERS. */
static const psol_pipeline *find_pipeline(const char *file, const char *name, char *err, size_t n) {
  size_t i, j;
  for (i = 0; i < NSCRIPTS; i++) {
    script *s = &SCRIPTS[i];
    if (strcmp(SCRIPT_FILES[i].file, file) != 0) continue;
    if (!s->loaded) {
      psol_options o;
      char path[256];
      memset(&o, 0, sizeof o);
      o.resolve_root_signature = resolve_rs;
      o.profile = profile();
      o.check_flags = SCRIPT_FILES[i].deep ? PSOC_CHECK_FOLLOW_POINTERS : 0;
      snprintf(path, sizeof path, MAT "%s", file);
      s->ok = psol_evaluate_file(&o, path, &s->result) == PSOC_OK;
      s->loaded = 1;
    }
    if (!s->ok) {
      snprintf(err, n, "%s: %s", file, s->result.error);
      return NULL;
    }
    for (j = 0; j < s->result.count; j++)
      if (strcmp(s->result.pipelines[j].name, name) == 0) return &s->result.pipelines[j];
    snprintf(err, n, "%s has no pipeline '%s'", file, name);
    return NULL;
  }
  snprintf(err, n, "unknown script %s", file);
  return NULL;
}

/* psoc_check with pointers followed; prints the diagnostics into 'text'. */
static void check(const psol_pipeline *p, size_t *errors, size_t *warnings, char *text, size_t n) {
  psoc_check_options o;
  psoc_diags d;
  size_t i, used = 0;
  memset(&o, 0, sizeof o);
  o.flags = PSOC_CHECK_FOLLOW_POINTERS;
  o.profile = profile();
  psoc_diags_init(&d, NULL);
  psoc_check(psoc_stream_data(p->stream), psoc_stream_size(p->stream), &o, &d);
  *errors = d.errors;
  *warnings = d.warnings;
  if (n) text[0] = '\0';
  for (i = 0; i < d.count && used + 1 < n; i++) {
    const psoc_diag *g = &d.items[i];
    int w;
    if (g->severity == PSOC_SEVERITY_NOTE) continue;
    w = snprintf(text + used, n - used, "    psoc: %s: %s%s%s [%s%s%s]\n", psoc_severity_name(g->severity),
                 g->field, g->field[0] ? ": " : "", g->message, psoc_code_name(g->code),
                 g->message_id ? " / D3D12_MESSAGE_ID_" : "", g->message_id ? g->message_id : "");
    if (w < 0) break;
    used += (size_t)w < n - used ? (size_t)w : n - used - 1;
  }
  psoc_diags_free(&d);
}

static int resolve(const psol_pipeline *p, psoc_resolved *r, char *err, size_t n) {
  psoc_parsed parsed;
  if (psoc_parse(psoc_stream_data(p->stream), psoc_stream_size(p->stream), &parsed, NULL) != PSOC_OK ||
      psoc_resolve(&parsed, r) != PSOC_OK) {
    snprintf(err, n, "psoc cannot resolve the stream");
    return -1;
  }
  return 0;
}

/* ---- vkd3d's messages ------------------------------------------------------ */

static FILE *g_capture;
static int g_saved_stderr = -1;

static void capture_begin(void) {
  fflush(stderr);
  if (!g_capture) g_capture = tmpfile();
  if (!g_capture) return;
  if (ftruncate(fileno(g_capture), 0) != 0) return;
  rewind(g_capture);
  g_saved_stderr = dup(2);
  dup2(fileno(g_capture), 2);
}

/* Messages vkd3d 1.2 prints whatever the pipeline: they say nothing about
** the state under test, so they do not fail a case (they are counted).
**  - every signature chunk's header holds the element offset 8, which vkd3d
**    1.2 reads as an "unknown" word (fxc's output logs the same two lines);
**  - Map/Unmap ranges are ignored (vkd3d logs even a NULL written range).
** Mesa's "not a conformant implementation" notice is not vkd3d's. */
static const char *const BENIGN[] = {
  "warn:skip_dword_unknown: Skipping 1 unknown DWORDs:",
  "warn:skip_dword_unknown: \t0x00000008",
  "warn:d3d12_resource_Map: Ignoring read range",
  "warn:d3d12_resource_Unmap: Ignoring written range",
  "not a conformant vulkan implementation",
};
static int g_benign;

static int benign(const char *line) {
  size_t i;
  for (i = 0; i < sizeof BENIGN / sizeof BENIGN[0]; i++)
    if (strstr(line, BENIGN[i])) return 1;
  return 0;
}

/* Restore stderr; copy vkd3d's other err/warn/fixme lines into 'out';
** return their number. */
static int capture_end(char *out, size_t n) {
  char line[512];
  int count = 0;
  size_t used = 0;
  if (n) out[0] = '\0';
  fflush(stderr);
  if (g_saved_stderr < 0) return 0;
  dup2(g_saved_stderr, 2);
  close(g_saved_stderr);
  g_saved_stderr = -1;
  rewind(g_capture);
  while (fgets(line, sizeof line, g_capture)) {
    if (benign(line)) {
      g_benign++;
      continue;
    }
    count++;
    if (used + 1 < n) {
      int w = snprintf(out + used, n - used, "    vkd3d: %s%s", line,
                       line[strlen(line) - 1] == '\n' ? "" : "\n");
      if (w > 0) used += (size_t)w < n - used ? (size_t)w : n - used - 1;
    }
  }
  return count;
}

/* ---- pixels ---------------------------------------------------------------- */

static float half_to_float(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? INFINITY : ldexpf((float)(m | 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}

/* Decode pixel (x, y) to 4 stored values; returns the tolerance. */
static float decode(const dev_image *im, int x, int y, float v[4]) {
  const unsigned char *p = im->data + ((size_t)y * DEV_SIZE + (size_t)x) * im->bpp;
  int i;
  switch (im->format) {
    case DXGI_FORMAT_R8G8B8A8_UINT:
      for (i = 0; i < 4; i++) v[i] = (float)p[i];
      return 0.0f;
    case DXGI_FORMAT_B8G8R8A8_UNORM:
      v[0] = p[2] / 255.0f, v[1] = p[1] / 255.0f, v[2] = p[0] / 255.0f, v[3] = p[3] / 255.0f;
      return 1.5f / 255.0f;
    case DXGI_FORMAT_R16G16B16A16_FLOAT:
      for (i = 0; i < 4; i++) v[i] = half_to_float((uint16_t)(p[2 * i] | p[2 * i + 1] << 8));
      return 1e-3f;
    case DXGI_FORMAT_R32G32B32A32_FLOAT:
      memcpy(v, p, 16);
      return 1e-6f;
    default: /* R8G8B8A8_UNORM, _SRGB */
      for (i = 0; i < 4; i++) v[i] = p[i] / 255.0f;
      return 1.5f / 255.0f;
  }
}

/* ---- geometry -------------------------------------------------------------- */

typedef struct scene {
  float data[256];
  float data2[64];
  dev_frame f;
} scene;

static void tri(vtx *v, float x0, float y0, float x1, float y1, float x2, float y2, float z,
                const float c[4]) {
  float xs[3] = { x0, x1, x2 }, ys[3] = { y0, y1, y2 };
  int i;
  for (i = 0; i < 3; i++) {
    v[i].x = xs[i], v[i].y = ys[i], v[i].z = z;
    v[i].r = c[0], v[i].g = c[1], v[i].b = c[2], v[i].a = c[3];
  }
}

/* Clockwise in screen space (y down): (-1,-1) (-1,3) (3,-1) in clip space. */
static void full(vtx *v, float z, const float c[4], int ccw) {
  if (ccw) tri(v, -1, -1, 3, -1, -1, 3, z, c);
  else tri(v, -1, -1, -1, 3, 3, -1, z, c);
}

static void quad(vtx *v, float x0, float x1, float z, const float c[4], int ccw) {
  if (ccw) {
    tri(v, x0, -1, x1, -1, x0, 1, z, c);
    tri(v + 3, x1, -1, x1, 1, x0, 1, z, c);
  } else {
    tri(v, x0, -1, x0, 1, x1, -1, z, c);
    tri(v + 3, x1, -1, x0, 1, x1, 1, z, c);
  }
}

static void draw1(dev_frame *f, uint32_t count, uint32_t instances) {
  f->draws[0].vertex_count = count;
  f->draws[0].instance_count = instances;
  f->ndraws = 1;
}

static void build_scene(const dcase *c, scene *s) {
  static const float S[4] = S_COLOR, D[4] = D_COLOR, R[4] = { 1, 0, 0, 1 }, G[4] = { 0, 1, 0, 1 };
  vtx *v = (vtx *)s->data;
  dev_frame *f = &s->f;
  int i;
  memset(s, 0, sizeof *s);
  for (i = 0; i < DEV_MAX_RTS; i++) memcpy(f->clear[i], D, sizeof D);
  f->depth_clear = c->clear_depth;
  f->stencil_clear = (uint8_t)c->stencil_clear;
  f->stencil_ref = c->stencil_ref;
  for (i = 0; i < 4; i++) f->blend_factor[i] = 0.25f;
  f->topology = 4; /* D3D_PRIMITIVE_TOPOLOGY_TRIANGLELIST */
  f->nvb = 1;
  f->vb[0].data = s->data;
  f->vb[0].stride = sizeof(vtx);
  switch (c->geometry) {
    case G_FULL:
    case G_FULL_CCW:
      full(v, c->z[0], S, c->geometry == G_FULL_CCW);
      draw1(f, 3, 1);
      break;
    case G_FULL_TWICE:
      full(v, c->z[0], R, 0);
      full(v + 3, c->z[1], G, 0);
      f->draws[0].vertex_count = 3, f->draws[0].instance_count = 1;
      f->draws[1].vertex_count = 3, f->draws[1].instance_count = 1, f->draws[1].first_vertex = 3;
      f->ndraws = 2;
      break;
    case G_THIRDS:
      quad(v, -1, -1.0f / 3, c->z[0], S, 0);
      quad(v + 6, -1.0f / 3, 1.0f / 3, c->z[1], S, 0);
      quad(v + 12, 1.0f / 3, 1, c->z[2], S, 0);
      draw1(f, 18, 1);
      break;
    case G_HALVES:
      quad(v, -1, 0, c->z[0], S, 0);
      quad(v + 6, 0, 1, c->z[0], S, 1);
      draw1(f, 12, 1);
      break;
    case G_WIRE:
      /* pixel centres: left edge at x 8.5, bottom at y 56, apex (8.5, 8) */
      tri(v, -0.734375f, -0.75f, -0.734375f, 0.75f, 0.75f, -0.75f, c->z[0], S);
      draw1(f, 3, 1);
      break;
    case G_STRIP:
      tri(v, -1, 1, 1, 1, -1, -1, c->z[0], S);
      tri(v + 3, 1, -1, 0, 0, 0, 0, c->z[0], S); /* strip: 4 vertices */
      f->topology = 5; /* D3D_PRIMITIVE_TOPOLOGY_TRIANGLESTRIP */
      draw1(f, 4, 1);
      break;
    case G_LINE:
      tri(v, -1, -0.015625f, 1, -0.015625f, 0, 0, c->z[0], S);
      f->topology = 2; /* LINELIST */
      draw1(f, 2, 1);
      break;
    case G_POINT:
      tri(v, 0.015625f, -0.015625f, 0, 0, 0, 0, c->z[0], S);
      f->topology = 1; /* POINTLIST */
      draw1(f, 1, 1);
      break;
    case G_OFFSETS: {
      /* 8 floats a vertex: colour (0..15), pad (16..19), position (20..31) */
      vtx t[3];
      full(t, c->z[0], S, 0);
      for (i = 0; i < 3; i++) {
        float *o = s->data + 8 * i;
        o[0] = t[i].r, o[1] = t[i].g, o[2] = t[i].b, o[3] = t[i].a, o[4] = -7.0f;
        o[5] = t[i].x, o[6] = t[i].y, o[7] = t[i].z;
      }
      f->vb[0].stride = 32;
      f->vb[0].size = 3 * 32;
      draw1(f, 3, 1);
      return;
    }
    case G_SLOTS: {
      vtx t[3];
      full(t, c->z[0], S, 0);
      for (i = 0; i < 3; i++) {
        s->data[3 * i] = t[i].x, s->data[3 * i + 1] = t[i].y, s->data[3 * i + 2] = t[i].z;
        memcpy(s->data2 + 4 * i, &t[i].r, 16);
      }
      f->vb[0].stride = 12, f->vb[0].size = 36;
      f->vb[1].data = s->data2, f->vb[1].stride = 16, f->vb[1].size = 48;
      f->nvb = 2;
      draw1(f, 3, 1);
      return;
    }
    case G_INSTANCES: {
      /* slot 0: positions; slot 1: per instance offset (x, y) and colour */
      static const float pos[9] = { -0.75f, -0.25f, 0.5f, -0.75f, 0.25f, 0.5f, -0.25f, -0.25f, 0.5f };
      static const float inst[12] = { 0, 0, 1, 0, 0, 1, 1.0f, 0, 0, 1, 0, 1 };
      memcpy(s->data, pos, sizeof pos);
      memcpy(s->data2, inst, sizeof inst);
      f->vb[0].stride = 12, f->vb[0].size = sizeof pos;
      f->vb[1].data = s->data2, f->vb[1].stride = 24, f->vb[1].size = sizeof inst;
      f->nvb = 2;
      draw1(f, 3, 2);
      return;
    }
  }
  f->vb[0].size = (uint32_t)(sizeof(vtx) * 18);
}

/* ---- cases ----------------------------------------------------------------- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int g_gaps;

static int gap_seen(const dcase *c, const char *vk) {
  return c->gap_note && (!c->gap_msg || strstr(vk, c->gap_msg));
}

static int run_case(const dcase *c) {
  char err[512], diags[2048], vk[2048];
  const psol_pipeline *p = find_pipeline(c->script, c->pipeline, err, sizeof err);
  psoc_resolved r;
  D3D12_GRAPHICS_PIPELINE_STATE_DESC desc;
  dev_image img[DEV_MAX_RTS];
  scene s;
  size_t errors, warnings, i;
  int rc, nmsg, bad = 0;
  double t0 = now_ms();
  if (!p) {
    printf("FAIL %s: %s\n", c->name, err);
    return 1;
  }
  check(p, &errors, &warnings, diags, sizeof diags);
  if (errors || warnings) {
    printf("FAIL %s: psoc's check reports %zu error(s), %zu warning(s)\n%s", c->name, errors, warnings, diags);
    return 1;
  }
  if (resolve(p, &r, err, sizeof err) || psoc_resolved_to_graphics_desc(&r, &desc) != PSOC_OK) {
    printf("FAIL %s: no graphics desc from the stream\n", c->name);
    return 1;
  }
  build_scene(c, &s);
  s.f.graphics_desc = &desc;
  s.f.desc_size = sizeof desc;
  capture_begin();
  rc = dev_draw(g_dev, &s.f, img, err, sizeof err);
  nmsg = capture_end(vk, sizeof vk);
  if (rc) {
    printf("FAIL %s: %s\n%s", c->name, err, vk);
    return 1;
  }
  if (nmsg && !gap_seen(c, vk)) {
    printf("FAIL %s: vkd3d reported %d message(s)\n%s", c->name, nmsg, vk);
    bad = 1;
  }
  for (i = 0; i < 4; i++) {
    const probe *pr = &c->probes[i];
    float got[4], tol;
    int k;
    if (i > 0 && pr->x == 0 && pr->y == 0 && pr->rt == 0) break;
    if (!img[pr->rt].data) {
      printf("FAIL %s: no render target %d\n", c->name, pr->rt);
      bad = 1;
      continue;
    }
    tol = decode(&img[pr->rt], pr->x, pr->y, got);
    for (k = 0; k < 4; k++)
      if (fabsf(got[k] - pr->v[k]) > tol + 1e-7f) break;
    if (k < 4) {
      int gap = gap_seen(c, vk);
      printf("%s %s: RT%d pixel (%d, %d) is (%g, %g, %g, %g), expected (%g, %g, %g, %g)%s%s\n",
             gap ? "GAP " : "FAIL", c->name, pr->rt, pr->x, pr->y, got[0], got[1], got[2], got[3],
             pr->v[0], pr->v[1], pr->v[2], pr->v[3], gap ? ": " : "", gap ? c->gap_note : "");
      if (gap) bad = bad ? bad : 2;
      else bad = 1;
    }
  }
  dev_images_free(img);
  if (bad == 2) {
    g_gaps++;
    return 0;
  }
  if (!bad) printf("ok   %-26s %s:%s, %zu probe(s), %.1f ms\n", c->name, c->script, c->pipeline,
                   i, now_ms() - t0);
  return bad;
}

static int run_compute(void) {
  char err[512], diags[2048], vk[2048];
  const psol_pipeline *p = find_pipeline("compute.lua", "compute_store", err, sizeof err);
  psoc_resolved r;
  D3D12_COMPUTE_PIPELINE_STATE_DESC desc;
  size_t errors, warnings;
  uint32_t words[2] = { 0, 0 };
  int rc, nmsg;
  double t0 = now_ms();
  if (!p) {
    printf("FAIL compute_dispatch: %s\n", err);
    return 1;
  }
  check(p, &errors, &warnings, diags, sizeof diags);
  if (errors || warnings) {
    printf("FAIL compute_dispatch: psoc's check reports %zu error(s), %zu warning(s)\n%s", errors, warnings,
           diags);
    return 1;
  }
  if (resolve(p, &r, err, sizeof err) || psoc_resolved_to_compute_desc(&r, &desc) != PSOC_OK) {
    printf("FAIL compute_dispatch: no compute desc from the stream\n");
    return 1;
  }
  capture_begin();
  rc = dev_dispatch(g_dev, &desc, sizeof desc, 1, words, 2, err, sizeof err);
  nmsg = capture_end(vk, sizeof vk);
  /* word 1 is not written: the buffer's contents there are undefined */
  if (rc || nmsg || words[0] != 0xc0ffeeu) {
    printf("FAIL compute_dispatch: %s; word 0 is 0x%x (expected 0xc0ffee)\n%s", rc ? err : "dispatched",
           (unsigned)words[0], vk);
    return 1;
  }
  printf("ok   %-26s compute.lua:compute_store, word 0 = 0x%x, %.1f ms\n", "compute_dispatch",
         (unsigned)words[0], now_ms() - t0);
  return 0;
}

static int run_negative(const ncase *c) {
  char err[512], diags[2048], vk[2048];
  const psol_pipeline *p = find_pipeline("negative.lua", c->pipeline, err, sizeof err);
  psoc_resolved r;
  D3D12_GRAPHICS_PIPELINE_STATE_DESC desc;
  size_t errors, warnings;
  long hr;
  int nmsg;
  if (!p) {
    printf("FAIL %s: %s\n", c->name, err);
    return 1;
  }
  check(p, &errors, &warnings, diags, sizeof diags);
  if (resolve(p, &r, err, sizeof err) || psoc_resolved_to_graphics_desc(&r, &desc) != PSOC_OK) {
    printf("FAIL %s: no graphics desc from the stream\n", c->name);
    return 1;
  }
  capture_begin();
  hr = dev_create_graphics(g_dev, &desc, sizeof desc);
  nmsg = capture_end(vk, sizeof vk);
  printf("%s %s (%s)\n    vkd3d: CreateGraphicsPipelineState returned 0x%08lx (%s)%s\n%s%s",
         errors ? "ok  " : "FAIL", c->name, c->why, (unsigned long)hr & 0xffffffffUL,
         hr == 0 ? "S_OK: accepted" : "failed", nmsg ? "" : ", no message", vk,
         errors ? diags : "    psoc: no error (psoc should reject this pipeline)\n");
  return errors ? 0 : 1;
}

int main(int argc, char **argv) {
  char err[512], vk[2048];
  size_t i, j;
  int failed = 0, ran = 0, nmsg, k;
  double t0 = now_ms(), t_dev;
  for (k = 1; k < argc; k++)
    if (strcmp(argv[k], "-v") == 0) g_verbose = 1;
  /* vkd3d reads these when it first logs: before any vkd3d call. */
  setenv("VKD3D_DEBUG", "warn", 0);
  setenv("VKD3D_SHADER_DEBUG", "warn", 0);
  capture_begin();
  k = dev_create(&g_dev, err, sizeof err);
  nmsg = capture_end(vk, sizeof vk);
  if (k) {
    printf("FAIL device: %s\n%s", err, vk);
    return 1;
  }
  t_dev = now_ms() - t0;
  /* The device's own messages (lavapipe's limits against feature level
  ** 11_0, vkd3d's internal shaders) are shown, not held against a case. */
  printf("device: vkd3d D3D12 device created in %.1f ms%s\n%s", t_dev, nmsg ? "; its messages:" : "", vk);
  for (i = 0; i < NCASES; i++) {
    int want = argc <= 1 || (argc == 2 && g_verbose);
    for (k = 1; k < argc; k++)
      if (strcmp(argv[k], CASES[i].name) == 0) want = 1;
    if (!want) continue;
    failed += run_case(&CASES[i]);
    ran++;
  }
  {
    int want = argc <= 1 || (argc == 2 && g_verbose);
    for (k = 1; k < argc; k++)
      if (strcmp(argv[k], "compute_dispatch") == 0) want = 1;
    if (want) {
      failed += run_compute();
      ran++;
    }
  }
  printf("negative cases: psoc rejects, vkd3d creates\n");
  for (j = 0; j < sizeof NEGATIVES / sizeof NEGATIVES[0]; j++) {
    int want = argc <= 1 || (argc == 2 && g_verbose);
    for (k = 1; k < argc; k++)
      if (strcmp(argv[k], NEGATIVES[j].name) == 0) want = 1;
    if (!want) continue;
    failed += run_negative(&NEGATIVES[j]);
    ran++;
  }
  for (i = 0; i < NSCRIPTS; i++)
    if (SCRIPTS[i].loaded) psol_result_free(&SCRIPTS[i].result);
  dev_destroy(g_dev);
  if (g_capture) fclose(g_capture);
  printf("device suite: %d case(s), %d failed, %d known vkd3d 1.2 gap(s), %.0f ms (%d benign vkd3d "
         "message(s) not counted)\n", ran, failed, g_gaps, now_ms() - t0, g_benign);
  return failed ? 1 : 0;
}
