// SPDX-License-Identifier: GPL-2.0
/*
 * conf_test - the ramster.conf parser (tools/ramsterctl/conf.c).
 *
 * Every FILE given must parse, and a file named default.conf must say
 * what ramster-cluster renders for libvirt-xml/default.cluster.  Then a
 * table of good variants that must parse (with the timeouts in effect and
 * the lines they were given on), and of broken files that must be refused
 * with FILE:LINE: and the expected line and words.
 *
 * usage: conf_test [-s SEED] FILE...
 */
#include <stdbool.h>
#include <string.h>

#include "conf.h"
#include "test.h"

static char tmpdir[] = "/tmp/conf_test.XXXXXX";

/* Write text to a file in tmpdir; returns its path (static buffer). */
static const char *write_tmp(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.conf", tmpdir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	return path;
}

static void check_default(const char *path, const struct rconf *c)
{
	static const struct {
		const char *name, *ip;
		unsigned int number;
		enum rconf_role role;
	} want[] = {
		{ "ms0", "10.77.0.10", 0, RCONF_ROLE_MEMORY_SERVER },
		{ "client1", "10.77.0.11", 1, RCONF_ROLE_CLIENT },
		{ "client2", "10.77.0.12", 2, RCONF_ROLE_CLIENT },
	};
	unsigned int i;

	CHECK(!strcmp(c->name, "ramster"), "%s: cluster name '%s'", path, c->name);
	CHECK(c->node_count == 3 && c->nr_nodes == 3, "%s: %u nodes", path,
	      c->nr_nodes);
	for (i = 0; i < 3 && i < c->nr_nodes; i++) {
		const struct rconf_node *n = &c->nodes[i];

		CHECK(!strcmp(n->name, want[i].name) &&
		      !strcmp(n->ip_address, want[i].ip) &&
		      n->number == want[i].number && n->port == 7777 &&
		      n->role == want[i].role,
		      "%s: node %u is %s %s:%u number %u %s", path, i, n->name,
		      n->ip_address, n->port, n->number, rconf_role_name(n->role));
	}
	CHECK(c->nodes[0].addr[0] == 10 && c->nodes[0].addr[1] == 77 &&
	      c->nodes[0].addr[2] == 0 && c->nodes[0].addr[3] == 10,
	      "%s: ms0 address bytes", path);
}

static void check_files(int argc, char **argv)
{
	struct rconf_err err;
	struct rconf *c;
	const char *base;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s")) {
			i++;
			continue;
		}
		c = rconf_load(argv[i], &err);
		CHECK(c, "%s refused: %s", argv[i], err.text);
		if (!c)
			continue;
		base = strrchr(argv[i], '/');
		base = base ? base + 1 : argv[i];
		if (!strcmp(base, "default.conf") || !strcmp(base, "ramster.conf"))
			check_default(argv[i], c);
		rconf_free(c);
	}
}

#define CL	"cluster:\n\tname = r\n\tnode_count = 2\n"
#define N0	"node:\n\tname = a\n\tnumber = 0\n\tip_address = 10.0.0.1\n" \
		"\tcluster = r\n\trole = memory-server\n"
#define N1	"node:\n\tname = b\n\tnumber = 1\n\tip_address = 10.0.0.2\n" \
		"\tip_port = 7000\n\tcluster = r\n\trole = client\n"

static const struct {
	const char *name, *text;
} good[] = {
	{ "minimal", CL N0 N1 },
	{ "blank-lines", "\n" CL "\n\n" N0 "\n" N1 "\n\n" },
	{ "nodes-first", N0 N1 CL },
	{ "spaces", "cluster:\n  name=r\n    node_count   =   2  \n"
		    "node:\n name = a\n number = 0\n ip_address = 10.0.0.1\n"
		    " cluster = r\n role = memory-server\n" N1 },
	{ "crlf", "cluster:\r\n\tname = r\r\n\tnode_count = 2\r\n" N0 N1 },
	{ "comments", "# ramster\n" CL "\t# a comment inside\n" N0 "#\n" N1 },
	{ "no-final-newline", CL N0 N1 "\t" },
	{ "stanza-trailing-blank", "cluster: \n\tname = r\n\tnode_count = 2\n" N0 N1 },
	{ "one-node", "cluster:\n\tname = solo\n\tnode_count = 1\nnode:\n"
		      "\tname = x\n\tnumber = 254\n\tip_address = 192.168.1.254\n"
		      "\tip_port = 65535\n\tcluster = solo\n\trole = client\n" },
	{ "timeouts", "cluster:\n\tname = r\n\tidle_timeout_ms = 4000\n"
		      "\tkeepalive_delay_ms = 1000\n\treconnect_delay_ms = 1000\n"
		      "\tnode_count = 2\n" N0 N1 },
	{ "timeouts-bounds", "cluster:\n\tname = r\n\tnode_count = 2\n"
			     "\tidle_timeout_ms = 86400000\n"
			     "\tkeepalive_delay_ms = 86399999\n"
			     "\treconnect_delay_ms = 1\n" N0 N1 },
	{ "timeouts-min", "cluster:\n\tname = r\n\tnode_count = 2\n"
			  "\tidle_timeout_ms = 2\n\tkeepalive_delay_ms = 1\n" N0 N1 },
	{ "keepalive-only", "cluster:\n\tname = r\n\tnode_count = 2\n"
			    "\tkeepalive_delay_ms = 29999\n" N0 N1 },
	{ "idle-only", "cluster:\n\tname = r\n\tnode_count = 2\n"
		       "\tidle_timeout_ms = 2001\n" N0 N1 },
	{ "reconnect-only", N0 N1 "cluster:\n\treconnect_delay_ms = 86400000\n"
			    "\tname = r\n\tnode_count = 2\n" },
	{ "long-names", "cluster:\n\tname = abcdefghijklmnop\n\tnode_count = 1\n"
			"node:\n\tname = n123456789012345678901234567890123456789"
			"012345678901234567890123\n\tnumber = 0\n"
			"\tip_address = 1.2.3.4\n\tcluster = abcdefghijklmnop\n"
			"\trole = client\n" },
};

static const struct {
	const char *name, *text;
	unsigned int line;
	const char *words;
} bad[] = {
	{ "empty", "", 1, "no cluster: stanza" },
	{ "no-cluster", N0, 6, "no cluster: stanza" },
	{ "param-outside", "\tname = r\n" CL N0 N1, 1, "outside a stanza" },
	{ "unknown-cluster-key", "cluster:\n\tname = r\n\tnodes = 2\n", 3,
	  "unknown cluster key 'nodes'" },
	{ "unknown-node-key", CL N0 "node:\n\tname = b\n\tweight = 3\n", 12,
	  "unknown node key 'weight'" },
	{ "unknown-stanza", CL "heartbeat:\n", 4, "unknown stanza 'heartbeat:'" },
	{ "junk-at-col0", CL "name = x\n", 4, "or an indented parameter" },
	{ "no-equals", "cluster:\n\tname r\n", 2, "key = value" },
	{ "no-value", "cluster:\n\tname =\n", 2, "'name' has no value" },
	{ "no-key", "cluster:\n\t= r\n", 2, "no key" },
	{ "missing-cluster-name", "cluster:\n\tnode_count = 2\n" N0 N1, 1,
	  "lacks 'name'" },
	{ "missing-node-count", "cluster:\n\tname = r\n" N0 N1, 1,
	  "lacks 'node_count'" },
	{ "missing-number", CL N0 "node:\n\tname = b\n\tip_address = 10.0.0.2\n"
	  "\tcluster = r\n\trole = client\n", 10, "lacks 'number'" },
	{ "missing-role", CL N0 "node:\n\tname = b\n\tnumber = 1\n"
	  "\tip_address = 10.0.0.2\n\tcluster = r\n", 10, "lacks 'role'" },
	{ "missing-ip", CL "node:\n\tname = b\n\tnumber = 1\n\tcluster = r\n"
	  "\trole = client\n" N0, 4, "lacks 'ip_address'" },
	{ "dup-key", "cluster:\n\tname = r\n\tname = r\n", 3,
	  "'name' given twice" },
	{ "dup-number", CL N0 "node:\n\tname = b\n\tnumber = 0\n"
	  "\tip_address = 10.0.0.2\n\tcluster = r\n\trole = client\n", 12,
	  "duplicate node number 0" },
	{ "dup-name", CL N0 "node:\n\tname = a\n\tnumber = 1\n"
	  "\tip_address = 10.0.0.2\n\tcluster = r\n\trole = client\n", 11,
	  "duplicate node name 'a'" },
	{ "dup-address", CL N0 "node:\n\tname = b\n\tnumber = 1\n"
	  "\tip_address = 10.0.0.1\n\tip_port = 7778\n\tcluster = r\n"
	  "\trole = client\n", 13, "duplicate ip_address 10.0.0.1" },
	{ "count-low", "cluster:\n\tname = r\n\tnode_count = 1\n" N0 N1, 3,
	  "node_count is 1 but there are 2" },
	{ "count-high", "cluster:\n\tname = r\n\tnode_count = 3\n" N0 N1, 3,
	  "node_count is 3 but there are 2" },
	{ "count-zero", "cluster:\n\tname = r\n\tnode_count = 0\n", 3,
	  "out of range" },
	{ "count-256", "cluster:\n\tname = r\n\tnode_count = 256\n", 3,
	  "out of range" },
	{ "number-255", CL "node:\n\tnumber = 255\n", 5, "out of range 0-254" },
	{ "number-negative", CL "node:\n\tnumber = -1\n", 5, "not a number" },
	{ "number-huge", CL "node:\n\tnumber = 99999999999999999999999\n", 5,
	  "out of range" },
	{ "number-hex", CL "node:\n\tnumber = 0x1\n", 5, "not a number" },
	{ "port-0", CL "node:\n\tip_port = 0\n", 5, "bad ip_port" },
	{ "port-65536", CL "node:\n\tip_port = 65536\n", 5, "bad ip_port" },
	{ "port-text", CL "node:\n\tip_port = http\n", 5, "bad ip_port" },
	{ "ip-3-octets", CL "node:\n\tip_address = 10.0.1\n", 5, "bad ip_address" },
	{ "ip-256", CL "node:\n\tip_address = 10.0.0.256\n", 5, "bad ip_address" },
	{ "ip-leading-zero", CL "node:\n\tip_address = 10.0.0.01\n", 5,
	  "bad ip_address" },
	{ "ip-any", CL "node:\n\tip_address = 0.0.0.0\n", 5, "bad ip_address" },
	{ "ip-broadcast", CL "node:\n\tip_address = 255.255.255.255\n", 5,
	  "bad ip_address" },
	{ "ip-multicast", CL "node:\n\tip_address = 224.0.0.1\n", 5,
	  "bad ip_address" },
	{ "ip-trailing", CL "node:\n\tip_address = 10.0.0.1.\n", 5,
	  "bad ip_address" },
	{ "ip-hostname", CL "node:\n\tip_address = ms0\n", 5, "bad ip_address" },
	{ "ip-v6", CL "node:\n\tip_address = ::1\n", 5, "bad ip_address" },
	{ "role", CL "node:\n\trole = server\n", 5, "role 'server'" },
	{ "node-name-space", CL "node:\n\tname = a b\n", 5, "bad node name" },
	{ "node-name-long", CL "node:\n\tname = n12345678901234567890123456789"
	  "0123456789012345678901234567890123456\n", 5, "bad node name" },
	{ "cluster-name-long", "cluster:\n\tname = abcdefghijklmnopq\n", 2,
	  "bad cluster name" },
	{ "node-other-cluster", CL N0 "node:\n\tname = b\n\tnumber = 1\n"
	  "\tip_address = 10.0.0.2\n\tcluster = s\n\trole = client\n", 14,
	  "node 'b' is in cluster 's', but the cluster is 'r'" },
	{ "node-other-cluster-first", "node:\n\tname = a\n\tnumber = 0\n"
	  "\tip_address = 10.0.0.1\n\tcluster = x\n\trole = client\n"
	  "cluster:\n\tname = r\n\tnode_count = 1\n", 5, "in cluster 'x'" },
	{ "two-clusters", CL N0 N1 "cluster:\n\tname = s\n", 17,
	  "second cluster: stanza" },
	{ "stanza-indented", " cluster:\n", 1, "outside a stanza" },
	{ "idle-0", CL "\tidle_timeout_ms = 0\n" N0 N1, 4,
	  "idle_timeout_ms 0 out of range 1-86400000" },
	{ "idle-day-and-1", CL "\tidle_timeout_ms = 86400001\n" N0 N1, 4,
	  "idle_timeout_ms 86400001 out of range" },
	{ "keepalive-huge", CL "\tkeepalive_delay_ms = 99999999999999999999\n", 4,
	  "keepalive_delay_ms 99999999999999999999 out of range" },
	{ "reconnect-0", CL "\treconnect_delay_ms = 0\n", 4,
	  "reconnect_delay_ms 0 out of range" },
	{ "reconnect-text", CL "\treconnect_delay_ms = 2s\n", 4,
	  "reconnect_delay_ms '2s' is not a number" },
	{ "idle-negative", CL "\tidle_timeout_ms = -1\n", 4,
	  "idle_timeout_ms '-1' is not a number" },
	{ "idle-twice", CL "\tidle_timeout_ms = 4000\n\tidle_timeout_ms = 5000\n",
	  5, "'idle_timeout_ms' given twice in this cluster: stanza (first at line 4)" },
	{ "timeout-in-node", CL N0 "\tidle_timeout_ms = 4000\n", 10,
	  "unknown node key 'idle_timeout_ms'" },
	{ "keepalive-equal", "cluster:\n\tname = r\n\tidle_timeout_ms = 4000\n"
	  "\tkeepalive_delay_ms = 4000\n\tnode_count = 2\n" N0 N1, 4,
	  "keepalive_delay_ms 4000 is not below idle_timeout_ms 4000;" },
	{ "keepalive-above-later-idle", "cluster:\n\tname = r\n"
	  "\tkeepalive_delay_ms = 5000\n\tnode_count = 2\n"
	  "\tidle_timeout_ms = 4000\n" N0 N1, 5,
	  "keepalive_delay_ms 5000 is not below idle_timeout_ms 4000;" },
	{ "keepalive-above-default-idle", CL "\tkeepalive_delay_ms = 30000\n" N0 N1,
	  4, "keepalive_delay_ms 30000 is not below idle_timeout_ms 30000 (the default)" },
	{ "idle-below-default-keepalive", CL "\n\tidle_timeout_ms = 2000\n" N0 N1,
	  5, "keepalive_delay_ms 2000 (the default) is not below idle_timeout_ms 2000;" },
	{ "keepalive-bad-nodes-first", N0 N1 "cluster:\n\tname = r\n"
	  "\tnode_count = 2\n\tidle_timeout_ms = 100\n\tkeepalive_delay_ms = 100\n",
	  18, "not below idle_timeout_ms 100" },
	{ "nul-byte", "cluster:\n\tname = r\0x\n", 2, "NUL" },
};

/* texts with a NUL byte need their real length */
static size_t text_len(const char *name, const char *text)
{
	if (!strcmp(name, "nul-byte"))
		return strlen(text) + 3;
	return strlen(text);
}

/* The timeouts each good file gives: in effect, and the line given on. */
static const struct {
	const char *name;
	unsigned int idle, ka, rc, idle_line, ka_line, rc_line;
} timeouts[] = {
	{ "minimal", 30000, 2000, 2000, 0, 0, 0 },
	{ "timeouts", 4000, 1000, 1000, 3, 4, 5 },
	{ "timeouts-bounds", 86400000, 86399999, 1, 4, 5, 6 },
	{ "timeouts-min", 2, 1, 2000, 4, 5, 0 },
	{ "keepalive-only", 30000, 29999, 2000, 0, 4, 0 },
	{ "idle-only", 2001, 2000, 2000, 4, 0, 0 },
	{ "reconnect-only", 30000, 2000, 86400000, 0, 0, 15 },
};

static void check_timeouts(const char *name, const struct rconf *c)
{
	unsigned int i;

	for (i = 0; i < sizeof(timeouts) / sizeof(timeouts[0]); i++) {
		if (strcmp(timeouts[i].name, name))
			continue;
		CHECK(c->idle_timeout_ms == timeouts[i].idle &&
		      c->keepalive_delay_ms == timeouts[i].ka &&
		      c->reconnect_delay_ms == timeouts[i].rc,
		      "%s: timeouts %u %u %u, want %u %u %u", name,
		      c->idle_timeout_ms, c->keepalive_delay_ms,
		      c->reconnect_delay_ms, timeouts[i].idle, timeouts[i].ka,
		      timeouts[i].rc);
		CHECK(c->idle_timeout_line == timeouts[i].idle_line &&
		      c->keepalive_delay_line == timeouts[i].ka_line &&
		      c->reconnect_delay_line == timeouts[i].rc_line,
		      "%s: timeout lines %u %u %u, want %u %u %u", name,
		      c->idle_timeout_line, c->keepalive_delay_line,
		      c->reconnect_delay_line, timeouts[i].idle_line,
		      timeouts[i].ka_line, timeouts[i].rc_line);
		return;
	}
	/* the others give none */
	CHECK(c->idle_timeout_ms == 30000 && c->keepalive_delay_ms == 2000 &&
	      c->reconnect_delay_ms == 2000 && !c->idle_timeout_line &&
	      !c->keepalive_delay_line && !c->reconnect_delay_line,
	      "%s: timeouts %u %u %u without any given", name,
	      c->idle_timeout_ms, c->keepalive_delay_ms, c->reconnect_delay_ms);
}

static void check_table(void)
{
	struct rconf_err err;
	char prefix[320];
	const char *path;
	struct rconf *c;
	unsigned int i;
	FILE *f;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		path = write_tmp(good[i].name, good[i].text);
		c = rconf_load(path, &err);
		CHECK(c, "%s refused: %s", good[i].name, err.text);
		if (c && !strcmp(good[i].name, "minimal")) {
			CHECK(c->nodes[0].port == 7777 && c->nodes[1].port == 7000,
			      "ports %u %u", c->nodes[0].port, c->nodes[1].port);
			CHECK(c->nodes[0].line == 4 && c->nodes[1].line == 10,
			      "node lines %u %u", c->nodes[0].line, c->nodes[1].line);
		}
		if (c)
			check_timeouts(good[i].name, c);
		rconf_free(c);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		path = write_tmp(bad[i].name, "");
		f = fopen(path, "w");
		if (!f || fwrite(bad[i].text, 1, text_len(bad[i].name, bad[i].text),
				 f) != text_len(bad[i].name, bad[i].text) || fclose(f))
			abort();
		c = rconf_load(path, &err);
		CHECK(!c, "%s: accepted", bad[i].name);
		rconf_free(c);
		if (c)
			continue;
		snprintf(prefix, sizeof(prefix), "%s:%u: ", path, bad[i].line);
		CHECK(err.line == bad[i].line &&
		      !strncmp(err.text, prefix, strlen(prefix)) &&
		      strstr(err.text, bad[i].words),
		      "%s: got \"%s\" (line %u), want line %u and \"%s\"",
		      bad[i].name, err.text, err.line, bad[i].line, bad[i].words);
	}

	/* parsing from memory gives the same, and needs no NUL at the end */
	c = rconf_parse("mem", CL N0 N1, strlen(CL N0 N1), &err);
	CHECK(c && c->nr_nodes == 2, "rconf_parse from memory: %s", err.text);
	rconf_free(c);
	c = rconf_parse("mem", CL N0 N1, strlen(CL N0 N1) - 10, &err);
	CHECK(!c && !strncmp(err.text, "mem:16: ", 8), "cut short: %s", err.text);
	rconf_free(c);

	c = rconf_load("/nonexistent/ramster.conf", &err);
	CHECK(!c && strstr(err.text, "/nonexistent/ramster.conf: cannot open"),
	      "missing file: %s", err.text);
}

int main(int argc, char **argv)
{
	char cmd[64];

	test_seed_from_args(argc, argv, "conf_test");
	if (!mkdtemp(tmpdir)) {
		perror(tmpdir);
		return 1;
	}
	check_files(argc, argv);
	check_table();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	printf("conf_test: %lu checks, %lu failed\n", test_checks, test_failures);
	return test_failures ? 1 : 0;
}
