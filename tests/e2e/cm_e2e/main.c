// SPDX-License-Identifier: GPL-2.0
/*
 * cm_e2e: end-to-end tests of an RDMA connection manager through the
 * exported rdma_cm API only, so that the same module runs against the
 * kernel's rdma_cm and against a replacement of the same ABI.
 *
 *   insmod cm_e2e.ko scenario=connect addr=10.0.0.1 port=7471
 *
 * Module init runs the scenario to the end and returns 0 if it passed,
 * a negative errno if not: insmod's exit status is the verdict, and the
 * kernel log says what happened.  Scenarios: connect, reject,
 * server_disconnect, destroy_states, sequential, concurrent, wildcard,
 * netns, bad_input.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cm_e2e.h"

static char *scenario;
module_param(scenario, charp, 0444);
MODULE_PARM_DESC(scenario, "what to run: connect, reject, server_disconnect, destroy_states, sequential, concurrent, wildcard, netns, bad_input");

static char *addr = "10.0.0.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 or IPv6 address clients connect to (default 10.0.0.1)");

static char *addr2;
module_param(addr2, charp, 0444);
MODULE_PARM_DESC(addr2, "address on another RDMA device (wildcard: required; bad_input: optional)");

static char *laddr;
module_param(laddr, charp, 0444);
MODULE_PARM_DESC(laddr, "address the listener binds (default: addr)");

static ushort port = 7471;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "port (default 7471)");

static uint count;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "connections for sequential (default 100) and concurrent (default 16)");

static bool strict;
module_param(strict, bool, 0444);
MODULE_PARM_DESC(strict, "also check what the in-box rdma_cm does otherwise");

static int netns_pid;
module_param(netns_pid, int, 0444);
MODULE_PARM_DESC(netns_pid, "netns: a process in the other network namespace");

struct cme_scenario {
	const char *name;
	int (*run)(const struct cme_params *p);
	unsigned int count;
};

static const struct cme_scenario cme_scenarios[] = {
	{ "connect", cme_scen_connect },
	{ "reject", cme_scen_reject },
	{ "server_disconnect", cme_scen_server_disconnect },
	{ "destroy_states", cme_scen_destroy_states },
	{ "sequential", cme_scen_sequential, 100 },
	{ "concurrent", cme_scen_concurrent, 16 },
	{ "wildcard", cme_scen_wildcard },
	{ "netns", cme_scen_netns },
	{ "bad_input", cme_scen_bad_input },
};

/**
 * cme_with_port() - copy an IPv4 or IPv6 address, with another port
 * @dst: the copy
 * @src: the address
 * @port: the port of the copy, host order
 */
void cme_with_port(struct sockaddr_storage *dst,
		   const struct sockaddr_storage *src, u16 port)
{
	*dst = *src;
	if (dst->ss_family == AF_INET6)
		((struct sockaddr_in6 *)dst)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)dst)->sin_port = htons(port);
}

/**
 * cme_port_of() - the port of an IPv4 or IPv6 address
 * @ss: the address
 *
 * Return: the port, host order.
 */
u16 cme_port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static int cme_parse(const char *what, const char *s, u16 port,
		     struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (in4_pton(s, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL)) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return 0;
	}
	if (in6_pton(s, -1, sin6->sin6_addr.s6_addr, -1, NULL)) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return 0;
	}
	pr_err("%s=%s is no IPv4 or IPv6 address\n", what, s);
	return -EINVAL;
}

static int __init cme_init(void)
{
	const struct cme_scenario *s = NULL;
	struct cme_params *p;
	unsigned long start;
	unsigned int i;
	int ret;

	for (i = 0; scenario && i < ARRAY_SIZE(cme_scenarios); i++)
		if (!strcmp(scenario, cme_scenarios[i].name))
			s = &cme_scenarios[i];
	if (!s) {
		pr_err("unknown scenario=%s\n", scenario ?: "");
		return -EINVAL;
	}

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->port = port;
	p->count = count ?: s->count;
	p->strict = strict;
	p->netns_pid = netns_pid;
	ret = cme_parse("addr", addr, port, &p->addr);
	if (!ret)
		ret = cme_parse("laddr", laddr ?: addr, port, &p->laddr);
	if (!ret && addr2) {
		ret = cme_parse("addr2", addr2, port, &p->addr2);
		p->has_addr2 = true;
	}
	if (ret)
		goto out;

	pr_info("scenario %s: start (addr %pISpc, laddr %pISpc%s%s, count %u%s)\n",
		s->name, &p->addr, &p->laddr, addr2 ? ", addr2 " : "",
		addr2 ?: "", p->count, strict ? ", strict" : "");
	start = jiffies;
	ret = s->run(p);
	if (ret > 0)
		ret = -EPROTO;
	if (ret)
		pr_err("scenario %s: FAIL (%d) after %u ms\n", s->name, ret,
		       jiffies_to_msecs(jiffies - start));
	else
		pr_info("scenario %s: PASS in %u ms\n", s->name,
			jiffies_to_msecs(jiffies - start));
out:
	kfree(p);
	return ret;
}

static void __exit cme_exit(void)
{
}

module_init(cme_init);
module_exit(cme_exit);

MODULE_DESCRIPTION("End-to-end tests of the RDMA CM through its kernel API");
MODULE_LICENSE("GPL");
