# What the cook tests share (sourced after tests/cli/assert.sh): the
# profile, a copy of the example materials in $MAT without their generated
# build files, and two checks.
PROFILE=desktop_fl12_2
MAT=$TMP/mat
cp -R scripts/materials "$MAT"
rm -f "$MAT/build.ninja" "$MAT/cook.mk"

# same A B WHAT: files A and B are byte-identical.
same() {
    if cmp -s "$1" "$2"; then pass; else fail "$3: $1 and $2 differ"; fi
}
# count FILE REGEX N: exactly N lines of FILE match REGEX.
count() {
    local n
    n=$(grep -Ec -- "$2" "$1")
    if [[ $n -eq $3 ]]; then pass; else fail "$n lines match /$2/, expected $3 (psoc $LAST_ARGS)"; fi
}
