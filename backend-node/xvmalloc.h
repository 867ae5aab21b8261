/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xvmalloc.h - the backend's allocator for compressed pages.
 *
 * Objects of 1..XV_MAX_ALLOC_SIZE bytes are packed into order-0 pages taken
 * from the page allocator one at a time; a page whose objects are all freed
 * goes back at once.  An object is named by (page, offset): map the page
 * (kmap_local_page()) and the object starts offset bytes in.  Objects never
 * cross a page boundary, so an object larger than XV_MAX_ALLOC_SIZE (a page
 * that did not compress) has to be stored by the caller as a whole page.
 *
 * A pool has its own spinlock; its functions may be called from process
 * context, not from interrupt or softirq context.
 */
#ifndef RAMSTER_XVMALLOC_H
#define RAMSTER_XVMALLOC_H

#include <linux/types.h>
#include <asm/page.h>

struct page;
struct xv_pool;

/* Objects start and their sizes are rounded up on this boundary. */
#define XV_ALIGN		8

/* Every block in a page starts with a header of this many bytes. */
#define XV_HDR_SIZE		8

/* The largest object: one block filling a page, header included. */
#define XV_MAX_ALLOC_SIZE	(PAGE_SIZE - XV_HDR_SIZE)

/**
 * struct xv_stats - a consistent snapshot of a pool's counters
 * @pages: page frames the pool holds
 * @objects: objects allocated and not yet freed
 * @bytes_requested: the sum of the sizes asked for by those objects
 * @bytes_used: bytes in their blocks, headers and rounding included
 * @bytes_free: bytes in free blocks, headers included; with @bytes_used it
 *	adds up to @pages * PAGE_SIZE
 */
struct xv_stats {
	u64 pages;
	u64 objects;
	u64 bytes_requested;
	u64 bytes_used;
	u64 bytes_free;
};

/**
 * xv_create_pool() - create an empty pool
 *
 * Context: process context; may sleep.
 * Return: the pool, or NULL when its memory cannot be had.
 */
struct xv_pool *xv_create_pool(void);

/**
 * xv_destroy_pool() - free a pool
 * @pool: the pool, or NULL
 *
 * Every object must have been freed first; a pool that still holds pages
 * is a caller bug: it warns once and those pages are leaked.
 */
void xv_destroy_pool(struct xv_pool *pool);

/**
 * xv_malloc() - allocate an object
 * @pool: the pool to allocate from
 * @size: the object's size in bytes, 1..XV_MAX_ALLOC_SIZE
 * @page: set to the page holding the object, or NULL on failure
 * @offset: set to the object's offset in @page (a multiple of XV_ALIGN), or
 *	0 on failure
 * @flags: for alloc_page() when the pool needs another page; the pool's
 *	lock is not held while it is called, so the flags may allow sleeping
 *
 * The object's contents are undefined.  Its usable size, at least @size,
 * is xv_get_object_size().
 *
 * Context: process context, pool lock not held by the caller.
 * Return: 0; -EINVAL if @size is 0 or above XV_MAX_ALLOC_SIZE; -ENOMEM if
 * no free block fits and a page cannot be had.
 */
int xv_malloc(struct xv_pool *pool, u32 size, struct page **page,
	      u32 *offset, gfp_t flags);

/**
 * xv_free() - free an object
 * @pool: the pool it was allocated from
 * @page: the page xv_malloc() returned for it
 * @offset: the offset xv_malloc() returned for it
 *
 * The object's block merges with free blocks next to it in the page; when
 * the page is left with no object, it goes back to the page allocator
 * before this returns.  Freeing an object twice, or an offset or page that
 * is not an object of @pool, is a caller bug: it warns once and the pool
 * is left unchanged (as far as it can tell).
 *
 * Context: process context, pool lock not held by the caller.
 */
void xv_free(struct xv_pool *pool, struct page *page, u32 offset);

/**
 * xv_get_object_size() - the usable size of an object
 * @obj: the object's address, its page mapped plus its offset
 *
 * Return: the bytes usable at @obj (at least the size it was allocated
 * with, rounded up to XV_ALIGN, possibly a little more); 0 (with a
 * warning) if @obj does not look like an allocated object.
 */
u32 xv_get_object_size(void *obj);

/**
 * xv_get_total_size_bytes() - the memory a pool holds
 * @pool: the pool
 *
 * Return: the page frames the pool holds times PAGE_SIZE.
 */
u64 xv_get_total_size_bytes(struct xv_pool *pool);

/**
 * xv_get_stats() - take a snapshot of a pool's counters
 * @pool: the pool
 * @stats: filled in, all counters from the same instant
 */
void xv_get_stats(struct xv_pool *pool, struct xv_stats *stats);

#endif /* RAMSTER_XVMALLOC_H */
