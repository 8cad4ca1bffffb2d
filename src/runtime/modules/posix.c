/* POSIX module (id 1, record version 4): counters of runtime spec section 2.1.
 * Record state that is not logged (offset model of trap 1, trackers) lives in the
 * aux area the core reserves beside each record.  The wrappers themselves are in
 * posix_wrap.c; this file holds the record logic they call.
 *
 * errno: every function here leaves errno as it found it.  The fd paths (read,
 * write, seek, sync, close, dup, mmap) call nothing that can set it once the
 * module is active, so they do not save it; the first use of the module
 * (activation maps memory) and the name paths (cleaning, registration) do. */
#include "posix.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "../core/core_int.h"   /* iol_note */
#include "lustre.h"
#include "modules.h"

iol_posix_state iol_posix_st;

typedef struct aio_tracker {
    int used, fd;
    const void *cb;
    double t1;
} aio_tracker;
#define MAX_AIO 1024
static aio_tracker *aios;

static void rec_init(iol_module *m, const char *name, void *rec, void *aux)
{
    posix_rec *r = rec;
    posix_aux *a = aux;
    r->c[POSIX_MEM_ALIGNMENT] = iol_cfg.memalign;
    r->c[POSIX_FILE_ALIGNMENT] = iol_mount_block_size(name);
    a->rec = r;
    a->file_mask = iol_posix_align_mask(r->c[POSIX_FILE_ALIGNMENT]);
    iol_cv_init(&a->access);
    iol_cv_init(&a->stride);
}

static void activate(iol_module *m)
{
    struct rlimit rl;
    size_t cap = 65536;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY && rl.rlim_max > cap)
        cap = rl.rlim_max > (1u << 20) ? (1u << 20) : rl.rlim_max;
    posix_aux **tab = iol_map(cap * sizeof *tab);
    aios = iol_map(MAX_AIO * sizeof *aios);
    iol_posix_st.mem_mask = iol_posix_align_mask(iol_cfg.memalign);
    iol_posix_st.heatmap = iol_heatmap_register("POSIX", IOL_HM_SLOT_POSIX);
    iol_posix_st.dxt = iol_dxt_attach(IOL_MOD_DXT_POSIX);
    if (!tab)                          /* I/O by descriptor goes unrecorded */
        iol_partial_set(IOL_MOD_POSIX);
    iol_posix_st.fdcap = tab ? cap : 0;
    __atomic_store_n(&iol_posix_st.fdtab, tab, __ATOMIC_RELEASE);   /* after fdcap */
}

/* At shutdown: how many *at names fell back to the working directory. */
static void finish(iol_module *m)
{
    uint64_t n = iol_posix_dir_fallbacks();
    char v[24];
    if (n && snprintf(v, sizeof v, "%llu", (unsigned long long)n) > 0)
        iol_note("dirfd_cwd_fallbacks", v);
}

static void reset(iol_module *m)
{
    iol_posix_dirs_reset();
    iol_unmap(iol_posix_st.fdtab, iol_posix_st.fdcap * sizeof *iol_posix_st.fdtab);
    iol_unmap(aios, MAX_AIO * sizeof *aios);
    __atomic_store_n(&iol_posix_st.fdtab, NULL, __ATOMIC_RELAXED);
    aios = NULL;
    iol_posix_st.fdcap = 0;
    iol_posix_st.heatmap = NULL;
    iol_posix_st.dxt = NULL;
}

/* ------------------------------------------------------------ entering */
/* Out of line: runs once (or on every call while the module is off). */
__attribute__((noinline)) void iol_posix_first_use(void)
{
    int e = errno;
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (iol_mod_enter(m))
        iol_mod_leave(m);
    errno = e;
}

static inline iol_module *posix_mod(void) { return iol_mod(IOL_MOD_POSIX); }


static void map_fd(int fd, posix_aux *a)
{
    if ((unsigned)fd < iol_posix_st.fdcap)
        __atomic_store_n(&iol_posix_st.fdtab[fd], a, __ATOMIC_RELEASE);
    else
        iol_fail(IOL_FAIL_FDTABLE);
}

/* The aux of a cleaned name's record (lock held); NULL when it cannot be registered. */
static posix_aux *by_name(iol_module *m, const char *name, uint64_t id)
{
    void *a;
    return iol_rec_get(m, name, id, &a) ? a : NULL;
}

/* With the module lock held and a record's aux (or NULL): the record's lock
 * as well (rt.h iol_rec_lock_in_mod).  Returns a with both locks held (give them
 * back with leave_both), or NULL with neither. */
static inline __attribute__((always_inline)) posix_aux *to_record(iol_module *m, posix_aux *a)
{
    if (!a) {
        iol_mod_leave(m);
        return NULL;
    }
    return iol_rec_lock_in_mod(m, &a->lock) ? a : NULL;
}
static inline void leave_both(posix_aux *a) { iol_rec_leave_mod(posix_mod(), &a->lock); }

/* The aux of a path's record with the module's and the record's locks held, or
 * NULL (no lock; iol_rec_enter_path sets the aux only when it returns the
 * record). */
static inline __attribute__((always_inline)) posix_aux *enter_path(const char *path)
{
    void *a = NULL;
    iol_module *m = posix_mod();
    iol_rec_enter_path(m, path, &a);   /* (its record pointer is not needed here) */
    if (!a)
        return NULL;
    return iol_rec_lock_in_mod(m, &((posix_aux *)a)->lock) ? a : NULL;
}

int iol_posix_fd_name(int fd, char *out, size_t len)
{
    posix_aux *a = iol_posix_enter_fd(fd);
    if (!a)
        return -1;
    const char *name = iol_name_of(a->rec->id);
    if (name)
        snprintf(out, len, "%s", name);
    iol_posix_leave(a);
    return name ? 0 : -1;
}

/* The part of an *at path below its directory: a leading "./" (repeated, with
 * extra slashes) names nothing, and "." alone is the directory itself, so
 * openat(d, ".") gets the directory's own record, not "<dir>/.".  Everything
 * else is cleaned later as any path is (runtime spec 2.0.1: "//" and "/./"
 * collapse, ".." and an inner or trailing "/." stay). */
static const char *below_dir(const char *path)
{
    while (path[0] == '.' && path[1] == '/') {
        path += 2;
        while (*path == '/')
            path++;
    }
    return (path[0] == '.' && path[1] == '\0') ? path + 1 : path;
}

const char *iol_posix_at_path(int dirfd, const char *path, char *buf, size_t len)
{
    if (!path || path[0] == '/' || dirfd == AT_FDCWD)
        return path;
    char dir[IOL_PATH_LEN];
    int e = errno;
    int found = iol_posix_fd_name(dirfd, dir, sizeof dir) == 0 ||
                iol_posix_dir_name(dirfd, dir, sizeof dir) == 0;
    if (found) {
        const char *rel = below_dir(path);
        size_t n = strlen(dir);
        int w = *rel ? snprintf(buf, len, "%s%s%s", dir, (n && dir[n - 1] == '/') ? "" : "/", rel)
                     : snprintf(buf, len, "%s", dir);
        if (w < 0 || (size_t)w >= len)
            iol_fail(IOL_FAIL_PATH);      /* recorded under a truncated name, as any path */
    } else {
        iol_posix_dir_fallback();
    }
    errno = e;
    return found ? buf : path;   /* unnamed: the raw relative path, cwd-prefixed later */
}

/* ------------------------------------------------------------ events */
/* Metadata time of an op, from its readings in nanoseconds since init. */
static inline void meta_ns(posix_aux *a, int64_t d1, int64_t d2)
{
    iol_time_add_ns(&a->rec->f[POSIX_F_META_TIME], &a->last_meta_end_ns, d1, d2);
    iol_region_io_ns(IOL_REGION_POSIX, IOL_REGION_META, 0, d1, d2);
}
static inline void meta(posix_aux *a, const iol_span *sp)
{
    int64_t d1, d2;
    iol_span_ns(sp, &d1, &d2);
    meta_ns(a, d1, d2);
}

static void opened(posix_aux *a, const iol_span *sp)
{
    posix_rec *r = a->rec;
    int64_t d1, d2;
    iol_span_ns(sp, &d1, &d2);
    r->c[POSIX_OPENS]++;
    iol_stamp(&r->f[POSIX_F_OPEN_START_TIMESTAMP], &r->f[POSIX_F_OPEN_END_TIMESTAMP],
              iol_ns_sec(d1), iol_ns_sec(d2));
    meta_ns(a, d1, d2);
}

void iol_posix_open(int fd, const char *path, int mode, const iol_span *sp)
{
    int e = errno;
    posix_aux *a = enter_path(path);
    if (a) {
        map_fd(fd, a);
        a->offset = a->last_byte_read = a->last_byte_written = 0;
        if (mode)
            a->rec->c[POSIX_MODE] = mode;
        opened(a, sp);
        leave_both(a);
    }
    errno = e;
}

void iol_posix_dup(int oldfd, int newfd, const iol_span *sp)
{
    posix_aux *a = iol_posix_enter_fd(oldfd);
    if (!a)
        return;
    map_fd(newfd, a);
    a->rec->c[POSIX_DUPS]++;
    opened(a, sp);
    iol_posix_leave(a);
}

void iol_posix_fileno(FILE *fp, int fd, const iol_span *sp)
{
    int e = errno;
    char name[IOL_PATH_LEN];
    iol_module *m = posix_mod();
    if (iol_stdio_stream_name(fp, name, sizeof name) == 0 && iol_mod_enter(m)) {
        posix_aux *a = to_record(m, by_name(m, name, iol_name_id(name)));
        if (a) {
            map_fd(fd, a);
            a->rec->c[POSIX_FILENOS]++;
            opened(a, sp);
            leave_both(a);
        }
    }
    errno = e;
}

void iol_posix_io_at(int fd, int wr, int64_t off, int64_t n, uintptr_t addr, double t1, double t2)
{
    posix_aux *a = iol_posix_enter_fd(fd);
    if (!a)
        return;
    int64_t d1 = iol_dxt_ns(t1), d2 = iol_dxt_ns(t2);   /* exact: t = (double)ns * 1e-9 */
    if (wr)
        iol_posix_io_update(a, 1, off, n, addr, d1, d2);
    else
        iol_posix_io_update(a, 0, off, n, addr, d1, d2);
    iol_region_io_ns(IOL_REGION_POSIX, wr ? IOL_REGION_WRITE : IOL_REGION_READ, n, d1, d2);
    iol_posix_leave(a);
}

/* 1 if any buffer is misaligned (MEM_NOT_ALIGNED), as an address for the above. */
uintptr_t iol_posix_iov_addr(const struct iovec *iov, int n)
{
    for (int i = 0; i < n; i++)
        if ((uintptr_t)iov[i].iov_base % (uintptr_t)iol_cfg.memalign)
            return 1;
    return 0;
}

void iol_posix_sync(int fd, int data_only, const iol_span *sp)
{
    posix_aux *a = iol_posix_enter_fd(fd);
    if (!a)
        return;
    a->rec->c[data_only ? POSIX_FDSYNCS : POSIX_FSYNCS]++;
    iol_time_add_span(&a->rec->f[POSIX_F_WRITE_TIME], &a->last_write_end, sp);
    iol_region_io_span(IOL_REGION_POSIX, IOL_REGION_META, 0, sp);
    iol_posix_leave(a);
}

/* close is split around the real call: the fd mapping is removed before it, so
 * that a concurrent open() that reuses the fd number right after the real close
 * cannot have its fresh mapping removed by us; the close itself is then recorded
 * on the remembered record (its aux, valid while the module is not frozen).
 * The removal is one atomic exchange, without the module lock: the fd is still
 * open, so no other thread can be mapping this number now (short of an
 * application racing dup2 onto it, which loses either way), and a removal after
 * shutdown has frozen the module is harmless. */
static inline __attribute__((always_inline)) uintptr_t close_unmap(int fd)
{
    posix_aux **tab = __atomic_load_n(&iol_posix_st.fdtab, __ATOMIC_ACQUIRE);   /* then fdcap */
    if (__builtin_expect(tab == NULL, 0)) {
        iol_posix_first_use();            /* activate as any first call does */
        return 0;                         /* and nothing was mapped before */
    }
    if ((unsigned)fd >= iol_posix_st.fdcap || !__atomic_load_n(&tab[fd], __ATOMIC_RELAXED))
        return 0;
    return (uintptr_t)__atomic_exchange_n(&tab[fd], NULL, __ATOMIC_ACQ_REL);
}

/* A close with extras (iol_close_extras): the directory name forgotten, and on a
 * Lustre node the file's layout read while the fd is still open. */
static __attribute__((noinline)) uintptr_t close_begin_extras(int fd, int extras)
{
    if (extras & IOL_CLOSE_DIRS)
        iol_posix_dir_forget_slow(fd);
    uintptr_t rec = close_unmap(fd);
    if (rec && (extras & IOL_CLOSE_LUSTRE))
        iol_lustre_closing(fd, ((posix_aux *)rec)->rec->id);
    return rec;
}

uintptr_t iol_posix_close_begin(int fd)
{
    int extras = __atomic_load_n(&iol_close_extras, __ATOMIC_RELAXED);
    if (__builtin_expect(extras != 0, 0))
        return close_begin_extras(fd, extras);
    return close_unmap(fd);
}

void iol_posix_close_end(uintptr_t handle, const iol_span *sp)
{
    posix_aux *a = (posix_aux *)handle;
    if (!handle || !iol_rec_lock(posix_mod(), &a->lock))
        return;
    posix_rec *r = a->rec;
    int64_t d1, d2;
    iol_span_ns(sp, &d1, &d2);
    a->last_byte_read = a->last_byte_written = 0;
    iol_stamp(&r->f[POSIX_F_CLOSE_START_TIMESTAMP], &r->f[POSIX_F_CLOSE_END_TIMESTAMP],
              iol_ns_sec(d1), iol_ns_sec(d2));
    meta_ns(a, d1, d2);
    iol_posix_leave(a);
}

/* stat family: a path (cleaned here) or a tracked fd (path == NULL). */
void iol_posix_stat(const char *path, int fd, const iol_span *sp)
{
    if (!path) {
        posix_aux *a = iol_posix_enter_fd(fd);
        if (!a)
            return;
        a->rec->c[POSIX_STATS]++;
        meta(a, sp);
        iol_posix_leave(a);
        return;
    }
    int e = errno;
    posix_aux *a = enter_path(path);
    if (a) {
        a->rec->c[POSIX_STATS]++;
        meta(a, sp);
        leave_both(a);
    }
    errno = e;
}

void iol_posix_mmap(int fd)
{
    posix_aux *a = iol_posix_enter_fd(fd);
    if (!a)
        return;
    a->rec->c[POSIX_MMAPS]++;
    iol_posix_leave(a);
}

void iol_posix_rename(const char *oldpath, const char *newpath, const iol_span *sp)
{
    int e = errno;
    char ob[IOL_PATH_LEN], nb[IOL_PATH_LEN];
    size_t olen, nlen;
    const char *o = iol_path_name(oldpath, ob, &olen);
    const char *n = iol_path_name(newpath, nb, &nlen);
    uint64_t oid = iolens_record_id(o, olen), nid = iolens_record_id(n, nlen);
    iol_module *m = posix_mod();
    void *oa;
    if (iol_mod_enter(m)) {
        posix_aux *src = iol_rec_find(m, oid, &oa) ? oa : NULL, *dst;
        /* Each record under its own lock, found under the module's. */
        if (!src)
            iol_mod_leave(m);
        else if ((src = to_record(m, src)) != NULL) {
            src->rec->c[POSIX_RENAME_SOURCES]++;
            meta(src, sp);
            iol_rec_unlock(&src->lock);            /* the module's lock kept */
            if ((dst = to_record(m, by_name(m, n, nid))) != NULL) {
                dst->rec->c[POSIX_RENAME_TARGETS]++;
                if (dst->rec->c[POSIX_RENAMED_FROM] == 0)
                    dst->rec->c[POSIX_RENAMED_FROM] = (int64_t)oid;
                leave_both(dst);
            }
        }
    }
    errno = e;
}

/* ------------------------------------------------------------ asynchronous I/O */
void iol_posix_aio_submit(int fd, const void *cb, double t1)
{
    posix_aux *a = iol_posix_enter_fd(fd);   /* only to learn whether fd is tracked */
    if (!a)
        return;
    iol_posix_leave(a);
    iol_module *m = posix_mod();
    if (!iol_mod_enter(m))                     /* the tracker table is the module's */
        return;
    if (aios) {
        int i = 0;
        while (i < MAX_AIO && aios[i].used)
            i++;
        if (i < MAX_AIO)
            aios[i] = (aio_tracker){1, fd, cb, t1};
        else
            iol_fail(IOL_FAIL_AIO);
    } else {
        iol_partial_set(IOL_MOD_POSIX);   /* no tracker table (no memory): unrecorded */
    }
    iol_mod_leave(m);
}

int iol_posix_aio_take(int fd, const void *cb, double *t1)
{
    iol_module *m = posix_mod();
    if (__builtin_expect(__atomic_load_n(&iol_posix_st.fdtab, __ATOMIC_RELAXED) == NULL, 0))
        iol_posix_first_use();
    if (!iol_mod_enter(m))
        return 0;
    int found = 0;
    for (int i = 0; aios && i < MAX_AIO && !found; i++)
        if (aios[i].used && aios[i].fd == fd && aios[i].cb == cb) {
            aios[i].used = 0;
            *t1 = aios[i].t1;
            found = 1;
        }
    iol_mod_leave(m);
    return found;
}

const iol_module_desc iol_posix_module = {
    IOL_MODULE_IDENTITY(POSIX),
    .rec_size = sizeof(posix_rec),
    .aux_size = sizeof(posix_aux),
    .default_records = 1024,
    .path_names = 1,
    .rec_locks = 1,
    .rec_init = rec_init,
    .activate = activate,
    .finish = finish,
    .reset = reset,
};
