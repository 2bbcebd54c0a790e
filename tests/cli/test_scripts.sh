#!/usr/bin/env bash
# Tests of the material-script commands of psoc: check, dump, explain and
# diff over the example materials in scripts/materials and over broken
# materials written into a temporary folder.
#
#   tests/cli/test_scripts.sh PSOC_BINARY
#
# Runs from any directory (it changes to the repository root, so PSOC_BINARY
# may be relative to the caller's directory). Checks exit statuses, output
# formats, that every example material checks clean, and that a broken
# material is reported with its file, line and field path. Prints one line
# per failure and a summary; exits 0 only if every check passed.
set -u

TEST_NAME=test_scripts
# shellcheck source=tests/cli/assert.sh
. "$(dirname "${BASH_SOURCE[0]}")/assert.sh"
MAT=scripts/materials
# The examples target DirectX 12 Ultimate hardware (mesh shaders, view
# instancing); scripts/run.sh checks them with the same profile.
PROFILE=desktop_fl12_2
# count FILE REGEX N: exactly N lines of FILE match REGEX.
count() {
    local n
    n=$(grep -Ec -- "$2" "$1")
    if [[ $n -eq $3 ]]; then
        pass
    else
        fail "$n lines match /$2/, expected $3 (psoc $LAST_ARGS)"
    fi
}

# write NAME TEXT: a material in $TMP/mat (with the example shaders).
write() {
    printf '%s' "$2" >"$TMP/mat/$1"
}

# ---- help and usage --------------------------------------------------------

test_usage() {
    local c
    for c in check dump explain diff; do
        expect 0 "$c" --help
        has "$OUT" "^usage: psoc $c " "$c --help"
        has "$OUT" "--root DIR" "$c --help"
        expect 0 help "$c"
        has "$OUT" "^usage: psoc $c " "help $c"
    done
    expect 0 check --help
    has "$OUT" "--raw" "check --help (names the raw form too)"
    has "$OUT" "desktop_fl12_2" "check --help (lists the profiles)"
    expect 0 --help
    has "$OUT" "^  explain " "psoc --help"
    has "$OUT" "^  diff " "psoc --help"

    expect 2 check
    has "$ERR" "no SCRIPT given"
    expect 2 explain
    expect 2 dump --bogus "$MAT/lit.lua"
    has "$ERR" "unknown option '--bogus'"
    expect 2 check --format=xml "$MAT/lit.lua"
    expect 2 check --profile nosuch "$MAT/lit.lua"
    has "$ERR" "unknown profile 'nosuch'"
    expect 2 check --root
    has "$ERR" "--root needs a value"
    expect 2 diff "$MAT/lit.lua"
    has "$ERR" "expected two pipelines"
    expect 2 check --root "$TMP/no/such/dir" "$MAT/lit.lua"
    has "$ERR" "material root"
    expect 2 check "$TMP/missing.lua"
    has "$ERR" "missing.lua: cannot open"
    expect 2 dump "$TMP"
    has "$ERR" "no material scripts"
}

# ---- the examples check clean ----------------------------------------------

test_examples() {
    local -a files=()
    local f
    files=("$MAT"/*.lua)
    if ((${#files[@]} < 7)); then
        fail "expected at least 7 example materials in $MAT, found ${#files[@]}"
    fi
    for f in "${files[@]}"; do
        expect 0 check --profile "$PROFILE" "$f"
        lacks "$OUT" ": (error|warning): " "check $f"
        has "$OUT" "^$f: pipeline '[a-z_0-9]+': ok \\((graphics|mesh|compute), [0-9]+ subobjects?, [0-9]+ bytes?, hash [0-9a-f]{32}\\)\$" "check $f"
        # every example's header comment says what it demonstrates
        if head -1 "$f" | grep -q '^-- '; then pass; else fail "$f has no header comment"; fi
        if grep -q '^-- Demonstrates:' "$f"; then pass; else fail "$f: no 'Demonstrates:' line"; fi
    done
    expect 0 check --profile "$PROFILE" "${files[@]}"
    has "$OUT" "^${#files[@]} script\\(s\\), [0-9]+ pipeline\\(s\\): 0 error\\(s\\), 0 warning\\(s\\), 0 note\\(s\\)\$"

    # what the examples demonstrate is in them
    expect 0 check --profile "$PROFILE" --format=json "${files[@]}"
    has "$OUT" '^\{"command":"check","profile":"'"$PROFILE"'",' "json names the profile"
    has "$OUT" '"kind":"mesh"' "json (a mesh pipeline)"
    has "$OUT" '"kind":"compute"' "json (a compute pipeline)"
    expect 0 dump "$MAT/particles.lua"
    has "$OUT" "STREAM_OUTPUT" "dump particles.lua"
    expect 0 dump "$MAT/stereo.lua"
    has "$OUT" "VIEW_INSTANCING" "dump stereo.lua"
    expect 0 dump "$MAT/meshlet.lua"
    has "$OUT" "\\] @[0-9]+ AS " "dump meshlet.lua"
    has "$OUT" "\\] @[0-9]+ MS " "dump meshlet.lua"
    expect 0 dump "$MAT/shadow.lua"
    has "$OUT" "DepthBias = [1-9]" "dump shadow.lua (depth bias)"

    # --summary: one row per pipeline
    expect 0 check --summary --profile "$PROFILE" "$MAT/lit.lua" "$MAT/compute.lua"
    has "$OUT" "^MATERIAL +PIPELINE +KIND +SUBOBJECTS +BYTES +HASH +ERRORS +WARNINGS"
    has "$OUT" "^$MAT/lit.lua +lit_two_sided +graphics +[0-9]+ +[0-9]+ +[0-9a-f]{12} +0 +0\$"
    has "$OUT" "^$MAT/compute.lua +cull_instances +compute "

    # capability profiles: view instancing needs one that has it; without
    # --profile the runtime's rules alone apply (no capability tier)
    expect 0 check "$MAT/stereo.lua"
    expect 1 check --profile desktop_fl12_0 "$MAT/stereo.lua"
    has "$OUT" "^$MAT/stereo.lua:[0-9]+: error: pipeline 'stereo_lit': view_instancing\\.locations: .*\\[PSOC_UNSUPPORTED\\]\$"
    expect 0 check --profile desktop_fl12_1 "$MAT/stereo.lua"
    # --deep reads the shader containers: the examples' are real DXBC
    # (scripts/materials/shaders/*.asm, assembled by psoc_dxbc_asm)
    expect 0 check --deep --profile desktop_fl12_2 "$MAT"/*.lua
    has "$OUT" "^7 script\\(s\\), 15 pipeline\\(s\\): 0 error\\(s\\), 0 warning\\(s\\)"
}

# ---- broken materials ---------------------------------------------------------

test_broken() {
    mkdir -p "$TMP/mat" "$TMP/mat/lib" "$TMP/elsewhere"
    cp -r "$MAT/shaders" "$TMP/mat/"
    # (errors name the line of the offending key, rasterizer = on line 6;
    # pso calls are not in tail position: LuaJIT drops a tail caller's
    # frame, and with it the line)
    write typo.lua 'local pso = require "pso"
-- a misspelt key
local p = pso.graphics {
  name = "typo",
  vs = pso.shader "shaders/lit.vs.cso",
  rasterizer = { cul = "none" },
}
return p
'
    expect 1 check "$TMP/mat/typo.lua"
    has "$OUT" "^$TMP/mat/typo.lua:6: error: rasterizer\\.cul: unknown key \\(did you mean 'cull'\\?\\)\$" \
        "a misspelt key: file:line: error: field path (did you mean)"
    has "$OUT" "^1 script\\(s\\), 0 pipeline\\(s\\): 1 error\\(s\\)"

    write badvalue.lua 'local pso = require "pso"
local common = { cull = "bak" }
local p = pso.graphics {
  name = "badvalue",
  vs = pso.shader "shaders/lit.vs.cso",
  rasterizer = { cull = common.cull },
}
return p
'
    expect 1 check "$TMP/mat/badvalue.lua"
    has "$OUT" "^$TMP/mat/badvalue.lua:6: error: rasterizer\\.cull: .*'bak'.*did you mean 'back'" \
        "a misspelt value"

    write syntax.lua 'local pso = require "pso"
return pso.graphics {
  name = "syntax"
  vs = pso.shader "shaders/lit.vs.cso",
}
'
    expect 1 check "$TMP/mat/syntax.lua"
    has "$OUT" "^$TMP/mat/syntax.lua:4: error: .*'}' expected" "a syntax error"

    # valid Lua, valid language, invalid pipeline: stream diagnostics name
    # the declaration's line and the field
    write formats.lua 'local pso = require "pso"

local p = pso.graphics {
  name = "formats",
  vs = pso.shader "shaders/lit.vs.cso",
  ps = pso.shader "shaders/lit.ps.cso",
  render_targets = { "D32_FLOAT" },
  sample_desc = 3,
}
return p
'
    expect 1 check "$TMP/mat/formats.lua"
    # (script mode names the material's keys: render_targets[1], not
    # RENDER_TARGET_FORMATS.RTFormats[0].) A depth format as a render target:
    # the pipeline is created, so a
    # warning (an error against a profile)
    has "$OUT" "^$TMP/mat/formats.lua:3: warning: pipeline 'formats': render_targets\\[1\\]: .*\\[PSOC_[A-Z_]+\\]\$" \
        "a stream warning: file:line of the declaration, pipeline, field"
    has "$OUT" "^$TMP/mat/formats.lua:3: error: pipeline 'formats': sample_desc\\.count: .*\\[PSOC_SAMPLE_DESC / D3D12_MESSAGE_ID_CREATEGRAPHICSPIPELINESTATE_INVALID_SAMPLE_DESC\\]\$" \
        "a stream error with its D3D12 message ID"
    lacks "$OUT" "ok \\(" "a pipeline with errors"
    expect 1 check --profile desktop_fl12_0 "$TMP/mat/formats.lua"
    has "$OUT" "^$TMP/mat/formats.lua:3: error: pipeline 'formats': render_targets\\[1\\]: .*\\[PSOC_[A-Z_]+\\]\$" \
        "a stream error: file:line of the declaration, pipeline, field"
    expect 1 check -q "$TMP/mat/formats.lua"
    count "$OUT" "." 1
    expect 1 check --format=json "$TMP/mat/formats.lua"
    has "$OUT" '^\{"command":"check","profile":null,"werror":false,"scripts":\[\{"file":' "json"
    has "$OUT" '"line":3,"errors":1,"warnings":1,' "json"
    has "$OUT" '"message_id":"D3D12_MESSAGE_ID_CREATEGRAPHICSPIPELINESTATE_INVALID_SAMPLE_DESC"' "json"
    # one diagnostic schema with check --raw (docs/json.md): the subobject's type is named
    has "$OUT" '"message_id":"D3D12_MESSAGE_ID_CREATEGRAPHICSPIPELINESTATE_INVALID_SAMPLE_DESC","subobject":[0-9]+,"type":"SAMPLE_DESC","offset":[0-9]+,"field":"SAMPLE_DESC.Count"' \
        "json: the raw mode's diagnostic schema"
    has "$OUT" '"summary":\{"scripts":1,"failed_scripts":0,"unreadable":0,"pipelines":1,"errors":1,' "json"

    # the sandbox: an error with a message, not a crash
    write escape.lua 'local pso = require "pso"
os.execute("touch '"$TMP"'/pwned")
'
    expect 1 check "$TMP/mat/escape.lua"
    has "$OUT" "^$TMP/mat/escape.lua:2: error: .*'os'" "os.execute"
    if [[ -e $TMP/pwned ]]; then fail "os.execute ran"; else pass; fi
    write loop.lua 'while true do end
'
    expect 1 check "$TMP/mat/loop.lua"
    has "$OUT" "^$TMP/mat/loop.lua:1: error: instruction budget exceeded" "an endless loop"
    write bomb.lua 'local t = {}
for i = 1, 1e9 do t[i] = { i } end
'
    expect 1 check "$TMP/mat/bomb.lua"
    has "$OUT" "memory limit exceeded" "a memory bomb"
    write outside.lua 'local pso = require "pso"
local p = pso.compute { cs = pso.shader "../elsewhere/x.cso" }
return p
'
    printf 'x' >"$TMP/elsewhere/x.cso"
    expect 1 check "$TMP/mat/outside.lua"
    has "$OUT" "^$TMP/mat/outside.lua:2: error: pso\\.shader: .*outside the material roots" \
        "a file outside the roots"
    # ... unless a root holds it
    expect 0 check --root "$TMP/mat" --root "$TMP/elsewhere" "$TMP/mat/outside.lua"

    # modules from a second root
    write needs_lib.lua 'local pso = require "pso"
local shared = require "shared.compute"
return shared.make(pso)
'
    mkdir -p "$TMP/elsewhere/shared"
    printf '%s' 'local M = {}
function M.make(pso) return pso.compute { name = "shared", cs = pso.shader { bytes = "cs" } } end
return M
' >"$TMP/elsewhere/shared/compute.lua"
    expect 1 check "$TMP/mat/needs_lib.lua"
    has "$OUT" "^$TMP/mat/needs_lib.lua:2: error: require: cannot load module 'shared.compute'"
    expect 0 check --root "$TMP/mat" --root "$TMP/elsewhere" "$TMP/mat/needs_lib.lua"
    has "$OUT" "pipeline 'shared': ok"
    # a pipeline declared in a module is attributed to the module's line
    printf '%s' 'local M = {}
function M.make(pso)
  local p = pso.compute { name = "shared", cs = pso.shader { bytes = "cs" }, node_mask = 6 }
  return p
end
return M
' >"$TMP/elsewhere/shared/compute.lua"
    expect 1 check --root "$TMP/mat" --root "$TMP/elsewhere" "$TMP/mat/needs_lib.lua"
    has "$OUT" "^$TMP/elsewhere/shared/compute.lua:3: error: pipeline 'shared': node_mask" \
        "the declaring module's file and line"

    # each script runs in a fresh state: its own modules, no globals left over
    mkdir -p "$TMP/a/lib" "$TMP/b/lib"
    printf '%s' 'return { name = "from_a" }' >"$TMP/a/lib/names.lua"
    printf '%s' 'return { name = "from_b" }' >"$TMP/b/lib/names.lua"
    printf '%s' 'LEFT_OVER = true
local pso = require "pso"
local p = pso.compute { name = (require "lib.names").name, cs = pso.shader { bytes = "cs" } }
return p
' | tee "$TMP/a/m.lua" >"$TMP/b/m.lua"
    printf '%s' 'assert(LEFT_OVER == nil, "a global from the last script")
local pso = require "pso"
local p = pso.compute { name = (require "lib.names").name .. "_n", cs = pso.shader { bytes = "cs" } }
return p
' >"$TMP/b/n.lua"
    expect 0 check "$TMP/a/m.lua" "$TMP/b/m.lua" "$TMP/b/n.lua"
    has "$OUT" "^$TMP/a/m.lua: pipeline 'from_a': ok"
    has "$OUT" "^$TMP/b/m.lua: pipeline 'from_b': ok"
    has "$OUT" "^$TMP/b/n.lua: pipeline 'from_b_n': ok"

    # print goes to stderr, stdout keeps the results
    write printing.lua 'local pso = require "pso"
print("hello from", "printing.lua")
return pso.compute { name = "p", cs = pso.shader "shaders/cull.cs.cso" }
'
    expect 0 check "$TMP/mat/printing.lua"
    has "$ERR" "^hello from	printing.lua\$" "print"
    lacks "$OUT" "hello" "print"

    # results that are not pipelines
    write nothing.lua 'local x = 1
'
    expect 1 check "$TMP/mat/nothing.lua"
    has "$OUT" "must return a pipeline or a list of pipelines \\(it returned nil\\)"

    # one broken script among good ones: 1, and the good ones still checked
    expect 1 check --profile "$PROFILE" "$MAT/lit.lua" "$TMP/mat/typo.lua" "$MAT/compute.lua"
    has "$OUT" "^$MAT/compute.lua: pipeline 'cull_instances': ok"
    has "$OUT" "^3 script\\(s\\), 4 pipeline\\(s\\): 1 error\\(s\\)"
    # an unreadable script wins: 2
    expect 2 check "$MAT/lit.lua" "$TMP/missing.lua"
    has "$OUT" "^$MAT/lit.lua: pipeline 'lit_opaque': ok"

    # dump/explain of a broken script
    expect 1 dump "$TMP/mat/typo.lua"
    has "$ERR" "typo.lua:6: rasterizer\\.cul: unknown key"
    expect 1 explain "$TMP/mat/syntax.lua"
}

# ---- dump, explain, diff -------------------------------------------------------

test_dump() {
    expect 0 dump "$MAT/lit.lua"
    has "$OUT" "^==> $MAT/lit.lua: lit_opaque \\(graphics\\) <==\$"
    has "$OUT" "^==> $MAT/lit.lua: lit_two_sided \\(graphics\\) <==\$"
    has "$OUT" "RASTERIZER" "dump"
    has "$OUT" "CullMode = (D3D12_CULL_MODE_)?NONE" "dump lit_two_sided"
    expect 0 dump --pipeline lit_opaque "$MAT/lit.lua"
    count "$OUT" "^==> " 1
    expect 2 dump --pipeline nosuch "$MAT/lit.lua"
    has "$ERR" "no pipeline called 'nosuch'"
    expect 0 dump --json "$MAT/compute.lua"
    has "$OUT" '^\[\{"name":"cull_instances","kind":"compute"' "dump --json"
    has "$OUT" '\}\]$' "dump --json"
    count "$OUT" '"name":"cull_instances' 2
}

test_explain() {
    expect 0 explain --pipeline lit_two_sided "$MAT/lit.lua"
    count "$OUT" "^==> " 1
    has "$OUT" "^rasterizer\\.cull = none +\\(script\\)\$" "explain: the override"
    has "$OUT" "^depth_stencil\\.func = greater_equal +\\(base lit_opaque\\)\$" "explain: from the base"
    has "$OUT" "\\(runtime default\\)\$" "explain: runtime defaults"
    expect 0 explain --pipeline lit_opaque "$MAT/lit.lua"
    has "$OUT" "\\(preset " "explain: a preset"
    expect 0 explain "$MAT/shadow.lua"
    count "$OUT" "^==> " 2
    expect 2 explain --pipeline nosuch "$MAT/lit.lua"
}

test_diff() {
    expect 1 diff "$MAT/lit.lua:lit_opaque" "$MAT/lit.lua:lit_two_sided"
    has "$OUT" "^--- $MAT/lit.lua:lit_opaque\$"
    has "$OUT" "^\\+\\+\\+ $MAT/lit.lua:lit_two_sided\$"
    has "$OUT" "^rasterizer\\.cull: back -> none\$"
    count "$OUT" ": .* -> " 1
    expect 0 diff "$MAT/lit.lua:lit_opaque" "$MAT/lit.lua:lit_opaque"
    has "$OUT" "^\\(no differences\\)\$"
    # whole scripts: paired by name
    expect 0 diff "$MAT/transparent.lua" "$MAT/transparent.lua"
    count "$OUT" "^\\(no differences\\)\$" 3
    expect 1 diff "$MAT/compute.lua" "$MAT/transparent.lua"
    has "$OUT" "^only in $MAT/compute.lua: cull_instances\$"
    has "$OUT" "^only in $MAT/transparent.lua: transparent_decal\$"
    # one pipeline each: compared whatever their names
    expect 1 diff "$MAT/compute.lua:cull_instances" "$MAT/compute.lua:cull_instances_debug"
    has "$OUT" "^cs: " "diff of the shaders"
    expect 1 diff "$MAT/compute.lua:cull_instances" "$MAT/lit.lua:lit_opaque"
    has "$OUT" "^kind: compute -> graphics\$"
    # errors
    expect 2 diff "$MAT/lit.lua:nosuch" "$MAT/lit.lua"
    has "$ERR" "no pipeline called 'nosuch'"
    expect 2 diff "$MAT/lit.lua" "$TMP/missing.lua"
    expect 2 diff "$TMP/mat/typo.lua" "$MAT/lit.lua"
    has "$ERR" "typo.lua:6: "
}

# ---- output safety: escapes in text, valid UTF-8 in JSON ---------------------

# json_ok WHAT: the last run's stdout is one valid JSON document (strict UTF-8).
json_ok() {
    if python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$OUT" 2>"$TMP/json_err"; then
        pass
    else
        fail "$1: stdout is not valid UTF-8 JSON ($(tail -1 "$TMP/json_err"))"
    fi
}

test_escapes() {
    mkdir -p "$TMP/esc"
    # a name holding ESC, a newline that would forge a line, an invalid byte
    # and U+202E (right-to-left override)
    printf '%s' 'local pso = require "pso"
local p = pso.compute { name = "a\27[31m\nfake: ok\255\226\128\174", cs = pso.shader { bytes = "cs" }, node_mask = 6 }
return p
' >"$TMP/esc/name.lua"
    expect 1 check "$TMP/esc/name.lua"
    has_text "$OUT" "$TMP/esc/name.lua:2: error: pipeline 'a\x1b[31m\nfake: ok\xff\u202e': node_mask" \
        "a control character in a pipeline name is escaped"
    if grep -q $'\x1b' "$OUT"; then fail "ESC reached stdout"; else pass; fi
    lacks "$OUT" "^fake: ok" "a newline in a name forges a line"
    expect 1 check --format=json "$TMP/esc/name.lua"
    json_ok "check --format=json (invalid byte in a name)"
    has_text "$OUT" '"name":"a\u001b[31m\nfake: ok\ufffd\u202e"' "json: \ufffd for an invalid byte"
    # an error message (from the script) with escapes and invalid UTF-8
    printf '%s' 'error("boom\27[2J\nx.lua: pipeline ok\192\175")
' >"$TMP/esc/msg.lua"
    expect 1 check "$TMP/esc/msg.lua"
    has_text "$OUT" "$TMP/esc/msg.lua:1: error: boom\x1b[2J\nx.lua: pipeline ok\xc0\xaf" \
        "a script error message is escaped (an overlong form is two bytes)"
    count "$OUT" "pipeline ok" 1
    expect 1 check --format=json "$TMP/esc/msg.lua"
    json_ok "check --format=json (invalid bytes in a message)"
    has_text "$OUT" 'pipeline ok\ufffd\ufffd"' "json: one U+FFFD per invalid byte"
}


# ---- files, summaries, caps, duplicate names, --werror ----------------------

test_files() {
    mkdir -p "$TMP/f"
    # a FIFO without a writer is refused at once (RUN_TIMEOUT turns a hang
    # into exit status 124); the summary counts it as an error
    mkfifo "$TMP/f/fifo.lua"
    RUN_TIMEOUT=10 expect 2 check "$TMP/f/fifo.lua"
    has "$ERR" "^psoc check: $TMP/f/fifo.lua: not a regular file \(a FIFO\)\$"
    has "$OUT" "^1 script\(s\), 0 pipeline\(s\): 1 error\(s\), 0 warning\(s\), 0 note\(s\), 1 unreadable\$" \
        "a FIFO counts in the summary"
    RUN_TIMEOUT=10 expect 2 dump "$TMP/f/fifo.lua"
    RUN_TIMEOUT=10 expect 2 explain "$TMP/f/fifo.lua"
    RUN_TIMEOUT=10 expect 2 diff "$TMP/f/fifo.lua" "$MAT/compute.lua"
    has "$ERR" "not a regular file \(a FIFO\)" "diff of a FIFO"
    rm -f "$TMP/f/fifo.lua"
    # exit status and summary agree: a missing script is an error in both
    expect 2 check "$TMP/missing.lua"
    has "$OUT" "^1 script\(s\), 0 pipeline\(s\): 1 error\(s\), 0 warning\(s\), 0 note\(s\), 1 unreadable\$" \
        "a missing script counts in the summary"
    expect 2 check --format=json "$TMP/missing.lua"
    has "$OUT" '"error":\{"line":null,"message":"cannot open: No such file or directory"\}' "json error"
    has "$OUT" '"summary":\{"scripts":1,"failed_scripts":1,"unreadable":1,"pipelines":0,"errors":1,' "json summary"
    json_ok "check --format=json (a missing script)"
    # --output never replaces a script of the run, nor anything but a regular file
    cp "$MAT/compute.lua" "$TMP/f/m.lua"
    expect 2 check -o "$TMP/f/m.lua" "$TMP/f/m.lua"
    has "$ERR" "refusing to write .*m\.lua: it is an input of this run"
    cmp -s "$TMP/f/m.lua" "$MAT/compute.lua" && pass || fail "check -o SCRIPT SCRIPT overwrote the script"
    expect 2 check --output "$TMP/f/m.lua" "$TMP/f"
    has "$ERR" "it is an input of this run" "an input found in a folder"
    if posix_only "check -o SYMLINK: symbolic links: Wine shows a Unix symlink to a Windows program as the file it points to, and cannot make a Windows one (its CreateSymbolicLinkW makes nothing)"; then
        ln -s "$TMP/f/m.lua" "$TMP/f/link.txt"
        expect 2 check -o "$TMP/f/link.txt" "$MAT/compute.lua"
        has "$ERR" "it is a symbolic link"
        rm -f "$TMP/f/link.txt"
    fi
    expect 0 check --format=json -o "$TMP/f/report.json" "$MAT/compute.lua"
    [[ ! -s $OUT ]] && pass || fail "check -o: the report also went to stdout"
    OUT=$TMP/f/report.json json_ok "check --format=json -o FILE"
}

test_dirs() {
    mkdir -p "$TMP/d/sub" "$TMP/d/lib" "$TMP/d/.hidden"
    printf '%s' 'local pso = require "pso"
local p = pso.compute { name = (require "lib.names").b, cs = pso.shader { bytes = "cs" } }
return p
' >"$TMP/d/b.lua"
    printf '%s' 'local pso = require "pso"
local p = pso.compute { name = (require "lib.names").a, cs = pso.shader { bytes = "cs" } }
return p
' >"$TMP/d/a.lua"
    # a material in a subfolder still finds lib/ in the folder named on the
    # command line (its default root)
    printf '%s' 'local pso = require "pso"
local p = pso.compute { name = (require "lib.names").c, cs = pso.shader { bytes = "cs" } }
return p
' >"$TMP/d/sub/c.lua"
    printf '%s' 'return { a = "pa", b = "pb", c = "pc" }' >"$TMP/d/lib/names.lua"
    printf '%s' 'error("a test file is not a material")' >"$TMP/d/x_test.lua"
    printf '%s' 'error("hidden")' >"$TMP/d/.hidden/h.lua"
    printf '%s' 'error("not lua")' >"$TMP/d/notes.txt"
    expect 0 check "$TMP/d"
    has "$OUT" "^4 script\(s\), 3 pipeline\(s\): 0 error\(s\)" "check DIR: every *.lua but *_test.lua"
    grep -o "^$TMP/d/[a-z/]*\.lua" "$OUT" | uniq >"$TMP/order"
    printf '%s\n' "$TMP/d/a.lua" "$TMP/d/b.lua" "$TMP/d/lib/names.lua" "$TMP/d/sub/c.lua" >"$TMP/want"
    if cmp -s "$TMP/order" "$TMP/want"; then pass; else fail "check DIR: not in sorted order: $(tr '\n' ' ' <"$TMP/order")"; fi
    lacks "$OUT" "x_test|hidden|notes" "check DIR skips tests, hidden entries and other files"
    expect 0 explain --changed "$TMP/d"
    count "$OUT" "^==> " 3
    expect 2 check "$TMP/d/.hidden/../../nowhere"
    # the examples as a folder
    expect 0 check --profile "$PROFILE" "$MAT"
    has "$OUT" "^$MAT/stereo.lua: pipeline 'stereo_lit': ok" "check scripts/materials"
}

test_duplicates() {
    mkdir -p "$TMP/dup"
    printf '%s' 'local pso = require "pso"
local a = pso.compute { name = "twice", cs = pso.shader { bytes = "a" } }
local b = pso.compute { name = "twice", cs = pso.shader { bytes = "b" } }
return { a, b }
' >"$TMP/dup/one.lua"
    expect 1 check "$TMP/dup/one.lua"
    # the module's own check of a script's result (pso_check_result)
    has "$OUT" "^$TMP/dup/one.lua: error: result\[2\]: two pipelines are named 'twice' \(result\[1\] and result\[2\]\); pipeline names must be unique in a script\$" \
        "two pipelines called alike in one script"
    printf '%s' 'local pso = require "pso"
local p = pso.compute { name = "shared", cs = pso.shader { bytes = "a" } }
return p
' | tee "$TMP/dup/x.lua" >"$TMP/dup/y.lua"
    expect 1 check "$TMP/dup/x.lua" "$TMP/dup/y.lua"
    has "$OUT" "^$TMP/dup/x.lua: pipeline 'shared': ok" "the first one is fine"
    has "$OUT" "^$TMP/dup/y.lua:2: error: pipeline 'shared': name: .*\(declared at $TMP/dup/x.lua:2\)" \
        "the same name in two scripts of one run"
    has "$OUT" "^2 script\(s\), 2 pipeline\(s\): 1 error\(s\)" "summary"
    expect 1 check --format=json "$TMP/dup/x.lua" "$TMP/dup/y.lua"
    has "$OUT" '"code":"PSOC_DUPLICATE_NAME","message_id":null,"subobject":null,"type":null,"offset":null,"field":"name"' json
    json_ok "check --format=json (duplicate names)"
    # separate runs: no clash
    expect 0 check "$TMP/dup/x.lua"
    expect 0 check "$TMP/dup/y.lua"
}

test_werror() {
    mkdir -p "$TMP/w"
    printf '%s' 'local pso = require "pso"
local p = pso.graphics {
  name = "warned",
  vs = pso.shader { bytes = "vs" },
  depth_stencil = { depth = true },
}
return p
' >"$TMP/w/warned.lua"
    expect 0 check "$TMP/w/warned.lua"
    has "$OUT" "^$TMP/w/warned.lua:2: warning: pipeline 'warned': " "a warning"
    has "$OUT" "^$TMP/w/warned.lua: pipeline 'warned': ok"
    expect 1 check --werror "$TMP/w/warned.lua"
    lacks "$OUT" "': ok " "--werror: a pipeline with warnings is not ok"
    has "$OUT" "^1 script\(s\), 1 pipeline\(s\): 0 error\(s\), 1 warning\(s\), 0 note\(s\) \(--werror: warnings fail\)\$"
    expect 1 check --werror -q "$TMP/w/warned.lua"
    has "$OUT" ": warning: " "-q --werror still shows the warnings that fail"
    expect 1 check --werror --format=json "$TMP/w/warned.lua"
    has "$OUT" '"werror":true' json
    expect 0 check --werror "$MAT/compute.lua"
}

# input-layout rules that need no shader run on every script check: the
# pso module built the element array itself (no --deep needed)
test_layout_rules() {
    mkdir -p "$TMP/lay"
    printf '%s' 'local pso = require "pso"
local p = pso.graphics {
  name = "dupsem",
  vs = pso.shader { bytes = "vs" },
  input_layout = { { "POSITION", "r32g32b32_float" }, { "POSITION", "r32g32b32_float" } },
}
return p
' >"$TMP/lay/dupsem.lua"
    expect 1 check "$TMP/lay/dupsem.lua"
    has "$OUT" "^$TMP/lay/dupsem.lua:2: error: pipeline 'dupsem': input_layout\[2\]\..*CREATEINPUTLAYOUT_DUPLICATESEMANTIC\]\$" \
        "a duplicate semantic without --deep"
}

test_caps() {
    mkdir -p "$TMP/c"
    # --max-diagnostics: formats.lua-like, two diagnostics
    printf '%s' 'local pso = require "pso"
local p = pso.graphics {
  name = "two_errors",
  vs = pso.shader { bytes = "vs" },
  render_targets = { "D32_FLOAT" },
  sample_desc = 3,
}
return p
' >"$TMP/c/two.lua"
    # (a depth format as a render target is a warning, a sample count of 3 an error)
    expect 1 check --max-diagnostics=1 "$TMP/c/two.lua"
    count "$OUT" ": (error|warning): " 1
    has "$OUT" "^$TMP/c/two.lua: 1 more diagnostic\(s\) not shown \(--max-diagnostics=1\)\$"
    has "$OUT" "^1 script\(s\), 1 pipeline\(s\): 1 error\(s\), 1 warning\(s\)" "the summary counts them all"
    expect 1 check --max-diagnostics 0 "$TMP/c/two.lua"
    count "$OUT" ": (error|warning): " 2
    expect 2 check --max-diagnostics=lots "$TMP/c/two.lua"
    has "$ERR" "--max-diagnostics needs a count"
    # print: 10 MiB asked for, 64 KiB shown, the rest counted; escapes
    printf '%s' 'local pso = require "pso"
print("bell\7 esc\27[2J")
local line = string.rep("x", 1023)
for _ = 1, 10240 do print(line) end
return pso.compute { name = "loud", cs = pso.shader { bytes = "cs" } }
' >"$TMP/c/loud.lua"
    expect 0 check "$TMP/c/loud.lua"
    local size
    size=$(wc -c <"$ERR")
    if ((size < 70000)); then pass; else fail "print output not capped: $size bytes on stderr"; fi
    has "$ERR" "^psoc check: $TMP/c/loud.lua: print output over 64 KiB: [0-9]+ more byte\(s\) not shown\$"
    has_text "$ERR" 'bell\x07 esc\x1b[2J' "print output is escaped"
    has "$OUT" "pipeline 'loud': ok"
}

# ---- isolation: no script can change what another returns -------------------

test_isolation() {
    mkdir -p "$TMP/iso/lib"
    printf '%s' 'return { cull = "none" }' >"$TMP/iso/lib/cfg.lua"
    # A leaves a global and changes a shared module's table
    printf '%s' 'local pso = require "pso"
SHARED_CULL = "front"
require("lib.cfg").cull = "front"
local p = pso.graphics { name = "iso", vs = pso.shader { bytes = "vs" }, rasterizer = { cull = "front" } }
return p
' >"$TMP/iso/a.lua"
    printf '%s' 'local pso = require "pso"
local p = pso.graphics { name = "iso", vs = pso.shader { bytes = "vs" }, rasterizer = { cull = SHARED_CULL or "none" } }
return p
' >"$TMP/iso/global.lua"
    printf '%s' 'local pso = require "pso"
local p = pso.graphics { name = "iso", vs = pso.shader { bytes = "vs" }, rasterizer = { cull = require("lib.cfg").cull } }
return p
' >"$TMP/iso/module.lua"
    expect 1 diff "$TMP/iso/a.lua" "$TMP/iso/global.lua"
    has "$OUT" "^rasterizer\.cull: front -> none\$" "diff: B does not see A's global"
    expect 1 diff "$TMP/iso/a.lua" "$TMP/iso/module.lua"
    has "$OUT" "^rasterizer\.cull: front -> none\$" "diff: B gets its own copy of a module"
    expect 1 diff "$TMP/iso/module.lua" "$TMP/iso/a.lua"
    has "$OUT" "^rasterizer\.cull: none -> front\$" "diff: the other way round"
    # check, dump and explain: a fresh state per script too
    expect 0 dump --pipeline iso "$TMP/iso/a.lua" "$TMP/iso/module.lua"
    has "$OUT" "CullMode = (D3D12_CULL_MODE_)?NONE" "dump: the second script's own module"
    expect 0 explain "$TMP/iso/a.lua" "$TMP/iso/global.lua"
    has "$OUT" "^rasterizer\.cull = none +\(script\)\$" "explain: no global from the last script"
    # (check reports the name clash, but each pipeline keeps its own value)
    expect 1 check --format=json "$TMP/iso/a.lua" "$TMP/iso/module.lua"
    if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); h = [p["hash"] for s in d["scripts"] for p in s["pipelines"]]; sys.exit(0 if len(h) == 2 and h[0] != h[1] else 1)' "$OUT"; then
        pass
    else
        fail "check: the second script's pipeline took the first script's module state"
    fi
}

test_explain_rows() {
    expect 0 explain --pipeline lit_opaque "$MAT/lit.lua"
    has "$OUT" "^input_layout\[1\]\.offset = append_aligned +\(script\)\$" "explain: append_aligned"
    lacks "$OUT" "offset = 4294967295" "explain: no 4294967295"
    expect 0 explain --changed --pipeline lit_two_sided "$MAT/lit.lua"
    has "$OUT" "^rasterizer\.cull = none +\(script\)\$" "explain --changed: the override"
    has "$OUT" "^depth_format = d32_float +\(base lit_opaque\)\$" "explain --changed: from the base"
    lacks "$OUT" "\(runtime default\)\$" "explain --changed: no runtime defaults"
    lacks "$OUT" "^sample_mask = " "explain --changed: no default value"
    lacks "$OUT" "^blend\.render_targets\[1\]\.src = one " "explain --changed: a preset's default value"
    has "$OUT" "^input_layout\[2\]\.semantic = NORMAL " "explain --changed: an element's semantic"
    lacks "$OUT" "^input_layout\[[0-9]\]\.(index|slot|offset|step_rate) = " "explain --changed: element fields at their defaults"
    expect 0 explain --changed --pipeline particles_simulate "$MAT/particles.lua"
    has "$OUT" "^stream_output\.entries\[2\]\.semantic = VELOCITY " "explain --changed: an SO entry"
    has "$OUT" "^stream_output\.rasterized_stream = 4294967295 " "explain --changed: a non-default scalar"
    lacks "$OUT" "^stream_output\.entries\[[0-9]\]\.(stream|index|start_component|slot) = " "explain --changed: SO fields at their defaults"
    expect 0 explain --changed "$MAT/compute.lua"
    count "$OUT" " = " 4
    expect 2 dump --changed "$MAT/lit.lua"
}

test_more_escapes() {
    mkdir -p "$TMP/esc2"
    printf '%s' 'local pso = require "pso"
local p = pso.graphics {
  name = "n\27]0;x\7\255",
  vs = pso.shader { bytes = "vs" },
  input_layout = { { "POS\27[1m", "r32g32b32_float" } },
}
return p
' >"$TMP/esc2/e.lua"
    expect 0 dump "$TMP/esc2/e.lua"
    has_text "$OUT" '==> '"$TMP"'/esc2/e.lua: n\x1b]0;x\x07\xff (graphics) <==' "dump header escaped"
    has_text "$OUT" 'POS\x1b[1m' "dump text escaped"
    expect 0 explain "$TMP/esc2/e.lua"
    has_text "$OUT" 'input_layout[1].semantic = POS\x1b[1m' "explain escaped"
    expect 1 diff "$TMP/esc2/e.lua" "$MAT/lit.lua:lit_opaque"
    has_text "$OUT" '--- '"$TMP"'/esc2/e.lua:n\x1b]0;x\x07\xff' "diff header escaped"
    for c in "dump $TMP/esc2/e.lua" "explain $TMP/esc2/e.lua" "diff $TMP/esc2/e.lua $MAT/lit.lua:lit_opaque"; do
        # shellcheck disable=SC2086  # split on purpose
        run $c
        if grep -q $'\x1b' "$OUT"; then fail "psoc $c: ESC reached stdout"; else pass; fi
    done
    expect 0 dump --json "$TMP/esc2/e.lua"
    json_ok "dump --json (invalid UTF-8 in a name)"
}

test_usage
test_escapes
test_files
test_dirs
test_duplicates
test_werror
test_layout_rules
test_caps
test_isolation
test_explain_rows
test_more_escapes
test_examples
test_broken
test_dump
test_explain
test_diff

printf 'test_scripts: %d passed, %d failed%s\n' "$PASSED" "$FAILED" "$(skipped_note)"
((FAILED == 0))
