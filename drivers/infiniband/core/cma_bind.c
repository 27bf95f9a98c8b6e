// SPDX-License-Identifier: GPL-2.0
/*
 * Binding an id to a local address and port: rdma_bind_addr(), the
 * automatic binds of rdma_resolve_addr() and rdma_listen(), and the
 * socket-like options that govern sharing a port.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>

#include "cma_priv.h"

static void cma_set_default_afonly(struct cma_id *cid)
{
	if (cid->afonly_set)
		return;
	if (cma_src_addr(cid)->sa_family == AF_INET)
		cid->afonly = 1;
	else
		cid->afonly = !!cma_id_net(cid)->ipv6.sysctl.bindv6only;
}

/*
 * A specific source address decides the device; a wildcard does not. An
 * AF_IB address is a GID and a P_Key already: it needs no translation.
 */
static int cma_bind_device(struct cma_id *cid)
{
	struct rdma_dev_addr *dev_addr = &cid->id.route.addr.dev_addr;
	struct sockaddr_ib *sib = (struct sockaddr_ib *)cma_src_addr(cid);
	int ret;

	if (cma_addr_any(cma_src_addr(cid)))
		return 0;
	if (sib->sib_family == AF_IB) {
		dev_addr->dev_type = ARPHRD_INFINIBAND;
		rdma_addr_set_sgid(dev_addr, (union ib_gid *)&sib->sib_addr);
		ib_addr_set_pkey(dev_addr, ntohs(sib->sib_pkey));
	} else {
		ret = rdma_translate_ip(cma_src_addr(cid), dev_addr);
		if (ret)
			return ret;
	}
	return cma_acquire_dev(cid);
}

/**
 * cma_bind - bind an IDLE id to a source address and a port
 * @cid: the id, in IDLE
 * @src: the address; port 0 picks an ephemeral port
 * @dst: the destination, if known (the ephemeral port may be shared
 *	while source, destination and ports stay unique); may be NULL
 *
 * Context: process context; may sleep. Takes cma_lock.
 * Return: 0 with @cid in ADDR_BOUND; otherwise an error with @cid back
 * in IDLE and nothing held: -EINVAL if @cid is not IDLE or the address is
 * malformed, -EAFNOSUPPORT, -EADDRNOTAVAIL if no interface has the
 * address, -ENODEV if no RDMA device port has it, and the errors of the
 * port allocation.
 */
int cma_bind(struct cma_id *cid, const struct sockaddr *src,
	     const struct sockaddr *dst)
{
	struct rdma_dev_addr *dev_addr = &cid->id.route.addr.dev_addr;
	int ret;

	ret = cma_addr_check(src);
	if (ret)
		return ret;
	if (!cma_transition(cid, RDMA_CM_IDLE, RDMA_CM_ADDR_BOUND))
		return -EINVAL;

	memcpy(cma_src_addr(cid), src, cma_addr_size(src));
	if (src->sa_family == AF_INET6)
		dev_addr->bound_dev_if =
			((const struct sockaddr_in6 *)src)->sin6_scope_id;
	if (src->sa_family == AF_IB) {
		ret = cma_ib_claim_port_space((void *)cma_src_addr(cid),
					      cid->id.ps);
		if (ret)
			goto err_state;
	}
	if (dst)
		memcpy(cma_dst_addr(cid), dst, cma_addr_size(dst));
	else
		cma_dst_addr(cid)->sa_family = src->sa_family;

	ret = cma_bind_device(cid);
	if (ret)
		goto err_state;

	cma_set_default_afonly(cid);
	mutex_lock(&cma_lock);
	ret = cma_port_bind(cid);
	mutex_unlock(&cma_lock);
	if (ret)
		goto err_device;
	return 0;

err_device:
	cma_release_dev(cid);
err_state:
	/* rdma_translate_ip() would take it as given on the next bind. */
	dev_addr->bound_dev_if = 0;
	memset(&cid->id.route.addr.src_addr, 0, sizeof(struct sockaddr_storage));
	memset(&cid->id.route.addr.dst_addr, 0, sizeof(struct sockaddr_storage));
	cma_transition(cid, RDMA_CM_ADDR_BOUND, RDMA_CM_IDLE);
	return ret;
}

/**
 * cma_unbind - let go of an id's port and device
 * @cid: the id, which is being destroyed
 *
 * Context: process context; takes cma_lock.
 */
void cma_unbind(struct cma_id *cid)
{
	mutex_lock(&cma_lock);
	cma_port_release(cid);
	mutex_unlock(&cma_lock);
	cma_release_dev(cid);
}

/**
 * rdma_bind_addr - bind an id to a local address and port
 * @id: the id, in IDLE
 * @addr: an AF_INET, AF_INET6 or AF_IB address; a specific address also
 *	binds the device that owns it (for AF_IB, the InfiniBand port with
 *	the GID and the P_Key), a wildcard binds none; port 0 picks one from
 *	ip_local_port_range. An IPv6 link-local address needs its scope. An
 *	AF_IB address's service ID (under its mask) names the port space,
 *	which must be the id's, or TCP or UDP for an RDMA_PS_IB id.
 *
 * Context: process context; may sleep.
 * Return: 0, or -EINVAL (wrong state, malformed address), -EAFNOSUPPORT,
 * -EPROTONOSUPPORT (an AF_IB service ID outside the id's port spaces),
 * -EADDRNOTAVAIL (no interface has the address, the port is taken and
 * either address is a wildcard, or no port is free), -ENODEV (no RDMA
 * device port has the address), -EADDRINUSE (the port is taken at the
 * same address), -EACCES (a port below 1024 without
 * CAP_NET_BIND_SERVICE): the in-box module's answers.
 */
int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return cma_bind(to_cma_id(id), addr, NULL);
}

/**
 * rdma_set_reuseaddr - let other ids bind the same address and port
 * @id: the id
 * @reuse: non-zero to allow sharing with other ids that allow it too
 *
 * Turning reuse on is allowed until the id listens; turning it off only
 * before it binds. A listener is always alone on its address.
 *
 * Context: process context.
 * Return: 0, or -EINVAL in a state where the change is not allowed.
 */
int rdma_set_reuseaddr(struct rdma_cm_id *id, int reuse)
{
	struct cma_id *cid = to_cma_id(id);
	enum rdma_cm_state state;
	int ret = -EINVAL;

	mutex_lock(&cma_lock);
	state = cma_state(cid);
	if (state == RDMA_CM_IDLE || (reuse && state != RDMA_CM_LISTEN)) {
		cid->reuseaddr = !!reuse;
		ret = 0;
	}
	mutex_unlock(&cma_lock);
	return ret;
}

/**
 * rdma_set_afonly - keep an IPv6 id to IPv6 traffic
 * @id: the id, not yet listening or connecting
 * @afonly: non-zero for IPv6 only; the default is 1 for IPv4 ids and
 *	net.ipv6.bindv6only for IPv6 ones
 *
 * Context: process context.
 * Return: 0, or -EINVAL unless @id is IDLE or ADDR_BOUND.
 */
int rdma_set_afonly(struct rdma_cm_id *id, int afonly)
{
	struct cma_id *cid = to_cma_id(id);
	enum rdma_cm_state state;
	int ret = -EINVAL;

	mutex_lock(&cma_lock);
	state = cma_state(cid);
	if (state == RDMA_CM_IDLE || state == RDMA_CM_ADDR_BOUND) {
		cid->afonly = !!afonly;
		cid->afonly_set = 1;
		ret = 0;
	}
	mutex_unlock(&cma_lock);
	return ret;
}

/**
 * rdma_restrict_node_type - limit an id to devices of one node type
 * @id: the id, not yet bound to a device
 * @node_type: RDMA_NODE_IB_CA (InfiniBand and RoCE) or RDMA_NODE_RNIC
 *	(iWARP); RDMA_NODE_UNSPECIFIED lifts the restriction
 *
 * Binding to a specific address, address resolution and listening then
 * consider only devices of @node_type: an address of another device does
 * not bind (-EADDRNOTAVAIL), resolution to a peer only another device reaches
 * ends in RDMA_CM_EVENT_ADDR_ERROR, and a wildcard listener listens only
 * on devices of @node_type, present and future.
 *
 * Context: process context; takes cma_lock.
 * Return: 0; -EINVAL for another node type; -EALREADY if @id is already
 * bound to a device.
 */
int rdma_restrict_node_type(struct rdma_cm_id *id, u8 node_type)
{
	struct cma_id *cid = to_cma_id(id);
	int ret = 0;

	switch (node_type) {
	case RDMA_NODE_IB_CA:
	case RDMA_NODE_RNIC:
		break;
	case RDMA_NODE_UNSPECIFIED:
		node_type = 0;
		break;
	default:
		return -EINVAL;
	}

	mutex_lock(&cma_lock);
	if (cid->cma_dev)
		ret = -EALREADY;
	else
		cid->node_type = node_type;
	mutex_unlock(&cma_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(rdma_restrict_node_type);
