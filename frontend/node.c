// SPDX-License-Identifier: GPL-2.0
/*
 * node.c - r2net's node up and down events: those of our memory servers
 * go to frontswap and cleancache.
 */
#include <linux/printk.h>

#include "r2net.h"
#include "ramster_frontend.h"

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
	if (rf_frontswap)
		rf_swap_node_up(node);
	if (rf_cleancache && node == rf_target)
		rf_cc_node_up();
}

static void rf_node_down(u8 node, void *data)
{
	if (!rf_is_server(node))
		return;
	if (rf_cleancache && node == rf_target)
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

struct r2net_node_ops rf_node_ops = {
	.up	= rf_node_up,
	.down	= rf_node_down,
};
