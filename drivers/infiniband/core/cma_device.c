// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA devices the CM can use, as ib_core reports them coming and
 * going. A device is usable when one of its ports speaks the IB CM
 * (InfiniBand, RoCE) or the iWARP CM.
 */

#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/netdevice.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "cma_priv.h"
#include "cma_trace.h"

/* Under cma_lock. */
LIST_HEAD(cma_devices);

static int cma_add_device(struct ib_device *device);
static void cma_remove_device(struct ib_device *device, void *client_data);

static struct ib_client cma_client = {
	.name	= "cma",
	.add	= cma_add_device,
	.remove	= cma_remove_device,
};

static bool cma_device_usable(struct ib_device *device)
{
	u32 port;

	rdma_for_each_port(device, port)
		if (rdma_cap_ib_cm(device, port) || rdma_cap_iw_cm(device, port))
			return true;
	return false;
}

/**
 * cma_device_get - take a reference on a device
 * @cma_dev: the device; the caller holds cma_lock with the device on the
 *	device list, or a reference already
 *
 * Context: any.
 */
void cma_device_get(struct cma_device *cma_dev)
{
	refcount_inc(&cma_dev->refcount);
}

/**
 * cma_device_put - drop a reference on a device
 * @cma_dev: the device
 *
 * The last reference lets the removal of the device finish.
 *
 * Context: any.
 */
void cma_device_put(struct cma_device *cma_dev)
{
	if (refcount_dec_and_test(&cma_dev->refcount))
		complete(&cma_dev->released);
}

/* ib_client .add: runs for every device, present and future. */
static int cma_add_device(struct ib_device *device)
{
	struct cma_device *cma_dev;
	LIST_HEAD(todo);

	/* ib_core's convention for "this client does not apply". */
	if (!cma_device_usable(device))
		return -EOPNOTSUPP;

	cma_dev = CMA_ALLOC(kzalloc(struct_size(cma_dev, unroutable_reqs,
						device->phys_port_cnt),
				    GFP_KERNEL));
	if (!cma_dev)
		return -ENOMEM;

	cma_dev->device = device;
	if (cma_defaults_alloc(cma_dev)) {
		kfree(cma_dev);
		return -ENOMEM;
	}
	INIT_LIST_HEAD(&cma_dev->ids);
	refcount_set(&cma_dev->refcount, 1);
	init_completion(&cma_dev->released);
	ib_set_client_data(device, &cma_client, cma_dev);
	trace_cm_add_one(device);

	mutex_lock(&cma_lock);
	list_add_tail(&cma_dev->list, &cma_devices);
	cma_listen_device_added(cma_dev, &todo);
	mutex_unlock(&cma_lock);
	/* iWARP listens, outside cma_lock; a failed one is left out. */
	if (cma_listens_make(&todo))
		pr_warn_ratelimited("rdma_cm: a listener cannot listen on %s\n",
				    dev_name(&device->dev));
	return 0;
}

/*
 * Tell an id its device is going away. A handler that returns non-zero
 * has the id destroyed; otherwise the consumer must destroy it soon, as
 * the device's unregistration waits for that.
 */
static void cma_deliver_removal(struct cma_id *cid)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_DEVICE_REMOVAL };

	mutex_lock(&cid->handler_mutex);
	if (cma_enter(cid, RDMA_CM_DEVICE_REMOVAL) == RDMA_CM_DESTROYING ||
	    !cma_deliver(cid, &event)) {
		mutex_unlock(&cid->handler_mutex);
		cma_id_put(cid);
		return;
	}
	/* Ours goes first: the destroy below waits for all others. */
	cma_id_put(cid);
	cma_destroy_handler_unlock(cid);
}

static void cma_device_notify_removal(struct cma_device *cma_dev)
{
	struct cma_id *cid;

	mutex_lock(&cma_lock);
	while (!list_empty(&cma_dev->ids)) {
		cid = list_first_entry(&cma_dev->ids, struct cma_id,
				       device_entry);
		/* Off the list, so each id is told once. */
		list_del_init(&cid->device_entry);
		cma_id_get(cid);
		mutex_unlock(&cma_lock);
		cma_deliver_removal(cid);
		mutex_lock(&cma_lock);
	}
	mutex_unlock(&cma_lock);
}

/*
 * ib_client .remove: the device is being unregistered. Once it is off the
 * list nothing new can bind to it; tell every id bound to it, and wait
 * for each to let go before ib_core tears the device down.
 */
static void cma_remove_device(struct ib_device *device, void *client_data)
{
	struct cma_device *cma_dev = client_data;
	LIST_HEAD(dead);

	trace_cm_remove_one(device);
	mutex_lock(&cma_lock);
	/* Emptied: an iWARP listen made meanwhile sees the device gone. */
	list_del_init(&cma_dev->list);
	cma_listen_device_removed(cma_dev, &dead);
	mutex_unlock(&cma_lock);
	cma_listens_destroy(&dead);

	cma_device_notify_removal(cma_dev);
	cma_device_put(cma_dev);
	wait_for_completion(&cma_dev->released);
	cma_defaults_free(cma_dev);
	kfree(cma_dev);
}

static const char *cma_port_transport(struct ib_device *device, u32 port)
{
	if (rdma_protocol_roce(device, port))
		return "roce";
	if (rdma_protocol_ib(device, port))
		return "ib";
	if (rdma_protocol_iwarp(device, port))
		return "iwarp";
	return "other";
}

/**
 * cma_devices_show - list the devices the CM uses, one line per port
 * @m: where to print
 *
 * Each line reads "<device> <port> <transport> unroutable_reqs=<n>", the
 * transport one of ib, roce, iwarp or other, n the requests dropped on
 * that port for their origin.
 *
 * Context: process context; takes cma_lock.
 */
void cma_devices_show(struct seq_file *m)
{
	struct cma_device *cma_dev;
	struct ib_device *device;
	u32 port;

	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list) {
		device = cma_dev->device;
		rdma_for_each_port(device, port)
			seq_printf(m, "%s %u %s unroutable_reqs=%lu\n",
				   dev_name(&device->dev), port,
				   cma_port_transport(device, port),
				   cma_dev->unroutable_reqs[port -
						rdma_start_port(device)]);
	}
	mutex_unlock(&cma_lock);
}

/**
 * cma_device_count_unroutable - count a request dropped for its origin
 * @device: the device the request arrived on
 * @port: the port it arrived on
 *
 * Context: process context; takes cma_lock.
 */
void cma_device_count_unroutable(struct ib_device *device, u32 port)
{
	struct cma_device *cma_dev;

	if (!rdma_is_port_valid(device, port))
		return;
	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list)
		if (cma_dev->device == device)
			cma_dev->unroutable_reqs[port - rdma_start_port(device)]++;
	mutex_unlock(&cma_lock);
}

/**
 * cma_devices_init - start tracking RDMA devices
 *
 * Context: process context, module init.
 * Return: 0 or the error of ib_register_client().
 */
int cma_devices_init(void)
{
	return ib_register_client(&cma_client);
}

/**
 * cma_devices_exit - stop tracking RDMA devices, forgetting every one
 *
 * Context: process context, module exit; no id may be alive.
 */
void cma_devices_exit(void)
{
	ib_unregister_client(&cma_client);
}

/* Does @port of @device, an InfiniBand one, have @dev_addr's P_Key? */
static bool cma_ib_port_has_pkey(struct ib_device *device, u32 port,
				 struct rdma_dev_addr *dev_addr)
{
	u16 index;

	return rdma_protocol_ib(device, port) &&
	       !ib_find_cached_pkey(device, port, ib_addr_get_pkey(dev_addr),
				    &index);
}

/* An AF_IB source binds an InfiniBand port with its GID and P_Key. */
static const struct ib_gid_attr *
cma_ib_port_sgid(struct ib_device *device, u32 port,
		 struct rdma_dev_addr *dev_addr)
{
	union ib_gid gid;

	if (!cma_ib_port_has_pkey(device, port, dev_addr))
		return ERR_PTR(-ENODEV);
	rdma_addr_get_sgid(dev_addr, &gid);
	return rdma_find_gid_by_port(device, &gid, IB_GID_TYPE_IB, port, NULL);
}

/*
 * The GID of @port that reaches @dgid, as a held reference: @dgid itself
 * (the peer is this port), else the first GID on @dgid's subnet; for a
 * wildcard or loopback @dgid, the port's first GID. *@exact says whether
 * it is @dgid itself.
 */
static const struct ib_gid_attr *cma_ib_gid_toward(struct ib_device *device,
						   u32 port,
						   const union ib_gid *dgid,
						   bool *exact)
{
	const struct ib_gid_attr *attr, *found = ERR_PTR(-ENODEV);
	bool any = ib_addr_any((const struct ib_addr *)dgid) ||
		   ib_addr_loopback((const struct ib_addr *)dgid);
	int i;

	*exact = false;
	for (i = 0; ; i++) {
		attr = rdma_get_gid_attr(device, port, i);
		if (attr == ERR_PTR(-EINVAL))
			break;
		if (IS_ERR(attr))
			continue;
		if (any || !memcmp(&attr->gid, dgid, sizeof(*dgid))) {
			if (!IS_ERR(found))
				rdma_put_gid_attr(found);
			*exact = !any;
			return attr;
		}
		if (IS_ERR(found) && attr->gid.global.subnet_prefix ==
				     dgid->global.subnet_prefix) {
			found = attr;
			continue;
		}
		rdma_put_gid_attr(attr);
	}
	return found;
}

/*
 * The GID on @port of @device that stands for @cid's source address, as
 * a held reference, or an ERR_PTR. RoCE ports use the GID of the port's
 * default type (RoCE mode, see cma_defaults.c); iWARP and IB ports have
 * GIDs of the IB type.
 */
static const struct ib_gid_attr *cma_port_sgid(struct cma_id *cid,
					       struct cma_device *cma_dev,
					       u32 port)
{
	struct ib_device *device = cma_dev->device;
	struct rdma_dev_addr *dev_addr = &cid->id.route.addr.dev_addr;
	const struct ib_gid_attr *attr = ERR_PTR(-ENODEV);
	struct net_device *ndev;
	union ib_gid gid;

	if (!rdma_dev_access_netns(device, dev_addr->net))
		return ERR_PTR(-ENODEV);

	if (cma_src_addr(cid)->sa_family == AF_IB)
		return cma_ib_port_sgid(device, port, dev_addr);
	if (!rdma_protocol_roce(device, port)) {
		if (rdma_protocol_ib(device, port))
			return ERR_PTR(-ENODEV);
		rdma_addr_get_sgid(dev_addr, &gid);
		return rdma_find_gid_by_port(device, &gid, IB_GID_TYPE_IB,
					     port, NULL);
	}

	ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
	if (!ndev)
		return ERR_PTR(-ENODEV);
	rdma_ip2gid((struct sockaddr *)&cid->id.route.addr.src_addr, &gid);
	attr = rdma_find_gid_by_port(device, &gid,
				     cma_default_gid_type(cma_dev, port),
				     port, ndev);
	dev_put(ndev);
	return attr;
}

static void cma_attach(struct cma_id *cid, struct cma_device *cma_dev,
		       u32 port, const struct ib_gid_attr *sgid_attr)
{
	lockdep_assert_held(&cma_lock);
	refcount_inc(&cma_dev->refcount);
	cid->cma_dev = cma_dev;
	cid->id.device = cma_dev->device;
	cid->id.port_num = port;
	cid->id.route.addr.dev_addr.sgid_attr = sgid_attr;
	list_add_tail(&cid->device_entry, &cma_dev->ids);
	trace_cm_id_attach(cid, cma_dev->device);
}

/**
 * cma_attach_dev - bind an id to a given device port and source GID
 * @cid: the passive id of a connection request, not yet visible to anyone
 * @device: the device the request arrived on
 * @port: its port
 * @sgid_attr: the GID the request was sent to; a reference is taken
 *
 * Context: process context; takes cma_lock.
 * Return: 0, or -ENODEV if the device is going away.
 */
int cma_attach_dev(struct cma_id *cid, struct ib_device *device, u32 port,
		   const struct ib_gid_attr *sgid_attr)
{
	struct cma_device *cma_dev;
	int ret = -ENODEV;

	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list) {
		if (cma_dev->device != device)
			continue;
		rdma_hold_gid_attr(sgid_attr);
		cma_attach(cid, cma_dev, port, sgid_attr);
		ret = 0;
		break;
	}
	mutex_unlock(&cma_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cma_attach_dev);

/**
 * cma_acquire_dev - bind an id to the device that owns its source address
 * @cid: the id; its source address and dev_addr (from rdma_translate_ip()
 *	or address resolution) are set
 *
 * Context: process context; takes cma_lock.
 * Return: 0 with @cid's device, port and source GID set and a device
 * reference held, -EINVAL for an IPoIB id on a device that is not
 * InfiniBand, or -ENODEV when no device serves the address.
 */
int cma_acquire_dev(struct cma_id *cid)
{
	const struct ib_gid_attr *attr;
	struct cma_device *cma_dev;
	u32 port;

	/* As in-box: the IPoIB port space is for InfiniBand addresses. */
	if (cid->id.ps == RDMA_PS_IPOIB &&
	    cid->id.route.addr.dev_addr.dev_type != ARPHRD_INFINIBAND)
		return -EINVAL;

	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list) {
		if (!cma_dev_allowed(cid, cma_dev->device))
			continue;
		rdma_for_each_port(cma_dev->device, port) {
			attr = cma_port_sgid(cid, cma_dev, port);
			if (IS_ERR(attr))
				continue;
			cma_attach(cid, cma_dev, port, attr);
			mutex_unlock(&cma_lock);
			return 0;
		}
	}
	mutex_unlock(&cma_lock);
	return -ENODEV;
}
EXPORT_SYMBOL_IF_KUNIT(cma_acquire_dev);

/**
 * cma_acquire_ib_dev - bind an id to the InfiniBand port that reaches a GID
 * @cid: the id, resolving an AF_IB destination; its dev_addr, of the
 *	InfiniBand type, holds that destination's GID and P_Key
 *
 * Of the InfiniBand ports with the P_Key, one that has the destination's
 * GID (a loopback) wins; else the first with a GID on its subnet. A
 * wildcard or loopback destination takes the first port with the P_Key.
 *
 * Context: process context; takes cma_lock.
 * Return: 0 with @cid's device, port and source GID (in dev_addr too) set
 * and a device reference held, or -ENODEV when no port reaches the GID.
 */
int cma_acquire_ib_dev(struct cma_id *cid)
{
	struct rdma_dev_addr *dev_addr = &cid->id.route.addr.dev_addr;
	const struct ib_gid_attr *attr, *best = ERR_PTR(-ENODEV);
	struct cma_device *cma_dev, *best_dev = NULL;
	u32 port, best_port = 0;
	union ib_gid dgid;
	bool exact;

	rdma_addr_get_dgid(dev_addr, &dgid);
	mutex_lock(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list) {
		if (!cma_dev_allowed(cid, cma_dev->device) ||
		    !rdma_dev_access_netns(cma_dev->device, dev_addr->net))
			continue;
		rdma_for_each_port(cma_dev->device, port) {
			if (!cma_ib_port_has_pkey(cma_dev->device, port,
						  dev_addr))
				continue;
			attr = cma_ib_gid_toward(cma_dev->device, port, &dgid,
						 &exact);
			if (IS_ERR(attr))
				continue;
			if (!IS_ERR(best) && !exact) {
				rdma_put_gid_attr(attr);
				continue;
			}
			if (!IS_ERR(best))
				rdma_put_gid_attr(best);
			best = attr;
			best_dev = cma_dev;
			best_port = port;
			if (exact)
				goto found;
		}
	}
	if (IS_ERR(best)) {
		mutex_unlock(&cma_lock);
		return -ENODEV;
	}
found:
	rdma_addr_set_sgid(dev_addr, (union ib_gid *)&best->gid);
	cma_attach(cid, best_dev, best_port, best);
	mutex_unlock(&cma_lock);
	return 0;
}

/*
 * The first port that is up, or else the first device's first port;
 * of the devices @cid may use.
 */
static struct cma_device *cma_loopback_port(struct cma_id *cid, u32 *port)
{
	struct cma_device *cma_dev, *first = NULL;
	enum ib_port_state state;
	u32 p;

	lockdep_assert_held(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list) {
		if (!cma_dev_allowed(cid, cma_dev->device))
			continue;
		if (!first)
			first = cma_dev;
		rdma_for_each_port(cma_dev->device, p) {
			if (!ib_get_cached_port_state(cma_dev->device, p,
						      &state) &&
			    state == IB_PORT_ACTIVE) {
				*port = p;
				return cma_dev;
			}
		}
	}
	if (first)
		*port = rdma_start_port(first->device);
	return first;
}

/**
 * cma_acquire_loopback_dev - bind an id to a device for a loopback peer
 * @cid: the id, resolving a loopback or wildcard destination
 *
 * Any device reaches itself: take the first port that is up, its first
 * GID as both ends' GID and its first P_Key. As in-box, a port without
 * a P_Key table (iWARP's) cannot be the loopback port: -EINVAL, even
 * when a port further down the list could be.
 *
 * Context: process context; takes cma_lock.
 * Return: 0, -ENODEV when there is no device or GID, -EINVAL when the
 * port has no P_Key.
 */
int cma_acquire_loopback_dev(struct cma_id *cid)
{
	struct rdma_dev_addr *dev_addr = &cid->id.route.addr.dev_addr;
	const struct ib_gid_attr *attr;
	struct cma_device *cma_dev;
	union ib_gid gid;
	int ret = -ENODEV;
	u16 pkey;
	u32 port;

	mutex_lock(&cma_lock);
	cma_dev = cma_loopback_port(cid, &port);
	if (!cma_dev)
		goto out;
	attr = rdma_get_gid_attr(cma_dev->device, port, 0);
	if (IS_ERR(attr))
		goto out;
	ret = ib_get_cached_pkey(cma_dev->device, port, 0, &pkey);
	if (ret) {
		rdma_put_gid_attr(attr);
		goto out;
	}
	gid = attr->gid;
	dev_addr->dev_type = rdma_protocol_ib(cma_dev->device, port) ?
			     ARPHRD_INFINIBAND : ARPHRD_ETHER;
	rdma_addr_set_sgid(dev_addr, &gid);
	rdma_addr_set_dgid(dev_addr, &gid);
	ib_addr_set_pkey(dev_addr, pkey);
	cma_attach(cid, cma_dev, port, attr);
out:
	mutex_unlock(&cma_lock);
	return ret;
}

/**
 * cma_release_dev - unbind an id from its device
 * @cid: the id; nothing happens if it has no device
 *
 * Context: process context; takes cma_lock.
 */
void cma_release_dev(struct cma_id *cid)
{
	struct rdma_dev_addr *dev_addr = &cid->id.route.addr.dev_addr;
	struct cma_device *cma_dev = cid->cma_dev;

	if (!cma_dev)
		return;

	mutex_lock(&cma_lock);
	/* Emptied, so the listing of ids sees the id has no device. */
	list_del_init(&cid->device_entry);
	mutex_unlock(&cma_lock);
	if (dev_addr->sgid_attr) {
		rdma_put_gid_attr(dev_addr->sgid_attr);
		dev_addr->sgid_attr = NULL;
	}
	cid->cma_dev = NULL;
	cid->id.device = NULL;
	cma_device_put(cma_dev);
}

/**
 * cma_dev_allowed - may an id use a device?
 * @cid: the id
 * @device: the device
 *
 * Context: cma_lock held, which keeps rdma_restrict_node_type() out.
 * Return: false if @cid is restricted to devices of another node type.
 */
bool cma_dev_allowed(struct cma_id *cid, struct ib_device *device)
{
	lockdep_assert_held(&cma_lock);
	return !cid->node_type || cid->node_type == device->node_type;
}
