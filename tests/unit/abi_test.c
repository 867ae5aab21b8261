// SPDX-License-Identifier: GPL-2.0
/*
 * abi_test - the tmem and r2net wire ABI (shared-abi/) in userspace.
 *
 *  - the wire layout, byte for byte, of headers (a tmem reply, a user
 *    request), a handshake and a handle; every field's size and offset;
 *  - every message type, and user types of many lengths, requests and
 *    replies, with random field values (key, status, sys_status, req_id),
 *    encoded, checked by r2net_hdr_check(), decoded and compared;
 *  - every malformed header refused with its reason (magic, version, type,
 *    flags, too long, length, status and sys_status, key, truncated), and
 *    the order of the checks; every malformed payload refused by its
 *    decoder;
 *  - zpages: every encoding and length at its edges accepted or refused
 *    by r2net_tmem_zpage_decode(), and the lengths r2net_hdr_check()
 *    allows PUT_ZPAGE and GET_ZPAGE each way;
 *  - pool flags as Xen checked them; sizes.
 *
 * usage: abi_test [-s SEED] [-n ROUNDS]
 */
#include <stdbool.h>
#include <string.h>

#include "r2net_wire.h"
#include "test.h"

static const u16 all_types[] = {
	R2NET_MSG_HANDSHAKE,
	R2NET_MSG_KEEPALIVE_REQ,
	R2NET_MSG_KEEPALIVE_RESP,
	R2NET_MSG_AUTH,
	R2NET_MSG_TMEM_NEW_POOL,
	R2NET_MSG_TMEM_DESTROY_POOL,
	R2NET_MSG_TMEM_PUT_PAGE,
	R2NET_MSG_TMEM_GET_PAGE,
	R2NET_MSG_TMEM_FLUSH_PAGE,
	R2NET_MSG_TMEM_FLUSH_OBJECT,
	R2NET_MSG_TMEM_PUT_ZPAGE,
	R2NET_MSG_TMEM_GET_ZPAGE,
	R2NET_MSG_USER_FIRST,
	0x10ec,
	R2NET_MSG_USER_LAST,
};

#define NR_TYPES (sizeof(all_types) / sizeof(all_types[0]))

/* User payload lengths worth trying, besides random ones. */
static const u32 user_lens[] = {
	0, 1, 2, 7, 8, 31, 32, 33, R2NET_HANDSHAKE_LEN, 4095, 4096, 4097,
	R2NET_MAX_PAYLOAD - 1, R2NET_MAX_PAYLOAD,
};

#define NR_USER_LENS (sizeof(user_lens) / sizeof(user_lens[0]))

/* One message in CPU terms: what was sent, to compare with what comes out. */
struct sample {
	u16 type;
	bool reply;
	u64 req_id;
	s32 status;
	u32 key;
	u32 sys_status;
	u32 len;
	u8 user[R2NET_MAX_PAYLOAD];
	struct r2net_handshake hs;
	struct r2net_tmem_new_pool np;
	u32 pool_id;
	struct tmem_handle h;
	u8 page[TMEM_PAGE_SIZE];
	struct r2net_zpage z;
};

/* A frame buffer aligned for struct r2net_hdr. */
union frame {
	struct r2net_hdr hdr;
	u8 b[R2NET_MAX_FRAME + 64];
};

static void random_handshake(struct r2net_handshake *hs)
{
	unsigned int i, n = 1 + rnd(R2NET_CLUSTER_NAME_LEN);

	memset(hs, 0, sizeof(*hs));
	hs->protocol_version = R2NET_PROTOCOL_VERSION;
	hs->sender_node = (u16)rnd(R2NET_MAX_NODE + 1);
	hs->receiver_node = (u16)rnd(R2NET_MAX_NODE + 1);
	for (i = 0; i < n; i++)
		hs->cluster_name[i] = (char)('!' + rnd('~' - '!' + 1));
	hs->idle_timeout_ms = 2 + rnd(UINT32_MAX - 2);
	hs->keepalive_delay_ms = 1 + rnd(hs->idle_timeout_ms - 1);
	hs->reconnect_delay_ms = 1 + rnd(UINT32_MAX - 1);
	hs->security = rnd(R2NET_SEC_NR);
	for (i = 0; i < R2NET_NONCE_LEN; i++)
		hs->nonce[i] = (u8)rnd(256);
	for (i = 0; i < R2NET_MAC_LEN; i++)
		hs->mac[i] = (u8)rnd(256);
}

static void fill_random(u8 *p, size_t n)
{
	while (n--)
		*p++ = (u8)rnd64();
}

/* A random valid zpage, its data in page; mostly lengths at the edges. */
static void random_zpage(struct r2net_zpage *z)
{
	static const u32 lzo_lens[] = { 1, 2, 100, R2NET_ZPAGE_LZO_MAX - 1,
					R2NET_ZPAGE_LZO_MAX };

	z->enc = (u8)(R2NET_ZPAGE_SAME + rnd(3));
	switch (z->enc) {
	case R2NET_ZPAGE_SAME:
		z->arg = rnd(2) ? (u32)rnd64() : rnd(2) ? 0 : UINT32_MAX;
		break;
	case R2NET_ZPAGE_LZO:
		z->arg = rnd(2) ? lzo_lens[rnd(5)] : 1 + rnd(R2NET_ZPAGE_LZO_MAX);
		break;
	default:
		z->arg = TMEM_PAGE_SIZE;
		break;
	}
}

static bool is_zpage_msg(u16 type, bool reply, u32 len)
{
	return (type == R2NET_MSG_TMEM_PUT_ZPAGE && !reply) ||
	       (type == R2NET_MSG_TMEM_GET_ZPAGE && reply && len);
}

/* A random message of this type; reply is for tmem and user types only. */
static void random_sample(struct sample *s, u16 type, bool reply)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->type = type;
	s->reply = reply;
	s->req_id = rnd64();
	s->status = s->reply ? (s32)rnd64() : 0;
	s->sys_status = s->reply ? rnd(R2NET_SYS_NR) : 0;
	/* system messages have no key; tmem uses key 0; users any */
	if (r2net_msg_type_user(type))
		s->key = rnd(4) ? (u32)rnd64() : rnd(2) ? 0 : UINT32_MAX;
	random_handshake(&s->hs);
	s->np.uuid[0] = rnd64();
	s->np.uuid[1] = rnd64();
	s->np.flags = (u32)rnd64();
	s->pool_id = (u32)rnd64();
	s->h.pool_id = (u32)rnd64();
	s->h.index = (u32)rnd64();
	for (i = 0; i < 3; i++)
		s->h.oid[i] = rnd64();
	for (i = 0; i < TMEM_PAGE_SIZE; i++)
		s->page[i] = (u8)rnd64();
	random_zpage(&s->z);

	switch (type) {
	case R2NET_MSG_HANDSHAKE:
		s->len = R2NET_HANDSHAKE_LEN;
		break;
	case R2NET_MSG_AUTH:
		s->len = R2NET_MAC_LEN;
		fill_random(s->user, s->len);
		break;
	case R2NET_MSG_TMEM_NEW_POOL:
		s->len = s->reply ? 0 : R2NET_NEW_POOL_LEN;
		break;
	case R2NET_MSG_TMEM_DESTROY_POOL:
		s->len = s->reply ? 0 : R2NET_POOL_LEN;
		break;
	case R2NET_MSG_TMEM_PUT_PAGE:
		s->len = s->reply ? 0 : R2NET_PAGE_MSG_LEN;
		break;
	case R2NET_MSG_TMEM_GET_PAGE:
		if (!s->reply)
			s->len = R2NET_HANDLE_LEN;
		else if (rnd(2))
			s->len = R2NET_PAGE_MSG_LEN;
		break;
	case R2NET_MSG_TMEM_FLUSH_PAGE:
	case R2NET_MSG_TMEM_FLUSH_OBJECT:
		s->len = s->reply ? 0 : R2NET_HANDLE_LEN;
		break;
	case R2NET_MSG_TMEM_PUT_ZPAGE:
		if (!s->reply)
			s->len = R2NET_ZPAGE_HDR_LEN + r2net_zpage_data_len(&s->z);
		break;
	case R2NET_MSG_TMEM_GET_ZPAGE:
		if (!s->reply)
			s->len = R2NET_HANDLE_LEN;
		else if (rnd(2))
			s->len = R2NET_ZPAGE_HDR_LEN + r2net_zpage_data_len(&s->z);
		break;
	default:	/* keepalives: empty; user types: any length */
		if (!r2net_msg_type_user(type))
			break;
		s->len = rnd(2) ? user_lens[rnd(NR_USER_LENS)] :
				  rnd(R2NET_MAX_PAYLOAD + 1);
		fill_random(s->user, s->len);
		break;
	}
}

/* Encode s into f; returns the frame size. */
static size_t encode(union frame *f, const struct sample *s)
{
	void *payload = f->b + R2NET_HDR_LEN;

	memset(f, 0xa5, sizeof(*f));
	r2net_hdr_init(&f->hdr, s->type, s->reply ? R2NET_F_REPLY : 0, s->len,
		       s->req_id, s->status);
	r2net_hdr_set_key(&f->hdr, s->key, s->sys_status);
	if (!s->len)
		return R2NET_HDR_LEN;
	if (r2net_msg_type_user(s->type)) {
		memcpy(payload, s->user, s->len);
		return R2NET_HDR_LEN + s->len;
	}
	if (is_zpage_msg(s->type, s->reply, s->len)) {
		r2net_tmem_zpage_encode(payload, &s->h, &s->z);
		memcpy((u8 *)payload + R2NET_ZPAGE_HDR_LEN, s->page,
		       r2net_zpage_data_len(&s->z));
		return R2NET_HDR_LEN + s->len;
	}
	switch (s->type) {
	case R2NET_MSG_HANDSHAKE:
		r2net_handshake_encode(payload, &s->hs);
		break;
	case R2NET_MSG_AUTH:
		memcpy(payload, s->user, s->len);
		break;
	case R2NET_MSG_TMEM_NEW_POOL:
		r2net_tmem_new_pool_encode(payload, &s->np);
		break;
	case R2NET_MSG_TMEM_DESTROY_POOL:
		r2net_tmem_pool_encode(payload, s->pool_id);
		break;
	case R2NET_MSG_TMEM_GET_PAGE:
	case R2NET_MSG_TMEM_FLUSH_PAGE:
	case R2NET_MSG_TMEM_FLUSH_OBJECT:
	case R2NET_MSG_TMEM_GET_ZPAGE:
		if (s->len == R2NET_HANDLE_LEN) {
			tmem_handle_to_le(payload, &s->h);
			break;
		}
		/* a GET reply with the page */
		/* fall through */
	case R2NET_MSG_TMEM_PUT_PAGE:
		r2net_tmem_page_encode(payload, &s->h, s->page);
		break;
	}
	return R2NET_HDR_LEN + s->len;
}

static bool handle_eq(const struct tmem_handle *a, const struct tmem_handle *b)
{
	return a->pool_id == b->pool_id && a->index == b->index &&
	       a->oid[0] == b->oid[0] && a->oid[1] == b->oid[1] &&
	       a->oid[2] == b->oid[2];
}

/* Check and decode a frame of exactly size bytes (a heap copy, for ASan). */
static void decode_and_compare(const union frame *f, size_t size,
			       const struct sample *s)
{
	u8 *buf = malloc(size);
	const void *payload = buf + R2NET_HDR_LEN;
	struct r2net_handshake hs;
	struct r2net_tmem_new_pool np;
	struct tmem_handle h;
	struct r2net_zpage z;
	const u8 *page;
	struct r2net_msg m;
	enum r2net_reject r;
	u32 pool_id = 0;

	if (!buf)
		abort();
	/* the CHECKs after a refused decode must not read garbage */
	memset(&hs, 0, sizeof(hs));
	memset(&np, 0, sizeof(np));
	memset(&h, 0, sizeof(h));
	memcpy(buf, f->b, size);
	r = r2net_hdr_check((const struct r2net_hdr *)buf, size, &m);
	CHECK(r == R2NET_ACCEPT, "type %#x reply %d len %u: %s", s->type,
	      s->reply, s->len, r2net_reject_name(r));
	if (r != R2NET_ACCEPT)
		goto out;
	CHECK(m.type == s->type && m.len == s->len && m.req_id == s->req_id &&
	      m.status == s->status && m.key == s->key &&
	      m.sys_status == s->sys_status &&
	      m.flags == (s->reply ? R2NET_F_REPLY : 0),
	      "type %#x reply %d len %u: header fields differ after the round trip",
	      s->type, s->reply, s->len);
	if (!s->len)
		goto out;
	if (r2net_msg_type_user(s->type)) {
		CHECK(!memcmp(payload, s->user, s->len),
		      "type %#x len %u: user payload differs", s->type, s->len);
		goto out;
	}
	if (is_zpage_msg(s->type, s->reply, s->len)) {
		r = r2net_tmem_zpage_decode(&h, &z, &page, payload, m.len);
		CHECK(r == R2NET_ACCEPT, "zpage enc %u arg %u: %s", s->z.enc,
		      s->z.arg, r2net_reject_name(r));
		if (r != R2NET_ACCEPT)
			goto out;
		CHECK(handle_eq(&h, &s->h) && z.enc == s->z.enc &&
		      z.arg == s->z.arg, "type %#x: zpage fields differ",
		      s->type);
		CHECK(page == buf + R2NET_HDR_LEN + R2NET_ZPAGE_HDR_LEN,
		      "zpage data not after its header");
		CHECK(!memcmp(page, s->page, r2net_zpage_data_len(&z)),
		      "zpage data differs");
		goto out;
	}
	switch (s->type) {
	case R2NET_MSG_HANDSHAKE:
		r = r2net_handshake_decode(&hs, payload, m.len);
		CHECK(r == R2NET_ACCEPT, "handshake: %s", r2net_reject_name(r));
		CHECK(hs.protocol_version == s->hs.protocol_version &&
		      hs.sender_node == s->hs.sender_node &&
		      hs.receiver_node == s->hs.receiver_node &&
		      !strcmp(hs.cluster_name, s->hs.cluster_name) &&
		      hs.idle_timeout_ms == s->hs.idle_timeout_ms &&
		      hs.keepalive_delay_ms == s->hs.keepalive_delay_ms &&
		      hs.reconnect_delay_ms == s->hs.reconnect_delay_ms &&
		      hs.security == s->hs.security &&
		      !memcmp(hs.nonce, s->hs.nonce, sizeof(hs.nonce)) &&
		      !memcmp(hs.mac, s->hs.mac, sizeof(hs.mac)),
		      "handshake fields differ (name '%s' vs '%s')",
		      hs.cluster_name, s->hs.cluster_name);
		break;
	case R2NET_MSG_TMEM_NEW_POOL:
		r = r2net_tmem_new_pool_decode(&np, payload, m.len);
		CHECK(r == R2NET_ACCEPT, "new_pool: %s", r2net_reject_name(r));
		CHECK(np.uuid[0] == s->np.uuid[0] && np.uuid[1] == s->np.uuid[1] &&
		      np.flags == s->np.flags, "new_pool fields differ");
		break;
	case R2NET_MSG_TMEM_DESTROY_POOL:
		r = r2net_tmem_pool_decode(&pool_id, payload, m.len);
		CHECK(r == R2NET_ACCEPT, "destroy_pool: %s", r2net_reject_name(r));
		CHECK(pool_id == s->pool_id, "pool id %u vs %u", pool_id,
		      s->pool_id);
		break;
	case R2NET_MSG_AUTH:
		CHECK(!memcmp(payload, s->user, m.len), "auth mac differs");
		break;
	default:
		if (m.len == R2NET_HANDLE_LEN) {
			r = r2net_tmem_handle_decode(&h, payload, m.len);
			CHECK(r == R2NET_ACCEPT, "handle: %s", r2net_reject_name(r));
			CHECK(handle_eq(&h, &s->h), "type %#x: handle differs",
			      s->type);
			break;
		}
		r = r2net_tmem_page_decode(&h, &page, payload, m.len);
		CHECK(r == R2NET_ACCEPT, "page: %s", r2net_reject_name(r));
		if (r != R2NET_ACCEPT)
			break;
		CHECK(handle_eq(&h, &s->h), "type %#x: page handle differs",
		      s->type);
		CHECK(page == buf + R2NET_HDR_LEN + R2NET_HANDLE_LEN,
		      "page pointer not inside the frame");
		CHECK(!memcmp(page, s->page, TMEM_PAGE_SIZE), "page differs");
		break;
	}
out:
	free(buf);
}

static void test_round_trips(unsigned int rounds)
{
	static union frame f;
	static struct sample s;
	unsigned int i, t;
	u16 type;

	for (i = 0; i < rounds; i++) {
		for (t = 0; t < NR_TYPES; t++) {
			random_sample(&s, all_types[t],
				      !r2net_msg_type_system(all_types[t]) &&
				      rnd(2));
			decode_and_compare(&f, encode(&f, &s), &s);
		}
		/* a random user type, request and reply */
		type = (u16)(R2NET_MSG_USER_FIRST +
			     rnd(R2NET_MSG_USER_LAST - R2NET_MSG_USER_FIRST + 1));
		random_sample(&s, type, false);
		decode_and_compare(&f, encode(&f, &s), &s);
		random_sample(&s, type, true);
		decode_and_compare(&f, encode(&f, &s), &s);
	}
	/* every interesting user length, both ways, every sys_status */
	for (i = 0; i < NR_USER_LENS; i++) {
		for (t = 0; t <= R2NET_SYS_NR; t++) {
			random_sample(&s, R2NET_MSG_USER_FIRST + i, t < R2NET_SYS_NR);
			s.len = user_lens[i];
			fill_random(s.user, s.len);
			if (t < R2NET_SYS_NR)
				s.sys_status = t;
			decode_and_compare(&f, encode(&f, &s), &s);
		}
	}
}

static void expect_bytes(const void *got, const u8 *want, size_t n,
			 const char *what)
{
	CHECK(!memcmp(got, want, n), "%s: wire bytes differ", what);
}

/* The layout on the wire, byte by byte: what other implementations see. */
static void test_golden(void)
{
	/* a PUT_PAGE reply: -TMEM_ENOMEM, sys_status NOMEM, a key */
	static const u8 hdr_bytes[R2NET_HDR_LEN] = {
		0xa5, 0x52, 0x03, 0x00, 0x04, 0x01, 0x01, 0x00,
		0x20, 0x10, 0x00, 0x00, 0xf4, 0xff, 0xff, 0xff,
		0x44, 0x33, 0x22, 0x11, 0x03, 0x00, 0x00, 0x00,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	};
	/* a user request: r2echo's type and key, 5 bytes */
	static const u8 user_bytes[R2NET_HDR_LEN] = {
		0xa5, 0x52, 0x03, 0x00, 0xec, 0x10, 0x00, 0x00,
		0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x6f, 0x68, 0x63, 0x65, 0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	/* a keepalive: no key, no status */
	static const u8 ka_bytes[R2NET_HDR_LEN] = {
		0xa5, 0x52, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x2a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	static const u8 hs_bytes[R2NET_HANDSHAKE_LEN] = {
		0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0xfe, 0x00,
		'r', 'a', 'm', 's', 't', 'e', 'r', 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0x30, 0x75, 0x00, 0x00, 0xd0, 0x07, 0x00, 0x00,
		0xd0, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		/* nonce */
		0xaa, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xbb,
		/* mac */
		0xcc, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xdd,
	};
	static const u8 handle_bytes[R2NET_HANDLE_LEN] = {
		0x03, 0x00, 0x00, 0x00, 0x44, 0x33, 0x22, 0x11,
		0x01, 0, 0, 0, 0, 0, 0, 0,
		0x02, 0, 0, 0, 0, 0, 0, 0x80,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	struct r2net_handshake hs = {
		.protocol_version = R2NET_PROTOCOL_VERSION,
		.sender_node = 2,
		.receiver_node = 254,
		.cluster_name = "ramster",
		.idle_timeout_ms = R2NET_IDLE_TIMEOUT_MS_DEFAULT,
		.keepalive_delay_ms = R2NET_KEEPALIVE_DELAY_MS_DEFAULT,
		.reconnect_delay_ms = R2NET_RECONNECT_DELAY_MS_DEFAULT,
		.nonce = { [0] = 0xaa, [R2NET_NONCE_LEN - 1] = 0xbb },
		.mac = { [0] = 0xcc, [R2NET_MAC_LEN - 1] = 0xdd },
	};
	struct tmem_handle h = {
		.pool_id = 3,
		.index = 0x11223344,
		.oid = { 1, 0x8000000000000002ULL, UINT64_MAX },
	};
	/* a zpage header: that handle, LZO, 0x123 bytes */
	static const u8 zpage_tail[8] = {
		0x02, 0x00, 0x00, 0x00, 0x23, 0x01, 0x00, 0x00,
	};
	struct r2net_zpage z = { .enc = R2NET_ZPAGE_LZO, .arg = 0x123 };
	struct r2net_tmem_zpage_le zw;
	struct r2net_handshake_le hsw;
	struct tmem_handle_le hw;
	struct r2net_hdr hdr;

	memset(&hdr, 0x5a, sizeof(hdr));
	r2net_hdr_init(&hdr, R2NET_MSG_TMEM_PUT_PAGE, R2NET_F_REPLY, 0x1020,
		       0x0102030405060708ULL, -TMEM_ENOMEM);
	r2net_hdr_set_key(&hdr, 0x11223344, R2NET_SYS_NOMEM);
	expect_bytes(&hdr, hdr_bytes, sizeof(hdr_bytes), "tmem reply header");
	/* r2net_hdr_init() alone zeroes key and sys_status */
	memset(&hdr, 0x5a, sizeof(hdr));
	r2net_hdr_init(&hdr, 0x10ec, 0, 5, UINT64_MAX, 0);
	CHECK(!hdr.key && !hdr.sys_status, "hdr_init leaves key or sys_status");
	r2net_hdr_set_key(&hdr, 0x6563686f, 0);
	expect_bytes(&hdr, user_bytes, sizeof(user_bytes), "user request header");
	memset(&hdr, 0x5a, sizeof(hdr));
	r2net_hdr_init(&hdr, R2NET_MSG_KEEPALIVE_REQ, 0, 0, 42, 0);
	expect_bytes(&hdr, ka_bytes, sizeof(ka_bytes), "keepalive header");
	r2net_handshake_encode(&hsw, &hs);
	expect_bytes(&hsw, hs_bytes, sizeof(hs_bytes), "handshake");
	tmem_handle_to_le(&hw, &h);
	expect_bytes(&hw, handle_bytes, sizeof(handle_bytes), "handle");
	memset(&zw, 0x5a, sizeof(zw));
	r2net_tmem_zpage_encode(&zw, &h, &z);
	expect_bytes(&zw, handle_bytes, sizeof(handle_bytes), "zpage handle");
	expect_bytes((u8 *)&zw + R2NET_HANDLE_LEN, zpage_tail,
		     sizeof(zpage_tail), "zpage header");
	CHECK(R2NET_ZPAGE_SAME == 1 && R2NET_ZPAGE_LZO == 2 &&
	      R2NET_ZPAGE_RAW == 3, "zpage encodings changed");

	CHECK(TMEM_NEW_POOL == 1 && TMEM_DESTROY_POOL == 2 &&
	      TMEM_PUT_PAGE == 4 && TMEM_GET_PAGE == 5 &&
	      TMEM_FLUSH_PAGE == 6 && TMEM_FLUSH_OBJECT == 7,
	      "tmem op numbers are not Xen's");
	CHECK(TMEM_POOL_PERSIST == 1 && TMEM_POOL_SHARED == 2 &&
	      TMEM_POOL_PAGESIZE_SHIFT == 4 && TMEM_POOL_VERSION_SHIFT == 24,
	      "pool flags are not Xen's");
	CHECK(TMEM_EFROZEN == 1000 && TMEM_EEMPTY == 1001,
	      "special errors are not Xen's");
	CHECK(R2NET_MSG_USER_FIRST == 0x1000 && R2NET_MSG_USER_LAST == 0x1fff,
	      "user type range");
	CHECK(R2NET_SYS_OK == 0 && R2NET_SYS_NO_HANDLER == 1 &&
	      R2NET_SYS_TOO_LONG == 2 && R2NET_SYS_NOMEM == 3 &&
	      R2NET_SYS_NR == 4, "sys_status numbers changed");
}

static void test_sizes(void)
{
	static const struct { const char *name; size_t off, size; } hdr[] = {
		{ "magic", offsetof(struct r2net_hdr, magic), 2 },
		{ "version", offsetof(struct r2net_hdr, version), 2 },
		{ "type", offsetof(struct r2net_hdr, type), 2 },
		{ "flags", offsetof(struct r2net_hdr, flags), 2 },
		{ "len", offsetof(struct r2net_hdr, len), 4 },
		{ "status", offsetof(struct r2net_hdr, status), 4 },
		{ "key", offsetof(struct r2net_hdr, key), 4 },
		{ "sys_status", offsetof(struct r2net_hdr, sys_status), 4 },
		{ "req_id", offsetof(struct r2net_hdr, req_id), 8 },
	};
	struct r2net_hdr h;
	size_t i, at = 0;

	/* every field where the next one ends: no padding, no gap */
	for (i = 0; i < sizeof(hdr) / sizeof(hdr[0]); i++) {
		CHECK(hdr[i].off == at, "hdr.%s at %zu, want %zu", hdr[i].name,
		      hdr[i].off, at);
		at += hdr[i].size;
	}
	CHECK(at == 32, "hdr fields end at %zu", at);
	CHECK(sizeof(h.magic) == 2 && sizeof(h.version) == 2 &&
	      sizeof(h.type) == 2 && sizeof(h.flags) == 2 &&
	      sizeof(h.len) == 4 && sizeof(h.status) == 4 &&
	      sizeof(h.key) == 4 && sizeof(h.sys_status) == 4 &&
	      sizeof(h.req_id) == 8, "hdr field widths");
	CHECK(sizeof(struct r2net_hdr) == 32, "hdr %zu", sizeof(struct r2net_hdr));
	CHECK(R2NET_HDR_LEN == 32, "R2NET_HDR_LEN %d", R2NET_HDR_LEN);
	CHECK(sizeof(struct r2net_handshake_le) == 104, "handshake %zu",
	      sizeof(struct r2net_handshake_le));
	CHECK(sizeof(struct tmem_handle_le) == 32, "handle %zu",
	      sizeof(struct tmem_handle_le));
	CHECK(sizeof(struct r2net_tmem_new_pool_le) == 24, "new_pool %zu",
	      sizeof(struct r2net_tmem_new_pool_le));
	CHECK(sizeof(struct r2net_tmem_pool_le) == 8, "pool %zu",
	      sizeof(struct r2net_tmem_pool_le));
	CHECK(sizeof(struct r2net_tmem_page_le) == 32 + 4096, "page msg %zu",
	      sizeof(struct r2net_tmem_page_le));
	CHECK(R2NET_MAX_PAYLOAD >= R2NET_HANDLE_LEN + 4096,
	      "a payload cannot hold a handle and a whole page");
	CHECK(sizeof(struct r2net_tmem_zpage_le) == 40, "zpage header %zu",
	      sizeof(struct r2net_tmem_zpage_le));
	CHECK(offsetof(struct r2net_tmem_zpage_le, enc) == 32 &&
	      offsetof(struct r2net_tmem_zpage_le, reserved) == 33 &&
	      offsetof(struct r2net_tmem_zpage_le, arg) == 36,
	      "zpage header field offsets");
	CHECK(R2NET_ZPAGE_HDR_LEN == 40 && R2NET_ZPAGE_MSG_MAX == 40 + 4096 &&
	      R2NET_ZPAGE_LZO_MAX == 4095, "zpage lengths %d %d %d",
	      R2NET_ZPAGE_HDR_LEN, R2NET_ZPAGE_MSG_MAX, R2NET_ZPAGE_LZO_MAX);
	CHECK(R2NET_MAX_PAYLOAD >= R2NET_ZPAGE_MSG_MAX,
	      "a payload cannot hold a zpage of a whole page");
	CHECK(sizeof(struct r2net_tmem_batch_le) == 8, "batch header %zu",
	      sizeof(struct r2net_tmem_batch_le));
	CHECK(R2NET_BATCH_MAX == 16, "batch max %d", R2NET_BATCH_MAX);
	CHECK(R2NET_MAX_PAYLOAD == 8 + 16 * 4136, "max payload %d",
	      R2NET_MAX_PAYLOAD);
	CHECK(R2NET_MAX_FRAME == 32 + 66184, "max frame %d", R2NET_MAX_FRAME);
}

/*
 * A valid frame of this type in f; a GET reply holds a page, a GET_ZPAGE
 * reply a zpage, a user message 1..R2NET_MAX_PAYLOAD bytes.  Its size.
 */
static size_t valid_frame(union frame *f, u16 type, bool reply)
{
	static struct sample s;

	random_sample(&s, type, reply);
	if (reply) {
		s.status = 1;
		if (type == R2NET_MSG_TMEM_GET_PAGE)
			s.len = R2NET_PAGE_MSG_LEN;
		if (type == R2NET_MSG_TMEM_GET_ZPAGE)
			s.len = R2NET_ZPAGE_HDR_LEN +
				r2net_zpage_data_len(&s.z);
	}
	if (r2net_msg_type_user(type) && !s.len) {
		s.len = 1 + rnd(R2NET_MAX_PAYLOAD);
		fill_random(s.user, s.len);
	}
	return encode(f, &s);
}

static enum r2net_reject check_copy(const union frame *f, size_t size,
				    struct r2net_msg *m)
{
	u8 *buf = malloc(size ? size : 1);
	enum r2net_reject r;

	if (!buf)
		abort();
	memcpy(buf, f->b, size);
	r = r2net_hdr_check((const struct r2net_hdr *)buf, size, m);
	free(buf);
	return r;
}

#define EXPECT_REJECT(f, size, want, what)				\
	do {								\
		struct r2net_msg m_;					\
		enum r2net_reject r_ = check_copy(f, size, &m_);	\
									\
		CHECK(r_ == (want), "%s: got %s, want %s", what,	\
		      r2net_reject_name(r_), r2net_reject_name(want));	\
	} while (0)

/* key, status and sys_status, as requests and as replies, of this type */
static void test_reject_key_status(union frame *f, u16 type)
{
	bool sys = r2net_msg_type_system(type);
	enum r2net_reject want;
	struct r2net_msg m;
	char what[96];
	size_t size;
	u32 v;

	size = valid_frame(f, type, false);
	snprintf(what, sizeof(what), "type %#x sys_status in request", type);
	f->hdr.sys_status = cpu_to_le32(R2NET_SYS_NO_HANDLER);
	EXPECT_REJECT(f, size, R2NET_REJECT_BAD_STATUS, what);
	f->hdr.sys_status = cpu_to_le32(R2NET_SYS_NR);
	EXPECT_REJECT(f, size, R2NET_REJECT_BAD_STATUS, what);
	f->hdr.sys_status = cpu_to_le32(UINT32_MAX);
	EXPECT_REJECT(f, size, R2NET_REJECT_BAD_STATUS, what);
	f->hdr.sys_status = 0;
	EXPECT_REJECT(f, size, R2NET_ACCEPT, what);

	/* a key on a system message is refused; others may have any key */
	snprintf(what, sizeof(what), "type %#x with a key", type);
	want = sys ? R2NET_REJECT_BAD_KEY : R2NET_ACCEPT;
	f->hdr.key = cpu_to_le32(1);
	EXPECT_REJECT(f, size, want, what);
	f->hdr.key = cpu_to_le32(0x80000000u);
	EXPECT_REJECT(f, size, want, what);
	f->hdr.key = cpu_to_le32(UINT32_MAX);
	EXPECT_REJECT(f, size, want, what);
	/* status and sys_status are checked before the key */
	snprintf(what, sizeof(what), "type %#x with a key and a status", type);
	f->hdr.status = cpu_to_le32(1);
	EXPECT_REJECT(f, size, R2NET_REJECT_BAD_STATUS, what);
	f->hdr.status = 0;
	f->hdr.sys_status = cpu_to_le32(1);
	EXPECT_REJECT(f, size, R2NET_REJECT_BAD_STATUS, what);
	f->hdr.sys_status = 0;
	/* a header alone already tells a bad key */
	snprintf(what, sizeof(what), "type %#x header alone with a key", type);
	if (size > R2NET_HDR_LEN)
		EXPECT_REJECT(f, R2NET_HDR_LEN, sys ? R2NET_REJECT_BAD_KEY :
			      R2NET_REJECT_TRUNCATED, what);
	f->hdr.key = 0;

	/* as a reply */
	snprintf(what, sizeof(what), "type %#x reply", type);
	if (sys) {
		/* never a reply, whatever the rest says */
		f->hdr.flags = cpu_to_le16(R2NET_F_REPLY);
		EXPECT_REJECT(f, size, R2NET_REJECT_BAD_FLAGS, what);
		f->hdr.key = cpu_to_le32(7);
		f->hdr.sys_status = cpu_to_le32(UINT32_MAX);
		EXPECT_REJECT(f, size, R2NET_REJECT_BAD_FLAGS, what);
		return;
	}
	size = valid_frame(f, type, true);
	for (v = 0; v < R2NET_SYS_NR; v++) {
		f->hdr.sys_status = cpu_to_le32(v);
		f->hdr.status = cpu_to_le32(v ? 0 : (u32)-TMEM_EFROZEN);
		f->hdr.key = cpu_to_le32(v * 0x01010101u);
		EXPECT_REJECT(f, size, R2NET_ACCEPT, what);
	}
	snprintf(what, sizeof(what), "type %#x reply, sys_status out of range",
		 type);
	f->hdr.sys_status = cpu_to_le32(R2NET_SYS_NR);
	EXPECT_REJECT(f, size, R2NET_REJECT_BAD_STATUS, what);
	f->hdr.sys_status = cpu_to_le32(0x100 + R2NET_SYS_OK);
	EXPECT_REJECT(f, size, R2NET_REJECT_BAD_STATUS, what);
	f->hdr.sys_status = cpu_to_le32(UINT32_MAX);
	EXPECT_REJECT(f, size, R2NET_REJECT_BAD_STATUS, what);
	/* known without the payload: a header alone says so */
	if (size > R2NET_HDR_LEN)
		EXPECT_REJECT(f, R2NET_HDR_LEN, R2NET_REJECT_BAD_STATUS, what);
	f->hdr.sys_status = cpu_to_le32(R2NET_SYS_TOO_LONG);
	snprintf(what, sizeof(what), "type %#x reply, header alone", type);
	if (size > R2NET_HDR_LEN) {
		CHECK(check_copy(f, R2NET_HDR_LEN, &m) == R2NET_REJECT_TRUNCATED &&
		      m.len == size - R2NET_HDR_LEN && m.flags == R2NET_F_REPLY &&
		      m.key == 0x03030303u && m.sys_status == R2NET_SYS_TOO_LONG,
		      "%s: fields not given", what);
	}
	EXPECT_REJECT(f, size, R2NET_ACCEPT, what);
}

/* What r2net_hdr_check() says of a request of this type and length. */
static enum r2net_reject request_len_want(u16 type, u32 len)
{
	if (len > R2NET_MAX_PAYLOAD)
		return R2NET_REJECT_TOO_LONG;
	if (r2net_msg_type_user(type))
		return R2NET_ACCEPT;
	if (type == R2NET_MSG_TMEM_PUT_ZPAGE && len >= R2NET_ZPAGE_HDR_LEN &&
	    len <= R2NET_ZPAGE_MSG_MAX)
		return R2NET_ACCEPT;
	return R2NET_REJECT_BAD_LENGTH;
}

static void test_rejects(void)
{
	static union frame f;
	enum r2net_reject want;
	struct r2net_msg m;
	unsigned int t;
	size_t size, n;
	char what[96];
	for (t = 0; t < NR_TYPES; t++) {
		u16 type = all_types[t];
		bool user = r2net_msg_type_user(type);

		size = valid_frame(&f, type, false);
		snprintf(what, sizeof(what), "type %#x", type);
		EXPECT_REJECT(&f, size, R2NET_ACCEPT, what);
		/* bytes of the next frame after it are fine */
		EXPECT_REJECT(&f, size + 64, R2NET_ACCEPT, what);

		for (n = 0; n < size; n += (n < R2NET_HDR_LEN + 8 ? 1 : 509)) {
			snprintf(what, sizeof(what), "type %#x cut to %zu", type, n);
			EXPECT_REJECT(&f, n, R2NET_REJECT_TRUNCATED, what);
		}
		/* a stream reader holding only the header learns the length */
		if (size > R2NET_HDR_LEN) {
			CHECK(check_copy(&f, R2NET_HDR_LEN, &m) ==
			      R2NET_REJECT_TRUNCATED &&
			      m.len == size - R2NET_HDR_LEN && m.type == type,
			      "type %#x: header alone does not give the length",
			      type);
		}

		f.hdr.magic = cpu_to_le16(R2NET_MAGIC ^ 0x100);
		snprintf(what, sizeof(what), "type %#x magic", type);
		EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_MAGIC, what);
		f.hdr.magic = cpu_to_le16(0xfa55);	/* o2net's */
		EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_MAGIC, what);
		f.hdr.magic = cpu_to_le16(R2NET_MAGIC);

		snprintf(what, sizeof(what), "type %#x version", type);
		f.hdr.version = cpu_to_le16(R2NET_PROTOCOL_VERSION + 1);
		EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_VERSION, what);
		f.hdr.version = cpu_to_le16(0);
		EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_VERSION, what);
		f.hdr.version = cpu_to_le16(R2NET_PROTOCOL_VERSION);

		snprintf(what, sizeof(what), "type %#x flags", type);
		f.hdr.flags = cpu_to_le16(0x8000);
		EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_FLAGS, what);
		f.hdr.flags = cpu_to_le16(0x0002);
		EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_FLAGS, what);
		f.hdr.flags = cpu_to_le16(0x0002 | R2NET_F_REPLY);
		EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_FLAGS, what);
		f.hdr.flags = 0;

		snprintf(what, sizeof(what), "type %#x len", type);
		f.hdr.len = cpu_to_le32(R2NET_MAX_PAYLOAD + 1);
		EXPECT_REJECT(&f, R2NET_MAX_FRAME + 1, R2NET_REJECT_TOO_LONG, what);
		f.hdr.len = cpu_to_le32(UINT32_MAX);
		EXPECT_REJECT(&f, size, R2NET_REJECT_TOO_LONG, what);
		f.hdr.len = cpu_to_le32(0x80000000u);
		EXPECT_REJECT(&f, size, R2NET_REJECT_TOO_LONG, what);
		/*
		 * A user message may be any length, a zpage 40..4136; the
		 * others have theirs.
		 */
		f.hdr.len = cpu_to_le32(size - R2NET_HDR_LEN + 1);
		EXPECT_REJECT(&f, size + 1,
			      request_len_want(type, size - R2NET_HDR_LEN + 1),
			      what);
		if (size > R2NET_HDR_LEN) {
			f.hdr.len = cpu_to_le32(size - R2NET_HDR_LEN - 1);
			EXPECT_REJECT(&f, size,
				      request_len_want(type,
						       size - R2NET_HDR_LEN - 1),
				      what);
		}
		f.hdr.len = cpu_to_le32(size - R2NET_HDR_LEN);

		snprintf(what, sizeof(what), "type %#x status in request", type);
		f.hdr.status = cpu_to_le32(1);
		EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_STATUS, what);
		f.hdr.status = cpu_to_le32((u32)-TMEM_ENOMEM);
		EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_STATUS, what);
		f.hdr.status = 0;
		EXPECT_REJECT(&f, size, R2NET_ACCEPT, what);

		/*
		 * REPLY is for tmem and user types; tmem replies have other
		 * lengths than their requests, user replies any.
		 */
		size = valid_frame(&f, type, false);
		f.hdr.flags = cpu_to_le16(R2NET_F_REPLY);
		snprintf(what, sizeof(what), "type %#x as a reply", type);
		if (r2net_msg_type_system(type)) {
			EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_FLAGS, what);
		} else if (user) {
			EXPECT_REJECT(&f, size, R2NET_ACCEPT, what);
			f.hdr.status = cpu_to_le32((u32)-TMEM_EFROZEN);
			EXPECT_REJECT(&f, size, R2NET_ACCEPT, what);
		} else if (type != R2NET_MSG_TMEM_GET_PAGE) {
			EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_LENGTH, what);
			size = valid_frame(&f, type, true);
			f.hdr.status = cpu_to_le32((u32)-TMEM_EFROZEN);
			EXPECT_REJECT(&f, size, R2NET_ACCEPT, what);
		}

		test_reject_key_status(&f, type);
	}

	/* unknown types, around and between the known ones */
	{
		static const u16 bad_types[] = {
			0, 5, 0xff, R2NET_MSG_TMEM_BASE,
			R2NET_MSG_TMEM_BASE + 3, R2NET_MSG_TMEM_BASE + 8,
			R2NET_MSG_TMEM_BASE + 0x100 + TMEM_PUT_PAGE,
			R2NET_MSG_TMEM_ZPAGE_BASE,
			R2NET_MSG_TMEM_ZPAGE_BASE + TMEM_NEW_POOL,
			R2NET_MSG_TMEM_ZPAGE_BASE + TMEM_FLUSH_PAGE,
			R2NET_MSG_TMEM_ZPAGE_BASE + TMEM_FLUSH_OBJECT,
			R2NET_MSG_USER_FIRST - 1, R2NET_MSG_USER_LAST + 1,
			0x8000 | R2NET_MSG_USER_FIRST, 0xffff,
		};

		for (t = 0; t < sizeof(bad_types) / sizeof(bad_types[0]); t++) {
			snprintf(what, sizeof(what), "type %#x", bad_types[t]);
			size = valid_frame(&f, R2NET_MSG_KEEPALIVE_REQ, false);
			f.hdr.type = cpu_to_le16(bad_types[t]);
			EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_TYPE, what);
			/* as a user message, request or reply, with a key */
			size = valid_frame(&f, R2NET_MSG_USER_FIRST, rnd(2));
			f.hdr.type = cpu_to_le16(bad_types[t]);
			EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_TYPE, what);
		}
	}

	/* user messages: every length up to the maximum, not one more */
	for (n = 0; n < NR_USER_LENS + 2; n++) {
		u32 len = n < NR_USER_LENS ? user_lens[n] :
			  n == NR_USER_LENS ? R2NET_MAX_PAYLOAD + 1 :
					      R2NET_MAX_PAYLOAD + 4096;

		want = len <= R2NET_MAX_PAYLOAD ? R2NET_ACCEPT :
						   R2NET_REJECT_TOO_LONG;
		for (t = 0; t < 2; t++) {
			snprintf(what, sizeof(what), "user %s of %u bytes",
				 t ? "reply" : "request", len);
			valid_frame(&f, t ? R2NET_MSG_USER_LAST :
					R2NET_MSG_USER_FIRST, t);
			f.hdr.len = cpu_to_le32(len);
			size = R2NET_HDR_LEN + len;
			EXPECT_REJECT(&f, size < sizeof(f) ? size : sizeof(f),
				      want, what);
		}
	}

	/* a GET reply is empty or a whole page, nothing between */
	size = valid_frame(&f, R2NET_MSG_TMEM_GET_PAGE, true);
	EXPECT_REJECT(&f, size, R2NET_ACCEPT, "get reply with page");
	f.hdr.len = cpu_to_le32(R2NET_HANDLE_LEN);
	EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_LENGTH, "get reply, handle only");
	f.hdr.len = 0;
	f.hdr.status = 0;
	EXPECT_REJECT(&f, R2NET_HDR_LEN, R2NET_ACCEPT, "get reply, miss");
}

static void test_payload_rejects(void)
{
	struct r2net_handshake hs, good;
	struct r2net_handshake_le w;
	struct r2net_tmem_new_pool_le npw;
	struct r2net_tmem_new_pool np;
	struct r2net_tmem_pool_le pw;
	struct tmem_handle h;
	const u8 *page;
	u8 big[R2NET_PAGE_MSG_LEN + 1] = { 0 };
	u32 pool_id;

#define HS_REJECT(mutation, want)					\
	do {								\
		r2net_handshake_encode(&w, &good);			\
		mutation;						\
		CHECK(r2net_handshake_decode(&hs, &w, sizeof(w)) == (want), \
		      "handshake %s", #mutation);			\
	} while (0)

	random_handshake(&good);
	HS_REJECT((void)0, R2NET_ACCEPT);
	HS_REJECT(w.protocol_version = cpu_to_le32(1), R2NET_REJECT_BAD_VERSION);
	HS_REJECT(w.protocol_version = cpu_to_le32(2), R2NET_REJECT_BAD_VERSION);
	HS_REJECT(w.protocol_version = cpu_to_le32(4), R2NET_REJECT_BAD_VERSION);
	HS_REJECT(w.protocol_version = 0, R2NET_REJECT_BAD_VERSION);
	HS_REJECT(memset(w.cluster_name, 0, sizeof(w.cluster_name)),
		  R2NET_REJECT_BAD_PAYLOAD);
	HS_REJECT(w.cluster_name[0] = ' ', R2NET_REJECT_BAD_PAYLOAD);
	HS_REJECT(w.cluster_name[0] = 0x7f, R2NET_REJECT_BAD_PAYLOAD);
	HS_REJECT((w.cluster_name[0] = 'a', w.cluster_name[1] = 0,
		   w.cluster_name[15] = 'x'), R2NET_REJECT_BAD_PAYLOAD);
	HS_REJECT(memset(w.cluster_name, 'z', sizeof(w.cluster_name)),
		  R2NET_ACCEPT);
	HS_REJECT(w.sender_node = cpu_to_le16(255), R2NET_REJECT_BAD_PAYLOAD);
	HS_REJECT(w.receiver_node = cpu_to_le16(0xffff), R2NET_REJECT_BAD_PAYLOAD);
	HS_REJECT(w.idle_timeout_ms = 0, R2NET_REJECT_BAD_PAYLOAD);
	HS_REJECT(w.keepalive_delay_ms = 0, R2NET_REJECT_BAD_PAYLOAD);
	HS_REJECT(w.reconnect_delay_ms = 0, R2NET_REJECT_BAD_PAYLOAD);
	HS_REJECT(w.keepalive_delay_ms = w.idle_timeout_ms,
		  R2NET_REJECT_BAD_PAYLOAD);
	HS_REJECT(w.security = cpu_to_le32(R2NET_SEC_NR), R2NET_REJECT_BAD_PAYLOAD);
	HS_REJECT(w.security = cpu_to_le32(R2NET_SEC_ENCRYPT), R2NET_ACCEPT);
	CHECK(r2net_handshake_decode(&hs, &w, sizeof(w) - 1) ==
	      R2NET_REJECT_BAD_LENGTH, "short handshake");
	CHECK(r2net_handshake_decode(&hs, big, sizeof(w) + 1) ==
	      R2NET_REJECT_BAD_LENGTH, "long handshake");
	/* a full 16-byte name comes out NUL-terminated */
	r2net_handshake_encode(&w, &good);
	memset(w.cluster_name, 'q', sizeof(w.cluster_name));
	CHECK(r2net_handshake_decode(&hs, &w, sizeof(w)) == R2NET_ACCEPT &&
	      strlen(hs.cluster_name) == R2NET_CLUSTER_NAME_LEN,
	      "16-byte cluster name");
#undef HS_REJECT

	np.uuid[0] = 1;
	np.uuid[1] = 2;
	np.flags = tmem_pool_flags(true, false);
	r2net_tmem_new_pool_encode(&npw, &np);
	CHECK(r2net_tmem_new_pool_decode(&np, &npw, sizeof(npw)) == R2NET_ACCEPT,
	      "new_pool");
	npw.reserved = cpu_to_le32(0x100);
	CHECK(r2net_tmem_new_pool_decode(&np, &npw, sizeof(npw)) ==
	      R2NET_REJECT_BAD_PAYLOAD, "new_pool reserved");
	CHECK(r2net_tmem_new_pool_decode(&np, big, sizeof(npw) + 1) ==
	      R2NET_REJECT_BAD_LENGTH, "new_pool length");

	r2net_tmem_pool_encode(&pw, 7);
	CHECK(r2net_tmem_pool_decode(&pool_id, &pw, sizeof(pw)) == R2NET_ACCEPT &&
	      pool_id == 7, "pool");
	pw.reserved = cpu_to_le32(1);
	CHECK(r2net_tmem_pool_decode(&pool_id, &pw, sizeof(pw)) ==
	      R2NET_REJECT_BAD_PAYLOAD, "pool reserved");
	CHECK(r2net_tmem_pool_decode(&pool_id, big, 4) == R2NET_REJECT_BAD_LENGTH,
	      "pool length");

	CHECK(r2net_tmem_handle_decode(&h, big, R2NET_HANDLE_LEN - 1) ==
	      R2NET_REJECT_BAD_LENGTH, "handle length");
	CHECK(r2net_tmem_page_decode(&h, &page, big, R2NET_PAGE_MSG_LEN - 1) ==
	      R2NET_REJECT_BAD_LENGTH, "page msg short");
	CHECK(r2net_tmem_page_decode(&h, &page, big, R2NET_PAGE_MSG_LEN + 1) ==
	      R2NET_REJECT_BAD_LENGTH, "page msg long");
	CHECK(r2net_tmem_page_decode(&h, &page, big, R2NET_PAGE_MSG_LEN) ==
	      R2NET_ACCEPT, "page msg");
}

/* r2net_hdr_check() of a PUT_ZPAGE or GET_ZPAGE header with this length. */
static enum r2net_reject zpage_hdr(u16 type, bool reply, u32 len)
{
	static union frame f;
	struct r2net_msg m;

	memset(&f, 0, sizeof(f));
	r2net_hdr_init(&f.hdr, type, reply ? R2NET_F_REPLY : 0, len, 7,
		       reply ? 1 : 0);
	return check_copy(&f, R2NET_HDR_LEN + (len < R2NET_MAX_PAYLOAD ?
					       len : R2NET_MAX_PAYLOAD), &m);
}

/* The lengths r2net_hdr_check() allows the zpage types, each way. */
static void test_zpage_lengths(void)
{
	static const struct {
		u16 type;
		bool reply;
		u32 len;
		enum r2net_reject want;
	} cases[] = {
		{ R2NET_MSG_TMEM_PUT_ZPAGE, false, 0, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, false, 32, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, false, 39, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, false, 40, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, false, 41, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, false, 4128, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, false, 4135, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, false, 4136, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, false, 4137, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, false, 66185, R2NET_REJECT_TOO_LONG },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, true, 0, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, true, 1, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, true, 40, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_PUT_ZPAGE, true, 4136, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGE, false, 0, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGE, false, 31, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGE, false, 32, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_GET_ZPAGE, false, 33, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGE, false, 40, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGE, false, 4136, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGE, true, 0, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_GET_ZPAGE, true, 1, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGE, true, 32, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGE, true, 39, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGE, true, 40, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_GET_ZPAGE, true, 4128, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_GET_ZPAGE, true, 4136, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_GET_ZPAGE, true, 4137, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGE, true, 66185, R2NET_REJECT_TOO_LONG },
		/* batches */
		{ R2NET_MSG_TMEM_PUT_ZPAGES, false, 0, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_PUT_ZPAGES, false, 47, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_PUT_ZPAGES, false, 48, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_PUT_ZPAGES, false, 66184, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_PUT_ZPAGES, false, 66185, R2NET_REJECT_TOO_LONG },
		{ R2NET_MSG_TMEM_PUT_ZPAGES, true, 0, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_PUT_ZPAGES, true, 4, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_PUT_ZPAGES, true, 6, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_PUT_ZPAGES, true, 64, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_PUT_ZPAGES, true, 68, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGES, false, 8, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGES, false, 40, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_GET_ZPAGES, false, 41, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGES, false, 520, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_GET_ZPAGES, false, 552, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGES, true, 0, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_GET_ZPAGES, true, 47, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_MSG_TMEM_GET_ZPAGES, true, 48, R2NET_ACCEPT },
		{ R2NET_MSG_TMEM_GET_ZPAGES, true, 66184, R2NET_ACCEPT },
	};
	enum r2net_reject r;
	size_t i;

	CHECK(R2NET_MSG_TMEM_PUT_ZPAGE == 0x184 &&
	      R2NET_MSG_TMEM_GET_ZPAGE == 0x185, "zpage type numbers");
	CHECK(R2NET_MSG_TMEM_PUT_ZPAGES == 0x1c4 &&
	      R2NET_MSG_TMEM_GET_ZPAGES == 0x1c5, "batch type numbers");
	CHECK(r2net_msg_tmem_op(R2NET_MSG_TMEM_PUT_ZPAGES) == TMEM_PUT_PAGE &&
	      r2net_msg_tmem_op(R2NET_MSG_TMEM_GET_ZPAGES) == TMEM_GET_PAGE,
	      "batch types are not PUT and GET");
	CHECK(r2net_msg_tmem_op(R2NET_MSG_TMEM_PUT_ZPAGE) == TMEM_PUT_PAGE &&
	      r2net_msg_tmem_op(R2NET_MSG_TMEM_GET_ZPAGE) == TMEM_GET_PAGE,
	      "zpage types are not PUT and GET");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = zpage_hdr(cases[i].type, cases[i].reply, cases[i].len);
		CHECK(r == cases[i].want, "type %#x %s of %u bytes: %s, want %s",
		      cases[i].type, cases[i].reply ? "reply" : "request",
		      cases[i].len, r2net_reject_name(r),
		      r2net_reject_name(cases[i].want));
	}
}

/*
 * r2net_tmem_zpage_decode() on a payload of len bytes, a heap copy of
 * exactly that many (for ASan): the header as given, then data bytes.
 */
static enum r2net_reject zpage_decode(const struct r2net_tmem_zpage_le *w,
				      size_t len, struct r2net_zpage *z,
				      struct tmem_handle *h, bool *data_ok)
{
	u8 *p = malloc(len ? len : 1);
	enum r2net_reject r;
	const u8 *data = NULL;

	if (!p)
		abort();
	memset(p, 0x3c, len);
	memcpy(p, w, len < sizeof(*w) ? len : sizeof(*w));
	r = r2net_tmem_zpage_decode(h, z, &data, p, len);
	*data_ok = r == R2NET_ACCEPT && data == p + R2NET_ZPAGE_HDR_LEN &&
		   R2NET_ZPAGE_HDR_LEN + r2net_zpage_data_len(z) == len;
	free(p);
	return r;
}

/* Every encoding, length and reserved byte, accepted or refused. */
static void test_zpage_decode(void)
{
	static const struct {
		u8 enc;
		u32 arg;
		int data;	/* data bytes after the header; -1: as arg says */
		u8 reserved;	/* put in reserved[reserved - 1], if any */
		enum r2net_reject want;
	} cases[] = {
		{ R2NET_ZPAGE_SAME, 0, 0, 0, R2NET_ACCEPT },
		{ R2NET_ZPAGE_SAME, 0xdeadbeef, 0, 0, R2NET_ACCEPT },
		{ R2NET_ZPAGE_SAME, UINT32_MAX, 0, 0, R2NET_ACCEPT },
		{ R2NET_ZPAGE_SAME, 0, 1, 0, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_ZPAGE_SAME, 4, 4, 0, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_ZPAGE_SAME, 0, 4096, 0, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_ZPAGE_LZO, 0, 0, 0, R2NET_REJECT_BAD_PAYLOAD },
		{ R2NET_ZPAGE_LZO, 1, -1, 0, R2NET_ACCEPT },
		{ R2NET_ZPAGE_LZO, 100, -1, 0, R2NET_ACCEPT },
		{ R2NET_ZPAGE_LZO, R2NET_ZPAGE_LZO_MAX, -1, 0, R2NET_ACCEPT },
		{ R2NET_ZPAGE_LZO, R2NET_ZPAGE_LZO_MAX + 1, -1, 0,
		  R2NET_REJECT_BAD_PAYLOAD },
		{ R2NET_ZPAGE_LZO, UINT32_MAX, 0, 0, R2NET_REJECT_BAD_PAYLOAD },
		{ R2NET_ZPAGE_LZO, 100, 0, 0, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_ZPAGE_LZO, 100, 99, 0, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_ZPAGE_LZO, 100, 101, 0, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_ZPAGE_LZO, 1, 4096, 0, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_ZPAGE_RAW, 4096, -1, 0, R2NET_ACCEPT },
		{ R2NET_ZPAGE_RAW, 4095, -1, 0, R2NET_REJECT_BAD_PAYLOAD },
		{ R2NET_ZPAGE_RAW, 4097, 4096, 0, R2NET_REJECT_BAD_PAYLOAD },
		{ R2NET_ZPAGE_RAW, 0, 0, 0, R2NET_REJECT_BAD_PAYLOAD },
		{ R2NET_ZPAGE_RAW, 4096, 4095, 0, R2NET_REJECT_BAD_LENGTH },
		{ R2NET_ZPAGE_RAW, 4096, 0, 0, R2NET_REJECT_BAD_LENGTH },
		{ 0, 0, 0, 0, R2NET_REJECT_BAD_PAYLOAD },
		{ 4, 10, 10, 0, R2NET_REJECT_BAD_PAYLOAD },
		{ 0x80 | R2NET_ZPAGE_LZO, 10, 10, 0, R2NET_REJECT_BAD_PAYLOAD },
		{ 0xff, 0, 0, 0, R2NET_REJECT_BAD_PAYLOAD },
		{ R2NET_ZPAGE_SAME, 0, 0, 1, R2NET_REJECT_BAD_PAYLOAD },
		{ R2NET_ZPAGE_LZO, 10, -1, 2, R2NET_REJECT_BAD_PAYLOAD },
		{ R2NET_ZPAGE_RAW, 4096, -1, 3, R2NET_REJECT_BAD_PAYLOAD },
	};
	struct tmem_handle h = {
		.pool_id = 5, .index = 0x01020304,
		.oid = { 1, UINT64_MAX, 0x8000000000000000ULL },
	}, got;
	struct r2net_tmem_zpage_le w;
	struct r2net_zpage z, zin;
	enum r2net_reject r;
	bool data_ok;
	size_t i, len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		zin.enc = cases[i].enc;
		zin.arg = cases[i].arg;
		memset(&w, 0xa5, sizeof(w));
		r2net_tmem_zpage_encode(&w, &h, &zin);
		if (cases[i].reserved)
			w.reserved[cases[i].reserved - 1] = 0x01;
		len = R2NET_ZPAGE_HDR_LEN + (cases[i].data < 0 ? cases[i].arg :
					     (u32)cases[i].data);
		memset(&got, 0, sizeof(got));
		r = zpage_decode(&w, len, &z, &got, &data_ok);
		CHECK(r == cases[i].want,
		      "zpage enc %u arg %u, %zu bytes, reserved %u: %s, want %s",
		      cases[i].enc, cases[i].arg, len, cases[i].reserved,
		      r2net_reject_name(r), r2net_reject_name(cases[i].want));
		if (r != R2NET_ACCEPT)
			continue;
		CHECK(handle_eq(&got, &h) && z.enc == zin.enc &&
		      z.arg == zin.arg && data_ok,
		      "zpage enc %u arg %u: decoded fields or data differ",
		      zin.enc, zin.arg);
	}
	/* encode zeroes the reserved bytes whatever was there */
	memset(&w, 0xff, sizeof(w));
	zin.enc = R2NET_ZPAGE_LZO;
	zin.arg = 0x0102;
	r2net_tmem_zpage_encode(&w, &h, &zin);
	CHECK(!w.reserved[0] && !w.reserved[1] && !w.reserved[2] &&
	      w.enc == R2NET_ZPAGE_LZO && le32_to_cpu(w.arg) == 0x0102,
	      "zpage header encode");
	/* shorter than a header, longer than a zpage, header only */
	for (len = 0; len < R2NET_ZPAGE_HDR_LEN; len += 13)
		CHECK(zpage_decode(&w, len, &z, &got, &data_ok) ==
		      R2NET_REJECT_BAD_LENGTH, "zpage of %zu bytes", len);
	CHECK(zpage_decode(&w, R2NET_ZPAGE_HDR_LEN - 1, &z, &got, &data_ok) ==
	      R2NET_REJECT_BAD_LENGTH, "zpage of 39 bytes");
	CHECK(zpage_decode(&w, R2NET_ZPAGE_MSG_MAX + 1, &z, &got, &data_ok) ==
	      R2NET_REJECT_BAD_LENGTH, "zpage of 4137 bytes");
	CHECK(zpage_decode(&w, R2NET_ZPAGE_HDR_LEN, &z, &got, &data_ok) ==
	      R2NET_REJECT_BAD_LENGTH, "LZO zpage, header only");
	/* the data lengths of each encoding */
	z.enc = R2NET_ZPAGE_SAME;
	z.arg = 4096;
	CHECK(r2net_zpage_data_len(&z) == 0, "SAME has no data");
	z.enc = R2NET_ZPAGE_LZO;
	z.arg = 77;
	CHECK(r2net_zpage_data_len(&z) == 77, "LZO has arg bytes");
}

/*
 * A random batch of n zpages into b (none_ok: some pages not returned, as
 * in a GET_ZPAGES reply); its length.  The forms, handles and data are
 * kept in want[] for the check.
 */
struct batch_page {
	struct tmem_handle h;
	struct r2net_zpage z;
	u8 data[TMEM_PAGE_SIZE];
};

static void random_handle(struct tmem_handle *h)
{
	h->pool_id = (u32)rnd64();
	h->index = (u32)rnd64();
	h->oid[0] = rnd64();
	h->oid[1] = rnd64();
	h->oid[2] = rnd64();
}

static size_t random_batch(u8 *b, struct batch_page *want, u32 n,
			   bool none_ok)
{
	struct r2net_tmem_zpage_le *hw = (void *)(b + R2NET_BATCH_HDR_LEN);
	size_t len = R2NET_BATCH_HDR_LEN + n * R2NET_ZPAGE_HDR_LEN;
	struct batch_page *p;
	u32 i;

	r2net_tmem_batch_encode((void *)b, n);
	for (i = 0; i < n; i++) {
		p = &want[i];
		random_handle(&p->h);
		switch (rnd(none_ok ? 4 : 3)) {
		case 0:
			p->z.enc = R2NET_ZPAGE_SAME;
			p->z.arg = (u32)rnd64();
			break;
		case 1:
			p->z.enc = R2NET_ZPAGE_LZO;
			p->z.arg = 1 + rnd(R2NET_ZPAGE_LZO_MAX);
			break;
		case 2:
			p->z.enc = R2NET_ZPAGE_RAW;
			p->z.arg = TMEM_PAGE_SIZE;
			break;
		default:
			p->z.enc = R2NET_ZPAGE_NONE;
			p->z.arg = (u32)-(s32)rnd(TMEM_EFROZEN + 1);
			break;
		}
		fill_random(p->data, r2net_zpage_data_len(&p->z));
		r2net_tmem_zpage_encode(&hw[i], &p->h, &p->z);
		memcpy(b + len, p->data, r2net_zpage_data_len(&p->z));
		len += r2net_zpage_data_len(&p->z);
	}
	return len;
}

/* Batches: round trips of random ones, and every way to break one. */
static void test_batches(unsigned int rounds)
{
	static u8 b[R2NET_MAX_PAYLOAD + 64];
	static struct batch_page want[R2NET_BATCH_MAX];
	struct r2net_tmem_zpage_le *hw = (void *)(b + R2NET_BATCH_HDR_LEN);
	struct r2net_tmem_batch_le *bw = (void *)b;
	static const u8 golden[8] = { 3, 0, 0, 0, 0, 0, 0, 0 };
	struct r2net_zbatch zb;
	struct tmem_handle h;
	struct r2net_zpage z;
	const u8 *data, *handles;
	unsigned int r;
	size_t len;
	u32 n, i, count;
	bool none_ok;

	r2net_tmem_batch_encode(bw, 3);
	expect_bytes(bw, golden, sizeof(golden), "batch header");

	for (r = 0; r < rounds; r++) {
		n = 1 + rnd(R2NET_BATCH_MAX);
		none_ok = rnd(2);
		len = random_batch(b, want, n, none_ok);
		CHECK(len <= R2NET_MAX_PAYLOAD, "batch of %u is %zu bytes", n,
		      len);
		CHECK(r2net_tmem_zbatch_decode(&zb, b, len, none_ok) ==
		      R2NET_ACCEPT && zb.count == n,
		      "a batch of %u pages (none_ok %d) refused", n, none_ok);
		for (i = 0; i < n && zb.count == n; i++) {
			r2net_zbatch_next(&zb, &h, &z, &data);
			CHECK(tmem_handle_equal(&h, &want[i].h) &&
			      z.enc == want[i].z.enc && z.arg == want[i].z.arg &&
			      !memcmp(data, want[i].data,
				      r2net_zpage_data_len(&z)),
			      "page %u of %u came back wrong", i, n);
		}
		/* every length but the right one is refused */
		CHECK(r2net_tmem_zbatch_decode(&zb, b, len - 1, none_ok) !=
		      R2NET_ACCEPT, "a batch one byte short accepted");
		CHECK(r2net_tmem_zbatch_decode(&zb, b, len + 1, none_ok) !=
		      R2NET_ACCEPT || len + 1 > R2NET_ZPAGES_MAX,
		      "a batch one byte long accepted");
	}

	/* a request never carries NONE; a reply's NONE carries no status > 0 */
	len = random_batch(b, want, 4, false);
	hw[1].enc = R2NET_ZPAGE_NONE;
	hw[1].arg = 0;
	CHECK(r2net_tmem_zbatch_decode(&zb, b, len, false) != R2NET_ACCEPT,
	      "NONE in a request accepted");
	len = random_batch(b, want, 2, false);
	hw[0].enc = R2NET_ZPAGE_NONE;
	hw[0].arg = 1;
	CHECK(r2net_tmem_zbatch_decode(&zb, b, len, true) ==
	      R2NET_REJECT_BAD_PAYLOAD, "NONE with status 1 accepted");

	/* the header: count 0 and R2NET_BATCH_MAX + 1, reserved set */
	len = random_batch(b, want, 2, false);
	bw->count = 0;
	CHECK(r2net_tmem_zbatch_decode(&zb, b, len, false) ==
	      R2NET_REJECT_BAD_PAYLOAD, "count 0 accepted");
	bw->count = cpu_to_le32(R2NET_BATCH_MAX + 1);
	CHECK(r2net_tmem_zbatch_decode(&zb, b, len, false) ==
	      R2NET_REJECT_BAD_PAYLOAD, "count 17 accepted");
	bw->count = cpu_to_le32(2);
	bw->reserved = cpu_to_le32(1);
	CHECK(r2net_tmem_zbatch_decode(&zb, b, len, false) ==
	      R2NET_REJECT_BAD_PAYLOAD, "reserved accepted");
	bw->reserved = 0;
	/* a count larger than the headers sent */
	bw->count = cpu_to_le32(R2NET_BATCH_MAX);
	CHECK(r2net_tmem_zbatch_decode(&zb, b, R2NET_ZPAGES_MIN, false) ==
	      R2NET_REJECT_BAD_LENGTH, "16 pages in 48 bytes accepted");
	/* one bad page header refuses the batch */
	len = random_batch(b, want, 5, false);
	hw[4].reserved[1] = 1;
	CHECK(r2net_tmem_zbatch_decode(&zb, b, len, false) ==
	      R2NET_REJECT_BAD_PAYLOAD, "a page's reserved byte accepted");
	len = random_batch(b, want, 5, false);
	hw[3].enc = 9;
	CHECK(r2net_tmem_zbatch_decode(&zb, b, len, false) ==
	      R2NET_REJECT_BAD_PAYLOAD, "an unknown form accepted");

	/* GET_ZPAGES requests */
	for (n = 1; n <= R2NET_BATCH_MAX; n++) {
		r2net_tmem_batch_encode(bw, n);
		len = R2NET_BATCH_HDR_LEN + n * R2NET_HANDLE_LEN;
		CHECK(r2net_tmem_handles_decode(&count, &handles, b, len) ==
		      R2NET_ACCEPT && count == n &&
		      handles == b + R2NET_BATCH_HDR_LEN,
		      "%u handles refused", n);
		CHECK(r2net_tmem_handles_decode(&count, &handles, b,
						len + R2NET_HANDLE_LEN) ==
		      R2NET_REJECT_BAD_LENGTH,
		      "%u handles with one more accepted", n);
		CHECK(r2net_tmem_handles_decode(&count, &handles, b, len - 1) ==
		      R2NET_REJECT_BAD_LENGTH, "%u handles less a byte", n);
	}
	r2net_tmem_batch_encode(bw, 0);
	CHECK(r2net_tmem_handles_decode(&count, &handles, b, 40) ==
	      R2NET_REJECT_BAD_PAYLOAD, "0 handles accepted");
	r2net_tmem_batch_encode(bw, 1);
	bw->reserved = cpu_to_le32(0x100);
	CHECK(r2net_tmem_handles_decode(&count, &handles, b, 40) ==
	      R2NET_REJECT_BAD_PAYLOAD, "handles with reserved set accepted");
}

static void test_pool_flags(void)
{
	u32 v = (u32)TMEM_SPEC_VERSION << TMEM_POOL_VERSION_SHIFT;

	CHECK(tmem_pool_flags(true, false) == (v | 1), "persistent flags");
	CHECK(!tmem_pool_flags_check(tmem_pool_flags(true, false)), "private persistent");
	CHECK(!tmem_pool_flags_check(tmem_pool_flags(false, false)), "private ephemeral");
	CHECK(!tmem_pool_flags_check(tmem_pool_flags(false, true)), "shared ephemeral");
	CHECK(tmem_pool_flags_check(tmem_pool_flags(true, true)) == -TMEM_EPERM,
	      "shared persistent must be refused");
	CHECK(tmem_pool_flags_check(1) == -TMEM_EPERM, "version 0");
	CHECK(tmem_pool_flags_check(v + (1u << TMEM_POOL_VERSION_SHIFT)) ==
	      -TMEM_EPERM, "version 2");
	CHECK(tmem_pool_flags_check(v | (1u << TMEM_POOL_PAGESIZE_SHIFT)) ==
	      -TMEM_EPERM, "8 KiB pages");
	CHECK(tmem_pool_flags_check(v | TMEM_POOL_PRECOMPRESSED) == -TMEM_EPERM,
	      "precompressed");
	CHECK(tmem_pool_flags_check(v | 8) == -TMEM_EPERM, "bit 3");
	CHECK(tmem_pool_flags_check(v | 0x100) == -TMEM_EPERM, "reserved bit 8");
	CHECK(tmem_pool_flags_check(v | 0x800000) == -TMEM_EPERM, "reserved bit 23");
}

static void test_reject_names(void)
{
	int i, j;

	for (i = 0; i < R2NET_REJECT_NR; i++) {
		CHECK(strcmp(r2net_reject_name(i), "unknown"), "reason %d unnamed", i);
		for (j = 0; j < i; j++)
			CHECK(strcmp(r2net_reject_name(i), r2net_reject_name(j)),
			      "reasons %d and %d share a name", i, j);
	}
}

int main(int argc, char **argv)
{
	unsigned int rounds = 200;
	int i;

	test_seed_from_args(argc, argv, "abi_test");
	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-n"))
			rounds = (unsigned int)strtoul(argv[i + 1], NULL, 0);
	test_sizes();
	test_golden();
	test_round_trips(rounds);
	test_rejects();
	test_payload_rejects();
	test_zpage_lengths();
	test_zpage_decode();
	test_batches(rounds);
	test_pool_flags();
	test_reject_names();
	printf("abi_test: %lu checks, %lu failed\n", test_checks, test_failures);
	return test_failures ? 1 : 0;
}
