/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tmem.h - the memory server's transcendent memory store.
 *
 * The store keeps pages for client nodes.  A client (a node number) owns up
 * to TMEM_MAX_POOLS_PER_CLIENT pools in slots 0..15; a pool's id is its
 * slot, with a tag above it on a store that tags ids (the memory server's:
 * tmem_store_tag_ids()), so that an old id never names a newer pool; a pool is
 * persistent (frontswap: a page stays until it is flushed) or ephemeral
 * (cleancache: a page may vanish at any time), private or shared (several
 * clients name the same ephemeral pool by its uuid).  Inside a pool, pages
 * are named by a 192-bit object id and a 32-bit index (struct tmem_handle).
 *
 * The store does not hold page contents itself: the data layer (zcache)
 * turns a page, or a page its sender compressed (a zpage), into an opaque
 * data pointer and back through the struct tmem_data_ops given at
 * tmem_store_create().
 *
 * Each client is charged in bytes for what its pages cost the store: their
 * data as kept (struct tmem_data_ops.size), their descriptors, objects and
 * indexes, and its pools (tmem.c's Charges).  With tmem_set_shares() the
 * charges are held to the store's page frames in bytes, and each client's
 * to a share of that.
 *
 * Results follow Xen's tmem (shared-abi/tmem_abi.h): >= 0 is success
 * (NEW_POOL: the pool id; PUT, FLUSH_*, DESTROY_POOL: 1; GET: 1 found, 0 not
 * found), < 0 is minus one of enum tmem_errno.  Nothing a client sends can
 * make the store misbehave: out-of-range pool ids, any object id or index,
 * and any flags give errors.
 */
#ifndef RAMSTER_BACKEND_TMEM_H
#define RAMSTER_BACKEND_TMEM_H

#include <linux/types.h>
#include "tmem_abi.h"

/* Node numbers are u8: this many clients at most. */
#define TMEM_MAX_CLIENTS	256

struct tmem_store;
struct tmem_pool;

/*
 * The longest LZO1X stream a page is kept or sent as: shorter than the
 * page, else it is sent whole (r2net_wire.h's R2NET_ZPAGE_LZO_MAX).
 */
#define TMEM_ZPAGE_LZO_MAX	(TMEM_PAGE_SIZE - 1)

/**
 * enum tmem_zenc - the forms a page's contents come in
 * @TMEM_ZENC_PAGE: the page, TMEM_PAGE_SIZE bytes, which the data layer
 *	may compress (PUT_PAGE)
 * @TMEM_ZENC_SAME: every 32-bit word of the page is the value in arg; no
 *	data
 * @TMEM_ZENC_LZO: arg bytes (1..TMEM_ZPAGE_LZO_MAX) of LZO1X stream that
 *	should decompress to the page; kept as given, never decompressed to
 *	be stored
 * @TMEM_ZENC_RAW: the page, TMEM_PAGE_SIZE bytes, which its sender found
 *	did not compress: kept whole, or refused where an incompressible
 *	page is
 */
enum tmem_zenc {
	TMEM_ZENC_PAGE,
	TMEM_ZENC_SAME,
	TMEM_ZENC_LZO,
	TMEM_ZENC_RAW,
};

/**
 * struct tmem_zpage - a page's contents in one of the forms of tmem_zenc
 * @enc: the form
 * @arg: %TMEM_ZENC_SAME: the value; the others: how many bytes @data has
 * @data: the bytes (none for %TMEM_ZENC_SAME)
 */
struct tmem_zpage {
	enum tmem_zenc enc;
	u32 arg;
	const void *data;
};

/**
 * struct tmem_data_ops - how the store keeps a page's contents
 * @create: make the data for @src stored in @pool: a %TMEM_ZENC_PAGE page
 *	the data layer may compress; any other form it keeps as given or
 *	refuses (it checks @src->arg).  Returns the data, or NULL with *@err
 *	set to a negative tmem errno (usually -TMEM_ENOMEM); the put then
 *	fails.  Process context, no store lock held; may sleep.
 * @get: copy the data's page into @page.  Returns 0, or a negative tmem
 *	errno that the get returns.  Called with spinlocks held (when the
 *	page stays in the store): must not sleep.
 * @get_stored: optional: give the data as it is kept, without
 *	decompressing it: fill in @z (never %TMEM_ZENC_PAGE) with its bytes
 *	copied to @buf (TMEM_PAGE_SIZE bytes) and @z->data pointing there.
 *	Returns 0 or a negative tmem errno, in the same context as @get.
 *	Without it a zpage get copies the page out with @get and gives it as
 *	%TMEM_ZENC_RAW.
 * @free: free the data.  Process context, no store lock held.
 * @frames: how many page frames the data of the store with this priv
 *	(tmem_store_create()) holds now; optional: without it the store's
 *	max_frames limit does nothing.  Process context, no store lock held.
 * @size: optional: the bytes the data keeps (at most TMEM_PAGE_SIZE; 0
 *	for a page kept in the data pointer itself), which its client is
 *	charged for; without it every page counts TMEM_PAGE_SIZE.  Process
 *	context, no store lock held.
 */
struct tmem_data_ops {
	void *(*create)(const struct tmem_zpage *src, struct tmem_pool *pool,
			int *err);
	int (*get)(void *data, void *page);
	int (*get_stored)(void *data, struct tmem_zpage *z, void *buf);
	void (*free)(void *data, struct tmem_pool *pool);
	unsigned long (*frames)(void *priv);
	unsigned int (*size)(void *data);
};

/**
 * struct tmem_stats - a snapshot of a store's counters
 * @eph_pages: ephemeral pages stored now
 * @pers_pages: persistent pages stored now
 * @objects: objects now
 * @pools: pools now (a shared pool counts once)
 * @shared_pools: shared pools now
 * @puts: puts that stored their page
 * @put_failures: puts that failed (no pool, no memory, data refused)
 * @dup_puts: puts that replaced a page stored under the same handle
 * @dup_put_flushes: failed puts that flushed the page the handle held
 * @get_hits: gets that found their page
 * @get_misses: gets that did not
 * @get_errors: gets whose data could not be read back
 * @flush_pages: flush-page operations
 * @flush_objects: flush-object operations
 * @flushed_pages: pages freed by flush operations
 * @evictions: ephemeral pages evicted (tmem_evict(), and puts at a limit)
 * @reject_limit: puts refused: the store's page frames at max_frames
 * @reject_quota: puts refused: their client at its quota
 * @reject_low_memory: puts refused: the machine below the memory it keeps
 *	for its own work (tmem_set_limits()'s @min_avail)
 * @shared_emptied: shared pools emptied because a client in them went
 *	down (its flushes in flight may never come)
 * @charge_bytes: what every client is charged for now (tmem_set_shares())
 * @reject_share: puts refused: their client at its share
 * @reject_objects: puts refused: a new object past the client's
 *	max_objects
 *
 * @reject_limit also counts puts refused because the clients' charges
 * would pass the store's page frames in bytes (tmem_set_shares()).
 */
struct tmem_stats {
	u64 eph_pages;
	u64 pers_pages;
	u64 objects;
	u64 pools;
	u64 shared_pools;
	u64 puts;
	u64 put_failures;
	u64 dup_puts;
	u64 dup_put_flushes;
	u64 get_hits;
	u64 get_misses;
	u64 get_errors;
	u64 flush_pages;
	u64 flush_objects;
	u64 flushed_pages;
	u64 evictions;
	u64 reject_limit;
	u64 reject_quota;
	u64 reject_low_memory;
	u64 shared_emptied;
	u64 charge_bytes;
	u64 reject_share;
	u64 reject_objects;
};

/**
 * struct tmem_client_stats - one client's share of a store
 * @eph_pages: ephemeral pages it put that are stored now
 * @pers_pages: persistent pages it put that are stored now
 * @pools: its pool slots in use (shared pools included)
 * @charge_bytes: what it is charged for now (tmem_set_shares())
 * @share_bytes: what it may be charged for; 0 when the store does not
 *	limit bytes
 * @weight: its weight (tmem_set_weight())
 * @objects: objects its puts made that are in the store now
 *
 * A page is charged to the client whose put stored it, also in a shared
 * pool; it stays charged to that client until it leaves the store.  An
 * object and its index are charged to the client whose put made it, a
 * pool to the client that made it.
 */
struct tmem_client_stats {
	u64 eph_pages;
	u64 pers_pages;
	unsigned int pools;
	u64 charge_bytes;
	u64 share_bytes;
	unsigned int weight;
	u64 objects;
};

/* A client's weight for its share (tmem_set_weight()): the default, most. */
#define TMEM_WEIGHT_DEFAULT	100
#define TMEM_WEIGHT_MAX		1000

int tmem_init(void);
void tmem_exit(void);

struct tmem_store *tmem_store_create(const struct tmem_data_ops *ops,
				     void *priv);
void tmem_store_destroy(struct tmem_store *store);
void tmem_store_tag_ids(struct tmem_store *store);

int tmem_new_pool(struct tmem_store *store, u8 node, u32 flags,
		  const u64 uuid[2]);
int tmem_destroy_pool(struct tmem_store *store, u8 node, u32 pool_id);
int tmem_destroy_client(struct tmem_store *store, u8 node);
void tmem_client_away(struct tmem_store *store, u8 node);
int tmem_client_gone_shared(struct tmem_store *store, u8 node);
int tmem_destroy_client_away(struct tmem_store *store, u8 node);
int tmem_auth_shared(struct tmem_store *store, u8 node, const u64 uuid[2],
		     bool allow);
int tmem_auth_list(struct tmem_store *store, char *buf, size_t size);

int tmem_put(struct tmem_store *store, u8 node, const struct tmem_handle *h,
	     const void *page);
int tmem_put_zpage(struct tmem_store *store, u8 node,
		   const struct tmem_handle *h, const struct tmem_zpage *src);
int tmem_get(struct tmem_store *store, u8 node, const struct tmem_handle *h,
	     void *page);
int tmem_get_zpage(struct tmem_store *store, u8 node,
		   const struct tmem_handle *h, struct tmem_zpage *z, void *buf);
int tmem_flush_page(struct tmem_store *store, u8 node,
		    const struct tmem_handle *h);
int tmem_flush_object(struct tmem_store *store, u8 node,
		      const struct tmem_handle *h);

unsigned long tmem_evict(struct tmem_store *store, unsigned long nr);
void tmem_set_limits(struct tmem_store *store, unsigned long max_frames,
		     unsigned long client_quota, unsigned long min_avail);
void tmem_set_shares(struct tmem_store *store, unsigned int share_percent,
		     unsigned long max_objects);
void tmem_set_weight(struct tmem_store *store, u8 node, unsigned int weight);
u64 tmem_put_charge_max(unsigned int size);

void tmem_stats_snapshot(struct tmem_store *store, struct tmem_stats *st);
void tmem_client_stats(struct tmem_store *store, u8 node,
		       struct tmem_client_stats *cs);

bool tmem_pool_persistent(const struct tmem_pool *pool);
bool tmem_pool_shared(const struct tmem_pool *pool);
void *tmem_pool_priv(const struct tmem_pool *pool);

/* tmem_selftest.c: runs every case; returns how many failed. */
int tmem_selftest(void);

#endif /* RAMSTER_BACKEND_TMEM_H */
