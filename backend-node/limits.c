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
 *   client_share_percent  the part of the store's cap, in bytes, one
 *			client of the default weight may be charged for
 *			(1..100, default 50)
 *   client_weight	"NODE WEIGHT": a client's share is client_share_percent
 *			times WEIGHT percent (1..1000, default 100), at most
 *			the whole cap
 *   client_max_objects	objects one client's puts may have made (0: none;
 *			default 262144)
 *
 * The tighter of the first two holds, for the page frames the store's
 * data takes and for what its clients are charged together in bytes
 * (their pages' data as kept, and the store's own descriptors and
 * indexes: tmem.c's Charges).  A put at a limit, or with less memory
 * available than min_avail_percent keeps, evicts ephemeral pages, oldest
 * first (the client's own for its quota or its share); a put that still
 * does not fit fails with -TMEM_ENOMEM (see tmem_put()), and the client's
 * page goes to its own disk.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include "limits.h"
#include "tmem.h"

/* client_weight's nodes: r2net's node numbers, 255 naming none. */
#define LIMITS_NODES		255

static DEFINE_MUTEX(limits_lock);	/* the values and limits_store */
static struct tmem_store *limits_store;
static unsigned int max_pool_percent = 50;
static unsigned long max_pool_pages;
static unsigned long client_quota_pages;
static unsigned int min_avail_percent = 5;
static unsigned int client_share_percent = 50;
static unsigned long client_max_objects = 262144;
static u16 client_weights[LIMITS_NODES];	/* 0: TMEM_WEIGHT_DEFAULT */

/* limits_lock held. */
static void backend_limits_apply(void)
{
	unsigned long frames = mult_frac(totalram_pages(), max_pool_percent,
					 100);

	if (max_pool_pages && max_pool_pages < frames)
		frames = max_pool_pages;
	if (!limits_store)
		return;
	tmem_set_limits(limits_store, max(frames, 1UL), client_quota_pages,
			mult_frac(totalram_pages(), min_avail_percent, 100));
	tmem_set_shares(limits_store, client_share_percent, client_max_objects);
}

static int backend_limit_set(const char *val, const struct kernel_param *kp)
{
	bool percent = kp->arg == &max_pool_percent;
	bool avail = kp->arg == &min_avail_percent;
	bool share = kp->arg == &client_share_percent;
	bool objects = kp->arg == &client_max_objects;
	int ret;

	mutex_lock(&limits_lock);
	if (percent || share)
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
		       share ? "1..100 (percent of the store's cap one client may hold)" :
		       avail ? "0..50 (percent of RAM kept available, 0 for none)" :
		       objects ? "a number of objects, 0 for no limit" :
		       "a number of pages, 0 for no limit");
	return ret;
}

static int backend_limit_get(char *buf, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&limits_lock);
	if (kp->arg == &max_pool_percent || kp->arg == &min_avail_percent ||
	    kp->arg == &client_share_percent)
		ret = param_get_uint(buf, kp);
	else
		ret = param_get_ulong(buf, kp);
	mutex_unlock(&limits_lock);
	return ret;
}

/* "NODE WEIGHT" into its parts; -EINVAL if it is not that. */
static int backend_weight_parse(const char *val, u8 *node,
				unsigned int *weight)
{
	char num[5], w[6];
	int end = 0;

	if (sscanf(val, "%4s %5s %n", num, w, &end) != 2 || val[end] ||
	    kstrtou8(num, 10, node) || *node >= LIMITS_NODES ||
	    kstrtouint(w, 10, weight) || !*weight ||
	    *weight > TMEM_WEIGHT_MAX)
		return -EINVAL;
	return 0;
}

static int backend_weight_set(const char *val, const struct kernel_param *kp)
{
	unsigned int weight;
	u8 node;
	int ret;

	ret = backend_weight_parse(val, &node, &weight);
	if (ret) {
		pr_err("client_weight: '%.*s' refused: write \"NODE WEIGHT\", NODE a client's node number 0..%d, WEIGHT 1..%d (%d: the default)\n",
		       (int)strcspn(val, "\n"), val, LIMITS_NODES - 1,
		       TMEM_WEIGHT_MAX, TMEM_WEIGHT_DEFAULT);
		return ret;
	}
	mutex_lock(&limits_lock);
	client_weights[node] = weight == TMEM_WEIGHT_DEFAULT ? 0 : weight;
	if (limits_store)
		tmem_set_weight(limits_store, node, weight);
	mutex_unlock(&limits_lock);
	pr_info("client_weight: node %u weighs %u\n", node, weight);
	return 0;
}

/* A "NODE WEIGHT" line for each node whose weight is not the default. */
static int backend_weight_get(char *buf, const struct kernel_param *kp)
{
	int node, len = 0;

	mutex_lock(&limits_lock);
	for (node = 0; node < LIMITS_NODES; node++) {
		if (client_weights[node])
			len += scnprintf(buf + len, PAGE_SIZE - len, "%d %u\n",
					 node, client_weights[node]);
	}
	mutex_unlock(&limits_lock);
	return len;
}

static const struct kernel_param_ops backend_weight_ops = {
	.set = backend_weight_set,
	.get = backend_weight_get,
};

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
module_param_cb(client_share_percent, &backend_limit_ops,
		&client_share_percent, 0644);
MODULE_PARM_DESC(client_share_percent, "what one client of the default weight may be charged for, percent of the store's cap in bytes (1..100)");
module_param_cb(client_max_objects, &backend_limit_ops, &client_max_objects,
		0644);
MODULE_PARM_DESC(client_max_objects, "objects one client's puts may have made (0: no limit)");
module_param_cb(client_weight, &backend_weight_ops, NULL, 0644);
MODULE_PARM_DESC(client_weight, "a client's weight for its share: \"NODE WEIGHT\", WEIGHT 1..1000, 100 the default; reads list the others");

/**
 * backend_limits_init() - apply the parameters to @store from now on
 * @store: the store
 */
void backend_limits_init(struct tmem_store *store)
{
	int node;

	mutex_lock(&limits_lock);
	limits_store = store;
	backend_limits_apply();
	for (node = 0; node < LIMITS_NODES; node++)
		tmem_set_weight(store, node,
				client_weights[node] ?: TMEM_WEIGHT_DEFAULT);
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
