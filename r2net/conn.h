/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conn.h - what r2net's connection files share: a connection, the frames
 * it queues and the requests awaiting replies on it.
 *
 * conn.c keeps the connections (connect, accept, timers, teardown), send.c
 * queues and writes frames and completes requests, recv.c reads, checks
 * and handles frames, auth.c signs and checks the handshake.
 */
#ifndef RAMSTER_R2NET_CONN_H
#define RAMSTER_R2NET_CONN_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/sizes.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "r2net_int.h"

#define R2NET_TX_QUEUE_MAX		SZ_1M	/* senders wait above */
#define R2NET_TX_QUEUE_HARD		SZ_4M	/* replies wait above */
#define R2NET_REAP_MS			250

enum {
	R2NET_CONN_DEAD,	/* shut down; nothing more is queued */
	R2NET_CONN_UP,		/* handshake done; rn->conn points here */
};

struct r2net_pending;

/* The most pieces a frame references: a reply's pages, a batch's pages. */
#define R2NET_REFS_MAX		R2NET_REPLY_PAGES

/*
 * A frame to send: header and head in data[], then the referenced pieces
 * ref[], then the page if there is one.  A request's frame points at its
 * pending entry and the entry back at it (both under tx_lock) until the
 * frame is written or dropped: while it does, nobody may complete the
 * request, for the frame still reads the caller's memory.  A reply's
 * frame owns its pieces, the pages the handler built it in.
 */
struct r2net_txbuf {
	struct list_head	list;		/* conn->tx_queue */
	size_t			len;		/* of the whole frame */
	size_t			head_len;	/* of data[] */
	struct page		*page;
	struct r2net_pending	*p;		/* a request's, or NULL */
	u8			state;		/* R2NET_TB_*, in send.c */
	u8			nref;
	bool			own_refs;	/* free_page() each when done */
	struct kvec		ref[R2NET_REFS_MAX];
	u8			data[];
};

/* What a frame carries, for r2net_txbuf_alloc(). */
struct r2net_frame {
	u16			type;
	u16			flags;		/* R2NET_F_* */
	u32			key;
	u32			sys_status;	/* R2NET_SYS_*, of a reply */
	s32			status;		/* the handler's, of a reply */
	u64			req_id;
	const struct kvec	*vec;		/* the head, copied */
	size_t			nvec;
	const struct kvec	*ref;		/* then these, referenced */
	size_t			nref;
	bool			own_refs;	/* pages the frame frees */
	struct page		*page;		/* last, referenced */
};

struct r2net_conn {
	struct kref		ref;
	struct list_head	all;		/* r2net_conns */
	struct mutex		sock_mutex;	/* sock's release, shutdown */
	struct socket		*sock;
	u8			num;		/* the peer's number */
	bool			outgoing;
	bool			counted_pending;
	__be32			peer_addr;
	u16			peer_port;
	unsigned long		flags;

	spinlock_t		tx_lock;	/* tx_queue, tx_queued, tb<->p */
	struct list_head	tx_queue;	/* of r2net_txbuf */
	size_t			tx_queued;	/* bytes */
	wait_queue_head_t	tx_wait;	/* room, and frames written */
	struct work_struct	tx_work;
	/*
	 * tx_work's own: a write that waits on its socket (up to sndtimeo)
	 * holds up no other connection, even when only a rescuer runs.
	 */
	struct workqueue_struct	*tx_wq;

	struct xarray		pending;	/* req_id -> r2net_pending */
	u32			next_id;

	struct delayed_work	idle_work;
	struct delayed_work	keepalive_work;
	struct delayed_work	reap_work;
	u64			keepalive_id;
	ktime_t			keepalive_sent;
	bool			idle_waited;	/* the idle timer waited once */

	u8			*rx_buf;	/* R2NET_MAX_FRAME, kvmalloc'd */
	/* The handshake so far, m1 and m2 (auth.c), until it is up. */
	u8			hs_m[2][R2NET_HANDSHAKE_LEN];
	bool			auth_wait;	/* acceptor: m2 sent */
	/* Once up: the frame keys and counts (auth.c); tx_work's, rx's. */
	u8			tx_key[R2NET_KEY_LEN];
	u8			rx_key[R2NET_KEY_LEN];
	u64			tx_seq;
	u64			rx_seq;
	/* security encrypt: the keys and tx_work's bounce buffer */
	u8			tx_ekey[R2NET_KEY_LEN];
	u8			rx_ekey[R2NET_KEY_LEN];
	u8			*tx_bounce;	/* R2NET_MAX_PAYLOAD */
};

/*
 * A request awaiting its reply: async (done set, kmalloc'd) or sync (on
 * the sender's stack).  It is freed only after it has left the pending
 * table and its frame has let go of it, so under the table's lock every
 * entry in it is alive.
 */
struct r2net_pending {
	struct list_head	reap;		/* r2net_reap_work_fn's list */
	struct r2net_txbuf	*tb;		/* its frame, until written */
	u16			type;
	u32			key;
	ktime_t			sent;
	unsigned long		deadline;	/* jiffies */
	r2net_done_fn		done;
	void			*arg;
	struct completion	comp;
	int			err;
	struct r2net_reply	*reply;
};

/* conn.c: fixed while a node is local, set by r2net_start() */
extern struct r2nm_cluster_info r2net_info;
extern int r2net_local;
extern struct workqueue_struct *r2net_wq;

static inline struct r2net_node *r2net_conn_node(struct r2net_conn *conn)
{
	return &r2net_nodes[conn->num];
}

/* conn.c */
struct r2net_conn *r2net_conn_get(u8 num);
void r2net_conn_put(struct r2net_conn *conn);
void r2net_conn_shutdown(struct r2net_conn *conn);
void r2net_conn_reject(struct r2net_conn *conn, enum r2net_stat stat,
		       const char *why);
void r2net_heard(struct r2net_conn *conn);

/* send.c */
struct r2net_txbuf *r2net_txbuf_alloc(const struct r2net_frame *f, gfp_t gfp);
void r2net_txbuf_free(struct r2net_txbuf *tb);
int r2net_queue(struct r2net_conn *conn, struct r2net_txbuf *tb, bool wait,
		unsigned long deadline);
void r2net_tx_work_fn(struct work_struct *work);
void r2net_tx_drop(struct r2net_conn *conn);
int r2net_queue_system(struct r2net_conn *conn, u16 type, u64 id,
		       const void *payload, size_t len);
int r2net_queue_handshake(struct r2net_conn *conn);
int r2net_queue_auth(struct r2net_conn *conn);
bool r2net_pending_take(struct r2net_conn *conn, u32 id,
			struct r2net_pending *p);
int r2net_pending_unqueue(struct r2net_conn *conn, struct r2net_pending *p);
int r2net_pending_unqueue_wait(struct r2net_conn *conn,
			       struct r2net_pending *p);
void r2net_pending_complete(struct r2net_pending *p, int err, s32 status,
			    const void *data, u32 len);
u32 r2net_us_since(ktime_t t);
void r2net_reap_work_fn(struct work_struct *work);

/* auth.c */
void r2net_auth_sign(struct r2net_conn *conn, struct r2net_handshake_le *w);
bool r2net_auth_check(struct r2net_conn *conn, const u8 *p);
void r2net_auth_final(struct r2net_conn *conn, u8 *mac);
bool r2net_auth_final_ok(struct r2net_conn *conn, const u8 *mac);
int r2net_auth_up(struct r2net_conn *conn);
unsigned int r2net_auth_encrypt(struct r2net_conn *conn, struct kvec *vec,
				unsigned int n);
void r2net_auth_decrypt(struct r2net_conn *conn, u8 *p, size_t len);
void r2net_auth_free(struct r2net_conn *conn);
void r2net_auth_tag(struct r2net_conn *conn, const struct kvec *vec,
		    unsigned int n, u8 *tag);
bool r2net_auth_tag_ok(struct r2net_conn *conn, const u8 *p, size_t len,
		       const u8 *tag);

/* recv.c */
int r2net_rx_one(struct r2net_conn *conn);

#endif /* RAMSTER_R2NET_CONN_H */
