/* Wrappers of the DFS API (wrappers/daos_fns.def; runtime behaviour as upstream
 * 3.5.0's DFS module).  The real call is made first and timed; only a call that
 * returned 0 is recorded; errno is kept as the real call left it.  A read or write
 * given an event is recorded when it completes (daos_async.h). */
#include <errno.h>

#include "daos_async.h"
#include "dfs.h"

static int64_t sgl_bytes(const d_sg_list_t *sgl)
{
    int64_t n = 0;
    for (uint32_t i = 0; sgl && sgl->sg_iovs && i < sgl->sg_nr; i++)
        n += (int64_t)sgl->sg_iovs[i].iov_len;
    return n;
}

static void read_done(const iol_daos_pending *p, const iol_span *sp)
{
    iol_dfs_moved(p->obj, p->counter, (int64_t)*p->size, 0, 1, sp);
}

static void write_done(const iol_daos_pending *p, const iol_span *sp)
{
    iol_dfs_moved(p->obj, p->counter, p->amount, 1, 1, sp);
}

int dfs_mount(daos_handle_t poh, daos_handle_t coh, int flags, dfs_t **dfs)
{
    int ret = IOL_DAOS_REAL(dfs_mount)(poh, coh, flags, dfs);
    if (ret == 0 && dfs && iol_on())
        KEEP_ERRNO(iol_dfs_mounted(*dfs, poh, coh));
    return ret;
}

int dfs_global2local(daos_handle_t poh, daos_handle_t coh, int flags, d_iov_t glob, dfs_t **dfs)
{
    int ret = IOL_DAOS_REAL(dfs_global2local)(poh, coh, flags, glob, dfs);
    if (ret == 0 && dfs && iol_on())
        KEEP_ERRNO(iol_dfs_mounted(*dfs, poh, coh));
    return ret;
}

int dfs_umount(dfs_t *dfs)
{
    if (iol_on())
        KEEP_ERRNO(iol_dfs_unmounted(dfs));
    return IOL_DAOS_REAL(dfs_umount)(dfs);
}

int dfs_lookup(dfs_t *dfs, const char *path, int flags, dfs_obj_t **obj, mode_t *mode,
               struct stat *stbuf)
{
    TIMED_BODY(int, IOL_DAOS_REAL(dfs_lookup)(dfs, path, flags, obj, mode, stbuf),
               ret == 0 && obj,
               KEEP_ERRNO(iol_dfs_opened(dfs, *obj, NULL, NULL, path, DFS_LOOKUPS, &sp)));
}

int dfs_lookup_rel(dfs_t *dfs, dfs_obj_t *parent, const char *name, int flags, dfs_obj_t **obj,
                   mode_t *mode, struct stat *stbuf)
{
    TIMED_BODY(int, IOL_DAOS_REAL(dfs_lookup_rel)(dfs, parent, name, flags, obj, mode, stbuf),
               ret == 0 && obj && name,
               KEEP_ERRNO(iol_dfs_opened(dfs, *obj, parent, name, NULL, DFS_LOOKUPS, &sp)));
}

int dfs_open(dfs_t *dfs, dfs_obj_t *parent, const char *name, mode_t mode, int flags,
             daos_oclass_id_t cid, daos_size_t chunk_size, const char *value, dfs_obj_t **obj)
{
    TIMED_BODY(int,
               IOL_DAOS_REAL(dfs_open)(dfs, parent, name, mode, flags, cid, chunk_size, value, obj),
               ret == 0 && obj && name,
               KEEP_ERRNO(iol_dfs_opened(dfs, *obj, parent, name, NULL, DFS_OPENS, &sp)));
}

int dfs_dup(dfs_t *dfs, dfs_obj_t *obj, int flags, dfs_obj_t **new_obj)
{
    TIMED_BODY(int, IOL_DAOS_REAL(dfs_dup)(dfs, obj, flags, new_obj), ret == 0 && new_obj,
               KEEP_ERRNO(iol_dfs_duped(obj, *new_obj, &sp)));
}

/* A global handle's object has no name (upstream records it nameless). */
int dfs_obj_global2local(dfs_t *dfs, int flags, d_iov_t glob, dfs_obj_t **obj)
{
    TIMED_BODY(int, IOL_DAOS_REAL(dfs_obj_global2local)(dfs, flags, glob, obj), ret == 0 && obj,
               KEEP_ERRNO(iol_dfs_opened(dfs, *obj, NULL, NULL, NULL, DFS_GLOBAL_OPENS, &sp)));
}

int dfs_release(dfs_obj_t *obj)
{
    TIMED_BODY(int, IOL_DAOS_REAL(dfs_release)(obj), ret == 0,
               KEEP_ERRNO(iol_dfs_released(obj, &sp)));
}

int dfs_read(dfs_t *dfs, dfs_obj_t *obj, d_sg_list_t *sgl, daos_off_t off, daos_size_t *read_size,
             daos_event_t *ev)
{
    PENDING_IF(read_size, read_done, .obj = obj, .counter = DFS_READS, .size = read_size);
    TIMED_BODY(int, SETTLED(IOL_DAOS_REAL(dfs_read)(dfs, obj, sgl, off, read_size, ev)),
               ret == 0 && !ev && read_size,
               KEEP_ERRNO(iol_dfs_moved(obj, DFS_READS, (int64_t)*read_size, 0, 0, &sp)));
}

int dfs_readx(dfs_t *dfs, dfs_obj_t *obj, dfs_iod_t *iod, d_sg_list_t *sgl, daos_size_t *read_size,
              daos_event_t *ev)
{
    PENDING_IF(read_size, read_done, .obj = obj, .counter = DFS_READXS, .size = read_size);
    TIMED_BODY(int, SETTLED(IOL_DAOS_REAL(dfs_readx)(dfs, obj, iod, sgl, read_size, ev)),
               ret == 0 && !ev && read_size,
               KEEP_ERRNO(iol_dfs_moved(obj, DFS_READXS, (int64_t)*read_size, 0, 0, &sp)));
}

/* The bytes written are the scatter list's, counted before the call (as upstream). */
int dfs_write(dfs_t *dfs, dfs_obj_t *obj, d_sg_list_t *sgl, daos_off_t off, daos_event_t *ev)
{
    int64_t bytes = sgl_bytes(sgl);
    PENDING(write_done, .obj = obj, .counter = DFS_WRITES, .amount = bytes);
    TIMED_BODY(int, SETTLED(IOL_DAOS_REAL(dfs_write)(dfs, obj, sgl, off, ev)), ret == 0 && !ev,
               KEEP_ERRNO(iol_dfs_moved(obj, DFS_WRITES, bytes, 1, 0, &sp)));
}

int dfs_writex(dfs_t *dfs, dfs_obj_t *obj, dfs_iod_t *iod, d_sg_list_t *sgl, daos_event_t *ev)
{
    int64_t bytes = sgl_bytes(sgl);
    PENDING(write_done, .obj = obj, .counter = DFS_WRITEXS, .amount = bytes);
    TIMED_BODY(int, SETTLED(IOL_DAOS_REAL(dfs_writex)(dfs, obj, iod, sgl, ev)), ret == 0 && !ev,
               KEEP_ERRNO(iol_dfs_moved(obj, DFS_WRITEXS, bytes, 1, 0, &sp)));
}

int dfs_get_size(dfs_t *dfs, dfs_obj_t *obj, daos_size_t *size)
{
    TIMED_BODY(int, IOL_DAOS_REAL(dfs_get_size)(dfs, obj, size), ret == 0,
               KEEP_ERRNO(iol_dfs_meta(obj, IOL_DFS_GET_SIZE, &sp)));
}

int dfs_punch(dfs_t *dfs, dfs_obj_t *obj, daos_off_t offset, daos_size_t len)
{
    TIMED_BODY(int, IOL_DAOS_REAL(dfs_punch)(dfs, obj, offset, len), ret == 0,
               KEEP_ERRNO(iol_dfs_meta(obj, IOL_DFS_PUNCH, &sp)));
}

int dfs_ostat(dfs_t *dfs, dfs_obj_t *obj, struct stat *stbuf)
{
    TIMED_BODY(int, IOL_DAOS_REAL(dfs_ostat)(dfs, obj, stbuf), ret == 0,
               KEEP_ERRNO(iol_dfs_meta(obj, IOL_DFS_STAT, &sp)));
}

int dfs_osetattr(dfs_t *dfs, dfs_obj_t *obj, struct stat *stbuf, int flags)
{
    TIMED_BODY(int, IOL_DAOS_REAL(dfs_osetattr)(dfs, obj, stbuf, flags), ret == 0,
               KEEP_ERRNO(iol_dfs_meta(obj, IOL_DFS_STAT, &sp)));
}

/* The removed object's id is asked for when the caller does not ask: the record
 * id is made from it (as upstream).  `own` starts zeroed: should recording turn
 * on between the call's argument and TIMED_BODY's own test (at init or shutdown),
 * the id recorded is 0, never stack garbage. */
int dfs_remove(dfs_t *dfs, dfs_obj_t *parent, const char *name, bool force, daos_obj_id_t *oid)
{
    daos_obj_id_t own = {0};
    daos_obj_id_t *want = oid ? oid : &own;
    TIMED_BODY(int, IOL_DAOS_REAL(dfs_remove)(dfs, parent, name, force, iol_on() ? want : oid),
               ret == 0, KEEP_ERRNO(iol_dfs_removed(dfs, parent, name, *want, &sp)));
}
