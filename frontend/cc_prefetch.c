// SPDX-License-Identifier: GPL-2.0
/*
 * cc_prefetch.c - clean pages fetched from the memory server ahead of
 * the reader.
 *
 * A file read in order asks cleancache for its pages one by one, and one
 * synchronous round trip a page makes such a read slower than the disk.
 * So a get also asks the server for the next pages the index has, without
 * waiting, and their answers wait here until the reader asks for them.
 * Only private pools do this: their gets are exclusive, so a page here is
 * no longer on the server, and no longer in the index.
 *
 * An entry is reserved (in flight) before its GET is sent, filled when the
 * answer comes, and taken by the get that wants it.  Coherence: a put or
 * an invalidation of a page, once queued, forgets the page's entry here;
 * an entry still in flight is marked dead and freed by its answer.  A put
 * queued before the GET was sent reaches the server first; one queued
 * after it forgets the entry.  Either way no get is answered with a page
 * older than the last put.  A pool that goes stale or away forgets all of
 * its entries, and each entry also keeps its pool's generation.
 *
 * When every entry is taken, the oldest filled one that no get waits
 * for is dropped: an ephemeral page may be lost, never served wrong.
 * Puts and invalidations come with interrupts off: one irq-safe lock.
 */
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "tmem_abi.h"
#include "ramster_frontend.h"

#define RF_PF_HASH_BITS	8

enum rf_pf_state {
	RF_PF_FREE,
	RF_PF_WAIT,		/* its GET is out */
	RF_PF_READY,		/* the page is here */
};

struct rf_pf_entry {
	struct hlist_node	node;	/* hashed while wanted */
	struct list_head	list;	/* free, or ready (oldest first) */
	struct tmem_handle	h;
	int			pool;
	unsigned int		gen;
	enum rf_pf_state	state;
	bool			dead;	/* in flight, no longer wanted */
	bool			asked;	/* a get waits for it: keep it */
	struct page		*page;
};

static struct hlist_head rf_pf_hash[1 << RF_PF_HASH_BITS];
static struct rf_pf_entry *rf_pf_entries;
static unsigned int rf_pf_nr;
static unsigned int rf_pf_used;		/* not free */
static LIST_HEAD(rf_pf_free);
static LIST_HEAD(rf_pf_ready);
static DEFINE_SPINLOCK(rf_pf_lock);
static DECLARE_WAIT_QUEUE_HEAD(rf_pf_wait);

static u32 rf_pf_hash_of(int pool, const struct tmem_handle *h)
{
	return hash_64(h->oid[0] ^ (h->oid[1] << 32) ^ ((u64)h->index << 8) ^
		       pool, RF_PF_HASH_BITS);
}

static bool rf_pf_same(const struct rf_pf_entry *e, int pool,
		       const struct tmem_handle *h)
{
	return e->pool == pool && e->h.pool_id == h->pool_id &&
	       e->h.oid[0] == h->oid[0] && e->h.oid[1] == h->oid[1] &&
	       e->h.oid[2] == h->oid[2] && e->h.index == h->index;
}

/* Under rf_pf_lock: the wanted entry of a page, or NULL. */
static struct rf_pf_entry *rf_pf_find(int pool, const struct tmem_handle *h)
{
	struct rf_pf_entry *e;

	hlist_for_each_entry(e, &rf_pf_hash[rf_pf_hash_of(pool, h)], node)
		if (rf_pf_same(e, pool, h))
			return e;
	return NULL;
}

/* Under rf_pf_lock. */
static void rf_pf_put_free(struct rf_pf_entry *e)
{
	e->state = RF_PF_FREE;
	e->dead = false;
	e->asked = false;
	list_add(&e->list, &rf_pf_free);
	rf_pf_used--;
}

/*
 * Under rf_pf_lock: the page is no longer wanted.  True if it was in
 * flight: a get may be waiting for it, to be woken.
 */
static bool rf_pf_drop(struct rf_pf_entry *e)
{
	hlist_del_init(&e->node);
	if (e->state == RF_PF_WAIT) {
		WRITE_ONCE(e->dead, true);	/* its answer frees it */
		return true;
	}
	list_del(&e->list);
	rf_pf_put_free(e);
	atomic64_inc(&rf_stats.cc_prefetch_unused);
	return false;
}

bool rf_cc_pf_has(int pool, const struct tmem_handle *h)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&rf_pf_lock, flags);
	ret = rf_pf_find(pool, h);
	spin_unlock_irqrestore(&rf_pf_lock, flags);
	return ret;
}

/* A get will wait for the page: keep it until then.  False if not here. */
bool rf_cc_pf_ask(int pool, const struct tmem_handle *h)
{
	struct rf_pf_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&rf_pf_lock, flags);
	e = rf_pf_find(pool, h);
	if (e)
		e->asked = true;
	spin_unlock_irqrestore(&rf_pf_lock, flags);
	return e;
}

/* Under rf_pf_lock: the oldest page that came and no get waits for. */
static struct rf_pf_entry *rf_pf_oldest(void)
{
	struct rf_pf_entry *e;

	list_for_each_entry(e, &rf_pf_ready, list)
		if (!e->asked)
			return e;
	return NULL;
}

/*
 * An entry for the page, in flight; -EEXIST if it has one, -ENOSPC if
 * every entry is in flight or waited for.
 */
struct rf_pf_entry *rf_cc_pf_reserve(int pool, unsigned int gen,
				     const struct tmem_handle *h)
{
	struct rf_pf_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&rf_pf_lock, flags);
	if (rf_pf_find(pool, h)) {
		e = ERR_PTR(-EEXIST);
		goto out;
	}
	if (list_empty(&rf_pf_free)) {
		e = rf_pf_oldest();
		if (e)
			rf_pf_drop(e);
	}
	e = list_first_entry_or_null(&rf_pf_free, struct rf_pf_entry, list);
	if (!e) {
		e = ERR_PTR(-ENOSPC);
		goto out;
	}
	list_del_init(&e->list);
	rf_pf_used++;
	e->h = *h;
	e->pool = pool;
	e->gen = gen;
	e->state = RF_PF_WAIT;
	hlist_add_head(&e->node, &rf_pf_hash[rf_pf_hash_of(pool, h)]);
out:
	spin_unlock_irqrestore(&rf_pf_lock, flags);
	return e;
}

/* The page an entry was reserved for, and its pool (if @pool). */
const struct tmem_handle *rf_cc_pf_handle(struct rf_pf_entry *e, int *pool)
{
	if (pool)
		*pool = e->pool;
	return &e->h;
}

/*
 * Where the answer for an entry goes: in flight, the entry is the
 * answer's alone to write, until rf_cc_pf_fill().
 */
struct page *rf_cc_pf_page(struct rf_pf_entry *e)
{
	return e->page;
}

/* The answer for an entry came: ok if its page is in rf_cc_pf_page(). */
void rf_cc_pf_fill(struct rf_pf_entry *e, bool ok)
{
	unsigned long flags;

	spin_lock_irqsave(&rf_pf_lock, flags);
	if (e->dead || !ok) {
		if (!e->dead)
			hlist_del_init(&e->node);
		else if (ok)
			atomic64_inc(&rf_stats.cc_prefetch_unused);
		rf_pf_put_free(e);
	} else {
		e->state = RF_PF_READY;
		list_add_tail(&e->list, &rf_pf_ready);
	}
	spin_unlock_irqrestore(&rf_pf_lock, flags);
	wake_up_all(&rf_pf_wait);
}

static bool rf_pf_settled(int pool, const struct tmem_handle *h)
{
	struct rf_pf_entry *e;
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&rf_pf_lock, flags);
	e = rf_pf_find(pool, h);
	ret = !e || e->state != RF_PF_WAIT;
	spin_unlock_irqrestore(&rf_pf_lock, flags);
	return ret;
}

/*
 * Copy the page into @page once its answer is in (ask for it first, so
 * that it is not dropped meanwhile), waiting at most @timeout jiffies
 * (MAX_SCHEDULE_TIMEOUT: until r2net answers): 0, or -ENOENT if the
 * server had none (or it was forgotten), -ESTALE if its pool went stale,
 * -ETIMEDOUT if the answer is not in yet (it stays, for a later load).
 */
int rf_cc_pf_take(int pool, unsigned int gen, const struct tmem_handle *h,
		  struct page *page, long timeout)
{
	struct rf_pf_entry *e;
	unsigned long flags;
	int ret = -ENOENT;

	/* r2net answers every request it took, in time or with an error. */
	if (!wait_event_timeout(rf_pf_wait, rf_pf_settled(pool, h), timeout))
		return -ETIMEDOUT;
	spin_lock_irqsave(&rf_pf_lock, flags);
	e = rf_pf_find(pool, h);
	if (e && e->state == RF_PF_READY) {
		ret = -ESTALE;
		if (e->gen == gen) {
			copy_highpage(page, e->page);
			ret = 0;
		}
		hlist_del_init(&e->node);
		list_del(&e->list);
		rf_pf_put_free(e);
	}
	spin_unlock_irqrestore(&rf_pf_lock, flags);
	return ret;
}

/* A put or a flush of the page is queued: forget what came before. */
void rf_cc_pf_forget(int pool, const struct tmem_handle *h)
{
	struct rf_pf_entry *e;
	unsigned long flags;

	bool wake = false;

	spin_lock_irqsave(&rf_pf_lock, flags);
	e = rf_pf_find(pool, h);
	if (e)
		wake = rf_pf_drop(e);
	spin_unlock_irqrestore(&rf_pf_lock, flags);
	if (wake)
		wake_up_all(&rf_pf_wait);
}

/* Forget every page of the pool, or of h's object. */
static void rf_pf_forget_all(int pool, const struct tmem_handle *h)
{
	struct rf_pf_entry *e;
	unsigned long flags;
	bool wake = false;
	unsigned int i;

	spin_lock_irqsave(&rf_pf_lock, flags);
	for (i = 0; i < rf_pf_nr && rf_pf_used; i++) {
		e = &rf_pf_entries[i];
		if (hlist_unhashed(&e->node) || e->pool != pool)
			continue;
		if (!h || (e->h.pool_id == h->pool_id &&
			   e->h.oid[0] == h->oid[0] &&
			   e->h.oid[1] == h->oid[1] &&
			   e->h.oid[2] == h->oid[2]))
			wake |= rf_pf_drop(e);
	}
	spin_unlock_irqrestore(&rf_pf_lock, flags);
	if (wake)
		wake_up_all(&rf_pf_wait);
}

void rf_cc_pf_forget_object(int pool, const struct tmem_handle *h)
{
	rf_pf_forget_all(pool, h);
}

void rf_cc_pf_forget_pool(int pool)
{
	rf_pf_forget_all(pool, NULL);
}

/* With no GET in flight: free everything, as before rf_cc_pf_init(). */
void rf_cc_pf_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rf_pf_hash); i++)
		INIT_HLIST_HEAD(&rf_pf_hash[i]);
	INIT_LIST_HEAD(&rf_pf_free);
	INIT_LIST_HEAD(&rf_pf_ready);
	rf_pf_used = 0;
	for (i = 0; rf_pf_entries && i < rf_pf_nr; i++)
		if (rf_pf_entries[i].page)
			__free_page(rf_pf_entries[i].page);
	kfree(rf_pf_entries);
	rf_pf_entries = NULL;
	rf_pf_nr = 0;
}

/* nr entries, each with a page; 0 turns fetching ahead off. */
int rf_cc_pf_init(unsigned int nr)
{
	unsigned int i;

	if (!nr)
		return 0;
	rf_pf_entries = kcalloc(nr, sizeof(*rf_pf_entries), GFP_KERNEL);
	if (!rf_pf_entries)
		return -ENOMEM;
	rf_pf_nr = nr;
	for (i = 0; i < nr; i++) {
		struct rf_pf_entry *e = &rf_pf_entries[i];

		e->page = alloc_page(GFP_KERNEL);
		if (!e->page) {
			rf_cc_pf_exit();
			return -ENOMEM;
		}
		INIT_HLIST_NODE(&e->node);
		list_add_tail(&e->list, &rf_pf_free);
	}
	return 0;
}
