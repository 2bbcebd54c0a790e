-- psoc build description.
--
-- Works with Debian 12's premake 4.3 AND stays a valid premake5 script:
--
--     premake4 --file=premake5.lua gmake      # makefiles go to build/
--     make -C build config=release             # or debug / sanitize
--
--     premake5 gmake                           # same layout with premake5
--
-- Only APIs common to premake 4.3 and premake5 are used.  premake5 still
-- accepts `solution` (alias of `workspace`) and `configuration` (deprecated
-- alias of `filter`), so this file deliberately uses the premake4 spelling.
-- Everything premake4-specific is inside an `if IS_PREMAKE4 then` block.
--
-- Options:
--   --lua=5.4|5.3|5.1|luajit   Lua to build the CLI/module/tests against
--                              (default 5.4)
--   --builddir=DIR             top build folder; default "build" for Lua 5.4
--                              and "build/lua5.3", "build/lua5.1",
--                              "build/luajit" for the others, so builds for
--                              different Luas coexist.  Makefiles go there too.
--
-- Output layout (BUILD = the build folder):
--   release:  BUILD/bin/{psoc,psoc_tests,psoc_conformance,psoc_bench}
--             BUILD/lib/{libpsoc.a,libpsoc.so,libpsolua.a,pso.so}
--   debug:    BUILD/debug/bin/...     BUILD/debug/lib/...
--   sanitize: BUILD/sanitize/bin/...  BUILD/sanitize/lib/...
--   objects:  BUILD/obj/CONFIG/PROJECT/
--
-- A project whose source folder is still empty is left out (with a note),
-- so the build works while the sources are being written.

local IS_PREMAKE4 = tostring(_PREMAKE_VERSION or ""):sub(1, 2) == "4."

-- Visual Studio (premake4 vs2010, premake5 vs2022; docs/windows.md): the
-- same projects, sources, defines and include folders as the gmake build
-- for the product (libpsoc static and DLL, libpsolua, the pso module, the
-- psoc tool), with MSVC options instead of GCC's, Windows library names,
-- and the third-party include folders from MSBuild properties (environment
-- variables work): PSOC_DIRECTX_INCLUDE (DirectX-Headers' include/directx),
-- PSOC_LUA_INCLUDE and PSOC_LUA_LIB (a Lua 5.4 built as lua54.dll),
-- PSOC_XXHASH_INCLUDE. tests/windows/test_vs2010.sh checks the solution
-- against the gmake makefiles.  Everything VS-specific is under IS_VS.
local IS_VS = tostring(_ACTION or ""):match("^vs") ~= nil

---------------------------------------------------------------------------
-- Options
---------------------------------------------------------------------------

newoption {
    trigger     = "lua",
    value       = "VERSION",
    description = "Lua to build against (default 5.4)",
    allowed     = {
        { "5.4",    "Lua 5.4 (default)" },
        { "5.3",    "Lua 5.3" },
        { "5.1",    "Lua 5.1" },
        { "luajit", "LuaJIT 2.1" },
    },
}

newoption {
    trigger     = "builddir",
    value       = "DIR",
    description = "Top build folder (default: build, or build/<lua> for a non-default Lua)",
}

local LUAS = {
    ["5.4"]    = { inc = "/usr/include/lua5.4",     lib = "lua5.4",     tag = "lua5.4" },
    ["5.3"]    = { inc = "/usr/include/lua5.3",     lib = "lua5.3",     tag = "lua5.3" },
    ["5.1"]    = { inc = "/usr/include/lua5.1",     lib = "lua5.1",     tag = "lua5.1" },
    ["luajit"] = { inc = "/usr/include/luajit-2.1", lib = "luajit-5.1", tag = "luajit" },
}

local LUA_VERSION = _OPTIONS["lua"] or "5.4"
local LUA = LUAS[LUA_VERSION]
if not LUA then
    error("unknown --lua=" .. tostring(LUA_VERSION) .. " (use 5.4, 5.3, 5.1 or luajit)")
end

-- Keep in sync with psoc_builddir in scripts/lib.sh.
local BUILD = _OPTIONS["builddir"]
if not BUILD or BUILD == "" then
    BUILD = (LUA_VERSION == "5.4") and "build" or ("build/" .. LUA.tag)
end
BUILD = BUILD:gsub("/+$", "")

-- The library version, read from src/psoc.h (the only place it is written).
local function psoc_version()
    local f = io.open("src/psoc.h", "r")
    local text = f and f:read("*a") or ""
    if f then f:close() end
    local major = text:match("#define%s+PSOC_VERSION_MAJOR%s+(%d+)") or "0"
    local minor = text:match("#define%s+PSOC_VERSION_MINOR%s+(%d+)") or "0"
    return major, minor
end
local PSOC_MAJOR, PSOC_MINOR = psoc_version()
local PSOC_ABI = PSOC_MAJOR .. "." .. PSOC_MINOR

local CONFIGS = { "release", "debug", "sanitize", "tsan" }
-- ThreadSanitizer (tsan) is a GCC/Clang build: Visual Studio gets the other three.
if tostring(_ACTION or ""):match("^vs") then CONFIGS = { "release", "debug", "sanitize" } end
local CONFIG_SUBDIR = { release = "", debug = "/debug", sanitize = "/sanitize", tsan = "/tsan" }

---------------------------------------------------------------------------
-- Flags
---------------------------------------------------------------------------

-- -fvisibility=hidden: the shared libraries export only what the public
-- headers mark with PSOC_API / PSO_MODULE_API (see src/psoc.h; checked by
-- tests/consumer/test_exports.sh).
local C_FLAGS   = { "-std=c11", "-Wall", "-Wextra", "-Werror", "-fPIC", "-fvisibility=hidden" }
local C_DEFINES = { "_POSIX_C_SOURCE=200809L" }
local CXX_FLAGS = { "-std=c++17", "-Wall", "-Wextra", "-Werror" }

local SANITIZE_FLAGS = {
    "-fsanitize=address,undefined,float-cast-overflow",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
}
local OPT_FLAGS = { release = { "-O2" }, debug = { "-g", "-O0" }, sanitize = { "-g", "-O1" } }
local PLATFORM_INCLUDES = { "/usr/include/wsl/stubs", LUA.inc }

if IS_VS then
    C_FLAGS   = { "/std:c11", "/W3" }
    C_DEFINES = { "_CRT_SECURE_NO_WARNINGS" }
    CXX_FLAGS = { "/std:c++17", "/W3" }
    SANITIZE_FLAGS = { "/fsanitize=address" }
    OPT_FLAGS = { release = { "/O2" }, debug = { "/Od", "/Zi" }, sanitize = { "/Od", "/Zi" } }
    PLATFORM_INCLUDES = { "$(PSOC_DIRECTX_INCLUDE)", "$(PSOC_LUA_INCLUDE)", "$(PSOC_XXHASH_INCLUDE)" }
    LUA = { inc = "$(PSOC_LUA_INCLUDE)", lib = "lua54", tag = "lua5.4" }
    -- the C runtime and the Windows SDK hold what libm, libdl and pthreads
    -- give on Linux
    local premake_links = links
    local UNIX_ONLY = { m = true, dl = true, pthread = true }
    links = function(list)
        local out = {}
        for _, name in ipairs(type(list) == "table" and list or { list }) do
            if not UNIX_ONLY[name] then table.insert(out, name) end
        end
        return premake_links(out)
    end
end

-- ThreadSanitizer (owner h7): 'make config=tsan psoc_reload_tests' builds
-- the hot-reload tests and what they link (scripts/test.sh "reload (tsan)").
local TSAN_FLAGS = { "-fsanitize=thread", "-fno-omit-frame-pointer" }

-- pkg-config output, split into link libraries (-lfoo -> "foo") and the
-- remaining options (-pthread, -L...).  premake 4.3 has no os.outputof.
local function pkgconfig(args)
    local p = io.popen("pkg-config " .. args .. " 2>/dev/null")
    if not p then return "" end
    local out = p:read("*a") or ""
    p:close()
    return out
end

local function split_libs(flags)
    local libs, opts = {}, {}
    for tok in flags:gmatch("%S+") do
        local lib = tok:match("^%-l(.+)$")
        if lib then table.insert(libs, lib) else table.insert(opts, tok) end
    end
    return libs, opts
end

local CHECK_LIBS, CHECK_LDOPTS = split_libs(pkgconfig("--libs check"))
local CHECK_CFLAGS = {}
for tok in pkgconfig("--cflags check"):gmatch("%S+") do table.insert(CHECK_CFLAGS, tok) end
if #CHECK_LIBS == 0 then
    -- Debian 12's answer, used when pkg-config or check.pc is missing
    -- (e.g. `premake4 --help` before the dependencies are installed).
    CHECK_LIBS, CHECK_LDOPTS, CHECK_CFLAGS = { "check_pic", "rt", "m", "subunit" }, { "-pthread" }, { "-pthread" }
end

-- Lists joined in order: join({a,b},{c}) -> {a,b,c}
local function join(...)
    local out = {}
    for _, list in ipairs({ ... }) do
        for _, v in ipairs(list) do table.insert(out, v) end
    end
    return out
end

---------------------------------------------------------------------------
-- premake 4.3 workarounds (premake5 already behaves this way)
---------------------------------------------------------------------------

if IS_PREMAKE4 and premake and premake.gcc then
    -- 1. premake 4.3 links sibling libraries as "-L<dir> -l<name>".  Both
    --    libpsoc.a and libpsoc.so live in <BUILD>/lib, and ld prefers the
    --    .so, so everything would silently link the shared libpsoc.  Link
    --    sibling libraries by full path (what premake5 does), followed by
    --    system libraries, each group in `links` order.
    premake.gcc.getlinkflags = function(cfg)
        local result = {}
        for _, file in ipairs(premake.getlinks(cfg, "siblings", "fullpath")) do
            table.insert(result, _MAKE.esc(file))
        end
        for _, name in ipairs(premake.getlinks(cfg, "system", "basename")) do
            table.insert(result, "-l" .. _MAKE.esc(name))
        end
        return result
    end

    -- 2. premake 4.3 adds "-s" (strip) to the link of every configuration
    --    without flags{"Symbols"}; premake5 does not.  Debug information is
    --    controlled by our own -g, so drop the -s.
    local gcc_getldflags = premake.gcc.getldflags
    premake.gcc.getldflags = function(cfg)
        local result = {}
        for _, flag in ipairs(gcc_getldflags(cfg)) do
            if flag ~= "-s" then table.insert(result, flag) end
        end
        return result
    end
end

---------------------------------------------------------------------------
-- Helpers
---------------------------------------------------------------------------

local function have_sources(...)
    for _, pattern in ipairs({ ... }) do
        if #os.matchfiles(pattern) > 0 then return true end
    end
    return false
end

local skipped = {}
local VS_PROJECTS = { ["psoc_static/psoc_shared"] = true, ["psolua/pso"] = true, psoc = true }
local function wanted(name, ...)
    if IS_VS and not VS_PROJECTS[name] then
        table.insert(skipped, name .. " (not in the Visual Studio solution)")
        return false
    end
    if have_sources(...) then return true end
    table.insert(skipped, name .. " (no " .. table.concat({ ... }, ", ") .. ")")
    return false
end

-- Per-configuration output and object folders for the current project.
-- `sub` is "bin" or "lib"; `internal` puts the target in BUILD/obj/CONFIG/lib
-- instead (helper libraries that are not part of the product).
local function outputs(name, sub, internal)
    for _, c in ipairs(CONFIGS) do
        configuration(c)
            if internal then
                targetdir(BUILD .. "/obj/" .. c .. "/lib")
            else
                targetdir(BUILD .. CONFIG_SUBDIR[c] .. "/" .. sub)
            end
            objdir(BUILD .. "/obj/" .. c .. "/" .. name)
    end
    configuration "*"
end

local function c_project(name, projkind, sub, internal)
    project(name)
        kind(projkind)
        language "C"
        buildoptions(C_FLAGS)
        defines(C_DEFINES)
        outputs(name, sub, internal)
end

local function cxx_project(name, projkind, sub)
    project(name)
        kind(projkind)
        language "C++"
        buildoptions(CXX_FLAGS)
        outputs(name, sub)
end

---------------------------------------------------------------------------
-- Solution
---------------------------------------------------------------------------

solution "psoc"
    configurations(CONFIGS)     -- the first one is make's default
    location(BUILD)
    includedirs(join({ "src", "bindings/lua" }, PLATFORM_INCLUDES))
    if IS_VS then
        platforms { "x64" }
        libdirs { "$(PSOC_LUA_LIB)" }
    end

    configuration "release"
        buildoptions(OPT_FLAGS.release)
        defines { "NDEBUG" }

    configuration "debug"
        buildoptions(OPT_FLAGS.debug)

    configuration "sanitize"
        buildoptions(join(OPT_FLAGS.sanitize, SANITIZE_FLAGS))
        if not IS_VS then linkoptions(SANITIZE_FLAGS) end

    if not IS_VS then
        configuration "tsan"
            buildoptions(join({ "-g", "-O1" }, TSAN_FLAGS))
            linkoptions(TSAN_FLAGS)
    end

    configuration "*"

-- The library ------------------------------------------------------------

if wanted("psoc_static/psoc_shared", "src/*.c") then
    c_project("psoc_static", "StaticLib", "lib")
        -- Visual Studio: psoc.lib is the DLL's import library
        targetname(IS_VS and "psoc_static" or "psoc")
        files { "src/*.c" }
        excludes { "src/cli/**" }

    c_project("psoc_shared", "SharedLib", "lib")
        targetname "psoc"
        files { "src/*.c" }
        excludes { "src/cli/**" }
        defines { "PSOC_BUILD_SHARED" } -- PSOC_API exports the public functions
        links { "m", "pthread" } -- src/platform.c: the sandbox's watchdog thread
        -- soname libpsoc.so.MAJOR.MINOR (while MAJOR is 0 every minor
        -- release may break the ABI); scripts/install.sh adds the links.
        if not IS_VS then linkoptions { "-Wl,-soname,libpsoc.so." .. PSOC_ABI } end
end

-- Lua binding: embedding library and loadable module ----------------------

if wanted("psolua/pso", "bindings/lua/*.c") then
    c_project("psolua", "StaticLib", "lib")
        files { "bindings/lua/*.c" }

    -- Lua module: BUILD/lib/pso.so.  It does not link liblua: the Lua
    -- symbols stay undefined and are resolved from the host interpreter.
    c_project("pso", "SharedLib", "lib")
        targetname "pso"
        targetprefix ""
        files { "bindings/lua/*.c" }
        defines { "PSO_BUILD_MODULE" } -- exports luaopen_pso, nothing else
        links { "psoc_static", "m", "pthread" }
end

-- CLI --------------------------------------------------------------------

-- A Direct3D 12 device (src/device/backend_vkd3d.c): Debian's vkd3d (Direct3D
-- 12 on Vulkan; lavapipe on machines without a GPU).  vkd3d's headers conflict
-- with DirectX-Headers', so the backend is built alone in an internal library
-- with vkd3d's include folder.  Used by 'psoc preview' (with libpng and the
-- DXBC assembler) and the device suite; left out, with a note, where the
-- headers are not installed.
local HAVE_VKD3D = not IS_VS and os.isfile("/usr/include/vkd3d/vkd3d_utils.h") and
    have_sources("src/device/backend_vkd3d.c")
local HAVE_PREVIEW = HAVE_VKD3D and os.isfile("/usr/include/png.h") and
    have_sources("src/tools/dxbc_asm.c")
if not HAVE_VKD3D then
    table.insert(skipped, "the device backend, psoc preview and psoc_device_tests " ..
        "(no /usr/include/vkd3d: install libvkd3d-dev)")
elseif not HAVE_PREVIEW then
    table.insert(skipped, "psoc preview (no /usr/include/png.h: install libpng-dev)")
end
if HAVE_VKD3D then
    c_project("psoc_device_vkd3d", "StaticLib", nil, true)
        files { "src/device/backend_vkd3d.c" }
        includedirs { "/usr/include/vkd3d" }
end

if wanted("psoc", "src/cli/*.c") then
    c_project("psoc", "ConsoleApp", "bin")
        files { "src/cli/*.c" }
        defines { "PSOC_CLI_HAVE_SCRIPTS" } -- script.c: check/dump/explain/diff of materials
        if HAVE_PREVIEW then
            -- preview.c: 'psoc preview SCRIPT -o FILE.png' draws on the device
            defines { "PSOC_CLI_HAVE_PREVIEW" }
            includedirs { "src/tools", "src/device" }
            links { "psoc_device_vkd3d", "psoc_dxbc_asm_lib", "psolua", "psoc_static", LUA.lib,
                    "vkd3d-utils", "vkd3d", "png", "m", "dl", "pthread" }
        else
            links { "psolua", "psoc_static", LUA.lib, "m", "dl", "pthread" }
        end
end

-- Tests --------------------------------------------------------------------

if wanted("psoc_tests", "tests/unit/*.c") then
    c_project("psoc_tests", "ConsoleApp", "bin")
        files { "tests/unit/*.c" }
        buildoptions(CHECK_CFLAGS)
        links(join({ "psolua", "psoc_static", LUA.lib }, CHECK_LIBS, { "m", "dl", "pthread" }))
        linkoptions(CHECK_LDOPTS)
end

-- Hot reload (tests/reload, owner h7): the reload library against real
-- files, both watcher backends; also built with config=tsan.
if wanted("psoc_reload_tests", "tests/reload/*.c") then
    c_project("psoc_reload_tests", "ConsoleApp", "bin")
        files { "tests/reload/*.c" }
        buildoptions(CHECK_CFLAGS)
        links(join({ "psolua", "psoc_static", LUA.lib }, CHECK_LIBS, { "m", "dl", "pthread" }))
        linkoptions(CHECK_LDOPTS)
end

if wanted("psoc_conformance", "tests/conformance/*.cpp") then
    cxx_project("psoc_conformance", "ConsoleApp", "bin")
        files { "tests/conformance/*.cpp" }
        buildoptions(CHECK_CFLAGS)
        links(join({ "psoc_static" }, CHECK_LIBS, { "m" }))
        linkoptions(CHECK_LDOPTS)
end

-- Root signatures against vkd3d (issue 13): psoc's blobs equal vkd3d's
-- D3D12SerializeVersionedRootSignature byte for byte and create on a vkd3d
-- device. vkd3d's d3d12.h conflicts with DirectX-Headers', so only
-- tests/rootsig_vkd3d/vkd3d_side.c includes it. Left out without vkd3d.
local VKD3D_LIBS = IS_VS and {} or split_libs(pkgconfig("--libs libvkd3d-utils"))
if #VKD3D_LIBS > 0 and wanted("psoc_rootsig_vkd3d", "tests/rootsig_vkd3d/*.c") then
    c_project("psoc_rootsig_vkd3d", "ConsoleApp", "bin")
        files { "tests/rootsig_vkd3d/*.c" }
        includedirs { "/usr/include/vkd3d" }
        links(join({ "psoc_static" }, VKD3D_LIBS, { "m" }))
end

-- Benchmark: always -O2 (added after the configuration's -O, so it wins).
-- When it mixes C++ and C, its C files go into an internal static library
-- (psoc_bench_c, kept in BUILD/obj/): premake4 passes a C++ project's build
-- options to its C files too, and gcc rejects -std=c++17 on C with -Werror.
if wanted("psoc_bench", "tests/bench/*.cpp", "tests/bench/*.c") then
    -- nettle (nettle-dev): the MD5 the container checksum is measured against
    local bench_links = { "psolua", "psoc_static", LUA.lib, "nettle", "m", "dl", "pthread" }

    if not have_sources("tests/bench/*.cpp") then
        -- C-only benchmark: a plain C program.
        c_project("psoc_bench", "ConsoleApp", "bin")
            files { "tests/bench/*.c" }
            buildoptions { "-O2" }
            links(bench_links)
    else
        if have_sources("tests/bench/*.c") then
            c_project("psoc_bench_c", "StaticLib", nil, true)
                files { "tests/bench/*.c" }
                buildoptions { "-O2" }
            bench_links = join({ "psoc_bench_c" }, bench_links)
        end

        cxx_project("psoc_bench", "ConsoleApp", "bin")
            files { "tests/bench/*.cpp" }
            buildoptions { "-O2" }
            links(bench_links)
    end
end

-- Hot-reload benchmark (owner h7): write -> poll() latency and what one
-- change re-evaluates in a library of 1,000 materials. Its own program
-- (tests/bench/bench_reload.c with a main); always -O2.
if wanted("psoc_bench_reload", "tests/bench/bench_reload.c") then
    c_project("psoc_bench_reload", "ConsoleApp", "bin")
        files { "tests/bench/bench_reload.c" }
        defines { "PSOC_BENCH_RELOAD_MAIN" }
        buildoptions { "-O2" }
        links { "psolua", "psoc_static", LUA.lib, "m", "dl", "pthread" }
end

-- Tools ------------------------------------------------------------------

-- LuaLS annotations of the material language, printed from the registry:
-- BUILD/bin/psoc_gen_annotations > scripts/types/pso.lua (--check FILE
-- compares; see scripts/gen_annotations.c).
if wanted("psoc_gen_annotations", "scripts/gen_annotations.c") then
    c_project("psoc_gen_annotations", "ConsoleApp", "bin")
        files { "scripts/gen_annotations.c" }
        links { "psoc_static", "m" }
end

-- DXBC assembler for the project's small shaders (src/tools, docs/dxbc_asm.md):
-- BUILD/bin/psoc_dxbc_asm SOURCE.asm -o OUT.cso.  The assembler itself is an
-- internal static library (psoc_dxbc_asm_lib, in BUILD/obj/) shared by the
-- tool, its tests and the device suite; it signs with libpsoc's checksum.
if wanted("psoc_dxbc_asm", "src/tools/dxbc_asm.c") then
    c_project("psoc_dxbc_asm_lib", "StaticLib", nil, true)
        files { "src/tools/dxbc_asm.c" }

    c_project("psoc_dxbc_asm", "ConsoleApp", "bin")
        files { "src/tools/dxbc_asm_main.c" }
        includedirs { "src/tools" }
        links { "psoc_dxbc_asm_lib", "psoc_static", "m", "pthread" } -- pthread: src/platform.c
end

-- Material library generator for benchmarks (tests/bench/gen, documented in
-- tests/bench/README.md): BUILD/bin/psoc_gen_library DIR --pipelines N ...
-- Its shaders come from the DXBC assembler.
if wanted("psoc_gen_library", "tests/bench/gen/gen_library.c") then
    c_project("psoc_gen_library", "ConsoleApp", "bin")
        files { "tests/bench/gen/gen_library.c" }
        includedirs { "src/tools" }
        links { "psoc_dxbc_asm_lib", "psoc_static", "m", "pthread" }
end

if wanted("psoc_dxbc_asm_tests", "tests/dxbc_asm/*.c") then
    c_project("psoc_dxbc_asm_tests", "ConsoleApp", "bin")
        files { "tests/dxbc_asm/*.c" }
        includedirs { "src/tools" }
        links { "psoc_dxbc_asm_lib", "psoc_static", "m" }
end

-- Device suite (tests/device): material scripts -> psoc -> the device backend
-- (vkd3d) -> pixels.
if HAVE_VKD3D and wanted("psoc_device_tests", "tests/device/*.c") then
    c_project("psoc_device_tests", "ConsoleApp", "bin")
        files { "tests/device/device_main.c" }
        includedirs { "src/device" }
        links { "psoc_device_vkd3d", "psolua", "psoc_static", LUA.lib, "vkd3d-utils", "vkd3d", "m",
                "dl", "pthread" }
end

-- Fuzz targets -------------------------------------------------------------
--
-- The libFuzzer targets tests/fuzz/fuzz_*.c, in a solution of their own
-- (makefiles in BUILD/fuzz-make, so the normal build never compiles them):
-- they need clang.  scripts/fuzz.sh builds and runs them without premake
-- (same flags); this is for building them by hand or from an IDE:
--
--     premake4 --file=premake5.lua gmake
--     make -C build/fuzz-make CC=clang fuzz_script     # -> build/fuzz-make/bin/
--
-- Each links src/*.c; fuzz_script also bindings/lua/*.c and the Lua.
local FUZZ_FLAGS = {
    "-g", "-O1", "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
}
local FUZZ_LUA = { fuzz_script = true }
local fuzz_targets = os.matchfiles("tests/fuzz/fuzz_*.c")
table.sort(fuzz_targets)
if not IS_VS and #fuzz_targets > 0 and have_sources("src/*.c") then
    solution "psoc_fuzz"
        configurations { "fuzz" }
        location(BUILD .. "/fuzz-make")
        includedirs { "src", "bindings/lua", "/usr/include/wsl/stubs", LUA.inc }

    for _, src in ipairs(fuzz_targets) do
        local name = src:match("([^/]+)%.c$")
        project(name)
            kind "ConsoleApp"
            language "C"
            buildoptions(join({ "-std=c11" }, FUZZ_FLAGS))
            defines(C_DEFINES)
            linkoptions(FUZZ_FLAGS)
            targetdir(BUILD .. "/fuzz-make/bin")
            objdir(BUILD .. "/fuzz-make/obj/" .. name)
            files(join({ src }, os.matchfiles("src/*.c")))
            if FUZZ_LUA[name] then
                files(os.matchfiles("bindings/lua/*.c"))
                links { LUA.lib, "m", "dl" }
            else
                links { "m" }
            end
    end

    -- Back to the main solution, so projects defined below land there.
    solution "psoc"
end

if #skipped > 0 and _ACTION then
    print("psoc: skipped (sources not written yet): " .. table.concat(skipped, "; "))
end
