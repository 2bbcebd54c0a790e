#!/usr/bin/env bash
# psoc cook's threads under ThreadSanitizer: the worker threads (each
# material in its own state, the merge by whichever worker completes the
# prefix), the thread that loads the index and the pack beside the script
# walk, the pack read by every worker, and the thread that writes the
# cache index and frees the materials while the main thread writes the
# archive (docs/cooking.md).
#
#   tests/cook/test_cook_tsan.sh PSOC_TSAN_BINARY
#
# A cold cook (evaluations, cache entries stored), a re-cook after one edit
# (lookups by status, the merge, the index rewritten beside the archive's
# write), a cook that fails (the index's thread joined before the failure
# is reported) and one whose archive cannot be written, each with 4 jobs;
# any TSan report fails the run (halt_on_error, exit status 66), and the
# archives must be the no-cache cook's.
set -u

TEST_NAME=test_cook_tsan
# shellcheck source=tests/cli/assert.sh
. "$(dirname "${BASH_SOURCE[0]}")/../cli/assert.sh"
# shellcheck source=tests/cook/cook_assert.sh
. "$(dirname "${BASH_SOURCE[0]}")/cook_assert.sh"

export TSAN_OPTIONS=halt_on_error=1:exitcode=66:second_deadlock_stack=1
export PSOC_COOK_RACY_MS=0
RUN_TIMEOUT=300
C=$TMP/cache

expect 0 cook --no-cache --jobs 4 --profile "$PROFILE" "$MAT" -o "$TMP/ref.psoa"
expect 0 cook -v --jobs 4 --cache "$C" --profile "$PROFILE" "$MAT" -o "$TMP/a.psoa"
lacks "$ERR" "ThreadSanitizer"
same "$TMP/ref.psoa" "$TMP/a.psoa" "cold cache"
printf -- '-- edited\n' >>"$MAT/lit.lua"
expect 0 cook -v --jobs 4 --cache "$C" --profile "$PROFILE" "$MAT" -o "$TMP/a.psoa"
lacks "$ERR" "ThreadSanitizer"
has "$OUT" "\(evaluated 1, cached 7\)" "the re-cook"
same "$TMP/ref.psoa" "$TMP/a.psoa" "re-cook"
cp "$MAT/shadow.lua" "$TMP/shadow.keep"
printf 'error("broken")\n' >"$MAT/shadow.lua"
expect 1 cook -v --jobs 4 --cache "$C" --profile "$PROFILE" "$MAT" -o "$TMP/a.psoa"
lacks "$ERR" "ThreadSanitizer"
cp "$TMP/shadow.keep" "$MAT/shadow.lua"
expect 2 cook -v --jobs 4 --cache "$C" --profile "$PROFILE" "$MAT" -o "$TMP/missing/a.psoa"
lacks "$ERR" "ThreadSanitizer"

echo "$TEST_NAME: $PASSED passed, $FAILED failed$(skipped_note)"
[[ $FAILED -eq 0 ]]
