#!/usr/bin/env bash
# Install psoc: the C library, its headers, the psoc tool, the embedding
# library, the `pso` Lua module for each Lua, the LuaLS annotations and the
# pkg-config files.
#
#   scripts/install.sh [--prefix=DIR] [--destdir=DIR] [--lua=VERSION]
#                      [--modules="5.4 5.3 5.1"] [--no-build] [--dry-run]
#
# or through the top-level GNUmakefile:
#
#   make install PREFIX=/usr/local DESTDIR=/tmp/stage LUA=5.4 LUA_MODULES="5.4 5.3 5.1"
#
# Options (the environment variable of the same meaning in brackets):
#   --prefix=DIR      install prefix                         [PREFIX, /usr/local]
#   --destdir=DIR     staging root prepended to every path   [DESTDIR, empty]
#   --libdir=DIR      libraries and pkgconfig/               [LIBDIR, PREFIX/lib]
#   --lua=VERSION     Lua of the psoc tool and libpsolua     [PSOC_LUA, 5.4]
#                     (5.4, 5.3, 5.1 or luajit)
#   --modules=LIST    Luas to install the pso module for     [PSOC_LUA_MODULES, "5.4 5.3 5.1"]
#                     (5.1 and luajit share lib/lua/5.1: give one of them)
#   --lmoddir=DIR     base of the module folders             [LUA_CMODDIR, PREFIX/lib/lua]
#   --no-build        install what is already built (release)
#   --dry-run         print what would be installed
#
# Layout (PREFIX=/usr/local):
#   bin/psoc
#   lib/libpsoc.so.X.Y.Z, libpsoc.so.X.Y (soname), libpsoc.so, libpsoc.a
#   lib/libpsolua.a
#   lib/pkgconfig/psoc.pc, psolua.pc
#   include/psoc/psoc.h, psol.h, psol_reload.h, pso_module.h
#   lib/lua/5.4/pso.so, lib/lua/5.3/pso.so, lib/lua/5.1/pso.so
#       (the folders Debian's lua5.x and luajit search first under /usr/local)
#   share/psoc/types/pso.lua      LuaLS annotations for editors
#
# Builds go to the usual folders (build/, build/lua5.3, build/lua5.1,
# build/luajit); only the release configuration is installed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
LIBDIR=${LIBDIR:-}
LUA_CMODDIR=${LUA_CMODDIR:-}
PSOC_LUA=${PSOC_LUA:-5.4}
PSOC_LUA_MODULES=${PSOC_LUA_MODULES:-5.4 5.3 5.1}
BUILD=1
DRY=0

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

for arg in "$@"; do
    case $arg in
        --prefix=*) PREFIX=${arg#*=} ;;
        --destdir=*) DESTDIR=${arg#*=} ;;
        --libdir=*) LIBDIR=${arg#*=} ;;
        --lua=*) PSOC_LUA=${arg#*=} ;;
        --modules=*) PSOC_LUA_MODULES=${arg#*=} ;;
        --lmoddir=*) LUA_CMODDIR=${arg#*=} ;;
        --no-build) BUILD=0 ;;
        --dry-run) DRY=1 ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            psoc_err "unknown option '$arg' (see --help)"
            exit 2
            ;;
    esac
done

PREFIX=${PREFIX%/}
[[ -n $PREFIX ]] || PREFIX=/
[[ $PREFIX == /* ]] || { psoc_err "--prefix must be absolute: $PREFIX"; exit 2; }
LIBDIR=${LIBDIR:-$PREFIX/lib}
INCLUDEDIR=$PREFIX/include
LUA_CMODDIR=${LUA_CMODDIR:-$PREFIX/lib/lua}
DESTDIR=${DESTDIR%/}

# The Lua's module folder name and pkg-config module (Debian's names).
lua_abi() {
    case $1 in
        5.4 | 5.3 | 5.1) printf '%s\n' "$1" ;;
        luajit) printf '5.1\n' ;; # LuaJIT loads Lua 5.1 modules
        *) return 1 ;;
    esac
}
lua_pc() {
    case $1 in
        luajit) printf 'luajit\n' ;;
        *) printf 'lua%s\n' "$1" ;;
    esac
}

lua_abi "$PSOC_LUA" >/dev/null || { psoc_err "unknown --lua=$PSOC_LUA"; exit 2; }
declare -A abi_of=()
for v in $PSOC_LUA_MODULES; do
    abi=$(lua_abi "$v") || { psoc_err "unknown Lua '$v' in --modules"; exit 2; }
    if [[ -n ${abi_of[$abi]:-} ]]; then
        psoc_err "Lua $v and ${abi_of[$abi]} both install into lib/lua/$abi; give one of them"
        exit 2
    fi
    abi_of[$abi]=$v
done

VERSION=$(sed -n 's/^#define PSOC_VERSION_STRING "\(.*\)"$/\1/p' src/psoc.h)
ABI=$(printf '%s\n' "$VERSION" | cut -d. -f1,2)
[[ -n $VERSION ]] || { psoc_err "no PSOC_VERSION_STRING in src/psoc.h"; exit 1; }

# Build --------------------------------------------------------------------

lua_args() { # premake args selecting Lua $1 (and so its build folder)
    printf -- '--lua=%s\n' "$1"
}

if ((BUILD)); then
    psoc_log "build release (Lua $PSOC_LUA): psoc, libraries"
    psoc_generate "$(lua_args "$PSOC_LUA")" >/dev/null
    psoc_make release "$(lua_args "$PSOC_LUA")" -- psoc psoc_static psoc_shared psolua
    for v in $PSOC_LUA_MODULES; do
        psoc_log "build release (Lua $v): pso module"
        psoc_generate "$(lua_args "$v")" >/dev/null
        psoc_make release "$(lua_args "$v")" -- pso
    done
fi

# Install ------------------------------------------------------------------

run() {
    if ((DRY)); then printf '%s\n' "$*"; else "$@"; fi
}

inst() { # MODE SRC DESTFOLDER [NAME]
    local mode=$1 src=$2 dir=$3 name=${4:-}
    [[ -f $src ]] || { psoc_err "not built: $src (run without --no-build)"; exit 1; }
    [[ -n $name ]] || name=$(basename "$src")
    run install -d "$DESTDIR$dir"
    run install -m "$mode" "$src" "$DESTDIR$dir/$name"
    ((DRY)) || printf '  %s\n' "$dir/$name"
}

link() { # TARGET DIR NAME
    run ln -sfn "$1" "$DESTDIR$2/$3"
    ((DRY)) || printf '  %s -> %s\n' "$2/$3" "$1"
}

subst() { # TEMPLATE DEST LUA
    local lua=$3
    sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@LIBDIR@|$LIBDIR|g" \
        -e "s|@INCLUDEDIR@|$INCLUDEDIR|g" -e "s|@VERSION@|$VERSION|g" \
        -e "s|@LUA_VERSION@|$lua|g" -e "s|@LUA_PC@|$(lua_pc "$lua")|g" "$1" >"$2"
}

main_out=$PSOC_ROOT/$(psoc_outdir release "$(lua_args "$PSOC_LUA")")
psoc_log "install psoc $VERSION into ${DESTDIR:+$DESTDIR (staging) }$PREFIX"

inst 755 "$main_out/bin/psoc" "$PREFIX/bin"

inst 644 "$main_out/lib/libpsoc.a" "$LIBDIR"
inst 755 "$main_out/lib/libpsoc.so" "$LIBDIR" "libpsoc.so.$VERSION"
link "libpsoc.so.$VERSION" "$LIBDIR" "libpsoc.so.$ABI"
link "libpsoc.so.$ABI" "$LIBDIR" "libpsoc.so"
inst 644 "$main_out/lib/libpsolua.a" "$LIBDIR"

for h in src/psoc.h bindings/lua/psol.h bindings/lua/psol_reload.h bindings/lua/pso_module.h; do
    inst 644 "$h" "$INCLUDEDIR/psoc"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
subst psoc.pc.in "$tmp/psoc.pc" "$PSOC_LUA"
subst psolua.pc.in "$tmp/psolua.pc" "$PSOC_LUA"
inst 644 "$tmp/psoc.pc" "$LIBDIR/pkgconfig"
inst 644 "$tmp/psolua.pc" "$LIBDIR/pkgconfig"

for v in $PSOC_LUA_MODULES; do
    out=$PSOC_ROOT/$(psoc_outdir release "$(lua_args "$v")")
    inst 755 "$out/lib/pso.so" "$LUA_CMODDIR/$(lua_abi "$v")"
done

inst 644 scripts/types/pso.lua "$PREFIX/share/psoc/types"

psoc_log "installed psoc $VERSION (C API $ABI, module for Lua ${PSOC_LUA_MODULES// /, })"
