// SPDX-License-Identifier: GPL-2.0
/*
 * tmem_selftest.c - the tmem store's self-test, run at load with
 * selftest=1.
 *
 * Every case gets a store of its own over a data layer that copies each
 * page into a kmalloc'd buffer and counts the buffers alive: once the store
 * is destroyed the count must be back to zero, so a page the store loses
 * track of shows up.  Page contents encode their handle and a version, and
 * every get is compared byte for byte.  The data layer has no get_stored
 * op: a zpage get gives the page whole (zcache_selftest.c tests the
 * forms).  It tells the store a same-filled page keeps no bytes and takes
 * no page frame, as zcache does, and any other a whole page.  A case logs
 * "selftest: pass NAME",
 * or "selftest: FAIL NAME: what" for its first failed check.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>
#include "tmem.h"

/* The data layer ---------------------------------------------------------- */

static atomic_t st_live = ATOMIC_INIT(0);
static atomic_t st_same = ATOMIC_INIT(0);	/* of them, same-filled */
static atomic_t st_fail_creates = ATOMIC_INIT(0);

static bool st_same_filled(const void *buf)
{
	const u32 *w = buf;
	int i;

	for (i = 1; i < TMEM_PAGE_SIZE / 4; i++) {
		if (w[i] != w[0])
			return false;
	}
	return true;
}

/* Whole pages only: the store's part of a zpage is the same for any form. */
static void *st_create(const struct tmem_zpage *src, struct tmem_pool *pool,
		       int *err)
{
	void *buf;

	if ((src->enc != TMEM_ZENC_PAGE && src->enc != TMEM_ZENC_RAW) ||
	    src->arg != TMEM_PAGE_SIZE) {
		*err = -TMEM_EINVAL;
		return NULL;
	}
	if (atomic_add_unless(&st_fail_creates, -1, 0)) {
		*err = -TMEM_ENOMEM;
		return NULL;
	}
	buf = kmalloc(TMEM_PAGE_SIZE, GFP_KERNEL);
	if (!buf) {
		*err = -TMEM_ENOMEM;
		return NULL;
	}
	memcpy(buf, src->data, TMEM_PAGE_SIZE);
	atomic_inc(&st_live);
	if (st_same_filled(buf))
		atomic_inc(&st_same);
	return buf;
}

static int st_get(void *data, void *page)
{
	memcpy(page, data, TMEM_PAGE_SIZE);
	return 0;
}

static void st_free(void *data, struct tmem_pool *pool)
{
	if (st_same_filled(data))
		atomic_dec(&st_same);
	kfree(data);
	atomic_dec(&st_live);
}

/* One "page frame" per live buffer not same-filled, for max_frames. */
static unsigned long st_frames(void *priv)
{
	return atomic_read(&st_live) - atomic_read(&st_same);
}

static unsigned int st_size(void *data)
{
	return st_same_filled(data) ? 0 : TMEM_PAGE_SIZE;
}

static const struct tmem_data_ops st_ops = {
	.create = st_create,
	.get = st_get,
	.free = st_free,
	.frames = st_frames,
	.size = st_size,
};

/* Checks ------------------------------------------------------------------ */

struct st {
	const char *name;
	bool failed;
	struct tmem_store *store;
	void *page;			/* what a get returned */
	void *want;			/* what it should have */
};

/* Report the case's first failure; returns @bad. */
static __printf(3, 4) bool st_bad(struct st *t, bool bad, const char *fmt,
				  ...)
{
	struct va_format vaf;
	va_list args;

	if (!bad)
		return false;
	if (!t->failed) {
		va_start(args, fmt);
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_err("selftest: FAIL %s: %pV\n", t->name, &vaf);
		va_end(args);
	}
	t->failed = true;
	return true;
}

static bool st_eq(struct st *t, const char *what, long long got,
		  long long want)
{
	return !st_bad(t, got != want, "%s is %lld, want %lld", what, got,
		       want);
}

static struct tmem_handle st_h(u32 pool_id, u64 oid, u32 index)
{
	struct tmem_handle h = {
		.pool_id = pool_id,
		.index = index,
		.oid = { oid, ~oid, 0x7a3 },
	};

	return h;
}

/* Fill @buf with what handle @h holds at version @ver. */
static void st_fill(void *buf, const struct tmem_handle *h, u32 ver)
{
	u64 x = h->oid[0] ^ (h->oid[1] << 1) ^ (h->oid[2] << 2);
	u32 *w = buf;
	int i;

	x ^= (((u64)h->pool_id << 32) | h->index) * 0x9e3779b97f4a7c15ULL;
	x ^= (u64)ver << 20;
	x |= 1;
	w[0] = h->pool_id;
	w[1] = h->index;
	w[2] = ver;
	w[3] = (u32)h->oid[0];
	for (i = 4; i < TMEM_PAGE_SIZE / 4; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w[i] = (u32)(x >> 16);
	}
}

static int st_first_diff(const void *a, const void *b)
{
	const u8 *p = a, *q = b;
	int i;

	for (i = 0; i < TMEM_PAGE_SIZE; i++) {
		if (p[i] != q[i])
			return i;
	}
	return -1;
}

static bool st_pool(struct st *t, u8 node, bool persist, bool shared,
		    const u64 *uuid, int want)
{
	int ret = tmem_new_pool(t->store, node, tmem_pool_flags(persist, shared),
				uuid);

	return !st_bad(t, ret != want,
		       "new_pool(node %u, %s%s) returned %d, want %d", node,
		       persist ? "persistent" : "ephemeral",
		       shared ? " shared" : "", ret, want);
}

static bool st_put(struct st *t, u8 node, const struct tmem_handle *h,
		   u32 ver)
{
	int ret;

	st_fill(t->want, h, ver);
	ret = tmem_put(t->store, node, h, t->want);
	return !st_bad(t, ret != 1,
		       "put(node %u pool %u oid %llx index %u v%u) returned %d",
		       node, h->pool_id, h->oid[0], h->index, ver, ret);
}

/* Get @h and expect the page that @as held at version @ver. */
static bool st_hit_as(struct st *t, u8 node, const struct tmem_handle *h,
		      const struct tmem_handle *as, u32 ver)
{
	int ret, at;

	memset(t->page, 0x5a, TMEM_PAGE_SIZE);
	ret = tmem_get(t->store, node, h, t->page);
	if (st_bad(t, ret != 1,
		   "get(node %u pool %u oid %llx index %u) returned %d, want 1",
		   node, h->pool_id, h->oid[0], h->index, ret))
		return false;
	st_fill(t->want, as, ver);
	at = st_first_diff(t->page, t->want);
	return !st_bad(t, at >= 0,
		       "get(node %u pool %u oid %llx index %u): not version %u, first wrong byte at %d",
		       node, h->pool_id, h->oid[0], h->index, ver, at);
}

static bool st_hit(struct st *t, u8 node, const struct tmem_handle *h,
		   u32 ver)
{
	return st_hit_as(t, node, h, h, ver);
}

static bool st_miss(struct st *t, u8 node, const struct tmem_handle *h)
{
	int ret = tmem_get(t->store, node, h, t->page);

	return !st_bad(t, ret != 0,
		       "get(node %u pool %u oid %llx index %u) returned %d, want 0 (absent)",
		       node, h->pool_id, h->oid[0], h->index, ret);
}

static bool st_live_is(struct st *t, int want)
{
	return st_eq(t, "live data buffers", atomic_read(&st_live), want);
}

static bool st_stat_at(struct st *t, size_t offset, const char *what,
		       long long want)
{
	struct tmem_stats s;

	tmem_stats_snapshot(t->store, &s);
	return st_eq(t, what, *(u64 *)((char *)&s + offset), want);
}

/* Check a counter of the store: st_stat(t, eph_pages, 3). */
#define st_stat(t, field, want) \
	st_stat_at(t, offsetof(struct tmem_stats, field), #field, want)

/* The cases --------------------------------------------------------------- */

static void st_roundtrip(struct st *t)
{
	struct tmem_zpage z;
	struct tmem_handle h;
	int p, i;

	if (!st_pool(t, 1, false, false, NULL, 0) ||
	    !st_pool(t, 1, true, false, NULL, 1))
		return;
	for (p = 0; p < 2; p++) {
		for (i = 0; i < 8; i++) {
			h = st_h(p, i % 3, i);
			if (!st_put(t, 1, &h, 1))
				return;
		}
		/* The far corners of the handle space. */
		h = st_h(p, ~0ULL, ~0U);
		h.oid[1] = ~0ULL;
		h.oid[2] = ~0ULL;
		if (!st_put(t, 1, &h, 1))
			return;
	}
	if (!st_stat(t, eph_pages, 9) || !st_stat(t, pers_pages, 9) ||
	    !st_stat(t, objects, 8) || !st_stat(t, pools, 2) ||
	    !st_live_is(t, 18))
		return;
	for (p = 0; p < 2; p++) {
		for (i = 0; i < 8; i++) {
			h = st_h(p, i % 3, i);
			if (!st_hit(t, 1, &h, 1))
				return;
		}
		h = st_h(p, ~0ULL, ~0U);
		h.oid[1] = ~0ULL;
		h.oid[2] = ~0ULL;
		if (!st_hit(t, 1, &h, 1))
			return;
	}
	if (!st_stat(t, get_hits, 18))
		return;

	/* The zpage calls share the body: a page put and got as a zpage. */
	h = st_h(1, 77, 0);
	st_fill(t->want, &h, 3);
	z = (struct tmem_zpage){
		.enc = TMEM_ZENC_RAW, .arg = TMEM_PAGE_SIZE, .data = t->want,
	};
	if (!st_eq(t, "put_zpage", tmem_put_zpage(t->store, 1, &h, &z), 1))
		return;
	memset(&z, 0, sizeof(z));
	memset(t->page, 0x5a, TMEM_PAGE_SIZE);
	if (!st_eq(t, "get_zpage", tmem_get_zpage(t->store, 1, &h, &z, t->page),
		   1) ||
	    st_bad(t, z.enc != TMEM_ZENC_RAW || z.arg != TMEM_PAGE_SIZE ||
		   z.data != t->page ||
		   memcmp(t->page, t->want, TMEM_PAGE_SIZE),
		   "get_zpage gave form %d, %u bytes, or other bytes", z.enc,
		   z.arg) ||
	    !st_hit(t, 1, &h, 3))
		return;
	st_stat(t, get_hits, 20);
}

static void st_eph_exclusive(struct st *t)
{
	struct tmem_handle h = st_h(0, 42, 7);

	if (!st_pool(t, 1, false, false, NULL, 0) || !st_put(t, 1, &h, 1) ||
	    !st_hit(t, 1, &h, 1) || !st_miss(t, 1, &h) ||
	    !st_stat(t, eph_pages, 0) || !st_stat(t, objects, 0))
		return;
	st_live_is(t, 0);
}

static void st_pers_kept(struct st *t)
{
	struct tmem_handle h = st_h(0, 42, 7);

	if (!st_pool(t, 1, true, false, NULL, 0) || !st_put(t, 1, &h, 1) ||
	    !st_hit(t, 1, &h, 1) || !st_hit(t, 1, &h, 1) ||
	    !st_hit(t, 1, &h, 1) || !st_stat(t, pers_pages, 1))
		return;
	st_live_is(t, 1);
}

static void st_dup_put(struct st *t)
{
	struct tmem_handle h;
	int p;

	if (!st_pool(t, 1, true, false, NULL, 0) ||
	    !st_pool(t, 1, false, false, NULL, 1))
		return;
	for (p = 0; p < 2; p++) {
		h = st_h(p, 5, 5);
		if (!st_put(t, 1, &h, 1) || !st_put(t, 1, &h, 2))
			return;
	}
	if (!st_stat(t, dup_puts, 2) || !st_stat(t, pers_pages, 1) ||
	    !st_stat(t, eph_pages, 1) || !st_live_is(t, 2))
		return;
	for (p = 0; p < 2; p++) {
		h = st_h(p, 5, 5);
		if (!st_hit(t, 1, &h, 2))
			return;
	}
}

static void st_dup_put_fail(struct st *t)
{
	struct tmem_handle h;
	int p, ret;

	if (!st_pool(t, 1, true, false, NULL, 0) ||
	    !st_pool(t, 1, false, false, NULL, 1))
		return;
	for (p = 0; p < 2; p++) {
		h = st_h(p, 9, 3);
		if (!st_put(t, 1, &h, 1))
			return;
		atomic_set(&st_fail_creates, 1);
		st_fill(t->want, &h, 2);
		ret = tmem_put(t->store, 1, &h, t->want);
		if (st_bad(t, ret != -TMEM_ENOMEM,
			   "put whose data could not be made returned %d, want %d",
			   ret, -TMEM_ENOMEM) ||
		    !st_miss(t, 1, &h))
			return;
	}
	if (!st_stat(t, dup_put_flushes, 2) || !st_stat(t, put_failures, 2) ||
	    !st_stat(t, objects, 0))
		return;
	st_live_is(t, 0);
}

static void st_flush_page(struct st *t)
{
	struct tmem_handle h = st_h(0, 3, 1), other = st_h(0, 3, 2);
	struct tmem_handle nobj = st_h(0, 99, 1);
	int ret;

	if (!st_pool(t, 1, true, false, NULL, 0) || !st_put(t, 1, &h, 1) ||
	    !st_put(t, 1, &other, 1))
		return;
	ret = tmem_flush_page(t->store, 1, &h);
	if (!st_eq(t, "flush_page of a stored page", ret, 1) ||
	    !st_miss(t, 1, &h) || !st_hit(t, 1, &other, 1))
		return;
	ret = tmem_flush_page(t->store, 1, &h);
	if (!st_eq(t, "flush_page of an absent page", ret, 1))
		return;
	ret = tmem_flush_page(t->store, 1, &nobj);
	if (!st_eq(t, "flush_page in an absent object", ret, 1) ||
	    !st_stat(t, flushed_pages, 1) || !st_stat(t, flush_pages, 3))
		return;
	st_live_is(t, 1);
}

static void st_flush_object(struct st *t)
{
	struct tmem_handle h, b = st_h(0, 2, 0);
	int i, ret;

	if (!st_pool(t, 1, true, false, NULL, 0))
		return;
	/* More pages than one batch of the flush. */
	for (i = 0; i < 200; i++) {
		h = st_h(0, 1, i == 199 ? ~0U : i * 1000);
		if (!st_put(t, 1, &h, 1))
			return;
	}
	for (i = 0; i < 3; i++) {
		b.index = i;
		if (!st_put(t, 1, &b, 1))
			return;
	}
	if (!st_stat(t, objects, 2))
		return;
	ret = tmem_flush_object(t->store, 1, &h);
	if (!st_eq(t, "flush_object", ret, 1) || !st_stat(t, objects, 1) ||
	    !st_stat(t, pers_pages, 3) || !st_stat(t, flushed_pages, 200) ||
	    !st_live_is(t, 3))
		return;
	for (i = 0; i < 200; i += 37) {
		h = st_h(0, 1, i * 1000);
		if (!st_miss(t, 1, &h))
			return;
	}
	for (i = 0; i < 3; i++) {
		b.index = i;
		if (!st_hit(t, 1, &b, 1))
			return;
	}
	h = st_h(0, 77, 0);
	ret = tmem_flush_object(t->store, 1, &h);
	st_eq(t, "flush_object of an absent object", ret, 1);
}

static void st_destroy_pool(struct st *t)
{
	struct tmem_handle h;
	int p, i, ret;

	if (!st_pool(t, 1, false, false, NULL, 0) ||
	    !st_pool(t, 1, true, false, NULL, 1))
		return;
	for (p = 0; p < 2; p++) {
		for (i = 0; i < 300; i++) {
			h = st_h(p, i % 10, i);
			if (!st_put(t, 1, &h, 1))
				return;
		}
	}
	if (!st_live_is(t, 600) || !st_stat(t, objects, 20))
		return;
	for (p = 0; p < 2; p++) {
		ret = tmem_destroy_pool(t->store, 1, p);
		if (!st_eq(t, "destroy_pool", ret, 1))
			return;
	}
	if (!st_live_is(t, 0) || !st_stat(t, eph_pages, 0) ||
	    !st_stat(t, pers_pages, 0) || !st_stat(t, objects, 0) ||
	    !st_stat(t, pools, 0))
		return;
	ret = tmem_destroy_pool(t->store, 1, 0);
	if (!st_eq(t, "destroy_pool of a destroyed pool", ret, 0))
		return;
	h = st_h(0, 1, 1);
	ret = tmem_get(t->store, 1, &h, t->page);
	if (!st_eq(t, "get in a destroyed pool", ret, -TMEM_ENODEV))
		return;
	/* The id is free again. */
	st_pool(t, 1, true, false, NULL, 0);
}

/* Every page operation on (node, pool_id) must say -TMEM_ENODEV. */
static bool st_nodev(struct st *t, u8 node, u32 pool_id);

/*
 * With tagged ids a pool's id is never given again: a pool made in the
 * slot of a destroyed one, or after its client was declared gone, has
 * another id, and the old id names nothing, not the pool in its slot.
 * Joining a shared pool again gives the same id.
 */
static void st_tagged_ids(struct st *t)
{
	static const u64 u[2] = { 0x7a66, 1 };
	int a, b, c, d, s;

	tmem_store_tag_ids(t->store);
	a = tmem_new_pool(t->store, 1, tmem_pool_flags(true, false), NULL);
	b = tmem_new_pool(t->store, 1, tmem_pool_flags(false, false), NULL);
	if (st_bad(t, a < 0 || b < 0 || a % TMEM_MAX_POOLS_PER_CLIENT != 0 ||
		   b % TMEM_MAX_POOLS_PER_CLIENT != 1 || a == 0 || a == b,
		   "tagged pools %d and %d: want slots 0 and 1, tags above", a, b))
		return;
	if (!st_eq(t, "destroy_pool(a)", tmem_destroy_pool(t->store, 1, a), 1))
		return;
	c = tmem_new_pool(t->store, 1, tmem_pool_flags(false, false), NULL);
	if (st_bad(t, c % TMEM_MAX_POOLS_PER_CLIENT != 0 || c == a,
		   "pool %d in the slot of destroyed %d: want slot 0, a new id",
		   c, a) ||
	    !st_nodev(t, 1, a) ||
	    !st_eq(t, "destroy_pool(a) again", tmem_destroy_pool(t->store, 1, a), 0) ||
	    !st_nodev(t, 1, a ^ 1) || !st_nodev(t, 2, b))
		return;
	if (!st_eq(t, "destroy_client", tmem_destroy_client(t->store, 1), 2))
		return;
	d = tmem_new_pool(t->store, 1, tmem_pool_flags(true, false), NULL);
	if (st_bad(t, d == b || d == c || d < 0,
		   "pool %d after the client went: want an id not %d or %d",
		   d, b, c) ||
	    !st_nodev(t, 1, b) || !st_nodev(t, 1, c) ||
	    !st_eq(t, "auth", tmem_auth_shared(t->store, 1, u, true), 0))
		return;
	s = tmem_new_pool(t->store, 1, tmem_pool_flags(false, true), u);
	st_bad(t, s < 0 || s == d ||
	       tmem_new_pool(t->store, 1, tmem_pool_flags(false, true), u) != s,
	       "shared pool %d: joining again gave another id", s);
}

static bool st_nodev(struct st *t, u8 node, u32 pool_id)
{
	struct tmem_handle h = st_h(pool_id, 1, 1);
	int ret[4];

	st_fill(t->want, &h, 1);
	ret[0] = tmem_put(t->store, node, &h, t->want);
	ret[1] = tmem_get(t->store, node, &h, t->page);
	ret[2] = tmem_flush_page(t->store, node, &h);
	ret[3] = tmem_flush_object(t->store, node, &h);
	return !st_bad(t, ret[0] != -TMEM_ENODEV || ret[1] != -TMEM_ENODEV ||
		       ret[2] != -TMEM_ENODEV || ret[3] != -TMEM_ENODEV,
		       "node %u pool %u: put/get/flush_page/flush_object returned %d/%d/%d/%d, want %d",
		       node, pool_id, ret[0], ret[1], ret[2], ret[3],
		       -TMEM_ENODEV);
}

static void st_unknown_pool(struct st *t)
{
	static const u32 ids[] = { 0, 1, 15, 16, 17, 255, 0x80000000u, ~0U };
	int i, ret;

	/* A client the store has never heard of. */
	if (!st_nodev(t, 3, 0))
		return;
	if (!st_pool(t, 3, true, false, NULL, 0))
		return;
	for (i = 1; i < ARRAY_SIZE(ids); i++) {
		if (!st_nodev(t, 3, ids[i]))
			return;
	}
	/* Another client's pool 0 is not this one's. */
	if (!st_nodev(t, 4, 0))
		return;
	for (i = 1; i < ARRAY_SIZE(ids); i++) {
		ret = tmem_destroy_pool(t->store, 3, ids[i]);
		if (st_bad(t, ret != 0, "destroy_pool(%u) of no pool returned %d, want 0",
			   ids[i], ret))
			return;
	}
	if (!st_stat(t, pools, 1) || !st_stat(t, objects, 0))
		return;
	st_live_is(t, 0);
}

static void st_pool_limit(struct st *t)
{
	static const u64 uuid[2] = { 0x11, 0x22 };
	int i;

	for (i = 0; i < TMEM_MAX_POOLS_PER_CLIENT; i++) {
		if (!st_pool(t, 1, i & 1, false, NULL, i))
			return;
	}
	if (tmem_auth_shared(t->store, 1, uuid, true) ||
	    !st_pool(t, 1, false, false, NULL, -TMEM_EPERM) ||
	    !st_pool(t, 1, true, false, NULL, -TMEM_EPERM) ||
	    !st_pool(t, 1, false, true, uuid, -TMEM_EPERM) ||
	    !st_stat(t, pools, 16))
		return;
	/* Other clients have slots of their own. */
	if (!st_pool(t, 2, false, false, NULL, 0) ||
	    !st_eq(t, "destroy_pool(5)", tmem_destroy_pool(t->store, 1, 5), 1) ||
	    !st_pool(t, 1, true, false, NULL, 5))
		return;
	st_pool(t, 1, true, false, NULL, -TMEM_EPERM);
}

static void st_bad_flags(struct st *t)
{
	const u32 v1 = (u32)TMEM_SPEC_VERSION << TMEM_POOL_VERSION_SHIFT;
	const u32 flags[] = {
		0,					/* version 0 */
		TMEM_POOL_PERSIST,			/* version 0 */
		2u << TMEM_POOL_VERSION_SHIFT,		/* version 2 */
		0xffu << TMEM_POOL_VERSION_SHIFT,
		v1 | (1u << TMEM_POOL_PAGESIZE_SHIFT),	/* 8 KiB pages */
		v1 | (0xfu << TMEM_POOL_PAGESIZE_SHIFT),
		v1 | TMEM_POOL_PRECOMPRESSED,
		v1 | 0x8,				/* bit 3 */
		v1 | 0x100,				/* reserved */
		v1 | 0x800000,				/* reserved */
		v1 | TMEM_POOL_RESERVED_BITS,
		v1 | TMEM_POOL_SHARED | TMEM_POOL_PERSIST,
		~0U,
	};
	static const u64 uuid[2] = { 1, 2 };
	struct tmem_client_stats cs;
	int i, ret;

	if (tmem_auth_shared(t->store, 1, uuid, true))
		return;
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		ret = tmem_new_pool(t->store, 1, flags[i], uuid);
		if (st_bad(t, ret != -TMEM_EPERM,
			   "new_pool(flags %#x) returned %d, want %d",
			   flags[i], ret, -TMEM_EPERM))
			return;
	}
	tmem_client_stats(t->store, 1, &cs);
	if (!st_eq(t, "client pools", cs.pools, 0) || !st_stat(t, pools, 0))
		return;
	/* The same flags, right, are taken. */
	st_pool(t, 1, false, false, NULL, 0);
}

/* tmem_auth_list() into a buffer of @size gives @want. */
static bool st_auth_is(struct st *t, size_t size, const char *want)
{
	char buf[128];
	int len = tmem_auth_list(t->store, buf, size);

	return !st_bad(t, len != strlen(want) || strcmp(buf, want),
		       "auth list (%zu bytes) \"%s\", want \"%s\"", size, buf,
		       want);
}

static void st_shared(struct st *t)
{
	static const u64 u[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };
	static const u64 v[2] = { 0x0123456789abcdefULL, 0x1 };
	struct tmem_handle ha = st_h(0, 8, 8), hb = st_h(1, 8, 8);
	struct tmem_handle ha2 = st_h(0, 8, 9), hb2 = st_h(1, 8, 9);
	struct tmem_client_stats cs;

	/* Client 1 must be authorised to create it too. */
	if (!st_pool(t, 1, false, true, u, -TMEM_EPERM) ||
	    tmem_auth_shared(t->store, 1, u, true) ||
	    !st_pool(t, 1, false, true, u, 0) ||
	    !st_pool(t, 1, false, true, v, -TMEM_EPERM) ||
	    !st_stat(t, shared_pools, 1) || !st_put(t, 1, &ha, 1))
		return;

	/* Client 2: not authorised, refused; then authorised, joins. */
	if (!st_pool(t, 2, false, false, NULL, 0) ||
	    !st_pool(t, 2, false, true, u, -TMEM_EPERM) ||
	    tmem_auth_shared(t->store, 2, u, true) ||
	    !st_pool(t, 2, false, true, u, 1) ||
	    !st_pool(t, 2, false, true, u, 1) ||
	    !st_stat(t, shared_pools, 1) || !st_stat(t, pools, 2))
		return;
	/* Listed as the uuid's bytes: each half little endian. */
	if (!st_auth_is(t, 128, "1 efcdab89-6745-2301-1032-547698badcfe\n"
			"2 efcdab89-6745-2301-1032-547698badcfe\n") ||
	    !st_auth_is(t, 41, "1 efcdab89-6745-2301-1032-547698badcfe\n") ||
	    !st_auth_is(t, 39, ""))
		return;

	/* The same page, seen by both; shared gets are not exclusive. */
	if (!st_hit_as(t, 2, &hb, &ha, 1) || !st_hit_as(t, 2, &hb, &ha, 1) ||
	    !st_hit(t, 1, &ha, 1))
		return;
	if (!st_put(t, 2, &hb2, 1) || !st_hit_as(t, 1, &ha2, &hb2, 1))
		return;
	tmem_client_stats(t->store, 2, &cs);
	if (!st_eq(t, "client 2 eph_pages", cs.eph_pages, 1) ||
	    !st_eq(t, "client 2 pools", cs.pools, 2))
		return;

	/*
	 * A sharer gone from the network empties the pool for everyone (its
	 * flushes may never come), and stays in it.
	 */
	if (!st_eq(t, "gone_shared(2)", tmem_client_gone_shared(t->store, 2), 1) ||
	    !st_stat(t, shared_emptied, 1) || !st_miss(t, 1, &ha) ||
	    !st_miss(t, 2, &hb2) || !st_live_is(t, 0) ||
	    !st_eq(t, "gone_shared(3)", tmem_client_gone_shared(t->store, 3), 0) ||
	    !st_put(t, 1, &ha, 1) || !st_put(t, 2, &hb2, 1))
		return;

	/* Withdrawn authorisation does not throw it out; leaving does. */
	if (tmem_auth_shared(t->store, 2, u, false) ||
	    !st_hit_as(t, 2, &hb, &ha, 1) ||
	    !st_eq(t, "destroy_pool by client 2", tmem_destroy_pool(t->store, 2, 1), 1) ||
	    !st_eq(t, "get by client 2 after leaving", tmem_get(t->store, 2, &hb, t->page),
		   -TMEM_ENODEV) ||
	    !st_hit(t, 1, &ha, 1) || !st_live_is(t, 2) ||
	    !st_pool(t, 2, false, true, u, -TMEM_EPERM) ||
	    !st_auth_is(t, 128, "1 efcdab89-6745-2301-1032-547698badcfe\n"))
		return;

	/* The last one out destroys it. */
	if (!st_eq(t, "destroy_pool by client 1", tmem_destroy_pool(t->store, 1, 0), 1) ||
	    !st_stat(t, shared_pools, 0) || !st_stat(t, eph_pages, 0))
		return;
	st_live_is(t, 0);
}

static void st_shared_persistent(struct st *t)
{
	static const u64 u[2] = { 5, 6 };

	if (tmem_auth_shared(t->store, 1, u, true) ||
	    !st_pool(t, 1, true, true, u, -TMEM_EPERM))
		return;
	st_stat(t, pools, 0);
}

static void st_lru(struct st *t)
{
	static const u64 u[2] = { 7, 7 };
	struct tmem_handle e[6], p[2], s[4];
	unsigned long n;
	int i;

	for (i = 0; i < 6; i++)
		e[i] = st_h(0, 1, i);
	for (i = 0; i < 2; i++)
		p[i] = st_h(1, 1, i);
	for (i = 0; i < 4; i++)
		s[i] = st_h(2, 1, i);
	if (!st_pool(t, 1, false, false, NULL, 0) ||
	    !st_pool(t, 1, true, false, NULL, 1) ||
	    tmem_auth_shared(t->store, 1, u, true) ||
	    !st_pool(t, 1, false, true, u, 2))
		return;

	/* Oldest first: e0 p0 e1 e2 p1 e3 e4 e5, then e1 again. */
	if (!st_put(t, 1, &e[0], 1) || !st_put(t, 1, &p[0], 1) ||
	    !st_put(t, 1, &e[1], 1) || !st_put(t, 1, &e[2], 1) ||
	    !st_put(t, 1, &p[1], 1) || !st_put(t, 1, &e[3], 1) ||
	    !st_put(t, 1, &e[4], 1) || !st_put(t, 1, &e[5], 1) ||
	    !st_put(t, 1, &e[1], 2))
		return;
	/* Ephemeral, oldest first: e0 e2 e3 e4 e5 e1. */
	n = tmem_evict(t->store, 2);
	if (!st_eq(t, "evict(2)", n, 2) || !st_stat(t, eph_pages, 4))
		return;
	n = tmem_evict(t->store, 2);
	if (!st_eq(t, "evict(2) again", n, 2) || !st_stat(t, eph_pages, 2) ||
	    !st_stat(t, pers_pages, 2))
		return;
	for (i = 0; i < 5; i++) {
		if (i != 1 && !st_miss(t, 1, &e[i]))
			return;
	}
	if (!st_hit(t, 1, &e[5], 1) || !st_hit(t, 1, &e[1], 2))
		return;

	/* A shared get makes a page young again. */
	for (i = 0; i < 4; i++) {
		if (!st_put(t, 1, &s[i], 1))
			return;
	}
	if (!st_hit(t, 1, &s[0], 1))
		return;
	n = tmem_evict(t->store, 1);
	if (!st_eq(t, "evict(1) of shared pages", n, 1) ||
	    !st_miss(t, 1, &s[1]) || !st_hit(t, 1, &s[0], 1))
		return;

	/* Everything evictable, and nothing persistent. */
	n = tmem_evict(t->store, 100);
	if (!st_eq(t, "evict(100)", n, 3) || !st_stat(t, eph_pages, 0) ||
	    !st_eq(t, "evict(1) of nothing", tmem_evict(t->store, 1), 0) ||
	    !st_stat(t, evictions, 8) || !st_stat(t, pers_pages, 2) ||
	    !st_stat(t, objects, 1) || !st_live_is(t, 2))
		return;
	for (i = 0; i < 4; i++) {
		if (!st_miss(t, 1, &s[i]))
			return;
	}
	if (!st_hit(t, 1, &p[0], 1))
		return;
	st_hit(t, 1, &p[1], 1);
}

static void st_client_gone(struct st *t)
{
	struct tmem_client_stats cs;
	struct tmem_handle h;
	int node, p, i;

	for (node = 1; node <= 2; node++) {
		if (!st_pool(t, node, false, false, NULL, 0) ||
		    !st_pool(t, node, true, false, NULL, 1))
			return;
		for (p = 0; p < 2; p++) {
			for (i = 0; i < 3 + 4 * node; i++) {
				h = st_h(p, node, i);
				if (!st_put(t, node, &h, node))
					return;
			}
		}
	}
	if (!st_live_is(t, 2 * 7 + 2 * 11) ||
	    !st_eq(t, "destroy_client(1)", tmem_destroy_client(t->store, 1), 2) ||
	    !st_live_is(t, 2 * 11) || !st_stat(t, pools, 2))
		return;
	tmem_client_stats(t->store, 1, &cs);
	if (!st_eq(t, "client 1 pools", cs.pools, 0) ||
	    !st_eq(t, "client 1 eph_pages", cs.eph_pages, 0) ||
	    !st_eq(t, "client 1 pers_pages", cs.pers_pages, 0))
		return;
	tmem_client_stats(t->store, 2, &cs);
	if (!st_eq(t, "client 2 pools", cs.pools, 2) ||
	    !st_eq(t, "client 2 eph_pages", cs.eph_pages, 11) ||
	    !st_eq(t, "client 2 pers_pages", cs.pers_pages, 11))
		return;
	for (p = 0; p < 2; p++) {
		for (i = 0; i < 11; i++) {
			h = st_h(p, 2, i);
			if (!st_hit(t, 2, &h, 2))
				return;
		}
	}
	h = st_h(0, 1, 0);
	if (!st_eq(t, "get by a gone client", tmem_get(t->store, 1, &h, t->page),
		   -TMEM_ENODEV) ||
	    !st_eq(t, "destroy_client of an unknown node",
		   tmem_destroy_client(t->store, 9), 0))
		return;
	/* The gone client may come back. */
	st_pool(t, 1, true, false, NULL, 0);
}

/*
 * The grace period's end frees a client's pools only if no request of it
 * came since it went away: a get, or a new pool, keeps them.
 */
static void st_client_away(struct st *t)
{
	struct tmem_handle h = st_h(0, 1, 1);

	if (!st_pool(t, 1, true, false, NULL, 0) || !st_put(t, 1, &h, 1))
		return;
	tmem_client_away(t->store, 1);
	if (!st_hit(t, 1, &h, 1) ||
	    !st_eq(t, "destroy_client_away after a get",
		   tmem_destroy_client_away(t->store, 1), -EBUSY) ||
	    !st_hit(t, 1, &h, 1))
		return;
	tmem_client_away(t->store, 1);
	if (!st_pool(t, 1, false, false, NULL, 1) ||
	    !st_eq(t, "destroy_client_away after a new pool",
		   tmem_destroy_client_away(t->store, 1), -EBUSY))
		return;
	tmem_client_away(t->store, 1);
	if (!st_eq(t, "destroy_client_away", tmem_destroy_client_away(t->store, 1), 2) ||
	    !st_nodev(t, 1, 0) || !st_live_is(t, 0))
		return;
	st_eq(t, "destroy_client_away of an unknown node",
	      tmem_destroy_client_away(t->store, 9), 0);
}

/* Races ------------------------------------------------------------------- */

#define ST_OBJS		4
#define ST_IDX		16
#define ST_HANDLES	(ST_OBJS * ST_IDX)
#define ST_WORKERS	4
#define ST_RACE_MS	2000

struct st_slot {
	struct mutex lock;		/* held across each operation */
	u32 ver;			/* stored version, 0: absent */
	u32 last;			/* last version put */
};

struct st_race {
	struct tmem_store *store;
	u32 pool_id;
	bool persistent;
	bool evicting;			/* pages may vanish */
	struct rw_semaphore obj_lock[ST_OBJS];	/* write for flush_object */
	struct st_slot slot[ST_HANDLES];
	atomic_long_t puts, put_failures, hits, misses, flushes, obj_flushes;
	atomic_long_t evicted;
};

struct st_worker {
	struct st_race *r;
	struct task_struct *task;
	struct rnd_state rnd;
	bool evictor;
	unsigned long ops;
	void *page, *want;
	char err[128];
};

static struct tmem_handle st_race_h(struct st_race *r, int n)
{
	return st_h(r->pool_id, 0x1000 + n / ST_IDX, (n % ST_IDX) * 3);
}

/* One operation on the slot's handle; its locks held. */
static void st_race_op(struct st_worker *w, int n, u32 op)
{
	struct st_race *r = w->r;
	struct st_slot *slot = &r->slot[n];
	struct tmem_handle h = st_race_h(r, n);
	int ret, at;

	if (op < 40) {
		st_fill(w->want, &h, ++slot->last);
		ret = tmem_put(r->store, 1, &h, w->want);
		if (ret == 1) {
			slot->ver = slot->last;
			atomic_long_inc(&r->puts);
		} else if (ret == -TMEM_ENOMEM) {
			slot->ver = 0;	/* a failed put leaves nothing */
			atomic_long_inc(&r->put_failures);
		} else {
			snprintf(w->err, sizeof(w->err), "put returned %d", ret);
		}
	} else if (op < 90) {
		memset(w->page, 0x5a, TMEM_PAGE_SIZE);
		ret = tmem_get(r->store, 1, &h, w->page);
		if (ret == 1 && !slot->ver) {
			snprintf(w->err, sizeof(w->err),
				 "get of index %u found a page that should be gone",
				 h.index);
		} else if (ret == 1) {
			st_fill(w->want, &h, slot->ver);
			at = st_first_diff(w->page, w->want);
			if (at >= 0)
				snprintf(w->err, sizeof(w->err),
					 "get of oid %llx index %u: not version %u, first wrong byte at %d",
					 h.oid[0], h.index, slot->ver, at);
			if (!r->persistent)
				slot->ver = 0;
			atomic_long_inc(&r->hits);
		} else if (ret == 0 && slot->ver && !r->evicting) {
			snprintf(w->err, sizeof(w->err),
				 "get of oid %llx index %u missed version %u",
				 h.oid[0], h.index, slot->ver);
		} else if (ret == 0) {
			slot->ver = 0;
			atomic_long_inc(&r->misses);
		} else {
			snprintf(w->err, sizeof(w->err), "get returned %d", ret);
		}
	} else {
		ret = tmem_flush_page(r->store, 1, &h);
		if (ret != 1)
			snprintf(w->err, sizeof(w->err),
				 "flush_page returned %d", ret);
		slot->ver = 0;
		atomic_long_inc(&r->flushes);
	}
}

static void st_race_step(struct st_worker *w)
{
	struct st_race *r = w->r;
	u32 op = prandom_u32_state(&w->rnd) % 100;
	int n = prandom_u32_state(&w->rnd) % ST_HANDLES;
	int o = n / ST_IDX, i, ret;
	struct tmem_handle h;

	if (op < 4) {
		/* Flush a whole object: every one of its handles held. */
		h = st_race_h(r, n);
		down_write(&r->obj_lock[o]);
		ret = tmem_flush_object(r->store, 1, &h);
		if (ret != 1)
			snprintf(w->err, sizeof(w->err),
				 "flush_object returned %d", ret);
		for (i = 0; i < ST_IDX; i++)
			r->slot[o * ST_IDX + i].ver = 0;
		up_write(&r->obj_lock[o]);
		atomic_long_inc(&r->obj_flushes);
	} else {
		down_read(&r->obj_lock[o]);
		mutex_lock(&r->slot[n].lock);
		st_race_op(w, n, op);
		mutex_unlock(&r->slot[n].lock);
		up_read(&r->obj_lock[o]);
	}
	w->ops++;
}

static int st_worker_fn(void *arg)
{
	struct st_worker *w = arg;

	while (!kthread_should_stop()) {
		if (w->err[0]) {
			msleep(20);
			continue;
		}
		if (w->evictor) {
			atomic_long_add(tmem_evict(w->r->store, 2),
					&w->r->evicted);
			w->ops++;
			usleep_range(1000, 2000);
		} else {
			st_race_step(w);
		}
		cond_resched();
	}
	return 0;
}

/*
 * Run ST_WORKERS threads on the race's pool for ST_RACE_MS, plus an
 * evictor if the race is evicting; then check every handle.
 */
static void st_race_run(struct st *t, struct st_race *r)
{
	struct st_worker *w;
	int nr = ST_WORKERS + r->evicting, i, started = 0;
	unsigned long ops = 0;
	struct tmem_handle h;

	for (i = 0; i < ST_OBJS; i++)
		init_rwsem(&r->obj_lock[i]);
	for (i = 0; i < ST_HANDLES; i++)
		mutex_init(&r->slot[i].lock);

	w = kcalloc(nr, sizeof(*w), GFP_KERNEL);
	if (st_bad(t, !w, "out of memory"))
		return;
	for (i = 0; i < nr; i++) {
		w[i].r = r;
		w[i].evictor = i == ST_WORKERS;
		prandom_seed_state(&w[i].rnd, 0x7e57 + i);
		w[i].page = kmalloc(TMEM_PAGE_SIZE, GFP_KERNEL);
		w[i].want = kmalloc(TMEM_PAGE_SIZE, GFP_KERNEL);
		if (st_bad(t, !w[i].page || !w[i].want, "out of memory"))
			goto out;
	}
	for (i = 0; i < nr; i++) {
		w[i].task = kthread_run(st_worker_fn, &w[i], "tmem_st/%d", i);
		if (st_bad(t, IS_ERR(w[i].task), "kthread_run: %ld",
			   PTR_ERR(w[i].task)))
			break;
		started++;
	}
	if (started == nr)
		msleep(ST_RACE_MS);
	for (i = 0; i < started; i++)
		kthread_stop(w[i].task);
	if (started < nr)
		goto out;

	for (i = 0; i < nr; i++) {
		if (st_bad(t, w[i].err[0], "thread %d: %s", i, w[i].err) ||
		    st_bad(t, !w[i].ops, "thread %d did nothing", i))
			goto out;
		ops += w[i].ops;
	}
	pr_info("selftest: %s: %lu operations: %ld puts, %ld failed puts, %ld hits, %ld misses, %ld page flushes, %ld object flushes, %ld evicted\n",
		t->name, ops, atomic_long_read(&r->puts),
		atomic_long_read(&r->put_failures), atomic_long_read(&r->hits),
		atomic_long_read(&r->misses), atomic_long_read(&r->flushes),
		atomic_long_read(&r->obj_flushes), atomic_long_read(&r->evicted));
	if (st_bad(t, !atomic_long_read(&r->hits) || !atomic_long_read(&r->flushes) ||
		   !atomic_long_read(&r->obj_flushes),
		   "a kind of operation never happened") ||
	    st_bad(t, r->evicting && !atomic_long_read(&r->evicted),
		   "nothing was evicted"))
		goto out;

	/* Every handle holds what the threads last left in it. */
	for (i = 0; i < ST_HANDLES; i++) {
		h = st_race_h(r, i);
		if (r->slot[i].ver && !r->evicting) {
			if (!st_hit(t, 1, &h, r->slot[i].ver))
				goto out;
		} else if (!r->slot[i].ver) {
			if (!st_miss(t, 1, &h))
				goto out;
		}
	}
out:
	for (i = 0; i < nr; i++) {
		kfree(w[i].page);
		kfree(w[i].want);
	}
	kfree(w);
}

static void st_concurrency(struct st *t)
{
	struct st_race *r;
	int i, present = 0;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (st_bad(t, !r, "out of memory"))
		return;
	r->store = t->store;
	r->persistent = true;
	if (!st_pool(t, 1, true, false, NULL, 0))
		goto out;
	st_race_run(t, r);
	if (t->failed)
		goto out;
	for (i = 0; i < ST_HANDLES; i++)
		present += !!r->slot[i].ver;
	if (!st_stat(t, pers_pages, present) || !st_live_is(t, present) ||
	    !st_eq(t, "destroy_pool", tmem_destroy_pool(t->store, 1, 0), 1) ||
	    !st_stat(t, objects, 0))
		goto out;
	st_live_is(t, 0);
out:
	kfree(r);
}

static void st_evict_race(struct st *t)
{
	struct tmem_handle h;
	struct tmem_stats s;
	struct st_race *r;
	unsigned long n;
	int i;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (st_bad(t, !r, "out of memory"))
		return;
	r->store = t->store;
	r->evicting = true;
	if (!st_pool(t, 1, false, false, NULL, 0) ||
	    !st_pool(t, 1, true, false, NULL, 1))
		goto out;
	/* Persistent pages that must come through untouched. */
	for (i = 0; i < 32; i++) {
		h = st_h(1, i % 4, i);
		if (!st_put(t, 1, &h, 1))
			goto out;
	}
	st_race_run(t, r);
	if (t->failed)
		goto out;
	tmem_stats_snapshot(t->store, &s);
	n = tmem_evict(t->store, ULONG_MAX);
	if (!st_eq(t, "evict(all)", n, s.eph_pages) ||
	    !st_stat(t, eph_pages, 0) || !st_stat(t, pers_pages, 32) ||
	    !st_live_is(t, 32))
		goto out;
	for (i = 0; i < 32; i++) {
		h = st_h(1, i % 4, i);
		if (!st_hit(t, 1, &h, 1))
			goto out;
	}
	st_stat(t, objects, 4);
out:
	kfree(r);
}

/* A put refused with -TMEM_ENOMEM (and nothing left under its handle). */
static bool st_put_refused(struct st *t, u8 node, const struct tmem_handle *h,
			   u32 ver)
{
	int ret;

	st_fill(t->want, h, ver);
	ret = tmem_put(t->store, node, h, t->want);
	return !st_bad(t, ret != -TMEM_ENOMEM,
		       "put(node %u pool %u index %u) at a limit returned %d, want %d",
		       node, h->pool_id, h->index, ret, -TMEM_ENOMEM);
}

/* At its quota a client's ephemeral puts evict its own oldest pages. */
static void st_quota_lru(struct st *t)
{
	int i;

	if (!st_pool(t, 1, false, false, NULL, 0) ||
	    !st_pool(t, 2, false, false, NULL, 0))
		return;
	tmem_set_limits(t->store, 0, 10, 0);
	for (i = 0; i < 5; i++) {
		struct tmem_handle a = st_h(0, 1, i), b = st_h(0, 2, i);

		if (!st_put(t, 1, &a, 1) || !st_put(t, 2, &b, 1))
			return;
	}
	for (i = 5; i < 15; i++) {
		struct tmem_handle a = st_h(0, 1, i);

		if (!st_put(t, 1, &a, 1))
			return;
	}
	if (!st_stat(t, evictions, 5) || !st_stat(t, eph_pages, 15) ||
	    !st_stat(t, reject_quota, 0))
		return;
	for (i = 0; i < 15; i++) {
		struct tmem_handle a = st_h(0, 1, i);

		if (i < 5 ? !st_miss(t, 1, &a) : !st_hit(t, 1, &a, 1))
			return;
	}
	for (i = 0; i < 5; i++) {
		struct tmem_handle b = st_h(0, 2, i);

		if (!st_hit(t, 2, &b, 1))
			return;
	}
}

/*
 * At its quota a client's persistent put evicts its ephemeral pages, then
 * is refused; its persistent pages are all kept.  A duplicate put refused
 * there leaves no stale page.
 */
static void st_quota_persistent(struct st *t)
{
	struct tmem_handle h;
	int i;

	if (!st_pool(t, 1, false, false, NULL, 0) ||
	    !st_pool(t, 1, true, false, NULL, 1))
		return;
	tmem_set_limits(t->store, 0, 8, 0);
	for (i = 0; i < 4; i++) {
		h = st_h(0, 1, i);
		if (!st_put(t, 1, &h, 1))
			return;
		h = st_h(1, 1, i);
		if (!st_put(t, 1, &h, 1))
			return;
	}
	for (i = 4; i < 8; i++) {
		h = st_h(1, 1, i);
		if (!st_put(t, 1, &h, 1))
			return;
	}
	h = st_h(1, 1, 8);
	if (!st_stat(t, eph_pages, 0) || !st_stat(t, evictions, 4) ||
	    !st_put_refused(t, 1, &h, 1) || !st_stat(t, reject_quota, 1) ||
	    !st_stat(t, pers_pages, 8) || !st_miss(t, 1, &h))
		return;
	for (i = 0; i < 8; i++) {
		h = st_h(1, 1, i);
		if (!st_hit(t, 1, &h, 1))
			return;
	}
	h = st_h(1, 1, 3);
	if (!st_put_refused(t, 1, &h, 2) || !st_miss(t, 1, &h) ||
	    !st_stat(t, pers_pages, 7))
		return;
	/* A higher quota lets puts in again. */
	tmem_set_limits(t->store, 0, 9, 0);
	if (!st_put(t, 1, &h, 3) || !st_hit(t, 1, &h, 3))
		return;
	h = st_h(1, 1, 8);
	if (st_put(t, 1, &h, 3))
		st_hit(t, 1, &h, 3);
}

/*
 * At the store's frame limit puts evict anyone's ephemeral pages, oldest
 * first; persistent puts are refused once none are left.
 */
static void st_frame_limit(struct st *t)
{
	struct tmem_handle h;
	int i;

	if (!st_pool(t, 1, false, false, NULL, 0) ||
	    !st_pool(t, 2, true, false, NULL, 0))
		return;
	tmem_set_limits(t->store, 6, 0, 0);
	for (i = 0; i < 10; i++) {
		h = st_h(0, 1, i);
		if (!st_put(t, 1, &h, 1))
			return;
	}
	if (!st_live_is(t, 6) || !st_stat(t, evictions, 4))
		return;
	for (i = 0; i < 6; i++) {
		h = st_h(0, 2, i);
		if (!st_put(t, 2, &h, 1))
			return;
	}
	h = st_h(0, 2, 6);
	if (!st_stat(t, eph_pages, 0) || !st_stat(t, evictions, 10) ||
	    !st_put_refused(t, 2, &h, 1) || !st_stat(t, reject_limit, 1) ||
	    !st_live_is(t, 6))
		return;
	for (i = 0; i < 6; i++) {
		h = st_h(0, 2, i);
		if (!st_hit(t, 2, &h, 1))
			return;
	}
}

/*
 * With less memory available than the machine keeps for itself, a put
 * evicts every ephemeral page, then is refused, persistent or not; the
 * persistent pages stay.  With the reserve gone, puts go in again.
 */
static void st_low_memory(struct st *t)
{
	struct tmem_handle h;
	int i;

	if (!st_pool(t, 1, false, false, NULL, 0) ||
	    !st_pool(t, 1, true, false, NULL, 1))
		return;
	for (i = 0; i < 20; i++) {
		h = st_h(0, 1, i);
		if (!st_put(t, 1, &h, 1))
			return;
		h = st_h(1, 1, i);
		if (!st_put(t, 1, &h, 1))
			return;
	}
	/* More than there is: the machine is always short of it. */
	tmem_set_limits(t->store, 0, 0, totalram_pages() + 1);
	h = st_h(1, 1, 20);
	if (!st_put_refused(t, 1, &h, 1) || !st_stat(t, eph_pages, 0) ||
	    !st_stat(t, evictions, 20) || !st_stat(t, reject_low_memory, 1) ||
	    !st_stat(t, pers_pages, 20) || !st_miss(t, 1, &h))
		return;
	h = st_h(0, 1, 20);
	if (!st_put_refused(t, 1, &h, 1) ||
	    !st_stat(t, reject_low_memory, 2) || !st_stat(t, reject_limit, 0))
		return;
	for (i = 0; i < 20; i++) {
		h = st_h(1, 1, i);
		if (!st_hit(t, 1, &h, 1))
			return;
	}
	tmem_set_limits(t->store, 0, 0, 0);
	h = st_h(1, 1, 20);
	if (st_put(t, 1, &h, 2))
		st_hit(t, 1, &h, 2);
}

/* Shares ------------------------------------------------------------------ */

/* The store's cap in page frames in the share cases. */
#define ST_CAP		64
/* The most same-filled pages a case puts while waiting for a refusal. */
#define ST_SHARE_PAGES	1024

static struct tmem_client_stats st_client(struct st *t, u8 node)
{
	struct tmem_client_stats cs;

	tmem_client_stats(t->store, node, &cs);
	return cs;
}

/* Put, or get back, pages @from..@to - 1 of object @oid at version @ver. */
static bool st_range(struct st *t, bool put, u8 node, u32 pool_id, u64 oid,
		     u32 from, u32 to, u32 ver)
{
	struct tmem_handle h;
	u32 i;

	for (i = from; i < to; i++) {
		h = st_h(pool_id, oid, i);
		if (put ? !st_put(t, node, &h, ver) : !st_hit(t, node, &h, ver))
			return false;
	}
	return true;
}

/* Every client's charge adds up to the store's, and @node's is @want. */
static bool st_charge_is(struct st *t, u8 node, u64 want)
{
	struct tmem_stats s;
	u64 sum = 0;
	int i;

	for (i = 0; i < TMEM_MAX_CLIENTS; i++)
		sum += st_client(t, i).charge_bytes;
	tmem_stats_snapshot(t->store, &s);
	return !st_bad(t, s.charge_bytes != sum,
		       "the store is charged %llu, its clients %llu together",
		       s.charge_bytes, sum) &&
	       !st_bad(t, st_client(t, node).charge_bytes != want,
		       "node %u charged %llu, want %llu", node,
		       st_client(t, node).charge_bytes, want);
}

/* Put at @h a page whose every word is @fill: no bytes of data. */
static int st_put_same(struct st *t, u8 node, const struct tmem_handle *h,
		       u32 fill)
{
	memset32(t->want, fill, TMEM_PAGE_SIZE / 4);
	return tmem_put(t->store, node, h, t->want);
}

static bool st_hit_same(struct st *t, u8 node, const struct tmem_handle *h,
			u32 fill)
{
	int ret = tmem_get(t->store, node, h, t->page);

	memset32(t->want, fill, TMEM_PAGE_SIZE / 4);
	return !st_bad(t, ret != 1 || memcmp(t->page, t->want, TMEM_PAGE_SIZE),
		       "get(node %u oid %llx index %u) of a page of %#x returned %d or other bytes",
		       node, h->oid[0], h->index, fill, ret);
}

/*
 * @node puts same-filled pages into its pool @pool_id at random indexes,
 * each in an object of its own, as hs[*@n] on (page i filled with i),
 * until a put is refused or ST_SHARE_PAGES are in.  Returns the last
 * put's result.
 */
static int st_fill_share(struct st *t, u8 node, u32 pool_id,
			 struct rnd_state *rs, struct tmem_handle *hs, int *n)
{
	int ret = 1;

	for (; *n < ST_SHARE_PAGES; (*n)++) {
		hs[*n] = st_h(pool_id, (u64)prandom_u32_state(rs) << 32 | *n,
			      prandom_u32_state(rs));
		ret = st_put_same(t, node, &hs[*n], *n);
		if (ret != 1)
			break;
	}
	return ret;
}

/* The share cases' limits: a cap of ST_CAP frames, half of it a share. */
static void st_share_limits(struct st *t)
{
	tmem_set_limits(t->store, ST_CAP, 0, 0);
	tmem_set_shares(t->store, 50, 0);
}

/* Those limits, and room for ST_SHARE_PAGES handles (NULL: none). */
static struct tmem_handle *st_share_start(struct st *t)
{
	struct tmem_handle *hs = kcalloc(ST_SHARE_PAGES, sizeof(*hs),
					 GFP_KERNEL);

	if (st_bad(t, !hs, "out of memory"))
		return NULL;
	st_share_limits(t);
	return hs;
}

/* @node's put returned @ret, refused at its share: within a put of it. */
static bool st_at_share(struct st *t, u8 node, int ret, u64 share)
{
	struct tmem_client_stats cs = st_client(t, node);
	u64 put = tmem_put_charge_max(0);

	return st_eq(t, "put past the share", ret, -TMEM_ENOMEM) &&
	       st_eq(t, "share_bytes", cs.share_bytes, share) &&
	       !st_bad(t, cs.charge_bytes > share ||
		       share - cs.charge_bytes >= put,
		       "node %u refused at %llu bytes of its share %llu: want within %llu",
		       node, cs.charge_bytes, share, put);
}

/*
 * Same-filled pages at random handles keep no data, but their
 * descriptors and indexes count: a client putting them is refused at its
 * share (half the cap), without evicting anyone's page; another client's
 * pages still go in and come back.  Flushes and destroys give every
 * charge back.
 */
static void st_share_same_filled(struct st *t)
{
	const u64 share = ST_CAP * PAGE_SIZE / 2;
	struct tmem_handle *hs;
	struct rnd_state rs;
	int i, n = 0, ret;
	u64 pool;

	hs = st_share_start(t);
	if (!hs)
		return;
	if (!st_pool(t, 1, true, false, NULL, 0) ||
	    !st_pool(t, 2, true, false, NULL, 0) ||
	    !st_pool(t, 2, false, false, NULL, 1))
		goto out;
	pool = st_client(t, 1).charge_bytes;
	if (!st_range(t, true, 2, 1, 2, 0, 4, 1))
		goto out;
	prandom_seed_state(&rs, 0x5a4e);
	ret = st_fill_share(t, 1, 0, &rs, hs, &n);
	if (!st_at_share(t, 1, ret, share) || !st_stat(t, reject_share, 1) ||
	    !st_stat(t, evictions, 0) || !st_stat(t, pers_pages, n) ||
	    st_bad(t, n < 8, "refused after %d pages", n))
		goto out;
	pr_info("selftest: %s: %d pages, %llu bytes charged of %llu\n",
		t->name, n, st_client(t, 1).charge_bytes, share);

	if (!st_range(t, true, 2, 0, 2, 0, 16, 1) ||
	    !st_range(t, false, 2, 0, 2, 0, 16, 1) ||
	    !st_range(t, false, 2, 1, 2, 0, 4, 1))
		goto out;
	for (i = 0; i < n; i++) {
		if (!st_hit_same(t, 1, &hs[i], i))
			goto out;
	}

	for (i = 0; i < n; i++)
		tmem_flush_object(t->store, 1, &hs[i]);
	if (!st_stat(t, pers_pages, 16) || !st_charge_is(t, 1, pool) ||
	    !st_eq(t, "client 1 objects", st_client(t, 1).objects, 0) ||
	    !st_eq(t, "destroy_client(1)", tmem_destroy_client(t->store, 1), 1) ||
	    !st_eq(t, "destroy_client(2)", tmem_destroy_client(t->store, 2), 2) ||
	    !st_charge_is(t, 1, 0) || !st_charge_is(t, 2, 0))
		goto out;
	st_stat(t, charge_bytes, 0);
out:
	kfree(hs);
}

/*
 * At its share a client's ephemeral puts evict its own oldest pages, and
 * so does its persistent put, not another client's.
 */
static void st_share_evicts_own(struct st *t)
{
	const u64 share = ST_CAP * PAGE_SIZE / 2;
	struct tmem_client_stats cs;
	struct tmem_handle h;
	struct tmem_stats s;

	st_share_limits(t);
	if (!st_pool(t, 1, false, false, NULL, 0) ||
	    !st_pool(t, 1, true, false, NULL, 1) ||
	    !st_pool(t, 2, false, false, NULL, 0) ||
	    !st_range(t, true, 2, 0, 2, 0, 4, 1) ||
	    !st_range(t, true, 1, 0, 1, 0, 40, 1))
		return;
	cs = st_client(t, 1);
	if (st_bad(t, cs.charge_bytes > share, "charged %llu past its share %llu",
		   cs.charge_bytes, share) ||
	    st_bad(t, !cs.eph_pages || cs.eph_pages >= 40,
		   "%llu of its 40 pages kept", cs.eph_pages) ||
	    !st_stat(t, evictions, 40 - cs.eph_pages) ||
	    !st_stat(t, reject_share, 0))
		return;
	tmem_stats_snapshot(t->store, &s);
	h = st_h(1, 1, 0);
	if (!st_put(t, 1, &h, 1) || !st_stat(t, reject_share, 0) ||
	    st_bad(t, st_client(t, 1).eph_pages >= cs.eph_pages,
		   "a persistent put at the share evicted none of its pages") ||
	    !st_stat(t, evictions, s.evictions + cs.eph_pages -
		     st_client(t, 1).eph_pages) ||
	    !st_range(t, false, 2, 0, 2, 0, 4, 1))
		return;
	h = st_h(0, 1, 0);
	if (!st_miss(t, 1, &h))
		return;
	h = st_h(0, 1, 39);
	st_hit(t, 1, &h, 1);
}

/*
 * A client's weight scales its share at run time: a higher one lets it
 * put more; a lower one refuses its next put and evicts nothing.
 */
static void st_share_weight(struct st *t)
{
	const u64 share = ST_CAP * PAGE_SIZE / 2;
	struct tmem_handle h, *hs;
	struct rnd_state rs;
	int i, n = 0, n1, ret;

	hs = st_share_start(t);
	if (!hs)
		return;
	if (!st_pool(t, 1, true, false, NULL, 0) ||
	    !st_eq(t, "weight", st_client(t, 1).weight, TMEM_WEIGHT_DEFAULT))
		goto out;
	prandom_seed_state(&rs, 0x3e16);
	ret = st_fill_share(t, 1, 0, &rs, hs, &n);
	if (!st_at_share(t, 1, ret, share))
		goto out;
	n1 = n;
	tmem_set_weight(t->store, 1, 150);
	ret = st_fill_share(t, 1, 0, &rs, hs, &n);
	if (!st_at_share(t, 1, ret, share * 3 / 2) ||
	    !st_stat(t, reject_share, 2) ||
	    st_bad(t, n < n1 + n1 / 4, "weight 150 let %d pages in after %d",
		   n - n1, n1))
		goto out;

	tmem_set_weight(t->store, 1, 50);
	h = st_h(0, ~0ULL, 1);
	if (!st_eq(t, "put at weight 50", st_put_same(t, 1, &h, 7),
		   -TMEM_ENOMEM) ||
	    !st_stat(t, reject_share, 3) || !st_stat(t, pers_pages, n) ||
	    !st_eq(t, "share at weight 50", st_client(t, 1).share_bytes,
		   share / 2))
		goto out;
	for (i = 0; i < n; i++) {
		if (!st_hit_same(t, 1, &hs[i], i))
			goto out;
	}
	/* Never past the cap; weights out of range are taken into it. */
	tmem_set_weight(t->store, 1, TMEM_WEIGHT_MAX + 1);
	if (!st_eq(t, "share at weight 1001", st_client(t, 1).share_bytes,
		   2 * share) ||
	    !st_eq(t, "weight 1001", st_client(t, 1).weight, TMEM_WEIGHT_MAX) ||
	    !st_eq(t, "put at weight 1000", st_put_same(t, 1, &h, 7), 1))
		goto out;
	tmem_set_weight(t->store, 1, 0);
	st_eq(t, "weight 0", st_client(t, 1).weight, 1);
out:
	kfree(hs);
}

/*
 * A put that needs a new object past its client's max_objects is refused;
 * its other objects, and other clients, go on; an object that goes makes
 * room.
 */
static void st_object_limit(struct st *t)
{
	struct tmem_handle h;
	int i;

	tmem_set_shares(t->store, 0, 4);
	if (!st_pool(t, 1, true, false, NULL, 0) ||
	    !st_pool(t, 1, false, false, NULL, 1) ||
	    !st_pool(t, 2, true, false, NULL, 0))
		return;
	for (i = 0; i < 4; i++) {
		h = st_h(i % 2, i, 0);
		if (!st_put(t, 1, &h, 1))
			return;
	}
	h = st_h(0, 9, 0);
	if (!st_put_refused(t, 1, &h, 1) || !st_stat(t, reject_objects, 1) ||
	    !st_eq(t, "client 1 objects", st_client(t, 1).objects, 4) ||
	    !st_stat(t, objects, 4) || !st_miss(t, 1, &h))
		return;
	h = st_h(0, 0, 1);
	if (!st_put(t, 1, &h, 1))
		return;
	for (i = 0; i < 4; i++) {
		if (!st_range(t, true, 2, 0, i, 0, 1, 1))
			return;
	}
	h = st_h(0, 4, 0);
	if (!st_put_refused(t, 2, &h, 1) || !st_stat(t, reject_objects, 2))
		return;

	/* A flushed object, an emptied one, and no limit make room. */
	h = st_h(0, 2, 0);
	if (!st_eq(t, "flush_object", tmem_flush_object(t->store, 1, &h), 1))
		return;
	h = st_h(0, 9, 0);
	if (!st_put(t, 1, &h, 1) || !st_hit(t, 1, &h, 1))
		return;
	h = st_h(1, 1, 0);
	if (!st_hit(t, 1, &h, 1))
		return;
	h = st_h(1, 10, 0);
	if (!st_put(t, 1, &h, 1) ||
	    !st_eq(t, "client 1 objects", st_client(t, 1).objects, 4))
		return;
	tmem_set_shares(t->store, 0, 0);
	for (i = 20; i < 30; i++) {
		if (!st_range(t, true, 1, 0, i, 0, 1, 1))
			return;
	}
	st_stat(t, reject_objects, 2);
}

/*
 * Every page, object, index node and pool is charged to its client while
 * it is in the store and no longer once it went, whichever way: flush of
 * a page or an object, duplicate put, exclusive get, eviction, a shared
 * pool emptied, destroyed pools and clients.  In a shared pool a page is
 * charged to the client that put it, an object and its index to the one
 * whose put made it.  Index nodes hold XA_CHUNK_SIZE slots.
 */
static void st_charge_accounting(struct st *t)
{
	static const u64 u[2] = { 0xc4a2, 9 };
	const u32 far = XA_CHUNK_SIZE * XA_CHUNK_SIZE;
	const u64 node = sizeof(struct xa_node);
	struct tmem_handle h = st_h(0, 7, 0);
	u64 pool, c, d[4];
	int i;

	if (!st_charge_is(t, 1, 0) || !st_pool(t, 1, true, false, NULL, 0))
		return;
	pool = st_client(t, 1).charge_bytes;
	if (st_bad(t, !pool, "a pool charged nothing") ||
	    !st_pool(t, 1, false, false, NULL, 1) ||
	    !st_charge_is(t, 1, 2 * pool))
		return;

	/* Index 0 is in the index's head; 1 needs a node; 2 shares it. */
	c = 2 * pool;
	for (i = 0; i < 4; i++) {
		h.index = i < 3 ? i : far;
		if (!st_put(t, 1, &h, 1))
			return;
		d[i] = st_client(t, 1).charge_bytes - c;
		c += d[i];
	}
	/* far: two levels on top and a path of two below. */
	if (st_bad(t, d[0] <= d[2] || d[1] != d[2] + node ||
		   d[3] != d[2] + 4 * node,
		   "charged %llu, %llu, %llu and %llu for indexes 0, 1, 2 and %u",
		   d[0], d[1], d[2], d[3], far) ||
	    !st_eq(t, "flush_page", tmem_flush_page(t->store, 1, &h), 1) ||
	    !st_charge_is(t, 1, c - d[3]))
		return;
	c -= d[3];
	h.index = 2;
	if (!st_eq(t, "same-filled duplicate put", st_put_same(t, 1, &h, 3), 1) ||
	    !st_charge_is(t, 1, c - TMEM_PAGE_SIZE) || !st_put(t, 1, &h, 2) ||
	    !st_charge_is(t, 1, c) ||
	    !st_eq(t, "flush_object", tmem_flush_object(t->store, 1, &h), 1) ||
	    !st_charge_is(t, 1, 2 * pool))
		return;

	h = st_h(1, 3, 2);
	if (!st_range(t, true, 1, 1, 3, 0, 3, 1) || !st_hit(t, 1, &h, 1) ||
	    !st_eq(t, "evict(5)", tmem_evict(t->store, 5), 2) ||
	    !st_charge_is(t, 1, 2 * pool))
		return;

	/* Client 1 makes a shared pool, client 2 joins it. */
	if (tmem_auth_shared(t->store, 1, u, true) ||
	    tmem_auth_shared(t->store, 2, u, true) ||
	    !st_pool(t, 1, false, true, u, 2) ||
	    !st_pool(t, 2, false, true, u, 0) ||
	    !st_charge_is(t, 1, 3 * pool) || !st_charge_is(t, 2, 0))
		return;
	h = st_h(0, 5, 1);
	if (!st_put(t, 2, &h, 1) || !st_charge_is(t, 2, d[0] + node))
		return;
	h = st_h(2, 5, 2);
	if (!st_put(t, 1, &h, 1) || !st_charge_is(t, 1, 3 * pool + d[2]) ||
	    !st_charge_is(t, 2, d[0] + node))
		return;
	h.index = far;
	if (!st_put(t, 1, &h, 1) || !st_charge_is(t, 1, 3 * pool + 2 * d[2]) ||
	    !st_charge_is(t, 2, d[0] + 5 * node) ||
	    !st_eq(t, "destroy_pool by client 2",
		   tmem_destroy_pool(t->store, 2, 0), 1) ||
	    !st_charge_is(t, 2, d[0] + 5 * node) ||
	    !st_eq(t, "gone_shared(1)", tmem_client_gone_shared(t->store, 1), 1) ||
	    !st_charge_is(t, 2, 0) || !st_charge_is(t, 1, 3 * pool))
		return;

	if (!st_eq(t, "destroy_client(1)", tmem_destroy_client(t->store, 1), 3) ||
	    !st_charge_is(t, 1, 0) || !st_stat(t, charge_bytes, 0) ||
	    !st_stat(t, objects, 0))
		return;
	st_eq(t, "client 1 objects", st_client(t, 1).objects, 0);
}

/* The table --------------------------------------------------------------- */

static const struct {
	const char *name;
	void (*run)(struct st *t);
} st_cases[] = {
	{ "put-get-roundtrip", st_roundtrip },
	{ "ephemeral-get-exclusive", st_eph_exclusive },
	{ "persistent-get-kept", st_pers_kept },
	{ "duplicate-put-replaces", st_dup_put },
	{ "duplicate-put-failure-flushes", st_dup_put_fail },
	{ "flush-page", st_flush_page },
	{ "flush-object", st_flush_object },
	{ "destroy-pool", st_destroy_pool },
	{ "tagged-pool-ids", st_tagged_ids },
	{ "unknown-pool", st_unknown_pool },
	{ "pool-limit", st_pool_limit },
	{ "bad-flags", st_bad_flags },
	{ "shared-pool", st_shared },
	{ "shared-persistent-refused", st_shared_persistent },
	{ "lru-eviction", st_lru },
	{ "client-gone", st_client_gone },
	{ "client-away", st_client_away },
	{ "concurrency", st_concurrency },
	{ "eviction-race", st_evict_race },
	{ "quota-evicts-own-lru", st_quota_lru },
	{ "quota-persistent-refused", st_quota_persistent },
	{ "frame-limit", st_frame_limit },
	{ "low-memory", st_low_memory },
	{ "share-same-filled", st_share_same_filled },
	{ "share-evicts-own", st_share_evicts_own },
	{ "share-weight", st_share_weight },
	{ "object-limit", st_object_limit },
	{ "charge-accounting", st_charge_accounting },
};

int tmem_selftest(void)
{
	int i, failed = 0;

	for (i = 0; i < ARRAY_SIZE(st_cases); i++) {
		struct st t = { .name = st_cases[i].name };

		atomic_set(&st_live, 0);
		atomic_set(&st_same, 0);
		atomic_set(&st_fail_creates, 0);
		t.page = kmalloc(TMEM_PAGE_SIZE, GFP_KERNEL);
		t.want = kmalloc(TMEM_PAGE_SIZE, GFP_KERNEL);
		t.store = tmem_store_create(&st_ops, NULL);
		if (!st_bad(&t, !t.page || !t.want || !t.store, "out of memory"))
			st_cases[i].run(&t);
		tmem_store_destroy(t.store);
		st_bad(&t, atomic_read(&st_live),
		       "%d data buffers left after the store was destroyed",
		       atomic_read(&st_live));
		kfree(t.page);
		kfree(t.want);
		if (t.failed)
			failed++;
		else
			pr_info("selftest: pass %s\n", t.name);
	}
	pr_info("selftest: %d of %zu cases failed\n", failed,
		ARRAY_SIZE(st_cases));
	return failed;
}
