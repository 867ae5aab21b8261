/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel's lists and hash lists, checked as
 * with CONFIG_DEBUG_LIST: adding between entries that do not point at each
 * other, or deleting an entry already deleted or whose neighbours do not
 * point at it, is a shim error and the operation is skipped.  Deleted
 * entries are poisoned like the kernel's.  Stricter than the kernel:
 * hlist_add_head() of a node still hashed and hlist deletions whose
 * *pprev is not the node are errors too.
 */
#ifndef KSHIM_LINUX_LIST_H
#define KSHIM_LINUX_LIST_H

#include <linux/container_of.h>
#include "../kshim.h"

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

#define LIST_POISON1	((void *)0x100)
#define LIST_POISON2	((void *)0x122)

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	WRITE_ONCE(list->next, list);
	list->prev = list;
}

static inline bool __list_add_valid(struct list_head *new,
				    struct list_head *prev,
				    struct list_head *next)
{
	if (next->prev != prev || prev->next != next || new == prev ||
	    new == next) {
		kshim_misuse("list_add corruption");
		return false;
	}
	return true;
}

static inline bool __list_del_entry_valid(struct list_head *entry)
{
	struct list_head *prev = entry->prev, *next = entry->next;

	if (next == LIST_POISON1 || prev == LIST_POISON2) {
		kshim_misuse("list_del of an entry already deleted");
		return false;
	}
	if (!prev || !next || prev->next != entry || next->prev != entry) {
		kshim_misuse("list_del corruption");
		return false;
	}
	return true;
}

static inline void __list_add(struct list_head *new, struct list_head *prev,
			      struct list_head *next)
{
	if (!__list_add_valid(new, prev, next))
		return;
	next->prev = new;
	new->next = next;
	new->prev = prev;
	WRITE_ONCE(prev->next, new);
}

static inline void list_add(struct list_head *new, struct list_head *head)
{
	__list_add(new, head, head->next);
}

static inline void list_add_tail(struct list_head *new,
				 struct list_head *head)
{
	__list_add(new, head->prev, head);
}

static inline bool __list_del_entry(struct list_head *entry)
{
	if (!__list_del_entry_valid(entry))
		return false;
	entry->next->prev = entry->prev;
	WRITE_ONCE(entry->prev->next, entry->next);
	return true;
}

static inline void list_del(struct list_head *entry)
{
	if (!__list_del_entry(entry))
		return;
	entry->next = LIST_POISON1;
	entry->prev = LIST_POISON2;
}

static inline void list_del_init(struct list_head *entry)
{
	if (__list_del_entry(entry))
		INIT_LIST_HEAD(entry);
}

static inline int list_empty(const struct list_head *head)
{
	return READ_ONCE(head->next) == head;
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)

#define list_first_entry(ptr, type, member)				\
	list_entry((ptr)->next, type, member)

#define list_next_entry(pos, member)					\
	list_entry((pos)->member.next, __typeof__(*(pos)), member)

#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, __typeof__(*(pos)), member);	\
	     &(pos)->member != (head);					\
	     pos = list_next_entry(pos, member))

#define list_first_entry_or_null(ptr, type, member) ({			\
	struct list_head *head__ = (ptr);				\
	struct list_head *pos__ = READ_ONCE(head__->next);		\
	pos__ != head__ ? list_entry(pos__, type, member) : NULL;	\
})

#define HLIST_HEAD_INIT		{ .first = NULL }
#define INIT_HLIST_HEAD(ptr)	((ptr)->first = NULL)

static inline void INIT_HLIST_NODE(struct hlist_node *h)
{
	h->next = NULL;
	h->pprev = NULL;
}

static inline int hlist_unhashed(const struct hlist_node *h)
{
	return !h->pprev;
}

static inline void __hlist_del(struct hlist_node *n)
{
	struct hlist_node *next = n->next;
	struct hlist_node **pprev = n->pprev;

	if (pprev == LIST_POISON2 || *pprev != n) {
		kshim_misuse("hlist_del corruption");
		return;
	}
	WRITE_ONCE(*pprev, next);
	if (next)
		WRITE_ONCE(next->pprev, pprev);
}

static inline void hlist_del(struct hlist_node *n)
{
	__hlist_del(n);
	n->next = LIST_POISON1;
	n->pprev = LIST_POISON2;
}

static inline void hlist_del_init(struct hlist_node *n)
{
	if (!hlist_unhashed(n)) {
		__hlist_del(n);
		INIT_HLIST_NODE(n);
	}
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	if (n->pprev && n->pprev != LIST_POISON2) {
		kshim_misuse("hlist_add_head of a node still hashed");
		return;
	}
	WRITE_ONCE(n->next, first);
	if (first)
		WRITE_ONCE(first->pprev, &n->next);
	WRITE_ONCE(h->first, n);
	WRITE_ONCE(n->pprev, &h->first);
}

#define hlist_entry(ptr, type, member)	container_of(ptr, type, member)

#define hlist_entry_safe(ptr, type, member) ({				\
	__typeof__(ptr) ____ptr = (ptr);				\
	____ptr ? hlist_entry(____ptr, type, member) : NULL;		\
})

#define hlist_for_each_entry(pos, head, member)				\
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)),	\
				    member);				\
	     pos;							\
	     pos = hlist_entry_safe((pos)->member.next,			\
				    __typeof__(*(pos)), member))

#endif
