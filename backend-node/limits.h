/* SPDX-License-Identifier: GPL-2.0 */
/*
 * limits.h - the memory server's capacity: module parameters that set the
 * store's limits at load and at run time, and a shrinker that evicts
 * ephemeral pages under memory pressure.
 */
#ifndef RAMSTER_BACKEND_LIMITS_H
#define RAMSTER_BACKEND_LIMITS_H

struct tmem_store;

void backend_limits_init(struct tmem_store *store);
void backend_limits_exit(void);

int backend_shrinker_init(struct tmem_store *store);
void backend_shrinker_exit(void);

#endif /* RAMSTER_BACKEND_LIMITS_H */
