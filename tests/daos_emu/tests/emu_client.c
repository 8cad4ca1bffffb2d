/* A DAOS client with known call counts, for runtimes that instrument DFS and DAOS (upstream's
 * modules, ours): each wrapped call group once or a known number of times.  Needs
 * IOLENS_DAOS_EMU_ROOT with a pool directory "pool0"; exits non-zero at the first failed call. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <daos.h>
#include <daos_fs.h>

#define MUST(call) do { int rc_ = (call); if (rc_) { \
	fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #call, rc_); return 1; } } while (0)

static char buf[65536];

/* /file: 4 writes of 4 KiB, 1 writex, 1 read, 1 readx, get_size, punch, ostat, osetattr;
 * a lookup and a dup of it; a second file removed. */
static int dfs_calls(dfs_t *dfs)
{
	dfs_obj_t *obj, *looked, *dup, *gone;
	d_iov_t iov;
	d_sg_list_t sgl = { 1, 0, &iov };
	daos_range_t rg = { 65536, 4096 };
	dfs_iod_t iod = { 1, &rg };
	daos_size_t got, size;
	struct stat st;

	MUST(dfs_open(dfs, NULL, "file", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &obj));
	d_iov_set(&iov, buf, 4096);
	for (int i = 0; i < 4; i++)
		MUST(dfs_write(dfs, obj, &sgl, (daos_off_t)i * 4096, NULL));
	MUST(dfs_writex(dfs, obj, &iod, &sgl, NULL));
	MUST(dfs_read(dfs, obj, &sgl, 0, &got, NULL));
	MUST(dfs_readx(dfs, obj, &iod, &sgl, &got, NULL));
	MUST(dfs_get_size(dfs, obj, &size));
	MUST(dfs_punch(dfs, obj, 0, 4096));
	MUST(dfs_ostat(dfs, obj, &st));
	st.st_mode = 0600;
	MUST(dfs_osetattr(dfs, obj, &st, DFS_SET_ATTR_MODE));
	MUST(dfs_lookup(dfs, "/file", O_RDONLY, &looked, NULL, NULL));
	MUST(dfs_dup(dfs, looked, O_RDONLY, &dup));
	MUST(dfs_release(dup));
	MUST(dfs_release(looked));
	MUST(dfs_release(obj));
	MUST(dfs_open(dfs, NULL, "gone", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &gone));
	MUST(dfs_release(gone));
	MUST(dfs_remove(dfs, NULL, "gone", false, NULL));
	return 0;
}

/* A KV object: 2 puts, 1 get, 1 list, 1 remove. */
static int kv_calls(daos_handle_t coh)
{
	daos_obj_id_t oid = { .lo = 1 };
	daos_handle_t oh;
	daos_size_t size = sizeof(buf);
	char keys[64];
	daos_key_desc_t kds[4];
	uint32_t nr = 4;
	d_iov_t iov;
	d_sg_list_t sgl = { 1, 0, &iov };
	daos_anchor_t anchor = DAOS_ANCHOR_INIT;

	MUST(daos_obj_generate_oid(coh, &oid, DAOS_OT_KV_HASHED, OC_SX, 0, 0));
	MUST(daos_kv_open(coh, oid, DAOS_OO_RW, &oh, NULL));
	MUST(daos_kv_put(oh, DAOS_TX_NONE, 0, "a", 100, buf, NULL));
	MUST(daos_kv_put(oh, DAOS_TX_NONE, 0, "b", 10, buf, NULL));
	MUST(daos_kv_get(oh, DAOS_TX_NONE, 0, "a", &size, buf, NULL));
	d_iov_set(&iov, keys, sizeof(keys));
	MUST(daos_kv_list(oh, DAOS_TX_NONE, &nr, kds, &sgl, &anchor, NULL));
	MUST(daos_kv_remove(oh, DAOS_TX_NONE, 0, "b", NULL));
	return daos_kv_close(oh, NULL);
}

/* An array of 1-byte cells: 1 write of 8 KiB, 1 read, get_size, set_size, punch. */
static int array_calls(daos_handle_t coh)
{
	daos_obj_id_t oid = { .lo = 2 };
	daos_handle_t oh;
	daos_range_t rg = { 0, 8192 };
	daos_array_iod_t iod = { 1, &rg, 0, 0 };
	d_iov_t iov;
	d_sg_list_t sgl = { 1, 0, &iov };
	daos_size_t size;

	MUST(daos_array_generate_oid(coh, &oid, true, OC_SX, 0, 0));
	MUST(daos_array_create(coh, oid, DAOS_TX_NONE, 1, 1048576, &oh, NULL));
	d_iov_set(&iov, buf, 8192);
	MUST(daos_array_write(oh, DAOS_TX_NONE, &iod, &sgl, NULL));
	MUST(daos_array_read(oh, DAOS_TX_NONE, &iod, &sgl, NULL));
	MUST(daos_array_get_size(oh, DAOS_TX_NONE, &size, NULL));
	MUST(daos_array_set_size(oh, DAOS_TX_NONE, 4096, NULL));
	rg.rg_len = 1024;
	MUST(daos_array_punch(oh, DAOS_TX_NONE, &iod, NULL));
	return daos_array_close(oh, NULL);
}

/* A dkey/akey object: 1 update and 1 fetch of a 512-byte single value. */
static int obj_calls(daos_handle_t coh)
{
	daos_obj_id_t oid = { .lo = 3 };
	daos_handle_t oh;
	daos_key_t dkey;
	daos_iod_t iod = { .iod_type = DAOS_IOD_SINGLE, .iod_size = 512, .iod_nr = 1 };
	d_iov_t iov;
	d_sg_list_t sgl = { 1, 0, &iov };

	MUST(daos_obj_generate_oid(coh, &oid, DAOS_OT_MULTI_HASHED, OC_SX, 0, 0));
	MUST(daos_obj_open(coh, oid, DAOS_OO_RW, &oh, NULL));
	d_iov_set(&dkey, "d", 1);
	d_iov_set(&iod.iod_name, "a", 1);
	d_iov_set(&iov, buf, 512);
	MUST(daos_obj_update(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, &sgl, NULL));
	MUST(daos_obj_fetch(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, &sgl, NULL, NULL));
	return daos_obj_close(oh, NULL);
}

int main(void)
{
	daos_handle_t poh, coh;
	dfs_t *dfs;

	memset(buf, 'x', sizeof(buf));
	MUST(dfs_init());
	MUST(daos_pool_connect("pool0", NULL, DAOS_PC_RW, &poh, NULL, NULL));
	MUST(daos_cont_create_with_label(poh, "cont0", NULL, NULL, NULL));
	MUST(daos_cont_open(poh, "cont0", DAOS_COO_RW, &coh, NULL, NULL));
	MUST(dfs_mount(poh, coh, O_RDWR, &dfs));
	MUST(dfs_calls(dfs));
	MUST(dfs_umount(dfs));
	MUST(kv_calls(coh));
	MUST(array_calls(coh));
	MUST(obj_calls(coh));
	MUST(daos_cont_close(coh, NULL));
	MUST(daos_pool_disconnect(poh, NULL));
	MUST(dfs_fini());
	return 0;
}
