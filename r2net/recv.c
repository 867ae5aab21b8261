// SPDX-License-Identifier: GPL-2.0
/*
 * recv.c - r2net's receiving side: each connection's receive thread
 * reads a frame, checks it before use, and hands it to the handshake,
 * the keepalives, the request's handler or the request it answers.
 */
#include <linux/kthread.h>
#include <linux/module.h>

#include "conn.h"

u32 r2net_us_since(ktime_t t)
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

/*
 * The handshake is done: the connection is the node's, and up.  Its frame
 * keys are made before any frame that needs them can be queued or read.
 */
static int r2net_conn_up(struct r2net_conn *conn)
{
	struct r2net_node *rn = r2net_conn_node(conn);

	if (r2net_auth_up(conn))
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

/*
 * The peer's handshake: m1 on an accepted connection, answered with m2;
 * m2 on ours, answered with AUTH, and then the connection is up.
 */
static int r2net_rx_handshake(struct r2net_conn *conn, const void *payload,
			      u32 len)
{
	struct r2net_handshake hs;
	struct r2nm_node *node;
	enum r2net_reject r;
	const char *bad = NULL;

	if (conn->auth_wait) {
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_UNEXPECTED,
				  "it sent a second handshake");
		return -EPROTO;
	}
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
	else if (hs.security != r2net_info.security)
		bad = "its security differs from ours; configure the same on every node";
	if (bad) {
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_HANDSHAKE, bad);
		return -EPROTO;
	}
	if (!r2net_auth_check(conn, payload)) {
		bad = conn->outgoing ?
		      "its handshake's MAC is wrong: what answers there lacks the key" :
		      "its handshake's MAC is wrong: it does not hold the cluster key";
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_AUTH, bad);
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

	if (!conn->outgoing) {
		/* m2 goes out before anything else can; AUTH brings it up. */
		if (r2net_queue_handshake(conn))
			return -ENOMEM;
		conn->auth_wait = true;
		return 0;
	}
	/* AUTH goes out before any request the connection being up lets in. */
	if (r2net_queue_auth(conn))
		return -ENOMEM;
	return r2net_conn_up(conn);
}

/* The connector's AUTH: it holds the key and heard this handshake. */
static int r2net_rx_auth(struct r2net_conn *conn, const void *payload)
{
	if (conn->outgoing || !conn->auth_wait) {
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_UNEXPECTED,
				  "it sent AUTH out of turn");
		return -EPROTO;
	}
	if (!r2net_auth_final_ok(conn, payload)) {
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_AUTH,
				  "its AUTH is wrong: a handshake replayed, or one without the cluster key");
		return -EPROTO;
	}
	return r2net_conn_up(conn);
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

/*
 * A reply completes its request once the request's frame has let go of
 * the caller's memory: a genuine reply can only overtake the last moment
 * of the write, a forged or confused one finds the frame still queued
 * and drops it.
 */
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
	r2net_pending_unqueue_wait(conn, p);
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
	};
	struct r2net_frame f = {
		.type	= msg->type,
		.flags	= R2NET_F_REPLY,
		.key	= msg->key,
		.req_id	= msg->req_id,
		.own_refs = true,
	};
	struct r2net_txbuf *tb;

	f.sys_status = r2net_handler_run(&req, &f.status);
	if (f.sys_status == R2NET_SYS_NO_HANDLER) {
		r2net_stat_inc(rn, R2NET_STAT_NO_HANDLER);
		pr_warn_ratelimited("node %u: no handler for type %#x key %#x\n",
				    conn->num, msg->type, msg->key);
	} else if (!r2net_msg_len_ok(msg->type, true, req.reply_len)) {
		pr_warn_once("handler for type %#x key %#x returned %u reply bytes; sending none\n",
			     msg->type, msg->key, req.reply_len);
		r2net_reply_clear(&req);
	}
	if (f.sys_status)
		r2net_reply_clear(&req);

	f.ref = req.reply;
	f.nref = req.reply_nr;
	tb = r2net_txbuf_alloc(&f, GFP_NOIO);
	if (!tb) {
		/* The sender must hear something: a bare reply is small. */
		r2net_reply_clear(&req);
		f.sys_status = R2NET_SYS_NOMEM;
		f.status = 0;
		f.nref = 0;
		tb = r2net_txbuf_alloc(&f, GFP_NOIO | __GFP_NOFAIL);
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
		if (msg->type == R2NET_MSG_AUTH)
			return r2net_rx_auth(conn, payload);
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_UNEXPECTED,
				  "it sent a message before its handshake");
		return -EPROTO;
	}
	switch (msg->type) {
	case R2NET_MSG_HANDSHAKE:
	case R2NET_MSG_AUTH:
		r2net_conn_reject(conn, R2NET_STAT_REJECTED_UNEXPECTED,
				  "it sent a second handshake");
		return -EPROTO;
	case R2NET_MSG_KEEPALIVE_REQ:
		r2net_stat_inc(rn, R2NET_STAT_KEEPALIVES_RX);
		/*
		 * An answer with no memory for it is left out: the peer asks
		 * again, and only its idle timeout of silence ends the link.
		 */
		if (r2net_queue_system(conn, R2NET_MSG_KEEPALIVE_RESP,
				       msg->req_id, NULL, 0) == -ENOMEM)
			r2net_stat_inc(rn, R2NET_STAT_SEND_ERRORS);
		return 0;
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
int r2net_rx_one(struct r2net_conn *conn)
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
	if (r2net_msg_tagged(msg.type) &&
	    r2net_info.security != R2NET_SEC_NONE) {
		u8 tag[R2NET_TAG_LEN];

		if (!test_bit(R2NET_CONN_UP, &conn->flags)) {
			r2net_conn_reject(conn, R2NET_STAT_REJECTED_UNEXPECTED,
					  "it sent a message before its handshake");
			return -EPROTO;
		}
		if (r2net_recv(conn, tag, sizeof(tag)) != sizeof(tag)) {
			r = R2NET_REJECT_TRUNCATED;
			goto reject;
		}
		if (!r2net_auth_tag_ok(conn, conn->rx_buf,
				       R2NET_HDR_LEN + msg.len, tag)) {
			r2net_conn_reject(conn, R2NET_STAT_REJECTED_AUTH,
					  "a frame's tag is wrong: it was altered, injected or replayed");
			return -EPROTO;
		}
		if (r2net_info.security == R2NET_SEC_ENCRYPT)
			r2net_auth_decrypt(conn, payload, msg.len);
		r2net_stat_add(rn, R2NET_STAT_BYTES_RX, sizeof(tag));
	}

	r2net_stat_inc(rn, R2NET_STAT_MSGS_RX);
	r2net_stat_add(rn, R2NET_STAT_BYTES_RX, R2NET_HDR_LEN + msg.len);
	r2net_heard(conn);
	return r2net_rx_dispatch(conn, &msg, payload);

reject:
	/* A frame cut short by this node's own shutdown is not the peer's. */
	if (r == R2NET_REJECT_TRUNCATED &&
	    test_bit(R2NET_CONN_DEAD, &conn->flags))
		return -ECONNRESET;
	r2net_conn_reject(conn, R2NET_STAT_REJECTED_FIRST + r - 1,
			  r2net_reject_name(r));
	return -EPROTO;
}

