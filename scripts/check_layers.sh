#!/usr/bin/env bash
# The pso module's files form one chain of layers (docs/design.md, "The
# bindings"): each file includes and calls only the layers before it.
#
#   scripts/check_layers.sh [DIR]     check DIR (default bindings/lua)
#   scripts/check_layers.sh --self-test
#                                     break a copy on purpose three ways (an
#                                     upward call, an upward include, a file
#                                     not in the chain) and expect each to fail
#
# For every layer file (LAYER.c and LAYER.h) it checks:
#   - includes: "pso_X.h" of a layer X at or below its own;
#   - calls: every psoi_/pso_ name it uses (comments stripped) that a layer
#     file defines is defined in its own layer or one below;
# and that every pso*.c of the module is in LAYERS, and the files above the
# module (the sandbox, the test library) include no layer header: they use
# pso_module.h. Exit status 0 when all hold; each violation is printed as
# "FILE: ...". Run by scripts/lint.sh (tool "layers").
set -uo pipefail

# The chain, bottom first. A new file of the module goes in here.
LAYERS=(pso_context pso_values pso_presets pso_convert pso_pipeline pso_rootsig pso_declare pso)
# Files above the module in bindings/lua (they see pso_module.h only).
ABOVE=(pso_test sandbox sandbox_match testlib_lua reload)

rank_of() { # NAME -> index in LAYERS, or -1
    local i
    for i in "${!LAYERS[@]}"; do
        [[ ${LAYERS[$i]} == "$1" ]] && {
            echo "$i"
            return
        }
    done
    echo -1
}

# Source without comments and string literals' contents (calls named in
# comments or messages are not calls).
strip() {
    gcc -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null | sed -E 's/"([^"\\]|\\.)*"/""/g'
}

check() {
    local dir=$1 fail=0 f base r inc ir sym line
    declare -A def_rank=() def_file=()
    # every module file is in the chain
    for f in "$dir"/*.c; do
        base=$(basename "$f" .c)
        [[ $(rank_of "$base") -ge 0 ]] && continue
        [[ " ${ABOVE[*]} " == *" $base "* ]] && continue
        echo "$f: not in the chain of layers (add it to LAYERS in scripts/check_layers.sh and docs/design.md)"
        fail=1
    done
    # what each layer defines (external functions and data)
    for r in "${!LAYERS[@]}"; do
        f=$dir/${LAYERS[$r]}.c
        [[ -f $f ]] || {
            echo "$f: missing (listed in LAYERS)"
            fail=1
            continue
        }
        while IFS= read -r sym; do
            def_rank[$sym]=$r
            def_file[$sym]=${LAYERS[$r]}
        done < <(strip "$f" | grep -vE '^(static|extern|typedef|#)' |
            grep -oE '^[A-Za-z_][A-Za-z0-9_ *]*[ *](psoi?_[A-Za-z0-9_]+) *(\(|\[\] *=| *=)' |
            grep -oE 'psoi?_[A-Za-z0-9_]+ *(\(|\[|=)$' | grep -oE '^psoi?_[A-Za-z0-9_]+' | sort -u)
    done
    # includes and uses, layer by layer
    for r in "${!LAYERS[@]}"; do
        for f in "$dir/${LAYERS[$r]}.c" "$dir/${LAYERS[$r]}.h"; do
            [[ -f $f ]] || continue
            while IFS= read -r inc; do
                ir=$(rank_of "${inc%.h}")
                if ((ir > r)); then
                    echo "$f: includes $inc, a layer above ${LAYERS[$r]}"
                    fail=1
                fi
            done < <(grep -oE '^#include "pso[a-z_]*\.h"' "$f" | grep -oE 'pso[a-z_]*\.h')
            [[ $f == *.c ]] || continue
            while IFS= read -r sym; do
                [[ -n ${def_rank[$sym]+x} ]] || continue
                if ((def_rank[$sym] > r)); then
                    line=$(grep -nw "$sym" "$f" | head -1 | cut -d: -f1)
                    echo "$f:$line: uses $sym of ${def_file[$sym]}, a layer above ${LAYERS[$r]}"
                    fail=1
                fi
            done < <(strip "$f" | grep -oE '\bpsoi?_[A-Za-z0-9_]+\b' | sort -u)
        done
    done
    # files above the module use its public header only
    for base in "${ABOVE[@]}"; do
        f=$dir/$base.c
        [[ -f $f ]] || continue
        while IFS= read -r inc; do
            if [[ $(rank_of "${inc%.h}") -ge 0 ]]; then
                echo "$f: includes $inc (a layer of the pso module; use pso_module.h)"
                fail=1
            fi
        done < <(grep -oE '^#include "pso[a-z_]*\.h"' "$f" | grep -oE 'pso[a-z_]*\.h')
    done
    return $fail
}

self_test() {
    local src=$1 tmp ok=1
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064
    trap "rm -rf '$tmp'" RETURN
    cp "$src"/*.c "$src"/*.h "$tmp"/
    if ! check "$tmp" >/dev/null; then
        echo "self-test: the unmodified copy fails"
        return 1
    fi
    cp "$src"/*.c "$src"/*.h "$tmp"/
    printf '\nint psoi_layer_probe(lua_State *L) { return psoi_declare(L, PSOC_KIND_GRAPHICS, 1); }\n' \
        >>"$tmp/pso_context.c"
    check "$tmp" >"$tmp/out"; grep -q 'pso_context.c:.*uses psoi_declare of pso_declare' "$tmp/out" ||
        { echo "self-test: an upward call was not reported"; ok=0; }
    cp "$src"/*.c "$src"/*.h "$tmp"/
    sed -i '0,/^#include "pso_values.h"/s//#include "pso_values.h"\n#include "pso_pipeline.h"/' "$tmp/pso_values.c"
    check "$tmp" >"$tmp/out"; grep -q 'pso_values.c: includes pso_pipeline.h' "$tmp/out" ||
        { echo "self-test: an upward include was not reported"; ok=0; }
    cp "$src"/*.c "$src"/*.h "$tmp"/
    printf '/* a new file */\n' >"$tmp/pso_extra.c"
    check "$tmp" >"$tmp/out"; grep -q 'pso_extra.c: not in the chain' "$tmp/out" ||
        { echo "self-test: a file outside the chain was not reported"; ok=0; }
    rm -f "$tmp/pso_extra.c"
    ((ok)) && echo "check_layers: self-test ok"
    ((ok))
}

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
if [[ ${1:-} == --self-test ]]; then
    self_test bindings/lua
else
    check "${1:-bindings/lua}" && echo "check_layers: ${#LAYERS[@]} layers, no upward include or call"
fi
