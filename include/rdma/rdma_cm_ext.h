/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What this connection manager offers beyond Linux 6.1's <rdma/rdma_cm.h>.
 *
 * Everything here is additive: a consumer that only uses the 6.1 API never
 * needs this header.
 */
#ifndef _RDMA_CM_EXT_H
#define _RDMA_CM_EXT_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

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
 * @RDMA_CM_ADDRINFO_QUERY: IB service record resolution in flight
 * @RDMA_CM_ADDRINFO_RESOLVED: service records known
 * @RDMA_CM_NR_STATES: the number of states
 *
 * The numbering is the in-box module's (newer kernels append the two
 * ADDRINFO states): user space sees these numbers (rdma resource show
 * cm_id), so they never change.
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
	RDMA_CM_ADDRINFO_QUERY,
	RDMA_CM_ADDRINFO_RESOLVED,
	RDMA_CM_NR_STATES
};

/*
 * Events newer than 6.1, numbered after its last one as newer kernels do:
 * the result of rdma_resolve_ib_service().
 */
#define RDMA_CM_EVENT_ADDRINFO_RESOLVED \
	((enum rdma_cm_event_type)(RDMA_CM_EVENT_TIMEWAIT_EXIT + 1))
#define RDMA_CM_EVENT_ADDRINFO_ERROR \
	((enum rdma_cm_event_type)(RDMA_CM_EVENT_TIMEWAIT_EXIT + 2))

#define RDMA_UCM_IB_SERVICE_FLAG_ID	BIT(0)
#define RDMA_UCM_IB_SERVICE_FLAG_NAME	BIT(1)
#define RDMA_UCM_IB_SERVICE_NAME_SIZE	64

/**
 * struct rdma_ucm_ib_service - what rdma_resolve_ib_service() looks for
 * @service_id: the service ID, if @flags has RDMA_UCM_IB_SERVICE_FLAG_ID
 * @service_name: the service name, NUL-padded, if @flags has
 *	RDMA_UCM_IB_SERVICE_FLAG_NAME
 * @flags: which of the two to match; at least one
 * @reserved: zero
 */
struct rdma_ucm_ib_service {
	__u64 service_id;
	__u8 service_name[RDMA_UCM_IB_SERVICE_NAME_SIZE];
	__u32 flags;
	__u32 reserved;
};

/**
 * struct rdma_ib_service_rec - one IB service record, as the SA gave it
 * @id: service ID
 * @gid: the GID of the port that offers the service
 * @pkey: its partition key
 * @lease: seconds the record stays valid
 * @key: service key
 * @name: service name, NUL-padded
 * @data8: service data
 * @data16: service data
 * @data32: service data
 * @data64: service data
 */
struct rdma_ib_service_rec {
	u64 id;
	union ib_gid gid;
	u16 pkey;
	u32 lease;
	u8 key[16];
	u8 name[RDMA_UCM_IB_SERVICE_NAME_SIZE];
	u8 data8[16];
	u16 data16[8];
	u32 data32[4];
	u64 data64[2];
};

int rdma_restrict_node_type(struct rdma_cm_id *id, u8 node_type);
int rdma_resolve_ib_service(struct rdma_cm_id *id,
			    struct rdma_ucm_ib_service *ibs);
int rdma_ib_service_recs(struct rdma_cm_id *id,
			 const struct rdma_ib_service_rec **recs);

#endif /* _RDMA_CM_EXT_H */
