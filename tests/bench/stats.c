// SPDX-License-Identifier: GPL-2.0
/*
 * cm_bench statistics: per step minimum, maximum, average, sum and span
 * over a run's connections, and the report lines that carry them.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/math64.h>

#include "cm_bench.h"

static const char *const cmb_step_names[CMB_NR_STEPS] = {
	[CMB_CREATE] = "create_id",
	[CMB_ADDR] = "resolve_addr",
	[CMB_ROUTE] = "resolve_route",
	[CMB_QP] = "create_qp",
	[CMB_CONNECT] = "connect",
	[CMB_ESTAB] = "established",
	[CMB_DATA] = "data",
	[CMB_DISC] = "disconnect",
	[CMB_DESTROY] = "destroy",
	[CMB_SRV_QP] = "srv_create_qp",
	[CMB_SRV_ACCEPT] = "srv_accept",
};

/**
 * cmb_step_name() - a step's name in the report
 * @step: the step
 *
 * Return: its name.
 */
const char *cmb_step_name(enum cmb_step step)
{
	return cmb_step_names[step];
}

/**
 * cmb_stat() - one step's figures over the connections that did it
 * @run: the run, finished (no handler writes its times any more)
 * @step: the step
 * @st: the figures, all zero when no connection did the step
 */
void cmb_stat(const struct cmb_run *run, enum cmb_step step,
	      struct cmb_stat *st)
{
	const struct cmb_conn *c;
	s64 d;
	u32 i;

	memset(st, 0, sizeof(*st));
	st->min = S64_MAX;
	for (i = 0; i < run->n; i++) {
		c = &run->conns[i];
		if (!c->start[step] || !c->end[step])
			continue;
		d = ktime_to_ns(ktime_sub(c->end[step], c->start[step]));
		st->count++;
		st->min = min(st->min, d);
		st->max = max(st->max, d);
		st->sum += d;
		if (!st->first || ktime_before(c->start[step], st->first))
			st->first = c->start[step];
		if (ktime_after(c->end[step], st->last))
			st->last = c->end[step];
	}
	if (!st->count)
		st->min = 0;
}

/**
 * cmb_span_ns() - time from the first start of one step to the last end
 *	of another
 * @run: the run, finished
 * @from: the first step
 * @to: the last step
 *
 * Return: nanoseconds, 0 when a step was not done.
 */
s64 cmb_span_ns(const struct cmb_run *run, enum cmb_step from,
		enum cmb_step to)
{
	struct cmb_stat a, b;

	cmb_stat(run, from, &a);
	cmb_stat(run, to, &b);
	if (!a.count || !b.count)
		return 0;
	return ktime_to_ns(ktime_sub(b.last, a.first));
}

/**
 * cmb_accept_ns() - how long the listener took to accept the storm
 * @run: the run, finished
 *
 * Return: nanoseconds from the first connect request sent to the last
 * ESTABLISHED on the server side, 0 if none.
 */
s64 cmb_accept_ns(const struct cmb_run *run)
{
	ktime_t first = 0, last = 0;
	const struct cmb_conn *c;
	u32 i;

	for (i = 0; i < run->n; i++) {
		c = &run->conns[i];
		if (!c->start[CMB_CONNECT] || !c->accepted)
			continue;
		if (!first || ktime_before(c->start[CMB_CONNECT], first))
			first = c->start[CMB_CONNECT];
		if (ktime_after(c->accepted, last))
			last = c->accepted;
	}
	return first ? ktime_to_ns(ktime_sub(last, first)) : 0;
}

/**
 * cmb_report_steps() - one line per step: "step NAME COUNT MIN_US MAX_US
 *	AVG_US SUM_US SPAN_US"
 * @run: the run, finished
 * @buf: where to write
 * @len: its size
 *
 * Return: bytes written, without the NUL.
 */
int cmb_report_steps(const struct cmb_run *run, char *buf, size_t len)
{
	struct cmb_stat st;
	enum cmb_step step;
	int n = 0;

	for (step = 0; step < CMB_NR_STEPS; step++) {
		cmb_stat(run, step, &st);
		n += scnprintf(buf + n, len - n,
			       "step %s %u %lld %lld %lld %lld %lld\n",
			       cmb_step_name(step), st.count,
			       div_s64(st.min, NSEC_PER_USEC),
			       div_s64(st.max, NSEC_PER_USEC),
			       st.count ? div_s64(div_s64(st.sum, NSEC_PER_USEC),
						  st.count) : 0,
			       div_s64(st.sum, NSEC_PER_USEC),
			       div_s64(ktime_to_ns(ktime_sub(st.last, st.first)),
				       NSEC_PER_USEC));
	}
	return n;
}
