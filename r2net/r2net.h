/* SPDX-License-Identifier: GPL-2.0 */
/*
 * r2net.h - r2net's interface for other modules: message handlers,
 * synchronous and asynchronous sends, and node up/down events.
 *
 * r2net keeps one TCP connection to every other configured node (the node
 * with the lower number connects).  A message goes to a node by number and
 * names its handler there by (type, key); the handler's return value comes
 * back as the reply's status, with an optional reply payload.
 */
#ifndef RAMSTER_R2NET_H
#define RAMSTER_R2NET_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/uio.h>

struct page;

#include "r2net_wire.h"

/* The most pages a reply is built in: a batch's headers and its pages. */
#define R2NET_REPLY_PAGES	(R2NET_BATCH_MAX + 2)

/*
 * A request as its handler sees it.  The handler builds its reply with
 * r2net_reply_add() and r2net_reply_reserve(), in pages that the reply's
 * frame then sends as they are: no copy, no large allocation.
 */
struct r2net_request {
	u8		node;		/* the sender's number */
	u16		type;
	u32		key;
	const void	*data;		/* len bytes, valid during the call */
	u32		len;
	/* r2net's: the reply so far */
	struct kvec	reply[R2NET_REPLY_PAGES];
	u32		reply_nr;	/* pages in reply[] */
	u32		reply_len;	/* bytes in all */
};

/*
 * r2net_reply_reserve() - room for @len (at most PAGE_SIZE) contiguous
 * reply bytes after those already in the reply, for the handler to write;
 * r2net_reply_commit() then adds the first n of them to the reply.  NULL
 * when the reply would be longer than R2NET_MAX_PAYLOAD or no memory is
 * left.
 */
void *r2net_reply_reserve(struct r2net_request *req, u32 len);
void r2net_reply_commit(struct r2net_request *req, u32 n);
/* Copy @len bytes to the reply: 0, or -EMSGSIZE / -ENOMEM (nothing added). */
int r2net_reply_add(struct r2net_request *req, const void *data, u32 len);
/* Forget the reply so far. */
void r2net_reply_clear(struct r2net_request *req);

/*
 * A handler runs in process context on the receiving connection's thread,
 * one request at a time per connection.  It may sleep and may send, but a
 * synchronous send from a handler must not wait on the connection it runs
 * on.  Its return value is the reply's status.
 */
typedef s32 (*r2net_handler_fn)(struct r2net_request *req, void *data);

/*
 * Register fn for requests of (type, key) with at most max_len payload
 * bytes; type is a tmem or user type (r2net_wire.h).  -EEXIST if taken,
 * -EINVAL for a system type or max_len above R2NET_MAX_PAYLOAD.
 */
int r2net_register_handler(u16 type, u32 key, u32 max_len,
			   r2net_handler_fn fn, void *data);
/* Waits until no call of the handler is running. */
void r2net_unregister_handler(u16 type, u32 key);

/* The reply as the sender sees it. */
struct r2net_reply {
	s32	status;		/* out: the remote handler's return value */
	void	*buf;		/* in: where the reply payload goes, or NULL */
	u32	buf_len;	/* in: its size */
	u32	len;		/* out: payload bytes the reply carried */
};

/*
 * r2net_send_sync() - send a request and wait for its reply
 * @node: the target's number
 * @type, @key: which handler on the target
 * @vec, @nvec: the payload, at most R2NET_MAX_PAYLOAD bytes in all
 * @reply: status and payload of the reply; the payload is copied to
 *	reply->buf (up to buf_len bytes)
 * @timeout_ms: 0 means the cluster's idle timeout
 *
 * Sleeps.  Returns 0 when the handler ran (its result is reply->status),
 * -ENOTCONN if the node is not connected, -ETIMEDOUT, -ECONNRESET if the
 * connection went down first, -EOPNOTSUPP if the target has no handler,
 * -EMSGSIZE if the payload is too long (here or for the handler),
 * -EOVERFLOW if the reply payload did not fit (reply->len says how long it
 * was), -EINVAL for a bad type, -ENOMEM, or -EINTR on a fatal signal.
 */
int r2net_send_sync(u8 node, u16 type, u32 key, const struct kvec *vec,
		    size_t nvec, struct r2net_reply *reply,
		    unsigned int timeout_ms);

/*
 * Called exactly once for each request r2net_send_async() accepted, in
 * process context (possibly before r2net_send_async() returns).  err is as
 * for r2net_send_sync(); data and len are the reply payload, valid during
 * the call only.  It must not sleep for long: it holds up the connection.
 */
typedef void (*r2net_done_fn)(void *arg, int err, s32 status,
			      const void *data, u32 len);

/*
 * Wait until no done callback is running: for a module's exit, after it
 * saw its last request complete (the callback may still be returning).
 */
void r2net_sync_callbacks(void);

/*
 * Send a request without waiting for its reply.  May sleep while the
 * socket is full.  Returns 0 when done will be called, or an error (as for
 * r2net_send_sync()) when it will not.
 */
int r2net_send_async(u8 node, u16 type, u32 key, const struct kvec *vec,
		     size_t nvec, unsigned int timeout_ms,
		     r2net_done_fn done, void *arg);

/*
 * The same with a page after head_len bytes of head (the payload is head
 * then the page), without copying the page: it is referenced until it is
 * sent, and must not change until the request completes.  For swap pages,
 * which are sent while memory is short.
 */
int r2net_send_page_sync(u8 node, u16 type, u32 key, const void *head,
			 size_t head_len, struct page *page,
			 struct r2net_reply *reply, unsigned int timeout_ms);
int r2net_send_page_async(u8 node, u16 type, u32 key, const void *head,
			  size_t head_len, struct page *page,
			  unsigned int timeout_ms, r2net_done_fn done,
			  void *arg);

/*
 * The same with pieces after the head: @ref's @nref pieces (at most
 * R2NET_REPLY_PAGES) are sent as they are, not copied, and must stay and
 * not change until the request completes.  For batches of compressed
 * pages, each in a buffer of its own.
 */
int r2net_send_refs_sync(u8 node, u16 type, u32 key, const struct kvec *vec,
			 size_t nvec, const struct kvec *ref, size_t nref,
			 struct r2net_reply *reply, unsigned int timeout_ms);
int r2net_send_refs_async(u8 node, u16 type, u32 key,
			  const struct kvec *vec, size_t nvec,
			  const struct kvec *ref, size_t nref,
			  unsigned int timeout_ms, r2net_done_fn done,
			  void *arg);

/*
 * Is node configured in the cluster (under configfs), and which number
 * is this node (-1 before one is local)?  For modules that take a node
 * number as a parameter and must refuse one that does not exist.
 */
bool r2net_node_configured(u8 node);
int r2net_local_node(void);

/* Is there a connection to node that has finished its handshake? */
bool r2net_node_connected(u8 node);

/*
 * The cluster's idle timeout: a peer that hears nothing from this node
 * for that long takes the connection for dead (both ends have the same:
 * the handshake checks it).
 */
unsigned int r2net_idle_timeout_ms(void);

/*
 * Node events.  up runs when the connection to a node has completed its
 * handshake, down when it has gone (after every request on it has been
 * completed with an error).  Both run in process context, one at a time,
 * in order, and may sleep.  Registering calls up at once for every node
 * that is connected.
 */
struct r2net_node_ops {
	struct list_head	list;
	void			(*up)(u8 node, void *data);
	void			(*down)(u8 node, void *data);
	void			*data;
};

void r2net_register_node_ops(struct r2net_node_ops *ops);
void r2net_unregister_node_ops(struct r2net_node_ops *ops);

#endif /* RAMSTER_R2NET_H */
