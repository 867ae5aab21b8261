// SPDX-License-Identifier: GPL-2.0
/*
 * abi_test - the tmem and r2net wire ABI (shared-abi/) in userspace.
 *
 *  - the wire layout, byte for byte, of a header, a handshake and a handle;
 *  - every message type, with random field values, encoded, checked by
 *    r2net_hdr_check(), decoded and compared;
 *  - every malformed header refused with its reason, every malformed
 *    payload refused by its decoder;
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
	R2NET_MSG_TMEM_NEW_POOL,
	R2NET_MSG_TMEM_DESTROY_POOL,
	R2NET_MSG_TMEM_PUT_PAGE,
	R2NET_MSG_TMEM_GET_PAGE,
	R2NET_MSG_TMEM_FLUSH_PAGE,
	R2NET_MSG_TMEM_FLUSH_OBJECT,
};

#define NR_TYPES (sizeof(all_types) / sizeof(all_types[0]))

/* One message in CPU terms: what was sent, to compare with what comes out. */
struct sample {
	u16 type;
	bool reply;
	u64 req_id;
	s32 status;
	u32 len;
	struct r2net_handshake hs;
	struct r2net_tmem_new_pool np;
	u32 pool_id;
	struct tmem_handle h;
	u8 page[TMEM_PAGE_SIZE];
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
}

/* A random message of this type; reply is for tmem types only. */
static void random_sample(struct sample *s, u16 type, bool reply)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->type = type;
	s->reply = reply;
	s->req_id = rnd64();
	s->status = s->reply ? (s32)rnd64() : 0;
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

	switch (type) {
	case R2NET_MSG_HANDSHAKE:
		s->len = R2NET_HANDSHAKE_LEN;
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
	}
}

/* Encode s into f; returns the frame size. */
static size_t encode(union frame *f, const struct sample *s)
{
	void *payload = f->b + R2NET_HDR_LEN;

	memset(f, 0xa5, sizeof(*f));
	r2net_hdr_init(&f->hdr, s->type, s->reply ? R2NET_F_REPLY : 0, s->len,
		       s->req_id, s->status);
	if (!s->len)
		return R2NET_HDR_LEN;
	switch (s->type) {
	case R2NET_MSG_HANDSHAKE:
		r2net_handshake_encode(payload, &s->hs);
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
	const u8 *page;
	struct r2net_msg m;
	enum r2net_reject r;
	u32 pool_id;

	if (!buf)
		abort();
	memcpy(buf, f->b, size);
	r = r2net_hdr_check((const struct r2net_hdr *)buf, size, &m);
	CHECK(r == R2NET_ACCEPT, "type %#x reply %d len %u: %s", s->type,
	      s->reply, s->len, r2net_reject_name(r));
	if (r != R2NET_ACCEPT)
		goto out;
	CHECK(m.type == s->type && m.len == s->len && m.req_id == s->req_id &&
	      m.status == s->status &&
	      m.flags == (s->reply ? R2NET_F_REPLY : 0),
	      "type %#x: header fields differ after the round trip", s->type);
	if (!s->len)
		goto out;
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
		      hs.reconnect_delay_ms == s->hs.reconnect_delay_ms,
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

	for (i = 0; i < rounds; i++) {
		for (t = 0; t < NR_TYPES; t++) {
			random_sample(&s, all_types[t],
				      r2net_msg_tmem_op(all_types[t]) && rnd(2));
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
	static const u8 hdr_bytes[R2NET_HDR_LEN] = {
		0xa5, 0x52, 0x01, 0x00, 0x04, 0x01, 0x01, 0x00,
		0x20, 0x10, 0x00, 0x00, 0xf4, 0xff, 0xff, 0xff,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	};
	static const u8 hs_bytes[R2NET_HANDSHAKE_LEN] = {
		0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0xfe, 0x00,
		'r', 'a', 'm', 's', 't', 'e', 'r', 0,
		0, 0, 0, 0, 0, 0, 0, 0,
		0x30, 0x75, 0x00, 0x00, 0xd0, 0x07, 0x00, 0x00,
		0xd0, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
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
	};
	struct tmem_handle h = {
		.pool_id = 3,
		.index = 0x11223344,
		.oid = { 1, 0x8000000000000002ULL, UINT64_MAX },
	};
	struct r2net_handshake_le hsw;
	struct tmem_handle_le hw;
	struct r2net_hdr hdr;

	r2net_hdr_init(&hdr, R2NET_MSG_TMEM_PUT_PAGE, R2NET_F_REPLY, 0x1020,
		       0x0102030405060708ULL, -TMEM_ENOMEM);
	expect_bytes(&hdr, hdr_bytes, sizeof(hdr_bytes), "header");
	r2net_handshake_encode(&hsw, &hs);
	expect_bytes(&hsw, hs_bytes, sizeof(hs_bytes), "handshake");
	tmem_handle_to_le(&hw, &h);
	expect_bytes(&hw, handle_bytes, sizeof(handle_bytes), "handle");

	CHECK(TMEM_NEW_POOL == 1 && TMEM_DESTROY_POOL == 2 &&
	      TMEM_PUT_PAGE == 4 && TMEM_GET_PAGE == 5 &&
	      TMEM_FLUSH_PAGE == 6 && TMEM_FLUSH_OBJECT == 7,
	      "tmem op numbers are not Xen's");
	CHECK(TMEM_POOL_PERSIST == 1 && TMEM_POOL_SHARED == 2 &&
	      TMEM_POOL_PAGESIZE_SHIFT == 4 && TMEM_POOL_VERSION_SHIFT == 24,
	      "pool flags are not Xen's");
	CHECK(TMEM_EFROZEN == 1000 && TMEM_EEMPTY == 1001,
	      "special errors are not Xen's");
}

static void test_sizes(void)
{
	CHECK(sizeof(struct r2net_hdr) == 24, "hdr %zu", sizeof(struct r2net_hdr));
	CHECK(sizeof(struct r2net_handshake_le) == 40, "handshake %zu",
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
	CHECK(R2NET_MAX_FRAME == 24 + 4128, "max frame %d", R2NET_MAX_FRAME);
}

/* A valid frame of this type in f; a GET reply holds a page.  Its size. */
static size_t valid_frame(union frame *f, u16 type, bool reply)
{
	static struct sample s;

	random_sample(&s, type, reply);
	if (reply) {
		s.status = 1;
		if (type == R2NET_MSG_TMEM_GET_PAGE)
			s.len = R2NET_PAGE_MSG_LEN;
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

static void test_rejects(void)
{
	static union frame f;
	struct r2net_msg m;
	unsigned int t;
	size_t size, n;
	char what[96];

	for (t = 0; t < NR_TYPES; t++) {
		u16 type = all_types[t];

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
			      m.len == size - R2NET_HDR_LEN,
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
		f.hdr.flags = 0;

		snprintf(what, sizeof(what), "type %#x len", type);
		f.hdr.len = cpu_to_le32(R2NET_MAX_PAYLOAD + 1);
		EXPECT_REJECT(&f, R2NET_MAX_FRAME + 1, R2NET_REJECT_TOO_LONG, what);
		f.hdr.len = cpu_to_le32(UINT32_MAX);
		EXPECT_REJECT(&f, size, R2NET_REJECT_TOO_LONG, what);
		f.hdr.len = cpu_to_le32(size - R2NET_HDR_LEN + 1);
		EXPECT_REJECT(&f, size + 1, size - R2NET_HDR_LEN < R2NET_MAX_PAYLOAD ?
			      R2NET_REJECT_BAD_LENGTH : R2NET_REJECT_TOO_LONG, what);
		if (size > R2NET_HDR_LEN) {
			f.hdr.len = cpu_to_le32(size - R2NET_HDR_LEN - 1);
			EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_LENGTH, what);
		}
		f.hdr.len = cpu_to_le32(size - R2NET_HDR_LEN);

		snprintf(what, sizeof(what), "type %#x status in request", type);
		f.hdr.status = cpu_to_le32(1);
		EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_STATUS, what);
		f.hdr.status = cpu_to_le32((u32)-TMEM_ENOMEM);
		EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_STATUS, what);
		f.hdr.status = 0;
		EXPECT_REJECT(&f, size, R2NET_ACCEPT, what);

		/* REPLY is for tmem replies only; their lengths differ */
		size = valid_frame(&f, type, false);
		f.hdr.flags = cpu_to_le16(R2NET_F_REPLY);
		snprintf(what, sizeof(what), "type %#x as a reply", type);
		if (!r2net_msg_tmem_op(type)) {
			EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_FLAGS, what);
		} else if (type != R2NET_MSG_TMEM_GET_PAGE) {
			EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_LENGTH, what);
			size = valid_frame(&f, type, true);
			f.hdr.status = cpu_to_le32((u32)-TMEM_EFROZEN);
			EXPECT_REJECT(&f, size, R2NET_ACCEPT, what);
		}
	}

	/* unknown types, around and between the known ones */
	size = valid_frame(&f, R2NET_MSG_KEEPALIVE_REQ, false);
	{
		static const u16 bad_types[] = {
			0, 4, 0xff, R2NET_MSG_TMEM_BASE,
			R2NET_MSG_TMEM_BASE + 3, R2NET_MSG_TMEM_BASE + 8,
			R2NET_MSG_TMEM_BASE + 0x100 + TMEM_PUT_PAGE, 0xffff,
		};

		for (t = 0; t < sizeof(bad_types) / sizeof(bad_types[0]); t++) {
			f.hdr.type = cpu_to_le16(bad_types[t]);
			snprintf(what, sizeof(what), "type %#x", bad_types[t]);
			EXPECT_REJECT(&f, size, R2NET_REJECT_BAD_TYPE, what);
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
	HS_REJECT(w.protocol_version = cpu_to_le32(2), R2NET_REJECT_BAD_VERSION);
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
	HS_REJECT(w.reserved = cpu_to_le32(1), R2NET_REJECT_BAD_PAYLOAD);
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
	test_pool_flags();
	test_reject_names();
	printf("abi_test: %lu checks, %lu failed\n", test_checks, test_failures);
	return test_failures ? 1 : 0;
}
