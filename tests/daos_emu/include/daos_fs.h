/* DAOS emulation (iolens tests): DFS, the POSIX-like file system on a container.  The
 * emulation stores a container's namespace as a real directory tree; files are real files, so
 * bytes written land in them.  Calls return 0 or an errno value (never a DER_* code). */
#ifndef __DAOS_FS_H__
#define __DAOS_FS_H__
#include <dirent.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <daos_types.h>
#include <daos_obj.h>
#include <daos_obj_class.h>
#include <daos_array.h>
#include <daos_cont.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DFS_MAX_NAME           NAME_MAX
#define DFS_MAX_PATH           PATH_MAX
#define DFS_MAX_FSIZE          (~0ULL)
#define DFS_DEFAULT_CHUNK_SIZE 1048576
#define DAOS_SUPER_MAGIC       0xDA05AD10

typedef struct dfs_obj dfs_obj_t;
typedef struct dfs dfs_t;

#define DFS_BALANCED 4
#define DFS_RELAXED  0
#define DFS_RDONLY   O_RDONLY
#define DFS_RDWR     O_RDWR

typedef struct {
	uint64_t         da_id;
	daos_size_t      da_chunk_size;
	daos_oclass_id_t da_oclass_id;
	daos_prop_t     *da_props;
	uint32_t         da_mode;
	daos_oclass_id_t da_dir_oclass_id;
	daos_oclass_id_t da_file_oclass_id;
	char             da_hints[DAOS_CONT_HINT_MAX_LEN];
} dfs_attr_t;

/* Byte ranges of a non-contiguous file access (dfs_readx/dfs_writex). */
typedef struct {
	daos_size_t   iod_nr;
	daos_range_t *iod_rgs;
} dfs_iod_t;

int dfs_init(void);
int dfs_fini(void);
int dfs_connect(const char *pool, const char *sys, const char *cont, int flags, dfs_attr_t *attr,
		dfs_t **dfs);
int dfs_disconnect(dfs_t *dfs);
int dfs_cont_create(daos_handle_t poh, uuid_t *uuid, dfs_attr_t *attr, daos_handle_t *coh,
		    dfs_t **dfs);
int dfs_cont_create_with_label(daos_handle_t poh, const char *label, dfs_attr_t *attr,
			       uuid_t *uuid, daos_handle_t *coh, dfs_t **dfs);
int dfs_mount(daos_handle_t poh, daos_handle_t coh, int flags, dfs_t **dfs);
int dfs_umount(dfs_t *dfs);
int dfs_query(dfs_t *dfs, dfs_attr_t *attr);
int dfs_local2global(dfs_t *dfs, d_iov_t *glob);
int dfs_global2local(daos_handle_t poh, daos_handle_t coh, int flags, d_iov_t glob, dfs_t **dfs);
int dfs_set_prefix(dfs_t *dfs, const char *prefix);
int dfs_obj2id(dfs_obj_t *obj, daos_obj_id_t *oid);
int dfs_lookup(dfs_t *dfs, const char *path, int flags, dfs_obj_t **obj, mode_t *mode,
	       struct stat *stbuf);
int dfs_lookup_rel(dfs_t *dfs, dfs_obj_t *parent, const char *name, int flags, dfs_obj_t **obj,
		   mode_t *mode, struct stat *stbuf);
int dfs_open(dfs_t *dfs, dfs_obj_t *parent, const char *name, mode_t mode, int flags,
	     daos_oclass_id_t cid, daos_size_t chunk_size, const char *value, dfs_obj_t **obj);
int dfs_dup(dfs_t *dfs, dfs_obj_t *obj, int flags, dfs_obj_t **new_obj);
int dfs_obj_local2global(dfs_t *dfs, dfs_obj_t *obj, d_iov_t *glob);
int dfs_obj_global2local(dfs_t *dfs, int flags, d_iov_t glob, dfs_obj_t **obj);
int dfs_release(dfs_obj_t *obj);
int dfs_read(dfs_t *dfs, dfs_obj_t *obj, d_sg_list_t *sgl, daos_off_t off,
	     daos_size_t *read_size, daos_event_t *ev);
int dfs_readx(dfs_t *dfs, dfs_obj_t *obj, dfs_iod_t *iod, d_sg_list_t *sgl,
	      daos_size_t *read_size, daos_event_t *ev);
int dfs_write(dfs_t *dfs, dfs_obj_t *obj, d_sg_list_t *sgl, daos_off_t off, daos_event_t *ev);
int dfs_writex(dfs_t *dfs, dfs_obj_t *obj, dfs_iod_t *iod, d_sg_list_t *sgl, daos_event_t *ev);
int dfs_get_size(dfs_t *dfs, dfs_obj_t *obj, daos_size_t *size);
int dfs_punch(dfs_t *dfs, dfs_obj_t *obj, daos_off_t offset, daos_size_t len);
int dfs_readdir(dfs_t *dfs, dfs_obj_t *obj, daos_anchor_t *anchor, uint32_t *nr,
		struct dirent *dirs);
int dfs_mkdir(dfs_t *dfs, dfs_obj_t *parent, const char *name, mode_t mode,
	      daos_oclass_id_t cid);
int dfs_remove(dfs_t *dfs, dfs_obj_t *parent, const char *name, bool force, daos_obj_id_t *oid);
int dfs_move(dfs_t *dfs, dfs_obj_t *parent, const char *name, dfs_obj_t *new_parent,
	     const char *new_name, daos_obj_id_t *oid);
int dfs_get_mode(dfs_obj_t *obj, mode_t *mode);
int dfs_get_chunk_size(dfs_obj_t *obj, daos_size_t *chunk_size);
int dfs_stat(dfs_t *dfs, dfs_obj_t *parent, const char *name, struct stat *stbuf);
int dfs_ostat(dfs_t *dfs, dfs_obj_t *obj, struct stat *stbuf);

#define DFS_SET_ATTR_MODE  (1 << 0)
#define DFS_SET_ATTR_ATIME (1 << 1)
#define DFS_SET_ATTR_MTIME (1 << 2)
#define DFS_SET_ATTR_SIZE  (1 << 3)
#define DFS_SET_ATTR_UID   (1 << 4)
#define DFS_SET_ATTR_GID   (1 << 5)

int dfs_osetattr(dfs_t *dfs, dfs_obj_t *obj, struct stat *stbuf, int flags);
int dfs_access(dfs_t *dfs, dfs_obj_t *parent, const char *name, int mask);
int dfs_sync(dfs_t *dfs);

#ifdef __cplusplus
}
#endif
#endif
