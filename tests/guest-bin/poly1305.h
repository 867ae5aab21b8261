/* SPDX-License-Identifier: GPL-2.0 */
/*
 * poly1305.h - Poly1305 (RFC 8439, section 2.5) for the test tools that
 * tag r2net frames (r2net_wire.h): 26-bit limbs, 64-bit products.  Small
 * and slow; checked against RFC 8439's vector by p1305_selftest().
 */
#ifndef RAMSTER_TESTS_POLY1305_H
#define RAMSTER_TESTS_POLY1305_H

#include <stdint.h>
#include <string.h>

#define P1305_KEY	32
#define P1305_TAG	16

struct p1305 {
	uint32_t r[5], h[5], pad[4];
	uint8_t buf[16];
	size_t n;			/* bytes in buf */
};

static inline uint32_t p1305_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void p1305_init(struct p1305 *s, const uint8_t *key)
{
	memset(s, 0, sizeof(*s));
	/* r, clamped, in 26-bit limbs */
	s->r[0] = p1305_le32(key + 0) & 0x3ffffff;
	s->r[1] = (p1305_le32(key + 3) >> 2) & 0x3ffff03;
	s->r[2] = (p1305_le32(key + 6) >> 4) & 0x3ffc0ff;
	s->r[3] = (p1305_le32(key + 9) >> 6) & 0x3f03fff;
	s->r[4] = (p1305_le32(key + 12) >> 8) & 0x00fffff;
	s->pad[0] = p1305_le32(key + 16);
	s->pad[1] = p1305_le32(key + 20);
	s->pad[2] = p1305_le32(key + 24);
	s->pad[3] = p1305_le32(key + 28);
}

/* h = (h + block + hibit * 2^128) * r mod 2^130 - 5 */
static void p1305_block(struct p1305 *s, const uint8_t *m, uint32_t hibit)
{
	uint32_t r0 = s->r[0], r1 = s->r[1], r2 = s->r[2], r3 = s->r[3];
	uint32_t r4 = s->r[4];
	uint32_t s1 = r1 * 5, s2 = r2 * 5, s3 = r3 * 5, s4 = r4 * 5;
	uint32_t h0, h1, h2, h3, h4, c;
	uint64_t d0, d1, d2, d3, d4;

	h0 = s->h[0] + (p1305_le32(m + 0) & 0x3ffffff);
	h1 = s->h[1] + ((p1305_le32(m + 3) >> 2) & 0x3ffffff);
	h2 = s->h[2] + ((p1305_le32(m + 6) >> 4) & 0x3ffffff);
	h3 = s->h[3] + ((p1305_le32(m + 9) >> 6) & 0x3ffffff);
	h4 = s->h[4] + ((p1305_le32(m + 12) >> 8) | hibit);

	d0 = (uint64_t)h0 * r0 + (uint64_t)h1 * s4 + (uint64_t)h2 * s3 +
	     (uint64_t)h3 * s2 + (uint64_t)h4 * s1;
	d1 = (uint64_t)h0 * r1 + (uint64_t)h1 * r0 + (uint64_t)h2 * s4 +
	     (uint64_t)h3 * s3 + (uint64_t)h4 * s2;
	d2 = (uint64_t)h0 * r2 + (uint64_t)h1 * r1 + (uint64_t)h2 * r0 +
	     (uint64_t)h3 * s4 + (uint64_t)h4 * s3;
	d3 = (uint64_t)h0 * r3 + (uint64_t)h1 * r2 + (uint64_t)h2 * r1 +
	     (uint64_t)h3 * r0 + (uint64_t)h4 * s4;
	d4 = (uint64_t)h0 * r4 + (uint64_t)h1 * r3 + (uint64_t)h2 * r2 +
	     (uint64_t)h3 * r1 + (uint64_t)h4 * r0;

	c = (uint32_t)(d0 >> 26);
	h0 = (uint32_t)d0 & 0x3ffffff;
	d1 += c;
	c = (uint32_t)(d1 >> 26);
	h1 = (uint32_t)d1 & 0x3ffffff;
	d2 += c;
	c = (uint32_t)(d2 >> 26);
	h2 = (uint32_t)d2 & 0x3ffffff;
	d3 += c;
	c = (uint32_t)(d3 >> 26);
	h3 = (uint32_t)d3 & 0x3ffffff;
	d4 += c;
	c = (uint32_t)(d4 >> 26);
	h4 = (uint32_t)d4 & 0x3ffffff;
	h0 += c * 5;
	c = h0 >> 26;
	h0 &= 0x3ffffff;
	h1 += c;

	s->h[0] = h0;
	s->h[1] = h1;
	s->h[2] = h2;
	s->h[3] = h3;
	s->h[4] = h4;
}

static void p1305_update(struct p1305 *s, const void *in, size_t len)
{
	const uint8_t *p = in;

	while (len) {
		size_t k = 16 - s->n;

		if (k > len)
			k = len;
		memcpy(s->buf + s->n, p, k);
		s->n += k;
		p += k;
		len -= k;
		if (s->n == 16) {
			p1305_block(s, s->buf, 1u << 24);
			s->n = 0;
		}
	}
}

static void p1305_final(struct p1305 *s, uint8_t *tag)
{
	uint32_t h0, h1, h2, h3, h4, g0, g1, g2, g3, g4, c, mask;
	uint64_t f;
	int i;

	if (s->n) {
		s->buf[s->n] = 1;
		memset(s->buf + s->n + 1, 0, 16 - s->n - 1);
		p1305_block(s, s->buf, 0);
	}
	h0 = s->h[0];
	h1 = s->h[1];
	h2 = s->h[2];
	h3 = s->h[3];
	h4 = s->h[4];
	/* carry through */
	c = h1 >> 26;
	h1 &= 0x3ffffff;
	h2 += c;
	c = h2 >> 26;
	h2 &= 0x3ffffff;
	h3 += c;
	c = h3 >> 26;
	h3 &= 0x3ffffff;
	h4 += c;
	c = h4 >> 26;
	h4 &= 0x3ffffff;
	h0 += c * 5;
	c = h0 >> 26;
	h0 &= 0x3ffffff;
	h1 += c;
	/* g = h - (2^130 - 5); take g if it did not go below zero */
	g0 = h0 + 5;
	c = g0 >> 26;
	g0 &= 0x3ffffff;
	g1 = h1 + c;
	c = g1 >> 26;
	g1 &= 0x3ffffff;
	g2 = h2 + c;
	c = g2 >> 26;
	g2 &= 0x3ffffff;
	g3 = h3 + c;
	c = g3 >> 26;
	g3 &= 0x3ffffff;
	g4 = h4 + c - (1u << 26);
	mask = (g4 >> 31) - 1;		/* all ones if g4 >= 0 */
	h0 = (h0 & ~mask) | (g0 & mask);
	h1 = (h1 & ~mask) | (g1 & mask);
	h2 = (h2 & ~mask) | (g2 & mask);
	h3 = (h3 & ~mask) | (g3 & mask);
	h4 = (h4 & ~mask) | (g4 & mask);
	/* h mod 2^128, plus pad */
	h0 = h0 | (h1 << 26);
	h1 = (h1 >> 6) | (h2 << 20);
	h2 = (h2 >> 12) | (h3 << 14);
	h3 = (h3 >> 18) | (h4 << 8);
	f = (uint64_t)h0 + s->pad[0];
	h0 = (uint32_t)f;
	f = (uint64_t)h1 + s->pad[1] + (f >> 32);
	h1 = (uint32_t)f;
	f = (uint64_t)h2 + s->pad[2] + (f >> 32);
	h2 = (uint32_t)f;
	f = (uint64_t)h3 + s->pad[3] + (f >> 32);
	h3 = (uint32_t)f;
	for (i = 0; i < 4; i++) {
		tag[i] = (uint8_t)(h0 >> (8 * i));
		tag[4 + i] = (uint8_t)(h1 >> (8 * i));
		tag[8 + i] = (uint8_t)(h2 >> (8 * i));
		tag[12 + i] = (uint8_t)(h3 >> (8 * i));
	}
}

/* 0 if the tag of RFC 8439's section 2.5.2 example comes out. */
static int p1305_selftest(void)
{
	static const uint8_t key[P1305_KEY] = {
		0x85, 0xd6, 0xbe, 0x78, 0x57, 0x55, 0x6d, 0x33,
		0x7f, 0x44, 0x52, 0xfe, 0x42, 0xd5, 0x06, 0xa8,
		0x01, 0x03, 0x80, 0x8a, 0xfb, 0x0d, 0xb2, 0xfd,
		0x4a, 0xbf, 0xf6, 0xaf, 0x41, 0x49, 0xf5, 0x1b,
	};
	static const uint8_t want[P1305_TAG] = {
		0xa8, 0x06, 0x1d, 0xc1, 0x30, 0x51, 0x36, 0xc6,
		0xc2, 0x2b, 0x8b, 0xaf, 0x0c, 0x01, 0x27, 0xa9,
	};
	static const char msg[] = "Cryptographic Forum Research Group";
	uint8_t tag[P1305_TAG];
	struct p1305 s;

	p1305_init(&s, key);
	p1305_update(&s, msg, sizeof(msg) - 1);
	p1305_final(&s, tag);
	return memcmp(tag, want, sizeof(tag)) ? -1 : 0;
}

#endif /* RAMSTER_TESTS_POLY1305_H */
