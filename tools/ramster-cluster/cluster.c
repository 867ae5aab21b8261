// SPDX-License-Identifier: GPL-2.0
/*
 * cluster.c - the commands: check, render, up, status, console, results,
 * down.  The counters "status" shows are in counters.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rc.h"

/* What "up" has done so far, so that a failure can undo exactly that. */
struct up_state {
	bool net_defined;
	bool net_started;
	bool dom_defined[RC_MAX_NODES];
	bool dom_started[RC_MAX_NODES];
};

int rc_cmd_check(const struct rc_cluster *c)
{
	char net[16], ip[16];
	int i;

	rc_format_ip(c->net, net);
	printf("cluster %s: %d node%s, subnet %s/%u, port %u, nwfilter %s, security %s\n",
	       c->name, c->nr_nodes, c->nr_nodes == 1 ? "" : "s", net,
	       c->prefix, c->port, c->nwfilter ? "clean-traffic" : "none",
	       c->security ? c->security : "integrity");
	if (c->shared_mib)
		printf("shared disk %lu MiB uuid %s%s\n", c->shared_mib,
		       c->shared_uuid, c->shared_uuid_generated ?
		       " (made now: \"up\" makes another unless shared_uuid is given)" :
		       "");
	if (c->key_file)
		printf("cluster key from key_file %s\n", c->key_file);
	else
		printf("cluster key: none given; up keeps the one in its state directory's %s or makes one there\n",
		       RC_KEY_STATE_FILE);
	for (i = 0; i < c->nr_nodes; i++) {
		const struct rc_node *n = &c->nodes[i];

		rc_format_ip(n->ip, ip);
		printf("node %-10s number %-3u %-13s %5lu MiB %2lu vcpu %-15s swap %lu MiB data %lu MiB",
		       n->name, n->number, rc_role_name(n->role),
		       n->memory_mib, n->vcpus, ip, n->swap_mib, n->data_mib);
		if (n->disk_iops)
			printf(" %lu iops", n->disk_iops);
		if (n->disk_mbps)
			printf(" %lu MiB/s", n->disk_mbps);
		if (n->image != RC_IMAGE_DEFAULT)
			printf(" image %s", rc_image_name(n->image));
		printf(" job %s\n", n->job);
	}
	return RC_EXIT_OK;
}

int rc_cmd_render(const struct rc_cluster *c, const struct rc_opts *o,
		  const char *dir)
{
	return rc_render_dir(c, o->tmpl, dir, o->state) ? RC_EXIT_RUNTIME : RC_EXIT_OK;
}

/* Print a failed virsh call with what virsh said. */
static void virsh_failed(const char *what, const char *name, char *err)
{
	size_t len = err ? strlen(err) : 0;

	while (len && (err[len - 1] == '\n' || err[len - 1] == ' '))
		err[--len] = '\0';
	rc_err("virsh %s %s failed: %s", what, name,
	       len ? err : "(no message)");
}

/* Run "virsh WHAT NAME"; on failure report it unless QUIET. */
static int virsh1(const struct rc_opts *o, const char *what,
		  const char *name, bool quiet)
{
	char *err = NULL;
	int ret = rc_virsh(o->uri, NULL, &err, what, name, NULL);

	if (ret && !quiet)
		virsh_failed(what, name, err);
	free(err);
	return ret;
}

static int connect_check(const struct rc_opts *o)
{
	char *err = NULL;
	int ret = rc_virsh(o->uri, NULL, &err, "uri", NULL);

	if (ret) {
		virsh_failed("-c", o->uri, err);
		rc_err("cannot reach libvirt at %s; start libvirtd (tests: source tests/lib/libvirt.sh; libvirt_up) or pass another -u URI",
		       o->uri);
	}
	free(err);
	return ret ? -1 : 0;
}

static bool dom_exists(const struct rc_opts *o, const char *dom)
{
	return rc_virsh(o->uri, NULL, NULL, "domstate", dom, NULL) == 0;
}

static bool net_exists(const struct rc_opts *o, const char *net)
{
	return rc_virsh(o->uri, NULL, NULL, "net-info", net, NULL) == 0;
}

/* Refuse to touch a cluster that is (partly) defined already. */
static int check_free(const struct rc_cluster *c, const struct rc_opts *o)
{
	char name[64];
	int i, busy = 0;

	rc_network_name(c, name, sizeof(name));
	if (net_exists(o, name)) {
		rc_err("network %s is already defined", name);
		busy++;
	}
	for (i = 0; i < c->nr_nodes; i++) {
		rc_domain_name(c, &c->nodes[i], name, sizeof(name));
		if (dom_exists(o, name)) {
			rc_err("domain %s is already defined", name);
			busy++;
		}
	}
	if (busy)
		rc_err("cluster %s is (partly) up; run \"%s -c %s down\" first",
		       c->name, RC_PROG, c->file);
	return busy ? -1 : 0;
}

static int make_state_dir(const char *state)
{
	if (rc_mkdir_p(state, 0755))
		return -1;
	if (chmod(state, 0755)) {
		rc_err("cannot chmod %s: %s", state, strerror(errno));
		return -1;
	}
	return rc_check_searchable(state);
}

static int mkfs_ext4(const char *path, const char *label)
{
	const char *argv[] = {
		"mkfs.ext4", "-F", "-q", "-L", label, path, NULL,
	};
	char *err = NULL;
	int ret = rc_run(argv, NULL, &err);

	if (ret)
		rc_err("mkfs.ext4 %s failed (exit %d): %s", path, ret, err);
	free(err);
	return ret ? -1 : 0;
}

/* PATH: a fresh sparse raw file of MIB MiB. */
static int make_sparse(const char *path, unsigned long mib)
{
	int fd, ret = 0;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)mib << 20)) {
		rc_err("cannot create %s: %s", path, strerror(errno));
		ret = -1;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* A fresh sparse raw file of MIB MiB, ext4-formatted if FORMAT. */
static int make_disk(const char *state, const struct rc_node *n,
		     const char *kind, unsigned long mib, bool format)
{
	char *path = rc_xasprintf("%s/%s-%s.img", state, n->name, kind);
	int ret = make_sparse(path, mib);

	if (!ret && format)
		ret = mkfs_ext4(path, kind);
	free(path);
	return ret;
}

#define MKFS_OCFS2		"mkfs.ocfs2"
#define MKFS_OCFS2_MISSING	MKFS_OCFS2 " not found: apt-get install ocfs2-tools"

/* Whether PROG is an executable file in a directory of $PATH. */
static bool in_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *end;
	bool found = false;
	char *file;

	for (p = path ? path : "/usr/bin:/bin"; !found && *p; p = end) {
		end = strchrnul(p, ':');
		/* an empty entry is the current directory */
		file = end > p ? rc_xasprintf("%.*s/%s", (int)(end - p), p, prog) :
		       rc_xasprintf("./%s", prog);
		found = !access(file, X_OK);
		free(file);
		if (*end)
			end++;
	}
	return found;
}

/*
 * STATE/shared.img, the disk every client shares: an OCFS2 volume with
 * the cluster's name as label and shared_uuid as uuid (the tmem shared
 * pool is keyed by it), for the o2cb cluster stack with the cluster's
 * name less its '-'s as its cluster name (the clients configure o2cb in
 * configfs and mount it read-write with heartbeat=local), two node
 * slots.
 * mkfs.ocfs2 warns about -U even when it succeeds: what it prints is
 * shown only if it fails.
 */
static int make_shared(const struct rc_cluster *c, const char *state)
{
	char *path = rc_xasprintf("%s/%s", state, RC_SHARED_FILE);
	char *name = rc_xasprintf("--cluster-name=%s", c->name), *to, *from;
	const char *argv[] = {
		MKFS_OCFS2, "-q", "-F", "-M", "cluster",
		"--cluster-stack=o2cb", name, "-b", "4096",
		"-C", "4096", "-N", "2", "-L", c->name, "-U", c->shared_uuid,
		path, NULL,
	};
	char *out = NULL, *err = NULL, *msg;
	size_t len;
	int ret = -1, st;

	/* o2cb's names are letters and digits: the '-'s go. */
	for (to = from = strchr(name, '=') + 1; *from; from++)
		if (*from != '-')
			*to++ = *from;
	*to = '\0';
	if (make_sparse(path, c->shared_mib))
		goto out;
	st = rc_run(argv, &out, &err);
	if (st == 127 && !in_path(MKFS_OCFS2)) {
		rc_err(MKFS_OCFS2_MISSING);
	} else if (st) {
		msg = err && *err ? err : out;
		len = msg ? strlen(msg) : 0;
		while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
			msg[--len] = '\0';
		rc_err("mkfs.ocfs2 %s failed (exit %d): %s", path, st,
		       len ? msg : "(no message)");
	} else {
		ret = 0;
	}
out:
	free(out);
	free(err);
	free(name);
	free(path);
	return ret;
}

static int make_disks(const struct rc_cluster *c, const char *state)
{
	int i;

	for (i = 0; i < c->nr_nodes; i++) {
		const struct rc_node *n = &c->nodes[i];

		if (n->swap_mib &&
		    make_disk(state, n, "swap", n->swap_mib, false))
			return -1;
		if (n->data_mib &&
		    make_disk(state, n, "data", n->data_mib, true))
			return -1;
	}
	if (c->shared_mib && make_shared(c, state))
		return -1;
	return 0;
}

/* The first node that boots IMAGE, or NULL. */
static const struct rc_node *first_with_image(const struct rc_cluster *c,
					      enum rc_image image)
{
	int i;

	for (i = 0; i < c->nr_nodes; i++)
		if (c->nodes[i].image == image)
			return &c->nodes[i];
	return NULL;
}

/* STATE/KFILE = KSRC, STATE/IFILE = ISRC + etc/ramster.conf. */
static int copy_image(const struct rc_cluster *c, const struct rc_opts *o,
		      const char *ksrc, const char *kfile, const char *isrc,
		      const char *ifile)
{
	char *kernel = rc_xasprintf("%s/%s", o->state, kfile);
	char *initrd = rc_xasprintf("%s/%s", o->state, ifile);
	int ret = -1;

	if (!rc_copy_file(ksrc, kernel, 0644) &&
	    !rc_build_initrd(c, isrc, initrd))
		ret = 0;
	free(kernel);
	free(initrd);
	return ret;
}

/*
 * The cluster key (key_file's, or STATE/cluster.key's, made if need be),
 * kernels, initrds with ramster.conf (the project's image, and Debian's
 * kernel and its image if a node has image = stock: every node gets the
 * same conf and key), rendered XML and disks.
 */
static int prepare_state(struct rc_cluster *c, const struct rc_opts *o)
{
	bool made;

	if (make_state_dir(o->state))
		return -1;
	if (c->key_file) {
		printf("cluster key from key_file %s\n", c->key_file);
	} else {
		if (rc_key_state(c, o->state, &made))
			return -1;
		printf("cluster key in %s/%s (%s)\n", o->state,
		       RC_KEY_STATE_FILE, made ? "made now" :
		       "kept from an earlier up");
	}
	if (rc_render_dir(c, o->tmpl, o->state, o->state))
		return -1;
	if (copy_image(c, o, o->kernel, RC_KERNEL_FILE, o->initrd,
		       RC_INITRD_FILE))
		return -1;
	if (first_with_image(c, RC_IMAGE_STOCK) &&
	    copy_image(c, o, o->stock_kernel, RC_STOCK_KERNEL_FILE,
		       o->stock_initrd, RC_STOCK_INITRD_FILE))
		return -1;
	return make_disks(c, o->state);
}

/* Whether up has readable files for every image the nodes boot. */
static int check_images(const struct rc_cluster *c, const struct rc_opts *o)
{
	const struct rc_node *stock = first_with_image(c, RC_IMAGE_STOCK);
	const char *files[4];
	int i, n = 0;

	if (!o->kernel || !o->initrd) {
		rc_err("up needs the guest kernel and initramfs: pass -k BZIMAGE -i INITRD");
		return -1;
	}
	files[n++] = o->kernel;
	files[n++] = o->initrd;
	if (stock && (!o->stock_kernel || !o->stock_initrd)) {
		fprintf(stderr,
			"%s:%d: node %s has \"image = stock\", but up has no -K and -I for it; pass -K VMLINUZ -I INITRD: Debian's kernel and its image (make image-stock: build/stock/vmlinuz and build/stock/initramfs.cpio.gz)\n",
			c->file, stock->key_line[NK_IMAGE], stock->name);
		return -1;
	}
	if (stock) {
		files[n++] = o->stock_kernel;
		files[n++] = o->stock_initrd;
	}
	for (i = 0; i < n; i++) {
		if (access(files[i], R_OK)) {
			rc_err("cannot read %s: %s; pass an existing file",
			       files[i], strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Tear down what "up" did, in reverse order; failures are reported. */
static void undo_up(const struct rc_cluster *c, const struct rc_opts *o,
		    const struct up_state *us)
{
	char name[64];
	int i;

	for (i = c->nr_nodes - 1; i >= 0; i--) {
		rc_domain_name(c, &c->nodes[i], name, sizeof(name));
		if (us->dom_started[i])
			virsh1(o, "destroy", name, true);
		if (us->dom_defined[i])
			virsh1(o, "undefine", name, false);
	}
	rc_network_name(c, name, sizeof(name));
	if (us->net_started)
		virsh1(o, "net-destroy", name, true);
	if (us->net_defined)
		virsh1(o, "net-undefine", name, false);
}

static int define_all(const struct rc_cluster *c, const struct rc_opts *o,
		      struct up_state *us)
{
	char name[64], *xml;
	int i, ret;

	rc_network_name(c, name, sizeof(name));
	xml = rc_xasprintf("%s/network.xml", o->state);
	ret = virsh1(o, "net-define", xml, false);
	free(xml);
	if (ret)
		return -1;
	us->net_defined = true;
	if (virsh1(o, "net-start", name, false))
		return -1;
	us->net_started = true;

	for (i = 0; i < c->nr_nodes; i++) {
		xml = rc_xasprintf("%s/%s.xml", o->state, c->nodes[i].name);
		ret = virsh1(o, "define", xml, false);
		free(xml);
		if (ret)
			return -1;
		us->dom_defined[i] = true;
	}
	for (i = 0; i < c->nr_nodes; i++) {
		rc_domain_name(c, &c->nodes[i], name, sizeof(name));
		if (virsh1(o, "start", name, false))
			return -1;
		us->dom_started[i] = true;
	}
	return 0;
}

int rc_cmd_up(struct rc_cluster *c, const struct rc_opts *o)
{
	struct up_state us = { 0 };

	if (check_images(c, o))
		return RC_EXIT_BAD;
	/* Before libvirt is touched: up needs it only at the very end. */
	if (c->shared_mib && !in_path(MKFS_OCFS2)) {
		rc_err(MKFS_OCFS2_MISSING);
		return RC_EXIT_RUNTIME;
	}
	if (connect_check(o) || check_free(c, o) || prepare_state(c, o))
		return RC_EXIT_RUNTIME;
	if (define_all(c, o, &us)) {
		rc_err("bringing cluster %s up failed; undoing what was defined",
		       c->name);
		undo_up(c, o, &us);
		return RC_EXIT_RUNTIME;
	}
	printf("cluster %s is up: %d node%s, state in %s\n", c->name,
	       c->nr_nodes, c->nr_nodes == 1 ? "" : "s", o->state);
	return RC_EXIT_OK;
}

/* "virsh destroy" (if running) and "virsh undefine" one domain. */
static int down_domain(const struct rc_opts *o, const char *dom)
{
	char *state = NULL;

	if (rc_virsh(o->uri, &state, NULL, "domstate", dom, NULL)) {
		free(state);
		return 0;	/* not defined */
	}
	if (strncmp(state, "shut off", 8))
		virsh1(o, "destroy", dom, true);
	free(state);
	virsh1(o, "undefine", dom, false);
	if (dom_exists(o, dom)) {
		rc_err("domain %s is still defined", dom);
		return -1;
	}
	return 0;
}

int rc_cmd_down(const struct rc_cluster *c, const struct rc_opts *o)
{
	char name[64];
	int i, failed = 0;

	if (connect_check(o))
		return RC_EXIT_RUNTIME;
	for (i = 0; i < c->nr_nodes; i++) {
		rc_domain_name(c, &c->nodes[i], name, sizeof(name));
		failed |= down_domain(o, name);
	}
	rc_network_name(c, name, sizeof(name));
	if (net_exists(o, name)) {
		virsh1(o, "net-destroy", name, true);
		virsh1(o, "net-undefine", name, false);
		if (net_exists(o, name)) {
			rc_err("network %s is still defined", name);
			failed = 1;
		}
	}
	return failed ? RC_EXIT_RUNTIME : RC_EXIT_OK;
}

/* "running", "shut off", ... or "undefined". */
static char *dom_state(const struct rc_opts *o, const char *dom)
{
	char *out = NULL, *nl;

	if (rc_virsh(o->uri, &out, NULL, "domstate", dom, NULL)) {
		free(out);
		return rc_xstrdup("undefined");
	}
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	return out;
}

/* "active", "inactive" or "undefined", from "virsh net-info". */
static const char *net_state(const struct rc_opts *o, const char *net)
{
	char *out = NULL, *active;
	const char *state = "undefined";

	if (!rc_virsh(o->uri, &out, NULL, "net-info", net, NULL)) {
		state = "inactive";
		active = strstr(out, "Active:");
		if (active) {
			active += strlen("Active:");
			active += strspn(active, " \t");
			if (!strncmp(active, "yes", 3))
				state = "active";
		}
	}
	free(out);
	return state;
}

/*
 * The uuid "up" gave the shared disk: the description's shared_uuid, or
 * else (one made at load) the one in STATE/ramster.conf, which "up" wrote
 * with the disk; "" if there is none there.
 */
static void state_shared_uuid(const struct rc_cluster *c, const char *state,
			      char uuid[RC_UUID_LEN + 1])
{
	static const char key[] = "\tshared_uuid = ";
	char *path, *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	uuid[0] = '\0';
	if (!c->shared_uuid_generated) {
		memcpy(uuid, c->shared_uuid, RC_UUID_LEN + 1);
		return;
	}
	path = rc_xasprintf("%s/ramster.conf", state);
	f = fopen(path, "r");
	free(path);
	if (!f)
		return;
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!strncmp(line, key, sizeof(key) - 1) &&
		    rc_uuid_valid(line + sizeof(key) - 1)) {
			memcpy(uuid, line + sizeof(key) - 1, RC_UUID_LEN + 1);
			break;
		}
	}
	free(line);
	fclose(f);
}

/* "shared disk STATE/shared.img: N MiB, uuid UUID, on NODE ..." */
static void print_shared(const struct rc_cluster *c, const char *state)
{
	char uuid[RC_UUID_LEN + 1];
	int i;

	if (!c->shared_mib)
		return;
	state_shared_uuid(c, state, uuid);
	printf("shared disk %s/%s: %lu MiB, uuid %s, on", state,
	       RC_SHARED_FILE, c->shared_mib,
	       uuid[0] ? uuid : "- (not in the state directory's ramster.conf)");
	for (i = 0; i < c->nr_nodes; i++)
		if (c->nodes[i].role == RC_ROLE_CLIENT)
			printf(" %s", c->nodes[i].name);
	printf("\n");
}

/*
 * The table, then each node's newest STATUS counters.  Without libvirt
 * the states read "unknown" and the exit status is 1, but the counters,
 * which come from the state directory, are still shown.
 */
int rc_cmd_status(const struct rc_cluster *c, const struct rc_opts *o)
{
	bool reached = !connect_check(o);
	char name[64], ip[16], *state;
	int i;

	printf("%-12s %-6s %-13s %-10s %-9s %s\n", "NODE", "NUMBER", "ROLE",
	       "STATE", "MEMORY", "ADDRESS");
	for (i = 0; i < c->nr_nodes; i++) {
		const struct rc_node *n = &c->nodes[i];

		rc_domain_name(c, n, name, sizeof(name));
		rc_format_ip(n->ip, ip);
		state = reached ? dom_state(o, name) : rc_xstrdup("unknown");
		printf("%-12s %-6u %-13s %-10s %5lu MiB %s/%u\n", n->name,
		       n->number, rc_role_name(n->role), state, n->memory_mib,
		       ip, c->prefix);
		free(state);
	}
	rc_network_name(c, name, sizeof(name));
	printf("network %s: %s\n", name,
	       reached ? net_state(o, name) : "unknown");
	print_shared(c, o->state);
	rc_print_counters(c, o->state);
	return reached ? RC_EXIT_OK : RC_EXIT_RUNTIME;
}

/* console NODE / results NODE: print STATE/NODE.WHAT.log. */
int rc_cmd_cat(const struct rc_cluster *c, const struct rc_opts *o,
	       const char *node, const char *what)
{
	char *path;
	int i, ret;

	for (i = 0; i < c->nr_nodes; i++)
		if (!strcmp(c->nodes[i].name, node))
			break;
	if (i == c->nr_nodes) {
		rc_err("no node \"%s\" in %s; name one of its node: stanzas",
		       node, c->file);
		return RC_EXIT_BAD;
	}
	path = rc_xasprintf("%s/%s.%s.log", o->state, node, what);
	ret = rc_cat_file(path);
	free(path);
	return ret ? RC_EXIT_RUNTIME : RC_EXIT_OK;
}
