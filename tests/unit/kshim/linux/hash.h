/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: the kernel's multiplicative hash (64-bit CPUs). */
#ifndef KSHIM_LINUX_HASH_H
#define KSHIM_LINUX_HASH_H

#include "../kshim.h"

#define GOLDEN_RATIO_32	0x61C88647
#define GOLDEN_RATIO_64	0x61C8864680B583EBull

static inline u32 hash_64(u64 val, unsigned int bits)
{
	return val * GOLDEN_RATIO_64 >> (64 - bits);
}

#endif
