// SPDX-License-Identifier: GPL-2.0
/*
 * Send one connection request with a type of service and an ACK timeout,
 * for tests/e2e/roce_wire.sh to capture on the wire:
 *
 *   req_out ADDRESS PORT TOS ACK_TIMEOUT
 *
 * The type of service is set on the new id, the ACK timeout once the
 * address is resolved and before the route is (where it decides the
 * route's packet life time on RoCE, and so the REQ's local ACK timeout).
 * The request carries no QP (the peer need not exist: only the REQ is
 * looked at).  Prints "ready" once rdma_connect() returned, then waits
 * to be killed.  Exit 2 if a step fails.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#include "ucma_test.h"

#define EVENT_MS 5000

/* The next event must be @want, with status 0. */
static void expect(struct rdma_event_channel *ch,
		   enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = poll_event(ch, EVENT_MS);

	if (!ev) {
		fprintf(stderr, "no %s in %d ms\n", rdma_event_str(want),
			EVENT_MS);
		exit(2);
	}
	if (ev->event != want || ev->status) {
		fprintf(stderr, "%s (status %d) instead of %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(want));
		exit(2);
	}
	rdma_ack_cm_event(ev);
}

int main(int argc, char **argv)
{
	struct rdma_conn_param param = { .qp_num = 0x4242, .retry_count = 7 };
	struct rdma_event_channel *ch;
	struct addrinfo *dst;
	struct rdma_cm_id *id;
	unsigned char tos, timeout;

	if (argc != 5) {
		fprintf(stderr, "usage: %s ADDRESS PORT TOS ACK_TIMEOUT\n",
			argv[0]);
		return 2;
	}
	tos = strtoul(argv[3], NULL, 0);
	timeout = strtoul(argv[4], NULL, 0);
	if (getaddrinfo(argv[1], argv[2], NULL, &dst))
		die("getaddrinfo");
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos,
			    sizeof(tos)))
		die("rdma_set_option TOS");
	if (rdma_resolve_addr(id, NULL, dst->ai_addr, 2000))
		die("rdma_resolve_addr");
	expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
			    &timeout, sizeof(timeout)))
		die("rdma_set_option ACK_TIMEOUT");
	if (rdma_resolve_route(id, 2000))
		die("rdma_resolve_route");
	expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (rdma_connect(id, &param))
		die("rdma_connect");
	printf("ready: REQ to %s:%s, tos %u, ack timeout %u\n", argv[1],
	       argv[2], tos, timeout);
	fflush(stdout);
	pause();
	return 0;
}
