// SPDX-License-Identifier: GPL-2.0
/*
 * tmemclient: a tmem client over r2net that checks a memory server.
 *
 * Writing a command to /sys/kernel/debug/tmemclient/run sends tmem
 * requests to a node and checks every reply (tmemclient.h has the syntax
 * and the meaning of the result lines).  Pool commands are synchronous;
 * put, get and flush keep a window of asynchronous requests in flight.
 * Each outstanding request has a slot; r2net's completion copies the reply
 * into it and the sending thread checks it when it needs the slot again,
 * so that the completion, which holds up the connection, stays short.
 * Page contents are made again from the page number and the seed for every
 * check, so nothing is kept between commands.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/lzo.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "r2net.h"
#include "tmemclient.h"

#define TC_KEY			0
#define TC_MAX_COUNT		1000000
#define TC_MAX_WINDOW		256
#define TC_CMD_MAX		160
#define TC_OUT_MAX		1536
#define TC_USAGE \
	"pool NODE persistent|ephemeral | newpool NODE FLAGS UUID0 UUID1 RESERVED | destroy NODE POOL [RESERVED] | put|get|zput|zget|zputbad|zgetbad|zputs|zgets|zsames NODE POOL COUNT SEED [FIRST [STEP]] | flush|flushobj NODE POOL COUNT [FIRST [STEP]] | zbad NODE POOL enc|raw4095|lzo0|lzo4096|reserved|long|short|samedata|rawshort | zbadbatch NODE POOL count0|count17|reserved|entry|long|short (NODE 0..254, COUNT 1..1000000)"

static unsigned int window = 32;
module_param(window, uint, 0644);
MODULE_PARM_DESC(window, "Requests in flight for put, get and flush (1..256)");

static unsigned int batch = R2NET_BATCH_MAX;
module_param(batch, uint, 0644);
MODULE_PARM_DESC(batch, "Pages in each request of zputs and zgets (1..16)");

static unsigned int timeout_ms = 30000;
module_param(timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "Timeout of each async request (ms; 0: r2net's idle timeout)");

static unsigned int wait_ms = 60000;
module_param(wait_ms, uint, 0644);
MODULE_PARM_DESC(wait_ms, "How long a command waits for outstanding replies after its last send (ms)");

enum tc_op { TC_POOL, TC_NEWPOOL, TC_DESTROY, TC_PUT, TC_GET, TC_FLUSH,
	     TC_FLUSHOBJ, TC_ZPUT, TC_ZGET, TC_ZPUTBAD, TC_ZGETBAD, TC_ZBAD,
	     TC_ZPUTS, TC_ZGETS, TC_ZBADBATCH, TC_ZSAMES };

static const char * const tc_op_names[] = {
	[TC_POOL]	= "pool",
	[TC_NEWPOOL]	= "newpool",
	[TC_DESTROY]	= "destroy",
	[TC_PUT]	= "put",
	[TC_GET]	= "get",
	[TC_FLUSH]	= "flush",
	[TC_FLUSHOBJ]	= "flushobj",
	[TC_ZPUT]	= "zput",
	[TC_ZGET]	= "zget",
	[TC_ZPUTBAD]	= "zputbad",
	[TC_ZGETBAD]	= "zgetbad",
	[TC_ZBAD]	= "zbad",
	[TC_ZPUTS]	= "zputs",
	[TC_ZGETS]	= "zgets",
	[TC_ZSAMES]	= "zsames",
	[TC_ZBADBATCH]	= "zbadbatch",
};

/* zbad: the malformed PUT_ZPAGEs, each refused by the server's decoder. */
enum tc_zbad { TC_ZBAD_ENC, TC_ZBAD_RAW4095, TC_ZBAD_LZO0, TC_ZBAD_LZO4096,
	       TC_ZBAD_RESERVED, TC_ZBAD_LONG, TC_ZBAD_SHORT,
	       TC_ZBAD_SAMEDATA, TC_ZBAD_RAWSHORT, TC_ZBAD_NR };

static const char * const tc_zbad_names[TC_ZBAD_NR] = {
	[TC_ZBAD_ENC]		= "enc",	/* an unknown encoding */
	[TC_ZBAD_RAW4095]	= "raw4095",	/* RAW of 4095 bytes */
	[TC_ZBAD_LZO0]		= "lzo0",	/* LZO of 0 bytes */
	[TC_ZBAD_LZO4096]	= "lzo4096",	/* LZO of a page's length */
	[TC_ZBAD_RESERVED]	= "reserved",	/* a reserved byte set */
	[TC_ZBAD_LONG]		= "long",	/* more data than arg says */
	[TC_ZBAD_SHORT]		= "short",	/* less data than arg says */
	[TC_ZBAD_SAMEDATA]	= "samedata",	/* SAME with data */
	[TC_ZBAD_RAWSHORT]	= "rawshort",	/* RAW with 100 bytes */
};

/* zbadbatch: malformed PUT_ZPAGES of pages 0..3, each refused whole. */
enum tc_bb { TC_BB_COUNT0, TC_BB_COUNT17, TC_BB_RESERVED, TC_BB_ENTRY,
	     TC_BB_LONG, TC_BB_SHORT, TC_BB_NR };

static const char * const tc_bb_names[TC_BB_NR] = {
	[TC_BB_COUNT0]		= "count0",	/* a count of 0 */
	[TC_BB_COUNT17]		= "count17",	/* one more than the most */
	[TC_BB_RESERVED]	= "reserved",	/* the header's reserved set */
	[TC_BB_ENTRY]		= "entry",	/* page 2 of an unknown form */
	[TC_BB_LONG]		= "long",	/* a byte after the last data */
	[TC_BB_SHORT]		= "short",	/* the last data byte missing */
};

enum tc_kind { TC_ZERO, TC_SAME, TC_TEXT, TC_RANDOM, TC_NR_KINDS };

struct tc_cmd {
	enum tc_op	op;
	u8		node;
	u32		pool;
	u32		count;
	u32		seed;
	u32		first;
	u32		step;
	/* newpool, destroy */
	u32		flags;
	u64		uuid[2];
	u32		reserved;
	/* zbad, zbadbatch */
	enum tc_zbad	zbad;
	enum tc_bb	bb;
};

struct tc_result {
	u64	ok;
	u64	missing;
	u64	missing_random;
	u64	mismatches;
	u64	errors;
	u64	err_einval;
	u64	err_enodev;
	u64	err_enomem;
	u64	err_eperm;
	u64	err_efrozen;
	u64	err_other;
	s32	first_status;
	s32	status;
	u64	net_errors;
	int	first_net_error;
	u64	lost;
	u64	duplicates;
	u64	kinds[TC_NR_KINDS];
	u64	zforms[R2NET_ZPAGE_RAW + 1];	/* by R2NET_ZPAGE_* */
	u64	zpage_as_sent;
	u64	requests;	/* frames sent: batches count once */
	u64	elapsed_us;
	u32	*lat;		/* microseconds, one per reply */
	u32	nr_lat;
};

/* One asynchronous request; the completion fills in the reply. */
struct tc_slot {
	bool	busy;		/* sent, not completed */
	bool	done;		/* completed, not checked yet */
	u32	seq;		/* its first page's number within the command */
	u32	n;		/* pages it carries */
	int	err;
	s32	status;
	u32	len;
	ktime_t	start;
	u32	lat_us;
	u8	*reply;		/* tc_async.reply_size bytes */
	u8	*data;		/* zputs: its pages' data, R2NET_BATCH_MAX pages */
};

/* The running command's slots; completions find them under tc_lock. */
struct tc_async {
	wait_queue_head_t	wq;
	struct tc_slot		*slots;
	u32			nr_slots;
	u32			reply_size;
	u8			*mem;		/* the slots' reply and data */
	u32			in_flight;
	u16			gen;
	struct tc_result	*res;
};

static DEFINE_SPINLOCK(tc_lock);
static struct tc_async *tc_cur;
static u16 tc_gen;

/* Serializes commands; guards tc_out and the buffers after it. */
static DEFINE_MUTEX(tc_run_lock);
static char tc_out[TC_OUT_MAX];
static u8 *tc_expect;		/* TMEM_PAGE_SIZE: the page a get must see */
static u8 *tc_page;		/* TMEM_PAGE_SIZE: a page decompressed */
static u8 *tc_zdata;		/* TMEM_PAGE_SIZE: a zpage's data */
static u8 *tc_lzo;		/* lzo1x_worst_compress(TMEM_PAGE_SIZE) */
static void *tc_wrkmem;		/* LZO1X_MEM_COMPRESS */

static struct dentry *tc_dir;

/* ---- pages ---- */

static u64 tc_mix(u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static u64 tc_xorshift(u64 *s)
{
	u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static u64 tc_page_hash(u32 seed, u32 pageno)
{
	return tc_mix(((u64)seed << 32 | pageno) ^ 0x746d656d636c6e74ull);
}

static enum tc_kind tc_kind(u32 seed, u32 pageno)
{
	switch (tc_page_hash(seed, pageno) % 8) {
	case 0:
		return TC_ZERO;
	case 1:
	case 2:
		return TC_SAME;
	case 3:
	case 4:
	case 5:
		return TC_TEXT;
	default:
		return TC_RANDOM;
	}
}

static const char * const tc_words[] = {
	"the", "memory", "server", "keeps", "pages", "for", "client", "nodes",
	"tmem", "pool", "object", "index", "handle", "put", "get", "flush",
	"and", "of", "a", "to", "in", "is", "that", "it", "swap", "cache",
	"kernel", "compressed", "ramster", "r2net", "zcache", "xvmalloc",
};

static void tc_fill_text(u8 *page, u64 s)
{
	size_t n = 0, len;
	const char *w;

	while (n < TMEM_PAGE_SIZE) {
		w = tc_words[tc_xorshift(&s) % ARRAY_SIZE(tc_words)];
		len = min(strlen(w), TMEM_PAGE_SIZE - n);
		memcpy(page + n, w, len);
		n += len;
		if (n < TMEM_PAGE_SIZE)
			page[n++] = tc_xorshift(&s) % 16 ? ' ' : '\n';
	}
}

/* The content of page pageno for seed. */
static void tc_fill(u8 *page, u32 seed, u32 pageno)
{
	u64 h = tc_page_hash(seed, pageno);
	u64 s = tc_mix(h) | 1, v;
	size_t i;

	switch (tc_kind(seed, pageno)) {
	case TC_ZERO:
		memset(page, 0, TMEM_PAGE_SIZE);
		break;
	case TC_SAME:
		if (h & 8) {
			memset(page, (h >> 8) % 255 + 1, TMEM_PAGE_SIZE);
			break;
		}
		v = tc_mix(h + 1) | 1;
		for (i = 0; i < TMEM_PAGE_SIZE; i += sizeof(v))
			memcpy(page + i, &v, sizeof(v));
		break;
	case TC_TEXT:
		tc_fill_text(page, s);
		break;
	default:
		for (i = 0; i < TMEM_PAGE_SIZE; i += sizeof(v)) {
			v = tc_xorshift(&s) * 0x2545f4914f6cdd1dull;
			memcpy(page + i, &v, sizeof(v));
		}
		break;
	}
}

/*
 * The handle of page pageno, or of object pageno for flushobj; for zsames
 * a handle scattered by the page's hash, each page in an object of its
 * own (but by chance).
 */
static void tc_handle(struct tmem_handle *h, const struct tc_cmd *c,
		      u32 pageno)
{
	u64 obj = pageno / TMEMCLIENT_OBJ_PAGES;

	if (c->op == TC_ZSAMES) {
		obj = tc_page_hash(c->seed, pageno);
		h->pool_id = c->pool;
		h->index = (u32)(obj >> 32);
		h->oid[0] = obj;
		h->oid[1] = tc_mix(obj);
		h->oid[2] = ~obj;
		return;
	}
	if (c->op == TC_FLUSHOBJ)
		obj = pageno;
	h->pool_id = c->pool;
	h->index = c->op == TC_FLUSHOBJ ? 0 : pageno % TMEMCLIENT_OBJ_PAGES;
	h->oid[0] = obj;
	h->oid[1] = obj * 0x9e3779b97f4a7c15ull;
	h->oid[2] = ~obj;
}

static u32 tc_pageno(const struct tc_cmd *c, u32 seq)
{
	return c->first + seq * c->step;
}

/* ---- zpages ---- */

static bool tc_zpage_op(enum tc_op op)
{
	return op == TC_ZPUT || op == TC_ZGET || op == TC_ZPUTBAD ||
	       op == TC_ZGETBAD || op == TC_ZPUTS || op == TC_ZGETS ||
	       op == TC_ZSAMES;
}

static bool tc_batch_op(enum tc_op op)
{
	return op == TC_ZPUTS || op == TC_ZGETS || op == TC_ZSAMES;
}

static bool tc_same_filled(const u8 *page, u32 *fill)
{
	u32 w[2];
	size_t i;

	memcpy(&w[0], page, sizeof(w[0]));
	for (i = sizeof(w[1]); i < TMEM_PAGE_SIZE; i += sizeof(w[1])) {
		memcpy(&w[1], page + i, sizeof(w[1]));
		if (w[1] != w[0])
			return false;
	}
	*fill = w[0];
	return true;
}

/*
 * Page pageno of seed as a client sends it, into z and data
 * (TMEM_PAGE_SIZE bytes): one repeated 32-bit value as SAME, else its
 * LZO1X-1 stream if shorter than a page, else the page as RAW.  bad: a
 * corrupt LZO stream instead: the page's stream without its 3-byte end
 * marker, or for some pages (every random one) 1..3000 random bytes.
 */
static void tc_make_zpage(u32 seed, u32 pageno, bool bad,
			  struct r2net_zpage *z, u8 *data)
{
	u64 h = tc_page_hash(seed, pageno), s;
	size_t zlen = lzo1x_worst_compress(TMEM_PAGE_SIZE), i;
	bool lzo;
	u32 fill;

	tc_fill(tc_expect, seed, pageno);
	if (!bad && tc_same_filled(tc_expect, &fill)) {
		z->enc = R2NET_ZPAGE_SAME;
		z->arg = fill;
		return;
	}
	lzo = lzo1x_1_compress(tc_expect, TMEM_PAGE_SIZE, tc_lzo, &zlen,
			       tc_wrkmem) == LZO_E_OK &&
	      zlen <= R2NET_ZPAGE_LZO_MAX;
	if (bad && (!lzo || (h & 32) || zlen <= 3)) {
		z->enc = R2NET_ZPAGE_LZO;
		z->arg = 1 + (h >> 20) % 3000;
		s = tc_mix(h ^ 0x62616473) | 1;
		for (i = 0; i < z->arg; i++)
			data[i] = (u8)(tc_xorshift(&s) >> 32);
		return;
	}
	if (lzo) {
		z->enc = R2NET_ZPAGE_LZO;
		z->arg = bad ? zlen - 3 : zlen;
		memcpy(data, tc_lzo, z->arg);
		return;
	}
	z->enc = R2NET_ZPAGE_RAW;
	z->arg = TMEM_PAGE_SIZE;
	memcpy(data, tc_expect, TMEM_PAGE_SIZE);
}

/* Does zpage z with data decode to the page in tc_expect? */
static bool tc_zpage_is_page(const struct r2net_zpage *z, const u8 *data)
{
	size_t dlen = TMEM_PAGE_SIZE;
	u32 fill;

	switch (z->enc) {
	case R2NET_ZPAGE_SAME:
		return tc_same_filled(tc_expect, &fill) && fill == z->arg;
	case R2NET_ZPAGE_LZO:
		return lzo1x_decompress_safe(data, z->arg, tc_page, &dlen) ==
		       LZO_E_OK && dlen == TMEM_PAGE_SIZE &&
		       !memcmp(tc_page, tc_expect, TMEM_PAGE_SIZE);
	default:
		return !memcmp(data, tc_expect, TMEM_PAGE_SIZE);
	}
}

/* ---- checking replies ---- */

static void tc_status_error(struct tc_result *res, s32 status)
{
	res->errors++;
	if (!res->first_status)
		res->first_status = status;
	switch (-status) {
	case TMEM_EINVAL:
		res->err_einval++;
		break;
	case TMEM_ENODEV:
		res->err_enodev++;
		break;
	case TMEM_ENOMEM:
		res->err_enomem++;
		break;
	case TMEM_EPERM:
		res->err_eperm++;
		break;
	case TMEM_EFROZEN:
		res->err_efrozen++;
		break;
	default:
		res->err_other++;
		break;
	}
}

static void tc_net_error(struct tc_result *res, int err)
{
	res->net_errors++;
	if (!res->first_net_error)
		res->first_net_error = err;
}

static void tc_mismatch(struct tc_result *res, const struct tc_cmd *c,
			u32 pageno, s32 status, u32 len, const char *why)
{
	if (!res->mismatches++)
		pr_warn("%s node %u pool %u page %u: status %d, %u bytes: %s\n",
			tc_op_names[c->op], c->node, c->pool, pageno, status,
			len, why);
}

static bool tc_handle_equal(const struct tmem_handle *a,
			    const struct tmem_handle *b)
{
	return a->pool_id == b->pool_id && a->index == b->index &&
	       a->oid[0] == b->oid[0] && a->oid[1] == b->oid[1] &&
	       a->oid[2] == b->oid[2];
}

static void tc_check_get(const struct tc_cmd *c, struct tc_result *res,
			 u32 pageno, s32 status, const void *reply, u32 len)
{
	struct tmem_handle want, got;
	const u8 *page;

	if (status == 0 && len == 0) {
		res->missing++;
		if (tc_kind(c->seed, pageno) == TC_RANDOM)
			res->missing_random++;
		return;
	}
	if (status != 1) {
		tc_mismatch(res, c, pageno, status, len, "unexpected status");
		return;
	}
	if (r2net_tmem_page_decode(&got, &page, reply, len) != R2NET_ACCEPT) {
		tc_mismatch(res, c, pageno, status, len, "no page in the reply");
		return;
	}
	tc_handle(&want, c, pageno);
	if (!tc_handle_equal(&got, &want)) {
		tc_mismatch(res, c, pageno, status, len, "wrong handle");
		return;
	}
	tc_fill(tc_expect, c->seed, pageno);
	if (memcmp(page, tc_expect, TMEM_PAGE_SIZE)) {
		tc_mismatch(res, c, pageno, status, len, "wrong data");
		return;
	}
	res->ok++;
}

/*
 * A GET_ZPAGE reply: zget wants the page (in any encoding that decodes to
 * it, counting those byte for byte as zput sends), zgetbad the corrupt
 * stream zputbad sent, byte for byte.
 */
static void tc_missing(const struct tc_cmd *c, struct tc_result *res,
		       u32 pageno)
{
	res->missing++;
	if (tc_kind(c->seed, pageno) == TC_RANDOM)
		res->missing_random++;
}

/* A zpage that came back for page pageno, its header decoded already. */
static void tc_check_zpage(const struct tc_cmd *c, struct tc_result *res,
			   u32 pageno, const struct tmem_handle *got,
			   const struct r2net_zpage *zp, const u8 *data)
{
	bool bad = c->op == TC_ZGETBAD, as_sent;
	struct r2net_zpage z = *zp, zwant;
	struct tmem_handle want;
	u32 len = R2NET_ZPAGE_HDR_LEN + r2net_zpage_data_len(&z);
	s32 status = 1;

	tc_handle(&want, c, pageno);
	if (!tc_handle_equal(got, &want)) {
		tc_mismatch(res, c, pageno, status, len, "wrong handle");
		return;
	}
	res->zforms[z.enc]++;
	tc_make_zpage(c->seed, pageno, bad, &zwant, tc_zdata);
	as_sent = z.enc == zwant.enc && z.arg == zwant.arg &&
		  !memcmp(data, tc_zdata, r2net_zpage_data_len(&z));
	if (as_sent)
		res->zpage_as_sent++;
	if (bad ? !as_sent : !tc_zpage_is_page(&z, data)) {
		tc_mismatch(res, c, pageno, status, len, bad ?
			    "not the stream put" : "does not decode to the page");
		return;
	}
	res->ok++;
}

static void tc_check_zget(const struct tc_cmd *c, struct tc_result *res,
			  u32 pageno, s32 status, const void *reply, u32 len)
{
	struct tmem_handle got;
	struct r2net_zpage z;
	const u8 *data;

	if (status == 0 && len == 0) {
		tc_missing(c, res, pageno);
		return;
	}
	if (status != 1) {
		tc_mismatch(res, c, pageno, status, len, "unexpected status");
		return;
	}
	if (r2net_tmem_zpage_decode(&got, &z, &data, reply, len) !=
	    R2NET_ACCEPT) {
		tc_mismatch(res, c, pageno, status, len, "no zpage in the reply");
		return;
	}
	tc_check_zpage(c, res, pageno, &got, &z, data);
}

/* A PUT_ZPAGES reply for the n pages from pageno: a status for each. */
static void tc_check_zputs(const struct tc_cmd *c, struct tc_result *res,
			   u32 seq, u32 n, s32 status, const u8 *reply,
			   u32 len)
{
	__le32 w;
	s32 st;
	u32 i;

	if (status != n || len != n * sizeof(w)) {
		tc_mismatch(res, c, tc_pageno(c, seq), status, len,
			    "not a status for each page");
		return;
	}
	for (i = 0; i < n; i++) {
		memcpy(&w, reply + i * sizeof(w), sizeof(w));
		st = (s32)le32_to_cpu(w);
		if (st < 0)
			tc_status_error(res, st);
		else if (st == 1)
			res->ok++;
		else
			tc_mismatch(res, c, tc_pageno(c, seq + i), st, len,
				    "unexpected status");
	}
}

/* A GET_ZPAGES reply for the n pages from pageno: each, in order. */
static void tc_check_zgets(const struct tc_cmd *c, struct tc_result *res,
			   u32 seq, u32 n, s32 status, const u8 *reply,
			   u32 len)
{
	struct tmem_handle got, want;
	struct r2net_zbatch b;
	struct r2net_zpage z;
	const u8 *data;
	u32 i, pageno;

	if (status != n || r2net_tmem_zbatch_decode(&b, reply, len, true) !=
	    R2NET_ACCEPT || b.count != n) {
		tc_mismatch(res, c, tc_pageno(c, seq), status, len,
			    "not a batch of the pages asked for");
		return;
	}
	for (i = 0; i < n; i++) {
		pageno = tc_pageno(c, seq + i);
		r2net_zbatch_next(&b, &got, &z, &data);
		if (z.enc != R2NET_ZPAGE_NONE) {
			tc_check_zpage(c, res, pageno, &got, &z, data);
			continue;
		}
		tc_handle(&want, c, pageno);
		if (!tc_handle_equal(&got, &want))
			tc_mismatch(res, c, pageno, (s32)z.arg, len,
				    "wrong handle");
		else if (z.arg)
			tc_status_error(res, (s32)z.arg);
		else
			tc_missing(c, res, pageno);
	}
}

/*
 * Account one reply that r2net delivered (err == 0), for the n pages from
 * number seq of the command (n is 1 but for batches).
 */
static void tc_check(const struct tc_cmd *c, struct tc_result *res,
		     u32 seq, u32 n, s32 status, const void *reply, u32 len,
		     u32 lat_us)
{
	u32 pageno = tc_pageno(c, seq), i;

	res->status = status;
	for (i = 0; i < n; i++)
		res->lat[res->nr_lat++] = lat_us;
	if (status < 0) {
		if (len)
			tc_mismatch(res, c, pageno, status, len,
				    "payload with an error");
		else
			for (i = 0; i < n; i++)
				tc_status_error(res, status);
		return;
	}
	switch (c->op) {
	case TC_ZPUTS:
	case TC_ZSAMES:
		tc_check_zputs(c, res, seq, n, status, reply, len);
		return;
	case TC_ZGETS:
		tc_check_zgets(c, res, seq, n, status, reply, len);
		return;
	case TC_GET:
		tc_check_get(c, res, pageno, status, reply, len);
		return;
	case TC_ZGET:
	case TC_ZGETBAD:
		tc_check_zget(c, res, pageno, status, reply, len);
		return;
	case TC_POOL:
	case TC_NEWPOOL:
		if (len)
			break;
		res->ok++;
		return;
	case TC_DESTROY:
		if (len || status > 1)
			break;
		if (status)
			res->ok++;
		else
			res->missing++;
		return;
	default:
		if (len || status != 1)
			break;
		res->ok++;
		return;
	}
	tc_mismatch(res, c, pageno, status, len, "unexpected reply");
}

/* ---- pool commands: one synchronous request ---- */

/* zbad: a PUT_ZPAGE of page 0 malformed as c->zbad says, into buf. */
static size_t tc_zbad(const struct tc_cmd *c, u8 *buf)
{
	struct r2net_zpage z = { .enc = R2NET_ZPAGE_LZO, .arg = 10 };
	struct r2net_tmem_zpage_le *w = (void *)buf;
	struct tmem_handle h;
	u32 dlen = 10;

	switch (c->zbad) {
	case TC_ZBAD_ENC:
		z.enc = R2NET_ZPAGE_RAW + 1;
		break;
	case TC_ZBAD_RAW4095:
		z.enc = R2NET_ZPAGE_RAW;
		z.arg = TMEM_PAGE_SIZE - 1;
		dlen = z.arg;
		break;
	case TC_ZBAD_LZO0:
		z.arg = 0;
		dlen = 0;
		break;
	case TC_ZBAD_LZO4096:
		z.arg = TMEM_PAGE_SIZE;
		dlen = z.arg;
		break;
	case TC_ZBAD_LONG:
		dlen = 20;
		break;
	case TC_ZBAD_SHORT:
		z.arg = 20;
		break;
	case TC_ZBAD_SAMEDATA:
		z.enc = R2NET_ZPAGE_SAME;
		z.arg = 7;
		dlen = 4;
		break;
	case TC_ZBAD_RAWSHORT:
		z.enc = R2NET_ZPAGE_RAW;
		z.arg = TMEM_PAGE_SIZE;
		dlen = 100;
		break;
	default:	/* TC_ZBAD_RESERVED, below */
		break;
	}
	tc_handle(&h, c, 0);
	r2net_tmem_zpage_encode(w, &h, &z);
	if (c->zbad == TC_ZBAD_RESERVED)
		w->reserved[1] = 1;
	memset(buf + R2NET_ZPAGE_HDR_LEN, 0x11, dlen);
	return R2NET_ZPAGE_HDR_LEN + dlen;
}

/*
 * The zpages pageno .. pageno + n - 1 of c as a batch: the batch and page
 * headers into head (returns their length), each page's data into
 * data + i * TMEM_PAGE_SIZE and its length into ref[i].
 */
static size_t tc_make_batch(const struct tc_cmd *c, u32 seq, u32 n, u8 *head,
			    u8 *data, struct kvec *ref, struct tc_result *res)
{
	struct r2net_tmem_zpage_le *hw = (void *)(head + R2NET_BATCH_HDR_LEN);
	struct r2net_zpage z;
	struct tmem_handle h;
	u32 i, pageno;

	r2net_tmem_batch_encode((void *)head, n);
	for (i = 0; i < n; i++) {
		pageno = tc_pageno(c, seq + i);
		tc_handle(&h, c, pageno);
		ref[i].iov_base = data + i * TMEM_PAGE_SIZE;
		if (c->op == TC_ZSAMES) {
			z.enc = R2NET_ZPAGE_SAME;
			z.arg = (u32)tc_mix(h.oid[0]);
		} else {
			tc_make_zpage(c->seed, pageno, false, &z,
				      ref[i].iov_base);
		}
		ref[i].iov_len = r2net_zpage_data_len(&z);
		r2net_tmem_zpage_encode(&hw[i], &h, &z);
		if (res)
			res->zforms[z.enc]++;
	}
	return R2NET_BATCH_HDR_LEN + n * R2NET_ZPAGE_HDR_LEN;
}

/*
 * zbadbatch: PUT_ZPAGES of pages 0..3 (seed 0) of POOL, malformed as
 * c->bb says, flattened into buf; its length.
 */
static size_t tc_zbadbatch(const struct tc_cmd *c, u8 *buf)
{
	struct tc_cmd pages = { .pool = c->pool, .step = 1 };
	struct r2net_tmem_batch_le *bw = (void *)buf;
	struct r2net_tmem_zpage_le *hw = (void *)(bw + 1);
	struct kvec ref[4];
	size_t len, i;
	u8 *data;

	data = kmalloc_array(4, TMEM_PAGE_SIZE, GFP_KERNEL);
	if (!data)
		return 0;
	len = tc_make_batch(&pages, 0, 4, buf, data, ref, NULL);
	for (i = 0; i < 4; i++) {
		memcpy(buf + len, ref[i].iov_base, ref[i].iov_len);
		len += ref[i].iov_len;
	}
	kfree(data);
	switch (c->bb) {
	case TC_BB_COUNT0:
		bw->count = 0;
		break;
	case TC_BB_COUNT17:
		bw->count = cpu_to_le32(R2NET_BATCH_MAX + 1);
		break;
	case TC_BB_RESERVED:
		bw->reserved = cpu_to_le32(1);
		break;
	case TC_BB_ENTRY:
		hw[2].enc = 0x7f;
		break;
	case TC_BB_LONG:
		buf[len++] = 0x5a;
		break;
	default:
		len--;
		break;
	}
	return len;
}

static int tc_run_sync(const struct tc_cmd *c, struct tc_result *res)
{
	struct r2net_tmem_new_pool_le np;
	struct r2net_tmem_pool_le pool;
	struct r2net_reply reply;
	struct kvec vec;
	ktime_t t0;
	u8 *buf, *msg = NULL;
	u16 type;
	int err;

	if (c->op == TC_ZBAD || c->op == TC_ZBADBATCH) {
		msg = kvzalloc(R2NET_MAX_PAYLOAD, GFP_KERNEL);
		if (!msg)
			return -ENOMEM;
		vec.iov_base = msg;
		if (c->op == TC_ZBAD) {
			vec.iov_len = tc_zbad(c, msg);
			type = R2NET_MSG_TMEM_PUT_ZPAGE;
		} else {
			vec.iov_len = tc_zbadbatch(c, msg);
			type = R2NET_MSG_TMEM_PUT_ZPAGES;
		}
		if (!vec.iov_len) {
			kvfree(msg);
			return -ENOMEM;
		}
	} else if (c->op == TC_DESTROY) {
		pool.pool_id = cpu_to_le32(c->pool);
		pool.reserved = cpu_to_le32(c->reserved);
		vec.iov_base = &pool;
		vec.iov_len = sizeof(pool);
		type = R2NET_MSG_TMEM_DESTROY_POOL;
	} else {
		np.uuid[0] = cpu_to_le64(c->uuid[0]);
		np.uuid[1] = cpu_to_le64(c->uuid[1]);
		np.flags = cpu_to_le32(c->flags);
		np.reserved = cpu_to_le32(c->reserved);
		vec.iov_base = &np;
		vec.iov_len = sizeof(np);
		type = R2NET_MSG_TMEM_NEW_POOL;
	}
	buf = kvmalloc(R2NET_MAX_PAYLOAD, GFP_KERNEL);
	if (!buf) {
		kvfree(msg);
		return -ENOMEM;
	}
	reply = (struct r2net_reply){
		.buf = buf,
		.buf_len = R2NET_MAX_PAYLOAD,
	};
	t0 = ktime_get();
	err = r2net_send_sync(c->node, type, TC_KEY, &vec, 1, &reply, 0);
	if (err)
		tc_net_error(res, err);
	else
		tc_check(c, res, c->pool, 1, reply.status, buf, reply.len,
			 ktime_us_delta(ktime_get(), t0));
	kvfree(buf);
	kvfree(msg);
	return 0;
}

/* ---- put, get, flush: a window of asynchronous requests ---- */

/*
 * r2net calls this exactly once for each accepted request.  arg names the
 * command (its generation) and the slot; anything else is counted, not
 * trusted.
 */
static void tc_done(void *arg, int err, s32 status, const void *data, u32 len)
{
	unsigned long a = (uintptr_t)arg;
	u32 idx = a & 0xffff;
	struct tc_async *cur;
	struct tc_slot *s;

	spin_lock(&tc_lock);
	cur = tc_cur;
	if (!cur || cur->gen != (u16)(a >> 16) || idx >= cur->nr_slots) {
		spin_unlock(&tc_lock);
		pr_warn_ratelimited("completion of request %#lx, which is not outstanding\n",
				    a);
		return;
	}
	s = &cur->slots[idx];
	if (!s->busy) {
		cur->res->duplicates++;
		goto out;
	}
	s->err = err;
	s->status = status;
	s->len = min(len, cur->reply_size);
	if (!err && len)
		memcpy(s->reply, data, s->len);
	s->lat_us = ktime_us_delta(ktime_get(), s->start);
	s->busy = false;
	s->done = true;
	cur->in_flight--;
	wake_up(&cur->wq);
out:
	spin_unlock(&tc_lock);
}

/* A slot not in flight, or -1. */
static int tc_free_slot(struct tc_async *a)
{
	int idx = -1;
	u32 i;

	spin_lock(&tc_lock);
	for (i = 0; i < a->nr_slots; i++) {
		if (!a->slots[i].busy) {
			idx = i;
			break;
		}
	}
	spin_unlock(&tc_lock);
	return idx;
}

static bool tc_settled(struct tc_async *a)
{
	bool settled;

	spin_lock(&tc_lock);
	settled = !a->in_flight;
	spin_unlock(&tc_lock);
	return settled;
}

/* Check a completed slot's reply; the slot is not in flight. */
static void tc_reap(const struct tc_cmd *c, struct tc_result *res,
		    struct tc_slot *s)
{
	if (!s->done)
		return;
	s->done = false;
	if (s->err)
		tc_net_error(res, s->err);
	else
		tc_check(c, res, s->seq, s->n, s->status, s->reply, s->len,
			 s->lat_us);
}

/*
 * Send the request for the n pages from seq (n is 1 but for batches) from
 * slot idx; 0 when r2net accepted it.
 */
static int tc_send(const struct tc_cmd *c, struct tc_async *a, u32 idx,
		   u32 seq, u32 n, u8 *msg)
{
	struct r2net_tmem_page_le *pmsg = (void *)msg;
	struct kvec ref[R2NET_BATCH_MAX];
	struct tc_slot *s = &a->slots[idx];
	u32 pageno = tc_pageno(c, seq), nref = 0, i;
	struct r2net_zpage z;
	struct tmem_handle h;
	struct kvec vec;
	u16 type;
	int err;

	tc_handle(&h, c, pageno);
	tmem_handle_to_le(&pmsg->handle, &h);
	vec.iov_base = msg;
	switch (c->op) {
	case TC_ZPUTS:
	case TC_ZSAMES:
		/* The data goes by reference: the slot's, until it completes. */
		vec.iov_len = tc_make_batch(c, seq, n, msg, s->data, ref,
					    a->res);
		nref = n;
		type = R2NET_MSG_TMEM_PUT_ZPAGES;
		break;
	case TC_ZGETS:
		r2net_tmem_batch_encode((void *)msg, n);
		for (i = 0; i < n; i++) {
			tc_handle(&h, c, tc_pageno(c, seq + i));
			tmem_handle_to_le((void *)(msg + R2NET_BATCH_HDR_LEN +
						   i * R2NET_HANDLE_LEN), &h);
		}
		vec.iov_len = R2NET_BATCH_HDR_LEN + n * R2NET_HANDLE_LEN;
		type = R2NET_MSG_TMEM_GET_ZPAGES;
		break;
	case TC_PUT:
		tc_fill(pmsg->data, c->seed, pageno);
		vec.iov_len = R2NET_PAGE_MSG_LEN;
		type = R2NET_MSG_TMEM_PUT_PAGE;
		break;
	case TC_GET:
		vec.iov_len = R2NET_HANDLE_LEN;
		type = R2NET_MSG_TMEM_GET_PAGE;
		break;
	case TC_ZPUT:
	case TC_ZPUTBAD:
		tc_make_zpage(c->seed, pageno, c->op == TC_ZPUTBAD, &z,
			      msg + R2NET_ZPAGE_HDR_LEN);
		r2net_tmem_zpage_encode((void *)msg, &h, &z);
		a->res->zforms[z.enc]++;
		vec.iov_len = R2NET_ZPAGE_HDR_LEN + r2net_zpage_data_len(&z);
		type = R2NET_MSG_TMEM_PUT_ZPAGE;
		break;
	case TC_ZGET:
	case TC_ZGETBAD:
		vec.iov_len = R2NET_HANDLE_LEN;
		type = R2NET_MSG_TMEM_GET_ZPAGE;
		break;
	case TC_FLUSH:
		vec.iov_len = R2NET_HANDLE_LEN;
		type = R2NET_MSG_TMEM_FLUSH_PAGE;
		break;
	default:
		vec.iov_len = R2NET_HANDLE_LEN;
		type = R2NET_MSG_TMEM_FLUSH_OBJECT;
		break;
	}

	spin_lock(&tc_lock);
	s->seq = seq;
	s->n = n;
	s->busy = true;
	s->start = ktime_get();
	a->in_flight++;
	spin_unlock(&tc_lock);
	a->res->requests++;
	/*
	 * r2net copies the head, not the refs; the completion may run before
	 * this returns.
	 */
	err = r2net_send_refs_async(c->node, type, TC_KEY, &vec, 1, ref, nref,
				    READ_ONCE(timeout_ms), tc_done,
				    (void *)(uintptr_t)((u32)a->gen << 16 |
							idx));
	if (err) {
		spin_lock(&tc_lock);
		s->busy = false;
		a->in_flight--;
		spin_unlock(&tc_lock);
	}
	return err;
}

static int tc_run_async(const struct tc_cmd *c, struct tc_result *res)
{
	u32 seq, i, n, per, data_size;
	struct tc_async *a;
	int idx, err = 0;
	u8 *msg;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	msg = kvmalloc(R2NET_MAX_PAYLOAD, GFP_KERNEL);
	if (!a || !msg) {
		err = -ENOMEM;
		goto out_free;
	}
	a->nr_slots = clamp_val(READ_ONCE(window), 1, TC_MAX_WINDOW);
	a->reply_size = c->op == TC_ZGETS ? R2NET_MAX_PAYLOAD :
			R2NET_ZPAGE_MSG_MAX;
	data_size = c->op == TC_ZPUTS || c->op == TC_ZSAMES ?
		    R2NET_BATCH_MAX * TMEM_PAGE_SIZE : 0;
	a->slots = kvcalloc(a->nr_slots, sizeof(*a->slots), GFP_KERNEL);
	a->mem = kvmalloc_array(a->nr_slots, a->reply_size + data_size,
				GFP_KERNEL);
	if (!a->slots || !a->mem) {
		err = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < a->nr_slots; i++) {
		a->slots[i].reply = a->mem + i * (a->reply_size + data_size);
		a->slots[i].data = a->slots[i].reply + a->reply_size;
	}
	per = tc_batch_op(c->op) ? clamp_val(READ_ONCE(batch), 1,
					     R2NET_BATCH_MAX) : 1;
	init_waitqueue_head(&a->wq);
	a->res = res;
	spin_lock(&tc_lock);
	a->gen = ++tc_gen;
	tc_cur = a;
	spin_unlock(&tc_lock);

	for (seq = 0; seq < c->count; seq += n) {
		n = min(per, c->count - seq);
		if (wait_event_killable(a->wq, tc_free_slot(a) >= 0))
			break;
		/* Only this thread makes a slot busy: it stays free. */
		idx = tc_free_slot(a);
		tc_reap(c, res, &a->slots[idx]);
		if (res->net_errors)
			break;
		err = tc_send(c, a, idx, seq, n, msg);
		if (err) {
			/* r2net refused: the node is likely gone. */
			tc_net_error(res, err);
			err = 0;
			break;
		}
		/* A full window never sleeps here; let r2net's threads run. */
		cond_resched();
	}
	wait_event_killable_timeout(a->wq, tc_settled(a),
				    msecs_to_jiffies(READ_ONCE(wait_ms)));

	spin_lock(&tc_lock);
	tc_cur = NULL;
	res->lost = a->in_flight;
	spin_unlock(&tc_lock);
	for (i = 0; i < a->nr_slots; i++)
		tc_reap(c, res, &a->slots[i]);
	if (res->lost)
		pr_warn("%s to node %u: %llu requests never completed\n",
			tc_op_names[c->op], c->node, res->lost);
out_free:
	if (a) {
		kvfree(a->slots);
		kvfree(a->mem);
	}
	kfree(a);
	kvfree(msg);
	return err;
}

/* ---- commands ---- */

static int tc_u32(const char *s, u32 min, u32 max, u32 *v)
{
	if (kstrtou32(s, 0, v) || *v < min || *v > max)
		return -EINVAL;
	return 0;
}

static int tc_parse_range(int argc, char **argv, struct tc_cmd *c)
{
	c->first = 0;
	c->step = 1;
	if (argc > 0 && tc_u32(argv[0], 0, U32_MAX, &c->first))
		return -EINVAL;
	if (argc > 1 && tc_u32(argv[1], 1, U32_MAX, &c->step))
		return -EINVAL;
	if (c->first + (u64)(c->count - 1) * c->step > U32_MAX)
		return -EINVAL;
	return 0;
}

static int tc_parse(int argc, char **argv, struct tc_cmd *c)
{
	/* COUNT SEED [FIRST [STEP]] */
	static const enum tc_op tc_page_ops[] = {
		TC_PUT, TC_GET, TC_ZPUT, TC_ZGET, TC_ZPUTBAD, TC_ZGETBAD,
		TC_ZPUTS, TC_ZGETS, TC_ZSAMES,
	};
	size_t i;
	u32 node;

	memset(c, 0, sizeof(*c));
	c->count = 1;
	c->step = 1;
	if (argc < 3 || tc_u32(argv[1], 0, R2NET_MAX_NODE, &node))
		return -EINVAL;
	c->node = node;
	if (!strcmp(argv[0], "pool") && argc == 3) {
		c->op = TC_POOL;
		if (!strcmp(argv[2], "persistent"))
			c->flags = tmem_pool_flags(true, false);
		else if (!strcmp(argv[2], "ephemeral"))
			c->flags = tmem_pool_flags(false, false);
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(argv[0], "newpool") && argc == 6) {
		c->op = TC_NEWPOOL;
		if (tc_u32(argv[2], 0, U32_MAX, &c->flags) ||
		    kstrtou64(argv[3], 0, &c->uuid[0]) ||
		    kstrtou64(argv[4], 0, &c->uuid[1]) ||
		    tc_u32(argv[5], 0, U32_MAX, &c->reserved))
			return -EINVAL;
		return 0;
	}
	if (tc_u32(argv[2], 0, U32_MAX, &c->pool))
		return -EINVAL;
	if (!strcmp(argv[0], "destroy") && (argc == 3 || argc == 4)) {
		c->op = TC_DESTROY;
		if (argc == 4 && tc_u32(argv[3], 0, U32_MAX, &c->reserved))
			return -EINVAL;
		return 0;
	}
	if (!strcmp(argv[0], "zbad") && argc == 4) {
		c->op = TC_ZBAD;
		for (c->zbad = 0; c->zbad < TC_ZBAD_NR; c->zbad++)
			if (!strcmp(argv[3], tc_zbad_names[c->zbad]))
				return 0;
		return -EINVAL;
	}
	if (!strcmp(argv[0], "zbadbatch") && argc == 4) {
		c->op = TC_ZBADBATCH;
		for (c->bb = 0; c->bb < TC_BB_NR; c->bb++)
			if (!strcmp(argv[3], tc_bb_names[c->bb]))
				return 0;
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(tc_page_ops); i++) {
		if (strcmp(argv[0], tc_op_names[tc_page_ops[i]]))
			continue;
		if (argc < 5 || argc > 7)
			return -EINVAL;
		c->op = tc_page_ops[i];
		if (tc_u32(argv[3], 1, TC_MAX_COUNT, &c->count) ||
		    tc_u32(argv[4], 0, U32_MAX, &c->seed))
			return -EINVAL;
		return tc_parse_range(argc - 5, argv + 5, c);
	}
	if ((!strcmp(argv[0], "flush") || !strcmp(argv[0], "flushobj")) &&
	    argc >= 4 && argc <= 6) {
		c->op = strcmp(argv[0], "flush") ? TC_FLUSHOBJ : TC_FLUSH;
		if (tc_u32(argv[3], 1, TC_MAX_COUNT, &c->count))
			return -EINVAL;
		return tc_parse_range(argc - 4, argv + 4, c);
	}
	return -EINVAL;
}

static int tc_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least pct % at or below it. */
static u32 tc_pct(const struct tc_result *res, unsigned int pct)
{
	u32 rank;

	if (!res->nr_lat)
		return 0;
	rank = DIV_ROUND_UP((u64)res->nr_lat * pct, 100);
	return res->lat[max(rank, 1u) - 1];
}

static void tc_report(const struct tc_cmd *c, struct tc_result *res)
{
	u64 rate = 0;

	sort(res->lat, res->nr_lat, sizeof(*res->lat), tc_cmp_u32, NULL);
	if (res->elapsed_us)
		rate = div64_u64((u64)res->nr_lat * USEC_PER_SEC,
				 res->elapsed_us);
	snprintf(tc_out, sizeof(tc_out),
		 "cmd %s\nnode %u\npool %u\ncount %u\nfirst %u\nstep %u\n"
		 "seed %u\nok %llu\nmissing %llu\nmissing_random %llu\n"
		 "mismatches %llu\nerrors %llu\nerr_einval %llu\n"
		 "err_enodev %llu\nerr_enomem %llu\nerr_eperm %llu\n"
		 "err_efrozen %llu\nerr_other %llu\nfirst_status %d\n"
		 "status %d\nnet_errors %llu\nfirst_net_error %d\nlost %llu\n"
		 "duplicates %llu\npages_zero %llu\npages_same %llu\n"
		 "pages_text %llu\npages_random %llu\nzpage_same %llu\n"
		 "zpage_lzo %llu\nzpage_raw %llu\nzpage_as_sent %llu\n"
		 "requests %llu\nelapsed_us %llu\n"
		 "pages_per_s %llu\nlat_p50_us %u\nlat_p99_us %u\n"
		 "lat_max_us %u\n",
		 tc_op_names[c->op], c->node, c->pool, c->count, c->first,
		 c->step, c->seed, res->ok, res->missing, res->missing_random,
		 res->mismatches, res->errors, res->err_einval,
		 res->err_enodev, res->err_enomem, res->err_eperm,
		 res->err_efrozen, res->err_other, res->first_status,
		 res->status, res->net_errors, res->first_net_error,
		 res->lost, res->duplicates, res->kinds[TC_ZERO],
		 res->kinds[TC_SAME], res->kinds[TC_TEXT],
		 res->kinds[TC_RANDOM], res->zforms[R2NET_ZPAGE_SAME],
		 res->zforms[R2NET_ZPAGE_LZO], res->zforms[R2NET_ZPAGE_RAW],
		 res->zpage_as_sent, res->requests, res->elapsed_us, rate,
		 tc_pct(res, 50), tc_pct(res, 99),
		 res->nr_lat ? res->lat[res->nr_lat - 1] : 0);
}

static int tc_run(const struct tc_cmd *c)
{
	struct tc_result res = {};
	ktime_t t0;
	u32 seq;
	int err;

	res.lat = kvmalloc_array(c->count, sizeof(*res.lat), GFP_KERNEL);
	if (!res.lat)
		return -ENOMEM;
	if (c->op == TC_PUT || c->op == TC_GET || tc_zpage_op(c->op)) {
		for (seq = 0; seq < c->count; seq++)
			res.kinds[c->op == TC_ZSAMES ? TC_SAME :
				  tc_kind(c->seed, tc_pageno(c, seq))]++;
	}
	t0 = ktime_get();
	if (c->op == TC_POOL || c->op == TC_NEWPOOL || c->op == TC_DESTROY ||
	    c->op == TC_ZBAD || c->op == TC_ZBADBATCH)
		err = tc_run_sync(c, &res);
	else
		err = tc_run_async(c, &res);
	res.elapsed_us = ktime_us_delta(ktime_get(), t0);
	if (!err)
		tc_report(c, &res);
	kvfree(res.lat);
	return err;
}

static ssize_t tc_run_write(struct file *file, const char __user *ubuf,
			    size_t n, loff_t *ppos)
{
	struct tc_cmd c;
	char *buf, **argv;
	int argc, err;

	if (n > TC_CMD_MAX) {
		pr_warn("command longer than %d bytes; usage: %s\n",
			TC_CMD_MAX, TC_USAGE);
		return -EINVAL;
	}
	buf = memdup_user_nul(ubuf, n);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	argv = argv_split(GFP_KERNEL, buf, &argc);
	kfree(buf);
	if (!argv)
		return -ENOMEM;
	err = tc_parse(argc, argv, &c);
	argv_free(argv);
	if (err) {
		pr_warn("bad command; usage: %s\n", TC_USAGE);
		return err;
	}
	err = mutex_lock_killable(&tc_run_lock);
	if (err)
		return err;
	err = tc_run(&c);
	mutex_unlock(&tc_run_lock);
	return err ?: n;
}

static ssize_t tc_run_read(struct file *file, char __user *ubuf, size_t n,
			   loff_t *ppos)
{
	ssize_t ret;

	ret = mutex_lock_killable(&tc_run_lock);
	if (ret)
		return ret;
	ret = simple_read_from_buffer(ubuf, n, ppos, tc_out, strlen(tc_out));
	mutex_unlock(&tc_run_lock);
	return ret;
}

static const struct file_operations tc_run_fops = {
	.owner	= THIS_MODULE,
	.read	= tc_run_read,
	.write	= tc_run_write,
	.llseek	= default_llseek,
};

/* ---- module ---- */

static void tc_free_buffers(void)
{
	kfree(tc_expect);
	kfree(tc_page);
	kfree(tc_zdata);
	kfree(tc_lzo);
	kfree(tc_wrkmem);
}

static int __init tc_init(void)
{
	tc_expect = kmalloc(TMEM_PAGE_SIZE, GFP_KERNEL);
	tc_page = kmalloc(TMEM_PAGE_SIZE, GFP_KERNEL);
	tc_zdata = kmalloc(TMEM_PAGE_SIZE, GFP_KERNEL);
	tc_lzo = kmalloc(lzo1x_worst_compress(TMEM_PAGE_SIZE), GFP_KERNEL);
	tc_wrkmem = kmalloc(LZO1X_MEM_COMPRESS, GFP_KERNEL);
	if (!tc_expect || !tc_page || !tc_zdata || !tc_lzo || !tc_wrkmem) {
		tc_free_buffers();
		return -ENOMEM;
	}
	tc_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0600, tc_dir, NULL, &tc_run_fops);
	return 0;
}

static void __exit tc_exit(void)
{
	debugfs_remove_recursive(tc_dir);
	r2net_sync_callbacks();
	tc_free_buffers();
}

module_init(tc_init);
module_exit(tc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tmem client over r2net that checks a memory server, for tests");
