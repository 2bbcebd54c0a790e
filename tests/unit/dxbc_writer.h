/*
** dxbc_writer.h: a small DXBC/DXIL container writer for the tests (and the
** fuzz seeds). Containers are signed with psoc's checksum unless asked not
** to be.
*/
#ifndef PSOC_TEST_DXBC_WRITER_H
#define PSOC_TEST_DXBC_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct dw_elem {
  const char *name;
  uint32_t index;      /* semantic index */
  uint32_t sysval;     /* D3D_NAME */
  uint32_t comp;       /* 1 uint, 2 sint, 3 float */
  uint32_t reg;
  uint8_t mask, rw;
  uint32_t stream, min_precision;
} dw_elem;

typedef struct dw_chunk {
  uint32_t fourcc;
  const void *data;
  size_t size;
} dw_chunk;

typedef struct dw_blob {
  unsigned char *data;
  size_t size;
} dw_blob;

/* A container of raw chunks, signed (sign != 0) or with a zero digest. */
dw_blob dw_container(const dw_chunk *chunks, size_t count, int sign);
/* A shader: program type (0 PS, 1 VS, ... 13 MS, 14 AS), shader model,
** DXIL (xSG1 signatures, DXIL part) or DXBC (xSGN, SHEX), input and output
** signatures, and an RTS0 root signature with 'rs_flags' when >= 0. */
dw_blob dw_shader(uint32_t program, uint32_t major, uint32_t minor, int dxil, const dw_elem *in,
                  size_t nin, const dw_elem *out, size_t nout, long rs_flags);
/* A serialized root signature (a container with only RTS0). */
dw_blob dw_root_signature(uint32_t flags);
/* Recompute the checksum after editing bytes. */
void dw_resign(dw_blob *b);
void dw_free(dw_blob *b);

#endif
