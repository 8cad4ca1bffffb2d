/* The DXT traces a killed process left beside its safety copy: the runtime keeps
 * each DXT store in a file <copy>.dxt-posix / <copy>.dxt-mpiio (docs/dxt.md), and
 * the format library decodes such a store, checking every offset, into a DXT
 * region (include/iolens/dxt_store.h).  A torn or damaged store gives the
 * segments that decode. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iolens/counters.h"
#include "iolens/dxt_region.h"
#include "iolens/dxt_store.h"
#include "iolens/lustre_store.h"
#include "recover.h"

static const char *suffix_of(int modid)
{
    return modid == IOL_MOD_DXT_MPIIO ? "dxt-mpiio" : "dxt-posix";
}

static void sidecar_path(const char *copy, int modid, char *out, size_t len)
{
    snprintf(out, len, "%s.%s", copy, suffix_of(modid));
}

/* (recover.h) A name that someone else took was planted where they guessed a
 * copy would be. */
int iol_sidecar_ours(const char *copy, const char *path)
{
    struct stat c, s;
    if (lstat(path, &s) != 0)
        return -1;
    return stat(copy, &c) == 0 && S_ISREG(s.st_mode) && s.st_uid == c.st_uid;
}

/* The store file whole, bounded by its size.  Opened without following a link and
 * without blocking (a FIFO planted after iol_sidecar_ours looked would block the
 * open), then checked on the descriptor: a regular file of the copy's owner. */
static uint8_t *slurp(const char *path, uid_t owner, size_t *len, int *err)
{
    struct stat st;
    uint8_t *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        *err = errno;
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    *err = !S_ISREG(st.st_mode) ? EINVAL : st.st_uid != owner ? EPERM : 0;
    if (!*err && st.st_size > 0 && !(buf = malloc((size_t)st.st_size)))
        *err = ENOMEM;
    while (buf && *len < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + *len, (size_t)st.st_size - *len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            *err = r < 0 ? errno : 0;   /* a store that shrank: what was there */
            break;
        }
        *len += (size_t)r;
    }
    close(fd);
    return buf;
}

int iol_sidecar_load(const char *copy, const char *path, const char *loss, uint8_t **store,
                     size_t *size, char *note, size_t notelen)
{
    *store = NULL;
    *size = 0;
    int ours = iol_sidecar_ours(copy, path);
    if (ours < 0)
        return -1;
    if (!ours) {
        snprintf(note, notelen, "%.400s: not a file of the copy's owner; ignored", path);
        return 0;
    }
    int err = 0;
    struct stat c;
    *store = stat(copy, &c) == 0 ? slurp(path, c.st_uid, size, &err) : NULL;
    if (err) {
        snprintf(note, notelen, "%.400s: %s; %s not recovered", path, strerror(err), loss);
        free(*store);
        *store = NULL;
        return 0;
    }
    return 1;
}

/* Append the DXT_REGION records of a store to x's region (docs/regions.md);
 * out of memory loses them, never the trace. */
static void add_regions(const uint8_t *store, size_t size, iol_extra_regions *x)
{
    size_t cap = iolens_dxt_store_regions_bound(store, size);
    int m = IOLENS_DXT_REGION_MODULE;
    uint8_t *buf = cap ? realloc(x->data[m], x->len[m] + cap) : NULL;
    if (!buf)
        return;
    x->data[m] = buf;
    x->len[m] += iolens_dxt_store_regions(store, size, -1, buf + x->len[m], cap);
    x->version[m] = IOL_MOD_DXT_REGION_VERSION;
}

int iol_recover_dxt(const char *copy, int modid, iol_extra_regions *x, char *note, size_t notelen)
{
    void **region = &x->data[modid];
    size_t *len = &x->len[modid];
    int *version = &x->version[modid];
    char path[8400];
    sidecar_path(copy, modid, path, sizeof path);
    *region = NULL;
    *len = 0;
    *version = 0;
    note[0] = '\0';
    uint8_t *store;
    size_t size;
    int got = iol_sidecar_load(copy, path, "its trace is", &store, &size, note, notelen);
    if (got <= 0)
        return got == 0;
    size_t cap = iolens_dxt_store_bound(store, size);
    uint8_t *out = cap ? malloc(cap) : NULL;
    size_t n = out ? iolens_dxt_store_region(store, size, -1, out, cap) : 0;
    *version = iolens_dxt_store_version(store, size);
    add_regions(store, size, x);
    if (cap && !out)
        snprintf(note, notelen, "%.400s: out of memory; its trace is not recovered", path);
    else if (!cap && size && memcmp(store, IOLENS_DXT_STORE_MAGIC, size < 8 ? size : 8) != 0)
        snprintf(note, notelen, "%.400s: not a DXT store; its trace is not recovered", path);
    free(store);
    if (n) {
        *region = out;
        *len = n;
    } else {
        free(out);
    }
    return 1;
}

void iol_recover_dxt_remove(const char *copy)
{
    char path[8400];
    for (int m = IOL_MOD_DXT_POSIX; m <= IOL_MOD_DXT_MPIIO; m++) {
        sidecar_path(copy, m, path, sizeof path);
        if (iol_sidecar_ours(copy, path) == 1)
            unlink(path);
    }
    snprintf(path, sizeof path, "%s." IOLENS_LUSTRE_STORE_SUFFIX, copy);   /* recover_lustre.c */
    if (iol_sidecar_ours(copy, path) == 1)
        unlink(path);
}

double iol_dxt_region_last_end(const void *region, size_t len, size_t seg_size)
{
    const uint8_t *p = region;
    double last = 0;
    for (size_t off = 0; p && off + 104 <= len;) {
        int64_t nw, nr;
        memcpy(&nw, p + off + 88, 8);
        memcpy(&nr, p + off + 96, 8);
        off += 104;
        for (int64_t i = 0; i < nw + nr && off + seg_size <= len; i++, off += seg_size) {
            double end;
            memcpy(&end, p + off + 24, 8);
            if (end > last)
                last = end;
        }
    }
    return last;
}
