/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrping: a krping-class test and benchmark tool on xrdma, driven
 * through configfs:
 *
 *   /sys/kernel/config/xrping/servers/NAME/   a server (echo) on addr:port
 *   /sys/kernel/config/xrping/tests/NAME/     a client test and its results
 */
#ifndef _XRPING_H
#define _XRPING_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/configfs.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/sysfs.h>
#include <net/xrdma.h>

#define XRPING_DEFAULT_PORT	18515
#define XRPING_MAX_CONNS	64
#define XRPING_MAX_COUNT	1000000
/* How long a test waits for a lost connection to come back. */
#define XRPING_RECONNECT_WAIT_MS	30000

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
};

/**
 * struct xrping_params - what a test is asked to do
 * @addr: the server's address
 * @port: the server's port
 * @size: message size in bytes
 * @count: messages in all, spread over the connections
 * @conns: connections open at once
 * @window: messages in flight on a connection, at most @opts.depth
 * @opts: transport options of each connection
 */
struct xrping_params {
	struct sockaddr_storage addr;
	u32 port;
	u32 size;
	u32 count;
	u32 conns;
	u32 window;
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
	struct xrping_stat steps[XRDMA_NR_STEPS];
};

/**
 * struct xrping_test - a configfs client test object
 * @item: its configfs item
 * @lock: serializes attribute writes and runs
 * @params: the options
 * @result: the last run's results
 * @ran: a run finished since the object was made
 */
struct xrping_test {
	struct config_item item;
	struct mutex lock;	/* attributes, runs */
	struct xrping_params params;
	struct xrping_result result;
	bool ran;
};

extern const struct config_item_type xrping_server_type;
extern const struct config_item_type xrping_test_type;

int xrping_parse_addr(const char *page, size_t len,
		      struct sockaddr_storage *ss);
int xrping_show_addr(const struct sockaddr_storage *ss, char *page);
void xrping_set_port(struct sockaddr_storage *ss, u16 port);
int xrping_parse_uint(const char *page, u32 min, u32 max, u32 *val);

void xrping_run(const struct xrping_params *p, struct xrping_result *res);

void xrping_stat_add(struct xrping_stat *st, u64 v);
void xrping_latency(u64 *rtt, u64 n, struct xrping_result *res);
int xrping_format(const struct xrping_params *p,
		  const struct xrping_result *res, char *page);

#endif /* _XRPING_H */
