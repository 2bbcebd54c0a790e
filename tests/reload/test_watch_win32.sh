#!/usr/bin/env bash
# The Win32 file watcher (ReadDirectoryChangesW and polling) under wine:
# cross-compiles src/platform.c with mingw-w64
# (-std=c11 -Wall -Wextra -Werror) together with win32/test_watch_win32.c (a folder
# of its own: outside the tests/reload/*.c of the Linux suite), and
# runs it in a wine prefix under build/wine. Standalone: it needs no
# Windows build of the rest of psoc. Exit status 0 when all passed; 0 with
# a "skipped" line when mingw-w64 or wine is not installed.
#
#   bash tests/reload/test_watch_win32.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
CC=${PSOC_MINGW_CC:-x86_64-w64-mingw32-gcc}
WINE=$(command -v wine64 || command -v wine || true)
if ! command -v "$CC" > /dev/null 2>&1 || [[ -z $WINE ]]; then
    echo "test_watch_win32.sh: skipped ($CC or wine64 not installed)"
    exit 0
fi
OUT=build/wine
mkdir -p "$OUT"

# The whole platform file, as the Windows build compiles it (the watcher
# uses the Win32 half's path and error helpers), with the Windows build's
# flags (scripts/windows.sh: C99 printf, DirectX-Headers not needed here).
flags=(-std=c11 -Wall -Wextra -Werror -O1 -D__USE_MINGW_ANSI_STDIO=1 -Isrc)
if ! "$CC" "${flags[@]}" -o "$OUT/test_watch_win32.exe" src/platform.c \
    tests/reload/win32/test_watch_win32.c ||
    ! "$CC" "${flags[@]}" -DPSOC_PLAT_RDCW_BUFFER=64 -o "$OUT/test_watch_win32_overflow.exe" \
        src/platform.c tests/reload/win32/test_watch_win32.c; then
    echo "test_watch_win32.sh: FAIL (compile)"
    exit 1
fi

export WINEPREFIX=$PWD/$OUT/prefix WINEDEBUG=-all
scratch=$OUT/scratch.$$
rm -rf "$scratch"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
# the prefix is made once (about 15 s), then reused
if [[ ! -f $WINEPREFIX/system.reg ]]; then
    timeout -k 5 120 "$WINE" wineboot -i > /dev/null 2>&1
fi
fails=0
timeout -k 5 120 "$WINE" "$OUT/test_watch_win32.exe" "$scratch" 2>&1 | tr -d '\r'
rc=${PIPESTATUS[0]}
[[ $rc == 0 ]] || { echo "test_watch_win32.sh: FAIL (status $rc)"; fails=1; }
# a read buffer of 64 bytes: a batch of changes overflows it
timeout -k 5 120 "$WINE" "$OUT/test_watch_win32_overflow.exe" --overflow "$scratch" 2>&1 | tr -d '\r'
rc=${PIPESTATUS[0]}
[[ $rc == 0 ]] || { echo "test_watch_win32.sh: FAIL (overflow, status $rc)"; fails=1; }
exit $fails
