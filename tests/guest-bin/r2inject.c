// SPDX-License-Identifier: GPL-2.0
/*
 * r2inject: send r2net a bad frame, a bad handshake or too many idle
 * connections, and check from the outside that it closes the connection.
 *
 * One case per run, against one r2net listener.  Frames are built with
 * shared-abi/r2net_wire.h, the same definitions r2net uses.  The target's
 * counters (debugfs r2net/nodes/<num>, r2net/listener) say why it closed;
 * this program only sees whether and how fast it did, and prints one line
 * per case with what it saw.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "r2net_wire.h"
#include "blake2s.h"
#include "poly1305.h"
#include "r2echo.h"

#define EXIT_MISBEHAVED	1
#define EXIT_USAGE	2

#define MAX_FLOOD	1000
/* never-read: payload of each echo request, and how long a stall lasts. */
#define NR_PAYLOAD	65536
#define NR_STALL_MS	2000

static const char *prog = "r2inject";

enum inject_case {
	C_BAD_MAGIC,
	C_BAD_VERSION,
	C_TOO_LONG,
	C_TRUNCATED,
	C_UNKNOWN_TYPE,
	C_BAD_KEY,
	C_GARBAGE,
	C_MISMATCHED,
	C_FLOOD,
	C_NOT_A_NODE,
	C_WRONG_KEY,
	C_REPLAY,
	C_FORGED_FRAME,
	C_REPLAYED_FRAME,
	C_NEVER_READ,
	C_NR,
};

static const char * const case_names[C_NR] = {
	[C_BAD_MAGIC]	= "bad-magic",
	[C_BAD_VERSION]	= "bad-version",
	[C_TOO_LONG]	= "too-long",
	[C_TRUNCATED]	= "truncated",
	[C_UNKNOWN_TYPE] = "unknown-type",
	[C_BAD_KEY]	= "bad-key",
	[C_GARBAGE]	= "garbage-after-handshake",
	[C_MISMATCHED]	= "mismatched-handshake",
	[C_FLOOD]	= "flood",
	[C_NOT_A_NODE]	= "not-a-node",
	[C_WRONG_KEY]	= "wrong-key",
	[C_REPLAY]	= "replayed-handshake",
	[C_FORGED_FRAME] = "forged-frame",
	[C_REPLAYED_FRAME] = "replayed-frame",
	[C_NEVER_READ]	= "never-read",
};

struct opts {
	const char *bind_str;
	struct sockaddr_in src;		/* sin_family 0: no -b */
	struct sockaddr_in dst;
	char target[32];		/* ADDR:PORT, for messages */
	const char *cluster;
	unsigned int sender;
	int receiver;			/* -1: no -r */
	unsigned int idle_ms, keepalive_ms, reconnect_ms;
	unsigned int flood_n;
	unsigned int max_pending;
	unsigned int wait_ms;
	enum inject_case c;
	uint8_t key[R2NET_KEY_LEN];	/* -k; zero without */
	unsigned int security;		/* -S, enum r2net_security */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: r2inject [options] CASE ADDRESS[:PORT]\n"
"       r2inject --help\n"
"\n"
"Sends one kind of bad input to the r2net listener at ADDRESS (port\n"
"default %d) and checks from the outside that it closes the connection:\n"
"the read returns end of file or a reset within -w milliseconds.  Prints\n"
"one line saying what was sent and what the target did.\n"
"\n"
"Cases:\n"
"  bad-magic        a handshake frame whose header has magic 0xdead\n"
"  bad-version      a handshake frame whose header has version 2\n"
"  too-long         a header with len %d (R2NET_MAX_PAYLOAD + 1)\n"
"  truncated        a header of type 0x%x saying len 4096, 100 payload\n"
"                   bytes, then end of our side of the stream\n"
"  unknown-type     a frame of type 0x777, which r2net does not know\n"
"  bad-key          a handshake frame with a non-zero key\n"
"  garbage-after-handshake\n"
"                   a valid handshake (-c, -s, -r, -T); the target must\n"
"                   answer with its own, naming -r and -s; then 64 pseudo-random\n"
"                   bytes that do not start with the magic\n"
"  mismatched-handshake\n"
"                   a handshake right in everything but the cluster name\n"
"  flood            -n connections that never send; the target must close\n"
"                   at once (within -w ms, at most half the -T idle value,\n"
"                   of connecting) all but at most -p of them, and close\n"
"                   those by its idle timeout; up to twice that (plus -w)\n"
"                   is allowed, as a loaded guest fires timers late\n"
"  not-a-node       one connection from -b ADDR, which must not be a\n"
"                   configured node's address; it must be closed at once\n"
"  wrong-key        a handshake right in everything but its MAC, made with\n"
"                   another key than -k\n"
"  replayed-handshake\n"
"                   a whole handshake (-c, -s, -r, -T, -k) that the target\n"
"                   takes, then the same first frame and AUTH again on a\n"
"                   new connection, as one who recorded them would\n"
"  forged-frame     a whole handshake, then a keepalive whose tag is wrong\n"
"                   in one bit\n"
"  replayed-frame   a whole handshake, then a keepalive with its right tag,\n"
"                   which the target must answer (its answer's tag is\n"
"                   checked), then the same frame again\n"
"  never-read       a whole handshake, then r2echo requests of 64 KiB with\n"
"                   right tags (payloads not encrypted: the target echoes\n"
"                   what it decrypts), and never a reply read; the target\n"
"                   must close within -w ms of the first request\n"
"\n"
"Options:\n"
"  -b ADDR     bind the source address (an address of this machine).  For\n"
"              every case but not-a-node use the address of a configured\n"
"              node that is not connected to the target (a node with a\n"
"              lower number than the target), so the target reads the\n"
"              frames and counts them against that node\n"
"  -c CLUSTER  cluster name in handshakes (default ramster)\n"
"  -s NUM      sender node number in handshakes: the node -b ADDR is\n"
"              (default 0)\n"
"  -r NUM      receiver node number: the target's; needed by\n"
"              garbage-after-handshake and mismatched-handshake\n"
"  -k FILE     the cluster key, 64 hex digits (ramster.conf: cluster_key);\n"
"              every handshake is signed with it\n"
"  -S SECURITY the cluster's security, as in handshakes: integrity (the\n"
"              default), encrypt or none\n"
"  -T IDLE,KEEPALIVE,RECONNECT\n"
"              the cluster's timeouts in ms, as in handshakes (default\n"
"              %d,%d,%d)\n"
"  -n N        flood: connections to open, 1..%d (default 64)\n"
"  -p N        flood: most connections without a handshake the target may\n"
"              keep from one address (default 8)\n"
"  -w MS       how long the target may take to close a connection after\n"
"              bad input, or to answer a handshake (default 3000); keep it\n"
"              below the target's idle timeout, else a close by the idle\n"
"              timer passes for a rejection\n"
"  -h, --help  this text\n"
"\n"
"Exit status: 0 the target closed the connection(s) as expected; 1 it did\n"
"not (stayed open, refused the connection, answered wrongly); 2 bad usage,\n"
"or the case could not be run here (e.g. -b ADDR is not on an interface).\n",
		R2NET_DEFAULT_PORT, R2NET_MAX_PAYLOAD + 1, R2NET_MSG_USER_FIRST,
		R2NET_IDLE_TIMEOUT_MS_DEFAULT, R2NET_KEEPALIVE_DELAY_MS_DEFAULT,
		R2NET_RECONNECT_DELAY_MS_DEFAULT, MAX_FLOOD);
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

static void __attribute__((noreturn)) usage_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	exit(EXIT_USAGE);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned int parse_uint(const char *s, unsigned int min,
			       unsigned int max, const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		usage_err("%s '%s' is not a number in %u..%u", what, s, min, max);
	return (unsigned int)v;
}

static void parse_addr(const char *s, struct sockaddr_in *sa, bool port_ok,
		       const char *what)
{
	char buf[64];
	char *colon;

	if (strlen(s) >= sizeof(buf))
		usage_err("%s '%.64s...' is too long", what, s);
	strcpy(buf, s);
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(R2NET_DEFAULT_PORT);
	colon = strchr(buf, ':');
	if (colon) {
		if (!port_ok)
			usage_err("%s '%s' takes no port", what, s);
		*colon = '\0';
		sa->sin_port = htons((uint16_t)parse_uint(colon + 1, 1, 65535,
							 "port"));
	}
	if (inet_pton(AF_INET, buf, &sa->sin_addr) != 1)
		usage_err("%s '%s' is not a dotted IPv4 address", what, buf);
}

static void parse_timeouts(const char *s, struct opts *o)
{
	unsigned int v[3];
	char buf[64], *p, *tok, *save = NULL;
	int i = 0;

	if (strlen(s) >= sizeof(buf))
		usage_err("-T '%.64s...' is too long", s);
	strcpy(buf, s);
	for (p = buf; (tok = strtok_r(p, ",", &save)); p = NULL) {
		if (i == 3)
			usage_err("-T takes three values, IDLE,KEEPALIVE,RECONNECT");
		v[i++] = parse_uint(tok, 1, UINT32_MAX, "-T timeout");
	}
	if (i != 3)
		usage_err("-T takes three values, IDLE,KEEPALIVE,RECONNECT");
	if (v[1] >= v[0])
		usage_err("-T: keepalive %u must be below idle %u (r2net refuses it)",
			  v[1], v[0]);
	o->idle_ms = v[0];
	o->keepalive_ms = v[1];
	o->reconnect_ms = v[2];
}

/* The key in FILE: 64 hex digits, an optional newline. */
static void read_key(const char *file, uint8_t *key)
{
	char buf[2 * R2NET_KEY_LEN + 2];
	size_t n, i;
	FILE *f;

	f = fopen(file, "r");
	if (!f)
		usage_err("-k %s: %s", file, strerror(errno));
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n && buf[n - 1] == '\n')
		n--;
	if (n != 2 * R2NET_KEY_LEN)
		usage_err("-k %s: want %d hex digits, the cluster key", file,
			  2 * R2NET_KEY_LEN);
	for (i = 0; i < R2NET_KEY_LEN; i++) {
		unsigned int b;

		if (sscanf(buf + 2 * i, "%2x", &b) != 1 ||
		    !strchr("0123456789abcdefABCDEF", buf[2 * i]) ||
		    !strchr("0123456789abcdefABCDEF", buf[2 * i + 1]))
			usage_err("-k %s: not hex digits", file);
		key[i] = (uint8_t)b;
	}
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	const char *cluster_chars = "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	int opt, i;

	memset(o, 0, sizeof(*o));
	o->cluster = "ramster";
	o->receiver = -1;
	o->idle_ms = R2NET_IDLE_TIMEOUT_MS_DEFAULT;
	o->keepalive_ms = R2NET_KEEPALIVE_DELAY_MS_DEFAULT;
	o->reconnect_ms = R2NET_RECONNECT_DELAY_MS_DEFAULT;
	o->flood_n = 64;
	o->max_pending = 8;
	o->wait_ms = 3000;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			exit(0);
		}
	}
	while ((opt = getopt(argc, argv, "+b:c:k:S:s:r:T:n:p:w:h")) != -1) {
		switch (opt) {
		case 'b':
			o->bind_str = optarg;
			parse_addr(optarg, &o->src, false, "-b");
			break;
		case 'c':
			if (!*optarg || strlen(optarg) > R2NET_CLUSTER_NAME_LEN ||
			    strspn(optarg, cluster_chars) != strlen(optarg))
				usage_err("-c '%s' is not a cluster name (1..%d of [A-Za-z0-9._-])",
					  optarg, R2NET_CLUSTER_NAME_LEN);
			o->cluster = optarg;
			break;
		case 'k':
			read_key(optarg, o->key);
			break;
		case 'S':
			if (!strcmp(optarg, "integrity"))
				o->security = R2NET_SEC_INTEGRITY;
			else if (!strcmp(optarg, "encrypt"))
				o->security = R2NET_SEC_ENCRYPT;
			else if (!strcmp(optarg, "none"))
				o->security = R2NET_SEC_NONE;
			else
				usage_err("-S '%s': want integrity, encrypt or none",
					  optarg);
			break;
		case 's':
			o->sender = parse_uint(optarg, 0, R2NET_MAX_NODE, "-s");
			break;
		case 'r':
			o->receiver = (int)parse_uint(optarg, 0, R2NET_MAX_NODE,
						      "-r");
			break;
		case 'T':
			parse_timeouts(optarg, o);
			break;
		case 'n':
			o->flood_n = parse_uint(optarg, 1, MAX_FLOOD, "-n");
			break;
		case 'p':
			o->max_pending = parse_uint(optarg, 0, MAX_FLOOD, "-p");
			break;
		case 'w':
			o->wait_ms = parse_uint(optarg, 1, 600000, "-w");
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			exit(EXIT_USAGE);
		}
	}
	if (argc - optind != 2)
		usage_err("want CASE and ADDRESS[:PORT], got %d argument%s",
			  argc - optind, argc - optind == 1 ? "" : "s");
	for (i = 0; i < C_NR; i++)
		if (!strcmp(argv[optind], case_names[i]))
			break;
	if (i == C_NR)
		usage_err("unknown case '%s'", argv[optind]);
	o->c = i;
	parse_addr(argv[optind + 1], &o->dst, true, "ADDRESS");
	snprintf(o->target, sizeof(o->target), "%s:%u",
		 inet_ntoa(o->dst.sin_addr), ntohs(o->dst.sin_port));
	if ((o->c == C_GARBAGE || o->c == C_MISMATCHED ||
	     o->c == C_WRONG_KEY || o->c == C_REPLAY ||
	     o->c == C_FORGED_FRAME || o->c == C_REPLAYED_FRAME) &&
	    o->receiver < 0)
		usage_err("%s needs -r, the target's node number", case_names[o->c]);
	if (o->c == C_NOT_A_NODE && !o->bind_str)
		usage_err("not-a-node needs -b ADDR, an address of this machine that is not a configured node's");
}

/*
 * A TCP socket bound to -b and connected to the target, blocking or not.
 * Returns the fd; a local failure exits 2, a refused or unanswered
 * connection is reported and gives -1.
 */
static int open_conn(const struct opts *o, bool nonblock)
{
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE) {
			err("cannot open a socket: %s; raise the limit (ulimit -n) or lower -n",
			    strerror(errno));
		} else {
			err("cannot open a socket: %s", strerror(errno));
		}
		exit(EXIT_USAGE);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (o->src.sin_family) {
		struct sockaddr_in sa = o->src;

		sa.sin_port = 0;
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			err("cannot bind %s: %s; put the address on an interface first (ip addr add %s/24 dev eth0)",
			    o->bind_str, strerror(errno), o->bind_str);
			exit(EXIT_USAGE);
		}
	}
	if (connect(fd, (struct sockaddr *)&o->dst, sizeof(o->dst)) &&
	    !(nonblock && errno == EINPROGRESS)) {
		err("cannot connect to %s: %s; is r2net loaded there, with its local node set?",
		    o->target, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Write it all, or report why not (the target may have closed already). */
static int send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

enum closed_how {
	STILL_OPEN,
	CLOSED_EOF,
	CLOSED_RESET,
	CLOSED_ERROR,
};

static const char *closed_name(enum closed_how h)
{
	switch (h) {
	case STILL_OPEN:
		return "still open";
	case CLOSED_EOF:
		return "closed (end of file)";
	case CLOSED_RESET:
		return "closed (reset)";
	case CLOSED_ERROR:
		return "closed (error)";
	}
	return "?";
}

/*
 * Wait until the target closes fd or deadline (ms, CLOCK_MONOTONIC)
 * passes, reading and discarding what it sends meanwhile (its handshake,
 * a keepalive).  *got counts those bytes.
 */
static enum closed_how wait_closed(int fd, long long deadline, size_t *got)
{
	char buf[4096];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;
		int r;

		if (left < 0)
			left = 0;
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return STILL_OPEN;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0) {
			*got += (size_t)n;
			continue;
		}
		if (n == 0)
			return CLOSED_EOF;
		if (errno == EINTR || errno == EAGAIN)
			continue;
		return errno == ECONNRESET ? CLOSED_RESET : CLOSED_ERROR;
	}
}

/* Read exactly len bytes by deadline: 0, or -1 (closed, timed out). */
static int recv_exact(int fd, void *buf, size_t len, long long deadline)
{
	char *p = buf;

	while (len) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return -1;
		if (poll(&pf, 1, (int)left) < 0 && errno != EINTR)
			return -1;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n == 0)
			return -1;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void handshake_of(const struct opts *o, struct r2net_handshake *hs,
			 const char *cluster)
{
	memset(hs, 0, sizeof(*hs));
	hs->protocol_version = R2NET_PROTOCOL_VERSION;
	hs->sender_node = (u16)o->sender;
	hs->receiver_node = (u16)(o->receiver < 0 ? 0 : o->receiver);
	snprintf(hs->cluster_name, sizeof(hs->cluster_name), "%s", cluster);
	hs->idle_timeout_ms = o->idle_ms;
	hs->keepalive_delay_ms = o->keepalive_ms;
	hs->reconnect_delay_ms = o->reconnect_ms;
	hs->security = o->security;
}

/* A frame: header plus handshake payload, as r2net's first frame. */
struct hs_frame {
	struct r2net_hdr h;
	struct r2net_handshake_le p;
};

static_assert(sizeof(struct hs_frame) == R2NET_HDR_LEN + R2NET_HANDSHAKE_LEN,
	      "hs_frame size");

/* MAC(label, a || b) under key, as r2net_wire.h says. */
static void hs_mac(const uint8_t *key, const char *label, const void *a,
		   size_t alen, const void *b, size_t blen, uint8_t *out)
{
	struct b2s st;

	b2s_init(&st, key, R2NET_KEY_LEN);
	b2s_update(&st, label, strlen(label));
	b2s_update(&st, a, alen);
	b2s_update(&st, b, blen);
	b2s_final(&st, out);
}

/* The connector's handshake frame (m1): a fresh nonce, signed with key. */
static void hs_frame_init_key(struct hs_frame *f, const struct opts *o,
			      const char *cluster, const uint8_t *key)
{
	struct r2net_handshake hs;

	handshake_of(o, &hs, cluster);
	if (getrandom(hs.nonce, sizeof(hs.nonce), 0) != sizeof(hs.nonce)) {
		err("getrandom: %s", strerror(errno));
		exit(EXIT_USAGE);
	}
	r2net_hdr_init(&f->h, R2NET_MSG_HANDSHAKE, 0, R2NET_HANDSHAKE_LEN, 1, 0);
	r2net_handshake_encode(&f->p, &hs);
	hs_mac(key, "r2net hs1", &f->p, R2NET_HS_SIGNED_LEN, NULL, 0,
	       f->p.mac);
}

static void hs_frame_init(struct hs_frame *f, const struct opts *o,
			  const char *cluster)
{
	hs_frame_init_key(f, o, cluster, o->key);
}

/* The AUTH frame that ends the connector's handshake. */
struct auth_frame {
	struct r2net_hdr h;
	uint8_t mac[R2NET_MAC_LEN];
};

static void auth_frame_init(struct auth_frame *a, const struct opts *o,
			    const struct hs_frame *m1,
			    const struct r2net_handshake_le *m2)
{
	r2net_hdr_init(&a->h, R2NET_MSG_AUTH, 0, R2NET_MAC_LEN, 1, 0);
	hs_mac(o->key, "r2net hs3", &m1->p, R2NET_HANDSHAKE_LEN, m2,
	       R2NET_HANDSHAKE_LEN, a->mac);
}

/* A cluster name that is valid but not o->cluster. */
static void other_cluster(const struct opts *o, char *buf, size_t size)
{
	size_t n = strlen(o->cluster);

	snprintf(buf, size, "%s", o->cluster);
	if (n < R2NET_CLUSTER_NAME_LEN)
		strcat(buf, "x");
	else
		buf[n - 1] = buf[n - 1] == 'x' ? 'y' : 'x';
}

/*
 * Read the target's handshake and check it names us and itself; after we
 * sent ours, it says the target took the connection.  0 or -1 (said why).
 */
static int expect_handshake(int fd, const struct opts *o,
			    const struct hs_frame *m1,
			    struct r2net_handshake_le *m2, long long deadline)
{
	uint8_t mac[R2NET_MAC_LEN];
	struct r2net_handshake hs;
	struct hs_frame f;
	struct r2net_msg m;
	enum r2net_reject r;

	if (recv_exact(fd, &f.h, sizeof(f.h), deadline)) {
		err("%s sent no handshake within %u ms; do -c %s, -s %u, -r %d and -T %u,%u,%u match its cluster, and is -b a node it does not have a connection with?",
		    o->target, o->wait_ms, o->cluster, o->sender, o->receiver,
		    o->idle_ms, o->keepalive_ms, o->reconnect_ms);
		return -1;
	}
	r = r2net_hdr_check(&f.h, sizeof(f.h), &m);
	if (r != R2NET_ACCEPT && r != R2NET_REJECT_TRUNCATED) {
		err("%s's first frame has a bad header (%s)", o->target,
		    r2net_reject_name(r));
		return -1;
	}
	if (m.type != R2NET_MSG_HANDSHAKE) {
		err("%s's first frame is of type 0x%x, not a handshake",
		    o->target, m.type);
		return -1;
	}
	if (recv_exact(fd, &f.p, sizeof(f.p), deadline)) {
		err("%s's handshake frame ended early", o->target);
		return -1;
	}
	r = r2net_handshake_decode(&hs, &f.p, sizeof(f.p));
	if (r != R2NET_ACCEPT) {
		err("%s's handshake does not decode (%s)", o->target,
		    r2net_reject_name(r));
		return -1;
	}
	if (hs.sender_node != o->receiver || hs.receiver_node != o->sender ||
	    strcmp(hs.cluster_name, o->cluster)) {
		err("%s's handshake says node %u of cluster %s to node %u; expected node %d of %s to node %u",
		    o->target, hs.sender_node, hs.cluster_name, hs.receiver_node,
		    o->receiver, o->cluster, o->sender);
		return -1;
	}
	hs_mac(o->key, "r2net hs2", &m1->p, R2NET_HANDSHAKE_LEN, &f.p,
	       R2NET_HS_SIGNED_LEN, mac);
	if (memcmp(mac, f.p.mac, sizeof(mac))) {
		err("%s's handshake MAC is wrong: is -k the cluster's key?",
		    o->target);
		return -1;
	}
	*m2 = f.p;
	return 0;
}

/*
 * A whole handshake on fd (m1 given, m2 read and checked, AUTH): 0, or -1
 * (said why).
 */
static int handshake(int fd, const struct opts *o, const struct hs_frame *m1,
		     struct auth_frame *a, struct r2net_handshake_le *m2out)
{
	struct r2net_handshake_le m2;

	if (send_all(fd, m1, sizeof(*m1))) {
		err("%s closed the connection during our handshake (%s); do -c, -s, -r, -T, -k and -b match a node it expects?",
		    o->target, strerror(errno));
		return -1;
	}
	if (expect_handshake(fd, o, m1, &m2, now_ms() + o->wait_ms))
		return -1;
	auth_frame_init(a, o, m1, &m2);
	if (send_all(fd, a, sizeof(*a))) {
		err("%s closed the connection at our AUTH (%s)", o->target,
		    strerror(errno));
		return -1;
	}
	if (m2out)
		*m2out = m2;
	return 0;
}

/* A keepalive and its tag: a frame after the handshake. */
struct tagged_ka {
	struct r2net_hdr h;
	uint8_t tag[R2NET_TAG_LEN];
};

/* The tag of frame number seq, of len bytes at p, under direction key. */
static void frame_tag(const uint8_t *key, uint64_t seq, const void *p,
		      size_t len, uint8_t *tag)
{
	uint8_t otk[P1305_KEY], n[8];
	struct p1305 ps;
	struct b2s st;
	int i;

	for (i = 0; i < 8; i++)
		n[i] = (uint8_t)(seq >> (8 * i));
	b2s_init(&st, key, R2NET_KEY_LEN);
	b2s_update(&st, n, sizeof(n));
	b2s_final(&st, otk);
	p1305_init(&ps, otk);
	p1305_update(&ps, p, len);
	p1305_final(&ps, tag);
}

/* The direction keys of a connection whose handshake was m1, m2. */
static void dir_keys(const struct opts *o, const struct hs_frame *m1,
		     const struct r2net_handshake_le *m2, uint8_t *c2a,
		     uint8_t *a2c)
{
	hs_mac(o->key, "r2net key c2a", &m1->p, R2NET_HANDSHAKE_LEN, m2,
	       R2NET_HANDSHAKE_LEN, c2a);
	hs_mac(o->key, "r2net key a2c", &m1->p, R2NET_HANDSHAKE_LEN, m2,
	       R2NET_HANDSHAKE_LEN, a2c);
}

/* The bytes a frame case sends, in buf; returns the length. */
static size_t build_case(const struct opts *o, unsigned char *buf,
			 size_t size)
{
	struct hs_frame f;
	struct r2net_hdr h;
	char other[R2NET_CLUSTER_NAME_LEN + 1];
	uint8_t wrong[R2NET_KEY_LEN];
	size_t i;

	hs_frame_init(&f, o, o->cluster);
	switch (o->c) {
	case C_BAD_MAGIC:
		f.h.magic = cpu_to_le16(0xdead);
		break;
	case C_BAD_VERSION:
		f.h.version = cpu_to_le16(R2NET_PROTOCOL_VERSION + 1);
		break;
	case C_UNKNOWN_TYPE:
		f.h.type = cpu_to_le16(0x777);
		break;
	case C_BAD_KEY:
		r2net_hdr_set_key(&f.h, 0x6b6579, 0);
		break;
	case C_MISMATCHED:
		other_cluster(o, other, sizeof(other));
		hs_frame_init(&f, o, other);
		break;
	case C_WRONG_KEY:
		memcpy(wrong, o->key, sizeof(wrong));
		wrong[0] ^= 1;
		hs_frame_init_key(&f, o, o->cluster, wrong);
		break;
	case C_TOO_LONG:
		r2net_hdr_init(&h, R2NET_MSG_HANDSHAKE, 0,
			       R2NET_MAX_PAYLOAD + 1, 1, 0);
		memcpy(buf, &h, sizeof(h));
		return sizeof(h);
	case C_TRUNCATED:
		r2net_hdr_init(&h, R2NET_MSG_USER_FIRST, 0, 4096, 1, 0);
		memcpy(buf, &h, sizeof(h));
		for (i = 0; i < 100; i++)
			buf[sizeof(h) + i] = (unsigned char)i;
		return sizeof(h) + 100;
	case C_GARBAGE:
		/* 64 bytes from a fixed xorshift; never the magic first. */
		{
			u32 x = 0x2545f491;

			for (i = 0; i < 64; i++) {
				x ^= x << 13;
				x ^= x >> 17;
				x ^= x << 5;
				buf[i] = (unsigned char)(x >> 24);
			}
			if (buf[0] == (R2NET_MAGIC & 0xff) &&
			    buf[1] == (R2NET_MAGIC >> 8))
				buf[0] ^= 0xff;
			return 64;
		}
	default:
		break;
	}
	if (size < sizeof(f))
		return 0;
	memcpy(buf, &f, sizeof(f));
	return sizeof(f);
}

static int finish_line(const struct opts *o, const char *sent,
		       enum closed_how how, long long ms, size_t got)
{
	bool ok = how != STILL_OPEN;

	printf("%s %s: %s; target %s", case_names[o->c], o->target, sent,
	       closed_name(how));
	if (ok)
		printf(" after %lld ms", ms);
	else
		printf(" %u ms later", o->wait_ms);
	if (got)
		printf(", having sent %zu bytes", got);
	printf(": %s\n", ok ? "ok" : "MISBEHAVED");
	if (!ok)
		err("%s did not close the connection after %s within %u ms (-w)",
		    o->target, case_names[o->c], o->wait_ms);
	return ok ? 0 : EXIT_MISBEHAVED;
}

/*
 * Send the bad bytes on fd (a target that closed at once may reset us),
 * then see whether and when the target closes; says so in one line (sent:
 * what was sent) and closes fd.
 */
static int send_bad(const struct opts *o, int fd, const void *buf,
		    size_t len, const char *sent)
{
	enum closed_how how;
	size_t got = 0;
	long long t0;

	t0 = now_ms();
	if (send_all(fd, buf, len) && errno != ECONNRESET && errno != EPIPE) {
		err("cannot send to %s: %s", o->target, strerror(errno));
		close(fd);
		return EXIT_MISBEHAVED;
	}
	if (o->c == C_TRUNCATED)
		shutdown(fd, SHUT_WR);
	how = wait_closed(fd, t0 + o->wait_ms, &got);
	close(fd);
	return finish_line(o, sent, how, now_ms() - t0, got);
}

/*
 * replayed-handshake: a handshake the target takes, on fd; then, on a new
 * connection, the same m1 and AUTH.  The target's fresh m2 makes the old
 * AUTH wrong: it must close.
 */
static int run_replay(const struct opts *o, int fd)
{
	struct r2net_handshake_le m2;
	struct auth_frame a;
	struct hs_frame m1;
	enum closed_how how;
	size_t got = 0;

	hs_frame_init(&m1, o, o->cluster);
	if (handshake(fd, o, &m1, &a, NULL)) {
		close(fd);
		return EXIT_MISBEHAVED;
	}
	/* Up once the target read AUTH: it then keeps the link, for now. */
	how = wait_closed(fd, now_ms() + 500, &got);
	close(fd);
	if (how != STILL_OPEN) {
		err("%s closed a connection whose handshake was right (%s); is -k the cluster's key?",
		    o->target, closed_name(how));
		return EXIT_MISBEHAVED;
	}
	/* The target must first take the old connection for closed. */
	usleep(1000 * 1000);
	fd = open_conn(o, false);
	if (fd < 0)
		return EXIT_MISBEHAVED;
	if (send_all(fd, &m1, sizeof(m1)) ||
	    recv_exact(fd, &m2, R2NET_HDR_LEN, now_ms() + o->wait_ms) ||
	    recv_exact(fd, &m2, sizeof(m2), now_ms() + o->wait_ms)) {
		err("%s did not answer the replayed first frame with its own handshake, as it should (its MAC is right)",
		    o->target);
		close(fd);
		return EXIT_MISBEHAVED;
	}
	return send_bad(o, fd, &a, sizeof(a),
			"a handshake it took, then its first frame and AUTH again on a new connection");
}

/*
 * forged-frame and replayed-frame, on fd: a whole handshake, then a
 * keepalive with a tag wrong in one bit, or the right one twice (the
 * first must be answered, with a right tag).  Returns what finish_line
 * does.
 */
static int run_frame_forgery(const struct opts *o, int fd)
{
	uint8_t c2a[R2NET_KEY_LEN], a2c[R2NET_KEY_LEN], want[R2NET_TAG_LEN];
	struct r2net_handshake_le m2;
	struct tagged_ka ka, resp;
	struct auth_frame a;
	struct hs_frame m1;
	unsigned int seq = 0;
	long long t0;

	hs_frame_init(&m1, o, o->cluster);
	if (handshake(fd, o, &m1, &a, &m2)) {
		close(fd);
		return EXIT_MISBEHAVED;
	}
	dir_keys(o, &m1, &m2, c2a, a2c);
	r2net_hdr_init(&ka.h, R2NET_MSG_KEEPALIVE_REQ, 0, 0, 0x6b61, 0);
	frame_tag(c2a, 0, &ka.h, sizeof(ka.h), ka.tag);
	if (o->c == C_FORGED_FRAME) {
		ka.tag[5] ^= 0x10;
		return send_bad(o, fd, &ka, sizeof(ka),
				"a handshake it took, then a keepalive whose tag is wrong in one bit");
	}
	t0 = now_ms();
	if (send_all(fd, &ka, sizeof(ka))) {
		err("%s closed the connection at our keepalive, whose tag was right (%s)",
		    o->target, strerror(errno));
		close(fd);
		return EXIT_MISBEHAVED;
	}
	/* Its answer: perhaps after a keepalive of its own. */
	do {
		if (recv_exact(fd, &resp, sizeof(resp), t0 + o->wait_ms)) {
			err("%s did not answer our keepalive, whose tag was right",
			    o->target);
			close(fd);
			return EXIT_MISBEHAVED;
		}
		frame_tag(a2c, seq++, &resp.h, sizeof(resp.h), want);
		if (memcmp(want, resp.tag, sizeof(want))) {
			err("%s's frame %u has a wrong tag: does this tool tag frames as r2net_wire.h says?",
			    o->target, seq - 1);
			close(fd);
			return EXIT_MISBEHAVED;
		}
	} while (le16_to_cpu(resp.h.type) != R2NET_MSG_KEEPALIVE_RESP);
	return send_bad(o, fd, &ka, sizeof(ka),
			"a handshake it took, a keepalive it answered, then that keepalive again");
}

/*
 * Send what is left of frame f (len bytes, *off sent) without blocking:
 * 1 all sent, 0 the target takes no more now, -1 it closed (errno).
 */
static int send_some(int fd, const unsigned char *f, size_t len, size_t *off)
{
	while (*off < len) {
		ssize_t n = send(fd, f + *off, len - *off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return -1;
		*off += (size_t)n;
	}
	return 1;
}

/* Until the target resets or ends fd, or deadline: without reading. */
static enum closed_how wait_hangup(int fd, long long deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLRDHUP };
		long long left = deadline - now_ms();
		int r, e = 0;
		socklen_t el = sizeof(e);

		if (left < 0)
			left = 0;
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return STILL_OPEN;
		if (p.revents & POLLERR) {
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
			return e == ECONNRESET ? CLOSED_RESET : CLOSED_ERROR;
		}
		return CLOSED_EOF;
	}
}

/*
 * never-read, on fd: a whole handshake, then echo requests, tagged, never
 * a reply read, until the target closes; it must within -w ms of the
 * first request.  A target that takes no more requests (for NR_STALL_MS)
 * is waited for without sending.
 */
static int run_never_read(const struct opts *o, int fd)
{
	uint8_t c2a[R2NET_KEY_LEN], a2c[R2NET_KEY_LEN];
	size_t flen = R2NET_HDR_LEN + NR_PAYLOAD + R2NET_TAG_LEN, off, i;
	unsigned long long sent = 0, seq = 0;
	enum closed_how how = STILL_OPEN;
	struct r2net_handshake_le m2;
	long long t0, last;
	struct auth_frame a;
	struct hs_frame m1;
	unsigned char *f;
	char line[200];
	int r;

	f = malloc(flen);
	if (!f) {
		err("out of memory");
		close(fd);
		return EXIT_USAGE;
	}
	hs_frame_init(&m1, o, o->cluster);
	if (handshake(fd, o, &m1, &a, &m2)) {
		free(f);
		close(fd);
		return EXIT_MISBEHAVED;
	}
	dir_keys(o, &m1, &m2, c2a, a2c);
	for (i = 0; i < NR_PAYLOAD; i++)
		f[R2NET_HDR_LEN + i] = (unsigned char)(i * 31 + 7);
	off = flen;
	t0 = last = now_ms();
	while (now_ms() - t0 < o->wait_ms) {
		if (off == flen) {
			r2net_hdr_init((struct r2net_hdr *)f, R2ECHO_TYPE, 0,
				       NR_PAYLOAD, seq + 1, 0);
			r2net_hdr_set_key((struct r2net_hdr *)f, R2ECHO_KEY, 0);
			frame_tag(c2a, seq++, f, flen - R2NET_TAG_LEN,
				  f + flen - R2NET_TAG_LEN);
			off = 0;
		}
		r = send_some(fd, f, flen, &off);
		if (r < 0) {
			how = errno == ECONNRESET ? CLOSED_RESET :
			      errno == EPIPE ? CLOSED_EOF : CLOSED_ERROR;
			break;
		}
		if (r > 0) {
			sent += flen;
			last = now_ms();
			continue;
		}
		if (now_ms() - last >= NR_STALL_MS) {
			how = wait_hangup(fd, t0 + o->wait_ms);
			break;
		}
		{
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			poll(&p, 1, 100);
		}
	}
	free(f);
	close(fd);
	snprintf(line, sizeof(line),
		 "a handshake it took, then %llu echo requests (%llu bytes), no reply read",
		 seq, sent);
	return finish_line(o, line, how, now_ms() - t0, 0);
}

/* Every case but flood: one connection, some bytes, wait for the close. */
static int run_frame_case(const struct opts *o)
{
	unsigned char buf[256];
	char sent[160];
	size_t len, got = 0;
	enum closed_how how;
	long long t0;
	int fd;

	fd = open_conn(o, false);
	if (fd < 0)
		return EXIT_MISBEHAVED;
	if (o->c == C_NOT_A_NODE) {
		t0 = now_ms();
		snprintf(sent, sizeof(sent), "connected from %s, sent nothing",
			 o->bind_str);
		how = wait_closed(fd, t0 + o->wait_ms, &got);
		close(fd);
		return finish_line(o, sent, how, now_ms() - t0, got);
	}
	if (o->c == C_GARBAGE) {
		struct auth_frame a;
		struct hs_frame f;

		hs_frame_init(&f, o, o->cluster);
		if (handshake(fd, o, &f, &a, NULL)) {
			close(fd);
			return EXIT_MISBEHAVED;
		}
	}
	if (o->c == C_REPLAY)
		return run_replay(o, fd);
	if (o->c == C_FORGED_FRAME || o->c == C_REPLAYED_FRAME)
		return run_frame_forgery(o, fd);
	if (o->c == C_NEVER_READ)
		return run_never_read(o, fd);
	len = build_case(o, buf, sizeof(buf));
	snprintf(sent, sizeof(sent), "sent %zu bytes%s%s", len,
		 o->c == C_GARBAGE ? " after a handshake it answered" : "",
		 o->c == C_TRUNCATED ? " of a 4128-byte frame, then end of stream" : "");
	return send_bad(o, fd, buf, len, sent);
}

/* The flood's connections; times are ms since t0, -1 for not yet. */
struct flood {
	unsigned int n, up, failed;
	int *fd;			/* -1: failed, closed */
	long long *conn_at, *closed_at;
	struct pollfd *p;
	long long t0, deadline;
};

/*
 * Poll every connection once, at most timeout ms: a connection is up when
 * it is writable without an error, and closed when a read says so.
 * Returns how many are still to be watched.
 */
static unsigned int flood_poll(struct flood *f, const struct opts *o,
			       long long timeout)
{
	unsigned int i, waiting = 0;
	long long t;

	for (i = 0; i < f->n; i++) {
		f->p[i].fd = f->fd[i] >= 0 && f->closed_at[i] < 0 ? f->fd[i] : -1;
		f->p[i].events = f->conn_at[i] < 0 ? POLLOUT : POLLIN;
		f->p[i].revents = 0;
	}
	poll(f->p, f->n, timeout < 0 ? 0 : (int)timeout);
	t = now_ms() - f->t0;
	for (i = 0; i < f->n; i++) {
		int e = 0;
		socklen_t el = sizeof(e);
		char b[512];
		ssize_t r;

		if (f->p[i].fd < 0)
			continue;
		if (!f->p[i].revents) {
			waiting++;
			continue;
		}
		if (f->conn_at[i] < 0) {
			getsockopt(f->fd[i], SOL_SOCKET, SO_ERROR, &e, &el);
			if (e && e != ECONNRESET) {
				if (!f->failed)
					err("connection %u to %s failed: %s",
					    i, o->target, strerror(e));
				f->failed++;
				close(f->fd[i]);
				f->fd[i] = -1;
				continue;
			}
			f->conn_at[i] = t;
			f->up++;
			/*
			 * Watch until twice the last one's idle timeout: a
			 * loaded TCG guest fires its timers seconds late.
			 */
			f->deadline = f->t0 + t + 2LL * o->idle_ms + o->wait_ms;
			if (e)
				f->closed_at[i] = t;	/* reset at once */
			else
				waiting++;
			continue;
		}
		r = recv(f->fd[i], b, sizeof(b), MSG_DONTWAIT);
		if (r > 0 || (r < 0 && (errno == EAGAIN || errno == EINTR))) {
			waiting++;
			continue;
		}
		f->closed_at[i] = t;
	}
	return waiting;
}

/*
 * flood: open n connections at once and send nothing.  One the target
 * closes within the at-once window of its connecting was refused; it may
 * keep at most max_pending, and must close those by twice its idle
 * timeout (plus wait_ms).
 */
static int run_flood(const struct opts *o)
{
	unsigned int n = o->flood_n, i, refused = 0, kept = 0, later = 0;
	long long first_late = -1, last_late = -1;
	long long window = o->wait_ms;
	struct flood f = { .n = n };
	struct rlimit rl;
	int ret = 0;

	/* Refusals take milliseconds; the idle timer closes the kept ones. */
	if (window > o->idle_ms / 2)
		window = o->idle_ms / 2;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < n + 16) {
		rl.rlim_cur = rl.rlim_max < n + 16 ? rl.rlim_max : n + 16;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	f.p = calloc(n, sizeof(*f.p));
	f.fd = calloc(n, sizeof(*f.fd));
	f.conn_at = calloc(n, sizeof(*f.conn_at));
	f.closed_at = calloc(n, sizeof(*f.closed_at));
	if (!f.p || !f.fd || !f.conn_at || !f.closed_at) {
		err("out of memory for %u connections", n);
		exit(EXIT_USAGE);
	}
	for (i = 0; i < n; i++) {
		f.fd[i] = -1;
		f.conn_at[i] = -1;
		f.closed_at[i] = -1;
	}
	f.t0 = now_ms();
	f.deadline = f.t0 + o->wait_ms;
	/* Open them one by one, noting at once each that connects. */
	for (i = 0; i < n; i++) {
		f.fd[i] = open_conn(o, true);
		if (f.fd[i] < 0)
			f.failed++;
		flood_poll(&f, o, 0);
	}
	while (flood_poll(&f, o, f.deadline - now_ms()) &&
	       now_ms() < f.deadline)
		;

	for (i = 0; i < n; i++) {
		if (f.fd[i] < 0)
			continue;
		if (f.conn_at[i] < 0) {		/* never connected */
			f.failed++;
		} else if (f.closed_at[i] >= 0 &&
			   f.closed_at[i] - f.conn_at[i] <= window) {
			refused++;
		} else {
			kept++;
			if (f.closed_at[i] >= 0) {
				long long d = f.closed_at[i] - f.conn_at[i];

				later++;
				if (first_late < 0 || d < first_late)
					first_late = d;
				if (d > last_late)
					last_late = d;
			}
		}
		close(f.fd[i]);
	}
	printf("flood %s: %u of %u connected, sent nothing; %u closed at once (within %lld ms), %u kept",
	       o->target, f.up, n, refused, window, kept);
	if (later)
		printf(", %u of them closed after %lld..%lld ms", later,
		       first_late, last_late);
	if (kept > later)
		printf(", %u still open after %llu ms", kept - later,
		       2ULL * o->idle_ms + o->wait_ms);
	if (f.failed) {
		err("%u of %u connections to %s could not be made; is the listener there, and its backlog that small?",
		    f.failed, n, o->target);
		ret = EXIT_MISBEHAVED;
	}
	if (kept > o->max_pending) {
		err("%s kept %u connections without a handshake from one address; at most %u (-p) expected",
		    o->target, kept, o->max_pending);
		ret = EXIT_MISBEHAVED;
	}
	if (kept > later) {
		err("%s kept %u connections without a handshake past twice its idle timeout %u ms (-T) + %u ms (-w)",
		    o->target, kept - later, o->idle_ms, o->wait_ms);
		ret = EXIT_MISBEHAVED;
	}
	printf(": %s\n", ret ? "MISBEHAVED" : "ok");
	free(f.p);
	free(f.fd);
	free(f.conn_at);
	free(f.closed_at);
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o;

	parse_args(argc, argv, &o);
	if (b2s_selftest() || p1305_selftest()) {
		err("BLAKE2s or Poly1305 fails its RFC test vector: this build is broken");
		return EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (o.c == C_FLOOD)
		return run_flood(&o);
	return run_frame_case(&o);
}
