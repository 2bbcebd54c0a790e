/* The one file that compiles XXH3 (see xxh.h). */

/* ---- AVX2 for one-shot XXH3-64 (owner s5) ----
 * On x86-64 with GCC or Clang, the header's dispatch switches compile its
 * AVX2 accumulator too (with a target attribute, so the rest of the build
 * stays baseline x86-64), and psoc_xxh3 uses it for inputs past the
 * mid-size range when the CPU has AVX2: about twice the speed on archive
 * records and components. XXH3's value does not depend on the vector
 * width, so every other path (SSE2, streaming, 128-bit) agrees. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(__AVX2__)
#define PSOC_XXH_AVX2 1
#define XXH_X86DISPATCH
#define XXH_DISPATCH_AVX2 1
#define XXH_TARGET_AVX2 __attribute__((__target__("avx2")))
#include <immintrin.h> /* the AVX2 intrinsics, declared whatever -m flags */
#endif

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

#ifdef PSOC_XXH_AVX2
static XXH_TARGET_AVX2 XXH64_hash_t xxh3_long_avx2(const void *input, size_t len, XXH64_hash_t seed,
                                                   const xxh_u8 *secret, size_t secret_len)
{
    (void)seed;
    (void)secret;
    (void)secret_len;
    return XXH3_hashLong_64b_internal(input, len, XXH3_kSecret, sizeof(XXH3_kSecret),
                                      XXH3_accumulate_512_avx2, XXH3_scrambleAcc_avx2);
}
#endif

uint64_t psoc_xxh3(const void *data, size_t size)
{
#ifdef PSOC_XXH_AVX2
    if (size > XXH3_MIDSIZE_MAX && __builtin_cpu_supports("avx2"))
        return (uint64_t)XXH3_64bits_internal(data, size, 0, XXH3_kSecret, sizeof(XXH3_kSecret),
                                              xxh3_long_avx2);
#endif
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
