// SPDX-License-Identifier: GPL-2.0
/*
 * server.c - the memory server's r2net handlers for the tmem operations.
 *
 * One handler per tmem message type (key BACKEND_SERVER_KEY), registered
 * with the longest payload of its type.  Each decodes its payload with
 * the ABI's decoder, checks what the decoder leaves to the server (pool id
 * range; a private pool carries no uuid) and calls the store with the
 * sender's node number as the client.  The store's result is the reply's
 * status; a GET that finds its page replies with the handle and the page
 * (struct r2net_tmem_page_le).
 *
 * PUT_ZPAGE and GET_ZPAGE carry a page its client compressed (a zpage).
 * The server keeps it in the form it came in and gives it back so: it
 * never decompresses a client's stream to store or return it (a plain GET
 * of it decompresses it, checked).  They count as puts and gets, and also
 * in counters of their own.  PUT_ZPAGES and GET_ZPAGES do the same for up
 * to R2NET_BATCH_MAX pages in one pass, each page counted as one PUT_ZPAGE
 * or GET_ZPAGE would be; a malformed batch is refused whole, before any
 * page of it is stored.
 *
 * Replies are built in r2net's reply pages: the store copies a page
 * straight into the frame that carries it.
 *
 * r2net has checked the frame's length against the type already; the
 * checks here do not rely on it.  Nothing from the network reaches a
 * BUG_ON(): a malformed request is answered -TMEM_EINVAL and counted.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>

#include "r2net.h"
#include "tmem.h"
#include "server.h"
#include "zform.h"

static atomic64_t server_requests[BACKEND_SERVER_NR_OPS];
static atomic64_t server_errors[BACKEND_SERVER_NR_ERRS];
static atomic64_t server_get_hits;
static atomic64_t server_get_misses;
static atomic64_t server_zpage_puts;
static atomic64_t server_zpage_gets;
static atomic64_t server_zpage_bytes_in;
static atomic64_t server_zpage_bytes_out;
static atomic64_t server_batch_puts;
static atomic64_t server_batch_gets;

static const char * const server_op_names[BACKEND_SERVER_NR_OPS] = {
	[BACKEND_SERVER_NEW_POOL]	= "new_pool",
	[BACKEND_SERVER_DESTROY_POOL]	= "destroy_pool",
	[BACKEND_SERVER_PUT]		= "put",
	[BACKEND_SERVER_GET]		= "get",
	[BACKEND_SERVER_FLUSH_PAGE]	= "flush_page",
	[BACKEND_SERVER_FLUSH_OBJECT]	= "flush_object",
};

static const char * const server_err_names[BACKEND_SERVER_NR_ERRS] = {
	[BACKEND_SERVER_BAD_LENGTH]	= "bad_length",
	[BACKEND_SERVER_BAD_PAYLOAD]	= "bad_payload",
	[BACKEND_SERVER_BAD_POOL_ID]	= "bad_pool_id",
	[BACKEND_SERVER_EPERM]		= "eperm",
	[BACKEND_SERVER_ENOMEM]		= "enomem",
	[BACKEND_SERVER_ENODEV]		= "enodev",
	[BACKEND_SERVER_OTHER]		= "other",
};

const char *backend_server_op_name(enum backend_server_op op)
{
	return op < BACKEND_SERVER_NR_OPS ? server_op_names[op] : "unknown";
}

const char *backend_server_err_name(enum backend_server_err err)
{
	return err < BACKEND_SERVER_NR_ERRS ? server_err_names[err] : "unknown";
}

static s32 server_error(enum backend_server_err err, s32 status)
{
	atomic64_inc(&server_errors[err]);
	return status;
}

/* A payload the decoder refused: -TMEM_EINVAL, counted by reason. */
static s32 server_malformed(enum r2net_reject r)
{
	return server_error(r == R2NET_REJECT_BAD_LENGTH ?
			    BACKEND_SERVER_BAD_LENGTH :
			    BACKEND_SERVER_BAD_PAYLOAD, -TMEM_EINVAL);
}

static bool server_pool_id_ok(u32 pool_id)
{
	return pool_id <= TMEM_POOL_ID_MAX;
}

/* Count the store's result and pass it on. */
static s32 server_result(int ret)
{
	if (ret >= 0)
		return ret;
	switch (-ret) {
	case TMEM_EPERM:
		return server_error(BACKEND_SERVER_EPERM, ret);
	case TMEM_ENOMEM:
		return server_error(BACKEND_SERVER_ENOMEM, ret);
	case TMEM_ENODEV:
		return server_error(BACKEND_SERVER_ENODEV, ret);
	default:
		return server_error(BACKEND_SERVER_OTHER, ret);
	}
}

/*
 * Decode a request that is just a handle (GET, FLUSH_PAGE, FLUSH_OBJECT).
 * Returns 0, or the status to reply with.
 */
static s32 server_handle(struct r2net_request *req, struct tmem_handle *h)
{
	enum r2net_reject r;

	r = r2net_tmem_handle_decode(h, req->data, req->len);
	if (r != R2NET_ACCEPT)
		return server_malformed(r);
	if (!server_pool_id_ok(h->pool_id))
		return server_error(BACKEND_SERVER_BAD_POOL_ID, -TMEM_EINVAL);
	return 0;
}

static s32 server_new_pool(struct r2net_request *req, void *data)
{
	struct r2net_tmem_new_pool np;
	enum r2net_reject r;

	atomic64_inc(&server_requests[BACKEND_SERVER_NEW_POOL]);
	r = r2net_tmem_new_pool_decode(&np, req->data, req->len);
	if (r != R2NET_ACCEPT)
		return server_malformed(r);
	/* r2net_wire.h: the uuid is {0, 0} for a private pool. */
	if (!(np.flags & TMEM_POOL_SHARED) && (np.uuid[0] || np.uuid[1]))
		return server_error(BACKEND_SERVER_BAD_PAYLOAD, -TMEM_EINVAL);
	return server_result(tmem_new_pool(data, req->node, np.flags,
					   np.uuid));
}

static s32 server_destroy_pool(struct r2net_request *req, void *data)
{
	enum r2net_reject r;
	u32 pool_id;

	atomic64_inc(&server_requests[BACKEND_SERVER_DESTROY_POOL]);
	r = r2net_tmem_pool_decode(&pool_id, req->data, req->len);
	if (r != R2NET_ACCEPT)
		return server_malformed(r);
	if (!server_pool_id_ok(pool_id))
		return server_error(BACKEND_SERVER_BAD_POOL_ID, -TMEM_EINVAL);
	return server_result(tmem_destroy_pool(data, req->node, pool_id));
}

static s32 server_put(struct r2net_request *req, void *data)
{
	struct tmem_handle h;
	enum r2net_reject r;
	const u8 *page;

	atomic64_inc(&server_requests[BACKEND_SERVER_PUT]);
	r = r2net_tmem_page_decode(&h, &page, req->data, req->len);
	if (r != R2NET_ACCEPT)
		return server_malformed(r);
	if (!server_pool_id_ok(h.pool_id))
		return server_error(BACKEND_SERVER_BAD_POOL_ID, -TMEM_EINVAL);
	return server_result(tmem_put(data, req->node, &h, page));
}

/* Count a get's result, hit or miss. */
static void server_get_counted(s32 ret)
{
	if (ret == 1)
		atomic64_inc(&server_get_hits);
	else if (ret == 0)
		atomic64_inc(&server_get_misses);
}

/* The reply: the handle, then the page straight from the store. */
static s32 server_get(struct r2net_request *req, void *data)
{
	struct tmem_handle_le *hw;
	struct tmem_handle h;
	void *page;
	s32 ret;

	atomic64_inc(&server_requests[BACKEND_SERVER_GET]);
	ret = server_handle(req, &h);
	if (ret)
		return ret;
	hw = r2net_reply_reserve(req, sizeof(*hw));
	if (!hw)
		return server_result(-TMEM_ENOMEM);
	tmem_handle_to_le(hw, &h);
	r2net_reply_commit(req, sizeof(*hw));
	page = r2net_reply_reserve(req, TMEM_PAGE_SIZE);
	if (!page) {
		r2net_reply_clear(req);
		return server_result(-TMEM_ENOMEM);
	}
	ret = tmem_get(data, req->node, &h, page);
	if (ret == 1)
		r2net_reply_commit(req, TMEM_PAGE_SIZE);
	else
		r2net_reply_clear(req);
	server_get_counted(ret);
	return server_result(ret);
}

/*
 * The wire's form of a page the store gave as @src.  Checked with the
 * decoder a client uses: a form the wire cannot carry (a bug) fails the
 * get instead of going out as a bad frame.  Returns 1 or -TMEM_EINVAL.
 */
static s32 server_zform(struct r2net_zpage *z, const struct tmem_zpage *src)
{
	struct r2net_tmem_zpage_le w;
	struct tmem_handle h = { };

	z->arg = src->arg;
	z->enc = tmem_zenc_to_wire(src->enc);	/* NONE is refused below */
	r2net_tmem_zpage_encode(&w, &h, z);
	if (r2net_zpage_hdr_decode(&h, z, &w, false) != R2NET_ACCEPT) {
		pr_err_ratelimited("a stored page came out as form %d with %u bytes: not sent\n",
				   src->enc, src->arg);
		return -TMEM_EINVAL;
	}
	return 1;
}

/*
 * Get the page @h names into the reply, its data after what the reply
 * has, and its zpage header into @hw.  A page not given back gets an
 * R2NET_ZPAGE_NONE header with its status.  Returns the status.
 */
static s32 server_get_one(struct r2net_request *req, struct tmem_store *store,
			  const struct tmem_handle *h,
			  struct r2net_tmem_zpage_le *hw)
{
	struct r2net_zpage z = { .enc = R2NET_ZPAGE_NONE };
	struct tmem_zpage src;
	void *buf;
	s32 ret;

	atomic64_inc(&server_requests[BACKEND_SERVER_GET]);
	atomic64_inc(&server_zpage_gets);
	/* An ephemeral get takes the page: there must be room for it first. */
	buf = r2net_reply_reserve(req, TMEM_PAGE_SIZE);
	if (!server_pool_id_ok(h->pool_id)) {
		ret = server_error(BACKEND_SERVER_BAD_POOL_ID, -TMEM_EINVAL);
	} else {
		ret = buf ? tmem_get_zpage(store, req->node, h, &src, buf) :
			    -TMEM_ENOMEM;
		if (ret == 1)
			ret = server_zform(&z, &src);
		server_get_counted(ret);
		ret = server_result(ret);
	}
	if (ret == 1) {
		r2net_reply_commit(req, r2net_zpage_data_len(&z));
		atomic64_add(r2net_zpage_data_len(&z), &server_zpage_bytes_out);
	} else {
		z.enc = R2NET_ZPAGE_NONE;
		z.arg = (u32)ret;
	}
	r2net_tmem_zpage_encode(hw, h, &z);
	return ret;
}

static s32 server_get_zpage(struct r2net_request *req, void *data)
{
	struct r2net_tmem_zpage_le *hw;
	struct tmem_handle h;
	s32 ret;

	ret = server_handle(req, &h);
	if (ret) {
		atomic64_inc(&server_requests[BACKEND_SERVER_GET]);
		atomic64_inc(&server_zpage_gets);
		return ret;
	}
	hw = r2net_reply_reserve(req, sizeof(*hw));
	if (!hw)
		return server_result(-TMEM_ENOMEM);
	r2net_reply_commit(req, sizeof(*hw));
	ret = server_get_one(req, data, &h, hw);
	if (ret != 1)
		r2net_reply_clear(req);
	return ret;
}

/* A batch of gets: the batch header, every page's header, their data. */
static s32 server_get_zpages(struct r2net_request *req, void *data)
{
	struct r2net_tmem_zpage_le *hw;
	struct r2net_tmem_batch_le *bw;
	struct tmem_handle h;
	const u8 *handles;
	enum r2net_reject r;
	u32 count, i, len;

	atomic64_inc(&server_batch_gets);
	r = r2net_tmem_handles_decode(&count, &handles, req->data, req->len);
	if (r != R2NET_ACCEPT)
		return server_malformed(r);
	len = R2NET_BATCH_HDR_LEN + count * R2NET_ZPAGE_HDR_LEN;
	bw = r2net_reply_reserve(req, len);
	if (!bw)
		return server_result(-TMEM_ENOMEM);
	r2net_tmem_batch_encode(bw, count);
	r2net_reply_commit(req, len);
	hw = (struct r2net_tmem_zpage_le *)(bw + 1);
	for (i = 0; i < count; i++) {
		r2net_tmem_handle_decode(&h, handles + i * R2NET_HANDLE_LEN,
					 R2NET_HANDLE_LEN);
		server_get_one(req, data, &h, &hw[i]);
	}
	return count;
}

/* Store one page of a batch; its status. */
static s32 server_put_one(struct r2net_request *req, struct tmem_store *store,
			  const struct tmem_handle *h,
			  const struct r2net_zpage *z, const u8 *bytes)
{
	struct tmem_zpage src = { .arg = z->arg, .data = bytes };

	atomic64_inc(&server_requests[BACKEND_SERVER_PUT]);
	atomic64_inc(&server_zpage_puts);
	if (!server_pool_id_ok(h->pool_id))
		return server_error(BACKEND_SERVER_BAD_POOL_ID, -TMEM_EINVAL);
	/* The decoder knows every encoding this does. */
	if (!tmem_zenc_from_wire(z->enc, &src.enc))
		return server_error(BACKEND_SERVER_BAD_PAYLOAD, -TMEM_EINVAL);
	atomic64_add(r2net_zpage_data_len(z), &server_zpage_bytes_in);
	return server_result(tmem_put_zpage(store, req->node, h, &src));
}

static s32 server_put_zpage(struct r2net_request *req, void *data)
{
	struct r2net_zpage z;
	struct tmem_handle h;
	enum r2net_reject r;
	const u8 *bytes;

	r = r2net_tmem_zpage_decode(&h, &z, &bytes, req->data, req->len);
	if (r != R2NET_ACCEPT) {
		atomic64_inc(&server_requests[BACKEND_SERVER_PUT]);
		atomic64_inc(&server_zpage_puts);
		return server_malformed(r);
	}
	return server_put_one(req, data, &h, &z, bytes);
}

/* The reply: a status for each page, in order. */
static s32 server_put_zpages(struct r2net_request *req, void *data)
{
	struct r2net_zbatch b;
	struct r2net_zpage z;
	struct tmem_handle h;
	enum r2net_reject r;
	const u8 *bytes;
	__le32 *st;
	u32 i;

	atomic64_inc(&server_batch_puts);
	r = r2net_tmem_zbatch_decode(&b, req->data, req->len, false);
	if (r != R2NET_ACCEPT)
		return server_malformed(r);
	st = r2net_reply_reserve(req, b.count * sizeof(*st));
	if (!st)
		return server_result(-TMEM_ENOMEM);
	r2net_reply_commit(req, b.count * sizeof(*st));
	for (i = 0; i < b.count; i++) {
		r2net_zbatch_next(&b, &h, &z, &bytes);
		st[i] = cpu_to_le32((u32)server_put_one(req, data, &h, &z,
							bytes));
	}
	return b.count;
}

static s32 server_flush_page(struct r2net_request *req, void *data)
{
	struct tmem_handle h;
	s32 ret;

	atomic64_inc(&server_requests[BACKEND_SERVER_FLUSH_PAGE]);
	ret = server_handle(req, &h);
	if (ret)
		return ret;
	return server_result(tmem_flush_page(data, req->node, &h));
}

static s32 server_flush_object(struct r2net_request *req, void *data)
{
	struct tmem_handle h;
	s32 ret;

	atomic64_inc(&server_requests[BACKEND_SERVER_FLUSH_OBJECT]);
	/* The index is ignored: any value will do. */
	ret = server_handle(req, &h);
	if (ret)
		return ret;
	return server_result(tmem_flush_object(data, req->node, &h));
}

static const struct {
	u16			type;
	u32			len;
	r2net_handler_fn	fn;
} server_handlers[] = {
	{ R2NET_MSG_TMEM_NEW_POOL, R2NET_NEW_POOL_LEN, server_new_pool },
	{ R2NET_MSG_TMEM_DESTROY_POOL, R2NET_POOL_LEN, server_destroy_pool },
	{ R2NET_MSG_TMEM_PUT_PAGE, R2NET_PAGE_MSG_LEN, server_put },
	{ R2NET_MSG_TMEM_GET_PAGE, R2NET_HANDLE_LEN, server_get },
	{ R2NET_MSG_TMEM_FLUSH_PAGE, R2NET_HANDLE_LEN, server_flush_page },
	{ R2NET_MSG_TMEM_FLUSH_OBJECT, R2NET_HANDLE_LEN, server_flush_object },
	{ R2NET_MSG_TMEM_PUT_ZPAGE, R2NET_ZPAGE_MSG_MAX, server_put_zpage },
	{ R2NET_MSG_TMEM_GET_ZPAGE, R2NET_HANDLE_LEN, server_get_zpage },
	{ R2NET_MSG_TMEM_PUT_ZPAGES, R2NET_ZPAGES_MAX, server_put_zpages },
	{ R2NET_MSG_TMEM_GET_ZPAGES, R2NET_HANDLES_MAX, server_get_zpages },
};

/* A batch's headers fit one reply page; the pages one each after it. */
static_assert(R2NET_BATCH_HDR_LEN + R2NET_BATCH_MAX * R2NET_ZPAGE_HDR_LEN <=
	      PAGE_SIZE);
static_assert(R2NET_BATCH_MAX + 1 <= R2NET_REPLY_PAGES);
static_assert(TMEM_ZPAGE_LZO_MAX == R2NET_ZPAGE_LZO_MAX);

void backend_server_stats(struct backend_server_stats *st)
{
	int i;

	for (i = 0; i < BACKEND_SERVER_NR_OPS; i++)
		st->requests[i] = atomic64_read(&server_requests[i]);
	for (i = 0; i < BACKEND_SERVER_NR_ERRS; i++)
		st->errors[i] = atomic64_read(&server_errors[i]);
	st->get_hits = atomic64_read(&server_get_hits);
	st->get_misses = atomic64_read(&server_get_misses);
	st->zpage_puts = atomic64_read(&server_zpage_puts);
	st->zpage_gets = atomic64_read(&server_zpage_gets);
	st->zpage_bytes_in = atomic64_read(&server_zpage_bytes_in);
	st->zpage_bytes_out = atomic64_read(&server_zpage_bytes_out);
	st->batch_puts = atomic64_read(&server_batch_puts);
	st->batch_gets = atomic64_read(&server_batch_gets);
}

/**
 * backend_server_init() - serve the tmem operations on @store over r2net
 * @store: the store; must outlive backend_server_exit()
 *
 * Context: process context; r2net.ko is loaded (a symbol dependency).
 * Return: 0, or r2net_register_handler()'s error (nothing registered).
 */
int backend_server_init(struct tmem_store *store)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(server_handlers); i++) {
		ret = r2net_register_handler(server_handlers[i].type,
					     BACKEND_SERVER_KEY,
					     server_handlers[i].len,
					     server_handlers[i].fn, store);
		if (ret) {
			pr_err("cannot register the handler for type %#x: %d\n",
			       server_handlers[i].type, ret);
			goto fail;
		}
	}
	pr_info("serving tmem over r2net (types %#x..%#x, zpages %#x..%#x, batches %#x..%#x, key %u)\n",
		R2NET_MSG_TMEM_NEW_POOL, R2NET_MSG_TMEM_FLUSH_OBJECT,
		R2NET_MSG_TMEM_PUT_ZPAGE, R2NET_MSG_TMEM_GET_ZPAGE,
		R2NET_MSG_TMEM_PUT_ZPAGES, R2NET_MSG_TMEM_GET_ZPAGES,
		BACKEND_SERVER_KEY);
	return 0;

fail:
	while (i--)
		r2net_unregister_handler(server_handlers[i].type,
					 BACKEND_SERVER_KEY);
	return ret;
}

/*
 * backend_server_exit() - stop serving; returns when no handler runs.
 * Logs what was served, one "served:" line with every counter.
 */
void backend_server_exit(void)
{
	struct backend_server_stats st;
	char line[768];
	int i, n = 0;

	for (i = ARRAY_SIZE(server_handlers) - 1; i >= 0; i--)
		r2net_unregister_handler(server_handlers[i].type,
					 BACKEND_SERVER_KEY);

	backend_server_stats(&st);
	for (i = 0; i < BACKEND_SERVER_NR_OPS; i++)
		n += scnprintf(line + n, sizeof(line) - n, " %s %llu",
			       server_op_names[i], st.requests[i]);
	n += scnprintf(line + n, sizeof(line) - n, " get_hits %llu get_misses %llu",
		       st.get_hits, st.get_misses);
	for (i = 0; i < BACKEND_SERVER_NR_ERRS; i++)
		n += scnprintf(line + n, sizeof(line) - n, " err_%s %llu",
			       server_err_names[i], st.errors[i]);
	n += scnprintf(line + n, sizeof(line) - n,
		       " put_zpage %llu get_zpage %llu zpage_bytes_in %llu zpage_bytes_out %llu put_zpages %llu get_zpages %llu",
		       st.zpage_puts, st.zpage_gets, st.zpage_bytes_in,
		       st.zpage_bytes_out, st.batch_puts, st.batch_gets);
	pr_info("served:%s\n", line);
}
