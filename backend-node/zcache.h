/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zcache.h - the memory server's page data layer: LZO1X-compressed pages
 * in xvmalloc, behind the tmem store (struct tmem_data_ops).
 *
 * A page filled with one repeated 32-bit value is kept as that value in
 * the store's data pointer, with no allocation.  Any other page is
 * compressed with LZO1X-1 in a per-CPU work buffer; if the result is at
 * most max_zsize bytes (module parameter, default 7/8 of a page) it goes
 * into xvmalloc behind a 2-byte length.  A page that does not compress
 * that well is refused for an ephemeral pool (the put fails with
 * -TMEM_ENOMEM and counts as reject_compress_poor) and kept whole in a page
 * frame of its own for a persistent pool, which must not lose it.
 */
#ifndef RAMSTER_BACKEND_ZCACHE_H
#define RAMSTER_BACKEND_ZCACHE_H

#include <linux/types.h>

struct zcache;
struct tmem_data_ops;

/**
 * struct zcache_stats - a zcache's counters, named after zswap's and zram's
 * @stored_pages: pages held now, of every kind
 * @same_filled_pages: of those, pages kept as one repeated value
 * @huge_pages: of those, pages kept whole (persistent, compressed badly)
 * @compressed_bytes: the compressed lengths of the pages in xvmalloc
 * @pool_pages: page frames held: xvmalloc's plus one per huge page
 * @pool_total_size: @pool_pages in bytes
 * @reject_compress_poor: ephemeral puts refused: did not compress enough
 * @reject_alloc_fail: puts refused: no memory for the data
 */
struct zcache_stats {
	u64 stored_pages;
	u64 same_filled_pages;
	u64 huge_pages;
	u64 compressed_bytes;
	u64 pool_pages;
	u64 pool_total_size;
	u64 reject_compress_poor;
	u64 reject_alloc_fail;
};

/* The ops for tmem_store_create(), with the zcache as its priv. */
extern const struct tmem_data_ops zcache_tmem_ops;

struct zcache *zcache_create(void);
void zcache_destroy(struct zcache *zc);
void zcache_get_stats(struct zcache *zc, struct zcache_stats *st);

/* zcache_selftest.c: runs every case; returns how many failed. */
int zcache_selftest(void);

#endif /* RAMSTER_BACKEND_ZCACHE_H */
