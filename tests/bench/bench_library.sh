#!/usr/bin/env bash
# bench_library.sh: `psoc check` over a generated 10,000-pipeline library,
# side by side in one run with plain lua5.4 running the same scripts with a
# table-only stub of the pso module (tests/bench/library_stub.lua).
#
#   bash tests/bench/bench_library.sh [BINDIR] [--pipelines N] [--runs R]
#                                     [--callgrind] [--syscalls] [--keep DIR]
#                                     [--ref REFBIN]
#
# BINDIR (default build/bin) holds psoc and psoc_gen_library. The library
# is generated once (psoc_gen_library DIR --pipelines N, default 10000:
# 2,000 material files, shared modules, derive chains, DXBC shaders), then
#   (a) psoc check DIR            the shipped tool: a fresh sandboxed state
#                                 per material file
#   (b) lua5.4 library_stub.lua   one process; a fresh environment (libraries,
#                                 require cache, pso stub) per material file
# each run R times (default 3), alternating; the median wall time, user
# and system CPU are reported. An information row runs the stub with --bytecode (each
# module compiled once per process, its string.dump loaded per file: what a
# plain-Lua host with a chunk cache would do). --callgrind adds the instruction count of one run of
# each under valgrind --tool=callgrind (slow: about a minute for each side
# at 10,000 pipelines). --syscalls adds the system calls of one run of each
# (strace -f -c; load-independent, like the instruction count). Where GNU
# time is installed (/usr/bin/time), one more run of each side counts its
# page faults (minor: memory the process touches for the first time or
# again after handing it back). --ref REFBIN (a psoc binary, e.g. main's
# build) adds (c) REFBIN check DIR to the same alternating loop, with its
# ratios to the stub and to (a), and its page faults and instruction count
# where those are taken: before/after in one run. Prints
# RESULT, RATIO and TARGET lines; asserts nothing about speed (exit 0
# unless a side fails to run).
set -euo pipefail

bin=build/bin
pipelines=10000
runs=3
callgrind=0
syscalls=0
keep=
ref=
while [[ $# -gt 0 ]]; do
    case $1 in
        --pipelines) pipelines=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --callgrind) callgrind=1; shift ;;
        --syscalls) syscalls=1; shift ;;
        --keep) keep=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "bench_library.sh: unknown option $1" >&2; exit 2 ;;
        *) bin=$1; shift ;;
    esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
stub=$here/library_stub.lua
psoc=$(cd "$bin" && pwd)/psoc
gen=$(cd "$bin" && pwd)/psoc_gen_library
lua=${LUA:-lua5.4}
for f in "$psoc" "$gen"; do
    [[ -x $f ]] || { echo "bench_library.sh: $f not built" >&2; exit 2; }
done
command -v "$lua" >/dev/null || { echo "bench_library.sh: $lua not found" >&2; exit 2; }
if [[ -n $ref ]]; then
    [[ -x $ref ]] || { echo "bench_library.sh: --ref $ref is not an executable" >&2; exit 2; }
    ref=$(cd "$(dirname "$ref")" && pwd)/$(basename "$ref")
fi

if [[ -n $keep ]]; then
    tmp=$keep
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
fi
lib=$tmp/lib
if [[ ! -f $lib/.generated_$pipelines ]]; then
    rm -rf "$lib"
    "$gen" "$lib" --pipelines "$pipelines" >/dev/null
    touch "$lib/.generated_$pipelines"
fi
# The stub runs the files psoc check finds, in the same (sorted) order.
(cd "$lib" && find . -name '*.lua' | LC_ALL=C sort) >"$tmp/list"
files=$(wc -l <"$tmp/list")

run_psoc() { (cd "$lib" && "$psoc" check . >"$tmp/psoc.out" 2>&1); }
run_ref() { (cd "$lib" && "$ref" check . >"$tmp/ref.out" 2>&1); }
run_stub() { (cd "$lib" && "$lua" "$stub" . "$tmp/list" "$@" >"$tmp/stub.out" 2>&1); }

# seconds (wall, user, system) of one run of "$@", as "W U S"
measure() {
    local TIMEFORMAT='%R %U %S' t
    { t=$( { time "$@" ; } 2>&1 1>&3 3>&- ); } 3>&1
    echo "$t"
}

run_psoc || { echo "bench_library.sh: psoc check failed:"; tail -5 "$tmp/psoc.out"; exit 1; }
run_stub || { echo "bench_library.sh: the stub failed:"; tail -5 "$tmp/stub.out"; exit 1; }
if [[ -n $ref ]]; then
    run_ref || { echo "bench_library.sh: $ref check failed:"; tail -5 "$tmp/ref.out"; exit 1; }
fi
summary=$(tail -1 "$tmp/psoc.out")
echo "library: $files files, $pipelines pipelines requested ($lib)"
echo "psoc check: $summary"
echo "stub:       $(tail -1 "$tmp/stub.out")"
[[ -z $ref ]] || echo "ref check:  $(tail -1 "$tmp/ref.out") ($ref)"

pw=(); pu=(); ps=(); sw=(); su=(); ss=(); bw=(); bu=(); rw=(); ru=(); rs=()
for ((i = 0; i < runs; i++)); do
    if [[ -n $ref ]]; then
        read -r w u y < <(measure run_ref); rw+=("$w"); ru+=("$u"); rs+=("$y")
    fi
    read -r w u y < <(measure run_psoc); pw+=("$w"); pu+=("$u"); ps+=("$y")
    read -r w u y < <(measure run_stub); sw+=("$w"); su+=("$u"); ss+=("$y")
    read -r w u y < <(measure run_stub --bytecode); bw+=("$w"); bu+=("$u")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'; }
mpw=$(median "${pw[@]}"); mpu=$(median "${pu[@]}"); mps=$(median "${ps[@]}")
msw=$(median "${sw[@]}"); msu=$(median "${su[@]}"); mss=$(median "${ss[@]}")
mbw=$(median "${bw[@]}"); mbu=$(median "${bu[@]}")
printf '%-34s %12s %12s %8s\n' "median of $runs runs" "psoc check" "lua5.4 stub" "ratio"
printf '%-34s %12s %12s %8s\n' "wall seconds" "$mpw" "$msw" "$(ratio "$mpw" "$msw")"
printf '%-34s %12s %12s %8s\n' "user CPU seconds" "$mpu" "$msu" "$(ratio "$mpu" "$msu")"
printf '%-34s %12s %12s %8s\n' "system CPU seconds" "$mps" "$mss" "$(ratio "$mps" "$mss")"
printf '%-34s %12s %12s %8s\n' "  stub --bytecode: user CPU s" "$mpu" "$mbu" "$(ratio "$mpu" "$mbu")"
echo "RESULT library_check_wall_s $mpw"
echo "RESULT library_check_user_s $mpu"
echo "RESULT library_stub_wall_s $msw"
echo "RESULT library_check_sys_s $mps"
echo "RESULT library_stub_user_s $msu"
echo "RESULT library_stub_sys_s $mss"
echo "RESULT library_files $files"
echo "RATIO library_check_user $(ratio "$mpu" "$msu")"
echo "RATIO library_check_wall $(ratio "$mpw" "$msw")"
echo "RATIO library_check_sys $(ratio "$mps" "$mss")"
echo "RATIO library_check_user_vs_bytecode_stub $(ratio "$mpu" "$mbu")"
if [[ -n $ref ]]; then
    mrw=$(median "${rw[@]}"); mru=$(median "${ru[@]}"); mrs=$(median "${rs[@]}")
    printf '%-34s %12s %12s %8s\n' "--ref: wall seconds" "$mrw" "$msw" "$(ratio "$mrw" "$msw")"
    printf '%-34s %12s %12s %8s\n' "--ref: user CPU seconds" "$mru" "$msu" "$(ratio "$mru" "$msu")"
    printf '%-34s %12s %12s %8s\n' "--ref: system CPU seconds" "$mrs" "$mss" "$(ratio "$mrs" "$mss")"
    echo "RESULT library_ref_wall_s $mrw"
    echo "RESULT library_ref_user_s $mru"
    echo "RESULT library_ref_sys_s $mrs"
    echo "RATIO library_ref_wall $(ratio "$mrw" "$msw")"
    echo "RATIO library_ref_user $(ratio "$mru" "$msu")"
    echo "RATIO library_ref_sys $(ratio "$mrs" "$mss")"
    # this build against the reference: below 1 is faster
    echo "RATIO library_check_wall_vs_ref $(ratio "$mpw" "$mrw")"
    echo "RATIO library_check_user_vs_ref $(ratio "$mpu" "$mru")"
fi

headline=$(ratio "$mpu" "$msu")
gnutime=${GNU_TIME:-/usr/bin/time}
if [[ -x $gnutime ]] && "$gnutime" -f %R true >/dev/null 2>&1; then
    # minor page faults of one run of "$@" in the library (GNU time's %R)
    faults() {
        (cd "$lib" && "$gnutime" -f %R -o "$tmp/faults" "$@" >/dev/null 2>&1) || true
        tail -1 "$tmp/faults"
    }
    fp=$(faults "$psoc" check .); fs=$(faults "$lua" "$stub" . "$tmp/list")
    printf '%-34s %12s %12s %8s\n' "page faults (minor, one run)" "$fp" "$fs" "$(ratio "$fp" "$fs")"
    echo "RESULT library_check_page_faults $fp"
    echo "RESULT library_stub_page_faults $fs"
    echo "RATIO library_check_page_faults $(ratio "$fp" "$fs")"
    if [[ -n $ref ]]; then
        fr=$(faults "$ref" check .)
        printf '%-34s %12s %12s %8s\n' "--ref: page faults" "$fr" "$fs" "$(ratio "$fr" "$fs")"
        echo "RESULT library_ref_page_faults $fr"
    fi
fi
if [[ $syscalls == 1 ]]; then
    command -v strace >/dev/null || { echo "bench_library.sh: strace not found" >&2; exit 2; }
    # total calls of strace -c's summary, the watchdog thread's included
    calls() { awk '$NF == "total" { print $4 }' "$1"; }
    (cd "$lib" && strace -f -c -o "$tmp/st.psoc" "$psoc" check . >/dev/null 2>&1) || true
    (cd "$lib" && strace -f -c -o "$tmp/st.stub" "$lua" "$stub" . "$tmp/list" >/dev/null 2>&1) || true
    cp=$(calls "$tmp/st.psoc"); cs=$(calls "$tmp/st.stub")
    printf '%-34s %12s %12s %8s\n' "system calls (strace -f -c)" "$cp" "$cs" "$(ratio "$cp" "$cs")"
    awk -v a="$cp" -v f="$files" 'BEGIN { printf "RESULT library_check_syscalls_per_file %.1f\n", a / f }'
    awk -v a="$cs" -v f="$files" 'BEGIN { printf "RESULT library_stub_syscalls_per_file %.1f\n", a / f }'
    echo "RATIO library_check_syscalls $(ratio "$cp" "$cs")"
fi
if [[ $callgrind == 1 ]]; then
    command -v valgrind >/dev/null || { echo "bench_library.sh: valgrind not found" >&2; exit 2; }
    ir() { grep -m1 -o 'Collected : [0-9]*' "$1" | grep -o '[0-9]*$'; }
    (cd "$lib" && valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.psoc" \
        --log-file="$tmp/cg.psoc.log" "$psoc" check . >/dev/null 2>&1) || true
    (cd "$lib" && valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.stub" \
        --log-file="$tmp/cg.stub.log" "$lua" "$stub" . "$tmp/list" >/dev/null 2>&1) || true
    ip=$(ir "$tmp/cg.psoc.log"); is=$(ir "$tmp/cg.stub.log")
    printf '%-34s %12s %12s %8s\n' "callgrind instructions" "$ip" "$is" "$(ratio "$ip" "$is")"
    if [[ -n $ref ]]; then
        (cd "$lib" && valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.ref" \
            --log-file="$tmp/cg.ref.log" "$ref" check . >/dev/null 2>&1) || true
        ir_ref=$(ir "$tmp/cg.ref.log")
        printf '%-34s %12s %12s %8s\n' "--ref: callgrind instructions" "$ir_ref" "$is" "$(ratio "$ir_ref" "$is")"
        echo "RESULT library_ref_ir $ir_ref"
        echo "RATIO library_ref_ir $(ratio "$ir_ref" "$is")"
    fi
    awk -v a="$ip" -v f="$files" 'BEGIN { printf "RESULT library_check_ir_per_file %.0f\n", a / f }'
    awk -v a="$is" -v f="$files" 'BEGIN { printf "RESULT library_stub_ir_per_file %.0f\n", a / f }'
    echo "RATIO library_check_ir $(ratio "$ip" "$is")"
    headline=$(ratio "$ip" "$is")
fi
# The headline: instructions with --callgrind (stable under load), else user CPU.
echo "RATIO library_check $headline"
echo "TARGET library_check <= 1.50"
