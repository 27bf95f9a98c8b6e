/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrdma internals: the objects shared by the files of xrdma.ko.
 *
 * Ownership in one paragraph: a struct xrdma_xprt is persistent (its
 * buffers survive reconnects) and belongs to its creator, or to the
 * listener for an accepted one.  Each connection is a struct xrdma_ep
 * with its own rdma_cm_id, PD, CQs and QP; its kref counts the owner's
 * reference and the one ESTABLISHED takes.  Whoever drops the last
 * reference makes sure the id is destroyed exactly once: the CM event
 * handler by returning 1, anyone else by calling rdma_destroy_id().
 */
#ifndef _XRDMA_H
#define _XRDMA_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/xrdma.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

/* One Send in this many is signalled (at least one per ring): at the
 * default depth, only the one that fills the ring.
 */
#define XRDMA_SIGNAL_EVERY	16
/* A stream of WRITEs has a completion for each this many parts of the
 * RDMA contexts (xrdma_rdma_signal()).
 */
#define XRDMA_RDMA_SIGNALS	4
#define XRDMA_RECONNECT_MAX_MS	60000
/* 3: the message header has optional DONE, CHUNK, PUSHED and LAND fields. */
#define XRDMA_CM_VERSION	3
/* struct xrdma_cm_private.flags: this end takes SEND_WITH_INV. */
#define XRDMA_CM_F_REMOTE_INV	0x01
/* struct xrdma_cm_private.flags: this end's device has immediate data,
 * so it sends and takes a plain message's header there (hdr.c).
 */
#define XRDMA_CM_F_IMM_HDR	0x02
/* struct xrdma_cm_private.flags: this end advertises landing buffers
 * and takes messages pushed into them (land.c).
 */
#define XRDMA_CM_F_LAND		0x04
#define XRDMA_CM_MAGIC		0x78726d61	/* "xrma" */

/**
 * struct xrdma_ring - the indices of the send-context ring
 * @size: number of slots; at most @size - 1 are in use at once
 * @head: the slot handed out last (producer side, under the send lock)
 * @tail: the slot retired last (consumer side, send completions)
 *
 * Slots are handed out in order and retired in order, so a signalled
 * completion retires every unsignalled Send posted before it.  The two
 * sides share only the indices, published with release/acquire.
 */
struct xrdma_ring {
	unsigned int size;
	unsigned int head;
	unsigned int tail;
};

/**
 * xrdma_signal_next() - should the next work request be signalled?
 * @count: work requests posted unsignalled since the last signalled one
 * @every: at least one in this many is signalled
 * @must: this one is, whatever the count
 *
 * Selective signalling, for the Sends (xrdma_send_signal()) and the
 * RDMA WRITEs (xrdma_rdma_signal()).
 *
 * Context: the caller serializes the posts that share @count.
 * Return: true to signal it; @count then starts again.
 */
static inline bool xrdma_signal_next(unsigned int *count, unsigned int every,
				     bool must)
{
	if (!must && ++*count < every)
		return false;
	*count = 0;
	return true;
}

int xrdma_ring_init(struct xrdma_ring *ring, unsigned int slots);
int xrdma_ring_get(struct xrdma_ring *ring);
void xrdma_ring_unget(struct xrdma_ring *ring);
unsigned int xrdma_ring_retire(struct xrdma_ring *ring, unsigned int upto,
			       void (*fn)(void *arg, unsigned int slot),
			       void *arg);
unsigned int xrdma_ring_in_use(const struct xrdma_ring *ring);

/**
 * struct xrdma_credits - credit-based flow control of one connection
 * @granted: the peer's receives posted, cumulative, as it last said
 * @sent: our messages that used up one of those receives, cumulative
 * @posted: our receives posted, cumulative
 * @announced: the value of @posted the peer was last told
 * @max: the most credits the peer may grant us at once
 *
 * All counters wrap; differences are taken modulo 2^32.  Credits start
 * at 1 on every connection: until the peer speaks, we assume one
 * receive.  Protected by the transport's send lock.
 */
struct xrdma_credits {
	u32 granted;
	u32 sent;
	u32 posted;
	u32 announced;
	u32 max;
};

void xrdma_credits_init(struct xrdma_credits *cr, u32 max);
u32 xrdma_credits_avail(const struct xrdma_credits *cr);
bool xrdma_credits_take(struct xrdma_credits *cr);
void xrdma_credits_grant(struct xrdma_credits *cr, u32 peer_posted);
void xrdma_credits_posted(struct xrdma_credits *cr, u32 n);
u32 xrdma_credits_announce(struct xrdma_credits *cr);
u32 xrdma_credits_unannounced(const struct xrdma_credits *cr);

/**
 * struct xrdma_buf - one preallocated message buffer
 * @node: on the pool's free list while free
 * @cqe: completion entry of the WR that uses it (receive buffers)
 * @rwr: the receive WR posting it
 * @sge: the scatter entry of @rwr
 * @data: the memory, kmalloc'ed once for the transport's life
 * @dma: its DMA address while mapped
 * @len: the bytes in use (receives: the bytes that arrived)
 * @off: where they start (requests: the header ends at XRDMA_HDR_MAX,
 *	where the payload starts; receives land at XRDMA_HDR_MAX, so that
 *	a header fits before any payload that arrived)
 * @index: its index in the pool
 * @pool: the pool it belongs to
 * @lent: held by the user (xrdma_send_buf_get()), under the pool's lock
 */
struct xrdma_buf {
	struct list_head node;
	struct ib_cqe cqe;
	struct ib_recv_wr rwr;
	struct ib_sge sge;
	void *data;
	u64 dma;
	u32 len;
	u32 off;
	u32 index;
	struct xrdma_pool *pool;
	bool lent;
};

/**
 * struct xrdma_pool - a fixed set of same-sized buffers
 * @lock: protects @free and @nfree
 * @free: the free buffers
 * @nfree: how many are on @free
 * @count: how many buffers there are
 * @size: the size of each
 * @dir: the DMA direction they are mapped for
 * @dev: the device they are mapped on, or NULL while unmapped
 * @bufs: all of them
 *
 * The memory is persistent; the DMA mapping is per connection.
 */
struct xrdma_pool {
	spinlock_t lock;	/* the free list */
	struct list_head free;
	unsigned int nfree;
	unsigned int count;
	size_t size;
	enum dma_data_direction dir;
	struct ib_device *dev;
	struct xrdma_buf *bufs;
};

int xrdma_pool_create(struct xrdma_pool *pool, unsigned int count,
		      size_t size, enum dma_data_direction dir);
void xrdma_pool_destroy(struct xrdma_pool *pool);
struct xrdma_buf *xrdma_pool_get(struct xrdma_pool *pool);
struct xrdma_buf *xrdma_pool_lend(struct xrdma_pool *pool);
void xrdma_pool_mark_lent(struct xrdma_pool *pool, struct xrdma_buf *buf,
			  bool lent);
void xrdma_pool_put(struct xrdma_pool *pool, struct xrdma_buf *buf);
void xrdma_pool_reset(struct xrdma_pool *pool);
unsigned int xrdma_pool_nfree(struct xrdma_pool *pool);
int xrdma_pool_map(struct xrdma_pool *pool, struct ib_device *dev);
void xrdma_pool_unmap(struct xrdma_pool *pool);

/* The FRWR pool of a connection: MRs made when it starts, the most it
 * ever has, and the level under which the refill work tops it up.
 */
#define XRDMA_FRWR_START	2
#define XRDMA_FRWR_TARGET	4
/* The user's, XRDMA_MAX_CHUNKS chunks in flight and a pull's sink. */
#define XRDMA_FRWR_MAX		24
/* Pages of one registration: XRDMA_MAX_RDMA bytes at any offset (the
 * spare page also keeps rxe 6.1, which reads one map pointer past an MR
 * whose pages fill its maps exactly, in bounds at 1 MiB).
 */
#define XRDMA_FRWR_PAGES	(XRDMA_MAX_RDMA / PAGE_SIZE + 1)
/* RDMA READs in flight each way, at most (the device may allow fewer). */
#define XRDMA_RD_ATOM		16

/**
 * struct xrdma_frwr_count - the arithmetic of an MR pool
 * @total: MRs that exist or are being made (free, in use, reserved)
 * @free: MRs ready for a registration
 * @target: how many the refill work makes free
 * @low: refill once fewer than this are free
 * @max: never more than this in all
 *
 * Pure bookkeeping, with no locking of its own: the pool's mutex
 * protects it.
 */
struct xrdma_frwr_count {
	unsigned int total;
	unsigned int free;
	unsigned int target;
	unsigned int low;
	unsigned int max;
};

int xrdma_frwr_count_init(struct xrdma_frwr_count *c, unsigned int target,
			  unsigned int low, unsigned int max);
bool xrdma_frwr_count_take(struct xrdma_frwr_count *c);
void xrdma_frwr_count_give(struct xrdma_frwr_count *c);
void xrdma_frwr_count_lose(struct xrdma_frwr_count *c);
bool xrdma_frwr_count_low(const struct xrdma_frwr_count *c);
unsigned int xrdma_frwr_count_reserve(struct xrdma_frwr_count *c,
				      unsigned int want);
void xrdma_frwr_count_made(struct xrdma_frwr_count *c, unsigned int made,
			   unsigned int reserved);
u32 xrdma_frwr_next_rkey(u32 rkey);

/* The states of an MR; see frwr.c. */
enum xrdma_mr_state {
	XRDMA_MR_FREE,
	XRDMA_MR_BUSY,
	XRDMA_MR_DEAD,
};

/**
 * struct xrdma_wr_wait - a work request a thread waits for (wr_wait.c)
 * @cqe: its completion entry; @cqe.done is the handler of its kind,
 *	which ends with xrdma_wr_wait_done()
 * @done: completed by that handler
 * @status: the completion's status
 * @node: on the transport's @wr_waits from the post to the completion
 *	(under its send lock)
 */
struct xrdma_wr_wait {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
	struct list_head node;
};

/**
 * struct xrdma_mr - one FRWR memory region and what it registers
 * @node: on the pool's free, busy or dead list
 * @ibmr: the MR; NULL once dead
 * @wait: its REG_MR or LOCAL_INV, waited for
 * @state: free, lent to a user (busy) or dead (under the pool's mutex)
 * @sg: the pages of the registered memory, XRDMA_FRWR_PAGES entries
 * @nents: entries of @sg in use
 * @mapped: the DMA mapping of @sg, 0 when unmapped
 * @len: bytes registered
 * @registered: the device holds a valid key for it: invalidate first
 * @peer_invalidated: the peer invalidated that key (SEND_WITH_INV), so
 *	the release needs no LOCAL_INV
 */
struct xrdma_mr {
	struct list_head node;
	struct ib_mr *ibmr;
	struct xrdma_wr_wait wait;
	enum xrdma_mr_state state;
	struct scatterlist *sg;
	unsigned int nents;
	int mapped;
	u32 len;
	bool registered;
	bool peer_invalidated;
};

/**
 * struct xrdma_frwr - a transport's FRWR pool
 * @mutex: protects everything here and the state of each MR
 * @free: MRs ready for a registration
 * @busy: MRs lent to the user
 * @dead: MRs whose connection went while the user held them
 * @count: the pool's arithmetic
 * @pd: the connection's PD while attached, NULL otherwise
 * @dev: its device
 * @max_pages: pages one MR maps (the device's limit or ours)
 * @refill_work: tops the pool up to its target
 *
 * The lists persist with the transport; the MRs belong to one
 * connection and go at its teardown.
 */
struct xrdma_frwr {
	struct mutex mutex;	/* lists, count, pd */
	struct list_head free;
	struct list_head busy;
	struct list_head dead;
	struct xrdma_frwr_count count;
	struct ib_pd *pd;
	struct ib_device *dev;
	unsigned int max_pages;
	struct work_struct refill_work;
};

/**
 * struct xrdma_rctx - the context of one RDMA READ or WRITE in flight
 * @node: on the transport's free list while free; on its list of
 *	WRITEs in flight while a WRITE, in the order they were posted
 * @cqe: its completion entry
 * @cookie: the user's, for xrdma_ops.rdma_done
 * @len: bytes it moves
 * @write: it is a WRITE
 */
struct xrdma_rctx {
	struct list_head node;
	struct ib_cqe cqe;
	u64 cookie;
	u32 len;
	bool write;
};

/**
 * struct xrdma_hdr - the header in front of every message on the wire
 * @credits: the sender's receives posted, cumulative
 * @flags: XRDMA_HDR_*; 0 for a bare credit update
 * @len: payload bytes after the header (and its optional fields)
 *
 * Optional fields follow in this order: with XRDMA_HDR_DONE a __be32,
 * the key of a chunk of the receiver's that the sender has pulled;
 * with XRDMA_HDR_CHUNK a struct xrdma_hdr_chunk, and no payload; with
 * XRDMA_HDR_PUSHED a struct xrdma_hdr_pushed, and no payload; with
 * XRDMA_HDR_LAND a struct xrdma_hdr_chunk that advertises a landing
 * buffer of the sender's.
 */
struct xrdma_hdr {
	__be32 credits;
	__be32 flags;
	__be32 len;
} __packed;

/**
 * struct xrdma_hdr_chunk - where a chunked message's payload waits
 * @addr: the address the sender's device knows it by
 * @rkey: the key that lets the receiver RDMA READ it
 * @len: its length, the message's, 1 to XRDMA_MAX_SEND bytes
 */
struct xrdma_hdr_chunk {
	__be64 addr;
	__be32 rkey;
	__be32 len;
} __packed;

/**
 * struct xrdma_hdr_pushed - where a pushed message's payload landed
 * @rkey: the key of the receiver's landing buffer it was written to
 * @len: its length, the message's, 1 to XRDMA_MAX_SEND bytes
 */
struct xrdma_hdr_pushed {
	__be32 rkey;
	__be32 len;
} __packed;

/* The message is for the user. */
#define XRDMA_HDR_DATA		0x01
/* A DONE field follows: the sender is done with a chunk of ours. */
#define XRDMA_HDR_DONE		0x02
/* A CHUNK field follows: the payload is to be pulled from there. */
#define XRDMA_HDR_CHUNK		0x04
/* A PUSHED field follows: the payload was written to our landing buffer. */
#define XRDMA_HDR_PUSHED	0x08
/* A LAND field follows: a landing buffer of the sender's to push into. */
#define XRDMA_HDR_LAND		0x10
#define XRDMA_HDR_FLAGS		(XRDMA_HDR_DATA | XRDMA_HDR_DONE | \
				 XRDMA_HDR_CHUNK | XRDMA_HDR_PUSHED | \
				 XRDMA_HDR_LAND)
/* Room every buffer keeps for the header with all its fields. */
#define XRDMA_HDR_MAX		(sizeof(struct xrdma_hdr) + sizeof(__be32) + \
				 2 * sizeof(struct xrdma_hdr_chunk) + \
				 sizeof(struct xrdma_hdr_pushed))

/**
 * struct xrdma_msg - a message header in host order
 * @credits: the sender's receives posted, cumulative
 * @flags: XRDMA_HDR_*
 * @len: payload bytes in the Send itself (0 with XRDMA_HDR_CHUNK)
 * @done: with XRDMA_HDR_DONE, the key of the receiver's chunk that the
 *	sender pulled
 * @chunk: with XRDMA_HDR_CHUNK, the payload's place at the sender
 * @pushed: with XRDMA_HDR_PUSHED, the landing buffer's key and the
 *	payload's length (@pushed.addr is not on the wire)
 * @land: with XRDMA_HDR_LAND, a landing buffer of the sender's
 */
struct xrdma_msg {
	u32 credits;
	u32 flags;
	u32 len;
	u32 done;
	struct xrdma_remote chunk;
	struct xrdma_remote pushed;
	struct xrdma_remote land;
};

u32 xrdma_hdr_size(u32 flags);
u32 xrdma_hdr_encode(void *buf, const struct xrdma_msg *msg);
int xrdma_hdr_decode(const void *buf, u32 byte_len, struct xrdma_msg *msg);
bool xrdma_hdr_imm_ok(const struct xrdma_msg *msg);
__be32 xrdma_hdr_encode_imm(const struct xrdma_msg *msg);
int xrdma_hdr_decode_imm(__be32 imm, u32 byte_len, struct xrdma_msg *msg);
bool xrdma_send_chunked(u32 len, u32 inline_send);

/**
 * struct xrdma_chunk - a chunked message of ours the peer is to pull
 * @buf: our copy of the message, kvmalloc'ed
 * @mr: its registration, remote READ only
 * @rkey: the key the header advertised
 * @busy: taken by a sender
 * @armed: its header went out: the peer's DONE gives it back
 *
 * Under the transport's send lock; @buf and @mr belong to the sender
 * until @armed, then to whoever disarms it (the DONE's receiver, or
 * the teardown).
 */
struct xrdma_chunk {
	void *buf;
	struct xrdma_mr *mr;
	u32 rkey;
	bool busy;
	bool armed;
};

/**
 * struct xrdma_pull - the RDMA READ that pulls a peer's chunk
 * @wait: the READ, waited for
 *
 * One per transport: chunks are pulled by the receive callback, one
 * message at a time.
 */
struct xrdma_pull {
	struct xrdma_wr_wait wait;
};

/* Landing buffers each end keeps for the peer to push into (land.c). */
#define XRDMA_LANDS	2

/**
 * enum xrdma_land_state - where a landing buffer of ours stands
 * @XRDMA_LAND_IDLE: not registered (no connection yet, or in use)
 * @XRDMA_LAND_READY: registered for remote WRITE, not advertised yet
 * @XRDMA_LAND_OUT: advertised: the peer may push one message into it
 */
enum xrdma_land_state {
	XRDMA_LAND_IDLE,
	XRDMA_LAND_READY,
	XRDMA_LAND_OUT,
};

/**
 * struct xrdma_land - a landing buffer of ours
 * @buf: XRDMA_MAX_SEND bytes, kvmalloc'ed at first need and kept for
 *	the transport's life
 * @mr: its registration while READY or OUT
 * @desc: what the registration is advertised as
 * @state: see enum xrdma_land_state (under the send lock)
 *
 * Only the receive work item registers one (READY) and takes one the
 * peer pushed into to the user (IDLE), and the teardown resets them once
 * that work is drained; a sender only moves one from READY to OUT when
 * its Send advertises it.
 */
struct xrdma_land {
	void *buf;
	struct xrdma_mr *mr;
	struct xrdma_remote desc;
	enum xrdma_land_state state;
};

/**
 * struct xrdma_push - one message pushed into a peer's landing buffer
 * @data: the message, in the kernel's linear map (DMA-mapped whole)
 * @len: its length
 * @dest: the peer's landing buffer it goes to
 * @dma: @data's DMA address while the WRITE is posted
 * @wait: the WRITE, waited for
 * @wr: the WRITE, posted in one chain with the Send that announces it
 * @sge: its source
 *
 * Lives on the sender's stack from xrdma_push_send() to the WRITE's
 * completion.
 */
struct xrdma_push {
	const void *data;
	u32 len;
	struct xrdma_remote dest;
	u64 dma;
	struct xrdma_wr_wait wait;
	struct ib_rdma_wr wr;
	struct ib_sge sge;
};

/**
 * struct xrdma_cm_private - private data of the connect request and reply
 * @magic: XRDMA_CM_MAGIC
 * @version: XRDMA_CM_VERSION
 * @flags: XRDMA_CM_F_*
 * @reserved: zero
 * @inline_send: the largest message, header included, this end sends
 * @inline_recv: the largest message, header included, it can receive
 */
struct xrdma_cm_private {
	__be32 magic;
	u8 version;
	u8 flags;
	u8 reserved[2];
	__be32 inline_send;
	__be32 inline_recv;
} __packed;

/**
 * struct xrdma_cm_ctx - what an id's context points to first
 * @listener: the id is a listening one (struct xrdma_listener), not a
 *	connection (struct xrdma_ep)
 *
 * A connection accepted by a listener starts with the listener as its
 * context and gets its endpoint at CONNECT_REQUEST; one handler serves
 * both and looks here to tell them apart.
 */
struct xrdma_cm_ctx {
	bool listener;
};

/* The connection status, as xprtrdma keeps it: 0 while connecting. */
#define XRDMA_CONNECTED	1
/* An active connection the CM reported established, not live yet: its
 * connecting thread adopts the peer's sizes and flags and publishes it
 * as XRDMA_CONNECTED, under the send lock (xrdma_ep_publish()).
 */
#define XRDMA_ESTABLISHED	2

/* What an arm of a CQ found (cq.c). */
enum xrdma_cq_armed {
	XRDMA_CQ_IDLE,		/* not armed: nothing is waited for */
	XRDMA_CQ_MISSED,	/* armed; completions came meanwhile */
	XRDMA_CQ_ARMED,		/* armed; the device reported none */
};

/* xrdma_cq_prepare()'s flags */
#define XRDMA_CQ_BOUND		BIT(0)	/* polled on the CPU of the event */
#define XRDMA_CQ_RECHECK	BIT(1)	/* an arm may miss a completion */
#define XRDMA_CQ_SHARED		BIT(2)	/* polled by others too */

/**
 * struct xrdma_cq - a connection's CQ, polled by a work item of ours
 * @ib: the verbs CQ, whose context is this; NULL until made
 * @ep: the connection it is of
 * @rearm: arms again after a poll, if the owner wants; NULL: always
 * @wq: where @work runs
 * @work: handles the completions after an event
 * @poll: held while completions are handled, on a CQ others poll too
 * @lock: protects @off; taken by events
 * @off: set by the quiesce: events queue no work
 * @recheck: an arm may miss a completion (siw): poll once more after
 *	one that reported none
 * @shared: others than @work poll it (xrdma_cq_try_poll())
 *
 * See cq.c.
 */
struct xrdma_cq {
	struct ib_cq *ib;
	struct xrdma_ep *ep;
	enum xrdma_cq_armed (*rearm)(struct xrdma_cq *cq);
	struct workqueue_struct *wq;
	struct work_struct work;
	struct mutex poll;	/* handling completions */
	spinlock_t lock;	/* @off */
	bool off;
	bool recheck;
	bool shared;
};

/**
 * struct xrdma_ep - one connection: its id and its verbs resources
 * @ctx: says this is not a listener
 * @ref: owner reference, plus one while ESTABLISHED holds
 * @id: the CM id; destroyed by whoever drops @ref to zero (see above)
 * @xprt: the transport; NULL once the owner let go (under @lock)
 * @lock: protects @xprt
 * @status: 0 connecting, XRDMA_ESTABLISHED (active side, until its
 *	connecting thread publishes it), XRDMA_CONNECTED, or a negative
 *	errno; becomes XRDMA_CONNECTED under the transport's send lock
 *	(active side) or before anyone can send (passive side)
 * @async_rc: result of the last address or route resolution
 * @done: completed by ADDR/ROUTE_RESOLVED and their errors
 * @wait: woken when @status changes
 * @flushed: set once a disconnect was forced: exactly one per connection
 * @draining: no more receives may be posted
 * @pd: protection domain (connection scoped)
 * @send_cq: send CQ, armed only while a completion is waited for
 *	(send_cq.c)
 * @send_cq_watch: looks in @send_cq for completions it raised no event
 *	for, a while after a thread armed it
 * @recv_cq: receive CQ, always armed
 * @was_connected: the QP reached RTS, so draining it is possible
 * @passive: accepted by a listener, not connected by us
 * @inline_send: the largest message this connection sends, with header
 * @inline_recv: the largest it receives, with header
 * @rd_atom: RDMA READs this end may have in flight, and serve, at once
 * @remote_inv: our device sends SEND_WITH_INV and the peer takes it
 * @imm_hdr: both ends carry a plain message's header as immediate data
 * @land: the peer takes messages pushed into its landing buffers, so we
 *	advertise ours
 * @peer_recv: the largest message the peer receives, as its private
 *	data said
 * @peer_flags: the XRDMA_CM_F_* flags its private data carried
 * @signal_from: a Send or an RDMA WRITE of this many bytes or more is
 *	always signalled
 *	(a page on siw, U32_MAX elsewhere)
 */
struct xrdma_ep {
	struct xrdma_cm_ctx ctx;
	struct kref ref;
	struct rdma_cm_id *id;
	struct xrdma_xprt *xprt;
	spinlock_t lock;	/* @xprt */
	int status;
	int async_rc;
	struct completion done;
	wait_queue_head_t wait;
	unsigned long flushed;
	bool draining;
	struct ib_pd *pd;
	struct xrdma_cq send_cq;
	struct delayed_work send_cq_watch;
	struct xrdma_cq recv_cq;
	bool was_connected;
	bool passive;
	u32 inline_send;
	u32 inline_recv;
	u8 rd_atom;
	bool remote_inv;
	bool imm_hdr;
	bool land;
	u32 peer_recv;
	u8 peer_flags;
	u32 signal_from;
};

/**
 * struct xrdma_xprt - a persistent transport
 * @opts: what the user asked for
 * @ops: the user's callbacks
 * @priv: the user's pointer
 * @net: namespace to (re)connect in; a reference is held while set
 * @dst: the address to (re)connect to (clients)
 * @mutex: serializes connect, disconnect and destroy
 * @ep: the current connection, or NULL (changes under @mutex and
 *	@send_lock)
 * @send_lock: protects @ring, @credits and posting Sends
 * @send_wait: woken when a credit or a send context frees up
 * @ring: the send-context ring
 * @credits: the flow control state of @ep
 * @sc_cqe: completion entries of the send contexts, one per ring slot
 * @sc_buf: the request buffer each ring slot carries
 * @unsignalled: Sends posted since the last signalled one
 * @rx_posted: receives posted and not completed (under @send_lock)
 * @reqs: request (send) buffers
 * @reps: reply (receive) buffers
 * @rx_buf: the reply buffer whose message xrdma_ops.recv is handling,
 *	while xrdma_send_received() may still send from it (the receive
 *	CQ's work item only, as @rx_msg and @rx_len)
 * @rx_msg: that message, as xrdma_ops.recv was given it
 * @rx_len: its length
 * @rx_limit: the largest Send, header room included, the peer took when
 *	that message came (xrdma_send_limit_locked())
 * @disconnect_work: runs the disconnect a forced disconnect asks for
 * @reconnect_work: the next reconnect attempt
 * @backoff_ms: delay before the next reconnect attempt
 * @stopping: no reconnect from now on (under @mutex)
 * @lsn: the listener for an accepted transport, else NULL
 * @lsn_node: on the listener's list
 * @info: counters (under @send_lock)
 * @frwr: the FRWR pool
 * @rctx: the RDMA READ and WRITE contexts, @opts.depth of them
 * @rctx_free: the free ones (under @send_lock)
 * @rctx_writes: the WRITEs in flight, oldest first (under @send_lock)
 * @rdma_unsignalled: WRITEs posted since the last signalled one (under
 *	@send_lock)
 * @rdma_busy: RDMA operations posted whose outcome the user was not
 *	told yet (under @send_lock)
 * @rdma_done_task: the thread running xrdma_ops.rdma_done, while it
 *	runs (xrdma_wait_refused())
 * @chunks: our chunked messages in flight (under @send_lock)
 * @pull: the READ of the peer's chunk being pulled
 * @dones: the keys of the peer's chunks we pulled and have not told it
 *	of yet, oldest first, @ndone of them; each Send carries the oldest
 *	(under @send_lock)
 * @ndone: see @dones
 * @done_due: how many of the oldest @dones are owed alone: their
 *	receive callback returned and no Send of its carried them.  They
 *	go as soon as a credit, a slot and a buffer are at hand (under
 *	@send_lock)
 * @lands: our landing buffers
 * @peer_lands: landing buffers the peer advertised and we did not use
 *	yet, @nr_peer_lands of them (under @send_lock)
 * @nr_peer_lands: see @peer_lands
 * @pushes_posted: pushes whose WRITE did not complete yet (under
 *	@send_lock)
 * @wr_waits: the posted work requests a thread waits for, struct
 *	xrdma_wr_wait (under @send_lock)
 */
struct xrdma_xprt {
	struct xrdma_opts opts;
	const struct xrdma_ops *ops;
	void *priv;
	struct net *net;
	struct sockaddr_storage dst;
	struct mutex mutex;	/* connect, disconnect, destroy */
	struct xrdma_ep *ep;
	spinlock_t send_lock;	/* ring, credits, posting */
	wait_queue_head_t send_wait;
	struct xrdma_ring ring;
	struct xrdma_credits credits;
	struct ib_cqe *sc_cqe;
	struct xrdma_buf **sc_buf;
	unsigned int unsignalled;
	unsigned int rx_posted;
	struct xrdma_pool reqs;
	struct xrdma_pool reps;
	struct xrdma_buf *rx_buf;
	const void *rx_msg;
	u32 rx_len;
	u32 rx_limit;
	struct work_struct disconnect_work;
	struct delayed_work reconnect_work;
	unsigned int backoff_ms;
	bool stopping;
	struct xrdma_listener *lsn;
	struct list_head lsn_node;
	struct xrdma_info info;
	struct xrdma_frwr frwr;
	struct xrdma_rctx *rctx;
	struct list_head rctx_free;
	struct list_head rctx_writes;
	unsigned int rdma_unsignalled;
	unsigned int rdma_busy;
	struct task_struct *rdma_done_task;
	struct xrdma_chunk chunks[XRDMA_MAX_CHUNKS];
	struct xrdma_pull pull;
	u32 dones[XRDMA_MAX_CHUNKS];
	unsigned int ndone;
	unsigned int done_due;
	struct xrdma_land lands[XRDMA_LANDS];
	struct xrdma_remote peer_lands[XRDMA_LANDS];
	unsigned int nr_peer_lands;
	unsigned int pushes_posted;
	struct list_head wr_waits;
};

/**
 * xrdma_wake_senders() - wake the senders waiting on a transport
 * @xprt: the transport; a credit, a buffer, a send or RDMA context has
 *	just come free, or the connection's state changed (made visible
 *	before the call)
 *
 * Most calls, one per message or completion, find nobody waiting, and
 * the wait queue's lock, taken with interrupts off, is what a wake-up
 * costs then.  A sender queues itself before it checks its condition
 * again (prepare_to_wait_event()), which pairs with the barrier here,
 * so one that is about to sleep is seen.
 *
 * Context: any.
 */
static inline void xrdma_wake_senders(struct xrdma_xprt *xprt)
{
	if (wq_has_sleeper(&xprt->send_wait))
		wake_up(&xprt->send_wait);
}

/**
 * xrdma_wait_refused() - may the caller wait for a send completion?
 * @xprt: the transport
 *
 * Not from xrdma_ops.rdma_done.  It runs as a handler of the send CQ,
 * under the poll that every later completion of that CQ waits behind
 * (the work item's, or the receive work item's reap), or in the
 * teardown after the last poll: what a wait there waits for never
 * comes.  As in xprtrdma, a completion handler does not wait; a call
 * that would returns -EDEADLK instead.
 *
 * Context: any.
 * Return: -EDEADLK from xrdma_ops.rdma_done of @xprt, else 0.
 */
static inline int xrdma_wait_refused(const struct xrdma_xprt *xprt)
{
	return READ_ONCE(xprt->rdma_done_task) == current ? -EDEADLK : 0;
}

/**
 * xrdma_cq_xprt() - the transport whose connection a CQ is of
 * @ibcq: one of a connection's CQs, whose context is its struct xrdma_cq
 *
 * A connection lets go of its transport only after its CQs' quiesce,
 * after which no handler runs, so a handler needs no lock to read it.
 *
 * Context: a completion handler of @ibcq.
 * Return: the transport.
 */
static inline struct xrdma_xprt *xrdma_cq_xprt(const struct ib_cq *ibcq)
{
	const struct xrdma_cq *cq = ibcq->cq_context;

	return cq->ep->xprt;
}

/**
 * struct xrdma_listener - a listening id and the transports it accepted
 * @ctx: says this is a listener
 * @id: the listening id; NULL once a device removal made it go (under
 *	@lock)
 * @opts: options for accepted transports
 * @ops: callbacks for accepted transports
 * @priv: user pointer for accepted transports
 * @lock: protects @xprts, @dead, @count and @closing
 * @closing: being destroyed: accepted transports are no longer retired
 * @xprts: accepted transports still connected
 * @dead: accepted transports whose connection ended, to be destroyed
 * @count: connections accepted so far
 * @reap_work: destroys the transports on @dead
 * @remove_work: destroys @id after its device went away
 */
struct xrdma_listener {
	struct xrdma_cm_ctx ctx;
	struct rdma_cm_id *id;
	struct xrdma_opts opts;
	const struct xrdma_ops *ops;
	void *priv;
	spinlock_t lock;	/* the lists, count, closing */
	struct list_head xprts;
	struct list_head dead;
	unsigned int count;
	bool closing;
	struct work_struct reap_work;
	struct work_struct remove_work;
};

extern struct workqueue_struct *xrdma_wq;

/* ep.c */
struct xrdma_ep *xrdma_ep_alloc(struct xrdma_xprt *xprt);
void xrdma_ep_get(struct xrdma_ep *ep);
bool xrdma_ep_put(struct xrdma_ep *ep);
void xrdma_ep_free(struct xrdma_ep *ep);
void xrdma_ep_force_disconnect(struct xrdma_ep *ep);
void xrdma_ep_post_failed(struct xrdma_ep *ep, int rc);
int xrdma_cm_event_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
int xrdma_ep_publish(struct xrdma_xprt *xprt, struct xrdma_ep *ep);
void xrdma_ep_update_private(struct xrdma_ep *ep,
			     const struct rdma_conn_param *param);
void xrdma_ep_fill_private(struct xrdma_ep *ep, struct xrdma_cm_private *pd);

/* qp.c */
int xrdma_ep_setup_qp(struct xrdma_ep *ep, struct xrdma_xprt *xprt);
void xrdma_ep_release_qp(struct xrdma_ep *ep);

/* xprt.c */
struct xrdma_xprt *xrdma_xprt_alloc(const struct xrdma_opts *opts,
				    const struct xrdma_ops *ops, void *priv);
void xrdma_xprt_attach(struct xrdma_xprt *xprt, struct xrdma_ep *ep);
int xrdma_xprt_start(struct xrdma_xprt *xprt, struct xrdma_ep *ep);
void xrdma_xprt_free(struct xrdma_xprt *xprt);
void xrdma_step_done(struct xrdma_xprt *xprt, enum xrdma_step step,
		     u64 start);

/* connect.c */
void xrdma_reconnect_worker(struct work_struct *work);

/* disconnect.c */
#if IS_ENABLED(CONFIG_KUNIT)
void xrdma_ep_drain(struct xrdma_xprt *xprt, struct xrdma_ep *ep);
#endif
void xrdma_ep_teardown(struct xrdma_xprt *xprt);
void xrdma_disconnect_worker(struct work_struct *work);

/**
 * struct xrdma_out - what one Send is to carry
 * @data: the inline payload, or NULL
 * @len: its length
 * @flags: XRDMA_HDR_DATA, with XRDMA_HDR_CHUNK for a chunked message;
 *	0 for a credit update or a DONE alone
 * @chunk: with XRDMA_HDR_CHUNK, the registration to advertise
 * @slot: with XRDMA_HDR_CHUNK, armed once the Send is posted
 * @inv: invalidate the peer's key @rkey with this Send
 * @rkey: see @inv
 * @push: a message to push into a landing buffer of the peer's, with
 *	a WRITE posted right before this Send, which announces it
 * @buf: a buffer whose @len bytes at @at are the payload (@data is
 *	NULL): a request buffer lent to the user, who wrote them there, or
 *	the reply buffer they arrived in; else one is taken from the pool
 * @at: with @buf, where in it the payload starts, XRDMA_HDR_MAX or more
 */
struct xrdma_out {
	const void *data;
	u32 len;
	u32 flags;
	struct xrdma_remote chunk;
	struct xrdma_chunk *slot;
	bool inv;
	u32 rkey;
	struct xrdma_push *push;
	struct xrdma_buf *buf;
	u32 at;
};

/* send.c */
int xrdma_sendctx_create(struct xrdma_xprt *xprt);
void xrdma_sendctx_destroy(struct xrdma_xprt *xprt);
void xrdma_sendctx_reset(struct xrdma_xprt *xprt);
u32 xrdma_send_limit_locked(struct xrdma_xprt *xprt);
#if IS_ENABLED(CONFIG_KUNIT)
bool xrdma_send_signal(struct xrdma_xprt *xprt, u32 len, u32 signal_from);
bool xrdma_send_from_rx(struct xrdma_xprt *xprt, const struct xrdma_buf *buf,
			const void *data, u32 len);
#endif
void xrdma_send_credit_update(struct xrdma_xprt *xprt);
int xrdma_send_wait(struct xrdma_xprt *xprt, struct xrdma_out *out);
int xrdma_done_owe(struct xrdma_xprt *xprt, u32 rkey);
int xrdma_send_dones(struct xrdma_xprt *xprt);
int xrdma_send_done(struct xrdma_xprt *xprt);

/* chunk.c */
int xrdma_chunk_send(struct xrdma_xprt *xprt, const void *data, u32 len,
		     struct xrdma_out *out);
int xrdma_chunk_done(struct xrdma_xprt *xprt, u32 rkey);
int xrdma_chunk_recv(struct xrdma_xprt *xprt,
		     const struct xrdma_remote *chunk);
void xrdma_chunks_reset(struct xrdma_xprt *xprt);
void xrdma_pull_init(struct xrdma_xprt *xprt);

/* land.c */
bool xrdma_push_source_ok(const void *data, u32 len);
int xrdma_push_send(struct xrdma_xprt *xprt, const void *data, u32 len,
		    struct xrdma_out *out);
bool xrdma_push_ready(struct xrdma_xprt *xprt);
int xrdma_push_prep(struct xrdma_xprt *xprt, struct xrdma_ep *ep,
		    struct xrdma_push *push, struct xrdma_msg *msg);
void xrdma_push_unprep(struct xrdma_ep *ep, struct xrdma_push *push);
#if IS_ENABLED(CONFIG_KUNIT)
bool xrdma_peer_land_add(struct xrdma_remote *lands, unsigned int *nr,
			 const struct xrdma_remote *land);
bool xrdma_peer_land_take(struct xrdma_remote *lands, unsigned int *nr,
			  struct xrdma_remote *land);
#endif
void xrdma_land_offer(struct xrdma_xprt *xprt, struct xrdma_msg *msg);
void xrdma_land_offered(struct xrdma_xprt *xprt, u32 rkey);
void xrdma_land_heard(struct xrdma_xprt *xprt, const struct xrdma_remote *land);
int xrdma_land_recv(struct xrdma_xprt *xprt,
		    const struct xrdma_remote *pushed);
void xrdma_land_refill(struct xrdma_xprt *xprt);
void xrdma_lands_reset(struct xrdma_xprt *xprt);
void xrdma_lands_free(struct xrdma_xprt *xprt);

/* recv.c */
void xrdma_post_recvs(struct xrdma_xprt *xprt);
void xrdma_flush_disconnect(struct xrdma_xprt *xprt, const struct ib_wc *wc);

/* frwr.c */
void xrdma_frwr_init(struct xrdma_xprt *xprt);
void xrdma_frwr_attach(struct xrdma_xprt *xprt, struct xrdma_ep *ep);
void xrdma_frwr_detach(struct xrdma_xprt *xprt);
void xrdma_frwr_destroy(struct xrdma_xprt *xprt);
struct xrdma_mr *xrdma_mr_register_access(struct xrdma_xprt *xprt,
					  void *buf, u32 len, int access,
					  struct xrdma_remote *desc);
int xrdma_mr_lkey(struct xrdma_xprt *xprt, struct xrdma_mr *mr, u32 *lkey);
bool xrdma_frwr_remote_inv(struct xrdma_xprt *xprt, u32 rkey);

/* rdma.c */
int xrdma_rctx_create(struct xrdma_xprt *xprt);
void xrdma_rctx_destroy(struct xrdma_xprt *xprt);
void xrdma_rctx_reset(struct xrdma_xprt *xprt);
void xrdma_rdma_retire_writes(struct xrdma_xprt *xprt);
#if IS_ENABLED(CONFIG_KUNIT)
bool xrdma_rdma_signal(struct xrdma_xprt *xprt, enum xrdma_rdma_op op,
		       u32 len, u32 signal_from);
#endif
int xrdma_ep_live(struct xrdma_xprt *xprt, struct xrdma_ep **epp);
int xrdma_post_wr(struct xrdma_xprt *xprt, const struct ib_send_wr *wr,
		  struct xrdma_wr_wait *w);
unsigned int xrdma_sq_depth(unsigned int depth);

/* cq.c */
int xrdma_cq_init(void);
void xrdma_cq_exit(void);
bool xrdma_cq_may_miss(const struct ib_device *dev);
void xrdma_cq_prepare(struct xrdma_cq *cq, struct xrdma_ep *ep,
		      enum xrdma_cq_armed (*rearm)(struct xrdma_cq *cq),
		      unsigned int flags);
int xrdma_cq_create(struct xrdma_cq *cq, unsigned int cqe);
enum xrdma_cq_armed xrdma_cq_notify(struct xrdma_cq *cq);
void xrdma_cq_kick(struct xrdma_cq *cq);
int xrdma_cq_try_poll(struct xrdma_cq *cq);
void xrdma_cq_off(struct xrdma_cq *cq);
void xrdma_cq_quiesce(struct xrdma_cq *cq);
void xrdma_cq_destroy(struct xrdma_cq *cq);
#if IS_ENABLED(CONFIG_KUNIT)
void xrdma_cq_worker(struct work_struct *work);
void xrdma_cq_event(struct ib_cq *ibcq, void *context);
#endif

/* send_cq.c */
int xrdma_send_cq_create(struct xrdma_ep *ep, unsigned int cqe);
void xrdma_send_cq_quiesce(struct xrdma_ep *ep);
void xrdma_send_cq_destroy(struct xrdma_ep *ep);
void xrdma_send_cq_arm(struct xrdma_ep *ep);
bool xrdma_send_cq_ready_or_arm(struct xrdma_xprt *xprt, bool ready);
void xrdma_send_cq_reap(struct xrdma_ep *ep);
#if IS_ENABLED(CONFIG_KUNIT)
bool xrdma_send_cq_wanted(struct xrdma_xprt *xprt, const struct xrdma_ep *ep);
bool xrdma_send_cq_reap_due(const struct xrdma_xprt *xprt);
void xrdma_send_cq_prepare(struct xrdma_ep *ep, bool recheck);
void xrdma_send_cq_watcher(struct work_struct *work);
#endif

/* wr_wait.c */
void xrdma_wr_wait_init(struct xrdma_wr_wait *w,
			void (*done)(struct ib_cq *cq, struct ib_wc *wc));
void xrdma_wr_wait_posted(struct xrdma_xprt *xprt, struct xrdma_wr_wait *w);
void xrdma_wr_wait_done(struct xrdma_xprt *xprt, struct xrdma_wr_wait *w,
			const struct ib_wc *wc);
int xrdma_wr_wait_post(struct xrdma_xprt *xprt, struct ib_send_wr *wr,
		       struct xrdma_wr_wait *w, bool *posted);
void xrdma_wr_waits_flush(struct xrdma_xprt *xprt, struct xrdma_ep *ep);

/* listen.c */
void xrdma_listener_retire(struct xrdma_xprt *xprt);

#endif /* _XRDMA_H */
