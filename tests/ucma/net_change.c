// SPDX-License-Identifier: GPL-2.0
/*
 * An id waits for the network to change under it, through librdmacm and
 * rdma_ucm:
 *
 *   net_change addr ADDRESS          resolve ADDRESS, then expect
 *                                    ADDR_CHANGE (a bonding failover
 *                                    changed the source MAC)
 *   net_change neigh ADDRESS PORT    resolve and connect to ADDRESS (the
 *                                    REQ goes nowhere), then expect
 *                                    UNREACHABLE (the peer's neighbour
 *                                    entry changed its MAC)
 *
 * It prints "ready" once the id is set up, then waits up to 30 s for the
 * event while the caller changes the network. Exits 0 when the expected
 * event came.
 */
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <rdma/rdma_cma.h>

#include "ucma_test.h"

static struct rdma_event_channel *ch;

static void step(enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = poll_event(ch, 5000);

	if (!ev || ev->event != want) {
		fprintf(stderr, "FAIL: setup got %s, want %s\n",
			ev ? rdma_event_str(ev->event) : "nothing",
			rdma_event_str(want));
		exit(1);
	}
	rdma_ack_cm_event(ev);
}

int main(int argc, char **argv)
{
	struct rdma_conn_param param = { .qp_num = 1, .retry_count = 7 };
	enum rdma_cm_event_type want;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct addrinfo *ai;
	int neigh;

	if (argc < 3 || (strcmp(argv[1], "addr") && strcmp(argv[1], "neigh"))) {
		fprintf(stderr, "usage: %s addr|neigh ADDRESS [PORT]\n",
			argv[0]);
		return 2;
	}
	neigh = !strcmp(argv[1], "neigh");
	want = neigh ? RDMA_CM_EVENT_UNREACHABLE : RDMA_CM_EVENT_ADDR_CHANGE;
	if (getaddrinfo(argv[2], argc > 3 ? argv[3] : "7490", NULL, &ai))
		die("getaddrinfo");
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 2000))
		die("rdma_resolve_addr");
	step(RDMA_CM_EVENT_ADDR_RESOLVED);
	if (neigh) {
		if (rdma_resolve_route(id, 2000))
			die("rdma_resolve_route");
		step(RDMA_CM_EVENT_ROUTE_RESOLVED);
		if (rdma_connect(id, &param))
			die("rdma_connect");
	}
	printf("ready\n");
	fflush(stdout);

	ev = poll_event(ch, 30000);
	if (!ev || ev->event != want) {
		fprintf(stderr, "FAIL: got %s, want %s\n",
			ev ? rdma_event_str(ev->event) : "nothing in 30 s",
			rdma_event_str(want));
		return 1;
	}
	printf("ok: %s (status %d)\n", rdma_event_str(ev->event), ev->status);
	rdma_ack_cm_event(ev);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	freeaddrinfo(ai);
	return 0;
}
