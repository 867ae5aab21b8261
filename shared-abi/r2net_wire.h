/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * r2net_wire.h - the r2net wire format between RAMster nodes.
 *
 * r2net is one TCP connection per pair of nodes (default port 7777) that
 * carries frames.  A frame is a 32-byte header followed by hdr.len payload
 * bytes.  Every field is fixed width and little endian; no struct has
 * padding (the sizes and offsets are asserted below).
 *
 * struct r2net_hdr (32 bytes)
 *	magic	   R2NET_MAGIC
 *	version	   R2NET_PROTOCOL_VERSION
 *	type	   enum r2net_msg_type, or a user type
 *	flags	   R2NET_F_REPLY on a reply to a request, else 0
 *	len	   payload bytes after the header, at most R2NET_MAX_PAYLOAD
 *	status	   s32: 0 in a request; in a reply the handler's result (for
 *		   tmem, >= 0 or minus an enum tmem_errno)
 *	key	   with type, names the handler a request is for; 0 on the
 *		   system messages (handshake and keepalives)
 *	sys_status enum r2net_sys_status: 0 in a request; in a reply whether
 *		   the handler ran at all
 *	req_id	   chosen by the requester, echoed by the reply, so that many
 *		   requests can be in flight on one connection
 *
 * Every request (a tmem or user type without R2NET_F_REPLY) gets exactly
 * one reply: the same type, key and req_id, R2NET_F_REPLY set.
 *
 * Messages (payload; len):
 *
 * R2NET_MSG_HANDSHAKE: struct r2net_handshake_le; 104.  The first frame each
 *	side sends after connecting.  protocol_version, the cluster name
 *	(1..16 printable bytes, NUL padded), sender and receiver node numbers
 *	(0..R2NET_MAX_NODE) and the three timeouts must all match what the
 *	receiver expects, else it closes the connection.  keepalive_delay_ms
 *	must be below idle_timeout_ms; all three are non-zero.  security
 *	(enum r2net_security) must match too.  nonce is 32 fresh random
 *	bytes; mac proves that the sender holds the cluster key (below).
 * R2NET_MSG_AUTH: the MAC; 32.  The connecting side's last handshake frame.
 *
 * The handshake proves that both ends hold the cluster key K (32 bytes,
 * the same on every node; never sent).  MAC(label, x) is keyed BLAKE2s-256
 * under K of the label's bytes (no NUL) followed by x.  Let m1 be the
 * connecting side's handshake payload and m2 the accepting side's, each of
 * R2NET_HANDSHAKE_LEN bytes, and head(m) their first R2NET_HS_SIGNED_LEN
 * bytes (all but the mac):
 *
 *	m1.mac = MAC("r2net hs1", head(m1))
 *	m2.mac = MAC("r2net hs2", m1 || head(m2))
 *	AUTH   = MAC("r2net hs3", m1 || m2)
 *
 * The acceptor answers m1 only if its mac is right, and takes the
 * connection as up only on an AUTH that is right; the connector checks
 * m2.mac before it sends AUTH.  Each side's MAC covers the other's fresh
 * nonce, so a recorded handshake played again fails, and both node
 * numbers, so it cannot be moved to another pair of nodes.  Any failure
 * closes the connection.
 *
 * Every other frame is followed by a 16-byte tag (not counted in hdr.len):
 * Poly1305 of its header and payload under the one-time key
 * BLAKE2s-256 keyed with the direction's key, of the frame's number n on
 * the connection in that direction (le64; the first frame after the
 * handshake is 0).  The direction's keys:
 *
 *	connector to acceptor:	MAC("r2net key c2a", m1 || m2)
 *	acceptor to connector:	MAC("r2net key a2c", m1 || m2)
 *
 * A frame with a wrong tag closes the connection.  With security
 * R2NET_SEC_NONE frames carry no tag (for measuring what tags cost); with
 * R2NET_SEC_ENCRYPT the payload is encrypted with ChaCha20 before it is
 * tagged: the key is MAC("r2net enc c2a", m1 || m2) or "r2net enc a2c",
 * the 96-bit nonce the frame's number (le64) and four zero bytes, the
 * block counter starting at 0.  The header stays clear.
 * R2NET_MSG_KEEPALIVE_REQ: none; 0.  Sent after keepalive_delay_ms without
 *	traffic.  The peer answers at once with:
 * R2NET_MSG_KEEPALIVE_RESP: none; 0.  Same req_id as the request.  A node
 *	that receives nothing for idle_timeout_ms closes the connection and
 *	retries after reconnect_delay_ms.
 *
 * User messages: types R2NET_MSG_USER_FIRST..R2NET_MSG_USER_LAST, any payload
 *	of at most R2NET_MAX_PAYLOAD bytes each way; the handler registered for
 *	(type, key) checks it.
 *
 * tmem requests, from a client to a memory server.  The type is
 * R2NET_MSG_TMEM_BASE + enum tmem_op, the key names the backend's handler
 * (0 unless a node runs several), and the payload lengths
 * are fixed; the result of the operation is the reply's status.
 *
 * R2NET_MSG_TMEM_NEW_POOL: struct r2net_tmem_new_pool_le; 24.  uuid is
 *	{0, 0} for a private pool; flags as TMEM_POOL_*.  Reply: no payload;
 *	status is the new pool id (0..TMEM_POOL_ID_MAX, never one the client
 *	held before: tmem_abi.h), or -TMEM_EPERM / -TMEM_ENOMEM.
 * R2NET_MSG_TMEM_DESTROY_POOL: struct r2net_tmem_pool_le; 8.  Reply: no
 *	payload; status 1, or 0 if there was no such pool.
 * R2NET_MSG_TMEM_PUT_PAGE: struct r2net_tmem_page_le; 4128: the handle and
 *	the whole uncompressed 4 KiB page.  Reply: no payload; status 1, or
 *	-TMEM_ENOMEM / -TMEM_EFROZEN / -TMEM_ENODEV.
 * R2NET_MSG_TMEM_GET_PAGE: struct tmem_handle_le; 32.  Reply: status 1 with
 *	struct r2net_tmem_page_le (4128) holding the page, or status 0 (not
 *	found) or < 0 with no payload.
 * R2NET_MSG_TMEM_FLUSH_PAGE: struct tmem_handle_le; 32.  Reply: no payload,
 *	status 1 or < 0.
 * R2NET_MSG_TMEM_FLUSH_OBJECT: struct tmem_handle_le; 32, index ignored.
 *	Reply: no payload, status 1 or < 0.
 *
 * Compressed pages (zpages).  A page travels as one of three encodings,
 * in struct r2net_tmem_zpage_le (the handle, enc, arg; 40) followed by
 * its data bytes:
 *	R2NET_ZPAGE_SAME  every 32-bit word of the page is arg; no data
 *	R2NET_ZPAGE_LZO   arg bytes of LZO1X stream, 1..R2NET_ZPAGE_LZO_MAX,
 *			  that decompress to exactly one page
 *	R2NET_ZPAGE_RAW   arg is TMEM_PAGE_SIZE: the page itself
 * The length checks are r2net_tmem_zpage_decode()'s; whether an LZO stream
 * decompresses is known only to whoever decompresses it, and a memory
 * server never does: it keeps the bytes as given and sends them back.
 *
 * R2NET_MSG_TMEM_PUT_ZPAGE: a zpage; 40..4136.  Reply: as PUT_PAGE.
 * R2NET_MSG_TMEM_GET_ZPAGE: struct tmem_handle_le; 32.  Reply: status 1
 *	with the page as a zpage (40..4136) in the encoding the server keeps
 *	it, or status 0 or < 0 with no payload.
 *
 * Batches: 1..R2NET_BATCH_MAX pages in one frame, each handled as its
 * own message would be, in order.  A batch starts with struct
 * r2net_tmem_batch_le (count; 8).  A batch of zpages is the batch header,
 * then every page's zpage header, then every page's data bytes, in the
 * same order and without padding.
 *
 * R2NET_MSG_TMEM_PUT_ZPAGES: a batch of zpages; 48..66184.  Reply: status
 *	count with count __le32 statuses (each as PUT_ZPAGE's), or < 0 with
 *	no payload when the server took none of them (a malformed batch).
 * R2NET_MSG_TMEM_GET_ZPAGES: the batch header then count handles;
 *	40..520.  Reply: status count with a batch of count zpages, one for
 *	each handle in order; a page not returned has encoding
 *	R2NET_ZPAGE_NONE, no data, and its status (0 or < 0) as arg.  Or
 *	status < 0 with no payload.
 *
 * Receivers check every header with r2net_hdr_check() and every payload
 * with its decoder before using it.  Anything rejected is counted under
 * r2net_reject_name() and closes the connection; nothing from the network
 * is trusted, and none of it reaches a BUG_ON().
 */
#ifndef RAMSTER_R2NET_WIRE_H
#define RAMSTER_R2NET_WIRE_H

#include "abi_types.h"
#include "tmem_abi.h"

#define R2NET_MAGIC			0x52a5
#define R2NET_PROTOCOL_VERSION		3
#define R2NET_DEFAULT_PORT		7777
#define R2NET_CLUSTER_NAME_LEN		16
#define R2NET_MAX_NODE			254	/* node numbers are 0..254 */
#define R2NET_KEY_LEN			32	/* the cluster key */
#define R2NET_NONCE_LEN			32
#define R2NET_MAC_LEN			32	/* keyed BLAKE2s-256 */
#define R2NET_TAG_LEN			16	/* Poly1305, after each frame */

/* o2net's defaults */
#define R2NET_IDLE_TIMEOUT_MS_DEFAULT	30000
#define R2NET_KEEPALIVE_DELAY_MS_DEFAULT 2000
#define R2NET_RECONNECT_DELAY_MS_DEFAULT 2000

/* What protects the frames after the handshake: the same on every node. */
enum r2net_security {
	R2NET_SEC_INTEGRITY = 0,	/* a tag on every frame (the default) */
	R2NET_SEC_NONE = 1,		/* no tag: for measuring what tags cost */
	R2NET_SEC_ENCRYPT = 2,		/* the payload encrypted, then tagged */
	R2NET_SEC_NR,
};

/* hdr.flags */
#define R2NET_F_REPLY			0x0001
#define R2NET_F_ALL			R2NET_F_REPLY

enum r2net_msg_type {
	R2NET_MSG_HANDSHAKE		= 1,
	R2NET_MSG_KEEPALIVE_REQ		= 2,
	R2NET_MSG_KEEPALIVE_RESP	= 3,
	R2NET_MSG_AUTH			= 4,
	R2NET_MSG_TMEM_BASE		= 0x100,
	R2NET_MSG_TMEM_NEW_POOL		= R2NET_MSG_TMEM_BASE + TMEM_NEW_POOL,
	R2NET_MSG_TMEM_DESTROY_POOL	= R2NET_MSG_TMEM_BASE + TMEM_DESTROY_POOL,
	R2NET_MSG_TMEM_PUT_PAGE		= R2NET_MSG_TMEM_BASE + TMEM_PUT_PAGE,
	R2NET_MSG_TMEM_GET_PAGE		= R2NET_MSG_TMEM_BASE + TMEM_GET_PAGE,
	R2NET_MSG_TMEM_FLUSH_PAGE	= R2NET_MSG_TMEM_BASE + TMEM_FLUSH_PAGE,
	R2NET_MSG_TMEM_FLUSH_OBJECT	= R2NET_MSG_TMEM_BASE + TMEM_FLUSH_OBJECT,
	/* The same operations on compressed pages. */
	R2NET_MSG_TMEM_ZPAGE_BASE	= 0x180,
	R2NET_MSG_TMEM_PUT_ZPAGE	= R2NET_MSG_TMEM_ZPAGE_BASE + TMEM_PUT_PAGE,
	R2NET_MSG_TMEM_GET_ZPAGE	= R2NET_MSG_TMEM_ZPAGE_BASE + TMEM_GET_PAGE,
	/* Batches of them. */
	R2NET_MSG_TMEM_BATCH_BASE	= 0x1c0,
	R2NET_MSG_TMEM_PUT_ZPAGES	= R2NET_MSG_TMEM_BATCH_BASE + TMEM_PUT_PAGE,
	R2NET_MSG_TMEM_GET_ZPAGES	= R2NET_MSG_TMEM_BATCH_BASE + TMEM_GET_PAGE,
	R2NET_MSG_USER_FIRST		= 0x1000,
	R2NET_MSG_USER_LAST		= 0x1fff,
};

/* hdr.sys_status of a reply: did the handler run? */
enum r2net_sys_status {
	R2NET_SYS_OK = 0,		/* status is the handler's */
	R2NET_SYS_NO_HANDLER,		/* nothing registered for (type, key) */
	R2NET_SYS_TOO_LONG,		/* longer than the handler takes */
	R2NET_SYS_NOMEM,		/* the receiver could not run it */
	R2NET_SYS_NR,
};

struct r2net_hdr {
	__le16 magic;
	__le16 version;
	__le16 type;
	__le16 flags;
	__le32 len;
	__le32 status;		/* s32 */
	__le32 key;
	__le32 sys_status;
	__le64 req_id;
};

struct r2net_handshake_le {
	__le32 protocol_version;
	__le16 sender_node;
	__le16 receiver_node;
	u8 cluster_name[R2NET_CLUSTER_NAME_LEN];
	__le32 idle_timeout_ms;
	__le32 keepalive_delay_ms;
	__le32 reconnect_delay_ms;
	__le32 security;	/* enum r2net_security */
	u8 nonce[R2NET_NONCE_LEN];
	u8 mac[R2NET_MAC_LEN];
};

struct r2net_tmem_new_pool_le {
	__le64 uuid[2];
	__le32 flags;
	__le32 reserved;	/* zero */
};

struct r2net_tmem_pool_le {
	__le32 pool_id;
	__le32 reserved;	/* zero */
};

struct r2net_tmem_page_le {
	struct tmem_handle_le handle;
	u8 data[TMEM_PAGE_SIZE];
};

/* zpage encodings */
#define R2NET_ZPAGE_NONE	0	/* in a GET_ZPAGES reply: arg is the status */
#define R2NET_ZPAGE_SAME	1
#define R2NET_ZPAGE_LZO		2
#define R2NET_ZPAGE_RAW		3
/* The longest LZO stream a zpage carries: shorter than the page. */
#define R2NET_ZPAGE_LZO_MAX	(TMEM_PAGE_SIZE - 1)

struct r2net_tmem_zpage_le {
	struct tmem_handle_le handle;
	u8 enc;			/* R2NET_ZPAGE_* */
	u8 reserved[3];		/* zero */
	__le32 arg;		/* SAME: the value; LZO, RAW: data bytes */
	/* then the data bytes */
};

/* The most pages in one batch. */
#define R2NET_BATCH_MAX		16

struct r2net_tmem_batch_le {
	__le32 count;		/* 1..R2NET_BATCH_MAX */
	__le32 reserved;	/* zero */
};

#define R2NET_HDR_LEN		32
#define R2NET_HANDSHAKE_LEN	104
/* The bytes of a handshake its mac covers: all but the mac. */
#define R2NET_HS_SIGNED_LEN	(R2NET_HANDSHAKE_LEN - R2NET_MAC_LEN)
#define R2NET_NEW_POOL_LEN	24
#define R2NET_POOL_LEN		8
#define R2NET_HANDLE_LEN	32
#define R2NET_PAGE_MSG_LEN	(R2NET_HANDLE_LEN + TMEM_PAGE_SIZE)
#define R2NET_ZPAGE_HDR_LEN	(R2NET_HANDLE_LEN + 8)
#define R2NET_ZPAGE_MSG_MAX	(R2NET_ZPAGE_HDR_LEN + TMEM_PAGE_SIZE)
#define R2NET_BATCH_HDR_LEN	8
#define R2NET_ZPAGES_MIN	(R2NET_BATCH_HDR_LEN + R2NET_ZPAGE_HDR_LEN)
#define R2NET_ZPAGES_MAX	(R2NET_BATCH_HDR_LEN + \
				 R2NET_BATCH_MAX * R2NET_ZPAGE_MSG_MAX)
#define R2NET_HANDLES_MAX	(R2NET_BATCH_HDR_LEN + \
				 R2NET_BATCH_MAX * R2NET_HANDLE_LEN)
/* The largest payload: a batch of whole pages, 66184. */
#define R2NET_MAX_PAYLOAD	R2NET_ZPAGES_MAX
#define R2NET_MAX_FRAME		(R2NET_HDR_LEN + R2NET_MAX_PAYLOAD)

static_assert(sizeof(struct r2net_hdr) == R2NET_HDR_LEN, "r2net_hdr size");
static_assert(offsetof(struct r2net_hdr, len) == 8, "r2net_hdr len");
static_assert(offsetof(struct r2net_hdr, key) == 16, "r2net_hdr key");
static_assert(offsetof(struct r2net_hdr, req_id) == 24, "r2net_hdr req_id");
static_assert(sizeof(struct r2net_handshake_le) == R2NET_HANDSHAKE_LEN,
	      "r2net_handshake_le size");
static_assert(offsetof(struct r2net_handshake_le, cluster_name) == 8,
	      "r2net_handshake_le cluster_name");
static_assert(offsetof(struct r2net_handshake_le, idle_timeout_ms) == 24,
	      "r2net_handshake_le idle_timeout_ms");
static_assert(offsetof(struct r2net_handshake_le, mac) == R2NET_HS_SIGNED_LEN,
	      "r2net_handshake_le mac");
static_assert(sizeof(struct r2net_tmem_new_pool_le) == R2NET_NEW_POOL_LEN,
	      "r2net_tmem_new_pool_le size");
static_assert(sizeof(struct r2net_tmem_pool_le) == R2NET_POOL_LEN,
	      "r2net_tmem_pool_le size");
static_assert(sizeof(struct tmem_handle_le) == R2NET_HANDLE_LEN,
	      "tmem_handle_le size");
static_assert(sizeof(struct r2net_tmem_page_le) == R2NET_PAGE_MSG_LEN,
	      "r2net_tmem_page_le size");
static_assert(offsetof(struct r2net_tmem_page_le, data) == R2NET_HANDLE_LEN,
	      "r2net_tmem_page_le data");
static_assert(sizeof(struct r2net_tmem_zpage_le) == R2NET_ZPAGE_HDR_LEN,
	      "r2net_tmem_zpage_le size");
static_assert(offsetof(struct r2net_tmem_zpage_le, enc) == R2NET_HANDLE_LEN,
	      "r2net_tmem_zpage_le enc");
static_assert(sizeof(struct r2net_tmem_batch_le) == R2NET_BATCH_HDR_LEN,
	      "r2net_tmem_batch_le size");
static_assert(R2NET_MAX_PAYLOAD == 66184, "r2net max payload");

/* Why a frame or payload was refused; names for the rejected_* counters. */
enum r2net_reject {
	R2NET_ACCEPT = 0,
	R2NET_REJECT_TRUNCATED,		/* fewer bytes than the frame needs */
	R2NET_REJECT_BAD_MAGIC,
	R2NET_REJECT_BAD_VERSION,	/* header or handshake version */
	R2NET_REJECT_BAD_TYPE,		/* unknown message type */
	R2NET_REJECT_BAD_FLAGS,		/* unknown flag, or REPLY on a system type */
	R2NET_REJECT_TOO_LONG,		/* len > R2NET_MAX_PAYLOAD */
	R2NET_REJECT_BAD_LENGTH,	/* len wrong for this type */
	R2NET_REJECT_BAD_STATUS,	/* status or sys_status wrong for the direction */
	R2NET_REJECT_BAD_KEY,		/* non-zero key on a system message */
	R2NET_REJECT_BAD_PAYLOAD,	/* a payload field out of range */
	R2NET_REJECT_NR,
};

static inline const char *r2net_reject_name(enum r2net_reject r)
{
	switch (r) {
	case R2NET_ACCEPT:
		return "accepted";
	case R2NET_REJECT_TRUNCATED:
		return "truncated";
	case R2NET_REJECT_BAD_MAGIC:
		return "bad_magic";
	case R2NET_REJECT_BAD_VERSION:
		return "bad_version";
	case R2NET_REJECT_BAD_TYPE:
		return "bad_type";
	case R2NET_REJECT_BAD_FLAGS:
		return "bad_flags";
	case R2NET_REJECT_TOO_LONG:
		return "too_long";
	case R2NET_REJECT_BAD_LENGTH:
		return "bad_length";
	case R2NET_REJECT_BAD_STATUS:
		return "bad_status";
	case R2NET_REJECT_BAD_KEY:
		return "bad_key";
	case R2NET_REJECT_BAD_PAYLOAD:
		return "bad_payload";
	case R2NET_REJECT_NR:
		break;
	}
	return "unknown";
}

/* A checked header in CPU byte order. */
struct r2net_msg {
	u16 type;
	u16 flags;
	u32 len;
	s32 status;
	u32 key;
	u32 sys_status;
	u64 req_id;
};

static inline void r2net_hdr_init(struct r2net_hdr *h, u16 type, u16 flags,
				  u32 len, u64 req_id, s32 status)
{
	h->key = 0;
	h->sys_status = 0;
	h->magic = cpu_to_le16(R2NET_MAGIC);
	h->version = cpu_to_le16(R2NET_PROTOCOL_VERSION);
	h->type = cpu_to_le16(type);
	h->flags = cpu_to_le16(flags);
	h->len = cpu_to_le32(len);
	h->status = cpu_to_le32((u32)status);
	h->req_id = cpu_to_le64(req_id);
}

/* The key, and in a reply the sys_status; r2net_hdr_init() zeroes both. */
static inline void r2net_hdr_set_key(struct r2net_hdr *h, u32 key,
				     u32 sys_status)
{
	h->key = cpu_to_le32(key);
	h->sys_status = cpu_to_le32(sys_status);
}

/* Is type a tmem message, and which enum tmem_op is it (else 0)? */
static inline unsigned int r2net_msg_tmem_op(unsigned int type)
{
	switch (type) {
	case R2NET_MSG_TMEM_NEW_POOL:
	case R2NET_MSG_TMEM_DESTROY_POOL:
	case R2NET_MSG_TMEM_PUT_PAGE:
	case R2NET_MSG_TMEM_GET_PAGE:
	case R2NET_MSG_TMEM_FLUSH_PAGE:
	case R2NET_MSG_TMEM_FLUSH_OBJECT:
		return type - R2NET_MSG_TMEM_BASE;
	case R2NET_MSG_TMEM_PUT_ZPAGE:
	case R2NET_MSG_TMEM_GET_ZPAGE:
		return type - R2NET_MSG_TMEM_ZPAGE_BASE;
	case R2NET_MSG_TMEM_PUT_ZPAGES:
	case R2NET_MSG_TMEM_GET_ZPAGES:
		return type - R2NET_MSG_TMEM_BATCH_BASE;
	}
	return 0;
}

static inline bool r2net_msg_type_user(unsigned int type)
{
	return type >= R2NET_MSG_USER_FIRST && type <= R2NET_MSG_USER_LAST;
}

/* Handshake and keepalives: no key, no reply flag, r2net's own. */
static inline bool r2net_msg_type_system(unsigned int type)
{
	return type == R2NET_MSG_HANDSHAKE || type == R2NET_MSG_AUTH ||
	       type == R2NET_MSG_KEEPALIVE_REQ ||
	       type == R2NET_MSG_KEEPALIVE_RESP;
}

/* Does a frame of this type carry a tag after its payload? */
static inline bool r2net_msg_tagged(unsigned int type)
{
	return type != R2NET_MSG_HANDSHAKE && type != R2NET_MSG_AUTH;
}

static inline bool r2net_msg_type_known(unsigned int type)
{
	return r2net_msg_type_system(type) || r2net_msg_tmem_op(type) != 0 ||
	       r2net_msg_type_user(type);
}

/* May a message of this type and direction carry len payload bytes? */
static inline bool r2net_msg_len_ok(unsigned int type, bool reply, u32 len)
{
	switch (type) {
	case R2NET_MSG_HANDSHAKE:
		return len == R2NET_HANDSHAKE_LEN;
	case R2NET_MSG_AUTH:
		return len == R2NET_MAC_LEN;
	case R2NET_MSG_KEEPALIVE_REQ:
	case R2NET_MSG_KEEPALIVE_RESP:
		return len == 0;
	case R2NET_MSG_TMEM_NEW_POOL:
		return len == (reply ? 0 : R2NET_NEW_POOL_LEN);
	case R2NET_MSG_TMEM_DESTROY_POOL:
		return len == (reply ? 0 : R2NET_POOL_LEN);
	case R2NET_MSG_TMEM_PUT_PAGE:
		return len == (reply ? 0 : R2NET_PAGE_MSG_LEN);
	case R2NET_MSG_TMEM_GET_PAGE:
		if (reply)
			return len == 0 || len == R2NET_PAGE_MSG_LEN;
		return len == R2NET_HANDLE_LEN;
	case R2NET_MSG_TMEM_FLUSH_PAGE:
	case R2NET_MSG_TMEM_FLUSH_OBJECT:
		return len == (reply ? 0 : R2NET_HANDLE_LEN);
	case R2NET_MSG_TMEM_PUT_ZPAGE:
		if (reply)
			return len == 0;
		return len >= R2NET_ZPAGE_HDR_LEN && len <= R2NET_ZPAGE_MSG_MAX;
	case R2NET_MSG_TMEM_GET_ZPAGE:
		if (reply)
			return len == 0 || (len >= R2NET_ZPAGE_HDR_LEN &&
					    len <= R2NET_ZPAGE_MSG_MAX);
		return len == R2NET_HANDLE_LEN;
	case R2NET_MSG_TMEM_PUT_ZPAGES:
		if (reply)
			return len % 4 == 0 && len <= 4 * R2NET_BATCH_MAX;
		return len >= R2NET_ZPAGES_MIN && len <= R2NET_ZPAGES_MAX;
	case R2NET_MSG_TMEM_GET_ZPAGES:
		if (reply)
			return len == 0 || (len >= R2NET_ZPAGES_MIN &&
					    len <= R2NET_ZPAGES_MAX);
		return len > R2NET_BATCH_HDR_LEN && len <= R2NET_HANDLES_MAX &&
		       (len - R2NET_BATCH_HDR_LEN) % R2NET_HANDLE_LEN == 0;
	}
	return r2net_msg_type_user(type) && len <= R2NET_MAX_PAYLOAD;
}

/**
 * r2net_hdr_check() - check a frame header before anything uses it
 * @h: the header; only @avail bytes from @h on are read
 * @avail: how many bytes of the frame (header and payload) are at @h
 * @msg: filled in with the header in CPU byte order when the result is
 *	R2NET_ACCEPT, or R2NET_REJECT_TRUNCATED with @avail >= R2NET_HDR_LEN
 *
 * Checks magic, version, type, flags, the length (at most
 * R2NET_MAX_PAYLOAD, and right for the type and direction), status and
 * sys_status (zero in requests; sys_status known in replies) and the key
 * (zero on system messages), in that order.  R2NET_REJECT_TRUNCATED comes only
 * after every other check has passed, so a stream reader that holds just
 * the header can call this with R2NET_HDR_LEN, and on TRUNCATED read
 * @msg->len more bytes.  Bytes after the frame (the next frame) are allowed.
 */
static inline enum r2net_reject r2net_hdr_check(const struct r2net_hdr *h,
						size_t avail,
						struct r2net_msg *msg)
{
	struct r2net_msg m;
	bool reply;

	if (avail < R2NET_HDR_LEN)
		return R2NET_REJECT_TRUNCATED;
	if (le16_to_cpu(h->magic) != R2NET_MAGIC)
		return R2NET_REJECT_BAD_MAGIC;
	if (le16_to_cpu(h->version) != R2NET_PROTOCOL_VERSION)
		return R2NET_REJECT_BAD_VERSION;
	m.type = le16_to_cpu(h->type);
	m.flags = le16_to_cpu(h->flags);
	m.len = le32_to_cpu(h->len);
	m.status = (s32)le32_to_cpu(h->status);
	m.key = le32_to_cpu(h->key);
	m.sys_status = le32_to_cpu(h->sys_status);
	m.req_id = le64_to_cpu(h->req_id);
	if (!r2net_msg_type_known(m.type))
		return R2NET_REJECT_BAD_TYPE;
	reply = m.flags & R2NET_F_REPLY;
	if (m.flags & ~R2NET_F_ALL)
		return R2NET_REJECT_BAD_FLAGS;
	if (reply && r2net_msg_type_system(m.type))
		return R2NET_REJECT_BAD_FLAGS;
	if (m.len > R2NET_MAX_PAYLOAD)
		return R2NET_REJECT_TOO_LONG;
	if (!r2net_msg_len_ok(m.type, reply, m.len))
		return R2NET_REJECT_BAD_LENGTH;
	if (!reply && (m.status != 0 || m.sys_status != 0))
		return R2NET_REJECT_BAD_STATUS;
	if (reply && m.sys_status >= R2NET_SYS_NR)
		return R2NET_REJECT_BAD_STATUS;
	if (m.key && r2net_msg_type_system(m.type))
		return R2NET_REJECT_BAD_KEY;
	*msg = m;
	if (avail - R2NET_HDR_LEN < m.len)
		return R2NET_REJECT_TRUNCATED;
	return R2NET_ACCEPT;
}

/* The handshake in CPU byte order; cluster_name is NUL-terminated. */
struct r2net_handshake {
	u32 protocol_version;
	u16 sender_node;
	u16 receiver_node;
	char cluster_name[R2NET_CLUSTER_NAME_LEN + 1];
	u32 idle_timeout_ms;
	u32 keepalive_delay_ms;
	u32 reconnect_delay_ms;
	u32 security;
	u8 nonce[R2NET_NONCE_LEN];
	u8 mac[R2NET_MAC_LEN];
};

static inline void r2net_handshake_encode(struct r2net_handshake_le *w,
					  const struct r2net_handshake *hs)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->protocol_version = cpu_to_le32(hs->protocol_version);
	w->sender_node = cpu_to_le16(hs->sender_node);
	w->receiver_node = cpu_to_le16(hs->receiver_node);
	for (i = 0; i < R2NET_CLUSTER_NAME_LEN && hs->cluster_name[i]; i++)
		w->cluster_name[i] = (u8)hs->cluster_name[i];
	w->idle_timeout_ms = cpu_to_le32(hs->idle_timeout_ms);
	w->keepalive_delay_ms = cpu_to_le32(hs->keepalive_delay_ms);
	w->reconnect_delay_ms = cpu_to_le32(hs->reconnect_delay_ms);
	w->security = cpu_to_le32(hs->security);
	memcpy(w->nonce, hs->nonce, sizeof(w->nonce));
	memcpy(w->mac, hs->mac, sizeof(w->mac));
}

/*
 * r2net_handshake_decode() - check and convert a handshake payload.
 * Refuses a wrong length, another protocol version, an empty or unprintable
 * or badly padded cluster name, node numbers above R2NET_MAX_NODE, a zero
 * timeout, a keepalive delay not below the idle timeout, and an unknown
 * security.  Whether the values match this node's, and whether the mac
 * is right, is the caller's business.
 */
static inline enum r2net_reject
r2net_handshake_decode(struct r2net_handshake *hs, const void *p, size_t len)
{
	struct r2net_handshake_le w;
	size_t i, n;

	if (len != sizeof(w))
		return R2NET_REJECT_BAD_LENGTH;
	memcpy(&w, p, sizeof(w));
	if (le32_to_cpu(w.protocol_version) != R2NET_PROTOCOL_VERSION)
		return R2NET_REJECT_BAD_VERSION;
	for (n = 0; n < R2NET_CLUSTER_NAME_LEN && w.cluster_name[n]; n++)
		if (w.cluster_name[n] <= ' ' || w.cluster_name[n] > '~')
			return R2NET_REJECT_BAD_PAYLOAD;
	if (n == 0)
		return R2NET_REJECT_BAD_PAYLOAD;
	for (i = n; i < R2NET_CLUSTER_NAME_LEN; i++)
		if (w.cluster_name[i])
			return R2NET_REJECT_BAD_PAYLOAD;
	hs->protocol_version = le32_to_cpu(w.protocol_version);
	hs->sender_node = le16_to_cpu(w.sender_node);
	hs->receiver_node = le16_to_cpu(w.receiver_node);
	memcpy(hs->cluster_name, w.cluster_name, n);
	hs->cluster_name[n] = '\0';
	hs->idle_timeout_ms = le32_to_cpu(w.idle_timeout_ms);
	hs->keepalive_delay_ms = le32_to_cpu(w.keepalive_delay_ms);
	hs->reconnect_delay_ms = le32_to_cpu(w.reconnect_delay_ms);
	hs->security = le32_to_cpu(w.security);
	memcpy(hs->nonce, w.nonce, sizeof(hs->nonce));
	memcpy(hs->mac, w.mac, sizeof(hs->mac));
	if (hs->sender_node > R2NET_MAX_NODE ||
	    hs->receiver_node > R2NET_MAX_NODE)
		return R2NET_REJECT_BAD_PAYLOAD;
	if (!hs->idle_timeout_ms || !hs->keepalive_delay_ms ||
	    !hs->reconnect_delay_ms)
		return R2NET_REJECT_BAD_PAYLOAD;
	if (hs->keepalive_delay_ms >= hs->idle_timeout_ms)
		return R2NET_REJECT_BAD_PAYLOAD;
	if (hs->security >= R2NET_SEC_NR)
		return R2NET_REJECT_BAD_PAYLOAD;
	return R2NET_ACCEPT;
}

/* NEW_POOL request in CPU byte order. */
struct r2net_tmem_new_pool {
	u64 uuid[2];
	u32 flags;
};

static inline void
r2net_tmem_new_pool_encode(struct r2net_tmem_new_pool_le *w,
			   const struct r2net_tmem_new_pool *np)
{
	w->uuid[0] = cpu_to_le64(np->uuid[0]);
	w->uuid[1] = cpu_to_le64(np->uuid[1]);
	w->flags = cpu_to_le32(np->flags);
	w->reserved = 0;
}

/* The flags are checked by the server (tmem_pool_flags_check()), not here. */
static inline enum r2net_reject
r2net_tmem_new_pool_decode(struct r2net_tmem_new_pool *np, const void *p,
			   size_t len)
{
	struct r2net_tmem_new_pool_le w;

	if (len != sizeof(w))
		return R2NET_REJECT_BAD_LENGTH;
	memcpy(&w, p, sizeof(w));
	if (w.reserved)
		return R2NET_REJECT_BAD_PAYLOAD;
	np->uuid[0] = le64_to_cpu(w.uuid[0]);
	np->uuid[1] = le64_to_cpu(w.uuid[1]);
	np->flags = le32_to_cpu(w.flags);
	return R2NET_ACCEPT;
}

static inline void r2net_tmem_pool_encode(struct r2net_tmem_pool_le *w,
					  u32 pool_id)
{
	w->pool_id = cpu_to_le32(pool_id);
	w->reserved = 0;
}

static inline enum r2net_reject
r2net_tmem_pool_decode(u32 *pool_id, const void *p, size_t len)
{
	struct r2net_tmem_pool_le w;

	if (len != sizeof(w))
		return R2NET_REJECT_BAD_LENGTH;
	memcpy(&w, p, sizeof(w));
	if (w.reserved)
		return R2NET_REJECT_BAD_PAYLOAD;
	*pool_id = le32_to_cpu(w.pool_id);
	return R2NET_ACCEPT;
}

/* GET_PAGE, FLUSH_PAGE and FLUSH_OBJECT requests: just the handle. */
static inline enum r2net_reject
r2net_tmem_handle_decode(struct tmem_handle *h, const void *p, size_t len)
{
	struct tmem_handle_le w;

	if (len != sizeof(w))
		return R2NET_REJECT_BAD_LENGTH;
	memcpy(&w, p, sizeof(w));
	tmem_handle_from_le(h, &w);
	return R2NET_ACCEPT;
}

/* PUT_PAGE request and GET_PAGE reply: the handle and the page. */
static inline void r2net_tmem_page_encode(struct r2net_tmem_page_le *w,
					  const struct tmem_handle *h,
					  const void *page)
{
	tmem_handle_to_le(&w->handle, h);
	memcpy(w->data, page, TMEM_PAGE_SIZE);
}

/* On success *page points at the TMEM_PAGE_SIZE data bytes inside p. */
static inline enum r2net_reject
r2net_tmem_page_decode(struct tmem_handle *h, const u8 **page, const void *p,
		       size_t len)
{
	enum r2net_reject r;

	if (len != R2NET_PAGE_MSG_LEN)
		return R2NET_REJECT_BAD_LENGTH;
	r = r2net_tmem_handle_decode(h, p, R2NET_HANDLE_LEN);
	if (r != R2NET_ACCEPT)
		return r;
	*page = (const u8 *)p + R2NET_HANDLE_LEN;
	return R2NET_ACCEPT;
}

/* A zpage in CPU byte order: what r2net_tmem_zpage_le says of its data. */
struct r2net_zpage {
	u8 enc;		/* R2NET_ZPAGE_* */
	u32 arg;	/* SAME: the value; LZO, RAW: data bytes */
};

/* How many data bytes follow the zpage header for z. */
static inline u32 r2net_zpage_data_len(const struct r2net_zpage *z)
{
	return z->enc == R2NET_ZPAGE_SAME || z->enc == R2NET_ZPAGE_NONE ?
	       0 : z->arg;
}

/* PUT_ZPAGE request and GET_ZPAGE reply: the header before the data. */
static inline void r2net_tmem_zpage_encode(struct r2net_tmem_zpage_le *w,
					   const struct tmem_handle *h,
					   const struct r2net_zpage *z)
{
	tmem_handle_to_le(&w->handle, h);
	w->enc = z->enc;
	memset(w->reserved, 0, sizeof(w->reserved));
	w->arg = cpu_to_le32(z->arg);
}

/*
 * r2net_zpage_hdr_decode() - check a zpage header (R2NET_ZPAGE_HDR_LEN
 * bytes at p) on its own.  Refuses an unknown encoding, non-zero reserved
 * bytes, an LZO length of 0 or above R2NET_ZPAGE_LZO_MAX and a RAW length
 * other than a page; R2NET_ZPAGE_NONE only if none_ok, with a status of 0
 * or below.
 */
static inline enum r2net_reject
r2net_zpage_hdr_decode(struct tmem_handle *h, struct r2net_zpage *z,
		       const void *p, bool none_ok)
{
	struct r2net_tmem_zpage_le w;

	memcpy(&w, p, sizeof(w));
	if (w.reserved[0] || w.reserved[1] || w.reserved[2])
		return R2NET_REJECT_BAD_PAYLOAD;
	z->enc = w.enc;
	z->arg = le32_to_cpu(w.arg);
	switch (z->enc) {
	case R2NET_ZPAGE_NONE:
		if (!none_ok || (s32)z->arg > 0)
			return R2NET_REJECT_BAD_PAYLOAD;
		break;
	case R2NET_ZPAGE_SAME:
		break;
	case R2NET_ZPAGE_LZO:
		if (!z->arg || z->arg > R2NET_ZPAGE_LZO_MAX)
			return R2NET_REJECT_BAD_PAYLOAD;
		break;
	case R2NET_ZPAGE_RAW:
		if (z->arg != TMEM_PAGE_SIZE)
			return R2NET_REJECT_BAD_PAYLOAD;
		break;
	default:
		return R2NET_REJECT_BAD_PAYLOAD;
	}
	tmem_handle_from_le(h, &w.handle);
	return R2NET_ACCEPT;
}

/*
 * r2net_tmem_zpage_decode() - check a zpage's header against its length
 * On success *data points at the r2net_zpage_data_len() data bytes in p.
 * Refuses what r2net_zpage_hdr_decode() does (and R2NET_ZPAGE_NONE), and a
 * payload length that is not the header plus the data.
 */
static inline enum r2net_reject
r2net_tmem_zpage_decode(struct tmem_handle *h, struct r2net_zpage *z,
			const u8 **data, const void *p, size_t len)
{
	enum r2net_reject r;

	if (len < R2NET_ZPAGE_HDR_LEN || len > R2NET_ZPAGE_MSG_MAX)
		return R2NET_REJECT_BAD_LENGTH;
	r = r2net_zpage_hdr_decode(h, z, p, false);
	if (r != R2NET_ACCEPT)
		return r;
	if (len != R2NET_ZPAGE_HDR_LEN + r2net_zpage_data_len(z))
		return R2NET_REJECT_BAD_LENGTH;
	*data = (const u8 *)p + R2NET_ZPAGE_HDR_LEN;
	return R2NET_ACCEPT;
}

static inline void r2net_tmem_batch_encode(struct r2net_tmem_batch_le *w,
					   u32 count)
{
	w->count = cpu_to_le32(count);
	w->reserved = 0;
}

/* The batch header's count, 1..R2NET_BATCH_MAX; 0 if it is bad. */
static inline u32 r2net_tmem_batch_count(const void *p)
{
	struct r2net_tmem_batch_le w;
	u32 count;

	memcpy(&w, p, sizeof(w));
	count = le32_to_cpu(w.count);
	if (w.reserved || count > R2NET_BATCH_MAX)
		return 0;
	return count;
}

/* A checked batch of zpages, walked with r2net_zbatch_next(). */
struct r2net_zbatch {
	u32 count;
	const u8 *hdr;		/* the next page's zpage header */
	const u8 *data;		/* and its data */
};

/*
 * r2net_tmem_zbatch_decode() - check a batch of zpages: a PUT_ZPAGES
 * request, or with none_ok a GET_ZPAGES reply.  Every page's header is
 * checked (r2net_zpage_hdr_decode()) and their data must fill the rest of
 * the payload exactly.
 */
static inline enum r2net_reject
r2net_tmem_zbatch_decode(struct r2net_zbatch *b, const void *p, size_t len,
			 bool none_ok)
{
	struct tmem_handle h;
	struct r2net_zpage z;
	enum r2net_reject r;
	size_t need;
	u32 i;

	if (len < R2NET_ZPAGES_MIN || len > R2NET_ZPAGES_MAX)
		return R2NET_REJECT_BAD_LENGTH;
	b->count = r2net_tmem_batch_count(p);
	if (!b->count)
		return R2NET_REJECT_BAD_PAYLOAD;
	need = R2NET_BATCH_HDR_LEN + (size_t)b->count * R2NET_ZPAGE_HDR_LEN;
	if (len < need)
		return R2NET_REJECT_BAD_LENGTH;
	b->hdr = (const u8 *)p + R2NET_BATCH_HDR_LEN;
	b->data = (const u8 *)p + need;
	for (i = 0; i < b->count; i++) {
		r = r2net_zpage_hdr_decode(&h, &z,
					   b->hdr + i * R2NET_ZPAGE_HDR_LEN,
					   none_ok);
		if (r != R2NET_ACCEPT)
			return r;
		need += r2net_zpage_data_len(&z);
	}
	return len == need ? R2NET_ACCEPT : R2NET_REJECT_BAD_LENGTH;
}

/* The next page of a batch r2net_tmem_zbatch_decode() accepted. */
static inline void r2net_zbatch_next(struct r2net_zbatch *b,
				     struct tmem_handle *h,
				     struct r2net_zpage *z, const u8 **data)
{
	r2net_zpage_hdr_decode(h, z, b->hdr, true);
	*data = b->data;
	b->hdr += R2NET_ZPAGE_HDR_LEN;
	b->data += r2net_zpage_data_len(z);
}

/*
 * r2net_tmem_handles_decode() - check a GET_ZPAGES request: the batch
 * header and exactly count handles.  On success *handles points at the
 * first; read each with r2net_tmem_handle_decode().
 */
static inline enum r2net_reject
r2net_tmem_handles_decode(u32 *count, const u8 **handles, const void *p,
			  size_t len)
{
	if (len <= R2NET_BATCH_HDR_LEN || len > R2NET_HANDLES_MAX ||
	    (len - R2NET_BATCH_HDR_LEN) % R2NET_HANDLE_LEN)
		return R2NET_REJECT_BAD_LENGTH;
	*count = r2net_tmem_batch_count(p);
	if (!*count)
		return R2NET_REJECT_BAD_PAYLOAD;
	if (len != R2NET_BATCH_HDR_LEN + *count * R2NET_HANDLE_LEN)
		return R2NET_REJECT_BAD_LENGTH;
	*handles = (const u8 *)p + R2NET_BATCH_HDR_LEN;
	return R2NET_ACCEPT;
}

#endif /* RAMSTER_R2NET_WIRE_H */
