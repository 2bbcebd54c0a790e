/*
** gen_library.c: psoc_gen_library, a generator for a large, realistic
** material library to benchmark and test whole-library work (psoc check,
** cooking, archives, hot reload) on something shaped like a game's:
**
**   psoc_gen_library DIR [--pipelines N] [--shaders S] [--files F] [--seed K]
**
** It writes
**   DIR/lib/common.lua        shared module: formats, input layouts, a preset,
**                             two root signatures (pso.root_signature), shader
**                             lookup by name
**   DIR/lib/base_NN.lua       shared base pipelines (forward, skinned, gbuffer,
**                             transparent, shadow, particles, compute, mesh),
**                             each module with its own shaders
**   DIR/materials/gNN/mNNNNN.lua  the scripts: several pipelines each, derived
**                             from the bases and from each other (chains), plus
**                             full declarations
**   DIR/shaders/NAME.cso      S shader containers (DXBC shader model 5 from the
**                             project's assembler, src/tools/dxbc_asm.c, signed;
**                             the mesh stages are DXIL structure-only
**                             containers), sizes drawn log-uniformly from 64 B
**                             to 20 KB (never below the stage's smallest
**                             program), shared between pipelines
**
** Everything is deterministic for a seed (integer arithmetic only). Every
** pipeline passes `psoc check --deep --werror DIR`: the VS inputs match the
** input layouts, the stages link, the PS writes exactly the bound targets.
** See tests/bench/README.md.
*/
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dxbc_asm.h"
#include "platform.h"

/* ---- deterministic random numbers (splitmix64) ------------------------ */

static uint64_t rng_state;

static uint64_t rng_next(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* 0 .. n-1 */
static uint32_t rnd(uint32_t n) { return n ? (uint32_t)(rng_next() % n) : 0; }
/* percent chance */
static int chance(uint32_t pct) { return rnd(100) < pct; }

/* A size from 64 B to 20 KB, log-uniform: a uniform octave, then uniform
** within it. */
static uint32_t shader_size(void) {
  uint32_t octave = rnd(9), lo = 64u << octave; /* 64 .. 16384 */
  uint32_t size = lo + rnd(lo);
  return size > 20480 ? 20480 : size;
}

/* ---- text ------------------------------------------------------------- */

typedef struct text {
  char *p;
  size_t n, cap;
} text;

static void die(const char *msg, const char *arg) {
  fprintf(stderr, "psoc_gen_library: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
  exit(2);
}

static void tprintf(text *t, const char *fmt, ...) {
  va_list ap;
  int n;
  for (;;) {
    size_t room = t->cap - t->n;
    va_start(ap, fmt);
    n = vsnprintf(t->p ? t->p + t->n : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) die("formatting failed", NULL);
    if ((size_t)n < room) break;
    t->cap = (t->cap + (size_t)n + 1) * 2;
    t->p = realloc(t->p, t->cap);
    if (!t->p) die("out of memory", NULL);
  }
  t->n += (size_t)n;
}

static char root[PSOC_PLAT_PATH_MAX];

static void make_dir(const char *rel) {
  char path[PSOC_PLAT_PATH_MAX + 128];
  int e;
  snprintf(path, sizeof path, "%s/%s", root, rel);
  e = psoc_plat_mkdir(path);
  if (e) die(psoc_plat_strerror(e), path);
}

static void write_file(const char *rel, const void *data, size_t size) {
  char path[PSOC_PLAT_PATH_MAX + 128];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", root, rel);
  f = fopen(path, "wb");
  if (!f) die("cannot create", path);
  if (fwrite(data, 1, size, f) != size || fclose(f) != 0) die("cannot write", path);
}

/* ---- shaders ---------------------------------------------------------- */

/* Shader pools by interface: what a pipeline may put in a slot. */
enum {
  P_VS_STATIC,   /* POSITION NORMAL TANGENT TEXCOORD -> SV_Position NORMAL TEXCOORD */
  P_VS_SKINNED,  /* + BLENDINDICES (uint) BLENDWEIGHT */
  P_VS_POS,      /* POSITION -> SV_Position (depth only) */
  P_VS_PARTICLE, /* POSITION COLOR TEXCOORD -> SV_Position NORMAL TEXCOORD */
  P_PS_T1, P_PS_T2, P_PS_T3, P_PS_T4, /* SV_Position NORMAL TEXCOORD -> N float targets */
  P_CS,
  P_AS, P_MS, P_PS6_T2, /* mesh pipelines: DXIL, shader model 6.5 */
  P_COUNT
};

static const struct {
  const char *prefix;
  unsigned weight;
} pools[P_COUNT] = {
  [P_VS_STATIC] = { "vs_static", 12 }, [P_VS_SKINNED] = { "vs_skinned", 8 },
  [P_VS_POS] = { "vs_depth", 5 },      [P_VS_PARTICLE] = { "vs_particle", 4 },
  [P_PS_T1] = { "ps_t1", 13 },         [P_PS_T2] = { "ps_t2", 16 },
  [P_PS_T3] = { "ps_t3", 6 },          [P_PS_T4] = { "ps_t4", 6 },
  [P_CS] = { "cs", 20 },
  [P_AS] = { "as", 2 },                [P_MS] = { "ms", 4 },
  [P_PS6_T2] = { "ps6_t2", 4 },
};

static uint32_t pool_count[P_COUNT];

static const char *const swz[] = { "xyzw", "yzwx", "zwxy", "wxyz", "xxyy", "zzww", "xyxy", "wzyx" };

/* A float immediate with two decimals, from the generator. */
static void imm4(text *t) {
  int i;
  tprintf(t, "l(");
  for (i = 0; i < 4; i++)
    tprintf(t, "%s%u.%02u", i ? ", " : "", (unsigned)rnd(4), (unsigned)rnd(100));
  tprintf(t, ")");
}

/* 'pad' arithmetic instructions on r0/r1 (both written first). */
static void body(text *t, unsigned pad) {
  unsigned i;
  for (i = 0; i < pad; i++) {
    const char *s = swz[rnd(8)];
    switch (rnd(5)) {
    case 0: tprintf(t, "mad r0.xyzw, r0.%s, ", s); imm4(t); tprintf(t, ", r1.xyzw\n"); break;
    case 1: tprintf(t, "mul r1.xyzw, r0.%s, ", s); imm4(t); tprintf(t, "\n"); break;
    case 2: tprintf(t, "add r0.xyzw, r0.xyzw, r1.%s\n", s); break;
    case 3: tprintf(t, "dp4 r1.%c, r0.xyzw, ", "xyzw"[rnd(4)]); imm4(t); tprintf(t, "\n"); break;
    default: tprintf(t, "max r0.xyzw, r0.%s, ", s); imm4(t); tprintf(t, "\n"); break;
    }
  }
}

static void source(text *t, int pool, unsigned index, unsigned pad) {
  unsigned k, targets = 0;
  t->n = 0;
  tprintf(t, "; %s_%04u: generated by psoc_gen_library\n", pools[pool].prefix, index);
  switch (pool) {
  case P_VS_STATIC: case P_VS_SKINNED: case P_VS_POS: case P_VS_PARTICLE:
    tprintf(t, "vs_5_0\nroot_signature allow_input_layout\nroot_parameter cbv b0\n"
               "root_parameter constants b1 %u\n", 1 + index % 16);
    tprintf(t, "input POSITION v0.xyz\n");
    if (pool == P_VS_PARTICLE)
      tprintf(t, "input COLOR v1.xyzw\ninput TEXCOORD v2.xy\n");
    else if (pool != P_VS_POS)
      tprintf(t, "input NORMAL v1.xyz\ninput TANGENT v2.xyzw\ninput TEXCOORD v3.xy\n");
    if (pool == P_VS_SKINNED) tprintf(t, "input BLENDINDICES v4.xyzw uint\ninput BLENDWEIGHT v5.xyzw\n");
    tprintf(t, "output SV_Position o0.xyzw\n");
    if (pool != P_VS_POS) tprintf(t, "output NORMAL o1.xyz\noutput TEXCOORD o2.xy\n");
    tprintf(t, "mov r0.xyz, v0.xyzx\nmov r0.w, l(1.0)\nmov r1.xyzw, r0.wzyx\n");
    if (pool == P_VS_SKINNED) tprintf(t, "utof r1.xyzw, v4.xyzw\nmad r0.xyzw, r1.xyzw, v5.xyzw, r0.xyzw\n");
    body(t, pad);
    tprintf(t, "mov o0.xyzw, r0.xyzw\n");
    if (pool == P_VS_PARTICLE) tprintf(t, "mov o1.xyz, v1.xyzx\nmov o2.xy, v2.xyxx\n");
    else if (pool != P_VS_POS) tprintf(t, "mov o1.xyz, v1.xyzx\nmov o2.xy, v3.xyxx\n");
    tprintf(t, "ret\n");
    break;
  case P_PS_T1: case P_PS_T2: case P_PS_T3: case P_PS_T4:
    targets = (unsigned)(pool - P_PS_T1) + 1;
    tprintf(t, "ps_5_0\ninput SV_Position v0.xyzw\ninput NORMAL v1.xyz\ninput TEXCOORD v2.xy\n");
    for (k = 0; k < targets; k++) tprintf(t, "output SV_Target%u o%u.xyzw\n", k, k);
    tprintf(t, "mov r0.xyz, v1.xyzx\nmov r0.w, v2.x\nmov r1.xyzw, v0.xyzw\n");
    body(t, pad);
    for (k = 0; k < targets; k++) tprintf(t, "mov o%u.xyzw, r%u.xyzw\n", k, k & 1);
    tprintf(t, "ret\n");
    break;
  case P_CS: {
    static const char *const groups[] = { "64, 1, 1", "8, 8, 1", "256, 1, 1", "32, 1, 1", "4, 4, 4" };
    tprintf(t, "cs_5_0\nroot_signature\nroot_parameter uav u0\nroot_parameter cbv b0\n"
               "root_parameter constants b1 %u\ndcl_uav_raw u0\ndcl_thread_group %s\n",
            1 + index % 8, groups[index % 5]);
    tprintf(t, "mov r0.xyzw, l(1.0, 2.0, 3.0, 4.0)\nmov r1.xyzw, r0.wzyx\n");
    body(t, pad);
    tprintf(t, "store_raw u0.x, l(0), r0.x\nret\n");
    break;
  }
  case P_AS:
    /* DXIL takes no instructions: the embedded root signature varies */
    tprintf(t, "as_6_5\nroot_signature\nroot_parameter constants b%u %u\n", index / 64, 1 + index % 64);
    break;
  case P_MS:
    tprintf(t, "ms_6_5\nroot_signature\nroot_parameter constants b%u %u\n"
               "output SV_Position o0.xyzw\noutput NORMAL o1.xyz\noutput TEXCOORD o2.xy\n",
            index / 64, 1 + index % 64);
    break;
  default: /* P_PS6_T2 */
    tprintf(t, "ps_6_5\nroot_signature\nroot_parameter constants b%u %u\n"
               "input SV_Position v0.xyzw\ninput NORMAL v1.xyz\n"
               "output SV_Target0 o0.xyzw\noutput SV_Target1 o1.xyzw\n", index / 64, 1 + index % 64);
    break;
  }
}

static size_t assemble(const text *src, dxbc_asm_blob *out) {
  char err[256];
  if (dxbc_asm(src->p, src->n, out, err, sizeof err) != 0) {
    fprintf(stderr, "%.*s\n", (int)src->n, src->p);
    die("assembler", err);
  }
  return out->size;
}

static void shader_name(char *out, size_t size, int pool, uint32_t index) {
  snprintf(out, size, "%s_%04u", pools[pool].prefix, (unsigned)index);
}

static uint64_t shader_bytes;

static void write_shaders(void) {
  text src = { 0 };
  int p;
  make_dir("shaders");
  for (p = 0; p < P_COUNT; p++) {
    uint32_t i;
    for (i = 0; i < pool_count[p]; i++) {
      dxbc_asm_blob a, b;
      char name[64], rel[96];
      uint32_t target = shader_size();
      unsigned pad = 0;
      uint64_t saved = rng_state;
      if (p < P_AS) {
        /* the size without padding and with 64 instructions gives the
        ** count that reaches the target (the same random stream each
        ** time); then trim while the result is too large */
        size_t s0, s64, per;
        source(&src, p, i, 0);
        s0 = assemble(&src, &a);
        dxbc_asm_free(&a);
        rng_state = saved;
        source(&src, p, i, 64);
        s64 = assemble(&src, &b);
        dxbc_asm_free(&b);
        per = s64 > s0 ? (s64 - s0) / 64 : 1;
        if (!per) per = 1;
        if (target > s0) pad = (unsigned)((target - s0) / per);
        for (;;) {
          rng_state = saved;
          source(&src, p, i, pad);
          assemble(&src, &a);
          if (a.size <= target + 32 || pad == 0) break;
          pad -= (unsigned)((a.size - target) / per) < pad ? (unsigned)((a.size - target) / per) + 1 : pad;
          dxbc_asm_free(&a);
        }
      } else {
        source(&src, p, i, 0);
        assemble(&src, &a);
      }
      shader_name(name, sizeof name, p, i);
      snprintf(rel, sizeof rel, "shaders/%s.cso", name);
      write_file(rel, a.data, a.size);
      shader_bytes += a.size;
      dxbc_asm_free(&a);
    }
  }
  free(src.p);
}

/* ---- materials -------------------------------------------------------- */

/* The pipeline families (each base module declares one base of each). */
enum { F_FORWARD, F_SKINNED, F_GBUFFER, F_TRANSPARENT, F_SHADOW, F_PARTICLES, F_COMPUTE, F_MESH,
       F_COUNT };
static const char *const family_name[F_COUNT] = {
  "forward", "skinned", "gbuffer", "transparent", "shadow", "particles", "compute", "mesh"
};
static const unsigned family_weight[F_COUNT] = { 28, 12, 14, 12, 10, 6, 12, 6 };

typedef struct pstate {
  int family;
  int vs_pool, ps_pool;   /* -1: none */
  char var[16];           /* Lua local holding it */
} pstate;

static const int family_vs[F_COUNT] = { P_VS_STATIC, P_VS_SKINNED, P_VS_STATIC, P_VS_STATIC,
                                        P_VS_POS, P_VS_PARTICLE, -1, -1 };
static const int family_ps[F_COUNT] = { P_PS_T2, P_PS_T2, P_PS_T4, P_PS_T1, -1, P_PS_T1, -1,
                                        P_PS6_T2 };

static void shader_ref(text *t, const char *key, int pool) {
  char name[64];
  shader_name(name, sizeof name, pool, rnd(pool_count[pool]));
  tprintf(t, "  %s = common.shader \"%s\",\n", key, name);
}

/* render targets for a pixel shader pool */
static const char *targets_for(int ps_pool) {
  switch (ps_pool) {
  case P_PS_T1: return chance(50) ? "common.hdr_target" : "common.ldr_target";
  case P_PS_T3: return "common.gbuffer3";
  case P_PS_T4: return "common.gbuffer4";
  default: return "common.forward_targets";
  }
}

static const char *layout_for(int vs_pool) {
  switch (vs_pool) {
  case P_VS_SKINNED: return "common.layouts.skinned";
  case P_VS_POS: return "common.layouts.position";
  case P_VS_PARTICLE: return "common.layouts.particle";
  default: return "common.layouts.static";
  }
}

/* A full declaration of a pipeline of 'family' (the body of the table). */
static void declare(text *t, const char *name, int family, pstate *st) {
  st->family = family;
  st->vs_pool = family_vs[family];
  st->ps_pool = family_ps[family];
  if (family == F_GBUFFER && chance(40)) st->ps_pool = P_PS_T3;
  if (family == F_COMPUTE) {
    tprintf(t, "pso.compute {\n  name = \"%s\",\n", name);
    if (chance(50)) tprintf(t, "  serialized_root_signature = common.rs_compute,\n");
    else tprintf(t, "  root_signature = \"compute\",\n");
    shader_ref(t, "cs", P_CS);
    tprintf(t, "}");
    return;
  }
  if (family == F_MESH) {
    tprintf(t, "pso.mesh {\n  name = \"%s\",\n  root_signature = \"meshlets\",\n", name);
    if (chance(60)) shader_ref(t, "as", P_AS);
    shader_ref(t, "ms", P_MS);
    shader_ref(t, "ps", P_PS6_T2);
    tprintf(t, "  rasterizer = pso.rasterizer.default,\n  blend = pso.blend.opaque,\n"
               "  depth_stencil = pso.depth.reverse_z,\n  render_targets = common.forward_targets,\n"
               "  depth_format = common.depth_format,\n}");
    return;
  }
  tprintf(t, "pso.graphics {\n  name = \"%s\",\n", name);
  if (family == F_GBUFFER) tprintf(t, "  serialized_root_signature = common.rs_forward,\n");
  else tprintf(t, "  root_signature = \"%s\",\n", family == F_SHADOW ? "shadow" : "forward");
  shader_ref(t, "vs", st->vs_pool);
  if (st->ps_pool >= 0) shader_ref(t, "ps", st->ps_pool);
  tprintf(t, "  input_layout = %s,\n", layout_for(st->vs_pool));
  switch (family) {
  case F_SHADOW:
    tprintf(t, "  rasterizer = pso.rasterizer.shadow_bias,\n  depth_stencil = pso.depth.default,\n"
               "  depth_format = \"D16_UNORM\",\n}");
    return;
  case F_TRANSPARENT:
    tprintf(t, "  rasterizer = pso.rasterizer.cull_none,\n  blend = pso.blend.alpha,\n"
               "  depth_stencil = common.depth_read_only_reverse_z,\n");
    break;
  case F_PARTICLES:
    tprintf(t, "  topology = \"triangle\",\n  blend = pso.blend.additive,\n"
               "  depth_stencil = common.depth_read_only_reverse_z,\n");
    break;
  case F_GBUFFER:
    tprintf(t, "  rasterizer = pso.rasterizer.default,\n  blend = pso.blend.opaque,\n"
               "  depth_stencil = { depth = true, write = true, func = \"greater_equal\",\n"
               "                    stencil = true, stencil_write_mask = %u },\n", 1u << rnd(8));
    break;
  default:
    tprintf(t, "  topology = \"triangle\",\n  rasterizer = pso.rasterizer.default,\n"
               "  blend = pso.blend.opaque,\n  depth_stencil = pso.depth.reverse_z,\n");
    break;
  }
  tprintf(t, "  render_targets = %s,\n  depth_format = %s,\n}", targets_for(st->ps_pool),
          family == F_GBUFFER ? "\"D24_UNORM_S8_UINT\"" : "common.depth_format");
}

/* Overrides for pso.derive that keep 'st' valid (1 to 3 of them). */
static void overrides(text *t, const char *name, const pstate *st) {
  unsigned n = 1 + rnd(3), i, used = 0;
  tprintf(t, "{\n  name = \"%s\",\n", name);
  for (i = 0; i < n; i++) {
    unsigned what = rnd(8);
    if (used & (1u << what)) continue;
    used |= 1u << what;
    if (st->family == F_COMPUTE) {
      if (!(used & 1)) shader_ref(t, "cs", P_CS);
      used |= 1;
      continue;
    }
    switch (what) {
    case 0: /* another shader of the same interface */
      if (st->ps_pool >= 0) shader_ref(t, "ps", st->ps_pool);
      else if (st->vs_pool >= 0) shader_ref(t, "vs", st->vs_pool);
      break;
    case 1:
      if (st->vs_pool >= 0) shader_ref(t, "vs", st->vs_pool);
      else shader_ref(t, "ms", P_MS);
      break;
    case 2: {
      static const char *const r[] = {
        "{ cull = \"none\" }", "pso.rasterizer.wireframe", "{ cull = \"front\" }",
        "pso.rasterizer.cull_none", "{ fill = \"wireframe\", cull = \"none\" }",
      };
      if (st->family == F_SHADOW)
        tprintf(t, "  rasterizer = { depth_bias = %u, slope_scaled_depth_bias = %u.5 },\n",
                100 * (1 + rnd(20)), rnd(4));
      else tprintf(t, "  rasterizer = %s,\n", r[rnd(5)]);
      break;
    }
    case 3: {
      static const char *const b[] = {
        "pso.blend.alpha", "pso.blend.additive", "pso.blend.premultiplied", "pso.blend.multiply",
        "pso.blend.opaque", "{ src = \"one\", dst = \"inv_src_alpha\", write_mask = \"rgb\" }",
      };
      if (st->ps_pool >= 0) tprintf(t, "  blend = %s,\n", b[rnd(6)]);
      break;
    }
    case 4: {
      static const char *const d[] = {
        "pso.depth.read_only", "pso.depth.equal", "pso.depth.reverse_z",
        "common.depth_read_only_reverse_z", "{ func = \"greater\" }", "{ write = false }",
      };
      tprintf(t, "  depth_stencil = %s,\n", d[rnd(6)]);
      break;
    }
    case 5:
      if (st->family == F_SHADOW) tprintf(t, "  depth_format = \"%s\",\n", chance(50) ? "D32_FLOAT" : "D16_UNORM");
      else if (st->ps_pool == P_PS_T1) tprintf(t, "  render_targets = %s,\n", targets_for(P_PS_T1));
      else tprintf(t, "  sample_mask = 0x%x,\n", 0xffu << (4 * rnd(4)));
      break;
    case 6:
      if (st->family != F_MESH) tprintf(t, "  topology = \"%s\",\n", chance(70) ? "triangle" : "line");
      break;
    default:
      tprintf(t, "  node_mask = %u,\n", chance(80) ? 0u : 1u);
      break;
    }
  }
  tprintf(t, "}");
}

static int pick_family(void) {
  unsigned sum = 0, r, f;
  for (f = 0; f < F_COUNT; f++) sum += family_weight[f];
  r = rnd(sum);
  for (f = 0; f < F_COUNT; f++) {
    if (r < family_weight[f]) return (int)f;
    r -= family_weight[f];
  }
  return F_FORWARD;
}

static void write_common(uint64_t seed) {
  text t = { 0 };
  make_dir("lib");
  tprintf(&t,
    "-- lib/common.lua: generated by psoc_gen_library (seed %llu). What every\n"
    "-- material of the library shares: formats, input layouts, a preset, the\n"
    "-- root signatures, and shaders by name.\n"
    "local pso = require \"pso\"\n\nlocal M = {}\n\n"
    "M.forward_targets = { \"R11G11B10_FLOAT\", \"R8G8B8A8_UNORM\" }\n"
    "M.hdr_target = { \"R16G16B16A16_FLOAT\" }\n"
    "M.ldr_target = { \"R8G8B8A8_UNORM_SRGB\" }\n"
    "M.gbuffer3 = { \"R8G8B8A8_UNORM_SRGB\", \"R10G10B10A2_UNORM\", \"R8G8B8A8_UNORM\" }\n"
    "M.gbuffer4 = { \"R8G8B8A8_UNORM_SRGB\", \"R10G10B10A2_UNORM\", \"R8G8B8A8_UNORM\", \"R16G16_FLOAT\" }\n"
    "M.depth_format = \"D32_FLOAT\"\n\n"
    "M.layouts = {\n"
    "  static = {\n"
    "    { \"POSITION\", \"R32G32B32_FLOAT\" },\n    { \"NORMAL\", \"R32G32B32_FLOAT\" },\n"
    "    { \"TANGENT\", \"R32G32B32A32_FLOAT\" },\n    { \"TEXCOORD\", \"R32G32_FLOAT\", index = 0 },\n"
    "  },\n"
    "  skinned = {\n"
    "    { \"POSITION\", \"R32G32B32_FLOAT\" },\n    { \"NORMAL\", \"R32G32B32_FLOAT\" },\n"
    "    { \"TANGENT\", \"R32G32B32A32_FLOAT\" },\n    { \"TEXCOORD\", \"R32G32_FLOAT\" },\n"
    "    { \"BLENDINDICES\", \"R8G8B8A8_UINT\", slot = 1 },\n"
    "    { \"BLENDWEIGHT\", \"R8G8B8A8_UNORM\", slot = 1 },\n"
    "  },\n"
    "  position = { { \"POSITION\", \"R32G32B32_FLOAT\" } },\n"
    "  particle = {\n"
    "    { \"POSITION\", \"R32G32B32_FLOAT\" },\n    { \"COLOR\", \"R8G8B8A8_UNORM\" },\n"
    "    { \"TEXCOORD\", \"R16G16_FLOAT\" },\n"
    "  },\n"
    "}\n\n"
    "M.depth_read_only_reverse_z = pso.preset(\"common.depth_read_only_reverse_z\", {\n"
    "  depth = true, write = false, func = \"greater_equal\",\n"
    "})\n\n"
    "M.rs_forward = pso.root_signature {\n"
    "  flags = \"allow_input_assembler_input_layout\",\n"
    "  parameters = {\n"
    "    { cbv = { register = 0 } },\n"
    "    { constants = { register = 1, count = 4 }, visibility = \"vertex\" },\n"
    "    { table = { { srv = { register = 0, count = 8 } } }, visibility = \"pixel\" },\n"
    "  },\n"
    "  static_samplers = {\n"
    "    { register = 0, filter = \"min_mag_mip_linear\", visibility = \"pixel\" },\n"
    "  },\n"
    "}\n\n"
    "M.rs_compute = pso.root_signature {\n"
    "  parameters = { { uav = { register = 0 } }, { cbv = { register = 0 } } },\n"
    "}\n\n"
    "function M.shader(name)\n  return pso.shader(\"shaders/\" .. name .. \".cso\")\nend\n\n"
    "return M\n", (unsigned long long)seed);
  write_file("lib/common.lua", t.p, t.n);
  free(t.p);
}

/* what each base module's bases hold (the gbuffer's target count varies) */
static pstate base_state[32][F_COUNT];

static void write_base(unsigned b) {
  text t = { 0 };
  char rel[64], name[64];
  int f;
  tprintf(&t, "-- lib/base_%02u.lua: generated by psoc_gen_library. Base pipelines of one\n"
              "-- renderer configuration; the materials derive from them.\n"
              "local pso = require \"pso\"\nlocal common = require \"lib.common\"\n\nlocal M = {}\n\n", b);
  for (f = 0; f < F_COUNT; f++) {
    snprintf(name, sizeof name, "base_%02u_%s", b, family_name[f]);
    tprintf(&t, "M.%s = ", family_name[f]);
    declare(&t, name, f, &base_state[b][f]);
    tprintf(&t, "\n\n");
  }
  tprintf(&t, "return M\n");
  snprintf(rel, sizeof rel, "lib/base_%02u.lua", b);
  write_file(rel, t.p, t.n);
  free(t.p);
}

static uint64_t lua_bytes;

static void write_material(unsigned file, unsigned count, unsigned bases) {
  text t = { 0 };
  pstate *st = calloc(count, sizeof *st);
  char rel[96], name[64];
  unsigned i, base = rnd(bases);
  int family = pick_family();
  if (!st) die("out of memory", NULL);
  tprintf(&t, "-- materials/g%02u/m%05u.lua: generated by psoc_gen_library (%s family).\n"
              "local pso = require \"pso\"\nlocal common = require \"lib.common\"\n"
              "local base = require \"lib.base_%02u\"\n\n", file / 100, file, family_name[family], base);
  for (i = 0; i < count; i++) {
    unsigned how = i == 0 ? rnd(100) % 80 : rnd(100);
    snprintf(st[i].var, sizeof st[i].var, "p%u", i + 1);
    snprintf(name, sizeof name, "m%05u_%s_%u", file, family_name[family], i + 1);
    tprintf(&t, "local %s = ", st[i].var);
    if (how < 60 && i > 0) { /* derive from an earlier pipeline here: chains */
      const pstate *from = &st[i - 1 - rnd(i < 3 ? i : 3)];
      st[i] = *from;
      snprintf(st[i].var, sizeof st[i].var, "p%u", i + 1);
      tprintf(&t, "pso.derive(%s, ", from->var);
      overrides(&t, name, &st[i]);
      tprintf(&t, ")");
    } else if (how < 80) { /* derive from the shared base */
      int fam = chance(85) ? family : pick_family();
      st[i] = base_state[base][fam];
      snprintf(st[i].var, sizeof st[i].var, "p%u", i + 1);
      tprintf(&t, "pso.derive(base.%s, ", family_name[fam]);
      overrides(&t, name, &st[i]);
      tprintf(&t, ")");
    } else {
      declare(&t, name, chance(85) ? family : pick_family(), &st[i]);
    }
    tprintf(&t, "\n\n");
  }
  tprintf(&t, "return {");
  for (i = 0; i < count; i++) tprintf(&t, "%s %s", i ? "," : "", st[i].var);
  tprintf(&t, " }\n");
  if (file % 100 == 0) {
    snprintf(rel, sizeof rel, "materials/g%02u", file / 100);
    make_dir(rel);
  }
  snprintf(rel, sizeof rel, "materials/g%02u/m%05u.lua", file / 100, file);
  write_file(rel, t.p, t.n);
  lua_bytes += t.n;
  free(t.p);
  free(st);
}

/* ---- main ------------------------------------------------------------- */

static unsigned long number(const char *opt, const char *s, unsigned long max) {
  char *end;
  unsigned long v;
  if (!s) die("missing value for", opt);
  v = strtoul(s, &end, 10);
  if (*s < '0' || *s > '9' || *end || v > max) die("bad value for", opt);
  return v;
}

static void usage(void) {
  fputs("usage: psoc_gen_library DIR [--pipelines N] [--shaders S] [--files F] [--seed K]\n"
        "Write a material library of N pipelines (default 10000) in F scripts (default\n"
        "N/5) with S shared shader containers (default N/5) into DIR (created; files\n"
        "in it are replaced). Check it with: psoc check --deep DIR\n", stderr);
  exit(2);
}

int main(int argc, char **argv) {
  unsigned long pipelines = 10000, shaders = 0, files = 0, seed = 1, total = 0;
  unsigned long *counts, i, bases;
  const char *dir = NULL;
  int a, p, e;
  for (a = 1; a < argc; a++) {
    const char *s = argv[a];
    if (!strcmp(s, "--pipelines")) pipelines = number(s, argv[++a], 10000000);
    else if (!strcmp(s, "--shaders")) shaders = number(s, argv[++a], 1000000);
    else if (!strcmp(s, "--files")) files = number(s, argv[++a], 10000000);
    else if (!strcmp(s, "--seed")) seed = number(s, argv[++a], 0xffffffffUL);
    else if (!strcmp(s, "-h") || !strcmp(s, "--help")) usage();
    else if (s[0] == '-' || dir) usage();
    else dir = s;
  }
  if (!dir || pipelines == 0) usage();
  if (!files) files = pipelines / 5 ? pipelines / 5 : 1;
  if (files > pipelines) files = pipelines;
  if (!shaders) shaders = pipelines / 5;
  if (shaders < P_COUNT) shaders = P_COUNT;
  if (strlen(dir) >= sizeof root - 64) die("path too long", dir);
  strcpy(root, dir);
  e = psoc_plat_mkdir(root);
  if (e) die(psoc_plat_strerror(e), root);
  rng_state = seed;

  /* shaders per pool, in proportion to the weights, at least one each */
  {
    unsigned long sum = 0, given = 0;
    for (p = 0; p < P_COUNT; p++) sum += pools[p].weight;
    for (p = 0; p < P_COUNT; p++) {
      pool_count[p] = (uint32_t)(shaders * pools[p].weight / sum);
      if (!pool_count[p]) pool_count[p] = 1;
      given += pool_count[p];
    }
    for (p = 0; given < shaders; p = (p + 1) % P_AS, given++) pool_count[p]++;
    shaders = given;
  }

  /* pipelines per file: an even split, then shuffled between neighbours
  ** (1 to 2x the mean, at least 1) */
  counts = calloc(files, sizeof *counts);
  if (!counts) die("out of memory", NULL);
  for (i = 0; i < files; i++) counts[i] = pipelines / files + (i < pipelines % files);
  for (i = 0; i + 1 < files; i++) {
    unsigned long move = rnd((uint32_t)(counts[i] > 1 ? counts[i] : 1));
    if (move >= counts[i]) move = counts[i] - 1;
    counts[i] -= move;
    counts[i + 1] += move;
    if (counts[i + 1] > 16) { counts[i] += counts[i + 1] - 16; counts[i + 1] = 16; }
  }

  write_shaders();
  write_common(seed);
  bases = files / 100 + 2;
  if (bases > 32) bases = 32;
  for (i = 0; i < bases; i++) write_base((unsigned)i);
  make_dir("materials");
  for (i = 0; i < files; i++) {
    write_material((unsigned)i, (unsigned)counts[i], (unsigned)bases);
    total += counts[i];
  }
  printf("%s: %lu pipelines in %lu scripts (%lu KiB of Lua), %lu base modules, %lu shaders "
         "(%llu KiB)\n", dir, total, files, (unsigned long)(lua_bytes / 1024), bases, shaders,
         (unsigned long long)(shader_bytes / 1024));
  free(counts);
  return 0;
}
