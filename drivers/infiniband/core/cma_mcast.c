// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast.
 *
 * On RoCE there is no SA to join through: the CM maps the IP group to a
 * multicast GID, joins the IP group on the netdev (IGMP for IPv4, MLD for
 * IPv6, so switches forward the traffic) unless the join is send-only,
 * and hands the consumer the address handle of the group in a
 * MULTICAST_JOIN event. The in-box CM refuses IPv6 groups on RoCEv2; here
 * they join with MLD.
 *
 * On InfiniBand the SA keeps the groups: the IP group maps to an MGID as
 * IPoIB maps it (with the rdma_cm's signature for the UDP port space),
 * and ib_sa joins it, answering with the group's member record (or, then
 * or later, an error) in its own context; each answer becomes a
 * MULTICAST_JOIN or MULTICAST_ERROR event. Leaving frees the join, which
 * waits for an answer being delivered. The joins go through struct
 * cma_mc_sa_ops, ib_sa's unless the KUnit suite installs a fake.
 *
 * An id's groups are on its list, under the id's spinlock. A group goes
 * on the list before it is joined: on InfiniBand the SA may answer, on
 * another CPU, before its join returns, and the handler of that answer may
 * leave the group or have the id destroyed. Whoever takes a group off the
 * list owns it, once its join has returned (cma_mc_take()).
 */

#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm_ib.h>

#include "cma_priv.h"

/**
 * struct cma_mc - a group an id joined
 * @entry: on the id's list of groups
 * @cid: the id
 * @work: delivers the join's event
 * @event: MULTICAST_JOIN (holding a reference on the source GID in its
 *	address handle until delivered or cancelled) or MULTICAST_ERROR; on
 *	InfiniBand only its private data is used
 * @addr: the group's IP address
 * @send_only: a send-only join: no IP membership
 * @join_state: the join state asked for
 * @sa_mc: on InfiniBand, the SA join
 * @joined: completed when the join has returned, with @join_ret
 * @join_ret: 0 if the group was joined, or why not
 */
struct cma_mc {
	struct list_head entry;
	struct cma_id *cid;
	struct work_struct work;
	struct rdma_cm_event event;
	struct sockaddr_storage addr;
	bool send_only;
	u8 join_state;
	struct ib_sa_multicast *sa_mc;
	struct completion joined;
	int join_ret;
};

/**
 * cma_mc_mgid - the multicast GID of an IP group on RoCE
 * @addr: the group, AF_INET or AF_INET6
 * @gid_type: the GID type of the port the id uses
 * @mgid: the result
 *
 * IPv6 groups are their own GID. IPv4 groups are IPv4-mapped: under
 * ::ffff:0:0/96 on RoCEv2, under ff0e::ffff:0:0/96 on RoCEv1, as in-box.
 *
 * Context: any.
 */
void cma_mc_mgid(const struct sockaddr *addr, enum ib_gid_type gid_type,
		 union ib_gid *mgid)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)addr;

	memset(mgid, 0, sizeof(*mgid));
	if (addr->sa_family == AF_INET6) {
		memcpy(mgid->raw,
		       &((const struct sockaddr_in6 *)addr)->sin6_addr,
		       sizeof(mgid->raw));
		return;
	}
	if (gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		mgid->raw[0] = 0xff;
		mgid->raw[1] = 0x0e;
	}
	mgid->raw[10] = 0xff;
	mgid->raw[11] = 0xff;
	memcpy(&mgid->raw[12], &in->sin_addr.s_addr, 4);
}
EXPORT_SYMBOL_IF_KUNIT(cma_mc_mgid);

/* Join or leave the IP group on the netdev, so the network delivers it. */
static int cma_mc_ip_member(struct net_device *ndev,
			    const struct sockaddr *addr, bool join)
{
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
	__be32 group = ((const struct sockaddr_in *)addr)->sin_addr.s_addr;
	struct in_device *in_dev;
	int ret = 0;

	rtnl_lock();
	if (addr->sa_family == AF_INET6) {
		ret = join ? ipv6_dev_mc_inc(ndev, &in6->sin6_addr) :
			     ipv6_dev_mc_dec(ndev, &in6->sin6_addr);
	} else {
		in_dev = __in_dev_get_rtnl(ndev);
		if (!in_dev)
			ret = -ENODEV;
		else if (join)
			ip_mc_inc_group(in_dev, group);
		else
			ip_mc_dec_group(in_dev, group);
	}
	rtnl_unlock();
	return ret;
}

static struct net_device *cma_mc_ndev(struct cma_id *cid)
{
	struct rdma_dev_addr *dev_addr = &cid->id.route.addr.dev_addr;

	return dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
}

/* Only RoCEv2 groups are IP multicast; RoCEv1 ones stay on Ethernet. */
static bool cma_mc_is_ip(struct cma_id *cid, struct cma_mc *mc)
{
	const struct ib_gid_attr *sgid = cid->id.route.addr.dev_addr.sgid_attr;

	return !mc->send_only && sgid->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP;
}

/* The MULTICAST_JOIN event: the group's address handle and qkey. */
static int cma_mc_join_event(struct cma_id *cid, struct cma_mc *mc,
			     struct net_device *ndev)
{
	const struct ib_gid_attr *sgid = cid->id.route.addr.dev_addr.sgid_attr;
	struct ib_sa_mcmember_rec rec = {};
	struct rdma_cm_event *ev = &mc->event;
	int ret;

	ret = cma_set_qkey(cid, 0);
	if (ret)
		return ret;
	cma_mc_mgid((struct sockaddr *)&mc->addr, sgid->gid_type, &rec.mgid);
	rdma_ip2gid(cma_src_addr(cid), &rec.port_gid);
	rec.pkey = cpu_to_be16(0xffff);
	rec.rate = IB_RATE_PORT_CURRENT;
	rec.mtu = iboe_get_mtu(ndev->mtu);
	/* A RoCEv2 group is routed like any IP multicast. */
	rec.hop_limit = sgid->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP ?
			IPV6_DEFAULT_HOPLIMIT : 1;
	if (!rec.mtu)
		return -EINVAL;

	ev->event = RDMA_CM_EVENT_MULTICAST_JOIN;
	ev->param.ud.qp_num = 0xffffff;
	ev->param.ud.qkey = READ_ONCE(cid->qkey);
	return CMA_CALL(ib_init_ah_from_mcmember(cid->id.device,
			cid->id.port_num, &rec, ndev, sgid->gid_type,
			&ev->param.ud.ah_attr));
}

static void cma_mc_work(struct work_struct *work)
{
	struct cma_mc *mc = container_of(work, struct cma_mc, work);
	struct cma_id *cid = mc->cid;
	enum rdma_cm_state state;
	int verdict = 0;

	mutex_lock(&cid->handler_mutex);
	state = cma_state(cid);
	if (state != RDMA_CM_DESTROYING && state != RDMA_CM_DEVICE_REMOVAL)
		verdict = cma_deliver(cid, &mc->event);
	rdma_destroy_ah_attr(&mc->event.param.ud.ah_attr);
	if (verdict) {
		/* The release cancels this work: it waits for us to return. */
		cma_destroy_handler_unlock_deferred(cid);
		return;
	}
	mutex_unlock(&cid->handler_mutex);
}

static int cma_mc_join(struct cma_id *cid, struct cma_mc *mc)
{
	struct net_device *ndev = cma_mc_ndev(cid);
	int ret;

	if (!ndev)
		return -ENODEV;
	ret = cma_mc_join_event(cid, mc, ndev);
	if (!ret && cma_mc_is_ip(cid, mc)) {
		ret = cma_mc_ip_member(ndev, (struct sockaddr *)&mc->addr,
				       true);
		if (ret)
			rdma_destroy_ah_attr(&mc->event.param.ud.ah_attr);
	}
	dev_put(ndev);
	if (!ret)
		queue_work(cma_wq, &mc->work);
	return ret;
}

/**
 * cma_mc_ib_mgid - the MGID of a group on InfiniBand
 * @addr: the group, AF_INET, AF_INET6 or AF_IB
 * @broadcast: the IPoIB broadcast address of the id's port, for the
 *	group's scope and P_Key
 * @ps: the id's port space
 * @mgid: the result
 *
 * An AF_IB group is its own MGID, and so is an IPv6 group that is already
 * an SA-assigned MGID (ff1x:a01b::/32); any other maps as IPoIB maps it,
 * and for the UDP port
 * space the signature byte says rdma_cm, so that the group is not the
 * IPoIB one of the same address, as in-box.
 *
 * Context: any.
 */
void cma_mc_ib_mgid(const struct sockaddr *addr, const unsigned char *broadcast,
		    enum rdma_ucm_port_space ps, union ib_gid *mgid)
{
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
	const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
	char map[MAX_ADDR_LEN];

	if (addr->sa_family == AF_IB) {
		memcpy(mgid->raw, &((const struct sockaddr_ib *)addr)->sib_addr,
		       sizeof(mgid->raw));
		return;
	}
	if (addr->sa_family == AF_INET6 &&
	    (be32_to_cpu(in6->sin6_addr.s6_addr32[0]) & 0xfff0ffff) ==
	    0xff10a01b) {
		memcpy(mgid->raw, &in6->sin6_addr, sizeof(mgid->raw));
		return;
	}
	if (addr->sa_family == AF_INET6)
		ipv6_ib_mc_map(&in6->sin6_addr, broadcast, map);
	else
		ip_ib_mc_map(in->sin_addr.s_addr, broadcast, map);
	if (ps == RDMA_PS_UDP)
		map[7] = 0x01;
	/* The first four bytes of the hardware address are the QPN. */
	memcpy(mgid->raw, map + 4, sizeof(mgid->raw));
}
EXPORT_SYMBOL_IF_KUNIT(cma_mc_ib_mgid);

/**
 * cma_mc_ib_request - the member record to ask the SA to join
 * @dev_addr: the id's (IPoIB) address: port GID, P_Key, broadcast
 * @addr: the group
 * @ps: the id's port space
 * @join_state: the join state asked for
 * @qkey: the id's qkey, which the group must have
 * @rec: filled in
 *
 * Context: any.
 * Return: the components the SA must take from @rec.
 */
ib_sa_comp_mask cma_mc_ib_request(struct rdma_dev_addr *dev_addr,
				  const struct sockaddr *addr,
				  enum rdma_ucm_port_space ps, u8 join_state,
				  u32 qkey, struct ib_sa_mcmember_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	cma_mc_ib_mgid(addr, dev_addr->broadcast, ps, &rec->mgid);
	rdma_addr_get_sgid(dev_addr, &rec->port_gid);
	rec->qkey = cpu_to_be32(qkey);
	rec->pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	rec->join_state = join_state;
	return IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
	       IB_SA_MCMEMBER_REC_PKEY | IB_SA_MCMEMBER_REC_JOIN_STATE |
	       IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_SL |
	       IB_SA_MCMEMBER_REC_FLOW_LABEL |
	       IB_SA_MCMEMBER_REC_TRAFFIC_CLASS;
}
EXPORT_SYMBOL_IF_KUNIT(cma_mc_ib_request);

static struct ib_sa_multicast *
cma_sa_mc_join(struct cma_id *cid, struct ib_sa_mcmember_rec *rec,
	       ib_sa_comp_mask mask,
	       int (*answer)(int status, struct ib_sa_multicast *m),
	       void *context)
{
	return ib_sa_join_multicast(&cma_sa_client, cid->id.device,
				    cid->id.port_num, rec, mask, GFP_KERNEL,
				    answer, context);
}

static int cma_sa_mc_member(struct cma_id *cid, union ib_gid *mgid,
			    struct ib_sa_mcmember_rec *rec)
{
	return ib_sa_get_mcmember_rec(cid->id.device, cid->id.port_num, mgid,
				      rec);
}

static const struct cma_mc_sa_ops cma_sa_mc_ops = {
	.join	= cma_sa_mc_join,
	.leave	= ib_sa_free_multicast,
	.member	= cma_sa_mc_member,
};

/* ib_sa's, or the KUnit suite's fake. */
static const struct cma_mc_sa_ops *cma_mc_sa_ops = &cma_sa_mc_ops;

/**
 * cma_set_mc_sa_ops - install the backend of InfiniBand joins
 * @ops: the backend, or NULL for ib_sa's
 *
 * Context: process context; no join may be alive on the old one.
 */
void cma_set_mc_sa_ops(const struct cma_mc_sa_ops *ops)
{
	WRITE_ONCE(cma_mc_sa_ops, ops ?: &cma_sa_mc_ops);
}
EXPORT_SYMBOL_IF_KUNIT(cma_set_mc_sa_ops);

/**
 * cma_mc_ib_broadcast_qkey - the qkey of an id's IPoIB broadcast group
 * @cid: the id, bound to an InfiniBand port through an IPoIB address
 * @qkey: the group's qkey
 *
 * The group is the one the broadcast address names; ib_sa knows its
 * record once IPoIB has joined it.
 *
 * Context: process context.
 * Return: 0, or the error of the SA's cache (-EINVAL when the port is no
 * member).
 */
int cma_mc_ib_broadcast_qkey(struct cma_id *cid, u32 *qkey)
{
	struct ib_sa_mcmember_rec rec;
	union ib_gid mgid;
	int ret;

	ib_addr_get_mgid(&cid->id.route.addr.dev_addr, &mgid);
	ret = CMA_CALL(READ_ONCE(cma_mc_sa_ops)->member(cid, &mgid, &rec));
	if (!ret)
		*qkey = be32_to_cpu(rec.qkey);
	return ret;
}

/* The SA's answer to a join, as a MULTICAST_JOIN event's parameters. */
static int cma_mc_ib_joined(struct cma_id *cid,
			    const struct ib_sa_multicast *m,
			    struct rdma_cm_event *ev)
{
	/* The group's qkey becomes the id's, unless it has another one. */
	int ret = cma_set_qkey(cid, be32_to_cpu(m->rec.qkey));

	if (ret)
		return ret;
	ev->event = RDMA_CM_EVENT_MULTICAST_JOIN;
	ev->param.ud.qp_num = 0xffffff;
	ev->param.ud.qkey = READ_ONCE(cid->qkey);
	return CMA_CALL(ib_init_ah_from_mcmember(cid->id.device,
			cid->id.port_num, (struct ib_sa_mcmember_rec *)&m->rec,
			NULL, IB_GID_TYPE_IB, &ev->param.ud.ah_attr));
}

/*
 * ib_sa's answer to a join, now or (an error) later, in its own context:
 * a MULTICAST_JOIN or MULTICAST_ERROR event under the handler mutex.
 * Leaving waits for this to return; a handler asking for destruction is
 * served from another workqueue, whose leave does not wait for us.
 */
static int cma_mc_ib_answer(int status, struct ib_sa_multicast *m)
{
	struct cma_mc *mc = m->context;
	struct cma_id *cid = mc->cid;
	struct rdma_cm_event ev = {};
	enum rdma_cm_state state;
	int verdict;

	mutex_lock(&cid->handler_mutex);
	state = cma_state(cid);
	if (state == RDMA_CM_DESTROYING || state == RDMA_CM_DEVICE_REMOVAL) {
		mutex_unlock(&cid->handler_mutex);
		return 0;
	}
	if (!status)
		status = cma_mc_ib_joined(cid, m, &ev);
	if (status) {
		memset(&ev, 0, sizeof(ev));
		ev.event = RDMA_CM_EVENT_MULTICAST_ERROR;
		ev.status = status;
	}
	ev.param.ud.private_data = mc->event.param.ud.private_data;
	verdict = cma_deliver(cid, &ev);
	if (!status)
		rdma_destroy_ah_attr(&ev.param.ud.ah_attr);
	if (verdict) {
		cma_destroy_handler_unlock_deferred(cid);
		return 0;
	}
	mutex_unlock(&cid->handler_mutex);
	return 0;
}

static int cma_mc_ib_join(struct cma_id *cid, struct cma_mc *mc)
{
	const struct cma_mc_sa_ops *ops = READ_ONCE(cma_mc_sa_ops);
	struct ib_sa_mcmember_rec rec;
	struct ib_sa_multicast *m;
	ib_sa_comp_mask mask;
	int ret;

	ret = cma_set_qkey(cid, 0);
	if (ret)
		return ret;
	mask = cma_mc_ib_request(&cid->id.route.addr.dev_addr,
				 (struct sockaddr *)&mc->addr, cid->id.ps,
				 mc->join_state, READ_ONCE(cid->qkey), &rec);
	m = CMA_CALL_PTR(ops->join(cid, &rec, mask, cma_mc_ib_answer, mc));
	if (IS_ERR(m))
		return PTR_ERR(m);
	mc->sa_mc = m;
	return 0;
}

/*
 * Leave a group taken off the id's list, once its join has returned: the
 * SA join, or the IP membership and the event not delivered yet; then
 * the memory.
 */
static void cma_mc_free(struct cma_id *cid, struct cma_mc *mc)
{
	struct net_device *ndev;

	wait_for_completion(&mc->joined);
	if (mc->join_ret) {
		kfree(mc);
		return;
	}
	if (mc->sa_mc) {
		READ_ONCE(cma_mc_sa_ops)->leave(mc->sa_mc);
		kfree(mc);
		return;
	}
	if (cancel_work_sync(&mc->work))
		rdma_destroy_ah_attr(&mc->event.param.ud.ah_attr);
	if (cma_mc_is_ip(cid, mc)) {
		ndev = cma_mc_ndev(cid);
		if (ndev) {
			cma_mc_ip_member(ndev, (struct sockaddr *)&mc->addr,
					 false);
			dev_put(ndev);
		}
	}
	kfree(mc);
}

/*
 * Take a group off the id's list: the first one, or the one of @addr.
 * The caller owns it and frees it with cma_mc_free().
 */
static struct cma_mc *cma_mc_take(struct cma_id *cid,
				  const struct sockaddr *addr)
{
	struct cma_mc *mc, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&cid->lock, flags);
	list_for_each_entry(mc, &cid->mcs, entry) {
		if (!addr || !memcmp(&mc->addr, addr, cma_addr_size(addr))) {
			list_del_init(&mc->entry);
			found = mc;
			break;
		}
	}
	spin_unlock_irqrestore(&cid->lock, flags);
	return found;
}

/*
 * A new group of the id's, put on the id's list and then joined with
 * @join (on RoCE or InfiniBand). Returns 0 or the join's error.
 */
static int cma_mc_new(struct cma_id *cid, const struct sockaddr *addr,
		      u8 join_state, void *context,
		      int (*join)(struct cma_id *cid, struct cma_mc *mc))
{
	struct cma_mc *mc = CMA_ALLOC(kzalloc(sizeof(*mc), GFP_KERNEL));
	unsigned long flags;
	bool taken;
	int ret;

	if (!mc)
		return -ENOMEM;
	mc->cid = cid;
	memcpy(&mc->addr, addr, cma_addr_size(addr));
	mc->send_only = join_state == BIT(SENDONLY_FULLMEMBER_JOIN);
	mc->join_state = join_state;
	mc->event.param.ud.private_data = context;
	INIT_WORK(&mc->work, cma_mc_work);
	init_completion(&mc->joined);

	spin_lock_irqsave(&cid->lock, flags);
	list_add_tail(&mc->entry, &cid->mcs);
	spin_unlock_irqrestore(&cid->lock, flags);

	ret = join(cid, mc);

	/* A group that failed goes; one already taken is its taker's. */
	spin_lock_irqsave(&cid->lock, flags);
	taken = list_empty(&mc->entry);
	if (ret && !taken)
		list_del_init(&mc->entry);
	mc->join_ret = ret;
	spin_unlock_irqrestore(&cid->lock, flags);
	complete(&mc->joined);
	if (ret && !taken)
		kfree(mc);
	return ret;
}

/**
 * cma_mc_join_ib - rdma_join_multicast() on an InfiniBand port
 * @id: the id, checked by rdma_join_multicast()
 * @addr: the group
 * @join_state: as for rdma_join_multicast()
 * @context: given back in the events' private_data
 *
 * Context: process context; may sleep.
 * Return: 0 (the SA's answer follows as an event), -ENOMEM, or the
 * SA join's error.
 */
int cma_mc_join_ib(struct rdma_cm_id *id, struct sockaddr *addr,
		   u8 join_state, void *context)
{
	return cma_mc_new(to_cma_id(id), addr, join_state, context,
			  cma_mc_ib_join);
}
EXPORT_SYMBOL_IF_KUNIT(cma_mc_join_ib);

/**
 * rdma_join_multicast - join a multicast group
 * @id: a UD id bound to a RoCE or InfiniBand device (ADDR_BOUND or
 *	ADDR_RESOLVED) with no QP yet: the consumer attaches its QP to the
 *	group itself
 * @addr: the group, an IPv4 or IPv6 multicast address, or on InfiniBand
 *	an AF_IB one, whose GID is the MGID
 * @join_state: BIT(FULLMEMBER_JOIN), or BIT(SENDONLY_FULLMEMBER_JOIN) for a
 *	send-only join, which takes no IP membership
 * @context: given back in the event's private_data
 *
 * RDMA_CM_EVENT_MULTICAST_JOIN follows, carrying the group's address
 * handle, QP number 0xffffff and the qkey; on InfiniBand the SA answers,
 * and may later report the group lost as RDMA_CM_EVENT_MULTICAST_ERROR.
 *
 * Context: process context; may sleep; takes rtnl.
 * Return: 0, -EINVAL (no device, wrong state or QP type, a QP already
 * there, a wildcard group, an AF_IB group on RoCE), -EOPNOTSUPP on iWARP, -ENODEV, -ENOMEM, or
 * the SA join's error.
 */
int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context)
{
	struct cma_id *cid = to_cma_id(id);
	enum rdma_cm_state state = cma_state(cid);

	if (id->qp || !id->device || id->qp_type != IB_QPT_UD ||
	    (state != RDMA_CM_ADDR_BOUND && state != RDMA_CM_ADDR_RESOLVED) ||
	    cma_addr_check(addr) || cma_addr_any(addr))
		return -EINVAL;
	if (rdma_protocol_ib(id->device, id->port_num))
		return cma_mc_join_ib(id, addr, join_state, context);
	if (!rdma_protocol_roce(id->device, id->port_num))
		return -EOPNOTSUPP;
	/* A RoCE group is an IP group. */
	if (addr->sa_family == AF_IB)
		return -EINVAL;

	return cma_mc_new(cid, addr, join_state, context, cma_mc_join);
}

/**
 * rdma_leave_multicast - leave a multicast group
 * @id: the id that joined
 * @addr: the group, as given to rdma_join_multicast()
 *
 * A join event not delivered yet is not delivered any more.
 *
 * Context: process context; may sleep; takes rtnl. Not from @id's own
 * handler.
 */
void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct cma_id *cid = to_cma_id(id);
	struct cma_mc *mc;

	if (cma_addr_check(addr))
		return;
	mc = cma_mc_take(cid, addr);
	if (mc)
		cma_mc_free(cid, mc);
}

/**
 * cma_mc_leave_all - leave every group of an id being destroyed
 * @cid: the id, DESTROYING
 *
 * A group whose join has not returned yet is left once it has.
 *
 * Context: process context; may sleep; takes rtnl.
 */
void cma_mc_leave_all(struct cma_id *cid)
{
	struct cma_mc *mc;

	while ((mc = cma_mc_take(cid, NULL)))
		cma_mc_free(cid, mc);
}
