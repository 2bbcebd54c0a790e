#!/usr/bin/env bash
# Checks psoc_gen_library (tests/bench/gen/gen_library.c):
#   1. for three seeds, every generated pipeline passes
#      `psoc check --deep --werror` (shaders read, stages linked), and the
#      summary counts the pipelines asked for;
#   2. the same seed gives the same bytes, another seed other bytes;
#   3. the library has what it promises: shared modules loaded with require,
#      derive chains (a pipeline derived from a derived one), several
#      pipelines per script, shader sizes from under 256 B to over 16 KB;
#   4. vkd3d-compiler (an independent DXBC reader that verifies the checksum)
#      translates a sample of the DXBC shaders with nothing on stderr.
#
#   bash tests/bench/gen/test_gen_library.sh BINDIR     (BINDIR holds psoc and
#                                                        psoc_gen_library)
set -euo pipefail

bin=${1:?usage: test_gen_library.sh BINDIR}
gen=$bin/psoc_gen_library
psoc=$bin/psoc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

for seed in 1 2 3; do
    "$gen" "$tmp/s$seed" --pipelines 400 --shaders 80 --seed "$seed" >/dev/null
    if out=$("$psoc" check --deep --werror "$tmp/s$seed" 2>&1); then
        summary=$(tail -1 <<<"$out")
        if [[ $summary == *" 400 pipeline(s): 0 error(s), 0 warning(s), 0 note(s)" ]]; then
            ok "seed $seed: $summary"
        else
            bad "seed $seed: unexpected summary: $summary"
        fi
    else
        bad "seed $seed: psoc check --deep --werror failed: $(grep -m3 -E 'error|warning' <<<"$out")"
    fi
done

"$gen" "$tmp/again" --pipelines 400 --shaders 80 --seed 1 >/dev/null
if diff -r "$tmp/s1" "$tmp/again" >/dev/null; then ok "seed 1 twice: identical"
else bad "seed 1 twice: different output"; fi
if diff -r -q "$tmp/s1" "$tmp/s2" >/dev/null; then bad "seeds 1 and 2: identical output"
else ok "seeds 1 and 2 differ"; fi

lib=$tmp/s1
n_scripts=$(find "$lib/materials" -name '*.lua' | wc -l)
[[ $n_scripts -eq 80 ]] && ok "80 scripts" || bad "expected 80 scripts, got $n_scripts"
if grep -q 'require "lib.base_' "$lib/materials/g00/m00000.lua" &&
   grep -q 'require "lib.common"' "$lib/lib/base_00.lua"; then ok "shared modules by require"
else bad "no shared modules"; fi
# a derive of a local that is itself a derive: pN = pso.derive(pM, ...) with pM derived
chains=$(cat "$lib"/materials/g00/*.lua | grep -c 'pso.derive(p[0-9]' || true)
[[ $chains -gt 20 ]] && ok "$chains derives of derived pipelines" || bad "few derive chains ($chains)"
small=$(find "$lib/shaders" -name '*.cso' -size -256c | wc -l)
large=$(find "$lib/shaders" -name '*.cso' -size +16k | wc -l)
if [[ $small -gt 0 && $large -gt 0 ]] && ! find "$lib/shaders" -name '*.cso' -size +20600c | grep -q .; then
    ok "shader sizes: $small under 256 B, $large over 16 KiB, none over 20 KiB (+ 1 instruction)"
else bad "shader sizes: $small under 256 B, $large over 16 KiB"; fi

if command -v vkd3d-compiler >/dev/null; then
    n=0
    for cso in "$lib"/shaders/{vs,ps_t,cs}*_000[0-2].cso; do
        n=$((n + 1))
        if ! vkd3d-compiler -x dxbc-tpf -b spirv-binary -o "$tmp/out.spv" "$cso" 2>"$tmp/err" ||
           [[ -s $tmp/err ]]; then
            bad "vkd3d-compiler on $(basename "$cso"): $(head -2 "$tmp/err")"
        fi
    done
    ok "vkd3d-compiler read $n shaders"
else
    echo "skip: vkd3d-compiler not installed"
fi

if [[ $fails -gt 0 ]]; then echo "$fails failure(s)"; exit 1; fi
echo "gen_library: all passed"
