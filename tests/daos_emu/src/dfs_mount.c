/* Mounting and connecting emulated DFS file systems. */
#include <fcntl.h>
#include <sys/stat.h>
#include "dfs_internal.h"

int dfs_init(void)
{
	int rc = daos_init();

	return rc ? EINVAL : 0;
}

int dfs_fini(void)
{
	return daos_fini() ? EINVAL : 0;
}

/* DAOS's mount creates the root directory of an empty container; so does ours, when the mount
 * may write. */
int iol_dfs_mount(daos_handle_t poh, daos_handle_t coh, int flags, dfs_t **dfsp)
{
	char cont_dir[PATH_MAX];
	struct stat st;

	if (!dfsp || ((flags & O_ACCMODE) != O_RDONLY && (flags & O_ACCMODE) != O_RDWR))
		return EINVAL;
	if (!iol_emu_handle_get(poh, IOL_EMU_POOL) || iol_emu_cont_dir(coh, cont_dir, sizeof(cont_dir)))
		return EINVAL;
	dfs_t *dfs = calloc(1, sizeof(*dfs));
	if (!dfs)
		return ENOMEM;
	int err = iol_emu_path(dfs->root, sizeof(dfs->root), "%s/dfs", cont_dir) ? ENAMETOOLONG : 0;
	if (!err && stat(dfs->root, &st) != 0)   /* concurrent mounts may race to make it */
		err = (flags & O_ACCMODE) == O_RDWR &&
		      (mkdir(dfs->root, 0755) == 0 || errno == EEXIST) ? 0 : ENOENT;
	if (err) {
		free(dfs);
		return err;
	}
	dfs->magic = IOL_DFS_MAGIC;
	dfs->flags = flags & O_ACCMODE;
	dfs->poh = poh;
	dfs->coh = coh;
	dfs->chunk_size = DFS_DEFAULT_CHUNK_SIZE;
	dfs->oclass = OC_SX;
	*dfsp = dfs;
	return 0;
}

int dfs_mount(daos_handle_t poh, daos_handle_t coh, int flags, dfs_t **dfs)
{
	return iol_dfs_mount(poh, coh, flags, dfs);
}

int iol_dfs_umount(dfs_t *dfs)
{
	if (!iol_dfs_valid(dfs))
		return EINVAL;
	dfs->magic = 0;
	free(dfs);
	return 0;
}

int dfs_umount(dfs_t *dfs)
{
	return iol_dfs_umount(dfs);
}

/* Creates the container and its namespace root; opens and mounts it when asked (coh, dfs). */
static int cont_create(daos_handle_t poh, const char *label, uuid_t *uuid, daos_handle_t *coh,
		       dfs_t **dfs)
{
	char name[DAOS_UUID_STR_SIZE];
	uuid_t made;
	daos_handle_t opened;

	if (!label) {
		uuid_generate(made);
		uuid_unparse_lower(made, name);
		label = name;
	}
	int rc = iol_emu_cont_create(poh, label, made);
	if (rc)
		return rc == -DER_EXIST ? EEXIST : rc == -DER_NO_HDL ? EINVAL : EIO;
	if (uuid)
		uuid_copy(*uuid, made);
	if (daos_cont_open(poh, label, DAOS_COO_RW, &opened, NULL, NULL) != 0)
		return EIO;
	dfs_t *mounted = NULL;
	int err = iol_dfs_mount(poh, opened, O_RDWR, &mounted);
	if (!err && dfs)
		*dfs = mounted;
	else if (!err)
		iol_dfs_umount(mounted);
	if (!err && coh)
		*coh = opened;
	else
		daos_cont_close(opened, NULL);
	return err;
}

int dfs_cont_create(daos_handle_t poh, uuid_t *uuid, dfs_attr_t *attr, daos_handle_t *coh,
		    dfs_t **dfs)
{
	return cont_create(poh, NULL, uuid, coh, dfs);
}

int dfs_cont_create_with_label(daos_handle_t poh, const char *label, dfs_attr_t *attr,
			       uuid_t *uuid, daos_handle_t *coh, dfs_t **dfs)
{
	return label ? cont_create(poh, label, uuid, coh, dfs) : EINVAL;
}

/* Pool connect, container open (created first under O_CREAT) and mount, in one call. */
int dfs_connect(const char *pool, const char *sys, const char *cont, int flags, dfs_attr_t *attr,
		dfs_t **dfs)
{
	daos_handle_t poh, coh;

	if (!pool || !cont || !dfs)
		return EINVAL;
	if (daos_pool_connect(pool, sys, DAOS_PC_RW, &poh, NULL, NULL) != 0)
		return ENOENT;
	int rc = daos_cont_open(poh, cont, DAOS_COO_RW, &coh, NULL, NULL);
	if (rc == -DER_NONEXIST && (flags & O_CREAT)) {
		int err = cont_create(poh, cont, NULL, &coh, NULL);
		if (err == EEXIST)   /* another process created it first */
			rc = daos_cont_open(poh, cont, DAOS_COO_RW, &coh, NULL, NULL);
		else
			rc = err ? -DER_IO : 0;
	}
	int err = rc ? ENOENT : iol_dfs_mount(poh, coh, flags & O_ACCMODE, dfs);
	if (!err) {
		(*dfs)->owns_handles = true;
		return 0;
	}
	if (!rc)
		daos_cont_close(coh, NULL);
	daos_pool_disconnect(poh, NULL);
	return err;
}

int dfs_disconnect(dfs_t *dfs)
{
	if (!iol_dfs_valid(dfs) || !dfs->owns_handles)
		return EINVAL;
	daos_handle_t poh = dfs->poh, coh = dfs->coh;
	iol_dfs_umount(dfs);
	daos_cont_close(coh, NULL);
	daos_pool_disconnect(poh, NULL);
	return 0;
}

int dfs_query(dfs_t *dfs, dfs_attr_t *attr)
{
	if (!iol_dfs_valid(dfs) || !attr)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->da_chunk_size = dfs->chunk_size;
	attr->da_oclass_id = dfs->oclass;
	return 0;
}

/* A global DFS handle is the mount's flags and namespace root (a host path). */
struct dfs_glob {
	int  flags;
	char root[PATH_MAX];
};

int dfs_local2global(dfs_t *dfs, d_iov_t *glob)
{
	if (!iol_dfs_valid(dfs) || !glob)
		return EINVAL;
	if (!glob->iov_buf) {
		glob->iov_buf_len = sizeof(struct dfs_glob);
		return 0;
	}
	if (glob->iov_buf_len < sizeof(struct dfs_glob))
		return ENOBUFS;
	struct dfs_glob *g = glob->iov_buf;
	memset(g, 0, sizeof(*g));
	g->flags = dfs->flags;
	snprintf(g->root, sizeof(g->root), "%s", dfs->root);
	glob->iov_len = sizeof(*g);
	return 0;
}

int dfs_global2local(daos_handle_t poh, daos_handle_t coh, int flags, d_iov_t glob, dfs_t **dfs)
{
	const struct dfs_glob *g = glob.iov_buf;

	if (!g || glob.iov_len != sizeof(*g) || !memchr(g->root, '\0', sizeof(g->root)))
		return EINVAL;
	int err = iol_dfs_mount(poh, coh, flags ? flags : g->flags, dfs);
	if (!err && strcmp((*dfs)->root, g->root) != 0) {
		iol_dfs_umount(*dfs);
		err = EINVAL;   /* the handles belong to another container */
	}
	return err;
}

int dfs_set_prefix(dfs_t *dfs, const char *prefix)
{
	if (!iol_dfs_valid(dfs))
		return EINVAL;
	if (!prefix) {
		dfs->prefix[0] = '\0';
		return 0;
	}
	if (prefix[0] != '/')
		return EINVAL;
	size_t len = strlen(prefix);
	while (len > 1 && prefix[len - 1] == '/')
		len--;
	if (len >= sizeof(dfs->prefix))
		return ENAMETOOLONG;
	memcpy(dfs->prefix, prefix, len);
	dfs->prefix[len] = '\0';
	return 0;
}

/* Data written through the emulation is in the host's page cache already. */
int dfs_sync(dfs_t *dfs)
{
	return iol_dfs_valid(dfs) ? 0 : EINVAL;
}
