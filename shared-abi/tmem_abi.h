/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * tmem_abi.h - the transcendent memory (tmem) ABI shared by the RAMster
 * frontend, the memory server and the userspace tools.
 *
 * Operation numbers, pool flags and the special error numbers are Xen's
 * (xen/include/public/tmem.h), so a reader who knows Xen tmem knows these.
 *
 * A page is named by a handle: a pool id, a 192-bit object id (three u64)
 * and a 32-bit page index inside the object.  On the wire a handle is
 * struct tmem_handle_le: fixed width, little endian, 32 bytes, no padding.
 * struct tmem_handle is the same in CPU byte order, for code to work with.
 *
 * Semantics (kept from Xen):
 *  - a get from a private ephemeral pool is exclusive: the page leaves the
 *    store; persistent and shared pools keep it;
 *  - a duplicate put replaces the old data, or fails and flushes it; it
 *    never fails while keeping the stale data;
 *  - shared pools are ephemeral only (SHARED|PERSIST is refused), joined by
 *    uuid, and only when the server authorises that client for the uuid.
 *
 * Results: >= 0 is success (NEW_POOL: the pool id; PUT, FLUSH_*, DESTROY:
 * 1; GET: 1 found, 0 not found); < 0 is minus one of enum tmem_errno.
 */
#ifndef RAMSTER_TMEM_ABI_H
#define RAMSTER_TMEM_ABI_H

#include "abi_types.h"

/* Operations, numbered as Xen's tmem_op cmd. */
enum tmem_op {
	TMEM_NEW_POOL		= 1,
	TMEM_DESTROY_POOL	= 2,
	TMEM_PUT_PAGE		= 4,
	TMEM_GET_PAGE		= 5,
	TMEM_FLUSH_PAGE		= 6,
	TMEM_FLUSH_OBJECT	= 7,
};

/* Version of this ABI, carried in the pool flags of every NEW_POOL. */
#define TMEM_SPEC_VERSION		1

/* Pool flags (NEW_POOL).  Persistent: frontswap; ephemeral: cleancache. */
#define TMEM_POOL_PERSIST		0x00000001u
#define TMEM_POOL_SHARED		0x00000002u
#define TMEM_POOL_PRECOMPRESSED		0x00000004u	/* refused */
/* log2(page size) - 12, at bits 4..7; only 0 (4 KiB) is accepted */
#define TMEM_POOL_PAGESIZE_SHIFT	4
#define TMEM_POOL_PAGESIZE_MASK		0xfu
/* bits 8..23 must be zero */
#define TMEM_POOL_RESERVED_BITS		0x00ffff00u
/* TMEM_SPEC_VERSION, at bits 24..31 */
#define TMEM_POOL_VERSION_SHIFT		24
#define TMEM_POOL_VERSION_MASK		0xffu

/* Every bit a pool may have set; bit 3 and the reserved bits are not. */
#define TMEM_POOL_KNOWN_BITS		(TMEM_POOL_PERSIST | TMEM_POOL_SHARED | \
					 (TMEM_POOL_PAGESIZE_MASK << TMEM_POOL_PAGESIZE_SHIFT) | \
					 (TMEM_POOL_VERSION_MASK << TMEM_POOL_VERSION_SHIFT))

/* Limits (Xen's MAX_POOLS_PER_DOMAIN and MAX_GLOBAL_SHARED_POOLS). */
#define TMEM_MAX_POOLS_PER_CLIENT	16
#define TMEM_MAX_SHARED_POOLS		16

/*
 * A pool id, as NEW_POOL returns it, is opaque to the client: the server
 * keeps the pool in slot id % TMEM_MAX_POOLS_PER_CLIENT, and a memory
 * server puts a tag of 1..TMEM_POOL_TAG_MAX above the slot, the next one
 * for each pool it makes, starting at a random one.  An id the client kept
 * from a pool that is gone (destroyed, its grace period over, the server
 * restarted) then names no pool (-TMEM_ENODEV), not a newer pool in the
 * same slot.  Ids are at most TMEM_POOL_ID_MAX, so they fit a status.
 */
#define TMEM_POOL_SLOT_BITS		4
#define TMEM_POOL_TAG_MAX		((1u << 27) - 1)
#define TMEM_POOL_ID_MAX		((TMEM_POOL_TAG_MAX << TMEM_POOL_SLOT_BITS) | \
					 (TMEM_MAX_POOLS_PER_CLIENT - 1))

/* The one page size the ABI moves: 4 KiB, whatever the CPU's PAGE_SIZE. */
#define TMEM_PAGE_SHIFT			12
#define TMEM_PAGE_SIZE			4096

/*
 * Error numbers.  A failed operation returns minus one of these.  The
 * values are fixed by the ABI; the common ones equal Linux's errno values
 * (checked below), the last two are Xen's.
 */
enum tmem_errno {
	TMEM_EPERM		= 1,	/* bad flags, version, page size, auth */
	TMEM_ENOMEM		= 12,	/* no room for the page or the pool */
	TMEM_ENODEV		= 19,	/* no such pool */
	TMEM_EINVAL		= 22,	/* malformed request */
	TMEM_EOPNOTSUPP		= 95,	/* operation not supported here */
	TMEM_EFROZEN		= 1000,	/* client frozen: puts fail */
	TMEM_EEMPTY		= 1001,	/* pool holds no pages */
};

static_assert(TMEM_PAGE_SIZE == 1 << TMEM_PAGE_SHIFT, "TMEM_PAGE_SIZE");
static_assert(TMEM_MAX_POOLS_PER_CLIENT == 1 << TMEM_POOL_SLOT_BITS,
	      "pool slot bits");
static_assert(TMEM_POOL_ID_MAX == 0x7fffffff, "pool ids fit an s32");
static_assert(TMEM_EPERM == EPERM, "TMEM_EPERM");
static_assert(TMEM_ENOMEM == ENOMEM, "TMEM_ENOMEM");
static_assert(TMEM_ENODEV == ENODEV, "TMEM_ENODEV");
static_assert(TMEM_EINVAL == EINVAL, "TMEM_EINVAL");
static_assert(TMEM_EOPNOTSUPP == EOPNOTSUPP, "TMEM_EOPNOTSUPP");

/* A page handle in CPU byte order. */
struct tmem_handle {
	u32 pool_id;
	u32 index;
	u64 oid[3];
};

/* A page handle on the wire. */
struct tmem_handle_le {
	__le32 pool_id;
	__le32 index;
	__le64 oid[3];
};

static_assert(sizeof(struct tmem_handle_le) == 32, "tmem_handle_le size");
static_assert(offsetof(struct tmem_handle_le, oid) == 8, "tmem_handle_le oid");

static inline void tmem_handle_to_le(struct tmem_handle_le *w,
				     const struct tmem_handle *h)
{
	w->pool_id = cpu_to_le32(h->pool_id);
	w->index = cpu_to_le32(h->index);
	w->oid[0] = cpu_to_le64(h->oid[0]);
	w->oid[1] = cpu_to_le64(h->oid[1]);
	w->oid[2] = cpu_to_le64(h->oid[2]);
}

static inline void tmem_handle_from_le(struct tmem_handle *h,
				       const struct tmem_handle_le *w)
{
	h->pool_id = le32_to_cpu(w->pool_id);
	h->index = le32_to_cpu(w->index);
	h->oid[0] = le64_to_cpu(w->oid[0]);
	h->oid[1] = le64_to_cpu(w->oid[1]);
	h->oid[2] = le64_to_cpu(w->oid[2]);
}

static inline bool tmem_handle_equal(const struct tmem_handle *a,
				     const struct tmem_handle *b)
{
	return a->pool_id == b->pool_id && a->index == b->index &&
	       a->oid[0] == b->oid[0] && a->oid[1] == b->oid[1] &&
	       a->oid[2] == b->oid[2];
}

/* Pool flags for a 4 KiB pool of this spec version. */
static inline u32 tmem_pool_flags(bool persist, bool shared)
{
	return (persist ? TMEM_POOL_PERSIST : 0) |
	       (shared ? TMEM_POOL_SHARED : 0) |
	       ((u32)TMEM_SPEC_VERSION << TMEM_POOL_VERSION_SHIFT);
}

/*
 * tmem_pool_flags_check() - may a pool be created with these flags?
 * Returns 0, or -TMEM_EPERM for a wrong version or page size, any unknown
 * bit (reserved, precompression) or a shared persistent pool, all of which
 * Xen refused too.
 */
static inline int tmem_pool_flags_check(u32 flags)
{
	u32 version = (flags >> TMEM_POOL_VERSION_SHIFT) & TMEM_POOL_VERSION_MASK;
	u32 pageshift = (flags >> TMEM_POOL_PAGESIZE_SHIFT) &
			TMEM_POOL_PAGESIZE_MASK;

	if (version != TMEM_SPEC_VERSION)
		return -TMEM_EPERM;
	if (pageshift != TMEM_PAGE_SHIFT - 12)
		return -TMEM_EPERM;
	if (flags & ~TMEM_POOL_KNOWN_BITS)
		return -TMEM_EPERM;
	if ((flags & TMEM_POOL_SHARED) && (flags & TMEM_POOL_PERSIST))
		return -TMEM_EPERM;
	return 0;
}

#endif /* RAMSTER_TMEM_ABI_H */
