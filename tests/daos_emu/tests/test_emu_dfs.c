/* The emulated libdfs: real effects in the host directory and documented errno values. */
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <daos.h>
#include <daos_fs.h>
#include "emu_fixture.h"

static daos_handle_t poh, coh;

static void sgl_one(d_sg_list_t *sgl, d_iov_t *iov, void *buf, size_t len)
{
	d_iov_set(iov, buf, len);
	sgl->sg_nr = 1;
	sgl->sg_nr_out = 0;
	sgl->sg_iovs = iov;
}

static dfs_t *mount_rw(void)
{
	dfs_t *dfs = NULL;

	CHECK(dfs_mount(poh, coh, O_RDWR, &dfs) == 0, "mount");
	return dfs;
}

static void test_mount(void)
{
	dfs_t *dfs = NULL;
	daos_handle_t bad = { 12345 };

	CHECK(dfs_mount(poh, bad, O_RDWR, &dfs) == EINVAL, "mount with a bad container handle");
	CHECK(dfs_mount(poh, coh, O_RDWR, &dfs) == 0 && dfs, "mount");
	CHECK(host_size("pool0/cont0/dfs") >= 0, "mount made the namespace root");
	CHECK(dfs_umount(dfs) == 0, "umount");
}

static void test_write_read(void)
{
	dfs_t *dfs = mount_rw();
	dfs_obj_t *obj = NULL;
	d_sg_list_t sgl;
	d_iov_t iovs[2];
	char buf[32] = {0};
	daos_size_t got = 0, size = 0;

	CHECK(dfs_open(dfs, NULL, "f", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &obj) == 0,
	      "create");
	d_iov_set(&iovs[0], "hello", 5);
	d_iov_set(&iovs[1], "world", 5);
	sgl.sg_nr = 2;
	sgl.sg_iovs = iovs;
	CHECK(dfs_write(dfs, obj, &sgl, 100, NULL) == 0, "write two vectors");
	CHECK(host_size("pool0/cont0/dfs/f") == 110, "bytes landed in the host file: %lld",
	      host_size("pool0/cont0/dfs/f"));
	CHECK(dfs_get_size(dfs, obj, &size) == 0 && size == 110, "get_size %llu",
	      (unsigned long long)size);
	sgl_one(&sgl, iovs, buf, sizeof(buf));
	CHECK(dfs_read(dfs, obj, &sgl, 100, &got, NULL) == 0, "read");
	CHECK(got == 10 && !memcmp(buf, "helloworld", 10), "short read at the end: %llu",
	      (unsigned long long)got);
	CHECK(dfs_read(dfs, obj, &sgl, 500, &got, NULL) == 0 && got == 0, "read past the end");
	CHECK(dfs_release(obj) == 0, "release");
	CHECK(dfs_open(dfs, NULL, "f", S_IFREG | 0644, O_RDWR | O_CREAT | O_EXCL, 0, 0, NULL,
		       &obj) == EEXIST, "O_EXCL on an existing file");
	CHECK(dfs_open(dfs, NULL, "missing", S_IFREG, O_RDWR, 0, 0, NULL, &obj) == ENOENT,
	      "open a missing file");
	CHECK(dfs_open(dfs, NULL, "a/b", S_IFREG, O_RDWR | O_CREAT, 0, 0, NULL, &obj) == EINVAL,
	      "a name with a slash");
	dfs_umount(dfs);
}

static void test_readx_writex(void)
{
	dfs_t *dfs = mount_rw();
	dfs_obj_t *obj = NULL;
	daos_range_t rgs[2] = { { 0, 3 }, { 10, 3 } };
	dfs_iod_t iod = { 2, rgs };
	d_sg_list_t sgl;
	d_iov_t iov;
	char out[6] = {0};
	daos_size_t got = 0;

	CHECK(dfs_open(dfs, NULL, "x", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 4096, NULL, &obj) == 0,
	      "create");
	sgl_one(&sgl, &iov, "abcdef", 6);
	CHECK(dfs_writex(dfs, obj, &iod, &sgl, NULL) == 0, "writex");
	CHECK(host_size("pool0/cont0/dfs/x") == 13, "writex size");
	sgl_one(&sgl, &iov, out, sizeof(out));
	CHECK(dfs_readx(dfs, obj, &iod, &sgl, &got, NULL) == 0 && got == 6 &&
	      !memcmp(out, "abcdef", 6), "readx");
	sgl_one(&sgl, &iov, out, 2);
	CHECK(dfs_readx(dfs, obj, &iod, &sgl, &got, NULL) == EINVAL, "readx with a short sgl");
	daos_size_t chunk = 0;
	CHECK(dfs_get_chunk_size(obj, &chunk) == 0 && chunk == 4096, "chunk size %llu",
	      (unsigned long long)chunk);
	dfs_release(obj);
	dfs_umount(dfs);
}

static void test_punch_stat(void)
{
	dfs_t *dfs = mount_rw();
	dfs_obj_t *obj = NULL;
	d_sg_list_t sgl;
	d_iov_t iov;
	char data[100], out[100];
	struct stat st;
	daos_size_t got;

	memset(data, 'z', sizeof(data));
	CHECK(dfs_open(dfs, NULL, "p", S_IFREG | 0600, O_RDWR | O_CREAT, 0, 0, NULL, &obj) == 0,
	      "create");
	sgl_one(&sgl, &iov, data, sizeof(data));
	dfs_write(dfs, obj, &sgl, 0, NULL);
	CHECK(dfs_punch(dfs, obj, 10, 10) == 0, "punch a hole");
	sgl_one(&sgl, &iov, out, sizeof(out));
	CHECK(dfs_read(dfs, obj, &sgl, 0, &got, NULL) == 0 && got == 100 && out[9] == 'z' &&
	      out[10] == 0 && out[19] == 0 && out[20] == 'z', "hole reads as zeros");
	CHECK(dfs_punch(dfs, obj, 50, 1000) == 0 && host_size("pool0/cont0/dfs/p") == 50,
	      "punch to the end shrinks");
	CHECK(dfs_punch(dfs, obj, 4096, DFS_MAX_FSIZE) == 0 &&
	      host_size("pool0/cont0/dfs/p") == 4096, "DFS_MAX_FSIZE truncates up");
	CHECK(dfs_ostat(dfs, obj, &st) == 0 && st.st_size == 4096 && S_ISREG(st.st_mode), "ostat");
	st.st_mode = 0640;
	st.st_size = 7;
	CHECK(dfs_osetattr(dfs, obj, &st, DFS_SET_ATTR_MODE | DFS_SET_ATTR_SIZE) == 0 &&
	      st.st_size == 7 && (st.st_mode & 0777) == 0640, "osetattr returns the new stat");
	CHECK(dfs_stat(dfs, NULL, "p", &st) == 0 && st.st_size == 7, "stat by name");
	CHECK(dfs_stat(dfs, NULL, "nope", &st) == ENOENT, "stat a missing name");
	dfs_release(obj);
	dfs_umount(dfs);
}

static void test_namespace(void)
{
	dfs_t *dfs = mount_rw();
	dfs_obj_t *dir = NULL, *f = NULL, *again = NULL, *dup = NULL;
	daos_obj_id_t id1, id2, removed;
	mode_t mode = 0;
	struct stat st;

	CHECK(dfs_mkdir(dfs, NULL, "d", 0755, 0) == 0, "mkdir");
	CHECK(dfs_mkdir(dfs, NULL, "d", 0755, 0) == EEXIST, "mkdir twice");
	CHECK(dfs_lookup(dfs, "/d", O_RDWR, &dir, &mode, NULL) == 0 && S_ISDIR(mode), "lookup dir");
	CHECK(dfs_open(dfs, dir, "g", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &f) == 0,
	      "create in a directory");
	CHECK(host_size("pool0/cont0/dfs/d/g") == 0, "file made on the host");
	CHECK(dfs_lookup_rel(dfs, dir, "g", O_RDONLY, &again, &mode, &st) == 0 && S_ISREG(mode),
	      "lookup_rel");
	CHECK(dfs_obj2id(f, &id1) == 0 && dfs_obj2id(again, &id2) == 0 && id1.lo == id2.lo &&
	      id1.hi == id2.hi, "an object keeps its id");
	CHECK(dfs_dup(dfs, f, O_RDWR, &dup) == 0 && dfs_obj2id(dup, &id2) == 0 && id1.lo == id2.lo,
	      "dup");
	dfs_release(again);
	daos_size_t size;
	d_iov_t iov;
	d_sg_list_t sgl = { 1, 0, &iov };
	char byte;
	d_iov_set(&iov, &byte, 1);
	CHECK(dfs_read(dfs, dir, &sgl, 0, &size, NULL) == EINVAL &&
	      dfs_get_size(dfs, dir, &size) == EINVAL, "a directory has no data: EINVAL");
	CHECK(dfs_lookup(dfs, "/d/g", O_WRONLY, &again, NULL, NULL) == 0 &&
	      dfs_read(dfs, again, &sgl, 0, &size, NULL) == EPERM, "no read of a write-only open");
	dfs_release(again);
	CHECK(dfs_lookup(dfs, "/d/missing", O_RDONLY, &again, NULL, NULL) == ENOENT,
	      "lookup a missing path");
	CHECK(dfs_lookup(dfs, "/../x", O_RDONLY, &again, NULL, NULL) == EINVAL, "no escape by ..");

	struct dirent ents[4];
	daos_anchor_t anchor = DAOS_ANCHOR_INIT;
	uint32_t nr = 4;
	CHECK(dfs_readdir(dfs, dir, &anchor, &nr, ents) == 0 && nr == 1 &&
	      !strcmp(ents[0].d_name, "g") && daos_anchor_is_eof(&anchor), "readdir");
	CHECK(dfs_remove(dfs, NULL, "d", false, NULL) == ENOTEMPTY, "remove a non-empty dir");
	CHECK(dfs_remove(dfs, dir, "g", false, &removed) == 0 && removed.lo == id1.lo &&
	      host_size("pool0/cont0/dfs/d/g") == -1, "remove a file");
	CHECK(dfs_open(dfs, dir, "h", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &again) == 0,
	      "create another");
	dfs_release(again);
	CHECK(dfs_remove(dfs, NULL, "d", true, NULL) == 0 && host_size("pool0/cont0/dfs/d") == -1,
	      "forced remove");
	dfs_release(f);
	dfs_release(dup);
	dfs_release(dir);
	dfs_umount(dfs);
}

static int callbacks;

static int count_completion(void *arg, daos_event_t *ev, int rc)
{
	callbacks++;
	*(int *)arg = rc;
	return 0;
}

static void test_events_and_readonly(void)
{
	dfs_t *dfs = mount_rw(), *ro = NULL;
	dfs_obj_t *obj = NULL, *robj = NULL;
	daos_handle_t eqh;
	daos_event_t ev, *done[2];
	d_sg_list_t sgl;
	d_iov_t iov;
	int seen = -1;

	CHECK(daos_eq_create(&eqh) == 0, "eq_create");
	CHECK(daos_event_init(&ev, eqh, NULL) == 0, "event_init");
	CHECK(daos_event_register_comp_cb(&ev, count_completion, &seen) == 0, "register");
	dfs_open(dfs, NULL, "e", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &obj);
	sgl_one(&sgl, &iov, "async", 5);
	CHECK(dfs_write(dfs, obj, &sgl, 0, &ev) == 0, "write with an event");
	CHECK(callbacks == 1 && seen == 0 && ev.ev_error == 0, "completion callback ran");
	CHECK(daos_eq_poll(eqh, 0, DAOS_EQ_NOWAIT, 2, done) == 1 && done[0] == &ev, "eq_poll");
	CHECK(host_size("pool0/cont0/dfs/e") == 5, "async write landed");
	daos_event_fini(&ev);
	daos_eq_destroy(eqh, 0);

	CHECK(dfs_mount(poh, coh, O_RDONLY, &ro) == 0, "read-only mount");
	CHECK(dfs_lookup(ro, "/e", O_RDWR, &robj, NULL, NULL) == EPERM, "no write open read-only");
	CHECK(dfs_lookup(ro, "/e", O_RDONLY, &robj, NULL, NULL) == 0, "read open");
	CHECK(dfs_write(ro, robj, &sgl, 0, NULL) == EPERM, "no write on a read-only mount");
	dfs_release(robj);
	dfs_umount(ro);
	dfs_release(obj);
	dfs_umount(dfs);
}

static void test_connect_and_global(void)
{
	dfs_t *dfs = NULL, *copy = NULL;
	d_iov_t glob = { NULL, 0, 0 };
	dfs_obj_t *obj = NULL;

	CHECK(dfs_connect("pool0", NULL, "cont1", O_RDWR | O_CREAT, NULL, &dfs) == 0,
	      "connect creates the container");
	CHECK(host_size("pool0/cont1/dfs") >= 0, "its namespace exists");
	CHECK(dfs_local2global(dfs, &glob) == 0 && glob.iov_buf_len > 0, "global size");
	glob.iov_buf = malloc(glob.iov_buf_len);
	CHECK(dfs_local2global(dfs, &glob) == 0, "global");
	CHECK(dfs_global2local(poh, coh, 0, glob, &copy) == EINVAL, "other container's handles");
	free(glob.iov_buf);
	CHECK(dfs_open(dfs, NULL, "c", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &obj) == 0,
	      "create through a connected dfs");
	dfs_release(obj);
	CHECK(dfs_disconnect(dfs) == 0, "disconnect");
	CHECK(dfs_connect("pool0", NULL, "nocont", O_RDWR, NULL, &dfs) == ENOENT,
	      "connect to a missing container");
}

/* Processes that connect to a new pool, create one container and mount it at the same time
 * (as MPI ranks do) must all succeed and agree on one namespace. */
static int child_connect_and_write(int id)
{
	dfs_t *dfs = NULL;
	dfs_obj_t *obj = NULL;
	char name[16], data[8] = "written";
	d_iov_t iov;
	d_sg_list_t sgl = { 1, 0, &iov };

	snprintf(name, sizeof(name), "rank%d", id);
	d_iov_set(&iov, data, sizeof(data));
	if (dfs_init() || dfs_connect("pool1", NULL, "shared", O_RDWR | O_CREAT, NULL, &dfs) ||
	    dfs_open(dfs, NULL, name, S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &obj) ||
	    dfs_write(dfs, obj, &sgl, 0, NULL) || dfs_release(obj) || dfs_disconnect(dfs))
		return 1;
	return dfs_fini();
}

static void test_concurrent_processes(void)
{
	enum { CHILDREN = 4 };
	char pool[PATH_MAX + 8], file[32];
	pid_t pids[CHILDREN];
	int failed = 0, start[2];
	char go;

	snprintf(pool, sizeof(pool), "%s/pool1", fixture_root);
	mkdir(pool, 0755);
	CHECK(pipe(start) == 0, "pipe");
	for (int i = 0; i < CHILDREN; i++)
		if ((pids[i] = fork()) == 0) {
			close(start[1]);
			/* start together: the read returns when the parent closes its end */
			_exit(read(start[0], &go, 1) == 0 ? child_connect_and_write(i) : 2);
		}
	close(start[0]);
	close(start[1]);
	for (int i = 0; i < CHILDREN; i++) {
		int status = 0;
		waitpid(pids[i], &status, 0);
		failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK(failed == 0, "%d of %d processes failed to connect, create and write", failed,
	      CHILDREN);
	for (int i = 0; i < CHILDREN; i++) {
		snprintf(file, sizeof(file), "pool1/shared/dfs/rank%d", i);
		CHECK(host_size(file) == 8, "%s in the one shared container", file);
	}
}

int main(int argc, char **argv)
{
	fixture_setup(argc > 1 ? argv[1] : NULL);
	CHECK(dfs_init() == 0, "dfs_init");
	CHECK(daos_pool_connect("pool0", NULL, DAOS_PC_RW, &poh, NULL, NULL) == 0, "pool");
	CHECK(daos_cont_create_with_label(poh, "cont0", NULL, NULL, NULL) == 0, "container");
	CHECK(daos_cont_open(poh, "cont0", DAOS_COO_RW, &coh, NULL, NULL) == 0, "open container");
	test_mount();
	test_write_read();
	test_readx_writex();
	test_punch_stat();
	test_namespace();
	test_events_and_readonly();
	test_connect_and_global();
	test_concurrent_processes();
	daos_cont_close(coh, NULL);
	daos_pool_disconnect(poh, NULL);
	dfs_fini();
	fixture_teardown();
	return check_result("test_emu_dfs");
}
