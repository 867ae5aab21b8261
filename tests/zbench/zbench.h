/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zbench.h - the memory server's bench module (bench/backend.sh).
 *
 * Both commands build the same corpus from a seed: page i of seed S is
 * always the same bytes.  Its pages are of mixed compressibility: text
 * made of words from a small list with a vocabulary of 4 to 128 words per
 * page, arrays of structs holding small integers and pointers, sparse
 * pages (zero but for a few short runs), pages with a random head and a
 * text or zero tail, and random pages.  No page is same-filled.
 *
 * debugfs /sys/kernel/debug/zbench/:
 *   run       write one command, then read the result of the last one:
 *		 density N SEED
 *		   LZO1X-1 compresses N pages; those above ZBENCH_MAX_ZSIZE
 *		   bytes are left out (the store keeps them whole) and
 *		   counted; every other compressed object is put both in an
 *		   xvmalloc pool and in a zsmalloc pool.  Reports objects,
 *		   page frames and zpages per page frame of each, fresh, then
 *		   after the same random half is freed from both (churn),
 *		   and for zsmalloc also after zs_compact(); the compressed
 *		   bytes (the ideal: no header, no slack); xvmalloc's header
 *		   and rounding bytes per object.  Every object left is read
 *		   back and checked; everything is freed at the end.
 *		 putget N SEED
 *		   A tmem store over a zcache of its own, one persistent pool
 *		   of client node ZBENCH_NODE, handles laid out as frontswap's
 *		   (16 objects, the index the page number / 16): N puts, then
 *		   N gets each checked byte for byte; then LZO1X-1 compress
 *		   alone and decompress alone of the same pages (checked).
 *		   Times only the calls themselves (ktime_get_ns() around
 *		   each); reports pages/s of each and put/compress and
 *		   get/decompress.  The store keeps the pages after the
 *		   command, so that its metadata can be read (/proc/slabinfo:
 *		   ramster_tmem_pgp, ramster_tmem_obj); the next putget or
 *		   release frees it.
 *		 release
 *		   Frees the store putget left.
 *		 N is 1..ZBENCH_MAX_PAGES, SEED any u64.  The result is "name
 *		 value" lines (ratios with three decimals); "errors" is 0
 *		 when every allocation and operation succeeded, "mismatches"
 *		 0 when every object or page read back was right.  A command
 *		 that cannot run (out of memory before it starts) fails the
 *		 write with its errno.
 *   progress  "PHASE DONE TOTAL" of the command running (or the last).
 */
#ifndef RAMSTER_ZBENCH_H
#define RAMSTER_ZBENCH_H

#define ZBENCH_MAX_PAGES	1000000
/* zcache's default max_zsize: 7/8 of a page. */
#define ZBENCH_MAX_ZSIZE	3584
#define ZBENCH_NODE		1

#endif /* RAMSTER_ZBENCH_H */
