/*
** parse.c: the bounds-checked walk over a stream and the structural parse.
** Nothing here follows a pointer stored in the stream, and nothing reads
** outside [data, data + size).
*/
#include <stdint.h>

#include "parse_walk.h"

#define MSG_INVALID_STREAM "CREATEPIPELINESTATE_INVALID_STREAM"

void psoc_walk_init(psoc_walker *walker, const void *data, size_t size) {
  if (!walker) return;
  walker->data = data;
  walker->size = data ? size : 0;
  walker->offset = 0;
  walker->index = 0;
  walker->done = 0;
}

/* Out of the walk's way: the stream cannot be walked further at the
** walker's offset; report why (trailing bytes, an unknown type, a
** truncated subobject) and stop. */
#if defined(__GNUC__)
__attribute__((cold, noinline))
#endif
static void walk_stop(psoc_walker *walker, psoc_diags *diags, const psoc_subobject_info *info) {
  size_t remaining = walker->size - walker->offset;
  uint32_t type;
  walker->done = 2;
  if (remaining < sizeof(uint32_t)) {
    psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_TRAILING_BYTES, MSG_INVALID_STREAM,
                   (int32_t)walker->index, (int64_t)walker->offset, "",
                   "%zu trailing byte%s after subobject %u cannot hold a subobject type; "
                   "SizeInBytes must end at the last subobject's end",
                   remaining, remaining == 1 ? "" : "s", walker->index ? walker->index - 1 : 0);
    return;
  }
  type = psoc_rd32(walker->data + walker->offset);
  if (!info) {
    char valid[64];
    psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_UNKNOWN_SUBOBJECT,
                   "CREATEPIPELINESTATE_UNKNOWN_SUBOBJECT", (int32_t)walker->index,
                   (int64_t)walker->offset, "type",
                   "subobject type %u (0x%08x) is not a D3D12_PIPELINE_STATE_SUBOBJECT_TYPE "
                   "(valid: %s); the rest of the stream (%zu bytes) cannot be walked",
                   type, type, psoc_registry_types_text(valid, sizeof valid), remaining);
    return;
  }
  psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_TRUNCATED, MSG_INVALID_STREAM,
                 (int32_t)walker->index, (int64_t)walker->offset, info->name,
                 "%s subobject needs %u bytes (payload %s at +%u, padded to 8) but only %zu "
                 "remain in the stream",
                 info->name, info->stride, info->payload->name, info->payload_offset, remaining);
}

/* The first half of a step of the walk: the next subobject's type and its
** registry row, or NULL at the end or at a structural problem (reported).
** walk_take then records it and steps over it. */
static inline const psoc_subobject_info *walk_peek(psoc_walker *walker, psoc_diags *diags,
                                                   uint32_t *type_out) {
  size_t remaining;
  const psoc_subobject_info *info = NULL;
  if (walker->done) return NULL;
  if (walker->offset >= walker->size) {
    walker->done = 1;
    return NULL;
  }
  remaining = walker->size - walker->offset;
  if (remaining >= sizeof(uint32_t)) {
    uint32_t type = psoc_rd32(walker->data + walker->offset);
    info = psoc_info(type);
    if (info && remaining >= info->stride) {
      *type_out = type;
      return info;
    }
  }
  walk_stop(walker, diags, info);
  return NULL;
}

static inline void walk_take(psoc_walker *walker, const psoc_subobject_info *info, uint32_t type,
                             psoc_view *view) {
  view->type = type;
  view->index = walker->index;
  view->offset = walker->offset;
  view->payload = walker->data + walker->offset + info->payload_offset;
  view->info = info;
  walker->offset += info->stride;
  walker->index++;
}

int psoc_walk_next(psoc_walker *walker, psoc_view *view, psoc_diags *diags) {
  const psoc_subobject_info *info;
  uint32_t type;
  if (!walker || !view) return 0;
  info = walk_peek(walker, diags, &type);
  if (!info) return 0;
  walk_take(walker, info, type, view);
  return 1;
}

/* Is the shader subobject of 'type' present with a non-null pointer? */
static int shader_present(const psoc_parsed *parsed, uint32_t type) {
  return parsed->has[type] && psoc_rdptr(parsed->views[type].payload) != 0;
}

/* Exactly one of the deciding shaders (registry rows with
** PSOC_SUBOBJECT_DECIDES_KIND) has non-null bytecode: its row's one kind. */
static psoc_kind deduce_kind(const psoc_parsed *parsed) {
  uint64_t m = parsed->type_mask & PSOC_DECIDER_TYPES;
  uint32_t found = PSOC_SO_TYPE_COUNT;
  for (; m; m &= m - 1) {
    uint32_t t = psoc_lowest_bit(m);
    if (!shader_present(parsed, t)) continue;
    if (found != PSOC_SO_TYPE_COUNT) return PSOC_KIND_NONE;
    found = t;
  }
  if (found == PSOC_SO_TYPE_COUNT) return PSOC_KIND_NONE;
  return (psoc_kind)psoc_lowest_bit(psoc_registry_rows[found].kinds);
}

/* The duplicate's message, without bounds tests: its longest text fits. */
#define DUP_SAME " appears again (first as subobject "
#define DUP_OTHER " duplicates "
#define DUP_OTHER_AT " (subobject "
#define DUP_OFFSET " at offset "
#define DUP_SAME_END "); each subobject type may appear once: remove one"
#define DUP_OTHER_END "): they are versions of one state and may appear once together; keep one of them"
_Static_assert(PSOC_NAME_PAD + sizeof DUP_SAME - 1 + 10 + sizeof DUP_OFFSET - 1 + 20 +
                       sizeof DUP_SAME_END <= PSOC_DIAG_MESSAGE_MAX &&
                   2 * PSOC_NAME_PAD + sizeof DUP_OTHER - 1 + sizeof DUP_OTHER_AT - 1 + 10 +
                           sizeof DUP_OFFSET - 1 + 20 + sizeof DUP_OTHER_END <=
                       PSOC_DIAG_MESSAGE_MAX,
               "the duplicate's longest message (names padded, 10 and 20 digits) fits");

/* 'again' repeats the class of 'first', kept earlier. */
#if defined(__GNUC__)
__attribute__((cold, noinline))
#endif
static void report_duplicate(const psoc_view *first, const psoc_view *again, psoc_diags *diags) {
  /* the texts of the formats "%s appears again (first as subobject %u at offset %zu); each
  ** subobject type may appear once: remove one" and "%s duplicates %s (subobject %u at offset
  ** %zu): they are versions of one state and may appear once together; keep one of them"
  ** (tests/unit/test_parse.c), written piece by piece: names as padded copies, the rest as
  ** literals of constant size */
  char *p;
  psoc_diag *d = psoc_diags_slot_n(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_DUPLICATE_SUBOBJECT,
                                   "CREATEPIPELINESTATE_DUPLICATE_SUBOBJECT",
                                   (int32_t)again->index, (int64_t)again->offset, "", 0);
  if (!d) return;
  _Static_assert(PSOC_NAME_PAD <= sizeof d->field, "a padded name fits the field");
  memcpy(d->field, psoc_registry_names_padded[again->type], PSOC_NAME_PAD);
  p = d->message;
  memcpy(p, psoc_registry_names_padded[again->type], PSOC_NAME_PAD);
  p += psoc_registry_name_len[again->type];
  if (again->type == first->type) {
    psoc_copy16(p, DUP_SAME, sizeof DUP_SAME - 1);
    p += sizeof DUP_SAME - 1;
  } else {
    memcpy(p, DUP_OTHER, sizeof DUP_OTHER - 1);
    p += sizeof DUP_OTHER - 1;
    memcpy(p, psoc_registry_names_padded[first->type], PSOC_NAME_PAD);
    p += psoc_registry_name_len[first->type];
    memcpy(p, DUP_OTHER_AT, sizeof DUP_OTHER_AT - 1);
    p += sizeof DUP_OTHER_AT - 1;
  }
  p = psoc_put_uint(p, first->index);
  memcpy(p, DUP_OFFSET, sizeof DUP_OFFSET - 1);
  p = psoc_put_uint(p + sizeof DUP_OFFSET - 1, first->offset);
  if (again->type == first->type) psoc_copy16(p, DUP_SAME_END, sizeof DUP_SAME_END);
  else psoc_copy16(p, DUP_OTHER_END, sizeof DUP_OTHER_END);
}

/* What psoc_parse and psoc_walk_check report before walking: 1 when the
** stream cannot be walked at all (empty, or NULL). */
int psoc_parse_prologue(const void *data, size_t size, psoc_diags *diags) {
  if (size == 0) {
    char deciders[64];
    psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_ZERO_SIZE_STREAM,
                   "CREATEPIPELINESTATE_ZERO_SIZE_STREAM", -1, -1, "SizeInBytes",
                   "the stream is empty (SizeInBytes is 0); a pipeline needs at least a %s "
                   "subobject", psoc_registry_deciders_text(deciders, sizeof deciders, PSOC_DECIDERS_OR));
    return 1;
  }
  if (!data) {
    psoc_diags_add(diags, PSOC_SEVERITY_ERROR, PSOC_CODE_NULL_STREAM, MSG_INVALID_STREAM, -1, -1,
                   "pPipelineStateSubobjectStream",
                   "pPipelineStateSubobjectStream is NULL but SizeInBytes is %zu", size);
    return 1;
  }
  if ((uintptr_t)data % sizeof(void *) != 0)
    psoc_diags_add(diags, PSOC_SEVERITY_WARNING, PSOC_CODE_UNALIGNED_STREAM, NULL, -1, -1,
                   "pPipelineStateSubobjectStream",
                   "the stream starts at an address that is not %u-byte aligned; the runtime "
                   "reads its subobjects as aligned structs",
                   PSOC_PTR_SIZE);
  return 0;
}

psoc_status psoc_parse(const void *data, size_t size, psoc_parsed *out, psoc_diags *diags) {
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
  if (psoc_parse_prologue(data, size, diags)) {
    out->structural_errors = 1;
    return PSOC_ERR_INVALID;
  }
  /* The walk of psoc_walk_next, with its state in locals and each kept
  ** view written straight into its slot. */
  {
    const unsigned char *bytes = data;
    size_t offset = 0;
    uint32_t index = 0, type = 0, present = 0;
    uint64_t mask = 0;
    for (;;) {
      size_t remaining;
      const psoc_subobject_info *info = NULL;
      uint32_t cls;
      psoc_view *view;
      if (offset >= size) {
        out->complete = 1;
        break;
      }
      remaining = size - offset;
      if (remaining >= sizeof(uint32_t)) {
        type = psoc_rd32(bytes + offset);
        if (type < PSOC_SO_TYPE_COUNT) info = &psoc_registry_rows[type];
      }
      /* one test for "no such type" (stride 0) and "truncated" */
      if (!info || (size_t)info->stride - 1u >= remaining) {
        if (info && !info->stride) info = NULL;
        psoc_walker walker;
        psoc_walk_init(&walker, data, size);
        walker.offset = offset;
        walker.index = index;
        walk_stop(&walker, diags, info);
        break;
      }
      cls = info->dup_class;
      if (out->class_type[cls] >= 0) {
        psoc_view again;
        again.type = type;
        again.index = index;
        again.offset = offset;
        again.payload = bytes + offset + info->payload_offset;
        again.info = info;
        out->structural_errors++;
        report_duplicate(&out->views[out->class_type[cls]], &again, diags);
      } else {
        view = &out->views[type];
        view->type = type;
        view->index = index;
        view->offset = offset;
        view->payload = bytes + offset + info->payload_offset;
        view->info = info;
        out->class_type[cls] = (int8_t)type;
        out->has[type] = 1;
        mask |= PSOC_TYPE_BIT(type);
        present++;
      }
      offset += info->stride;
      index++;
    }
    out->count = index;
    out->type_mask = mask;
    out->present = present;
  }
  if (!out->complete) out->structural_errors++;
  out->kind = deduce_kind(out);
  if (!out->complete || out->structural_errors) return PSOC_ERR_INVALID;
  return PSOC_OK;
}

/* ---- psoc_check's walk ------------------------------------------------ */

/* The walk's tables (parse_walk.h): one entry per type value, built at
** compile time from the registry's list (PSOC_SUBOBJECTS). */
#define WALK_CLASS(NAME, id, key, CLASS, kinds, T, layout, bits) [id] = PSOC_TYPE_BIT(PSOC_SO_##CLASS),
#define WALK_FLIP(NAME, id, key, CLASS, kinds, T, layout, bits) \
  [id] = PSOC_TYPE_BIT(PSOC_SO_##CLASS) | PSOC_TYPE_BIT(id),
#define WALK_ENTRY(NAME, id, key, CLASS, kinds, T, layout, bits) \
  [id] = { PSOC_STRIDE(T), PSOC_PAYLOAD_OFFSET(T), PSOC_SO_##CLASS },
const psoc_walk_tables psoc_walk_tables_ = {
  { PSOC_SUBOBJECTS(WALK_ENTRY) },
  { PSOC_SUBOBJECTS(WALK_CLASS) },
  { PSOC_SUBOBJECTS(WALK_FLIP) },
};
#undef WALK_ENTRY
#undef WALK_FLIP
#undef WALK_CLASS
#define WALK_FITS(NAME, id, key, CLASS, kinds, T, layout, bits)              \
  _Static_assert(PSOC_STRIDE(T) < 0x10000 && PSOC_PAYLOAD_OFFSET(T) < 0x100, \
                 #NAME ": stride and payload offset fit a walk entry");
PSOC_SUBOBJECTS(WALK_FITS)
#undef WALK_FITS

/* The index of the subobject at 'offset' of a stream walked without
** problems up to there, counted on from subobject 'index' at 'at'. */
static uint32_t index_from(const unsigned char *data, size_t at, uint32_t index, size_t offset) {
  while (at < offset) {
    at += psoc_walk_table[psoc_rd32(data + at)].stride;
    index++;
  }
  return index;
}

/* The index of the subobject at 'offset' of a stream walked without
** problems up to there. */
static uint32_t index_at(const unsigned char *data, size_t offset) {
  return index_from(data, 0, 0, offset);
}

void psoc_walked_view(const psoc_walked *w, uint32_t type, psoc_view *out) {
  out->type = type;
  out->info = &psoc_registry_rows[type];
  out->payload = w->payload[type];
  out->offset = (size_t)(out->payload - w->data) - out->info->payload_offset;
  out->index = index_at(w->data, out->offset);
}

#if defined(__GNUC__)
__attribute__((cold, noinline))
#endif
void psoc_walked_stop(const psoc_walked *w, size_t offset, psoc_diags *diags) {
  psoc_walker walker;
  const psoc_subobject_info *info = NULL;
  psoc_walk_init(&walker, w->data, w->size);
  walker.offset = offset;
  walker.index = index_at(w->data, offset);
  if (w->size - offset >= sizeof(uint32_t)) info = psoc_info(psoc_rd32(w->data + offset));
  walk_stop(&walker, diags, info);
}

#if defined(__GNUC__)
__attribute__((cold, noinline))
#endif
void psoc_walked_duplicate(const psoc_walked *w, const unsigned char *at, uint64_t mask,
                           psoc_diags *diags) {
  /* the type and its class read again here, so the walk keeps no copies */
  uint32_t type = psoc_rd32(at), cls = psoc_walk_table[type].cls;
  size_t offset = (size_t)(at - w->data);
  psoc_view first, again;
  psoc_walked_view(w, (uint32_t)psoc_types_kept(psoc_walk_types_of(mask), cls), &first);
  again.type = type;
  again.index = index_from(w->data, first.offset, first.index, offset); /* on from the first */
  again.offset = offset;
  again.info = &psoc_registry_rows[type];
  again.payload = w->data + offset + again.info->payload_offset;
  report_duplicate(&first, &again, diags);
}

#if defined(__GNUC__)
__attribute__((cold, noinline))
#endif
const unsigned char *psoc_walk_rest(psoc_walked *out, const unsigned char *at, size_t remaining,
                                    uint64_t *mask, psoc_diags *diags) {
  uint64_t m = *mask;
  do { /* psoc_walk_check_inline's loop, with the duplicates reported */
    size_t type = psoc_rd32(at), stride;
    const psoc_walk_entry *e;
    if (type >= PSOC_SO_TYPE_COUNT) break;
    e = &psoc_walk_table[type];
    stride = e->stride;
    if (stride - 1u >= remaining) break; /* no such type (stride 0), or truncated */
    if (psoc_walk_tables_.cls[type] & m) {
      out->payload[type] = at + e->payload_offset;
      m ^= psoc_walk_tables_.flip[type];
    } else {
      psoc_walked_duplicate(out, at, m, diags);
    }
    at += stride;
    remaining -= stride;
  } while (remaining >= sizeof(uint32_t));
  *mask = m;
  return at;
}

psoc_status psoc_walk_check(const void *data, size_t size, psoc_walked *out, psoc_diags *diags) {
  return psoc_walk_check_inline(data, size, out, diags);
}

const psoc_view *psoc_parsed_class(const psoc_parsed *parsed, uint32_t dup_class) {
  if (!parsed || dup_class >= PSOC_SO_TYPE_COUNT || parsed->class_type[dup_class] < 0) return NULL;
  return &parsed->views[parsed->class_type[dup_class]];
}
