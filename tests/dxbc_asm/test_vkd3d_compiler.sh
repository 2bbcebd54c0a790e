#!/usr/bin/env bash
# test_vkd3d_compiler.sh ASM_TOOL: the DXBC assembler against an independent
# reader, vkd3d-compiler (vkd3d-shader's DXBC -> SPIR-V translator):
#   1. every committed shader container (scripts/materials/shaders,
#      tests/device/materials/shaders) is exactly what its .asm assembles to;
#   2. vkd3d-compiler translates every DXBC one (not the DXIL placeholders)
#      with exit status 0 and nothing on stderr (its "fixme:" lines on
#      undeclared registers count as failures);
#   3. a container with one flipped byte is rejected (the checksum is checked,
#      so this test can fail).
set -u
asm=${1:?usage: test_vkd3d_compiler.sh PATH/TO/psoc_dxbc_asm}
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
command -v vkd3d-compiler >/dev/null || { echo "vkd3d-compiler missing (package vkd3d-compiler)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

shopt -s nullglob
for src in scripts/materials/shaders/*.asm tests/device/materials/shaders/*.asm; do
    cso=${src%.asm}.cso
    if "$asm" --check "$src" "$cso"; then ok; else bad "$cso is stale"; continue; fi
    if grep -q '^[a-z][a-z]_6_' "$src"; then continue; fi # DXIL placeholder
    if vkd3d-compiler -x dxbc-tpf -b spirv-binary -o "$tmp/out.spv" "$cso" 2>"$tmp/err" &&
        [[ ! -s $tmp/err ]] && [[ -s $tmp/out.spv ]]; then
        ok
    else
        bad "vkd3d-compiler on $cso: $(head -3 "$tmp/err")"
    fi
done

# negative control: flip a byte of a program chunk
src=scripts/materials/shaders/lit.vs.cso
cp "$src" "$tmp/flip.cso"
size=$(stat -c %s "$tmp/flip.cso")
printf '\x01' | dd of="$tmp/flip.cso" bs=1 seek=$((size - 1)) conv=notrunc status=none
if vkd3d-compiler -x dxbc-tpf -b spirv-binary -o "$tmp/flip.spv" "$tmp/flip.cso" 2>"$tmp/err"; then
    bad "vkd3d-compiler accepted a container with a bad checksum"
elif grep -q "checksum" "$tmp/err"; then
    ok
else
    bad "vkd3d-compiler rejected the flipped container for another reason: $(head -1 "$tmp/err")"
fi
echo "test_vkd3d_compiler: $pass passed, $fail failed"
((fail == 0))
