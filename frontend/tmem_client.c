// SPDX-License-Identifier: GPL-2.0
/*
 * tmem_client.c - what frontswap (swap.c) and cleancache (cleancache.c)
 * share to talk to a memory server's tmem handlers: its pools, requests
 * of a page handle, what a GET's reply says, round trips, and when not
 * to store at all.
 *
 * Policy stays with the callers: what a failed destroy means (swap.c),
 * when a pool goes stale (cleancache.c), which counters a reply bumps.
 */
#include <linux/mm.h>
#include <linux/uio.h>
#include <asm/unaligned.h>

#include "ramster_frontend.h"
#include "tmem_client.h"
#include "zpage.h"

/*
 * Held by swap.c's and cleancache.c's pool repairs, so that after a node
 * comes back one checks and makes its pools after the other, not both at
 * once.  A pool's id names it alone (tmem_abi.h: ids are tagged), so a
 * repair can neither adopt nor destroy the other's pool; in turn the
 * server sees one repair's requests together.
 */
DEFINE_MUTEX(rf_tmem_repair_mutex);

/* A request of one payload to node, waiting for the reply. */
static int rf_tmem_request(u8 node, u16 msg, void *payload, size_t len,
			   struct r2net_reply *reply, atomic64_t *in_flight,
			   unsigned int timeout_ms)
{
	struct kvec vec = { .iov_base = payload, .iov_len = len };
	int err;

	if (in_flight)
		atomic64_inc(in_flight);
	err = r2net_send_sync(node, msg, RF_KEY, &vec, 1, reply, timeout_ms);
	if (in_flight)
		atomic64_dec(in_flight);
	return err;
}

/*
 * Make a pool on node: persistent (frontswap) or ephemeral (cleancache),
 * shared by uuid or, with uuid NULL, private.  Returns the new pool's id
 * or a negative errno.
 */
int rf_tmem_new_pool(u8 node, bool persist, const uuid_t *uuid,
		     atomic64_t *in_flight)
{
	struct r2net_tmem_new_pool np = {
		.flags = tmem_pool_flags(persist, uuid),
	};
	struct r2net_tmem_new_pool_le w;
	struct r2net_reply reply = { };
	int err;

	if (uuid) {
		np.uuid[0] = get_unaligned_le64(&uuid->b[0]);
		np.uuid[1] = get_unaligned_le64(&uuid->b[8]);
	}
	r2net_tmem_new_pool_encode(&w, &np);
	err = rf_tmem_request(node, R2NET_MSG_TMEM_NEW_POOL, &w, sizeof(w),
			      &reply, in_flight, rf_timeout_ms);
	if (err)
		return err;
	/* -TMEM_E*: Linux errnos; else the id (tmem_abi.h: opaque). */
	return reply.status;
}

/*
 * Returns the server's status (1: destroyed, 0: it had no such pool, or
 * -TMEM_E*), or r2net's negative errno when the server did not answer.
 */
int rf_tmem_destroy_pool(u8 node, int pool, atomic64_t *in_flight)
{
	struct r2net_tmem_pool_le w;
	struct r2net_reply reply = { };
	int err;

	r2net_tmem_pool_encode(&w, pool);
	err = rf_tmem_request(node, R2NET_MSG_TMEM_DESTROY_POOL, &w,
			      sizeof(w), &reply, in_flight, rf_timeout_ms);
	return err ?: reply.status;
}

/*
 * Does node still have probe's pool (after a reconnect: it may have been
 * restarted)?  probe names an object the caller never uses, so its GET
 * misses in a pool that exists.  Returns 1 if it does, 0 if it does not,
 * or a negative errno when the server did not say.
 */
int rf_tmem_pool_exists(u8 node, const struct tmem_handle *probe,
			atomic64_t *in_flight)
{
	struct r2net_reply reply = { };
	int err;

	err = rf_tmem_sync(node, R2NET_MSG_TMEM_GET_PAGE, probe, &reply,
			   in_flight, rf_timeout_ms);
	if (err)
		return err;
	if (reply.status == -TMEM_ENODEV)
		return 0;
	return reply.status < 0 ? reply.status : 1;
}

/* A request of the page handle h (a GET), waiting for the reply. */
int rf_tmem_sync(u8 node, u16 msg, const struct tmem_handle *h,
		 struct r2net_reply *reply, atomic64_t *in_flight,
		 unsigned int timeout_ms)
{
	struct tmem_handle_le w;

	tmem_handle_to_le(&w, h);
	return rf_tmem_request(node, msg, &w, sizeof(w), reply, in_flight,
			       timeout_ms);
}

/* The same without waiting (a GET or a flush), as r2net_send_async(). */
int rf_tmem_async(u8 node, u16 msg, const struct tmem_handle *h,
		  r2net_done_fn done, void *arg)
{
	struct tmem_handle_le w;
	struct kvec vec = { .iov_base = &w, .iov_len = sizeof(w) };

	tmem_handle_to_le(&w, h);
	return r2net_send_async(node, msg, RF_KEY, &vec, 1, rf_timeout_ms,
				done, arg);
}

/*
 * What the server said to a GET: 1, the page came (rf_zpage_unpack()
 * it); 0, a miss; else a negative errno, -ENODEV when the server has no
 * such pool.
 */
int rf_tmem_get_result(s32 status, u32 len)
{
	if (status == 1)
		return 1;
	if (status == 0 && len == 0)
		return 0;
	return status < 0 ? status : -EPROTO;
}

/* A round trip that began at t0. */
void rf_rtt_add(struct rf_rtt *rtt, ktime_t t0)
{
	s64 us = ktime_us_delta(ktime_get(), t0);
	s64 old = atomic64_read(&rtt->us_max), prev;

	atomic64_add(us, &rtt->us_total);
	atomic64_inc(&rtt->samples);
	while (us > old) {
		prev = atomic64_cmpxchg(&rtt->us_max, old, us);
		if (prev == old)
			break;
		old = prev;
	}
}

/*
 * Free memory below the min watermarks: what is left is for the atomic
 * allocations that receive the server's answers (virtio-net refills its
 * receive ring with plain GFP_ATOMIC, which cannot use the memalloc
 * reserves r2net's sends may take).  Stores and puts are refused then, and
 * the disk takes the page; loads still go.
 */
bool rf_memory_low(void)
{
	unsigned long min = 0;
	struct zone *zone;
	int nid;

	for_each_online_node(nid)
		for (zone = NODE_DATA(nid)->node_zones;
		     zone < NODE_DATA(nid)->node_zones + MAX_NR_ZONES; zone++)
			min += min_wmark_pages(zone);
	return global_zone_page_state(NR_FREE_PAGES) < min;
}

/*
 * The statuses of the n pages of a PUT_ZPAGES, from its reply, into st[]:
 * each page's own, or the batch's for all when it was refused whole (a
 * status below 0 and no payload).  Returns err, or -EPROTO for a reply
 * that is neither; st[] is then not set.
 */
int rf_tmem_put_statuses(int err, s32 status, const void *data, u32 len,
			 unsigned int n, s32 *st)
{
	unsigned int i;
	__le32 w;

	if (err)
		return err;
	if (status < 0 && !len) {
		for (i = 0; i < n; i++)
			st[i] = status;
		return 0;
	}
	if (status != n || len != n * sizeof(w))
		return -EPROTO;
	for (i = 0; i < n; i++) {
		memcpy(&w, (const u8 *)data + i * sizeof(w), sizeof(w));
		st[i] = (s32)le32_to_cpu(w);
	}
	return 0;
}

/* GETs of prefetch entries in flight, in one batch (or one GET, compress=0). */
struct rf_fetch {
	rf_fetch_done_fn	done;
	unsigned int		n;
	struct rf_pf_entry	*e[R2NET_BATCH_MAX];
};

/* The page of entry e from a zpage of the reply: rf_tmem_get_result()'s. */
static int rf_fetch_fill(struct rf_pf_entry *e, const struct tmem_handle *got,
			 const struct r2net_zpage *z, const u8 *data)
{
	if (z->enc == R2NET_ZPAGE_NONE)
		return rf_tmem_get_result((s32)z->arg, 0);
	if (rf_zpage_fill(got, z, data, rf_cc_pf_handle(e, NULL),
			  rf_cc_pf_page(e)))
		return -EPROTO;
	return 1;
}

static void rf_fetch_one_done(void *arg, int err, s32 status,
			      const void *data, u32 len)
{
	struct rf_fetch *f = arg;
	struct rf_pf_entry *e = f->e[0];
	int got = err ? 0 : rf_tmem_get_result(status, len);

	if (got == 1 && rf_zpage_unpack(data, len, rf_cc_pf_handle(e, NULL),
					rf_cc_pf_page(e)))
		got = -EPROTO;
	f->done(e, err, got);
	kfree(f);
}

/* A GET_ZPAGES reply: a zpage for each entry, in order. */
static void rf_fetch_batch_done(void *arg, int err, s32 status,
				const void *data, u32 len)
{
	struct rf_fetch *f = arg;
	struct r2net_zbatch b;
	struct tmem_handle got;
	struct r2net_zpage z;
	const u8 *bytes;
	unsigned int i;
	int whole = 0;

	/* A batch of the pages asked for, or a status for them all. */
	if (!err && (status != f->n ||
		     r2net_tmem_zbatch_decode(&b, data, len, true) !=
		     R2NET_ACCEPT || b.count != f->n))
		whole = rf_tmem_get_result(status < 0 ? status : -EPROTO, len);
	for (i = 0; i < f->n; i++) {
		if (err || whole) {
			f->done(f->e[i], err, whole);
			continue;
		}
		r2net_zbatch_next(&b, &got, &z, &bytes);
		f->done(f->e[i], 0, rf_fetch_fill(f->e[i], &got, &z, bytes));
	}
	kfree(f);
}

/**
 * rf_tmem_fetch() - GET the pages of prefetch entries without waiting
 * @node: the server
 * @e: the entries (rf_cc_pf_reserve()), whose handles name the pages
 * @n: how many, 1..R2NET_BATCH_MAX
 * @done: called once for each entry, possibly before this returns, with
 *	r2net's error or 0, and then rf_tmem_get_result()'s value: 1 when
 *	the page is in rf_cc_pf_page(), 0 for a miss, < 0 for an error
 *
 * With zpages the entries go as one GET_ZPAGES, else as a GET each.
 *
 * Context: process context; may sleep.
 * Return: 0, or r2net's error for a request not sent (its entries done).
 */
int rf_tmem_fetch(u8 node, struct rf_pf_entry **e, unsigned int n,
		  rf_fetch_done_fn done)
{
	struct kvec vec[2];
	struct {
		struct r2net_tmem_batch_le	b;
		struct tmem_handle_le		h[R2NET_BATCH_MAX];
	} *req;
	struct rf_fetch *f;
	unsigned int i;
	int err = 0;

	if (!rf_zpage_on()) {
		for (i = 0; i < n && !err; i++) {
			f = kmalloc(sizeof(*f), GFP_NOIO | __GFP_NOWARN);
			if (!f) {
				done(e[i], -ENOMEM, 0);
				continue;
			}
			f->done = done;
			f->n = 1;
			f->e[0] = e[i];
			err = rf_tmem_async(node, R2NET_MSG_TMEM_GET_PAGE,
					    rf_cc_pf_handle(e[i], NULL),
					    rf_fetch_one_done, f);
			if (err)
				rf_fetch_one_done(f, err, 0, NULL, 0);
		}
		for (; i < n; i++)
			done(e[i], err, 0);
		return err;
	}

	f = kmalloc(sizeof(*f), GFP_NOIO | __GFP_NOWARN);
	req = kmalloc(sizeof(*req), GFP_NOIO | __GFP_NOWARN);
	if (!f || !req) {
		kfree(f);
		kfree(req);
		for (i = 0; i < n; i++)
			done(e[i], -ENOMEM, 0);
		return -ENOMEM;
	}
	f->done = done;
	f->n = n;
	r2net_tmem_batch_encode(&req->b, n);
	for (i = 0; i < n; i++) {
		f->e[i] = e[i];
		tmem_handle_to_le(&req->h[i], rf_cc_pf_handle(e[i], NULL));
	}
	vec[0] = (struct kvec){ &req->b, sizeof(req->b) };
	vec[1] = (struct kvec){ req->h, n * sizeof(req->h[0]) };
	err = r2net_send_async(node, R2NET_MSG_TMEM_GET_ZPAGES, RF_KEY, vec, 2,
			       rf_timeout_ms, rf_fetch_batch_done, f);
	kfree(req);	/* r2net copied it */
	if (err)
		rf_fetch_batch_done(f, err, 0, NULL, 0);
	return err;
}
