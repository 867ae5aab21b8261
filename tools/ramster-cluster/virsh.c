// SPDX-License-Identifier: GPL-2.0
/*
 * virsh.c - run "virsh -q -c URI ARGS..." and collect what it prints.
 *
 * virsh is the supported interface (the same commands a user would type),
 * so the tool needs no libvirt headers and works against any URI virsh
 * can reach.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rc.h"

#define VIRSH_MAX_ARGS	16

struct buf {
	char *data;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *d = rc_xmalloc(cap);

		if (b->data)
			memcpy(d, b->data, b->len);
		free(b->data);
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* Read both pipes until both are closed. */
static void drain(int fd_out, int fd_err, struct buf *out, struct buf *err)
{
	struct pollfd pfd[2] = {
		{ .fd = fd_out, .events = POLLIN },
		{ .fd = fd_err, .events = POLLIN },
	};
	struct buf *bufs[2] = { out, err };
	char chunk[4096];
	int open_fds = 2, i;

	while (open_fds) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			n = read(pfd[i].fd, chunk, sizeof(chunk));
			if (n > 0) {
				buf_add(bufs[i], chunk, n);
			} else if (n == 0 || errno != EINTR) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
			}
		}
	}
}

static pid_t spawn(const char *const *argv, int *fd_out, int *fd_err)
{
	int po[2], pe[2];
	pid_t pid;

	if (pipe(po))
		return -1;
	if (pipe(pe)) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		return -1;
	}
	*fd_out = po[0];
	*fd_err = pe[0];
	return pid;
}

/*
 * Run ARGV (NULL-terminated, found on PATH).  Returns its exit status,
 * 127 if it could not be run, 128 + N if signal N killed it.  OUT and
 * ERR, when not NULL, get what it printed (caller frees).
 */
int rc_run(const char *const *argv, char **out, char **err)
{
	struct buf bo = { 0 }, be = { 0 };
	int fd_out, fd_err, status;
	pid_t pid;

	fflush(NULL);
	pid = spawn(argv, &fd_out, &fd_err);
	if (pid < 0) {
		rc_err("cannot run %s: %s", argv[0], strerror(errno));
		return 127;
	}
	drain(fd_out, fd_err, &bo, &be);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	buf_add(&bo, "", 0);
	buf_add(&be, "", 0);
	if (out)
		*out = bo.data;
	else
		free(bo.data);
	if (err)
		*err = be.data;
	else
		free(be.data);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* rc_virsh(uri, &out, &err, "define", file, NULL): rc_run() of virsh. */
int rc_virsh(const char *uri, char **out, char **err, ...)
{
	const char *argv[VIRSH_MAX_ARGS + 5] = { "virsh", "-q", "-c", uri };
	int argc = 4;
	const char *a;
	va_list ap;

	va_start(ap, err);
	while ((a = va_arg(ap, const char *)) && argc < VIRSH_MAX_ARGS + 4)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return rc_run(argv, out, err);
}
