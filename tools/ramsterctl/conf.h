/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conf.h - read ramster.conf, the cluster configuration every RAMster node
 * shares.
 *
 * The format is o2cb's cluster.conf: a stanza header "cluster:" or "node:"
 * at column 0, then its parameters "key = value", each indented by a tab or
 * spaces.  Blank lines and lines whose first non-blank character is '#' are
 * ignored.  Stanzas may come in any order; there is exactly one cluster:.
 *
 *	cluster:
 *		name = ramster			1..16 of [A-Za-z0-9._-]
 *		node_count = 3			1..255, the number of node: stanzas
 *		idle_timeout_ms = 30000		optional, 1..86400000
 *		keepalive_delay_ms = 2000	optional, 1..86400000
 *		reconnect_delay_ms = 2000	optional, 1..86400000
 *		shared_uuid = 6f0d4f2e-...	optional: the cluster's shared
 *						disk (8-4-4-4-12 lowercase hex)
 *		cluster_key = 3f9a...		64 hex digits, r2net's key (for
 *						configure; optional to parse)
 *		security = integrity		optional: integrity, encrypt or
 *						none (r2net's frames)
 *
 * The three timeouts are r2net's (its configfs attributes of the same
 * names); the defaults shown are r2net's, which apply when a key is left
 * out.  keepalive_delay_ms must be below idle_timeout_ms, as the two are in
 * effect: given, or else the default (so keepalive_delay_ms = 40000 alone
 * is refused, being above the default idle timeout).
 *
 * shared_uuid is there when the cluster has a disk all its clients share
 * (an OCFS2 volume; ramster-cluster's shared_mib): its file system uuid,
 * which keys the tmem shared pool on the memory servers.
 *
 * cluster_key is the 32-byte key every node of the cluster holds, as 64 hex
 * digits (either case), which r2net's handshake proves both ends have.  The
 * parser accepts a file without it (ramsterctl configure refuses such a
 * file: r2net will not start without a key).  No error message shows the
 * key; rconf_free() wipes it.
 *
 *	node:
 *		name = ms0			1..64 of [A-Za-z0-9._-], unique
 *		number = 0			0..254, unique
 *		ip_address = 10.77.0.10		dotted IPv4 unicast, unique
 *		ip_port = 7777			1..65535, optional, 7777
 *		cluster = ramster		the cluster's name
 *		role = memory-server		memory-server or client
 *
 * Nothing here is global: each parse returns its own struct rconf, which
 * rconf_free() releases.
 */
#ifndef RAMSTERCTL_CONF_H
#define RAMSTERCTL_CONF_H

#include <stddef.h>

#define RCONF_CLUSTER_NAME_MAX	16	/* R2NET_CLUSTER_NAME_LEN */
#define RCONF_NODE_NAME_MAX	64
#define RCONF_MAX_NODE		254	/* R2NET_MAX_NODE */
#define RCONF_MAX_NODES		255
#define RCONF_DEFAULT_PORT	7777	/* R2NET_DEFAULT_PORT */
#define RCONF_MAX_FILE		1048576	/* bytes */
#define RCONF_MAX_TIMEOUT_MS	86400000	/* one day, r2net's limit */
#define RCONF_IDLE_TIMEOUT_MS_DEFAULT		30000	/* r2net's defaults */
#define RCONF_KEEPALIVE_DELAY_MS_DEFAULT	2000
#define RCONF_RECONNECT_DELAY_MS_DEFAULT	2000
#define RCONF_UUID_LEN		36	/* 8-4-4-4-12 hex digits */
#define RCONF_KEY_BYTES		32	/* R2NET_KEY_LEN */
#define RCONF_KEY_HEX		(2 * RCONF_KEY_BYTES)

enum rconf_role {
	RCONF_ROLE_MEMORY_SERVER,
	RCONF_ROLE_CLIENT,
};

struct rconf_node {
	char name[RCONF_NODE_NAME_MAX + 1];
	unsigned int number;
	unsigned char addr[4];		/* addr[0] is the first octet */
	char ip_address[16];		/* as written, dotted quad */
	unsigned int port;
	enum rconf_role role;
	unsigned int line;		/* of its "node:" header */
};

struct rconf {
	char name[RCONF_CLUSTER_NAME_MAX + 1];
	unsigned int node_count;
	/* The timeouts in effect: as given, else r2net's default. */
	unsigned int idle_timeout_ms;
	unsigned int keepalive_delay_ms;
	unsigned int reconnect_delay_ms;
	/* The line each was given on; 0: not given (leave r2net's default). */
	unsigned int idle_timeout_line;
	unsigned int keepalive_delay_line;
	unsigned int reconnect_delay_line;
	/* The shared disk's uuid; "" and line 0 if the cluster has none. */
	char shared_uuid[RCONF_UUID_LEN + 1];
	unsigned int shared_uuid_line;
	/* The cluster key as written; "" and line 0 if the file has none. */
	char cluster_key[RCONF_KEY_HEX + 1];
	unsigned int cluster_key_line;
	/* r2net's security as written; "" and line 0 if not given. */
	char security[16];
	unsigned int security_line;
	unsigned int nr_nodes;		/* == node_count */
	struct rconf_node *nodes;	/* in file order */
};

/* The first error found: text is "FILE:LINE: what is wrong". */
struct rconf_err {
	unsigned int line;		/* 0 if the file could not be read */
	char text[512];
};

/*
 * rconf_parse() - parse @len bytes at @buf (not NUL-terminated) as the
 * contents of @file.  Returns the configuration, or NULL with @err filled
 * in; an allocation failure is reported the same way.
 */
struct rconf *rconf_parse(const char *file, const char *buf, size_t len,
			  struct rconf_err *err);

/* rconf_load() - read @path (at most RCONF_MAX_FILE bytes) and parse it. */
struct rconf *rconf_load(const char *path, struct rconf_err *err);

/* rconf_free() - wipe the cluster key and free @conf (may be NULL). */
void rconf_free(struct rconf *conf);

const char *rconf_role_name(enum rconf_role role);

#endif /* RAMSTERCTL_CONF_H */
