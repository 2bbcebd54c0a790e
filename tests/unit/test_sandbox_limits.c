/*
** test_sandbox_limits.c: the sandbox's limits under attack (cases of the
** "sandbox" suite, see test_sandbox.h):
**   - no script code runs past a limit (xpcall handlers, pcall loops,
**     __close), and the clock stops what the count hook never sees;
**   - every C function a script can reach charges the work it does
**     (measured with psol_instructions against a baseline);
**   - the memory limit is exact (garbage the emergency collection frees
**     does not fail a script) and print output is capped;
**   - one answer for every path outside the material roots, and no read
**     ever blocks.
** Runaways are bounded by small limits; each case asserts the CPU time
** it took (clock()), so a regression fails instead of hanging.
*/
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkdtemp, symlink, mkfifo */
#endif
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "psoc.h"
#include "psol.h"
#include "test_sandbox.h"

#define CPU_BOUND 2.0 /* seconds of CPU a stopped runaway may take */

static double cpu_seconds(void) { return (double)clock() / CLOCKS_PER_SEC; }

/* Evaluate 'src' with the given limits; returns the status, the error in
** 'err' and the CPU time in *cpu. */
static psoc_status eval_limits(const char *src, uint64_t instructions, size_t memory,
                               uint32_t time_ms, char *err, size_t errlen, double *cpu) {
  psol_options o;
  psol_result r;
  psoc_status st;
  double t0 = cpu_seconds();
  memset(&o, 0, sizeof o);
  o.instruction_limit = instructions;
  o.memory_limit = memory;
  o.time_limit_ms = time_ms;
  st = psol_evaluate_string(&o, "=limits", src, strlen(src), &r);
  *cpu = cpu_seconds() - t0;
  snprintf(err, errlen, "%s", r.error);
  psol_result_free(&r);
  return st;
}

/* ---- nothing runs past a limit ------------------------------------------ */

typedef struct runaway {
  const char *what;
  const char *src;
  uint64_t instructions; /* 0: 1 << 40 (only the clock stops it) */
  uint32_t time_ms;      /* 0: 60 s (only the budget stops it) */
  const char *expect;
} runaway;

static const runaway runaways[] = {
  { "xpcall handler after the budget",
    "xpcall(function() while true do end end, function(m) while true do end end)",
    200000, 0, "instruction budget exceeded (200000 instructions)" },
  { "xpcall handler after the clock",
    "local a, b = string.rep('x', 4e6), string.rep('x', 4e6)\n"
    "xpcall(function() while true do local _ = a == b end end,\n"
    "       function(m) while true do end end)",
    0, 200, "time limit exceeded (200 ms)" },
  { "xpcall handler after a matcher error",
    "xpcall(function() return ('a'):rep(3000):find('.-.-.-b') end,\n"
    "       function(m) while true do end end)",
    200000, 0, "instruction budget exceeded" },
  { "xpcall handler that loops on its own error",
    "local function h(m) return xpcall(error, h) end\n"
    "xpcall(function() while true do end end, h) while true do end",
    200000, 0, "instruction budget exceeded" },
  { "pcall in a loop after the budget",
    "while true do pcall(function() while true do end end) end", 200000, 0,
    "instruction budget exceeded" },
  { "pcall returning the limit to the script",
    "local ok, e = pcall(function() while true do end end)\n"
    "error('swallowed: ' .. tostring(e), 0)",
    200000, 0, "instruction budget exceeded" },
  { "pcall of a C function hitting the budget",
    "local ok = pcall(string.find, ('a'):rep(3000), '.-.-.-b')\n"
    "error('swallowed', 0)",
    200000, 0, "instruction budget exceeded" },
  { "error object with __tostring after the budget",
    "local e = setmetatable({}, { __tostring = function() while true do end end })\n"
    "local ok = pcall(function() while true do end end) error(e)",
    200000, 0, "instruction budget exceeded" },
  { "__index running in the handler's place",
    "local t = setmetatable({}, { __index = function() while true do end end })\n"
    "xpcall(function() while true do end end, function() return t.x end)",
    200000, 0, "instruction budget exceeded" },
  { "sort comparator that never ends",
    "local t = {} for i = 1, 100 do t[i] = i end\n"
    "table.sort(t, function(a, b) while true do end end)",
    200000, 0, "instruction budget exceeded" },
  { "load reader that never ends", "load(function() while true do end end)", 200000, 0,
    "instruction budget exceeded" },
  { "the clock alone stops long comparisons",
    "local a, b = string.rep('x', 8e6), string.rep('x', 8e6)\n"
    "while true do local same = (a == b) end\n",
    0, 200, "time limit exceeded (200 ms)" },
  { "memory limit behind pcall, retried in a loop",
    "local n = 0\n"
    "while true do n = n + 1 pcall(string.rep, 'x', 40e6) end",
    0, 0, "memory limit exceeded" },
#if PSOL_COMPAT_HAS_TABLE_MOVE
  /* one C call that touches 2^40 absent slots: no hook fires inside it,
  ** and the budget is out of reach, so only the watchdog's flag stops it */
  { "table.move stopped by the clock alone", "table.move({}, 1, 2^40, 2)", (uint64_t)1 << 50, 200,
    "time limit exceeded (200 ms)" },
#endif
#if PSOL_COMPAT_HAS_TOCLOSE
  { "__close handler after the budget",
    "local x <close> = setmetatable({}, { __close = function() while true do end end })\n"
    "while true do end",
    200000, 0, "instruction budget exceeded" },
  { "__close handler of a pcall'd function",
    "pcall(function()\n"
    "  local x <close> = setmetatable({}, { __close = function() while true do end end })\n"
    "  while true do end end)\n"
    "while true do end",
    200000, 0, "instruction budget exceeded" },
#endif
};

#define RUNAWAY_COUNT ((int)(sizeof runaways / sizeof runaways[0]))

START_TEST(test_runaway_stops) {
  const runaway *c = &runaways[_i];
  char err[1024];
  double cpu;
  psoc_status st = eval_limits(c->src, c->instructions ? c->instructions : (uint64_t)1 << 40,
                               (size_t)32 << 20, c->time_ms ? c->time_ms : 60000, err,
                               sizeof err, &cpu);
  ck_assert_msg(st == PSOC_ERR_INVALID, "%s: not stopped", c->what);
  ck_assert_msg(strstr(err, c->expect) != NULL, "%s: %s", c->what, err);
  ck_assert_msg(strstr(err, "swallowed") == NULL, "%s: %s", c->what, err);
  ck_assert_msg(cpu < CPU_BOUND, "%s: took %.2f s of CPU", c->what, cpu);
}
END_TEST

/* The watchdog sleeps on after an evaluation until the deadline it had; a
** later evaluation with an earlier deadline must wake it: a runaway with a
** 100 ms limit after a quick one with a 10 s limit stops at its own limit,
** not when the watchdog would have woken for the old one (10 s later). */
static double wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(test_watchdog_earlier_deadline) {
  char err[512];
  double cpu, t0;
  /* long enough for the watchdog thread to be up and sleeping on its deadline */
  ck_assert_int_eq(eval_limits("local n = 0 for i = 1, 3e6 do n = n + i end return {}", 0, 0,
                               10000, err, sizeof err, &cpu), PSOC_OK);
  t0 = wall_seconds();
  ck_assert_int_eq(eval_limits("local a, b = ('x'):rep(8e6), ('x'):rep(8e6)\n"
                               "while true do local _ = a == b end", 0, 0, 100, err,
                               sizeof err, &cpu), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(err, "time limit exceeded (100 ms)") != NULL, "%s", err);
  ck_assert_msg(wall_seconds() - t0 < 5.0, "stopped after %.2f s", wall_seconds() - t0);
}
END_TEST

/* One watchdog serves every state: many short evaluations after each other
** each get their own deadline, and a fast script is never stopped. */
START_TEST(test_watchdog_many_states) {
  char err[1024];
  double cpu;
  int i;
  for (i = 0; i < 200; i++)
    ck_assert_int_eq(eval_limits("local n = 0 for i = 1, 1000 do n = n + i end return {}", 0, 0,
                                 50, err, sizeof err, &cpu), PSOC_OK);
  ck_assert_int_eq(eval_limits("local a, b = ('x'):rep(8e6), ('x'):rep(8e6)\n"
                               "while true do local _ = a == b end", 0, 0, 100, err,
                               sizeof err, &cpu), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(err, "time limit exceeded (100 ms)") != NULL, "%s", err);
  /* the state API: a deadline that passes while the host is busy between
  ** calls does not touch the next call */
  {
    psol_options o;
    lua_State *L;
    memset(&o, 0, sizeof o);
    o.time_limit_ms = 20;
    L = psol_newstate(&o, err, sizeof err);
    ck_assert_ptr_nonnull(L);
    ck_assert_int_eq(psol_dostring(L, "=a", "return 1", 8, 1), LUA_OK);
    lua_pop(L, 1);
    {
      double t0 = cpu_seconds();
      volatile unsigned long spin = 0;
      while (cpu_seconds() - t0 < 0.05) spin++; /* past the old deadline */
    }
    ck_assert_int_eq(psol_dostring(L, "=b", "local n = 0 for i = 1, 1e4 do n = n + i end", 43,
                                   0), LUA_OK);
    psol_close(L);
  }
}
END_TEST

/* ---- C functions charge their work --------------------------------------- */

typedef struct costly {
  const char *what;
  const char *setup; /* run in both */
  const char *base;  /* the baseline call */
  const char *call;  /* the measured call */
  uint64_t min;      /* it must cost at least this many instructions more (90% of the
                        elements or values: charges come in batches; 50% for what
                        is charged by the byte, whose allocations 5.1 may share) */
  int min_version;   /* LUA_VERSION_NUM it needs, 0 for all */
} costly;

#define N5 "1e5"
#define NV "7000" /* values on the stack: 5.1 allows about 8000 */
static const costly costlies[] = {
  { "table.concat of empty strings", "local t = {} for i = 1, " N5 " do t[i] = '' end",
    "local s = #t", "local s = table.concat(t)", 90000, 0 },
  { "table.concat with a separator", "local t = {} for i = 1, " N5 " do t[i] = '' end",
    "local s = #t", "local s = table.concat(t, '', 1, #t)", 90000, 0 },
  { "table.unpack", "local t, unpack = {}, table.unpack or unpack for i = 1, " NV
    " do t[i] = i end", "local n = #t", "local n = select('#', unpack(t))", 6300, 0 },
  { "select over many arguments",
    "local t, unpack = {}, table.unpack or unpack for i = 1, " NV " do t[i] = i end\n"
    "local function nop() return 0 end", /* not vararg: 5.1 would make an 'arg' table */
    "local n = nop(unpack(t))", "local n = select(-1, unpack(t))", 6300, 0 },
  { "string.byte of a whole string", "local s = ('x'):rep(" NV ")", "local n = #s",
    "local n = select('#', s:byte(1, -1))", 6300, 0 },
  { "string.char of many bytes",
    "local t, unpack = {}, table.unpack or unpack for i = 1, " NV " do t[i] = 65 end\n"
    "local function nop() return '' end",
    "local s = nop(unpack(t))", "local s = string.char(unpack(t))", 6300, 0 },
  { "string.format of a long format", "local f = ('%s'):rep(5000) local a = {}\n"
    "local unpack = table.unpack or unpack for i = 1, 5000 do a[i] = '' end\n"
    "local function nop() return '' end",
    "local s = nop(f, unpack(a))", "local s = f:format(unpack(a))", 10000, 0 },
  { "plain find of a long needle", "local s, n = ('a'):rep(1e5), ('a'):rep(1000) .. 'b'",
    "local i = #s", "local i = s:find(n, 1, true)", 1000000, 0 },
  { "a back-reference", "local s = ('a'):rep(2e4)", "local i = #s",
    "local i = s:find('^(a*)%1c')", 1000000, 0 },
  { "a long [set] at every position", "local s, p = ('a'):rep(1e4), '^[' .. ('b'):rep(1e4) .. 'a]*c'",
    "local i = #s", "local i = s:find(p)", 1000000, 0 },
  { "tonumber of a long numeral", "local s = ('1'):rep(1e6)", "local n = #s",
    "local n = tonumber(s)", 31000, 0 },
  { "load with a reader of many pieces",
    "local k = 0 local function rd() k = k + 1 if k <= 2e4 then return ' ' end end",
    "local f = k", "local f = load(rd)", 20000, 0 },
  { "table.insert at the front", "local t = {} for i = 1, " N5 " do t[i] = i end", "local n = #t",
    "table.insert(t, 1, 0)", 90000, 0 },
  { "table.remove at the front", "local t = {} for i = 1, " N5 " do t[i] = i end", "local n = #t",
    "table.remove(t, 1)", 90000, 0 },
  { "table.move", "local t = {} for i = 1, " N5 " do t[i] = i end", "local n = #t",
    "table.move(t, 1, #t, 2)", 90000, 503 },
  { "string.pack of padding", "local f = ('x'):rep(" N5 ")", "local n = #f",
    "local s = string.pack(f)", 90000, 503 },
  { "string.unpack of padding", "local f, s = ('x'):rep(" N5 "), ('a'):rep(" N5 ")",
    "local n = #f", "local p = string.unpack(f, s)", 90000, 503 },
  { "string.packsize", "local f = ('x'):rep(" N5 ")", "local n = #f",
    "local p = string.packsize(f)", 90000, 503 },
  { "utf8.char of many code points",
    "local t = {} for i = 1, " NV " do t[i] = 65 end local function nop() return '' end",
    "local s = nop(table.unpack(t))", "local s = utf8.char(table.unpack(t))", 6300, 503 },
};

#define COSTLY_COUNT ((int)(sizeof costlies / sizeof costlies[0]))

static uint64_t cost_of_chunk(lua_State *L, const char *src) {
  char msg[1024];
  int st = psol_dostring(L, "=cost", src, strlen(src), 0);
  if (st != LUA_OK) {
    psol_error_message(L, -1, msg, sizeof msg);
    ck_abort_msg("%s: %s", src, msg);
  }
  return psol_instructions(L);
}

START_TEST(test_c_work_is_charged) {
  const costly *c = &costlies[_i];
  psol_options o;
  char err[256], *a, *b;
  lua_State *L;
  uint64_t base, call;
  size_t n;
  if (c->min_version > LUA_VERSION_NUM) return;
  memset(&o, 0, sizeof o);
  o.instruction_limit = (uint64_t)1 << 40;
  L = psol_newstate(&o, err, sizeof err);
  ck_assert_ptr_nonnull(L);
  /* Allocation is charged too (PSOL_ALLOC_SHIFT): a collection between the
  ** runs may shrink the stack that the warm-up grew, and its regrowth then
  ** lands in one run only (Lua 5.3 made base and call differ by half the
  ** work now and then). No collection during the measurement. */
  lua_gc(L, LUA_GCSTOP, 0);
  n = strlen(c->setup) + strlen(c->base) + strlen(c->call) + 2;
  a = (char *)malloc(n);
  b = (char *)malloc(n);
  ck_assert(a && b);
  snprintf(a, n, "%s\n%s", c->setup, c->base);
  snprintf(b, n, "%s\n%s", c->setup, c->call);
  cost_of_chunk(L, a); /* warm up: the stack grows once */
  base = cost_of_chunk(L, a);
  call = cost_of_chunk(L, b);
  ck_assert_msg(call >= base + c->min, "%s: charged %llu instructions over the baseline, the work "
                "is at least %llu", c->what, (unsigned long long)(call > base ? call - base : 0),
                (unsigned long long)c->min);
  free(a);
  free(b);
  psol_close(L);
}
END_TEST

/* A __len that answers small for an estimate and huge for the work: the
** length is read once, so the work is what was charged. */
START_TEST(test_lying_len) {
  static const char *const srcs[] = {
    "local k = 0 local t = setmetatable({}, { __len = function() k = k + 1 "
    "return k == 1 and 1 or 2^40 end }) table.insert(t, 1, 0) return k",
    "local k = 0 local t = setmetatable({ 1 }, { __len = function() k = k + 1 "
    "return k == 1 and 1 or 2^40 end }) table.remove(t, 1) return k",
    "local k = 0 local t = setmetatable({}, { __len = function() k = k + 1 "
    "return k == 1 and 1 or 2^40 end }) local s = table.concat(t, '', 2) return k",
  };
  size_t i;
  for (i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
    char err[1024];
    double cpu;
    psoc_status st = eval_limits(srcs[i], 1000000, (size_t)32 << 20, 60000, err, sizeof err,
                                 &cpu);
    /* the script returns a number, not a pipeline: it ran to the end */
    ck_assert_msg(st == PSOC_ERR_INVALID && strstr(err, "returned number") != NULL, "%zu: %s", i,
                  err);
    ck_assert_msg(cpu < CPU_BOUND, "%zu: took %.2f s of CPU", i, cpu);
  }
}
END_TEST

/* Weak keys and finalizers cannot be slipped into a metatable after
** setmetatable: the metatable in force is a snapshot. */
START_TEST(test_metatable_snapshot) {
  static const char chain[] =
    "local mt = {} local t = setmetatable({}, mt) mt.__mode = 'k'\n"
    "local k = {} for i = 1, 2e5 do local n = {} t[k] = n k = n end\n"
    "for i = 1, 200 do local g = ('x'):rep(1e5) .. i end\n"
    "assert(getmetatable(t) == mt)\n"
    "mt.__index = function() return 42 end assert(t.zzz == nil)\n"
    "local ok, e = pcall(setmetatable, {}, { __mode = 'k' })\n"
    "assert(not ok and e:find('weak keys'), e)\n"
    "assert(getmetatable(setmetatable({}, { __mode = 'kv' })).__mode == 'kv')\n"
    "local C = {} C.__index = C function C.get() return 7 end\n"
    "assert(setmetatable({}, C).get() == 7)\n"
    "assert(getmetatable(setmetatable({}, { __metatable = 'locked' })) == 'locked')\n"
    "error('done', 0)";
  char err[1024];
  double cpu;
  ck_assert_int_eq(eval_limits(chain, 0, (size_t)64 << 20, 60000, err, sizeof err, &cpu),
                   PSOC_ERR_INVALID);
  ck_assert_msg(strcmp(err, "done") == 0, "%s", err);
  ck_assert_msg(cpu < 4 * CPU_BOUND, "took %.2f s of CPU", cpu);
}
END_TEST

/* ---- memory ------------------------------------------------------------- */

/* Garbage the emergency collection frees does not fail a script: each
** string below is 3 MiB of a 16 MiB limit, and only one is kept. (Made by
** concatenation: 5.3's string.rep grows a luaL_Buffer box, which calls
** the allocator directly, with no emergency collection.) */
START_TEST(test_memory_limit_exact) {
  static const char src[] =
    "local s, keep = ('x'):rep(1024 * 1024)\n"
    "for i = 1, 64 do keep = s .. s .. s .. i end\n"
    "return {}";
  char err[1024];
  double cpu;
  psoc_status st = eval_limits(src, 0, (size_t)16 << 20, 60000, err, sizeof err, &cpu);
  if (PSOL_COMPAT_EMERGENCY_GC) ck_assert_msg(st == PSOC_OK, "%s", err);
  else ck_assert_msg(st == PSOC_OK || strstr(err, "memory limit exceeded"), "%s", err);
  /* and what does not fit still fails, with the limit's message */
  st = eval_limits("local a = string.rep('x', 9e6) local b = string.rep('y', 9e6) .. '' return {}",
                   0, (size_t)16 << 20, 60000, err, sizeof err, &cpu);
  ck_assert_int_eq(st, PSOC_ERR_INVALID);
  ck_assert_msg(strstr(err, "memory limit exceeded (16777216 bytes)") != NULL, "%s", err);
}
END_TEST

typedef struct log_sink {
  size_t calls, bytes;
  char last[256];
} log_sink;

static void sink(void *ud, const char *text, size_t len) {
  log_sink *s = (log_sink *)ud;
  s->calls++;
  s->bytes += len;
  snprintf(s->last, sizeof s->last, "%.*s", (int)(len < 255 ? len : 255), text);
}

START_TEST(test_print_output_capped) {
  static const char src[] = "for i = 1, 1e5 do print(('x'):rep(99)) end return {}";
  psol_options o;
  psol_result r;
  log_sink s;
  memset(&o, 0, sizeof o);
  memset(&s, 0, sizeof s);
  o.log = sink;
  o.ud = &s;
  o.log_limit = 1000;
  ck_assert_int_eq(psol_evaluate_string(&o, "=print", src, strlen(src), &r), PSOC_OK);
  psol_result_free(&r);
  ck_assert_uint_eq(s.calls, 11); /* 10 lines of 100 bytes, then the note */
  ck_assert_str_eq(s.last, "(print output truncated: more than 1000 bytes)\n");
  memset(&s, 0, sizeof s);
  o.log_limit = 0; /* the default: 1 MiB */
  ck_assert_int_eq(psol_evaluate_string(&o, "=print", src, strlen(src), &r), PSOC_OK);
  psol_result_free(&r);
  ck_assert_uint_le(s.bytes, PSOL_DEFAULT_LOG_LIMIT + 100);
  ck_assert_str_eq(s.last, "(print output truncated: more than 1048576 bytes)\n");
}
END_TEST

/* ---- files ---------------------------------------------------------------- */

static char ftmp[256], froot[300], fout[300];

static void file_tree(void) {
  char p[600], q[600];
  FILE *f;
  snprintf(ftmp, sizeof ftmp, "%s/psol_files.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(ftmp));
  snprintf(froot, sizeof froot, "%s/root", ftmp);
  snprintf(fout, sizeof fout, "%s/outside", ftmp);
  ck_assert_int_eq(mkdir(froot, 0700), 0);
  ck_assert_int_eq(mkdir(fout, 0700), 0);
  snprintf(p, sizeof p, "%s/secret.cso", fout);
  f = fopen(p, "wb");
  ck_assert_ptr_nonnull(f);
  fputs("secret", f);
  fclose(f);
  snprintf(p, sizeof p, "%s/cs.cso", froot);
  f = fopen(p, "wb");
  ck_assert_ptr_nonnull(f);
  fputs("DXBC fake", f);
  fclose(f);
  snprintf(p, sizeof p, "%s/escape", froot); /* -> the outside directory */
  ck_assert_int_eq(symlink(fout, p), 0);
  snprintf(p, sizeof p, "%s/to_secret.cso", froot);
  snprintf(q, sizeof q, "%s/secret.cso", fout);
  ck_assert_int_eq(symlink(q, p), 0);
  snprintf(p, sizeof p, "%s/to_missing.cso", froot);
  snprintf(q, sizeof q, "%s/missing.cso", fout);
  ck_assert_int_eq(symlink(q, p), 0);
  snprintf(p, sizeof p, "%s/relative_out.cso", froot);
  ck_assert_int_eq(symlink("../outside/secret.cso", p), 0);
  snprintf(p, sizeof p, "%s/inner.cso", froot); /* a link that stays inside */
  ck_assert_int_eq(symlink("cs.cso", p), 0);
  snprintf(p, sizeof p, "%s/fifo.cso", froot);
  ck_assert_int_eq(mkfifo(p, 0600), 0);
  snprintf(p, sizeof p, "%s/fifo.lua", froot);
  ck_assert_int_eq(mkfifo(p, 0600), 0);
}

static void file_tree_remove(void) {
  static const char *const names[] = {
    "root/cs.cso", "root/escape", "root/to_secret.cso", "root/to_missing.cso",
    "root/relative_out.cso", "root/inner.cso", "root/fifo.cso", "root/fifo.lua",
    "outside/secret.cso", "root", "outside", NULL
  };
  char p[600];
  int i;
  for (i = 0; names[i]; i++) {
    snprintf(p, sizeof p, "%s/%s", ftmp, names[i]);
    if (remove(p) != 0) rmdir(p);
  }
  rmdir(ftmp);
}

static psoc_status shader_error(const char *name, char *err, size_t errlen) {
  const char *roots[1];
  psol_options o;
  psol_result r;
  char src[1024];
  psoc_status st;
  roots[0] = froot;
  memset(&o, 0, sizeof o);
  o.roots = roots;
  o.root_count = 1;
  snprintf(src, sizeof src, "local pso = require 'pso' return pso.compute { cs = pso.shader '%s' }",
           name);
  st = psol_evaluate_string(&o, "=files", src, strlen(src), &r);
  snprintf(err, errlen, "%s", r.error);
  psol_result_free(&r);
  return st;
}

START_TEST(test_outside_roots_one_answer) {
  char names[10][700], first[1024], err[1024];
  int i, n = 0;
  snprintf(names[n++], sizeof names[0], "%s/secret.cso", fout);  /* absolute, exists */
  snprintf(names[n++], sizeof names[0], "%s/missing.cso", fout); /* absolute, missing */
  snprintf(names[n++], sizeof names[0], "%s/nodir/missing.cso", fout);
  snprintf(names[n++], sizeof names[0], "../outside/secret.cso");
  snprintf(names[n++], sizeof names[0], "../outside/missing.cso");
  snprintf(names[n++], sizeof names[0], "escape/secret.cso");
  snprintf(names[n++], sizeof names[0], "escape/missing.cso");
  snprintf(names[n++], sizeof names[0], "to_secret.cso");
  snprintf(names[n++], sizeof names[0], "to_missing.cso");
  snprintf(names[n++], sizeof names[0], "relative_out.cso");
  for (i = 0; i < n; i++) {
    ck_assert_int_eq(shader_error(names[i], err, sizeof err), PSOC_ERR_INVALID);
    ck_assert_msg(strstr(err, "outside the material roots") != NULL, "%s: %s", names[i], err);
    if (i == 0) snprintf(first, sizeof first, "%s", strstr(err, "': ") + 3);
    else ck_assert_str_eq(strstr(err, "': ") + 3, first);
    ck_assert_msg(strstr(err, "No such") == NULL && strstr(err, "not found") == NULL, "%s: %s",
                  names[i], err);
  }
  /* inside: links that stay inside work, missing files say so */
  ck_assert_int_eq(shader_error("inner.cso", err, sizeof err), PSOC_OK);
  ck_assert_int_eq(shader_error("escape/../cs.cso", err, sizeof err), PSOC_ERR_INVALID);
  ck_assert_int_eq(shader_error("nothere.cso", err, sizeof err), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(err, "not found") != NULL, "%s", err);
}
END_TEST

START_TEST(test_fifo_never_blocks) {
  const char *roots[1];
  psol_options o;
  psol_result r;
  char err[1024], path[700];
  static const char req[] = "return require 'fifo'";
  double t0 = cpu_seconds();
  ck_assert_int_eq(shader_error("fifo.cso", err, sizeof err), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(err, "not a regular file") != NULL, "%s", err);
  roots[0] = froot;
  memset(&o, 0, sizeof o);
  o.roots = roots;
  o.root_count = 1;
  ck_assert_int_eq(psol_evaluate_string(&o, "=req", req, strlen(req), &r), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "not a regular file") != NULL, "%s", r.error);
  psol_result_free(&r);
  snprintf(path, sizeof path, "%s/fifo.lua", froot);
  ck_assert_int_eq(psol_evaluate_file(&o, path, &r), PSOC_ERR_INVALID);
  ck_assert_msg(strstr(r.error, "not a regular file") != NULL, "%s", r.error);
  psol_result_free(&r);
  ck_assert(cpu_seconds() - t0 < CPU_BOUND);
}
END_TEST

void sandbox_limit_cases(Suite *s) {
  TCase *tc = tcase_create("limits");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_runaway_stops, 0, RUNAWAY_COUNT);
  tcase_add_test(tc, test_watchdog_many_states);
  tcase_add_test(tc, test_watchdog_earlier_deadline);
  tcase_add_loop_test(tc, test_c_work_is_charged, 0, COSTLY_COUNT);
  tcase_add_test(tc, test_lying_len);
  tcase_add_test(tc, test_metatable_snapshot);
  tcase_add_test(tc, test_memory_limit_exact);
  tcase_add_test(tc, test_print_output_capped);
  suite_add_tcase(s, tc);
  tc = tcase_create("files");
  tcase_add_checked_fixture(tc, file_tree, file_tree_remove);
  tcase_add_test(tc, test_outside_roots_one_answer);
  tcase_add_test(tc, test_fifo_never_blocks);
  suite_add_tcase(s, tc);
}
