// SPDX-License-Identifier: GPL-2.0
/*
 * render.c - libvirt network and domain XML, and the in-guest
 * /etc/ramster.conf, from a validated cluster description.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rc.h"

/* Write S with the five XML special characters escaped. */
static void xml_puts(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

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

void rc_render_network(const struct rc_cluster *c, FILE *f)
{
	char net[64], br[32];

	rc_network_name(c, net, sizeof(net));
	rc_bridge_name(c, br, sizeof(br));
	fprintf(f,
		"<!-- RAMster cluster %s: an isolated segment for the guests\n"
		"     only; no forwarding and no host address on it. -->\n"
		"<network>\n"
		"  <name>%s</name>\n"
		"  <bridge name='%s' stp='off' delay='0'/>\n"
		"</network>\n",
		c->name, net, br);
}

static void render_disk(FILE *f, const char *state, const char *node,
			const char *kind, const char *dev)
{
	fprintf(f,
		"    <disk type='file' device='disk'>\n"
		"      <driver name='qemu' type='raw' cache='writeback' discard='unmap'/>\n"
		"      <source file='");
	xml_puts(f, state);
	fprintf(f, "/%s-%s.img'/>\n"
		"      <target dev='%s' bus='virtio'/>\n"
		"    </disk>\n", node, kind, dev);
}

static void render_serial(FILE *f, const char *elem, const char *state,
			  const char *node, const char *log, int port)
{
	fprintf(f, "    <%s type='file'>\n      <source path='", elem);
	xml_puts(f, state);
	fprintf(f, "/%s.%s.log'/>\n", node, log);
	if (!strcmp(elem, "console"))
		fprintf(f, "      <target type='serial' port='%d'/>\n", port);
	else
		fprintf(f, "      <target port='%d'/>\n", port);
	fprintf(f, "    </%s>\n", elem);
}

static void render_os(const struct rc_cluster *c, const struct rc_node *n,
		      const char *state, FILE *f)
{
	char cmdline[RC_CMDLINE_MAX + 1];

	if (rc_cmdline(c, n, cmdline, sizeof(cmdline)))
		cmdline[0] = '\0';	/* rc_cmd_* refuse this earlier */
	fprintf(f,
		"  <os>\n"
		"    <type arch='x86_64' machine='pc'>hvm</type>\n"
		"    <kernel>");
	xml_puts(f, state);
	fprintf(f, "/%s</kernel>\n    <initrd>", RC_KERNEL_FILE);
	xml_puts(f, state);
	fprintf(f, "/%s</initrd>\n    <cmdline>", RC_INITRD_FILE);
	xml_puts(f, cmdline);
	fprintf(f, "</cmdline>\n  </os>\n");
}

static void render_devices(const struct rc_cluster *c,
			   const struct rc_node *n, const char *state, FILE *f)
{
	char net[64];

	rc_network_name(c, net, sizeof(net));
	fprintf(f, "  <devices>\n    <emulator>%s</emulator>\n", RC_EMULATOR);
	if (n->swap_mib)
		render_disk(f, state, n->name, "swap", "vda");
	if (n->data_mib)
		render_disk(f, state, n->name, "data",
			    n->swap_mib ? "vdb" : "vda");
	fprintf(f,
		"    <controller type='usb' model='none'/>\n"
		"    <interface type='network'>\n"
		"      <mac address='52:54:00:72:6d:%02x'/>\n"
		"      <source network='%s'/>\n"
		"      <model type='virtio'/>\n"
		"    </interface>\n",
		n->number, net);
	render_serial(f, "serial", state, n->name, "console", 0);
	render_serial(f, "serial", state, n->name, "results", 1);
	render_serial(f, "console", state, n->name, "console", 0);
	fprintf(f,
		"    <memballoon model='none'/>\n"
		"  </devices>\n");
}

/*
 * One domain.  STATE is the absolute state directory: kernel, initrd,
 * disks and logs live there.  <cpu mode='maximum'/> gives TCG guests every
 * feature QEMU emulates (checked with libvirt 9.0 and QEMU 7.2 TCG).
 */
void rc_render_domain(const struct rc_cluster *c, const struct rc_node *n,
		      const char *state, FILE *f)
{
	char dom[64];

	rc_domain_name(c, n, dom, sizeof(dom));
	fprintf(f,
		"<domain type='qemu'>\n"
		"  <name>%s</name>\n"
		"  <metadata>\n"
		"    <ramster:node xmlns:ramster=\"%s\" role=\"%s\" number=\"%u\" cluster=\"%s\"/>\n"
		"  </metadata>\n"
		"  <memory unit='MiB'>%lu</memory>\n"
		"  <currentMemory unit='MiB'>%lu</currentMemory>\n"
		"  <vcpu placement='static'>%lu</vcpu>\n",
		dom, RC_XMLNS, rc_role_name(n->role), n->number, c->name,
		n->memory_mib, n->memory_mib, n->vcpus);
	render_os(c, n, state, f);
	fprintf(f,
		"  <features>\n"
		"    <acpi/>\n"
		"    <apic/>\n"
		"  </features>\n"
		"  <cpu mode='maximum' check='none'/>\n"
		"  <clock offset='utc'/>\n"
		"  <on_poweroff>destroy</on_poweroff>\n"
		"  <on_reboot>destroy</on_reboot>\n"
		"  <on_crash>destroy</on_crash>\n");
	render_devices(c, n, state, f);
	fprintf(f, "</domain>\n");
}

/* o2cb cluster.conf format: tab-indented, a blank line after a stanza. */
void rc_render_conf(const struct rc_cluster *c, FILE *f)
{
	char ip[16];
	int i;

	fprintf(f, "cluster:\n\tnode_count = %d\n\tname = %s\n\n",
		c->nr_nodes, c->name);
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

static int write_one(const char *dir, const char *name, enum rendered what,
		     const struct rc_cluster *c, const struct rc_node *n,
		     const char *state)
{
	char *path = rc_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f) {
		rc_err("cannot create %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	switch (what) {
	case R_NETWORK:
		rc_render_network(c, f);
		break;
	case R_DOMAIN:
		rc_render_domain(c, n, state, f);
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
int rc_render_dir(const struct rc_cluster *c, const char *dir,
		  const char *state)
{
	char name[RC_NODE_NAME_MAX + 8];
	int i;

	if (rc_mkdir_p(dir, 0755))
		return -1;
	if (write_one(dir, "network.xml", R_NETWORK, c, NULL, state))
		return -1;
	for (i = 0; i < c->nr_nodes; i++) {
		snprintf(name, sizeof(name), "%s.xml", c->nodes[i].name);
		if (write_one(dir, name, R_DOMAIN, c, &c->nodes[i], state))
			return -1;
	}
	return write_one(dir, "ramster.conf", R_CONF, c, NULL, state);
}
