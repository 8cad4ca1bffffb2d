/* Internals of the emulated libdfs.  A mounted file system is the directory
 * CONTAINER/dfs; a DFS object is a real file, directory or symbolic link under it. */
#ifndef IOL_DFS_EMU_INTERNAL_H
#define IOL_DFS_EMU_INTERNAL_H
#include <daos_fs.h>
#include "emu.h"

#define IOL_DFS_MAGIC 0x69646673u

struct dfs {
	unsigned int     magic;
	char             root[PATH_MAX];     /* host path of the namespace's "/" */
	char             prefix[PATH_MAX];   /* dfs_set_prefix: stripped from lookups */
	int              flags;              /* O_RDONLY or O_RDWR */
	daos_handle_t    poh, coh;
	bool             owns_handles;       /* made by dfs_connect: closed by dfs_disconnect */
	daos_size_t      chunk_size;
	daos_oclass_id_t oclass;
};

struct dfs_obj {
	char             path[PATH_MAX];     /* host path */
	char             name[NAME_MAX + 1];
	mode_t           mode;               /* type bits and permissions at open */
	int              fd;                 /* regular files only; -1 otherwise */
	int              flags;
	daos_obj_id_t    oid;
	daos_size_t      chunk_size;
	daos_oclass_id_t oclass;
};

/* A mounted dfs, or NULL. */
static inline bool iol_dfs_valid(const dfs_t *dfs)
{
	return dfs && dfs->magic == IOL_DFS_MAGIC;
}

/* dfs_mount without the public entry point (internal callers must not be seen by wrappers). */
int iol_dfs_mount(daos_handle_t poh, daos_handle_t coh, int flags, dfs_t **dfsp);
int iol_dfs_umount(dfs_t *dfs);
/* Opens the object at host path `path` (named `name`) with open flags; errno value. */
int iol_dfs_obj_open(dfs_t *dfs, const char *path, const char *name, int flags,
		     daos_size_t chunk_size, daos_oclass_id_t cid, dfs_obj_t **objp);
/* The object id the emulation gives the object described by st: stable while it exists. */
daos_obj_id_t iol_dfs_oid(const struct stat *st, daos_oclass_id_t cid);

#endif
