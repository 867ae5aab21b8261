// SPDX-License-Identifier: GPL-2.0
/*
 * zbench: the memory server's numbers for bench/backend.sh.
 *
 * density: how many compressed pages (zpages) xvmalloc fits in a page
 * frame beside the kernel's zsmalloc, on the same objects, fresh and after
 * half of them are freed at random.  putget: a tmem store over zcache,
 * put and get pages per second beside LZO1X compress and decompress of
 * the same pages alone, which bound them.  See zbench.h for the commands.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/jhash.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/lzo.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/zsmalloc.h>

#include "tmem.h"
#include "xvmalloc.h"
#include "zcache.h"
#include "zbench.h"

#define ZB_CMD_MAX	128
#define ZB_OUT_MAX	4096
#define ZB_USAGE \
	"density N SEED | putget N SEED | release (N 1..1000000, SEED a u64)"
#define ZB_GFP		(GFP_KERNEL | __GFP_NOWARN)
#define ZB_ZBUF_SIZE	lzo1x_worst_compress(PAGE_SIZE)

/* Serializes commands; guards zb_out and the store putget leaves. */
static DEFINE_MUTEX(zb_run_lock);
static char zb_out[ZB_OUT_MAX];
static size_t zb_out_len;

static struct tmem_store *zb_store;
static struct zcache *zb_zc;

/* What the running command is at, for debugfs progress. */
static const char *zb_phase = "idle";
static u32 zb_done;
static u32 zb_total;

static struct dentry *zb_dir;

static void zb_progress(const char *phase, u32 done, u32 total)
{
	WRITE_ONCE(zb_phase, phase);
	WRITE_ONCE(zb_done, done);
	WRITE_ONCE(zb_total, total);
}

/* ---- the corpus ---- */

enum zb_kind {
	ZB_TEXT,
	ZB_STRUCTS,
	ZB_SPARSE,
	ZB_MIXED,
	ZB_RANDOM,
	ZB_NR_KINDS
};

static const char * const zb_kind_names[ZB_NR_KINDS] = {
	[ZB_TEXT]	= "text",
	[ZB_STRUCTS]	= "structs",
	[ZB_SPARSE]	= "sparse",
	[ZB_MIXED]	= "mixed",
	[ZB_RANDOM]	= "random",
};

static const char * const zb_words[] = {
	"the", "of", "and", "to", "in", "is", "that", "for", "it", "as",
	"was", "with", "be", "by", "on", "not", "he", "this", "are", "or",
	"his", "from", "at", "which", "but", "have", "an", "had", "they",
	"you", "were", "their", "one", "all", "we", "can", "her", "has",
	"there", "been", "if", "more", "when", "will", "would", "who", "so",
	"no", "memory", "page", "server", "client", "kernel", "module",
	"struct", "return", "static", "const", "unsigned", "long", "void",
	"int", "char", "buffer", "error", "value", "count", "index", "node",
	"pool", "object", "handle", "swap", "cache", "file", "inode", "block",
	"device", "request", "reply", "status", "length", "offset", "address",
	"network", "message", "socket", "timeout", "thread", "process",
	"schedule", "compress", "decompress", "allocate", "release", "lock",
	"unlock", "queue", "list", "tree", "hash", "table", "entry", "field",
	"record", "string", "number", "system", "config", "option", "default",
	"enable", "disable", "start", "stop", "open", "close", "read",
	"write", "flush", "sync", "mount", "path", "name", "user", "group",
	"time", "date", "log", "debug", "warning",
};

/* splitmix64: one stream per (seed, page), the same on every run. */
struct zb_rng {
	u64 s;
};

static u64 zb_next(struct zb_rng *r)
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A number in 0..n-1. */
static u32 zb_below(struct zb_rng *r, u32 n)
{
	return (u32)(((zb_next(r) >> 32) * n) >> 32);
}

static void zb_random(struct zb_rng *r, u8 *buf, u32 len)
{
	u64 v;
	u32 i;

	for (i = 0; i < len; i += sizeof(v)) {
		v = zb_next(r);
		memcpy(buf + i, &v, min_t(u32, sizeof(v), len - i));
	}
}

static void zb_append(u8 *buf, u32 len, u32 *pos, const char *s, u32 n)
{
	n = min(n, len - *pos);
	memcpy(buf + *pos, s, n);
	*pos += n;
}

/* Words from a vocabulary of 4..128 of zb_words, numbers, punctuation. */
static void zb_text(struct zb_rng *r, u8 *buf, u32 len)
{
	u32 nwords = ARRAY_SIZE(zb_words);
	u32 vocab = 4U << zb_below(r, 6);
	u32 base = zb_below(r, nwords);
	u32 pos = 0, c, n;
	const char *w;
	char num[12];

	while (pos < len) {
		c = zb_below(r, 32);
		if (c == 0) {
			n = scnprintf(num, sizeof(num), "%u", zb_below(r, 100000));
			zb_append(buf, len, &pos, num, n);
		} else {
			w = zb_words[(base + zb_below(r, vocab)) % nwords];
			zb_append(buf, len, &pos, w, strlen(w));
		}
		if (c == 1)
			zb_append(buf, len, &pos, ".\n", 2);
		else if (c == 2)
			zb_append(buf, len, &pos, ", ", 2);
		else
			zb_append(buf, len, &pos, " ", 1);
	}
}

/*
 * An array of 16-, 32- or 64-byte records: an id counting up, small
 * integers, a kernel pointer into a slab, more small integers or zeros.
 */
static void zb_structs(struct zb_rng *r, u8 *buf, u32 len)
{
	u32 words = 4U << zb_below(r, 3);
	u32 range = 2U << zb_below(r, 10);
	u32 id = zb_below(r, 1U << 20);
	u64 ptr = 0xffff888000000000ull + ((u64)zb_below(r, 1U << 24) << 6);
	u32 n = len / sizeof(u32), i, k, v;

	for (i = 0; i < n; i += words) {
		for (k = 0; k < words && i + k < n; k++) {
			switch (k) {
			case 0:
				v = id;
				break;
			case 1:
				v = zb_below(r, range);
				break;
			case 2:
				v = lower_32_bits(ptr);
				break;
			case 3:
				v = upper_32_bits(ptr);
				break;
			default:
				v = zb_below(r, 2) ? zb_below(r, range) : 0;
				break;
			}
			memcpy(buf + 4 * (i + k), &v, sizeof(v));
		}
		id++;
		ptr += 64 * (1 + zb_below(r, 4));
	}
}

/* Zero but for 1..48 runs of 1..32 random or small bytes. */
static void zb_sparse(struct zb_rng *r, u8 *buf, u32 len)
{
	u32 runs = 1 + zb_below(r, 48), off, n, k;

	memset(buf, 0, len);
	while (runs--) {
		off = zb_below(r, len);
		n = min(1 + zb_below(r, 32), len - off);
		if (zb_below(r, 2)) {
			zb_random(r, buf + off, n);
		} else {
			for (k = 0; k < n; k++)
				buf[off + k] = 1 + zb_below(r, 8);
		}
	}
	/* Never same-filled: the store would keep it without data. */
	buf[zb_below(r, len)] = 1 + zb_below(r, 255);
}

/* Page i of the corpus of seed into buf (PAGE_SIZE bytes). */
static enum zb_kind zb_page(u64 seed, u32 i, u8 *buf)
{
	struct zb_rng r = { .s = seed ^ (0xd1342543de82ef95ull * (i + 1ull)) };
	u32 c = zb_below(&r, 100), head;

	if (c < 40) {
		zb_text(&r, buf, PAGE_SIZE);
		return ZB_TEXT;
	}
	if (c < 65) {
		zb_structs(&r, buf, PAGE_SIZE);
		return ZB_STRUCTS;
	}
	if (c < 80) {
		zb_sparse(&r, buf, PAGE_SIZE);
		return ZB_SPARSE;
	}
	if (c < 90) {
		head = 512 + zb_below(&r, 3072);
		zb_random(&r, buf, head);
		if (zb_below(&r, 2))
			zb_text(&r, buf + head, PAGE_SIZE - head);
		else
			memset(buf + head, 0, PAGE_SIZE - head);
		return ZB_MIXED;
	}
	zb_random(&r, buf, PAGE_SIZE);
	return ZB_RANDOM;
}

/* ---- results ---- */

static __printf(1, 2) void zb_printf(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	zb_out_len += vscnprintf(zb_out + zb_out_len,
				 sizeof(zb_out) - zb_out_len, fmt, args);
	va_end(args);
}

/* "name num/den" with three decimals; 0 when den is 0. */
static void zb_ratio(const char *name, u64 num, u64 den)
{
	u64 m = den ? div64_u64(num * 1000, den) : 0;
	u32 frac;

	m = div_u64_rem(m, 1000, &frac);
	zb_printf("%s %llu.%03u\n", name, m, frac);
}

/* Pages per second of n pages in ns nanoseconds. */
static u64 zb_rate(u64 n, u64 ns)
{
	return ns ? div64_u64(n * NSEC_PER_SEC, ns) : 0;
}

struct zb_errors {
	u64	errors;
	int	first_error;
	u64	mismatches;
};

static void zb_error(struct zb_errors *e, int err)
{
	if (!e->errors++)
		e->first_error = err;
}

/* ---- density ---- */

/* One compressed page, in both allocators. */
struct zb_obj {
	unsigned long	zs;
	struct page	*xv_page;
	u32		xv_off;
	u32		hash;
	u16		len;
	bool		live;
};

struct zb_density {
	u32		stored;
	u32		excluded;
	u32		freed;
	u32		kinds[ZB_NR_KINDS];
	u64		zbytes_fresh;
	u64		zbytes_churn;
	struct xv_stats	xv_fresh;
	struct xv_stats	xv_churn;
	u64		zs_fresh;
	u64		zs_churn;
	u64		zs_compact;
};

static int zb_obj_store(struct xv_pool *xv, struct zs_pool *zs,
			struct zb_obj *o, const u8 *src, u32 len)
{
	unsigned long h;
	void *dst;
	int ret;

	ret = xv_malloc(xv, len, &o->xv_page, &o->xv_off, ZB_GFP);
	if (ret)
		return ret;
	dst = kmap_local_page(o->xv_page);
	memcpy(dst + o->xv_off, src, len);
	kunmap_local(dst);

	h = zs_malloc(zs, len, ZB_GFP);
	if (IS_ERR_VALUE(h)) {
		xv_free(xv, o->xv_page, o->xv_off);
		return PTR_ERR((void *)h);
	}
	dst = zs_map_object(zs, h, ZS_MM_WO);
	memcpy(dst, src, len);
	zs_unmap_object(zs, h);

	o->zs = h;
	o->len = len;
	o->hash = jhash(src, len, 0);
	o->live = true;
	return 0;
}

static void zb_obj_free(struct xv_pool *xv, struct zs_pool *zs,
			struct zb_obj *o)
{
	xv_free(xv, o->xv_page, o->xv_off);
	zs_free(zs, o->zs);
	o->live = false;
}

/* How many of the object's two copies are not its bytes (0..2). */
static u32 zb_obj_check(struct xv_pool *xv, struct zs_pool *zs,
			const struct zb_obj *o)
{
	u32 bad = 0;
	void *src;

	src = kmap_local_page(o->xv_page);
	bad += jhash(src + o->xv_off, o->len, 0) != o->hash;
	kunmap_local(src);
	src = zs_map_object(zs, o->zs, ZS_MM_RO);
	bad += jhash(src, o->len, 0) != o->hash;
	zs_unmap_object(zs, o->zs);
	return bad;
}

static void zb_density_report(u32 n, u64 seed, const struct zb_density *d,
			      const struct zb_errors *e, u64 ns)
{
	u32 left = d->stored - d->freed;
	int k;

	zb_printf("cmd density\npages %u\nseed %llu\n", n, seed);
	for (k = 0; k < ZB_NR_KINDS; k++)
		zb_printf("kind_%s %u\n", zb_kind_names[k], d->kinds[k]);
	zb_printf("max_zsize %u\nexcluded_incompressible %u\n",
		  ZBENCH_MAX_ZSIZE, d->excluded);
	zb_printf("stored_fresh %u\ncompressed_bytes_fresh %llu\n",
		  d->stored, d->zbytes_fresh);
	zb_ratio("mean_zsize_fresh", d->zbytes_fresh, d->stored);
	zb_ratio("ideal_zpages_per_frame_fresh", (u64)d->stored * PAGE_SIZE,
		 d->zbytes_fresh);
	zb_printf("xv_frames_fresh %llu\nzs_frames_fresh %llu\n",
		  d->xv_fresh.pages, d->zs_fresh);
	zb_ratio("xv_zpages_per_frame_fresh", d->stored, d->xv_fresh.pages);
	zb_ratio("zs_zpages_per_frame_fresh", d->stored, d->zs_fresh);
	zb_ratio("xv_hdr_round_bytes_per_obj",
		 d->xv_fresh.bytes_used - d->xv_fresh.bytes_requested,
		 d->xv_fresh.objects);
	zb_printf("xv_free_bytes_fresh %llu\n", d->xv_fresh.bytes_free);
	zb_printf("freed %u\nstored_churn %u\ncompressed_bytes_churn %llu\n",
		  d->freed, left, d->zbytes_churn);
	zb_ratio("ideal_zpages_per_frame_churn", (u64)left * PAGE_SIZE,
		 d->zbytes_churn);
	zb_printf("xv_frames_churn %llu\nzs_frames_churn %llu\nzs_frames_compacted %llu\n",
		  d->xv_churn.pages, d->zs_churn, d->zs_compact);
	zb_ratio("xv_zpages_per_frame_churn", left, d->xv_churn.pages);
	zb_ratio("zs_zpages_per_frame_churn", left, d->zs_churn);
	zb_ratio("zs_zpages_per_frame_compacted", left, d->zs_compact);
	zb_printf("xv_free_bytes_churn %llu\n", d->xv_churn.bytes_free);
	zb_printf("errors %llu\nfirst_error %d\nmismatches %llu\nelapsed_ms %llu\n",
		  e->errors, e->first_error, e->mismatches,
		  div_u64(ns, NSEC_PER_MSEC));
}

static int zb_density(u32 n, u64 seed)
{
	struct zb_density d = {};
	struct zb_errors e = {};
	struct xv_pool *xv = NULL;
	struct zs_pool *zs = NULL;
	struct zb_obj *objs, *o;
	u8 *page, *zbuf, *wrk;
	struct zb_rng r = { .s = seed ^ 0x636875726eull };
	u64 t0 = ktime_get_ns();
	size_t zlen;
	u32 *order;
	u32 i, j, t;
	int ret = -ENOMEM;

	objs = kvcalloc(n, sizeof(*objs), GFP_KERNEL);
	order = kvmalloc_array(n, sizeof(*order), GFP_KERNEL);
	page = kmalloc(PAGE_SIZE, GFP_KERNEL);
	zbuf = kmalloc(ZB_ZBUF_SIZE, GFP_KERNEL);
	wrk = kmalloc(LZO1X_MEM_COMPRESS, GFP_KERNEL);
	if (!objs || !order || !page || !zbuf || !wrk)
		goto out;
	xv = xv_create_pool();
	zs = zs_create_pool("zbench");
	if (!xv || !zs)
		goto out;
	ret = 0;

	for (i = 0; i < n; i++) {
		zb_progress("density-store", i, n);
		d.kinds[zb_page(seed, i, page)]++;
		zlen = ZB_ZBUF_SIZE;
		if (lzo1x_1_compress(page, PAGE_SIZE, zbuf, &zlen, wrk) !=
		    LZO_E_OK) {
			zb_error(&e, -EIO);
			break;
		}
		if (zlen > ZBENCH_MAX_ZSIZE) {
			d.excluded++;
			continue;
		}
		ret = zb_obj_store(xv, zs, &objs[d.stored], zbuf, zlen);
		if (ret) {
			pr_warn("density: page %u: cannot store %zu bytes: %d\n",
				i, zlen, ret);
			zb_error(&e, ret);
			ret = 0;
			break;
		}
		d.stored++;
		d.zbytes_fresh += zlen;
		cond_resched();
	}
	if (e.errors)
		goto report;
	xv_get_stats(xv, &d.xv_fresh);
	d.zs_fresh = zs_get_total_pages(zs);

	/* The same random half out of both. */
	for (i = 0; i < d.stored; i++)
		order[i] = i;
	for (i = d.stored; i > 1; i--) {
		j = zb_below(&r, i);
		t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	d.zbytes_churn = d.zbytes_fresh;
	for (i = 0; i < d.stored / 2; i++) {
		zb_progress("density-churn", i, d.stored / 2);
		o = &objs[order[i]];
		d.zbytes_churn -= o->len;
		zb_obj_free(xv, zs, o);
		d.freed++;
		cond_resched();
	}
	xv_get_stats(xv, &d.xv_churn);
	d.zs_churn = zs_get_total_pages(zs);
	zs_compact(zs);
	d.zs_compact = zs_get_total_pages(zs);

	for (i = 0; i < d.stored; i++) {
		zb_progress("density-check", i, d.stored);
		if (objs[i].live)
			e.mismatches += zb_obj_check(xv, zs, &objs[i]);
		cond_resched();
	}
report:
	zb_density_report(n, seed, &d, &e, ktime_get_ns() - t0);
out:
	for (i = 0; objs && i < d.stored; i++) {
		if (objs[i].live)
			zb_obj_free(xv, zs, &objs[i]);
		cond_resched();
	}
	if (zs)
		zs_destroy_pool(zs);
	xv_destroy_pool(xv);
	kfree(wrk);
	kfree(zbuf);
	kfree(page);
	kvfree(order);
	kvfree(objs);
	zb_progress("density-done", n, n);
	return ret;
}

/* ---- putget ---- */

struct zb_putget {
	u64			put_ns;
	u64			get_ns;
	u64			comp_ns;
	u64			decomp_ns;
	u64			misses;
	u64			lzo_mismatches;
	u64			lzo_bytes;
	struct zcache_stats	zst;
	struct tmem_stats	tst;
};

static void zb_release(void)
{
	tmem_store_destroy(zb_store);
	zb_store = NULL;
	if (zb_zc)
		zcache_destroy(zb_zc);
	zb_zc = NULL;
}

/* Page i's handle, laid out as frontswap's: 16 objects. */
static void zb_handle(struct tmem_handle *h, u32 pool_id, u32 i)
{
	h->pool_id = pool_id;
	h->oid[0] = i & 15;
	h->oid[1] = 0;
	h->oid[2] = 0;
	h->index = i >> 4;
}

static void zb_putget_report(u32 n, u64 seed, const struct zb_putget *p,
			     const struct zb_errors *e, u64 ns)
{
	const struct zcache_stats *z = &p->zst;
	u64 zpages = z->stored_pages - z->same_filled_pages - z->huge_pages;

	zb_printf("cmd putget\npages %u\nseed %llu\n", n, seed);
	zb_printf("errors %llu\nfirst_error %d\nget_misses %llu\n",
		  e->errors, e->first_error, p->misses);
	zb_printf("mismatches %llu\nlzo_mismatches %llu\n", e->mismatches,
		  p->lzo_mismatches);
	zb_printf("stored_pages %llu\nsame_filled_pages %llu\nhuge_pages %llu\n",
		  z->stored_pages, z->same_filled_pages, z->huge_pages);
	zb_printf("compressed_bytes %llu\npool_pages %llu\n",
		  z->compressed_bytes, z->pool_pages);
	zb_printf("tmem_pers_pages %llu\ntmem_objects %llu\n",
		  p->tst.pers_pages, p->tst.objects);
	zb_printf("lzo_compressed_bytes %llu\n", p->lzo_bytes);
	zb_ratio("xv_slack_bytes_per_zpage",
		 (z->pool_pages - z->huge_pages) * PAGE_SIZE -
		 z->compressed_bytes, zpages);
	zb_printf("put_ns %llu\nget_ns %llu\ncompress_ns %llu\ndecompress_ns %llu\n",
		  p->put_ns, p->get_ns, p->comp_ns, p->decomp_ns);
	zb_printf("put_pages_per_s %llu\nget_pages_per_s %llu\n",
		  zb_rate(n, p->put_ns), zb_rate(n, p->get_ns));
	zb_printf("compress_pages_per_s %llu\ndecompress_pages_per_s %llu\n",
		  zb_rate(n, p->comp_ns), zb_rate(n, p->decomp_ns));
	/* Rates over the same n pages: the ratio of the times, inverted. */
	zb_ratio("put_vs_compress", p->comp_ns, p->put_ns);
	zb_ratio("get_vs_decompress", p->decomp_ns, p->get_ns);
	zb_printf("elapsed_ms %llu\n", div_u64(ns, NSEC_PER_MSEC));
}

static int zb_putget(u32 n, u64 seed)
{
	struct zb_putget p = {};
	struct zb_errors e = {};
	struct page **pages;
	struct tmem_handle h;
	u8 *buf, *zbuf, *wrk;
	const u8 *src;
	u64 t0 = ktime_get_ns(), t;
	size_t zlen, len;
	u32 i;
	int pool, ret = -ENOMEM;

	zb_release();
	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	zbuf = kmalloc(ZB_ZBUF_SIZE, GFP_KERNEL);
	wrk = kmalloc(LZO1X_MEM_COMPRESS, GFP_KERNEL);
	if (!pages || !buf || !zbuf || !wrk)
		goto out;
	for (i = 0; i < n; i++) {
		zb_progress("putget-corpus", i, n);
		pages[i] = alloc_page(ZB_GFP);
		if (!pages[i]) {
			pr_warn("putget: no memory for page %u of %u of the corpus\n",
				i, n);
			goto out;
		}
		zb_page(seed, i, page_address(pages[i]));
		cond_resched();
	}
	zb_zc = zcache_create();
	if (!zb_zc)
		goto out;
	zb_store = tmem_store_create(&zcache_tmem_ops, zb_zc);
	if (!zb_store)
		goto out;
	pool = tmem_new_pool(zb_store, ZBENCH_NODE, tmem_pool_flags(true, false),
			     NULL);
	if (pool < 0) {
		pr_warn("putget: tmem_new_pool: %d\n", pool);
		ret = pool == -TMEM_ENOMEM ? -ENOMEM : -EIO;
		goto out;
	}
	ret = 0;

	for (i = 0; i < n; i++) {
		zb_progress("putget-put", i, n);
		zb_handle(&h, pool, i);
		src = page_address(pages[i]);
		t = ktime_get_ns();
		ret = tmem_put(zb_store, ZBENCH_NODE, &h, src);
		p.put_ns += ktime_get_ns() - t;
		if (ret != 1)
			zb_error(&e, ret < 0 ? ret : -EIO);
		cond_resched();
	}
	ret = 0;
	zcache_get_stats(zb_zc, &p.zst);
	tmem_stats_snapshot(zb_store, &p.tst);

	for (i = 0; i < n; i++) {
		zb_progress("putget-get", i, n);
		zb_handle(&h, pool, i);
		memset(buf, 0x5a, PAGE_SIZE);
		t = ktime_get_ns();
		ret = tmem_get(zb_store, ZBENCH_NODE, &h, buf);
		p.get_ns += ktime_get_ns() - t;
		if (ret == 1) {
			if (memcmp(buf, page_address(pages[i]), PAGE_SIZE))
				e.mismatches++;
		} else if (ret == 0) {
			p.misses++;
		} else {
			zb_error(&e, ret);
		}
		cond_resched();
	}
	ret = 0;

	for (i = 0; i < n; i++) {
		zb_progress("putget-compress", i, n);
		src = page_address(pages[i]);
		zlen = ZB_ZBUF_SIZE;
		t = ktime_get_ns();
		ret = lzo1x_1_compress(src, PAGE_SIZE, zbuf, &zlen, wrk);
		p.comp_ns += ktime_get_ns() - t;
		if (ret != LZO_E_OK)
			zb_error(&e, -EIO);
		p.lzo_bytes += zlen;
		cond_resched();
	}

	for (i = 0; i < n; i++) {
		zb_progress("putget-decompress", i, n);
		src = page_address(pages[i]);
		zlen = ZB_ZBUF_SIZE;
		if (lzo1x_1_compress(src, PAGE_SIZE, zbuf, &zlen, wrk) !=
		    LZO_E_OK) {
			zb_error(&e, -EIO);
			continue;
		}
		len = PAGE_SIZE;
		t = ktime_get_ns();
		ret = lzo1x_decompress_safe(zbuf, zlen, buf, &len);
		p.decomp_ns += ktime_get_ns() - t;
		if (ret != LZO_E_OK || len != PAGE_SIZE ||
		    memcmp(buf, src, PAGE_SIZE))
			p.lzo_mismatches++;
		cond_resched();
	}
	ret = 0;
	zb_putget_report(n, seed, &p, &e, ktime_get_ns() - t0);
out:
	if (ret)
		zb_release();
	for (i = 0; pages && i < n && pages[i]; i++)
		__free_page(pages[i]);
	kfree(wrk);
	kfree(zbuf);
	kfree(buf);
	kvfree(pages);
	zb_progress("putget-done", n, n);
	return ret;
}

/* ---- debugfs ---- */

static int zb_parse_run(int argc, char **argv)
{
	u64 seed;
	u32 n;

	if (argc == 1 && !strcmp(argv[0], "release")) {
		zb_release();
		zb_printf("cmd release\n");
		return 0;
	}
	if (argc != 3 || kstrtou32(argv[1], 0, &n) || !n ||
	    n > ZBENCH_MAX_PAGES || kstrtou64(argv[2], 0, &seed))
		return -EINVAL;
	if (!strcmp(argv[0], "density"))
		return zb_density(n, seed);
	if (!strcmp(argv[0], "putget"))
		return zb_putget(n, seed);
	return -EINVAL;
}

static ssize_t zb_run_write(struct file *file, const char __user *ubuf,
			    size_t n, loff_t *ppos)
{
	char *buf, **argv;
	int argc, err;

	if (n > ZB_CMD_MAX) {
		pr_warn("command longer than %d bytes; usage: %s\n",
			ZB_CMD_MAX, ZB_USAGE);
		return -EINVAL;
	}
	buf = memdup_user_nul(ubuf, n);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	argv = argv_split(GFP_KERNEL, buf, &argc);
	kfree(buf);
	if (!argv)
		return -ENOMEM;
	err = mutex_lock_killable(&zb_run_lock);
	if (err) {
		argv_free(argv);
		return err;
	}
	zb_out_len = 0;
	zb_out[0] = '\0';
	err = zb_parse_run(argc, argv);
	if (err == -EINVAL)
		pr_warn("bad command; usage: %s\n", ZB_USAGE);
	else if (err)
		pr_warn("command failed: %d\n", err);
	mutex_unlock(&zb_run_lock);
	argv_free(argv);
	return err ?: n;
}

static ssize_t zb_run_read(struct file *file, char __user *ubuf, size_t n,
			   loff_t *ppos)
{
	ssize_t ret;

	ret = mutex_lock_killable(&zb_run_lock);
	if (ret)
		return ret;
	ret = simple_read_from_buffer(ubuf, n, ppos, zb_out, zb_out_len);
	mutex_unlock(&zb_run_lock);
	return ret;
}

static const struct file_operations zb_run_fops = {
	.owner	= THIS_MODULE,
	.read	= zb_run_read,
	.write	= zb_run_write,
	.llseek	= default_llseek,
};

static ssize_t zb_progress_read(struct file *file, char __user *ubuf,
				size_t n, loff_t *ppos)
{
	char line[64];
	int len;

	len = scnprintf(line, sizeof(line), "%s %u %u\n", READ_ONCE(zb_phase),
			READ_ONCE(zb_done), READ_ONCE(zb_total));
	return simple_read_from_buffer(ubuf, n, ppos, line, len);
}

static const struct file_operations zb_progress_fops = {
	.owner	= THIS_MODULE,
	.read	= zb_progress_read,
	.llseek	= default_llseek,
};

static int __init zb_init(void)
{
	BUILD_BUG_ON(PAGE_SIZE != TMEM_PAGE_SIZE);
	zb_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0600, zb_dir, NULL, &zb_run_fops);
	debugfs_create_file("progress", 0444, zb_dir, NULL, &zb_progress_fops);
	return 0;
}

static void __exit zb_exit(void)
{
	debugfs_remove_recursive(zb_dir);
	mutex_lock(&zb_run_lock);
	zb_release();
	mutex_unlock(&zb_run_lock);
}

module_init(zb_init);
module_exit(zb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RAMster memory server bench: xvmalloc density, put/get rates");
