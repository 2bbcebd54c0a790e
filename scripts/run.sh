#!/usr/bin/env bash
# Install the dependencies, build the release configuration and run psoc.
#
#   scripts/run.sh
#
# Each stage is a function called from main, in order; to extend, add a
# stage function and call it from main.  Release outputs: build/bin/psoc,
# build/lib/pso.so (see premake5.lua for the whole layout).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

PSOC_BIN=build/bin/psoc

stage_deps() {
    psoc_install_deps
}

stage_build() {
    psoc_build release
}

# Validate the committed sample streams, if any.
stage_check_data() {
    local -a files=()
    shopt -s nullglob
    files=(tests/data/*.bin)
    shopt -u nullglob
    if ((${#files[@]} == 0)); then
        psoc_log "no tests/data/*.bin, skipping psoc check"
        return 0
    fi
    psoc_log "psoc check --raw (${#files[@]} files; bad_*.bin are broken on purpose)"
    local rc=0 f
    local -a good=()
    "$PSOC_BIN" check --raw "${files[@]}" || rc=$?
    ((rc <= 1)) || return "$rc" # 1 = a stream has errors: the bad_*.bin ones do
    for f in "${files[@]}"; do
        [[ $(basename "$f") == bad_* ]] || good+=("$f")
    done
    # The others must pass whatever the device can do (valid_mesh.bin needs
    # mesh shaders, which the default profile lacks).
    ((${#good[@]} == 0)) || "$PSOC_BIN" check --raw -q --profile max "${good[@]}"
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
    psoc_log "psoc check --summary --profile $PSOC_MATERIAL_PROFILE (${#files[@]} materials)"
    local rc=0
    "$PSOC_BIN" check --summary --profile "$PSOC_MATERIAL_PROFILE" "${files[@]}" || rc=$?
    if ((rc != 0)); then
        psoc_err "bundled materials fail 'psoc check' (exit status $rc)"
        PSOC_MATERIALS_FAILED=1
    fi
}

# Where the values of one pipeline come from: the script, a preset, the
# base it derives from, or a (hidden) runtime default.
stage_explain() {
    local material=scripts/materials/lit.lua pipeline=lit_two_sided
    [[ -f $material ]] || return 0
    psoc_log "psoc explain --pipeline $pipeline $material"
    "$PSOC_BIN" explain --pipeline "$pipeline" "$material"
    psoc_log "psoc diff $material:lit_opaque $material:$pipeline"
    "$PSOC_BIN" diff "$material:lit_opaque" "$material:$pipeline" || (($? == 1))
}

# What one pipeline's fixed-function state does, drawn on vkd3d by
# psoc_preview (docs/device.md): the README's picture.
stage_preview() {
    local material=scripts/materials/transparent.lua pipeline=transparent_alpha out=build/preview.png
    if [[ ! -x build/bin/psoc_preview ]]; then
        psoc_log "no build/bin/psoc_preview (needs vkd3d and libpng), skipping the preview"
        return 0
    fi
    psoc_log "psoc_preview $material --pipeline $pipeline -o $out"
    build/bin/psoc_preview "$material" --pipeline "$pipeline" -o "$out"
}

main() {
    stage_deps
    stage_build
    stage_check_data
    stage_materials
    stage_explain
    stage_preview
    if ((PSOC_MATERIALS_FAILED)); then
        psoc_err "some bundled materials failed their check (see above)"
        exit 1
    fi
}

main "$@"
