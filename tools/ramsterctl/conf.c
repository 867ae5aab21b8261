// SPDX-License-Identifier: GPL-2.0
/*
 * conf.c - parse ramster.conf (o2cb cluster.conf format); see conf.h.
 *
 * One pass over the lines: each parameter is checked as it is read, and a
 * stanza is checked (required keys, keepalive below idle, unique node name,
 * number and address) when the next one starts or the file ends.  What needs the whole file
 * (a cluster: stanza exists, node_count, each node's cluster name) is
 * checked last.  The first error stops the parse.
 */
#define _DEFAULT_SOURCE		/* explicit_bzero() */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

#define LINE_MAX_LEN	1024

enum stanza {
	ST_NONE,
	ST_CLUSTER,
	ST_NODE,
};

enum cluster_key {
	CK_NAME,
	CK_NODE_COUNT,
	CK_IDLE_TIMEOUT,
	CK_KEEPALIVE_DELAY,
	CK_RECONNECT_DELAY,
	CK_SHARED_UUID,
	CK_CLUSTER_KEY,
	CK_SECURITY,
	CK_NR,
	CK_REQUIRED = CK_IDLE_TIMEOUT,	/* the keys before it must be given */
};

enum node_key {
	NK_NAME,
	NK_NUMBER,
	NK_IP_ADDRESS,
	NK_IP_PORT,
	NK_CLUSTER,
	NK_ROLE,
	NK_NR,
};

static const char * const cluster_keys[CK_NR] = {
	[CK_NAME] = "name",
	[CK_NODE_COUNT] = "node_count",
	[CK_IDLE_TIMEOUT] = "idle_timeout_ms",
	[CK_KEEPALIVE_DELAY] = "keepalive_delay_ms",
	[CK_RECONNECT_DELAY] = "reconnect_delay_ms",
	[CK_SHARED_UUID] = "shared_uuid",
	[CK_CLUSTER_KEY] = "cluster_key",
	[CK_SECURITY] = "security",
};

static const char * const node_keys[NK_NR] = {
	[NK_NAME] = "name",
	[NK_NUMBER] = "number",
	[NK_IP_ADDRESS] = "ip_address",
	[NK_IP_PORT] = "ip_port",
	[NK_CLUSTER] = "cluster",
	[NK_ROLE] = "role",
};

/* A node while parsing: where each key was given (0: not given). */
struct pnode {
	struct rconf_node n;
	char cluster[RCONF_CLUSTER_NAME_MAX + 1];
	unsigned int key_line[NK_NR];
};

struct parser {
	const char *file;
	struct rconf_err *err;
	bool failed;
	unsigned int lineno;
	enum stanza st;
	unsigned int st_line;

	unsigned int cluster_line;	/* 0: no cluster: stanza yet */
	unsigned int ck_line[CK_NR];
	char cluster_name[RCONF_CLUSTER_NAME_MAX + 1];
	unsigned int node_count;
	unsigned int timeout[CK_NR];	/* by cluster_key, the timeouts only */
	char shared_uuid[RCONF_UUID_LEN + 1];
	char cluster_key[RCONF_KEY_HEX + 1];
	char security[16];

	struct pnode *nodes;
	unsigned int nr_nodes;
	unsigned int cap;
};

static void set_error(struct parser *p, unsigned int line, const char *msg)
{
	if (p->failed && p->err->line <= line)
		return;
	p->failed = true;
	p->err->line = line;
	snprintf(p->err->text, sizeof(p->err->text), "%s:%u: %s", p->file,
		 line, msg);
}

/*
 * fail(p, line, fmt, ...) - record an error on that line.  The first one
 * wins, except that among the whole-file checks the earliest line wins.
 * A macro, so that the compiler checks the format against the arguments.
 */
#define fail(p, line, ...)						\
	do {								\
		char msg_[384];						\
									\
		snprintf(msg_, sizeof(msg_), __VA_ARGS__);		\
		set_error(p, line, msg_);				\
	} while (0)

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* A name of 1..max characters from [A-Za-z0-9._-]. */
static bool name_ok(const char *s, size_t max)
{
	size_t n;

	for (n = 0; s[n]; n++)
		if (!is_name_char(s[n]))
			return false;
	return n >= 1 && n <= max;
}

/* Decimal digits only; false if not a number, *v clamped above 10^9. */
static bool parse_uint(const char *s, unsigned long *v)
{
	unsigned long n = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (n < 1000000000UL)
			n = n * 10 + (unsigned long)(*s - '0');
	}
	*v = n;
	return true;
}

/* Four decimal octets, no leading zeros, a unicast host address. */
static bool parse_ipv4(const char *s, unsigned char addr[4])
{
	unsigned int i, val, digits;

	for (i = 0; i < 4; i++) {
		val = 0;
		for (digits = 0; s[digits] >= '0' && s[digits] <= '9'; digits++) {
			if (digits == 3 || (digits == 1 && s[0] == '0'))
				return false;
			val = val * 10 + (unsigned int)(s[digits] - '0');
		}
		if (!digits || val > 255)
			return false;
		addr[i] = (unsigned char)val;
		s += digits;
		if (i < 3 && *s++ != '.')
			return false;
	}
	if (*s)
		return false;
	/* 0.0.0.0/8, multicast, reserved and broadcast are no node's address */
	return addr[0] != 0 && addr[0] < 224;
}

/* 8-4-4-4-12 lowercase hex digits, as ramster-cluster writes it. */
static bool uuid_ok(const char *s)
{
	int i;

	for (i = 0; i < RCONF_UUID_LEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!((s[i] >= '0' && s[i] <= '9') ||
			     (s[i] >= 'a' && s[i] <= 'f'))) {
			return false;
		}
	}
	return s[i] == '\0';
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/*
 * cluster_key: exactly RCONF_KEY_HEX hex digits.  What is wrong is said
 * without the value, which is secret.
 */
static bool cluster_key_param(struct parser *p, const char *val)
{
	size_t len = strlen(val), i;

	if (len != RCONF_KEY_HEX) {
		fail(p, p->lineno, "cluster_key must be %d hex digits (%d bytes), got %zu characters",
		     RCONF_KEY_HEX, RCONF_KEY_BYTES, len);
		return false;
	}
	for (i = 0; i < len; i++) {
		if (!is_hex(val[i])) {
			fail(p, p->lineno, "cluster_key must be %d hex digits (%d bytes), character %zu is not one",
			     RCONF_KEY_HEX, RCONF_KEY_BYTES, i + 1);
			return false;
		}
	}
	memcpy(p->cluster_key, val, len + 1);
	return true;
}

static int find_key(const char * const *keys, int nr, const char *key)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(keys[i], key))
			return i;
	return -1;
}

static bool cluster_param(struct parser *p, const char *key, const char *val)
{
	int k = find_key(cluster_keys, CK_NR, key);
	unsigned long n;

	if (k < 0) {
		fail(p, p->lineno, "unknown cluster key '%.64s'", key);
		return false;
	}
	if (p->ck_line[k]) {
		fail(p, p->lineno, "'%.64s' given twice in this cluster: stanza (first at line %u)",
		     key, p->ck_line[k]);
		return false;
	}
	p->ck_line[k] = p->lineno;
	switch (k) {
	case CK_NAME:
		if (!name_ok(val, RCONF_CLUSTER_NAME_MAX)) {
			fail(p, p->lineno, "bad cluster name '%.64s': want 1-%d of [A-Za-z0-9._-]",
			     val, RCONF_CLUSTER_NAME_MAX);
			return false;
		}
		strcpy(p->cluster_name, val);
		break;
	case CK_NODE_COUNT:
		if (!parse_uint(val, &n)) {
			fail(p, p->lineno, "node_count '%.64s' is not a number", val);
			return false;
		}
		if (n < 1 || n > RCONF_MAX_NODES) {
			fail(p, p->lineno, "node_count %.64s out of range 1-%d", val,
			     RCONF_MAX_NODES);
			return false;
		}
		p->node_count = (unsigned int)n;
		break;
	case CK_SHARED_UUID:
		if (!uuid_ok(val)) {
			fail(p, p->lineno, "bad shared_uuid '%.64s': want 8-4-4-4-12 lowercase hex digits",
			     val);
			return false;
		}
		strcpy(p->shared_uuid, val);
		break;
	case CK_CLUSTER_KEY:
		return cluster_key_param(p, val);
	case CK_SECURITY:
		if (strcmp(val, "integrity") && strcmp(val, "encrypt") &&
		    strcmp(val, "none")) {
			fail(p, p->lineno, "security '%.64s' is not one: want integrity (the default), encrypt, or none (no frame tags: only to measure their cost)",
			     val);
			return false;
		}
		strcpy(p->security, val);
		break;
	default:	/* the timeouts */
		if (!parse_uint(val, &n)) {
			fail(p, p->lineno, "%.64s '%.64s' is not a number of milliseconds",
			     key, val);
			return false;
		}
		if (n < 1 || n > RCONF_MAX_TIMEOUT_MS) {
			fail(p, p->lineno, "%.64s %.64s out of range 1-%d (ms)", key, val,
			     RCONF_MAX_TIMEOUT_MS);
			return false;
		}
		p->timeout[k] = (unsigned int)n;
		break;
	}
	return true;
}

/*
 * keepalive_delay_ms below idle_timeout_ms, as in effect (given or the
 * default); the error is on the later of the two lines given.
 */
static bool check_timeouts(struct parser *p)
{
	unsigned int il = p->ck_line[CK_IDLE_TIMEOUT];
	unsigned int kl = p->ck_line[CK_KEEPALIVE_DELAY];
	unsigned int idle = il ? p->timeout[CK_IDLE_TIMEOUT] :
			    RCONF_IDLE_TIMEOUT_MS_DEFAULT;
	unsigned int ka = kl ? p->timeout[CK_KEEPALIVE_DELAY] :
			  RCONF_KEEPALIVE_DELAY_MS_DEFAULT;

	if (ka < idle)
		return true;
	fail(p, kl > il ? kl : il,
	     "keepalive_delay_ms %u%s is not below idle_timeout_ms %u%s; r2net needs keepalive_delay_ms < idle_timeout_ms",
	     ka, kl ? "" : " (the default)", idle, il ? "" : " (the default)");
	return false;
}

static bool node_param(struct parser *p, const char *key, const char *val)
{
	struct pnode *pn = &p->nodes[p->nr_nodes - 1];
	int k = find_key(node_keys, NK_NR, key);
	unsigned long n;

	if (k < 0) {
		fail(p, p->lineno, "unknown node key '%.64s'", key);
		return false;
	}
	if (pn->key_line[k]) {
		fail(p, p->lineno, "'%.64s' given twice in this node: stanza (first at line %u)",
		     key, pn->key_line[k]);
		return false;
	}
	pn->key_line[k] = p->lineno;
	switch (k) {
	case NK_NAME:
		if (!name_ok(val, RCONF_NODE_NAME_MAX)) {
			fail(p, p->lineno, "bad node name '%.64s': want 1-%d of [A-Za-z0-9._-]",
			     val, RCONF_NODE_NAME_MAX);
			return false;
		}
		strcpy(pn->n.name, val);
		break;
	case NK_NUMBER:
		if (!parse_uint(val, &n)) {
			fail(p, p->lineno, "number '%.64s' is not a number", val);
			return false;
		}
		if (n > RCONF_MAX_NODE) {
			fail(p, p->lineno, "number %.64s out of range 0-%d", val,
			     RCONF_MAX_NODE);
			return false;
		}
		pn->n.number = (unsigned int)n;
		break;
	case NK_IP_ADDRESS:
		if (!parse_ipv4(val, pn->n.addr)) {
			fail(p, p->lineno, "bad ip_address '%.64s': want unicast IPv4",
			     val);
			return false;
		}
		snprintf(pn->n.ip_address, sizeof(pn->n.ip_address), "%u.%u.%u.%u",
			 pn->n.addr[0], pn->n.addr[1], pn->n.addr[2],
			 pn->n.addr[3]);
		break;
	case NK_IP_PORT:
		if (!parse_uint(val, &n)) {
			fail(p, p->lineno, "bad ip_port '%.64s': not a number", val);
			return false;
		}
		if (n < 1 || n > 65535) {
			fail(p, p->lineno, "bad ip_port %.64s: out of range 1-65535", val);
			return false;
		}
		pn->n.port = (unsigned int)n;
		break;
	case NK_CLUSTER:
		if (!name_ok(val, RCONF_CLUSTER_NAME_MAX)) {
			fail(p, p->lineno, "bad cluster name '%.64s': want 1-%d of [A-Za-z0-9._-]",
			     val, RCONF_CLUSTER_NAME_MAX);
			return false;
		}
		strcpy(pn->cluster, val);
		break;
	case NK_ROLE:
		if (!strcmp(val, "memory-server")) {
			pn->n.role = RCONF_ROLE_MEMORY_SERVER;
		} else if (!strcmp(val, "client")) {
			pn->n.role = RCONF_ROLE_CLIENT;
		} else {
			fail(p, p->lineno, "role '%.64s' is neither memory-server nor client", val);
			return false;
		}
		break;
	}
	return true;
}

/* The stanza that just ended has all it needs and clashes with no other. */
static bool end_stanza(struct parser *p)
{
	const struct pnode *pn, *o;
	unsigned int i;
	int k;

	if (p->st == ST_CLUSTER) {
		for (k = 0; k < CK_REQUIRED; k++) {
			if (!p->ck_line[k]) {
				fail(p, p->st_line, "cluster: stanza lacks '%.64s'",
				     cluster_keys[k]);
				return false;
			}
		}
		if (!check_timeouts(p))
			return false;
	}
	if (p->st != ST_NODE)
		return true;
	pn = &p->nodes[p->nr_nodes - 1];
	for (k = 0; k < NK_NR; k++) {
		if (!pn->key_line[k] && k != NK_IP_PORT) {
			fail(p, p->st_line, "node: stanza lacks '%.64s'", node_keys[k]);
			return false;
		}
	}
	for (i = 0; i + 1 < p->nr_nodes; i++) {
		o = &p->nodes[i];
		if (o->n.number == pn->n.number) {
			fail(p, pn->key_line[NK_NUMBER],
			     "duplicate node number %u (node '%.64s', line %u)",
			     pn->n.number, o->n.name, o->key_line[NK_NUMBER]);
			return false;
		}
		if (!strcmp(o->n.name, pn->n.name)) {
			fail(p, pn->key_line[NK_NAME],
			     "duplicate node name '%.64s' (line %u)", pn->n.name,
			     o->key_line[NK_NAME]);
			return false;
		}
		if (!memcmp(o->n.addr, pn->n.addr, sizeof(pn->n.addr))) {
			fail(p, pn->key_line[NK_IP_ADDRESS],
			     "duplicate ip_address %s (node '%.64s', line %u)",
			     pn->n.ip_address, o->n.name,
			     o->key_line[NK_IP_ADDRESS]);
			return false;
		}
	}
	return true;
}

static bool start_stanza(struct parser *p, enum stanza st)
{
	struct pnode *nodes;

	if (!end_stanza(p))
		return false;
	p->st = st;
	p->st_line = p->lineno;
	if (st == ST_CLUSTER) {
		if (p->cluster_line) {
			fail(p, p->lineno, "a second cluster: stanza (the first is at line %u)",
			     p->cluster_line);
			return false;
		}
		p->cluster_line = p->lineno;
		return true;
	}
	if (p->nr_nodes == RCONF_MAX_NODES) {
		fail(p, p->lineno, "more than %d node: stanzas", RCONF_MAX_NODES);
		return false;
	}
	if (p->nr_nodes == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		nodes = realloc(p->nodes, p->cap * sizeof(*nodes));
		if (!nodes) {
			fail(p, p->lineno, "out of memory");
			return false;
		}
		p->nodes = nodes;
	}
	memset(&p->nodes[p->nr_nodes], 0, sizeof(*p->nodes));
	p->nodes[p->nr_nodes].n.port = RCONF_DEFAULT_PORT;
	p->nodes[p->nr_nodes].n.line = p->lineno;
	p->nr_nodes++;
	return true;
}

/* "key = value", already without leading blanks. */
static bool parse_param(struct parser *p, char *s)
{
	char *eq, *key, *val, *end;

	if (p->st == ST_NONE) {
		fail(p, p->lineno, "parameter outside a stanza (want 'cluster:' or 'node:' first)");
		return false;
	}
	eq = strchr(s, '=');
	if (!eq) {
		fail(p, p->lineno, "expected 'key = value'");
		return false;
	}
	key = s;
	end = eq;
	while (end > key && is_blank(end[-1]))
		end--;
	*end = '\0';
	val = eq + 1;
	while (is_blank(*val))
		val++;
	if (!*key) {
		fail(p, p->lineno, "no key before '='");
		return false;
	}
	if (!*val) {
		fail(p, p->lineno, "'%.64s' has no value", key);
		return false;
	}
	if (p->st == ST_CLUSTER)
		return cluster_param(p, key, val);
	return node_param(p, key, val);
}

/* One line, NUL-terminated, without its newline and trailing blanks. */
static bool parse_line(struct parser *p, char *s)
{
	char *t = s;

	while (is_blank(*t))
		t++;
	if (!*t || *t == '#')
		return true;
	if (t != s)
		return parse_param(p, t);
	if (!strcmp(s, "cluster:"))
		return start_stanza(p, ST_CLUSTER);
	if (!strcmp(s, "node:"))
		return start_stanza(p, ST_NODE);
	if (s[strlen(s) - 1] == ':')
		fail(p, p->lineno, "unknown stanza '%.64s' (want 'cluster:' or 'node:')", s);
	else
		fail(p, p->lineno, "want 'cluster:' or 'node:', or an indented parameter");
	return false;
}

/* Checks that need the whole file; the error on the earliest line wins. */
static void end_file(struct parser *p)
{
	const struct pnode *pn;
	unsigned int i;

	if (!p->cluster_line) {
		fail(p, p->lineno ? p->lineno : 1, "no cluster: stanza");
		return;
	}
	if (p->nr_nodes != p->node_count)
		fail(p, p->ck_line[CK_NODE_COUNT],
		     "node_count is %u but there %s %u node: stanza%s",
		     p->node_count, p->nr_nodes == 1 ? "is" : "are",
		     p->nr_nodes, p->nr_nodes == 1 ? "" : "s");
	for (i = 0; i < p->nr_nodes; i++) {
		pn = &p->nodes[i];
		if (strcmp(pn->cluster, p->cluster_name))
			fail(p, pn->key_line[NK_CLUSTER],
			     "node '%.64s' is in cluster '%.64s', but the cluster is '%.64s'",
			     pn->n.name, pn->cluster, p->cluster_name);
	}
}

static struct rconf *build(struct parser *p)
{
	struct rconf *c;
	unsigned int i;

	c = calloc(1, sizeof(*c));
	if (c)
		c->nodes = calloc(p->nr_nodes, sizeof(*c->nodes));
	if (!c || !c->nodes) {
		free(c);
		fail(p, p->lineno, "out of memory");
		return NULL;
	}
	strcpy(c->name, p->cluster_name);
	c->node_count = p->node_count;
	c->idle_timeout_line = p->ck_line[CK_IDLE_TIMEOUT];
	c->keepalive_delay_line = p->ck_line[CK_KEEPALIVE_DELAY];
	c->reconnect_delay_line = p->ck_line[CK_RECONNECT_DELAY];
	c->idle_timeout_ms = c->idle_timeout_line ? p->timeout[CK_IDLE_TIMEOUT] :
			     RCONF_IDLE_TIMEOUT_MS_DEFAULT;
	c->keepalive_delay_ms = c->keepalive_delay_line ?
				p->timeout[CK_KEEPALIVE_DELAY] :
				RCONF_KEEPALIVE_DELAY_MS_DEFAULT;
	c->reconnect_delay_ms = c->reconnect_delay_line ?
				p->timeout[CK_RECONNECT_DELAY] :
				RCONF_RECONNECT_DELAY_MS_DEFAULT;
	strcpy(c->shared_uuid, p->shared_uuid);
	c->shared_uuid_line = p->ck_line[CK_SHARED_UUID];
	memcpy(c->cluster_key, p->cluster_key, sizeof(c->cluster_key));
	c->cluster_key_line = p->ck_line[CK_CLUSTER_KEY];
	strcpy(c->security, p->security);
	c->security_line = p->ck_line[CK_SECURITY];
	c->nr_nodes = p->nr_nodes;
	for (i = 0; i < p->nr_nodes; i++)
		c->nodes[i] = p->nodes[i].n;
	return c;
}

struct rconf *rconf_parse(const char *file, const char *buf, size_t len,
			  struct rconf_err *err)
{
	struct parser p = { .file = file, .err = err, .st = ST_NONE };
	char line[LINE_MAX_LEN + 1];
	struct rconf *c = NULL;
	size_t pos = 0, n;
	const char *nl;

	err->line = 0;
	err->text[0] = '\0';
	while (pos < len) {
		p.lineno++;
		nl = memchr(buf + pos, '\n', len - pos);
		n = (nl ? (size_t)(nl - buf) : len) - pos;
		if (memchr(buf + pos, '\0', n)) {
			fail(&p, p.lineno, "NUL byte in line");
			goto out;
		}
		if (n > LINE_MAX_LEN) {
			fail(&p, p.lineno, "line longer than %d bytes", LINE_MAX_LEN);
			goto out;
		}
		memcpy(line, buf + pos, n);
		while (n && is_blank(line[n - 1]))
			n--;
		line[n] = '\0';
		if (!parse_line(&p, line))
			goto out;
		pos = nl ? (size_t)(nl - buf) + 1 : len;
	}
	if (!end_stanza(&p))
		goto out;
	end_file(&p);
	if (!p.failed)
		c = build(&p);
out:
	free(p.nodes);
	explicit_bzero(p.cluster_key, sizeof(p.cluster_key));
	explicit_bzero(line, sizeof(line));
	return c;
}

struct rconf *rconf_load(const char *path, struct rconf_err *err)
{
	struct rconf *c = NULL;
	size_t len = 0, got;
	char *buf;
	FILE *f;

	err->line = 0;
	f = fopen(path, "r");
	if (!f) {
		snprintf(err->text, sizeof(err->text), "%s: cannot open: %s",
			 path, strerror(errno));
		return NULL;
	}
	buf = malloc(RCONF_MAX_FILE + 1);
	if (!buf) {
		snprintf(err->text, sizeof(err->text), "%s: out of memory", path);
		goto out;
	}
	while ((got = fread(buf + len, 1, RCONF_MAX_FILE + 1 - len, f)) > 0) {
		len += got;
		if (len > RCONF_MAX_FILE)
			break;
	}
	if (ferror(f))
		snprintf(err->text, sizeof(err->text), "%s: cannot read: %s",
			 path, strerror(errno));
	else if (len > RCONF_MAX_FILE)
		snprintf(err->text, sizeof(err->text), "%s: larger than %d bytes",
			 path, RCONF_MAX_FILE);
	else
		c = rconf_parse(path, buf, len, err);
out:
	if (buf)
		explicit_bzero(buf, len);
	free(buf);
	fclose(f);
	return c;
}

void rconf_free(struct rconf *conf)
{
	if (!conf)
		return;
	explicit_bzero(conf->cluster_key, sizeof(conf->cluster_key));
	free(conf->nodes);
	free(conf);
}

const char *rconf_role_name(enum rconf_role role)
{
	return role == RCONF_ROLE_MEMORY_SERVER ? "memory-server" : "client";
}
