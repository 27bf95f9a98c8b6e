// SPDX-License-Identifier: GPL-2.0
/*
 * Route resolution. On RoCE the route is built locally from what address
 * resolution found: GIDs from the IP addresses, the peer's MAC, MTU from
 * the netdev, traffic class and service level from the type of service.
 * iWARP needs no route. InfiniBand asks the SA for a path (cma_path.c).
 */

#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/route.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm_ib.h>

#include "cma_priv.h"

/* RoCE's packet life time when no ACK timeout was set: 4.096 us * 2^18. */
#define CMA_ROCE_PACKET_LIFETIME 18

/* The service level for @tos: the netdev's priority-to-traffic-class map. */
static u8 cma_roce_sl(struct net_device *ndev, u8 tos)
{
	if (!ndev->num_tc)
		return 0;
	return netdev_get_prio_tc_map(ndev, rt_tos2priority(tos));
}

/*
 * RoCEv2 routers hash the UDP source port, which the flow label feeds:
 * give every connection of a pair of ports the same, others another.
 */
static __be32 cma_roce_flow_label(struct cma_id *cid)
{
	u32 hash = (u32)cma_addr_port(cma_src_addr(cid)) * 31 +
		   cma_addr_port(cma_dst_addr(cid));

	return cpu_to_be32(hash & IB_GRH_FLOWLABEL_MASK);
}

static void cma_fill_roce_path(struct cma_id *cid, struct sa_path_rec *path,
			       struct net_device *ndev)
{
	struct rdma_dev_addr *dev_addr = &cid->id.route.addr.dev_addr;
	u8 tos, life;

	/* The consumer's choices are written under the QP mutex. */
	mutex_lock(&cid->qp_mutex);
	tos = cid->tos_set ? cid->tos :
	      cma_default_roce_tos(cid->cma_dev, cid->id.port_num);
	/* Local ACK timeout is about twice the packet life time. */
	life = cid->timeout_set && cid->timeout ?
	       cid->timeout - 1 : CMA_ROCE_PACKET_LIFETIME;
	mutex_unlock(&cid->qp_mutex);

	path->rec_type = sa_conv_gid_to_pathrec_type(dev_addr->sgid_attr->gid_type);
	path->roce.route_resolved = true;
	sa_path_set_dmac(path, dev_addr->dst_dev_addr);
	rdma_ip2gid(cma_src_addr(cid), &path->sgid);
	rdma_ip2gid(cma_dst_addr(cid), &path->dgid);
	path->hop_limit = dev_addr->hoplimit;
	path->reversible = 1;
	path->pkey = cpu_to_be16(0xffff);
	path->mtu_selector = IB_SA_EQ;
	path->mtu = iboe_get_mtu(ndev->mtu);
	path->sl = cma_roce_sl(ndev, tos);
	path->traffic_class = tos;
	path->rate_selector = IB_SA_EQ;
	path->rate = IB_RATE_PORT_CURRENT;
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = life;
	if (rdma_protocol_roce_udp_encap(cid->id.device, cid->id.port_num))
		path->flow_label = cma_roce_flow_label(cid);
}

static int cma_build_roce_route(struct cma_id *cid)
{
	struct rdma_route *route = &cid->id.route;
	struct sa_path_rec *path;
	struct net_device *ndev;

	ndev = dev_get_by_index(cma_id_net(cid), route->addr.dev_addr.bound_dev_if);
	if (!ndev)
		return -ENODEV;
	if (!iboe_get_mtu(ndev->mtu)) {
		dev_put(ndev);
		return -EINVAL;
	}

	path = CMA_ALLOC(kzalloc(sizeof(*path), GFP_KERNEL));
	if (!path) {
		dev_put(ndev);
		return -ENOMEM;
	}
	cma_fill_roce_path(cid, path, ndev);
	dev_put(ndev);

	kfree(route->path_rec);
	route->path_rec = path;
	route->num_pri_alt_paths = 1;
	return 0;
}

/**
 * rdma_resolve_route - find the route to the destination
 * @id: the id, in ADDR_RESOLVED
 * @timeout_ms: how long the resolution may take; must not be 0
 *
 * The result comes as RDMA_CM_EVENT_ROUTE_RESOLVED (the id is then
 * ROUTE_RESOLVED) or RDMA_CM_EVENT_ROUTE_ERROR (back in ADDR_RESOLVED).
 * On RoCE the route is made from the resolved address; on InfiniBand it
 * is a path record from the SA (cma_path.c); iWARP needs none.
 *
 * Context: process context; may sleep.
 * Return: 0 if resolution started; -EINVAL for a zero timeout or the
 * wrong state, -ENODEV if the interface went away, -ENOMEM, or the SA
 * query's error.
 */
int rdma_resolve_route(struct rdma_cm_id *id, unsigned long timeout_ms)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };
	struct cma_id *cid = to_cma_id(id);
	int ret = 0;

	if (!timeout_ms)
		return -EINVAL;
	if (!cma_transition(cid, RDMA_CM_ADDR_RESOLVED, RDMA_CM_ROUTE_QUERY))
		return -EINVAL;

	if (rdma_protocol_roce(id->device, id->port_num)) {
		ret = cma_build_roce_route(cid);
		/* The route holds the peer's MAC: follow its changes. */
		if (!ret)
			cma_neigh_watch(cid);
	} else if (rdma_protocol_ib(id->device, id->port_num)) {
		/* The SA's answer delivers the event (cma_path.c). */
		ret = cma_path_query(cid, timeout_ms);
		goto out;
	}

	/* Deliver from the workqueue: the caller may hold locks we'd need. */
	if (!ret)
		ret = cma_queue_event(cid, RDMA_CM_ROUTE_QUERY,
				      RDMA_CM_ROUTE_RESOLVED, &event);
out:
	if (ret)
		cma_transition(cid, RDMA_CM_ROUTE_QUERY, RDMA_CM_ADDR_RESOLVED);
	return ret;
}

/**
 * rdma_set_ib_path - use a path the consumer resolved itself
 * @id: the id, in ADDR_RESOLVED
 * @path_rec: the path, copied; on RoCE its Ethernet fields are filled in
 *	from address resolution
 *
 * Moves @id to ROUTE_RESOLVED at once, with no event.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL in another state, -ENODEV if the interface went
 * away, -ENOMEM.
 */
int rdma_set_ib_path(struct rdma_cm_id *id, struct sa_path_rec *path_rec)
{
	struct rdma_dev_addr *dev_addr = &id->route.addr.dev_addr;
	struct cma_id *cid = to_cma_id(id);
	struct sa_path_rec *path;
	struct net_device *ndev;
	int ret = -ENOMEM;

	if (!cma_transition(cid, RDMA_CM_ADDR_RESOLVED,
			    RDMA_CM_ROUTE_RESOLVED))
		return -EINVAL;

	path = CMA_ALLOC(kmemdup(path_rec, sizeof(*path), GFP_KERNEL));
	if (!path)
		goto err;
	if (rdma_protocol_roce(id->device, id->port_num)) {
		ndev = dev_get_by_index(cma_id_net(cid), dev_addr->bound_dev_if);
		ret = -ENODEV;
		if (!ndev)
			goto err_free;
		dev_put(ndev);
		path->rec_type =
			sa_conv_gid_to_pathrec_type(dev_addr->sgid_attr->gid_type);
		path->roce.route_resolved = true;
		sa_path_set_dmac(path, dev_addr->dst_dev_addr);
	}

	kfree(id->route.path_rec);
	id->route.path_rec = path;
	id->route.num_pri_alt_paths = 1;
	return 0;

err_free:
	kfree(path);
err:
	cma_transition(cid, RDMA_CM_ROUTE_RESOLVED, RDMA_CM_ADDR_RESOLVED);
	return ret;
}

/**
 * rdma_set_service_type - set the type of service of an id's traffic
 * @id: the id, before its route is resolved
 * @tos: the IP type of service; on RoCE it gives the traffic class and,
 *	through the netdev's priority map, the service level
 *
 * Context: process context; takes @id's QP mutex.
 */
void rdma_set_service_type(struct rdma_cm_id *id, int tos)
{
	struct cma_id *cid = to_cma_id(id);

	/* Under the QP mutex, where the route and the CM's QP read it. */
	mutex_lock(&cid->qp_mutex);
	cid->tos = tos;
	cid->tos_set = true;
	mutex_unlock(&cid->qp_mutex);
}

/**
 * rdma_read_gids - the source and destination GIDs an id uses
 * @id: the id
 * @sgid: where to store the source GID, or NULL
 * @dgid: where to store the destination GID, or NULL
 *
 * Both are zero until the id is bound to a device. On RoCE they are the
 * GIDs of the IP addresses.
 *
 * Context: any.
 */
void rdma_read_gids(struct rdma_cm_id *id, union ib_gid *sgid,
		    union ib_gid *dgid)
{
	struct rdma_dev_addr *dev_addr = &id->route.addr.dev_addr;
	bool roce = id->device && rdma_protocol_roce(id->device, id->port_num);

	if (sgid) {
		memset(sgid, 0, sizeof(*sgid));
		if (roce)
			rdma_ip2gid((struct sockaddr *)&id->route.addr.src_addr,
				    sgid);
		else if (id->device)
			rdma_addr_get_sgid(dev_addr, sgid);
	}
	if (dgid) {
		memset(dgid, 0, sizeof(*dgid));
		if (roce)
			rdma_ip2gid((struct sockaddr *)&id->route.addr.dst_addr,
				    dgid);
		else if (id->device)
			rdma_addr_get_dgid(dev_addr, dgid);
	}
}
