/* Names, objects and metadata of the emulated DFS. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "dfs_internal.h"

/* Chunk size and class given at creation live in an extended attribute; where the host file
 * system has none, objects report the mount's defaults. */
#define LAYOUT_XATTR "user.iolens_daos_emu.layout"

struct layout {
	uint64_t chunk_size;
	uint32_t oclass;
};

daos_obj_id_t iol_dfs_oid(const struct stat *st, daos_oclass_id_t cid)
{
	enum daos_otype_t type = S_ISREG(st->st_mode) ? DAOS_OT_ARRAY_BYTE : DAOS_OT_MULTI_HASHED;
	daos_obj_id_t oid = { .lo = (uint64_t)st->st_ino, .hi = 0 };
	uint64_t redun = (cid >> OC_REDUN_SHIFT) & OID_FMT_CLASS_MAX;

	oid.hi = ((uint64_t)type << OID_FMT_TYPE_SHIFT) | (redun << OID_FMT_CLASS_SHIFT) |
		 ((uint64_t)(cid & OID_FMT_META_MAX) << OID_FMT_META_SHIFT);
	return oid;
}

/* ---------------------------------------------------------------- paths */

static int check_name(const char *name)
{
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return EINVAL;
	return strlen(name) > DFS_MAX_NAME ? ENAMETOOLONG : 0;
}

/* The host directory of parent (NULL: the root); ENOTDIR if parent is not a directory. */
static int parent_dir(dfs_t *dfs, dfs_obj_t *parent, const char **dir)
{
	if (!iol_dfs_valid(dfs))
		return EINVAL;
	if (parent && !S_ISDIR(parent->mode))
		return ENOTDIR;
	*dir = parent ? parent->path : dfs->root;
	return 0;
}

static int child_path(dfs_t *dfs, dfs_obj_t *parent, const char *name, char *path, size_t size)
{
	const char *dir;
	int err = parent_dir(dfs, parent, &dir);

	if (!err)
		err = check_name(name);
	if (!err && iol_emu_path(path, size, "%s/%s", dir, name))
		err = ENAMETOOLONG;
	return err;
}

/* Maps an absolute DFS path (after the prefix, if one is set) to a host path; "..", which could
 * leave the namespace, is refused. */
static int namespace_path(dfs_t *dfs, const char *path, char *out, size_t size)
{
	size_t plen = strlen(dfs->prefix);

	if (!path || path[0] != '/')
		return EINVAL;
	if (plen > 1) {
		if (strncmp(path, dfs->prefix, plen) || (path[plen] != '/' && path[plen] != '\0'))
			return EINVAL;
		path += plen;
	}
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
			return EINVAL;
	return iol_emu_path(out, size, "%s%s", dfs->root, path) ? ENAMETOOLONG : 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : "/";
}

/* ---------------------------------------------------------------- objects */

static void load_layout(dfs_t *dfs, dfs_obj_t *obj, daos_size_t chunk, daos_oclass_id_t cid)
{
	struct layout l;

	obj->chunk_size = chunk ? chunk : dfs->chunk_size;
	obj->oclass = cid ? cid : dfs->oclass;
	if (getxattr(obj->path, LAYOUT_XATTR, &l, sizeof(l)) == (ssize_t)sizeof(l)) {
		obj->chunk_size = l.chunk_size;
		obj->oclass = l.oclass;
	}
}

static void store_layout(const char *path, daos_size_t chunk, daos_oclass_id_t cid)
{
	struct layout l = { chunk, cid };

	(void)setxattr(path, LAYOUT_XATTR, &l, sizeof(l), 0);
}

int iol_dfs_obj_open(dfs_t *dfs, const char *path, const char *name, int flags,
		     daos_size_t chunk_size, daos_oclass_id_t cid, dfs_obj_t **objp)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return errno;
	dfs_obj_t *obj = calloc(1, sizeof(*obj));
	if (!obj)
		return ENOMEM;
	snprintf(obj->path, sizeof(obj->path), "%s", path);
	snprintf(obj->name, sizeof(obj->name), "%s", name);
	obj->mode = st.st_mode;
	obj->flags = flags;
	obj->fd = -1;
	if (S_ISREG(st.st_mode)) {
		obj->fd = open(path, (flags & O_ACCMODE) | O_CLOEXEC);
		if (obj->fd < 0) {
			int err = errno;
			free(obj);
			return err;
		}
	}
	load_layout(dfs, obj, chunk_size, cid);
	obj->oid = iol_dfs_oid(&st, obj->oclass);
	*objp = obj;
	return 0;
}

/* Fills the optional outputs of a lookup. */
static void lookup_outputs(dfs_obj_t *obj, mode_t *mode, struct stat *stbuf)
{
	if (mode)
		*mode = obj->mode;
	if (stbuf && stat(obj->path, stbuf) != 0)
		memset(stbuf, 0, sizeof(*stbuf));
}

static int open_for_mount(dfs_t *dfs, int flags)
{
	if ((flags & O_ACCMODE) != O_RDONLY && dfs->flags == O_RDONLY)
		return EPERM;
	return 0;
}

int dfs_lookup(dfs_t *dfs, const char *path, int flags, dfs_obj_t **obj, mode_t *mode,
	       struct stat *stbuf)
{
	char host[PATH_MAX];

	if (!iol_dfs_valid(dfs) || !obj)
		return EINVAL;
	int err = namespace_path(dfs, path, host, sizeof(host));
	if (!err)
		err = open_for_mount(dfs, flags);
	if (!err)
		err = iol_dfs_obj_open(dfs, host, base_name(path), flags, 0, 0, obj);
	if (!err)
		lookup_outputs(*obj, mode, stbuf);
	return err;
}

int dfs_lookup_rel(dfs_t *dfs, dfs_obj_t *parent, const char *name, int flags, dfs_obj_t **obj,
		   mode_t *mode, struct stat *stbuf)
{
	char host[PATH_MAX];
	int err = obj ? child_path(dfs, parent, name, host, sizeof(host)) : EINVAL;

	if (!err)
		err = open_for_mount(dfs, flags);
	if (!err)
		err = iol_dfs_obj_open(dfs, host, name, flags, 0, 0, obj);
	if (!err)
		lookup_outputs(*obj, mode, stbuf);
	return err;
}

/* Creates what dfs_open's mode names: a directory, a symbolic link to value, or a file. */
static int create_entry(const char *path, mode_t mode, int flags, const char *value)
{
	int err = 0;

	if (S_ISDIR(mode)) {
		if (mkdir(path, mode & 07777) != 0 && (errno != EEXIST || (flags & O_EXCL)))
			err = errno;
	} else if (S_ISLNK(mode)) {
		if (!value)
			return EINVAL;
		if (symlink(value, path) != 0 && (errno != EEXIST || (flags & O_EXCL)))
			err = errno;
	} else {
		int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (flags & (O_EXCL | O_TRUNC)),
			      mode & 07777);
		if (fd < 0)
			err = errno;
		else
			close(fd);
	}
	return err;
}

int dfs_open(dfs_t *dfs, dfs_obj_t *parent, const char *name, mode_t mode, int flags,
	     daos_oclass_id_t cid, daos_size_t chunk_size, const char *value, dfs_obj_t **obj)
{
	char host[PATH_MAX];
	struct stat st;
	mode_t type = mode & S_IFMT;

	if (!obj || (type != S_IFREG && type != S_IFDIR && type != S_IFLNK))
		return EINVAL;
	int err = child_path(dfs, parent, name, host, sizeof(host));
	if (!err)
		err = open_for_mount(dfs, flags | ((flags & O_CREAT) ? O_RDWR : 0));
	bool exists = !err && lstat(host, &st) == 0;
	if (!err && (flags & O_CREAT))
		err = create_entry(host, mode, flags, value);
	else if (!err && !exists)
		err = ENOENT;
	if (!err && (flags & O_CREAT) && !exists)
		store_layout(host, chunk_size ? chunk_size : dfs->chunk_size, cid ? cid : dfs->oclass);
	if (!err && exists && (st.st_mode & S_IFMT) != type)
		err = S_ISDIR(st.st_mode) ? EISDIR : type == S_IFDIR ? ENOTDIR : EINVAL;
	if (!err && type == S_IFREG && (flags & O_TRUNC) && truncate(host, 0) != 0)
		err = errno;
	return err ? err : iol_dfs_obj_open(dfs, host, name, flags & ~(O_CREAT | O_EXCL | O_TRUNC),
					    chunk_size, cid, obj);
}

int dfs_dup(dfs_t *dfs, dfs_obj_t *obj, int flags, dfs_obj_t **new_obj)
{
	if (!iol_dfs_valid(dfs) || !obj || !new_obj)
		return EINVAL;
	return iol_dfs_obj_open(dfs, obj->path, obj->name, flags, obj->chunk_size, obj->oclass,
				new_obj);
}

int dfs_release(dfs_obj_t *obj)
{
	if (!obj)
		return EINVAL;
	if (obj->fd >= 0)
		close(obj->fd);
	free(obj);
	return 0;
}

int dfs_obj2id(dfs_obj_t *obj, daos_obj_id_t *oid)
{
	if (!obj || !oid)
		return EINVAL;
	*oid = obj->oid;
	return 0;
}

int dfs_get_mode(dfs_obj_t *obj, mode_t *mode)
{
	if (!obj || !mode)
		return EINVAL;
	*mode = obj->mode;
	return 0;
}

int dfs_get_chunk_size(dfs_obj_t *obj, daos_size_t *chunk_size)
{
	if (!obj || !chunk_size || !S_ISREG(obj->mode))
		return EINVAL;
	*chunk_size = obj->chunk_size;
	return 0;
}

/* A global object handle is its open flags and host path. */
struct obj_glob {
	int         flags;
	daos_size_t chunk_size;
	char        path[PATH_MAX];
};

int dfs_obj_local2global(dfs_t *dfs, dfs_obj_t *obj, d_iov_t *glob)
{
	if (!iol_dfs_valid(dfs) || !obj || !glob)
		return EINVAL;
	if (!glob->iov_buf) {
		glob->iov_buf_len = sizeof(struct obj_glob);
		return 0;
	}
	if (glob->iov_buf_len < sizeof(struct obj_glob))
		return ENOBUFS;
	struct obj_glob *g = glob->iov_buf;
	memset(g, 0, sizeof(*g));
	g->flags = obj->flags;
	g->chunk_size = obj->chunk_size;
	snprintf(g->path, sizeof(g->path), "%s", obj->path);
	glob->iov_len = sizeof(*g);
	return 0;
}

int dfs_obj_global2local(dfs_t *dfs, int flags, d_iov_t glob, dfs_obj_t **obj)
{
	const struct obj_glob *g = glob.iov_buf;

	if (!iol_dfs_valid(dfs) || !obj || !g || glob.iov_len != sizeof(*g) ||
	    !memchr(g->path, '\0', sizeof(g->path)))
		return EINVAL;
	return iol_dfs_obj_open(dfs, g->path, base_name(g->path), flags ? flags : g->flags,
				g->chunk_size, 0, obj);
}

/* ---------------------------------------------------------------- metadata */

int dfs_stat(dfs_t *dfs, dfs_obj_t *parent, const char *name, struct stat *stbuf)
{
	char host[PATH_MAX];
	const char *dir;
	int err = stbuf ? parent_dir(dfs, parent, &dir) : EINVAL;

	if (err)
		return err;
	if (name)
		err = child_path(dfs, parent, name, host, sizeof(host));
	else
		snprintf(host, sizeof(host), "%s", dir);
	if (!err && lstat(host, stbuf) != 0)
		err = errno;
	return err;
}

int dfs_ostat(dfs_t *dfs, dfs_obj_t *obj, struct stat *stbuf)
{
	if (!iol_dfs_valid(dfs) || !obj || !stbuf)
		return EINVAL;
	int rc = obj->fd >= 0 ? fstat(obj->fd, stbuf) : lstat(obj->path, stbuf);
	return rc == 0 ? 0 : errno;
}

static int set_times(dfs_obj_t *obj, const struct stat *stbuf, int flags)
{
	struct timespec times[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };

	if (flags & DFS_SET_ATTR_ATIME)
		times[0] = stbuf->st_atim;
	if (flags & DFS_SET_ATTR_MTIME)
		times[1] = stbuf->st_mtim;
	return utimensat(AT_FDCWD, obj->path, times, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
}

/* Applies the attributes flags names, then returns the object's new stat in stbuf. */
int dfs_osetattr(dfs_t *dfs, dfs_obj_t *obj, struct stat *stbuf, int flags)
{
	int err = 0;

	if (!iol_dfs_valid(dfs) || !obj || !stbuf)
		return EINVAL;
	if (dfs->flags == O_RDONLY)
		return EPERM;
	if ((flags & DFS_SET_ATTR_MODE) && chmod(obj->path, stbuf->st_mode & 07777) != 0)
		err = errno;
	if (!err && (flags & (DFS_SET_ATTR_ATIME | DFS_SET_ATTR_MTIME)))
		err = set_times(obj, stbuf, flags);
	if (!err && (flags & DFS_SET_ATTR_SIZE) && truncate(obj->path, stbuf->st_size) != 0)
		err = errno;
	if (!err && (flags & (DFS_SET_ATTR_UID | DFS_SET_ATTR_GID)) &&
	    lchown(obj->path, (flags & DFS_SET_ATTR_UID) ? stbuf->st_uid : (uid_t)-1,
		   (flags & DFS_SET_ATTR_GID) ? stbuf->st_gid : (gid_t)-1) != 0)
		err = errno;
	return err ? err : dfs_ostat(dfs, obj, stbuf);
}

int dfs_access(dfs_t *dfs, dfs_obj_t *parent, const char *name, int mask)
{
	char host[PATH_MAX];
	const char *dir;
	int err = name ? child_path(dfs, parent, name, host, sizeof(host))
		       : parent_dir(dfs, parent, &dir);

	if (!err && !name)
		snprintf(host, sizeof(host), "%s", dir);
	if (!err && access(host, mask) != 0)
		err = errno;
	return err;
}

/* ---------------------------------------------------------------- directories */

int dfs_mkdir(dfs_t *dfs, dfs_obj_t *parent, const char *name, mode_t mode, daos_oclass_id_t cid)
{
	char host[PATH_MAX];
	int err = child_path(dfs, parent, name, host, sizeof(host));

	if (!err && dfs->flags == O_RDONLY)
		err = EPERM;
	if (!err && mkdir(host, mode & 07777) != 0)
		err = errno;
	return err;
}

/* A non-empty directory is removed only with force (then with all it holds). */
int dfs_remove(dfs_t *dfs, dfs_obj_t *parent, const char *name, bool force, daos_obj_id_t *oid)
{
	char host[PATH_MAX];
	struct stat st;
	int err = child_path(dfs, parent, name, host, sizeof(host));

	if (!err && dfs->flags == O_RDONLY)
		err = EPERM;
	if (!err && lstat(host, &st) != 0)
		err = errno;
	if (err)
		return err;
	if (oid)
		*oid = iol_dfs_oid(&st, dfs->oclass);
	if (!S_ISDIR(st.st_mode))
		return unlink(host) == 0 ? 0 : errno;
	if (rmdir(host) == 0)
		return 0;
	err = errno;
	return (err == ENOTEMPTY || err == EEXIST) && force ? iol_emu_remove_tree(host) : err;
}

int dfs_move(dfs_t *dfs, dfs_obj_t *parent, const char *name, dfs_obj_t *new_parent,
	     const char *new_name, daos_obj_id_t *oid)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct stat st;
	int err = child_path(dfs, parent, name, from, sizeof(from));

	if (!err)
		err = child_path(dfs, new_parent, new_name, to, sizeof(to));
	if (!err && dfs->flags == O_RDONLY)
		err = EPERM;
	if (!err && oid)
		*oid = lstat(to, &st) == 0 ? iol_dfs_oid(&st, dfs->oclass) : DAOS_OBJ_NIL;
	if (!err && rename(from, to) != 0)
		err = errno;
	return err;
}

/* Entries in name order; the anchor keeps the index of the next one. */
int dfs_readdir(dfs_t *dfs, dfs_obj_t *obj, daos_anchor_t *anchor, uint32_t *nr,
		struct dirent *dirs)
{
	struct dirent **names = NULL;
	uint64_t next;

	if (!iol_dfs_valid(dfs) || !obj || !anchor || !nr || !dirs)
		return EINVAL;
	if (!S_ISDIR(obj->mode))
		return ENOTDIR;
	memcpy(&next, anchor->da_buf, sizeof(next));
	int count = scandir(obj->path, &names, NULL, alphasort);
	if (count < 0)
		return errno;
	uint32_t filled = 0;
	for (; filled < *nr && next < (uint64_t)count; next++) {
		const char *n = names[next]->d_name;
		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		struct dirent *d = &dirs[filled++];   /* scandir's entries may be shorter */
		memset(d, 0, sizeof(*d));
		d->d_ino = names[next]->d_ino;
		d->d_type = names[next]->d_type;
		d->d_reclen = sizeof(*d);
		snprintf(d->d_name, sizeof(d->d_name), "%s", n);
	}
	if (next >= (uint64_t)count)
		anchor->da_type = DAOS_ANCHOR_TYPE_EOF;
	memcpy(anchor->da_buf, &next, sizeof(next));
	for (int i = 0; i < count; i++)
		free(names[i]);
	free(names);
	*nr = filled;
	return 0;
}
