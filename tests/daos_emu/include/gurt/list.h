/* DAOS emulation (iolens tests): the intrusive doubly linked list GURT's hash table links through. */
#ifndef __GURT_LIST_H__
#define __GURT_LIST_H__
#include <stddef.h>

typedef struct d_list_head {
	struct d_list_head *next, *prev;
} d_list_t;

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#endif

static inline void
D_INIT_LIST_HEAD(d_list_t *head)
{
	head->next = head->prev = head;
}

static inline int
d_list_empty(const d_list_t *head)
{
	return head->next == head;
}

static inline void
d_list_add(d_list_t *item, d_list_t *head)
{
	item->next = head->next;
	item->prev = head;
	head->next->prev = item;
	head->next = item;
}

static inline void
d_list_del_init(d_list_t *item)
{
	item->prev->next = item->next;
	item->next->prev = item->prev;
	D_INIT_LIST_HEAD(item);
}
#endif
