// SPDX-License-Identifier: GPL-2.0
/*
 * Could a RoCE request have come from where its CM header says? On RoCE
 * the header's addresses are the peer's word alone: ib_cm checks the GIDs
 * of the packet, not the IP addresses the header carries. As in-box, a
 * request is taken only if the route from its destination back to its
 * source leaves through the netdev it arrived on, so that a peer cannot
 * claim an address of another segment, another netdev or loopback.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/ip_fib.h>

#include "cma_priv.h"

/* Addresses no peer sends from or to over a wire. */
static bool cma_origin_ipv4_bogus(__be32 peer, __be32 self)
{
	return ipv4_is_multicast(peer) || ipv4_is_lbcast(peer) ||
	       ipv4_is_lbcast(self) || ipv4_is_zeronet(peer) ||
	       ipv4_is_zeronet(self) || ipv4_is_loopback(peer) ||
	       ipv4_is_loopback(self);
}

static bool cma_origin_ipv4(struct net_device *ndev,
			    const struct sockaddr_in *peer,
			    const struct sockaddr_in *self)
{
	struct flowi4 fl4 = {
		.flowi4_oif = ndev->ifindex,
		.daddr = peer->sin_addr.s_addr,
		.saddr = self->sin_addr.s_addr,
	};
	struct fib_result res;

	if (cma_origin_ipv4_bogus(fl4.daddr, fl4.saddr))
		return false;
	return !fib_lookup(dev_net(ndev), &fl4, &res, 0) &&
	       FIB_RES_DEV(res) == ndev;
}

/*
 * A link-local peer is looked up strictly on the arrival netdev: the
 * header carries no scope, the netdev is the scope. The route's idev is
 * compared, not its dst device: a route to one of our own addresses (a
 * device talking to itself) goes out through loopback but belongs to the
 * netdev that has the address.
 */
static bool cma_origin_ipv6(struct net_device *ndev,
			    const struct sockaddr_in6 *peer,
			    const struct sockaddr_in6 *self)
{
#if IS_ENABLED(CONFIG_IPV6)
	int strict = ipv6_addr_type(&peer->sin6_addr) & IPV6_ADDR_LINKLOCAL;
	struct rt6_info *rt;
	bool ok;

	rt = rt6_lookup(dev_net(ndev), &peer->sin6_addr, &self->sin6_addr,
			ndev->ifindex, NULL, strict);
	if (!rt)
		return false;
	ok = rt->rt6i_idev && rt->rt6i_idev->dev == ndev;
	ip6_rt_put(rt);
	return ok;
#else
	return false;
#endif
}

/**
 * cma_req_routable - could a request have come through its netdev
 * @ndev: the netdev the request arrived on (its GID's)
 * @peer: the request's source, from its CM header
 * @self: its destination, from its CM header
 *
 * The same test as in-box: the netdev is up (a netdev that is down may be
 * moving to another namespace, whose routes would be the wrong ones) and
 * the route from @self to @peer in the netdev's namespace leaves through
 * it. Both addresses must be of one family, IPv4 or IPv6.
 *
 * Context: within rcu_read_lock(), under which @ndev was read from the GID
 * attribute: @ndev's namespace and ifindex hold while it is up and the
 * lock is held.
 * Return: true if the request passes.
 */
bool cma_req_routable(struct net_device *ndev, const struct sockaddr *peer,
		      const struct sockaddr *self)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "called without RCU");
	if (!(ndev->flags & IFF_UP) || peer->sa_family != self->sa_family)
		return false;
	switch (self->sa_family) {
	case AF_INET:
		return cma_origin_ipv4(ndev, (const struct sockaddr_in *)peer,
				       (const struct sockaddr_in *)self);
	case AF_INET6:
		return cma_origin_ipv6(ndev, (const struct sockaddr_in6 *)peer,
				       (const struct sockaddr_in6 *)self);
	default:
		return false;
	}
}
