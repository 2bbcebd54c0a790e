/*
** archive.c: what the archive writer and reader share (component kinds,
** the pointer fields of a stream, the cook's fingerprint) and derived
** pipelines. The format is docs/archive.md.
*/
#include <stdarg.h>
#include <stdio.h>

#include "archive_internal.h"
#include "platform.h"

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
/* The fingerprint depends on the build only: computed once (every open
** compares it, and a cook opens a unit per material). */
static uint64_t g_fingerprint;
static psoc_plat_once g_fingerprint_once = PSOC_PLAT_ONCE_INIT;
static uint64_t compute_fingerprint(void);
static void init_fingerprint(void) { g_fingerprint = compute_fingerprint(); }

uint64_t arc_subobject_fingerprint(void) {
  if (psoc_plat_once_run(&g_fingerprint_once, init_fingerprint) != 0) return compute_fingerprint();
  return g_fingerprint;
}

static uint64_t compute_fingerprint(void) {
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

/* ---- pointer fields of a stream ------------------------------------ */

/* The string fields of an element struct, flattened into slot->strings;
** 0 when they do not fit. */
static int flatten_strings(arc_slot *slot, const psoc_struct *s, size_t base, int depth) {
  uint32_t i, k;
  if (depth > 8) return 0;
  for (i = 0; i < s->field_count; i++) {
    const psoc_field *f = &s->fields[i];
    if (f->kind == PSOC_FIELD_STRING) {
      if (slot->nstrings == ARC_SLOT_STRINGS || base + f->offset > 0xffff) return 0;
      slot->strings[slot->nstrings++] = (uint16_t)(base + f->offset);
    } else if (f->kind == PSOC_FIELD_STRUCT && f->element) {
      if (!flatten_strings(slot, f->element, base + f->offset, depth + 1)) return 0;
    } else if (f->kind == PSOC_FIELD_FIXED && f->element) {
      for (k = 0; k < f->count; k++)
        if (!flatten_strings(slot, f->element, base + f->offset + (size_t)k * f->stride, depth + 1)) return 0;
    }
  }
  return 1;
}

static uint32_t count_size(const psoc_struct *s, const psoc_field *f) {
  uint32_t i;
  for (i = 0; i < s->field_count; i++)
    if (s->fields[i].kind == PSOC_FIELD_COUNT && s->fields[i].offset == f->count_offset) return s->fields[i].size;
  return f->kind == PSOC_FIELD_BLOB ? (uint32_t)sizeof(SIZE_T) : 4u;
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
    slot.count_size = count_size(s, f);
    slot.nstrings = 0;
    memset(slot.strings, 0, sizeof slot.strings);
    if (f->kind == PSOC_FIELD_ARRAY && f->element && !flatten_strings(&slot, f->element, 0, 0))
      slot.nstrings = ARC_STRINGS_DEEP;
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

/* The pointer fields of each subobject type, found once by walking the
** registry (offsets relative to the payload), and the field each
** component kind comes from. */
#define ARC_MAX_SLOTS 8

typedef struct type_slots {
  int unsupported;             /* a pointer field the format cannot store */
  unsigned n;
  arc_slot slots[ARC_MAX_SLOTS];
} type_slots;

static type_slots g_type_slots[PSOC_SO_TYPE_COUNT];
static const psoc_field *g_kind_field[PSOC_ARCHIVE_COMPONENT_KIND_COUNT_];
static psoc_plat_once g_slots_once = PSOC_PLAT_ONCE_INIT;

static int collect_slot(void *ud, const arc_slot *slot) {
  type_slots *ts = ud;
  if (ts->n == ARC_MAX_SLOTS) return -1;
  ts->slots[ts->n++] = *slot;
  if (slot->kind && !g_kind_field[slot->kind]) g_kind_field[slot->kind] = slot->f;
  return 0;
}

static void init_slots(void) {
  uint32_t t;
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++) {
    const psoc_subobject_info *info = psoc_info(t);
    type_slots *ts = &g_type_slots[t];
    ts->n = 0;
    ts->unsupported = 0;
    if (!info) continue;
    if (struct_slots(NULL, t, info->payload, 0, collect_slot, ts, 0) != 0) ts->unsupported = 1;
  }
}

static void slots_ready(void) { (void)psoc_plat_once_run(&g_slots_once, init_slots); }

const psoc_field *arc_kind_field(uint32_t kind) {
  slots_ready();
  return kind < PSOC_ARCHIVE_COMPONENT_KIND_COUNT_ ? g_kind_field[kind] : NULL;
}

const psoc_struct *arc_kind_string_elements(uint32_t kind) {
  const psoc_field *f;
  if (!arc_kind_strings(kind)) return NULL;
  f = arc_kind_field(kind);
  return f && f->kind == PSOC_FIELD_ARRAY ? f->element : NULL;
}

static int type_slots_run(uint32_t type, size_t at, arc_slot_fn fn, void *ud) {
  const type_slots *ts = &g_type_slots[type];
  unsigned k;
  int r;
  if (ts->unsupported) return -1;
  for (k = 0; k < ts->n; k++) {
    arc_slot slot = ts->slots[k];
    slot.base += at;
    slot.offset += at;
    if ((r = fn(ud, &slot)) != 0) return r;
  }
  return 0;
}

int arc_slots_parsed(const psoc_parsed *parsed, arc_slot_fn fn, void *ud) {
  uint32_t t;
  int r;
  slots_ready();
  for (t = 0; t < PSOC_SO_TYPE_COUNT; t++)
    if (parsed->has[t] &&
        (r = type_slots_run(t, parsed->views[t].offset + parsed->views[t].info->payload_offset, fn, ud)))
      return r;
  return 0;
}

int arc_slots_trusted(const unsigned char *data, size_t size, arc_slot_fn fn, void *ud) {
  size_t off = 0;
  int r;
  slots_ready();
  while (off + 4 <= size) {
    uint32_t type;
    const psoc_subobject_info *info;
    memcpy(&type, data + off, 4);
    info = psoc_info(type);
    if (!info || info->stride > size - off) return -1;
    if (g_type_slots[type].n && (r = type_slots_run(type, off + info->payload_offset, fn, ud))) return r;
    off += info->stride;
  }
  return 0;
}

int arc_slots(const unsigned char *data, size_t size, arc_slot_fn fn, void *ud) {
  psoc_walker walker;
  psoc_view view;
  int r;
  slots_ready();
  psoc_walk_init(&walker, data, size);
  while (psoc_walk_next(&walker, &view, NULL))
    if ((r = type_slots_run(view.type, view.offset + view.info->payload_offset, fn, ud)) != 0) return r;
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
