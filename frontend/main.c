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
#include <linux/module.h>
#include <linux/swap.h>

#include "r2net.h"
#include "ramster_frontend.h"
#include "zpage.h"

static int __init rf_init(void)
{
	int ret;

	ret = rf_check_params();
	if (ret)
		return ret;
	ret = rf_zpage_init();
	if (ret)
		return ret;
	/*
	 * Per reader, the pages in flight ahead and as many to be read; for
	 * swap, also a readahead window of the kernel's (swap.c).
	 */
	ret = rf_cc_pf_init((rf_cc_prefetch ? 2 * (rf_cc_prefetch + 1) : 0) +
			    (rf_swap_prefetch ? 2 * (rf_swap_prefetch + 1) +
			     RF_SWAP_RA_MAX : 0));
	if (ret)
		goto err_zpage;
	if (rf_frontswap) {
		ret = rf_swap_init();
		if (ret)
			goto err_pf;
	}
	if (rf_cleancache) {
		/* Last: once registered, cleancache keeps us for good. */
		ret = rf_cc_init();
		if (ret)
			goto err_swap;
	}
	rf_debugfs_init();
	/* Calls rf_node_up() at once if the target is connected already. */
	r2net_register_node_ops(&rf_node_ops);

	rf_params_log();
	return 0;

err_swap:
	if (rf_frontswap) {
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
	rf_debugfs_exit();
	if (rf_frontswap)
		rf_swap_exit();
	rf_cc_pf_exit();
	rf_zpage_exit();
	/* The callbacks that counted the last requests down have returned. */
	r2net_sync_callbacks();
	pr_info("unloaded\n");
}
module_exit(rf_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RAMster frontend: swap pages kept on a memory server over r2net");
