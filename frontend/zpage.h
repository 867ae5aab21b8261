/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zpage.h - pages compressed once on the client, sent and kept so on the
 * memory server (zpage.c).
 */
#ifndef RAMSTER_FRONTEND_ZPAGE_H
#define RAMSTER_FRONTEND_ZPAGE_H

#include "r2net.h"

/* A page packed for PUTs: rf_zput_prepare(), send, rf_zput_release(). */
struct rf_zput {
	struct r2net_tmem_zpage_le	w;	/* the frame's head */
	struct r2net_zpage		z;
	struct page			*page;
	u8				*buf;	/* the LZO stream */
};

int rf_zput_prepare(struct rf_zput *p, struct page *page, bool whole_ok);
void rf_zput_release(struct rf_zput *p);
int rf_zput_send_async(struct rf_zput *p, u8 node,
		       const struct tmem_handle *h, unsigned int timeout_ms,
		       r2net_done_fn done, void *arg);
int rf_zput_send_sync(struct rf_zput *p, u8 node,
		      const struct tmem_handle *h, struct r2net_reply *reply,
		      unsigned int timeout_ms);

void rf_zpage_pack(struct page *page, u8 *buf, struct r2net_zpage *z);
u16 rf_zpage_get_msg(void);
int rf_zpage_fill(const struct tmem_handle *got, const struct r2net_zpage *z,
		  const u8 *src, const struct tmem_handle *want,
		  struct page *page);
int rf_zpage_unpack(const void *data, u32 len, const struct tmem_handle *want,
		    struct page *page);
bool rf_zpage_on(void);
int rf_zpage_init(void);
void rf_zpage_exit(void);

#endif /* RAMSTER_FRONTEND_ZPAGE_H */
