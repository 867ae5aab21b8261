// SPDX-License-Identifier: GPL-2.0
/*
 * auth.c - r2net's handshake proves that both ends hold the cluster key.
 *
 * The connector's handshake (m1), the acceptor's (m2) and the connector's
 * AUTH each carry a MAC, keyed BLAKE2s-256 under the cluster key, over a
 * label and what was said so far (r2net_wire.h has the construction).
 * Each side's MAC covers the other's fresh nonce, so a recorded handshake
 * played again fails.  A connection keeps m1 and m2 until it is up.
 *
 * Then every frame carries a Poly1305 tag of its header and payload, under
 * a one-time key made from the connection's key for that direction (itself
 * made from the cluster key and m1 || m2) and the frame's number on the
 * connection.  Neither end sends the number: each counts, so a frame that
 * was altered, replayed, reordered or taken from another connection fails.
 * With security encrypt the payload is first encrypted with ChaCha20 under
 * another key of the direction, the frame's number its nonce: the sender
 * through a bounce buffer (the pieces are the callers' pages), the
 * receiver in place.  With security none there are no tags (to measure).
 */
#include <crypto/algapi.h>
#include <crypto/blake2s.h>
#include <crypto/chacha.h>
#include <crypto/poly1305.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/string.h>

#include "conn.h"

static_assert(R2NET_MAC_LEN == BLAKE2S_HASH_SIZE);
static_assert(R2NET_KEY_LEN == BLAKE2S_KEY_SIZE);

/* MAC(label, a || b) under the cluster key, into out. */
static void r2net_mac(u8 *out, const char *label, const u8 *a, size_t alen,
		      const u8 *b, size_t blen)
{
	struct blake2s_state st;

	blake2s_init_key(&st, R2NET_MAC_LEN, r2net_info.key, R2NET_KEY_LEN);
	blake2s_update(&st, (const u8 *)label, strlen(label));
	blake2s_update(&st, a, alen);
	blake2s_update(&st, b, blen);
	blake2s_final(&st, out);
}

static bool r2net_mac_ok(const u8 *mac, const char *label, const u8 *a,
			 size_t alen, const u8 *b, size_t blen)
{
	u8 want[R2NET_MAC_LEN];
	bool ok;

	r2net_mac(want, label, a, alen, b, blen);
	ok = !crypto_memneq(want, mac, R2NET_MAC_LEN);
	memzero_explicit(want, sizeof(want));
	return ok;
}

/* This side's handshake, w: a fresh nonce, then its MAC; kept as m1 or m2. */
void r2net_auth_sign(struct r2net_conn *conn, struct r2net_handshake_le *w)
{
	u8 *m1 = conn->hs_m[0];
	u8 *self = conn->outgoing ? m1 : conn->hs_m[1];

	get_random_bytes(w->nonce, sizeof(w->nonce));
	memcpy(self, w, R2NET_HS_SIGNED_LEN);
	if (conn->outgoing)
		r2net_mac(w->mac, "r2net hs1", self, R2NET_HS_SIGNED_LEN,
			  NULL, 0);
	else
		r2net_mac(w->mac, "r2net hs2", m1, R2NET_HANDSHAKE_LEN, self,
			  R2NET_HS_SIGNED_LEN);
	memcpy(self, w, R2NET_HANDSHAKE_LEN);
}

/* Is the peer's handshake p (R2NET_HANDSHAKE_LEN bytes) signed right? */
bool r2net_auth_check(struct r2net_conn *conn, const u8 *p)
{
	const u8 *mac = p + R2NET_HS_SIGNED_LEN;
	u8 *peer = conn->outgoing ? conn->hs_m[1] : conn->hs_m[0];
	bool ok;

	if (conn->outgoing)
		ok = r2net_mac_ok(mac, "r2net hs2", conn->hs_m[0],
				  R2NET_HANDSHAKE_LEN, p, R2NET_HS_SIGNED_LEN);
	else
		ok = r2net_mac_ok(mac, "r2net hs1", p, R2NET_HS_SIGNED_LEN,
				  NULL, 0);
	if (ok)
		memcpy(peer, p, R2NET_HANDSHAKE_LEN);
	return ok;
}

/* The connector's AUTH, over m1 and m2. */
void r2net_auth_final(struct r2net_conn *conn, u8 *mac)
{
	r2net_mac(mac, "r2net hs3", conn->hs_m[0], R2NET_HANDSHAKE_LEN,
		  conn->hs_m[1], R2NET_HANDSHAKE_LEN);
}

bool r2net_auth_final_ok(struct r2net_conn *conn, const u8 *mac)
{
	return r2net_mac_ok(mac, "r2net hs3", conn->hs_m[0],
			    R2NET_HANDSHAKE_LEN, conn->hs_m[1],
			    R2NET_HANDSHAKE_LEN);
}

/* The key named label of this connection's direction, into tx and rx. */
static void r2net_dir_keys(struct r2net_conn *conn, const char *c2a_label,
			   const char *a2c_label, u8 *tx, u8 *rx)
{
	const u8 *m1 = conn->hs_m[0], *m2 = conn->hs_m[1];

	r2net_mac(conn->outgoing ? tx : rx, c2a_label, m1,
		  R2NET_HANDSHAKE_LEN, m2, R2NET_HANDSHAKE_LEN);
	r2net_mac(conn->outgoing ? rx : tx, a2c_label, m1,
		  R2NET_HANDSHAKE_LEN, m2, R2NET_HANDSHAKE_LEN);
}

/*
 * The connection is up: its frame keys, from the cluster key and the
 * handshake, which is then forgotten; with encrypt, its bounce buffer.
 */
int r2net_auth_up(struct r2net_conn *conn)
{
	if (r2net_info.security == R2NET_SEC_ENCRYPT) {
		conn->tx_bounce = kvmalloc(R2NET_MAX_PAYLOAD, GFP_KERNEL);
		if (!conn->tx_bounce)
			return -ENOMEM;
		r2net_dir_keys(conn, "r2net enc c2a", "r2net enc a2c",
			       conn->tx_ekey, conn->rx_ekey);
	}
	r2net_dir_keys(conn, "r2net key c2a", "r2net key a2c", conn->tx_key,
		       conn->rx_key);
	conn->tx_seq = 0;
	conn->rx_seq = 0;
	memzero_explicit(conn->hs_m, sizeof(conn->hs_m));
	return 0;
}

/* ChaCha20 of len bytes from src into dst, under key, frame number seq. */
static void r2net_crypt(const u8 *key, u64 seq, u8 *dst, const u8 *src,
			size_t len)
{
	u32 k[CHACHA_KEY_SIZE / 4], st[CHACHA_STATE_WORDS];
	u8 iv[CHACHA_IV_SIZE] = { 0 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(k); i++)
		k[i] = get_unaligned_le32(key + 4 * i);
	put_unaligned_le64(seq, iv + 4);
	chacha_init(st, k, iv);
	chacha20_crypt(st, dst, src, len);
	memzero_explicit(k, sizeof(k));
	memzero_explicit(st, sizeof(st));
}

/*
 * Encrypt the payload of the next frame sent, the pieces vec[1..n) after
 * its header vec[0], into the bounce buffer; vec then names the header
 * and the buffer.  Returns the new n.
 */
unsigned int r2net_auth_encrypt(struct r2net_conn *conn, struct kvec *vec,
				unsigned int n)
{
	size_t len = 0;
	unsigned int i;

	for (i = 1; i < n; i++) {
		memcpy(conn->tx_bounce + len, vec[i].iov_base, vec[i].iov_len);
		len += vec[i].iov_len;
	}
	r2net_crypt(conn->tx_ekey, conn->tx_seq, conn->tx_bounce,
		    conn->tx_bounce, len);
	vec[1].iov_base = conn->tx_bounce;
	vec[1].iov_len = len;
	return len ? 2 : 1;
}

/* Decrypt in place the payload of the frame whose tag was just checked. */
void r2net_auth_decrypt(struct r2net_conn *conn, u8 *p, size_t len)
{
	r2net_crypt(conn->rx_ekey, conn->rx_seq - 1, p, p, len);
}

void r2net_auth_free(struct r2net_conn *conn)
{
	kvfree(conn->tx_bounce);
	memzero_explicit(conn->tx_key, sizeof(conn->tx_key));
	memzero_explicit(conn->rx_key, sizeof(conn->rx_key));
	memzero_explicit(conn->tx_ekey, sizeof(conn->tx_ekey));
	memzero_explicit(conn->rx_ekey, sizeof(conn->rx_ekey));
}

/* Poly1305 with the one-time key of frame seq under key. */
static void r2net_tag_init(struct poly1305_desc_ctx *ctx, const u8 *key,
			   u64 seq)
{
	struct blake2s_state st;
	u8 otk[POLY1305_KEY_SIZE];
	__le64 n = cpu_to_le64(seq);

	static_assert(POLY1305_KEY_SIZE == R2NET_MAC_LEN);
	blake2s_init_key(&st, sizeof(otk), key, R2NET_KEY_LEN);
	blake2s_update(&st, (const u8 *)&n, sizeof(n));
	blake2s_final(&st, otk);
	poly1305_init(ctx, otk);
	memzero_explicit(otk, sizeof(otk));
}

/* The tag of the next frame sent, made of its pieces vec[0..n). */
void r2net_auth_tag(struct r2net_conn *conn, const struct kvec *vec,
		    unsigned int n, u8 *tag)
{
	struct poly1305_desc_ctx ctx;
	unsigned int i;

	r2net_tag_init(&ctx, conn->tx_key, conn->tx_seq++);
	for (i = 0; i < n; i++)
		poly1305_update(&ctx, vec[i].iov_base, vec[i].iov_len);
	poly1305_final(&ctx, tag);
}

/* Is tag right for the next frame received, of len bytes at p? */
bool r2net_auth_tag_ok(struct r2net_conn *conn, const u8 *p, size_t len,
		       const u8 *tag)
{
	struct poly1305_desc_ctx ctx;
	u8 want[POLY1305_DIGEST_SIZE];
	bool ok;

	r2net_tag_init(&ctx, conn->rx_key, conn->rx_seq++);
	poly1305_update(&ctx, p, len);
	poly1305_final(&ctx, want);
	ok = !crypto_memneq(want, tag, sizeof(want));
	memzero_explicit(want, sizeof(want));
	return ok;
}
