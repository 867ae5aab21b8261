// SPDX-License-Identifier: GPL-2.0
/*
 * zcache_selftest.c - zcache's self-test, run at load with selftest=1
 * after the store's.
 *
 * Every case gets a real zcache behind a real tmem store, puts pages of
 * known content (one repeated value, text-like, random) and compares every
 * get byte for byte; it checks zcache's counters on the way, and that the
 * zcache holds no page frame once the store is gone.  A case logs
 * "zcache-selftest: pass NAME", or "zcache-selftest: FAIL NAME: what" for
 * its first failed check.
 *
 * The zpage cases put pages as a client compressed them (LZO1X-1 here, as
 * the client does), each form and length at the edges of what zcache
 * keeps, and corrupt streams: a zpage get must give back the bytes that
 * were put, a plain get the page, or -TMEM_EINVAL for a corrupt stream.
 */
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/lzo.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "tmem.h"
#include "zcache.h"

#define ZT_NODE		3

struct zt {
	const char *name;
	bool failed;
	struct zcache *zc;
	struct tmem_store *store;
	void *page;
	void *got;
	u8 *stream;		/* lzo1x_worst_compress(2 pages) */
	void *wrkmem;		/* LZO1X_MEM_COMPRESS */
};

static __printf(3, 4) bool zt_bad(struct zt *t, bool bad, const char *fmt,
				  ...)
{
	struct va_format vaf;
	va_list args;

	if (!bad || t->failed)
		return bad;
	t->failed = true;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("zcache-selftest: FAIL %s: %pV\n", t->name, &vaf);
	va_end(args);
	return true;
}

enum zt_kind { ZT_SAME, ZT_TEXT, ZT_RANDOM, ZT_KINDS };

/* Page @n's content: its kind by n, its bytes by n and @version. */
static void zt_fill(void *page, u32 n, u32 version, enum zt_kind kind)
{
	static const char * const words[] = {
		"pool", "page", "tmem ", "cluster ", "memory\n", "server, ",
		"client", "the ", "of ", "RAMster ",
	};
	struct rnd_state rs;
	char *p = page;
	size_t off = 0;

	prandom_seed_state(&rs, (u64)n << 32 | version);
	switch (kind) {
	case ZT_SAME:
		memset32(page, n * 0x01010101u + version, PAGE_SIZE / 4);
		break;
	case ZT_TEXT:
		off = scnprintf(p, PAGE_SIZE, "page %u version %u: ", n,
				version);
		while (off < PAGE_SIZE) {
			const char *w = words[prandom_u32_state(&rs) %
					      ARRAY_SIZE(words)];
			size_t len = min(strlen(w), PAGE_SIZE - off);

			memcpy(p + off, w, len);
			off += len;
		}
		break;
	default:
		prandom_bytes_state(&rs, page, PAGE_SIZE);
		break;
	}
}

static struct tmem_handle zt_h(u32 pool_id, u32 n)
{
	struct tmem_handle h = {
		.pool_id = pool_id,
		.index = n % 16,
		.oid = { n / 16, 0x2c, 0 },
	};

	return h;
}

static int zt_pool(struct zt *t, bool persistent)
{
	int id = tmem_new_pool(t->store, ZT_NODE,
			       tmem_pool_flags(persistent, false), NULL);

	zt_bad(t, id < 0, "new pool: %d", id);
	return id;
}

static bool zt_put(struct zt *t, int pool, u32 n, u32 v, enum zt_kind k,
		   int want)
{
	struct tmem_handle h = zt_h(pool, n);
	int ret;

	zt_fill(t->page, n, v, k);
	ret = tmem_put(t->store, ZT_NODE, &h, t->page);
	return !zt_bad(t, ret != want, "put page %u (kind %d): %d, want %d",
		       n, k, ret, want);
}

/* Get page @n: want it with version @v of kind @k, or missing if @v < 0. */
static bool zt_get(struct zt *t, int pool, u32 n, int v, enum zt_kind k)
{
	struct tmem_handle h = zt_h(pool, n);
	int ret = tmem_get(t->store, ZT_NODE, &h, t->got);

	if (v < 0)
		return !zt_bad(t, ret != 0, "get page %u: %d, want a miss",
			       n, ret);
	if (zt_bad(t, ret != 1, "get page %u: %d, want 1", n, ret))
		return false;
	zt_fill(t->page, n, v, k);
	return !zt_bad(t, memcmp(t->page, t->got, PAGE_SIZE),
		       "page %u (kind %d) came back different", n, k);
}

static bool zt_stat_at(struct zt *t, size_t offset, const char *name,
		       u64 want)
{
	struct zcache_stats s;
	u64 v;

	zcache_get_stats(t->zc, &s);
	v = *(u64 *)((void *)&s + offset);
	return !zt_bad(t, v != want, "%s is %llu, want %llu", name, v, want);
}

#define zt_stat(t, field, want) \
	zt_stat_at(t, offsetof(struct zcache_stats, field), #field, want)

/* What the store charges the test's client for now. */
static u64 zt_charge(struct zt *t)
{
	struct tmem_client_stats cs;

	tmem_client_stats(t->store, ZT_NODE, &cs);
	return cs.charge_bytes;
}

/* Cases ------------------------------------------------------------------- */

/*
 * Zero, one byte, one u32 repeated: no allocation, exact back, and no
 * data charged for (struct tmem_data_ops.size), where a page compressed
 * into xvmalloc is charged its stream and length.
 */
static void zt_same_filled(struct zt *t)
{
	static const u32 fills[] = { 0, 0xffffffff, 0xdeadbeef, 0x01 };
	struct zcache_stats s;
	struct tmem_handle h;
	int pool = zt_pool(t, true);
	u64 c0, c1, c2;
	u32 i;

	if (pool < 0)
		return;
	for (i = 0; i < ARRAY_SIZE(fills); i++) {
		memset32(t->page, fills[i], PAGE_SIZE / 4);
		h = zt_h(pool, i);
		if (zt_bad(t, tmem_put(t->store, ZT_NODE, &h, t->page) != 1,
			   "put of fill %#x failed", fills[i]))
			return;
	}
	if (!zt_stat(t, same_filled_pages, 4) || !zt_stat(t, stored_pages, 4) ||
	    !zt_stat(t, pool_pages, 0) || !zt_stat(t, compressed_bytes, 0))
		return;
	for (i = 0; i < ARRAY_SIZE(fills); i++) {
		h = zt_h(pool, i);
		memset32(t->page, fills[i], PAGE_SIZE / 4);
		if (zt_bad(t, tmem_get(t->store, ZT_NODE, &h, t->got) != 1 ||
			   memcmp(t->page, t->got, PAGE_SIZE),
			   "fill %#x did not come back", fills[i]))
			return;
	}
	/* Into the same index node: a descriptor's worth each, and data. */
	c0 = zt_charge(t);
	memset32(t->page, 7, PAGE_SIZE / 4);
	h = zt_h(pool, 5);
	if (zt_bad(t, tmem_put(t->store, ZT_NODE, &h, t->page) != 1,
		   "put of a fifth same-filled page failed"))
		return;
	c1 = zt_charge(t);
	/* One word off: not same-filled. */
	((u32 *)t->page)[PAGE_SIZE / 4 - 1] = 8;
	h = zt_h(pool, 9);
	if (zt_bad(t, tmem_put(t->store, ZT_NODE, &h, t->page) != 1,
		   "put of a nearly same-filled page failed") ||
	    !zt_stat(t, same_filled_pages, 5) || !zt_stat(t, stored_pages, 6))
		return;
	c2 = zt_charge(t);
	zcache_get_stats(t->zc, &s);
	if (zt_bad(t, c2 - c1 != c1 - c0 + sizeof(u16) + s.compressed_bytes,
		   "charged %llu for a same-filled page, %llu for one of %llu compressed bytes",
		   c1 - c0, c2 - c1, s.compressed_bytes))
		return;
	memcpy(t->got, t->page, PAGE_SIZE);
	memset(t->page, 0, PAGE_SIZE);
	zt_bad(t, tmem_get(t->store, ZT_NODE, &h, t->page) != 1 ||
	       memcmp(t->page, t->got, PAGE_SIZE),
	       "the nearly same-filled page did not come back");
}

/* Text compresses into xvmalloc, well below a page. */
static void zt_compressed(struct zt *t)
{
	struct zcache_stats s;
	int pool = zt_pool(t, false);
	u32 n;

	if (pool < 0)
		return;
	for (n = 0; n < 64; n++)
		if (!zt_put(t, pool, n, 1, ZT_TEXT, 1))
			return;
	zcache_get_stats(t->zc, &s);
	if (zt_bad(t, s.compressed_bytes == 0 ||
		   s.compressed_bytes > 64 * PAGE_SIZE / 2,
		   "64 text pages took %llu compressed bytes",
		   s.compressed_bytes) ||
	    zt_bad(t, s.pool_pages == 0 || s.pool_pages > 32,
		   "64 text pages took %llu page frames", s.pool_pages) ||
	    !zt_stat(t, huge_pages, 0) || !zt_stat(t, stored_pages, 64))
		return;
	/* An ephemeral get is exclusive: the page leaves the store. */
	for (n = 0; n < 64; n++)
		if (!zt_get(t, pool, n, 1, ZT_TEXT) || !zt_get(t, pool, n, -1, 0))
			return;
	zt_stat(t, stored_pages, 0);
	zt_stat(t, compressed_bytes, 0);
	zt_stat(t, pool_pages, 0);
}

/* Random data: refused by an ephemeral pool, kept whole by a persistent. */
static void zt_incompressible(struct zt *t)
{
	int eph = zt_pool(t, false), pers = zt_pool(t, true);

	if (eph < 0 || pers < 0)
		return;
	if (!zt_put(t, eph, 1, 1, ZT_RANDOM, -TMEM_ENOMEM) ||
	    !zt_stat(t, reject_compress_poor, 1) || !zt_get(t, eph, 1, -1, 0))
		return;
	if (!zt_put(t, pers, 1, 1, ZT_RANDOM, 1) || !zt_stat(t, huge_pages, 1) ||
	    !zt_stat(t, pool_pages, 1) || !zt_get(t, pers, 1, 1, ZT_RANDOM))
		return;
	/* A duplicate put replaces it, kind and all. */
	if (!zt_put(t, pers, 1, 2, ZT_TEXT, 1) || !zt_stat(t, huge_pages, 0) ||
	    !zt_get(t, pers, 1, 2, ZT_TEXT))
		return;
	zt_stat(t, stored_pages, 1);
}

/*
 * 3000 pages of every kind in a persistent pool; half flushed at random,
 * the rest read back twice; xvmalloc gives every frame back at the end.
 */
static void zt_churn(struct zt *t)
{
	const u32 nr = 3000;
	struct rnd_state rs;
	struct tmem_handle h;
	unsigned long *gone;
	u32 n, flushed = 0;
	int pool = zt_pool(t, true);

	gone = bitmap_zalloc(nr, GFP_KERNEL);
	if (zt_bad(t, !gone, "out of memory") || pool < 0)
		goto out;
	for (n = 0; n < nr; n++)
		if (!zt_put(t, pool, n, 1, n % ZT_KINDS, 1))
			goto out;
	prandom_seed_state(&rs, 42);
	while (flushed < nr / 2) {
		n = prandom_u32_state(&rs) % nr;
		if (test_and_set_bit(n, gone))
			continue;
		h = zt_h(pool, n);
		if (zt_bad(t, tmem_flush_page(t->store, ZT_NODE, &h) != 1,
			   "flush of page %u failed", n))
			goto out;
		flushed++;
	}
	if (!zt_stat(t, stored_pages, nr - flushed))
		goto out;
	for (n = 0; n < 2 * nr; n++)
		if (!zt_get(t, pool, n % nr, test_bit(n % nr, gone) ? -1 : 1,
			    n % nr % ZT_KINDS))
			goto out;
	if (zt_bad(t, tmem_destroy_pool(t->store, ZT_NODE, pool) != 1,
		   "destroy pool failed"))
		goto out;
	zt_stat(t, stored_pages, 0);
	zt_stat(t, pool_pages, 0);
	zt_stat(t, compressed_bytes, 0);
	zt_stat(t, huge_pages, 0);
	zt_stat(t, same_filled_pages, 0);
out:
	bitmap_free(gone);
}

/* zpages ----------------------------------------------------------------- */

/* Compress @len bytes at @src into t->stream as a client would. */
static bool zt_lzo(struct zt *t, const void *src, size_t len, size_t *zlen)
{
	int ret;

	*zlen = lzo1x_worst_compress(2 * PAGE_SIZE);
	ret = lzo1x_1_compress(src, len, t->stream, zlen, t->wrkmem);
	return !zt_bad(t, ret != LZO_E_OK, "lzo1x_1_compress: %d", ret);
}

static bool zt_zput(struct zt *t, int pool, u32 n, enum tmem_zenc enc,
		    u32 arg, const void *data, int want)
{
	struct tmem_zpage z = { .enc = enc, .arg = arg, .data = data };
	struct tmem_handle h = zt_h(pool, n);
	int ret = tmem_put_zpage(t->store, ZT_NODE, &h, &z);

	return !zt_bad(t, ret != want,
		       "zpage put of page %u (form %d, %u): %d, want %d", n,
		       enc, arg, ret, want);
}

/* A zpage get of page @n must give form @enc, @arg and the bytes @data. */
static bool zt_zget(struct zt *t, int pool, u32 n, enum tmem_zenc enc,
		    u32 arg, const void *data)
{
	struct tmem_handle h = zt_h(pool, n);
	struct tmem_zpage z = { };
	int ret;

	memset(t->got, 0x5a, PAGE_SIZE);
	ret = tmem_get_zpage(t->store, ZT_NODE, &h, &z, t->got);
	if (zt_bad(t, ret != 1, "zpage get of page %u: %d, want 1", n, ret))
		return false;
	return !zt_bad(t, z.enc != enc || z.arg != arg || z.data != t->got ||
		       (enc != TMEM_ZENC_SAME && memcmp(t->got, data, arg)),
		       "zpage get of page %u: form %d, %u, want form %d, %u and the bytes put",
		       n, z.enc, z.arg, enc, arg);
}

static bool zt_zmiss(struct zt *t, int pool, u32 n)
{
	struct tmem_handle h = zt_h(pool, n);
	struct tmem_zpage z;
	int ret = tmem_get_zpage(t->store, ZT_NODE, &h, &z, t->got);

	return !zt_bad(t, ret != 0, "zpage get of page %u: %d, want a miss",
		       n, ret);
}

/* A plain get of page @n: want @ret, and with 1 the page @page. */
static bool zt_get_page(struct zt *t, int pool, u32 n, const void *page,
			int want)
{
	struct tmem_handle h = zt_h(pool, n);
	int ret;

	memset(t->got, 0x5a, PAGE_SIZE);
	ret = tmem_get(t->store, ZT_NODE, &h, t->got);
	if (zt_bad(t, ret != want, "get of page %u: %d, want %d", n, ret,
		   want))
		return false;
	return !zt_bad(t, want == 1 && memcmp(t->got, page, PAGE_SIZE),
		       "page %u came back different", n);
}

/*
 * A page compressed by LZO1X-1 is kept as those bytes: a zpage get gives
 * them back, a plain get decompresses them; an ephemeral get is exclusive.
 */
static void zt_zpage_lzo(struct zt *t)
{
	int pers = zt_pool(t, true), eph = zt_pool(t, false);
	size_t zlen;

	if (pers < 0 || eph < 0)
		return;
	zt_fill(t->page, 1, 1, ZT_TEXT);
	if (!zt_lzo(t, t->page, PAGE_SIZE, &zlen) ||
	    zt_bad(t, zlen > zcache_max_zsize(),
		   "a text page compressed to %zu bytes", zlen) ||
	    !zt_zput(t, pers, 1, TMEM_ZENC_LZO, zlen, t->stream, 1) ||
	    !zt_zput(t, eph, 1, TMEM_ZENC_LZO, zlen, t->stream, 1) ||
	    !zt_stat(t, stored_as_sent, 2) || !zt_stat(t, stored_pages, 2) ||
	    !zt_stat(t, compressed_bytes, 2 * zlen) ||
	    !zt_stat(t, huge_pages, 0) || !zt_stat(t, same_filled_pages, 0))
		return;
	if (!zt_zget(t, pers, 1, TMEM_ZENC_LZO, zlen, t->stream) ||
	    !zt_zget(t, pers, 1, TMEM_ZENC_LZO, zlen, t->stream) ||
	    !zt_get_page(t, pers, 1, t->page, 1) ||
	    !zt_zget(t, eph, 1, TMEM_ZENC_LZO, zlen, t->stream) ||
	    !zt_zmiss(t, eph, 1) || !zt_get_page(t, eph, 1, NULL, 0))
		return;
	/* Put again, the plain get decompresses it, once. */
	if (!zt_zput(t, eph, 1, TMEM_ZENC_LZO, zlen, t->stream, 1) ||
	    !zt_get_page(t, eph, 1, t->page, 1) || !zt_zmiss(t, eph, 1))
		return;
	/* A page compressed here reads out as the stream a client makes. */
	if (!zt_put(t, pers, 2, 1, ZT_TEXT, 1) ||
	    !zt_lzo(t, t->page, PAGE_SIZE, &zlen) ||
	    !zt_zget(t, pers, 2, TMEM_ZENC_LZO, zlen, t->stream))
		return;
	zt_stat(t, stored_as_sent, 3);
	zt_stat(t, stored_pages, 2);
}

/* One repeated value: no allocation, the value back either way. */
static void zt_zpage_same(struct zt *t)
{
	int pers = zt_pool(t, true), eph = zt_pool(t, false);

	if (pers < 0 || eph < 0)
		return;
	memset32(t->page, 0xdeadbeef, PAGE_SIZE / 4);
	if (!zt_zput(t, pers, 1, TMEM_ZENC_SAME, 0xdeadbeef, NULL, 1) ||
	    !zt_zput(t, eph, 1, TMEM_ZENC_SAME, 0, NULL, 1) ||
	    !zt_stat(t, same_filled_pages, 2) || !zt_stat(t, pool_pages, 0) ||
	    !zt_stat(t, compressed_bytes, 0) || !zt_stat(t, stored_as_sent, 2))
		return;
	if (!zt_zget(t, pers, 1, TMEM_ZENC_SAME, 0xdeadbeef, NULL) ||
	    !zt_get_page(t, pers, 1, t->page, 1) ||
	    !zt_zget(t, eph, 1, TMEM_ZENC_SAME, 0, NULL) || !zt_zmiss(t, eph, 1))
		return;
	/* A same-filled page put plainly reads out as its value. */
	if (!zt_put(t, pers, 2, 5, ZT_SAME, 1) ||
	    !zt_zget(t, pers, 2, TMEM_ZENC_SAME, 2 * 0x01010101u + 5, NULL))
		return;
	zt_stat(t, same_filled_pages, 2);
}

/* A page its client found incompressible: persistent keeps it whole. */
static void zt_zpage_raw(struct zt *t)
{
	int pers = zt_pool(t, true), eph = zt_pool(t, false);

	if (pers < 0 || eph < 0)
		return;
	zt_fill(t->page, 3, 1, ZT_RANDOM);
	if (!zt_zput(t, eph, 3, TMEM_ZENC_RAW, PAGE_SIZE, t->page,
		     -TMEM_ENOMEM) ||
	    !zt_stat(t, reject_compress_poor, 1) || !zt_zmiss(t, eph, 3) ||
	    !zt_zput(t, pers, 3, TMEM_ZENC_RAW, PAGE_SIZE, t->page, 1) ||
	    !zt_stat(t, huge_pages, 1) || !zt_stat(t, pool_pages, 1) ||
	    !zt_stat(t, stored_as_sent, 1) ||
	    !zt_zget(t, pers, 3, TMEM_ZENC_RAW, PAGE_SIZE, t->page) ||
	    !zt_get_page(t, pers, 3, t->page, 1))
		return;
	/* Kept whole as sent, even a page that would compress. */
	zt_fill(t->page, 4, 1, ZT_TEXT);
	if (!zt_zput(t, pers, 4, TMEM_ZENC_RAW, PAGE_SIZE, t->page, 1) ||
	    !zt_stat(t, huge_pages, 2) ||
	    !zt_zget(t, pers, 4, TMEM_ZENC_RAW, PAGE_SIZE, t->page))
		return;
	/* Not a page long: refused, and the page it would replace goes. */
	if (!zt_zput(t, pers, 4, TMEM_ZENC_RAW, PAGE_SIZE - 1, t->page,
		     -TMEM_EINVAL) || !zt_zmiss(t, pers, 4))
		return;
	/* A page that did not compress here reads out whole. */
	if (!zt_put(t, pers, 5, 1, ZT_RANDOM, 1))
		return;
	zt_fill(t->page, 5, 1, ZT_RANDOM);
	if (!zt_zget(t, pers, 5, TMEM_ZENC_RAW, PAGE_SIZE, t->page))
		return;
	zt_stat(t, huge_pages, 2);
	zt_stat(t, stored_pages, 2);
}

/*
 * LZO streams longer than max_zsize: refused by an ephemeral pool, kept by
 * a persistent one up to ZCACHE_MAX_ZSIZE; a length of 0 is refused.
 */
static void zt_zpage_lzo_long(struct zt *t)
{
	int pers = zt_pool(t, true), eph = zt_pool(t, false);
	unsigned int max = zcache_max_zsize();
	struct rnd_state rs;
	size_t zlen = 0, k;

	if (pers < 0 || eph < 0)
		return;
	/* Random bytes then zeros: find a page that compresses just past max. */
	for (k = max - 64; k < PAGE_SIZE && max < ZCACHE_MAX_ZSIZE; k += 8) {
		prandom_seed_state(&rs, 7);
		memset(t->page, 0, PAGE_SIZE);
		prandom_bytes_state(&rs, t->page, k);
		if (!zt_lzo(t, t->page, PAGE_SIZE, &zlen))
			return;
		if (zlen > max)
			break;
	}
	if (max < ZCACHE_MAX_ZSIZE) {
		if (zt_bad(t, zlen <= max || zlen > ZCACHE_MAX_ZSIZE,
			   "no page compresses to %u..%u bytes (%zu)", max + 1,
			   ZCACHE_MAX_ZSIZE, zlen) ||
		    !zt_zput(t, eph, 1, TMEM_ZENC_LZO, zlen, t->stream,
			     -TMEM_ENOMEM) ||
		    !zt_stat(t, reject_compress_poor, 1) ||
		    !zt_zmiss(t, eph, 1) ||
		    !zt_zput(t, pers, 1, TMEM_ZENC_LZO, zlen, t->stream, 1) ||
		    !zt_stat(t, compressed_bytes, zlen) ||
		    !zt_stat(t, huge_pages, 0) ||
		    !zt_zget(t, pers, 1, TMEM_ZENC_LZO, zlen, t->stream) ||
		    !zt_get_page(t, pers, 1, t->page, 1))
			return;
	}
	/* Longer than xvmalloc takes: refused, and the page under it goes. */
	zt_fill(t->stream, 2, 1, ZT_RANDOM);
	if (!zt_zput(t, pers, 1, TMEM_ZENC_LZO, ZCACHE_MAX_ZSIZE + 1, t->stream,
		     -TMEM_ENOMEM) || !zt_zmiss(t, pers, 1) ||
	    !zt_zput(t, pers, 1, TMEM_ZENC_LZO, PAGE_SIZE - 1, t->stream,
		     -TMEM_ENOMEM) ||
	    !zt_zput(t, pers, 1, TMEM_ZENC_LZO, 0, t->stream, -TMEM_EINVAL) ||
	    !zt_zmiss(t, pers, 1))
		return;
	zt_stat(t, stored_pages, 0);
}

/*
 * Corrupt streams are kept and given back byte for byte; only a plain get
 * decompresses one, and gets -TMEM_EINVAL (an exclusive one loses it).
 */
static void zt_zpage_corrupt(struct zt *t)
{
	int pers = zt_pool(t, true), eph = zt_pool(t, false);
	struct rnd_state rs;
	u8 *two = kmalloc(2 * PAGE_SIZE, GFP_KERNEL);
	size_t zlen;
	u32 n, kept = 0;

	if (zt_bad(t, !two, "out of memory") || pers < 0 || eph < 0)
		goto out;
	zt_fill(two, 1, 1, ZT_TEXT);
	memcpy(two + PAGE_SIZE, two, PAGE_SIZE);
	prandom_seed_state(&rs, 99);
	for (n = 0; n < 12; n++) {
		switch (n) {
		case 0:		/* cut before its end marker */
			if (!zt_lzo(t, two, PAGE_SIZE, &zlen))
				goto out;
			zlen -= 3;
			break;
		case 1:		/* a whole stream of half a page */
			if (!zt_lzo(t, two, PAGE_SIZE / 2, &zlen))
				goto out;
			break;
		case 2:		/* a whole stream of two pages */
			if (!zt_lzo(t, two, 2 * PAGE_SIZE, &zlen))
				goto out;
			break;
		default:	/* random bytes */
			zlen = 1 + prandom_u32_state(&rs) % 3000;
			prandom_bytes_state(&rs, t->stream, zlen);
			break;
		}
		if (zt_bad(t, zlen > zcache_max_zsize(),
			   "stream %u is %zu bytes", n, zlen))
			goto out;
		/* Kept, as sent, after a plain get failed on it. */
		if (!zt_zput(t, pers, n, TMEM_ZENC_LZO, zlen, t->stream, 1) ||
		    !zt_zget(t, pers, n, TMEM_ZENC_LZO, zlen, t->stream) ||
		    !zt_get_page(t, pers, n, NULL, -TMEM_EINVAL) ||
		    !zt_zget(t, pers, n, TMEM_ZENC_LZO, zlen, t->stream))
			goto out;
		kept++;
		/* A zpage get takes it out whole; a plain get loses it. */
		if (!zt_zput(t, eph, n, TMEM_ZENC_LZO, zlen, t->stream, 1) ||
		    !zt_zget(t, eph, n, TMEM_ZENC_LZO, zlen, t->stream) ||
		    !zt_zmiss(t, eph, n) ||
		    !zt_zput(t, eph, n, TMEM_ZENC_LZO, zlen, t->stream, 1) ||
		    !zt_get_page(t, eph, n, NULL, -TMEM_EINVAL) ||
		    !zt_zmiss(t, eph, n))
			goto out;
	}
	zt_stat(t, stored_pages, kept);
out:
	kfree(two);
}

/* Two threads put and get their own pages at once (per-CPU buffers). */
struct zt_thread {
	struct zt *t;
	int pool;
	u32 first;
	int errors;
	struct completion done;
};

static int zt_thread_fn(void *arg)
{
	struct zt_thread *z = arg;
	void *page = kmalloc(PAGE_SIZE, GFP_KERNEL);
	void *got = kmalloc(PAGE_SIZE, GFP_KERNEL);
	struct tmem_handle h;
	u32 i, n;

	if (!page || !got) {
		z->errors++;
		goto out;
	}
	for (i = 0; i < 4000; i++) {
		n = z->first + i % 500;
		h = zt_h(z->pool, n);
		zt_fill(page, n, i, n % ZT_KINDS);
		if (tmem_put(z->t->store, ZT_NODE, &h, page) != 1 ||
		    tmem_get(z->t->store, ZT_NODE, &h, got) != 1 ||
		    memcmp(page, got, PAGE_SIZE))
			z->errors++;
		cond_resched();
	}
out:
	kfree(page);
	kfree(got);
	complete(&z->done);
	return 0;
}

static void zt_concurrency(struct zt *t)
{
	struct zt_thread z[2];
	struct task_struct *task;
	int pool = zt_pool(t, true), i;

	if (pool < 0)
		return;
	for (i = 0; i < ARRAY_SIZE(z); i++) {
		z[i] = (struct zt_thread){ .t = t, .pool = pool,
					   .first = i * 1000 };
		init_completion(&z[i].done);
		task = kthread_run(zt_thread_fn, &z[i], "zcache_st%d", i);
		if (IS_ERR(task)) {
			z[i].errors++;
			complete(&z[i].done);
		}
	}
	for (i = 0; i < ARRAY_SIZE(z); i++) {
		wait_for_completion(&z[i].done);
		zt_bad(t, z[i].errors, "thread %d: %d puts or gets failed",
		       i, z[i].errors);
	}
	zt_stat(t, stored_pages, 1000);
}

static const struct {
	const char *name;
	void (*run)(struct zt *t);
} zt_cases[] = {
	{ "same-filled", zt_same_filled },
	{ "compressed", zt_compressed },
	{ "incompressible", zt_incompressible },
	{ "churn", zt_churn },
	{ "concurrency", zt_concurrency },
	{ "zpage-lzo", zt_zpage_lzo },
	{ "zpage-same", zt_zpage_same },
	{ "zpage-raw", zt_zpage_raw },
	{ "zpage-lzo-long", zt_zpage_lzo_long },
	{ "zpage-corrupt", zt_zpage_corrupt },
};

int zcache_selftest(void)
{
	int i, failed = 0;

	for (i = 0; i < ARRAY_SIZE(zt_cases); i++) {
		struct zt t = { .name = zt_cases[i].name };

		t.page = kmalloc(PAGE_SIZE, GFP_KERNEL);
		t.got = kmalloc(PAGE_SIZE, GFP_KERNEL);
		t.stream = kmalloc(lzo1x_worst_compress(2 * PAGE_SIZE),
				   GFP_KERNEL);
		t.wrkmem = kmalloc(LZO1X_MEM_COMPRESS, GFP_KERNEL);
		t.zc = zcache_create();
		if (t.zc)
			t.store = tmem_store_create(&zcache_tmem_ops, t.zc);
		if (!zt_bad(&t, !t.page || !t.got || !t.stream || !t.wrkmem ||
			    !t.store, "out of memory"))
			zt_cases[i].run(&t);
		tmem_store_destroy(t.store);
		if (t.zc) {
			zt_stat(&t, stored_pages, 0);
			zt_stat(&t, pool_pages, 0);
		}
		zcache_destroy(t.zc);
		kfree(t.page);
		kfree(t.got);
		kfree(t.stream);
		kfree(t.wrkmem);
		if (t.failed)
			failed++;
		else
			pr_info("zcache-selftest: pass %s\n", t.name);
	}
	pr_info("zcache-selftest: %d of %zu cases failed\n", failed,
		ARRAY_SIZE(zt_cases));
	return failed;
}
