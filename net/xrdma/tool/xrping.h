/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrping: a krping-class test and benchmark tool on xrdma, driven
 * through configfs:
 *
 *   /sys/kernel/config/xrping/servers/NAME/   a server (echo) on addr:port
 *   /sys/kernel/config/xrping/tests/NAME/     a client test and its results
 *
 * Besides echoing, a server answers control messages (struct
 * xrping_ctl): it exposes a registered buffer for RDMA READ and WRITE,
 * checks or refills it, and sinks a one-way stream of Sends.
 */
#ifndef _XRPING_H
#define _XRPING_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/configfs.h>
#include <linux/mutex.h>
#include <linux/list.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <net/xrdma.h>

#define XRPING_DEFAULT_PORT	18515
#define XRPING_MAX_CONNS	64
#define XRPING_MAX_COUNT	1000000
/* How long a test waits for a lost connection to come back. */
#define XRPING_RECONNECT_WAIT_MS	30000
/* The largest message of a test: a whole registration. */
#define XRPING_MAX_SIZE		XRDMA_MAX_RDMA

/**
 * enum xrping_op - what carries a test's data
 * @XRPING_OP_SEND: Sends (messages); above the inline size, chunks the
 *	peer pulls
 * @XRPING_OP_WRITE: RDMA WRITEs into the server's exposed buffer
 * @XRPING_OP_READ: RDMA READs from it
 * @XRPING_NR_OPS: how many there are
 */
enum xrping_op {
	XRPING_OP_SEND,
	XRPING_OP_WRITE,
	XRPING_OP_READ,
	XRPING_NR_OPS
};

/**
 * enum xrping_mode - how a test moves its data
 * @XRPING_MODE_PINGPONG: one message (window: several) at a time,
 *	each validated and timed
 * @XRPING_MODE_BW: a stream of @count, @window in flight, for bandwidth
 * @XRPING_MODE_DUPLEX: both directions at once (Sends echoed while
 *	the stream goes on; WRITEs and READs interleaved)
 * @XRPING_MODE_FLOOR: no xrdma at all: the same op on two bare QPs of
 *	the address's device, for comparison (floor.c)
 * @XRPING_MODE_STALE: one WRITE under a key the server has invalidated
 *	and replaced since; passes when the device refuses it
 * @XRPING_NR_MODES: how many there are
 */
enum xrping_mode {
	XRPING_MODE_PINGPONG,
	XRPING_MODE_BW,
	XRPING_MODE_DUPLEX,
	XRPING_MODE_FLOOR,
	XRPING_MODE_STALE,
	XRPING_NR_MODES
};

extern const char *const xrping_op_names[XRPING_NR_OPS];
extern const char *const xrping_mode_names[XRPING_NR_MODES];

/* "XRPC" in memory: bytes that step by -6, -2, -13, where the pattern
 * of a data message steps by +13, so no data message looks like one.
 */
#define XRPING_CTL_MAGIC	0x43505258
#define XRPING_CTL_REPLY	0x100

/**
 * enum xrping_cmd - control requests a server answers
 * @XRPING_CTL_EXPOSE: register a buffer of @len filled with the pattern
 *	of @seq; the reply advertises it
 * @XRPING_CTL_VERIFY: does the buffer hold the pattern of @seq in its
 *	first @len bytes?  The buffer is registered again (a new key)
 * @XRPING_CTL_FILL: fill the buffer with the pattern of @seq, register
 *	it again
 * @XRPING_CTL_SINK: take the next @count messages as a one-way stream,
 *	numbered from 0: validate, do not echo
 * @XRPING_CTL_STATS: how many the sink took, how many were bad
 */
enum xrping_cmd {
	XRPING_CTL_EXPOSE = 1,
	XRPING_CTL_VERIFY,
	XRPING_CTL_FILL,
	XRPING_CTL_SINK,
	XRPING_CTL_STATS,
};

/**
 * struct xrping_ctl - a control request or its reply (cmd | REPLY)
 * @magic: XRPING_CTL_MAGIC
 * @cmd: enum xrping_cmd, with XRPING_CTL_REPLY in a reply
 * @seq: pattern number
 * @len: bytes
 * @addr: the exposed buffer's address (replies)
 * @rkey: its key (replies)
 * @status: 0 or a negative errno (replies)
 * @count: messages (SINK; the reply to STATS)
 * @errors: bad messages (the reply to STATS)
 */
struct xrping_ctl {
	__le32 magic;
	__le32 cmd;
	__le32 seq;
	__le32 len;
	__le64 addr;
	__le32 rkey;
	__le32 status;
	__le64 count;
	__le64 errors;
} __packed;

/**
 * struct xrping_server - a configfs server object
 * @item: its configfs item
 * @lock: serializes attribute writes and enable/disable
 * @addr: the address to listen on (port filled in at enable)
 * @port: the port
 * @opts: options of accepted transports
 * @lsn: the listener while enabled
 * @echoed: messages echoed back
 * @errors: messages that could not be echoed
 * @peers_lock: protects @peers
 * @peers: per-connection state of the connections that asked for some
 * @registered: buffers registered for the peers
 * @verified: VERIFY requests that found the pattern
 * @bad: VERIFY requests that did not, and bad sunk messages
 * @sunk: messages taken by sinks
 * @xinfo_lock: protects @xinfo
 * @xinfo: chunk and invalidation counters of the transports that are
 *	gone, summed (added when each is destroyed)
 */
struct xrping_server {
	struct config_item item;
	struct mutex lock;	/* attributes, enable */
	struct sockaddr_storage addr;
	u16 port;
	struct xrdma_opts opts;
	struct xrdma_listener *lsn;
	atomic64_t echoed;
	atomic64_t errors;
	spinlock_t peers_lock;	/* @peers */
	struct list_head peers;
	atomic64_t registered;
	atomic64_t verified;
	atomic64_t bad;
	atomic64_t sunk;
	spinlock_t xinfo_lock;	/* @xinfo */
	struct xrdma_info xinfo;
};

/**
 * struct xrping_params - what a test is asked to do
 * @addr: the server's address
 * @port: the server's port
 * @size: message size in bytes (RDMA: up to XRPING_MAX_SIZE)
 * @count: messages in all, spread over the connections
 * @conns: connections open at once
 * @window: messages in flight on a connection, at most @opts.depth
 * @chain: 1 to let a completion post the next message or operation
 *	itself (a send pingpong one at a time inline, a write or read
 *	bw), 0 to post each from the run's thread
 * @op: enum xrping_op
 * @mode: enum xrping_mode
 * @opts: transport options of each connection
 */
struct xrping_params {
	struct sockaddr_storage addr;
	u32 port;
	u32 size;
	u32 count;
	u32 conns;
	u32 window;
	u32 chain;
	u32 op;
	u32 mode;
	struct xrdma_opts opts;
};

/**
 * struct xrping_stat - min, max and sum of a series
 * @min: smallest
 * @max: largest
 * @sum: total
 * @n: how many
 */
struct xrping_stat {
	u64 min;
	u64 max;
	u64 sum;
	u64 n;
};

/**
 * struct xrping_result - what a test run found
 * @rc: 0, or the errno that stopped the run
 * @messages: round trips completed and validated
 * @errors: messages that failed validation, or sends that failed
 * @elapsed_ns: time of the data phase
 * @lat_min: one-way latency (half the round trip), ns: smallest
 * @lat_median: median
 * @lat_avg: average
 * @lat_p99: 99th percentile
 * @lat_p999: 99.9th percentile
 * @bytes: payload bytes moved, both directions
 * @reconnects: connections the transports made again on their own
 * @has_lat: latency figures were measured (not in bw or duplex modes)
 * @rkeys: keys the server advertised (RDMA tests), one per registration
 * @rkeys_distinct: how many of those differ from every other
 * @xinfo: the client transport's counters at the end (RDMA tests)
 * @steps: per connection step, over all connections
 */
struct xrping_result {
	int rc;
	u64 messages;
	u64 errors;
	u64 elapsed_ns;
	u64 lat_min;
	u64 lat_median;
	u64 lat_avg;
	u64 lat_p99;
	u64 lat_p999;
	u64 bytes;
	u64 reconnects;
	bool has_lat;
	u64 rkeys;
	u64 rkeys_distinct;
	struct xrdma_info xinfo;
	struct xrping_stat steps[XRDMA_NR_STEPS];
};

/**
 * struct xrping_test - a configfs client test object
 * @item: its configfs item
 * @lock: serializes attribute writes and runs
 * @params: the options
 * @result: the last run's results
 * @ran_params: the parameters that run had (as it adjusted them)
 * @ran: the last run written finished, and @result is its
 * @refused: 0, or the error the last run written was refused with
 */
struct xrping_test {
	struct config_item item;
	struct mutex lock;	/* attributes, runs */
	struct xrping_params params;
	struct xrping_result result;
	struct xrping_params ran_params;
	bool ran;
	int refused;
};

extern const struct config_item_type xrping_server_type;
extern const struct config_item_type xrping_test_type;

int xrping_parse_addr(const char *page, size_t len,
		      struct sockaddr_storage *ss);
int xrping_show_addr(const struct sockaddr_storage *ss, char *page);
void xrping_set_port(struct sockaddr_storage *ss, u16 port);
int xrping_parse_uint(const char *page, u32 min, u32 max, u32 *val);

void xrping_run(const struct xrping_params *p, struct xrping_result *res);
int xrping_dial(const struct xrping_params *p, const struct xrdma_ops *ops,
		void *priv, struct xrdma_xprt **xprtp);
void xrping_run_rdma(const struct xrping_params *p,
		     struct xrping_result *res);
void xrping_run_send_bw(const struct xrping_params *p,
			struct xrping_result *res);
void xrping_run_floor(const struct xrping_params *p,
		      struct xrping_result *res);

void xrping_fill(u8 *buf, u32 size, u32 seq);
bool xrping_valid(const u8 *buf, u32 len, u32 size, u32 seq);
bool xrping_ctl_parse(const void *data, u32 len, struct xrping_ctl *ctl);
void xrping_ctl_init(struct xrping_ctl *ctl, u32 cmd, u32 seq, u32 len);

void xrping_server_closed(struct xrdma_xprt *xprt);
void xrping_server_ctl(struct xrping_server *srv, struct xrdma_xprt *xprt,
		       const struct xrping_ctl *req);
bool xrping_server_sink(struct xrping_server *srv, struct xrdma_xprt *xprt,
			const void *data, u32 len);

void xrping_stat_add(struct xrping_stat *st, u64 v);
void xrping_latency(u64 *rtt, u64 n, struct xrping_result *res);
void xrping_xinfo_add(struct xrdma_info *sum, const struct xrdma_info *info);
int xrping_format(const struct xrping_params *p,
		  const struct xrping_result *res, char *page);

#endif /* _XRPING_H */
