/* POSIX module (id 1, record version 4): counters of runtime spec section 2.1.
 * Record state that is not logged (offset model of trap 1, trackers) lives in the
 * aux area the core reserves beside each record.  The wrappers themselves are in
 * posix_wrap.c; this file holds the record logic they call. */
#include "posix.h"

#include <string.h>
#include <sys/resource.h>

#include "../core/stats.h"
#include "modules.h"

static uint32_t *fdmap;      /* fd -> record index + 1 */
static size_t fdcap;
static iol_heatmap *heatmap;

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
    r->c[POSIX_MEM_ALIGNMENT] = iol_cfg.memalign;
    r->c[POSIX_FILE_ALIGNMENT] = iol_mount_block_size(name);
}

static void activate(iol_module *m)
{
    struct rlimit rl;
    fdcap = 65536;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY && rl.rlim_max > fdcap)
        fdcap = rl.rlim_max > (1u << 20) ? (1u << 20) : rl.rlim_max;
    fdmap = iol_map(fdcap * sizeof *fdmap);
    aios = iol_map(MAX_AIO * sizeof *aios);
    if (!fdmap)
        fdcap = 0;
    heatmap = iol_heatmap_register("POSIX");
}

static void reset(iol_module *m)
{
    iol_unmap(fdmap, fdcap * sizeof *fdmap);
    iol_unmap(aios, MAX_AIO * sizeof *aios);
    fdmap = NULL;
    aios = NULL;
    fdcap = 0;
    heatmap = NULL;
}

/* ------------------------------------------------------------ fd table */
static posix_rec *by_fd(iol_module *m, int fd, posix_aux **aux)
{
    if (fd < 0 || (size_t)fd >= fdcap || !fdmap[fd])
        return NULL;
    size_t i = fdmap[fd] - 1;
    *aux = (posix_aux *)m->aux + i;
    return (posix_rec *)m->recs + i;
}

static void map_fd(iol_module *m, int fd, posix_rec *r)
{
    if (fd >= 0 && (size_t)fd < fdcap)
        fdmap[fd] = (uint32_t)(iol_rec_index(m, r) + 1);
    else
        iol_fail(IOL_FAIL_FDTABLE);
}

static posix_rec *by_name(iol_module *m, const char *clean, posix_aux **aux)
{
    uint64_t id = iol_name_id(clean);
    void *a;
    posix_rec *r = iol_rec_find(m, id, &a);
    if (!r)
        r = iol_rec_register(m, clean, id, &a);
    *aux = a;
    return r;
}

int iol_posix_fd_name(int fd, char *out, size_t len)
{
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return -1;
    posix_aux *a;
    posix_rec *r = by_fd(m, fd, &a);
    const char *name = r ? iol_name_of(r->id) : NULL;
    if (name)
        snprintf(out, len, "%s", name);
    iol_mod_leave(m);
    return name ? 0 : -1;
}

const char *iol_posix_at_path(int dirfd, const char *path, char *buf, size_t len)
{
    if (!path || path[0] == '/' || dirfd == AT_FDCWD)
        return path;
    char dir[IOL_PATH_LEN];
    if (iol_posix_fd_name(dirfd, dir, sizeof dir) != 0)
        return path;               /* upstream: the raw relative path, cwd-prefixed */
    size_t n = strlen(dir);
    snprintf(buf, len, "%s%s%s", dir, (n && dir[n - 1] == '/') ? "" : "/", path);
    return buf;
}

/* ------------------------------------------------------------ events */
static void meta(posix_rec *r, posix_aux *a, double t1, double t2)
{
    iol_time_add(&r->f[POSIX_F_META_TIME], &a->last_meta_end, t1, t2);
}

static void opened(posix_rec *r, posix_aux *a, double t1, double t2)
{
    r->c[POSIX_OPENS]++;
    iol_stamp(&r->f[POSIX_F_OPEN_START_TIMESTAMP], &r->f[POSIX_F_OPEN_END_TIMESTAMP], t1, t2);
    meta(r, a, t1, t2);
}

void iol_posix_open(int fd, const char *path, int mode, double t1, double t2)
{
    char clean[IOL_PATH_LEN];
    iol_clean_path(path, clean, sizeof clean);
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return;
    posix_aux *a;
    posix_rec *r = by_name(m, clean, &a);
    if (r) {
        map_fd(m, fd, r);
        a->offset = a->last_byte_read = a->last_byte_written = 0;
        if (mode)
            r->c[POSIX_MODE] = mode;
        opened(r, a, t1, t2);
    }
    iol_mod_leave(m);
}

void iol_posix_dup(int oldfd, int newfd, double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return;
    posix_aux *a;
    posix_rec *r = by_fd(m, oldfd, &a);
    if (r) {
        map_fd(m, newfd, r);
        r->c[POSIX_DUPS]++;
        opened(r, a, t1, t2);
    }
    iol_mod_leave(m);
}

void iol_posix_fileno(FILE *fp, int fd, double t1, double t2)
{
    char name[IOL_PATH_LEN];
    if (iol_stdio_stream_name(fp, name, sizeof name) != 0)
        return;
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return;
    posix_aux *a;
    posix_rec *r = by_name(m, name, &a);
    if (r) {
        map_fd(m, fd, r);
        r->c[POSIX_FILENOS]++;
        opened(r, a, t1, t2);
    }
    iol_mod_leave(m);
}

/* The update of one read (wr = 0) or write (wr = 1); always inlined with a
 * constant wr so that each direction compiles to straight-line code. */
static inline __attribute__((always_inline)) void io_update(posix_rec *r, posix_aux *a, const int wr,
                                                            int64_t off, int64_t n, int unaligned,
                                                            double t1, double t2)
{
    int64_t *c = r->c;
    double *f = r->f;
    int io = wr ? 2 : 1;
    if (a->last_io && a->last_io != io)
        c[POSIX_RW_SWITCHES]++;
    a->last_io = io;
    int64_t *last = wr ? &a->last_byte_written : &a->last_byte_read;
    c[wr ? POSIX_WRITES : POSIX_READS]++;
    c[wr ? POSIX_BYTES_WRITTEN : POSIX_BYTES_READ] += n;
    int64_t *maxb = &c[wr ? POSIX_MAX_BYTE_WRITTEN : POSIX_MAX_BYTE_READ];
    if (off + n - 1 > *maxb)
        *maxb = off + n - 1;
    if (off == *last + 1)
        c[wr ? POSIX_CONSEC_WRITES : POSIX_CONSEC_READS]++;
    if (off > *last)
        c[wr ? POSIX_SEQ_WRITES : POSIX_SEQ_READS]++;
    int64_t stride = (off > 0 && off > *last && *last != 0) ? off - *last - 1 : 0;
    iol_cv_add(&a->stride, stride, &c[POSIX_STRIDE1_STRIDE], &c[POSIX_STRIDE1_COUNT]);
    *last = off + n - 1;
    a->offset = off + n;
    c[(wr ? POSIX_SIZE_WRITE_0_100 : POSIX_SIZE_READ_0_100) + iol_size_bin(n)]++;
    iol_cv_add(&a->access, n, &c[POSIX_ACCESS1_ACCESS], &c[POSIX_ACCESS1_COUNT]);
    if (unaligned)
        c[POSIX_MEM_NOT_ALIGNED]++;
    if (c[POSIX_FILE_ALIGNMENT] > 0 && off % c[POSIX_FILE_ALIGNMENT])
        c[POSIX_FILE_NOT_ALIGNED]++;
    if (wr) {
        iol_stamp(&f[POSIX_F_WRITE_START_TIMESTAMP], &f[POSIX_F_WRITE_END_TIMESTAMP], t1, t2);
        iol_time_add(&f[POSIX_F_WRITE_TIME], &a->last_write_end, t1, t2);
    } else {
        iol_stamp(&f[POSIX_F_READ_START_TIMESTAMP], &f[POSIX_F_READ_END_TIMESTAMP], t1, t2);
        iol_time_add(&f[POSIX_F_READ_TIME], &a->last_read_end, t1, t2);
    }
    double *maxt = &f[wr ? POSIX_F_MAX_WRITE_TIME : POSIX_F_MAX_READ_TIME];
    if (t2 - t1 > *maxt) {
        *maxt = t2 - t1;
        c[wr ? POSIX_MAX_WRITE_TIME_SIZE : POSIX_MAX_READ_TIME_SIZE] = n;
    }
    iol_heatmap_update(heatmap, t1, t2, n, wr);
}

void iol_posix_io(int fd, int wr, int64_t off, int explicit_off, int64_t n, int unaligned,
                  double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return;
    posix_aux *a;
    posix_rec *r = by_fd(m, fd, &a);
    if (r) {
        if (!explicit_off)
            off = a->offset;
        if (wr)
            io_update(r, a, 1, off, n, unaligned, t1, t2);
        else
            io_update(r, a, 0, off, n, unaligned, t1, t2);
    }
    iol_mod_leave(m);
}

void iol_posix_seek(int fd, int64_t pos, double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return;
    posix_aux *a;
    posix_rec *r = by_fd(m, fd, &a);
    if (r) {
        a->offset = pos;
        r->c[POSIX_SEEKS]++;
        meta(r, a, t1, t2);
    }
    iol_mod_leave(m);
}

void iol_posix_sync(int fd, int data_only, double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return;
    posix_aux *a;
    posix_rec *r = by_fd(m, fd, &a);
    if (r) {
        r->c[data_only ? POSIX_FDSYNCS : POSIX_FSYNCS]++;
        iol_time_add(&r->f[POSIX_F_WRITE_TIME], &a->last_write_end, t1, t2);
    }
    iol_mod_leave(m);
}

/* close is split around the real call: the fd mapping is removed before it, so
 * that a concurrent open() that reuses the fd number right after the real close
 * cannot have its fresh mapping removed by us; the close itself is then recorded
 * on the remembered record.  Returns the record index + 1, or 0. */
size_t iol_posix_close_begin(int fd)
{
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return 0;
    size_t idx = 0;
    if (fd >= 0 && (size_t)fd < fdcap && fdmap[fd]) {
        idx = fdmap[fd];
        fdmap[fd] = 0;
    }
    iol_mod_leave(m);
    return idx;
}

void iol_posix_close_end(size_t idx, double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!idx || !iol_mod_enter(m))
        return;
    posix_rec *r = (posix_rec *)m->recs + (idx - 1);
    posix_aux *a = (posix_aux *)m->aux + (idx - 1);
    a->last_byte_read = a->last_byte_written = 0;
    iol_stamp(&r->f[POSIX_F_CLOSE_START_TIMESTAMP], &r->f[POSIX_F_CLOSE_END_TIMESTAMP], t1, t2);
    meta(r, a, t1, t2);
    iol_mod_leave(m);
}

/* stat family: a path (cleaned here) or a tracked fd (path == NULL). */
void iol_posix_stat(const char *path, int fd, double t1, double t2)
{
    char clean[IOL_PATH_LEN];
    if (path)
        iol_clean_path(path, clean, sizeof clean);
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return;
    posix_aux *a;
    posix_rec *r = path ? by_name(m, clean, &a) : by_fd(m, fd, &a);
    if (r) {
        r->c[POSIX_STATS]++;
        meta(r, a, t1, t2);
    }
    iol_mod_leave(m);
}

void iol_posix_mmap(int fd)
{
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return;
    posix_aux *a;
    posix_rec *r = by_fd(m, fd, &a);
    if (r)
        r->c[POSIX_MMAPS]++;
    iol_mod_leave(m);
}

void iol_posix_rename(const char *oldpath, const char *newpath, double t1, double t2)
{
    char o[IOL_PATH_LEN], n[IOL_PATH_LEN];
    iol_clean_path(oldpath, o, sizeof o);
    iol_clean_path(newpath, n, sizeof n);
    uint64_t oid = iol_name_id(o);
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return;
    void *oa;
    posix_rec *src = iol_rec_find(m, oid, &oa);
    if (src) {
        src->c[POSIX_RENAME_SOURCES]++;
        meta(src, oa, t1, t2);
        posix_aux *na;
        posix_rec *dst = by_name(m, n, &na);
        if (dst) {
            dst->c[POSIX_RENAME_TARGETS]++;
            if (dst->c[POSIX_RENAMED_FROM] == 0)
                dst->c[POSIX_RENAMED_FROM] = (int64_t)oid;
        }
    }
    iol_mod_leave(m);
}

/* ------------------------------------------------------------ asynchronous I/O */
void iol_posix_aio_submit(int fd, const void *cb, double t1)
{
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    if (!iol_mod_enter(m))
        return;
    posix_aux *a;
    if (by_fd(m, fd, &a) && aios) {
        int i = 0;
        while (i < MAX_AIO && aios[i].used)
            i++;
        if (i < MAX_AIO)
            aios[i] = (aio_tracker){1, fd, cb, t1};
        else
            iol_fail(IOL_FAIL_AIO);
    }
    iol_mod_leave(m);
}

int iol_posix_aio_take(int fd, const void *cb, double *t1)
{
    iol_module *m = iol_mod(IOL_MOD_POSIX);
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
    .id = IOL_MOD_POSIX,
    .name = "POSIX",
    .version = 4,
    .rec_size = sizeof(posix_rec),
    .aux_size = sizeof(posix_aux),
    .default_records = 1024,
    .path_names = 1,
    .rec_init = rec_init,
    .activate = activate,
    .reset = reset,
};
