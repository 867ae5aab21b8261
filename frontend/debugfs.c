// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - the module's counters (struct rf_stats) and round trips in
 * /sys/kernel/debug/ramster_frontend/, beside the files swap.c and
 * cleancache.c add there.
 */
#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/seq_file.h>

#include "ramster_frontend.h"

struct rf_stats rf_stats;

static struct dentry *rf_dir;

static int rf_counter_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(rf_counter_fops, rf_counter_get, NULL, "%lld\n");

static void rf_rtt_line(struct seq_file *m, const char *name,
			struct rf_rtt *rtt)
{
	u64 samples = atomic64_read(&rtt->samples);
	u64 total = atomic64_read(&rtt->us_total);

	seq_printf(m, "%s samples %llu avg_us %llu max_us %lld\n", name,
		   samples, samples ? div64_u64(total, samples) : 0,
		   atomic64_read(&rtt->us_max));
}

static int rf_rtt_show(struct seq_file *m, void *v)
{
	rf_rtt_line(m, "put", &rf_stats.put_rtt);
	rf_rtt_line(m, "get", &rf_stats.get_rtt);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rf_rtt);

void rf_debugfs_init(void)
{
	static const struct {
		const char *name;
		atomic64_t *v;
	} counters[] = {
		{ "remote_puts", &rf_stats.remote_puts },
		{ "remote_put_failures", &rf_stats.remote_put_failures },
		{ "remote_gets", &rf_stats.remote_gets },
		{ "remote_get_hits", &rf_stats.remote_get_hits },
		{ "remote_get_misses", &rf_stats.remote_get_misses },
		{ "remote_get_failures", &rf_stats.remote_get_failures },
		{ "remote_flushes", &rf_stats.remote_flushes },
		{ "remote_flush_failures", &rf_stats.remote_flush_failures },
		{ "remote_in_flight", &rf_stats.remote_in_flight },
		{ "replica_loads", &rf_stats.replica_loads },
		{ "wt_load_timeouts", &rf_stats.wt_load_timeouts },
		{ "wt_quiet_loads", &rf_stats.wt_quiet_loads },
		{ "wt_quiet_stores", &rf_stats.wt_quiet_stores },
		{ "load_waits", &rf_stats.load_waits },
		{ "load_wait_fails", &rf_stats.load_wait_fails },
		{ "window_waits", &rf_stats.window_waits },
		{ "window_full", &rf_stats.window_full },
		{ "window_hits", &rf_stats.window_hits },
		{ "window_lost", &rf_stats.window_lost },
		{ "put_batches", &rf_stats.put_batches },
		{ "put_batch_waits", &rf_stats.put_batch_waits },
		{ "lost_loads", &rf_stats.lost_loads },
		{ "flushes_dropped", &rf_stats.flushes_dropped },
		{ "stores_no_pool", &rf_stats.stores_no_pool },
		{ "stores_low_memory", &rf_stats.stores_low_memory },
		{ "pools_created", &rf_stats.pools_created },
		{ "pools_destroyed", &rf_stats.pools_destroyed },
		{ "cc_puts", &rf_stats.cc_puts },
		{ "cc_put_failures", &rf_stats.cc_put_failures },
		{ "cc_put_batches", &rf_stats.cc_put_batches },
		{ "cc_puts_dropped", &rf_stats.cc_puts_dropped },
		{ "cc_gets", &rf_stats.cc_gets },
		{ "cc_get_hits", &rf_stats.cc_get_hits },
		{ "cc_get_misses", &rf_stats.cc_get_misses },
		{ "cc_get_index_misses", &rf_stats.cc_get_index_misses },
		{ "cc_get_failures", &rf_stats.cc_get_failures },
		{ "cc_get_discarded", &rf_stats.cc_get_discarded },
		{ "cc_flushes", &rf_stats.cc_flushes },
		{ "cc_flush_failures", &rf_stats.cc_flush_failures },
		{ "cc_shared_flushes", &rf_stats.cc_shared_flushes },
		{ "cc_shared_flush_waits", &rf_stats.cc_shared_flush_waits },
		{ "cc_shared_flush_gave_up", &rf_stats.cc_shared_flush_gave_up },
		{ "cc_pools_created", &rf_stats.cc_pools_created },
		{ "cc_pools_destroyed", &rf_stats.cc_pools_destroyed },
		{ "cc_pools_stale", &rf_stats.cc_pools_stale },
		{ "cc_index_pages", &rf_stats.cc_index_pages },
		{ "cc_index_trimmed", &rf_stats.cc_index_trimmed },
		{ "cc_index_destroy_max_us", &rf_stats.cc_index_destroy_max_us },
		{ "cc_prefetches", &rf_stats.cc_prefetches },
		{ "cc_prefetch_hits", &rf_stats.cc_prefetch_hits },
		{ "cc_prefetch_unused", &rf_stats.cc_prefetch_unused },
		{ "cc_get_frames", &rf_stats.cc_get_frames },
		{ "swap_prefetches", &rf_stats.swap_prefetches },
		{ "swap_prefetch_hits", &rf_stats.swap_prefetch_hits },
		{ "swap_prefetch_strided", &rf_stats.swap_prefetch_strided },
		{ "swap_prefetch_frames", &rf_stats.swap_prefetch_frames },
		{ "swap_ra_windows", &rf_stats.swap_ra_windows },
		{ "swap_ra_gets", &rf_stats.swap_ra_gets },
		{ "swap_ra_frames", &rf_stats.swap_ra_frames },
		{ "local_stores", &rf_stats.local_stores },
		{ "local_full", &rf_stats.local_full },
		{ "local_loads", &rf_stats.local_loads },
		{ "local_pages", &rf_stats.local_pages },
		{ "remotified", &rf_stats.remotified },
		{ "remotify_batches", &rf_stats.remotify_batches },
		{ "remotify_refused", &rf_stats.remotify_refused },
		{ "zpages_same", &rf_stats.zpages_same },
		{ "zpages_lzo", &rf_stats.zpages_lzo },
		{ "zpages_raw", &rf_stats.zpages_raw },
		{ "zpages_kept_back", &rf_stats.zpages_kept_back },
		{ "zpage_bytes_out", &rf_stats.zpage_bytes_out },
		{ "zpage_bytes_in", &rf_stats.zpage_bytes_in },
		{ "zpage_unpack_errors", &rf_stats.zpage_unpack_errors },
		{ "put_rtt_us_max", &rf_stats.put_rtt.us_max },
		{ "get_rtt_us_max", &rf_stats.get_rtt.us_max },
	};
	int i;

	rf_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		debugfs_create_file_unsafe(counters[i].name, 0444, rf_dir,
					   counters[i].v, &rf_counter_fops);
	debugfs_create_file("rtt", 0444, rf_dir, NULL, &rf_rtt_fops);
	if (rf_frontswap)
		rf_swap_debugfs(rf_dir);
	if (rf_cleancache)
		rf_cc_debugfs(rf_dir);
}

void rf_debugfs_exit(void)
{
	debugfs_remove_recursive(rf_dir);
}
