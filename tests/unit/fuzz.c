// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz - a time-bounded random-mutation fuzzer, run under ASan and UBSan.
 *
 * frames: valid r2net frames of every type (user types with any payload
 *	length, requests and replies, with keys and sys_status), mutated
 *	(bit flips, random and boundary bytes, header fields - type, len,
 *	flags, status, key, sys_status - set to boundary values, cut short,
 *	extended), each copied to a heap buffer of exactly its size and fed
 *	to r2net_hdr_check() and, when accepted, to its payload decoder.
 *	An accepted header must obey every rule of r2net_hdr_check(); an
 *	accepted payload must encode back to the very same bytes.  Zpages
 *	(PUT_ZPAGE, GET_ZPAGE replies) get their own mutations of the
 *	encoding, reserved bytes and length, and so does every page of a
 *	batch (PUT_ZPAGES, GET_ZPAGES replies), with its count.
 * conf: valid ramster.conf texts (with and without timeouts), mutated by
 *	line (delete, duplicate, swap, replace a value by a boundary value)
 *	and by byte, fed to rconf_parse(); every 1024th also through a file
 *	and rconf_load().
 *	A parsed configuration must obey every rule the parser promises;
 *	an error must be FILE:LINE: with a line inside the file.
 *
 * Any sanitizer finding aborts; a broken invariant prints the input and
 * aborts.  At the end it prints how many inputs it ran.
 *
 * usage: fuzz -m frames|conf [-t SECONDS] [-s SEED] [CONF_FILE...]
 */
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "conf.h"
#include "r2net_wire.h"
#include "test.h"

#define MAX_INPUT	(R2NET_MAX_FRAME + 256)
#define MAX_CONF	8192

static const u8 *cur_input;
static size_t cur_len;

static void __attribute__((noreturn)) broken(const char *what)
{
	size_t i;

	fprintf(stderr, "fuzz: invariant broken: %s (seed %u)\ninput (%zu bytes):",
		what, test_seed, cur_len);
	for (i = 0; i < cur_len && i < 512; i++)
		fprintf(stderr, "%s%02x", i % 32 ? " " : "\n", cur_input[i]);
	fprintf(stderr, "\n");
	abort();
}

/* ---- frames ---- */

static const u16 types[] = {
	R2NET_MSG_HANDSHAKE, R2NET_MSG_KEEPALIVE_REQ, R2NET_MSG_KEEPALIVE_RESP,
	R2NET_MSG_AUTH, R2NET_MSG_TMEM_NEW_POOL, R2NET_MSG_TMEM_DESTROY_POOL,
	R2NET_MSG_TMEM_PUT_PAGE, R2NET_MSG_TMEM_GET_PAGE,
	R2NET_MSG_TMEM_FLUSH_PAGE, R2NET_MSG_TMEM_FLUSH_OBJECT,
	R2NET_MSG_TMEM_PUT_ZPAGE, R2NET_MSG_TMEM_GET_ZPAGE,
	R2NET_MSG_TMEM_PUT_ZPAGES, R2NET_MSG_TMEM_GET_ZPAGES,
	R2NET_MSG_USER_FIRST, 0x10ec, R2NET_MSG_USER_LAST,
};

/* types at the edges of the known ranges, known or not */
static const u16 edge_types[] = {
	0, R2NET_MSG_AUTH + 1, R2NET_MSG_TMEM_BASE,
	R2NET_MSG_TMEM_BASE + 3, R2NET_MSG_TMEM_FLUSH_OBJECT + 1,
	R2NET_MSG_TMEM_ZPAGE_BASE, R2NET_MSG_TMEM_PUT_ZPAGE - 1,
	R2NET_MSG_TMEM_GET_ZPAGE + 1, R2NET_MSG_TMEM_BATCH_BASE,
	R2NET_MSG_TMEM_PUT_ZPAGES - 1, R2NET_MSG_TMEM_GET_ZPAGES + 1,
	R2NET_MSG_USER_FIRST - 1, R2NET_MSG_USER_FIRST,
	R2NET_MSG_USER_LAST, R2NET_MSG_USER_LAST + 1, 0xffff,
};

static const u32 keys[] = {
	0, 1, 0x6563686f, 0x7fffffff, 0x80000000u, 0xffffffffu,
};

static const u32 sys_statuses[] = {
	R2NET_SYS_OK, R2NET_SYS_NO_HANDLER, R2NET_SYS_TOO_LONG,
	R2NET_SYS_NOMEM, R2NET_SYS_NR, R2NET_SYS_NR + 1, 0x100, 0x80000000u,
	0xffffffffu,
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static const u32 lens[] = {
	0, 1, R2NET_POOL_LEN, R2NET_NEW_POOL_LEN, R2NET_HANDLE_LEN,
	R2NET_HANDSHAKE_LEN, R2NET_PAGE_MSG_LEN - 1, R2NET_PAGE_MSG_LEN,
	R2NET_PAGE_MSG_LEN + 1, 2, 4095, 4096, 4097, R2NET_ZPAGE_HDR_LEN - 1,
	R2NET_ZPAGE_HDR_LEN, R2NET_ZPAGE_HDR_LEN + 1, R2NET_ZPAGE_MSG_MAX - 1,
	R2NET_ZPAGE_MSG_MAX, R2NET_ZPAGE_MSG_MAX + 1, R2NET_ZPAGES_MIN - 1,
	R2NET_ZPAGES_MIN, R2NET_HANDLES_MAX, R2NET_HANDLES_MAX + 1,
	R2NET_MAX_PAYLOAD, R2NET_MAX_PAYLOAD + 1, R2NET_MAX_PAYLOAD + 32,
	0x7fffffff, 0x80000000u, 0xffffffffu,
};

/* zpage arg values at the edges of every encoding */
static const u32 zpage_args[] = {
	0, 1, 2, 100, R2NET_ZPAGE_LZO_MAX - 1, R2NET_ZPAGE_LZO_MAX,
	TMEM_PAGE_SIZE, TMEM_PAGE_SIZE + 1, 0x7fffffff, 0xffffffc0u,
	0xffffffffu,
};

static void fill_random(u8 *p, size_t n)
{
	while (n--)
		*p++ = (u8)rnd64();
}

/* A random zpage's form: mostly short, some whole pages; NONE if none_ok. */
static void random_zform(struct r2net_zpage *z, bool none_ok)
{
	z->enc = (u8)(R2NET_ZPAGE_SAME + rnd(3));
	if (none_ok && !rnd(4))
		z->enc = R2NET_ZPAGE_NONE;
	z->arg = z->enc == R2NET_ZPAGE_RAW ? TMEM_PAGE_SIZE :
		 z->enc == R2NET_ZPAGE_SAME ? (u32)rnd64() :
		 z->enc == R2NET_ZPAGE_NONE ? (u32)-(s32)rnd(8) :
		 rnd(2) ? 1 + rnd(R2NET_ZPAGE_LZO_MAX) :
		 zpage_args[1 + rnd(5)];
}

/* A batch of 1..R2NET_BATCH_MAX random zpages at p; its length. */
static u32 seed_zbatch(u8 *p, bool none_ok)
{
	struct r2net_tmem_zpage_le *hw = (void *)(p + R2NET_BATCH_HDR_LEN);
	u32 n = 1 + rnd(R2NET_BATCH_MAX), len, i, dlen;
	struct r2net_zpage z;
	struct tmem_handle h = { .pool_id = rnd(16) };

	r2net_tmem_batch_encode((void *)p, n);
	len = R2NET_BATCH_HDR_LEN + n * R2NET_ZPAGE_HDR_LEN;
	for (i = 0; i < n; i++) {
		h.index = (u32)rnd64();
		random_zform(&z, none_ok);
		r2net_tmem_zpage_encode(&hw[i], &h, &z);
		dlen = r2net_zpage_data_len(&z);
		fill_random(p + len, dlen);
		len += dlen;
	}
	return len;
}

/* A valid frame of a random type into buf; returns its size. */
static size_t seed_frame(u8 *buf)
{
	static u8 page[TMEM_PAGE_SIZE];
	u16 type = types[rnd(NR(types))];
	bool reply = !r2net_msg_type_system(type) && rnd(2);
	u32 key = 0, sys_status = 0;
	struct r2net_handshake hs = { .protocol_version = R2NET_PROTOCOL_VERSION };
	struct r2net_tmem_new_pool np;
	struct r2net_zpage z;
	struct tmem_handle h;
	u8 *payload = buf + R2NET_HDR_LEN;
	u32 len = 0;
	unsigned int i;

	h.pool_id = (u32)rnd64();
	h.index = (u32)rnd64();
	for (i = 0; i < 3; i++)
		h.oid[i] = rnd64();
	switch (type) {
	case R2NET_MSG_HANDSHAKE:
		hs.sender_node = (u16)rnd(R2NET_MAX_NODE + 1);
		hs.receiver_node = (u16)rnd(R2NET_MAX_NODE + 1);
		for (i = 0; i <= rnd(R2NET_CLUSTER_NAME_LEN); i++)
			hs.cluster_name[i] = (char)('!' + rnd(94));
		hs.idle_timeout_ms = 30000;
		hs.keepalive_delay_ms = 1 + rnd(29999);
		hs.reconnect_delay_ms = 1 + rnd(60000);
		hs.security = rnd(R2NET_SEC_NR);
		r2net_handshake_encode((void *)payload, &hs);
		len = R2NET_HANDSHAKE_LEN;
		break;
	case R2NET_MSG_TMEM_NEW_POOL:
		if (reply)
			break;
		np.uuid[0] = rnd(2) ? 0 : rnd64();
		np.uuid[1] = rnd(2) ? 0 : rnd64();
		np.flags = tmem_pool_flags(rnd(2), rnd(2));
		r2net_tmem_new_pool_encode((void *)payload, &np);
		len = R2NET_NEW_POOL_LEN;
		break;
	case R2NET_MSG_TMEM_DESTROY_POOL:
		if (reply)
			break;
		r2net_tmem_pool_encode((void *)payload, rnd(16));
		len = R2NET_POOL_LEN;
		break;
	case R2NET_MSG_TMEM_PUT_PAGE:
	case R2NET_MSG_TMEM_GET_PAGE:
		if (reply != (type == R2NET_MSG_TMEM_GET_PAGE))
			goto handle;
		if (type == R2NET_MSG_TMEM_GET_PAGE && rnd(2))
			break;		/* a miss */
		fill_random(page, 1 + rnd(64));
		r2net_tmem_page_encode((void *)payload, &h, page);
		len = R2NET_PAGE_MSG_LEN;
		break;
	case R2NET_MSG_TMEM_PUT_ZPAGE:
	case R2NET_MSG_TMEM_GET_ZPAGE:
		if (reply != (type == R2NET_MSG_TMEM_GET_ZPAGE))
			goto handle;
		if (type == R2NET_MSG_TMEM_GET_ZPAGE && rnd(2))
			break;		/* a miss */
		z.enc = (u8)(R2NET_ZPAGE_SAME + rnd(3));
		z.arg = z.enc == R2NET_ZPAGE_RAW ? TMEM_PAGE_SIZE :
			z.enc == R2NET_ZPAGE_SAME ? (u32)rnd64() :
			rnd(2) ? 1 + rnd(R2NET_ZPAGE_LZO_MAX) :
			zpage_args[1 + rnd(5)];
		r2net_tmem_zpage_encode((void *)payload, &h, &z);
		len = R2NET_ZPAGE_HDR_LEN + r2net_zpage_data_len(&z);
		fill_random(payload + R2NET_ZPAGE_HDR_LEN, len - R2NET_ZPAGE_HDR_LEN);
		break;
	case R2NET_MSG_TMEM_PUT_ZPAGES:
		if (!reply) {
			len = seed_zbatch(payload, false);
			break;
		}
		len = 4 * rnd(R2NET_BATCH_MAX + 1);
		fill_random(payload, len);
		break;
	case R2NET_MSG_TMEM_GET_ZPAGES:
		if (reply) {
			len = rnd(4) ? seed_zbatch(payload, true) : 0;
			break;
		}
		i = 1 + rnd(R2NET_BATCH_MAX);
		r2net_tmem_batch_encode((void *)payload, i);
		len = R2NET_BATCH_HDR_LEN + i * R2NET_HANDLE_LEN;
		fill_random(payload + R2NET_BATCH_HDR_LEN,
			    len - R2NET_BATCH_HDR_LEN);
		break;
	case R2NET_MSG_TMEM_FLUSH_PAGE:
	case R2NET_MSG_TMEM_FLUSH_OBJECT:
handle:
		if (reply)
			break;
		tmem_handle_to_le((void *)payload, &h);
		len = R2NET_HANDLE_LEN;
		break;
	default:	/* keepalives: empty; user types: any payload, key */
		if (!r2net_msg_type_user(type))
			break;
		if (rnd(3) == 0)
			type = (u16)(R2NET_MSG_USER_FIRST +
				     rnd(R2NET_MSG_USER_LAST -
					 R2NET_MSG_USER_FIRST + 1));
		len = rnd(2) ? lens[rnd(NR(lens))] : rnd(R2NET_MAX_PAYLOAD + 1);
		if (len > R2NET_MAX_PAYLOAD)
			len = rnd(2) ? R2NET_MAX_PAYLOAD : 0;
		fill_random(payload, len);
		key = rnd(2) ? keys[rnd(NR(keys))] : (u32)rnd64();
		break;
	}
	if (reply)
		sys_status = rnd(R2NET_SYS_NR);
	r2net_hdr_init((struct r2net_hdr *)buf, type, reply ? R2NET_F_REPLY : 0,
		       len, rnd64(), reply ? (s32)rnd64() : 0);
	r2net_hdr_set_key((struct r2net_hdr *)buf, key, sys_status);
	return R2NET_HDR_LEN + len;
}

/* A zpage header field to a value at an edge; p holds len >= 40 bytes. */
static void mutate_zpage(u8 *p, size_t len)
{
	struct r2net_tmem_zpage_le w;
	u32 v;

	memcpy(&w, p, sizeof(w));
	switch (rnd(4)) {
	case 0:
		w.enc = (u8)(rnd(2) ? rnd(5) : rnd64());
		break;
	case 1:
		w.reserved[rnd(3)] = (u8)(rnd(2) ? 1 : rnd64());
		break;
	case 2:		/* arg at an edge, or just off the data's length */
		v = (u32)(len - R2NET_ZPAGE_HDR_LEN);
		v = rnd(2) ? zpage_args[rnd(NR(zpage_args))] :
			     v + rnd(3) - 1;
		w.arg = cpu_to_le32(v);
		break;
	default:	/* another encoding that fits the same bytes */
		w.enc = (u8)(R2NET_ZPAGE_SAME + rnd(3));
		break;
	}
	memcpy(p, &w, sizeof(w));
}

static size_t mutate_frame(u8 *buf, size_t size)
{
	struct r2net_hdr *hdr = (struct r2net_hdr *)buf;
	unsigned int i, n = rnd(6);
	size_t pos, add;
	u32 v;

	for (i = 0; i < n; i++) {
		pos = size ? rnd((u32)size) : 0;
		switch (rnd(13)) {
		case 0:		/* flip a bit */
			if (size)
				buf[pos] ^= (u8)(1u << rnd(8));
			break;
		case 1:		/* a random byte, mostly in the header */
			if (size)
				buf[rnd(2) ? rnd(R2NET_HDR_LEN < size ?
					 R2NET_HDR_LEN : (u32)size) : pos] = (u8)rnd64();
			break;
		case 2: {	/* a boundary byte */
			static const u8 b[] = { 0, 1, 0x7f, 0x80, 0xfe, 0xff, ' ', '~' };

			if (size)
				buf[pos] = b[rnd(sizeof(b))];
			break;
		}
		case 3:		/* the length field to an interesting value */
			v = lens[rnd(sizeof(lens) / sizeof(lens[0]))];
			((struct r2net_hdr *)buf)->len = cpu_to_le32(v);
			break;
		case 4:		/* another type */
			v = rnd(2) ? types[rnd(NR(types))] :
			    rnd(2) ? edge_types[rnd(NR(edge_types))] :
				     (u32)rnd(0x10000);
			hdr->type = cpu_to_le16((u16)v);
			break;
		case 5:		/* flags or status */
			if (rnd(2))
				hdr->flags = cpu_to_le16((u16)(rnd(3) ? rnd(2) :
							       rnd(0x10000)));
			else
				hdr->status = cpu_to_le32(rnd(2) ? 0 : (u32)rnd64());
			break;
		case 10:	/* the key */
			hdr->key = cpu_to_le32(rnd(2) ? keys[rnd(NR(keys))] :
					       (u32)rnd64());
			break;
		case 11:	/* sys_status, sometimes with the reply flag */
			hdr->sys_status = cpu_to_le32(rnd(4) ?
				sys_statuses[rnd(NR(sys_statuses))] : (u32)rnd64());
			if (rnd(2))
				hdr->flags ^= cpu_to_le16(R2NET_F_REPLY);
			break;
		case 6:		/* cut short */
			size = rnd((u32)size + 1);
			break;
		case 7:		/* extend */
			add = rnd(64);
			if (size + add <= MAX_INPUT) {
				fill_random(buf + size, add);
				size += add;
			}
			break;
		case 8:		/* a handshake payload field */
			if (size >= R2NET_HDR_LEN + R2NET_HANDSHAKE_LEN)
				buf[R2NET_HDR_LEN + rnd(R2NET_HANDSHAKE_LEN)] =
					rnd(2) ? 0 : (u8)rnd64();
			break;
		case 12:	/* a zpage's encoding, reserved bytes or arg */
			if (size < R2NET_HDR_LEN + R2NET_ZPAGE_HDR_LEN)
				break;
			if (rnd(2)) {
				mutate_zpage(buf + R2NET_HDR_LEN,
					     size - R2NET_HDR_LEN);
				break;
			}
			/* a batch's count, or one of its pages */
			if (!rnd(3)) {
				static const u32 c[] = { 0, 1, 15, 16, 17, 255 };

				v = rnd(2) ? c[rnd(NR(c))] : (u32)rnd64();
				memcpy(buf + R2NET_HDR_LEN, &v, sizeof(v));
				break;
			}
			pos = R2NET_HDR_LEN + R2NET_BATCH_HDR_LEN +
			      rnd(R2NET_BATCH_MAX) * R2NET_ZPAGE_HDR_LEN;
			if (pos + R2NET_ZPAGE_HDR_LEN <= size)
				mutate_zpage(buf + pos, size - pos);
			break;
		default:	/* several random bytes */
			add = rnd(16);
			for (; add && size; add--)
				buf[rnd((u32)size)] = (u8)rnd64();
			break;
		}
	}
	return size;
}

static unsigned long frame_reasons[R2NET_REJECT_NR];
static unsigned long payload_reasons[R2NET_REJECT_NR];

/* Every rule r2net_tmem_zpage_decode() promises, on a zpage it accepted. */
static void check_zpage(const struct tmem_handle *h, const struct r2net_zpage *z,
			const u8 *data, const u8 *payload, size_t len)
{
	struct r2net_tmem_zpage_le again;
	u32 n = r2net_zpage_data_len(z);

	switch (z->enc) {
	case R2NET_ZPAGE_SAME:
		break;
	case R2NET_ZPAGE_LZO:
		if (!z->arg || z->arg > R2NET_ZPAGE_LZO_MAX)
			broken("zpage LZO length out of range accepted");
		break;
	case R2NET_ZPAGE_RAW:
		if (z->arg != TMEM_PAGE_SIZE)
			broken("zpage RAW not a page accepted");
		break;
	default:
		broken("zpage of an unknown encoding accepted");
	}
	if (len != R2NET_ZPAGE_HDR_LEN + n || data != payload + R2NET_ZPAGE_HDR_LEN)
		broken("zpage data is not the rest of the payload");
	r2net_tmem_zpage_encode(&again, h, z);
	if (memcmp(&again, payload, sizeof(again)))
		broken("zpage does not encode back to its bytes");
	/* touch every byte: ASan catches a short buffer */
	if (n && memchr(data, 0x100 - 1, n) == data - 1)
		broken("impossible");
}

/*
 * Every rule r2net_tmem_zbatch_decode() promises, on a batch it accepted:
 * each page as a zpage would be, the data back to back to the end.
 */
static void check_zbatch(struct r2net_zbatch *b, const u8 *payload,
			 size_t len, bool none_ok)
{
	const u8 *end = payload + len, *hdr = payload + R2NET_BATCH_HDR_LEN;
	const u8 *next = hdr + b->count * R2NET_ZPAGE_HDR_LEN;
	struct r2net_tmem_zpage_le again;
	struct tmem_handle h;
	struct r2net_zpage z;
	const u8 *data;
	u32 i, n;

	if (!b->count || b->count > R2NET_BATCH_MAX)
		broken("batch count out of range accepted");
	if (r2net_tmem_batch_count(payload) != b->count)
		broken("batch count differs from its bytes");
	for (i = 0; i < b->count; i++) {
		r2net_zbatch_next(b, &h, &z, &data);
		n = r2net_zpage_data_len(&z);
		if (z.enc == R2NET_ZPAGE_NONE && (!none_ok || (s32)z.arg > 0))
			broken("batch page NONE accepted where it cannot be");
		if (z.enc == R2NET_ZPAGE_LZO &&
		    (!z.arg || z.arg > R2NET_ZPAGE_LZO_MAX))
			broken("batch page LZO length out of range accepted");
		if (z.enc == R2NET_ZPAGE_RAW && z.arg != TMEM_PAGE_SIZE)
			broken("batch page RAW not a page accepted");
		if (z.enc > R2NET_ZPAGE_RAW)
			broken("batch page of an unknown encoding accepted");
		if (data != next || data + n > end)
			broken("batch page data not back to back in the frame");
		r2net_tmem_zpage_encode(&again, &h, &z);
		if (memcmp(&again, hdr + i * R2NET_ZPAGE_HDR_LEN, sizeof(again)))
			broken("batch page does not encode back to its bytes");
		/* touch every byte: ASan catches a short buffer */
		if (n && memchr(data, 0x100 - 1, n) == data - 1)
			broken("impossible");
		next += n;
	}
	if (next != end)
		broken("batch data does not end the payload");
}

/* Decode an accepted frame's payload; what decodes must encode the same. */
static void decode_payload(const u8 *buf, const struct r2net_msg *m)
{
	union {
		struct r2net_handshake_le hs;
		struct r2net_tmem_new_pool_le np;
		struct r2net_tmem_pool_le pool;
		struct tmem_handle_le h;
		struct r2net_tmem_zpage_le z;
	} again;
	const u8 *payload = buf + R2NET_HDR_LEN;
	struct r2net_handshake hs;
	struct r2net_tmem_new_pool np;
	struct tmem_handle h;
	struct r2net_zpage z;
	enum r2net_reject r = R2NET_ACCEPT;
	const u8 *page;
	u32 pool_id;
	bool reply;

	if (!m->len)
		return;
	reply = m->flags & R2NET_F_REPLY;
	if ((m->type == R2NET_MSG_TMEM_PUT_ZPAGES && !reply) ||
	    (m->type == R2NET_MSG_TMEM_GET_ZPAGES && reply)) {
		bool none_ok = reply;
		struct r2net_zbatch b;

		r = r2net_tmem_zbatch_decode(&b, payload, m->len, none_ok);
		if (r == R2NET_ACCEPT)
			check_zbatch(&b, payload, m->len, none_ok);
		payload_reasons[r]++;
		return;
	}
	if (m->type == R2NET_MSG_TMEM_GET_ZPAGES) {
		r = r2net_tmem_handles_decode(&pool_id, &page, payload, m->len);
		if (r == R2NET_ACCEPT &&
		    (R2NET_BATCH_HDR_LEN + pool_id * R2NET_HANDLE_LEN != m->len ||
		     page != payload + R2NET_BATCH_HDR_LEN))
			broken("handles are not the rest of the payload");
		payload_reasons[r]++;
		return;
	}
	if (m->type == R2NET_MSG_TMEM_PUT_ZPAGES) {
		if (m->len % 4 || m->len > 4 * R2NET_BATCH_MAX)
			broken("statuses of a wrong length accepted");
		payload_reasons[R2NET_ACCEPT]++;
		return;
	}
	if ((m->type == R2NET_MSG_TMEM_PUT_ZPAGE ||
	     m->type == R2NET_MSG_TMEM_GET_ZPAGE) &&
	    m->len != R2NET_HANDLE_LEN) {
		r = r2net_tmem_zpage_decode(&h, &z, &page, payload, m->len);
		if (r == R2NET_ACCEPT)
			check_zpage(&h, &z, page, payload, m->len);
		payload_reasons[r]++;
		return;
	}
	if (r2net_msg_type_user(m->type)) {
		/* opaque to r2net: touch every byte, ASan sees a short buffer */
		if (memchr(payload, 0x100 - 1, m->len) == payload - 1)
			broken("impossible");
		payload_reasons[R2NET_ACCEPT]++;
		return;
	}
	switch (m->type) {
	case R2NET_MSG_HANDSHAKE:
		r = r2net_handshake_decode(&hs, payload, m->len);
		if (r != R2NET_ACCEPT)
			break;
		if (strlen(hs.cluster_name) < 1 ||
		    strlen(hs.cluster_name) > R2NET_CLUSTER_NAME_LEN ||
		    hs.sender_node > R2NET_MAX_NODE ||
		    hs.keepalive_delay_ms >= hs.idle_timeout_ms ||
		    hs.security >= R2NET_SEC_NR)
			broken("handshake accepted with bad fields");
		r2net_handshake_encode(&again.hs, &hs);
		if (memcmp(&again.hs, payload, sizeof(again.hs)))
			broken("handshake does not encode back to its bytes");
		break;
	case R2NET_MSG_TMEM_NEW_POOL:
		r = r2net_tmem_new_pool_decode(&np, payload, m->len);
		if (r != R2NET_ACCEPT)
			break;
		(void)tmem_pool_flags_check(np.flags);
		r2net_tmem_new_pool_encode(&again.np, &np);
		if (memcmp(&again.np, payload, sizeof(again.np)))
			broken("new_pool does not encode back to its bytes");
		break;
	case R2NET_MSG_TMEM_DESTROY_POOL:
		r = r2net_tmem_pool_decode(&pool_id, payload, m->len);
		if (r != R2NET_ACCEPT)
			break;
		r2net_tmem_pool_encode(&again.pool, pool_id);
		if (memcmp(&again.pool, payload, sizeof(again.pool)))
			broken("pool does not encode back to its bytes");
		break;
	default:
		if (m->len == R2NET_HANDLE_LEN)
			r = r2net_tmem_handle_decode(&h, payload, m->len);
		else
			r = r2net_tmem_page_decode(&h, &page, payload, m->len);
		if (r != R2NET_ACCEPT)
			broken("a handle or page message of the right length refused");
		tmem_handle_to_le(&again.h, &h);
		if (memcmp(&again.h, payload, sizeof(again.h)))
			broken("handle does not encode back to its bytes");
		if (m->len != R2NET_HANDLE_LEN) {
			if (page != payload + R2NET_HANDLE_LEN)
				broken("page pointer outside the frame");
			/* touch every byte: ASan catches a short buffer */
			if (memchr(page, 0x100 - 1, TMEM_PAGE_SIZE) == page - 1)
				broken("impossible");
		}
		break;
	}
	payload_reasons[r]++;
}

/* Decoders straight on random bytes of random lengths, header or not. */
static void fuzz_decoders(const u8 *buf, size_t size)
{
	struct r2net_handshake hs;
	struct r2net_tmem_new_pool np;
	struct r2net_zpage z;
	struct tmem_handle h;
	const u8 *page;
	u32 pool_id;
	size_t off = rnd((u32)size + 1), len = size - off;
	u8 *p = malloc(len ? len : 1);
	bool none_ok = rnd(2);
	struct r2net_zbatch b;

	if (!p)
		abort();
	memcpy(p, buf + off, len);
	(void)r2net_handshake_decode(&hs, p, len);
	(void)r2net_tmem_new_pool_decode(&np, p, len);
	(void)r2net_tmem_pool_decode(&pool_id, p, len);
	(void)r2net_tmem_handle_decode(&h, p, len);
	if (r2net_tmem_page_decode(&h, &page, p, len) == R2NET_ACCEPT &&
	    page + TMEM_PAGE_SIZE != p + len)
		broken("page decoder: page does not end the payload");
	if (r2net_tmem_zpage_decode(&h, &z, &page, p, len) == R2NET_ACCEPT)
		check_zpage(&h, &z, page, p, len);
	if (r2net_tmem_zbatch_decode(&b, p, len, none_ok) == R2NET_ACCEPT)
		check_zbatch(&b, p, len, none_ok);
	if (r2net_tmem_handles_decode(&pool_id, &page, p, len) == R2NET_ACCEPT &&
	    R2NET_BATCH_HDR_LEN + pool_id * R2NET_HANDLE_LEN != len)
		broken("handles decoder: a wrong count accepted");
	free(p);
}

/* Every rule r2net_hdr_check() promises, on a header it accepted. */
static void check_accepted(const u8 *buf, size_t size, const struct r2net_msg *m)
{
	const struct r2net_hdr *h = (const struct r2net_hdr *)buf;
	bool reply = m->flags & R2NET_F_REPLY;

	if (m->len > R2NET_MAX_PAYLOAD || R2NET_HDR_LEN + m->len > size)
		broken("accepted a frame longer than its bytes");
	if (!r2net_msg_type_known(m->type))
		broken("accepted an unknown type");
	if (m->flags & ~R2NET_F_ALL)
		broken("accepted an unknown flag");
	if (!r2net_msg_len_ok(m->type, reply, m->len))
		broken("accepted a length wrong for the type");
	if (r2net_msg_type_system(m->type) && (reply || m->key))
		broken("accepted a system message with a key or as a reply");
	if (!reply && (m->status || m->sys_status))
		broken("accepted a request with a status or sys_status");
	if (reply && m->sys_status >= R2NET_SYS_NR)
		broken("accepted a reply with an unknown sys_status");
	if (m->type != le16_to_cpu(h->type) || m->flags != le16_to_cpu(h->flags) ||
	    m->len != le32_to_cpu(h->len) ||
	    (u32)m->status != le32_to_cpu(h->status) ||
	    m->key != le32_to_cpu(h->key) ||
	    m->sys_status != le32_to_cpu(h->sys_status) ||
	    m->req_id != le64_to_cpu(h->req_id))
		broken("the checked header differs from the bytes");
}

static void one_frame(u8 *work)
{
	struct r2net_msg m;
	enum r2net_reject r;
	size_t size;
	u8 *buf;

	memset(work, 0, MAX_INPUT);
	size = mutate_frame(work, seed_frame(work));
	buf = malloc(size ? size : 1);	/* exactly size: ASan sees overreads */
	if (!buf)
		abort();
	memcpy(buf, work, size);
	cur_input = buf;
	cur_len = size;
	memset(&m, 0xee, sizeof(m));
	r = r2net_hdr_check((const struct r2net_hdr *)buf, size, &m);
	if ((unsigned int)r >= R2NET_REJECT_NR)
		broken("hdr_check returned no reason");
	frame_reasons[r]++;
	if (r == R2NET_ACCEPT) {
		check_accepted(buf, size, &m);
		decode_payload(buf, &m);
	} else if (r == R2NET_REJECT_TRUNCATED && size >= R2NET_HDR_LEN &&
		   R2NET_HDR_LEN + m.len <= size) {
		broken("truncated, but the whole frame is there");
	}
	if (rnd(4) == 0)
		fuzz_decoders(buf, size);
	free(buf);
}

/* ---- conf ---- */

static const char default_conf[] =
	"cluster:\n\tnode_count = 3\n\tname = ramster\n\n"
	"node:\n\tip_port = 7777\n\tip_address = 10.77.0.10\n\tnumber = 0\n"
	"\tname = ms0\n\tcluster = ramster\n\trole = memory-server\n\n"
	"node:\n\tip_port = 7777\n\tip_address = 10.77.0.11\n\tnumber = 1\n"
	"\tname = client1\n\tcluster = ramster\n\trole = client\n\n"
	"node:\n\tip_port = 7777\n\tip_address = 10.77.0.12\n\tnumber = 2\n"
	"\tname = client2\n\tcluster = ramster\n\trole = client\n\n";

/* two nodes and the three timeouts, keepalive just below idle */
static const char timeouts_conf[] =
	"cluster:\n\tname = r\n\tidle_timeout_ms = 4000\n"
	"\tkeepalive_delay_ms = 3999\n\treconnect_delay_ms = 1000\n"
	"\tnode_count = 2\n"
	"node:\n\tname = a\n\tnumber = 1\n\tip_address = 10.77.2.11\n"
	"\tcluster = r\n\trole = client\n"
	"node:\n\tname = b\n\tnumber = 2\n\tip_address = 10.77.2.12\n"
	"\tcluster = r\n\trole = memory-server\n";

static const char *const tokens[] = {
	"", " ", "=", "==", ":", "#", "\t", "\r", "\n", "0", "1", "-1", "254",
	"255", "256", "65535", "65536", "4294967296", "99999999999999999999999",
	"0x10", "007", "0.0.0.0", "255.255.255.255", "224.0.0.1", "1.2.3",
	"1.2.3.4.5", "01.2.3.4", "10.77.0.10", "10.77.0.11", "::1", "ms0",
	"client1", "ramster", "memory-server", "client", "server",
	"abcdefghijklmnopq", "cluster:", "node:", "name", "number",
	"ip_address", "ip_port", "cluster", "role", "node_count",
	"idle_timeout_ms", "keepalive_delay_ms", "reconnect_delay_ms",
	"2000", "2001", "29999", "30000", "86399999", "86400000", "86400001",
	"\tidle_timeout_ms = 1\n", "\tkeepalive_delay_ms = 30000\n",
};

#define NR_TOKENS (sizeof(tokens) / sizeof(tokens[0]))

struct text {
	char b[MAX_CONF];
	size_t len;
};

/* Byte range of line i (0-based) of t, without its newline. */
static bool line_span(const struct text *t, unsigned int i, size_t *start,
		      size_t *end)
{
	size_t s = 0;

	while (i) {
		const char *nl = memchr(t->b + s, '\n', t->len - s);

		if (!nl)
			return false;
		s = (size_t)(nl - t->b) + 1;
		i--;
	}
	if (s > t->len)
		return false;
	*start = s;
	*end = s;
	while (*end < t->len && t->b[*end] != '\n')
		(*end)++;
	return true;
}

static void splice(struct text *t, size_t at, size_t del, const char *ins,
		   size_t n)
{
	if (t->len - del + n > sizeof(t->b))
		return;
	memmove(t->b + at + n, t->b + at + del, t->len - at - del);
	memcpy(t->b + at, ins, n);
	t->len = t->len - del + n;
}

static void mutate_conf(struct text *t, unsigned int nr_lines)
{
	unsigned int i, n = 1 + rnd(4);
	size_t s, e, s2, e2, pos;
	char line[256];
	const char *tok;

	for (i = 0; i < n; i++) {
		if (!line_span(t, rnd(nr_lines + 1), &s, &e))
			continue;
		switch (rnd(9)) {
		case 0:		/* delete a line */
			splice(t, s, e - s + (e < t->len), "", 0);
			break;
		case 1:		/* duplicate a line */
			if (e - s + 1 < sizeof(line)) {
				memcpy(line, t->b + s, e - s);
				line[e - s] = '\n';
				splice(t, s, 0, line, e - s + 1);
			}
			break;
		case 2:		/* move a line elsewhere */
			if (e - s + 1 < sizeof(line) &&
			    line_span(t, rnd(nr_lines + 1), &s2, &e2) && s2 < s) {
				memcpy(line, t->b + s, e - s);
				line[e - s] = '\n';
				splice(t, s, e - s + (e < t->len), "", 0);
				splice(t, s2, 0, line, e - s + 1);
			}
			break;
		case 3: {	/* the value after '=' becomes a token */
			const char *eq = memchr(t->b + s, '=', e - s);

			tok = tokens[rnd(NR_TOKENS)];
			if (eq) {
				pos = (size_t)(eq - t->b) + 1 + (rnd(4) != 0);
				if (pos <= e)
					splice(t, pos, e - pos, tok, strlen(tok));
			}
			break;
		}
		case 4:		/* a token somewhere in a line */
			tok = tokens[rnd(NR_TOKENS)];
			pos = s + rnd((u32)(e - s + 1));
			splice(t, pos, rnd(3) ? 0 : (e - pos) * rnd(2), tok,
			       strlen(tok));
			break;
		case 5:		/* indentation: none, spaces, or more */
			if (s < t->len && t->b[s] == '\t' && rnd(2))
				splice(t, s, 1, "", 0);
			else if (s < t->len && t->b[s] == '\t')
				splice(t, s, 1, "    ", 4);
			else
				splice(t, s, 0, "\t", 1);
			break;
		case 6:		/* a random byte */
			if (t->len) {
				pos = rnd((u32)t->len);
				t->b[pos] = rnd(4) ? (char)(' ' + rnd(95)) :
						     (char)rnd64();
			}
			break;
		case 7:		/* cut the file */
			t->len = rnd((u32)t->len + 1);
			break;
		default:	/* a new stanza header */
			tok = rnd(2) ? "node:\n" : "cluster:\n";
			splice(t, s, 0, tok, strlen(tok));
			break;
		}
	}
}

static unsigned int count_lines(const char *b, size_t len)
{
	unsigned int n = 1;
	size_t i;

	for (i = 0; i < len; i++)
		n += b[i] == '\n';
	return n;
}

static void check_conf(const struct rconf *c, unsigned int lines)
{
	unsigned int i, j;

	if (!c->idle_timeout_ms || c->idle_timeout_ms > RCONF_MAX_TIMEOUT_MS ||
	    !c->keepalive_delay_ms ||
	    c->keepalive_delay_ms >= c->idle_timeout_ms ||
	    !c->reconnect_delay_ms ||
	    c->reconnect_delay_ms > RCONF_MAX_TIMEOUT_MS)
		broken("bad timeouts accepted");
	if ((!c->idle_timeout_line &&
	     c->idle_timeout_ms != RCONF_IDLE_TIMEOUT_MS_DEFAULT) ||
	    (!c->keepalive_delay_line &&
	     c->keepalive_delay_ms != RCONF_KEEPALIVE_DELAY_MS_DEFAULT) ||
	    (!c->reconnect_delay_line &&
	     c->reconnect_delay_ms != RCONF_RECONNECT_DELAY_MS_DEFAULT) ||
	    c->idle_timeout_line > lines || c->keepalive_delay_line > lines ||
	    c->reconnect_delay_line > lines)
		broken("a timeout not given is not the default, or its line is wrong");

	if (c->nr_nodes != c->node_count || !c->nr_nodes ||
	    c->nr_nodes > RCONF_MAX_NODES)
		broken("node_count does not match the nodes");
	if (!c->name[0] || strlen(c->name) > RCONF_CLUSTER_NAME_MAX)
		broken("bad cluster name accepted");
	for (i = 0; i < c->nr_nodes; i++) {
		const struct rconf_node *a = &c->nodes[i];

		if (a->number > RCONF_MAX_NODE || !a->port || a->port > 65535 ||
		    !a->name[0] || strlen(a->name) > RCONF_NODE_NAME_MAX ||
		    !a->addr[0] || a->addr[0] >= 224 ||
		    (a->role != RCONF_ROLE_CLIENT &&
		     a->role != RCONF_ROLE_MEMORY_SERVER))
			broken("bad node accepted");
		for (j = 0; j < i; j++) {
			const struct rconf_node *b = &c->nodes[j];

			if (a->number == b->number || !strcmp(a->name, b->name) ||
			    !memcmp(a->addr, b->addr, 4))
				broken("duplicate node accepted");
		}
	}
}

static unsigned long conf_ok, conf_refused, conf_files;

static void one_conf(const struct text *seeds, unsigned int nr_seeds,
		     const char *tmpfile)
{
	static struct text t;
	struct rconf_err err;
	struct rconf *c;
	unsigned int lines;
	char prefix[64];
	char *buf;
	FILE *f;

	t = seeds[rnd(nr_seeds)];
	lines = count_lines(t.b, t.len);
	mutate_conf(&t, lines);
	lines = count_lines(t.b, t.len);
	buf = malloc(t.len ? t.len : 1);
	if (!buf)
		abort();
	memcpy(buf, t.b, t.len);
	cur_input = (const u8 *)buf;
	cur_len = t.len;
	c = rconf_parse("fuzz.conf", buf, t.len, &err);
	if (c) {
		conf_ok++;
		check_conf(c, lines);
	} else {
		conf_refused++;
		snprintf(prefix, sizeof(prefix), "fuzz.conf:%u: ", err.line);
		if (!err.line || err.line > lines ||
		    strncmp(err.text, prefix, strlen(prefix)))
			broken("error without a good FILE:LINE:");
	}
	rconf_free(c);
	if (rnd(1024) == 0) {
		struct rconf *c2;

		f = fopen(tmpfile, "w");
		if (!f || fwrite(buf, 1, t.len, f) != t.len || fclose(f))
			abort();
		c2 = rconf_load(tmpfile, &err);
		if (!c2 != !c)
			broken("rconf_load and rconf_parse disagree");
		rconf_free(c2);
		conf_files++;
	}
	free(buf);
}

static bool load_seed(struct text *t, const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	t->len = fread(t->b, 1, sizeof(t->b), f);
	fclose(f);
	return true;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct text seeds[16];
	static u8 work[MAX_INPUT];
	const char *mode = NULL;
	unsigned int nr_seeds = 0;
	char tmpfile[] = "/tmp/fuzz-conf.XXXXXX";
	unsigned long runs = 0;
	double secs = 10, start;
	int i, fd;

	test_seed_from_args(argc, argv, "fuzz");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-m") && i + 1 < argc) {
			mode = argv[++i];
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			secs = strtod(argv[++i], NULL);
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			i++;
		} else if (nr_seeds < 14) {
			if (!load_seed(&seeds[nr_seeds++], argv[i])) {
				perror(argv[i]);
				return 2;
			}
		}
	}
	if (!mode || (strcmp(mode, "frames") && strcmp(mode, "conf"))) {
		fprintf(stderr, "usage: fuzz -m frames|conf [-t SECONDS] [-s SEED] [CONF_FILE...]\n");
		return 2;
	}
	memcpy(seeds[nr_seeds].b, default_conf, sizeof(default_conf) - 1);
	seeds[nr_seeds++].len = sizeof(default_conf) - 1;
	memcpy(seeds[nr_seeds].b, timeouts_conf, sizeof(timeouts_conf) - 1);
	seeds[nr_seeds++].len = sizeof(timeouts_conf) - 1;
	fd = mkstemp(tmpfile);
	if (fd < 0) {
		perror(tmpfile);
		return 2;
	}
	close(fd);

	start = now();
	do {
		for (i = 0; i < 256; i++, runs++) {
			if (mode[0] == 'f')
				one_frame(work);
			else
				one_conf(seeds, nr_seeds, tmpfile);
		}
	} while (now() - start < secs);
	unlink(tmpfile);

	printf("fuzz %s: %lu inputs in %.0f s, no crash\n", mode, runs,
	       now() - start);
	if (mode[0] == 'f') {
		printf("  header:");
		for (i = 0; i < R2NET_REJECT_NR; i++)
			printf(" %s %lu", r2net_reject_name(i), frame_reasons[i]);
		printf("\n  payload of accepted frames:");
		for (i = 0; i < R2NET_REJECT_NR; i++)
			if (payload_reasons[i])
				printf(" %s %lu", r2net_reject_name(i),
				       payload_reasons[i]);
		printf("\n");
	} else {
		printf("  parsed %lu, refused %lu, through files %lu\n", conf_ok,
		       conf_refused, conf_files);
	}
	return 0;
}
