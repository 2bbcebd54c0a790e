#!/usr/bin/env bash
# Benchmarks of 'psoc cook' (issue 11, Deliver 7, the CLI side), side by side
# in one run, reported as RESULT / RATIO / TARGET lines. A benchmark, not a
# test: it asserts nothing about time and exits 0 unless a cook fails.
#
#   tests/bench/bench_cook.sh [--psoc BIN] [--ref BIN] [--scripts N]
#                             [--per-script K] [--runs R] [--callgrind] [--big]
#
#   incremental  re-cook after editing 1 of N scripts (default 1000) vs a
#                full cook of all N (cache cold); goal <= 5%; in wall time
#                and, beside it, in CPU time (user + sys, all threads)
#   jobs         full cook (no cache) with --jobs 2 vs --jobs 1: wall-time
#                speed-up (goal >= 1.7x) and, since wall time means little
#                on a loaded machine, the CPU time (user + sys) of each and
#                the CPU-time efficiency of --jobs 2 (CPU / wall, at most 2),
#                with the load average before and after
#   memory       (--big) peak RSS (/usr/bin/time -v) of cooking 100,000
#                pipelines vs the archive's size + 32 MB; goal <= 2x
#
# --ref BIN runs every figure with a second psoc as well (e.g. a build of
# main) and prints the ratios of the two, in the same run; the timed
# figures alternate the two binaries run by run (each with its own cache
# and output), so that drift over the run hits both. Each figure is the
# median of R runs (default 3) of wall time, and the full cook's spread
# (fastest-slowest) is printed beside it; --callgrind adds callgrind
# instruction counts (Ir, all threads) for the incremental pair, which do
# not depend on the machine's load. The library: N*K pipelines in N scripts
# (default 1,000 x 10 = 10,000) over 300 shaders, made by h2's
# psoc_gen_library (tests/bench/gen, next to the psoc binary: shared
# modules, derive chains, signed DXBC shaders); without it, a simpler
# generator here (graphics and compute pipelines over the example shaders).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psoc=build/bin/psoc
ref=
scripts=1000
per=10
runs=3
callgrind=0
big=0
while (($#)); do
    case $1 in
    --psoc) psoc=$2; shift 2 ;;
    --ref) ref=$2; shift 2 ;;
    --scripts) scripts=$2; shift 2 ;;
    --per-script) per=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --callgrind) callgrind=1; shift ;;
    --big) big=1; shift ;;
    -h | --help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_cook.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[[ $psoc == /* ]] || psoc=$PWD/$psoc
[[ -z $ref || $ref == /* ]] || ref=$PWD/$ref
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
# calc EXPR: floating-point arithmetic (awk: no bc needed)
calc() { awk "BEGIN { print $1 }"; }

lib=$TMP/lib
genlib=$(dirname "$psoc")/psoc_gen_library
if [[ -x $genlib ]]; then
    "$genlib" "$lib" --pipelines $((scripts * per)) --files "$scripts" --shaders 300 --seed 1 >/dev/null
    inputs=("$lib")
    edit=$(find "$lib/materials" -name '*.lua' | LC_ALL=C sort | sed -n 1p) # sed reads all: no SIGPIPE under pipefail
    echo "generator: $genlib"
else
    gen "$lib" "$scripts" "$per"
    inputs=("$lib"/m*.lua) # lib.lua is a module, not a material
    edit=$lib/m7.lua
    echo "generator: this script's own (no $genlib)"
fi
mkdir -p "$TMP/out"
echo "library: $scripts scripts x $per pipelines ($((scripts * per)) pipelines); $runs runs per figure; $(nproc) processors"

# the binaries measured: "new" (--psoc) and, with --ref, "ref"
bins=(new)
declare -A bin=([new]=$psoc)
if [[ -n $ref ]]; then
    bins+=(ref)
    bin[ref]=$ref
fi
# result NAME VALUE / ratio NAME VALUE / target NAME GOAL
result() { printf 'RESULT %s %s\n' "$1" "$2"; }
ratio() { printf 'RATIO %s %s\n' "$1" "$2"; }
target() { printf 'TARGET %s %s\n' "$1" "$2"; }
# timed CMD...: "WALL CPU" seconds of one run (CPU = user + sys, all threads)
# (bash's own 'time': no /usr/bin/time needed)
timed() {
    local TIMEFORMAT='%3R %3U %3S'
    { time "$@" >/dev/null 2>"$TMP/err1"; } 2>"$TMP/time1"
    awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$TMP/time1"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- incremental: full cold cook vs re-cook after editing one script --------
# (the CPU time, user + sys of all threads, beside the wall time: on a
# shared machine the full cook's wall time swings more than a re-cook)
# (with --ref the two binaries alternate run by run, each with a cache of
# its own, so that the file system's drift over the runs hits both alike)
declare -A full_s recook_s full incr fullc incrc
for ((r = 0; r < runs; r++)); do
    for b in "${bins[@]}"; do
        rm -rf "$TMP/out/cache_$b"
        read -r w c < <(timed "${bin[$b]}" cook -q --cache "$TMP/out/cache_$b" "${inputs[@]}" -o "$TMP/out/a_$b.psoa")
        full[$b]+=" $w" fullc[$b]+=" $c"
        printf -- '-- edit %s %d\n' "$b" "$r" >>"$edit"
        read -r w c < <(timed "${bin[$b]}" cook -q --cache "$TMP/out/cache_$b" "${inputs[@]}" -o "$TMP/out/a_$b.psoa")
        incr[$b]+=" $w" incrc[$b]+=" $c"
    done
done
for b in "${bins[@]}"; do
    # shellcheck disable=SC2086  # the lists are space-separated on purpose
    {
        full_s[$b]=$(printf '%s\n' ${full[$b]} | median)
        recook_s[$b]=$(printf '%s\n' ${incr[$b]} | median)
        fc=$(printf '%s\n' ${fullc[$b]} | median) ic=$(printf '%s\n' ${incrc[$b]} | median)
        spread=$(printf '%s\n' ${full[$b]} | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }')
    }
    result "cook_${b}_full_s" "${full_s[$b]}"
    result "cook_${b}_full_spread_s" "$spread"
    result "cook_${b}_recook_s" "${recook_s[$b]}"
    ratio "cook_${b}_recook_pct" "$(calc "100 * ${recook_s[$b]} / ${full_s[$b]}")"
    result "cook_${b}_full_cpu_s" "$fc"
    result "cook_${b}_recook_cpu_s" "$ic"
    ratio "cook_${b}_recook_cpu_pct" "$(calc "100 * $ic / $fc")"
done
target cook_new_recook_pct "<= 5"
# Where one more re-cook's wall time goes, from its -v time line (what the
# 16-core re-run needs to say which serial step is left): finding the
# scripts and loading the index, evaluating / taking from the cache and
# merging, writing the archive (with its fsync), and the index (beside the
# archive since s22; before it, and on the critical path, in older builds).
for b in "${bins[@]}"; do
    printf -- '-- edit v %s\n' "$b" >>"$edit"
    "${bin[$b]}" cook -v --cache "$TMP/out/cache_$b" "${inputs[@]}" -o "$TMP/out/a_$b.psoa" >/dev/null 2>"$TMP/v.txt"
    line=$(grep 'psoc cook: time:' "$TMP/v.txt" || true)
    phase() { sed -n "s/.* \([0-9.]*\) ms $1.*/\1/p" <<<"$line"; }
    result "cook_${b}_recook_find_ms" "$(phase 'finding the scripts')"
    result "cook_${b}_recook_eval_merge_ms" "$(phase 'evaluating or taking')"
    result "cook_${b}_recook_write_archive_ms" "$(phase 'writing the archive')"
    result "cook_${b}_recook_write_index_ms" "$(phase 'writing the index')"
done
if ((callgrind)) && command -v valgrind >/dev/null; then
    ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
    declare -A irf iri
    for b in "${bins[@]}"; do
        rm -rf "$TMP/out/cache"
        irf[$b]=$(ir "${bin[$b]}" cook -q --jobs 1 --cache "$TMP/out/cache" "${inputs[@]}" -o "$TMP/out/a.psoa")
        printf -- '-- edit cg %s\n' "$b" >>"$edit"
        iri[$b]=$(ir "${bin[$b]}" cook -q --jobs 1 --cache "$TMP/out/cache" "${inputs[@]}" -o "$TMP/out/a.psoa")
        result "cook_${b}_full_ir" "${irf[$b]}"
        result "cook_${b}_recook_ir" "${iri[$b]}"
        ratio "cook_${b}_recook_ir_pct" "$(calc "100 * ${iri[$b]} / ${irf[$b]}")"
    done
    target cook_new_recook_ir_pct "<= 5"
    if [[ -n $ref ]]; then
        ratio cook_full_ir_new_vs_ref "$(calc "${irf[new]} / ${irf[ref]}")"
        ratio cook_recook_ir_new_vs_ref "$(calc "${iri[new]} / ${iri[ref]}")"
    fi
fi
if [[ -n $ref ]] && ! cmp -s "$TMP/out/a_new.psoa" "$TMP/out/a_ref.psoa"; then
    echo "bench_cook.sh: the two binaries' archives differ" >&2
fi
size=$(stat -c %s "$TMP/out/a_new.psoa")

# ---- --jobs 2 vs --jobs 1 (no cache) ----------------------------------------
declare -A w1 c1 w2 c2
for ((r = 0; r < runs; r++)); do
    for b in "${bins[@]}"; do
        read -r w c < <(timed "${bin[$b]}" cook -q --no-cache --jobs 1 "${inputs[@]}" -o "$TMP/out/j1.psoa")
        w1[$b]+=" $w" c1[$b]+=" $c"
        read -r w c < <(timed "${bin[$b]}" cook -q --no-cache --jobs 2 "${inputs[@]}" -o "$TMP/out/j2.psoa")
        w2[$b]+=" $w" c2[$b]+=" $c"
        cmp -s "$TMP/out/j1.psoa" "$TMP/out/j2.psoa" || { echo "bench_cook.sh: --jobs 1 and 2 differ" >&2; exit 1; }
    done
done
for b in "${bins[@]}"; do
    # shellcheck disable=SC2086  # the lists are space-separated on purpose
    {
        t1=$(printf '%s\n' ${w1[$b]} | median) t2=$(printf '%s\n' ${w2[$b]} | median)
        u1=$(printf '%s\n' ${c1[$b]} | median) u2=$(printf '%s\n' ${c2[$b]} | median)
    }
    result "cook_${b}_jobs1_wall_s" "$t1"
    result "cook_${b}_jobs1_cpu_s" "$u1"
    result "cook_${b}_jobs2_wall_s" "$t2"
    result "cook_${b}_jobs2_cpu_s" "$u2"
    ratio "cook_${b}_jobs2_speedup" "$(calc "$t1 / $t2")"
    ratio "cook_${b}_jobs2_cpu_efficiency" "$(calc "$u2 / $t2")"
    ratio "cook_${b}_jobs2_cpu_vs_jobs1" "$(calc "$u2 / $u1")"
done
target cook_new_jobs2_speedup ">= 1.7"
echo "jobs: CPU efficiency is CPU seconds per wall second of --jobs 2 (2.00 = both cores busy all the time);"
echo "      cpu_vs_jobs1 is the CPU time --jobs 2 spends over --jobs 1's (1.00 = no overhead)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) processors; archive $size bytes"

# ---- peak memory of 100,000 pipelines (--big) ------------------------------------
if ((big)) && [[ ! -x /usr/bin/time ]]; then
    echo "memory: skipped (no /usr/bin/time for the peak RSS)"
elif ((big)); then
    biglib=$TMP/big
    if [[ -x $genlib ]]; then
        "$genlib" "$biglib" --pipelines 100000 --files 2000 --shaders 300 --seed 2 >/dev/null
        biginputs=("$biglib")
    else
        gen "$biglib" 2000 50
        biginputs=("$biglib"/m*.lua)
    fi
    for b in "${bins[@]}"; do
        /usr/bin/time -v "${bin[$b]}" cook -q --no-cache "${biginputs[@]}" -o "$TMP/out/big.psoa" \
            2>"$TMP/out/time.txt" >/dev/null
        rss=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\)/\1/p' "$TMP/out/time.txt")
        bsize=$(stat -c %s "$TMP/out/big.psoa")
        result "cook_${b}_big_rss_kib" "$rss"
        result "cook_${b}_big_archive_kib" $((bsize / 1024))
        ratio "cook_${b}_big_memory" "$(calc "$rss / ($bsize / 1024 + 32768)")"
    done
    target cook_new_big_memory "<= 2 (peak RSS / (archive + 32 MiB), 100,000 pipelines)"
fi
