/* GURT's hash table and hash functions (libgurt of the DAOS emulation).  A plain chained table:
 * buckets of d_list_t, one optional mutex, reference counting through the caller's callbacks.
 * Enough for DAOS clients such as IOR's DFS back end; no LRU, no resizing. */
#include <stdlib.h>
#include <gurt/hash.h>

struct d_hash_table {
	uint32_t            bucket_count;
	bool                locked;
	pthread_mutex_t     lock;
	d_hash_table_ops_t *ops;
	void               *priv;
	d_list_t           *buckets;
};

uint64_t d_hash_murmur64(const unsigned char *key, unsigned int len, unsigned int seed)
{
	const uint64_t m = 0xc6a4a7935bd1e995ULL;
	const int r = 47;
	uint64_t h = seed ^ (len * m);
	unsigned int i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t k;
		memcpy(&k, key + i, 8);
		k *= m;
		k ^= k >> r;
		k *= m;
		h ^= k;
		h *= m;
	}
	for (unsigned int rest = len - i; rest > 0; rest--)
		h ^= (uint64_t)key[i + rest - 1] << (8 * (rest - 1));
	if (len - i)
		h *= m;
	h ^= h >> r;
	h *= m;
	h ^= h >> r;
	return h;
}

uint32_t d_hash_string_u32(const char *string, unsigned int len)
{
	uint32_t h = 2166136261u;

	for (unsigned int i = 0; i < len; i++)
		h = (h ^ (unsigned char)string[i]) * 16777619u;
	return h;
}

static void table_lock(struct d_hash_table *t)
{
	if (t->locked)
		pthread_mutex_lock(&t->lock);
}

static void table_unlock(struct d_hash_table *t)
{
	if (t->locked)
		pthread_mutex_unlock(&t->lock);
}

int d_hash_table_create(uint32_t feats, uint32_t bits, void *priv, d_hash_table_ops_t *hops,
			struct d_hash_table **htable_pp)
{
	if (!hops || !hops->hop_key_cmp || !htable_pp || bits > 24)
		return -DER_INVAL;
	struct d_hash_table *t = calloc(1, sizeof(*t));
	if (!t)
		return -DER_NOMEM;
	t->bucket_count = 1u << bits;
	t->buckets = calloc(t->bucket_count, sizeof(*t->buckets));
	if (!t->buckets) {
		free(t);
		return -DER_NOMEM;
	}
	for (uint32_t i = 0; i < t->bucket_count; i++)
		D_INIT_LIST_HEAD(&t->buckets[i]);
	t->locked = !(feats & D_HASH_FT_NOLOCK);
	pthread_mutex_init(&t->lock, NULL);
	t->ops = hops;
	t->priv = priv;
	*htable_pp = t;
	return 0;
}

static uint32_t key_bucket(struct d_hash_table *t, const void *key, unsigned int ksize)
{
	uint32_t h = t->ops->hop_key_hash ? t->ops->hop_key_hash(t, key, ksize)
					  : (uint32_t)d_hash_murmur64(key, ksize, 0);
	return h & (t->bucket_count - 1);
}

static d_list_t *find_locked(struct d_hash_table *t, uint32_t bucket, const void *key,
			     unsigned int ksize)
{
	d_list_t *head = &t->buckets[bucket];

	for (d_list_t *l = head->next; l != head; l = l->next)
		if (t->ops->hop_key_cmp(t, l, key, ksize))
			return l;
	return NULL;
}

/* Records are placed by their key's hash (hop_key_hash, else MurmurHash64A of the key). */
static d_list_t *find_any_locked(struct d_hash_table *t, const void *key, unsigned int ksize)
{
	return find_locked(t, key_bucket(t, key, ksize), key, ksize);
}

d_list_t *d_hash_rec_find(struct d_hash_table *htable, const void *key, unsigned int ksize)
{
	table_lock(htable);
	d_list_t *l = find_any_locked(htable, key, ksize);
	if (l && htable->ops->hop_rec_addref)
		htable->ops->hop_rec_addref(htable, l);
	table_unlock(htable);
	return l;
}

int d_hash_rec_insert(struct d_hash_table *htable, const void *key, unsigned int ksize,
		      d_list_t *rlink, bool exclusive)
{
	int rc = 0;

	table_lock(htable);
	if (exclusive && find_any_locked(htable, key, ksize))
		rc = -DER_EXIST;
	else {
		d_list_add(rlink, &htable->buckets[key_bucket(htable, key, ksize)]);
		if (htable->ops->hop_rec_addref)
			htable->ops->hop_rec_addref(htable, rlink);
	}
	table_unlock(htable);
	return rc;
}

bool d_hash_rec_delete_at(struct d_hash_table *htable, d_list_t *rlink)
{
	table_lock(htable);
	bool linked = !d_list_empty(rlink);
	if (linked)
		d_list_del_init(rlink);
	table_unlock(htable);
	if (linked && htable->ops->hop_rec_free)
		htable->ops->hop_rec_free(htable, rlink);
	return linked;
}

bool d_hash_rec_delete(struct d_hash_table *htable, const void *key, unsigned int ksize)
{
	table_lock(htable);
	d_list_t *l = find_any_locked(htable, key, ksize);
	table_unlock(htable);
	return l ? d_hash_rec_delete_at(htable, l) : false;
}

void d_hash_rec_addref(struct d_hash_table *htable, d_list_t *rlink)
{
	if (htable->ops->hop_rec_addref)
		htable->ops->hop_rec_addref(htable, rlink);
}

/* When hop_rec_decref reports the last reference, the record leaves the table and is freed. */
void d_hash_rec_decref(struct d_hash_table *htable, d_list_t *rlink)
{
	if (htable->ops->hop_rec_decref && htable->ops->hop_rec_decref(htable, rlink))
		d_hash_rec_delete_at(htable, rlink);
}

d_list_t *d_hash_rec_first(struct d_hash_table *htable)
{
	d_list_t *first = NULL;

	table_lock(htable);
	for (uint32_t b = 0; !first && b < htable->bucket_count; b++)
		if (!d_list_empty(&htable->buckets[b]))
			first = htable->buckets[b].next;
	if (first && htable->ops->hop_rec_addref)
		htable->ops->hop_rec_addref(htable, first);
	table_unlock(htable);
	return first;
}

/* Without force, a table that still holds records is not destroyed (-DER_BUSY). */
int d_hash_table_destroy(struct d_hash_table *htable, bool force)
{
	for (uint32_t b = 0; b < htable->bucket_count; b++) {
		while (!d_list_empty(&htable->buckets[b])) {
			if (!force)
				return -DER_BUSY;
			d_hash_rec_delete_at(htable, htable->buckets[b].next);
		}
	}
	pthread_mutex_destroy(&htable->lock);
	free(htable->buckets);
	free(htable);
	return 0;
}
