#!/usr/bin/env bash
# Tests of the psoc command-line tool over the raw-stream fixtures.
#
#   tests/cli/test_cli.sh PSOC_BINARY
#
# Runs from any directory (it changes to the repository root, so PSOC_BINARY
# may be relative to the caller's directory). First regenerates the
# fixtures with tests/data/gen_raw.c into a temporary folder and compares
# them with the committed tests/data/*.bin, then checks exit statuses,
# message IDs and output formats. Prints one line per failure and a
# summary; exits 0 only if every check passed.
#
set -u

TEST_NAME=test_cli
# shellcheck source=tests/cli/assert.sh
. "$(dirname "${BASH_SOURCE[0]}")/assert.sh"
# Environment: CC (default cc) builds the generator.
DATA=tests/data

# check_raw STATUS FIXTURE [REGEX...]: 'check --raw' on one fixture; every
# REGEX must match stdout.
check_raw() {
    local want=$1 fixture=$DATA/$2.bin re
    shift 2
    LAST_ARGS="check --raw $fixture"
    expect "$want" check --raw "$fixture"
    for re in "$@"; do has "$OUT" "$re" stdout; done
}

# ---- fixtures are current ------------------------------------------------

test_fixtures() {
    local f name
    mkdir -p "$TMP/data"
    if ! "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -I src \
        -I /usr/include/wsl/stubs "$DATA/gen_raw.c" -o "$TMP/gen_raw"; then
        fail "tests/data/gen_raw.c does not build"
        return
    fi
    if ! "$TMP/gen_raw" "$TMP/data"; then
        fail "gen_raw failed"
        return
    fi
    for f in "$TMP"/data/*.bin; do
        name=${f##*/}
        if [[ ! -f $DATA/$name ]]; then
            fail "$DATA/$name is not committed (gen_raw makes it)"
        elif cmp -s "$f" "$DATA/$name"; then
            pass
        else
            fail "$DATA/$name is stale: rerun gen_raw $DATA"
        fi
    done
    for f in "$DATA"/*.bin; do
        [[ -f $TMP/data/${f##*/} ]] || fail "$f is not made by gen_raw.c"
    done
}

# ---- global options and usage errors ---------------------------------------

test_global() {
    local version
    version=$(sed -n 's/^#define PSOC_VERSION_STRING "\(.*\)"/\1/p' src/psoc.h)
    LAST_ARGS="--version"
    expect 0 --version
    has "$OUT" "^psoc ${version//./\\.}\$" "--version"
    # every command answers --version with the same line (before '--' only)
    for a in $("$PSOC" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1; next} on {exit}'); do
        LAST_ARGS="$a --version"
        expect 0 "$a" --version
        has "$OUT" "^psoc ${version//./\\.}\$" "$a --version"
    done
    LAST_ARGS="check --raw --version"
    expect 0 check --raw "$DATA/bad_empty.bin" --version
    has "$OUT" "^psoc ${version//./\\.}\$" "check --raw FILE --version"
    LAST_ARGS="check --raw -- --version"
    expect 2 check --raw -- --version
    has "$ERR" "--version: cannot open" "a file called --version after --"
    for a in --help -h help; do
        LAST_ARGS=$a
        expect 0 "$a"
        has "$OUT" "^usage: psoc" "$a"
    done
    LAST_ARGS="(no arguments)"
    expect 2
    has "$ERR" "^usage: psoc" stderr
    LAST_ARGS="frobnicate"
    expect 2 frobnicate
    has "$ERR" "unknown command 'frobnicate'" stderr
    has "$ERR" "try 'psoc --help'" stderr
    LAST_ARGS="--bogus"
    expect 2 --bogus
    has "$ERR" "try 'psoc --help'" stderr
    LAST_ARGS="help frobnicate"
    expect 2 help frobnicate
}

# Every command listed by 'psoc --help' answers --help and -h.
test_command_help() {
    local cmd commands
    commands=$("$PSOC" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1; next} on {exit}')
    if [[ -z $commands ]]; then
        fail "'psoc --help' lists no commands"
        return
    fi
    for cmd in $commands; do
        for h in --help -h; do
            LAST_ARGS="$cmd $h"
            expect 0 "$cmd" "$h"
            [[ -s $OUT ]] && pass || fail "psoc $cmd $h printed nothing"
        done
        LAST_ARGS="help $cmd"
        expect 0 help "$cmd"
    done
    for cmd in check dump; do
        LAST_ARGS="$cmd --raw --help"
        expect 0 "$cmd" --raw --help
        has "$OUT" "^usage: psoc $cmd --raw" "$cmd --raw --help"
    done
    LAST_ARGS="check --raw --help"
    expect 0 check --raw --help
    has "$OUT" "^  desktop_fl12_0 " "profile list"
}

test_usage_errors() {
    LAST_ARGS="check --raw"
    expect 2 check --raw
    has "$ERR" "no FILE" stderr
    LAST_ARGS="dump --raw"
    expect 2 dump --raw
    LAST_ARGS="check --raw --bogus"
    expect 2 check --raw --bogus "$DATA/valid_graphics.bin"
    has "$ERR" "unknown option '--bogus'" stderr
    has "$ERR" "try 'psoc check --help'" stderr
    LAST_ARGS="check --raw --format=xml"
    expect 2 check --raw --format=xml "$DATA/valid_graphics.bin"
    LAST_ARGS="check --raw --profile=nonesuch"
    expect 2 check --raw --profile=nonesuch "$DATA/valid_graphics.bin"
    has "$ERR" "unknown profile 'nonesuch'" stderr
    LAST_ARGS="check --raw --profile"
    expect 2 check --raw "$DATA/valid_graphics.bin" --profile
    LAST_ARGS="dump --raw --profile=max"
    expect 2 dump --raw --profile=max "$DATA/valid_graphics.bin"
    LAST_ARGS="dump --raw --quiet"
    expect 2 dump --raw --quiet "$DATA/valid_graphics.bin"
    # Without --raw: the script form, or a refusal when it is not built.
    # Either way a script that does not exist is exit status 2.
    LAST_ARGS="check $TMP/missing.lua"
    expect 2 check "$TMP/missing.lua"
    if grep -q "script support not built" "$ERR"; then
        has "$ERR" "use --raw" stderr
    fi
}

# ---- check --raw over the fixtures ---------------------------------------

ID=D3D12_MESSAGE_ID_CREATEPIPELINESTATE
N='[0-9]+' # counts that later rules may change

test_check_valid() {
    check_raw 0 valid_graphics "^$DATA/valid_graphics\.bin: ok \(graphics, 11 subobjects, 600 bytes\)\$" \
        "^1 file\(s\): 0 error\(s\), $N warning\(s\), $N note\(s\)\$"
    check_raw 0 valid_compute "^$DATA/valid_compute\.bin: ok \(compute, 4 subobjects, 56 bytes\)\$"
    # Without --profile the runtime's rules alone apply: a mesh stream is
    # valid (CreatePipelineState only fails on a device without mesh shaders,
    # which is what a profile describes; 'check' on a script agrees).
    check_raw 0 valid_mesh "^$DATA/valid_mesh\.bin: ok \(mesh, 8 subobjects, 248 bytes\)\$"
    lacks "$OUT" "PSOC_UNSUPPORTED" "profile-less mesh stream"
    # Mesh shaders need a feature level 12_2 device; desktop_fl12_0 has none.
    LAST_ARGS="check --raw --profile=desktop_fl12_0 valid_mesh"
    expect 1 check --raw --profile=desktop_fl12_0 "$DATA/valid_mesh.bin"
    has "$OUT" "^$DATA/valid_mesh\.bin:@40: error: subobject 2 \(MS\): .*profile 'desktop_fl12_0'.*\[PSOC_UNSUPPORTED\]\$" stdout
    LAST_ARGS="check --raw --profile=desktop_fl12_2 valid_mesh"
    expect 0 check --raw --profile=desktop_fl12_2 "$DATA/valid_mesh.bin"
    has "$OUT" "^$DATA/valid_mesh\.bin: ok \(mesh, 8 subobjects, 248 bytes\)\$" stdout
    # A shader subobject with null bytecode is absent to the runtime: no note.
    check_raw 0 valid_graphics_null_cs ": ok \(graphics, 4 subobjects, 112 bytes\)\$"
    lacks "$OUT" "PSOC_IRRELEVANT_SUBOBJECT" stdout
    check_raw 0 valid_d3dx12_stream2 ": ok \(graphics, 24 subobjects, 880 bytes\)\$"
    lacks "$OUT" "PSOC_IRRELEVANT_SUBOBJECT" stdout
    lacks "$OUT" ": error: " stdout
}

test_check_bad() {
    check_raw 1 bad_empty "^$DATA/bad_empty\.bin: error: .*\[PSOC_ZERO_SIZE_STREAM / ${ID}_ZERO_SIZE_STREAM\]\$"
    lacks "$OUT" ": ok " stdout
    check_raw 1 bad_truncated \
        "^$DATA/bad_truncated\.bin:@88: error: subobject 4 \(BLEND\): .*\[PSOC_TRUNCATED / ${ID}_INVALID_STREAM\]\$"
    check_raw 1 bad_trailing_bytes "^$DATA/bad_trailing_bytes\.bin:@56: error: .*\[PSOC_TRAILING_BYTES / ${ID}_INVALID_STREAM\]\$"
    check_raw 1 bad_unknown_type_23 \
        ":@24: error: subobject 1 \(type 23\).*\[PSOC_UNKNOWN_SUBOBJECT / ${ID}_UNKNOWN_SUBOBJECT\]\$"
    check_raw 1 bad_unknown_type_99 \
        ":@24: error: subobject 1 \(type 99\).*\[PSOC_UNKNOWN_SUBOBJECT / ${ID}_UNKNOWN_SUBOBJECT\]\$"
    check_raw 1 bad_duplicate_ds_ds1 \
        "^$DATA/bad_duplicate_ds_ds1\.bin:@80: error: subobject 2 \(DEPTH_STENCIL1\): .*\[PSOC_DUPLICATE_SUBOBJECT / ${ID}_DUPLICATE_SUBOBJECT\]\$"
    check_raw 1 bad_duplicate_ds1_ds \
        ":@88: error: subobject 2 \(DEPTH_STENCIL\): .*\[PSOC_DUPLICATE_SUBOBJECT / ${ID}_DUPLICATE_SUBOBJECT\]\$"
    check_raw 1 bad_duplicate_rasterizer2_rasterizer \
        ":@72: error: subobject 2 \(RASTERIZER\): .*\[PSOC_DUPLICATE_SUBOBJECT / ${ID}_DUPLICATE_SUBOBJECT\]\$"
    check_raw 1 bad_duplicate_vs_vs "error: subobject 2 \(VS\): .*${ID}_DUPLICATE_SUBOBJECT\]\$"
    check_raw 1 bad_no_shader "error: .*\[PSOC_NO_SHADER / ${ID}_CANNOT_DEDUCE_TYPE\]\$"
    check_raw 1 bad_ambiguous_vs_cs "error: .*\[PSOC_AMBIGUOUS_KIND / ${ID}_CANNOT_DEDUCE_TYPE\]\$"
    has "$OUT" "^1 file\(s\): $N error\(s\), $N warning\(s\), $N note\(s\)\$" stdout
}

test_check_many() {
    local errors
    LAST_ARGS="check --raw (all fixtures)"
    expect 1 check --raw "$DATA"/*.bin
    has "$OUT" "^16 file\(s\): $N error\(s\), $N warning\(s\), $N note\(s\)\$" summary
    errors=$(sed -n 's/^16 file(s): \([0-9]*\) error.*/\1/p' "$OUT")
    [[ ${errors:-0} -ge 11 ]] && pass || fail "all fixtures: ${errors:-no} errors, expected at least 11"
    [[ $(grep -c ": error: " "$OUT") -eq ${errors:-0} ]] && pass ||
        fail "the summary's error count differs from the error lines"
    LAST_ARGS="check --raw --profile=desktop_fl12_2 (valid fixtures)"
    expect 0 check --raw --profile=desktop_fl12_2 "$DATA"/valid_*.bin
    # -q: errors only, no notes, ok lines or summary.
    LAST_ARGS="check -q --raw (all fixtures)"
    expect 1 check -q --raw "$DATA"/*.bin
    lacks "$OUT" "(note|warning):|: ok |file\(s\)" "quiet stdout"
    [[ $(grep -c ": error: " "$OUT") -eq ${errors:-0} ]] && pass || fail "-q did not print every error"
    LAST_ARGS="check --raw --quiet valid"
    expect 0 check --raw --quiet "$DATA/valid_graphics_null_cs.bin"
    [[ ! -s $OUT ]] && pass || fail "--quiet on a valid stream printed something"
    # Options after files and '--' work; '-' is standard input.
    LAST_ARGS="check FILE --raw -- FILE"
    expect 0 check "$DATA/valid_mesh.bin" --raw --profile desktop_fl12_2 -- "$DATA/valid_compute.bin"
    has "$OUT" "^2 file\(s\)" stdout
    LAST_ARGS="check --raw - (stdin)"
    "$PSOC" check --raw --profile=max - <"$DATA/valid_mesh.bin" >"$OUT" 2>"$ERR"
    [[ $? -eq 0 ]] && pass || fail "check --raw --profile=max - <valid_mesh.bin did not exit 0"
    has "$OUT" "^<stdin>: ok \(mesh, 8 subobjects, 248 bytes\)\$" stdout
}

test_check_io() {
    LAST_ARGS="check --raw missing"
    expect 2 check --raw "$TMP/missing.bin"
    has "$ERR" "^psoc: $TMP/missing\.bin: cannot open: No such file or directory\$" stderr
    # An I/O error wins over stream errors, and the other files still run.
    LAST_ARGS="check --raw missing valid bad"
    expect 2 check --raw "$TMP/missing.bin" "$DATA/valid_graphics.bin" "$DATA/bad_no_shader.bin"
    has "$OUT" "valid_graphics\.bin: ok" stdout
    has "$OUT" "PSOC_NO_SHADER" stdout
    has "$OUT" "^3 file\(s\): $N error\(s\), $N warning\(s\), $N note\(s\), 1 unreadable\$" summary
    LAST_ARGS="check --raw DIRECTORY"
    expect 2 check --raw "$DATA"
    has "$ERR" "is a directory" stderr
    truncate -s $((64 * 1024 * 1024 + 1)) "$TMP/big.bin"
    LAST_ARGS="check --raw big.bin"
    expect 2 check --raw "$TMP/big.bin"
    has "$ERR" "too large" stderr
    LAST_ARGS="dump --raw big.bin"
    expect 2 dump --raw "$TMP/big.bin"
    rm -f "$TMP/big.bin"
    if [[ $EUID -ne 0 ]]; then
        cp "$DATA/valid_graphics.bin" "$TMP/unreadable.bin"
        chmod 000 "$TMP/unreadable.bin"
        LAST_ARGS="check --raw unreadable"
        expect 2 check --raw "$TMP/unreadable.bin"
        has "$ERR" "Permission denied" stderr
    fi
}

test_check_json() {
    LAST_ARGS="check --raw --format=json"
    expect 2 check --raw --format=json "$DATA/valid_graphics_null_cs.bin" \
        "$DATA/bad_duplicate_ds1_ds.bin" "$TMP/missing.bin"
    has "$OUT" "\"code\":\"PSOC_DUPLICATE_SUBOBJECT\",\"message_id\":\"${ID}_DUPLICATE_SUBOBJECT\"" json
    has "$OUT" "\"type\":\"DEPTH_STENCIL\"" json
    has "$OUT" "^\{\"command\":\"check\",\"profile\":null," "json without --profile"
    has "$OUT" "\"summary\":\{\"files\":3,\"errors\":$N,\"warnings\":$N,\"notes\":$N,\"unreadable\":1\}" json
    if command -v python3 >/dev/null 2>&1; then
        python3 -m json.tool "$OUT" >/dev/null && pass || fail "--format=json is not valid JSON"
    fi
    # the JSON document names the profile it was checked against
    LAST_ARGS="check --raw --format=json --profile=desktop_fl12_2"
    expect 0 check --raw --format=json --profile=desktop_fl12_2 "$DATA/valid_mesh.bin"
    has "$OUT" "^\{\"command\":\"check\",\"profile\":\"desktop_fl12_2\"," json
    LAST_ARGS="check --raw --format json -q"
    expect 1 check --raw --format json -q "$DATA/bad_duplicate_ds_ds1.bin" "$DATA/valid_graphics_null_cs.bin"
    lacks "$OUT" "\"severity\":\"note\"" "quiet json"
}

# ---- dump --raw ------------------------------------------------------------

test_dump() {
    LAST_ARGS="dump --raw valid_graphics"
    expect 0 dump --raw "$DATA/valid_graphics.bin"
    has "$OUT" "^stream: 11 subobjects, 600 bytes" stdout
    has "$OUT" "^\[2\] @40 VS \(D3D12_SHADER_BYTECODE\)" stdout
    lacks "$OUT" "^==> " "single-file dump"
    LAST_ARGS="dump --raw (two files)"
    expect 0 dump --raw "$DATA/valid_compute.bin" "$DATA/valid_mesh.bin"
    has "$OUT" "^==> $DATA/valid_mesh\.bin <==\$" stdout
    LAST_ARGS="dump --raw bad_truncated"
    expect 1 dump --raw "$DATA/bad_truncated.bin"
    has "$OUT" "^error at offset 88" stdout
    LAST_ARGS="dump --raw bad_empty"
    expect 1 dump --raw "$DATA/bad_empty.bin"
    LAST_ARGS="dump --raw missing"
    expect 2 dump --raw "$TMP/missing.bin"
    has "$ERR" "cannot open" stderr
}

# ---- files that are not regular, odd names, caps ---------------------------

# write_warning_stream FILE: a VS and a default DEPTH_STENCIL without a
# DSVFormat: created by the runtime, with a debug-layer warning
# (DEPTHSTENCILVIEW_NOT_SET) and no error.
write_warning_stream() {
    python3 -c '
import struct, sys
vs = struct.pack("<IIQQ", 1, 0, 0x1000, 4)
ds = struct.pack("<IiiiiBBxxIIIIIIII", 11, 1, 1, 2, 0, 0xff, 0xff, 1, 1, 1, 8, 1, 1, 1, 8)
ds += bytes((8 - len(ds) % 8) % 8)
open(sys.argv[1], "wb").write(vs + ds)' "$1"
}

test_check_files() {
    # A FIFO without a writer: refused at once, never waited on (the timeout
    # in run() would turn a hang into exit status 124).
    mkfifo "$TMP/fifo.bin"
    LAST_ARGS="check --raw FIFO"
    RUN_TIMEOUT=10 expect 2 check --raw "$TMP/fifo.bin"
    has "$ERR" "^psoc: $TMP/fifo\.bin: not a regular file \(a FIFO\)\$" stderr
    LAST_ARGS="dump --raw FIFO"
    RUN_TIMEOUT=10 expect 2 dump --raw "$TMP/fifo.bin"
    has "$ERR" "not a regular file \(a FIFO\)" stderr
    if [[ -c /dev/null ]]; then
        LAST_ARGS="check --raw /dev/null"
        expect 2 check --raw /dev/null
        has "$ERR" "not a regular file \(a character device\)" stderr
    fi
    # the summary counts what the exit status says: an unreadable file is an error
    LAST_ARGS="check --raw missing"
    expect 2 check --raw "$TMP/missing.bin"
    has "$OUT" "^1 file\(s\): 1 error\(s\), 0 warning\(s\), 0 note\(s\), 1 unreadable\$" summary
    LAST_ARGS="check --raw --format=json missing"
    expect 2 check --raw --format=json "$TMP/missing.bin"
    has "$OUT" '"summary":\{"files":1,"errors":1,"warnings":0,"notes":0,"unreadable":1\}' json
    # '-' still reads standard input (a pipe)
    LAST_ARGS="check --raw - (a pipe)"
    cat "$DATA/valid_compute.bin" | timeout 60 "$PSOC" check --raw - >"$OUT" 2>"$ERR"
    [[ $? -eq 0 ]] && pass || fail "check --raw - from a pipe did not exit 0"
    has "$OUT" "^<stdin>: ok \(compute" stdout

    # a file name holding control characters and an invalid byte
    local odd
    if posix_only "a file name with control characters and a byte that is not UTF-8: Windows forbids the first in names, and Wine gives a Windows program U+FFFD for the second"; then
        odd="$TMP/"$'odd\n\x1b[31mname\xff.bin'
        cp "$DATA/bad_no_shader.bin" "$odd"
        LAST_ARGS="check --raw ODD_NAME"
        expect 1 check --raw "$odd"
        has_text "$OUT" "$TMP/odd\n\x1b[31mname\xff.bin: error: " "escaped file name"
        if grep -q $'\x1b' "$OUT"; then fail "ESC reached stdout"; else pass; fi
        LAST_ARGS="check --raw --format=json ODD_NAME"
        expect 1 check --raw --format=json "$odd"
        python3 -c 'import json, sys; d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8")); assert d["files"][0]["file"].endswith("odd\n\x1b[31mname\ufffd.bin")' "$OUT" &&
            pass || fail "check --raw --format=json with an odd file name: not valid UTF-8 JSON"
    fi
    # a name outside ASCII that every system allows: read and reported as
    # the same UTF-8 bytes (on Windows: the wide command line and paths)
    odd="$TMP/"$'mat\xc3\xa9riau \xe2\x9c\x93.bin'
    cp "$DATA/bad_no_shader.bin" "$odd"
    LAST_ARGS="check --raw UTF8_NAME"
    expect 1 check --raw "$odd"
    has_text "$OUT" "$odd: error: " "a UTF-8 file name"
    LAST_ARGS="check --raw -o UTF8_NAME.txt"
    expect 1 check --raw -o "$odd.txt" "$odd"
    has_text "$odd.txt" "$odd: error: " "a report written to a UTF-8 file name"
}

test_check_werror() {
    write_warning_stream "$TMP/warn.bin"
    LAST_ARGS="check --raw warn.bin"
    expect 0 check --raw "$TMP/warn.bin"
    has "$OUT" ": warning: .*DEPTHSTENCILVIEW_NOT_SET" stdout
    has "$OUT" "^$TMP/warn\.bin: ok " stdout
    LAST_ARGS="check --raw --werror warn.bin"
    expect 1 check --raw --werror "$TMP/warn.bin"
    lacks "$OUT" ": ok " "--werror: a stream with warnings is not ok"
    has "$OUT" "^1 file\(s\): 0 error\(s\), 1 warning\(s\), 0 note\(s\) \(--werror: warnings fail\)\$" summary
    LAST_ARGS="check --raw --werror --format=json warn.bin"
    expect 1 check --raw --werror --format=json "$TMP/warn.bin"
    has "$OUT" '"werror":true' json
    # no warnings: --werror changes nothing
    LAST_ARGS="check --raw --werror valid_compute"
    expect 0 check --raw --werror "$DATA/valid_compute.bin"
}

test_check_caps() {
    local i
    # at most N diagnostics printed per file, then a count of the rest
    write_warning_stream "$TMP/warn.bin"
    LAST_ARGS="check --raw --max-diagnostics=1 (two files)"
    expect 1 check --raw --max-diagnostics=1 "$DATA/bad_duplicate_ds1_ds.bin" "$TMP/warn.bin"
    [[ $(grep -c "^$DATA/bad_duplicate_ds1_ds\.bin:@[0-9]*: " "$OUT") -eq 1 ]] && pass ||
        fail "--max-diagnostics=1 printed more than one diagnostic for a file"
    has "$OUT" "^$DATA/bad_duplicate_ds1_ds\.bin: 1 more diagnostic\(s\) not shown \(--max-diagnostics=1\)\$" stdout
    has "$OUT" "^$TMP/warn\.bin:@24: warning: " "the cap is per file"
    has "$OUT" "^2 file\(s\): 1 error\(s\), 2 warning\(s\)" "the summary counts every diagnostic"
    LAST_ARGS="check --raw --max-diagnostics=0"
    expect 1 check --raw --max-diagnostics=0 "$DATA/bad_duplicate_ds1_ds.bin"
    lacks "$OUT" "not shown" "--max-diagnostics=0 shows all"
    for i in abc -1 ""; do
        LAST_ARGS="check --raw --max-diagnostics=$i"
        expect 2 check --raw "--max-diagnostics=$i" "$DATA/valid_compute.bin"
        has "$ERR" "--max-diagnostics needs a count" stderr
    done
}

test_profile_names() {
    LAST_ARGS="check --raw --profile=desktop_fl12_3"
    expect 2 check --raw --profile=desktop_fl12_3 "$DATA/valid_mesh.bin"
    has "$ERR" "unknown profile 'desktop_fl12_3' \(did you mean 'desktop_fl12_2'\?" stderr
    LAST_ARGS="check --raw --profile=desktop_sm66"
    expect 2 check --raw --profile desktop_sm66 "$DATA/valid_mesh.bin"
    has "$ERR" "did you mean 'desktop_sm6_6'\?" stderr
    LAST_ARGS="check --raw --profile=zzz"
    expect 2 check --raw --profile=zzz "$DATA/valid_mesh.bin"
    lacks "$ERR" "did you mean" "no suggestion for a name far from every profile"
}

# --output: only a regular file that is not an input is created or replaced
test_check_output() {
    mkdir -p "$TMP/out"
    LAST_ARGS="check --raw -o NEW"
    expect 0 check --raw -o "$TMP/out/report.txt" "$DATA/valid_compute.bin"
    [[ ! -s $OUT ]] && pass || fail "check --raw -o: the report also went to stdout"
    LAST_ARGS="check --raw -o NEW (contents)"
    has "$TMP/out/report.txt" "^$DATA/valid_compute\.bin: ok \(compute" "the report file"
    printf 'old contents, longer than the report will be ......................................................................................................\n' >"$TMP/out/old.txt"
    expect 1 check --raw --output="$TMP/out/old.txt" "$DATA/bad_no_shader.bin"
    lacks "$TMP/out/old.txt" "old contents" "a regular file is replaced (truncated)"
    has "$TMP/out/old.txt" "PSOC_NO_SHADER" "the replaced file"
    # a symlink, a FIFO, a device, a folder: refused, nothing touched
    if posix_only "-o SYMLINK: symbolic links: Wine shows a Unix symlink to a Windows program as the file it points to, and cannot make a Windows one (its CreateSymbolicLinkW makes nothing)"; then
        printf 'keep\n' >"$TMP/out/target.txt"
        ln -s "$TMP/out/target.txt" "$TMP/out/link.txt"
        LAST_ARGS="check --raw -o SYMLINK"
        expect 2 check --raw -o "$TMP/out/link.txt" "$DATA/valid_compute.bin"
        has "$ERR" "refusing to write .*link\.txt: it is a symbolic link" stderr
        has "$TMP/out/target.txt" "^keep\$" "the symlink's target"
    fi
    mkfifo "$TMP/out/fifo"
    LAST_ARGS="check --raw -o FIFO"
    RUN_TIMEOUT=10 expect 2 check --raw -o "$TMP/out/fifo" "$DATA/valid_compute.bin"
    has "$ERR" "refusing to write .*fifo: it is a FIFO" stderr
    if [[ -c /dev/null ]]; then
        LAST_ARGS="check --raw -o /dev/null"
        expect 2 check --raw -o /dev/null "$DATA/valid_compute.bin"
        has "$ERR" "it is a character device" stderr
    fi
    LAST_ARGS="check --raw -o DIR"
    expect 2 check --raw -o "$TMP/out" "$DATA/valid_compute.bin"
    # an input of the run, by its own name or another one
    cp "$DATA/valid_compute.bin" "$TMP/out/in.bin"
    ln "$TMP/out/in.bin" "$TMP/out/hardlink.bin"
    LAST_ARGS="check --raw -o INPUT INPUT"
    expect 2 check --raw -o "$TMP/out/in.bin" "$TMP/out/in.bin"
    has "$ERR" "it is an input of this run" stderr
    LAST_ARGS="check --raw -o HARDLINK INPUT"
    expect 2 check --raw -o "$TMP/out/hardlink.bin" "$TMP/out/in.bin"
    has "$ERR" "it is an input of this run" stderr
    cmp -s "$TMP/out/in.bin" "$DATA/valid_compute.bin" && pass || fail "an input was overwritten"
    LAST_ARGS="check --raw -o (no value)"
    expect 2 check --raw "$DATA/valid_compute.bin" --output
    has "$ERR" "--output needs a FILE" stderr
}

test_fixtures
test_global
test_command_help
test_usage_errors
test_check_valid
test_check_bad
test_check_many
test_check_io
test_check_json
test_check_files
test_check_werror
test_check_caps
test_profile_names
test_check_output
test_dump

echo "test_cli: $PASSED passed, $FAILED failed$(skipped_note)"
[[ $FAILED -eq 0 ]]
