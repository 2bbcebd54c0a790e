/*
** sandbox_match.h: the sandbox's pattern matcher (sandbox_match.c), seen
** from the sandbox. The matcher knows nothing of the sandbox: the cost
** function it charges its steps to is handed over at installation, so
** the dependency runs one way (sandbox.c -> sandbox_match.c).
*/
#ifndef PSOL_SANDBOX_MATCH_H
#define PSOL_SANDBOX_MATCH_H

#include <stdint.h>

#include <lua.h>

/* Charge 'cost' steps of C work to the running script's budget; may raise
** a Lua error (the budget is spent, the clock ran out). */
typedef void (*psol_charge_fn)(lua_State *L, uint64_t cost);

/* Replace find, match, gmatch and gsub in the string library table at
** 'idx' with the budgeted matcher, which calls 'charge' every few
** thousand steps. Stores 'charge' in the registry (may raise a memory
** error: call it protected). */
void psol_match_install(lua_State *L, int idx, psol_charge_fn charge);

#endif
