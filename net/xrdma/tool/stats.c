// SPDX-License-Identifier: GPL-2.0
/*
 * xrping statistics: latency percentiles from the round trips, and the
 * results as "key value" lines, one figure a line, that a person reads
 * and a script splits on the first space.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/sort.h>

#include "xrping.h"

static const char *const xrping_step_names[XRDMA_NR_STEPS] = {
	[XRDMA_STEP_CREATE_ID] = "create_id",
	[XRDMA_STEP_RESOLVE_ADDR] = "resolve_addr",
	[XRDMA_STEP_RESOLVE_ROUTE] = "resolve_route",
	[XRDMA_STEP_CREATE_QP] = "create_qp",
	[XRDMA_STEP_CONNECT] = "connect",
	[XRDMA_STEP_ESTABLISHED] = "established",
	[XRDMA_STEP_DISCONNECT] = "disconnect",
	[XRDMA_STEP_DESTROY] = "destroy",
};

/**
 * xrping_stat_add() - add one value to a min/max/average series
 * @st: the series
 * @v: the value
 *
 * Context: any; the caller serializes.
 */
void xrping_stat_add(struct xrping_stat *st, u64 v)
{
	if (!st->n || v < st->min)
		st->min = v;
	if (v > st->max)
		st->max = v;
	st->sum += v;
	st->n++;
}

static int xrping_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The value below which @per_mille of the sorted series lies. */
static u64 xrping_pct(const u64 *sorted, u64 n, u32 per_mille)
{
	u64 i = div_u64(n * per_mille + 999, 1000);

	return sorted[i ? i - 1 : 0];
}

/**
 * xrping_xinfo_add() - add a transport's chunk, invalidation and MR
 *	counters to a sum
 * @sum: the sum
 * @info: one transport's counters
 *
 * Context: any; the caller serializes the writers of @sum.
 */
void xrping_xinfo_add(struct xrdma_info *sum, const struct xrdma_info *info)
{
	sum->chunks_sent += info->chunks_sent;
	sum->chunks_received += info->chunks_received;
	sum->sends_inv += info->sends_inv;
	sum->sends_imm += info->sends_imm;
	sum->sends_received += info->sends_received;
	sum->pushes_sent += info->pushes_sent;
	sum->pushes_received += info->pushes_received;
	sum->mr_remote_invs += info->mr_remote_invs;
	sum->mr_invs_skipped += info->mr_invs_skipped;
	sum->mr_regs += info->mr_regs;
	sum->mr_invs += info->mr_invs;
	sum->mr_dropped += info->mr_dropped;
	sum->send_cq_rescued += info->send_cq_rescued;
}

/**
 * xrping_latency() - latency figures from round-trip times
 * @rtt: the round trips in ns; sorted in place
 * @n: how many, at least 1
 * @res: gets one-way figures (half the round trip)
 *
 * Context: process context.
 */
void xrping_latency(u64 *rtt, u64 n, struct xrping_result *res)
{
	u64 sum = 0, i;

	sort(rtt, n, sizeof(*rtt), xrping_cmp_u64, NULL);
	for (i = 0; i < n; i++)
		sum += rtt[i];
	res->lat_min = rtt[0] / 2;
	res->lat_median = xrping_pct(rtt, n, 500) / 2;
	res->lat_avg = div64_u64(sum, n) / 2;
	res->lat_p99 = xrping_pct(rtt, n, 990) / 2;
	res->lat_p999 = xrping_pct(rtt, n, 999) / 2;
}

static int xrping_format_steps(const struct xrping_result *res, char *page,
			       int at)
{
	const struct xrping_stat *st;
	int i;

	for (i = 0; i < XRDMA_NR_STEPS; i++) {
		st = &res->steps[i];
		if (!st->n)
			continue;
		at += sysfs_emit_at(page, at,
				    "setup_%s_ns min=%llu max=%llu avg=%llu n=%llu\n",
				    xrping_step_names[i], st->min, st->max,
				    div64_u64(st->sum, st->n), st->n);
	}
	return at;
}

/* What the FRWR pool and the RDMA path of the client's transport did. */
static int xrping_format_rdma(const struct xrping_result *res, char *page,
			      int at)
{
	const struct xrdma_info *x = &res->xinfo;

	at += sysfs_emit_at(page, at,
			    "rkeys %llu\nrkeys_distinct %llu\nrdma_ops %llu\nrdma_bytes %llu\n",
			    res->rkeys, res->rkeys_distinct, x->rdma_ops,
			    x->rdma_bytes);
	at += sysfs_emit_at(page, at,
			    "mr_regs %llu\nmr_invs %llu\nmr_refills %llu\nmr_dropped %llu\nmr_last_rkey 0x%08x\n",
			    x->mr_regs, x->mr_invs, x->mr_refills,
			    x->mr_dropped, x->mr_last_rkey);
	return at;
}

/* Chunked Sends and the invalidations the peers did for each other,
 * and send completions the device raised no event for; for Sends also
 * the registrations their chunks took.
 */
static int xrping_format_chunks(const struct xrping_result *res, bool send,
				char *page, int at)
{
	const struct xrdma_info *x = &res->xinfo;

	if (send)
		at += sysfs_emit_at(page, at,
				    "mr_regs %llu\nmr_invs %llu\nmr_dropped %llu\n",
				    x->mr_regs, x->mr_invs, x->mr_dropped);
	return at + sysfs_emit_at(page, at,
				  "chunks_sent %llu\nchunks_received %llu\npushes_sent %llu\npushes_received %llu\nsends_inv %llu\nsends_imm %llu\nmr_remote_invs %llu\nmr_invs_skipped %llu\nsend_cq_rescued %llu\n",
				  x->chunks_sent, x->chunks_received,
				  x->pushes_sent, x->pushes_received,
				  x->sends_inv, x->sends_imm, x->mr_remote_invs,
				  x->mr_invs_skipped, x->send_cq_rescued);
}

/* The coarsest clock step a timed figure may be read with. A clock
 * source that counts ticks (jiffies, as a guest under TCG falls back
 * to when its TSC is judged unreliable) moves in steps of 1 to 10 ms:
 * a round trip of 20 us then reads as 0 or as a whole tick, and the
 * figures are the tick's, not the transport's.  A counter (TSC, HPET,
 * ACPI PM) steps by far less than this, even under emulation.
 */
#define XRPING_CLOCK_MAX_STEP_NS	(10 * NSEC_PER_USEC)

/* How finely ktime_get_ns() resolves time now, in ns: the smallest of
 * three jumps from a reading to the first one that differs from it.
 * Sets *@still when a reading equalled the one before it: the clock
 * stood still between two readings, so the jump is its step.  A clock
 * that moves at every reading is finer than the cost of a reading (which
 * lockdep and emulation can make microseconds), and the jump is only an
 * upper bound.  Spins at most a second, by jiffies, which move whatever
 * the clock source is.
 */
static u64 xrping_clock_step(bool *still)
{
	unsigned long deadline = jiffies + HZ;
	u64 best = U64_MAX, t0, t;
	int i;

	*still = false;
	for (i = 0; i < 3; i++) {
		t0 = ktime_get_ns();
		while ((t = ktime_get_ns()) == t0 &&
		       time_before(jiffies, deadline))
			*still = true;
		if (t != t0)
			best = min(best, t - t0);
	}
	return best;
}

/* The latency and per-step setup figures, or, on a clock too coarse
 * for them, the refusal and the clock's step instead.
 */
static int xrping_format_times(const struct xrping_result *res, char *page,
			       int at)
{
	bool still;
	u64 step = xrping_clock_step(&still);

	at += sysfs_emit_at(page, at, "clock_step_ns %llu\n", step);
	if (still && step > XRPING_CLOCK_MAX_STEP_NS)
		return at + sysfs_emit_at(page, at,
					  "timing refused: the clock steps by %llu ns, more than %lu\n",
					  step, XRPING_CLOCK_MAX_STEP_NS);
	if (res->has_lat)
		at += sysfs_emit_at(page, at,
				    "lat_min_ns %llu\nlat_median_ns %llu\nlat_avg_ns %llu\nlat_p99_ns %llu\nlat_p99.9_ns %llu\n",
				    res->lat_min, res->lat_median,
				    res->lat_avg, res->lat_p99,
				    res->lat_p999);
	return xrping_format_steps(res, page, at);
}

/**
 * xrping_format() - the results of a run as text
 * @p: the run's parameters
 * @res: its results
 * @page: a PAGE_SIZE buffer
 *
 * Context: process context.
 * Return: the length written.
 */
int xrping_format(const struct xrping_params *p,
		  const struct xrping_result *res, char *page)
{
	u64 secs_ns = max_t(u64, res->elapsed_ns, 1);
	u64 mbps = div64_u64(res->bytes * 8 * 1000, secs_ns);
	u64 rate = div64_u64(res->messages * NSEC_PER_SEC, secs_ns);
	int at = 0;

	at += sysfs_emit_at(page, at, "status %s\nerror %d\n",
			    res->rc || res->errors ? "fail" : "pass",
			    res->rc);
	at += sysfs_emit_at(page, at,
			    "op %s\nmode %s\nsize %u\ncount %u\nconnections %u\nwindow %u\nchain %u\ndepth %u\n",
			    xrping_op_names[p->op], xrping_mode_names[p->mode],
			    p->size, p->count, p->conns, p->window, p->chain,
			    p->opts.depth);
	at += sysfs_emit_at(page, at,
			    "messages %llu\nerrors %llu\nreconnects %llu\nelapsed_us %llu\nbytes %llu\n",
			    res->messages, res->errors, res->reconnects,
			    div_u64(res->elapsed_ns, 1000), res->bytes);
	at += sysfs_emit_at(page, at, "gbps %llu.%03llu\nmsg_per_sec %llu\n",
			    div_u64(mbps, 1000), mbps % 1000, rate);
	if (p->op != XRPING_OP_SEND && p->mode != XRPING_MODE_FLOOR)
		at = xrping_format_rdma(res, page, at);
	if (p->mode != XRPING_MODE_FLOOR)
		at = xrping_format_chunks(res, p->op == XRPING_OP_SEND, page,
					  at);
	return xrping_format_times(res, page, at);
}
