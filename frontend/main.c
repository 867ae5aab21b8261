// SPDX-License-Identifier: GPL-2.0
/*
 * ramster_frontend: a client node's swap pages kept in a memory server's
 * RAM, over r2net (RAMster's "remotify" path, without local zcache).
 *
 * Load it after r2net has its cluster configured and swap is on:
 *	insmod ramster_frontend.ko target=N [mode=writethrough|none]
 *		[frontswap=Y|N] [window=N] [timeout_ms=MS]
 * target is the memory server's node number; a node r2net does not know,
 * or this node itself, is refused, and so is frontswap with no active
 * swap device.  window is how many swap stores may wait for the server
 * at once in writethrough mode (see swap.c).  In mode writethrough (the default)
 * every page the server accepts is written to the swap disk as well, so
 * losing the server loses nothing; in mode none the server has the only
 * copy, and a process whose page is lost gets SIGBUS.
 *
 * Counters are in /sys/kernel/debug/ramster_frontend/.  While registered
 * with frontswap the module cannot be unloaded: after swapoff, write 1 to
 * its debugfs file "unregister", then rmmod.
 */
#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "r2net.h"
#include "ramster_frontend.h"
#include "zpage.h"

static int target = -1;
module_param(target, int, 0444);
MODULE_PARM_DESC(target, "The memory server's r2net node number (required)");

static char *mode = "writethrough";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "writethrough (the swap disk has every page too), none (the server only) or replicate (target and replica)");

static int replica = -1;
module_param(replica, int, 0444);
MODULE_PARM_DESC(replica, "mode=replicate: the second memory server's node number");

static bool frontswap = true;
module_param(frontswap, bool, 0444);
MODULE_PARM_DESC(frontswap, "Keep swap pages on the memory server");

#define RF_TIMEOUT_MAX_MS	600000

/* Settable while loaded: a request takes the value it is sent with. */
static int rf_timeout_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint(val, 0, &ms);
	if (ret || ms > RF_TIMEOUT_MAX_MS) {
		pr_err("timeout_ms=%.*s: give 0..%u (0: r2net's idle timeout)\n",
		       (int)strcspn(val, "\n"), val, RF_TIMEOUT_MAX_MS);
		return -EINVAL;
	}
	WRITE_ONCE(rf_timeout_ms, ms);
	return 0;
}

static const struct kernel_param_ops rf_timeout_ops = {
	.set	= rf_timeout_set,
	.get	= param_get_uint,
};

unsigned int rf_timeout_ms = 10000;
module_param_cb(timeout_ms, &rf_timeout_ops, &rf_timeout_ms, 0644);
MODULE_PARM_DESC(timeout_ms, "How long a request waits for the server (ms, 0..600000; 0: r2net's idle timeout); settable at run time");

static bool cleancache = true;
module_param(cleancache, bool, 0444);
MODULE_PARM_DESC(cleancache, "Keep clean page-cache pages on the memory server (once on, the module stays loaded)");

static unsigned int cc_window = 512;
module_param(cc_window, uint, 0444);
MODULE_PARM_DESC(cc_window, "cleancache puts queued at once (1..1024; more are dropped)");

static unsigned int cc_prefetch = 32;
module_param(cc_prefetch, uint, 0444);
MODULE_PARM_DESC(cc_prefetch, "cleancache gets sent ahead of a reader, for the next pages the server has (0..256; 0: each get waits for its page alone)");

static unsigned int swap_prefetch = 16;
module_param(swap_prefetch, uint, 0444);
MODULE_PARM_DESC(swap_prefetch, "swap loads in order also ask for the next this many offsets, without waiting (0..256; 0: each load waits for its page alone)");

static unsigned int window = 32;
module_param(window, uint, 0444);
MODULE_PARM_DESC(window, "Swap stores in flight at once in writethrough mode (0: each waits for the server; at most 1024)");

u8 rf_target;
u8 rf_replica;
enum rf_mode rf_mode;
unsigned int rf_window;
unsigned int rf_cc_window;
unsigned int rf_cc_prefetch;
unsigned int rf_swap_prefetch;
struct rf_stats rf_stats;

static const char * const rf_mode_names[] = {
	[RF_MODE_WRITETHROUGH]	= "writethrough",
	[RF_MODE_NONE]		= "none",
	[RF_MODE_REPLICATE]	= "replicate",
};

static struct dentry *rf_dir;

/* ---- node events ---- */

static bool rf_is_server(u8 node)
{
	return node == rf_target ||
	       (rf_mode == RF_MODE_REPLICATE && node == rf_replica);
}

static void rf_node_up(u8 node, void *data)
{
	if (!rf_is_server(node))
		return;
	pr_info("memory server node %u is up\n", node);
	if (frontswap)
		rf_swap_node_up(node);
	if (cleancache && node == rf_target)
		rf_cc_node_up();
}

static void rf_node_down(u8 node, void *data)
{
	if (!rf_is_server(node))
		return;
	if (cleancache && node == rf_target)
		rf_cc_node_down();
	if (rf_mode == RF_MODE_REPLICATE)
		pr_warn("memory server node %u is down: swap pages go to the disk until it is back; loads ask the other server\n",
			node);
	else if (rf_mode == RF_MODE_WRITETHROUGH)
		pr_warn("memory server node %u is down: swap pages go to the disk, and are read from it, until it is back\n",
			node);
	else
		pr_warn("memory server node %u is down: swap pages go to the disk until it is back; processes whose pages it held get SIGBUS\n",
			node);
}

static struct r2net_node_ops rf_node_ops = {
	.up	= rf_node_up,
	.down	= rf_node_down,
};

/*
 * Free memory below the min watermarks: what is left is for the atomic
 * allocations that receive the server's answers (virtio-net refills its
 * receive ring with plain GFP_ATOMIC, which cannot use the memalloc
 * reserves r2net's sends may take).  Stores and puts are refused then, and
 * the disk takes the page; loads still go.
 */
bool rf_memory_low(void)
{
	unsigned long min = 0;
	struct zone *zone;
	int nid;

	for_each_online_node(nid)
		for (zone = NODE_DATA(nid)->node_zones;
		     zone < NODE_DATA(nid)->node_zones + MAX_NR_ZONES; zone++)
			min += min_wmark_pages(zone);
	return global_zone_page_state(NR_FREE_PAGES) < min;
}

/* ---- debugfs ---- */

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

static void rf_debugfs_init(void)
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
		{ "window_waits", &rf_stats.window_waits },
		{ "window_full", &rf_stats.window_full },
		{ "window_hits", &rf_stats.window_hits },
		{ "window_lost", &rf_stats.window_lost },
		{ "lost_loads", &rf_stats.lost_loads },
		{ "flushes_dropped", &rf_stats.flushes_dropped },
		{ "stores_no_pool", &rf_stats.stores_no_pool },
		{ "stores_low_memory", &rf_stats.stores_low_memory },
		{ "pools_created", &rf_stats.pools_created },
		{ "pools_destroyed", &rf_stats.pools_destroyed },
		{ "cc_puts", &rf_stats.cc_puts },
		{ "cc_put_failures", &rf_stats.cc_put_failures },
		{ "cc_puts_dropped", &rf_stats.cc_puts_dropped },
		{ "cc_gets", &rf_stats.cc_gets },
		{ "cc_get_hits", &rf_stats.cc_get_hits },
		{ "cc_get_misses", &rf_stats.cc_get_misses },
		{ "cc_get_index_misses", &rf_stats.cc_get_index_misses },
		{ "cc_get_failures", &rf_stats.cc_get_failures },
		{ "cc_get_discarded", &rf_stats.cc_get_discarded },
		{ "cc_flushes", &rf_stats.cc_flushes },
		{ "cc_flush_failures", &rf_stats.cc_flush_failures },
		{ "cc_pools_created", &rf_stats.cc_pools_created },
		{ "cc_pools_destroyed", &rf_stats.cc_pools_destroyed },
		{ "cc_pools_stale", &rf_stats.cc_pools_stale },
		{ "cc_index_pages", &rf_stats.cc_index_pages },
		{ "cc_prefetches", &rf_stats.cc_prefetches },
		{ "cc_prefetch_hits", &rf_stats.cc_prefetch_hits },
		{ "cc_prefetch_unused", &rf_stats.cc_prefetch_unused },
		{ "swap_prefetches", &rf_stats.swap_prefetches },
		{ "swap_prefetch_hits", &rf_stats.swap_prefetch_hits },
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
	if (frontswap)
		rf_swap_debugfs(rf_dir);
	if (cleancache)
		rf_cc_debugfs(rf_dir);
}

/* ---- load and unload ---- */

static int __init rf_check_params(void)
{
	int local, m;

	m = mode ? sysfs_match_string(rf_mode_names, mode) : -EINVAL;
	if (m < 0) {
		pr_err("mode=%s: unknown; use writethrough, none or replicate\n",
		       mode ?: "");
		return -EINVAL;
	}
	rf_mode = m;
	if (target < 0 || target > R2NET_MAX_NODE) {
		pr_err("target=%d: give the memory server's node number (0..%d)\n",
		       target, R2NET_MAX_NODE);
		return -EINVAL;
	}
	if (!r2net_node_configured(target)) {
		pr_err("target=%d: r2net has no such node (configure the cluster first: ramsterctl configure)\n",
		       target);
		return -EINVAL;
	}
	local = r2net_local_node();
	if (local < 0) {
		pr_err("r2net has no local node yet (configure the cluster first: ramsterctl configure)\n");
		return -EINVAL;
	}
	if (target == local) {
		pr_err("target=%d is this node; name the memory server\n",
		       target);
		return -EINVAL;
	}
	if (rf_mode == RF_MODE_REPLICATE) {
		if (replica < 0 || replica > R2NET_MAX_NODE ||
		    !r2net_node_configured(replica)) {
			pr_err("mode=replicate needs replica=N, a second memory server r2net knows (replica=%d)\n",
			       replica);
			return -EINVAL;
		}
		if (replica == local || replica == target) {
			pr_err("replica=%d: name a second memory server, neither this node nor the target\n",
			       replica);
			return -EINVAL;
		}
		rf_replica = replica;
	} else if (replica >= 0) {
		pr_err("replica=%d: only with mode=replicate\n", replica);
		return -EINVAL;
	}
	if (window > RF_WINDOW_MAX) {
		pr_err("window=%u: at most %u stores in flight\n", window,
		       RF_WINDOW_MAX);
		return -EINVAL;
	}
	if (cleancache && (!cc_window || cc_window > RF_WINDOW_MAX)) {
		pr_err("cc_window=%u: give 1..%u\n", cc_window, RF_WINDOW_MAX);
		return -EINVAL;
	}
	if (cleancache && cc_prefetch > RF_CC_PREFETCH_MAX) {
		pr_err("cc_prefetch=%u: give 0..%u\n", cc_prefetch,
		       RF_CC_PREFETCH_MAX);
		return -EINVAL;
	}
	if (frontswap && swap_prefetch > RF_CC_PREFETCH_MAX) {
		pr_err("swap_prefetch=%u: give 0..%u\n", swap_prefetch,
		       RF_CC_PREFETCH_MAX);
		return -EINVAL;
	}
	if (!frontswap && !cleancache) {
		pr_err("frontswap=0 and cleancache=0: nothing to do\n");
		return -EINVAL;
	}
	rf_target = target;
	rf_window = window;
	rf_cc_window = cc_window;
	rf_cc_prefetch = cleancache ? cc_prefetch : 0;
	rf_swap_prefetch = frontswap ? swap_prefetch : 0;
	return 0;
}

static int __init rf_init(void)
{
	int ret;

	ret = rf_check_params();
	if (ret)
		return ret;
	ret = rf_zpage_init();
	if (ret)
		return ret;
	/* Per reader, the pages in flight ahead and as many to be read. */
	ret = rf_cc_pf_init((rf_cc_prefetch ? 2 * (rf_cc_prefetch + 1) : 0) +
			    (rf_swap_prefetch ? 2 * (rf_swap_prefetch + 1) : 0));
	if (ret)
		goto err_zpage;
	if (frontswap) {
		ret = rf_swap_init();
		if (ret)
			goto err_pf;
	}
	if (cleancache) {
		/* Last: once registered, cleancache keeps us for good. */
		ret = rf_cc_init();
		if (ret)
			goto err_swap;
	}
	rf_debugfs_init();
	/* Calls rf_node_up() at once if the target is connected already. */
	r2net_register_node_ops(&rf_node_ops);

	pr_info("memory server node %u (%s), mode %s, frontswap %s, window %u, cleancache %s, prefetch %u, swap prefetch %u, pages %s\n",
		rf_target,
		r2net_node_connected(rf_target) ? "connected" :
						  "not connected yet",
		rf_mode_names[rf_mode], frontswap ? "on" : "off",
		rf_mode == RF_MODE_WRITETHROUGH ? rf_window : 0,
		cleancache ? "on" : "off", rf_cc_prefetch, rf_swap_prefetch,
		rf_zpage_on() ? "compressed" : "whole");
	if (rf_mode == RF_MODE_REPLICATE)
		pr_info("swap pages also on node %u (%s)\n", rf_replica,
			r2net_node_connected(rf_replica) ? "connected" :
							   "not connected yet");
	return 0;

err_swap:
	if (frontswap) {
		rf_swap_unregister();
		rf_swap_exit();
	}
err_pf:
	rf_cc_pf_exit();
err_zpage:
	rf_zpage_exit();
	return ret;
}
module_init(rf_init);

/* Runs only once frontswap has let the module go (see the top). */
static void __exit rf_exit(void)
{
	r2net_unregister_node_ops(&rf_node_ops);
	debugfs_remove_recursive(rf_dir);
	if (frontswap)
		rf_swap_exit();
	rf_cc_pf_exit();
	rf_zpage_exit();
	pr_info("unloaded\n");
}
module_exit(rf_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RAMster frontend: swap pages kept on a memory server over r2net");
