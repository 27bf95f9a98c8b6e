// SPDX-License-Identifier: GPL-2.0
/*
 * The route on InfiniBand: a path record from the subnet administrator,
 * asked for with ib_sa's path record query, as the in-box CM does.
 * rdma_resolve_route() moves the id to ROUTE_QUERY; the answer brings it
 * to ROUTE_RESOLVED with the path (RDMA_CM_EVENT_ROUTE_RESOLVED), a
 * failure back to ADDR_RESOLVED (RDMA_CM_EVENT_ROUTE_ERROR).
 *
 * The query goes through struct cma_path_ops: ib_sa's (below) unless the
 * KUnit suite installs a fake, there being no InfiniBand fabric to test
 * against. A query in flight holds a reference on its id; destruction
 * cancels it, and ib_sa then answers at once with -EINTR.
 *
 * ib_sa answers on ib_mad's per-port ordered workqueue. The consumer's
 * handler does not run there: one that sleeps would hold up every MAD of
 * the port, and one that destroys another id of the port would wait for
 * that workqueue from inside it. The answer is handed to cma_wq, as
 * in-box, in a work item allocated with the query, so that handing it
 * over cannot fail.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_user_sa.h>

#include "cma_priv.h"

/* Our client of ib_sa, for path queries and multicast joins. */
struct ib_sa_client cma_sa_client;

static void cma_sa_path_answer(int status, struct sa_path_rec *rec,
			       int num_prs, void *context)
{
	struct cma_id *cid = context;

	if (!status && num_prs < 1)
		status = -ENOENT;
	cma_path_done_recs(cid, status, rec, status ? 0 : num_prs);
}

static int cma_sa_path_query(struct cma_id *cid, struct sa_path_rec *rec,
			     ib_sa_comp_mask mask, unsigned long timeout_ms)
{
	int ret;

	ret = ib_sa_path_rec_get(&cma_sa_client, cid->id.device,
				 cid->id.port_num, rec, mask, timeout_ms,
				 GFP_KERNEL, cma_sa_path_answer, cid,
				 &cid->path_query);
	if (ret < 0)
		return ret;
	cid->path_query_id = ret;
	return 0;
}

static void cma_sa_path_cancel(struct cma_id *cid)
{
	ib_sa_cancel_query(cid->path_query_id, cid->path_query);
}

static const struct cma_path_ops cma_sa_path_ops = {
	.query	= cma_sa_path_query,
	.cancel	= cma_sa_path_cancel,
};

/* ib_sa's, or the KUnit suite's fake. */
static const struct cma_path_ops *cma_path_ops = &cma_sa_path_ops;

/**
 * cma_set_path_ops - install the backend of path record queries
 * @ops: the backend, or NULL for ib_sa's
 *
 * Context: process context; no query may be in flight on the old one.
 */
void cma_set_path_ops(const struct cma_path_ops *ops)
{
	WRITE_ONCE(cma_path_ops, ops ?: &cma_sa_path_ops);
}
EXPORT_SYMBOL_IF_KUNIT(cma_set_path_ops);

/**
 * cma_path_request - what to ask the SA for the route of an id
 * @dev_addr: the resolved address: source and destination GIDs, P_Key
 * @dst: the destination address, for the service ID (its port, or its
 *	own for AF_IB) and, IPv6 and AF_IB, the traffic class in its flow
 *	information
 * @ps: the port space, for the service ID
 * @tos: the id's type of service (IPv4 only, as the QoS class)
 * @rec: the query's record, filled in
 *
 * Context: any.
 * Return: the record's components the SA must match.
 */
ib_sa_comp_mask cma_path_request(struct rdma_dev_addr *dev_addr,
				 const struct sockaddr *dst,
				 enum rdma_ucm_port_space ps, u8 tos,
				 struct sa_path_rec *rec)
{
	__be32 flowinfo;
	ib_sa_comp_mask mask;

	memset(rec, 0, sizeof(*rec));
	rec->rec_type = SA_PATH_REC_TYPE_IB;
	rdma_addr_get_sgid(dev_addr, &rec->sgid);
	rdma_addr_get_dgid(dev_addr, &rec->dgid);
	rec->pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	rec->numb_path = 1;
	rec->reversible = 1;
	rec->service_id = cma_addr_service_id(ps, dst);
	mask = IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
	       IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_NUMB_PATH |
	       IB_SA_PATH_REC_REVERSIBLE | IB_SA_PATH_REC_SERVICE_ID;

	switch (dst->sa_family) {
	case AF_INET6:
		flowinfo = ((const struct sockaddr_in6 *)dst)->sin6_flowinfo;
		break;
	case AF_IB:
		flowinfo = ((const struct sockaddr_ib *)dst)->sib_flowinfo;
		break;
	default:
		rec->qos_class = cpu_to_be16(tos);
		return mask | IB_SA_PATH_REC_QOS_CLASS;
	}
	/* The traffic class is the flow information's top byte. */
	rec->traffic_class = be32_to_cpu(flowinfo) >> 20;
	return mask | IB_SA_PATH_REC_TRAFFIC_CLASS;
}
EXPORT_SYMBOL_IF_KUNIT(cma_path_request);

/**
 * cma_path_sort - what each path of an SA answer is for
 * @recs: the answer's records
 * @n: how many
 * @paths: the primary path (a record with no flags, or IB_PATH_GMP), and
 *	the inbound and outbound ones (IB_PATH_INBOUND, IB_PATH_OUTBOUND,
 *	which ibacm's answers through ib_sa may carry); NULL where none.
 *	Of two records for one purpose the later wins, as in-box.
 *
 * Context: any.
 */
void cma_path_sort(const struct sa_path_rec *recs, int n,
		   struct cma_paths *paths)
{
	int i;

	memset(paths, 0, sizeof(*paths));
	for (i = 0; i < n; i++) {
		if (!recs[i].flags || (recs[i].flags & IB_PATH_GMP))
			paths->primary = &recs[i];
		else if (recs[i].flags & IB_PATH_INBOUND)
			paths->inbound = &recs[i];
		else if (recs[i].flags & IB_PATH_OUTBOUND)
			paths->outbound = &recs[i];
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_path_sort);

/* The paths an answer may carry, as struct cma_paths sorts them. */
enum cma_path_kind {
	CMA_PATH_PRIMARY,
	CMA_PATH_INBOUND,
	CMA_PATH_OUTBOUND,
	CMA_PATH_KINDS
};

/**
 * struct cma_path_answer - the SA's answer to a path query, on its way
 * @work: delivers it, on cma_wq
 * @cid: the id; the query's reference on it passes to @work
 * @status: 0, or why there is no path
 * @rec: the primary path, the inbound and the outbound one, when @status
 *	is 0; a path the answer lacks is not in @has
 * @has: which of @rec the answer had, by enum cma_path_kind
 */
struct cma_path_answer {
	struct work_struct work;
	struct cma_id *cid;
	int status;
	struct sa_path_rec rec[CMA_PATH_KINDS];
	unsigned long has;
};

/* A copy of the answer's path of @kind; NULL if it had none. */
static struct sa_path_rec *cma_path_dup(struct cma_path_answer *ans,
					enum cma_path_kind kind)
{
	if (!test_bit(kind, &ans->has))
		return NULL;
	return kmemdup(&ans->rec[kind], sizeof(ans->rec[kind]), GFP_KERNEL);
}

/* Replace the route's paths with @path and the SA's extra @in and @out. */
static void cma_path_set(struct rdma_route *route, struct sa_path_rec *path,
			 struct sa_path_rec *in, struct sa_path_rec *out)
{
	kfree(route->path_rec);
	route->path_rec = path;
	route->num_pri_alt_paths = 1;
	kfree(route->path_rec_inbound);
	route->path_rec_inbound = in;
	kfree(route->path_rec_outbound);
	route->path_rec_outbound = out;
}

/*
 * ROUTE_RESOLVED with the primary path and, when the answer had them, the
 * inbound and outbound ones (which the REQ then carries), or ROUTE_ERROR,
 * under the handler mutex, unless the id left ROUTE_QUERY (it is being
 * destroyed).
 */
static void cma_path_deliver(struct work_struct *work)
{
	struct cma_path_answer *ans = container_of(work, struct cma_path_answer,
						   work);
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };
	struct sa_path_rec *path = NULL, *in = NULL, *out = NULL;
	struct cma_id *cid = ans->cid;
	int status = ans->status;

	if (!status) {
		path = CMA_ALLOC(cma_path_dup(ans, CMA_PATH_PRIMARY));
		if (!path)
			status = -ENOMEM;
		/* As in-box, the route goes on without one it cannot copy. */
		in = cma_path_dup(ans, CMA_PATH_INBOUND);
		out = cma_path_dup(ans, CMA_PATH_OUTBOUND);
	}
	kfree(ans);

	mutex_lock(&cid->handler_mutex);
	if (!cma_transition(cid, RDMA_CM_ROUTE_QUERY,
			    status ? RDMA_CM_ADDR_RESOLVED :
				     RDMA_CM_ROUTE_RESOLVED)) {
		mutex_unlock(&cid->handler_mutex);
		kfree(path);
		kfree(in);
		kfree(out);
		cma_id_put(cid);
		return;
	}
	if (status) {
		event.event = RDMA_CM_EVENT_ROUTE_ERROR;
		event.status = status;
		kfree(in);
		kfree(out);
	} else {
		cma_path_set(&cid->id.route, path, in, out);
	}
	if (cma_deliver(cid, &event)) {
		/* Ours goes first: the destroy waits for all others. */
		cma_id_put(cid);
		cma_destroy_handler_unlock_deferred(cid);
		return;
	}
	mutex_unlock(&cid->handler_mutex);
	cma_id_put(cid);
}

/**
 * cma_path_done_recs - the end of an id's path record query
 * @cid: the id; the query's reference on it passes to the delivery
 * @status: 0, or why there is no path (-EINTR when cancelled)
 * @recs: the SA's answer when @status is 0 (see cma_path_sort()), copied
 * @n: how many records
 *
 * Queues the delivery of ROUTE_RESOLVED or ROUTE_ERROR (-EINVAL for an
 * answer without a primary path) on cma_wq. Called exactly once for each
 * query started.
 *
 * Context: process context (ib_sa's answer, on ib_mad's workqueue, or
 * its cancellation); does not sleep, takes no lock of the id's.
 */
void cma_path_done_recs(struct cma_id *cid, int status,
			const struct sa_path_rec *recs, int n)
{
	struct cma_path_answer *ans = cid->path_answer;
	const struct sa_path_rec *rec[CMA_PATH_KINDS];
	struct cma_paths paths;
	int kind;

	cid->path_answer = NULL;
	WRITE_ONCE(cid->path_query_pending, false);
	cma_path_sort(recs, status ? 0 : n, &paths);
	if (!status && !paths.primary)
		status = -EINVAL;
	ans->status = status;
	rec[CMA_PATH_PRIMARY] = paths.primary;
	rec[CMA_PATH_INBOUND] = paths.inbound;
	rec[CMA_PATH_OUTBOUND] = paths.outbound;
	for (kind = 0; !status && kind < CMA_PATH_KINDS; kind++) {
		if (rec[kind]) {
			ans->rec[kind] = *rec[kind];
			__set_bit(kind, &ans->has);
		}
	}
	queue_work(cma_wq, &ans->work);
}
EXPORT_SYMBOL_IF_KUNIT(cma_path_done_recs);

/**
 * cma_path_done - the end of an id's path record query, with one path
 * @cid: the id; the query's reference on it passes to the delivery
 * @status: 0, or why there is no path (-EINTR when cancelled)
 * @rec: the path when @status is 0, copied
 *
 * As cma_path_done_recs() with one record.
 *
 * Context: as cma_path_done_recs().
 */
void cma_path_done(struct cma_id *cid, int status, struct sa_path_rec *rec)
{
	cma_path_done_recs(cid, status, rec, rec ? 1 : 0);
}
EXPORT_SYMBOL_IF_KUNIT(cma_path_done);

/**
 * cma_path_query - ask for the path of an id in ROUTE_QUERY
 * @cid: the id, its address resolved on an InfiniBand port
 * @timeout_ms: how long the SA may take
 *
 * Context: process context; may sleep.
 * Return: 0 if the query started (cma_path_done() follows), or its
 * error (the caller moves the id back to ADDR_RESOLVED).
 */
int cma_path_query(struct cma_id *cid, unsigned long timeout_ms)
{
	const struct cma_path_ops *ops = READ_ONCE(cma_path_ops);
	struct rdma_route *route = &cid->id.route;
	struct cma_path_answer *ans;
	struct sa_path_rec rec;
	ib_sa_comp_mask mask;
	int ret;

	ans = CMA_ALLOC(kzalloc(sizeof(*ans), GFP_KERNEL));
	if (!ans)
		return -ENOMEM;
	INIT_WORK(&ans->work, cma_path_deliver);
	ans->cid = cid;

	mask = cma_path_request(&route->addr.dev_addr, cma_dst_addr(cid),
				cid->id.ps, cid->tos, &rec);
	/* Before the query: its answer may come before it returns. */
	cid->path_answer = ans;
	cma_id_get(cid);
	WRITE_ONCE(cid->path_query_pending, true);
	ret = CMA_CALL(ops->query(cid, &rec, mask, timeout_ms));
	if (ret) {
		WRITE_ONCE(cid->path_query_pending, false);
		cid->path_answer = NULL;
		kfree(ans);
		cma_id_put(cid);
	}
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cma_path_query);

/**
 * cma_cancel_path_query - have a path query in flight end soon
 * @cid: the id, DESTROYING; nothing happens unless a query is in flight
 *
 * The query holds a reference on @cid, so the destroyer's wait for the
 * last reference also waits for the query's end; this makes it short.
 *
 * Context: process context; not under @cid's handler mutex.
 */
void cma_cancel_path_query(struct cma_id *cid)
{
	const struct cma_path_ops *ops = READ_ONCE(cma_path_ops);

	if (READ_ONCE(cid->path_query_pending))
		ops->cancel(cid);
}

/**
 * cma_path_init - register with ib_sa
 *
 * Context: process context, module init.
 */
void cma_path_init(void)
{
	ib_sa_register_client(&cma_sa_client);
}

/**
 * cma_path_exit - unregister from ib_sa, once no query is in flight
 *
 * Context: process context, module exit, every id destroyed.
 */
void cma_path_exit(void)
{
	ib_sa_unregister_client(&cma_sa_client);
}
