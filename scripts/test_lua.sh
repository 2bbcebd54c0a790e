#!/usr/bin/env bash
# Run psoc's Lua-side test suites with its own runner, `psoc test`:
#
#   scripts/test_lua.sh            (scripts/test.sh calls it as step "lua")
#
# Steps, each reported; a failure does not stop the others:
#   1. bindings/lua/testlib_lua.c is current (scripts/gen_testlib.lua --check)
#   2. psoc test tests/lua scripts/tests   (the module's specs and the example
#      suite over the bundled materials; JUnit XML in build/reports/lua.xml)
#   3. tests/runner/test_runner.sh          (the runner's own tests)
# with build/bin/psoc, and again with build/sanitize/bin/psoc (ASan+UBSan)
# when it exists. PSOC_BINS="path ..." picks the psoc binaries instead, e.g.
#   PSOC_BINS="build/lua5.1/bin/psoc build/luajit/bin/psoc" scripts/test_lua.sh
# to run the suites against the other Luas (build those first:
# scripts/lib.sh psoc_build release --lua=5.1).
#
# Exit status: 0 when every step passed.
set -u

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

LUA=""
for candidate in lua5.4 lua5.3 lua lua5.1 luajit; do
    if command -v "$candidate" >/dev/null 2>&1; then
        LUA=$candidate
        break
    fi
done

if [[ -n ${PSOC_BINS:-} ]]; then
    read -r -a bins <<<"$PSOC_BINS"
else
    bins=(build/bin/psoc)
    [[ -x build/sanitize/bin/psoc ]] && bins+=(build/sanitize/bin/psoc)
fi

status=0
summary=()

step() { # NAME CMD...
    local name=$1 rc
    shift
    printf '\n---- %s\n' "$name"
    "$@"
    rc=$?
    if ((rc == 0)); then
        summary+=("PASS  $name")
    else
        summary+=("FAIL  $name (exit status $rc)")
        status=1
    fi
}

if [[ -n $LUA ]]; then
    step "testlib_lua.c is current" "$LUA" scripts/gen_testlib.lua --check
else
    summary+=("SKIP  testlib_lua.c is current (no Lua interpreter)")
fi

mkdir -p build/reports
for bin in "${bins[@]}"; do
    if [[ ! -x $bin ]]; then
        summary+=("FAIL  $bin does not exist (build it first)")
        status=1
        continue
    fi
    env=()
    report=build/reports/lua.xml
    if [[ $bin == *sanitize* ]]; then
        env=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
        report=build/reports/lua-sanitize.xml
    fi
    suites=()
    for dir in tests/lua scripts/tests; do
        [[ -d $dir ]] && suites+=("$dir")
    done
    step "$bin test ${suites[*]}" env "${env[@]}" "$bin" test --junit "$report" "${suites[@]}"
    step "tests/runner/test_runner.sh $bin" env "${env[@]}" bash tests/runner/test_runner.sh "$bin"
done

printf '\n---- summary\n'
printf '%s\n' "${summary[@]}"
exit $status
