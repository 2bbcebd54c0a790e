#!/usr/bin/env bash
# Benchmarks of 'psoc cook' (issue 11, Deliver 7, the CLI side), side by side
# in one run, reported as ratios. A benchmark, not a test: it asserts nothing
# about time and exits 0 unless a cook fails.
#
#   tests/bench/bench_cook.sh [--psoc BIN] [--scripts N] [--per-script K]
#                             [--runs R] [--callgrind] [--big]
#
#   incremental  re-cook after editing 1 of N scripts (default 1000) vs a
#                full cook of all N (cache cold); goal <= 5%
#   jobs         full cook (no cache) with --jobs 2 vs --jobs 1; goal >= 1.7x
#   memory       (--big) peak RSS (/usr/bin/time -v) of cooking 100,000
#                pipelines vs the archive's size + 32 MB; goal <= 2x
#
# Each figure is the median of R runs (default 3) of wall time; --callgrind
# adds callgrind instruction counts (Ir, all threads) for the incremental
# pair, which do not depend on the machine's load. The library: N*K
# pipelines in N scripts (default 1,000 x 10 = 10,000) over 300 shaders, made
# by h2's psoc_gen_library (tests/bench/gen, next to the psoc binary: shared
# modules, derive chains, signed DXBC shaders); without it, a simpler
# generator here (graphics and compute pipelines over the example shaders).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psoc=build/bin/psoc
scripts=1000
per=10
runs=3
callgrind=0
big=0
while (($#)); do
    case $1 in
    --psoc) psoc=$2; shift 2 ;;
    --scripts) scripts=$2; shift 2 ;;
    --per-script) per=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --callgrind) callgrind=1; shift ;;
    --big) big=1; shift ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_cook.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[[ $psoc == /* ]] || psoc=$PWD/$psoc
TMP=$(mktemp -d "${TMPDIR:-/tmp}/psoc_bench_cook.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# gen DIR N K: N material scripts of K pipelines each.
gen() {
    local dir=$1 n=$2 k=$3 i
    mkdir -p "$dir/shaders"
    cp scripts/materials/shaders/*.cso "$dir/shaders/"
    cat >"$dir/lib.lua" <<'EOF'
local pso = require "pso"
local M = {}
local vs = { "lit.vs", "shadow.vs", "particles.vs", "stereo.vs" }
local ps = { "lit.ps", "transparent.ps", "shadow_alpha.ps", "particles.ps", "stereo.ps" }
local culls = { "none", "front", "back" }
-- K pipelines of material i: distinct state, shared shaders and layouts.
function M.material(i, k)
  local list = {}
  for j = 1, k do
    local n = i * k + j
    if j % 5 == 0 then
      list[j] = pso.compute { name = "m" .. i .. "_c" .. j,
        cs = pso.shader("shaders/cull.cs.cso"), node_mask = 1 }
    else
      list[j] = pso.graphics {
        name = "m" .. i .. "_g" .. j,
        root_signature = "forward",
        vs = pso.shader("shaders/" .. vs[n % #vs + 1] .. ".cso"),
        ps = pso.shader("shaders/" .. ps[n % #ps + 1] .. ".cso"),
        input_layout = { { "POSITION", "R32G32B32_FLOAT" }, { "TEXCOORD", "R32G32_FLOAT" } },
        rasterizer = { cull = culls[n % 3 + 1], depth_bias = n % 64 },
        depth_stencil = { depth = true, write = n % 2 == 0, func = "greater_equal" },
        render_targets = { "R16G16B16A16_FLOAT" },
        depth_format = "D32_FLOAT",
      }
    end
  end
  return list
end
return M
EOF
    for ((i = 0; i < n; i++)); do
        printf 'return (require "lib").material(%d, %d)\n' "$i" "$k" >"$dir/m$i.lua"
    done
}

# median of the numbers on stdin
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
now() { date +%s.%N; }
# seconds CMD...: wall seconds of one run
seconds() {
    local t0 t1
    t0=$(now)
    "$@" >/dev/null
    t1=$(now)
    calc "$t1 - $t0"
}
# calc EXPR: floating-point arithmetic (awk: no bc needed)
calc() { awk "BEGIN { print $1 }"; }

lib=$TMP/lib
genlib=$(dirname "$psoc")/psoc_gen_library
if [[ -x $genlib ]]; then
    "$genlib" "$lib" --pipelines $((scripts * per)) --files "$scripts" --shaders 300 --seed 1 >/dev/null
    inputs=("$lib")
    edit=$(find "$lib/materials" -name '*.lua' | LC_ALL=C sort | head -1)
    echo "generator: $genlib"
else
    gen "$lib" "$scripts" "$per"
    inputs=("$lib"/m*.lua) # lib.lua is a module, not a material
    edit=$lib/m7.lua
    echo "generator: this script's own (no $genlib)"
fi
mkdir -p "$TMP/out"
echo "library: $scripts scripts x $per pipelines ($((scripts * per)) pipelines); $runs runs per figure; $(nproc) processors"

# ---- incremental: full cold cook vs re-cook after editing one script --------
full=() incr=()
for ((r = 0; r < runs; r++)); do
    rm -rf "$TMP/out/cache"
    full+=("$(seconds "$psoc" cook -q --cache "$TMP/out/cache" "${inputs[@]}" -o "$TMP/out/a.psoa")")
    printf -- '-- edit %d\n' "$r" >>"$edit"
    incr+=("$(seconds "$psoc" cook -q --cache "$TMP/out/cache" "${inputs[@]}" -o "$TMP/out/a.psoa")")
done
tf=$(printf '%s\n' "${full[@]}" | median)
ti=$(printf '%s\n' "${incr[@]}" | median)
printf 'incremental: full cook %.3f s, re-cook after editing 1 of %d scripts %.3f s: %.2f%% (goal <= 5%%)\n' \
    "$tf" "$scripts" "$ti" "$(calc "100 * $ti / $tf")"
if ((callgrind)) && command -v valgrind >/dev/null; then
    ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
    rm -rf "$TMP/out/cache"
    irf=$(ir "$psoc" cook -q --jobs 1 --cache "$TMP/out/cache" "${inputs[@]}" -o "$TMP/out/a.psoa")
    printf -- '-- edit cg\n' >>"$edit"
    iri=$(ir "$psoc" cook -q --jobs 1 --cache "$TMP/out/cache" "${inputs[@]}" -o "$TMP/out/a.psoa")
    printf 'incremental (callgrind, --jobs 1): full %d Ir, re-cook %d Ir: %.2f%%\n' "$irf" "$iri" \
        "$(calc "100 * $iri / $irf")"
fi
size=$(stat -c %s "$TMP/out/a.psoa")

# ---- --jobs 2 vs --jobs 1 (no cache) ----------------------------------------
j1=() j2=()
for ((r = 0; r < runs; r++)); do
    j1+=("$(seconds "$psoc" cook -q --no-cache --jobs 1 "${inputs[@]}" -o "$TMP/out/j1.psoa")")
    j2+=("$(seconds "$psoc" cook -q --no-cache --jobs 2 "${inputs[@]}" -o "$TMP/out/j2.psoa")")
done
t1=$(printf '%s\n' "${j1[@]}" | median)
t2=$(printf '%s\n' "${j2[@]}" | median)
cmp -s "$TMP/out/j1.psoa" "$TMP/out/j2.psoa" || { echo "bench_cook.sh: --jobs 1 and 2 differ" >&2; exit 1; }
printf 'jobs: --jobs 1 %.3f s, --jobs 2 %.3f s: %.2fx (goal >= 1.7x); archive %d bytes\n' \
    "$t1" "$t2" "$(calc "$t1 / $t2")" "$size"

# ---- peak memory of 100,000 pipelines (--big) ------------------------------------
if ((big)); then
    biglib=$TMP/big
    if [[ -x $genlib ]]; then
        "$genlib" "$biglib" --pipelines 100000 --files 2000 --shaders 300 --seed 2 >/dev/null
        biginputs=("$biglib")
    else
        gen "$biglib" 2000 50
        biginputs=("$biglib"/m*.lua)
    fi
    /usr/bin/time -v "$psoc" cook -q --no-cache "${biginputs[@]}" -o "$TMP/out/big.psoa" \
        2>"$TMP/out/time.txt" >/dev/null
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\)/\1/p' "$TMP/out/time.txt")
    bsize=$(stat -c %s "$TMP/out/big.psoa")
    printf 'memory: 100,000 pipelines: peak RSS %d KiB, archive %d KiB: %.2fx of archive + 32 MiB (goal <= 2x)\n' \
        "$rss" $((bsize / 1024)) "$(calc "$rss / ($bsize / 1024 + 32768)")"
fi
