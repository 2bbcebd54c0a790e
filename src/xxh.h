/* XXH3 (64- and 128-bit) content hashing, from Debian's libxxhash-dev.
 *
 * src/xxh.c includes <xxhash.h> with XXH_INLINE_ALL, so the hash functions
 * are compiled into libpsoc: nothing is linked, and the Windows cross build
 * (Debian has no mingw-w64 libxxhash) needs only the header.  Everything
 * else in psoc hashes through these wrappers, never <xxhash.h> directly.
 * Internal to libpsoc and its bindings. */
#ifndef PSOC_XXH_H
#define PSOC_XXH_H

#include <stddef.h>
#include <stdint.h>

/* XXH3_64bits(data, size), seed 0. */
uint64_t psoc_xxh3(const void *data, size_t size);

/* Streaming XXH3-64.  The state lives in caller memory (no allocation);
 * its bytes are aligned inside the buffer by the functions. */
typedef struct psoc_xxh3_state {
    unsigned char opaque[704];
} psoc_xxh3_state;

void psoc_xxh3_reset(psoc_xxh3_state *st);
void psoc_xxh3_update(psoc_xxh3_state *st, const void *data, size_t size);
uint64_t psoc_xxh3_digest(const psoc_xxh3_state *st);

/* XXH3-128 (seed 0): one-shot, and streaming over the same state type.
 * lo/hi are XXH128_hash_t's low64/high64.  One-shot and streaming give
 * the same value for the same bytes. */
void psoc_xxh3_128(const void *data, size_t size, uint64_t *lo, uint64_t *hi);
void psoc_xxh3_128_reset(psoc_xxh3_state *st);
void psoc_xxh3_128_update(psoc_xxh3_state *st, const void *data, size_t size);
void psoc_xxh3_128_digest(const psoc_xxh3_state *st, uint64_t *lo, uint64_t *hi);

#endif
