/* The one file that compiles XXH3 (see xxh.h). */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "xxh.h"

/* XXH3_state_t wants 64-byte alignment; the opaque buffer is larger than
 * the state by at least 63 bytes and the state sits at its first aligned
 * address. */
typedef char psoc_xxh3_state_fits[(sizeof(XXH3_state_t) + 63 <= sizeof(psoc_xxh3_state)) ? 1 : -1];

static XXH3_state_t *xxh_state(const psoc_xxh3_state *st)
{
    uintptr_t p = (uintptr_t)st->opaque;
    p = (p + 63u) & ~(uintptr_t)63u;
    return (XXH3_state_t *)p;
}

uint64_t psoc_xxh3(const void *data, size_t size)
{
    return (uint64_t)XXH3_64bits(data, size);
}

void psoc_xxh3_reset(psoc_xxh3_state *st)
{
    (void)XXH3_64bits_reset(xxh_state(st));
}

void psoc_xxh3_update(psoc_xxh3_state *st, const void *data, size_t size)
{
    if (size)
        (void)XXH3_64bits_update(xxh_state(st), data, size);
}

uint64_t psoc_xxh3_digest(const psoc_xxh3_state *st)
{
    return (uint64_t)XXH3_64bits_digest(xxh_state(st));
}

void psoc_xxh3_128(const void *data, size_t size, uint64_t *lo, uint64_t *hi)
{
    XXH128_hash_t h = XXH3_128bits(data, size);
    *lo = (uint64_t)h.low64;
    *hi = (uint64_t)h.high64;
}

void psoc_xxh3_128_reset(psoc_xxh3_state *st)
{
    (void)XXH3_128bits_reset(xxh_state(st));
}

void psoc_xxh3_128_update(psoc_xxh3_state *st, const void *data, size_t size)
{
    if (size)
        (void)XXH3_128bits_update(xxh_state(st), data, size);
}

void psoc_xxh3_128_digest(const psoc_xxh3_state *st, uint64_t *lo, uint64_t *hi)
{
    XXH128_hash_t h = XXH3_128bits_digest(xxh_state(st));
    *lo = (uint64_t)h.low64;
    *hi = (uint64_t)h.high64;
}
