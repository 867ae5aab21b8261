// SPDX-License-Identifier: GPL-2.0
/*
 * xvmalloc_test - backend-node/xvmalloc.c in userspace on the kernel shim
 * in kshim/ (which counts pages held and checks maps and locks), under ASan
 * and UBSan.  Every object is filled with a pattern from its size and tag
 * over all of its usable size, and the pattern is checked when it is freed.
 *
 *  - every size: each size 1..XV_MAX_ALLOC_SIZE alone (its page comes and
 *    goes with it), then all of them at once, freed in random order;
 *  - churn: random allocs and frees of compressed-page-like sizes, the
 *    number of objects drifting between 1500 and 5000, every object and
 *    every counter checked at checkpoints;
 *  - at checkpoints, the free space as the objects leave it: no overlaps,
 *    no gap too small to be a block, and an object the size of a random
 *    gap goes into a gap of that size without a new page (no free block
 *    lost, best fit);
 *  - merging: pages cut exactly into random blocks, freed in several
 *    orders; a hole left by adjacent frees takes an object of exactly its
 *    size in place; the page goes back exactly when its last object does;
 *  - bad input: sizes refused without allocating, page allocation failing,
 *    double frees, bad offsets, a header forged inside an object and
 *    another pool's page warned about and ignored;
 *  - density: objects per page and fill ratio (bytes requested / bytes in
 *    pages) fresh, after freeing a random half, and refilled;
 *  - threads: several threads churning one pool;
 *  - speed: alloc+free pairs per second without patterns.
 *
 * A failure prints its seed; -s SEED replays the run.
 *
 * usage: xvmalloc_test [-s SEED] [-n OPS] [-t THREADS] [-h]
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "kshim.h"
#include "xvmalloc.h"
#include "test.h"

/* What the design says the smallest block is: room for two page pointers
 * and two u16 offsets, the links of a free block.
 */
#define MIN_BLOCK	ALIGN((u32)(2 * sizeof(void *) + 2 * sizeof(u16)), \
			      (u32)XV_ALIGN)
/* The most an object's block can exceed its rounded size: a tail too small
 * to be a block of its own.
 */
#define MAX_SLACK	(XV_HDR_SIZE + MIN_BLOCK - XV_ALIGN)

#define FRESH_FILL_MIN	0.80

struct obj {
	struct page *page;
	u32 off;
	u32 size;	/* asked for */
	u32 len;	/* usable, filled with the pattern */
	u32 tag;
};

static unsigned long churn_ops = 200000;
static unsigned int nr_threads = 4;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static u32 rounded(u32 size)
{
	u32 r = ALIGN(size, (u32)XV_ALIGN);

	return r < MIN_BLOCK ? MIN_BLOCK : r;
}

/* Sizes like LZO's output for a swap page: mostly fat or thin halves,
 * some nearly empty pages, some that hardly compress.
 */
static u32 zsize_from(u32 r, u32 r2)
{
	r %= 100;
	if (r < 8)
		return 1 + r2 % 128;
	if (r < 18)
		return 128 + r2 % (800 - 128);
	if (r < 92)
		return 800 + r2 % (3000 - 800 + 1);
	return 3000 + r2 % (XV_MAX_ALLOC_SIZE - 3000 + 1);
}

static u32 zsize(void)
{
	u32 r = rnd(100);

	return zsize_from(r, rnd(1u << 30));
}

static u8 *obj_addr(const struct obj *o)
{
	return (u8 *)page_address(o->page) + o->off;
}

static u32 pattern_seed(u32 size, u32 tag)
{
	u32 x = size * 0x9e3779b1u ^ tag * 0x85ebca6bu ^ 0x5bd1e995u;

	return x ? x : 1;
}

static void obj_fill(const struct obj *o)
{
	u32 x = pattern_seed(o->size, o->tag), i;
	u8 *p = obj_addr(o);

	for (i = 0; i < o->len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (u8)x;
	}
}

/* The first byte that does not match the pattern, or -1. */
static long obj_check(const struct obj *o)
{
	u32 x = pattern_seed(o->size, o->tag), i;
	const u8 *p = obj_addr(o);

	for (i = 0; i < o->len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (p[i] != (u8)x)
			return i;
	}
	return -1;
}

/* Checks what xv_malloc() gave back and fills it; false on any failure. */
static bool obj_alloc(struct xv_pool *pool, struct obj *o, u32 size, u32 tag)
{
	int rc = xv_malloc(pool, size, &o->page, &o->off, GFP_KERNEL);
	u32 r = rounded(size);

	CHECK(!rc, "xv_malloc(%u) = %d", size, rc);
	if (rc)
		return false;
	CHECK(o->page && o->off >= XV_HDR_SIZE && o->off < PAGE_SIZE &&
	      o->off % XV_ALIGN == 0, "xv_malloc(%u): page %p offset %u",
	      size, (void *)o->page, o->off);
	if (!o->page || o->off < XV_HDR_SIZE || o->off >= PAGE_SIZE ||
	    o->off % XV_ALIGN)
		return false;
	o->size = size;
	o->tag = tag;
	o->len = xv_get_object_size(obj_addr(o));
	CHECK(o->len >= r && o->len <= r + MAX_SLACK &&
	      o->off + o->len <= PAGE_SIZE,
	      "size %u: usable %u at offset %u (rounded %u, slack at most %u)",
	      size, o->len, o->off, r, (u32)MAX_SLACK);
	if (o->len < r || o->len > r + MAX_SLACK || o->off + o->len > PAGE_SIZE)
		return false;
	obj_fill(o);
	return true;
}

/* Checks the pattern, then frees; false if the pattern was broken. */
static bool obj_free(struct xv_pool *pool, struct obj *o)
{
	long bad = obj_check(o);

	CHECK(bad < 0, "object size %u tag %u at offset %u: byte %ld changed",
	      o->size, o->tag, o->off, bad);
	xv_free(pool, o->page, o->off);
	o->page = NULL;
	return bad < 0;
}

static long pages_held(void)
{
	struct kshim_counts kc;

	kshim_get_counts(&kc);
	return kc.pages_held;
}

/*
 * Every counter against the objects the test holds: objects, bytes
 * requested, bytes in blocks (usable size plus header each), pages (each
 * one holding at least one object: no empty page kept), free bytes, total
 * size, and the shim's pages held (@others: those of other pools).  With
 * @verify, every object's pattern too.  False on any failure.
 */
static bool check_pool(struct xv_pool *pool, struct obj *objs, size_t n,
		       bool verify, long others)
{
	static unsigned long epoch;
	u64 req = 0, used = 0, pages = 0;
	unsigned long failed = test_failures;
	struct xv_stats st;
	size_t i;
	long bad;

	epoch++;
	for (i = 0; i < n; i++) {
		if (!objs[i].page)
			continue;
		req += objs[i].size;
		used += XV_HDR_SIZE + objs[i].len;
		if (objs[i].page->test_mark != epoch) {
			objs[i].page->test_mark = epoch;
			pages++;
		}
		if (!verify)
			continue;
		bad = obj_check(&objs[i]);
		CHECK(bad < 0, "object %zu (size %u) byte %ld changed", i,
		      objs[i].size, bad);
		if (bad >= 0)
			break;
	}
	xv_get_stats(pool, &st);
	CHECK(st.bytes_requested == req, "bytes_requested %llu, expected %llu",
	      (unsigned long long)st.bytes_requested, (unsigned long long)req);
	CHECK(st.bytes_used == used, "bytes_used %llu, expected %llu",
	      (unsigned long long)st.bytes_used, (unsigned long long)used);
	CHECK(st.pages == pages, "pool holds %llu pages, its objects are on %llu",
	      (unsigned long long)st.pages, (unsigned long long)pages);
	CHECK(st.bytes_free == st.pages * PAGE_SIZE - st.bytes_used,
	      "bytes_free %llu, pages %llu, bytes_used %llu",
	      (unsigned long long)st.bytes_free, (unsigned long long)st.pages,
	      (unsigned long long)st.bytes_used);
	CHECK(xv_get_total_size_bytes(pool) == st.pages * PAGE_SIZE,
	      "total size %llu for %llu pages",
	      (unsigned long long)xv_get_total_size_bytes(pool),
	      (unsigned long long)st.pages);
	CHECK(pages_held() == (long)st.pages + others,
	      "shim: %ld pages held, pool %llu + others %ld", pages_held(),
	      (unsigned long long)st.pages, others);
	CHECK(!kshim_maps_held() && !kshim_locks_held(),
	      "%d maps and %d locks held after a call", kshim_maps_held(),
	      kshim_locks_held());
	/* count last: the loop above may have stopped early */
	req = 0;
	for (i = 0; i < n; i++)
		req += !!objs[i].page;
	CHECK(st.objects == req, "objects %llu, expected %llu",
	      (unsigned long long)st.objects, (unsigned long long)req);
	return test_failures == failed;
}

static void shuffle(size_t *idx, size_t n)
{
	size_t i, j, t;

	for (i = 0; i < n; i++)
		idx[i] = i;
	for (i = n; i > 1; i--) {
		j = rnd((u32)i);
		t = idx[i - 1];
		idx[i - 1] = idx[j];
		idx[j] = t;
	}
}

struct hole {
	struct page *page;
	u32 off;	/* of the free block's header */
	u32 size;	/* after the header */
};

static int obj_cmp(const void *a, const void *b)
{
	const struct obj *x = *(const struct obj * const *)a;
	const struct obj *y = *(const struct obj * const *)b;

	if (x->page != y->page)
		return (uintptr_t)x->page < (uintptr_t)y->page ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * The free space the objects leave in their pages, as the test sees it:
 * every gap between two objects (or an object and a page's end) is one
 * free block, at least a header and a minimum block, or nothing.  The
 * objects must not overlap.  Returns the number of holes (-1 on failure)
 * in *holes, malloc'd.
 */
static long find_holes(struct obj *objs, size_t n, struct hole **holes)
{
	struct obj **sorted = malloc((n + 1) * sizeof(*sorted));
	struct hole *h = malloc((2 * n + 1) * sizeof(*h));
	size_t i, k = 0, nh = 0;
	u32 end = 0, hdr;

	if (!sorted || !h) {
		free(sorted);
		free(h);
		CHECK(0, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (objs[i].page)
			sorted[k++] = &objs[i];
	qsort(sorted, k, sizeof(*sorted), obj_cmp);
	for (i = 0; i <= k; i++) {
		bool page_end = i == k || (i && sorted[i]->page != sorted[i - 1]->page);

		if (page_end && i) {
			/* the tail of the previous object's page */
			if (end < PAGE_SIZE)
				h[nh++] = (struct hole){ sorted[i - 1]->page, end,
							 PAGE_SIZE - end - XV_HDR_SIZE };
			end = 0;
		}
		if (i == k)
			break;
		hdr = sorted[i]->off - XV_HDR_SIZE;
		if (hdr < end || (hdr > end && hdr - end < XV_HDR_SIZE + MIN_BLOCK)) {
			CHECK(0, "an object ends at %u, the next header is at %u: %s",
			      end, hdr, hdr < end ? "overlap" :
			      "a gap too small to be a block");
			free(sorted);
			free(h);
			return -1;
		}
		if (hdr > end)
			h[nh++] = (struct hole){ sorted[i]->page, end,
						 hdr - end - XV_HDR_SIZE };
		end = sorted[i]->off + sorted[i]->len;
	}
	free(sorted);
	*holes = h;
	return (long)nh;
}

/*
 * Up to @probes random holes, one at a time: an object of exactly a hole's
 * size must go in a hole of that size (the best fit) without a new page,
 * and freeing it must leave the counters as they were.  A free block lost
 * from the lists, or a hole that is really two blocks, fails this.
 */
static bool probe_holes(struct xv_pool *pool, struct obj *objs, size_t n,
			unsigned int probes)
{
	unsigned long failed = test_failures;
	struct kshim_counts kc0, kc;
	struct xv_stats st0, st;
	struct hole *h = NULL;
	long nh = find_holes(objs, n, &h), j;
	unsigned int p;
	struct obj o;

	for (p = 0; nh > 0 && p < probes; p++) {
		struct hole *want = &h[rnd((u32)nh)];
		bool found = false;

		xv_get_stats(pool, &st0);
		kshim_get_counts(&kc0);
		if (!obj_alloc(pool, &o, want->size, 7))
			break;
		kshim_get_counts(&kc);
		for (j = 0; j < nh && !found; j++)
			found = h[j].page == o.page &&
				h[j].off + XV_HDR_SIZE == o.off &&
				h[j].size == want->size;
		CHECK(found && o.len == want->size &&
		      kc.pages_allocated == kc0.pages_allocated,
		      "a %u-byte object did not take a %u-byte hole (usable %u, %s page)",
		      want->size, want->size, o.len,
		      kc.pages_allocated == kc0.pages_allocated ? "no new" : "a new");
		obj_free(pool, &o);
		xv_get_stats(pool, &st);
		CHECK(!memcmp(&st, &st0, sizeof(st)),
		      "allocating and freeing a %u-byte object changed the counters",
		      want->size);
		if (test_failures != failed)
			break;
	}
	free(h);
	return nh >= 0 && test_failures == failed;
}

static unsigned long begin_failures;
static struct kshim_counts begin_counts;

static void begin(void)
{
	begin_failures = test_failures;
	kshim_get_counts(&begin_counts);
}

/* Ends a test: no pages held, only the warnings it caused on purpose. */
static void end(const char *name, long warnings)
{
	struct kshim_counts kc;

	kshim_get_counts(&kc);
	CHECK(kc.pages_held == 0, "%s: %ld pages still held", name,
	      kc.pages_held);
	CHECK(kc.warnings - begin_counts.warnings == warnings,
	      "%s: %ld warnings, expected %ld", name,
	      kc.warnings - begin_counts.warnings, warnings);
	CHECK(kc.errors == begin_counts.errors, "%s: %ld shim errors", name,
	      kc.errors - begin_counts.errors);
	printf("%s: %s\n", test_failures == begin_failures ? "PASS" : "FAIL",
	       name);
	fflush(stdout);
}

static void test_every_size(void)
{
	struct xv_pool *pool = xv_create_pool();
	size_t n = XV_MAX_ALLOC_SIZE, i, *idx;
	struct obj *objs = calloc(n, sizeof(*objs));
	struct xv_stats st;
	u32 size;

	begin();
	idx = calloc(n, sizeof(*idx));
	if (!pool || !objs || !idx) {
		CHECK(0, "out of memory");
		goto out;
	}

	/* one at a time: the page comes with the object and goes with it */
	for (size = 1; size <= XV_MAX_ALLOC_SIZE; size++) {
		struct obj o;

		if (!obj_alloc(pool, &o, size, size))
			goto out;
		xv_get_stats(pool, &st);
		CHECK(st.pages == 1 && st.objects == 1 &&
		      st.bytes_requested == size && pages_held() == 1,
		      "size %u alone: %llu pages, %llu objects, %llu bytes",
		      size, (unsigned long long)st.pages,
		      (unsigned long long)st.objects,
		      (unsigned long long)st.bytes_requested);
		if (!obj_free(pool, &o) || pages_held() != 0) {
			CHECK(pages_held() == 0, "size %u: page kept", size);
			goto out;
		}
	}

	/* all at once, checked, then freed in random order */
	for (i = 0; i < n; i++)
		if (!obj_alloc(pool, &objs[i], (u32)i + 1, (u32)i * 7 + 3))
			goto out;
	if (!check_pool(pool, objs, n, true, 0) || !probe_holes(pool, objs, n, 200))
		goto out;
	xv_get_stats(pool, &st);
	printf("every size: %zu objects of 1..%lu bytes on %llu pages, fill %.3f\n",
	       n, (unsigned long)XV_MAX_ALLOC_SIZE,
	       (unsigned long long)st.pages,
	       (double)st.bytes_requested / (st.pages * PAGE_SIZE));
	shuffle(idx, n);
	for (i = 0; i < n; i++) {
		if (!obj_free(pool, &objs[idx[i]]))
			goto out;
		if (i == n / 2 && !check_pool(pool, objs, n, true, 0))
			goto out;
	}
	check_pool(pool, objs, n, false, 0);
out:
	xv_destroy_pool(pool);
	free(objs);
	free(idx);
	end("every size 1..XV_MAX_ALLOC_SIZE", 0);
}

static void test_churn(void)
{
	const size_t cap = 6000;
	struct xv_pool *pool = xv_create_pool();
	struct obj *objs = calloc(cap, sizeof(*objs));
	size_t *live = calloc(cap, sizeof(*live));
	size_t *idx = calloc(cap, sizeof(*idx));
	size_t nlive = 0, i, peak = 0;
	unsigned long op, allocs = 0, frees = 0, checkpoints = 0;
	u64 peak_pages = 0;
	double t0, tcheck = 0, t, fill, fill_min = 1, fill_sum = 0;
	struct xv_stats st;
	size_t target = 5000;
	u32 tag = 0;

	begin();
	if (!pool || !objs || !live || !idx) {
		CHECK(0, "out of memory");
		goto out;
	}
	/* live[0..nlive) are the slots in use, the rest the free ones */
	for (i = 0; i < cap; i++)
		live[i] = i;
	t0 = now();
	for (op = 1; op <= churn_ops; op++) {
		bool alloc;

		/* the population drifts to a target that moves every phase */
		if (op % 25000 == 0)
			target = target == 5000 ? 1500 : 5000;
		if (!nlive)
			alloc = true;
		else if (nlive == cap)
			alloc = false;
		else
			alloc = rnd(100) < (nlive < target ? 60u : 40u);

		if (alloc) {
			if (!obj_alloc(pool, &objs[live[nlive]], zsize(), ++tag))
				goto out;
			nlive++;
			allocs++;
			if (nlive > peak)
				peak = nlive;
		} else {
			size_t k = rnd((u32)nlive), slot = live[k];

			live[k] = live[--nlive];
			live[nlive] = slot;
			if (!obj_free(pool, &objs[slot]))
				goto out;
			frees++;
		}

		if (op % 10000 == 0 || op == churn_ops) {
			t = now();
			if (!check_pool(pool, objs, cap, true, 0) ||
			    !probe_holes(pool, objs, cap, 50))
				goto out;
			xv_get_stats(pool, &st);
			if (st.pages > peak_pages)
				peak_pages = st.pages;
			if (st.pages) {
				fill = (double)st.bytes_requested /
				       (st.pages * PAGE_SIZE);
				fill_sum += fill;
				checkpoints++;
				if (fill < fill_min)
					fill_min = fill;
			}
			tcheck += now() - t;
		}
	}
	t = now() - t0 - tcheck;
	xv_get_stats(pool, &st);
	printf("churn: %lu ops (%lu allocs, %lu frees), %.0f ops/s with patterns\n",
	       churn_ops, allocs, frees, churn_ops / t);
	printf("churn: peak %zu objects on %llu pages; fill at %lu checks min %.3f mean %.3f\n",
	       peak, (unsigned long long)peak_pages, checkpoints, fill_min,
	       checkpoints ? fill_sum / checkpoints : 0);
	printf("churn: at the end %zu objects on %llu pages, fill %.3f\n",
	       nlive, (unsigned long long)st.pages,
	       st.pages ? (double)st.bytes_requested / (st.pages * PAGE_SIZE) : 0);

	shuffle(idx, nlive);
	for (i = 0; i < nlive; i++)
		if (!obj_free(pool, &objs[live[idx[i]]]))
			goto out;
	nlive = 0;
	check_pool(pool, objs, cap, false, 0);
out:
	xv_destroy_pool(pool);
	free(objs);
	free(live);
	free(idx);
	end("churn", 0);
}

#define MAX_PIECES	(PAGE_SIZE / (XV_HDR_SIZE + MIN_BLOCK))

/*
 * One page cut exactly into random blocks, objects freed in the order
 * given by @how; in half the trials a hole left by a random subset takes
 * an object of exactly its size, in place.  False on any failure.
 */
static bool merge_trial(unsigned int how, bool refill)
{
	u32 start[MAX_PIECES + 1], total[MAX_PIECES];
	struct obj o[MAX_PIECES + 1];
	size_t order[MAX_PIECES + 1], n = 0, i, k, nfree;
	struct xv_pool *pool = xv_create_pool();
	struct page *page;
	bool ok = false, gone[MAX_PIECES];
	u32 left = PAGE_SIZE, at = 0;

	if (!pool)
		return false;
	memset(o, 0, sizeof(o));
	/* block sizes, header included, that add up to the page */
	while (left) {
		u32 t = XV_HDR_SIZE + MIN_BLOCK;

		t += XV_ALIGN * rnd((left < 1536 ? left : 1536) / XV_ALIGN);
		if (t > left || left - t < XV_HDR_SIZE + MIN_BLOCK)
			t = left;
		start[n] = at;
		total[n++] = t;
		at += t;
		left -= t;
	}
	/* each object asked for a size that rounds to its block exactly */
	for (i = 0; i < n; i++) {
		u32 data = total[i] - XV_HDR_SIZE;
		u32 size = data == MIN_BLOCK ? 1 + rnd(MIN_BLOCK) :
			   data - rnd(XV_ALIGN);

		if (!obj_alloc(pool, &o[i], size, (u32)i))
			goto out;
		CHECK(o[i].page == o[0].page && o[i].off == start[i] + XV_HDR_SIZE &&
		      o[i].len == data,
		      "piece %zu of %zu: offset %u usable %u, expected %u and %u in the first page",
		      i, n, o[i].off, o[i].len, start[i] + XV_HDR_SIZE, data);
		if (o[i].page != o[0].page || o[i].off != start[i] + XV_HDR_SIZE)
			goto out;
	}
	page = o[0].page;
	if (!check_pool(pool, o, n, true, 0))
		goto out;

	memset(gone, 0, sizeof(gone));
	if (refill && n > 2) {
		u32 best = 0, hole = 0, hstart = 0;
		struct obj *r = &o[n];
		bool fits = false;

		/* free a random subset, keeping at least one */
		nfree = 1 + rnd((u32)n - 1);
		shuffle(order, n);
		for (i = 0; i < nfree; i++) {
			gone[order[i]] = true;
			if (!obj_free(pool, &o[order[i]]))
				goto out;
		}
		if (!check_pool(pool, o, n, true, 0))
			goto out;
		/* the biggest hole: a run of freed blocks */
		for (i = 0; i <= n; i++) {
			if (i < n && gone[i]) {
				if (!hole)
					hstart = start[i];
				hole += total[i];
				continue;
			}
			if (hole > best)
				best = hole;
			hole = 0;
		}
		if (!obj_alloc(pool, r, best - XV_HDR_SIZE, 1000))
			goto out;
		/* it must be one of the holes of that size */
		hole = 0;
		for (i = 0; i <= n; i++) {
			if (i < n && gone[i]) {
				if (!hole)
					hstart = start[i];
				hole += total[i];
				continue;
			}
			if (hole == best && r->off == hstart + XV_HDR_SIZE)
				fits = true;
			hole = 0;
		}
		CHECK(fits && r->page == page && r->len == best - XV_HDR_SIZE,
		      "a %u-byte hole (of %zu pieces, %zu freed) took its object at offset %u, usable %u, page %s",
		      best - XV_HDR_SIZE, n, nfree, r->off, r->len,
		      r->page == page ? "the same" : "another");
		if (!fits || r->page != page ||
		    !check_pool(pool, o, n + 1, true, 0))
			goto out;
	}

	/* free what is left in the order asked for */
	k = 0;
	switch (how % 5) {
	case 0:	/* first to last */
		for (i = 0; i <= n; i++)
			order[k++] = i;
		break;
	case 1:	/* last to first */
		for (i = n + 1; i-- > 0;)
			order[k++] = i;
		break;
	case 2:	/* every other one, then the rest: merges on both sides */
		for (i = 0; i <= n; i += 2)
			order[k++] = i;
		for (i = 1; i <= n; i += 2)
			order[k++] = i;
		break;
	case 3:	/* from the middle outwards */
		order[k++] = n / 2;
		for (i = 1; k <= n; i++) {
			if (i <= n / 2)
				order[k++] = n / 2 - i;
			if (n / 2 + i <= n)
				order[k++] = n / 2 + i;
		}
		break;
	default:
		shuffle(order, n + 1);
		k = n + 1;
		break;
	}
	for (nfree = 0, i = 0; i < k; i++)
		nfree += !!o[order[i]].page;
	for (i = 0; i < k; i++) {
		struct obj *x = &o[order[i]];

		if (!x->page)
			continue;
		if (!obj_free(pool, x))
			goto out;
		nfree--;
		CHECK(pages_held() == (nfree ? 1 : 0),
		      "order %u: %zu objects left, %ld pages held", how % 5,
		      nfree, pages_held());
		if (pages_held() != (nfree ? 1 : 0) ||
		    !check_pool(pool, o, n + 1, true, 0))
			goto out;
	}
	ok = true;
out:
	for (i = 0; i <= n; i++)
		if (o[i].page)
			xv_free(pool, o[i].page, o[i].off);
	xv_destroy_pool(pool);
	return ok;
}

static void test_merging(void)
{
	unsigned int t, trials = 3000;

	begin();
	for (t = 0; t < trials; t++)
		if (!merge_trial(t, t % 2))
			break;
	printf("merging: %u of %u trials: page returned exactly with its last object\n",
	       t, trials);
	end("merging", 0);
}

static void test_bad_input(void)
{
	static const u32 bad_sizes[] = {
		0, XV_MAX_ALLOC_SIZE + 1, PAGE_SIZE, 1u << 16, 0xffffffffu,
	};
	struct xv_pool *pool = xv_create_pool(), *other = xv_create_pool();
	struct obj o[8], x, *p;
	struct kshim_counts kc0, kc;
	struct xv_stats st0, st;
	long warnings = 0;
	struct page *pg;
	u16 *forged;
	u32 off, i;
	int rc;

	begin();
	memset(o, 0, sizeof(o));
	memset(&x, 0, sizeof(x));
	if (!pool || !other) {
		CHECK(0, "out of memory");
		goto out;
	}

	/* bad sizes: -EINVAL, no page taken, nothing changed */
	kshim_get_counts(&kc0);
	for (i = 0; i < ARRAY_SIZE(bad_sizes); i++) {
		pg = (struct page *)&kc0;
		off = 123;
		rc = xv_malloc(pool, bad_sizes[i], &pg, &off, GFP_KERNEL);
		CHECK(rc == -EINVAL && !pg && !off,
		      "size %u: rc %d page %p offset %u", bad_sizes[i], rc,
		      (void *)pg, off);
	}
	kshim_get_counts(&kc);
	xv_get_stats(pool, &st);
	CHECK(kc.pages_allocated == kc0.pages_allocated && !st.pages &&
	      !st.objects && !st.bytes_requested && !st.bytes_used,
	      "bad sizes took %ld pages", kc.pages_allocated - kc0.pages_allocated);

	/* page allocation failing: -ENOMEM, nothing changed */
	if (!obj_alloc(pool, &o[0], 3000, 1))
		goto out;
	xv_get_stats(pool, &st0);
	kshim_fail_allocs(1);
	pg = (struct page *)&kc0;
	off = 123;
	rc = xv_malloc(pool, 2000, &pg, &off, GFP_KERNEL);
	kshim_get_counts(&kc);
	xv_get_stats(pool, &st);
	CHECK(rc == -ENOMEM && !pg && !off && kc.allocs_failed == kc0.allocs_failed + 1,
	      "failed page: rc %d page %p offset %u", rc, (void *)pg, off);
	CHECK(!memcmp(&st, &st0, sizeof(st)), "failed alloc changed the counters");
	if (!check_pool(pool, o, 8, true, 0))
		goto out;
	/* what fits in a page held needs no new one */
	kshim_fail_allocs(1);
	if (!obj_alloc(pool, &o[1], 500, 2))
		goto out;
	CHECK(o[1].page == o[0].page, "500 bytes did not go in the held page");
	/* a run of failures, then the same request succeeds */
	kshim_fail_allocs(100);
	for (i = 0; i < 100; i++) {
		rc = xv_malloc(pool, 1000 + i, &pg, &off, GFP_KERNEL);
		CHECK(rc == -ENOMEM, "failure %u: rc %d", i, rc);
	}
	if (!check_pool(pool, o, 8, true, 0))
		goto out;
	rc = xv_malloc(pool, 2000, &pg, &off, GFP_NOWAIT | __GFP_NOWARN);
	kshim_get_counts(&kc);
	CHECK(!rc && kc.last_flags == (GFP_NOWAIT | __GFP_NOWARN),
	      "rc %d, alloc_page() got flags %#x", rc, kc.last_flags);
	if (!rc)
		xv_free(pool, pg, off);
	for (i = 2; i < 8; i++)
		if (!obj_alloc(pool, &o[i], 1000 + i * 8, i + 1))
			goto out;
	if (!obj_alloc(other, &x, 100, 99))
		goto out;

	/* caller bugs: each one warns and changes nothing */
	kshim_quiet(true);
	xv_get_stats(pool, &st0);
	p = &o[3];
	xv_free(pool, p->page, p->off + XV_ALIGN);	/* inside an object */
	xv_free(pool, p->page, p->off + 16);
	xv_free(pool, p->page, 0);			/* before any object */
	xv_free(pool, p->page, 3);			/* misaligned */
	xv_free(pool, p->page, p->off + 1);
	xv_free(pool, p->page, PAGE_SIZE);		/* past the page */
	xv_free(pool, p->page, 0xfffffff8u);
	xv_free(pool, x.page, x.off);			/* another pool's */
	xv_free(other, p->page, p->off);
	xv_free(pool, NULL, p->off);
	warnings += 10;
	/*
	 * A header forged inside an object (u16 size, prev, state, req, as
	 * xvmalloc.c lays it out) that says "in use": its neighbours do not
	 * agree.
	 */
	p = &o[5];
	forged = (u16 *)(obj_addr(p) + 64);
	forged[0] = 64;
	forged[1] = (u16)(p->off - XV_HDR_SIZE);
	forged[2] = 0x5573;
	forged[3] = 10;
	xv_free(pool, p->page, p->off + 64 + XV_HDR_SIZE);
	warnings++;
	obj_fill(p);
	xv_get_stats(pool, &st);
	CHECK(!memcmp(&st, &st0, sizeof(st)), "a bad free changed the counters");
	if (!check_pool(pool, o, 8, true, 1))
		goto out;
	/* double free, the page still held by the other objects */
	p = &o[4];
	pg = p->page;
	off = p->off;
	if (!obj_free(pool, p))
		goto out;
	xv_get_stats(pool, &st0);
	xv_free(pool, pg, off);
	warnings++;
	CHECK(!xv_get_object_size((u8 *)page_address(pg) + off),
	      "a freed object has a size");
	warnings++;
	xv_get_stats(pool, &st);
	CHECK(!memcmp(&st, &st0, sizeof(st)), "a double free changed the counters");
	kshim_quiet(false);
	kshim_get_counts(&kc);
	CHECK(kc.warnings - begin_counts.warnings == warnings,
	      "%ld warnings for %ld caller bugs",
	      kc.warnings - begin_counts.warnings, warnings);
	if (!check_pool(pool, o, 8, true, 1))
		goto out;
	for (i = 0; i < 8; i++)
		if (o[i].page && !obj_free(pool, &o[i]))
			goto out;
	obj_free(other, &x);
	check_pool(pool, o, 8, false, 0);
out:
	kshim_quiet(false);
	kshim_fail_allocs(0);
	for (i = 0; i < 8; i++)
		if (o[i].page)
			xv_free(pool, o[i].page, o[i].off);
	if (x.page)
		xv_free(other, x.page, x.off);
	xv_destroy_pool(pool);
	xv_destroy_pool(other);
	end("bad input", warnings);
}

static void density_report(const char *what, struct xv_pool *pool,
			   double *fill)
{
	struct xv_stats st;

	xv_get_stats(pool, &st);
	*fill = (double)st.bytes_requested / (st.pages * PAGE_SIZE);
	printf("density %s: %llu objects on %llu pages, %.2f objects/page\n",
	       what, (unsigned long long)st.objects,
	       (unsigned long long)st.pages, (double)st.objects / st.pages);
	printf("density %s: fill %.3f (in blocks %.3f, free %.3f)\n", what,
	       *fill, (double)st.bytes_used / (st.pages * PAGE_SIZE),
	       (double)st.bytes_free / (st.pages * PAGE_SIZE));
}

static void test_density(void)
{
	const size_t n = 20000;
	struct xv_pool *pool = xv_create_pool();
	struct obj *objs = calloc(n, sizeof(*objs));
	size_t *idx = calloc(n, sizeof(*idx));
	double fresh, half, refilled;
	u64 ideal = 0;
	size_t i;

	begin();
	if (!pool || !objs || !idx) {
		CHECK(0, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!obj_alloc(pool, &objs[i], zsize(), (u32)i))
			goto out;
		ideal += XV_HDR_SIZE + rounded(objs[i].size);
	}
	if (!check_pool(pool, objs, n, true, 0) || !probe_holes(pool, objs, n, 200))
		goto out;
	printf("density: %zu objects need at least %llu pages with their headers\n",
	       n, (unsigned long long)((ideal + PAGE_SIZE - 1) / PAGE_SIZE));
	density_report("fresh", pool, &fresh);
	CHECK(fresh >= FRESH_FILL_MIN, "fresh fill %.3f below %.2f", fresh,
	      FRESH_FILL_MIN);

	shuffle(idx, n);
	for (i = 0; i < n / 2; i++)
		if (!obj_free(pool, &objs[idx[i]]))
			goto out;
	if (!check_pool(pool, objs, n, true, 0) || !probe_holes(pool, objs, n, 200))
		goto out;
	density_report("after freeing a random half", pool, &half);

	for (i = 0; i < n / 2; i++)
		if (!obj_alloc(pool, &objs[idx[i]], zsize(), (u32)(n + i)))
			goto out;
	if (!check_pool(pool, objs, n, true, 0) || !probe_holes(pool, objs, n, 200))
		goto out;
	density_report("refilled", pool, &refilled);

	for (i = 0; i < n; i++)
		if (!obj_free(pool, &objs[i]))
			goto out;
	check_pool(pool, objs, n, false, 0);
out:
	xv_destroy_pool(pool);
	free(objs);
	free(idx);
	end("density", 0);
}

struct churner {
	pthread_t thread;
	struct xv_pool *pool;
	uint64_t rng;
	unsigned long ops;
	unsigned long failures;
	char first[200];
};

static u32 churner_rnd(struct churner *c, u32 n)
{
	return (u32)(rnd64_from(&c->rng) % n);
}

static void churner_fail(struct churner *c, const char *what, u32 size)
{
	if (!c->failures++)
		snprintf(c->first, sizeof(c->first), "%s (size %u)", what, size);
}

static void *churner_run(void *arg)
{
	enum { CAP = 1000 };
	struct churner *c = arg;
	struct obj objs[CAP];
	size_t n = 0, k;
	unsigned long op;
	u32 size;

	for (op = 0; op < c->ops; op++) {
		if (n < CAP && (!n || churner_rnd(c, 100) < 52)) {
			struct obj *o = &objs[n];

			size = zsize_from(churner_rnd(c, 100),
					  churner_rnd(c, 1u << 30));
			if (xv_malloc(c->pool, size, &o->page, &o->off,
				      GFP_KERNEL)) {
				churner_fail(c, "xv_malloc failed", size);
				break;
			}
			o->size = size;
			o->tag = (u32)op;
			o->len = xv_get_object_size(obj_addr(o));
			if (o->len < size) {
				churner_fail(c, "usable size too small", size);
				break;
			}
			obj_fill(o);
			n++;
		} else {
			k = churner_rnd(c, (u32)n);
			if (obj_check(&objs[k]) >= 0)
				churner_fail(c, "pattern changed",
					     objs[k].size);
			xv_free(c->pool, objs[k].page, objs[k].off);
			objs[k] = objs[--n];
		}
	}
	while (n--) {
		if (obj_check(&objs[n]) >= 0)
			churner_fail(c, "pattern changed at the end",
				     objs[n].size);
		xv_free(c->pool, objs[n].page, objs[n].off);
	}
	return NULL;
}

static void test_threads(void)
{
	struct xv_pool *pool = xv_create_pool();
	struct churner *c = calloc(nr_threads, sizeof(*c));
	struct xv_stats st;
	unsigned int i, started = 0;
	double t;

	begin();
	if (!pool || !c) {
		CHECK(0, "out of memory");
		goto out;
	}
	t = now();
	for (i = 0; i < nr_threads; i++) {
		c[i].pool = pool;
		c[i].rng = rnd64();
		c[i].ops = churn_ops / 2;
		if (pthread_create(&c[i].thread, NULL, churner_run, &c[i])) {
			CHECK(0, "pthread_create failed");
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(c[i].thread, NULL);
		CHECK(!c[i].failures, "thread %u: %lu failures, the first: %s",
		      i, c[i].failures, c[i].first);
	}
	t = now() - t;
	xv_get_stats(pool, &st);
	CHECK(!st.pages && !st.objects && !st.bytes_requested && !st.bytes_used &&
	      !st.bytes_free, "after the threads: %llu pages %llu objects",
	      (unsigned long long)st.pages, (unsigned long long)st.objects);
	printf("threads: %u threads x %lu ops on one pool, %.0f ops/s\n",
	       started, churn_ops / 2, started * (churn_ops / 2) / t);
out:
	xv_destroy_pool(pool);
	free(c);
	end("threads", 0);
}

static void test_speed(void)
{
	const size_t n = 5000;
	const unsigned long pairs = 500000;
	struct xv_pool *pool = xv_create_pool();
	struct obj *objs = calloc(n, sizeof(*objs));
	u32 *sizes = calloc(4096, sizeof(*sizes));
	unsigned long i;
	size_t k;
	double t;
	int rc = 0;

	begin();
	if (!pool || !objs || !sizes) {
		CHECK(0, "out of memory");
		goto out;
	}
	for (i = 0; i < 4096; i++)
		sizes[i] = zsize();
	for (k = 0; k < n; k++)
		rc |= xv_malloc(pool, sizes[k % 4096], &objs[k].page,
				&objs[k].off, GFP_KERNEL);
	if (rc) {
		CHECK(0, "an allocation failed");
		goto out;
	}
	t = now();
	for (i = 0; i < pairs; i++) {
		k = (i * 2654435761u) % n;
		xv_free(pool, objs[k].page, objs[k].off);
		rc |= xv_malloc(pool, sizes[i % 4096], &objs[k].page,
				&objs[k].off, GFP_KERNEL);
	}
	t = now() - t;
	CHECK(!rc, "an allocation failed");
	printf("speed: %.0f ops/s (%lu frees and allocs among %zu objects)\n",
	       2 * pairs / t, pairs, n);
out:
	for (k = 0; objs && k < n; k++)
		if (objs[k].page)
			xv_free(pool, objs[k].page, objs[k].off);
	xv_destroy_pool(pool);
	free(objs);
	free(sizes);
	end("speed", 0);
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: xvmalloc_test [-s SEED] [-n OPS] [-t THREADS] [-h]\n"
		"  -s SEED     replay a run (the seed is printed first)\n"
		"  -n OPS      churn operations (default 200000; the threads\n"
		"              do OPS/2 each)\n"
		"  -t THREADS  threads churning one pool (default 4)\n"
		"Exits 0 if every test passed, 1 if one failed, 2 on bad usage.\n");
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_usage(stdout);
			return 0;
		}
		if (i + 1 < argc && !strcmp(argv[i], "-n")) {
			churn_ops = strtoul(argv[++i], NULL, 0);
		} else if (i + 1 < argc && !strcmp(argv[i], "-t")) {
			nr_threads = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (i + 1 < argc && !strcmp(argv[i], "-s")) {
			i++;
		} else {
			fprintf(stderr, "xvmalloc_test: bad argument '%s'\n",
				argv[i]);
			print_usage(stderr);
			return 2;
		}
	}
	if (!churn_ops || !nr_threads || nr_threads > 64) {
		fprintf(stderr, "xvmalloc_test: -n must be > 0, -t 1..64\n");
		return 2;
	}
	test_seed_from_args(argc, argv, "xvmalloc_test");

	test_every_size();
	test_churn();
	test_merging();
	test_bad_input();
	test_density();
	test_threads();
	test_speed();

	printf("xvmalloc_test: %lu checks, %lu failed\n", test_checks,
	       test_failures);
	return test_failures ? 1 : 0;
}
