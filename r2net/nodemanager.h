/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nodemanager.h - the r2net node manager: the cluster configuration that
 * user space writes under /sys/kernel/config/r2net/<cluster>/, and the
 * interface the messaging code uses to read it.
 */
#ifndef RAMSTER_R2NET_NODEMANAGER_H
#define RAMSTER_R2NET_NODEMANAGER_H

#include <linux/configfs.h>
#include <linux/list.h>
#include <linux/types.h>

#include "r2net_wire.h"

#define R2NM_MAX_NODES		(R2NET_MAX_NODE + 1)
#define R2NM_INVALID_NODE_NUM	(-1)

/* Bits of r2nm_node.nd_set: which attributes have been written. */
enum {
	R2NM_NODE_ATTR_NUM,
	R2NM_NODE_ATTR_ADDRESS,
	R2NM_NODE_ATTR_PORT,
	R2NM_NODE_ATTR_LOCAL,
};

/*
 * A configured node.  The fields are written under the node manager's
 * mutex and its nodes spinlock; once the cluster has a local node, a field
 * that has been set no longer changes.  Hold a reference (from
 * r2nm_get_node_by_num()) while using a node and drop it with
 * r2nm_node_put().
 */
struct r2nm_node {
	struct config_item	nd_item;
	struct list_head	nd_list;	/* r2nm_cluster.cl_node_list */
	unsigned long		nd_set;		/* R2NM_NODE_ATTR_* bits */
	u8			nd_num;
	__be32			nd_ipv4_address;
	u16			nd_ipv4_port;	/* host order */
	bool			nd_local;
};

static inline const char *r2nm_node_name(struct r2nm_node *node)
{
	return config_item_name(&node->nd_item);
}

/* A copy of the cluster-wide settings; wipe key when done with it. */
struct r2nm_cluster_info {
	char	name[R2NET_CLUSTER_NAME_LEN + 1];
	u32	idle_timeout_ms;
	u32	keepalive_delay_ms;
	u32	reconnect_delay_ms;
	u32	security;		/* enum r2net_security */
	u8	key[R2NET_KEY_LEN];
};

/*
 * Called when a node becomes (became_local) or stops being (stopped_local) the
 * local node, with the node manager's mutex held: the callbacks must not
 * call r2nm_register_local_ops(), r2nm_unregister_local_ops() or write
 * configfs, but may use the lookups below.  An error from became_local
 * refuses the write of "local".
 */
struct r2nm_local_ops {
	struct list_head	list;
	int			(*became_local)(u8 num, void *data);
	void			(*stopped_local)(u8 num, void *data);
	void			*data;
};

/* Node with this number and a reference to it, or NULL. */
struct r2nm_node *r2nm_get_node_by_num(u8 num);
/* Node with a number and this address, with a reference, or NULL. */
struct r2nm_node *r2nm_get_node_by_ipv4(__be32 addr);
void r2nm_node_put(struct r2nm_node *node);
/* The local node's number, or R2NM_INVALID_NODE_NUM. */
int r2nm_this_node(void);
/* Copy the cluster's name, timeouts and key; -ENOENT without a cluster. */
int r2nm_cluster_info(struct r2nm_cluster_info *info);

/* If a local node is already set, became_local is called for it at once. */
int r2nm_register_local_ops(struct r2nm_local_ops *ops);
/* If a local node is set, stopped_local is called for it first. */
void r2nm_unregister_local_ops(struct r2nm_local_ops *ops);

int r2nm_init(void);
void r2nm_exit(void);

#endif /* RAMSTER_R2NET_NODEMANAGER_H */
