// SPDX-License-Identifier: GPL-2.0
/*
 * cm_e2e scenario "stress": on two CPUs at once, workers run cycles of
 * create, resolve, connect, data, disconnect and destroy against one
 * listener, each cycle cut short where the worker's seeded generator
 * says: right after rdma_create_id(), with the address or the route
 * query in flight, with the REQ outstanding, by the handler returning 1
 * (on ESTABLISHED; on iWARP on DISCONNECTED), from the worker while the
 * ESTABLISHED handler sleeps,
 * after data went both ways (no disconnect), or not at all (a clean
 * disconnect).  The passive end of every connection must see it end.
 *
 * What the kernel must show is that none of this trips lockdep, KASAN,
 * kmemleak or the hung task detector; the script (tests/e2e/cm_stress.sh)
 * then checks that the CM holds no id and restrack nothing of ours.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/rdma_cm.h>

#include "cm_e2e.h"

/* Two CPUs in the guest: one worker on each. */
#define CME_STRESS_WORKERS	2
/* How long the ESTABLISHED handler sleeps while its id is destroyed. */
#define CME_HANDLER_NAP_MS	20
/* How long a REQ cut short may take to reach the listener. */
#define CME_LATE_REQ_MS		500

/* Where a cycle ends; each cycle draws one. */
enum cme_cut {
	CME_CUT_CREATED,
	CME_CUT_ADDR,
	CME_CUT_ROUTE,
	CME_CUT_REQ,
	CME_CUT_HANDLER,
	CME_CUT_ASLEEP,
	CME_CUT_DATA,
	CME_CUT_NONE,
	CME_NR_CUTS
};

static const char *const cme_cut_names[CME_NR_CUTS] = {
	[CME_CUT_CREATED] = "created",
	[CME_CUT_ADDR] = "address",
	[CME_CUT_ROUTE] = "route",
	[CME_CUT_REQ] = "req",
	[CME_CUT_HANDLER] = "handler",
	[CME_CUT_ASLEEP] = "asleep",
	[CME_CUT_DATA] = "data",
	[CME_CUT_NONE] = "disconnect",
};

struct cme_stress;

/**
 * struct cme_stress_worker - the cycles of one CPU
 * @st: the run
 * @work: runs the cycles
 * @rnd: the generator, seeded from the seed parameter and the worker
 * @first: the index of its first cycle; indices are unique in a run
 * @cuts: how many cycles ended at each cut
 * @failed: how many cycles failed
 * @ret: its first failure, or 0
 */
struct cme_stress_worker {
	struct cme_stress *st;
	struct work_struct work;
	struct rnd_state rnd;
	u32 first;
	unsigned int cuts[CME_NR_CUTS];
	unsigned int failed;
	int ret;
};

/**
 * struct cme_stress - one run of the scenario
 * @p: addr, laddr, count (cycles per worker) and seed
 * @l: the listener all workers connect to
 * @running: workers not done yet
 * @done: woken when @running drops to 0
 * @workers: the workers
 */
struct cme_stress {
	const struct cme_params *p;
	struct cme_listener *l;
	atomic_t running;
	wait_queue_head_t done;
	struct cme_stress_worker workers[CME_STRESS_WORKERS];
};

/* The passive end of @cli's connection. */
static struct cme_ep *cme_stress_server(struct cme_stress *st,
					struct cme_ep *cli)
{
	struct cme_ep *srv;

	srv = cme_listener_take_index(st->l, cli->index, cme_timeout_ms);
	if (IS_ERR(srv))
		pr_err("FAIL: %s: the listener never got its request\n",
		       cli->name);
	return srv;
}

/* DISCONNECTED must come to @ep, perhaps after events in @skip. */
static int cme_stress_ended(struct cme_ep *ep, unsigned long skip)
{
	return PTR_ERR_OR_ZERO(cme_ep_wait_past(ep, RDMA_CM_EVENT_DISCONNECTED,
						skip));
}

/*
 * The client of @srv went away once connected: @srv must get
 * DISCONNECTED. Its ESTABLISHED may not come first: a DREQ can
 * overtake the RTU.
 */
static int cme_stress_orphaned(struct cme_ep *srv, struct cme_ep *cli)
{
	int ret = cme_server_request(srv, cli);

	if (!ret)
		ret = cme_stress_ended(srv, BIT(RDMA_CM_EVENT_ESTABLISHED));
	cme_ep_destroy(srv);
	return ret;
}

static int cme_stress_id_gone(struct cme_ep *cli)
{
	if (cme_ep_id_gone(cli))
		return 0;
	pr_err("FAIL: %s: the handler returned 1, the id lives\n", cli->name);
	return -EPROTO;
}

/* The handler returned 1 on ESTABLISHED: the CM destroyed the id. */
static int cme_stress_gone_established(struct cme_stress *st,
				       struct cme_ep *cli)
{
	struct cme_ep *srv;
	int ret;

	ret = cme_client_established(cli) ?: cme_stress_id_gone(cli);
	if (ret)
		return ret;
	srv = cme_stress_server(st, cli);
	if (IS_ERR(srv))
		return PTR_ERR(srv);
	return cme_stress_orphaned(srv, cli);
}

/*
 * The server disconnects and the client's handler returns 1 on
 * DISCONNECTED: the CM destroys the id, and the server's end closes.
 */
static int cme_stress_gone_disconnected(struct cme_stress *st,
					struct cme_ep *cli)
{
	struct cme_ep *srv;
	int ret;

	ret = cme_client_established(cli);
	if (ret)
		return ret;
	srv = cme_stress_server(st, cli);
	if (IS_ERR(srv))
		return PTR_ERR(srv);
	ret = cme_server_accepted(srv, cli) ?: rdma_disconnect(srv->id);
	if (!ret)
		ret = cme_stress_ended(cli, 0);
	if (!ret)
		ret = cme_stress_id_gone(cli) ?: cme_stress_ended(srv, 0);
	cme_ep_destroy(srv);
	return ret;
}

/*
 * Which event the handler returns 1 on: ESTABLISHED, but on iWARP only
 * DISCONNECTED can (see struct cme_ep's destroy_on).
 */
static void cme_stress_destroy_on(struct cme_ep *cli)
{
	struct rdma_cm_id *id = cli->id;
	bool iwarp = rdma_protocol_iwarp(id->device, id->port_num);

	WRITE_ONCE(cli->destroy_on, BIT(iwarp ? RDMA_CM_EVENT_DISCONNECTED :
					       RDMA_CM_EVENT_ESTABLISHED));
}

/*
 * Destroy the id while its ESTABLISHED handler sleeps: rdma_destroy_id()
 * must wait for the handler, and the handler must have recorded its
 * event by the time it returns.
 */
static int cme_stress_asleep(struct cme_stress *st, struct cme_ep *cli)
{
	struct cme_ep *srv;

	if (!wait_event_timeout(cli->wq, READ_ONCE(cli->handler_asleep),
				msecs_to_jiffies(cme_timeout_ms))) {
		pr_err("FAIL: %s: no ESTABLISHED handler to destroy under\n",
		       cli->name);
		return -ETIMEDOUT;
	}
	cme_ep_destroy_qp(cli);
	rdma_destroy_id(cli->id);
	cli->id = NULL;
	if (!READ_ONCE(cli->handler_awake)) {
		pr_err("FAIL: %s: rdma_destroy_id() returned under a handler\n",
		       cli->name);
		return -EPROTO;
	}
	if (IS_ERR(cme_ep_wait(cli, RDMA_CM_EVENT_ESTABLISHED)))
		return -EPROTO;
	srv = cme_stress_server(st, cli);
	if (IS_ERR(srv))
		return PTR_ERR(srv);
	return cme_stress_orphaned(srv, cli);
}

/*
 * Connected, a message each way; then a clean disconnect from a side
 * chosen at random, or (@disconnect false) the client destroyed as it
 * is, which the server must see as DISCONNECTED.
 */
static int cme_stress_connected(struct cme_stress_worker *w,
				struct cme_ep **clip, bool disconnect)
{
	struct cme_ep *cli = *clip, *srv;
	int ret;

	ret = cme_client_established(cli);
	if (ret)
		return ret;
	srv = cme_stress_server(w->st, cli);
	if (IS_ERR(srv))
		return PTR_ERR(srv);
	ret = cme_server_accepted(srv, cli) ?: cme_exchange(cli, srv);
	if (!ret && disconnect) {
		if (prandom_u32_state(&w->rnd) & 1)
			ret = cme_disconnect(cli, srv);
		else
			ret = cme_disconnect(srv, cli);
	} else if (!ret) {
		cme_ep_destroy(cli);
		*clip = NULL;
		ret = cme_stress_ended(srv, 0);
	}
	cme_ep_destroy(srv);
	return ret;
}

/* A REQ went out and its id is gone: drop the connection it made. */
static void cme_stress_drop_late(struct cme_stress *st, u32 index)
{
	struct cme_ep *srv;

	/* iWARP may not get as far as a request: then there is none. */
	srv = cme_listener_take_index(st->l, index, CME_LATE_REQ_MS);
	if (!IS_ERR(srv))
		cme_ep_destroy(srv);
}

static int cme_stress_cycle(struct cme_stress_worker *w, u32 index,
			    enum cme_cut cut)
{
	struct cme_stress *st = w->st;
	struct cme_ep *cli;
	int ret = 0;

	if (cut == CME_CUT_CREATED) {
		cli = cme_ep_alloc("cli%u", index);
		if (!cli)
			return -ENOMEM;
		ret = cme_ep_create_id(cli, &init_net);
		cme_ep_destroy(cli);
		return ret;
	}
	cli = cme_client_start(&init_net, cme_sa(&st->p->addr), index);
	if (IS_ERR(cli))
		return PTR_ERR(cli);
	if (cut == CME_CUT_ASLEEP)
		cli->sleep_on_established = CME_HANDLER_NAP_MS;
	if (cut > CME_CUT_ADDR)
		ret = cme_client_route(cli);
	if (!ret && cut == CME_CUT_HANDLER)
		cme_stress_destroy_on(cli);
	if (!ret && cut > CME_CUT_ROUTE)
		ret = cme_client_connect(cli);
	if (ret || cut <= CME_CUT_ROUTE)
		goto out;

	switch (cut) {
	case CME_CUT_REQ:
		cme_ep_destroy(cli);
		cli = NULL;
		cme_stress_drop_late(st, index);
		break;
	case CME_CUT_HANDLER:
		if (cli->destroy_on & BIT(RDMA_CM_EVENT_ESTABLISHED))
			ret = cme_stress_gone_established(st, cli);
		else
			ret = cme_stress_gone_disconnected(st, cli);
		break;
	case CME_CUT_ASLEEP:
		ret = cme_stress_asleep(st, cli);
		break;
	default:
		ret = cme_stress_connected(w, &cli, cut == CME_CUT_NONE);
		break;
	}
out:
	cme_ep_destroy(cli);
	return ret;
}

static void cme_stress_work(struct work_struct *work)
{
	struct cme_stress_worker *w =
		container_of(work, struct cme_stress_worker, work);
	const struct cme_params *p = w->st->p;
	enum cme_cut cut;
	unsigned int i;
	int ret;

	for (i = 0; i < p->count && (!w->ret || p->keep_going); i++) {
		cut = prandom_u32_state(&w->rnd) % CME_NR_CUTS;
		w->cuts[cut]++;
		ret = cme_stress_cycle(w, w->first + i, cut);
		if (!ret)
			continue;
		w->failed++;
		if (!w->ret)
			w->ret = ret;
		pr_err("%scycle %u, cut at %s: %d\n",
		       p->keep_going ? "" : "FAIL: ", w->first + i,
		       cme_cut_names[cut], ret);
	}
	if (atomic_dec_and_test(&w->st->running))
		wake_up_all(&w->st->done);
}

/*
 * Wait for the workers in naps, not in one flush: a long run would look
 * like a hung task to the detector.
 */
static void cme_stress_wait(struct cme_stress *st)
{
	while (!wait_event_timeout(st->done, !atomic_read(&st->running),
				   10 * HZ))
		;
}

/* One line per worker: how many cycles ended where. */
static void cme_stress_report(const struct cme_stress_worker *w,
			      unsigned int nr)
{
	char line[192];
	int len = 0;
	unsigned int c;

	for (c = 0; c < CME_NR_CUTS; c++)
		len += scnprintf(line + len, sizeof(line) - len, " %s=%u",
				 cme_cut_names[c], w->cuts[c]);
	pr_info("stress worker %u:%s, failed=%u\n", nr, line, w->failed);
}

/*
 * The listener is the run's fixture, not what it tests: under fault
 * injection (keep_going) making it is tried again.
 */
static struct cme_listener *cme_stress_listener(const struct cme_params *p)
{
	struct cme_listener *l;
	unsigned int tries = p->keep_going ? 20 : 1;

	do {
		l = cme_listener_create(&init_net, cme_sa(&p->laddr),
					CME_ACCEPT, "srv");
	} while (IS_ERR(l) && --tries);
	return l;
}

/**
 * cme_scen_stress() - scenario "stress"
 * @p: parameters: laddr, addr, count (cycles per worker, default 200),
 *	seed, keep_going (failed cycles do not fail the run: under fault
 *	injection only the kernel's checks and the script's count)
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_stress(const struct cme_params *p)
{
	struct workqueue_struct *wq;
	struct cme_stress_worker *w;
	struct cme_stress *st;
	unsigned int i, cpu;
	int ret = 0;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->p = p;
	/* Bound, not unbound: each worker stays on its CPU. */
	wq = alloc_workqueue("cme_stress", 0, 0);
	if (!wq) {
		ret = -ENOMEM;
		goto out_free;
	}
	st->l = cme_stress_listener(p);
	if (IS_ERR(st->l)) {
		ret = PTR_ERR(st->l);
		goto out_wq;
	}
	pr_info("stress: %u workers, %u cycles each, seed %u\n",
		CME_STRESS_WORKERS, p->count, p->seed);
	cme_quiet = true;
	atomic_set(&st->running, CME_STRESS_WORKERS);
	init_waitqueue_head(&st->done);
	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < CME_STRESS_WORKERS; i++) {
		w = &st->workers[i];
		w->st = st;
		w->first = i * p->count;
		prandom_seed_state(&w->rnd, (u64)p->seed << 8 | i);
		INIT_WORK(&w->work, cme_stress_work);
		queue_work_on(cpu, wq, &w->work);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	cme_stress_wait(st);
	flush_workqueue(wq);
	cme_quiet = false;
	for (i = 0; i < CME_STRESS_WORKERS; i++) {
		cme_stress_report(&st->workers[i], i);
		if (!ret && !p->keep_going)
			ret = st->workers[i].ret;
	}
	cme_listener_destroy(st->l);
out_wq:
	destroy_workqueue(wq);
out_free:
	kfree(st);
	return ret;
}
