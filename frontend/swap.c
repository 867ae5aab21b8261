// SPDX-License-Identifier: GPL-2.0
/*
 * swap.c - frontswap pages kept on a memory server.
 *
 * Each swap type gets one persistent private pool on the target node,
 * created once the type is swapon'd and the target is connected (and
 * retried until the server's tmem handlers answer).  Until the pool exists
 * stores are refused, so the page goes to the swap disk as without us.
 *
 * A page's handle is Xen's frontswap swizzle: object id (type << 4) |
 * (offset & 15), index offset >> 4, so consecutive offsets spread over 16
 * objects per type.
 *
 * Loads are synchronous r2net requests: the faulting thread waits.  A
 * load that follows the type's last one (the next offset), or whose page
 * was fetched ahead, also sends GETs for the next swap_prefetch offsets
 * without waiting; their pages wait in cc_prefetch.c for the loads that
 * come.  Gets of a persistent pool are not exclusive, so a page fetched
 * ahead is a copy; a store or invalidation of its offset forgets it once
 * the PUT or flush is handed to r2net, so no load sees a page older than
 * the last store (see cc_prefetch.c).
 *
 * Stores in writethrough mode go through a window of rf_window slots: the
 * page is copied into a slot, its PUT handed to r2net, and the store
 * returns at once.  Until the reply comes the slot is in rf_entries[type]
 * at the page's offset, and a load of that offset copies it from there.
 * A PUT the server refuses, or that never gets a reply, leaves RF_LOST in
 * its place, and a load of it is a miss: the swap disk has the page, as
 * writethrough wrote it there too.  So a page frontswap was told is
 * stored can always be loaded.  With no free slot a store waits for one
 * (at most timeout_ms, then the disk takes the page).  In mode none the
 * server has the only copy, so a store returns only once the server has
 * accepted the page (and so does every store when window=0).
 *
 * Invalidations can come under the swap device's spinlock, so they are
 * queued and sent asynchronously; every store first hands the queued
 * invalidations to r2net, and r2net keeps one connection in order and the
 * server runs one request at a time per connection, so a flush can never
 * overtake, and delete, a later store of the same handle.
 *
 * In mode replicate each swap type has a pool on two servers (target and
 * replica): a store sends the page to both and is accepted only when both
 * took it (else the one that did flushes it, and the disk takes the
 * page); a load asks the target, then the replica.
 *
 * With local_pool_percent set, a store first tries the local tier
 * (local.c), which keeps the page compressed here and sends it on later;
 * a load asks it first.  Only a page it has no room for goes the ways
 * above at once.
 *
 * A failed load is a miss for the kernel: in writethrough mode the swap
 * disk has the page, so -ENOENT reads it from there; in modes none and
 * replicate the page is lost and -EIO makes the faulting process get
 * SIGBUS.
 *
 * Writethrough never waits on the server much longer than on the disk: a
 * load it leaves unanswered for wt_load_ms is read from the disk.  Such a
 * load, or a store that found no window slot in window_wait_ms, makes the
 * server quiet for RF_QUIET_MS if it answered nothing at all for
 * wt_load_ms (a busy server still answers something; a dead one does
 * not).  Meanwhile loads and stores go to the disk alone, at once; then
 * they ask the server again.  A server that died is found so within
 * wt_load_ms, not after r2net's idle timeout.
 *
 * In modes none and replicate the server has the only copy, and keeps it
 * for its grace period while the client is away.  A load the network
 * fails (no connection, no answer in timeout_ms, the connection reset)
 * waits for a server to be connected again and asks again, up to
 * server_wait_ms in all; only then, or on a real miss, is it SIGBUS.
 */
#include <linux/debugfs.h>
#include <linux/frontswap.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/swap.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "r2net.h"
#include "ramster_frontend.h"
#include "tmem_client.h"
#include "trend.h"
#include "zpage.h"

#define RF_SWIZ_BITS		4
#define RF_SWIZ_MASK		((1u << RF_SWIZ_BITS) - 1)
#define RF_POOL_RETRY_MS	1000
#define RF_REPLY_BUFS		4	/* reply buffers kept for loads */

static_assert(PAGE_SIZE == TMEM_PAGE_SIZE, "frontswap moves 4 KiB pages");

/* Per swap type; active and changes of pool_id under rf_pool_mutex. */
struct rf_type {
	bool	active;		/* swapon'd and not invalidated */
	/* Per replica (rf_node()): */
	bool	check[RF_MAX_REPLICAS];	/* pool made before a reconnect */
	int	pool_id[RF_MAX_REPLICAS]; /* its pool, or -1; READ_ONCE */
	unsigned long ra_at;	/* jiffies of the last readahead window */
};

static struct rf_type rf_types[MAX_SWAPFILES];

/*
 * What rf_ops_drain() hands to r2net, in the order it was queued: flushes
 * and, in writethrough mode with zpages, the window's stores, consecutive
 * ones in batches.  So no flush overtakes a store queued before it, and
 * no store a flush.
 */
struct rf_op {
	struct list_head	list;		/* rf_op_list */
	bool			store;		/* an rf_slot's, else an rf_flush's */
};

/* A store in flight: our copy of the page, until the server replies. */
struct rf_slot {
	struct list_head	free;		/* rf_slot_free, when free */
	struct rf_op		op;		/* queued for a batch */
	struct page		*page;
	u8			*zbuf;		/* its LZO stream (compress=1) */
	struct r2net_zpage	z;		/* its form */
	unsigned int		type;
	pgoff_t			offset;
	struct tmem_handle	h;
	ktime_t			sent;
};

/* A PUT_ZPAGES on its way: its slots and the head r2net copies. */
struct rf_batch {
	unsigned int			n;
	struct rf_slot			*slot[R2NET_BATCH_MAX];
	struct r2net_tmem_batch_le	bw;
	struct r2net_tmem_zpage_le	zw[R2NET_BATCH_MAX];
};

#define RF_BATCHES		4	/* batches that need no allocation */
static mempool_t *rf_batch_pool;
static atomic_t rf_batches_in_flight = ATOMIC_INIT(0);

static struct rf_slot *rf_slots;		/* rf_window of them */
static LIST_HEAD(rf_slot_free);			/* rf_slot_lock */
static DEFINE_SPINLOCK(rf_slot_lock);
static DECLARE_WAIT_QUEUE_HEAD(rf_slot_wait);

/*
 * Per swap type, by offset: the slot of a store in flight, or RF_LOST for
 * a page whose store the server did not take.  Nothing: the server has
 * the page, or nobody does.  Loads copy from a slot under the xa_lock, and
 * a slot is reused only after its entry has been replaced under it.
 */
static struct xarray rf_entries[MAX_SWAPFILES];
#define RF_LOST		xa_mk_value(1)
static DEFINE_MUTEX(rf_pool_mutex);

static struct workqueue_struct *rf_wq;
static void rf_pool_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rf_pool_work, rf_pool_work_fn);

/* Buffers for GET replies, so a load can always make progress. */
static mempool_t *rf_reply_pool;

/* A queued invalidation. */
struct rf_flush {
	struct rf_op		op;
	u8			r;	/* which replica */
	u16			msg;	/* R2NET_MSG_TMEM_FLUSH_PAGE */
	struct tmem_handle	h;
};

static LIST_HEAD(rf_op_list);		/* rf_op_lock */
static DEFINE_SPINLOCK(rf_op_lock);
/* Held while queued ops are handed to r2net, so they go in order. */
static DEFINE_MUTEX(rf_op_mutex);
/* Ops queued and not yet handed to r2net. */
static atomic_t rf_ops_pending = ATOMIC_INIT(0);
static void rf_ops_work_fn(struct work_struct *work);
static DECLARE_WORK(rf_ops_work, rf_ops_work_fn);

/* Per swap type, the stride of its swap-ins (rf_trend_lock). */
static struct rf_trend rf_trends[MAX_SWAPFILES];
static DEFINE_SPINLOCK(rf_trend_lock);

/* Async requests r2net has not completed yet: exit waits for them. */
static atomic_t rf_async_in_flight = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(rf_async_wait);

/* Whether our ops are frontswap's backend; rf_reg_mutex. */
static DEFINE_MUTEX(rf_reg_mutex);
static bool rf_registered;
static int rf_unregister_result = 1;

/* ---- helpers ---- */

#define RF_QUIET_MS	1000

/* Writethrough: until when the disk serves alone (jiffies). */
static unsigned long rf_quiet_until;

static bool rf_server_quiet(void)
{
	return rf_mode == RF_MODE_WRITETHROUGH &&
	       time_before(jiffies, READ_ONCE(rf_quiet_until));
}

/* When the target last answered anything of ours (jiffies). */
static unsigned long rf_last_answer;

static void rf_answered(void)
{
	WRITE_ONCE(rf_last_answer, jiffies);
}

/*
 * Writethrough: a load got no answer in wt_load_ms (the disk serves it),
 * or a store no window slot in window_wait_ms.  If the server answered
 * nothing at all for wt_load_ms, it is quiet: a busy server still
 * answers something, a dead one does not.
 */
static void rf_no_answer(void)
{
	unsigned long ms = READ_ONCE(rf_wt_load_ms);

	if (rf_mode != RF_MODE_WRITETHROUGH ||
	    time_before(jiffies, READ_ONCE(rf_last_answer) +
				 msecs_to_jiffies(ms)))
		return;
	if (!rf_server_quiet())
		pr_info_ratelimited("node %u: no answer for %lu ms; the disk alone serves swap for %u ms\n",
				    rf_node(0), ms, RF_QUIET_MS);
	WRITE_ONCE(rf_quiet_until, jiffies + msecs_to_jiffies(RF_QUIET_MS));
}

static bool rf_handle(struct tmem_handle *h, int pool, unsigned int type,
		      pgoff_t offset)
{
	/* The index is 32 bits, as in Xen's frontswap. */
	if (offset >> RF_SWIZ_BITS > U32_MAX)
		return false;
	h->pool_id = pool;
	h->index = offset >> RF_SWIZ_BITS;
	h->oid[0] = ((u64)type << RF_SWIZ_BITS) | (offset & RF_SWIZ_MASK);
	h->oid[1] = 0;
	h->oid[2] = 0;
	return true;
}

/* local.c: (type, offset)'s handle on replica r; false if it has no pool. */
bool rf_swap_handle(unsigned int type, int r, pgoff_t offset,
		    struct tmem_handle *h)
{
	int pool = READ_ONCE(rf_types[type].pool_id[r]);

	return pool >= 0 && rf_handle(h, pool, type, offset);
}

/* ---- queued flushes ---- */

static void rf_async_put(void)
{
	if (atomic_dec_and_test(&rf_async_in_flight))
		wake_up(&rf_async_wait);
}

static void rf_flush_done(void *arg, int err, s32 status, const void *data,
			  u32 len)
{
	if (!err)
		rf_answered();
	if (!err && status == 1)
		atomic64_inc(&rf_stats.remote_flushes);
	else
		atomic64_inc(&rf_stats.remote_flush_failures);
	rf_async_put();
}

static void rf_flush_send(const struct rf_flush *f)
{
	int err;

	atomic_inc(&rf_async_in_flight);
	err = rf_tmem_async(rf_node(f->r), f->msg, &f->h, rf_flush_done, NULL);
	if (err) {
		/*
		 * Not sent (no connection, most likely).  The server keeps a
		 * stale page until the pool goes, but nothing can read it:
		 * frontswap loads only offsets stored since, and a store
		 * replaces the page.
		 */
		atomic64_inc(&rf_stats.remote_flush_failures);
		rf_async_put();
	}
}

static void rf_batch_send(struct rf_slot **slot, unsigned int n);

/*
 * Hand the queued ops to r2net, in order: consecutive stores as batches
 * of up to R2NET_BATCH_MAX pages.  Every caller but the work passes all:
 * then every op queued before the call reaches the server before what
 * the caller sends next.  The work holds back a last batch that is not
 * full while another is on its way, so that stores which come while it
 * travels join it; the reply sends it (Nagle's rule, for pages).
 */
static void rf_ops_drain_locked(bool all)
{
	struct rf_slot *batch[R2NET_BATCH_MAX];
	struct rf_op *op, *tmp;
	unsigned int n = 0, i;
	unsigned long flags;
	LIST_HEAD(ops);

	lockdep_assert_held(&rf_op_mutex);
	spin_lock_irqsave(&rf_op_lock, flags);
	list_splice_init(&rf_op_list, &ops);
	spin_unlock_irqrestore(&rf_op_lock, flags);
	list_for_each_entry_safe(op, tmp, &ops, list) {
		/* Once in a batch sent, a store's slot may be done and reused. */
		bool store = op->store;

		list_del(&op->list);
		if (store) {
			batch[n++] = container_of(op, struct rf_slot, op);
			if (n < R2NET_BATCH_MAX)
				continue;
		}
		if (n) {
			rf_batch_send(batch, n);
			atomic_sub(n, &rf_ops_pending);
			n = 0;
		}
		if (!store) {
			rf_flush_send(container_of(op, struct rf_flush, op));
			kfree(container_of(op, struct rf_flush, op));
			atomic_dec(&rf_ops_pending);
		}
	}
	if (n && !all && atomic_read(&rf_batches_in_flight)) {
		/* Back to the head of the queue, in order: nothing follows. */
		spin_lock_irqsave(&rf_op_lock, flags);
		for (i = n; i--; )
			list_add(&batch[i]->op.list, &rf_op_list);
		spin_unlock_irqrestore(&rf_op_lock, flags);
		atomic64_add(n, &rf_stats.put_batch_waits);
		n = 0;
	}
	if (n) {
		rf_batch_send(batch, n);
		atomic_sub(n, &rf_ops_pending);
	}
}

static void __rf_ops_drain(bool all)
{
	/* A drainer still sending keeps the count up until it is done. */
	if (!atomic_read(&rf_ops_pending))
		return;
	mutex_lock(&rf_op_mutex);
	rf_ops_drain_locked(all);
	mutex_unlock(&rf_op_mutex);
}

static void rf_ops_drain(void)
{
	__rf_ops_drain(true);
}

/*
 * For the local tier (local.c): hand every op queued so far to r2net, and
 * hold back those queued from now on until rf_ops_release(), so that what
 * the caller sends in between goes after the first and before the others.
 */
void rf_ops_hold(void)
{
	mutex_lock(&rf_op_mutex);
	rf_ops_drain_locked(true);
}

void rf_ops_release(void)
{
	mutex_unlock(&rf_op_mutex);
	if (atomic_read(&rf_ops_pending))
		queue_work(rf_wq, &rf_ops_work);
}

/* May be called in atomic context. */
static void rf_op_queue(struct rf_op *op)
{
	unsigned long flags;

	atomic_inc(&rf_ops_pending);
	spin_lock_irqsave(&rf_op_lock, flags);
	list_add_tail(&op->list, &rf_op_list);
	spin_unlock_irqrestore(&rf_op_lock, flags);
	queue_work(rf_wq, &rf_ops_work);
}

static void rf_ops_work_fn(struct work_struct *work)
{
	__rf_ops_drain(false);
}

/* May be called in atomic context (with gfp GFP_ATOMIC). */
static void rf_flush_queue(int r, u16 msg, const struct tmem_handle *h,
			   gfp_t gfp)
{
	struct rf_flush *f = kmalloc(sizeof(*f), gfp | __GFP_NOWARN);

	if (!f) {
		atomic64_inc(&rf_stats.flushes_dropped);
		return;
	}
	f->op.store = false;
	f->r = r;
	f->msg = msg;
	f->h = *h;
	rf_op_queue(&f->op);
}

/* local.c: flush a page it sent to server r (process context). */
void rf_swap_flush(int r, const struct tmem_handle *h)
{
	rf_flush_queue(r, R2NET_MSG_TMEM_FLUSH_PAGE, h, GFP_NOIO);
}

/* ---- pools ---- */

static void rf_destroy_pool(int r, int pool)
{
	int ret;

	/* Flushes for this pool go first: its id may be given out again. */
	rf_ops_drain();
	ret = rf_tmem_destroy_pool(rf_node(r), pool,
				   &rf_stats.remote_in_flight);
	if (ret == 1) {
		atomic64_inc(&rf_stats.pools_destroyed);
		pr_info("pool %d on node %u destroyed\n", pool, rf_node(r));
	} else {
		pr_warn("pool %d on node %u: destroy failed (%d); the server frees it when this node goes\n",
			pool, rf_node(r), ret);
	}
}

/*
 * Does the server still have pool?  Its probe is an object frontswap
 * never uses (oid[1] is always 0 for it): 1, 0, or a negative errno.
 */
static int rf_pool_exists(int r, int pool)
{
	struct tmem_handle probe = { .pool_id = pool, .oid = { 0, 1, 0 } };

	return rf_tmem_pool_exists(rf_node(r), &probe,
				   &rf_stats.remote_in_flight);
}

/* Make or check replica r's pool of type; false to try again later. */
static bool rf_pool_fix(unsigned int type, int r)
{
	struct rf_type *t = &rf_types[type];
	int id;

	if (t->check[r] && t->pool_id[r] >= 0) {
		id = rf_pool_exists(r, t->pool_id[r]);
		if (id < 0)
			return false;
		t->check[r] = false;
		if (!id) {
			pr_warn("swap type %u: node %u no longer has pool %d (restarted?); making a new one\n",
				type, rf_node(r), t->pool_id[r]);
			WRITE_ONCE(t->pool_id[r], -1);
		}
	}
	if (t->pool_id[r] >= 0)
		return true;
	id = rf_tmem_new_pool(rf_node(r), true, NULL,
			      &rf_stats.remote_in_flight);
	if (id < 0) {
		/* -EOPNOTSUPP until the server loads its backend. */
		pr_info_ratelimited("swap type %u: no pool on node %u yet (%d); retrying\n",
				    type, rf_node(r), id);
		return false;
	}
	WRITE_ONCE(t->pool_id[r], id);
	atomic64_inc(&rf_stats.pools_created);
	/* Local pages may wait for it. */
	rf_local_kick();
	pr_info("swap type %u: persistent pool %d on node %u\n", type, id,
		rf_node(r));
	return true;
}

/* Create the pools of active swap types that have none, on each replica. */
static void rf_pool_work_fn(struct work_struct *work)
{
	bool retry = false;
	int type, r;

	mutex_lock(&rf_tmem_repair_mutex);
	mutex_lock(&rf_pool_mutex);
	for (r = 0; r < rf_replicas(); r++) {
		/* Not connected: the node-up event queues us again. */
		if (!r2net_node_connected(rf_node(r)))
			continue;
		for (type = 0; type < MAX_SWAPFILES; type++) {
			if (rf_types[type].active && !rf_pool_fix(type, r)) {
				retry = true;
				break;
			}
		}
	}
	mutex_unlock(&rf_pool_mutex);
	mutex_unlock(&rf_tmem_repair_mutex);
	if (retry)
		queue_delayed_work(rf_wq, &rf_pool_work,
				   msecs_to_jiffies(RF_POOL_RETRY_MS));
}

/* Replica r does not know pool (it restarted): make a new one. */
void rf_swap_pool_lost(unsigned int type, int r, int pool)
{
	if (cmpxchg(&rf_types[type].pool_id[r], pool, -1) == pool) {
		pr_warn("swap type %u: node %u no longer has pool %d; making a new one\n",
			type, rf_node(r), pool);
		mod_delayed_work(rf_wq, &rf_pool_work, 0);
	}
}

void rf_swap_node_up(u8 node)
{
	int type, r;

	rf_answered();
	/*
	 * Pools made before the connection went are kept if the server
	 * still has them (their pages come back); the work asks it, and
	 * replaces those it lost.  Until then a request to one that is gone
	 * gets -TMEM_ENODEV, and rf_swap_pool_lost() replaces it as well.
	 */
	mutex_lock(&rf_pool_mutex);
	for (r = 0; r < rf_replicas(); r++) {
		if (rf_node(r) != node)
			continue;
		for (type = 0; type < MAX_SWAPFILES; type++)
			rf_types[type].check[r] = rf_types[type].pool_id[r] >= 0;
	}
	mutex_unlock(&rf_pool_mutex);
	mod_delayed_work(rf_wq, &rf_pool_work, 0);
	rf_local_kick();
}

/* ---- frontswap ops ---- */

/* Called under frontswap's mutex at swapon, or when we register. */
static void rf_fs_init(unsigned int type)
{
	mutex_lock(&rf_pool_mutex);
	rf_types[type].active = true;
	mutex_unlock(&rf_pool_mutex);
	rf_local_type_init(type);
	spin_lock(&rf_trend_lock);
	memset(&rf_trends[type], 0, sizeof(rf_trends[type]));
	spin_unlock(&rf_trend_lock);
	mod_delayed_work(rf_wq, &rf_pool_work, 0);
}

/* May the server have stored a PUT that failed with err? */
static bool rf_put_maybe_stored(int err)
{
	return err == -ETIMEDOUT || err == -EINTR || err == -ECONNRESET;
}

/* Synchronous: returns once the server has answered (window=0, none). */
static int rf_store_sync(unsigned int type, int pool, struct tmem_handle *h,
			 struct page *page)
{
	const int r = 0;	/* the one server of modes none, writethrough */
	struct r2net_reply reply = { };
	struct rf_zput zp;
	ktime_t t0;
	int err;

	rf_zput_prepare(&zp, page, true);
	t0 = ktime_get();
	atomic64_inc(&rf_stats.remote_in_flight);
	err = rf_zput_send_sync(&zp, rf_node(r), h, &reply, rf_timeout_ms);
	atomic64_dec(&rf_stats.remote_in_flight);
	rf_zput_release(&zp);
	if (!err)
		rf_rtt_add(&rf_stats.put_rtt, t0);
	if (!err && reply.status == 1) {
		atomic64_inc(&rf_stats.remote_puts);
		return 0;
	}

	atomic64_inc(&rf_stats.remote_put_failures);
	if (rf_put_maybe_stored(err)) {
		/* The put may still be stored: flush it after itself. */
		rf_flush_queue(r, R2NET_MSG_TMEM_FLUSH_PAGE, h, GFP_NOIO);
		return err;
	}
	if (err)
		return err;
	if (reply.status == -TMEM_ENODEV)
		rf_swap_pool_lost(type, r, pool);
	return reply.status < 0 ? reply.status : -EPROTO;
}

static struct rf_slot *rf_slot_take(void)
{
	struct rf_slot *slot;

	spin_lock(&rf_slot_lock);
	slot = list_first_entry_or_null(&rf_slot_free, struct rf_slot, free);
	if (slot)
		list_del(&slot->free);
	spin_unlock(&rf_slot_lock);
	return slot;
}

static void rf_slot_give(struct rf_slot *slot)
{
	spin_lock(&rf_slot_lock);
	list_add(&slot->free, &rf_slot_free);
	spin_unlock(&rf_slot_lock);
	wake_up(&rf_slot_wait);
}

/* The reply to a windowed PUT (or its failure): the slot is done. */
static void rf_slot_done(struct rf_slot *slot, int err, s32 status)
{
	struct xarray *xa = &rf_entries[slot->type];
	bool stored = !err && status == 1;
	void *old;

	if (!err) {
		rf_answered();
		rf_rtt_add(&rf_stats.put_rtt, slot->sent);
	}
	if (stored)
		atomic64_inc(&rf_stats.remote_puts);
	else
		atomic64_inc(&rf_stats.remote_put_failures);

	xa_lock(xa);
	old = __xa_cmpxchg(xa, slot->offset, slot, stored ? NULL : RF_LOST,
			   GFP_ATOMIC | __GFP_NOWARN);
	/*
	 * Still the latest store of the offset: with a failed PUT the server
	 * may hold it or an older page there; flush that, before any later
	 * store can be queued (those replace the entry under this lock
	 * first).  If the entry could not become RF_LOST, the slot is at
	 * least gone from it, so no load reads it after it is reused.
	 */
	if (old == slot && !stored) {
		atomic64_inc(&rf_stats.window_lost);
		rf_flush_queue(0, R2NET_MSG_TMEM_FLUSH_PAGE, &slot->h,
			       GFP_ATOMIC);
	} else if (xa_is_err(old)) {
		__xa_erase(xa, slot->offset);
	}
	xa_unlock(xa);
	if (!err && status == -TMEM_ENODEV)
		rf_swap_pool_lost(slot->type, 0, slot->h.pool_id);

	atomic64_dec(&rf_stats.remote_in_flight);
	rf_slot_give(slot);
	rf_async_put();
}

static void rf_put_done(void *arg, int err, s32 status, const void *data,
			u32 len)
{
	rf_slot_done(arg, err, status);
}

/* The reply to a PUT_ZPAGES: a status for each of its slots. */
static void rf_batch_done(void *arg, int err, s32 status, const void *data,
			  u32 len)
{
	struct rf_batch *b = arg;
	s32 st[R2NET_BATCH_MAX];
	unsigned int i;

	err = rf_tmem_put_statuses(err, status, data, len, b->n, st);
	for (i = 0; i < b->n; i++)
		rf_slot_done(b->slot[i], err, err ? 0 : st[i]);
	mempool_free(b, rf_batch_pool);
	/* Stores held back for this one go now. */
	if (atomic_dec_and_test(&rf_batches_in_flight) &&
	    atomic_read(&rf_ops_pending))
		queue_work(rf_wq, &rf_ops_work);
}

/* Send n queued slots as one PUT_ZPAGES; each is done when it is answered. */
static void rf_batch_send(struct rf_slot **slot, unsigned int n)
{
	struct rf_batch *b = mempool_alloc(rf_batch_pool, GFP_NOIO);
	struct kvec head[2], ref[R2NET_BATCH_MAX];
	ktime_t now = ktime_get();
	unsigned int i, nref = 0;
	int err;

	b->n = n;
	r2net_tmem_batch_encode(&b->bw, n);
	for (i = 0; i < n; i++) {
		b->slot[i] = slot[i];
		slot[i]->sent = now;
		r2net_tmem_zpage_encode(&b->zw[i], &slot[i]->h, &slot[i]->z);
		/* The window's pages are not highmem (GFP_KERNEL). */
		if (slot[i]->z.enc == R2NET_ZPAGE_LZO)
			ref[nref++] = (struct kvec){ slot[i]->zbuf,
						     slot[i]->z.arg };
		else if (slot[i]->z.enc == R2NET_ZPAGE_RAW)
			ref[nref++] = (struct kvec){
				page_address(slot[i]->page), PAGE_SIZE };
	}
	head[0] = (struct kvec){ &b->bw, sizeof(b->bw) };
	head[1] = (struct kvec){ b->zw, n * sizeof(b->zw[0]) };
	atomic64_inc(&rf_stats.put_batches);
	atomic_inc(&rf_batches_in_flight);
	err = r2net_send_refs_async(rf_node(0), R2NET_MSG_TMEM_PUT_ZPAGES,
				    RF_KEY, head, 2, ref, nref, rf_timeout_ms,
				    rf_batch_done, b);
	if (err)
		rf_batch_done(b, err, 0, NULL, 0);
}

/* Through the window: returns once the PUT is handed to r2net. */
static int rf_store_window(unsigned int type, struct tmem_handle *h,
			   pgoff_t offset, struct page *page)
{
	struct xarray *xa = &rf_entries[type];
	struct rf_slot *slot = rf_slot_take();
	struct rf_zput zp;
	long left;
	int err;

	/*
	 * The disk has the page too: a store that finds every slot in
	 * flight waits a little, not for the server's timeout.  A client
	 * short of memory may not hear the server for a while, and the
	 * reclaim that waits here is what would give it memory back.
	 */
	if (!slot) {
		atomic64_inc(&rf_stats.window_waits);
		left = wait_event_timeout(rf_slot_wait,
					  (slot = rf_slot_take()) != NULL,
					  msecs_to_jiffies(READ_ONCE(rf_window_wait_ms)));
		if (!left && !slot) {
			atomic64_inc(&rf_stats.window_full);
			rf_no_answer();
			return -EBUSY;
		}
	}
	copy_highpage(slot->page, page);
	slot->type = type;
	slot->offset = offset;
	slot->h = *h;

	err = xa_err(xa_store(xa, offset, slot, GFP_NOIO | __GFP_NOWARN));
	if (err) {
		rf_slot_give(slot);
		return err;
	}
	if (rf_zpage_on()) {
		/* Compressed here; sent in a batch by rf_ops_drain(). */
		rf_zpage_pack(slot->page, slot->zbuf, &slot->z);
		atomic_inc(&rf_async_in_flight);
		atomic64_inc(&rf_stats.remote_in_flight);
		slot->op.store = true;
		rf_op_queue(&slot->op);
		return 0;
	}
	/* After the entry: a flush of an older PUT of offset goes first. */
	rf_ops_drain();

	rf_zput_prepare(&zp, slot->page, true);
	atomic_inc(&rf_async_in_flight);
	atomic64_inc(&rf_stats.remote_in_flight);
	slot->sent = ktime_get();
	err = rf_zput_send_async(&zp, rf_node(0), h, rf_timeout_ms,
				 rf_put_done, slot);
	rf_zput_release(&zp);
	if (err) {
		/* Not sent: frontswap writes the page to the disk alone. */
		atomic64_dec(&rf_stats.remote_in_flight);
		atomic64_inc(&rf_stats.remote_put_failures);
		xa_cmpxchg(xa, offset, slot, NULL, 0);
		rf_slot_give(slot);
		rf_async_put();
		return err;
	}
	return 0;
}

/* A PUT to one replica of a replicated store. */
struct rf_rep_part {
	struct rf_rep		*rep;
	unsigned int		type;
	int			r;
	int			pool;
	struct tmem_handle	h;
};

/* A replicated store: a PUT to each replica, and the wait for both. */
struct rf_rep {
	atomic_t		left;
	struct completion	done;
	ktime_t			sent;
	bool			stored[RF_MAX_REPLICAS];
	struct rf_rep_part	part[RF_MAX_REPLICAS];
};

static void rf_rep_done(void *arg, int err, s32 status, const void *data,
			u32 len)
{
	struct rf_rep_part *part = arg;
	struct rf_rep *rep = part->rep;

	if (!err)
		rf_rtt_add(&rf_stats.put_rtt, rep->sent);
	rep->stored[part->r] = !err && status == 1;
	if (!err && status == -TMEM_ENODEV)
		rf_swap_pool_lost(part->type, part->r, part->pool);
	if (!rep->stored[part->r] && rf_put_maybe_stored(err))
		rf_flush_queue(part->r, R2NET_MSG_TMEM_FLUSH_PAGE, &part->h,
			       GFP_ATOMIC);
	atomic64_dec(&rf_stats.remote_in_flight);
	if (atomic_dec_and_test(&rep->left))
		complete(&rep->done);
}

/*
 * Mode replicate: the page is accepted only when both servers hold it;
 * otherwise the one that took it flushes it, and the disk takes the page.
 */
static int rf_store_replicated(unsigned int type, pgoff_t offset,
			       struct page *page)
{
	struct rf_rep rep = { };
	struct rf_zput zp;
	int r, err, ret = 0;

	for (r = 0; r < RF_MAX_REPLICAS; r++) {
		rep.part[r].rep = &rep;
		rep.part[r].type = type;
		rep.part[r].r = r;
		rep.part[r].pool = READ_ONCE(rf_types[type].pool_id[r]);
		if (rep.part[r].pool < 0 ||
		    !rf_handle(&rep.part[r].h, rep.part[r].pool, type, offset)) {
			atomic64_inc(&rf_stats.stores_no_pool);
			return -ENODEV;
		}
	}
	/* Older pages of offset may be flushed: those go first. */
	rf_ops_drain();
	/* Compressed once, for both. */
	rf_zput_prepare(&zp, page, true);
	init_completion(&rep.done);
	atomic_set(&rep.left, RF_MAX_REPLICAS);
	rep.sent = ktime_get();
	for (r = 0; r < RF_MAX_REPLICAS; r++) {
		atomic64_inc(&rf_stats.remote_in_flight);
		err = rf_zput_send_async(&zp, rf_node(r), &rep.part[r].h,
					 rf_timeout_ms, rf_rep_done,
					 &rep.part[r]);
		if (err)
			rf_rep_done(&rep.part[r], err, 0, NULL, 0);
	}
	rf_zput_release(&zp);
	/* r2net completes each within the timeout. */
	wait_for_completion(&rep.done);

	for (r = 0; r < RF_MAX_REPLICAS; r++)
		if (!rep.stored[r])
			ret = -EIO;
	if (!ret) {
		atomic64_inc(&rf_stats.remote_puts);
		return 0;
	}
	atomic64_inc(&rf_stats.remote_put_failures);
	for (r = 0; r < RF_MAX_REPLICAS; r++)
		if (rep.stored[r])
			rf_flush_queue(r, R2NET_MSG_TMEM_FLUSH_PAGE,
				       &rep.part[r].h, GFP_NOIO);
	return ret;
}

static int rf_store(unsigned int type, pgoff_t offset, struct page *page)
{
	int pool = READ_ONCE(rf_types[type].pool_id[0]);
	struct tmem_handle h;

	if (rf_mode == RF_MODE_REPLICATE)
		return rf_store_replicated(type, offset, page);
	if (rf_server_quiet()) {
		atomic64_inc(&rf_stats.wt_quiet_stores);
		return -EBUSY;
	}
	if (pool < 0 || !rf_handle(&h, pool, type, offset)) {
		atomic64_inc(&rf_stats.stores_no_pool);
		return -ENODEV;
	}
	if (rf_slots)
		return rf_store_window(type, &h, offset, page);

	/* An older page of offset may be in flight or lost: not any more. */
	xa_erase(&rf_entries[type], offset);
	rf_ops_drain();
	return rf_store_sync(type, pool, &h, page);
}

/* After a store or a flush of offset went to r2net (or did not go). */
static void rf_forget_ahead(unsigned int type, pgoff_t offset)
{
	int pool = READ_ONCE(rf_types[type].pool_id[0]);
	struct tmem_handle h;

	if (rf_swap_prefetch && pool >= 0 && rf_handle(&h, pool, type, offset))
		rf_cc_pf_forget(RF_PF_SWAP(type), &h);
}

static int rf_fs_store(unsigned int type, pgoff_t offset, struct page *page)
{
	bool local = false;
	int ret;

	/* frontswap invalidated an older page of offset before this. */
	if (rf_memory_low()) {
		atomic64_inc(&rf_stats.stores_low_memory);
		ret = -ENOMEM;
	} else if (!rf_local_store(type, offset, page)) {
		/* Kept here until remotified (local.c). */
		local = true;
		ret = 0;
	} else {
		ret = rf_store(type, offset, page);
	}
	/* Whether the store went or not, what came before is old. */
	rf_forget_ahead(type, offset);
	if (rf_swap_prefetch)
		rf_swap_map_set(type, offset, !ret && !local);
	return ret;
}

/* A page that did not come back: see the top of the file. */
static int rf_fs_load_failed(void)
{
	return rf_mode == RF_MODE_WRITETHROUGH ? -ENOENT : -EIO;
}

/*
 * A page still in the window is copied from its slot; a lost one is a
 * miss.  Returns false when the server is to be asked.
 */
static bool rf_load_local(unsigned int type, pgoff_t offset,
			  struct page *page, int *err)
{
	struct xarray *xa = &rf_entries[type];
	void *entry;

	xa_lock(xa);
	entry = xa_load(xa, offset);
	if (entry && !xa_is_value(entry)) {
		copy_highpage(page, ((struct rf_slot *)entry)->page);
		xa_unlock(xa);
		atomic64_inc(&rf_stats.window_hits);
		*err = 0;
		return true;
	}
	xa_unlock(xa);
	if (entry == RF_LOST) {
		atomic64_inc(&rf_stats.lost_loads);
		*err = rf_fs_load_failed();
		return true;
	}
	return false;
}

/*
 * GET the page from replica r: 0, -EAGAIN when the network failed it (a
 * later try may get the page), or -ENOENT for a miss or another failure.
 */
static int rf_get(unsigned int type, int r, pgoff_t offset, struct page *page)
{
	int pool = READ_ONCE(rf_types[type].pool_id[r]);
	struct r2net_reply reply = { };
	struct tmem_handle want;
	ktime_t t0;
	int err, got;

	if (pool < 0 || !rf_handle(&want, pool, type, offset)) {
		atomic64_inc(&rf_stats.remote_get_failures);
		return -ENOENT;
	}
	reply.buf = mempool_alloc(rf_reply_pool, GFP_NOIO);
	reply.buf_len = RF_REPLY_MAX;

	atomic64_inc(&rf_stats.remote_gets);
	t0 = ktime_get();
	err = rf_tmem_sync(rf_node(r), rf_zpage_get_msg(), &want, &reply,
			   &rf_stats.remote_in_flight,
			   rf_mode == RF_MODE_WRITETHROUGH ?
			   READ_ONCE(rf_wt_load_ms) : READ_ONCE(rf_timeout_ms));
	if (err == -ETIMEDOUT && rf_mode == RF_MODE_WRITETHROUGH) {
		/* Not a failure: the short wait writethrough chose. */
		atomic64_inc(&rf_stats.wt_load_timeouts);
		rf_no_answer();
	} else if (err) {
		atomic64_inc(&rf_stats.remote_get_failures);
	}
	if (err) {
		mempool_free(reply.buf, rf_reply_pool);
		return err == -ENOTCONN || err == -ETIMEDOUT ||
		       err == -ECONNRESET ? -EAGAIN : -ENOENT;
	}
	rf_answered();
	rf_rtt_add(&rf_stats.get_rtt, t0);
	got = rf_tmem_get_result(reply.status, reply.len);
	if (!got) {
		atomic64_inc(&rf_stats.remote_get_misses);
		goto failed;
	}
	if (got == -ENODEV)
		rf_swap_pool_lost(type, r, pool);
	if (got < 0 || rf_zpage_unpack(reply.buf, reply.len, &want, page)) {
		atomic64_inc(&rf_stats.remote_get_failures);
		pr_warn_ratelimited("swap type %u offset %lu: bad reply from node %u (status %d, %u bytes)\n",
				    type, offset, rf_node(r), reply.status,
				    reply.len);
		goto failed;
	}
	mempool_free(reply.buf, rf_reply_pool);
	atomic64_inc(&rf_stats.remote_get_hits);
	return 0;

failed:
	mempool_free(reply.buf, rf_reply_pool);
	return -ENOENT;
}

/* The answer to a GET sent by rf_load_ahead(). */
static void rf_ahead_done(struct rf_pf_entry *e, int err, int got)
{
	/* A miss or a failure: the load asks again, the usual way. */
	if (!err)
		rf_answered();
	rf_cc_pf_fill(e, !err && got == 1);
	rf_async_put();
}

/*
 * Send the GETs of rf_load_ahead()'s entries; false if it should stop.
 * Stores still queued go first: a GET must not reach the server before
 * the store of its offset that the window already answers for, or it
 * would fetch ahead the older page.
 */
static bool rf_ahead_send(struct rf_pf_entry **e, unsigned int n)
{
	rf_ops_drain();
	atomic_add(n, &rf_async_in_flight);
	atomic64_add(n, &rf_stats.remote_gets);
	/* Not sent means not connected: asking for more would fail too. */
	return !rf_tmem_fetch(rf_node(0), e, n, rf_ahead_done);
}

/*
 * Are more than half of the next depth offsets along stride that the
 * target has here or on their way already?  Stops once they are.
 */
static bool rf_ahead_enough(unsigned int type, int pool, pgoff_t offset,
			    long stride, unsigned int depth)
{
	unsigned int k, n = 0, have = 0;
	struct tmem_handle h;
	pgoff_t next;

	for (k = 1; n < depth && k <= 4 * depth; k++) {
		next = offset + k * stride;
		if (!rf_swap_map_test(type, next) ||
		    !rf_handle(&h, pool, type, next))
			continue;
		n++;
		have += rf_cc_pf_has(RF_PF_SWAP(type), &h);
		if (2 * have > depth)
			return true;
	}
	return false;
}

/*
 * Keep depth pages along stride from offset fetched ahead: GET those of
 * the next offsets along it that the target has (swap_map.c) and that
 * are not here or on their way already, in batches.  Offsets it does not
 * have are skipped, up to 4 x depth steps.  As the kernel's readahead,
 * it tops up only once half of those pages are used: a load in order
 * then sends a GET of depth / 2 pages every depth / 2 loads, not one of
 * a page on each, and a frame's cost is shared by its pages.
 */
static void rf_fetch_ahead(unsigned int type, int pool, pgoff_t offset,
			   long stride, unsigned int depth)
{
	struct rf_pf_entry *e, *batch[R2NET_BATCH_MAX];
	const int key = RF_PF_SWAP(type);
	unsigned int k, n = 0, nb = 0;
	struct tmem_handle h;
	pgoff_t next;

	if (rf_ahead_enough(type, pool, offset, stride, depth))
		return;
	for (k = 1; n < depth && k <= 4 * depth; k++) {
		next = offset + k * stride;
		if (!rf_swap_map_test(type, next) ||
		    !rf_handle(&h, pool, type, next))
			continue;
		e = rf_cc_pf_reserve(key, 0, &h);
		if (e == ERR_PTR(-ENOSPC))
			break;
		n++;
		if (IS_ERR(e))
			continue;
		atomic64_inc(&rf_stats.swap_prefetches);
		if (stride != 1)
			atomic64_inc(&rf_stats.swap_prefetch_strided);
		batch[nb++] = e;
		if (nb < R2NET_BATCH_MAX)
			continue;
		nb = 0;
		atomic64_inc(&rf_stats.swap_prefetch_frames);
		if (!rf_ahead_send(batch, R2NET_BATCH_MAX))
			return;
	}
	if (nb) {
		atomic64_inc(&rf_stats.swap_prefetch_frames);
		rf_ahead_send(batch, nb);
	}
}

/*
 * Swap readahead's window (kernel patch 7): the kernel is about to load
 * these offsets, one after the other, in this order.  GET those the
 * server has and that are not here or on their way already: the first
 * alone, since the fault waits for it, the rest in frames behind it.
 * The loads then find them as they find pages fetched ahead.
 */
static void rf_fs_prefetch(unsigned int type, const pgoff_t *offsets,
			   unsigned int nr)
{
	int pool = READ_ONCE(rf_types[type].pool_id[0]);
	struct rf_pf_entry *e, *batch[R2NET_BATCH_MAX];
	const int key = RF_PF_SWAP(type);
	unsigned int i, nb = 0, first = 1;
	struct tmem_handle h;

	if (!rf_swap_prefetch || pool < 0 || rf_server_quiet())
		return;
	WRITE_ONCE(rf_types[type].ra_at, jiffies);
	atomic64_inc(&rf_stats.swap_ra_windows);
	for (i = 0; i < nr; i++) {
		if (!rf_swap_map_test(type, offsets[i]) ||
		    !rf_handle(&h, pool, type, offsets[i]))
			continue;
		e = rf_cc_pf_reserve(key, 0, &h);
		if (e == ERR_PTR(-ENOSPC))
			break;
		if (IS_ERR(e))
			continue;
		atomic64_inc(&rf_stats.swap_ra_gets);
		batch[nb++] = e;
		if (nb < first)
			continue;
		first = R2NET_BATCH_MAX;
		atomic64_inc(&rf_stats.swap_ra_frames);
		if (!rf_ahead_send(batch, nb))
			return;
		nb = 0;
	}
	if (nb) {
		atomic64_inc(&rf_stats.swap_ra_frames);
		rf_ahead_send(batch, nb);
	}
}

/*
 * Swap-in along a trend (trend.c: Leap's majority vote over the strides
 * of the last faults), or of a page fetched ahead.  offset's own GET goes
 * alone and first, unless it was fetched ahead, so that no page fetched
 * ahead delays it; then the pages ahead along the trend are topped up;
 * then the load waits for offset's page.  0: the page is in; -ETIMEDOUT:
 * no answer in wt_load_ms (writethrough), the disk serves; else ask the
 * usual way.
 */
static int rf_load_ahead(unsigned int type, pgoff_t offset, struct page *page)
{
	int pool = READ_ONCE(rf_types[type].pool_id[0]);
	const int key = RF_PF_SWAP(type);
	struct rf_trend *t = &rf_trends[type];
	unsigned int depth;
	struct rf_pf_entry *e;
	struct tmem_handle h;
	bool ahead, trend;
	long stride = 0;
	int err;

	if (pool < 0 || !rf_handle(&h, pool, type, offset))
		return -ENOENT;
	ahead = rf_cc_pf_ask(key, &h);
	spin_lock(&rf_trend_lock);
	rf_trend_fault(t, offset);
	rf_trend_hit(t, ahead, rf_swap_prefetch);
	trend = rf_trend_stride(t, &stride);
	depth = rf_trend_depth(t, rf_swap_prefetch);
	spin_unlock(&rf_trend_lock);
	if (!trend && !ahead)
		return -ENOENT;
	if (!ahead) {
		e = rf_cc_pf_reserve(key, 0, &h);
		if (IS_ERR(e))
			return -ENOENT;
		rf_cc_pf_ask(key, &h);
		/* Not sent (its entry failed): fetching ahead would fail too. */
		trend = trend && rf_ahead_send(&e, 1);
	}
	/*
	 * While the kernel reads ahead by address, its windows name the
	 * pages to come: offsets along a trend would mostly be more.
	 */
	if (trend && time_after(jiffies, READ_ONCE(rf_types[type].ra_at) + HZ))
		rf_fetch_ahead(type, pool, offset, stride, depth);
	rf_handle(&h, pool, type, offset);
	err = rf_cc_pf_take(key, 0, &h, page,
			    rf_mode == RF_MODE_WRITETHROUGH ?
			    msecs_to_jiffies(READ_ONCE(rf_wt_load_ms)) :
			    MAX_SCHEDULE_TIMEOUT);
	if (err == -ETIMEDOUT) {
		atomic64_inc(&rf_stats.wt_load_timeouts);
		rf_no_answer();
		return err;
	}
	if (err)
		return -ENOENT;
	atomic64_inc(&rf_stats.remote_get_hits);
	if (ahead)
		atomic64_inc(&rf_stats.swap_prefetch_hits);
	return 0;
}

/*
 * Modes none and replicate: after a load the network failed, wait for a
 * server to be connected (at most until deadline, in jiffies); false if
 * it is past, or the process is being killed.
 */
static bool rf_load_wait(unsigned long deadline)
{
	int r;

	while (time_before(jiffies, deadline)) {
		for (r = 0; r < rf_replicas(); r++)
			if (r2net_node_connected(rf_node(r)))
				return true;
		schedule_timeout_killable(msecs_to_jiffies(100));
		if (fatal_signal_pending(current))
			return false;
	}
	return false;
}

static int rf_fs_load(unsigned int type, pgoff_t offset, struct page *page)
{
	unsigned long deadline = 0;
	bool again;
	int r, err;

	err = rf_local_load(type, offset, page);
	if (err != -ENOENT)
		return err ? rf_fs_load_failed() : 0;
	if (rf_load_local(type, offset, page, &err))
		return err;
	if (rf_server_quiet()) {
		atomic64_inc(&rf_stats.wt_quiet_loads);
		return rf_fs_load_failed();
	}
	if (rf_swap_prefetch) {
		err = rf_load_ahead(type, offset, page);
		if (!err)
			return 0;
		if (err == -ETIMEDOUT)
			return rf_fs_load_failed();
	}
	for (;;) {
		again = false;
		for (r = 0; r < rf_replicas(); r++) {
			err = rf_get(type, r, offset, page);
			if (!err) {
				if (r)
					atomic64_inc(&rf_stats.replica_loads);
				return 0;
			}
			again |= err == -EAGAIN;
		}
		if (!again || rf_mode == RF_MODE_WRITETHROUGH)
			break;
		if (!deadline) {
			atomic64_inc(&rf_stats.load_waits);
			deadline = jiffies +
				   msecs_to_jiffies(READ_ONCE(rf_server_wait_ms));
		}
		if (!rf_load_wait(deadline)) {
			atomic64_inc(&rf_stats.load_wait_fails);
			break;
		}
	}
	return rf_fs_load_failed();
}

/* Called with the swap device's spinlock held: queue, do not send. */
static void rf_fs_invalidate_page(unsigned int type, pgoff_t offset)
{
	struct tmem_handle h;
	int pool, r;

	rf_local_invalidate(type, offset);
	xa_erase(&rf_entries[type], offset);
	for (r = 0; r < rf_replicas(); r++) {
		pool = READ_ONCE(rf_types[type].pool_id[r]);
		if (pool >= 0 && rf_handle(&h, pool, type, offset))
			rf_flush_queue(r, R2NET_MSG_TMEM_FLUSH_PAGE, &h,
				       GFP_ATOMIC);
	}
	rf_forget_ahead(type, offset);
	if (rf_swap_prefetch)
		rf_swap_map_set(type, offset, false);
}

/* swapoff: every page of the type is gone, and so is its pool. */
static void rf_fs_invalidate_area(unsigned int type)
{
	int pool[RF_MAX_REPLICAS], r;

	mutex_lock(&rf_pool_mutex);
	for (r = 0; r < RF_MAX_REPLICAS; r++) {
		pool[r] = rf_types[type].pool_id[r];
		WRITE_ONCE(rf_types[type].pool_id[r], -1);
	}
	rf_types[type].active = false;
	mutex_unlock(&rf_pool_mutex);
	rf_local_invalidate_area(type);
	for (r = 0; r < rf_replicas(); r++)
		if (pool[r] >= 0)
			rf_destroy_pool(r, pool[r]);
	/* Stores still in flight find their entries gone: that is fine. */
	xa_destroy(&rf_entries[type]);
	rf_swap_map_clear_all(type);
	if (rf_swap_prefetch)
		rf_cc_pf_forget_pool(RF_PF_SWAP(type));
}

static const struct frontswap_ops rf_frontswap_ops = {
	.init = rf_fs_init,
	.store = rf_fs_store,
	.load = rf_fs_load,
	.invalidate_page = rf_fs_invalidate_page,
	.invalidate_area = rf_fs_invalidate_area,
	.prefetch = rf_fs_prefetch,
};

/* ---- registration ---- */

/*
 * Let frontswap go, which it allows only while we hold no pages (after
 * swapoff).  The module holds a reference to itself while registered, so
 * it can be unloaded only after this succeeded.
 */
int rf_swap_unregister(void)
{
	int ret = 0;

	mutex_lock(&rf_reg_mutex);
	if (rf_registered) {
		ret = frontswap_unregister_ops(&rf_frontswap_ops);
		if (!ret) {
			rf_registered = false;
			frontswap_writethrough(false);
			module_put(THIS_MODULE);
			pr_info("frontswap backend unregistered\n");
		}
	}
	rf_unregister_result = ret;
	mutex_unlock(&rf_reg_mutex);
	return ret;
}

static int rf_unregister_set(void *data, u64 val)
{
	rf_swap_unregister();
	return 0;
}

static int rf_unregister_get(void *data, u64 *val)
{
	*val = (u64)(s64)rf_unregister_result;
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rf_unregister_fops, rf_unregister_get,
			 rf_unregister_set, "%lld\n");

static int rf_pools_show(struct seq_file *m, void *v)
{
	int type, pool, r;

	for (type = 0; type < MAX_SWAPFILES; type++) {
		for (r = 0; r < rf_replicas(); r++) {
			pool = READ_ONCE(rf_types[type].pool_id[r]);
			if (READ_ONCE(rf_types[type].active) || pool >= 0)
				seq_printf(m, "swap type %d pool %d node %u\n",
					   type, pool, rf_node(r));
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rf_pools);

void rf_swap_debugfs(struct dentry *dir)
{
	debugfs_create_file_unsafe("unregister", 0644, dir, NULL,
				   &rf_unregister_fops);
	debugfs_create_file("swap_pools", 0444, dir, NULL, &rf_pools_fops);
	rf_local_debugfs(dir);
}

static void rf_slots_free(void)
{
	unsigned int i;

	if (!rf_slots)
		return;
	for (i = 0; i < rf_window; i++) {
		if (rf_slots[i].page)
			__free_page(rf_slots[i].page);
		kfree(rf_slots[i].zbuf);
	}
	kfree(rf_slots);
	rf_slots = NULL;
	INIT_LIST_HEAD(&rf_slot_free);
	mempool_destroy(rf_batch_pool);
	rf_batch_pool = NULL;
}

/* The window's slots and their pages, taken now: stores need no memory. */
static int rf_slots_alloc(void)
{
	unsigned int i;

	if (!rf_window || rf_mode != RF_MODE_WRITETHROUGH)
		return 0;
	rf_slots = kcalloc(rf_window, sizeof(*rf_slots), GFP_KERNEL);
	if (!rf_slots)
		return -ENOMEM;
	rf_batch_pool = mempool_create_kmalloc_pool(RF_BATCHES,
						    sizeof(struct rf_batch));
	if (!rf_batch_pool)
		goto fail;
	for (i = 0; i < rf_window; i++) {
		rf_slots[i].page = alloc_page(GFP_KERNEL);
		if (!rf_slots[i].page)
			goto fail;
		if (rf_zpage_on()) {
			rf_slots[i].zbuf = kmalloc(PAGE_SIZE, GFP_KERNEL);
			if (!rf_slots[i].zbuf)
				goto fail;
		}
		list_add_tail(&rf_slots[i].free, &rf_slot_free);
	}
	return 0;

fail:
	rf_slots_free();
	return -ENOMEM;
}

static bool rf_any_active(void)
{
	bool any = false;
	int type;

	mutex_lock(&rf_pool_mutex);
	for (type = 0; type < MAX_SWAPFILES; type++)
		any |= rf_types[type].active;
	mutex_unlock(&rf_pool_mutex);
	return any;
}

int rf_swap_init(void)
{
	int type, ret, r;

	rf_answered();
	for (type = 0; type < MAX_SWAPFILES; type++) {
		for (r = 0; r < RF_MAX_REPLICAS; r++)
			rf_types[type].pool_id[r] = -1;
		xa_init(&rf_entries[type]);
	}
	rf_swap_map_init();

	rf_reply_pool = mempool_create_kmalloc_pool(RF_REPLY_BUFS,
						    RF_REPLY_MAX);
	if (!rf_reply_pool)
		return -ENOMEM;
	ret = rf_slots_alloc();
	if (ret)
		goto err_pool;
	rf_wq = alloc_workqueue("ramster_frontend", WQ_MEM_RECLAIM, 0);
	if (!rf_wq) {
		ret = -ENOMEM;
		goto err_slots;
	}
	ret = rf_local_init();
	if (ret)
		goto err_wq;
	ret = frontswap_writethrough(rf_mode == RF_MODE_WRITETHROUGH);
	if (ret) {
		pr_err("cannot set frontswap writethrough (pages stored under another mode?): %d\n",
		       ret);
		goto err_local;
	}
	ret = frontswap_register_ops(&rf_frontswap_ops);
	if (ret) {
		pr_err("the frontswap backend slot is taken (zswap enabled?): %d\n",
		       ret);
		goto err_writethrough;
	}
	/* Registering announced every active swap type to rf_fs_init(). */
	if (!rf_any_active()) {
		frontswap_unregister_ops(&rf_frontswap_ops);
		pr_err("frontswap=1 but no swap device is active: swapon one first, or load with frontswap=0\n");
		ret = -ENODEV;
		goto err_writethrough;
	}
	mutex_lock(&rf_reg_mutex);
	rf_registered = true;
	__module_get(THIS_MODULE);
	mutex_unlock(&rf_reg_mutex);
	return 0;

err_writethrough:
	frontswap_writethrough(false);
err_local:
	rf_local_exit();
err_wq:
	destroy_workqueue(rf_wq);
err_slots:
	rf_slots_free();
err_pool:
	mempool_destroy(rf_reply_pool);
	return ret;
}

/* Only once frontswap has let us go (or never had us). */
void rf_swap_exit(void)
{
	int type, r;

	cancel_delayed_work_sync(&rf_pool_work);
	/* Empty: frontswap invalidated every page before it let us go. */
	rf_local_exit();
	for (type = 0; type < MAX_SWAPFILES; type++) {
		for (r = 0; r < RF_MAX_REPLICAS; r++) {
			if (r < rf_replicas() && rf_types[type].pool_id[r] >= 0)
				rf_destroy_pool(r, rf_types[type].pool_id[r]);
			rf_types[type].pool_id[r] = -1;
		}
	}
	rf_ops_drain();
	cancel_work_sync(&rf_ops_work);
	rf_ops_drain();
	/* r2net calls rf_flush_done() once for each: wait for them all. */
	wait_event(rf_async_wait, !atomic_read(&rf_async_in_flight));
	destroy_workqueue(rf_wq);
	for (type = 0; type < MAX_SWAPFILES; type++) {
		xa_destroy(&rf_entries[type]);
		rf_swap_map_clear_all(type);
	}
	rf_slots_free();
	mempool_destroy(rf_reply_pool);
}
