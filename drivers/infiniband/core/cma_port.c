// SPDX-License-Identifier: GPL-2.0
/*
 * Port spaces: which ids own which port, per network namespace and per
 * port space (TCP, UDP, IPoIB, IB), with the socket-like rules for
 * sharing one: reuseaddr, afonly, and ephemeral ports drawn from
 * ip_local_port_range that may be shared while the 4-tuple stays unique.
 * An AF_IB address names its port space in its service ID.
 *
 * Everything here runs under cma_lock, but for the pure functions of an
 * address.
 */

#include <linux/random.h>
#include <linux/slab.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <rdma/ib.h>

#include "cma_priv.h"

/**
 * struct cma_port - one port in use in one port space of one namespace
 * @owners: the ids bound to it (cma_id.port_entry)
 * @ps: the port space
 * @num: the port number
 */
struct cma_port {
	struct hlist_head owners;
	enum rdma_ucm_port_space ps;
	u16 num;
};

enum { CMA_PS_TCP, CMA_PS_UDP, CMA_PS_IPOIB, CMA_PS_IB, CMA_NR_PS };

struct cma_pernet {
	struct xarray ports[CMA_NR_PS];
};

static unsigned int cma_pernet_id;

static struct xarray *cma_ports(struct net *net, enum rdma_ucm_port_space ps)
{
	struct cma_pernet *pn = net_generic(net, cma_pernet_id);

	switch (ps) {
	case RDMA_PS_TCP:
		return &pn->ports[CMA_PS_TCP];
	case RDMA_PS_UDP:
		return &pn->ports[CMA_PS_UDP];
	case RDMA_PS_IPOIB:
		return &pn->ports[CMA_PS_IPOIB];
	case RDMA_PS_IB:
		return &pn->ports[CMA_PS_IB];
	}
	return NULL;
}

/* The service ID prefix of each port space an AF_IB address may name. */
static const struct {
	enum rdma_ucm_port_space ps;
	u64 prefix;
} cma_ib_port_spaces[] = {
	{ RDMA_PS_IB,	RDMA_IB_IP_PS_IB },
	{ RDMA_PS_TCP,	RDMA_IB_IP_PS_TCP },
	{ RDMA_PS_UDP,	RDMA_IB_IP_PS_UDP },
};

/**
 * cma_ib_claim_port_space - settle the port space of an AF_IB address
 * @sib: the address an id binds to; its service ID and mask are completed
 * @id_ps: the id's port space
 *
 * The masked bits of the service ID above its port must be those of a
 * port space the id may use: its own, or TCP or UDP for an RDMA_PS_IB id.
 * A mask that does not cover those bits lets the first such port space
 * (in the order IB, TCP, UDP) match, as in-box. The port keeps the masked
 * low bits (0 for an ephemeral one).
 *
 * Context: any.
 * Return: 0 with @sib's service ID in the port space and its mask covering
 * it, or -EPROTONOSUPPORT when no port space fits (RDMA_PS_IPOIB never
 * does).
 */
int cma_ib_claim_port_space(struct sockaddr_ib *sib,
			    enum rdma_ucm_port_space id_ps)
{
	u64 mask = be64_to_cpu(sib->sib_sid_mask);
	u64 sid = be64_to_cpu(sib->sib_sid) & mask;
	int i;

	for (i = 0; i < ARRAY_SIZE(cma_ib_port_spaces); i++) {
		enum rdma_ucm_port_space ps = cma_ib_port_spaces[i].ps;
		u64 prefix = cma_ib_port_spaces[i].prefix;

		if (ps != id_ps && id_ps != RDMA_PS_IB)
			continue;
		if ((sid & RDMA_IB_IP_PS_MASK) !=
		    (prefix & mask & RDMA_IB_IP_PS_MASK))
			continue;
		sib->sib_sid = cpu_to_be64(prefix | (sid & 0xffff));
		sib->sib_sid_mask = cpu_to_be64(mask | RDMA_IB_IP_PS_MASK);
		return 0;
	}
	return -EPROTONOSUPPORT;
}
EXPORT_SYMBOL_IF_KUNIT(cma_ib_claim_port_space);

/**
 * cma_addr_port_space - the port space an id's port belongs to
 * @src: the id's source address
 * @id_ps: the id's port space
 *
 * Context: any.
 * Return: the one an AF_IB address's service ID names (see
 * cma_ib_claim_port_space()), else @id_ps.
 */
enum rdma_ucm_port_space cma_addr_port_space(const struct sockaddr *src,
					     enum rdma_ucm_port_space id_ps)
{
	const struct sockaddr_ib *sib = (const struct sockaddr_ib *)src;

	if (src->sa_family != AF_IB)
		return id_ps;
	return (be64_to_cpu(sib->sib_sid) >> 16) & 0xffff;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_port_space);

static enum rdma_ucm_port_space cma_ps(struct cma_id *cid)
{
	return cma_addr_port_space(cma_src_addr(cid), cid->id.ps);
}

static struct net *cma_net(struct cma_id *cid)
{
	return cid->id.route.addr.dev_addr.net;
}

static struct sockaddr *cma_src(struct cma_id *cid)
{
	return (struct sockaddr *)&cid->id.route.addr.src_addr;
}

static struct sockaddr *cma_dst(struct cma_id *cid)
{
	return (struct sockaddr *)&cid->id.route.addr.dst_addr;
}

static void cma_port_attach(struct cma_port *port, struct cma_id *cid)
{
	cma_addr_set_port(cma_src(cid), port->num);
	cid->port = port;
	hlist_add_head(&cid->port_entry, &port->owners);
}

static int cma_port_create(struct cma_id *cid, u16 num)
{
	struct cma_port *port;
	int ret;

	port = CMA_ALLOC(kzalloc(sizeof(*port), GFP_KERNEL));
	if (!port)
		return -ENOMEM;

	port->ps = cma_ps(cid);
	port->num = num;
	ret = xa_insert(cma_ports(cma_net(cid), port->ps), num, port,
			GFP_KERNEL);
	if (ret) {
		kfree(port);
		return ret == -EBUSY ? -EADDRINUSE : ret;
	}
	cma_port_attach(port, cid);
	return 0;
}

/*
 * May @cid share @port, which it asked for by number, with the ids that
 * own it? As for sockets: not if either side is a wildcard or both have
 * the same address, unless both set reuseaddr or the families differ on
 * ids that are afonly. The answers are in-box's, which user space sees:
 * -EADDRNOTAVAIL when a wildcard is in the way, -EADDRINUSE for the same
 * address.
 */
static int cma_port_check_explicit(struct cma_port *port, struct cma_id *cid,
				   bool reuseaddr)
{
	struct sockaddr *addr = cma_src(cid);
	struct cma_id *other;

	hlist_for_each_entry(other, &port->owners, port_entry) {
		struct sockaddr *other_addr = cma_src(other);

		if (other == cid || (reuseaddr && other->reuseaddr))
			continue;
		if (cid->afonly && other->afonly &&
		    addr->sa_family != other_addr->sa_family)
			continue;
		if (cma_addr_any(addr) || cma_addr_any(other_addr))
			return -EADDRNOTAVAIL;
		if (cma_addr_equal(addr, other_addr))
			return -EADDRINUSE;
	}
	return 0;
}

/*
 * May @cid share an ephemeral @port? Yes while no other owner could be
 * confused with it: a different destination port, source address or
 * destination address tells them apart.
 */
static bool cma_port_tuple_unique(struct cma_port *port, struct cma_id *cid)
{
	struct sockaddr *src = cma_src(cid), *dst = cma_dst(cid);
	struct cma_id *other;

	hlist_for_each_entry(other, &port->owners, port_entry) {
		struct sockaddr *osrc = cma_src(other), *odst = cma_dst(other);

		if (cma_addr_port(dst) && cma_addr_port(odst) &&
		    cma_addr_port(dst) != cma_addr_port(odst))
			continue;
		if (!cma_addr_any(src) && !cma_addr_any(osrc) &&
		    !cma_addr_equal(src, osrc))
			continue;
		if (!cma_addr_any(dst) && !cma_addr_any(odst) &&
		    !cma_addr_equal(dst, odst))
			continue;
		return false;
	}
	return true;
}

static int cma_port_bind_ephemeral(struct cma_id *cid)
{
	struct xarray *ports = cma_ports(cma_net(cid), cma_ps(cid));
	static u16 last_used;
	int low, high, n, i;
	u16 num;

	inet_get_local_port_range(cma_net(cid), &low, &high);
	n = high - low + 1;
	num = low + get_random_u32_below(n);
	for (i = 0; i < n; i++, num = num == high ? low : num + 1) {
		struct cma_port *port;

		/* Give a port just let go of a rest, as TCP does. */
		if (num == last_used)
			continue;
		port = xa_load(ports, num);
		if (!port) {
			int ret = cma_port_create(cid, num);

			if (ret)
				return ret;
		} else if (cma_port_tuple_unique(port, cid)) {
			cma_port_attach(port, cid);
		} else {
			continue;
		}
		last_used = num;
		return 0;
	}
	return -EADDRNOTAVAIL;
}

static int cma_port_bind_explicit(struct cma_id *cid, u16 num)
{
	struct cma_port *port;
	int ret;

	if (num < PROT_SOCK && !ns_capable(cma_net(cid)->user_ns,
					   CAP_NET_BIND_SERVICE))
		return -EACCES;

	port = xa_load(cma_ports(cma_net(cid), cma_ps(cid)), num);
	if (!port)
		return cma_port_create(cid, num);

	ret = cma_port_check_explicit(port, cid, cid->reuseaddr);
	if (!ret)
		cma_port_attach(port, cid);
	return ret;
}

/**
 * cma_port_bind - give an id the port of its source address
 * @cid: the id; its source address is set, its port 0 for any
 *
 * Context: process context, cma_lock held.
 * Return: 0 with the port written into @cid's source address,
 * -EADDRINUSE when the port asked for is taken at the same address,
 * -EADDRNOTAVAIL when it is taken and either address is a wildcard or
 * when no ephemeral port is left, -EACCES for a privileged port without
 * CAP_NET_BIND_SERVICE, -ENOMEM.
 */
int cma_port_bind(struct cma_id *cid)
{
	u16 num = cma_addr_port(cma_src(cid));

	lockdep_assert_held(&cma_lock);
	return num ? cma_port_bind_explicit(cid, num) :
		     cma_port_bind_ephemeral(cid);
}

/**
 * cma_port_release - let go of an id's port
 * @cid: the id; nothing happens if it has no port
 *
 * Context: process context, cma_lock held.
 */
void cma_port_release(struct cma_id *cid)
{
	struct cma_port *port = cid->port;

	lockdep_assert_held(&cma_lock);
	if (!port)
		return;

	hlist_del(&cid->port_entry);
	cid->port = NULL;
	if (hlist_empty(&port->owners)) {
		xa_erase(cma_ports(cma_net(cid), port->ps), port->num);
		kfree(port);
	}
}

/**
 * cma_port_claim_for_listen - make sure a listener is alone on its port
 * @cid: the id about to listen, bound to a port
 *
 * A listener cannot share its address, reuseaddr or not: check as if
 * reuseaddr were off and turn it off on success.
 *
 * Context: process context, cma_lock held.
 * Return: 0, or -EADDRNOTAVAIL or -EADDRINUSE as for binding.
 */
int cma_port_claim_for_listen(struct cma_id *cid)
{
	int ret;

	lockdep_assert_held(&cma_lock);
	ret = cma_port_check_explicit(cid->port, cid, false);
	if (!ret)
		cid->reuseaddr = 0;
	return ret;
}

/**
 * cma_port_owners - the ids bound to a port
 * @net: the namespace
 * @ps: the port space
 * @num: the port
 *
 * Context: process context, cma_lock held; the list is valid while it is.
 * Return: the list of owners (linked by cma_id.port_entry), or NULL if
 * nobody owns the port.
 */
struct hlist_head *cma_port_owners(struct net *net,
				   enum rdma_ucm_port_space ps, u16 num)
{
	struct xarray *ports = cma_ports(net, ps);
	struct cma_port *port;

	lockdep_assert_held(&cma_lock);
	port = ports ? xa_load(ports, num) : NULL;
	return port ? &port->owners : NULL;
}

static int __net_init cma_net_init(struct net *net)
{
	struct cma_pernet *pn = net_generic(net, cma_pernet_id);
	int i;

	for (i = 0; i < CMA_NR_PS; i++)
		xa_init(&pn->ports[i]);
	return 0;
}

static void __net_exit cma_net_exit(struct net *net)
{
	struct cma_pernet *pn = net_generic(net, cma_pernet_id);
	int i;

	/* Ids hold their namespace: none can own a port now. */
	for (i = 0; i < CMA_NR_PS; i++)
		WARN_ON(!xa_empty(&pn->ports[i]));
}

static struct pernet_operations cma_net_ops = {
	.init = cma_net_init,
	.exit = cma_net_exit,
	.id = &cma_pernet_id,
	.size = sizeof(struct cma_pernet),
};

/**
 * cma_ports_init - set up the port spaces of every namespace
 *
 * Context: process context, module init.
 * Return: 0 or the error of register_pernet_subsys().
 */
int cma_ports_init(void)
{
	return register_pernet_subsys(&cma_net_ops);
}

/**
 * cma_ports_exit - forget the port spaces
 *
 * Context: process context, module exit.
 */
void cma_ports_exit(void)
{
	unregister_pernet_subsys(&cma_net_ops);
}
