// SPDX-License-Identifier: GPL-2.0
/*
 * swapcheck: guest-side swap workloads that check every page they wrote.
 *
 * Each page carries a header (magic, seed, page index, generation) and a
 * body derived from those, so a page that comes back from swap can be
 * checked completely and a page from another place or time is caught.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAGIC 0x52414d5354455221ULL	/* "RAMSTER!" */

static const char *progname = "swapcheck";

#include "pagepat.h"

static void fill(void *p, uint64_t seed, uint64_t index, uint64_t gen)
{
	pp_fill(p, MAGIC, seed, index, gen);
}

static int check(const void *p, uint64_t seed, uint64_t index, uint64_t gen)
{
	return pp_check(p, MAGIC, seed, index, gen, "memory");
}

static void *map_pages(size_t n)
{
	void *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "%s: mmap %zu pages: %s\n", progname, n,
			strerror(errno));
		exit(2);
	}
	return p;
}

/* Swap entry of the page at @addr from /proc/self/pagemap, or -1. */
static int64_t swap_offset(void *addr)
{
	uint64_t e;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	off_t at = (uintptr_t)addr / PAGE * 8;

	if (fd < 0 || pread(fd, &e, 8, at) != 8) {
		fprintf(stderr, "%s: pagemap: %s\n", progname, strerror(errno));
		exit(2);
	}
	close(fd);
	if (!(e & (1ULL << 62)))
		return -1;		/* not swapped */
	return (int64_t)((e & ((1ULL << 55) - 1)) >> 5);
}

/* Page out the range and count how many pages really went to swap. */
static size_t page_out(char *buf, size_t n)
{
	size_t i, swapped = 0;

	if (madvise(buf, n * PAGE, MADV_PAGEOUT)) {
		fprintf(stderr, "%s: MADV_PAGEOUT: %s\n", progname,
			strerror(errno));
		exit(2);
	}
	for (i = 0; i < n; i++)
		if (swap_offset(buf + i * PAGE) >= 0)
			swapped++;
	return swapped;
}

/* How many of the pages mincore() finds resident (swap cache included). */
static size_t in_swap_cache(char *buf, size_t n)
{
	unsigned char *vec = malloc(n);
	size_t i, resident = 0;

	if (!vec || mincore(buf, n * PAGE, vec)) {
		fprintf(stderr, "%s: mincore: %s\n", progname, strerror(errno));
		exit(2);
	}
	for (i = 0; i < n; i++)
		resident += vec[i] & 1;
	free(vec);
	return resident;
}

static int verify_all(char *buf, size_t n, uint64_t seed, uint64_t gen)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < n; i++)
		if (check(buf + i * PAGE, seed, i, gen) && ++bad > 10)
			break;
	return bad;
}

/* pageout N: fill, page out, read back, check; twice, with new data. */
static int cmd_pageout(size_t n)
{
	char *buf = map_pages(n);
	uint64_t seed = mix(getpid());
	size_t i, swapped;
	uint64_t gen;

	for (gen = 1; gen <= 2; gen++) {
		for (i = 0; i < n; i++)
			fill(buf + i * PAGE, seed, i, gen);
		swapped = page_out(buf, n);
		printf("pageout gen %" PRIu64 ": %zu of %zu pages swapped\n",
		       gen, swapped, n);
		if (swapped < n * 9 / 10) {
			fprintf(stderr, "%s: only %zu of %zu pages reached swap\n",
				progname, swapped, n);
			return 1;
		}
		if (verify_all(buf, n, seed, gen))
			return 1;
	}
	printf("pageout: %zu pages correct after two round trips\n", n);
	return 0;
}

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* When the workload last finished a page, for the stall watcher. */
static uint64_t progress_us;

/* The longest gap so far, with the one since *last; *last is now. */
static uint64_t max_gap(uint64_t gap, uint64_t *last)
{
	uint64_t t = now_us();

	if (t - *last > gap)
		gap = t - *last;
	*last = t;
	__atomic_store_n(&progress_us, t, __ATOMIC_RELAXED);
	return gap;
}

/*
 * The stall watcher (SWAPCHECK_STALL_MS): when the workload's thread has
 * finished no page for that long, say on stderr where it waits (its
 * state, wchan and kernel stack, read as root), then again every second
 * of the same stall, at most 8 times a stall and 32 in all.
 */
static pid_t watched_tid;
static uint64_t stall_us;

/* The first line of a file, or its lines joined with spaces. */
static void read_joined(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;
	int c;

	buf[0] = 0;
	if (!f)
		return;
	while ((c = fgetc(f)) != EOF && n + 1 < size)
		buf[n++] = c == '\n' ? ' ' : (char)c;
	buf[n] = 0;
	fclose(f);
}

static void *stall_watch(void *arg)
{
	char path[64], stat[512], wchan[128], stack[2048];
	uint64_t seen = 0, next = 0;
	unsigned int n = 0, total = 0;

	(void)arg;
	while (total < 32) {
		uint64_t p, t;
		char *st;

		usleep(100000);
		p = __atomic_load_n(&progress_us, __ATOMIC_RELAXED);
		t = now_us();
		if (t - p < stall_us)
			continue;
		if (p != seen) {
			seen = p;
			n = 0;
			next = t;
		}
		if (t < next || n >= 8)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat",
			 (int)watched_tid);
		read_joined(path, stat, sizeof(stat));
		st = strrchr(stat, ')');
		snprintf(path, sizeof(path), "/proc/self/task/%d/wchan",
			 (int)watched_tid);
		read_joined(path, wchan, sizeof(wchan));
		snprintf(path, sizeof(path), "/proc/self/task/%d/stack",
			 (int)watched_tid);
		read_joined(path, stack, sizeof(stack));
		fprintf(stderr, "stall: %" PRIu64 " ms without a page done: state %c, wchan %s, stack: %s\n",
			(t - p) / 1000, st && st[1] && st[2] ? st[2] : '?',
			wchan[0] ? wchan : "-", stack[0] ? stack : "-");
		n++;
		total++;
		next = t + 1000000;
	}
	return NULL;
}

/* Start the stall watcher if SWAPCHECK_STALL_MS asks for it. */
static void stall_watch_start(void)
{
	const char *e = getenv("SWAPCHECK_STALL_MS");
	pthread_t t;

	if (!e || !*e)
		return;
	stall_us = strtoull(e, NULL, 0) * 1000;
	if (!stall_us)
		return;
	watched_tid = (pid_t)syscall(SYS_gettid);
	progress_us = now_us();
	if (pthread_create(&t, NULL, stall_watch, NULL))
		fprintf(stderr, "%s: cannot start the stall watcher\n",
			progname);
	else
		pthread_detach(t);
}

/* Whether the page at @p is in memory (swap cache included). */
static int resident(void *p)
{
	unsigned char v;

	if (mincore(p, PAGE, &v)) {
		fprintf(stderr, "%s: mincore: %s\n", progname, strerror(errno));
		exit(2);
	}
	return v & 1;
}

/*
 * pressure MIB: random writes and reads over MIB of memory, more than
 * the guest has, so reclaim swaps; every page read is checked whole, and
 * every page again at the end.  It says the longest time between two
 * pages done, in any phase: how long swapping stood still at worst.
 * timed MIB also times the three phases
 * (fill, random, verify) and each random access whose page was not in
 * memory (a swap-in), for the benches.
 */
static int cmd_pressure(size_t mib, size_t rounds, int timed)
{
	size_t n = mib * 1024 * 1024 / PAGE, i, r, nr = rounds * n / 4, nin = 0;
	char *buf = map_pages(n);
	uint32_t *gen = calloc(n, sizeof(*gen));
	uint32_t *lat = timed ? calloc(nr + 1, sizeof(*lat)) : NULL;
	uint64_t seed = mix(getpid() + 1), x = seed, t0, t1, t2, t3, a;
	uint64_t last, gap = 0;
	size_t verify_in = 0;
	int in;

	if (!gen || (timed && !lat)) {
		fprintf(stderr, "%s: out of memory for %zu pages\n", progname, n);
		return 2;
	}
	t0 = now_us();
	last = t0;
	stall_watch_start();
	for (i = 0; i < n; i++) {
		gen[i] = 1;
		fill(buf + i * PAGE, seed, i, 1);
		gap = max_gap(gap, &last);
	}
	t1 = now_us();
	/* Touch a quarter of the pages per round, checking each read. */
	for (r = 0; r < nr; r++) {
		x = mix(x + r);
		i = x % n;
		in = timed ? resident(buf + i * PAGE) : 1;
		a = in ? 0 : now_us();
		if (check(buf + i * PAGE, seed, i, gen[i]))
			return 1;
		if (!in)
			lat[nin++] = now_us() - a;
		if (x & (1ULL << 40))
			fill(buf + i * PAGE, seed, i, ++gen[i]);
		gap = max_gap(gap, &last);
	}
	/* What the in-order check has to bring back in, at least. */
	if (timed)
		verify_in = n - in_swap_cache(buf, n);
	t2 = now_us();
	for (i = 0; i < n; i++) {
		if (check(buf + i * PAGE, seed, i, gen[i]))
			return 1;
		gap = max_gap(gap, &last);
	}
	t3 = now_us();
	printf("pressure: %zu MiB, %zu random accesses, every page correct; longest_gap_ms=%" PRIu64 "\n",
	       mib, nr, gap / 1000);
	if (!timed)
		return 0;
	qsort(lat, nin, sizeof(*lat), cmp_u32);
	printf("timed: mib=%zu pages=%zu accesses=%zu fill_ms=%" PRIu64
	       " random_ms=%" PRIu64 " verify_ms=%" PRIu64 " total_ms=%" PRIu64
	       " swapins=%zu p50_us=%u p99_us=%u max_us=%u verify_in=%zu\n",
	       mib, n, nr, (t1 - t0) / 1000, (t2 - t1) / 1000,
	       (t3 - t2) / 1000, (t3 - t0) / 1000, nin,
	       nin ? lat[nin / 2] : 0, nin ? lat[nin * 99 / 100] : 0,
	       nin ? lat[nin - 1] : 0, verify_in);
	return 0;
}

#define RECLAIM "/sys/fs/cgroup/memory.reclaim"

/*
 * Pages MADV_PAGEOUT wrote stay in the swap cache while their writeback
 * runs (writethrough: the disk's too), and reading one then is no
 * swap-in.  Ask the root cgroup to reclaim until at most a twentieth of
 * the n pages at buf are still there.
 */
static int leave_swap_cache(char *buf, size_t n)
{
	char amount[32];
	int fd, tries;

	snprintf(amount, sizeof(amount), "%zu", 2 * n * PAGE);
	for (tries = 0; tries < 100; tries++) {
		if (in_swap_cache(buf, n) <= n / 20)
			return 0;
		fd = open(RECLAIM, O_WRONLY);
		if (fd < 0) {
			fprintf(stderr, "%s: %s: %s; mount cgroup2 on /sys/fs/cgroup\n",
				progname, RECLAIM, strerror(errno));
			return -1;
		}
		/* EAGAIN: less than asked for could be reclaimed. */
		if (write(fd, amount, strlen(amount)) < 0 && errno != EAGAIN) {
			fprintf(stderr, "%s: write %s: %s\n", progname,
				RECLAIM, strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
		usleep(100000);
	}
	fprintf(stderr, "%s: %zu of %zu pages still in memory after 100 reclaims\n",
		progname, in_swap_cache(buf, n), n);
	return -1;
}

/*
 * stride MIB STEP: fill MIB in order and page it all out, so that swap
 * offsets follow the addresses, and out of the swap cache; read every
 * STEP-th page in order, then every STEP-th backwards from the end,
 * checking each; then every page.
 */
static int cmd_stride(size_t mib, size_t step)
{
	size_t n = mib * 1024 * 1024 / PAGE, i, swapped, reads = 0;
	uint64_t seed = mix(getpid() + 2);
	char *buf;

	if (!mib) {
		fprintf(stderr, "%s: give MIB of 1 or more\n", progname);
		return 2;
	}
	if (!step || step >= n) {
		fprintf(stderr, "%s: give a STEP of 1..%zu\n", progname, n - 1);
		return 2;
	}
	buf = map_pages(n);
	for (i = 0; i < n; i++)
		fill(buf + i * PAGE, seed, i, 1);
	swapped = page_out(buf, n);
	if (leave_swap_cache(buf, n))
		return 2;
	for (i = 0; i < n; i += step, reads++)
		if (check(buf + i * PAGE, seed, i, 1))
			return 1;
	for (i = n - 1 - step / 2; i < n; i -= step, reads++)
		if (check(buf + i * PAGE, seed, i, 1))
			return 1;
	if (verify_all(buf, n, seed, 1))
		return 1;
	printf("stride: %zu pages, %zu swapped out, %zu read %zu apart forwards and backwards, every page correct\n",
	       n, swapped, reads, step);
	return 0;
}

/*
 * shuffled MIB: fill MIB and page it out one page at a time in a random
 * order, so that neighbouring pages get scattered swap offsets, and out
 * of the swap cache; then read every page in order, checking each.  Only
 * readahead by address finds the next pages of such a read.
 */
static int cmd_shuffled(size_t mib)
{
	size_t n = mib * 1024 * 1024 / PAGE, i, j, t, swapped = 0;
	uint64_t seed = mix(getpid() + 3);
	size_t *order;
	char *buf;

	if (!mib) {
		fprintf(stderr, "%s: give MIB of 1 or more\n", progname);
		return 2;
	}
	order = malloc(n * sizeof(*order));
	if (!order) {
		fprintf(stderr, "%s: no memory for %zu pages' order\n",
			progname, n);
		return 2;
	}
	buf = map_pages(n);
	for (i = 0; i < n; i++) {
		fill(buf + i * PAGE, seed, i, 1);
		order[i] = i;
	}
	for (i = n - 1; i > 0; i--) {
		j = mix(seed + i) % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++)
		if (madvise(buf + order[i] * PAGE, PAGE, MADV_PAGEOUT)) {
			fprintf(stderr, "%s: MADV_PAGEOUT: %s\n", progname,
				strerror(errno));
			return 2;
		}
	free(order);
	for (i = 0; i < n; i++)
		if (swap_offset(buf + i * PAGE) >= 0)
			swapped++;
	if (leave_swap_cache(buf, n))
		return 2;
	if (verify_all(buf, n, seed, 1))
		return 1;
	printf("shuffled: %zu pages, %zu swapped out in a random order, read back in order, every page correct\n",
	       n, swapped);
	return 0;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t len = strlen(s);

	if (fd < 0 || write(fd, s, len) != len) {
		fprintf(stderr, "%s: write %s: %s\n", progname, path,
			strerror(errno));
		return -1;
	}
	return close(fd);
}

/*
 * lose KNOB: a child pages out its memory, has the backend lose the next
 * load through KNOB and touches a page: it must die of SIGBUS.  The
 * parent's own swapped pages must come back intact.
 */
static int cmd_lose(const char *knob)
{
	size_t n = 64;
	char *mine = map_pages(n);
	uint64_t seed = mix(getppid());
	int status;
	size_t i;
	pid_t pid;

	for (i = 0; i < n; i++)
		fill(mine + i * PAGE, seed, i, 7);
	if (page_out(mine, n) < n / 2)
		return 1;

	pid = fork();
	if (pid == 0) {
		char *buf = map_pages(8);
		volatile char c;

		for (i = 0; i < 8; i++)
			fill(buf + i * PAGE, seed, i, 9);
		if (page_out(buf, 8) != 8)
			_exit(3);
		if (write_file(knob, "1"))
			_exit(4);
		c = buf[0];	/* the lost page: SIGBUS here */
		(void)c;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 2;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGBUS) {
		fprintf(stderr, "%s: child ended with status %#x, want SIGBUS\n",
			progname, status);
		return 1;
	}
	printf("lose: child got SIGBUS touching its lost page\n");
	if (verify_all(mine, n, seed, 7))
		return 1;
	printf("lose: the parent's %zu swapped pages are intact\n", n);
	return 0;
}

/*
 * slots DEV yes|no: page out, then read each page's swap slot straight
 * from the swap device.  With "yes" the slot must hold the page (the
 * backend wrote through); with "no" it must not.  Then lose one page and
 * touch it: with writethrough the device copy must come back.
 */
static int cmd_slots(const char *dev, int want_on_disk, const char *knob)
{
	size_t n = 32, i, on_disk = 0;
	char *buf = map_pages(n);
	uint64_t seed = mix(getpid() + 5);
	void *blk;
	int fd;

	if (posix_memalign(&blk, PAGE, PAGE))
		return 2;
	for (i = 0; i < n; i++)
		fill(buf + i * PAGE, seed, i, 3);
	if (page_out(buf, n) != n) {
		fprintf(stderr, "%s: not every page reached swap\n", progname);
		return 1;
	}
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "%s: open %s: %s\n", progname, dev,
			strerror(errno));
		return 2;
	}
	for (i = 0; i < n; i++) {
		int64_t off = swap_offset(buf + i * PAGE);

		if (off < 0 || pread(fd, blk, PAGE, off * PAGE) != (ssize_t)PAGE)
			return 2;
		if (!memcmp(blk, &(struct pp_hdr){ MAGIC, seed, i, 3 },
			    sizeof(struct pp_hdr)))
			on_disk++;
	}
	close(fd);
	printf("slots: %zu of %zu pages on the swap device\n", on_disk, n);
	if (want_on_disk ? on_disk != n : on_disk != 0)
		return 1;
	if (!want_on_disk)
		return verify_all(buf, n, seed, 3) ? 1 : 0;

	/*
	 * Pages written through may still sit in the swap cache, where a
	 * touch finds them without a load.  Map them back clean and page
	 * them out again: clean swap-cache pages are simply dropped.
	 */
	if (verify_all(buf, n, seed, 3))
		return 1;
	page_out(buf, n);
	printf("slots: %zu of %zu pages left in the swap cache\n",
	       in_swap_cache(buf, n), n);
	if (write_file(knob, "1"))
		return 2;
	if (verify_all(buf, n, seed, 3))
		return 1;
	printf("slots: lost page read back from the swap device, all correct\n");
	return 0;
}

static void wake(int sig)
{
	(void)sig;
}

/*
 * hold N SECONDS: keep N pages in swap for a while (for unregister, or
 * while a memory server goes), then check them all.  SIGUSR1 ends the
 * wait early.  With cgroup2 mounted on /sys/fs/cgroup the pages are also
 * pushed out of the swap cache, so that reading them back loads them.
 */
static int cmd_hold(size_t n, unsigned int secs)
{
	char *buf = map_pages(n);
	uint64_t seed = mix(getpid() + 9);
	size_t i, swapped;

	signal(SIGUSR1, wake);

	for (i = 0; i < n; i++)
		fill(buf + i * PAGE, seed, i, 1);
	swapped = page_out(buf, n);
	if (!access(RECLAIM, W_OK) && leave_swap_cache(buf, n))
		return 1;
	printf("hold: %zu of %zu pages swapped\n", swapped, n);
	fflush(stdout);
	sleep(secs);
	return verify_all(buf, n, seed, 1) ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: swapcheck pageout PAGES\n"
		"       swapcheck pressure MIB [ROUNDS]\n"
		"       swapcheck timed MIB [ROUNDS]   (pressure, timed)\n"
		"       swapcheck stride MIB STEP\n"
		"       swapcheck shuffled MIB\n"
		"       swapcheck lose KNOB\n"
		"       swapcheck slots SWAPDEV yes|no KNOB\n"
		"       swapcheck hold PAGES SECONDS   (SIGUSR1 ends the wait)\n"
		"Swap workloads that check every page they wrote.  Exit 0 when\n"
		"every check passed, 1 when data was wrong, 2 on usage or setup\n"
		"errors.  Needs an active swap device.\n"
		"SWAPCHECK_STALL_MS=MS: pressure and timed say on stderr where\n"
		"they wait when no page is done for MS milliseconds.\n");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "pageout"))
		return cmd_pageout(strtoul(argv[2], NULL, 0));
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "pressure"))
		return cmd_pressure(strtoul(argv[2], NULL, 0),
				    argc == 4 ? strtoul(argv[3], NULL, 0) : 2, 0);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "timed"))
		return cmd_pressure(strtoul(argv[2], NULL, 0),
				    argc == 4 ? strtoul(argv[3], NULL, 0) : 2, 1);
	if (argc == 3 && !strcmp(argv[1], "shuffled"))
		return cmd_shuffled(strtoul(argv[2], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "stride"))
		return cmd_stride(strtoul(argv[2], NULL, 0),
				  strtoul(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "lose"))
		return cmd_lose(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "slots"))
		return cmd_slots(argv[2], !strcmp(argv[3], "yes"), argv[4]);
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return cmd_hold(strtoul(argv[2], NULL, 0),
				strtoul(argv[3], NULL, 0));
	usage(stderr);
	return 2;
}
