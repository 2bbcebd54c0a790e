#!/usr/bin/env bash
# 'psoc watch' end to end: --help, --once, an edit seen by a running watch
# (inotify and --poll), a broken edit kept off with its error, and a clean
# exit on SIGINT and SIGTERM. Every wait is a bounded loop of short sleeps
# (the 3 ms coalescing window).
#
#   bash tests/reload/test_watch.sh build/bin/psoc
set -u
PSOC=${1:?usage: test_watch.sh PATH/TO/psoc}
PSOC=$(cd "$(dirname "$PSOC")" && pwd)/$(basename "$PSOC")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/psoc_watch.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fails=0
pass() { printf 'ok   %s\n' "$1"; }
fail() { printf 'FAIL %s\n' "$1"; fails=$((fails + 1)); }

material() { # FILE NAME SAMPLES
    cat > "$1" <<LUA
local pso = require "pso"
return pso.graphics { name = "$2", vs = pso.shader "s.vs", sample_desc = { count = $3 } }
LUA
}

# wait_for FILE PATTERN: up to ~10 s for PATTERN to appear in FILE
wait_for() {
    local i
    for ((i = 0; i < 3000; i++)); do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.003
    done
    return 1
}

# wait_exit PID: up to ~10 s for PID to end; its status in $st
wait_exit() {
    local i
    for ((i = 0; i < 3000; i++)); do
        if ! kill -0 "$1" 2>/dev/null; then
            wait "$1"
            st=$?
            return 0
        fi
        sleep 0.003
    done
    kill -KILL "$1" 2>/dev/null
    st=timeout
    return 1
}

mkdir -p "$TMP/m"
printf 'vs' > "$TMP/m/s.vs"
material "$TMP/m/a.lua" a 1
material "$TMP/m/b.lua" b 1

# --help
if "$PSOC" watch --help | grep -q '^usage: psoc watch' && "$PSOC" help watch | grep -q 'TIME changed'; then
    pass "watch --help"
else
    fail "watch --help"
fi
# usage errors
"$PSOC" watch > /dev/null 2>&1
[[ $? == 2 ]] && pass "no arguments: status 2" || fail "no arguments: status 2"
"$PSOC" watch --coalesce-ms=0 "$TMP/m" > /dev/null 2>&1
[[ $? == 2 ]] && pass "--coalesce-ms=0: status 2" || fail "--coalesce-ms=0: status 2"
"$PSOC" watch --once "$TMP/nonexistent" > /dev/null 2> "$TMP/err"
[[ $? == 2 ]] && grep -q nonexistent "$TMP/err" && pass "missing path: status 2, named" ||
    fail "missing path: status 2, named"

# --once: one line per pipeline, time, name, version, hash
out=$("$PSOC" watch --once "$TMP/m")
rc=$?
if [[ $rc == 0 ]] && grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} changed .*/a\.lua:a v1 [0-9a-f]{32}$' <<< "$out" &&
    [[ $(grep -c changed <<< "$out") == 2 ]]; then
    pass "--once lists the pipelines"
else
    fail "--once lists the pipelines (status $rc): $out"
fi
printf 'return pso.graphics { name = = 1 }\n' > "$TMP/m/broken.lua"
out=$("$PSOC" watch --once "$TMP/m")
rc=$?
[[ $rc == 1 ]] && grep -q 'failed .*/broken\.lua: .*broken\.lua:1' <<< "$out" &&
    pass "--once: a failing script, status 1 with file and line" ||
    fail "--once: a failing script (status $rc): $out"
rm "$TMP/m/broken.lua"

# --cook: the archive holds the last good pipelines, by name
mkdir -p "$TMP/c"
printf 'vs' > "$TMP/c/s.vs"
material "$TMP/c/x.lua" cooked_pipeline_x 1
material "$TMP/c/y.lua" cooked_pipeline_y 1
out=$("$PSOC" watch --once --cook "$TMP/c.arc" "$TMP/c")
if [[ $? == 0 ]] && grep -q 'cooked .*c\.arc: 2 pipelines' <<< "$out" &&
    grep -aq cooked_pipeline_x "$TMP/c.arc" && grep -aq cooked_pipeline_y "$TMP/c.arc"; then
    pass "--once --cook writes both pipelines"
else
    fail "--once --cook: $out"
fi
"$PSOC" watch --cook "$TMP/c.arc" "$TMP/c" > "$TMP/out.cook" 2>&1 &
pid=$!
wait_for "$TMP/out.cook" 'cooked .*: 2 pipelines' || fail "cook: first archive"
cp "$TMP/c.arc" "$TMP/c.arc.1"
material "$TMP/c/x.lua" cooked_pipeline_x 4
if wait_for "$TMP/out.cook" 'x\.lua:cooked_pipeline_x v2' && wait_for "$TMP/out.cook" 'cooked .*: 2 pipelines' &&
    [[ $(grep -c 'cooked .*: 2 pipelines' "$TMP/out.cook") == 2 ]] && ! cmp -s "$TMP/c.arc" "$TMP/c.arc.1"; then
    pass "cook: an edit rewrites the archive"
else
    fail "cook: an edit rewrites the archive"
fi
cp "$TMP/c.arc" "$TMP/c.arc.2"
printf 'return pso.graphics { name = = 1 }\n' > "$TMP/c/y.lua"
wait_for "$TMP/out.cook" 'failed .*y\.lua' || fail "cook: broken edit reported"
cmp -s "$TMP/c.arc" "$TMP/c.arc.2" && grep -aq cooked_pipeline_y "$TMP/c.arc" &&
    pass "cook: a broken edit keeps the last good archive" || fail "cook: broken edit changed the archive"
printf 'local pso = require "pso"\nreturn {}\n' > "$TMP/c/y.lua"
if wait_for "$TMP/out.cook" 'removed .*cooked_pipeline_y' && wait_for "$TMP/out.cook" 'cooked .*: 1 pipeline$' &&
    ! grep -aq cooked_pipeline_y "$TMP/c.arc"; then
    pass "cook: a removed pipeline leaves the archive"
else
    fail "cook: a removed pipeline leaves the archive"
fi
material "$TMP/c/z.lua" cooked_pipeline_x 2
wait_for "$TMP/out.cook" 'cook-failed .*cooked_pipeline_x' &&
    pass "cook: two scripts with one name: cook-failed, named" || fail "cook: duplicate name"
kill -INT "$pid"
wait_exit "$pid"

for mode in inotify poll; do
    material "$TMP/m/a.lua" a 1
    args=()
    [[ $mode == poll ]] && args=(--poll --poll-ms=10)
    "$PSOC" watch "${args[@]}" "$TMP/m" > "$TMP/out.$mode" 2>&1 &
    pid=$!
    if wait_for "$TMP/out.$mode" 'b\.lua:b v1'; then pass "$mode: first load"; else fail "$mode: first load"; fi
    material "$TMP/m/a.lua" a 4
    if wait_for "$TMP/out.$mode" 'a\.lua:a v2'; then pass "$mode: edit -> v2"; else fail "$mode: edit -> v2"; fi
    printf 'local pso = require "pso"\nreturn pso.graphics { name = = 1 }\n' > "$TMP/m/a.lua"
    if wait_for "$TMP/out.$mode" 'failed .*a\.lua: .*a\.lua:2'; then pass "$mode: broken edit reported with its line"; else fail "$mode: broken edit"; fi
    material "$TMP/m/a.lua" a 2
    if wait_for "$TMP/out.$mode" 'recovered .*a\.lua' && wait_for "$TMP/out.$mode" 'a\.lua:a v3'; then
        pass "$mode: fixed -> recovered, v3"
    else
        fail "$mode: fixed -> recovered, v3"
    fi
    sig=INT
    [[ $mode == poll ]] && sig=TERM
    kill -"$sig" "$pid"
    wait_exit "$pid"
    [[ $st == 0 ]] && pass "$mode: SIG$sig exits with status 0" || fail "$mode: SIG$sig exit: $st"
    if grep -q 'b\.lua:b v2' "$TMP/out.$mode"; then fail "$mode: b changed without an edit"; fi
done

if ((fails)); then
    echo "test_watch.sh: $fails failure(s)"
    exit 1
fi
echo "test_watch.sh: all passed"
