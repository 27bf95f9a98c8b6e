// SPDX-License-Identifier: GPL-2.0
/*
 * IB service record resolution, rdma_resolve_ib_service(): ask the SA
 * which ports offer a service (by ID or name) before resolving an
 * address, as newer kernels do. ADDR_BOUND -> ADDRINFO_QUERY, then
 * ADDRINFO_RESOLVED with the records, or back to ADDR_BOUND with
 * ADDRINFO_ERROR.
 *
 * The query itself goes through struct cma_sa_ops. Linux 6.1's ib_sa has
 * no service record query (only path, multicast member, GUID info and
 * class port info records), so no backend is installed and the call
 * answers -EOPNOTSUPP; the KUnit suite installs a fake one to drive the
 * state machine and the events.
 */

#include <linux/slab.h>

#include "cma_priv.h"

#define CMA_SERVICE_FLAGS	(RDMA_UCM_IB_SERVICE_FLAG_ID | \
				 RDMA_UCM_IB_SERVICE_FLAG_NAME)

/* The backend, NULL while there is none. */
static const struct cma_sa_ops *cma_sa_ops;

/**
 * cma_set_sa_ops - install the backend of service record queries
 * @ops: the backend, or NULL for none
 *
 * Context: process context; no query may be in flight on the old one.
 */
void cma_set_sa_ops(const struct cma_sa_ops *ops)
{
	WRITE_ONCE(cma_sa_ops, ops);
}
EXPORT_SYMBOL_IF_KUNIT(cma_set_sa_ops);

/*
 * The query's end: deliver the result unless the id moved on (it is
 * being destroyed), then let go of the query's reference on the id.
 */
static void cma_service_done(struct cma_id *cid, int status,
			     struct rdma_ib_service_rec *recs, unsigned int n)
{
	struct rdma_cm_event event = {};
	bool moved;

	WRITE_ONCE(cid->service_query_pending, false);
	if (!status && !n)
		status = -ENOENT;

	mutex_lock(&cid->handler_mutex);
	if (status)
		moved = cma_transition(cid, RDMA_CM_ADDRINFO_QUERY,
				       RDMA_CM_ADDR_BOUND);
	else
		moved = cma_transition(cid, RDMA_CM_ADDRINFO_QUERY,
				       RDMA_CM_ADDRINFO_RESOLVED);
	if (!moved) {
		mutex_unlock(&cid->handler_mutex);
		kfree(recs);
		cma_id_put(cid);
		return;
	}

	if (status) {
		kfree(recs);
		event.event = RDMA_CM_EVENT_ADDRINFO_ERROR;
		event.status = status;
	} else {
		cid->service_recs = recs;
		cid->nr_service_recs = n;
		event.event = RDMA_CM_EVENT_ADDRINFO_RESOLVED;
	}
	cma_deliver_put_unlock(cid, &event);
}

/**
 * rdma_resolve_ib_service - find the IB service records for a service
 * @id: the id, ADDR_BOUND to an address of an InfiniBand device
 * @ibs: the service: by ID, by name, or both (@ibs->flags)
 *
 * The result comes as RDMA_CM_EVENT_ADDRINFO_RESOLVED, the id then in
 * ADDRINFO_RESOLVED with the records readable by rdma_ib_service_recs(),
 * from where rdma_resolve_addr() goes on; or RDMA_CM_EVENT_ADDRINFO_ERROR
 * (-ENOENT when the SA knows no such service), the id back in ADDR_BOUND.
 *
 * Context: process context; may sleep. Not from @id's own handler.
 * Return: 0 if the query started; -EINVAL for a NULL @ibs, flags naming
 * neither or something else, an id in another state or with no device;
 * -EOPNOTSUPP when no backend can query (always, on Linux 6.1), or the
 * backend's error.
 */
int rdma_resolve_ib_service(struct rdma_cm_id *id,
			    struct rdma_ucm_ib_service *ibs)
{
	const struct cma_sa_ops *ops = READ_ONCE(cma_sa_ops);
	struct cma_id *cid = to_cma_id(id);
	int ret;

	if (!ibs || !(ibs->flags & CMA_SERVICE_FLAGS) ||
	    (ibs->flags & ~CMA_SERVICE_FLAGS))
		return -EINVAL;
	if (!cma_transition(cid, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDRINFO_QUERY))
		return -EINVAL;

	ret = -EINVAL;
	if (!cid->cma_dev)
		goto err;
	ret = -EOPNOTSUPP;
	if (!ops)
		goto err;

	/* No query is in flight: the records of an earlier one can go. */
	kfree(cid->service_recs);
	cid->service_recs = NULL;
	cid->nr_service_recs = 0;

	cma_id_get(cid);
	WRITE_ONCE(cid->service_query_pending, true);
	ret = ops->query(cid, ibs, cma_service_done);
	if (ret) {
		WRITE_ONCE(cid->service_query_pending, false);
		cma_id_put(cid);
		goto err;
	}
	return 0;
err:
	cma_transition(cid, RDMA_CM_ADDRINFO_QUERY, RDMA_CM_ADDR_BOUND);
	return ret;
}
EXPORT_SYMBOL_GPL(rdma_resolve_ib_service);

/**
 * rdma_ib_service_recs - the records rdma_resolve_ib_service() found
 * @id: the id, after RDMA_CM_EVENT_ADDRINFO_RESOLVED
 * @recs: set to the records, NULL if there are none
 *
 * The records stay until @id is destroyed or resolves a service again.
 * Newer kernels keep them in struct rdma_route, which 6.1's layout lacks.
 *
 * Context: process context, from @id's handler or between
 * rdma_lock_handler() and rdma_unlock_handler().
 * Return: how many records *@recs has.
 */
int rdma_ib_service_recs(struct rdma_cm_id *id,
			 const struct rdma_ib_service_rec **recs)
{
	struct cma_id *cid = to_cma_id(id);

	*recs = cid->service_recs;
	return cid->nr_service_recs;
}
EXPORT_SYMBOL_GPL(rdma_ib_service_recs);

/**
 * cma_cancel_service_query - have a service query in flight end soon
 * @cid: the id, DESTROYING; nothing happens unless a query is in flight
 *
 * The query holds a reference on @cid, so the destroyer's wait for the
 * last reference also waits for the query's end; this makes it short.
 *
 * Context: process context; not under @cid's handler mutex.
 */
void cma_cancel_service_query(struct cma_id *cid)
{
	const struct cma_sa_ops *ops = READ_ONCE(cma_sa_ops);

	if (READ_ONCE(cid->service_query_pending) && ops && ops->cancel)
		ops->cancel(cid);
}
