// SPDX-License-Identifier: GPL-2.0
/*
 * Event delivery. Every event reaches the consumer through cma_deliver(),
 * under the id's handler mutex, in process context. Events that are not
 * born in a context where that is possible go through cma_queue_event(),
 * which runs the delivery from the CM's workqueue.
 */

#include <linux/slab.h>

#include "cma_priv.h"
#include "cma_trace.h"

/**
 * cma_deliver - hand one event to the consumer's handler
 * @cid: the id the event is for
 * @event: the event
 *
 * Context: process context, with @cid->handler_mutex held; the handler
 * may sleep.
 * Return: the handler's verdict: non-zero means the caller must destroy
 * @cid with cma_destroy_handler_unlock() and not touch it afterwards.
 */
int cma_deliver(struct cma_id *cid, struct rdma_cm_event *event)
{
	int ret;

	lockdep_assert_held(&cid->handler_mutex);
	trace_cm_event_handler(cid, event);
	ret = cid->id.event_handler(&cid->id, event);
	trace_cm_event_done(cid, event, ret);
	return ret;
}

/**
 * cma_deliver_unlock - deliver an event from an IB CM or iWARP CM callback
 * @cid: the id the event is for
 * @event: the event
 *
 * The calling CM destroys its own id when its callback returns non-zero:
 * on such a verdict @cid forgets that id and is destroyed.
 *
 * Context: a CM callback, with @cid->handler_mutex held; returns with it
 * released.
 * Return: the verdict, for the callback to return to its CM.
 */
int cma_deliver_unlock(struct cma_id *cid, struct rdma_cm_event *event)
{
	int ret = cma_deliver(cid, event);

	if (!ret) {
		mutex_unlock(&cid->handler_mutex);
		return 0;
	}
	cid->ib = NULL;
	cid->iw = NULL;
	cma_destroy_handler_unlock(cid);
	return ret;
}

/**
 * cma_deliver_put_unlock - deliver an event from a query's callback
 * @cid: the id the event is for; the caller's reference on it (the
 *	query's) is dropped
 * @event: the event
 *
 * On a non-zero verdict @cid is destroyed, after the reference is
 * dropped: the destruction waits for every other.
 *
 * Context: process context, with @cid->handler_mutex held; returns with
 * it released.
 */
void cma_deliver_put_unlock(struct cma_id *cid, struct rdma_cm_event *event)
{
	if (cma_deliver(cid, event)) {
		cma_id_put(cid);
		cma_destroy_handler_unlock(cid);
		return;
	}
	mutex_unlock(&cid->handler_mutex);
	cma_id_put(cid);
}

/**
 * struct cma_event_work - an event waiting for the workqueue
 * @work: the work item on cma_wq
 * @cid: the id; the work item owns a reference on it
 * @from: the state @cid must be in for the event to be delivered
 * @to: the state @cid moves to just before delivery (equal to @from for
 *	an event that changes no state)
 * @event: what the handler gets
 */
struct cma_event_work {
	struct work_struct work;
	struct cma_id *cid;
	enum rdma_cm_state from;
	enum rdma_cm_state to;
	struct rdma_cm_event event;
};

/* Is the event still wanted? Make its state change if so. */
static bool cma_event_work_applies(struct cma_event_work *w)
{
	if (w->from == w->to)
		return cma_state(w->cid) == w->from;
	return cma_transition(w->cid, w->from, w->to);
}

static void cma_event_work_handler(struct work_struct *work)
{
	struct cma_event_work *w = container_of(work, struct cma_event_work,
						 work);
	struct cma_id *cid = w->cid;

	mutex_lock(&cid->handler_mutex);
	if (cma_event_work_applies(w) && cma_deliver(cid, &w->event)) {
		/* Ours goes first: the destroy below waits for all others. */
		cma_id_put(cid);
		cma_destroy_handler_unlock_deferred(cid);
	} else {
		mutex_unlock(&cid->handler_mutex);
		cma_id_put(cid);
	}
	kfree(w);
}

/**
 * cma_queue_event_gfp - deliver an event later, allocating as told
 * @cid: the id the event is for; the caller makes sure it stays alive
 *	until this returns
 * @from: as for cma_queue_event()
 * @to: as for cma_queue_event()
 * @event: the event, copied
 * @gfp: how to allocate the work item
 *
 * Context: any, with @gfp to match.
 * Return: 0, or -ENOMEM if the work item could not be allocated.
 */
int cma_queue_event_gfp(struct cma_id *cid, enum rdma_cm_state from,
			enum rdma_cm_state to,
			const struct rdma_cm_event *event, gfp_t gfp)
{
	struct cma_event_work *w;

	w = CMA_ALLOC(kmalloc(sizeof(*w), gfp));
	if (!w)
		return -ENOMEM;

	INIT_WORK(&w->work, cma_event_work_handler);
	w->cid = cid;
	w->from = from;
	w->to = to;
	w->event = *event;
	cma_id_get(cid);
	queue_work(cma_wq, &w->work);
	return 0;
}

/**
 * cma_queue_event - deliver an event later, from the CM's workqueue
 * @cid: the id the event is for
 * @from: the state @cid must still be in when the work runs; otherwise the
 *	event is dropped (the id moved on, or is being destroyed)
 * @to: the state to move @cid to just before delivery; pass @from to
 *	deliver without a state change
 * @event: the event, copied
 *
 * The queued work holds a reference on @cid, so a concurrent
 * rdma_destroy_id() waits for it; it then finds the id DESTROYING and
 * delivers nothing.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOMEM if the work item could not be allocated.
 */
int cma_queue_event(struct cma_id *cid, enum rdma_cm_state from,
		    enum rdma_cm_state to, const struct rdma_cm_event *event)
{
	return cma_queue_event_gfp(cid, from, to, event, GFP_KERNEL);
}
EXPORT_SYMBOL_IF_KUNIT(cma_queue_event);
