/*
** rules_input.c: the input layout. The element count is in the stream;
** the elements and their semantic names are behind pointers, so those
** checks run only with PSOC_CHECK_FOLLOW_LAYOUT (or FOLLOW_POINTERS). None
** of them needs the shader.
*/
#include <strings.h>

#include "rules_internal.h"

#define IL "CREATEINPUTLAYOUT_"
#define NAME_MAX_ 256 /* semantic names are read up to this many bytes */

static void element_diag(const rule_ctx *ctx, psoc_severity sev, const char *id, uint32_t i,
                         const char *member, const char *msg) {
  char field[PSOC_DIAG_FIELD_MAX];
  snprintf(field, sizeof field, "INPUT_LAYOUT.pInputElementDescs[%u]%s%s", i, member ? "." : "",
           member ? member : "");
  psoc_rule_diag(ctx, sev, PSOC_CODE_INPUT_LAYOUT, id, PSOC_SO_INPUT_LAYOUT, field, "%s", msg);
}

void psoc_rules_input_layout(const rule_ctx *ctx) {
  const D3D12_INPUT_LAYOUT_DESC *il = ctx->state.input_layout;
  const D3D12_INPUT_ELEMENT_DESC *e = il->pInputElementDescs;
  uint32_t n = il->NumElements, i, j;
  uint32_t slot_first[32], slot_end[32];
  char msg[PSOC_DIAG_MESSAGE_MAX];
  if (ctx->walk->kind != PSOC_KIND_GRAPHICS || !psoc_rule_has(ctx, PSOC_SO_INPUT_LAYOUT)) return;
  if (n > D3D12_IA_VERTEX_INPUT_STRUCTURE_ELEMENT_COUNT)
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INPUT_LAYOUT, IL "TOOMANYELEMENTS",
                   PSOC_SO_INPUT_LAYOUT, "INPUT_LAYOUT.NumElements",
                   "NumElements is %u; the input assembler reads at most %u elements: merge "
                   "attributes or fetch them in the shader", n,
                   D3D12_IA_VERTEX_INPUT_STRUCTURE_ELEMENT_COUNT);
  if (n > 0 && !e) {
    psoc_rule_diag(ctx, PSOC_SEVERITY_ERROR, PSOC_CODE_INPUT_LAYOUT, NULL, PSOC_SO_INPUT_LAYOUT,
                   "INPUT_LAYOUT.pInputElementDescs",
                   "NumElements is %u but pInputElementDescs is NULL; point it at the elements "
                   "or set NumElements to 0", n);
    return;
  }
  if (n == 0 && e)
    psoc_rule_diag(ctx, PSOC_SEVERITY_NOTE, PSOC_CODE_INPUT_LAYOUT, IL "EMPTY_LAYOUT",
                   PSOC_SO_INPUT_LAYOUT, "INPUT_LAYOUT.NumElements",
                   "the input layout is empty (NumElements 0), so pInputElementDescs is ignored; "
                   "the vertex shader may only read system values");
  if (!ctx->follow_layout || n > D3D12_IA_VERTEX_INPUT_STRUCTURE_ELEMENT_COUNT) return;
  for (i = 0; i < 32; i++) slot_first[i] = ~0u, slot_end[i] = 0;
  for (i = 0; i < n; i++) {
    const D3D12_INPUT_ELEMENT_DESC *x = &e[i];
    const psoc_format_info *f = psoc_format_get(x->Format);
    size_t len = x->SemanticName ? strnlen(x->SemanticName, NAME_MAX_) : 0;
    uint32_t offset;
    if (!x->SemanticName) {
      snprintf(msg, sizeof msg, "element %u has a NULL SemanticName; name it as the vertex "
               "shader's input (e.g. \"POSITION\")", i);
      element_diag(ctx, PSOC_SEVERITY_ERROR, IL "NULLSEMANTIC", i, "SemanticName", msg);
    } else {
      if (len > 0 && x->SemanticName[len - 1] >= '0' && x->SemanticName[len - 1] <= '9') {
        snprintf(msg, sizeof msg, "element %u's SemanticName \"%.40s\" ends in a digit, which "
                 "never matches a shader semantic; drop the digit and set SemanticIndex", i,
                 x->SemanticName);
        element_diag(ctx, PSOC_SEVERITY_ERROR, IL "TRAILING_DIGIT_IN_SEMANTIC", i, "SemanticName", msg);
      }
      for (j = 0; j < i; j++) {
        if (!e[j].SemanticName || e[j].SemanticIndex != x->SemanticIndex) continue;
        if (strnlen(e[j].SemanticName, NAME_MAX_) != len ||
            strncasecmp(e[j].SemanticName, x->SemanticName, len) != 0)
          continue;
        snprintf(msg, sizeof msg, "elements %u and %u are both %.40s%u; each semantic name and "
                 "index may appear once: change the SemanticIndex of one", j, i, x->SemanticName,
                 x->SemanticIndex);
        element_diag(ctx, PSOC_SEVERITY_ERROR, IL "DUPLICATESEMANTIC", i, "SemanticIndex", msg);
        break;
      }
    }
    if (x->Format == DXGI_FORMAT_UNKNOWN || !f) {
      snprintf(msg, sizeof msg, "element %u has Format %u, which is %s; give the vertex data's "
               "format, e.g. R32G32B32_FLOAT", i, (unsigned)x->Format,
               x->Format == DXGI_FORMAT_UNKNOWN ? "UNKNOWN" : "not a DXGI_FORMAT");
      element_diag(ctx, PSOC_SEVERITY_ERROR, IL "INVALIDFORMAT", i, "Format", msg);
      f = NULL;
    } else if (!(f->flags & PSOC_FMT_VERTEX)) {
      snprintf(msg, sizeof msg, "element %u is %s, which the input assembler cannot read; use a "
               "vertex format (e.g. R8G8B8A8_UNORM instead of _SRGB, typed instead of TYPELESS)",
               i, psoc_format_name(x->Format));
      element_diag(ctx, PSOC_SEVERITY_ERROR, IL "INCOMPATIBLEFORMAT", i, "Format", msg);
      f = NULL;
    }
    if (x->InputSlotClass != D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA &&
        x->InputSlotClass != D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA) {
      snprintf(msg, sizeof msg, "element %u has InputSlotClass %u; use PER_VERTEX_DATA (0) or "
               "PER_INSTANCE_DATA (1)", i, (unsigned)x->InputSlotClass);
      element_diag(ctx, PSOC_SEVERITY_ERROR, IL "INVALIDINPUTSLOTCLASS", i, "InputSlotClass", msg);
    } else if (x->InputSlotClass == D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA &&
               x->InstanceDataStepRate != 0) {
      snprintf(msg, sizeof msg, "element %u is per-vertex but has InstanceDataStepRate %u; set it "
               "to 0 or make the element PER_INSTANCE_DATA", i, x->InstanceDataStepRate);
      element_diag(ctx, PSOC_SEVERITY_ERROR, IL "STEPRATESLOTCLASSMISMATCH", i,
                   "InstanceDataStepRate", msg);
    }
    if (x->InputSlot >= D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT) {
      snprintf(msg, sizeof msg, "element %u reads InputSlot %u; vertex buffer slots are 0-%u", i,
               x->InputSlot, D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT - 1);
      element_diag(ctx, PSOC_SEVERITY_ERROR, IL "INVALIDSLOT", i, "InputSlot", msg);
      continue;
    }
    if (slot_first[x->InputSlot] != ~0u) {
      const D3D12_INPUT_ELEMENT_DESC *y = &e[slot_first[x->InputSlot]];
      if (y->InputSlotClass != x->InputSlotClass) {
        snprintf(msg, sizeof msg, "elements %u and %u share InputSlot %u but one is per-vertex "
                 "and the other per-instance; a slot has one classification: move one to "
                 "another slot", slot_first[x->InputSlot], i, x->InputSlot);
        element_diag(ctx, PSOC_SEVERITY_ERROR, IL "INVALIDSLOTCLASSCHANGE", i, "InputSlotClass", msg);
      } else if (x->InputSlotClass == D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA &&
                 y->InstanceDataStepRate != x->InstanceDataStepRate) {
        snprintf(msg, sizeof msg, "elements %u and %u share InputSlot %u with step rates %u and "
                 "%u; a slot advances at one rate: use the same InstanceDataStepRate",
                 slot_first[x->InputSlot], i, x->InputSlot, y->InstanceDataStepRate,
                 x->InstanceDataStepRate);
        element_diag(ctx, PSOC_SEVERITY_ERROR, IL "INVALIDSTEPRATECHANGE", i,
                     "InstanceDataStepRate", msg);
      }
    } else {
      slot_first[x->InputSlot] = i;
    }
    if (!f) continue;
    if (x->AlignedByteOffset == D3D12_APPEND_ALIGNED_ELEMENT) {
      uint32_t a = f->component_bytes ? f->component_bytes : 1;
      offset = (slot_end[x->InputSlot] + a - 1) / a * a;
    } else {
      offset = x->AlignedByteOffset;
      if (f->component_bytes && offset % f->component_bytes != 0) {
        snprintf(msg, sizeof msg, "element %u (%s) starts at byte %u, not a multiple of its %u-byte "
                 "components; align AlignedByteOffset to %u or use APPEND_ALIGNED_ELEMENT", i,
                 psoc_format_name(x->Format), offset, f->component_bytes, f->component_bytes);
        element_diag(ctx, PSOC_SEVERITY_ERROR, IL "INVALIDALIGNMENT", i, "AlignedByteOffset", msg);
      }
    }
    if ((uint64_t)offset + f->bytes > D3D12_REQ_MULTI_ELEMENT_STRUCTURE_SIZE_IN_BYTES) {
      snprintf(msg, sizeof msg, "element %u ends at byte %llu of its vertex; a vertex holds at most "
               "%u bytes: lower AlignedByteOffset", i, (unsigned long long)offset + f->bytes,
               D3D12_REQ_MULTI_ELEMENT_STRUCTURE_SIZE_IN_BYTES);
      element_diag(ctx, PSOC_SEVERITY_ERROR, IL "INVALIDALIGNMENT", i, "AlignedByteOffset", msg);
    } else {
      slot_end[x->InputSlot] = offset + f->bytes;
    }
  }
}
