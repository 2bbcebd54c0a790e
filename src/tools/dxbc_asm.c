/*
** dxbc_asm.c: see dxbc_asm.h. Token layouts follow the D3D10/D3D11
** tokenized program format (opcode token: opcode in bits 0-10, controls
** in 11-23, length in 24-30; operand token: component count 0-1,
** selection mode 2-3, mask/swizzle 4-11, register type 12-19, index
** dimension 20-21).
*/
#include "dxbc_asm.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dxbc.h"

#define MAX_ELEMENTS 32
#define MAX_NAME 64
#define MAX_LINE 512
#define MAX_ROOT_PARAMS 16

/* Opcodes used here. */
enum {
  OP_ADD = 0x00, OP_CUT = 0x09, OP_DP3 = 0x10, OP_DP4 = 0x11, OP_EMIT = 0x13, OP_FTOU = 0x1c,
  OP_IADD = 0x1e, OP_ITOF = 0x2b, OP_MAD = 0x32, OP_MIN = 0x33, OP_MAX = 0x34, OP_MOV = 0x36,
  OP_MUL = 0x38, OP_RET = 0x3e, OP_UTOF = 0x56, OP_DCL_CONSTANT_BUFFER = 0x59,
  OP_DCL_OUTPUT_TOPOLOGY = 0x5c, OP_DCL_INPUT_PRIMITIVE = 0x5d, OP_DCL_MAX_VERTICES = 0x5e,
  OP_DCL_INPUT = 0x5f, OP_DCL_INPUT_SGV = 0x60, OP_DCL_INPUT_SIV = 0x61, OP_DCL_INPUT_PS = 0x62,
  OP_DCL_INPUT_PS_SGV = 0x63, OP_DCL_INPUT_PS_SIV = 0x64, OP_DCL_OUTPUT = 0x65,
  OP_DCL_OUTPUT_SIV = 0x67, OP_DCL_TEMPS = 0x68, OP_DCL_GLOBAL_FLAGS = 0x6a,
  OP_DCL_THREAD_GROUP = 0x9b, OP_DCL_UAV_RAW = 0x9d, OP_STORE_RAW = 0xa6
};

/* Register (operand) types. */
enum {
  REG_TEMP = 0, REG_INPUT = 1, REG_OUTPUT = 2, REG_IMM32 = 4, REG_CB = 8, REG_UAV = 30
};

/* Interpolation modes of dcl_input_ps. */
enum { INTERP_CONSTANT = 1, INTERP_LINEAR = 2, INTERP_LINEAR_NOPERSPECTIVE = 4 };

typedef struct words {
  uint32_t *p;
  size_t n, cap;
  int oom;
} words;

typedef struct element {
  char name[MAX_NAME];
  uint32_t index, sysval, comp, reg;
  uint8_t mask;
} element;

typedef struct assembler {
  int line;
  char *err;
  size_t errlen;
  int have_target, dxil;
  uint32_t program, major, minor;
  element in[MAX_ELEMENTS], out[MAX_ELEMENTS];
  size_t nin, nout;
  words decls, body;
  int max_temp;           /* highest r# used, -1 for none */
  uint32_t gs_input_vertices; /* from dcl_input_primitive */
  int have_thread_group;
  int have_rs;            /* root_signature given: an RTS0 chunk (version 1.0) */
  uint32_t rs_flags;
  uint32_t rs_params[MAX_ROOT_PARAMS][3]; /* type, register, 32-bit values */
  size_t nrs_params;
  uint32_t last_opcode;   /* of the last instruction, ~0 before any */
} assembler;

static int fail(assembler *a, const char *fmt, ...) {
  if (a->err && a->errlen > 0) {
    va_list ap;
    int n = snprintf(a->err, a->errlen, "line %d: ", a->line);
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < a->errlen) vsnprintf(a->err + n, a->errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static void emit(words *w, uint32_t v) {
  if (w->oom) return;
  if (w->n == w->cap) {
    size_t cap = w->cap ? w->cap * 2 : 64;
    uint32_t *p = realloc(w->p, cap * sizeof *p);
    if (!p) {
      w->oom = 1;
      return;
    }
    w->p = p;
    w->cap = cap;
  }
  w->p[w->n++] = v;
}

/* ---------------------------------------------------------------- */
/* Lexing helpers                                                    */
/* ---------------------------------------------------------------- */

static const char *skip_space(const char *s) {
  while (*s == ' ' || *s == '\t' || *s == '\r') s++;
  return s;
}

/* Copy the next word (letters, digits, '_') into buf. */
static const char *word(const char *s, char *buf, size_t n) {
  size_t i = 0;
  s = skip_space(s);
  while ((isalnum((unsigned char)*s) || *s == '_') && i + 1 < n) buf[i++] = *s++;
  buf[i] = '\0';
  return s;
}

static int ieq(const char *a, const char *b) {
  while (*a && *b) {
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    a++;
    b++;
  }
  return *a == *b;
}

static int parse_uint(const char *s, const char **end, uint32_t *out) {
  char *e;
  unsigned long v;
  if (!isdigit((unsigned char)*s)) return 0;
  errno = 0;
  v = strtoul(s, &e, 0);
  if (errno || v > 0xfffffffful) return 0;
  *out = (uint32_t)v;
  *end = e;
  return 1;
}

/* ".xyzw"-style component list: as a write mask (in order, no repeats)
** or as a swizzle (1 to 4 letters, the last one repeated). */
static int parse_mask(const char *s, const char **end, uint8_t *mask) {
  uint8_t m = 0;
  int last = -1;
  const char *comps = "xyzw";
  while (*s && strchr(comps, *s)) {
    int c = (int)(strchr(comps, *s) - comps);
    if (c <= last) return 0;
    m |= (uint8_t)(1u << c);
    last = c;
    s++;
  }
  if (!m) return 0;
  *mask = m;
  *end = s;
  return 1;
}

static int parse_swizzle(const char *s, const char **end, uint32_t *swz) {
  int comp[4], n = 0, i;
  const char *comps = "xyzw";
  while (*s && strchr(comps, *s) && n < 4) comp[n++] = (int)(strchr(comps, *s++) - comps);
  if (n == 0 || (*s && strchr(comps, *s))) return 0;
  for (i = n; i < 4; i++) comp[i] = comp[n - 1];
  *swz = (uint32_t)(comp[0] | comp[1] << 2 | comp[2] << 4 | comp[3] << 6);
  *end = s;
  return 1;
}

/* ---------------------------------------------------------------- */
/* Operands                                                          */
/* ---------------------------------------------------------------- */

/* ncomp: 0, 1 or 4; sel (4 components): 0 mask, 1 swizzle, 2 select-1. */
static uint32_t operand_token(int ncomp, int sel, uint32_t bits, uint32_t type, uint32_t dims) {
  uint32_t t = ncomp == 0 ? 0u : ncomp == 1 ? 1u : 2u;
  if (ncomp == 4) t |= (uint32_t)sel << 2 | bits << 4;
  return t | type << 12 | dims << 20;
}

typedef struct operand {
  uint32_t tokens[8];
  size_t n;
} operand;

static int parse_immediate(assembler *a, const char **sp, operand *op) {
  const char *s = *sp + 2; /* after "l(" */
  uint32_t v[4];
  int n = 0;
  for (;;) {
    char *e;
    const char *start;
    size_t k, tl;
    int is_float = 0;
    s = skip_space(s);
    start = s;
    if (n == 4) return fail(a, "an immediate holds 1 or 4 values");
    tl = strcspn(start, ",)");
    for (k = 0; k < tl; k++)
      if (start[k] == '.' || start[k] == 'e' || start[k] == 'E') is_float = 1;
    if (strncmp(start, "0x", 2) == 0 || strncmp(start, "0X", 2) == 0) is_float = 0;
    if (is_float) {
      float f;
      errno = 0;
      f = strtof(start, &e);
      if (e == start || errno) return fail(a, "bad float in immediate");
      memcpy(&v[n], &f, 4);
    } else {
      long long x;
      errno = 0;
      x = strtoll(start, &e, 0);
      if (e == start || errno || x < -2147483648LL || x > 4294967295LL)
        return fail(a, "bad integer in immediate");
      v[n] = (uint32_t)x;
    }
    n++;
    s = skip_space(e);
    if (*s == ',') {
      s++;
      continue;
    }
    if (*s == ')') {
      s++;
      break;
    }
    return fail(a, "expected ',' or ')' in immediate");
  }
  if (n != 1 && n != 4) return fail(a, "an immediate holds 1 or 4 values, not %d", n);
  op->tokens[0] = operand_token(n == 1 ? 1 : 4, 0, 0, REG_IMM32, 0);
  memcpy(op->tokens + 1, v, (size_t)n * 4);
  op->n = 1 + (size_t)n;
  *sp = s;
  return 0;
}

/* A register operand: rN vN oN uN cbN[M] v[N][M], then .mask/.swizzle.
** dst: write mask; otherwise swizzle. */
static int parse_operand(assembler *a, const char **sp, int dst, operand *op) {
  const char *s = skip_space(*sp);
  uint32_t type, idx[2], dims;
  int neg = 0;
  memset(op, 0, sizeof *op);
  if (!dst && *s == '-') {
    neg = 1;
    s++;
  }
  if (s[0] == 'l' && s[1] == '(') {
    if (neg) return fail(a, "negate the value of the immediate instead");
    if (dst) return fail(a, "an immediate cannot be a destination");
    if (parse_immediate(a, &s, op)) return -1;
    *sp = s;
    return 0;
  }
  if (s[0] == 'c' && s[1] == 'b') {
    type = REG_CB;
    s += 2;
    if (!parse_uint(s, &s, &idx[0]) || *s != '[' || !parse_uint(s + 1, &s, &idx[1]) || *s != ']')
      return fail(a, "expected cbN[M]");
    s++;
    dims = 2;
  } else if (s[0] == 'v' && s[1] == '[') {
    type = REG_INPUT;
    if (!parse_uint(s + 2, &s, &idx[0]) || s[0] != ']' || s[1] != '[' ||
        !parse_uint(s + 2, &s, &idx[1]) || *s != ']')
      return fail(a, "expected v[VERTEX][REGISTER]");
    s++;
    dims = 2;
  } else {
    switch (*s) {
      case 'r': type = REG_TEMP; break;
      case 'v': type = REG_INPUT; break;
      case 'o': type = REG_OUTPUT; break;
      case 'u': type = REG_UAV; break;
      default: return fail(a, "unknown operand '%.16s'", s);
    }
    if (!parse_uint(s + 1, &s, &idx[0])) return fail(a, "expected a register number after '%c'", **sp);
    dims = 1;
  }
  if (type == REG_TEMP && (int)idx[0] > a->max_temp) {
    if (idx[0] > 4095) return fail(a, "temp register r%u out of range", (unsigned)idx[0]);
    a->max_temp = (int)idx[0];
  }
  if (dst && type != REG_TEMP && type != REG_OUTPUT && type != REG_UAV)
    return fail(a, "this register cannot be written");
  if (dst) {
    uint8_t mask = 0xf;
    if (*s == '.' && !parse_mask(s + 1, &s, &mask)) return fail(a, "bad write mask");
    op->tokens[0] = operand_token(4, 0, mask, type, dims);
  } else {
    uint32_t swz = 0xe4; /* xyzw */
    if (*s == '.' && !parse_swizzle(s + 1, &s, &swz)) return fail(a, "bad swizzle");
    op->tokens[0] = operand_token(4, 1, swz, type, dims);
  }
  op->n = 1;
  if (neg) {
    op->tokens[0] |= 1u << 31;        /* extended operand */
    op->tokens[op->n++] = 1u | 1u << 6; /* modifier: negate */
  }
  op->tokens[op->n++] = idx[0];
  if (dims == 2) op->tokens[op->n++] = idx[1];
  *sp = s;
  return 0;
}

/* ---------------------------------------------------------------- */
/* Statements                                                        */
/* ---------------------------------------------------------------- */

typedef struct opinfo {
  const char *name;
  uint32_t opcode;
  int ndst, nsrc;
} opinfo;

static const opinfo OPS[] = {
  { "mov", OP_MOV, 1, 1 },   { "add", OP_ADD, 1, 2 },   { "mul", OP_MUL, 1, 2 },
  { "mad", OP_MAD, 1, 3 },   { "dp3", OP_DP3, 1, 2 },   { "dp4", OP_DP4, 1, 2 },
  { "min", OP_MIN, 1, 2 },   { "max", OP_MAX, 1, 2 },   { "iadd", OP_IADD, 1, 2 },
  { "itof", OP_ITOF, 1, 1 }, { "utof", OP_UTOF, 1, 1 }, { "ftou", OP_FTOU, 1, 1 },
  { "ret", OP_RET, 0, 0 },   { "emit", OP_EMIT, 0, 0 }, { "cut", OP_CUT, 0, 0 },
  { "store_raw", OP_STORE_RAW, 1, 2 },
};

static int instruction(assembler *a, const char *name, const char *s) {
  const opinfo *info = NULL;
  operand ops[4];
  size_t i, n = 0, len = 1;
  uint32_t token;
  int sat = 0, k;
  char base[32];
  size_t bl = strlen(name);
  if (bl >= sizeof base) return fail(a, "unknown instruction '%s'", name);
  memcpy(base, name, bl + 1);
  if (bl > 4 && strcmp(base + bl - 4, "_sat") == 0) {
    sat = 1;
    base[bl - 4] = '\0';
  }
  for (i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
    if (strcmp(OPS[i].name, base) == 0) info = &OPS[i];
  if (!info) return fail(a, "unknown instruction '%s'", name);
  if (sat && info->ndst == 0) return fail(a, "'%s' takes no _sat", base);
  if (info->opcode == OP_EMIT || info->opcode == OP_CUT) {
    if (a->program != PSOC_PROGRAM_GS) return fail(a, "'%s' is for geometry shaders", base);
  }
  for (k = 0; k < info->ndst + info->nsrc; k++) {
    if (k > 0) {
      s = skip_space(s);
      if (*s != ',') return fail(a, "'%s' takes %d operands", base, info->ndst + info->nsrc);
      s++;
    }
    if (parse_operand(a, &s, k < info->ndst, &ops[n])) return -1;
    len += ops[n].n;
    n++;
  }
  s = skip_space(s);
  if (*s) return fail(a, "unexpected '%.16s' after the operands", s);
  if (info->opcode == OP_STORE_RAW && ((ops[0].tokens[0] >> 12) & 0xff) != REG_UAV)
    return fail(a, "store_raw writes a UAV (uN)");
  token = info->opcode | (sat ? 1u << 13 : 0u) | (uint32_t)len << 24;
  emit(&a->body, token);
  for (i = 0; i < n; i++) {
    size_t j;
    for (j = 0; j < ops[i].n; j++) emit(&a->body, ops[i].tokens[j]);
  }
  a->last_opcode = info->opcode;
  return 0;
}

static int parse_list(assembler *a, const char *s, uint32_t *v, int count) {
  int i;
  for (i = 0; i < count; i++) {
    s = skip_space(s);
    if (i > 0) {
      if (*s != ',') return fail(a, "expected %d comma-separated numbers", count);
      s = skip_space(s + 1);
    }
    if (!parse_uint(s, &s, &v[i])) return fail(a, "expected a number");
  }
  if (*skip_space(s)) return fail(a, "unexpected '%.16s'", skip_space(s));
  return 0;
}

static int declaration(assembler *a, const char *name, const char *s) {
  uint32_t v[3] = { 0, 0, 0 };
  char w[32] = "";
  if (strcmp(name, "dcl_thread_group") == 0) {
    if (a->program != PSOC_PROGRAM_CS) return fail(a, "dcl_thread_group is for compute shaders");
    if (parse_list(a, s, v, 3)) return -1;
    if (!v[0] || !v[1] || !v[2] || v[0] > 1024 || v[1] > 1024 || v[2] > 64 ||
        (uint64_t)v[0] * v[1] * v[2] > 1024)
      return fail(a, "thread group %ux%ux%u is out of range", (unsigned)v[0], (unsigned)v[1],
                  (unsigned)v[2]);
    if (a->have_thread_group) return fail(a, "dcl_thread_group is given twice");
    a->have_thread_group = 1;
    emit(&a->decls, OP_DCL_THREAD_GROUP | 4u << 24);
    emit(&a->decls, v[0]);
    emit(&a->decls, v[1]);
    emit(&a->decls, v[2]);
  } else if (strcmp(name, "dcl_uav_raw") == 0) {
    s = skip_space(s);
    if (*s != 'u' || !parse_uint(s + 1, &s, &v[0]) || *skip_space(s)) return fail(a, "expected uN");
    emit(&a->decls, OP_DCL_UAV_RAW | 3u << 24);
    emit(&a->decls, operand_token(0, 0, 0, REG_UAV, 1));
    emit(&a->decls, v[0]);
  } else if (strcmp(name, "dcl_constantbuffer") == 0) {
    s = skip_space(s);
    if (s[0] != 'c' || s[1] != 'b' || !parse_uint(s + 2, &s, &v[0]) || *s != '[' ||
        !parse_uint(s + 1, &s, &v[1]) || *s != ']' || *skip_space(s + 1))
      return fail(a, "expected cbN[SIZE]");
    if (v[1] == 0 || v[1] > 4096) return fail(a, "constant buffer size 1..4096");
    emit(&a->decls, OP_DCL_CONSTANT_BUFFER | 4u << 24); /* immediate indexed */
    emit(&a->decls, operand_token(4, 1, 0xe4, REG_CB, 2));
    emit(&a->decls, v[0]);
    emit(&a->decls, v[1]);
  } else if (strcmp(name, "dcl_global_flags") == 0) {
    s = word(s, w, sizeof w);
    if (strcmp(w, "refactoringAllowed") != 0 || *skip_space(s))
      return fail(a, "dcl_global_flags: only refactoringAllowed");
    emit(&a->decls, OP_DCL_GLOBAL_FLAGS | 1u << 11 | 1u << 24);
  } else if (strcmp(name, "dcl_input_primitive") == 0 || strcmp(name, "dcl_output_topology") == 0) {
    static const char *const prims[] = { "point", "line", "triangle" };
    static const char *const topos[] = { "pointlist", "linelist", "linestrip", "trianglelist",
                                         "trianglestrip" };
    int input = name[4] == 'i', i, found = -1;
    if (a->program != PSOC_PROGRAM_GS) return fail(a, "%s is for geometry shaders", name);
    s = word(s, w, sizeof w);
    if (*skip_space(s)) return fail(a, "unexpected '%.16s'", skip_space(s));
    for (i = 0; i < (input ? 3 : 5); i++)
      if (strcmp(w, input ? prims[i] : topos[i]) == 0) found = i;
    if (found < 0) return fail(a, "unknown %s '%s'", input ? "primitive" : "topology", w);
    if (input) a->gs_input_vertices = (uint32_t)found + 1;
    emit(&a->decls, (input ? OP_DCL_INPUT_PRIMITIVE : OP_DCL_OUTPUT_TOPOLOGY) |
                        (uint32_t)(found + 1) << 11 | 1u << 24);
  } else if (strcmp(name, "dcl_max_vertices") == 0) {
    if (a->program != PSOC_PROGRAM_GS) return fail(a, "dcl_max_vertices is for geometry shaders");
    if (parse_list(a, s, v, 1)) return -1;
    if (v[0] == 0 || v[0] > 1024) return fail(a, "dcl_max_vertices 1..1024");
    emit(&a->decls, OP_DCL_MAX_VERTICES | 2u << 24);
    emit(&a->decls, v[0]);
  } else {
    return fail(a, "unknown declaration '%s'", name);
  }
  return 0;
}

typedef struct sysval_name {
  const char *name;
  uint32_t value;
  uint32_t comp;
} sysval_name;

static const sysval_name SYSVALS[] = {
  { "SV_Position", 1, 3 },    { "SV_ClipDistance", 2, 3 },  { "SV_CullDistance", 3, 3 },
  { "SV_RenderTargetArrayIndex", 4, 1 }, { "SV_ViewportArrayIndex", 5, 1 },
  { "SV_VertexID", 6, 1 },    { "SV_PrimitiveID", 7, 1 },   { "SV_InstanceID", 8, 1 },
  { "SV_IsFrontFace", 9, 1 }, { "SV_SampleIndex", 10, 1 },  { "SV_Target", PSOC_SV_TARGET, 3 },
};

static int element_line(assembler *a, int input, const char *s) {
  element e;
  char name[MAX_NAME] = "", w[16] = "";
  size_t len, i;
  element *list = input ? a->in : a->out;
  size_t *count = input ? &a->nin : &a->nout;
  memset(&e, 0, sizeof e);
  if (!a->have_target) return fail(a, "the target (e.g. vs_5_0) comes first");
  if (a->program == PSOC_PROGRAM_CS) return fail(a, "compute shaders have no signatures");
  if (*count == MAX_ELEMENTS) return fail(a, "more than %d elements", MAX_ELEMENTS);
  s = word(s, name, sizeof name);
  len = strlen(name);
  if (len == 0) return fail(a, "expected a semantic name");
  while (len > 0 && isdigit((unsigned char)name[len - 1])) len--;
  if (len == 0) return fail(a, "a semantic name starts with a letter");
  if (name[len]) e.index = (uint32_t)strtoul(name + len, NULL, 10);
  memcpy(e.name, name, len);
  e.name[len] = '\0';
  e.comp = 3;
  if (e.name[0] == 'S' && e.name[1] == 'V' && e.name[2] == '_') {
    const sysval_name *sv = NULL;
    for (i = 0; i < sizeof SYSVALS / sizeof SYSVALS[0]; i++)
      if (ieq(SYSVALS[i].name, e.name)) sv = &SYSVALS[i];
    if (!sv) return fail(a, "unsupported system value '%s'", e.name);
    e.sysval = sv->value;
    e.comp = sv->comp;
  }
  s = skip_space(s);
  if (*s != (input ? 'v' : 'o') || !parse_uint(s + 1, &s, &e.reg))
    return fail(a, "expected the register (%c0, %c1, ...)", input ? 'v' : 'o', input ? 'v' : 'o');
  if (*s != '.' || !parse_mask(s + 1, &s, &e.mask)) return fail(a, "expected a mask (.xyzw)");
  s = word(s, w, sizeof w);
  if (w[0]) {
    if (strcmp(w, "float") == 0) e.comp = 3;
    else if (strcmp(w, "uint") == 0) e.comp = 1;
    else if (strcmp(w, "int") == 0) e.comp = 2;
    else return fail(a, "unknown component type '%s' (float, uint, int)", w);
  }
  if (*skip_space(s)) return fail(a, "unexpected '%.16s'", skip_space(s));
  for (i = 0; i < *count; i++) {
    if (ieq(list[i].name, e.name) && list[i].index == e.index)
      return fail(a, "%s%u is declared twice", e.name, (unsigned)e.index);
    if (list[i].reg == e.reg && (list[i].mask & e.mask))
      return fail(a, "%c%u components overlap", input ? 'v' : 'o', (unsigned)e.reg);
  }
  list[(*count)++] = e;
  return 0;
}

/* The register declaration that the element implies for this stage. */
static int declare_element(assembler *a, const element *e, int input) {
  uint32_t dims = 1, type = input ? REG_INPUT : REG_OUTPUT, opcode, name_token = 0;
  int has_name = 0;
  uint32_t interp = 0;
  int ps = a->program == PSOC_PROGRAM_PS;
  if (input && ps) {
    if (e->sysval == 1) {
      opcode = OP_DCL_INPUT_PS_SIV;
      interp = INTERP_LINEAR_NOPERSPECTIVE;
      has_name = 1;
    } else if (e->sysval == 7 || e->sysval == 9 || e->sysval == 10) {
      opcode = OP_DCL_INPUT_PS_SGV;
      interp = INTERP_CONSTANT;
      has_name = 1;
    } else if (e->sysval != 0) {
      return fail(a, "%s is not a pixel shader input here", e->name);
    } else {
      opcode = OP_DCL_INPUT_PS;
      interp = e->comp == 3 ? INTERP_LINEAR : INTERP_CONSTANT;
    }
  } else if (input) {
    if (a->program == PSOC_PROGRAM_GS) {
      if (!a->gs_input_vertices) return fail(a, "a geometry shader needs dcl_input_primitive");
      dims = 2;
    }
    if (e->sysval == 6 || e->sysval == 8) {
      if (a->program != PSOC_PROGRAM_VS) return fail(a, "%s is a vertex shader input", e->name);
      opcode = OP_DCL_INPUT_SGV;
      has_name = 1;
    } else if (e->sysval == 1 && a->program == PSOC_PROGRAM_GS) {
      opcode = OP_DCL_INPUT_SIV;
      has_name = 1;
    } else if (e->sysval != 0) {
      return fail(a, "%s is not an input of this stage", e->name);
    } else {
      opcode = OP_DCL_INPUT;
    }
  } else if (ps) {
    if (e->sysval != PSOC_SV_TARGET) return fail(a, "pixel shader outputs: SV_Target0..7");
    if (e->reg != e->index || e->reg > 7) return fail(a, "SV_Target%u is written to o%u", (unsigned)e->index, (unsigned)e->index);
    opcode = OP_DCL_OUTPUT;
  } else {
    if (e->sysval == PSOC_SV_TARGET) return fail(a, "SV_Target is a pixel shader output");
    if (e->sysval != 0) {
      opcode = OP_DCL_OUTPUT_SIV;
      has_name = 1;
    } else {
      opcode = OP_DCL_OUTPUT;
    }
  }
  name_token = e->sysval;
  emit(&a->decls, opcode | interp << 11 | (uint32_t)(2 + dims + has_name) << 24);
  emit(&a->decls, operand_token(4, 0, e->mask, type, dims));
  if (dims == 2) emit(&a->decls, a->gs_input_vertices);
  emit(&a->decls, e->reg);
  if (has_name) emit(&a->decls, name_token);
  return 0;
}

static int target_line(assembler *a, const char *name) {
  static const struct {
    const char *prefix;
    uint32_t program;
  } stages[] = { { "ps_", PSOC_PROGRAM_PS }, { "vs_", PSOC_PROGRAM_VS }, { "gs_", PSOC_PROGRAM_GS },
                 { "cs_", PSOC_PROGRAM_CS }, { "ms_", PSOC_PROGRAM_MS }, { "as_", PSOC_PROGRAM_AS } };
  size_t i;
  for (i = 0; i < sizeof stages / sizeof stages[0]; i++) {
    if (strncmp(name, stages[i].prefix, 3) == 0 && isdigit((unsigned char)name[3]) &&
        name[4] == '_' && isdigit((unsigned char)name[5]) && name[6] == '\0') {
      uint32_t major = (uint32_t)(name[3] - '0'), minor = (uint32_t)(name[5] - '0');
      int ok = (major == 4 && minor <= 1) || (major == 5 && minor == 0) || (major == 6 && minor <= 8);
      if (!ok) return fail(a, "shader model %u.%u is not supported (4.0, 4.1, 5.0, 6.x)", (unsigned)major, (unsigned)minor);
      if (stages[i].program == PSOC_PROGRAM_CS && major < 5)
        return fail(a, "compute shaders here are cs_5_0 or later");
      if ((stages[i].program == PSOC_PROGRAM_MS || stages[i].program == PSOC_PROGRAM_AS) &&
          (major < 6 || minor < 5))
        return fail(a, "mesh and amplification shaders need shader model 6.5");
      if (a->have_target) return fail(a, "the target is given twice");
      a->have_target = 1;
      a->program = stages[i].program;
      a->major = major;
      a->minor = minor;
      a->dxil = major >= 6;
      return 0;
    }
  }
  return -2; /* not a target */
}

/* root_signature [allow_input_layout | deny_* ... | 0xFLAGS]: an embedded
** root signature (RTS0, version 1.0) with the given flags;
** root_parameter cbv bN | srv tN | uav uN | constants bN COUNT: one root
** parameter (space 0, visible to all stages) of it. */
static int root_signature_line(assembler *a, const char *s) {
  static const struct {
    const char *name;
    uint32_t bit;
  } flags[] = { { "allow_input_layout", 0x1 }, { "deny_vs", 0x2 }, { "deny_hs", 0x4 },
                { "deny_ds", 0x8 }, { "deny_gs", 0x10 }, { "deny_ps", 0x20 },
                { "allow_stream_output", 0x40 } };
  char w[32] = "";
  if (a->have_rs) return fail(a, "root_signature is given twice");
  a->have_rs = 1;
  for (;;) {
    size_t i;
    int found = 0;
    s = skip_space(s);
    if (!*s) break;
    if (isdigit((unsigned char)*s)) {
      uint32_t v;
      if (!parse_uint(s, &s, &v)) return fail(a, "bad root signature flags");
      a->rs_flags |= v;
      continue;
    }
    s = word(s, w, sizeof w);
    for (i = 0; i < sizeof flags / sizeof flags[0]; i++)
      if (strcmp(w, flags[i].name) == 0) a->rs_flags |= flags[i].bit, found = 1;
    if (!found) return fail(a, "unknown root signature flag '%s'", w[0] ? w : s);
  }
  return 0;
}

static int root_parameter_line(assembler *a, const char *s) {
  static const struct {
    const char *name;
    char reg;
    uint32_t type;
  } kinds[] = { { "constants", 'b', 1 }, { "cbv", 'b', 2 }, { "srv", 't', 3 }, { "uav", 'u', 4 } };
  char w[32] = "";
  size_t i;
  uint32_t *p;
  if (!a->have_rs) return fail(a, "root_parameter needs a root_signature line before it");
  if (a->nrs_params == MAX_ROOT_PARAMS) return fail(a, "more than %d root parameters", MAX_ROOT_PARAMS);
  p = a->rs_params[a->nrs_params];
  s = word(s, w, sizeof w);
  for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(w, kinds[i].name) == 0) break;
  if (i == sizeof kinds / sizeof kinds[0]) return fail(a, "root_parameter: constants, cbv, srv or uav");
  s = skip_space(s);
  if (*s != kinds[i].reg || !parse_uint(s + 1, &s, &p[1]))
    return fail(a, "root_parameter %s: expected %c0, %c1, ...", w, kinds[i].reg, kinds[i].reg);
  p[0] = kinds[i].type;
  p[2] = 0;
  if (p[0] == 1) {
    s = skip_space(s);
    if (!parse_uint(s, &s, &p[2]) || p[2] == 0 || p[2] > 64)
      return fail(a, "root_parameter constants: expected a count of 32-bit values (1..64)");
  }
  if (*skip_space(s)) return fail(a, "unexpected '%.16s'", skip_space(s));
  a->nrs_params++;
  return 0;
}

static int statement(assembler *a, const char *line) {
  char name[MAX_NAME] = "";
  const char *s = word(line, name, sizeof name);
  int r;
  if (!name[0]) {
    if (*skip_space(line)) return fail(a, "unexpected '%.16s'", skip_space(line));
    return 0;
  }
  r = target_line(a, name);
  if (r != -2) {
    if (r == 0 && *skip_space(s)) return fail(a, "unexpected '%.16s' after the target", skip_space(s));
    return r;
  }
  if (!a->have_target) return fail(a, "the target (e.g. vs_5_0) comes first");
  if (strcmp(name, "input") == 0) return element_line(a, 1, s);
  if (strcmp(name, "output") == 0) return element_line(a, 0, s);
  if (strcmp(name, "root_signature") == 0) return root_signature_line(a, s);
  if (strcmp(name, "root_parameter") == 0) return root_parameter_line(a, s);
  if (a->dxil) return fail(a, "shader model 6 containers hold no instructions here (no DXIL compiler)");
  if (strncmp(name, "dcl_", 4) == 0) return declaration(a, name, s);
  return instruction(a, name, s);
}

/* ---------------------------------------------------------------- */
/* Container                                                         */
/* ---------------------------------------------------------------- */

typedef struct bytes {
  unsigned char *p;
  size_t n, cap;
  int oom;
} bytes;

static void put(bytes *b, const void *data, size_t n) {
  if (b->oom) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    unsigned char *p;
    while (cap < b->n + n) cap *= 2;
    p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  if (data) memcpy(b->p + b->n, data, n);
  else memset(b->p + b->n, 0, n);
  b->n += n;
}

static void put32(bytes *b, uint32_t v) {
  unsigned char x[4];
  x[0] = (unsigned char)v;
  x[1] = (unsigned char)(v >> 8);
  x[2] = (unsigned char)(v >> 16);
  x[3] = (unsigned char)(v >> 24);
  put(b, x, 4);
}

static void set32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
}

/* One signature chunk body: ISGN/OSGN elements (24 bytes) or ISG1/OSG1
** (32 bytes: stream first, minimum precision last). */
static void signature(bytes *b, const element *e, size_t n, int v1, int input) {
  size_t stride = v1 ? 32 : 24, i, name_at = 8 + stride * n;
  put32(b, (uint32_t)n);
  put32(b, 8);
  for (i = 0; i < n; i++) {
    unsigned char m[4] = { e[i].mask, (unsigned char)(input ? e[i].mask : 0), 0, 0 };
    if (v1) put32(b, 0);
    put32(b, (uint32_t)name_at);
    put32(b, e[i].index);
    put32(b, e[i].sysval);
    put32(b, e[i].comp);
    put32(b, e[i].reg);
    put(b, m, 4);
    if (v1) put32(b, 0);
    name_at += strlen(e[i].name) + 1;
  }
  for (i = 0; i < n; i++) put(b, e[i].name, strlen(e[i].name) + 1);
  while (b->n % 4) put(b, NULL, 1);
}

static int build(assembler *a, dxbc_asm_blob *out) {
  bytes chunk[4];
  uint32_t fourcc[4];
  bytes c = { 0 };
  size_t i, at, nchunks = 3;
  uint8_t digest[16];
  int oom;
  memset(chunk, 0, sizeof chunk);
  fourcc[0] = a->dxil ? PSOC_FOURCC('I', 'S', 'G', '1') : PSOC_FOURCC('I', 'S', 'G', 'N');
  fourcc[1] = a->dxil ? PSOC_FOURCC('O', 'S', 'G', '1') : PSOC_FOURCC('O', 'S', 'G', 'N');
  signature(&chunk[0], a->in, a->nin, a->dxil, 1);
  signature(&chunk[1], a->out, a->nout, a->dxil, 0);
  if (a->dxil) {
    /* Program header, DXIL header, bitcode wrapper header (no module). */
    fourcc[2] = PSOC_FOURCC('D', 'X', 'I', 'L');
    put32(&chunk[2], a->program << 16 | a->major << 4 | a->minor);
    put32(&chunk[2], 11);                           /* size in dwords */
    put32(&chunk[2], PSOC_FOURCC('D', 'X', 'I', 'L'));
    put32(&chunk[2], 0x100u | a->minor);            /* DXIL 1.x */
    put32(&chunk[2], 16);                           /* bitcode offset */
    put32(&chunk[2], 20);                           /* bitcode size */
    put32(&chunk[2], 0x0b17c0deu);                  /* wrapper magic */
    put32(&chunk[2], 0);                            /* wrapper version */
    put32(&chunk[2], 20);                           /* module offset */
    put32(&chunk[2], 0);                            /* module size: none */
    put32(&chunk[2], 0);                            /* CPU type */
  } else {
    size_t k;
    fourcc[2] = a->major >= 5 ? PSOC_FOURCC('S', 'H', 'E', 'X') : PSOC_FOURCC('S', 'H', 'D', 'R');
    for (i = 0; i < a->nin; i++)
      if (declare_element(a, &a->in[i], 1)) return -1;
    for (i = 0; i < a->nout; i++)
      if (declare_element(a, &a->out[i], 0)) return -1;
    if (a->max_temp >= 0) {
      emit(&a->decls, OP_DCL_TEMPS | 2u << 24);
      emit(&a->decls, (uint32_t)a->max_temp + 1);
    }
    if (a->decls.oom || a->body.oom) return fail(a, "out of memory");
    put32(&chunk[2], a->program << 16 | a->major << 4 | a->minor);
    put32(&chunk[2], (uint32_t)(2 + a->decls.n + a->body.n));
    for (k = 0; k < a->decls.n; k++) put32(&chunk[2], a->decls.p[k]);
    for (k = 0; k < a->body.n; k++) put32(&chunk[2], a->body.p[k]);
  }
  if (a->have_rs) {
    /* RTS0 1.0: header, parameters (type, visibility all, payload offset),
    ** payloads (register, space[, count]); no static samplers. */
    size_t k, payload = 24 + 12 * a->nrs_params;
    fourcc[3] = PSOC_FOURCC('R', 'T', 'S', '0');
    nchunks = 4;
    put32(&chunk[3], 1);
    put32(&chunk[3], (uint32_t)a->nrs_params);
    put32(&chunk[3], 24);
    put32(&chunk[3], 0);
    put32(&chunk[3], 0);
    put32(&chunk[3], a->rs_flags);
    for (k = 0; k < a->nrs_params; k++) {
      put32(&chunk[3], a->rs_params[k][0]);
      put32(&chunk[3], 0);
      put32(&chunk[3], (uint32_t)payload);
      payload += a->rs_params[k][0] == 1 ? 12 : 8;
    }
    for (k = 0; k < a->nrs_params; k++) {
      put32(&chunk[3], a->rs_params[k][1]);
      put32(&chunk[3], 0);
      if (a->rs_params[k][0] == 1) put32(&chunk[3], a->rs_params[k][2]);
    }
  }
  put(&c, "DXBC", 4);
  put(&c, NULL, 16);
  put32(&c, 1);
  put32(&c, 0);
  put32(&c, (uint32_t)nchunks);
  at = c.n;
  put(&c, NULL, 4 * nchunks);
  for (i = 0; i < nchunks; i++) {
    if (!c.oom) set32(c.p + at + 4 * i, (uint32_t)c.n);
    put32(&c, fourcc[i]);
    put32(&c, (uint32_t)chunk[i].n);
    put(&c, chunk[i].p, chunk[i].n);
  }
  oom = c.oom || chunk[0].oom || chunk[1].oom || chunk[2].oom || chunk[3].oom;
  for (i = 0; i < 4; i++) free(chunk[i].p);
  if (oom) {
    free(c.p);
    return fail(a, "out of memory");
  }
  set32(c.p + 24, (uint32_t)c.n);
  psoc_dxbc_checksum(c.p, c.n, digest);
  memcpy(c.p + 4, digest, 16);
  out->data = c.p;
  out->size = c.n;
  return 0;
}

int dxbc_asm(const char *src, size_t len, dxbc_asm_blob *out, char *err, size_t errlen) {
  assembler a;
  size_t pos = 0;
  int rc = 0;
  if (err && errlen) err[0] = '\0';
  if (!out) return -1;
  out->data = NULL;
  out->size = 0;
  memset(&a, 0, sizeof a);
  a.err = err;
  a.errlen = errlen;
  a.max_temp = -1;
  a.last_opcode = ~0u;
  if (!src) return fail(&a, "no source");
  while (pos < len && rc == 0) {
    char line[MAX_LINE] = "";
    size_t n = 0;
    char *c;
    a.line++;
    while (pos < len && src[pos] != '\n') {
      if (src[pos] == '\0') {
        rc = fail(&a, "NUL byte in the source");
        break;
      }
      if (n + 1 >= sizeof line) {
        rc = fail(&a, "line longer than %d characters", MAX_LINE - 1);
        break;
      }
      line[n++] = src[pos++];
    }
    if (rc) break;
    pos++;
    line[n] = '\0';
    if ((c = strchr(line, ';')) != NULL) *c = '\0';
    if ((c = strstr(line, "//")) != NULL) *c = '\0';
    rc = statement(&a, line);
  }
  if (rc == 0 && !a.have_target) rc = fail(&a, "no target (e.g. vs_5_0)");
  if (rc == 0 && !a.dxil && a.last_opcode != OP_RET) rc = fail(&a, "the program must end with ret");
  if (rc == 0 && a.program == PSOC_PROGRAM_CS && !a.dxil && !a.have_thread_group)
    rc = fail(&a, "a compute shader needs dcl_thread_group");
  if (rc == 0) rc = build(&a, out);
  free(a.decls.p);
  free(a.body.p);
  return rc;
}

void dxbc_asm_free(dxbc_asm_blob *blob) {
  if (!blob) return;
  free(blob->data);
  blob->data = NULL;
  blob->size = 0;
}
