/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ramster_frontend.h - what the frontend's files share: the module's
 * settings, its counters and the frontswap half's entry points.
 */
#ifndef RAMSTER_FRONTEND_H
#define RAMSTER_FRONTEND_H

#include <linux/atomic.h>
#include <linux/types.h>

struct dentry;
struct r2net_node_ops;

/* What happens to swap pages the memory server holds (module "mode"). */
enum rf_mode {
	RF_MODE_WRITETHROUGH,	/* the swap disk has every page too */
	RF_MODE_NONE,		/* only the server: a lost page is SIGBUS */
	RF_MODE_REPLICATE,	/* two servers, target and replica */
};

#define RF_MAX_REPLICAS	2

/*
 * params.c: the module's parameters, set once at load (but timeout_ms):
 * the memory server, the mode, r2net's timeout, the halves that are on.
 */
extern u8 rf_target;
extern u8 rf_replica;			/* the second server (replicate) */
extern enum rf_mode rf_mode;
extern unsigned int rf_timeout_ms;
extern unsigned int rf_window_wait_ms;
extern unsigned int rf_wt_load_ms;
extern unsigned int rf_server_wait_ms;
extern unsigned int rf_cc_index_max;
extern unsigned int rf_window;		/* stores in flight; 0: synchronous */
extern unsigned int rf_cc_window;	/* cleancache puts queued at most */
extern unsigned int rf_cc_prefetch;	/* cleancache gets sent ahead */
extern unsigned int rf_swap_prefetch;	/* swap gets sent ahead */
extern bool rf_frontswap;		/* swap pages go to the server */
extern bool rf_cleancache;		/* clean page-cache pages go too */
int rf_check_params(void);
void rf_params_log(void);

/* Round trips of one kind of request (tmem_client.c: rf_rtt_add()). */
struct rf_rtt {
	atomic64_t us_total;
	atomic64_t us_max;
	atomic64_t samples;
};

/* Counters, in debugfs under /sys/kernel/debug/ramster_frontend/. */
struct rf_stats {
	atomic64_t remote_puts;		/* pages the server(s) accepted */
	atomic64_t remote_put_failures;	/* refused, or r2net failed */
	atomic64_t remote_gets;		/* GET_PAGE requests sent */
	atomic64_t remote_get_hits;	/* pages that came back */
	atomic64_t remote_get_misses;	/* the server did not have it */
	atomic64_t remote_get_failures;	/* error status, bad reply, r2net */
	atomic64_t remote_flushes;	/* FLUSH_PAGE/OBJECT the server did */
	atomic64_t remote_flush_failures; /* not sent, or an error status */
	atomic64_t flushes_dropped;	/* no memory to queue an invalidation */
	atomic64_t stores_no_pool;	/* refused: no pool on the server */
	atomic64_t stores_low_memory;	/* refused: below min watermarks */
	atomic64_t pools_created;
	atomic64_t pools_destroyed;
	atomic64_t remote_in_flight;	/* requests waiting for a reply */
	atomic64_t window_waits;	/* a store waited for a free slot */
	atomic64_t window_full;		/* ... and gave up: the disk took it */
	atomic64_t window_hits;		/* loads served from a slot in flight */
	atomic64_t window_lost;		/* accepted stores the server refused */
	atomic64_t put_batches;		/* PUT_ZPAGES frames of the window */
	atomic64_t put_batch_waits;	/* stores held for a batch in flight */
	atomic64_t lost_loads;		/* loads of those: read from the disk */
	atomic64_t replica_loads;	/* loads the replica answered */
	atomic64_t wt_load_timeouts;	/* no answer in wt_load_ms: disk */
	atomic64_t wt_quiet_loads;	/* the server was quiet: disk */
	atomic64_t wt_quiet_stores;	/* the server was quiet: disk alone */
	atomic64_t load_waits;		/* none: a load waited for a server */
	atomic64_t load_wait_fails;	/* ... that did not answer in time */
	/* cleancache */
	atomic64_t cc_puts;		/* pages the server took */
	atomic64_t cc_put_failures;	/* it did not, or r2net failed */
	atomic64_t cc_put_batches;	/* PUT_ZPAGES frames of puts */
	atomic64_t cc_puts_dropped;	/* not sent: no pool, server or slot */
	atomic64_t cc_gets;		/* GET_PAGE requests sent */
	atomic64_t cc_get_hits;
	atomic64_t cc_get_misses;
	atomic64_t cc_get_index_misses;	/* ... of which not sent: not put */
	atomic64_t cc_get_failures;	/* error status, bad reply, r2net */
	atomic64_t cc_get_discarded;	/* came back after the pool went stale */
	atomic64_t cc_flushes;
	atomic64_t cc_flush_failures;	/* each makes its pool stale */
	atomic64_t cc_shared_flushes;	/* a shared pool's files, waited for */
	atomic64_t cc_shared_flush_waits; /* ... that waited for the link */
	atomic64_t cc_shared_flush_gave_up; /* ... that could not be sure */
	atomic64_t cc_pools_created;
	atomic64_t cc_pools_destroyed;
	atomic64_t cc_pools_stale;
	atomic64_t cc_index_pages;	/* pages the server may hold */
	atomic64_t cc_index_trimmed;	/* taken out: the index was full */
	atomic64_t cc_index_destroy_max_us; /* a pool's or file's, irqs off */
	atomic64_t cc_prefetches;	/* GETs sent ahead of the reader */
	atomic64_t cc_prefetch_hits;	/* gets answered by those */
	atomic64_t cc_prefetch_unused;	/* fetched ahead, dropped unread */
	atomic64_t cc_get_frames;	/* frames the private pools' GETs went in */
	atomic64_t swap_prefetches;	/* swap GETs sent ahead of loads */
	atomic64_t swap_prefetch_hits;	/* loads answered by those */
	atomic64_t swap_prefetch_strided; /* of the GETs, along a stride != 1 */
	atomic64_t swap_prefetch_frames; /* frames those GETs went in */
	atomic64_t swap_ra_windows;	/* readahead windows the kernel told */
	atomic64_t swap_ra_gets;	/* GETs sent for them */
	atomic64_t swap_ra_frames;	/* frames those GETs went in */
	/* local.c: the local tier */
	atomic64_t local_stores;	/* pages it took */
	atomic64_t local_full;		/* it had no room: sent at once */
	atomic64_t local_loads;		/* loads it answered */
	atomic64_t local_pages;		/* pages it holds now */
	atomic64_t remotified;		/* of remote_puts, pages it sent on */
	atomic64_t remotify_batches;	/* PUT_ZPAGES it sent (per server) */
	atomic64_t remotify_refused;	/* pages kept: a server refused */
	/* zpage.c: pages as they go to the server (compress=1) */
	atomic64_t zpages_same;		/* one repeated value: sent as it */
	atomic64_t zpages_lzo;		/* sent LZO-compressed */
	atomic64_t zpages_raw;		/* did not compress: sent whole */
	atomic64_t zpages_kept_back;	/* ... or not sent (ephemeral pool) */
	atomic64_t zpage_bytes_out;	/* data bytes of the pages packed */
	atomic64_t zpage_bytes_in;	/* data bytes of the pages unpacked */
	atomic64_t zpage_unpack_errors;	/* LZO from the server that did not */
	struct rf_rtt put_rtt;		/* PUTs that got a reply */
	struct rf_rtt get_rtt;		/* GETs that got a reply */
};

/* debugfs.c: the counters and the debugfs directory. */
extern struct rf_stats rf_stats;
void rf_debugfs_init(void);
void rf_debugfs_exit(void);

/* node.c: the memory servers' up and down events, for r2net. */
extern struct r2net_node_ops rf_node_ops;

/* How many servers hold each swap page, and which is number r. */
static inline int rf_replicas(void)
{
	return rf_mode == RF_MODE_REPLICATE ? 2 : 1;
}

static inline u8 rf_node(int r)
{
	return r ? rf_replica : rf_target;
}

/* swap.c: frontswap, one persistent private pool per swap type. */
int rf_swap_init(void);
void rf_swap_exit(void);
void rf_swap_node_up(u8 node);
int rf_swap_unregister(void);
void rf_swap_debugfs(struct dentry *dir);
/* ... and what local.c asks of it. */
struct tmem_handle;
bool rf_swap_handle(unsigned int type, int r, pgoff_t offset,
		    struct tmem_handle *h);
void rf_swap_pool_lost(unsigned int type, int r, int pool);
void rf_swap_flush(int r, const struct tmem_handle *h);
void rf_ops_hold(void);
void rf_ops_release(void);

/* local.c: swap pages kept compressed here first (local_pool_percent). */
struct page;
int rf_local_init(void);
void rf_local_exit(void);
void rf_local_type_init(unsigned int type);
int rf_local_store(unsigned int type, pgoff_t offset, struct page *page);
int rf_local_load(unsigned int type, pgoff_t offset, struct page *page);
void rf_local_invalidate(unsigned int type, pgoff_t offset);
void rf_local_invalidate_area(unsigned int type);
void rf_local_kick(void);
void rf_local_debugfs(struct dentry *dir);

/* cleancache.c: an ephemeral pool per filesystem. */
int rf_cc_init(void);
void rf_cc_node_up(void);
void rf_cc_node_down(void);
void rf_cc_debugfs(struct dentry *dir);

/* cc_index.c: which of them the server may hold. */
struct tmem_handle;
int rf_cc_index_add(int pool, const struct tmem_handle *h);
bool rf_cc_index_has(int pool, const struct tmem_handle *h);
void rf_cc_index_del(int pool, const struct tmem_handle *h);
void rf_cc_index_del_object(int pool, const struct tmem_handle *h);
void rf_cc_index_del_pool(int pool);
void rf_cc_index_shrink(void);
int rf_cc_index_init(void);
void rf_cc_index_exit(void);

/*
 * cc_prefetch.c: pages fetched ahead of the reader, for cleancache (pool:
 * ours, 0..) and swap (pool: RF_PF_SWAP(type)).
 */
#define RF_PF_SWAP(type)	(-1 - (int)(type))
/* The kernel's largest swap readahead window, in pages (mm/swap_state.c). */
#define RF_SWAP_RA_MAX		BIT(SWAP_RA_ORDER_CEILING)
struct rf_pf_entry;
struct page;
bool rf_cc_pf_has(int pool, const struct tmem_handle *h);
bool rf_cc_pf_ask(int pool, const struct tmem_handle *h);
struct rf_pf_entry *rf_cc_pf_reserve(int pool, unsigned int gen,
				     const struct tmem_handle *h);
const struct tmem_handle *rf_cc_pf_handle(struct rf_pf_entry *e, int *pool);
struct page *rf_cc_pf_page(struct rf_pf_entry *e);
void rf_cc_pf_fill(struct rf_pf_entry *e, bool ok);
int rf_cc_pf_take(int pool, unsigned int gen, const struct tmem_handle *h,
		  struct page *page, long timeout);
void rf_cc_pf_forget(int pool, const struct tmem_handle *h);
void rf_cc_pf_forget_object(int pool, const struct tmem_handle *h);
void rf_cc_pf_forget_pool(int pool);
int rf_cc_pf_init(unsigned int nr);
void rf_cc_pf_exit(void);

/* swap_map.c: the swap offsets the target was given (a hint). */
void rf_swap_map_set(unsigned int type, pgoff_t offset, bool stored);
bool rf_swap_map_test(unsigned int type, pgoff_t offset);
void rf_swap_map_clear_all(unsigned int type);
void rf_swap_map_init(void);

#endif /* RAMSTER_FRONTEND_H */
