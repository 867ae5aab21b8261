// SPDX-License-Identifier: GPL-2.0
/*
 * send.c - r2net's sending side: frames, the tx queue and its work item,
 * requests and their completion.
 *
 * Frames are queued and written by a work item, so the receive thread
 * never waits on the socket's send side and two nodes replying to each
 * other cannot deadlock.  Requests awaiting replies live in an xarray by
 * id; whoever erases one from it (the reply, the reaper, the teardown or
 * the sender taking it back) completes it, exactly once, and only once its
 * frame has been written or dropped: a frame still queued reads the
 * caller's page, which the caller reuses as soon as its request completes.
 */
#include <linux/highmem.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/srcu.h>

#include "conn.h"

enum {
	R2NET_TB_NEW,		/* not queued yet: its sender holds it */
	R2NET_TB_QUEUED,	/* on tx_queue */
	R2NET_TB_SENDING,	/* off tx_queue, being written */
};

/* The length of a frame's payload: the head, the pieces and the page. */
static size_t r2net_frame_len(const struct r2net_frame *f)
{
	size_t len = 0, i;

	for (i = 0; i < f->nvec; i++)
		len += f->vec[i].iov_len;
	for (i = 0; i < f->nref; i++)
		len += f->ref[i].iov_len;
	return len + (f->page ? PAGE_SIZE : 0);
}

/*
 * A frame of the header, the vec's bytes, the ref pieces and, if f->page
 * is set, the page's PAGE_SIZE bytes after them.  The pieces and the page
 * are not copied: they are referenced until the frame is written or
 * dropped (pieces the frame owns are freed then).  At most
 * R2NET_REFS_MAX pieces.
 */
struct r2net_txbuf *r2net_txbuf_alloc(const struct r2net_frame *f, gfp_t gfp)
{
	struct r2net_txbuf *tb;
	struct r2net_hdr *hdr;
	size_t len = 0, i;
	u8 *p;

	if (WARN_ON_ONCE(f->nref > R2NET_REFS_MAX))
		return NULL;
	for (i = 0; i < f->nvec; i++)
		len += f->vec[i].iov_len;
	tb = kmalloc(struct_size(tb, data, R2NET_HDR_LEN + len), gfp);
	if (!tb)
		return NULL;
	tb->head_len = R2NET_HDR_LEN + len;
	tb->len = R2NET_HDR_LEN + r2net_frame_len(f);
	tb->nref = f->nref;
	tb->own_refs = f->own_refs;
	for (i = 0; i < f->nref; i++)
		tb->ref[i] = f->ref[i];
	tb->page = f->page;
	if (tb->page)
		get_page(tb->page);
	tb->p = NULL;
	tb->state = R2NET_TB_NEW;
	hdr = (struct r2net_hdr *)tb->data;
	r2net_hdr_init(hdr, f->type, f->flags, tb->len - R2NET_HDR_LEN,
		       f->req_id, f->status);
	r2net_hdr_set_key(hdr, f->key, f->sys_status);
	p = tb->data + R2NET_HDR_LEN;
	for (i = 0; i < f->nvec; i++) {
		memcpy(p, f->vec[i].iov_base, f->vec[i].iov_len);
		p += f->vec[i].iov_len;
	}
	return tb;
}

void r2net_txbuf_free(struct r2net_txbuf *tb)
{
	unsigned int i;

	if (tb->own_refs)
		for (i = 0; i < tb->nref; i++)
			free_page((unsigned long)tb->ref[i].iov_base);
	if (tb->page)
		put_page(tb->page);
	kfree(tb);
}

/* A frame that will not be written: its request's entry lets go of it. */
static void r2net_txbuf_drop(struct r2net_conn *conn, struct r2net_txbuf *tb)
{
	if (tb->p) {
		spin_lock(&conn->tx_lock);
		tb->p->tb = NULL;
		spin_unlock(&conn->tx_lock);
		wake_up_all(&conn->tx_wait);
	}
	r2net_txbuf_free(tb);
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
 * memory, and for at most the idle timeout: then that peer has read
 * nothing for that long, and its connection is closed.  (The tx work
 * closes it as well when a frame waits that long to go into the socket.)
 * Consumes tb.
 */
int r2net_queue(struct r2net_conn *conn, struct r2net_txbuf *tb, bool wait,
		unsigned long deadline)
{
	size_t limit = wait ? R2NET_TX_QUEUE_MAX : R2NET_TX_QUEUE_HARD;
	long left;

	if (READ_ONCE(conn->tx_queued) >= limit) {
		if (wait) {
			left = r2net_wait_room(conn, limit, deadline);
			if (left <= 0) {
				r2net_txbuf_drop(conn, tb);
				return left ? -EINTR : -ETIMEDOUT;
			}
		} else if (!wait_event_timeout(conn->tx_wait,
					       READ_ONCE(conn->tx_queued) < limit ||
					       test_bit(R2NET_CONN_DEAD, &conn->flags),
					       msecs_to_jiffies(r2net_info.idle_timeout_ms))) {
			pr_warn_ratelimited("node %u (%pI4): it read none of %zu bytes of replies for %u ms; closing the connection\n",
					    conn->num, &conn->peer_addr,
					    READ_ONCE(conn->tx_queued),
					    r2net_info.idle_timeout_ms);
			r2net_stat_inc(r2net_conn_node(conn),
				       R2NET_STAT_SEND_ERRORS);
			r2net_conn_shutdown(conn);
			r2net_txbuf_drop(conn, tb);
			return -ETIMEDOUT;
		}
	}

	spin_lock(&conn->tx_lock);
	if (test_bit(R2NET_CONN_DEAD, &conn->flags)) {
		spin_unlock(&conn->tx_lock);
		r2net_txbuf_drop(conn, tb);
		return -ECONNRESET;
	}
	tb->state = R2NET_TB_QUEUED;
	list_add_tail(&tb->list, &conn->tx_queue);
	conn->tx_queued += tb->len;
	queue_work(conn->tx_wq, &conn->tx_work);
	spin_unlock(&conn->tx_lock);
	return 0;
}

/*
 * Write the whole frame, and its tag after it unless it is part of the
 * handshake.  kernel_sendmsg() copies: once it returns, the pieces and the
 * page are free to change.  Returns the bytes written, -ETIMEDOUT when
 * the socket did not take them all within its sndtimeo (the idle timeout:
 * the peer reads nothing), or another error.
 */
static int r2net_send_tb(struct r2net_conn *conn, struct r2net_txbuf *tb,
			 bool more)
{
	struct msghdr msg = {
		.msg_flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0),
	};
	const struct r2net_hdr *hdr = (const void *)tb->data;
	struct kvec vec[R2NET_REFS_MAX + 4];
	u8 tag[R2NET_TAG_LEN];
	size_t len = tb->len;
	unsigned int n = 0, i;
	void *addr = NULL;
	int ret;

	vec[n].iov_base = tb->data;
	vec[n++].iov_len = tb->head_len;
	for (i = 0; i < tb->nref; i++)
		vec[n++] = tb->ref[i];
	if (tb->page) {
		addr = kmap_local_page(tb->page);
		vec[n].iov_base = addr;
		vec[n++].iov_len = PAGE_SIZE;
	}
	if (r2net_msg_tagged(le16_to_cpu(hdr->type)) &&
	    r2net_info.security != R2NET_SEC_NONE) {
		if (r2net_info.security == R2NET_SEC_ENCRYPT) {
			/* the header alone in vec[0], then the payload */
			vec[0].iov_len = R2NET_HDR_LEN;
			vec[0].iov_base = tb->data;
			if (tb->head_len > R2NET_HDR_LEN) {
				memmove(&vec[2], &vec[1],
					(n - 1) * sizeof(vec[0]));
				vec[1].iov_base = tb->data + R2NET_HDR_LEN;
				vec[1].iov_len = tb->head_len - R2NET_HDR_LEN;
				n++;
			}
			n = r2net_auth_encrypt(conn, vec, n);
		}
		r2net_auth_tag(conn, vec, n, tag);
		vec[n].iov_base = tag;
		vec[n++].iov_len = sizeof(tag);
		len += sizeof(tag);
	}
	ret = kernel_sendmsg(conn->sock, &msg, vec, n, len);
	if (addr)
		kunmap_local(addr);
	if (ret == len)
		return ret;
	/* sndtimeo passed with the frame not all in: the peer reads nothing */
	return ret >= 0 || ret == -EAGAIN ? -ETIMEDOUT : ret;
}

void r2net_tx_work_fn(struct work_struct *work)
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
		if (tb) {
			list_del(&tb->list);
			tb->state = R2NET_TB_SENDING;
		}
		more = !list_empty(&conn->tx_queue);
		spin_unlock(&conn->tx_lock);
		if (!tb)
			break;

		if (!test_bit(R2NET_CONN_DEAD, &conn->flags)) {
			ret = r2net_send_tb(conn, tb, more);
			if (ret < 0) {
				r2net_stat_inc(rn, R2NET_STAT_SEND_ERRORS);
				if (ret == -ETIMEDOUT)
					pr_warn_ratelimited("node %u (%pI4): it read none of our frames for %u ms (send timeout); closing the connection\n",
							    conn->num,
							    &conn->peer_addr,
							    r2net_info.idle_timeout_ms);
				else
					pr_warn_ratelimited("node %u (%pI4): send failed (%d); closing the connection\n",
							    conn->num,
							    &conn->peer_addr, ret);
				r2net_conn_shutdown(conn);
			} else {
				r2net_stat_inc(rn, R2NET_STAT_MSGS_TX);
				r2net_stat_add(rn, R2NET_STAT_BYTES_TX, ret);
			}
		}
		spin_lock(&conn->tx_lock);
		conn->tx_queued -= tb->len;
		if (tb->p)
			tb->p->tb = NULL;
		spin_unlock(&conn->tx_lock);
		wake_up_all(&conn->tx_wait);
		r2net_txbuf_free(tb);
	}
	memalloc_noreclaim_restore(noreclaim);
}

/*
 * Drop every queued frame, once the tx work can no longer run (teardown):
 * their requests' entries let go of them.
 */
void r2net_tx_drop(struct r2net_conn *conn)
{
	struct r2net_txbuf *tb, *tmp;
	LIST_HEAD(drop);

	spin_lock(&conn->tx_lock);
	list_splice_init(&conn->tx_queue, &drop);
	list_for_each_entry(tb, &drop, list)
		if (tb->p)
			tb->p->tb = NULL;
	conn->tx_queued = 0;
	spin_unlock(&conn->tx_lock);
	wake_up_all(&conn->tx_wait);
	list_for_each_entry_safe(tb, tmp, &drop, list) {
		list_del(&tb->list);
		r2net_txbuf_free(tb);
	}
}

/* Queue a system message (handshake or keepalive) on the connection. */
int r2net_queue_system(struct r2net_conn *conn, u16 type, u64 id,
		       const void *payload, size_t len)
{
	struct kvec vec = { .iov_base = (void *)payload, .iov_len = len };
	struct r2net_frame f = {
		.type	= type,
		.req_id	= id,
		.vec	= &vec,
		.nvec	= len ? 1 : 0,
	};
	struct r2net_txbuf *tb;

	tb = r2net_txbuf_alloc(&f, GFP_NOIO);
	if (!tb)
		return -ENOMEM;
	if (type == R2NET_MSG_KEEPALIVE_REQ || type == R2NET_MSG_KEEPALIVE_RESP)
		r2net_stat_inc(r2net_conn_node(conn), R2NET_STAT_KEEPALIVES_TX);
	return r2net_queue(conn, tb, false, 0);
}

int r2net_queue_handshake(struct r2net_conn *conn)
{
	struct r2net_handshake hs = {
		.protocol_version	= R2NET_PROTOCOL_VERSION,
		.sender_node		= r2net_local,
		.receiver_node		= conn->num,
		.idle_timeout_ms	= r2net_info.idle_timeout_ms,
		.keepalive_delay_ms	= r2net_info.keepalive_delay_ms,
		.reconnect_delay_ms	= r2net_info.reconnect_delay_ms,
		.security		= r2net_info.security,
	};
	struct r2net_handshake_le w;

	strscpy(hs.cluster_name, r2net_info.name, sizeof(hs.cluster_name));
	r2net_handshake_encode(&w, &hs);
	r2net_auth_sign(conn, &w);
	return r2net_queue_system(conn, R2NET_MSG_HANDSHAKE, 0, &w, sizeof(w));
}

/* The connector's last handshake frame: it proves it holds the key. */
int r2net_queue_auth(struct r2net_conn *conn)
{
	u8 mac[R2NET_MAC_LEN];

	r2net_auth_final(conn, mac);
	return r2net_queue_system(conn, R2NET_MSG_AUTH, 0, mac, sizeof(mac));
}

/* Requests and their completion */

/* Take p back from the pending table; false if another path owns it. */
bool r2net_pending_take(struct r2net_conn *conn, u32 id,
			struct r2net_pending *p)
{
	if (xa_cmpxchg(&conn->pending, id, p, NULL, 0) != p)
		return false;
	atomic_dec(&r2net_conn_node(conn)->in_flight);
	return true;
}

/*
 * Let p's frame go, so that p can be completed: 0 when it was written
 * already, 1 when it was still queued and is dropped now (never sent),
 * -EBUSY while it is being written or its sender has yet to queue it.
 */
static int __r2net_pending_unqueue(struct r2net_conn *conn,
				   struct r2net_pending *p)
{
	struct r2net_txbuf *tb = p->tb;

	lockdep_assert_held(&conn->tx_lock);
	if (!tb)
		return 0;
	if (tb->state != R2NET_TB_QUEUED)
		return -EBUSY;
	list_del(&tb->list);
	conn->tx_queued -= tb->len;
	p->tb = NULL;
	tb->p = NULL;
	r2net_txbuf_free(tb);
	return 1;
}

int r2net_pending_unqueue(struct r2net_conn *conn, struct r2net_pending *p)
{
	int ret;

	spin_lock(&conn->tx_lock);
	ret = __r2net_pending_unqueue(conn, p);
	spin_unlock(&conn->tx_lock);
	if (ret > 0)
		wake_up_all(&conn->tx_wait);
	return ret;
}

/*
 * The same, waiting while the frame is being written: that takes at most
 * the socket's send timeout, and the teardown first shuts the socket.
 */
int r2net_pending_unqueue_wait(struct r2net_conn *conn,
			       struct r2net_pending *p)
{
	int ret;

	wait_event(conn->tx_wait,
		   (ret = r2net_pending_unqueue(conn, p)) >= 0);
	return ret;
}

/* Every done callback runs inside it: r2net_sync_callbacks(). */
DEFINE_STATIC_SRCU(r2net_done_srcu);

/**
 * r2net_sync_callbacks() - wait until no done callback is running
 *
 * A module counts its async requests down in their callbacks, and its exit
 * waits for the count to reach zero; the callback that woke it may not
 * have returned yet, and its code goes with the module.  Such a module
 * calls this after that wait, before it returns from its exit.
 *
 * Context: process context; sleeps.
 */
void r2net_sync_callbacks(void)
{
	synchronize_srcu(&r2net_done_srcu);
}
EXPORT_SYMBOL_GPL(r2net_sync_callbacks);

/* Complete a request whose pending entry and frame the caller has taken. */
void r2net_pending_complete(struct r2net_pending *p, int err, s32 status,
			    const void *data, u32 len)
{
	struct r2net_reply *reply = p->reply;
	int idx;

	if (p->done) {
		idx = srcu_read_lock(&r2net_done_srcu);
		p->done(p->arg, err, status, data, len);
		srcu_read_unlock(&r2net_done_srcu, idx);
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
 * Queue a request; p is filled in and entered in the pending table, its
 * frame linked to it before anyone else can see it.  Returns an error when
 * p is not pending (nobody will complete it), or 0 with *connp referenced
 * and *idp its id when it is: then it is completed by exactly one of the
 * reply, the reaper, the teardown or the caller taking it back with
 * r2net_pending_take().
 */
static int r2net_send_request(u8 num, const struct r2net_frame *f,
			      struct r2net_pending *p,
			      unsigned int timeout_ms,
			      struct r2net_conn **connp, u32 *idp)
{
	struct r2net_conn *conn;
	struct r2net_txbuf *tb;
	size_t len = 0, i;
	u32 id;
	int ret;

	if (!r2net_msg_tmem_op(f->type) && !r2net_msg_type_user(f->type))
		return -EINVAL;
	if (f->nref > R2NET_REFS_MAX)
		return -EMSGSIZE;
	/* Each piece is at most the largest payload: no sum overflows. */
	for (i = 0; i < f->nvec; i++)
		if (f->vec[i].iov_len > R2NET_MAX_PAYLOAD)
			return -EMSGSIZE;
	for (i = 0; i < f->nref; i++)
		if (f->ref[i].iov_len > R2NET_MAX_PAYLOAD)
			return -EMSGSIZE;
	len = r2net_frame_len(f);
	if (len > R2NET_MAX_PAYLOAD || !r2net_msg_len_ok(f->type, false, len))
		return -EMSGSIZE;
	if (num > R2NET_MAX_NODE)
		return -ENOTCONN;
	conn = r2net_conn_get(num);
	if (!conn)
		return -ENOTCONN;

	p->type = f->type;
	p->key = f->key;
	p->sent = ktime_get();
	p->deadline = jiffies + msecs_to_jiffies(timeout_ms ?:
						 r2net_info.idle_timeout_ms);

	tb = r2net_txbuf_alloc(f, GFP_NOIO | __GFP_NOWARN);
	if (!tb) {
		ret = -ENOMEM;
		goto out_put;
	}
	tb->p = p;
	p->tb = tb;
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
		r2net_txbuf_drop(conn, tb);
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

static int r2net_do_sync(u8 node, const struct r2net_frame *f,
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
	ret = r2net_send_request(node, f, &p, timeout_ms, &conn, &id);
	if (ret)
		return ret;
	left = max_t(long, p.deadline - jiffies, 1);
	left = wait_for_completion_killable_timeout(&p.comp, left);
	if (left <= 0) {
		if (r2net_pending_take(conn, id, &p)) {
			/* p is on this stack: its frame must let go first. */
			r2net_pending_unqueue_wait(conn, &p);
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
	struct r2net_frame f = {
		.type = type, .key = key, .vec = vec, .nvec = nvec,
	};

	return r2net_do_sync(node, &f, reply, timeout_ms);
}
EXPORT_SYMBOL_GPL(r2net_send_sync);

int r2net_send_page_sync(u8 node, u16 type, u32 key, const void *head,
			 size_t head_len, struct page *page,
			 struct r2net_reply *reply, unsigned int timeout_ms)
{
	struct kvec vec = { .iov_base = (void *)head, .iov_len = head_len };
	struct r2net_frame f = {
		.type = type, .key = key, .vec = &vec, .nvec = 1, .page = page,
	};

	return r2net_do_sync(node, &f, reply, timeout_ms);
}
EXPORT_SYMBOL_GPL(r2net_send_page_sync);

int r2net_send_refs_sync(u8 node, u16 type, u32 key, const struct kvec *vec,
			 size_t nvec, const struct kvec *ref, size_t nref,
			 struct r2net_reply *reply, unsigned int timeout_ms)
{
	struct r2net_frame f = {
		.type = type, .key = key, .vec = vec, .nvec = nvec,
		.ref = ref, .nref = nref,
	};

	return r2net_do_sync(node, &f, reply, timeout_ms);
}
EXPORT_SYMBOL_GPL(r2net_send_refs_sync);

static int r2net_do_async(u8 node, const struct r2net_frame *f,
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
	ret = r2net_send_request(node, f, p, timeout_ms, &conn, &id);
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
	struct r2net_frame f = {
		.type = type, .key = key, .vec = vec, .nvec = nvec,
	};

	return r2net_do_async(node, &f, timeout_ms, done, arg);
}
EXPORT_SYMBOL_GPL(r2net_send_async);

int r2net_send_page_async(u8 node, u16 type, u32 key, const void *head,
			  size_t head_len, struct page *page,
			  unsigned int timeout_ms, r2net_done_fn done,
			  void *arg)
{
	struct kvec vec = { .iov_base = (void *)head, .iov_len = head_len };
	struct r2net_frame f = {
		.type = type, .key = key, .vec = &vec, .nvec = 1, .page = page,
	};

	return r2net_do_async(node, &f, timeout_ms, done, arg);
}
EXPORT_SYMBOL_GPL(r2net_send_page_async);

int r2net_send_refs_async(u8 node, u16 type, u32 key,
			  const struct kvec *vec, size_t nvec,
			  const struct kvec *ref, size_t nref,
			  unsigned int timeout_ms, r2net_done_fn done,
			  void *arg)
{
	struct r2net_frame f = {
		.type = type, .key = key, .vec = vec, .nvec = nvec,
		.ref = ref, .nref = nref,
	};

	return r2net_do_async(node, &f, timeout_ms, done, arg);
}
EXPORT_SYMBOL_GPL(r2net_send_refs_async);

/*
 * Complete every request past its deadline whose frame has been written or
 * can be dropped; one being written waits for the next pass.  Runs while
 * the node is up.
 */
void r2net_reap_work_fn(struct work_struct *work)
{
	struct r2net_conn *conn = container_of(to_delayed_work(work),
					       struct r2net_conn, reap_work);
	struct r2net_node *rn = r2net_conn_node(conn);
	struct r2net_pending *p, *tmp;
	unsigned long id;
	bool dropped = false;
	LIST_HEAD(expired);
	int ret;

	xa_lock(&conn->pending);
	xa_for_each(&conn->pending, id, p) {
		if (time_before(jiffies, p->deadline))
			continue;
		spin_lock(&conn->tx_lock);
		ret = __r2net_pending_unqueue(conn, p);
		spin_unlock(&conn->tx_lock);
		if (ret < 0)
			continue;
		dropped |= ret;
		__xa_erase(&conn->pending, id);
		atomic_dec(&rn->in_flight);
		list_add_tail(&p->reap, &expired);
	}
	xa_unlock(&conn->pending);
	if (dropped)
		wake_up_all(&conn->tx_wait);

	list_for_each_entry_safe(p, tmp, &expired, reap) {
		r2net_stat_inc(rn, R2NET_STAT_TIMEOUTS);
		r2net_pending_complete(p, -ETIMEDOUT, 0, NULL, 0);
	}
	queue_delayed_work(r2net_wq, &conn->reap_work,
			   msecs_to_jiffies(R2NET_REAP_MS));
}
