// SPDX-License-Identifier: GPL-2.0
/*
 * kshim.c - the userspace kernel shim's pages, maps, locks, allocations,
 * waits and warnings; see kshim.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kshim.h"

#define KSHIM_MAX_MAPS	16

static pthread_mutex_t kshim_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct kshim_counts kshim;
static struct page kshim_held = { .prev = &kshim_held, .next = &kshim_held };
static long kshim_fail;
static long kshim_fail_skip;
static long kshim_kfail;
static bool kshim_is_quiet;

static __thread struct page *kshim_maps[KSHIM_MAX_MAPS];
static __thread int kshim_nr_maps;
static __thread int kshim_nr_locks;

static void kshim_error(const char *fmt, const char *what)
{
	pthread_mutex_lock(&kshim_mutex);
	kshim.errors++;
	pthread_mutex_unlock(&kshim_mutex);
	fprintf(stderr, "kshim: error: ");
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
}

void kshim_misuse(const char *what)
{
	kshim_error("%s", what);
}

void kshim_warn(const char *cond, const char *file, int line)
{
	pthread_mutex_lock(&kshim_mutex);
	kshim.warnings++;
	pthread_mutex_unlock(&kshim_mutex);
	if (!kshim_is_quiet)
		fprintf(stderr, "kshim: WARNING at %s:%d: %s\n", file, line,
			cond);
}

struct page *alloc_page(gfp_t flags)
{
	struct page *page;

	if (kshim_nr_locks)
		kshim_error("%s with a spinlock held", __func__);
	pthread_mutex_lock(&kshim_mutex);
	kshim.last_flags = flags;
	if (kshim_fail > 0 && kshim_fail_skip > 0) {
		kshim_fail_skip--;
	} else if (kshim_fail > 0) {
		kshim_fail--;
		kshim.allocs_failed++;
		pthread_mutex_unlock(&kshim_mutex);
		return NULL;
	}
	pthread_mutex_unlock(&kshim_mutex);

	page = calloc(1, sizeof(*page));
	if (!page)
		return NULL;
	page->virt = aligned_alloc(PAGE_SIZE, PAGE_SIZE);
	if (!page->virt) {
		free(page);
		return NULL;
	}
	/* whatever a fresh page held: nothing may rely on zeroes */
	memset(page->virt, 0xa5, PAGE_SIZE);
	page->magic = KSHIM_PAGE_HELD;

	pthread_mutex_lock(&kshim_mutex);
	page->next = kshim_held.next;
	page->prev = &kshim_held;
	kshim_held.next->prev = page;
	kshim_held.next = page;
	kshim.pages_held++;
	kshim.pages_allocated++;
	pthread_mutex_unlock(&kshim_mutex);
	return page;
}

void __free_page(struct page *page)
{
	/* a page already freed is caught by ASan reading its magic */
	if (page->magic != KSHIM_PAGE_HELD) {
		kshim_error("%s of a page not held", __func__);
		return;
	}
	pthread_mutex_lock(&kshim_mutex);
	page->prev->next = page->next;
	page->next->prev = page->prev;
	kshim.pages_held--;
	kshim.pages_freed++;
	pthread_mutex_unlock(&kshim_mutex);

	if (page->private)
		kshim_error("%s of a page with page->private set", __func__);
	page->magic = 0;
	free(page->virt);
	free(page);
}

void *kmap_local_page(struct page *page)
{
	if (page->magic != KSHIM_PAGE_HELD)
		kshim_error("%s of a page not held", __func__);
	if (kshim_nr_maps == KSHIM_MAX_MAPS) {
		kshim_error("%s: too many maps held", __func__);
		return page->virt;
	}
	kshim_maps[kshim_nr_maps++] = page;
	return page->virt;
}

void kunmap_local(const void *addr)
{
	const char *a = addr, *top;

	if (!kshim_nr_maps) {
		kshim_error("%s with nothing mapped", __func__);
		return;
	}
	top = kshim_maps[kshim_nr_maps - 1]->virt;
	if (a < top || a >= top + PAGE_SIZE) {
		kshim_error("%s of a page that is not the last one mapped",
			    __func__);
		return;
	}
	kshim_nr_maps--;
}

void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	void *p;

	(void)flags;
	if (size && n > SIZE_MAX / size)
		return NULL;
	pthread_mutex_lock(&kshim_mutex);
	if (kshim_kfail > 0) {
		kshim_kfail--;
		kshim.kallocs_failed++;
		pthread_mutex_unlock(&kshim_mutex);
		return NULL;
	}
	pthread_mutex_unlock(&kshim_mutex);
	p = calloc(n ? n : 1, size ? size : 1);
	if (p) {
		pthread_mutex_lock(&kshim_mutex);
		kshim.objects_held++;
		pthread_mutex_unlock(&kshim_mutex);
	}
	return p;
}

void *kzalloc(size_t size, gfp_t flags)
{
	return kcalloc(1, size, flags);
}

void kfree(const void *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&kshim_mutex);
	kshim.objects_held--;
	pthread_mutex_unlock(&kshim_mutex);
	free((void *)p);
}

void spin_lock_init(spinlock_t *lock)
{
	pthread_mutex_init(&lock->mutex, NULL);
}

void spin_lock(spinlock_t *lock)
{
	if (kshim_nr_maps)
		kshim_error("%s with a page mapped", __func__);
	pthread_mutex_lock(&lock->mutex);
	kshim_nr_locks++;
}

void spin_unlock(spinlock_t *lock)
{
	if (kshim_nr_maps)
		kshim_error("%s with a page still mapped", __func__);
	if (!kshim_nr_locks)
		kshim_error("%s of a lock not held", __func__);
	else
		kshim_nr_locks--;
	pthread_mutex_unlock(&lock->mutex);
}

void kshim_might_sleep(const char *what)
{
	if (kshim_nr_locks)
		kshim_error("%s with a spinlock held", what);
}

void kshim_wait_poll(void)
{
	pthread_mutex_lock(&kshim_mutex);
	kshim.waits++;
	pthread_mutex_unlock(&kshim_mutex);
	usleep(100);
}

void kshim_wake_up(const void *wq)
{
	(void)wq;
	pthread_mutex_lock(&kshim_mutex);
	kshim.wakeups++;
	pthread_mutex_unlock(&kshim_mutex);
}

void kshim_get_counts(struct kshim_counts *counts)
{
	pthread_mutex_lock(&kshim_mutex);
	*counts = kshim;
	pthread_mutex_unlock(&kshim_mutex);
}

void kshim_fail_allocs(long n)
{
	kshim_fail_allocs_after(0, n);
}

void kshim_fail_allocs_after(long skip, long n)
{
	pthread_mutex_lock(&kshim_mutex);
	kshim_fail_skip = skip;
	kshim_fail = n;
	pthread_mutex_unlock(&kshim_mutex);
}

void kshim_fail_kallocs(long n)
{
	pthread_mutex_lock(&kshim_mutex);
	kshim_kfail = n;
	pthread_mutex_unlock(&kshim_mutex);
}

int kshim_maps_held(void)
{
	return kshim_nr_maps;
}

int kshim_locks_held(void)
{
	return kshim_nr_locks;
}

void kshim_quiet(bool quiet)
{
	kshim_is_quiet = quiet;
}
