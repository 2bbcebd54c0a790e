#!/usr/bin/env bash
# Install psoc into a temporary prefix and use it from outside the tree, the
# way an engine or a packager would:
#
#   tests/consumer/test_consumer.sh [--no-build]
#
#   1. scripts/install.sh --prefix=TMP/prefix (libraries, headers, psoc, the
#      pso module for Lua 5.4, 5.3 and 5.1, pkg-config files, annotations)
#      and again with DESTDIR staging (--prefix=/usr/local --destdir=TMP/stage):
#      the same files must land under TMP/stage/usr/local
#   2. consumer.c built only with `pkg-config --cflags --libs psoc`, as C11
#      and as C++17, run against the installed libpsoc.so
#   3. engine.c built only with `pkg-config --cflags --libs psolua` (the
#      embedding API), evaluating material.lua in the sandbox
#   4. each installed Lua (lua5.4, lua5.3, lua5.1, luajit) loading the
#      installed module with require "pso" (LUA_CPATH = the installed module
#      folder; LuaJIT loads the Lua 5.1 build) and evaluating material.lua:
#      every one must print the engine's canonical hash
#   5. the LuaRocks rockspec: `luarocks lint`, then `luarocks make` into a
#      temporary tree for Lua 5.4 and require "pso" from it
#
# --no-build installs what is already built (scripts/test.sh builds first).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE/../.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

build_arg=()
for arg in "$@"; do
    case $arg in
        --no-build) build_arg=(--no-build) ;;
        *)
            psoc_err "unknown option '$arg'"
            exit 2
            ;;
    esac
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/psoc-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
failures=0
checks=0

pass() {
    checks=$((checks + 1))
    printf 'ok   %s\n' "$*"
}
fail() {
    checks=$((checks + 1))
    failures=$((failures + 1))
    printf 'FAIL %s\n' "$*"
}

# 1. install ---------------------------------------------------------------

psoc_log "install into $prefix"
if ! bash scripts/install.sh --prefix="$prefix" --modules="5.4 5.3 5.1" "${build_arg[@]}" \
    >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    fail "scripts/install.sh --prefix=$prefix"
    exit 1
fi
pass "install --prefix"

if bash scripts/install.sh --prefix=/usr/local --destdir="$tmp/stage" --modules="5.4 5.3 5.1" \
    --no-build >"$tmp/stage.log" 2>&1; then
    (cd "$prefix" && find . | sort) >"$tmp/files.prefix"
    (cd "$tmp/stage/usr/local" && find . | sort) >"$tmp/files.stage"
    if cmp -s "$tmp/files.prefix" "$tmp/files.stage" &&
        grep -qx 'prefix=/usr/local' "$tmp/stage/usr/local/lib/pkgconfig/psoc.pc"; then
        pass "install --destdir stages the same $(wc -l <"$tmp/files.stage") paths under DESTDIR/usr/local"
    else
        diff "$tmp/files.prefix" "$tmp/files.stage" || true
        fail "install --destdir"
    fi
else
    cat "$tmp/stage.log"
    fail "scripts/install.sh --destdir"
fi

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
version=$(sed -n 's/^#define PSOC_VERSION_STRING "\(.*\)"$/\1/p' src/psoc.h)

for pc in psoc psolua; do
    got=$(pkg-config --modversion "$pc" 2>&1) || got="error: $got"
    if [[ $got == "$version" ]]; then pass "pkg-config --modversion $pc = $got"; else fail "pkg-config $pc: $got"; fi
done

for f in bin/psoc include/psoc/psoc.h include/psoc/psol.h share/psoc/types/pso.lua; do
    if [[ -e $prefix/$f ]]; then pass "installed $f"; else fail "missing $f"; fi
done
if "$prefix/bin/psoc" --version >"$tmp/version.txt" 2>&1 && grep -q "$version" "$tmp/version.txt"; then
    pass "installed psoc --version: $(head -n1 "$tmp/version.txt")"
else
    fail "installed psoc --version: $(cat "$tmp/version.txt")"
fi

# 2. the C consumer --------------------------------------------------------

cflags=(-Wall -Wextra -Werror)
# shellcheck disable=SC2046  # pkg-config output is a list of words
if cc -std=c11 "${cflags[@]}" -o "$tmp/consumer" "$HERE/consumer.c" \
    $(pkg-config --cflags --libs psoc) 2>"$tmp/cc.log"; then
    pass "cc consumer.c \$(pkg-config --cflags --libs psoc)"
    if "$tmp/consumer" "$version" >"$tmp/consumer.out" 2>&1 && grep -qx 'consumer: ok' "$tmp/consumer.out"; then
        pass "consumer runs against the installed libpsoc.so ($(grep '^hash' "$tmp/consumer.out"))"
    else
        cat "$tmp/consumer.out"
        fail "consumer run"
    fi
    needed=$(readelf -d "$tmp/consumer" | sed -n 's/.*Shared library: \[\(libpsoc[^]]*\)\].*/\1/p')
    if [[ $needed == libpsoc.so.* ]]; then pass "consumer needs $needed (the soname)"; else fail "consumer needs '$needed'"; fi
else
    cat "$tmp/cc.log"
    fail "cc consumer.c"
fi

# shellcheck disable=SC2046
if c++ -std=c++17 "${cflags[@]}" -x c++ -o "$tmp/consumer_cxx" "$HERE/consumer.c" \
    $(pkg-config --cflags --libs psoc) 2>"$tmp/cxx.log" && "$tmp/consumer_cxx" "$version" >/dev/null; then
    pass "c++ -x c++ consumer.c (psoc.h from C++)"
else
    cat "$tmp/cxx.log"
    fail "c++ consumer.c"
fi

# 3. the embedding API -----------------------------------------------------

engine_hash=""
# shellcheck disable=SC2046
if cc -std=c11 "${cflags[@]}" -o "$tmp/engine" "$HERE/engine.c" \
    $(pkg-config --cflags --libs psolua) 2>"$tmp/engine_cc.log"; then
    pass "cc engine.c \$(pkg-config --cflags --libs psolua) ($(pkg-config --print-requires psolua | tr '\n' ' '))"
    if "$tmp/engine" "$HERE/material.lua" >"$tmp/engine.out" 2>&1; then
        engine_hash=$(awk '$1 == "consumer_lit" { print $2 }' "$tmp/engine.out")
        if [[ -n $engine_hash ]]; then
            pass "engine evaluates material.lua: consumer_lit $engine_hash"
        else
            cat "$tmp/engine.out"
            fail "engine output"
        fi
    else
        cat "$tmp/engine.out"
        fail "engine run"
    fi
else
    cat "$tmp/engine_cc.log"
    fail "cc engine.c"
fi

# 4. the installed module in each Lua --------------------------------------

lua_script='
local pso = require "pso"
local p = dofile(os.getenv("MATERIAL"))
assert(pso.version == os.getenv("VERSION"), "module version " .. tostring(pso.version))
io.write(p.name, " ", p:hash(), "\n")'
for lua in lua5.4 lua5.3 lua5.1 luajit; do
    case $lua in
        lua5.4) abi=5.4 ;;
        lua5.3) abi=5.3 ;;
        *) abi=5.1 ;;
    esac
    if ! command -v "$lua" >/dev/null 2>&1; then
        fail "$lua is not installed (scripts/lib.sh PSOC_DEPS)"
        continue
    fi
    cpath="$prefix/lib/lua/$abi/?.so"
    if out=$(LUA_CPATH="$cpath" MATERIAL="$HERE/material.lua" VERSION="$version" \
        "$lua" -e "$lua_script" 2>&1); then
        hash=${out#consumer_lit }
        if [[ -n $engine_hash && $hash == "$engine_hash" ]]; then
            pass "$lua: require \"pso\" from lib/lua/$abi, same hash"
        else
            fail "$lua: hash $hash, engine $engine_hash"
        fi
    else
        fail "$lua: LUA_CPATH=$cpath: $out"
    fi
done

# 5. LuaRocks ---------------------------------------------------------------

rockspec=rockspec/psoc-$version-1.rockspec
if ! command -v luarocks >/dev/null 2>&1; then
    fail "luarocks is not installed (scripts/lib.sh PSOC_DEPS)"
elif [[ ! -f $rockspec ]]; then
    fail "no $rockspec for version $version"
else
    if luarocks lint "$rockspec" >"$tmp/rock_lint.log" 2>&1; then
        pass "luarocks lint $rockspec"
    else
        cat "$tmp/rock_lint.log"
        fail "luarocks lint $rockspec"
    fi
    if luarocks --lua-version=5.4 --tree="$tmp/rocks" make "$rockspec" >"$tmp/rock.log" 2>&1 &&
        out=$(LUA_CPATH="$tmp/rocks/lib/lua/5.4/?.so" MATERIAL="$HERE/material.lua" VERSION="$version" \
            lua5.4 -e "$lua_script" 2>&1) && [[ ${out#consumer_lit } == "$engine_hash" ]]; then
        pass "luarocks make (Lua 5.4, tree $tmp/rocks): require \"pso\", same hash"
    else
        tail -20 "$tmp/rock.log"
        fail "luarocks make: ${out:-}"
    fi
fi

printf '\nconsumer: %d passed, %d failed\n' $((checks - failures)) "$failures"
((failures == 0))
