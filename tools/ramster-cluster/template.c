// SPDX-License-Identifier: GPL-2.0
/*
 * template.c - the libvirt XML templates libvirt-xml/NAME.xml.in: finding,
 * reading and checking them, and filling in their @NAME@ placeholders.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc.h"

#define KIND_NET	(1u << RC_TMPL_NETWORK)
#define KIND_DOM	((1u << RC_TMPL_SERVER) | (1u << RC_TMPL_CLIENT))

static const char *const tmpl_file[RC_TMPL_COUNT] = {
	[RC_TMPL_NETWORK] = "network.xml.in",
	[RC_TMPL_SERVER] = "memory-server.xml.in",
	[RC_TMPL_CLIENT] = "client.xml.in",
};

/*
 * Every placeholder, the templates it may appear in, and whether its value
 * is a block of elements (written raw, one line per element, indented like
 * the placeholder, which must be alone on its line) rather than text.
 */
static const struct {
	const char *name;
	unsigned int kinds;
	bool block;
} known[] = {
	{ "CLUSTER", KIND_NET | KIND_DOM, false },
	{ "NETWORK", KIND_NET | KIND_DOM, false },
	{ "BRIDGE", KIND_NET, false },
	{ "DOMAIN", KIND_DOM, false },
	{ "ROLE", KIND_DOM, false },
	{ "NUMBER", KIND_DOM, false },
	{ "MEMORY_MIB", KIND_DOM, false },
	{ "VCPUS", KIND_DOM, false },
	{ "KERNEL", KIND_DOM, false },
	{ "INITRD", KIND_DOM, false },
	{ "CMDLINE", KIND_DOM, false },
	{ "MAC", KIND_DOM, false },
	{ "CONSOLE_LOG", KIND_DOM, false },
	{ "RESULTS_LOG", KIND_DOM, false },
	{ "DISKS", KIND_DOM, true },
	{ "FILTER", KIND_DOM, true },
};

#define NR_KNOWN	(sizeof(known) / sizeof(known[0]))

/* Write S with the five XML special characters escaped. */
void rc_xml_puts(FILE *f, const char *s)
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
 * If S starts with a placeholder, "@" NAME "@" with NAME of A-Z a-z 0-9 _,
 * the length of NAME, else 0.  Any other '@' is text.
 */
static size_t placeholder_at(const char *s)
{
	size_t n = 1;

	if (*s != '@')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n > 1 && s[n] == '@' ? n - 1 : 0;
}

static int find_known(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < NR_KNOWN; i++)
		if (strlen(known[i].name) == len &&
		    !strncmp(known[i].name, name, len))
			return (int)i;
	return -1;
}

/* Is the placeholder at P, LEN characters of name, alone on its line? */
static bool alone_on_line(const char *text, const char *p, size_t len)
{
	const char *q;

	for (q = p; q > text && (q[-1] == ' ' || q[-1] == '\t'); q--)
		;
	if (q > text && q[-1] != '\n')
		return false;
	q = p + len + 2;
	q += strspn(q, " \t");
	return *q == '\n' || *q == '\0';
}

static void list_known(char *buf, size_t size, enum rc_tmpl_kind kind)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < NR_KNOWN && used < size; i++)
		if (known[i].kinds & (1u << kind))
			used += snprintf(buf + used, size - used, "%s@%s@",
					 used ? " " : "", known[i].name);
}

/* Every placeholder of T is known for its kind; one message per problem. */
static int check_template(const char *path, const char *text,
			  enum rc_tmpl_kind kind)
{
	char names[256];
	const char *p;
	int line = 1, errors = 0, k;
	size_t len;

	list_known(names, sizeof(names), kind);
	for (p = text; *p; p++) {
		if (*p == '\n') {
			line++;
			continue;
		}
		len = placeholder_at(p);
		if (!len)
			continue;
		k = find_known(p + 1, len);
		if (k < 0 || !(known[k].kinds & (1u << kind))) {
			rc_err("%s:%d: unknown placeholder @%.*s@; %s knows %s",
			       path, line, (int)len, p + 1, tmpl_file[kind],
			       names);
			errors++;
		} else if (known[k].block && !alone_on_line(text, p, len)) {
			rc_err("%s:%d: @%s@ is a block of elements; put it on a line of its own",
			       path, line, known[k].name);
			errors++;
		}
		p += len + 1;
	}
	return errors ? -1 : 0;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t size = 0, got;
	int err;

	if (!f)
		return NULL;
	do {
		buf = realloc(buf, size + 4096 + 1);
		if (!buf) {
			rc_err("out of memory");
			exit(RC_EXIT_RUNTIME);
		}
		got = fread(buf + size, 1, 4096, f);
		size += got;
	} while (got == 4096);
	err = ferror(f) ? errno : 0;
	fclose(f);
	buf[size] = '\0';
	if (err || strlen(buf) != size) {
		free(buf);
		errno = err ? err : EINVAL;	/* EINVAL: a NUL byte */
		return NULL;
	}
	return buf;
}

/* ../../libvirt-xml next to this executable, or NULL. */
static char *dir_by_exe(void)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return rc_xasprintf("%s/../../%s", exe, RC_DEFAULT_TEMPLATE_DIR);
}

static bool has_templates(const char *dir)
{
	char *p = rc_xasprintf("%s/%s", dir, tmpl_file[RC_TMPL_NETWORK]);
	bool ok = !access(p, R_OK);

	free(p);
	return ok;
}

/*
 * Read and check the three templates from DIR, or with DIR NULL from
 * ./libvirt-xml, else from libvirt-xml of the source tree the executable
 * was built in.  -1 after printing what is wrong.
 */
int rc_templates_load(struct rc_templates *t, const char *dir)
{
	char *path, *exe_dir = NULL;
	int kind, ret = 0;

	memset(t, 0, sizeof(*t));
	if (dir) {
		t->dir = rc_xstrdup(dir);
	} else if (has_templates(RC_DEFAULT_TEMPLATE_DIR)) {
		t->dir = rc_xstrdup(RC_DEFAULT_TEMPLATE_DIR);
	} else {
		exe_dir = dir_by_exe();
		if (!exe_dir || !has_templates(exe_dir)) {
			rc_err("no %s in ./%s or %s; give the template directory with -t DIR",
			       tmpl_file[RC_TMPL_NETWORK],
			       RC_DEFAULT_TEMPLATE_DIR,
			       exe_dir ? exe_dir : "next to the executable");
			free(exe_dir);
			return -1;
		}
		t->dir = exe_dir;
	}
	for (kind = 0; kind < RC_TMPL_COUNT; kind++) {
		path = rc_xasprintf("%s/%s", t->dir, tmpl_file[kind]);
		t->text[kind] = read_text(path);
		if (!t->text[kind]) {
			rc_err("cannot read template %s: %s%s", path,
			       errno == EINVAL ? "it contains a NUL byte" :
			       strerror(errno),
			       dir ? "" : "; give the template directory with -t DIR");
			ret = -1;
		} else if (check_template(path, t->text[kind], kind)) {
			ret = -1;
		}
		free(path);
	}
	if (ret)
		rc_templates_free(t);
	return ret;
}

void rc_templates_free(struct rc_templates *t)
{
	int kind;

	for (kind = 0; kind < RC_TMPL_COUNT; kind++) {
		free(t->text[kind]);
		t->text[kind] = NULL;
	}
	free(t->dir);
	t->dir = NULL;
}

static const struct rc_subst *find_subst(const struct rc_subst *v, int nv,
					 const char *name, size_t len)
{
	int i;

	for (i = 0; i < nv; i++)
		if (strlen(v[i].name) == len && !strncmp(v[i].name, name, len))
			return &v[i];
	return NULL;
}

/* BLOCK, each of its lines indented by the IND characters at INDENT. */
static void put_block(FILE *f, const char *block, const char *indent,
		      size_t ind)
{
	const char *end;

	while (*block) {
		end = strchrnul(block, '\n');
		fwrite(indent, 1, ind, f);
		fwrite(block, 1, end - block, f);
		fputc('\n', f);
		block = *end ? end + 1 : end;
	}
}

/*
 * Write template T of KIND with its placeholders replaced by V: text values
 * XML-escaped, a block value in place of the placeholder's line (no line
 * for an empty block).  rc_templates_load() checked the placeholders; one
 * missing from V is written as nothing.
 */
void rc_template_write(FILE *f, const struct rc_templates *t,
		       enum rc_tmpl_kind kind, const struct rc_subst *v,
		       int nv)
{
	const char *line = t->text[kind], *end, *p;
	const struct rc_subst *s;
	size_t ind, len;

	while (*line) {
		end = strchrnul(line, '\n');
		ind = strspn(line, " \t");
		len = placeholder_at(line + ind);
		s = len ? find_subst(v, nv, line + ind + 1, len) : NULL;
		if (s && s->block) {
			put_block(f, s->value, line, ind);
			line = *end ? end + 1 : end;
			continue;
		}
		for (p = line; p < end; p++) {
			len = placeholder_at(p);
			if (!len) {
				fputc(*p, f);
				continue;
			}
			s = find_subst(v, nv, p + 1, len);
			if (s && s->block)
				fputs(s->value, f);
			else if (s)
				rc_xml_puts(f, s->value);
			p += len + 1;
		}
		if (*end)
			fputc('\n', f);
		line = *end ? end + 1 : end;
	}
}
