// SPDX-License-Identifier: GPL-2.0
/*
 * prefetch_test - frontend/cc_prefetch.c in userspace on the kernel shim in
 * kshim/ (pages and allocations counted; maps, locks and lists checked;
 * wait_event() polls), under ASan and UBSan.  Every page an answer brings
 * is a pattern from its pool, object, index and version; every page taken
 * is compared with the pattern of the version it must be, and a take that
 * fails must leave the caller's page alone.
 *
 *  - basics: reserve, answer, take copies exactly that page's bytes and
 *    frees the entry; keys differing in one field are different pages;
 *    -EEXIST while a page has a wanted entry, -ENOENT when it has none;
 *  - misses: an answer without a page leaves nothing to take;
 *  - generations: an entry of another generation is -ESTALE, and gone;
 *  - forget: a page here (counted unused), a page in flight (a new entry
 *    at once; the old answer is dropped, counted, and its entry comes
 *    back), an object, a pool, and nothing else;
 *  - room: -ENOSPC when every entry is in flight, else the page that
 *    arrived first is dropped (counted unused);
 *  - many keys: 256 entries on the hash's 256 chains;
 *  - model: random reserves, answers, misses, takes, puts, flushes of
 *    pages, objects and pools, and generation bumps over 2 pools x 3
 *    objects x 16 indexes with 8..16 entries, against a reference model:
 *    every result and the unused counter as the model says, and a page
 *    taken is always the last version put;
 *  - threads: a take waits for the answer another thread gives; workers
 *    share the entries with a thread answering their GETs, and never get
 *    a stale page;
 *  - asked: a page a get will wait for is never dropped for room (all
 *    such: -ENOSPC); the server's pool id and oid[2] name the page too; a
 *    forget wakes a get waiting for the page; rf_cc_pf_exit() with pages
 *    still here, then init again, leaves nothing behind;
 *  - init: 0 entries (fetching ahead off), allocations failing.
 *
 * Each test ends with rf_cc_pf_exit(), which must give every page back.
 * A failure prints its seed; -s SEED replays the run.
 *
 * usage: prefetch_test [-s SEED] [-n OPS] [-h]
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include <linux/err.h>
#include <linux/wait.h>
#include "kshim.h"
#include "tmem_abi.h"
#include "ramster_frontend.h"
#include "test.h"

#define NR_POOLS	2
#define NR_OBJS		3
#define NR_INDEXES	16
#define NR_KEYS		(NR_POOLS * NR_OBJS * NR_INDEXES)
#define MODEL_MAX	16		/* entries, at most */
#define MAX_PENDING	1024
#define SPARE_POOL	5		/* all_free()'s pages */
#define PAGE_WORDS	(PAGE_SIZE / sizeof(u64))
#define POISON		0x5a		/* the taker's page before a take */
#define TIMEOUT_S	60		/* per test: a take that never returns */

/* cc_prefetch.c counts in rf_stats.cc_prefetch_unused */
struct rf_stats rf_stats;

static unsigned long model_ops = 300000;

/* Objects 0 and 1 share oid[0], objects 0 and 2 share oid[1]. */
static const u64 obj_oid[NR_OBJS][2] = {
	{ 0x1234567890abcdefULL, 1 },
	{ 0x1234567890abcdefULL, 2 },
	{ 0xfeed0000f00dULL, 1 },
};

static __thread u64 want_buf[PAGE_WORDS];

static struct page *dst;		/* the main thread's takes */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_alarm(int sig)
{
	static const char msg[] =
		"prefetch_test: FAIL: a test did not finish (a take waiting forever?)\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	fprintf(stderr, "prefetch_test: seed %u\n", test_seed);
	_exit(1);
}

/* The error in a reserve's result, 0 for an entry. */
static long result(const void *e)
{
	return IS_ERR(e) ? PTR_ERR(e) : 0;
}

static s64 unused(void)
{
	return atomic64_read(&rf_stats.cc_prefetch_unused);
}

static void handle(struct tmem_handle *h, int pool, u64 oid0, u64 oid1,
		   u32 index)
{
	memset(h, 0, sizeof(*h));
	h->pool_id = 40 + pool;		/* the server's id of the pool */
	h->oid[0] = oid0;
	h->oid[1] = oid1;
	h->index = index;
}

static int key_pool(int key)
{
	return key / (NR_OBJS * NR_INDEXES);
}

static int key_obj(int key)
{
	return key / NR_INDEXES % NR_OBJS;
}

static int key_of(int pool, int obj, u32 index)
{
	return (pool * NR_OBJS + obj) * NR_INDEXES + (int)index;
}

static void key_handle(struct tmem_handle *h, int key)
{
	int obj = key_obj(key);

	handle(h, key_pool(key), obj_oid[obj][0], obj_oid[obj][1],
	       key % NR_INDEXES);
}

/* Page (pool, h) at version ver: a header saying so, then noise. */
static void pattern(u64 *w, int pool, const struct tmem_handle *h, u32 ver)
{
	u64 id = (u64)h->index << 32 | ver;
	u64 x = h->oid[0] * 0x9e3779b97f4a7c15ULL ^
		h->oid[1] * 0xbf58476d1ce4e5b9ULL ^
		id * 0x94d049bb133111ebULL ^ (u64)pool << 56;
	size_t i;

	w[0] = (u64)pool;
	w[1] = h->oid[0];
	w[2] = h->oid[1];
	w[3] = id;
	x |= 1;
	for (i = 4; i < PAGE_WORDS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w[i] = x;
	}
}

static bool page_matches(struct page *pg, int pool,
			 const struct tmem_handle *h, u32 ver)
{
	pattern(want_buf, pool, h, ver);
	return !memcmp(page_address(pg), want_buf, PAGE_SIZE);
}

/* Checks that pg holds page (pool, h) at version ver. */
static bool page_is(struct page *pg, int pool, const struct tmem_handle *h,
		    u32 ver, const char *what)
{
	const u64 *w = page_address(pg);

	if (page_matches(pg, pool, h, ver))
		return true;
	CHECK(0, "%s: pool %d index %u should be version %u; the page is pool %lld oid %llx:%llx index %llu version %llu%s",
	      what, pool, h->index, ver, (long long)w[0], w[1], w[2],
	      w[3] >> 32, w[3] & 0xffffffffu,
	      memcmp(w, want_buf, 32) ? "" : ", other bytes");
	return false;
}

static bool page_untouched(struct page *pg)
{
	const u8 *p = page_address(pg);
	size_t i;

	for (i = 0; i < PAGE_SIZE; i++)
		if (p[i] != POISON)
			return false;
	return true;
}

/* Entries reserved and not answered, for pf_exit() (main thread only). */
static struct rf_pf_entry *pending[MAX_PENDING];
static unsigned int nr_pending;

static void pending_add(struct rf_pf_entry *e)
{
	if (nr_pending < MAX_PENDING)
		pending[nr_pending++] = e;
}

static void pending_del(struct rf_pf_entry *e)
{
	unsigned int i;

	for (i = 0; i < nr_pending; i++)
		if (pending[i] == e) {
			pending[i] = pending[--nr_pending];
			return;
		}
}

/* The answer to e's GET: page (pool, h) at version ver. */
static void answer(struct rf_pf_entry *e, int pool,
		   const struct tmem_handle *h, u32 ver)
{
	pending_del(e);
	pattern(page_address(rf_cc_pf_page(e)), pool, h, ver);
	rf_cc_pf_fill(e, true);
}

/* The answer to e's GET: no page (a miss, or a failure). */
static void miss(struct rf_pf_entry *e)
{
	pending_del(e);
	rf_cc_pf_fill(e, false);
}

static void clean_after(const char *what)
{
	CHECK(!kshim_locks_held() && !kshim_maps_held(),
	      "%s: %d locks and %d maps held after the call", what,
	      kshim_locks_held(), kshim_maps_held());
}

/* rf_cc_pf_take() into to, poisoned first: a failed take must not write. */
static int take(int pool, unsigned int gen, const struct tmem_handle *h,
		struct page *to)
{
	int rc;

	memset(page_address(to), POISON, PAGE_SIZE);
	rc = rf_cc_pf_take(pool, gen, h, to, MAX_SCHEDULE_TIMEOUT);
	clean_after("rf_cc_pf_take");
	CHECK(!rc || page_untouched(to), "a failed take (%d) wrote the page",
	      rc);
	return rc;
}

/*
 * A take that must find nothing.  If the page is still there, that is the
 * failure: its entry may be in flight, and the take would wait for an
 * answer that never comes.
 */
static void take_none(int pool, unsigned int gen, const struct tmem_handle *h,
		      const char *what)
{
	int rc;

	if (rf_cc_pf_has(pool, h)) {
		CHECK(0, "%s: pool %d index %u is still there", what, pool,
		      h->index);
		return;
	}
	rc = take(pool, gen, h, dst);
	CHECK(rc == -ENOENT, "%s: take %d, not -ENOENT", what, rc);
}

/* A reserve that must succeed, for the page it names; NULL if not. */
static struct rf_pf_entry *reserve_ok(int pool, unsigned int gen,
				      const struct tmem_handle *h)
{
	struct rf_pf_entry *e = rf_cc_pf_reserve(pool, gen, h);
	const struct tmem_handle *got;
	int p = -1;

	clean_after("rf_cc_pf_reserve");
	CHECK(!IS_ERR_OR_NULL(e), "reserve of pool %d index %u: %ld", pool,
	      h->index, result(e));
	if (IS_ERR_OR_NULL(e))
		return NULL;
	pending_add(e);
	got = rf_cc_pf_handle(e, &p);
	CHECK(p == pool && !memcmp(got, h, sizeof(*h)) &&
	      rf_cc_pf_handle(e, NULL) == got,
	      "the entry is for pool %d index %u, reserved for pool %d index %u",
	      p, got->index, pool, h->index);
	return e;
}

/* A reserve that should fail: its error, or 0 (the entry kept). */
static long reserve_err(int pool, unsigned int gen,
			const struct tmem_handle *h)
{
	struct rf_pf_entry *e = rf_cc_pf_reserve(pool, gen, h);

	clean_after("rf_cc_pf_reserve");
	if (!IS_ERR_OR_NULL(e))
		pending_add(e);
	return result(e);
}

static unsigned long begin_failures;
static struct kshim_counts begin_counts;

static void begin(void)
{
	begin_failures = test_failures;
	kshim_get_counts(&begin_counts);
	alarm(TIMEOUT_S);
}

/* Ends a test: every page and allocation back, no shim error. */
static void end(const char *name)
{
	struct kshim_counts kc;

	alarm(0);
	kshim_get_counts(&kc);
	CHECK(kc.pages_held == begin_counts.pages_held,
	      "%s: %ld pages held, %ld before", name, kc.pages_held,
	      begin_counts.pages_held);
	CHECK(kc.objects_held == begin_counts.objects_held,
	      "%s: %ld allocations held, %ld before", name, kc.objects_held,
	      begin_counts.objects_held);
	CHECK(kc.errors == begin_counts.errors, "%s: %ld shim errors", name,
	      kc.errors - begin_counts.errors);
	CHECK(kc.warnings == begin_counts.warnings, "%s: %ld warnings", name,
	      kc.warnings - begin_counts.warnings);
	printf("%s: %s\n", test_failures == begin_failures ? "PASS" : "FAIL",
	       name);
	fflush(stdout);
}

/* What the shim held before rf_cc_pf_init(). */
static struct kshim_counts pf_base;

static bool pf_init(unsigned int n)
{
	struct kshim_counts kc;
	int rc;

	kshim_get_counts(&pf_base);
	rc = rf_cc_pf_init(n);
	kshim_get_counts(&kc);
	CHECK(!rc, "rf_cc_pf_init(%u) = %d", n, rc);
	CHECK(kc.pages_held == pf_base.pages_held + n,
	      "rf_cc_pf_init(%u) holds %ld pages", n,
	      kc.pages_held - pf_base.pages_held);
	return !rc;
}

/*
 * Answers what the test left in flight, forgets every pool and exits:
 * every page must be back.
 */
static void pf_exit(void)
{
	struct kshim_counts kc;
	int pool;

	while (nr_pending)
		miss(pending[nr_pending - 1]);
	for (pool = 0; pool <= SPARE_POOL; pool++)
		rf_cc_pf_forget_pool(pool);
	rf_cc_pf_exit();
	kshim_get_counts(&kc);
	CHECK(kc.pages_held == pf_base.pages_held,
	      "after rf_cc_pf_exit %ld pages held, %ld before rf_cc_pf_init",
	      kc.pages_held, pf_base.pages_held);
	CHECK(kc.objects_held == pf_base.objects_held,
	      "after rf_cc_pf_exit %ld allocations held, %ld before",
	      kc.objects_held, pf_base.objects_held);
}

/*
 * Every one of the n entries is free: n pages of a pool no other test
 * uses can be reserved without dropping one, and one more is -ENOSPC.
 * Their answers are misses: all free again after.
 */
static bool all_free(unsigned int n)
{
	struct rf_pf_entry **e = calloc(n + 1, sizeof(*e));
	unsigned long failed = test_failures;
	unsigned int i, got = 0;
	struct tmem_handle h;
	s64 u = unused();

	if (!e) {
		CHECK(0, "out of memory");
		return false;
	}
	for (i = 0; i <= n; i++) {
		handle(&h, SPARE_POOL, 0xf7ee, 0, i);
		e[got] = rf_cc_pf_reserve(SPARE_POOL, 1, &h);
		if (i < n)
			CHECK(!IS_ERR_OR_NULL(e[got]),
			      "%u entries: entry %u is not free (%ld)", n, i,
			      result(e[got]));
		else
			CHECK(e[got] == ERR_PTR(-ENOSPC),
			      "%u entries: one more is not -ENOSPC (%ld)", n,
			      result(e[got]));
		if (!IS_ERR_OR_NULL(e[got]))
			got++;
	}
	CHECK(unused() == u, "%lld pages dropped to make room, none expected",
	      (long long)(unused() - u));
	for (i = 0; i < got; i++)
		rf_cc_pf_fill(e[i], false);
	free(e);
	return test_failures == failed;
}

/* ---- directed tests ---- */

static void test_basics(void)
{
	const u64 a = obj_oid[0][0], b = obj_oid[0][1];
	struct tmem_handle h[6], absent;
	struct rf_pf_entry *e[6];
	struct kshim_counts kc0, kc;
	size_t order[6] = { 4, 1, 5, 0, 3, 2 };
	s64 u = unused();
	unsigned int i;
	int rc;

	begin();
	if (!pf_init(8))
		goto out;
	/* one page: reserve, answer, take */
	handle(&h[0], 0, a, b, 3);
	handle(&absent, 0, a, b, 7);
	e[0] = reserve_ok(0, 1, &h[0]);
	if (!e[0])
		goto out;
	CHECK(rf_cc_pf_has(0, &h[0]), "a page in flight is not there");
	CHECK(!rf_cc_pf_has(0, &absent), "a page never reserved is there");
	CHECK(reserve_err(0, 1, &h[0]) == -EEXIST,
	      "a second entry for a page in flight");
	take_none(0, 1, &absent, "a page never reserved");
	/* a take that gives up waiting leaves the page in flight */
	memset(page_address(dst), POISON, PAGE_SIZE);
	rc = rf_cc_pf_take(0, 1, &h[0], dst, 3);
	clean_after("rf_cc_pf_take");
	CHECK(rc == -ETIMEDOUT && page_untouched(dst) &&
	      rf_cc_pf_has(0, &h[0]),
	      "a take that timed out on a page in flight: %d, or it wrote or went",
	      rc);
	kshim_get_counts(&kc0);
	answer(e[0], 0, &h[0], 7);
	clean_after("rf_cc_pf_fill");
	kshim_get_counts(&kc);
	CHECK(kc.wakeups > kc0.wakeups, "an answer woke no taker");
	CHECK(rf_cc_pf_has(0, &h[0]), "a page answered is not there");
	CHECK(reserve_err(0, 1, &h[0]) == -EEXIST &&
	      reserve_err(0, 2, &h[0]) == -EEXIST,
	      "a second entry for a page here");
	rc = take(0, 1, &h[0], dst);
	CHECK(!rc, "take of a page here: %d", rc);
	if (!rc)
		page_is(dst, 0, &h[0], 7, "take");
	CHECK(!rf_cc_pf_has(0, &h[0]), "a page taken is still there");
	take_none(0, 1, &h[0], "a page taken");

	/* six pages differing in one field each: pool, oids, index */
	handle(&h[1], 1, a, b, 3);
	handle(&h[2], 0, a ^ 1, b, 3);
	handle(&h[3], 0, a, b + 1, 3);
	handle(&h[4], 0, a, b, 4);
	handle(&h[5], 0, a, b, 3 | 0x80000000u);
	for (i = 0; i < 6; i++) {
		e[i] = reserve_ok(i == 1, 1, &h[i]);
		if (!e[i])
			goto out;
	}
	for (i = 6; i-- > 0;)
		answer(e[i], i == 1, &h[i], 100 + i);
	for (i = 0; i < 6; i++) {
		size_t k = order[i];

		rc = take(k == 1, 1, &h[k], dst);
		CHECK(!rc, "take of page %zu of 6: %d", k, rc);
		if (!rc)
			page_is(dst, k == 1, &h[k], 100 + k, "six pages");
	}
	CHECK(unused() == u, "%lld pages counted unused",
	      (long long)(unused() - u));
	/* every entry is free again */
	all_free(8);
out:
	pf_exit();
	end("basics: reserve, answer, take");
}

static void test_misses(void)
{
	struct tmem_handle h;
	struct rf_pf_entry *e;
	s64 u = unused();
	int rc;

	begin();
	if (!pf_init(4))
		goto out;
	key_handle(&h, key_of(1, 2, 9));
	e = reserve_ok(1, 1, &h);
	if (!e)
		goto out;
	miss(e);
	clean_after("rf_cc_pf_fill");
	CHECK(!rf_cc_pf_has(1, &h), "a miss is there");
	take_none(1, 1, &h, "a miss");
	/* the page can be asked for again at once */
	e = reserve_ok(1, 1, &h);
	if (!e)
		goto out;
	answer(e, 1, &h, 2);
	rc = take(1, 1, &h, dst);
	CHECK(!rc, "take after a miss and a hit: %d", rc);
	if (!rc)
		page_is(dst, 1, &h, 2, "after a miss");
	CHECK(unused() == u, "a miss counted unused");
	all_free(4);
out:
	pf_exit();
	end("misses");
}

static void test_generations(void)
{
	struct tmem_handle h;
	struct rf_pf_entry *e;
	s64 u = unused();
	int rc;

	begin();
	if (!pf_init(4))
		goto out;
	key_handle(&h, key_of(0, 1, 5));
	/* reserved with generation 5, taken with 6 or 4: stale, and gone */
	e = reserve_ok(0, 5, &h);
	if (!e)
		goto out;
	answer(e, 0, &h, 1);
	rc = take(0, 6, &h, dst);
	CHECK(rc == -ESTALE, "take of a newer generation: %d", rc);
	CHECK(!rf_cc_pf_has(0, &h), "a stale page is still there");
	take_none(0, 5, &h, "a stale page taken");
	e = reserve_ok(0, 5, &h);
	if (!e)
		goto out;
	answer(e, 0, &h, 2);
	rc = take(0, 4, &h, dst);
	CHECK(rc == -ESTALE, "take of an older generation: %d", rc);
	/* the same generation, wrapped around */
	e = reserve_ok(0, 0xffffffffu, &h);
	if (!e)
		goto out;
	answer(e, 0, &h, 3);
	rc = take(0, 0, &h, dst);
	CHECK(rc == -ESTALE, "generation 0 after 0xffffffff: %d", rc);
	e = reserve_ok(0, 0xffffffffu, &h);
	if (!e)
		goto out;
	answer(e, 0, &h, 4);
	rc = take(0, 0xffffffffu, &h, dst);
	CHECK(!rc, "take of the same generation: %d", rc);
	if (!rc)
		page_is(dst, 0, &h, 4, "generation");
	CHECK(unused() == u, "stale pages counted unused");
	all_free(4);
out:
	pf_exit();
	end("generations");
}

static void test_forget(void)
{
	struct tmem_handle h, other;
	struct rf_pf_entry *e, *e2;
	s64 u = unused();
	int rc;

	begin();
	if (!pf_init(4))
		goto out;
	key_handle(&h, key_of(0, 0, 1));
	key_handle(&other, key_of(0, 0, 2));

	/* a page here: gone, counted unused */
	e = reserve_ok(0, 1, &h);
	if (!e)
		goto out;
	answer(e, 0, &h, 1);
	rf_cc_pf_forget(1, &h);		/* the same handle, another pool */
	rf_cc_pf_forget(0, &other);
	CHECK(rf_cc_pf_has(0, &h) && unused() == u,
	      "forgetting other pages forgot this one");
	rf_cc_pf_forget(0, &h);
	clean_after("rf_cc_pf_forget");
	CHECK(!rf_cc_pf_has(0, &h), "a page forgotten is there");
	CHECK(unused() == u + 1, "a page forgotten: %lld counted unused",
	      (long long)(unused() - u));
	take_none(0, 1, &h, "a page forgotten");
	rf_cc_pf_forget(0, &h);
	CHECK(unused() == u + 1, "forgetting nothing counted");
	u = unused();

	/* in flight: the next reserve has a new entry at once */
	e = reserve_ok(0, 1, &h);
	if (!e)
		goto out;
	rf_cc_pf_forget(0, &h);
	CHECK(!rf_cc_pf_has(0, &h), "a page forgotten in flight is there");
	CHECK(unused() == u, "forgetting a page in flight counted");
	/* the take must not wait for the dead entry */
	take_none(0, 1, &h, "a page forgotten in flight");
	e2 = reserve_ok(0, 1, &h);
	if (!e2)
		goto out;
	CHECK(e2 != e, "the dead entry was given out again before its answer");
	/* the dead entry's answer (the old page) stays out of sight */
	answer(e, 0, &h, 1);
	CHECK(unused() == u + 1, "a dead entry's page: %lld counted unused",
	      (long long)(unused() - u));
	CHECK(rf_cc_pf_has(0, &h), "the new entry went with the dead one");
	CHECK(reserve_err(0, 1, &h) == -EEXIST,
	      "the new entry is not there after the dead one's answer");
	answer(e2, 0, &h, 2);
	rc = take(0, 1, &h, dst);
	CHECK(!rc, "take of the new entry: %d", rc);
	if (!rc)
		page_is(dst, 0, &h, 2, "after a dead answer");

	/* the dead answer after the new one: still the new page */
	u = unused();
	e = reserve_ok(0, 1, &h);
	if (!e)
		goto out;
	rf_cc_pf_forget(0, &h);
	e2 = reserve_ok(0, 1, &h);
	if (!e2)
		goto out;
	answer(e2, 0, &h, 4);
	answer(e, 0, &h, 3);
	rc = take(0, 1, &h, dst);
	CHECK(!rc, "take of the new entry: %d", rc);
	if (!rc)
		page_is(dst, 0, &h, 4, "dead answer last");
	/* a dead entry's miss is not counted */
	e = reserve_ok(0, 1, &h);
	if (!e)
		goto out;
	rf_cc_pf_forget(0, &h);
	miss(e);
	CHECK(unused() == u + 1, "%lld counted unused, expected 1",
	      (long long)(unused() - u));
	CHECK(!rf_cc_pf_has(0, &h), "a dead entry's miss left a page");
	/* the dead entries came back */
	all_free(4);
out:
	pf_exit();
	end("forget a page");
}

/* Reserves and answers a page of key; false on failure. */
static bool put_here(int key, u32 ver)
{
	struct tmem_handle h;
	struct rf_pf_entry *e;

	key_handle(&h, key);
	e = reserve_ok(key_pool(key), 1, &h);
	if (e)
		answer(e, key_pool(key), &h, ver);
	return e;
}

/* Takes every page of keys[] marked in want[], checked; the rest gone. */
static void check_keys(const int *keys, const bool *want, int n,
		       const char *what)
{
	struct tmem_handle h;
	int i, rc;

	for (i = 0; i < n; i++) {
		key_handle(&h, keys[i]);
		CHECK(rf_cc_pf_has(key_pool(keys[i]), &h) == want[i],
		      "%s: key %d is%s there", what, keys[i],
		      want[i] ? " not" : "");
	}
	for (i = 0; i < n; i++) {
		key_handle(&h, keys[i]);
		if (!want[i]) {
			take_none(key_pool(keys[i]), 1, &h, what);
			continue;
		}
		rc = take(key_pool(keys[i]), 1, &h, dst);
		CHECK(!rc, "%s: take of key %d: %d", what, keys[i], rc);
		if (!rc)
			page_is(dst, key_pool(keys[i]), &h, 10 + keys[i], what);
	}
}

static void test_forget_object_pool(void)
{
	int keys[12], n = 0, pool, obj, i;
	struct rf_pf_entry *fly[2];
	struct tmem_handle h;
	bool want[12];
	s64 u = unused();

	begin();
	if (!pf_init(16))
		goto out;
	/* 12 pages here: both pools, every object, indexes 0 and 1 */
	for (pool = 0; pool < NR_POOLS; pool++)
		for (obj = 0; obj < NR_OBJS; obj++)
			for (i = 0; i < 2; i++) {
				keys[n] = key_of(pool, obj, i);
				if (!put_here(keys[n], 10 + keys[n]))
					goto out;
				n++;
			}
	/* and two in flight: pool 0, objects 0 and 1, index 5 */
	for (i = 0; i < 2; i++) {
		key_handle(&h, key_of(0, i, 5));
		fly[i] = reserve_ok(0, 1, &h);
		if (!fly[i])
			goto out;
	}
	/* pool 0's object 0, named by an index it does not have */
	key_handle(&h, key_of(0, 0, 0));
	h.index = 12345;
	rf_cc_pf_forget_object(0, &h);
	clean_after("rf_cc_pf_forget_object");
	CHECK(unused() == u + 2, "forget_object: %lld counted unused, not 2",
	      (long long)(unused() - u));
	key_handle(&h, key_of(0, 0, 5));
	CHECK(!rf_cc_pf_has(0, &h), "forget_object: its page in flight is there");
	key_handle(&h, key_of(0, 1, 5));
	CHECK(rf_cc_pf_has(0, &h), "forget_object: another object's page in flight went");
	for (i = 0; i < n; i++) {
		key_handle(&h, keys[i]);
		want[i] = key_pool(keys[i]) || key_obj(keys[i]);
		CHECK(rf_cc_pf_has(key_pool(keys[i]), &h) == want[i],
		      "forget_object: key %d is%s there", keys[i],
		      want[i] ? " not" : "");
	}
	/* the dead entry's page is not seen; a new one can be reserved */
	key_handle(&h, key_of(0, 0, 5));
	answer(fly[0], 0, &h, 1);
	CHECK(unused() == u + 3, "forget_object: the dead answer not counted");
	if (!put_here(key_of(0, 0, 5), 10 + key_of(0, 0, 5)))
		goto out;
	rf_cc_pf_forget_pool(0);
	clean_after("rf_cc_pf_forget_pool");
	/* pool 0: objects 1 and 2 (two each), object 0 index 5 */
	CHECK(unused() == u + 8, "forget_pool: %lld counted unused, not 8",
	      (long long)(unused() - u));
	key_handle(&h, key_of(0, 1, 5));
	CHECK(!rf_cc_pf_has(0, &h), "forget_pool: its page in flight is there");
	miss(fly[1]);
	CHECK(unused() == u + 8, "forget_pool: a dead miss counted");
	for (i = 0; i < n; i++)
		want[i] = key_pool(keys[i]) == 1;
	check_keys(keys, want, n, "forget_pool");
	CHECK(unused() == u + 8, "takes counted unused");
	all_free(16);
out:
	pf_exit();
	end("forget an object, a pool");
}

static struct tmem_handle room_h[10];
static struct rf_pf_entry *room_e[10];

/* Page i of the room test: pool i & 1, version i. */
static bool room_reserve(int i)
{
	room_e[i] = reserve_ok(i & 1, 1, &room_h[i]);
	return room_e[i];
}

static long room_err(int i)
{
	return reserve_err(i & 1, 1, &room_h[i]);
}

static bool room_here(int i)
{
	return rf_cc_pf_has(i & 1, &room_h[i]);
}

static void room_answer(int i)
{
	answer(room_e[i], i & 1, &room_h[i], i);
}

static void test_room(void)
{
	s64 u = unused();
	int i, rc;

	begin();
	if (!pf_init(4))
		goto out;
	for (i = 0; i < 10; i++)
		key_handle(&room_h[i], key_of(i & 1, 1, i));
	/* 0..3 in flight: a fifth is refused, -EEXIST first */
	for (i = 0; i < 4; i++)
		if (!room_reserve(i))
			goto out;
	rc = (int)room_err(4);
	CHECK(rc == -ENOSPC, "a fifth entry of 4: %d", rc);
	CHECK(!room_here(4), "a page refused is there");
	CHECK(room_err(0) == -EEXIST, "-ENOSPC before -EEXIST");
	CHECK(unused() == u, "a reserve refused dropped a page");
	/* 1, then 0 arrive: 1 is dropped first, then 0 */
	room_answer(1);
	room_answer(0);
	if (!room_reserve(4))
		goto out;
	CHECK(unused() == u + 1 && !room_here(1) && room_here(0) &&
	      room_here(4), "the first page to arrive was not the one dropped");
	take_none(1, 1, &room_h[1], "a page dropped");
	if (!room_reserve(5))
		goto out;
	CHECK(unused() == u + 2 && !room_here(0),
	      "the second page to arrive was not dropped");
	/* 2, 3, 4, 5 in flight */
	CHECK(room_err(6) == -ENOSPC, "every entry in flight: not -ENOSPC");
	CHECK(unused() == u + 2, "-ENOSPC dropped a page");
	/* 2 and 3 arrive, 4 is a miss: an entry free, nothing dropped */
	room_answer(2);
	room_answer(3);
	miss(room_e[4]);
	if (!room_reserve(6))
		goto out;
	CHECK(unused() == u + 2 && room_here(2) && room_here(3),
	      "a page dropped with an entry free");
	/* 2 forgotten leaves the queue; its entry goes to 7 */
	rf_cc_pf_forget(0, &room_h[2]);
	CHECK(unused() == u + 3, "a page forgotten not counted");
	if (!room_reserve(7))
		goto out;
	CHECK(unused() == u + 3 && room_here(3),
	      "a page dropped with an entry free");
	/* 3, the only page here, goes for 8 */
	if (!room_reserve(8))
		goto out;
	CHECK(unused() == u + 4 && !room_here(3),
	      "the only page here was not dropped");
	CHECK(room_err(9) == -ENOSPC, "every entry in flight: not -ENOSPC");
	/* a second reserve of a page here: -EEXIST, nothing dropped */
	room_answer(5);
	CHECK(room_err(5) == -EEXIST && room_here(5) && unused() == u + 4,
	      "a second reserve of a page here dropped something");
	rc = take(1, 1, &room_h[5], dst);
	CHECK(!rc, "take of the page here: %d", rc);
	if (!rc)
		page_is(dst, 1, &room_h[5], 5, "room");
	/* a page taken leaves the queue: 6, 7, 8 arrive, 7 is taken */
	room_answer(6);
	room_answer(7);
	room_answer(8);
	rc = take(1, 1, &room_h[7], dst);
	CHECK(!rc, "take of 7: %d", rc);
	if (!room_reserve(9) || !room_reserve(1))
		goto out;
	CHECK(unused() == u + 4 && room_here(6) && room_here(8),
	      "pages dropped with entries free");
	if (!room_reserve(2))
		goto out;
	CHECK(unused() == u + 5 && !room_here(6) && room_here(8),
	      "the oldest page here was not the one dropped");
	while (nr_pending)
		miss(pending[nr_pending - 1]);
	rf_cc_pf_forget_pool(0);
	all_free(4);
out:
	pf_exit();
	end("room: -ENOSPC, the first page in dropped");
}

/* 256 entries of 256 pages, answered and taken in random orders. */
static void test_many(void)
{
	enum { N = 256 };
	static struct tmem_handle h[N];
	static struct rf_pf_entry *e[N];
	size_t order[N], i, j, t;
	int rc;

	begin();
	if (!pf_init(N))
		goto out;
	for (i = 0; i < N; i++) {
		handle(&h[i], i % 4, (i % 7) << 40 | rnd(3),
		       i % 5, (u32)(i / 7 * 3 + rnd(3) * 100000));
		e[i] = reserve_ok(i % 4, 1, &h[i]);
		if (!e[i])
			goto out;
		order[i] = i;
	}
	for (i = N; i > 1; i--) {
		j = rnd((u32)i);
		t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	for (i = 0; i < N; i++)
		answer(e[order[i]], order[i] % 4, &h[order[i]], (u32)order[i]);
	for (i = 0; i < N; i++)
		CHECK(rf_cc_pf_has(i % 4, &h[i]), "page %zu is not there", i);
	for (i = N; i-- > 0;) {
		rc = take(i % 4, 1, &h[i], dst);
		CHECK(!rc, "take of page %zu: %d", i, rc);
		if (!rc && !page_is(dst, i % 4, &h[i], (u32)i, "256 pages"))
			break;
	}
	all_free(N);
out:
	pf_exit();
	end("many keys: 256 entries");
}

/* ---- the model ---- */

enum { M_FREE, M_WAIT, M_READY };

struct m_entry {
	struct rf_pf_entry *e;
	int key;
	unsigned int gen;
	u32 ver;		/* the page's version when its GET went */
	int state;
	bool dead;
	unsigned long seq;	/* when it became ready */
};

struct model {
	unsigned int n;
	struct m_entry ent[MODEL_MAX];
	int want[NR_KEYS];	/* the key's wanted entry, or -1 */
	u32 ver[NR_KEYS];	/* the page's last version put */
	unsigned int gen[NR_POOLS];
	s64 unused, unused0;
	unsigned long seq, op;
};

/* What the random operations came to, to show they covered it all. */
static struct {
	unsigned long ops, hits, stale, noent, exist, nospc, room_drops;
	unsigned long dead_pages, misses, forgets, objects, pools, gens;
} ms;

static struct model m;

/* The page is no longer wanted. */
static void m_drop(int i)
{
	struct m_entry *x = &m.ent[i];

	m.want[x->key] = -1;
	if (x->state == M_WAIT) {
		x->dead = true;
		return;
	}
	x->state = M_FREE;
	m.unused++;
}

/* What a reserve must do: a new entry's slot, or -EEXIST, -ENOSPC. */
static int m_reserve(int key, unsigned int gen)
{
	int i, slot = -1, oldest = -1;

	if (m.want[key] >= 0)
		return -EEXIST;
	for (i = 0; i < (int)m.n; i++) {
		if (m.ent[i].state == M_FREE && slot < 0)
			slot = i;
		if (m.ent[i].state == M_READY &&
		    (oldest < 0 || m.ent[i].seq < m.ent[oldest].seq))
			oldest = i;
	}
	if (slot < 0 && oldest >= 0) {
		m_drop(oldest);
		ms.room_drops++;
		slot = oldest;
	}
	if (slot < 0)
		return -ENOSPC;
	m.ent[slot] = (struct m_entry){ .key = key, .gen = gen,
					.ver = m.ver[key], .state = M_WAIT };
	m.want[key] = slot;
	return slot;
}

/* A random key; with @wanted, mostly one that has an entry. */
static int m_pick_key(bool wanted)
{
	int live[MODEL_MAX], n = 0, i;

	if (wanted && rnd(100) < 60) {
		for (i = 0; i < (int)m.n; i++)
			if (m.ent[i].state != M_FREE && !m.ent[i].dead)
				live[n++] = i;
		if (n)
			return m.ent[live[rnd(n)]].key;
	}
	return (int)rnd(NR_KEYS);
}

static bool m_answer(int i, bool data)
{
	struct m_entry *x = &m.ent[i];
	struct tmem_handle h;

	key_handle(&h, x->key);
	if (data)
		answer(x->e, key_pool(x->key), &h, x->ver);
	else
		miss(x->e);
	if (x->dead) {
		x->state = M_FREE;
		m.unused += data;
		ms.dead_pages += data;
	} else if (!data) {
		x->state = M_FREE;
		m.want[x->key] = -1;
		ms.misses++;
	} else {
		x->state = M_READY;
		x->seq = ++m.seq;
	}
	return true;
}

static bool op_reserve(bool answer_now)
{
	int key = m_pick_key(false), pool = key_pool(key), slot, i;
	/* now and then a get that read the generation before a bump */
	unsigned int gen = m.gen[pool] - (rnd(10) == 0);
	struct rf_pf_entry *e;
	struct tmem_handle h;

	key_handle(&h, key);
	slot = m_reserve(key, gen);
	e = rf_cc_pf_reserve(pool, gen, &h);
	if (slot < 0) {
		CHECK(e == ERR_PTR(slot),
		      "op %lu: reserve of key %d: %ld, the model says %d",
		      m.op, key, result(e), slot);
		ms.exist += slot == -EEXIST;
		ms.nospc += slot == -ENOSPC;
		if (!IS_ERR_OR_NULL(e))
			pending_add(e);
		return e == ERR_PTR(slot);
	}
	CHECK(!IS_ERR_OR_NULL(e), "op %lu: reserve of key %d: %ld, not an entry",
	      m.op, key, result(e));
	if (IS_ERR_OR_NULL(e))
		return false;
	pending_add(e);
	for (i = 0; i < (int)m.n; i++)
		if (i != slot && m.ent[i].state != M_FREE && m.ent[i].e == e) {
			CHECK(0, "op %lu: key %d got the entry of key %d (%s%s)",
			      m.op, key, m.ent[i].key,
			      m.ent[i].state == M_WAIT ? "in flight" : "here",
			      m.ent[i].dead ? ", dead" : "");
			return false;
		}
	m.ent[slot].e = e;
	return answer_now ? m_answer(slot, true) : true;
}

/* An answer to a GET in flight, dead or not: mostly a page. */
static bool op_answer(void)
{
	int fly[MODEL_MAX], n = 0, i;

	for (i = 0; i < (int)m.n; i++)
		if (m.ent[i].state == M_WAIT)
			fly[n++] = i;
	if (!n)
		return op_reserve(false);
	return m_answer(fly[rnd(n)], rnd(100) < 85);
}

static bool m_take(int key)
{
	int pool = key_pool(key), i = m.want[key], expect = -ENOENT, rc;
	struct tmem_handle h;

	/* a take waits for the answer in flight: give it first */
	if (i >= 0 && m.ent[i].state == M_WAIT)
		m_answer(i, rnd(100) < 85);
	i = m.want[key];
	if (i >= 0) {
		expect = m.ent[i].gen == m.gen[pool] ? 0 : -ESTALE;
		/* the model itself: a page here is the last one put */
		CHECK(m.ent[i].ver == m.ver[key], "model: key %d version %u, last put %u",
		      key, m.ent[i].ver, m.ver[key]);
		m.ent[i].state = M_FREE;
		m.want[key] = -1;
	}
	key_handle(&h, key);
	/* not there: a take of an entry in flight would wait for ever */
	if (i < 0 && rf_cc_pf_has(pool, &h)) {
		CHECK(0, "op %lu: key %d is there, the model says not", m.op,
		      key);
		return false;
	}
	rc = take(pool, m.gen[pool], &h, dst);
	CHECK(rc == expect, "op %lu: take of key %d: %d, the model says %d",
	      m.op, key, rc, expect);
	ms.hits += !rc;
	ms.stale += rc == -ESTALE;
	ms.noent += rc == -ENOENT;
	/* never a page older than the last put, whatever the model says */
	if (!rc && !page_is(dst, pool, &h, m.ver[key], "take"))
		return false;
	return rc == expect;
}

/* A put or a flush of a page: a new version, the old one forgotten. */
static bool op_forget(void)
{
	int key = m_pick_key(true);
	struct tmem_handle h;

	m.ver[key]++;
	if (m.want[key] >= 0)
		m_drop(m.want[key]);
	key_handle(&h, key);
	rf_cc_pf_forget(key_pool(key), &h);
	ms.forgets++;
	return true;
}

static void m_forget_key(int key)
{
	m.ver[key]++;
	if (m.want[key] >= 0)
		m_drop(m.want[key]);
}

static bool op_forget_object(void)
{
	int pool = (int)rnd(NR_POOLS), obj = (int)rnd(NR_OBJS);
	struct tmem_handle h;
	u32 i;

	for (i = 0; i < NR_INDEXES; i++)
		m_forget_key(key_of(pool, obj, i));
	/* any index names the object */
	key_handle(&h, key_of(pool, obj, 0));
	h.index = rnd(1u << 20);
	rf_cc_pf_forget_object(pool, &h);
	ms.objects++;
	return true;
}

static void m_forget_pool(int pool)
{
	int obj;
	u32 i;

	for (obj = 0; obj < NR_OBJS; obj++)
		for (i = 0; i < NR_INDEXES; i++)
			m_forget_key(key_of(pool, obj, i));
	rf_cc_pf_forget_pool(pool);
	ms.pools++;
}

/* The pool goes stale: a new generation, mostly forgetting the pool. */
static bool op_gen(void)
{
	int pool = (int)rnd(NR_POOLS);

	m.gen[pool]++;
	ms.gens++;
	if (rnd(4))
		m_forget_pool(pool);
	return true;
}

static bool op_has(void)
{
	int key = m_pick_key(true);
	struct tmem_handle h;
	bool has;

	key_handle(&h, key);
	has = rf_cc_pf_has(key_pool(key), &h);
	CHECK(has == (m.want[key] >= 0), "op %lu: key %d is%s there", m.op,
	      key, has ? "" : " not");
	return has == (m.want[key] >= 0);
}

static bool model_op(void)
{
	u32 r = rnd(100);

	if (r < 20)
		return op_reserve(false);
	if (r < 35)
		return op_reserve(true);
	if (r < 55)
		return op_answer();
	if (r < 75)
		return m_take(m_pick_key(true));
	if (r < 88)
		return op_forget();
	if (r < 94)
		return op_has();
	if (r < 97)
		return op_forget_object();
	if (r < 98) {
		m_forget_pool((int)rnd(NR_POOLS));
		return true;
	}
	return op_gen();
}

/* Every key's presence and the pages held, against the model. */
static bool model_check(void)
{
	unsigned long failed = test_failures;
	struct kshim_counts kc;
	struct tmem_handle h;
	int key;

	for (key = 0; key < NR_KEYS; key++) {
		key_handle(&h, key);
		CHECK(rf_cc_pf_has(key_pool(key), &h) == (m.want[key] >= 0),
		      "op %lu: key %d is%s there", m.op, key,
		      m.want[key] >= 0 ? " not" : "");
	}
	kshim_get_counts(&kc);
	CHECK(kc.pages_held == pf_base.pages_held + m.n,
	      "op %lu: %ld pages held, expected %ld", m.op, kc.pages_held,
	      pf_base.pages_held + m.n);
	return test_failures == failed;
}

/* Answers everything in flight, takes every page here. */
static bool model_drain(void)
{
	int i;

	for (i = 0; i < (int)m.n; i++)
		if (m.ent[i].state == M_WAIT)
			m_answer(i, rnd(2));
	for (i = 0; i < (int)m.n; i++)
		if (m.ent[i].state == M_READY && !m_take(m.ent[i].key))
			return false;
	CHECK(unused() - m.unused0 == m.unused,
	      "drain: %lld pages counted unused, the model says %lld",
	      (long long)(unused() - m.unused0), (long long)m.unused);
	return all_free(m.n);
}

static bool model_round(unsigned int n, unsigned long ops)
{
	unsigned long failed = test_failures;
	int i;

	memset(&m, 0, sizeof(m));
	m.n = n;
	for (i = 0; i < NR_KEYS; i++) {
		m.want[i] = -1;
		m.ver[i] = 1;
	}
	m.gen[0] = (unsigned int)rnd64();
	m.gen[1] = (unsigned int)rnd64();
	m.unused0 = unused();
	if (!pf_init(n))
		return false;
	for (m.op = 1; m.op <= ops; m.op++) {
		bool ok = model_op();

		clean_after("a model operation");
		CHECK(unused() - m.unused0 == m.unused,
		      "op %lu: %lld pages counted unused, the model says %lld",
		      m.op, (long long)(unused() - m.unused0),
		      (long long)m.unused);
		if (!ok || test_failures != failed ||
		    (m.op % 4096 == 0 && !model_check()))
			break;
	}
	ms.ops += m.op - 1;
	if (test_failures == failed && model_check())
		model_drain();
	if (test_failures != failed)
		fprintf(stderr, "model: the round of %u entries failed at op %lu (seed %u)\n",
			n, m.op, test_seed);
	pf_exit();
	return test_failures == failed;
}

static void test_model(void)
{
	unsigned long done = 0, ops;
	unsigned int rounds = 0;
	double t;

	begin();
	memset(&ms, 0, sizeof(ms));
	t = now();
	while (done < model_ops) {
		ops = model_ops - done < 20000 ? model_ops - done : 20000;
		rounds++;
		if (!model_round(8 + rnd(MODEL_MAX - 8 + 1), ops))
			break;
		done += ops;
	}
	t = now() - t;
	printf("model: %lu ops in %u rounds, %.0f ops/s: %lu hits, %lu stale, %lu not there\n",
	       ms.ops, rounds, ms.ops / t, ms.hits, ms.stale, ms.noent);
	printf("model: %lu -EEXIST, %lu -ENOSPC, %lu dropped for room, %lu dead pages, %lu misses\n",
	       ms.exist, ms.nospc, ms.room_drops, ms.dead_pages, ms.misses);
	printf("model: %lu forgets, %lu objects, %lu pools forgotten, %lu generations\n",
	       ms.forgets, ms.objects, ms.pools, ms.gens);
	if (done >= model_ops && model_ops >= 20000)
		CHECK(ms.hits && ms.stale && ms.noent && ms.exist && ms.nospc &&
		      ms.room_drops && ms.dead_pages && ms.misses,
		      "the random operations did not cover every case");
	end("model: random operations");
}

/* ---- threads ---- */

struct taker {
	pthread_t thread;
	int pool;
	unsigned int gen;
	struct tmem_handle h;
	struct page *to;
	int rc;
	bool clean;		/* no locks or maps held after */
	int done;
};

static void *taker_run(void *arg)
{
	struct taker *t = arg;

	t->rc = rf_cc_pf_take(t->pool, t->gen, &t->h, t->to,
			      MAX_SCHEDULE_TIMEOUT);
	t->clean = !kshim_locks_held() && !kshim_maps_held();
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

enum { W_HIT, W_MISS, W_STALE, W_FORGOTTEN };

static const char *const waited_name[] = {
	"a page", "a miss", "a stale page", "a page forgotten and asked again"
};

/* A take that waits for the answer the main thread gives later. */
static bool waited_take(struct page *to, int how)
{
	struct kshim_counts kc0, kc;
	struct rf_pf_entry *e, *e2;
	struct taker t = { .pool = 1, .gen = how == W_STALE ? 8 : 7,
			   .to = to };
	s64 u = unused();
	int i, rc;

	key_handle(&t.h, key_of(1, 2, 15));
	e = reserve_ok(1, 7, &t.h);
	if (!e)
		return false;
	memset(page_address(to), POISON, PAGE_SIZE);
	kshim_get_counts(&kc0);
	if (pthread_create(&t.thread, NULL, taker_run, &t)) {
		CHECK(0, "pthread_create failed");
		return false;
	}
	/* until the taker has found the entry in flight, then a while */
	for (i = 0; i < 10000; i++) {
		kshim_get_counts(&kc);
		if (kc.waits > kc0.waits ||
		    __atomic_load_n(&t.done, __ATOMIC_ACQUIRE))
			break;
		usleep(1000);
	}
	usleep(5000);
	CHECK(!__atomic_load_n(&t.done, __ATOMIC_ACQUIRE),
	      "%s: the take did not wait for the answer", waited_name[how]);
	CHECK(kc.waits > kc0.waits, "%s: the take never waited",
	      waited_name[how]);
	switch (how) {
	case W_HIT:
	case W_STALE:
		answer(e, 1, &t.h, 3);
		break;
	case W_MISS:
		miss(e);
		break;
	case W_FORGOTTEN:
		rf_cc_pf_forget(1, &t.h);
		e2 = reserve_ok(1, 7, &t.h);
		answer(e, 1, &t.h, 3);
		usleep(2000);
		if (e2)
			answer(e2, 1, &t.h, 4);
		break;
	}
	pthread_join(t.thread, NULL);
	CHECK(t.clean, "%s: locks or maps held after the take",
	      waited_name[how]);
	rc = t.rc;
	switch (how) {
	case W_HIT:
		CHECK(!rc, "%s: take %d", waited_name[how], rc);
		if (!rc)
			page_is(to, 1, &t.h, 3, waited_name[how]);
		break;
	case W_MISS:
	case W_STALE:
		CHECK(rc == (how == W_MISS ? -ENOENT : -ESTALE) &&
		      page_untouched(to), "%s: take %d", waited_name[how], rc);
		break;
	case W_FORGOTTEN:
		/* the new page, or none if it came after the take looked */
		CHECK(rc == -ENOENT || !rc, "%s: take %d", waited_name[how], rc);
		if (!rc)
			page_is(to, 1, &t.h, 4, waited_name[how]);
		else
			CHECK(page_untouched(to), "%s: take %d wrote the page",
			      waited_name[how], rc);
		CHECK(unused() - u == 1, "%s: %lld counted unused, not 1",
		      waited_name[how], (long long)(unused() - u));
		rf_cc_pf_forget(1, &t.h);
		break;
	}
	return true;
}

/* A GET in flight, for the answering thread. */
struct job {
	struct rf_pf_entry *e;
	int pool;
	struct tmem_handle h;
	u32 ver;
	bool hit;
};

#define JOBS	64

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct job q[JOBS];
	unsigned int head, tail;
	int workers;		/* still running */
	unsigned long answered;
} ans = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static void job_push(const struct job *j)
{
	pthread_mutex_lock(&ans.lock);
	ans.q[ans.tail++ % JOBS] = *j;
	pthread_cond_signal(&ans.cond);
	pthread_mutex_unlock(&ans.lock);
}

/* Answers the GETs in order, a few microseconds each, until all is done. */
static void *answerer_run(void *arg)
{
	struct job j;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&ans.lock);
		while (ans.head == ans.tail && ans.workers)
			pthread_cond_wait(&ans.cond, &ans.lock);
		if (ans.head == ans.tail) {
			pthread_mutex_unlock(&ans.lock);
			return NULL;
		}
		j = ans.q[ans.head++ % JOBS];
		ans.answered++;
		pthread_mutex_unlock(&ans.lock);
		usleep(j.ver % 8 * 5);
		if (j.hit)
			pattern(page_address(rf_cc_pf_page(j.e)), j.pool,
				&j.h, j.ver);
		rf_cc_pf_fill(j.e, j.hit);
	}
}

enum { S_NONE, S_HIT, S_MISS };

struct worker {
	pthread_t thread;
	int pool, obj;
	uint64_t rng;
	unsigned long ops, takes, hits, nospc;
	struct page *to;
	u32 ver[NR_INDEXES];
	int sent[NR_INDEXES];	/* S_*: what the last GET of the page was */
	unsigned long failures;
	char first[200];
};

static u32 worker_rnd(struct worker *w, u32 n)
{
	return (u32)(rnd64_from(&w->rng) % n);
}

static void worker_fail(struct worker *w, const char *what, u32 index, int rc)
{
	if (!w->failures++)
		snprintf(w->first, sizeof(w->first), "%s (index %u, %d)", what,
			 index, rc);
}

static void worker_reserve(struct worker *w, u32 i, struct tmem_handle *h)
{
	struct rf_pf_entry *e = rf_cc_pf_reserve(w->pool, 1, h);
	struct job j = { .e = e, .pool = w->pool, .h = *h, .ver = w->ver[i] };

	if (e == ERR_PTR(-EEXIST)) {
		/* a page never asked for or forgotten has no entry */
		if (w->sent[i] == S_NONE)
			worker_fail(w, "-EEXIST for a page not wanted", i, 0);
		return;
	}
	if (e == ERR_PTR(-ENOSPC)) {
		w->nospc++;
		return;
	}
	if (IS_ERR_OR_NULL(e)) {
		worker_fail(w, "reserve", i, (int)result(e));
		return;
	}
	j.hit = worker_rnd(w, 100) < 85;
	w->sent[i] = j.hit ? S_HIT : S_MISS;
	job_push(&j);
}

static void worker_take(struct worker *w, u32 i, struct tmem_handle *h)
{
	int rc = rf_cc_pf_take(w->pool, 1, h, w->to, MAX_SCHEDULE_TIMEOUT);

	w->takes++;
	/* a page may have been dropped for room; never one not put last */
	if (!rc && w->sent[i] != S_HIT)
		worker_fail(w, "a page where none was asked for", i, rc);
	else if (!rc && !page_matches(w->to, w->pool, h, w->ver[i]))
		worker_fail(w, "not the last version put", i, rc);
	else if (rc && rc != -ENOENT)
		worker_fail(w, "take", i, rc);
	w->hits += !rc;
	w->sent[i] = S_NONE;
}

static void worker_handle(struct worker *w, struct tmem_handle *h, u32 i)
{
	handle(h, w->pool, obj_oid[w->obj][0], obj_oid[w->obj][1], i);
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct tmem_handle h;
	unsigned long op;
	u32 i, k, r;

	for (op = 0; op < w->ops; op++) {
		i = worker_rnd(w, NR_INDEXES);
		r = worker_rnd(w, 100);
		if (r < 65) {
			/* a get: the page and the next two, then the page */
			for (k = i; k < i + 3 && k < NR_INDEXES; k++) {
				worker_handle(w, &h, k);
				worker_reserve(w, k, &h);
			}
			worker_handle(w, &h, i);
			worker_take(w, i, &h);
			continue;
		}
		worker_handle(w, &h, i);
		if (r < 70) {
			worker_take(w, i, &h);
		} else if (r < 95) {
			w->ver[i]++;
			w->sent[i] = S_NONE;
			rf_cc_pf_forget(w->pool, &h);
		} else {
			for (i = 0; i < NR_INDEXES; i++) {
				w->ver[i]++;
				w->sent[i] = S_NONE;
			}
			rf_cc_pf_forget_object(w->pool, &h);
		}
		if (kshim_locks_held() || kshim_maps_held())
			worker_fail(w, "locks or maps held after a call", i, 0);
	}
	pthread_mutex_lock(&ans.lock);
	ans.workers--;
	pthread_cond_signal(&ans.cond);
	pthread_mutex_unlock(&ans.lock);
	return NULL;
}

/*
 * Four workers, each on its own object, share 12 entries; their GETs are
 * answered by another thread, their takes wait for those answers.
 */
static void stress(void)
{
	enum { NW = 4, N = 12 };
	struct worker w[NW];
	unsigned long takes = 0, hits = 0, nospc = 0;
	pthread_t answerer;
	int i, started = 0;
	double t;

	memset(w, 0, sizeof(w));
	if (!pf_init(N))
		return;
	ans.head = 0;
	ans.tail = 0;
	ans.workers = NW;
	ans.answered = 0;
	for (i = 0; i < NW; i++) {
		w[i].pool = i % 2;
		w[i].obj = i / 2;
		w[i].rng = rnd64();
		w[i].ops = model_ops / 40 + 1;
		w[i].to = alloc_page(GFP_KERNEL);
		if (!w[i].to) {
			CHECK(0, "out of memory");
			goto out;
		}
	}
	t = now();
	if (pthread_create(&answerer, NULL, answerer_run, NULL)) {
		CHECK(0, "pthread_create failed");
		goto out;
	}
	for (i = 0; i < NW; i++) {
		if (pthread_create(&w[i].thread, NULL, worker_run, &w[i])) {
			CHECK(0, "pthread_create failed");
			break;
		}
		started++;
	}
	pthread_mutex_lock(&ans.lock);
	ans.workers -= NW - started;
	pthread_cond_signal(&ans.cond);
	pthread_mutex_unlock(&ans.lock);
	for (i = 0; i < started; i++) {
		pthread_join(w[i].thread, NULL);
		CHECK(!w[i].failures, "worker %d: %lu failures, the first: %s",
		      i, w[i].failures, w[i].first);
		takes += w[i].takes;
		hits += w[i].hits;
		nospc += w[i].nospc;
	}
	pthread_join(answerer, NULL);
	t = now() - t;
	printf("threads: %d workers x %lu ops, %lu GETs answered, %lu takes (%lu hits), %lu -ENOSPC, %.2f s\n",
	       started, w[0].ops, ans.answered, takes, hits, nospc, t);
	if (w[0].ops >= 1000)
		CHECK(hits && nospc,
		      "the workers never got a page or never ran out of entries");
	rf_cc_pf_forget_pool(0);
	rf_cc_pf_forget_pool(1);
	all_free(N);
out:
	for (i = 0; i < NW; i++)
		if (w[i].to)
			__free_page(w[i].to);
	pf_exit();
}

static void test_threads(void)
{
	struct page *to;
	int how;

	begin();
	to = alloc_page(GFP_KERNEL);
	if (!to) {
		CHECK(0, "out of memory");
		goto out;
	}
	if (!pf_init(4))
		goto out;
	for (how = W_HIT; how <= W_FORGOTTEN; how++)
		if (!waited_take(to, how))
			break;
	all_free(4);
	pf_exit();
	stress();
out:
	if (to)
		__free_page(to);
	end("threads: takes waiting for answers");
}

/* ---- init ---- */

/*
 * A page a get asked for (it will wait for it) is never dropped for room;
 * pages whose handles differ only in the server's pool id or oid[2] are
 * different pages; a forget wakes a get waiting for the page at once;
 * rf_cc_pf_exit() with pages still here leaves nothing behind.
 */
static void test_asked(void)
{
	struct taker t = { .pool = 0, .gen = 1 };
	struct rf_pf_entry *a, *b, *c;
	struct tmem_handle ha, hb, hc, h2;
	struct kshim_counts kc;
	s64 u;
	int i, rc;

	begin();
	handle(&ha, 0, 0xa5, 1, 0);
	handle(&hb, 0, 0xa5, 1, 1);
	handle(&hc, 0, 0xa5, 1, 2);
	if (!pf_init(2))
		goto out;
	CHECK(!rf_cc_pf_ask(0, &ha), "asked for a page that is not there");
	a = reserve_ok(0, 1, &ha);
	CHECK(rf_cc_pf_ask(0, &ha), "asked for a page in flight: not there");
	b = reserve_ok(0, 1, &hb);
	if (a)
		answer(a, 0, &ha, 1);
	if (b)
		answer(b, 0, &hb, 1);
	u = unused();
	c = reserve_ok(0, 1, &hc);
	CHECK(rf_cc_pf_has(0, &ha) && !rf_cc_pf_has(0, &hb) &&
	      unused() - u == 1,
	      "room: the page asked for was dropped, or not the other one");
	rc = take(0, 1, &ha, dst);
	CHECK(!rc, "the page asked for: take %d", rc);
	if (!rc)
		page_is(dst, 0, &ha, 1, "the page asked for");
	rf_cc_pf_ask(0, &hc);
	if (c)
		answer(c, 0, &hc, 2);
	b = reserve_ok(0, 1, &hb);
	rf_cc_pf_ask(0, &hb);
	if (b)
		answer(b, 0, &hb, 2);
	CHECK(reserve_err(0, 1, &ha) == -ENOSPC,
	      "room: a page asked for was dropped (not -ENOSPC)");
	take(0, 1, &hb, dst);
	take(0, 1, &hc, dst);

	/* the server's pool id and oid[2] are part of the page's name */
	h2 = ha;
	h2.pool_id++;
	a = reserve_ok(0, 1, &ha);
	b = reserve_ok(0, 1, &h2);
	if (a && b) {
		answer(a, 0, &ha, 5);
		answer(b, 0, &h2, 6);
		rf_cc_pf_forget_object(0, &h2);
		rc = take(0, 1, &ha, dst);
		CHECK(!rc && page_is(dst, 0, &ha, 5, "another pool id"),
		      "a page of another server pool id took its place (%d)",
		      rc);
	}
	h2 = ha;
	h2.oid[2] = 9;
	a = reserve_ok(0, 1, &ha);
	b = reserve_ok(0, 1, &h2);
	if (a && b) {
		answer(a, 0, &ha, 7);
		answer(b, 0, &h2, 8);
		rc = take(0, 1, &h2, dst);
		CHECK(!rc && page_is(dst, 0, &h2, 8, "another oid[2]"),
		      "a page of another oid[2] took its place (%d)", rc);
		rf_cc_pf_forget(0, &ha);
	}

	/* a forget wakes the get waiting for the page */
	t.h = hc;
	t.to = alloc_page(GFP_KERNEL);
	a = reserve_ok(0, 1, &hc);
	if (a && t.to && !pthread_create(&t.thread, NULL, taker_run, &t)) {
		usleep(20000);
		rf_cc_pf_forget(0, &hc);
		for (i = 0; i < 1000; i++) {
			if (__atomic_load_n(&t.done, __ATOMIC_ACQUIRE))
				break;
			usleep(1000);
		}
		CHECK(__atomic_load_n(&t.done, __ATOMIC_ACQUIRE),
		      "a forget did not wake the get waiting for the page");
		u = unused();
		answer(a, 0, &hc, 9);	/* the dead one's answer */
		pthread_join(t.thread, NULL);
		CHECK(t.rc == -ENOENT && unused() - u == 1,
		      "the woken get: take %d, %lld unused", t.rc,
		      (long long)(unused() - u));
	}
	if (t.to)
		__free_page(t.to);
	pf_exit();

	/* exit with pages here, then init again: nothing left behind */
	if (!pf_init(4))
		goto out;
	a = reserve_ok(0, 1, &ha);
	if (a)
		answer(a, 0, &ha, 1);
	b = reserve_ok(0, 1, &hb);
	if (b)
		miss(b);
	rf_cc_pf_exit();
	kshim_get_counts(&kc);
	CHECK(kc.pages_held == pf_base.pages_held,
	      "exit with a page here: %ld pages held",
	      kc.pages_held - pf_base.pages_held);
	CHECK(!rf_cc_pf_has(0, &ha), "a page is there after exit");
	if (pf_init(4)) {
		a = reserve_ok(0, 1, &ha);
		CHECK(a != NULL, "no entry after exit and init again");
		pf_exit();
	}
out:
	end("asked pages stay, handles in full, forget wakes, exit");
}

static void test_init(void)
{
	static const long skips[] = { 0, 1, 4, 7 };
	struct kshim_counts kc0, kc;
	struct rf_pf_entry *e;
	struct tmem_handle h;
	unsigned int i;
	int rc;

	begin();
	/* no entries: fetching ahead off */
	if (!pf_init(0))
		goto out;
	key_handle(&h, key_of(0, 0, 0));
	e = rf_cc_pf_reserve(0, 1, &h);
	CHECK(e == ERR_PTR(-ENOSPC), "reserve with no entries: %ld", result(e));
	CHECK(!rf_cc_pf_has(0, &h), "a page with no entries");
	take_none(0, 1, &h, "no entries");
	rf_cc_pf_forget(0, &h);
	rf_cc_pf_forget_object(0, &h);
	rf_cc_pf_forget_pool(0);
	pf_exit();
	rf_cc_pf_exit();

	/* the array's allocation failing */
	kshim_get_counts(&kc0);
	kshim_fail_kallocs(1);
	rc = rf_cc_pf_init(8);
	kshim_fail_kallocs(0);
	kshim_get_counts(&kc);
	CHECK(rc == -ENOMEM && kc.kallocs_failed == kc0.kallocs_failed + 1,
	      "init with kcalloc failing: %d", rc);
	CHECK(kc.pages_held == kc0.pages_held &&
	      kc.objects_held == kc0.objects_held,
	      "init with kcalloc failing holds %ld pages, %ld allocations",
	      kc.pages_held - kc0.pages_held,
	      kc.objects_held - kc0.objects_held);
	/* page number skips[i] failing: nothing kept */
	for (i = 0; i < ARRAY_SIZE(skips); i++) {
		kshim_get_counts(&kc0);
		kshim_fail_allocs_after(skips[i], 1);
		rc = rf_cc_pf_init(8);
		kshim_fail_allocs(0);
		kshim_get_counts(&kc);
		CHECK(rc == -ENOMEM && kc.allocs_failed == kc0.allocs_failed + 1,
		      "init with page %ld failing: %d", skips[i], rc);
		CHECK(kc.pages_held == kc0.pages_held &&
		      kc.objects_held == kc0.objects_held,
		      "init with page %ld failing holds %ld pages, %ld allocations",
		      skips[i], kc.pages_held - kc0.pages_held,
		      kc.objects_held - kc0.objects_held);
		if (!rc)
			pf_exit();
	}
	/* and then it works */
	if (!pf_init(8))
		goto out;
	if (!put_here(key_of(1, 0, 0), 10 + key_of(1, 0, 0)))
		goto out;
	key_handle(&h, key_of(1, 0, 0));
	rc = take(1, 1, &h, dst);
	CHECK(!rc, "take after failed inits: %d", rc);
	if (!rc)
		page_is(dst, 1, &h, 10 + key_of(1, 0, 0), "after failed inits");
	all_free(8);
out:
	pf_exit();
	end("init: no entries, allocations failing");
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: prefetch_test [-s SEED] [-n OPS] [-h]\n"
		"  -s SEED  replay a run (the seed is printed first)\n"
		"  -n OPS   random operations against the model (default\n"
		"           300000; the thread workers do OPS/40 each)\n"
		"Exits 0 if every test passed, 1 if one failed, 2 on bad usage.\n");
}

int main(int argc, char **argv)
{
	double t;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_usage(stdout);
			return 0;
		}
		if (i + 1 < argc && !strcmp(argv[i], "-n")) {
			model_ops = strtoul(argv[++i], NULL, 0);
		} else if (i + 1 < argc && !strcmp(argv[i], "-s")) {
			i++;
		} else {
			fprintf(stderr, "prefetch_test: bad argument '%s'\n",
				argv[i]);
			print_usage(stderr);
			return 2;
		}
	}
	if (!model_ops) {
		fprintf(stderr, "prefetch_test: -n must be > 0\n");
		return 2;
	}
	test_seed_from_args(argc, argv, "prefetch_test");
	signal(SIGALRM, on_alarm);
	dst = alloc_page(GFP_KERNEL);
	if (!dst) {
		fprintf(stderr, "prefetch_test: out of memory\n");
		return 1;
	}

	t = now();
	test_basics();
	test_misses();
	test_generations();
	test_forget();
	test_forget_object_pool();
	test_room();
	test_many();
	test_model();
	test_threads();
	test_asked();
	test_init();

	__free_page(dst);
	printf("prefetch_test: %lu checks, %lu failed, %.1f s\n", test_checks,
	       test_failures, now() - t);
	return test_failures ? 1 : 0;
}
