/*
** pso_convert.h: layer 4 of the pso module (pso_convert.c): declaration
** tables -> payload bytes (generic over the registry), and payload bytes ->
** the language's values (visitors, readback). Uses pso_context and
** pso_values. The converter state (psoi_cv) is shared with the layers
** above, which create pipelines from what it converts.
*/
#ifndef PSO_CONVERT_H
#define PSO_CONVERT_H

#include "pso_context.h"
#include "visit.h" /* the core's payload visitor (src/ is on the include path) */

#define PSOI_CV_DEPTH 24     /* path depth */
#define PSOI_CV_SOURCES 64   /* layers of a derive chain */
#define PSOI_PAYLOAD_MAX 512 /* largest payload (checked at init) */
#define PSOI_CV_ANCHORS 16   /* blob objects anchored by stack index */

/* Origin labels (explain): 0 = runtime default, 1 = the script itself. */
#define PSOI_LABEL_DEFAULT 0
#define PSOI_LABEL_SCRIPT 1

void psoi_init_keys(lua_State *L, psoi_ctx *ctx, int keys_idx);

/* ---- the converter ------------------------------------------------------ */

typedef struct psoi_frame {
  const char *key; /* NULL: index */
  int index;
} psoi_frame;


/* A subobject's value in one layer. */
typedef struct psoi_csrc {
  int idx;
  uint8_t layer, label;
  uint32_t type;    /* the type whose key was used (class base: automatic) */
  const char *key;
} psoi_csrc;

typedef struct psoi_cv {
  lua_State *L;
  psoi_ctx *ctx;
  int K;            /* key table (absolute or upvalue index) */
  int depth;
  psoi_frame frames[PSOI_CV_DEPTH];
  int soft;         /* integer fit failures return CV_SOFT */
  int soft_keys;    /* unknown keys return CV_SOFT (trying the oldest version) */
  int verify;       /* re-converting for a comparison: no hooks */
  int locked;       /* holds a lock on the context's arena */
  size_t extra;     /* bound of the out-of-line bytes converted so far */
  uint8_t *marks;   /* tracking: a label per payload byte, or NULL */
  size_t marks_size;
  int label_list, label_map; /* tracking: id -> text, text -> id */
  int anchors;      /* stack index of the scratch list K[PSOI_K_ANCHORS]
                       every blob object converted is appended to (at
                       anchor_base + nanchors + 1), or 0; the new pipeline
                       keeps them alive in its user values */
  int anchor_base;
  int nanchors;
  int stable;       /* stack indices <= stable keep their values until the
                       pipeline is built (the declaration's own values), or 0:
                       a blob found there is anchored by its index in
                       anchor_at[] instead of in the scratch list */
  int anchor_at[PSOI_CV_ANCHORS]; /* anchor i + 1: its stack index, or 0: in
                       the scratch list at anchor_base + i + 1 */
  int room;         /* stack slots up to this index are known to exist in the
                       current C call (psoi_cv_room); 0 at init */
  void (*collect)(lua_State *L, int arg); /* psoi_cv_error calls it (once) with
                       the message on the top before raising it, or NULL: the
                       layer above adds what it knows (psoi_declare_all: the
                       errors of every other key) */
  int collect_arg;
} psoi_cv;

/* Make sure the stack has n free slots above the top (luaL_checkstack,
** "pso: nesting too deep"), asking Lua only when the top has moved past
** what an earlier call made room for: lua_checkstack's space stays for the
** rest of the C call the conversion runs in. */
void psoi_cv_room_slow(psoi_cv *c, int n);
#define psoi_cv_room(c, n) \
  ((void)(lua_gettop((c)->L) + (n) > (c)->room ? (psoi_cv_room_slow((c), (n)), 0) : 0))

/* Clear this declaration's entries of the anchor list (psoi_cv_error does,
** before raising). */
void psoi_cv_drop_anchors(psoi_cv *c);


typedef struct psoi_decl {
  uint32_t given;                    /* classes with a value (vidx valid) */
  uint32_t removed;                  /* classes set to pso.none */
  int vidx[PSOC_SO_TYPE_COUNT];      /* by class: stack index of the value */
  uint32_t vtype[PSOC_SO_TYPE_COUNT]; /* the type whose key was used */
  const char *vkey[PSOC_SO_TYPE_COUNT];
  int name_idx;
} psoi_decl;

typedef char psoi_decl_classes_fit[PSOC_SO_TYPE_COUNT <= 32 ? 1 : -1];

#define PSOI_DECL_VIDX(d, cls) ((((d)->given >> (cls)) & 1u) ? (d)->vidx[cls] : 0)
#define PSOI_DECL_NONE(d, cls) ((((d)->removed >> (cls)) & 1u) != 0)


typedef union psoi_payload_buf {
  double d;
  void *p;
  long long ll;
  unsigned char b[PSOI_PAYLOAD_MAX];
} psoi_payload_buf;

/* Converted subobjects waiting for the builder (payloads in the arena). */
typedef struct psoi_stage {
  uint32_t type[PSOC_SO_TYPE_COUNT];
  unsigned char *payload[PSOC_SO_TYPE_COUNT];
  int n;
  size_t bound; /* upper bound of the stream block */
  size_t lent;  /* upper bound of the borrowed bytes (blob-only types) */
} psoi_stage;


/* psoi_decider_of(kind): the shader type that decides the kind (from the
** registry); psoi_decider_text[kind]: how a message names it. */
#define psoi_decider_of(kind) psoc_kind_shader((psoc_kind)(kind))
extern const char *const psoi_decider_text[4];

/* (frames[] are written before they are read) */
void psoi_cv_init(psoi_cv *c, lua_State *L, int K);
void psoi_cv_push_frame(psoi_cv *c, const char *key, int index);
/* Raise "WHERE: PATH: message" (the arena lock is dropped first). */
int psoi_cv_error(psoi_cv *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 2, 3)))
#endif
    ;
int psoi_cv_type_error(psoi_cv *c, int idx, const char *expected);
/* Lock the context's arena for this conversion (reset first when no other
** conversion holds it); unlock when done (psoi_cv_error unlocks). */
void psoi_cv_lock(psoi_cv *c);
void psoi_cv_unlock(psoi_cv *c);
/* Tracking: the label id of the text on the top of the stack (popped). */
uint8_t psoi_cv_label_id(psoi_cv *c);

/* Pass 1 over a declaration (or overrides) table t: keys, classes, kinds.
** The values stay on the stack; d->vidx[] index them. */
void psoi_cv_scan_decl(psoi_cv *c, psoc_kind kind, int t, psoi_decl *d);
/* Convert one class from its sources (top first) into payload; returns
** the type emitted. */
uint32_t psoi_cv_class(psoi_cv *c, uint32_t cls, const psoi_csrc *srcs, int n,
                       unsigned char *payload);
/* A class of one type given as its only field, from one declaration. */
uint32_t psoi_cv_single(psoi_cv *c, uint32_t cls, int vidx, const char *key,
                        unsigned char *payload);

/* Staging converted payloads (in the arena) for the builder. */
void psoi_stage_add(psoi_cv *c, psoi_stage *st, uint32_t type, const unsigned char *payload,
                    size_t extra);
unsigned char *psoi_stage_take(psoi_cv *c, uint32_t cls);
void psoi_stage_commit(psoi_cv *c, psoi_stage *st, uint32_t type, unsigned char *payload,
                       size_t extra);
/* Out-of-line bytes of a payload (an upper bound, as the builder counts). */
size_t psoi_payload_extra(const psoc_struct *s, const unsigned char *p);

/* Field-by-field equality of two payloads of one struct (pointers
** followed: arrays by element, blobs by content, strings by value). */
int psoi_payload_equal(const psoc_struct *s, const unsigned char *a, const unsigned char *b);
/* The same type and equal payloads. */
int psoi_same_payload(uint32_t ta, const unsigned char *a, uint32_t tb, const unsigned char *b);

/* ---- visiting payloads (pso_convert.c) -------------------------------- */

/* Leaves and visitors: the core's payload visitor (src/visit.h). */
typedef psoc_vval psoi_vval;
typedef psoc_vis psoi_vis;

/* Visit the payload of 'type' as the language spells it, under 'key'. */
void psoi_visit_class(psoi_vis *v, const char *key, uint32_t type, const unsigned char *payload);

/* Push the Lua value of a payload (readback); rs_name names OBJECT fields. */
void psoi_push_class(lua_State *L, int keys_idx, uint32_t type, const unsigned char *payload,
                     const char *rs_name);
void psoi_push_leaf(lua_State *L, const psoi_vval *val, const char *rs_name);
/* Text of a leaf (enum keys, flags joined with '|'); returns the length. */
size_t psoi_format_leaf(const psoi_vval *val, const char *rs_name, char *out, size_t n);
/* Shortest decimal that reads back as the same float. */
double psoi_float_value(float f, char *text, size_t n);

#endif
