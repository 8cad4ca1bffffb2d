/* POSIX module: record layout and the record functions its wrappers call
 * (posix_wrap.c).  Each function takes the locks it needs itself (an event on a
 * tracked fd: only its record's lock, rt.h iol_rec_lock) and leaves errno
 * as it found it (the wrappers do not save it: the data path calls nothing that
 * can set errno, and the paths that can save it themselves). */
#ifndef IOLENS_RUNTIME_POSIX_H
#define IOLENS_RUNTIME_POSIX_H

#include "../wrappers/real.h"
#include "../core/rt.h"
#include "../core/stats.h"
#include "heatmap.h"
#include "dxt.h"

typedef struct posix_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[POSIX_NUM_INDICES];
    double f[POSIX_F_NUM_INDICES];
} posix_rec;
IOL_ASSERT_RECORD_LAYOUT(posix_rec, POSIX);

/* Per-record state of the offset model (runtime spec 2.0.7); shared by every fd
 * of the path, as upstream's is.  `rec` is the record this state belongs to:
 * records do not move while their module is active (they may be copied at
 * shutdown, after the module is frozen and no wrapper touches them). */
typedef struct posix_aux {
    IOL_REC_HEAD;            /* lock and sequence word (rt.h): first */
    posix_rec *rec;
    int64_t offset, last_byte_read, last_byte_written;
    int64_t file_mask;       /* FILE_ALIGNMENT - 1 if a power of two, 0 if <= 0,
                                -1 otherwise (then the remainder is computed) */
    int last_io;             /* 0 none, 1 read, 2 write */
    int64_t last_meta_end_ns;   /* iol_time_add_ns */
    double last_read_end, last_write_end;
    iol_cv access, stride;
    iol_dxt_file *dxt;       /* the file's trace (dxt.h), NULL before its first op */
} __attribute__((aligned(64))) posix_aux;   /* two records' locks and offsets never share
                                               a cache line */
IOL_REC_HEAD_CHECK(posix_aux);

/* The path is cleaned here; `sp` holds the clock readings around the real call. */
void iol_posix_open(int fd, const char *path, int mode, const iol_span *sp);
void iol_posix_dup(int oldfd, int newfd, const iol_span *sp);
void iol_posix_fileno(FILE *fp, int fd, const iol_span *sp);
/* For vectors: 1 if any buffer is misaligned, else 0 (an `addr` for the below). */
uintptr_t iol_posix_iov_addr(const struct iovec *iov, int n);
/* The aio form: times are given, the offset is explicit. */
void iol_posix_io_at(int fd, int wr, int64_t off, int64_t n, uintptr_t addr, double t1, double t2);
void iol_posix_sync(int fd, int data_only, const iol_span *sp);
/* close is split around the real call (see posix.c); begin returns a handle for
 * end, 0 when the fd is not tracked. */
uintptr_t iol_posix_close_begin(int fd);
void iol_posix_close_end(uintptr_t handle, const iol_span *sp);
void iol_posix_stat(const char *path, int fd, const iol_span *sp);
void iol_posix_mmap(int fd);
void iol_posix_rename(const char *oldpath, const char *newpath, const iol_span *sp);
void iol_posix_aio_submit(int fd, const void *cb, double t1);
int iol_posix_aio_take(int fd, const void *cb, double *t1);
/* Name for openat-style (dirfd, path) pairs: runtime spec 2.0.1, except that a
 * directory fd without a record is named through posix_dirs.c instead of the
 * working directory, and a leading "./" (or the whole path ".") adds nothing to
 * the directory's name. */
const char *iol_posix_at_path(int dirfd, const char *path, char *buf, size_t len);

/* posix_dirs.c: directory fds without a record.  Their name (0), or -1 when the
 * fd is no directory or /proc cannot name it; errno may change. */
int iol_posix_dir_name(int fd, char *out, size_t len);
/* The fd is being closed or replaced: forget its name (inline test first). */
void iol_posix_dir_forget_slow(int fd);
static inline void iol_posix_dir_forget(int fd)
{
    if (__builtin_expect(__atomic_load_n(&iol_close_extras, __ATOMIC_RELAXED) & IOL_CLOSE_DIRS, 0))
        iol_posix_dir_forget_slow(fd);
}
/* A name that fell back to the working directory (counted for the log's metadata). */
void iol_posix_dir_fallback(void);
uint64_t iol_posix_dir_fallbacks(void);
void iol_posix_dirs_reset(void);

/* ------------------------------------------------------------ inline fd paths
 * read, write and lseek are recorded by code inlined into their wrappers (one
 * function per call, nothing passed between frames: ~30 instructions less per
 * call than an out-of-line record step).  The state they share with posix.c: */
typedef struct iol_posix_state {
    posix_aux **fdtab;       /* fd -> aux of its record, NULL untracked.  Entries are
                                set (release) under the record's lock, removed by
                                close with an exchange, read (acquire) without a
                                lock; the pointer itself is also read without the
                                lock to learn whether the module is active */
    size_t fdcap;
    iol_heatmap *heatmap;    /* per-thread bins (heatmap.h) */
    iol_dxt *dxt;            /* the DXT_POSIX store, NULL when not tracing */
    int64_t mem_mask;        /* iol_posix_align_mask(MEM_ALIGNMENT) */
} iol_posix_state;
extern iol_posix_state iol_posix_st __attribute__((visibility("hidden")));

/* First use of the module from an fd path: activate it (as any call does),
 * keeping errno, which activation may change. */
void iol_posix_first_use(void);

/* x % align != 0, given mask = iol_posix_align_mask(align). */
static inline int64_t iol_posix_align_mask(int64_t align)
{
    if (align <= 1)
        return 0;                                 /* nothing is misaligned */
    return (align & (align - 1)) ? -1 : align - 1;
}
static inline int iol_posix_misaligned(int64_t x, int64_t mask, int64_t align)
{
    if (__builtin_expect(!(x & mask), 1))
        return 0;
    return mask != -1 || x % align != 0;
}

/* Lock the record of fd for an event on it.  Returns the fd's aux with its
 * record's lock held (leave with iol_posix_leave), or NULL (no lock held) when
 * the module is off or frozen, or the fd untracked. */
static inline __attribute__((always_inline)) posix_aux *iol_posix_enter_fd(int fd)
{
    iol_module *m = iol_mod(IOL_MOD_POSIX);
    /* The table, once set (after fdcap), stays until a fork child resets the module.
     * It is set by activate, which runs after the module's state became 1: with a
     * table, the module exists and is active unless frozen (iol_rec_lock tests it),
     * so iol_mod_enter's other tests are not needed here. */
    posix_aux **tab = __atomic_load_n(&iol_posix_st.fdtab, __ATOMIC_ACQUIRE);
    if (__builtin_expect(tab == NULL, 0)) {
        iol_posix_first_use();
        tab = __atomic_load_n(&iol_posix_st.fdtab, __ATOMIC_ACQUIRE);
        if (!tab)
            return NULL;
    }
    size_t i = (unsigned)fd;
    if (i >= iol_posix_st.fdcap)
        return NULL;
    posix_aux *a = __atomic_load_n(&tab[i], __ATOMIC_ACQUIRE);
    if (__builtin_expect(a == NULL, 0) || !iol_rec_lock(m, &a->lock))
        return NULL;
    return a;
}
static inline void iol_posix_leave(posix_aux *a) { iol_rec_unlock(&a->lock); }

/* The update of one read (wr = 0) or write (wr = 1) of n bytes at off, between
 * d1 and d2 nanoseconds since init (lock held); always inlined with a constant
 * wr, so each direction is straight-line.  addr: the buffer address, or 1/0 for
 * vectors (iol_posix_iov_addr). */
static inline __attribute__((always_inline)) void iol_posix_io_update(posix_aux *a, const int wr,
                                                                      int64_t off, int64_t n,
                                                                      uintptr_t addr, int64_t d1,
                                                                      int64_t d2)
{
    double t1 = iol_ns_sec(d1), t2 = iol_ns_sec(d2);
    posix_rec *r = a->rec;
    int64_t *c = r->c;
    double *f = r->f;
    c[POSIX_RW_SWITCHES] += a->last_io == (wr ? 1 : 2);
    a->last_io = wr ? 2 : 1;
    c[wr ? POSIX_WRITES : POSIX_READS]++;
    c[wr ? POSIX_BYTES_WRITTEN : POSIX_BYTES_READ] += n;
    int64_t end = off + n - 1;
    int64_t *maxb = &c[wr ? POSIX_MAX_BYTE_WRITTEN : POSIX_MAX_BYTE_READ];
    if (end > *maxb)
        *maxb = end;
    /* last >= -1 and off >= 0, so the spec's stride condition (off > 0 && off >
     * last && last != 0) is gap > 0 && last != 0, gap = off - last - 1. */
    int64_t *lastp = wr ? &a->last_byte_written : &a->last_byte_read;
    int64_t last = *lastp, gap = off - last - 1;
    c[wr ? POSIX_CONSEC_WRITES : POSIX_CONSEC_READS] += gap == 0;
    c[wr ? POSIX_SEQ_WRITES : POSIX_SEQ_READS] += gap >= 0;
    int64_t stride = (gap > 0 && last != 0) ? gap : 0;
    *lastp = end;
    a->offset = off + n;
    iol_cv_add(&a->stride, stride, &c[POSIX_STRIDE1_STRIDE], &c[POSIX_STRIDE1_COUNT]);
    c[(wr ? POSIX_SIZE_WRITE_0_100 : POSIX_SIZE_READ_0_100) + iol_size_bin(n)]++;
    iol_cv_add(&a->access, n, &c[POSIX_ACCESS1_ACCESS], &c[POSIX_ACCESS1_COUNT]);
    c[POSIX_MEM_NOT_ALIGNED] += iol_posix_misaligned((int64_t)addr, iol_posix_st.mem_mask,
                                                     iol_cfg.memalign);
    c[POSIX_FILE_NOT_ALIGNED] += iol_posix_misaligned(off, a->file_mask, c[POSIX_FILE_ALIGNMENT]);
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
    iol_hm_add(iol_posix_st.heatmap, IOL_HM_SLOT_POSIX, t1, t2, n, wr);
    /* Under the record's lock alone.  The compiler-only fence makes the traced
     * branch read the store's pointer again, so that the untraced path tests it
     * in memory (one compare) instead of loading it into a register for later. */
    if (__builtin_expect(iol_posix_st.dxt != NULL, 0)) {
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        iol_dxt_add(iol_posix_st.dxt, IOL_DXT_SLOT_POSIX, &a->dxt, r->id, wr, off, n, d1, d2);
    }
}

/* A read or write of n bytes at off (off < 0: at the tracked offset). */
static inline __attribute__((always_inline)) void iol_posix_io(int fd, const int wr, int64_t off,
                                                               int64_t n, uintptr_t addr,
                                                               const iol_span *sp)
{
    posix_aux *a = iol_posix_enter_fd(fd);
    if (!a)
        return;
    int64_t d1, d2;
    iol_span_ns_hot(sp, &d1, &d2);
    iol_posix_io_update(a, wr, off < 0 ? a->offset : off, n, addr, d1, d2);
    iol_posix_leave(a);
}

static inline __attribute__((always_inline)) void iol_posix_seek(int fd, int64_t pos,
                                                                 const iol_span *sp)
{
    posix_aux *a = iol_posix_enter_fd(fd);
    if (!a)
        return;
    int64_t d1, d2;
    iol_span_ns_hot(sp, &d1, &d2);
    posix_rec *r = a->rec;
    a->offset = pos;
    r->c[POSIX_SEEKS]++;
    iol_time_add_ns(&r->f[POSIX_F_META_TIME], &a->last_meta_end_ns, d1, d2);
    iol_posix_leave(a);
}

extern const iol_module_desc iol_posix_module;
#endif
