// SPDX-License-Identifier: GPL-2.0
/*
 * zcache.c - LZO1X-compressed page data in xvmalloc for the tmem store.
 *
 * The store keeps one opaque pointer per page; zcache encodes three kinds
 * in it, told apart by its low bits and its offset in a page:
 *
 *   value << 3 | 1	a page of one repeated 32-bit value; nothing allocated
 *   page-aligned	a whole page in a page frame of its own (huge page)
 *   otherwise		an xvmalloc object (8-byte aligned, never at offset 0
 *			since every block starts with a header): a 2-byte
 *			compressed length, then the LZO1X stream
 *
 * Compression runs in a per-CPU buffer under a per-CPU mutex, so a put may
 * sleep and move to another CPU while it holds one.  Decompression needs no
 * buffer and does not sleep: the store calls it under spinlocks.
 *
 * A page a client compressed itself (a zpage: one repeated value, an
 * LZO1X stream, or the page whole because it did not compress) is kept in
 * the same three kinds, as it came: its stream is stored byte for byte,
 * never decompressed or compressed again, and a zpage get
 * (zcache_get_stored()) gives those bytes back.  Only a plain get
 * decompresses it, checked (zcache_get_data()).
 */
#include <linux/atomic.h>
#include <linux/export.h>
#include <linux/gfp.h>
#include <linux/lzo.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#include "tmem.h"
#include "xvmalloc.h"
#include "zcache.h"
#include "store_export.h"

#define ZC_TAG_SAME		1UL
#define ZC_TAG_MASK		7UL
#define ZC_VALUE_SHIFT		3
#define ZC_LEN_SIZE		sizeof(u16)
#define ZC_MAX_ZSIZE_MIN	64
#define ZC_MAX_ZSIZE_MAX	ZCACHE_MAX_ZSIZE
static_assert(XV_MAX_ALLOC_SIZE - ZC_LEN_SIZE == ZC_MAX_ZSIZE_MAX);

/*
 * Allocations for data: fail rather than reclaim hard, like zswap.  The
 * client's local tier stores in reclaim, which may take the reserves; a
 * memory server keeps its own margin above them (tmem_set_limits()).
 */
#define ZC_GFP	(__GFP_NORETRY | __GFP_NOWARN | __GFP_KSWAPD_RECLAIM)

static unsigned int max_zsize = PAGE_SIZE * 7 / 8;

static int max_zsize_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint_minmax(val, kp, ZC_MAX_ZSIZE_MIN,
					ZC_MAX_ZSIZE_MAX);

	if (ret)
		pr_err("max_zsize: '%.*s' refused: want %u..%lu bytes\n",
		       (int)strcspn(val, "\n"), val, ZC_MAX_ZSIZE_MIN,
		       (unsigned long)ZC_MAX_ZSIZE_MAX);
	return ret;
}

/* The max_zsize parameter now. */
unsigned int zcache_max_zsize(void)
{
	return READ_ONCE(max_zsize);
}

static const struct kernel_param_ops max_zsize_ops = {
	.set = max_zsize_set,
	.get = param_get_uint,
};
module_param_cb(max_zsize, &max_zsize_ops, &max_zsize, 0644);
MODULE_PARM_DESC(max_zsize, "largest compressed page kept in xvmalloc (bytes); a page compressing worse is refused for ephemeral pools, kept whole for persistent ones");

struct zcache_cpu {
	struct mutex lock;	/* the buffers */
	void *wrkmem;		/* LZO1X_MEM_COMPRESS */
	u8 *dst;		/* lzo1x_worst_compress(PAGE_SIZE) */
};

struct zcache {
	struct xv_pool *xv;
	struct zcache_cpu __percpu *cpu;
	atomic64_t stored_pages;
	atomic64_t same_filled_pages;
	atomic64_t huge_pages;
	atomic64_t compressed_bytes;
	atomic64_t reject_compress_poor;
	atomic64_t reject_alloc_fail;
	atomic64_t stored_as_sent;
};

/* One repeated 32-bit value throughout the page?  Then *fill is it. */
static bool zcache_same_filled(const void *page, u32 *fill)
{
	const u32 *w = page;
	unsigned int i;

	for (i = 1; i < PAGE_SIZE / sizeof(*w); i++)
		if (w[i] != w[0])
			return false;
	*fill = w[0];
	return true;
}

static void *zcache_store_same(struct zcache *zc, u32 fill)
{
	atomic64_inc(&zc->same_filled_pages);
	atomic64_inc(&zc->stored_pages);
	return (void *)((unsigned long)fill << ZC_VALUE_SHIFT | ZC_TAG_SAME);
}

static void *zcache_store_huge(struct zcache *zc, const void *page, int *err)
{
	struct page *pg = alloc_page(ZC_GFP);

	if (!pg) {
		atomic64_inc(&zc->reject_alloc_fail);
		*err = -TMEM_ENOMEM;
		return NULL;
	}
	memcpy(page_address(pg), page, PAGE_SIZE);
	atomic64_inc(&zc->huge_pages);
	atomic64_inc(&zc->stored_pages);
	return page_address(pg);
}

/* A page that did not compress: kept whole if @pool must not lose it. */
static void *zcache_store_poor(struct zcache *zc, const void *page,
			       struct tmem_pool *pool, int *err)
{
	if (tmem_pool_persistent(pool))
		return zcache_store_huge(zc, page, err);
	atomic64_inc(&zc->reject_compress_poor);
	*err = -TMEM_ENOMEM;
	return NULL;
}

/* @zlen bytes of LZO1X stream into xvmalloc, behind their length. */
static void *zcache_store_stream(struct zcache *zc, const void *stream,
				 size_t zlen, int *err)
{
	struct page *pg;
	u8 *obj;
	u32 off;

	if (xv_malloc(zc->xv, ZC_LEN_SIZE + zlen, &pg, &off, ZC_GFP)) {
		atomic64_inc(&zc->reject_alloc_fail);
		*err = -TMEM_ENOMEM;
		return NULL;
	}
	obj = page_address(pg) + off;
	put_unaligned((u16)zlen, (u16 *)obj);
	memcpy(obj + ZC_LEN_SIZE, stream, zlen);
	atomic64_add(zlen, &zc->compressed_bytes);
	atomic64_inc(&zc->stored_pages);
	return obj;
}

/* A whole page: same-filled, compressed here, or as zcache_store_poor(). */
static void *zcache_store_page(struct zcache *zc, const void *page,
			       struct tmem_pool *pool, int *err)
{
	unsigned int max = READ_ONCE(max_zsize);
	size_t dlen = lzo1x_worst_compress(PAGE_SIZE);
	struct zcache_cpu *cpu;
	void *data = NULL;
	bool fits;
	u32 fill;

	if (zcache_same_filled(page, &fill))
		return zcache_store_same(zc, fill);

	cpu = raw_cpu_ptr(zc->cpu);
	mutex_lock(&cpu->lock);
	fits = lzo1x_1_compress(page, PAGE_SIZE, cpu->dst, &dlen,
				cpu->wrkmem) == LZO_E_OK && dlen <= max;
	if (fits)
		data = zcache_store_stream(zc, cpu->dst, dlen, err);
	mutex_unlock(&cpu->lock);
	return fits ? data : zcache_store_poor(zc, page, pool, err);
}

/*
 * An LZO1X stream a client compressed its page to, kept as given: it is
 * not decompressed here (zcache_get_data() does that, checked, if a
 * GET_PAGE asks for it).  Held to max_zsize as a page compressed here;
 * a persistent pool keeps a longer one if xvmalloc takes it, since the
 * page itself, to keep whole, is not at hand.
 */
static void *zcache_store_lzo(struct zcache *zc, const struct tmem_zpage *src,
			      struct tmem_pool *pool, int *err)
{
	if (!src->arg) {
		*err = -TMEM_EINVAL;
		return NULL;
	}
	if (src->arg > ZC_MAX_ZSIZE_MAX ||
	    (src->arg > READ_ONCE(max_zsize) && !tmem_pool_persistent(pool))) {
		atomic64_inc(&zc->reject_compress_poor);
		*err = -TMEM_ENOMEM;
		return NULL;
	}
	return zcache_store_stream(zc, src->data, src->arg, err);
}

/*
 * The data for a page in any form (struct tmem_data_ops.create).  A zpage
 * (SAME, LZO, RAW) is kept in the form it came in, or refused: neither
 * compressed nor decompressed.
 */
static void *zcache_create_data(const struct tmem_zpage *src,
				struct tmem_pool *pool, int *err)
{
	struct zcache *zc = tmem_pool_priv(pool);
	void *data;

	switch (src->enc) {
	case TMEM_ZENC_PAGE:
		return zcache_store_page(zc, src->data, pool, err);
	case TMEM_ZENC_SAME:
		data = zcache_store_same(zc, src->arg);
		break;
	case TMEM_ZENC_LZO:
		data = zcache_store_lzo(zc, src, pool, err);
		break;
	case TMEM_ZENC_RAW:
		/* Its sender found that it does not compress. */
		if (src->arg != PAGE_SIZE) {
			*err = -TMEM_EINVAL;
			return NULL;
		}
		data = zcache_store_poor(zc, src->data, pool, err);
		break;
	default:
		*err = -TMEM_EINVAL;
		return NULL;
	}
	if (data)
		atomic64_inc(&zc->stored_as_sent);
	return data;
}

/*
 * May run under spinlocks: does not sleep.  The LZO stream of an
 * xvmalloc object may be a client's, kept as it sent it and decompressed
 * for the first time here: lzo1x_decompress_safe() checks every length
 * against the stream and the page and never reads or writes outside them,
 * so a bad stream fails this get alone with -TMEM_EINVAL (the store
 * counts it in get_errors).
 */
static int zcache_get_data(void *data, void *page)
{
	unsigned long v = (unsigned long)data;
	size_t dlen = PAGE_SIZE;
	u8 *obj = data;
	u16 clen;
	int ret;

	if ((v & ZC_TAG_MASK) == ZC_TAG_SAME) {
		memset32(page, (u32)(v >> ZC_VALUE_SHIFT), PAGE_SIZE / 4);
		return 0;
	}
	if (!offset_in_page(obj)) {
		memcpy(page, obj, PAGE_SIZE);
		return 0;
	}
	clen = get_unaligned((u16 *)obj);
	ret = lzo1x_decompress_safe(obj + ZC_LEN_SIZE, clen, page, &dlen);
	if (ret == LZO_E_OK && dlen == PAGE_SIZE)
		return 0;
	/*
	 * A bad stream a client sent, or (a page compressed here) a bug or
	 * memory corruption.
	 */
	pr_warn_ratelimited("a page did not decompress (lzo %d, %zu bytes from %u)\n",
			    ret, dlen, clen);
	return -TMEM_EINVAL;
}

/*
 * The data as it is kept (struct tmem_data_ops.get_stored), never
 * decompressed: a client that sent it compressed gets back the very
 * bytes it sent.  May run under spinlocks: does not sleep.
 */
static int zcache_get_stored(void *data, struct tmem_zpage *z, void *buf)
{
	unsigned long v = (unsigned long)data;
	u8 *obj = data;
	u16 clen;

	z->data = buf;
	if ((v & ZC_TAG_MASK) == ZC_TAG_SAME) {
		z->enc = TMEM_ZENC_SAME;
		z->arg = (u32)(v >> ZC_VALUE_SHIFT);
		return 0;
	}
	if (!offset_in_page(obj)) {
		memcpy(buf, obj, PAGE_SIZE);
		z->enc = TMEM_ZENC_RAW;
		z->arg = PAGE_SIZE;
		return 0;
	}
	clen = get_unaligned((u16 *)obj);
	/* xvmalloc holds at most ZC_MAX_ZSIZE_MAX: only a bug gets here. */
	if (!clen || clen > TMEM_ZPAGE_LZO_MAX) {
		pr_err_ratelimited("a stored page claims %u compressed bytes\n",
				   clen);
		return -TMEM_EINVAL;
	}
	memcpy(buf, obj + ZC_LEN_SIZE, clen);
	z->enc = TMEM_ZENC_LZO;
	z->arg = clen;
	return 0;
}

static void zcache_free_data(void *data, struct tmem_pool *pool)
{
	struct zcache *zc = tmem_pool_priv(pool);
	unsigned long v = (unsigned long)data;
	u8 *obj = data;

	atomic64_dec(&zc->stored_pages);
	if ((v & ZC_TAG_MASK) == ZC_TAG_SAME) {
		atomic64_dec(&zc->same_filled_pages);
	} else if (!offset_in_page(obj)) {
		atomic64_dec(&zc->huge_pages);
		__free_page(virt_to_page(obj));
	} else {
		atomic64_sub(get_unaligned((u16 *)obj), &zc->compressed_bytes);
		xv_free(zc->xv, virt_to_page(obj), offset_in_page(obj));
	}
}

/*
 * The bytes the data keeps (struct tmem_data_ops.size): none for one
 * repeated value, a page kept whole, or what it asked xvmalloc for.
 */
static unsigned int zcache_data_size(void *data)
{
	unsigned long v = (unsigned long)data;

	if ((v & ZC_TAG_MASK) == ZC_TAG_SAME)
		return 0;
	if (!offset_in_page(data))
		return PAGE_SIZE;
	return ZC_LEN_SIZE + get_unaligned((u16 *)data);
}

static unsigned long zcache_frames(void *priv)
{
	struct zcache *zc = priv;

	return xv_get_total_size_bytes(zc->xv) / PAGE_SIZE +
	       atomic64_read(&zc->huge_pages);
}

const struct tmem_data_ops zcache_tmem_ops = {
	.create		= zcache_create_data,
	.get		= zcache_get_data,
	.get_stored	= zcache_get_stored,
	.free		= zcache_free_data,
	.frames		= zcache_frames,
	.size		= zcache_data_size,
};
EXPORT_SYMBOL_GPL(zcache_tmem_ops);

static void zcache_free_cpus(struct zcache *zc)
{
	int c;

	for_each_possible_cpu(c) {
		struct zcache_cpu *cpu = per_cpu_ptr(zc->cpu, c);

		kfree(cpu->wrkmem);
		kfree(cpu->dst);
	}
	free_percpu(zc->cpu);
}

/**
 * zcache_create() - an empty zcache with its xvmalloc pool and buffers
 *
 * Context: process context; may sleep.
 * Return: the zcache, or NULL when out of memory.
 */
struct zcache *zcache_create(void)
{
	struct zcache *zc = kzalloc(sizeof(*zc), GFP_KERNEL);
	int c;

	if (!zc)
		return NULL;
	zc->xv = xv_create_pool();
	if (!zc->xv)
		goto fail_xv;
	zc->cpu = alloc_percpu(struct zcache_cpu);
	if (!zc->cpu)
		goto fail_cpu;
	for_each_possible_cpu(c) {
		struct zcache_cpu *cpu = per_cpu_ptr(zc->cpu, c);

		mutex_init(&cpu->lock);
		cpu->wrkmem = kmalloc_node(LZO1X_MEM_COMPRESS, GFP_KERNEL,
					   cpu_to_node(c));
		cpu->dst = kmalloc_node(lzo1x_worst_compress(PAGE_SIZE),
					GFP_KERNEL, cpu_to_node(c));
		if (!cpu->wrkmem || !cpu->dst)
			goto fail_buffers;
	}
	return zc;

fail_buffers:
	zcache_free_cpus(zc);
fail_cpu:
	xv_destroy_pool(zc->xv);
fail_xv:
	kfree(zc);
	return NULL;
}
EXPORT_SYMBOL_GPL(zcache_create);

/**
 * zcache_destroy() - free a zcache whose store has freed every page
 * @zc: the zcache, or NULL
 */
void zcache_destroy(struct zcache *zc)
{
	if (!zc)
		return;
	WARN_ON_ONCE(atomic64_read(&zc->stored_pages));
	zcache_free_cpus(zc);
	xv_destroy_pool(zc->xv);
	kfree(zc);
}
EXPORT_SYMBOL_GPL(zcache_destroy);

/**
 * zcache_get_stats() - read a zcache's counters
 * @zc: the zcache
 * @st: filled in; the counters are read one by one, not as one snapshot
 */
void zcache_get_stats(struct zcache *zc, struct zcache_stats *st)
{
	st->stored_pages = atomic64_read(&zc->stored_pages);
	st->same_filled_pages = atomic64_read(&zc->same_filled_pages);
	st->huge_pages = atomic64_read(&zc->huge_pages);
	st->compressed_bytes = atomic64_read(&zc->compressed_bytes);
	st->pool_pages = zcache_frames(zc);
	st->pool_total_size = st->pool_pages * PAGE_SIZE;
	st->reject_compress_poor = atomic64_read(&zc->reject_compress_poor);
	st->reject_alloc_fail = atomic64_read(&zc->reject_alloc_fail);
	st->stored_as_sent = atomic64_read(&zc->stored_as_sent);
}
EXPORT_SYMBOL_GPL(zcache_get_stats);
