/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cm_bench: connection setup and teardown timings of an RDMA CM, made
 * through the exported rdma_cm API only.
 */
#ifndef CM_BENCH_H
#define CM_BENCH_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

/* Bytes of each connection's one message, client to server. */
#define CMB_MSG_LEN	64
/* The most connections one run makes at once. */
#define CMB_MAX_CONNS	20000

/*
 * The steps of a connection, in order, as rdma-core's cmtime names
 * them; DATA is one SEND from client to server, received and checked.
 * The steps' start and end times are written by the benchmark thread,
 * or, for the event-driven ends, by the event handlers under the run's
 * lock.
 */
enum cmb_step {
	CMB_CREATE,
	CMB_ADDR,
	CMB_ROUTE,
	CMB_QP,
	CMB_CONNECT,
	CMB_ESTAB,
	CMB_DATA,
	CMB_DISC,
	CMB_DESTROY,
	/*
	 * Not steps but calls inside the server's request handler, timed
	 * for the profile: its QP (rdma_create_qp()) and its accept
	 * (rdma_accept(): RTR, RTS and the REP), or the floor's same.
	 */
	CMB_SRV_QP,
	CMB_SRV_ACCEPT,
	CMB_NR_STEPS,
};

/* What an rdma_cm_id's context points to: a run or a connection. */
enum cmb_kind {
	CMB_KIND_RUN = 1,
	CMB_KIND_CONN,
};

struct cmb_run;
struct cmb_conn;

/**
 * struct cmb_step_ops - how a step runs on a connection
 * @start: the call that starts (or, synchronous, is) the step; NULL
 *	with no @events: the step does not exist there
 * @events: events or completions per connection that end it, 0 for a
 *	synchronous step
 */
struct cmb_step_ops {
	int (*start)(struct cmb_conn *c);
	unsigned int events;
};

/**
 * struct cmb_conn - one client id and the server id that accepted it
 * @kind: CMB_KIND_CONN, for the CM event handler
 * @run: the run it belongs to
 * @index: its number in the run, sent as the connect private data
 * @id: the client id
 * @sid: the server id, set (under @run->lock) once accepted
 * @qp: the client id has a QP
 * @start: when each step started for this connection
 * @end: when it ended, on both sides for the two-sided steps
 * @accepted: when the server saw ESTABLISHED
 * @send_cqe: completion of the client's SEND
 * @recv_cqe: completion of the server's receive
 * @cm: the floor's client IB CM id (instead of @id)
 * @scm: the floor's server IB CM id, set under @run->lock
 * @cqp: the floor's client QP
 * @sqp: the floor's server QP, set under @run->lock
 */
struct cmb_conn {
	enum cmb_kind kind;
	struct cmb_run *run;
	u32 index;
	struct rdma_cm_id *id;
	struct rdma_cm_id *sid;
	bool qp;
	ktime_t start[CMB_NR_STEPS];
	ktime_t end[CMB_NR_STEPS];
	ktime_t accepted;
	struct ib_cqe send_cqe;
	struct ib_cqe recv_cqe;
	struct ib_cm_id *cm;
	struct ib_cm_id *scm;
	struct ib_qp *cqp;
	struct ib_qp *sqp;
};

/**
 * struct cmb_run - one measured run: a listener and its connections
 * @kind: CMB_KIND_RUN, for the CM event handler
 * @addr: the listener's address, which the clients connect to
 * @listen: the listening id
 * @pd: protection domain of every QP of the run
 * @cq: the one CQ of every QP, polled in softirq
 * @sbuf: the clients' messages, CMB_MSG_LEN bytes each
 * @rbuf: the server's receive buffers, likewise
 * @sdma: @sbuf's DMA address
 * @rdma: @rbuf's DMA address
 * @conns: the connections
 * @n: how many
 * @lock: guards the connections' @sid and @end, and @status
 * @pending: events or completions the current step still waits for
 * @status: 0, or the first error of the run (which then stops)
 * @wq: woken when @pending reaches zero or @status is set
 * @stopping: the run is being torn down: flushes are expected
 * @ops: the steps: the rdma_cm's, or the floor's
 * @route: the floor's resolved id, whose path record its REQs use
 * @floor: the floor's IB CM listener
 */
struct cmb_run {
	enum cmb_kind kind;
	struct sockaddr_storage addr;
	struct rdma_cm_id *listen;
	struct ib_pd *pd;
	struct ib_cq *cq;
	u8 *sbuf;
	u8 *rbuf;
	u64 sdma;
	u64 rdma;
	struct cmb_conn *conns;
	u32 n;
	spinlock_t lock;	/* guards @sid, @end, @status, the floor ids */
	atomic_t pending;
	int status;
	wait_queue_head_t wq;
	bool stopping;
	const struct cmb_step_ops *ops;
	struct rdma_cm_id *route;
	struct ib_cm_id *floor;
};

/**
 * struct cmb_stat - one step over a run's connections
 * @count: connections that did the step
 * @min: shortest, ns
 * @max: longest, ns
 * @sum: sum of all, ns
 * @first: earliest start
 * @last: latest end
 */
struct cmb_stat {
	u32 count;
	s64 min;
	s64 max;
	s64 sum;
	ktime_t first;
	ktime_t last;
};

/* Parameters (main.c). */
extern unsigned int cmb_timeout_s;

/* conn.c */
int cmb_listen(struct cmb_run *run);
int cmb_client_id(struct cmb_conn *c);
int cmb_client_qp(struct cmb_conn *c);
int cmb_connect(struct cmb_conn *c);
int cmb_send(struct cmb_conn *c);
void cmb_destroy_conn(struct cmb_conn *c);
void cmb_fail(struct cmb_run *run, int status);

/* run.c */
struct cmb_run *cmb_run_alloc(const struct sockaddr_storage *addr, u32 n);
void cmb_run_free(struct cmb_run *run);
int cmb_run_wait(struct cmb_run *run);
extern const struct cmb_step_ops cmb_cm_steps[CMB_NR_STEPS];
int cmb_run_seq(struct cmb_run *run);
int cmb_run_storm(struct cmb_run *run, s64 *mem_bytes);

int cmb_run_steps(struct cmb_run *run, enum cmb_step first,
		  enum cmb_step last, u32 from, u32 to);

/* floor.c */
int cmb_floor_setup(struct cmb_run *run);
extern const struct cmb_step_ops cmb_floor_steps[CMB_NR_STEPS];
void cmb_floor_free(struct cmb_run *run);

/* conn.c, for floor.c */
void cmb_mark(struct cmb_conn *c, enum cmb_step step);
void cmb_qp_attr(struct cmb_run *run, struct ib_qp_init_attr *attr);
int cmb_post_recv(struct cmb_conn *c, struct ib_qp *qp);
int cmb_post_send(struct cmb_conn *c, struct ib_qp *qp);

/* stats.c */
const char *cmb_step_name(enum cmb_step step);
void cmb_stat(const struct cmb_run *run, enum cmb_step step,
	      struct cmb_stat *st);
int cmb_report_steps(const struct cmb_run *run, char *buf, size_t len);
s64 cmb_span_ns(const struct cmb_run *run, enum cmb_step from,
		enum cmb_step to);
s64 cmb_accept_ns(const struct cmb_run *run);

/* mem.c */
s64 cmb_slab_bytes(void);
int cmb_mem_idle(struct net *net, u32 n, char *buf, size_t len);

#endif /* CM_BENCH_H */
