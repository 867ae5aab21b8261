// SPDX-License-Identifier: GPL-2.0
/*
 * fcheck: files whose every page says what it should hold, for the
 * cleancache tests.
 *
 * Page i of a file written with SEED and GEN starts with a header (magic,
 * seed, index, generation) and continues with words derived from those,
 * so a page read back is checked whole, and a page from another file,
 * another place or an older generation is caught and named.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC 0x46434845434b2121ULL	/* "FCHECK!!" */

static const char *progname = "fcheck";

#include "pagepat.h"

static int open_or_say(const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	if (fd < 0)
		fprintf(stderr, "%s: %s: %s\n", progname, path, strerror(errno));
	return fd;
}

/* write FILE SEED FIRST COUNT GEN: pages FIRST.. of FILE, in place. */
static int cmd_write(const char *path, uint64_t seed, uint64_t first,
		     uint64_t count, uint64_t gen)
{
	uint64_t buf[PAGE / 8], i;
	int fd = open_or_say(path, O_WRONLY | O_CREAT);

	if (fd < 0)
		return 2;
	for (i = first; i < first + count; i++) {
		pp_fill(buf, MAGIC, seed, i, gen);
		if (pwrite(fd, buf, PAGE, i * PAGE) != (ssize_t)PAGE) {
			fprintf(stderr, "%s: write %s page %" PRIu64 ": %s\n",
				progname, path, i, strerror(errno));
			close(fd);
			return 2;
		}
	}
	if (close(fd)) {
		fprintf(stderr, "%s: close %s: %s\n", progname, path,
			strerror(errno));
		return 2;
	}
	return 0;
}

/*
 * verify FILE SEED PAGES GEN [FIRST COUNT GEN2]: FILE is PAGES pages of
 * GEN, except FIRST..FIRST+COUNT-1, which are of GEN2.
 */
static int cmd_verify(const char *path, uint64_t seed, uint64_t pages,
		      uint64_t gen, uint64_t first, uint64_t count,
		      uint64_t gen2)
{
	uint64_t buf[PAGE / 8], i, g;
	struct stat st;
	int fd = open_or_say(path, O_RDONLY), bad = 0;

	if (fd < 0)
		return 2;
	if (fstat(fd, &st) || (uint64_t)st.st_size != pages * PAGE) {
		fprintf(stderr, "%s: %s is %lld bytes, want %" PRIu64 "\n",
			progname, path, (long long)st.st_size, pages * PAGE);
		close(fd);
		return 1;
	}
	for (i = 0; i < pages; i++) {
		if (read(fd, buf, PAGE) != (ssize_t)PAGE) {
			fprintf(stderr, "%s: read %s page %" PRIu64 ": %s\n",
				progname, path, i, strerror(errno));
			close(fd);
			return 2;
		}
		g = i >= first && i < first + count ? gen2 : gen;
		if (pp_check(buf, MAGIC, seed, i, g, path) && ++bad >= 10)
			break;
	}
	close(fd);
	return bad ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fcheck write FILE SEED FIRST COUNT GEN\n"
		"       fcheck verify FILE SEED PAGES GEN [FIRST COUNT GEN2]\n"
		"write: write pages FIRST..FIRST+COUNT-1 of FILE (created if\n"
		"need be) as generation GEN of file SEED.  verify: read FILE\n"
		"and check that it is PAGES pages of generation GEN, except\n"
		"pages FIRST..FIRST+COUNT-1, of GEN2.  Exit 0 when every page\n"
		"is right, 1 when one is not (named on stderr), 2 on usage or\n"
		"I/O errors.\n");
}

static int num(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "%s: '%s' is not a number\n", progname, s);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t v[6] = { 0 };
	int i;

	if (argc >= 2 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (argc < 3 || (strcmp(argv[1], "write") && strcmp(argv[1], "verify"))) {
		usage(stderr);
		return 2;
	}
	for (i = 3; i < argc && i < 9; i++)
		if (num(argv[i], &v[i - 3]))
			return 2;
	if (!strcmp(argv[1], "write") && argc == 7)
		return cmd_write(argv[2], v[0], v[1], v[2], v[3]);
	if (!strcmp(argv[1], "verify") && argc == 6)
		return cmd_verify(argv[2], v[0], v[1], v[2], 0, 0, 0);
	if (!strcmp(argv[1], "verify") && argc == 9)
		return cmd_verify(argv[2], v[0], v[1], v[2], v[3], v[4], v[5]);
	usage(stderr);
	return 2;
}
