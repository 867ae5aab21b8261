/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * abi_types.h - the few kernel types and helpers the RAMster ABI headers use,
 * so that tmem_abi.h and r2net_wire.h compile unchanged in a kernel module
 * and in userspace (tools, unit tests: cc -I shared-abi).
 *
 * In the kernel everything comes from the kernel's own headers.  In userspace
 * the __le16/__le32/__le64 types come from the UAPI <linux/types.h>
 * (linux-libc-dev), and the byte order helpers wrap <endian.h> under the
 * kernel's names.
 */
#ifndef RAMSTER_ABI_TYPES_H
#define RAMSTER_ABI_TYPES_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/build_bug.h>
#include <asm/byteorder.h>

#else /* !__KERNEL__ */

#include <assert.h>	/* static_assert(), i.e. _Static_assert() */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <endian.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

/*
 * <endian.h> declares le32toh() and friends only with _DEFAULT_SOURCE (not
 * under a strict -std=c11); without them, use the compiler's byte order.
 */
#ifndef le32toh
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define le16toh(x)	((__u16)(x))
#define le32toh(x)	((__u32)(x))
#define le64toh(x)	((__u64)(x))
#else
#define le16toh(x)	__builtin_bswap16(x)
#define le32toh(x)	__builtin_bswap32(x)
#define le64toh(x)	__builtin_bswap64(x)
#endif
#define htole16(x)	le16toh(x)
#define htole32(x)	le32toh(x)
#define htole64(x)	le64toh(x)
#endif

static inline u16 le16_to_cpu(__le16 v)
{
	return le16toh(v);
}

static inline u32 le32_to_cpu(__le32 v)
{
	return le32toh(v);
}

static inline u64 le64_to_cpu(__le64 v)
{
	return le64toh(v);
}

static inline __le16 cpu_to_le16(u16 v)
{
	return htole16(v);
}

static inline __le32 cpu_to_le32(u32 v)
{
	return htole32(v);
}

static inline __le64 cpu_to_le64(u64 v)
{
	return htole64(v);
}

#endif /* __KERNEL__ */

#endif /* RAMSTER_ABI_TYPES_H */
