/*
** dxbc.c: the DXBC/DXIL container reader and its checksum.
**
** Layout: "DXBC", a 16-byte digest, u32 version (1), u32 total size, u32
** chunk count, u32 chunk offsets; each chunk is a fourcc, a u32 size and
** the data. Every read goes through rd32() against a known bound.
*/
#include <string.h>

#include "dxbc.h"
#include "psoc.h" /* psoc_shader_checksum (PSOC_API) */

static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* ---- the checksum: MD5 (RFC 1321) with DXBC's own final block -------- */

#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

/* The four round functions (F1 and F2 in their one-AND-fewer forms) and
** one step; every step written out, the message words loaded once. */
#define F1(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define F2(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))
#define F3(x, y, z) ((x) ^ (y) ^ (z))
#define F4(x, y, z) ((y) ^ ((x) | ~(z)))
#define STEP(f, a, b, c, d, w, k, s) \
  ((a) += f((b), (c), (d)) + (w) + (uint32_t)(k), (a) = ROTL((a), (s)) + (b))

/* MD5's compression function over 'blocks' consecutive 64-byte blocks. */
static void md5_blocks(uint32_t st[4], const unsigned char *p, size_t blocks) {
  uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
  for (; blocks; blocks--, p += 64) {
    uint32_t m[16], a0 = a, b0 = b, c0 = c, d0 = d;
    unsigned i;
    for (i = 0; i < 16; i++) m[i] = rd32(p + 4 * i);
  STEP(F1, a, b, c, d, m[ 0], 0xd76aa478,  7);
  STEP(F1, d, a, b, c, m[ 1], 0xe8c7b756, 12);
  STEP(F1, c, d, a, b, m[ 2], 0x242070db, 17);
  STEP(F1, b, c, d, a, m[ 3], 0xc1bdceee, 22);
  STEP(F1, a, b, c, d, m[ 4], 0xf57c0faf,  7);
  STEP(F1, d, a, b, c, m[ 5], 0x4787c62a, 12);
  STEP(F1, c, d, a, b, m[ 6], 0xa8304613, 17);
  STEP(F1, b, c, d, a, m[ 7], 0xfd469501, 22);
  STEP(F1, a, b, c, d, m[ 8], 0x698098d8,  7);
  STEP(F1, d, a, b, c, m[ 9], 0x8b44f7af, 12);
  STEP(F1, c, d, a, b, m[10], 0xffff5bb1, 17);
  STEP(F1, b, c, d, a, m[11], 0x895cd7be, 22);
  STEP(F1, a, b, c, d, m[12], 0x6b901122,  7);
  STEP(F1, d, a, b, c, m[13], 0xfd987193, 12);
  STEP(F1, c, d, a, b, m[14], 0xa679438e, 17);
  STEP(F1, b, c, d, a, m[15], 0x49b40821, 22);
  STEP(F2, a, b, c, d, m[ 1], 0xf61e2562,  5);
  STEP(F2, d, a, b, c, m[ 6], 0xc040b340,  9);
  STEP(F2, c, d, a, b, m[11], 0x265e5a51, 14);
  STEP(F2, b, c, d, a, m[ 0], 0xe9b6c7aa, 20);
  STEP(F2, a, b, c, d, m[ 5], 0xd62f105d,  5);
  STEP(F2, d, a, b, c, m[10], 0x02441453,  9);
  STEP(F2, c, d, a, b, m[15], 0xd8a1e681, 14);
  STEP(F2, b, c, d, a, m[ 4], 0xe7d3fbc8, 20);
  STEP(F2, a, b, c, d, m[ 9], 0x21e1cde6,  5);
  STEP(F2, d, a, b, c, m[14], 0xc33707d6,  9);
  STEP(F2, c, d, a, b, m[ 3], 0xf4d50d87, 14);
  STEP(F2, b, c, d, a, m[ 8], 0x455a14ed, 20);
  STEP(F2, a, b, c, d, m[13], 0xa9e3e905,  5);
  STEP(F2, d, a, b, c, m[ 2], 0xfcefa3f8,  9);
  STEP(F2, c, d, a, b, m[ 7], 0x676f02d9, 14);
  STEP(F2, b, c, d, a, m[12], 0x8d2a4c8a, 20);
  STEP(F3, a, b, c, d, m[ 5], 0xfffa3942,  4);
  STEP(F3, d, a, b, c, m[ 8], 0x8771f681, 11);
  STEP(F3, c, d, a, b, m[11], 0x6d9d6122, 16);
  STEP(F3, b, c, d, a, m[14], 0xfde5380c, 23);
  STEP(F3, a, b, c, d, m[ 1], 0xa4beea44,  4);
  STEP(F3, d, a, b, c, m[ 4], 0x4bdecfa9, 11);
  STEP(F3, c, d, a, b, m[ 7], 0xf6bb4b60, 16);
  STEP(F3, b, c, d, a, m[10], 0xbebfbc70, 23);
  STEP(F3, a, b, c, d, m[13], 0x289b7ec6,  4);
  STEP(F3, d, a, b, c, m[ 0], 0xeaa127fa, 11);
  STEP(F3, c, d, a, b, m[ 3], 0xd4ef3085, 16);
  STEP(F3, b, c, d, a, m[ 6], 0x04881d05, 23);
  STEP(F3, a, b, c, d, m[ 9], 0xd9d4d039,  4);
  STEP(F3, d, a, b, c, m[12], 0xe6db99e5, 11);
  STEP(F3, c, d, a, b, m[15], 0x1fa27cf8, 16);
  STEP(F3, b, c, d, a, m[ 2], 0xc4ac5665, 23);
  STEP(F4, a, b, c, d, m[ 0], 0xf4292244,  6);
  STEP(F4, d, a, b, c, m[ 7], 0x432aff97, 10);
  STEP(F4, c, d, a, b, m[14], 0xab9423a7, 15);
  STEP(F4, b, c, d, a, m[ 5], 0xfc93a039, 21);
  STEP(F4, a, b, c, d, m[12], 0x655b59c3,  6);
  STEP(F4, d, a, b, c, m[ 3], 0x8f0ccc92, 10);
  STEP(F4, c, d, a, b, m[10], 0xffeff47d, 15);
  STEP(F4, b, c, d, a, m[ 1], 0x85845dd1, 21);
  STEP(F4, a, b, c, d, m[ 8], 0x6fa87e4f,  6);
  STEP(F4, d, a, b, c, m[15], 0xfe2ce6e0, 10);
  STEP(F4, c, d, a, b, m[ 6], 0xa3014314, 15);
  STEP(F4, b, c, d, a, m[13], 0x4e0811a1, 21);
  STEP(F4, a, b, c, d, m[ 4], 0xf7537e82,  6);
  STEP(F4, d, a, b, c, m[11], 0xbd3af235, 10);
  STEP(F4, c, d, a, b, m[ 2], 0x2ad7d2bb, 15);
  STEP(F4, b, c, d, a, m[ 9], 0xeb86d391, 21);
    a += a0;
    b += b0;
    c += c0;
    d += d0;
  }
  st[0] = a;
  st[1] = b;
  st[2] = c;
  st[3] = d;
}

#undef STEP
#undef F1
#undef F2
#undef F3
#undef F4

static void md5_block(uint32_t st[4], const unsigned char block[64]) { md5_blocks(st, block, 1); }

static void wr32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
}

/* DXBC's variant differs from MD5 only in the last block(s): the bit count
** goes first (before the trailing bytes) instead of last, and the last word
** is (bits >> 2) | 1. */
void psoc_dxbc_checksum(const void *data, size_t size, uint8_t out[16]) {
  const unsigned char *p = (const unsigned char *)data + 20;
  uint32_t st[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };
  size_t n = size - 20, full = n & ~(size_t)63, left = n - full, i;
  uint32_t bits = (uint32_t)(n * 8);
  unsigned char block[64];
  md5_blocks(st, p, full / 64);
  memset(block, 0, sizeof block);
  if (left >= 56) {
    memcpy(block, p + full, left);
    block[left] = 0x80;
    md5_block(st, block);
    memset(block, 0, sizeof block);
    wr32(block, bits);
    wr32(block + 60, (bits >> 2) | 1);
  } else {
    wr32(block, bits);
    memcpy(block + 4, p + full, left);
    block[4 + left] = 0x80;
    wr32(block + 60, (bits >> 2) | 1);
  }
  md5_block(st, block);
  for (i = 0; i < 4; i++) wr32(out + 4 * i, st[i]);
}

/* ---- chunks ---------------------------------------------------------- */

int psoc_dxbc_find_chunk(const psoc_dxbc *c, uint32_t fourcc, const unsigned char **chunk,
                         uint32_t *chunk_size) {
  uint32_t i;
  if (!c || !c->data || c->size < PSOC_DXBC_HEADER_SIZE) return 0;
  for (i = 0; i < c->chunk_count; i++) {
    uint32_t off = rd32(c->data + PSOC_DXBC_HEADER_SIZE + 4 * i);
    /* validated by psoc_dxbc_parse: off + 8 + size <= c->size */
    if (rd32(c->data + off) == fourcc) {
      *chunk = c->data + off + 8;
      *chunk_size = rd32(c->data + off + 4);
      return 1;
    }
  }
  return 0;
}

/* A NUL-terminated string at 'off' inside the chunk? Returns its length or -1. */
static long chunk_string(const unsigned char *chunk, uint32_t size, uint32_t off) {
  const unsigned char *nul;
  if (off >= size) return -1;
  nul = memchr(chunk + off, 0, size - off);
  return nul ? (long)(nul - (chunk + off)) : -1;
}

static int parse_signature(const unsigned char *chunk, uint32_t size, uint32_t stride,
                           int has_stream, int has_min_precision, psoc_dxbc_sig *sig) {
  uint32_t count, first, i;
  if (size < 8) return 0;
  count = rd32(chunk);
  first = rd32(chunk + 4);
  if (first > size || count > (size - first) / stride) return 0;
  for (i = 0; i < count; i++) {
    const unsigned char *e = chunk + first + (size_t)i * stride + (has_stream ? 4 : 0);
    if (chunk_string(chunk, size, rd32(e)) < 0) return 0;
  }
  sig->chunk = chunk;
  sig->size = size;
  sig->count = count;
  sig->first = first;
  sig->stride = stride;
  sig->present = 1;
  sig->has_stream = (uint8_t)has_stream;
  sig->has_min_precision = (uint8_t)has_min_precision;
  return 1;
}

int psoc_dxbc_element_get(const psoc_dxbc_sig *sig, uint32_t index, psoc_dxbc_element *out) {
  const unsigned char *e;
  uint32_t name_off;
  long len;
  if (!sig || !sig->present || index >= sig->count || !out) return 0;
  e = sig->chunk + sig->first + (size_t)index * sig->stride;
  memset(out, 0, sizeof *out);
  if (sig->has_stream) {
    out->stream = rd32(e);
    e += 4;
  }
  name_off = rd32(e);
  len = chunk_string(sig->chunk, sig->size, name_off);
  if (len < 0) return 0;
  out->name = (const char *)sig->chunk + name_off;
  out->name_len = (size_t)len;
  out->semantic_index = rd32(e + 4);
  out->system_value = rd32(e + 8);
  out->component_type = rd32(e + 12);
  out->reg = rd32(e + 16);
  out->mask = e[20];
  out->rw_mask = e[21];
  if (sig->has_min_precision) out->min_precision = rd32(e + 24);
  return 1;
}

static psoc_dxbc_error fail(psoc_dxbc *out, psoc_dxbc_error error, uint32_t offset) {
  out->error = error;
  out->error_offset = offset;
  return error;
}

/* Program chunks: SHDR/SHEX start with the version token and the length
** in dwords; DXIL adds a header with "DXIL", a version, and the bitcode
** offset and size. */
static psoc_dxbc_error parse_program(psoc_dxbc *out, uint32_t fourcc, const unsigned char *p,
                                     uint32_t size, uint32_t at) {
  uint32_t token, dwords;
  if (size < 8) return fail(out, PSOC_DXBC_BAD_PROGRAM, at);
  token = rd32(p);
  dwords = rd32(p + 4);
  if (fourcc == PSOC_FOURCC('D', 'X', 'I', 'L')) {
    uint32_t bitcode_off, bitcode_size;
    if (size < 24 || rd32(p + 8) != PSOC_FOURCC('D', 'X', 'I', 'L'))
      return fail(out, PSOC_DXBC_BAD_PROGRAM, at);
    bitcode_off = rd32(p + 16);
    bitcode_size = rd32(p + 20);
    /* the bitcode offset counts from the DXIL header (at +8) */
    if (bitcode_off > size - 8 || bitcode_size > size - 8 - bitcode_off)
      return fail(out, PSOC_DXBC_BAD_PROGRAM, at);
    out->is_dxil = 1;
  }
  if (dwords > size / 4) return fail(out, PSOC_DXBC_BAD_PROGRAM, at);
  out->has_program = 1;
  out->program_type = token >> 16;
  out->major = (token >> 4) & 0xf;
  out->minor = token & 0xf;
  return PSOC_DXBC_OK;
}

psoc_dxbc_error psoc_dxbc_parse(const void *data, size_t size, psoc_dxbc *out) {
  return psoc_dxbc_parse_known(data, size, NULL, out);
}

int psoc_shader_checksum(const void *blob, size_t size, uint8_t out[16]) {
  const unsigned char *p = blob;
  uint32_t total;
  if (!p || !out || size < PSOC_DXBC_HEADER_SIZE || rd32(p) != PSOC_FOURCC('D', 'X', 'B', 'C'))
    return -1;
  total = rd32(p + 24);
  if (total > size || total < PSOC_DXBC_HEADER_SIZE) return -1;
  psoc_dxbc_checksum(p, total, out);
  return 0;
}

psoc_dxbc_error psoc_dxbc_parse_known(const void *data, size_t size, const uint8_t *known,
                                      psoc_dxbc *out) {
  const unsigned char *p = data;
  uint32_t total, count, i, table_end;
  if (!out) return PSOC_DXBC_TOO_SMALL;
  memset(out, 0, sizeof *out);
  out->program_type = PSOC_PROGRAM_NONE;
  out->data = p;
  out->blob_size = size;
  if (!p || size < PSOC_DXBC_HEADER_SIZE) return fail(out, PSOC_DXBC_TOO_SMALL, 0);
  if (rd32(p) != PSOC_FOURCC('D', 'X', 'B', 'C')) return fail(out, PSOC_DXBC_BAD_MAGIC, 0);
  memcpy(out->digest, p + 4, 16);
  if (rd32(p + 20) != 1) return fail(out, PSOC_DXBC_BAD_VERSION, 20);
  total = rd32(p + 24);
  if (total > size || total < PSOC_DXBC_HEADER_SIZE) return fail(out, PSOC_DXBC_BAD_SIZE, 24);
  out->size = total;
  count = rd32(p + 28);
  if (count > (total - PSOC_DXBC_HEADER_SIZE) / 4) return fail(out, PSOC_DXBC_BAD_CHUNK, 28);
  table_end = PSOC_DXBC_HEADER_SIZE + 4 * count;
  for (i = 0; i < count; i++) {
    uint32_t off = rd32(p + PSOC_DXBC_HEADER_SIZE + 4 * i), csize;
    if (off < table_end || off > total || total - off < 8)
      return fail(out, PSOC_DXBC_BAD_CHUNK, PSOC_DXBC_HEADER_SIZE + 4 * i);
    csize = rd32(p + off + 4);
    if (csize > total - off - 8) return fail(out, PSOC_DXBC_BAD_CHUNK, off + 4);
  }
  out->chunk_count = count;
  {
    static const uint8_t zero[16];
    if (known) memcpy(out->computed, known, 16); /* the caller computed it (once per blob) */
    else psoc_dxbc_checksum(p, total, out->computed);
    out->digest_zero = memcmp(out->digest, zero, 16) == 0;
    out->digest_ok = memcmp(out->digest, out->computed, 16) == 0;
  }
  for (i = 0; i < count; i++) {
    uint32_t off = rd32(p + PSOC_DXBC_HEADER_SIZE + 4 * i);
    uint32_t fourcc = rd32(p + off), csize = rd32(p + off + 4);
    const unsigned char *c = p + off + 8;
    psoc_dxbc_sig *sig = NULL;
    uint32_t stride = 24;
    int stream = 0, minp = 0;
    psoc_dxbc_error e;
    switch (fourcc) {
    case PSOC_FOURCC('S', 'H', 'D', 'R'):
    case PSOC_FOURCC('S', 'H', 'E', 'X'):
    case PSOC_FOURCC('D', 'X', 'I', 'L'):
      if (out->has_program && out->is_dxil) break; /* the first DXIL part wins */
      e = parse_program(out, fourcc, c, csize, off);
      if (e != PSOC_DXBC_OK) return e;
      break;
    case PSOC_FOURCC('R', 'T', 'S', '0'):
      if (csize < 24) return fail(out, PSOC_DXBC_BAD_ROOT_SIGNATURE, off);
      out->has_root_signature = 1;
      out->root_signature_version = rd32(c);
      out->root_signature_flags = rd32(c + 20);
      break;
    case PSOC_FOURCC('I', 'S', 'G', 'N'): sig = &out->input; break;
    case PSOC_FOURCC('I', 'S', 'G', '1'): sig = &out->input; stride = 32; stream = minp = 1; break;
    case PSOC_FOURCC('O', 'S', 'G', 'N'): sig = &out->output; break;
    case PSOC_FOURCC('O', 'S', 'G', '5'): sig = &out->output; stride = 28; stream = 1; break;
    case PSOC_FOURCC('O', 'S', 'G', '1'): sig = &out->output; stride = 32; stream = minp = 1; break;
    case PSOC_FOURCC('P', 'C', 'S', 'G'): sig = &out->patch_constant; break;
    case PSOC_FOURCC('P', 'S', 'G', '1'):
      sig = &out->patch_constant; stride = 32; stream = minp = 1; break;
    default: break;
    }
    if (sig && !parse_signature(c, csize, stride, stream, minp, sig))
      return fail(out, PSOC_DXBC_BAD_SIGNATURE, off);
  }
  return PSOC_DXBC_OK;
}

const char *psoc_dxbc_error_text(psoc_dxbc_error error) {
  switch (error) {
  case PSOC_DXBC_OK: return "valid";
  case PSOC_DXBC_TOO_SMALL: return "shorter than the 32-byte container header";
  case PSOC_DXBC_BAD_MAGIC: return "does not start with 'DXBC'";
  case PSOC_DXBC_BAD_VERSION: return "container version is not 1";
  case PSOC_DXBC_BAD_SIZE: return "the container's total size exceeds BytecodeLength";
  case PSOC_DXBC_BAD_CHUNK: return "a chunk offset or size points outside the container";
  case PSOC_DXBC_BAD_PROGRAM: return "the SHDR/SHEX/DXIL program chunk is malformed";
  case PSOC_DXBC_BAD_SIGNATURE: return "a signature chunk is malformed";
  case PSOC_DXBC_BAD_ROOT_SIGNATURE: return "the RTS0 root signature chunk is truncated";
  }
  return "unknown error";
}

const char *psoc_program_type_name(uint32_t type) {
  switch (type) {
  case PSOC_PROGRAM_PS: return "pixel shader";
  case PSOC_PROGRAM_VS: return "vertex shader";
  case PSOC_PROGRAM_GS: return "geometry shader";
  case PSOC_PROGRAM_HS: return "hull shader";
  case PSOC_PROGRAM_DS: return "domain shader";
  case PSOC_PROGRAM_CS: return "compute shader";
  case PSOC_PROGRAM_LIB: return "library";
  case PSOC_PROGRAM_MS: return "mesh shader";
  case PSOC_PROGRAM_AS: return "amplification shader";
  case PSOC_PROGRAM_NONE: return "container without a program";
  }
  return "unknown program type";
}

const char *psoc_program_type_short(uint32_t type) {
  switch (type) {
  case PSOC_PROGRAM_PS: return "PS";
  case PSOC_PROGRAM_VS: return "VS";
  case PSOC_PROGRAM_GS: return "GS";
  case PSOC_PROGRAM_HS: return "HS";
  case PSOC_PROGRAM_DS: return "DS";
  case PSOC_PROGRAM_CS: return "CS";
  case PSOC_PROGRAM_LIB: return "lib";
  case PSOC_PROGRAM_MS: return "MS";
  case PSOC_PROGRAM_AS: return "AS";
  }
  return "?";
}
