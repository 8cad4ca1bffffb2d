/* Data of emulated DFS files: reads and writes go to the real file. */
#include <sys/stat.h>
#include <unistd.h>
#include "dfs_internal.h"

/* The open regular file behind obj; EINVAL for a bad mount or any other kind of object
 * (a directory too, as in DFS). */
static int file_of(dfs_t *dfs, dfs_obj_t *obj)
{
	if (!iol_dfs_valid(dfs) || !obj || !S_ISREG(obj->mode))
		return EINVAL;
	return obj->fd >= 0 ? 0 : EINVAL;
}

/* 0 when obj is an open file that may be read; then c is a cursor over sgl's buffers (DFS
 * reports what it read in read_size and leaves the vectors' lengths alone). */
static int start_read(dfs_t *dfs, dfs_obj_t *obj, d_sg_list_t *sgl, struct iol_emu_cursor *c)
{
	int err = file_of(dfs, obj);

	if (!err && (obj->flags & O_ACCMODE) == O_WRONLY)
		err = EPERM;
	iol_emu_cursor_init(c, sgl, true);
	c->report = false;
	return err;
}

static int can_write(dfs_t *dfs, dfs_obj_t *obj)
{
	return (obj->flags & O_ACCMODE) == O_RDONLY || dfs->flags == O_RDONLY ? EPERM : 0;
}

/* ---------------------------------------------------------------- read */

static int read_at(dfs_t *dfs, dfs_obj_t *obj, d_sg_list_t *sgl, daos_off_t off,
		   daos_size_t *read_size)
{
	struct iol_emu_cursor c;
	size_t got = 0;

	if (!sgl || !read_size)
		return EINVAL;
	int err = start_read(dfs, obj, sgl, &c);
	if (err)
		return err;
	err = iol_emu_cursor_from_file(&c, obj->fd, (off_t)off, iol_emu_cursor_left(&c), false, &got);
	*read_size = got;
	return err;
}

/* With an event, the result is in ev->ev_error and the call returns 0 (see daos_event.h). */
int dfs_read(dfs_t *dfs, dfs_obj_t *obj, d_sg_list_t *sgl, daos_off_t off,
	     daos_size_t *read_size, daos_event_t *ev)
{
	return iol_emu_finish(ev, read_at(dfs, obj, sgl, off, read_size));
}

static daos_size_t iod_length(const dfs_iod_t *iod)
{
	daos_size_t total = 0;

	for (daos_size_t r = 0; r < iod->iod_nr; r++)
		total += iod->iod_rgs[r].rg_len;
	return total;
}

/* Ranges are byte ranges of the file, filled from (or into) the sgl in order. */
static int check_iod(dfs_iod_t *iod, d_sg_list_t *sgl, bool fetch)
{
	struct iol_emu_cursor c;

	if (!iod || !sgl || (iod->iod_nr && !iod->iod_rgs))
		return EINVAL;
	iol_emu_cursor_init(&c, sgl, fetch);
	return iol_emu_cursor_left(&c) < iod_length(iod) ? EINVAL : 0;
}

static int readx(dfs_t *dfs, dfs_obj_t *obj, dfs_iod_t *iod, d_sg_list_t *sgl,
		 daos_size_t *read_size)
{
	struct iol_emu_cursor c;
	int err = read_size ? check_iod(iod, sgl, true) : EINVAL;

	if (!err)
		err = start_read(dfs, obj, sgl, &c);
	if (err)
		return err;
	*read_size = 0;
	for (daos_size_t r = 0; !err && r < iod->iod_nr; r++) {
		size_t got;
		daos_range_t *rg = &iod->iod_rgs[r];
		err = iol_emu_cursor_from_file(&c, obj->fd, (off_t)rg->rg_idx, rg->rg_len, true, &got);
		*read_size += got;
	}
	return err;
}

int dfs_readx(dfs_t *dfs, dfs_obj_t *obj, dfs_iod_t *iod, d_sg_list_t *sgl,
	      daos_size_t *read_size, daos_event_t *ev)
{
	return iol_emu_finish(ev, readx(dfs, obj, iod, sgl, read_size));
}

/* ---------------------------------------------------------------- write */

static int write_at(dfs_t *dfs, dfs_obj_t *obj, d_sg_list_t *sgl, daos_off_t off)
{
	struct iol_emu_cursor c;
	int err = file_of(dfs, obj);

	if (!err && !sgl)
		err = EINVAL;
	if (!err)
		err = can_write(dfs, obj);
	if (err)
		return err;
	iol_emu_cursor_init(&c, sgl, false);
	return iol_emu_cursor_to_file(&c, obj->fd, (off_t)off, iol_emu_cursor_left(&c));
}

int dfs_write(dfs_t *dfs, dfs_obj_t *obj, d_sg_list_t *sgl, daos_off_t off, daos_event_t *ev)
{
	return iol_emu_finish(ev, write_at(dfs, obj, sgl, off));
}

static int writex(dfs_t *dfs, dfs_obj_t *obj, dfs_iod_t *iod, d_sg_list_t *sgl)
{
	struct iol_emu_cursor c;
	int err = file_of(dfs, obj);

	if (!err)
		err = check_iod(iod, sgl, false);
	if (!err)
		err = can_write(dfs, obj);
	if (err)
		return err;
	iol_emu_cursor_init(&c, sgl, false);
	for (daos_size_t r = 0; !err && r < iod->iod_nr; r++) {
		daos_range_t *rg = &iod->iod_rgs[r];
		err = iol_emu_cursor_to_file(&c, obj->fd, (off_t)rg->rg_idx, rg->rg_len);
	}
	return err;
}

int dfs_writex(dfs_t *dfs, dfs_obj_t *obj, dfs_iod_t *iod, d_sg_list_t *sgl, daos_event_t *ev)
{
	return iol_emu_finish(ev, writex(dfs, obj, iod, sgl));
}

/* ---------------------------------------------------------------- size and punch */

int dfs_get_size(dfs_t *dfs, dfs_obj_t *obj, daos_size_t *size)
{
	struct stat st;
	int err = file_of(dfs, obj);

	if (!err && !size)
		err = EINVAL;
	if (!err && fstat(obj->fd, &st) != 0)
		err = errno;
	if (!err)
		*size = (daos_size_t)st.st_size;
	return err;
}

/* len DFS_MAX_FSIZE truncates (or extends) to offset; a punch reaching past the end shrinks
 * the file to offset; any other punch leaves a hole that reads as zeros. */
int dfs_punch(dfs_t *dfs, dfs_obj_t *obj, daos_off_t offset, daos_size_t len)
{
	struct stat st;
	int err = file_of(dfs, obj);

	if (!err)
		err = can_write(dfs, obj);
	if (!err && fstat(obj->fd, &st) != 0)
		err = errno;
	if (err)
		return err;
	bool to_end = len == DFS_MAX_FSIZE || offset + len >= (daos_size_t)st.st_size;
	if (len == DFS_MAX_FSIZE || (to_end && offset < (daos_size_t)st.st_size))
		return ftruncate(obj->fd, (off_t)offset) == 0 ? 0 : errno;
	return to_end ? 0 : iol_emu_zero_range(obj->fd, (off_t)offset, (off_t)len);
}
