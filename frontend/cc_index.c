// SPDX-License-Identifier: GPL-2.0
/*
 * cc_index.c - which clean pages the memory server may hold.
 *
 * Without it every cleancache get is a round trip to the server, and most
 * are for pages it never took: a file's first read, or pages whose put
 * was dropped.  RAMster kept the tmem tree of its remote pages on the
 * client; this keeps only the keys: per filesystem pool, a hash of
 * objects {ino, generation}, each an xarray of the page indexes put.
 *
 * It holds every page the server may have (and maybe more), so a page
 * not in it is a miss with no round trip:
 *  - a page goes in before its put is queued; a put that cannot be
 *    entered is dropped;
 *  - it leaves when its flush is queued, when its object or pool is
 *    flushed or destroyed, when its put fails (refused, or no answer),
 *    and when the server answers a get for it with a miss, or with a hit
 *    in a private pool (those gets are exclusive).
 * Pages the server dropped on its own stay until a get asks for them, or
 * until the index is full: it holds at most cc_index_max pages, and each
 * page entered beyond that takes out two of the oldest object's, lowest
 * index first (a file read in order put those first).  A page taken out
 * so may still be on the server; its get is a local miss, as any page's
 * not in the index.  Forgetting a pool or a file's object takes its
 * objects out under the lock and frees their pages after it, so
 * interrupts stay off only for a walk of the object list, at most
 * cc_index_max long (cc_index_destroy_max_us says the longest walk).
 * A put that failed may still be on the server (an answer that came too
 * late), and a failure that comes back after a later put of the same
 * page was queued takes that page out too.  Neither can serve old data:
 * a page not in the index is a local miss (the reader goes to the
 * disk), a change to the page flushes it, and its next put, the only
 * way back into the index, replaces the server's copy.
 *
 * ->put_page() and ->invalidate_page() run with interrupts off, so one
 * irq-safe lock covers it all and allocations are GFP_ATOMIC.
 */
#include <linux/hashtable.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "tmem_abi.h"
#include "ramster_frontend.h"

#define RF_CC_OBJ_BITS	10	/* 1024 chains of objects */

struct rf_cc_obj {
	struct hlist_node	node;
	struct list_head	fifo;	/* rf_cc_fifo, oldest first */
	int			pool;
	u64			ino;
	u32			generation;
	unsigned long		nr;	/* pages in it */
	struct xarray		pages;	/* index -> xa_mk_value(0) */
};

static DEFINE_HASHTABLE(rf_cc_objs, RF_CC_OBJ_BITS);
static LIST_HEAD(rf_cc_fifo);
static DEFINE_SPINLOCK(rf_cc_index_lock);
static struct kmem_cache *rf_cc_obj_cache;

static u32 rf_cc_obj_hash(int pool, const struct tmem_handle *h)
{
	return hash_64(h->oid[0] ^ ((u64)h->oid[1] << 32) ^ pool,
		       RF_CC_OBJ_BITS);
}

static struct rf_cc_obj *rf_cc_obj_find(int pool, const struct tmem_handle *h)
{
	struct rf_cc_obj *obj;

	hash_for_each_possible(rf_cc_objs, obj, node, rf_cc_obj_hash(pool, h))
		if (obj->pool == pool && obj->ino == h->oid[0] &&
		    obj->generation == (u32)h->oid[1])
			return obj;
	return NULL;
}

/* Out of the index, under rf_cc_index_lock; its fifo link is then free. */
static void rf_cc_obj_unlink(struct rf_cc_obj *obj)
{
	atomic64_sub(obj->nr, &rf_stats.cc_index_pages);
	hash_del(&obj->node);
	list_del(&obj->fifo);
}

/* An object no one can find any more: its pages and itself. */
static void rf_cc_obj_destroy(struct rf_cc_obj *obj)
{
	xa_destroy(&obj->pages);
	kmem_cache_free(rf_cc_obj_cache, obj);
}

static void rf_cc_obj_free(struct rf_cc_obj *obj)
{
	rf_cc_obj_unlink(obj);
	rf_cc_obj_destroy(obj);
}

/* Free what rf_cc_obj_unlink() took out onto @gone, after the lock. */
static void rf_cc_objs_destroy(struct list_head *gone)
{
	struct rf_cc_obj *obj, *tmp;

	list_for_each_entry_safe(obj, tmp, gone, fifo)
		rf_cc_obj_destroy(obj);
}

/*
 * Over cc_index_max: take out up to @most pages, the oldest object's
 * first; under rf_cc_index_lock.  Returns how many.
 */
static unsigned int rf_cc_index_trim(unsigned int most)
{
	struct rf_cc_obj *obj;
	unsigned long index;
	unsigned int n;

	for (n = 0; n < most; n++) {
		if (atomic64_read(&rf_stats.cc_index_pages) <=
		    READ_ONCE(rf_cc_index_max))
			break;
		obj = list_first_entry_or_null(&rf_cc_fifo, struct rf_cc_obj,
					       fifo);
		if (!obj)
			break;
		index = 0;
		if (xa_find(&obj->pages, &index, ULONG_MAX, XA_PRESENT)) {
			xa_erase(&obj->pages, index);
			obj->nr--;
			atomic64_dec(&rf_stats.cc_index_pages);
			atomic64_inc(&rf_stats.cc_index_trimmed);
		}
		if (xa_empty(&obj->pages))
			rf_cc_obj_free(obj);
	}
	return n;
}

/* cc_index_max was lowered: trim to it, a few pages a lock hold. */
void rf_cc_index_shrink(void)
{
	unsigned long flags;
	unsigned int n;

	do {
		spin_lock_irqsave(&rf_cc_index_lock, flags);
		n = rf_cc_index_trim(256);
		spin_unlock_irqrestore(&rf_cc_index_lock, flags);
		cond_resched();
	} while (n == 256);
}

/* Enter a page about to be put; -ENOMEM: do not put it. */
int rf_cc_index_add(int pool, const struct tmem_handle *h)
{
	struct rf_cc_obj *obj;
	unsigned long flags;
	void *old;
	int ret = 0;

	spin_lock_irqsave(&rf_cc_index_lock, flags);
	obj = rf_cc_obj_find(pool, h);
	if (!obj) {
		obj = kmem_cache_alloc(rf_cc_obj_cache,
				       GFP_ATOMIC | __GFP_NOWARN);
		if (!obj) {
			ret = -ENOMEM;
			goto out;
		}
		obj->pool = pool;
		obj->ino = h->oid[0];
		obj->generation = h->oid[1];
		obj->nr = 0;
		xa_init(&obj->pages);
		hash_add(rf_cc_objs, &obj->node, rf_cc_obj_hash(pool, h));
		list_add_tail(&obj->fifo, &rf_cc_fifo);
	}
	old = xa_store(&obj->pages, h->index, xa_mk_value(0),
		       GFP_ATOMIC | __GFP_NOWARN);
	if (xa_is_err(old)) {
		ret = xa_err(old);
		if (xa_empty(&obj->pages))
			rf_cc_obj_free(obj);
	} else if (!old) {
		obj->nr++;
		atomic64_inc(&rf_stats.cc_index_pages);
		rf_cc_index_trim(2);
	}
out:
	spin_unlock_irqrestore(&rf_cc_index_lock, flags);
	return ret;
}

/* May the server have this page? */
bool rf_cc_index_has(int pool, const struct tmem_handle *h)
{
	struct rf_cc_obj *obj;
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&rf_cc_index_lock, flags);
	obj = rf_cc_obj_find(pool, h);
	ret = obj && xa_load(&obj->pages, h->index);
	spin_unlock_irqrestore(&rf_cc_index_lock, flags);
	return ret;
}

/* The server no longer has it, or will not once a queued flush is in. */
void rf_cc_index_del(int pool, const struct tmem_handle *h)
{
	struct rf_cc_obj *obj;
	unsigned long flags;

	spin_lock_irqsave(&rf_cc_index_lock, flags);
	obj = rf_cc_obj_find(pool, h);
	if (obj && xa_erase(&obj->pages, h->index)) {
		obj->nr--;
		atomic64_dec(&rf_stats.cc_index_pages);
		if (xa_empty(&obj->pages))
			rf_cc_obj_free(obj);
	}
	spin_unlock_irqrestore(&rf_cc_index_lock, flags);
}

/* How long a walk that began at t0 (ns) kept interrupts off: the longest. */
static void rf_cc_index_walked(u64 t0)
{
	u64 us = (ktime_get_ns() - t0) / NSEC_PER_USEC;

	if (us > atomic64_read(&rf_stats.cc_index_destroy_max_us))
		atomic64_set(&rf_stats.cc_index_destroy_max_us, us);
}

/* The whole object {h->oid}: a FLUSH_OBJECT is queued. */
void rf_cc_index_del_object(int pool, const struct tmem_handle *h)
{
	struct rf_cc_obj *obj;
	unsigned long flags;
	u64 t0;

	spin_lock_irqsave(&rf_cc_index_lock, flags);
	t0 = ktime_get_ns();
	obj = rf_cc_obj_find(pool, h);
	if (obj)
		rf_cc_obj_unlink(obj);
	rf_cc_index_walked(t0);
	spin_unlock_irqrestore(&rf_cc_index_lock, flags);
	if (obj)
		rf_cc_obj_destroy(obj);
}

/* Every page of a pool that is destroyed or goes stale. */
void rf_cc_index_del_pool(int pool)
{
	struct rf_cc_obj *obj, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);
	u64 t0;

	spin_lock_irqsave(&rf_cc_index_lock, flags);
	t0 = ktime_get_ns();
	list_for_each_entry_safe(obj, tmp, &rf_cc_fifo, fifo) {
		if (obj->pool != pool)
			continue;
		rf_cc_obj_unlink(obj);
		list_add(&obj->fifo, &gone);
	}
	rf_cc_index_walked(t0);
	spin_unlock_irqrestore(&rf_cc_index_lock, flags);
	rf_cc_objs_destroy(&gone);
}

int rf_cc_index_init(void)
{
	rf_cc_obj_cache = KMEM_CACHE(rf_cc_obj, 0);
	return rf_cc_obj_cache ? 0 : -ENOMEM;
}

void rf_cc_index_exit(void)
{
	struct rf_cc_obj *obj, *tmp;

	list_for_each_entry_safe(obj, tmp, &rf_cc_fifo, fifo)
		rf_cc_obj_free(obj);
	kmem_cache_destroy(rf_cc_obj_cache);
}
