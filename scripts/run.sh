#!/usr/bin/env bash
# Install the dependencies, build the release configuration and run psoc.
#
#   scripts/run.sh
#
# Each stage is a function called from main, in order; to extend, add a
# stage function and call it from main.  Release outputs: build/bin/psoc,
# build/lib/pso.so (see premake5.lua for the whole layout).
#
# The output is meant to be read: the package manager and the build write
# to logs under build/logs/ and are shown (the last lines of their log) only
# when they fail; what psoc prints about the example materials is the main
# part.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

PSOC_BIN=build/bin/psoc
PSOC_LOGS=build/logs
# lines of a failed step's log to show
PSOC_LOG_TAIL=${PSOC_LOG_TAIL:-40}

# quietly NAME COMMAND...: run COMMAND with its output in $PSOC_LOGS/NAME.log;
# on failure print the log's tail and return COMMAND's exit status.
quietly() {
    local name=$1 log rc=0
    shift
    mkdir -p "$PSOC_LOGS"
    log=$PSOC_LOGS/$name.log
    "$@" >"$log" 2>&1 || rc=$?
    if ((rc != 0)); then
        psoc_err "$name failed (exit status $rc); the last $PSOC_LOG_TAIL lines of $log:"
        tail -n "$PSOC_LOG_TAIL" "$log" >&2
    fi
    return "$rc"
}

stage_deps() {
    psoc_log "dependencies (log: $PSOC_LOGS/deps.log)"
    quietly deps psoc_install_deps
}

stage_build() {
    psoc_log "build release (log: $PSOC_LOGS/build.log)"
    quietly build psoc_build release
    "$PSOC_BIN" --version
}

# The committed raw stream fixtures are test data (bad_*.bin are broken on
# purpose, for tests/cli/test_cli.sh): one line that they still behave.
stage_check_data() {
    local -a good=() bad=()
    local f rc=0 wrong=0
    shopt -s nullglob
    good=(tests/data/valid_*.bin)
    bad=(tests/data/bad_*.bin)
    shopt -u nullglob
    ((${#good[@]} + ${#bad[@]} > 0)) || return 0
    if ((${#good[@]} > 0)); then
        "$PSOC_BIN" check --raw -q "${good[@]}" || rc=$?
        if ((rc != 0)); then
            psoc_err "valid raw fixtures fail 'psoc check --raw' (exit status $rc)"
            return 1
        fi
    fi
    for f in "${bad[@]}"; do
        rc=0
        "$PSOC_BIN" check --raw -q "$f" >/dev/null || rc=$?
        if ((rc != 1)); then
            psoc_err "$f: 'psoc check --raw' exited $rc, expected 1 (it is broken on purpose)"
            wrong=1
        fi
    done
    ((wrong == 0)) || return 1
    psoc_log "raw fixtures (tests/data): ${#good[@]} valid streams pass, ${#bad[@]} broken on purpose are rejected"
}

# The bundled example materials (scripts/materials/*.lua; lib/ holds their
# shared modules). They target DirectX 12 Ultimate hardware (mesh shaders,
# view instancing), hence the profile.
PSOC_MATERIAL_PROFILE=desktop_fl12_2
PSOC_MATERIALS_FAILED=0

# Check every material in the sandbox and print a table of its pipelines.
stage_materials() {
    local -a files=()
    shopt -s nullglob
    files=(scripts/materials/*.lua)
    shopt -u nullglob
    if ((${#files[@]} == 0)); then
        psoc_log "no scripts/materials/*.lua, skipping the materials"
        return 0
    fi
    psoc_log "psoc check --summary --profile $PSOC_MATERIAL_PROFILE scripts/materials/*.lua"
    local rc=0
    "$PSOC_BIN" check --summary --profile "$PSOC_MATERIAL_PROFILE" "${files[@]}" || rc=$?
    if ((rc != 0)); then
        psoc_err "bundled materials fail 'psoc check' (exit status $rc)"
        PSOC_MATERIALS_FAILED=1
    fi
}

# Where the values of one pipeline come from: the script, a preset, the
# base it derives from; --changed leaves out the fields at their defaults.
stage_explain() {
    local material=scripts/materials/lit.lua pipeline=lit_two_sided
    [[ -f $material ]] || return 0
    psoc_log "psoc explain --changed --pipeline $pipeline $material"
    "$PSOC_BIN" explain --changed --pipeline "$pipeline" "$material"
    psoc_log "psoc diff $material:lit_opaque $material:$pipeline"
    "$PSOC_BIN" diff "$material:lit_opaque" "$material:$pipeline" || (($? == 1))
}

# What one pipeline's fixed-function state does, drawn on vkd3d by
# 'psoc preview' (docs/device.md): the README's picture.
stage_preview() {
    local material=scripts/materials/transparent.lua pipeline=transparent_alpha out=build/preview.png
    if ! "$PSOC_BIN" preview --help >/dev/null 2>&1; then
        psoc_log "this psoc has no 'preview' command (it needs vkd3d and libpng), skipping the preview"
        return 0
    fi
    psoc_log "psoc preview $material --pipeline $pipeline -o $out"
    "$PSOC_BIN" preview "$material" --pipeline "$pipeline" -o "$out"
}

# Cook the example materials into one archive (docs/cooking.md) and list it:
# the pipelines, their kinds and sizes, and the components they share. A
# second cook takes every material from the cache.
PSOC_ARCHIVE=build/materials.psoa
stage_cook() {
    [[ -d scripts/materials ]] || return 0
    psoc_log "psoc cook --profile $PSOC_MATERIAL_PROFILE scripts/materials -o $PSOC_ARCHIVE"
    local rc=0
    "$PSOC_BIN" cook --profile "$PSOC_MATERIAL_PROFILE" scripts/materials -o "$PSOC_ARCHIVE" || rc=$?
    if ((rc != 0)); then
        psoc_err "the bundled materials do not cook (exit status $rc)"
        PSOC_MATERIALS_FAILED=1
        return 0
    fi
    psoc_log "psoc ls $PSOC_ARCHIVE"
    "$PSOC_BIN" ls "$PSOC_ARCHIVE"
    psoc_log "psoc verify $PSOC_ARCHIVE"
    "$PSOC_BIN" verify "$PSOC_ARCHIVE" || PSOC_MATERIALS_FAILED=1
}

main() {
    stage_deps
    stage_build
    stage_check_data
    stage_materials
    stage_explain
    stage_cook
    stage_preview
    if ((PSOC_MATERIALS_FAILED)); then
        psoc_err "some bundled materials failed their check (see above)"
        exit 1
    fi
}

main "$@"
