#!/usr/bin/env bash
# Tests of psoc's cooking commands: cook (whole archive, --unit with a
# depfile, the incremental cache, --jobs), merge, ls, verify, and the
# archive forms of dump and diff, over a copy of the example materials.
#
#   tests/cook/test_cook.sh PSOC_BINARY
#
# Checks determinism (twice; inputs reversed; another working directory;
# --jobs 1 vs 2: byte-identical archives), that a failing material leaves the
# previous archive untouched, atomicity (kill -9 during cooks, a few times:
# the previous archive stays intact and verifies), the cache (an edit of one
# script re-evaluates that one; of a shared module, exactly its users, also
# through another module; a clash with a cached material), the
# build-system mode through ninja and make -j2 (the merged archive equals
# 'psoc cook' of the folder), and inspection. Prints one line per failure
# and a summary; exits 0 only if every check passed.
set -u

TEST_NAME=test_cook
# shellcheck source=tests/cli/assert.sh
. "$(dirname "${BASH_SOURCE[0]}")/../cli/assert.sh"

# shellcheck source=tests/cook/cook_assert.sh
. "$(dirname "${BASH_SOURCE[0]}")/cook_assert.sh"

# ---- help and usage --------------------------------------------------------

test_usage() {
    local c
    for c in cook merge ls verify; do
        expect 0 "$c" --help
        has "$OUT" "^usage: psoc $c"
    done
    expect 0 dump --help
    has "$OUT" "Archives: 'psoc dump ARCHIVE \[NAME...\]'" "dump --help (the archive form)"
    expect 0 diff --help
    has "$OUT" "Archives: 'psoc diff ARCHIVE" "diff --help (the archive form)"
    expect 2 cook "$MAT"
    has "$ERR" "no output file given"
    expect 2 cook -o "$TMP/x.psoa"
    has "$ERR" "no DIR or SCRIPT given"
    expect 2 cook --depfile "$TMP/d" "$MAT/lit.lua" -o "$TMP/x.psoa"
    has "$ERR" "--depfile needs --unit"
    expect 2 cook --unit "$MAT/lit.lua" "$MAT/shadow.lua" -o "$TMP/x.unit"
    expect 2 cook --jobs 0 "$MAT" -o "$TMP/x.psoa"
    expect 2 cook --frobnicate "$MAT" -o "$TMP/x.psoa"
    expect 2 merge -o "$TMP/x.psoa"
    expect 2 cook "$TMP/missing" -o "$TMP/x.psoa"
    has "$ERR" "missing: cannot open"
    [[ ! -e $TMP/x.psoa ]] && pass || fail "a failed cook wrote $TMP/x.psoa"
}

# ---- cooking and determinism ---------------------------------------------

test_cook() {
    expect 0 cook --no-cache --profile "$PROFILE" "$MAT" -o "$TMP/a.psoa"
    has "$OUT" "^wrote .*a\.psoa: 15 pipelines from 8 materials"
    has "$OUT" "unique components"
    has "$OUT" "saved by sharing"
    lacks "$ERR" $'\r' "stderr (not a terminal: no progress bar)"
    expect 0 verify "$TMP/a.psoa"
    has "$OUT" "ok: 15 pipelines"
    # twice
    expect 0 cook --no-cache --profile "$PROFILE" "$MAT" -o "$TMP/b.psoa"
    same "$TMP/a.psoa" "$TMP/b.psoa" "cooking twice"
    # the scripts one by one, in reverse order (their own folders as roots)
    local -a files=()
    mapfile -t files < <(cd "$MAT" && find . -name '*.lua' | LC_ALL=C sort -r | sed "s|^\.|$MAT|")
    expect 0 cook --no-cache --profile "$PROFILE" "${files[@]}" -o "$TMP/c.psoa"
    same "$TMP/a.psoa" "$TMP/c.psoa" "inputs reversed"
    # another working directory, a relative path
    mkdir -p "$TMP/elsewhere/deeper"
    (cd "$TMP/elsewhere/deeper" && "$PSOC" cook --no-cache --profile "$PROFILE" ../../mat \
        -o ../../d.psoa >/dev/null 2>&1)
    same "$TMP/a.psoa" "$TMP/d.psoa" "another working directory"
    # --jobs 1 and --jobs 2
    expect 0 cook --no-cache --jobs 1 --profile "$PROFILE" "$MAT" -o "$TMP/j1.psoa"
    expect 0 cook --no-cache --jobs 2 --profile "$PROFILE" "$MAT" -o "$TMP/j2.psoa"
    same "$TMP/j1.psoa" "$TMP/j2.psoa" "--jobs 1 vs --jobs 2"
    same "$TMP/a.psoa" "$TMP/j2.psoa" "--jobs 2 vs the default"
    # the progress bar when asked for
    expect 0 cook --no-cache --progress --profile "$PROFILE" "$MAT" -o "$TMP/p.psoa"
    has "$ERR" "\[#+\] 8/8 materials" "the progress bar"
}

# A broken material fails the cook, names file, line and field, and leaves
# the previous archive as it was.
test_failure() {
    local bad=$TMP/badmat
    cp -R "$MAT" "$bad"
    cp "$TMP/a.psoa" "$TMP/prev.psoa"
    expect 0 cook --no-cache --profile "$PROFILE" "$bad" -o "$TMP/prev.psoa"
    cat >"$bad/broken.lua" <<'EOF'
local pso = require "pso"
return pso.compute {
  name = "broken",
  cs = pso.shader "shaders/cull.cs.cso",
  flags = "no_such_flag",
}
EOF
    expect 1 cook --no-cache --profile "$PROFILE" "$bad" -o "$TMP/prev.psoa"
    has "$ERR" "broken\.lua:5: .*flags" "the diagnostic (file:line: field)"
    has "$ERR" "1 of 9 material\(s\) failed; .*prev\.psoa was not written"
    same "$TMP/a.psoa" "$TMP/prev.psoa" "the previous archive after a failed cook"
    rm "$bad/broken.lua"
    # two materials declaring one pipeline name differently
    cat >"$bad/clash.lua" <<'EOF'
local pso = require "pso"
return pso.compute { name = "lit_opaque", cs = pso.shader "shaders/cull.cs.cso" }
EOF
    expect 1 cook --no-cache --profile "$PROFILE" "$bad" -o "$TMP/prev.psoa"
    has "$ERR" "is also declared, with different content, by" "the name clash"
    same "$TMP/a.psoa" "$TMP/prev.psoa" "the previous archive after a name clash"
}

# kill -9 in the middle of cooks of a larger library: the previous archive
# stays intact (and verifies) every time.
test_kill() {
    local lib=$TMP/killlib i k pid
    mkdir -p "$lib/shaders"
    cp "$MAT"/shaders/*.cso "$lib/shaders/"
    for ((i = 0; i < 150; i++)); do
        cat >"$lib/m$i.lua" <<EOF
local pso = require "pso"
local t = {}
for k = 1, 4 do
  t[k] = pso.compute { name = "m${i}_" .. k, cs = pso.shader "shaders/cull.cs.cso" }
end
return t
EOF
    done
    expect 0 cook --no-cache --jobs 2 "$lib" -o "$TMP/k.psoa"
    cp "$TMP/k.psoa" "$TMP/k.before"
    echo 'return (require "pso").compute { name = "extra", cs = (require "pso").shader "shaders/cull.cs.cso" }' >"$lib/zz.lua"
    for k in 1 2 3 4 5; do
        "$PSOC" cook --no-cache --jobs 2 "$lib" -o "$TMP/k.psoa" >/dev/null 2>&1 &
        pid=$!
        sleep "0.0$((k * 2 - 1))"
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        if cmp -s "$TMP/k.psoa" "$TMP/k.before"; then
            pass
        elif "$PSOC" verify "$TMP/k.psoa" >/dev/null 2>&1 && "$PSOC" ls "$TMP/k.psoa" | grep -q '^extra '; then
            pass # the kill came after the rename: the new archive, complete
            cp "$TMP/k.psoa" "$TMP/k.before"
        else
            fail "kill -9 during cook $k left a damaged or partial archive"
        fi
        expect 0 verify "$TMP/k.psoa"
    done
}

# The archive's two orders (docs/archive.md): pipelines by name, bytewise,
# and the hash index by hash. Names here share their first 8 bytes, are
# prefixes of one another or differ only past byte 8, and several
# pipelines have the same content (the same hash) under other names, so
# both sorts' ties are taken. The reader refuses an archive out of order;
# ls lists the names in the archive's order, which must be sort's.
test_order() {
    local lib=$TMP/orderlib n names=(abcdefgh abcdefgh1 abcdefgh10 abcdefgh2 abcdefgg abcdefghZ
        abcdefgh_ b a abcdefg abcdefghabcdefgh abcdefghabcdefgg zz z0 A)
    mkdir -p "$lib/shaders"
    cp "$MAT"/shaders/cull.cs.cso "$lib/shaders/"
    {
        echo 'local pso = require "pso"'
        echo 'local t = {}'
        for n in "${names[@]}"; do
            # two contents only: most names share a hash with others
            printf 't[#t + 1] = pso.compute { name = "%s", cs = pso.shader "shaders/cull.cs.cso", node_mask = %d }\n' \
                "$n" $((${#n} % 2 + 1))
        done
        echo 'return t'
    } >"$lib/order.lua"
    expect 0 cook --no-cache "$lib" -o "$TMP/order.psoa"
    expect 0 verify "$TMP/order.psoa"
    "$PSOC" ls "$TMP/order.psoa" | awk 'f && NF { print $1 } /^pipeline / { f = 1 } /^$/ && f > 0 && NR > 4 { exit }' \
        >"$TMP/order.ls"
    printf '%s\n' "${names[@]}" | LC_ALL=C sort >"$TMP/order.want"
    if cmp -s "$TMP/order.ls" "$TMP/order.want"; then pass; else
        fail "pipelines not in name order: $(tr '\n' ' ' <"$TMP/order.ls")"
    fi
    for n in abcdefgh abcdefgh10 abcdefghabcdefgg A; do
        expect 0 dump "$TMP/order.psoa" "$n"
    done
}

# ---- the incremental cache ---------------------------------------------------

# evaluated N: the last cook's summary says N materials were evaluated.
evaluated() {
    has "$OUT" "\(evaluated $1, cached $2\)" "the cache counts"
}

test_cache() {
    local c=$TMP/cache
    expect 0 cook -v --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/i.psoa"
    evaluated 8 0
    count "$ERR" ": evaluated$" 8
    same "$TMP/a.psoa" "$TMP/i.psoa" "a cook with the cache"
    expect 0 cook -v --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/i.psoa"
    evaluated 0 8
    count "$ERR" ": cached$" 8
    same "$TMP/a.psoa" "$TMP/i.psoa" "a cook from the cache"
    # the same content with a new time: still cached (the key is content)
    touch "$MAT/lit.lua"
    expect 0 cook --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/i.psoa"
    evaluated 0 8
    # one script edited: that one is evaluated again
    printf '\n-- edited\n' >>"$MAT/lit.lua"
    expect 0 cook -v --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/i.psoa"
    evaluated 1 7
    has "$ERR" "lit\.lua: evaluated$"
    # a shader one material reads (a check that does not read bytecode
    # passes; either way the material is evaluated again, the others not)
    printf 'x' >>"$MAT/shaders/stereo.vs.cso"
    run cook -v --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/i.psoa"
    has "$ERR" "stereo\.lua: (evaluated|failed)$" "the material whose shader changed"
    count "$ERR" ": cached$" 7
    truncate -s -1 "$MAT/shaders/stereo.vs.cso"
    # back to the bytes of the first cook: its entry was replaced, so stereo
    # is evaluated once more
    expect 0 cook -v --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/i.psoa"
    evaluated 1 7
    # the module every material requires
    printf '\n-- edited\n' >>"$MAT/lib/common.lua"
    expect 0 cook -v --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/i.psoa"
    count "$ERR" ": cached$" 1 # particles.lua does not require lib.common
    has "$ERR" "particles\.lua: cached$"
    evaluated 7 1
    # another profile is another key
    expect 0 cook --cache "$c" "$MAT" -o "$TMP/i2.psoa"
    evaluated 8 0
    # a damaged cache entry is a miss, not a wrong archive
    local f
    for f in "$c"/*.unit; do printf 'garbage' >"$f"; done
    expect 0 cook --cache "$c" --profile "$PROFILE" "$MAT" -o "$TMP/i.psoa"
    evaluated 8 0
    expect 0 verify "$TMP/i.psoa"
    # the default cache folder: next to the output
    expect 0 cook --profile "$PROFILE" "$MAT" -o "$TMP/dflt.psoa"
    [[ -d $TMP/dflt.psoa.cache ]] && pass || fail "no default cache folder $TMP/dflt.psoa.cache"
    cp -R scripts/materials/. "$MAT/" && rm -f "$MAT/build.ninja" "$MAT/cook.mk"
}

# Modules: an edit of a module re-evaluates exactly the materials that read
# it (also through another module), and the archive made from the cache is
# the one a cook without it makes; a partly warm cache with --jobs 3 gives
# the bytes of --jobs 1 without it. Merging copies units: a pipeline two
# materials declare alike is kept once, a clash names both materials.
test_cache_modules() {
    local r=$TMP/modlib c=$TMP/modcache
    mkdir -p "$r/mods" "$r/shaders"
    cp "$MAT"/shaders/cull.cs.cso "$r/shaders/"
    echo 'return { mask = 1 }' >"$r/mods/inner.lua"
    printf '%s\n' 'local pso = require "pso"' \
        'return function(name) return pso.compute { name = name, cs = pso.shader "shaders/cull.cs.cso" } end' \
        >"$r/mods/a.lua"
    printf '%s\n' 'local pso = require "pso"' 'local inner = require "mods.inner"' \
        'return function(name)' \
        '  return pso.compute { name = name, cs = pso.shader "shaders/cull.cs.cso", node_mask = inner.mask }' \
        'end' >"$r/mods/b.lua"
    echo 'return (require "mods.a")("ra")' >"$r/ra.lua"
    echo 'return (require "mods.b")("rb")' >"$r/rb.lua"
    echo 'return { (require "mods.a")("rab1"), (require "mods.b")("rab2") }' >"$r/rab.lua"
    echo 'return (require "pso").compute { name = "none", cs = (require "pso").shader "shaders/cull.cs.cso" }' >"$r/none.lua"
    local -a in=(--root "$r" "$r/none.lua" "$r/ra.lua" "$r/rab.lua" "$r/rb.lua")
    expect 0 cook -v --cache "$c" "${in[@]}" -o "$TMP/mod.psoa"
    evaluated 4 0
    # the module b requires: rb and rab (through b), not ra or none
    echo 'return { mask = 2 }' >"$r/mods/inner.lua"
    expect 0 cook -v --jobs 2 --cache "$c" "${in[@]}" -o "$TMP/mod.psoa"
    evaluated 2 2
    count "$ERR" ": evaluated$" 2
    has "$ERR" "/rb\.lua: evaluated$"
    has "$ERR" "/rab\.lua: evaluated$"
    has "$ERR" "/ra\.lua: cached$"
    has "$ERR" "/none\.lua: cached$"
    expect 0 cook --no-cache --jobs 1 "${in[@]}" -o "$TMP/mod.nocache.psoa"
    same "$TMP/mod.psoa" "$TMP/mod.nocache.psoa" "the archive from the cache after a module edit"
    expect 0 dump "$TMP/mod.psoa" rb
    has "$OUT" "NodeMask = 2" "the edited module's value in the archive"
    # module a: ra and rab
    printf '\n-- edited\n' >>"$r/mods/a.lua"
    expect 0 cook -v --jobs 3 --cache "$c" "${in[@]}" -o "$TMP/mod.psoa"
    evaluated 2 2
    has "$ERR" "/ra\.lua: evaluated$"
    has "$ERR" "/rab\.lua: evaluated$"
    has "$ERR" "/rb\.lua: cached$"
    same "$TMP/mod.psoa" "$TMP/mod.nocache.psoa" "a partly warm cache with --jobs 3"
    # a pipeline declared alike by another material is kept once
    echo 'return (require "mods.a")("ra")' >"$r/ra_again.lua"
    expect 0 cook --cache "$c" "${in[@]}" "$r/ra_again.lua" -o "$TMP/mod.psoa"
    has "$OUT" ": 5 pipelines from 5 materials \(evaluated 1, cached 4\)"
    # other content under that name: the clash names both materials (the
    # first one taken from the cache) and leaves the archive as it was
    cp "$TMP/mod.psoa" "$TMP/mod.prev"
    echo 'return (require "mods.b")("ra")' >"$r/ra_other.lua"
    expect 1 cook --cache "$c" "${in[@]}" "$r/ra_other.lua" -o "$TMP/mod.psoa"
    has "$ERR" "ra_other\.lua: error: pipeline 'ra' is also declared, with different content, by .*/ra\.lua " \
        "the clash names both materials"
    same "$TMP/mod.psoa" "$TMP/mod.prev" "the previous archive after a clash with a cached material"
    # psoc merge names both units the same way and writes nothing
    expect 0 cook --unit --root "$r" "$r/ra.lua" -o "$TMP/ra.unit"
    expect 0 cook --unit --root "$r" "$r/ra_other.lua" -o "$TMP/ra_other.unit"
    expect 0 cook --unit --root "$r" "$r/rb.lua" -o "$TMP/rb.unit"
    expect 1 merge "$TMP/rb.unit" "$TMP/ra.unit" "$TMP/ra_other.unit" -o "$TMP/mod.merge.psoa"
    has "$ERR" "ra_other\.unit: error: pipeline 'ra' is also declared, with different content, by .*/ra\.unit " \
        "merge's clash"
    [[ ! -e $TMP/mod.merge.psoa ]] && pass || fail "a failed merge wrote its output"
}

# ---- build-system mode -------------------------------------------------------

test_units() {
    expect 0 cook --unit --profile "$PROFILE" --root "$MAT" "$MAT/lit.lua" -o "$TMP/lit.unit" \
        --depfile "$TMP/lit.d"
    has "$OUT" "wrote .*lit\.unit: 2 pipelines"
    has "$TMP/lit.d" "^$TMP/lit\.unit:" "the depfile's target"
    has "$TMP/lit.d" "mat/lit\.lua" "the depfile (the script)"
    has "$TMP/lit.d" "mat/lib/common\.lua" "the depfile (the module)"
    has "$TMP/lit.d" "mat/shaders/lit\.vs\.cso" "the depfile (a shader)"
    expect 0 ls "$TMP/lit.unit"
    has "$OUT" "^lit_opaque "
    # a failing unit writes nothing
    echo 'return 1 +' >"$TMP/bad.lua"
    expect 1 cook --unit "$TMP/bad.lua" -o "$TMP/bad.unit" --depfile "$TMP/bad.d"
    [[ ! -e $TMP/bad.unit && ! -e $TMP/bad.d ]] && pass || fail "a failing --unit wrote output"
}

test_ninja_make() {
    local nj=$TMP/nj mk=$TMP/mk
    if ! command -v ninja >/dev/null; then
        fail "ninja is not installed (ninja-build, PSOC_DEPS)"
        return
    fi
    bash scripts/gen_cook_build.sh --psoc "$PSOC" --out "$nj" --materials "$MAT" --dest "$nj"
    ninja -f "$nj/build.ninja" >"$OUT" 2>"$ERR" && pass || fail "ninja failed: $(tail -3 "$ERR" "$OUT")"
    same "$TMP/a.psoa" "$nj/materials.psoa" "ninja's merged archive vs psoc cook"
    if posix_only "ninja's incremental runs: a Linux ninja and make driving psoc.exe under Wine: the depfiles name Windows paths (Z:/tmp/...), which they cannot find, so every run rebuilds"; then
        ninja -f "$nj/build.ninja" >"$OUT" 2>&1
        has "$OUT" "no work to do" "a second ninja run"
        # a shader edit rebuilds only the unit that read it (the depfile)
        printf 'x' >>"$MAT/shaders/lit.ps.cso"
        ninja -f "$nj/build.ninja" -n >"$OUT" 2>&1
        count "$OUT" "COOK " 1
        truncate -s -1 "$MAT/shaders/lit.ps.cso"
    fi
    # make -j2: the same graph
    bash scripts/gen_cook_build.sh --psoc "$PSOC" --out "$mk" --materials "$MAT" --dest "$mk"
    make -s -j2 -f "$mk/cook.mk" >"$OUT" 2>"$ERR" && pass || fail "make -j2 failed: $(tail -3 "$ERR")"
    same "$TMP/a.psoa" "$mk/materials.psoa" "make's merged archive vs psoc cook"
    if posix_only "make's incremental run: a Linux ninja and make driving psoc.exe under Wine: the depfiles name Windows paths (Z:/tmp/...), which they cannot find, so every run rebuilds"; then
        make -j2 -f "$mk/cook.mk" >"$OUT" 2>&1
        has "$OUT" "up to date|Nothing to be done" "a second make run"
    fi
    # the committed build files are what the generator makes
    bash scripts/gen_cook_build.sh --check && pass || fail "scripts/materials/build.ninja or cook.mk is stale"
}

# ---- inspection ------------------------------------------------------------

test_inspect() {
    expect 0 ls "$TMP/a.psoa"
    has "$OUT" "15 pipelines"
    has "$OUT" "^lit_opaque +graphics"
    has "$OUT" "^meshlet.* mesh "
    has "$OUT" "^shared +kind"
    has "$OUT" "shader .* [2-9] +[0-9a-f]{16}$" "a shared shader"
    expect 0 dump "$TMP/a.psoa" --help
    has "$OUT" "^usage: psoc dump ARCHIVE"
    expect 0 dump "$TMP/a.psoa" lit_two_sided
    has "$OUT" "^==> .*: lit_two_sided \(graphics"
    has "$OUT" "CullMode = D3D12_CULL_MODE_NONE"
    expect 1 dump "$TMP/a.psoa" no_such_pipeline
    has "$ERR" "no pipeline called 'no_such_pipeline'"
    # diff: archive vs itself, vs its scripts, vs an edited script
    expect 0 diff "$TMP/a.psoa" "$TMP/b.psoa"
    expect 0 diff "$TMP/a.psoa" --profile "$PROFILE" "$MAT"
    local ed=$TMP/edited
    cp -R "$MAT" "$ed"
    sed -i 's/cull = "none"/cull = "front"/' "$ed/lit.lua"
    rm "$ed/shadow.lua"
    expect 1 diff "$TMP/a.psoa" --profile "$PROFILE" "$ed"
    has "$OUT" "^RASTERIZER\.CullMode: D3D12_CULL_MODE_NONE -> D3D12_CULL_MODE_FRONT"
    has "$OUT" "^only in A: shadow"
    # damage: one byte flipped in the middle (a component): verify names it
    cp "$TMP/a.psoa" "$TMP/dmg.psoa"
    local size
    size=$(stat -c %s "$TMP/dmg.psoa")
    printf '\xff' | dd of="$TMP/dmg.psoa" bs=1 seek=$((size / 2)) conv=notrunc status=none
    expect 1 verify "$TMP/dmg.psoa"
    has "$OUT" "damaged: "
    has "$OUT" "DAMAGED: 1 damaged part\(s\), [0-9]+ of 15 pipelines lost"
    # the last bytes are in a component: only its users are lost
    cp "$TMP/a.psoa" "$TMP/dmg.psoa"
    printf '\xff' | dd of="$TMP/dmg.psoa" bs=1 seek=$((size - 40)) conv=notrunc status=none
    expect 1 verify "$TMP/dmg.psoa"
    has "$OUT" "damaged: component [0-9]+ \(" "a damaged component"
    has "$OUT" "^[^ ]*: pipeline '[a-z_]+' lost: uses damaged component"
    lacks "$OUT" " 15 of 15 pipelines lost"
    head -c 100 "$TMP/a.psoa" >"$TMP/cut.psoa"
    expect 1 verify "$TMP/cut.psoa"
    expect 1 verify "$MAT/lit.lua"
}

# The README's C snippets (loading an archive, deriving a variant) compile
# against psoc_archive.h as they are: the API they show is the real one.
test_readme_c() {
    local src=$TMP/readme.c
    if ! command -v cc >/dev/null; then
        fail "no C compiler for the README snippets"
        return
    fi
    {
        printf '#include <stdio.h>\n#include <stdlib.h>\n#include <psoc_archive.h>\n'
        printf 'static void die(const char *m) { fputs(m, stderr); exit(1); }\n'
        printf 'static void *resolve_root_signature(void *ud, const char *n) { (void)n; return ud; }\n'
        printf 'void run(ID3D12Device2 *device, void *engine);\n'
        awk '/^## / { on = 0 } /^## Cooking: pipeline archives/ { on = 1 }
             on && /^```c$/ { code = 1; next }
             on && /^```$/ { code = 0; next }
             code && !/^#include/ { body = body $0 "\n" }
             END { print "void run(ID3D12Device2 *device, void *engine) {";
                   print "ID3D12PipelineState *pso, *wire_pso;"; printf "%s", body; print "}" }' README.md
    } >"$src"
    if cc -std=c11 -Wall -Wextra -Werror -Wno-unused-variable -fsyntax-only -D_POSIX_C_SOURCE=200809L \
        -Isrc -I/usr/include/wsl/stubs "$src" 2>"$ERR"; then
        pass
    else
        fail "the README's C snippets do not compile: $(head -3 "$ERR")"
    fi
}

test_usage
test_readme_c
test_cook
test_failure
test_kill
test_order
test_cache
test_cache_modules
test_units
test_ninja_make
test_inspect

echo "$TEST_NAME: $PASSED passed, $FAILED failed$(skipped_note)"
[[ $FAILED -eq 0 ]]
