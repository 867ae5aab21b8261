// SPDX-License-Identifier: GPL-2.0
/*
 * conf-check - parse a ramster.conf and print what it says.
 *
 * usage: conf-check FILE
 * Prints the cluster (with its timeouts, "(default)" after those the file
 * leaves out), whether it has a cluster_key ("cluster_key set" or
 * "cluster_key none"; never the key itself) and one line per node and
 * exits 0, or prints the first error as "FILE:LINE: what is wrong" and
 * exits 2.
 */
#include <stdio.h>

#include "conf.h"

int main(int argc, char **argv)
{
	struct rconf_err err;
	struct rconf *c;
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: conf-check FILE\n");
		return 2;
	}
	c = rconf_load(argv[1], &err);
	if (!c) {
		fprintf(stderr, "%s\n", err.text);
		return 2;
	}
	printf("cluster %s node_count %u idle_timeout_ms %u%s keepalive_delay_ms %u%s reconnect_delay_ms %u%s\n",
	       c->name, c->node_count,
	       c->idle_timeout_ms, c->idle_timeout_line ? "" : " (default)",
	       c->keepalive_delay_ms, c->keepalive_delay_line ? "" : " (default)",
	       c->reconnect_delay_ms, c->reconnect_delay_line ? "" : " (default)");
	printf("cluster_key %s\n", c->cluster_key[0] ? "set" : "none");
	if (c->security_line)
		printf("security %s\n", c->security);
	for (i = 0; i < c->nr_nodes; i++)
		printf("node %u %s %s:%u %s\n", c->nodes[i].number,
		       c->nodes[i].name, c->nodes[i].ip_address,
		       c->nodes[i].port, rconf_role_name(c->nodes[i].role));
	rconf_free(c);
	return 0;
}
