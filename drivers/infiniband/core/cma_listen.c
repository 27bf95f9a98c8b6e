// SPDX-License-Identifier: GPL-2.0
/*
 * Listening. A listener bound to a specific address listens on its
 * device; a wildcard listener on every device, including devices that
 * appear later. On each device the listen is an IB CM listen on the
 * service ID of the listener's port space and port (an AF_IB listener's
 * own, on IB CM devices only); an incoming request is then matched to a
 * listener through the port table, by namespace, address and device
 * (cma_find_listener()). An AF_IB request, one without a CM header, only
 * finds AF_IB listeners; an AF_IB listener takes IP requests too, as
 * in-box, and sees them as AF_IB ones with the header in the private data.
 *
 * The lists of listens are under cma_lock. An iWARP listen is made
 * outside it: a provider's listen may take rtnl (irdma's does), and rtnl
 * comes before cma_lock (the netdev notifier takes cma_lock under it).
 * Under cma_lock such a listen is only planned, with references on its
 * listener and device; it is made once cma_lock is released, and then
 * kept if both still want it (cma_listens_make()).
 */

#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>

#include "cma_priv.h"

/**
 * struct cma_dev_listen - a listener's listen on one device
 * @entry: on the listener's list of listens
 * @cma_dev: the device
 * @cid: for an iWARP listen planned and not made yet, its listener
 * @ib: the IB CM listen, shared by every listener of the same service ID
 *	on the device (ib_cm_insert_listen() counts them)
 * @iw: or the iWARP CM listen, the listener's own
 */
struct cma_dev_listen {
	struct list_head entry;
	struct cma_device *cma_dev;
	struct cma_id *cid;
	struct ib_cm_id *ib;
	struct iw_cm_id *iw;
};

/* Wildcard listeners, to be offered every device that comes. */
static LIST_HEAD(cma_listen_any);

/*
 * Start listening on one device, speaking the IB CM, or plan the iWARP
 * CM's listen on @todo, holding a reference on the listener and one on
 * the device, for cma_listens_make() once cma_lock is released.
 */
static int cma_listen_on_device(struct cma_id *cid, struct cma_device *cma_dev,
				struct list_head *todo)
{
	struct ib_device *device = cma_dev->device;
	bool ib_cm = rdma_cap_ib_cm(device, rdma_start_port(device));
	struct cma_dev_listen *dl;
	int ret;

	lockdep_assert_held(&cma_lock);
	/* The iWARP CM speaks IP only: AF_IB listeners pass its devices by. */
	if (!ib_cm && cma_src_addr(cid)->sa_family == AF_IB)
		return 0;
	dl = CMA_ALLOC(kzalloc(sizeof(*dl), GFP_KERNEL));
	if (!dl)
		return -ENOMEM;
	dl->cma_dev = cma_dev;

	if (!ib_cm) {
		dl->cid = cid;
		cma_id_get(cid);
		cma_device_get(cma_dev);
		list_add_tail(&dl->entry, todo);
		return 0;
	}
	ret = cma_ib_listen(cid, device, &dl->ib);
	if (ret) {
		kfree(dl);
		return ret;
	}
	list_add_tail(&dl->entry, &cid->listens);
	return 0;
}

/*
 * Does the listener still want a listen on the device: listening, and
 * the device still there? Its destroyer or the device's removal takes
 * every listen later on, under cma_lock, or has taken them before.
 */
static bool cma_listen_wanted(struct cma_dev_listen *dl)
{
	lockdep_assert_held(&cma_lock);
	return cma_state(dl->cid) == RDMA_CM_LISTEN &&
	       !list_empty(&dl->cma_dev->list);
}

/* Make one planned iWARP listen, and give it to its listener if wanted. */
static int cma_listen_make(struct cma_dev_listen *dl)
{
	struct cma_device *cma_dev = dl->cma_dev;
	struct cma_id *cid = dl->cid;
	bool kept = false;
	int ret;

	ret = cma_iw_listen(cid, cma_dev->device, &dl->iw);
	if (!ret) {
		mutex_lock(&cma_lock);
		kept = cma_listen_wanted(dl);
		if (kept)
			list_add_tail(&dl->entry, &cid->listens);
		if (kept && cid->cma_dev == cma_dev)
			WRITE_ONCE(cid->listen_iw, dl->iw);
		mutex_unlock(&cma_lock);
		if (!kept)
			iw_destroy_cm_id(dl->iw);
	}
	if (!kept)
		kfree(dl);
	cma_device_put(cma_dev);
	cma_id_put(cid);
	return ret;
}

/**
 * cma_listens_make - make the iWARP listens planned under cma_lock
 * @todo: the listens, as cma_listen_on_device() planned them
 *
 * Each is made, then kept if its listener still listens and its device
 * is still there, or destroyed; the references of the plan are dropped.
 *
 * Context: process context; may sleep; cma_lock not held (a provider's
 * listen may take rtnl).
 * Return: 0, or the first error of a listen.
 */
int cma_listens_make(struct list_head *todo)
{
	struct cma_dev_listen *dl, *tmp;
	int ret = 0, err;

	lockdep_assert_not_held(&cma_lock);
	list_for_each_entry_safe(dl, tmp, todo, entry) {
		list_del(&dl->entry);
		err = cma_listen_make(dl);
		ret = ret ?: err;
	}
	return ret;
}

/**
 * cma_listens_destroy - destroy listens taken off their listeners
 * @dead: the listens (struct cma_dev_listen), on a list of the caller's
 *
 * Not under cma_lock: the IB CM holds a reference on a listen while our
 * REQ handler runs, and that handler takes cma_lock, so destroying the
 * last listen of a service ID with cma_lock held could wait forever.
 * Off their listeners' lists, the listens are the caller's alone.
 *
 * Context: process context; may sleep. cma_lock not held.
 */
void cma_listens_destroy(struct list_head *dead)
{
	struct cma_dev_listen *dl, *tmp;

	lockdep_assert_not_held(&cma_lock);
	list_for_each_entry_safe(dl, tmp, dead, entry) {
		list_del(&dl->entry);
		if (dl->ib)
			ib_destroy_cm_id(dl->ib);
		else
			iw_destroy_cm_id(dl->iw);
		kfree(dl);
	}
}

/* Take every listen of @cid off it, onto @dead; cma_lock held. */
static void cma_listen_stop_locked(struct cma_id *cid, struct list_head *dead)
{
	lockdep_assert_held(&cma_lock);
	WRITE_ONCE(cid->listen_iw, NULL);
	list_splice_init(&cid->listens, dead);
	list_del_init(&cid->listen_any_entry);
}

/**
 * cma_listen_stop - stop every listen of a listener
 * @cid: the listener, being destroyed
 *
 * A request already matched to @cid waits for @cid's handler mutex and
 * then finds it no longer listening.
 *
 * Context: process context; takes cma_lock.
 */
void cma_listen_stop(struct cma_id *cid)
{
	LIST_HEAD(dead);

	mutex_lock(&cma_lock);
	cma_listen_stop_locked(cid, &dead);
	mutex_unlock(&cma_lock);
	cma_listens_destroy(&dead);
}

/**
 * cma_listen_device_added - give wildcard listeners a new device
 * @cma_dev: the device, just added to the device list
 * @todo: where to plan iWARP listens, for cma_listens_make() once
 *	cma_lock is released
 *
 * A listener that cannot listen on it goes on without it.
 *
 * Context: process context, cma_lock held.
 */
void cma_listen_device_added(struct cma_device *cma_dev,
			     struct list_head *todo)
{
	struct cma_id *cid;

	lockdep_assert_held(&cma_lock);
	list_for_each_entry(cid, &cma_listen_any, listen_any_entry)
		if (cma_dev_allowed(cid, cma_dev->device) &&
		    cma_listen_on_device(cid, cma_dev, todo))
			pr_warn_ratelimited("rdma_cm: listener %u cannot listen on %s\n",
					    cid->handle,
					    dev_name(&cma_dev->device->dev));
}

/**
 * cma_listen_device_removed - take every listen on a device going away
 * @cma_dev: the device, already off the device list
 * @dead: where to put the listens, for cma_listens_destroy() once
 *	cma_lock is released
 *
 * A request that still arrives on such a listen finds no device to bind
 * its new id to, and is refused.
 *
 * Context: process context, cma_lock held.
 */
void cma_listen_device_removed(struct cma_device *cma_dev,
			       struct list_head *dead)
{
	struct cma_dev_listen *dl, *tmp;
	struct cma_id *cid;

	lockdep_assert_held(&cma_lock);
	list_for_each_entry(cid, &cma_listen_any, listen_any_entry)
		list_for_each_entry_safe(dl, tmp, &cid->listens, entry)
			if (dl->cma_dev == cma_dev)
				list_move_tail(&dl->entry, dead);
}

static int cma_listen_start(struct cma_id *cid)
{
	struct cma_device *cma_dev;
	LIST_HEAD(dead);
	LIST_HEAD(todo);
	int ret = 0, err;

	mutex_lock(&cma_lock);
	if (cid->reuseaddr)
		ret = cma_port_claim_for_listen(cid);
	if (ret)
		goto out;

	if (cid->cma_dev) {
		ret = cma_listen_on_device(cid, cid->cma_dev, &todo);
		goto out;
	}
	list_for_each_entry(cma_dev, &cma_devices, list) {
		if (!cma_dev_allowed(cid, cma_dev->device))
			continue;
		ret = cma_listen_on_device(cid, cma_dev, &todo);
		if (ret) {
			cma_listen_stop_locked(cid, &dead);
			goto out;
		}
	}
	list_add_tail(&cid->listen_any_entry, &cma_listen_any);
out:
	mutex_unlock(&cma_lock);
	cma_listens_destroy(&dead);
	err = cma_listens_make(&todo);
	ret = ret ?: err;
	/* A failure takes back every listen, the planned ones made too. */
	if (ret)
		cma_listen_stop(cid);
	return ret;
}

/**
 * rdma_listen - wait for connection requests
 * @id: the id, ADDR_BOUND (or IDLE: it is bound to 0.0.0.0 and an
 *	ephemeral port first)
 * @backlog: kept for the consumer (rdma_ucm enforces it)
 *
 * Requests arrive as RDMA_CM_EVENT_CONNECT_REQUEST on a new id, under its
 * handler mutex, which nests inside @id's.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL in another state, -EADDRNOTAVAIL or -EADDRINUSE
 * (as for binding) if @id shares its port through reuseaddr, or the
 * error of the IB CM.
 */
int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct cma_id *cid = to_cma_id(id);
	int ret;

	if (cma_state(cid) == RDMA_CM_IDLE) {
		ret = cma_bind(cid, (struct sockaddr *)&any, NULL);
		if (ret)
			return ret;
	}
	if (!cma_transition(cid, RDMA_CM_ADDR_BOUND, RDMA_CM_LISTEN))
		return -EINVAL;

	cid->backlog = backlog;
	ret = cma_listen_start(cid);
	if (ret)
		cma_transition(cid, RDMA_CM_LISTEN, RDMA_CM_ADDR_BOUND);
	return ret;
}

/**
 * cma_dev_listener - whether an id listens on the device it is bound to
 * @cid: the id
 *
 * In-box, such a listener keeps its device's CM listen as its own CM id,
 * so the calls that act on an id's connection reach that listen and get
 * the CM's answer for it; a wildcard listener has no CM id at all.
 *
 * Context: any.
 * Return: true if @cid is LISTEN and has a device.
 */
bool cma_dev_listener(struct cma_id *cid)
{
	return cma_state(cid) == RDMA_CM_LISTEN && cid->id.device;
}

/* Is @cid a listener for a request to @dst that arrived on @device? */
static bool cma_listener_matches(struct cma_id *cid, const struct sockaddr *dst,
				 struct ib_device *device)
{
	const struct sockaddr *addr = cma_src_addr(cid);

	if (cma_state(cid) != RDMA_CM_LISTEN)
		return false;
	if ((cid->id.device && cid->id.device != device) ||
	    !cma_dev_allowed(cid, device))
		return false;
	/* As in-box, an AF_IB listener takes IP requests too. */
	if (addr->sa_family == AF_IB && dst->sa_family != AF_IB)
		return true;
	/* Else only an IPv6 listener that is not afonly takes IPv4 ones. */
	if (addr->sa_family != dst->sa_family &&
	    (addr->sa_family != AF_INET6 || dst->sa_family != AF_INET ||
	     cid->afonly))
		return false;
	return cma_addr_any(addr) || cma_addr_equal(addr, dst);
}

/**
 * cma_find_listener - the listener a connection request is for
 * @net: the namespace the request arrived in
 * @ps: the port space of its service ID
 * @port: the port of its service ID
 * @dst: the address it is for, from its CM header
 * @device: the device it arrived on
 *
 * Context: process context; takes cma_lock.
 * Return: the listener, with a reference the caller must drop, or NULL.
 */
struct cma_id *cma_find_listener(struct net *net, enum rdma_ucm_port_space ps,
				 u16 port, const struct sockaddr *dst,
				 struct ib_device *device)
{
	struct hlist_head *owners;
	struct cma_id *cid;

	mutex_lock(&cma_lock);
	owners = cma_port_owners(net, ps, port);
	if (owners) {
		hlist_for_each_entry(cid, owners, port_entry) {
			if (cma_listener_matches(cid, dst, device)) {
				cma_id_get(cid);
				mutex_unlock(&cma_lock);
				return cid;
			}
		}
	}
	mutex_unlock(&cma_lock);
	return NULL;
}
