// SPDX-License-Identifier: GPL-2.0
/*
 * Human-readable names of events and reject reasons, for consumers' logs.
 */

#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>

#include "cma_priv.h"

static const char * const cma_event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED]	 = "address resolved",
	[RDMA_CM_EVENT_ADDR_ERROR]	 = "address error",
	[RDMA_CM_EVENT_ROUTE_RESOLVED]	 = "route resolved",
	[RDMA_CM_EVENT_ROUTE_ERROR]	 = "route error",
	[RDMA_CM_EVENT_CONNECT_REQUEST]	 = "connect request",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "connect response",
	[RDMA_CM_EVENT_CONNECT_ERROR]	 = "connect error",
	[RDMA_CM_EVENT_UNREACHABLE]	 = "unreachable",
	[RDMA_CM_EVENT_REJECTED]	 = "rejected",
	[RDMA_CM_EVENT_ESTABLISHED]	 = "established",
	[RDMA_CM_EVENT_DISCONNECTED]	 = "disconnected",
	[RDMA_CM_EVENT_DEVICE_REMOVAL]	 = "device removal",
	[RDMA_CM_EVENT_MULTICAST_JOIN]	 = "multicast join",
	[RDMA_CM_EVENT_MULTICAST_ERROR]	 = "multicast error",
	[RDMA_CM_EVENT_ADDR_CHANGE]	 = "address change",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT]	 = "timewait exit",
	[RDMA_CM_EVENT_ADDRINFO_RESOLVED] = "address info resolved",
	[RDMA_CM_EVENT_ADDRINFO_ERROR]	 = "address info error",
};

/**
 * rdma_event_msg - name of a CM event
 * @event: the event type
 *
 * Context: any.
 * Return: a constant string; "unrecognized event" for a value that is not
 * an enum rdma_cm_event_type.
 */
const char *__attribute_const__ rdma_event_msg(enum rdma_cm_event_type event)
{
	unsigned int i = event;

	if (i < ARRAY_SIZE(cma_event_names) && cma_event_names[i])
		return cma_event_names[i];
	return "unrecognized event";
}

/**
 * rdma_reject_msg - name of the reason a connection was rejected
 * @id: the id that got the REJECTED event; its transport decides how
 *	@reason is read
 * @reason: the status field of the REJECTED event: an IB CM reject reason
 *	on InfiniBand and RoCE, a negative errno on iWARP
 *
 * Context: any.
 * Return: a constant string; "unrecognized transport" if @id is not bound
 * to a device.
 */
const char *__attribute_const__ rdma_reject_msg(struct rdma_cm_id *id,
						int reason)
{
	if (!id->device)
		return "unrecognized transport";
	if (rdma_ib_or_roce(id->device, id->port_num))
		return ibcm_reject_msg(reason);
	if (rdma_protocol_iwarp(id->device, id->port_num))
		return iwcm_reject_msg(reason);
	return "unrecognized transport";
}
