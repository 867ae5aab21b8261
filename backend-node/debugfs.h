/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs.h - the memory server's counters in debugfs, under
 * /sys/kernel/debug/ramster_backend/.
 */
#ifndef RAMSTER_BACKEND_DEBUGFS_H
#define RAMSTER_BACKEND_DEBUGFS_H

struct tmem_store;
struct zcache;

void backend_debugfs_init(struct tmem_store *store, struct zcache *zc);
void backend_debugfs_exit(void);

#endif /* RAMSTER_BACKEND_DEBUGFS_H */
