/*
** rules_bindings.c: the root signature the pipeline carries against the
** resources its shaders bind.
**
** The root signature is the SERIALIZED_ROOT_SIGNATURE blob, or (with no
** ROOT_SIGNATURE pointer) the RTS0 chunk of the first shader that embeds
** one; an ID3D12RootSignature pointer is opaque offline and is not judged.
** A serialized root signature that does not parse or breaks D3D12's rules
** fails pipeline creation: those diagnostics are repeated here, located at
** the subobject. Then every resource a DXBC shader's RDEF chunk binds
** (constant buffers b, SRVs t, UAVs u, samplers s, in their register space
** for shader model 5.1) must be covered by a root parameter, a descriptor
** table range or a static sampler of its class, in its space, visible to
** the shader's stage and not denied by the flags: otherwise the debug layer
** reports <STAGE>_ROOT_SIGNATURE_MISMATCH and creation fails. DXIL shaders
** keep their bindings in metadata psoc does not read (PSV0 resources), so
** AS and MS (always DXIL) and SM 6 shaders are not judged.
**
** RDEF (32-bit words): constant buffer count and offset, resource binding
** count and offset, version (minor, major, program type), flags, creator;
** each binding: name offset, D3D_SHADER_INPUT_TYPE, return type, dimension,
** sample count, bind point, bind count (0: unbounded), flags, and from
** shader model 5.1 on register space and ID (40 bytes instead of 32).
*/
#include "rootsig.h"
#include "rules_internal.h"

#define GPS "CREATEGRAPHICSPIPELINESTATE_"

enum { C_SRV = 0, C_UAV = 1, C_CBV = 2, C_SAMPLER = 3 }; /* D3D12_DESCRIPTOR_RANGE_TYPE */

static const char letter[] = { 't', 'u', 'b', 's' };
static const char *const class_name[] = { "SRV", "UAV", "constant buffer", "sampler" };

/* D3D_SHADER_INPUT_TYPE -> register class, or -1 */
static int input_class(uint32_t type) {
  switch (type) {
  case 0: return C_CBV;     /* CBUFFER */
  case 1:                   /* TBUFFER */
  case 2:                   /* TEXTURE */
  case 5:                   /* STRUCTURED */
  case 7:                   /* BYTEADDRESS */
  case 12: return C_SRV;    /* RTACCELERATIONSTRUCTURE */
  case 3: return C_SAMPLER; /* SAMPLER */
  case 4: case 6: case 8: case 9: case 10: case 11: case 13: return C_UAV;
  default: return -1;
  }
}

typedef struct stage_info {
  uint32_t visibility; /* D3D12_SHADER_VISIBILITY */
  uint32_t deny;       /* D3D12_ROOT_SIGNATURE_FLAG_DENY_*_ROOT_ACCESS, or 0 */
  const char *id;
} stage_info;

/* by PSOC_STAGE_* */
static const stage_info stages[PSOC_STAGE_COUNT] = {
  { 6, 0x100, GPS "AS_ROOT_SIGNATURE_MISMATCH" }, { 7, 0x200, GPS "MS_ROOT_SIGNATURE_MISMATCH" },
  { 1, 0x2, GPS "VS_ROOT_SIGNATURE_MISMATCH" },   { 2, 0x4, GPS "HS_ROOT_SIGNATURE_MISMATCH" },
  { 3, 0x8, GPS "DS_ROOT_SIGNATURE_MISMATCH" },   { 4, 0x10, GPS "GS_ROOT_SIGNATURE_MISMATCH" },
  { 5, 0x20, GPS "PS_ROOT_SIGNATURE_MISMATCH" },
  { 0, 0, "CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH" },
};

static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Does the root signature cover registers [lo, hi] of class cls in space,
** for a stage of visibility vis? Walks the covered intervals upwards. */
static int covered(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d, int cls, uint32_t space,
                   uint32_t vis, uint32_t lo, uint32_t hi, uint32_t *first_missing) {
  int v11 = d->Version == D3D_ROOT_SIGNATURE_VERSION_1_1;
  uint32_t np = v11 ? d->Desc_1_1.NumParameters : d->Desc_1_0.NumParameters;
  uint32_t ns = v11 ? d->Desc_1_1.NumStaticSamplers : d->Desc_1_0.NumStaticSamplers;
  const D3D12_STATIC_SAMPLER_DESC *ss = v11 ? d->Desc_1_1.pStaticSamplers
                                            : d->Desc_1_0.pStaticSamplers;
  uint32_t cur = lo;
  for (;;) {
    uint64_t best = 0; /* one past the highest register covering cur, 0: none */
    uint32_t i, j;
    for (i = 0; i < np; i++) {
      uint32_t type, pvis, nr;
      if (v11) type = (uint32_t)d->Desc_1_1.pParameters[i].ParameterType,
               pvis = (uint32_t)d->Desc_1_1.pParameters[i].ShaderVisibility;
      else type = (uint32_t)d->Desc_1_0.pParameters[i].ParameterType,
           pvis = (uint32_t)d->Desc_1_0.pParameters[i].ShaderVisibility;
      if (pvis != 0 && pvis != vis) continue;
      if (type == D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE) {
        nr = v11 ? d->Desc_1_1.pParameters[i].DescriptorTable.NumDescriptorRanges
                 : d->Desc_1_0.pParameters[i].DescriptorTable.NumDescriptorRanges;
        for (j = 0; j < nr; j++) {
          uint32_t rt, count, base, rspace;
          uint64_t end;
          if (v11) {
            const D3D12_DESCRIPTOR_RANGE1 *r = &d->Desc_1_1.pParameters[i].DescriptorTable.pDescriptorRanges[j];
            rt = (uint32_t)r->RangeType, count = r->NumDescriptors;
            base = r->BaseShaderRegister, rspace = r->RegisterSpace;
          } else {
            const D3D12_DESCRIPTOR_RANGE *r = &d->Desc_1_0.pParameters[i].DescriptorTable.pDescriptorRanges[j];
            rt = (uint32_t)r->RangeType, count = r->NumDescriptors;
            base = r->BaseShaderRegister, rspace = r->RegisterSpace;
          }
          if ((int)rt != cls || rspace != space || base > cur) continue;
          end = count == UINT32_MAX ? (uint64_t)UINT32_MAX + 1 : (uint64_t)base + count;
          if (end > cur && end > best) best = end;
        }
      } else {
        int pcls = type == D3D12_ROOT_PARAMETER_TYPE_SRV   ? C_SRV
                   : type == D3D12_ROOT_PARAMETER_TYPE_UAV ? C_UAV
                                                           : C_CBV;
        uint32_t reg, pspace;
        if (type == D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS) {
          reg = v11 ? d->Desc_1_1.pParameters[i].Constants.ShaderRegister
                    : d->Desc_1_0.pParameters[i].Constants.ShaderRegister;
          pspace = v11 ? d->Desc_1_1.pParameters[i].Constants.RegisterSpace
                       : d->Desc_1_0.pParameters[i].Constants.RegisterSpace;
        } else {
          reg = v11 ? d->Desc_1_1.pParameters[i].Descriptor.ShaderRegister
                    : d->Desc_1_0.pParameters[i].Descriptor.ShaderRegister;
          pspace = v11 ? d->Desc_1_1.pParameters[i].Descriptor.RegisterSpace
                       : d->Desc_1_0.pParameters[i].Descriptor.RegisterSpace;
        }
        if (pcls == cls && pspace == space && reg == cur && (uint64_t)reg + 1 > best)
          best = (uint64_t)reg + 1;
      }
    }
    for (i = 0; cls == C_SAMPLER && i < ns; i++)
      if (ss[i].RegisterSpace == space && ss[i].ShaderRegister == cur &&
          ((uint32_t)ss[i].ShaderVisibility == 0 || (uint32_t)ss[i].ShaderVisibility == vis) &&
          (uint64_t)cur + 1 > best)
        best = (uint64_t)cur + 1;
    if (best == 0) {
      *first_missing = cur;
      return 0;
    }
    if (best > hi) return 1;
    cur = (uint32_t)best;
  }
}

static void check_stage(const rule_ctx *ctx, int s, const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d,
                        uint32_t flags) {
  const psoc_shader *sh = &ctx->shaders[s];
  const stage_info *st = &stages[s];
  const unsigned char *c;
  uint32_t n, count, off, stride, i, major, minor;
  char field[PSOC_DIAG_FIELD_MAX];
  if (!psoc_rule_shader_parsed(ctx, s) || sh->dxbc.error != PSOC_DXBC_OK || sh->dxbc.is_dxil) return;
  if (!psoc_dxbc_find_chunk(&sh->dxbc, PSOC_FOURCC('R', 'D', 'E', 'F'), &c, &n) || n < 28) return;
  count = rd32(c + 8);
  off = rd32(c + 12);
  minor = c[16];
  major = c[17];
  stride = major > 5 || (major == 5 && minor >= 1) ? 40u : 32u;
  if (off > n || count > (n - off) / stride) return; /* malformed: nothing to compare */
  for (i = 0; i < count; i++) {
    const unsigned char *b = c + off + stride * i;
    int cls = input_class(rd32(b + 4));
    uint32_t lo = rd32(b + 20), nb = rd32(b + 24), space = stride == 40 ? rd32(b + 32) : 0, hi;
    uint32_t missing = lo;
    if (cls < 0) continue;
    hi = nb == 0 || lo > UINT32_MAX - (nb - 1) ? UINT32_MAX : lo + (nb - 1);
    if (st->deny && (flags & st->deny)) {
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_ROOT_SIGNATURE, st->id, sh->slot,
                     psoc_rule_field(field, "pShaderBytecode.RDEF[%u]", (unsigned)i),
                     "the %s binds %s %c%u (space %u) but the root signature denies it root "
                     "access (flags 0x%x)", psoc_program_type_name(sh->dxbc.program_type),
                     class_name[cls], letter[cls], (unsigned)lo, (unsigned)space, (unsigned)flags);
      return;
    }
    if (!covered(d, cls, space, st->visibility, lo, hi, &missing))
      psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_ROOT_SIGNATURE, st->id, sh->slot,
                     psoc_rule_field(field, "pShaderBytecode.RDEF[%u]", (unsigned)i),
                     "the %s binds %s %c%u%s (space %u) but the root signature has no parameter, "
                     "range or static sampler visible to it for %c%u; add one or change the "
                     "shader's register", psoc_program_type_name(sh->dxbc.program_type),
                     class_name[cls], letter[cls], (unsigned)lo,
                     nb == 1 ? "" : nb == 0 ? " and up" : " onwards", (unsigned)space,
                     letter[cls], (unsigned)missing);
  }
}

/* Repeat the root signature's own diagnostics at the subobject. */
static int report_invalid(const rule_ctx *ctx, const psoc_diags *rd) {
  size_t i;
  int errors = 0;
  for (i = 0; i < rd->count; i++) {
    char field[PSOC_DIAG_FIELD_MAX];
    const psoc_diag *e = &rd->items[i];
    if (e->severity == PSOC_SEVERITY_ERROR) errors++;
    psoc_rule_diag(ctx, e->severity, PSOC_CODE_ROOT_SIGNATURE, NULL,
                   PSOC_SO_SERIALIZED_ROOT_SIGNATURE,
                   psoc_rule_field(field, "SERIALIZED_ROOT_SIGNATURE%s%.40s", e->field[0] ? "." : "",
                                   e->field),
                   "the serialized root signature: %s", e->message);
  }
  return errors;
}

void psoc_rules_root_bindings(const rule_ctx *ctx) {
  const psoc_rule_state *r = &ctx->state;
  const void *blob = NULL;
  size_t size = 0;
  int s, serialized = 0;
  psoc_allocator a = psoc_alloc_or_default(ctx->diags ? &ctx->diags->alloc : NULL);
  psoc_rootsig *rs = NULL;
  psoc_diags rd;
  if (!ctx->follow || ctx->walk->kind == PSOC_KIND_NONE) return;
  if (r->serialized_root_signature->pSerializedBlob) {
    blob = r->serialized_root_signature->pSerializedBlob;
    size = r->serialized_root_signature->SerializedBlobSizeInBytes;
    serialized = 1;
  } else if (!r->root_signature) {
    for (s = 0; s < PSOC_STAGE_COUNT && !blob; s++) {
      const psoc_shader *sh = &ctx->shaders[s];
      if (psoc_rule_shader_parsed(ctx, s) && sh->dxbc.error == PSOC_DXBC_OK && sh->dxbc.digest_ok &&
          sh->dxbc.has_root_signature)
        blob = sh->dxbc.data, size = sh->dxbc.size;
    }
  }
  if (!blob) return;
  psoc_diags_init(&rd, &a);
  if (psoc_rootsig_parse(blob, size, &a, &rs, &rd) != PSOC_OK ||
      psoc_rootsig_validate(psoc_rootsig_desc(rs), &rd) != PSOC_OK) {
    /* an embedded RTS0 that is broken is the shader checks' business */
    if (serialized) report_invalid(ctx, &rd);
  } else {
    const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d = psoc_rootsig_desc(rs);
    uint32_t flags = (uint32_t)(d->Version == D3D_ROOT_SIGNATURE_VERSION_1_1 ? d->Desc_1_1.Flags
                                                                              : d->Desc_1_0.Flags);
    if (serialized) report_invalid(ctx, &rd); /* warnings only */
    for (s = 0; s < PSOC_STAGE_COUNT; s++) {
      if (!psoc_rule_shader_present(ctx, s)) continue;
      if ((ctx->walk->kind == PSOC_KIND_COMPUTE) != (s == PSOC_STAGE_CS)) continue;
      check_stage(ctx, s, d, flags);
    }
  }
  psoc_rootsig_free(rs);
  psoc_diags_free(&rd);
}
