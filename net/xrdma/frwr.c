// SPDX-License-Identifier: GPL-2.0
/*
 * The FRWR pool: memory registration with fast-register work requests.
 *
 * Each connection gets MRs of type IB_MR_TYPE_MEM_REG on its PD.  A
 * registration takes a free MR, maps the user's pages into it with
 * ib_map_mr_sg(), gives it a fresh key (the low byte stepped) and posts
 * IB_WR_REG_MR; a release posts IB_WR_LOCAL_INV before the MR goes back
 * to the free list, so a peer's old key never reaches the next user's
 * memory; a key the peer invalidated with a SEND_WITH_INV is dead
 * already and the release skips the LOCAL_INV.  An MR whose
 * registration or invalidation failed is in an unknown state: it is
 * destroyed, never reused.
 *
 * The pool starts small; when a registration leaves it low, the refill
 * work makes more, up to a cap.  At teardown (after the QP was drained,
 * so no MR operation is in flight) every MR is destroyed; those the
 * user still holds become dead handles that xrdma_mr_release() frees.
 *
 * A user waits for the completion of its REG_MR or LOCAL_INV without
 * holding the mutex; the teardown's drain completes every WR (or
 * wr_wait.c does, where a provider lost one), so the wait is bounded by
 * the connection's life.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "xrdma.h"

static void xrdma_frwr_wc(struct ib_cq *cq, struct ib_wc *wc)
{
	struct xrdma_mr *mr = container_of(wc->wr_cqe, struct xrdma_mr,
					   wait.cqe);
	struct xrdma_xprt *xprt = xrdma_cq_xprt(cq);

	xrdma_flush_disconnect(xprt, wc);
	xrdma_wr_wait_done(xprt, &mr->wait, wc);
}

static void xrdma_mr_free(struct xrdma_mr *mr)
{
	kfree(mr->sg);
	kfree(mr);
}

static struct xrdma_mr *xrdma_mr_alloc(struct xrdma_frwr *frwr)
{
	struct xrdma_mr *mr;
	struct ib_mr *ibmr;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->sg = kcalloc(frwr->max_pages, sizeof(*mr->sg), GFP_KERNEL);
	if (!mr->sg) {
		xrdma_mr_free(mr);
		return ERR_PTR(-ENOMEM);
	}
	ibmr = ib_alloc_mr(frwr->pd, IB_MR_TYPE_MEM_REG, frwr->max_pages);
	if (IS_ERR(ibmr)) {
		xrdma_mr_free(mr);
		return ERR_CAST(ibmr);
	}
	mr->ibmr = ibmr;
	xrdma_wr_wait_init(&mr->wait, xrdma_frwr_wc);
	mr->state = XRDMA_MR_FREE;
	INIT_LIST_HEAD(&mr->node);
	return mr;
}

/* Undo the DMA mapping of the user's pages, if there is one. */
static void xrdma_mr_unmap(struct xrdma_frwr *frwr, struct xrdma_mr *mr)
{
	if (!mr->mapped)
		return;
	ib_dma_unmap_sg(frwr->dev, mr->sg, mr->nents, DMA_BIDIRECTIONAL);
	mr->mapped = 0;
}

/* The MR goes for good: no WR of it may be in flight. */
static void xrdma_mr_kill(struct xrdma_frwr *frwr, struct xrdma_mr *mr)
{
	lockdep_assert_held(&frwr->mutex);
	xrdma_mr_unmap(frwr, mr);
	if (mr->ibmr)
		ib_dereg_mr(mr->ibmr);
	WRITE_ONCE(mr->ibmr, NULL);
	mr->registered = false;
	mr->peer_invalidated = false;
	mr->state = XRDMA_MR_DEAD;
}

/* Make up to @want MRs onto the free list; returns how many. */
static unsigned int xrdma_frwr_make(struct xrdma_frwr *frwr,
				    unsigned int want)
{
	unsigned int reserved, made;
	struct xrdma_mr *mr;

	lockdep_assert_held(&frwr->mutex);
	reserved = xrdma_frwr_count_reserve(&frwr->count, want);
	for (made = 0; made < reserved; made++) {
		mr = xrdma_mr_alloc(frwr);
		if (IS_ERR(mr))
			break;
		list_add_tail(&mr->node, &frwr->free);
	}
	xrdma_frwr_count_made(&frwr->count, made, reserved);
	return made;
}

static void xrdma_frwr_refill_worker(struct work_struct *work)
{
	struct xrdma_xprt *xprt = container_of(work, struct xrdma_xprt,
					       frwr.refill_work);
	struct xrdma_frwr *frwr = &xprt->frwr;
	unsigned int made = 0;

	mutex_lock(&frwr->mutex);
	if (frwr->pd && frwr->count.free < frwr->count.target)
		made = xrdma_frwr_make(frwr, frwr->count.target -
					     frwr->count.free);
	mutex_unlock(&frwr->mutex);
	spin_lock(&xprt->send_lock);
	xprt->info.mr_refills += made;
	spin_unlock(&xprt->send_lock);
}

/**
 * xrdma_frwr_init() - set up a transport's empty pool
 * @xprt: the transport being made
 *
 * Context: process context.
 */
void xrdma_frwr_init(struct xrdma_xprt *xprt)
{
	struct xrdma_frwr *frwr = &xprt->frwr;

	mutex_init(&frwr->mutex);
	INIT_LIST_HEAD(&frwr->free);
	INIT_LIST_HEAD(&frwr->busy);
	INIT_LIST_HEAD(&frwr->dead);
	INIT_WORK(&frwr->refill_work, xrdma_frwr_refill_worker);
	xrdma_frwr_count_init(&frwr->count, XRDMA_FRWR_TARGET,
			      XRDMA_FRWR_START, XRDMA_FRWR_MAX);
}

/**
 * xrdma_frwr_attach() - give the pool a connection's PD and first MRs
 * @xprt: the transport
 * @ep: its new connection, with a PD
 *
 * Making the first MRs may fail (memory, a device without FRWR): the
 * connection still carries messages, and a registration tries again.
 *
 * Context: process context, may sleep.
 */
void xrdma_frwr_attach(struct xrdma_xprt *xprt, struct xrdma_ep *ep)
{
	struct xrdma_frwr *frwr = &xprt->frwr;
	struct ib_device *dev = ep->id->device;

	mutex_lock(&frwr->mutex);
	frwr->pd = ep->pd;
	frwr->dev = dev;
	frwr->max_pages = min_t(unsigned int, XRDMA_FRWR_PAGES,
				dev->attrs.max_fast_reg_page_list_len);
	xrdma_frwr_count_init(&frwr->count, XRDMA_FRWR_TARGET,
			      XRDMA_FRWR_START, XRDMA_FRWR_MAX);
	if (frwr->max_pages)
		xrdma_frwr_make(frwr, XRDMA_FRWR_START);
	mutex_unlock(&frwr->mutex);
}

/**
 * xrdma_frwr_detach() - destroy a connection's MRs
 * @xprt: the transport
 *
 * Free MRs are destroyed; MRs the user holds are destroyed too and
 * their handles moved to the dead list, for xrdma_mr_release().
 *
 * Context: process context, may sleep; the QP is drained (or never
 * ran), so no REG_MR or LOCAL_INV is in flight; before the PD goes.
 */
void xrdma_frwr_detach(struct xrdma_xprt *xprt)
{
	struct xrdma_frwr *frwr = &xprt->frwr;
	struct xrdma_mr *mr, *next;

	mutex_lock(&frwr->mutex);
	frwr->pd = NULL;
	list_for_each_entry_safe(mr, next, &frwr->free, node) {
		list_del(&mr->node);
		xrdma_mr_kill(frwr, mr);
		xrdma_mr_free(mr);
	}
	list_for_each_entry_safe(mr, next, &frwr->busy, node) {
		xrdma_mr_kill(frwr, mr);
		list_move_tail(&mr->node, &frwr->dead);
	}
	xrdma_frwr_count_init(&frwr->count, XRDMA_FRWR_TARGET,
			      XRDMA_FRWR_START, XRDMA_FRWR_MAX);
	mutex_unlock(&frwr->mutex);
	/* It finds no PD now, if it runs at all. */
	cancel_work_sync(&frwr->refill_work);
}

/**
 * xrdma_frwr_destroy() - free the handles the user never gave back
 * @xprt: the transport, detached, being destroyed
 *
 * Context: process context.
 */
void xrdma_frwr_destroy(struct xrdma_xprt *xprt)
{
	struct xrdma_frwr *frwr = &xprt->frwr;
	struct xrdma_mr *mr, *next;

	mutex_lock(&frwr->mutex);
	list_for_each_entry_safe(mr, next, &frwr->dead, node) {
		list_del(&mr->node);
		xrdma_mr_free(mr);
	}
	mutex_unlock(&frwr->mutex);
	mutex_destroy(&frwr->mutex);
}

/* Lend a free MR, making one if none is; the refill work follows. */
static struct xrdma_mr *xrdma_frwr_get(struct xrdma_frwr *frwr)
{
	struct xrdma_mr *mr;

	mutex_lock(&frwr->mutex);
	if (!frwr->pd) {
		mr = ERR_PTR(-ENOTCONN);
		goto out;
	}
	if (!frwr->count.free && !xrdma_frwr_make(frwr, 1)) {
		mr = ERR_PTR(-ENOMEM);
		goto out;
	}
	mr = list_first_entry(&frwr->free, struct xrdma_mr, node);
	xrdma_frwr_count_take(&frwr->count);
	list_move_tail(&mr->node, &frwr->busy);
	mr->state = XRDMA_MR_BUSY;
	if (xrdma_frwr_count_low(&frwr->count))
		queue_work(xrdma_wq, &frwr->refill_work);
out:
	mutex_unlock(&frwr->mutex);
	return mr;
}

/* Back from the user: to the free list if @ok, else destroyed.  A dead
 * handle (its connection went meanwhile) is simply freed.
 */
static void xrdma_frwr_put(struct xrdma_xprt *xprt, struct xrdma_mr *mr,
			   bool ok)
{
	struct xrdma_frwr *frwr = &xprt->frwr;
	bool dropped = false;

	mutex_lock(&frwr->mutex);
	if (mr->state == XRDMA_MR_DEAD) {
		list_del(&mr->node);
		xrdma_mr_free(mr);
	} else if (ok) {
		xrdma_mr_unmap(frwr, mr);
		mr->state = XRDMA_MR_FREE;
		list_move_tail(&mr->node, &frwr->free);
		xrdma_frwr_count_give(&frwr->count);
	} else {
		list_del(&mr->node);
		xrdma_mr_kill(frwr, mr);
		xrdma_mr_free(mr);
		xrdma_frwr_count_lose(&frwr->count);
		if (xrdma_frwr_count_low(&frwr->count))
			queue_work(xrdma_wq, &frwr->refill_work);
		dropped = true;
	}
	mutex_unlock(&frwr->mutex);
	if (dropped) {
		spin_lock(&xprt->send_lock);
		xprt->info.mr_dropped++;
		spin_unlock(&xprt->send_lock);
	}
}

/* Describe @len bytes at @buf (kmalloc'ed or vmalloc'ed) page by page. */
static int xrdma_mr_set_pages(struct xrdma_frwr *frwr, struct xrdma_mr *mr,
			      void *buf, u32 len)
{
	unsigned int off = offset_in_page(buf), n = 0, chunk;
	u8 *at = buf;
	struct page *page;

	if (DIV_ROUND_UP(off + len, PAGE_SIZE) > frwr->max_pages)
		return -EMSGSIZE;
	sg_init_table(mr->sg, DIV_ROUND_UP(off + len, PAGE_SIZE));
	while (len) {
		chunk = min_t(u32, len, PAGE_SIZE - off);
		page = is_vmalloc_addr(at) ? vmalloc_to_page(at) :
					     virt_to_page(at);
		sg_set_page(&mr->sg[n++], page, chunk, off);
		at += chunk;
		len -= chunk;
		off = 0;
	}
	mr->nents = n;
	return 0;
}

/* Map the pages for DMA and into the MR, with a new key. */
static int xrdma_mr_map(struct xrdma_frwr *frwr, struct xrdma_mr *mr)
{
	int n;

	n = ib_dma_map_sg(frwr->dev, mr->sg, mr->nents, DMA_BIDIRECTIONAL);
	if (!n)
		return -ENOMEM;
	mr->mapped = n;
	if (ib_map_mr_sg(mr->ibmr, mr->sg, n, NULL, PAGE_SIZE) != n)
		return -EIO;
	ib_update_fast_reg_key(mr->ibmr,
			       (u8)xrdma_frwr_next_rkey(mr->ibmr->rkey));
	return 0;
}

static int xrdma_mr_access(struct xrdma_xprt *xprt, bool remote)
{
	int access = IB_ACCESS_LOCAL_WRITE;
	struct xrdma_ep *ep = xprt->ep;

	lockdep_assert_held(&xprt->send_lock);
	if (remote)
		return access | IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE;
	/* The sink of an iWARP RDMA READ is written as if remotely. */
	if (ep && rdma_protocol_iwarp(ep->id->device, ep->id->port_num))
		access |= IB_ACCESS_REMOTE_WRITE;
	return access;
}

/* Under the mutex, while the MR is lent out and mapped: the WR that
 * registers it and what the peer will need to know.
 */
static void xrdma_mr_prep_reg(struct xrdma_mr *mr, int access,
			      struct ib_reg_wr *reg, struct xrdma_remote *desc)
{
	memset(reg, 0, sizeof(*reg));
	reg->wr.opcode = IB_WR_REG_MR;
	reg->mr = mr->ibmr;
	reg->key = mr->ibmr->rkey;
	reg->access = access;
	desc->addr = mr->ibmr->iova;
	desc->rkey = mr->ibmr->rkey;
	desc->len = mr->len;
}

/**
 * xrdma_mr_register_access() - register memory with the given access
 * @xprt: a connected transport
 * @buf: the memory, kmalloc'ed or vmalloc'ed; the device's until
 *	xrdma_mr_release() returns
 * @len: its length, 1 to XRDMA_MAX_RDMA bytes
 * @access: IB_ACCESS_* flags of the registration
 * @desc: gets the address, key and length to advertise
 *
 * Context: process context, may sleep; takes the pool's mutex.
 * Return: as xrdma_mr_register().
 */
struct xrdma_mr *xrdma_mr_register_access(struct xrdma_xprt *xprt,
					  void *buf, u32 len, int access,
					  struct xrdma_remote *desc)
{
	struct xrdma_frwr *frwr = &xprt->frwr;
	struct ib_reg_wr reg;
	struct xrdma_mr *mr;
	bool posted = false;
	int rc;

	if (!len || len > XRDMA_MAX_RDMA)
		return ERR_PTR(-EINVAL);
	mr = xrdma_frwr_get(frwr);
	if (IS_ERR(mr))
		return mr;
	/* Detach turns a lent MR dead under the mutex; past this section
	 * only the WR built here is used, and a post after the drain began
	 * is refused.
	 */
	mutex_lock(&frwr->mutex);
	rc = -ENOTCONN;
	if (mr->state == XRDMA_MR_BUSY) {
		mr->len = len;
		rc = xrdma_mr_set_pages(frwr, mr, buf, len);
		if (!rc)
			rc = xrdma_mr_map(frwr, mr);
		if (!rc)
			xrdma_mr_prep_reg(mr, access, &reg, desc);
	}
	mutex_unlock(&frwr->mutex);
	if (!rc)
		rc = xrdma_wr_wait_post(xprt, &reg.wr, &mr->wait, &posted);
	if (rc) {
		/* Never posted: the device did not see it, the MR is as
		 * good as before.  Failed: its state is unknown.
		 */
		xrdma_frwr_put(xprt, mr, !posted);
		return ERR_PTR(rc);
	}
	mutex_lock(&frwr->mutex);
	if (mr->state == XRDMA_MR_BUSY) {
		mr->registered = true;
		mr->peer_invalidated = false;
	}
	mutex_unlock(&frwr->mutex);
	spin_lock(&xprt->send_lock);
	xprt->info.mr_regs++;
	xprt->info.mr_last_rkey = desc->rkey;
	spin_unlock(&xprt->send_lock);
	return mr;
}

/**
 * xrdma_mr_register() - register memory for RDMA READ and WRITE
 * @xprt: a connected transport
 * @buf: the memory, kmalloc'ed or vmalloc'ed; it belongs to the device
 *	until xrdma_mr_release() returns
 * @len: its length, 1 to XRDMA_MAX_RDMA bytes
 * @remote: the peer may read and write it (to advertise @desc);
 *	otherwise it is local memory for xrdma_rdma()
 * @desc: gets the address, key and length to advertise
 *
 * Each registration carries a new key, so a key the peer kept from an
 * earlier registration of the same MR does not work on this one.
 *
 * Context: process context, may sleep (also from xrdma_ops.recv; not
 * from xrdma_ops.rdma_done, which cannot wait for the REG_MR).
 * Return: the registration, or an ERR_PTR: -EINVAL for a bad length,
 * -EMSGSIZE for more pages than the device maps at once, -ENOTCONN
 * without a connection, -ENOMEM, -EDEADLK from xrdma_ops.rdma_done, or
 * -EIO when the device refused.
 */
struct xrdma_mr *xrdma_mr_register(struct xrdma_xprt *xprt, void *buf,
				   u32 len, bool remote,
				   struct xrdma_remote *desc)
{
	int access;

	spin_lock(&xprt->send_lock);
	access = xrdma_mr_access(xprt, remote);
	spin_unlock(&xprt->send_lock);
	return xrdma_mr_register_access(xprt, buf, len, access, desc);
}
EXPORT_SYMBOL_GPL(xrdma_mr_register);

/**
 * xrdma_mr_lkey() - the local key of a registration
 * @xprt: the transport it was registered on
 * @mr: the registration
 * @lkey: set to its key for a local scatter entry
 *
 * Context: process context, may sleep; takes the pool's mutex.
 * Return: 0, or -ENOTCONN when its connection went (the MR is gone).
 */
int xrdma_mr_lkey(struct xrdma_xprt *xprt, struct xrdma_mr *mr, u32 *lkey)
{
	struct xrdma_frwr *frwr = &xprt->frwr;
	int rc = -ENOTCONN;

	mutex_lock(&frwr->mutex);
	if (mr->state == XRDMA_MR_BUSY && mr->registered) {
		*lkey = mr->ibmr->lkey;
		rc = 0;
	}
	mutex_unlock(&frwr->mutex);
	return rc;
}

/**
 * xrdma_frwr_remote_inv() - the peer invalidated one of our keys
 * @xprt: the transport
 * @rkey: the key, from a receive completion with IB_WC_WITH_INVALIDATE
 *
 * The device has invalidated the MR already: its release must not post
 * a LOCAL_INV.  A key no registration of ours holds (one we released
 * meanwhile) needs nothing: its MR is invalid either way.
 *
 * Context: process context (the receive CQ's work item), may sleep;
 * takes the pool's mutex.
 * Return: true if a registration of ours held @rkey.
 */
bool xrdma_frwr_remote_inv(struct xrdma_xprt *xprt, u32 rkey)
{
	struct xrdma_frwr *frwr = &xprt->frwr;
	struct xrdma_mr *mr;
	bool found = false;

	mutex_lock(&frwr->mutex);
	list_for_each_entry(mr, &frwr->busy, node) {
		if (mr->registered && mr->ibmr && mr->ibmr->rkey == rkey) {
			mr->registered = false;
			mr->peer_invalidated = true;
			found = true;
			break;
		}
	}
	mutex_unlock(&frwr->mutex);
	if (found) {
		spin_lock(&xprt->send_lock);
		xprt->info.mr_remote_invs++;
		spin_unlock(&xprt->send_lock);
	}
	return found;
}

/**
 * xrdma_mr_release() - invalidate a registration and give its MR back
 * @xprt: the transport it was registered on
 * @mr: the registration; the handle is gone on return
 *
 * The key stops working before the MR can serve anyone else: by a
 * LOCAL_INV, unless the peer invalidated it already with a
 * SEND_WITH_INV.  If the invalidation cannot be done (the connection is
 * going, or the caller is xrdma_ops.rdma_done, which cannot wait for
 * it) or fails, the MR is destroyed instead.  Also frees a handle
 * whose connection ended.
 *
 * Context: process context, may sleep; no xrdma_rdma() on @mr may be
 * in flight.
 */
void xrdma_mr_release(struct xrdma_xprt *xprt, struct xrdma_mr *mr)
{
	struct ib_send_wr inv = { .opcode = IB_WR_LOCAL_INV };
	struct xrdma_frwr *frwr = &xprt->frwr;
	bool posted, needed, skipped;
	int rc = 0;

	mutex_lock(&frwr->mutex);
	needed = mr->state == XRDMA_MR_BUSY && mr->registered;
	skipped = mr->state == XRDMA_MR_BUSY && mr->peer_invalidated;
	if (needed)
		inv.ex.invalidate_rkey = mr->ibmr->rkey;
	mr->registered = false;
	mr->peer_invalidated = false;
	mutex_unlock(&frwr->mutex);
	if (skipped) {
		spin_lock(&xprt->send_lock);
		xprt->info.mr_invs_skipped++;
		spin_unlock(&xprt->send_lock);
	}
	if (needed) {
		rc = xrdma_wr_wait_post(xprt, &inv, &mr->wait, &posted);
		if (!rc) {
			spin_lock(&xprt->send_lock);
			xprt->info.mr_invs++;
			spin_unlock(&xprt->send_lock);
		}
	}
	xrdma_frwr_put(xprt, mr, !rc);
}
EXPORT_SYMBOL_GPL(xrdma_mr_release);
