/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cm_e2e: end-to-end tests of an RDMA connection manager through the
 * exported rdma_cm kernel API (<rdma/rdma_cm.h>) and ib_core verbs only.
 *
 * An endpoint (struct cme_ep) is one rdma_cm_id with, once it has a
 * device, a PD, a CQ polled directly, an RC QP made by rdma_create_qp()
 * and two small registered buffers.  Its CM event handler records every
 * event in a log that the scenario reads in order, so event order,
 * statuses, private data and connection parameters can all be checked
 * after the fact from process context.
 *
 * A listener (struct cme_listener) owns a listening id; each
 * CONNECT_REQUEST arrives on a new id, which the handler wraps in a new
 * endpoint and, as the listener's policy says, accepts, rejects or holds
 * for the scenario.  The scenario takes those endpoints in arrival order.
 */
#ifndef CM_E2E_H
#define CM_E2E_H

#include <linux/list.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <rdma/rdma_cm.h>

/* Default of the upper bound on any wait for the CM or the wire. */
#define CME_TIMEOUT_MS		15000
/* timeout_ms given to rdma_resolve_addr() and rdma_resolve_route(). */
#define CME_RESOLVE_MS		5000

#define CME_MAX_EVENTS		12
/* Largest private data any IB CM message carries to the rdma_cm user. */
#define CME_PDATA_MAX		196
#define CME_MSG_LEN		64

/* User private data limits of the IB CM behind the rdma_cm header. */
#define CME_REQ_PDATA_MAX	56
#define CME_REP_PDATA_MAX	196
#define CME_REJ_PDATA_MAX	148

/* Private data lengths the scenarios send. */
#define CME_PDATA_LEN		16

/* Seeds of the byte patterns each message kind carries. */
#define CME_SEED_REQ		0x51
#define CME_SEED_REP		0xa7
#define CME_SEED_REJ		0x3c
#define CME_SEED_CLI_MSG	0xc1
#define CME_SEED_SRV_MSG	0x5e

/* Connection parameters of the active side; the passive mirrors them. */
#define CME_RESP_RES		2
#define CME_INIT_DEPTH		3
#define CME_RETRY		6
#define CME_RNR_RETRY		5
#define CME_SRV_RNR_RETRY	4

/* A struct sockaddr_storage pointer as the struct sockaddr the API takes. */
#define cme_sa(ss)	((struct sockaddr *)(ss))

/* The first member of whatever an rdma_cm_id's context points to. */
enum cme_kind {
	CME_KIND_EP = 0x6570,
	CME_KIND_LISTENER = 0x6c73,
};

/**
 * struct cme_event - one recorded CM event
 * @type: the event
 * @status: its status
 * @pdata_len: private_data_len as reported
 * @has_pdata: private_data was not NULL
 * @pdata: the first min(@pdata_len, CME_PDATA_MAX) bytes of private data
 * @conn: param.conn as reported, private_data cleared
 * @rej_data: for REJECTED, rdma_consumer_reject_data() was not NULL
 * @rej_len: for REJECTED, the length rdma_consumer_reject_data() gave
 * @rej_pdata: for REJECTED, the first bytes of the consumer reject data
 * @rej_msg: for REJECTED, rdma_reject_msg() of @status
 * @new_id: for CONNECT_REQUEST, the id was not the listening id
 * @iwarp: the event's id was on an iWARP device (no IB CM fields)
 * @ece: the event's ECE values (CONNECT_REQUEST, ESTABLISHED)
 */
struct cme_event {
	enum rdma_cm_event_type type;
	int status;
	u8 pdata_len;
	bool has_pdata;
	u8 pdata[CME_PDATA_MAX];
	struct rdma_conn_param conn;
	bool rej_data;
	u8 rej_len;
	u8 rej_pdata[CME_REJ_PDATA_MAX];
	const char *rej_msg;
	bool new_id;
	bool iwarp;
	struct rdma_ucm_ece ece;
};

/**
 * struct cme_ep - an rdma_cm_id with its verbs resources and event log
 * @kind: CME_KIND_EP
 * @name: for messages
 * @id: the id, NULL before cme_ep_create_id()
 * @pd: protection domain on @id's device
 * @cq: completion queue, polled directly
 * @send_buf: registered send buffer, CME_MSG_LEN bytes
 * @recv_buf: registered receive buffer, CME_MSG_LEN bytes
 * @send_dma: DMA address of @send_buf
 * @recv_dma: DMA address of @recv_buf
 * @send_mapped: @send_dma is mapped
 * @recv_mapped: @recv_dma is mapped
 * @dma_dev: the device the buffers are mapped for
 * @nr_send_done: successful send completions polled
 * @nr_recv_done: successful receive completions polled
 * @recv_len: byte_len of the last receive completion
 * @qp_num: the QP's number, 0 before it has one
 * @peer_qpn: the peer's QP number, as the CM reported it
 * @index: the scenario's number for this endpoint
 * @destroy_on: a mask of BIT(event type): on these the handler destroys
 *	the QP and returns 1, so the CM destroys the id.  Not ESTABLISHED on
 *	iWARP: iw_cm holds the QP of a live connection and lets go of it in
 *	its own work queue, where the handler runs, so destroying the QP
 *	there would wait forever
 * @sleep_on_established: the handler sleeps this many ms on ESTABLISHED,
 *	after setting @handler_asleep, and sets @handler_awake when done
 * @handler_asleep: the ESTABLISHED handler started its sleep
 * @handler_awake: the ESTABLISHED handler ended its sleep
 * @handler_error: first error a handler met on this endpoint
 * @tagged: messages carry the sender's QP number and its id's addresses,
 *	which must be @peer_qpn and the receiving id's addresses mirrored
 * @drive: the handler takes the connection's steps itself (cme_ep_drive())
 * @lock: protects @events, @nr_events, @id_gone, @handler_asleep
 * @wq: woken when an event is recorded
 * @events: the log
 * @nr_events: events recorded, including the ones that did not fit
 * @cursor: the next event cme_ep_wait() looks at
 * @closing: cme_ep_destroy() started: no handler may return non-zero now
 * @dying: a handler decided to return non-zero
 * @id_gone: that handler is done: the CM destroys or destroyed @id
 * @node: in the listener's list of new connections
 */
struct cme_ep {
	enum cme_kind kind;
	char name[24];
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	void *send_buf;
	void *recv_buf;
	u64 send_dma;
	u64 recv_dma;
	bool send_mapped;
	bool recv_mapped;
	struct ib_device *dma_dev;
	unsigned int nr_send_done;
	unsigned int nr_recv_done;
	u32 recv_len;
	u32 qp_num;
	u32 peer_qpn;
	u32 index;
	unsigned long destroy_on;
	unsigned int sleep_on_established;
	bool handler_asleep;
	bool handler_awake;
	int handler_error;
	bool tagged;
	bool drive;

	/* protects events, nr_events, cursor, closing, dying, id_gone */
	spinlock_t lock;
	wait_queue_head_t wq;
	struct cme_event events[CME_MAX_EVENTS];
	unsigned int nr_events;
	unsigned int cursor;
	bool closing;
	bool dying;
	bool id_gone;
	struct list_head node;
};

/**
 * enum cme_policy - what a listener does with a CONNECT_REQUEST
 * @CME_ACCEPT: set up a QP and rdma_accept() from the handler
 * @CME_REJECT: rdma_reject() from the handler and return 1
 * @CME_HOLD: leave it to the scenario
 */
enum cme_policy {
	CME_ACCEPT,
	CME_REJECT,
	CME_HOLD,
};

/**
 * struct cme_listener - a listening id and the connections it received
 * @kind: CME_KIND_LISTENER
 * @name: for messages
 * @id: the listening id
 * @policy: enum cme_policy, read by the handler with READ_ONCE()
 * @reply_len: length of the accept or reject private data
 * @reject_reason: reason given to rdma_reject()
 * @lock: protects @conns, @nr_requests, @nr_added, @nr_other
 * @wq: woken when a connection is added
 * @conns: new connections the scenario has not taken yet
 * @nr_requests: CONNECT_REQUESTs seen
 * @nr_added: connections put on @conns
 * @nr_other: other events on the listening id
 */
struct cme_listener {
	enum cme_kind kind;
	char name[24];
	struct rdma_cm_id *id;
	int policy;
	u8 reply_len;
	u8 reject_reason;

	/* protects conns, nr_requests, nr_added, nr_other */
	spinlock_t lock;
	wait_queue_head_t wq;
	struct list_head conns;
	unsigned int nr_requests;
	unsigned int nr_added;
	unsigned int nr_other;
};

/**
 * struct cme_params - what the module parameters asked for
 * @addr: the address clients connect to, with @port
 * @addr2: a second address (wildcard: the second device; others: siw)
 * @laddr: the address the listener binds, with @port
 * @port: the port
 * @count: number of connections (sequential, concurrent, serve, dial)
 * @strict: also check what the in-box rdma_cm does differently
 * @netns_pid: a process in the other network namespace (netns)
 * @has_addr2: @addr2 was given
 * @wait_ms: serve: how long to wait for a client; hold: how long to hold
 * @seed: stress: the seed of its random cuts
 * @keep_going: stress: a failed cycle is counted, not the end of the run
 */
struct cme_params {
	struct sockaddr_storage addr;
	struct sockaddr_storage addr2;
	struct sockaddr_storage laddr;
	u16 port;
	unsigned int count;
	bool strict;
	int netns_pid;
	bool has_addr2;
	unsigned int wait_ms;
	unsigned int seed;
	bool keep_going;
};

/* main.c: the upper bound on any wait (parameter timeout_ms). */
extern unsigned int cme_timeout_ms;

/* endpoint.c */
extern bool cme_quiet;
const char *cme_event_name(enum rdma_cm_event_type type);
int cme_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
struct cme_ep *cme_ep_alloc(const char *fmt, ...) __printf(1, 2);
int cme_ep_create_id(struct cme_ep *ep, struct net *net);
void cme_ep_record(struct cme_ep *ep, struct rdma_cm_id *id,
		   struct rdma_cm_event *ev, bool new_id, bool gone);
bool cme_ep_id_gone(struct cme_ep *ep);
int cme_ep_setup_qp(struct cme_ep *ep);
void cme_ep_destroy_qp(struct cme_ep *ep);
void cme_ep_destroy(struct cme_ep *ep);
const struct cme_event *cme_ep_wait(struct cme_ep *ep,
				    enum rdma_cm_event_type type);
const struct cme_event *cme_ep_wait_past(struct cme_ep *ep,
					 enum rdma_cm_event_type type,
					 unsigned long skip);
int cme_ep_expect_quiet(struct cme_ep *ep, unsigned int ms);
void cme_ep_dump(struct cme_ep *ep);
int cme_ep_post_recv(struct cme_ep *ep);
int cme_ep_post_send(struct cme_ep *ep, u8 seed, u32 index);
int cme_ep_wait_wc(struct cme_ep *ep, unsigned int sends,
		   unsigned int recvs);
int cme_ep_check_recv(struct cme_ep *ep, u8 seed, u32 index);
void cme_pattern(u8 *buf, size_t len, u8 seed, u32 index);
int cme_check_pattern(const char *what, const u8 *buf, size_t len,
		      u8 seed, u32 index);
int cme_expect(const char *what, int got, int want);

/* listener.c */
struct cme_listener *cme_listener_create(struct net *net,
					 const struct sockaddr *addr,
					 enum cme_policy policy,
					 const char *name);
void cme_listener_set_policy(struct cme_listener *l, enum cme_policy policy);
struct cme_ep *cme_listener_take(struct cme_listener *l);
struct cme_ep *cme_listener_take_wait(struct cme_listener *l,
				      unsigned int ms);
struct cme_ep *cme_listener_take_index(struct cme_listener *l, u32 index,
				       unsigned int ms);
int cme_listener_expect_none(struct cme_listener *l, unsigned int ms);
void cme_listener_destroy(struct cme_listener *l);
int cme_listener_event(struct cme_listener *l, struct rdma_cm_id *id,
		       struct rdma_cm_event *ev);
void cme_conn_param(struct rdma_conn_param *param, const void *pdata,
		    u8 len);
int cme_accept_locked(struct cme_ep *ep, const struct cme_event *req, u8 len);
struct cme_ep *cme_client_start(struct net *net, const struct sockaddr *dst,
				u32 index);
int cme_client_route(struct cme_ep *ep);
int cme_client_connect(struct cme_ep *ep);
int cme_client_established(struct cme_ep *ep);
int cme_start_connect(struct cme_listener *l, const struct sockaddr *dst,
		      u32 index, struct cme_ep **clip, struct cme_ep **srvp);
int cme_check_request(struct cme_ep *srv, u32 index, u32 qp_num);
int cme_server_request(struct cme_ep *srv, const struct cme_ep *cli);
int cme_server_established(struct cme_ep *srv, struct cme_ep *cli);
int cme_server_accepted(struct cme_ep *srv, struct cme_ep *cli);
int cme_exchange(struct cme_ep *cli, struct cme_ep *srv);
int cme_disconnect(struct cme_ep *first, struct cme_ep *second);

/* main.c */
void cme_with_port(struct sockaddr_storage *dst,
		   const struct sockaddr_storage *src, u16 port);
u16 cme_port_of(const struct sockaddr_storage *ss);
void cme_set_state(const char *state);
void cme_result(const char *name, const struct sockaddr_storage *ss, int ret,
		unsigned long start);

/* scen_conn.c */
int cme_scen_connect(const struct cme_params *p);
int cme_scen_reject(const struct cme_params *p);
int cme_scen_server_disconnect(const struct cme_params *p);
int cme_scen_sequential(const struct cme_params *p);
int cme_scen_concurrent(const struct cme_params *p);
int cme_scen_wildcard(const struct cme_params *p);
int cme_check_rejected(struct cme_ep *cli);

/* scen_state.c */
int cme_scen_destroy_states(const struct cme_params *p);
int cme_scen_bad_input(const struct cme_params *p);
int cme_scen_accept_removed(const struct cme_params *p);

/* scen_netns.c */
struct net *cme_netns_of(const struct cme_params *p);
void cme_any(struct sockaddr_storage *ss, sa_family_t family, u16 port);
int cme_scen_netns(const struct cme_params *p);

/* scen_wire.c */
int cme_scen_serve(const struct cme_params *sets, unsigned int n);
int cme_scen_dial(const struct cme_params *p);

/* scen_hold.c */
int cme_scen_hold(const struct cme_params *sets, unsigned int n);
int cme_scen_netns_hold(const struct cme_params *p);

/* scen_stress.c */
int cme_scen_stress(const struct cme_params *p);

/* scen_attrs.c */
int cme_scen_qp_attrs(const struct cme_params *p);
int cme_scen_set_ib_path(const struct cme_params *p);
int cme_scen_notify(const struct cme_params *p);
int cme_scen_connect_locked(const struct cme_params *p);
int cme_scen_iw_cm_id(const struct cme_params *p);
void cme_ep_drive(struct cme_ep *ep, const struct rdma_cm_event *ev);

#endif /* CM_E2E_H */
