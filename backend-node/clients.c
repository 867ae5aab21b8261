// SPDX-License-Identifier: GPL-2.0
/*
 * clients.c - a client node that r2net reports down keeps its pools for
 * client_grace_ms (module parameter, default 60000): a client that reboots
 * or loses its link for a moment finds its persistent pages again.  When
 * the grace period runs out the store lets go of every pool of the node
 * (tmem_destroy_client_away()), unless the node sent a request since it
 * went: node events come from a work item, so a client can be back, and
 * using its pools, before its up event cancels the timer, or while the
 * timer's work already runs.  A node back up within it cancels the timer.
 * The shared pools a node is in are emptied when it goes down: flushes it
 * queued for them may never come (tmem_client_gone_shared()).
 */
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "clients.h"
#include "r2net.h"
#include "tmem.h"

#define CLIENT_GRACE_MS_MAX	(24 * 3600 * 1000)

static unsigned int client_grace_ms = 60000;

static int client_grace_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint_minmax(val, kp, 0, CLIENT_GRACE_MS_MAX);

	if (ret)
		pr_err("client_grace_ms: '%.*s' refused: want 0..%u ms\n",
		       (int)strcspn(val, "\n"), val, CLIENT_GRACE_MS_MAX);
	return ret;
}

static const struct kernel_param_ops client_grace_ops = {
	.set = client_grace_set,
	.get = param_get_uint,
};
module_param_cb(client_grace_ms, &client_grace_ops, &client_grace_ms, 0644);
MODULE_PARM_DESC(client_grace_ms, "how long a client node that went down keeps its pools (ms; 0: freed at once)");

struct backend_client {
	struct delayed_work gone;
	u8 node;
};

static struct tmem_store *clients_store;
static struct backend_client clients[TMEM_MAX_CLIENTS];
static atomic64_t clients_downs, clients_returns, clients_freed;
static atomic_t clients_pending;

static void backend_client_gone(struct work_struct *work)
{
	struct backend_client *c = container_of(to_delayed_work(work),
						struct backend_client, gone);
	int pools = tmem_destroy_client_away(clients_store, c->node);

	atomic_dec(&clients_pending);
	if (pools < 0) {
		atomic64_inc(&clients_returns);
		pr_info("node %u: back as its grace period ran out (it sent requests); its pools are kept\n",
			c->node);
		return;
	}
	atomic64_inc(&clients_freed);
	pr_info("node %u: down for its grace period; freed its %d pool(s)\n",
		c->node, pools);
}

static void backend_client_up(u8 node, void *data)
{
	if (cancel_delayed_work(&clients[node].gone)) {
		atomic_dec(&clients_pending);
		atomic64_inc(&clients_returns);
		pr_info("node %u: back within its grace period; its pools are kept\n",
			node);
	}
}

static void backend_client_down(u8 node, void *data)
{
	unsigned int ms = READ_ONCE(client_grace_ms);

	atomic64_inc(&clients_downs);
	tmem_client_away(clients_store, node);
	if (tmem_client_gone_shared(clients_store, node))
		pr_info("node %u: down; emptied the shared pools it is in\n",
			node);
	if (!mod_delayed_work(system_wq, &clients[node].gone,
			      msecs_to_jiffies(ms)))
		atomic_inc(&clients_pending);
	pr_info("node %u: down; its pools go in %u ms unless it comes back\n",
		node, ms);
}

static struct r2net_node_ops clients_node_ops = {
	.up	= backend_client_up,
	.down	= backend_client_down,
};

/**
 * backend_clients_init() - follow client nodes' ups and downs for @store
 * @store: the store
 */
void backend_clients_init(struct tmem_store *store)
{
	int i;

	clients_store = store;
	for (i = 0; i < TMEM_MAX_CLIENTS; i++) {
		clients[i].node = i;
		INIT_DELAYED_WORK(&clients[i].gone, backend_client_gone);
	}
	r2net_register_node_ops(&clients_node_ops);
}

/**
 * backend_clients_exit() - stop; pending grace periods are dropped (the
 * store is about to be destroyed with every pool)
 */
void backend_clients_exit(void)
{
	int i;

	r2net_unregister_node_ops(&clients_node_ops);
	for (i = 0; i < TMEM_MAX_CLIENTS; i++)
		if (cancel_delayed_work_sync(&clients[i].gone))
			atomic_dec(&clients_pending);
}

/**
 * backend_clients_stats() - read the grace period's counters
 * @st: filled in
 */
void backend_clients_stats(struct backend_clients_stats *st)
{
	st->downs = atomic64_read(&clients_downs);
	st->returns = atomic64_read(&clients_returns);
	st->freed = atomic64_read(&clients_freed);
	st->pending = atomic_read(&clients_pending);
}
