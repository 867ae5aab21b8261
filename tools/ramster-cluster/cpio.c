// SPDX-License-Identifier: GPL-2.0
/*
 * cpio.c - a minimal "newc" (SVR4, no CRC) cpio writer, and the
 * per-cluster initrd: the given initrd, padded to a 4-byte boundary, with
 * an uncompressed archive holding etc/ramster.conf appended.  The kernel
 * unpacks concatenated archives one after the other (see
 * Documentation/driver-api/early-userspace/buffer-format.rst), and an
 * uncompressed member must start at a multiple of 4 bytes.
 *
 * ramster.conf holds the cluster key: it is 0600 in the guest, and the
 * initrd that carries it is 0600 on the host (libvirt gives QEMU the
 * kernel and initrd of a domain it starts, dynamic_ownership).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rc.h"

static unsigned int cpio_ino = 0x72610000;	/* "ra": away from 0 */

static int pad4(FILE *f, unsigned long off)
{
	static const char zero[4];
	size_t pad = (4 - (off & 3)) & 3;

	return fwrite(zero, 1, pad, f) == pad ? 0 : -1;
}

/* One newc header, the NUL-terminated name, padding, data, padding. */
static int cpio_entry(FILE *f, const char *name, unsigned int mode,
		      unsigned int nlink, const void *data, size_t len)
{
	size_t namesize = strlen(name) + 1;
	int hdr;

	hdr = fprintf(f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		      cpio_ino++, mode, 0U, 0U, nlink, 0U, len,
		      0U, 0U, 0U, 0U, namesize, 0U);
	if (hdr != 110)
		return -1;
	if (fwrite(name, 1, namesize, f) != namesize ||
	    pad4(f, 110 + namesize))
		return -1;
	if (len && (fwrite(data, 1, len, f) != len || pad4(f, len)))
		return -1;
	return 0;
}

int rc_cpio_append_dir(FILE *f, const char *name)
{
	return cpio_entry(f, name, S_IFDIR | 0755, 2, NULL, 0);
}

int rc_cpio_append_file(FILE *f, const char *name, unsigned int mode,
			const void *data, size_t len)
{
	return cpio_entry(f, name, S_IFREG | mode, 1, data, len);
}

int rc_cpio_finish(FILE *f)
{
	return cpio_entry(f, "TRAILER!!!", 0, 1, NULL, 0);
}

/* Render ramster.conf into memory. */
static char *conf_text(const struct rc_cluster *c, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	rc_render_conf(c, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int append_conf(const struct rc_cluster *c, FILE *f)
{
	size_t len;
	char *conf = conf_text(c, &len);
	int ret;

	if (!conf)
		return -1;
	ret = rc_cpio_append_dir(f, "etc") ||
	      rc_cpio_append_file(f, "etc/ramster.conf", 0600, conf, len) ||
	      rc_cpio_finish(f) ? -1 : 0;
	explicit_bzero(conf, len);
	free(conf);
	return ret;
}

/* DST = SRC + zero padding to 4 bytes + cpio(etc/ramster.conf), 0600. */
int rc_build_initrd(const struct rc_cluster *c, const char *src,
		    const char *dst)
{
	FILE *f;
	long off;

	if (rc_copy_file(src, dst, 0600))
		return -1;
	f = fopen(dst, "ab");
	if (!f)
		goto fail;
	off = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (off < 0 || pad4(f, off) || append_conf(c, f)) {
		fclose(f);
		goto fail;
	}
	if (fclose(f))
		goto fail;
	return 0;
fail:
	rc_err("cannot append ramster.conf to %s: %s", dst, strerror(errno));
	return -1;
}
