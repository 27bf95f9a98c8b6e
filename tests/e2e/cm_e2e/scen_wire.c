// SPDX-License-Identifier: GPL-2.0
/*
 * cm_e2e scenarios for two hosts, one CM on each end of a wire: serve
 * (the passive side) and dial (the active side), which agree on what
 * happens to each connection by its number alone.
 *
 * Of the count + 1 connections dial makes to each address, number
 * count / 2 is rejected with private data; of the others, by their
 * number modulo 3, the client disconnects, the server disconnects, or
 * the client destroys its id without disconnecting.  Every accepted one
 * carries private data both ways and a SEND each way that names its
 * sender's QP and addresses: the QP must be the one the CM named to the
 * receiver, the addresses the receiver's mirrored.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "cm_e2e.h"

/* Extra wait for stray events after a connection ended. */
#define CME_WIRE_QUIET_MS	200

/* What happens to one connection. */
enum cme_wire_plan {
	CME_WP_CLIENT_DISCONNECTS,
	CME_WP_SERVER_DISCONNECTS,
	CME_WP_CLIENT_DESTROYS,
	CME_WP_REJECT,
};

static const char *const cme_wire_plan_names[] = {
	[CME_WP_CLIENT_DISCONNECTS] = "the client disconnects",
	[CME_WP_SERVER_DISCONNECTS] = "the server disconnects",
	[CME_WP_CLIENT_DESTROYS] = "the client destroys its id",
	[CME_WP_REJECT] = "the server rejects",
};

static enum cme_wire_plan cme_wire_plan(u32 index, unsigned int count)
{
	if (index == count / 2)
		return CME_WP_REJECT;
	return index % 3;
}

/* One SEND each way: ours out, then wait for both completions. */
static int cme_wire_exchange(struct cme_ep *ep, u8 out_seed, u8 in_seed)
{
	unsigned int sends = ep->nr_send_done + 1;
	unsigned int recvs = ep->nr_recv_done + 1;

	return cme_ep_post_send(ep, out_seed, ep->index) ?:
	       cme_ep_wait_wc(ep, sends, recvs) ?:
	       cme_ep_check_recv(ep, in_seed, ep->index);
}

/*
 * rxe completes a receive before it sends the ACK, so an end whose QP
 * goes to ERR right after its receive may leave the peer's SEND unacked,
 * retried for longer than the scenario waits. The end that leaves first
 * (@first) therefore waits for one more message, which the other end
 * sends once its own SEND has completed, and the other end does not wait
 * for that last one: its completion may be a flush.
 */
static int cme_wire_settle(struct cme_ep *ep, bool first)
{
	if (!first)
		return cme_ep_post_send(ep, CME_SEED_SRV_MSG, ep->index);
	return cme_ep_post_recv(ep) ?:
	       cme_ep_wait_wc(ep, ep->nr_send_done, ep->nr_recv_done + 1);
}

/*
 * The end that disconnects first calls rdma_disconnect() and waits for
 * DISCONNECTED; the other end waits for DISCONNECTED and answers with
 * rdma_disconnect().  Both must see status 0.
 */
static int cme_wire_disconnect(struct cme_ep *ep, bool first)
{
	const struct cme_event *e;
	int ret;

	if (first) {
		ret = rdma_disconnect(ep->id);
		if (ret) {
			pr_err("FAIL: %s: rdma_disconnect: %d\n", ep->name,
			       ret);
			return ret;
		}
	}
	e = cme_ep_wait(ep, RDMA_CM_EVENT_DISCONNECTED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->status) {
		pr_err("FAIL: %s: DISCONNECTED status %d\n", ep->name,
		       e->status);
		return -EPROTO;
	}
	if (!first) {
		ret = rdma_disconnect(ep->id);
		if (ret) {
			pr_err("FAIL: %s: rdma_disconnect after DISCONNECTED: %d\n",
			       ep->name, ret);
			return ret;
		}
	}
	return cme_ep_expect_quiet(ep, CME_WIRE_QUIET_MS);
}

/* The client's end of connection @index to @dst. */
static int cme_dial_one(struct sockaddr *dst, u32 index,
			enum cme_wire_plan plan)
{
	struct cme_ep *cli;
	int ret;

	cli = cme_client_start(&init_net, dst, index);
	if (IS_ERR(cli))
		return PTR_ERR(cli);
	cli->tagged = true;
	ret = cme_client_route(cli) ?: cme_client_connect(cli);
	if (ret)
		goto out;
	if (plan == CME_WP_REJECT) {
		ret = cme_check_rejected(cli) ?:
		      cme_ep_expect_quiet(cli, CME_WIRE_QUIET_MS);
		goto out;
	}
	/* The client leaves first unless the server disconnects. */
	ret = cme_client_established(cli) ?:
	      cme_wire_exchange(cli, CME_SEED_CLI_MSG, CME_SEED_SRV_MSG) ?:
	      cme_wire_settle(cli, plan != CME_WP_SERVER_DISCONNECTS);
	if (ret)
		goto out;
	switch (plan) {
	case CME_WP_CLIENT_DISCONNECTS:
		ret = cme_wire_disconnect(cli, true);
		break;
	case CME_WP_SERVER_DISCONNECTS:
		ret = cme_wire_disconnect(cli, false);
		break;
	default:
		/* cme_ep_destroy() below, connected. */
		break;
	}
out:
	if (ret)
		cme_ep_dump(cli);
	cme_ep_destroy(cli);
	return ret;
}

/**
 * cme_scen_dial() - scenario "dial", the client of serve on another host
 * @p: parameters: addr (where serve listens), count
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_dial(const struct cme_params *p)
{
	struct sockaddr_storage dst = p->addr;
	enum cme_wire_plan plan;
	unsigned int i;
	int ret = 0;

	for (i = 0; i <= p->count && !ret; i++) {
		plan = cme_wire_plan(i, p->count);
		ret = cme_dial_one(cme_sa(&dst), i, plan);
		if (ret)
			pr_err("FAIL: connection %u to %pISpc (%s)\n", i, &dst,
			       cme_wire_plan_names[plan]);
		else
			pr_info("ok: connection %u to %pISpc (%s)\n", i, &dst,
				cme_wire_plan_names[plan]);
	}
	return ret;
}

/* The rdma_reject() of a held request, from the scenario. */
static int cme_serve_reject(struct cme_ep *srv)
{
	u8 pdata[CME_PDATA_LEN];
	int ret;

	cme_pattern(pdata, sizeof(pdata), CME_SEED_REJ, srv->index);
	rdma_lock_handler(srv->id);
	ret = rdma_reject(srv->id, pdata, sizeof(pdata),
			  IB_CM_REJ_CONSUMER_DEFINED);
	rdma_unlock_handler(srv->id);
	return cme_expect("rdma_reject", ret, 0) ?:
	       cme_ep_expect_quiet(srv, CME_WIRE_QUIET_MS);
}

/* The server's end of the next connection, which must be @index. */
static int cme_serve_one(struct cme_listener *l, u32 index,
			 unsigned int count, unsigned int wait_ms)
{
	enum cme_wire_plan plan = cme_wire_plan(index, count);
	const struct cme_event *e;
	struct cme_ep *srv;
	int ret;

	srv = cme_listener_take_wait(l, wait_ms);
	if (IS_ERR(srv))
		return PTR_ERR(srv);
	srv->tagged = true;
	/* ep->index came from the request's private data. */
	if (srv->index != index) {
		pr_err("FAIL: %s: request for connection %u, expected %u\n",
		       srv->name, srv->index, index);
		ret = -EPROTO;
		goto out;
	}
	ret = cme_check_request(srv, index, 0);
	if (ret)
		goto out;
	if (plan == CME_WP_REJECT) {
		ret = cme_serve_reject(srv);
		goto out;
	}
	ret = cme_ep_setup_qp(srv);
	if (ret)
		goto out;
	rdma_lock_handler(srv->id);
	ret = cme_accept_locked(srv, &srv->events[0], CME_PDATA_LEN);
	rdma_unlock_handler(srv->id);
	ret = cme_expect("rdma_accept", ret, 0);
	if (ret)
		goto out;
	e = cme_ep_wait(srv, RDMA_CM_EVENT_ESTABLISHED);
	if (IS_ERR(e)) {
		ret = PTR_ERR(e);
		goto out;
	}
	if (e->status) {
		pr_err("FAIL: %s: ESTABLISHED status %d\n", srv->name,
		       e->status);
		ret = -EPROTO;
		goto out;
	}
	ret = cme_wire_exchange(srv, CME_SEED_SRV_MSG, CME_SEED_CLI_MSG) ?:
	      cme_wire_settle(srv, plan == CME_WP_SERVER_DISCONNECTS);
	if (ret)
		goto out;
	switch (plan) {
	case CME_WP_SERVER_DISCONNECTS:
		ret = cme_wire_disconnect(srv, true);
		break;
	case CME_WP_CLIENT_DISCONNECTS:
		ret = cme_wire_disconnect(srv, false);
		break;
	default:
		/* The client destroys its id: DREQ all the same. */
		e = cme_ep_wait(srv, RDMA_CM_EVENT_DISCONNECTED);
		if (IS_ERR(e)) {
			ret = PTR_ERR(e);
			break;
		}
		pr_info("%s: DISCONNECTED status %d; rdma_disconnect then returned %d\n",
			srv->name, e->status, rdma_disconnect(srv->id));
		ret = cme_ep_expect_quiet(srv, CME_WIRE_QUIET_MS);
		break;
	}
out:
	if (ret)
		cme_ep_dump(srv);
	cme_ep_destroy(srv);
	if (ret)
		pr_err("FAIL: connection %u to %s (%s)\n", index, l->name,
		       cme_wire_plan_names[plan]);
	else
		pr_info("ok: connection %u to %s (%s)\n", index, l->name,
			cme_wire_plan_names[plan]);
	return ret;
}

/* All connections to one listener; the first one may be long coming. */
static int cme_serve_set(struct cme_listener *l, const struct cme_params *p)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i <= p->count && !ret; i++)
		ret = cme_serve_one(l, i, p->count,
				    i ? cme_timeout_ms : p->wait_ms);
	return ret ?: cme_listener_expect_none(l, 0);
}

/**
 * cme_scen_serve() - scenario "serve", the server of dial on another host
 * @sets: parameters: laddr (where to listen), count, wait_ms; one
 *	listener per set, all listening before the first is served
 * @n: number of sets
 *
 * Sets the state parameter to "listening" once every listener is up,
 * then serves the sets in order and records a verdict for each.
 *
 * Return: 0 if every set passed, else a negative errno.
 */
int cme_scen_serve(const struct cme_params *sets, unsigned int n)
{
	struct cme_listener **l;
	unsigned long start;
	unsigned int i;
	char name[24];
	int ret = 0, err;

	l = kcalloc(n, sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "srv%u", i);
		l[i] = cme_listener_create(&init_net, cme_sa(&sets[i].laddr),
					   CME_HOLD, name);
		if (IS_ERR(l[i])) {
			cme_result("serve", &sets[i].laddr, PTR_ERR(l[i]),
				   jiffies);
			ret = PTR_ERR(l[i]);
			goto out;
		}
	}
	cme_set_state("listening");
	for (i = 0; i < n; i++) {
		start = jiffies;
		err = cme_serve_set(l[i], &sets[i]);
		cme_result("serve", &sets[i].laddr, err, start);
		ret = ret ?: err;
	}
out:
	for (i = 0; i < n; i++)
		cme_listener_destroy(l[i]);
	kfree(l);
	return ret;
}
