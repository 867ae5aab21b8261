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
 *
 * A zpage, a page its client compressed (struct tmem_zpage), is kept as
 * sent, with no compression or decompression: one repeated value as
 * above; an LZO1X stream of at most max_zsize bytes in xvmalloc as a page
 * compressed here (a longer one only for a persistent pool, up to what
 * xvmalloc takes; else refused as reject_compress_poor); a whole page,
 * which its client found incompressible, as one that did not compress
 * here.  A zpage get gives the page back in the form it is kept in; a
 * plain get of a client's LZO stream decompresses it with
 * lzo1x_decompress_safe(), so a bad stream fails that get alone.
 */
#ifndef RAMSTER_BACKEND_ZCACHE_H
#define RAMSTER_BACKEND_ZCACHE_H

#include <linux/types.h>

struct zcache;
struct tmem_data_ops;

/* The longest LZO1X stream zcache keeps: max_zsize's upper bound. */
#define ZCACHE_MAX_ZSIZE	4086

/**
 * struct zcache_stats - a zcache's counters, named after zswap's and zram's
 * @stored_pages: pages held now, of every kind
 * @same_filled_pages: of those, pages kept as one repeated value
 * @huge_pages: of those, pages kept whole (persistent, compressed badly)
 * @compressed_bytes: the compressed lengths of the pages in xvmalloc
 * @pool_pages: page frames held: xvmalloc's plus one per huge page
 * @pool_total_size: @pool_pages in bytes
 * @reject_compress_poor: puts refused: did not compress enough (into an
 *	ephemeral pool, or an LZO zpage longer than xvmalloc takes)
 * @reject_alloc_fail: puts refused: no memory for the data
 * @stored_as_sent: zpages stored in the form their client sent them
 *	(SAME, LZO or RAW): a count of puts, not pages held now
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
	u64 stored_as_sent;
};

/* The ops for tmem_store_create(), with the zcache as its priv. */
extern const struct tmem_data_ops zcache_tmem_ops;

struct zcache *zcache_create(void);
void zcache_destroy(struct zcache *zc);
void zcache_get_stats(struct zcache *zc, struct zcache_stats *st);
unsigned int zcache_max_zsize(void);

/* zcache_selftest.c: runs every case; returns how many failed. */
int zcache_selftest(void);

#endif /* RAMSTER_BACKEND_ZCACHE_H */
