// SPDX-License-Identifier: GPL-2.0
/*
 * cm_e2e: end-to-end tests of an RDMA connection manager through the
 * exported rdma_cm API only, so that the same module runs against the
 * kernel's rdma_cm and against a replacement of the same ABI.
 *
 *   insmod cm_e2e.ko scenario=connect,reject addr=10.0.0.1,fd00::1
 *
 * One insmod runs a batch: each scenario of the list once per parameter
 * set (the n-th addr, addr2 and laddr make set n), or, written NAME@N,
 * with set N only.  Module init runs the batch to the end and returns 0
 * if every run passed, -EPROTO if not: insmod's exit status is the
 * verdict.  Each run logs "scenario NAME ADDR: PASS in N ms" (or FAIL)
 * and adds a line "PASS NAME ADDR MS" to the read-only parameter
 * "results"; "state" says "listening" once serve listens, "done" at the
 * end.  Scenarios: connect, reject, server_disconnect, destroy_states,
 * sequential, concurrent, wildcard, netns, bad_input, for two hosts
 * serve and dial, hold (ids held in known states for a script),
 * netns_hold (the same in a namespace whose processes go), stress
 * (random cycles cut short, on two CPUs at once), and what the calls
 * that tune a connection do to it: qp_attrs, set_ib_path, notify,
 * connect_locked, iw_cm_id (scen_attrs.c); accept_removed (a request
 * held while a script removes its device).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cm_e2e.h"

/* Parameter sets a batch can have: IPv4 and IPv6, and room to spare. */
#define CME_MAX_SETS		4
#define CME_RESULTS_LEN		2048

static char *scenario;
module_param(scenario, charp, 0444);
MODULE_PARM_DESC(scenario, "comma-separated list, each NAME (every parameter set) or NAME@N (set N): connect, reject, server_disconnect, destroy_states, sequential, concurrent, wildcard, netns, bad_input, serve, dial, hold, stress, netns_hold, qp_attrs, set_ib_path, notify, connect_locked, iw_cm_id, accept_removed");

static char *addr[CME_MAX_SETS];
static unsigned int nr_addr;
module_param_array(addr, charp, &nr_addr, 0444);
MODULE_PARM_DESC(addr, "addresses clients connect to, IPv4 or IPv6, one per parameter set (default 10.0.0.1)");

static char *addr2[CME_MAX_SETS];
static unsigned int nr_addr2;
module_param_array(addr2, charp, &nr_addr2, 0444);
MODULE_PARM_DESC(addr2, "an address on another RDMA device, one per set (wildcard: required; bad_input: optional)");

static char *laddr[CME_MAX_SETS];
static unsigned int nr_laddr;
module_param_array(laddr, charp, &nr_laddr, 0444);
MODULE_PARM_DESC(laddr, "addresses the listener binds, one per set (default: addr)");

static ushort port = 7471;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "port (default 7471)");

static uint count;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "connections for sequential (default 100), concurrent (16), serve and dial (5); cycles per worker for stress (200)");

static uint seed = 1;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "seed of stress's random cuts (default 1)");

static bool keep_going;
module_param(keep_going, bool, 0444);
MODULE_PARM_DESC(keep_going, "stress: count failed cycles and go on (for runs under fault injection)");

unsigned int cme_timeout_ms = CME_TIMEOUT_MS;
module_param_named(timeout_ms, cme_timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "upper bound on any wait for the CM or the wire (default 15000)");

static bool strict;
module_param(strict, bool, 0444);
MODULE_PARM_DESC(strict, "also check what the in-box rdma_cm does otherwise");

static int netns_pid;
module_param(netns_pid, int, 0444);
MODULE_PARM_DESC(netns_pid, "netns: a process in the other network namespace");

static uint wait_s = 300;
module_param_named(wait, wait_s, uint, 0444);
MODULE_PARM_DESC(wait, "serve: seconds to wait for a client; hold: to hold (default 300)");

/* What the batch did so far, for the results and state parameters. */
static DEFINE_MUTEX(cme_report_lock);
static char cme_results[CME_RESULTS_LEN];
static size_t cme_results_len;
static const char *cme_state = "loading";
static unsigned int cme_nr_runs;
static unsigned int cme_nr_failed;

static int cme_param_read_only(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static int cme_results_get(char *buffer, const struct kernel_param *kp)
{
	int len;

	mutex_lock(&cme_report_lock);
	len = scnprintf(buffer, PAGE_SIZE, "%s", cme_results);
	mutex_unlock(&cme_report_lock);
	return len;
}

static const struct kernel_param_ops cme_results_ops = {
	.set = cme_param_read_only,
	.get = cme_results_get,
};

module_param_cb(results, &cme_results_ops, NULL, 0444);
MODULE_PARM_DESC(results, "one line per finished run: PASS or FAIL, scenario, address, milliseconds");

static int cme_state_get(char *buffer, const struct kernel_param *kp)
{
	int len;

	mutex_lock(&cme_report_lock);
	len = scnprintf(buffer, PAGE_SIZE, "%s\n", cme_state);
	mutex_unlock(&cme_report_lock);
	return len;
}

static const struct kernel_param_ops cme_state_ops = {
	.set = cme_param_read_only,
	.get = cme_state_get,
};

module_param_cb(state, &cme_state_ops, NULL, 0444);
MODULE_PARM_DESC(state, "loading, running, listening (serve is ready for clients), holding (hold holds its ids, accept_removed a request), done");

/**
 * cme_set_state() - say where the batch is, in the state parameter
 * @state: a string that lives as long as the module
 */
void cme_set_state(const char *state)
{
	mutex_lock(&cme_report_lock);
	cme_state = state;
	mutex_unlock(&cme_report_lock);
}

/**
 * cme_result() - log and record the verdict of one run
 * @name: the scenario
 * @ss: the address it ran with
 * @ret: 0 if it passed, else why not
 * @start: jiffies when it started
 */
void cme_result(const char *name, const struct sockaddr_storage *ss, int ret,
		unsigned long start)
{
	unsigned int ms = jiffies_to_msecs(jiffies - start);

	if (ret)
		pr_err("scenario %s %pISc: FAIL (%d) after %u ms\n", name, ss,
		       ret, ms);
	else
		pr_info("scenario %s %pISc: PASS in %u ms\n", name, ss, ms);
	mutex_lock(&cme_report_lock);
	cme_nr_runs++;
	if (ret)
		cme_nr_failed++;
	cme_results_len += scnprintf(cme_results + cme_results_len,
				     sizeof(cme_results) - cme_results_len,
				     "%s %s %pISc %u\n", ret ? "FAIL" : "PASS",
				     name, ss, ms);
	mutex_unlock(&cme_report_lock);
}

/**
 * struct cme_scenario - one scenario
 * @name: what scenario= calls it
 * @run: runs it with one parameter set, or
 * @run_all: runs it once with all of them
 * @count: default of count
 */
struct cme_scenario {
	const char *name;
	int (*run)(const struct cme_params *p);
	int (*run_all)(const struct cme_params *sets, unsigned int n);
	unsigned int count;
};

static const struct cme_scenario cme_scenarios[] = {
	{ "connect", cme_scen_connect },
	{ "reject", cme_scen_reject },
	{ "server_disconnect", cme_scen_server_disconnect },
	{ "destroy_states", cme_scen_destroy_states },
	{ "sequential", cme_scen_sequential, NULL, 100 },
	{ "concurrent", cme_scen_concurrent, NULL, 16 },
	{ "wildcard", cme_scen_wildcard },
	{ "netns", cme_scen_netns },
	{ "bad_input", cme_scen_bad_input },
	{ "serve", NULL, cme_scen_serve, 5 },
	{ "dial", cme_scen_dial, NULL, 5 },
	{ "hold", NULL, cme_scen_hold },
	{ "stress", cme_scen_stress, NULL, 200 },
	{ "netns_hold", cme_scen_netns_hold },
	{ "qp_attrs", cme_scen_qp_attrs },
	{ "set_ib_path", cme_scen_set_ib_path },
	{ "notify", cme_scen_notify },
	{ "connect_locked", cme_scen_connect_locked },
	{ "iw_cm_id", cme_scen_iw_cm_id },
	{ "accept_removed", cme_scen_accept_removed },
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

/* The parameter sets from addr, addr2 and laddr; returns how many. */
static int cme_parse_sets(struct cme_params *sets)
{
	unsigned int i, n = max(nr_addr, 1U);
	struct cme_params *p;
	int ret;

	if ((nr_addr2 && nr_addr2 != n) || (nr_laddr && nr_laddr != n)) {
		pr_err("%u addr, %u addr2, %u laddr: give addr2 and laddr once per addr, or not at all\n",
		       nr_addr, nr_addr2, nr_laddr);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		p = &sets[i];
		p->port = port;
		p->strict = strict;
		p->netns_pid = netns_pid;
		p->seed = seed;
		p->keep_going = keep_going;
		p->wait_ms = wait_s * MSEC_PER_SEC;
		ret = cme_parse("addr", nr_addr ? addr[i] : "10.0.0.1", port,
				&p->addr);
		if (!ret)
			ret = cme_parse("laddr", nr_laddr ? laddr[i] :
					nr_addr ? addr[i] : "10.0.0.1", port,
					&p->laddr);
		if (!ret && nr_addr2) {
			ret = cme_parse("addr2", addr2[i], port, &p->addr2);
			p->has_addr2 = true;
		}
		if (ret)
			return ret;
	}
	return n;
}

/**
 * struct cme_run - one entry of the scenario list
 * @s: the scenario
 * @set: the parameter set it runs with, or -1 for each
 */
struct cme_run {
	const struct cme_scenario *s;
	int set;
};

/* Split scenario= into @runs; returns how many. */
static int cme_parse_list(char *list, struct cme_run *runs, unsigned int max,
			  unsigned int nr_sets)
{
	unsigned int i, n = 0;
	char *name, *at;
	int set;

	while ((name = strsep(&list, ","))) {
		if (!*name)
			continue;
		set = -1;
		at = strchr(name, '@');
		if (at) {
			*at++ = '\0';
			if (kstrtoint(at, 10, &set) || set < 0 ||
			    set >= nr_sets) {
				pr_err("scenario %s@%s: no such parameter set (there are %u)\n",
				       name, at, nr_sets);
				return -EINVAL;
			}
		}
		if (n == max) {
			pr_err("more than %u scenarios in one batch\n", max);
			return -E2BIG;
		}
		runs[n].s = NULL;
		for (i = 0; i < ARRAY_SIZE(cme_scenarios); i++)
			if (!strcmp(name, cme_scenarios[i].name))
				runs[n].s = &cme_scenarios[i];
		if (!runs[n].s) {
			pr_err("unknown scenario %s\n", name);
			return -EINVAL;
		}
		if (runs[n].s->run_all && set >= 0) {
			pr_err("scenario %s takes every parameter set at once\n",
			       name);
			return -EINVAL;
		}
		runs[n++].set = set;
	}
	if (!n) {
		pr_err("no scenario=\n");
		return -EINVAL;
	}
	return n;
}

static void cme_run_one(const struct cme_scenario *s, struct cme_params *p)
{
	unsigned long start = jiffies;
	int ret;

	p->count = count ?: s->count;
	if (p->has_addr2)
		pr_info("scenario %s: start (addr %pISpc, laddr %pISpc, addr2 %pISc, count %u%s)\n",
			s->name, &p->addr, &p->laddr, &p->addr2, p->count,
			p->strict ? ", strict" : "");
	else
		pr_info("scenario %s: start (addr %pISpc, laddr %pISpc, count %u%s)\n",
			s->name, &p->addr, &p->laddr, p->count,
			p->strict ? ", strict" : "");
	ret = s->run(p);
	if (ret > 0)
		ret = -EPROTO;
	cme_result(s->name, &p->addr, ret, start);
}

/* A scenario that takes every set at once records its own verdicts. */
static void cme_run_all(const struct cme_scenario *s, struct cme_params *sets,
			unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sets[i].count = count ?: s->count;
	pr_info("scenario %s: start (%u parameter sets, count %u)\n", s->name,
		n, sets[0].count);
	s->run_all(sets, n);
}

#define CME_MAX_RUNS	16

static int __init cme_init(void)
{
	struct cme_params *sets;
	struct cme_run *runs;
	char *list;
	int nr_sets, nr_runs, i, k;
	int ret;

	if (!scenario) {
		pr_err("no scenario=\n");
		return -EINVAL;
	}
	sets = kcalloc(CME_MAX_SETS, sizeof(*sets), GFP_KERNEL);
	runs = kcalloc(CME_MAX_RUNS, sizeof(*runs), GFP_KERNEL);
	list = kstrdup(scenario, GFP_KERNEL);
	if (!sets || !runs || !list) {
		ret = -ENOMEM;
		goto out;
	}
	nr_sets = cme_parse_sets(sets);
	if (nr_sets < 0) {
		ret = nr_sets;
		goto out;
	}
	nr_runs = cme_parse_list(list, runs, CME_MAX_RUNS, nr_sets);
	if (nr_runs < 0) {
		ret = nr_runs;
		goto out;
	}

	cme_set_state("running");
	for (i = 0; i < nr_runs; i++) {
		if (runs[i].s->run_all) {
			cme_run_all(runs[i].s, sets, nr_sets);
			continue;
		}
		for (k = 0; k < nr_sets; k++)
			if (runs[i].set < 0 || runs[i].set == k)
				cme_run_one(runs[i].s, &sets[k]);
	}
	cme_set_state("done");

	ret = 0;
	if (cme_nr_failed) {
		pr_err("FAIL: %u of %u scenario runs failed\n", cme_nr_failed,
		       cme_nr_runs);
		ret = -EPROTO;
	} else {
		pr_info("all %u scenario runs passed\n", cme_nr_runs);
	}
out:
	kfree(list);
	kfree(runs);
	kfree(sets);
	return ret;
}

static void __exit cme_exit(void)
{
}

module_init(cme_init);
module_exit(cme_exit);

MODULE_DESCRIPTION("End-to-end tests of the RDMA CM through its kernel API");
MODULE_LICENSE("GPL");
