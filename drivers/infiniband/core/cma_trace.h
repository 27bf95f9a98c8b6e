/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the connection manager, under events/rdma_cma/: the
 * in-box module's system, with its events and their fields (names, types
 * and order), so that "trace-cmd record -e rdma_cma" and bpftrace scripts
 * written for it work unchanged. An id is named by its handle, the
 * number listings show, where the in-box module has its restrack id.
 * Events of ours alone follow them: cm_id_create, cm_state, cm_fault.
 *
 * The in-box module defines the same system: only one of the two CMs can
 * be loaded at a time anyway.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rdma_cma

#if !defined(_CMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CMA_TRACE_H

#include <linux/in6.h>
#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ext.h>
#include <trace/misc/rdma.h>

#include "cma_priv.h"

/* The addresses are recorded as raw bytes, as many as an IPv6 one. */
#define CMA_TRACE_ADDR_LEN	sizeof(struct sockaddr_in6)

#ifndef _CMA_TRACE_ADDRS
#define _CMA_TRACE_ADDRS
static inline void cma_trace_addrs(unsigned char *src, unsigned char *dst,
				   const struct cma_id *cid)
{
	memcpy(src, &cid->id.route.addr.src_addr, CMA_TRACE_ADDR_LEN);
	memcpy(dst, &cid->id.route.addr.dst_addr, CMA_TRACE_ADDR_LEN);
}
#endif

/* An id's step on the wire or in its life: who, where, which tos. */
DECLARE_EVENT_CLASS(cma_fsm_class,
	TP_PROTO(const struct cma_id *cid),
	TP_ARGS(cid),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, tos)
		__array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
		__array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)
	),
	TP_fast_assign(
		__entry->cm_id = cid->handle;
		__entry->tos = cid->tos;
		cma_trace_addrs(__entry->srcaddr, __entry->dstaddr, cid);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u", __entry->cm_id,
		  __entry->srcaddr, __entry->dstaddr, __entry->tos)
);

#define CMA_FSM_EVENT(name)						\
	DEFINE_EVENT(cma_fsm_class, cm_##name,				\
		TP_PROTO(const struct cma_id *cid),			\
		TP_ARGS(cid))

CMA_FSM_EVENT(send_rtu);
CMA_FSM_EVENT(send_rej);
CMA_FSM_EVENT(send_mra);
CMA_FSM_EVENT(send_sidr_req);
CMA_FSM_EVENT(send_sidr_rep);
CMA_FSM_EVENT(disconnect);
CMA_FSM_EVENT(sent_drep);
CMA_FSM_EVENT(sent_dreq);
CMA_FSM_EVENT(id_destroy);
/* Ours alone. */
CMA_FSM_EVENT(id_create);

TRACE_EVENT(cm_id_attach,
	TP_PROTO(const struct cma_id *cid, const struct ib_device *device),
	TP_ARGS(cid, device),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
		__array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)
		__string(devname, device->name)
	),
	TP_fast_assign(
		__entry->cm_id = cid->handle;
		cma_trace_addrs(__entry->srcaddr, __entry->dstaddr, cid);
		__assign_str(devname, device->name);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc device=%s", __entry->cm_id,
		  __entry->srcaddr, __entry->dstaddr, __get_str(devname))
);

/* As cma_fsm_class, with the QP number. */
DECLARE_EVENT_CLASS(cma_qp_class,
	TP_PROTO(const struct cma_id *cid),
	TP_ARGS(cid),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, tos)
		__field(u32, qp_num)
		__array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
		__array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)
	),
	TP_fast_assign(
		__entry->cm_id = cid->handle;
		__entry->tos = cid->tos;
		__entry->qp_num = cid->qp_num;
		cma_trace_addrs(__entry->srcaddr, __entry->dstaddr, cid);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u qp_num=%u",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __entry->tos, __entry->qp_num)
);

#define CMA_QP_EVENT(name)						\
	DEFINE_EVENT(cma_qp_class, cm_##name,				\
		TP_PROTO(const struct cma_id *cid),			\
		TP_ARGS(cid))

CMA_QP_EVENT(send_req);
CMA_QP_EVENT(send_rep);
CMA_QP_EVENT(qp_destroy);

TRACE_DEFINE_ENUM(IB_QPT_SMI);
TRACE_DEFINE_ENUM(IB_QPT_GSI);
TRACE_DEFINE_ENUM(IB_QPT_RC);
TRACE_DEFINE_ENUM(IB_QPT_UC);
TRACE_DEFINE_ENUM(IB_QPT_UD);
TRACE_DEFINE_ENUM(IB_QPT_RAW_IPV6);
TRACE_DEFINE_ENUM(IB_QPT_RAW_ETHERTYPE);
TRACE_DEFINE_ENUM(IB_QPT_RAW_PACKET);
TRACE_DEFINE_ENUM(IB_QPT_XRC_INI);
TRACE_DEFINE_ENUM(IB_QPT_XRC_TGT);

#define cma_show_qp_type(t)						\
	__print_symbolic(t,						\
		{ IB_QPT_SMI, "SMI" }, { IB_QPT_GSI, "GSI" },		\
		{ IB_QPT_RC, "RC" }, { IB_QPT_UC, "UC" },		\
		{ IB_QPT_UD, "UD" }, { IB_QPT_RAW_IPV6, "RAW_IPV6" },	\
		{ IB_QPT_RAW_ETHERTYPE, "RAW_ETHERTYPE" },		\
		{ IB_QPT_RAW_PACKET, "RAW_PACKET" },			\
		{ IB_QPT_XRC_INI, "XRC_INI" },				\
		{ IB_QPT_XRC_TGT, "XRC_TGT" })

/* rdma_create_qp(): @rc is its result; the QP's number and type if 0. */
TRACE_EVENT(cm_qp_create,
	TP_PROTO(const struct cma_id *cid, const struct ib_pd *pd,
		 const struct ib_qp_init_attr *attr, int rc),
	TP_ARGS(cid, pd, attr, rc),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, pd_id)
		__field(u32, tos)
		__field(u32, qp_num)
		__field(u32, send_wr)
		__field(u32, recv_wr)
		__field(int, rc)
		__field(unsigned long, qp_type)
		__array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
		__array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)
	),
	TP_fast_assign(
		__entry->cm_id = cid->handle;
		__entry->pd_id = pd->res.id;
		__entry->tos = cid->tos;
		__entry->qp_num = rc ? 0 : cid->qp_num;
		__entry->send_wr = attr->cap.max_send_wr;
		__entry->recv_wr = attr->cap.max_recv_wr;
		__entry->rc = rc;
		__entry->qp_type = rc ? 0 : cid->id.qp_type;
		cma_trace_addrs(__entry->srcaddr, __entry->dstaddr, cid);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u pd.id=%u qp_type=%s send_wr=%u recv_wr=%u qp_num=%u rc=%d",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __entry->tos, __entry->pd_id,
		  cma_show_qp_type(__entry->qp_type), __entry->send_wr,
		  __entry->recv_wr, __entry->qp_num, __entry->rc)
);

/* A REQ or SIDR REQ found its listener, @cid. */
TRACE_EVENT(cm_req_handler,
	TP_PROTO(const struct cma_id *cid, int event),
	TP_ARGS(cid, event),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, tos)
		__field(unsigned long, event)
		__array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
		__array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)
	),
	TP_fast_assign(
		__entry->cm_id = cid->handle;
		__entry->tos = cid->tos;
		__entry->event = event;
		cma_trace_addrs(__entry->srcaddr, __entry->dstaddr, cid);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u %s (%lu)",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __entry->tos, rdma_show_ib_cm_event(__entry->event),
		  __entry->event)
);

/* Before the consumer's handler runs. */
TRACE_EVENT(cm_event_handler,
	TP_PROTO(const struct cma_id *cid, const struct rdma_cm_event *event),
	TP_ARGS(cid, event),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, tos)
		__field(unsigned long, event)
		__field(int, status)
		__array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
		__array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)
	),
	TP_fast_assign(
		__entry->cm_id = cid->handle;
		__entry->tos = cid->tos;
		__entry->event = event->event;
		__entry->status = event->status;
		cma_trace_addrs(__entry->srcaddr, __entry->dstaddr, cid);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u %s (%lu/%d)",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __entry->tos, rdma_show_cm_event(__entry->event),
		  __entry->event, __entry->status)
);

/* After it returned @result, its verdict. */
TRACE_EVENT(cm_event_done,
	TP_PROTO(const struct cma_id *cid, const struct rdma_cm_event *event,
		 int result),
	TP_ARGS(cid, event, result),
	TP_STRUCT__entry(
		__field(u32, cm_id)
		__field(u32, tos)
		__field(unsigned long, event)
		__field(int, result)
		__array(unsigned char, srcaddr, CMA_TRACE_ADDR_LEN)
		__array(unsigned char, dstaddr, CMA_TRACE_ADDR_LEN)
	),
	TP_fast_assign(
		__entry->cm_id = cid->handle;
		__entry->tos = cid->tos;
		__entry->event = event->event;
		__entry->result = result;
		cma_trace_addrs(__entry->srcaddr, __entry->dstaddr, cid);
	),
	TP_printk("cm.id=%u src=%pISpc dst=%pISpc tos=%u %s consumer returns %d",
		  __entry->cm_id, __entry->srcaddr, __entry->dstaddr,
		  __entry->tos, rdma_show_cm_event(__entry->event),
		  __entry->result)
);

/* The CM's ib_client: a device came or went. */
DECLARE_EVENT_CLASS(cma_client_class,
	TP_PROTO(const struct ib_device *device),
	TP_ARGS(device),
	TP_STRUCT__entry(
		__string(name, device->name)
	),
	TP_fast_assign(
		__assign_str(name, device->name);
	),
	TP_printk("device name=%s", __get_str(name))
);

DEFINE_EVENT(cma_client_class, cm_add_one,
	TP_PROTO(const struct ib_device *device),
	TP_ARGS(device));

DEFINE_EVENT(cma_client_class, cm_remove_one,
	TP_PROTO(const struct ib_device *device),
	TP_ARGS(device));

#define cma_show_state(s)						\
	__print_symbolic(s,						\
		{ RDMA_CM_IDLE, "IDLE" },				\
		{ RDMA_CM_ADDR_QUERY, "ADDR_QUERY" },			\
		{ RDMA_CM_ADDR_RESOLVED, "ADDR_RESOLVED" },		\
		{ RDMA_CM_ROUTE_QUERY, "ROUTE_QUERY" },			\
		{ RDMA_CM_ROUTE_RESOLVED, "ROUTE_RESOLVED" },		\
		{ RDMA_CM_CONNECT, "CONNECT" },				\
		{ RDMA_CM_DISCONNECT, "DISCONNECT" },			\
		{ RDMA_CM_ADDR_BOUND, "ADDR_BOUND" },			\
		{ RDMA_CM_LISTEN, "LISTEN" },				\
		{ RDMA_CM_DEVICE_REMOVAL, "DEVICE_REMOVAL" },		\
		{ RDMA_CM_DESTROYING, "DESTROYING" },			\
		{ RDMA_CM_ADDRINFO_QUERY, "ADDRINFO_QUERY" },		\
		{ RDMA_CM_ADDRINFO_RESOLVED, "ADDRINFO_RESOLVED" })

/* Ours alone: an id changed state. */
TRACE_EVENT(cm_state,
	TP_PROTO(u32 handle, enum rdma_cm_state from, enum rdma_cm_state to),
	TP_ARGS(handle, from, to),
	TP_STRUCT__entry(
		__field(u32, handle)
		__field(unsigned int, from)
		__field(unsigned int, to)
	),
	TP_fast_assign(
		__entry->handle = handle;
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("id=%u %s -> %s", __entry->handle,
		  cma_show_state(__entry->from), cma_show_state(__entry->to))
);

/* Ours alone: fault injection failed a call of the CM's (cma_fault.c). */
TRACE_EVENT(cm_fault,
	TP_PROTO(const char *call),
	TP_ARGS(call),
	TP_STRUCT__entry(
		__string(call, call)
	),
	TP_fast_assign(
		__assign_str(call, call);
	),
	TP_printk("failed %s", __get_str(call))
);

#endif /* _CMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cma_trace

#include <trace/define_trace.h>
