// SPDX-License-Identifier: GPL-2.0
/*
 * Life of an id: creation, references, the handler mutex, destruction.
 *
 * The consumer owns one reference from rdma_create_id() until it calls
 * rdma_destroy_id() or its handler returns non-zero. Every queued work
 * item and in-flight callback that may touch the id owns one more.
 * Destruction marks the id DESTROYING under the handler mutex, so no
 * handler runs after that, then drops the consumer's reference and waits
 * for the others before freeing.
 */

#include <linux/nsproxy.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>

#include "cma_priv.h"
#include "cma_trace.h"

/* Every live id, by handle: for the module-exit audit and listings. */
static DEFINE_XARRAY_FLAGS(cma_ids, XA_FLAGS_ALLOC);
static u32 cma_next_handle;

/* Destructions decided on cma_wq finish here; see below. */
static struct workqueue_struct *cma_release_wq;
static struct kmem_cache *cma_id_cache;
static void cma_release_work(struct work_struct *work);

/*
 * Any QP type goes, as in-box: the type is checked where it is used (the
 * QP's creation, the IB CM's REQ). The port space must be one of the four
 * the CM keeps ports for.
 */
static bool cma_ps_known(enum rdma_ucm_port_space ps)
{
	return ps == RDMA_PS_TCP || ps == RDMA_PS_UDP ||
	       ps == RDMA_PS_IPOIB || ps == RDMA_PS_IB;
}

/**
 * cma_id_alloc - allocate and register a new id
 * @net: its network namespace; a reference is taken
 * @handler: the consumer's event handler
 * @context: the consumer's context
 * @ps: port space
 * @qp_type: QP type
 * @state: the state it is born in: IDLE, or CONNECT for the passive side
 *	of a connection
 * @owner: the module or task that owns it, for listings and traces
 *
 * Context: process context; may sleep.
 * Return: the id, holding the consumer's reference, or an ERR_PTR:
 * -EINVAL for bad arguments, -ENOMEM.
 */
struct cma_id *cma_id_alloc(struct net *net, rdma_cm_event_handler handler,
			    void *context, enum rdma_ucm_port_space ps,
			    enum ib_qp_type qp_type, enum rdma_cm_state state,
			    const char *owner)
{
	struct cma_id *cid;
	int ret;

	if (!net || !handler || !cma_ps_known(ps))
		return ERR_PTR(-EINVAL);

	cid = CMA_ALLOC(kmem_cache_zalloc(cma_id_cache, GFP_KERNEL));
	if (!cid)
		return ERR_PTR(-ENOMEM);

	cid->id.event_handler = handler;
	cid->id.context = context;
	cid->id.ps = ps;
	cid->id.qp_type = qp_type;
	cid->id.route.addr.dev_addr.net = get_net(net);
	cid->state = state;
	cid->state_since = jiffies;
	spin_lock_init(&cid->lock);
	mutex_init(&cid->handler_mutex);
	mutex_init(&cid->qp_mutex);
	refcount_set(&cid->refcount, 1);
	init_completion(&cid->released);
	INIT_LIST_HEAD(&cid->device_entry);
	INIT_LIST_HEAD(&cid->listens);
	INIT_LIST_HEAD(&cid->listen_any_entry);
	INIT_LIST_HEAD(&cid->mcs);
	INIT_LIST_HEAD(&cid->neigh_entry);
	INIT_WORK(&cid->release_work, cma_release_work);
	cid->seq_num = get_random_u32() & 0xffffff;
	strscpy(cid->owner, owner, sizeof(cid->owner));

	/* Last: a listing may find the id in the table as soon as it is. */
	ret = xa_alloc_cyclic(&cma_ids, &cid->handle, cid, xa_limit_32b,
			      &cma_next_handle, GFP_KERNEL);
	if (ret < 0) {
		put_net(net);
		kmem_cache_free(cma_id_cache, cid);
		return ERR_PTR(ret);
	}
	trace_cm_id_create(cid);
	return cid;
}

/**
 * __rdma_create_kernel_id - create an id for an in-kernel consumer
 * @net: network namespace the id lives in; the id holds a reference on it
 *	until it is destroyed
 * @event_handler: called for every event on the id, under the id's handler
 *	mutex, in process context; it may sleep, and returns non-zero to have
 *	the CM destroy the id
 * @context: stored in the id's context field for the consumer
 * @ps: port space: RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IPOIB or RDMA_PS_IB
 * @qp_type: type of the QP that will go with the id
 * @caller: name of the calling module, for listings (rdma_create_id()
 *	passes KBUILD_MODNAME)
 *
 * Context: process context; may sleep.
 * Return: the new id in state IDLE, ERR_PTR(-EINVAL) for a missing @net or
 * @event_handler or an unknown @ps, ERR_PTR(-ENOMEM)
 * when out of memory.
 */
struct rdma_cm_id *__rdma_create_kernel_id(struct net *net,
					   rdma_cm_event_handler event_handler,
					   void *context,
					   enum rdma_ucm_port_space ps,
					   enum ib_qp_type qp_type,
					   const char *caller)
{
	struct cma_id *cid;

	cid = cma_id_alloc(net, event_handler, context, ps, qp_type,
			   RDMA_CM_IDLE, caller ? caller : "");
	return IS_ERR(cid) ? ERR_CAST(cid) : &cid->id;
}

/**
 * rdma_create_user_id - create an id on behalf of a user-space process
 * @event_handler: as for __rdma_create_kernel_id()
 * @context: as for __rdma_create_kernel_id()
 * @ps: as for __rdma_create_kernel_id()
 * @qp_type: as for __rdma_create_kernel_id()
 *
 * The id lives in the calling task's network namespace and is listed
 * under the task's name and process ID.
 *
 * Context: process context of the user task; may sleep.
 * Return: as for __rdma_create_kernel_id().
 */
struct rdma_cm_id *rdma_create_user_id(rdma_cm_event_handler event_handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type)
{
	char comm[TASK_COMM_LEN];
	struct cma_id *cid;

	get_task_comm(comm, current);
	cid = cma_id_alloc(current->nsproxy->net_ns, event_handler, context,
			   ps, qp_type, RDMA_CM_IDLE, comm);
	if (IS_ERR(cid))
		return ERR_CAST(cid);

	cid->pid = task_tgid_vnr(current);
	return &cid->id;
}

/**
 * cma_id_get - take a reference on an id
 * @cid: the id; the caller must already own a reference or hold a lock
 *	that keeps @cid alive
 *
 * Context: any.
 */
void cma_id_get(struct cma_id *cid)
{
	refcount_inc(&cid->refcount);
}

/**
 * cma_id_put - drop a reference on an id
 * @cid: the id
 *
 * Dropping the last reference wakes the destroyer; the memory is freed by
 * the destroyer, never here.
 *
 * Context: any.
 */
void cma_id_put(struct cma_id *cid)
{
	if (refcount_dec_and_test(&cid->refcount))
		complete(&cid->released);
}
EXPORT_SYMBOL_IF_KUNIT(cma_id_put);

/*
 * Stop what is in flight, undo everything the id acquired, then wait for
 * the last reference and free it. The id is DESTROYING, so nothing new
 * can start on it; a callback already running sees the state and
 * delivers nothing, and the cancel or destroy calls below wait for it.
 */
static void cma_id_release(struct cma_id *cid)
{
	cma_cancel_addr_query(cid);
	cma_neigh_unwatch(cid);
	cma_cancel_service_query(cid);
	cma_cancel_path_query(cid);
	cma_listen_stop(cid);
	cma_mc_leave_all(cid);
	/* These tear a live connection down first (DREQ, or TCP close). */
	if (cid->ib)
		ib_destroy_cm_id(cid->ib);
	if (cid->iw)
		iw_destroy_cm_id(cid->iw);
	cma_unbind(cid);

	trace_cm_id_destroy(cid);
	xa_erase(&cma_ids, cid->handle);
	cma_id_put(cid);
	wait_for_completion(&cid->released);

	kfree(cid->id.route.path_rec);
	kfree(cid->id.route.path_rec_inbound);
	kfree(cid->id.route.path_rec_outbound);
	kfree(cid->service_recs);
	put_net(cma_id_net(cid));
	kmem_cache_free(cma_id_cache, cid);
}

/**
 * cma_destroy_handler_unlock - destroy an id whose handler mutex is held
 * @cid: the id; the caller's reference (the consumer's) is consumed
 *
 * Marking the id DESTROYING before the mutex is released is the fence:
 * whoever takes the mutex next sees the state and delivers nothing.
 *
 * Context: process context; called with @cid->handler_mutex held, returns
 * with it released, after the id is freed. May sleep.
 */
void cma_destroy_handler_unlock(struct cma_id *cid)
{
	lockdep_assert_held(&cid->handler_mutex);
	cma_enter(cid, RDMA_CM_DESTROYING);
	mutex_unlock(&cid->handler_mutex);
	cma_id_release(cid);
}

/**
 * cma_destroy_child - destroy a new passive id before its first event
 * @cid: the id, made under its listener's handler mutex and delivered
 *	to no one; the caller's reference is consumed
 *
 * Not rdma_destroy_id(): that takes @cid's handler mutex, of the same
 * lock class as the listener's, without telling lockdep that the child's
 * nests inside the listener's.
 *
 * Context: process context, under the listener's handler mutex. May
 * sleep.
 */
void cma_destroy_child(struct cma_id *cid)
{
	mutex_lock_nested(&cid->handler_mutex, SINGLE_DEPTH_NESTING);
	cma_destroy_handler_unlock(cid);
}

static void cma_release_work(struct work_struct *work)
{
	struct cma_id *cid = container_of(work, struct cma_id, release_work);

	cma_id_release(cid);
}

/**
 * cma_destroy_handler_unlock_deferred - destroy an id from cma_wq
 * @cid: the id; the caller's reference (the consumer's) is consumed
 *
 * As cma_destroy_handler_unlock(), but the wait for the id's last
 * references happens on another workqueue: cma_wq is ordered, and work
 * queued behind the caller may hold one of them.
 *
 * The same for an InfiniBand multicast answer (cma_mcast.c): leaving the
 * group waits for the answer to return.
 *
 * Context: a cma_wq work item or an ib_sa multicast answer, with
 * @cid->handler_mutex held; returns with it released. The id is
 * DESTROYING when this returns, and freed soon.
 */
void cma_destroy_handler_unlock_deferred(struct cma_id *cid)
{
	lockdep_assert_held(&cid->handler_mutex);
	cma_enter(cid, RDMA_CM_DESTROYING);
	mutex_unlock(&cid->handler_mutex);
	queue_work(cma_release_wq, &cid->release_work);
}

/**
 * rdma_destroy_id - destroy an id and cancel what is in flight on it
 * @id: the id
 *
 * Waits for a handler running on another thread and for queued work to
 * let go of the id. No event is delivered to @id once this returns.
 *
 * Context: process context; may sleep. Must not be called from @id's own
 * event handler (return non-zero from the handler instead) nor between
 * rdma_lock_handler() and rdma_unlock_handler() on @id.
 */
void rdma_destroy_id(struct rdma_cm_id *id)
{
	struct cma_id *cid = to_cma_id(id);

	mutex_lock(&cid->handler_mutex);
	cma_destroy_handler_unlock(cid);
}

/**
 * rdma_lock_handler - hold off event delivery on an id
 * @id: the id
 *
 * Takes the mutex every event handler of @id runs under, for a consumer
 * that must act on @id outside a handler without racing one, e.g. to call
 * rdma_accept() later than from the CONNECT_REQUEST handler.
 *
 * Context: process context; may sleep. Must not be called from @id's own
 * handler, which already holds the mutex.
 */
void rdma_lock_handler(struct rdma_cm_id *id)
{
	mutex_lock(&to_cma_id(id)->handler_mutex);
}

/**
 * rdma_unlock_handler - let event delivery on an id go on
 * @id: the id
 *
 * Context: process context; called with the mutex rdma_lock_handler() took.
 */
void rdma_unlock_handler(struct rdma_cm_id *id)
{
	mutex_unlock(&to_cma_id(id)->handler_mutex);
}

/**
 * cma_id_count - how many ids are alive
 *
 * Context: any; the answer may be stale by the time it is used.
 * Return: the number of ids created and not yet freed.
 */
unsigned long cma_id_count(void)
{
	struct cma_id *cid;
	unsigned long handle, n = 0;

	xa_for_each(&cma_ids, handle, cid)
		n++;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(cma_id_count);

/**
 * cma_id_next - the first live id at or after a handle, with a reference
 * @handle: where to start; set to the handle of the id found
 *
 * An id leaves the table before its consumer's reference is dropped, so
 * one found under the table's lock can be given a reference of its own:
 * the id stays in memory until the caller drops it with cma_id_put(),
 * though it may be destroyed meanwhile.
 *
 * Context: any; takes the table's spinlock.
 * Return: the id, or NULL when there is none at or after @handle.
 */
struct cma_id *cma_id_next(unsigned long *handle)
{
	struct cma_id *cid;

	xa_lock(&cma_ids);
	cid = xa_find(&cma_ids, handle, ULONG_MAX, XA_PRESENT);
	if (cid)
		cma_id_get(cid);
	xa_unlock(&cma_ids);
	return cid;
}
EXPORT_SYMBOL_IF_KUNIT(cma_id_next);

/**
 * cma_id_flush_releases - wait for the destructions already deferred
 *
 * Context: process context; may sleep. Not from cma_release_wq.
 */
void cma_id_flush_releases(void)
{
	flush_workqueue(cma_release_wq);
}
EXPORT_SYMBOL_IF_KUNIT(cma_id_flush_releases);

/**
 * cma_ids_init - set up the ids' slab cache and what destruction needs
 *
 * Ids have a cache of their own: objects of their exact size, where
 * kmalloc would round up to 1 KiB (or 2 KiB on a debug kernel), and a
 * count of live ids in /sys/kernel/slab/rdma_cm_id/objects that the
 * tests compare before and after a run.
 *
 * Context: process context, module init.
 * Return: 0 or -ENOMEM.
 */
int cma_ids_init(void)
{
	cma_id_cache = kmem_cache_create("rdma_cm_id", sizeof(struct cma_id),
					 __alignof__(struct cma_id), 0, NULL);
	if (!cma_id_cache)
		return -ENOMEM;
	cma_release_wq = alloc_workqueue("rdma_cm_release", WQ_UNBOUND, 0);
	if (!cma_release_wq) {
		kmem_cache_destroy(cma_id_cache);
		return -ENOMEM;
	}
	return 0;
}

/**
 * cma_ids_exit - wait for deferred destructions, then check none is left
 *
 * Context: process context, module exit, after cma_wq is gone.
 */
void cma_ids_exit(void)
{
	destroy_workqueue(cma_release_wq);
	/* Consumers hold a module reference while they have ids. */
	WARN_ON(!xa_empty(&cma_ids));
	kmem_cache_destroy(cma_id_cache);
}
