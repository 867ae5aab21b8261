// SPDX-License-Identifier: GPL-2.0
/*
 * key.c - the cluster key: 32 random bytes every node of a cluster holds,
 * which r2net's handshake proves both ends have.  It travels as 64 hex
 * digits: in a key file (the description's key_file, or up's
 * STATE/cluster.key) with an optional newline, in ramster.conf as
 * "cluster_key = ...", and to r2net's write-only configfs attribute.
 *
 * The key is secret: no message shows it, and every file holding it is
 * made 0600 (key files, ramster.conf, the initrds that carry it).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rc.h"

/* A key file is small; anything longer is not one. */
#define KEY_FILE_MAX	4096

/* 32 bytes of getrandom(2) as 64 lowercase hex digits. */
int rc_key_make(char key[RC_KEY_HEX + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[RC_KEY_BYTES];
	size_t got = 0;
	ssize_t n;
	int i;

	while (got < sizeof(raw)) {
		n = getrandom(raw + got, sizeof(raw) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc_err("getrandom failed: %s; cannot make a cluster key",
			       n < 0 ? strerror(errno) : "no bytes");
			explicit_bzero(raw, sizeof(raw));
			return -1;
		}
		got += n;
	}
	for (i = 0; i < RC_KEY_BYTES; i++) {
		key[2 * i] = hex[raw[i] >> 4];
		key[2 * i + 1] = hex[raw[i] & 15];
	}
	key[RC_KEY_HEX] = '\0';
	explicit_bzero(raw, sizeof(raw));
	return 0;
}

/*
 * The key in BUF (LEN bytes): 64 hex digits, either case, and an optional
 * newline.  Returns RC_KEY_OK with KEY in lowercase, or RC_KEY_BAD with
 * what is wrong in WHY, which never quotes the text.
 */
static enum rc_key_status key_parse(const char *buf, size_t len,
				    char key[RC_KEY_HEX + 1], char *why,
				    size_t why_len)
{
	size_t i;

	if (len && buf[len - 1] == '\n')
		len--;
	if (len != RC_KEY_HEX) {
		snprintf(why, why_len,
			 "it holds %zu characters, not %d hex digits (%d bytes) and an optional newline",
			 len, RC_KEY_HEX, RC_KEY_BYTES);
		return RC_KEY_BAD;
	}
	for (i = 0; i < len; i++) {
		if (!isxdigit((unsigned char)buf[i])) {
			snprintf(why, why_len,
				 "its character %zu is not a hex digit; a key is %d hex digits (%d bytes) and an optional newline",
				 i + 1, RC_KEY_HEX, RC_KEY_BYTES);
			return RC_KEY_BAD;
		}
		key[i] = tolower((unsigned char)buf[i]);
	}
	key[len] = '\0';
	return RC_KEY_OK;
}

/*
 * Read the key file PATH into KEY.  A FIFO or a device is never opened for
 * reading in earnest (O_NONBLOCK, then refused as not a regular file), so
 * a wrong path cannot hang the tool.  Returns RC_KEY_OK; RC_KEY_MISSING
 * if PATH does not exist; RC_KEY_NOT_FILE; or RC_KEY_BAD.  WHY says what
 * is wrong in every case but RC_KEY_OK; *MODE gets the permission bits.
 */
enum rc_key_status rc_key_read(const char *path, char key[RC_KEY_HEX + 1],
			       char *why, size_t why_len, unsigned int *mode)
{
	char buf[KEY_FILE_MAX + 1];
	enum rc_key_status ret = RC_KEY_BAD;
	size_t len = 0;
	struct stat st;
	ssize_t n = 0;
	int fd;

	*mode = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, why_len, "cannot open it: %s", strerror(errno));
		return errno == ENOENT ? RC_KEY_MISSING : RC_KEY_BAD;
	}
	if (fstat(fd, &st)) {
		snprintf(why, why_len, "cannot stat it: %s", strerror(errno));
		goto out;
	}
	*mode = st.st_mode & 07777;
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "it is not a regular file (%s)",
			 S_ISDIR(st.st_mode) ? "a directory" :
			 S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket");
		ret = RC_KEY_NOT_FILE;
		goto out;
	}
	while (len < sizeof(buf) &&
	       (n = read(fd, buf + len, sizeof(buf) - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, why_len, "cannot read it: %s",
				 strerror(errno));
			goto out;
		}
		len += n;
	}
	if (len > KEY_FILE_MAX)
		snprintf(why, why_len,
			 "it holds more than %d bytes, not %d hex digits (%d bytes) and an optional newline",
			 KEY_FILE_MAX, RC_KEY_HEX, RC_KEY_BYTES);
	else
		ret = key_parse(buf, len, key, why, why_len);
out:
	explicit_bzero(buf, len);
	close(fd);
	return ret;
}

/* Say so if others than the owner may read or write a key file. */
void rc_key_check_mode(const char *path, unsigned int mode)
{
	if (mode & 077)
		rc_err("warning: %s holds the cluster key but others can reach it (mode %04o); run \"chmod 600 %s\"",
		       path, mode, path);
}

/* PATH = KEY and a newline, a new file of mode 0600. */
static int key_write(const char *path, const char *key)
{
	char buf[RC_KEY_HEX + 1];
	int fd, ret = -1;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		rc_err("cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	memcpy(buf, key, RC_KEY_HEX);
	buf[RC_KEY_HEX] = '\n';
	if (fchmod(fd, 0600) || write(fd, buf, sizeof(buf)) != sizeof(buf))
		rc_err("cannot write %s: %s", path, strerror(errno));
	else
		ret = 0;
	if (close(fd) && !ret) {
		rc_err("cannot write %s: %s", path, strerror(errno));
		ret = -1;
	}
	explicit_bzero(buf, sizeof(buf));
	if (ret)
		unlink(path);
	return ret;
}

/*
 * up without key_file: the key in STATE/cluster.key, kept from an earlier
 * up so that nodes set up with it stay in the cluster, or a new one made
 * and stored there.  Sets c->key; *MADE tells which.
 */
int rc_key_state(struct rc_cluster *c, const char *state, bool *made)
{
	char *path = rc_xasprintf("%s/%s", state, RC_KEY_STATE_FILE);
	char why[256];
	unsigned int mode;
	int ret = -1;

	*made = false;
	switch (rc_key_read(path, c->key, why, sizeof(why), &mode)) {
	case RC_KEY_OK:
		rc_key_check_mode(path, mode);
		ret = 0;
		break;
	case RC_KEY_MISSING:
		if (!rc_key_make(c->key) && !key_write(path, c->key)) {
			*made = true;
			ret = 0;
		}
		break;
	default:
		rc_err("%s: %s; delete it to have up make a new key (nodes set up with the old one then need the new ramster.conf), or name a key file with \"key_file = PATH\" in the cluster: stanza of %s",
		       path, why, c->file);
		break;
	}
	if (ret)
		explicit_bzero(c->key, sizeof(c->key));
	free(path);
	return ret;
}

/* keygen: a new key on standard output. */
int rc_cmd_keygen(void)
{
	char key[RC_KEY_HEX + 1];
	int ret = RC_EXIT_OK;

	if (rc_key_make(key))
		return RC_EXIT_RUNTIME;
	if (printf("%s\n", key) < 0 || fflush(stdout)) {
		rc_err("cannot write the key to standard output: %s",
		       strerror(errno));
		ret = RC_EXIT_RUNTIME;
	}
	explicit_bzero(key, sizeof(key));
	return ret;
}
