/* Prints the sizes, field offsets and constants of the DAOS types that callers declare
 * independently; check_abi.sh compiles it against DAOS's headers and ours and compares. */
#include <stddef.h>
#include <stdio.h>
#include <daos.h>
#include <daos_fs.h>

#define SIZE(t)     printf("sizeof %s %zu\n", #t, sizeof(t))
#define OFFSET(t, f) printf("offsetof %s.%s %zu\n", #t, #f, offsetof(t, f))
#define VALUE(c)    printf("%s %lld\n", #c, (long long)(c))

int main(void)
{
	SIZE(d_iov_t); SIZE(d_sg_list_t); SIZE(d_rank_list_t); SIZE(daos_handle_t);
	SIZE(daos_obj_id_t); SIZE(daos_event_t); SIZE(daos_anchor_t); SIZE(daos_cont_info_t);
	SIZE(daos_pool_info_t); SIZE(daos_iod_t); SIZE(daos_iom_t); SIZE(daos_recx_t);
	SIZE(daos_key_desc_t); SIZE(daos_epoch_range_t); SIZE(daos_range_t);
	SIZE(daos_array_iod_t); SIZE(daos_array_stbuf_t); SIZE(dfs_iod_t); SIZE(dfs_attr_t);
	SIZE(daos_prop_t); SIZE(struct daos_prop_entry);
	OFFSET(daos_pool_info_t, pi_bits); OFFSET(daos_pool_info_t, pi_space);
	OFFSET(daos_pool_info_t, pi_rebuild_st); OFFSET(daos_cont_info_t, ci_md_mtime);
	OFFSET(daos_iod_t, iod_nr); OFFSET(daos_iod_t, iod_recxs); OFFSET(daos_iom_t, iom_recxs);
	OFFSET(daos_array_iod_t, arr_nr_read); OFFSET(dfs_attr_t, da_file_oclass_id);
	OFFSET(dfs_attr_t, da_hints); OFFSET(daos_event_t, ev_debug);
	VALUE(OC_SX); VALUE(OC_S1); VALUE(DAOS_OO_RO); VALUE(DAOS_OO_RW); VALUE(DAOS_COO_RW);
	VALUE(DAOS_PC_RW); VALUE(DER_NO_HDL); VALUE(DER_INVAL); VALUE(DER_NONEXIST);
	VALUE(DER_EXIST); VALUE(DER_REC2BIG); VALUE(DER_KEY2BIG); VALUE(DER_NOTSUPPORTED);
	VALUE(DAOS_COND_KEY_GET); VALUE(DAOS_COND_KEY_INSERT); VALUE(DPI_SPACE);
	VALUE(DAOS_OT_ARRAY); VALUE(DAOS_OT_ARRAY_BYTE); VALUE(DAOS_OT_KV_HASHED);
	VALUE(DFS_SET_ATTR_SIZE); VALUE(DFS_MAX_FSIZE); VALUE(DAOS_ANCHOR_TYPE_EOF);
	return 0;
}
