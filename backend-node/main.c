// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - ramster_backend.ko, the memory server's side of RAMster.
 *
 * For now it holds the tmem store, which the request handlers and the
 * compression layer will use.
 */
#include <linux/module.h>
#include "tmem.h"

static int __init ramster_backend_init(void)
{
	int ret;

	ret = tmem_init();
	if (ret)
		return ret;
	pr_info("loaded\n");
	return 0;
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
