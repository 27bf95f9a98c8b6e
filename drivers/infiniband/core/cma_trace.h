/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the connection manager, under events/rdma_cm/. Every
 * id is named by its handle, the number listings show.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rdma_cm

#if !defined(_CMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CMA_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ext.h>

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
		{ RDMA_CM_DESTROYING, "DESTROYING" })

#define cma_show_event(e)						\
	__print_symbolic(e,						\
		{ RDMA_CM_EVENT_ADDR_RESOLVED, "ADDR_RESOLVED" },	\
		{ RDMA_CM_EVENT_ADDR_ERROR, "ADDR_ERROR" },		\
		{ RDMA_CM_EVENT_ROUTE_RESOLVED, "ROUTE_RESOLVED" },	\
		{ RDMA_CM_EVENT_ROUTE_ERROR, "ROUTE_ERROR" },		\
		{ RDMA_CM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST" },	\
		{ RDMA_CM_EVENT_CONNECT_RESPONSE, "CONNECT_RESPONSE" },	\
		{ RDMA_CM_EVENT_CONNECT_ERROR, "CONNECT_ERROR" },	\
		{ RDMA_CM_EVENT_UNREACHABLE, "UNREACHABLE" },		\
		{ RDMA_CM_EVENT_REJECTED, "REJECTED" },			\
		{ RDMA_CM_EVENT_ESTABLISHED, "ESTABLISHED" },		\
		{ RDMA_CM_EVENT_DISCONNECTED, "DISCONNECTED" },		\
		{ RDMA_CM_EVENT_DEVICE_REMOVAL, "DEVICE_REMOVAL" },	\
		{ RDMA_CM_EVENT_MULTICAST_JOIN, "MULTICAST_JOIN" },	\
		{ RDMA_CM_EVENT_MULTICAST_ERROR, "MULTICAST_ERROR" },	\
		{ RDMA_CM_EVENT_ADDR_CHANGE, "ADDR_CHANGE" },		\
		{ RDMA_CM_EVENT_TIMEWAIT_EXIT, "TIMEWAIT_EXIT" })

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

DECLARE_EVENT_CLASS(cm_event_class,
	TP_PROTO(u32 handle, const struct rdma_cm_event *event, int result),
	TP_ARGS(handle, event, result),
	TP_STRUCT__entry(
		__field(u32, handle)
		__field(unsigned int, event)
		__field(int, status)
		__field(int, result)
	),
	TP_fast_assign(
		__entry->handle = handle;
		__entry->event = event->event;
		__entry->status = event->status;
		__entry->result = result;
	),
	TP_printk("id=%u event=%s status=%d result=%d", __entry->handle,
		  cma_show_event(__entry->event), __entry->status,
		  __entry->result)
);

/* Before the consumer's handler runs; result is always 0. */
DEFINE_EVENT(cm_event_class, cm_event_handler,
	TP_PROTO(u32 handle, const struct rdma_cm_event *event, int result),
	TP_ARGS(handle, event, result));

/* After it returned; result is its verdict. */
DEFINE_EVENT(cm_event_class, cm_event_done,
	TP_PROTO(u32 handle, const struct rdma_cm_event *event, int result),
	TP_ARGS(handle, event, result));

TRACE_EVENT(cm_send,
	TP_PROTO(u32 handle, const char *msg, int result),
	TP_ARGS(handle, msg, result),
	TP_STRUCT__entry(
		__field(u32, handle)
		__string(msg, msg)
		__field(int, result)
	),
	TP_fast_assign(
		__entry->handle = handle;
		__assign_str(msg, msg);
		__entry->result = result;
	),
	TP_printk("id=%u %s result=%d", __entry->handle, __get_str(msg),
		  __entry->result)
);

/* Fault injection failed a call of the CM's (cma_fault.c). */
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

DECLARE_EVENT_CLASS(cm_id_class,
	TP_PROTO(u32 handle, const char *owner),
	TP_ARGS(handle, owner),
	TP_STRUCT__entry(
		__field(u32, handle)
		__string(owner, owner)
	),
	TP_fast_assign(
		__entry->handle = handle;
		__assign_str(owner, owner);
	),
	TP_printk("id=%u owner=%s", __entry->handle, __get_str(owner))
);

DEFINE_EVENT(cm_id_class, cm_id_create,
	TP_PROTO(u32 handle, const char *owner),
	TP_ARGS(handle, owner));

DEFINE_EVENT(cm_id_class, cm_id_destroy,
	TP_PROTO(u32 handle, const char *owner),
	TP_ARGS(handle, owner));

#endif /* _CMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cma_trace

#include <trace/define_trace.h>
