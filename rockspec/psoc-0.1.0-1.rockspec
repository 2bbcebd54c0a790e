-- LuaRocks package of the `pso` module (the psoc material language).
--
-- From a checkout (this is how it is tested):
--   luarocks --lua-version=5.4 --tree=/tmp/rocks make rockspec/psoc-0.1.0-1.rockspec
--   eval "$(luarocks --lua-version=5.4 --tree=/tmp/rocks path)"
--   lua5.4 -e 'print(require "pso".version)'
-- Any of --lua-version=5.1 | 5.3 | 5.4 works (LuaJIT loads the 5.1 build).
--
-- The module is built by rockspec/pso.mk from bindings/lua/*.c and src/*.c
-- (the same files premake5.lua's `pso` project uses), so files added there
-- need no edit here. It needs Debian's directx-headers-dev for d3d12.h.
rockspec_format = "3.0"
package = "psoc"
version = "0.1.0-1"

source = {
  -- `luarocks make` builds the checkout it is run in and ignores this; set
  -- it to the project's repository before publishing the rock.
  url = "git+https://example.invalid/psoc.git",
  tag = "v0.1.0",
}

description = {
  summary = "Declare Direct3D 12 pipeline state in Lua; get D3D12_PIPELINE_STATE_STREAM_DESC bytes",
  detailed = [[
The `pso` module of psoc: material authors declare pipeline state
(pso.graphics, pso.mesh, pso.compute, pso.derive, presets) and get
pipelines holding D3D12_PIPELINE_STATE_STREAM_DESC byte streams, checked
against the runtime's rules, with canonical hashes, explain and diff.
]],
  -- No license has been chosen for psoc yet; change this when one is.
  license = "Proprietary",
}

dependencies = {
  "lua >= 5.1, < 5.5",
}

external_dependencies = {
  DIRECTX_HEADERS = { header = "directx/d3d12.h" },
}

build = {
  type = "make",
  makefile = "rockspec/pso.mk",
  build_target = "all",
  build_variables = {
    CC = "$(CC)",
    CFLAGS = "$(CFLAGS)",
    LIBFLAG = "$(LIBFLAG)",
    LUA_INCDIR = "$(LUA_INCDIR)",
    DIRECTX_INCDIR = "$(DIRECTX_HEADERS_INCDIR)",
  },
  install_target = "install",
  install_variables = {
    INST_LIBDIR = "$(LIBDIR)",
  },
  copy_directories = {},
}
