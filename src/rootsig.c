/*
** rootsig.c: serialize, parse and validate Direct3D 12 root signatures
** (versions 1.0 and 1.1).
**
** The blob is a DXBC container (header, one chunk offset) with a single
** RTS0 chunk, signed with the container checksum. The chunk, all in 32-bit
** little-endian words, offsets counted from the start of the chunk data:
**   header   version (1 = 1.0, 2 = 1.1), parameter count, parameters
**            offset, static sampler count, static samplers offset, flags
**   per parameter: type, visibility, payload offset; then the payloads in
**            parameter order:
**     table       range count, ranges offset, then the ranges: type,
**                 count, base register, space, [1.1: flags,] offset in
**                 the table
**     constants   register, space, 32-bit value count
**     CBV/SRV/UAV register, space [, 1.1: flags]
**   static samplers (13 words each): filter, address u/v/w, mip LOD bias,
**            max anisotropy, comparison, border colour, min LOD, max LOD,
**            register, space, visibility
*/
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "dxbc.h"
#include "internal.h"
#include "rootsig.h"

/* ---- enumerations ---------------------------------------------------- */

/* The tables (psoc_enum_shader_visibility, ..._filter, ...) are generated
** from the installed headers with the others (src/enums.c,
** scripts/gen_enums.lua); these are the bits this file knows. */
#define RS_FLAGS_KNOWN 0xfffu
#define RANGE_DESCRIPTORS_VOLATILE 0x1u
#define RANGE_DATA_MASK 0xeu
#define RANGE_DATA_STATIC 0x8u
#define RANGE_KEEPING_BOUNDS 0x10000u
#define RANGE_FLAGS_KNOWN 0x1000fu

/* ---- one view of both versions --------------------------------------- */

enum { P_TABLE = 0, P_CONSTANTS = 1, P_CBV = 2, P_SRV = 3, P_UAV = 4 };
enum { R_SRV = 0, R_UAV = 1, R_CBV = 2, R_SAMPLER = 3 };
#define UNBOUNDED 0xffffffffu
#define APPEND 0xffffffffu
#define RESERVED_SPACE_START 0xfffffff0u
#define ROOT_DWORDS_MAX 64u

typedef struct rs_param {
  uint32_t type, visibility;
  uint32_t reg, space, value_count, flags; /* constants and descriptors */
  uint32_t range_count;                    /* tables */
} rs_param;

typedef struct rs_range {
  uint32_t type, count, base, space, flags, offset;
} rs_range;

static int is_v11(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d) {
  return d->Version == D3D_ROOT_SIGNATURE_VERSION_1_1;
}
static uint32_t param_count(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d) {
  return is_v11(d) ? d->Desc_1_1.NumParameters : d->Desc_1_0.NumParameters;
}
static uint32_t sampler_count(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d) {
  return is_v11(d) ? d->Desc_1_1.NumStaticSamplers : d->Desc_1_0.NumStaticSamplers;
}
static const D3D12_STATIC_SAMPLER_DESC *samplers_of(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d) {
  return is_v11(d) ? d->Desc_1_1.pStaticSamplers : d->Desc_1_0.pStaticSamplers;
}
static uint32_t flags_of(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d) {
  return (uint32_t)(is_v11(d) ? d->Desc_1_1.Flags : d->Desc_1_0.Flags);
}

static void get_param(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d, uint32_t i, rs_param *p) {
  memset(p, 0, sizeof *p);
  if (is_v11(d)) {
    const D3D12_ROOT_PARAMETER1 *q = &d->Desc_1_1.pParameters[i];
    p->type = (uint32_t)q->ParameterType;
    p->visibility = (uint32_t)q->ShaderVisibility;
    if (p->type == P_TABLE) p->range_count = q->DescriptorTable.NumDescriptorRanges;
    else if (p->type == P_CONSTANTS)
      p->reg = q->Constants.ShaderRegister, p->space = q->Constants.RegisterSpace,
      p->value_count = q->Constants.Num32BitValues;
    else
      p->reg = q->Descriptor.ShaderRegister, p->space = q->Descriptor.RegisterSpace,
      p->flags = (uint32_t)q->Descriptor.Flags;
  } else {
    const D3D12_ROOT_PARAMETER *q = &d->Desc_1_0.pParameters[i];
    p->type = (uint32_t)q->ParameterType;
    p->visibility = (uint32_t)q->ShaderVisibility;
    if (p->type == P_TABLE) p->range_count = q->DescriptorTable.NumDescriptorRanges;
    else if (p->type == P_CONSTANTS)
      p->reg = q->Constants.ShaderRegister, p->space = q->Constants.RegisterSpace,
      p->value_count = q->Constants.Num32BitValues;
    else
      p->reg = q->Descriptor.ShaderRegister, p->space = q->Descriptor.RegisterSpace;
  }
}

static void get_range(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *d, uint32_t i, uint32_t j,
                      rs_range *r) {
  if (is_v11(d)) {
    const D3D12_DESCRIPTOR_RANGE1 *q = &d->Desc_1_1.pParameters[i].DescriptorTable.pDescriptorRanges[j];
    r->type = (uint32_t)q->RangeType, r->count = q->NumDescriptors;
    r->base = q->BaseShaderRegister, r->space = q->RegisterSpace;
    r->flags = (uint32_t)q->Flags, r->offset = q->OffsetInDescriptorsFromTableStart;
  } else {
    const D3D12_DESCRIPTOR_RANGE *q = &d->Desc_1_0.pParameters[i].DescriptorTable.pDescriptorRanges[j];
    r->type = (uint32_t)q->RangeType, r->count = q->NumDescriptors;
    r->base = q->BaseShaderRegister, r->space = q->RegisterSpace;
    r->flags = 0, r->offset = q->OffsetInDescriptorsFromTableStart;
  }
}

static const char *enum_key(const psoc_enum *e, uint32_t v) {
  const psoc_enum_value *ev = psoc_enum_value_by_value(e, v);
  return ev ? ev->key : "?";
}

static const char *const range_names[] = { "SRV", "UAV", "CBV", "sampler" };
static const char register_letter[] = { 't', 'u', 'b', 's' };

/* ---- validation ------------------------------------------------------- */

typedef struct vctx {
  psoc_diags *diags;
  size_t errors;
} vctx;

#if defined(__GNUC__)
__attribute__((format(PSOC_PRINTF_FORMAT, 4, 5)))
#endif
static void report(vctx *v, psoc_severity sev, const char *field, const char *fmt, ...) {
  va_list ap;
  if (sev == PSOC_SEVERITY_ERROR) v->errors++;
  if (!v->diags) return;
  va_start(ap, fmt);
  psoc_diags_addv(v->diags, sev, PSOC_CODE_ROOT_SIGNATURE, NULL, -1, -1, field, fmt, ap);
  va_end(ap);
}

/* One register binding: a range, a root constant/descriptor or a static
** sampler. */
typedef struct binding {
  uint32_t cls;       /* R_* */
  uint32_t space, visibility;
  uint32_t lo, hi;    /* inclusive */
  uint32_t param;     /* parameter index, or UINT32_MAX for a static sampler */
  uint32_t index;     /* range index in the table (UINT32_MAX: the parameter), or sampler index */
} binding;

static void binding_path(const binding *b, char *out, size_t n) {
  if (b->param == UINT32_MAX) snprintf(out, n, "StaticSamplers[%u]", (unsigned)b->index);
  else if (b->index == UINT32_MAX) snprintf(out, n, "Parameters[%u]", (unsigned)b->param);
  else snprintf(out, n, "Parameters[%u].Ranges[%u]", (unsigned)b->param, (unsigned)b->index);
}

static int binding_cmp(const void *pa, const void *pb) {
  const binding *a = pa, *b = pb;
  if (a->cls != b->cls) return a->cls < b->cls ? -1 : 1;
  if (a->space != b->space) return a->space < b->space ? -1 : 1;
  if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
  if (a->param != b->param) return a->param < b->param ? -1 : 1;
  if (a->index != b->index) return a->index < b->index ? -1 : 1;
  return 0;
}

static void describe_regs(const binding *b, char *out, size_t n) {
  char l = register_letter[b->cls];
  if (b->lo == b->hi) snprintf(out, n, "%c%u", l, (unsigned)b->lo);
  else if (b->hi == UINT32_MAX) snprintf(out, n, "%c%u and up", l, (unsigned)b->lo);
  else snprintf(out, n, "%c%u-%c%u", l, (unsigned)b->lo, l, (unsigned)b->hi);
}

#define OVERLAPS_REPORTED_MAX 16

static psoc_status check_overlaps(vctx *v, const binding *list, size_t n, binding *sorted) {
  size_t i, j, reported = 0;
  memcpy(sorted, list, n * sizeof *list);
  qsort(sorted, n, sizeof *sorted, binding_cmp);
  for (i = 0; i < n && reported < OVERLAPS_REPORTED_MAX; i++) {
    const binding *a = &sorted[i];
    for (j = i + 1; j < n && reported < OVERLAPS_REPORTED_MAX; j++) {
      const binding *b = &sorted[j];
      char pa[48], pb[48], ra[40], rb[40];
      if (b->cls != a->cls || b->space != a->space || b->lo > a->hi) break;
      if (a->visibility != 0 && b->visibility != 0 && a->visibility != b->visibility) continue;
      binding_path(a, pa, sizeof pa);
      binding_path(b, pb, sizeof pb);
      describe_regs(a, ra, sizeof ra);
      describe_regs(b, rb, sizeof rb);
      report(v, PSOC_SEVERITY_ERROR, pb,
             "%s register range %s (space %u, visibility %s) overlaps %s's %s (visibility %s)",
             range_names[a->cls], rb, (unsigned)a->space, enum_key(&psoc_enum_shader_visibility,
                                                                  b->visibility),
             pa, ra, enum_key(&psoc_enum_shader_visibility, a->visibility));
      reported++;
    }
  }
  return PSOC_OK;
}

static uint32_t deny_bit(uint32_t visibility) {
  static const uint32_t bits[8] = { 0, 0x2, 0x4, 0x8, 0x10, 0x20, 0x100, 0x200 };
  return visibility < 8 ? bits[visibility] : 0;
}

static void check_space(vctx *v, const char *field, uint32_t space) {
  if (space >= RESERVED_SPACE_START)
    report(v, PSOC_SEVERITY_ERROR, field,
           "register space 0x%x is reserved (spaces 0xfffffff0 and above belong to the driver)",
           (unsigned)space);
}

static void check_visibility(vctx *v, const char *field, uint32_t vis, uint32_t flags) {
  if (vis > 7) {
    report(v, PSOC_SEVERITY_ERROR, field, "shader visibility %u is not a D3D12_SHADER_VISIBILITY",
           (unsigned)vis);
    return;
  }
  if (deny_bit(vis) && (flags & deny_bit(vis)))
    report(v, PSOC_SEVERITY_WARNING, field,
           "visible only to the %s shader, whose root access the flags deny: it can never be read",
           enum_key(&psoc_enum_shader_visibility, vis));
}

static void check_range(vctx *v, int v11, uint32_t i, uint32_t j, const rs_range *r,
                        const rs_range *prev, binding *b) {
  char f[PSOC_DIAG_FIELD_MAX];
  snprintf(f, sizeof f, "Parameters[%u].Ranges[%u].RangeType", (unsigned)i, (unsigned)j);
  b->cls = r->type;
  if (r->type > R_SAMPLER) {
    report(v, PSOC_SEVERITY_ERROR, f, "range type %u is not a D3D12_DESCRIPTOR_RANGE_TYPE",
           (unsigned)r->type);
    b->cls = UINT32_MAX;
  }
  snprintf(f, sizeof f, "Parameters[%u].Ranges[%u].NumDescriptors", (unsigned)i, (unsigned)j);
  if (r->count == 0) {
    report(v, PSOC_SEVERITY_ERROR, f, "a descriptor range must hold at least one descriptor");
    b->cls = UINT32_MAX;
  } else if (r->count != UNBOUNDED && r->base > UINT32_MAX - (r->count - 1)) {
    report(v, PSOC_SEVERITY_ERROR, f,
           "%u descriptors from register %u run past the last register (0xffffffff)",
           (unsigned)r->count, (unsigned)r->base);
    b->cls = UINT32_MAX;
  }
  snprintf(f, sizeof f, "Parameters[%u].Ranges[%u].Offset",
           (unsigned)i, (unsigned)j);
  if (prev && prev->count == UNBOUNDED && r->offset == APPEND)
    report(v, PSOC_SEVERITY_ERROR, f,
           "appended after range %u, which is unbounded: give an explicit offset", (unsigned)(j - 1));
  snprintf(f, sizeof f, "Parameters[%u].Ranges[%u].RegisterSpace", (unsigned)i, (unsigned)j);
  check_space(v, f, r->space);
  if (v11) {
    uint32_t data = r->flags & RANGE_DATA_MASK;
    snprintf(f, sizeof f, "Parameters[%u].Ranges[%u].Flags", (unsigned)i, (unsigned)j);
    if (r->flags & ~RANGE_FLAGS_KNOWN)
      report(v, PSOC_SEVERITY_ERROR, f, "unknown D3D12_DESCRIPTOR_RANGE_FLAGS bits 0x%x",
             (unsigned)(r->flags & ~RANGE_FLAGS_KNOWN));
    else if (r->type == R_SAMPLER && (r->flags & ~RANGE_DESCRIPTORS_VOLATILE))
      report(v, PSOC_SEVERITY_ERROR, f,
             "a sampler range takes only descriptors_volatile (samplers have no data to be "
             "volatile or static)");
    else if (data & (data - 1))
      report(v, PSOC_SEVERITY_ERROR, f,
             "data_volatile, data_static_while_set_at_execute and data_static exclude each other");
    else if ((r->flags & RANGE_DESCRIPTORS_VOLATILE) && (r->flags & RANGE_DATA_STATIC))
      report(v, PSOC_SEVERITY_ERROR, f,
             "descriptors_volatile with data_static is not allowed (volatile descriptors "
             "cannot promise static data)");
    else if ((r->flags & RANGE_KEEPING_BOUNDS) && (r->flags & RANGE_DESCRIPTORS_VOLATILE))
      report(v, PSOC_SEVERITY_ERROR, f,
             "descriptors_static_keeping_buffer_bounds_checks and descriptors_volatile exclude "
             "each other");
  }
  b->space = r->space;
  b->lo = r->base;
  b->hi = r->count == UNBOUNDED ? UINT32_MAX : r->base + (r->count ? r->count - 1 : 0);
  b->index = j;
}

static void check_sampler(vctx *v, uint32_t k, const D3D12_STATIC_SAMPLER_DESC *s, uint32_t flags,
                          binding *b) {
  char f[PSOC_DIAG_FIELD_MAX];
  uint32_t filter = (uint32_t)s->Filter, reduction = (filter >> 7) & 3;
  const uint32_t address[3] = { (uint32_t)s->AddressU, (uint32_t)s->AddressV,
                                (uint32_t)s->AddressW };
  static const char *const address_names[3] = { "AddressU", "AddressV", "AddressW" };
  int a;
  snprintf(f, sizeof f, "StaticSamplers[%u].Filter", (unsigned)k);
  if (!psoc_enum_value_by_value(&psoc_enum_filter, filter))
    report(v, PSOC_SEVERITY_ERROR, f, "0x%x is not a D3D12_FILTER", (unsigned)filter);
  for (a = 0; a < 3; a++) {
    snprintf(f, sizeof f, "StaticSamplers[%u].%s", (unsigned)k, address_names[a]);
    if (!psoc_enum_value_by_value(&psoc_enum_texture_address_mode, address[a]))
      report(v, PSOC_SEVERITY_ERROR, f, "%u is not a D3D12_TEXTURE_ADDRESS_MODE",
             (unsigned)address[a]);
  }
  snprintf(f, sizeof f, "StaticSamplers[%u].MipLODBias", (unsigned)k);
  if (isnan(s->MipLODBias) || s->MipLODBias < -16.0f || s->MipLODBias > 15.99f)
    report(v, PSOC_SEVERITY_ERROR, f, "the mip LOD bias %g is outside [-16, 15.99]",
           (double)s->MipLODBias);
  snprintf(f, sizeof f, "StaticSamplers[%u].MaxAnisotropy", (unsigned)k);
  if ((filter & 0x7fu) == 0x55u && s->MaxAnisotropy > 16)
    report(v, PSOC_SEVERITY_ERROR, f, "max anisotropy %u is above 16", (unsigned)s->MaxAnisotropy);
  snprintf(f, sizeof f, "StaticSamplers[%u].ComparisonFunc", (unsigned)k);
  if ((uint32_t)s->ComparisonFunc > 8)
    report(v, PSOC_SEVERITY_ERROR, f, "%u is not a D3D12_COMPARISON_FUNC",
           (unsigned)s->ComparisonFunc);
  else if (reduction == 1 && (uint32_t)s->ComparisonFunc == 0)
    report(v, PSOC_SEVERITY_ERROR, f, "a comparison filter needs a comparison function");
  snprintf(f, sizeof f, "StaticSamplers[%u].BorderColor", (unsigned)k);
  if (!psoc_enum_value_by_value(&psoc_enum_static_border_color, (uint32_t)s->BorderColor))
    report(v, PSOC_SEVERITY_ERROR, f, "%u is not a D3D12_STATIC_BORDER_COLOR",
           (unsigned)s->BorderColor);
  snprintf(f, sizeof f, "StaticSamplers[%u].MinLOD", (unsigned)k);
  if (isnan(s->MinLOD) || isnan(s->MaxLOD))
    report(v, PSOC_SEVERITY_ERROR, f, "MinLOD and MaxLOD must be numbers (not NaN)");
  else if (s->MinLOD > s->MaxLOD)
    report(v, PSOC_SEVERITY_WARNING, f, "MinLOD %g is above MaxLOD %g: every lookup clamps to it",
           (double)s->MinLOD, (double)s->MaxLOD);
  snprintf(f, sizeof f, "StaticSamplers[%u].RegisterSpace", (unsigned)k);
  check_space(v, f, s->RegisterSpace);
  snprintf(f, sizeof f, "StaticSamplers[%u].ShaderVisibility", (unsigned)k);
  check_visibility(v, f, (uint32_t)s->ShaderVisibility, flags);
  b->cls = R_SAMPLER;
  b->space = s->RegisterSpace;
  b->visibility = (uint32_t)s->ShaderVisibility;
  b->lo = b->hi = s->ShaderRegister;
  b->param = UINT32_MAX;
  b->index = k;
}

psoc_status psoc_rootsig_validate(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc,
                                  psoc_diags *diags) {
  vctx v;
  psoc_allocator a;
  uint32_t np, ns, flags, i, j;
  uint64_t dwords = 0, nb = 0;
  binding *list = NULL;
  size_t used = 0, bytes = 0;
  int v11;
  v.diags = diags;
  v.errors = 0;
  if (!desc) return PSOC_ERR_ARG;
  a = psoc_alloc_or_default(diags ? &diags->alloc : NULL);
  if (desc->Version != D3D_ROOT_SIGNATURE_VERSION_1_0 &&
      desc->Version != D3D_ROOT_SIGNATURE_VERSION_1_1) {
    report(&v, PSOC_SEVERITY_ERROR, "Version",
           "root signature version 0x%x is not 1.0 (0x1) or 1.1 (0x2)", (unsigned)desc->Version);
    return PSOC_ERR_INVALID;
  }
  v11 = is_v11(desc);
  np = param_count(desc);
  ns = sampler_count(desc);
  flags = flags_of(desc);
  if ((np && !(v11 ? (const void *)desc->Desc_1_1.pParameters
                   : (const void *)desc->Desc_1_0.pParameters)) ||
      (ns && !samplers_of(desc))) {
    report(&v, PSOC_SEVERITY_ERROR, np && !(v11 ? (const void *)desc->Desc_1_1.pParameters
                                                : (const void *)desc->Desc_1_0.pParameters)
                                        ? "Parameters"
                                        : "StaticSamplers",
           "a non-zero count with a NULL array");
    return PSOC_ERR_INVALID;
  }
  if (flags & ~RS_FLAGS_KNOWN)
    report(&v, PSOC_SEVERITY_ERROR, "Flags", "unknown D3D12_ROOT_SIGNATURE_FLAGS bits 0x%x",
           (unsigned)(flags & ~RS_FLAGS_KNOWN));
  /* how many bindings, for one allocation */
  for (i = 0; i < np; i++) {
    rs_param p;
    get_param(desc, i, &p);
    if (p.type == P_TABLE) {
      const void *ranges = v11 ? (const void *)desc->Desc_1_1.pParameters[i].DescriptorTable.pDescriptorRanges
                               : (const void *)desc->Desc_1_0.pParameters[i].DescriptorTable.pDescriptorRanges;
      if (p.range_count && !ranges) {
        char f[PSOC_DIAG_FIELD_MAX];
        snprintf(f, sizeof f, "Parameters[%u].DescriptorTable", (unsigned)i);
        report(&v, PSOC_SEVERITY_ERROR, f, "%u ranges with a NULL pDescriptorRanges",
               (unsigned)p.range_count);
        return PSOC_ERR_INVALID;
      }
      nb += p.range_count;
    } else {
      nb++;
    }
  }
  nb += ns;
  if (nb > SIZE_MAX / (2 * sizeof(binding))) return PSOC_ERR_NOMEM;
  if (nb) {
    bytes = (size_t)nb * 2 * sizeof(binding);
    list = psoc_mem(&a, NULL, 0, bytes);
    if (!list) return PSOC_ERR_NOMEM;
  }
  for (i = 0; i < np; i++) {
    rs_param p;
    char f[PSOC_DIAG_FIELD_MAX];
    get_param(desc, i, &p);
    snprintf(f, sizeof f, "Parameters[%u].ShaderVisibility", (unsigned)i);
    check_visibility(&v, f, p.visibility, flags);
    switch (p.type) {
    case P_TABLE: {
      int samplers = 0, others = 0;
      rs_range prev;
      dwords += 1;
      if (p.range_count == 0) {
        snprintf(f, sizeof f, "Parameters[%u].DescriptorTable", (unsigned)i);
        report(&v, PSOC_SEVERITY_WARNING, f, "a descriptor table without ranges binds nothing");
      }
      for (j = 0; j < p.range_count; j++) {
        rs_range r;
        binding *b = &list[used];
        get_range(desc, i, j, &r);
        memset(b, 0, sizeof *b);
        b->param = i;
        b->visibility = p.visibility;
        check_range(&v, v11, i, j, &r, j ? &prev : NULL, b);
        if (r.type == R_SAMPLER) samplers = 1;
        else if (r.type < R_SAMPLER) others = 1;
        if (b->cls != UINT32_MAX) used++;
        prev = r;
      }
      if (samplers && others) {
        snprintf(f, sizeof f, "Parameters[%u].DescriptorTable", (unsigned)i);
        report(&v, PSOC_SEVERITY_ERROR, f,
               "a descriptor table mixes sampler ranges with CBV/SRV/UAV ranges (they live in "
               "different descriptor heaps)");
      }
      break;
    }
    case P_CONSTANTS:
    case P_CBV:
    case P_SRV:
    case P_UAV: {
      binding *b = &list[used++];
      dwords += p.type == P_CONSTANTS ? p.value_count : 2;
      snprintf(f, sizeof f, "Parameters[%u].RegisterSpace", (unsigned)i);
      check_space(&v, f, p.space);
      if (p.type == P_CONSTANTS && p.value_count == 0) {
        snprintf(f, sizeof f, "Parameters[%u].Num32BitValues", (unsigned)i);
        report(&v, PSOC_SEVERITY_WARNING, f, "root constants with no values bind nothing");
      }
      if (v11 && p.type != P_CONSTANTS) {
        uint32_t fl = p.flags;
        snprintf(f, sizeof f, "Parameters[%u].Flags", (unsigned)i);
        if (fl & ~RANGE_DATA_MASK)
          report(&v, PSOC_SEVERITY_ERROR, f, "unknown D3D12_ROOT_DESCRIPTOR_FLAGS bits 0x%x",
                 (unsigned)(fl & ~RANGE_DATA_MASK));
        else if (fl & (fl - 1))
          report(&v, PSOC_SEVERITY_ERROR, f,
                 "data_volatile, data_static_while_set_at_execute and data_static exclude each "
                 "other");
      }
      b->cls = p.type == P_CONSTANTS || p.type == P_CBV ? R_CBV : p.type == P_SRV ? R_SRV : R_UAV;
      b->space = p.space;
      b->visibility = p.visibility;
      b->lo = b->hi = p.reg;
      b->param = i;
      b->index = UINT32_MAX;
      break;
    }
    default:
      snprintf(f, sizeof f, "Parameters[%u].ParameterType", (unsigned)i);
      report(&v, PSOC_SEVERITY_ERROR, f, "parameter type %u is not a D3D12_ROOT_PARAMETER_TYPE",
             (unsigned)p.type);
    }
  }
  for (i = 0; i < ns; i++) check_sampler(&v, i, &samplers_of(desc)[i], flags, &list[used++]);
  if (dwords > ROOT_DWORDS_MAX)
    report(&v, PSOC_SEVERITY_ERROR, "Parameters",
           "the root arguments take %llu DWORDs, more than the 64 a root signature may hold "
           "(a table costs 1, a root descriptor 2, each 32-bit constant 1)",
           (unsigned long long)dwords);
  /* visibility values past 7 never overlap anything they could be compared with */
  if (used) check_overlaps(&v, list, used, list + nb);
  if (list) psoc_mem(&a, list, bytes, 0);
  return v.errors ? PSOC_ERR_INVALID : PSOC_OK;
}

/* ---- serializing ------------------------------------------------------ */

static void wr32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
}

static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

#define CONTAINER_HEAD (PSOC_DXBC_HEADER_SIZE + 4u + 8u) /* header, 1 offset, chunk header */
#define SAMPLER_WORDS 13u

psoc_status psoc_rootsig_serialize(const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *desc,
                                   const psoc_allocator *alloc, psoc_diags *diags,
                                   psoc_rootsig_blob *out) {
  psoc_status st;
  uint32_t np, ns, i, j, at, payload;
  uint64_t chunk;
  unsigned char *blob, *c;
  int v11;
  size_t total;
  if (!desc || !out) return PSOC_ERR_ARG;
  memset(out, 0, sizeof *out);
  st = psoc_rootsig_validate(desc, diags);
  if (st != PSOC_OK) return st;
  v11 = is_v11(desc);
  np = param_count(desc);
  ns = sampler_count(desc);
  chunk = 24u + 12u * (uint64_t)np + 4u * SAMPLER_WORDS * (uint64_t)ns;
  for (i = 0; i < np; i++) {
    rs_param p;
    get_param(desc, i, &p);
    if (p.type == P_TABLE) chunk += 8u + (uint64_t)p.range_count * (v11 ? 24u : 20u);
    else if (p.type == P_CONSTANTS) chunk += 12u;
    else chunk += v11 ? 12u : 8u;
  }
  if (chunk > UINT32_MAX - CONTAINER_HEAD) return PSOC_ERR_SIZE;
  total = (size_t)chunk + CONTAINER_HEAD;
  out->alloc = psoc_alloc_or_default(alloc);
  blob = psoc_mem(&out->alloc, NULL, 0, total);
  if (!blob) return PSOC_ERR_NOMEM;
  memset(blob, 0, total);
  wr32(blob, PSOC_FOURCC('D', 'X', 'B', 'C'));
  wr32(blob + 20, 1);
  wr32(blob + 24, (uint32_t)total);
  wr32(blob + 28, 1);
  wr32(blob + 32, PSOC_DXBC_HEADER_SIZE + 4u);
  wr32(blob + 36, PSOC_FOURCC('R', 'T', 'S', '0'));
  wr32(blob + 40, (uint32_t)chunk);
  c = blob + CONTAINER_HEAD;
  wr32(c, v11 ? 2u : 1u);
  wr32(c + 4, np);
  wr32(c + 8, 24u);
  wr32(c + 12, ns);
  wr32(c + 20, flags_of(desc));
  payload = 24u + 12u * np;
  for (i = 0; i < np; i++) {
    rs_param p;
    get_param(desc, i, &p);
    at = 24u + 12u * i;
    wr32(c + at, p.type);
    wr32(c + at + 4, p.visibility);
    wr32(c + at + 8, payload);
    if (p.type == P_TABLE) {
      wr32(c + payload, p.range_count);
      wr32(c + payload + 4, payload + 8u);
      payload += 8u;
      for (j = 0; j < p.range_count; j++) {
        rs_range r;
        get_range(desc, i, j, &r);
        wr32(c + payload, r.type);
        wr32(c + payload + 4, r.count);
        wr32(c + payload + 8, r.base);
        wr32(c + payload + 12, r.space);
        if (v11) wr32(c + payload + 16, r.flags), payload += 4u;
        wr32(c + payload + 16, r.offset);
        payload += 20u;
      }
    } else if (p.type == P_CONSTANTS) {
      wr32(c + payload, p.reg);
      wr32(c + payload + 4, p.space);
      wr32(c + payload + 8, p.value_count);
      payload += 12u;
    } else {
      wr32(c + payload, p.reg);
      wr32(c + payload + 4, p.space);
      payload += 8u;
      if (v11) wr32(c + payload, p.flags), payload += 4u;
    }
  }
  wr32(c + 16, payload);
  for (i = 0; i < ns; i++) {
    const D3D12_STATIC_SAMPLER_DESC *s = &samplers_of(desc)[i];
    const uint32_t w[SAMPLER_WORDS] = {
      (uint32_t)s->Filter,       (uint32_t)s->AddressU,       (uint32_t)s->AddressV,
      (uint32_t)s->AddressW,     float_bits(s->MipLODBias),   s->MaxAnisotropy,
      (uint32_t)s->ComparisonFunc, (uint32_t)s->BorderColor,  float_bits(s->MinLOD),
      float_bits(s->MaxLOD),     s->ShaderRegister,           s->RegisterSpace,
      (uint32_t)s->ShaderVisibility
    };
    for (j = 0; j < SAMPLER_WORDS; j++) wr32(c + payload + 4u * j, w[j]);
    payload += 4u * SAMPLER_WORDS;
  }
  psoc_dxbc_checksum(blob, total, blob + 4);
  out->data = blob;
  out->size = total;
  return PSOC_OK;
}

void psoc_rootsig_blob_free(psoc_rootsig_blob *blob) {
  if (!blob || !blob->data) return;
  psoc_mem(&blob->alloc, blob->data, blob->size, 0);
  blob->data = NULL;
  blob->size = 0;
}

/* ---- parsing ---------------------------------------------------------- */

struct psoc_rootsig {
  psoc_allocator alloc;
  size_t block_size;
  D3D12_VERSIONED_ROOT_SIGNATURE_DESC desc;
};

typedef struct pctx {
  vctx v;
  const unsigned char *c; /* chunk data */
  uint32_t size;
} pctx;

#if defined(__GNUC__)
__attribute__((format(PSOC_PRINTF_FORMAT, 3, 4)))
#endif
static psoc_status bad(pctx *p, uint32_t at, const char *fmt, ...) {
  char f[PSOC_DIAG_FIELD_MAX];
  va_list ap;
  p->v.errors++;
  if (!p->v.diags) return PSOC_ERR_INVALID;
  snprintf(f, sizeof f, "RTS0+0x%x", (unsigned)at);
  va_start(ap, fmt);
  psoc_diags_addv(p->v.diags, PSOC_SEVERITY_ERROR, PSOC_CODE_ROOT_SIGNATURE, NULL, -1, -1, f, fmt,
                  ap);
  va_end(ap);
  return PSOC_ERR_INVALID;
}

/* Is [off, off + count * stride) inside the chunk? */
static int fits(const pctx *p, uint32_t off, uint32_t count, uint32_t stride) {
  return off <= p->size && count <= (p->size - off) / stride;
}

#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

psoc_status psoc_rootsig_parse(const void *data, size_t size, const psoc_allocator *alloc,
                               psoc_rootsig **out, psoc_diags *diags) {
  psoc_dxbc dx;
  pctx p;
  psoc_dxbc_error e;
  const unsigned char *c;
  uint32_t csize, version, np, poff, ns, soff, flags, i, j, rstride, total_ranges = 0;
  size_t bytes, params_at, ranges_at, samplers_at, param_size, range_size;
  psoc_allocator a;
  psoc_rootsig *rs;
  unsigned char *block;
  int v11;
  if (!out) return PSOC_ERR_ARG;
  *out = NULL;
  memset(&p, 0, sizeof p);
  p.v.diags = diags;
  e = psoc_dxbc_parse(data, size, &dx);
  if (e != PSOC_DXBC_OK) {
    report(&p.v, PSOC_SEVERITY_ERROR, "", "not a valid DXBC container: %s (at byte %u)",
           psoc_dxbc_error_text(e), (unsigned)dx.error_offset);
    return PSOC_ERR_INVALID;
  }
  if (!dx.digest_ok) {
    report(&p.v, PSOC_SEVERITY_ERROR, "", dx.digest_zero
           ? "the container is not signed (its checksum is zero)"
           : "the container's checksum does not match its bytes");
    return PSOC_ERR_INVALID;
  }
  if (!psoc_dxbc_find_chunk(&dx, PSOC_FOURCC('R', 'T', 'S', '0'), &c, &csize)) {
    report(&p.v, PSOC_SEVERITY_ERROR, "", "the container has no RTS0 (root signature) chunk");
    return PSOC_ERR_INVALID;
  }
  p.c = c;
  p.size = csize;
  if (csize < 24) return bad(&p, 0, "the RTS0 chunk has %u bytes, fewer than its 24-byte header",
                             (unsigned)csize);
  version = rd32(c);
  np = rd32(c + 4), poff = rd32(c + 8), ns = rd32(c + 12), soff = rd32(c + 16);
  flags = rd32(c + 20);
  if (version != 1 && version != 2)
    return bad(&p, 0, "root signature version %u is not 1 (1.0) or 2 (1.1)", (unsigned)version);
  v11 = version == 2;
  rstride = v11 ? 24u : 20u;
  if (!fits(&p, poff, np, 12))
    return bad(&p, 4, "%u parameters at offset %u run past the chunk's %u bytes", (unsigned)np,
               (unsigned)poff, (unsigned)csize);
  if (!fits(&p, soff, ns, 4 * SAMPLER_WORDS))
    return bad(&p, 12, "%u static samplers at offset %u run past the chunk's %u bytes",
               (unsigned)ns, (unsigned)soff, (unsigned)csize);
  for (i = 0; i < np; i++) {
    uint32_t at = poff + 12u * i, type = rd32(c + at), off = rd32(c + at + 8), need;
    if (type == P_TABLE) {
      uint32_t nr, roff;
      if (!fits(&p, off, 1, 8))
        return bad(&p, at + 8, "parameter %u's table at offset %u runs past the chunk",
                   (unsigned)i, (unsigned)off);
      nr = rd32(c + off), roff = rd32(c + off + 4);
      if (!fits(&p, roff, nr, rstride))
        return bad(&p, off, "parameter %u's %u ranges at offset %u run past the chunk",
                   (unsigned)i, (unsigned)nr, (unsigned)roff);
      total_ranges += nr;
      if (total_ranges > csize / rstride)
        return bad(&p, off, "the tables' ranges take more bytes than the chunk holds (tables "
                            "share ranges)");
      continue;
    }
    if (type > P_UAV)
      return bad(&p, at, "parameter %u has type %u, not a D3D12_ROOT_PARAMETER_TYPE",
                 (unsigned)i, (unsigned)type);
    need = type == P_CONSTANTS || v11 ? 12u : 8u;
    if (!fits(&p, off, 1, need))
      return bad(&p, at + 8, "parameter %u's payload at offset %u runs past the chunk",
                 (unsigned)i, (unsigned)off);
  }
  param_size = v11 ? sizeof(D3D12_ROOT_PARAMETER1) : sizeof(D3D12_ROOT_PARAMETER);
  range_size = v11 ? sizeof(D3D12_DESCRIPTOR_RANGE1) : sizeof(D3D12_DESCRIPTOR_RANGE);
  /* all counts are bounded by the chunk size, so these cannot overflow */
  params_at = ALIGN8(sizeof(psoc_rootsig));
  ranges_at = ALIGN8(params_at + (size_t)np * param_size);
  samplers_at = ALIGN8(ranges_at + (size_t)total_ranges * range_size);
  bytes = samplers_at + (size_t)ns * sizeof(D3D12_STATIC_SAMPLER_DESC);
  a = psoc_alloc_or_default(alloc);
  block = psoc_mem(&a, NULL, 0, bytes);
  if (!block) return PSOC_ERR_NOMEM;
  memset(block, 0, bytes);
  rs = (psoc_rootsig *)(void *)block;
  rs->alloc = a;
  rs->block_size = bytes;
  rs->desc.Version = v11 ? D3D_ROOT_SIGNATURE_VERSION_1_1 : D3D_ROOT_SIGNATURE_VERSION_1_0;
  {
    size_t next_range = 0;
    D3D12_ROOT_PARAMETER *p0 = (D3D12_ROOT_PARAMETER *)(void *)(block + params_at);
    D3D12_ROOT_PARAMETER1 *p1 = (D3D12_ROOT_PARAMETER1 *)(void *)(block + params_at);
    D3D12_DESCRIPTOR_RANGE *r0 = (D3D12_DESCRIPTOR_RANGE *)(void *)(block + ranges_at);
    D3D12_DESCRIPTOR_RANGE1 *r1 = (D3D12_DESCRIPTOR_RANGE1 *)(void *)(block + ranges_at);
    D3D12_STATIC_SAMPLER_DESC *ss = (D3D12_STATIC_SAMPLER_DESC *)(void *)(block + samplers_at);
    for (i = 0; i < np; i++) {
      uint32_t at = poff + 12u * i, type = rd32(c + at), vis = rd32(c + at + 4);
      const unsigned char *q = c + rd32(c + at + 8);
      if (v11) {
        p1[i].ParameterType = (D3D12_ROOT_PARAMETER_TYPE)type;
        p1[i].ShaderVisibility = (D3D12_SHADER_VISIBILITY)vis;
      } else {
        p0[i].ParameterType = (D3D12_ROOT_PARAMETER_TYPE)type;
        p0[i].ShaderVisibility = (D3D12_SHADER_VISIBILITY)vis;
      }
      if (type == P_TABLE) {
        uint32_t nr = rd32(q);
        const unsigned char *rq = c + rd32(q + 4);
        for (j = 0; j < nr; j++, rq += rstride) {
          if (v11) {
            D3D12_DESCRIPTOR_RANGE1 *r = &r1[next_range + j];
            r->RangeType = (D3D12_DESCRIPTOR_RANGE_TYPE)rd32(rq);
            r->NumDescriptors = rd32(rq + 4);
            r->BaseShaderRegister = rd32(rq + 8);
            r->RegisterSpace = rd32(rq + 12);
            r->Flags = (D3D12_DESCRIPTOR_RANGE_FLAGS)rd32(rq + 16);
            r->OffsetInDescriptorsFromTableStart = rd32(rq + 20);
          } else {
            D3D12_DESCRIPTOR_RANGE *r = &r0[next_range + j];
            r->RangeType = (D3D12_DESCRIPTOR_RANGE_TYPE)rd32(rq);
            r->NumDescriptors = rd32(rq + 4);
            r->BaseShaderRegister = rd32(rq + 8);
            r->RegisterSpace = rd32(rq + 12);
            r->OffsetInDescriptorsFromTableStart = rd32(rq + 16);
          }
        }
        if (v11) {
          p1[i].DescriptorTable.NumDescriptorRanges = nr;
          p1[i].DescriptorTable.pDescriptorRanges = nr ? &r1[next_range] : NULL;
        } else {
          p0[i].DescriptorTable.NumDescriptorRanges = nr;
          p0[i].DescriptorTable.pDescriptorRanges = nr ? &r0[next_range] : NULL;
        }
        next_range += nr;
      } else if (type == P_CONSTANTS) {
        D3D12_ROOT_CONSTANTS k;
        k.ShaderRegister = rd32(q), k.RegisterSpace = rd32(q + 4), k.Num32BitValues = rd32(q + 8);
        if (v11) p1[i].Constants = k;
        else p0[i].Constants = k;
      } else if (v11) {
        p1[i].Descriptor.ShaderRegister = rd32(q);
        p1[i].Descriptor.RegisterSpace = rd32(q + 4);
        p1[i].Descriptor.Flags = (D3D12_ROOT_DESCRIPTOR_FLAGS)rd32(q + 8);
      } else {
        p0[i].Descriptor.ShaderRegister = rd32(q);
        p0[i].Descriptor.RegisterSpace = rd32(q + 4);
      }
    }
    for (i = 0; i < ns; i++) {
      const unsigned char *q = c + soff + 4u * SAMPLER_WORDS * i;
      float fl[3];
      memcpy(&fl[0], q + 16, 4);
      memcpy(&fl[1], q + 32, 4);
      memcpy(&fl[2], q + 36, 4);
      ss[i].Filter = (D3D12_FILTER)rd32(q);
      ss[i].AddressU = (D3D12_TEXTURE_ADDRESS_MODE)rd32(q + 4);
      ss[i].AddressV = (D3D12_TEXTURE_ADDRESS_MODE)rd32(q + 8);
      ss[i].AddressW = (D3D12_TEXTURE_ADDRESS_MODE)rd32(q + 12);
      ss[i].MipLODBias = fl[0];
      ss[i].MaxAnisotropy = rd32(q + 20);
      ss[i].ComparisonFunc = (D3D12_COMPARISON_FUNC)rd32(q + 24);
      ss[i].BorderColor = (D3D12_STATIC_BORDER_COLOR)rd32(q + 28);
      ss[i].MinLOD = fl[1];
      ss[i].MaxLOD = fl[2];
      ss[i].ShaderRegister = rd32(q + 40);
      ss[i].RegisterSpace = rd32(q + 44);
      ss[i].ShaderVisibility = (D3D12_SHADER_VISIBILITY)rd32(q + 48);
    }
    if (v11) {
      rs->desc.Desc_1_1.NumParameters = np;
      rs->desc.Desc_1_1.pParameters = np ? p1 : NULL;
      rs->desc.Desc_1_1.NumStaticSamplers = ns;
      rs->desc.Desc_1_1.pStaticSamplers = ns ? ss : NULL;
      rs->desc.Desc_1_1.Flags = (D3D12_ROOT_SIGNATURE_FLAGS)flags;
    } else {
      rs->desc.Desc_1_0.NumParameters = np;
      rs->desc.Desc_1_0.pParameters = np ? p0 : NULL;
      rs->desc.Desc_1_0.NumStaticSamplers = ns;
      rs->desc.Desc_1_0.pStaticSamplers = ns ? ss : NULL;
      rs->desc.Desc_1_0.Flags = (D3D12_ROOT_SIGNATURE_FLAGS)flags;
    }
  }
  *out = rs;
  return PSOC_OK;
}

const D3D12_VERSIONED_ROOT_SIGNATURE_DESC *psoc_rootsig_desc(const psoc_rootsig *rs) {
  return rs ? &rs->desc : NULL;
}

void psoc_rootsig_free(psoc_rootsig *rs) {
  psoc_allocator a;
  if (!rs) return;
  a = rs->alloc;
  psoc_mem(&a, rs, rs->block_size, 0);
}

psoc_status psoc_rootsig_check(const void *data, size_t size, psoc_diags *diags) {
  psoc_rootsig *rs = NULL;
  psoc_status st = psoc_rootsig_parse(data, size, diags ? &diags->alloc : NULL, &rs, diags);
  if (st != PSOC_OK) return st;
  st = psoc_rootsig_validate(&rs->desc, diags);
  psoc_rootsig_free(rs);
  return st;
}
