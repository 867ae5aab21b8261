// SPDX-License-Identifier: GPL-2.0
/*
 * zpage.c - pages compressed once, here, on their way to the server.
 *
 * With compress=1 (the default) every page sent to a memory server goes
 * as a zpage (shared-abi/r2net_wire.h): a page of one repeated 32-bit
 * value as that value alone, a page LZO1X-1 shrinks to at most
 * RF_ZPAGE_LZO_MAX bytes as the LZO stream, any other page whole.  The
 * server keeps the bytes as they came (the same LZO as its own store
 * uses) and gives them back as they are: only this node ever decompresses
 * them, with the bounds-checked decompressor, so bytes that went wrong on
 * the way can hurt no one but the page asked for, which then misses.
 *
 * A compressed page is written into a buffer of rf_zbuf_pool for as long
 * as r2net_send_*() takes to copy it into its frame; a page sent whole is
 * referenced, as before.  With compress=0 pages go as PUT_PAGE/GET_PAGE,
 * 4 KiB each way: for servers older than zpages and for the bench.
 */
#include <linux/highmem.h>
#include <linux/lzo.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ramster_frontend.h"
#include "tmem_client.h"
#include "zpage.h"

#define RF_ZBUFS		8	/* buffers that need no allocation */
/* Above this an LZO page is not worth its decompression: send it whole. */
#define RF_ZPAGE_LZO_MAX	(PAGE_SIZE * 7 / 8)

static_assert(RF_ZPAGE_LZO_MAX <= R2NET_ZPAGE_LZO_MAX, "zpage LZO bound");

static bool compress = true;
module_param(compress, bool, 0444);
MODULE_PARM_DESC(compress, "Send pages LZO-compressed (same-filled ones as their value) and keep them so on the server; 0: whole 4 KiB pages, for servers without zpages");

/* LZO's work memory and output, per CPU. */
struct rf_zctx {
	struct mutex	lock;		/* the buffers */
	void		*wrkmem;	/* LZO1X_MEM_COMPRESS */
	u8		*dst;		/* lzo1x_worst_compress(PAGE_SIZE) */
};

static struct rf_zctx __percpu *rf_zctx;
static mempool_t *rf_zbuf_pool;

bool rf_zpage_on(void)
{
	return compress;
}

/* The GET type whose reply rf_zpage_unpack() reads. */
u16 rf_zpage_get_msg(void)
{
	return compress ? R2NET_MSG_TMEM_GET_ZPAGE : R2NET_MSG_TMEM_GET_PAGE;
}

/* Is every 32-bit word of p the first one? */
static bool rf_same_filled(const u32 *p, u32 *fill)
{
	unsigned int i;

	for (i = 1; i < PAGE_SIZE / sizeof(*p); i++)
		if (p[i] != p[0])
			return false;
	*fill = p[0];
	return true;
}

/**
 * rf_zpage_pack() - compress a page once, for every server
 * @page: the page
 * @buf: PAGE_SIZE bytes for the LZO stream
 * @z: filled in: SAME (no data), LZO (its @z->arg bytes in @buf) or RAW
 *	(the page itself is the data)
 *
 * Context: process context; may sleep.
 */
void rf_zpage_pack(struct page *page, u8 *buf, struct r2net_zpage *z)
{
	struct rf_zctx *ctx;
	size_t dlen = lzo1x_worst_compress(PAGE_SIZE);
	const void *src;
	u32 fill;
	int ret;

	src = kmap_local_page(page);
	if (rf_same_filled(src, &fill)) {
		kunmap_local(src);
		z->enc = R2NET_ZPAGE_SAME;
		z->arg = fill;
		atomic64_inc(&rf_stats.zpages_same);
		return;
	}
	ctx = raw_cpu_ptr(rf_zctx);
	mutex_lock(&ctx->lock);
	ret = lzo1x_1_compress(src, PAGE_SIZE, ctx->dst, &dlen, ctx->wrkmem);
	kunmap_local(src);
	if (ret == LZO_E_OK && dlen && dlen <= RF_ZPAGE_LZO_MAX) {
		memcpy(buf, ctx->dst, dlen);
		mutex_unlock(&ctx->lock);
		z->enc = R2NET_ZPAGE_LZO;
		z->arg = dlen;
		atomic64_inc(&rf_stats.zpages_lzo);
		atomic64_add(dlen, &rf_stats.zpage_bytes_out);
		return;
	}
	mutex_unlock(&ctx->lock);
	z->enc = R2NET_ZPAGE_RAW;
	z->arg = PAGE_SIZE;
	atomic64_inc(&rf_stats.zpages_raw);
	atomic64_add(PAGE_SIZE, &rf_stats.zpage_bytes_out);
}

/**
 * rf_zput_prepare() - pack a page for PUTs, once for every server
 * @p: filled in; rf_zput_release() it after the last rf_zput_send_*()
 * @page: stays as it is until the last PUT completes (a page sent whole
 *	is referenced by r2net, not copied)
 * @whole_ok: false for an ephemeral pool, which refuses incompressible pages
 *
 * Context: process context; may sleep.
 * Return: 0, or -E2BIG (nothing to release) when the page does not
 * compress and @whole_ok is false.
 */
int rf_zput_prepare(struct rf_zput *p, struct page *page, bool whole_ok)
{
	p->page = page;
	p->buf = NULL;
	if (!compress)
		return 0;
	p->buf = mempool_alloc(rf_zbuf_pool, GFP_NOIO);
	rf_zpage_pack(page, p->buf, &p->z);
	if (p->z.enc == R2NET_ZPAGE_RAW && !whole_ok) {
		rf_zput_release(p);
		atomic64_inc(&rf_stats.zpages_kept_back);
		return -E2BIG;
	}
	return 0;
}

void rf_zput_release(struct rf_zput *p)
{
	if (p->buf)
		mempool_free(p->buf, rf_zbuf_pool);
	p->buf = NULL;
}

/* The frame's head and, for a compressed page, its data; r2net copies both. */
static size_t rf_zput_vec(struct rf_zput *p, const struct tmem_handle *h,
			  struct kvec *vec, struct page **page)
{
	if (!compress) {
		tmem_handle_to_le(&p->w.handle, h);
		vec[0].iov_base = &p->w.handle;
		vec[0].iov_len = sizeof(p->w.handle);
		*page = p->page;
		return 1;
	}
	r2net_tmem_zpage_encode(&p->w, h, &p->z);
	vec[0].iov_base = &p->w;
	vec[0].iov_len = sizeof(p->w);
	*page = p->z.enc == R2NET_ZPAGE_RAW ? p->page : NULL;
	if (p->z.enc != R2NET_ZPAGE_LZO)
		return 1;
	vec[1].iov_base = p->buf;
	vec[1].iov_len = p->z.arg;
	return 2;
}

static u16 rf_zput_msg(void)
{
	return compress ? R2NET_MSG_TMEM_PUT_ZPAGE : R2NET_MSG_TMEM_PUT_PAGE;
}

/* A PUT of the prepared page under h to node: as r2net_send_async(). */
int rf_zput_send_async(struct rf_zput *p, u8 node,
		       const struct tmem_handle *h, unsigned int timeout_ms,
		       r2net_done_fn done, void *arg)
{
	struct kvec vec[2];
	struct page *page;
	size_t nvec = rf_zput_vec(p, h, vec, &page);

	if (page)
		return r2net_send_page_async(node, rf_zput_msg(), RF_KEY,
					     vec[0].iov_base, vec[0].iov_len,
					     page, timeout_ms, done, arg);
	return r2net_send_async(node, rf_zput_msg(), RF_KEY, vec, nvec,
				timeout_ms, done, arg);
}

/* The same, waiting for the reply: as r2net_send_sync(). */
int rf_zput_send_sync(struct rf_zput *p, u8 node,
		      const struct tmem_handle *h, struct r2net_reply *reply,
		      unsigned int timeout_ms)
{
	struct kvec vec[2];
	struct page *page;
	size_t nvec = rf_zput_vec(p, h, vec, &page);

	if (page)
		return r2net_send_page_sync(node, rf_zput_msg(), RF_KEY,
					    vec[0].iov_base, vec[0].iov_len,
					    page, reply, timeout_ms);
	return r2net_send_sync(node, rf_zput_msg(), RF_KEY, vec, nvec, reply,
			       timeout_ms);
}

/**
 * rf_zpage_fill() - the page a zpage of a reply holds
 * @got: the handle the zpage names
 * @z: its form, checked by the ABI's decoder
 * @src: its data
 * @want: the handle asked for; @got must be it
 * @page: filled with the page
 *
 * Context: any; does not sleep.
 * Return: 0; -EPROTO for another handle or a form that is no page;
 * -EINVAL for an LZO stream that does not decompress to exactly one page
 * (counted in zpage_unpack_errors).  @page is then undefined.
 */
int rf_zpage_fill(const struct tmem_handle *got, const struct r2net_zpage *z,
		  const u8 *src, const struct tmem_handle *want,
		  struct page *page)
{
	size_t dlen = PAGE_SIZE;
	void *dst;
	int ret = 0;

	if (!tmem_handle_equal(got, want) || z->enc == R2NET_ZPAGE_NONE)
		return -EPROTO;
	atomic64_add(r2net_zpage_data_len(z), &rf_stats.zpage_bytes_in);
	dst = kmap_local_page(page);
	switch (z->enc) {
	case R2NET_ZPAGE_SAME:
		memset32(dst, z->arg, PAGE_SIZE / sizeof(u32));
		break;
	case R2NET_ZPAGE_RAW:
		memcpy(dst, src, PAGE_SIZE);
		break;
	default:
		if (lzo1x_decompress_safe(src, z->arg, dst, &dlen) !=
		    LZO_E_OK || dlen != PAGE_SIZE)
			ret = -EINVAL;
		break;
	}
	kunmap_local(dst);
	if (ret) {
		atomic64_inc(&rf_stats.zpage_unpack_errors);
		pr_warn_ratelimited("pool %u object %llx.%llx.%llx index %u: the server's %u LZO bytes do not decompress to a page\n",
				    want->pool_id, want->oid[0], want->oid[1],
				    want->oid[2], want->index, z->arg);
	}
	return ret;
}

/**
 * rf_zpage_unpack() - the page of a GET reply that found it
 * @data: the reply's payload (of a rf_zpage_get_msg() request)
 * @len: its length
 * @want: the handle the GET asked for; the reply must name it
 * @page: filled with the page
 *
 * Context: any; does not sleep.
 * Return: as rf_zpage_fill(); -EPROTO for a malformed reply too.
 */
int rf_zpage_unpack(const void *data, u32 len, const struct tmem_handle *want,
		    struct page *page)
{
	struct tmem_handle got;
	struct r2net_zpage z;
	const u8 *src;

	if (!compress) {
		if (r2net_tmem_page_decode(&got, &src, data, len) !=
		    R2NET_ACCEPT || !tmem_handle_equal(&got, want))
			return -EPROTO;
		memcpy_to_page(page, 0, src, PAGE_SIZE);
		return 0;
	}
	if (r2net_tmem_zpage_decode(&got, &z, &src, data, len) != R2NET_ACCEPT)
		return -EPROTO;
	return rf_zpage_fill(&got, &z, src, want, page);
}

static void rf_zctx_free(void)
{
	int c;

	for_each_possible_cpu(c) {
		struct rf_zctx *ctx = per_cpu_ptr(rf_zctx, c);

		kfree(ctx->wrkmem);
		kfree(ctx->dst);
	}
	free_percpu(rf_zctx);
}

/**
 * rf_zpage_init() - LZO's per-CPU buffers and the pool of zpage buffers
 *
 * Context: process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int rf_zpage_init(void)
{
	int c;

	if (!compress)
		return 0;
	rf_zctx = alloc_percpu(struct rf_zctx);
	if (!rf_zctx)
		return -ENOMEM;
	for_each_possible_cpu(c) {
		struct rf_zctx *ctx = per_cpu_ptr(rf_zctx, c);

		mutex_init(&ctx->lock);
		ctx->wrkmem = kmalloc_node(LZO1X_MEM_COMPRESS, GFP_KERNEL,
					   cpu_to_node(c));
		ctx->dst = kmalloc_node(lzo1x_worst_compress(PAGE_SIZE),
					GFP_KERNEL, cpu_to_node(c));
		if (!ctx->wrkmem || !ctx->dst)
			goto fail_ctx;
	}
	rf_zbuf_pool = mempool_create_kmalloc_pool(RF_ZBUFS, PAGE_SIZE);
	if (!rf_zbuf_pool)
		goto fail_ctx;
	return 0;

fail_ctx:
	rf_zctx_free();
	rf_zctx = NULL;
	return -ENOMEM;
}

void rf_zpage_exit(void)
{
	if (!rf_zctx)
		return;
	mempool_destroy(rf_zbuf_pool);
	rf_zctx_free();
	rf_zctx = NULL;
}
