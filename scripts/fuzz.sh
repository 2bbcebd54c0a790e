#!/usr/bin/env bash
# Build and run the libFuzzer targets tests/fuzz/fuzz_*.c.
#
#   scripts/fuzz.sh [--seconds N] [--target NAME] [-- LIBFUZZER ARGS...]
#
#   --seconds N    total fuzzing time, split evenly across the targets that
#                  run (default 60; at least 1 s per target)
#   --target NAME  run only NAME (fuzz_foo or foo, for tests/fuzz/fuzz_foo.c)
#   -- ARGS        extra libFuzzer flags, e.g. -- -jobs=2 -timeout=10
#
# Each target is built with clang, libFuzzer, ASan and UBSan together with
# src/*.c into build/fuzz/NAME (fuzz_script also with bindings/lua/*.c and
# Lua 5.4) and runs over build/fuzz/corpus-NAME, a writable copy of the
# committed seeds in tests/fuzz/corpus/NAME (or tests/fuzz/corpus/<NAME
# without fuzz_>): the seed corpus stays clean, and what the fuzzer finds
# accumulates in build/.  A dictionary tests/fuzz/<NAME without fuzz_>.dict
# is passed when it exists; tests/fuzz/script.dict must first be what
# tests/fuzz/gen_dict.lua makes from the live pso module (else the target
# fails).  Crash inputs are written to
# build/fuzz/artifacts-NAME/.  Logs: build/fuzz/NAME.log.
#
# Every run uses -timeout=$PSOC_FUZZ_TIMEOUT (default 10 s: an input that
# runs longer, e.g. a material script escaping its 1 s clock and its
# instruction budget, is a failure) and -rss_limit_mb=$PSOC_FUZZ_RSS_MB
# (default 2048).  Extra flags after -- come later and win.
#
# Exit status: non-zero if a target fails to build or the fuzzer finds a
# crash, leak, timeout or undefined behaviour.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=60
only=""
extra=()

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}

while (($# > 0)); do
    case $1 in
        --seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
        --seconds=*) seconds=${1#--seconds=}; shift ;;
        --target) only=${2:?--target needs a value}; shift 2 ;;
        --target=*) only=${1#--target=}; shift ;;
        --) shift; extra=("$@"); break ;;
        -h | --help) usage; exit 0 ;;
        *) echo "fuzz.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 1)); then
    echo "fuzz.sh: --seconds wants a positive integer, got '$seconds'" >&2
    exit 2
fi

shopt -s nullglob

targets=()
for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    if [[ -z $only || $only == "$name" || "fuzz_$only" == "$name" ]]; then
        targets+=("$name")
    fi
done

if ((${#targets[@]} == 0)); then
    if [[ -n $only ]]; then
        echo "fuzz.sh: no target '$only' (tests/fuzz/fuzz_*.c)" >&2
        exit 2
    fi
    echo "fuzz.sh: no tests/fuzz/fuzz_*.c yet, nothing to do"
    exit 0
fi

lib_sources=(src/*.c)
if ((${#lib_sources[@]} == 0)); then
    echo "fuzz.sh: no src/*.c to fuzz" >&2
    exit 1
fi

FUZZ_CC=${PSOC_FUZZ_CC:-clang}
# shellcheck disable=SC2054  # the commas belong to -fsanitize=
FUZZ_CFLAGS=(-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
    -fno-omit-frame-pointer
    -I src -I /usr/include/wsl/stubs)

# Per-target sources, flags and dictionary.  fuzz_script evaluates material
# scripts: it needs the Lua bindings and a Lua (5.4, as the default build;
# PSOC_FUZZ_LUA_INC=/usr/include/luajit-2.1 PSOC_FUZZ_LUA_LIB=luajit-5.1
# fuzzes the sandbox under LuaJIT, /usr/include/lua5.1 + lua5.1 under 5.1).
FUZZ_LUA_INC=${PSOC_FUZZ_LUA_INC:-/usr/include/lua5.4}
FUZZ_LUA_LIB=${PSOC_FUZZ_LUA_LIB:-lua5.4}
target_build_args() { # NAME -> extra compiler arguments, one a line
    case $1 in
        fuzz_script)
            printf '%s\n' bindings/lua/*.c -I bindings/lua -I "$FUZZ_LUA_INC" \
                "-l$FUZZ_LUA_LIB" -lm -ldl
            ;;
    esac
}

# tests/fuzz/script.dict must be what tests/fuzz/gen_dict.lua prints from
# the live pso module: build the module for lua5.4 (plain, fast), compare.
check_script_dict() {
    local mod=build/fuzz/lua
    mkdir -p "$mod"
    if ! "$FUZZ_CC" -O0 -std=c11 -D_POSIX_C_SOURCE=200809L -shared -fPIC -w \
        -I src -I /usr/include/wsl/stubs -I bindings/lua -I /usr/include/lua5.4 \
        "${lib_sources[@]}" bindings/lua/*.c -lm -o "$mod/pso.so"; then
        echo ">>> fuzz_script: cannot build the pso module for the dictionary check"
        return 1
    fi
    LUA_CPATH="$mod/?.so" lua5.4 tests/fuzz/gen_dict.lua --check tests/fuzz/script.dict
}

timeout_s=${PSOC_FUZZ_TIMEOUT:-10}
rss_mb=${PSOC_FUZZ_RSS_MB:-2048}

per_target=$((seconds / ${#targets[@]}))
((per_target >= 1)) || per_target=1

mkdir -p build/fuzz

declare -A status execs
failed=0

for name in "${targets[@]}"; do
    echo
    echo "======== fuzz $name (${per_target}s) ========"
    bin=build/fuzz/$name
    log=build/fuzz/$name.log
    work=build/fuzz/corpus-$name
    artifacts=build/fuzz/artifacts-$name/
    execs[$name]="-"

    mapfile -t target_args < <(target_build_args "$name")
    if ! "$FUZZ_CC" "${FUZZ_CFLAGS[@]}" "${lib_sources[@]}" "tests/fuzz/$name.c" \
        "${target_args[@]}" -o "$bin"; then
        echo ">>> $name: build failed"
        status[$name]="FAIL (build)"
        failed=1
        continue
    fi

    mkdir -p "$work" "$artifacts"
    seeds=""
    for dir in "tests/fuzz/corpus/$name" "tests/fuzz/corpus/${name#fuzz_}"; do
        if [[ -d $dir ]]; then
            seeds=$dir
            break
        fi
    done
    if [[ -n $seeds ]]; then
        cp -R "$seeds/." "$work/"
        chmod -R u+w "$work"
        echo "seeds: $seeds ($(find "$seeds" -type f | wc -l) files) -> $work"
    else
        echo "seeds: none (no tests/fuzz/corpus/$name)"
    fi

    if [[ $name == fuzz_script ]] && ! check_script_dict; then
        status[$name]="FAIL (dict)"
        failed=1
        continue
    fi

    dict=()
    for file in "tests/fuzz/${name#fuzz_}.dict" "tests/fuzz/$name.dict"; do
        if [[ -f $file ]]; then
            dict=("-dict=$file")
            break
        fi
    done

    rc=0
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
        "$bin" -max_total_time="$per_target" -print_final_stats=1 \
        -timeout="$timeout_s" -rss_limit_mb="$rss_mb" "${dict[@]}" \
        -artifact_prefix="$artifacts" "${extra[@]}" "$work" >"$log" 2>&1 || rc=$?

    n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    execs[$name]=${n:--}
    if ((rc == 0)); then
        status[$name]="PASS"
        tail -n 12 "$log"
    else
        status[$name]="FAIL (exit $rc)"
        failed=1
        echo ">>> $name: fuzzer exited with $rc; last lines of $log:"
        tail -n 80 "$log"
        echo ">>> crash inputs:"
        find "$artifacts" -type f -print
    fi
done

echo
echo "======== fuzz summary ========"
printf '%-32s %-16s %14s\n' "TARGET" "RESULT" "EXECUTIONS"
for name in "${targets[@]}"; do
    printf '%-32s %-16s %14s\n' "$name" "${status[$name]}" "${execs[$name]}"
done

exit "$failed"
