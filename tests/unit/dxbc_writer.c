/*
** dxbc_writer.c: see dxbc_writer.h. Test code: aborts on allocation failure.
*/
#include "dxbc_writer.h"

#include <stdlib.h>
#include <string.h>

#include "dxbc.h"

typedef struct buf {
  unsigned char *p;
  size_t n, cap;
} buf;

static void put(buf *b, const void *data, size_t n) {
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->n + n) cap *= 2;
    b->p = realloc(b->p, cap);
    if (!b->p) abort();
    b->cap = cap;
  }
  if (data) memcpy(b->p + b->n, data, n);
  else memset(b->p + b->n, 0, n);
  b->n += n;
}

static void put32(buf *b, uint32_t v) {
  unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                         (unsigned char)(v >> 24) };
  put(b, x, 4);
}

static void set32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
}

dw_blob dw_container(const dw_chunk *chunks, size_t count, int sign) {
  buf b = { 0 };
  size_t i, at;
  dw_blob out;
  put(&b, "DXBC", 4);
  put(&b, NULL, 16);
  put32(&b, 1);
  put32(&b, 0); /* total size, patched */
  put32(&b, (uint32_t)count);
  at = b.n;
  put(&b, NULL, 4 * count);
  for (i = 0; i < count; i++) {
    set32(b.p + at + 4 * i, (uint32_t)b.n);
    put32(&b, chunks[i].fourcc);
    put32(&b, (uint32_t)chunks[i].size);
    put(&b, chunks[i].data, chunks[i].size);
  }
  set32(b.p + 24, (uint32_t)b.n);
  out.data = b.p;
  out.size = b.n;
  if (sign) dw_resign(&out);
  return out;
}

void dw_resign(dw_blob *b) {
  uint8_t digest[16];
  if (!b->data || b->size < 32) return;
  psoc_dxbc_checksum(b->data, b->size, digest);
  memcpy(b->data + 4, digest, 16);
}

void dw_free(dw_blob *b) {
  free(b->data);
  b->data = NULL;
  b->size = 0;
}

/* xSGN (24-byte elements) or xSG1 (32-byte elements with stream and min precision). */
static buf signature(const dw_elem *e, size_t n, int v1) {
  buf b = { 0 };
  size_t stride = v1 ? 32 : 24, names = 8 + stride * n, i;
  size_t name_at = names;
  put32(&b, (uint32_t)n);
  put32(&b, 8);
  for (i = 0; i < n; i++) {
    if (v1) put32(&b, e[i].stream);
    put32(&b, (uint32_t)name_at);
    put32(&b, e[i].index);
    put32(&b, e[i].sysval);
    put32(&b, e[i].comp);
    put32(&b, e[i].reg);
    put(&b, &e[i].mask, 1);
    put(&b, &e[i].rw, 1);
    put(&b, NULL, 2);
    if (v1) put32(&b, e[i].min_precision);
    name_at += strlen(e[i].name) + 1;
  }
  for (i = 0; i < n; i++) put(&b, e[i].name, strlen(e[i].name) + 1);
  while (b.n % 4) put(&b, NULL, 1);
  return b;
}

dw_blob dw_shader(uint32_t program, uint32_t major, uint32_t minor, int dxil, const dw_elem *in,
                  size_t nin, const dw_elem *out, size_t nout, long rs_flags) {
  buf isg = signature(in, nin, dxil), osg = signature(out, nout, dxil), prog = { 0 };
  unsigned char rts[24];
  dw_chunk chunks[4];
  size_t n = 0;
  dw_blob blob;
  uint32_t token = (program << 16) | (major << 4) | minor;
  put32(&prog, token);
  if (dxil) {
    put32(&prog, 8);                   /* size in dwords */
    put32(&prog, PSOC_FOURCC('D', 'X', 'I', 'L'));
    put32(&prog, 0x100);               /* DXIL version 1.0 */
    put32(&prog, 16);                  /* bitcode offset from the DXIL header */
    put32(&prog, 8);                   /* bitcode size */
    put32(&prog, 0x0b17c0de);          /* bitcode wrapper magic (not parsed) */
    put32(&prog, 0);
  } else {
    put32(&prog, 3);                   /* size in dwords: token, length, ret */
    put32(&prog, 0x0100003e);          /* ret */
  }
  chunks[n++] = (dw_chunk){ dxil ? PSOC_FOURCC('I', 'S', 'G', '1') : PSOC_FOURCC('I', 'S', 'G', 'N'),
                            isg.p, isg.n };
  chunks[n++] = (dw_chunk){ dxil ? PSOC_FOURCC('O', 'S', 'G', '1') : PSOC_FOURCC('O', 'S', 'G', 'N'),
                            osg.p, osg.n };
  if (rs_flags >= 0) {
    set32(rts, 2);
    set32(rts + 4, 0);
    set32(rts + 8, 24);
    set32(rts + 12, 0);
    set32(rts + 16, 24);
    set32(rts + 20, (uint32_t)rs_flags);
    chunks[n++] = (dw_chunk){ PSOC_FOURCC('R', 'T', 'S', '0'), rts, sizeof rts };
  }
  chunks[n++] = (dw_chunk){ dxil ? PSOC_FOURCC('D', 'X', 'I', 'L') : PSOC_FOURCC('S', 'H', 'E', 'X'),
                            prog.p, prog.n };
  blob = dw_container(chunks, n, 1);
  free(isg.p);
  free(osg.p);
  free(prog.p);
  return blob;
}

dw_blob dw_root_signature(uint32_t flags) {
  unsigned char rts[24];
  dw_chunk c;
  set32(rts, 2);
  set32(rts + 4, 0);
  set32(rts + 8, 24);
  set32(rts + 12, 0);
  set32(rts + 16, 24);
  set32(rts + 20, flags);
  c.fourcc = PSOC_FOURCC('R', 'T', 'S', '0');
  c.data = rts;
  c.size = sizeof rts;
  return dw_container(&c, 1, 1);
}
