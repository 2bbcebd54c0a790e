/*
** archive.c: what the archive writer and reader share (component kinds,
** the pointer fields of a stream, the cook's fingerprint) and derived
** pipelines. The format is docs/archive.md.
*/
#include <stdarg.h>
#include <stdio.h>

#include "archive_internal.h"

const unsigned char arc_magic[8] = { 'P', 'S', 'O', 'C', 'A', 'R', 'C', 'H' };
const unsigned char arc_end_magic[8] = { 'P', 'S', 'O', 'C', 'E', 'N', 'D', 0 };
const char arc_table_tags[ARC_TABLES][5] = { "PIPE", "NAME", "REFS", "HIDX", "COMP", "RECS", "DATA" };
const char *const arc_table_names[ARC_TABLES] = {
  "pipeline table", "name table", "reference table", "hash index", "component table",
  "record area", "component store"
};

void arc_errf(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  if (!err || !errlen) return;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

const char *psoc_archive_component_kind_name(uint32_t kind) {
  switch (kind) {
  case PSOC_ARCHIVE_COMPONENT_SHADER: return "shader";
  case PSOC_ARCHIVE_COMPONENT_INPUT_LAYOUT: return "input_layout";
  case PSOC_ARCHIVE_COMPONENT_SO_DECLARATION: return "so_declaration";
  case PSOC_ARCHIVE_COMPONENT_SO_STRIDES: return "so_strides";
  case PSOC_ARCHIVE_COMPONENT_VIEW_INSTANCES: return "view_instances";
  case PSOC_ARCHIVE_COMPONENT_ROOT_SIGNATURE: return "root_signature";
  case PSOC_ARCHIVE_COMPONENT_CACHED_BLOB: return "cached_blob";
  default: return "unknown";
  }
}

uint32_t arc_psoc_version(void) {
  return (uint32_t)PSOC_VERSION_MAJOR << 16 | (uint32_t)PSOC_VERSION_MINOR << 8 |
         (uint32_t)PSOC_VERSION_PATCH;
}

uint32_t arc_subobject_mask(void) {
  uint32_t t, mask = 0;
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++)
    if (psoc_info(t)) mask |= 1u << t;
  return mask;
}

/* ---- the layout fingerprint --------------------------------------- */

static void print_word(psoc_xxh3_state *st, uint64_t v) {
  unsigned char b[8];
  arc_put64(b, v);
  psoc_xxh3_update(st, b, 8);
}

static void print_struct(psoc_xxh3_state *st, const psoc_struct *s, int depth) {
  uint32_t i;
  print_word(st, s->size);
  print_word(st, s->field_count);
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    print_word(st, (uint64_t)f->kind | (uint64_t)f->size << 8 | (uint64_t)f->offset << 16 |
                       (uint64_t)f->count_offset << 32 | (uint64_t)f->element_kind << 48);
    print_word(st, (uint64_t)f->count | (uint64_t)f->stride << 16);
    if (f->element && depth < 8) print_struct(st, f->element, depth + 1);
  }
}

/* XXH3-64 over every known type's number, stride, payload offset and
** payload layout (field kinds, sizes, offsets; never names): two builds
** agree on it exactly when they lay out every stream the same way. */
uint64_t arc_subobject_fingerprint(void) {
  psoc_xxh3_state st;
  uint32_t t;
  memset(&st, 0, sizeof st); /* reset sets it up; zeroed so no tool sees it read unset */
  psoc_xxh3_reset(&st);
  print_word(&st, PSOC_PTR_SIZE);
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_info(t);
    if (!info) continue;
    print_word(&st, t);
    print_word(&st, (uint64_t)info->stride | (uint64_t)info->payload_offset << 32);
    print_struct(&st, info->payload, 0);
  }
  return psoc_xxh3_digest(&st);
}

/* ---- component kinds ---------------------------------------------- */

static int is_shader(uint32_t type) {
  switch (type) {
  case PSOC_SO_VS: case PSOC_SO_PS: case PSOC_SO_DS: case PSOC_SO_HS:
  case PSOC_SO_GS: case PSOC_SO_CS: case PSOC_SO_AS: case PSOC_SO_MS: return 1;
  default: return 0;
  }
}

/* Elements the format stores: scalars, nested structs and fixed arrays,
** and strings (then 1); anything holding another pointer gives -1. */
static int element_strings(const psoc_struct *s, int depth) {
  uint32_t i;
  int strings = 0;
  if (!s || depth > 8) return s ? -1 : 0;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    int r = 0;
    switch (f->kind) {
    case PSOC_FIELD_STRING: r = 1; break;
    case PSOC_FIELD_ARRAY: case PSOC_FIELD_BLOB: case PSOC_FIELD_OBJECT: return -1;
    case PSOC_FIELD_STRUCT: case PSOC_FIELD_FIXED: r = element_strings(f->element, depth + 1); break;
    default: break;
    }
    if (r < 0) return -1;
    strings |= r;
  }
  return strings;
}

uint32_t arc_component_kind(uint32_t type, const psoc_field *f) {
  int strings;
  if (f->kind == PSOC_FIELD_BLOB) {
    if (is_shader(type)) return PSOC_ARCHIVE_COMPONENT_SHADER;
    if (type == PSOC_SO_CACHED_PSO) return PSOC_ARCHIVE_COMPONENT_CACHED_BLOB;
    if (type == PSOC_SO_SERIALIZED_ROOT_SIGNATURE) return PSOC_ARCHIVE_COMPONENT_ROOT_SIGNATURE;
    return 0;
  }
  if (f->kind != PSOC_FIELD_ARRAY) return 0;
  strings = element_strings(f->element, 0);
  if (strings < 0) return 0;
  if (type == PSOC_SO_INPUT_LAYOUT && strings) return PSOC_ARCHIVE_COMPONENT_INPUT_LAYOUT;
  if (type == PSOC_SO_STREAM_OUTPUT && strings) return PSOC_ARCHIVE_COMPONENT_SO_DECLARATION;
  if (type == PSOC_SO_STREAM_OUTPUT && !f->element) return PSOC_ARCHIVE_COMPONENT_SO_STRIDES;
  if (type == PSOC_SO_VIEW_INSTANCING && !strings) return PSOC_ARCHIVE_COMPONENT_VIEW_INSTANCES;
  return 0;
}

const psoc_field *arc_kind_field(uint32_t kind) {
  uint32_t t, i;
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_info(t);
    if (!info) continue;
    for (i = 0; i < info->payload->field_count; i++)
      if (arc_component_kind(t, &info->payload->fields[i]) == kind) return &info->payload->fields[i];
  }
  return NULL;
}

const psoc_struct *arc_kind_string_elements(uint32_t kind) {
  const psoc_field *f = arc_kind_field(kind);
  if (!f || f->kind != PSOC_FIELD_ARRAY || element_strings(f->element, 0) != 1) return NULL;
  return f->element;
}

/* ---- pointer fields of a stream ------------------------------------ */

size_t arc_slot_count(const unsigned char *data, const arc_slot *slot) {
  return psoc_field_count(slot->s, slot->f, data + slot->base);
}

static int struct_slots(const unsigned char *data, uint32_t type, const psoc_struct *s, size_t base,
                        arc_slot_fn fn, void *ud, int depth) {
  uint32_t i;
  int r;
  if (depth > 8) return -1;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    arc_slot slot;
    switch (f->kind) {
    case PSOC_FIELD_STRUCT:
      if (f->element && (r = struct_slots(data, type, f->element, base + f->offset, fn, ud, depth + 1)))
        return r;
      continue;
    case PSOC_FIELD_FIXED:
      if (f->element && element_strings(f->element, 0) != 0) return -1; /* pointers in a fixed array */
      continue;
    case PSOC_FIELD_ARRAY: case PSOC_FIELD_BLOB: case PSOC_FIELD_STRING: case PSOC_FIELD_OBJECT: break;
    default: continue;
    }
    slot.type = type;
    slot.s = s;
    slot.f = f;
    slot.base = base;
    slot.offset = base + f->offset;
    if (f->kind == PSOC_FIELD_OBJECT) {
      if (type != PSOC_SO_ROOT_SIGNATURE) return -1;
      slot.kind = 0;
    } else {
      slot.kind = arc_component_kind(type, f);
      if (!slot.kind) return -1;
    }
    if ((r = fn(ud, &slot)) != 0) return r;
  }
  return 0;
}

int arc_slots(const unsigned char *data, size_t size, arc_slot_fn fn, void *ud) {
  psoc_walker walker;
  psoc_view view;
  int r;
  psoc_walk_init(&walker, data, size);
  while (psoc_walk_next(&walker, &view, NULL)) {
    r = struct_slots(data, view.type, view.info->payload, view.offset + view.info->payload_offset, fn,
                     ud, 0);
    if (r) return r;
  }
  return 0;
}

/* ---- derived pipelines --------------------------------------------- */

psoc_status psoc_archive_derive(const D3D12_PIPELINE_STATE_STREAM_DESC *base,
                                const psoc_archive_override *overrides, size_t override_count,
                                void *scratch, size_t scratch_size,
                                D3D12_PIPELINE_STATE_STREAM_DESC *out, size_t *needed) {
  const psoc_subobject_info *oinfo[PSOC_SO_TYPE_COUNT];
  int by_class[PSOC_SO_TYPE_COUNT];
  unsigned char used[PSOC_SO_TYPE_COUNT];
  psoc_walker walker;
  psoc_view view;
  size_t i, total = 0, off = 0;
  unsigned char *dst = scratch;
  int pass;
  if (needed) *needed = 0;
  if (!base || !out || (override_count && !overrides) || (!scratch && scratch_size) ||
      ((uintptr_t)scratch & 7u))
    return PSOC_ERR_ARG;
  if (override_count > PSOC_SO_TYPE_COUNT) return PSOC_ERR_DUPLICATE; /* more than there are classes */
  for (i = 0; i < PSOC_SO_TYPE_COUNT; i++) by_class[i] = -1;
  for (i = 0; i < override_count; i++) {
    const psoc_archive_override *o = &overrides[i];
    uint32_t cls;
    oinfo[i] = psoc_info(o->type);
    if (!oinfo[i]) return PSOC_ERR_TYPE;
    if (!o->payload) return PSOC_ERR_ARG;
    if (o->payload_size != oinfo[i]->payload->size) return PSOC_ERR_SIZE;
    cls = psoc_class_of(o->type);
    if (by_class[cls] >= 0) return PSOC_ERR_DUPLICATE;
    by_class[cls] = (int)i;
  }
  {
    psoc_parsed parsed;
    if (psoc_parse(base->pPipelineStateSubobjectStream, base->SizeInBytes, &parsed, NULL) != PSOC_OK)
      return PSOC_ERR_INVALID;
  }
  /* Pass 0 measures, pass 1 writes (only when it fits). */
  for (pass = 0; pass < 2; pass++) {
    memset(used, 0, sizeof used);
    off = 0;
    psoc_walk_init(&walker, base->pPipelineStateSubobjectStream, base->SizeInBytes);
    while (psoc_walk_next(&walker, &view, NULL)) {
      int o = by_class[psoc_class_of(view.type)];
      if (o >= 0) {
        const psoc_subobject_info *info = oinfo[o];
        if (pass) {
          memset(dst + off, 0, info->stride);
          memcpy(dst + off, &overrides[o].type, 4);
          memcpy(dst + off + info->payload_offset, overrides[o].payload, info->payload->size);
        }
        used[o] = 1;
        off += info->stride;
      } else {
        if (pass) memcpy(dst + off, walker.data + view.offset, view.info->stride);
        off += view.info->stride;
      }
    }
    for (i = 0; i < override_count; i++) {
      const psoc_subobject_info *info = oinfo[i];
      if (used[i]) continue;
      if (pass) {
        memset(dst + off, 0, info->stride);
        memcpy(dst + off, &overrides[i].type, 4);
        memcpy(dst + off + info->payload_offset, overrides[i].payload, info->payload->size);
      }
      off += info->stride;
    }
    if (!pass) {
      total = off;
      if (needed) *needed = total;
      if (scratch_size < total) return PSOC_ERR_SIZE;
    }
  }
  out->pPipelineStateSubobjectStream = scratch;
  out->SizeInBytes = total;
  return PSOC_OK;
}
