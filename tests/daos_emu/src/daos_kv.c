/* The flat key-value API of the DAOS emulation: a KV object is a directory holding one file
 * per key, named by the key in hex. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "emu.h"

static bool is_kv_type(daos_obj_id_t oid)
{
	enum daos_otype_t type = daos_obj_id2type(oid);

	return type == DAOS_OT_KV_HASHED || type == DAOS_OT_KV_UINT64 ||
	       type == DAOS_OT_KV_LEXICAL;
}

int daos_kv_open(daos_handle_t coh, daos_obj_id_t oid, unsigned int mode, daos_handle_t *oh,
		 daos_event_t *ev)
{
	int rc = is_kv_type(oid) ? iol_emu_obj_open(IOL_EMU_KV, coh, oid, mode, true, oh)
				 : -DER_INVAL;
	return iol_emu_finish(ev, rc);
}

int daos_kv_close(daos_handle_t oh, daos_event_t *ev)
{
	return iol_emu_finish(ev, iol_emu_obj_close(oh, IOL_EMU_KV));
}

/* The KV of a live handle and the file of key; NULL sets *rc. */
static struct iol_emu_obj *kv_key(daos_handle_t oh, const char *key, bool write, char *file,
				  size_t size, int *rc)
{
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, IOL_EMU_KV);
	char hex[NAME_MAX + 1];

	*rc = !obj ? -DER_NO_HDL : !key ? -DER_INVAL : (write && (obj->mode & DAOS_OO_RO))
		? -DER_NO_PERM : 0;
	if (!*rc)
		*rc = iol_emu_hex_name(key, strlen(key), hex, sizeof(hex));
	if (!*rc)
		*rc = iol_emu_path(file, size, "%s/%s", obj->dir, hex);
	return *rc ? NULL : obj;
}

/* Writes the value through a temporary file and rename(), so readers see old or new. */
static int kv_put(daos_handle_t oh, uint64_t flags, const char *key, daos_size_t size,
		  const void *buf)
{
	char file[PATH_MAX], tmp[PATH_MAX];
	struct stat st;
	int rc;

	if (!kv_key(oh, key, true, file, sizeof(file), &rc))
		return rc;
	if (size && !buf)
		return -DER_INVAL;
	bool exists = stat(file, &st) == 0;
	if ((flags & DAOS_COND_KEY_INSERT) && exists)
		return -DER_EXIST;
	if ((flags & DAOS_COND_KEY_UPDATE) && !exists)
		return -DER_NONEXIST;
	if (iol_emu_temp_path(tmp, sizeof(tmp), file))
		return -DER_EXCEEDS_PATH_LEN;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return iol_emu_der(errno);
	int err = iol_emu_pwrite_all(fd, buf, size, 0);
	close(fd);
	if (!err && rename(tmp, file) != 0)
		err = errno;
	if (err)
		unlink(tmp);
	return iol_emu_der(err);
}

int daos_kv_put(daos_handle_t oh, daos_handle_t th, uint64_t flags, const char *key,
		daos_size_t size, const void *buf, daos_event_t *ev)
{
	return iol_emu_finish(ev, kv_put(oh, flags, key, size, buf));
}

/* A missing key reads as size 0 unless DAOS_COND_KEY_GET asks for -DER_NONEXIST.  *size in:
 * the buffer's size; out: the value's. */
static int kv_get(daos_handle_t oh, uint64_t flags, const char *key, daos_size_t *size,
		  void *buf)
{
	char file[PATH_MAX];
	struct stat st;
	size_t got;
	int rc;

	if (!kv_key(oh, key, false, file, sizeof(file), &rc))
		return rc;
	if (!size)
		return -DER_INVAL;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		*size = 0;
		return (flags & DAOS_COND_KEY_GET) ? -DER_NONEXIST : 0;
	}
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = iol_emu_der(errno);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	daos_size_t room = *size;
	*size = (daos_size_t)st.st_size;
	if (room == DAOS_REC_ANY)
		buf = NULL;   /* size 0 (DAOS_REC_ANY) asks for the size only, buffer or not */
	if (buf && room < (daos_size_t)st.st_size)
		rc = -DER_REC2BIG;
	else if (buf)
		rc = iol_emu_der(iol_emu_pread_all(fd, buf, (size_t)st.st_size, 0, &got));
	close(fd);
	return rc;
}

int daos_kv_get(daos_handle_t oh, daos_handle_t th, uint64_t flags, const char *key,
		daos_size_t *size, void *buf, daos_event_t *ev)
{
	return iol_emu_finish(ev, kv_get(oh, flags, key, size, buf));
}

static int kv_remove(daos_handle_t oh, uint64_t flags, const char *key)
{
	char file[PATH_MAX];
	int rc;

	if (!kv_key(oh, key, true, file, sizeof(file), &rc))
		return rc;
	if (unlink(file) == 0)
		return 0;
	if (errno == ENOENT)
		return (flags & DAOS_COND_KEY_REMOVE) ? -DER_NONEXIST : 0;
	return iol_emu_der(errno);
}

int daos_kv_remove(daos_handle_t oh, daos_handle_t th, uint64_t flags, const char *key,
		   daos_event_t *ev)
{
	return iol_emu_finish(ev, kv_remove(oh, flags, key));
}

int daos_kv_list(daos_handle_t oh, daos_handle_t th, uint32_t *nr, daos_key_desc_t *kds,
		 d_sg_list_t *sgl, daos_anchor_t *anchor, daos_event_t *ev)
{
	return iol_emu_finish(ev, iol_emu_list_top_keys(oh, IOL_EMU_KV, nr, kds, sgl, anchor));
}

int daos_kv_destroy(daos_handle_t oh, daos_handle_t th, daos_event_t *ev)
{
	return iol_emu_finish(ev, iol_emu_obj_destroy(oh, IOL_EMU_KV));
}
