// SPDX-License-Identifier: GPL-2.0
/*
 * trend_test - frontend/trend.c in userspace, under ASan and UBSan: the
 * stride Leap's majority vote finds in sequences of faults (in order,
 * backwards, strided, with noise, random, changing direction), and the
 * depth that follows the hits (on a miss hits + 1 rounded up to a power
 * of two, never less than half the last; doubled when used up; capped).
 */
#include <stdbool.h>
#include <string.h>

#include "test.h"
#include "trend.h"

static void faults(struct rf_trend *t, unsigned long start, long step, int n)
{
	int i;

	for (i = 0; i < n; i++)
		rf_trend_fault(t, start + i * step);
}

static void want_stride(struct rf_trend *t, bool found, long stride,
			const char *what)
{
	long got = 0;
	bool ok = rf_trend_stride(t, &got);

	CHECK(ok == found && (!found || got == stride),
	      "%s: found %d stride %ld, want %d %ld", what, ok, got, found,
	      stride);
}

static void test_strides(void)
{
	struct rf_trend t;
	int i, noisy;

	memset(&t, 0, sizeof(t));
	want_stride(&t, false, 0, "no faults");
	faults(&t, 1000, 1, 4);
	want_stride(&t, false, 0, "3 differences: fewer than an eighth ring");
	faults(&t, 1004, 1, 1);
	want_stride(&t, true, 1, "5 in order");
	rf_trend_fault(&t, 5000);
	want_stride(&t, true, 1, "3 of the newest 4 in order");
	rf_trend_fault(&t, 9000);
	want_stride(&t, false, 0, "2 of the newest 4, and 6 differences");
	faults(&t, 9001, 1, 2);
	want_stride(&t, true, 1, "5 of the newest 8");
	rf_trend_fault(&t, 20);
	rf_trend_fault(&t, 70000);
	want_stride(&t, false, 0, "4 of 8 is no majority");

	memset(&t, 0, sizeof(t));
	faults(&t, 50000, -1, 40);
	want_stride(&t, true, -1, "backwards");

	memset(&t, 0, sizeof(t));
	faults(&t, 0, 4, 40);
	want_stride(&t, true, 4, "every fourth page");

	/* 5 of every 8 in order, the rest random: a majority of 1 */
	memset(&t, 0, sizeof(t));
	for (i = 0; i < 64; i++)
		rf_trend_fault(&t, i % 8 < 5 ? t.last + 1 : rnd(1u << 30));
	want_stride(&t, true, 1, "noisy in order");

	/* random: no trend, almost surely */
	memset(&t, 0, sizeof(t));
	for (i = 0; i < 64; i++)
		rf_trend_fault(&t, rnd(1u << 30));
	want_stride(&t, false, 0, "random");

	/* the same page again and again: a stride of 0 is no trend */
	memset(&t, 0, sizeof(t));
	faults(&t, 77, 0, 40);
	want_stride(&t, false, 0, "one page");

	/* a new direction wins the newest quarter first */
	memset(&t, 0, sizeof(t));
	faults(&t, 10000, 1, 32);
	faults(&t, t.last - 3, -3, 9);
	want_stride(&t, true, -3, "turned around");

	/* an old trend still fills the whole ring: found at a wider window */
	memset(&t, 0, sizeof(t));
	faults(&t, 0, 2, 33);
	for (noisy = 0; noisy < 6; noisy++)
		rf_trend_fault(&t, rnd(1u << 30));
	want_stride(&t, true, 2, "trend under recent noise");
}

static void hits(struct rf_trend *t, int n)
{
	while (n--)
		rf_trend_hit(t, true, 16);
}

static void test_depth(void)
{
	struct rf_trend t;
	unsigned int d;

	memset(&t, 0, sizeof(t));
	d = rf_trend_depth(&t, 16);
	CHECK(d == 16, "a fresh trend: depth %u, want the cap 16", d);
	CHECK(rf_trend_depth(&t, 4) == 4, "a fresh trend under a cap of 4");
	rf_trend_hit(&t, false, 16);
	d = rf_trend_depth(&t, 16);
	CHECK(d == 8, "a miss with no hits: depth %u, want 8 (half)", d);
	rf_trend_hit(&t, false, 16);
	rf_trend_hit(&t, false, 16);
	rf_trend_hit(&t, false, 16);
	d = rf_trend_depth(&t, 16);
	CHECK(d == 1, "four misses: depth %u, want 1", d);
	rf_trend_hit(&t, false, 16);
	CHECK(rf_trend_depth(&t, 16) == 1, "never below 1");
	hits(&t, 1);
	d = rf_trend_depth(&t, 16);
	CHECK(d == 2, "depth 1 used up: %u, want 2", d);
	hits(&t, 2 + 4);
	d = rf_trend_depth(&t, 16);
	CHECK(d == 8, "2 then 4 used up: %u, want 8", d);
	hits(&t, 8 + 16 + 8);
	d = rf_trend_depth(&t, 16);
	CHECK(d == 16, "a long run: %u, want the cap 16", d);
	CHECK(t.hits == 8, "hits since the cap was reached: %u, want 8",
	      t.hits);
	/* 8 hits, then a miss: 9 -> 16, not below half of 16 either */
	rf_trend_hit(&t, false, 16);
	CHECK(rf_trend_depth(&t, 16) == 16, "miss after 8 hits: %u",
	      rf_trend_depth(&t, 16));
	CHECK(t.hits == 0, "hits not reset: %u", t.hits);
	/* 2 hits, then a miss: max(4, 8) */
	hits(&t, 2);
	rf_trend_hit(&t, false, 16);
	d = rf_trend_depth(&t, 16);
	CHECK(d == 8, "miss after 2 hits at 16: %u, want 8", d);
	hits(&t, 4);
	rf_trend_hit(&t, false, 16);
	d = rf_trend_depth(&t, 16);
	CHECK(d == 8, "miss after 4 hits at 8: %u, want 8 (5 -> 8)", d);
	hits(&t, 3);
	rf_trend_hit(&t, false, 2);
	CHECK(rf_trend_depth(&t, 2) == 2, "a cap of 2: %u",
	      rf_trend_depth(&t, 2));
}

int main(int argc, char **argv)
{
	test_seed_from_args(argc, argv, "trend_test");
	test_strides();
	test_depth();
	printf("trend_test: %lu checks, %lu failed\n", test_checks,
	       test_failures);
	return test_failures ? 1 : 0;
}
