// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - ramster_backend.ko, the memory server's side of RAMster.
 *
 * For now it holds the tmem store and its self-test: load it with
 * selftest=1 to run the test; the load fails with -EINVAL if a case fails.
 */
#include <linux/module.h>
#include "tmem.h"

static bool selftest;
module_param(selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "run the tmem store's self-test at load; fail the load if it fails");

static int __init ramster_backend_init(void)
{
	int ret;

	ret = tmem_init();
	if (ret)
		return ret;
	if (selftest && tmem_selftest()) {
		ret = -EINVAL;
		goto fail_selftest;
	}
	pr_info("loaded%s\n", selftest ? ", self-test passed" : "");
	return 0;

fail_selftest:
	tmem_exit();
	return ret;
}

static void __exit ramster_backend_exit(void)
{
	tmem_exit();
	pr_info("unloaded\n");
}

module_init(ramster_backend_init);
module_exit(ramster_backend_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RAMster memory server: the tmem store");
