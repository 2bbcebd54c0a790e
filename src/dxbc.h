/*
** dxbc.h: a bounds-safe reader for DXBC and DXIL shader containers
** (internal). Nothing is allocated and nothing outside [data, data + size)
** is read; signature elements are decoded on demand from chunks validated
** at parse time.
*/
#ifndef PSOC_DXBC_H
#define PSOC_DXBC_H

#include <stddef.h>
#include <stdint.h>

#define PSOC_FOURCC(a, b, c, d) \
  ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))

#define PSOC_DXBC_HEADER_SIZE 32u /* magic, digest, version, size, chunk count */

/* Program types of the version token (SHDR/SHEX/DXIL): DXIL::ShaderKind. */
enum {
  PSOC_PROGRAM_PS = 0, PSOC_PROGRAM_VS = 1, PSOC_PROGRAM_GS = 2, PSOC_PROGRAM_HS = 3,
  PSOC_PROGRAM_DS = 4, PSOC_PROGRAM_CS = 5, PSOC_PROGRAM_LIB = 6, PSOC_PROGRAM_MS = 13,
  PSOC_PROGRAM_AS = 14, PSOC_PROGRAM_NONE = 0xffffu
};

/* D3D_NAME values used by the checks. */
enum {
  PSOC_SV_UNDEFINED = 0, PSOC_SV_POSITION = 1, PSOC_SV_TARGET = 64, PSOC_SV_DEPTH = 65,
  PSOC_SV_DEPTH_GE = 67, PSOC_SV_DEPTH_LE = 68
};

typedef enum psoc_dxbc_error {
  PSOC_DXBC_OK = 0,
  PSOC_DXBC_TOO_SMALL,    /* shorter than the 32-byte header */
  PSOC_DXBC_BAD_MAGIC,    /* does not start with "DXBC" */
  PSOC_DXBC_BAD_VERSION,  /* container version is not 1 */
  PSOC_DXBC_BAD_SIZE,     /* total size larger than the blob or too small */
  PSOC_DXBC_BAD_CHUNK,    /* a chunk offset or size leaves the container */
  PSOC_DXBC_BAD_PROGRAM,  /* SHDR/SHEX/DXIL chunk too short or inconsistent */
  PSOC_DXBC_BAD_SIGNATURE,/* a signature chunk is malformed */
  PSOC_DXBC_BAD_ROOT_SIGNATURE /* RTS0 chunk too short */
} psoc_dxbc_error;

typedef struct psoc_dxbc_sig {
  const unsigned char *chunk; /* chunk data (after the 8-byte chunk header) */
  uint32_t size;              /* chunk data size */
  uint32_t count;             /* elements */
  uint32_t first;             /* offset of the first element in the chunk */
  uint32_t stride;            /* 24 (xSGN), 28 (OSG5) or 32 (xSG1) */
  uint8_t present;
  uint8_t has_stream;         /* OSG5, xSG1 */
  uint8_t has_min_precision;  /* xSG1 */
} psoc_dxbc_sig;

typedef struct psoc_dxbc_element {
  const char *name;           /* inside the blob, NUL-terminated within the chunk */
  size_t name_len;
  uint32_t semantic_index;
  uint32_t system_value;      /* D3D_NAME */
  uint32_t component_type;    /* D3D_REGISTER_COMPONENT_TYPE: 1 uint, 2 sint, 3 float */
  uint32_t reg;
  uint32_t stream;
  uint32_t min_precision;
  uint8_t mask;
  uint8_t rw_mask;            /* outputs: never written; inputs: always read */
} psoc_dxbc_element;

typedef struct psoc_dxbc {
  const unsigned char *data;
  size_t size;                /* the container's total size */
  size_t blob_size;           /* the size given by the caller */
  uint32_t chunk_count;
  uint8_t digest[16];         /* stored checksum */
  uint8_t computed[16];       /* checksum of the bytes */
  uint8_t digest_zero;        /* the container is not signed */
  uint8_t digest_ok;          /* stored == computed */
  uint8_t is_dxil;            /* has a DXIL program chunk */
  uint8_t has_program;
  uint32_t program_type;      /* PSOC_PROGRAM_*; PSOC_PROGRAM_NONE without a program */
  uint32_t major, minor;      /* shader model */
  uint8_t has_root_signature; /* RTS0 chunk */
  uint32_t root_signature_version;
  uint32_t root_signature_flags;
  psoc_dxbc_sig input, output, patch_constant;
  psoc_dxbc_error error;
  uint32_t error_offset;      /* where the problem was found */
} psoc_dxbc;

/* Parse a container. On error, 'out->error' says what and the fields read
** so far stay valid. Never reads outside [data, data + size). */
psoc_dxbc_error psoc_dxbc_parse(const void *data, size_t size, psoc_dxbc *out);
/* The same, with the checksum of the container's bytes given ('known', 16
** bytes: psoc_shader_checksum of this blob) instead of computed; NULL
** computes it. */
psoc_dxbc_error psoc_dxbc_parse_known(const void *data, size_t size, const uint8_t *known,
                                      psoc_dxbc *out);
/* Find a chunk by fourcc. Returns 1 and sets *chunk / *chunk_size. */
int psoc_dxbc_find_chunk(const psoc_dxbc *c, uint32_t fourcc, const unsigned char **chunk,
                         uint32_t *chunk_size);
/* Decode element 'index' of a parsed signature. Returns 0 past the end. */
int psoc_dxbc_element_get(const psoc_dxbc_sig *sig, uint32_t index, psoc_dxbc_element *out);
/* The container checksum: a modified MD5 over bytes [20, size). 'size'
** must be at least 20. */
void psoc_dxbc_checksum(const void *data, size_t size, uint8_t out[16]);

const char *psoc_dxbc_error_text(psoc_dxbc_error error);
const char *psoc_program_type_name(uint32_t type); /* "vertex shader", ... */
const char *psoc_program_type_short(uint32_t type); /* "VS", "PS", ... */

#endif
