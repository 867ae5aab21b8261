/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim.h - just enough of the kernel for backend-node/xvmalloc.c and
 * frontend/cc_prefetch.c to build and run in userspace
 * (tests/unit/xvmalloc_test.c, prefetch_test.c), and to be checked while
 * they run:
 *
 *  - a struct page is a malloc'd, page-aligned PAGE_SIZE buffer, filled
 *    with garbage when allocated; alloc_page() and __free_page() keep the
 *    pages held on a list and count them, and __free_page() of a page
 *    that is not held is an error (not freed);
 *  - kmap_local_page() is page_address(), but maps are kept on a stack and
 *    kunmap_local() must unmap the most recent one;
 *  - spinlocks are pthread mutexes (the irqsave ones too); alloc_page()
 *    or wait_event() with one held is an error (both may sleep), and so is
 *    taking or dropping one with a page mapped (stricter than the kernel:
 *    xvmalloc maps pages only inside its lock);
 *  - kzalloc() and kcalloc() are counted like pages, and can be made to
 *    fail like alloc_page();
 *  - wait_event() polls its condition (100 us apart), wake_up_all() only
 *    counts (linux/wait.h); lists check themselves as with
 *    CONFIG_DEBUG_LIST (linux/list.h);
 *  - WARN_ON_ONCE() and WARN_ON() print and count every time.
 *
 * Errors print a line and are counted in kshim_counts.errors; the test
 * fails on any it did not cause on purpose.
 */
#ifndef RAMSTER_KSHIM_H
#define RAMSTER_KSHIM_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "linux/compiler.h"	/* READ_ONCE(), WRITE_ONCE() */

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long s64;
#define __bitwise
typedef unsigned int __bitwise gfp_t;
typedef unsigned long pgoff_t;

#define GFP_KERNEL	0x01u
#define GFP_NOWAIT	0x02u
#define __GFP_NOWARN	0x04u
#define __GFP_NORETRY	0x08u

#define UL(x)		(x##UL)
#define BIT(nr)		(UL(1) << (nr))

#define PAGE_SHIFT	12
#define PAGE_SIZE	BIT(PAGE_SHIFT)

#define BITS_PER_LONG	(__SIZEOF_LONG__ * 8)
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* ((x - 1) | (a - 1)) + 1 is x rounded up, x = 0 too (unsigned) */
#define ALIGN(x, a)	((((x) - 1) | ((__typeof__(x))(a) - 1)) + 1)
#define max(a, b) ({							\
	__typeof__(a) __a = (a);					\
	__typeof__(b) __b = (b);					\
	__a > __b ? __a : __b;						\
})
#define min(a, b) ({							\
	__typeof__(a) __a = (a);					\
	__typeof__(b) __b = (b);					\
	__a < __b ? __a : __b;						\
})
#define BUILD_BUG_ON(c)	static_assert(!(c), "BUILD_BUG_ON(" #c ")")

static inline unsigned long __ffs(unsigned long word)
{
	return (unsigned long)__builtin_ctzl(word);
}

static inline void __set_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] |= BIT(nr % BITS_PER_LONG);
}

static inline void __clear_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] &= ~BIT(nr % BITS_PER_LONG);
}

void kshim_warn(const char *cond, const char *file, int line);
/* Misuse of the kernel's API that the shim's headers catch: an error. */
void kshim_misuse(const char *what);

#define WARN_ON(c) ({							\
	bool __warned = !!(c);						\
	if (__warned)							\
		kshim_warn(#c, __FILE__, __LINE__);			\
	__warned;							\
})
#define WARN_ON_ONCE(c)	WARN_ON(c)

struct page {
	void *virt;			/* PAGE_SIZE bytes, page-aligned */
	unsigned long private;
	struct page *prev, *next;	/* on the list of pages held */
	unsigned long magic;		/* KSHIM_PAGE_HELD while held */
	unsigned long test_mark;	/* the test's own */
};

#define KSHIM_PAGE_HELD	0x9a9e4e1dUL

#define page_private(page)	((page)->private)

static inline void set_page_private(struct page *page, unsigned long v)
{
	page->private = v;
}

static inline void *page_address(const struct page *page)
{
	return page->virt;
}

struct page *alloc_page(gfp_t flags);
void __free_page(struct page *page);
void *kmap_local_page(struct page *page);
void kunmap_local(const void *addr);

void *kzalloc(size_t size, gfp_t flags);
void *kcalloc(size_t n, size_t size, gfp_t flags);
void kfree(const void *p);

struct kshim_spinlock {
	pthread_mutex_t mutex;
};

#define spinlock_t struct kshim_spinlock

#define DEFINE_SPINLOCK(x)	spinlock_t x = { PTHREAD_MUTEX_INITIALIZER }

void spin_lock_init(spinlock_t *lock);
void spin_lock(spinlock_t *lock);
void spin_unlock(spinlock_t *lock);

/* Interrupts mean nothing here: the flags are only set and read. */
#define spin_lock_irqsave(lock, flags)					\
	do {								\
		(flags) = 0;						\
		spin_lock(lock);					\
	} while (0)
#define spin_unlock_irqrestore(lock, flags)				\
	do {								\
		(void)(flags);						\
		spin_unlock(lock);					\
	} while (0)

/* For linux/wait.h: an error if the caller holds a spinlock. */
void kshim_might_sleep(const char *what);
/* One wait of wait_event(): about 100 us. */
void kshim_wait_poll(void);
void kshim_wake_up(const void *wq);

/* The shim's state, for the test. */
struct kshim_counts {
	long pages_held;	/* allocated and not freed */
	long pages_allocated;	/* by alloc_page(), ever */
	long pages_freed;	/* by __free_page(), ever */
	long allocs_failed;	/* alloc_page() failures injected */
	long objects_held;	/* by kzalloc() or kcalloc(), not freed */
	long kallocs_failed;	/* their failures injected */
	long waits;		/* polls of wait_event() that slept */
	long wakeups;		/* wake_up_all() calls */
	long warnings;		/* WARN_ON*() that fired */
	long errors;		/* misuse of the shim's API */
	gfp_t last_flags;	/* of the last alloc_page() */
};

void kshim_get_counts(struct kshim_counts *counts);
/* Make the next n calls of alloc_page() fail. */
void kshim_fail_allocs(long n);
/* Let the next skip calls of alloc_page() succeed, then fail n. */
void kshim_fail_allocs_after(long skip, long n);
/* Make the next n calls of kzalloc() or kcalloc() fail. */
void kshim_fail_kallocs(long n);
/* Maps and spinlocks the calling thread holds. */
int kshim_maps_held(void);
int kshim_locks_held(void);
/* Print warnings and errors (the default) or not. */
void kshim_quiet(bool quiet);

#endif /* RAMSTER_KSHIM_H */
