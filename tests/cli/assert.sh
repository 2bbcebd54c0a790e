# shellcheck shell=bash
# Shared by the CLI test scripts: argument handling (PSOC_BINARY), a
# temporary folder, pass/fail counters, the run/expect/has/lacks
# assertions and (tests/cli/os.sh) posix_only for checks that cannot run
# on Windows. Source it after setting TEST_NAME; it changes to the
# repository root.
# shellcheck disable=SC2034  # OUT, ERR, RC, TMP are used by the sourcing script
if [[ $# -ne 1 || $1 == -h || $1 == --help ]]; then
    echo "usage: $0 PSOC_BINARY" >&2
    exit 2
fi
PSOC=$1
[[ $PSOC == */* ]] || PSOC=$(command -v -- "$PSOC" || echo "$PSOC")
[[ $PSOC == /* ]] || PSOC=$PWD/$PSOC
if [[ ! -x $PSOC ]]; then
    echo "$TEST_NAME: $1 is not an executable" >&2
    exit 2
fi

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
# shellcheck source=tests/cli/os.sh
. tests/cli/os.sh
TMP=$(mktemp -d "${TMPDIR:-/tmp}/psoc_$TEST_NAME.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT

PASSED=0
FAILED=0
OUT=$TMP/stdout
ERR=$TMP/stderr
RC=0
LAST_ARGS=""

pass() { PASSED=$((PASSED + 1)); }
fail() {
    FAILED=$((FAILED + 1))
    printf 'FAIL: %s\n' "$*"
}

# run ARGS...: run psoc (RUN_TIMEOUT, default 60 s, at most), keep stdout, stderr and the exit
# status. A sanitizer report is a failure whatever the exit status.
run() {
    LAST_ARGS="$*"
    timeout "${RUN_TIMEOUT:-60}" "$PSOC" "$@" >"$OUT" 2>"$ERR"
    RC=$?
    if grep -Eq "(Address|Leak|UndefinedBehavior)Sanitizer|runtime error:" "$ERR"; then
        fail "psoc $* hit a sanitizer error"
        head -20 "$ERR" | sed 's/^/    /'
    fi
}

# expect STATUS ARGS...: run psoc and check its exit status.
expect() {
    local want=$1
    shift
    run "$@"
    if [[ $RC -eq $want ]]; then
        pass
    else
        fail "psoc $* exited $RC, expected $want"
        sed 's/^/    stdout: /' "$OUT" | head -5
        sed 's/^/    stderr: /' "$ERR" | head -5
    fi
}

# has FILE REGEX [WHAT]: the last run's FILE (OUT or ERR) matches REGEX.
has() {
    if grep -Eq -- "$2" "$1"; then
        pass
    else
        fail "${3:-output} lacks /$2/ (psoc $LAST_ARGS)"
        sed 's/^/    got: /' "$1" | head -5
    fi
}
# has_text FILE TEXT [WHAT]: the last run's FILE holds TEXT (a fixed string).
has_text() {
    if grep -Fq -- "$2" "$1"; then
        pass
    else
        fail "${3:-output} lacks '$2' (psoc $LAST_ARGS)"
        sed 's/^/    got: /' "$1" | head -5
    fi
}
lacks() {
    if grep -Eq -- "$2" "$1"; then
        fail "${3:-output} has /$2/ (psoc $LAST_ARGS)"
        grep -E -- "$2" "$1" | head -3 | sed 's/^/    got: /'
    else
        pass
    fi
}
