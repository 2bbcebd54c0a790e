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
    psoc_log "psoc check --raw (${#files[@]} files)"
    "$PSOC_BIN" check --raw "${files[@]}"
}

main() {
    stage_deps
    stage_build
    stage_check_data
}

main "$@"
