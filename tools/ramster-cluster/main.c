// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - ramster-cluster: options and command dispatch.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "rc.h"

#define RC_MAX_SPECS	64

static const char usage_text[] =
"Usage: " RC_PROG " [options] COMMAND [ARG]\n"
"\n"
"Bring a RAMster cluster of libvirt guests up and down from one cluster\n"
"description (o2cb-like stanzas; see libvirt-xml/README.md).\n"
"\n"
"Commands:\n"
"  check         parse and validate the description (and read key_file's\n"
"                key); one line per node\n"
"  render DIR    write DIR/network.xml, DIR/<node>.xml for every node and\n"
"                DIR/ramster.conf (o2cb cluster.conf format plus a role line;\n"
"                mode 0600, with cluster_key only if key_file gives the key)\n"
"  up            check, render into the state directory, copy the kernel and\n"
"                the initrd there (the initrd gets etc/ramster.conf appended\n"
"                as an uncompressed newc cpio), and -K and -I as well if a\n"
"                node has image = stock; the cluster key is key_file's, else\n"
"                the one in STATE/" RC_KEY_STATE_FILE " (kept from an earlier up), else\n"
"                a new one from getrandom(2) stored there (0600); create\n"
"                fresh sparse raw disks for the nodes (swap: zero-filled,\n"
"                data: ext4; the shared disk, if shared_mib is set: OCFS2,\n"
"                made by mkfs.ocfs2), then net-define + net-start the network\n"
"                and define + start every domain; on any failure it undoes\n"
"                what it defined\n"
"  status        a table of node, number, role, domain state, memory, address;\n"
"                then, for each node whose results log has one, its newest\n"
"                \"RAMSTER-RESULT STATUS key=value ...\" line (from the log's\n"
"                last 64 KiB), how old the log is and its counters.  Without\n"
"                libvirt the states read \"unknown\" and the exit status is 1.\n"
"                Live view: watch -n 2 " RC_PROG " -c FILE status\n"
"  console NODE  print NODE's serial console log (guest ttyS0)\n"
"  results NODE  print NODE's results channel (guest ttyS1)\n"
"  down          destroy and undefine every domain and the network of the\n"
"                description; logs and disks stay in the state directory\n"
"  initrd IN OUT write OUT = IN + etc/ramster.conf, as \"up\" does (no libvirt;\n"
"                the key only from key_file; OUT is 0600)\n"
"  keygen        print a new cluster key, 64 hex digits (32 bytes of\n"
"                getrandom(2)) and a newline: a key_file is\n"
"                \"" RC_PROG " keygen > FILE && chmod 600 FILE\"\n"
"\n"
"Options:\n"
"  -c FILE       cluster description (default " RC_DEFAULT_DESC ",\n"
"                relative to the current directory)\n"
"  -t DIR        libvirt XML templates network.xml.in, memory-server.xml.in\n"
"                and client.xml.in, for render and up (default ./" RC_DEFAULT_TEMPLATE_DIR ",\n"
"                else ../../" RC_DEFAULT_TEMPLATE_DIR " from this executable: the\n"
"                repository's); a missing template or an unknown @NAME@\n"
"                placeholder stops them with exit status 1, nothing done\n"
"  -s DIR        state directory (default " RC_DEFAULT_STATE_ROOT "/<cluster name>);\n"
"                every directory above it must be searchable by others (o+x):\n"
"                QEMU runs as user libvirt-qemu\n"
"  -k KERNEL     guest bzImage (up)\n"
"  -i INITRD     guest initramfs, compressed or not (up)\n"
"  -K KERNEL     Debian's kernel for the nodes with image = stock (up; needed\n"
"                when a node has it): make image-stock's build/stock/vmlinuz\n"
"  -I INITRD     its initramfs: build/stock/initramfs.cpio.gz (up)\n"
"  -u URI        libvirt connection URI (default " RC_DEFAULT_URI ")\n"
"  -j [NODE=]JOB job put on the guest command line as ramster.job=JOB\n"
"                ([A-Za-z0-9._:+-]); without NODE= for all nodes; NODE= wins\n"
"                over the all-nodes job; repeatable; default " RC_DEFAULT_JOB "\n"
"  -a [NODE=]ARGS extra kernel command line text, appended in the order\n"
"                given; repeatable.  The text before the first '=' is taken\n"
"                as NODE only if a node has that name, so -a loglevel=7 goes\n"
"                to every node\n"
"  -h, --help    this text\n"
"\n"
"Guest kernel command line:\n"
"  console=ttyS0 noapic ramster.role=ROLE ramster.node=NAME ramster.number=N\n"
"  ramster.ip=ADDR/PREFIX ramster.job=JOB panic=-1 EXTRA\n"
"\n"
"Templates fill in, XML-escaped: network: CLUSTER NETWORK BRIDGE;\n"
"memory-server and client: CLUSTER NETWORK DOMAIN ROLE NUMBER MEMORY_MIB\n"
"VCPUS KERNEL INITRD CMDLINE MAC CONSOLE_LOG RESULTS_LOG, DISKS (the\n"
"<disk> elements, alone on its line) and FILTER (the interface's\n"
"clean-traffic filterref, alone on its line; none with nwfilter = none).\n"
"\n"
"Names: network <cluster>-net on bridge <cluster>-br0 (no forward, no host\n"
"address), domains <cluster>-<node>, MAC 52:54:00:72:6d:<number in hex>.\n"
"State directory: bzImage, initrd.img, stock-vmlinuz and stock-initrd.img\n"
"(if a node has image = stock), network.xml, <node>.xml, ramster.conf,\n"
RC_KEY_STATE_FILE " (without key_file; it, ramster.conf and the initrds are 0600),\n"
"<node>-swap.img (vda), <node>-data.img (vdb, or vda with no swap disk),\n"
"shared.img (shared_mib: every client's next disk, serial ramster-shared),\n"
"<node>.console.log, <node>.results.log.\n"
"\n"
"Description keys (see libvirt-xml/README.md):\n"
"  cluster: name (a-z 0-9 -, <= 12 chars), subnet (private IPv4 CIDR,\n"
"           prefix 8..30), port (default 7777), shared_mib (0 = none, else\n"
"           >= 64: a disk all clients share, OCFS2), shared_uuid (its uuid,\n"
"           8-4-4-4-12 lowercase hex; default: a new one each run),\n"
"           key_file (a file holding the cluster key, 64 hex digits and an\n"
"           optional newline, from keygen; a relative path is from the\n"
"           description's directory; default: up's STATE/" RC_KEY_STATE_FILE ")\n"
"  node:    name, number (0-254), role (memory-server | client),\n"
"           memory_mib (>= 128), ip_address (in subnet), vcpus (default 1),\n"
"           swap_mib, data_mib (0 = no disk; clients default 1024 and 512,\n"
"           memory servers 0), disk_iops (1..10000000) and disk_mbps\n"
"           (MiB/s, 1..100000): an <iotune> limit on each of the node's\n"
"           disks (0 or absent = unthrottled; refused on a node without\n"
"           disks), cluster (optional, must match), image (default |\n"
"           stock: boot Debian's own kernel from -K and -I; memory servers\n"
"           only, a client needs the project's patched kernel)\n"
"\n"
"Exit status: 0 ok; 1 runtime failure (virsh, files); 2 bad description\n"
"or command line.  Description errors read FILE:LINE: problem; fix.\n";

struct specs {
	const char *v[RC_MAX_SPECS];
	int n;
};

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

static void add_spec(struct specs *s, const char *v, char opt)
{
	if (s->n == RC_MAX_SPECS) {
		rc_err("too many -%c options (at most %d)", opt, RC_MAX_SPECS);
		exit(RC_EXIT_BAD);
	}
	s->v[s->n++] = v;
}

static struct rc_node *find_node(struct rc_cluster *c, const char *name,
				 size_t len)
{
	int i;

	for (i = 0; i < c->nr_nodes; i++)
		if (strlen(c->nodes[i].name) == len &&
		    !strncmp(c->nodes[i].name, name, len))
			return &c->nodes[i];
	return NULL;
}

static bool valid_job(const char *job)
{
	if (!*job)
		return false;
	for (; *job; job++)
		if (!isalnum((unsigned char)*job) && !strchr("._:+-", *job))
			return false;
	return true;
}

/* -j: the all-nodes job first (last one wins), then NODE=JOB. */
static int apply_jobs(struct rc_cluster *c, const struct specs *s)
{
	int pass, i, k;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < s->n; i++) {
			const char *eq = strchr(s->v[i], '=');
			const char *job = eq ? eq + 1 : s->v[i];
			struct rc_node *n;

			if (!valid_job(job)) {
				rc_err("-j %s: a job name is 1 or more of A-Z a-z 0-9 . _ : + -",
				       s->v[i]);
				return -1;
			}
			if (pass == 0 && !eq) {
				for (k = 0; k < c->nr_nodes; k++)
					c->nodes[k].job = job;
			} else if (pass == 1 && eq) {
				n = find_node(c, s->v[i], eq - s->v[i]);
				if (!n) {
					rc_err("-j %s: no node \"%.*s\" in %s",
					       s->v[i], (int)(eq - s->v[i]),
					       s->v[i], c->file);
					return -1;
				}
				n->job = job;
			}
		}
	}
	return 0;
}

static void append_extra(struct rc_node *n, const char *text)
{
	char *old = n->extra;

	n->extra = old ? rc_xasprintf("%s %s", old, text) :
			 rc_xstrdup(text);
	free(old);
}

/* -a: to one node if the text before '=' names it, else to all. */
static int apply_extra(struct rc_cluster *c, const struct specs *s)
{
	const char *p;
	int i, k;

	for (i = 0; i < s->n; i++) {
		const char *eq = strchr(s->v[i], '=');
		struct rc_node *n = eq ? find_node(c, s->v[i], eq - s->v[i])
				       : NULL;

		for (p = s->v[i]; *p; p++) {
			if (iscntrl((unsigned char)*p)) {
				rc_err("-a: control characters do not belong on a kernel command line");
				return -1;
			}
		}
		if (n) {
			append_extra(n, eq + 1);
			continue;
		}
		for (k = 0; k < c->nr_nodes; k++)
			append_extra(&c->nodes[k], s->v[i]);
	}
	return 0;
}

static int check_cmdlines(const struct rc_cluster *c)
{
	char buf[RC_CMDLINE_MAX + 1];
	int i;

	for (i = 0; i < c->nr_nodes; i++) {
		if (rc_cmdline(c, &c->nodes[i], buf, sizeof(buf))) {
			rc_err("kernel command line of node %s is longer than %d characters; shorten -a",
			       c->nodes[i].name, RC_CMDLINE_MAX);
			return -1;
		}
	}
	return 0;
}

static int want_args(const char *cmd, int have, int want)
{
	if (have == want)
		return 0;
	rc_err("%s takes %d argument%s; see %s --help", cmd, want,
	       want == 1 ? "" : "s", RC_PROG);
	return -1;
}

static int run(struct rc_cluster *c, struct rc_opts *o, char **argv,
	       int argc)
{
	const char *cmd = argv[0];

	if (!strcmp(cmd, "check"))
		return want_args(cmd, argc - 1, 0) ? RC_EXIT_BAD :
		       rc_cmd_check(c);
	if (!strcmp(cmd, "render"))
		return want_args(cmd, argc - 1, 1) ? RC_EXIT_BAD :
		       rc_cmd_render(c, o, argv[1]);
	if (!strcmp(cmd, "up"))
		return want_args(cmd, argc - 1, 0) ? RC_EXIT_BAD :
		       rc_cmd_up(c, o);
	if (!strcmp(cmd, "status"))
		return want_args(cmd, argc - 1, 0) ? RC_EXIT_BAD :
		       rc_cmd_status(c, o);
	if (!strcmp(cmd, "down"))
		return want_args(cmd, argc - 1, 0) ? RC_EXIT_BAD :
		       rc_cmd_down(c, o);
	if (!strcmp(cmd, "keygen"))
		return want_args(cmd, argc - 1, 0) ? RC_EXIT_BAD :
		       rc_cmd_keygen();
	if (!strcmp(cmd, "initrd"))
		return want_args(cmd, argc - 1, 2) ? RC_EXIT_BAD :
		       rc_build_initrd(c, argv[1], argv[2]) ?
		       RC_EXIT_RUNTIME : RC_EXIT_OK;
	if (!strcmp(cmd, "console") || !strcmp(cmd, "results"))
		return want_args(cmd, argc - 1, 1) ? RC_EXIT_BAD :
		       rc_cmd_cat(c, o, argv[1], cmd);
	rc_err("unknown command \"%s\"; see %s --help", cmd, RC_PROG);
	return RC_EXIT_BAD;
}

static bool known_command(const char *cmd)
{
	static const char *const cmds[] = {
		"check", "render", "up", "status", "console", "results",
		"down", "initrd", "keygen",
	};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmd, cmds[i]))
			return true;
	return false;
}

static bool needs_templates(const char *cmd)
{
	return !strcmp(cmd, "render") || !strcmp(cmd, "up");
}

/* The commands that read key_file: the others work without the key. */
static bool needs_key(const char *cmd)
{
	return needs_templates(cmd) || !strcmp(cmd, "check") ||
	       !strcmp(cmd, "initrd");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct rc_cluster cluster;
	struct rc_opts o = { .desc = RC_DEFAULT_DESC, .uri = RC_DEFAULT_URI };
	struct specs jobs = { .n = 0 }, extra = { .n = 0 };
	const char *state = NULL, *tmpl_dir = NULL;
	struct rc_templates tmpl;
	char *state_abs;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "c:s:t:k:i:K:I:u:j:a:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'c':
			o.desc = optarg;
			break;
		case 's':
			state = optarg;
			break;
		case 't':
			tmpl_dir = optarg;
			break;
		case 'k':
			o.kernel = optarg;
			break;
		case 'i':
			o.initrd = optarg;
			break;
		case 'K':
			o.stock_kernel = optarg;
			break;
		case 'I':
			o.stock_initrd = optarg;
			break;
		case 'u':
			o.uri = optarg;
			break;
		case 'j':
			add_spec(&jobs, optarg, 'j');
			break;
		case 'a':
			add_spec(&extra, optarg, 'a');
			break;
		case 'h':
			usage(stdout);
			return RC_EXIT_OK;
		default:
			fprintf(stderr, "Try '%s --help'.\n", RC_PROG);
			return RC_EXIT_BAD;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return RC_EXIT_BAD;
	}
	if (!known_command(argv[optind])) {
		rc_err("unknown command \"%s\"; see %s --help", argv[optind],
		       RC_PROG);
		return RC_EXIT_BAD;
	}

	/* keygen needs no description. */
	if (!strcmp(argv[optind], "keygen"))
		return run(&cluster, &o, argv + optind, argc - optind);
	if (rc_desc_load(&cluster, o.desc, needs_key(argv[optind]))) {
		if (cluster.nr_errors)
			fprintf(stderr, "%s: %s: %d error%s; nothing was changed\n",
				RC_PROG, o.desc, cluster.nr_errors,
				cluster.nr_errors == 1 ? "" : "s");
		return RC_EXIT_BAD;
	}
	if (apply_jobs(&cluster, &jobs) || apply_extra(&cluster, &extra) ||
	    check_cmdlines(&cluster))
		return RC_EXIT_BAD;

	/* Before anything is written or defined. */
	if (needs_templates(argv[optind])) {
		if (rc_templates_load(&tmpl, tmpl_dir))
			return RC_EXIT_RUNTIME;
		o.tmpl = &tmpl;
	}

	state_abs = state ? rc_abspath(state) :
		    rc_xasprintf("%s/%s", RC_DEFAULT_STATE_ROOT, cluster.name);
	o.state = state_abs;
	ret = run(&cluster, &o, argv + optind, argc - optind);
	free(state_abs);
	if (o.tmpl)
		rc_templates_free(&tmpl);
	return ret;
}
