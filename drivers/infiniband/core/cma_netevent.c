// SPDX-License-Identifier: GPL-2.0
/*
 * Changes under an id's feet in the network stack, as the in-box CM
 * reports them:
 *
 * - ADDR_CHANGE when a bonding failover changes the hardware address of
 *   the netdev an id is bound to (the source MAC address resolution gave
 *   it is no longer the netdev's);
 * - UNREACHABLE when the neighbour entry of a RoCE id's destination
 *   changes its hardware address: the peer moved, and the path record
 *   built from the old one leads nowhere.
 *
 * The netdev notifier runs in process context with rtnl held; the
 * netevent notifier may run in softirq context, so the ids it watches sit
 * on a list under a spinlock and its events are queued with GFP_ATOMIC.
 */

#include <linux/netdevice.h>
#include <net/ipv6.h>
#include <net/neighbour.h>
#include <net/netevent.h>

#include "cma_priv.h"

/* RoCE ids with a resolved route, whose peer's neighbour entry we watch. */
static LIST_HEAD(cma_neigh_ids);
static DEFINE_SPINLOCK(cma_neigh_lock);

/**
 * cma_neigh_watch - report the id UNREACHABLE if its peer's MAC changes
 * @cid: a RoCE id whose route was just resolved
 *
 * Context: any; takes cma_neigh_lock.
 */
void cma_neigh_watch(struct cma_id *cid)
{
	unsigned long flags;

	spin_lock_irqsave(&cma_neigh_lock, flags);
	if (list_empty(&cid->neigh_entry))
		list_add_tail(&cid->neigh_entry, &cma_neigh_ids);
	spin_unlock_irqrestore(&cma_neigh_lock, flags);
}

/**
 * cma_neigh_unwatch - stop watching the id's peer
 * @cid: the id; watched or not
 *
 * Context: any; takes cma_neigh_lock. Once it returns, the netevent
 * notifier no longer sees @cid.
 */
void cma_neigh_unwatch(struct cma_id *cid)
{
	unsigned long flags;

	spin_lock_irqsave(&cma_neigh_lock, flags);
	list_del_init(&cid->neigh_entry);
	spin_unlock_irqrestore(&cma_neigh_lock, flags);
}

/* The neighbour's protocol address, as a socket address. */
static bool cma_neigh_addr(const struct neighbour *n,
			   struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	switch (n->tbl->family) {
	case AF_INET:
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, n->primary_key, sizeof(s4->sin_addr));
		return true;
	case AF_INET6:
		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, n->primary_key, sizeof(s6->sin6_addr));
		if (ipv6_addr_type(&s6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
			s6->sin6_scope_id = n->dev->ifindex;
		return true;
	default:
		return false;
	}
}

/* Does this neighbour update move the peer of @cid? */
static bool cma_neigh_moved(struct cma_id *cid, const struct neighbour *n,
			    const struct sockaddr *addr)
{
	const struct rdma_dev_addr *dev_addr = &cid->id.route.addr.dev_addr;

	return dev_addr->bound_dev_if == n->dev->ifindex &&
	       cma_addr_equal(cma_dst_addr(cid), addr) &&
	       memcmp(dev_addr->dst_dev_addr, n->ha, n->dev->addr_len);
}

static int cma_netevent(struct notifier_block *nb, unsigned long event,
			void *ctx)
{
	struct rdma_cm_event ev = {
		.event = RDMA_CM_EVENT_UNREACHABLE,
		.status = -ETIMEDOUT,
	};
	struct sockaddr_storage addr;
	struct neighbour *n = ctx;
	struct cma_id *cid, *tmp;
	enum rdma_cm_state state;
	unsigned long flags;

	if (event != NETEVENT_NEIGH_UPDATE || !cma_neigh_addr(n, &addr))
		return NOTIFY_DONE;

	spin_lock_irqsave(&cma_neigh_lock, flags);
	list_for_each_entry_safe(cid, tmp, &cma_neigh_ids, neigh_entry) {
		if (!cma_neigh_moved(cid, n, (struct sockaddr *)&addr))
			continue;
		/* Reported once: the route is stale for good. */
		list_del_init(&cid->neigh_entry);
		state = cma_state(cid);
		if (state != RDMA_CM_DESTROYING)
			cma_queue_event_gfp(cid, state, state, &ev, GFP_ATOMIC);
	}
	spin_unlock_irqrestore(&cma_neigh_lock, flags);
	return NOTIFY_DONE;
}

/*
 * Queue ADDR_CHANGE for @cid if it is bound to @ndev under an old MAC.
 * cma_lock keeps @cid on its device's list, hence alive, meanwhile.
 */
static void cma_netdev_check(struct cma_id *cid, struct net_device *ndev)
{
	const struct rdma_dev_addr *dev_addr = &cid->id.route.addr.dev_addr;
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_ADDR_CHANGE };
	enum rdma_cm_state state = cma_state(cid);

	lockdep_assert_held(&cma_lock);
	if (dev_addr->bound_dev_if != ndev->ifindex ||
	    !net_eq(dev_net(ndev), cma_id_net(cid)) ||
	    !memcmp(dev_addr->src_dev_addr, ndev->dev_addr, ndev->addr_len) ||
	    state == RDMA_CM_DESTROYING)
		return;
	pr_info("address change on %s under id %u\n", ndev->name, cid->handle);
	cma_queue_event(cid, state, state, &ev);
}

static int cma_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct cma_device *cma_dev;
	struct cma_id *cid;

	if (event != NETDEV_BONDING_FAILOVER || !netif_is_bond_master(ndev))
		return NOTIFY_DONE;

	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list)
		list_for_each_entry(cid, &cma_dev->ids, device_entry)
			cma_netdev_check(cid, ndev);
	mutex_unlock(&cma_lock);
	return NOTIFY_DONE;
}

static struct notifier_block cma_netevent_nb = {
	.notifier_call = cma_netevent,
};

static struct notifier_block cma_netdev_nb = {
	.notifier_call = cma_netdev_event,
};

/**
 * cma_netevent_init - start following neighbours and bonding failovers
 *
 * Context: module init.
 * Return: 0 or the error of the notifier registration.
 */
int cma_netevent_init(void)
{
	int ret;

	ret = register_netevent_notifier(&cma_netevent_nb);
	if (ret)
		return ret;
	ret = register_netdevice_notifier(&cma_netdev_nb);
	if (ret)
		unregister_netevent_notifier(&cma_netevent_nb);
	return ret;
}

/**
 * cma_netevent_exit - stop following them
 *
 * Context: module exit, after every id is gone.
 */
void cma_netevent_exit(void)
{
	unregister_netdevice_notifier(&cma_netdev_nb);
	unregister_netevent_notifier(&cma_netevent_nb);
}
