/*
** rules_shader.c: checks that read shader containers (only with
** PSOC_CHECK_FOLLOW_POINTERS): container integrity, the stage in each slot,
** shader model against the profile, the root signature, input layout
** against the VS inputs, PS outputs against the render targets, and the
** linkage between consecutive stages.
*/
#include <strings.h>

#include "rules_internal.h"

#define GPS "CREATEGRAPHICSPIPELINESTATE_"
#define IL "CREATEINPUTLAYOUT_"

typedef struct stage_info {
  uint32_t slot;          /* subobject type */
  uint32_t program;       /* expected program type */
  const char *bytecode_id;/* invalid container */
  const char *type_id;    /* wrong program type */
} stage_info;

static const stage_info stages[PSOC_STAGE_COUNT] = {
  [PSOC_STAGE_AS] = { PSOC_SO_AS, PSOC_PROGRAM_AS, "CREATEAMPLIFICATIONSHADER_INVALIDSHADERBYTECODE", NULL },
  [PSOC_STAGE_MS] = { PSOC_SO_MS, PSOC_PROGRAM_MS, "CREATEMESHSHADER_INVALIDSHADERBYTECODE", NULL },
  [PSOC_STAGE_VS] = { PSOC_SO_VS, PSOC_PROGRAM_VS, "CREATEVERTEXSHADER_INVALIDSHADERBYTECODE",
                      "CREATEVERTEXSHADER_INVALIDSHADERTYPE" },
  [PSOC_STAGE_HS] = { PSOC_SO_HS, PSOC_PROGRAM_HS, "CREATEHULLSHADER_INVALIDSHADERBYTECODE",
                      "CREATEHULLSHADER_INVALIDSHADERTYPE" },
  [PSOC_STAGE_DS] = { PSOC_SO_DS, PSOC_PROGRAM_DS, "CREATEDOMAINSHADER_INVALIDSHADERBYTECODE",
                      "CREATEDOMAINSHADER_INVALIDSHADERTYPE" },
  [PSOC_STAGE_GS] = { PSOC_SO_GS, PSOC_PROGRAM_GS, "CREATEGEOMETRYSHADER_INVALIDSHADERBYTECODE",
                      "CREATEGEOMETRYSHADER_INVALIDSHADERTYPE" },
  [PSOC_STAGE_PS] = { PSOC_SO_PS, PSOC_PROGRAM_PS, "CREATEPIXELSHADER_INVALIDSHADERBYTECODE",
                      "CREATEPIXELSHADER_INVALIDSHADERTYPE" },
  [PSOC_STAGE_CS] = { PSOC_SO_CS, PSOC_PROGRAM_CS, "CREATECOMPUTEPIPELINESTATE_INVALID_SHADER",
                      "CREATECOMPUTEPIPELINESTATE_INVALID_SHADER" },
};

/* The stages each kind uses are the shader rows with the kind. */
#define TB(t) PSOC_TYPE_BIT(PSOC_SO_##t)
_Static_assert((PSOC_SHADER_TYPES & ~PSOC_IGNORED_BY_GRAPHICS) ==
                   (TB(VS) | TB(HS) | TB(DS) | TB(GS) | TB(PS)),
               "graphics stages");
_Static_assert((PSOC_SHADER_TYPES & ~PSOC_IGNORED_BY_MESH) == (TB(AS) | TB(MS) | TB(PS)),
               "mesh stages");
_Static_assert((PSOC_SHADER_TYPES & ~PSOC_IGNORED_BY_COMPUTE) == TB(CS), "compute stages");
#undef TB

const uint8_t psoc_stage_slots[PSOC_STAGE_COUNT] = {
  [PSOC_STAGE_AS] = PSOC_SO_AS, [PSOC_STAGE_MS] = PSOC_SO_MS, [PSOC_STAGE_VS] = PSOC_SO_VS,
  [PSOC_STAGE_HS] = PSOC_SO_HS, [PSOC_STAGE_DS] = PSOC_SO_DS, [PSOC_STAGE_GS] = PSOC_SO_GS,
  [PSOC_STAGE_PS] = PSOC_SO_PS, [PSOC_STAGE_CS] = PSOC_SO_CS,
};

/* The stage of a shader subobject type. */
static int stage_of(uint32_t type) {
  switch (type) {
  case PSOC_SO_AS: return PSOC_STAGE_AS;
  case PSOC_SO_MS: return PSOC_STAGE_MS;
  case PSOC_SO_VS: return PSOC_STAGE_VS;
  case PSOC_SO_HS: return PSOC_STAGE_HS;
  case PSOC_SO_DS: return PSOC_STAGE_DS;
  case PSOC_SO_GS: return PSOC_STAGE_GS;
  case PSOC_SO_PS: return PSOC_STAGE_PS;
  default: return PSOC_STAGE_CS;
  }
}

/* Read the container of stage 's': a blob an earlier stage of this stream
** shares is read once; a checksum the caller knows is not computed again. */
static void load_container(rule_ctx *ctx, int s, const D3D12_SHADER_BYTECODE *bc) {
  const uint8_t *known = NULL;
  uint32_t done;
  size_t i;
  for (done = ctx->shaders_parsed; done; done &= done - 1) {
    const psoc_dxbc *d = &ctx->shaders[psoc_lowest_bit(done)].dxbc;
    if (d->data == bc->pShaderBytecode && d->blob_size == bc->BytecodeLength) {
      ctx->shaders[s].dxbc = *d;
      return;
    }
  }
  for (i = 0; ctx->known && i < ctx->known_count && !known; i++)
    if (ctx->known[i].blob == bc->pShaderBytecode && ctx->known[i].size == bc->BytecodeLength)
      known = ctx->known[i].checksum;
  psoc_dxbc_parse_known(bc->pShaderBytecode, bc->BytecodeLength, known, &ctx->shaders[s].dxbc);
}

void psoc_rules_load_shaders(rule_ctx *ctx) {
  const psoc_walked *p = ctx->walk;
  uint64_t types;
  /* the shader subobjects present in slots the kind uses (ctx->shader_types) */
  for (types = ctx->shader_types; types; types &= types - 1) {
    uint32_t slot = psoc_lowest_bit(types);
    int s = stage_of(slot);
    D3D12_SHADER_BYTECODE bc;
    if (!psoc_rdptr(p->payload[slot])) continue; /* null bytecode: absent */
    ctx->shaders[s].slot = slot;
    memcpy(&bc, p->payload[slot], sizeof bc);
    load_container(ctx, s, &bc);
    ctx->shaders_parsed |= 1u << s;
  }
}

/* A usable container: parsed without error, with a program chunk. */
static const psoc_dxbc *good(const rule_ctx *ctx, int stage) {
  const psoc_shader *sh = &ctx->shaders[stage];
  if (!psoc_rule_shader_parsed(ctx, stage) || sh->dxbc.error != PSOC_DXBC_OK || !sh->dxbc.has_program ||
      sh->dxbc.program_type != stages[stage].program)
    return NULL;
  return &sh->dxbc;
}

static int name_is(const psoc_dxbc_element *e, const char *s) {
  size_t n = strlen(s);
  return e->name_len == n && strncasecmp(e->name, s, n) == 0;
}

static int is_system_name(const psoc_dxbc_element *e) {
  return e->name_len >= 3 && strncasecmp(e->name, "SV_", 3) == 0;
}

static int is_target(const psoc_dxbc_element *e) {
  return e->system_value == PSOC_SV_TARGET || name_is(e, "SV_Target");
}

static int is_position(const psoc_dxbc_element *e) {
  return e->system_value == PSOC_SV_POSITION || name_is(e, "SV_Position");
}

static int is_depth(const psoc_dxbc_element *e) {
  return e->system_value == PSOC_SV_DEPTH || e->system_value == PSOC_SV_DEPTH_GE ||
         e->system_value == PSOC_SV_DEPTH_LE || (e->name_len >= 8 && strncasecmp(e->name, "SV_Depth", 8) == 0);
}

int psoc_rule_ps_writes_target(const rule_ctx *ctx, unsigned target) {
  const psoc_dxbc *ps;
  psoc_dxbc_element e;
  uint32_t i;
  if (!psoc_rule_shader_present(ctx, PSOC_STAGE_PS)) return 0; /* no pixel shader: nothing is written */
  ps = good(ctx, PSOC_STAGE_PS);
  if (!ps || !ps->output.present) return -1;
  for (i = 0; psoc_dxbc_element_get(&ps->output, i, &e); i++)
    if (is_target(&e) && e.semantic_index == target) return 1;
  return 0;
}

/* ---- per container ---------------------------------------------------- */

static void check_container(const rule_ctx *ctx, int s) {
  const psoc_shader *sh = &ctx->shaders[s];
  const psoc_dxbc *c = &sh->dxbc;
  const char *slot = psoc_subobject_info_get(sh->slot)->name;
  char field[PSOC_DIAG_FIELD_MAX];
  uint32_t sm, max = ctx->profile->shader_model;
/* "<slot>.pShaderBytecode", built only to emit */
#define FIELD psoc_rule_field(field, "%s.pShaderBytecode", slot)
  if (c->error != PSOC_DXBC_OK) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_SHADER_CONTAINER,
                   s == PSOC_STAGE_VS && c->error == PSOC_DXBC_BAD_SIGNATURE
                       ? IL "UNPARSEABLEINPUTSIGNATURE" : stages[s].bytecode_id,
                   sh->slot, FIELD, "the %s bytecode (%zu bytes) is not a valid shader container: "
                   "%s (at byte %u); pass the compiler's output unchanged with its full size",
                   slot, c->blob_size, psoc_dxbc_error_text(c->error), c->error_offset);
    return;
  }
  if (!c->digest_ok) {
    if (c->digest_zero)
      psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_SHADER_CONTAINER, stages[s].bytecode_id,
                     sh->slot, FIELD, "the %s container is not signed (its checksum is zero); the "
                     "runtime accepts only validated shaders: sign it with the DXIL validator "
                     "(dxc without -Vd)", slot);
    else
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_SHADER_CONTAINER, stages[s].bytecode_id,
                     sh->slot, FIELD, "the %s container's checksum does not match its bytes, so "
                     "it was modified after compiling; recompile or re-sign it", slot);
  }
  if (!c->has_program) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_SHADER_CONTAINER, stages[s].bytecode_id,
                   sh->slot, FIELD, "the %s container has no SHDR, SHEX or DXIL program; pass a "
                   "compiled shader, not a root signature or reflection blob", slot);
    return;
  }
  if (c->program_type != stages[s].program) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_SHADER_STAGE, stages[s].type_id, sh->slot,
                   FIELD, "the %s slot holds a %s (%s_%u_%u); give it a %s, or move this blob to "
                   "the %s slot", slot, psoc_program_type_name(c->program_type),
                   c->program_type == PSOC_PROGRAM_LIB ? "lib"
                   : psoc_program_type_short(c->program_type), c->major, c->minor,
                   psoc_program_type_name(stages[s].program), psoc_program_type_short(c->program_type));
    return;
  }
  sm = (c->major << 4) | c->minor;
  if (sm > max)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_SHADER_MODEL, GPS "SHADER_MODEL_MISMATCH",
                   sh->slot, FIELD, "the %s is shader model %u.%u but profile '%s' supports up to "
                   "%u.%u; compile for %u.%u or choose a newer profile", slot, c->major, c->minor,
                   ctx->profile->name, max >> 4, max & 15, max >> 4, max & 15);
#undef FIELD
}

/* ---- root signature --------------------------------------------------- */

static void check_root_signature(const rule_ctx *ctx) {
  const psoc_rule_state *r = &ctx->state;
  int s, all_good = 1, flags_known = 0;
  uint32_t flags = 0;
  const char *missing = ctx->walk->kind == PSOC_KIND_COMPUTE
                            ? "CREATECOMPUTEPIPELINESTATE_MISSING_ROOT_SIGNATURE"
                            : GPS "MISSING_ROOT_SIGNATURE";
  if (r->serialized_root_signature->pSerializedBlob) {
    psoc_dxbc rs;
    if (psoc_dxbc_parse(r->serialized_root_signature->pSerializedBlob,
                        r->serialized_root_signature->SerializedBlobSizeInBytes, &rs) == PSOC_DXBC_OK &&
        rs.has_root_signature)
      flags_known = 1, flags = rs.root_signature_flags;
  } else if (!r->root_signature) {
    int found = 0;
    for (s = 0; s < PSOC_STAGE_COUNT; s++) {
      const psoc_shader *sh = &ctx->shaders[s];
      if (!psoc_rule_shader_present(ctx, s)) continue;
      if (!psoc_rule_shader_parsed(ctx, s) || sh->dxbc.error != PSOC_DXBC_OK) { all_good = 0; continue; }
      if (sh->dxbc.has_root_signature && !found)
        found = 1, flags_known = 1, flags = sh->dxbc.root_signature_flags;
    }
    if (all_good && !found)
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_ROOT_SIGNATURE, missing,
                     PSOC_SO_ROOT_SIGNATURE, "ROOT_SIGNATURE",
                     "no root signature: the ROOT_SIGNATURE pointer is %s and no shader embeds "
                     "one (RTS0); set pRootSignature, add SERIALIZED_ROOT_SIGNATURE, or compile "
                     "a root signature into the shader", psoc_rule_has(ctx, PSOC_SO_ROOT_SIGNATURE)
                     ? "NULL" : "absent");
  }
  if (flags_known && ctx->walk->kind == PSOC_KIND_GRAPHICS &&
      r->input_layout->NumElements > 0 && !(flags & 0x1u))
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_ROOT_SIGNATURE,
                   GPS "MISSING_ROOT_SIGNATURE_FLAGS", PSOC_SO_INPUT_LAYOUT, "ROOT_SIGNATURE.Flags",
                   "the input layout has %u elements but the root signature lacks "
                   "D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT (flags 0x%x); add "
                   "the flag or drop the input layout", r->input_layout->NumElements, flags);
  /* Stream output needs D3D12_ROOT_SIGNATURE_FLAG_ALLOW_STREAM_OUTPUT
  ** (0x40): vkd3d-proton's test_create_graphics_pipeline_state records
  ** E_INVALIDARG from the native runtime without it. */
  if (flags_known && ctx->walk->kind == PSOC_KIND_GRAPHICS &&
      r->stream_output->NumEntries > 0 && !(flags & 0x40u))
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_ROOT_SIGNATURE,
                   GPS "MISSING_ROOT_SIGNATURE_FLAGS", PSOC_SO_STREAM_OUTPUT, "ROOT_SIGNATURE.Flags",
                   "the pipeline streams out %u entries but the root signature lacks "
                   "D3D12_ROOT_SIGNATURE_FLAG_ALLOW_STREAM_OUTPUT (flags 0x%x); add the flag or "
                   "drop the stream output", r->stream_output->NumEntries, flags);
}

/* ---- input layout against the VS input signature ----------------------- */

static void check_vs_inputs(const rule_ctx *ctx) {
  const psoc_dxbc *vs = good(ctx, PSOC_STAGE_VS);
  const D3D12_INPUT_LAYOUT_DESC *il = ctx->state.input_layout;
  uint32_t i, j, n;
  psoc_dxbc_element e;
  if (!vs || !vs->input.present) return;
  n = il->pInputElementDescs && il->NumElements <= 32 ? il->NumElements : 0;
  for (i = 0; psoc_dxbc_element_get(&vs->input, i, &e); i++) {
    const D3D12_INPUT_ELEMENT_DESC *match = NULL;
    const psoc_format_info *f;
    if (is_system_name(&e)) continue; /* SV_VertexID and friends come from the IA */
    if (n == 0) {
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INPUT_SIGNATURE, GPS "INPUTLAYOUT_NOT_SET",
                     PSOC_SO_INPUT_LAYOUT, "INPUT_LAYOUT",
                     "the vertex shader reads %.*s%u but the pipeline has no input layout; add an "
                     "INPUT_LAYOUT with an element for each VS input", (int)e.name_len, e.name,
                     e.semantic_index);
      return;
    }
    for (j = 0; j < n && !match; j++) {
      const D3D12_INPUT_ELEMENT_DESC *x = &il->pInputElementDescs[j];
      if (x->SemanticName && x->SemanticIndex == e.semantic_index &&
          strnlen(x->SemanticName, 256) == e.name_len &&
          strncasecmp(x->SemanticName, e.name, e.name_len) == 0)
        match = x;
    }
    if (!match) {
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INPUT_SIGNATURE, IL "MISSINGELEMENT",
                     PSOC_SO_INPUT_LAYOUT, "INPUT_LAYOUT.pInputElementDescs",
                     "the vertex shader reads %.*s (index %u) but no input element provides it; "
                     "add an element with SemanticName \"%.*s\" and SemanticIndex %u",
                     (int)e.name_len, e.name, e.semantic_index, (int)e.name_len, e.name,
                     e.semantic_index);
      continue;
    }
    f = psoc_format_get(match->Format);
    if (f && f->type && e.component_type && f->type != e.component_type)
      psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_INPUT_SIGNATURE, IL "TYPE_MISMATCH",
                     PSOC_SO_INPUT_LAYOUT, "INPUT_LAYOUT.pInputElementDescs",
                     "the vertex shader reads %.*s%u as %s but its element is %s (%s data); the "
                     "bits are reinterpreted: match the format's type to the shader input",
                     (int)e.name_len, e.name, e.semantic_index, psoc_comp_type_name(e.component_type),
                     psoc_format_name(match->Format), psoc_comp_type_name(f->type));
  }
}

/* ---- PS outputs against the render targets ----------------------------- */

static void check_ps_outputs(const rule_ctx *ctx) {
  const psoc_dxbc *ps = good(ctx, PSOC_STAGE_PS);
  const D3D12_RT_FORMAT_ARRAY *rts = ctx->state.render_targets;
  const D3D12_BLEND_DESC *b = ctx->state.blend;
  uint32_t i, written = 0, n = rts->NumRenderTargets <= 8 ? rts->NumRenderTargets : 8;
  psoc_dxbc_element e;
  if (!ps || !ps->output.present) return;
  for (i = 0; psoc_dxbc_element_get(&ps->output, i, &e); i++) {
    uint32_t t = e.semantic_index;
    const psoc_format_info *f;
    if (is_depth(&e) && ctx->state.depth_stencil_format == DXGI_FORMAT_UNKNOWN)
      psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_PS_OUTPUT, GPS "DEPTHSTENCILVIEW_NOT_SET",
                     PSOC_SO_DEPTH_STENCIL_FORMAT, "DEPTH_STENCIL_FORMAT",
                     "the pixel shader writes %.*s but DSVFormat is UNKNOWN; set the depth "
                     "buffer's format or stop writing depth", (int)e.name_len, e.name);
    if (!is_target(&e) || t >= 8) continue;
    written |= 1u << t;
    if (t >= n || rts->RTFormats[t] == DXGI_FORMAT_UNKNOWN) {
      psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_PS_OUTPUT, GPS "RENDERTARGETVIEW_NOT_SET",
                     PSOC_SO_RENDER_TARGET_FORMATS, "RENDER_TARGET_FORMATS",
                     "the pixel shader writes SV_Target%u but render target %u is %s; its output "
                     "is discarded: add the format (NumRenderTargets %u) or stop writing it", t, t,
                     t >= n ? "beyond NumRenderTargets" : "UNKNOWN", t + 1);
      continue;
    }
    f = psoc_format_get(rts->RTFormats[t]);
    if (f && f->type && e.component_type && f->type != e.component_type)
      psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_PS_OUTPUT, GPS "PS_OUTPUT_TYPE_MISMATCH",
                     PSOC_SO_RENDER_TARGET_FORMATS, "RENDER_TARGET_FORMATS",
                     "the pixel shader writes SV_Target%u as %s but render target %u is %s (%s); "
                     "declare the output as %s or change the format", t,
                     psoc_comp_type_name(e.component_type), t, psoc_format_name(rts->RTFormats[t]),
                     psoc_comp_type_name(f->type), psoc_comp_type_name(f->type));
  }
  for (i = 0; i < n; i++) {
    const D3D12_RENDER_TARGET_BLEND_DESC *rt = &b->RenderTarget[b->IndependentBlendEnable ? i : 0];
    if (rts->RTFormats[i] == DXGI_FORMAT_UNKNOWN || (written & (1u << i)) ||
        (rt->RenderTargetWriteMask & 0xf) == 0)
      continue;
    psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_PS_OUTPUT, GPS "PS_OUTPUT_RT_OUTPUT_MISMATCH",
                   PSOC_SO_RENDER_TARGET_FORMATS, "RENDER_TARGET_FORMATS",
                   "render target %u (%s) is bound but the pixel shader does not write SV_Target%u, "
                   "so its contents become undefined; write it, set its write mask to 0, or "
                   "reduce NumRenderTargets", i, psoc_format_name(rts->RTFormats[i]), i);
  }
}

/* ---- stage linkage ----------------------------------------------------- */

typedef struct link_ids {
  const char *not_found, *component_type, *mask, *reg, *system_value, *min_precision, *rw;
} link_ids;

static const link_ids generic_ids = {
  GPS "SHADER_LINKAGE_SEMANTICNAME_NOT_FOUND", GPS "SHADER_LINKAGE_COMPONENTTYPE",
  GPS "SHADER_LINKAGE_REGISTERMASK", GPS "SHADER_LINKAGE_REGISTERINDEX",
  GPS "SHADER_LINKAGE_SYSTEMVALUE", GPS "SHADER_LINKAGE_MINPRECISION",
  GPS "SHADER_LINKAGE_NEVERWRITTEN_ALWAYSREADS",
};
static const link_ids hs_ds_ids = {
  GPS "SHADER_LINKAGE_HS_DS_SIGNATURE_MISMATCH", GPS "SHADER_LINKAGE_HS_DS_SIGNATURE_MISMATCH",
  GPS "SHADER_LINKAGE_HS_DS_SIGNATURE_MISMATCH", GPS "SHADER_LINKAGE_HS_DS_SIGNATURE_MISMATCH",
  GPS "SHADER_LINKAGE_HS_DS_SIGNATURE_MISMATCH", GPS "SHADER_LINKAGE_MINPRECISION",
  GPS "SHADER_LINKAGE_NEVERWRITTEN_ALWAYSREADS",
};
static const link_ids ms_ps_ids = {
  GPS "MS_NOT_PS_MISMATCH", GPS "MS_NOT_PS_MISMATCH", GPS "MS_NOT_PS_MISMATCH",
  GPS "MS_NOT_PS_MISMATCH", GPS "MS_NOT_PS_MISMATCH", GPS "SHADER_LINKAGE_MINPRECISION",
  GPS "SHADER_LINKAGE_NEVERWRITTEN_ALWAYSREADS",
};

static void link_diag(const rule_ctx *ctx, psoc_severity sev, const char *id, int to,
                      const char *fmt, const psoc_dxbc_element *e, const char *from_name,
                      const char *to_name, const char *what) {
  char field[PSOC_DIAG_FIELD_MAX];
  snprintf(field, sizeof field, "%s.pShaderBytecode", to_name);
  psoc_rule_diag(ctx, sev, PSOC_CODE_SHADER_LINKAGE, id, stages[to].slot, field, fmt,
                 to_name, (int)e->name_len, e->name, e->semantic_index, from_name, what);
}

static void check_link(const rule_ctx *ctx, int from, int to, const link_ids *ids) {
  const psoc_dxbc *p = good(ctx, from), *c = good(ctx, to);
  const char *pn = psoc_program_type_short(stages[from].program);
  const char *cn = psoc_program_type_short(stages[to].program);
  uint32_t stream = 0, i, j;
  psoc_dxbc_element in, out;
  char what[160];
  if (!p || !c || !p->output.present || !c->input.present) return;
  if (from == PSOC_STAGE_GS && ctx->state.stream_output->RasterizedStream < 4)
    stream = ctx->state.stream_output->RasterizedStream;
  for (i = 0; psoc_dxbc_element_get(&c->input, i, &in); i++) {
    int found = 0;
    for (j = 0; psoc_dxbc_element_get(&p->output, j, &out); j++) {
      if (out.stream != stream || out.semantic_index != in.semantic_index ||
          out.name_len != in.name_len || strncasecmp(out.name, in.name, in.name_len) != 0)
        continue;
      found = 1;
      break;
    }
    if (!found) {
      if (is_system_name(&in)) continue; /* generated by the rasterizer or the stage */
      link_diag(ctx, PSOC_SEVERITY_ERROR, ids->not_found, to,
                "the %s reads %.*s%u, which the %s does not write%s; output it from the earlier "
                "stage or remove the input", &in, pn, cn, "");
      continue;
    }
    if (in.component_type && out.component_type && in.component_type != out.component_type) {
      snprintf(what, sizeof what, " as %s but it is written as %s; declare both with the same type",
               psoc_comp_type_name(in.component_type), psoc_comp_type_name(out.component_type));
      link_diag(ctx, PSOC_SEVERITY_ERROR, ids->component_type, to, "the %s reads %.*s%u from the %s%s",
                &in, pn, cn, what);
    }
    if (in.mask & ~out.mask) {
      snprintf(what, sizeof what, " components 0x%x but only 0x%x are written; widen the output "
               "or read fewer components", in.mask, out.mask);
      link_diag(ctx, PSOC_SEVERITY_ERROR, ids->mask, to, "the %s reads %.*s%u from the %s%s",
                &in, pn, cn, what);
    }
    if (!p->is_dxil && !c->is_dxil && in.reg != out.reg) {
      snprintf(what, sizeof what, " in register %u but it is written to register %u; declare the "
               "signatures in the same order", in.reg, out.reg);
      link_diag(ctx, PSOC_SEVERITY_ERROR, ids->reg, to, "the %s reads %.*s%u from the %s%s",
                &in, pn, cn, what);
    }
    if (in.system_value != out.system_value && in.system_value && out.system_value) {
      snprintf(what, sizeof what, " as system value %u but it is written as %u; use the same SV_ "
               "semantic", in.system_value, out.system_value);
      link_diag(ctx, PSOC_SEVERITY_ERROR, ids->system_value, to, "the %s reads %.*s%u from the %s%s",
                &in, pn, cn, what);
    }
    if (p->output.has_min_precision && c->input.has_min_precision &&
        in.min_precision != out.min_precision) {
      snprintf(what, sizeof what, " with min precision %u but it is written with %u; use the same "
               "precision (e.g. both min16float or both float)", in.min_precision, out.min_precision);
      link_diag(ctx, PSOC_SEVERITY_WARNING, ids->min_precision, to,
                "the %s reads %.*s%u from the %s%s", &in, pn, cn, what);
    }
    if (in.rw_mask & out.rw_mask & in.mask & out.mask) {
      snprintf(what, sizeof what, ": components 0x%x are always read but never written; write them "
               "or stop reading them", in.rw_mask & out.rw_mask & in.mask);
      link_diag(ctx, PSOC_SEVERITY_WARNING, ids->rw, to, "the %s reads %.*s%u from the %s%s",
                &in, pn, cn, what);
    }
  }
}

static void check_position(const rule_ctx *ctx, int last) {
  const psoc_dxbc *c = good(ctx, last);
  const psoc_rule_depth *d = &ctx->state.depth_stencil;
  psoc_dxbc_element e;
  uint32_t i;
  if (!c || !c->output.present) return;
  if (!psoc_rule_shader_present(ctx, PSOC_STAGE_PS) && !d->DepthEnable && !d->StencilEnable) return;
  if (ctx->state.stream_output->RasterizedStream == D3D12_SO_NO_RASTERIZED_STREAM &&
      ctx->state.stream_output->NumEntries > 0)
    return;
  for (i = 0; psoc_dxbc_element_get(&c->output, i, &e); i++)
    if (is_position(&e)) return;
  psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_SHADER_LINKAGE, GPS "POSITION_NOT_PRESENT",
                 stages[last].slot, "pShaderBytecode",
                 "the %s is the last stage before the rasterizer but writes no SV_Position; output "
                 "a float4 SV_Position from it", psoc_program_type_name(stages[last].program));
}

void psoc_rules_shaders(const rule_ctx *ctx) {
  int s, dxil = 0, dxbc = 0;
  if (!ctx->follow || ctx->walk->kind == PSOC_KIND_NONE) return;
  for (s = 0; s < PSOC_STAGE_COUNT; s++) {
    if (!psoc_rule_shader_parsed(ctx, s)) continue;
    check_container(ctx, s);
    if (good(ctx, s)) {
      if (ctx->shaders[s].dxbc.is_dxil) dxil++;
      else dxbc++;
    }
  }
  if (dxil && dxbc)
    psoc_rule_diag(ctx, PSOC_SEVERITY_WARNING, PSOC_CODE_SHADER_MODEL, GPS "SHADER_MODEL_MISMATCH",
                   PSOC_SO_TYPE_COUNT, "", "the pipeline mixes DXBC (shader model 5.x) and DXIL "
                   "(6.x) shaders; compile every stage with the same compiler and model");
  check_root_signature(ctx);
  if (ctx->walk->kind == PSOC_KIND_GRAPHICS) {
    int prev = PSOC_STAGE_VS, next;
    check_vs_inputs(ctx);
    for (next = PSOC_STAGE_HS; next <= PSOC_STAGE_PS; next++) {
      if (!psoc_rule_shader_present(ctx, next)) continue;
      if (next == PSOC_STAGE_PS) check_position(ctx, prev);
      check_link(ctx, prev, next, prev == PSOC_STAGE_HS && next == PSOC_STAGE_DS ? &hs_ds_ids
                                                                              : &generic_ids);
      prev = next;
    }
    if (!psoc_rule_shader_present(ctx, PSOC_STAGE_PS)) check_position(ctx, prev);
  } else if (ctx->walk->kind == PSOC_KIND_MESH) {
    check_position(ctx, PSOC_STAGE_MS);
    if (psoc_rule_shader_present(ctx, PSOC_STAGE_PS)) check_link(ctx, PSOC_STAGE_MS, PSOC_STAGE_PS, &ms_ps_ids);
  }
  if (psoc_rule_is_draw(ctx)) check_ps_outputs(ctx);
}
