// SPDX-License-Identifier: GPL-2.0
/*
 * limits.c - the memory server's limits as module parameters, applied to
 * the store at load and whenever one is written:
 *
 *   max_pool_percent	page frames the store's data may hold, in percent
 *			of the server's RAM (1..100, default 50)
 *   max_pool_pages	the same in page frames (0: only the percentage)
 *   client_quota_pages	pages one client node may have stored (0: none)
 *   min_avail_percent	memory, in percent of RAM, the store leaves
 *			available (MemAvailable) to the server's own
 *			work (0..50, default 5; 0: none)
 *
 * The tighter of the first two holds.  A put at a limit, or with less
 * memory available than the third keeps, evicts ephemeral pages, oldest
 * first; a put that still does not fit fails with -TMEM_ENOMEM (see
 * tmem_put()), and the client's page goes to its own disk.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include "limits.h"
#include "tmem.h"

static DEFINE_MUTEX(limits_lock);	/* the values and limits_store */
static struct tmem_store *limits_store;
static unsigned int max_pool_percent = 50;
static unsigned long max_pool_pages;
static unsigned long client_quota_pages;
static unsigned int min_avail_percent = 5;

/* limits_lock held. */
static void backend_limits_apply(void)
{
	unsigned long frames = mult_frac(totalram_pages(), max_pool_percent,
					 100);

	if (max_pool_pages && max_pool_pages < frames)
		frames = max_pool_pages;
	if (limits_store)
		tmem_set_limits(limits_store, max(frames, 1UL),
				client_quota_pages,
				mult_frac(totalram_pages(), min_avail_percent,
					  100));
}

static int backend_limit_set(const char *val, const struct kernel_param *kp)
{
	bool percent = kp->arg == &max_pool_percent;
	bool avail = kp->arg == &min_avail_percent;
	int ret;

	mutex_lock(&limits_lock);
	if (percent)
		ret = param_set_uint_minmax(val, kp, 1, 100);
	else if (avail)
		ret = param_set_uint_minmax(val, kp, 0, 50);
	else
		ret = param_set_ulong(val, kp);
	if (!ret)
		backend_limits_apply();
	mutex_unlock(&limits_lock);
	if (ret)
		pr_err("%s: '%.*s' refused: want %s\n", kp->name,
		       (int)strcspn(val, "\n"), val,
		       percent ? "1..100 (percent of RAM)" :
		       avail ? "0..50 (percent of RAM kept available, 0 for none)" :
		       "a number of pages, 0 for no limit");
	return ret;
}

static int backend_limit_get(char *buf, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&limits_lock);
	if (kp->arg == &max_pool_percent || kp->arg == &min_avail_percent)
		ret = param_get_uint(buf, kp);
	else
		ret = param_get_ulong(buf, kp);
	mutex_unlock(&limits_lock);
	return ret;
}

static const struct kernel_param_ops backend_limit_ops = {
	.set = backend_limit_set,
	.get = backend_limit_get,
};

module_param_cb(max_pool_percent, &backend_limit_ops, &max_pool_percent,
		0644);
MODULE_PARM_DESC(max_pool_percent, "page frames the store may hold, percent of RAM (1..100)");
module_param_cb(max_pool_pages, &backend_limit_ops, &max_pool_pages, 0644);
MODULE_PARM_DESC(max_pool_pages, "page frames the store may hold (0: max_pool_percent only)");
module_param_cb(client_quota_pages, &backend_limit_ops, &client_quota_pages,
		0644);
MODULE_PARM_DESC(client_quota_pages, "pages one client node may have stored (0: no quota)");
module_param_cb(min_avail_percent, &backend_limit_ops, &min_avail_percent,
		0644);
MODULE_PARM_DESC(min_avail_percent, "memory kept available to the server's own work, percent of RAM (0..50, 0: none)");

/**
 * backend_limits_init() - apply the parameters to @store from now on
 * @store: the store
 */
void backend_limits_init(struct tmem_store *store)
{
	mutex_lock(&limits_lock);
	limits_store = store;
	backend_limits_apply();
	mutex_unlock(&limits_lock);
}

/**
 * backend_limits_exit() - stop applying them; the store may go after this
 */
void backend_limits_exit(void)
{
	mutex_lock(&limits_lock);
	limits_store = NULL;
	mutex_unlock(&limits_lock);
}
