// SPDX-License-Identifier: GPL-2.0
/*
 * xvmalloc.c - a two-level segregated-fit allocator for compressed pages.
 *
 * Each page of a pool is tiled by blocks.  A block is an XV_HDR_SIZE header
 * (struct xv_block: the size of the space after it, whether it is free or
 * in use, the offset of the block before it) followed by that space, a
 * multiple of XV_ALIGN bytes.  Knowing both neighbours of a block, a freed
 * block merges with a free one on either side in constant time, so no two
 * free blocks are ever adjacent, and a page whose last object goes is one
 * free block spanning it: that page goes back to the page allocator.
 *
 * A free block keeps its list links (struct xv_link: page and offset of the
 * free blocks before and after it on its list) in its own free space.  So a
 * block is never smaller than XV_MIN_SIZE, even for a one-byte object.
 *
 * Free blocks sit on one list per block size.  Sizes are multiples of
 * XV_ALIGN, so every block on a list has the same size and the head of the
 * first non-empty list at or above a request's size is the best fit.  One
 * bit per list in the second-level bitmap says the list is non-empty, and
 * one bit per word of that bitmap in the first-level word says the word is
 * non-zero; finding the best fit is a find-first-set in the request's own
 * second-level word and, if that finds nothing, one in the first-level
 * word and one in the word it names.
 *
 * Allocating splits the best fit: the object takes the front, the rest
 * goes back on a list, unless it is too small to be a block, in which case
 * the object keeps it.  Only when nothing fits is a page allocated, with
 * the pool's lock dropped, and the object is cut from that page.
 *
 * Pages are mapped with kmap_local_page() under the pool's lock; linking a
 * block into a list may map a second page, unmapped before the first.
 */
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "xvmalloc.h"
#include "store_export.h"

/* xv_block.state: anything else is not a block header */
#define XV_STATE_FREE	0x4672
#define XV_STATE_USED	0x5573

/* xv_block.prev of the block at offset 0 */
#define XV_NO_PREV	0xffff

struct xv_block {
	u16 size;	/* bytes after the header, a multiple of XV_ALIGN */
	u16 prev;	/* offset of the block before this one in the page */
	u16 state;	/* XV_STATE_FREE or XV_STATE_USED */
	u16 req;	/* in use: the size asked for; free: 0 */
};

/* In a free block, right after its header. */
struct xv_link {
	struct page *prev_page;	/* NULL: this block heads its list */
	struct page *next_page;	/* NULL: last on its list */
	u16 prev_off;
	u16 next_off;
};

/* The smallest block: it must be able to hold its links once free. */
#define XV_MIN_SIZE	((u32)ALIGN(sizeof(struct xv_link), XV_ALIGN))

/* The size of the one free block a page without objects is left as. */
#define XV_PAGE_BLOCK	((u32)(PAGE_SIZE - XV_HDR_SIZE))

#define XV_NR_LISTS	((XV_PAGE_BLOCK - XV_MIN_SIZE) / XV_ALIGN + 1)
#define XV_NR_WORDS	BITS_TO_LONGS(XV_NR_LISTS)

struct xv_pool {
	spinlock_t lock;	/* for all of the pool and its pages' blocks */
	/* bit w: lists[w] is not zero */
	unsigned long words;
	/* bit i % BITS_PER_LONG of word i / BITS_PER_LONG: list i not empty */
	unsigned long lists[XV_NR_WORDS];
	/* the head of list i, of free blocks of XV_MIN_SIZE + i * XV_ALIGN */
	struct page *head_page[XV_NR_LISTS];
	u16 head_off[XV_NR_LISTS];
	/* what xv_get_stats() reports */
	u64 pages;
	u64 objects;
	u64 bytes_requested;
	u64 bytes_used;
	u64 bytes_free;
};

static u32 xv_list_of(u32 size)
{
	return (size - XV_MIN_SIZE) / XV_ALIGN;
}

static struct xv_block *xv_block_at(void *base, u32 off)
{
	return base + off;
}

static struct xv_link *xv_link_of(struct xv_block *b)
{
	return (struct xv_link *)(b + 1);
}

/*
 * The links of the free block at (@page, @off), mapping @page unless it is
 * @cur, which is already mapped at @cur_base.  Undo with xv_link_put().
 */
static struct xv_link *xv_link_get(struct page *page, u32 off,
				   struct page *cur, void *cur_base)
{
	void *base = page == cur ? cur_base : kmap_local_page(page);

	return xv_link_of(xv_block_at(base, off));
}

static void xv_link_put(struct xv_link *link, struct page *page,
			struct page *cur)
{
	if (page != cur)
		kunmap_local(link);
}

/* Put the free block at @off of @page (mapped at @base) on its list. */
static void xv_list_add(struct xv_pool *pool, struct page *page, void *base,
			u32 off)
{
	struct xv_link *link = xv_link_of(xv_block_at(base, off));
	u32 i = xv_list_of(xv_block_at(base, off)->size);
	struct xv_link *next;

	link->prev_page = NULL;
	link->prev_off = 0;
	link->next_page = pool->head_page[i];
	link->next_off = pool->head_off[i];
	if (link->next_page) {
		next = xv_link_get(link->next_page, link->next_off, page, base);
		next->prev_page = page;
		next->prev_off = off;
		xv_link_put(next, link->next_page, page);
	} else {
		__set_bit(i, pool->lists);
		__set_bit(i / BITS_PER_LONG, &pool->words);
	}
	pool->head_page[i] = page;
	pool->head_off[i] = off;
}

/* Take the free block at @off of @page (mapped at @base) off its list. */
static void xv_list_del(struct xv_pool *pool, struct page *page, void *base,
			u32 off)
{
	struct xv_link *link = xv_link_of(xv_block_at(base, off));
	u32 i = xv_list_of(xv_block_at(base, off)->size);
	struct xv_link *other;

	if (link->prev_page) {
		other = xv_link_get(link->prev_page, link->prev_off, page, base);
		other->next_page = link->next_page;
		other->next_off = link->next_off;
		xv_link_put(other, link->prev_page, page);
	} else {
		pool->head_page[i] = link->next_page;
		pool->head_off[i] = link->next_off;
	}
	if (link->next_page) {
		other = xv_link_get(link->next_page, link->next_off, page, base);
		other->prev_page = link->prev_page;
		other->prev_off = link->prev_off;
		xv_link_put(other, link->next_page, page);
	}
	if (!pool->head_page[i]) {
		__clear_bit(i, pool->lists);
		if (!pool->lists[i / BITS_PER_LONG])
			__clear_bit(i / BITS_PER_LONG, &pool->words);
	}
}

/*
 * The list holding the smallest free blocks of at least @size bytes, or -1
 * if there is none.
 */
static int xv_find(struct xv_pool *pool, u32 size)
{
	u32 i = xv_list_of(size);
	u32 w = i / BITS_PER_LONG;
	unsigned long bits = pool->lists[w] & (~0UL << (i % BITS_PER_LONG));

	if (!bits) {
		unsigned long words = pool->words & (~1UL << w);

		if (!words)
			return -1;
		w = __ffs(words);
		bits = pool->lists[w];
	}
	return w * BITS_PER_LONG + __ffs(bits);
}

/*
 * Make the free block at @off of @page (mapped at @base), already off its
 * list, an object asked for as @req bytes, @size once rounded.
 */
static void xv_carve(struct xv_pool *pool, struct page *page, void *base,
		     u32 off, u32 size, u32 req)
{
	struct xv_block *b = xv_block_at(base, off);
	u32 rest = b->size - size;

	if (rest >= XV_HDR_SIZE + XV_MIN_SIZE) {
		u32 toff = off + XV_HDR_SIZE + size;
		struct xv_block *tail = xv_block_at(base, toff);
		u32 end = toff + rest;

		tail->size = rest - XV_HDR_SIZE;
		tail->prev = off;
		tail->state = XV_STATE_FREE;
		tail->req = 0;
		if (end < PAGE_SIZE)
			xv_block_at(base, end)->prev = toff;
		b->size = size;
		xv_list_add(pool, page, base, toff);
	}
	b->state = XV_STATE_USED;
	b->req = req;
	pool->objects++;
	pool->bytes_requested += req;
	pool->bytes_used += XV_HDR_SIZE + b->size;
	pool->bytes_free -= XV_HDR_SIZE + b->size;
}

struct xv_pool *xv_create_pool(void)
{
	struct xv_pool *pool;

	BUILD_BUG_ON(sizeof(struct xv_block) != XV_HDR_SIZE);
	BUILD_BUG_ON(XV_HDR_SIZE % XV_ALIGN);
	/* offsets and sizes are u16, and XV_NO_PREV is none of them */
	BUILD_BUG_ON(PAGE_SIZE > 0x10000);
	/* the first-level bitmap is one word */
	BUILD_BUG_ON(XV_NR_WORDS >= BITS_PER_LONG);

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return NULL;
	spin_lock_init(&pool->lock);
	return pool;
}
EXPORT_SYMBOL_GPL(xv_create_pool);

void xv_destroy_pool(struct xv_pool *pool)
{
	if (!pool)
		return;
	WARN_ON_ONCE(pool->pages);
	kfree(pool);
}
EXPORT_SYMBOL_GPL(xv_destroy_pool);

int xv_malloc(struct xv_pool *pool, u32 size, struct page **page,
	      u32 *offset, gfp_t flags)
{
	struct xv_block *b;
	struct page *pg;
	void *base;
	u32 bsize, off;
	int i;

	*page = NULL;
	*offset = 0;
	if (!size || size > XV_MAX_ALLOC_SIZE)
		return -EINVAL;
	bsize = max(ALIGN(size, XV_ALIGN), XV_MIN_SIZE);

	spin_lock(&pool->lock);
	i = xv_find(pool, bsize);
	if (i >= 0) {
		pg = pool->head_page[i];
		off = pool->head_off[i];
		base = kmap_local_page(pg);
		xv_list_del(pool, pg, base, off);
	} else {
		spin_unlock(&pool->lock);
		pg = alloc_page(flags);
		if (!pg)
			return -ENOMEM;
		set_page_private(pg, (unsigned long)pool);
		off = 0;
		spin_lock(&pool->lock);
		base = kmap_local_page(pg);
		b = xv_block_at(base, 0);
		b->size = XV_PAGE_BLOCK;
		b->prev = XV_NO_PREV;
		b->state = XV_STATE_FREE;
		b->req = 0;
		pool->pages++;
		pool->bytes_free += PAGE_SIZE;
	}
	xv_carve(pool, pg, base, off, bsize, size);
	kunmap_local(base);
	spin_unlock(&pool->lock);

	*page = pg;
	*offset = off + XV_HDR_SIZE;
	return 0;
}
EXPORT_SYMBOL_GPL(xv_malloc);

/* Does @off of the page mapped at @base hold a block in use? */
static bool xv_block_in_use(void *base, u32 off)
{
	struct xv_block *b = xv_block_at(base, off);
	u32 end = off + XV_HDR_SIZE + b->size;
	u32 prev = b->prev;

	if (b->state != XV_STATE_USED || b->size % XV_ALIGN ||
	    b->size < XV_MIN_SIZE || end > PAGE_SIZE ||
	    !b->req || b->req > b->size)
		return false;
	if (!off) {
		if (prev != XV_NO_PREV)
			return false;
	} else if (prev >= off || prev % XV_ALIGN ||
		   prev + XV_HDR_SIZE + xv_block_at(base, prev)->size != off) {
		return false;
	}
	return end == PAGE_SIZE || xv_block_at(base, end)->prev == off;
}

void xv_free(struct xv_pool *pool, struct page *page, u32 offset)
{
	struct xv_block *b, *nb;
	void *base;
	u32 off, end;

	if (WARN_ON_ONCE(offset < XV_HDR_SIZE || offset >= PAGE_SIZE ||
			 offset % XV_ALIGN))
		return;
	if (WARN_ON_ONCE(!page || page_private(page) != (unsigned long)pool))
		return;
	off = offset - XV_HDR_SIZE;

	spin_lock(&pool->lock);
	base = kmap_local_page(page);
	b = xv_block_at(base, off);
	if (WARN_ON_ONCE(!xv_block_in_use(base, off))) {
		kunmap_local(base);
		spin_unlock(&pool->lock);
		return;
	}
	pool->objects--;
	pool->bytes_requested -= b->req;
	pool->bytes_used -= XV_HDR_SIZE + b->size;
	pool->bytes_free += XV_HDR_SIZE + b->size;
	b->state = XV_STATE_FREE;
	b->req = 0;

	end = off + XV_HDR_SIZE + b->size;
	if (end < PAGE_SIZE) {
		nb = xv_block_at(base, end);
		if (nb->state == XV_STATE_FREE) {
			xv_list_del(pool, page, base, end);
			b->size += XV_HDR_SIZE + nb->size;
		}
	}
	if (off) {
		nb = xv_block_at(base, b->prev);
		if (nb->state == XV_STATE_FREE) {
			xv_list_del(pool, page, base, b->prev);
			nb->size += XV_HDR_SIZE + b->size;
			off = b->prev;
			b = nb;
		}
	}

	if (b->size == XV_PAGE_BLOCK) {
		kunmap_local(base);
		pool->pages--;
		pool->bytes_free -= PAGE_SIZE;
		spin_unlock(&pool->lock);
		set_page_private(page, 0);
		__free_page(page);
		return;
	}

	end = off + XV_HDR_SIZE + b->size;
	if (end < PAGE_SIZE)
		xv_block_at(base, end)->prev = off;
	xv_list_add(pool, page, base, off);
	kunmap_local(base);
	spin_unlock(&pool->lock);
}
EXPORT_SYMBOL_GPL(xv_free);

u32 xv_get_object_size(void *obj)
{
	struct xv_block *b = obj - XV_HDR_SIZE;

	if (WARN_ON_ONCE(b->state != XV_STATE_USED))
		return 0;
	return b->size;
}
EXPORT_SYMBOL_GPL(xv_get_object_size);

u64 xv_get_total_size_bytes(struct xv_pool *pool)
{
	u64 pages;

	spin_lock(&pool->lock);
	pages = pool->pages;
	spin_unlock(&pool->lock);
	return pages * PAGE_SIZE;
}
EXPORT_SYMBOL_GPL(xv_get_total_size_bytes);

void xv_get_stats(struct xv_pool *pool, struct xv_stats *stats)
{
	spin_lock(&pool->lock);
	stats->pages = pool->pages;
	stats->objects = pool->objects;
	stats->bytes_requested = pool->bytes_requested;
	stats->bytes_used = pool->bytes_used;
	stats->bytes_free = pool->bytes_free;
	spin_unlock(&pool->lock);
}
EXPORT_SYMBOL_GPL(xv_get_stats);
