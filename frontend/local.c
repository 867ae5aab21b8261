// SPDX-License-Identifier: GPL-2.0
/*
 * local.c - RAMster's local tier: swap pages kept compressed on the client
 * first, and sent to the memory server later, coldest first, in batches.
 *
 * RAMster V5 did the same with zcache: "When a page is put to RAMster, it
 * is compressed and stored locally.  Periodically, a thread will remotify
 * these pages".  The pool is the memory server's own store (tmem.c,
 * zcache.c and xvmalloc.c, built in by store_*.c): LZO in xvmalloc, a
 * same-filled page as its value, an incompressible one whole.  Each swap
 * type is a client of it with one persistent pool.
 *
 * The pool holds at most local_pool_percent of the client's RAM in page
 * frames (0: none; every store goes to the server as without it).  A store
 * it has no room for goes the usual way.  Above RF_HIGH of the bound the
 * remotify work sends the oldest pages, R2NET_BATCH_MAX to a PUT_ZPAGES and
 * RF_RBATCHES of those in flight, in the form they are kept in (no second
 * compression), until the pool is under RF_LOW.  A page leaves the pool
 * only once every server it goes to has taken it (both, in mode
 * replicate); until then loads find it here, and a page a server refused
 * stays and is tried again (a second later, or when a server comes up).
 * So:
 *   writethrough: the disk has every page, as always;
 *   replicate:    a page is remote only once both servers hold it;
 *   none:         a page still here is as safe as the client's own RAM.
 *
 * Order with the server.  A batch is read from the pool and handed to
 * r2net with swap.c's queue of flushes and window stores held
 * (rf_ops_hold()): every flush queued before goes first, and an
 * invalidation that comes later queues its flush behind the batch.  An
 * invalidation marks a page in flight dead; its flush then removes what
 * the batch stores.
 *
 * rf_local_lock guards the index (per type: offset -> struct rf_lpage),
 * the LRU and each entry's state, and is held while a page leaves the
 * store, so a store of the same offset cannot come in between.  The
 * store's flush and get do not sleep (tmem.c: spinlocks and frees only).
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/swap.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "r2net.h"
#include "ramster_frontend.h"
#include "tmem.h"
#include "tmem_client.h"
#include "zcache.h"
#include "zform.h"
#include "zpage.h"

#define RF_LOCAL_MAX_PERCENT	50
#define RF_RBATCHES		4	/* PUT_ZPAGES of remotify in flight */
#define RF_REMOTIFY_RETRY_MS	1000
/* Remotify starts above RF_HIGH of the bound, stops at RF_LOW, in 1/8s. */
#define RF_HIGH			7
#define RF_LOW			6
#define RF_LOBJ_BITS		6	/* pages per object: 64 */

static_assert(MAX_SWAPFILES <= TMEM_MAX_CLIENTS, "a tmem client per type");

enum rf_lstate {
	RF_L_LRU,		/* on rf_lru, waiting to be sent */
	RF_L_SENDING,		/* in a batch on its way */
	RF_L_DEAD,		/* invalidated while on its way */
};

/* A page of the local tier. */
struct rf_lpage {
	struct list_head	lru;	/* rf_lru, oldest first (RF_L_LRU) */
	pgoff_t			offset;
	u8			type;
	u8			state;	/* enum rf_lstate */
};

/* A PUT_ZPAGES to one server. */
struct rf_rpart {
	struct rf_rbatch	*b;
	int			r;
};

/* A batch of pages on their way to the server(s). */
struct rf_rbatch {
	struct completion		done;
	atomic_t			left;	/* replies still to come */
	unsigned int			n;
	ktime_t				sent;
	struct rf_lpage			*e[R2NET_BATCH_MAX];
	u8				*buf[R2NET_BATCH_MAX];
	struct r2net_zpage		z[R2NET_BATCH_MAX];
	struct tmem_handle		h[RF_MAX_REPLICAS][R2NET_BATCH_MAX];
	struct r2net_tmem_batch_le	bw;
	struct r2net_tmem_zpage_le	zw[RF_MAX_REPLICAS][R2NET_BATCH_MAX];
	struct rf_rpart			part[RF_MAX_REPLICAS];
	int				err[RF_MAX_REPLICAS];
	s32				st[RF_MAX_REPLICAS][R2NET_BATCH_MAX];
};

static unsigned int rf_local_percent;
static struct zcache *rf_zc;
static struct tmem_store *rf_lstore;
static int rf_lpool[MAX_SWAPFILES];	/* per type, or -1; READ_ONCE */
static struct xarray rf_lindex[MAX_SWAPFILES];
static LIST_HEAD(rf_lru);
static DEFINE_SPINLOCK(rf_local_lock);
static struct kmem_cache *rf_lpage_cache;

static struct rf_rbatch *rf_rb;		/* RF_RBATCHES, for the work alone */
/* After a server refused pages: stores do not start remotify before. */
static unsigned long rf_remotify_after;	/* jiffies; READ_ONCE */
static struct workqueue_struct *rf_lwq;
static void rf_remotify_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rf_remotify_work, rf_remotify_fn);

/* The pool's bound in page frames: local_pool_percent of RAM. */
static unsigned long rf_local_max(void)
{
	return totalram_pages() * READ_ONCE(rf_local_percent) / 100;
}

static int rf_local_percent_set(const char *val, const struct kernel_param *kp)
{
	unsigned int pct;

	if (kstrtouint(val, 0, &pct) || pct > RF_LOCAL_MAX_PERCENT) {
		pr_err("local_pool_percent=%.*s: give 0..%u (0: no local tier)\n",
		       (int)strcspn(val, "\n"), val, RF_LOCAL_MAX_PERCENT);
		return -EINVAL;
	}
	WRITE_ONCE(rf_local_percent, pct);
	if (rf_lstore) {
		tmem_set_limits(rf_lstore, rf_local_max(), 0, 0);
		rf_local_kick();
	}
	return 0;
}

static const struct kernel_param_ops rf_local_percent_ops = {
	.set	= rf_local_percent_set,
	.get	= param_get_uint,
};
module_param_cb(local_pool_percent, &rf_local_percent_ops, &rf_local_percent,
		0644);
MODULE_PARM_DESC(local_pool_percent, "Swap pages kept compressed on this node first, in at most this share of its RAM (0..50; 0: every page goes to the server at once); settable at run time");

static unsigned long rf_local_frames(void)
{
	struct zcache_stats st;

	zcache_get_stats(rf_zc, &st);
	return st.pool_pages;
}

/* Is the pool above eighths of its bound (any page, with no bound)? */
static bool rf_local_above(unsigned int eighths)
{
	unsigned long max = rf_local_max();

	if (!atomic64_read(&rf_stats.local_pages))
		return false;
	return !max || rf_local_frames() > max * eighths / 8;
}

static void rf_lhandle(struct tmem_handle *h, int pool, pgoff_t offset)
{
	h->pool_id = pool;
	h->oid[0] = offset >> RF_LOBJ_BITS;
	h->oid[1] = 0;
	h->oid[2] = 0;
	h->index = offset & ((1u << RF_LOBJ_BITS) - 1);
}

/* Free e's page in the pool; rf_local_lock held, e out of the index. */
static void rf_lpage_flush(struct rf_lpage *e)
{
	struct tmem_handle h;

	rf_lhandle(&h, READ_ONCE(rf_lpool[e->type]), e->offset);
	tmem_flush_page(rf_lstore, e->type, &h);
	atomic64_dec(&rf_stats.local_pages);
}

/* Drop e and its page; rf_local_lock held, e out of the index. */
static void rf_lpage_drop(struct rf_lpage *e)
{
	rf_lpage_flush(e);
	if (e->state == RF_L_SENDING) {
		/* The batch's end frees it. */
		e->state = RF_L_DEAD;
		return;
	}
	list_del(&e->lru);
	kmem_cache_free(rf_lpage_cache, e);
}

/* Start remotify now, unless it is waiting, or waits after a refusal. */
static void rf_remotify_queue(void)
{
	if (time_after_eq(jiffies, READ_ONCE(rf_remotify_after)))
		queue_delayed_work(rf_lwq, &rf_remotify_work, 0);
}

/* A server came up, or the bound changed: remotify now. */
void rf_local_kick(void)
{
	if (!rf_lwq)
		return;
	WRITE_ONCE(rf_remotify_after, jiffies);
	mod_delayed_work(rf_lwq, &rf_remotify_work, 0);
}

/**
 * rf_local_store() - keep a swap page in the local tier
 * @type: its swap type
 * @offset: its offset
 * @page: the page
 *
 * Context: frontswap's store: process context, may sleep.
 * Return: 0 if it is kept here; else the page is to go the usual way.
 */
int rf_local_store(unsigned int type, pgoff_t offset, struct page *page)
{
	int pool = READ_ONCE(rf_lpool[type]);
	struct rf_lpage *e, *old;
	struct tmem_handle h;
	void *src;
	int ret;

	if (pool < 0 || !READ_ONCE(rf_local_percent))
		return -ENOSPC;
	e = kmem_cache_alloc(rf_lpage_cache, GFP_NOIO | __GFP_NOWARN);
	if (!e)
		return -ENOMEM;
	if (xa_reserve(&rf_lindex[type], offset, GFP_NOIO | __GFP_NOWARN)) {
		kmem_cache_free(rf_lpage_cache, e);
		return -ENOMEM;
	}
	rf_lhandle(&h, pool, offset);
	src = kmap_local_page(page);
	ret = tmem_put(rf_lstore, type, &h, src);
	kunmap_local(src);
	if (ret != 1) {
		/* At the bound (tmem_set_limits()) or out of memory. */
		xa_release(&rf_lindex[type], offset);
		kmem_cache_free(rf_lpage_cache, e);
		atomic64_inc(&rf_stats.local_full);
		rf_remotify_queue();
		return -ENOSPC;
	}

	e->type = type;
	e->offset = offset;
	e->state = RF_L_LRU;
	spin_lock(&rf_local_lock);
	/* frontswap invalidated an older page of offset: there is none. */
	old = xa_store(&rf_lindex[type], offset, e, GFP_NOWAIT);
	if (WARN_ON_ONCE(old && !xa_is_err(old)))
		rf_lpage_drop(old);
	list_add_tail(&e->lru, &rf_lru);
	spin_unlock(&rf_local_lock);
	atomic64_inc(&rf_stats.local_pages);
	atomic64_inc(&rf_stats.local_stores);
	if (rf_local_above(RF_HIGH))
		rf_remotify_queue();
	return 0;
}

/**
 * rf_local_load() - a swap page from the local tier
 * @type: its swap type
 * @offset: its offset
 * @page: where it goes
 *
 * Return: 0 if it was here; -ENOENT if not (the server has it, or its
 * page just went there); -EIO if its data could not be read back.
 */
int rf_local_load(unsigned int type, pgoff_t offset, struct page *page)
{
	int pool = READ_ONCE(rf_lpool[type]);
	struct tmem_handle h;
	void *dst;
	int ret;

	if (pool < 0 || !xa_load(&rf_lindex[type], offset))
		return -ENOENT;
	rf_lhandle(&h, pool, offset);
	dst = kmap_local_page(page);
	ret = tmem_get(rf_lstore, type, &h, dst);
	kunmap_local(dst);
	if (ret == 1) {
		atomic64_inc(&rf_stats.local_loads);
		return 0;
	}
	if (!ret)
		return -ENOENT;
	pr_err_ratelimited("swap type %u offset %lu: the local copy cannot be read (%d)\n",
			   type, offset, ret);
	return -EIO;
}

/* Called with the swap device's spinlock held. */
void rf_local_invalidate(unsigned int type, pgoff_t offset)
{
	struct rf_lpage *e;

	if (READ_ONCE(rf_lpool[type]) < 0)
		return;
	spin_lock(&rf_local_lock);
	e = xa_erase(&rf_lindex[type], offset);
	if (e)
		rf_lpage_drop(e);
	spin_unlock(&rf_local_lock);
}

/* swapoff: every page of the type is gone; so is its pool. */
void rf_local_invalidate_area(unsigned int type)
{
	int pool = READ_ONCE(rf_lpool[type]);
	struct rf_lpage *e;
	unsigned long offset;

	if (pool < 0)
		return;
	spin_lock(&rf_local_lock);
	xa_for_each(&rf_lindex[type], offset, e) {
		xa_erase(&rf_lindex[type], offset);
		rf_lpage_drop(e);
	}
	WRITE_ONCE(rf_lpool[type], -1);
	spin_unlock(&rf_local_lock);
	tmem_destroy_pool(rf_lstore, type, pool);
}

/* swapon: the type's pool. */
void rf_local_type_init(unsigned int type)
{
	int pool;

	if (!rf_lstore || READ_ONCE(rf_lpool[type]) >= 0)
		return;
	pool = tmem_new_pool(rf_lstore, type, tmem_pool_flags(true, false),
			     NULL);
	if (pool < 0) {
		pr_warn("swap type %u: no local pool (%d); its pages go to the server at once\n",
			type, pool);
		return;
	}
	WRITE_ONCE(rf_lpool[type], pool);
}

/* ---- remotify ---- */

static void rf_remotify_done(void *arg, int err, s32 status, const void *data,
			     u32 len)
{
	struct rf_rpart *p = arg;
	struct rf_rbatch *b = p->b;

	if (!err)
		rf_rtt_add(&rf_stats.put_rtt, b->sent);
	b->err[p->r] = rf_tmem_put_statuses(err, status, data, len, b->n,
					    b->st[p->r]);
	if (atomic_dec_and_test(&b->left))
		complete(&b->done);
}

/*
 * Take the oldest pages off the LRU into b, as the pool keeps them, with
 * their handles on each server; stops at a type with no pool there yet.
 */
static unsigned int rf_remotify_fill(struct rf_rbatch *b)
{
	struct tmem_handle lh;
	struct tmem_zpage tz;
	struct rf_lpage *e;
	unsigned int n = 0;
	int r;

	spin_lock(&rf_local_lock);
	while (n < R2NET_BATCH_MAX &&
	       (e = list_first_entry_or_null(&rf_lru, struct rf_lpage, lru))) {
		for (r = 0; r < rf_replicas(); r++)
			if (!rf_swap_handle(e->type, r, e->offset, &b->h[r][n]))
				goto out;
		rf_lhandle(&lh, READ_ONCE(rf_lpool[e->type]), e->offset);
		if (tmem_get_zpage(rf_lstore, e->type, &lh, &tz,
				   b->buf[n]) != 1 ||
		    tmem_zenc_to_wire(tz.enc) == R2NET_ZPAGE_NONE) {
			/* The index and the pool change together: a bug. */
			WARN_ONCE(1, "swap type %u offset %lu: local page missing\n",
				  e->type, e->offset);
			xa_erase(&rf_lindex[e->type], e->offset);
			rf_lpage_drop(e);
			continue;
		}
		b->z[n].enc = tmem_zenc_to_wire(tz.enc);
		b->z[n].arg = tz.arg;
		list_del_init(&e->lru);
		e->state = RF_L_SENDING;
		b->e[n++] = e;
	}
out:
	spin_unlock(&rf_local_lock);
	return n;
}

/* Send a batch of the oldest pages; false if there was none to send. */
static bool rf_remotify_send(struct rf_rbatch *b)
{
	struct kvec head[2], ref[R2NET_BATCH_MAX];
	unsigned int i, nref = 0;
	int r, err;

	rf_ops_hold();
	b->n = rf_remotify_fill(b);
	if (!b->n) {
		rf_ops_release();
		return false;
	}
	for (i = 0; i < b->n; i++)
		if (b->z[i].enc != R2NET_ZPAGE_SAME)
			ref[nref++] = (struct kvec){ b->buf[i], b->z[i].arg };
	r2net_tmem_batch_encode(&b->bw, b->n);
	reinit_completion(&b->done);
	atomic_set(&b->left, rf_replicas());
	b->sent = ktime_get();
	atomic64_inc(&rf_stats.remotify_batches);
	for (r = 0; r < rf_replicas(); r++) {
		for (i = 0; i < b->n; i++)
			r2net_tmem_zpage_encode(&b->zw[r][i], &b->h[r][i],
						&b->z[i]);
		head[0] = (struct kvec){ &b->bw, sizeof(b->bw) };
		head[1] = (struct kvec){ b->zw[r], b->n * sizeof(b->zw[r][0]) };
		err = r2net_send_refs_async(rf_node(r),
					    R2NET_MSG_TMEM_PUT_ZPAGES, RF_KEY,
					    head, 2, ref, nref, rf_timeout_ms,
					    rf_remotify_done, &b->part[r]);
		if (err)
			rf_remotify_done(&b->part[r], err, 0, NULL, 0);
	}
	rf_ops_release();
	return true;
}

/* Did server r take page i of b?  Notes a pool it lost. */
static bool rf_remotify_took(struct rf_rbatch *b, int r, unsigned int i)
{
	if (b->err[r])
		return false;
	if (b->st[r][i] == -TMEM_ENODEV)
		rf_swap_pool_lost(b->e[i]->type, r, b->h[r][i].pool_id);
	return b->st[r][i] == 1;
}

/*
 * The replies to b are in: a page every server took leaves the pool, one
 * that any refused goes back to the LRU's head.  false if any was refused.
 */
static bool rf_remotify_finish(struct rf_rbatch *b)
{
	unsigned int i, refused = 0;
	bool took[RF_MAX_REPLICAS];
	struct rf_lpage *e;
	bool all;
	int r;

	for (i = b->n; i--; ) {
		e = b->e[i];
		all = true;
		for (r = 0; r < rf_replicas(); r++) {
			took[r] = rf_remotify_took(b, r, i);
			all &= took[r];
		}
		/* A half-replicated page is not kept there (as a store's). */
		for (r = 0; !all && r < rf_replicas(); r++)
			if (took[r])
				rf_swap_flush(r, &b->h[r][i]);

		spin_lock(&rf_local_lock);
		if (e->state == RF_L_DEAD) {
			/* Invalidated meanwhile: its flush follows the batch. */
			kmem_cache_free(rf_lpage_cache, e);
		} else if (all) {
			xa_erase(&rf_lindex[e->type], e->offset);
			rf_lpage_flush(e);
			if (rf_swap_prefetch)
				rf_swap_map_set(e->type, e->offset, true);
			kmem_cache_free(rf_lpage_cache, e);
			atomic64_inc(&rf_stats.remotified);
			atomic64_inc(&rf_stats.remote_puts);
		} else {
			/* Back to the head, oldest first: i goes down. */
			e->state = RF_L_LRU;
			list_add(&e->lru, &rf_lru);
			refused++;
		}
		spin_unlock(&rf_local_lock);
	}
	atomic64_add(refused, &rf_stats.remotify_refused);
	return !refused;
}

/* Is every server a page goes to connected? */
static bool rf_remotify_ready(void)
{
	int r;

	for (r = 0; r < rf_replicas(); r++)
		if (!r2net_node_connected(rf_node(r)))
			return false;
	return true;
}

/*
 * Send the oldest pages, RF_RBATCHES batches in flight, until the pool is
 * under RF_LOW of its bound.  If a server refused any, or is not
 * connected, try again a second later (or when a server comes up), and
 * let stores not start it before.
 */
static void rf_remotify_fn(struct work_struct *work)
{
	unsigned long delay = msecs_to_jiffies(RF_REMOTIFY_RETRY_MS);
	unsigned int head = 0, used = 0;
	bool stop = !rf_remotify_ready();

	for (;;) {
		while (!stop && used < RF_RBATCHES && rf_local_above(RF_LOW)) {
			if (!rf_remotify_send(&rf_rb[(head + used) %
						     RF_RBATCHES]))
				stop = true;
			else
				used++;
		}
		if (!used)
			break;
		wait_for_completion(&rf_rb[head].done);
		if (!rf_remotify_finish(&rf_rb[head]))
			stop = true;
		head = (head + 1) % RF_RBATCHES;
		used--;
	}
	if (stop && rf_local_above(RF_LOW)) {
		WRITE_ONCE(rf_remotify_after, jiffies + delay);
		queue_delayed_work(rf_lwq, &rf_remotify_work, delay);
	}
}

/* ---- counters ---- */

static int rf_local_show(struct seq_file *m, void *v)
{
	struct zcache_stats st;

	zcache_get_stats(rf_zc, &st);
	seq_printf(m, "bound_frames %lu\n", rf_local_max());
	seq_printf(m, "pool_frames %llu\n", st.pool_pages);
	seq_printf(m, "stored_pages %llu\n", st.stored_pages);
	seq_printf(m, "same_filled_pages %llu\n", st.same_filled_pages);
	seq_printf(m, "huge_pages %llu\n", st.huge_pages);
	seq_printf(m, "compressed_bytes %llu\n", st.compressed_bytes);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rf_local);

void rf_local_debugfs(struct dentry *dir)
{
	debugfs_create_file("local_pool", 0444, dir, NULL, &rf_local_fops);
}

/* ---- init and exit ---- */

static void rf_rb_free(void)
{
	unsigned int i, j;

	if (!rf_rb)
		return;
	for (i = 0; i < RF_RBATCHES; i++)
		for (j = 0; j < R2NET_BATCH_MAX; j++)
			kfree(rf_rb[i].buf[j]);
	kfree(rf_rb);
	rf_rb = NULL;
}

static int rf_rb_alloc(void)
{
	unsigned int i, j;
	int r;

	rf_rb = kcalloc(RF_RBATCHES, sizeof(*rf_rb), GFP_KERNEL);
	if (!rf_rb)
		return -ENOMEM;
	for (i = 0; i < RF_RBATCHES; i++) {
		init_completion(&rf_rb[i].done);
		for (r = 0; r < RF_MAX_REPLICAS; r++) {
			rf_rb[i].part[r].b = &rf_rb[i];
			rf_rb[i].part[r].r = r;
		}
		for (j = 0; j < R2NET_BATCH_MAX; j++) {
			rf_rb[i].buf[j] = kmalloc(PAGE_SIZE, GFP_KERNEL);
			if (!rf_rb[i].buf[j]) {
				rf_rb_free();
				return -ENOMEM;
			}
		}
	}
	return 0;
}

int rf_local_init(void)
{
	unsigned int type;
	int ret;

	for (type = 0; type < MAX_SWAPFILES; type++) {
		rf_lpool[type] = -1;
		xa_init(&rf_lindex[type]);
	}
	if (rf_local_percent && !rf_zpage_on()) {
		pr_err("local_pool_percent=%u needs compress=1: the local tier sends pages as it keeps them\n",
		       rf_local_percent);
		return -EINVAL;
	}
	ret = tmem_init();
	if (ret)
		return ret;
	ret = -ENOMEM;
	rf_lpage_cache = KMEM_CACHE(rf_lpage, 0);
	if (!rf_lpage_cache)
		goto err_tmem;
	rf_zc = zcache_create();
	if (!rf_zc)
		goto err_cache;
	rf_lstore = tmem_store_create(&zcache_tmem_ops, rf_zc);
	if (!rf_lstore)
		goto err_zc;
	tmem_set_limits(rf_lstore, rf_local_max(), 0, 0);
	if (rf_rb_alloc())
		goto err_store;
	rf_lwq = alloc_workqueue("ramster_remotify", WQ_MEM_RECLAIM, 1);
	if (!rf_lwq)
		goto err_rb;
	return 0;

err_rb:
	rf_rb_free();
err_store:
	tmem_store_destroy(rf_lstore);
	rf_lstore = NULL;
err_zc:
	zcache_destroy(rf_zc);
err_cache:
	kmem_cache_destroy(rf_lpage_cache);
err_tmem:
	tmem_exit();
	return ret;
}

/* Once frontswap has let us go: every page was invalidated. */
void rf_local_exit(void)
{
	struct workqueue_struct *wq = rf_lwq;

	rf_lwq = NULL;
	cancel_delayed_work_sync(&rf_remotify_work);
	destroy_workqueue(wq);
	rf_rb_free();
	tmem_store_destroy(rf_lstore);
	rf_lstore = NULL;
	zcache_destroy(rf_zc);
	kmem_cache_destroy(rf_lpage_cache);
	tmem_exit();
}
