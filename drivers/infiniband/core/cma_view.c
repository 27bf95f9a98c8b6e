// SPDX-License-Identifier: GPL-2.0
/*
 * The listing of ids (/sys/kernel/debug/rdma_cm/ids): a snapshot of one
 * id taken under the locks that guard its parts, and the line that shows
 * it. The line is key=value fields separated by single spaces, values
 * without spaces, so that a script can split it and a person can read it.
 */

#include <linux/jiffies.h>
#include <linux/socket.h>
#include <rdma/ib_verbs.h>

#include "cma_priv.h"

/*
 * A line is at most: id 14, state 21, two addresses of 60, ps 9,
 * qp_type 16, qpn 15, dev 68, port 16, owner 22, pid 16, age_ms 18,
 * tos 8.
 */

static const char *cma_view_ps(enum rdma_ucm_port_space ps)
{
	switch (ps) {
	case RDMA_PS_TCP:
		return "TCP";
	case RDMA_PS_UDP:
		return "UDP";
	case RDMA_PS_IPOIB:
		return "IPOIB";
	case RDMA_PS_IB:
		return "IB";
	}
	return "other";
}

static const char *cma_view_qp_type(enum ib_qp_type qp_type)
{
	switch (qp_type) {
	case IB_QPT_RC:
		return "RC";
	case IB_QPT_UC:
		return "UC";
	case IB_QPT_UD:
		return "UD";
	case IB_QPT_XRC_INI:
		return "XRC_INI";
	case IB_QPT_XRC_TGT:
		return "XRC_TGT";
	default:
		return "other";
	}
}

/*
 * An IP address with its port; an AF_IB one as its GID in brackets and its
 * service ID in hex, "[fe80::2]:0x0000000001061234"; "-" for none.
 */
static void cma_view_addr(char *buf, size_t size,
			  const struct sockaddr_storage *ss)
{
	const struct sockaddr_ib *sib = (const struct sockaddr_ib *)ss;

	if (ss->ss_family == AF_INET || ss->ss_family == AF_INET6)
		snprintf(buf, size, "%pISpc", ss);
	else if (ss->ss_family == AF_IB)
		snprintf(buf, size, "[%pI6c]:0x%016llx", &sib->sib_addr,
			 be64_to_cpu(sib->sib_sid));
	else
		strscpy(buf, "-", size);
}

/*
 * A name as one field: blanks, '=' and unprintable bytes would split it
 * or confuse a parser, so they become '_'; nothing at all becomes "-".
 */
static void cma_view_word(char *buf, size_t size, const char *name)
{
	size_t i;

	if (!*name) {
		strscpy(buf, "-", size);
		return;
	}
	for (i = 0; i + 1 < size && name[i]; i++)
		buf[i] = (name[i] > ' ' && name[i] < 0x7f && name[i] != '=') ?
			 name[i] : '_';
	buf[i] = '\0';
}

/**
 * cma_id_view_format - the line of the listing of ids for one snapshot
 * @buf: where to write the line, with its newline and terminating NUL
 * @size: size of @buf
 * @v: the snapshot
 *
 * The fields, in the order of CMA_ID_VIEW_HEADER: id, state (as
 * cma_state_name()), src and dst (address:port, IPv6 in brackets; AF_IB
 * as [GID]:0x<service ID in 16 hex digits>; "-" when unset), ps,
 * qp_type, qpn, dev ("-" when unbound), port, owner,
 * pid, age_ms, tos.
 *
 * Context: any; a pure function of its arguments.
 * Return: the length of the line, or -ENOSPC if @buf is too small for it.
 */
int cma_id_view_format(char *buf, size_t size, const struct cma_id_view *v)
{
	char src[64], dst[64], dev[IB_DEVICE_NAME_MAX], owner[TASK_COMM_LEN];
	int len;

	cma_view_addr(src, sizeof(src), &v->src);
	cma_view_addr(dst, sizeof(dst), &v->dst);
	cma_view_word(dev, sizeof(dev), v->dev);
	cma_view_word(owner, sizeof(owner), v->owner);
	len = snprintf(buf, size,
		       "id=%u state=%s src=%s dst=%s ps=%s qp_type=%s qpn=%u dev=%s port=%u owner=%s pid=%d age_ms=%u tos=%u\n",
		       v->handle, cma_state_name(v->state), src, dst,
		       cma_view_ps(v->ps), cma_view_qp_type(v->qp_type),
		       v->qp_num, dev, v->port, owner, v->pid, v->age_ms,
		       v->tos);
	return len < size ? len : -ENOSPC;
}
EXPORT_SYMBOL_IF_KUNIT(cma_id_view_format);

/*
 * The device, from under cma_lock: an id is on its device's list of ids
 * exactly while it holds the device, and the device cannot go before the
 * id lets go of it, which takes cma_lock. A RoCE id that set no type of
 * service uses its port's default.
 */
static void cma_view_device(struct cma_id *cid, struct cma_id_view *v)
{
	mutex_lock(&cma_lock);
	if (!list_empty(&cid->device_entry)) {
		strscpy(v->dev, dev_name(&cid->cma_dev->device->dev),
			sizeof(v->dev));
		v->port = cid->id.port_num;
		if (!READ_ONCE(cid->tos_set) &&
		    rdma_protocol_roce(cid->cma_dev->device, v->port))
			v->tos = cma_default_roce_tos(cid->cma_dev, v->port);
	}
	mutex_unlock(&cma_lock);
}

/**
 * cma_id_view_take - take a snapshot of an id for the listing of ids
 * @cid: the id; the caller holds a reference on it
 * @v: the snapshot
 *
 * The state and the time it was entered are read together under the
 * id's spinlock, the device under cma_lock, the QP under the id's
 * qp_mutex. The addresses are copied without a lock: the handler mutex,
 * which guards them, may be held for as long as a consumer likes, and a
 * listing must not wait for it. An address being changed as it is read
 * may show half old, half new.
 *
 * Context: process context; takes cma_lock, then @cid->qp_mutex, each
 * alone; must not hold either.
 */
void cma_id_view_take(struct cma_id *cid, struct cma_id_view *v)
{
	unsigned long flags, since;

	memset(v, 0, sizeof(*v));
	v->handle = cid->handle;
	spin_lock_irqsave(&cid->lock, flags);
	v->state = cid->state;
	since = cid->state_since;
	spin_unlock_irqrestore(&cid->lock, flags);
	v->age_ms = jiffies_to_msecs(jiffies - since);

	memcpy(&v->src, cma_src_addr(cid), sizeof(v->src));
	memcpy(&v->dst, cma_dst_addr(cid), sizeof(v->dst));
	v->ps = cid->id.ps;
	v->qp_type = cid->id.qp_type;
	strscpy(v->owner, cid->owner, sizeof(v->owner));
	v->pid = cid->pid;
	v->tos = READ_ONCE(cid->tos);

	cma_view_device(cid, v);

	mutex_lock(&cid->qp_mutex);
	v->qp_num = cid->id.qp ? cid->id.qp->qp_num : READ_ONCE(cid->qp_num);
	mutex_unlock(&cid->qp_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(cma_id_view_take);
