// SPDX-License-Identifier: GPL-2.0
/*
 * cm_bench runs: the steps of a connection's life applied to a batch of
 * connections.  A batch of one, N times over, is the sequential run; a
 * batch of N at once, step by step as rdma-core's cmtime does, is the
 * storm.  Each step starts on every connection of the batch, then waits
 * for all of them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-direction.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "cm_bench.h"

/* Milliseconds rdma_resolve_addr() and rdma_resolve_route() may take. */
#define CMB_RESOLVE_MS	5000

static int cmb_map(struct ib_device *dev, u8 *buf, size_t len,
		   enum dma_data_direction dir, u64 *dma)
{
	*dma = ib_dma_map_single(dev, buf, len, dir);
	return ib_dma_mapping_error(dev, *dma) ? -ENOMEM : 0;
}

/* The run's PD, CQ and buffers, on the listener's device. */
static int cmb_run_verbs(struct cmb_run *run)
{
	struct ib_device *dev = run->listen->device;
	size_t len = (size_t)run->n * CMB_MSG_LEN;
	int cqe;

	cqe = min_t(int, 4 * run->n + 16, dev->attrs.max_cqe);
	run->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(run->pd))
		return PTR_ERR(run->pd);
	run->cq = ib_alloc_cq(dev, run, cqe, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(run->cq))
		return PTR_ERR(run->cq);
	run->sbuf = kzalloc(len, GFP_KERNEL);
	run->rbuf = kzalloc(len, GFP_KERNEL);
	if (!run->sbuf || !run->rbuf)
		return -ENOMEM;
	if (cmb_map(dev, run->sbuf, len, DMA_TO_DEVICE, &run->sdma))
		return -ENOMEM;
	if (cmb_map(dev, run->rbuf, len, DMA_FROM_DEVICE, &run->rdma)) {
		ib_dma_unmap_single(dev, run->sdma, len, DMA_TO_DEVICE);
		return -ENOMEM;
	}
	return 0;
}

/**
 * cmb_run_alloc() - set up a run: listener, PD, CQ, buffers
 * @addr: the address to listen on and connect to, with its port
 * @n: connections of the run
 *
 * Context: process.
 * Return: the run, or an ERR_PTR; nothing is left on error.
 */
struct cmb_run *cmb_run_alloc(const struct sockaddr_storage *addr, u32 n)
{
	struct cmb_run *run;
	u32 i;
	int ret;

	if (!n || n > CMB_MAX_CONNS)
		return ERR_PTR(-EINVAL);
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return ERR_PTR(-ENOMEM);
	run->kind = CMB_KIND_RUN;
	run->ops = cmb_cm_steps;
	run->addr = *addr;
	run->n = n;
	spin_lock_init(&run->lock);
	init_waitqueue_head(&run->wq);
	run->conns = vzalloc(array_size(n, sizeof(*run->conns)));
	if (!run->conns) {
		kfree(run);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < n; i++) {
		run->conns[i].kind = CMB_KIND_CONN;
		run->conns[i].run = run;
		run->conns[i].index = i;
	}
	ret = cmb_listen(run);
	if (!ret)
		ret = cmb_run_verbs(run);
	if (ret) {
		cmb_run_free(run);
		return ERR_PTR(ret);
	}
	return run;
}

/**
 * cmb_run_free() - destroy whatever a run still has, then the run
 * @run: the run
 *
 * The listener goes after the clients and before the last sweep of the
 * server ids: once it is destroyed no CONNECT_REQUEST handler runs, so
 * no new server id can appear.
 *
 * Context: process.
 */
void cmb_run_free(struct cmb_run *run)
{
	size_t len = (size_t)run->n * CMB_MSG_LEN;
	struct ib_device *dev = run->pd && !IS_ERR(run->pd) ?
				run->pd->device : NULL;
	u32 i;

	WRITE_ONCE(run->stopping, true);
	cmb_floor_free(run);
	for (i = 0; i < run->n; i++)
		cmb_destroy_conn(&run->conns[i]);
	if (run->listen)
		rdma_destroy_id(run->listen);
	for (i = 0; i < run->n; i++)
		cmb_destroy_conn(&run->conns[i]);
	if (run->rdma)
		ib_dma_unmap_single(dev, run->rdma, len, DMA_FROM_DEVICE);
	if (run->sdma)
		ib_dma_unmap_single(dev, run->sdma, len, DMA_TO_DEVICE);
	kfree(run->rbuf);
	kfree(run->sbuf);
	if (!IS_ERR_OR_NULL(run->cq))
		ib_free_cq(run->cq);
	if (!IS_ERR_OR_NULL(run->pd))
		ib_dealloc_pd(run->pd);
	vfree(run->conns);
	kfree(run);
}

/**
 * cmb_run_wait() - wait until the current step is done everywhere
 * @run: the run
 *
 * Context: process, may sleep up to the timeout parameter.
 * Return: 0, the run's error, or -ETIMEDOUT.
 */
int cmb_run_wait(struct cmb_run *run)
{
	long left;

	/* Killable: a long run is no hung task, and ^C stops it. */
	left = wait_event_killable_timeout(run->wq,
					   !atomic_read(&run->pending) ||
					   READ_ONCE(run->status),
					   msecs_to_jiffies(cmb_timeout_s *
							    MSEC_PER_SEC));
	if (READ_ONCE(run->status))
		return READ_ONCE(run->status);
	if (left < 0)
		return -EINTR;
	if (!left) {
		pr_err("timed out, %d events missing\n",
		       atomic_read(&run->pending));
		return -ETIMEDOUT;
	}
	return 0;
}

/* Steps that start each connection, then wait for events of all. */
static int cmb_start_addr(struct cmb_conn *c)
{
	return rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&c->run->addr,
				 CMB_RESOLVE_MS);
}

static int cmb_start_route(struct cmb_conn *c)
{
	return rdma_resolve_route(c->id, CMB_RESOLVE_MS);
}

static int cmb_start_disc(struct cmb_conn *c)
{
	return rdma_disconnect(c->id);
}

/* The synchronous steps: the call is the whole step. */
static int cmb_destroy(struct cmb_conn *c)
{
	cmb_destroy_conn(c);
	return 0;
}

/* The steps through the rdma_cm API. */
const struct cmb_step_ops cmb_cm_steps[CMB_NR_STEPS] = {
	[CMB_CREATE] = { cmb_client_id, 0 },
	[CMB_ADDR] = { cmb_start_addr, 1 },
	[CMB_ROUTE] = { cmb_start_route, 1 },
	[CMB_QP] = { cmb_client_qp, 0 },
	[CMB_CONNECT] = { cmb_connect, 0 },
	/* Both ends' ESTABLISHED; both ends' completions; DISCONNECTED. */
	[CMB_ESTAB] = { NULL, 2 },
	[CMB_DATA] = { cmb_send, 2 },
	[CMB_DISC] = { cmb_start_disc, 2 },
	[CMB_DESTROY] = { cmb_destroy, 0 },
};

/*
 * Run one step on connections [from, to).  CONNECT counts down the
 * ESTABLISHED step's events too: they may come before the last request
 * of the batch is sent, so the count is set before the first.
 */
static int cmb_step(struct cmb_run *run, enum cmb_step step, u32 from, u32 to)
{
	const struct cmb_step_ops *ops = &run->ops[step];
	unsigned int events = ops->events;
	struct cmb_conn *c;
	u32 i;
	int ret;

	if (step == CMB_ESTAB)
		return cmb_run_wait(run);
	if (!ops->start)
		return 0;
	if (step == CMB_CONNECT)
		events = run->ops[CMB_ESTAB].events;
	atomic_set(&run->pending, events * (to - from));
	for (i = from; i < to; i++) {
		c = &run->conns[i];
		c->start[step] = ktime_get();
		if (step == CMB_CONNECT)
			c->start[CMB_ESTAB] = c->start[step];
		ret = ops->start(c);
		if (!ops->events)
			c->end[step] = ktime_get();
		if (ret) {
			pr_err("connection %u: step %s: %d\n", i,
			       cmb_step_name(step), ret);
			cmb_fail(run, ret);
			return ret;
		}
	}
	return ops->events ? cmb_run_wait(run) : 0;
}

/**
 * cmb_run_steps() - run steps on a batch of connections
 * @run: the run
 * @first: the first step
 * @last: the last step
 * @from: the batch's first connection
 * @to: one past its last
 *
 * Context: process.
 * Return: 0 or the first error.
 */
int cmb_run_steps(struct cmb_run *run, enum cmb_step first,
		  enum cmb_step last, u32 from, u32 to)
{
	enum cmb_step step;
	int ret;

	for (step = first; step <= last; step++) {
		ret = cmb_step(run, step, from, to);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * cmb_run_seq() - make the run's connections one after another
 * @run: the run
 *
 * Each connection is created, resolved, connected, carries its SEND and
 * is torn down before the next one starts.
 *
 * Context: process.
 * Return: 0 or the first error.
 */
int cmb_run_seq(struct cmb_run *run)
{
	u32 i;
	int ret;

	for (i = 0; i < run->n; i++) {
		ret = cmb_run_steps(run, CMB_CREATE, CMB_DESTROY, i, i + 1);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * cmb_run_storm() - make all the run's connections at once, step by step
 * @run: the run
 * @mem_bytes: set to the slab growth while all are established
 *
 * Context: process.
 * Return: 0 or the first error.
 */
int cmb_run_storm(struct cmb_run *run, s64 *mem_bytes)
{
	s64 before = cmb_slab_bytes();
	int ret;

	ret = cmb_run_steps(run, CMB_CREATE, CMB_DATA, 0, run->n);
	if (ret)
		return ret;
	*mem_bytes = cmb_slab_bytes() - before;
	return cmb_run_steps(run, CMB_DISC, CMB_DESTROY, 0, run->n);
}
