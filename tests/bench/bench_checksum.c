/*
** bench_checksum.c: the DXBC container checksum (psoc_dxbc_checksum, a
** modified MD5 over bytes [20, size)) against nettle's MD5 (Debian's
** nettle-dev: C with every round written out) over the same bytes, for
** containers of 4 KB, 20 KB and 256 KB. Both hash the same number of
** 64-byte blocks (they differ only in how the last block is padded).
**
** bench_checksum_main(quick) prints a table and RATIO lines (psoc time /
** nettle time, median of runs); bench_checksum_loop(which, kb, n) runs
** one of them n times for --loop=checksum / checksum_nettle (callgrind).
*/
#include <nettle/md5.h>
#include <nettle/version.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dxbc.h"
#include "platform.h"

int bench_checksum_main(int quick);
void bench_checksum_loop(int which, size_t kb, long n);

static volatile uint32_t sink;

static unsigned char *buffer(size_t size) {
  unsigned char *p = malloc(size);
  size_t i;
  if (!p) return NULL;
  for (i = 0; i < size; i++) p[i] = (unsigned char)(i * 31 + (i >> 8));
  memcpy(p, "DXBC", 4);
  return p;
}

static void run(int which, const unsigned char *p, size_t size) {
  uint8_t out[16];
  if (which == 0) {
    psoc_dxbc_checksum(p, size, out);
  } else {
    struct md5_ctx ctx;
    md5_init(&ctx);
    md5_update(&ctx, size - 20, p + 20);
    md5_digest(&ctx, sizeof out, out);
  }
  sink += out[0];
}

void bench_checksum_loop(int which, size_t kb, long n) {
  unsigned char *p = buffer(kb * 1024);
  long i;
  if (!p) return;
  for (i = 0; i < n; i++) run(which, p, kb * 1024);
  free(p);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median ns per call of 'runs' runs of 'iters' calls each. */
static double measure(int which, const unsigned char *p, size_t size, int runs, long iters) {
  double t[16];
  int r;
  long i;
  for (i = 0; i < iters / 10 + 1; i++) run(which, p, size); /* warm-up */
  for (r = 0; r < runs; r++) {
    uint64_t t0 = psoc_plat_now_ns();
    for (i = 0; i < iters; i++) run(which, p, size);
    t[r] = (double)(psoc_plat_now_ns() - t0) / (double)iters;
  }
  qsort(t, (size_t)runs, sizeof t[0], cmp);
  return t[runs / 2];
}

int bench_checksum_main(int quick) {
  static const size_t kbs[3] = { 4, 20, 256 };
  int runs = quick ? 3 : 7, k;
  printf("checksum: psoc_dxbc_checksum vs nettle md5 (nettle-dev %d.%d), same bytes\n\n",
         NETTLE_VERSION_MAJOR, NETTLE_VERSION_MINOR);
  printf("  %-12s %12s %12s %7s %10s\n", "container", "psoc ns", "nettle ns", "ratio", "psoc MB/s");
  for (k = 0; k < 3; k++) {
    size_t size = kbs[k] * 1024;
    unsigned char *p = buffer(size);
    long iters = (long)((quick ? 2u : 20u) * 1024 * 1024 / size) + 1;
    double a, b;
    if (!p) return 1;
    a = measure(0, p, size, runs, iters);
    b = measure(1, p, size, runs, iters);
    printf("  %-12zu %12.1f %12.1f %7.2f %10.0f\n", size, a, b, a / b, (double)size / a * 1e3);
    printf("RESULT checksum_psoc_ns %zuk %.1f\nRESULT checksum_nettle_ns %zuk %.1f\n", kbs[k], a,
           kbs[k], b);
    printf("RATIO checksum_%zuk %.2f\n", kbs[k], a / b);
    free(p);
  }
  printf("\n");
  return 0;
}
