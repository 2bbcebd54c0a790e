/*
** sandbox.c: the material evaluator (psol.h). A fresh Lua state per
** evaluation, with only safe libraries, text-only chunks, files confined
** to the material roots, an instruction budget (count hook) and a memory
** limit (the lua_Alloc). Results are copied out of the state.
*/
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "compat.h"
#include "confine.h"
#include "platform.h"
#include "pso_module.h"
#include "psol.h"
#include "sandbox_match.h"
#include "xxh.h"

#define PSOL_HOOK_STEP 100           /* instructions between count hooks */
#define PSOL_ALLOC_SHIFT 6           /* allocating 64 bytes costs one instruction */
#define PSOL_GRACE ((size_t)1 << 20) /* room for error handling past the limit */
#define PSOL_GC_HOLD ((size_t)512 << 10)  /* a new state collects after this much (limit / 4 at most) */
#define PSOL_TRACEBACK "\nstack traceback:"
#define PSOL_PATH_MAX PSOC_PLAT_PATH_MAX

typedef psoc_confine_root psol_path; /* shown (as given) and real (canonical) */

/* Which limit a sandboxed call exceeded. */
enum { LIMIT_NONE, LIMIT_INSTRUCTIONS, LIMIT_MEMORY, LIMIT_TIME };

typedef struct psol_state psol_state;
struct psol_state {
  lua_State *L;
  /* memory */
  size_t limit, used;
  int enforce;         /* the limit applies (a sandboxed call is running) */
  int mem_refused;     /* an allocation was refused and its retry has not succeeded */
  uintptr_t refused_ptr; /* the refused request, to recognise its retry */
  size_t refused_size;
  size_t gc_hold;      /* the collector is stopped until 'used' passes this; 0: it runs */
  lua_Alloc base;      /* LuaJIT fallback: the allocator we wrap, or NULL */
  void *base_ud;
  /* the state's heap (without base): see "the state's heap" below */
  unsigned char *sa_free[32]; /* free blocks by size class */
  unsigned char *sa_chunks;   /* every chunk, linked through its first bytes */
  unsigned char *sa_bump;     /* the unused rest of the newest chunk */
  size_t sa_left;
  /* instructions and time */
  uint64_t ins_limit, ins_count;
  uint32_t time_limit_ms;
  uint64_t deadline_ns; /* psoc_plat_now_ns clock */
  int exceeded;        /* LIMIT_*: set once per top-level call */
  int depth;           /* psol_pcall nesting */
  /* the watchdog (one thread for the process): set at the deadline */
  psoc_plat_flag timed_out;
  int watched;         /* on the watchdog's list */
  psol_state *wd_next;
  /* files */
  psol_path *roots;
  size_t root_count;
  psol_path implicit;  /* the running script's directory when no roots */
  psol_path script;    /* directory of the running script, or shown NULL */
  const char *chunk;   /* display name of the running top-level chunk */
  int runs;            /* psol_dofile/psol_dostring nesting (run) */
  struct psol_guard *guard; /* load_file's, one per state (anchored in the registry) */
  /* host callbacks */
  void *(*resolve)(void *ud, const char *name);
  void (*log)(void *ud, const char *text, size_t len);
  void *ud;
  size_t log_limit, log_used; /* bytes of print output passed on, per state */
  psol_read_file_fn read_file; /* NULL: the file system */
  void *read_file_ud;
  uint32_t flags;      /* PSOL_* */
  int record_files;    /* note every file read (an evaluation reports them) */
  /* what the last top-level call ended with, for its diagnostic */
  int file_failed;     /* a file could not be read, and no pcall caught it since */
  int last_exceeded;   /* LIMIT_* of the last top-level call */
  int last_file_failed;
};

static psol_state *state_of(lua_State *L) {
  void *ud = NULL;
  lua_getallocf(L, &ud);
  return (psol_state *)ud;
}

/* ---- the state's heap ------------------------------------------------------
** A state makes and frees hundreds of thousands of small blocks (strings,
** tables, closures) and is then closed as a whole. Blocks of up to 512
** bytes come from 64 KiB chunks of the state's own, in 32 size classes of
** 16 bytes, and go back to a free list of their class; the chunks are
** freed when the state is. Larger blocks are malloc'd. Every block has a
** 16-byte header whose first byte is its class (SA_LARGE: malloc'd), so
** freeing never depends on the size a caller passes; a free block holds
** the link to the next one of its class after the header (chunks and
** blocks are 16-byte aligned). The memory limit
** still counts the bytes asked for (psol_alloc's 'used'), not the chunks.
**
** A closed state's chunks go to a process-wide cache (up to SA_CACHE_MAX,
** a mutex around it) that the next state takes its chunks from, so a run
** of evaluations reuses the same, already faulted-in memory instead of
** handing it back to malloc, which would return the top of its heap to
** the system (a page fault per page again in the next state). A reused
** chunk holds what the last state left in it, exactly as memory from
** malloc may hold what the process freed before: no script can read it,
** because Lua initialises every object it allocates before a script can
** reach it (strings are copied in whole, table and stack slots are set to
** nil, closures get their upvalues) and the sandbox's and the pso module's
** C code writes the userdata it makes before handing it out; a block's
** bytes past what was asked for are never read. */

#define SA_HEAD 16
#define SA_GRAIN 16
#define SA_MAX (32 * SA_GRAIN)
#define SA_CHUNK ((size_t)64 << 10)
#define SA_LARGE 0xffu

/* Under AddressSanitizer every block is malloc'd on its own (the large
** path), so ASan still sees each Lua object's bounds and lifetime. */
#if defined(__SANITIZE_ADDRESS__)
#define SA_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SA_POOL 0
#endif
#endif
#ifndef SA_POOL
#define SA_POOL 1
#endif

#define SA_CACHE_MAX 64 /* chunks kept for later states: 4 MiB */

static psoc_plat_once sa_cache_once = PSOC_PLAT_ONCE_INIT;
static psoc_plat_mutex sa_cache_mutex;
static int sa_cache_ready;
static unsigned char *sa_cache; /* linked through their first bytes */
static size_t sa_cache_count;

static void sa_cache_init(void) { sa_cache_ready = psoc_plat_mutex_init(&sa_cache_mutex) == 0; }

static unsigned char *sa_chunk_new(void) {
  unsigned char *chunk = NULL;
  if (psoc_plat_once_run(&sa_cache_once, sa_cache_init) == 0 && sa_cache_ready) {
    psoc_plat_mutex_lock(&sa_cache_mutex);
    if ((chunk = sa_cache) != NULL) {
      sa_cache = *(unsigned char **)(void *)chunk;
      sa_cache_count--;
    }
    psoc_plat_mutex_unlock(&sa_cache_mutex);
  }
  return chunk ? chunk : (unsigned char *)malloc(SA_CHUNK);
}

static void *sa_alloc(psol_state *S, size_t n) {
  unsigned char *b;
  if (SA_POOL && n <= SA_MAX) {
    size_t c = (n - 1) / SA_GRAIN, need = SA_HEAD + (c + 1) * SA_GRAIN;
    b = S->sa_free[c];
    if (b) {
      S->sa_free[c] = *(unsigned char **)(void *)(b + SA_HEAD); /* the link */
      return b + SA_HEAD;
    }
    if (S->sa_left < need) {
      unsigned char *chunk = sa_chunk_new();
      if (!chunk) return NULL;
      *(unsigned char **)(void *)chunk = S->sa_chunks;
      S->sa_chunks = chunk;
      S->sa_bump = chunk + SA_HEAD;
      S->sa_left = SA_CHUNK - SA_HEAD;
    }
    b = S->sa_bump;
    S->sa_bump += need;
    S->sa_left -= need;
    b[0] = (unsigned char)c;
    return b + SA_HEAD;
  }
  if (n > ((size_t)-1) - SA_HEAD) return NULL;
  b = (unsigned char *)malloc(SA_HEAD + n);
  if (!b) return NULL;
  b[0] = SA_LARGE;
  return b + SA_HEAD;
}

static void sa_free(psol_state *S, void *p) {
  unsigned char *b = (unsigned char *)p - SA_HEAD;
  if (b[0] == SA_LARGE) {
    free(b);
    return;
  }
  *(unsigned char **)(void *)(b + SA_HEAD) = S->sa_free[b[0]];
  S->sa_free[b[0]] = b;
}

static void *sa_realloc(psol_state *S, void *p, size_t nsize) {
  unsigned char *b, *q;
  size_t cap;
  if (!p) return sa_alloc(S, nsize);
  b = (unsigned char *)p - SA_HEAD;
  if (b[0] == SA_LARGE) {
    if (nsize > ((size_t)-1) - SA_HEAD) return NULL;
    q = (unsigned char *)realloc(b, SA_HEAD + nsize); /* stays large; keeps its header */
    if (!q) return NULL;
    b = q;
    return b + SA_HEAD;
  }
  cap = ((size_t)b[0] + 1) * SA_GRAIN;
  if (nsize <= cap) return p; /* fits: keep the block (and its class) */
  q = (unsigned char *)sa_alloc(S, nsize);
  if (!q) return NULL;
  memcpy(q, p, cap);
  sa_free(S, p);
  return q;
}

static void sa_release(psol_state *S) {
  if (S->sa_chunks && sa_cache_ready) { /* ready: a chunk was made (sa_chunk_new) */
    psoc_plat_mutex_lock(&sa_cache_mutex);
    while (S->sa_chunks && sa_cache_count < SA_CACHE_MAX) {
      unsigned char *chunk = S->sa_chunks;
      S->sa_chunks = *(unsigned char **)(void *)chunk;
      *(unsigned char **)(void *)chunk = sa_cache;
      sa_cache = chunk;
      sa_cache_count++;
    }
    psoc_plat_mutex_unlock(&sa_cache_mutex);
  }
  while (S->sa_chunks) {
    unsigned char *chunk = S->sa_chunks;
    S->sa_chunks = *(unsigned char **)(void *)chunk;
    free(chunk);
  }
  memset(S->sa_free, 0, sizeof S->sa_free);
  S->sa_bump = NULL;
  S->sa_left = 0;
}

/* ---- memory ----------------------------------------------------------- */

static void *psol_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  psol_state *S = (psol_state *)ud;
  size_t old = ptr ? osize : 0; /* 5.4 passes a type tag when ptr is NULL */
  void *p;
  if (nsize == 0) {
    if (S->base) S->base(S->base_ud, ptr, osize, 0);
    else if (ptr) sa_free(S, ptr);
    S->used = old > S->used ? 0 : S->used - old;
    return NULL;
  }
  if (nsize > old && S->enforce) {
    size_t cap = S->limit + (S->exceeded ? PSOL_GRACE : 0);
    size_t grow = nsize - old;
    if (S->used > cap || grow > cap - S->used) {
      /* Lua 5.2+ answers a failed allocation with a full (emergency)
      ** collection and one retry: the limit is exceeded only when the
      ** error reaches a protected call (see limit_check). */
      S->mem_refused = 1;
      S->refused_ptr = (uintptr_t)ptr;
      S->refused_size = nsize;
      if (!PSOL_COMPAT_EMERGENCY_GC && !S->exceeded) S->exceeded = LIMIT_MEMORY;
      return NULL;
    }
    /* Work done in C scales with the bytes it makes (s .. t, s:upper(),
    ** string.format, ...): charge them, so that a loop over a big string
    ** cannot run long on a few instructions. */
    if (!S->exceeded) {
      S->ins_count += grow >> PSOL_ALLOC_SHIFT;
      if (S->ins_count >= S->ins_limit) {
        S->exceeded = LIMIT_INSTRUCTIONS; /* this allocation fails; the hook reports it */
        return NULL;
      }
    }
  }
  p = S->base ? S->base(S->base_ud, ptr, osize, nsize) : sa_realloc(S, ptr, nsize);
  if (!p) return NULL;
  if (S->mem_refused && (uintptr_t)ptr == S->refused_ptr && nsize == S->refused_size)
    S->mem_refused = 0; /* the retry after the emergency collection worked */
  S->used = (old > S->used ? 0 : S->used - old) + nsize;
  return p;
}

/* ---- the watchdog --------------------------------------------------------
** One thread for the whole process serves every sandboxed call: a list of
** states sorted by deadline and a condition variable with a timed wait.
** At a state's deadline it sets the state's timed_out flag (C loops poll
** it) and forces the count hook to fire at the next instruction
** (lua_sethook may be called from another thread). It is woken only
** when a state's deadline is earlier than the time it sleeps until: when
** the list empties it keeps sleeping until the last deadline it had, so
** the next state (whose deadline, the same limit later, is later still)
** needs no wake-up, and a run of short sandboxed calls costs no thread
** switch each. */

static void psol_hook(lua_State *L, lua_Debug *ar);

static psoc_plat_once wd_once = PSOC_PLAT_ONCE_INIT;
static psoc_plat_mutex wd_mutex;
static psoc_plat_cond wd_cond;
static psoc_plat_thread wd_thread;
static psol_state *wd_list; /* sorted by deadline */
static int wd_running;
static uint64_t wd_wake_ns; /* when the watchdog wakes by itself; 0: only when signalled */

static void wd_main(void *arg) {
  (void)arg;
  psoc_plat_mutex_lock(&wd_mutex);
  for (;;) {
    uint64_t now = psoc_plat_now_ns();
    while (wd_list && wd_list->deadline_ns <= now) {
      psol_state *S = wd_list;
      wd_list = S->wd_next;
      S->watched = 0;
      psoc_plat_flag_set(&S->timed_out, 1);
      lua_sethook(S->L, psol_hook, LUA_MASKCOUNT, 1);
    }
    if (wd_list) wd_wake_ns = wd_list->deadline_ns;
    else if (wd_wake_ns <= now) wd_wake_ns = 0;
    if (wd_wake_ns) psoc_plat_cond_wait_until(&wd_cond, &wd_mutex, wd_wake_ns);
    else psoc_plat_cond_wait(&wd_cond, &wd_mutex);
  }
}

static void wd_init(void) {
  if (psoc_plat_mutex_init(&wd_mutex) != 0) return;
  if (psoc_plat_cond_init(&wd_cond) != 0) {
    psoc_plat_mutex_destroy(&wd_mutex);
    return;
  }
  wd_running = psoc_plat_thread_start(&wd_thread, wd_main, NULL) == 0;
}

/* Put S on the list (its deadline is set). Without a watchdog thread the
** count hook reads the clock instead. */
static void wd_watch(psol_state *S) {
  psol_state **p;
  psoc_plat_once_run(&wd_once, wd_init);
  if (!wd_running || !S->deadline_ns) return;
  psoc_plat_mutex_lock(&wd_mutex);
  for (p = &wd_list; *p && (*p)->deadline_ns <= S->deadline_ns; p = &(*p)->wd_next) {
  }
  S->wd_next = *p;
  *p = S;
  S->watched = 1;
  if (wd_wake_ns == 0 || S->deadline_ns < wd_wake_ns) /* it would sleep past S's deadline */
    psoc_plat_cond_signal(&wd_cond);
  psoc_plat_mutex_unlock(&wd_mutex);
}

/* Take S off the list; afterwards the watchdog no longer touches it. */
static void wd_unwatch(psol_state *S) {
  psol_state **p;
  if (!wd_running) return;
  psoc_plat_mutex_lock(&wd_mutex);
  if (S->watched)
    for (p = &wd_list; *p; p = &(*p)->wd_next)
      if (*p == S) {
        *p = S->wd_next;
        break;
      }
  S->watched = 0;
  psoc_plat_mutex_unlock(&wd_mutex);
}

/* ---- instruction budget ------------------------------------------------ */

/* "instruction budget exceeded (N instructions)" and the like. */
static const char *limit_text(const psol_state *S, char *buf, size_t n) {
  switch (S->exceeded) {
  case LIMIT_MEMORY:
    snprintf(buf, n, "memory limit exceeded (%llu bytes)", (unsigned long long)S->limit);
    break;
  case LIMIT_TIME:
    snprintf(buf, n, "time limit exceeded (%lu ms)", (unsigned long)S->time_limit_ms);
    break;
  default:
    snprintf(buf, n, "instruction budget exceeded (%llu instructions)",
             (unsigned long long)S->ins_limit);
    break;
  }
  return buf;
}

/* Raise the error of an exceeded limit at the running line of the script.
** From now on every instruction fails, so pcall cannot swallow it. */
static int limit_error(lua_State *L, psol_state *S) {
  lua_Debug where;
  char msg[96];
  int level;
  lua_sethook(L, psol_hook, LUA_MASKCOUNT, 1);
  limit_text(S, msg, sizeof msg);
  /* the hooked function or a C function's caller; not the sandbox's own
  ** sort comparator */
  for (level = 0; level < 3 && lua_getstack(L, level, &where); level++)
    if (lua_getinfo(L, "Sl", &where) && where.currentline > 0 &&
        strcmp(where.source, "=(sort)") != 0) {
      lua_pushfstring(L, "%s:%d: %s", where.short_src, where.currentline, msg);
      return lua_error(L);
    }
  lua_pushstring(L, msg);
  return lua_error(L);
}

/* Whether a limit is exceeded now (noting what the watchdog and a
** failed allocation left behind). */
static int limit_hit(psol_state *S) {
  int late;
  if (S->exceeded) return 1;
  late = psoc_plat_flag_get(&S->timed_out) ||
         /* no watchdog thread: the clock, read here */
         (!wd_running && S->deadline_ns && S->depth > 0 && psoc_plat_now_ns() > S->deadline_ns);
  if (late) S->exceeded = LIMIT_TIME;
  return S->exceeded != LIMIT_NONE;
}

/* ---- the collector in a new state -----------------------------------------
** A sandboxed state mostly lives for one short evaluation: setting it up
** allocates only objects that stay alive (the libraries, the pso module:
** about 70 KB), and a material script then makes a few hundred KB. The
** incremental collector, started from a state of a few KB, would run a
** cycle each time memory doubled, marking and sweeping the libraries'
** objects three or four times per evaluation to free little (10% of psoc
** check's instructions over a library). So a new state starts with its
** collector stopped, and restarts it (as it is by default, with the same
** pause and step) once the state has allocated PSOL_GC_HOLD more bytes
** than its setup did (a quarter of the memory limit at most), checked by
** the count hook and at the start of each sandboxed call. The memory limit
** is unchanged: an allocation it refuses makes Lua run a full (emergency)
** collection and retry whether or not the collector is stopped (lmem.c),
** so a script runs out of memory exactly when its live data does not fit.
** Lua 5.1 and LuaJIT have no emergency collection, so there the collector
** runs from the start, as before. */

/* Before setup: stop the collector (where the version collects when the
** limit refuses). */
static void gc_stop(lua_State *L, psol_state *S) {
  if (!PSOL_COMPAT_EMERGENCY_GC || S->base) return;
  lua_gc(L, LUA_GCSTOP, 0);
  S->gc_hold = (size_t)-1;
}

/* After setup: restart it once the state has made that much more. */
static void gc_hold(psol_state *S) {
  size_t room = S->limit / 4 < PSOL_GC_HOLD ? S->limit / 4 : PSOL_GC_HOLD;
  if (S->gc_hold) S->gc_hold = S->used + room;
}

static void gc_release(lua_State *L, psol_state *S) {
  S->gc_hold = 0;
  lua_gc(L, LUA_GCRESTART, 0);
}

static void psol_hook(lua_State *L, lua_Debug *ar) {
  psol_state *S = state_of(L);
  (void)ar;
  if (S->depth == 0) return; /* a late forced hook after the call ended */
  if (S->gc_hold && S->used > S->gc_hold) gc_release(L, S);
  if (!limit_hit(S)) {
    S->ins_count += PSOL_HOOK_STEP;
    if (S->ins_count < S->ins_limit) return;
    S->exceeded = LIMIT_INSTRUCTIONS;
  }
  limit_error(L, S);
}

/* Charge 'cost' instructions for work done in C (the pattern matcher in
** sandbox_match.c, table and utf8 functions); raises when the budget is
** spent or the clock has run out. */
static void psol_charge(lua_State *L, uint64_t cost) {
  psol_state *S = state_of(L);
  if (S->depth == 0) return; /* not in a sandboxed call */
  if (!limit_hit(S)) {
    S->ins_count += cost < S->ins_limit ? cost : S->ins_limit;
    if (S->ins_count < S->ins_limit) return;
    S->exceeded = LIMIT_INSTRUCTIONS;
  }
  limit_error(L, S);
}

/* After a protected call inside the sandbox returned 'status': a memory
** error whose retry failed is the memory limit; any exceeded limit is
** raised again, so that no pcall swallows it. */
static void limit_check(lua_State *L, psol_state *S, int status) {
  if (status != LUA_OK && S->mem_refused && !S->exceeded) S->exceeded = LIMIT_MEMORY;
  if (limit_hit(S)) limit_error(L, S);
}

/* A new top-level call: full budgets, and the watchdog. */
static void budget_reset(lua_State *L, psol_state *S) {
  uint64_t now = psoc_plat_now_ns();
  S->ins_count = 0;
  S->exceeded = LIMIT_NONE;
  S->mem_refused = 0;
  psoc_plat_flag_set(&S->timed_out, 0);
  S->deadline_ns = now ? now + (uint64_t)S->time_limit_ms * 1000000u : 0;
  lua_sethook(L, psol_hook, LUA_MASKCOUNT,
              S->ins_limit < PSOL_HOOK_STEP ? (int)S->ins_limit : PSOL_HOOK_STEP);
  wd_watch(S);
}

/* ---- paths -------------------------------------------------------------- */

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

/* The roots in force: the options' roots, else the running script's
** directory (none for a string chunk without roots). */
static const psoc_confine_root *roots_of(const psol_state *S, size_t *n) {
  if (S->root_count) {
    *n = S->root_count;
    return S->roots;
  }
  *n = S->implicit.real ? 1 : 0;
  return &S->implicit;
}

static int place_of(const psol_state *S, const char *real) {
  size_t n;
  const psoc_confine_root *roots = roots_of(S, &n);
  return psoc_confine_place(roots, n, real);
}

static int resolve_confined(const psol_state *S, const char *path, char *out) {
  size_t n;
  const psoc_confine_root *roots = roots_of(S, &n);
  return psoc_confine_resolve(roots, n, path, out);
}

/* resolve_confined, and a file found opened for reading into 'file'
** (psoc_confine_open: through the roots' directory handles, opened on
** first use and closed when the top-level call ends). */
static int open_confined(psol_state *S, const char *path, char *out, psoc_confine_file *file) {
  size_t n = S->root_count ? S->root_count : S->implicit.real ? 1 : 0;
  psoc_confine_root *roots = S->root_count ? S->roots : &S->implicit;
  return psoc_confine_open(roots, n, path, (uint64_t)S->limit, out, file);
}

/* The bytes a read_file hook handed over, in a userdata whose __gc gives
** them back: a memory error between the hook and the copy into Lua
** cannot leak them. */
typedef struct psol_guard {
  psol_bytes bytes;
  void *ud;
  int live; /* bytes held, release not yet called */
  psoc_confine_file file; /* without the hook: the file found, open until read */
} psol_guard;

static const char guard_mt_key = 'g';
static const char guard_key = 'G';

static void guard_release(psol_guard *g) {
  if (g->live && g->bytes.release) g->bytes.release(g->ud, g->bytes.data);
  g->live = 0;
}

static int guard_gc(lua_State *L) {
  psol_guard *g = (psol_guard *)lua_touserdata(L, 1);
  guard_release(g);
  psoc_confine_file_close(&g->file);
  return 0;
}

/* Push a new, empty guard. */
static psol_guard *guard_new(lua_State *L, psol_state *S) {
  psol_guard *g = (psol_guard *)lua_newuserdata(L, sizeof *g);
  memset(g, 0, sizeof *g);
  g->ud = S->read_file_ud;
  lua_pushlightuserdata(L, (void *)&guard_mt_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_setmetatable(L, -2);
  return g;
}

/* Ask the read_file hook for the confined path 'real'; 1 when it
** supplied the bytes (now held by 'g'). */
static int guard_ask(psol_state *S, psol_guard *g, const char *real) {
  memset(&g->bytes, 0, sizeof g->bytes);
  if (!S->read_file || S->read_file(S->read_file_ud, real, &g->bytes) != 0) return 0;
  if (!g->bytes.data && g->bytes.size) { /* a broken answer: nothing to read */
    guard_release(g);
    return 0;
  }
  g->live = 1;
  return 1;
}

typedef struct psol_found {
  char real[PSOL_PATH_MAX];
  char shown[PSOL_PATH_MAX];
  psol_guard *guard; /* with a read_file hook the bytes it supplied, else the open file */
} psol_found;

/* Resolve the candidate 'path' into f->real: with a read_file hook only
** the name (the hook supplies the bytes), else also opening the file
** found (read_found reads it). A resolve_confined answer. */
static int candidate(psol_state *S, psol_found *f, const char *path) {
  if (S->read_file) return resolve_confined(S, path, f->real);
  return open_confined(S, path, f->real, &f->guard->file);
}

/* Is the candidate 'r' (candidate's answer for f->real) the file?
** From the file system: when it exists. With a read_file hook: when the
** hook supplies it (it need not exist on disk). */
static int candidate_found(psol_state *S, psol_found *f, int r) {
  if (!S->read_file) return r == PSOC_CONFINE_FOUND;
  return (r == PSOC_CONFINE_FOUND || r == PSOC_CONFINE_MISSING) && guard_ask(S, f->guard, f->real);
}

/* Resolve 'name' inside the roots: relative names against the running
** script's directory, then each root. Returns 1, or 0 with the reason
** pushed ("outside the material roots" for every path that leaves them,
** whether or not it exists; "not found (tried ...)"). */
static int resolve_file(lua_State *L, psol_state *S, const char *name, psol_found *f) {
  const psol_path *bases[64];
  size_t nbases = 0, i;
  int escaped = 0, tried_any = 0, r;
  luaL_Buffer tried;
  if (name[0] == '\0') {
    lua_pushliteral(L, "empty file name");
    return 0;
  }
  if (strlen(name) >= PSOL_PATH_MAX) {
    lua_pushliteral(L, "file name too long");
    return 0;
  }
  if (S->root_count == 0 && !S->implicit.real) {
    lua_pushliteral(L, "no material roots to look in (set psol_options.roots)");
    return 0;
  }
  if (name[0] == '/') {
    r = candidate(S, f, name);
    if (candidate_found(S, f, r)) {
      snprintf(f->shown, sizeof f->shown, "%s", name);
      return 1;
    }
    if (r == PSOC_CONFINE_LEAVES) lua_pushliteral(L, "outside the material roots");
    else if (r == PSOC_CONFINE_MISSING || r == PSOC_CONFINE_FOUND)
      lua_pushfstring(L, "not found (tried %s)", name);
    else lua_pushstring(L, psoc_plat_strerror(r));
    return 0;
  }
  if (S->script.real && place_of(S, S->script.real) == PSOC_CONFINE_INSIDE) bases[nbases++] = &S->script;
  if (S->root_count == 0) bases[nbases++] = &S->implicit;
  for (i = 0; i < S->root_count && nbases < sizeof bases / sizeof bases[0]; i++)
    bases[nbases++] = &S->roots[i];
  luaL_buffinit(L, &tried);
  for (i = 0; i < nbases; i++) {
    char path[2 * PSOL_PATH_MAX];
    size_t j;
    for (j = 0; j < i; j++) /* the script directory is often a root too */
      if (strcmp(bases[j]->real, bases[i]->real) == 0) break;
    if (j < i) continue;
    psoc_confine_join(path, sizeof path, bases[i]->real, name);
    r = candidate(S, f, path);
    if (r == PSOC_CONFINE_LEAVES) {
      escaped = 1;
      continue;
    }
    if (!candidate_found(S, f, r)) {
      psoc_confine_join(path, sizeof path, bases[i]->shown, name);
      if (tried_any++) luaL_addstring(&tried, ", ");
      luaL_addstring(&tried, path);
      continue;
    }
    psoc_confine_join(f->shown, sizeof f->shown, bases[i]->shown, name);
    luaL_pushresult(&tried);
    lua_pop(L, 1);
    return 1;
  }
  luaL_pushresult(&tried);
  if (escaped)
    lua_pushliteral(L, "outside the material roots");
  else
    lua_pushfstring(L, "not found (tried %s)", lua_tostring(L, -1));
  lua_remove(L, -2);
  return 0;
}

static void *userdata_alloc(void *ud, size_t size) {
  return lua_newuserdata((lua_State *)ud, size); /* raises on a memory error */
}

/* Push the contents of the regular file 'real'. Returns 1, or 0 with the
** reason pushed. Never blocks (a FIFO is refused at once). May raise a
** memory error (nothing is left open then: psoc_confine_read allocates
** before it opens). */
static int push_file(lua_State *L, psol_state *S, const char *real) {
  void *buf;
  size_t got;
  int top = lua_gettop(L);
  int e = psoc_confine_read(real, (uint64_t)S->limit, userdata_alloc, L, &buf, &got);
  if (e == 0) lua_pushlstring(L, (const char *)buf, got);
  else lua_pushstring(L, psoc_confine_strerror(e));
  if (lua_gettop(L) > top + 1) lua_remove(L, -2); /* the buffer */
  return e == 0;
}

/* ---- the files an evaluation read ----------------------------------------- */

/* Registry key of { [i] = path, [path] = { hash, size } as a userdata }:
** every file read in the state, once, in the order first read. */
static const char files_key = 'f';

/* Note that 'real' was read: its bytes are the string at the top. Only
** in the states of psol_evaluate_*, which report them (psol_result.files);
** a state of psol_newstate has no way to ask, so its reads cost no hash. */
static void record_file(lua_State *L, const char *real) {
  size_t size;
  const char *data;
  uint64_t *rec;
  if (!state_of(L)->record_files) return;
  data = lua_tolstring(L, -1, &size);
  lua_pushlightuserdata(L, (void *)&files_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushstring(L, real);
  lua_pushvalue(L, -1);
  lua_rawget(L, -3);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    rec = (uint64_t *)lua_newuserdata(L, 2 * sizeof *rec);
    rec[0] = psoc_xxh3(data, size);
    rec[1] = (uint64_t)size;
    lua_pushvalue(L, -2);
    lua_rawseti(L, -4, (int)lua_rawlen(L, -4) + 1);
    lua_rawset(L, -3);
  } else {
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
}

/* Push the contents of the file 'g' holds open (psoc_confine_open) and
** close it. 1, or 0 with the reason pushed. May raise a memory error
** (the guard closes the file then). */
static int push_opened(lua_State *L, psol_guard *g) {
  void *buf;
  size_t got;
  int top = lua_gettop(L);
  int e = psoc_confine_read_file(&g->file, userdata_alloc, L, &buf, &got);
  if (e == 0) lua_pushlstring(L, (const char *)buf, got);
  else lua_pushstring(L, psoc_confine_strerror(e));
  if (lua_gettop(L) > top + 1) lua_remove(L, -2); /* the buffer */
  return e == 0;
}

/* Push the contents of the file resolve_file found (from the hook or the
** file system) and record it. 1, or 0 with the reason pushed. */
static int read_found(lua_State *L, psol_state *S, psol_found *f) {
  psol_guard *g = f->guard;
  if (!S->read_file) {
    if (!push_opened(L, g)) return 0;
  } else if (g->bytes.size > S->limit) {
    guard_release(g);
    lua_pushliteral(L, "larger than the memory limit");
    return 0;
  } else {
    lua_pushlstring(L, (const char *)g->bytes.data, g->bytes.size); /* may raise: g frees */
    guard_release(g);
  }
  record_file(L, f->real);
  return 1;
}

/* Resolve 'name' inside the roots and push its contents. 1, or 0 with
** the reason pushed; a failure is noted for the evaluation's diagnostic.
** The state's one guard holds the file (or the hook's bytes) between
** finding and reading it: no Lua code runs in between, so one is enough;
** what a memory error left in it is let go here, by the next call, or by
** its __gc when the state closes. */
static int load_file(lua_State *L, psol_state *S, const char *name, psol_found *f) {
  int ok;
  f->guard = S->guard;
  guard_release(f->guard);
  psoc_confine_file_close(&f->guard->file);
  ok = resolve_file(L, S, name, f) && read_found(L, S, f);
  psoc_confine_file_close(&f->guard->file); /* a candidate found but not read */
  if (!ok) S->file_failed = 1;
  return ok;
}

/* ---- the chunk cache ------------------------------------------------------
** Every evaluation runs in a fresh state, so without help each one would
** compile the library's shared modules (and, on hot reload, its own script)
** from source again. The process keeps the compiled form instead: for a
** chunk loaded by require or as a top-level script, keyed by the XXH3-64 of
** its source text and chunk name, the lua_dump bytes this process produced
** by compiling exactly that text. A later state that loads the same text
** under the same name gets a lua_load of those bytes in mode "b" (about 7x
** cheaper than compiling); the text and name are compared byte for byte, so
** a hash collision can only cost a compile. Binary chunks never come from
** anywhere else: scripts and files stay text only. An edited file is other
** text, hence another entry (reload sees every edit). A chunk is dumped on
** the second time its text is seen (a script checked once costs only its
** hash). Nothing of a state is shared: each load makes new functions with
** the loading state's own globals; the cache holds bytes, not Lua values.
** The cache is bounded (PSOL_CHUNK_CACHE_BYTES: past it, it starts over)
** and guarded by a mutex (states may run on different threads). */

#define PSOL_CHUNK_CACHE_BYTES ((size_t)32 << 20)
#define PSOL_CHUNK_CACHE_BUCKETS 1024u

typedef struct cc_entry {
  struct cc_entry *next;
  uint64_t key;
  char *text;          /* name, NUL, source; NULL: seen once, not dumped yet */
  size_t name_len, src_len;
  unsigned char *code; /* the dump */
  size_t code_len;
} cc_entry;

static psoc_plat_once cc_once = PSOC_PLAT_ONCE_INIT;
static psoc_plat_mutex cc_mutex;
static int cc_ready;
static cc_entry *cc_buckets[PSOL_CHUNK_CACHE_BUCKETS];
static size_t cc_bytes;
static uint64_t cc_hits, cc_misses;

static void cc_init(void) { cc_ready = psoc_plat_mutex_init(&cc_mutex) == 0; }

static void cc_free_entry(cc_entry *e) {
  free(e->text);
  free(e->code);
  free(e);
}

/* (locked) */
static void cc_clear_locked(void) {
  size_t i;
  for (i = 0; i < PSOL_CHUNK_CACHE_BUCKETS; i++) {
    cc_entry *e = cc_buckets[i];
    while (e) {
      cc_entry *next = e->next;
      cc_free_entry(e);
      e = next;
    }
    cc_buckets[i] = NULL;
  }
  cc_bytes = 0;
}

static uint64_t cc_key(const char *name, size_t name_len, const char *src, size_t len) {
  psoc_xxh3_state st;
  psoc_xxh3_reset(&st);
  psoc_xxh3_update(&st, &len, sizeof len);
  psoc_xxh3_update(&st, src, len);
  psoc_xxh3_update(&st, name, name_len + 1);
  return psoc_xxh3_digest(&st);
}

/* (locked) The entry of key, or NULL. */
static cc_entry *cc_find_locked(uint64_t key) {
  cc_entry *e;
  for (e = cc_buckets[key % PSOL_CHUNK_CACHE_BUCKETS]; e; e = e->next)
    if (e->key == key) return e;
  return NULL;
}

static int cc_same(const cc_entry *e, const char *name, size_t name_len, const char *src,
                   size_t len) {
  return e->text && e->name_len == name_len && e->src_len == len &&
         memcmp(e->text, name, name_len) == 0 && memcmp(e->text + name_len + 1, src, len) == 0;
}

typedef struct cc_buf {
  unsigned char *p;
  size_t n, cap;
  int failed;
} cc_buf;

static int cc_writer(lua_State *L, const void *data, size_t size, void *ud) {
  cc_buf *b = (cc_buf *)ud;
  (void)L;
  if (b->failed) return 1;
  if (size > b->cap - b->n) {
    size_t cap = b->cap ? b->cap : 4096;
    unsigned char *p;
    while (cap - b->n < size) {
      if (cap > ((size_t)-1) / 2) {
        b->failed = 1;
        return 1;
      }
      cap *= 2;
    }
    p = (unsigned char *)realloc(b->p, cap);
    if (!p) {
      b->failed = 1;
      return 1;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, data, size);
  b->n += size;
  return 0;
}

/* A copy of the cached dump of (name, src), or NULL; *key gets the key and
** *seen whether the text was seen before. */
static unsigned char *cc_lookup(const char *name, size_t name_len, const char *src, size_t len,
                                uint64_t *key, size_t *code_len, int *seen) {
  unsigned char *copy = NULL;
  cc_entry *e;
  *key = cc_key(name, name_len, src, len);
  *seen = 0;
  psoc_plat_once_run(&cc_once, cc_init);
  if (!cc_ready) return NULL;
  psoc_plat_mutex_lock(&cc_mutex);
  e = cc_find_locked(*key);
  if (e) {
    *seen = 1;
    if (cc_same(e, name, name_len, src, len) && (copy = (unsigned char *)malloc(e->code_len))) {
      memcpy(copy, e->code, e->code_len);
      *code_len = e->code_len;
      cc_hits++;
    }
  }
  if (!copy) cc_misses++;
  psoc_plat_mutex_unlock(&cc_mutex);
  return copy;
}

/* Remember that key was seen (seen == 0), or store the dump of the
** function on the top of L compiled from (name, src). Failures only mean
** no caching. */
static void cc_store(lua_State *L, uint64_t key, int seen, const char *name, size_t name_len,
                     const char *src, size_t len) {
  cc_buf b = { NULL, 0, 0, 0 };
  cc_entry *e, *fresh;
  char *text = NULL;
  if (!cc_ready) return;
  if (seen) {
    if (psol_compat_dump(L, cc_writer, &b) != 0 || b.failed || !b.n ||
        name_len + len + 1 < len || !(text = (char *)malloc(name_len + len + 2))) {
      free(b.p);
      return;
    }
    memcpy(text, name, name_len + 1);
    memcpy(text + name_len + 1, src, len);
    text[name_len + 1 + len] = '\0';
  }
  fresh = (cc_entry *)calloc(1, sizeof *fresh);
  if (!fresh) {
    free(b.p);
    free(text);
    return;
  }
  fresh->key = key;
  fresh->text = text;
  fresh->name_len = name_len;
  fresh->src_len = len;
  fresh->code = b.p;
  fresh->code_len = b.n;
  psoc_plat_mutex_lock(&cc_mutex);
  if (cc_bytes + sizeof *fresh + b.n + (text ? name_len + len : 0) > PSOL_CHUNK_CACHE_BYTES)
    cc_clear_locked();
  e = cc_find_locked(key);
  if (e && (e->text || !text)) {
    cc_free_entry(fresh); /* another state got there first, or nothing new */
  } else {
    if (e) { /* replace the seen-once mark */
      cc_entry **p = &cc_buckets[key % PSOL_CHUNK_CACHE_BUCKETS];
      while (*p != e) p = &(*p)->next;
      *p = e->next;
      cc_bytes -= sizeof *e;
      cc_free_entry(e);
    }
    fresh->next = cc_buckets[key % PSOL_CHUNK_CACHE_BUCKETS];
    cc_buckets[key % PSOL_CHUNK_CACHE_BUCKETS] = fresh;
    cc_bytes += sizeof *fresh + b.n + (text ? name_len + len : 0);
  }
  psoc_plat_mutex_unlock(&cc_mutex);
}

void psol_chunk_cache_stats(uint64_t *hits, uint64_t *misses, size_t *bytes) {
  psoc_plat_once_run(&cc_once, cc_init);
  if (cc_ready) psoc_plat_mutex_lock(&cc_mutex);
  if (hits) *hits = cc_hits;
  if (misses) *misses = cc_misses;
  if (bytes) *bytes = cc_bytes;
  if (cc_ready) psoc_plat_mutex_unlock(&cc_mutex);
}

void psol_chunk_cache_clear(void) {
  psoc_plat_once_run(&cc_once, cc_init);
  if (!cc_ready) return;
  psoc_plat_mutex_lock(&cc_mutex);
  cc_clear_locked();
  cc_hits = cc_misses = 0;
  psoc_plat_mutex_unlock(&cc_mutex);
}

/* ---- text-only loading -------------------------------------------------- */

/* Load a text chunk; binary chunks are refused whatever the Lua version.
** Returns a lua_load status with the function or a message pushed.
** cache: go through the chunk cache (require and top-level scripts; not
** the script's own load(), whose strings are made at run time). */
static int load_text(lua_State *L, const char *src, size_t len, const char *chunkname,
                     int cache) {
  uint64_t key;
  size_t name_len, code_len = 0;
  unsigned char *code;
  int seen, status;
  if (len > 0 && src[0] == '\x1b') {
    const char *name = chunkname;
    if (name[0] == '@' || name[0] == '=') lua_pushfstring(L, "%s: ", name + 1);
    else lua_pushliteral(L, "");
    lua_pushliteral(L, "attempt to load a binary chunk (only Lua source is allowed in "
                       "material scripts)");
    lua_concat(L, 2);
    return LUA_ERRSYNTAX;
  }
  pso_remember_source(L, chunkname, src, len); /* key lines in pso errors */
  if (!cache || (state_of(L)->flags & PSOL_NO_CHUNK_CACHE))
    return psol_compat_loadtext(L, src, len, chunkname);
  name_len = strlen(chunkname);
  code = cc_lookup(chunkname, name_len, src, len, &key, &code_len, &seen);
  if (code) {
    status = psol_compat_loadbinary(L, (const char *)code, code_len, chunkname);
    free(code);
    if (status == LUA_OK || status == LUA_ERRMEM) return status;
    lua_pop(L, 1); /* cannot happen (our own dump): compile instead */
  }
  status = psol_compat_loadtext(L, src, len, chunkname);
  if (status == LUA_OK) cc_store(L, key, seen, chunkname, name_len, src, len);
  return status;
}

/* ---- the sandboxed base functions ---------------------------------------- */

/* Does 'msg' start with a position ("file:12: ") on its first line? */
static int has_position(const char *msg) {
  const char *p;
  for (p = msg; *p && *p != '\n'; p++) {
    if (p[0] == ':' && p[1] >= '0' && p[1] <= '9') {
      const char *q = p + 1;
      while (*q >= '0' && *q <= '9') q++;
      if (q[0] == ':' && q[1] == ' ') return 1;
    }
  }
  return 0;
}

/* Rethrow the error of a function a wrapper called: at the wrapper's
** caller's line (the wrapped function named its caller, the wrapper), and
** with 'name' for the "?" of argument errors. */
static int rethrow(lua_State *L, const char *name) {
  if (lua_type(L, -1) == LUA_TSTRING) {
    const char *msg = lua_tostring(L, -1), *q = name ? strstr(msg, "'?'") : NULL;
    if (q) {
      lua_pushlstring(L, msg, (size_t)(q - msg));
      lua_pushfstring(L, "'%s'%s", name, q + 3);
      lua_concat(L, 2);
      lua_remove(L, -2);
      msg = lua_tostring(L, -1);
    }
    if (!has_position(msg)) {
      luaL_where(L, 1);
      lua_insert(L, -2);
      lua_concat(L, 2);
    }
  }
  return lua_error(L);
}

/* Call the wrapped function (upvalue 1) with the arguments on the stack;
** its errors are rethrown as if 'name' had raised them at the caller. */
static int call_wrapped(lua_State *L, const char *name, int nresults) {
  int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  if (lua_pcall(L, n, nresults, 0) != LUA_OK) return rethrow(L, name);
  return lua_gettop(L);
}


/* load(chunk [, chunkname [, mode [, env]]]): text chunks only. */
static int sb_load(lua_State *L) {
  size_t len;
  const char *src, *chunkname, *mode = luaL_optstring(L, 3, "bt");
  int has_env = !lua_isnone(L, 4);
  int status;
  if (lua_type(L, 1) == LUA_TSTRING) {
    src = lua_tolstring(L, 1, &len);
    chunkname = luaL_optstring(L, 2, src);
  } else {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    chunkname = luaL_optstring(L, 2, "=(load)");
    lua_settop(L, 4);
    {
      /* the pieces go into a table (each charged), then one buffer: no
      ** copy of everything read so far per piece */
      luaL_Buffer b;
      int pieces = 0, k;
      lua_newtable(L); /* 5 */
      for (;;) {
        lua_pushvalue(L, 1);
        lua_call(L, 0, 1);
        if (lua_isnil(L, -1) || (lua_type(L, -1) == LUA_TSTRING && lua_rawlen(L, -1) == 0)) {
          lua_pop(L, 1);
          break;
        }
        if (lua_type(L, -1) != LUA_TSTRING)
          return luaL_error(L, "load: reader function must return a string");
        if (pieces == INT_MAX - 1) return luaL_error(L, "load: too many pieces");
        psol_charge(L, 1 + (lua_rawlen(L, -1) >> 4));
        lua_rawseti(L, 5, ++pieces);
      }
      luaL_buffinit(L, &b);
      for (k = 1; k <= pieces; k++) {
        lua_rawgeti(L, 5, k);
        luaL_addvalue(&b);
      }
      luaL_pushresult(&b);
    }
    src = lua_tolstring(L, -1, &len);
  }
  if (strchr(mode, 't') == NULL) {
    lua_pushnil(L);
    lua_pushfstring(L, "attempt to load a text chunk (mode is '%s'); binary chunks are not "
                       "allowed in material scripts", mode);
    return 2;
  }
  status = load_text(L, src, len, chunkname, 0);
  if (status != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  if (has_env) {
    lua_pushvalue(L, 4);
    psol_compat_setenv(L, -2);
  }
  return 1;
}

/* print(...): to options.log, tab-separated, with a newline; at most
** log_limit bytes per state, then one line saying the rest was dropped. */
static int sb_print(lua_State *L) {
  psol_state *S = state_of(L);
  int n = lua_gettop(L), i;
  luaL_Buffer b;
  size_t len;
  const char *text;
  if (!S->log || S->log_used > S->log_limit) return 0;
  psol_charge(L, (uint64_t)n);
  luaL_buffinit(L, &b);
  for (i = 1; i <= n; i++) {
    if (i > 1) luaL_addchar(&b, '\t');
    luaL_tolstring(L, i, NULL);
    luaL_addvalue(&b);
  }
  luaL_addchar(&b, '\n');
  luaL_pushresult(&b);
  text = lua_tolstring(L, -1, &len);
  if (len <= S->log_limit - S->log_used) {
    S->log_used += len;
    S->log(S->ud, text, len);
  } else {
    char note[128];
    int k = snprintf(note, sizeof note, "(print output truncated: more than %llu bytes)\n",
                     (unsigned long long)S->log_limit);
    S->log_used = S->log_limit + 1; /* nothing more from this state */
    S->log(S->ud, note, k > 0 ? (size_t)k : 0);
  }
  return 0;
}

/* collectgarbage("count") only. */
static int sb_collectgarbage(lua_State *L) {
  const char *opt = luaL_optstring(L, 1, "collect");
  if (strcmp(opt, "count") != 0)
    return luaL_error(L, "collectgarbage: only \"count\" is allowed in material scripts "
                         "(got \"%s\")", opt);
  lua_pushnumber(L, (lua_Number)lua_gc(L, LUA_GCCOUNT, 0) +
                        (lua_Number)lua_gc(L, LUA_GCCOUNTB, 0) / 1024.0);
  return 1;
}

/* string.rep with the result size checked first: some versions loop
** without allocating when the pieces are empty (string.rep("", 1e15)). */
static int sb_string_rep(lua_State *L) {
  psol_state *S = state_of(L);
  size_t l, lsep = 0;
  lua_Number n;
  luaL_checklstring(L, 1, &l);
  n = luaL_checknumber(L, 2);
  if (!lua_isnoneornil(L, 3)) luaL_checklstring(L, 3, &lsep);
  if (n != n) return luaL_argerror(L, 2, "number has no integer representation");
  if (n >= 1) {
    lua_Number total = n * (lua_Number)l + (n - 1) * (lua_Number)lsep;
    if (total <= 0) {
      lua_pushliteral(L, "");
      return 1;
    }
    if (total > (lua_Number)S->limit) {
      char msg[128];
      if (!S->exceeded) S->exceeded = LIMIT_MEMORY;
      snprintf(msg, sizeof msg, "memory limit exceeded (%llu bytes): string.rep would make a "
               "%.0f-byte string", (unsigned long long)S->limit, (double)total);
      return luaL_error(L, "%s", msg);
    }
  }
  return call_wrapped(L, "string.rep", 1);
}

/* ---- protected calls inside scripts ------------------------------------- */

/* pcall(f, ...): as Lua's, except that an exceeded limit is raised again
** instead of returned (nothing of the script runs past a limit). */
static int sb_pcall(lua_State *L) {
  psol_state *S = state_of(L);
  int status;
  luaL_checkany(L, 1);
  status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  limit_check(L, S, status);
  if (status != LUA_OK) S->file_failed = 0; /* caught: not what the evaluation ends with */
  lua_pushboolean(L, status == LUA_OK);
  lua_insert(L, 1);
  return lua_gettop(L);
}

/* The message handler xpcall installs: the script's handler (upvalue 1),
** unless a limit was hit. A limit error raised by the count hook reaches
** the handler with hooks off, so the script's handler would run without
** budget or clock: it is not called at all then. */
static int sb_xpcall_handler(lua_State *L) {
  psol_state *S = state_of(L);
  if (limit_hit(S)) return 1; /* the limit's message as it is */
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

/* xpcall(f, handler, ...) */
static int sb_xpcall(lua_State *L) {
  psol_state *S = state_of(L);
  int n = lua_gettop(L), status;
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushvalue(L, 2);
  lua_pushcclosure(L, sb_xpcall_handler, 1);
  lua_replace(L, 2); /* f, guarded handler, args... */
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_replace(L, 1);
  lua_replace(L, 2); /* guarded handler, f, args... */
  status = lua_pcall(L, n - 2, LUA_MULTRET, 1);
  limit_check(L, S, status);
  if (status != LUA_OK) S->file_failed = 0;
  lua_pushboolean(L, status == LUA_OK);
  lua_replace(L, 1); /* over the handler */
  return lua_gettop(L);
}

/* ---- metatables ------------------------------------------------------------ */

/* The metatable setmetatable installs is a snapshot of the script's
** table (its "__" fields), holding the script's table under this key for
** getmetatable. So nothing can be added to a live metatable later: not
** __gc (finalizers run with hooks off) and not weak keys (__mode "k":
** the collector's ephemeron pass over long key -> value chains is
** quadratic and cannot be interrupted). */
static const char script_mt_key = 'm';

static int mode_has(const char *mode, int c) { return strchr(mode, c) != NULL; }

static int sb_setmetatable(lua_State *L) {
  lua_settop(L, 2);
  if (lua_type(L, 1) == LUA_TTABLE && lua_type(L, 2) == LUA_TTABLE) {
    unsigned fields = 0;
    lua_newtable(L); /* 3: the snapshot */
    lua_pushnil(L);
    while (lua_next(L, 2)) {
      if (++fields % 64 == 0) psol_charge(L, 64);
      if (lua_type(L, -2) == LUA_TSTRING && strncmp(lua_tostring(L, -2), "__", 2) == 0) {
        const char *key = lua_tostring(L, -2);
        if (strcmp(key, "__gc") == 0)
          return luaL_error(L, "setmetatable: __gc metamethods are not allowed in material "
                               "scripts");
        if (strcmp(key, "__mode") == 0 && lua_type(L, -1) == LUA_TSTRING &&
            mode_has(lua_tostring(L, -1), 'k') && !mode_has(lua_tostring(L, -1), 'v'))
          return luaL_error(L, "setmetatable: weak keys (__mode \"k\") are not allowed in "
                               "material scripts (use \"kv\" or \"v\")");
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, 3);
      } else {
        lua_pop(L, 1);
      }
    }
    lua_pushlightuserdata(L, (void *)&script_mt_key);
    lua_pushvalue(L, 2);
    lua_rawset(L, 3);
    lua_replace(L, 2);
  }
  return call_wrapped(L, "setmetatable", 1);
}

/* getmetatable that hides the metatables of userdata (the module's), whose
** __gc a script could otherwise replace, and answers the script's own
** table for a snapshot. */
static int sb_getmetatable(lua_State *L) {
  luaL_checkany(L, 1);
  if (lua_type(L, 1) == LUA_TUSERDATA) {
    if (!lua_getmetatable(L, 1)) return 0;
    lua_pushliteral(L, "__metatable");
    lua_rawget(L, -2);
    return 1; /* the protected value, or nil */
  }
  if (lua_type(L, 1) == LUA_TTABLE) {
    if (!lua_getmetatable(L, 1)) return 0;
    lua_pushliteral(L, "__metatable");
    lua_rawget(L, -2);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
    lua_pushlightuserdata(L, (void *)&script_mt_key);
    lua_rawget(L, -2);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
    return 1;
  }
  return call_wrapped(L, "getmetatable", LUA_MULTRET);
}

/* ---- table functions that do their work in our loops ----------------------
** Each reads the length once (a __len that answers differently for an
** estimate and for the work cannot lie its way past the budget) and
** charges every element as it goes; the charge also polls the clock. */

#define CHARGE_BATCH 64

static void check_table(lua_State *L, int arg) {
  if (lua_type(L, arg) != LUA_TTABLE)
    luaL_error(L, "bad argument #%d to '%s' (table expected, got %s)", arg,
               lua_tostring(L, lua_upvalueindex(1)), luaL_typename(L, arg));
}

static const char *fname(lua_State *L) { return lua_tostring(L, lua_upvalueindex(1)); }

static lua_Integer checkint(lua_State *L, int arg) {
  lua_Number n;
  int64_t v;
  if (lua_type(L, arg) != LUA_TNUMBER && !lua_isnumber(L, arg))
    luaL_error(L, "bad argument #%d to '%s' (number expected, got %s)", arg, fname(L),
               luaL_typename(L, arg));
  n = lua_tonumber(L, arg);
  if (lua_type(L, arg) == LUA_TNUMBER && pso_compat_tointeger(L, arg, &v)) return (lua_Integer)v;
  if (!(n == floor(n)) || n < -9.2e18 || n > 9.2e18)
    luaL_error(L, "bad argument #%d to '%s' (number has no integer representation)", arg,
               fname(L));
  return (lua_Integer)n;
}

static lua_Integer optint(lua_State *L, int arg, lua_Integer def) {
  return lua_isnoneornil(L, arg) ? def : checkint(L, arg);
}

static lua_Integer length_of(lua_State *L, int idx) {
  lua_Number n = psol_compat_len(L, idx);
  if (!(n == floor(n)) || n < -9.2e18 || n > 9.2e18)
    luaL_error(L, "object length is not an integer");
  return (lua_Integer)n;
}

/* Move t[from] to t[to] (one element, charged by the batch). */
static void move1(lua_State *L, int src, lua_Integer from, int dst, lua_Integer to,
                  unsigned *batch) {
  if (++*batch == CHARGE_BATCH) {
    *batch = 0;
    psol_charge(L, CHARGE_BATCH);
  }
  psol_compat_geti(L, src, (lua_Number)from);
  psol_compat_seti(L, dst, (lua_Number)to);
}

static int sb_table_insert(lua_State *L) {
  lua_Integer e, pos, i;
  unsigned batch = 0;
  check_table(L, 1);
  e = length_of(L, 1) + 1; /* first empty element */
  switch (lua_gettop(L)) {
  case 2: pos = e; break;
  case 3:
    pos = checkint(L, 2);
    if (PSOL_COMPAT_TABLE_POS_CHECKS && (pos < 1 || pos > e))
      return luaL_error(L, "bad argument #2 to '%s' (position out of bounds)", fname(L));
    if (pos > e) e = pos; /* 5.1 */
    psol_charge(L, 1);
    for (i = e; i > pos; i--) move1(L, 1, i - 1, 1, i, &batch);
    break;
  default: return luaL_error(L, "wrong number of arguments to 'insert'");
  }
  psol_compat_seti(L, 1, (lua_Number)pos);
  return 0;
}

static int sb_table_remove(lua_State *L) {
  lua_Integer size, pos;
  unsigned batch = 0;
  check_table(L, 1);
  size = length_of(L, 1);
  pos = optint(L, 2, size);
  if (!PSOL_COMPAT_TABLE_POS_CHECKS && (size == 0 || pos < 1 || pos > size)) return 0;
  if (!lua_isnoneornil(L, 2) && pos != size && (pos < 1 || pos > size + 1))
    return luaL_error(L, "bad argument #2 to '%s' (position out of bounds)", fname(L));
  psol_charge(L, 1);
  psol_compat_geti(L, 1, (lua_Number)pos);
  for (; pos < size; pos++) move1(L, 1, pos + 1, 1, pos, &batch);
  lua_pushnil(L);
  psol_compat_seti(L, 1, (lua_Number)pos);
  return 1;
}

/* table.move(a1, f, e, t [, a2]) (5.3+). Each access may walk a long hash
** chain (colliding integer keys): the charge per element polls the clock. */
static int sb_table_move(lua_State *L) {
  lua_Integer f = checkint(L, 2), e = checkint(L, 3), t = checkint(L, 4), i, n;
  int tt = !lua_isnoneornil(L, 5) ? 5 : 1;
  unsigned batch = 0;
  check_table(L, 1);
  check_table(L, tt);
  if (e >= f) {
    if ((lua_Number)e - (lua_Number)f >= 9.2e18)
      return luaL_error(L, "bad argument #3 to '%s' (too many elements to move)", fname(L));
    n = e - f + 1;
    if ((lua_Number)t + (lua_Number)n >= 9.2e18)
      return luaL_error(L, "bad argument #4 to '%s' (destination wrap around)", fname(L));
    psol_charge(L, 1);
    if (t > e || t <= f || (tt != 1 && !lua_rawequal(L, 1, tt)))
      for (i = 0; i < n; i++) {
        move1(L, 1, f + i, tt, t + i, &batch);
        if (psoc_plat_flag_get(&state_of(L)->timed_out)) psol_charge(L, 0);
      }
    else
      for (i = n - 1; i >= 0; i--) {
        move1(L, 1, f + i, tt, t + i, &batch);
        if (psoc_plat_flag_get(&state_of(L)->timed_out)) psol_charge(L, 0);
      }
  }
  lua_pushvalue(L, tt);
  return 1;
}

static int sb_table_concat(lua_State *L) {
  luaL_Buffer b;
  size_t lsep;
  const char *sep = luaL_optlstring(L, 2, "", &lsep);
  lua_Integer i, last;
  unsigned batch = 0;
  check_table(L, 1);
  i = optint(L, 3, 1);
  last = lua_isnoneornil(L, 4) ? length_of(L, 1) : checkint(L, 4);
  luaL_buffinit(L, &b);
  for (; i <= last; i++) {
    if (++batch == CHARGE_BATCH) {
      batch = 0;
      psol_charge(L, CHARGE_BATCH);
    }
    psol_compat_geti(L, 1, (lua_Number)i);
    if (!lua_isstring(L, -1))
      return luaL_error(L, "invalid value (at index %d) in table for 'concat'", (int)i);
    luaL_addvalue(&b);
    if (i == last) break;
    luaL_addlstring(&b, sep, lsep);
  }
  luaL_pushresult(&b);
  return 1;
}

/* table.unpack / unpack: charged by the values it pushes. */
static int sb_unpack(lua_State *L) {
  lua_Integer i, e;
  lua_Number n;
  check_table(L, 1);
  i = optint(L, 2, 1);
  e = lua_isnoneornil(L, 3) ? length_of(L, 1) : checkint(L, 3);
  if (i > e) return 0;
  n = (lua_Number)e - (lua_Number)i + 1;
  if (n >= (lua_Number)INT_MAX || !lua_checkstack(L, (int)n))
    return luaL_error(L, "too many results to unpack");
  psol_charge(L, 1 + (uint64_t)n);
  for (; i < e; i++) psol_compat_geti(L, 1, (lua_Number)i);
  psol_compat_geti(L, 1, (lua_Number)e);
  return (int)n;
}

/* ---- declaration sites ----------------------------------------------------- */

/* Registry key of a weak-keyed table: pipeline -> { source, line } of the
** pso.graphics/mesh/compute/derive call that made it. */
static const char where_key = 'w';

/* Wraps a pso declaration function (upvalue 1): calls it, records where
** the pipeline it returns was declared, and keeps its errors at the
** script's line (the module names its caller's line, now this wrapper's). */
static int sb_declare(lua_State *L) {
  int n = lua_gettop(L);
  lua_Debug ar;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  if (lua_pcall(L, n, 1, 0) != LUA_OK) return rethrow(L, NULL);
  if (lua_type(L, -1) == LUA_TUSERDATA && lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) &&
      ar.currentline > 0) {
    lua_pushlightuserdata(L, (void *)&where_key);
    lua_rawget(L, LUA_REGISTRYINDEX);
    if (lua_istable(L, -1)) {
      lua_pushvalue(L, -2);
      lua_createtable(L, 2, 0);
      lua_pushstring(L, ar.source[0] == '@' || ar.source[0] == '=' ? ar.source + 1 : ar.short_src);
      lua_rawseti(L, -2, 1);
      lua_pushnumber(L, (lua_Number)ar.currentline);
      lua_rawseti(L, -2, 2);
      lua_rawset(L, -3);
    }
    lua_pop(L, 1);
  }
  return 1;
}

/* Wrap the declaration functions of the module table at the top. */
static void wrap_module(lua_State *L) {
  static const char *const names[] = { "graphics", "mesh", "compute", "derive", NULL };
  int i;
  lua_pushlightuserdata(L, (void *)&where_key);
  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
  if (!lua_istable(L, -1)) return;
  for (i = 0; names[i]; i++) {
    lua_getfield(L, -1, names[i]);
    if (lua_type(L, -1) == LUA_TFUNCTION) {
      lua_pushcclosure(L, sb_declare, 1);
      lua_setfield(L, -2, names[i]);
    } else {
      lua_pop(L, 1);
    }
  }
}

int psol_pipeline_where(lua_State *L, int idx, char *source, size_t sourcelen) {
  int line = 0;
  if (source && sourcelen) source[0] = '\0';
  idx = lua_absindex(L, idx);
  lua_pushlightuserdata(L, (void *)&where_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  if (lua_istable(L, -1)) {
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    if (lua_istable(L, -1)) {
      lua_rawgeti(L, -1, 1);
      lua_rawgeti(L, -2, 2);
      line = (int)lua_tonumber(L, -1);
      if (source && sourcelen && lua_tostring(L, -2))
        snprintf(source, sourcelen, "%s", lua_tostring(L, -2));
      lua_pop(L, 2);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return line;
}

/* ---- table and utf8 functions with a cost ----------------------------------- */

/* What a call will cost, from its arguments: the bytes it scans or the
** values it makes, all in C where no count hook fires. */
enum { COST_SORT, COST_SCAN, COST_ARGS, COST_BYTE, COST_FORMAT };

static uint64_t clamp_cost(lua_Number n) {
  if (!(n > 0)) return 0;
  return n >= 1e18 ? (uint64_t)1e18 : (uint64_t)n;
}

static uint64_t scan_cost(lua_State *L, int idx) {
  return lua_type(L, idx) == LUA_TSTRING ? (uint64_t)(lua_rawlen(L, idx) >> 4) : 0;
}

static uint64_t cost_of(lua_State *L, int kind) {
  switch (kind) {
  case COST_SORT: /* the comparisons run (and count) in Lua */
    return lua_type(L, 1) == LUA_TTABLE ? 1 + clamp_cost((lua_Number)lua_rawlen(L, 1)) : 1;
  case COST_ARGS: /* (...): every argument is looked at (select, string.char, utf8.char) */
    return 1 + (uint64_t)lua_gettop(L);
  case COST_BYTE: { /* string.byte(s [, i [, j]]): one value per byte */
    lua_Number len = (lua_Number)lua_rawlen(L, 1), i, j;
    if (lua_type(L, 1) != LUA_TSTRING) return 1;
    i = lua_isnumber(L, 2) ? lua_tonumber(L, 2) : 1;
    j = lua_isnumber(L, 3) ? lua_tonumber(L, 3) : i;
    if (i < 0) i += len + 1;
    if (j < 0) j += len + 1;
    if (i < 1) i = 1;
    if (j > len) j = len;
    return 1 + clamp_cost(j - i + 1);
  }
  case COST_FORMAT: /* (fmt, ...): every format byte is parsed, every value looked at */
    return 1 + (lua_type(L, 1) == LUA_TSTRING ? (uint64_t)lua_rawlen(L, 1) : 0) +
           (uint64_t)lua_gettop(L) + scan_cost(L, 2);
  default: /* COST_SCAN: (s, ...) */
    return 1 + scan_cost(L, 1);
  }
}

/* upvalues: the original function, its name, the cost kind, and for sort
** a Lua comparator, so that sorting without one runs (and counts) Lua
** instructions: the C quicksort has quadratic inputs. */
static int sb_charged(lua_State *L) {
  int kind = (int)lua_tonumber(L, lua_upvalueindex(3)), n;
  psol_charge(L, cost_of(L, kind));
  if (kind == COST_SORT && lua_isnoneornil(L, 2)) {
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(4));
  }
  n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  if (lua_pcall(L, n, LUA_MULTRET, 0) != LUA_OK)
    return rethrow(L, lua_tostring(L, lua_upvalueindex(2)));
  return lua_gettop(L);
}

static const char less_than_lua[] = "return function(a, b) return a < b end";

/* Push "lib.name" ("name" for the base library) without a format pass:
** the wrappers' names for messages, a dozen a state. */
static void push_qualified(lua_State *L, const char *lib, const char *name) {
  char buf[64];
  size_t a = strlen(lib), b = strlen(name);
  if (a == 0 || a + 1 + b >= sizeof buf) {
    if (a) lua_pushfstring(L, "%s.%s", lib, name);
    else lua_pushlstring(L, name, b);
    return;
  }
  memcpy(buf, lib, a + 1);
  buf[a] = '.';
  memcpy(buf + a + 1, name, b + 1);
  lua_pushlstring(L, buf, a + 1 + b);
}

/* Wrap lib[name] (the library table at the top) with a cost. */
static void charge_function(lua_State *L, const char *lib, const char *name, int kind) {
  lua_getfield(L, -1, name);
  if (lua_type(L, -1) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return;
  }
  push_qualified(L, lib, name);
  lua_pushnumber(L, kind);
  if (kind == COST_SORT) {
    /* compiled once per process (the chunk cache), like the scripts */
    if (load_text(L, less_than_lua, sizeof less_than_lua - 1, "=(sort)", 1) != LUA_OK)
      lua_error(L);
    lua_call(L, 0, 1);
  }
  lua_pushcclosure(L, sb_charged, kind == COST_SORT ? 4 : 3);
  lua_setfield(L, -2, name);
}

/* Replace lib[name] (the library table at the top) by 'f', when the
** version has it; upvalue 1 is the name for messages. */
static void own_function(lua_State *L, const char *lib, const char *name, lua_CFunction f) {
  lua_getfield(L, -1, name);
  if (lua_type(L, -1) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  push_qualified(L, lib, name);
  lua_pushcclosure(L, f, 1);
  lua_setfield(L, -2, name);
}

/* ---- require ------------------------------------------------------------- */

static int valid_module_name(const char *name) {
  const char *p;
  if (name[0] == '\0' || name[0] == '.' || name[0] == '/') return 0;
  for (p = name; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '.' && (p[1] == '.' || p[1] == '\0')) return 0;
    if (c == '/' && (p[1] == '/' || p[1] == '\0')) return 0;
    if (!(c == '_' || c == '-' || c == '.' || c == '/' || (c >= '0' && c <= '9') ||
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      return 0;
  }
  return 1;
}

/* require's cache holds this (as a light userdata) while a module loads. */
static const char loading_key = 'l';

static int sb_require(lua_State *L) {
  psol_state *S = state_of(L);
  const char *name = luaL_checkstring(L, 1);
  int cache = lua_upvalueindex(1);
  lua_settop(L, 1);
  lua_getfield(L, cache, name);
  if (lua_touserdata(L, -1) == (void *)&loading_key)
    return luaL_error(L, "require: loop while loading module '%s'", name);
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  if (strcmp(name, "pso") == 0) {
    lua_pushcfunction(L, luaopen_pso);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    wrap_module(L);
  } else {
    char rel[PSOL_PATH_MAX], chunk[PSOL_PATH_MAX + 1];
    psol_found *found;
    size_t i, n = strlen(name), len;
    const char *src;
    int status;
    if (!valid_module_name(name) || n + 5 > sizeof rel)
      return luaL_error(L, "require: invalid module name '%s' (use names like 'lib.common'; "
                           "modules are .lua files under the material roots)", name);
    for (i = 0; i < n; i++) rel[i] = name[i] == '.' ? '/' : name[i];
    memcpy(rel + n, ".lua", 5);
    found = (psol_found *)lua_newuserdata(L, sizeof *found); /* index 2 */
    if (!load_file(L, S, rel, found))
      return luaL_error(L, "require: cannot load module '%s' (%s): %s", name, rel,
                        lua_tostring(L, -1));
    /* the source is at index 3 */
    src = lua_tolstring(L, 3, &len);
    snprintf(chunk, sizeof chunk, "@%s", found->shown);
    status = load_text(L, src, len, chunk, 1);
    if (status != LUA_OK) return lua_error(L);
    lua_pushlightuserdata(L, (void *)&loading_key);
    lua_setfield(L, cache, name);
    lua_pushstring(L, name);
    lua_pushstring(L, found->shown);
    status = lua_pcall(L, 2, 1, 0);
    if (status != LUA_OK) {
      lua_pushnil(L);
      lua_setfield(L, cache, name);
      return lua_error(L);
    }
  }
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
  }
  lua_pushvalue(L, -1);
  lua_setfield(L, cache, name);
  return 1;
}

/* ---- pso module hooks -------------------------------------------------- */

static int hook_read_file(void *ud, lua_State *L, const char *path) {
  psol_state *S = (psol_state *)ud;
  psol_found *found = (psol_found *)lua_newuserdata(L, sizeof *found);
  int ok = load_file(L, S, path, found);
  lua_remove(L, -2);
  return ok;
}

static void *hook_resolve_root_signature(void *ud, const char *name) {
  psol_state *S = (psol_state *)ud;
  return S->resolve ? S->resolve(S->ud, name) : NULL;
}

/* ---- building the state ------------------------------------------------ */

static const char *const removed_globals[] = {
  "dofile", "loadfile", "loadstring", "getfenv", "setfenv", "gcinfo", "newproxy",
  "coroutine", "module", "package", "warn", "debug", "os", "io", "jit", "bit", "ffi", NULL
};

/* Runs protected: open the safe libraries, install the sandbox and the
** pso module's hooks. */
static int setup(lua_State *L) {
  psol_state *S = (psol_state *)lua_touserdata(L, 1);
  pso_hooks hooks;
  int i;
  hooks.read_file = hook_read_file;
  hooks.resolve_root_signature = hook_resolve_root_signature;
  hooks.ud = S;
  pso_set_hooks(L, &hooks);
  lua_pushlightuserdata(L, (void *)&files_key);
  lua_newtable(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_pushlightuserdata(L, (void *)&guard_mt_key);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, guard_gc);
  lua_setfield(L, -2, "__gc");
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_pushlightuserdata(L, (void *)&guard_key);
  S->guard = guard_new(L, S);
  lua_rawset(L, LUA_REGISTRYINDEX);
  psol_compat_openlib(L, "_G", luaopen_base);
  psol_compat_openlib(L, LUA_STRLIBNAME, luaopen_string);
  psol_compat_openlib(L, LUA_TABLIBNAME, luaopen_table);
  psol_compat_openlib(L, LUA_MATHLIBNAME, luaopen_math);
#if PSOL_COMPAT_HAS_UTF8
  psol_compat_openlib(L, LUA_UTF8LIBNAME, luaopen_utf8);
#endif
  for (i = 0; removed_globals[i]; i++) {
    lua_pushnil(L);
    lua_setglobal(L, removed_globals[i]);
  }
  lua_pushcfunction(L, sb_load);
  lua_setglobal(L, "load");
if (PSOL_COMPAT_HAS_LOADSTRING) {
    lua_pushcfunction(L, sb_load);
    lua_setglobal(L, "loadstring");
  }
  lua_pushcfunction(L, sb_print);
  lua_setglobal(L, "print");
  lua_pushcfunction(L, sb_collectgarbage);
  lua_setglobal(L, "collectgarbage");
  lua_getglobal(L, "setmetatable");
  lua_pushcclosure(L, sb_setmetatable, 1);
  lua_setglobal(L, "setmetatable");
  lua_getglobal(L, "getmetatable");
  lua_pushcclosure(L, sb_getmetatable, 1);
  lua_setglobal(L, "getmetatable");
  lua_newtable(L); /* require's cache */
  lua_pushcclosure(L, sb_require, 1);
  lua_setglobal(L, "require");
  lua_getglobal(L, LUA_STRLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_getfield(L, -1, "rep");
  lua_pushcclosure(L, sb_string_rep, 1);
  lua_setfield(L, -2, "rep");
  psol_match_install(L, -1, psol_charge); /* find, match, gmatch, gsub with a step budget */
  lua_pop(L, 1);
  lua_getglobal(L, LUA_TABLIBNAME);
  own_function(L, "table", "insert", sb_table_insert);
  own_function(L, "table", "remove", sb_table_remove);
  own_function(L, "table", "move", sb_table_move); /* 5.3+ */
  own_function(L, "table", "concat", sb_table_concat);
  own_function(L, "table", "unpack", sb_unpack); /* 5.2+ */
  charge_function(L, "table", "sort", COST_SORT);
  lua_pop(L, 1);
  lua_pushglobaltable(L);
  own_function(L, "", "unpack", sb_unpack); /* 5.1 */
  charge_function(L, "", "select", COST_ARGS);
  charge_function(L, "", "tonumber", COST_SCAN);
  lua_pushcfunction(L, sb_pcall);
  lua_setfield(L, -2, "pcall");
  lua_pushcfunction(L, sb_xpcall);
  lua_setfield(L, -2, "xpcall");
  lua_pop(L, 1);
  lua_getglobal(L, LUA_STRLIBNAME);
  charge_function(L, "string", "byte", COST_BYTE);
  charge_function(L, "string", "char", COST_ARGS);
  charge_function(L, "string", "format", COST_FORMAT);
  charge_function(L, "string", "pack", COST_FORMAT);     /* 5.3+ */
  charge_function(L, "string", "unpack", COST_FORMAT);   /* 5.3+ */
  charge_function(L, "string", "packsize", COST_FORMAT); /* 5.3+ */
  lua_pop(L, 1);
if (PSOL_COMPAT_HAS_UTF8) {
    lua_getglobal(L, "utf8");
    charge_function(L, "utf8", "len", COST_SCAN);
    charge_function(L, "utf8", "offset", COST_SCAN);
    charge_function(L, "utf8", "codepoint", COST_SCAN);
    charge_function(L, "utf8", "char", COST_ARGS);
    lua_pop(L, 1);
  }
  return 0;
}

static void state_free(psol_state *S) {
  size_t i;
  sa_release(S); /* after lua_close: every block is back */
  for (i = 0; i < S->root_count; i++) psoc_confine_root_free(&S->roots[i]);
  free(S->roots);
  psoc_confine_root_free(&S->implicit);
  psoc_confine_root_free(&S->script);
  free(S);
}

static lua_State *newstate(const psol_options *opts, char *err, size_t errlen,
                           psoc_status *why) {
  psol_state *S;
  lua_State *L;
  size_t i;
  int e;
  *why = PSOC_ERR_NOMEM;
  if (err && errlen) err[0] = '\0';
  S = (psol_state *)calloc(1, sizeof *S);
  if (!S) {
    if (err) snprintf(err, errlen, "out of memory");
    return NULL;
  }
  S->limit = opts && opts->memory_limit ? opts->memory_limit : PSOL_DEFAULT_MEMORY_LIMIT;
  S->ins_limit = opts && opts->instruction_limit ? opts->instruction_limit
                                                 : PSOL_DEFAULT_INSTRUCTION_LIMIT;
  S->time_limit_ms = opts && opts->time_limit_ms ? opts->time_limit_ms
                                                 : PSOL_DEFAULT_TIME_LIMIT_MS;
  S->log_limit = opts && opts->log_limit ? opts->log_limit : PSOL_DEFAULT_LOG_LIMIT;
  if (opts) {
    S->resolve = opts->resolve_root_signature;
    S->log = opts->log;
    S->ud = opts->ud;
    S->read_file = opts->read_file;
    S->read_file_ud = opts->read_file_ud;
    S->flags = opts->flags;
  }
  if (opts && opts->root_count) {
    if (!opts->roots) {
      if (err) snprintf(err, errlen, "root_count is %zu but roots is NULL", opts->root_count);
      *why = PSOC_ERR_ARG;
      state_free(S);
      return NULL;
    }
    S->roots = (psol_path *)calloc(opts->root_count, sizeof *S->roots);
    if (!S->roots) {
      if (err) snprintf(err, errlen, "out of memory");
      state_free(S);
      return NULL;
    }
    for (i = 0; i < opts->root_count; i++) {
      const char *root = opts->roots[i] ? opts->roots[i] : "(null)";
      if ((e = psoc_confine_root_init(&S->roots[S->root_count], root, S->read_file != NULL)) != 0) {
        if (err) snprintf(err, errlen, "material root '%s': %s", root, psoc_plat_strerror(e));
        *why = e == ENOMEM ? PSOC_ERR_NOMEM : PSOC_ERR_ARG;
        state_free(S);
        return NULL;
      }
      S->root_count++;
    }
  }
  L = psol_compat_newstate(psol_alloc, S, &S->base, &S->base_ud);
  if (!L) {
    if (err) snprintf(err, errlen, "cannot create a Lua state (out of memory)");
    state_free(S);
    return NULL;
  }
  S->L = L;
  psol_compat_interpret_only(L);
  gc_stop(L, S);
  if (psol_compat_cpcall(L, setup, S) != LUA_OK) {
    if (err) snprintf(err, errlen, "cannot set up the sandbox: %s",
                      lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
    lua_close(L);
    state_free(S);
    return NULL;
  }
  gc_hold(S);
  *why = PSOC_OK; /* the count hook is installed by each sandboxed call */
  return L;
}

lua_State *psol_newstate(const psol_options *opts, char *err, size_t errlen) {
  psoc_status why;
  return newstate(opts, err, errlen, &why);
}

void psol_close(lua_State *L) {
  psol_state *S;
  if (!L) return;
  S = state_of(L);
  wd_unwatch(S);
  S->enforce = 0;
  lua_close(L);
  state_free(S);
}

uint64_t psol_instructions(lua_State *L) { return state_of(L)->ins_count; }
size_t psol_memory(lua_State *L) { return state_of(L)->used; }

/* ---- protected calls ----------------------------------------------------- */

static int msgh(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg && state_of(L)->exceeded) /* no script code past a limit */
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  if (!msg) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      msg = lua_tostring(L, -1);
    else
      msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  psol_compat_traceback(L, msg, 1);
  return 1;
}

static int contains(lua_State *L, int idx, const char *what) {
  const char *s = lua_tostring(L, idx);
  return s && strstr(s, what) != NULL;
}

/* Replace errors the limits caused (memory errors skip the message
** handler; a limit hit inside the handler gives "error in error handling")
** with a message that names the limit. */
static void fix_error(lua_State *L, psol_state *S, int status) {
  char text[96];
  if (S->exceeded && !contains(L, -1, limit_text(S, text, sizeof text))) {
    lua_pop(L, 1);
    if (S->chunk) lua_pushfstring(L, "%s: %s", S->chunk, text);
    else lua_pushstring(L, text);
  } else if (status == LUA_ERRMEM && !contains(L, -1, "memory")) {
    lua_pop(L, 1);
    lua_pushliteral(L, "not enough memory");
  }
}

int psol_pcall(lua_State *L, int nargs, int nresults) {
  psol_state *S = state_of(L);
  int base = lua_gettop(L) - nargs, status, outer = S->depth == 0, enforce = S->enforce;
  if (outer) {
    budget_reset(L, S);
    S->file_failed = 0;
    if (S->gc_hold && S->used > S->gc_hold) gc_release(L, S);
  }
  lua_pushcfunction(L, msgh);
  lua_insert(L, base);
  S->depth++;
  S->enforce = 1;
  status = lua_pcall(L, nargs, nresults, base);
  S->depth--;
  S->enforce = enforce;
  lua_remove(L, base);
  if (status != LUA_OK && S->mem_refused && !S->exceeded) S->exceeded = LIMIT_MEMORY;
  if (status != LUA_OK) fix_error(L, S, status);
  if (outer) {
    S->last_exceeded = status != LUA_OK ? S->exceeded : LIMIT_NONE;
    S->last_file_failed = status != LUA_OK && S->file_failed;
    wd_unwatch(S); /* before the hook goes: the watchdog sets it */
    S->exceeded = LIMIT_NONE;
    S->mem_refused = 0;
    lua_sethook(L, NULL, 0, 0);
  }
  return status;
}

typedef struct psol_chunk {
  const char *path;      /* file to run, or NULL */
  const char *src;       /* else this source */
  size_t len;
  const char *chunkname;
} psol_chunk;

/* Push the contents of the script 'path' and record it; 0 with the
** message pushed. From the file system wherever it is; with a read_file
** hook, only inside the roots (the hook is never asked for a path outside
** them). */
static int load_script(lua_State *L, psol_state *S, const char *path) {
  char real[PSOL_PATH_MAX];
  psol_found *f;
  int e, r;
  if (!S->read_file) {
    /* Where nothing records the canonical path (psol_newstate's states),
    ** the file is read as named (the same file: both follow symlinks);
    ** a failure is looked at again below for its message. */
    if (!S->record_files && push_file(L, S, path)) return 1;
    if (!S->record_files) lua_pop(L, 1);
    e = psoc_plat_realpath(path, real);
    if (e != 0) {
      lua_pushfstring(L, "cannot open '%s': %s", path, psoc_plat_strerror(e));
      return 0;
    }
    if (!push_file(L, S, real)) {
      lua_pushfstring(L, "cannot read '%s': %s", path, lua_tostring(L, -1));
      return 0;
    }
    record_file(L, real);
    return 1;
  }
  f = (psol_found *)lua_newuserdata(L, sizeof *f);
  f->guard = guard_new(L, S);
  if ((e = psoc_confine_absolute(path, real)) != 0) {
    lua_pushfstring(L, "cannot open '%s': %s", path, psoc_plat_strerror(e));
    return 0;
  }
  r = resolve_confined(S, real, f->real);
  if (r == PSOC_CONFINE_LEAVES) {
    lua_pushfstring(L, "cannot open '%s': outside the material roots", path);
    return 0;
  }
  if (!candidate_found(S, f, r)) {
    if (r > 0) lua_pushfstring(L, "cannot open '%s': %s", path, psoc_plat_strerror(r));
    else lua_pushfstring(L, "cannot open '%s': not found (read_file)", path);
    return 0;
  }
  if (!read_found(L, S, f)) {
    lua_pushfstring(L, "cannot read '%s': %s", path, lua_tostring(L, -1));
    return 0;
  }
  lua_replace(L, -3); /* over f; the guard goes */
  lua_pop(L, 1);
  return 1;
}

/* Protected: read and load the chunk, then run it; returns its results. */
static int run_chunk(lua_State *L) {
  psol_state *S = state_of(L);
  const psol_chunk *c = (const psol_chunk *)lua_touserdata(L, 1);
  const char *src = c->src, *chunkname = c->chunkname;
  size_t len = c->len;
  lua_settop(L, 0);
  if (c->path) {
    if (!load_script(L, S, c->path)) {
      S->file_failed = 1;
      return lua_error(L);
    }
    src = lua_tolstring(L, 1, &len);
    lua_pushfstring(L, "@%s", c->path);
    chunkname = lua_tostring(L, 2);
  } else {
    lua_pushnil(L);
    lua_pushnil(L);
  }
  if (load_text(L, src, len, chunkname, 1) != LUA_OK) return lua_error(L);
  lua_call(L, 0, LUA_MULTRET);
  return lua_gettop(L) - 2;
}

static int run(lua_State *L, const psol_chunk *c, const char *display, int nresults) {
  psol_state *S = state_of(L);
  psol_path saved_script = S->script, saved_implicit = S->implicit;
  const char *saved_chunk = S->chunk;
  int status;
  size_t i;
  memset(&S->script, 0, sizeof S->script);
  memset(&S->implicit, 0, sizeof S->implicit);
  if (c->path) {
    /* failures surface when loading */
    psoc_confine_root_init_dirname(&S->script, c->path, S->read_file != NULL);
    if (S->root_count == 0 && S->script.real) {
      S->implicit.shown = dup_str(S->script.shown);
      S->implicit.real = dup_str(S->script.real);
    }
  }
  S->chunk = display;
  lua_pushcfunction(L, run_chunk);
  lua_pushlightuserdata(L, (void *)c);
  S->runs++;
  status = psol_pcall(L, 1, nresults);
  S->runs--;
  psoc_confine_root_free(&S->script);
  psoc_confine_root_free(&S->implicit);
  if (S->runs == 0) /* the roots' handles are opened afresh by the next run */
    for (i = 0; i < S->root_count; i++) psoc_confine_root_close_dir(&S->roots[i]);
  S->script = saved_script;
  S->implicit = saved_implicit;
  S->chunk = saved_chunk;
  return status;
}

int psol_dofile(lua_State *L, const char *path, int nresults) {
  psol_chunk c;
  c.path = path;
  c.src = NULL;
  c.len = 0;
  c.chunkname = NULL;
  return run(L, &c, path, nresults);
}

int psol_dostring(lua_State *L, const char *chunkname, const char *src, size_t len,
                  int nresults) {
  psol_chunk c;
  const char *display = chunkname ? chunkname : "=(string)";
  c.path = NULL;
  c.src = src ? src : "";
  c.len = src ? len : 0;
  c.chunkname = display;
  if (display[0] == '@' || display[0] == '=') display++;
  return run(L, &c, display, nresults);
}

const char *psol_error_message(lua_State *L, int idx, char *buf, size_t buflen) {
  const char *msg = lua_tostring(L, idx), *cut;
  size_t n;
  if (!buflen) return buf;
  if (!msg) msg = "(error object is not a string)";
  cut = strstr(msg, PSOL_TRACEBACK);
  n = cut ? (size_t)(cut - msg) : strlen(msg);
  if (n >= buflen) n = buflen - 1;
  memcpy(buf, msg, n);
  buf[n] = '\0';
  return buf;
}

/* ---- evaluate ----------------------------------------------------------- */

static void *res_alloc(const psoc_allocator *a, size_t n) {
  return a->fn ? a->fn(a->ud, NULL, 0, n) : malloc(n);
}

static void res_free(const psoc_allocator *a, void *p, size_t n) {
  if (!p) return;
  if (a->fn) a->fn(a->ud, p, n, 0);
  else free(p);
}

static char *res_strdup(const psoc_allocator *a, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = (char *)res_alloc(a, n);
  if (p) memcpy(p, s, n);
  return p;
}

static void res_strfree(const psoc_allocator *a, char *s) {
  if (s) res_free(a, s, strlen(s) + 1);
}

/* The pipelines only: a failure keeps the files and diagnostics. */
static void free_pipelines(psol_result *r) {
  size_t i;
  for (i = 0; i < r->count; i++) {
    psol_pipeline *p = &r->pipelines[i];
    res_strfree(&r->alloc, p->name);
    res_strfree(&r->alloc, p->root_signature);
    psoc_stream_free(p->stream);
  }
  /* the size it was allocated with: an allocator may trust it */
  res_free(&r->alloc, r->pipelines, r->capacity * sizeof *r->pipelines);
  r->pipelines = NULL;
  r->count = 0;
  r->capacity = 0;
}

void psol_result_free(psol_result *r) {
  size_t i;
  if (!r) return;
  free_pipelines(r);
  for (i = 0; i < r->file_count; i++) res_strfree(&r->alloc, r->files[i].path);
  res_free(&r->alloc, r->files, r->file_capacity * sizeof *r->files);
  for (i = 0; i < r->diagnostic_count; i++) {
    psol_diagnostic *d = &r->diagnostics[i];
    res_strfree(&r->alloc, d->file);
    res_strfree(&r->alloc, d->pipeline);
    res_strfree(&r->alloc, d->field);
    res_strfree(&r->alloc, d->message);
  }
  res_free(&r->alloc, r->diagnostics, r->diagnostic_capacity * sizeof *r->diagnostics);
  r->files = NULL;
  r->diagnostics = NULL;
  r->file_count = r->diagnostic_count = 0;
  r->file_capacity = r->diagnostic_capacity = 0;
}

static void result_init(psol_result *out, const psol_options *opts) {
  memset(out, 0, sizeof *out);
  if (opts && opts->alloc) out->alloc = *opts->alloc;
}

static char *res_strdup_opt(const psoc_allocator *a, const char *s) {
  return s && s[0] ? res_strdup(a, s) : NULL;
}

/* Append one diagnostic (strings copied; a NULL or empty file, pipeline
** or field stays NULL). PSOC_ERR_NOMEM when it cannot be stored whole. */
static psoc_status add_diag(psol_result *out, psoc_severity severity, psoc_code code,
                            const char *message_id, const char *file, int line,
                            const char *pipeline, const char *field, const char *message) {
  psol_diagnostic *d;
  if (out->diagnostic_count == out->diagnostic_capacity) {
    size_t cap = out->diagnostic_capacity ? 2 * out->diagnostic_capacity : 4;
    psol_diagnostic *grown = (psol_diagnostic *)res_alloc(&out->alloc, cap * sizeof *grown);
    if (!grown) return PSOC_ERR_NOMEM;
    if (out->diagnostic_count)
      memcpy(grown, out->diagnostics, out->diagnostic_count * sizeof *grown);
    res_free(&out->alloc, out->diagnostics, out->diagnostic_capacity * sizeof *grown);
    out->diagnostics = grown;
    out->diagnostic_capacity = cap;
  }
  d = &out->diagnostics[out->diagnostic_count++]; /* owned by the result from here on */
  memset(d, 0, sizeof *d);
  d->severity = severity;
  d->code = code;
  d->message_id = message_id;
  d->line = line > 0 ? line : 0;
  d->message = res_strdup(&out->alloc, message ? message : "");
  d->file = res_strdup_opt(&out->alloc, file);
  d->pipeline = res_strdup_opt(&out->alloc, pipeline);
  d->field = res_strdup_opt(&out->alloc, field);
  if (!d->message || (file && file[0] && !d->file) || (pipeline && pipeline[0] && !d->pipeline) ||
      (field && field[0] && !d->field))
    return PSOC_ERR_NOMEM;
  return PSOC_OK;
}

/* The first error, as text (result.error keeps the first one). */
static void set_error(psol_result *out, const char *file, const char *msg) {
  size_t n = 0;
  if (out->error[0]) return;
  if (file) {
    n = (size_t)snprintf(out->error, sizeof out->error - 2, "%s", file);
    if (n > sizeof out->error - 3) n = sizeof out->error - 3;
    out->error[n++] = ':';
    out->error[n++] = ' ';
  }
  while (*msg && n < sizeof out->error - 1) out->error[n++] = *msg++;
  out->error[n] = '\0';
}

/* Fail the evaluation: no pipelines, the error as text (when it is the
** first) and as a diagnostic of 'code' at 'file' (may be NULL). */
static psoc_status fail(psol_result *out, psoc_status status, psoc_code code, const char *file,
                        const char *pipeline, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 6, 7)))
#endif
    ;

static psoc_status fail(psol_result *out, psoc_status status, psoc_code code, const char *file,
                        const char *pipeline, const char *fmt, ...) {
  char msg[sizeof out->error];
  va_list ap;
  free_pipelines(out);
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  set_error(out, file, msg);
  (void)add_diag(out, PSOC_SEVERITY_ERROR, code, NULL, file, 0, pipeline, NULL, msg);
  return status;
}

/* Is the stream's root-signature pointer NULL (a name nobody resolved)? */
static int root_signature_unresolved(const psoc_stream *stream) {
  psoc_parsed parsed;
  void *rs = NULL;
  if (psoc_parse(psoc_stream_data(stream), psoc_stream_size(stream), &parsed, NULL) != PSOC_OK ||
      !parsed.has[PSOC_SO_ROOT_SIGNATURE])
    return 1;
  memcpy(&rs, parsed.views[PSOC_SO_ROOT_SIGNATURE].payload, sizeof rs);
  return rs == NULL;
}

/* Copy one pipeline (at the top of the stack) out of the state and check
** it; every check diagnostic goes into out->diagnostics at the pipeline's
** declaration. A pipeline that fails its check (or strict root-signature
** resolution) sets *failed and returns PSOC_OK, so that the others are
** checked too; any other failure fails the evaluation at once. */
static psoc_status take(lua_State *L, psol_result *out, const pso_pipeline *p,
                        const char *display, const psol_options *opts, size_t *budget,
                        int *failed) {
  psol_pipeline *dst = &out->pipelines[out->count];
  const char *name = pso_pipeline_name(p), *rs = pso_pipeline_root_signature(p);
  const char *shown = name ? name : "", *file = display;
  const psoc_stream *stream = pso_pipeline_stream(p);
  psoc_diags diags;
  psoc_check_options check;
  psoc_status status;
  char where[512], at[600];
  size_t i;
  int line;
  memset(dst, 0, sizeof *dst);
  memset(&check, 0, sizeof check);
  if (opts) {
    check.profile = opts->profile;
    check.flags = opts->check_flags;
  }
  check.flags |= PSO_PIPELINE_CHECK_FLAGS; /* streams the module built */
  /* where the pipeline was declared: the position of its diagnostics */
  line = psol_pipeline_where(L, -1, where, sizeof where);
  if (line > 0 && where[0]) file = where;
  else line = 0;
  if (line > 0) snprintf(at, sizeof at, "%s:%d", where, line);
  else snprintf(at, sizeof at, "%s", display);
  if (!stream)
    return fail(out, PSOC_ERR_INVALID, PSOC_CODE_SCRIPT, display, name,
                "pipeline '%s' has no stream", shown);
  {
    /* What is copied out of the state counts against the memory limit too:
    ** a list of a million references to one pipeline must not make a
    ** million copies. */
    size_t cost = pso_pipeline_copy_size(p) + (name ? strlen(name) : 0) + (rs ? strlen(rs) : 0) +
                  sizeof *dst;
    if (cost > *budget)
      return fail(out, PSOC_ERR_INVALID, PSOC_CODE_LIMIT, display, name,
                  "memory limit exceeded (%llu bytes): the pipelines the script returns "
                  "take more than that to copy out (result[%zu])",
                  (unsigned long long)(opts && opts->memory_limit ? opts->memory_limit
                                                                  : PSOL_DEFAULT_MEMORY_LIMIT),
                  out->count + 1);
    *budget -= cost;
  }
  dst->name = res_strdup(&out->alloc, shown);
  dst->root_signature = rs ? res_strdup(&out->alloc, rs) : NULL;
  dst->kind = pso_pipeline_kind(p);
  status = pso_pipeline_copy_stream(L, p, out->alloc.fn ? &out->alloc : NULL, &dst->stream);
  out->count++; /* owned from here on */
  /* 'name' belongs to the pipeline in the state: valid after fail() frees the copy */
  if (!dst->name || (rs && !dst->root_signature) || status == PSOC_ERR_NOMEM)
    return fail(out, PSOC_ERR_NOMEM, PSOC_CODE_LIMIT, NULL, name,
                "out of memory copying pipeline '%s'", shown);
  if (status != PSOC_OK)
    return fail(out, status, PSOC_CODE_SCRIPT, display, name,
                "pipeline '%s': cannot copy the stream: %s", shown, psoc_status_name(status));
  dst->hash = pso_pipeline_hash(p); /* content hash: the same for the copy */
  if (opts && (opts->flags & PSOL_STRICT_ROOT_SIGNATURES) && rs &&
      root_signature_unresolved(dst->stream)) {
    char msg[PSOC_DIAG_MESSAGE_MAX + 64];
    snprintf(msg, sizeof msg, "root signature '%.80s' is not known (resolve_root_signature "
             "gave NULL; PSOL_STRICT_ROOT_SIGNATURES)", rs);
    if (add_diag(out, PSOC_SEVERITY_ERROR, PSOC_CODE_ROOT_SIGNATURE, NULL, file, line, name,
                 "root_signature", msg) != PSOC_OK)
      return fail(out, PSOC_ERR_NOMEM, PSOC_CODE_LIMIT, NULL, name, "out of memory");
    if (!out->error[0])
      snprintf(out->error, sizeof out->error, "%s: pipeline '%s': root_signature: %s", at, shown,
               msg);
    *failed = 1;
  }
  psoc_diags_init(&diags, out->alloc.fn ? &out->alloc : NULL);
  status = psoc_check(psoc_stream_data(dst->stream), psoc_stream_size(dst->stream), &check, &diags);
  for (i = 0; i < diags.count; i++) {
    const psoc_diag *d = &diags.items[i];
    char key[PSOC_DIAG_FIELD_MAX + 16];
    psoc_severity sev = d->severity;
    pso_field_path(d->field, key, sizeof key); /* the material's keys */
    /* under PSOC_CHECK_WERROR a warning fails the pipeline: as data it is an error */
    if (sev == PSOC_SEVERITY_WARNING && (check.flags & PSOC_CHECK_WERROR)) sev = PSOC_SEVERITY_ERROR;
    if (add_diag(out, sev, d->code, d->message_id, file, line, name, key, d->message) !=
        PSOC_OK) {
      psoc_diags_free(&diags);
      return fail(out, PSOC_ERR_NOMEM, PSOC_CODE_LIMIT, NULL, name, "out of memory");
    }
  }
  if (status != PSOC_OK) {
    for (i = 0; i < diags.count; i++)
      if (diags.items[i].severity == PSOC_SEVERITY_ERROR) break;
    if (i == diags.count && (check.flags & PSOC_CHECK_WERROR)) /* failed on a warning */
      for (i = 0; i < diags.count; i++)
        if (diags.items[i].severity == PSOC_SEVERITY_WARNING) break;
    if (i < diags.count) {
      psoc_diag d = diags.items[i];
      char key[PSOC_DIAG_FIELD_MAX + 16];
      psoc_diags_free(&diags);
      pso_field_path(d.field, key, sizeof key);
      if (!out->error[0])
        snprintf(out->error, sizeof out->error, "%s: pipeline '%s': %s%s%s [%s]%s", at, shown, key,
                 key[0] ? ": " : "", d.message,
                 d.message_id ? d.message_id : psoc_code_name(d.code),
                 d.severity == PSOC_SEVERITY_ERROR ? "" : " (a warning; an error under "
                                                          "PSOC_CHECK_WERROR)");
      *failed = 1;
      return PSOC_OK;
    }
    psoc_diags_free(&diags);
    return fail(out, status, PSOC_CODE_SCRIPT, display, name, "pipeline '%s': check failed: %s",
                shown, psoc_status_name(status));
  }
  psoc_diags_free(&diags);
  return PSOC_OK;
}

/* The script's result (at the top of the stack) into 'out'. */
static psoc_status collect(lua_State *L, psol_result *out, const char *display,
                           const psol_options *opts) {
  pso_pipeline *p = pso_topipeline(L, -1);
  size_t n, i, budget = opts && opts->memory_limit ? opts->memory_limit : PSOL_DEFAULT_MEMORY_LIMIT;
  psoc_status status;
  int failed = 0;
  if (!pso_check_result(L, -1)) /* the shape, and no two pipelines named alike */
    return fail(out, PSOC_ERR_INVALID, PSOC_CODE_SCRIPT, display, NULL, "%s",
                lua_tostring(L, -1));
  if (p) n = 1;
  else n = (size_t)lua_rawlen(L, -1);
  if (n == 0) return PSOC_OK;
  if (n > budget / sizeof *out->pipelines) /* the table itself is copied out too */
    return fail(out, PSOC_ERR_INVALID, PSOC_CODE_LIMIT, display, NULL,
                "memory limit exceeded (%llu bytes): the script returns %zu pipelines, more "
                "than fit in that once copied out", (unsigned long long)budget, n);
  out->pipelines = (psol_pipeline *)res_alloc(&out->alloc, n * sizeof *out->pipelines);
  if (!out->pipelines) return fail(out, PSOC_ERR_NOMEM, PSOC_CODE_LIMIT, NULL, NULL,
                                   "out of memory");
  out->capacity = n;
  for (i = 0; i < n; i++) {
    pso_pipeline *q = p;
    if (q) lua_pushvalue(L, -1);
    else lua_rawgeti(L, -1, (int)(i + 1));
    if (!q && (q = pso_topipeline(L, -1)) == NULL) {
      const char *type = luaL_typename(L, -1);
      lua_pop(L, 1);
      return fail(out, PSOC_ERR_INVALID, PSOC_CODE_SCRIPT, display, NULL,
                  "result[%zu] is a %s, not a pipeline (a material script returns a "
                  "pipeline or a list of pipelines)", i + 1, type);
    }
    status = take(L, out, q, display, opts, &budget, &failed);
    lua_pop(L, 1);
    if (status != PSOC_OK) return status;
  }
  if (failed) { /* every pipeline was checked; the diagnostics say why */
    free_pipelines(out);
    return PSOC_ERR_INVALID;
  }
  return PSOC_OK;
}

/* The diagnostic of a failed top-level call: its message is the error. */
static void script_diag(lua_State *L, psol_result *out, const char *display) {
  psol_state *S = state_of(L);
  psoc_code code = S->last_exceeded ? PSOC_CODE_LIMIT
                                    : S->last_file_failed ? PSOC_CODE_FILE : PSOC_CODE_SCRIPT;
  const char *msg = out->error, *p;
  char file[PSOL_PATH_MAX];
  int line = 0;
  size_t n = strlen(display);
  snprintf(file, sizeof file, "%s", display);
  /* Lua's own position, "chunk:line: " (luaL_where), on the first line */
  for (p = msg; *p && *p != '\n'; p++) {
    if (p[0] == ':' && p[1] >= '0' && p[1] <= '9') {
      const char *q = p + 1;
      long v = 0;
      while (*q >= '0' && *q <= '9' && v < 100000000L) v = v * 10 + (*q++ - '0');
      if (q[0] == ':' && q[1] == ' ' && (size_t)(p - msg) < sizeof file) {
        memcpy(file, msg, (size_t)(p - msg));
        file[p - msg] = '\0';
        line = (int)v;
        msg = q + 2;
        break;
      }
    }
  }
  if (line == 0 && strncmp(msg, display, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
    msg += n + 2; /* "chunk: memory limit exceeded ..." */
  (void)add_diag(out, PSOC_SEVERITY_ERROR, code, NULL, file, line, NULL, NULL, msg);
}

/* The files the state read into out->files. */
static psoc_status take_files(lua_State *L, psol_result *out) {
  size_t n, i;
  lua_pushlightuserdata(L, (void *)&files_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return PSOC_OK;
  }
  n = (size_t)lua_rawlen(L, -1);
  if (n) {
    out->files = (psol_file *)res_alloc(&out->alloc, n * sizeof *out->files);
    if (!out->files) {
      lua_pop(L, 1);
      return PSOC_ERR_NOMEM;
    }
    out->file_capacity = n;
  }
  for (i = 0; i < n; i++) {
    psol_file *f = &out->files[i];
    const uint64_t *rec;
    lua_rawgeti(L, -1, (int)(i + 1));
    lua_pushvalue(L, -1);
    lua_rawget(L, -3);
    rec = (const uint64_t *)lua_touserdata(L, -1);
    f->path = lua_tostring(L, -2) ? res_strdup(&out->alloc, lua_tostring(L, -2)) : NULL;
    lua_pop(L, 2);
    if (!f->path || !rec) {
      lua_pop(L, 1);
      return PSOC_ERR_NOMEM;
    }
    f->hash = rec[0];
    f->size = rec[1];
    out->file_count++;
  }
  lua_pop(L, 1);
  return PSOC_OK;
}

static psoc_status evaluate(const psol_options *opts, const psol_chunk *c, const char *display,
                            psol_result *out) {
  psoc_status status, files;
  lua_State *L = newstate(opts, out->error, sizeof out->error, &status);
  if (L) state_of(L)->record_files = 1;
  if (!L) {
    (void)add_diag(out, PSOC_SEVERITY_ERROR, status == PSOC_ERR_NOMEM ? PSOC_CODE_LIMIT
                                                                      : PSOC_CODE_FILE,
                   NULL, NULL, 0, NULL, NULL, out->error);
    return status;
  }
  if (c->path) status = psol_dofile(L, c->path, 1) == LUA_OK ? PSOC_OK : PSOC_ERR_INVALID;
  else status = psol_dostring(L, c->chunkname, c->src, c->len, 1) == LUA_OK ? PSOC_OK
                                                                            : PSOC_ERR_INVALID;
  if (status != PSOC_OK) {
    psol_error_message(L, -1, out->error, sizeof out->error);
    script_diag(L, out, display);
  } else {
    status = collect(L, out, display, opts);
  }
  files = take_files(L, out); /* on failure too: what to watch for a fix */
  if (files != PSOC_OK && status == PSOC_OK)
    status = fail(out, files, PSOC_CODE_LIMIT, NULL, NULL, "out of memory");
  psol_close(L);
  return status;
}

psoc_status psol_evaluate_file(const psol_options *opts, const char *path, psol_result *out) {
  psol_chunk c;
  if (!out) return PSOC_ERR_ARG;
  result_init(out, opts);
  if (!path) return fail(out, PSOC_ERR_ARG, PSOC_CODE_FILE, NULL, NULL, "no script path");
  c.path = path;
  c.src = NULL;
  c.len = 0;
  c.chunkname = NULL;
  return evaluate(opts, &c, path, out);
}

psoc_status psol_evaluate_string(const psol_options *opts, const char *chunkname,
                                 const char *src, size_t len, psol_result *out) {
  psol_chunk c;
  const char *display;
  if (!out) return PSOC_ERR_ARG;
  result_init(out, opts);
  if (!src && len) return fail(out, PSOC_ERR_ARG, PSOC_CODE_SCRIPT, NULL, NULL, "NULL source");
  c.path = NULL;
  c.src = src ? src : "";
  c.len = len;
  c.chunkname = chunkname ? chunkname : "=(string)";
  display = c.chunkname;
  if (display[0] == '@' || display[0] == '=') display++;
  return evaluate(opts, &c, display, out);
}
