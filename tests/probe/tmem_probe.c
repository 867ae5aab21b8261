// SPDX-License-Identifier: GPL-2.0
/*
 * tmem_probe: a test backend for the frontswap and cleancache hooks.
 *
 * It registers with both, keeps a plain copy of every page it accepts and
 * counts every call that reaches it, so guest tests can show which hooks
 * fire and that the data that comes back is the data that went in.  It
 * can also be told to lose pages, to show what the kernel does then.
 *
 * Counters and knobs live in /sys/kernel/debug/tmem_probe/.  Loaded with
 * cleancache, the module stays for good: cleancache keeps its backend.
 * With frontswap alone it can be unloaded once frontswap let it go
 * (unregister), so that one boot can load it again with other knobs.
 */
#include <linux/cleancache.h>
#include <linux/debugfs.h>
#include <linux/frontswap.h>
#include <linux/hashtable.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/xarray.h>

static bool frontswap = true;
module_param(frontswap, bool, 0444);
MODULE_PARM_DESC(frontswap, "Register as the frontswap backend");

static bool cleancache = true;
module_param(cleancache, bool, 0444);
MODULE_PARM_DESC(cleancache, "Register as the cleancache backend");

static bool writethrough;
module_param(writethrough, bool, 0444);
MODULE_PARM_DESC(writethrough, "Ask frontswap to write accepted pages to the swap device too");

static unsigned int cc_max_pages = 16384;
module_param(cc_max_pages, uint, 0444);
MODULE_PARM_DESC(cc_max_pages, "Most clean pages held at once (older puts are refused beyond)");

static struct {
	atomic64_t fs_init;		/* frontswap ->init calls */
	atomic64_t fs_stores;		/* pages accepted */
	atomic64_t fs_store_fails;	/* pages refused (no memory) */
	atomic64_t fs_loads;		/* pages handed back */
	atomic64_t fs_load_misses;	/* loads of pages not held */
	atomic64_t fs_lost;		/* loads failed on purpose */
	atomic64_t fs_invalidate_page;	/* ->invalidate_page calls */
	atomic64_t fs_invalidate_area;	/* ->invalidate_area calls */
	atomic64_t fs_pages;		/* pages held now */
	atomic64_t fs_prefetches;	/* ->prefetch calls (patch 7) */
	atomic64_t fs_prefetch_pages;	/* offsets named in them */
	atomic64_t fs_prefetch_not_held; /* of those, not held here */
	atomic64_t fs_prefetch_loaded;	/* named, then loaded */
	atomic64_t cc_init_fs;		/* private pools created */
	atomic64_t cc_init_shared_fs;	/* shared pools created */
	atomic64_t cc_puts;		/* ->put_page calls */
	atomic64_t cc_put_refused;	/* puts not kept (full, no memory) */
	atomic64_t cc_gets;		/* ->get_page calls */
	atomic64_t cc_hits;		/* gets that filled the page */
	atomic64_t cc_invalidate_page;	/* ->invalidate_page calls */
	atomic64_t cc_invalidate_inode;	/* ->invalidate_inode calls */
	atomic64_t cc_invalidate_fs;	/* ->invalidate_fs calls */
	atomic64_t cc_pages;		/* clean pages held now */
} stats;

/* Loads still to fail on purpose; written through debugfs. */
static atomic_t lose_next_loads;

/* ---- frontswap: one xarray of page copies per swap type ---- */

static struct xarray fs_pages[MAX_SWAPFILES];

static void probe_fs_init(unsigned int type)
{
	atomic64_inc(&stats.fs_init);
}

static int probe_fs_store(unsigned int type, pgoff_t offset, struct page *page)
{
	struct page *copy = alloc_page(GFP_NOWAIT | __GFP_NOWARN);
	void *old;

	if (!copy) {
		atomic64_inc(&stats.fs_store_fails);
		return -ENOMEM;
	}
	copy_highpage(copy, page);
	old = xa_store(&fs_pages[type], offset, copy, GFP_NOWAIT | __GFP_NOWARN);
	if (xa_is_err(old)) {
		__free_page(copy);
		atomic64_inc(&stats.fs_store_fails);
		return xa_err(old);
	}
	if (old)
		__free_page(old);	/* frontswap invalidates first; be safe */
	else
		atomic64_inc(&stats.fs_pages);
	atomic64_inc(&stats.fs_stores);
	return 0;
}

static int probe_fs_load(unsigned int type, pgoff_t offset, struct page *page)
{
	struct page *copy;

	if (atomic_add_unless(&lose_next_loads, -1, 0)) {
		copy = xa_erase(&fs_pages[type], offset);
		if (copy) {
			__free_page(copy);
			atomic64_dec(&stats.fs_pages);
		}
		atomic64_inc(&stats.fs_lost);
		return -EIO;
	}
	copy = xa_load(&fs_pages[type], offset);
	if (!copy) {
		atomic64_inc(&stats.fs_load_misses);
		return -EIO;
	}
	if (xa_get_mark(&fs_pages[type], offset, XA_MARK_0)) {
		xa_clear_mark(&fs_pages[type], offset, XA_MARK_0);
		atomic64_inc(&stats.fs_prefetch_loaded);
	}
	copy_highpage(page, copy);
	atomic64_inc(&stats.fs_loads);
	return 0;
}

static void probe_fs_invalidate_page(unsigned int type, pgoff_t offset)
{
	struct page *copy = xa_erase(&fs_pages[type], offset);

	atomic64_inc(&stats.fs_invalidate_page);
	if (copy) {
		__free_page(copy);
		atomic64_dec(&stats.fs_pages);
	}
}

static void probe_fs_invalidate_area(unsigned int type)
{
	struct page *copy;
	unsigned long offset;

	atomic64_inc(&stats.fs_invalidate_area);
	xa_for_each(&fs_pages[type], offset, copy) {
		xa_erase(&fs_pages[type], offset);
		__free_page(copy);
		atomic64_dec(&stats.fs_pages);
	}
}

/*
 * Swap readahead's window (patch 7): every offset named must be one we
 * hold; each is marked, and a load that finds its mark counts it.
 */
static void probe_fs_prefetch(unsigned int type, const pgoff_t *offsets,
			      unsigned int nr)
{
	unsigned int i;

	atomic64_inc(&stats.fs_prefetches);
	for (i = 0; i < nr; i++) {
		atomic64_inc(&stats.fs_prefetch_pages);
		if (!xa_load(&fs_pages[type], offsets[i])) {
			atomic64_inc(&stats.fs_prefetch_not_held);
			continue;
		}
		xa_set_mark(&fs_pages[type], offsets[i], XA_MARK_0);
	}
}

static const struct frontswap_ops probe_frontswap_ops = {
	.init = probe_fs_init,
	.store = probe_fs_store,
	.load = probe_fs_load,
	.invalidate_page = probe_fs_invalidate_page,
	.invalidate_area = probe_fs_invalidate_area,
	.prefetch = probe_fs_prefetch,
};

/* ---- cleancache: files in a hash, each with an rbtree of page copies ---- */

struct cc_file {
	struct hlist_node node;
	int pool;
	struct cleancache_filekey key;
	struct rb_root pages;
};

struct cc_page {
	struct rb_node node;
	pgoff_t index;
	struct page *page;
};

static DEFINE_HASHTABLE(cc_hash, 10);
/* Taken with interrupts off: ->put_page runs under the i_pages lock. */
static DEFINE_SPINLOCK(cc_lock);
static atomic_t cc_next_pool;

static u32 cc_hashkey(int pool, const struct cleancache_filekey *key)
{
	return hash_64(key->ino ^ ((u64)key->generation << 32) ^ pool, 32);
}

static struct cc_file *cc_find_file(int pool,
				    const struct cleancache_filekey *key)
{
	struct cc_file *f;

	hash_for_each_possible(cc_hash, f, node, cc_hashkey(pool, key))
		if (f->pool == pool && f->key.ino == key->ino &&
		    f->key.generation == key->generation)
			return f;
	return NULL;
}

static struct cc_page *cc_find_page(struct cc_file *f, pgoff_t index)
{
	struct rb_node *n = f->pages.rb_node;

	while (n) {
		struct cc_page *p = rb_entry(n, struct cc_page, node);

		if (index < p->index)
			n = n->rb_left;
		else if (index > p->index)
			n = n->rb_right;
		else
			return p;
	}
	return NULL;
}

static void cc_insert_page(struct cc_file *f, struct cc_page *new)
{
	struct rb_node **link = &f->pages.rb_node, *parent = NULL;

	while (*link) {
		struct cc_page *p = rb_entry(*link, struct cc_page, node);

		parent = *link;
		link = new->index < p->index ? &parent->rb_left :
					       &parent->rb_right;
	}
	rb_link_node(&new->node, parent, link);
	rb_insert_color(&new->node, &f->pages);
}

static void cc_free_page(struct cc_file *f, struct cc_page *p)
{
	rb_erase(&p->node, &f->pages);
	__free_page(p->page);
	kfree(p);
	atomic64_dec(&stats.cc_pages);
}

static void cc_free_file(struct cc_file *f)
{
	struct cc_page *p, *tmp;

	rbtree_postorder_for_each_entry_safe(p, tmp, &f->pages, node) {
		__free_page(p->page);
		kfree(p);
		atomic64_dec(&stats.cc_pages);
	}
	hash_del(&f->node);
	kfree(f);
}

/* Drops the file's entry once its last page is gone. */
static void cc_put_file(struct cc_file *f)
{
	if (RB_EMPTY_ROOT(&f->pages))
		cc_free_file(f);
}

static int probe_cc_init_fs(size_t pagesize)
{
	atomic64_inc(&stats.cc_init_fs);
	return atomic_inc_return(&cc_next_pool);
}

static int probe_cc_init_shared_fs(uuid_t *uuid, size_t pagesize)
{
	atomic64_inc(&stats.cc_init_shared_fs);
	return atomic_inc_return(&cc_next_pool);
}

static int probe_cc_get_page(int pool, const struct cleancache_filekey *key,
			     pgoff_t index, struct page *page)
{
	struct cc_file *f;
	struct cc_page *p = NULL;
	unsigned long flags;

	atomic64_inc(&stats.cc_gets);
	spin_lock_irqsave(&cc_lock, flags);
	f = cc_find_file(pool, key);
	if (f)
		p = cc_find_page(f, index);
	if (p) {
		/* Private ephemeral pools hand a page back only once. */
		copy_highpage(page, p->page);
		cc_free_page(f, p);
		cc_put_file(f);
	}
	spin_unlock_irqrestore(&cc_lock, flags);
	if (!p)
		return -ENOENT;
	atomic64_inc(&stats.cc_hits);
	return 0;
}

static void probe_cc_put_page(int pool, const struct cleancache_filekey *key,
			      pgoff_t index, struct page *page)
{
	struct cc_file *f, *newf;
	struct cc_page *p, *old;
	unsigned long flags;

	atomic64_inc(&stats.cc_puts);
	p = kmalloc(sizeof(*p), GFP_ATOMIC | __GFP_NOWARN);
	newf = kmalloc(sizeof(*newf), GFP_ATOMIC | __GFP_NOWARN);
	if (!p || !newf)
		goto refused;
	p->page = alloc_page(GFP_ATOMIC | __GFP_NOWARN);
	if (!p->page)
		goto refused;
	copy_highpage(p->page, page);
	p->index = index;

	spin_lock_irqsave(&cc_lock, flags);
	f = cc_find_file(pool, key);
	if (!f) {
		f = newf;
		newf = NULL;
		f->pool = pool;
		f->key = *key;
		f->pages = RB_ROOT;
		hash_add(cc_hash, &f->node, cc_hashkey(pool, key));
	}
	/* A duplicate put replaces the old data, never keeps it. */
	old = cc_find_page(f, index);
	if (old)
		cc_free_page(f, old);
	if (atomic64_read(&stats.cc_pages) >= cc_max_pages) {
		cc_put_file(f);
		spin_unlock_irqrestore(&cc_lock, flags);
		__free_page(p->page);
		goto refused;
	}
	cc_insert_page(f, p);
	atomic64_inc(&stats.cc_pages);
	spin_unlock_irqrestore(&cc_lock, flags);
	kfree(newf);
	return;
refused:
	kfree(p);
	kfree(newf);
	atomic64_inc(&stats.cc_put_refused);
}

static void probe_cc_invalidate_page(int pool,
				     const struct cleancache_filekey *key,
				     pgoff_t index)
{
	struct cc_file *f;
	struct cc_page *p;
	unsigned long flags;

	atomic64_inc(&stats.cc_invalidate_page);
	spin_lock_irqsave(&cc_lock, flags);
	f = cc_find_file(pool, key);
	if (f) {
		p = cc_find_page(f, index);
		if (p)
			cc_free_page(f, p);
		cc_put_file(f);
	}
	spin_unlock_irqrestore(&cc_lock, flags);
}

static void probe_cc_invalidate_inode(int pool,
				      const struct cleancache_filekey *key)
{
	struct cc_file *f;
	unsigned long flags;

	atomic64_inc(&stats.cc_invalidate_inode);
	spin_lock_irqsave(&cc_lock, flags);
	f = cc_find_file(pool, key);
	if (f)
		cc_free_file(f);
	spin_unlock_irqrestore(&cc_lock, flags);
}

static void probe_cc_invalidate_fs(int pool)
{
	struct cc_file *f;
	struct hlist_node *tmp;
	unsigned long flags;
	int bkt;

	atomic64_inc(&stats.cc_invalidate_fs);
	spin_lock_irqsave(&cc_lock, flags);
	hash_for_each_safe(cc_hash, bkt, tmp, f, node)
		if (f->pool == pool)
			cc_free_file(f);
	spin_unlock_irqrestore(&cc_lock, flags);
}

static const struct cleancache_ops probe_cleancache_ops = {
	.owner = THIS_MODULE,
	.init_fs = probe_cc_init_fs,
	.init_shared_fs = probe_cc_init_shared_fs,
	.get_page = probe_cc_get_page,
	.put_page = probe_cc_put_page,
	.invalidate_page = probe_cc_invalidate_page,
	.invalidate_inode = probe_cc_invalidate_inode,
	.invalidate_fs = probe_cc_invalidate_fs,
};

/* ---- debugfs ---- */

static struct dentry *probe_dir;

/*
 * Writing anything asks frontswap to let the probe go; reads the result.
 * While frontswap has the probe, it holds a reference to the module.
 */
static int unregister_result = 1;
static bool fs_registered;
static DEFINE_MUTEX(unregister_lock);

static int unregister_set(void *data, u64 val)
{
	mutex_lock(&unregister_lock);
	unregister_result = frontswap_unregister_ops(&probe_frontswap_ops);
	pr_info("frontswap_unregister_ops: %d\n", unregister_result);
	if (!unregister_result && fs_registered) {
		fs_registered = false;
		module_put(THIS_MODULE);
	}
	mutex_unlock(&unregister_lock);
	return 0;
}

static int unregister_get(void *data, u64 *val)
{
	*val = (u64)(s64)unregister_result;
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(unregister_fops, unregister_get, unregister_set,
			 "%lld\n");

/* Writing anything triggers a kernel warning: the harness must notice. */
static int warn_set(void *data, u64 val)
{
	WARN(1, "tmem_probe: warning on request\n");
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(warn_fops, NULL, warn_set, "%llu\n");

static int counter_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(counter_fops, counter_get, NULL, "%lld\n");

static void probe_debugfs_init(void)
{
	static const struct {
		const char *name;
		atomic64_t *v;
	} counters[] = {
		{ "fs_init", &stats.fs_init },
		{ "fs_stores", &stats.fs_stores },
		{ "fs_store_fails", &stats.fs_store_fails },
		{ "fs_loads", &stats.fs_loads },
		{ "fs_load_misses", &stats.fs_load_misses },
		{ "fs_lost", &stats.fs_lost },
		{ "fs_invalidate_page", &stats.fs_invalidate_page },
		{ "fs_invalidate_area", &stats.fs_invalidate_area },
		{ "fs_pages", &stats.fs_pages },
		{ "fs_prefetches", &stats.fs_prefetches },
		{ "fs_prefetch_pages", &stats.fs_prefetch_pages },
		{ "fs_prefetch_not_held", &stats.fs_prefetch_not_held },
		{ "fs_prefetch_loaded", &stats.fs_prefetch_loaded },
		{ "cc_init_fs", &stats.cc_init_fs },
		{ "cc_init_shared_fs", &stats.cc_init_shared_fs },
		{ "cc_puts", &stats.cc_puts },
		{ "cc_put_refused", &stats.cc_put_refused },
		{ "cc_gets", &stats.cc_gets },
		{ "cc_hits", &stats.cc_hits },
		{ "cc_invalidate_page", &stats.cc_invalidate_page },
		{ "cc_invalidate_inode", &stats.cc_invalidate_inode },
		{ "cc_invalidate_fs", &stats.cc_invalidate_fs },
		{ "cc_pages", &stats.cc_pages },
	};
	int i;

	probe_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		debugfs_create_file_unsafe(counters[i].name, 0444, probe_dir,
					   counters[i].v, &counter_fops);
	debugfs_create_atomic_t("lose_next_loads", 0644, probe_dir,
				&lose_next_loads);
	debugfs_create_file_unsafe("unregister", 0644, probe_dir, NULL,
				   &unregister_fops);
	debugfs_create_file_unsafe("warn", 0200, probe_dir, NULL, &warn_fops);
}

static int __init tmem_probe_init(void)
{
	int i, ret;

	for (i = 0; i < MAX_SWAPFILES; i++)
		xa_init(&fs_pages[i]);

	if (frontswap) {
		if (writethrough) {
			ret = frontswap_writethrough(true);
			if (ret) {
				pr_err("writethrough: %d\n", ret);
				return ret;
			}
		}
		ret = frontswap_register_ops(&probe_frontswap_ops);
		if (ret) {
			pr_err("frontswap backend slot taken (zswap enabled?): %d\n",
			       ret);
			goto err_writethrough;
		}
		fs_registered = true;
		__module_get(THIS_MODULE);
	}
	if (cleancache) {
		ret = cleancache_register_ops(&probe_cleancache_ops);
		if (ret) {
			pr_err("cleancache backend slot taken: %d\n", ret);
			goto err_frontswap;
		}
	}
	probe_debugfs_init();
	pr_info("registered: frontswap %d (writethrough %d), cleancache %d\n",
		frontswap, writethrough, cleancache);
	return 0;

err_frontswap:
	if (frontswap) {
		frontswap_unregister_ops(&probe_frontswap_ops);
		fs_registered = false;
		module_put(THIS_MODULE);
	}
err_writethrough:
	if (frontswap && writethrough)
		frontswap_writethrough(false);
	return ret;
}
module_init(tmem_probe_init);

/* Only once frontswap let the probe go, and never with cleancache. */
static void __exit tmem_probe_exit(void)
{
	struct page *copy;
	unsigned long offset;
	int i;

	debugfs_remove_recursive(probe_dir);
	if (frontswap && writethrough)
		frontswap_writethrough(false);
	for (i = 0; i < MAX_SWAPFILES; i++) {
		xa_for_each(&fs_pages[i], offset, copy)
			__free_page(copy);
		xa_destroy(&fs_pages[i]);
	}
	pr_info("unloaded\n");
}
module_exit(tmem_probe_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test backend counting frontswap and cleancache calls");
