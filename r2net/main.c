// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - r2net, RAMster's cluster messaging module.
 *
 * For now only the node manager (nodemanager.c): the cluster is described
 * in configfs under /sys/kernel/config/r2net/, and setting the local node
 * is logged.  The listener will start from the local-node callbacks.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>

#include "nodemanager.h"

static int r2net_local_set(u8 num, void *data)
{
	pr_info("local node %u set\n", num);
	return 0;
}

static void r2net_local_clear(u8 num, void *data)
{
	pr_info("local node %u stopping\n", num);
}

static struct r2nm_local_ops r2net_local_ops = {
	.became_local	= r2net_local_set,
	.stopped_local	= r2net_local_clear,
};

static int __init r2net_init(void)
{
	int ret;

	ret = r2nm_register_local_ops(&r2net_local_ops);
	if (ret)
		goto out;
	ret = r2nm_init();
	if (ret)
		goto out_ops;
	pr_info("loaded; configure it under /sys/kernel/config/r2net/\n");
	return 0;

out_ops:
	r2nm_unregister_local_ops(&r2net_local_ops);
out:
	return ret;
}

static void __exit r2net_exit(void)
{
	r2nm_exit();
	r2nm_unregister_local_ops(&r2net_local_ops);
	pr_info("unloaded\n");
}

module_init(r2net_init);
module_exit(r2net_exit);

MODULE_DESCRIPTION("RAMster r2net cluster messaging");
MODULE_LICENSE("GPL");
