/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: READ_ONCE() and WRITE_ONCE(), volatile accesses. */
#ifndef KSHIM_LINUX_COMPILER_H
#define KSHIM_LINUX_COMPILER_H

#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)						\
	do {								\
		*(volatile __typeof__(x) *)&(x) = (val);		\
	} while (0)

#endif
