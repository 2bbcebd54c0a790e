#!/usr/bin/env bash
# The Windows programs that scripts/windows.sh built, run under wine64:
#
#   1. psoc.exe --version prints psoc.h's version
#   2. psoc.dll and pso.dll export exactly their public functions
#      (tests/consumer/test_exports.sh --pe)
#   3. windows_consumer.exe (links psoc.dll and lua54.dll) evaluates
#      tests/consumer/material.lua through pso.dll: psoc.dll's hash of the
#      stream equals pso.dll's, and both equal the Linux build's when
#      build/lib/pso.so exists; windows_engine.exe (psol.h, static libpsoc)
#      prints the same hash
#   4. the Lua suites (tests/lua, scripts/tests) through psoc.exe test;
#      psoc.exe cook --depfile writes native paths (C:/x, not /C:/x)
#   5. the CLI test scripts with tests/windows/psoc-wine as the psoc binary
#      and PSOC_TEST_OS=windows: tests/runner/test_runner.sh,
#      tests/cli/test_cli.sh, tests/cli/test_scripts.sh (some 900 Wine
#      starts, about 1.5 minutes on 2 cores with one wineserver for all);
#      the checks that cannot run on Windows are skipped by the scripts'
#      posix_only (tests/cli/os.sh), each printed with its reason
#   6. with --full: also tests/cook/test_cook.sh
#
# Exit status 0 only if every check passed. The WINEPREFIX is
# build/windows/wine (created by the first run), WINEDEBUG=-all.
set -uo pipefail

FULL=0
[[ ${1:-} == --full ]] && FULL=1

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
ROOT=$PWD
W=$ROOT/build/windows
BIN=$W/bin
export WINEPREFIX=${WINEPREFIX:-$W/wine} WINEDEBUG=${WINEDEBUG:--all} PSOC_TEST_OS=windows
WINE=$(command -v wine64 || echo /usr/lib/wine/wine64)
WINESERVER=$(command -v wineserver || echo /usr/lib/wine/wineserver)

pass=0
fail=0
results=()
ok() {
    pass=$((pass + 1))
    results+=("PASS  $1")
    echo "ok   $1"
}
bad() {
    fail=$((fail + 1))
    results+=("FAIL  $1")
    echo "FAIL $1"
}
wrun() { "$WINE" "$@"; }

if [[ ! -x $WINE ]]; then
    echo "FAIL no wine64 (install wine64; scripts/lib.sh PSOC_DEPS)"
    exit 1
fi
mkdir -p "$WINEPREFIX"
# Wine's z: drive is a link to / inside the prefix: tools that walk build/
# (luacheck, find) would walk the whole file system through it. It exists
# only while this script runs (psoc-wine makes it when it is missing).
if [[ -d $WINEPREFIX/dosdevices ]]; then ln -sfn / "$WINEPREFIX/dosdevices/z:"; fi
trap 'rm -f "$WINEPREFIX/dosdevices/z:"' EXIT

# One wineserver for every check (each later Wine start takes ~0.1 s
# instead of seconds), started, with the prefix's services, by a first run
# whose output goes nowhere: a service started by a Wine program inside a
# command substitution would hold its pipe open, and the substitution
# would never end.
"$WINESERVER" -p </dev/null >/dev/null 2>&1 || true
wrun "$BIN/psoc.exe" --version </dev/null >/dev/null 2>&1
trap 'rm -f "$WINEPREFIX/dosdevices/z:"; "$WINESERVER" -k 2>/dev/null' EXIT

# 1. --version
want=$(sed -n 's/^#define PSOC_VERSION_STRING "\(.*\)"$/\1/p' src/psoc.h)
out=$(wrun "$BIN/psoc.exe" --version 2>&1 | tr -d '\r')
if [[ -n $want && $out == *"$want"* ]]; then
    ok "psoc.exe --version: $out"
else
    bad "psoc.exe --version printed '$out' (want $want)"
fi

# 2. export tables
if bash tests/consumer/test_exports.sh --pe "$BIN"; then
    ok "psoc.dll and pso.dll export exactly the declared functions"
else
    bad "psoc.dll / pso.dll exports"
fi

# 3. consumers
material=tests/consumer/material.lua
line=$(wrun "$BIN/windows_consumer.exe" "$material" "$BIN" forward 2>&1 | tr -d '\r')
read -r name dll_hash module_hash errors <<<"$line"
if [[ $name == consumer_lit && ${#dll_hash} == 32 && $dll_hash == "$module_hash" && $errors == 0 ]]
then
    ok "windows_consumer.exe (psoc.dll): $name $dll_hash, pso.dll agrees, 0 errors"
else
    bad "windows_consumer.exe printed '$line'"
fi
engine=$(wrun "$BIN/windows_engine.exe" "$material" 2>&1 | tr -d '\r')
if [[ $engine == "consumer_lit $dll_hash "* ]]; then
    ok "windows_engine.exe (psol.h): $engine"
else
    bad "windows_engine.exe printed '$engine' (want consumer_lit $dll_hash)"
fi
if [[ -f build/lib/pso.so ]] && command -v lua5.4 >/dev/null 2>&1; then
    linux=$(cd tests/consumer && LUA_CPATH="$ROOT/build/lib/?.so" lua5.4 -e \
        'local p = dofile("material.lua"); io.write(p:hash())' 2>&1)
    if [[ $linux == "$dll_hash" ]]; then
        ok "the Windows hash equals the Linux build's ($linux)"
    else
        bad "Linux pso.so hashes material.lua as '$linux', Windows as '$dll_hash'"
    fi
fi

# 4. Lua suites through psoc.exe test
suites=()
for dir in tests/lua scripts/tests; do
    [[ -d $dir ]] && suites+=("$dir")
done
mkdir -p build/reports
if tests/windows/psoc-wine test --junit build/reports/lua-windows.xml "${suites[@]}" \
    >"$W/lua.log" 2>&1; then
    ok "psoc.exe test ${suites[*]}: $(tail -n 1 "$W/lua.log")"
else
    tail -n 40 "$W/lua.log"
    bad "psoc.exe test ${suites[*]}: $(tail -n 1 "$W/lua.log") (log: $W/lua.log)"
fi

# 4b. a depfile (psoc cook --unit) names its files as other Windows programs
# (ninja, make) read them: "Z:/tmp/x.lua", not psoc's own view "/Z:/tmp/x.lua"
dep=$(mktemp -d "${TMPDIR:-/tmp}/psoc_windows_dep.XXXXXX")
cp -R scripts/materials "$dep/mat"
tests/windows/psoc-wine cook --unit "$dep/mat/lit.lua" -o "$dep/lit.unit" --depfile "$dep/lit.d" \
    </dev/null >"$W/depfile.log" 2>&1
line=$(cat "$dep/lit.d" 2>/dev/null)
if [[ $line == *" Z:$dep/mat/lit.lua"* && $line == *" Z:$dep/mat/shaders/"* && $line != *" /Z:"* ]]; then
    ok "psoc.exe cook --depfile: native paths (Z:$dep/mat/lit.lua ...)"
else
    bad "psoc.exe cook --depfile wrote '$line' (want Z:$dep/mat/... paths; log: $W/depfile.log)"
fi
rm -rf "$dep"

# 5. the CLI scripts (6. with --full: the cooking script too)
scripts=(tests/runner/test_runner.sh tests/cli/test_cli.sh tests/cli/test_scripts.sh)
((FULL)) && scripts+=(tests/cook/test_cook.sh)
skips=()
for script in "${scripts[@]}"; do
    log=$W/${script##*/}.log
    start=$SECONDS
    if bash "$script" tests/windows/psoc-wine >"$log" 2>&1; then
        ok "$script: $(tail -n 1 "$log") ($((SECONDS - start)) s)"
    else
        grep -aE '^(FAIL|not ok)' "$log" | head -n 40
        bad "$script: $(tail -n 1 "$log") ($((SECONDS - start)) s; log: $log)"
    fi
    while IFS= read -r line; do skips+=("${script##*/}: ${line#SKIP (POSIX only): }"); done \
        < <(grep -a '^SKIP (POSIX only): ' "$log")
done

printf '\n---- windows summary\n'
printf '%s\n' "${results[@]}"
if ((${#skips[@]} > 0)); then
    printf 'skipped (POSIX only), %d:\n' "${#skips[@]}"
    printf '  %s\n' "${skips[@]}"
fi
echo "windows: $pass passed, $fail failed, ${#skips[@]} CLI checks skipped (POSIX only)"
((fail == 0))
