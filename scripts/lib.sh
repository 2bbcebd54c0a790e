#!/usr/bin/env bash
# shellcheck shell=bash
# Shared helpers for scripts/run.sh and scripts/test.sh.  Source it:
#
#     . "$(dirname "$0")/lib.sh"
#
# Functions return non-zero on failure instead of exiting, so callers that
# collect results (test.sh) can go on.  Nothing here changes shell options.
#
#   psoc_install_deps             install missing Debian packages (PSOC_DEPS)
#   psoc_generate [PREMAKE ARGS]  premake4 --file=premake5.lua ARGS gmake
#   psoc_make CONFIG [ARGS] [-- TARGET...]
#                                 make -j2 in the build folder (no generate)
#   psoc_build CONFIG [ARGS]      generate, then build every project of CONFIG
#   psoc_builddir [ARGS]          build folder for those premake args
#   psoc_outdir CONFIG [ARGS]     folder holding bin/ and lib/ for CONFIG
#
# ARGS are premake options: --lua=5.4|5.3|5.1|luajit, --builddir=DIR.

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    echo "scripts/lib.sh is meant to be sourced: . scripts/lib.sh" >&2
    exit 2
fi

PSOC_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PSOC_ROOT

# Debian 12 packages needed to build, test and fuzz psoc.
# lua-check (luacheck), cppcheck and clang-tidy run in scripts/lint.sh;
# luarocks builds the rockspec in tests/consumer/test_consumer.sh.
# libclang-rt-14-dev holds libFuzzer and clang's sanitizer runtimes; the clang
# package does not pull it in.
# The device suite (tests/device) runs Direct3D 12 through vkd3d 1.2 on Mesa's
# lavapipe (mesa-vulkan-drivers); vkd3d-compiler checks the DXBC assembler;
# psoc preview writes PNG through libpng; the benchmark measures the DXBC
# checksum against nettle's MD5 (nettle-dev). tests/cook runs the generated
# cook build files (scripts/materials/build.ninja) with ninja.
# The Windows build (scripts/windows.sh) cross-compiles with mingw-w64, runs
# under wine64, and fetches Debian's lua5.4 sources with apt-get source
# (dpkg-dev unpacks them).
PSOC_DEPS=(
    build-essential pkg-config git
    directx-headers-dev
    liblua5.4-dev lua5.4
    liblua5.3-dev lua5.3
    liblua5.1-0-dev lua5.1
    libluajit-5.1-dev luajit
    check
    premake4
    clang libclang-rt-14-dev
    lua-check cppcheck clang-tidy
    luarocks
    libvkd3d-dev libvkd3d-headers libvkd3d-utils1 libvulkan-dev mesa-vulkan-drivers
    vkd3d-compiler libpng-dev
    libxxhash-dev
    ninja-build
    nettle-dev
    gcc-mingw-w64-x86-64 wine64 dpkg-dev
)

# make parallelism (the CI machine has 2 cores)
: "${PSOC_JOBS:=2}"

psoc_log() {
    printf '==> %s\n' "$*"
}

psoc_err() {
    printf 'error: %s\n' "$*" >&2
}

# Print the packages of PSOC_DEPS that are not installed, one a line.
psoc_missing_deps() {
    local pkg status
    for pkg in "${PSOC_DEPS[@]}"; do
        # shellcheck disable=SC2016  # ${Status} is dpkg-query's, not ours
        status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) || status=""
        if [[ $status != "install ok installed" ]]; then
            printf '%s\n' "$pkg"
        fi
    done
}

psoc_install_deps() {
    if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
        psoc_err "psoc_install_deps needs a Debian system (dpkg-query, apt-get)"
        return 1
    fi

    local -a missing
    mapfile -t missing < <(psoc_missing_deps)
    if ((${#missing[@]} == 0)); then
        psoc_log "dependencies: all ${#PSOC_DEPS[@]} packages installed"
        return 0
    fi
    psoc_log "dependencies: installing ${missing[*]}"

    local -a sudo=()
    if ((EUID != 0)); then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            psoc_err "missing packages: ${missing[*]}"
            psoc_err "not root and no sudo; as root run:"
            psoc_err "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
            return 1
        fi
    fi

    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q || return
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}" || return

    mapfile -t missing < <(psoc_missing_deps)
    if ((${#missing[@]} > 0)); then
        psoc_err "still missing after apt-get install: ${missing[*]}"
        return 1
    fi
}

# Build folder for the given premake args; mirrors the default in
# premake5.lua: "build" for Lua 5.4, "build/lua5.3", "build/lua5.1",
# "build/luajit" otherwise, unless --builddir= is given.  Relative paths are
# relative to PSOC_ROOT.
psoc_builddir() {
    local lua=5.4 dir="" arg
    for arg in "$@"; do
        case $arg in
            --lua=*) lua=${arg#--lua=} ;;
            --builddir=*) dir=${arg#--builddir=} ;;
        esac
    done
    if [[ -z $dir ]]; then
        case $lua in
            5.4) dir=build ;;
            luajit) dir=build/luajit ;;
            *) dir=build/lua$lua ;;
        esac
    fi
    while [[ $dir == */ && $dir != / ]]; do dir=${dir%/}; done
    printf '%s\n' "$dir"
}

# psoc_outdir CONFIG [ARGS]: the folder holding bin/ and lib/ of CONFIG
# (release: BUILD, debug: BUILD/debug, sanitize: BUILD/sanitize).
psoc_outdir() {
    local config=${1:?usage: psoc_outdir CONFIG [premake args]}
    shift
    local dir
    dir=$(psoc_builddir "$@")
    if [[ $config == release ]]; then
        printf '%s\n' "$dir"
    else
        printf '%s/%s\n' "$dir" "$config"
    fi
}

# psoc_generate [ARGS]: write the makefiles into the build folder.
psoc_generate() {
    (cd "$PSOC_ROOT" && premake4 --file=premake5.lua "$@" gmake)
}

# psoc_make CONFIG [ARGS] [-- TARGET...]: run make in the build folder that
# ARGS select; with targets, build only those projects (and what they link).
psoc_make() {
    local config=${1:?usage: psoc_make CONFIG [premake args] [-- target...]}
    shift
    local -a args=() targets=()
    while (($# > 0)); do
        if [[ $1 == -- ]]; then
            shift
            targets=("$@")
            break
        fi
        args+=("$1")
        shift
    done
    local dir
    dir=$(psoc_builddir "${args[@]}")
    [[ $dir == /* ]] || dir=$PSOC_ROOT/$dir
    if [[ ! -f $dir/Makefile ]]; then
        psoc_err "no $dir/Makefile: run psoc_generate first"
        return 1
    fi
    make -C "$dir" --no-print-directory -j"$PSOC_JOBS" config="$config" "${targets[@]}"
}

# psoc_build CONFIG [ARGS]: generate with premake4, then build CONFIG.
psoc_build() {
    local config=${1:?usage: psoc_build CONFIG [premake args]}
    shift
    case $config in
        release | debug | sanitize) ;;
        *)
            psoc_err "unknown configuration '$config' (release, debug, sanitize)"
            return 1
            ;;
    esac
    psoc_log "build $config $*"
    psoc_generate "$@" || return
    psoc_make "$config" "$@"
}
