/*
** enums_lookup.c: lookups over the generated enum tables (enums.c).
** ASCII-only case folding (never locale-dependent), no allocation.
*/
#include "enums.h"

#include <string.h>

static unsigned char fold(unsigned char c) {
  return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

static int ieq(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  while (*x && fold(*x) == fold(*y)) {
    x++;
    y++;
  }
  return fold(*x) == fold(*y);
}

/* Length of 'prefix' if 's' starts with it (case-insensitively), else 0. */
static size_t istarts(const char *s, const char *prefix, size_t prefix_len) {
  size_t i;
  for (i = 0; i < prefix_len; i++) {
    if (s[i] == '\0' || fold((unsigned char)s[i]) != fold((unsigned char)prefix[i])) return 0;
  }
  return prefix_len;
}

/* "D3D12_CULL_MODE_BACK" -> "CULL_MODE_BACK"; other names unchanged. */
static const char *strip_vendor(const char *name) {
  if (strncmp(name, "D3D12_", 6) == 0) return name + 6;
  if (strncmp(name, "DXGI_", 5) == 0) return name + 5;
  return name;
}

const psoc_enum *psoc_enum_find(const char *name) {
  size_t i;
  if (name == NULL) return NULL;
  for (i = 0; i < psoc_enum_all_count; i++) {
    const psoc_enum *e = psoc_enum_all[i];
    if (ieq(name, e->name) || ieq(name, e->key)) return e;
  }
  return NULL;
}

const psoc_enum_value *psoc_enum_value_by_value(const psoc_enum *e, uint32_t value) {
  uint32_t i;
  if (e == NULL || e->values == NULL) return NULL;
  for (i = 0; i < e->count; i++) {
    if (e->values[i].value == value) return &e->values[i];
  }
  return NULL;
}

const psoc_enum_value *psoc_enum_value_by_name(const psoc_enum *e, const char *name) {
  uint32_t i;
  unsigned char c;
  if (e == NULL || e->values == NULL || name == NULL) return NULL;
  /* Most specific first: full name, then key, then name without D3D12_/DXGI_.
  ** The first letters are compared before the call: most names differ
  ** there (a Lua conversion asks this for every enum field it reads). */
  c = fold((unsigned char)name[0]);
  for (i = 0; i < e->count; i++) {
    const char *n = e->values[i].name;
    if (fold((unsigned char)n[0]) == c && ieq(name, n)) return &e->values[i];
  }
  for (i = 0; i < e->count; i++) {
    const char *k = e->values[i].key;
    if (fold((unsigned char)k[0]) == c && ieq(name, k)) return &e->values[i];
  }
  for (i = 0; i < e->count; i++) {
    const char *n = strip_vendor(e->values[i].name);
    if (fold((unsigned char)n[0]) == c && ieq(name, n)) return &e->values[i];
  }
  return NULL;
}

/* ------------------------------------------------------------------ */
/* Suggestions                                                          */
/* ------------------------------------------------------------------ */

#define NMAX PSOC_ENUM_NAME_MAX

/* Optimal string alignment distance between a[0..la) and b[0..lb), both
** already folded, la, lb < NMAX. Three rolling rows on the stack. */
static unsigned osa_distance(const unsigned char *a, size_t la, const unsigned char *b,
                             size_t lb) {
  unsigned rows[3][NMAX + 1];
  unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
  size_t i, j;
  for (j = 0; j <= lb; j++) prev[j] = (unsigned)j;
  for (i = 1; i <= la; i++) {
    unsigned *t;
    cur[0] = (unsigned)i;
    for (j = 1; j <= lb; j++) {
      unsigned cost = a[i - 1] == b[j - 1] ? 0u : 1u;
      unsigned best = prev[j] + 1;                       /* deletion */
      if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;  /* insertion */
      if (prev[j - 1] + cost < best) best = prev[j - 1] + cost; /* substitution */
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          prev2[j - 2] + 1 < best)
        best = prev2[j - 2] + 1;                         /* transposition */
      cur[j] = best;
    }
    t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[lb];
}

/* Folded copy of a string into buf; 0 when empty or when it does not fit. */
static size_t fold_copy(const char *s, unsigned char buf[NMAX]) {
  size_t n = 0;
  while (s[n] != '\0') {
    if (n >= NMAX - 1) return 0;
    buf[n] = fold((unsigned char)s[n]);
    n++;
  }
  return n;
}

/* One spelling of the user's input (as typed, or without the prefix). */
typedef struct suggest_input {
  unsigned char text[NMAX];
  size_t len;     /* 0: not usable */
  unsigned limit; /* max(2, len / 3) */
} suggest_input;

static void input_init(suggest_input *in, const char *s) {
  in->len = fold_copy(s, in->text);
  in->limit = (unsigned)(in->len / 3);
  if (in->limit < 2) in->limit = 2;
}

#define SUGGEST_FAR ((unsigned)NMAX + 1u)

/* The smallest distance from any usable input to value v's key that is
** within that input's limit; SUGGEST_FAR when none is. */
static unsigned key_distance(const suggest_input *in, size_t n_in, const psoc_enum_value *v) {
  unsigned char kb[NMAX];
  unsigned best = SUGGEST_FAR;
  size_t lk, i;
  if (v->key == NULL) return SUGGEST_FAR;
  lk = fold_copy(v->key, kb);
  if (lk == 0) return SUGGEST_FAR;
  for (i = 0; i < n_in; i++) {
    size_t diff;
    unsigned d;
    if (in[i].len == 0) continue;
    diff = lk > in[i].len ? lk - in[i].len : in[i].len - lk;
    if (diff > in[i].limit) continue; /* the distance is at least diff */
    d = osa_distance(in[i].text, in[i].len, kb, lk);
    if (d <= in[i].limit && d < best) best = d;
  }
  return best;
}

size_t psoc_enum_suggest(const psoc_enum *e, const char *wrong, const char **out, size_t max) {
  suggest_input in[2];
  size_t n_in = 1, stored, i, at_cutoff;
  size_t hist[NMAX + 1];
  size_t slot[NMAX + 1];
  unsigned limit, cutoff, d;

  if (e == NULL || e->values == NULL || e->count == 0 || wrong == NULL || out == NULL ||
      max == 0)
    return 0;

  input_init(&in[0], wrong);

  /* Also try the input without the values' common prefix
  ** ("D3D12_CULL_MODE_" or "CULL_MODE_"), taken from the first value: its
  ** name minus its key. Both spellings count ("blend_factor" is a key of
  ** D3D12_BLEND although it starts with "BLEND_"). */
  if (e->values[0].name != NULL && e->values[0].key != NULL) {
    const char *full = e->values[0].name;
    size_t ln = strlen(full), lk = strlen(e->values[0].key);
    if (ln > lk) {
      size_t lfull = ln - lk, lvendor = (size_t)(strip_vendor(full) - full), skip;
      skip = istarts(wrong, full, lfull);
      if (skip == 0 && lvendor < lfull) skip = istarts(wrong, full + lvendor, lfull - lvendor);
      if (skip > 0) input_init(&in[n_in++], wrong + skip);
    }
  }

  limit = 0;
  for (i = 0; i < n_in; i++) {
    if (in[i].len > 0 && in[i].limit > limit) limit = in[i].limit;
  }
  if (limit == 0) return 0; /* nothing usable: empty or too long */

  /* Pass 1: how many keys at each distance (limit < NMAX). */
  memset(hist, 0, sizeof hist);
  for (i = 0; i < e->count; i++) {
    d = key_distance(in, n_in, &e->values[i]);
    if (d <= limit) hist[d]++;
  }

  /* The largest distance still needed to fill 'max' slots. */
  stored = 0;
  cutoff = 0;
  for (d = 0; d <= limit; d++) {
    slot[d] = stored;
    stored += hist[d];
    cutoff = d;
    if (stored >= max) break;
  }
  if (stored == 0) return 0;
  if (stored > max) stored = max;
  at_cutoff = stored - slot[cutoff]; /* how many of the cutoff distance fit */

  /* Pass 2: place each key, in table order, into its distance's slots
  ** (a counting sort, so ties keep table order). */
  for (i = 0; i < e->count; i++) {
    d = key_distance(in, n_in, &e->values[i]);
    if (d > cutoff) continue;
    if (d == cutoff) {
      if (at_cutoff == 0) continue;
      at_cutoff--;
    }
    out[slot[d]++] = e->values[i].key;
  }
  return stored;
}
