// SPDX-License-Identifier: GPL-2.0
/*
 * A fake InfiniBand device for the KUnit suites (see cma_test.h): enough
 * of a driver for ib_core to register it and fill its GID and P_Key
 * caches. One port, GIDs IBDEV_GUID on IBDEV_SUBNET_LOCAL and
 * IBDEV_SUBNET_SITE, P_Keys IBDEV_PKEY_DEFAULT and IBDEV_PKEY_LIMITED.
 * It has no MAD ports, so ib_cm and ib_sa leave it alone: it serves
 * binding, resolution and QP attributes, not connections.
 *
 * Beside it, a fake iWARP device (cma_test_iwdev_add()): the same port,
 * speaking the iWARP CM over the loopback netdev, whose listens only
 * call the test's hook.
 */

#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "cma_test.h"

static const u64 fake_subnets[] = { IBDEV_SUBNET_LOCAL, IBDEV_SUBNET_SITE };
static const u16 fake_pkeys[] = { IBDEV_PKEY_DEFAULT, IBDEV_PKEY_LIMITED };

/**
 * cma_test_set_gid - write a GID
 * @addr: the GID
 * @subnet: its subnet prefix
 * @guid: its interface ID
 */
void cma_test_set_gid(struct ib_addr *addr, u64 subnet, u64 guid)
{
	addr->sib_subnet_prefix = cpu_to_be64(subnet);
	addr->sib_interface_id = cpu_to_be64(guid);
}

static int fake_query_device(struct ib_device *device,
			     struct ib_device_attr *attr, struct ib_udata *udata)
{
	return 0;
}

static int fake_query_port(struct ib_device *device, u32 port,
			   struct ib_port_attr *attr)
{
	attr->state = IB_PORT_ACTIVE;
	attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = IB_MTU_4096;
	attr->gid_tbl_len = ARRAY_SIZE(fake_subnets);
	attr->pkey_tbl_len = ARRAY_SIZE(fake_pkeys);
	attr->lid = 1;
	attr->sm_lid = 1;
	return 0;
}

static int fake_get_port_immutable(struct ib_device *device, u32 port,
				   struct ib_port_immutable *immutable)
{
	/* InfiniBand with the IB CM, but no MAD: nothing opens its QP1. */
	immutable->core_cap_flags = RDMA_CORE_CAP_PROT_IB |
				    RDMA_CORE_CAP_IB_CM;
	immutable->gid_tbl_len = ARRAY_SIZE(fake_subnets);
	immutable->pkey_tbl_len = ARRAY_SIZE(fake_pkeys);
	return 0;
}

static int fake_query_gid(struct ib_device *device, u32 port, int index,
			  union ib_gid *gid)
{
	cma_test_set_gid((struct ib_addr *)gid, fake_subnets[index], IBDEV_GUID);
	return 0;
}

static int fake_query_pkey(struct ib_device *device, u32 port, u16 index,
			   u16 *pkey)
{
	*pkey = fake_pkeys[index];
	return 0;
}

/* The verbs ib_core insists on; nothing here creates objects. */
static int fake_no_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int fake_no_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int fake_no_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int fake_no_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
		      struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int fake_no_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			     int mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int fake_no_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int fake_no_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			const struct ib_send_wr **bad)
{
	return -EOPNOTSUPP;
}

static int fake_no_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad)
{
	return -EOPNOTSUPP;
}

static int fake_no_poll(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	return 0;
}

static int fake_no_notify(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return -EOPNOTSUPP;
}

static struct ib_mr *fake_no_dma_mr(struct ib_pd *pd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *fake_no_user_mr(struct ib_pd *pd, u64 start, u64 length,
				     u64 virt, int access,
				     struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int fake_no_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static const struct ib_device_ops fake_ibdev_ops = {
	.owner = THIS_MODULE,
	.query_device = fake_query_device,
	.query_port = fake_query_port,
	.get_port_immutable = fake_get_port_immutable,
	.query_gid = fake_query_gid,
	.query_pkey = fake_query_pkey,
	.alloc_pd = fake_no_pd,
	.dealloc_pd = fake_no_pd,
	.create_cq = fake_no_cq,
	.destroy_cq = fake_no_destroy_cq,
	.create_qp = fake_no_qp,
	.modify_qp = fake_no_modify_qp,
	.destroy_qp = fake_no_destroy_qp,
	.post_send = fake_no_send,
	.post_recv = fake_no_recv,
	.poll_cq = fake_no_poll,
	.req_notify_cq = fake_no_notify,
	.get_dma_mr = fake_no_dma_mr,
	.reg_user_mr = fake_no_user_mr,
	.dereg_mr = fake_no_dereg_mr,
};

static int fake_iw_port_immutable(struct ib_device *device, u32 port,
				  struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	/* As many as the port's attributes say. */
	immutable->gid_tbl_len = ARRAY_SIZE(fake_subnets);
	immutable->pkey_tbl_len = ARRAY_SIZE(fake_pkeys);
	return 0;
}

/* What the iWARP device's listen calls; set before the device exists. */
static void (*fake_iw_listen_hook)(void);

static int fake_iw_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	fake_iw_listen_hook();
	return 0;
}

static int fake_iw_destroy_listen(struct iw_cm_id *cm_id)
{
	return 0;
}

static const struct ib_device_ops fake_iwdev_ops = {
	.get_port_immutable = fake_iw_port_immutable,
	.iw_create_listen = fake_iw_create_listen,
	.iw_destroy_listen = fake_iw_destroy_listen,
};

static struct ib_device *cma_test_dev_add(u8 type,
					  const struct ib_device_ops *more,
					  const char *name,
					  struct net_device *ndev)
{
	struct ib_device *device;
	int ret;

	device = _ib_alloc_device(sizeof(*device));
	if (!device)
		return ERR_PTR(-ENOMEM);
	device->node_type = type;
	device->phys_port_cnt = 1;
	device->num_comp_vectors = 1;
	/* An op already set stays: the device's own ones go first. */
	if (more)
		ib_set_device_ops(device, more);
	ib_set_device_ops(device, &fake_ibdev_ops);
	/* An iWARP port's state is its netdev's. */
	ret = ndev ? ib_device_set_netdev(device, ndev, 1) : 0;
	if (!ret)
		ret = ib_register_device(device, name, NULL);
	if (ret) {
		ib_dealloc_device(device);
		return ERR_PTR(ret);
	}
	return device;
}

/**
 * cma_test_iwdev_add - register a fake iWARP device
 * @listen: called by each listen made on the device, in the caller's
 *	context
 *
 * Remove it with cma_test_ibdev_remove().
 *
 * Context: process context; may sleep.
 * Return: the device, or an ERR_PTR.
 */
struct ib_device *cma_test_iwdev_add(void (*listen)(void))
{
	fake_iw_listen_hook = listen;
	return cma_test_dev_add(RDMA_NODE_RNIC, &fake_iwdev_ops, "kunit_iw%d",
				init_net.loopback_dev);
}

/**
 * cma_test_ibdev_add - register the fake InfiniBand device
 *
 * Context: process context (a suite's init); may sleep.
 * Return: the device, or an ERR_PTR.
 */
struct ib_device *cma_test_ibdev_add(void)
{
	return cma_test_dev_add(RDMA_NODE_IB_CA, NULL, "kunit_ib%d", NULL);
}

/**
 * cma_test_ibdev_remove - unregister a fake device
 * @device: what cma_test_ibdev_add() gave, or an ERR_PTR
 *
 * Context: process context; no id may be bound to it any more (the
 * unregistration would wait for its destruction).
 */
void cma_test_ibdev_remove(struct ib_device *device)
{
	if (IS_ERR_OR_NULL(device))
		return;
	ib_unregister_device(device);
	ib_dealloc_device(device);
}
