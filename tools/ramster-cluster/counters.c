// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - each node's newest "RAMSTER-RESULT STATUS key=value ..."
 * line, from the tail of STATE/<node>.results.log, for "status".
 *
 * A guest job that wants its counters seen writes such a line to its
 * results channel (ttyS1) whenever they change.  Logs grow to many MiB,
 * so only their last RC_TAIL_BYTES are read; whatever is in them (binary
 * junk, \r, no final newline, a line longer than the tail) is shown
 * printable or not at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rc.h"

#define RC_TAIL_BYTES		65536
#define RC_STATUS_TAG		"RAMSTER-RESULT STATUS"
#define RC_STATUS_INDENT	2
#define RC_STATUS_WIDTH		78	/* after the indent */
#define RC_STATUS_CELL_MAX	24	/* widest column, before the gap */
#define RC_STATUS_MAX_ITEMS	64

/* Read up to LEN bytes at OFF; returns how many (short at EOF), or -1. */
static ssize_t pread_full(int fd, char *buf, size_t len, off_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/*
 * The text after RC_STATUS_TAG in the line BUF[0..LEN) (not NUL-
 * terminated, may hold any bytes), as a string of printable ASCII and
 * spaces; NULL if the line is not a STATUS line.
 */
static char *status_text(const char *buf, size_t len)
{
	size_t tag = strlen(RC_STATUS_TAG), i;
	const char *p = memmem(buf, len, RC_STATUS_TAG, tag);
	char *text;

	if (!p)
		return NULL;
	p += tag;
	len -= p - buf;
	if (len && !is_blank(*p))
		return NULL;	/* "STATUSFOO" */
	text = rc_xmalloc(len + 1);
	for (i = 0; i < len; i++) {
		unsigned char ch = p[i];

		if (is_blank(ch))
			text[i] = ' ';
		else if (ch < 0x20 || ch >= 0x7f)
			text[i] = '?';
		else
			text[i] = ch;
	}
	text[len] = '\0';
	return text;
}

/*
 * The newest STATUS line in the last RC_TAIL_BYTES of PATH (see
 * status_text()), and the file's mtime in *MTIME; NULL if there is none
 * or no file.  The tag may follow junk on its line, but must lie within
 * the tail.
 */
static char *last_status(const char *path, time_t *mtime)
{
	char *buf, *text = NULL;
	struct stat st;
	size_t end, start;
	ssize_t n;
	off_t off;
	int fd;

	/* O_NONBLOCK: a FIFO in its place must not hang "status". */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			rc_err("cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	*mtime = st.st_mtime;
	off = st.st_size > RC_TAIL_BYTES ? st.st_size - RC_TAIL_BYTES : 0;
	buf = rc_xmalloc(RC_TAIL_BYTES);
	n = pread_full(fd, buf, st.st_size - off, off);
	if (n < 0)
		rc_err("cannot read %s: %s", path, strerror(errno));
	close(fd);

	for (end = n > 0 ? n : 0; end > 0 && !text; end = start - 1) {
		const char *nl = memrchr(buf, '\n', end);

		start = nl ? (size_t)(nl - buf) + 1 : 0;
		text = status_text(buf + start, end - start);
		if (!start)
			break;
	}
	free(buf);
	return text;
}

/* "3 s ago", "5 min ago", "2 h ago", "4 d ago". */
static void format_age(time_t mtime, char *buf, size_t len)
{
	time_t now = time(NULL);
	long age = now > mtime ? (long)(now - mtime) : 0;

	if (age < 120)
		snprintf(buf, len, "%ld s ago", age);
	else if (age < 120 * 60)
		snprintf(buf, len, "%ld min ago", age / 60);
	else if (age < 48 * 3600)
		snprintf(buf, len, "%ld h ago", age / 3600);
	else
		snprintf(buf, len, "%ld d ago", age / 86400);
}

/*
 * TEXT's words (key=value pairs) in columns of one width, as many to a
 * line as fit; a wider word takes several columns, one wider than a line
 * is cut.
 */
static void print_items(char *text)
{
	const int max_len = RC_STATUS_WIDTH - 3;	/* and "..." */
	char *items[RC_STATUS_MAX_ITEMS], *save = NULL, *w;
	int nr = 0, more = 0, cell = 0, cols, col = 0, pad = 0, i;

	for (w = strtok_r(text, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		int len = strlen(w);

		if (nr == RC_STATUS_MAX_ITEMS) {
			more++;
			continue;
		}
		items[nr++] = w;
		if (len <= RC_STATUS_CELL_MAX && len > cell)
			cell = len;
	}
	if (!nr) {
		printf("%*s(no counters)\n", RC_STATUS_INDENT, "");
		return;
	}
	cell += 2;
	cols = RC_STATUS_WIDTH / cell;
	for (i = 0; i < nr; i++) {
		int len = strlen(items[i]), shown = len, width, span;

		if (shown > max_len)
			shown = max_len;
		width = shown < len ? shown + 3 : len;
		span = (width + 2 + cell - 1) / cell;
		if (span > cols)
			span = cols;	/* and the next word on a new line */
		if (col && col + span > cols) {
			putchar('\n');
			col = 0;
		}
		printf("%*s%.*s%s", col ? pad : RC_STATUS_INDENT, "", shown,
		       items[i], shown < len ? "..." : "");
		pad = span * cell - width;
		col += span;
	}
	putchar('\n');
	if (more)
		printf("%*s(and %d more)\n", RC_STATUS_INDENT, "", more);
}

/*
 * After the status table: for every node whose results log has a STATUS
 * line, its newest one, how old the log is, and its counters.
 */
void rc_print_counters(const struct rc_cluster *c, const char *state)
{
	bool first = true;
	char age[32];
	int i;

	for (i = 0; i < c->nr_nodes; i++) {
		const struct rc_node *n = &c->nodes[i];
		char *path = rc_xasprintf("%s/%s.results.log", state, n->name);
		time_t mtime = 0;
		char *text = last_status(path, &mtime);

		free(path);
		if (!text)
			continue;
		if (first)
			putchar('\n');
		first = false;
		format_age(mtime, age, sizeof(age));
		printf("%s counters, %s:\n", n->name, age);
		print_items(text);
		free(text);
	}
}
