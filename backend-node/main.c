// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - ramster_backend.ko, the memory server's side of RAMster.
 *
 * It keeps one tmem store whose pages zcache compresses into xvmalloc,
 * within the limits of limits.c and giving back ephemeral pages under
 * memory pressure (shrinker.c), serves the tmem operations client nodes
 * send over r2net (load r2net.ko first), frees the pools of a client gone
 * for its grace period (clients.c), and shows its counters in debugfs
 * under ramster_backend/.
 *
 * Load it with selftest=1 to run the self-tests of the store and of zcache
 * first; the load then fails with -EINVAL if a case fails.
 */
#include <linux/module.h>
#include "tmem.h"
#include "zcache.h"
#include "clients.h"
#include "debugfs.h"
#include "limits.h"
#include "server.h"
#include "share.h"

static bool selftest;
module_param(selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "run the self-tests of the store and zcache at load; fail the load if one fails");

static struct zcache *backend_zcache;
static struct tmem_store *backend_store;

static int __init ramster_backend_init(void)
{
	int ret;

	ret = tmem_init();
	if (ret)
		return ret;
	if (selftest && (tmem_selftest() || zcache_selftest())) {
		ret = -EINVAL;
		goto fail_selftest;
	}
	ret = -ENOMEM;
	backend_zcache = zcache_create();
	if (!backend_zcache)
		goto fail_zcache;
	backend_store = tmem_store_create(&zcache_tmem_ops, backend_zcache);
	if (!backend_store)
		goto fail_store;
	tmem_store_tag_ids(backend_store);
	backend_limits_init(backend_store);
	ret = backend_shrinker_init(backend_store);
	if (ret)
		goto fail_shrinker;
	backend_debugfs_init(backend_store, backend_zcache);
	backend_clients_init(backend_store);
	backend_share_init(backend_store);
	ret = backend_server_init(backend_store);
	if (ret)
		goto fail_server;
	pr_info("loaded%s\n", selftest ? ", self-tests passed" : "");
	return 0;

fail_server:
	backend_share_exit();
	backend_clients_exit();
	backend_debugfs_exit();
	backend_shrinker_exit();
fail_shrinker:
	backend_limits_exit();
	tmem_store_destroy(backend_store);
fail_store:
	zcache_destroy(backend_zcache);
fail_zcache:
fail_selftest:
	tmem_exit();
	return ret;
}

static void __exit ramster_backend_exit(void)
{
	backend_server_exit();
	backend_share_exit();
	backend_clients_exit();
	backend_debugfs_exit();
	backend_shrinker_exit();
	backend_limits_exit();
	tmem_store_destroy(backend_store);
	zcache_destroy(backend_zcache);
	tmem_exit();
	pr_info("unloaded\n");
}

module_init(ramster_backend_init);
module_exit(ramster_backend_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RAMster memory server: a compressed tmem store served over r2net");
