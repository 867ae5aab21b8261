// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - the memory server's counters, one file each, under
 * /sys/kernel/debug/ramster_backend/, named after zswap's, zram's and
 * RAMster's where the meaning is the same:
 *
 *   stored_pages, same_filled_pages, pool_total_size	as zswap's
 *   huge_pages, compressed_bytes (zram's compr_data_size), pool_pages
 *   reject_compress_poor, reject_alloc_fail		as zswap's
 *   stored_as_sent (zpages kept as sent)		zcache's
 *   eph_pages, pers_pages (RAMster's foreign_*_pampd_count summed over
 *   clients), objects, pools, shared_pools, puts, put_failures, dup_puts,
 *   dup_put_flushes, get_hits, get_misses, get_errors, flush_pages,
 *   flush_objects, flushed_pages, evictions, reject_limit,
 *   reject_quota, reject_low_memory, shared_emptied, charge_bytes,
 *   reject_share, reject_objects			the tmem store's
 *
 *   clients_downs, clients_returns, clients_freed,
 *   clients_pending					the grace period's
 *
 * "clients": a line "NODE eph_pages N pers_pages N pools N" for every
 * client node that has a pool or a page here (RAMster's foreign pages per
 * client); "shares": a line "NODE charge_bytes N share_bytes N weight N
 * objects N" for the same nodes and any other charged for something, what
 * each is charged for (tmem.c's Charges), may be charged for, its weight
 * and its objects (a file of its own: readers of "clients" take its lines
 * as they are); "server": "requests_OP N" per tmem operation, "errors_REASON N"
 * per reason a request was answered with an error, get_hits, get_misses,
 * then requests_put_zpage and requests_get_zpage (of the puts and gets,
 * those of zpages), zpage_bytes_in and zpage_bytes_out (their data bytes),
 * requests_put_zpages and requests_get_zpages (batch frames, whose pages
 * count as zpages too).
 * Each read takes a fresh reading.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/stddef.h>
#include "clients.h"
#include "debugfs.h"
#include "server.h"
#include "tmem.h"
#include "zcache.h"

enum backend_source { SRC_ZCACHE, SRC_TMEM, SRC_CLIENTS };

struct backend_counter {
	const char *name;
	enum backend_source src;
	size_t offset;		/* of a u64 in the source's stats */
};

#define ZC(f)	{ #f, SRC_ZCACHE, offsetof(struct zcache_stats, f) }
#define TM(f)	{ #f, SRC_TMEM, offsetof(struct tmem_stats, f) }
#define CL(f)	{ "clients_" #f, SRC_CLIENTS, \
		  offsetof(struct backend_clients_stats, f) }

static const struct backend_counter backend_counters[] = {
	ZC(stored_pages), ZC(same_filled_pages), ZC(huge_pages),
	ZC(compressed_bytes), ZC(pool_pages), ZC(pool_total_size),
	ZC(reject_compress_poor), ZC(reject_alloc_fail), ZC(stored_as_sent),
	TM(eph_pages), TM(pers_pages), TM(objects), TM(pools),
	TM(shared_pools), TM(puts), TM(put_failures), TM(dup_puts),
	TM(dup_put_flushes), TM(get_hits), TM(get_misses), TM(get_errors),
	TM(flush_pages), TM(flush_objects), TM(flushed_pages), TM(evictions),
	TM(reject_limit), TM(reject_quota), TM(reject_low_memory),
	TM(shared_emptied), TM(charge_bytes), TM(reject_share),
	TM(reject_objects),
	CL(downs), CL(returns), CL(freed), CL(pending),
};

static struct dentry *backend_dir;
static struct tmem_store *backend_store;
static struct zcache *backend_zc;

static int backend_counter_show(struct seq_file *m, void *v)
{
	const struct backend_counter *c = m->private;
	struct backend_clients_stats cs;
	struct zcache_stats zs;
	struct tmem_stats ts;
	const void *base;

	switch (c->src) {
	case SRC_ZCACHE:
		zcache_get_stats(backend_zc, &zs);
		base = &zs;
		break;
	case SRC_TMEM:
		tmem_stats_snapshot(backend_store, &ts);
		base = &ts;
		break;
	default:
		backend_clients_stats(&cs);
		base = &cs;
		break;
	}
	seq_printf(m, "%llu\n", *(const u64 *)(base + c->offset));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(backend_counter);

/* "clients", or "shares" when the file's data is not NULL. */
static int backend_clients_show(struct seq_file *m, void *v)
{
	struct tmem_client_stats cs;
	bool shares = m->private;
	int node;

	for (node = 0; node < TMEM_MAX_CLIENTS; node++) {
		tmem_client_stats(backend_store, node, &cs);
		if (!cs.eph_pages && !cs.pers_pages && !cs.pools &&
		    (!shares || (!cs.charge_bytes && !cs.objects)))
			continue;
		if (shares)
			seq_printf(m, "%d charge_bytes %llu share_bytes %llu weight %u objects %llu\n",
				   node, cs.charge_bytes, cs.share_bytes,
				   cs.weight, cs.objects);
		else
			seq_printf(m, "%d eph_pages %llu pers_pages %llu pools %u\n",
				   node, cs.eph_pages, cs.pers_pages, cs.pools);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(backend_clients);

static int backend_server_show(struct seq_file *m, void *v)
{
	struct backend_server_stats st;
	int i;

	backend_server_stats(&st);
	for (i = 0; i < BACKEND_SERVER_NR_OPS; i++)
		seq_printf(m, "requests_%s %llu\n", backend_server_op_name(i),
			   st.requests[i]);
	for (i = 0; i < BACKEND_SERVER_NR_ERRS; i++)
		seq_printf(m, "errors_%s %llu\n", backend_server_err_name(i),
			   st.errors[i]);
	seq_printf(m, "get_hits %llu\nget_misses %llu\n", st.get_hits,
		   st.get_misses);
	seq_printf(m, "requests_put_zpage %llu\nrequests_get_zpage %llu\n",
		   st.zpage_puts, st.zpage_gets);
	seq_printf(m, "zpage_bytes_in %llu\nzpage_bytes_out %llu\n",
		   st.zpage_bytes_in, st.zpage_bytes_out);
	seq_printf(m, "requests_put_zpages %llu\nrequests_get_zpages %llu\n",
		   st.batch_puts, st.batch_gets);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(backend_server);

/**
 * backend_debugfs_init() - show the counters of a store and its zcache
 * @store: the store
 * @zc: its zcache
 *
 * debugfs is a debugging aid: failing to create a file is not an error.
 */
void backend_debugfs_init(struct tmem_store *store, struct zcache *zc)
{
	size_t i;

	backend_store = store;
	backend_zc = zc;
	backend_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < ARRAY_SIZE(backend_counters); i++)
		debugfs_create_file(backend_counters[i].name, 0444, backend_dir,
				    (void *)&backend_counters[i],
				    &backend_counter_fops);
	debugfs_create_file("clients", 0444, backend_dir, NULL,
			    &backend_clients_fops);
	debugfs_create_file("shares", 0444, backend_dir, (void *)1,
			    &backend_clients_fops);
	debugfs_create_file("server", 0444, backend_dir, NULL,
			    &backend_server_fops);
}

/**
 * backend_debugfs_exit() - remove the files; no read runs after it returns
 */
void backend_debugfs_exit(void)
{
	debugfs_remove_recursive(backend_dir);
	backend_dir = NULL;
}
