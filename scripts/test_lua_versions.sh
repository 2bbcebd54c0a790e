#!/usr/bin/env bash
# Build the pso module, the embedding API (in psoc and the unit tests) for
# each supported Lua and run the Lua-side suites under it:
#
#   scripts/test_lua_versions.sh [--lua="5.4 5.3 5.1 luajit"] [--no-build]
#
# For each Lua V (release builds in build/, build/lua5.3, build/lua5.1,
# build/luajit -- see premake5.lua --lua and scripts/lib.sh psoc_builddir):
#   build     psoc, pso.so and psoc_tests built with --lua=V
#   module    the interpreter itself (lua5.4, lua5.3, lua5.1, luajit) loads
#             pso.so and checks it against the annotations
#             (scripts/types/check.lua: every key, enum name, preset and
#             function of the module)
#   suites    `psoc test tests/lua scripts/tests` with the psoc built for V:
#             the module's specs and the example suite, run by the embedding
#             API's sandbox (instruction budget, memory limit) under V
#   specs     tests/lua/run.sh V BUILD/lib/?.so, when that runner exists
#   sandbox   the Check suite "sandbox" of psoc_tests built for V
#
# Exit status 0 when every step of every Lua passed. The last line reads
# "lua versions: N passed, M failed".
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

LUAS="5.4 5.3 5.1 luajit"
BUILD=1
for arg in "$@"; do
    case $arg in
        --lua=*) LUAS=${arg#*=} ;;
        --no-build) BUILD=0 ;;
        -h | --help)
            sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
            exit 0
            ;;
        *)
            psoc_err "unknown option '$arg'"
            exit 2
            ;;
    esac
done

passed=0
failed=0
summary=()

step() { # LUA NAME CMD...
    local lua=$1 name=$2 rc start=$SECONDS
    shift 2
    printf '\n---- Lua %s: %s\n' "$lua" "$name"
    "$@"
    rc=$?
    if ((rc == 0)); then
        passed=$((passed + 1))
        summary+=("PASS  Lua $lua  $name ($((SECONDS - start))s)")
    else
        failed=$((failed + 1))
        summary+=("FAIL  Lua $lua  $name (exit status $rc)")
    fi
    return $rc
}

interpreter() {
    case $1 in
        luajit) printf 'luajit\n' ;;
        *) printf 'lua%s\n' "$1" ;;
    esac
}

build() { # V
    psoc_generate "--lua=$1" >/dev/null && psoc_make release "--lua=$1" -- psoc pso psoc_tests
}

has_test_command() { # PSOC_BIN
    "$1" test --help >/dev/null 2>&1
}

for v in $LUAS; do
    out=$(psoc_outdir release "--lua=$v")
    lua=$(interpreter "$v")
    if ((BUILD)); then
        step "$v" "build ($out)" build "$v" || continue
    fi

    if command -v "$lua" >/dev/null 2>&1; then
        step "$v" "module: $lua loads $out/lib/pso.so, annotations agree" \
            env LUA_CPATH="$out/lib/?.so" "$lua" scripts/types/check.lua scripts/types/pso.lua
        if [[ -f tests/lua/run.sh ]]; then
            step "$v" "specs: tests/lua/run.sh $lua" sh tests/lua/run.sh "$lua" "$out/lib/?.so"
        fi
    else
        failed=$((failed + 1))
        summary+=("FAIL  Lua $v  no $lua interpreter (scripts/lib.sh PSOC_DEPS)")
    fi

    if has_test_command "$out/bin/psoc"; then
        suites=()
        for dir in tests/lua scripts/tests; do
            [[ -d $dir ]] && suites+=("$dir")
        done
        if ((${#suites[@]} > 0)); then
            step "$v" "suites: $out/bin/psoc test ${suites[*]}" \
                timeout -k 10 600 "$out/bin/psoc" test "${suites[@]}"
        fi
    else
        summary+=("SKIP  Lua $v  psoc has no test command")
    fi

    if [[ -x $out/bin/psoc_tests ]]; then
        step "$v" "sandbox: psoc_tests (suite sandbox)" \
            env CK_RUN_SUITE=sandbox CK_VERBOSITY=normal timeout -k 10 600 "$out/bin/psoc_tests"
    fi
done

printf '\n---- summary\n'
printf '%s\n' "${summary[@]}"
printf 'lua versions: %d passed, %d failed\n' "$passed" "$failed"
((failed == 0))
