#!/usr/bin/env bash
# The Windows build (issue 14): cross-compile psoc with Debian's mingw-w64
# and run it under Debian's wine64.
#
#   scripts/windows.sh [--build-only] [--full]
#
#   --build-only   build, run nothing
#   --full         also run tests/cook/test_cook.sh under Wine (the CLI
#                  test scripts always run; see tests/windows/test_windows.sh)
#
# Everything goes to build/windows/ (nothing outside build/ is written):
#   lua/         Lua 5.4 from Debian's own lua5.4 source package, fetched
#                with apt-get source through a private sources list (a
#                deb-src line for the suite this system runs; the system's
#                apt configuration is not touched) and built for Windows:
#                lua54.dll, its import library, lua.exe. Cached: fetched and
#                built once.
#   include/     xxhash.h copied from libxxhash-dev (so that -isystem gives
#                the cross compiler that header and not all of /usr/include)
#   lib/         libpsoc.a (static), libpsoc.dll.a (psoc.dll's import
#                library), libpsolua.a
#   bin/         psoc.dll, pso.dll (the Lua module), psoc.exe, lua54.dll,
#                lua.exe, and the test programs windows_consumer.exe
#                (links psoc.dll) and windows_engine.exe (psol.h, static)
#   wine/        the WINEPREFIX (created on the first run, WINEDEBUG=-all)
#
# DirectX-Headers (directx-headers-dev, /usr/include/directx) provide
# d3d12.h; they ask for MIDL's rpcndr.h version 500, and mingw-w64's is 475.
# The headers' own knob, __REQUIRED_RPCNDR_H_VERSION__, is set to 475 on
# the command line: nothing in d3d12.h uses what 500 adds (it is all
# COM-interface and enum/struct declarations), and no header is patched.
# mingw-w64's own d3d12.h is too old for psoc (no pipeline state streams).
#
# Then, under wine64 (tests/windows/test_windows.sh): psoc.exe --version,
# the export tables of psoc.dll and pso.dll (tests/consumer/test_exports.sh
# --pe), the consumer programs, the Lua suites through psoc.exe test, and
# tests/runner/test_runner.sh, tests/cli/test_cli.sh and
# tests/cli/test_scripts.sh through tests/windows/psoc-wine (a wrapper that
# runs wine64 psoc.exe), with the checks that cannot run on Windows
# skipped by name (posix_only, tests/cli/os.sh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

BUILD_ONLY=0
TEST_ARGS=()
for arg in "$@"; do
    case $arg in
        --build-only) BUILD_ONLY=1 ;;
        --full) TEST_ARGS+=(--full) ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
            exit 0
            ;;
        *)
            psoc_err "unknown option '$arg'"
            exit 2
            ;;
    esac
done

W=$PSOC_ROOT/build/windows
CC=x86_64-w64-mingw32-gcc
AR=x86_64-w64-mingw32-ar
JOBS=${PSOC_JOBS:-2}

for tool in "$CC" "$AR"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        psoc_err "no $tool: install gcc-mingw-w64-x86-64 (scripts/lib.sh PSOC_DEPS)"
        exit 1
    fi
done

mkdir -p "$W"/{bin,lib,obj,include}

# ---- Lua 5.4 for Windows, from Debian's source package --------------------

LUA_DIR=$W/lua
LUA_SRC=$LUA_DIR/src

fetch_lua() {
    local apt=$LUA_DIR/apt codename
    [[ -f $LUA_SRC/lua.h ]] && return 0
    # shellcheck disable=SC1091
    codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-bookworm}")
    rm -rf "$LUA_DIR"
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/get"
    printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
        "http://deb.debian.org/debian" "$codename" >"$apt/sources.list"
    local -a opts=(
        -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
        -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root" -q
    )
    psoc_log "windows: apt-get source lua5.4 (private sources list in $apt)"
    apt-get "${opts[@]}" update >"$apt/update.log" 2>&1 || {
        cat "$apt/update.log" >&2
        psoc_err "apt-get update of the private deb-src list failed (network?)"
        return 1
    }
    (cd "$apt/get" && apt-get "${opts[@]}" source lua5.4) >"$apt/source.log" 2>&1 || {
        cat "$apt/source.log" >&2
        psoc_err "apt-get source lua5.4 failed (needs dpkg-dev)"
        return 1
    }
    local tree
    tree=$(find "$apt/get" -mindepth 1 -maxdepth 1 -type d -name 'lua5.4-*' | head -n 1)
    [[ -n $tree && -f $tree/src/lua.h ]] || {
        psoc_err "no lua5.4 source tree in $apt/get"
        return 1
    }
    mv "$tree/src" "$LUA_SRC"
    grep -m1 'LUA_VERSION_RELEASE\b' "$LUA_SRC/lua.h" >"$LUA_DIR/VERSION" || true
    ls "$apt/get"/*.dsc >>"$LUA_DIR/VERSION" 2>/dev/null || true
}

# lua54.dll (LUA_BUILD_AS_DLL, as Lua's own "mingw" make target builds it),
# liblua54.dll.a and lua.exe, from the pristine sources (not Debian's
# libtool build system).
build_lua() {
    [[ -f $LUA_DIR/lua54.dll && -f $LUA_DIR/lua.exe ]] && return 0
    local obj=$LUA_DIR/obj f
    mkdir -p "$obj"
    psoc_log "windows: building lua54.dll"
    for f in "$LUA_SRC"/*.c; do
        case ${f##*/} in lua.c | luac.c) continue ;; esac
        printf '%s\n' "$f"
    done | xargs -P "$JOBS" -I{} sh -c \
        '"$0" -std=gnu99 -O2 -Wall -DLUA_BUILD_AS_DLL -DLUA_COMPAT_5_3 -c "$1" -o "$2/$(basename "$1" .c).o"' \
        "$CC" {} "$obj"
    "$CC" -shared -o "$LUA_DIR/lua54.dll" "$obj"/*.o -Wl,--out-implib,"$LUA_DIR/liblua54.dll.a" -s
    "$CC" -O2 -DLUA_BUILD_AS_DLL -o "$LUA_DIR/lua.exe" "$LUA_SRC/lua.c" "$LUA_DIR/liblua54.dll.a" -s
}

fetch_lua
build_lua
cp "$LUA_DIR/lua54.dll" "$LUA_DIR/lua.exe" "$W/bin/"
cp /usr/include/xxhash.h "$W/include/"

# ---- psoc ---------------------------------------------------------------------

# The same warnings as the gmake build; __USE_MINGW_ANSI_STDIO gives C99
# printf (%zu); -isystem for the headers psoc does not own.
CFLAGS=(-std=c11 -Wall -Wextra -Werror -O2 -D__USE_MINGW_ANSI_STDIO=1
    -D__REQUIRED_RPCNDR_H_VERSION__=475 -DNDEBUG
    -Isrc -Ibindings/lua -isystem "$W/include" -isystem /usr/include/directx -isystem "$LUA_SRC")

# stale OBJECT DEPFILE: does OBJECT need compiling (missing, or older than
# a file its gcc -MMD dependency list names)?
stale() {
    local obj=$1 dep=$2 f
    [[ -f $obj && -f $dep ]] || return 0
    for f in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$dep"); do
        [[ $f -nt $obj ]] && return 0
    done
    return 1
}

# compile OBJDIR DEFINES... -- SOURCES...: compile what changed, in
# parallel, into OBJDIR (everything again when the flags changed).
compile() {
    local dir=$1 src obj
    shift
    local -a defs=() todo=()
    while [[ $1 != -- ]]; do
        defs+=("$1")
        shift
    done
    shift
    mkdir -p "$dir"
    local flags="$CC ${CFLAGS[*]} ${defs[*]}"
    if [[ ! -f $dir/flags || $(cat "$dir/flags") != "$flags" ]]; then
        rm -f "$dir"/*.o "$dir"/*.d
        printf '%s' "$flags" >"$dir/flags"
    fi
    for src in "$@"; do
        obj=$dir/$(basename "$src" .c).o
        if stale "$obj" "${obj%.o}.d"; then
            rm -f "$obj"
            todo+=("$src")
        fi
    done
    if ((${#todo[@]} > 0)); then
        printf '%s\n' "${todo[@]}" | xargs -P "$JOBS" -I{} sh -c \
            'src=$1; o=$2/$(basename "$src" .c).o; shift 2; exec "$@" -MMD -MF "${o%.o}.d" -c "$src" -o "$o"' \
            sh {} "$dir" "$CC" "${CFLAGS[@]}" "${defs[@]}" || true
    fi
    # xargs hides which file failed behind its own status; every object must exist
    for src in "$@"; do
        [[ -f $dir/$(basename "$src" .c).o ]] || {
            psoc_err "windows: $src did not compile"
            return 1
        }
    done
}

# objs OBJDIR SOURCES...: their objects, one a line
objs() {
    local dir=$1 src
    shift
    for src in "$@"; do printf '%s\n' "$dir/$(basename "$src" .c).o"; done
}

CORE=(src/*.c)
BIND=(bindings/lua/*.c)
CLI=()
for f in src/cli/*.c; do
    [[ $f == */preview.c ]] || CLI+=("$f") # preview draws through vkd3d
done

psoc_log "windows: libpsoc.a, psoc.dll"
compile "$W/obj/psoc_static" -- "${CORE[@]}"
rm -f "$W/lib/libpsoc.a"
mapfile -t O < <(objs "$W/obj/psoc_static" "${CORE[@]}")
"$AR" rcs "$W/lib/libpsoc.a" "${O[@]}"
compile "$W/obj/psoc_shared" -DPSOC_BUILD_SHARED -- "${CORE[@]}"
mapfile -t O < <(objs "$W/obj/psoc_shared" "${CORE[@]}")
"$CC" -shared -o "$W/bin/psoc.dll" "${O[@]}" -Wl,--out-implib,"$W/lib/libpsoc.dll.a"

psoc_log "windows: libpsolua.a, pso.dll"
compile "$W/obj/psolua" -- "${BIND[@]}"
rm -f "$W/lib/libpsolua.a"
mapfile -t O < <(objs "$W/obj/psolua" "${BIND[@]}")
"$AR" rcs "$W/lib/libpsolua.a" "${O[@]}"
compile "$W/obj/pso" -DPSO_BUILD_MODULE -- "${BIND[@]}"
mapfile -t O < <(objs "$W/obj/pso" "${BIND[@]}")
"$CC" -shared -o "$W/bin/pso.dll" "${O[@]}" "$W/lib/libpsoc.a" "$LUA_DIR/liblua54.dll.a"

psoc_log "windows: psoc.exe"
compile "$W/obj/psoc" -DPSOC_CLI_HAVE_SCRIPTS -- "${CLI[@]}"
mapfile -t O < <(objs "$W/obj/psoc" "${CLI[@]}")
"$CC" -o "$W/bin/psoc.exe" "${O[@]}" "$W/lib/libpsolua.a" "$W/lib/libpsoc.a" \
    "$LUA_DIR/liblua54.dll.a"

psoc_log "windows: test programs"
compile "$W/obj/tests" -DPSOC_DLL -- tests/windows/windows_consumer.c
"$CC" -o "$W/bin/windows_consumer.exe" "$W/obj/tests/windows_consumer.o" \
    "$W/lib/libpsoc.dll.a" "$LUA_DIR/liblua54.dll.a"
compile "$W/obj/engine" -- tests/consumer/engine.c
"$CC" -o "$W/bin/windows_engine.exe" "$W/obj/engine/engine.o" "$W/lib/libpsolua.a" \
    "$W/lib/libpsoc.a" "$LUA_DIR/liblua54.dll.a"

((BUILD_ONLY)) && exit 0

exec bash tests/windows/test_windows.sh "${TEST_ARGS[@]}"
