/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tmemclient.h - the tmem client test module: its pages and its commands.
 *
 * tmemclient sends tmem requests (shared-abi/r2net_wire.h, key 0) to a
 * memory server through r2net and checks every reply.  It keeps no state
 * between commands: the pool ids it uses are the server's, as numbers,
 * so that a test can also name pools that do not exist.
 *
 * Pages.  Page number P (a u32) has the handle
 *	pool_id POOL, index P % 64,
 *	oid { O, O * 0x9e3779b97f4a7c15, ~O } with object number O = P / 64,
 * so 64 pages share an object, and its content depends on P and a SEED
 * only: by a hash of both, one in eight pages is zero, one in eight one
 * repeated byte (not zero), one in eight one repeated u64, three in eight
 * text (words of a small dictionary, compressible) and two in eight
 * random bytes from an xorshift generator (incompressible).
 *
 * debugfs /sys/kernel/debug/tmemclient/:
 *   run     write one command, then read the result of the last one:
 *	       pool NODE persistent|ephemeral
 *	       newpool NODE FLAGS UUID0 UUID1 RESERVED
 *	       destroy NODE POOL [RESERVED]
 *	       put NODE POOL COUNT SEED [FIRST [STEP]]
 *	       get NODE POOL COUNT SEED [FIRST [STEP]]
 *	       flush NODE POOL COUNT [FIRST [STEP]]
 *	       flushobj NODE POOL COUNT [FIRST [STEP]]
 *	       zput|zget|zputbad|zgetbad NODE POOL COUNT SEED [FIRST [STEP]]
 *	       zputs|zgets|zsames NODE POOL COUNT SEED [FIRST [STEP]]
 *	       zbad NODE POOL KIND
 *	       zbadbatch NODE POOL KIND
 *	     NODE is 0..254.  pool creates a private pool of this ABI
 *	     version; newpool sends a NEW_POOL with the fields as given
 *	     (numbers in C syntax: 0x.. is hex), destroy a DESTROY_POOL.
 *	     put, get and flush act on the COUNT (1..1000000) pages
 *	     FIRST, FIRST + STEP, ... (FIRST 0, STEP 1 if not given; the
 *	     last page number must fit in a u32); flushobj flushes the
 *	     objects FIRST, FIRST + STEP, ...  They keep module parameter
 *	     window requests in flight (r2net_send_async()), each timing
 *	     out after timeout_ms, and stop sending at the first error of
 *	     r2net itself.  get checks each page against its content for
 *	     SEED, and its handle.
 *
 *	     zput and zget are put and get with the page as a zpage
 *	     (PUT_ZPAGE, GET_ZPAGE): zput sends a page of one repeated
 *	     32-bit value as SAME, else its LZO1X-1 stream if shorter than
 *	     a page, else the page as RAW; zget wants a reply that decodes
 *	     to the page, in any encoding.  zputbad sends every page as a
 *	     corrupt LZO stream (the page's stream without its end marker,
 *	     or for some pages, every random one among them, 1..3000 random
 *	     bytes); zgetbad wants that stream back byte for byte.  zbad
 *	     sends one malformed PUT_ZPAGE for page 0 of POOL, each of which
 *	     the server's decoder refuses: KIND enc (an unknown encoding),
 *	     raw4095, lzo0, lzo4096 (lengths out of range), reserved (a
 *	     reserved byte set), long, short (more, fewer data bytes than
 *	     the length says), samedata (SAME with data), rawshort (RAW
 *	     with 100 bytes).
 *
 *	     zputs and zgets are zput and zget in batches (PUT_ZPAGES,
 *	     GET_ZPAGES) of module parameter batch pages (1..16), the last
 *	     one shorter if COUNT says so; each page is checked as zput and
 *	     zget check it.  zputs sends the pages' data by reference
 *	     (r2net_send_refs_async()).  zbadbatch sends one malformed
 *	     PUT_ZPAGES of pages 0..3 (seed 0) of POOL, which the server
 *	     refuses whole: KIND count0, count17 (a count of 0, of 17),
 *	     reserved (the batch header's reserved field set), entry (page
 *	     2 of an unknown form), long, short (a data byte too many, too
 *	     few).
 *
 *	     zsames is zputs of pages that are each one repeated 32-bit
 *	     value (SAME, no data), at handles scattered by a hash of the
 *	     page number and SEED rather than the handles above: each page
 *	     makes an object of its own, as a client that wants to cost a
 *	     server the most for the least would put them.
 *
 *	     The result is "name value" lines:
 *	       cmd node pool count first step seed	the command
 *	       ok		replies as expected: NEW_POOL a pool id, PUT
 *				and FLUSH_* status 1, DESTROY status 1, GET
 *				status 1 with the right handle and page
 *	       missing		GET status 0 (not found), DESTROY status 0
 *	       missing_random	of those, random pages
 *	       mismatches	anything else with status >= 0: a wrong
 *				page or handle, a payload where none
 *				belongs, an unexpected status
 *	       errors		replies with status < 0, and of those:
 *	       err_einval err_enodev err_enomem err_eperm err_efrozen
 *	       err_other
 *	       first_status	the first status < 0, or 0
 *	       status		the status of the last reply
 *	       net_errors	requests r2net failed (not sent, timed out,
 *				connection lost); first_net_error its errno
 *	       lost		requests accepted but never completed
 *	       duplicates	completions for no outstanding request
 *	       pages_zero pages_same pages_text pages_random
 *				the kinds of the command's pages (put, get,
 *				and the z commands)
 *	       zpage_same zpage_lzo zpage_raw
 *				the encodings of the zpages sent (zput,
 *				zputbad) or received (zget, zgetbad)
 *	       zpage_as_sent	zget, zgetbad, zgets: pages byte for byte
 *				the zpage zput (zputbad) sends for them
 *	       requests		frames sent: one a batch for zputs, zgets
 *	       elapsed_us pages_per_s lat_p50_us lat_p99_us lat_max_us
 *				over the pages (a batch's pages each count
 *				its reply's latency)
 *
 * A bad command fails with -EINVAL and logs the syntax.
 */
#ifndef RAMSTER_TMEMCLIENT_H
#define RAMSTER_TMEMCLIENT_H

/* Pages per object. */
#define TMEMCLIENT_OBJ_PAGES	64

#endif /* RAMSTER_TMEMCLIENT_H */
