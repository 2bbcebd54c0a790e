#!/usr/bin/env bash
# Build and run every psoc test suite that exists, then print a summary.
#
#   scripts/test.sh
#
# Steps (each one is recorded; a failure does not stop the others):
#   deps              scripts/lib.sh psoc_install_deps
#   build release     all projects, release      (build/bin, build/lib)
#   build sanitize    all projects, ASan+UBSan   (build/sanitize/...)
#   unit, conformance Check suites, release and sanitize builds
#   cook              tests/cook/test_cook.sh: cook, merge, ls, verify, the
#                     cache, ninja and make -j2 (release and sanitize);
#                     tests/cook/test_cook_index.sh: the cache index;
#                     tests/cook/test_cook_tsan.sh: the cook's threads (tsan)
#   fuzz              scripts/fuzz.sh --seconds $PSOC_FUZZ_SECONDS (if tests/fuzz)
#   lua               scripts/test_lua.sh (if it exists)
#   annotations       scripts/types/pso.lua is what the registry generates
#   lua versions      scripts/test_lua_versions.sh: module, suites and sandbox
#                     under Lua 5.4, 5.3, 5.1 and LuaJIT
#   lint              scripts/lint.sh: luacheck, cppcheck, clang-tidy
#   reload, watch     tests/reload: the hot-reload library (release, sanitize,
#                     tsan: build/tsan holds only its tests) and 'psoc watch'
#   dxbc_asm          the DXBC assembler's known answers (release, sanitize) and
#                     tests/dxbc_asm/test_vkd3d_compiler.sh (vkd3d-compiler),
#                     test_tool_files.sh (the tool's file handling)
#   gen_library       tests/bench/gen/test_gen_library.sh: generated material
#                     libraries pass psoc check --deep --werror, deterministically
#   bench_library     tests/bench/bench_library.sh --pipelines 200 --runs 1: psoc
#                     check and the lua5.4 stub both run a small library
#   device            tests/device: material scripts -> psoc -> vkd3d 1.2 on
#                     lavapipe -> pixels (release, and sanitize without leak
#                     checking: the Vulkan driver leaks); psoc preview's
#                     pictures (tests/device/test_preview.sh)
#   exports           tests/consumer/test_exports.sh: libpsoc.so exports exactly
#                     the functions of its public headers, pso.so luaopen_pso
#   windows           scripts/windows.sh: mingw-w64 build of libpsoc (static,
#                     DLL), libpsolua, pso.dll, psoc.exe against Lua 5.4 from
#                     Debian's source package, run under wine64
#                     (tests/windows/test_windows.sh): --version, exports,
#                     consumers, the Lua suites through psoc.exe test, and
#                     the CLI test scripts (runner, cli, scripts) with
#                     posix_only checks skipped and listed
#   visual studio     tests/windows/test_vs2010.sh: premake4 vs2010's projects
#                     have the gmake build's sources, defines and includes
#   install, consumer tests/consumer/test_consumer.sh: make install into a
#                     temporary prefix, pkg-config consumers, every Lua
#                     loading the installed module, luarocks make
#
# A suite whose sources do not exist yet is SKIPped with a note; once they
# exist, failing to build it is a FAIL.  Exit status: 0 only if nothing
# failed.
#
# Environment:
#   PSOC_FUZZ_SECONDS   total fuzzing time (default 60)
#   PSOC_TEST_TIMEOUT   seconds allowed to one suite (default 1200)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

: "${PSOC_FUZZ_SECONDS:=60}"
: "${PSOC_TEST_TIMEOUT:=1200}"

RESULT_NAMES=()
RESULT_STATUS=()
RESULT_NOTES=()
RESULT_SECONDS=()

record() { # NAME STATUS [NOTE] [SECONDS]
    RESULT_NAMES+=("$1")
    RESULT_STATUS+=("$2")
    RESULT_NOTES+=("${3:-}")
    RESULT_SECONDS+=("${4:-}")
}

banner() {
    printf '\n======== %s ========\n' "$*"
}

# step NAME CMD...: run CMD, record PASS or FAIL.
step() {
    local name=$1 rc=0 start=$SECONDS
    shift
    banner "$name"
    "$@" || rc=$?
    if ((rc == 0)); then
        record "$name" PASS "" $((SECONDS - start))
    else
        record "$name" FAIL "exit status $rc" $((SECONDS - start))
        printf '>>> %s: FAILED (exit status %d)\n' "$name" "$rc"
    fi
}

# run_suite CONFIG PROJECT: make sure PROJECT is built for CONFIG (so a stale
# binary never runs), then run it from the repo root.
run_suite() {
    local config=$1 project=$2 bin
    bin=$(psoc_outdir "$config")/bin/$project
    if ! psoc_make "$config" -- "$project"; then
        echo ">>> $project ($config) does not build"
        return 1
    fi
    if [[ ! -x $bin ]]; then
        echo ">>> $bin was not produced"
        return 1
    fi
    if [[ $config == sanitize ]]; then
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            timeout -k 10 "$PSOC_TEST_TIMEOUT" "$bin"
    else
        timeout -k 10 "$PSOC_TEST_TIMEOUT" "$bin"
    fi
}

# suite NAME CONFIG PROJECT DIR PATTERN: run PROJECT if DIR/PATTERN matches.
suite() {
    local name=$1 config=$2 project=$3 dir=$4 pattern=$5
    local -a sources
    # shellcheck disable=SC2206  # the glob is meant to expand here
    sources=($dir/$pattern)
    if ((${#sources[@]} > 0)); then
        step "$name" run_suite "$config" "$project"
    else
        record "$name" SKIP "no $dir/$pattern yet"
    fi
}

# The device suite under ASan+UBSan, without LeakSanitizer: the Vulkan
# driver (lavapipe loads LLVM, which loads ICU) leaks, and it is unloaded
# with the device, so its leaks show as "<unknown module>" and cannot be
# suppressed by library. psoc's own leaks are checked by the unit suites.
run_device_sanitize() {
    local bin
    bin=$(psoc_outdir sanitize)/bin/psoc_device_tests
    psoc_make sanitize -- psoc_device_tests || return
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        timeout -k 10 "$PSOC_TEST_TIMEOUT" "$bin"
}

# The hot-reload tests under ThreadSanitizer (owner h7): only what they
# need is built with config=tsan (build/tsan); Check runs them in-process.
run_reload_tsan() {
    psoc_make tsan -- psoc_reload_tests || return
    CK_FORK=no TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 PSOC_RELOAD_CYCLES=1000 \
        timeout -k 10 "$PSOC_TEST_TIMEOUT" "$(psoc_outdir tsan)/bin/psoc_reload_tests"
}

# psoc cook's threads under ThreadSanitizer (owner u3): the CLI built with
# config=tsan, a few cooks of the example materials (tests/cook/test_cook_tsan.sh).
run_cook_tsan() {
    psoc_make tsan -- psoc || return
    bash tests/cook/test_cook_tsan.sh "$(psoc_outdir tsan)/bin/psoc"
}

# 'psoc preview' end to end (tests/device/test_preview.sh).
run_preview() {
    psoc_make release -- psoc &&
        bash tests/device/test_preview.sh "$(psoc_outdir release)/bin/psoc"
}

# The committed LuaLS annotations match the registry (docs/embedding.md).
check_annotations() {
    psoc_make release -- psoc_gen_annotations &&
        "$(psoc_outdir release)/bin/psoc_gen_annotations" --check scripts/types/pso.lua
}

print_summary() {
    local i pass=0 fail=0 skip=0 secs
    banner "summary"
    printf '%-28s %-6s %6s  %s\n' "STEP" "RESULT" "TIME" "NOTE"
    printf '%-28s %-6s %6s  %s\n' "----" "------" "----" "----"
    for i in "${!RESULT_NAMES[@]}"; do
        secs=${RESULT_SECONDS[$i]}
        [[ -n $secs ]] && secs="${secs}s"
        printf '%-28s %-6s %6s  %s\n' "${RESULT_NAMES[$i]}" "${RESULT_STATUS[$i]}" \
            "$secs" "${RESULT_NOTES[$i]}"
        case ${RESULT_STATUS[$i]} in
            PASS) pass=$((pass + 1)) ;;
            FAIL) fail=$((fail + 1)) ;;
            *) skip=$((skip + 1)) ;;
        esac
    done
    echo
    if ((fail > 0)); then
        echo "RESULT: FAIL"
    else
        echo "RESULT: PASS"
    fi
    echo "steps: $pass passed, $fail failed, $skip skipped"
    ((fail == 0))
}

main() {
    shopt -s nullglob

    step "deps" psoc_install_deps
    step "build release" psoc_build release
    step "build sanitize" psoc_build sanitize

    suite "unit (release)" release psoc_tests tests/unit '*.c'
    suite "conformance (release)" release psoc_conformance tests/conformance '*.cpp'
    suite "unit (sanitize)" sanitize psoc_tests tests/unit '*.c'
    suite "conformance (sanitize)" sanitize psoc_conformance tests/conformance '*.cpp'

    # The command-line tool: raw streams and material scripts.
    # root signatures: psoc's blobs against vkd3d's serializer and device
    # (lavapipe); release only, since vkd3d and Mesa keep allocations LSan
    # would count as leaks.
    if [[ -x $(psoc_outdir release)/bin/psoc_rootsig_vkd3d ]]; then
        step "root signatures (vkd3d)" run_suite release psoc_rootsig_vkd3d
    else
        record "root signatures (vkd3d)" SKIP "no vkd3d (libvkd3d-dev)"
    fi
    step "cli (release)" bash tests/cli/test_cli.sh "$(psoc_outdir release)/bin/psoc"
    step "cli scripts (release)" bash tests/cli/test_scripts.sh "$(psoc_outdir release)/bin/psoc"
    step "cli (sanitize)" bash tests/cli/test_cli.sh "$(psoc_outdir sanitize)/bin/psoc"
    step "cli scripts (sanitize)" bash tests/cli/test_scripts.sh "$(psoc_outdir sanitize)/bin/psoc"
    # explain, diff and dump --json byte for byte against tests/cli/golden (owner s7)
    step "cli explain golden (release)" bash tests/cli/test_explain_golden.sh "$(psoc_outdir release)/bin/psoc"
    step "cli explain golden (sanitize)" bash tests/cli/test_explain_golden.sh "$(psoc_outdir sanitize)/bin/psoc"
    step "cook (release)" bash tests/cook/test_cook.sh "$(psoc_outdir release)/bin/psoc"
    step "cook (sanitize)" bash tests/cook/test_cook.sh "$(psoc_outdir sanitize)/bin/psoc"
    step "cook index (release)" bash tests/cook/test_cook_index.sh "$(psoc_outdir release)/bin/psoc"
    step "cook index (sanitize)" bash tests/cook/test_cook_index.sh "$(psoc_outdir sanitize)/bin/psoc"
    step "cook (tsan)" run_cook_tsan
    # Hot reload (tests/reload): the library against real files with both
    # watcher backends, 10,000 reload cycles (leaks: sanitize), the thread
    # contract under TSan, and 'psoc watch'.
    suite "reload (release)" release psoc_reload_tests tests/reload '*.c'
    suite "reload (sanitize)" sanitize psoc_reload_tests tests/reload '*.c'
    step "reload (tsan)" run_reload_tsan
    step "watch (release)" bash tests/reload/test_watch.sh "$(psoc_outdir release)/bin/psoc"
    step "watch (sanitize)" bash tests/reload/test_watch.sh "$(psoc_outdir sanitize)/bin/psoc"
    # The Win32 watcher (ReadDirectoryChangesW, polling) cross-compiled with
    # mingw-w64 and run under wine (owner h9); skipped without them.
    if command -v x86_64-w64-mingw32-gcc > /dev/null && { command -v wine64 || command -v wine; } > /dev/null; then
        step "reload watcher (wine)" bash tests/reload/test_watch_win32.sh
    else
        record "reload watcher (wine)" SKIP "x86_64-w64-mingw32-gcc or wine64 not installed"
    fi
    # The DXBC assembler, checked against vkd3d-compiler, and the device suite.
    suite "dxbc_asm (release)" release psoc_dxbc_asm_tests tests/dxbc_asm '*.c'
    suite "dxbc_asm (sanitize)" sanitize psoc_dxbc_asm_tests tests/dxbc_asm '*.c'
    step "dxbc_asm vkd3d-compiler" bash tests/dxbc_asm/test_vkd3d_compiler.sh \
        "$(psoc_outdir release)/bin/psoc_dxbc_asm"
    step "dxbc_asm files" bash tests/dxbc_asm/test_tool_files.sh \
        "$(psoc_outdir release)/bin/psoc_dxbc_asm"
    # The benchmark library generator: what it writes passes psoc check --deep.
    step "gen_library" bash tests/bench/gen/test_gen_library.sh "$(psoc_outdir release)/bin"
    # bench_library.sh runs (both sides check all of a small library; no timing asserted).
    step "bench_library (smoke)" bash tests/bench/bench_library.sh "$(psoc_outdir release)/bin" \
        --pipelines 200 --runs 1
    suite "device (release)" release psoc_device_tests tests/device '*.c'
    if [[ -d tests/device ]]; then
        step "device (sanitize)" run_device_sanitize
        step "preview" run_preview
    fi
    # The committed enum tables match the installed headers.
    step "enums" lua5.4 scripts/gen_enums.lua --check

    if [[ -d tests/fuzz ]]; then
        step "fuzz" bash scripts/fuzz.sh --seconds "$PSOC_FUZZ_SECONDS"
    else
        record "fuzz" SKIP "no tests/fuzz"
    fi

    # Hook for the Lua suites, owned by whoever writes them.
    if [[ -f scripts/test_lua.sh ]]; then
        step "lua" bash scripts/test_lua.sh
    else
        record "lua" SKIP "no scripts/test_lua.sh"
    fi

    # Fitting the Lua and C ecosystems (docs/embedding.md).
    step "annotations" check_annotations
    step "lua versions" bash scripts/test_lua_versions.sh
    step "lint" bash scripts/lint.sh
    step "install, consumer" bash tests/consumer/test_consumer.sh
    # libpsoc.so and pso.so export exactly what the public headers declare.
    step "exports" bash tests/consumer/test_exports.sh "$(psoc_outdir release)/lib"
    # Windows: mingw-w64 cross build, run under wine64 (docs/windows.md).
    step "windows" bash scripts/windows.sh
    # premake4 vs2010: the solution matches the gmake build.
    step "visual studio" bash tests/windows/test_vs2010.sh

    print_summary
}

main "$@"
