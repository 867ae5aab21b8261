/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagepat.h - checkable page contents for the guest programs.
 *
 * A page written for (seed, index, gen) starts with a header (magic,
 * seed, index, gen) and continues with words derived from those: one in
 * four random, the rest a short pattern, so LZO gets it to about half
 * (as typical anonymous memory) while every word can be checked.  A page
 * from another place, file or time is caught and named.  The includer
 * defines progname first.
 */
#ifndef PAGEPAT_H
#define PAGEPAT_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PAGE 4096UL

struct pp_hdr {
	uint64_t magic;
	uint64_t seed;
	uint64_t index;
	uint64_t gen;
};

static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static inline uint64_t pp_word(uint64_t seed, uint64_t index, uint64_t gen,
			       size_t i)
{
	if (i % 4 == 0)
		return mix(seed ^ (index << 20) ^ (gen << 48) ^ i);
	return (index << 32) | (gen << 16) | (i & 0xff);
}

static inline void pp_fill(void *p, uint64_t magic, uint64_t seed,
			   uint64_t index, uint64_t gen)
{
	uint64_t *w = p;
	struct pp_hdr *h = p;
	size_t i;

	for (i = sizeof(*h) / 8; i < PAGE / 8; i++)
		w[i] = pp_word(seed, index, gen, i);
	h->magic = magic;
	h->seed = seed;
	h->index = index;
	h->gen = gen;
}

/* 0 when p holds what pp_fill() wrote; else -1, said on stderr. */
static inline int pp_check(const void *p, uint64_t magic, uint64_t seed,
			   uint64_t index, uint64_t gen, const char *what)
{
	const uint64_t *w = p;
	const struct pp_hdr *h = p;
	size_t i;

	if (h->magic != magic || h->seed != seed || h->index != index ||
	    h->gen != gen) {
		fprintf(stderr, "%s: %s page %" PRIu64 ": header says magic %#" PRIx64
			" seed %" PRIu64 " page %" PRIu64 " gen %" PRIu64
			"; want seed %" PRIu64 " gen %" PRIu64 "\n", progname,
			what, index, h->magic, h->seed, h->index, h->gen, seed,
			gen);
		return -1;
	}
	for (i = sizeof(*h) / 8; i < PAGE / 8; i++)
		if (w[i] != pp_word(seed, index, gen, i)) {
			fprintf(stderr, "%s: %s page %" PRIu64 ": word %zu wrong\n",
				progname, what, index, i);
			return -1;
		}
	return 0;
}

#endif /* PAGEPAT_H */
