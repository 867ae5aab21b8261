// SPDX-License-Identifier: GPL-2.0
/*
 * tcp.c - r2net's connections between nodes.
 *
 * Once a node is local, r2net listens on its address and port, and keeps
 * one TCP connection to every other configured node: the node with the
 * lower number connects, the higher one accepts.  Both ends send a
 * handshake first (the acceptor only after it has checked the
 * connector's); only then is the connection the node's, and requests flow.
 *
 * Each connection has a receive thread, which connects (outgoing), reads
 * frames, checks each one before use, runs handlers and completes
 * requests, and tears the connection down when it ends.  Frames to send
 * are queued and written by a work item, so the receive thread never
 * waits on the socket's send side and two nodes replying to each other
 * cannot deadlock.  Requests awaiting replies live in an xarray by id;
 * whoever erases one from it (the reply, the timeout, the teardown or the
 * sender taking it back) completes it, exactly once.
 *
 * Timers per connection: idle (nothing received for idle_timeout_ms, or
 * no handshake in that time: close), keepalive (nothing received for
 * keepalive_delay_ms: ask the peer for a sign of life) and reap (complete
 * requests past their deadline).  A scan every reconnect_delay_ms (at most
 * a second) starts connections to nodes that have none.
 */
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/in.h>
#include <linux/kref.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "r2net_int.h"

#define R2NET_BACKLOG			64
#define R2NET_MAX_PENDING_PER_NODE	8	/* not yet handshaken */
#define R2NET_MAX_PENDING		32
#define R2NET_TX_QUEUE_MAX		SZ_1M	/* senders wait above */
#define R2NET_TX_QUEUE_HARD		SZ_4M	/* replies wait above */
#define R2NET_REAP_MS			250
#define R2NET_SCAN_MAX_MS		1000

enum {
	R2NET_CONN_DEAD,	/* shut down; nothing more is queued */
	R2NET_CONN_UP,		/* handshake done; rn->conn points here */
};

/*
 * A frame to send: header and head in data[], then the page if there is
 * one (referenced until the frame is sent or dropped).
 */
struct r2net_txbuf {
	struct list_head	list;
	size_t			len;		/* of the whole frame */
	size_t			head_len;	/* of data[] */
	struct page		*page;
	u8			data[];
};

struct r2net_conn {
	struct kref		ref;
	struct list_head	all;		/* r2net_conns */
	struct socket		*sock;
	u8			num;		/* the peer's number */
	bool			outgoing;
	bool			counted_pending;
	__be32			peer_addr;
	u16			peer_port;
	unsigned long		flags;

	spinlock_t		tx_lock;	/* tx_queue, tx_queued */
	struct list_head	tx_queue;	/* of r2net_txbuf */
	size_t			tx_queued;	/* bytes */
	wait_queue_head_t	tx_wait;
	struct work_struct	tx_work;

	struct xarray		pending;	/* req_id -> r2net_pending */
	u32			next_id;

	struct delayed_work	idle_work;
	struct delayed_work	keepalive_work;
	struct delayed_work	reap_work;
	u64			keepalive_id;
	ktime_t			keepalive_sent;

	u8			*rx_buf;	/* R2NET_MAX_FRAME */
	u8			*reply_buf;	/* R2NET_MAX_PAYLOAD */
};

/*
 * A request awaiting its reply: async (done set, kmalloc'd) or sync (on
 * the sender's stack).  It is freed only after it has left the pending
 * table, so under the table's lock every entry in it is alive.
 */
struct r2net_pending {
	struct list_head	reap;		/* r2net_reap_work_fn's list */
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

/* Fixed while a node is local: set by r2net_start() before anything runs. */
static struct r2nm_cluster_info r2net_info;
static int r2net_local = R2NM_INVALID_NODE_NUM;
static __be32 r2net_local_addr;
static u16 r2net_local_port;
static bool r2net_running;

static struct socket *r2net_listen_sock;
static struct task_struct *r2net_accept_task;
static LIST_HEAD(r2net_conns);			/* r2net_conns_mutex */
static DEFINE_MUTEX(r2net_conns_mutex);
static atomic_t r2net_nr_conns = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(r2net_conns_wait);
static struct workqueue_struct *r2net_wq;

static void r2net_scan_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(r2net_scan_work, r2net_scan_work_fn);

static struct r2net_node *r2net_conn_node(struct r2net_conn *conn)
{
	return &r2net_nodes[conn->num];
}

static void r2net_conn_release(struct kref *ref)
{
	struct r2net_conn *conn = container_of(ref, struct r2net_conn, ref);

	xa_destroy(&conn->pending);
	kfree(conn->reply_buf);
	kfree(conn->rx_buf);
	kfree(conn);
}

static void r2net_conn_put(struct r2net_conn *conn)
{
	kref_put(&conn->ref, r2net_conn_release);
}

/* The node's handshaken connection, with a reference, or NULL. */
static struct r2net_conn *r2net_conn_get(u8 num)
{
	struct r2net_node *rn = &r2net_nodes[num];
	struct r2net_conn *conn;

	spin_lock(&rn->lock);
	conn = rn->conn;
	if (conn)
		kref_get(&conn->ref);
	spin_unlock(&rn->lock);
	return conn;
}

bool r2net_node_connected(u8 node)
{
	struct r2net_conn *conn = r2net_conn_get(node);

	if (conn)
		r2net_conn_put(conn);
	return conn;
}
EXPORT_SYMBOL_GPL(r2net_node_connected);

/*
 * Stop the connection: senders fail from now on and the receive thread
 * wakes up to tear it down.  Any context that may sleep.
 */
static void r2net_conn_shutdown(struct r2net_conn *conn)
{
	if (test_and_set_bit(R2NET_CONN_DEAD, &conn->flags))
		return;
	kernel_sock_shutdown(conn->sock, SHUT_RDWR);
	wake_up_all(&conn->tx_wait);
}

static void r2net_conn_reject(struct r2net_conn *conn, enum r2net_stat stat,
			      const char *why)
{
	r2net_stat_inc(r2net_conn_node(conn), stat);
	pr_warn_ratelimited("node %u (%pI4): %s; closing the connection\n",
			    conn->num, &conn->peer_addr, why);
}

/* Sending */

/*
 * A frame of the header, the vec's bytes (len in all) and, if page is
 * set, the page's PAGE_SIZE bytes after them.  The page is not copied: it
 * is referenced until the frame is sent, so the caller may not change it
 * before its request completes.
 */
static struct r2net_txbuf *r2net_txbuf_alloc(u16 type, u16 flags, u32 key,
					     u32 sys_status, s32 status,
					     u64 req_id, const struct kvec *vec,
					     size_t nvec, size_t len,
					     struct page *page, gfp_t gfp)
{
	size_t plen = len + (page ? PAGE_SIZE : 0);
	struct r2net_txbuf *tb;
	struct r2net_hdr *hdr;
	u8 *p;
	size_t i;

	tb = kmalloc(struct_size(tb, data, R2NET_HDR_LEN + len), gfp);
	if (!tb)
		return NULL;
	tb->head_len = R2NET_HDR_LEN + len;
	tb->len = R2NET_HDR_LEN + plen;
	tb->page = page;
	if (page)
		get_page(page);
	hdr = (struct r2net_hdr *)tb->data;
	r2net_hdr_init(hdr, type, flags, plen, req_id, status);
	r2net_hdr_set_key(hdr, key, sys_status);
	p = tb->data + R2NET_HDR_LEN;
	for (i = 0; i < nvec; i++) {
		memcpy(p, vec[i].iov_base, vec[i].iov_len);
		p += vec[i].iov_len;
	}
	return tb;
}

static void r2net_txbuf_free(struct r2net_txbuf *tb)
{
	if (tb->page)
		put_page(tb->page);
	kfree(tb);
}

static long r2net_wait_room(struct r2net_conn *conn, size_t limit,
			    unsigned long deadline)
{
	long timeout = max_t(long, deadline - jiffies, 1);

	return wait_event_killable_timeout(conn->tx_wait,
					   READ_ONCE(conn->tx_queued) < limit ||
					   test_bit(R2NET_CONN_DEAD, &conn->flags),
					   timeout);
}

/*
 * Queue a frame.  Senders (wait) sleep while R2NET_TX_QUEUE_MAX bytes are
 * queued; the receive thread only above R2NET_TX_QUEUE_HARD, so that a peer
 * that sends requests but never reads replies cannot make it use unbounded
 * memory (the idle timer ends that connection).  Consumes tb.
 */
static int r2net_queue(struct r2net_conn *conn, struct r2net_txbuf *tb,
		       bool wait, unsigned long deadline)
{
	size_t limit = wait ? R2NET_TX_QUEUE_MAX : R2NET_TX_QUEUE_HARD;
	long left;

	if (READ_ONCE(conn->tx_queued) >= limit) {
		if (wait) {
			left = r2net_wait_room(conn, limit, deadline);
			if (left <= 0) {
				r2net_txbuf_free(tb);
				return left ? -EINTR : -ETIMEDOUT;
			}
		} else {
			wait_event(conn->tx_wait,
				   READ_ONCE(conn->tx_queued) < limit ||
				   test_bit(R2NET_CONN_DEAD, &conn->flags));
		}
	}

	spin_lock(&conn->tx_lock);
	if (test_bit(R2NET_CONN_DEAD, &conn->flags)) {
		spin_unlock(&conn->tx_lock);
		r2net_txbuf_free(tb);
		return -ECONNRESET;
	}
	list_add_tail(&tb->list, &conn->tx_queue);
	conn->tx_queued += tb->len;
	queue_work(r2net_wq, &conn->tx_work);
	spin_unlock(&conn->tx_lock);
	return 0;
}

static int r2net_send_raw(struct r2net_conn *conn, void *data, size_t len,
			  bool more)
{
	struct msghdr msg = {
		.msg_flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0),
	};
	struct kvec vec = { .iov_base = data, .iov_len = len };
	int ret;

	ret = kernel_sendmsg(conn->sock, &msg, &vec, 1, len);
	if (ret == len)
		return 0;
	return ret < 0 ? ret : -EIO;
}

static int r2net_send_tb(struct r2net_conn *conn, struct r2net_txbuf *tb,
			 bool more)
{
	void *addr;
	int ret;

	ret = r2net_send_raw(conn, tb->data, tb->head_len, more || tb->page);
	if (ret || !tb->page)
		return ret;
	addr = kmap_local_page(tb->page);
	ret = r2net_send_raw(conn, addr, PAGE_SIZE, more);
	kunmap_local(addr);
	return ret;
}

static void r2net_tx_work_fn(struct work_struct *work)
{
	struct r2net_conn *conn = container_of(work, struct r2net_conn,
					       tx_work);
	struct r2net_node *rn = r2net_conn_node(conn);
	struct r2net_txbuf *tb;
	unsigned int noreclaim;
	bool more;
	int ret;

	/* Sending may need memory that only the reserves have left. */
	noreclaim = memalloc_noreclaim_save();
	for (;;) {
		spin_lock(&conn->tx_lock);
		tb = list_first_entry_or_null(&conn->tx_queue,
					      struct r2net_txbuf, list);
		if (tb)
			list_del(&tb->list);
		more = !list_empty(&conn->tx_queue);
		spin_unlock(&conn->tx_lock);
		if (!tb)
			break;

		if (!test_bit(R2NET_CONN_DEAD, &conn->flags)) {
			ret = r2net_send_tb(conn, tb, more);
			if (ret) {
				r2net_stat_inc(rn, R2NET_STAT_SEND_ERRORS);
				pr_warn_ratelimited("node %u (%pI4): send failed (%d); closing the connection\n",
						    conn->num, &conn->peer_addr,
						    ret);
				r2net_conn_shutdown(conn);
			} else {
				r2net_stat_inc(rn, R2NET_STAT_MSGS_TX);
				r2net_stat_add(rn, R2NET_STAT_BYTES_TX, tb->len);
			}
		}
		spin_lock(&conn->tx_lock);
		conn->tx_queued -= tb->len;
		spin_unlock(&conn->tx_lock);
		wake_up(&conn->tx_wait);
		r2net_txbuf_free(tb);
	}
	memalloc_noreclaim_restore(noreclaim);
}

/* Queue a system message (handshake or keepalive) on the connection. */
static int r2net_queue_system(struct r2net_conn *conn, u16 type, u64 id,
			      const void *payload, size_t len)
{
	struct kvec vec = { .iov_base = (void *)payload, .iov_len = len };
	struct r2net_txbuf *tb;

	tb = r2net_txbuf_alloc(type, 0, 0, 0, 0, id, &vec, len ? 1 : 0, len,
			       NULL, GFP_NOIO);
	if (!tb)
		return -ENOMEM;
	if (type != R2NET_MSG_HANDSHAKE)
		r2net_stat_inc(r2net_conn_node(conn), R2NET_STAT_KEEPALIVES_TX);
	return r2net_queue(conn, tb, false, 0);
}

static int r2net_queue_handshake(struct r2net_conn *conn)
{
	struct r2net_handshake hs = {
		.protocol_version	= R2NET_PROTOCOL_VERSION,
		.sender_node		= r2net_local,
		.receiver_node		= conn->num,
		.idle_timeout_ms	= r2net_info.idle_timeout_ms,
		.keepalive_delay_ms	= r2net_info.keepalive_delay_ms,
		.reconnect_delay_ms	= r2net_info.reconnect_delay_ms,
	};
	struct r2net_handshake_le w;

	strscpy(hs.cluster_name, r2net_info.name, sizeof(hs.cluster_name));
	r2net_handshake_encode(&w, &hs);
	return r2net_queue_system(conn, R2NET_MSG_HANDSHAKE, 0, &w, sizeof(w));
}

/* Requests and their completion */

/* Take p back from the pending table; false if another path owns it. */
static bool r2net_pending_take(struct r2net_conn *conn, u32 id,
			       struct r2net_pending *p)
{
	if (xa_cmpxchg(&conn->pending, id, p, NULL, 0) != p)
		return false;
	atomic_dec(&r2net_conn_node(conn)->in_flight);
	return true;
}

static int r2net_sys_err(u32 sys_status)
{
	switch (sys_status) {
	case R2NET_SYS_OK:
		return 0;
	case R2NET_SYS_NO_HANDLER:
		return -EOPNOTSUPP;
	case R2NET_SYS_TOO_LONG:
		return -EMSGSIZE;
	default:
		return -ENOMEM;
	}
}

/* Complete a request whose pending entry the caller has taken. */
static void r2net_pending_complete(struct r2net_pending *p, int err,
				   s32 status, const void *data, u32 len)
{
	struct r2net_reply *reply = p->reply;

	if (p->done) {
		p->done(p->arg, err, status, data, len);
		kfree(p);
		return;
	}
	p->err = err;
	if (reply && !err) {
		reply->status = status;
		reply->len = len;
		if (reply->buf)
			memcpy(reply->buf, data, min(len, reply->buf_len));
		if (len > (reply->buf ? reply->buf_len : 0))
			p->err = -EOVERFLOW;
	}
	complete(&p->comp);
}

/*
 * Queue a request; p is filled in and entered in the pending table.
 * Returns an error when p is not pending (nobody will complete it), or 0
 * with *connp referenced and *idp its id when it is: then it is completed
 * by exactly one of the reply, the reaper, the teardown or the caller
 * taking it back with r2net_pending_take().
 */
static int r2net_send_request(u8 num, u16 type, u32 key,
			      const struct kvec *vec, size_t nvec,
			      struct page *page, struct r2net_pending *p,
			      unsigned int timeout_ms,
			      struct r2net_conn **connp, u32 *idp)
{
	struct r2net_conn *conn;
	struct r2net_txbuf *tb;
	size_t len = 0, i;
	u32 id;
	int ret;

	if (!r2net_msg_tmem_op(type) && !r2net_msg_type_user(type))
		return -EINVAL;
	for (i = 0; i < nvec; i++) {
		len += vec[i].iov_len;
		if (len > R2NET_MAX_PAYLOAD)
			return -EMSGSIZE;
	}
	if (page && len > R2NET_MAX_PAYLOAD - PAGE_SIZE)
		return -EMSGSIZE;
	if (!r2net_msg_len_ok(type, false, len + (page ? PAGE_SIZE : 0)))
		return -EMSGSIZE;
	if (num > R2NET_MAX_NODE)
		return -ENOTCONN;
	conn = r2net_conn_get(num);
	if (!conn)
		return -ENOTCONN;

	p->type = type;
	p->key = key;
	p->sent = ktime_get();
	p->deadline = jiffies + msecs_to_jiffies(timeout_ms ?:
						 r2net_info.idle_timeout_ms);

	tb = r2net_txbuf_alloc(type, 0, key, 0, 0, 0, vec, nvec, len, page,
			       GFP_NOIO | __GFP_NOWARN);
	if (!tb) {
		ret = -ENOMEM;
		goto out_put;
	}
	ret = xa_alloc_cyclic(&conn->pending, &id, p, xa_limit_32b,
			      &conn->next_id, GFP_NOIO);
	if (ret < 0) {
		r2net_txbuf_free(tb);
		goto out_put;
	}
	atomic_inc(&r2net_conn_node(conn)->in_flight);
	((struct r2net_hdr *)tb->data)->req_id = cpu_to_le64(id);

	/* The teardown may have drained the table before p went in. */
	if (test_bit(R2NET_CONN_DEAD, &conn->flags)) {
		r2net_txbuf_free(tb);
		ret = -ECONNRESET;
		goto out_take;
	}
	ret = r2net_queue(conn, tb, true, p->deadline);
	if (ret)
		goto out_take;
	*connp = conn;
	*idp = id;
	return 0;

out_take:
	if (r2net_pending_take(conn, id, p)) {
		r2net_stat_inc(r2net_conn_node(conn), R2NET_STAT_SEND_ERRORS);
		goto out_put;
	}
	/* Someone else completes p: it is pending for the caller's purposes. */
	*connp = conn;
	*idp = id;
	return 0;
out_put:
	r2net_conn_put(conn);
	return ret;
}

static int r2net_do_sync(u8 node, u16 type, u32 key, const struct kvec *vec,
			 size_t nvec, struct page *page,
			 struct r2net_reply *reply, unsigned int timeout_ms)
{
	struct r2net_pending p = { .reply = reply };
	struct r2net_conn *conn;
	long left;
	u32 id;
	int ret;

	init_completion(&p.comp);
	if (reply) {
		reply->status = 0;
		reply->len = 0;
	}
	ret = r2net_send_request(node, type, key, vec, nvec, page, &p,
				 timeout_ms, &conn, &id);
	if (ret)
		return ret;
	left = max_t(long, p.deadline - jiffies, 1);
	left = wait_for_completion_killable_timeout(&p.comp, left);
	if (left <= 0) {
		if (r2net_pending_take(conn, id, &p)) {
			if (!left)
				r2net_stat_inc(r2net_conn_node(conn),
					       R2NET_STAT_TIMEOUTS);
			r2net_conn_put(conn);
			return left ? -EINTR : -ETIMEDOUT;
		}
		wait_for_completion(&p.comp);
	}
	r2net_conn_put(conn);
	return p.err;
}

int r2net_send_sync(u8 node, u16 type, u32 key, const struct kvec *vec,
		    size_t nvec, struct r2net_reply *reply,
		    unsigned int timeout_ms)
{
	return r2net_do_sync(node, type, key, vec, nvec, NULL, reply,
			     timeout_ms);
}
EXPORT_SYMBOL_GPL(r2net_send_sync);

int r2net_send_page_sync(u8 node, u16 type, u32 key, const void *head,
			 size_t head_len, struct page *page,
			 struct r2net_reply *reply, unsigned int timeout_ms)
{
	struct kvec vec = { .iov_base = (void *)head, .iov_len = head_len };

	return r2net_do_sync(node, type, key, &vec, 1, page, reply,
			     timeout_ms);
}
EXPORT_SYMBOL_GPL(r2net_send_page_sync);

static int r2net_do_async(u8 node, u16 type, u32 key, const struct kvec *vec,
			  size_t nvec, struct page *page,
			  unsigned int timeout_ms, r2net_done_fn done,
			  void *arg)
{
	struct r2net_pending *p;
	struct r2net_conn *conn;
	u32 id;
	int ret;

	if (!done)
		return -EINVAL;
	p = kzalloc(sizeof(*p), GFP_NOIO | __GFP_NOWARN);
	if (!p)
		return -ENOMEM;
	p->done = done;
	p->arg = arg;
	ret = r2net_send_request(node, type, key, vec, nvec, page, p,
				 timeout_ms, &conn, &id);
	if (ret) {
		kfree(p);
		return ret;
	}
	/* p may be completed and freed already: do not touch it. */
	r2net_conn_put(conn);
	return 0;
}

int r2net_send_async(u8 node, u16 type, u32 key, const struct kvec *vec,
		     size_t nvec, unsigned int timeout_ms,
		     r2net_done_fn done, void *arg)
{
	return r2net_do_async(node, type, key, vec, nvec, NULL, timeout_ms,
			      done, arg);
}
EXPORT_SYMBOL_GPL(r2net_send_async);

int r2net_send_page_async(u8 node, u16 type, u32 key, const void *head,
			  size_t head_len, struct page *page,
			  unsigned int timeout_ms, r2net_done_fn done,
			  void *arg)
{
	struct kvec vec = { .iov_base = (void *)head, .iov_len = head_len };

	return r2net_do_async(node, type, key, &vec, 1, page, timeout_ms,
			      done, arg);
}
EXPORT_SYMBOL_GPL(r2net_send_page_async);

/* Complete every request past its deadline; runs while the node is up. */
static void r2net_reap_work_fn(struct work_struct *work)
{
	struct r2net_conn *conn = container_of(to_delayed_work(work),
					       struct r2net_conn, reap_work);
	struct r2net_node *rn = r2net_conn_node(conn);
	struct r2net_pending *p, *tmp;
	unsigned long id;
	LIST_HEAD(expired);

	xa_lock(&conn->pending);
	xa_for_each(&conn->pending, id, p) {
		if (time_before(jiffies, p->deadline))
			continue;
		__xa_erase(&conn->pending, id);
		atomic_dec(&rn->in_flight);
		list_add_tail(&p->reap, &expired);
	}
	xa_unlock(&conn->pending);

	list_for_each_entry_safe(p, tmp, &expired, reap) {
		r2net_stat_inc(rn, R2NET_STAT_TIMEOUTS);
		r2net_pending_complete(p, -ETIMEDOUT, 0, NULL, 0);
	}
	queue_delayed_work(r2net_wq, &conn->reap_work,
			   msecs_to_jiffies(R2NET_REAP_MS));
}

/* Timers */

/*
 * Why a connection went quiet, for whoever reads the log: what TCP still
 * has to send, whether the peer acknowledges it (retransmits), and
 * whether what did arrive waits behind a lost segment.  Read without the
 * socket lock: a snapshot, good enough to tell a silent peer from a lossy
 * path.
 */
static void r2net_idle_tcp_state(struct r2net_conn *conn)
{
	struct sock *sk = conn->sock->sk;
	const struct tcp_sock *tp = tcp_sk(sk);

	pr_warn("node %u (%pI4): tcp: %u bytes unacknowledged, %u retransmits of the oldest, %u segments retransmitted in all, %s data out of order, %d bytes queued in the socket, %zu in r2net\n",
		conn->num, &conn->peer_addr,
		READ_ONCE(tp->snd_nxt) - READ_ONCE(tp->snd_una),
		READ_ONCE(inet_csk(sk)->icsk_retransmits),
		READ_ONCE(tp->total_retrans),
		RB_EMPTY_ROOT(&tp->out_of_order_queue) ? "no" : "some",
		READ_ONCE(sk->sk_wmem_queued), READ_ONCE(conn->tx_queued));
}

static void r2net_idle_work_fn(struct work_struct *work)
{
	struct r2net_conn *conn = container_of(to_delayed_work(work),
					       struct r2net_conn, idle_work);

	/*
	 * Bytes waiting in the socket mean the peer is alive and this
	 * node's receive thread is what is slow (a starved vCPU): wait on.
	 */
	if (!skb_queue_empty_lockless(&conn->sock->sk->sk_receive_queue)) {
		mod_delayed_work(r2net_wq, &conn->idle_work,
				 msecs_to_jiffies(r2net_info.idle_timeout_ms));
		return;
	}
	pr_warn("node %u (%pI4): nothing heard for %u ms%s; closing the connection\n",
		conn->num, &conn->peer_addr, r2net_info.idle_timeout_ms,
		test_bit(R2NET_CONN_UP, &conn->flags) ? "" :
		" (no handshake)");
	r2net_idle_tcp_state(conn);
	r2net_conn_shutdown(conn);
}

static void r2net_keepalive_work_fn(struct work_struct *work)
{
	struct r2net_conn *conn = container_of(to_delayed_work(work),
					       struct r2net_conn,
					       keepalive_work);
	u64 id = READ_ONCE(conn->keepalive_id) + 1;

	WRITE_ONCE(conn->keepalive_sent, ktime_get());
	WRITE_ONCE(conn->keepalive_id, id);
	r2net_queue_system(conn, R2NET_MSG_KEEPALIVE_REQ, id, NULL, 0);
}

/* Something arrived: push the idle timeout and the keepalive back. */
static void r2net_heard(struct r2net_conn *conn)
{
	mod_delayed_work(r2net_wq, &conn->idle_work,
			 msecs_to_jiffies(r2net_info.idle_timeout_ms));
	if (test_bit(R2NET_CONN_UP, &conn->flags))
		mod_delayed_work(r2net_wq, &conn->keepalive_work,
				 msecs_to_jiffies(r2net_info.keepalive_delay_ms));
}

/* Receiving */

static u32 r2net_us_since(ktime_t t)
{
	return min_t(s64, ktime_us_delta(ktime_get(), t), U32_MAX);
}

/* Read len bytes; returns how many were read (< len at EOF) or an error. */
static int r2net_recv(struct r2net_conn *conn, void *buf, size_t len)
{
	size_t got = 0;
	int ret;

	while (got < len) {
		struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
		struct kvec vec = {
			.iov_base = buf + got,
			.iov_len = len - got,
		};

		ret = kernel_recvmsg(conn->sock, &msg, &vec, 1, len - got,
				     MSG_WAITALL);
		if (ret < 0)
			return got ? got : ret;
		if (ret == 0)
			break;
		got += ret;
	}
	return got;
}

static int r2net_rx_handshake(struct r2net_conn *conn, const void *payload,
			      u32 len)
{
	struct r2net_node *rn = r2net_conn_node(conn);
	struct r2net_handshake hs;
	struct r2nm_node *node;
	enum r2net_reject r;
	const char *bad = NULL;

	r = r2net_handshake_decode(&hs, payload, len);
	if (r != R2NET_ACCEPT) {
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_FIRST + r - 1,
				  r2net_reject_name(r));
		return -EPROTO;
	}
	if (strcmp(hs.cluster_name, r2net_info.name))
		bad = "its handshake names another cluster";
	else if (hs.receiver_node != r2net_local)
		bad = "its handshake is for another node number";
	else if (hs.sender_node != conn->num)
		bad = "its handshake gives a node number that is not its address's";
	else if (hs.idle_timeout_ms != r2net_info.idle_timeout_ms ||
		 hs.keepalive_delay_ms != r2net_info.keepalive_delay_ms ||
		 hs.reconnect_delay_ms != r2net_info.reconnect_delay_ms)
		bad = "its timeouts differ from ours; configure the same on every node";
	if (bad) {
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_HANDSHAKE, bad);
		return -EPROTO;
	}
	if (!conn->outgoing && conn->num > r2net_local) {
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_DIRECTION,
				  "it has the higher number, so it should accept, not connect");
		return -EPROTO;
	}
	node = r2nm_get_node_by_num(conn->num);
	if (!node) {
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_HANDSHAKE,
				  "the node was removed from the configuration");
		return -EPROTO;
	}
	r2nm_node_put(node);

	/* The acceptor's handshake goes out before anything else can. */
	if (!conn->outgoing && r2net_queue_handshake(conn))
		return -ENOMEM;

	spin_lock(&rn->lock);
	if (rn->conn) {
		spin_unlock(&rn->lock);
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_DUPLICATE,
				  "it is connected already");
		return -EPROTO;
	}
	kref_get(&conn->ref);
	rn->conn = conn;
	rn->state = R2NET_NODE_UP;
	set_bit(R2NET_CONN_UP, &conn->flags);
	spin_unlock(&rn->lock);

	if (conn->counted_pending) {
		conn->counted_pending = false;
		atomic_dec(&rn->pending);
	}
	r2net_stat_inc(rn, R2NET_STAT_CONNECTS);
	pr_info("node %u (%pI4:%u) up, %s\n", conn->num, &conn->peer_addr,
		conn->peer_port, conn->outgoing ? "connected" : "accepted");
	r2net_event_queue(conn->num, true);
	queue_delayed_work(r2net_wq, &conn->reap_work,
			   msecs_to_jiffies(R2NET_REAP_MS));
	queue_delayed_work(r2net_wq, &conn->keepalive_work,
			   msecs_to_jiffies(r2net_info.keepalive_delay_ms));
	return 0;
}

static int r2net_rx_reply(struct r2net_conn *conn, const struct r2net_msg *msg,
			  const void *payload)
{
	struct r2net_node *rn = r2net_conn_node(conn);
	struct r2net_pending *p = NULL;

	if (msg->req_id <= U32_MAX)
		p = xa_erase(&conn->pending, msg->req_id);
	if (!p) {
		/* Its request timed out, or the peer is confused: harmless. */
		r2net_stat_inc(rn, R2NET_STAT_LATE_REPLIES);
		return 0;
	}
	atomic_dec(&rn->in_flight);
	if (p->type != msg->type || p->key != msg->key) {
		r2net_pending_complete(p, -EPROTO, 0, NULL, 0);
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_UNEXPECTED,
				  "a reply does not match its request");
		return -EPROTO;
	}
	r2net_rtt_record(rn, r2net_us_since(p->sent));
	r2net_pending_complete(p, r2net_sys_err(msg->sys_status), msg->status,
			       payload, msg->len);
	return 0;
}

static int r2net_rx_request(struct r2net_conn *conn,
			    const struct r2net_msg *msg, const void *payload)
{
	struct r2net_node *rn = r2net_conn_node(conn);
	struct r2net_request req = {
		.node	= conn->num,
		.type	= msg->type,
		.key	= msg->key,
		.data	= payload,
		.len	= msg->len,
		.reply	= conn->reply_buf,
	};
	struct r2net_txbuf *tb;
	struct kvec vec;
	s32 status;
	u32 sys;

	sys = r2net_handler_run(&req, &status);
	if (sys == R2NET_SYS_NO_HANDLER) {
		r2net_stat_inc(rn, R2NET_STAT_NO_HANDLER);
		pr_warn_ratelimited("node %u: no handler for type %#x key %#x\n",
				    conn->num, msg->type, msg->key);
	} else if (req.reply_len > R2NET_MAX_PAYLOAD ||
		   !r2net_msg_len_ok(msg->type, true, req.reply_len)) {
		pr_warn_once("handler for type %#x key %#x returned %u reply bytes; sending none\n",
			     msg->type, msg->key, req.reply_len);
		req.reply_len = 0;
	}

	vec.iov_base = conn->reply_buf;
	vec.iov_len = sys ? 0 : req.reply_len;
	tb = r2net_txbuf_alloc(msg->type, R2NET_F_REPLY, msg->key, sys, status,
			       msg->req_id, &vec, 1, vec.iov_len, NULL,
			       GFP_NOIO);
	if (!tb) {
		/* The sender must hear something: a bare reply is small. */
		vec.iov_len = 0;
		tb = r2net_txbuf_alloc(msg->type, R2NET_F_REPLY, msg->key,
				       R2NET_SYS_NOMEM, 0, msg->req_id, &vec,
				       0, 0, NULL, GFP_NOIO | __GFP_NOFAIL);
	}
	r2net_queue(conn, tb, false, 0);
	return 0;
}

static int r2net_rx_dispatch(struct r2net_conn *conn,
			     const struct r2net_msg *msg, const void *payload)
{
	struct r2net_node *rn = r2net_conn_node(conn);

	if (!test_bit(R2NET_CONN_UP, &conn->flags)) {
		if (msg->type == R2NET_MSG_HANDSHAKE)
			return r2net_rx_handshake(conn, payload, msg->len);
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_UNEXPECTED,
				  "it sent a message before its handshake");
		return -EPROTO;
	}
	switch (msg->type) {
	case R2NET_MSG_HANDSHAKE:
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_UNEXPECTED,
				  "it sent a second handshake");
		return -EPROTO;
	case R2NET_MSG_KEEPALIVE_REQ:
		r2net_stat_inc(rn, R2NET_STAT_KEEPALIVES_RX);
		return r2net_queue_system(conn, R2NET_MSG_KEEPALIVE_RESP,
					  msg->req_id, NULL, 0);
	case R2NET_MSG_KEEPALIVE_RESP:
		r2net_stat_inc(rn, R2NET_STAT_KEEPALIVES_RX);
		if (msg->req_id == READ_ONCE(conn->keepalive_id))
			r2net_rtt_record(rn, r2net_us_since(READ_ONCE(conn->keepalive_sent)));
		return 0;
	}
	if (msg->flags & R2NET_F_REPLY)
		return r2net_rx_reply(conn, msg, payload);
	return r2net_rx_request(conn, msg, payload);
}

/* Read, check and handle one frame; non-zero ends the connection. */
static int r2net_rx_one(struct r2net_conn *conn)
{
	struct r2net_node *rn = r2net_conn_node(conn);
	const struct r2net_hdr *hdr = (const void *)conn->rx_buf;
	u8 *payload = conn->rx_buf + R2NET_HDR_LEN;
	struct r2net_msg msg;
	enum r2net_reject r;
	int got;

	got = r2net_recv(conn, conn->rx_buf, R2NET_HDR_LEN);
	if (got <= 0)
		return got ?: -ECONNRESET;	/* closed between frames */
	if (got < R2NET_HDR_LEN) {
		r = R2NET_REJECT_TRUNCATED;
		goto reject;
	}
	r = r2net_hdr_check(hdr, R2NET_HDR_LEN, &msg);
	if (r == R2NET_REJECT_TRUNCATED) {
		got = r2net_recv(conn, payload, msg.len);
		r = got == msg.len ? R2NET_ACCEPT : R2NET_REJECT_TRUNCATED;
	}
	if (r != R2NET_ACCEPT)
		goto reject;

	r2net_stat_inc(rn, R2NET_STAT_MSGS_RX);
	r2net_stat_add(rn, R2NET_STAT_BYTES_RX, R2NET_HDR_LEN + msg.len);
	r2net_heard(conn);
	return r2net_rx_dispatch(conn, &msg, payload);

reject:
	r2net_conn_reject(conn, R2NET_STAT_REJECTED_FIRST + r - 1,
			  r2net_reject_name(r));
	return -EPROTO;
}

/* Connections */

static void r2net_sock_setup(struct socket *sock)
{
	/*
	 * Swap pages travel on this socket: under memory pressure its
	 * buffers may come from the reserves, as for swap over NBD or NFS,
	 * or reclaim would wait on a socket that waits on reclaim.  When
	 * even the reserves are short TCP waits for memory and tries again
	 * (within sndtimeo), so a failed allocation is no news: no warning.
	 */
	sock->sk->sk_allocation = GFP_NOIO | __GFP_NOWARN;
	sk_set_memalloc(sock->sk);
	tcp_sock_set_nodelay(sock->sk);
	sock_set_sndtimeo(sock->sk,
			  DIV_ROUND_UP(r2net_info.idle_timeout_ms, MSEC_PER_SEC));
}

static int r2net_connect(struct r2net_conn *conn)
{
	struct r2net_node *rn = r2net_conn_node(conn);
	struct sockaddr_in local = {
		.sin_family	= AF_INET,
		.sin_addr.s_addr = r2net_local_addr,
	};
	struct sockaddr_in remote = {
		.sin_family	= AF_INET,
		.sin_addr.s_addr = conn->peer_addr,
		.sin_port	= htons(conn->peer_port),
	};
	int ret;

	/* From our configured address: the peer knows us by it. */
	ret = kernel_bind(conn->sock, (struct sockaddr *)&local, sizeof(local));
	if (ret) {
		pr_warn_ratelimited("node %u: cannot bind to %pI4 to connect (%d)\n",
				    conn->num, &r2net_local_addr, ret);
		return ret;
	}
	ret = kernel_connect(conn->sock, (struct sockaddr *)&remote,
			     sizeof(remote), 0);
	if (ret) {
		pr_debug("node %u: connect to %pI4:%u failed (%d)\n",
			 conn->num, &conn->peer_addr, conn->peer_port, ret);
		return ret;
	}
	spin_lock(&rn->lock);
	if (!rn->conn)
		rn->state = R2NET_NODE_HANDSHAKE;
	spin_unlock(&rn->lock);
	return r2net_queue_handshake(conn);
}

/* Called by the receive thread when its connection has ended. */
static void r2net_conn_teardown(struct r2net_conn *conn)
{
	struct r2net_node *rn = r2net_conn_node(conn);
	struct r2net_txbuf *tb, *tmp;
	struct r2net_pending *p;
	unsigned long id;
	bool was_up;

	r2net_conn_shutdown(conn);
	/*
	 * DEAD is set: after these barriers no sender adds to tx_queue or to
	 * pending without seeing it (see r2net_queue, r2net_send_request).
	 */
	spin_lock(&conn->tx_lock);
	spin_unlock(&conn->tx_lock);
	xa_lock(&conn->pending);
	xa_unlock(&conn->pending);

	cancel_delayed_work_sync(&conn->idle_work);
	cancel_delayed_work_sync(&conn->keepalive_work);
	cancel_delayed_work_sync(&conn->reap_work);
	cancel_work_sync(&conn->tx_work);

	spin_lock(&rn->lock);
	was_up = rn->conn == conn;
	if (was_up)
		rn->conn = NULL;
	if (conn->outgoing) {
		rn->connecting = false;
		rn->next_connect = jiffies +
			msecs_to_jiffies(r2net_info.reconnect_delay_ms);
	}
	if (!rn->conn)
		rn->state = R2NET_NODE_DOWN;
	spin_unlock(&rn->lock);
	if (conn->counted_pending)
		atomic_dec(&rn->pending);

	xa_for_each(&conn->pending, id, p)
		if (r2net_pending_take(conn, id, p))
			r2net_pending_complete(p, -ECONNRESET, 0, NULL, 0);
	list_for_each_entry_safe(tb, tmp, &conn->tx_queue, list) {
		list_del(&tb->list);
		r2net_txbuf_free(tb);
	}
	conn->tx_queued = 0;

	if (was_up) {
		r2net_stat_inc(rn, R2NET_STAT_DISCONNECTS);
		pr_info("node %u (%pI4) down\n", conn->num, &conn->peer_addr);
		r2net_event_queue(conn->num, false);
		r2net_conn_put(conn);		/* rn->conn's */
	}
	sock_release(conn->sock);
	conn->sock = NULL;

	mutex_lock(&r2net_conns_mutex);
	list_del(&conn->all);
	mutex_unlock(&r2net_conns_mutex);
	r2net_conn_put(conn);			/* the thread's */
	if (atomic_dec_and_test(&r2net_nr_conns))
		wake_up_all(&r2net_conns_wait);
}

static int r2net_rx_thread(void *arg)
{
	struct r2net_conn *conn = arg;

	/* Connect, or wait for the handshake, at most the idle timeout. */
	queue_delayed_work(r2net_wq, &conn->idle_work,
			   msecs_to_jiffies(r2net_info.idle_timeout_ms));
	if (!conn->outgoing || !r2net_connect(conn))
		while (!test_bit(R2NET_CONN_DEAD, &conn->flags) &&
		       !r2net_rx_one(conn))
			;
	r2net_conn_teardown(conn);
	module_put_and_kthread_exit(0);
}

/* A connection and its thread; sock becomes the connection's. */
static int r2net_conn_start(u8 num, struct socket *sock, bool outgoing,
			    __be32 addr, u16 port)
{
	struct r2net_conn *conn;
	struct task_struct *task;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		goto fail;
	conn->rx_buf = kmalloc(R2NET_MAX_FRAME, GFP_KERNEL);
	conn->reply_buf = kmalloc(R2NET_MAX_PAYLOAD, GFP_KERNEL);
	if (!conn->rx_buf || !conn->reply_buf)
		goto fail_free;
	kref_init(&conn->ref);		/* the thread's */
	conn->sock = sock;
	conn->num = num;
	conn->outgoing = outgoing;
	conn->counted_pending = !outgoing;
	conn->peer_addr = addr;
	conn->peer_port = port;
	spin_lock_init(&conn->tx_lock);
	INIT_LIST_HEAD(&conn->tx_queue);
	init_waitqueue_head(&conn->tx_wait);
	INIT_WORK(&conn->tx_work, r2net_tx_work_fn);
	xa_init_flags(&conn->pending, XA_FLAGS_ALLOC);
	INIT_DELAYED_WORK(&conn->idle_work, r2net_idle_work_fn);
	INIT_DELAYED_WORK(&conn->keepalive_work, r2net_keepalive_work_fn);
	INIT_DELAYED_WORK(&conn->reap_work, r2net_reap_work_fn);
	r2net_sock_setup(sock);

	if (!outgoing)
		atomic_inc(&r2net_nodes[num].pending);
	atomic_inc(&r2net_nr_conns);
	mutex_lock(&r2net_conns_mutex);
	list_add_tail(&conn->all, &r2net_conns);
	mutex_unlock(&r2net_conns_mutex);

	__module_get(THIS_MODULE);
	task = kthread_run(r2net_rx_thread, conn, "r2net/%u%c", num,
			   outgoing ? 'c' : 'a');
	if (IS_ERR(task)) {
		module_put(THIS_MODULE);
		pr_warn("node %u: cannot start a thread (%ld)\n", num,
			PTR_ERR(task));
		/* As if the thread had run and ended at once. */
		set_bit(R2NET_CONN_DEAD, &conn->flags);
		r2net_conn_teardown(conn);
		return PTR_ERR(task);
	}
	return 0;

fail_free:
	kfree(conn->reply_buf);
	kfree(conn->rx_buf);
	kfree(conn);
fail:
	sock_release(sock);
	return -ENOMEM;
}

static void r2net_accepted(struct socket *sock)
{
	struct sockaddr_in sin = { };
	struct r2nm_node *node;
	unsigned int i, pending = 0;
	u8 num;

	if (kernel_getpeername(sock, (struct sockaddr *)&sin) < 0) {
		sock_release(sock);
		return;
	}
	node = r2nm_get_node_by_ipv4(sin.sin_addr.s_addr);
	if (!node || node->nd_num == r2net_local) {
		if (node)
			r2nm_node_put(node);
		atomic64_inc(&r2net_lstats[R2NET_LSTAT_REFUSED_UNKNOWN_ADDRESS]);
		pr_warn_ratelimited("refused a connection from %pI4:%u: not another node of cluster %s\n",
				    &sin.sin_addr, ntohs(sin.sin_port),
				    r2net_info.name);
		sock_release(sock);
		return;
	}
	num = node->nd_num;
	r2nm_node_put(node);

	for (i = 0; i < R2NM_MAX_NODES; i++)
		pending += atomic_read(&r2net_nodes[i].pending);
	if (pending >= R2NET_MAX_PENDING ||
	    atomic_read(&r2net_nodes[num].pending) >= R2NET_MAX_PENDING_PER_NODE) {
		atomic64_inc(&r2net_lstats[R2NET_LSTAT_REFUSED_TOO_MANY_PENDING]);
		pr_warn_ratelimited("refused a connection from %pI4:%u: too many connections without a handshake\n",
				    &sin.sin_addr, ntohs(sin.sin_port));
		sock_release(sock);
		return;
	}
	atomic64_inc(&r2net_lstats[R2NET_LSTAT_ACCEPTED]);
	r2net_conn_start(num, sock, false, sin.sin_addr.s_addr,
			 ntohs(sin.sin_port));
}

static int r2net_accept_thread(void *arg)
{
	struct socket *sock;
	int ret;

	while (!kthread_should_stop()) {
		ret = kernel_accept(r2net_listen_sock, &sock, 0);
		if (ret) {
			if (!kthread_should_stop())
				schedule_timeout_interruptible(HZ / 10);
			continue;
		}
		r2net_accepted(sock);
	}
	return 0;
}

static void r2net_connect_node(u8 num, struct r2nm_node *node)
{
	struct r2net_node *rn = &r2net_nodes[num];
	struct socket *sock;
	bool start;
	int ret;

	spin_lock(&rn->lock);
	start = !rn->conn && !rn->connecting &&
		time_after_eq(jiffies, rn->next_connect);
	if (start) {
		rn->connecting = true;
		rn->state = R2NET_NODE_CONNECTING;
	}
	spin_unlock(&rn->lock);
	if (!start)
		return;

	ret = sock_create_kern(&init_net, PF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (!ret)
		ret = r2net_conn_start(num, sock, true, node->nd_ipv4_address,
				       node->nd_ipv4_port);
	if (ret) {
		spin_lock(&rn->lock);
		rn->connecting = false;
		rn->state = R2NET_NODE_DOWN;
		rn->next_connect = jiffies +
			msecs_to_jiffies(r2net_info.reconnect_delay_ms);
		spin_unlock(&rn->lock);
	}
}

static void r2net_scan_work_fn(struct work_struct *work)
{
	struct r2net_conn *conn;
	struct r2nm_node *node;
	unsigned int num;

	for (num = 0; num <= R2NET_MAX_NODE; num++) {
		if (num == r2net_local)
			continue;
		node = r2nm_get_node_by_num(num);
		r2net_debugfs_node(num, node);
		if (!node) {
			conn = r2net_conn_get(num);
			if (conn) {
				pr_info("node %u was removed; closing its connection\n",
					num);
				r2net_conn_shutdown(conn);
				r2net_conn_put(conn);
			}
			continue;
		}
		if (num > r2net_local)
			r2net_connect_node(num, node);
		r2nm_node_put(node);
	}
	if (READ_ONCE(r2net_running))
		queue_delayed_work(r2net_wq, &r2net_scan_work,
				   msecs_to_jiffies(min_t(u32, R2NET_SCAN_MAX_MS,
							  r2net_info.reconnect_delay_ms)));
}

/* Start and stop, from the node manager's local-node callbacks */

int r2net_start(u8 local)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct r2nm_node *node;
	struct socket *sock;
	unsigned int i;
	int ret;

	node = r2nm_get_node_by_num(local);
	if (!node)
		return -ENOENT;
	r2net_local_addr = node->nd_ipv4_address;
	r2net_local_port = node->nd_ipv4_port;
	r2nm_node_put(node);
	ret = r2nm_cluster_info(&r2net_info);
	if (ret)
		return ret;
	r2net_stats_reset();
	for (i = 0; i < R2NM_MAX_NODES; i++)
		r2net_nodes[i].next_connect = jiffies;

	ret = sock_create_kern(&init_net, PF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (ret) {
		pr_err("cannot create the listening socket (%d)\n", ret);
		return ret;
	}
	sock_set_reuseaddr(sock->sk);
	sin.sin_addr.s_addr = r2net_local_addr;
	sin.sin_port = htons(r2net_local_port);
	ret = kernel_bind(sock, (struct sockaddr *)&sin, sizeof(sin));
	if (ret) {
		pr_err("cannot listen on %pI4:%u (%d); is the address on an interface of this machine, and the port free?\n",
		       &r2net_local_addr, r2net_local_port, ret);
		goto out_release;
	}
	ret = kernel_listen(sock, R2NET_BACKLOG);
	if (ret) {
		pr_err("listen on %pI4:%u failed (%d)\n", &r2net_local_addr,
		       r2net_local_port, ret);
		goto out_release;
	}
	r2net_listen_sock = sock;
	r2net_local = local;
	WRITE_ONCE(r2net_running, true);
	r2net_accept_task = kthread_run(r2net_accept_thread, NULL,
					"r2net_accept");
	if (IS_ERR(r2net_accept_task)) {
		ret = PTR_ERR(r2net_accept_task);
		pr_err("cannot start the accept thread (%d)\n", ret);
		WRITE_ONCE(r2net_running, false);
		r2net_local = R2NM_INVALID_NODE_NUM;
		r2net_listen_sock = NULL;
		goto out_release;
	}
	queue_delayed_work(r2net_wq, &r2net_scan_work, 0);
	pr_info("node %u listening on %pI4:%u, cluster %s, idle %u ms, keepalive %u ms, reconnect %u ms\n",
		local, &r2net_local_addr, r2net_local_port, r2net_info.name,
		r2net_info.idle_timeout_ms, r2net_info.keepalive_delay_ms,
		r2net_info.reconnect_delay_ms);
	return 0;

out_release:
	sock_release(sock);
	return ret;
}

void r2net_stop(u8 local)
{
	struct r2net_conn *conn;

	WRITE_ONCE(r2net_running, false);
	cancel_delayed_work_sync(&r2net_scan_work);
	kernel_sock_shutdown(r2net_listen_sock, SHUT_RDWR);
	kthread_stop(r2net_accept_task);
	sock_release(r2net_listen_sock);
	r2net_listen_sock = NULL;

	mutex_lock(&r2net_conns_mutex);
	list_for_each_entry(conn, &r2net_conns, all)
		r2net_conn_shutdown(conn);
	mutex_unlock(&r2net_conns_mutex);
	wait_event(r2net_conns_wait, !atomic_read(&r2net_nr_conns));
	r2net_local = R2NM_INVALID_NODE_NUM;
	pr_info("node %u stopped; every connection is closed\n", local);
}

int r2net_tcp_init(void)
{
	r2net_wq = alloc_workqueue("r2net", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return r2net_wq ? 0 : -ENOMEM;
}

void r2net_tcp_exit(void)
{
	destroy_workqueue(r2net_wq);
}
