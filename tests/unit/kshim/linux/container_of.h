/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: container_of(), with the kernel's type check. */
#ifndef KSHIM_LINUX_CONTAINER_OF_H
#define KSHIM_LINUX_CONTAINER_OF_H

#include <assert.h>
#include <stddef.h>

#define __same_type(a, b) __builtin_types_compatible_p(__typeof__(a),	\
						       __typeof__(b))

#define container_of(ptr, type, member) ({				\
	void *__mptr = (void *)(ptr);					\
	static_assert(__same_type(*(ptr), ((type *)0)->member) ||	\
		      __same_type(*(ptr), void),			\
		      "pointer type mismatch in container_of()");	\
	((type *)((char *)__mptr - offsetof(type, member))); })

#endif
