#!/usr/bin/env bash
# Static checks of the Lua and C sides:
#
#   scripts/lint.sh [luacheck] [cppcheck] [clang-tidy] [layers] [vendor]   (default: all five)
#
#   luacheck    every .lua file of the tree, configured by .luacheckrc
#               (materials are held to the sandbox's globals)
#   cppcheck    src/, src/cli/, bindings/lua/, scripts/gen_annotations.c,
#               suppressions in scripts/cppcheck.supp
#   clang-tidy  the same C files one by one (PSOC_JOBS in parallel), checks in
#               .clang-tidy, known false positives in scripts/clang-tidy.supp
#   layers      the pso module's files include and call only the layers
#               below them (scripts/check_layers.sh, and its self-test)
#   vendor      vendor/lua-5.4.4 is upstream Lua 5.4.4 plus its recorded
#               psoc hook lines only (scripts/check_vendor.sh --self-test)
#
# Exit status 0 when no tool reports a finding. A missing tool is an error
# (scripts/lib.sh PSOC_DEPS lists lua-check, cppcheck and clang-tidy).
# Takes about a minute on two idle cores, most of it clang-tidy's analyzer.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

tools=("$@")
((${#tools[@]} > 0)) || tools=(luacheck cppcheck clang-tidy layers vendor)

# The C files and the flags premake5.lua compiles them with (Lua 5.4).
c_files() {
    shopt -s nullglob
    local f
    for f in src/*.c src/cli/*.c bindings/lua/*.c scripts/gen_annotations.c; do
        printf '%s\n' "$f"
    done
}
C_FLAGS=(-std=c11 -D_POSIX_C_SOURCE=200809L -DPSOC_CLI_HAVE_SCRIPTS
    -Isrc -Ibindings/lua -I/usr/include/wsl/stubs -I/usr/include/lua5.4)

need() {
    command -v "$1" >/dev/null 2>&1 && return 0
    psoc_err "$1 is not installed (Debian package $2; scripts/lib.sh psoc_install_deps)"
    return 1
}

run_luacheck() {
    need luacheck lua-check || return 1
    # .luacheckrc excludes the runner's deliberately broken fixtures. The
    # files are listed here, not found by luacheck: build/ is pruned (Wine
    # prefixes under it hold a z: link to /, which luacheck would walk).
    local files=()
    mapfile -t files < <(find . \( -path ./build -o -path ./.git \) -prune -o -name '*.lua' -type f \
        -print | sed 's|^\./||' | LC_ALL=C sort)
    ((${#files[@]} > 0)) || return 0
    luacheck --no-color --quiet --formatter plain "${files[@]}"
}

run_cppcheck() {
    need cppcheck cppcheck || return 1
    local -a files
    mapfile -t files < <(c_files)
    cppcheck --quiet --std=c11 -j "$PSOC_JOBS" --inline-suppr \
        --enable=warning,portability,performance \
        --suppressions-list=scripts/cppcheck.supp \
        --error-exitcode=1 \
        --template='{file}:{line}: {severity}: {message} [{id}]' \
        -D_POSIX_C_SOURCE=200809L -DPSOC_CLI_HAVE_SCRIPTS -DLUA_VERSION_NUM=504 \
        -Isrc -Ibindings/lua "${files[@]}"
}

# clang-tidy prints "FILE:LINE:COL: warning: MESSAGE [CHECK]" plus notes.
# Keep the warnings not listed in scripts/clang-tidy.supp.
filter_tidy() {
    local supp=scripts/clang-tidy.supp line file lnum check text rel
    while IFS= read -r line; do
        [[ $line =~ ^(.+):([0-9]+):[0-9]+:\ (warning|error):\ .*\[([^]]+)\]$ ]] || continue
        file=${BASH_REMATCH[1]}
        lnum=${BASH_REMATCH[2]}
        check=${BASH_REMATCH[4]}
        rel=${file#"$PSOC_ROOT"/}
        text=$(sed -n "${lnum}p" "$file" 2>/dev/null | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
        if grep -qxF "$check"$'\t'"$rel"$'\t'"$text" "$supp"; then
            continue
        fi
        printf '%s\n' "$line"
    done
}

run_clang_tidy() {
    need clang-tidy clang-tidy || return 1
    local out findings
    out=$(mktemp)
    # One file per run: clang-tidy 14 reports valist false positives when
    # several translation units share one invocation. It prints absolute
    # paths. The vendored matcher sandbox_match.c includes is not a main
    # file, so clang-tidy reports nothing in it (see .clang-tidy).
    c_files | xargs -P "$PSOC_JOBS" -I{} clang-tidy --quiet {} -- "${C_FLAGS[@]}" \
        >"$out" 2>/dev/null
    findings=$(filter_tidy <"$out" | sort -u)
    rm -f "$out"
    if [[ -n $findings ]]; then
        printf '%s\n' "$findings"
        return 1
    fi
}

failed=0
for tool in "${tools[@]}"; do
    start=$SECONDS
    case $tool in
        luacheck) run_luacheck ;;
        cppcheck) run_cppcheck ;;
        clang-tidy) run_clang_tidy ;;
        layers) bash scripts/check_layers.sh && bash scripts/check_layers.sh --self-test ;;
        vendor) bash scripts/check_vendor.sh --self-test ;;
        *)
            psoc_err "unknown tool '$tool' (luacheck, cppcheck, clang-tidy, layers, vendor)"
            exit 2
            ;;
    esac
    rc=$?
    if ((rc == 0)); then
        printf 'lint: %s ok (%ds)\n' "$tool" $((SECONDS - start))
    else
        printf 'lint: %s FAILED (%ds)\n' "$tool" $((SECONDS - start))
        failed=$((failed + 1))
    fi
done
((failed == 0))
