// SPDX-License-Identifier: GPL-2.0
/*
 * trend.c - the stride of recent swap-ins, after Leap (ATC'20).
 *
 * A ring keeps the differences between successive faulting offsets.  The
 * trend is the difference that fills more than half of a window of the
 * newest ones (Boyer-Moore majority vote), trying the newest eighth of
 * the ring first and doubling the window up to the whole ring.
 *
 * How far to fetch along it follows the hits, the loads that found their
 * page fetched ahead since the last one that did not.  On such a miss,
 * as in Leap, the depth is hits + 1 rounded up to a power of two, and
 * never less than half the last depth.  Leap fetches anew only on a
 * miss; the frontend tops the pages ahead up on every load instead, so
 * a depth used up without a miss doubles.  Both are capped.  A trend
 * never seen starts at the cap.
 *
 * No locking here: the caller holds whatever guards its struct rf_trend.
 */
#include <linux/kernel.h>
#include <linux/log2.h>

#include "trend.h"

void rf_trend_fault(struct rf_trend *t, unsigned long offset)
{
	if (t->seen) {
		t->delta[t->head] = (long)(offset - t->last);
		t->head = (t->head + 1) % RF_TREND_RING;
		if (t->n < RF_TREND_RING)
			t->n++;
	}
	t->last = offset;
	t->seen = true;
}

static long rf_trend_delta(const struct rf_trend *t, unsigned int i)
{
	return t->delta[(t->head + RF_TREND_RING - i) % RF_TREND_RING];
}

/* The majority of the newest w differences, if one fills more than half. */
static bool rf_trend_majority(const struct rf_trend *t, unsigned int w,
			      long *stride)
{
	unsigned int i, votes = 0, count = 0;
	long cand = 0, d;

	for (i = 1; i <= w; i++) {
		d = rf_trend_delta(t, i);
		if (!votes)
			cand = d;
		if (d == cand)
			votes++;
		else
			votes--;
	}
	for (i = 1; i <= w; i++)
		count += rf_trend_delta(t, i) == cand;
	if (count * 2 <= w || !cand)
		return false;
	*stride = cand;
	return true;
}

bool rf_trend_stride(const struct rf_trend *t, long *stride)
{
	unsigned int w;

	for (w = RF_TREND_RING / 8; w <= RF_TREND_RING; w *= 2) {
		if (w > t->n)
			return false;
		if (rf_trend_majority(t, w, stride))
			return true;
	}
	return false;
}

void rf_trend_hit(struct rf_trend *t, bool hit, unsigned int max)
{
	unsigned int depth = rf_trend_depth(t, max);

	if (hit) {
		if (++t->hits < depth)
			return;
		depth = min(2 * depth, max);
	} else {
		depth = max(roundup_pow_of_two(t->hits + 1), depth / 2);
	}
	t->depth = max(min(depth, max), 1u);
	t->hits = 0;
}

unsigned int rf_trend_depth(const struct rf_trend *t, unsigned int max)
{
	return t->depth ? min(t->depth, max) : max;
}
