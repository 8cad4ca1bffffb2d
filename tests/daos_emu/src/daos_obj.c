/* The object API of the DAOS emulation.  An object is a directory of dkeys; a dkey is a
 * directory of akeys; an akey is a file: "s.KEY" holds a single value, "a.KEY" an array of
 * records (an 8-byte record size, then the records at their index).  Keys are hex-encoded. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "emu.h"

#define ARRAY_HEADER ((off_t)sizeof(uint64_t))

int daos_obj_generate_oid2(daos_handle_t coh, daos_obj_id_t *oid, enum daos_otype_t type,
			   daos_oclass_id_t cid, daos_oclass_hints_t hints, uint32_t args)
{
	if (!iol_emu_handle_get(coh, IOL_EMU_CONT))
		return -DER_NO_HDL;
	if (!oid || (unsigned int)type > DAOS_OT_MAX)
		return -DER_INVAL;
	if (cid == OC_UNKNOWN)
		cid = OC_SX;
	uint64_t redun = (cid >> OC_REDUN_SHIFT) & OID_FMT_CLASS_MAX;
	uint64_t groups = cid & OID_FMT_META_MAX;
	oid->hi = (oid->hi & ((1ULL << OID_FMT_INTR_BITS) - 1)) |
		  ((uint64_t)type << OID_FMT_TYPE_SHIFT) | (redun << OID_FMT_CLASS_SHIFT) |
		  (groups << OID_FMT_META_SHIFT);
	return 0;
}

#undef daos_obj_generate_oid
int daos_obj_generate_oid(daos_handle_t coh, daos_obj_id_t *oid, enum daos_otype_t type,
			  daos_oclass_id_t cid, daos_oclass_hints_t hints, uint32_t args)
{
	return daos_obj_generate_oid2(coh, oid, type, cid, hints, args);
}

static const struct { const char *name; daos_oclass_id_t id; } class_names[] = {
	{ "S1", OC_S1 }, { "S2", OC_S2 }, { "S4", OC_S4 }, { "S8", OC_S8 }, { "SX", OC_SX },
	{ "RP_2G1", OC_RP_2G1 }, { "RP_2GX", OC_RP_2GX }, { "RP_3G1", OC_RP_3G1 },
	{ "RP_3GX", OC_RP_3GX },
};

int daos_oclass_name2id(const char *name)
{
	for (size_t i = 0; name && i < sizeof(class_names) / sizeof(class_names[0]); i++)
		if (!strcasecmp(name, class_names[i].name) ||
		    (!strncasecmp(name, "OC_", 3) && !strcasecmp(name + 3, class_names[i].name)))
			return (int)class_names[i].id;
	return OC_UNKNOWN;
}

int daos_oclass_id2name(daos_oclass_id_t oc_id, char *name)
{
	for (size_t i = 0; i < sizeof(class_names) / sizeof(class_names[0]); i++)
		if (class_names[i].id == oc_id) {
			strcpy(name, class_names[i].name);
			return 0;
		}
	return -1;
}

/* ---------------------------------------------------------------- open and close */

int iol_emu_obj_dir(daos_handle_t coh, daos_obj_id_t oid, bool create, char *dir, size_t size)
{
	char cont_dir[PATH_MAX];
	int rc = iol_emu_cont_dir(coh, cont_dir, sizeof(cont_dir));

	if (!rc)
		rc = iol_emu_path(dir, size, "%s/objects", cont_dir);
	if (!rc && create && mkdir(dir, 0755) != 0 && errno != EEXIST)
		rc = iol_emu_der(errno);
	if (!rc)
		rc = iol_emu_path(dir, size, "%s/objects/%016" PRIx64 ".%016" PRIx64, cont_dir,
				  oid.hi, oid.lo);
	if (!rc && create && mkdir(dir, 0755) != 0 && errno != EEXIST)
		rc = iol_emu_der(errno);
	return rc;
}

int iol_emu_obj_handle(enum iol_emu_kind kind, const char *dir, daos_obj_id_t oid,
		       unsigned int mode, struct iol_emu_obj **objp, daos_handle_t *oh)
{
	struct iol_emu_obj *obj = calloc(1, sizeof(*obj));

	if (!obj)
		return -DER_NOMEM;
	snprintf(obj->dir, sizeof(obj->dir), "%s", dir);
	obj->oid = oid;
	obj->mode = mode;
	obj->data_fd = -1;
	*oh = iol_emu_handle_new(kind, obj);
	if (daos_handle_is_inval(*oh)) {
		free(obj);
		return -DER_NOMEM;
	}
	if (objp)
		*objp = obj;
	return 0;
}

int iol_emu_obj_open(enum iol_emu_kind kind, daos_handle_t coh, daos_obj_id_t oid,
		     unsigned int mode, bool create, daos_handle_t *oh)
{
	char dir[PATH_MAX];

	if (!oh)
		return -DER_INVAL;
	int rc = iol_emu_obj_dir(coh, oid, create, dir, sizeof(dir));
	return rc ? rc : iol_emu_obj_handle(kind, dir, oid, mode, NULL, oh);
}

int iol_emu_obj_close(daos_handle_t oh, enum iol_emu_kind kind)
{
	struct iol_emu_obj *obj = iol_emu_handle_drop(oh, kind);

	if (obj && obj->data_fd >= 0)
		close(obj->data_fd);
	free(obj);
	return obj ? 0 : -DER_NO_HDL;
}

int iol_emu_obj_destroy(daos_handle_t oh, enum iol_emu_kind kind)
{
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, kind);

	if (!obj)
		return -DER_NO_HDL;
	if (obj->mode & DAOS_OO_RO)
		return -DER_NO_PERM;
	return iol_emu_der(iol_emu_remove_tree(obj->dir));
}

/* Objects exist implicitly in DAOS: opening one creates nothing until it is updated. */
int daos_obj_open(daos_handle_t coh, daos_obj_id_t oid, unsigned int mode, daos_handle_t *oh,
		  daos_event_t *ev)
{
	return iol_emu_finish(ev, iol_emu_obj_open(IOL_EMU_OBJ, coh, oid, mode, false, oh));
}

int daos_obj_close(daos_handle_t oh, daos_event_t *ev)
{
	return iol_emu_finish(ev, iol_emu_obj_close(oh, IOL_EMU_OBJ));
}

/* ---------------------------------------------------------------- keys */

static int key_path(char *buf, size_t size, const char *dir, const char *prefix,
		    const daos_key_t *key)
{
	char hex[NAME_MAX + 1];

	if (!key || !key->iov_buf)
		return -DER_INVAL;
	int rc = iol_emu_hex_name(key->iov_buf, key->iov_len, hex, sizeof(hex) - 2);
	return rc ? rc : iol_emu_path(buf, size, "%s/%s%s", dir, prefix, hex);
}

/* The object of a live handle that may be written; NULL sets *rc. */
static struct iol_emu_obj *writable_obj(daos_handle_t oh, int *rc)
{
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, IOL_EMU_OBJ);

	*rc = !obj ? -DER_NO_HDL : (obj->mode & DAOS_OO_RO) ? -DER_NO_PERM : 0;
	return *rc ? NULL : obj;
}

/* ---------------------------------------------------------------- update */

static int update_single(int fd, daos_iod_t *iod, struct iol_emu_cursor *c)
{
	if (ftruncate(fd, 0) != 0)
		return errno;
	return iol_emu_cursor_to_file(c, fd, 0, iod->iod_size);
}

static int update_array(int fd, daos_iod_t *iod, struct iol_emu_cursor *c)
{
	uint64_t stored = 0;
	size_t got;
	int err = iol_emu_pread_all(fd, &stored, sizeof(stored), 0, &got);

	if (err)
		return err;
	if (got == sizeof(stored) && stored != iod->iod_size)
		return EMSGSIZE;   /* records of one akey have one size */
	if (got != sizeof(stored) &&
	    (err = iol_emu_pwrite_all(fd, &iod->iod_size, sizeof(stored), 0)))
		return err;
	for (uint32_t r = 0; !err && r < iod->iod_nr; r++) {
		daos_recx_t *x = &iod->iod_recxs[r];
		err = iol_emu_cursor_to_file(c, fd, ARRAY_HEADER + (off_t)(x->rx_idx * iod->iod_size),
					     x->rx_nr * iod->iod_size);
	}
	return err;
}

static int update_one(const char *dkey_dir, daos_iod_t *iod, d_sg_list_t *sgl)
{
	char file[PATH_MAX];
	struct iol_emu_cursor c;
	bool single = iod->iod_type == DAOS_IOD_SINGLE;

	if ((!single && iod->iod_type != DAOS_IOD_ARRAY) || iod->iod_size == 0 || !sgl ||
	    (!single && iod->iod_nr && !iod->iod_recxs))
		return -DER_INVAL;
	int rc = key_path(file, sizeof(file), dkey_dir, single ? "s." : "a.", &iod->iod_name);
	if (rc)
		return rc;
	int fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return iol_emu_der(errno);
	iol_emu_cursor_init(&c, sgl, false);
	int err = single ? update_single(fd, iod, &c) : update_array(fd, iod, &c);
	close(fd);
	return err == EMSGSIZE ? -DER_REC_SIZE : iol_emu_der(err);
}

/* The first update makes the object: CONTAINER/objects/OID/ and the dkey's directory. */
static int make_object_dirs(const char *obj_dir, const char *dkey_dir)
{
	char parent[PATH_MAX];

	snprintf(parent, sizeof(parent), "%s", obj_dir);
	*strrchr(parent, '/') = '\0';
	const char *dirs[] = { parent, obj_dir, dkey_dir };
	for (int i = 0; i < 3; i++)
		if (mkdir(dirs[i], 0755) != 0 && errno != EEXIST)
			return iol_emu_der(errno);
	return 0;
}

static int obj_update(daos_handle_t oh, daos_key_t *dkey, unsigned int nr, daos_iod_t *iods,
		      d_sg_list_t *sgls)
{
	char dkey_dir[PATH_MAX];
	int rc;
	struct iol_emu_obj *obj = writable_obj(oh, &rc);

	if (!obj)
		return rc;
	if (nr && (!iods || !sgls))
		return -DER_INVAL;
	rc = key_path(dkey_dir, sizeof(dkey_dir), obj->dir, "", dkey);
	if (!rc)
		rc = make_object_dirs(obj->dir, dkey_dir);
	for (unsigned int i = 0; !rc && i < nr; i++)
		rc = update_one(dkey_dir, &iods[i], &sgls[i]);
	return rc;
}

int daos_obj_update(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_key_t *dkey,
		    unsigned int nr, daos_iod_t *iods, d_sg_list_t *sgls, daos_event_t *ev)
{
	int rc = iol_emu_launch(ev);

	return rc ? rc : iol_emu_finish(ev, obj_update(oh, dkey, nr, iods, sgls));
}

/* ---------------------------------------------------------------- fetch */

/* A single value: iod_size DAOS_REC_ANY asks for the size only; 0 means no value. */
static int fetch_single(int fd, daos_iod_t *iod, d_sg_list_t *sgl)
{
	struct stat st;
	struct iol_emu_cursor c;
	size_t got;

	if (fstat(fd, &st) != 0)
		return iol_emu_der(errno);
	bool size_only = iod->iod_size == DAOS_REC_ANY;
	iod->iod_size = (daos_size_t)st.st_size;
	if (size_only || !sgl)
		return 0;
	iol_emu_cursor_init(&c, sgl, true);
	if (iol_emu_cursor_left(&c) < (size_t)st.st_size)
		return -DER_REC2BIG;
	int rc = iol_emu_der(iol_emu_cursor_from_file(&c, fd, 0, (size_t)st.st_size, false, &got));
	sgl->sg_nr_out = c.touched;
	return rc;
}

static int fetch_array(int fd, daos_iod_t *iod, d_sg_list_t *sgl)
{
	uint64_t stored = 0;
	size_t got;
	struct iol_emu_cursor c;
	int err = iol_emu_pread_all(fd, &stored, sizeof(stored), 0, &got);

	if (err || got != sizeof(stored))
		return err ? iol_emu_der(err) : -DER_IO;
	if (iod->iod_size == DAOS_REC_ANY)
		iod->iod_size = stored;
	if (iod->iod_size != stored)
		return -DER_REC_SIZE;
	if (!sgl)
		return 0;
	iol_emu_cursor_init(&c, sgl, true);
	for (uint32_t r = 0; !err && r < iod->iod_nr; r++) {
		daos_recx_t *x = &iod->iod_recxs[r];
		err = iol_emu_cursor_from_file(&c, fd, ARRAY_HEADER + (off_t)(x->rx_idx * stored),
					       x->rx_nr * stored, true, &got);
	}
	sgl->sg_nr_out = c.touched;
	return err == EINVAL ? -DER_REC2BIG : iol_emu_der(err);
}

static int fetch_one(const char *dkey_dir, daos_iod_t *iod, d_sg_list_t *sgl)
{
	char file[PATH_MAX];
	bool single = iod->iod_type == DAOS_IOD_SINGLE;

	if (!single && iod->iod_type != DAOS_IOD_ARRAY)
		return -DER_INVAL;
	int rc = key_path(file, sizeof(file), dkey_dir, single ? "s." : "a.", &iod->iod_name);
	if (rc)
		return rc;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		iod->iod_size = 0;   /* nothing stored: an empty value, not an error */
		if (sgl)
			sgl->sg_nr_out = 0;
		return 0;
	}
	if (fd < 0)
		return iol_emu_der(errno);
	rc = single ? fetch_single(fd, iod, sgl) : fetch_array(fd, iod, sgl);
	close(fd);
	return rc;
}

static int obj_fetch(daos_handle_t oh, daos_key_t *dkey, unsigned int nr, daos_iod_t *iods,
		     d_sg_list_t *sgls)
{
	char dkey_dir[PATH_MAX];
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, IOL_EMU_OBJ);

	if (!obj)
		return -DER_NO_HDL;
	if (nr && !iods)
		return -DER_INVAL;
	int rc = key_path(dkey_dir, sizeof(dkey_dir), obj->dir, "", dkey);
	for (unsigned int i = 0; !rc && i < nr; i++)
		rc = fetch_one(dkey_dir, &iods[i], sgls ? &sgls[i] : NULL);
	return rc;
}

/* ioms (the map of fetched extents) is not filled by the emulation. */
int daos_obj_fetch(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_key_t *dkey,
		   unsigned int nr, daos_iod_t *iods, d_sg_list_t *sgls, daos_iom_t *ioms,
		   daos_event_t *ev)
{
	int rc = iol_emu_launch(ev);

	return rc ? rc : iol_emu_finish(ev, obj_fetch(oh, dkey, nr, iods, sgls));
}

/* ---------------------------------------------------------------- punch */

static int remove_if_present(const char *path)
{
	int err = iol_emu_remove_tree(path);

	return err == ENOENT ? 0 : iol_emu_der(err);
}

static int obj_punch(daos_handle_t oh)
{
	int rc;
	struct iol_emu_obj *obj = writable_obj(oh, &rc);

	return obj ? remove_if_present(obj->dir) : rc;
}

int daos_obj_punch(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_event_t *ev)
{
	return iol_emu_finish(ev, obj_punch(oh));
}

static int punch_dkeys(daos_handle_t oh, unsigned int nr, daos_key_t *dkeys)
{
	char path[PATH_MAX];
	int rc;
	struct iol_emu_obj *obj = writable_obj(oh, &rc);

	for (unsigned int i = 0; obj && !rc && i < nr; i++) {
		rc = key_path(path, sizeof(path), obj->dir, "", &dkeys[i]);
		if (!rc)
			rc = remove_if_present(path);
	}
	return rc;
}

int daos_obj_punch_dkeys(daos_handle_t oh, daos_handle_t th, uint64_t flags, unsigned int nr,
			 daos_key_t *dkeys, daos_event_t *ev)
{
	return iol_emu_finish(ev, punch_dkeys(oh, nr, dkeys));
}

static int punch_akeys(daos_handle_t oh, daos_key_t *dkey, unsigned int nr, daos_key_t *akeys)
{
	char dkey_dir[PATH_MAX], path[PATH_MAX];
	int rc;
	struct iol_emu_obj *obj = writable_obj(oh, &rc);

	if (obj)
		rc = key_path(dkey_dir, sizeof(dkey_dir), obj->dir, "", dkey);
	for (unsigned int i = 0; obj && !rc && i < nr; i++) {
		rc = key_path(path, sizeof(path), dkey_dir, "s.", &akeys[i]);
		if (!rc)
			rc = remove_if_present(path);
		if (!rc)
			rc = key_path(path, sizeof(path), dkey_dir, "a.", &akeys[i]);
		if (!rc)
			rc = remove_if_present(path);
	}
	return rc;
}

int daos_obj_punch_akeys(daos_handle_t oh, daos_handle_t th, uint64_t flags, daos_key_t *dkey,
			 unsigned int nr, daos_key_t *akeys, daos_event_t *ev)
{
	return iol_emu_finish(ev, punch_akeys(oh, dkey, nr, akeys));
}

/* ---------------------------------------------------------------- enumeration */

struct anchor_pos {
	uint64_t next;   /* index of the next entry to return */
};

static const char *strip_prefix(const char *name, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (!strncmp(name, *prefixes, strlen(*prefixes)))
			return name + strlen(*prefixes);
	return NULL;
}

/* Appends one decoded key to the list; -DER_KEY2BIG when it does not fit. */
static int put_key(const char *hex, struct iol_emu_cursor *c, daos_key_desc_t *kd)
{
	unsigned char key[NAME_MAX / 2 + 1];
	long len = iol_emu_unhex(hex, key, sizeof(key));

	if (len < 0)
		return 1;   /* not one of ours: skip */
	kd->kd_key_len = (daos_size_t)len;
	kd->kd_val_type = 0;
	if (iol_emu_cursor_left(c) < (size_t)len)
		return -DER_KEY2BIG;
	for (size_t done = 0; done < (size_t)len;) {
		d_iov_t *iov = &c->sgl->sg_iovs[c->iov];
		size_t room = iov->iov_buf_len - c->offset;
		if (room == 0) {
			c->iov++;
			c->offset = 0;
			continue;
		}
		size_t n = (size_t)len - done < room ? (size_t)len - done : room;
		memcpy((char *)iov->iov_buf + c->offset, key + done, n);
		c->offset += n;
		iov->iov_len = c->offset;
		done += n;
	}
	return 0;
}

int iol_emu_list_keys(const char *dir, const char *const *prefixes, uint32_t *nr,
		      daos_key_desc_t *kds, d_sg_list_t *sgl, daos_anchor_t *anchor)
{
	struct dirent **names = NULL;
	struct anchor_pos pos;
	struct iol_emu_cursor c;

	if (!nr || !kds || !sgl || !anchor || *nr == 0)
		return -DER_INVAL;
	memcpy(&pos, anchor->da_buf, sizeof(pos));
	int count = scandir(dir, &names, NULL, alphasort);
	if (count < 0 && errno != ENOENT)
		return iol_emu_der(errno);
	iol_emu_cursor_init(&c, sgl, true);
	uint32_t filled = 0;
	int rc = 0;
	uint64_t total = count > 0 ? (uint64_t)count : 0;
	while (rc == 0 && filled < *nr && pos.next < total) {
		const char *name = names[pos.next]->d_name;
		const char *hex = name[0] == '.' ? NULL : strip_prefix(name, prefixes);
		rc = hex ? put_key(hex, &c, &kds[filled]) : 1;
		if (rc == 0)
			filled++;
		if (rc >= 0) {   /* listed or skipped: move on; a key that did not fit stays next */
			rc = 0;
			pos.next++;
		}
	}
	if (rc == -DER_KEY2BIG && filled > 0)
		rc = 0;   /* the caller gets what fit */
	else if (rc == 0 && pos.next >= total)
		anchor->da_type = DAOS_ANCHOR_TYPE_EOF;
	for (int i = 0; i < count; i++)
		free(names[i]);
	free(names);
	memcpy(anchor->da_buf, &pos, sizeof(pos));
	*nr = filled;
	sgl->sg_nr_out = filled ? (c.iov < sgl->sg_nr ? c.iov + 1 : sgl->sg_nr) : 0;
	return rc;
}

int iol_emu_list_top_keys(daos_handle_t oh, enum iol_emu_kind kind, uint32_t *nr,
			  daos_key_desc_t *kds, d_sg_list_t *sgl, daos_anchor_t *anchor)
{
	static const char *const any[] = { "", NULL };
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, kind);

	return obj ? iol_emu_list_keys(obj->dir, any, nr, kds, sgl, anchor) : -DER_NO_HDL;
}

int daos_obj_list_dkey(daos_handle_t oh, daos_handle_t th, uint32_t *nr, daos_key_desc_t *kds,
		       d_sg_list_t *sgl, daos_anchor_t *anchor, daos_event_t *ev)
{
	return iol_emu_finish(ev, iol_emu_list_top_keys(oh, IOL_EMU_OBJ, nr, kds, sgl, anchor));
}

static int list_akey(daos_handle_t oh, daos_key_t *dkey, uint32_t *nr, daos_key_desc_t *kds,
		     d_sg_list_t *sgl, daos_anchor_t *anchor)
{
	static const char *const akeys[] = { "s.", "a.", NULL };
	char dkey_dir[PATH_MAX];
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, IOL_EMU_OBJ);

	if (!obj)
		return -DER_NO_HDL;
	int rc = key_path(dkey_dir, sizeof(dkey_dir), obj->dir, "", dkey);
	return rc ? rc : iol_emu_list_keys(dkey_dir, akeys, nr, kds, sgl, anchor);
}

int daos_obj_list_akey(daos_handle_t oh, daos_handle_t th, daos_key_t *dkey, uint32_t *nr,
		       daos_key_desc_t *kds, d_sg_list_t *sgl, daos_anchor_t *anchor,
		       daos_event_t *ev)
{
	return iol_emu_finish(ev, list_akey(oh, dkey, nr, kds, sgl, anchor));
}

/* The emulation reports an array akey as one extent from record 0 to its last record. */
static int list_recx(daos_handle_t oh, daos_key_t *dkey, daos_key_t *akey, daos_size_t *size,
		     uint32_t *nr, daos_recx_t *recxs, daos_anchor_t *anchor)
{
	char dkey_dir[PATH_MAX], file[PATH_MAX];
	struct iol_emu_obj *obj = iol_emu_handle_get(oh, IOL_EMU_OBJ);
	struct stat st;
	uint64_t stored = 0;
	size_t got = 0;

	if (!obj)
		return -DER_NO_HDL;
	if (!nr || !recxs || !anchor)
		return -DER_INVAL;
	int rc = key_path(dkey_dir, sizeof(dkey_dir), obj->dir, "", dkey);
	if (!rc)
		rc = key_path(file, sizeof(file), dkey_dir, "a.", akey);
	int fd = rc ? -1 : open(file, O_RDONLY | O_CLOEXEC);
	anchor->da_type = DAOS_ANCHOR_TYPE_EOF;
	if (fd < 0 || fstat(fd, &st) != 0 || iol_emu_pread_all(fd, &stored, 8, 0, &got) ||
	    got != 8 || stored == 0) {
		if (fd >= 0)
			close(fd);
		*nr = 0;
		return rc;
	}
	close(fd);
	if (size)
		*size = stored;
	recxs[0].rx_idx = 0;
	recxs[0].rx_nr = ((uint64_t)st.st_size - 8 + stored - 1) / stored;
	*nr = recxs[0].rx_nr ? 1 : 0;
	return 0;
}

int daos_obj_list_recx(daos_handle_t oh, daos_handle_t th, daos_key_t *dkey, daos_key_t *akey,
		       daos_size_t *size, uint32_t *nr, daos_recx_t *recxs,
		       daos_epoch_range_t *eprs, daos_anchor_t *anchor, bool incr_order,
		       daos_event_t *ev)
{
	return iol_emu_finish(ev, list_recx(oh, dkey, akey, size, nr, recxs, anchor));
}
