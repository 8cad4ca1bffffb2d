/* Internals shared by the DAOS emulation libraries (libdaos, libdfs).  Not a DAOS interface:
 * the iol_emu_* functions are exported by libdaos only so that libdfs can reach a container's
 * directory, as real DFS reaches the container through libdaos.
 *
 * Storage under the root ($IOLENS_DAOS_EMU_ROOT):
 *   ROOT/POOL/                 a pool (created by the test, as `dmg pool create` would be)
 *   ROOT/POOL/.uuid            its uuid (written at first connect)
 *   ROOT/POOL/CONT/.uuid       a container and its uuid
 *   ROOT/POOL/CONT/objects/HI.LO/   one DAOS object (array, KV or dkey/akey object)
 *   ROOT/POOL/CONT/dfs/        the DFS namespace: real directories and files */
#ifndef IOL_DAOS_EMU_H
#define IOL_DAOS_EMU_H
#include <limits.h>
#include <daos.h>

enum iol_emu_kind { IOL_EMU_POOL = 1, IOL_EMU_CONT, IOL_EMU_OBJ, IOL_EMU_ARRAY, IOL_EMU_KV,
		    IOL_EMU_EQ };

/* ---- handles (emu_handles.c): cookies that name live objects; stale or foreign cookies are
 * refused instead of dereferenced. */
/* A new handle for ptr, or DAOS_HDL_INVAL when the table is full. */
daos_handle_t iol_emu_handle_new(enum iol_emu_kind kind, void *ptr);
/* The object behind h if h is live and of that kind, else NULL. */
void *iol_emu_handle_get(daos_handle_t h, enum iol_emu_kind kind);
/* Like _get, and frees the handle. */
void *iol_emu_handle_drop(daos_handle_t h, enum iol_emu_kind kind);
/* -DER_UNINIT unless daos_init is in effect. */
int iol_emu_check_init(void);

/* ---- pools and containers (daos_pool_cont.c) */
struct iol_emu_pool {
	char   dir[PATH_MAX];
	uuid_t uuid;
	char   label[DAOS_PROP_MAX_LABEL_BUF_LEN];
};
struct iol_emu_cont {
	char   dir[PATH_MAX];
	uuid_t uuid;
	uuid_t pool_uuid;
	unsigned int flags;
};
/* Copies the directory of an open container into dir; -DER_NO_HDL for a bad handle. */
int iol_emu_cont_dir(daos_handle_t coh, char *dir, size_t size);
/* Creates container `name` (a label or a uuid string) in the pool; -DER_EXIST if present. */
int iol_emu_cont_create(daos_handle_t poh, const char *name, uuid_t uuid_out);

/* ---- store helpers (emu_store.c) */
/* snprintf into buf, -DER_EXCEEDS_PATH_LEN if it does not fit. */
int iol_emu_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A temporary name beside path, unique across processes and threads (for write + rename). */
int iol_emu_temp_path(char *buf, size_t size, const char *path);
/* Reads DIR/.uuid, or writes a new random one there; errno value on failure. */
int iol_emu_dir_uuid(const char *dir, uuid_t uuid);
/* Finds the entry of parent that is named `name` or whose .uuid is the uuid string `name`. */
int iol_emu_find_entry(const char *parent, const char *name, char *dir, size_t size);
/* Removes a file or a directory tree; errno value on failure. */
int iol_emu_remove_tree(const char *path);
/* The DER code (negative) for an errno value. */
int iol_emu_der(int err);
/* key bytes as lower-case hex (a file name for any key); -DER_KEY2BIG if too long. */
int iol_emu_hex_name(const void *key, size_t len, char *out, size_t size);
/* Inverse of iol_emu_hex_name; the decoded length or -1. */
long iol_emu_unhex(const char *hex, void *out, size_t size);
/* Full read/write at an offset; 0 or an errno value.  *got gets the bytes read (short at EOF). */
int iol_emu_pread_all(int fd, void *buf, size_t len, off_t off, size_t *got);
int iol_emu_pwrite_all(int fd, const void *buf, size_t len, off_t off);
/* Zeroes [off, off+len) of a file without changing its size. */
int iol_emu_zero_range(int fd, off_t off, off_t len);

/* ---- objects (daos_obj.c) */
struct iol_emu_obj {
	char          dir[PATH_MAX];
	daos_obj_id_t oid;
	unsigned int  mode;
	int           data_fd;   /* arrays: the cell file */
	daos_size_t   cell_size;
	daos_size_t   chunk_size;
};
/* The object's directory in the container; creates it when `create`. */
int iol_emu_obj_dir(daos_handle_t coh, daos_obj_id_t oid, bool create, char *dir, size_t size);
/* Opens an object of `kind` (its directory made when `create`): 0 or a negative DER code. */
int iol_emu_obj_open(enum iol_emu_kind kind, daos_handle_t coh, daos_obj_id_t oid,
		     unsigned int mode, bool create, daos_handle_t *oh);
/* Closes an object handle of `kind` (and its data file); -DER_NO_HDL for a bad handle. */
int iol_emu_obj_close(daos_handle_t oh, enum iol_emu_kind kind);
/* Removes the object's data; the handle stays open.  -DER_NO_PERM when opened read-only. */
int iol_emu_obj_destroy(daos_handle_t oh, enum iol_emu_kind kind);
/* A new open object of `kind` in dir; -DER_NOMEM or -DER_NO_HDL on failure. */
int iol_emu_obj_handle(enum iol_emu_kind kind, const char *dir, daos_obj_id_t oid,
		       unsigned int mode, struct iol_emu_obj **objp, daos_handle_t *oh);

/* ---- events (emu_event.c) */
/* Finishes a call: without an event, returns rc; with one, completes it with rc (callback,
 * queue) and returns 0, as DAOS's asynchronous calls do. */
int iol_emu_finish(daos_event_t *ev, int rc);
/* Called first by a call that takes an event: 0 to go on, or the error of a launch that
 * fails before the operation starts (DAOS's task creation out of memory): the call returns
 * it, nothing runs, and the event is neither completed nor queued.  Only refused on
 * request (IOLENS_DAOS_EMU_REFUSE_LAUNCH, daos_event.h). */
int iol_emu_launch(daos_event_t *ev);

#endif

/* ---- scatter/gather cursors (emu_store.c): walk a d_sg_list_t as one byte stream. */
struct iol_emu_cursor {
	d_sg_list_t *sgl;
	uint32_t     iov;      /* current vector */
	size_t       offset;   /* bytes used of it */
	uint32_t     touched;  /* vectors used so far (for sg_nr_out) */
	bool         fetch;    /* fetching: capacity is iov_buf_len; updating: iov_len */
	bool         report;   /* fetching: set iov_len to the bytes filled (DAOS, not DFS) */
};
void iol_emu_cursor_init(struct iol_emu_cursor *c, d_sg_list_t *sgl, bool fetch);
/* Bytes the cursor can still take or give. */
size_t iol_emu_cursor_left(const struct iol_emu_cursor *c);
/* Writes len bytes of the list to fd at off; 0, EINVAL if the list is too short, or errno. */
int iol_emu_cursor_to_file(struct iol_emu_cursor *c, int fd, off_t off, size_t len);
/* Reads len bytes of fd at off into the list; past end of file zero-fills when zero_fill,
 * else stops.  *got: bytes that came from the file. */
int iol_emu_cursor_from_file(struct iol_emu_cursor *c, int fd, off_t off, size_t len,
			     bool zero_fill, size_t *got);

/* ---- key enumeration (daos_obj.c), shared by the object and KV APIs.  Lists the entries of
 * dir whose names start with one of the prefixes ("" for any), decoded from hex, in name
 * order, resuming at the anchor. */
int iol_emu_list_keys(const char *dir, const char *const *prefixes, uint32_t *nr,
		      daos_key_desc_t *kds, d_sg_list_t *sgl, daos_anchor_t *anchor);
/* Lists the keys at the top of an object of `kind` (dkeys; a KV object's keys). */
int iol_emu_list_top_keys(daos_handle_t oh, enum iol_emu_kind kind, uint32_t *nr,
			  daos_key_desc_t *kds, d_sg_list_t *sgl, daos_anchor_t *anchor);
