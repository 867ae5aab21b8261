// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - r2net's counters in debugfs.
 *
 *	/sys/kernel/debug/r2net/nodes/<num>	one file per configured node
 *						other than the local one
 *	/sys/kernel/debug/r2net/listener	connections no node is
 *						blamed for
 *
 * Each file is "name value" lines; state is a word, the rest numbers.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>

#include "r2net_int.h"

struct r2net_node r2net_nodes[R2NM_MAX_NODES];
atomic64_t r2net_lstats[R2NET_LSTAT_NR];

static const char *const r2net_stat_names[R2NET_STAT_NR] = {
	[R2NET_STAT_CONNECTS]		= "connects",
	[R2NET_STAT_DISCONNECTS]	= "disconnects",
	[R2NET_STAT_MSGS_TX]		= "msgs_tx",
	[R2NET_STAT_MSGS_RX]		= "msgs_rx",
	[R2NET_STAT_BYTES_TX]		= "bytes_tx",
	[R2NET_STAT_BYTES_RX]		= "bytes_rx",
	[R2NET_STAT_KEEPALIVES_TX]	= "keepalives_tx",
	[R2NET_STAT_KEEPALIVES_RX]	= "keepalives_rx",
	[R2NET_STAT_TIMEOUTS]		= "timeouts",
	[R2NET_STAT_SEND_ERRORS]	= "send_errors",
	[R2NET_STAT_LATE_REPLIES]	= "late_replies",
	[R2NET_STAT_NO_HANDLER]		= "no_handler",
	[R2NET_STAT_REJECTED_HANDSHAKE]	= "rejected_handshake",
	[R2NET_STAT_REJECTED_DIRECTION]	= "rejected_direction",
	[R2NET_STAT_REJECTED_DUPLICATE]	= "rejected_duplicate",
	[R2NET_STAT_REJECTED_UNEXPECTED] = "rejected_unexpected",
	[R2NET_STAT_REJECTED_AUTH]	= "rejected_auth",
};

static const char *const r2net_lstat_names[R2NET_LSTAT_NR] = {
	[R2NET_LSTAT_ACCEPTED]			= "accepted",
	[R2NET_LSTAT_REFUSED_UNKNOWN_ADDRESS]	= "refused_unknown_address",
	[R2NET_LSTAT_REFUSED_TOO_MANY_PENDING]	= "refused_too_many_pending",
};

static const char *const r2net_state_names[] = {
	[R2NET_NODE_DOWN]	= "down",
	[R2NET_NODE_CONNECTING]	= "connecting",
	[R2NET_NODE_HANDSHAKE]	= "handshake",
	[R2NET_NODE_UP]		= "up",
};

static struct dentry *r2net_debugfs_root;
static struct dentry *r2net_debugfs_nodes;

void r2net_rtt_record(struct r2net_node *rn, u32 us)
{
	spin_lock(&rn->lock);
	rn->rtt_last_us = us;
	if (!rn->rtt_avg_us)
		rn->rtt_avg_us = us;
	else
		rn->rtt_avg_us = rn->rtt_avg_us - rn->rtt_avg_us / 8 + us / 8;
	rn->rtt_max_us = max(rn->rtt_max_us, us);
	spin_unlock(&rn->lock);
}

static int r2net_node_show(struct seq_file *m, void *v)
{
	struct r2net_node *rn = m->private;
	u32 last, avg, max;
	enum r2net_node_state state;
	unsigned int i;

	spin_lock(&rn->lock);
	state = rn->state;
	last = rn->rtt_last_us;
	avg = rn->rtt_avg_us;
	max = rn->rtt_max_us;
	spin_unlock(&rn->lock);

	seq_printf(m, "state %s\n", r2net_state_names[state]);
	for (i = 0; i < R2NET_STAT_NR; i++) {
		if (i == R2NET_STAT_KEEPALIVES_RX + 1)
			seq_printf(m, "in_flight %d\n",
				   atomic_read(&rn->in_flight));
		if (r2net_stat_names[i])
			seq_printf(m, "%s %lld\n", r2net_stat_names[i],
				   (long long)atomic64_read(&rn->stats[i]));
		else
			seq_printf(m, "rejected_%s %lld\n",
				   r2net_reject_name(i - R2NET_STAT_REJECTED_FIRST + 1),
				   (long long)atomic64_read(&rn->stats[i]));
	}
	seq_printf(m, "rtt_last_us %u\nrtt_avg_us %u\nrtt_max_us %u\n",
		   last, avg, max);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(r2net_node);

static int r2net_listener_show(struct seq_file *m, void *v)
{
	unsigned int i, pending = 0;

	for (i = 0; i < R2NM_MAX_NODES; i++)
		pending += atomic_read(&r2net_nodes[i].pending);
	seq_printf(m, "pending %u\n", pending);
	for (i = 0; i < R2NET_LSTAT_NR; i++)
		seq_printf(m, "%s %lld\n", r2net_lstat_names[i],
			   (long long)atomic64_read(&r2net_lstats[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(r2net_listener);

/*
 * Make nodes/<num> exist if present, else not.  Called only from the
 * connection scan, one at a time.
 */
void r2net_debugfs_node(u8 num, bool present)
{
	struct r2net_node *rn = &r2net_nodes[num];
	char name[8];

	if (!r2net_debugfs_nodes || present == !!rn->dentry)
		return;
	if (!present) {
		debugfs_remove(rn->dentry);
		rn->dentry = NULL;
		return;
	}
	snprintf(name, sizeof(name), "%u", num);
	rn->dentry = debugfs_create_file(name, 0444, r2net_debugfs_nodes, rn,
					 &r2net_node_fops);
	if (IS_ERR(rn->dentry))
		rn->dentry = NULL;
}

/* A new local node starts from zero; nothing is connected. */
void r2net_stats_reset(void)
{
	unsigned int i, s;

	for (i = 0; i < R2NM_MAX_NODES; i++) {
		struct r2net_node *rn = &r2net_nodes[i];

		spin_lock(&rn->lock);
		rn->rtt_last_us = 0;
		rn->rtt_avg_us = 0;
		rn->rtt_max_us = 0;
		spin_unlock(&rn->lock);
		for (s = 0; s < R2NET_STAT_NR; s++)
			atomic64_set(&rn->stats[s], 0);
	}
	for (s = 0; s < R2NET_LSTAT_NR; s++)
		atomic64_set(&r2net_lstats[s], 0);
}

int r2net_debugfs_init(void)
{
	unsigned int i;

	for (i = 0; i < R2NM_MAX_NODES; i++) {
		spin_lock_init(&r2net_nodes[i].lock);
		r2net_nodes[i].state = R2NET_NODE_DOWN;
	}
	/* Without debugfs r2net works; it just shows no counters. */
	r2net_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(r2net_debugfs_root)) {
		r2net_debugfs_root = NULL;
		return 0;
	}
	r2net_debugfs_nodes = debugfs_create_dir("nodes", r2net_debugfs_root);
	debugfs_create_file("listener", 0444, r2net_debugfs_root, NULL,
			    &r2net_listener_fops);
	return 0;
}

void r2net_debugfs_exit(void)
{
	unsigned int i;

	debugfs_remove_recursive(r2net_debugfs_root);
	r2net_debugfs_root = NULL;
	r2net_debugfs_nodes = NULL;
	for (i = 0; i < R2NM_MAX_NODES; i++)
		r2net_nodes[i].dentry = NULL;
}
