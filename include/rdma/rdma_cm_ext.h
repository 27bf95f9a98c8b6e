/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What this connection manager offers beyond Linux 6.1's <rdma/rdma_cm.h>.
 *
 * Include it after <rdma/rdma_cm.h>. Everything here is additive: a
 * consumer that only uses the 6.1 API never needs this header.
 */
#ifndef _RDMA_CM_EXT_H
#define _RDMA_CM_EXT_H

#include <linux/compiler.h>
#include <linux/types.h>

/*
 * A module built with this header expects this rdma_cm, not the in-box
 * one, which lacks these calls. Every such module references the symbol
 * below, so that against the in-box CM it fails to load with a message
 * that names the reason ("Unknown symbol
 * rdma_cm_ext_requires_out_of_tree_rdma_cm") instead of failing later, or
 * on whichever extension it happens to call first.
 */
extern const unsigned int rdma_cm_ext_requires_out_of_tree_rdma_cm;
static const unsigned int *const rdma_cm_ext_requirement __used =
	&rdma_cm_ext_requires_out_of_tree_rdma_cm;

/**
 * enum rdma_cm_state - where an rdma_cm_id is in its life
 * @RDMA_CM_IDLE: created, nothing bound yet
 * @RDMA_CM_ADDR_QUERY: address resolution in flight
 * @RDMA_CM_ADDR_RESOLVED: source and destination known, device bound
 * @RDMA_CM_ROUTE_QUERY: route resolution in flight
 * @RDMA_CM_ROUTE_RESOLVED: ready to connect
 * @RDMA_CM_CONNECT: connection being set up, or established
 * @RDMA_CM_DISCONNECT: the connection was torn down
 * @RDMA_CM_ADDR_BOUND: a local address (and port) is bound
 * @RDMA_CM_LISTEN: waiting for connection requests
 * @RDMA_CM_DEVICE_REMOVAL: the bound device is going away
 * @RDMA_CM_DESTROYING: being destroyed; no event is delivered any more
 *
 * The numbering is the in-box module's: user space sees these numbers
 * (rdma resource show cm_id), so they never change.
 */
enum rdma_cm_state {
	RDMA_CM_IDLE,
	RDMA_CM_ADDR_QUERY,
	RDMA_CM_ADDR_RESOLVED,
	RDMA_CM_ROUTE_QUERY,
	RDMA_CM_ROUTE_RESOLVED,
	RDMA_CM_CONNECT,
	RDMA_CM_DISCONNECT,
	RDMA_CM_ADDR_BOUND,
	RDMA_CM_LISTEN,
	RDMA_CM_DEVICE_REMOVAL,
	RDMA_CM_DESTROYING,
	RDMA_CM_NR_STATES
};

struct rdma_cm_id;

int rdma_restrict_node_type(struct rdma_cm_id *id, u8 node_type);

#endif /* _RDMA_CM_EXT_H */
