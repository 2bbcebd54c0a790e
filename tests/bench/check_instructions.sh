#!/usr/bin/env bash
# check_instructions.sh: instructions per full check next to d3dx12's
# parse-only walk, counted by callgrind in one run (load-independent).
#
#     tests/bench/check_instructions.sh [BENCH] [--iterations N]
#
# BENCH is the psoc_bench binary (default build/bin/psoc_bench). Each
# workload of psoc_bench --loop runs twice, with 1 and with N + 1 iterations
# over the mixed set of nine streams, and the difference of callgrind's
# "Collected" totals divided by N is one iteration of the set: start-up and
# the building of the streams cancel out. Workloads: check (psoc_check, default
# options), check_structure (PSOC_CHECK_STRUCTURE_ONLY) and walk
# (D3DX12ParsePipelineStream with empty callbacks). Prints RESULT, RATIO and
# TARGET lines like psoc_bench; asserts nothing and exits 0 unless a run fails.
set -euo pipefail

bench=build/bin/psoc_bench
n=2000
while (($# > 0)); do
    case $1 in
        --iterations) n=${2:?--iterations needs a number}; shift 2 ;;
        --iterations=*) n=${1#--iterations=}; shift ;;
        -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
        *) bench=$1; shift ;;
    esac
done
[[ -x $bench ]] || { echo "check_instructions: no benchmark at $bench" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "check_instructions: valgrind is not installed" >&2; exit 2; }

# collected WORKLOAD ITERATIONS: callgrind's instruction total of one run
# (and the number of streams in the set, into $streams)
streams=
collected() {
    local out
    out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" --loop="$1" \
        --iterations="$2" 2>&1) || { echo "check_instructions: $bench --loop=$1 failed" >&2; exit 1; }
    streams=$(sed -n 's/.*(check set: \([0-9]*\) streams).*/\1/p' <<<"$out")
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' <<<"$out"
}

# per_iteration WORKLOAD: instructions of one iteration over the set
per_iteration() {
    local a b
    a=$(collected "$1" 1)
    b=$(collected "$1" $((n + 1)))
    echo $(((b - a) / n))
}

check=$(per_iteration check)
structure=$(per_iteration check_structure)
walk=$(per_iteration walk)
collected walk 1 >/dev/null # $streams (command substitutions run in subshells)
[[ -n $streams && $streams -gt 0 ]] || { echo "check_instructions: no stream count from $bench" >&2; exit 1; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "RESULT check_psoc_instructions_per_set $check"
echo "RESULT check_structure_psoc_instructions_per_set $structure"
echo "RESULT check_d3dx12_instructions_per_set $walk"
echo "RESULT check_psoc_instructions_per_stream $((check / streams))"
echo "RESULT check_d3dx12_instructions_per_stream $((walk / streams))"
r=$(ratio "$check" "$walk")
echo "RATIO check_instructions $r"
echo "RATIO check_structure_instructions $(ratio "$structure" "$walk")"
if awk -v r="$r" 'BEGIN { exit !(r <= 2.0) }'; then met=met; else met="not met"; fi
echo "TARGET check_instructions <= 2.00: $met"
