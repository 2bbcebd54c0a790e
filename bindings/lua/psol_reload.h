/*
** psol_reload.h: hot reload of material scripts for development builds.
**
**   psol_reload_options o = {0};
**   const char *paths[] = { "materials" };      -- folders and/or scripts
**   o.paths = paths; o.path_count = 1;
**   psol_reload *r = psol_reload_create(&o, err, sizeof err);
**   ...each frame, on the render thread:
**   psol_reload_events ev;
**   psol_reload_poll(r, &ev);
**   for (size_t i = 0; i < ev.count; i++)
**     if (ev.events[i].kind == PSOL_RELOAD_CHANGED)
**       recreate_pso(ev.events[i].pipeline, psoc_stream_desc(ev.events[i].stream));
**   psol_reload_events_free(&ev);
**   ...
**   psol_reload_destroy(r);
**
** A folder stands for every *.lua under it (recursively, hidden entries and
** *_test.lua skipped, as 'psoc check DIR') and is those scripts' default
** material root. Every file an evaluation read (the script, its modules,
** pso.shader and pso.blob files: psol_result.files, and every path asked of
** read_file, found or not) is a dependency of that script and is watched.
**
** Reloading. The worker thread waits for file changes, then coalesces:
** it goes on collecting until a window of coalesce_ms (default 3 ms)
** passes without a change and no changed file is still open for writing
** (inotify's close-after-write), at most 20 windows, or 250 ms while a
** file stays open. So an editor's save burst (write to a temporary file
** and rename it over the original, truncate then write, several files at
** once) is one batch. The polling backend scans every poll_ms (default
** 50 ms), then every coalesce_ms until a scan sees nothing new. For each script that depends on a
** changed path it compares the content hash (XXH3-64) of each dependency
** with the one the last evaluation read: only scripts whose inputs really
** changed are evaluated again (a touch without change evaluates nothing).
** A changed pipeline is one whose psol_pipeline.hash changed.
**
** Last good wins. An evaluation that fails (syntax error, check error,
** missing shader or module, runaway script, deleted script) changes no
** pipeline: the last good stream stays what the engine uses, and one
** PSOL_RELOAD_FAILED event carries the diagnostics (file, line, field,
** message). The next good evaluation brings it back. A pipeline that a
** good evaluation no longer returns is PSOL_RELOAD_REMOVED.
**
** Versions: each pipeline (script path + name) has a version, 1 the first
** time it is returned, plus one at each change; a pipeline removed and
** added again continues its count.
**
** Threads (the contract, tested under ThreadSanitizer):
**   - psol_reload_create and psol_reload_destroy: the owning thread; no
**     other call may run on 'r' during or after destroy.
**   - psol_reload_poll and psol_reload_wait: one thread at a time (the
**     render thread); poll never blocks on an evaluation (it swaps a queue
**     under a lock held for a few pointer moves).
**   - psol_reload_notify, psol_reload_rescan, psol_reload_stats_get,
**     psol_reload_wait_batches and psol_reload_sync: any thread, at any
**     time.
**   - psol_reload_update: manual mode only (PSOL_RELOAD_WATCH_NONE),
**     the thread that polls.
**   - psol_reload_events_free: any thread, once per poll result.
**   - The callbacks of 'eval' (log, resolve_root_signature, read_file) run
**     on the worker thread (in manual mode, inside create and update).
** Lifetime: the events, their strings and streams belong to the
** psol_reload_events filled by poll and stay valid until
** psol_reload_events_free, independent of later polls and of destroy. An
** engine that wants to keep a stream may take it: set the event's
** 'stream' to NULL and free it later with psoc_stream_free.
**
** Nothing here prints or aborts; all OS calls go through src/platform.h.
*/
#ifndef PSOL_RELOAD_H
#define PSOL_RELOAD_H

#include <stddef.h>
#include <stdint.h>

#include "psol.h"

#ifndef PSOL_API /* the export macro of the public headers, where there is one */
#define PSOL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct psol_reload psol_reload;

#define PSOL_RELOAD_DEFAULT_COALESCE_MS 3u
#define PSOL_RELOAD_DEFAULT_POLL_MS 50u

typedef enum psol_reload_watch {
  PSOL_RELOAD_WATCH_AUTO = 0,   /* inotify or ReadDirectoryChangesW, else polling */
  PSOL_RELOAD_WATCH_NATIVE = 1, /* the OS's notifications; create fails without them */
  PSOL_RELOAD_WATCH_POLL = 2,   /* stat every watched folder each poll_ms */
  PSOL_RELOAD_WATCH_NONE = 3    /* manual: no thread, no watching; the engine
                                   calls psol_reload_notify/rescan + update */
} psol_reload_watch;

typedef struct psol_reload_options {
  const char *const *paths;  /* scripts and folders (copied) */
  size_t path_count;
  /* How each script is evaluated (copied; the roots too). Without roots a
  ** script from a folder gets that folder as its root, a script named
  ** directly its own directory. The read_file hook, if any, is wrapped:
  ** every path it is asked for becomes a dependency, and the content
  ** hashes that decide what to evaluate again come from it too. With a
  ** hook, a script path or root that does not exist on disk is taken as
  ** given (a virtual file system: notify its changes, nothing watches it). */
  psol_options eval;
  psol_reload_watch watch;
  uint32_t coalesce_ms;      /* 0 = PSOL_RELOAD_DEFAULT_COALESCE_MS */
  uint32_t poll_ms;          /* polling interval; 0 = PSOL_RELOAD_DEFAULT_POLL_MS */
} psol_reload_options;

typedef enum psol_reload_kind {
  PSOL_RELOAD_CHANGED = 1,   /* new (version 1) or changed: 'stream' is the new one */
  PSOL_RELOAD_REMOVED = 2,   /* the script no longer returns it */
  PSOL_RELOAD_FAILED = 3,    /* an evaluation of 'script' failed; its pipelines
                                are unchanged (last good wins) */
  PSOL_RELOAD_RECOVERED = 4  /* 'script' evaluated again after a failure (its
                                changed pipelines come as CHANGED beside it) */
} psol_reload_kind;

typedef struct psol_reload_event {
  psol_reload_kind kind;
  char *script;              /* the script's path (canonical: symlinks resolved) */
  char *pipeline;            /* CHANGED/REMOVED: the name ("" when unnamed); FAILED: NULL */
  char *root_signature;      /* CHANGED: psol_pipeline.root_signature (may be NULL) */
  psoc_kind pipeline_kind;   /* CHANGED */
  uint64_t version;          /* CHANGED/REMOVED: the pipeline's version */
  psoc_hash128 hash;         /* CHANGED: psol_pipeline.hash */
  psoc_stream *stream;       /* CHANGED: the new stream (the events own it) */
  /* FAILED: every diagnostic of the failed evaluation (errors and
  ** warnings); 'error' is the first error as "file:line: field: message". */
  psol_diagnostic *diagnostics;
  size_t diagnostic_count;
  char *error;               /* FAILED only, else NULL */
  uint64_t time_ns;          /* psoc_plat_now_ns when the evaluation finished */
} psol_reload_event;

typedef struct psol_reload_events {
  psol_reload_event *events;
  size_t count;
} psol_reload_events;

typedef struct psol_reload_stats {
  uint64_t batches;          /* coalesced change batches handled (incl. the first load) */
  uint64_t evaluations;      /* scripts evaluated */
  uint64_t unchanged;        /* scripts checked whose inputs hashed the same */
  uint64_t failures;         /* evaluations that failed */
  size_t scripts;            /* scripts known */
  int backend;               /* PSOL_RELOAD_WATCH_NATIVE, _POLL or _NONE */
} psol_reload_stats;

/* Start reloading 'opts->paths'. The first evaluation of every script
** runs on the worker thread (in manual mode: before create returns) and
** its pipelines arrive as CHANGED version 1 (failures as FAILED). NULL on
** failure with 'err' filled (a path that does not exist, no native
** watcher where one was asked for, out of memory). */
PSOL_API psol_reload *psol_reload_create(const psol_reload_options *opts, char *err, size_t errlen);
/* Stop the worker, free everything. Events already polled stay valid. */
PSOL_API void psol_reload_destroy(psol_reload *r);

/* Move the pending events into 'out' (count 0 when none). Never blocks on
** an evaluation. A pipeline changed several times between two polls is one
** event with the latest stream and version. 0, or PSOC_ERR_NOMEM (then
** the events stay queued). Always call psol_reload_events_free. */
PSOL_API psoc_status psol_reload_poll(psol_reload *r, psol_reload_events *out);
PSOL_API void psol_reload_events_free(psol_reload_events *ev);

/* Block until events are pending or 'timeout_ms' passed; 1 when pending. */
PSOL_API int psol_reload_wait(psol_reload *r, uint32_t timeout_ms);
/* Block until stats.batches >= 'batches' or 'timeout_ms' passed; 1 when
** reached. */
PSOL_API int psol_reload_wait_batches(psol_reload *r, uint64_t batches, uint32_t timeout_ms);

/* Block until every change made before the call (reported by the watcher
** by then, notified or asked for by rescan) has been handled and its
** events queued; 1 when done within 'timeout_ms'. A barrier for tools and
** tests: it does not wait for the coalescing window. Manual mode: the same
** as psol_reload_update. */
PSOL_API int psol_reload_sync(psol_reload *r, uint32_t timeout_ms);

/* Tell the library that 'path' may have changed (an engine's own watcher
** or virtual file system). Handled like a watcher's report. */
PSOL_API void psol_reload_notify(psol_reload *r, const char *path);
/* Check every dependency of every script by content hash (and walk the
** folders again for new scripts), as if all had changed. */
PSOL_API void psol_reload_rescan(psol_reload *r);
/* Manual mode: handle what notify and rescan asked for, now, on this
** thread. PSOC_ERR_ARG in the other modes (the worker does it). */
PSOL_API psoc_status psol_reload_update(psol_reload *r);

PSOL_API void psol_reload_stats_get(psol_reload *r, psol_reload_stats *out);

#ifdef __cplusplus
}
#endif

#endif
