/*
** confine.c: file confinement (confine.h): roots, the inside test,
** component-wise resolution, reading regular files and sorted directory
** listings. All OS calls go through platform.h.
*/
#include "confine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = (char *)malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

/* The next component of the path at *p ("" at the end), its length in
** *len; *p moves past it. */
static const char *next_component(const char **p, size_t *len) {
  const char *c = *p, *end;
  while (*c == '/') c++;
  end = strchr(c, '/');
  if (!end) end = c + strlen(c);
  *len = (size_t)(end - c);
  *p = end;
  return c;
}

/* Drop the last component of out[0..*rl) (lexical ".."). */
static void drop_component(char *out, size_t *rl) {
  while (*rl > 0 && out[*rl - 1] != '/') (*rl)--;
  if (*rl > 0) (*rl)--;
  out[*rl] = '\0';
}

/* 'path' (absolute) with "." and ".." taken lexically, into
** out[PSOC_CONFINE_PATH_MAX]; 0 or ENAMETOOLONG. */
static int lexical(const char *path, char *out) {
  const char *p = path;
  size_t rl = 0;
  for (;;) {
    size_t cl;
    const char *c = next_component(&p, &cl);
    if (cl == 0) break;
    if (cl == 2 && c[0] == '.' && c[1] == '.') {
      drop_component(out, &rl);
    } else if (!(cl == 1 && c[0] == '.')) {
      if (rl + 1 + cl >= PSOC_CONFINE_PATH_MAX) return ENAMETOOLONG;
      out[rl++] = '/';
      memcpy(out + rl, c, cl);
      rl += cl;
    }
  }
  if (rl == 0) out[rl++] = '/';
  out[rl] = '\0';
  return 0;
}

int psoc_confine_absolute(const char *path, char *out) {
  char cwd[PSOC_CONFINE_PATH_MAX], joined[2 * PSOC_CONFINE_PATH_MAX];
  int e;
  if (path[0] == '/') {
    if (strlen(path) >= sizeof joined) return ENAMETOOLONG;
    memcpy(joined, path, strlen(path) + 1);
  } else {
    if ((e = psoc_plat_realpath(".", cwd)) != 0) return e;
    size_t cl = strlen(cwd), pl = strlen(path);
    if (cl + 1 + pl >= sizeof joined) return ENAMETOOLONG;
    memcpy(joined, cwd, cl + 1);
    joined[cl] = '/';
    memcpy(joined + cl + 1, path, pl + 1);
  }
  return lexical(joined, out);
}

void psoc_confine_root_close_dir(psoc_confine_root *root) {
  if (root->dir_state == PSOC_CONFINE_DIR_OPEN) psoc_plat_dirh_close(&root->dir);
  root->dir_state = PSOC_CONFINE_DIR_NONE;
}

void psoc_confine_root_free(psoc_confine_root *root) {
  psoc_confine_root_close_dir(root);
  free(root->shown);
  free(root->real);
  root->shown = root->real = NULL;
}

int psoc_confine_root_init(psoc_confine_root *root, const char *dir, int virtual) {
  char buf[PSOC_CONFINE_PATH_MAX];
  int e;
  root->shown = root->real = NULL;
  root->dir_state = PSOC_CONFINE_DIR_NONE;
  e = psoc_plat_realpath(dir, buf);
  if ((e == ENOENT || e == ENOTDIR) && virtual) e = psoc_confine_absolute(dir, buf);
  else if (e == 0) e = psoc_plat_is_dir(buf);
  if (e != 0) return e;
  root->shown = dup_str(dir);
  root->real = dup_str(buf);
  if (!root->shown || !root->real) {
    psoc_confine_root_free(root);
    return ENOMEM;
  }
  return 0;
}

int psoc_confine_root_init_dirname(psoc_confine_root *root, const char *path, int virtual) {
  const char *slash = strrchr(path, '/');
  char dir[PSOC_CONFINE_PATH_MAX];
  size_t n;
  if (!slash) return psoc_confine_root_init(root, ".", virtual);
  n = slash == path ? 1 : (size_t)(slash - path);
  if (n >= sizeof dir) return ENAMETOOLONG;
  memcpy(dir, path, n);
  dir[n] = '\0';
  return psoc_confine_root_init(root, dir, virtual);
}

int psoc_confine_inside(const char *real, const char *root) {
  size_t n = strlen(root);
  if (n == 1 && root[0] == '/') return 1;
  return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

int psoc_confine_place(const psoc_confine_root *roots, size_t count, const char *real) {
  size_t i;
  int above = 0;
  const char *r = real[0] ? real : "/";
  for (i = 0; i < count; i++) {
    if (!roots[i].real) continue;
    if (psoc_confine_inside(r, roots[i].real)) return PSOC_CONFINE_INSIDE;
    if (psoc_confine_inside(roots[i].real, r)) above = 1;
  }
  return above ? PSOC_CONFINE_ABOVE : PSOC_CONFINE_OUTSIDE;
}

/* out[at..] = s (len bytes), cut so that a NUL still fits in n; the new end. */
static size_t join_part(char *out, size_t n, size_t at, const char *s, size_t len) {
  size_t room = at + 1 < n ? n - 1 - at : 0;
  if (len > room) len = room;
  memcpy(out + at, s, len);
  return at + len;
}

/* (memcpy, not snprintf: the sandbox joins a path for every file a script
** names, and snprintf's format parsing was most of that cost) */
void psoc_confine_join(char *out, size_t n, const char *dir, const char *name) {
  size_t len = strlen(dir), at = 0;
  if (n == 0) return;
  if (!(len == 1 && dir[0] == '.')) {
    at = join_part(out, n, at, dir, len);
    if (len == 0 || dir[len - 1] != '/') at = join_part(out, n, at, "/", 1);
  }
  at = join_part(out, n, at, name, strlen(name));
  out[at] = '\0';
}

int psoc_confine_resolve(const psoc_confine_root *roots, size_t count, const char *path,
                         char *out) {
  char pending[2 * PSOC_CONFINE_PATH_MAX], target[PSOC_CONFINE_PATH_MAX];
  const char *p;
  size_t rl = 0, n;
  int links = 0, missing = 0, kind, e;
  n = strlen(path);
  if (n >= sizeof pending) return ENAMETOOLONG;
  memcpy(pending, path, n + 1);
  p = pending;
  out[0] = '\0';
  for (;;) {
    size_t cl;
    const char *c = next_component(&p, &cl);
    if (cl == 0) break;
    if (cl == 1 && c[0] == '.') continue;
    if (cl == 2 && c[0] == '.' && c[1] == '.') { /* out holds no symlinks: lexical is real */
      drop_component(out, &rl);
      continue;
    }
    if (rl + 1 + cl >= PSOC_CONFINE_PATH_MAX) return ENAMETOOLONG;
    out[rl++] = '/';
    memcpy(out + rl, c, cl);
    rl += cl;
    out[rl] = '\0';
    if (missing) continue;
    switch (psoc_confine_place(roots, count, out)) {
    case PSOC_CONFINE_OUTSIDE: return PSOC_CONFINE_LEAVES;
    case PSOC_CONFINE_ABOVE: continue; /* a real directory above a root */
    default: break;
    }
    if ((e = psoc_plat_lstat(out, &kind)) != 0) return e;
    if (kind == PSOC_PLAT_MISSING) {
      missing = 1;
      continue;
    }
    if (kind != PSOC_PLAT_LINK) continue;
    if (++links > 40) return ELOOP;
    if ((e = psoc_plat_readlink(out, target, sizeof target)) != 0) return e;
    /* pending = target + the rest */
    n = strlen(target);
    if (n + 1 + strlen(p) >= sizeof pending) return ENAMETOOLONG;
    memmove(pending + n + 1, p, strlen(p) + 1);
    memcpy(pending, target, n);
    pending[n] = '/';
    p = pending;
    if (target[0] == '/') rl = 0;
    else
      while (rl > 0 && out[--rl] != '/') {
      }
    out[rl] = '\0';
  }
  if (rl == 0) {
    out[0] = '/';
    out[1] = '\0';
  }
  if (psoc_confine_place(roots, count, out) != PSOC_CONFINE_INSIDE) return PSOC_CONFINE_LEAVES;
  return missing ? PSOC_CONFINE_MISSING : PSOC_CONFINE_FOUND;
}

/* Does 'rel' have a ".." component? */
static int has_dotdot(const char *rel) {
  const char *p = rel;
  for (;;) {
    size_t cl;
    const char *c = next_component(&p, &cl);
    if (cl == 0) return 0;
    if (cl == 2 && c[0] == '.' && c[1] == '.') return 1;
  }
}

/* The confined open of psoc_confine_open: FOUND or MISSING as the walk
** would answer them, or 0 when the walk must answer. A success of the
** kernel's lookup beneath the root means that every component was inside
** the root and none a symlink, so the walk would have found the same file
** at the lexical form of 'path'; ENOENT means the same up to the missing
** component, after which the walk joins the rest lexically, which without
** ".." stays inside the root. */
static int open_beneath(psoc_confine_root *roots, size_t count, const char *path, uint64_t limit,
                        char *out, psoc_confine_file *file) {
  psoc_confine_root *root = NULL;
  const char *rel;
  size_t i;
  int kind, e;
  for (i = 0; i < count && !root; i++)
    if (roots[i].real && psoc_confine_inside(path, roots[i].real)) root = &roots[i];
  if (!root) return 0;
  rel = path + strlen(root->real);
  while (*rel == '/') rel++;
  if (*rel == '\0') return 0;
  if (root->dir_state == PSOC_CONFINE_DIR_NONE)
    root->dir_state = psoc_plat_dirh_open(root->real, &root->dir) == 0
                          ? PSOC_CONFINE_DIR_OPEN
                          : PSOC_CONFINE_DIR_UNAVAILABLE;
  if (root->dir_state != PSOC_CONFINE_DIR_OPEN) return 0;
  e = psoc_plat_open_beneath(&root->dir, rel, limit, &kind, &file->f);
  if (e == ENOENT && !has_dotdot(rel)) return lexical(path, out) == 0 ? PSOC_CONFINE_MISSING : 0;
  if (e != 0) return 0;
  if (lexical(path, out) != 0) {
    psoc_plat_close(&file->f);
    return 0;
  }
  if (kind != PSOC_PLAT_FILE) file->err = PSOC_PLAT_ENOTREG;
  else if (file->f.size > limit || file->f.size > (uint64_t)(size_t)-1 - 1)
    file->err = PSOC_CONFINE_TOO_LARGE;
  else file->open = 1;
  if (!file->open) psoc_plat_close(&file->f);
  return PSOC_CONFINE_FOUND;
}

int psoc_confine_open(psoc_confine_root *roots, size_t count, const char *path, uint64_t limit,
                      char *out, psoc_confine_file *file) {
  uint64_t want;
  int r, e;
  memset(file, 0, sizeof *file); /* open 0: f is only closed when open */
  if ((r = open_beneath(roots, count, path, limit, out, file)) != 0) return r;
  r = psoc_confine_resolve(roots, count, path, out);
  if (r != PSOC_CONFINE_FOUND) return r;
  e = psoc_plat_regular_size(out, &want);
  if (e == 0 && (want > limit || want > (uint64_t)(size_t)-1 - 1)) e = PSOC_CONFINE_TOO_LARGE;
  if (e == 0) e = psoc_plat_open_checked(out, &file->f);
  file->err = e;
  file->open = e == 0;
  return r;
}

int psoc_confine_read_file(psoc_confine_file *file, void *(*alloc)(void *ud, size_t size),
                           void *ud, void **data, size_t *size) {
  size_t want = (size_t)file->f.size;
  void *buf;
  int e;
  *data = NULL;
  *size = 0;
  if (!file->open) return file->err ? file->err : EBADF;
  buf = alloc(ud, want ? want : 1); /* may raise: the file stays with its owner */
  if (!buf) {
    psoc_confine_file_close(file);
    return ENOMEM;
  }
  *data = buf;
  e = psoc_plat_read(&file->f, buf, want, size);
  psoc_confine_file_close(file);
  return e;
}

void psoc_confine_file_close(psoc_confine_file *file) {
  if (file->open) psoc_plat_close(&file->f);
  file->open = 0;
}

int psoc_confine_read(const char *path, uint64_t limit, void *(*alloc)(void *ud, size_t size),
                      void *ud, void **data, size_t *size) {
  psoc_plat_file f;
  uint64_t want;
  void *buf;
  int e;
  *data = NULL;
  *size = 0;
  if ((e = psoc_plat_regular_size(path, &want)) != 0) return e;
  if (want > limit || want > (uint64_t)(size_t)-1 - 1) return PSOC_CONFINE_TOO_LARGE;
  buf = alloc(ud, want ? (size_t)want : 1); /* first: nothing is open if it raises */
  if (!buf) return ENOMEM;
  *data = buf;
  if ((e = psoc_plat_open_checked(path, &f)) != 0) return e; /* just found regular */
  e = psoc_plat_read(&f, buf, (size_t)want, size);
  psoc_plat_close(&f);
  return e;
}

const char *psoc_confine_strerror(int e) {
  if (e == PSOC_CONFINE_TOO_LARGE) return "larger than the memory limit";
  if (e == PSOC_CONFINE_LEAVES) return "outside the material roots";
  return psoc_plat_strerror(e);
}

void psoc_confine_paths_free(psoc_confine_paths *paths) {
  size_t i;
  for (i = 0; i < paths->count; i++) free(paths->items[i]);
  free(paths->items);
  memset(paths, 0, sizeof *paths);
}

static int paths_add(psoc_confine_paths *l, const char *path) {
  char *copy;
  if (l->count == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    char **p = (char **)realloc(l->items, cap * sizeof *p);
    if (!p) return ENOMEM;
    l->items = p;
    l->cap = cap;
  }
  if (!(copy = dup_str(path))) return ENOMEM;
  l->items[l->count++] = copy;
  return 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A listed entry: its kind (psoc_plat_list_dir's, of the entry itself)
** as the digit '0' + kind in the byte before its name. */
static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a + 1, *(char *const *)b + 1);
}

static int add_entry(void *ud, const char *name, int kind) {
  psoc_confine_paths *names = (psoc_confine_paths *)ud;
  char buf[PSOC_CONFINE_PATH_MAX + 1];
  size_t n = strlen(name);
  if (name[0] == '.') return 0; /* hidden */
  if (n >= PSOC_CONFINE_PATH_MAX) return 0; /* cannot be joined to a path */
  buf[0] = (char)('0' + kind);
  memcpy(buf + 1, name, n + 1);
  return paths_add(names, buf);
}

/* One listing of 'dir' with each entry's kind (readdir's d_type or the
** attributes the Windows listing gives: no lstat per entry), sorted by
** name; a regular file's status is taken only for a symlink. */
static int list_dir(const char *dir, const char *suffix, const char *exclude, int depth,
                    size_t max, psoc_confine_paths *out) {
  psoc_confine_paths names = { NULL, 0, 0 };
  size_t i;
  int e = psoc_plat_list_dir(dir, add_entry, &names);
  if (e == 0 && names.count) qsort(names.items, names.count, sizeof *names.items, cmp_names);
  for (i = 0; e == 0 && i < names.count; i++) {
    char full[PSOC_CONFINE_PATH_MAX];
    const char *name = names.items[i] + 1;
    int kind = names.items[i][0] - '0';
    uint64_t size;
    psoc_confine_join(full, sizeof full, dir, name);
    if (kind == PSOC_PLAT_DIR) {
      int r = depth > 0 ? list_dir(full, suffix, exclude, depth - 1, max, out) : 0;
      if (r == ENOMEM || r == E2BIG) e = r; /* a folder that cannot be read is skipped */
    } else if (ends_with(name, suffix) && !(exclude && ends_with(name, exclude)) &&
               (kind == PSOC_PLAT_FILE || psoc_plat_regular_size(full, &size) == 0)) {
      if (out->count == max) e = E2BIG;
      else e = paths_add(out, full);
    }
  }
  psoc_confine_paths_free(&names);
  return e;
}

int psoc_confine_list(const char *dir, const char *suffix, const char *exclude, int depth_max,
                      size_t max, psoc_confine_paths *out) {
  return list_dir(dir, suffix, exclude, depth_max, max, out);
}
