// SPDX-License-Identifier: GPL-2.0
/*
 * params.c - the module's parameters: checked once at load and kept in
 * the rf_* settings the other files read (timeout_ms may change at run
 * time), and the boot log line that says what is in use.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "r2net.h"
#include "ramster_frontend.h"
#include "zpage.h"

#define RF_WINDOW_MAX		1024	/* module parameter "window" */
#define RF_CC_PREFETCH_MAX	256	/* module parameter "cc_prefetch" */
#define RF_TIMEOUT_MAX_MS	600000
#define RF_CC_INDEX_MIN		256
#define RF_CC_INDEX_MAX		16777216

static int target = -1;
module_param(target, int, 0444);
MODULE_PARM_DESC(target, "The memory server's r2net node number (required)");

static char *mode = "writethrough";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "writethrough (the swap disk has every page too), none (the server only) or replicate (target and replica)");

static int replica = -1;
module_param(replica, int, 0444);
MODULE_PARM_DESC(replica, "mode=replicate: the second memory server's node number");

bool rf_frontswap = true;
module_param_named(frontswap, rf_frontswap, bool, 0444);
MODULE_PARM_DESC(frontswap, "Keep swap pages on the memory server");

unsigned int rf_timeout_ms = 10000;
unsigned int rf_window_wait_ms = 100;
unsigned int rf_wt_load_ms = 500;
unsigned int rf_server_wait_ms = 60000;

/*
 * timeout_ms, window_wait_ms, wt_load_ms and server_wait_ms, in ms:
 * settable while loaded (a request takes the value it is sent with).
 * timeout_ms (0: r2net's idle timeout) and server_wait_ms (0: no wait)
 * may be 0, the others may not.
 */
static int rf_ms_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms, min = kp->arg != &rf_timeout_ms &&
			       kp->arg != &rf_server_wait_ms;
	int ret;

	ret = kstrtouint(val, 0, &ms);
	if (ret || ms < min || ms > RF_TIMEOUT_MAX_MS) {
		pr_err("%s=%.*s: give %u..%u%s\n", kp->name,
		       (int)strcspn(val, "\n"), val, min, RF_TIMEOUT_MAX_MS,
		       kp->arg == &rf_timeout_ms ? " (0: r2net's idle timeout)" :
		       kp->arg == &rf_server_wait_ms ? " (0: no wait)" : "");
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, ms);
	return 0;
}

static const struct kernel_param_ops rf_ms_ops = {
	.set	= rf_ms_set,
	.get	= param_get_uint,
};

module_param_cb(timeout_ms, &rf_ms_ops, &rf_timeout_ms, 0644);
MODULE_PARM_DESC(timeout_ms, "How long a request waits for the server (ms, 0..600000; 0: r2net's idle timeout); settable at run time");
module_param_cb(window_wait_ms, &rf_ms_ops, &rf_window_wait_ms, 0644);
MODULE_PARM_DESC(window_wait_ms, "How long a writethrough store waits for a free window slot before the disk takes the page alone (ms, 1..600000); settable at run time");
module_param_cb(wt_load_ms, &rf_ms_ops, &rf_wt_load_ms, 0644);
MODULE_PARM_DESC(wt_load_ms, "How long a writethrough load waits for the server before the disk serves it (ms, 1..600000); settable at run time");
module_param_cb(server_wait_ms, &rf_ms_ops, &rf_server_wait_ms, 0644);
MODULE_PARM_DESC(server_wait_ms, "Modes none and replicate: how long a load waits for an unreachable server to come back before the process gets SIGBUS (ms, 0..600000; default the server's client_grace_ms); settable at run time");

bool rf_cleancache = true;
module_param_named(cleancache, rf_cleancache, bool, 0444);
MODULE_PARM_DESC(cleancache, "Keep clean page-cache pages on the memory server (once on, the module stays loaded)");

/* cc_index.c's bound, in pages; settable at run time. */
unsigned int rf_cc_index_max = 262144;

static int rf_cc_index_max_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint_minmax(val, kp, RF_CC_INDEX_MIN,
					RF_CC_INDEX_MAX);

	if (ret)
		pr_err("cc_index_max=%.*s: give %u..%u pages\n",
		       (int)strcspn(val, "\n"), val, RF_CC_INDEX_MIN,
		       RF_CC_INDEX_MAX);
	else
		rf_cc_index_shrink();
	return ret;
}

static const struct kernel_param_ops rf_cc_index_max_ops = {
	.set	= rf_cc_index_max_set,
	.get	= param_get_uint,
};

module_param_cb(cc_index_max, &rf_cc_index_max_ops, &rf_cc_index_max, 0644);
MODULE_PARM_DESC(cc_index_max, "The most clean pages the client remembers putting (256..16777216; about 10 bytes each, and a pool's destruction walks them with interrupts off); settable at run time");

static unsigned int cc_window = 512;
module_param(cc_window, uint, 0444);
MODULE_PARM_DESC(cc_window, "cleancache puts queued at once (1..1024; more are dropped)");

static unsigned int cc_prefetch = 32;
module_param(cc_prefetch, uint, 0444);
MODULE_PARM_DESC(cc_prefetch, "cleancache gets sent ahead of a reader, for the next pages the server has (0..256; 0: each get waits for its page alone)");

static unsigned int swap_prefetch = 16;
module_param(swap_prefetch, uint, 0444);
MODULE_PARM_DESC(swap_prefetch, "most swap pages fetched ahead along the trend of the loads' offsets (0..256; 0: each load waits for its page alone)");

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

static const char * const rf_mode_names[] = {
	[RF_MODE_WRITETHROUGH]	= "writethrough",
	[RF_MODE_NONE]		= "none",
	[RF_MODE_REPLICATE]	= "replicate",
};

int __init rf_check_params(void)
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
	if (rf_cleancache && (!cc_window || cc_window > RF_WINDOW_MAX)) {
		pr_err("cc_window=%u: give 1..%u\n", cc_window, RF_WINDOW_MAX);
		return -EINVAL;
	}
	if (rf_cleancache && cc_prefetch > RF_CC_PREFETCH_MAX) {
		pr_err("cc_prefetch=%u: give 0..%u\n", cc_prefetch,
		       RF_CC_PREFETCH_MAX);
		return -EINVAL;
	}
	if (rf_frontswap && swap_prefetch > RF_CC_PREFETCH_MAX) {
		pr_err("swap_prefetch=%u: give 0..%u\n", swap_prefetch,
		       RF_CC_PREFETCH_MAX);
		return -EINVAL;
	}
	if (!rf_frontswap && !rf_cleancache) {
		pr_err("frontswap=0 and cleancache=0: nothing to do\n");
		return -EINVAL;
	}
	rf_target = target;
	rf_window = window;
	rf_cc_window = cc_window;
	rf_cc_prefetch = rf_cleancache ? cc_prefetch : 0;
	rf_swap_prefetch = rf_frontswap ? swap_prefetch : 0;
	return 0;
}

/* Once loaded: which servers, mode and halves are in use. */
void __init rf_params_log(void)
{
	pr_info("memory server node %u (%s), mode %s, frontswap %s, window %u, cleancache %s, prefetch %u, swap prefetch %u, pages %s\n",
		rf_target,
		r2net_node_connected(rf_target) ? "connected" :
						  "not connected yet",
		rf_mode_names[rf_mode], rf_frontswap ? "on" : "off",
		rf_mode == RF_MODE_WRITETHROUGH ? rf_window : 0,
		rf_cleancache ? "on" : "off", rf_cc_prefetch, rf_swap_prefetch,
		rf_zpage_on() ? "compressed" : "whole");
	if (rf_mode == RF_MODE_REPLICATE)
		pr_info("swap pages also on node %u (%s)\n", rf_replica,
			r2net_node_connected(rf_replica) ? "connected" :
							   "not connected yet");
}
