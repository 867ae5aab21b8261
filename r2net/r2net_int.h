/* SPDX-License-Identifier: GPL-2.0 */
/*
 * r2net_int.h - what r2net's own files share: per-node state and counters,
 * the handler table and the node events.
 */
#ifndef RAMSTER_R2NET_INT_H
#define RAMSTER_R2NET_INT_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "nodemanager.h"
#include "r2net.h"

/* Per-node counters, named as in debugfs (r2net_stat_names[]). */
enum r2net_stat {
	R2NET_STAT_CONNECTS,
	R2NET_STAT_DISCONNECTS,
	R2NET_STAT_MSGS_TX,
	R2NET_STAT_MSGS_RX,
	R2NET_STAT_BYTES_TX,
	R2NET_STAT_BYTES_RX,
	R2NET_STAT_KEEPALIVES_TX,
	R2NET_STAT_KEEPALIVES_RX,
	R2NET_STAT_TIMEOUTS,
	R2NET_STAT_SEND_ERRORS,
	R2NET_STAT_LATE_REPLIES,
	R2NET_STAT_NO_HANDLER,
	/* one per enum r2net_reject, in its order, from R2NET_REJECT_TRUNCATED */
	R2NET_STAT_REJECTED_FIRST,
	R2NET_STAT_REJECTED_HANDSHAKE = R2NET_STAT_REJECTED_FIRST +
					R2NET_REJECT_NR - 1,
	R2NET_STAT_REJECTED_DIRECTION,
	R2NET_STAT_REJECTED_DUPLICATE,
	R2NET_STAT_REJECTED_UNEXPECTED,
	R2NET_STAT_REJECTED_AUTH,	/* a MAC wrong: no key, or a replay */
	R2NET_STAT_NR,
};

/* Counters of the listener, for connections no node can be blamed for. */
enum r2net_lstat {
	R2NET_LSTAT_ACCEPTED,
	R2NET_LSTAT_REFUSED_UNKNOWN_ADDRESS,
	R2NET_LSTAT_REFUSED_TOO_MANY_PENDING,
	R2NET_LSTAT_NR,
};

enum r2net_node_state {
	R2NET_NODE_DOWN,
	R2NET_NODE_CONNECTING,		/* our connect() is under way */
	R2NET_NODE_HANDSHAKE,		/* connected, handshake not done */
	R2NET_NODE_UP,
};

struct r2net_conn;

/*
 * What r2net knows of one node number.  lock covers conn, state,
 * connecting, next_connect and the round-trip times; the counters are
 * atomic and outlive connections.
 */
struct r2net_node {
	spinlock_t		lock;		/* see above */
	struct r2net_conn	*conn;		/* handshaken, or NULL */
	enum r2net_node_state	state;
	bool			connecting;	/* an outgoing attempt exists */
	unsigned long		next_connect;	/* jiffies */
	atomic_t		pending;	/* incoming, not handshaken */
	atomic_t		in_flight;	/* requests awaiting a reply */
	u32			rtt_last_us;
	u32			rtt_avg_us;	/* moving average, 1/8 weight */
	u32			rtt_max_us;
	atomic64_t		stats[R2NET_STAT_NR];
	struct dentry		*dentry;	/* nodes/<num>, or NULL */
};

extern struct r2net_node r2net_nodes[R2NM_MAX_NODES];
extern atomic64_t r2net_lstats[R2NET_LSTAT_NR];

static inline void r2net_stat_add(struct r2net_node *rn, enum r2net_stat s,
				  s64 v)
{
	atomic64_add(v, &rn->stats[s]);
}

static inline void r2net_stat_inc(struct r2net_node *rn, enum r2net_stat s)
{
	atomic64_inc(&rn->stats[s]);
}

static inline void r2net_stat_reject(struct r2net_node *rn,
				     enum r2net_reject r)
{
	r2net_stat_inc(rn, R2NET_STAT_REJECTED_FIRST + r - 1);
}

void r2net_rtt_record(struct r2net_node *rn, u32 us);

/* stats.c: debugfs */
int r2net_debugfs_init(void);
void r2net_debugfs_exit(void);
void r2net_debugfs_node(u8 num, bool present);
void r2net_stats_reset(void);

/* handlers.c: the handler table */
u32 r2net_handler_run(struct r2net_request *req, s32 *status);

/* handlers.c: node events, delivered in order from a work item */
void r2net_event_queue(u8 num, bool up);
int r2net_events_init(void);
void r2net_events_exit(void);

/* conn.c */
int r2net_start(u8 local);
void r2net_stop(u8 local);
int r2net_tcp_init(void);
void r2net_tcp_exit(void);

#endif /* RAMSTER_R2NET_INT_H */
