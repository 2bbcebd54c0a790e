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
    expect 2 check "$MAT"
    has "$ERR" "is a directory"
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
    has "$OUT" "^$MAT/stereo.lua:[0-9]+: error: pipeline 'stereo_lit': VIEW_INSTANCING\\.ViewInstanceCount: .*\\[PSOC_UNSUPPORTED\\]\$"
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
    # (pso calls are not in tail position: LuaJIT drops a tail caller's
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
    has "$OUT" "^$TMP/mat/typo.lua:3: error: rasterizer\\.cul: unknown key \\(did you mean 'cull'\\?\\)\$" \
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
    has "$OUT" "^$TMP/mat/badvalue.lua:3: error: rasterizer\\.cull: .*'bak'.*did you mean 'back'" \
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
    # a depth format as a render target: the pipeline is created, so a
    # warning (an error against a profile)
    has "$OUT" "^$TMP/mat/formats.lua:3: warning: pipeline 'formats': RENDER_TARGET_FORMATS\\.RTFormats\\[0\\]: .*\\[PSOC_[A-Z_]+\\]\$" \
        "a stream warning: file:line of the declaration, pipeline, field"
    has "$OUT" "^$TMP/mat/formats.lua:3: error: pipeline 'formats': SAMPLE_DESC\\.Count: .*\\[PSOC_SAMPLE_DESC / D3D12_MESSAGE_ID_CREATEGRAPHICSPIPELINESTATE_INVALID_SAMPLE_DESC\\]\$" \
        "a stream error with its D3D12 message ID"
    lacks "$OUT" "ok \\(" "a pipeline with errors"
    expect 1 check --profile desktop_fl12_0 "$TMP/mat/formats.lua"
    has "$OUT" "^$TMP/mat/formats.lua:3: error: pipeline 'formats': RENDER_TARGET_FORMATS\\.RTFormats\\[0\\]: .*\\[PSOC_[A-Z_]+\\]\$" \
        "a stream error: file:line of the declaration, pipeline, field"
    expect 1 check -q "$TMP/mat/formats.lua"
    count "$OUT" "." 1
    expect 1 check --format=json "$TMP/mat/formats.lua"
    has "$OUT" '^\{"command":"check","profile":null,"scripts":\[\{"file":' "json"
    has "$OUT" '"line":3,"errors":1,"warnings":1,' "json"
    has "$OUT" '"message_id":"D3D12_MESSAGE_ID_CREATEGRAPHICSPIPELINESTATE_INVALID_SAMPLE_DESC"' "json"
    has "$OUT" '"summary":\{"scripts":1,"failed_scripts":0,"pipelines":1,"errors":1,' "json"

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
    has "$OUT" "^$TMP/elsewhere/shared/compute.lua:3: error: pipeline 'shared': NODE_MASK" \
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
local p = pso.compute { name = (require "lib.names").name, cs = pso.shader { bytes = "cs" } }
return p
' >"$TMP/b/n.lua"
    expect 0 check "$TMP/a/m.lua" "$TMP/b/m.lua" "$TMP/b/n.lua"
    has "$OUT" "^$TMP/a/m.lua: pipeline 'from_a': ok"
    has "$OUT" "^$TMP/b/m.lua: pipeline 'from_b': ok"
    has "$OUT" "^$TMP/b/n.lua: pipeline 'from_b': ok"

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
    has "$ERR" "typo.lua:3: rasterizer\\.cul: unknown key"
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
    has "$ERR" "typo.lua:3: "
}

test_usage
test_examples
test_broken
test_dump
test_explain
test_diff

printf 'test_scripts: %d passed, %d failed\n' "$PASSED" "$FAILED"
((FAILED == 0))
