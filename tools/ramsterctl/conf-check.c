// SPDX-License-Identifier: GPL-2.0
/*
 * conf-check - parse a ramster.conf and print what it says.
 *
 * usage: conf-check FILE
 * Prints the cluster and one line per node and exits 0, or prints the
 * first error as "FILE:LINE: what is wrong" and exits 2.
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
	printf("cluster %s node_count %u\n", c->name, c->node_count);
	for (i = 0; i < c->nr_nodes; i++)
		printf("node %u %s %s:%u %s\n", c->nodes[i].number,
		       c->nodes[i].name, c->nodes[i].ip_address,
		       c->nodes[i].port, rconf_role_name(c->nodes[i].role));
	rconf_free(c);
	return 0;
}
