/*
** windows_consumer.c: a Windows program that links psoc.dll (through its
** import library, with PSOC_DLL for dllimport) and Lua 5.4's lua54.dll.
** It evaluates a material with the pso module (pso.dll, found through
** package.cpath), then checks and hashes each pipeline's stream through
** psoc.dll, and prints
**
**     NAME DLL_HASH MODULE_HASH ERRORS
**
** DLL_HASH comes from psoc_hash in psoc.dll, MODULE_HASH from p:hash() in
** pso.dll (its own static copy of libpsoc); tests/windows/test_windows.sh
** checks that they agree with each other and with the Linux build.
**
**   windows_consumer MATERIAL.lua MODULE_DIR ROOT_SIGNATURE_NAME
*/
#include <psoc.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdio.h>
#include <string.h>

static const char chunk[] =
    "local material, dir = ...\n"
    "package.cpath = dir .. '/?.dll'\n"
    "local result = dofile(material)\n"
    "local pso = require 'pso'\n"
    "if pso.is_pipeline and pso.is_pipeline(result) then result = { result } end\n"
    "if type(result) ~= 'table' or result.name then result = { result } end\n"
    "local out = {}\n"
    "for i, p in ipairs(result) do\n"
    "  out[i] = { name = p.name or '?', bytes = p:bytes(), hash = p:hash(), keep = p }\n"
    "end\n"
    "return out\n";

int main(int argc, char **argv) {
  lua_State *L;
  lua_Integer i, n;
  int failed = 0;
  if (argc != 4) {
    fprintf(stderr, "usage: windows_consumer MATERIAL.lua MODULE_DIR ROOT_SIGNATURE_NAME\n");
    return 2;
  }
  L = luaL_newstate();
  if (!L) return 1;
  luaL_openlibs(L);
  if (luaL_loadbuffer(L, chunk, sizeof chunk - 1, "=windows_consumer") != LUA_OK) {
    fprintf(stderr, "windows_consumer: %s\n", lua_tostring(L, -1));
    return 1;
  }
  lua_pushstring(L, argv[1]);
  lua_pushstring(L, argv[2]);
  if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
    fprintf(stderr, "windows_consumer: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return 1;
  }
  n = (lua_Integer)lua_rawlen(L, -1);
  for (i = 1; i <= n; i++) {
    const char *name, *bytes, *module_hash;
    size_t size;
    psoc_hash128 h;
    psoc_diags diags;
    psoc_status st;
    char hex[33];
    lua_rawgeti(L, -1, i);
    lua_getfield(L, -1, "name");
    lua_getfield(L, -2, "bytes");
    lua_getfield(L, -3, "hash");
    name = lua_tostring(L, -3);
    bytes = lua_tolstring(L, -2, &size);
    module_hash = lua_tostring(L, -1);
    /* the stream's pointers lead into the pipeline, kept alive in 'keep' */
    psoc_diags_init(&diags, NULL);
    st = psoc_check(bytes, size, NULL, &diags);
    if (st != PSOC_OK && st != PSOC_ERR_INVALID) {
      fprintf(stderr, "windows_consumer: psoc_check: %s\n", psoc_status_name(st));
      failed = 1;
    }
    st = psoc_hash(bytes, size, PSOC_FOLLOW_POINTERS, argv[3], &h);
    if (st != PSOC_OK) {
      fprintf(stderr, "windows_consumer: psoc_hash: %s\n", psoc_status_name(st));
      failed = 1;
    }
    psoc_hash_hex(h, hex);
    printf("%s %s %s %zu\n", name ? name : "?", hex, module_hash ? module_hash : "?",
           (size_t)diags.errors);
    psoc_diags_free(&diags);
    lua_pop(L, 4);
  }
  lua_close(L);
  return failed;
}
