// SPDX-License-Identifier: GPL-2.0
/*
 * cm_e2e scenario "netns": ports are per network namespace.  rxe and
 * siw do not follow namespaces, so the other namespace only binds and
 * listens; the traffic stays in init_net.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "cm_e2e.h"

/**
 * cme_any() - the wildcard address of a family, with a port
 * @ss: filled in
 * @family: AF_INET or AF_INET6
 * @port: the port, host order
 */
void cme_any(struct sockaddr_storage *ss, sa_family_t family, u16 port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
	}
}

/*
 * A new id in @net whose bind to @addr must return @want; @alt is also
 * fine unless strict.
 */
static int cme_try_bind(const struct cme_params *p, struct net *net,
			const char *name, const struct sockaddr_storage *addr,
			int want, int alt, struct cme_ep **epp)
{
	struct sockaddr_storage ss = *addr;
	struct cme_ep *ep;
	char what[80];
	int ret;

	*epp = NULL;
	ep = cme_ep_alloc("%s", name);
	if (!ep)
		return -ENOMEM;
	*epp = ep;
	ret = cme_ep_create_id(ep, net);
	if (ret)
		return ret;
	snprintf(what, sizeof(what), "%s: rdma_bind_addr %pISpc", name,
		 addr);
	ret = rdma_bind_addr(ep->id, cme_sa(&ss));
	if (ret == alt && alt != want && !p->strict) {
		pr_info("not strict: %s returned %d, strict wants %d\n", what,
			ret, want);
		return 0;
	}
	return cme_expect(what, ret, want);
}

/* Through the init_net listener, and only it. */
static int cme_netns_connect(const struct cme_params *p,
			     struct cme_listener *lin,
			     struct cme_listener *lns)
{
	struct cme_ep *cli, *srv;
	int ret;

	ret = cme_start_connect(lin, cme_sa(&p->addr), 0, &cli, &srv) ?:
	      cme_client_established(cli) ?:
	      cme_server_established(srv, cli) ?:
	      cme_exchange(cli, srv) ?:
	      cme_disconnect(cli, srv) ?:
	      cme_listener_expect_none(lns, 200);
	if (!ret)
		pr_info("ok: a connection to %pISpc reached the init_net listener only\n",
			&p->addr);
	if (cli)
		cme_ep_dump(cli);
	if (srv)
		cme_ep_dump(srv);
	cme_ep_destroy(cli);
	cme_ep_destroy(srv);
	return ret;
}

/**
 * cme_netns_of() - the network namespace netns_pid names
 * @p: the parameters
 *
 * Return: the namespace, with a reference, or an ERR_PTR: -EINVAL if
 * netns_pid is missing or in init_net, or get_net_ns_by_pid()'s error.
 */
struct net *cme_netns_of(const struct cme_params *p)
{
	struct net *net;

	if (!p->netns_pid) {
		pr_err("FAIL: the scenario needs netns_pid=\n");
		return ERR_PTR(-EINVAL);
	}
	net = get_net_ns_by_pid(p->netns_pid);
	if (IS_ERR(net)) {
		pr_err("FAIL: no network namespace of pid %d: %ld\n",
		       p->netns_pid, PTR_ERR(net));
		return net;
	}
	if (net_eq(net, &init_net)) {
		pr_err("FAIL: pid %d is in init_net\n", p->netns_pid);
		put_net(net);
		return ERR_PTR(-EINVAL);
	}
	return net;
}

/**
 * cme_scen_netns() - scenario "netns"
 * @p: parameters: netns_pid (a process in another namespace), port,
 *	addr (an address in init_net to connect to)
 *
 * The same wildcard port listens in init_net and in the other
 * namespace.  Binding it again in either namespace fails (-EADDRNOTAVAIL,
 * as a wildcard is involved: both CMs say so) and leaves the id free to
 * bind elsewhere; the same specific address and port twice is
 * -EADDRINUSE.  A connection in
 * init_net gets to the init_net listener only.  Once the other
 * namespace's listener is gone its port is free there.
 *
 * Return: 0 if it passed, else a negative errno.
 */
int cme_scen_netns(const struct cme_params *p)
{
	struct cme_listener *lin = NULL, *lns = NULL;
	struct cme_ep *dup_in = NULL, *dup_ns = NULL, *spec = NULL;
	struct cme_ep *again = NULL, *v6_in = NULL, *v6_ns = NULL;
	struct cme_ep *spec_a = NULL, *spec_b = NULL;
	struct sockaddr_storage any, other, any6, spec2;
	struct net *net;
	int ret;

	net = cme_netns_of(p);
	if (IS_ERR(net))
		return PTR_ERR(net);

	cme_any(&any, AF_INET, p->port);
	cme_any(&other, AF_INET, p->port + 1);
	cme_any(&any6, AF_INET6, p->port + 2);

	lin = cme_listener_create(&init_net, cme_sa(&any), CME_ACCEPT,
				  "srv-init");
	if (IS_ERR(lin)) {
		ret = PTR_ERR(lin);
		goto out;
	}
	lns = cme_listener_create(net, cme_sa(&any), CME_ACCEPT, "srv-ns");
	if (IS_ERR(lns)) {
		ret = PTR_ERR(lns);
		goto out;
	}
	pr_info("ok: %pISpc listens in init_net and in the other namespace\n",
		&any);

	ret = cme_try_bind(p, &init_net, "dup-init", &any, -EADDRNOTAVAIL,
			   -EADDRNOTAVAIL, &dup_in) ?:
	      cme_try_bind(p, net, "dup-ns", &any, -EADDRNOTAVAIL,
			   -EADDRNOTAVAIL, &dup_ns) ?:
	      cme_try_bind(p, &init_net, "specific", &p->addr, -EADDRNOTAVAIL,
			   -EADDRNOTAVAIL, &spec);
	if (ret)
		goto out;
	ret = cme_expect("dup-init: rdma_bind_addr to another port",
			 rdma_bind_addr(dup_in->id, cme_sa(&other)), 0) ?:
	      cme_expect("dup-ns: rdma_bind_addr to the same other port",
			 rdma_bind_addr(dup_ns->id, cme_sa(&other)), 0);
	if (ret)
		goto out;

	cme_with_port(&spec2, &p->addr, p->port + 3);
	ret = cme_try_bind(p, &init_net, "spec-a", &spec2, 0, 0, &spec_a) ?:
	      cme_try_bind(p, &init_net, "spec-b", &spec2, -EADDRINUSE,
			   -EADDRINUSE, &spec_b) ?:
	      cme_try_bind(p, net, "v6-ns", &any6, 0, 0, &v6_ns) ?:
	      cme_try_bind(p, &init_net, "v6-init", &any6, 0, 0, &v6_in);
	if (ret)
		goto out;

	ret = cme_netns_connect(p, lin, lns);
	if (ret)
		goto out;

	cme_listener_destroy(lns);
	lns = NULL;
	ret = cme_try_bind(p, net, "again-ns", &any, 0, 0, &again);
out:
	cme_ep_destroy(again);
	cme_ep_destroy(spec_b);
	cme_ep_destroy(spec_a);
	cme_ep_destroy(v6_in);
	cme_ep_destroy(v6_ns);
	cme_ep_destroy(spec);
	cme_ep_destroy(dup_ns);
	cme_ep_destroy(dup_in);
	cme_listener_destroy(lns);
	cme_listener_destroy(lin);
	put_net(net);
	return ret;
}
