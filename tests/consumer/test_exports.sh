#!/usr/bin/env bash
# The shared libraries export exactly their public API (issue 10: internal
# symbols hidden with -fvisibility=hidden plus PSOC_API, see src/psoc.h).
#
#   tests/consumer/test_exports.sh [LIBDIR]          ELF: LIBDIR/libpsoc.so, pso.so
#   tests/consumer/test_exports.sh --pe DLLDIR       PE:  DLLDIR/psoc.dll, pso.dll
#
# The expected lists come from the headers, never from a list kept here:
#   libpsoc   every function declared in src/psoc.h and the other public
#             headers of the library (src/psoc_*.h), as gcc -aux-info lists
#             the declarations of those files
#   pso       the Lua entry points (luaopen_*) declared in
#             bindings/lua/pso_module.h
# and what is exported is read from the binary (nm -D --defined-only, or
# the export table objdump -p prints for a DLL). Any function missing from
# the exports (a public function without PSOC_API) or any extra export (an
# internal symbol leaking) fails, with both lists' differences printed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

MODE=elf
if [[ ${1:-} == --pe ]]; then
    MODE=pe
    shift
fi
DIR=${1:-build/lib}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

fail=0

# declared HEADER...: the functions those headers declare, sorted.
declared() {
    local h base
    : >"$TMP/names"
    for h in "$@"; do
        base=$(basename "$h")
        printf '#include "%s"\n' "$base" >"$TMP/inc.c"
        gcc -std=c11 -fsyntax-only -Isrc -Ibindings/lua -I/usr/include/wsl/stubs \
            -I/usr/include/lua5.4 -aux-info "$TMP/aux.txt" "$TMP/inc.c"
        # /* src/psoc.h:54:NC */ extern const char *psoc_status_name (psoc_status);
        # static (inline) functions defined in a header are the caller's
        # own code, never exported (psoc_builder_add_inline)
        grep -F "/* $h:" "$TMP/aux.txt" | grep -v '^/\* [^*]* \*/ static ' |
            sed -n 's/^.*[ *]\([A-Za-z_][A-Za-z0-9_]*\) (.*$/\1/p' >>"$TMP/names"
    done
    sort -u "$TMP/names"
}

# exported FILE: the functions and data FILE exports, sorted.
exported() {
    if [[ $MODE == elf ]]; then
        nm -D --defined-only "$1" | awk '{ print $NF }' | sort -u
    else
        # [Ordinal/Name Pointer] Table
        #     [   0] psoc_builder_add
        x86_64-w64-mingw32-objdump -p "$1" |
            sed -n 's/^[[:space:]]*\[[[:space:]]*[0-9][0-9]*\] \([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' |
            sort -u
    fi
}

# compare NAME FILE EXPECTED-FILE
compare() {
    local name=$1 file=$2 want=$3 n
    if [[ ! -f $file ]]; then
        echo "FAIL $name: no $file (build it first)"
        fail=1
        return
    fi
    exported "$file" >"$TMP/have"
    n=$(wc -l <"$want")
    if ((n == 0)); then
        echo "FAIL $name: no functions found in the headers (parse broke?)"
        fail=1
        return
    fi
    if cmp -s "$want" "$TMP/have"; then
        echo "ok   $name exports exactly the $n declared functions"
        return
    fi
    fail=1
    echo "FAIL $name: exports differ from the declarations"
    comm -23 "$want" "$TMP/have" | sed 's/^/    declared, not exported: /'
    comm -13 "$want" "$TMP/have" | sed 's/^/    exported, not declared: /'
}

mapfile -t PSOC_HEADERS < <(ls src/psoc.h src/psoc_*.h 2>/dev/null)
declared "${PSOC_HEADERS[@]}" >"$TMP/want_psoc"
declared bindings/lua/pso_module.h | grep '^luaopen_' >"$TMP/want_pso" || true

if [[ $MODE == elf ]]; then
    compare libpsoc.so "$DIR/libpsoc.so" "$TMP/want_psoc"
    compare pso.so "$DIR/pso.so" "$TMP/want_pso"
else
    compare psoc.dll "$DIR/psoc.dll" "$TMP/want_psoc"
    compare pso.dll "$DIR/pso.dll" "$TMP/want_pso"
fi

exit "$fail"
