/* Pools and containers of the DAOS emulation: directories under the root (see emu.h). */
#include <sys/stat.h>
#include <sys/statvfs.h>
#include "emu.h"

/* ---------------------------------------------------------------- pools */

static int pool_open(const char *name, struct iol_emu_pool **poolp)
{
	const char *root = getenv("IOLENS_DAOS_EMU_ROOT");
	struct iol_emu_pool *pool = calloc(1, sizeof(*pool));

	if (!pool)
		return -DER_NOMEM;
	int rc = root ? iol_emu_find_entry(root, name, pool->dir, sizeof(pool->dir)) : -DER_MISC;
	if (!rc)
		rc = iol_emu_der(iol_emu_dir_uuid(pool->dir, pool->uuid));
	if (rc) {
		free(pool);
		return rc;
	}
	snprintf(pool->label, sizeof(pool->label), "%s", strrchr(pool->dir, '/') + 1);
	*poolp = pool;
	return 0;
}

static int pool_handle(struct iol_emu_pool *pool, daos_handle_t *poh)
{
	*poh = iol_emu_handle_new(IOL_EMU_POOL, pool);
	if (daos_handle_is_valid(*poh))
		return 0;
	free(pool);
	return -DER_NOMEM;
}

static int pool_query(struct iol_emu_pool *pool, daos_pool_info_t *info)
{
	struct statvfs vfs;
	uint64_t bits = info->pi_bits;

	memset(info, 0, sizeof(*info));
	uuid_copy(info->pi_uuid, pool->uuid);
	info->pi_ntargets = 1;
	info->pi_nnodes = 1;
	info->pi_bits = bits;
	if ((bits & DPI_SPACE) && statvfs(pool->dir, &vfs) == 0) {
		info->pi_space.ps_ntargets = 1;
		info->pi_space.ps_space.s_total[DAOS_MEDIA_SCM] = (uint64_t)vfs.f_blocks * vfs.f_frsize;
		info->pi_space.ps_space.s_free[DAOS_MEDIA_SCM] = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	}
	return 0;
}

static int pool_connect(const char *name, daos_handle_t *poh, daos_pool_info_t *info)
{
	struct iol_emu_pool *pool;
	int rc = iol_emu_check_init();

	if (!rc && (!name || !poh))
		rc = -DER_INVAL;
	if (!rc)
		rc = pool_open(name, &pool);
	if (!rc && info)
		pool_query(pool, info);
	return rc ? rc : pool_handle(pool, poh);
}

/* DAOS's headers map daos_pool_connect to daos_pool_connect2; both symbols exist, as in
 * libdaos, for callers built against older headers. */
int daos_pool_connect2(const char *pool, const char *sys, unsigned int flags, daos_handle_t *poh,
		       daos_pool_info_t *info, daos_event_t *ev)
{
	return iol_emu_finish(ev, pool_connect(pool, poh, info));
}

#undef daos_pool_connect
int daos_pool_connect(const char *pool, const char *sys, unsigned int flags, daos_handle_t *poh,
		      daos_pool_info_t *info, daos_event_t *ev)
{
	return iol_emu_finish(ev, pool_connect(pool, poh, info));
}

int daos_pool_disconnect(daos_handle_t poh, daos_event_t *ev)
{
	struct iol_emu_pool *pool = iol_emu_handle_drop(poh, IOL_EMU_POOL);

	free(pool);
	return iol_emu_finish(ev, pool ? 0 : -DER_NO_HDL);
}

int daos_pool_query(daos_handle_t poh, d_rank_list_t **ranks, daos_pool_info_t *info,
		    daos_prop_t *pool_prop, daos_event_t *ev)
{
	struct iol_emu_pool *pool = iol_emu_handle_get(poh, IOL_EMU_POOL);

	if (ranks)
		*ranks = NULL;
	int rc = !pool ? -DER_NO_HDL : info ? pool_query(pool, info) : 0;
	return iol_emu_finish(ev, rc);
}

/* A global handle is the pool's label: the emulation has no server-side handle to share. */
static int name_to_global(const char *name, d_iov_t *glob)
{
	size_t need = strlen(name) + 1;

	if (!glob)
		return -DER_INVAL;
	if (!glob->iov_buf) {
		glob->iov_buf_len = need;
		return 0;
	}
	if (glob->iov_buf_len < need)
		return -DER_TRUNC;
	memcpy(glob->iov_buf, name, need);
	glob->iov_len = need;
	return 0;
}

/* The NUL-terminated name inside a global handle, or NULL. */
static const char *global_name(d_iov_t glob)
{
	if (!glob.iov_buf || glob.iov_len == 0 || ((char *)glob.iov_buf)[glob.iov_len - 1] != '\0')
		return NULL;
	return glob.iov_buf;
}

int daos_pool_local2global(daos_handle_t poh, d_iov_t *glob)
{
	struct iol_emu_pool *pool = iol_emu_handle_get(poh, IOL_EMU_POOL);

	return pool ? name_to_global(pool->label, glob) : -DER_NO_HDL;
}

int daos_pool_global2local(d_iov_t glob, daos_handle_t *poh)
{
	const char *name = global_name(glob);

	return name ? pool_connect(name, poh, NULL) : -DER_INVAL;
}

/* ---------------------------------------------------------------- containers */

int iol_emu_cont_dir(daos_handle_t coh, char *dir, size_t size)
{
	struct iol_emu_cont *cont = iol_emu_handle_get(coh, IOL_EMU_CONT);

	if (!cont)
		return -DER_NO_HDL;
	return iol_emu_path(dir, size, "%s", cont->dir);
}

int iol_emu_cont_create(daos_handle_t poh, const char *name, uuid_t uuid_out)
{
	struct iol_emu_pool *pool = iol_emu_handle_get(poh, IOL_EMU_POOL);
	char dir[PATH_MAX];

	if (!pool)
		return -DER_NO_HDL;
	if (!name || !*name || strchr(name, '/') || name[0] == '.' ||
	    strlen(name) > DAOS_PROP_LABEL_MAX_LEN)
		return -DER_INVAL;
	if (iol_emu_find_entry(pool->dir, name, dir, sizeof(dir)) == 0)
		return -DER_EXIST;
	if (iol_emu_path(dir, sizeof(dir), "%s/%s", pool->dir, name))
		return -DER_EXCEEDS_PATH_LEN;
	if (mkdir(dir, 0755) != 0)
		return iol_emu_der(errno);
	uuid_t uuid;
	uuid_t *target = uuid_out ? (uuid_t *)uuid_out : &uuid;
	if (uuid_parse(name, *target) == 0) {
		/* named by its uuid: record that uuid */
		char file[PATH_MAX];
		FILE *f = iol_emu_path(file, sizeof(file), "%s/.uuid", dir) ? NULL : fopen(file, "w");
		if (!f)
			return -DER_IO;
		fprintf(f, "%s", name);
		fclose(f);
		return 0;
	}
	return iol_emu_der(iol_emu_dir_uuid(dir, *target));
}

int daos_cont_create_with_label(daos_handle_t poh, const char *label, daos_prop_t *cont_prop,
				uuid_t *uuid, daos_event_t *ev)
{
	return iol_emu_finish(ev, iol_emu_cont_create(poh, label, uuid ? *uuid : NULL));
}

/* Creates a container named by a new uuid (returned in *uuid). */
static int cont_create_by_uuid(daos_handle_t poh, uuid_t *uuid)
{
	char text[DAOS_UUID_STR_SIZE];
	uuid_t fresh;

	uuid_generate(fresh);
	uuid_unparse_lower(fresh, text);
	int rc = iol_emu_cont_create(poh, text, NULL);
	if (!rc && uuid)
		uuid_copy(*uuid, fresh);
	return rc;
}

int daos_cont_create2(daos_handle_t poh, uuid_t *uuid, daos_prop_t *cont_prop, daos_event_t *ev)
{
	return iol_emu_finish(ev, cont_create_by_uuid(poh, uuid));
}

#undef daos_cont_create
int daos_cont_create(daos_handle_t poh, uuid_t *uuid, daos_prop_t *cont_prop, daos_event_t *ev)
{
	return iol_emu_finish(ev, cont_create_by_uuid(poh, uuid));
}

static int cont_open(daos_handle_t poh, const char *name, unsigned int flags,
		     daos_handle_t *coh, daos_cont_info_t *info)
{
	struct iol_emu_pool *pool = iol_emu_handle_get(poh, IOL_EMU_POOL);
	struct iol_emu_cont *cont;

	if (!pool)
		return -DER_NO_HDL;
	if (!name || !coh)
		return -DER_INVAL;
	if (!(cont = calloc(1, sizeof(*cont))))
		return -DER_NOMEM;
	int rc = iol_emu_find_entry(pool->dir, name, cont->dir, sizeof(cont->dir));
	if (!rc)
		rc = iol_emu_der(iol_emu_dir_uuid(cont->dir, cont->uuid));
	if (!rc) {
		uuid_copy(cont->pool_uuid, pool->uuid);
		cont->flags = flags;
		*coh = iol_emu_handle_new(IOL_EMU_CONT, cont);
		rc = daos_handle_is_valid(*coh) ? 0 : -DER_NOMEM;
	}
	if (rc) {
		free(cont);
		return rc;
	}
	return info ? daos_cont_query(*coh, info, NULL, NULL) : 0;
}

int daos_cont_open2(daos_handle_t poh, const char *cont, unsigned int flags, daos_handle_t *coh,
		    daos_cont_info_t *info, daos_event_t *ev)
{
	return iol_emu_finish(ev, cont_open(poh, cont, flags, coh, info));
}

#undef daos_cont_open
int daos_cont_open(daos_handle_t poh, const char *cont, unsigned int flags, daos_handle_t *coh,
		   daos_cont_info_t *info, daos_event_t *ev)
{
	return iol_emu_finish(ev, cont_open(poh, cont, flags, coh, info));
}

int daos_cont_close(daos_handle_t coh, daos_event_t *ev)
{
	struct iol_emu_cont *cont = iol_emu_handle_drop(coh, IOL_EMU_CONT);

	free(cont);
	return iol_emu_finish(ev, cont ? 0 : -DER_NO_HDL);
}

int daos_cont_query(daos_handle_t coh, daos_cont_info_t *info, daos_prop_t *cont_prop,
		    daos_event_t *ev)
{
	struct iol_emu_cont *cont = iol_emu_handle_get(coh, IOL_EMU_CONT);
	struct stat st;

	if (cont && info) {
		memset(info, 0, sizeof(*info));
		uuid_copy(info->ci_uuid, cont->uuid);
		info->ci_nhandles = 1;
		if (stat(cont->dir, &st) == 0)
			info->ci_md_mtime = (uint64_t)st.st_mtime;
	}
	return iol_emu_finish(ev, cont ? 0 : -DER_NO_HDL);
}

static int cont_destroy(daos_handle_t poh, const char *name)
{
	struct iol_emu_pool *pool = iol_emu_handle_get(poh, IOL_EMU_POOL);
	char dir[PATH_MAX];

	if (!pool)
		return -DER_NO_HDL;
	int rc = iol_emu_find_entry(pool->dir, name, dir, sizeof(dir));
	return rc ? rc : iol_emu_der(iol_emu_remove_tree(dir));
}

int daos_cont_destroy2(daos_handle_t poh, const char *cont, int force, daos_event_t *ev)
{
	return iol_emu_finish(ev, cont_destroy(poh, cont));
}

#undef daos_cont_destroy
int daos_cont_destroy(daos_handle_t poh, const char *cont, int force, daos_event_t *ev)
{
	return iol_emu_finish(ev, cont_destroy(poh, cont));
}

/* A container's global handle is its directory name in the pool. */
int daos_cont_local2global(daos_handle_t coh, d_iov_t *glob)
{
	struct iol_emu_cont *cont = iol_emu_handle_get(coh, IOL_EMU_CONT);

	return cont ? name_to_global(strrchr(cont->dir, '/') + 1, glob) : -DER_NO_HDL;
}

int daos_cont_global2local(daos_handle_t poh, d_iov_t glob, daos_handle_t *coh)
{
	const char *name = global_name(glob);

	return name ? cont_open(poh, name, DAOS_COO_RW, coh, NULL) : -DER_INVAL;
}

daos_prop_t *daos_prop_alloc(uint32_t entries_nr)
{
	daos_prop_t *prop = calloc(1, sizeof(*prop));

	if (prop && entries_nr) {
		prop->dpp_entries = calloc(entries_nr, sizeof(*prop->dpp_entries));
		if (!prop->dpp_entries) {
			free(prop);
			return NULL;
		}
		prop->dpp_nr = entries_nr;
	}
	return prop;
}

void daos_prop_free(daos_prop_t *prop)
{
	if (prop)
		free(prop->dpp_entries);
	free(prop);
}
