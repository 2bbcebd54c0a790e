#!/usr/bin/env bash
# The Visual Studio solution matches the gmake build (issue 14, Deliver 3).
#
#   tests/windows/test_vs2010.sh
#
# Generates both from premake5.lua with Debian's premake 4.3
# (premake4 --file=premake5.lua vs2010 / gmake, into build/vs-check/) and
# checks, for every project of the solution, against the gmake makefile of
# the same name, in each configuration (release, debug, sanitize):
#   - the same source files
#   - the same defines, but for the one platform define on each side
#     (_POSIX_C_SOURCE=200809L for gmake, _CRT_SECURE_NO_WARNINGS for MSVC)
#   - the same include folders, but for the third-party ones (Linux:
#     /usr/include/wsl/stubs and the Lua headers; Visual Studio: the
#     $(PSOC_*_INCLUDE) properties)
#   - psoc's preview command draws through vkd3d, a Linux library: its
#     define (PSOC_CLI_HAVE_PREVIEW) and folders (src/device, src/tools)
#     are the one difference allowed, in the psoc project
# and that the product projects (psoc_static, psoc_shared, psolua, pso,
# psoc) are all in the solution, that the .sln names every .vcxproj, and
# that no GCC option (-W..., -f..., -std=...) reached a Visual Studio project.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
ROOT=$PWD
OUT=build/vs-check
rm -rf "$OUT"
mkdir -p "$OUT"
fail=0
checks=0
bad() {
    echo "FAIL $*"
    fail=1
}

premake4 --file=premake5.lua --builddir="$OUT/gmake" gmake >"$OUT/gmake.log" 2>&1 ||
    { cat "$OUT/gmake.log"; exit 1; }
premake4 --file=premake5.lua --builddir="$OUT/vs" vs2010 >"$OUT/vs.log" 2>&1 ||
    { cat "$OUT/vs.log"; exit 1; }

# canon DIR PATH...: each path (relative to DIR, or absolute) as a real path
canon() {
    local dir=$1 p
    shift
    for p in "$@"; do
        case $p in
            /* | '$('*) ;;
            *) p=$dir/$p ;;
        esac
        [[ $p == '$('* ]] || p=$(realpath -m "$p")
        printf '%s\n' "$p"
    done
}

# gmake_field MAKEFILE CONFIG NAME: the words of 'NAME += ...' in CONFIG's block
gmake_field() {
    awk -v cfg="$2" -v name="$3" '
        /^ifeq \(\$\(config\),/ { c = $0; sub(/^ifeq \(\$\(config\),/, "", c); sub(/\).*/, "", c) }
        /^endif/ { c = "" }
        c == cfg && $1 == name && $2 == "+=" { for (i = 3; i <= NF; i++) print $i }
    ' "$1"
}

# vs_field VCXPROJ CONFIG TAG: the ';' items of the first <TAG> in CONFIG's
# <ItemDefinitionGroup>, without %(TAG)
vs_field() {
    awk -v cfg="$2" -v tag="$3" '
        /<ItemDefinitionGroup Condition=/ { c = $0; sub(/.*==\x27/, "", c); sub(/\|.*/, "", c); done = 0 }
        /<\/ItemDefinitionGroup>/ { c = "" }
        c == cfg && !done && index($0, "<" tag ">") {
            v = $0; sub(".*<" tag ">", "", v); sub("</" tag ">.*", "", v)
            n = split(v, a, ";"); for (i = 1; i <= n; i++) if (a[i] != "" && a[i] !~ /^%\(/) print a[i]
            done = 1
        }
    ' "$1" | tr '\\' '/'
}

same() { # WHAT LIST-A LIST-B
    checks=$((checks + 1))
    if [[ $2 != "$3" ]]; then
        bad "$1"
        diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/    /'
    fi
}

for project in psoc_static psoc_shared psolua pso psoc; do
    [[ -f $OUT/gmake/$project.make ]] || continue
    checks=$((checks + 1))
    [[ -f $OUT/vs/$project.vcxproj ]] || bad "$project is in the gmake build but not in the solution"
done

for vcx in "$OUT"/vs/*.vcxproj; do
    project=$(basename "$vcx" .vcxproj)
    mk=$OUT/gmake/$project.make
    checks=$((checks + 1))
    grep -q "\"$project\", \"$project.vcxproj\"" "$OUT/vs/psoc.sln" || bad "psoc.sln does not name $project"
    if [[ ! -f $mk ]]; then
        bad "$project is in the solution but not in the gmake build"
        continue
    fi
    gm_src=$(sed -n 's|^[[:space:]]*\$(OBJDIR)/\([^ ]*\)\.o.*$|\1|p' "$mk" | sort -u)
    vs_src=$(sed -n 's|.*<ClCompile Include="\([^"]*\)".*|\1|p' "$vcx" | tr '\\' '/' |
        sed 's|.*/||; s|\.c$||' | sort -u)
    same "$project: sources" "$gm_src" "$vs_src"
    [[ -n $gm_src ]] || bad "$project: no sources found in $mk"
    checks=$((checks + 1))
    if grep -E '<AdditionalOptions>[^<]*(^|[ ])-(W|f|std=|O|g)' "$vcx" >/dev/null; then
        bad "$project: GCC options in the Visual Studio project"
    fi
    for cfg in release debug sanitize; do
        gm_def=$(gmake_field "$mk" "$cfg" DEFINES | sed 's/^-D//' |
            grep -vx -e '_POSIX_C_SOURCE=200809L' -e PSOC_CLI_HAVE_PREVIEW | sort)
        vs_def=$(vs_field "$vcx" "$cfg" PreprocessorDefinitions | grep -vx '_CRT_SECURE_NO_WARNINGS' | sort)
        same "$project ($cfg): defines" "$gm_def" "$vs_def"
        mapfile -t inc < <(gmake_field "$mk" "$cfg" INCLUDES | sed 's/^-I//')
        gm_inc=$(canon "$OUT/gmake" "${inc[@]}" | grep -vx -e /usr/include/wsl/stubs -e '/usr/include/lua5\.[0-9]' \
            -e /usr/include/luajit-2.1 -e "$ROOT/src/device" -e "$ROOT/src/tools" | sort)
        mapfile -t inc < <(vs_field "$vcx" "$cfg" AdditionalIncludeDirectories)
        vs_inc=$(canon "$OUT/vs" "${inc[@]}" | grep -v '^\$(PSOC_' | sort)
        same "$project ($cfg): include folders" "$gm_inc" "$vs_inc"
        [[ $gm_inc == *"$ROOT/src"* ]] || bad "$project ($cfg): src/ not among the include folders"
    done
done

if ((fail)); then
    echo "test_vs2010: FAILED ($checks checks)"
    exit 1
fi
echo "test_vs2010: $checks checks passed ($(ls "$OUT"/vs/*.vcxproj | wc -l) projects)"
