// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - r2net, RAMster's cluster messaging module.
 *
 * The cluster is described in configfs under /sys/kernel/config/r2net/
 * (nodemanager.c).  Setting the local node starts the listener and the
 * connections to the other nodes (conn.c; send.c writes frames, recv.c
 * reads them); other modules register message handlers and node event
 * callbacks (handlers.c) and send through r2net.h.
 * Counters are in /sys/kernel/debug/r2net/ (stats.c).
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>

#include "r2net_int.h"

static int r2net_local_set(u8 num, void *data)
{
	return r2net_start(num);
}

static void r2net_local_clear(u8 num, void *data)
{
	r2net_stop(num);
}

static struct r2nm_local_ops r2net_local_ops = {
	.became_local	= r2net_local_set,
	.stopped_local	= r2net_local_clear,
};

static int __init r2net_init(void)
{
	int ret;

	ret = r2net_debugfs_init();
	if (ret)
		goto out;
	ret = r2net_events_init();
	if (ret)
		goto out_debugfs;
	ret = r2net_tcp_init();
	if (ret)
		goto out_events;
	ret = r2nm_register_local_ops(&r2net_local_ops);
	if (ret)
		goto out_tcp;
	ret = r2nm_init();
	if (ret)
		goto out_ops;
	pr_info("loaded; configure it under /sys/kernel/config/r2net/\n");
	return 0;

out_ops:
	r2nm_unregister_local_ops(&r2net_local_ops);
out_tcp:
	r2net_tcp_exit();
out_events:
	r2net_events_exit();
out_debugfs:
	r2net_debugfs_exit();
out:
	return ret;
}

static void __exit r2net_exit(void)
{
	r2nm_exit();
	r2nm_unregister_local_ops(&r2net_local_ops);
	r2net_tcp_exit();
	r2net_events_exit();
	r2net_debugfs_exit();
	pr_info("unloaded\n");
}

module_init(r2net_init);
module_exit(r2net_exit);

MODULE_DESCRIPTION("RAMster r2net cluster messaging");
MODULE_LICENSE("GPL");
