/* SPDX-License-Identifier: GPL-2.0 */
/*
 * share.h - the shared_auth parameter: which client node may join which
 * shared pool (share.c).
 */
#ifndef RAMSTER_BACKEND_SHARE_H
#define RAMSTER_BACKEND_SHARE_H

struct tmem_store;

void backend_share_init(struct tmem_store *store);
void backend_share_exit(void);

#endif
