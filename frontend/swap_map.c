// SPDX-License-Identifier: GPL-2.0
/*
 * swap_map.c - which swap offsets the memory server was given, so pages
 * are fetched ahead only where there is one to fetch.
 *
 * One bit per offset, BITS_PER_XA_VALUE offsets to an xarray value entry,
 * per swap type.  A bit is set when a store is accepted and cleared when
 * the offset is invalidated or a store of it fails.  It is a hint: a bit
 * that could not be set (no memory for the entry) only means the page is
 * not fetched ahead; what a load returns never depends on it.
 */
#include <linux/bitops.h>
#include <linux/swap.h>
#include <linux/xarray.h>

#include "ramster_frontend.h"

static struct xarray rf_map[MAX_SWAPFILES];

static unsigned long rf_map_bit(pgoff_t offset)
{
	return 1UL << (offset % BITS_PER_XA_VALUE);
}

/* Under the xa_lock, so stores and invalidations do not lose bits. */
void rf_swap_map_set(unsigned int type, pgoff_t offset, bool stored)
{
	struct xarray *xa = &rf_map[type];
	pgoff_t idx = offset / BITS_PER_XA_VALUE;
	unsigned long flags, v;
	void *old;

	xa_lock_irqsave(xa, flags);
	old = xa_load(xa, idx);
	v = old ? xa_to_value(old) : 0;
	v = stored ? v | rf_map_bit(offset) : v & ~rf_map_bit(offset);
	if (v)
		__xa_store(xa, idx, xa_mk_value(v), GFP_NOWAIT | __GFP_NOWARN);
	else if (old)
		__xa_erase(xa, idx);
	xa_unlock_irqrestore(xa, flags);
}

bool rf_swap_map_test(unsigned int type, pgoff_t offset)
{
	void *v = xa_load(&rf_map[type], offset / BITS_PER_XA_VALUE);

	return v && (xa_to_value(v) & rf_map_bit(offset));
}

/* swapoff, or the pool is gone: no offset is on the server. */
void rf_swap_map_clear_all(unsigned int type)
{
	xa_destroy(&rf_map[type]);
}

void rf_swap_map_init(void)
{
	unsigned int type;

	for (type = 0; type < MAX_SWAPFILES; type++)
		xa_init_flags(&rf_map[type], XA_FLAGS_LOCK_IRQ);
}
