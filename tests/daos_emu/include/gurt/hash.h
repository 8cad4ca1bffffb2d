/* DAOS emulation (iolens tests): GURT's hash table interface (d_hash_table_*, d_hash_rec_*).
 * The table links caller-owned records through an embedded d_list_t; the callbacks compare keys,
 * hash records and manage reference counts, as in GURT. */
#ifndef __GURT_HASH_H__
#define __GURT_HASH_H__
#include <gurt/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct d_hash_table;

typedef struct {
	uint32_t (*hop_key_hash)(struct d_hash_table *htable, const void *key, unsigned int ksize);
	bool     (*hop_key_cmp)(struct d_hash_table *htable, d_list_t *rlink,
				const void *key, unsigned int ksize);
	uint32_t (*hop_rec_hash)(struct d_hash_table *htable, d_list_t *rlink);
	void     (*hop_rec_addref)(struct d_hash_table *htable, d_list_t *rlink);
	bool     (*hop_rec_decref)(struct d_hash_table *htable, d_list_t *rlink);
	int      (*hop_rec_ndecref)(struct d_hash_table *htable, d_list_t *rlink, int count);
	void     (*hop_rec_free)(struct d_hash_table *htable, d_list_t *rlink);
} d_hash_table_ops_t;

enum d_hash_feats {
	D_HASH_FT_NOLOCK    = (1 << 0),
	D_HASH_FT_MUTEX     = (1 << 1),
	D_HASH_FT_RWLOCK    = (1 << 2),
	D_HASH_FT_EPHEMERAL = (1 << 3),
	D_HASH_FT_NOLRU     = (1 << 4),
	D_HASH_FT_LRU       = (1 << 5),
	D_HASH_FT_DYNAMIC   = (1 << 6),
	D_HASH_FT_SHRINK    = (1 << 7),
	D_HASH_FT_GLOCK     = (1 << 8),
};

int d_hash_table_create(uint32_t feats, uint32_t bits, void *priv, d_hash_table_ops_t *hops,
			struct d_hash_table **htable_pp);
int d_hash_table_destroy(struct d_hash_table *htable, bool force);
d_list_t *d_hash_rec_find(struct d_hash_table *htable, const void *key, unsigned int ksize);
int d_hash_rec_insert(struct d_hash_table *htable, const void *key, unsigned int ksize,
		      d_list_t *rlink, bool exclusive);
bool d_hash_rec_delete(struct d_hash_table *htable, const void *key, unsigned int ksize);
bool d_hash_rec_delete_at(struct d_hash_table *htable, d_list_t *rlink);
void d_hash_rec_addref(struct d_hash_table *htable, d_list_t *rlink);
void d_hash_rec_decref(struct d_hash_table *htable, d_list_t *rlink);
d_list_t *d_hash_rec_first(struct d_hash_table *htable);

#ifdef __cplusplus
}
#endif
#endif
