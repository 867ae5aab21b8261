// SPDX-License-Identifier: GPL-2.0
/*
 * handlers.c - r2net's message handlers, by (type, key), and the node
 * up/down events other modules subscribe to.
 *
 * The handler table is read under SRCU by the receive threads, which call
 * handlers that may sleep; registering and unregistering take a mutex,
 * and unregistering waits for calls in progress.
 *
 * Node events are queued by the connection code and delivered by one work
 * item, in order.  r2net_reported[] is what subscribers have been told, so
 * that one who registers late hears "up" once for each node that is up.
 */
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/workqueue.h>

#include "r2net_int.h"

struct r2net_handler {
	struct hlist_node	node;
	u16			type;
	u32			key;
	u32			max_len;
	r2net_handler_fn	fn;
	void			*data;
};

static DEFINE_HASHTABLE(r2net_handlers, 6);
static DEFINE_MUTEX(r2net_handlers_mutex);
DEFINE_STATIC_SRCU(r2net_handlers_srcu);

static u32 r2net_handler_hash(u16 type, u32 key)
{
	return ((u32)type << 16) ^ key;
}

static struct r2net_handler *r2net_handler_find(u16 type, u32 key)
{
	struct r2net_handler *h;

	hash_for_each_possible_rcu(r2net_handlers, h, node,
				   r2net_handler_hash(type, key),
				   srcu_read_lock_held(&r2net_handlers_srcu) ||
				   lockdep_is_held(&r2net_handlers_mutex))
		if (h->type == type && h->key == key)
			return h;
	return NULL;
}

int r2net_register_handler(u16 type, u32 key, u32 max_len,
			   r2net_handler_fn fn, void *data)
{
	struct r2net_handler *h;
	int ret = 0;

	if ((!r2net_msg_tmem_op(type) && !r2net_msg_type_user(type)) ||
	    max_len > R2NET_MAX_PAYLOAD || !fn) {
		pr_warn("handler for type %#x key %#x refused: type must be tmem or user, max_len at most %d\n",
			type, key, R2NET_MAX_PAYLOAD);
		return -EINVAL;
	}
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->type = type;
	h->key = key;
	h->max_len = max_len;
	h->fn = fn;
	h->data = data;

	mutex_lock(&r2net_handlers_mutex);
	if (r2net_handler_find(type, key)) {
		pr_warn("handler for type %#x key %#x refused: one is registered already\n",
			type, key);
		kfree(h);
		ret = -EEXIST;
	} else {
		hash_add_rcu(r2net_handlers, &h->node,
			     r2net_handler_hash(type, key));
	}
	mutex_unlock(&r2net_handlers_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(r2net_register_handler);

void r2net_unregister_handler(u16 type, u32 key)
{
	struct r2net_handler *h;

	mutex_lock(&r2net_handlers_mutex);
	h = r2net_handler_find(type, key);
	if (h)
		hash_del_rcu(&h->node);
	mutex_unlock(&r2net_handlers_mutex);
	if (!h)
		return;
	synchronize_srcu(&r2net_handlers_srcu);
	kfree(h);
}
EXPORT_SYMBOL_GPL(r2net_unregister_handler);

/*
 * Run the handler for req->type and req->key on req.  Returns
 * R2NET_SYS_OK with the handler's result in *status, or why it did not run.
 */
u32 r2net_handler_run(struct r2net_request *req, s32 *status)
{
	struct r2net_handler *h;
	u32 sys = R2NET_SYS_OK;
	int idx;

	*status = 0;
	idx = srcu_read_lock(&r2net_handlers_srcu);
	h = r2net_handler_find(req->type, req->key);
	if (!h)
		sys = R2NET_SYS_NO_HANDLER;
	else if (req->len > h->max_len)
		sys = R2NET_SYS_TOO_LONG;
	else
		*status = h->fn(req, h->data);
	srcu_read_unlock(&r2net_handlers_srcu, idx);
	return sys;
}

/* Node events */

struct r2net_event {
	struct list_head	list;
	u8			num;
	bool			up;
};

static LIST_HEAD(r2net_ops_list);		/* r2net_ops_mutex */
static DEFINE_MUTEX(r2net_ops_mutex);
static bool r2net_reported[R2NM_MAX_NODES];	/* r2net_ops_mutex */
static LIST_HEAD(r2net_events);			/* r2net_events_lock */
static DEFINE_SPINLOCK(r2net_events_lock);
static struct workqueue_struct *r2net_events_wq;

static void r2net_event_deliver(u8 num, bool up)
{
	struct r2net_node_ops *ops;

	lockdep_assert_held(&r2net_ops_mutex);
	if (r2net_reported[num] == up)
		return;
	r2net_reported[num] = up;
	list_for_each_entry(ops, &r2net_ops_list, list) {
		if (up && ops->up)
			ops->up(num, ops->data);
		else if (!up && ops->down)
			ops->down(num, ops->data);
	}
}

static void r2net_events_work_fn(struct work_struct *work)
{
	struct r2net_event *ev;

	for (;;) {
		spin_lock(&r2net_events_lock);
		ev = list_first_entry_or_null(&r2net_events,
					      struct r2net_event, list);
		if (ev)
			list_del(&ev->list);
		spin_unlock(&r2net_events_lock);
		if (!ev)
			break;
		mutex_lock(&r2net_ops_mutex);
		r2net_event_deliver(ev->num, ev->up);
		mutex_unlock(&r2net_ops_mutex);
		kfree(ev);
	}
}

static DECLARE_WORK(r2net_events_work, r2net_events_work_fn);

/*
 * Queue an event for node num.  The caller is in process context; an
 * event lost to an allocation failure would leave subscribers wrong, so
 * the allocation may wait (__GFP_NOFAIL is not needed: it is tiny).
 */
void r2net_event_queue(u8 num, bool up)
{
	struct r2net_event *ev;

	ev = kmalloc(sizeof(*ev), GFP_NOIO | __GFP_NOFAIL);
	ev->num = num;
	ev->up = up;
	spin_lock(&r2net_events_lock);
	list_add_tail(&ev->list, &r2net_events);
	spin_unlock(&r2net_events_lock);
	queue_work(r2net_events_wq, &r2net_events_work);
}

void r2net_register_node_ops(struct r2net_node_ops *ops)
{
	unsigned int num;

	mutex_lock(&r2net_ops_mutex);
	list_add_tail(&ops->list, &r2net_ops_list);
	if (ops->up)
		for (num = 0; num < R2NM_MAX_NODES; num++)
			if (r2net_reported[num])
				ops->up(num, ops->data);
	mutex_unlock(&r2net_ops_mutex);
}
EXPORT_SYMBOL_GPL(r2net_register_node_ops);

void r2net_unregister_node_ops(struct r2net_node_ops *ops)
{
	mutex_lock(&r2net_ops_mutex);
	list_del(&ops->list);
	mutex_unlock(&r2net_ops_mutex);
}
EXPORT_SYMBOL_GPL(r2net_unregister_node_ops);

int r2net_events_init(void)
{
	r2net_events_wq = alloc_ordered_workqueue("r2net_events", 0);
	return r2net_events_wq ? 0 : -ENOMEM;
}

/* After r2net_stop(): every down event is queued; deliver them all. */
void r2net_events_exit(void)
{
	flush_workqueue(r2net_events_wq);
	destroy_workqueue(r2net_events_wq);
}
