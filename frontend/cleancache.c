// SPDX-License-Identifier: GPL-2.0
/*
 * cleancache.c - clean page-cache pages kept on a memory server.
 *
 * Each filesystem that opts in gets one of our pool slots; its pool on the
 * server is ephemeral (the server may drop any page) and private, or
 * shared by the filesystem's uuid when the filesystem asks for that and
 * the server lets this node join (else private).  A page's handle is
 * object {ino, generation, 0} and index page->index, as Xen's tmem.
 *
 * ->put_page() and ->invalidate_page() come with the mapping's i_pages
 * lock held and interrupts off, so they only queue: a put copies the page
 * into a free slot of the window (none free: the page is dropped, which an
 * ephemeral pool allows), an invalidation queues a flush.  A work item
 * hands the queue to r2net in order.  A get first hands over whatever is
 * queued itself, then asks the server: r2net keeps one connection in order
 * and the server runs its requests one at a time, so the server has seen
 * every earlier put and flush before it answers.  A get for a page that
 * cc_index.c says the server cannot have is a miss with no round trip.
 * A shared pool also holds other clients' pages, which the index does not
 * know: its gets all ask the server, and a put that cannot go flushes the
 * page whether or not this node put it.  A shared pool's file flush waits
 * for the server (rf_cc_flush_shared()): OCFS2 flushes a file it wrote
 * before another node may read it.
 *
 * Coherence when things fail: a flush that cannot be queued or sent, or a
 * connection that goes down, makes the pool stale.  A stale pool misses
 * every get and takes no put until the work has destroyed it on the
 * server and made a new, empty one.  Each pool has a generation, bumped
 * when it goes stale; a get that sees it change while it waited for the
 * server discards what came back.  A failed or timed-out get is a miss,
 * and stales the pool: the server may or may not have given the page up.
 */
#include <linux/cleancache.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uuid.h>
#include <linux/workqueue.h>

#include "r2net.h"
#include "ramster_frontend.h"
#include "tmem_client.h"
#include "zpage.h"

#define RF_CC_POOLS	16	/* filesystems at once */
#define RF_CC_OPS_MIN	64	/* queued flushes that need no allocation */

static_assert(PAGE_SIZE == TMEM_PAGE_SIZE, "cleancache moves 4 KiB pages");

/* One filesystem's pool.  Fields change under rf_cc_lock. */
struct rf_cc_pool {
	bool		used;
	bool		shared;		/* asked for a shared pool */
	bool		stale;		/* destroy and make anew */
	int		server_id;	/* the server's pool, or -1 */
	unsigned int	gen;		/* bumped when it goes stale */
	uuid_t		uuid;
};

/* A put waiting to be sent: the page is copied into a window slot. */
struct rf_cc_slot {
	struct list_head	free;
	struct page		*page;
};

/* A queued request, in order. */
struct rf_cc_op {
	struct list_head	list;
	u16			msg;	/* R2NET_MSG_TMEM_{PUT,FLUSH}_* */
	int			pool;	/* ours */
	struct tmem_handle	h;	/* h.pool_id: the server's */
	struct rf_cc_slot	*slot;	/* for a put */
	struct rf_zput		zp;	/* a put's zpage, in a batch */
};

/* A PUT_ZPAGES of queued puts: their ops and the head r2net copies. */
struct rf_cc_batch {
	unsigned int			n;
	struct rf_cc_op			*op[R2NET_BATCH_MAX];
	struct r2net_tmem_batch_le	bw;
	struct r2net_tmem_zpage_le	zw[R2NET_BATCH_MAX];
};

static struct rf_cc_pool rf_cc_pools[RF_CC_POOLS];
/* Each pool's last get, under rf_cc_mutex: is the reader going in order? */
static struct tmem_handle rf_cc_last[RF_CC_POOLS];
static DEFINE_SPINLOCK(rf_cc_lock);	/* pools, queue, free slots */
static LIST_HEAD(rf_cc_queue);
static struct rf_cc_slot *rf_cc_slots;
static LIST_HEAD(rf_cc_free);
static mempool_t *rf_cc_op_pool;
/* Held while the queue is handed to r2net and while pools change. */
static DEFINE_MUTEX(rf_cc_mutex);
static struct workqueue_struct *rf_cc_wq;
static void rf_cc_work_fn(struct work_struct *work);
static DECLARE_WORK(rf_cc_work, rf_cc_work_fn);
static void rf_cc_retry_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rf_cc_retry, rf_cc_retry_fn);
static bool rf_cc_up;			/* the target is connected */

static void rf_cc_handle(struct tmem_handle *h, u32 server_id,
			 const struct cleancache_filekey *key, pgoff_t index)
{
	h->pool_id = server_id;
	h->oid[0] = key->ino;
	h->oid[1] = key->generation;
	h->oid[2] = 0;
	h->index = index;
}

static bool rf_cc_pool_ok(int pool)
{
	return pool >= 0 && pool < RF_CC_POOLS;
}

/* Under rf_cc_lock: no gets hit and no puts go until it is made anew. */
static void rf_cc_make_stale(struct rf_cc_pool *p)
{
	if (!p->stale) {
		p->stale = true;
		p->gen++;
		rf_cc_index_del_pool(p - rf_cc_pools);
		rf_cc_pf_forget_pool(p - rf_cc_pools);
		atomic64_inc(&rf_stats.cc_pools_stale);
	}
}

static void rf_cc_stale(int pool)
{
	unsigned long flags;

	spin_lock_irqsave(&rf_cc_lock, flags);
	rf_cc_make_stale(&rf_cc_pools[pool]);
	spin_unlock_irqrestore(&rf_cc_lock, flags);
	queue_work(rf_cc_wq, &rf_cc_work);
}

static void rf_cc_slot_give(struct rf_cc_slot *slot)
{
	unsigned long flags;

	spin_lock_irqsave(&rf_cc_lock, flags);
	list_add(&slot->free, &rf_cc_free);
	spin_unlock_irqrestore(&rf_cc_lock, flags);
}

/* ---- sending the queue ---- */

static void rf_cc_done(void *arg, int err, s32 status, const void *data,
		       u32 len)
{
	struct rf_cc_op *op = arg;

	if (op->msg == R2NET_MSG_TMEM_PUT_PAGE) {
		/*
		 * A put the server did not take is a page it does not have,
		 * and one that got no answer most likely never left: out of
		 * the index, so that no get asks for it (see cc_index.c).
		 */
		if (!err && status == 1) {
			atomic64_inc(&rf_stats.cc_puts);
		} else {
			atomic64_inc(&rf_stats.cc_put_failures);
			rf_cc_index_del(op->pool, &op->h);
		}
		if (!err && status == -TMEM_ENODEV)
			rf_cc_stale(op->pool);
		rf_cc_slot_give(op->slot);
	} else if (!err && status >= 0) {
		atomic64_inc(&rf_stats.cc_flushes);
	} else {
		/* The server may still have what this was to remove. */
		atomic64_inc(&rf_stats.cc_flush_failures);
		rf_cc_stale(op->pool);
	}
	mempool_free(op, rf_cc_op_pool);
}

/* A put goes as a zpage; one that does not compress is not sent at all. */
static int rf_cc_send_put(struct rf_cc_op *op)
{
	struct rf_zput zp;
	int err;

	err = rf_zput_prepare(&zp, op->slot->page, false);
	if (err)
		return err;
	err = rf_zput_send_async(&zp, rf_target, &op->h, rf_timeout_ms,
				 rf_cc_done, op);
	rf_zput_release(&zp);
	return err;
}

static void rf_cc_send(struct rf_cc_op *op)
{
	int err;

	if (op->slot)
		err = rf_cc_send_put(op);
	else
		err = rf_tmem_async(rf_target, op->msg, &op->h, rf_cc_done,
				    op);
	if (err)
		rf_cc_done(op, err, 0, NULL, 0);
}

/* The reply to a PUT_ZPAGES: a status for each of its puts. */
static void rf_cc_batch_done(void *arg, int err, s32 status,
			     const void *data, u32 len)
{
	struct rf_cc_batch *b = arg;
	s32 st[R2NET_BATCH_MAX];
	unsigned int i;

	err = rf_tmem_put_statuses(err, status, data, len, b->n, st);
	for (i = 0; i < b->n; i++) {
		rf_zput_release(&b->op[i]->zp);
		rf_cc_done(b->op[i], err, err ? 0 : st[i], NULL, 0);
	}
	kfree(b);
}

/*
 * Consecutive puts as one PUT_ZPAGES: each compressed now, and kept until
 * the reply; one that does not compress is not sent at all.
 */
static void rf_cc_send_batch(struct rf_cc_op **ops, unsigned int n)
{
	struct kvec head[2], ref[R2NET_BATCH_MAX];
	struct rf_cc_batch *b;
	unsigned int i, nref = 0;
	int err;

	b = kmalloc(sizeof(*b), GFP_NOIO | __GFP_NOWARN);
	if (!b) {
		for (i = 0; i < n; i++)
			rf_cc_send(ops[i]);
		return;
	}
	b->n = 0;
	for (i = 0; i < n; i++) {
		err = rf_zput_prepare(&ops[i]->zp, ops[i]->slot->page, false);
		if (err) {
			rf_cc_done(ops[i], err, 0, NULL, 0);
			continue;
		}
		r2net_tmem_zpage_encode(&b->zw[b->n], &ops[i]->h,
					&ops[i]->zp.z);
		if (ops[i]->zp.z.enc == R2NET_ZPAGE_LZO)
			ref[nref++] = (struct kvec){ ops[i]->zp.buf,
						     ops[i]->zp.z.arg };
		b->op[b->n++] = ops[i];
	}
	if (!b->n) {
		kfree(b);
		return;
	}
	r2net_tmem_batch_encode(&b->bw, b->n);
	head[0] = (struct kvec){ &b->bw, sizeof(b->bw) };
	head[1] = (struct kvec){ b->zw, b->n * sizeof(b->zw[0]) };
	atomic64_inc(&rf_stats.cc_put_batches);
	err = r2net_send_refs_async(rf_target, R2NET_MSG_TMEM_PUT_ZPAGES,
				    RF_KEY, head, 2, ref, nref, rf_timeout_ms,
				    rf_cc_batch_done, b);
	if (err)
		rf_cc_batch_done(b, err, 0, NULL, 0);
}

/*
 * Hand every queued request to r2net, in order, consecutive puts in
 * batches (with zpages); under rf_cc_mutex.
 */
static void rf_cc_drain_locked(void)
{
	struct rf_cc_op *op, *tmp, *puts[R2NET_BATCH_MAX];
	unsigned int n = 0;
	unsigned long flags;
	LIST_HEAD(batch);

	spin_lock_irqsave(&rf_cc_lock, flags);
	list_splice_init(&rf_cc_queue, &batch);
	spin_unlock_irqrestore(&rf_cc_lock, flags);
	list_for_each_entry_safe(op, tmp, &batch, list) {
		/* Once in a batch sent, op may be done and freed. */
		bool put = op->slot && rf_zpage_on();

		list_del(&op->list);
		if (put) {
			puts[n++] = op;
			if (n < R2NET_BATCH_MAX)
				continue;
		}
		if (n) {
			rf_cc_send_batch(puts, n);
			n = 0;
		}
		if (!put)
			rf_cc_send(op);
	}
	if (n)
		rf_cc_send_batch(puts, n);
}

/* Queue op, taken from rf_cc_op_pool. */
static void rf_cc_queue_op(struct rf_cc_op *op)
{
	unsigned long flags;

	spin_lock_irqsave(&rf_cc_lock, flags);
	list_add_tail(&op->list, &rf_cc_queue);
	spin_unlock_irqrestore(&rf_cc_lock, flags);
	queue_work(rf_cc_wq, &rf_cc_work);
}

/* ---- pools on the server ---- */

/* Returns the server's pool id or a negative errno. */
static int rf_cc_new_pool(bool shared, const uuid_t *uuid)
{
	return rf_tmem_new_pool(rf_target, false, shared ? uuid : NULL, NULL);
}

static void rf_cc_destroy_pool(int server_id)
{
	/* Gone with the server, or freed when this node goes: either way. */
	rf_tmem_destroy_pool(rf_target, server_id, NULL);
}

/*
 * Make the server pools that are missing or stale; under rf_cc_mutex,
 * with the queue drained (so nothing queued for an old pool follows).
 * Once there is one to make, swap.c's repair waits (rf_tmem_repair_mutex).
 */
static bool rf_cc_pools_fix(void)
{
	struct rf_cc_pool *p;
	unsigned long flags;
	bool retry = false, locked = false;
	int i, old, id;

	if (!r2net_node_connected(rf_target))
		return false;	/* the node-up event queues the work again */
	for (i = 0; i < RF_CC_POOLS; i++) {
		p = &rf_cc_pools[i];
		spin_lock_irqsave(&rf_cc_lock, flags);
		if (!p->used || (p->server_id >= 0 && !p->stale)) {
			spin_unlock_irqrestore(&rf_cc_lock, flags);
			continue;
		}
		old = p->stale ? p->server_id : -1;
		spin_unlock_irqrestore(&rf_cc_lock, flags);

		if (!locked) {
			mutex_lock(&rf_tmem_repair_mutex);
			locked = true;
		}
		if (old >= 0)
			rf_cc_destroy_pool(old);
		id = rf_cc_new_pool(p->shared, &p->uuid);
		if (id < 0 && p->shared && id != -ENOTCONN &&
		    id != -ETIMEDOUT && id != -EOPNOTSUPP) {
			pr_info("filesystem pool %d: node %u refused a shared pool (%d); using a private one\n",
				i, rf_target, id);
			p->shared = false;
			id = rf_cc_new_pool(false, NULL);
		}
		spin_lock_irqsave(&rf_cc_lock, flags);
		if (id >= 0) {
			p->server_id = id;
			p->stale = false;
			atomic64_inc(&rf_stats.cc_pools_created);
		} else {
			p->server_id = -1;
			retry = true;
		}
		spin_unlock_irqrestore(&rf_cc_lock, flags);
	}
	if (locked)
		mutex_unlock(&rf_tmem_repair_mutex);
	return retry;
}

static void rf_cc_retry_fn(struct work_struct *work)
{
	queue_work(rf_cc_wq, &rf_cc_work);
}

static void rf_cc_work_fn(struct work_struct *work)
{
	bool retry;

	mutex_lock(&rf_cc_mutex);
	rf_cc_drain_locked();
	retry = rf_cc_pools_fix();
	mutex_unlock(&rf_cc_mutex);
	if (retry)
		mod_delayed_work(rf_cc_wq, &rf_cc_retry,
				 msecs_to_jiffies(1000));
}

/* The connection went: what was queued on it may not have arrived. */
void rf_cc_node_down(void)
{
	unsigned long flags;
	int i;

	WRITE_ONCE(rf_cc_up, false);
	spin_lock_irqsave(&rf_cc_lock, flags);
	for (i = 0; i < RF_CC_POOLS; i++)
		if (rf_cc_pools[i].used && rf_cc_pools[i].server_id >= 0)
			rf_cc_make_stale(&rf_cc_pools[i]);
	spin_unlock_irqrestore(&rf_cc_lock, flags);
}

void rf_cc_node_up(void)
{
	WRITE_ONCE(rf_cc_up, true);
	queue_work(rf_cc_wq, &rf_cc_work);
}

/* ---- cleancache ops ---- */

static int rf_cc_add_pool(bool shared, const uuid_t *uuid)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&rf_cc_lock, flags);
	for (i = 0; i < RF_CC_POOLS; i++) {
		if (rf_cc_pools[i].used)
			continue;
		rf_cc_pools[i] = (struct rf_cc_pool) {
			.used = true,
			.shared = shared,
			.server_id = -1,
			.gen = rf_cc_pools[i].gen + 1,
		};
		if (uuid)
			uuid_copy(&rf_cc_pools[i].uuid, uuid);
		break;
	}
	spin_unlock_irqrestore(&rf_cc_lock, flags);
	if (i == RF_CC_POOLS) {
		pr_warn("no room for another filesystem's pool (%d in use)\n",
			RF_CC_POOLS);
		return -ENOSPC;
	}
	/* Its server pool comes from the work, once the server is there. */
	queue_work(rf_cc_wq, &rf_cc_work);
	return i;
}

static int rf_cc_init_fs(size_t pagesize)
{
	if (pagesize != PAGE_SIZE)
		return -EINVAL;
	return rf_cc_add_pool(false, NULL);
}

static int rf_cc_init_shared_fs(uuid_t *uuid, size_t pagesize)
{
	if (pagesize != PAGE_SIZE)
		return -EINVAL;
	return rf_cc_add_pool(!uuid_is_null(uuid), uuid);
}

/* The server's id of a usable pool, or -1; its generation; if shared. */
static int rf_cc_server_id(int pool, unsigned int *gen, bool *shared)
{
	struct rf_cc_pool *p = &rf_cc_pools[pool];
	unsigned long flags;
	int id = -1;

	spin_lock_irqsave(&rf_cc_lock, flags);
	if (p->used && !p->stale)
		id = p->server_id;
	if (gen)
		*gen = p->gen;
	if (shared)
		*shared = p->shared;
	spin_unlock_irqrestore(&rf_cc_lock, flags);
	return id;
}

/* ---- gets ---- */

/* The answer to a GET sent ahead (or for the page asked for). */
static void rf_cc_fetch_done(struct rf_pf_entry *e, int err, int got)
{
	int pool;

	rf_cc_pf_handle(e, &pool);
	if (err) {
		atomic64_inc(&rf_stats.cc_get_failures);
		rf_cc_stale(pool);
		rf_cc_pf_fill(e, false);
		return;
	}
	/* A miss: the entry left the index when its GET was sent. */
	if (!got) {
		rf_cc_pf_fill(e, false);
		return;
	}
	if (got == -ENODEV)
		rf_cc_stale(pool);
	if (got < 0) {
		atomic64_inc(&rf_stats.cc_get_failures);
		rf_cc_pf_fill(e, false);
		return;
	}
	rf_cc_pf_fill(e, true);
}

/* Under rf_cc_mutex, with the queue drained: one batch of GETs. */
static void rf_cc_fetch(struct rf_pf_entry **e, unsigned int n)
{
	atomic64_add(n, &rf_stats.cc_gets);
	atomic64_inc(&rf_stats.cc_get_frames);
	rf_tmem_fetch(rf_target, e, n, rf_cc_fetch_done);
}

/*
 * Are more than half of cc_prefetch pages after index, up to last, here
 * or on their way?  Stops once they are.
 */
static bool rf_cc_enough(int pool, int id,
			 const struct cleancache_filekey *key, pgoff_t index,
			 u64 last)
{
	struct tmem_handle h;
	unsigned int have = 0;
	u64 i;

	for (i = (u64)index + 1; i <= last; i++) {
		rf_cc_handle(&h, id, key, i);
		have += rf_cc_pf_has(pool, &h);
		if (2 * have > rf_cc_prefetch)
			return true;
	}
	return false;
}

/*
 * A private pool's get: ask for the page and, if the reader goes in order
 * (this page was fetched ahead, or follows the pool's last get), for the
 * next cc_prefetch pages the index has, without waiting; then wait for
 * the page.  As the kernel's readahead, a reader in order tops those up
 * only once half of them are used, so that a GET frame carries some
 * cc_prefetch / 2 pages, not one.  0: a hit, -1: a miss, -EAGAIN: no
 * entry was free, ask the slow way.
 */
static int rf_cc_get_ahead(int pool, int id, unsigned int gen,
			   const struct cleancache_filekey *key, pgoff_t index,
			   struct page *page)
{
	struct rf_pf_entry *e, *batch[R2NET_BATCH_MAX];
	struct tmem_handle h;
	bool drained = false;
	unsigned int nb = 0;
	bool ahead;
	u64 i, last;
	int ret;

	rf_cc_handle(&h, id, key, index);
	ahead = rf_cc_pf_ask(pool, &h);
	if (!ahead && !rf_cc_index_has(pool, &h)) {
		atomic64_inc(&rf_stats.cc_get_misses);
		atomic64_inc(&rf_stats.cc_get_index_misses);
		return -1;
	}
	mutex_lock(&rf_cc_mutex);
	last = index;
	if (ahead || (!memcmp(rf_cc_last[pool].oid, h.oid, sizeof(h.oid)) &&
		      rf_cc_last[pool].index + 1 == index))
		last = min_t(u64, (u64)index + rf_cc_prefetch, U32_MAX);
	rf_cc_last[pool] = h;
	if (ahead && rf_cc_enough(pool, id, key, index, last))
		last = index;
	for (i = index; i <= last; i++) {
		rf_cc_handle(&h, id, key, i);
		if (!rf_cc_index_has(pool, &h))
			continue;
		e = rf_cc_pf_reserve(pool, gen, &h);
		if (e == ERR_PTR(-ENOSPC))
			break;
		if (IS_ERR(e))
			continue;
		if (i == index)
			rf_cc_pf_ask(pool, &h);
		/* The server gives it up to this GET: exclusive. */
		rf_cc_index_del(pool, &h);
		if (!drained) {
			/* Everything queued before reaches the server first. */
			rf_cc_drain_locked();
			drained = true;
		}
		if (i != index)
			atomic64_inc(&rf_stats.cc_prefetches);
		batch[nb++] = e;
		if (nb == R2NET_BATCH_MAX) {
			rf_cc_fetch(batch, nb);
			nb = 0;
		}
	}
	if (nb)
		rf_cc_fetch(batch, nb);
	mutex_unlock(&rf_cc_mutex);

	rf_cc_handle(&h, id, key, index);
	ret = rf_cc_pf_take(pool, gen, &h, page, MAX_SCHEDULE_TIMEOUT);
	if (ret == 0) {
		atomic64_inc(&rf_stats.cc_get_hits);
		if (ahead)
			atomic64_inc(&rf_stats.cc_prefetch_hits);
		return 0;
	}
	if (ret == -ESTALE) {
		atomic64_inc(&rf_stats.cc_get_discarded);
		return -1;
	}
	if (!ahead && rf_cc_index_has(pool, &h))
		return -EAGAIN;
	atomic64_inc(&rf_stats.cc_get_misses);
	return -1;
}

static int rf_cc_get_page(int pool, const struct cleancache_filekey *key,
			  pgoff_t index, struct page *page)
{
	struct r2net_reply reply = { };
	struct tmem_handle want;
	unsigned int gen, gen2;
	bool shared;
	int id, err, got, ret = -1;

	if (!rf_cc_pool_ok(pool) || index > U32_MAX)
		return -1;
	id = rf_cc_server_id(pool, &gen, &shared);
	if (id < 0) {
		atomic64_inc(&rf_stats.cc_get_misses);
		return -1;
	}
	if (!shared && rf_cc_prefetch) {
		ret = rf_cc_get_ahead(pool, id, gen, key, index, page);
		if (ret != -EAGAIN)
			return ret;
		ret = -1;
	}
	rf_cc_handle(&want, id, key, index);
	/* Other clients put pages in a shared pool: only the server knows. */
	if (!shared && !rf_cc_index_has(pool, &want)) {
		atomic64_inc(&rf_stats.cc_get_misses);
		atomic64_inc(&rf_stats.cc_get_index_misses);
		return -1;
	}
	/* Everything queued before this get reaches the server first. */
	mutex_lock(&rf_cc_mutex);
	rf_cc_drain_locked();
	mutex_unlock(&rf_cc_mutex);
	reply.buf = kmalloc(RF_REPLY_MAX, GFP_NOIO | __GFP_NOWARN);
	if (!reply.buf) {
		atomic64_inc(&rf_stats.cc_get_failures);
		return -1;
	}
	reply.buf_len = RF_REPLY_MAX;
	atomic64_inc(&rf_stats.cc_gets);
	atomic64_inc(&rf_stats.cc_get_frames);
	err = rf_tmem_sync(rf_target, rf_zpage_get_msg(), &want, &reply, NULL,
			   rf_timeout_ms);
	if (err) {
		atomic64_inc(&rf_stats.cc_get_failures);
		rf_cc_stale(pool);
		goto out;
	}
	got = rf_tmem_get_result(reply.status, reply.len);
	if (!got) {
		rf_cc_index_del(pool, &want);
		atomic64_inc(&rf_stats.cc_get_misses);
		goto out;
	}
	if (got == -ENODEV)
		rf_cc_stale(pool);
	if (got < 0) {
		atomic64_inc(&rf_stats.cc_get_failures);
		goto out;
	}
	/* A private pool's get took the page off the server. */
	if (!shared)
		rf_cc_index_del(pool, &want);
	/* The pool went stale meanwhile: this may be older than a flush. */
	if (rf_cc_server_id(pool, &gen2, NULL) != id || gen2 != gen) {
		atomic64_inc(&rf_stats.cc_get_discarded);
		goto out;
	}
	/* A bad reply leaves the page for the filesystem to read. */
	if (rf_zpage_unpack(reply.buf, reply.len, &want, page)) {
		atomic64_inc(&rf_stats.cc_get_failures);
		goto out;
	}
	atomic64_inc(&rf_stats.cc_get_hits);
	ret = 0;
out:
	kfree(reply.buf);
	return ret;
}

/*
 * i_pages lock held, interrupts off: only queue.  A put that cannot go
 * must not leave an older copy of the page on the server: the page may
 * have been written over without being read, and the index may still
 * hold its earlier put.  So a dropped put becomes a flush of the page,
 * or, with no request to spare, makes the pool stale.
 */
static void rf_cc_put_page(int pool, const struct cleancache_filekey *key,
			   pgoff_t index, struct page *page)
{
	struct rf_cc_slot *slot;
	struct tmem_handle h;
	struct rf_cc_op *op;
	unsigned long flags;
	bool shared;
	int id;

	if (!rf_cc_pool_ok(pool) || index > U32_MAX)
		return;
	/* Not r2net_node_connected(): its lock is not for irqs-off. */
	id = rf_cc_server_id(pool, NULL, &shared);
	if (id < 0 || !READ_ONCE(rf_cc_up)) {
		/* The pool is stale or has no pages on the server. */
		atomic64_inc(&rf_stats.cc_puts_dropped);
		return;
	}
	rf_cc_handle(&h, id, key, index);
	op = mempool_alloc(rf_cc_op_pool, GFP_ATOMIC | __GFP_NOWARN);
	if (!op) {
		atomic64_inc(&rf_stats.cc_puts_dropped);
		if (shared || rf_cc_index_has(pool, &h))
			rf_cc_stale(pool);
		goto forget;
	}
	op->pool = pool;
	op->h = h;
	/* Short of memory, the put is dropped: see rf_memory_low(). */
	slot = NULL;
	if (!rf_memory_low()) {
		spin_lock_irqsave(&rf_cc_lock, flags);
		slot = list_first_entry_or_null(&rf_cc_free,
						struct rf_cc_slot, free);
		if (slot)
			list_del(&slot->free);
		spin_unlock_irqrestore(&rf_cc_lock, flags);
	}
	/* In the index before the server can have it. */
	if (slot && rf_cc_index_add(pool, &h)) {
		rf_cc_slot_give(slot);
		slot = NULL;
	}
	if (!slot) {
		atomic64_inc(&rf_stats.cc_puts_dropped);
		/* Another client may have put an older copy in a shared pool. */
		if (!shared && !rf_cc_index_has(pool, &h)) {
			mempool_free(op, rf_cc_op_pool);
			goto forget;
		}
		rf_cc_index_del(pool, &h);
		op->msg = R2NET_MSG_TMEM_FLUSH_PAGE;
		op->slot = NULL;
		rf_cc_queue_op(op);
		goto forget;
	}
	copy_highpage(slot->page, page);
	op->msg = R2NET_MSG_TMEM_PUT_PAGE;
	op->slot = slot;
	rf_cc_queue_op(op);
forget:
	/* After the queueing: see cc_prefetch.c. */
	rf_cc_pf_forget(pool, &h);
}

/* A flush; if it cannot be queued, the whole pool goes stale instead. */
static void rf_cc_flush(int pool, u16 msg,
			const struct cleancache_filekey *key, pgoff_t index,
			gfp_t gfp)
{
	struct tmem_handle h;
	struct rf_cc_op *op;
	int id;

	if (!rf_cc_pool_ok(pool))
		return;
	id = rf_cc_server_id(pool, NULL, NULL);
	if (id < 0)
		return;		/* no pages there, or all to be destroyed */
	if (index > U32_MAX) {
		/* Never put, so nothing to flush. */
		return;
	}
	op = mempool_alloc(rf_cc_op_pool, gfp | __GFP_NOWARN);
	if (!op) {
		rf_cc_stale(pool);
		return;
	}
	op->msg = msg;
	op->pool = pool;
	op->slot = NULL;
	rf_cc_handle(&op->h, id, key, index);
	rf_cc_handle(&h, id, key, index);
	if (msg == R2NET_MSG_TMEM_FLUSH_PAGE)
		rf_cc_index_del(pool, &h);
	else
		rf_cc_index_del_object(pool, &h);
	rf_cc_queue_op(op);
	/* After the queueing: see cc_prefetch.c. */
	if (msg == R2NET_MSG_TMEM_FLUSH_PAGE)
		rf_cc_pf_forget(pool, &h);
	else
		rf_cc_pf_forget_object(pool, &h);
}

static void rf_cc_invalidate_page(int pool,
				  const struct cleancache_filekey *key,
				  pgoff_t index)
{
	rf_cc_flush(pool, R2NET_MSG_TMEM_FLUSH_PAGE, key, index, GFP_ATOMIC);
}

/*
 * How long a shared pool's file flush waits once the link is down: the
 * idle timeout, after which the server has taken this node for gone and
 * emptied the shared pools it is in, and this much for the emptying.
 */
#define RF_CC_SHARED_EMPTY_MS	2000

/*
 * A shared pool's file.  Once this returns another node may read it from
 * the pool (ocfs2 hands the file's lock on), so the flush is on the server
 * first: what was queued goes before it, and the server answers requests
 * in order.  The server's pool id serves even when the pool is stale: the
 * server names it for this node until the repair leaves it, and the
 * repair's new id names the same pool.  With the link down, no flush can
 * go; the server then takes this node for gone within its idle timeout
 * and empties every shared pool the node is in, so this waits that long
 * from when it went down, and returns.  With the link up but no answer,
 * it tries again, until twice that has passed since it began.
 */
static void rf_cc_flush_shared(int pool, const struct cleancache_filekey *key)
{
	unsigned int idle = r2net_idle_timeout_ms() + RF_CC_SHARED_EMPTY_MS;
	unsigned long start = jiffies, down_since = 0;
	struct rf_cc_pool *p = &rf_cc_pools[pool];
	struct r2net_reply reply = { };
	struct tmem_handle h, h0;
	unsigned long flags;
	bool waited = false;
	int id, id0, err;

	id0 = rf_cc_server_id(pool, NULL, NULL);
	if (id0 >= 0) {
		rf_cc_handle(&h0, id0, key, 0);
		rf_cc_index_del_object(pool, &h0);
	}
	for (;;) {
		spin_lock_irqsave(&rf_cc_lock, flags);
		id = p->used ? p->server_id : -1;
		spin_unlock_irqrestore(&rf_cc_lock, flags);
		if (id < 0)
			break;	/* never made, or left: nothing of ours there */
		if (r2net_node_connected(rf_target)) {
			down_since = 0;
			rf_cc_handle(&h, id, key, 0);
			mutex_lock(&rf_cc_mutex);
			rf_cc_drain_locked();
			mutex_unlock(&rf_cc_mutex);
			err = rf_tmem_sync(rf_target, R2NET_MSG_TMEM_FLUSH_OBJECT,
					   &h, &reply, NULL, rf_timeout_ms);
			/* Any answer: flushed, or no such pool there. */
			if (!err)
				break;
			rf_cc_stale(pool);
			/* Up but not answering: the down wait does not apply. */
			if (time_after(jiffies,
				       start + msecs_to_jiffies(2 * idle))) {
				atomic64_inc(&rf_stats.cc_shared_flush_gave_up);
				pr_warn_ratelimited("shared pool %d: node %u did not answer a file's flush in %u ms; another node may read its old pages\n",
						    id, rf_target, 2 * idle);
				break;
			}
		} else if (!down_since) {
			down_since = jiffies;
		} else if (time_after(jiffies,
				      down_since + msecs_to_jiffies(idle))) {
			break;
		}
		waited = true;
		msleep(100);
	}
	atomic64_inc(&rf_stats.cc_shared_flushes);
	if (waited)
		atomic64_inc(&rf_stats.cc_shared_flush_waits);
	if (id0 >= 0)
		rf_cc_pf_forget_object(pool, &h0);
}

/* May sleep; a shared pool's returns only once the server flushed it. */
static void rf_cc_invalidate_inode(int pool,
				   const struct cleancache_filekey *key)
{
	bool shared = false;

	if (rf_cc_pool_ok(pool))
		rf_cc_server_id(pool, NULL, &shared);
	if (shared)
		rf_cc_flush_shared(pool, key);
	else
		rf_cc_flush(pool, R2NET_MSG_TMEM_FLUSH_OBJECT, key, 0,
			    GFP_NOIO);
}

/* Unmount: the pool goes, on the server too. */
static void rf_cc_invalidate_fs(int pool)
{
	struct rf_cc_pool *p;
	unsigned long flags;
	int id;

	if (!rf_cc_pool_ok(pool))
		return;
	p = &rf_cc_pools[pool];
	mutex_lock(&rf_cc_mutex);
	rf_cc_drain_locked();
	spin_lock_irqsave(&rf_cc_lock, flags);
	id = p->server_id;
	p->used = false;
	p->stale = false;
	p->server_id = -1;
	p->gen++;
	spin_unlock_irqrestore(&rf_cc_lock, flags);
	rf_cc_index_del_pool(pool);
	rf_cc_pf_forget_pool(pool);
	if (id >= 0) {
		rf_cc_destroy_pool(id);
		atomic64_inc(&rf_stats.cc_pools_destroyed);
	}
	mutex_unlock(&rf_cc_mutex);
}

static const struct cleancache_ops rf_cleancache_ops = {
	.owner = THIS_MODULE,
	.init_fs = rf_cc_init_fs,
	.init_shared_fs = rf_cc_init_shared_fs,
	.get_page = rf_cc_get_page,
	.put_page = rf_cc_put_page,
	.invalidate_page = rf_cc_invalidate_page,
	.invalidate_inode = rf_cc_invalidate_inode,
	.invalidate_fs = rf_cc_invalidate_fs,
};

/* ---- debugfs, init ---- */

static int rf_cc_pools_show(struct seq_file *m, void *v)
{
	unsigned long flags;
	struct rf_cc_pool p;
	int i;

	for (i = 0; i < RF_CC_POOLS; i++) {
		spin_lock_irqsave(&rf_cc_lock, flags);
		p = rf_cc_pools[i];
		spin_unlock_irqrestore(&rf_cc_lock, flags);
		if (p.used)
			seq_printf(m, "fs pool %d server pool %d %s%s\n", i,
				   p.server_id, p.shared ? "shared" : "private",
				   p.stale ? " stale" : "");
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rf_cc_pools);

void rf_cc_debugfs(struct dentry *dir)
{
	debugfs_create_file("cleancache_pools", 0444, dir, NULL,
			    &rf_cc_pools_fops);
}

static void rf_cc_slots_free(void)
{
	unsigned int i;

	if (!rf_cc_slots)
		return;
	for (i = 0; i < rf_cc_window; i++)
		if (rf_cc_slots[i].page)
			__free_page(rf_cc_slots[i].page);
	kfree(rf_cc_slots);
	rf_cc_slots = NULL;
}

/*
 * cleancache keeps its backend for good (filesystems hold our pool ids),
 * so once this succeeds the module stays loaded.
 */
int rf_cc_init(void)
{
	unsigned int i;
	int ret;

	ret = rf_cc_index_init();
	if (ret)
		return ret;
	rf_cc_op_pool = mempool_create_kmalloc_pool(RF_CC_OPS_MIN,
						    sizeof(struct rf_cc_op));
	if (!rf_cc_op_pool) {
		ret = -ENOMEM;
		goto err_index;
	}
	rf_cc_slots = kcalloc(rf_cc_window, sizeof(*rf_cc_slots), GFP_KERNEL);
	if (!rf_cc_slots) {
		ret = -ENOMEM;
		goto err_ops;
	}
	for (i = 0; i < rf_cc_window; i++) {
		rf_cc_slots[i].page = alloc_page(GFP_KERNEL);
		if (!rf_cc_slots[i].page) {
			ret = -ENOMEM;
			goto err_slots;
		}
		list_add_tail(&rf_cc_slots[i].free, &rf_cc_free);
	}
	rf_cc_wq = alloc_ordered_workqueue("ramster_cleancache",
					   WQ_MEM_RECLAIM);
	if (!rf_cc_wq) {
		ret = -ENOMEM;
		goto err_slots;
	}
	ret = cleancache_register_ops(&rf_cleancache_ops);
	if (ret) {
		pr_err("the cleancache backend slot is taken: %d\n", ret);
		goto err_wq;
	}
	return 0;

err_wq:
	destroy_workqueue(rf_cc_wq);
err_slots:
	rf_cc_slots_free();
	INIT_LIST_HEAD(&rf_cc_free);
err_ops:
	mempool_destroy(rf_cc_op_pool);
err_index:
	rf_cc_index_exit();
	return ret;
}
