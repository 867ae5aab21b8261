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

#define ZC_TAG_SAME		1UL
#define ZC_TAG_MASK		7UL
#define ZC_VALUE_SHIFT		3
#define ZC_LEN_SIZE		sizeof(u16)
#define ZC_MAX_ZSIZE_MIN	64
#define ZC_MAX_ZSIZE_MAX	(XV_MAX_ALLOC_SIZE - ZC_LEN_SIZE)

/* Allocations for data: fail rather than reclaim hard, like zswap. */
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

static void *zcache_create_data(const void *page, struct tmem_pool *pool,
				int *err)
{
	struct zcache *zc = tmem_pool_priv(pool);
	struct zcache_cpu *cpu;
	struct page *pg;
	size_t dlen = lzo1x_worst_compress(PAGE_SIZE);
	u8 *obj;
	u32 fill, off;
	int ret;

	if (zcache_same_filled(page, &fill)) {
		atomic64_inc(&zc->same_filled_pages);
		atomic64_inc(&zc->stored_pages);
		return (void *)((unsigned long)fill << ZC_VALUE_SHIFT |
				ZC_TAG_SAME);
	}

	cpu = raw_cpu_ptr(zc->cpu);
	mutex_lock(&cpu->lock);
	ret = lzo1x_1_compress(page, PAGE_SIZE, cpu->dst, &dlen, cpu->wrkmem);
	if (ret != LZO_E_OK || dlen > READ_ONCE(max_zsize)) {
		mutex_unlock(&cpu->lock);
		if (tmem_pool_persistent(pool))
			return zcache_store_huge(zc, page, err);
		atomic64_inc(&zc->reject_compress_poor);
		*err = -TMEM_ENOMEM;
		return NULL;
	}
	if (xv_malloc(zc->xv, ZC_LEN_SIZE + dlen, &pg, &off, ZC_GFP)) {
		mutex_unlock(&cpu->lock);
		atomic64_inc(&zc->reject_alloc_fail);
		*err = -TMEM_ENOMEM;
		return NULL;
	}
	obj = page_address(pg) + off;
	put_unaligned((u16)dlen, (u16 *)obj);
	memcpy(obj + ZC_LEN_SIZE, cpu->dst, dlen);
	mutex_unlock(&cpu->lock);

	atomic64_add(dlen, &zc->compressed_bytes);
	atomic64_inc(&zc->stored_pages);
	return obj;
}

/* May run under spinlocks: does not sleep. */
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
	 * Our own data did not come back: a bug or memory corruption.  The
	 * store counts it in get_errors and the client gets an error.
	 */
	pr_err_ratelimited("a page did not decompress (lzo %d, %zu bytes from %u)\n",
			   ret, dlen, clen);
	return -TMEM_EINVAL;
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

static unsigned long zcache_frames(void *priv)
{
	struct zcache *zc = priv;

	return xv_get_total_size_bytes(zc->xv) / PAGE_SIZE +
	       atomic64_read(&zc->huge_pages);
}

const struct tmem_data_ops zcache_tmem_ops = {
	.create	= zcache_create_data,
	.get	= zcache_get_data,
	.free	= zcache_free_data,
	.frames	= zcache_frames,
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
}
EXPORT_SYMBOL_GPL(zcache_get_stats);
