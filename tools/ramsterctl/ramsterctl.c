// SPDX-License-Identifier: GPL-2.0
/*
 * ramsterctl - set up, tear down and show the r2net cluster in configfs
 * from /etc/ramster.conf, and on a memory server let the clients use the
 * cluster's shared pool (share).  See usage() for the commands.
 *
 * configure checks everything before it writes anything, then writes in
 * the order r2net's node manager enforces (the cluster's timeouts that the
 * conf gives, keepalive_delay_ms and idle_timeout_ms in an order that keeps
 * keepalive below idle at every step; then cluster_key; then ipv4_port,
 * ipv4_address, num for every node; then local = 1 for this node last,
 * which r2net refuses until the key is there).  If a step fails it undoes
 * what it created, newest first, so nothing is left half set up.
 *
 * The cluster key is secret: it goes to configfs (write-only there) and
 * nowhere else, in no message; a failed write names the attribute only.
 * configure only ever writes a cluster it has just created (it refuses
 * one that exists), so r2net's EBUSY for a key written to a live cluster
 * cannot happen; were the write refused anyway, configure undoes
 * everything as for any refused write.
 *
 * status adds each node's role from the conf, its connection state and
 * counters from r2net's debugfs files, and then what this node does with
 * tmem: the store's counters and its clients (ramster_backend's debugfs),
 * or its target and what it sent (ramster_frontend's).  It shows '-' for
 * anything that is not there and '?' for what it cannot make sense of.
 *
 * ROOT need not be configfs (the host tests use a plain directory): there
 * the attribute files do not exist beforehand, so they are created on
 * write, recorded, and removed again on undo and by unconfigure.  Nor
 * need the debugfs DIR be debugfs.
 */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "conf.h"

#define DEFAULT_CONF	"/etc/ramster.conf"
#define DEFAULT_ROOT	"/sys/kernel/config/r2net"
#define DEFAULT_DEBUGFS	"/sys/kernel/debug/r2net"
#define DEFAULT_DEBUGFS_MOUNT	"/sys/kernel/debug"
#define DEFAULT_MODULES	"/sys/module"
#define CONFIGFS_MAGIC	0x62656570

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

static const char *prog = "ramsterctl";
static const char key_attr[] = "cluster_key";
static int on_configfs;

static void usage(FILE *f)
{
	fprintf(f,
"usage: ramsterctl [-c CONF] [-n NODE] [-r ROOT] configure\n"
"       ramsterctl [-r ROOT] unconfigure\n"
"       ramsterctl [-c CONF] [-r ROOT] [-d DIR] [-D DIR] [-M DIR] [-v] status\n"
"       ramsterctl [-c CONF] [-n NODE] [-M DIR] share [--deny]\n"
"       ramsterctl --help\n"
"\n"
"Sets up the r2net cluster (r2net.ko's configfs node manager) from\n"
"ramster.conf.\n"
"\n"
"  -c CONF   cluster configuration (default " DEFAULT_CONF ")\n"
"  -n NODE   this machine's node name, for configure and share (default:\n"
"            the hostname)\n"
"  -r ROOT   r2net's configfs directory (default " DEFAULT_ROOT ")\n"
"  -d DIR    r2net's debugfs directory, for status (default\n"
"            " DEFAULT_DEBUGFS ", or r2net under -D's DIR)\n"
"  -D DIR    where debugfs is mounted, for status: the counters of\n"
"            ramster_backend and ramster_frontend are in DIR/ramster_backend\n"
"            and DIR/ramster_frontend (default " DEFAULT_DEBUGFS_MOUNT ")\n"
"  -M DIR    where the modules' parameters are, for status and share\n"
"            (default " DEFAULT_MODULES "; ramster_frontend's target, mode and\n"
"            replica are in DIR/ramster_frontend/parameters, ramster_backend's\n"
"            shared_auth in DIR/ramster_backend/parameters)\n"
"  -v        status: also every counter of every node and module\n"
"\n"
"configure    parse CONF; check that it has a cluster_key, that NODE is one\n"
"             of its nodes, that ROOT exists (r2net.ko is loaded) and that\n"
"             no cluster is there yet; then mkdir ROOT/CLUSTER; write those\n"
"             of idle_timeout_ms, keepalive_delay_ms and reconnect_delay_ms\n"
"             that CONF gives to ROOT/CLUSTER/ (in an order that keeps\n"
"             keepalive below idle at every write; the others keep r2net's\n"
"             defaults); write CONF's cluster_key to ROOT/CLUSTER/cluster_key\n"
"             (the key is shown nowhere); mkdir ROOT/CLUSTER/node/NAME for\n"
"             every node, write ipv4_port, ipv4_address and num of every\n"
"             node in that order, and last write 1 to NODE's local.  If\n"
"             any step fails, everything it created is removed again and\n"
"             the failed step and its error are printed.\n"
"unconfigure  write 0 to local, rmdir every node and the cluster.\n"
"status       print the cluster, its idle_timeout_ms, keepalive_delay_ms\n"
"             and reconnect_delay_ms, then one line per node: name, num,\n"
"             role (from CONF; '-' if CONF cannot be read or does not\n"
"             have the node), address:port, \"local\" for this node, and\n"
"             from r2net's debugfs (DIR/nodes/NUM) its connection state\n"
"             (down, connecting, handshake, up), messages and bytes\n"
"             sent/received, requests in flight, the average round trip in\n"
"             us, the sum of its rejected_* counters (bad frames received)\n"
"             and of its errors (timeouts + send_errors); '-' where r2net\n"
"             shows nothing (the local node, or debugfs not mounted).  Then\n"
"             the listener's counters (DIR/listener), if r2net shows them.\n"
"             Then what this node does with tmem, or \"(not loaded)\":\n"
"             as a memory server (ramster_backend): the store's\n"
"             stored_pages, pers_pages, eph_pages, evictions,\n"
"             compressed_bytes, pool_pages (the page frames it holds, and\n"
"             in MiB) and pages_per_frame (stored_pages / pool_pages), and\n"
"             a line per client node with pages here (its name from CONF,\n"
"             num, eph_pages, pers_pages, pools); as a client\n"
"             (ramster_frontend): its target, mode and replica, its swap\n"
"             pools, what it sent (remote_puts, remote_put_failures,\n"
"             remote_gets, remote_get_hits, remote_get_misses,\n"
"             remote_flushes, window_hits, lost_loads), cleancache's\n"
"             cc_puts, cc_put_failures, cc_puts_dropped, cc_gets,\n"
"             cc_get_hits, cc_get_misses, cc_flushes, its index's\n"
"             cc_get_index_misses (misses with no round trip) and\n"
"             cc_index_pages (pages the server may hold), the pages fetched\n"
"             ahead (cc_prefetches, cc_prefetch_hits, cc_prefetch_unused),\n"
"             and the average and largest round trips of puts and gets.\n"
"             A counter that cannot be read shows '-', one that is not a\n"
"             number '?'.  With -v, every counter of every node, then every\n"
"             counter file of the two modules.\n"
"share        on a memory server (NODE's role in CONF), let every client\n"
"             node of CONF use the cluster's shared pool, the one keyed by\n"
"             the shared disk's uuid (CONF's shared_uuid): write\n"
"             \"allow NUM UUID\" for each client to\n"
"             DIR/ramster_backend/parameters/shared_auth, one write a line,\n"
"             and print \"node NUM: allowed for shared pool UUID\".  With\n"
"             --deny, write \"deny NUM UUID\" instead.  Reading that file\n"
"             lists the clients allowed now, \"NUM UUID\" a line.  Needs\n"
"             a CONF with shared_uuid (the cluster description's\n"
"             shared_mib) and ramster_backend.ko loaded; every client is\n"
"             tried, and a refused write is printed with its error.\n"
"\n"
"Exit status: 0 done, 1 failed (nothing left half configured),\n"
"2 bad usage or bad CONF (errors name FILE:LINE).\n");
}

static void err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* snprintf into a PATH_MAX buffer; a path that does not fit is an error. */
static int mkpath(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Read a one-line attribute into @buf without its newline; "-" if absent. */
static void read_attr(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	snprintf(buf, size, "-");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0) {
		snprintf(buf, size, "-");
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0])
		snprintf(buf, size, "-");
}

/* The undo log: what configure created, to be removed newest first. */
struct undo {
	char path[PATH_MAX];
	int is_dir;
};

static struct undo *undo_log;
static size_t undo_nr, undo_cap;

static int undo_push(const char *path, int dir)
{
	if (undo_nr == undo_cap) {
		size_t cap = undo_cap ? 2 * undo_cap : 64;
		struct undo *u = realloc(undo_log, cap * sizeof(*u));

		if (!u)
			return -1;
		undo_log = u;
		undo_cap = cap;
	}
	snprintf(undo_log[undo_nr].path, PATH_MAX, "%s", path);
	undo_log[undo_nr].is_dir = dir;
	undo_nr++;
	return 0;
}

static void undo_all(void)
{
	int ok = 1;

	while (undo_nr) {
		struct undo *u = &undo_log[--undo_nr];

		if ((u->is_dir ? rmdir(u->path) : unlink(u->path)) && errno != ENOENT) {
			err("undo: cannot remove %s: %s", u->path, strerror(errno));
			ok = 0;
		}
	}
	if (!ok)
		err("undo was incomplete: remove what is listed above, or run 'ramsterctl unconfigure'");
}

static int do_mkdir(const char *path)
{
	if (mkdir(path, 0755)) {
		err("mkdir %s failed: %s", path, strerror(errno));
		return -1;
	}
	if (undo_push(path, 1)) {
		err("out of memory");
		rmdir(path);
		return -1;
	}
	return 0;
}

/*
 * Write "@val\n" to @path in one write(), as configfs wants.  A file
 * created (not on configfs) gets @mode.  @shown stands for @val in the
 * error message: NULL shows @val itself, as "'VAL'".
 */
static int write_attr_as(const char *path, const char *val, const char *shown,
			 int log, mode_t mode)
{
	char buf[RCONF_KEY_HEX + 2], quoted[RCONF_KEY_HEX + 4];
	struct stat st;
	int created = 0, fd, n, e;
	ssize_t w;

	n = snprintf(buf, sizeof(buf), "%s\n", val);
	if (n < 0 || n >= (int)sizeof(buf)) {
		e = EINVAL;
		goto fail;
	}
	if (!on_configfs && stat(path, &st) && errno == ENOENT)
		created = 1;
	fd = open(path, O_WRONLY | (on_configfs ? 0 : O_CREAT | O_TRUNC), mode);
	if (fd < 0) {
		e = errno;
		goto fail;
	}
	if (created && log && undo_push(path, 0)) {
		close(fd);
		unlink(path);
		err("out of memory");
		return -1;
	}
	w = write(fd, buf, n);
	e = errno;
	explicit_bzero(buf, sizeof(buf));
	if (close(fd) && w == n) {
		e = errno;
		w = -1;
	}
	if (w == n)
		return 0;
	if (w >= 0)
		e = EIO;
fail:
	explicit_bzero(buf, sizeof(buf));
	if (!shown) {
		snprintf(quoted, sizeof(quoted), "'%s'", val);
		shown = quoted;
	}
	err("writing %s to %s failed: %s%s", shown, path, strerror(e),
	    on_configfs ? " (dmesg says why r2net refused it)" : "");
	return -1;
}

static int write_attr(const char *path, const char *val, int log)
{
	return write_attr_as(path, val, NULL, log, 0644);
}

/*
 * The clusters under @root: call @fn for each directory.  Returns the
 * number found, or -1 if @root cannot be read.
 */
static int for_each_dir(const char *dir, int (*fn)(const char *dir,
						   const char *name, void *arg),
			void *arg)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	char path[PATH_MAX];
	int n = 0, ret = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (mkpath(path, "%s/%s", dir, de->d_name) || !is_dir(path))
			continue;
		n++;
		if (fn && fn(dir, de->d_name, arg))
			ret = -1;
	}
	closedir(d);
	return ret ? -1 : n;
}

static int check_root(const char *root)
{
	struct statfs sfs;

	if (!is_dir(root)) {
		err("%s does not exist: load r2net.ko first (insmod r2net.ko), and mount configfs on /sys/kernel/config",
		    root);
		return -1;
	}
	on_configfs = statfs(root, &sfs) == 0 &&
		      (unsigned long)sfs.f_type == CONFIGFS_MAGIC;
	return 0;
}

/* Sets *(char **)arg to a malloc'd name of a node whose local reads 1. */
static int find_local(const char *dir, const char *name, void *arg)
{
	char path[PATH_MAX], v[32];

	if (mkpath(path, "%s/%s/local", dir, name))
		return 0;
	read_attr(path, v, sizeof(v));
	if (!strcmp(v, "1") && !*(char **)arg)
		*(char **)arg = strdup(name);
	return 0;
}

static int refuse_existing(const char *root, const char *name, void *arg)
{
	char nodes[PATH_MAX];
	char *local = NULL;

	(void)arg;
	if (!mkpath(nodes, "%s/%s/node", root, name))
		for_each_dir(nodes, find_local, &local);
	if (local)
		err("cluster %s is already configured (node %s is local); ramsterctl unconfigure first",
		    name, local);
	else
		err("cluster %s already exists in %s, not fully configured; ramsterctl unconfigure first",
		    name, root);
	free(local);
	return -1;
}

/* A cluster timeout to write. */
struct timeout {
	const char *attr;
	unsigned int ms;
};

/*
 * The timeouts @c gives, in an order r2net takes: it refuses any write that
 * would leave keepalive_delay_ms >= idle_timeout_ms.  The values in effect
 * now are r2net's defaults (a new cluster), or what @cdir's idle_timeout_ms
 * reads.  If the new keepalive is below the idle timeout now, write it first
 * (then the new idle, above it); otherwise the new keepalive is at or above
 * the idle timeout now, so the new idle, above the new keepalive, is above
 * the keepalive now: write idle first.  The conf parser made sure the new
 * keepalive is below the new idle (or the default idle when only keepalive
 * is given, and the reverse).  reconnect_delay_ms has no rule; it goes last.
 * Returns how many were put in @t.
 */
static unsigned int timeouts_in_order(const struct rconf *c, const char *cdir,
				      struct timeout t[3])
{
	char path[PATH_MAX], v[32];
	unsigned long idle_now = RCONF_IDLE_TIMEOUT_MS_DEFAULT;
	struct timeout idle = { "idle_timeout_ms", c->idle_timeout_ms };
	struct timeout ka = { "keepalive_delay_ms", c->keepalive_delay_ms };
	unsigned int n = 0;
	char *end;

	if (!mkpath(path, "%s/idle_timeout_ms", cdir)) {
		read_attr(path, v, sizeof(v));
		if (strcmp(v, "-")) {
			unsigned long x = strtoul(v, &end, 10);

			if (!*end && x)
				idle_now = x;
		}
	}
	if (c->keepalive_delay_line && c->keepalive_delay_ms < idle_now) {
		t[n++] = ka;
		if (c->idle_timeout_line)
			t[n++] = idle;
	} else {
		if (c->idle_timeout_line)
			t[n++] = idle;
		if (c->keepalive_delay_line)
			t[n++] = ka;
	}
	if (c->reconnect_delay_line) {
		t[n].attr = "reconnect_delay_ms";
		t[n++].ms = c->reconnect_delay_ms;
	}
	return n;
}

/*
 * This machine's node in @c: @node (-n), else the one named like the
 * hostname.  Returns 0 with *@me set, or the exit status after saying what
 * to do.
 */
static int this_node(const struct rconf *c, const char *conf_path,
		     const char *node, const struct rconf_node **me)
{
	const char *who = "-n";
	char host[256];
	unsigned int i;

	*me = NULL;
	if (!node) {
		if (gethostname(host, sizeof(host))) {
			err("cannot get the hostname: %s; pass -n NODE", strerror(errno));
			return EXIT_RUNTIME;
		}
		host[sizeof(host) - 1] = '\0';
		node = host;
		who = "the hostname";
	}
	for (i = 0; i < c->nr_nodes; i++)
		if (!strcmp(c->nodes[i].name, node))
			*me = &c->nodes[i];
	if (*me)
		return 0;
	fprintf(stderr, "%s: this node '%s' (from %s) is not a node of %s; its nodes are:",
		prog, node, who, conf_path);
	for (i = 0; i < c->nr_nodes; i++)
		fprintf(stderr, " %s", c->nodes[i].name);
	fprintf(stderr, "; pass -n NODE or fix the conf\n");
	return EXIT_USAGE;
}

static int cmd_configure(const char *conf_path, const char *node,
			 const char *root)
{
	struct timeout tmo[3];
	char cdir[PATH_MAX], ndir[PATH_MAX], path[PATH_MAX];
	char val[32];
	struct rconf_err cerr;
	struct rconf *c;
	const struct rconf_node *me;
	unsigned int i, nt;
	int ret = EXIT_RUNTIME;

	c = rconf_load(conf_path, &cerr);
	if (!c) {
		fprintf(stderr, "%s\n", cerr.text);
		return EXIT_USAGE;
	}
	if (!c->cluster_key[0]) {
		err("%s has no cluster_key: r2net will not start without one; `ramster-cluster up` writes it (or add \"cluster_key = KEY\" to its cluster: stanza, KEY from `ramster-cluster keygen`, the same on every node)",
		    conf_path);
		ret = EXIT_USAGE;
		goto out;
	}
	ret = this_node(c, conf_path, node, &me);
	if (ret)
		goto out;
	ret = EXIT_RUNTIME;
	if (check_root(root))
		goto out;
	i = for_each_dir(root, NULL, NULL);
	if ((int)i < 0) {
		err("cannot read %s: %s", root, strerror(errno));
		goto out;
	}
	if (i) {
		for_each_dir(root, refuse_existing, NULL);
		goto out;
	}
	if (mkpath(cdir, "%s/%s", root, c->name) ||
	    mkpath(ndir, "%s/node", cdir)) {
		err("%s/%s: path too long", root, c->name);
		goto out;
	}

	/* Everything checked: now create, undoing all of it on failure. */
	if (do_mkdir(cdir))
		goto undo;
	if (!is_dir(ndir) && do_mkdir(ndir))	/* configfs makes it itself */
		goto undo;
	nt = timeouts_in_order(c, cdir, tmo);
	for (i = 0; i < nt; i++) {
		snprintf(val, sizeof(val), "%u", tmo[i].ms);
		if (mkpath(path, "%s/%s", cdir, tmo[i].attr)) {
			err("writing '%s' to %s/%s failed: %s", val, cdir,
			    tmo[i].attr, strerror(errno));
			goto undo;
		}
		if (write_attr(path, val, 1))
			goto undo;
	}
	/* The key, before any node can be local: r2net refuses local without. */
	if (mkpath(path, "%s/%s", cdir, key_attr)) {
		err("writing the cluster key to %s/%s failed: %s", cdir,
		    key_attr, strerror(errno));
		goto undo;
	}
	if (write_attr_as(path, c->cluster_key, "the cluster key", 1, 0600))
		goto undo;
	if (c->security[0]) {
		if (mkpath(path, "%s/security", cdir)) {
			err("%s/security: path too long", cdir);
			goto undo;
		}
		if (write_attr(path, c->security, 1))
			goto undo;
	}
	for (i = 0; i < c->nr_nodes; i++) {
		if (mkpath(path, "%s/%s", ndir, c->nodes[i].name)) {
			err("%s/%s: path too long", ndir, c->nodes[i].name);
			goto undo;
		}
		if (do_mkdir(path))
			goto undo;
	}
	for (i = 0; i < c->nr_nodes; i++) {
		const struct rconf_node *n = &c->nodes[i];
		static const char *const attr[] = { "ipv4_port", "ipv4_address", "num" };
		unsigned int a;

		for (a = 0; a < 3; a++) {
			if (a == 0)
				snprintf(val, sizeof(val), "%u", n->port);
			else if (a == 1)
				snprintf(val, sizeof(val), "%s", n->ip_address);
			else
				snprintf(val, sizeof(val), "%u", n->number);
			if (mkpath(path, "%s/%s/%s", ndir, n->name, attr[a])) {
				err("writing '%s' to %s/%s/%s failed: %s", val, ndir,
				    n->name, attr[a], strerror(errno));
				goto undo;
			}
			if (write_attr(path, val, 1))
				goto undo;
		}
	}
	if (mkpath(path, "%s/%s/local", ndir, me->name)) {
		err("writing '1' to %s/%s/local failed: %s", ndir, me->name,
		    strerror(errno));
		goto undo;
	}
	if (write_attr(path, "1", 1))
		goto undo;
	printf("cluster %s: %u nodes, this node is %s (num %u)", c->name,
	       c->nr_nodes, me->name, me->number);
	for (i = 0; i < nt; i++)
		printf("%s %s %u", i ? "," : ";", tmo[i].attr, tmo[i].ms);
	printf("\n");
	ret = 0;
	goto out;
undo:
	undo_all();
	err("nothing was configured; %s was removed again", cdir);
out:
	free(undo_log);
	undo_log = NULL;
	undo_nr = undo_cap = 0;
	rconf_free(c);
	return ret;
}

/*
 * share [--deny]: on a memory server, allow (deny) every client node of
 * the conf the cluster's shared pool, the one keyed by shared_uuid: write
 * "allow NUM UUID" ("deny NUM UUID") to ramster_backend's shared_auth
 * parameter, one write() a line, as the module parses one line a write.
 * Every client is tried; the exit status is 1 if any write was refused.
 */
#define SHARED_AUTH	"ramster_backend/parameters/shared_auth"

static int write_auth(const char *path, const char *line)
{
	size_t len = strlen(line);
	ssize_t w;
	int fd, e;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	w = write(fd, line, len);
	e = w < 0 ? errno : EIO;
	if (close(fd) && w == (ssize_t)len) {
		e = errno;
		w = -1;
	}
	return w == (ssize_t)len ? 0 : e;
}

static int cmd_share(const char *conf_path, const char *node,
		     const char *modules, int deny)
{
	const char *verb = deny ? "deny" : "allow";
	const struct rconf_node *me, *n;
	char path[PATH_MAX], dir[PATH_MAX], line[128];
	unsigned int i, clients = 0;
	struct rconf_err cerr;
	struct rconf *c;
	struct stat st;
	int ret, e;

	c = rconf_load(conf_path, &cerr);
	if (!c) {
		fprintf(stderr, "%s\n", cerr.text);
		return EXIT_USAGE;
	}
	ret = EXIT_USAGE;
	if (!c->shared_uuid[0]) {
		err("%s has no shared_uuid: the cluster has no shared disk: add shared_mib to its description (the cluster: stanza ramster-cluster reads) and bring it up again",
		    conf_path);
		goto out;
	}
	ret = this_node(c, conf_path, node, &me);
	if (ret)
		goto out;
	ret = EXIT_USAGE;
	if (me->role != RCONF_ROLE_MEMORY_SERVER) {
		err("this node %s is a %s (%s:%u), not a memory server; run share on a memory server, the node that keeps the shared pool",
		    me->name, rconf_role_name(me->role), conf_path, me->line);
		goto out;
	}
	for (i = 0; i < c->nr_nodes; i++)
		clients += c->nodes[i].role == RCONF_ROLE_CLIENT;
	if (!clients) {
		err("%s has no client node to %s the shared pool", conf_path,
		    verb);
		goto out;
	}
	ret = EXIT_RUNTIME;
	if (mkpath(path, "%s/%s", modules, SHARED_AUTH)) {
		err("%s/%s: path too long", modules, SHARED_AUTH);
		goto out;
	}
	if (stat(path, &st)) {
		e = errno;
		if (e != ENOENT)
			err("cannot reach %s: %s", path, strerror(e));
		else if (mkpath(dir, "%s/ramster_backend", modules) || !is_dir(dir))
			err("%s does not exist: load ramster_backend.ko first (insmod ramster_backend.ko, after r2net.ko)",
			    path);
		else
			err("%s does not exist: this ramster_backend.ko has no shared pools; load one that has",
			    path);
		goto out;
	}
	ret = 0;
	for (i = 0; i < c->nr_nodes; i++) {
		n = &c->nodes[i];
		if (n->role != RCONF_ROLE_CLIENT)
			continue;
		snprintf(line, sizeof(line), "%s %u %s\n", verb, n->number,
			 c->shared_uuid);
		e = write_auth(path, line);
		if (e) {
			err("writing '%s %u %s' to %s failed: %s (dmesg says why ramster_backend refused it)",
			    verb, n->number, c->shared_uuid, path, strerror(e));
			ret = EXIT_RUNTIME;
			continue;
		}
		printf("node %u: %s for shared pool %s\n", n->number,
		       deny ? "denied" : "allowed", c->shared_uuid);
	}
out:
	rconf_free(c);
	return ret;
}

/* On plain directories (tests), remove the attribute files too. */
static int remove_files(const char *dir)
{
	struct dirent *de;
	char path[PATH_MAX];
	struct stat st;
	int ret = 0;
	DIR *d;

	if (on_configfs)
		return 0;
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (mkpath(path, "%s/%s", dir, de->d_name) || lstat(path, &st))
			continue;
		if (S_ISREG(st.st_mode) && unlink(path)) {
			err("cannot remove %s: %s", path, strerror(errno));
			ret = -1;
		}
	}
	closedir(d);
	return ret;
}

static int unconf_node(const char *dir, const char *name, void *arg)
{
	char path[PATH_MAX], v[32];

	(void)arg;
	if (mkpath(path, "%s/%s/local", dir, name))
		return -1;
	read_attr(path, v, sizeof(v));
	if (!strcmp(v, "1") && write_attr(path, "0", 0))
		return -1;
	if (mkpath(path, "%s/%s", dir, name) || remove_files(path))
		return -1;
	if (rmdir(path)) {
		err("rmdir %s failed: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int unconf_cluster(const char *root, const char *name, void *arg)
{
	char cdir[PATH_MAX], ndir[PATH_MAX];

	(void)arg;
	if (mkpath(cdir, "%s/%s", root, name) || mkpath(ndir, "%s/node", cdir))
		return -1;
	/* Clear local first, so no node is live while the rest goes. */
	if (is_dir(ndir) && for_each_dir(ndir, unconf_node, NULL) < 0)
		return -1;
	if (!on_configfs && (remove_files(cdir) || (is_dir(ndir) && rmdir(ndir)))) {
		err("cannot remove %s: %s", ndir, strerror(errno));
		return -1;
	}
	if (rmdir(cdir)) {
		err("rmdir %s failed: %s", cdir, strerror(errno));
		return -1;
	}
	printf("cluster %s removed\n", name);
	return 0;
}

static int cmd_unconfigure(const char *root)
{
	int n;

	if (check_root(root))
		return EXIT_RUNTIME;
	n = for_each_dir(root, unconf_cluster, NULL);
	if (n < 0) {
		err("unconfigure did not finish; see above, then run it again");
		return EXIT_RUNTIME;
	}
	if (n == 0)
		printf("no cluster configured in %s\n", root);
	return 0;
}

/*
 * r2net's debugfs files (nodes/<num>, listener): lines "name value".  What
 * cannot be read, or a line that is not "name value" in printable ASCII, is
 * left out; status shows '-' for what is missing.
 */
#define STATS_MAX	96
#define STATS_FILE_MAX	16384

struct stat_line {
	char name[48];
	char value[48];
};

struct stats {
	int present;			/* the file could be read */
	size_t nr;
	struct stat_line v[STATS_MAX];
};

static int printable(const char *s)
{
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return 0;
	return 1;
}

static void read_stats(const char *path, struct stats *st)
{
	char *buf, *line, *save = NULL;
	size_t len = 0;
	ssize_t n;
	int fd;

	st->present = 0;
	st->nr = 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	buf = malloc(STATS_FILE_MAX + 1);
	if (!buf) {
		close(fd);
		return;
	}
	/* debugfs seq files: read until the end, in as many reads as it takes */
	while (len < STATS_FILE_MAX &&
	       (n = read(fd, buf + len, STATS_FILE_MAX - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	st->present = 1;
	for (line = strtok_r(buf, "\n", &save); line && st->nr < STATS_MAX;
	     line = strtok_r(NULL, "\n", &save)) {
		struct stat_line *sl = &st->v[st->nr];
		char name[sizeof(sl->name)], value[sizeof(sl->value)], rest;

		if (sscanf(line, "%47s %47s %c", name, value, &rest) != 2 ||
		    !printable(name) || !printable(value))
			continue;
		memcpy(sl->name, name, sizeof(name));
		memcpy(sl->value, value, sizeof(value));
		st->nr++;
	}
	free(buf);
}

static const char *stat_get(const struct stats *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		if (!strcmp(st->v[i].name, name))
			return st->v[i].value;
	return NULL;
}

/* A counter as a number: 0 with *v set, or -1 if absent or not a number. */
static int stat_num(const struct stats *st, const char *name, long long *v)
{
	const char *s = stat_get(st, name);
	char *end;

	if (!s)
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return end == s || *end || errno ? -1 : 0;
}

/*
 * The sum of the counters named @names (NULL-terminated), or of those
 * whose names start with @prefix; "-" if there is none of them.
 */
static void stat_sum(const struct stats *st, const char *const *names,
		     const char *prefix, char *out, size_t size)
{
	long long sum = 0, v;
	int found = 0;
	size_t i;

	for (i = 0; names && names[i]; i++) {
		if (!stat_num(st, names[i], &v)) {
			sum += v;
			found = 1;
		}
	}
	for (i = 0; prefix && i < st->nr; i++) {
		if (strncmp(st->v[i].name, prefix, strlen(prefix)) ||
		    stat_num(st, st->v[i].name, &v))
			continue;
		sum += v;
		found = 1;
	}
	if (found)
		snprintf(out, size, "%lld", sum);
	else
		snprintf(out, size, "-");
}

/* "TX/RX" from two counters; "-" if neither is there. */
static void stat_pair(const struct stats *st, const char *tx, const char *rx,
		      char *out, size_t size)
{
	const char *a = stat_get(st, tx), *b = stat_get(st, rx);

	if (!a && !b)
		snprintf(out, size, "-");
	else
		snprintf(out, size, "%s/%s", a ? a : "-", b ? b : "-");
}

static const char *stat_or_dash(const struct stats *st, const char *name)
{
	const char *v = stat_get(st, name);

	return v ? v : "-";
}

struct st_node {
	char name[NAME_MAX + 1];
	char num[16], addr[32], port[16], local[8];
	const char *role;
	long sort;
	struct stats stats;
};

struct st_list {
	struct st_node *v;
	size_t nr, cap;
	const char *debugfs;
	const struct rconf *conf;	/* NULL if it could not be read */
};

/* The conf's node named @name, or NULL. */
static const struct rconf_node *conf_node(const struct rconf *c,
					  const char *name)
{
	unsigned int i;

	for (i = 0; c && i < c->nr_nodes; i++)
		if (!strcmp(c->nodes[i].name, name))
			return &c->nodes[i];
	return NULL;
}

static int st_collect(const char *dir, const char *name, void *arg)
{
	struct st_list *l = arg;
	const struct rconf_node *cn;
	struct st_node *n;
	char path[PATH_MAX], *end;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct st_node *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	n = &l->v[l->nr++];
	snprintf(n->name, sizeof(n->name), "%s", name);
#define ATTR(field, file) \
	do { \
		if (mkpath(path, "%s/%s/" file, dir, name)) \
			snprintf(n->field, sizeof(n->field), "-"); \
		else \
			read_attr(path, n->field, sizeof(n->field)); \
	} while (0)
	ATTR(num, "num");
	ATTR(addr, "ipv4_address");
	ATTR(port, "ipv4_port");
	ATTR(local, "local");
#undef ATTR
	cn = conf_node(l->conf, name);
	n->role = cn ? rconf_role_name(cn->role) : "-";
	n->sort = strtol(n->num, &end, 10);
	if (end == n->num || *end || n->sort < 0)
		n->sort = 1000;		/* no number yet: last */
	/* r2net's counters for this node, by number (none for the local one) */
	n->stats.present = 0;
	n->stats.nr = 0;
	if (n->sort < 1000 && !mkpath(path, "%s/nodes/%ld", l->debugfs, n->sort))
		read_stats(path, &n->stats);
	return 0;
}

static int st_cmp(const void *a, const void *b)
{
	const struct st_node *x = a, *y = b;

	if (x->sort != y->sort)
		return x->sort < y->sort ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void st_print_node(const struct st_node *n)
{
	static const char *const errors[] = { "timeouts", "send_errors", NULL };
	const struct stats *st = &n->stats;
	char ap[64], msgs[48], bytes[48], rej[24], errs[24];

	snprintf(ap, sizeof(ap), "%s:%s", n->addr, n->port);
	stat_pair(st, "msgs_tx", "msgs_rx", msgs, sizeof(msgs));
	stat_pair(st, "bytes_tx", "bytes_rx", bytes, sizeof(bytes));
	stat_sum(st, NULL, "rejected_", rej, sizeof(rej));
	stat_sum(st, errors, NULL, errs, sizeof(errs));
	printf("%-20s %4s  %-13s  %-21s  %-5s  %-10s  %-15s  %-21s  %9s  %10s  %8s  %6s\n",
	       n->name, n->num, n->role, ap,
	       strcmp(n->local, "1") ? "" : "local",
	       stat_or_dash(st, "state"), msgs, bytes,
	       stat_or_dash(st, "in_flight"), stat_or_dash(st, "rtt_avg_us"),
	       rej, errs);
}

struct st_args {
	const char *debugfs;		/* r2net's */
	const char *mount;		/* where debugfs is mounted */
	const char *modules;		/* /sys/module */
	const struct rconf *conf;	/* NULL if it could not be read */
	int verbose;
	struct st_list kept;		/* the nodes of the first cluster */
};

/* The listener's counters on one line, when r2net shows them. */
static void st_print_listener(const char *debugfs)
{
	char path[PATH_MAX];
	struct stats *ls;
	size_t i;

	ls = malloc(sizeof(*ls));
	if (!ls || mkpath(path, "%s/listener", debugfs)) {
		free(ls);
		return;
	}
	read_stats(path, ls);
	if (ls->present) {
		printf("listener");
		for (i = 0; i < ls->nr; i++)
			printf("  %s %s", ls->v[i].name, ls->v[i].value);
		printf("\n");
	}
	free(ls);
}

/* With -v: every counter r2net shows for each node of @l. */
static void st_print_node_stats(const struct st_list *l)
{
	size_t i, j;

	for (i = 0; i < l->nr; i++) {
		const struct st_node *n = &l->v[i];

		if (!n->stats.present)
			continue;
		printf("node %s (num %s):\n", n->name, n->num);
		for (j = 0; j < n->stats.nr; j++)
			printf("  %-28s %s\n", n->stats.v[j].name,
			       n->stats.v[j].value);
	}
}

static int st_cluster(const char *root, const char *name, void *arg)
{
	struct st_args *a = arg;
	char path[PATH_MAX], idle[32], ka[32], rc[32];
	struct st_list l = { .debugfs = a->debugfs, .conf = a->conf };
	size_t i;

	if (mkpath(path, "%s/%s/idle_timeout_ms", root, name))
		return -1;
	read_attr(path, idle, sizeof(idle));
	mkpath(path, "%s/%s/keepalive_delay_ms", root, name);
	read_attr(path, ka, sizeof(ka));
	mkpath(path, "%s/%s/reconnect_delay_ms", root, name);
	read_attr(path, rc, sizeof(rc));
	printf("cluster %s  idle_timeout_ms %s  keepalive_delay_ms %s  reconnect_delay_ms %s\n",
	       name, idle, ka, rc);
	if (mkpath(path, "%s/%s/node", root, name) ||
	    (is_dir(path) && for_each_dir(path, st_collect, &l) < 0)) {
		free(l.v);
		err("cannot read the nodes of cluster %s", name);
		return -1;
	}
	if (l.nr)
		qsort(l.v, l.nr, sizeof(*l.v), st_cmp);
	printf("%-20s %4s  %-13s  %-21s  %-5s  %-10s  %-15s  %-21s  %9s  %10s  %8s  %6s\n",
	       "NODE", "NUM", "ROLE", "ADDRESS", "LOCAL", "STATE", "MSGS_TX/RX",
	       "BYTES_TX/RX", "IN_FLIGHT", "RTT_AVG_US", "REJECTED", "ERRORS");
	for (i = 0; i < l.nr; i++)
		st_print_node(&l.v[i]);
	st_print_listener(a->debugfs);
	/*
	 * r2net has one cluster: keep its nodes for the tmem sections and
	 * show -v's counters after them.  Any other is shown here whole.
	 */
	if (!a->kept.v && l.v) {
		a->kept = l;
		return 0;
	}
	if (a->verbose)
		st_print_node_stats(&l);
	free(l.v);
	return 0;
}

/*
 * The tmem modules' debugfs files.  A counter is a file holding one
 * decimal number and a newline.  '-': the file is not there or cannot be
 * read; '?': it holds something else.
 */
#define TMEM_FILE_MAX	16384

struct counter {
	char text[24];		/* the number, "-" or "?" */
	int ok;			/* text is a number, in v */
	long long v;
};

/*
 * Read up to @size - 1 bytes of @path into @buf, NUL-terminated, in as
 * many reads as it takes.  Returns the length, or -1 if it cannot be read.
 */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n = 0;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	if (len < size - 1 && n < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* A number: an optional '-', 1..19 digits, an optional newline. */
static int parse_number(const char *s, long long *v)
{
	const char *p = s + (*s == '-');
	size_t digits = strspn(p, "0123456789");
	char *end;

	if (!digits || digits > 19 || (p[digits] && strcmp(p + digits, "\n")))
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno ? -1 : 0;
}

static void read_counter(const char *dir, const char *name, struct counter *c)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;

	c->ok = 0;
	snprintf(c->text, sizeof(c->text), "-");
	if (mkpath(path, "%s/%s", dir, name))
		return;
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return;
	if (parse_number(buf, &c->v)) {
		snprintf(c->text, sizeof(c->text), "?");
		return;
	}
	c->ok = 1;
	snprintf(c->text, sizeof(c->text), "%lld", c->v);
}

/* "  NAME VALUE" for each of @names, on one line. */
static void print_counters(const char *dir, const char *const *names)
{
	struct counter c;

	for (; *names; names++) {
		read_counter(dir, *names, &c);
		printf("  %s %s", *names, c.text);
	}
	printf("\n");
}

static int file_exists(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	return !mkpath(path, "%s/%s", dir, name) && !lstat(path, &st);
}

/* The name of node @num: from the conf, else from r2net's configfs. */
static const char *node_name(const struct st_args *a, long long num)
{
	char s[24];
	size_t i;

	for (i = 0; a->conf && i < a->conf->nr_nodes; i++)
		if (a->conf->nodes[i].number == num)
			return a->conf->nodes[i].name;
	snprintf(s, sizeof(s), "%lld", num);
	for (i = 0; i < a->kept.nr; i++)
		if (!strcmp(a->kept.v[i].num, s))
			return a->kept.v[i].name;
	return "-";
}

/* Replace what is not printable ASCII in @s by '?'. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if (*s < ' ' || *s > '~')
			*s = '?';
}

/* The clients file: "NODE eph_pages N pers_pages N pools N" a line. */
static void st_backend_clients(const struct st_args *a, const char *dir)
{
	char path[PATH_MAX], *buf, *line, *save = NULL;
	unsigned long long eph, pers;
	unsigned int node, pools;
	char rest;

	buf = malloc(TMEM_FILE_MAX);
	if (!buf || mkpath(path, "%s/clients", dir) ||
	    read_file(path, buf, TMEM_FILE_MAX) < 0) {
		printf("  clients  -\n");
		free(buf);
		return;
	}
	if (!buf[strspn(buf, "\n ")]) {
		printf("  clients  none\n");
		free(buf);
		return;
	}
	printf("  %-20s %4s  %10s  %10s  %5s\n", "CLIENT", "NUM", "EPH_PAGES",
	       "PERS_PAGES", "POOLS");
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!isdigit((unsigned char)line[0]) || strchr(line, '-') ||
		    sscanf(line, "%u eph_pages %llu pers_pages %llu pools %u %c",
			   &node, &eph, &pers, &pools, &rest) != 4) {
			printf("  %-20s %4s  %10s  %10s  %5s\n", "?", "?", "?",
			       "?", "?");
			continue;
		}
		printf("  %-20s %4u  %10llu  %10llu  %5u\n",
		       node_name(a, node), node, eph, pers, pools);
	}
	free(buf);
}

/* A memory server: the store's totals and its clients. */
static void st_backend(const struct st_args *a)
{
	static const char *const totals[] = {
		"stored_pages", "pers_pages", "eph_pages", "evictions", NULL
	};
	struct counter stored, pool, comp;
	char dir[PATH_MAX], mib[32], ppf[32];
	long page = sysconf(_SC_PAGESIZE);

	if (mkpath(dir, "%s/ramster_backend", a->mount) || !is_dir(dir)) {
		printf("ramster_backend  (not loaded)\n");
		return;
	}
	printf("ramster_backend  memory server: the pages this node holds\n");
	print_counters(dir, totals);
	read_counter(dir, "stored_pages", &stored);
	read_counter(dir, "pool_pages", &pool);
	read_counter(dir, "compressed_bytes", &comp);
	if (page <= 0)
		page = 4096;
	snprintf(mib, sizeof(mib), "%s", pool.text);
	if (pool.ok && pool.v >= 0)
		snprintf(mib, sizeof(mib), "%.1f",
			 (double)pool.v * page / (1024 * 1024));
	/* '?' if either is, '-' if one is missing or there is no frame */
	if (stored.ok && pool.ok && pool.v > 0)
		snprintf(ppf, sizeof(ppf), "%.2f",
			 (double)stored.v / (double)pool.v);
	else
		snprintf(ppf, sizeof(ppf), "%s",
			 !strcmp(stored.text, "?") || !strcmp(pool.text, "?") ?
			 "?" : "-");
	printf("  compressed_bytes %s  pool_pages %s (%s MiB)  pages_per_frame %s\n",
	       comp.text, pool.text, mib, ppf);
	st_backend_clients(a, dir);
}

/* "NUM (NAME)" for a node number read from a parameter, else as read. */
static void param_node(const struct st_args *a, const char *v, char *out,
		       size_t size)
{
	long long num;

	if (!parse_number(v, &num) && num >= 0)
		snprintf(out, size, "%s (%s)", v, node_name(a, num));
	else
		snprintf(out, size, "%s", v);
}

/* The rtt file: "OP samples N avg_us N max_us N" a line. */
static void st_frontend_rtt(const char *dir)
{
	char path[PATH_MAX], buf[1024], *line, *save = NULL, op[16], rest;
	unsigned long long samples, avg;
	long long max;

	if (mkpath(path, "%s/rtt", dir) ||
	    read_file(path, buf, sizeof(buf)) < 0) {
		printf("  rtt  -\n");
		return;
	}
	printf("  rtt");
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%15s samples %llu avg_us %llu max_us %lld %c",
			   op, &samples, &avg, &max, &rest) != 4) {
			printf("  ?");
			continue;
		}
		sanitize(op);
		printf("  %s avg_us %llu max_us %lld", op, avg, max);
	}
	printf("\n");
}

/* ramster_frontend's parameter @name, or "-". */
static void read_param(const struct st_args *a, const char *name, char *buf,
		       size_t size)
{
	char path[PATH_MAX];

	snprintf(buf, size, "-");
	if (!mkpath(path, "%s/ramster_frontend/parameters/%s", a->modules,
		    name))
		read_attr(path, buf, size);
	sanitize(buf);
}

/* A client: its target, its swap pools and what it sent. */
static void st_frontend(const struct st_args *a)
{
	static const char *const swap[] = {
		"remote_puts", "remote_put_failures", "remote_gets",
		"remote_get_hits", "remote_get_misses", NULL
	};
	static const char *const more[] = {
		"remote_flushes", "window_hits", "lost_loads", NULL
	};
	static const char *const cc[] = {
		"cc_puts", "cc_put_failures", "cc_puts_dropped", "cc_gets",
		"cc_get_hits", "cc_get_misses", "cc_flushes", NULL
	};
	static const char *const cc_index[] = {
		"cc_get_index_misses", "cc_index_pages", NULL
	};
	static const char *const cc_prefetch[] = {
		"cc_prefetches", "cc_prefetch_hits", "cc_prefetch_unused", NULL
	};
	char dir[PATH_MAX], path[PATH_MAX], v[32], mode[32], target[96];
	char *buf, *line, *save = NULL;
	size_t i;

	if (mkpath(dir, "%s/ramster_frontend", a->mount) || !is_dir(dir)) {
		printf("ramster_frontend  (not loaded)\n");
		return;
	}
	read_param(a, "target", v, sizeof(v));
	param_node(a, v, target, sizeof(target));
	read_param(a, "mode", mode, sizeof(mode));
	printf("ramster_frontend  client: target %s  mode %s", target, mode);
	if (!strcmp(mode, "replicate")) {
		read_param(a, "replica", v, sizeof(v));
		param_node(a, v, target, sizeof(target));
		printf("  replica %s", target);
	}
	printf("\n");

	buf = malloc(TMEM_FILE_MAX);
	if (!buf || mkpath(path, "%s/swap_pools", dir) ||
	    read_file(path, buf, TMEM_FILE_MAX) < 0) {
		printf("  swap_pools  -\n");
	} else if (!buf[strspn(buf, "\n ")]) {
		printf("  swap_pools  none\n");
	} else {
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			sanitize(line);
			printf("  swap_pools  %s\n", line);
		}
	}
	free(buf);
	print_counters(dir, swap);
	print_counters(dir, more);
	for (i = 0; cc[i]; i++)
		if (file_exists(dir, cc[i]))
			break;
	if (cc[i])
		print_counters(dir, cc);
	if (file_exists(dir, cc_index[0]))
		print_counters(dir, cc_index);
	if (file_exists(dir, cc_prefetch[0]))
		print_counters(dir, cc_prefetch);
	st_frontend_rtt(dir);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* With -v: every file of @module's debugfs that holds one number. */
static void st_print_module_counters(const struct st_args *a,
				     const char *module)
{
	char dir[PATH_MAX], **names = NULL, **more;
	size_t nr = 0, cap = 0, i;
	struct dirent *de;
	struct counter c;
	DIR *d;

	if (mkpath(dir, "%s/%s", a->mount, module))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 64;
			more = realloc(names, cap * sizeof(*names));
			if (!more)
				break;
			names = more;
		}
		names[nr] = strdup(de->d_name);
		if (names[nr])
			nr++;
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), name_cmp);
	printf("%s:\n", module);
	for (i = 0; i < nr; i++) {
		read_counter(dir, names[i], &c);
		if (c.ok) {
			sanitize(names[i]);
			printf("  %-28s %s\n", names[i], c.text);
		}
		free(names[i]);
	}
	free(names);
}

static int cmd_status(const char *conf_path, const char *root,
		      const char *debugfs, const char *mount,
		      const char *modules, int verbose)
{
	struct st_args a = {
		.debugfs = debugfs, .mount = mount, .modules = modules,
		.verbose = verbose,
	};
	struct rconf_err cerr;
	struct rconf *c;
	int n, ret = 0;

	if (check_root(root))
		return EXIT_RUNTIME;
	c = rconf_load(conf_path, &cerr);
	if (!c)
		err("%s; roles not shown", cerr.text);
	a.conf = c;
	n = for_each_dir(root, st_cluster, &a);
	if (n < 0) {
		ret = EXIT_RUNTIME;
	} else if (n == 0) {
		printf("no cluster configured in %s; run ramsterctl configure\n", root);
		ret = EXIT_RUNTIME;
	} else {
		st_backend(&a);
		st_frontend(&a);
		if (verbose) {
			st_print_node_stats(&a.kept);
			st_print_module_counters(&a, "ramster_backend");
			st_print_module_counters(&a, "ramster_frontend");
		}
	}
	free(a.kept.v);
	rconf_free(c);
	return ret;
}

int main(int argc, char **argv)
{
	const char *conf = DEFAULT_CONF, *node = NULL, *root = DEFAULT_ROOT;
	const char *debugfs = NULL, *mount = DEFAULT_DEBUGFS_MOUNT;
	const char *modules = DEFAULT_MODULES, *cmd;
	char r2net_dir[PATH_MAX];
	int i, n, opt, conf_given = 0, status_only = 0, verbose = 0;
	int modules_given = 0, deny = 0;

	/* --help anywhere; --deny (share's) taken out before getopt sees it */
	for (i = n = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				argv[n++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--deny"))
			deny = 1;
		else
			argv[n++] = argv[i];
	}
	argc = n;
	argv[argc] = NULL;
	while ((opt = getopt(argc, argv, "c:d:D:M:n:r:v")) != -1) {
		switch (opt) {
		case 'c':
			conf = optarg;
			conf_given = 1;
			break;
		case 'n':
			node = optarg;
			break;
		case 'd':
			debugfs = optarg;
			status_only = 1;
			break;
		case 'D':
			mount = optarg;
			status_only = 1;
			break;
		case 'M':
			modules = optarg;
			modules_given = 1;
			break;
		case 'r':
			root = optarg;
			break;
		case 'v':
			verbose = 1;
			status_only = 1;
			break;
		default:
			fprintf(stderr, "run 'ramsterctl --help' for usage\n");
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		err(optind == argc ? "no command given" : "one command only");
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind];
	if (strcmp(cmd, "status") && status_only) {
		err("-d, -D and -v are for status only");
		return EXIT_USAGE;
	}
	if (modules_given && strcmp(cmd, "status") && strcmp(cmd, "share")) {
		err("-M is for status and share only");
		return EXIT_USAGE;
	}
	if (deny && strcmp(cmd, "share")) {
		err("--deny is for share only");
		return EXIT_USAGE;
	}
	if (!strcmp(cmd, "share"))
		return cmd_share(conf, node, modules, deny);
	if (!strcmp(cmd, "configure"))
		return cmd_configure(conf, node, root);
	if (!strcmp(cmd, "status")) {
		if (node) {
			err("-n is for configure and share only");
			return EXIT_USAGE;
		}
		if (!debugfs) {
			/* r2net's debugfs is under the mount -D names */
			if (mkpath(r2net_dir, "%s/r2net", mount)) {
				err("-D %s: path too long", mount);
				return EXIT_USAGE;
			}
			debugfs = r2net_dir;
		}
		return cmd_status(conf, root, debugfs, mount, modules, verbose);
	}
	if (!strcmp(cmd, "unconfigure")) {
		if (node || conf_given) {
			err("-c and -n are for configure, status and share only");
			return EXIT_USAGE;
		}
		return cmd_unconfigure(root);
	}
	err("unknown command '%s': use configure, unconfigure, status or share", cmd);
	return EXIT_USAGE;
}
