// SPDX-License-Identifier: GPL-2.0
/*
 * Systematic fault injection into the CM's synchronous paths, through
 * librdmacm and rdma_ucm, with the kernel's fail-nth (failslab):
 *
 *   fault_walk ADDRESS PORT GROUP [FIRST]
 *
 * One scenario (listen; resolve address and route; connect, accept and
 * establish without QPs; disconnect; join and leave a group) is run again
 * and again, the N-th kernel allocation of this thread failing in run N,
 * until a run reaches no N-th allocation (FIRST, default 1, is the N of
 * the first run: to reproduce one failure). A run that meets its failure
 * must see it cleanly: a call returns an error, or an error event comes;
 * then every id is destroyed with injection off. The last, undisturbed
 * run must complete. Events that never come are counted and fail the
 * walk, except after a failed DREQ: both CMs, like the IB CM spec, leave
 * a connection whose DREQ could not be sent to the timewait of the peer.
 * The kernel's checks (KASAN, kmemleak, lockdep) judge the rest.
 *
 * Needs /sys/kernel/debug/failslab/ignore-gfp-wait set to N and verbose
 * to 0, which tests/e2e/fault_walk.sh does.
 */
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <rdma/rdma_cma.h>

#include "ucma_test.h"

#define EVENT_MS 3000

enum { LIS, CLI, SRV, UD, NR_IDS };

struct run {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id[NR_IDS];
	const char *failed;	/* the step that failed, if any */
	int lost;		/* an expected event did not come */
	enum rdma_cm_event_type got;	/* what came instead, if not lost */
	int status;		/* and its status */
};

static struct addrinfo *here, *group;
static char nth_path[64];

/*
 * This thread's fail-nth, opened once: opening it inside the window would
 * itself allocate. Reading and writing it allocate nothing.
 */
static int nth_fd = -1;

static void set_fail_nth(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len)
		die(nth_path);
}

static unsigned int get_fail_nth(void)
{
	char buf[16] = "";

	if (pread(nth_fd, buf, sizeof(buf) - 1, 0) < 0)
		die(nth_path);
	return strtoul(buf, NULL, 10);
}

/*
 * Wait for @want; a CONNECT_REQUEST's new id goes to @r->id[SRV]. Any
 * other event ends the run as a clean failure; no event is a lost one.
 */
static int wait_ev(struct run *r, enum rdma_cm_event_type want,
		   const char *step)
{
	struct pollfd pfd = { .fd = r->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int ok;

	if (poll(&pfd, 1, EVENT_MS) <= 0) {
		r->failed = step;
		r->lost = 1;
		return -1;
	}
	if (rdma_get_cm_event(r->ch, &ev)) {
		r->failed = step;
		return -1;
	}
	ok = ev->event == want;
	if (ok && want == RDMA_CM_EVENT_CONNECT_REQUEST)
		r->id[SRV] = ev->id;
	if (!ok) {
		r->failed = step;
		r->got = ev->event;
		r->status = ev->status;
	}
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

/* A call's result: an error ends the run cleanly. */
static int call(struct run *r, int ret, const char *step)
{
	if (ret)
		r->failed = step;
	return ret;
}

static int connect_pair(struct run *r)
{
	struct rdma_conn_param param = { .qp_num = 1 };

	if (call(r, rdma_resolve_addr(r->id[CLI], NULL, here->ai_addr, 2000),
		 "resolve_addr") ||
	    wait_ev(r, RDMA_CM_EVENT_ADDR_RESOLVED, "ADDR_RESOLVED") ||
	    call(r, rdma_resolve_route(r->id[CLI], 2000), "resolve_route") ||
	    wait_ev(r, RDMA_CM_EVENT_ROUTE_RESOLVED, "ROUTE_RESOLVED") ||
	    call(r, rdma_connect(r->id[CLI], &param), "connect") ||
	    wait_ev(r, RDMA_CM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST"))
		return -1;
	param.qp_num = 2;
	if (call(r, rdma_accept(r->id[SRV], &param), "accept") ||
	    wait_ev(r, RDMA_CM_EVENT_CONNECT_RESPONSE, "CONNECT_RESPONSE") ||
	    call(r, rdma_establish(r->id[CLI]), "establish") ||
	    wait_ev(r, RDMA_CM_EVENT_ESTABLISHED, "ESTABLISHED"))
		return -1;
	/* The passive side answers the DREQ with its own disconnect (DREP). */
	if (call(r, rdma_disconnect(r->id[CLI]), "disconnect") ||
	    wait_ev(r, RDMA_CM_EVENT_DISCONNECTED, "DISCONNECTED") ||
	    call(r, rdma_disconnect(r->id[SRV]), "disconnect, passive") ||
	    wait_ev(r, RDMA_CM_EVENT_DISCONNECTED, "DISCONNECTED"))
		return -1;
	return 0;
}

static int scenario(struct run *r)
{
	if (call(r, rdma_create_id(r->ch, &r->id[LIS], NULL, RDMA_PS_TCP),
		 "create listener") ||
	    call(r, rdma_bind_addr(r->id[LIS], here->ai_addr), "bind") ||
	    call(r, rdma_listen(r->id[LIS], 4), "listen") ||
	    call(r, rdma_create_id(r->ch, &r->id[CLI], NULL, RDMA_PS_TCP),
		 "create client") ||
	    connect_pair(r))
		return -1;
	if (call(r, rdma_create_id(r->ch, &r->id[UD], NULL, RDMA_PS_UDP),
		 "create UD") ||
	    call(r, rdma_bind_addr(r->id[UD], here->ai_addr), "bind UD") ||
	    call(r, rdma_join_multicast(r->id[UD], group->ai_addr, NULL),
		 "join") ||
	    wait_ev(r, RDMA_CM_EVENT_MULTICAST_JOIN, "MULTICAST_JOIN") ||
	    call(r, rdma_leave_multicast(r->id[UD], group->ai_addr), "leave"))
		return -1;
	return 0;
}

/* Destroy what the run made, reading (and acking) what is still queued. */
static void cleanup(struct run *r)
{
	struct pollfd pfd = { .fd = r->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int i;

	while (poll(&pfd, 1, 20) > 0 && !rdma_get_cm_event(r->ch, &ev)) {
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && !r->id[SRV])
			r->id[SRV] = ev->id;
		else if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			rdma_destroy_id(ev->id);
		rdma_ack_cm_event(ev);
	}
	for (i = NR_IDS - 1; i >= 0; i--)
		if (r->id[i])
			rdma_destroy_id(r->id[i]);
	rdma_destroy_event_channel(r->ch);
}

int main(int argc, char **argv)
{
	unsigned int n, first, left, failures = 0, lost = 0;
	struct run r;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s ADDRESS PORT GROUP [FIRST]\n",
			argv[0]);
		return 2;
	}
	if (getaddrinfo(argv[1], argv[2], NULL, &here) ||
	    getaddrinfo(argv[3], NULL, NULL, &group))
		die("getaddrinfo");
	snprintf(nth_path, sizeof(nth_path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	nth_fd = open(nth_path, O_RDWR);
	if (nth_fd < 0)
		die(nth_path);
	/* librdmacm opens the devices once: not inside the window. */
	free(rdma_get_devices(NULL));

	first = argc > 4 ? strtoul(argv[4], NULL, 10) : 1;
	for (n = first;; n++) {
		memset(&r, 0, sizeof(r));
		r.ch = rdma_create_event_channel();
		if (!r.ch)
			die("rdma_create_event_channel");
		set_fail_nth(n);
		scenario(&r);
		left = get_fail_nth();
		set_fail_nth(0);
		cleanup(&r);
		if (left) {
			/* The N-th allocation never came: a clean run. */
			if (r.failed) {
				fprintf(stderr, "FAIL: undisturbed run failed at %s: %s (%d)\n",
					r.failed, r.lost ? "nothing came" :
					rdma_event_str(r.got), r.status);
				return 1;
			}
			break;
		}
		if (r.failed)
			failures++;
		if (r.lost && strcmp(r.failed, "DISCONNECTED")) {
			fprintf(stderr, "FAIL: allocation %u failed, then no %s\n",
				n, r.failed);
			lost++;
		}
	}
	printf("%u allocations failed one by one: %u runs ended early and cleanly, ",
	       n - first, failures);
	printf("%u lost an event\n", lost);
	return lost ? 1 : 0;
}
