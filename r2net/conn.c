// SPDX-License-Identifier: GPL-2.0
/*
 * conn.c - r2net's connections between nodes.
 *
 * Once a node is local, r2net listens on its address and port, and keeps
 * one TCP connection to every other configured node: the node with the
 * lower number connects, the higher one accepts.  Both ends send a
 * handshake first (the acceptor only after it has checked the
 * connector's); only then is the connection the node's, and requests flow.
 *
 * Each connection has a receive thread, which connects (outgoing), reads
 * and handles frames (recv.c) and tears the connection down when it ends;
 * send.c queues and writes its frames.
 *
 * Timers per connection: idle (nothing received for idle_timeout_ms, or
 * no handshake in that time: close), keepalive (nothing received for
 * keepalive_delay_ms: ask the peer for a sign of life) and reap (complete
 * requests past their deadline).  A scan every reconnect_delay_ms (at most
 * a second) starts connections to nodes that have none.
 */
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "conn.h"

#define R2NET_BACKLOG			64
#define R2NET_MAX_PENDING_PER_NODE	8	/* not yet handshaken */
#define R2NET_MAX_PENDING		32
#define R2NET_SCAN_MAX_MS		1000

/* Fixed while a node is local: set by r2net_start() before anything runs. */
struct r2nm_cluster_info r2net_info;
int r2net_local = R2NM_INVALID_NODE_NUM;
struct workqueue_struct *r2net_wq;
static __be32 r2net_local_addr;
static u16 r2net_local_port;
static bool r2net_running;

static struct socket *r2net_listen_sock;
static struct task_struct *r2net_accept_task;
static LIST_HEAD(r2net_conns);			/* r2net_conns_mutex */
static DEFINE_MUTEX(r2net_conns_mutex);
static atomic_t r2net_nr_conns = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(r2net_conns_wait);

static void r2net_scan_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(r2net_scan_work, r2net_scan_work_fn);

static void r2net_conn_release(struct kref *ref)
{
	struct r2net_conn *conn = container_of(ref, struct r2net_conn, ref);

	xa_destroy(&conn->pending);
	r2net_auth_free(conn);
	kvfree(conn->rx_buf);
	kfree(conn);
}

void r2net_conn_put(struct r2net_conn *conn)
{
	kref_put(&conn->ref, r2net_conn_release);
}

/* The node's handshaken connection, with a reference, or NULL. */
struct r2net_conn *r2net_conn_get(u8 num)
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

unsigned int r2net_idle_timeout_ms(void)
{
	return READ_ONCE(r2net_info.idle_timeout_ms);
}
EXPORT_SYMBOL_GPL(r2net_idle_timeout_ms);

/*
 * Stop the connection: senders fail from now on and the receive thread
 * wakes up to tear it down.  Any context that may sleep.  The socket is
 * shut under sock_mutex, which the teardown takes to release it: a caller
 * that holds only a reference on conn (r2net_stop(), a node's removal)
 * may come as the receive thread lets go of the socket.
 */
void r2net_conn_shutdown(struct r2net_conn *conn)
{
	if (test_and_set_bit(R2NET_CONN_DEAD, &conn->flags))
		return;
	mutex_lock(&conn->sock_mutex);
	if (conn->sock)
		kernel_sock_shutdown(conn->sock, SHUT_RDWR);
	mutex_unlock(&conn->sock_mutex);
	wake_up_all(&conn->tx_wait);
}

void r2net_conn_reject(struct r2net_conn *conn, enum r2net_stat stat,
		       const char *why)
{
	r2net_stat_inc(r2net_conn_node(conn), stat);
	pr_warn_ratelimited("node %u (%pI4): %s; closing the connection\n",
			    conn->num, &conn->peer_addr, why);
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
	 * node's receive thread is what is slow (a starved vCPU): wait one
	 * more idle timeout.  A receive thread that finishes no frame in
	 * that one either is wedged, and the link goes as a silent one.
	 */
	if (!skb_queue_empty_lockless(&conn->sock->sk->sk_receive_queue) &&
	    !READ_ONCE(conn->idle_waited)) {
		WRITE_ONCE(conn->idle_waited, true);
		pr_warn("node %u (%pI4): bytes wait unread after %u ms; waiting as long again for this node's receive thread\n",
			conn->num, &conn->peer_addr,
			r2net_info.idle_timeout_ms);
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
void r2net_heard(struct r2net_conn *conn)
{
	if (READ_ONCE(conn->idle_waited))
		WRITE_ONCE(conn->idle_waited, false);
	mod_delayed_work(r2net_wq, &conn->idle_work,
			 msecs_to_jiffies(r2net_info.idle_timeout_ms));
	if (test_bit(R2NET_CONN_UP, &conn->flags))
		mod_delayed_work(r2net_wq, &conn->keepalive_work,
				 msecs_to_jiffies(r2net_info.keepalive_delay_ms));
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
	destroy_workqueue(conn->tx_wq);
	conn->tx_wq = NULL;

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

	/*
	 * No frame is written any more: drop the queued ones, then complete
	 * each request once its frame has let go (a sender that has yet to
	 * queue its frame sees DEAD and drops it).
	 */
	r2net_tx_drop(conn);
	xa_for_each(&conn->pending, id, p) {
		if (!r2net_pending_take(conn, id, p))
			continue;
		r2net_pending_unqueue_wait(conn, p);
		r2net_pending_complete(p, -ECONNRESET, 0, NULL, 0);
	}

	if (was_up) {
		r2net_stat_inc(rn, R2NET_STAT_DISCONNECTS);
		pr_info("node %u (%pI4) down\n", conn->num, &conn->peer_addr);
		r2net_event_queue(conn->num, false);
		r2net_conn_put(conn);		/* rn->conn's */
	}
	mutex_lock(&conn->sock_mutex);
	sock_release(conn->sock);
	conn->sock = NULL;
	mutex_unlock(&conn->sock_mutex);

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
	conn->rx_buf = kvmalloc(R2NET_MAX_FRAME, GFP_KERNEL);
	if (!conn->rx_buf)
		goto fail_free;
	conn->tx_wq = alloc_ordered_workqueue("r2net_tx/%u%c", WQ_MEM_RECLAIM,
					      num, outgoing ? 'c' : 'a');
	if (!conn->tx_wq)
		goto fail_free;
	kref_init(&conn->ref);		/* the thread's */
	mutex_init(&conn->sock_mutex);
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
	kvfree(conn->rx_buf);
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
	pr_info("node %u listening on %pI4:%u, cluster %s, idle %u ms, keepalive %u ms, reconnect %u ms, frames: %s\n",
		local, &r2net_local_addr, r2net_local_port, r2net_info.name,
		r2net_info.idle_timeout_ms, r2net_info.keepalive_delay_ms,
		r2net_info.reconnect_delay_ms,
		r2net_info.security == R2NET_SEC_NONE ? "no tags" :
		r2net_info.security == R2NET_SEC_ENCRYPT ? "encrypted, tagged" :
		"tagged");
	return 0;

out_release:
	sock_release(sock);
	memzero_explicit(r2net_info.key, sizeof(r2net_info.key));
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
	memzero_explicit(r2net_info.key, sizeof(r2net_info.key));
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

