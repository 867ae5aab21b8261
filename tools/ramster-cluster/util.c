// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - error reporting, memory and file helpers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rc.h"

void rc_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, RC_PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *rc_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p) {
		rc_err("out of memory");
		exit(RC_EXIT_RUNTIME);
	}
	return p;
}

char *rc_xstrdup(const char *s)
{
	size_t len = strlen(s) + 1;

	return memcpy(rc_xmalloc(len), s, len);
}

char *rc_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0) {
		rc_err("out of memory");
		exit(RC_EXIT_RUNTIME);
	}
	return s;
}

void rc_domain_name(const struct rc_cluster *c, const struct rc_node *n,
		    char *buf, size_t len)
{
	snprintf(buf, len, "%s-%s", c->name, n->name);
}

void rc_network_name(const struct rc_cluster *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s-net", c->name);
}

/* PATH made absolute against the current directory (lexically). */
char *rc_abspath(const char *path)
{
	char cwd[4096];

	if (path[0] == '/')
		return rc_xstrdup(path);
	if (!getcwd(cwd, sizeof(cwd))) {
		rc_err("cannot get the current directory: %s",
		       strerror(errno));
		exit(RC_EXIT_RUNTIME);
	}
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	return rc_xasprintf("%s/%s", strcmp(cwd, "/") ? cwd : "", path);
}

int rc_mkdir_p(const char *path, unsigned int mode)
{
	char *p = rc_xstrdup(path), *s = p;
	int ret = 0;

	do {
		s = strchr(s + 1, '/');
		if (s)
			*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST) {
			rc_err("cannot create directory %s: %s", p,
			       strerror(errno));
			ret = -1;
		}
		if (s)
			*s = '/';
	} while (s && !ret);
	free(p);
	return ret;
}

/*
 * QEMU runs as libvirt-qemu: every directory from / down to PATH must be
 * searchable by others.
 */
int rc_check_searchable(const char *path)
{
	char *p = rc_xstrdup(path), *s;
	struct stat st;
	int ret = 0;

	for (s = p + strlen(p); ret == 0 && s > p; ) {
		if (stat(p, &st)) {
			rc_err("cannot stat %s: %s", p, strerror(errno));
			ret = -1;
		} else if (!(st.st_mode & S_IXOTH)) {
			rc_err("%s is not searchable by others, so QEMU (user libvirt-qemu) cannot reach the state directory; run \"chmod o+x %s\" or pick another state directory with -s DIR",
			       p, p);
			ret = -1;
		}
		s = strrchr(p, '/');
		if (!s)
			break;
		*s = '\0';
	}
	free(p);
	return ret;
}

/* Copy SRC to DST (created with MODE, replaced if present). */
int rc_copy_file(const char *src, const char *dst, unsigned int mode)
{
	char buf[65536];
	int in, out = -1, ret = -1;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		rc_err("cannot read %s: %s", src, strerror(errno));
		return -1;
	}
	unlink(dst);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		rc_err("cannot create %s: %s", dst, strerror(errno));
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n) {
			rc_err("cannot write %s: %s", dst, strerror(errno));
			goto out;
		}
	}
	if (n < 0) {
		rc_err("cannot read %s: %s", src, strerror(errno));
		goto out;
	}
	if (fchmod(out, mode)) {
		rc_err("cannot chmod %s: %s", dst, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (out >= 0 && close(out) && !ret) {
		rc_err("cannot write %s: %s", dst, strerror(errno));
		ret = -1;
	}
	close(in);
	return ret;
}

/* Copy PATH to standard output. */
int rc_cat_file(const char *path)
{
	char buf[65536];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		rc_err("cannot read %s: %s; was the cluster brought up with the same -s DIR?",
		       path, strerror(errno));
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return fflush(stdout) ? -1 : 0;
}
