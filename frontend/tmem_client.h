/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tmem_client.h - requests to a memory server's tmem handlers, for
 * frontswap (swap.c) and cleancache (cleancache.c): tmem_client.c.
 *
 * in_flight: the counter a synchronous request is in while it waits for
 * its reply (swap's remote_in_flight), or NULL for none (cleancache).
 */
#ifndef RAMSTER_FRONTEND_TMEM_CLIENT_H
#define RAMSTER_FRONTEND_TMEM_CLIENT_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/uuid.h>

#include "r2net.h"

#define RF_KEY		0	/* the memory server's handlers */
/* The longest reply to a GET of one page: a zpage of a whole page. */
#define RF_REPLY_MAX	R2NET_ZPAGE_MSG_MAX

struct rf_rtt;
struct rf_pf_entry;

/* For each entry rf_tmem_fetch() was given: see there. */
typedef void (*rf_fetch_done_fn)(struct rf_pf_entry *e, int err, int got);

extern struct mutex rf_tmem_repair_mutex;

int rf_tmem_new_pool(u8 node, bool persist, const uuid_t *uuid,
		     atomic64_t *in_flight);
int rf_tmem_destroy_pool(u8 node, int pool, atomic64_t *in_flight);
int rf_tmem_pool_exists(u8 node, const struct tmem_handle *probe,
			atomic64_t *in_flight);
int rf_tmem_sync(u8 node, u16 msg, const struct tmem_handle *h,
		 struct r2net_reply *reply, atomic64_t *in_flight,
		 unsigned int timeout_ms);
int rf_tmem_async(u8 node, u16 msg, const struct tmem_handle *h,
		  r2net_done_fn done, void *arg);
int rf_tmem_get_result(s32 status, u32 len);
int rf_tmem_put_statuses(int err, s32 status, const void *data, u32 len,
			 unsigned int n, s32 *st);
int rf_tmem_fetch(u8 node, struct rf_pf_entry **e, unsigned int n,
		  rf_fetch_done_fn done);
void rf_rtt_add(struct rf_rtt *rtt, ktime_t t0);
bool rf_memory_low(void);

#endif /* RAMSTER_FRONTEND_TMEM_CLIENT_H */
