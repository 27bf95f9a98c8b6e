// SPDX-License-Identifier: GPL-2.0
/*
 * cm_e2e scenarios that make connections: connect, reject,
 * server_disconnect, sequential, concurrent and wildcard.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "cm_e2e.h"

/* Extra wait for stray events after a connection closed. */
#define CME_QUIET_MS	300

static bool cme_same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;

	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr &&
		       a4->sin_port == b4->sin_port;
	if (a->sa_family == AF_INET6)
		return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr) &&
		       a6->sin6_port == b6->sin6_port;
	return false;
}

/* The passive end's addresses mirror the active end's, same device. */
static int cme_check_mirror(struct cme_ep *cli, struct cme_ep *srv)
{
	struct sockaddr *csrc = cme_sa(&cli->id->route.addr.src_addr);
	struct sockaddr *cdst = cme_sa(&cli->id->route.addr.dst_addr);
	struct sockaddr *ssrc = cme_sa(&srv->id->route.addr.src_addr);
	struct sockaddr *sdst = cme_sa(&srv->id->route.addr.dst_addr);

	pr_info("%s: %pISpc -> %pISpc on %s; %s: %pISpc <- %pISpc on %s\n",
		cli->name, csrc, cdst, dev_name(&cli->id->device->dev),
		srv->name, ssrc, sdst, dev_name(&srv->id->device->dev));
	if (!cme_same_addr(ssrc, cdst) || !cme_same_addr(sdst, csrc)) {
		pr_err("FAIL: %s's addresses do not mirror %s's\n", srv->name,
		       cli->name);
		return -EPROTO;
	}
	if (srv->id->device != cli->id->device) {
		pr_err("FAIL: %s is on another device than %s\n", srv->name,
		       cli->name);
		return -EPROTO;
	}
	return 0;
}

/* How cme_one() goes about it. */
#define CME_SERVER_FIRST	BIT(0)	/* the server disconnects */
#define CME_VERBOSE		BIT(1)	/* more checks and messages */
#define CME_DEFERRED		BIT(2)	/* accept after the handler */

/*
 * The passive side of a held request: QP, then rdma_accept() from the
 * scenario under rdma_lock_handler(), not from the handler.
 */
static int cme_accept_deferred(struct cme_ep *srv, struct cme_ep *cli)
{
	int ret;

	ret = cme_server_request(srv, cli) ?: cme_ep_setup_qp(srv);
	if (ret)
		return ret;
	rdma_lock_handler(srv->id);
	ret = cme_accept_locked(srv, &srv->events[0], CME_PDATA_LEN);
	rdma_unlock_handler(srv->id);
	return cme_expect("rdma_accept under rdma_lock_handler", ret, 0) ?:
	       cme_client_established(cli) ?:
	       cme_server_established(srv, cli);
}

/*
 * One connection from a client to @l at @dst: established with private
 * data both ways, one SEND each way, disconnected by the client or the
 * server, destroyed.
 */
static int cme_one(struct cme_listener *l, const struct sockaddr *dst,
		   u32 index, unsigned int how)
{
	bool verbose = how & CME_VERBOSE;
	struct cme_ep *cli, *srv = NULL;
	int ret;

	cli = cme_client_start(&init_net, dst, index);
	if (IS_ERR(cli))
		return PTR_ERR(cli);
	ret = cme_client_route(cli);
	if (!ret)
		ret = cme_client_connect(cli);
	if (ret)
		goto out;
	srv = cme_listener_take(l);
	if (IS_ERR(srv)) {
		ret = PTR_ERR(srv);
		srv = NULL;
		goto out;
	}
	if (how & CME_DEFERRED)
		ret = cme_accept_deferred(srv, cli);
	else
		ret = cme_client_established(cli) ?:
		      cme_server_accepted(srv, cli);
	if (!ret && verbose)
		ret = cme_check_mirror(cli, srv);
	if (!ret)
		ret = cme_exchange(cli, srv);
	if (!ret && verbose)
		pr_info("%s <-> %s: one SEND each way, data checked\n",
			cli->name, srv->name);
	if (!ret)
		ret = (how & CME_SERVER_FIRST) ? cme_disconnect(srv, cli) :
						 cme_disconnect(cli, srv);
	if (!ret && verbose)
		ret = cme_ep_expect_quiet(cli, CME_QUIET_MS) ?:
		      cme_ep_expect_quiet(srv, 0);
out:
	if (verbose || ret) {
		cme_ep_dump(cli);
		if (srv)
			cme_ep_dump(srv);
	}
	cme_ep_destroy(cli);
	cme_ep_destroy(srv);
	return ret;
}

/*
 * Accepted from the handler, then (a second connection) from the
 * scenario under rdma_lock_handler().
 */
static int cme_connect_common(const struct cme_params *p, unsigned int how)
{
	struct cme_listener *l;
	int ret;

	l = cme_listener_create(&init_net, cme_sa(&p->laddr), CME_ACCEPT,
				"srv");
	if (IS_ERR(l))
		return PTR_ERR(l);
	pr_info("accept from the CONNECT_REQUEST handler\n");
	ret = cme_one(l, cme_sa(&p->addr), 0, how | CME_VERBOSE);
	if (!ret) {
		pr_info("accept later, under rdma_lock_handler\n");
		cme_listener_set_policy(l, CME_HOLD);
		ret = cme_one(l, cme_sa(&p->addr), 1,
			      how | CME_VERBOSE | CME_DEFERRED);
	}
	if (!ret)
		ret = cme_listener_expect_none(l, 0);
	cme_listener_destroy(l);
	return ret;
}

/**
 * cme_scen_connect() - scenario "connect"
 * @p: parameters: laddr to listen on, addr to connect to
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_connect(const struct cme_params *p)
{
	return cme_connect_common(p, 0);
}

/**
 * cme_scen_server_disconnect() - scenario "server_disconnect"
 * @p: parameters: laddr to listen on, addr to connect to
 *
 * As "connect", but the passive side disconnects.
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_server_disconnect(const struct cme_params *p)
{
	return cme_connect_common(p, CME_SERVER_FIRST);
}

/**
 * cme_check_rejected() - wait for REJECTED as the listener sends it
 * @cli: the active endpoint
 *
 * Status IB_CM_REJ_CONSUMER_DEFINED, CME_PDATA_LEN bytes of the
 * CME_SEED_REJ pattern of @cli's index both as private data and from
 * rdma_consumer_reject_data(), and rdma_reject_msg() says "consumer".
 *
 * Return: 0 or a negative errno.
 */
int cme_check_rejected(struct cme_ep *cli)
{
	const struct cme_event *e;
	char what[48];

	e = cme_ep_wait(cli, RDMA_CM_EVENT_REJECTED);
	if (IS_ERR(e))
		return PTR_ERR(e);
	pr_info("%s: REJECTED status %d, private data %u bytes, consumer data %s %u bytes, reject message \"%s\"\n",
		cli->name, e->status, e->pdata_len,
		e->rej_data ? "present" : "absent", e->rej_len,
		e->rej_msg ?: "(null)");
	if (e->status != IB_CM_REJ_CONSUMER_DEFINED) {
		pr_err("FAIL: %s: REJECTED status %d, expected %d\n",
		       cli->name, e->status, IB_CM_REJ_CONSUMER_DEFINED);
		return -EPROTO;
	}
	if (!e->rej_data || e->rej_len < CME_PDATA_LEN) {
		pr_err("FAIL: %s: rdma_consumer_reject_data gave %u bytes, expected at least %u\n",
		       cli->name, e->rej_data ? e->rej_len : 0,
		       CME_PDATA_LEN);
		return -EPROTO;
	}
	snprintf(what, sizeof(what), "%s: consumer reject data", cli->name);
	if (cme_check_pattern(what, e->rej_pdata, CME_PDATA_LEN,
			      CME_SEED_REJ, cli->index))
		return -EPROTO;
	if (!e->has_pdata || e->pdata_len < CME_PDATA_LEN) {
		pr_err("FAIL: %s: REJECTED private data %u bytes\n",
		       cli->name, e->has_pdata ? e->pdata_len : 0);
		return -EPROTO;
	}
	snprintf(what, sizeof(what), "%s: reject private data", cli->name);
	if (cme_check_pattern(what, e->pdata, CME_PDATA_LEN, CME_SEED_REJ,
			      cli->index))
		return -EPROTO;
	if (!e->rej_msg || !strstr(e->rej_msg, "consumer")) {
		pr_err("FAIL: %s: rdma_reject_msg(%d) is \"%s\"\n", cli->name,
		       e->status, e->rej_msg ?: "(null)");
		return -EPROTO;
	}
	return 0;
}

/**
 * cme_scen_reject() - scenario "reject"
 * @p: parameters: laddr to listen on, addr to connect to
 *
 * First the listener's handler rejects with private data and returns 1
 * (the CM destroys the new id); then the scenario rejects a held request
 * under rdma_lock_handler() and destroys the id itself.  Either way the
 * client gets REJECTED, status IB_CM_REJ_CONSUMER_DEFINED, the server's
 * bytes from rdma_consumer_reject_data(), and rdma_reject_msg() says
 * "consumer defined".
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_reject(const struct cme_params *p)
{
	u8 pdata[CME_PDATA_LEN];
	struct cme_listener *l;
	struct cme_ep *cli = NULL, *srv = NULL;
	int ret;

	l = cme_listener_create(&init_net, cme_sa(&p->laddr), CME_REJECT,
				"srv");
	if (IS_ERR(l))
		return PTR_ERR(l);

	pr_info("reject from the CONNECT_REQUEST handler\n");
	ret = cme_start_connect(l, cme_sa(&p->addr), 0, &cli, &srv);
	if (!ret)
		ret = cme_check_rejected(cli);
	if (!ret && (srv->handler_error || !cme_ep_id_gone(srv))) {
		pr_err("FAIL: %s: rejecting in the handler failed: %d\n",
		       srv->name, srv->handler_error);
		ret = -EPROTO;
	}
	if (!ret)
		ret = cme_ep_expect_quiet(cli, CME_QUIET_MS);
	if (cli)
		cme_ep_dump(cli);
	if (srv)
		cme_ep_dump(srv);
	cme_ep_destroy(cli);
	cme_ep_destroy(srv);
	cli = NULL;
	srv = NULL;
	if (ret)
		goto out;

	pr_info("reject a held request under rdma_lock_handler\n");
	cme_listener_set_policy(l, CME_HOLD);
	ret = cme_start_connect(l, cme_sa(&p->addr), 1, &cli, &srv);
	if (!ret) {
		cme_pattern(pdata, sizeof(pdata), CME_SEED_REJ, srv->index);
		rdma_lock_handler(srv->id);
		ret = rdma_reject(srv->id, pdata, sizeof(pdata),
				  IB_CM_REJ_CONSUMER_DEFINED);
		rdma_unlock_handler(srv->id);
		ret = cme_expect("rdma_reject of a held request", ret, 0);
	}
	if (!ret)
		ret = cme_check_rejected(cli);
	if (!ret)
		ret = cme_ep_expect_quiet(cli, CME_QUIET_MS) ?:
		      cme_ep_expect_quiet(srv, 0);
	if (cli)
		cme_ep_dump(cli);
	if (srv)
		cme_ep_dump(srv);
	cme_ep_destroy(cli);
	cme_ep_destroy(srv);
	if (!ret)
		ret = cme_listener_expect_none(l, 0);
out:
	cme_listener_destroy(l);
	return ret;
}

/**
 * cme_scen_sequential() - scenario "sequential"
 * @p: parameters: laddr, addr, count (connections, default 100)
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_sequential(const struct cme_params *p)
{
	struct cme_listener *l;
	unsigned int i, how;
	int ret = 0;

	l = cme_listener_create(&init_net, cme_sa(&p->laddr), CME_ACCEPT,
				"srv");
	if (IS_ERR(l))
		return PTR_ERR(l);
	cme_quiet = true;
	for (i = 0; i < p->count && !ret; i++) {
		/* Every other one the server disconnects; some accept late. */
		how = (i & 1) ? CME_SERVER_FIRST : 0;
		if (i % 3 == 2)
			how |= CME_DEFERRED;
		cme_listener_set_policy(l, (how & CME_DEFERRED) ? CME_HOLD :
							       CME_ACCEPT);
		ret = cme_one(l, cme_sa(&p->addr), i, how);
		if (ret)
			pr_err("FAIL: connection %u of %u\n", i, p->count);
		else if ((i + 1) % 10 == 0 || i + 1 == p->count)
			pr_info("%u of %u connections done\n", i + 1,
				p->count);
	}
	cme_quiet = false;
	if (!ret)
		ret = cme_listener_expect_none(l, 0);
	if (!ret && l->nr_requests != p->count) {
		pr_err("FAIL: %u connection requests for %u connections\n",
		       l->nr_requests, p->count);
		ret = -EPROTO;
	}
	cme_listener_destroy(l);
	return ret;
}

/* Step @fn over every client, stopping at the first failure. */
static int cme_each(struct cme_ep **cli, unsigned int n,
		    int (*fn)(struct cme_ep *ep), const char *what)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = fn(cli[i]);
		if (ret) {
			pr_err("FAIL: %s of connection %u: %d\n", what, i, ret);
			return ret;
		}
	}
	pr_info("%s: done for %u connections\n", what, n);
	return 0;
}

/* Take @n passive endpoints and file them by the index they carry. */
static int cme_take_all(struct cme_listener *l, struct cme_ep **srv,
			unsigned int n)
{
	struct cme_ep *ep;
	unsigned int i;

	for (i = 0; i < n; i++) {
		ep = cme_listener_take(l);
		if (IS_ERR(ep))
			return PTR_ERR(ep);
		if (ep->index >= n || srv[ep->index]) {
			pr_err("FAIL: %s: request with index %u\n", ep->name,
			       ep->index);
			cme_ep_destroy(ep);
			return -EPROTO;
		}
		srv[ep->index] = ep;
	}
	return 0;
}

static int cme_close_all(struct cme_ep **cli, struct cme_ep **srv,
			 unsigned int n)
{
	const struct cme_event *e;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = rdma_disconnect(cli[i]->id);
		if (ret) {
			pr_err("FAIL: %s: rdma_disconnect: %d\n", cli[i]->name,
			       ret);
			return ret;
		}
	}
	for (i = 0; i < n; i++) {
		e = cme_ep_wait(srv[i], RDMA_CM_EVENT_DISCONNECTED);
		if (IS_ERR(e))
			return PTR_ERR(e);
		ret = rdma_disconnect(srv[i]->id);
		if (ret) {
			pr_err("FAIL: %s: rdma_disconnect: %d\n", srv[i]->name,
			       ret);
			return ret;
		}
	}
	for (i = 0; i < n; i++) {
		e = cme_ep_wait(cli[i], RDMA_CM_EVENT_DISCONNECTED);
		if (IS_ERR(e))
			return PTR_ERR(e);
	}
	pr_info("disconnect: done for %u connections\n", n);
	return 0;
}

/**
 * cme_scen_concurrent() - scenario "concurrent"
 * @p: parameters: laddr, addr, count (connections, default 16)
 *
 * Every step is issued for all connections before any is waited for:
 * all address resolutions, all route resolutions, all connects; then
 * data on each, all disconnects, teardown.
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_concurrent(const struct cme_params *p)
{
	unsigned int i, n = p->count;
	struct cme_ep **cli, **srv;
	struct cme_listener *l;
	int ret = 0;

	cli = kcalloc(n, sizeof(*cli), GFP_KERNEL);
	srv = kcalloc(n, sizeof(*srv), GFP_KERNEL);
	if (!cli || !srv) {
		ret = -ENOMEM;
		goto free;
	}
	l = cme_listener_create(&init_net, cme_sa(&p->laddr), CME_ACCEPT,
				"srv");
	if (IS_ERR(l)) {
		ret = PTR_ERR(l);
		goto free;
	}
	cme_quiet = true;
	for (i = 0; i < n; i++) {
		cli[i] = cme_client_start(&init_net, cme_sa(&p->addr), i);
		if (IS_ERR(cli[i])) {
			ret = PTR_ERR(cli[i]);
			cli[i] = NULL;
			goto out;
		}
	}
	pr_info("rdma_resolve_addr: issued for %u connections\n", n);
	ret = cme_each(cli, n, cme_client_route, "rdma_resolve_route") ?:
	      cme_each(cli, n, cme_client_connect, "rdma_connect") ?:
	      cme_take_all(l, srv, n) ?:
	      cme_each(cli, n, cme_client_established, "ESTABLISHED");
	for (i = 0; i < n && !ret; i++)
		ret = cme_server_accepted(srv[i], cli[i]);
	for (i = 0; i < n && !ret; i++)
		ret = cme_exchange(cli[i], srv[i]);
	if (!ret)
		pr_info("one SEND each way on %u connections, data checked\n",
			n);
	if (!ret)
		ret = cme_close_all(cli, srv, n);
	if (!ret)
		ret = cme_listener_expect_none(l, 0);
out:
	cme_quiet = false;
	for (i = 0; i < n; i++) {
		if (ret && cli[i])
			cme_ep_dump(cli[i]);
		if (ret && srv[i])
			cme_ep_dump(srv[i]);
		cme_ep_destroy(cli[i]);
		cme_ep_destroy(srv[i]);
	}
	cme_listener_destroy(l);
free:
	kfree(cli);
	kfree(srv);
	return ret;
}

/**
 * cme_scen_wildcard() - scenario "wildcard"
 * @p: parameters: laddr (a wildcard address), addr and addr2 (addresses
 *	of two different RDMA devices)
 *
 * One listener on the wildcard gets a connection through each device.
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_wildcard(const struct cme_params *p)
{
	struct cme_ep *cli[2] = {}, *srv[2] = {};
	struct cme_listener *l;
	unsigned int i;
	int ret;

	if (!p->has_addr2) {
		pr_err("FAIL: wildcard needs addr2=\n");
		return -EINVAL;
	}
	l = cme_listener_create(&init_net, cme_sa(&p->laddr), CME_ACCEPT,
				"srv");
	if (IS_ERR(l))
		return PTR_ERR(l);
	for (i = 0; i < 2; i++) {
		cli[i] = cme_client_start(&init_net,
					  cme_sa(i ? &p->addr2 : &p->addr), i);
		if (IS_ERR(cli[i])) {
			ret = PTR_ERR(cli[i]);
			cli[i] = NULL;
			goto out;
		}
	}
	ret = cme_each(cli, 2, cme_client_route, "rdma_resolve_route") ?:
	      cme_each(cli, 2, cme_client_connect, "rdma_connect") ?:
	      cme_take_all(l, srv, 2) ?:
	      cme_each(cli, 2, cme_client_established, "ESTABLISHED");
	for (i = 0; i < 2 && !ret; i++)
		ret = cme_server_accepted(srv[i], cli[i]) ?:
		      cme_check_mirror(cli[i], srv[i]) ?:
		      cme_exchange(cli[i], srv[i]);
	if (!ret && cli[0]->id->device == cli[1]->id->device) {
		pr_err("FAIL: %pISc and %pISc are on the same device\n",
		       &p->addr, &p->addr2);
		ret = -EINVAL;
	}
	if (!ret)
		ret = cme_close_all(cli, srv, 2);
	if (!ret)
		ret = cme_listener_expect_none(l, 0);
out:
	for (i = 0; i < 2; i++) {
		if (cli[i])
			cme_ep_dump(cli[i]);
		if (srv[i])
			cme_ep_dump(srv[i]);
		cme_ep_destroy(cli[i]);
		cme_ep_destroy(srv[i]);
	}
	cme_listener_destroy(l);
	return ret;
}
