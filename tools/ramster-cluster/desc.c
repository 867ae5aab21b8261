// SPDX-License-Identifier: GPL-2.0
/*
 * desc.c - parse and validate a cluster description.
 *
 * The format follows o2cb's cluster.conf: a "cluster:" or "node:" header
 * at column 0 opens a stanza, indented "key = value" lines fill it, "#"
 * starts a comment.  Every problem is reported as
 *
 *	FILE:LINE: what is wrong; what to write instead
 *
 * and the whole description is refused if there is any.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc.h"

enum stanza {
	ST_NONE,
	ST_CLUSTER,
	ST_NODE,
	ST_SKIP,	/* inside a stanza already reported as bad */
};

static const char *const node_keys[NK_COUNT] = {
	[NK_NAME]	= "name",
	[NK_NUMBER]	= "number",
	[NK_ROLE]	= "role",
	[NK_MEMORY]	= "memory_mib",
	[NK_VCPUS]	= "vcpus",
	[NK_IP]		= "ip_address",
	[NK_SWAP]	= "swap_mib",
	[NK_DATA]	= "data_mib",
	[NK_IOPS]	= "disk_iops",
	[NK_MBPS]	= "disk_mbps",
	[NK_CLUSTER]	= "cluster",
	[NK_IMAGE]	= "image",
};

static const char *const cluster_keys[CK_COUNT] = {
	[CK_NAME]	= "name",
	[CK_SUBNET]	= "subnet",
	[CK_PORT]	= "port",
	[CK_SHARED_MIB]	= "shared_mib",
	[CK_SHARED_UUID] = "shared_uuid",
	[CK_KEY_FILE]	= "key_file",
	[CK_NWFILTER]	= "nwfilter",
	[CK_SECURITY]	= "security",
};

/* An example line for each required key, for "add ..." hints. */
static const char *const node_examples[NK_COUNT] = {
	[NK_NAME]	= "name = client3",
	[NK_NUMBER]	= "number = 3",
	[NK_ROLE]	= "role = client",
	[NK_MEMORY]	= "memory_mib = 256",
	[NK_IP]		= "ip_address = 10.77.0.13",
};

static const char *const cluster_examples[CK_COUNT] = {
	[CK_NAME]	= "name = ramster",
	[CK_SUBNET]	= "subnet = 10.77.0.0/24",
};

struct parser {
	struct rc_cluster *c;
	enum stanza stanza;
	struct rc_node *node;		/* current node stanza */
	int lineno;
};

/* Problems are collected, then printed in line order. */
struct desc_msg {
	int line;
	int seq;
	char *text;
};

static struct desc_msg *msgs;
static int nr_msgs;

static void __attribute__((format(printf, 3, 4)))
desc_error(struct rc_cluster *c, int line, const char *fmt, ...)
{
	struct desc_msg *m;
	va_list ap;

	if (!(nr_msgs & (nr_msgs - 1))) {
		size_t cap = nr_msgs ? 2 * nr_msgs : 1;

		m = realloc(msgs, cap * sizeof(*msgs));
		if (!m) {
			rc_err("out of memory");
			exit(RC_EXIT_RUNTIME);
		}
		msgs = m;
	}
	m = &msgs[nr_msgs];
	m->line = line;
	m->seq = nr_msgs++;
	va_start(ap, fmt);
	if (vasprintf(&m->text, fmt, ap) < 0)
		m->text = NULL;
	va_end(ap);
	c->nr_errors++;
}

static int msg_cmp(const void *a, const void *b)
{
	const struct desc_msg *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void print_errors(const struct rc_cluster *c)
{
	int i;

	if (!nr_msgs)
		return;
	qsort(msgs, nr_msgs, sizeof(*msgs), msg_cmp);
	for (i = 0; i < nr_msgs; i++) {
		fprintf(stderr, "%s:%d: %s\n", c->file, msgs[i].line,
			msgs[i].text ? msgs[i].text : "(out of memory)");
		free(msgs[i].text);
	}
	free(msgs);
	msgs = NULL;
	nr_msgs = 0;
}

const char *rc_role_name(enum rc_role role)
{
	switch (role) {
	case RC_ROLE_SERVER:
		return "memory-server";
	case RC_ROLE_CLIENT:
		return "client";
	default:
		return "none";
	}
}

const char *rc_image_name(enum rc_image image)
{
	return image == RC_IMAGE_STOCK ? "stock" : "default";
}

void rc_format_ip(uint32_t ip, char buf[16])
{
	snprintf(buf, 16, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff,
		 (ip >> 8) & 0xff, ip & 0xff);
}

static uint32_t prefix_mask(unsigned int prefix)
{
	return prefix ? 0xffffffffU << (32 - prefix) : 0;
}

/* Edit distance of two short keys, for "did you mean" hints. */
static int distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b);
	int d[33][33];
	int i, j;

	if (la > 32 || lb > 32)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			int del = d[i - 1][j] + 1;
			int ins = d[i][j - 1] + 1;

			d[i][j] = sub < del ? sub : del;
			if (ins < d[i][j])
				d[i][j] = ins;
		}
	}
	return d[la][lb];
}

static int find_key(const char *const *keys, int n, const char *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(keys[i], key))
			return i;
	return -1;
}

static void unknown_key(struct parser *p, const char *key)
{
	const char *const *keys;
	const char *stanza, *best = NULL;
	char list[256] = "";
	int n, i, best_d = 3;

	if (p->stanza == ST_NODE) {
		keys = node_keys;
		n = NK_COUNT;
		stanza = "node";
	} else {
		keys = cluster_keys;
		n = CK_COUNT;
		stanza = "cluster";
	}
	for (i = 0; i < n; i++) {
		size_t kl = strlen(key), ol = strlen(keys[i]);
		int d = distance(key, keys[i]);

		/* "memory" for "memory_mib", "ip" for "ip_address" */
		if (!strncmp(key, keys[i], kl < ol ? kl : ol))
			d = 1;

		if (d < best_d) {
			best_d = d;
			best = keys[i];
		}
		strcat(list, i ? ", " : "");
		strcat(list, keys[i]);
	}
	if (p->stanza == ST_NODE && !strcmp(key, "ip_port"))
		desc_error(p->c, p->lineno,
			   "unknown key \"ip_port\" in node: stanza; the port is set once for all nodes with \"port = N\" in the cluster: stanza");
	else if (best)
		desc_error(p->c, p->lineno,
			   "unknown key \"%s\" in %s: stanza; did you mean \"%s\"? (keys: %s)",
			   key, stanza, best, list);
	else
		desc_error(p->c, p->lineno,
			   "unknown key \"%s\" in %s: stanza; write one of: %s",
			   key, stanza, list);
}

/* Strict unsigned decimal: no sign, no spaces, no overflow. */
static int parse_ulong(const char *s, unsigned long *val)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*val = strtoul(s, &end, 10);
	if (errno || *end)
		return -1;
	return 0;
}

static int parse_range(struct parser *p, const char *key, const char *val,
		       unsigned long min, unsigned long max,
		       unsigned long example, unsigned long *out)
{
	if (parse_ulong(val, out) || *out < min || *out > max) {
		desc_error(p->c, p->lineno,
			   "%s = %s is not a number from %lu to %lu; write e.g. \"%s = %lu\"",
			   key, val, min, max, key, example);
		return -1;
	}
	return 0;
}

/* Host names: [a-z0-9-], no leading or trailing '-'. */
static int parse_name(struct parser *p, const char *key, const char *val,
		      char *out, size_t max)
{
	size_t len = strlen(val), i;
	bool ok = len > 0 && len <= max && val[0] != '-' &&
		  val[len - 1] != '-';

	for (i = 0; ok && i < len; i++)
		ok = islower((unsigned char)val[i]) ||
		     isdigit((unsigned char)val[i]) || val[i] == '-';
	if (!ok) {
		desc_error(p->c, p->lineno,
			   "%s = %s is not a valid name; write 1 to %zu characters from a-z, 0-9 and '-' (not first or last), e.g. \"%s = %s\"",
			   key, val, max, key,
			   p->stanza == ST_NODE ? "client3" : "ramster");
		return -1;
	}
	memcpy(out, val, len + 1);
	return 0;
}

static int parse_ipv4(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*ip = ntohl(a.s_addr);
	return 0;
}

static bool is_private(uint32_t net, unsigned int prefix)
{
	if (prefix >= 8 && (net >> 24) == 10)
		return true;
	if (prefix >= 12 && (net >> 20) == ((172U << 4) | 1))
		return true;
	if (prefix >= 16 && (net >> 16) == ((192U << 8) | 168))
		return true;
	return false;
}

static void parse_subnet(struct parser *p, const char *val)
{
	struct rc_cluster *c = p->c;
	char addr[32], buf[16];
	const char *slash = strchr(val, '/');
	unsigned long prefix;
	uint32_t ip;

	if (!slash || (size_t)(slash - val) >= sizeof(addr) ||
	    parse_ulong(slash + 1, &prefix) || prefix < 8 || prefix > 30)
		goto bad;
	memcpy(addr, val, slash - val);
	addr[slash - val] = '\0';
	if (parse_ipv4(addr, &ip))
		goto bad;
	if (ip & ~prefix_mask(prefix)) {
		rc_format_ip(ip & prefix_mask(prefix), buf);
		desc_error(c, p->lineno,
			   "subnet = %s has host bits set; write \"subnet = %s/%lu\"",
			   val, buf, prefix);
		return;
	}
	if (!is_private(ip, prefix)) {
		desc_error(c, p->lineno,
			   "subnet = %s is not a private (RFC 1918) network; use one inside 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16, e.g. \"subnet = 10.77.0.0/24\"",
			   val);
		return;
	}
	c->net = ip;
	c->prefix = prefix;
	c->valid |= 1U << CK_SUBNET;
	return;
bad:
	desc_error(c, p->lineno,
		   "subnet = %s is not an IPv4 network with a prefix length from 8 to 30; write e.g. \"subnet = 10.77.0.0/24\"",
		   val);
}

/* 8-4-4-4-12 lowercase hex digits, as /proc/sys/kernel/random/uuid. */
bool rc_uuid_valid(const char *s)
{
	int i;

	for (i = 0; i < RC_UUID_LEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isdigit((unsigned char)s[i]) &&
			   (s[i] < 'a' || s[i] > 'f')) {
			return false;
		}
	}
	return s[i] == '\0';
}

/* The shared disk: 0 for none, else RC_MIN_SHARED_MIB..RC_MAX_DISK_MIB. */
static void parse_shared_mib(struct parser *p, const char *val)
{
	struct rc_cluster *c = p->c;
	unsigned long v;

	if (parse_ulong(val, &v) || v > RC_MAX_DISK_MIB ||
	    (v && v < RC_MIN_SHARED_MIB)) {
		desc_error(c, p->lineno,
			   "shared_mib = %s is not a disk size; write \"shared_mib = 0\" for no shared disk or a size from %d to %lu MiB",
			   val, RC_MIN_SHARED_MIB, RC_MAX_DISK_MIB);
		return;
	}
	c->shared_mib = v;
	c->valid |= 1U << CK_SHARED_MIB;
}

static void parse_shared_uuid(struct parser *p, const char *val)
{
	struct rc_cluster *c = p->c;

	if (!rc_uuid_valid(val)) {
		desc_error(c, p->lineno,
			   "shared_uuid = %s is not a uuid; write 32 lowercase hex digits grouped 8-4-4-4-12, e.g. \"shared_uuid = 6f0d4f2e-9a51-4c3b-8e7d-1a2b3c4d5e6f\", or drop the line to have one made",
			   val);
		return;
	}
	memcpy(c->shared_uuid, val, RC_UUID_LEN + 1);
	c->valid |= 1U << CK_SHARED_UUID;
}

/*
 * key_file: a path, relative to the description's directory, so that a
 * description and its key move together and work from any directory.
 */
static void parse_key_file(struct parser *p, const char *val)
{
	struct rc_cluster *c = p->c;
	const char *slash = strrchr(c->file, '/');

	if (val[0] == '/' || !slash)
		c->key_file = rc_xstrdup(val);
	else
		c->key_file = rc_xasprintf("%.*s/%s", (int)(slash - c->file),
					   c->file, val);
	c->valid |= 1U << CK_KEY_FILE;
}

/*
 * nwfilter: clean-traffic (the default), so that a guest cannot send as
 * another's MAC or IP address, or none.
 */
static void parse_nwfilter(struct parser *p, const char *val)
{
	struct rc_cluster *c = p->c;

	if (!strcmp(val, "clean-traffic")) {
		c->nwfilter = true;
	} else if (!strcmp(val, "none")) {
		c->nwfilter = false;
	} else {
		desc_error(c, p->lineno,
			   "nwfilter = %s is not a filter; write \"nwfilter = clean-traffic\" (the default: a guest cannot send as another's MAC or IP address) or \"nwfilter = none\"",
			   val);
		return;
	}
	c->valid |= 1U << CK_NWFILTER;
}

/* security: what protects r2net's frames, as its configfs takes it. */
static void parse_security(struct parser *p, const char *val)
{
	static const char *const ok[] = { "integrity", "encrypt", "none" };
	struct rc_cluster *c = p->c;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (!strcmp(val, ok[i])) {
			c->security = ok[i];
			c->valid |= 1U << CK_SECURITY;
			return;
		}
	}
	desc_error(c, p->lineno,
		   "security = %s is not one; write \"security = integrity\" (the default: every r2net frame is tagged), \"security = encrypt\" (encrypted too) or \"security = none\" (no tags: only to measure what they cost)",
		   val);
}

static void cluster_value(struct parser *p, int key, const char *val)
{
	struct rc_cluster *c = p->c;
	unsigned long v;

	switch (key) {
	case CK_NAME:
		if (!parse_name(p, "name", val, c->name, RC_CLUSTER_NAME_MAX))
			c->valid |= 1U << key;
		break;
	case CK_SUBNET:
		parse_subnet(p, val);
		break;
	case CK_PORT:
		if (!parse_range(p, "port", val, 1, 65535, RC_DEFAULT_PORT, &v)) {
			c->port = v;
			c->valid |= 1U << key;
		}
		break;
	case CK_SHARED_MIB:
		parse_shared_mib(p, val);
		break;
	case CK_SHARED_UUID:
		parse_shared_uuid(p, val);
		break;
	case CK_KEY_FILE:
		parse_key_file(p, val);
		break;
	case CK_NWFILTER:
		parse_nwfilter(p, val);
		break;
	case CK_SECURITY:
		parse_security(p, val);
		break;
	}
}

static void parse_role(struct parser *p, const char *val)
{
	struct rc_node *n = p->node;

	if (!strcmp(val, "memory-server")) {
		n->role = RC_ROLE_SERVER;
	} else if (!strcmp(val, "client")) {
		n->role = RC_ROLE_CLIENT;
	} else {
		desc_error(p->c, p->lineno,
			   "unknown role \"%s\"; write \"role = memory-server\" or \"role = client\"",
			   val);
		return;
	}
	n->valid |= 1U << NK_ROLE;
}

static void parse_image(struct parser *p, const char *val)
{
	struct rc_node *n = p->node;

	if (!strcmp(val, "default")) {
		n->image = RC_IMAGE_DEFAULT;
	} else if (!strcmp(val, "stock")) {
		n->image = RC_IMAGE_STOCK;
	} else {
		desc_error(p->c, p->lineno,
			   "unknown image \"%s\"; write \"image = stock\" (Debian's own kernel, from -K and -I) or \"image = default\" (the project's, from -k and -i)",
			   val);
		return;
	}
	n->valid |= 1U << NK_IMAGE;
}

static void parse_memory(struct parser *p, const char *val)
{
	struct rc_node *n = p->node;
	unsigned long v;

	if (parse_ulong(val, &v) || v > RC_MAX_MEMORY_MIB) {
		desc_error(p->c, p->lineno,
			   "memory_mib = %s is not a size in MiB; write e.g. \"memory_mib = 256\"",
			   val);
		return;
	}
	if (v < RC_MIN_MEMORY_MIB) {
		desc_error(p->c, p->lineno,
			   "memory_mib = %lu is too small to boot the guest kernel and its initramfs; write \"memory_mib = %d\" or more",
			   v, RC_MIN_MEMORY_MIB);
		return;
	}
	n->memory_mib = v;
	n->valid |= 1U << NK_MEMORY;
}

static void parse_disk(struct parser *p, int key, const char *val,
		       unsigned long *out)
{
	const char *k = node_keys[key];
	unsigned long v;

	if (parse_ulong(val, &v) || v > RC_MAX_DISK_MIB ||
	    (v && v < RC_MIN_DISK_MIB)) {
		desc_error(p->c, p->lineno,
			   "%s = %s is not a disk size; write \"%s = 0\" for no disk or a size from %d to %lu MiB",
			   k, val, k, RC_MIN_DISK_MIB, RC_MAX_DISK_MIB);
		return;
	}
	*out = v;
	p->node->valid |= 1U << key;
}

/* A disk limit: 0 for none, else 1..MAX of UNIT. */
static void parse_throttle(struct parser *p, int key, const char *val,
			   unsigned long max, const char *unit,
			   unsigned long *out)
{
	const char *k = node_keys[key];
	unsigned long v;

	if (parse_ulong(val, &v) || v > max) {
		desc_error(p->c, p->lineno,
			   "%s = %s is not a disk limit; write \"%s = 0\" for none or a limit from 1 to %lu %s",
			   k, val, k, max, unit);
		return;
	}
	*out = v;
	p->node->valid |= 1U << key;
}

static void node_value(struct parser *p, int key, const char *val)
{
	struct rc_node *n = p->node;
	unsigned long v;

	switch (key) {
	case NK_NAME:
		if (parse_name(p, "name", val, n->name, RC_NODE_NAME_MAX))
			return;
		break;
	case NK_CLUSTER:
		if (parse_name(p, "cluster", val, n->cluster,
			       RC_CLUSTER_NAME_MAX))
			return;
		break;
	case NK_NUMBER:
		if (parse_range(p, "number", val, 0, RC_MAX_NODES - 1, 3, &v))
			return;
		n->number = v;
		break;
	case NK_ROLE:
		parse_role(p, val);
		return;
	case NK_IMAGE:
		parse_image(p, val);
		return;
	case NK_MEMORY:
		parse_memory(p, val);
		return;
	case NK_VCPUS:
		if (parse_range(p, "vcpus", val, 1, RC_MAX_VCPUS, 1, &v))
			return;
		n->vcpus = v;
		break;
	case NK_IP:
		if (parse_ipv4(val, &n->ip)) {
			desc_error(p->c, p->lineno,
				   "ip_address = %s is not an IPv4 address; write a dotted quad inside the cluster subnet, e.g. \"ip_address = 10.77.0.13\"",
				   val);
			return;
		}
		break;
	case NK_SWAP:
		parse_disk(p, key, val, &n->swap_mib);
		return;
	case NK_DATA:
		parse_disk(p, key, val, &n->data_mib);
		return;
	case NK_IOPS:
		parse_throttle(p, key, val, RC_MAX_DISK_IOPS,
			       "I/O operations per second", &n->disk_iops);
		return;
	case NK_MBPS:
		parse_throttle(p, key, val, RC_MAX_DISK_MBPS, "MiB/s",
			       &n->disk_mbps);
		return;
	}
	n->valid |= 1U << key;
}

static void parse_param(struct parser *p, char *s)
{
	const char *const *keys;
	int *key_line, nkeys, key;
	char *eq = strchr(s, '='), *key_s, *val, *e;

	if (p->stanza == ST_SKIP)
		return;
	if (p->stanza == ST_NONE) {
		desc_error(p->c, p->lineno,
			   "parameter outside a stanza; start the file with a \"cluster:\" line at column 0");
		return;
	}
	if (!eq) {
		desc_error(p->c, p->lineno,
			   "\"%s\" is not a \"key = value\" line; write e.g. \"\tname = %s\"",
			   s, p->stanza == ST_NODE ? "client3" : "ramster");
		return;
	}
	key_s = s;
	for (e = eq; e > key_s && isspace((unsigned char)e[-1]); e--)
		;
	*e = '\0';
	for (val = eq + 1; isspace((unsigned char)*val); val++)
		;
	if (!*key_s || !*val) {
		desc_error(p->c, p->lineno,
			   "empty key or value; write \"key = value\", e.g. \"\tmemory_mib = 256\"");
		return;
	}

	if (p->stanza == ST_NODE) {
		keys = node_keys;
		nkeys = NK_COUNT;
		key_line = p->node->key_line;
	} else {
		keys = cluster_keys;
		nkeys = CK_COUNT;
		key_line = p->c->key_line;
	}
	key = find_key(keys, nkeys, key_s);
	if (key < 0) {
		unknown_key(p, key_s);
		return;
	}
	if (key_line[key]) {
		desc_error(p->c, p->lineno,
			   "\"%s\" is given twice in this stanza (first at %s:%d); keep one of the two lines",
			   key_s, p->c->file, key_line[key]);
		return;
	}
	key_line[key] = p->lineno;
	if (p->stanza == ST_NODE)
		node_value(p, key, val);
	else
		cluster_value(p, key, val);
}

static void parse_header(struct parser *p, char *s)
{
	struct rc_cluster *c = p->c;
	size_t len = strlen(s);

	if (strchr(s, '=')) {
		desc_error(c, p->lineno,
			   "parameter at column 0; indent \"key = value\" lines with a tab or spaces");
		return;
	}
	if (len && s[len - 1] == ':') {
		s[--len] = '\0';
		while (len && isspace((unsigned char)s[len - 1]))
			s[--len] = '\0';
	} else {
		desc_error(c, p->lineno,
			   "\"%s\" is not a stanza header; write \"cluster:\" or \"node:\" at column 0",
			   s);
		p->stanza = ST_SKIP;
		return;
	}

	if (!strcmp(s, "cluster")) {
		if (c->line) {
			desc_error(c, p->lineno,
				   "second cluster: stanza (first at %s:%d); a description holds exactly one cluster",
				   c->file, c->line);
			p->stanza = ST_SKIP;
			return;
		}
		c->line = p->lineno;
		p->stanza = ST_CLUSTER;
	} else if (!strcmp(s, "node")) {
		if (c->nr_nodes == RC_MAX_NODES) {
			desc_error(c, p->lineno,
				   "too many node: stanzas; a cluster has at most %d nodes",
				   RC_MAX_NODES);
			p->stanza = ST_SKIP;
			return;
		}
		p->node = &c->nodes[c->nr_nodes++];
		memset(p->node, 0, sizeof(*p->node));
		p->node->line = p->lineno;
		p->stanza = ST_NODE;
	} else {
		desc_error(c, p->lineno,
			   "unknown stanza \"%s:\"; write \"cluster:\" or \"node:\"",
			   s);
		p->stanza = ST_SKIP;
	}
}

static void parse_line(struct parser *p, char *s)
{
	char *hash = strchr(s, '#');
	size_t len;

	if (hash)
		*hash = '\0';
	len = strlen(s);
	while (len && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	if (!len)
		return;
	if (isspace((unsigned char)*s)) {
		while (isspace((unsigned char)*s))
			s++;
		parse_param(p, s);
	} else {
		parse_header(p, s);
	}
}

/* Required keys and defaults of one node, once its stanza is read. */
static void finish_node(struct rc_cluster *c, struct rc_node *n)
{
	static const int required[] = {
		NK_NAME, NK_NUMBER, NK_ROLE, NK_MEMORY, NK_IP,
	};
	bool client;
	size_t i;

	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		int k = required[i];

		if (!n->key_line[k])
			desc_error(c, n->line,
				   "node: stanza has no \"%s\" line; add one, e.g. \"\t%s\"",
				   node_keys[k], node_examples[k]);
	}
	client = n->role == RC_ROLE_CLIENT;
	if (!n->key_line[NK_VCPUS])
		n->vcpus = 1;
	if (!n->key_line[NK_SWAP])
		n->swap_mib = client ? RC_DEFAULT_SWAP_MIB : 0;
	if (!n->key_line[NK_DATA])
		n->data_mib = client ? RC_DEFAULT_DATA_MIB : 0;
	n->job = RC_DEFAULT_JOB;
}

static void finish_cluster(struct rc_cluster *c)
{
	int k;

	if (!c->line) {
		desc_error(c, 1,
			   "no cluster: stanza; add \"cluster:\" with \"\tname = ramster\" and \"\tsubnet = 10.77.0.0/24\" lines");
		return;
	}
	for (k = 0; k < CK_COUNT; k++) {
		if (!c->key_line[k] && cluster_examples[k])
			desc_error(c, c->line,
				   "cluster: stanza has no \"%s\" line; add one, e.g. \"\t%s\"",
				   cluster_keys[k], cluster_examples[k]);
	}
	if (!c->key_line[CK_PORT])
		c->port = RC_DEFAULT_PORT;
	if (!c->key_line[CK_NWFILTER])
		c->nwfilter = true;
	if (!c->nr_nodes)
		desc_error(c, c->line,
			   "the cluster has no node: stanzas; add at least one node: stanza");
}

#define VALID(n, k)	((n)->valid & (1U << (k)))

static void check_address(struct rc_cluster *c, const struct rc_node *n)
{
	uint32_t mask = prefix_mask(c->prefix);
	uint32_t first = c->net + 1, last = (c->net | ~mask) - 1;
	char ip[16], net[16], lo[16], hi[16];

	rc_format_ip(n->ip, ip);
	rc_format_ip(c->net, net);
	rc_format_ip(first, lo);
	rc_format_ip(last, hi);
	if ((n->ip & mask) != c->net)
		desc_error(c, n->key_line[NK_IP],
			   "ip_address = %s is outside the cluster subnet %s/%u (%s:%d); write an address from %s to %s",
			   ip, net, c->prefix, c->file, c->key_line[CK_SUBNET],
			   lo, hi);
	else if (n->ip < first || n->ip > last)
		desc_error(c, n->key_line[NK_IP],
			   "ip_address = %s is the %s address of %s/%u; write an address from %s to %s",
			   ip, n->ip < first ? "network" : "broadcast",
			   net, c->prefix, lo, hi);
}

/* "node \"NAME\" at FILE:LINE", or "the node at FILE:LINE" if unnamed. */
static void other_node(const struct rc_cluster *c, const struct rc_node *o,
		       int key, char *buf, size_t len)
{
	if (VALID(o, NK_NAME))
		snprintf(buf, len, "node \"%s\" at %s:%d", o->name, c->file,
			 o->key_line[key]);
	else
		snprintf(buf, len, "the node at %s:%d", c->file,
			 o->key_line[key]);
}

/* Report node j if it repeats a name, number or address of an earlier one. */
static void check_unique(struct rc_cluster *c, int j)
{
	const struct rc_node *n = &c->nodes[j], *o;
	char ip[16], other[RC_NODE_NAME_MAX + 4096];
	int i;

	for (i = 0; i < j; i++) {
		o = &c->nodes[i];
		if (VALID(n, NK_NAME) && VALID(o, NK_NAME) &&
		    !strcmp(n->name, o->name))
			desc_error(c, n->key_line[NK_NAME],
				   "node name \"%s\" is already used by the node at %s:%d; give every node its own name",
				   n->name, c->file, o->key_line[NK_NAME]);
		if (VALID(n, NK_NUMBER) && VALID(o, NK_NUMBER) &&
		    n->number == o->number) {
			other_node(c, o, NK_NUMBER, other, sizeof(other));
			desc_error(c, n->key_line[NK_NUMBER],
				   "node number %u is already used by %s; give every node its own number from 0 to %d",
				   n->number, other, RC_MAX_NODES - 1);
		}
		if (VALID(n, NK_IP) && VALID(o, NK_IP) && n->ip == o->ip) {
			rc_format_ip(n->ip, ip);
			other_node(c, o, NK_IP, other, sizeof(other));
			desc_error(c, n->key_line[NK_IP],
				   "ip_address %s is already used by %s; give every node its own address",
				   ip, other);
		}
	}
}

/* Whether the size of disk KEY is known: given and valid, or defaulted. */
static bool disk_known(const struct rc_node *n, int key)
{
	return n->key_line[key] ? VALID(n, key) : VALID(n, NK_ROLE);
}

/* A disk limit on a node without disks is a mistake. */
static void check_throttle(struct rc_cluster *c, const struct rc_node *n)
{
	static const int keys[] = { NK_IOPS, NK_MBPS };
	size_t i;

	if (n->swap_mib || n->data_mib || !disk_known(n, NK_SWAP) ||
	    !disk_known(n, NK_DATA))
		return;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int k = keys[i];
		unsigned long v = k == NK_IOPS ? n->disk_iops : n->disk_mbps;

		if (v)
			desc_error(c, n->key_line[k],
				   "%s = %lu but the node has no disk to throttle (swap_mib and data_mib are 0); drop the line or give the node a disk, e.g. \"data_mib = 512\"",
				   node_keys[k], v);
	}
}

/*
 * shared_uuid needs a shared disk, and a shared disk needs a client to
 * share it.  Whether there is a client is known only if every role is.
 */
static void check_shared(struct rc_cluster *c)
{
	int i;

	if (c->key_line[CK_SHARED_UUID] && VALID(c, CK_SHARED_UUID) &&
	    (!c->key_line[CK_SHARED_MIB] ||
	     (VALID(c, CK_SHARED_MIB) && !c->shared_mib)))
		desc_error(c, c->key_line[CK_SHARED_UUID],
			   "shared_uuid = %s but the cluster has no shared disk; write \"shared_mib = 1024\" (its size in MiB, at least %d) in the cluster: stanza, or drop the line",
			   c->shared_uuid, RC_MIN_SHARED_MIB);
	if (!c->shared_mib || !c->nr_nodes)
		return;
	for (i = 0; i < c->nr_nodes; i++)
		if (!VALID(&c->nodes[i], NK_ROLE) ||
		    c->nodes[i].role == RC_ROLE_CLIENT)
			return;
	desc_error(c, c->key_line[CK_SHARED_MIB],
		   "shared_mib = %lu but the cluster has no client node to share the disk; drop the line (or write \"shared_mib = 0\"), or add a node: stanza with \"role = client\"",
		   c->shared_mib);
}

/*
 * A shared disk without shared_uuid gets a fresh uuid, once per load, so
 * that what "render" and "up" write in one run agrees.
 */
static int make_shared_uuid(struct rc_cluster *c)
{
	char buf[64];
	ssize_t len;
	int fd;

	fd = open(RC_UUID_SOURCE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc_err("cannot open %s to make the shared disk's uuid: %s; write \"shared_uuid = UUID\" in the cluster: stanza of %s",
		       RC_UUID_SOURCE, strerror(errno), c->file);
		return -1;
	}
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len > 0 ? len : 0] = '\0';
	if (!rc_uuid_valid(buf)) {
		rc_err("%s gave no uuid (\"%s\"); write \"shared_uuid = UUID\" in the cluster: stanza of %s",
		       RC_UUID_SOURCE, buf, c->file);
		return -1;
	}
	memcpy(c->shared_uuid, buf, RC_UUID_LEN + 1);
	c->shared_uuid_generated = true;
	return 0;
}

/*
 * The key in key_file, checked like the rest of the description: what is
 * wrong (never the file's text) and how to make a key file, on its line.
 */
static void load_key(struct rc_cluster *c)
{
	const char *path = c->key_file;
	char why[256];
	unsigned int mode;

	switch (rc_key_read(path, c->key, why, sizeof(why), &mode)) {
	case RC_KEY_OK:
		rc_key_check_mode(path, mode);
		return;
	case RC_KEY_NOT_FILE:
		desc_error(c, c->key_line[CK_KEY_FILE],
			   "key_file %s: %s; name a file that holds the key, made with \"%s keygen > FILE && chmod 600 FILE\", or drop the line and up makes a key",
			   path, why, RC_PROG);
		return;
	default:
		desc_error(c, c->key_line[CK_KEY_FILE],
			   "key_file %s: %s; make a key with \"%s keygen > %s && chmod 600 %s\", or drop the line and up makes one",
			   path, why, RC_PROG, path, path);
		return;
	}
}

static void check_nodes(struct rc_cluster *c)
{
	int j;

	for (j = 0; j < c->nr_nodes; j++) {
		struct rc_node *n = &c->nodes[j];

		if (VALID(n, NK_IP) && VALID(c, CK_SUBNET))
			check_address(c, n);
		if (VALID(n, NK_CLUSTER) && VALID(c, CK_NAME) &&
		    strcmp(n->cluster, c->name))
			desc_error(c, n->key_line[NK_CLUSTER],
				   "cluster = %s does not match the cluster's name \"%s\"; write \"cluster = %s\" or drop the line",
				   n->cluster, c->name, c->name);
		if (VALID(n, NK_IMAGE) && n->image == RC_IMAGE_STOCK &&
		    VALID(n, NK_ROLE) && n->role == RC_ROLE_CLIENT)
			desc_error(c, n->key_line[NK_IMAGE],
				   "image = stock on a client; a client needs the project's patched kernel (ramster_frontend.ko needs the frontswap and cleancache of its patch series), not Debian's: drop the line, only memory servers boot Debian's kernel");
		check_throttle(c, n);
		check_unique(c, j);
	}
}

/*
 * Read and validate FILE into C, and with NEED_KEY the key in its
 * key_file, if it names one.  Returns 0, or -1 after printing every
 * problem found (c->nr_errors of them; 0 if the file could not be read).
 */
int rc_desc_load(struct rc_cluster *c, const char *file, bool need_key)
{
	struct parser p = { .c = c };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int i;

	memset(c, 0, sizeof(*c));
	c->file = file;
	f = fopen(file, "r");
	if (!f) {
		rc_err("cannot read cluster description %s: %s; pass one with -c FILE",
		       file, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		p.lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (memchr(line, '\0', len)) {
			desc_error(c, p.lineno, "NUL byte in a text file");
			continue;
		}
		parse_line(&p, line);
	}
	free(line);
	fclose(f);

	for (i = 0; i < c->nr_nodes; i++)
		finish_node(c, &c->nodes[i]);
	finish_cluster(c);
	check_nodes(c);
	check_shared(c);
	if (need_key && VALID(c, CK_KEY_FILE))
		load_key(c);
	print_errors(c);
	if (c->nr_errors)
		return -1;
	if (c->shared_mib && !c->key_line[CK_SHARED_UUID])
		return make_shared_uuid(c);
	return 0;
}
