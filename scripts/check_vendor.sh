#!/usr/bin/env bash
# Checks that the vendored Lua matcher is upstream Lua 5.4.4 plus the
# recorded psoc hook lines and nothing else:
#
#   scripts/check_vendor.sh               check vendor/lua-5.4.4
#   scripts/check_vendor.sh --self-test   also show that a stray edit fails
#
# Always (no upstream source needed): every line vendor/lua-5.4.4/psoc.patch
# adds carries a "psoc" mark; reversing the patch on lstrlib_match.c (no
# fuzz) gives back text whose SHA-256 is the upstream extract's recorded in
# vendor/lua-5.4.4/UPSTREAM, and applying it again gives lstrlib_match.c
# byte for byte. When Lua 5.4.4's src/lstrlib.c is at hand ($PSOC_LUA_SRC,
# a folder holding it, or build/windows/lua/src from scripts/windows.sh),
# also: that file's SHA-256 is the recorded one and the recorded line
# ranges of it are the extract. Run by scripts/lint.sh (tool "vendor").
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
DIR=vendor/lua-5.4.4

field() { awk -v k="$1" '$1 == k { print $2 }' "$DIR/UPSTREAM"; }

# check VENDORED_FILE PATCH: prints each problem, exit status 1 on any.
check() {
    local file=$1 patchf=$2 tmp bad=0 want got
    tmp=$(mktemp -d)
    # Only marked lines may be added ("+++" is the header).
    if grep -n '^+' "$patchf" | grep -v '^[0-9]*:+++ ' | grep -v 'psoc' >"$tmp/unmarked"; then
        printf '%s: a line the patch adds has no psoc mark:\n' "$patchf"
        sed 's/^/    /' "$tmp/unmarked"
        bad=1
    fi
    cp "$file" "$tmp/up.c"
    if ! patch --quiet --silent -R --fuzz=0 --no-backup-if-mismatch -r - "$tmp/up.c" <"$patchf" \
        >/dev/null 2>&1; then
        printf '%s: %s does not reverse-apply cleanly\n' "$file" "$patchf"
        bad=1
    else
        want=$(field extract_sha256)
        got=$(sha256sum "$tmp/up.c" | cut -d' ' -f1)
        if [[ $got != "$want" ]]; then
            printf '%s: without the psoc patch it is not the upstream extract (sha256 %s, want %s)\n' \
                "$file" "$got" "$want"
            bad=1
        fi
        cp "$tmp/up.c" "$tmp/again.c"
        patch --quiet --silent --fuzz=0 --no-backup-if-mismatch -r - "$tmp/again.c" <"$patchf" \
            >/dev/null 2>&1
        if ! cmp -s "$tmp/again.c" "$file"; then
            printf '%s: it differs from the upstream extract by more than %s\n' "$file" "$patchf"
            bad=1
        fi
    fi
    rm -rf "$tmp"
    return $bad
}

# The upstream extract from src/lstrlib.c, when the source is at hand.
check_upstream() {
    local src="" cand got want range first=1
    for cand in "${PSOC_LUA_SRC:-}" "${PSOC_LUA_SRC:-}/lstrlib.c" build/windows/lua/src/lstrlib.c; do
        [[ -n $cand && -f $cand ]] && {
            src=$cand
            break
        }
    done
    if [[ -z $src ]]; then
        printf 'vendor: upstream lstrlib.c not found here (PSOC_LUA_SRC); checked against the recorded hashes\n'
        return 0
    fi
    got=$(sha256sum "$src" | cut -d' ' -f1)
    want=$(field file_sha256)
    if [[ $got != "$want" ]]; then
        printf '%s: not Lua %s lstrlib.c (sha256 %s, want %s)\n' "$src" "$(field version)" "$got" "$want"
        return 1
    fi
    got=$(for range in $(field lines); do
        ((first)) || printf '\n\n'
        first=0
        sed -n "${range/-/,}p" "$src"
    done | sha256sum | cut -d' ' -f1)
    want=$(field extract_sha256)
    if [[ $got != "$want" ]]; then
        printf '%s: the recorded line ranges are not the extract (sha256 %s, want %s)\n' "$src" "$got" "$want"
        return 1
    fi
    printf 'vendor: %s is Lua %s; the extract matches\n' "$src" "$(field version)"
}

rc=0
check "$DIR/lstrlib_match.c" "$DIR/psoc.patch" || rc=1
check_upstream || rc=1

if [[ ${1:-} == --self-test ]]; then
    tmp=$(mktemp -d)
    # An unmarked change to the matcher must fail...
    sed 's/if (\*s == e) {/if (*s == e \&\& 1) {/' "$DIR/lstrlib_match.c" >"$tmp/edited.c"
    cmp -s "$tmp/edited.c" "$DIR/lstrlib_match.c" && printf 'vendor self-test: the edit did not apply\n'
    if check "$tmp/edited.c" "$DIR/psoc.patch" >/dev/null; then
        printf 'vendor self-test: an edit outside the patch passed\n'
        rc=1
    fi
    # ... and so must a patch that adds an unmarked line.
    diff -u "$DIR/lstrlib_match.c" "$tmp/edited.c" | cat "$DIR/psoc.patch" - >"$tmp/p"
    if check "$tmp/edited.c" "$tmp/p" >/dev/null; then
        printf 'vendor self-test: an unmarked added line passed\n'
        rc=1
    fi
    rm -rf "$tmp"
fi
exit $rc
