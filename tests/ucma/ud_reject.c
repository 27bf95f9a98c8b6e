// SPDX-License-Identifier: GPL-2.0
/*
 * A UD request refused: through librdmacm and rdma_ucm, a UDP port space
 * listener answers a SIDR REQ with rdma_reject() and private data; the
 * requester must get UNREACHABLE with the reject status and that data.
 * Then the same request is accepted, and the requester must get
 * ESTABLISHED with the well-known qkey. No rdma-core tool rejects a UD
 * request, hence this program.
 *
 *   ud_reject ADDRESS PORT
 *
 * Exits 0 when both outcomes were right.
 */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

#include "ucma_test.h"

#define UD_QKEY		0x01234567
#define SIDR_REJECT	2	/* IB_SIDR_REJECT, the status of the REP */

static const char refusal[] = "not today";
static const char greeting[] = "hello over UD";

static struct rdma_event_channel *ch;

/*
 * The next event, answering a listener's CONNECT_REQUEST on the way as
 * told: reject with @refusal, or accept.
 */
static struct rdma_cm_event *next_event(int reject)
{
	struct rdma_conn_param param = { 0 };
	struct rdma_cm_event *ev;

	for (;;) {
		if (rdma_get_cm_event(ch, &ev))
			die("rdma_get_cm_event");
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
			return ev;
		if (reject) {
			if (rdma_reject(ev->id, refusal, sizeof(refusal)))
				die("rdma_reject");
		} else {
			param.qp_num = 1;	/* no QP: any number will do */
			if (rdma_accept(ev->id, &param))
				die("rdma_accept");
		}
		rdma_destroy_id(ev->id);
		rdma_ack_cm_event(ev);
	}
}

static void expect(struct rdma_cm_event *ev, enum rdma_cm_event_type type)
{
	if (ev->event != type) {
		fprintf(stderr, "FAIL: got %s (status %d), want %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(type));
		exit(1);
	}
}

/* Resolve, connect with @greeting, and return the answer's event. */
static struct rdma_cm_event *request(struct addrinfo *ai, int reject,
				     struct rdma_cm_id **idp)
{
	struct rdma_conn_param param = {
		.private_data = greeting,
		.private_data_len = sizeof(greeting),
	};
	struct rdma_cm_event *ev;

	if (rdma_create_id(ch, idp, NULL, RDMA_PS_UDP))
		die("rdma_create_id");
	if (rdma_resolve_addr(*idp, NULL, ai->ai_addr, 2000))
		die("rdma_resolve_addr");
	ev = next_event(reject);
	expect(ev, RDMA_CM_EVENT_ADDR_RESOLVED);
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(*idp, 2000))
		die("rdma_resolve_route");
	ev = next_event(reject);
	expect(ev, RDMA_CM_EVENT_ROUTE_RESOLVED);
	rdma_ack_cm_event(ev);
	if (rdma_connect(*idp, &param))
		die("rdma_connect");
	return next_event(reject);
}

static void check_refused(struct rdma_cm_event *ev)
{
	expect(ev, RDMA_CM_EVENT_UNREACHABLE);
	if (ev->status != SIDR_REJECT) {
		fprintf(stderr, "FAIL: status %d, want %d\n", ev->status,
			SIDR_REJECT);
		exit(1);
	}
	if (memcmp(ev->param.ud.private_data, refusal, sizeof(refusal))) {
		fprintf(stderr, "FAIL: the refusal's data did not arrive\n");
		exit(1);
	}
	printf("ok: refused, status %d, data \"%s\"\n", ev->status,
	       (const char *)ev->param.ud.private_data);
}

static void check_accepted(struct rdma_cm_event *ev)
{
	expect(ev, RDMA_CM_EVENT_ESTABLISHED);
	if (ev->param.ud.qkey != UD_QKEY || ev->param.ud.qp_num != 1) {
		fprintf(stderr, "FAIL: qkey %#x qpn %u, want %#x and 1\n",
			ev->param.ud.qkey, ev->param.ud.qp_num, UD_QKEY);
		exit(1);
	}
	printf("ok: accepted, qkey %#x, remote qpn %u\n", ev->param.ud.qkey,
	       ev->param.ud.qp_num);
}

int main(int argc, char **argv)
{
	struct rdma_cm_id *listener, *id;
	struct rdma_cm_event *ev;
	struct addrinfo *ai;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDRESS PORT\n", argv[0]);
		return 2;
	}
	if (getaddrinfo(argv[1], argv[2], NULL, &ai))
		die("getaddrinfo");
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	if (rdma_create_id(ch, &listener, NULL, RDMA_PS_UDP))
		die("rdma_create_id");
	if (rdma_bind_addr(listener, ai->ai_addr) || rdma_listen(listener, 4))
		die("listen");

	ev = request(ai, 1, &id);
	check_refused(ev);
	rdma_ack_cm_event(ev);
	rdma_destroy_id(id);

	ev = request(ai, 0, &id);
	check_accepted(ev);
	rdma_ack_cm_event(ev);
	rdma_destroy_id(id);

	rdma_destroy_id(listener);
	rdma_destroy_event_channel(ch);
	freeaddrinfo(ai);
	return 0;
}
