/*
** cook_eval.c: evaluate materials for 'psoc cook' on worker threads.
**
** Every material is evaluated by psol_evaluate_file in a fresh sandboxed
** state of its own (nothing one script does reaches another), checked, and
** turned into its cook unit, or taken from the cache when nothing it read
** has changed. Workers take the next material from a shared counter; each
** result is written into that material's own slot, and diagnostics are
** kept as text there, so that what is printed and what is merged does not
** depend on the number of threads or on which one ran first.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook.h"
#include "platform.h"
#include "psol.h"

/* ---- a growing text buffer -------------------------------------------- */

typedef struct text_buf {
  char *data;
  size_t len, cap;
  int failed; /* out of memory: the text is cut short */
} text_buf;

static void buf_add(text_buf *b, const char *s, size_t n) {
  char *p;
  size_t want;
  if (b->failed) return;
  if (b->len + n + 1 > b->cap) {
    want = b->cap ? b->cap : 256;
    while (want < b->len + n + 1) want *= 2;
    if ((p = realloc(b->data, want)) == NULL) {
      b->failed = 1;
      return;
    }
    b->data = p;
    b->cap = want;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static void buf_str(text_buf *b, const char *s) {
  if (s) buf_add(b, s, strlen(s));
}

static void buf_printf(text_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(PSOC_PRINTF_FORMAT, 2, 3)))
#endif
    ;
static void buf_printf(text_buf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) buf_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* The report: the text of every diagnostic, one a line; cook.c prints it
** through cli_text_block (control characters escaped). Newlines inside a
** message become spaces here so that one diagnostic stays one line. */
static void buf_line_text(text_buf *b, const char *s) {
  size_t start;
  if (!s) return;
  start = b->len;
  buf_str(b, s);
  if (b->failed) return;
  for (; start < b->len; start++)
    if (b->data[start] == '\n' || b->data[start] == '\r') b->data[start] = ' ';
}

static char *buf_take(text_buf *b) {
  char *s;
  if (b->data && !b->failed) return b->data;
  free(b->data);
  s = malloc(1);
  if (s) s[0] = '\0';
  return s;
}

/* ---- one material ---------------------------------------------------- */

static int fails(const cook_options *o, psoc_severity s) {
  return s == PSOC_SEVERITY_ERROR || (o->werror && s == PSOC_SEVERITY_WARNING);
}

/* "FILE:LINE: error: pipeline 'NAME': FIELD: message [CODE / ID]" */
static void report_diagnostic(text_buf *b, const char *script, const psol_diagnostic *d) {
  buf_line_text(b, d->file ? d->file : script);
  if (d->line > 0) buf_printf(b, ":%d", d->line);
  buf_printf(b, ": %s: ", psoc_severity_name(d->severity));
  if (d->pipeline && d->pipeline[0]) {
    buf_str(b, "pipeline '");
    buf_line_text(b, d->pipeline);
    buf_str(b, "': ");
  }
  if (d->field && d->field[0]) {
    buf_line_text(b, d->field);
    buf_str(b, ": ");
  }
  buf_line_text(b, d->message);
  buf_printf(b, " [%s", psoc_code_name(d->code));
  if (d->message_id) buf_printf(b, " / D3D12_MESSAGE_ID_%s", d->message_id);
  buf_str(b, "]\n");
}

/* Diagnostics of a finished evaluation into m->report; returns whether any
** of them fails the material. */
static int report_result(const cook_options *o, cook_material *m, const psol_result *r,
                         psoc_status status) {
  text_buf b = { NULL, 0, 0, 0 };
  size_t i;
  int failing = status != PSOC_OK;
  for (i = 0; i < r->diagnostic_count; i++) {
    report_diagnostic(&b, m->path, &r->diagnostics[i]);
    if (fails(o, r->diagnostics[i].severity)) failing = 1;
  }
  if (status != PSOC_OK && r->diagnostic_count == 0) {
    /* an evaluation that gives only its one-line error */
    buf_line_text(&b, r->error[0] ? r->error : "evaluation failed");
    buf_str(&b, "\n");
  }
  free(m->report);
  m->report = buf_take(&b);
  return failing;
}

static void set_report(cook_material *m, const char *fmt, const char *a, const char *c) {
  text_buf b = { NULL, 0, 0, 0 };
  buf_line_text(&b, m->path);
  buf_str(&b, strncmp(fmt, "cannot open", 11) == 0 ? ": " : ": error: ");
  buf_printf(&b, fmt, a, c);
  buf_str(&b, "\n");
  free(m->report);
  m->report = buf_take(&b);
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

/* m->files from what the evaluation read, each by its real path; the
** script itself is always the first entry, whether or not the list names
** it (hashed here when it does not). */
static int record_files(const cook_options *o, cook_material *m, const char *script_real,
                        const psol_result *r, char *err, size_t n) {
  char real[PSOC_PLAT_PATH_MAX];
  size_t i, k;
  cook_file *f = calloc(r->file_count + 1, sizeof *f);
  int have_script = 0;
  if (!f) goto nomem;
  m->files = f;
  if ((f[0].path = dup_str(script_real)) == NULL) goto nomem;
  m->file_count = 1;
  for (i = 0; i < r->file_count; i++) {
    const psol_file *rf = &r->files[i];
    const char *path = cook_memo_realpath(o->memo, rf->path, real) == 0 ? real : rf->path;
    if (strcmp(path, script_real) == 0) {
      f[0].hash = rf->hash;
      f[0].size = rf->size;
      have_script = 1;
      continue;
    }
    k = m->file_count;
    if ((f[k].path = dup_str(path)) == NULL) goto nomem;
    f[k].hash = rf->hash;
    f[k].size = rf->size;
    m->file_count++;
  }
  if (!have_script && cook_hash_file(script_real, &f[0].hash, &f[0].size, err, n) != 0) return -1;
  return 0;
nomem:
  snprintf(err, n, "out of memory");
  return -1;
}

/* The cook unit of an evaluated material: an archive of its pipelines. */
static int build_unit(cook_material *m, const psol_result *r, char *err, size_t n) {
  psoc_archive_writer *w = NULL;
  const void *data = NULL;
  size_t size = 0, i;
  char why[400] = "";
  psoc_status s = psoc_archive_writer_create(NULL, &w);
  for (i = 0; s == PSOC_OK && i < r->count; i++) {
    const psol_pipeline *p = &r->pipelines[i];
    s = psoc_archive_writer_add(w, p->name, p->root_signature, psoc_stream_data(p->stream),
                                psoc_stream_size(p->stream), why, sizeof why);
    if (s == PSOC_ERR_DUPLICATE)
      snprintf(why, sizeof why, "two pipelines of this material are called '%s'", p->name);
  }
  if (s == PSOC_OK) s = psoc_archive_writer_finish(w, &data, &size);
  if (s == PSOC_OK && (m->unit = malloc(size ? size : 1)) == NULL) s = PSOC_ERR_NOMEM;
  if (s == PSOC_OK) {
    memcpy(m->unit, data, size);
    m->unit_size = size;
    m->pipelines = r->count;
    /* verified here, on the worker: the merge then copies it as it is */
    s = psoc_archive_open_memory(m->unit, m->unit_size,
                                 PSOC_ARCHIVE_VERIFY_ALL | PSOC_ARCHIVE_REJECT_DAMAGED, NULL,
                                 &m->archive, why, sizeof why);
  }
  if (s != PSOC_OK) {
    snprintf(err, n, "cannot cook: %s", why[0] ? why : psoc_status_name(s));
  }
  psoc_archive_writer_free(w);
  return s == PSOC_OK ? 0 : -1;
}

static void cook_one(const cook_options *o, cook_material *m) {
  char real[PSOC_PLAT_PATH_MAX], err[512];
  const char *roots[1];
  psol_options opts;
  psol_result r;
  psoc_status s;
  uint64_t key = 0, script_size = 0;
  size_t i;
  int e, regular = 0;
  if ((e = cook_memo_script_realpath(o->memo, m->path, real, &regular)) != 0 ||
      (!regular && (e = psoc_plat_regular_size(real, &script_size)) != 0)) {
    set_report(m, "cannot open: %s%s", psoc_plat_strerror(e), "");
    m->failed = m->unreadable = 1;
    return;
  }
  if (o->cache_dir) {
    key = cook_cache_key(o, m->root, real);
    if (cook_cache_lookup(o, key, m)) return; /* m->evaluated stays 0 */
  }
  memset(&opts, 0, sizeof opts);
  opts.roots = o->roots;
  opts.root_count = o->root_count;
  if (!o->root_count && m->root) {
    roots[0] = m->root;
    opts.roots = roots;
    opts.root_count = 1;
  }
  opts.profile = o->profile;
  if (o->werror) opts.check_flags |= PSOC_CHECK_WERROR;
  m->evaluated = 1;
  s = psol_evaluate_file(&opts, m->path, &r);
  if (report_result(o, m, &r, s)) {
    m->failed = 1;
  } else if (record_files(o, m, real, &r, err, sizeof err) != 0 ||
             build_unit(m, &r, err, sizeof err) != 0) {
    set_report(m, "%s%s", err, "");
    m->failed = 1;
  } else {
    /* Only an evaluation that names what it read can be cached: the
    ** script alone would miss a changed module or shader. */
    m->cacheable = r.file_count > 0;
    m->key = key;
    m->unit_hash = cook_unit_fingerprint(m->unit, m->unit_size);
    m->unit_bytes = m->unit_size;
    if (o->cache_dir && m->cacheable && cook_cache_store(o, key, m, err, sizeof err) == 0) {
      /* the index records each file's status beside its content hash:
      ** taken (once per file and run) before its bytes are read again */
      m->indexed = 1;
      for (i = 0; i < m->file_count; i++) {
        uint64_t hash, size;
        (void)cook_memo_current(o->memo, m->files[i].path, &hash, &size);
      }
    }
  }
  psol_result_free(&r);
}

void cook_material_drop_unit(cook_material *m) {
  psoc_archive_close(m->archive); /* before the bytes it reads */
  free(m->unit);
  free(m->pack_idx);
  m->archive = NULL;
  m->unit = NULL;
  m->unit_size = 0;
  m->pack_idx = NULL;
}

void cook_material_free(cook_material *m) {
  size_t i;
  cook_material_drop_unit(m);
  for (i = 0; i < m->file_count; i++) free(m->files[i].path);
  free(m->files);
  free(m->report);
  free(m->pack_list_own);
  m->files = NULL;
  m->report = NULL;
  m->pack_list_own = NULL;
  m->pack_list = NULL;
  m->pack_list_len = 0;
  m->pack_old = m->pack_new = 0;
  m->from_entry = NULL;
  m->file_count = 0;
}

/* ---- workers ----------------------------------------------------------- */

typedef struct work {
  const cook_options *o;
  cook_material *m;
  size_t count, next, done;
  unsigned char *finished;     /* per material: evaluated (for the ready order) */
  size_t handed;               /* materials given to o->ready so far */
  int handing;                 /* a worker is calling o->ready */
  psoc_plat_mutex lock;
  uint64_t last_draw_ns;
} work;

#define BAR_WIDTH 30

/* "[#######.......]  12/100 materials" on stderr, redrawn in place. */
static void draw_progress(work *w, int final) {
  char bar[BAR_WIDTH + 1];
  size_t filled = w->count ? w->done * BAR_WIDTH / w->count : BAR_WIDTH, i;
  uint64_t now = psoc_plat_now_ns();
  if (!final && now - w->last_draw_ns < 50000000u) return; /* at most 20 a second */
  w->last_draw_ns = now;
  for (i = 0; i < BAR_WIDTH; i++) bar[i] = i < filled ? '#' : '.';
  bar[BAR_WIDTH] = '\0';
  fprintf(stderr, "\r[%s] %zu/%zu materials", bar, w->done, w->count);
  if (final) fputs("\r\033[K", stderr); /* leave the line empty for the summary */
  fflush(stderr);
}

static void worker(void *arg) {
  work *w = arg;
  for (;;) {
    size_t i;
    psoc_plat_mutex_lock(&w->lock);
    if (w->next >= w->count) {
      psoc_plat_mutex_unlock(&w->lock);
      return;
    }
    i = w->next++;
    psoc_plat_mutex_unlock(&w->lock);
    cook_one(w->o, &w->m[i]);
    psoc_plat_mutex_lock(&w->lock);
    w->done++;
    if (w->o->progress) draw_progress(w, 0);
    if (w->o->ready) {
      w->finished[i] = 1;
      /* Hand on the done prefix, in input order, one worker at a time; a
      ** worker that finishes meanwhile leaves its material to this loop. */
      if (!w->handing) {
        w->handing = 1;
        while (w->handed < w->count && w->finished[w->handed]) {
          cook_material *m = &w->m[w->handed++];
          psoc_plat_mutex_unlock(&w->lock);
          w->o->ready(w->o->ready_ud, m);
          psoc_plat_mutex_lock(&w->lock);
        }
        w->handing = 0;
      }
    }
    psoc_plat_mutex_unlock(&w->lock);
  }
}

#define MAX_JOBS 256

int cook_evaluate(const cook_options *o, cook_material *m, size_t count) {
  work w;
  psoc_plat_thread threads[MAX_JOBS];
  unsigned jobs = o->jobs < 1 ? 1 : o->jobs > MAX_JOBS ? MAX_JOBS : o->jobs, started = 0, i;
  memset(&w, 0, sizeof w);
  w.o = o;
  w.m = m;
  w.count = count;
  if (o->ready && (w.finished = calloc(count ? count : 1, 1)) == NULL) return -1;
  if (psoc_plat_mutex_init(&w.lock) != 0) {
    free(w.finished);
    return -1;
  }
  if (jobs > count) jobs = count ? (unsigned)count : 1;
  /* The calling thread is one of the workers. */
  for (i = 1; i < jobs; i++) {
    if (psoc_plat_thread_start(&threads[started], worker, &w) != 0) break;
    started++;
  }
  worker(&w);
  for (i = 0; i < started; i++) psoc_plat_thread_join(&threads[i]);
  if (o->progress) draw_progress(&w, 1);
  psoc_plat_mutex_destroy(&w.lock);
  free(w.finished);
  return 0;
}
