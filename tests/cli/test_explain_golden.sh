#!/usr/bin/env bash
# test_explain_golden.sh PSOC: 'psoc explain', 'explain --changed',
# 'dump --json' and 'diff' on example materials print exactly the bytes in
# tests/cli/golden/ (written by the psoc of main 39813a5, before these
# commands moved onto psoc_explain, psoc_diff_streams and psoc_json; the
# shaders are the committed .cso files, so the hashes are fixed). A change
# to what they print must update the golden files on purpose.
set -u
psoc=${1:?usage: test_explain_golden.sh PATH/TO/psoc}
case $psoc in /*) ;; *) psoc=$PWD/$psoc ;; esac
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
golden=$root/tests/cli/golden
cd "$root/scripts/materials" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
same() { # NAME EXPECTED_STATUS ARGS...
    local name=$1 want=$2 rc=0
    shift 2
    "$psoc" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    if ((rc != want)); then
        fail=$((fail + 1))
        echo "FAIL: psoc $*: exit $rc, expected $want: $(head -3 "$tmp/err")"
    elif ! cmp -s "$tmp/out" "$golden/$name.txt"; then
        fail=$((fail + 1))
        echo "FAIL: psoc $* differs from tests/cli/golden/$name.txt:"
        diff "$golden/$name.txt" "$tmp/out" | head -10
    else
        pass=$((pass + 1))
    fi
}
for m in lit stereo meshlet compute; do
    same "explain_$m" 0 explain "$m.lua"
    same "explain_changed_$m" 0 explain --changed "$m.lua"
    same "json_$m" 0 dump --json "$m.lua"
done
same diff_lit 1 diff lit.lua:lit_opaque lit.lua:lit_two_sided
same diff_lit_meshlet 1 diff lit.lua:lit_opaque meshlet.lua:meshlet_opaque
echo "test_explain_golden: $pass passed, $fail failed"
((fail == 0))
