/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blake2s.h - BLAKE2s-256 (RFC 7693), keyed, for the test tools that
 * speak r2net's handshake (r2net_wire.h): the same MAC the kernel makes
 * with lib/crypto's blake2s.  Small and slow; checked against RFC 7693's
 * "abc" vector by b2s_selftest().
 */
#ifndef RAMSTER_TESTS_BLAKE2S_H
#define RAMSTER_TESTS_BLAKE2S_H

#include <stdint.h>
#include <string.h>

#define B2S_BLOCK	64
#define B2S_OUT		32

struct b2s {
	uint32_t h[8];
	uint32_t t[2];
	uint8_t buf[B2S_BLOCK];
	size_t n;			/* bytes in buf */
};

static const uint32_t b2s_iv[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static const uint8_t b2s_sigma[10][16] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
	{ 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
	{ 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
	{ 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
	{ 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
	{ 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
	{ 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
	{ 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
	{ 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
};

static inline uint32_t b2s_ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint32_t b2s_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#define B2S_G(a, b, c, d, x, y)					\
	do {							\
		v[a] += v[b] + (x);				\
		v[d] = b2s_ror(v[d] ^ v[a], 16);		\
		v[c] += v[d];					\
		v[b] = b2s_ror(v[b] ^ v[c], 12);		\
		v[a] += v[b] + (y);				\
		v[d] = b2s_ror(v[d] ^ v[a], 8);			\
		v[c] += v[d];					\
		v[b] = b2s_ror(v[b] ^ v[c], 7);			\
	} while (0)

static void b2s_compress(struct b2s *s, int last)
{
	uint32_t v[16], m[16];
	int i;

	for (i = 0; i < 16; i++)
		m[i] = b2s_le32(s->buf + 4 * i);
	for (i = 0; i < 8; i++) {
		v[i] = s->h[i];
		v[i + 8] = b2s_iv[i];
	}
	v[12] ^= s->t[0];
	v[13] ^= s->t[1];
	if (last)
		v[14] = ~v[14];
	for (i = 0; i < 10; i++) {
		const uint8_t *z = b2s_sigma[i];

		B2S_G(0, 4, 8, 12, m[z[0]], m[z[1]]);
		B2S_G(1, 5, 9, 13, m[z[2]], m[z[3]]);
		B2S_G(2, 6, 10, 14, m[z[4]], m[z[5]]);
		B2S_G(3, 7, 11, 15, m[z[6]], m[z[7]]);
		B2S_G(0, 5, 10, 15, m[z[8]], m[z[9]]);
		B2S_G(1, 6, 11, 12, m[z[10]], m[z[11]]);
		B2S_G(2, 7, 8, 13, m[z[12]], m[z[13]]);
		B2S_G(3, 4, 9, 14, m[z[14]], m[z[15]]);
	}
	for (i = 0; i < 8; i++)
		s->h[i] ^= v[i] ^ v[i + 8];
}

static void b2s_update(struct b2s *s, const void *in, size_t len)
{
	const uint8_t *p = in;

	while (len) {
		size_t k;

		/* The last block is compressed by b2s_final, so keep one. */
		if (s->n == B2S_BLOCK) {
			s->t[0] += B2S_BLOCK;
			if (s->t[0] < B2S_BLOCK)
				s->t[1]++;
			b2s_compress(s, 0);
			s->n = 0;
		}
		k = B2S_BLOCK - s->n;
		if (k > len)
			k = len;
		memcpy(s->buf + s->n, p, k);
		s->n += k;
		p += k;
		len -= k;
	}
}

/* key may be NULL with klen 0; klen at most 32. */
static void b2s_init(struct b2s *s, const void *key, size_t klen)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 8; i++)
		s->h[i] = b2s_iv[i];
	s->h[0] ^= 0x01010000 ^ (uint32_t)(klen << 8) ^ B2S_OUT;
	if (klen) {
		memcpy(s->buf, key, klen);
		s->n = B2S_BLOCK;
	}
}

static void b2s_final(struct b2s *s, uint8_t *out)
{
	int i;

	s->t[0] += (uint32_t)s->n;
	if (s->t[0] < s->n)
		s->t[1]++;
	memset(s->buf + s->n, 0, B2S_BLOCK - s->n);
	b2s_compress(s, 1);
	for (i = 0; i < B2S_OUT; i++)
		out[i] = (uint8_t)(s->h[i / 4] >> (8 * (i % 4)));
}

/* 0 if BLAKE2s-256("abc") is RFC 7693's answer (Appendix B). */
static int b2s_selftest(void)
{
	static const uint8_t want[B2S_OUT] = {
		0x50, 0x8c, 0x5e, 0x8c, 0x32, 0x7c, 0x14, 0xe2,
		0xe1, 0xa7, 0x2b, 0xa3, 0x4e, 0xeb, 0x45, 0x2f,
		0x37, 0x45, 0x8b, 0x20, 0x9e, 0xd6, 0x3a, 0x29,
		0x4d, 0x99, 0x9b, 0x4c, 0x86, 0x67, 0x59, 0x82,
	};
	uint8_t out[B2S_OUT];
	struct b2s s;

	b2s_init(&s, NULL, 0);
	b2s_update(&s, "abc", 3);
	b2s_final(&s, out);
	return memcmp(out, want, sizeof(out)) ? -1 : 0;
}

#endif /* RAMSTER_TESTS_BLAKE2S_H */
