/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trend.h - the stride of recent swap-ins, and how far to fetch along it
 * (trend.c).
 */
#ifndef RAMSTER_FRONTEND_TREND_H
#define RAMSTER_FRONTEND_TREND_H

#include <linux/types.h>

#define RF_TREND_RING		32	/* differences kept */

struct rf_trend {
	unsigned long	last;		/* the last faulting offset */
	bool		seen;		/* last is set */
	unsigned int	head;		/* where the next difference goes */
	unsigned int	n;		/* differences kept, up to the ring */
	long		delta[RF_TREND_RING];
	unsigned int	hits;		/* loads fetched ahead since a miss */
	unsigned int	depth;		/* pages to keep fetched ahead; 0: max */
};

/* Record a fault at offset. */
void rf_trend_fault(struct rf_trend *t, unsigned long offset);
/* The trend's stride (never 0), or false if there is none. */
bool rf_trend_stride(const struct rf_trend *t, long *stride);
/* A load found its page fetched ahead (hit) or not: the depth follows. */
void rf_trend_hit(struct rf_trend *t, bool hit, unsigned int max);
/* How many pages to keep fetched ahead (1..max). */
unsigned int rf_trend_depth(const struct rf_trend *t, unsigned int max);

#endif /* RAMSTER_FRONTEND_TREND_H */
