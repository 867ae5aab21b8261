/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for wait queues: wait_event() checks its condition
 * every 100 us or so until it holds (an error if called with a spinlock
 * held), so a wake-up is never needed and wake_up_all() only counts.
 */
#ifndef KSHIM_LINUX_WAIT_H
#define KSHIM_LINUX_WAIT_H

#include <limits.h>

#include "../kshim.h"

typedef struct wait_queue_head {
	int unused;
} wait_queue_head_t;

#define DECLARE_WAIT_QUEUE_HEAD(name)	wait_queue_head_t name = { 0 }

static inline void init_waitqueue_head(wait_queue_head_t *wq_head)
{
	wq_head->unused = 0;
}

#define wait_event(wq_head, condition)					\
	do {								\
		(void)&(wq_head);					\
		kshim_might_sleep("wait_event");			\
		while (!(condition))					\
			kshim_wait_poll();				\
	} while (0)

/* A jiffy is one poll; MAX_SCHEDULE_TIMEOUT waits as long as it takes. */
#define MAX_SCHEDULE_TIMEOUT	LONG_MAX

#define wait_event_timeout(wq_head, condition, timeout)		\
	({								\
		long __left = (timeout);				\
		(void)&(wq_head);					\
		kshim_might_sleep("wait_event_timeout");		\
		while (!(condition) && __left > 0) {			\
			kshim_wait_poll();				\
			if (__left != MAX_SCHEDULE_TIMEOUT)		\
				__left--;				\
		}							\
		(condition) ? (__left > 0 ? __left : 1) : 0;		\
	})

#define wake_up_all(wq_head)	kshim_wake_up(wq_head)

#endif
