/* SPDX-License-Identifier: GPL-2.0 */
/*
 * server.h - the memory server's r2net handlers: every tmem operation a
 * client node sends (shared-abi/r2net_wire.h) runs on the store, and its
 * result goes back as the reply's status.
 *
 * The sender's node number is the client the store acts for, so a client
 * names only its own pools.  A payload that does not decode (wrong length,
 * a reserved field set, a private pool with a uuid, a zpage of an unknown
 * encoding or whose length does not match it) or names a pool id of
 * TMEM_MAX_POOLS_PER_CLIENT or more is answered -TMEM_EINVAL without
 * reaching the store.  PUT_ZPAGE and GET_ZPAGE count as puts and gets, and
 * so does each page of a PUT_ZPAGES or GET_ZPAGES batch.
 */
#ifndef RAMSTER_BACKEND_SERVER_H
#define RAMSTER_BACKEND_SERVER_H

#include <linux/types.h>

struct tmem_store;

/* The handlers' key for every tmem type. */
#define BACKEND_SERVER_KEY	0

/* Requests by operation. */
enum backend_server_op {
	BACKEND_SERVER_NEW_POOL,
	BACKEND_SERVER_DESTROY_POOL,
	BACKEND_SERVER_PUT,		/* PUT_PAGE and PUT_ZPAGE */
	BACKEND_SERVER_GET,		/* GET_PAGE and GET_ZPAGE */
	BACKEND_SERVER_FLUSH_PAGE,
	BACKEND_SERVER_FLUSH_OBJECT,
	BACKEND_SERVER_NR_OPS,
};

/* Requests answered with an error, by reason. */
enum backend_server_err {
	BACKEND_SERVER_BAD_LENGTH,	/* payload length wrong for the op */
	BACKEND_SERVER_BAD_PAYLOAD,	/* reserved field set, private uuid */
	BACKEND_SERVER_BAD_POOL_ID,	/* pool id out of range */
	BACKEND_SERVER_EPERM,		/* the store: -TMEM_EPERM */
	BACKEND_SERVER_ENOMEM,		/* the store: -TMEM_ENOMEM */
	BACKEND_SERVER_ENODEV,		/* the store: -TMEM_ENODEV */
	BACKEND_SERVER_OTHER,		/* the store: any other error */
	BACKEND_SERVER_NR_ERRS,
};

/**
 * struct backend_server_stats - a snapshot of the handlers' counters
 * @requests: requests received, by enum backend_server_op
 * @errors: requests answered with a negative status, by enum
 *	backend_server_err
 * @get_hits: gets answered with a page
 * @get_misses: gets answered "not found"
 * @zpage_puts: of the puts, PUT_ZPAGEs
 * @zpage_gets: of the gets, GET_ZPAGEs
 * @zpage_bytes_in: data bytes of the zpages put (the headers not counted)
 * @zpage_bytes_out: data bytes of the zpages sent back
 * @batch_puts: PUT_ZPAGES frames (their pages counted as PUT_ZPAGEs)
 * @batch_gets: GET_ZPAGES frames (their pages counted as GET_ZPAGEs)
 */
struct backend_server_stats {
	u64 requests[BACKEND_SERVER_NR_OPS];
	u64 errors[BACKEND_SERVER_NR_ERRS];
	u64 get_hits;
	u64 get_misses;
	u64 zpage_puts;
	u64 zpage_gets;
	u64 zpage_bytes_in;
	u64 zpage_bytes_out;
	u64 batch_puts;
	u64 batch_gets;
};

int backend_server_init(struct tmem_store *store);
void backend_server_exit(void);
void backend_server_stats(struct backend_server_stats *st);
const char *backend_server_op_name(enum backend_server_op op);
const char *backend_server_err_name(enum backend_server_err err);

#endif /* RAMSTER_BACKEND_SERVER_H */
