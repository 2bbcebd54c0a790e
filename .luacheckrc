-- luacheck configuration for psoc's Lua (scripts/lint.sh runs luacheck over
-- the whole tree with this file). Every exclusion says why.

-- Code that runs in a plain interpreter (generators, the test runners, the
-- specs) may use anything any supported Lua has.
std = "max"

-- No line length limit: the specs hold long expected error messages on
-- one line, and the annotations long union types.
max_line_length = false

-- Deliberately broken or odd inputs of the `psoc test` runner's own tests
-- (syntax errors, endless loops, erroring files) and build outputs.
exclude_files = {
  "tests/runner/fixtures/**",
  "build/**",
}

-- Material scripts run in psoc's sandbox (bindings/lua/psol.h): the base
-- library without dofile/loadfile, string, table, math (and utf8 on 5.3+),
-- plus require. "min" is what every supported Lua (5.1, 5.3, 5.4, LuaJIT)
-- has, so a material that passes runs in any engine build; io, os, debug
-- and package are refused here as they are at run time.
stds.psoc_material = {
  read_globals = { "require" },
}
local material = {
  std = "min+psoc_material",
  not_globals = { "io", "os", "debug", "package", "dofile", "loadfile", "module" },
}
files["scripts/materials/**/*.lua"] = material
files["tests/consumer/material.lua"] = material

-- `psoc test` files (docs/testing.md): the material sandbox plus the test
-- API that bindings/lua/testlib.lua installs. materials.root is assigned.
stds.psoc_test = {
  read_globals = { "describe", "it", "before_each", "after_each", "expect", "pso" },
  globals = { materials = { fields = { "root" }, other_fields = true } },
}
files["scripts/tests/**/*.lua"] = {
  std = "min+psoc_material+psoc_test",
  not_globals = material.not_globals,
  -- materials.each() yields (pipeline, file, name); a loop that wants only
  -- the name must still name the pipeline.
  ignore = { "213/p" },
}

-- The Lua specs of the module (tests/lua/run.sh): shim.lua defines the
-- busted-like globals the specs use.
files["tests/lua/shim.lua"] = { globals = { "describe", "it", "expect" } }
files["tests/lua/*_spec.lua"] = { read_globals = { "describe", "it", "expect" } }

-- bindings/lua/testlib.lua installs the `psoc test` API as globals of the
-- test file's state (that is its job).
files["bindings/lua/testlib.lua"] = {
  globals = { "describe", "it", "before_each", "after_each", "expect", "materials" },
}

-- scripts/types/pso.lua (LuaLS annotations) is a definition file whose
-- functions are stubs: it turns off the unused-argument warning itself.

-- scripts/gen_enums.lua: `local s, e = src:find(pat)` keeps both results of
-- find for readability; only the end is used.
files["scripts/gen_enums.lua"] = { ignore = { "211/s" } }

-- premake5.lua runs inside premake (4.3 and 5), which provides these
-- globals; the premake4 workarounds replace functions in premake.gcc.
stds.premake = {
  -- links: for Visual Studio premake5.lua wraps it to drop m, dl and pthread
  globals = { "premake", "links" },
  read_globals = {
    "_ACTION", "_OPTIONS", "_PREMAKE_VERSION", "_MAKE", "_SCRIPT",
    "newoption", "solution", "workspace", "project", "configurations", "configuration",
    "filter", "location", "kind", "language", "files", "excludes", "includedirs",
    "defines", "buildoptions", "linkoptions", "targetdir", "targetname",
    "platforms", "libdirs",
    "targetprefix", "objdir", "flags",
    os = { other_fields = true },
  },
}
files["premake5.lua"] = { std = "max+premake" }
