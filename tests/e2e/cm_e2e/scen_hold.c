// SPDX-License-Identifier: GPL-2.0
/*
 * cm_e2e scenario hold: ids kept in known states while a script looks at
 * them from outside (the CM's listing of ids, rdma resource show), until
 * the script writes the parameter "release". The parameter "paths" shows
 * the path record each held client's route resolution gave.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "cm_e2e.h"

/* Index of the connections made here, for messages and patterns. */
#define CME_HOLD_INDEX	40

static DECLARE_WAIT_QUEUE_HEAD(cme_hold_wq);
static bool cme_released;

static int cme_release_set(const char *val, const struct kernel_param *kp)
{
	WRITE_ONCE(cme_released, true);
	wake_up(&cme_hold_wq);
	return 0;
}

static const struct kernel_param_ops cme_release_ops = {
	.set = cme_release_set,
};

module_param_cb(release, &cme_release_ops, NULL, 0200);
MODULE_PARM_DESC(release, "hold: write anything to end the hold");

#define CME_PATHS_LEN	512

static DEFINE_MUTEX(cme_paths_lock);
static char cme_paths[CME_PATHS_LEN];
static size_t cme_paths_len;

static int cme_paths_get(char *buffer, const struct kernel_param *kp)
{
	int len;

	mutex_lock(&cme_paths_lock);
	len = scnprintf(buffer, PAGE_SIZE, "%s", cme_paths);
	mutex_unlock(&cme_paths_lock);
	return len;
}

static const struct kernel_param_ops cme_paths_ops = {
	.get = cme_paths_get,
};

module_param_cb(paths, &cme_paths_ops, NULL, 0444);
MODULE_PARM_DESC(paths, "hold: per client, ADDR rec_type=N traffic_class=N sl=N of its path record, or ADDR none (iWARP)");

/* Say "holding" until "release" is written or @wait_ms have passed. */
static void cme_hold_wait(unsigned int wait_ms)
{
	cme_set_state("holding");
	if (!wait_event_timeout(cme_hold_wq, READ_ONCE(cme_released),
				msecs_to_jiffies(wait_ms)))
		pr_info("hold: not released, giving up after %u ms\n",
			wait_ms);
	WRITE_ONCE(cme_released, false);
	cme_set_state("running");
}

/* What the route of @cli says, for the script: RoCE mode and tos. */
static void cme_hold_note_path(const struct cme_ep *cli,
			       const struct sockaddr_storage *addr)
{
	const struct sa_path_rec *path = cli->id->route.path_rec;

	mutex_lock(&cme_paths_lock);
	if (path)
		cme_paths_len += scnprintf(cme_paths + cme_paths_len,
					   sizeof(cme_paths) - cme_paths_len,
					   "%pISc rec_type=%u traffic_class=%u sl=%u\n",
					   addr, path->rec_type,
					   path->traffic_class, path->sl);
	else
		cme_paths_len += scnprintf(cme_paths + cme_paths_len,
					   sizeof(cme_paths) - cme_paths_len,
					   "%pISc none\n", addr);
	mutex_unlock(&cme_paths_lock);
}

/**
 * struct cme_held - what one parameter set holds
 * @l: a listener on laddr (LISTEN)
 * @cli: a client connected to it (CONNECT)
 * @srv: the listener's end of that connection (CONNECT)
 * @bound: an id bound to addr, port + 1 (ADDR_BOUND)
 * @idle: an id that was only created (IDLE)
 */
struct cme_held {
	struct cme_listener *l;
	struct cme_ep *cli;
	struct cme_ep *srv;
	struct cme_ep *bound;
	struct cme_ep *idle;
};

static int cme_hold_set(struct cme_held *h, const struct cme_params *p,
			u32 index)
{
	struct sockaddr_storage src;
	int ret;

	h->l = cme_listener_create(&init_net, cme_sa(&p->laddr), CME_ACCEPT,
				   "hold");
	if (IS_ERR(h->l)) {
		ret = PTR_ERR(h->l);
		h->l = NULL;
		return ret;
	}
	h->cli = cme_client_start(&init_net, cme_sa(&p->addr), index);
	if (IS_ERR(h->cli)) {
		ret = PTR_ERR(h->cli);
		h->cli = NULL;
		return ret;
	}
	ret = cme_client_route(h->cli) ?: cme_client_connect(h->cli);
	if (ret)
		return ret;
	cme_hold_note_path(h->cli, &p->addr);
	h->srv = cme_listener_take(h->l);
	if (IS_ERR(h->srv)) {
		ret = PTR_ERR(h->srv);
		h->srv = NULL;
		return ret;
	}
	ret = cme_client_established(h->cli) ?:
	      cme_server_accepted(h->srv, h->cli);
	if (ret)
		return ret;

	h->bound = cme_ep_alloc("bound%u", index);
	h->idle = cme_ep_alloc("idle%u", index);
	if (!h->bound || !h->idle)
		return -ENOMEM;
	ret = cme_ep_create_id(h->bound, &init_net) ?:
	      cme_ep_create_id(h->idle, &init_net);
	if (ret)
		return ret;
	cme_with_port(&src, &p->addr, p->port + 1);
	return cme_expect("rdma_bind_addr",
			  rdma_bind_addr(h->bound->id, cme_sa(&src)), 0);
}

static void cme_hold_destroy(struct cme_held *h)
{
	cme_ep_destroy(h->idle);
	cme_ep_destroy(h->bound);
	cme_ep_destroy(h->cli);
	cme_ep_destroy(h->srv);
	if (h->l)
		cme_listener_destroy(h->l);
}

/**
 * cme_scen_hold() - scenario "hold": ids in known states, held
 * @sets: parameters: laddr (where to listen), addr (where to connect and
 *	bind); the ids of every set are held at once
 * @n: number of sets
 *
 * For each set: a listener, a connection to it (both ends ESTABLISHED),
 * an id bound to addr with port + 1, an idle id. Once all are made the
 * state parameter says "holding" and they stay until "release" is
 * written or wait seconds have passed, then they are destroyed. Each set
 * gets a verdict on making its ids; the hold itself cannot fail.
 *
 * Return: 0 if every set passed, else a negative errno.
 */
int cme_scen_hold(const struct cme_params *sets, unsigned int n)
{
	struct cme_held *held;
	unsigned long start;
	unsigned int i;
	int ret = 0, err;

	held = kcalloc(n, sizeof(*held), GFP_KERNEL);
	if (!held)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		start = jiffies;
		err = cme_hold_set(&held[i], &sets[i], CME_HOLD_INDEX + i);
		cme_result("hold", &sets[i].addr, err, start);
		ret = ret ?: err;
	}
	cme_hold_wait(sets[0].wait_ms);
	for (i = 0; i < n; i++)
		cme_hold_destroy(&held[i]);
	kfree(held);
	return ret;
}

/**
 * cme_scen_netns_hold() - scenario "netns_hold": ids that outlive the
 *	processes of their network namespace
 * @p: parameters: netns_pid (a process in another namespace), port
 *
 * In that namespace: a listener on the IPv4 wildcard with port, an id
 * bound to the wildcard with port + 1, and an idle id, held as "hold"
 * holds them. The script kills the namespace's last process meanwhile:
 * the ids' references must keep the namespace until they are destroyed,
 * and no longer.
 *
 * Return: 0 if the ids were made, else a negative errno.
 */
int cme_scen_netns_hold(const struct cme_params *p)
{
	struct cme_ep *bound = NULL, *idle = NULL;
	struct sockaddr_storage any, other;
	struct cme_listener *l;
	struct net *net;
	int ret;

	net = cme_netns_of(p);
	if (IS_ERR(net))
		return PTR_ERR(net);
	cme_any(&any, AF_INET, p->port);
	cme_any(&other, AF_INET, p->port + 1);
	l = cme_listener_create(net, cme_sa(&any), CME_ACCEPT, "hold-ns");
	bound = cme_ep_alloc("bound-ns");
	idle = cme_ep_alloc("idle-ns");
	ret = PTR_ERR_OR_ZERO(l);
	if (!ret && (!bound || !idle))
		ret = -ENOMEM;
	if (!ret)
		ret = cme_ep_create_id(bound, net) ?:
		      cme_ep_create_id(idle, net) ?:
		      cme_expect("rdma_bind_addr in the namespace",
				 rdma_bind_addr(bound->id, cme_sa(&other)), 0);
	/* The ids hold the namespace from here on. */
	put_net(net);
	if (!ret)
		cme_hold_wait(p->wait_ms);
	cme_ep_destroy(idle);
	cme_ep_destroy(bound);
	cme_listener_destroy(l);
	return ret;
}
