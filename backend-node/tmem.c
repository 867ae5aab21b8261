// SPDX-License-Identifier: GPL-2.0
/*
 * tmem.c - the memory server's transcendent memory store: clients, pools,
 * objects and page descriptors.
 *
 * Structure
 *
 *   store  clients[node] -> pools[0..15]: struct tmem_pool
 *   pool   256 hash buckets, each an rbtree of struct tmem_obj by oid
 *   obj    an xarray: page index -> struct tmem_pgp
 *   pgp    the data layer's pointer, the object it is in, its index, the
 *          node charged for it, the size of its data, and (ephemeral) its
 *          place on the LRU
 *
 * A shared pool is also in store->shared[]; every client that joined it
 * names it from one of its own slots, and it goes away when the last of
 * them leaves.
 *
 * Locks, outermost first:
 *
 *   store->pools_lock  rwlock: the client table, pool slots, the shared
 *                      pool table, authorisations, pool->sharers.  Held
 *                      alone: an operation looks its pool up, takes a
 *                      reference on it and lets go before going on.
 *   pool->lock         rwlock: the pool's object trees and pool->dead;
 *                      read to work inside an object, write to put an
 *                      object into the trees or take one out.
 *   obj->lock          spinlock: the object's pages (its xarray,
 *                      nr_pages, each page's data pointer and node).
 *                      Taken only under pool->lock, so with pool->lock
 *                      held for write no object in the pool changes.
 *   store->lock        spinlock: the LRU, the page counts, the charges
 *                      and the clients' object counts.
 *
 * The xarray's own lock nests inside all of these.  Every path takes them
 * in this order, tmem_evict() included: it picks its page under
 * store->lock, lets go, and flushes it like any other page.
 *
 * Lifetimes
 *
 * A pgp is in its object's xarray, counted, and (ephemeral) on the LRU, or
 * none of these: all change together, under obj->lock and store->lock.  A
 * pgp seen on the LRU under store->lock is therefore in a live object of a
 * live pool.
 *
 * An object is freed only when it holds no page: by whoever took it out of
 * its tree (flush_object, pool destruction), which then flushes it, or by
 * tmem_obj_reap() under pool->lock held for write.  An operation that
 * empties an object leaves it in its tree and reaps it after letting go of
 * its locks, looking it up again by oid.
 *
 * A pool is counted (pool->refs) by each client slot naming it and by each
 * operation using it.  Destroying it empties the slots, sets pool->dead
 * (puts then fail with -TMEM_ENODEV), frees every object and drops the
 * slots' reference; the last reference frees the empty pool.
 *
 * Charges
 *
 * Each client node is charged, in bytes, for what its pages cost the
 * store: a page's data as the data layer keeps it (tmem_data_ops.size)
 * and its descriptor (TMEM_PGP_COST) to the node whose put stored it; an
 * object (TMEM_OBJ_COST) and the nodes of its index (TMEM_XA_NODE_COST
 * each) to the node whose put made it; a pool (TMEM_POOL_COST) to the node
 * that made it.  A put takes the most it can come to first
 * (tmem_reserve(), held to the store's cap and the client's share), hands
 * its page, a new object and new index nodes their part, and gives back
 * the rest; each part is given back when what it pays for goes.  So the
 * store's charge is the sum of the clients' at all times but during a
 * put, and is 0 in an empty store.
 */
#include <linux/export.h>
#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/spinlock.h>
#include <linux/uuid.h>
#include <linux/xarray.h>
#include <asm/unaligned.h>
#include "tmem.h"
#include "store_export.h"

#define TMEM_OBJ_HASH_BITS	8
#define TMEM_OBJ_HASH_BUCKETS	BIT(TMEM_OBJ_HASH_BITS)

/* Pages a flush frees per hold of an object's lock. */
#define TMEM_FLUSH_BATCH	64

/* tmem_evict() gives up after this many pages in a row went away. */
#define TMEM_EVICT_MISSES	16
/* How far from the LRU's tail eviction looks for one client's page. */
#define TMEM_EVICT_SCAN		512
/* Evictions a put may run to get under a limit before it fails. */
#define TMEM_ADMIT_ROUNDS	64
/* Pages a round of that evicts when the machine's memory is low. */
#define TMEM_LOW_EVICT		16
/*
 * A put's own allocations: a short reclaim, never the OOM killer;
 * failing, the put is refused.
 */
#define TMEM_GFP	(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN)

/*
 * What a client is charged for, in bytes, besides each page's data (see
 * Charges above):
 *
 * TMEM_PGP_COST	a page's descriptor, from its slab cache; its slot in
 *			the object's index is paid with the index's nodes
 * TMEM_OBJ_COST	an object's descriptor, with its link in the pool's
 *			tree, from its slab cache
 * TMEM_XA_NODE_COST	a node of an object's index, an xarray of 64-slot
 *			nodes: pages at close indexes share them (some 9
 *			bytes a page when dense), a page at a sparse index
 *			may have a chain of TMEM_XA_HEIGHT to itself
 * TMEM_POOL_COST	a pool, as kmalloc() holds it
 *
 * A fixed estimate per page would not do for the index: a client that
 * puts same-filled pages at random indexes makes the store hold some 3
 * KiB of nodes for each.
 */
#define TMEM_PGP_COST		sizeof(struct tmem_pgp)
#define TMEM_OBJ_COST		sizeof(struct tmem_obj)
#define TMEM_XA_NODE_COST	sizeof(struct xa_node)
#define TMEM_POOL_COST		kmalloc_size_roundup(sizeof(struct tmem_pool))
/* The levels of an index of 32 bits. */
#define TMEM_XA_HEIGHT		DIV_ROUND_UP(32, XA_CHUNK_SHIFT)
/*
 * Index nodes one put may make: the tree grown to its full height over
 * an entry at index 0, and a path of its own below the new top.
 */
#define TMEM_XA_PUT_NODES	(2 * TMEM_XA_HEIGHT - 1)
/* The most one page gives back as it goes, its object's part too. */
#define TMEM_PAGE_CHARGE_MAX	(TMEM_PAGE_SIZE + TMEM_PGP_COST + \
				 TMEM_OBJ_COST + \
				 TMEM_XA_HEIGHT * TMEM_XA_NODE_COST)
/*
 * Evictions a put may run to get its charge under the cap or its share:
 * enough to free what it can hold back when each evicted page gives back
 * the least a page can.
 */
#define TMEM_CHARGE_ROUNDS	DIV_ROUND_UP(TMEM_PAGE_CHARGE_MAX + \
					     TMEM_XA_PUT_NODES * \
					     TMEM_XA_NODE_COST, \
					     TMEM_PGP_COST)

struct tmem_pool {
	struct tmem_store *store;
	rwlock_t lock;			/* objs, dead */
	bool dead;
	bool persistent;
	bool shared;
	u8 owner;			/* the node that created it */
	unsigned int sharers;		/* client slots naming it */
	refcount_t refs;
	u64 uuid[2];			/* shared pools */
	struct rb_root objs[TMEM_OBJ_HASH_BUCKETS];
};

struct tmem_obj {
	struct rb_node node;		/* cleared when out of the tree */
	spinlock_t lock;		/* pages, nr_pages, xa_nodes, the pages' */
	unsigned int xa_nodes;		/* of pages, charged to owner */
	struct xarray pages;		/* index -> struct tmem_pgp */
	unsigned long nr_pages;
	struct tmem_pool *pool;
	u64 oid[3];
	u8 owner;			/* the node whose put made it */
};

struct tmem_pgp {
	struct list_head lru;		/* the LRU; a private list once out */
	struct tmem_obj *obj;
	void *data;
	u32 index;
	u8 node;			/* charged for it */
	u16 size;			/* of its data, tmem_data_ops.size */
};

struct tmem_client {
	struct tmem_pool *pools[TMEM_MAX_POOLS_PER_CLIENT];
	u32 ids[TMEM_MAX_POOLS_PER_CLIENT];	/* the id each slot was given */
	bool away;			/* no request since tmem_client_away() */
	u64 auth[TMEM_MAX_SHARED_POOLS][2];
	unsigned int nr_auth;
};

struct tmem_store {
	const struct tmem_data_ops *ops;
	void *priv;			/* the data layer's, for the ops */
	unsigned long max_frames;	/* 0: none; READ_ONCE */
	unsigned long client_quota;	/* 0: none; READ_ONCE */
	unsigned long min_avail;	/* 0: none; READ_ONCE */
	unsigned int share_percent;	/* 0: bytes not held; READ_ONCE */
	unsigned long max_objects;	/* per client, 0: none; READ_ONCE */
	u16 weight[TMEM_MAX_CLIENTS];	/* READ_ONCE */

	rwlock_t pools_lock;		/* clients, their slots, shared, tag */
	u32 tag;			/* next pool id's tag; 0: ids are slots */
	struct tmem_client *clients[TMEM_MAX_CLIENTS];
	struct tmem_pool *shared[TMEM_MAX_SHARED_POOLS];

	spinlock_t lock;		/* lru, pages, charges, objects */
	struct list_head lru;		/* ephemeral pages, newest first */
	u64 pages[2];			/* [persistent] */
	u64 client_pages[TMEM_MAX_CLIENTS][2];
	u64 charge;			/* bytes, every client's */
	u64 client_charge[TMEM_MAX_CLIENTS];
	unsigned long client_objects[TMEM_MAX_CLIENTS];

	atomic_long_t objects;
	atomic_long_t pools;
	atomic_long_t shared_pools;
	atomic_long_t puts;
	atomic_long_t put_failures;
	atomic_long_t dup_puts;
	atomic_long_t dup_put_flushes;
	atomic_long_t get_hits;
	atomic_long_t get_misses;
	atomic_long_t get_errors;
	atomic_long_t flush_pages;
	atomic_long_t flush_objects;
	atomic_long_t flushed_pages;
	atomic_long_t evictions;
	atomic_long_t reject_limit;
	atomic_long_t reject_quota;
	atomic_long_t reject_low_memory;
	atomic_long_t shared_emptied;
	atomic_long_t reject_share;
	atomic_long_t reject_objects;
};

static struct kmem_cache *tmem_obj_cache;
static struct kmem_cache *tmem_pgp_cache;

bool tmem_pool_persistent(const struct tmem_pool *pool)
{
	return pool->persistent;
}

bool tmem_pool_shared(const struct tmem_pool *pool)
{
	return pool->shared;
}

void *tmem_pool_priv(const struct tmem_pool *pool)
{
	return pool->store->priv;
}

static bool tmem_uuid_eq(const u64 *a, const u64 *b)
{
	return a[0] == b[0] && a[1] == b[1];
}

/* Charges ---------------------------------------------------------------- */

/* Charge @node @bytes more, or fewer when negative; store->lock held. */
static void __tmem_charge(struct tmem_store *store, u8 node, s64 bytes)
{
	store->charge += bytes;
	store->client_charge[node] += bytes;
}

static void tmem_charge(struct tmem_store *store, u8 node, s64 bytes)
{
	spin_lock(&store->lock);
	__tmem_charge(store, node, bytes);
	spin_unlock(&store->lock);
}

/* The store's cap in bytes; 0 when it holds no charge to one. */
static u64 tmem_cap_bytes(struct tmem_store *store)
{
	if (!READ_ONCE(store->share_percent))
		return 0;
	return (u64)READ_ONCE(store->max_frames) * PAGE_SIZE;
}

/*
 * What @node may be charged for out of @cap: share_percent of it, times
 * the node's weight in percent, at most all of it.
 */
static u64 tmem_share(struct tmem_store *store, u8 node, u64 cap)
{
	u32 pw = READ_ONCE(store->share_percent) *
		 READ_ONCE(store->weight[node]);
	u32 rem;
	u64 q = div_u64_rem(cap, 100 * 100, &rem);

	return min(cap, q * pw + div_u64((u64)rem * pw, 100 * 100));
}

/**
 * tmem_put_charge_max() - the most a put can be charged
 * @size: the bytes its page's data keeps (&tmem_data_ops.size)
 *
 * Its page, a new object, and the index nodes a put may make.  A put
 * takes this much of its client's share first and gives back what it
 * did not use: a client is refused a put once its charge is within this
 * of its share.
 *
 * Return: the bytes.
 */
u64 tmem_put_charge_max(unsigned int size)
{
	return size + TMEM_PGP_COST + TMEM_OBJ_COST +
	       TMEM_XA_PUT_NODES * TMEM_XA_NODE_COST;
}
EXPORT_SYMBOL_GPL(tmem_put_charge_max);

/* Objects ---------------------------------------------------------------- */

static int tmem_oid_cmp(const u64 *a, const u64 *b)
{
	int i;

	for (i = 2; i >= 0; i--) {
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	}
	return 0;
}

static struct rb_root *tmem_bucket(struct tmem_pool *pool, const u64 *oid)
{
	return &pool->objs[hash_64(oid[0] ^ oid[1] ^ oid[2],
				   TMEM_OBJ_HASH_BITS)];
}

/* pool->lock held. */
static struct tmem_obj *tmem_obj_find(struct tmem_pool *pool, const u64 *oid)
{
	struct rb_node *n = tmem_bucket(pool, oid)->rb_node;

	while (n) {
		struct tmem_obj *obj = rb_entry(n, struct tmem_obj, node);
		int c = tmem_oid_cmp(oid, obj->oid);

		if (c < 0)
			n = n->rb_left;
		else if (c > 0)
			n = n->rb_right;
		else
			return obj;
	}
	return NULL;
}

/*
 * pool->lock held for write; no object with @obj's oid in the pool.  The
 * put that links it has its charge already (tmem_reserve()).  Returns
 * false, not linking it, when its owner is at the store's max_objects.
 */
static bool tmem_obj_link(struct tmem_pool *pool, struct tmem_obj *obj)
{
	struct rb_root *root = tmem_bucket(pool, obj->oid);
	struct rb_node **link = &root->rb_node, *parent = NULL;
	struct tmem_store *store = pool->store;
	unsigned long max = READ_ONCE(store->max_objects);

	spin_lock(&store->lock);
	if (max && store->client_objects[obj->owner] >= max) {
		spin_unlock(&store->lock);
		return false;
	}
	store->client_objects[obj->owner]++;
	spin_unlock(&store->lock);

	while (*link) {
		struct tmem_obj *o = rb_entry(*link, struct tmem_obj, node);

		parent = *link;
		if (tmem_oid_cmp(obj->oid, o->oid) < 0)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&obj->node, parent, link);
	rb_insert_color(&obj->node, root);
	atomic_long_inc(&store->objects);
	return true;
}

/* pool->lock held for write.  Its owner is no longer charged for it. */
static void tmem_obj_unlink(struct tmem_pool *pool, struct tmem_obj *obj)
{
	struct tmem_store *store = pool->store;

	rb_erase(&obj->node, tmem_bucket(pool, obj->oid));
	RB_CLEAR_NODE(&obj->node);
	atomic_long_dec(&store->objects);
	spin_lock(&store->lock);
	store->client_objects[obj->owner]--;
	__tmem_charge(store, obj->owner, -(s64)TMEM_OBJ_COST);
	spin_unlock(&store->lock);
}

static struct tmem_obj *tmem_obj_alloc(struct tmem_pool *pool, const u64 *oid,
				       u8 owner)
{
	struct tmem_obj *obj = kmem_cache_alloc(tmem_obj_cache, TMEM_GFP);

	if (!obj)
		return NULL;
	RB_CLEAR_NODE(&obj->node);
	spin_lock_init(&obj->lock);
	xa_init(&obj->pages);
	obj->nr_pages = 0;
	obj->xa_nodes = 0;
	obj->pool = pool;
	memcpy(obj->oid, oid, sizeof(obj->oid));
	obj->owner = owner;
	return obj;
}

/*
 * An empty object out of its tree.  Its index has no node left that it
 * counted, unless tmem_index_del() counted too few (then they go now).
 */
static void tmem_obj_free(struct tmem_obj *obj)
{
	WARN_ON_ONCE(obj->nr_pages || !RB_EMPTY_NODE(&obj->node));
	if (obj->xa_nodes)
		tmem_charge(obj->pool->store, obj->owner,
			    -(s64)(obj->xa_nodes * TMEM_XA_NODE_COST));
	xa_destroy(&obj->pages);
	kmem_cache_free(tmem_obj_cache, obj);
}

/* Free the object named @oid if it is in the pool and empty. */
static void tmem_obj_reap(struct tmem_pool *pool, const u64 *oid)
{
	struct tmem_obj *obj;

	write_lock(&pool->lock);
	obj = tmem_obj_find(pool, oid);
	if (obj && !obj->nr_pages)
		tmem_obj_unlink(pool, obj);
	else
		obj = NULL;
	write_unlock(&pool->lock);
	if (obj)
		tmem_obj_free(obj);
}

/* Indexes ---------------------------------------------------------------- */

/*
 * An object's index is an xarray: a tree of nodes of XA_CHUNK_SIZE slots,
 * as tall as its highest index needs, with no empty node (the xarray frees
 * a node as its last entry goes, and the top while it holds only slot
 * 0).  So the nodes a store makes or an erase frees follow from the tree
 * around the entry; the object keeps their count (obj->xa_nodes) for its
 * owner's charge.  These run under obj->lock, with the xarray's lock.
 */

/* How many levels of nodes the tree has (0: none, the entry in the head). */
static unsigned int tmem_xa_height(const struct xarray *xa)
{
	void *head = xa_head_locked(xa);

	if (!xa_is_node(head))
		return 0;
	return xa_to_node(head)->shift / XA_CHUNK_SHIFT + 1;
}

/* The nodes from @node up that hold a single entry: one entry's alone. */
static unsigned int tmem_xa_alone(const struct xarray *xa,
				  struct xa_node *node)
{
	unsigned int n = 0;

	while (node && node->count == 1) {
		n++;
		node = xa_parent_locked(xa, node);
	}
	return n;
}

/*
 * Store @pgp in its object's index; obj->lock held, no entry at its index.
 * Returns the nodes that made, or -ENOMEM.  Besides a new path down to it
 * (nodes of one entry after the store), a tree that had to grow got a new
 * top node for each new level, each over the old tree.
 */
static int tmem_index_add(struct tmem_obj *obj, struct tmem_pgp *pgp)
{
	XA_STATE(xas, &obj->pages, pgp->index);
	unsigned int height;
	bool had;
	int ret;

	xas_lock(&xas);
	had = xa_head_locked(&obj->pages);
	height = tmem_xa_height(&obj->pages);
	do {
		xas_store(&xas, pgp);
	} while (xas_nomem(&xas, GFP_NOWAIT | __GFP_NOWARN));
	ret = xas_error(&xas);
	if (!ret) {
		ret = tmem_xa_alone(&obj->pages, xas.xa_node);
		if (had && tmem_xa_height(&obj->pages) > height)
			ret += tmem_xa_height(&obj->pages) - height;
	}
	xas_unlock(&xas);
	return ret;
}

/*
 * Erase @pgp from its object's index; obj->lock held.  Returns the nodes
 * that freed: those that held it alone, and then, if the tree's top
 * stayed, the top nodes left holding only slot 0.
 */
static unsigned int tmem_index_del(struct tmem_obj *obj, struct tmem_pgp *pgp)
{
	XA_STATE(xas, &obj->pages, pgp->index);
	unsigned int height, freed;

	xas_lock(&xas);
	xas_load(&xas);
	height = tmem_xa_height(&obj->pages);
	freed = tmem_xa_alone(&obj->pages, xas.xa_node);
	xas_store(&xas, NULL);
	if (freed < height)
		freed += height - tmem_xa_height(&obj->pages);
	xas_unlock(&xas);
	return freed;
}

/* Pages ------------------------------------------------------------------ */

/*
 * store->lock held.  The put that stores it has its charge already
 * (tmem_reserve()).
 */
static void tmem_pgp_count(struct tmem_store *store, struct tmem_pgp *pgp)
{
	bool pers = pgp->obj->pool->persistent;

	store->pages[pers]++;
	store->client_pages[pgp->node][pers]++;
	if (!pers)
		list_add(&pgp->lru, &store->lru);
}

/* store->lock held.  Its node is no longer charged for it. */
static void tmem_pgp_uncount(struct tmem_store *store, struct tmem_pgp *pgp)
{
	bool pers = pgp->obj->pool->persistent;

	store->pages[pers]--;
	store->client_pages[pgp->node][pers]--;
	__tmem_charge(store, pgp->node, -(s64)(TMEM_PGP_COST + pgp->size));
	if (!pers)
		list_del(&pgp->lru);
}

/* Take @pgp out of its object: pool->lock and obj->lock held. */
static void tmem_pgp_remove(struct tmem_store *store, struct tmem_pgp *pgp)
{
	struct tmem_obj *obj = pgp->obj;
	unsigned int nodes = min(tmem_index_del(obj, pgp), obj->xa_nodes);

	obj->nr_pages--;
	obj->xa_nodes -= nodes;
	spin_lock(&store->lock);
	tmem_pgp_uncount(store, pgp);
	__tmem_charge(store, obj->owner, -(s64)(nodes * TMEM_XA_NODE_COST));
	spin_unlock(&store->lock);
}

/* A page out of the store; no lock held, a reference on @pool. */
static void tmem_pgp_free(struct tmem_store *store, struct tmem_pool *pool,
			  struct tmem_pgp *pgp)
{
	store->ops->free(pgp->data, pool);
	kmem_cache_free(tmem_pgp_cache, pgp);
}

/*
 * Flush an object already out of its tree and free it, a batch of pages
 * at a time.  Returns the pages it freed.
 */
static unsigned long tmem_obj_destroy(struct tmem_store *store,
				      struct tmem_pool *pool,
				      struct tmem_obj *obj)
{
	unsigned long freed = 0, index;
	struct tmem_pgp *pgp, *next;
	LIST_HEAD(batch);
	bool empty;
	int n;

	do {
		read_lock(&pool->lock);
		spin_lock(&obj->lock);
		n = 0;
		xa_for_each(&obj->pages, index, pgp) {
			tmem_pgp_remove(store, pgp);
			list_add(&pgp->lru, &batch);
			if (++n == TMEM_FLUSH_BATCH)
				break;
		}
		empty = !obj->nr_pages;
		spin_unlock(&obj->lock);
		read_unlock(&pool->lock);

		list_for_each_entry_safe(pgp, next, &batch, lru) {
			list_del(&pgp->lru);
			tmem_pgp_free(store, pool, pgp);
			freed++;
		}
		cond_resched();
	} while (!empty);
	tmem_obj_free(obj);
	return freed;
}

/*
 * Flush the page at (@oid, @index) of @pool, only if it is @only when that
 * is not NULL (never dereferenced).  Returns whether a page was flushed.
 */
static bool tmem_pool_flush_page(struct tmem_store *store,
				 struct tmem_pool *pool, const u64 *oid,
				 u32 index, const struct tmem_pgp *only)
{
	struct tmem_pgp *pgp = NULL;
	struct tmem_obj *obj;
	bool empty = false;

	read_lock(&pool->lock);
	obj = tmem_obj_find(pool, oid);
	if (obj) {
		spin_lock(&obj->lock);
		pgp = xa_load(&obj->pages, index);
		if (pgp && only && pgp != only)
			pgp = NULL;
		if (pgp) {
			tmem_pgp_remove(store, pgp);
			empty = !obj->nr_pages;
		}
		spin_unlock(&obj->lock);
	}
	read_unlock(&pool->lock);

	if (!pgp)
		return false;
	tmem_pgp_free(store, pool, pgp);
	if (empty)
		tmem_obj_reap(pool, oid);
	return true;
}

/* Pools ------------------------------------------------------------------ */

static struct tmem_pool *tmem_pool_alloc(struct tmem_store *store, u8 node,
					 u32 flags, const u64 uuid[2])
{
	struct tmem_pool *pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	int i;

	if (!pool)
		return NULL;
	pool->store = store;
	rwlock_init(&pool->lock);
	pool->persistent = flags & TMEM_POOL_PERSIST;
	pool->shared = flags & TMEM_POOL_SHARED;
	pool->owner = node;
	pool->sharers = 1;
	refcount_set(&pool->refs, 1);
	if (pool->shared)
		memcpy(pool->uuid, uuid, sizeof(pool->uuid));
	for (i = 0; i < TMEM_OBJ_HASH_BUCKETS; i++)
		pool->objs[i] = RB_ROOT;
	return pool;
}

/* The pool a client names @pool_id, with a reference on it; or NULL. */
static struct tmem_pool *tmem_pool_get(struct tmem_store *store, u8 node,
				       u32 pool_id)
{
	u32 slot = pool_id % TMEM_MAX_POOLS_PER_CLIENT;
	struct tmem_client *client;
	struct tmem_pool *pool = NULL;

	read_lock(&store->pools_lock);
	client = store->clients[node];
	if (client && READ_ONCE(client->away))
		WRITE_ONCE(client->away, false);
	if (client && client->ids[slot] == pool_id)
		pool = client->pools[slot];
	if (pool)
		refcount_inc(&pool->refs);
	read_unlock(&store->pools_lock);
	return pool;
}

/* Drop a reference; the last frees the pool, its maker charged no more. */
static void tmem_pool_put(struct tmem_pool *pool)
{
	int i;

	if (!refcount_dec_and_test(&pool->refs))
		return;
	for (i = 0; i < TMEM_OBJ_HASH_BUCKETS; i++)
		WARN_ON_ONCE(!RB_EMPTY_ROOT(&pool->objs[i]));
	tmem_charge(pool->store, pool->owner, -(s64)TMEM_POOL_COST);
	kfree(pool);
}

/* Free all of a pool's objects and pages; it may take puts again. */
static void tmem_pool_empty(struct tmem_store *store, struct tmem_pool *pool)
{
	struct tmem_obj *obj;
	int i;

	for (i = 0; i < TMEM_OBJ_HASH_BUCKETS; i++) {
		for (;;) {
			write_lock(&pool->lock);
			obj = NULL;
			if (pool->objs[i].rb_node) {
				obj = rb_entry(pool->objs[i].rb_node,
					       struct tmem_obj, node);
				tmem_obj_unlink(pool, obj);
			}
			write_unlock(&pool->lock);
			if (!obj)
				break;
			tmem_obj_destroy(store, pool, obj);
		}
	}
}

/* Mark the pool dead and free all its objects and pages. */
static void tmem_pool_flush_all(struct tmem_store *store,
				struct tmem_pool *pool)
{
	write_lock(&pool->lock);
	pool->dead = true;
	write_unlock(&pool->lock);
	tmem_pool_empty(store, pool);
}

/* The lowest free slot of a client, or -TMEM_EPERM. */
static int tmem_free_slot(struct tmem_client *client)
{
	int slot;

	for (slot = 0; slot < TMEM_MAX_POOLS_PER_CLIENT; slot++) {
		if (!client->pools[slot])
			return slot;
	}
	return -TMEM_EPERM;
}

/*
 * Put @pool in @client's @slot and return the id it is known by; pools_lock
 * held for write.  With tags on (tmem_store_tag_ids()) the id is the slot
 * with the store's next tag above it, so an id is not given out again
 * while 2^27 pools are made, and a restarted store starts elsewhere.
 */
static int tmem_slot_fill(struct tmem_store *store, struct tmem_client *client,
			  int slot, struct tmem_pool *pool)
{
	u32 id = slot;

	if (store->tag) {
		id |= store->tag << TMEM_POOL_SLOT_BITS;
		store->tag = store->tag % TMEM_POOL_TAG_MAX + 1;
	}
	client->pools[slot] = pool;
	client->ids[slot] = id;
	return id;
}

/* The slot of a client's pool id, or -1 if it names no pool of it. */
static int tmem_slot_of(struct tmem_client *client, u32 pool_id)
{
	u32 slot = pool_id % TMEM_MAX_POOLS_PER_CLIENT;

	if (!client || !client->pools[slot] || client->ids[slot] != pool_id)
		return -1;
	return slot;
}

static bool tmem_authorised(struct tmem_client *client, const u64 *uuid)
{
	unsigned int i;

	for (i = 0; i < client->nr_auth; i++) {
		if (tmem_uuid_eq(client->auth[i], uuid))
			return true;
	}
	return false;
}

/*
 * Give @client the shared pool with @fresh's uuid: the one that exists,
 * else @fresh (then *@fresh is cleared).  pools_lock held for write.
 * Returns the client's pool id, or -TMEM_EPERM.
 */
static int tmem_join_shared(struct tmem_store *store,
			    struct tmem_client *client,
			    struct tmem_pool **fresh)
{
	const u64 *uuid = (*fresh)->uuid;
	struct tmem_pool *pool = NULL;
	int id, s, free_s = -1;

	if (!tmem_authorised(client, uuid))
		return -TMEM_EPERM;
	for (s = 0; s < TMEM_MAX_SHARED_POOLS; s++) {
		if (!store->shared[s]) {
			if (free_s < 0)
				free_s = s;
		} else if (tmem_uuid_eq(store->shared[s]->uuid, uuid)) {
			pool = store->shared[s];
			break;
		}
	}
	/* Joining again gives the same id. */
	for (id = 0; pool && id < TMEM_MAX_POOLS_PER_CLIENT; id++) {
		if (client->pools[id] == pool)
			return client->ids[id];
	}

	id = tmem_free_slot(client);
	if (id < 0)
		return id;
	if (pool) {
		pool->sharers++;
		refcount_inc(&pool->refs);
	} else {
		if (free_s < 0)
			return -TMEM_EPERM;
		pool = *fresh;
		*fresh = NULL;
		store->shared[free_s] = pool;
		atomic_long_inc(&store->pools);
		atomic_long_inc(&store->shared_pools);
	}
	return tmem_slot_fill(store, client, id, pool);
}

/*
 * Empty a client's slot; pools_lock held for write.  Returns the pool it
 * held, the slot's reference now the caller's, and sets *@last when no
 * client names the pool any more; NULL if the slot was empty.
 */
static struct tmem_pool *tmem_pool_detach(struct tmem_store *store,
					  struct tmem_client *client,
					  u32 id, bool *last)
{
	struct tmem_pool *pool = client->pools[id];
	int s;

	if (!pool)
		return NULL;
	client->pools[id] = NULL;
	*last = !--pool->sharers;
	if (!*last)
		return pool;
	atomic_long_dec(&store->pools);
	if (pool->shared) {
		for (s = 0; s < TMEM_MAX_SHARED_POOLS; s++) {
			if (store->shared[s] == pool)
				store->shared[s] = NULL;
		}
		atomic_long_dec(&store->shared_pools);
	}
	return pool;
}

/* Drop a detached slot's reference, destroying the pool if @last. */
static void tmem_pool_release(struct tmem_store *store,
			      struct tmem_pool *pool, bool last)
{
	if (last)
		tmem_pool_flush_all(store, pool);
	tmem_pool_put(pool);
}

/* Make sure store->clients[node] exists; it stays until the store goes. */
static int tmem_client_prepare(struct tmem_store *store, u8 node)
{
	struct tmem_client *client;
	bool have;

	read_lock(&store->pools_lock);
	have = store->clients[node];
	read_unlock(&store->pools_lock);
	if (have)
		return 0;

	client = kzalloc(sizeof(*client), GFP_KERNEL);
	if (!client)
		return -ENOMEM;
	write_lock(&store->pools_lock);
	if (!store->clients[node]) {
		store->clients[node] = client;
		client = NULL;
	}
	write_unlock(&store->pools_lock);
	kfree(client);
	return 0;
}

/**
 * tmem_new_pool() - create a pool for a client, or join a shared one
 * @store: the store
 * @node: the client
 * @flags: TMEM_POOL_* flags, checked as Xen did (tmem_pool_flags_check())
 * @uuid: for a shared pool, its uuid (NULL means zero); else ignored
 *
 * A shared pool is joined when one with @uuid exists, else created; either
 * way only if tmem_auth_shared() authorised @node for @uuid.  A client that
 * joins a shared pool it has already joined gets the same id again.
 *
 * Context: process context; may sleep.
 * Return: the pool id (its slot 0..15, and a tag above it once
 * tmem_store_tag_ids() was called), -TMEM_EPERM (bad flags, shared and
 * persistent, not authorised, no free slot, too many shared pools) or
 * -TMEM_ENOMEM.
 */
int tmem_new_pool(struct tmem_store *store, u8 node, u32 flags,
		  const u64 uuid[2])
{
	static const u64 no_uuid[2];
	struct tmem_client *client;
	struct tmem_pool *fresh;
	int ret;

	ret = tmem_pool_flags_check(flags);
	if (ret)
		return ret;
	fresh = tmem_pool_alloc(store, node, flags, uuid ? uuid : no_uuid);
	if (!fresh || tmem_client_prepare(store, node)) {
		kfree(fresh);
		return -TMEM_ENOMEM;
	}

	write_lock(&store->pools_lock);
	client = store->clients[node];
	client->away = false;
	if (fresh->shared) {
		ret = tmem_join_shared(store, client, &fresh);
	} else {
		ret = tmem_free_slot(client);
		if (ret >= 0) {
			ret = tmem_slot_fill(store, client, ret, fresh);
			fresh = NULL;
			atomic_long_inc(&store->pools);
		}
	}
	/* A pool made, not joined: its maker pays for it. */
	if (!fresh)
		tmem_charge(store, node, TMEM_POOL_COST);
	write_unlock(&store->pools_lock);
	kfree(fresh);
	return ret;
}
EXPORT_SYMBOL_GPL(tmem_new_pool);

/**
 * tmem_destroy_pool() - a client lets go of one of its pools
 * @store: the store
 * @node: the client
 * @pool_id: its pool id
 *
 * A private pool is destroyed with all its pages; a shared pool only when
 * no other client has it any more.
 *
 * Context: process context; may sleep.
 * Return: 1, or 0 when the client has no such pool.
 */
int tmem_destroy_pool(struct tmem_store *store, u8 node, u32 pool_id)
{
	struct tmem_pool *pool = NULL;
	bool last = false;
	int slot;

	write_lock(&store->pools_lock);
	slot = tmem_slot_of(store->clients[node], pool_id);
	if (slot >= 0)
		pool = tmem_pool_detach(store, store->clients[node], slot,
					&last);
	write_unlock(&store->pools_lock);
	if (!pool)
		return 0;
	tmem_pool_release(store, pool, last);
	return 1;
}
EXPORT_SYMBOL_GPL(tmem_destroy_pool);

/* Let go of a client's pools, or only if it is still away; see below. */
static int __tmem_destroy_client(struct tmem_store *store, u8 node,
				 bool only_away)
{
	struct tmem_pool *pools[TMEM_MAX_POOLS_PER_CLIENT] = { };
	bool last[TMEM_MAX_POOLS_PER_CLIENT] = { };
	struct tmem_client *client;
	int id, n = 0;

	write_lock(&store->pools_lock);
	client = store->clients[node];
	if (client && only_away && !client->away) {
		write_unlock(&store->pools_lock);
		return -EBUSY;
	}
	for (id = 0; client && id < TMEM_MAX_POOLS_PER_CLIENT; id++)
		pools[id] = tmem_pool_detach(store, client, id, &last[id]);
	write_unlock(&store->pools_lock);

	for (id = 0; id < TMEM_MAX_POOLS_PER_CLIENT; id++) {
		if (!pools[id])
			continue;
		tmem_pool_release(store, pools[id], last[id]);
		n++;
	}
	return n;
}

/**
 * tmem_destroy_client() - let go of every pool of a client
 * @store: the store
 * @node: the client
 *
 * Its private pools are destroyed with their pages; it leaves its shared
 * pools.  Its shared-pool authorisations stay.
 *
 * Context: process context; may sleep.
 * Return: the number of pool slots it had in use.
 */
int tmem_destroy_client(struct tmem_store *store, u8 node)
{
	return __tmem_destroy_client(store, node, false);
}

/**
 * tmem_client_away() - a client went away: mark it
 * @store: the store
 * @node: the client
 *
 * Any request of the client after this (one that names a pool, or makes
 * one) clears the mark.
 *
 * Context: any context that may take a rwlock for write (not in IRQ).
 */
void tmem_client_away(struct tmem_store *store, u8 node)
{
	write_lock(&store->pools_lock);
	if (store->clients[node])
		store->clients[node]->away = true;
	write_unlock(&store->pools_lock);
}

/**
 * tmem_client_gone_shared() - empty the shared pools a gone client is in
 * @store: the store
 * @node: a client the network lost
 *
 * Flushes of pages it wrote may have been on their way, and will never
 * come: the other clients could get those pages, older than their disk.
 * So each shared pool it is in is emptied for everyone.  It stays in
 * them until it leaves or its pools are destroyed.
 *
 * Context: process context; may sleep.
 * Return: the number of shared pools emptied.
 */
int tmem_client_gone_shared(struct tmem_store *store, u8 node)
{
	struct tmem_pool *pools[TMEM_MAX_POOLS_PER_CLIENT];
	struct tmem_client *client;
	int id, n = 0;

	read_lock(&store->pools_lock);
	client = store->clients[node];
	for (id = 0; client && id < TMEM_MAX_POOLS_PER_CLIENT; id++) {
		if (client->pools[id] && client->pools[id]->shared) {
			refcount_inc(&client->pools[id]->refs);
			pools[n++] = client->pools[id];
		}
	}
	read_unlock(&store->pools_lock);
	for (id = 0; id < n; id++) {
		tmem_pool_empty(store, pools[id]);
		atomic_long_inc(&store->shared_emptied);
		tmem_pool_put(pools[id]);
	}
	return n;
}
EXPORT_SYMBOL_GPL(tmem_client_gone_shared);

/**
 * tmem_destroy_client_away() - tmem_destroy_client() unless it came back
 * @store: the store
 * @node: a client marked by tmem_client_away(), its grace period over
 *
 * Decided under the lock every request takes to find its pool: a request
 * that came before keeps the pools (the client is back, whatever its
 * node-up event says yet), and one that comes after finds none.
 *
 * Context: process context; may sleep.
 * Return: as tmem_destroy_client(), or -EBUSY if a request came since
 * tmem_client_away(): nothing destroyed.
 */
int tmem_destroy_client_away(struct tmem_store *store, u8 node)
{
	return __tmem_destroy_client(store, node, true);
}

/**
 * tmem_auth_shared() - allow or forbid a client to join a shared pool
 * @store: the store
 * @node: the client
 * @uuid: the shared pool's uuid
 * @allow: true to allow, false to forbid
 *
 * Forbidding does not take the client out of a pool it has joined.
 *
 * Context: process context; may sleep.
 * Return: 0, -ENOMEM, or -ENOSPC when the client already has
 * TMEM_MAX_SHARED_POOLS authorisations.
 */
int tmem_auth_shared(struct tmem_store *store, u8 node, const u64 uuid[2],
		     bool allow)
{
	struct tmem_client *client;
	unsigned int i;
	int ret = 0;

	if (allow && tmem_client_prepare(store, node))
		return -ENOMEM;

	write_lock(&store->pools_lock);
	client = store->clients[node];
	for (i = 0; client && i < client->nr_auth; i++) {
		if (tmem_uuid_eq(client->auth[i], uuid))
			break;
	}
	if (!client) {
		/* Nothing to forbid. */
	} else if (allow && i == client->nr_auth) {
		if (client->nr_auth < TMEM_MAX_SHARED_POOLS)
			memcpy(client->auth[client->nr_auth++], uuid,
			       sizeof(client->auth[0]));
		else
			ret = -ENOSPC;
	} else if (!allow && i < client->nr_auth) {
		client->nr_auth--;
		memcpy(client->auth[i], client->auth[client->nr_auth],
		       sizeof(client->auth[0]));
	}
	write_unlock(&store->pools_lock);
	return ret;
}

/**
 * tmem_auth_list() - the shared-pool authorisations, as text
 * @store: the store
 * @buf: where to write them, a line "NODE UUID" each (UUID as the
 *	 filesystem's 16 bytes: uuid[0] then uuid[1], little endian)
 * @size: @buf's size; lines that do not fit whole are left out
 *
 * Context: process context.
 * Return: the length written.
 */
int tmem_auth_list(struct tmem_store *store, char *buf, size_t size)
{
	struct tmem_client *client;
	unsigned int node, i;
	uuid_t u;
	int len = 0, n;

	if (!size)
		return 0;
	buf[0] = '\0';
	read_lock(&store->pools_lock);
	for (node = 0; node < TMEM_MAX_CLIENTS; node++) {
		client = store->clients[node];
		for (i = 0; client && i < client->nr_auth; i++) {
			put_unaligned_le64(client->auth[i][0], &u.b[0]);
			put_unaligned_le64(client->auth[i][1], &u.b[8]);
			n = snprintf(buf + len, size - len, "%u %pUb\n", node,
				     &u);
			if (n >= size - len) {
				buf[len] = '\0';
				goto out;
			}
			len += n;
		}
	}
out:
	read_unlock(&store->pools_lock);
	return len;
}

/* Page operations -------------------------------------------------------- */

static int tmem_admit(struct tmem_store *store, struct tmem_pool *pool,
		      u8 node);
static int tmem_reserve(struct tmem_store *store, u8 node, u64 bytes);

/* The bytes @data keeps, as the data layer tells. */
static unsigned int tmem_data_size(struct tmem_store *store, void *data)
{
	if (!store->ops->size)
		return TMEM_PAGE_SIZE;
	return min_t(unsigned int, store->ops->size(data), TMEM_PAGE_SIZE);
}

/**
 * tmem_put_zpage() - store a page, in any form, under a handle
 * @store: the store
 * @node: the client
 * @h: the handle (the client's pool id, object id, index)
 * @src: the page's contents: a page the data layer may compress, or a
 *	page its sender compressed, which the data layer keeps as given or
 *	refuses (struct tmem_data_ops.create)
 *
 * A page already stored under @h is replaced.  A put that fails leaves no
 * page under @h: if it cannot store the new data it flushes the old.
 * Ephemeral pages go to the head of the LRU.  At a limit (tmem_set_limits(),
 * tmem_set_shares()) the put first evicts ephemeral pages, oldest first:
 * the client's own for its quota or its share, anyone's for the store's
 * page frames or its cap in bytes; if that does not get under the limit
 * the put fails with -TMEM_ENOMEM and no page is lost that a put had
 * stored before.  So does a put that needs a new object past the client's
 * max_objects.
 *
 * Context: process context; may sleep.
 * Return: 1, -TMEM_ENODEV (no such pool), -TMEM_ENOMEM, or the data
 * layer's error.
 */
int tmem_put_zpage(struct tmem_store *store, u8 node,
		   const struct tmem_handle *h, const struct tmem_zpage *src)
{
	bool wr = false, empty = false, dup = false, too_many = false;
	struct tmem_obj *obj, *fresh = NULL;
	struct tmem_pgp *pgp = NULL, *old;
	void *data = NULL, *old_data = NULL;
	int err = -TMEM_ENOMEM, ret, nodes;
	struct tmem_pool *pool;
	unsigned int size = 0;
	u64 held = 0;

	pool = tmem_pool_get(store, node, h->pool_id);
	if (!pool) {
		atomic_long_inc(&store->put_failures);
		return -TMEM_ENODEV;
	}

	ret = tmem_admit(store, pool, node);
	if (ret)
		goto out;
	data = store->ops->create(src, pool, &err);
	if (!data) {
		ret = err < 0 ? err : -TMEM_ENOMEM;
		goto out;
	}
	size = tmem_data_size(store, data);
	ret = tmem_reserve(store, node, tmem_put_charge_max(size));
	if (ret)
		goto out;
	held = tmem_put_charge_max(size);
	ret = -TMEM_ENOMEM;
	pgp = kmem_cache_alloc(tmem_pgp_cache, TMEM_GFP);
	if (!pgp)
		goto out;

	read_lock(&pool->lock);
	obj = pool->dead ? NULL : tmem_obj_find(pool, h->oid);
	if (!obj) {
		/* A new object: allocate it, then add it under the write lock. */
		read_unlock(&pool->lock);
		fresh = tmem_obj_alloc(pool, h->oid, node);
		write_lock(&pool->lock);
		wr = true;
		obj = pool->dead ? NULL : tmem_obj_find(pool, h->oid);
		if (!obj && fresh && !pool->dead) {
			too_many = !tmem_obj_link(pool, fresh);
			if (!too_many) {
				obj = fresh;
				fresh = NULL;
				held -= TMEM_OBJ_COST;
			}
		}
	}
	if (!obj) {
		/* Only the write-locked path gets here. */
		ret = pool->dead ? -TMEM_ENODEV : -TMEM_ENOMEM;
		write_unlock(&pool->lock);
		goto out;
	}

	spin_lock(&obj->lock);
	old = xa_load(&obj->pages, h->index);
	if (old) {
		/* A duplicate put: the new data replaces the old. */
		old_data = old->data;
		old->data = data;
		data = NULL;
		dup = true;
		spin_lock(&store->lock);
		tmem_pgp_uncount(store, old);
		old->node = node;
		old->size = size;
		tmem_pgp_count(store, old);
		spin_unlock(&store->lock);
		held -= TMEM_PGP_COST + size;
		ret = 1;
	} else {
		pgp->obj = obj;
		pgp->data = data;
		pgp->index = h->index;
		pgp->node = node;
		pgp->size = size;
		nodes = tmem_index_add(obj, pgp);
		if (nodes >= 0) {
			obj->nr_pages++;
			obj->xa_nodes += nodes;
			spin_lock(&store->lock);
			tmem_pgp_count(store, pgp);
			/* The object's owner pays for its index. */
			__tmem_charge(store, node,
				      -(s64)(nodes * TMEM_XA_NODE_COST));
			__tmem_charge(store, obj->owner,
				      nodes * TMEM_XA_NODE_COST);
			spin_unlock(&store->lock);
			held -= TMEM_PGP_COST + size +
				nodes * TMEM_XA_NODE_COST;
			data = NULL;
			pgp = NULL;
			ret = 1;
		} else {
			empty = !obj->nr_pages;
		}
	}
	spin_unlock(&obj->lock);
	if (wr)
		write_unlock(&pool->lock);
	else
		read_unlock(&pool->lock);

out:
	if (held)
		tmem_charge(store, node, -(s64)held);
	if (fresh)
		tmem_obj_free(fresh);
	if (pgp)
		kmem_cache_free(tmem_pgp_cache, pgp);
	if (data)
		store->ops->free(data, pool);
	if (old_data)
		store->ops->free(old_data, pool);
	if (empty)
		tmem_obj_reap(pool, h->oid);
	if (too_many)
		atomic_long_inc(&store->reject_objects);

	if (ret == 1) {
		atomic_long_inc(&store->puts);
		if (dup)
			atomic_long_inc(&store->dup_puts);
	} else {
		atomic_long_inc(&store->put_failures);
		/* Never fail while keeping older data under the handle. */
		if (ret != -TMEM_ENODEV &&
		    tmem_pool_flush_page(store, pool, h->oid, h->index, NULL))
			atomic_long_inc(&store->dup_put_flushes);
	}
	tmem_pool_put(pool);
	return ret;
}
EXPORT_SYMBOL_GPL(tmem_put_zpage);

/**
 * tmem_put() - store a page under a handle
 * @store: the store
 * @node: the client
 * @h: the handle (the client's pool id, object id, index)
 * @page: TMEM_PAGE_SIZE bytes, which the data layer may compress
 *
 * As tmem_put_zpage().
 *
 * Context: process context; may sleep.
 * Return: as tmem_put_zpage().
 */
int tmem_put(struct tmem_store *store, u8 node, const struct tmem_handle *h,
	     const void *page)
{
	const struct tmem_zpage src = {
		.enc = TMEM_ZENC_PAGE,
		.arg = TMEM_PAGE_SIZE,
		.data = page,
	};

	return tmem_put_zpage(store, node, h, &src);
}
EXPORT_SYMBOL_GPL(tmem_put);

/*
 * Copy @data out: with @z NULL its page into @buf, else its stored form
 * into @z with the bytes in @buf.  May run under spinlocks.
 */
static int tmem_data_read(struct tmem_store *store, void *data, void *buf,
			  struct tmem_zpage *z)
{
	int ret;

	if (!z)
		return store->ops->get(data, buf);
	if (store->ops->get_stored)
		return store->ops->get_stored(data, z, buf);
	ret = store->ops->get(data, buf);
	z->enc = TMEM_ZENC_RAW;
	z->arg = TMEM_PAGE_SIZE;
	z->data = buf;
	return ret;
}

/* tmem_get() and tmem_get_zpage(): @z as for tmem_data_read(). */
static int tmem_get_any(struct tmem_store *store, u8 node,
			const struct tmem_handle *h, void *buf,
			struct tmem_zpage *z)
{
	struct tmem_pgp *pgp = NULL;
	struct tmem_pool *pool;
	struct tmem_obj *obj;
	bool exclusive, found, empty = false;
	int ret = 0;

	pool = tmem_pool_get(store, node, h->pool_id);
	if (!pool)
		return -TMEM_ENODEV;
	exclusive = !pool->persistent && !pool->shared;

	read_lock(&pool->lock);
	obj = pool->dead ? NULL : tmem_obj_find(pool, h->oid);
	if (obj) {
		spin_lock(&obj->lock);
		pgp = xa_load(&obj->pages, h->index);
		if (pgp && exclusive) {
			tmem_pgp_remove(store, pgp);
			empty = !obj->nr_pages;
		} else if (pgp) {
			ret = tmem_data_read(store, pgp->data, buf, z);
			if (!pool->persistent) {
				spin_lock(&store->lock);
				list_move(&pgp->lru, &store->lru);
				spin_unlock(&store->lock);
			}
		}
		spin_unlock(&obj->lock);
	}
	read_unlock(&pool->lock);

	found = pgp;
	if (found && exclusive) {
		ret = tmem_data_read(store, pgp->data, buf, z);
		tmem_pgp_free(store, pool, pgp);
		if (empty)
			tmem_obj_reap(pool, h->oid);
	}

	if (!found) {
		atomic_long_inc(&store->get_misses);
	} else if (ret < 0) {
		atomic_long_inc(&store->get_errors);
	} else {
		atomic_long_inc(&store->get_hits);
		ret = 1;
	}
	tmem_pool_put(pool);
	return ret;
}

/**
 * tmem_get() - copy a stored page out
 * @store: the store
 * @node: the client
 * @h: the handle
 * @page: TMEM_PAGE_SIZE bytes to fill
 *
 * A get from a private ephemeral pool is exclusive: a page found leaves
 * the store.  Persistent and shared pools keep it; a shared (ephemeral)
 * page found moves to the head of the LRU.
 *
 * Context: process context.
 * Return: 1 found, 0 not found, -TMEM_ENODEV (no such pool), or the data
 * layer's error (the page then is lost if the get was exclusive).
 */
int tmem_get(struct tmem_store *store, u8 node, const struct tmem_handle *h,
	     void *page)
{
	return tmem_get_any(store, node, h, page, NULL);
}
EXPORT_SYMBOL_GPL(tmem_get);

/**
 * tmem_get_zpage() - copy a stored page out in the form it is kept in
 * @store: the store
 * @node: the client
 * @h: the handle
 * @z: filled in when found: the form (never %TMEM_ZENC_PAGE), and @buf
 *	as its data
 * @buf: TMEM_PAGE_SIZE bytes for the data
 *
 * As tmem_get(), but the data layer gives the page as it keeps it
 * (struct tmem_data_ops.get_stored), without decompressing it.
 *
 * Context: process context.
 * Return: as tmem_get().
 */
int tmem_get_zpage(struct tmem_store *store, u8 node,
		   const struct tmem_handle *h, struct tmem_zpage *z, void *buf)
{
	return tmem_get_any(store, node, h, buf, z);
}
EXPORT_SYMBOL_GPL(tmem_get_zpage);

/**
 * tmem_flush_page() - drop a page
 * @store: the store
 * @node: the client
 * @h: the handle
 *
 * Context: process context; may sleep.
 * Return: 1 (also when no page was stored under @h, as in Xen), or
 * -TMEM_ENODEV.
 */
int tmem_flush_page(struct tmem_store *store, u8 node,
		    const struct tmem_handle *h)
{
	struct tmem_pool *pool = tmem_pool_get(store, node, h->pool_id);

	if (!pool)
		return -TMEM_ENODEV;
	atomic_long_inc(&store->flush_pages);
	if (tmem_pool_flush_page(store, pool, h->oid, h->index, NULL))
		atomic_long_inc(&store->flushed_pages);
	tmem_pool_put(pool);
	return 1;
}
EXPORT_SYMBOL_GPL(tmem_flush_page);

/**
 * tmem_flush_object() - drop every page of an object
 * @store: the store
 * @node: the client
 * @h: the handle: its pool id and object id (the index is ignored)
 *
 * Context: process context; may sleep.
 * Return: 1 (also when there was no such object, as in Xen), or
 * -TMEM_ENODEV.
 */
int tmem_flush_object(struct tmem_store *store, u8 node,
		      const struct tmem_handle *h)
{
	struct tmem_pool *pool = tmem_pool_get(store, node, h->pool_id);
	struct tmem_obj *obj;

	if (!pool)
		return -TMEM_ENODEV;
	atomic_long_inc(&store->flush_objects);

	write_lock(&pool->lock);
	obj = tmem_obj_find(pool, h->oid);
	if (obj)
		tmem_obj_unlink(pool, obj);
	write_unlock(&pool->lock);
	if (obj)
		atomic_long_add(tmem_obj_destroy(store, pool, obj),
				&store->flushed_pages);
	tmem_pool_put(pool);
	return 1;
}

/* Eviction --------------------------------------------------------------- */

/*
 * The oldest ephemeral page, of @node unless @node is -1 (looking no
 * further than TMEM_EVICT_SCAN pages from the tail); store->lock held.
 */
static struct tmem_pgp *tmem_lru_oldest(struct tmem_store *store, int node)
{
	struct tmem_pgp *pgp;
	int scanned = 0;

	list_for_each_entry_reverse(pgp, &store->lru, lru) {
		if (node < 0 || pgp->node == node)
			return pgp;
		if (++scanned == TMEM_EVICT_SCAN)
			break;
	}
	return NULL;
}

/* tmem_evict(), of @node's pages only unless @node is -1. */
static unsigned long tmem_evict_some(struct tmem_store *store,
				     unsigned long nr, int node)
{
	unsigned long done = 0;
	int missed = 0;

	while (done < nr && missed < TMEM_EVICT_MISSES) {
		struct tmem_pool *pool;
		struct tmem_pgp *pgp;
		u64 oid[3];
		u32 index;

		spin_lock(&store->lock);
		pgp = tmem_lru_oldest(store, node);
		if (pgp) {
			list_move(&pgp->lru, &store->lru);
			pool = pgp->obj->pool;
			refcount_inc(&pool->refs);
			memcpy(oid, pgp->obj->oid, sizeof(oid));
			index = pgp->index;
		}
		spin_unlock(&store->lock);
		if (!pgp)
			break;

		if (tmem_pool_flush_page(store, pool, oid, index, pgp)) {
			atomic_long_inc(&store->evictions);
			done++;
			missed = 0;
		} else {
			missed++;
		}
		tmem_pool_put(pool);
		cond_resched();
	}
	return done;
}

/**
 * tmem_evict() - free the least recently used ephemeral pages
 * @store: the store
 * @nr: how many
 *
 * Persistent pages are never evicted.  The oldest page is picked under
 * store->lock and moved to the LRU head (so that concurrent evictors pick
 * different pages), then flushed in the usual lock order if it is still
 * stored.  A page that went away in between is not counted; if its handle
 * was put again meanwhile, the newer page may be the one evicted, which an
 * ephemeral pool allows.
 *
 * Context: process context; may sleep.
 * Return: the number of pages freed; less than @nr when the LRU ran dry
 * or pages kept going away under it.
 */
unsigned long tmem_evict(struct tmem_store *store, unsigned long nr)
{
	return tmem_evict_some(store, nr, -1);
}

/* Limits ----------------------------------------------------------------- */

/* Pages @node has stored now. */
static u64 tmem_client_total(struct tmem_store *store, u8 node)
{
	u64 n;

	spin_lock(&store->lock);
	n = store->client_pages[node][0] + store->client_pages[node][1];
	spin_unlock(&store->lock);
	return n;
}

/* Is the machine short of memory for its own work?  See tmem_set_limits(). */
static bool tmem_memory_low(struct tmem_store *store)
{
	unsigned long min_avail = READ_ONCE(store->min_avail);

	return min_avail && si_mem_available() < (long)min_avail;
}

/*
 * May @node put a page into @pool now?  Evicts ephemeral pages to get
 * under the limits and above the memory the machine keeps for itself; 0
 * or -TMEM_ENOMEM.  A duplicate put is held to the limits too: it may
 * need more room than the page it replaces.
 */
static int tmem_admit(struct tmem_store *store, struct tmem_pool *pool,
		      u8 node)
{
	bool over_quota, over_frames, low;
	unsigned long want;
	int round;

	for (round = 0; ; round++) {
		unsigned long quota = READ_ONCE(store->client_quota);
		unsigned long frames = READ_ONCE(store->max_frames);
		u64 total = quota ? tmem_client_total(store, node) : 0;

		over_quota = quota && total >= quota;
		over_frames = frames && store->ops->frames &&
			      store->ops->frames(store->priv) >= frames;
		low = !over_quota && !over_frames && tmem_memory_low(store);
		if (!over_quota && !over_frames && !low)
			return 0;
		/*
		 * Just enough for the quota; frames free up page by page, and
		 * memory as whole frames empty: a batch at a time.
		 */
		want = over_quota ? total - quota + 1 :
		       low ? TMEM_LOW_EVICT : 1;
		if (round == TMEM_ADMIT_ROUNDS ||
		    !tmem_evict_some(store, want, over_quota ? node : -1))
			break;
	}
	atomic_long_inc(over_quota ? &store->reject_quota :
			low ? &store->reject_low_memory :
			&store->reject_limit);
	return -TMEM_ENOMEM;
}

/*
 * Charge @node @bytes for a put, within the store's cap in bytes and the
 * client's share (tmem_set_shares()): evicts ephemeral pages to make room,
 * the client's own for its share, anyone's for the cap, oldest first.  0,
 * or -TMEM_ENOMEM with nothing charged.
 */
static int tmem_reserve(struct tmem_store *store, u8 node, u64 bytes)
{
	bool over_share = false;
	u64 cap, share, excess;
	int round;

	for (round = 0; ; round++) {
		cap = tmem_cap_bytes(store);
		share = cap ? tmem_share(store, node, cap) : 0;
		excess = 0;
		spin_lock(&store->lock);
		over_share = cap && store->client_charge[node] + bytes > share;
		if (over_share)
			excess = store->client_charge[node] + bytes - share;
		else if (cap && store->charge + bytes > cap)
			excess = store->charge + bytes - cap;
		else
			__tmem_charge(store, node, bytes);
		spin_unlock(&store->lock);
		if (!excess)
			return 0;
		/* No page gives back more than TMEM_PAGE_CHARGE_MAX. */
		if (round == TMEM_CHARGE_ROUNDS ||
		    !tmem_evict_some(store,
				     div64_u64(excess + TMEM_PAGE_CHARGE_MAX - 1,
					       TMEM_PAGE_CHARGE_MAX),
				     over_share ? node : -1))
			break;
	}
	atomic_long_inc(over_share ? &store->reject_share :
			&store->reject_limit);
	return -TMEM_ENOMEM;
}

/**
 * tmem_set_limits() - set a store's limits, from then on
 * @store: the store
 * @max_frames: page frames its data may hold (&tmem_data_ops.frames), or 0
 *	for no limit
 * @client_quota: pages one client may have stored, or 0 for no limit
 * @min_avail: pages the machine keeps available for its own work
 *	(si_mem_available(), MemAvailable), or 0 for no reserve: below it a
 *	put first evicts ephemeral pages, then is refused
 *
 * Pages stored beyond new limits stay until eviction or flushes make room;
 * only puts are held to them.
 */
void tmem_set_limits(struct tmem_store *store, unsigned long max_frames,
		     unsigned long client_quota, unsigned long min_avail)
{
	WRITE_ONCE(store->max_frames, max_frames);
	WRITE_ONCE(store->client_quota, client_quota);
	WRITE_ONCE(store->min_avail, min_avail);
}
EXPORT_SYMBOL_GPL(tmem_set_limits);

/**
 * tmem_set_shares() - hold each client to a share of a store, from then on
 * @store: the store
 * @share_percent: 1..100: the clients' charges together may come to the
 *	store's max_frames (tmem_set_limits()) in bytes, and one client's to
 *	this percentage of that times its weight in percent
 *	(tmem_set_weight()), at most all of it; 0, a new store's: no limit
 *	in bytes (nor without max_frames)
 * @max_objects: objects the puts of one client may have made that are in
 *	the store, or 0 for no limit
 *
 * A put that would take its client's charge past its share first evicts
 * the client's ephemeral pages, oldest first; past the cap, anyone's.
 * Charges past new limits stay until eviction or flushes make room; only
 * puts are held to them.
 */
void tmem_set_shares(struct tmem_store *store, unsigned int share_percent,
		     unsigned long max_objects)
{
	WRITE_ONCE(store->share_percent, min(share_percent, 100U));
	WRITE_ONCE(store->max_objects, max_objects);
}
EXPORT_SYMBOL_GPL(tmem_set_shares);

/**
 * tmem_set_weight() - a client's weight for its share, from then on
 * @store: the store
 * @node: the client
 * @weight: 1..TMEM_WEIGHT_MAX, in percent of the share of a client of the
 *	default weight (TMEM_WEIGHT_DEFAULT, every client's in a new store);
 *	taken into that range
 *
 * A lower share holds the client's next put; what it has stays.
 */
void tmem_set_weight(struct tmem_store *store, u8 node, unsigned int weight)
{
	WRITE_ONCE(store->weight[node],
		   clamp_t(unsigned int, weight, 1, TMEM_WEIGHT_MAX));
}
EXPORT_SYMBOL_GPL(tmem_set_weight);

/* Counters --------------------------------------------------------------- */

/**
 * tmem_stats_snapshot() - read a store's counters
 * @store: the store
 * @st: filled in
 */
void tmem_stats_snapshot(struct tmem_store *store, struct tmem_stats *st)
{
	spin_lock(&store->lock);
	st->eph_pages = store->pages[0];
	st->pers_pages = store->pages[1];
	st->charge_bytes = store->charge;
	spin_unlock(&store->lock);
	st->objects = atomic_long_read(&store->objects);
	st->pools = atomic_long_read(&store->pools);
	st->shared_pools = atomic_long_read(&store->shared_pools);
	st->puts = atomic_long_read(&store->puts);
	st->put_failures = atomic_long_read(&store->put_failures);
	st->dup_puts = atomic_long_read(&store->dup_puts);
	st->dup_put_flushes = atomic_long_read(&store->dup_put_flushes);
	st->get_hits = atomic_long_read(&store->get_hits);
	st->get_misses = atomic_long_read(&store->get_misses);
	st->get_errors = atomic_long_read(&store->get_errors);
	st->flush_pages = atomic_long_read(&store->flush_pages);
	st->flush_objects = atomic_long_read(&store->flush_objects);
	st->flushed_pages = atomic_long_read(&store->flushed_pages);
	st->evictions = atomic_long_read(&store->evictions);
	st->reject_limit = atomic_long_read(&store->reject_limit);
	st->reject_quota = atomic_long_read(&store->reject_quota);
	st->reject_low_memory = atomic_long_read(&store->reject_low_memory);
	st->shared_emptied = atomic_long_read(&store->shared_emptied);
	st->reject_share = atomic_long_read(&store->reject_share);
	st->reject_objects = atomic_long_read(&store->reject_objects);
}
EXPORT_SYMBOL_GPL(tmem_stats_snapshot);

/**
 * tmem_client_stats() - read one client's share of a store
 * @store: the store
 * @node: the client
 * @cs: filled in
 */
void tmem_client_stats(struct tmem_store *store, u8 node,
		       struct tmem_client_stats *cs)
{
	u64 cap = tmem_cap_bytes(store);
	struct tmem_client *client;
	int id;

	spin_lock(&store->lock);
	cs->eph_pages = store->client_pages[node][0];
	cs->pers_pages = store->client_pages[node][1];
	cs->charge_bytes = store->client_charge[node];
	cs->objects = store->client_objects[node];
	spin_unlock(&store->lock);
	cs->share_bytes = cap ? tmem_share(store, node, cap) : 0;
	cs->weight = READ_ONCE(store->weight[node]);

	cs->pools = 0;
	read_lock(&store->pools_lock);
	client = store->clients[node];
	for (id = 0; client && id < TMEM_MAX_POOLS_PER_CLIENT; id++) {
		if (client->pools[id])
			cs->pools++;
	}
	read_unlock(&store->pools_lock);
}

/* Stores ----------------------------------------------------------------- */

/**
 * tmem_store_create() - an empty store
 * @ops: how it keeps page contents; must outlive the store
 * @priv: the data layer's own pointer, for the ops (tmem_pool_priv())
 *
 * Context: process context; may sleep.
 * Return: the store, or NULL when out of memory.
 */
struct tmem_store *tmem_store_create(const struct tmem_data_ops *ops,
				     void *priv)
{
	struct tmem_store *store = kzalloc(sizeof(*store), GFP_KERNEL);
	int node;

	if (!store)
		return NULL;
	store->ops = ops;
	store->priv = priv;
	for (node = 0; node < TMEM_MAX_CLIENTS; node++)
		store->weight[node] = TMEM_WEIGHT_DEFAULT;
	rwlock_init(&store->pools_lock);
	spin_lock_init(&store->lock);
	INIT_LIST_HEAD(&store->lru);
	return store;
}
EXPORT_SYMBOL_GPL(tmem_store_create);

/**
 * tmem_store_tag_ids() - give pool ids a client cannot mistake
 * @store: a store with no pool yet
 *
 * From now on a pool's id is its slot with a tag above it, starting at a
 * random tag: an id a client kept from before a pool was destroyed (by
 * the client, by its grace period running out, or with a store that
 * restarted) names no pool, rather than whichever pool has its slot now.
 *
 * Context: process context, before the store is used.
 */
void tmem_store_tag_ids(struct tmem_store *store)
{
	write_lock(&store->pools_lock);
	store->tag = get_random_u32() % TMEM_POOL_TAG_MAX + 1;
	write_unlock(&store->pools_lock);
}
EXPORT_SYMBOL_GPL(tmem_store_tag_ids);

/**
 * tmem_store_destroy() - free a store with every pool and page in it
 * @store: the store, or NULL
 *
 * No other call on @store may run at the same time or after.
 *
 * Context: process context; may sleep.
 */
void tmem_store_destroy(struct tmem_store *store)
{
	int node;

	if (!store)
		return;
	for (node = 0; node < TMEM_MAX_CLIENTS; node++) {
		tmem_destroy_client(store, node);
		kfree(store->clients[node]);
	}
	WARN_ON_ONCE(store->pages[0] || store->pages[1] || store->charge ||
		     !list_empty(&store->lru));
	kfree(store);
}
EXPORT_SYMBOL_GPL(tmem_store_destroy);

/**
 * tmem_init() - set up what every store shares
 *
 * Return: 0 or -ENOMEM.
 */
int tmem_init(void)
{
	tmem_obj_cache = kmem_cache_create(RAMSTER_STORE_PREFIX "tmem_obj",
					   sizeof(struct tmem_obj), 0, 0, NULL);
	if (!tmem_obj_cache)
		return -ENOMEM;
	tmem_pgp_cache = kmem_cache_create(RAMSTER_STORE_PREFIX "tmem_pgp",
					   sizeof(struct tmem_pgp), 0, 0, NULL);
	if (!tmem_pgp_cache) {
		kmem_cache_destroy(tmem_obj_cache);
		return -ENOMEM;
	}
	return 0;
}

/**
 * tmem_exit() - undo tmem_init(), once every store is gone
 */
void tmem_exit(void)
{
	kmem_cache_destroy(tmem_pgp_cache);
	kmem_cache_destroy(tmem_obj_cache);
}
