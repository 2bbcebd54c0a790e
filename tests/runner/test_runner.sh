#!/usr/bin/env bash
# test_runner.sh PSOC_BIN: tests of 'psoc test' itself, over the
# deliberately passing, failing, erroring, looping and broken test files
# in tests/runner/fixtures. Checks the reports (text, TAP, JUnit XML), the
# last line, the exit codes, and that nothing crashes.
#
#   tests/runner/test_runner.sh build/bin/psoc
#
# Exit status: 0 when every check passed.
set -u
export LC_ALL=C

PSOC=${1:-build/bin/psoc}
case $PSOC in /*) ;; *) PSOC=$PWD/$PSOC ;; esac
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
FIX=tests/runner/fixtures

if [[ ! -x $PSOC ]]; then
    echo "test_runner.sh: $PSOC is not an executable" >&2
    exit 2
fi
# shellcheck source=tests/cli/os.sh
. tests/cli/os.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

checks=0
failures=0
OUT=""
RC=0

fail() {
    failures=$((failures + 1))
    printf 'FAIL: %s\n' "$*"
}

ok() {
    checks=$((checks + 1))
}

# run ARGS...: run psoc test, keep stdout+stderr in OUT and status in RC.
run() {
    OUT=$(timeout -k 5 120 "$PSOC" test "$@" 2>&1)
    RC=$?
    if ((RC >= 124)); then
        fail "psoc test $* crashed or hung (status $RC)"
        printf '%s\n' "$OUT" | tail -20
    fi
}

expect_rc() {
    if [[ $RC -eq $1 ]]; then ok; else fail "$2: exit status $RC, expected $1"; fi
}

has() { # TEXT WHAT
    if [[ $OUT == *"$1"* ]]; then ok; else
        fail "$2: output lacks '$1'"
        printf '%s\n' "$OUT" | sed 's/^/    | /' | head -60
    fi
}

lacks() { # TEXT WHAT
    if [[ $OUT == *"$1"* ]]; then fail "$2: output has '$1'"; else ok; fi
}

last_line() { # EXPECTED WHAT
    local last
    last=$(printf '%s\n' "$OUT" | tail -n 1)
    if [[ $last == "$1" ]]; then ok; else fail "$2: last line is '$last', expected '$1'"; fi
    if [[ $last =~ ^(#\ )?[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then ok; else
        fail "$2: last line '$last' is not 'N passed, N failed'"
    fi
}

# ---- passing -----------------------------------------------------------
run "$FIX/passing.lua"
expect_rc 0 "passing"
has "ok    outer > inner > runs the outer hooks first" "passing: nested names"
has "    | hello from a test" "passing: print output"
last_line "5 passed, 0 failed" "passing"

# ---- a failing assertion is a failure, not a crash ----------------------
run "$FIX/failing.lua"
expect_rc 1 "failing"
has "FAIL  tables > compares deeply" "failing: status line"
has "ok    tables > still runs the next test" "failing: the run goes on"
has "tests/runner/fixtures/failing.lua:6: expected values to be equal" "failing: file:line"
has 'expected: { name = "lit", targets = { "r8g8b8a8_unorm", "r16_float" } }' "failing: expected"
has '  actual: { name = "lit", targets = { "r8g8b8a8_unorm", "d32_float" } }' "failing: actual"
has 'targets[2]: expected "r16_float", got "d32_float"' "failing: table diff"
has "rasterizer.cull: expected front, got none" "failing: pipeline diff"
has "rasterizer.fill: expected wireframe, got solid" "failing: pipeline diff"
has "declared at tests/runner/fixtures/failing.lua:16" "failing: where the pipeline was declared"
has "CREATEBLENDSTATE_INVALIDLOGICOPS" "failing: to_be_valid lists diagnostics"
has "failing.lua:27: pipeline shadow_depth: expected values to be equal" "failing: context"
last_line "1 passed, 4 failed" "failing"

# ---- an error inside a test has a traceback ------------------------------
run "$FIX/erroring.lua"
expect_rc 1 "erroring"
has "ERROR errors in a helper" "erroring: status line"
has "erroring.lua:5: attempt to index" "erroring: message"
has "traceback:" "erroring: traceback"
has "erroring.lua:5: in function 'helper'" "erroring: helper frame"
has "erroring.lua:9: in function <tests/runner/fixtures/erroring.lua:8>" "erroring: test frame"
has "(error object is a table value)" "erroring: non-string error"
has "erroring.lua:21: expect(...): no matcher 'to_eqaul' (did you mean 'to_equal'?)" "erroring: misspelt matcher"
lacks "[C]" "erroring: traceback trimmed to file frames"
lacks "psoc test:" "erroring: no test-library frames"
last_line "1 passed, 3 failed" "erroring"

# ---- an endless loop is stopped by the budget; the next test runs -------
start=$SECONDS
run --budget 5000000 "$FIX/looping.lua"
expect_rc 1 "looping"
has "looping.lua:5: instruction budget exceeded (5000000 instructions)" "looping: budget"
has "looping.lua:9: instruction budget exceeded" "looping: pcall cannot swallow it"
has "ok    runs with a fresh budget" "looping: budget reset per test"
has "3) ERROR tests/runner/fixtures/looping.lua: runs out of memory" "looping: memory limit"
has "ok    has memory again" "looping: memory after the limit"
last_line "2 passed, 3 failed" "looping"
if ((SECONDS - start < 60)); then ok; else fail "looping took $((SECONDS - start)) s"; fi

run "$FIX/looping.lua" --filter "loops forever" # the default budget
expect_rc 1 "looping (default budget)"
has "instruction budget exceeded (50000000 instructions)" "looping: default budget"
last_line "0 passed, 1 failed" "looping (default budget)"

# ---- a syntax error names its line ---------------------------------------
run "$FIX/syntax_error.lua"
expect_rc 1 "syntax error"
has "ERROR (loading the file)" "syntax error: status line"
has "tests/runner/fixtures/syntax_error.lua:5:" "syntax error: line"
last_line "0 passed, 1 failed" "syntax error"

run "$FIX/top_error.lua"
expect_rc 1 "top-level error"
has "top_error.lua:4: attempt to index" "top-level error: message"
has "top_error.lua:2: in main chunk" "top-level error: traceback"
last_line "0 passed, 1 failed" "top-level error"

# ---- hooks -------------------------------------------------------------------
run "$FIX/hooks.lua"
expect_rc 1 "hooks"
has "before_each: tests/runner/fixtures/hooks.lua:4: setup failed" "hooks: before_each error"
lacks "the test body ran" "hooks: a failed before_each skips the test"
has "hooks.lua:9: after_each: expected values to be equal" "hooks: after_each failure"
last_line "0 passed, 2 failed" "hooks"

# ---- materials ---------------------------------------------------------------
run "$FIX/materials_load.lua"
expect_rc 1 "materials"
has "ok    loads a material relative to this file" "materials: load"
has "ok    reports the material's line" "materials: error line"
has "ok    walks a directory" "materials: each"
has "ok    refuses paths outside the roots" "materials: roots"
has "tests/runner/fixtures/broken/bad.lua:3: rasterizer.cul: unknown key" "materials: error propagates"
has "materials_load.lua:25: in function" "materials: traceback names the test line"
has "ok    refuses two pipelines with one name" "materials: duplicate names"
last_line "5 passed, 1 failed" "materials"

run --root "$FIX/materials" "$FIX/roots.lua"
expect_rc 0 "--root"
last_line "3 passed, 0 failed" "--root"
run "$FIX/roots.lua"
expect_rc 1 "no --root"
has "no material root: run 'psoc test --root DIR'" "no --root: message"

# ---- isolation: materials run in states of their own -------------------------
ATK=$FIX/attacks
run "$ATK/evil_materials.lua"
expect_rc 1 "isolation"
has "FAIL  a failing expectation still fails after the material ran" "isolation: expect not replaced"
has "ok    the material saw no test API" "isolation: the material saw no test API"
has "ok    pipelines copied from a material read back, hash, check, derive and locate" \
    "isolation: imported pipelines work"
has "ok    a material cannot poison the test's state or the next material" "isolation: no poisoning"
lacks "forged" "isolation: a material cannot register tests"
last_line "3 passed, 1 failed" "isolation"

# ---- a test file cannot change the runner's verdicts ----------------------------
run "$ATK/poke_runner.lua"
expect_rc 1 "poking the runner"
has "FAIL  a caught failure still fails" "poking: pcall around expect"
has "FAIL  the expectation metatable is locked" "poking: metatable"
has "FAIL  replacing library functions changes no verdict" "poking: library functions"
has "FAIL  metamethods of a value do not decide equality" "poking: metamethods"
has "ERROR a forged failure object is an error, not a pass" "poking: forged failure"
last_line "0 passed, 5 failed" "poking the runner"

run "$ATK/top_level_caught.lua"
expect_rc 1 "caught top-level failure"
has "ERROR (loading the file)" "caught top-level failure: status"
has "an expectation outside any test failed: tests/runner/fixtures/attacks/top_level_caught.lua:3: expected values to be equal" \
    "caught top-level failure: message"
last_line "0 passed, 1 failed" "caught top-level failure"

# ---- budgets: materials are paid by their test; tests per file are capped -------
run --budget 2000000 "$ATK/material_budget.lua"
expect_rc 1 "material budget"
has "ERROR a material's endless loop is charged to the test" "material budget: status"
has "instruction budget exceeded" "material budget: message"
has "ok    the next test has a fresh budget" "material budget: next test"
has "ERROR loading a broken material over and over is not free" "material budget: loads are charged"
has "ok    a broken material fails the same way every time" "material budget: errors kept"
last_line "2 passed, 2 failed" "material budget"
run "$ATK/many_tests.lua"
expect_rc 1 "tests per file"
has "more than 10000 tests in one file" "tests per file: message"
last_line "0 passed, 1 failed" "tests per file"

# ---- the run's total budget ------------------------------------------------------
run --budget 1000000 --run-budget 2500000 "$ATK/run_budget.lua"
expect_rc 1 "run budget"
has "ERROR (run budget)" "run budget: reported"
has "the run's instruction budget is spent (2500000 instructions; --run-budget)" "run budget: message"
lacks "spins 4" "run budget: the tests left are not run"
last_line "0 passed, 4 failed" "run budget"
run --run-time 1 --budget 2000000000 "$ATK/run_budget.lua" # ~1 s
expect_rc 1 "run time"
# the state's limit is what is left of the run's 1000 ms when it starts:
# 1000 where starting takes under a millisecond, less where it takes longer
# (under Wine: some 20 ms), never the per-state default
if [[ $OUT =~ time\ limit\ exceeded\ \(([0-9]+)\ ms\) ]] && ((BASH_REMATCH[1] >= 500 && BASH_REMATCH[1] <= 1000)); then
    ok
else
    fail "run time: the state's clock is not cut to the run's 1000 ms"
    printf '%s\n' "$OUT" | sed 's/^/    | /' | head -20
fi
has "the run's time is up (1 s; --run-time)" "run time: message"
last_line "0 passed, 2 failed" "run time"
run --run-budget 0 "$FIX/passing.lua"
expect_rc 2 "bad run budget"
run --run-time -1 "$FIX/passing.lua"
expect_rc 2 "bad run time"

# ---- output cannot be forged; escape codes are escaped ----------------------------
run "$ATK/forge_output.lua"
expect_rc 1 "forged output"
if grep -qaxE '  ok    forged.*|[0-9]+ passed, [0-9]+ failed' <<<"$(printf '%s\n' "$OUT" | sed '$d')"; then
    fail "forged output: a forged report line"
else ok; fi
if LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]' <<<"$OUT"; then
    fail "forged output: raw control characters in the report"
else ok; fi
has 'ok    x\n  ok    forged pass\n9 passed, 0 failed' "forged output: name escaped"
has 'paints \x1b[31mred\x1b[0m' "forged output: escape codes escaped"
has '    | \x1b]0;title\x07 then' "forged output: print output escaped"
has 'invalid UTF-8 \xff\xfe # not a directive' "forged output: invalid UTF-8 escaped"
last_line "2 passed, 2 failed" "forged output"
run --tap "$ATK/forge_output.lua"
bad=$(grep -avE '^(TAP version 13|1\.\.[0-9]+|(not )?ok [0-9]+ - .*|#.*|  .*)$' <<<"$OUT")
if [[ -z $bad ]]; then ok; else fail "forged output: lines that are not TAP: $(head -3 <<<"$bad")"; fi
n_tests=$(grep -acE '^(not )?ok [0-9]+ ' <<<"$OUT")
if [[ $n_tests == 4 ]]; then ok; else fail "forged output: $n_tests TAP test lines, expected 4"; fi
has '\# not a directive' "forged output: TAP directive escaped"
if LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]' <<<"$OUT"; then
    fail "forged output (TAP): raw control characters"
else ok; fi
last_line "# 2 passed, 2 failed" "forged output (TAP)"
if command -v python3 >/dev/null 2>&1; then
    run --junit "$TMP/forged.xml" "$ATK/forge_output.lua"
    if python3 -c 'import xml.dom.minidom,sys; d = xml.dom.minidom.parse(sys.argv[1]); assert len(d.getElementsByTagName("testcase")) == 4' "$TMP/forged.xml"; then
        ok
    else
        fail "forged output: JUnit XML not well-formed"
    fi
fi

# ---- messages and output copied out of the state are capped ----------------------
run "$ATK/huge_messages.lua"
expect_rc 1 "huge messages"
has "xxx... (message truncated (20000 bytes))" "huge messages: a message cut at 16 KiB"
has "(output truncated)" "huge messages: output cut at 64 KiB"
has $'\n   ... (message truncated (20000 bytes))' "huge messages: nothing kept once the file's 1 MiB is spent"
has "ERROR huge 80" "huge messages: names are kept"
if ((${#OUT} < 1300000)); then ok; else fail "huge messages: ${#OUT} bytes of report"; fi
last_line "0 passed, 80 failed" "huge messages"

# ---- empty test files and runs fail unless --allow-empty --------------------------
run "$ATK/empty.lua"
expect_rc 1 "empty file"
has "ERROR (no tests)" "empty file: reported"
has "declares no tests" "empty file: message"
last_line "0 passed, 1 failed" "empty file"
run --allow-empty "$ATK/empty.lua"
expect_rc 0 "empty file, --allow-empty"
last_line "0 passed, 0 failed" "empty file, --allow-empty"
run --filter "no such test" "$FIX/passing.lua"
expect_rc 1 "no test ran"
has "no test ran" "no test ran: message"
last_line "0 passed, 1 failed" "no test ran"
run --allow-empty --filter "no such test" "$FIX/passing.lua"
expect_rc 0 "no test ran, --allow-empty"
last_line "0 passed, 0 failed" "no test ran, --allow-empty"

# ---- --werror ------------------------------------------------------------------
run "$ATK/werror.lua"
expect_rc 0 "warnings"
last_line "4 passed, 0 failed" "warnings"
run --werror "$ATK/werror.lua"
expect_rc 1 "--werror"
has "FAIL  a pipeline with only a warning is valid" "--werror: to_be_valid"
has "to be valid (warnings count as errors: --werror), check reported 1 error" "--werror: message"
has "ok    reports its warning" "--werror: to_report"
has "FAIL  its warning is not an error" "--werror: to_fail_with"
has "(a warning; an error under --werror)" "--werror: the promoted diagnostic"
has "FAIL  materials.check lists it as a warning" "--werror: materials.check"
last_line "1 passed, 3 failed" "--werror"

# ---- discovery -----------------------------------------------------------------
run "$FIX/discover"
expect_rc 0 "discovery"
has "$FIX/discover/a_test.lua" "discovery: a_test.lua"
has "$FIX/discover/sub/b_test.lua" "discovery: recursive"
lacks "helper.lua" "discovery: only *_test.lua"
lacks "hidden" "discovery: hidden directories skipped"
last_line "2 passed, 0 failed" "discovery"
a=$(grep -n "a_test.lua" <<<"$OUT" | head -1 | cut -d: -f1)
b=$(grep -n "b_test.lua" <<<"$OUT" | head -1 | cut -d: -f1)
if [[ -n $a && -n $b && $a -lt $b ]]; then ok; else fail "discovery: not sorted"; fi

# ---- --filter ---------------------------------------------------------------------
run --filter "still runs" "$FIX/failing.lua"
expect_rc 0 "filter"
last_line "1 passed, 0 failed" "filter"

# ---- TAP ----------------------------------------------------------------------------
run --tap --budget 5000000 "$FIX/discover" "$FIX"/*.lua
expect_rc 1 "tap"
TAP=$OUT
first=$(printf '%s\n' "$TAP" | head -n 1)
if [[ $first == "TAP version 13" ]]; then ok; else fail "tap: first line '$first'"; fi
n_tests=$(grep -acE '^(not )?ok [0-9]+ ' <<<"$TAP")
n_fail=$(grep -acE '^not ok [0-9]+ ' <<<"$TAP")
if grep -qx "1..$n_tests" <<<"$TAP"; then ok; else fail "tap: no plan 1..$n_tests"; fi
numbers=$(grep -aoE '^(not )?ok [0-9]+' <<<"$TAP" | grep -oE '[0-9]+$' | tr '\n' ' ')
want=$(seq 1 "$n_tests" | tr '\n' ' ')
if [[ $numbers == "$want" ]]; then ok; else fail "tap: test numbers are not 1..$n_tests in order"; fi
if grep -qE '^  ---$' <<<"$TAP" && grep -qE '^  \.\.\.$' <<<"$TAP"; then ok; else fail "tap: no YAML blocks"; fi
bad=$(grep -avE '^(TAP version 13|1\.\.[0-9]+|(not )?ok [0-9]+ - .*|#.*|  .*)$' <<<"$TAP")
if [[ -z $bad ]]; then ok; else fail "tap: lines that are not TAP: $(head -3 <<<"$bad")"; fi
last_line "# $((n_tests - n_fail)) passed, $n_fail failed" "tap"
if command -v perl >/dev/null 2>&1 && perl -MTAP::Parser -e 1 2>/dev/null; then
    verdict=$(perl -MTAP::Parser -e '
        local $/; my $t = <STDIN>;
        my $p = TAP::Parser->new({ tap => $t });
        while (my $r = $p->next) {}
        my @e = $p->parse_errors;
        print @e ? "errors: @e" : ("ok " . $p->tests_run . " " . scalar($p->failed));' <<<"$TAP")
    if [[ $verdict == "ok $n_tests $n_fail" ]]; then ok; else fail "tap: TAP::Parser says '$verdict'"; fi
fi

# ---- JUnit XML ---------------------------------------------------------------------
run --junit "$TMP/report.xml" --budget 5000000 "$FIX/discover" "$FIX"/*.lua
expect_rc 1 "junit"
if [[ -f $TMP/report.xml ]]; then ok; else fail "junit: no report written"; fi
leftover=("$TMP"/report.xml.tmp.*)
if [[ -e ${leftover[0]} ]]; then fail "junit: temporary file left behind"; else ok; fi
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$TMP/report.xml"; then
        ok
    else
        fail "junit: not well-formed XML"
    fi
    summary=$(python3 - "$TMP/report.xml" <<'EOF'
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
root = d.documentElement
cases = d.getElementsByTagName("testcase")
fails = sum(len(c.getElementsByTagName("failure")) for c in cases)
errs = sum(len(c.getElementsByTagName("error")) for c in cases)
names = [c.getAttribute("name") for c in cases]
weird = [n for n in names if "<tags>" in n and '"quotes"' in n]
print(root.tagName, len(cases), fails, errs, root.getAttribute("tests"),
      root.getAttribute("failures"), root.getAttribute("errors"), len(weird))
EOF
)
    read -r tag cases fails errs tests afails aerrs weird <<<"$summary"
    if [[ $tag == testsuites && $cases == "$tests" && $fails == "$afails" && $errs == "$aerrs" ]]; then
        ok
    else
        fail "junit: counts do not match ($summary)"
    fi
    if [[ $weird == 1 ]]; then ok; else fail "junit: escaped name not read back"; fi
    last_line "$((cases - fails - errs)) passed, $((fails + errs)) failed" "junit"
fi
mkdir "$TMP/ro" && chmod 500 "$TMP/ro"
if [[ -w $TMP/ro ]]; then
    ok # running as root: permissions do not apply
else
    run --junit "$TMP/ro/report.xml" "$FIX/passing.lua"
    expect_rc 2 "junit: unwritable report"
    has "cannot write" "junit: unwritable report message"
fi

# ---- --junit refuses what is not a regular file, and the inputs ------------------
cp "$FIX/passing.lua" "$TMP/a_test.lua"
cp "$TMP/a_test.lua" "$TMP/a_copy"
mkfifo "$TMP/fifo"
echo keep >"$TMP/target"
ln -s "$TMP/target" "$TMP/link"
run --junit "$TMP/a_test.lua" "$TMP/a_copy"
expect_rc 2 "junit: a .lua value"
has "a report does not end in .lua" "junit: a .lua value: message"
if cmp -s "$FIX/passing.lua" "$TMP/a_test.lua"; then ok; else fail "junit: the test file was overwritten"; fi
run --junit "$TMP/a_copy" "$TMP/a_copy"
expect_rc 2 "junit: an input"
has "is the test file" "junit: an input: message"
if cmp -s "$FIX/passing.lua" "$TMP/a_copy"; then ok; else fail "junit: an input was overwritten"; fi
run --junit "$TMP/fifo" "$FIX/passing.lua"
expect_rc 2 "junit: a FIFO"
has "is a FIFO: refusing to replace it" "junit: a FIFO: message"
if [[ -p $TMP/fifo ]]; then ok; else fail "junit: the FIFO was replaced"; fi
if posix_only "--junit SYMLINK: symbolic links: Wine shows a Unix symlink to a Windows program as the file it points to, and cannot make a Windows one (its CreateSymbolicLinkW makes nothing)"; then
    run --junit "$TMP/link" "$FIX/passing.lua"
    expect_rc 2 "junit: a symlink"
    has "is a symbolic link" "junit: a symlink: message"
    if [[ -L $TMP/link && $(cat "$TMP/target") == keep ]]; then ok; else fail "junit: the symlink was replaced"; fi
fi
# A device node of our own (a runner that replaced it would otherwise break
# the machine's /dev/null when run as root); needs root to create.
if mknod "$TMP/null" c 1 3 2>/dev/null; then
    run --junit "$TMP/null" "$FIX/passing.lua"
    expect_rc 2 "junit: a device"
    has "is a character device" "junit: a device: message"
    if [[ -c $TMP/null ]]; then ok; else fail "junit: the device node was replaced"; fi
fi
run --junit "$TMP" "$FIX/passing.lua"
expect_rc 2 "junit: a directory"
has "is a directory" "junit: a directory: message"
lacks "passed," "junit: refused before any test runs"
run --junit "$TMP/new/sub/report.xml" "$FIX/passing.lua"
expect_rc 0 "junit: parent folders"
if [[ -f $TMP/new/sub/report.xml ]]; then ok; else fail "junit: parent folders not created"; fi
if [[ ! -w $TMP/ro ]]; then
    run --junit "$TMP/ro/report.xml" "$FIX/passing.lua"
    lacks "ok    outer" "junit: unwritable report refused before any test runs"
fi

# ---- usage and I/O errors --------------------------------------------------------------
run "$FIX/no_such_file.lua"
expect_rc 2 "missing path"
mkdir "$TMP/empty"
run "$TMP/empty"
expect_rc 2 "no test files"
has "no test files" "no test files: message"
run --bogus "$FIX/passing.lua"
expect_rc 2 "unknown option"
run --budget abc "$FIX/passing.lua"
expect_rc 2 "bad budget"
run --memory 0 "$FIX/passing.lua"
expect_rc 2 "bad memory limit"
run --memory 16 --filter "memory" "$FIX/looping.lua"
expect_rc 1 "memory limit option"
has "memory limit exceeded" "memory limit option"
last_line "1 passed, 1 failed" "memory limit option"
run --root "$TMP/nope" "$FIX/passing.lua"
expect_rc 2 "bad root"
run --junit
expect_rc 2 "option without value"
run --help
expect_rc 0 "help"
has "usage: psoc test" "help text"
OUT=$("$PSOC" help test 2>&1)
RC=$?
expect_rc 0 "psoc help test"
has "--junit FILE" "psoc help test: options"

printf 'test_runner.sh: %d checks, %d failed%s\n' "$((checks + failures))" "$failures" "$(skipped_note)"
((failures == 0))
