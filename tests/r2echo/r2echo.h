/* SPDX-License-Identifier: GPL-2.0 */
/*
 * r2echo.h - the r2net echo test module's message.
 *
 * A request of (R2ECHO_TYPE, R2ECHO_KEY) carries 0..R2NET_MAX_PAYLOAD
 * bytes of anything; the handler replies with the same bytes and status =
 * their number.
 *
 * debugfs /sys/kernel/debug/r2echo/:
 *   run     write one command, then read the result of the last one:
 *	       sync NODE LEN COUNT
 *	       page NODE COUNT
 *	       async NODE LEN COUNT WINDOW
 *	     LEN is 0..4128, or MIN-MAX for lengths spread over that range
 *	     by sequence number; COUNT 1..1000000; WINDOW 1..4096.  sync
 *	     and page wait r2net's idle timeout for each reply, async
 *	     requests time out after module parameter async_timeout_ms;
 *	     sync, page and async stop sending at the first error.  The
 *	     result is "name value" lines: cmd, node, len, count, ok,
 *	     errors, first_error, mismatches, lost, duplicates, elapsed_us,
 *	     lat_p50_us, lat_p99_us, lat_max_us, msgs_per_s.
 *   events  "up NODE MS" or "down NODE MS" per r2net node event since
 *	     load (MS: ktime_get_boottime in ms).
 */
#ifndef RAMSTER_R2ECHO_H
#define RAMSTER_R2ECHO_H

#define R2ECHO_TYPE	0x10ec
#define R2ECHO_KEY	0x6563686f	/* "echo" */

#endif /* RAMSTER_R2ECHO_H */
