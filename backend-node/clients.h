/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clients.h - the memory server's view of its client nodes: when r2net
 * reports one down, its pools are freed after a grace period, and kept if
 * it comes back up within it.
 */
#ifndef RAMSTER_BACKEND_CLIENTS_H
#define RAMSTER_BACKEND_CLIENTS_H

#include <linux/types.h>

struct tmem_store;

/**
 * struct backend_clients_stats - the grace period's counters
 * @downs: client nodes reported down
 * @returns: of those, nodes back up within the grace period (pools kept)
 * @freed: nodes whose pools were freed when their grace period ran out
 * @pending: nodes down now whose grace period is running
 */
struct backend_clients_stats {
	u64 downs;
	u64 returns;
	u64 freed;
	u64 pending;
};

void backend_clients_init(struct tmem_store *store);
void backend_clients_exit(void);
void backend_clients_stats(struct backend_clients_stats *st);

#endif /* RAMSTER_BACKEND_CLIENTS_H */
