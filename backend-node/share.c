// SPDX-License-Identifier: GPL-2.0
/*
 * share.c - who may join which shared pool, as a module parameter.
 *
 * A shared pool is named by a filesystem's uuid (cleancache of a cluster
 * filesystem such as OCFS2), so the uuid is all a client needs to see
 * another client's pages.  As Xen's "xl tmem-shared-auth", a client node
 * joins a shared pool only once the server's administrator allowed it:
 *
 *   echo "allow 2 UUID" > /sys/module/ramster_backend/parameters/shared_auth
 *   echo "deny 2 UUID" > ...		(a pool it joined stays its own)
 *   cat .../shared_auth		(a line "NODE UUID" per authorisation)
 *
 * NODE is the client's r2net node number, UUID the filesystem's uuid as
 * blkid prints it.  A client asking for a shared pool it may not join is
 * refused (-TMEM_EPERM) and uses a private pool.  The parameter takes
 * writes once the module is loaded, not on the insmod line.
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/uuid.h>
#include <asm/unaligned.h>
#include "share.h"
#include "tmem.h"

static DEFINE_MUTEX(share_lock);		/* share_store */
static struct tmem_store *share_store;

/* "allow|deny NODE UUID" into its parts; -EINVAL if it is not that. */
static int share_parse(const char *val, bool *allow, u8 *node, uuid_t *u)
{
	char verb[6], num[4], id[UUID_STRING_LEN + 1];
	int end = 0;

	if (sscanf(val, "%5s %3s %36s %n", verb, num, id, &end) != 3 ||
	    val[end] || kstrtou8(num, 10, node) ||
	    strlen(id) != UUID_STRING_LEN || uuid_parse(id, u))
		return -EINVAL;
	if (!strcmp(verb, "allow"))
		*allow = true;
	else if (!strcmp(verb, "deny"))
		*allow = false;
	else
		return -EINVAL;
	return 0;
}

static int share_set(const char *val, const struct kernel_param *kp)
{
	int len = strcspn(val, "\n");
	bool allow;
	u64 uuid[2];
	uuid_t u;
	u8 node;
	int ret;

	ret = share_parse(val, &allow, &node, &u);
	if (ret) {
		pr_err("shared_auth: '%.*s' refused: write \"allow NODE UUID\" or \"deny NODE UUID\", NODE a client's node number 0..255\n",
		       len, val);
		return ret;
	}
	/* As the frontend sends it: the uuid's bytes, little endian. */
	uuid[0] = get_unaligned_le64(&u.b[0]);
	uuid[1] = get_unaligned_le64(&u.b[8]);
	mutex_lock(&share_lock);
	if (share_store)
		ret = tmem_auth_shared(share_store, node, uuid, allow);
	else
		ret = -EAGAIN;
	mutex_unlock(&share_lock);
	if (ret == -EAGAIN)
		pr_err("shared_auth: write it once the module is loaded, not on the insmod line\n");
	else if (ret == -ENOSPC)
		pr_err("shared_auth: node %u already has %d shared pools allowed: deny one first\n",
		       node, TMEM_MAX_SHARED_POOLS);
	else if (ret)
		pr_err("shared_auth: '%.*s' failed (%d)\n", len, val, ret);
	else
		pr_info("shared_auth: node %u %s shared pool %pUb\n", node,
			allow ? "may join" : "may no longer join", &u);
	return ret;
}

static int share_get(char *buf, const struct kernel_param *kp)
{
	int len = 0;

	mutex_lock(&share_lock);
	if (share_store)
		len = tmem_auth_list(share_store, buf, PAGE_SIZE);
	mutex_unlock(&share_lock);
	return len;
}

static const struct kernel_param_ops share_ops = {
	.set = share_set,
	.get = share_get,
};

module_param_cb(shared_auth, &share_ops, NULL, 0644);
MODULE_PARM_DESC(shared_auth, "allow or deny a client a shared pool: \"allow NODE UUID\", \"deny NODE UUID\"; reads list what is allowed");

/**
 * backend_share_init() - take shared_auth writes for @store from now on
 * @store: the store
 */
void backend_share_init(struct tmem_store *store)
{
	mutex_lock(&share_lock);
	share_store = store;
	mutex_unlock(&share_lock);
}

/**
 * backend_share_exit() - stop; the store may go after this
 */
void backend_share_exit(void)
{
	mutex_lock(&share_lock);
	share_store = NULL;
	mutex_unlock(&share_lock);
}
