/* The DFS module (Darshan module 16): records of DAOS File System objects, as
 * upstream 3.5.0 keeps them.  dfs.c holds the records and the side tables,
 * dfs_wrap.c the wrappers (wrappers/daos_fns.def), which call the functions below
 * after a successful real call, with errno saved by the caller.
 *
 * A record is one object of one container: its id is the hash of the pool uuid,
 * the container uuid and the object id (iol_daos_object_id), its name the path
 * the application used (lookup), or the parent's name followed by the entry name
 * (open, lookup_rel; "/" for the root), as upstream forms it (docs/daos.md).
 * The two uuids follow the float counters in the record.  Reads and writes given an
 * event are recorded when they complete (daos_async.h). */
#ifndef IOLENS_RUNTIME_DFS_H
#define IOLENS_RUNTIME_DFS_H

#include "../core/stats.h"
#include "daos_api.h"

enum iol_dfs_meta { IOL_DFS_GET_SIZE, IOL_DFS_PUNCH, IOL_DFS_STAT };

/* A mounted container (mount, global2local) and its forgetting (umount). */
void iol_dfs_mounted(dfs_t *dfs, daos_handle_t poh, daos_handle_t coh);
void iol_dfs_unmounted(dfs_t *dfs);
/* An object reached: `counter` is DFS_OPENS, DFS_LOOKUPS or DFS_GLOBAL_OPENS;
 * parent/name give its name (path: the whole name, for lookup; NULL name: none). */
void iol_dfs_opened(dfs_t *dfs, dfs_obj_t *obj, dfs_obj_t *parent, const char *name,
                    const char *path, int counter, const iol_span *sp);
void iol_dfs_duped(dfs_obj_t *obj, dfs_obj_t *new_obj, const iol_span *sp);
void iol_dfs_released(dfs_obj_t *obj, const iol_span *sp);
/* Data: `counter` is DFS_READS, DFS_READXS, DFS_WRITES or DFS_WRITEXS; `nb`: the
 * call was given an event (it also counts in DFS_NB_READS/DFS_NB_WRITES). */
void iol_dfs_moved(dfs_obj_t *obj, int counter, int64_t bytes, int is_write, int nb,
                   const iol_span *sp);
void iol_dfs_meta(dfs_obj_t *obj, enum iol_dfs_meta what, const iol_span *sp);
void iol_dfs_removed(dfs_t *dfs, dfs_obj_t *parent, const char *name, daos_obj_id_t oid,
                     const iol_span *sp);

#endif
