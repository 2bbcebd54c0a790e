/*
** psol.h: evaluate material scripts in a sandboxed Lua state and get
** pipeline state streams back, without writing any Lua glue.
**
**   psol_options opts = {0};            -- zero means "default" everywhere
**   psol_result r;
**   if (psol_evaluate_file(&opts, "materials/lit.lua", &r) != PSOC_OK)
**     fprintf(stderr, "%s\n", r.error);  -- "file:line: field: message"
**   for (size_t i = 0; i < r.count; i++)
**     use(r.pipelines[i].name, psoc_stream_desc(r.pipelines[i].stream));
**   psol_result_free(&r);
**
** Material scripts are content, not trusted code. They run in a fresh
** state with only the base (no dofile/loadfile/getfenv/setfenv/newproxy;
** load for text chunks only; collectgarbage "count" only; no __gc in
** setmetatable; getmetatable hides userdata metatables), string (no dump),
** table, math and utf8 (5.3+) libraries; no coroutines, os, io, debug,
** package, jit or ffi. `require "pso"` gives the pso module; any other
** require loads NAME.lua (dots -> '/') from the material roots, text
** only, once per state (compiled once per process: psol_chunk_cache_stats). Files must resolve inside a material root after
** following symlinks. print() goes to psol_options.log.
**
** Limits: an instruction budget (count hook; work done in C is charged
** too, see instruction_limit), a memory limit (the lua_Alloc), a wall
** clock and a cap on print output. Once a limit is hit every further
** instruction fails, pcall and xpcall raise it again instead of returning
** it, and xpcall's message handler is not called (it would run with hooks
** off). setmetatable installs a snapshot of the metatable's "__" fields
** (getmetatable answers the table given): no __gc, no weak keys
** (__mode "k"), and nothing added to the table later applies.
** string.find/match/gmatch/gsub use Lua 5.4's matcher with a step budget
** (5.4 pattern rules in every Lua). Under LuaJIT the JIT is off for
** sandboxed states (hooks do not fire in compiled code), and a pso call in
** tail position (return pso.graphics {...}) has no line in errors: LuaJIT
** drops the caller's frame.
**
** Threads: the wall clock is one watchdog thread per process (started by
** the first sandboxed call, signals blocked) that, at a state's deadline,
** forces its count hook with lua_sethook from that thread and sets a flag
** the C loops poll. Link with -lpthread. Use a state from one thread at a
** time; different states may run on different threads.
**
** Files are resolved one component at a time without looking outside the
** roots: every path that leaves them gets "outside the material roots",
** whether or not it exists. Only regular files are read, never blocking.
**
** Every evaluation reports the files it read (psol_result.files: path,
** XXH3-64 hash, size; each once) and every diagnostic as data
** (psol_result.diagnostics: errors and warnings with file, line, pipeline,
** field, code and message ID), on success and on failure. A read_file hook
** supplies file contents instead of the file system; paths are resolved
** and confined to the roots before it is asked. See docs/embedding.md.
**
** The library never prints and never aborts; errors come back as
** messages.
*/
#ifndef PSOL_H
#define PSOL_H

#include <stddef.h>
#include <stdint.h>

#include "psoc.h"

#include <lua.h>

#ifndef LUA_OK /* Lua 5.1 and LuaJIT */
#define LUA_OK 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define PSOL_DEFAULT_MEMORY_LIMIT ((size_t)64 << 20)          /* 64 MiB */
#define PSOL_DEFAULT_INSTRUCTION_LIMIT ((uint64_t)50000000u)  /* 50 M */
#define PSOL_DEFAULT_TIME_LIMIT_MS 10000u                     /* 10 s */
#define PSOL_DEFAULT_LOG_LIMIT ((size_t)1 << 20)              /* 1 MiB */

/* One file an evaluation read: the script, every required module, every
** pso.shader / pso.blob file (also those supplied by the read_file hook).
** Each file appears once, in the order it was first read. */
typedef struct psol_file {
  char *path;        /* the resolved path inside the roots (what was opened
                        or asked of read_file) */
  uint64_t hash;     /* psoc_xxh3 of its bytes (XXH3-64, seed 0) */
  uint64_t size;     /* bytes */
} psol_file;

/* Every diagnostic of an evaluation, errors and warnings, as data. */
typedef struct psol_diagnostic {
  psoc_severity severity;
  /* psoc_check's code for check diagnostics; PSOC_CODE_SCRIPT (script
  ** errors and bad results), PSOC_CODE_LIMIT (instruction, memory, time
  ** limits) or PSOC_CODE_FILE (a file that cannot be read) otherwise. */
  psoc_code code;
  const char *message_id;      /* debug-layer ID without the D3D12_MESSAGE_ID_
                                  prefix (static storage), or NULL */
  char *file;                  /* NULL when unknown */
  int line;                    /* 0 when unknown */
  char *pipeline;              /* pipeline name, or NULL */
  char *field;                 /* the material's key path ("rasterizer.cull"),
                                  or NULL */
  char *message;               /* never NULL */
} psol_diagnostic;

/* The bytes a read_file hook supplies. The library calls
** release(ud, data) when it is done with them (release may be NULL). */
typedef struct psol_bytes {
  const void *data;
  size_t size;
  void (*release)(void *ud, const void *data);
} psol_bytes;
/* Supply the bytes of 'path' (already resolved and confined to the roots:
** the hook is never asked for a path outside them). Return 0 and fill
** *out, or nonzero for "no such file". */
typedef int (*psol_read_file_fn)(void *ud, const char *path, psol_bytes *out);

/* psol_options.flags */
#define PSOL_STRICT_ROOT_SIGNATURES (1u << 0) /* an unresolved root-signature name is an error */
/* Compile every chunk from source, bypassing the process's chunk cache
** (see psol_chunk_cache_stats). */
#define PSOL_NO_CHUNK_CACHE (1u << 1)

typedef struct psol_options {
  /* Material roots. Files (pso.shader, pso.blob) and required modules must
  ** resolve inside one of them (realpath-checked: no escaping via ".." or
  ** symlinks). Relative file names are tried against the directory of the
  ** script being run first, then against each root in order. Default (no
  ** roots): the directory of the script being run; a string chunk with no
  ** roots has no file access. */
  const char *const *roots;
  size_t root_count;
  /* Bytes; 0 = 64 MiB; enforced in the lua_Alloc. On 5.2+ a refused
  ** allocation is the limit only when Lua's retry after its emergency
  ** collection is refused too; 5.1 and LuaJIT fail at once. On 5.2+ a
  ** new state's collector starts once the state has made 512 KiB (a
  ** quarter of this limit at most) beyond its setup (docs/embedding.md). */
  size_t memory_limit;
  /* VM instructions; 0 = 50,000,000. Work done in C is charged too, as
  ** it is done: allocating 64 bytes, one pattern-matching step, scanning
  ** 16 bytes, one table element moved, read or unpacked, one argument
  ** of select/string.char/utf8.char or one format byte costs about one
  ** instruction. Deterministic. */
  uint64_t instruction_limit;
  const psoc_allocator *alloc;  /* where result streams live (NULL = default) */
  /* Maps a root-signature name to an ID3D12RootSignature* (may be NULL). */
  void *(*resolve_root_signature)(void *ud, const char *name);
  void *ud;
  /* Receives the script's print() output, one call per print, with the
  ** trailing newline. NULL = discard (the library never prints). */
  void (*log)(void *ud, const char *text, size_t len);
  /* How psol_evaluate_* check the result streams: the device's capability
  ** profile (NULL: as p:check() does, the default profile, and mesh
  ** pipelines are not held to a mesh shader tier) and PSOC_CHECK_* flags
  ** (PSOC_CHECK_FOLLOW_POINTERS also reads shader containers, input element
  ** names, ...: for real compiled shaders). */
  const psoc_profile *profile;
  uint32_t check_flags;
  /* Wall-clock safety net per top-level call (the watchdog thread);
  ** 0 = 10,000 ms. The instruction budget is what material scripts should
  ** hit; this catches what it cannot charge (e.g. comparing two huge
  ** strings, walking long hash chains). */
  uint32_t time_limit_ms;
  /* Bytes of print() output passed to 'log' per state; 0 = 1 MiB. The
  ** first print that does not fit is replaced by one line
  ** "(print output truncated: more than N bytes)" and later ones are
  ** dropped. */
  size_t log_limit;
  /* Supplies file contents (a virtual file system, shaders compiled in
  ** memory) instead of the file system: scripts, modules, pso.shader and
  ** pso.blob files. NULL = the file system. Paths are still resolved and
  ** confined against the roots first. */
  psol_read_file_fn read_file;
  void *read_file_ud;
  uint32_t flags;               /* PSOL_* */
} psol_options;

typedef struct psol_pipeline {
  char *name;                   /* never NULL ("" when unnamed) */
  char *root_signature;         /* NULL when none */
  psoc_kind kind;
  psoc_stream *stream;          /* self-contained, outlives the state */
  psoc_hash128 hash;            /* psoc_hash with PSOC_FOLLOW_POINTERS and
                                   the root-signature name */
} psol_pipeline;

typedef struct psol_result {
  psol_pipeline *pipelines;
  size_t count;
  char error[1024];             /* "file:line: field: message", or "" */
  psoc_allocator alloc;         /* set by evaluate; used by psol_result_free */
  size_t capacity;              /* entries allocated in 'pipelines' (for freeing) */
  /* Filled on success and on failure; freed by psol_result_free. */
  psol_file *files;             /* every file the evaluation read */
  size_t file_count;
  psol_diagnostic *diagnostics; /* every error and warning */
  size_t diagnostic_count;
  size_t file_capacity, diagnostic_capacity; /* entries allocated (for freeing) */
} psol_result;

/* Evaluate a material script in a fresh sandboxed state. The script
** returns one pipeline or a list of pipelines; each result stream is
** copied out (with opts->alloc) and checked with psoc_check. On failure
** 'out' holds no pipelines and 'error' says why:
**   PSOC_ERR_INVALID  script error, limit exceeded, bad result, or a
**                     pipeline that fails psoc_check
**   PSOC_ERR_NOMEM    the result could not be allocated
**   PSOC_ERR_ARG      NULL arguments or unusable options (bad root)
** 'opts' may be NULL (all defaults). Always call psol_result_free. */
PSOL_API psoc_status psol_evaluate_file(const psol_options *opts, const char *path,
                                        psol_result *out);
PSOL_API psoc_status psol_evaluate_string(const psol_options *opts, const char *chunkname,
                                          const char *src, size_t len, psol_result *out);
PSOL_API void psol_result_free(psol_result *r);

/* Lower level, for tools that run several scripts or tests in one state.
** psol_newstate returns NULL (with 'err' filled) on failure. The options
** (roots, callbacks) are copied; the callbacks' ud must outlive the state.
** Each top-level call (psol_dofile, psol_dostring, psol_pcall not nested
** in another) gets the full instruction and time budgets. */
PSOL_API lua_State *psol_newstate(const psol_options *opts, char *err, size_t errlen);
/* Sandboxed text-only load of 'path' plus a pcall with a traceback.
** Returns LUA_OK with 'nresults' values pushed (LUA_MULTRET allowed), or
** an error status with the message (and traceback) on the stack. Without
** roots, the script's directory is the root while it runs. */
PSOL_API int psol_dofile(lua_State *L, const char *path, int nresults);
/* Same for a string chunk; 'chunkname' is used as given by Lua
** ("@file.lua" or "=name"). */
PSOL_API int psol_dostring(lua_State *L, const char *chunkname, const char *src, size_t len,
                           int nresults);
/* Call the function below 'nargs' arguments on the top of the stack
** with the sandbox's message handler (traceback, limit messages). */
PSOL_API int psol_pcall(lua_State *L, int nargs, int nresults);
/* The message of an error left by psol_dofile/psol_pcall, without the
** traceback, copied into 'buf'. Returns 'buf'. */
PSOL_API const char *psol_error_message(lua_State *L, int idx, char *buf, size_t buflen);
/* Where the pipeline at 'idx' was declared: the line of its pso.graphics,
** mesh, compute or derive call (0 when unknown), and the chunk's name
** (the file for "@file" chunks) in 'source'. */
PSOL_API int psol_pipeline_where(lua_State *L, int idx, char *source, size_t sourcelen);
/* Instructions executed so far (to the granularity of the count hook)
** and bytes currently allocated by the state. */
PSOL_API uint64_t psol_instructions(lua_State *L);
PSOL_API size_t psol_memory(lua_State *L);
PSOL_API void psol_close(lua_State *L);

/* The chunk cache. Modules loaded by require and top-level scripts are
** compiled once per process: the compiled form (lua_dump bytes this
** process made from the text, never bytes from a file or a script) is
** kept, keyed by the XXH3-64 of the source text and chunk name and checked
** against both byte for byte, and a later state loading the same text gets
** it instead of compiling (an edited file is new text: a new entry). A
** chunk is stored the second time its text is seen. Only bytes are shared:
** every state gets new functions over its own globals. At most 32 MiB;
** thread-safe. Stats: loads served from the cache, loads compiled (with
** the cache on), bytes held. clear empties it and zeroes the counts. */
PSOL_API void psol_chunk_cache_stats(uint64_t *hits, uint64_t *misses, size_t *bytes);
PSOL_API void psol_chunk_cache_clear(void);

#ifdef __cplusplus
}
#endif

#endif
