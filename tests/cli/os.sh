# shellcheck shell=bash
# Shared by the CLI test scripts (through assert.sh) and
# tests/runner/test_runner.sh: which system the psoc under test is built
# for, and posix_only, the one way a check is left out on Windows.
#
# PSOC_TEST_OS=windows (tests/windows/test_windows.sh sets it) or a binary
# named *.exe or psoc-wine (tests/windows/psoc-wine, which runs psoc.exe
# under Wine) means the Windows build; anything else is POSIX.
# shellcheck disable=SC2034  # PSOC_WINDOWS and SKIPPED are read by the sourcing script
PSOC_WINDOWS=0
case ${PSOC_TEST_OS:-} in
    windows) PSOC_WINDOWS=1 ;;
    posix) ;;
    *) [[ ${PSOC##*/} == *.exe || ${PSOC##*/} == psoc-wine ]] && PSOC_WINDOWS=1 ;;
esac
SKIPPED=0

# posix_only WHY: succeeds on POSIX; on Windows prints "SKIP (POSIX only):
# WHY", counts it in SKIPPED and fails, so that
#     if posix_only "why"; then ...checks...; fi
# runs the checks only where they can run. Never silent: every skip is
# printed and the summary line gives the count.
posix_only() {
    ((PSOC_WINDOWS)) || return 0
    SKIPPED=$((SKIPPED + 1))
    printf 'SKIP (POSIX only): %s\n' "$*"
    return 1
}

# skipped_note: ", N skipped (POSIX only)" for a summary line, or nothing.
skipped_note() {
    ((SKIPPED == 0)) || printf ', %d skipped (POSIX only)' "$SKIPPED"
}
