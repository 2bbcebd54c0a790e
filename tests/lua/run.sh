#!/bin/sh
# run.sh LUA_BIN CPATH: run every tests/lua/*_spec.lua with the given Lua
# (lua5.4, lua5.3, lua5.1, luajit) and package.cpath entry for pso.so
# (e.g. 'build/lib/?.so'); exits non-zero when a spec fails.
LUA_BIN=${1:-lua5.4}
CPATH=${2:-build/lib/?.so}
dir=$(cd "$(dirname "$0")" && pwd)
status=0
for spec in "$dir"/*_spec.lua; do
  "$LUA_BIN" -e "package.cpath = '$CPATH;' .. package.cpath" "$dir/shim.lua" "$spec" || status=1
done
exit $status
