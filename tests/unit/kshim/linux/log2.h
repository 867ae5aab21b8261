/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KSHIM_LINUX_LOG2_H
#define KSHIM_LINUX_LOG2_H
#include "../kshim.h"

/* The smallest power of two >= n; n >= 1. */
static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (BITS_PER_LONG - __builtin_clzl(n - 1));
}
#endif
