/* The array API of the DAOS emulation.  An array object's directory holds "cells", a file of
 * cell_size-byte cells, and, for arrays made by daos_array_create, "attr" (cell and chunk size),
 * as DAOS keeps them in the object.  Ranges and sizes are in cells. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "emu.h"

struct array_attr {
	uint64_t cell_size;
	uint64_t chunk_size;
};

static int attr_path(char *buf, size_t size, const char *dir)
{
	return iol_emu_path(buf, size, "%s/attr", dir);
}

static int read_attr(const char *dir, struct array_attr *attr)
{
	char file[PATH_MAX];
	size_t got = 0;

	if (attr_path(file, sizeof(file), dir))
		return -DER_EXCEEDS_PATH_LEN;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return iol_emu_der(errno);
	int err = iol_emu_pread_all(fd, attr, sizeof(*attr), 0, &got);
	close(fd);
	return err ? iol_emu_der(err) : got == sizeof(*attr) ? 0 : -DER_IO;
}

static int write_attr(const char *dir, const struct array_attr *attr)
{
	char file[PATH_MAX];

	if (attr_path(file, sizeof(file), dir))
		return -DER_EXCEEDS_PATH_LEN;
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return iol_emu_der(errno);
	int err = iol_emu_pwrite_all(fd, attr, sizeof(*attr), 0);
	close(fd);
	return iol_emu_der(err);
}

/* Opens the cells file and makes the handle. */
static int array_handle(const char *dir, daos_obj_id_t oid, unsigned int mode,
			const struct array_attr *attr, daos_handle_t *oh)
{
	char file[PATH_MAX];
	struct iol_emu_obj *obj;

	if (iol_emu_path(file, sizeof(file), "%s/cells", dir))
		return -DER_EXCEEDS_PATH_LEN;
	int fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return iol_emu_der(errno);
	int rc = iol_emu_obj_handle(IOL_EMU_ARRAY, dir, oid, mode, &obj, oh);
	if (rc) {
		close(fd);
		return rc;
	}
	obj->data_fd = fd;
	obj->cell_size = attr->cell_size;
	obj->chunk_size = attr->chunk_size;
	return 0;
}

static int array_create(daos_handle_t coh, daos_obj_id_t oid, daos_size_t cell_size,
			daos_size_t chunk_size, daos_handle_t *oh)
{
	struct array_attr attr = { cell_size, chunk_size };
	char dir[PATH_MAX];

	enum daos_otype_t type = daos_obj_id2type(oid);

	if (!oh || cell_size == 0 || chunk_size == 0 ||
	    (type != DAOS_OT_ARRAY && type != DAOS_OT_ARRAY_ATTR && type != DAOS_OT_ARRAY_BYTE))
		return -DER_INVAL;
	int rc = iol_emu_obj_dir(coh, oid, true, dir, sizeof(dir));
	if (!rc)
		rc = write_attr(dir, &attr);
	return rc ? rc : array_handle(dir, oid, DAOS_OO_RW, &attr, oh);
}

int daos_array_create(daos_handle_t coh, daos_obj_id_t oid, daos_handle_t th,
		      daos_size_t cell_size, daos_size_t chunk_size, daos_handle_t *oh,
		      daos_event_t *ev)
{
	return iol_emu_finish(ev, array_create(coh, oid, cell_size, chunk_size, oh));
}

static int array_open(daos_handle_t coh, daos_obj_id_t oid, unsigned int mode,
		      daos_size_t *cell_size, daos_size_t *chunk_size, daos_handle_t *oh)
{
	struct array_attr attr;
	char dir[PATH_MAX];

	if (!oh || !cell_size || !chunk_size || daos_obj_id2type(oid) != DAOS_OT_ARRAY)
		return -DER_INVAL;
	int rc = iol_emu_obj_dir(coh, oid, false, dir, sizeof(dir));
	if (!rc)
		rc = read_attr(dir, &attr);
	if (rc)
		return rc;
	*cell_size = attr.cell_size;
	*chunk_size = attr.chunk_size;
	return array_handle(dir, oid, mode, &attr, oh);
}

int daos_array_open(daos_handle_t coh, daos_obj_id_t oid, daos_handle_t th, unsigned int mode,
		    daos_size_t *cell_size, daos_size_t *chunk_size, daos_handle_t *oh,
		    daos_event_t *ev)
{
	return iol_emu_finish(ev, array_open(coh, oid, mode, cell_size, chunk_size, oh));
}

/* Arrays without stored attributes exist implicitly, like any DAOS object. */
static int array_open_with_attr(daos_handle_t coh, daos_obj_id_t oid, unsigned int mode,
				daos_size_t cell_size, daos_size_t chunk_size, daos_handle_t *oh)
{
	struct array_attr attr = { cell_size, chunk_size };
	enum daos_otype_t type = daos_obj_id2type(oid);
	char dir[PATH_MAX];

	if (!oh || cell_size == 0 || chunk_size == 0 ||
	    (type != DAOS_OT_ARRAY_ATTR && type != DAOS_OT_ARRAY_BYTE))
		return -DER_INVAL;
	int rc = iol_emu_obj_dir(coh, oid, true, dir, sizeof(dir));
	return rc ? rc : array_handle(dir, oid, mode, &attr, oh);
}

int daos_array_open_with_attr(daos_handle_t coh, daos_obj_id_t oid, daos_handle_t th,
			      unsigned int mode, daos_size_t cell_size, daos_size_t chunk_size,
			      daos_handle_t *oh, daos_event_t *ev)
{
	return iol_emu_finish(ev, array_open_with_attr(coh, oid, mode, cell_size, chunk_size, oh));
}

int daos_array_close(daos_handle_t oh, daos_event_t *ev)
{
	return iol_emu_finish(ev, iol_emu_obj_close(oh, IOL_EMU_ARRAY));
}

int daos_array_get_attr(daos_handle_t oh, daos_size_t *chunk_size, daos_size_t *cell_size)
{
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, IOL_EMU_ARRAY);

	if (!obj)
		return -DER_NO_HDL;
	if (!chunk_size || !cell_size)
		return -DER_INVAL;
	*chunk_size = obj->chunk_size;
	*cell_size = obj->cell_size;
	return 0;
}

/* ---------------------------------------------------------------- I/O */

static daos_size_t iod_bytes(const daos_array_iod_t *iod, daos_size_t cell_size)
{
	daos_size_t cells = 0;

	for (daos_size_t r = 0; r < iod->arr_nr; r++)
		cells += iod->arr_rgs[r].rg_len;
	return cells * cell_size;
}

/* The array of a live handle, checked against its iod and sgl; NULL sets *rc. */
static struct iol_emu_obj *io_array(daos_handle_t oh, daos_array_iod_t *iod, d_sg_list_t *sgl,
				    bool fetch, int *rc)
{
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, IOL_EMU_ARRAY);
	struct iol_emu_cursor c;

	*rc = 0;
	if (!obj)
		*rc = -DER_NO_HDL;
	else if (!iod || !sgl || (iod->arr_nr && !iod->arr_rgs))
		*rc = -DER_INVAL;
	else if (!fetch && (obj->mode & DAOS_OO_RO))
		*rc = -DER_NO_PERM;
	if (*rc)
		return NULL;
	iol_emu_cursor_init(&c, sgl, fetch);
	if (iol_emu_cursor_left(&c) < iod_bytes(iod, obj->cell_size))
		*rc = -DER_INVAL;   /* the sgl must hold every cell of the iod */
	return *rc ? NULL : obj;
}

static int array_read(daos_handle_t oh, daos_array_iod_t *iod, d_sg_list_t *sgl)
{
	struct iol_emu_cursor c;
	int rc, err = 0;
	struct iol_emu_obj *obj = io_array(oh, iod, sgl, true, &rc);

	if (!obj)
		return rc;
	iol_emu_cursor_init(&c, sgl, true);
	daos_size_t from_file = 0;
	for (daos_size_t r = 0; !err && r < iod->arr_nr; r++) {
		size_t got;
		daos_range_t *rg = &iod->arr_rgs[r];
		err = iol_emu_cursor_from_file(&c, obj->data_fd, (off_t)(rg->rg_idx * obj->cell_size),
					       rg->rg_len * obj->cell_size, true, &got);
		from_file += got;
	}
	sgl->sg_nr_out = c.touched;
	iod->arr_nr_read = (from_file + obj->cell_size - 1) / obj->cell_size;
	iod->arr_nr_short_read = iod_bytes(iod, 1) - iod->arr_nr_read;
	return iol_emu_der(err);
}

int daos_array_read(daos_handle_t oh, daos_handle_t th, daos_array_iod_t *iod, d_sg_list_t *sgl,
		    daos_event_t *ev)
{
	return iol_emu_finish(ev, array_read(oh, iod, sgl));
}

static int array_write(daos_handle_t oh, daos_array_iod_t *iod, d_sg_list_t *sgl)
{
	struct iol_emu_cursor c;
	int rc, err = 0;
	struct iol_emu_obj *obj = io_array(oh, iod, sgl, false, &rc);

	if (!obj)
		return rc;
	iol_emu_cursor_init(&c, sgl, false);
	for (daos_size_t r = 0; !err && r < iod->arr_nr; r++) {
		daos_range_t *rg = &iod->arr_rgs[r];
		err = iol_emu_cursor_to_file(&c, obj->data_fd, (off_t)(rg->rg_idx * obj->cell_size),
					     rg->rg_len * obj->cell_size);
	}
	return iol_emu_der(err);
}

int daos_array_write(daos_handle_t oh, daos_handle_t th, daos_array_iod_t *iod, d_sg_list_t *sgl,
		     daos_event_t *ev)
{
	return iol_emu_finish(ev, array_write(oh, iod, sgl));
}

/* ---------------------------------------------------------------- size, punch, destroy */

static int array_cells(daos_handle_t oh, daos_size_t *size)
{
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, IOL_EMU_ARRAY);
	struct stat st;

	if (!obj)
		return -DER_NO_HDL;
	if (!size)
		return -DER_INVAL;
	if (fstat(obj->data_fd, &st) != 0)
		return iol_emu_der(errno);
	*size = ((daos_size_t)st.st_size + obj->cell_size - 1) / obj->cell_size;
	return 0;
}

int daos_array_get_size(daos_handle_t oh, daos_handle_t th, daos_size_t *size, daos_event_t *ev)
{
	return iol_emu_finish(ev, array_cells(oh, size));
}

int daos_array_stat(daos_handle_t oh, daos_handle_t th, daos_array_stbuf_t *stbuf,
		    daos_event_t *ev)
{
	int rc = stbuf ? array_cells(oh, &stbuf->st_size) : -DER_INVAL;

	if (!rc)
		stbuf->st_max_epoch = 0;
	return iol_emu_finish(ev, rc);
}

static int array_set_size(daos_handle_t oh, daos_size_t size)
{
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, IOL_EMU_ARRAY);

	if (!obj)
		return -DER_NO_HDL;
	if (obj->mode & DAOS_OO_RO)
		return -DER_NO_PERM;
	return ftruncate(obj->data_fd, (off_t)(size * obj->cell_size)) == 0 ? 0 : iol_emu_der(errno);
}

int daos_array_set_size(daos_handle_t oh, daos_handle_t th, daos_size_t size, daos_event_t *ev)
{
	return iol_emu_finish(ev, array_set_size(oh, size));
}

/* Punched cells read as zeros; a punch that reaches the end shrinks the array to the punch's
 * start (the emulation does not look for earlier holes). */
static int punch_range(struct iol_emu_obj *obj, const daos_range_t *rg)
{
	struct stat st;
	off_t start = (off_t)(rg->rg_idx * obj->cell_size);
	off_t len = (off_t)(rg->rg_len * obj->cell_size);

	if (fstat(obj->data_fd, &st) != 0)
		return errno;
	if (start >= st.st_size)
		return 0;
	if (start + len >= st.st_size)
		return ftruncate(obj->data_fd, start) == 0 ? 0 : errno;
	return iol_emu_zero_range(obj->data_fd, start, len);
}

static int array_punch(daos_handle_t oh, daos_array_iod_t *iod)
{
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, IOL_EMU_ARRAY);
	int err = 0;

	if (!obj)
		return -DER_NO_HDL;
	if (!iod || (iod->arr_nr && !iod->arr_rgs))
		return -DER_INVAL;
	if (obj->mode & DAOS_OO_RO)
		return -DER_NO_PERM;
	for (daos_size_t r = 0; !err && r < iod->arr_nr; r++)
		err = punch_range(obj, &iod->arr_rgs[r]);
	return iol_emu_der(err);
}

int daos_array_punch(daos_handle_t oh, daos_handle_t th, daos_array_iod_t *iod,
		     daos_event_t *ev)
{
	return iol_emu_finish(ev, array_punch(oh, iod));
}

/* Removes the array's data; the handle stays open until daos_array_close. */
int daos_array_destroy(daos_handle_t oh, daos_handle_t th, daos_event_t *ev)
{
	return iol_emu_finish(ev, iol_emu_obj_destroy(oh, IOL_EMU_ARRAY));
}
