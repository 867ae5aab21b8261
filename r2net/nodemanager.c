// SPDX-License-Identifier: GPL-2.0
/*
 * nodemanager.c - the r2net node manager.
 *
 * User space describes the cluster in configfs:
 *
 *	/sys/kernel/config/r2net/<cluster>/{idle_timeout_ms,
 *		keepalive_delay_ms, reconnect_delay_ms, cluster_key, security}
 *	/sys/kernel/config/r2net/<cluster>/node/<name>/{num, ipv4_address,
 *		ipv4_port, local}
 *
 * There is one cluster.  cluster_key is write-only: 64 hex digits, the
 * 32-byte key every node of the cluster holds (r2net_wire.h, handshake);
 * it is never shown or logged.  security says what protects the frames
 * after the handshake (r2net_wire.h): integrity (the default), encrypt,
 * or none (only to measure what the others cost).  A node's num needs its ipv4_address and
 * ipv4_port first; local needs all three and the cluster's key, and only
 * one node is local.  Once a node is
 * local the cluster is live: the timeouts and every attribute already set
 * are fixed until local is cleared, but new nodes can still be added.
 * Every refused write is logged with what to do instead.
 *
 * r2nm_mutex serialises all configuration changes and the local-node
 * callbacks; r2nm_lock (a spinlock) additionally covers the fields that
 * the lookups read, so that they can be used from any context.
 */
#include <linux/configfs.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "nodemanager.h"
#include "r2net.h"

/* Upper bound for the three timeouts: one day. */
#define R2NM_MAX_TIMEOUT_MS	(24U * 60 * 60 * 1000)

struct r2nm_cluster {
	struct config_group	cl_group;
	struct config_group	cl_node_group;	/* node/ */
	struct list_head	cl_node_list;	/* every r2nm_node */
	struct r2nm_node	*cl_nodes[R2NM_MAX_NODES]; /* by number */
	int			cl_local_node;
	u32			cl_idle_timeout_ms;
	u32			cl_keepalive_delay_ms;
	u32			cl_reconnect_delay_ms;
	u32			cl_security;	/* enum r2net_security */
	bool			cl_key_set;
	u8			cl_key[R2NET_KEY_LEN];
};

static DEFINE_MUTEX(r2nm_mutex);
static DEFINE_SPINLOCK(r2nm_lock);
static struct r2nm_cluster *r2nm_cluster;	/* r2nm_mutex + r2nm_lock */
static LIST_HEAD(r2nm_local_ops_list);		/* r2nm_mutex */

#define r2nm_refuse(node, attr, fmt, ...)				\
	pr_warn("node %s: refused write to %s: " fmt "\n",		\
		r2nm_node_name(node), attr, ##__VA_ARGS__)

#define r2nm_cl_refuse(attr, fmt, ...)					\
	pr_warn("cluster: refused write to %s: " fmt "\n",		\
		attr, ##__VA_ARGS__)

static struct r2nm_node *to_r2nm_node(struct config_item *item)
{
	return container_of(item, struct r2nm_node, nd_item);
}

static struct r2nm_cluster *to_r2nm_cluster(struct config_item *item)
{
	return container_of(to_config_group(item), struct r2nm_cluster,
			    cl_group);
}

/* node/<name> -> node/ -> <cluster> */
static struct r2nm_cluster *r2nm_node_cluster(struct r2nm_node *node)
{
	return container_of(to_config_group(node->nd_item.ci_parent),
			    struct r2nm_cluster, cl_node_group);
}

/* Internal API */

struct r2nm_node *r2nm_get_node_by_num(u8 num)
{
	struct r2nm_node *node = NULL;

	if (num > R2NET_MAX_NODE)
		return NULL;
	spin_lock(&r2nm_lock);
	if (r2nm_cluster && r2nm_cluster->cl_nodes[num]) {
		node = r2nm_cluster->cl_nodes[num];
		config_item_get(&node->nd_item);
	}
	spin_unlock(&r2nm_lock);
	return node;
}

struct r2nm_node *r2nm_get_node_by_ipv4(__be32 addr)
{
	struct r2nm_node *node = NULL;
	unsigned int num;

	spin_lock(&r2nm_lock);
	for (num = 0; r2nm_cluster && num < R2NM_MAX_NODES; num++) {
		node = r2nm_cluster->cl_nodes[num];
		if (node && node->nd_ipv4_address == addr) {
			config_item_get(&node->nd_item);
			break;
		}
		node = NULL;
	}
	spin_unlock(&r2nm_lock);
	return node;
}

void r2nm_node_put(struct r2nm_node *node)
{
	config_item_put(&node->nd_item);
}

int r2nm_this_node(void)
{
	int num = R2NM_INVALID_NODE_NUM;

	spin_lock(&r2nm_lock);
	if (r2nm_cluster)
		num = r2nm_cluster->cl_local_node;
	spin_unlock(&r2nm_lock);
	return num;
}

bool r2net_node_configured(u8 node)
{
	struct r2nm_node *nd = r2nm_get_node_by_num(node);

	if (!nd)
		return false;
	r2nm_node_put(nd);
	return true;
}
EXPORT_SYMBOL_GPL(r2net_node_configured);

int r2net_local_node(void)
{
	return r2nm_this_node();
}
EXPORT_SYMBOL_GPL(r2net_local_node);

int r2nm_cluster_info(struct r2nm_cluster_info *info)
{
	int ret = -ENOENT;

	memset(info, 0, sizeof(*info));
	spin_lock(&r2nm_lock);
	if (r2nm_cluster) {
		strscpy(info->name, config_item_name(&r2nm_cluster->cl_group.cg_item),
			sizeof(info->name));
		info->idle_timeout_ms = r2nm_cluster->cl_idle_timeout_ms;
		info->keepalive_delay_ms = r2nm_cluster->cl_keepalive_delay_ms;
		info->reconnect_delay_ms = r2nm_cluster->cl_reconnect_delay_ms;
		info->security = r2nm_cluster->cl_security;
		memcpy(info->key, r2nm_cluster->cl_key, sizeof(info->key));
		ret = 0;
	}
	spin_unlock(&r2nm_lock);
	return ret;
}

/* Call every became_local; undo the ones done if one fails.  r2nm_mutex. */
static int r2nm_call_became_local(u8 num)
{
	struct r2nm_local_ops *ops;
	int ret;

	lockdep_assert_held(&r2nm_mutex);
	list_for_each_entry(ops, &r2nm_local_ops_list, list) {
		if (!ops->became_local)
			continue;
		ret = ops->became_local(num, ops->data);
		if (ret)
			goto undo;
	}
	return 0;
undo:
	list_for_each_entry_continue_reverse(ops, &r2nm_local_ops_list, list)
		if (ops->stopped_local)
			ops->stopped_local(num, ops->data);
	return ret;
}

static void r2nm_call_stopped_local(u8 num)
{
	struct r2nm_local_ops *ops;

	lockdep_assert_held(&r2nm_mutex);
	list_for_each_entry_reverse(ops, &r2nm_local_ops_list, list)
		if (ops->stopped_local)
			ops->stopped_local(num, ops->data);
}

int r2nm_register_local_ops(struct r2nm_local_ops *ops)
{
	int ret = 0;

	mutex_lock(&r2nm_mutex);
	if (r2nm_cluster && r2nm_cluster->cl_local_node >= 0 &&
	    ops->became_local)
		ret = ops->became_local(r2nm_cluster->cl_local_node, ops->data);
	if (!ret)
		list_add_tail(&ops->list, &r2nm_local_ops_list);
	mutex_unlock(&r2nm_mutex);
	return ret;
}

void r2nm_unregister_local_ops(struct r2nm_local_ops *ops)
{
	mutex_lock(&r2nm_mutex);
	list_del(&ops->list);
	if (r2nm_cluster && r2nm_cluster->cl_local_node >= 0 &&
	    ops->stopped_local)
		ops->stopped_local(r2nm_cluster->cl_local_node, ops->data);
	mutex_unlock(&r2nm_mutex);
}

/* Node attributes */

/*
 * An attribute already set is fixed while the cluster has a local node.
 * Called with r2nm_mutex held.
 */
static int r2nm_node_writable(struct r2nm_node *node,
			      struct r2nm_cluster *cluster, int bit,
			      const char *attr)
{
	struct r2nm_node *local;

	lockdep_assert_held(&r2nm_mutex);
	if (!test_bit(bit, &node->nd_set) || cluster->cl_local_node < 0)
		return 0;
	local = cluster->cl_nodes[cluster->cl_local_node];
	if (local == node)
		r2nm_refuse(node, attr,
			    "the node is local; write 0 to its local first");
	else
		r2nm_refuse(node, attr,
			    "already set while node %s is local; write 0 to its local, or rmdir and mkdir this node",
			    r2nm_node_name(local));
	return -EBUSY;
}

static ssize_t r2nm_node_num_show(struct config_item *item, char *page)
{
	struct r2nm_node *node = to_r2nm_node(item);

	if (!test_bit(R2NM_NODE_ATTR_NUM, &node->nd_set))
		return 0;
	return sysfs_emit(page, "%u\n", node->nd_num);
}

static ssize_t r2nm_node_num_store(struct config_item *item, const char *page,
				   size_t count)
{
	struct r2nm_node *node = to_r2nm_node(item);
	struct r2nm_cluster *cluster = r2nm_node_cluster(node);
	struct r2nm_node *other;
	unsigned int num;
	ssize_t ret;

	if (kstrtouint(page, 10, &num) || num > R2NET_MAX_NODE) {
		r2nm_refuse(node, "num", "write a decimal number 0..%d",
			    R2NET_MAX_NODE);
		return -EINVAL;
	}

	mutex_lock(&r2nm_mutex);
	ret = r2nm_node_writable(node, cluster, R2NM_NODE_ATTR_NUM, "num");
	if (ret)
		goto out;
	if (!test_bit(R2NM_NODE_ATTR_ADDRESS, &node->nd_set) ||
	    !test_bit(R2NM_NODE_ATTR_PORT, &node->nd_set)) {
		r2nm_refuse(node, "num",
			    "write ipv4_address and ipv4_port first");
		ret = -EINVAL;
		goto out;
	}
	other = cluster->cl_nodes[num];
	if (other && other != node) {
		r2nm_refuse(node, "num",
			    "%u is taken by node %s; pick another number",
			    num, r2nm_node_name(other));
		ret = -EEXIST;
		goto out;
	}

	spin_lock(&r2nm_lock);
	if (test_bit(R2NM_NODE_ATTR_NUM, &node->nd_set))
		cluster->cl_nodes[node->nd_num] = NULL;
	node->nd_num = num;
	cluster->cl_nodes[num] = node;
	set_bit(R2NM_NODE_ATTR_NUM, &node->nd_set);
	spin_unlock(&r2nm_lock);
	ret = count;
out:
	mutex_unlock(&r2nm_mutex);
	return ret;
}

static ssize_t r2nm_node_ipv4_address_show(struct config_item *item,
					   char *page)
{
	struct r2nm_node *node = to_r2nm_node(item);

	if (!test_bit(R2NM_NODE_ATTR_ADDRESS, &node->nd_set))
		return 0;
	return sysfs_emit(page, "%pI4\n", &node->nd_ipv4_address);
}

static ssize_t r2nm_node_ipv4_address_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct r2nm_node *node = to_r2nm_node(item);
	struct r2nm_cluster *cluster = r2nm_node_cluster(node);
	struct r2nm_node *other;
	const char *end;
	size_t len = count;
	__be32 addr;
	ssize_t ret;

	if (len && page[len - 1] == '\n')
		len--;
	if (!len || len > 15 ||
	    !in4_pton(page, len, (u8 *)&addr, -1, &end) ||
	    end != page + len ||
	    addr == htonl(INADDR_ANY) || addr == htonl(INADDR_BROADCAST)) {
		r2nm_refuse(node, "ipv4_address",
			    "write a unicast dotted quad such as 10.0.0.1");
		return -EINVAL;
	}

	mutex_lock(&r2nm_mutex);
	ret = r2nm_node_writable(node, cluster, R2NM_NODE_ATTR_ADDRESS,
				 "ipv4_address");
	if (ret)
		goto out;
	list_for_each_entry(other, &cluster->cl_node_list, nd_list) {
		if (other == node ||
		    !test_bit(R2NM_NODE_ATTR_ADDRESS, &other->nd_set) ||
		    other->nd_ipv4_address != addr)
			continue;
		r2nm_refuse(node, "ipv4_address",
			    "%pI4 is taken by node %s; each node needs its own address",
			    &addr, r2nm_node_name(other));
		ret = -EEXIST;
		goto out;
	}

	spin_lock(&r2nm_lock);
	node->nd_ipv4_address = addr;
	set_bit(R2NM_NODE_ATTR_ADDRESS, &node->nd_set);
	spin_unlock(&r2nm_lock);
	ret = count;
out:
	mutex_unlock(&r2nm_mutex);
	return ret;
}

static ssize_t r2nm_node_ipv4_port_show(struct config_item *item, char *page)
{
	struct r2nm_node *node = to_r2nm_node(item);

	if (!test_bit(R2NM_NODE_ATTR_PORT, &node->nd_set))
		return 0;
	return sysfs_emit(page, "%u\n", node->nd_ipv4_port);
}

static ssize_t r2nm_node_ipv4_port_store(struct config_item *item,
					 const char *page, size_t count)
{
	struct r2nm_node *node = to_r2nm_node(item);
	struct r2nm_cluster *cluster = r2nm_node_cluster(node);
	u16 port;
	ssize_t ret;

	if (kstrtou16(page, 10, &port) || !port) {
		r2nm_refuse(node, "ipv4_port",
			    "write a port number 1..65535 (r2net uses %d)",
			    R2NET_DEFAULT_PORT);
		return -EINVAL;
	}

	mutex_lock(&r2nm_mutex);
	ret = r2nm_node_writable(node, cluster, R2NM_NODE_ATTR_PORT,
				 "ipv4_port");
	if (ret)
		goto out;
	spin_lock(&r2nm_lock);
	node->nd_ipv4_port = port;
	set_bit(R2NM_NODE_ATTR_PORT, &node->nd_set);
	spin_unlock(&r2nm_lock);
	ret = count;
out:
	mutex_unlock(&r2nm_mutex);
	return ret;
}

static ssize_t r2nm_node_local_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", to_r2nm_node(item)->nd_local);
}

/* Make node no longer local.  r2nm_mutex. */
static void r2nm_node_clear_local(struct r2nm_cluster *cluster,
				  struct r2nm_node *node)
{
	lockdep_assert_held(&r2nm_mutex);
	r2nm_call_stopped_local(node->nd_num);
	spin_lock(&r2nm_lock);
	node->nd_local = false;
	clear_bit(R2NM_NODE_ATTR_LOCAL, &node->nd_set);
	cluster->cl_local_node = R2NM_INVALID_NODE_NUM;
	spin_unlock(&r2nm_lock);
	pr_info("local node %u (%s) cleared\n", node->nd_num,
		r2nm_node_name(node));
}

static ssize_t r2nm_node_local_store(struct config_item *item,
				     const char *page, size_t count)
{
	struct r2nm_node *node = to_r2nm_node(item);
	struct r2nm_cluster *cluster = r2nm_node_cluster(node);
	unsigned int local;
	ssize_t ret;

	if (kstrtouint(page, 10, &local) || local > 1) {
		r2nm_refuse(node, "local", "write 1 for this machine, else 0");
		return -EINVAL;
	}

	mutex_lock(&r2nm_mutex);
	if (!local) {
		if (node->nd_local)
			r2nm_node_clear_local(cluster, node);
		ret = count;
		goto out;
	}
	if (node->nd_local) {
		ret = count;
		goto out;
	}
	if (!test_bit(R2NM_NODE_ATTR_ADDRESS, &node->nd_set) ||
	    !test_bit(R2NM_NODE_ATTR_PORT, &node->nd_set) ||
	    !test_bit(R2NM_NODE_ATTR_NUM, &node->nd_set)) {
		r2nm_refuse(node, "local",
			    "write ipv4_address, ipv4_port and num first");
		ret = -EINVAL;
		goto out;
	}
	if (!cluster->cl_key_set) {
		r2nm_refuse(node, "local",
			    "the cluster has no key; write it to cluster_key first");
		ret = -EINVAL;
		goto out;
	}
	if (cluster->cl_local_node >= 0) {
		r2nm_refuse(node, "local",
			    "node %s is already local; write 0 to its local first",
			    r2nm_node_name(cluster->cl_nodes[cluster->cl_local_node]));
		ret = -EBUSY;
		goto out;
	}
	ret = r2nm_call_became_local(node->nd_num);
	if (ret) {
		r2nm_refuse(node, "local",
			    "starting node %u failed (%zd); see the lines above",
			    node->nd_num, ret);
		goto out;
	}
	spin_lock(&r2nm_lock);
	node->nd_local = true;
	set_bit(R2NM_NODE_ATTR_LOCAL, &node->nd_set);
	cluster->cl_local_node = node->nd_num;
	spin_unlock(&r2nm_lock);
	ret = count;
out:
	mutex_unlock(&r2nm_mutex);
	return ret;
}

CONFIGFS_ATTR(r2nm_node_, num);
CONFIGFS_ATTR(r2nm_node_, ipv4_address);
CONFIGFS_ATTR(r2nm_node_, ipv4_port);
CONFIGFS_ATTR(r2nm_node_, local);

static struct configfs_attribute *r2nm_node_attrs[] = {
	&r2nm_node_attr_num,
	&r2nm_node_attr_ipv4_address,
	&r2nm_node_attr_ipv4_port,
	&r2nm_node_attr_local,
	NULL,
};

static void r2nm_node_release(struct config_item *item)
{
	kfree(to_r2nm_node(item));
}

static struct configfs_item_operations r2nm_node_item_ops = {
	.release	= r2nm_node_release,
};

static const struct config_item_type r2nm_node_type = {
	.ct_item_ops	= &r2nm_node_item_ops,
	.ct_attrs	= r2nm_node_attrs,
	.ct_owner	= THIS_MODULE,
};

/* node/ */

static struct config_item *r2nm_node_group_make_item(struct config_group *group,
						     const char *name)
{
	struct r2nm_cluster *cluster = container_of(group, struct r2nm_cluster,
						    cl_node_group);
	struct r2nm_node *node;

	node = kzalloc(sizeof(*node), GFP_KERNEL);
	if (!node)
		return ERR_PTR(-ENOMEM);
	config_item_init_type_name(&node->nd_item, name, &r2nm_node_type);
	mutex_lock(&r2nm_mutex);
	list_add_tail(&node->nd_list, &cluster->cl_node_list);
	mutex_unlock(&r2nm_mutex);
	return &node->nd_item;
}

static void r2nm_node_group_drop_item(struct config_group *group,
				      struct config_item *item)
{
	struct r2nm_cluster *cluster = container_of(group, struct r2nm_cluster,
						    cl_node_group);
	struct r2nm_node *node = to_r2nm_node(item);

	mutex_lock(&r2nm_mutex);
	if (node->nd_local)
		r2nm_node_clear_local(cluster, node);
	spin_lock(&r2nm_lock);
	if (test_bit(R2NM_NODE_ATTR_NUM, &node->nd_set) &&
	    cluster->cl_nodes[node->nd_num] == node)
		cluster->cl_nodes[node->nd_num] = NULL;
	spin_unlock(&r2nm_lock);
	list_del_init(&node->nd_list);
	mutex_unlock(&r2nm_mutex);
	config_item_put(item);
}

static struct configfs_group_operations r2nm_node_group_ops = {
	.make_item	= r2nm_node_group_make_item,
	.drop_item	= r2nm_node_group_drop_item,
};

static const struct config_item_type r2nm_node_group_type = {
	.ct_group_ops	= &r2nm_node_group_ops,
	.ct_owner	= THIS_MODULE,
};

/* Cluster attributes */

static int r2nm_cluster_parse_timeout(const char *page, const char *attr,
				      u32 *val)
{
	if (kstrtou32(page, 10, val) || !*val || *val > R2NM_MAX_TIMEOUT_MS) {
		r2nm_cl_refuse(attr, "write milliseconds 1..%u", R2NM_MAX_TIMEOUT_MS);
		return -EINVAL;
	}
	return 0;
}

/* The timeouts are fixed while a node is local.  r2nm_mutex. */
static int r2nm_cluster_writable(struct r2nm_cluster *cluster,
				 const char *attr)
{
	lockdep_assert_held(&r2nm_mutex);
	if (cluster->cl_local_node < 0)
		return 0;
	r2nm_cl_refuse(attr, "node %s is local; write 0 to its local first",
		       r2nm_node_name(cluster->cl_nodes[cluster->cl_local_node]));
	return -EBUSY;
}

/*
 * Store one of the cluster's timeouts, @field, named @attr: milliseconds,
 * only while no node is local, the keepalive delay below the idle timeout.
 */
static ssize_t r2nm_cluster_timeout_store(struct config_item *item,
					  const char *page, size_t count,
					  const char *attr, u32 *field)
{
	struct r2nm_cluster *cluster = to_r2nm_cluster(item);
	u32 val, idle, keepalive;
	ssize_t ret;

	ret = r2nm_cluster_parse_timeout(page, attr, &val);
	if (ret)
		return ret;
	mutex_lock(&r2nm_mutex);
	ret = r2nm_cluster_writable(cluster, attr);
	if (ret)
		goto out;
	idle = cluster->cl_idle_timeout_ms;
	keepalive = cluster->cl_keepalive_delay_ms;
	if (field == &cluster->cl_idle_timeout_ms && val <= keepalive) {
		r2nm_cl_refuse(attr,
			       "%u is not above keepalive_delay_ms %u; lower keepalive_delay_ms first",
			       val, keepalive);
		ret = -EINVAL;
		goto out;
	}
	if (field == &cluster->cl_keepalive_delay_ms && val >= idle) {
		r2nm_cl_refuse(attr,
			       "%u is not below idle_timeout_ms %u; raise idle_timeout_ms first",
			       val, idle);
		ret = -EINVAL;
		goto out;
	}
	spin_lock(&r2nm_lock);
	*field = val;
	spin_unlock(&r2nm_lock);
	ret = count;
out:
	mutex_unlock(&r2nm_mutex);
	return ret;
}

#define R2NM_CLUSTER_TIMEOUT_ATTR(name)					\
static ssize_t r2nm_cluster_##name##_show(struct config_item *item,	\
					  char *page)			\
{									\
	return sysfs_emit(page, "%u\n", to_r2nm_cluster(item)->cl_##name);	\
}									\
									\
static ssize_t r2nm_cluster_##name##_store(struct config_item *item,	\
					   const char *page, size_t count) \
{									\
	return r2nm_cluster_timeout_store(item, page, count, #name,	\
					  &to_r2nm_cluster(item)->cl_##name); \
}

R2NM_CLUSTER_TIMEOUT_ATTR(idle_timeout_ms);
R2NM_CLUSTER_TIMEOUT_ATTR(keepalive_delay_ms);
R2NM_CLUSTER_TIMEOUT_ATTR(reconnect_delay_ms);

/*
 * The cluster key: 64 hex digits and an optional newline, only while no
 * node is local.  What was written is never echoed back or logged.
 */
static ssize_t r2nm_cluster_cluster_key_store(struct config_item *item,
					      const char *page, size_t count)
{
	struct r2nm_cluster *cluster = to_r2nm_cluster(item);
	size_t len = count;
	u8 key[R2NET_KEY_LEN];
	ssize_t ret;

	if (len && page[len - 1] == '\n')
		len--;
	if (len != 2 * R2NET_KEY_LEN || hex2bin(key, page, R2NET_KEY_LEN)) {
		r2nm_cl_refuse("cluster_key",
			       "write %d hex digits, the cluster's key (ramster.conf: cluster_key)",
			       2 * R2NET_KEY_LEN);
		ret = -EINVAL;
		goto out_wipe;
	}
	mutex_lock(&r2nm_mutex);
	ret = r2nm_cluster_writable(cluster, "cluster_key");
	if (!ret) {
		spin_lock(&r2nm_lock);
		memcpy(cluster->cl_key, key, sizeof(key));
		cluster->cl_key_set = true;
		spin_unlock(&r2nm_lock);
		ret = count;
	}
	mutex_unlock(&r2nm_mutex);
out_wipe:
	memzero_explicit(key, sizeof(key));
	return ret;
}

static const char *const r2nm_security_names[R2NET_SEC_NR] = {
	[R2NET_SEC_INTEGRITY]	= "integrity",
	[R2NET_SEC_NONE]	= "none",
	[R2NET_SEC_ENCRYPT]	= "encrypt",
};

static ssize_t r2nm_cluster_security_show(struct config_item *item,
					  char *page)
{
	return sysfs_emit(page, "%s\n",
			  r2nm_security_names[to_r2nm_cluster(item)->cl_security]);
}

/* What protects the frames, only while no node is local. */
static ssize_t r2nm_cluster_security_store(struct config_item *item,
					   const char *page, size_t count)
{
	struct r2nm_cluster *cluster = to_r2nm_cluster(item);
	ssize_t ret;
	int sec;

	sec = sysfs_match_string(r2nm_security_names, page);
	if (sec < 0) {
		r2nm_cl_refuse("security",
			       "write integrity (the default), encrypt, or none (no frame tags: only to measure their cost)");
		return -EINVAL;
	}
	mutex_lock(&r2nm_mutex);
	ret = r2nm_cluster_writable(cluster, "security");
	if (!ret) {
		spin_lock(&r2nm_lock);
		cluster->cl_security = sec;
		spin_unlock(&r2nm_lock);
		ret = count;
	}
	mutex_unlock(&r2nm_mutex);
	return ret;
}

CONFIGFS_ATTR(r2nm_cluster_, idle_timeout_ms);
CONFIGFS_ATTR(r2nm_cluster_, keepalive_delay_ms);
CONFIGFS_ATTR(r2nm_cluster_, reconnect_delay_ms);
CONFIGFS_ATTR_WO(r2nm_cluster_, cluster_key);
CONFIGFS_ATTR(r2nm_cluster_, security);

static struct configfs_attribute *r2nm_cluster_attrs[] = {
	&r2nm_cluster_attr_idle_timeout_ms,
	&r2nm_cluster_attr_keepalive_delay_ms,
	&r2nm_cluster_attr_reconnect_delay_ms,
	&r2nm_cluster_attr_cluster_key,
	&r2nm_cluster_attr_security,
	NULL,
};

static void r2nm_cluster_release(struct config_item *item)
{
	kfree_sensitive(to_r2nm_cluster(item));
}

static struct configfs_item_operations r2nm_cluster_item_ops = {
	.release	= r2nm_cluster_release,
};

static const struct config_item_type r2nm_cluster_type = {
	.ct_item_ops	= &r2nm_cluster_item_ops,
	.ct_attrs	= r2nm_cluster_attrs,
	.ct_owner	= THIS_MODULE,
};

/* The subsystem: r2net/<cluster> */

static struct config_group *r2nm_cluster_make_group(struct config_group *group,
						    const char *name)
{
	struct r2nm_cluster *cluster;
	size_t len = strlen(name);
	size_t i;

	if (len > R2NET_CLUSTER_NAME_LEN) {
		pr_warn("cluster %s: refused: the name is longer than %d bytes; pick a shorter one\n",
			name, R2NET_CLUSTER_NAME_LEN);
		return ERR_PTR(-ENAMETOOLONG);
	}
	for (i = 0; i < len; i++) {
		if (name[i] <= ' ' || name[i] > '~') {
			pr_warn("cluster: refused a name with an unprintable byte; use letters, digits and punctuation\n");
			return ERR_PTR(-EINVAL);
		}
	}

	cluster = kzalloc(sizeof(*cluster), GFP_KERNEL);
	if (!cluster)
		return ERR_PTR(-ENOMEM);
	config_group_init_type_name(&cluster->cl_group, name,
				    &r2nm_cluster_type);
	config_group_init_type_name(&cluster->cl_node_group, "node",
				    &r2nm_node_group_type);
	configfs_add_default_group(&cluster->cl_node_group, &cluster->cl_group);
	INIT_LIST_HEAD(&cluster->cl_node_list);
	cluster->cl_local_node = R2NM_INVALID_NODE_NUM;
	cluster->cl_idle_timeout_ms = R2NET_IDLE_TIMEOUT_MS_DEFAULT;
	cluster->cl_keepalive_delay_ms = R2NET_KEEPALIVE_DELAY_MS_DEFAULT;
	cluster->cl_reconnect_delay_ms = R2NET_RECONNECT_DELAY_MS_DEFAULT;

	mutex_lock(&r2nm_mutex);
	if (r2nm_cluster) {
		pr_warn("cluster %s: refused: cluster %s exists and r2net has one cluster; rmdir it first\n",
			name, config_item_name(&r2nm_cluster->cl_group.cg_item));
		mutex_unlock(&r2nm_mutex);
		config_group_put(&cluster->cl_node_group);
		config_group_put(&cluster->cl_group);
		return ERR_PTR(-ENOSPC);
	}
	spin_lock(&r2nm_lock);
	r2nm_cluster = cluster;
	spin_unlock(&r2nm_lock);
	mutex_unlock(&r2nm_mutex);
	pr_info("cluster %s created\n", name);
	return &cluster->cl_group;
}

static void r2nm_cluster_drop_item(struct config_group *group,
				   struct config_item *item)
{
	struct r2nm_cluster *cluster = to_r2nm_cluster(item);

	mutex_lock(&r2nm_mutex);
	spin_lock(&r2nm_lock);
	if (r2nm_cluster == cluster)
		r2nm_cluster = NULL;
	spin_unlock(&r2nm_lock);
	mutex_unlock(&r2nm_mutex);
	pr_info("cluster %s removed\n", config_item_name(item));
	configfs_remove_default_groups(&cluster->cl_group);
	config_item_put(item);
}

static struct configfs_group_operations r2nm_cluster_group_ops = {
	.make_group	= r2nm_cluster_make_group,
	.drop_item	= r2nm_cluster_drop_item,
};

static const struct config_item_type r2nm_subsys_type = {
	.ct_group_ops	= &r2nm_cluster_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem r2nm_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "r2net",
			.ci_type	= &r2nm_subsys_type,
		},
	},
};

int r2nm_init(void)
{
	int ret;

	config_group_init(&r2nm_subsys.su_group);
	mutex_init(&r2nm_subsys.su_mutex);
	ret = configfs_register_subsystem(&r2nm_subsys);
	if (ret)
		pr_err("cannot register configfs subsystem r2net: %d\n", ret);
	return ret;
}

void r2nm_exit(void)
{
	configfs_unregister_subsystem(&r2nm_subsys);
}
