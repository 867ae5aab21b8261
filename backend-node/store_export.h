/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store_export.h - who exports the store (tmem.c, zcache.c, xvmalloc.c).
 *
 * ramster_backend exports them, for tests/zbench.  The frontend builds the
 * same three files into itself for its local tier (frontend/store_*.c)
 * and defines RAMSTER_STORE_PRIVATE: there EXPORT_SYMBOL_GPL() exports
 * nothing, so a node that loads both modules has one owner of each
 * symbol; and the slab caches get names of their own.  Included after
 * every other header of those files.
 */
#ifndef RAMSTER_BACKEND_STORE_EXPORT_H
#define RAMSTER_BACKEND_STORE_EXPORT_H

#include <linux/export.h>

#ifdef RAMSTER_STORE_PRIVATE
#undef EXPORT_SYMBOL_GPL
#define EXPORT_SYMBOL_GPL(sym)
#define RAMSTER_STORE_PREFIX		"ramster_local_"
#else
#define RAMSTER_STORE_PREFIX		"ramster_"
#endif

#endif /* RAMSTER_BACKEND_STORE_EXPORT_H */
