// SPDX-License-Identifier: GPL-2.0
/*
 * shrinker.c - under memory pressure the server gives back ephemeral
 * pages, oldest first: they are a cache the clients can do without.
 * Persistent pages are never evicted.
 */
#include <linux/mm.h>
#include <linux/shrinker.h>
#include "limits.h"
#include "tmem.h"

static struct tmem_store *shrinker_store;

static unsigned long backend_shrink_count(struct shrinker *s,
					  struct shrink_control *sc)
{
	struct tmem_stats st;

	tmem_stats_snapshot(shrinker_store, &st);
	return st.eph_pages ?: SHRINK_EMPTY;
}

static unsigned long backend_shrink_scan(struct shrinker *s,
					 struct shrink_control *sc)
{
	unsigned long freed = tmem_evict(shrinker_store, sc->nr_to_scan);

	return freed ?: SHRINK_STOP;
}

static struct shrinker backend_shrinker = {
	.count_objects	= backend_shrink_count,
	.scan_objects	= backend_shrink_scan,
	.seeks		= DEFAULT_SEEKS,
};

/**
 * backend_shrinker_init() - let memory pressure evict from @store
 * @store: the store
 *
 * Return: 0, or register_shrinker()'s error.
 */
int backend_shrinker_init(struct tmem_store *store)
{
	shrinker_store = store;
	return register_shrinker(&backend_shrinker, "ramster-backend");
}

/**
 * backend_shrinker_exit() - no scan runs after this returns
 */
void backend_shrinker_exit(void)
{
	unregister_shrinker(&backend_shrinker);
}
