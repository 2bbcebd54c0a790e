/*
** parse.c: the bounds-checked walk over a stream and the structural parse.
** Nothing here follows a pointer stored in the stream, and nothing reads
** outside [data, data + size).
*/
#include <stdint.h>

#include "internal.h"

#define MSG_INVALID_STREAM "CREATEPIPELINESTATE_INVALID_STREAM"

void psoc_walk_init(psoc_walker *walker, const void *data, size_t size) {
  if (!walker) return;
  walker->data = data;
  walker->size = data ? size : 0;
  walker->offset = 0;
  walker->index = 0;
  walker->done = 0;
}

/* One step of the walk (the body of psoc_walk_next, inlined into psoc_parse). */
static inline int walk_step(psoc_walker *walker, psoc_view *view, psoc_diags *diags) {
  size_t remaining;
  uint32_t type;
  const psoc_subobject_info *info;
  if (walker->done) return 0;
  if (walker->offset >= walker->size) {
    walker->done = 1;
    return 0;
  }
  remaining = walker->size - walker->offset;
  if (remaining < sizeof(uint32_t)) {
    walker->done = 2;
    psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_TRAILING_BYTES, MSG_INVALID_STREAM,
                   (int32_t)walker->index, (int64_t)walker->offset, "",
                   "%zu trailing byte%s after subobject %u cannot hold a subobject type; "
                   "SizeInBytes must end at the last subobject's end",
                   remaining, remaining == 1 ? "" : "s", walker->index ? walker->index - 1 : 0);
    return 0;
  }
  type = psoc_rd32(walker->data + walker->offset);
  info = psoc_subobject_info_get(type);
  if (!info) {
    walker->done = 2;
    psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_UNKNOWN_SUBOBJECT,
                   "CREATEPIPELINESTATE_UNKNOWN_SUBOBJECT", (int32_t)walker->index,
                   (int64_t)walker->offset, "type",
                   "subobject type %u (0x%08x) is not a D3D12_PIPELINE_STATE_SUBOBJECT_TYPE "
                   "(valid: 0-22, 24-29); the rest of the stream (%zu bytes) cannot be walked",
                   type, type, remaining);
    return 0;
  }
  if (remaining < info->stride) {
    walker->done = 2;
    psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_TRUNCATED, MSG_INVALID_STREAM,
                   (int32_t)walker->index, (int64_t)walker->offset, info->name,
                   "%s subobject needs %u bytes (payload %s at +%u, padded to 8) but only %zu "
                   "remain in the stream",
                   info->name, info->stride, info->payload->name, info->payload_offset, remaining);
    return 0;
  }
  view->type = type;
  view->index = walker->index;
  view->offset = walker->offset;
  view->payload = walker->data + walker->offset + info->payload_offset;
  view->info = info;
  walker->offset += info->stride;
  walker->index++;
  return 1;
}

int psoc_walk_next(psoc_walker *walker, psoc_view *view, psoc_diags *diags) {
  if (!walker || !view) return 0;
  return walk_step(walker, view, diags);
}

/* Is the shader subobject of 'type' present with a non-null pointer? */
static int shader_present(const psoc_parsed *parsed, uint32_t type) {
  return parsed->has[type] && psoc_rdptr(parsed->views[type].payload) != 0;
}

static psoc_kind deduce_kind(const psoc_parsed *parsed) {
  int vs = shader_present(parsed, PSOC_SO_VS);
  int cs = shader_present(parsed, PSOC_SO_CS);
  int ms = shader_present(parsed, PSOC_SO_MS);
  if (vs + cs + ms != 1) return PSOC_KIND_NONE;
  return vs ? PSOC_KIND_GRAPHICS : cs ? PSOC_KIND_COMPUTE : PSOC_KIND_MESH;
}

psoc_status psoc_parse(const void *data, size_t size, psoc_parsed *out, psoc_diags *diags) {
  psoc_walker walker;
  psoc_view view;
  if (!out) return PSOC_ERR_ARG;
  /* views[] stay unwritten where has[] is 0 (about 1 KB never read). */
  out->kind = PSOC_KIND_NONE;
  out->count = 0;
  out->present = 0;
  out->complete = 0;
  out->structural_errors = 0;
  out->type_mask = 0;
  memset(out->has, 0, sizeof out->has);
  memset(out->class_type, -1, sizeof out->class_type);
  if (size == 0) {
    psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_ZERO_SIZE_STREAM,
                   "CREATEPIPELINESTATE_ZERO_SIZE_STREAM", -1, -1, "SizeInBytes",
                   "the stream is empty (SizeInBytes is 0); a pipeline needs at least a VS, CS "
                   "or MS subobject");
    out->structural_errors = 1;
    return PSOC_ERR_INVALID;
  }
  if (!data) {
    psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_NULL_STREAM, MSG_INVALID_STREAM, -1, -1,
                   "pPipelineStateSubobjectStream",
                   "pPipelineStateSubobjectStream is NULL but SizeInBytes is %zu", size);
    out->structural_errors = 1;
    return PSOC_ERR_INVALID;
  }
  if ((uintptr_t)data % sizeof(void *) != 0)
    psoc_diags_add(diags, PSOC_SEVERITY_WARNING, PSOC_CODE_UNALIGNED_STREAM, NULL, -1, -1,
                   "pPipelineStateSubobjectStream",
                   "the stream starts at an address that is not %u-byte aligned; the runtime "
                   "reads its subobjects as aligned structs",
                   PSOC_PTR_SIZE);
  psoc_walk_init(&walker, data, size);
  while (walk_step(&walker, &view, diags)) {
    uint32_t cls = view.info->dup_class;
    out->count++;
    if (out->class_type[cls] >= 0) {
      const psoc_view *first = &out->views[out->class_type[cls]];
      out->structural_errors++;
      if (view.type == (uint32_t)out->class_type[cls])
        psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_DUPLICATE_SUBOBJECT,
                       "CREATEPIPELINESTATE_DUPLICATE_SUBOBJECT", (int32_t)view.index,
                       (int64_t)view.offset, view.info->name,
                       "%s appears again (first as subobject %u at offset %zu); each subobject "
                       "type may appear once: remove one",
                       view.info->name, first->index, first->offset);
      else
        psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_DUPLICATE_SUBOBJECT,
                       "CREATEPIPELINESTATE_DUPLICATE_SUBOBJECT", (int32_t)view.index,
                       (int64_t)view.offset, view.info->name,
                       "%s duplicates %s (subobject %u at offset %zu): they are versions of one "
                       "state and may appear once together; keep one of them",
                       view.info->name, first->info->name, first->index, first->offset);
      continue;
    }
    out->class_type[cls] = (int8_t)view.type;
    out->has[view.type] = 1;
    out->type_mask |= 1u << view.type;
    out->views[view.type] = view;
    out->present++;
  }
  out->complete = walker.done == 1;
  if (!out->complete) out->structural_errors++;
  out->kind = deduce_kind(out);
  if (!out->complete || out->structural_errors) return PSOC_ERR_INVALID;
  return PSOC_OK;
}

const psoc_view *psoc_parsed_class(const psoc_parsed *parsed, uint32_t dup_class) {
  if (!parsed || dup_class >= PSOC_SO_TYPE_COUNT || parsed->class_type[dup_class] < 0) return NULL;
  return &parsed->views[parsed->class_type[dup_class]];
}
