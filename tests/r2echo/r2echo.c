// SPDX-License-Identifier: GPL-2.0
/*
 * r2echo: an echo service over r2net, and a client that checks it.
 *
 * Every node that loads it answers (R2ECHO_TYPE, R2ECHO_KEY) requests with
 * their own payload.  Writing a command to /sys/kernel/debug/r2echo/run
 * sends echoes to another node and checks every reply: its status and
 * length are the request's length and its bytes are the request's.  The
 * payload of message number seq is a pattern made from seq, so a reply
 * that belongs to another request does not pass.  Asynchronous echoes are
 * tracked by sequence number: a request never completed is lost, one
 * completed twice a duplicate.  r2net's node events are logged in
 * /sys/kernel/debug/r2echo/events.  See r2echo.h for the syntax.
 */
#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "r2net.h"
#include "r2echo.h"

#define R2ECHO_MAX_COUNT	1000000
#define R2ECHO_MAX_WINDOW	4096
#define R2ECHO_MAX_EVENTS	10000
#define R2ECHO_CMD_MAX		128
#define R2ECHO_OUT_MAX		768
#define R2ECHO_USAGE \
	"sync NODE LEN COUNT | page NODE COUNT | async NODE LEN COUNT WINDOW (NODE 0..254, LEN 0..66184 or MIN-MAX, COUNT 1..1000000, WINDOW 1..4096)"

/*
 * With WINDOW requests queued on one connection, the last waits for all
 * the others: under emulation that can take longer than a short idle
 * timeout, which is the default timeout of a request.
 */
static unsigned int async_timeout_ms = 30000;
module_param(async_timeout_ms, uint, 0644);
MODULE_PARM_DESC(async_timeout_ms, "Timeout of each async request (ms; 0: r2net's idle timeout)");

static unsigned int wait_ms = 60000;
module_param(wait_ms, uint, 0644);
MODULE_PARM_DESC(wait_ms, "How long async waits for outstanding replies after its last send (ms)");

enum r2echo_op { R2ECHO_SYNC, R2ECHO_PAGE, R2ECHO_ASYNC };

static const char * const r2echo_op_names[] = {
	[R2ECHO_SYNC]	= "sync",
	[R2ECHO_PAGE]	= "page",
	[R2ECHO_ASYNC]	= "async",
};

struct r2echo_cmd {
	enum r2echo_op	op;
	u8		node;
	u32		len_min;
	u32		len_max;
	u32		count;
	u32		window;
};

/* What a command measured; checked replies only count as ok. */
struct r2echo_result {
	u64	ok;
	u64	errors;
	int	first_error;
	u64	mismatches;
	u64	lost;
	u64	duplicates;
	u64	elapsed_us;
	u32	*lat;		/* microseconds, one per ok reply */
	u32	nr_lat;
};

/* One outstanding asynchronous echo; its payload stays until done. */
struct r2echo_req {
	u32	seq;
	u32	len;
	ktime_t	start;
	u8	data[];
};

/* The async command running; completions find it under r2echo_async_lock. */
struct r2echo_async {
	wait_queue_head_t	wq;
	struct xarray		reqs;		/* seq -> struct r2echo_req */
	unsigned long		*done_map;	/* seq completed */
	struct r2echo_result	*res;
	u32			count;
	u32			in_flight;
	u32			accepted;
	u32			completed;
};

static DEFINE_SPINLOCK(r2echo_async_lock);
static struct r2echo_async *r2echo_async_cur;

/* Serializes commands; guards r2echo_out. */
static DEFINE_MUTEX(r2echo_run_lock);
static char r2echo_out[R2ECHO_OUT_MAX];

struct r2echo_event {
	struct list_head	list;
	bool			up;
	u8			node;
	u64			ms;
};

static LIST_HEAD(r2echo_event_list);
static DEFINE_MUTEX(r2echo_events_lock);
static unsigned int r2echo_nr_events;

static struct dentry *r2echo_dir;

/* ---- the echo service ---- */

static s32 r2echo_handler(struct r2net_request *req, void *data)
{
	int err = r2net_reply_add(req, req->data, req->len);

	return err ?: req->len;
}

/* ---- payloads ---- */

/* The bytes of message seq: an xorshift stream seeded from seq. */
static void r2echo_fill(u8 *buf, u32 len, u32 seq)
{
	u32 x = (seq + 1) * 0x9e3779b9u ^ 0x52a5ec40u;
	u32 i;

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

static u32 r2echo_len(const struct r2echo_cmd *c, u32 seq)
{
	u32 span = c->len_max - c->len_min + 1;

	if (span == 1)
		return c->len_min;
	return c->len_min + hash_32(seq, 32) % span;
}

/* The handle the page command sends with message seq. */
static void r2echo_handle(struct tmem_handle *h, u32 seq)
{
	h->pool_id = seq % TMEM_MAX_POOLS_PER_CLIENT;
	h->index = ~seq;
	h->oid[0] = (u64)seq * 0x9e3779b97f4a7c15ull;
	h->oid[1] = ((u64)R2ECHO_KEY << 32) | seq;
	h->oid[2] = ~(u64)seq;
}

static void r2echo_error(struct r2echo_result *res, int err)
{
	res->errors++;
	if (!res->first_error)
		res->first_error = err;
}

static void r2echo_mismatch(struct r2echo_result *res, u32 seq, int status,
			    u32 want, u32 got)
{
	if (!res->mismatches++)
		pr_warn("echo %u: status %d, %u bytes back, want %u and the bytes sent\n",
			seq, status, got, want);
}

/* ---- sync and page ---- */

static int r2echo_run_sync(const struct r2echo_cmd *c,
			   struct r2echo_result *res)
{
	struct r2net_reply reply;
	struct kvec vec;
	u8 *req, *rep;
	ktime_t t0;
	u32 seq, len;
	int err;

	req = kvmalloc(R2NET_MAX_PAYLOAD, GFP_KERNEL);
	rep = kvmalloc(R2NET_MAX_PAYLOAD, GFP_KERNEL);
	if (!req || !rep) {
		kvfree(req);
		kvfree(rep);
		return -ENOMEM;
	}
	for (seq = 0; seq < c->count; seq++) {
		len = r2echo_len(c, seq);
		r2echo_fill(req, len, seq);
		memset(rep, 0xa5, R2NET_MAX_PAYLOAD);
		vec.iov_base = req;
		vec.iov_len = len;
		reply = (struct r2net_reply){
			.buf = rep,
			.buf_len = R2NET_MAX_PAYLOAD,
		};
		t0 = ktime_get();
		err = r2net_send_sync(c->node, R2ECHO_TYPE, R2ECHO_KEY, &vec, 1,
				      &reply, 0);
		if (err) {
			/* The node is unreachable: do not wait on it again. */
			r2echo_error(res, err);
			break;
		}
		if (reply.status != len || reply.len != len ||
		    memcmp(rep, req, len)) {
			r2echo_mismatch(res, seq, reply.status, len, reply.len);
			continue;
		}
		res->lat[res->nr_lat++] = ktime_us_delta(ktime_get(), t0);
		res->ok++;
		cond_resched();
	}
	kvfree(req);
	kvfree(rep);
	return 0;
}

static bool r2echo_handle_equal(const struct tmem_handle *a,
				const struct tmem_handle *b)
{
	return a->pool_id == b->pool_id && a->index == b->index &&
	       a->oid[0] == b->oid[0] && a->oid[1] == b->oid[1] &&
	       a->oid[2] == b->oid[2];
}

static int r2echo_run_page(const struct r2echo_cmd *c,
			   struct r2echo_result *res)
{
	struct r2net_tmem_page_le *msg;
	struct tmem_handle h, got;
	struct r2net_reply reply;
	const u8 *got_page;
	struct kvec vec;
	u8 *page, *rep;
	ktime_t t0;
	u32 seq;
	int err;

	msg = kmalloc(sizeof(*msg), GFP_KERNEL);
	page = kmalloc(TMEM_PAGE_SIZE, GFP_KERNEL);
	rep = kvmalloc(R2NET_MAX_PAYLOAD, GFP_KERNEL);
	if (!msg || !page || !rep) {
		err = -ENOMEM;
		goto out;
	}
	for (seq = 0; seq < c->count; seq++) {
		r2echo_handle(&h, seq);
		r2echo_fill(page, TMEM_PAGE_SIZE, seq);
		r2net_tmem_page_encode(msg, &h, page);
		memset(rep, 0xa5, R2NET_MAX_PAYLOAD);
		vec.iov_base = msg;
		vec.iov_len = sizeof(*msg);
		reply = (struct r2net_reply){
			.buf = rep,
			.buf_len = R2NET_MAX_PAYLOAD,
		};
		t0 = ktime_get();
		err = r2net_send_sync(c->node, R2ECHO_TYPE, R2ECHO_KEY, &vec, 1,
				      &reply, 0);
		if (err) {
			r2echo_error(res, err);
			break;
		}
		if (reply.status != R2NET_PAGE_MSG_LEN ||
		    r2net_tmem_page_decode(&got, &got_page, rep,
					   reply.len) != R2NET_ACCEPT ||
		    !r2echo_handle_equal(&got, &h) ||
		    memcmp(got_page, page, TMEM_PAGE_SIZE)) {
			r2echo_mismatch(res, seq, reply.status,
					R2NET_PAGE_MSG_LEN, reply.len);
			continue;
		}
		res->lat[res->nr_lat++] = ktime_us_delta(ktime_get(), t0);
		res->ok++;
		cond_resched();
	}
	err = 0;
out:
	kfree(msg);
	kfree(page);
	kvfree(rep);
	return err;
}

/* ---- async ---- */

/*
 * r2net calls this exactly once per accepted request; arg is its sequence
 * number.  A second call for one is counted, not trusted.
 */
static void r2echo_async_done(void *arg, int err, s32 status,
			      const void *data, u32 len)
{
	u32 seq = (uintptr_t)arg;
	struct r2echo_req *r = NULL;
	struct r2echo_async *a;
	struct r2echo_result *res;

	spin_lock(&r2echo_async_lock);
	a = r2echo_async_cur;
	if (!a || seq >= a->count) {
		spin_unlock(&r2echo_async_lock);
		pr_warn_ratelimited("completion of request %u, which is not outstanding\n",
				    seq);
		return;
	}
	res = a->res;
	if (__test_and_set_bit(seq, a->done_map)) {
		res->duplicates++;
		goto out;
	}
	r = xa_erase(&a->reqs, seq);
	if (!r) {
		/* Never accepted: r2net_send_async() said it failed. */
		res->duplicates++;
		goto out;
	}
	a->completed++;
	a->in_flight--;
	if (err) {
		r2echo_error(res, err);
	} else if (status != r->len || len != r->len ||
		   (len && memcmp(data, r->data, len))) {
		r2echo_mismatch(res, seq, status, r->len, len);
	} else {
		res->lat[res->nr_lat++] = ktime_us_delta(ktime_get(), r->start);
		res->ok++;
	}
	wake_up(&a->wq);
out:
	spin_unlock(&r2echo_async_lock);
	kfree(r);
}

static bool r2echo_async_below(struct r2echo_async *a, u32 window)
{
	bool below;

	spin_lock(&r2echo_async_lock);
	below = a->in_flight < window;
	spin_unlock(&r2echo_async_lock);
	return below;
}

static bool r2echo_async_settled(struct r2echo_async *a)
{
	bool settled;

	spin_lock(&r2echo_async_lock);
	settled = a->completed == a->accepted;
	spin_unlock(&r2echo_async_lock);
	return settled;
}

/* Send one echo; 0 when r2net accepted it. */
static int r2echo_async_send(const struct r2echo_cmd *c, struct r2echo_async *a,
			     u32 seq)
{
	struct r2echo_req *r;
	struct kvec vec;
	u32 len = r2echo_len(c, seq);
	int err;

	r = kmalloc(struct_size(r, data, len), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->seq = seq;
	r->len = len;
	r2echo_fill(r->data, len, seq);
	err = xa_err(xa_store(&a->reqs, seq, r, GFP_KERNEL));
	if (err) {
		kfree(r);
		return err;
	}
	vec.iov_base = r->data;
	vec.iov_len = len;
	spin_lock(&r2echo_async_lock);
	a->in_flight++;
	a->accepted++;
	spin_unlock(&r2echo_async_lock);
	r->start = ktime_get();
	/* done may run before this returns, and free r. */
	err = r2net_send_async(c->node, R2ECHO_TYPE, R2ECHO_KEY, &vec, 1,
			       READ_ONCE(async_timeout_ms), r2echo_async_done,
			       (void *)(uintptr_t)seq);
	if (err) {
		spin_lock(&r2echo_async_lock);
		a->in_flight--;
		a->accepted--;
		r = xa_erase(&a->reqs, seq);
		spin_unlock(&r2echo_async_lock);
		kfree(r);
	}
	return err;
}

static int r2echo_run_async(const struct r2echo_cmd *c,
			    struct r2echo_result *res)
{
	struct r2echo_async *a;
	struct r2echo_req *r;
	unsigned long seq;
	bool stop;
	int err;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->done_map = bitmap_zalloc(c->count, GFP_KERNEL);
	if (!a->done_map) {
		kfree(a);
		return -ENOMEM;
	}
	init_waitqueue_head(&a->wq);
	xa_init(&a->reqs);
	a->res = res;
	a->count = c->count;
	spin_lock(&r2echo_async_lock);
	r2echo_async_cur = a;
	spin_unlock(&r2echo_async_lock);

	for (seq = 0; seq < c->count; seq++) {
		if (wait_event_killable(a->wq, r2echo_async_below(a, c->window)))
			break;
		err = r2echo_async_send(c, a, seq);
		spin_lock(&r2echo_async_lock);
		if (err)
			r2echo_error(res, err);
		/* After an error the node is likely gone: stop sending. */
		stop = res->errors;
		spin_unlock(&r2echo_async_lock);
		if (stop)
			break;
		cond_resched();
	}
	wait_event_killable_timeout(a->wq, r2echo_async_settled(a),
				    msecs_to_jiffies(wait_ms));

	spin_lock(&r2echo_async_lock);
	r2echo_async_cur = NULL;
	res->lost = a->accepted - a->completed;
	spin_unlock(&r2echo_async_lock);
	if (res->lost)
		pr_warn("async to node %u: %llu of %u accepted requests never completed\n",
			c->node, res->lost, a->accepted);
	xa_for_each(&a->reqs, seq, r)
		kfree(r);
	xa_destroy(&a->reqs);
	bitmap_free(a->done_map);
	kfree(a);
	return 0;
}

/* ---- commands ---- */

static int r2echo_u32(const char *s, u32 min, u32 max, u32 *v)
{
	if (kstrtou32(s, 10, v) || *v < min || *v > max)
		return -EINVAL;
	return 0;
}

static int r2echo_parse_len(const char *s, struct r2echo_cmd *c)
{
	const char *dash = strchr(s, '-');
	char first[12];

	if (!dash)
		return r2echo_u32(s, 0, R2NET_MAX_PAYLOAD, &c->len_max) ?:
		       r2echo_u32(s, 0, R2NET_MAX_PAYLOAD, &c->len_min);
	if (dash - s >= (ptrdiff_t)sizeof(first))
		return -EINVAL;
	memcpy(first, s, dash - s);
	first[dash - s] = '\0';
	if (r2echo_u32(first, 0, R2NET_MAX_PAYLOAD, &c->len_min) ||
	    r2echo_u32(dash + 1, c->len_min, R2NET_MAX_PAYLOAD, &c->len_max))
		return -EINVAL;
	return 0;
}

static int r2echo_parse(int argc, char **argv, struct r2echo_cmd *c)
{
	u32 node;

	memset(c, 0, sizeof(*c));
	if (argc < 1)
		return -EINVAL;
	if (!strcmp(argv[0], "sync") && argc == 4)
		c->op = R2ECHO_SYNC;
	else if (!strcmp(argv[0], "page") && argc == 3)
		c->op = R2ECHO_PAGE;
	else if (!strcmp(argv[0], "async") && argc == 5)
		c->op = R2ECHO_ASYNC;
	else
		return -EINVAL;
	if (r2echo_u32(argv[1], 0, R2NET_MAX_NODE, &node))
		return -EINVAL;
	c->node = node;
	if (c->op == R2ECHO_PAGE) {
		c->len_min = R2NET_PAGE_MSG_LEN;
		c->len_max = R2NET_PAGE_MSG_LEN;
		return r2echo_u32(argv[2], 1, R2ECHO_MAX_COUNT, &c->count);
	}
	if (r2echo_parse_len(argv[2], c) ||
	    r2echo_u32(argv[3], 1, R2ECHO_MAX_COUNT, &c->count))
		return -EINVAL;
	if (c->op == R2ECHO_ASYNC)
		return r2echo_u32(argv[4], 1, R2ECHO_MAX_WINDOW, &c->window);
	return 0;
}

static int r2echo_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least pct % at or below it. */
static u32 r2echo_pct(const struct r2echo_result *res, unsigned int pct)
{
	u32 rank;

	if (!res->nr_lat)
		return 0;
	rank = DIV_ROUND_UP(res->nr_lat * pct, 100);
	return res->lat[max(rank, 1u) - 1];
}

static void r2echo_report(const struct r2echo_cmd *c,
			  struct r2echo_result *res)
{
	char len[24];
	u64 rate = 0;

	sort(res->lat, res->nr_lat, sizeof(*res->lat), r2echo_cmp_u32, NULL);
	if (c->len_min == c->len_max)
		snprintf(len, sizeof(len), "%u", c->len_min);
	else
		snprintf(len, sizeof(len), "%u-%u", c->len_min, c->len_max);
	if (res->elapsed_us)
		rate = div64_u64(res->ok * USEC_PER_SEC, res->elapsed_us);
	snprintf(r2echo_out, sizeof(r2echo_out),
		 "cmd %s\nnode %u\nlen %s\ncount %u\nok %llu\nerrors %llu\n"
		 "first_error %d\nmismatches %llu\nlost %llu\nduplicates %llu\n"
		 "elapsed_us %llu\nlat_p50_us %u\nlat_p99_us %u\n"
		 "lat_max_us %u\nmsgs_per_s %llu\n",
		 r2echo_op_names[c->op], c->node, len, c->count, res->ok,
		 res->errors, res->first_error, res->mismatches, res->lost,
		 res->duplicates, res->elapsed_us, r2echo_pct(res, 50),
		 r2echo_pct(res, 99),
		 res->nr_lat ? res->lat[res->nr_lat - 1] : 0, rate);
}

static int r2echo_run(const struct r2echo_cmd *c)
{
	struct r2echo_result res = {};
	ktime_t t0;
	int err;

	res.lat = kvmalloc_array(c->count, sizeof(*res.lat), GFP_KERNEL);
	if (!res.lat)
		return -ENOMEM;
	t0 = ktime_get();
	switch (c->op) {
	case R2ECHO_SYNC:
		err = r2echo_run_sync(c, &res);
		break;
	case R2ECHO_PAGE:
		err = r2echo_run_page(c, &res);
		break;
	default:
		err = r2echo_run_async(c, &res);
		break;
	}
	res.elapsed_us = ktime_us_delta(ktime_get(), t0);
	if (!err)
		r2echo_report(c, &res);
	kvfree(res.lat);
	return err;
}

static ssize_t r2echo_run_write(struct file *file, const char __user *ubuf,
				size_t n, loff_t *ppos)
{
	struct r2echo_cmd c;
	char *buf, **argv;
	int argc, err;

	if (n > R2ECHO_CMD_MAX) {
		pr_warn("command longer than %d bytes; usage: %s\n",
			R2ECHO_CMD_MAX, R2ECHO_USAGE);
		return -EINVAL;
	}
	buf = memdup_user_nul(ubuf, n);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	argv = argv_split(GFP_KERNEL, buf, &argc);
	kfree(buf);
	if (!argv)
		return -ENOMEM;
	err = r2echo_parse(argc, argv, &c);
	argv_free(argv);
	if (err) {
		pr_warn("bad command; usage: %s\n", R2ECHO_USAGE);
		return err;
	}
	err = mutex_lock_killable(&r2echo_run_lock);
	if (err)
		return err;
	err = r2echo_run(&c);
	mutex_unlock(&r2echo_run_lock);
	return err ?: n;
}

static ssize_t r2echo_run_read(struct file *file, char __user *ubuf,
			       size_t n, loff_t *ppos)
{
	ssize_t ret;

	ret = mutex_lock_killable(&r2echo_run_lock);
	if (ret)
		return ret;
	ret = simple_read_from_buffer(ubuf, n, ppos, r2echo_out,
				      strlen(r2echo_out));
	mutex_unlock(&r2echo_run_lock);
	return ret;
}

static const struct file_operations r2echo_run_fops = {
	.owner	= THIS_MODULE,
	.read	= r2echo_run_read,
	.write	= r2echo_run_write,
	.llseek	= default_llseek,
};

/* ---- node events ---- */

static void r2echo_event(u8 node, bool up)
{
	struct r2echo_event *e;

	pr_info("node %u %s\n", node, up ? "up" : "down");
	mutex_lock(&r2echo_events_lock);
	if (r2echo_nr_events >= R2ECHO_MAX_EVENTS) {
		pr_warn_ratelimited("more than %d node events; not logged\n",
				    R2ECHO_MAX_EVENTS);
		goto out;
	}
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		goto out;
	e->up = up;
	e->node = node;
	e->ms = ktime_to_ms(ktime_get_boottime());
	list_add_tail(&e->list, &r2echo_event_list);
	r2echo_nr_events++;
out:
	mutex_unlock(&r2echo_events_lock);
}

static void r2echo_node_up(u8 node, void *data)
{
	r2echo_event(node, true);
}

static void r2echo_node_down(u8 node, void *data)
{
	r2echo_event(node, false);
}

static struct r2net_node_ops r2echo_node_ops = {
	.up	= r2echo_node_up,
	.down	= r2echo_node_down,
};

static int r2echo_events_show(struct seq_file *m, void *v)
{
	struct r2echo_event *e;

	mutex_lock(&r2echo_events_lock);
	list_for_each_entry(e, &r2echo_event_list, list)
		seq_printf(m, "%s %u %llu\n", e->up ? "up" : "down", e->node,
			   e->ms);
	mutex_unlock(&r2echo_events_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(r2echo_events);

static void r2echo_events_free(void)
{
	struct r2echo_event *e, *next;

	list_for_each_entry_safe(e, next, &r2echo_event_list, list) {
		list_del(&e->list);
		kfree(e);
	}
	r2echo_nr_events = 0;
}

/* ---- module ---- */

static int __init r2echo_init(void)
{
	int ret;

	ret = r2net_register_handler(R2ECHO_TYPE, R2ECHO_KEY, R2NET_MAX_PAYLOAD,
				     r2echo_handler, NULL);
	if (ret) {
		pr_err("cannot register the echo handler: %d\n", ret);
		return ret;
	}
	r2net_register_node_ops(&r2echo_node_ops);
	r2echo_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0600, r2echo_dir, NULL, &r2echo_run_fops);
	debugfs_create_file("events", 0444, r2echo_dir, NULL,
			    &r2echo_events_fops);
	pr_info("echo service for type %#x key %#x\n", R2ECHO_TYPE, R2ECHO_KEY);
	return 0;
}

static void __exit r2echo_exit(void)
{
	debugfs_remove_recursive(r2echo_dir);
	r2net_unregister_node_ops(&r2echo_node_ops);
	r2net_unregister_handler(R2ECHO_TYPE, R2ECHO_KEY);
	r2echo_events_free();
	r2net_sync_callbacks();
}

module_init(r2echo_init);
module_exit(r2echo_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("r2net echo service and checking client, for tests");
