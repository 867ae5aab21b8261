// SPDX-License-Identifier: GPL-2.0
/*
 * tcpping: a plain userspace TCP ping-pong, the yardstick for r2net.
 *
 * "tcpping server" echoes every byte it reads on a connection back on it.
 * "tcpping client" does what r2echo's sync and async commands do, over one
 * plain TCP connection to such a server: COUNT synchronous round trips of
 * LEN bytes (send them, read the echo, compare it), each one timed, then
 * a throughput phase with WINDOW messages of SIZE bytes in flight.  Both
 * ends set TCP_NODELAY, as r2net does.  Message number seq carries the
 * same pattern r2echo uses (an xorshift stream seeded from seq), so a
 * byte that comes back from the wrong message or place does not pass.
 *
 * Results are "name value" lines on stdout, like r2echo's.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define EXIT_MISMATCH	1	/* an echo came back wrong */
#define EXIT_USAGE	2
#define EXIT_NET	3	/* no connection, or it broke or stalled */

#define DEFAULT_PORT	7778
#define MAX_LEN		(1u << 20)
#define MAX_SYNC_LEN	65536u	/* the echo fits in the socket buffers */
#define MAX_COUNT	10000000u
#define MAX_WINDOW	4096u
#define RX_CHUNK	65536

static const char *prog = "tcpping";

struct opts {
	struct sockaddr_in addr;
	char target[32];	/* ADDR:PORT, for messages */
	unsigned int len, count;
	unsigned int size, window, tput_count, tput_secs;
	unsigned int timeout_ms;
	unsigned int conns;	/* server: connections to serve, 0 = any */
	bool quiet;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: tcpping server [-q] [-c CONNS] [ADDRESS][:PORT]\n"
"       tcpping client [options] ADDRESS[:PORT]\n"
"       tcpping --help\n"
"\n"
"A plain TCP ping-pong between two machines, to compare r2net with (see\n"
"tests/r2echo).  Port default %d.  Both ends set TCP_NODELAY.\n"
"\n"
"server: listen on ADDRESS (default any) and echo every byte read on a\n"
"  connection back on it; one connection at a time.\n"
"  -c CONNS   exit after serving CONNS connections (default 0: never)\n"
"  -q         do not log connections on stderr\n"
"\n"
"client: connect to the server, then\n"
"  1. COUNT synchronous round trips of LEN bytes: send them, read the\n"
"     echo, compare every byte; each round trip is timed;\n"
"  2. a throughput phase: SIZE-byte messages, WINDOW of them in flight\n"
"     (pipelined), every echoed byte compared, for COUNT messages or\n"
"     SECS seconds.\n"
"  -l LEN     bytes per synchronous round trip, 1..%u (default 1)\n"
"  -n COUNT   synchronous round trips, 0..%u (default 1000; 0 skips 1.)\n"
"  -s SIZE    throughput message size, 1..%u (default 4096)\n"
"  -w WINDOW  throughput messages in flight, 0..%u (default 64; 0 skips 2.)\n"
"  -m COUNT   throughput messages, 1..%u (default 10000)\n"
"  -t SECS    throughput for SECS seconds instead of -m messages\n"
"  -T MS      give up when nothing moves for MS ms (default 10000)\n"
"\n"
"Client output, one \"name value\" line each (latencies in microseconds,\n"
"nearest rank; MB = 10^6 bytes of payload one way):\n"
"  sync_len sync_count sync_ok sync_elapsed_us sync_lat_p50_us\n"
"  sync_lat_p99_us sync_lat_max_us sync_msgs_per_s\n"
"  tput_size tput_window tput_count tput_ok tput_elapsed_us\n"
"  tput_lat_p50_us tput_lat_p99_us tput_lat_max_us tput_msgs_per_s\n"
"  tput_mb_per_s\n"
"  mismatches\n"
"\n"
"Exit status: 0 every echo came back right; 1 an echo came back wrong\n"
"(the first bad message and offset are named on stderr); 2 bad usage; 3\n"
"no connection, or it broke or stalled for -T ms.\n",
		DEFAULT_PORT, MAX_SYNC_LEN, MAX_COUNT, MAX_LEN, MAX_WINDOW,
		MAX_COUNT);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	exit(EXIT_USAGE);
}

static void __attribute__((noreturn, format(printf, 2, 3)))
die(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
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

/* ADDRESS[:PORT]; an empty ADDRESS is any (server only). */
static void parse_addr(const char *s, struct opts *o, bool any_ok)
{
	char buf[64];
	char *colon;

	if (strlen(s) >= sizeof(buf))
		usage_err("address '%.64s...' is too long", s);
	strcpy(buf, s);
	memset(&o->addr, 0, sizeof(o->addr));
	o->addr.sin_family = AF_INET;
	o->addr.sin_port = htons(DEFAULT_PORT);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		o->addr.sin_port = htons((uint16_t)parse_uint(colon + 1, 1,
							      65535, "port"));
	}
	if (!buf[0] && any_ok)
		o->addr.sin_addr.s_addr = htonl(INADDR_ANY);
	else if (inet_pton(AF_INET, buf, &o->addr.sin_addr) != 1)
		usage_err("'%s' is not a dotted IPv4 address", buf);
	snprintf(o->target, sizeof(o->target), "%s:%u",
		 inet_ntoa(o->addr.sin_addr), ntohs(o->addr.sin_port));
}

/* The bytes of message seq: r2echo's pattern (tests/r2echo/r2echo.c). */
static void fill(uint8_t *buf, uint32_t len, uint32_t seq)
{
	uint32_t x = (seq + 1) * 0x9e3779b9u ^ 0x52a5ec40u;
	uint32_t i;

	if (!x)
		x = 1;
	for (i = 0; i < len; i++) {
		if (!(i & 3)) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
		}
		buf[i] = x >> (8 * (i & 3));
	}
}

static void set_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die(EXIT_NET, "setsockopt TCP_NODELAY: %s", strerror(errno));
}

/* ---- server ---- */

static bool echo_all(int fd, const uint8_t *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

static int serve(const struct opts *o)
{
	static uint8_t buf[RX_CHUNK];
	unsigned int served = 0;
	int lfd, fd, one = 1;
	struct sockaddr_in peer;
	socklen_t plen;
	ssize_t n;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		die(EXIT_NET, "socket: %s", strerror(errno));
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&o->addr, sizeof(o->addr)))
		die(EXIT_NET, "cannot listen on %s: %s; give an address of this machine and a free port",
		    o->target, strerror(errno));
	if (listen(lfd, 8))
		die(EXIT_NET, "listen on %s: %s", o->target, strerror(errno));
	if (!o->quiet)
		fprintf(stderr, "%s: serving on %s\n", prog, o->target);

	while (!o->conns || served < o->conns) {
		plen = sizeof(peer);
		fd = accept(lfd, (struct sockaddr *)&peer, &plen);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die(EXIT_NET, "accept on %s: %s", o->target,
			    strerror(errno));
		}
		set_nodelay(fd);
		served++;
		if (!o->quiet)
			fprintf(stderr, "%s: connection from %s:%u\n", prog,
				inet_ntoa(peer.sin_addr), ntohs(peer.sin_port));
		for (;;) {
			n = read(fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0 || !echo_all(fd, buf, n))
				break;
		}
		close(fd);
	}
	close(lfd);
	return 0;
}

/* ---- client ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as r2echo: the smallest value with pct % at or below it. */
static uint32_t pct(const uint32_t *lat, uint64_t n, unsigned int p)
{
	uint64_t rank;

	if (!n)
		return 0;
	rank = (n * p + 99) / 100;
	return lat[(rank ? rank : 1) - 1];
}

static uint32_t clamp_us(uint64_t us)
{
	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

/* The first byte where got differs from want; the caller knows they do. */
static size_t first_diff(const uint8_t *got, const uint8_t *want, size_t n)
{
	size_t i;

	for (i = 0; i < n && got[i] == want[i]; i++)
		;
	return i;
}

static void __attribute__((noreturn))
mismatch(const char *phase, uint64_t seq, size_t off, uint8_t got,
	 uint8_t want)
{
	printf("mismatches 1\n");
	fflush(stdout);
	die(EXIT_MISMATCH, "%s message %" PRIu64 ": byte %zu came back as 0x%02x, sent 0x%02x; the echo is wrong",
	    phase, seq, off, got, want);
}

/* A blocking connection whose reads and writes give up after -T ms. */
static int connect_to(const struct opts *o)
{
	struct timeval tv = {
		.tv_sec = o->timeout_ms / 1000,
		.tv_usec = (o->timeout_ms % 1000) * 1000,
	};
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die(EXIT_NET, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&o->addr, sizeof(o->addr)))
		die(EXIT_NET, "cannot connect to %s: %s; is 'tcpping server' running there?",
		    o->target, strerror(errno));
	set_nodelay(fd);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die(EXIT_NET, "setsockopt SO_RCVTIMEO/SO_SNDTIMEO: %s",
		    strerror(errno));
	return fd;
}

static void __attribute__((noreturn))
broken(const struct opts *o, const char *doing, ssize_t n)
{
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		die(EXIT_NET, "%s %s: nothing moved for %u ms; is 'tcpping server' still running there?",
		    doing, o->target, o->timeout_ms);
	if (n == 0)
		die(EXIT_NET, "%s %s: the server closed the connection", doing,
		    o->target);
	die(EXIT_NET, "%s %s: %s", doing, o->target, strerror(errno));
}

static void run_sync(int fd, const struct opts *o)
{
	uint8_t *req = malloc(o->len), *rep = malloc(o->len);
	uint32_t *lat = malloc(sizeof(*lat) * (size_t)o->count);
	uint64_t start, t0, elapsed;
	size_t done, off;
	uint32_t seq;
	ssize_t n;

	if (!req || !rep || !lat)
		die(EXIT_NET, "out of memory for %u round trips of %u bytes",
		    o->count, o->len);
	start = now_us();
	for (seq = 0; seq < o->count; seq++) {
		fill(req, o->len, seq);
		t0 = now_us();
		for (done = 0; done < o->len; done += n) {
			n = write(fd, req + done, o->len - done);
			if (n < 0 && errno == EINTR)
				n = 0;
			else if (n <= 0)
				broken(o, "sending to", n);
		}
		for (done = 0; done < o->len; done += n) {
			n = read(fd, rep + done, o->len - done);
			if (n < 0 && errno == EINTR)
				n = 0;
			else if (n <= 0)
				broken(o, "waiting for the echo from", n);
		}
		if (memcmp(rep, req, o->len)) {
			off = first_diff(rep, req, o->len);
			mismatch("sync", seq, off, rep[off], req[off]);
		}
		lat[seq] = clamp_us(now_us() - t0);
	}
	elapsed = now_us() - start;
	qsort(lat, o->count, sizeof(*lat), cmp_u32);
	printf("sync_len %u\nsync_count %u\nsync_ok %u\nsync_elapsed_us %" PRIu64
	       "\nsync_lat_p50_us %u\nsync_lat_p99_us %u\nsync_lat_max_us %u\n"
	       "sync_msgs_per_s %" PRIu64 "\n",
	       o->len, o->count, o->count, elapsed, pct(lat, o->count, 50),
	       pct(lat, o->count, 99), lat[o->count - 1],
	       elapsed ? (uint64_t)o->count * 1000000 / elapsed : 0);
	fflush(stdout);
	free(req);
	free(rep);
	free(lat);
}

/* lat[n] = us, growing the array as needed. */
static void lat_add(uint32_t **lat, uint64_t *cap, uint64_t n, uint32_t us)
{
	if (n == *cap) {
		*cap = *cap ? *cap * 2 : 65536;
		*lat = realloc(*lat, sizeof(**lat) * *cap);
		if (!*lat)
			die(EXIT_NET, "out of memory for %" PRIu64 " latencies", *cap);
	}
	(*lat)[n] = us;
}

/*
 * The throughput phase, on a non-blocking socket.  Message seq is in slot
 * seq % window from its first byte sent to its last byte echoed, so its
 * echo is compared with what was sent; a new message starts only when
 * fewer than window are in flight.  sent counts messages written whole;
 * send_off bytes of the next one are written.
 */
static void run_tput(int fd, const struct opts *o)
{
	uint8_t *slots = malloc((size_t)o->window * o->size);
	uint8_t *rx = malloc(RX_CHUNK);
	uint64_t *start = malloc(sizeof(*start) * o->window);
	uint64_t sent = 0, got = 0, tx_bytes = 0, rx_bytes = 0, cap = 0;
	uint64_t t_begin, t_stop, elapsed;
	size_t send_off = 0, recv_off = 0;
	struct pollfd p = { .fd = fd };
	uint32_t *lat = NULL;
	bool stopped = false, timed;
	ssize_t n;
	int r, fl;

	if (!slots || !rx || !start)
		die(EXIT_NET, "out of memory for %u messages of %u bytes in flight",
		    o->window, o->size);
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		die(EXIT_NET, "fcntl O_NONBLOCK: %s", strerror(errno));
	t_begin = now_us();
	t_stop = t_begin + (uint64_t)o->tput_secs * 1000000;
	for (;;) {
		/* Start and write messages while the window allows. */
		while (!stopped) {
			uint8_t *m = slots + (sent % o->window) * o->size;

			if (!send_off) {
				if ((!o->tput_secs && sent == o->tput_count) ||
				    (o->tput_secs && now_us() >= t_stop)) {
					stopped = true;
					break;
				}
				if (sent - got >= o->window)
					break;
				fill(m, o->size, (uint32_t)sent);
				start[sent % o->window] = now_us();
			}
			n = write(fd, m + send_off, o->size - send_off);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (n <= 0)
				broken(o, "sending to", n);
			tx_bytes += n;
			send_off += n;
			if (send_off == o->size) {
				send_off = 0;
				sent++;
			}
		}
		if (stopped && got == sent)
			break;

		p.events = POLLIN;
		if (!stopped && (send_off || sent - got < o->window))
			p.events |= POLLOUT;
		/* Timed: wake up now and then to see whether time is up. */
		timed = o->tput_secs && !stopped;
		do
			r = poll(&p, 1, timed ? 100 : (int)o->timeout_ms);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			die(EXIT_NET, "poll: %s", strerror(errno));
		if (!r && !timed)
			die(EXIT_NET, "throughput to %s: nothing moved for %u ms with %" PRIu64 " messages in flight; is 'tcpping server' still running there?",
			    o->target, o->timeout_ms, sent - got);
		if (!(p.revents & (POLLIN | POLLERR | POLLHUP)))
			continue;

		n = read(fd, rx, RX_CHUNK);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			broken(o, "reading from", n);
		rx_bytes += n;
		if (rx_bytes > tx_bytes)
			die(EXIT_MISMATCH, "the server echoed %" PRIu64 " bytes more than were sent; the echo is wrong",
			    rx_bytes - tx_bytes);
		/* Compare what came with the messages it belongs to. */
		for (size_t i = 0; i < (size_t)n;) {
			const uint8_t *want = slots + (got % o->window) * o->size;
			size_t k = o->size - recv_off, off;

			if (k > (size_t)n - i)
				k = n - i;
			if (memcmp(rx + i, want + recv_off, k)) {
				off = first_diff(rx + i, want + recv_off, k);
				mismatch("throughput", got, recv_off + off,
					 rx[i + off], want[recv_off + off]);
			}
			i += k;
			recv_off += k;
			if (recv_off == o->size) {
				lat_add(&lat, &cap, got,
					clamp_us(now_us() - start[got % o->window]));
				recv_off = 0;
				got++;
			}
		}
	}
	elapsed = now_us() - t_begin;
	if (got)
		qsort(lat, got, sizeof(*lat), cmp_u32);
	printf("tput_size %u\ntput_window %u\ntput_count %" PRIu64
	       "\ntput_ok %" PRIu64 "\ntput_elapsed_us %" PRIu64
	       "\ntput_lat_p50_us %u\ntput_lat_p99_us %u\ntput_lat_max_us %u\n"
	       "tput_msgs_per_s %" PRIu64 "\ntput_mb_per_s %.2f\n",
	       o->size, o->window, got, got, elapsed, pct(lat, got, 50),
	       pct(lat, got, 99), got ? lat[got - 1] : 0,
	       elapsed ? got * 1000000 / elapsed : 0,
	       elapsed ? (double)got * o->size / elapsed : 0.0);
	fflush(stdout);
	free(slots);
	free(rx);
	free(start);
	free(lat);
}

static int client(const struct opts *o)
{
	int fd = connect_to(o);

	if (o->count)
		run_sync(fd, o);
	if (o->window)
		run_tput(fd, o);
	printf("mismatches 0\n");
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.len = 1, .count = 1000, .size = 4096, .window = 64,
		.tput_count = 10000, .timeout_ms = 10000,
	};
	const char *optstr;
	bool server;
	int opt, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	}
	if (argc < 2)
		usage_err("say 'server' or 'client'");
	if (!strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "server"))
		server = true;
	else if (!strcmp(argv[1], "client"))
		server = false;
	else
		usage_err("unknown mode '%s'; say 'server' or 'client'", argv[1]);

	optind = 2;
	optstr = server ? "+c:qh" : "+l:n:s:w:m:t:T:h";
	while ((opt = getopt(argc, argv, optstr)) != -1) {
		switch (opt) {
		case 'c':
			o.conns = parse_uint(optarg, 0, UINT32_MAX, "-c");
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'l':
			o.len = parse_uint(optarg, 1, MAX_SYNC_LEN, "-l");
			break;
		case 'n':
			o.count = parse_uint(optarg, 0, MAX_COUNT, "-n");
			break;
		case 's':
			o.size = parse_uint(optarg, 1, MAX_LEN, "-s");
			break;
		case 'w':
			o.window = parse_uint(optarg, 0, MAX_WINDOW, "-w");
			break;
		case 'm':
			o.tput_count = parse_uint(optarg, 1, MAX_COUNT, "-m");
			break;
		case 't':
			o.tput_secs = parse_uint(optarg, 1, 86400, "-t");
			break;
		case 'T':
			o.timeout_ms = parse_uint(optarg, 1, 3600000, "-T");
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage_err("bad option");
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (server) {
		if (argc - optind > 1)
			usage_err("server takes at most one ADDRESS[:PORT]");
		parse_addr(optind < argc ? argv[optind] : "", &o, true);
		return serve(&o);
	}
	if (argc - optind != 1)
		usage_err("client takes one ADDRESS[:PORT], the server's");
	parse_addr(argv[optind], &o, false);
	if (!o.count && !o.window)
		usage_err("-n 0 and -w 0 leave nothing to do");
	return client(&o);
}
