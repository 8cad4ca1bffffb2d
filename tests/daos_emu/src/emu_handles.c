/* Handle table of the DAOS emulation: a cookie is (generation << 24 | slot + 1), so a closed
 * handle's cookie stops working even when its slot is reused. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "emu.h"

#define SLOT_BITS 24
#define SLOT_MAX  (1u << SLOT_BITS)

struct slot {
	void    *ptr;
	uint32_t generation;
	uint8_t  kind;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot *slots;
static uint32_t slot_count;
static int init_count;

static bool grow_table(void)
{
	uint32_t count = slot_count ? slot_count * 2 : 64;
	struct slot *bigger;

	if (count > SLOT_MAX)
		return false;
	bigger = realloc(slots, count * sizeof(*slots));
	if (!bigger)
		return false;
	memset(bigger + slot_count, 0, (count - slot_count) * sizeof(*slots));
	slots = bigger;
	slot_count = count;
	return true;
}

static int free_slot(void)
{
	for (uint32_t i = 0; i < slot_count; i++)
		if (!slots[i].ptr)
			return (int)i;
	uint32_t first_new = slot_count;
	return grow_table() ? (int)first_new : -1;
}

daos_handle_t iol_emu_handle_new(enum iol_emu_kind kind, void *ptr)
{
	daos_handle_t h = DAOS_HDL_INVAL;

	pthread_mutex_lock(&table_lock);
	int i = free_slot();
	if (i >= 0) {
		slots[i].ptr = ptr;
		slots[i].kind = (uint8_t)kind;
		slots[i].generation++;
		h.cookie = ((uint64_t)slots[i].generation << SLOT_BITS) | (uint64_t)(i + 1);
	}
	pthread_mutex_unlock(&table_lock);
	return h;
}

/* The slot of a live cookie of `kind`; NULL otherwise.  Call with the lock held. */
static struct slot *live_slot(daos_handle_t h, enum iol_emu_kind kind)
{
	uint64_t index = (h.cookie & (SLOT_MAX - 1));

	if (index == 0 || index > slot_count)
		return NULL;
	struct slot *s = &slots[index - 1];
	if (!s->ptr || s->kind != kind || s->generation != (uint32_t)(h.cookie >> SLOT_BITS))
		return NULL;
	return s;
}

void *iol_emu_handle_get(daos_handle_t h, enum iol_emu_kind kind)
{
	pthread_mutex_lock(&table_lock);
	struct slot *s = live_slot(h, kind);
	void *ptr = s ? s->ptr : NULL;
	pthread_mutex_unlock(&table_lock);
	return ptr;
}

void *iol_emu_handle_drop(daos_handle_t h, enum iol_emu_kind kind)
{
	pthread_mutex_lock(&table_lock);
	struct slot *s = live_slot(h, kind);
	void *ptr = s ? s->ptr : NULL;
	if (s)
		s->ptr = NULL;
	pthread_mutex_unlock(&table_lock);
	return ptr;
}

/* daos_init and daos_fini are reference counted, as in DAOS. */
int daos_init(void)
{
	const char *root = getenv("IOLENS_DAOS_EMU_ROOT");
	struct stat st;

	if (!root || stat(root, &st) != 0 || !S_ISDIR(st.st_mode))
		return -DER_MISC;
	pthread_mutex_lock(&table_lock);
	init_count++;
	pthread_mutex_unlock(&table_lock);
	return 0;
}

int daos_fini(void)
{
	int rc = 0;

	pthread_mutex_lock(&table_lock);
	if (init_count == 0)
		rc = -DER_UNINIT;
	else
		init_count--;
	pthread_mutex_unlock(&table_lock);
	return rc;
}

int iol_emu_check_init(void)
{
	pthread_mutex_lock(&table_lock);
	int count = init_count;
	pthread_mutex_unlock(&table_lock);
	return count > 0 ? 0 : -DER_UNINIT;
}
