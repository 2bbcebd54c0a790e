#!/usr/bin/env bash
# test_preview.sh PSOC: 'psoc preview' end to end on the example
# materials (vkd3d on lavapipe): PNG files of the right size, deterministic,
# different state gives a different picture, docs/preview.png is current,
# and pipelines it cannot draw are refused with a message.
set -u
psoc=${1:?usage: test_preview.sh PATH/TO/psoc}
preview() { "$psoc" preview "$@"; }
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# PNG signature, then IHDR width and height (256 = 64 x 4), 8-bit RGBA
png_ok() {
    [[ $(od -An -tx1 -N8 "$1" | tr -d ' \n') == 89504e470d0a1a0a ]] &&
        [[ $(od -An -tx1 -j16 -N10 "$1" | tr -d ' \n') == 00000100000001000806 ]]
}

for spec in "transparent.lua transparent_alpha" "transparent.lua transparent_additive" \
    "lit.lua lit_opaque" "lit.lua lit_two_sided" "shadow.lua shadow_depth"; do
    set -- $spec
    out=$tmp/${2}.png
    if preview "scripts/materials/$1" --pipeline "$2" -o "$out" 2>"$tmp/err" && png_ok "$out"; then
        ok
    else
        bad "psoc preview $1 --pipeline $2: $(head -2 "$tmp/err")"
    fi
done
# deterministic, and the state shows
preview scripts/materials/transparent.lua --pipeline transparent_alpha -o "$tmp/again.png" 2>/dev/null
if cmp -s "$tmp/transparent_alpha.png" "$tmp/again.png"; then ok; else bad "two runs differ"; fi
for pair in "transparent_alpha transparent_additive" "lit_opaque lit_two_sided" "lit_opaque transparent_alpha"; do
    set -- $pair
    if cmp -s "$tmp/$1.png" "$tmp/$2.png"; then bad "$1 and $2 give the same picture"; else ok; fi
done
# the README's picture is what the tool draws today
if cmp -s docs/preview.png "$tmp/transparent_alpha.png"; then ok; else
    bad "docs/preview.png is stale: $psoc preview scripts/materials/transparent.lua --pipeline transparent_alpha -o docs/preview.png"
fi
# refused: a compute pipeline, a mesh pipeline, an unknown name
for spec in "compute.lua cull_instances" "meshlet.lua meshlet_opaque" "lit.lua no_such"; do
    set -- $spec
    if preview "scripts/materials/$1" --pipeline "$2" -o "$tmp/x.png" 2>"$tmp/err"; then
        bad "psoc preview accepted $1 $2"
    elif [[ -s $tmp/err ]]; then ok; else bad "no message for $1 $2"; fi
done
# usage errors exit 2; the output path follows the CLI's rules (only a
# regular file that is not an input is replaced; a symlink is refused)
expect_rc() { # WANT WHAT CMD...
    local want=$1 what=$2 rc=0
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    if ((rc == want)); then ok; else bad "$what: exit $rc, wanted $want ($(head -1 "$tmp/err"))"; fi
}
expect_rc 2 "no -o" preview scripts/materials/lit.lua
expect_rc 2 "no script" preview -o "$tmp/y.png"
expect_rc 2 "unknown option" preview scripts/materials/lit.lua --bogus -o "$tmp/y.png"
expect_rc 0 "--help" preview --help
cp -r scripts/materials "$tmp/mat"
expect_rc 2 "the script as the output" preview "$tmp/mat/lit.lua" -o "$tmp/mat/lit.lua"
if cmp -s scripts/materials/lit.lua "$tmp/mat/lit.lua"; then ok; else bad "the script was overwritten"; fi
ln -s "$tmp/target.png" "$tmp/link.png"
expect_rc 2 "a symlink as the output" preview scripts/materials/lit.lua -o "$tmp/link.png"
if [[ -e $tmp/target.png ]]; then bad "wrote through the symlink"; else ok; fi
expect_rc 1 "a compute pipeline" preview scripts/materials/compute.lua -o "$tmp/c.png"
if [[ -e $tmp/c.png ]]; then bad "a failed preview left $tmp/c.png"; else ok; fi
echo "test_preview: $pass passed, $fail failed"
((fail == 0))
