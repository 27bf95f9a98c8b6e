// SPDX-License-Identifier: GPL-2.0
/*
 * Address resolution: from a destination IP address to the local device,
 * port and source GID that reach it and the peer's hardware address,
 * through ib_core's neighbour resolution (rdma_resolve_ip()); or from an
 * AF_IB destination, a GID, to the InfiniBand port on its subnet.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>

#include "cma_priv.h"

/* A source address for an id the consumer did not bind: any, of @dst's
 * family, on @dst's interface for a link-local IPv6 destination, with
 * @dst's P_Key for an AF_IB one.
 */
static void cma_any_src_for(struct sockaddr_storage *src,
			    const struct sockaddr *dst)
{
	memset(src, 0, sizeof(*src));
	src->ss_family = dst->sa_family;
	if (dst->sa_family == AF_IB)
		((struct sockaddr_ib *)src)->sib_pkey =
			((const struct sockaddr_ib *)dst)->sib_pkey;
	if (dst->sa_family == AF_INET6) {
		const struct sockaddr_in6 *d6 = (const void *)dst;
		struct sockaddr_in6 *s6 = (void *)src;

		if (ipv6_addr_type(&d6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
			s6->sin6_scope_id = d6->sin6_scope_id;
	}
}

/*
 * Bind an IDLE id (for a well-behaved consumer) or reuse the bind of an
 * ADDR_BOUND one (or of one that resolved IB service records), and move
 * it to ADDR_QUERY.
 */
static int cma_start_query(struct cma_id *cid, const struct sockaddr *src,
			   const struct sockaddr *dst)
{
	struct sockaddr_storage any;
	int ret;

	if (cma_transition(cid, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY) ||
	    cma_transition(cid, RDMA_CM_ADDRINFO_RESOLVED,
			   RDMA_CM_ADDR_QUERY)) {
		memcpy(cma_dst_addr(cid), dst, cma_addr_size(dst));
	} else {
		if (!src || !src->sa_family) {
			cma_any_src_for(&any, dst);
			src = (struct sockaddr *)&any;
		}
		ret = cma_bind(cid, src, dst);
		if (ret)
			return ret;
		if (!cma_transition(cid, RDMA_CM_ADDR_BOUND,
				    RDMA_CM_ADDR_QUERY))
			return -EINVAL;
	}

	if (cma_src_addr(cid)->sa_family != dst->sa_family) {
		cma_transition(cid, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_BOUND);
		return -EINVAL;
	}
	return 0;
}

/*
 * rdma_resolve_ip()'s callback, from ib_core's workqueue. It owns the
 * reference rdma_resolve_addr() took, and drops it only when it is done
 * with the id: a destroyer that found the flag already cleared does not
 * cancel, and waits for that reference instead.
 */
static void cma_addr_resolved(int status, struct sockaddr *src,
			      struct rdma_dev_addr *dev_addr, void *context)
{
	struct cma_id *cid = context;
	struct rdma_cm_event event = {};
	struct sockaddr_storage old_src;

	mutex_lock(&cid->handler_mutex);
	WRITE_ONCE(cid->addr_query_pending, false);
	if (!cma_transition(cid, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_RESOLVED))
		goto out;

	memcpy(&old_src, cma_src_addr(cid), sizeof(old_src));
	memcpy(cma_src_addr(cid), src, cma_addr_size(src));
	if (!status && !cid->cma_dev)
		status = cma_acquire_dev(cid);

	event.event = RDMA_CM_EVENT_ADDR_RESOLVED;
	if (status) {
		memcpy(cma_src_addr(cid), &old_src, sizeof(old_src));
		if (!cma_transition(cid, RDMA_CM_ADDR_RESOLVED,
				    RDMA_CM_ADDR_BOUND))
			goto out;
		event.event = RDMA_CM_EVENT_ADDR_ERROR;
		event.status = status;
	}

	cma_deliver_put_unlock(cid, &event);
	return;
out:
	mutex_unlock(&cid->handler_mutex);
	cma_id_put(cid);
}

/**
 * cma_cancel_addr_query - stop address resolution and wait for it
 * @cid: the id, DESTROYING; nothing happens unless a query is pending
 *
 * A flag seen cleared means the callback has started, and it holds a
 * reference until it is done, which the destroyer waits for. A flag seen
 * set is cancelled: rdma_addr_cancel() takes the request before it runs
 * or waits for its run. If, after that, the flag is still set, the
 * callback never ran and its reference is dropped here.
 *
 * Context: process context; may sleep. Not under @cid's handler mutex,
 * which the callback being waited for takes.
 */
void cma_cancel_addr_query(struct cma_id *cid)
{
	if (!READ_ONCE(cid->addr_query_pending))
		return;
	rdma_addr_cancel(&cid->id.route.addr.dev_addr);
	/* No callback runs now: the flag is ours to read. */
	if (cid->addr_query_pending) {
		cid->addr_query_pending = false;
		cma_id_put(cid);
	}
}

/*
 * A wildcard destination needs no neighbour: any device reaches itself.
 * A wildcard source becomes the loopback address; the destination stays
 * the wildcard it was given, as in-box.
 */
static int cma_resolve_loopback(struct cma_id *cid)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ADDR_RESOLVED };
	struct sockaddr *src = cma_src_addr(cid);
	u16 sport = cma_addr_port(src);
	int ret;

	if (!cid->cma_dev) {
		ret = cma_acquire_loopback_dev(cid);
		if (ret)
			return ret;
	}
	if (cma_addr_any(src)) {
		if (src->sa_family == AF_INET)
			((struct sockaddr_in *)src)->sin_addr.s_addr =
				htonl(INADDR_LOOPBACK);
		else
			((struct sockaddr_in6 *)src)->sin6_addr = in6addr_loopback;
		cma_addr_set_port(src, sport);
	}
	return cma_queue_event(cid, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_RESOLVED,
			       &event);
}

/*
 * An AF_IB destination is a GID already: there is nothing to ask the
 * network. The device is the one the id is bound to, or else the
 * InfiniBand port that reaches the GID (see cma_acquire_ib_dev()), whose
 * GID becomes the source address. A wildcard or loopback destination is
 * that source GID itself.
 */
static int cma_resolve_ib(struct cma_id *cid)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ADDR_RESOLVED };
	struct rdma_dev_addr *dev_addr = &cid->id.route.addr.dev_addr;
	struct sockaddr_ib *src = (struct sockaddr_ib *)cma_src_addr(cid);
	struct sockaddr_ib *dst = (struct sockaddr_ib *)cma_dst_addr(cid);
	int ret;

	/* First: where the GIDs sit in the hardware addresses depends on it. */
	dev_addr->dev_type = ARPHRD_INFINIBAND;
	rdma_addr_set_dgid(dev_addr, (union ib_gid *)&dst->sib_addr);
	if (!cid->cma_dev) {
		ib_addr_set_pkey(dev_addr, ntohs(dst->sib_pkey));
		ret = cma_acquire_ib_dev(cid);
		if (ret)
			return ret;
		rdma_addr_get_sgid(dev_addr, (union ib_gid *)&src->sib_addr);
		src->sib_pkey = dst->sib_pkey;
	}
	if (cma_addr_any(cma_dst_addr(cid))) {
		dst->sib_addr = src->sib_addr;
		rdma_addr_set_dgid(dev_addr, (union ib_gid *)&dst->sib_addr);
	}
	return cma_queue_event(cid, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_RESOLVED,
			       &event);
}

/*
 * ADDR_ERROR puts the id back in ADDR_BOUND before its handler runs, so
 * the consumer may resolve again while ib_core still holds the earlier
 * request, its callback not returned. As in-box, that request is
 * cancelled first, which waits for its callback: one request at a time
 * is with ib_core, the one destruction cancels. The earlier callback has
 * cleared addr_query_pending and drops its own reference.
 */
static void cma_cancel_earlier_query(struct cma_id *cid)
{
	if (cid->addr_query_used)
		rdma_addr_cancel(&cid->id.route.addr.dev_addr);
	cid->addr_query_used = true;
}

/**
 * rdma_resolve_addr - find the local device and the peer's address
 * @id: the id, IDLE (it is bound first, to @src_addr or a wildcard) or
 *	ADDR_BOUND (also after an ADDR_ERROR, whose request is then
 *	cancelled: this waits for its handler to return)
 * @src_addr: source address to bind an IDLE id to, or NULL
 * @dst_addr: the destination, AF_INET, AF_INET6 or AF_IB, of the family
 *	of the id's source address; an AF_IB one is resolved at once, to an
 *	InfiniBand port with its P_Key and a GID on its subnet
 * @timeout_ms: how long neighbour resolution may take
 *
 * The result comes as RDMA_CM_EVENT_ADDR_RESOLVED (the id is then
 * ADDR_RESOLVED and bound to a device) or RDMA_CM_EVENT_ADDR_ERROR (back in
 * ADDR_BOUND, ready for another try).
 *
 * Context: process context; may sleep. Not from @id's own handler.
 * Return: 0 if resolution started; -EINVAL (wrong state, address family
 * mismatch, malformed address), -EAFNOSUPPORT, the errors of
 * rdma_bind_addr() for an IDLE id, or of rdma_resolve_ip().
 */
int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      const struct sockaddr *dst_addr,
		      unsigned long timeout_ms)
{
	struct cma_id *cid = to_cma_id(id);
	int ret;

	ret = cma_addr_check(dst_addr);
	if (ret)
		return ret;
	ret = cma_start_query(cid, src_addr, dst_addr);
	if (ret)
		return ret;

	if (dst_addr->sa_family == AF_IB || cma_addr_any(dst_addr)) {
		ret = dst_addr->sa_family == AF_IB ? cma_resolve_ib(cid) :
						     cma_resolve_loopback(cid);
		if (ret)
			cma_transition(cid, RDMA_CM_ADDR_QUERY,
				       RDMA_CM_ADDR_BOUND);
		return ret;
	}

	cma_cancel_earlier_query(cid);
	/* The callback's reference; see cma_addr_resolved(). */
	cma_id_get(cid);
	cid->addr_query_pending = true;
	ret = CMA_CALL(rdma_resolve_ip(cma_src_addr(cid), dst_addr,
				       &id->route.addr.dev_addr, timeout_ms,
				       cma_addr_resolved, false, cid));
	if (ret) {
		cid->addr_query_pending = false;
		cma_id_put(cid);
		cma_transition(cid, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_BOUND);
	}
	return ret;
}
