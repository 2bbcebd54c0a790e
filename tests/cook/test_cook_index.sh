#!/usr/bin/env bash
# Tests of psoc cook's cache index (docs/cooking.md, "The incremental
# cache"): one CACHE/index for the whole cache, files taken as unchanged by
# their status (size, modification and change times, inode, device), the
# racy guard, and the fall-back to each entry's .dep file.
#
#   tests/cook/test_cook_index.sh PSOC_BINARY
#
# Checks that editing a shader or a module re-evaluates exactly the
# materials that read it while the others are taken by their status alone;
# that touching a file without editing it re-reads it but evaluates
# nothing; that an edit keeping the size and the modification time is
# caught (the change time); that a status recorded just after a change is
# not trusted (the racy guard); that a damaged, truncated, stale or missing
# index, or a unit replaced under its key, falls back and still gives the
# archive a cook without cache gives, byte for byte; and that kill -9 of
# cooks at any moment leaves a usable cache; that the index, written beside
# the archive, is written when the archive cannot be or a material fails.
# PSOC_COOK_RACY_MS=0 turns the
# racy guard off so that files written by the test a moment ago are taken
# by their status (the default guard, 2 s, would re-read them all).
set -u

TEST_NAME=test_cook_index
# shellcheck source=tests/cli/assert.sh
. "$(dirname "${BASH_SOURCE[0]}")/../cli/assert.sh"

# shellcheck source=tests/cook/cook_assert.sh
. "$(dirname "${BASH_SOURCE[0]}")/cook_assert.sh"
evaluated() {
    has "$OUT" "\(evaluated $1, cached $2\)" "the cache counts"
}
# stats BY_STATUS HASHED: the last -v cook's cache line
stats() {
    has "$ERR" "files unchanged by status $1, read and hashed $2;" "files by status / hashed"
}
# cook_v: a verbose cook of the example materials with the test's cache
cook_v() {
    expect 0 cook -v --jobs 2 --cache "$C" --profile "$PROFILE" "$MAT" -o "$TMP/i.psoa"
}
# reference: the archive a cook without cache makes of the materials now
reference() {
    expect 0 cook --no-cache --profile "$PROFILE" "$MAT" -o "$TMP/ref.psoa"
}

C=$TMP/cache
export PSOC_COOK_RACY_MS=0

# ---- the status path -------------------------------------------------------

test_status() {
    reference
    cook_v
    evaluated 8 0
    has "$ERR" "cache index none \(0 entries\)" "a cold cache has no index"
    has "$ERR" "index written \(8 entries\)"
    [[ -f $C/index ]] && pass || fail "no $C/index"
    same "$TMP/ref.psoa" "$TMP/i.psoa" "cold cache"
    local files
    files=$(grep -o 'read and hashed [0-9]*' "$ERR" | grep -o '[0-9]*$')
    # warm: every file by its status, nothing read, nothing written
    cook_v
    evaluated 0 8
    has "$ERR" "cache index loaded \(8 entries\)"
    stats "$files" 0
    has "$ERR" "index not rewritten"
    same "$TMP/ref.psoa" "$TMP/i.psoa" "warm cache"
    # touched, not edited: read again (its status changed), evaluated not
    touch "$MAT/shaders/lit.vs.cso"
    cook_v
    evaluated 0 8
    stats $((files - 1)) 1
    has "$ERR" "index written" "the new status is recorded"
    cook_v
    stats "$files" 0
    # a shader two materials read: exactly those two are evaluated
    local users
    users=$(grep -l '"lit\.vs"' "$MAT"/*.lua | wc -l)
    [[ $users -eq 2 ]] && pass || fail "$users materials read lit.vs.cso, expected lit and transparent"
    printf 'x' >>"$MAT/shaders/lit.vs.cso"
    run cook -v --jobs 2 --cache "$C" --profile "$PROFILE" "$MAT" -o "$TMP/i.psoa"
    count "$ERR" ": (evaluated|failed)$" "$users"
    count "$ERR" ": cached$" $((8 - users))
    has "$ERR" "/lit\.lua: (evaluated|failed)$"
    has "$ERR" "/transparent\.lua: (evaluated|failed)$"
    truncate -s -1 "$MAT/shaders/lit.vs.cso"
    cook_v
    same "$TMP/ref.psoa" "$TMP/i.psoa" "a shader edited and restored"
    # the module all but particles.lua require
    printf '\n-- edited\n' >>"$MAT/lib/common.lua"
    reference
    cook_v
    evaluated 7 1
    has "$ERR" "particles\.lua: cached$"
    same "$TMP/ref.psoa" "$TMP/i.psoa" "a module edited"
    # an edit that keeps the size and the modification time: the change
    # time differs, so the file is read and the edit found
    local script=$MAT/shadow.lua
    local inode
    inode=$(stat -c '%i' "$script")
    cp -p "$script" "$TMP/stamp"
    local off
    off=$(grep -bo 'depth only' "$script" | head -1 | cut -d: -f1)
    printf 'depth-only' | dd of="$script" bs=1 seek="$off" conv=notrunc 2>/dev/null # same inode
    cmp -s "$script" "$TMP/stamp" && fail "the edit of $script changed nothing"
    touch -r "$TMP/stamp" "$script"
    [[ $(stat -c '%s %Y' "$script") == "$(stat -c '%s %Y' "$TMP/stamp")" ]] && pass ||
        fail "the edit changed the size or the time"
    [[ $(stat -c '%i' "$script") == "$inode" ]] && pass || fail "the edit made a new file"
    reference
    cook_v
    evaluated 1 7
    has "$ERR" "shadow\.lua: evaluated$" "an edit with the old size and modification time"
    same "$TMP/ref.psoa" "$TMP/i.psoa" "an edit with the old size and time"
    # the size and both times as recorded, the inode not (a file put in
    # its place): read again, same bytes, nothing evaluated
    cp -p "$MAT/lit.lua" "$TMP/lit.copy" && mv "$TMP/lit.copy" "$MAT/lit.lua"
    cook_v
    evaluated 0 8
}

# The racy guard: a status recorded less than the guard after the file's
# last change is not trusted, whatever it says (a guard of 60 s here, so
# that a slow machine cannot outlast it; the default is 2 s).
test_racy() {
    local c=$TMP/racy
    PSOC_COOK_RACY_MS=60000 expect 0 cook -v --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/r.psoa"
    touch "$MAT"/*.lua "$MAT"/lib/*.lua "$MAT"/shaders/*
    PSOC_COOK_RACY_MS=60000 expect 0 cook -v --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/r.psoa"
    evaluated 0 8
    stats 0 "[1-9][0-9]*"
    PSOC_COOK_RACY_MS=60000 expect 0 cook -v --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/r.psoa"
    stats 0 "[1-9][0-9]*" # recorded less than 60 s after the touch: still not trusted
    # with the guard at 0 the same statuses are trusted
    expect 0 cook -v --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/r.psoa"
    stats "[1-9][0-9]*" 0
}

# ---- damage: always the exact path, never a wrong archive -------------------

test_damage() {
    reference
    cook_v
    cp "$C/index" "$TMP/index.good"
    # one byte flipped in the payload
    printf '\xff' | dd of="$C/index" bs=1 seek=200 conv=notrunc 2>/dev/null
    cook_v
    has "$ERR" "cache index damaged: not used"
    evaluated 0 8 # every entry through its .dep file
    same "$TMP/ref.psoa" "$TMP/i.psoa" "a damaged index"
    has "$ERR" "index written" "a damaged index is replaced"
    cook_v
    has "$ERR" "cache index loaded \(8 entries\)"
    # a flip anywhere (each header field, the paths, the entries, the
    # last byte): never a wrong archive, never a crash
    local off size
    size=$(stat -c %s "$TMP/index.good")
    for off in 0 8 12 16 24 32 40 48 56 64 100 $((size / 2)) $((size - 1)); do
        cp "$TMP/index.good" "$C/index"
        printf '\x5a' | dd of="$C/index" bs=1 seek="$off" conv=notrunc 2>/dev/null
        cmp -s "$C/index" "$TMP/index.good" && printf '\x5b' | dd of="$C/index" bs=1 seek="$off" conv=notrunc 2>/dev/null
        cook_v
        has "$ERR" "cache index (damaged|of another psoc): not used" "a byte flipped at $off of the index"
        same "$TMP/ref.psoa" "$TMP/i.psoa" "a byte flipped at $off of the index"
    done
    # truncated (a half-written file)
    head -c 1000 "$TMP/index.good" >"$C/index"
    cook_v
    has "$ERR" "cache index damaged: not used"
    same "$TMP/ref.psoa" "$TMP/i.psoa" "a truncated index"
    : >"$C/index"
    cook_v
    has "$ERR" "cache index damaged: not used"
    same "$TMP/ref.psoa" "$TMP/i.psoa" "an empty index"
    # another psoc's (the build field of the header)
    cp "$TMP/index.good" "$C/index"
    printf '\x00\x01' | dd of="$C/index" bs=1 seek=16 conv=notrunc 2>/dev/null
    cook_v
    has "$ERR" "cache index of another psoc: not used"
    same "$TMP/ref.psoa" "$TMP/i.psoa" "a stale index"
    # no index and no .dep files: everything evaluated again
    rm -f "$C/index" "$C"/*.dep
    cook_v
    evaluated 8 0
    same "$TMP/ref.psoa" "$TMP/i.psoa" "no index, no .dep"
    # a unit replaced under its key by another entry's unit (sizes aside):
    # the index's unit hash refuses it (units are read where the pack does
    # not serve: without one)
    rm -f "$C"/pack-*.psoa
    local -a units
    mapfile -t units < <(ls "$C"/*.unit)
    cp "${units[0]}" "${units[1]}"
    cook_v
    evaluated 1 7
    same "$TMP/ref.psoa" "$TMP/i.psoa" "a unit replaced"
    # every unit damaged: all evaluated again, correct archive
    local f
    rm -f "$C"/pack-*.psoa
    for f in "$C"/*.unit; do printf 'garbage' >"$f"; done
    cook_v
    evaluated 8 0
    same "$TMP/ref.psoa" "$TMP/i.psoa" "damaged units"
}

# kill -9 at any moment of cooks that rewrite the index: the next cook
# loads it (or has none), and its archive is the reference's.
test_kill() {
    local lib=$TMP/killlib c=$TMP/killcache i k pid
    mkdir -p "$lib/shaders"
    cp "$MAT"/shaders/cull.cs.cso "$lib/shaders/"
    for ((i = 0; i < 120; i++)); do
        printf 'return (require "pso").compute { name = "k%d", cs = (require "pso").shader "shaders/cull.cs.cso", node_mask = %d }\n' \
            "$i" $((1 << (i % 3))) >"$lib/m$i.lua"
    done
    expect 0 cook -q --jobs 2 --cache "$c" "$lib" -o "$TMP/k.psoa"
    for k in 1 2 3 4 5 6; do
        # a few scripts edited each time: the index is rewritten at the end
        for ((i = k; i < 120; i += 17)); do printf -- '-- %d\n' "$k" >>"$lib/m$i.lua"; done
        "$PSOC" cook -q --jobs 2 --cache "$c" "$lib" -o "$TMP/k.psoa" >/dev/null 2>&1 &
        pid=$!
        sleep "0.0$((k * 15 % 97))"
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        run cook -v -q --jobs 2 --cache "$c" "$lib" -o "$TMP/k.psoa"
        [[ $RC -eq 0 ]] && pass || fail "cook after kill $k: exit $RC"
        lacks "$ERR" "cache index damaged" "the index after kill -9 $k"
        expect 0 cook -q --no-cache "$lib" -o "$TMP/k.ref.psoa"
        same "$TMP/k.ref.psoa" "$TMP/k.psoa" "the archive after kill -9 $k"
    done
}

# The index is written on a thread of its own beside the archive's write
# and fsync: it is written whether the archive can be written or not, and a
# material that fails still leaves the entries of the others.
test_beside() {
    local c=$TMP/beside_cache
    reference
    # the archive cannot be written (its folder is missing): exit 2, the
    # index written all the same, and the next cook takes everything from it
    run cook -v --jobs 2 --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/missing/b.psoa"
    [[ $RC -eq 2 ]] && pass || fail "a cook into a missing folder: exit $RC, expected 2"
    has "$ERR" "cannot write"
    has "$ERR" "index written \(8 entries\)" "the index beside a failed write"
    [[ ! -e $TMP/missing ]] && pass || fail "the missing folder was made"
    expect 0 cook -v --jobs 2 --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/b.psoa"
    evaluated 0 8
    # the pack the failed cook named was never made: this cook makes it
    has "$ERR" "cache pack none; .*a new pack made"
    has "$ERR" "index written \(8 entries\)" "the index names the new pack"
    has "$ERR" "ms writing the archive; [0-9.]* ms writing the index \(beside it\)" "-v times"
    same "$TMP/ref.psoa" "$TMP/b.psoa" "after a failed write"
    expect 0 cook -v --jobs 2 --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/b.psoa"
    evaluated 0 8
    has "$ERR" "index not rewritten"
    same "$TMP/ref.psoa" "$TMP/b.psoa" "nothing to do"
    # a failing material: the index's line before the failure's, the other
    # materials' entries kept
    cp "$MAT/lit.lua" "$TMP/lit.lua.keep"
    printf 'error("broken")\n' >"$MAT/lit.lua"
    run cook -v --jobs 2 --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/b.psoa"
    [[ $RC -eq 1 ]] && pass || fail "a failing material: exit $RC, expected 1"
    local idx fl
    idx=$(grep -n "psoc cook: cache index" "$ERR" | cut -d: -f1)
    fl=$(grep -n "material(s) failed" "$ERR" | cut -d: -f1)
    [[ -n $idx && -n $fl && $idx -lt $fl ]] && pass || fail "the index line ($idx) before the failure ($fl)"
    same "$TMP/ref.psoa" "$TMP/b.psoa" "the archive left as it was"
    cp "$TMP/lit.lua.keep" "$MAT/lit.lua"
    expect 0 cook -v --jobs 2 --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/b.psoa"
    evaluated 0 8 # the script's old content: its old entry
    same "$TMP/ref.psoa" "$TMP/b.psoa" "after the failure"
}

# ---- the pack: the last archive by a second name ------------------------------

# packs DIR N: exactly N pack files in cache DIR (their names in PACKS)
packs() {
    PACKS=()
    local f
    for f in "$1"/pack-*.psoa; do [[ -e $f ]] && PACKS+=("$f"); done
    [[ ${#PACKS[@]} -eq $2 ]] && pass || fail "${#PACKS[@]} pack files in $1, expected $2: ${PACKS[*]}"
}

test_pack() {
    local c=$TMP/pack_cache out=$TMP/p.psoa first
    cook_p() { expect 0 cook -v --jobs 2 --cache "$c" --profile "$PROFILE" "$MAT" -o "$out"; }
    reference
    cook_p
    has "$ERR" "cache pack none; pipelines of 0 material\(s\) taken from it; a new pack made"
    packs "$c" 1
    same "$out" "${PACKS[0]}" "the pack is the archive written"
    first=${PACKS[0]}
    # warm: every material's pipelines from the pack; it stays
    cook_p
    evaluated 0 8
    count "$ERR" "cache pack loaded; pipelines of 8 material\(s\) taken from it$" 1
    packs "$c" 1
    [[ ${PACKS[0]} == "$first" ]] && pass || fail "the pack was replaced: ${PACKS[0]}"
    same "$TMP/ref.psoa" "$out" "from the pack"
    # an edit: that material evaluated, the rest from the pack; a new pack
    # replaces the old one
    cp "$MAT/lit.lua" "$TMP/lit.lua.pack"
    printf '\n-- edited\n' >>"$MAT/lit.lua"
    cook_p
    evaluated 1 7
    has "$ERR" "cache pack loaded; pipelines of 7 material\(s\) taken from it; a new pack made"
    packs "$c" 1
    [[ ${PACKS[0]} != "$first" ]] && pass || fail "the old pack is still there"
    same "$TMP/ref.psoa" "$out" "an edit (the archive does not change: a comment)"
    # the archive (and so the pack, the same file) changed in place: a byte
    # flipped fails the pack's checksums; every unit is read; same archive
    printf '\x5a' | dd of="$out" bs=1 seek=300 conv=notrunc 2>/dev/null
    cook_p
    evaluated 0 8
    has "$ERR" "cache pack none; pipelines of 0 material\(s\) taken from it; a new pack made"
    same "$TMP/ref.psoa" "$out" "a damaged pack"
    # another archive written over it in place (compute.lua's alone): the
    # other entries' names are not there, so their units are read; compute's
    # and the module's (no pipelines) are what it holds
    expect 0 cook --no-cache --profile "$PROFILE" "$MAT/compute.lua" -o "$TMP/other.psoa"
    cat "$TMP/other.psoa" >"$out"
    cook_p
    evaluated 0 8
    has "$ERR" "cache pack loaded; pipelines of 2 material\(s\) taken from it; a new pack made"
    same "$TMP/ref.psoa" "$out" "another archive in the pack's place"
    # no pack at all
    rm -f "$c"/pack-*.psoa
    cook_p
    has "$ERR" "cache pack none; pipelines of 0 material\(s\) taken from it; a new pack made"
    same "$TMP/ref.psoa" "$out" "the pack removed"
    # a material declaring another's pipelines alike: the archive keeps the
    # first's, so the copy's are not its own in the pack and come from its
    # unit; once the first is gone the copy's own records are used
    cp "$MAT/lit.lua" "$MAT/zz_copy.lua"
    reference
    cook_p
    cook_p
    evaluated 0 9
    has "$ERR" "pipelines of 8 material\(s\) taken from it"
    same "$TMP/ref.psoa" "$out" "a material declaring another's pipelines"
    mv "$MAT/lit.lua" "$TMP/lit.lua.moved"
    reference
    cook_p
    evaluated 0 8
    same "$TMP/ref.psoa" "$out" "the copy alone"
    rm -f "$MAT/zz_copy.lua"
    cp "$TMP/lit.lua.pack" "$MAT/lit.lua"
    # the old pack is retired, not removed: a new pack renames it to
    # retired.psoa, which the next cook removes beside its lookups, whether
    # or not that cook makes a pack
    reference
    cook_p
    packs "$c" 1
    cp "${PACKS[0]}" "$TMP/old_pack.psoa"
    printf '\n-- edited again\n' >>"$MAT/lit.lua"
    cook_p
    has "$ERR" "a new pack made"
    [[ -f $c/retired.psoa ]] && pass || fail "no retired.psoa after a new pack replaced the old one"
    same "$TMP/old_pack.psoa" "$c/retired.psoa" "the retired pack is the old pack"
    packs "$c" 1
    cook_p
    evaluated 0 8
    count "$ERR" "a new pack made" 0
    [[ ! -e $c/retired.psoa ]] && pass || fail "retired.psoa still there after the next cook"
    printf 'left over' >"$c/retired.psoa" # e.g. a cook killed before it removed it
    cook_p
    [[ ! -e $c/retired.psoa ]] && pass || fail "a left-over retired.psoa was not removed"
    same "$TMP/ref.psoa" "$out" "warm cooks after the retirement"
    cp "$TMP/lit.lua.pack" "$MAT/lit.lua"
}

test_status
test_racy
test_damage
test_kill
test_beside
test_pack

echo "$TEST_NAME: $PASSED passed, $FAILED failed$(skipped_note)"
[[ $FAILED -eq 0 ]]
