/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rc.h - ramster-cluster: shared types and helpers.
 *
 * ramster-cluster turns one cluster description (see
 * libvirt-xml/README.md) into a libvirt network, one libvirt domain per
 * node and the in-guest /etc/ramster.conf, and drives them with virsh.
 */
#ifndef RC_H
#define RC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RC_PROG			"ramster-cluster"

/* Exit codes. */
#define RC_EXIT_OK		0
#define RC_EXIT_RUNTIME		1	/* virsh or the file system failed */
#define RC_EXIT_BAD		2	/* bad description or command line */

#define RC_CLUSTER_NAME_MAX	12
#define RC_NODE_NAME_MAX	32
#define RC_MAX_NODES		255	/* node numbers 0..254 */
#define RC_MIN_MEMORY_MIB	128
#define RC_MAX_MEMORY_MIB	(1024UL * 1024)
#define RC_MAX_VCPUS		64
#define RC_MIN_DISK_MIB		16
#define RC_MAX_DISK_MIB		(1024UL * 1024)
#define RC_MAX_DISK_IOPS	10000000UL
#define RC_MAX_DISK_MBPS	100000UL
#define RC_MIN_SHARED_MIB	64
#define RC_UUID_LEN		36	/* 8-4-4-4-12 hex digits */
#define RC_DEFAULT_PORT		7777
#define RC_DEFAULT_SWAP_MIB	1024
#define RC_DEFAULT_DATA_MIB	512
#define RC_DEFAULT_JOB		"idle"
#define RC_CMDLINE_MAX		2000	/* x86 COMMAND_LINE_SIZE is 2048 */

#define RC_DEFAULT_DESC		"libvirt-xml/default.cluster"
#define RC_DEFAULT_TEMPLATE_DIR	"libvirt-xml"
#define RC_DEFAULT_STATE_ROOT	"/var/lib/ramster"
#define RC_DEFAULT_URI		"qemu:///system"
#define RC_KERNEL_FILE		"bzImage"
#define RC_INITRD_FILE		"initrd.img"
/* The kernel and initrd of nodes with "image = stock" (-K, -I). */
#define RC_STOCK_KERNEL_FILE	"stock-vmlinuz"
#define RC_STOCK_INITRD_FILE	"stock-initrd.img"
/* The disk all clients share (shared_mib), an OCFS2 volume. */
#define RC_SHARED_FILE		"shared.img"
#define RC_SHARED_SERIAL	"ramster-shared"
#define RC_UUID_SOURCE		"/proc/sys/kernel/random/uuid"
/* r2net's cluster key (key.c): 32 bytes, written as 64 hex digits. */
#define RC_KEY_BYTES		32
#define RC_KEY_HEX		(2 * RC_KEY_BYTES)
#define RC_KEY_STATE_FILE	"cluster.key"	/* up's key, 0600 */

enum rc_role {
	RC_ROLE_NONE,
	RC_ROLE_SERVER,
	RC_ROLE_CLIENT,
};

/* What a node boots: the project's kernel (-k, -i) or Debian's (-K, -I). */
enum rc_image {
	RC_IMAGE_DEFAULT,
	RC_IMAGE_STOCK,
};

/* Keys of a node: stanza; key_line[] is indexed by these. */
enum rc_node_key {
	NK_NAME,
	NK_NUMBER,
	NK_ROLE,
	NK_MEMORY,
	NK_VCPUS,
	NK_IP,
	NK_SWAP,
	NK_DATA,
	NK_IOPS,
	NK_MBPS,
	NK_CLUSTER,
	NK_IMAGE,
	NK_COUNT,
};

/* Keys of the cluster: stanza. */
enum rc_cluster_key {
	CK_NAME,
	CK_SUBNET,
	CK_PORT,
	CK_SHARED_MIB,
	CK_SHARED_UUID,
	CK_KEY_FILE,
	CK_NWFILTER,
	CK_SECURITY,
	CK_COUNT,
};

struct rc_node {
	int line;			/* line of "node:" */
	int key_line[NK_COUNT];		/* 0: key not given */
	unsigned int valid;		/* bit per key: value parsed fine */
	char name[RC_NODE_NAME_MAX + 1];
	char cluster[RC_CLUSTER_NAME_MAX + 1];
	unsigned int number;
	enum rc_role role;
	enum rc_image image;
	unsigned long memory_mib;
	unsigned long vcpus;
	unsigned long swap_mib;
	unsigned long data_mib;
	unsigned long disk_iops;	/* 0: unthrottled */
	unsigned long disk_mbps;	/* MiB/s, 0: unthrottled */
	uint32_t ip;			/* host byte order */
	const char *job;		/* from -j, or RC_DEFAULT_JOB */
	char *extra;			/* from -a, may be NULL */
};

struct rc_cluster {
	const char *file;
	int line;			/* line of "cluster:", 0 if none */
	int key_line[CK_COUNT];
	unsigned int valid;
	char name[RC_CLUSTER_NAME_MAX + 1];
	uint32_t net;			/* host byte order */
	unsigned int prefix;
	unsigned int port;
	unsigned long shared_mib;	/* 0: no shared disk */
	char shared_uuid[RC_UUID_LEN + 1];	/* "" unless shared_mib */
	bool shared_uuid_generated;	/* from RC_UUID_SOURCE, not the file */
	/* key_file, relative to the description's directory; NULL if none */
	char *key_file;
	/* libvirt's clean-traffic on every interface (nwfilter = none: off) */
	bool nwfilter;
	/* r2net's security for ramster.conf; "" to leave r2net's default */
	const char *security;
	/*
	 * The cluster key: key_file's (read by rc_desc_load() when asked),
	 * or up's (rc_key_state()); "" until then, and for render without
	 * key_file.
	 */
	char key[RC_KEY_HEX + 1];
	int nr_nodes;
	struct rc_node nodes[RC_MAX_NODES];
	int nr_errors;
};

/* The libvirt XML templates, libvirt-xml/NAME.xml.in. */
enum rc_tmpl_kind {
	RC_TMPL_NETWORK,
	RC_TMPL_SERVER,
	RC_TMPL_CLIENT,
	RC_TMPL_COUNT,
};

struct rc_templates {
	char *dir;
	char *text[RC_TMPL_COUNT];
};

/* One placeholder's value; a block is XML already, written unescaped. */
struct rc_subst {
	const char *name;
	const char *value;
	bool block;
};

/* What rc_key_read() found. */
enum rc_key_status {
	RC_KEY_OK,
	RC_KEY_MISSING,		/* no such file */
	RC_KEY_NOT_FILE,	/* a directory, FIFO, device */
	RC_KEY_BAD,		/* unreadable, or not a key */
};

/* Options shared by the commands. */
struct rc_opts {
	const char *desc;
	const struct rc_templates *tmpl;	/* render and up */
	const char *state;	/* absolute state directory */
	const char *kernel;
	const char *initrd;
	const char *stock_kernel;	/* -K: for nodes with image = stock */
	const char *stock_initrd;	/* -I */
	const char *uri;
};

/* desc.c */
int rc_desc_load(struct rc_cluster *c, const char *file, bool need_key);
const char *rc_role_name(enum rc_role role);
const char *rc_image_name(enum rc_image image);
void rc_format_ip(uint32_t ip, char buf[16]);
bool rc_uuid_valid(const char *s);

/* render.c */
void rc_bridge_name(const struct rc_cluster *c, char *buf, size_t len);
int rc_cmdline(const struct rc_cluster *c, const struct rc_node *n,
	       char *buf, size_t len);
void rc_render_network(const struct rc_cluster *c,
		       const struct rc_templates *t, FILE *f);
void rc_render_domain(const struct rc_cluster *c, const struct rc_node *n,
		      const struct rc_templates *t, const char *state, FILE *f);
void rc_render_conf(const struct rc_cluster *c, FILE *f);
int rc_render_dir(const struct rc_cluster *c, const struct rc_templates *t,
		  const char *dir, const char *state);

/* template.c */
void rc_xml_puts(FILE *f, const char *s);
int rc_templates_load(struct rc_templates *t, const char *dir);
void rc_templates_free(struct rc_templates *t);
void rc_template_write(FILE *f, const struct rc_templates *t,
		       enum rc_tmpl_kind kind, const struct rc_subst *v,
		       int nv);

/* cpio.c */
int rc_cpio_append_file(FILE *f, const char *name, unsigned int mode,
			const void *data, size_t len);
int rc_cpio_append_dir(FILE *f, const char *name);
int rc_cpio_finish(FILE *f);
int rc_build_initrd(const struct rc_cluster *c, const char *src,
		    const char *dst);

/* key.c */
int rc_key_make(char key[RC_KEY_HEX + 1]);
enum rc_key_status rc_key_read(const char *path, char key[RC_KEY_HEX + 1],
			       char *why, size_t why_len, unsigned int *mode);
void rc_key_check_mode(const char *path, unsigned int mode);
int rc_key_state(struct rc_cluster *c, const char *state, bool *made);
int rc_cmd_keygen(void);

/* virsh.c */
int rc_run(const char *const *argv, char **out, char **err);
int rc_virsh(const char *uri, char **out, char **err, ...);

/* cluster.c */
int rc_cmd_check(const struct rc_cluster *c);
int rc_cmd_render(const struct rc_cluster *c, const struct rc_opts *o,
		  const char *dir);
int rc_cmd_up(struct rc_cluster *c, const struct rc_opts *o);
int rc_cmd_down(const struct rc_cluster *c, const struct rc_opts *o);
int rc_cmd_status(const struct rc_cluster *c, const struct rc_opts *o);
int rc_cmd_cat(const struct rc_cluster *c, const struct rc_opts *o,
	       const char *node, const char *what);

/* counters.c */
void rc_print_counters(const struct rc_cluster *c, const char *state);

/* util.c */
void rc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *rc_xmalloc(size_t size);
char *rc_xstrdup(const char *s);
char *rc_xasprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
int rc_mkdir_p(const char *path, unsigned int mode);
int rc_check_searchable(const char *path);
int rc_copy_file(const char *src, const char *dst, unsigned int mode);
int rc_cat_file(const char *path);
char *rc_abspath(const char *path);
void rc_domain_name(const struct rc_cluster *c, const struct rc_node *n,
		    char *buf, size_t len);
void rc_network_name(const struct rc_cluster *c, char *buf, size_t len);

#endif /* RC_H */
