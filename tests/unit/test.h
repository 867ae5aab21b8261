/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test.h - what the unit tests share: a seeded PRNG and CHECK().
 */
#ifndef RAMSTER_UNIT_TEST_H
#define RAMSTER_UNIT_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/*
 * splitmix64: small, fast, and the same sequence for the same seed; a
 * thread keeps its own state and calls rnd64_from().
 */
static uint64_t rng_state;

static inline uint64_t rnd64_from(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rnd64(void)
{
	return rnd64_from(&rng_state);
}

/* uniform enough in [0, n) for test purposes; n > 0 */
static inline uint32_t rnd(uint32_t n)
{
	return (uint32_t)(rnd64() % n);
}

static unsigned long test_checks __attribute__((unused));
static unsigned long test_failures __attribute__((unused));
static unsigned int test_seed;

#define CHECK(cond, ...)						\
	do {								\
		test_checks++;						\
		if (!(cond)) {						\
			test_failures++;				\
			fprintf(stderr, "%s:%d: FAIL: %s: ", __FILE__,	\
				__LINE__, #cond);			\
			fprintf(stderr, __VA_ARGS__);			\
			fprintf(stderr, " (seed %u)\n", test_seed);	\
		}							\
	} while (0)

/* -s SEED replays a run; without it the seed comes from the clock. */
static inline void test_seed_from_args(int argc, char **argv, const char *name)
{
	int i;

	test_seed = (unsigned int)time(NULL) ^ ((unsigned int)getpid() << 16);
	for (i = 1; i + 1 < argc; i++)
		if (argv[i][0] == '-' && argv[i][1] == 's' && !argv[i][2])
			test_seed = (unsigned int)strtoul(argv[i + 1], NULL, 0);
	rng_state = test_seed;
	printf("%s: random seed %u (replay with -s %u)\n", name, test_seed,
	       test_seed);
	fflush(stdout);
}

#endif /* RAMSTER_UNIT_TEST_H */
