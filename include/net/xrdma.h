/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrdma: a small in-kernel RDMA message transport in the style of
 * net/sunrpc/xprtrdma, built on the exported RDMA CM API and ib_core
 * verbs only.
 *
 * A transport (struct xrdma_xprt) carries whole messages of up to
 * XRDMA_MAX_SEND bytes over one reliable connection at a time.  A
 * message within the inline size both ends agreed on travels in one
 * SEND.  A larger one is written with RDMA WRITE into a landing buffer
 * the receiver advertised in advance, and announced by a Send; without
 * such a buffer in hand it travels as a read chunk: the sender
 * registers a copy and sends a small header that advertises it, the
 * receiver pulls it with RDMA READ and tells the sender it is done
 * (with SEND_WITH_INV where both devices allow it).  Flow control is credit
 * based and invisible to the user: xrdma_send() waits for a credit.
 * An inline message can also be written in place, in the request
 * buffer it will be sent from (xrdma_send_buf_get(), then
 * xrdma_send_buf_post()), which saves the copy, and a message being
 * received can be sent on from the buffer it arrived in
 * (xrdma_send_received()).  Messages arrive through xrdma_ops.recv in
 * process context.
 */
#ifndef _NET_XRDMA_H
#define _NET_XRDMA_H

#include <linux/socket.h>
#include <linux/types.h>

struct net;
struct xrdma_buf;
struct xrdma_xprt;
struct xrdma_listener;

/* Limits of struct xrdma_opts. */
#define XRDMA_MIN_DEPTH		1
#define XRDMA_MAX_DEPTH		256
#define XRDMA_MIN_INLINE	64
#define XRDMA_MAX_INLINE	65536
/* The largest memory region one registration covers. */
#define XRDMA_MAX_RDMA		(1024 * 1024)
/* The largest message xrdma_send() takes: one chunk, one registration. */
#define XRDMA_MAX_SEND		XRDMA_MAX_RDMA
/* Chunked messages of one transport the peer has not pulled yet, at
 * most; a sender of one more waits.
 */
#define XRDMA_MAX_CHUNKS	8

/**
 * enum xrdma_step - the steps of a connection's life that are timed
 * @XRDMA_STEP_CREATE_ID: rdma_create_id()
 * @XRDMA_STEP_RESOLVE_ADDR: rdma_resolve_addr() until ADDR_RESOLVED
 * @XRDMA_STEP_RESOLVE_ROUTE: rdma_resolve_route() until ROUTE_RESOLVED
 * @XRDMA_STEP_CREATE_QP: PD, CQs, QP and the first receives
 * @XRDMA_STEP_CONNECT: the rdma_connect() call itself
 * @XRDMA_STEP_ESTABLISHED: rdma_connect() until ESTABLISHED
 * @XRDMA_STEP_DISCONNECT: rdma_disconnect() and the drain of both queues
 * @XRDMA_STEP_DESTROY: releasing the QP, CQs, PD and the id
 * @XRDMA_NR_STEPS: how many there are
 */
enum xrdma_step {
	XRDMA_STEP_CREATE_ID,
	XRDMA_STEP_RESOLVE_ADDR,
	XRDMA_STEP_RESOLVE_ROUTE,
	XRDMA_STEP_CREATE_QP,
	XRDMA_STEP_CONNECT,
	XRDMA_STEP_ESTABLISHED,
	XRDMA_STEP_DISCONNECT,
	XRDMA_STEP_DESTROY,
	XRDMA_NR_STEPS
};

/**
 * struct xrdma_opts - what a transport is asked for
 * @depth: messages in flight in each direction (receives posted), 1..256
 * @inline_size: the largest message this end sends or receives,
 *	64..65536 bytes; the connection uses the smaller of both ends'
 * @timeout_ms: bound on address and route resolution, on the wait for
 *	ESTABLISHED and on the wait for a send credit; 0 means 5000
 * @reconnect_ms: 0 for no automatic reconnect; else the first delay
 *	after a lost connection, doubled on each failure up to 60 s
 */
struct xrdma_opts {
	unsigned int depth;
	unsigned int inline_size;
	unsigned int timeout_ms;
	unsigned int reconnect_ms;
};

/**
 * struct xrdma_ops - the user's callbacks
 * @recv: a message arrived.  Runs in process context (the receive CQ's
 *	work item), one call at a time per transport; @data is valid only
 *	during the call.  It may call xrdma_send(), which then waits for a
 *	send context and a buffer (and, for a chunked message, for a chunk
 *	slot) for at most the transport's timeout, or xrdma_send_received()
 *	for bytes of @data.  It does not wait for a credit: credits come in
 *	the peer's messages, which only the work item running this
 *	callback takes in, so with none at hand the call returns -EDEADLK
 *	at once (a Send that must wait for one goes from another
 *	thread).  A chunked message's slot comes back when the peer's
 *	receive callback that pulled it has returned: a peer that echoes
 *	chunked messages from here needs the other side to keep at most
 *	XRDMA_MAX_CHUNKS / 2 of them unanswered.
 * @rdma_done: optional; needed for xrdma_rdma().  An RDMA READ or WRITE
 *	completed: @status is 0, or -EIO when it failed or was flushed by
 *	the end of the connection.  A WRITE's call comes after those of
 *	the WRITEs started before it.  Runs in process context (the send
 *	CQ's work item; the receive CQ's, which reaps send completions
 *	before it hands a message to @recv; or the teardown of the
 *	connection for WRITEs the device completed without a word:
 *	XRDMA_RDMA_MORE) and must not sleep for long; it may start the
 *	next operation with xrdma_rdma_nowait().  It is a completion
 *	handler, and the completions a wait there would wait for are
 *	handled only after it returns, so nothing it calls waits for them:
 *	xrdma_send(), xrdma_send_buf_get() and xrdma_rdma() go ahead only
 *	with what is at hand, a message above the inline size and
 *	xrdma_mr_register() not at all, each returning -EDEADLK instead,
 *	and xrdma_mr_release() destroys the MR rather than invalidate it.
 * @closed: optional; the transport is being destroyed: no callback runs
 *	any more and no connection is left.  The last chance to give
 *	back memory registrations with xrdma_mr_release().  Runs in
 *	process context; for an accepted transport, in the listener's
 *	work.
 */
struct xrdma_ops {
	void (*recv)(struct xrdma_xprt *xprt, const void *data, u32 len);
	void (*rdma_done)(struct xrdma_xprt *xprt, u64 cookie, int status);
	void (*closed)(struct xrdma_xprt *xprt);
};

/**
 * struct xrdma_info - a snapshot of a transport's counters
 * @connected: a connection is up
 * @inline_send: the largest message xrdma_send() accepts now
 * @connects: connections established so far
 * @sent: messages sent
 * @received: messages received
 * @errors: error completions seen
 * @rdma_ops: RDMA READs and WRITEs completed successfully
 * @rdma_bytes: bytes they moved
 * @mr_regs: memory registrations (IB_WR_REG_MR) completed
 * @mr_invs: local invalidations completed
 * @mr_refills: MRs the refill work added to the pool
 * @mr_dropped: MRs destroyed because a registration or an invalidation
 *	failed (their state was unknown)
 * @mr_last_rkey: the rkey of the last registration
 * @chunks_sent: messages sent as a read chunk (above the inline size)
 * @chunks_received: chunked messages pulled with RDMA READ
 * @sends_inv: Sends that invalidated a key of the peer (SEND_WITH_INV)
 * @sends_imm: Sends whose header went as immediate data (SEND_WITH_IMM)
 * @sends_received: messages sent from the receive buffer they arrived in
 *	(xrdma_send_received())
 * @pushes_sent: messages above the inline size written straight into
 *	a landing buffer the peer advertised (the rest went as chunks)
 * @pushes_received: messages the peer pushed into a landing buffer
 * @mr_remote_invs: our registrations the peer invalidated
 *	(IB_WC_WITH_INVALIDATE)
 * @mr_invs_skipped: releases that needed no LOCAL_INV because the peer
 *	had invalidated the key already
 * @send_cq_rescued: send completions that sat in the CQ with no event
 *	until a watch found them (a device that lost the event, or raised
 *	it a moment before; send_cq.c)
 * @step_ns: duration of each step of the last connection, in ns
 */
struct xrdma_info {
	bool connected;
	u32 inline_send;
	u64 connects;
	u64 sent;
	u64 received;
	u64 errors;
	u64 rdma_ops;
	u64 rdma_bytes;
	u64 mr_regs;
	u64 mr_invs;
	u64 mr_refills;
	u64 mr_dropped;
	u32 mr_last_rkey;
	u64 chunks_sent;
	u64 chunks_received;
	u64 sends_inv;
	u64 sends_imm;
	u64 sends_received;
	u64 pushes_sent;
	u64 pushes_received;
	u64 mr_remote_invs;
	u64 mr_invs_skipped;
	u64 send_cq_rescued;
	u64 step_ns[XRDMA_NR_STEPS];
};

struct xrdma_mr;

/**
 * struct xrdma_remote - registered memory of the peer, as it advertised
 * @addr: the address the peer's device knows the memory by
 * @rkey: the key that gives access to it
 * @len: its length in bytes
 *
 * How it travels is the user's business (in a message, for instance);
 * the fields are in host order here.
 */
struct xrdma_remote {
	u64 addr;
	u32 rkey;
	u32 len;
};

/**
 * enum xrdma_rdma_op - what xrdma_rdma() does
 * @XRDMA_RDMA_WRITE: copy local memory into the peer's
 * @XRDMA_RDMA_READ: copy the peer's memory into local memory
 * @XRDMA_RDMA_MORE: a flag, or'd into XRDMA_RDMA_WRITE: the caller
 *	starts another operation after this one without waiting for this
 *	one's outcome (as MSG_MORE).  Such a WRITE may go without a
 *	completion of its own, its outcome told when a later WRITE's is;
 *	the last operation of a stream goes without the flag.  READs
 *	ignore it.
 */
enum xrdma_rdma_op {
	XRDMA_RDMA_WRITE,
	XRDMA_RDMA_READ,
	XRDMA_RDMA_MORE = 0x100,
};

struct xrdma_xprt *xrdma_xprt_create(const struct xrdma_opts *opts,
				     const struct xrdma_ops *ops, void *priv);
void xrdma_xprt_destroy(struct xrdma_xprt *xprt);
void *xrdma_xprt_priv(const struct xrdma_xprt *xprt);
int xrdma_connect(struct xrdma_xprt *xprt, struct net *net,
		  const struct sockaddr *dst);
void xrdma_disconnect(struct xrdma_xprt *xprt);
int xrdma_send(struct xrdma_xprt *xprt, const void *data, u32 len);
int xrdma_send_inv(struct xrdma_xprt *xprt, const void *data, u32 len,
		   u32 rkey);
void *xrdma_send_buf_get(struct xrdma_xprt *xprt, u32 len,
			 struct xrdma_buf **bufp);
int xrdma_send_buf_post(struct xrdma_xprt *xprt, struct xrdma_buf *buf,
			u32 len);
void xrdma_send_buf_put(struct xrdma_xprt *xprt, struct xrdma_buf *buf);
int xrdma_send_received(struct xrdma_xprt *xprt, const void *data, u32 len);
void xrdma_get_info(struct xrdma_xprt *xprt, struct xrdma_info *info);

struct xrdma_mr *xrdma_mr_register(struct xrdma_xprt *xprt, void *buf,
				   u32 len, bool remote,
				   struct xrdma_remote *desc);
void xrdma_mr_release(struct xrdma_xprt *xprt, struct xrdma_mr *mr);
int xrdma_rdma(struct xrdma_xprt *xprt, enum xrdma_rdma_op op,
	       struct xrdma_mr *mr, u32 offset,
	       const struct xrdma_remote *rem, u32 roffset, u32 len,
	       u64 cookie);
int xrdma_rdma_nowait(struct xrdma_xprt *xprt, enum xrdma_rdma_op op,
		      struct xrdma_mr *mr, u32 offset,
		      const struct xrdma_remote *rem, u32 roffset, u32 len,
		      u64 cookie);

struct xrdma_listener *xrdma_listen(struct net *net,
				    const struct sockaddr *addr,
				    const struct xrdma_opts *opts,
				    const struct xrdma_ops *ops, void *priv);
void xrdma_listener_destroy(struct xrdma_listener *lsn);
unsigned int xrdma_listener_count(struct xrdma_listener *lsn);

#endif /* _NET_XRDMA_H */
