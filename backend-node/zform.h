/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zform.h - a page's form in the store (enum tmem_zenc) and on the wire
 * (R2NET_ZPAGE_*): for the server's handlers (server.c) and the
 * frontend's local tier (frontend/local.c), which sends pages on as the
 * store keeps them.
 */
#ifndef RAMSTER_BACKEND_ZFORM_H
#define RAMSTER_BACKEND_ZFORM_H

#include "r2net_wire.h"
#include "tmem.h"

/* The wire's encoding of a stored form; R2NET_ZPAGE_NONE for none. */
static inline u8 tmem_zenc_to_wire(enum tmem_zenc enc)
{
	switch (enc) {
	case TMEM_ZENC_SAME:
		return R2NET_ZPAGE_SAME;
	case TMEM_ZENC_LZO:
		return R2NET_ZPAGE_LZO;
	case TMEM_ZENC_RAW:
		return R2NET_ZPAGE_RAW;
	default:
		return R2NET_ZPAGE_NONE;
	}
}

/* A wire encoding as the store's form; false for none. */
static inline bool tmem_zenc_from_wire(u8 enc, enum tmem_zenc *zenc)
{
	switch (enc) {
	case R2NET_ZPAGE_SAME:
		*zenc = TMEM_ZENC_SAME;
		return true;
	case R2NET_ZPAGE_LZO:
		*zenc = TMEM_ZENC_LZO;
		return true;
	case R2NET_ZPAGE_RAW:
		*zenc = TMEM_ZENC_RAW;
		return true;
	}
	return false;
}

#endif /* RAMSTER_BACKEND_ZFORM_H */
