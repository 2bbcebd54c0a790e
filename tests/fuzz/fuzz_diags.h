/*
** fuzz_diags.h: invariants of a diagnostics list, shared by the fuzz
** targets (fuzz_parse.c, fuzz_script.c). Include it after defining
** REQUIRE(cond), which must not return when cond is false.
*/
#ifndef FUZZ_DIAGS_H
#define FUZZ_DIAGS_H

#include <stdint.h>
#include <string.h>

#include "psoc.h"

static int is_terminated(const char *s, size_t cap) { return memchr(s, '\0', cap) != NULL; }

/* Every diagnostic well formed (known code and severity, terminated
** strings, a message, an offset inside the 'size' bytes checked), the
** counts add up, nothing dropped, and exactly one UNALIGNED_STREAM warning
** when 'unaligned' (none otherwise). */
static void check_diags(const psoc_diags *d, size_t size, int unaligned) {
  size_t i, errors = 0, warnings = 0, notes = 0, unaligned_warnings = 0;
  REQUIRE(d->dropped == 0);
  REQUIRE(d->count == d->errors + d->warnings + d->notes);
  for (i = 0; i < d->count; i++) {
    const psoc_diag *g = &d->items[i];
    REQUIRE(g->code > 0 && g->code < PSOC_CODE_COUNT_);
    REQUIRE(is_terminated(g->field, sizeof g->field));
    REQUIRE(is_terminated(g->message, sizeof g->message));
    REQUIRE(g->message[0] != '\0');
    REQUIRE(g->subobject >= -1);
    REQUIRE(g->offset >= -1 && (g->offset == -1 || (uint64_t)g->offset < (uint64_t)size));
    if (g->code == PSOC_CODE_UNALIGNED_STREAM) {
      REQUIRE(g->severity == PSOC_SEVERITY_WARNING);
      unaligned_warnings++;
    }
    switch (g->severity) {
    case PSOC_SEVERITY_ERROR: errors++; break;
    case PSOC_SEVERITY_WARNING: warnings++; break;
    case PSOC_SEVERITY_NOTE: notes++; break;
    default: REQUIRE(0);
    }
  }
  REQUIRE(errors == d->errors && warnings == d->warnings && notes == d->notes);
  REQUIRE(unaligned_warnings == (unaligned ? 1u : 0u));
}

#endif
