// SPDX-License-Identifier: GPL-2.0
/*
 * render.c - libvirt network and domain XML (from the templates in
 * libvirt-xml/, see template.c), and the in-guest /etc/ramster.conf, from
 * a validated cluster description.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rc.h"

#define ARRAY_SIZE(a)	((int)(sizeof(a) / sizeof((a)[0])))

/*
 * "<cluster>-br0" fits IFNAMSIZ for names of up to 11 characters; a
 * 12-character cluster name drops the dash.
 */
void rc_bridge_name(const struct rc_cluster *c, char *buf, size_t len)
{
	if (strlen(c->name) + 4 <= 15)
		snprintf(buf, len, "%s-br0", c->name);
	else
		snprintf(buf, len, "%sbr0", c->name);
}

/*
 * The guest kernel command line; -1 if it does not fit LEN.  "noapic":
 * under TCG an early interrupt can arrive while the IO-APIC pins are being
 * set up and oops the guest in mask_ioapic_irq(); the 8259 serves the few
 * legacy interrupts and virtio uses MSI either way.
 */
int rc_cmdline(const struct rc_cluster *c, const struct rc_node *n,
	       char *buf, size_t len)
{
	char ip[16];
	int ret;

	rc_format_ip(n->ip, ip);
	ret = snprintf(buf, len,
		       "console=ttyS0 noapic ramster.role=%s ramster.node=%s ramster.number=%u ramster.ip=%s/%u ramster.job=%s panic=-1%s%s",
		       rc_role_name(n->role), n->name, n->number, ip,
		       c->prefix, n->job, n->extra ? " " : "",
		       n->extra ? n->extra : "");
	return ret < 0 || (size_t)ret >= len ? -1 : 0;
}

void rc_render_network(const struct rc_cluster *c,
		       const struct rc_templates *t, FILE *f)
{
	char net[64], br[32];
	const struct rc_subst v[] = {
		{ "CLUSTER", c->name, false },
		{ "NETWORK", net, false },
		{ "BRIDGE", br, false },
	};

	rc_network_name(c, net, sizeof(net));
	rc_bridge_name(c, br, sizeof(br));
	rc_template_write(f, t, RC_TMPL_NETWORK, v, ARRAY_SIZE(v));
}

/*
 * A <disk> element of node N for STATE/FILE as virtio disk vdX, X = 'a' +
 * INDEX, not indented, with <iotune> if disk_iops or disk_mbps is set.
 *
 * The shared disk (SHARED) is <shareable/> (QEMU opens it with
 * share-rw=on, so that every client may have it open for writing) and
 * has cache='none', where the others have cache='writeback'.  libvirt's
 * formatdomain says <shareable/> "means that caching should be
 * deactivated for that device", and its migration check calls any mode
 * but 'none' and 'directsync' unsafe for storage other hosts see; of the
 * two, 'none' (O_DIRECT) keeps the guest's own write cache and flushes.
 * libvirt itself only refuses a shareable disk that is not raw.  O_DIRECT
 * needs a state directory on a file system that has it (ext4, xfs; not
 * tmpfs before Linux 6.6).  The guest finds the disk by its serial, in
 * /sys/block/vdX/serial.
 */
static void render_disk(FILE *f, const char *state, const struct rc_node *n,
			const char *file, int index, bool shared)
{
	bool iotune = n->disk_iops || n->disk_mbps;

	fprintf(f,
		"<disk type='file' device='disk'>\n"
		"  <driver name='qemu' type='raw' cache='%s' discard='unmap'/>\n"
		"  <source file='", shared ? "none" : "writeback");
	rc_xml_puts(f, state);
	fputc('/', f);
	rc_xml_puts(f, file);
	fprintf(f, "'/>\n"
		"  <target dev='vd%c' bus='virtio'/>\n", 'a' + index);
	if (iotune)
		fputs("  <iotune>\n", f);
	if (n->disk_mbps)
		fprintf(f, "    <total_bytes_sec>%llu</total_bytes_sec>\n",
			n->disk_mbps * 1048576ULL);
	if (n->disk_iops)
		fprintf(f, "    <total_iops_sec>%lu</total_iops_sec>\n",
			n->disk_iops);
	if (iotune)
		fputs("  </iotune>\n", f);
	if (shared)
		fputs("  <shareable/>\n"
		      "  <serial>" RC_SHARED_SERIAL "</serial>\n", f);
	fputs("</disk>\n", f);
}

/* Swap, data, then (clients) the shared disk: vda, vdb, vdc as present. */
static char *render_disks(const struct rc_cluster *c, const struct rc_node *n,
			  const char *state)
{
	char *buf = NULL, file[RC_NODE_NAME_MAX + 16];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int index = 0;

	if (!f) {
		rc_err("out of memory");
		exit(RC_EXIT_RUNTIME);
	}
	if (n->swap_mib) {
		snprintf(file, sizeof(file), "%s-swap.img", n->name);
		render_disk(f, state, n, file, index++, false);
	}
	if (n->data_mib) {
		snprintf(file, sizeof(file), "%s-data.img", n->name);
		render_disk(f, state, n, file, index++, false);
	}
	if (c->shared_mib && n->role == RC_ROLE_CLIENT)
		render_disk(f, state, n, RC_SHARED_FILE, index++, true);
	if (fclose(f)) {
		rc_err("out of memory");
		exit(RC_EXIT_RUNTIME);
	}
	return buf;
}

/*
 * The interface's filter: libvirt's clean-traffic with the node's
 * address, so that the guest can send only as its own MAC and IP address
 * (and take no other's by ARP or DHCP); nothing with "nwfilter = none".
 */
static char *render_filter(const struct rc_cluster *c, const struct rc_node *n)
{
	char ip[16];

	if (!c->nwfilter)
		return rc_xstrdup("");
	rc_format_ip(n->ip, ip);
	return rc_xasprintf("<filterref filter='clean-traffic'>\n"
			    "  <parameter name='IP' value='%s'/>\n"
			    "</filterref>", ip);
}

/*
 * One domain from the template of its role.  STATE is the absolute state
 * directory: kernel, initrd, disks and logs live there; a node with
 * "image = stock" boots STATE/stock-vmlinuz and STATE/stock-initrd.img
 * (Debian's kernel, from -K and -I), the others bzImage and initrd.img.
 * The templates leave the CPU model to libvirt (qemu64 under TCG): with
 * "maximum" the guest took 5-level paging and other paths that tripped
 * the debug kernel in early boot now and then.
 */
void rc_render_domain(const struct rc_cluster *c, const struct rc_node *n,
		      const struct rc_templates *t, const char *state, FILE *f)
{
	char dom[64], net[64], number[16], mem[24], vcpus[24], mac[24];
	char cmdline[RC_CMDLINE_MAX + 1];
	bool stock = n->image == RC_IMAGE_STOCK;
	char *kernel = rc_xasprintf("%s/%s", state, stock ?
				    RC_STOCK_KERNEL_FILE : RC_KERNEL_FILE);
	char *initrd = rc_xasprintf("%s/%s", state, stock ?
				    RC_STOCK_INITRD_FILE : RC_INITRD_FILE);
	char *console = rc_xasprintf("%s/%s.console.log", state, n->name);
	char *results = rc_xasprintf("%s/%s.results.log", state, n->name);
	char *disks = render_disks(c, n, state);
	char *filter = render_filter(c, n);
	const struct rc_subst v[] = {
		{ "CLUSTER", c->name, false },
		{ "NETWORK", net, false },
		{ "DOMAIN", dom, false },
		{ "ROLE", rc_role_name(n->role), false },
		{ "NUMBER", number, false },
		{ "MEMORY_MIB", mem, false },
		{ "VCPUS", vcpus, false },
		{ "KERNEL", kernel, false },
		{ "INITRD", initrd, false },
		{ "CMDLINE", cmdline, false },
		{ "MAC", mac, false },
		{ "CONSOLE_LOG", console, false },
		{ "RESULTS_LOG", results, false },
		{ "DISKS", disks, true },
		{ "FILTER", filter, true },
	};

	rc_domain_name(c, n, dom, sizeof(dom));
	rc_network_name(c, net, sizeof(net));
	snprintf(number, sizeof(number), "%u", n->number);
	snprintf(mem, sizeof(mem), "%lu", n->memory_mib);
	snprintf(vcpus, sizeof(vcpus), "%lu", n->vcpus);
	snprintf(mac, sizeof(mac), "52:54:00:72:6d:%02x", n->number);
	if (rc_cmdline(c, n, cmdline, sizeof(cmdline)))
		cmdline[0] = '\0';	/* main() refuses this earlier */
	rc_template_write(f, t, n->role == RC_ROLE_SERVER ? RC_TMPL_SERVER :
			  RC_TMPL_CLIENT, v, ARRAY_SIZE(v));
	free(kernel);
	free(initrd);
	free(console);
	free(results);
	free(disks);
	free(filter);
}

/*
 * o2cb cluster.conf format: tab-indented, a blank line after a stanza.
 * cluster_key only once the cluster has a key (key_file, or up's).
 */
void rc_render_conf(const struct rc_cluster *c, FILE *f)
{
	char ip[16];
	int i;

	fprintf(f, "cluster:\n\tnode_count = %d\n\tname = %s\n",
		c->nr_nodes, c->name);
	if (c->shared_mib)
		fprintf(f, "\tshared_uuid = %s\n", c->shared_uuid);
	if (c->key[0])
		fprintf(f, "\tcluster_key = %s\n", c->key);
	if (c->security)
		fprintf(f, "\tsecurity = %s\n", c->security);
	fputc('\n', f);
	for (i = 0; i < c->nr_nodes; i++) {
		const struct rc_node *n = &c->nodes[i];

		rc_format_ip(n->ip, ip);
		fprintf(f,
			"node:\n"
			"\tip_port = %u\n"
			"\tip_address = %s\n"
			"\tnumber = %u\n"
			"\tname = %s\n"
			"\tcluster = %s\n"
			"\trole = %s\n\n",
			c->port, ip, n->number, n->name, c->name,
			rc_role_name(n->role));
	}
}

enum rendered {
	R_NETWORK,
	R_DOMAIN,
	R_CONF,
};

/*
 * PATH, emptied or created with MODE (ramster.conf, which may hold the
 * cluster key, is 0600 however it was before).
 */
static FILE *create(const char *path, unsigned int mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fchmod(fd, mode)) {
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

static int write_one(const char *dir, const char *name, enum rendered what,
		     const struct rc_cluster *c, const struct rc_templates *t,
		     const struct rc_node *n, const char *state)
{
	char *path = rc_xasprintf("%s/%s", dir, name);
	FILE *f = create(path, what == R_CONF ? 0600 : 0644);
	int ret = 0;

	if (!f) {
		rc_err("cannot create %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	switch (what) {
	case R_NETWORK:
		rc_render_network(c, t, f);
		break;
	case R_DOMAIN:
		rc_render_domain(c, n, t, state, f);
		break;
	case R_CONF:
		rc_render_conf(c, f);
		break;
	}
	if (ferror(f) | fclose(f)) {
		rc_err("cannot write %s: %s", path, strerror(errno));
		ret = -1;
	}
	free(path);
	return ret;
}

/* DIR/network.xml, DIR/<node>.xml for every node, DIR/ramster.conf. */
int rc_render_dir(const struct rc_cluster *c, const struct rc_templates *t,
		  const char *dir, const char *state)
{
	char name[RC_NODE_NAME_MAX + 8];
	int i;

	if (rc_mkdir_p(dir, 0755))
		return -1;
	if (write_one(dir, "network.xml", R_NETWORK, c, t, NULL, state))
		return -1;
	for (i = 0; i < c->nr_nodes; i++) {
		snprintf(name, sizeof(name), "%s.xml", c->nodes[i].name);
		if (write_one(dir, name, R_DOMAIN, c, t, &c->nodes[i],
			      state))
			return -1;
	}
	return write_one(dir, "ramster.conf", R_CONF, c, t, NULL, state);
}
