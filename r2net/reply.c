// SPDX-License-Identifier: GPL-2.0
/*
 * reply.c - a handler's reply, built in whole pages.
 *
 * A reply grows page by page; the frame that carries it sends the pages
 * as they are and frees them once written (send.c).  So a handler copies
 * what it answers once, straight into the frame, and no reply needs an
 * allocation larger than a page, however long it is.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "r2net.h"

/* The last page's free room, or 0 if there is no page yet. */
static u32 r2net_reply_room(const struct r2net_request *req)
{
	if (!req->reply_nr)
		return 0;
	return PAGE_SIZE - req->reply[req->reply_nr - 1].iov_len;
}

static void *r2net_reply_tail(const struct r2net_request *req)
{
	const struct kvec *v = &req->reply[req->reply_nr - 1];

	return (u8 *)v->iov_base + v->iov_len;
}

static bool r2net_reply_grow(struct r2net_request *req)
{
	void *page;

	if (req->reply_nr == R2NET_REPLY_PAGES)
		return false;
	page = (void *)__get_free_page(GFP_NOIO | __GFP_NOWARN);
	if (!page)
		return false;
	req->reply[req->reply_nr].iov_base = page;
	req->reply[req->reply_nr].iov_len = 0;
	req->reply_nr++;
	return true;
}

void *r2net_reply_reserve(struct r2net_request *req, u32 len)
{
	if (len > PAGE_SIZE || len > R2NET_MAX_PAYLOAD - req->reply_len)
		return NULL;
	if (r2net_reply_room(req) < len && !r2net_reply_grow(req))
		return NULL;
	return r2net_reply_tail(req);
}
EXPORT_SYMBOL_GPL(r2net_reply_reserve);

void r2net_reply_commit(struct r2net_request *req, u32 n)
{
	if (WARN_ON_ONCE(n > r2net_reply_room(req)))
		return;
	req->reply[req->reply_nr - 1].iov_len += n;
	req->reply_len += n;
}
EXPORT_SYMBOL_GPL(r2net_reply_commit);

int r2net_reply_add(struct r2net_request *req, const void *data, u32 len)
{
	u32 nr = req->reply_nr, old_len = req->reply_len, n;
	size_t last = nr ? req->reply[nr - 1].iov_len : 0;
	const u8 *p = data;

	if (len > R2NET_MAX_PAYLOAD - req->reply_len)
		return -EMSGSIZE;
	while (len) {
		if (!r2net_reply_room(req) && !r2net_reply_grow(req))
			goto undo;
		n = min(r2net_reply_room(req), len);
		memcpy(r2net_reply_tail(req), p, n);
		r2net_reply_commit(req, n);
		p += n;
		len -= n;
	}
	return 0;

undo:
	while (req->reply_nr > nr)
		free_page((unsigned long)req->reply[--req->reply_nr].iov_base);
	if (nr)
		req->reply[nr - 1].iov_len = last;
	req->reply_len = old_len;
	return -ENOMEM;
}
EXPORT_SYMBOL_GPL(r2net_reply_add);

void r2net_reply_clear(struct r2net_request *req)
{
	while (req->reply_nr)
		free_page((unsigned long)req->reply[--req->reply_nr].iov_base);
	req->reply_len = 0;
}
EXPORT_SYMBOL_GPL(r2net_reply_clear);
