#!/usr/bin/env bash
# test_tool_files.sh ASM_TOOL: psoc_dxbc_asm's file handling (through
# src/platform.h):
#   1. a FIFO or a folder as SOURCE is refused at once, naming the reason
#      (fopen would block on the FIFO until a writer came);
#   2. OUT.cso is written whole and replaced atomically: a failed write
#      (its folder is missing) leaves nothing, and rewriting an existing
#      OUT.cso leaves no temporary file beside it;
#   3. --check reads OUT.cso back and rejects a changed one.
set -u
asm=${1:?usage: test_tool_files.sh PATH/TO/psoc_dxbc_asm}
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
src=scripts/materials/shaders/lit.vs.asm

mkfifo "$tmp/fifo"
if timeout 10 "$asm" "$tmp/fifo" -o "$tmp/a.cso" 2>"$tmp/err"; then
    bad "a FIFO as SOURCE was accepted"
elif (($? == 124)); then
    bad "a FIFO as SOURCE blocked"
elif grep -q "cannot read $tmp/fifo: " "$tmp/err"; then ok; else bad "FIFO message: $(cat "$tmp/err")"; fi
if "$asm" "$tmp" -o "$tmp/a.cso" 2>"$tmp/err"; then bad "a folder as SOURCE was accepted"
elif grep -q "cannot read $tmp: " "$tmp/err"; then ok; else bad "folder message: $(cat "$tmp/err")"; fi
[[ ! -e $tmp/a.cso ]] && ok || bad "a failed run wrote OUT.cso"

if "$asm" "$src" -o "$tmp/missing/a.cso" 2>"$tmp/err"; then bad "writing into a missing folder succeeded"
elif grep -q "cannot write $tmp/missing/a.cso: " "$tmp/err"; then ok; else bad "write message: $(cat "$tmp/err")"; fi

"$asm" "$src" -o "$tmp/a.cso" && cmp -s "$tmp/a.cso" "${src%.asm}.cso" && ok || bad "assembling $src"
printf 'old' >"$tmp/b.cso"
"$asm" "$src" -o "$tmp/b.cso" && cmp -s "$tmp/b.cso" "${src%.asm}.cso" && ok || bad "replacing OUT.cso"
left=$(find "$tmp" -name '*.tmp*' | wc -l)
((left == 0)) && ok || bad "$left temporary file(s) left"

"$asm" --check "$src" "$tmp/a.cso" && ok || bad "--check of a fresh OUT.cso"
printf 'x' >>"$tmp/a.cso"
if "$asm" --check "$src" "$tmp/a.cso" 2>/dev/null; then bad "--check accepted a changed OUT.cso"; else ok; fi

echo "test_tool_files: $pass passed, $fail failed"
((fail == 0))
