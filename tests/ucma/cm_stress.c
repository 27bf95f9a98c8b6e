// SPDX-License-Identifier: GPL-2.0
/*
 * Stress through librdmacm and rdma_ucm: client threads make ids and
 * destroy them at random points of their life, while a server thread
 * accepts what reaches it and destroys its ends as they close:
 *
 *   cm_stress ADDRESS PORT THREADS CYCLES SEED
 *
 * Each cycle of a client thread creates an id and cuts its life short at
 * a random point: right after creation; with address resolution in
 * flight; resolved; with route resolution in flight; routed; with its
 * REQ outstanding; connected; or after a full disconnect from both ends.
 * Then it destroys the id. Connections carry no QP (the CM's handshake
 * is what is stressed), which iWARP cannot do: there a cycle cut past
 * the route stops at the route, where rdma_connect() must refuse it.
 * Same SEED, same cut points.
 *
 * Exit status: 0 when every cycle reached its cut and every id created
 * was destroyed; 1 when a cycle failed short of its cut (each named on
 * stderr; under fault injection that is expected); 3 when the counts of
 * ids created and destroyed disagree, which is never right; 2 when the
 * set-up failed.
 */
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

#include "ucma_test.h"

#define EVENT_MS 5000
#define fallthrough __attribute__((__fallthrough__))

enum cut {
	CUT_CREATED, CUT_ADDR_QUERY, CUT_ADDR, CUT_ROUTE_QUERY, CUT_ROUTE,
	CUT_REQ_SENT, CUT_CONNECTED, CUT_DISCONNECTED, NR_CUTS
};

static struct addrinfo *server_addr;
static atomic_int created, destroyed, failed, server_live, stop;
/* The device is iWARP's: no connection without a QP. */
static int iwarp;
/*
 * QP numbers for QP-less connections: the IB CM rejects a REQ that
 * reuses the QP number of a connection still in timewait as stale.
 */
static atomic_uint next_qpn = 1;
static atomic_int cuts[NR_CUTS];
static const char *const cut_names[NR_CUTS] = {
	"created", "addr query", "addr", "route query", "route", "REQ",
	"connected", "disconnected",
};

/* The next event on @ch within EVENT_MS, acked; false on timeout. */
static int next_event(struct rdma_event_channel *ch,
		      enum rdma_cm_event_type *type)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, EVENT_MS) <= 0 || rdma_get_cm_event(ch, &ev))
		return 0;
	*type = ev->event;
	rdma_ack_cm_event(ev);
	return 1;
}

static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	enum rdma_cm_event_type got;

	if (!next_event(ch, &got)) {
		fprintf(stderr, "no %s in %d ms\n", rdma_event_str(want),
			EVENT_MS);
		return -1;
	}
	if (got != want)
		fprintf(stderr, "%s instead of %s\n", rdma_event_str(got),
			rdma_event_str(want));
	return got == want ? 0 : -1;
}

/*
 * One client cycle, cut at @cut; returns how far it got, or -1 when no id
 * was made (a failed cycle too: under fault injection, not the end).
 */
static int cycle(struct rdma_event_channel *ch, enum cut cut)
{
	struct rdma_conn_param param = { .qp_num = next_qpn++ & 0xffffff };
	struct rdma_cm_id *id;
	enum cut at = CUT_CREATED;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return -1;
	}
	created++;
	if (cut == at)
		goto out;
	if (rdma_resolve_addr(id, NULL, server_addr->ai_addr, 2000))
		goto out;
	at = CUT_ADDR_QUERY;
	if (cut == at || expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED))
		goto out;
	at = CUT_ADDR;
	if (cut == at || rdma_resolve_route(id, 2000))
		goto out;
	at = CUT_ROUTE_QUERY;
	if (cut == at || expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED))
		goto out;
	at = CUT_ROUTE;
	if (cut == at || rdma_connect(id, &param))
		goto out;
	at = CUT_REQ_SENT;
	if (cut == at || expect(ch, RDMA_CM_EVENT_CONNECT_RESPONSE) ||
	    rdma_establish(id))
		goto out;
	at = CUT_CONNECTED;
	if (cut == at || rdma_disconnect(id) ||
	    expect(ch, RDMA_CM_EVENT_DISCONNECTED))
		goto out;
	at = CUT_DISCONNECTED;
out:
	rdma_destroy_id(id);
	destroyed++;
	return at;
}

static void *client(void *arg)
{
	unsigned int seed = (unsigned long)arg, i, n = seed >> 16;
	unsigned int seed_of = seed & 0xffff;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	enum cut cut;
	int at;

	if (!ch)
		die("rdma_create_event_channel");
	for (i = 0; i < n; i++) {
		cut = rand_r(&seed) % NR_CUTS;
		at = cycle(ch, cut);
		if (iwarp && cut > CUT_ROUTE)
			cut = CUT_ROUTE;
		if (at == (int)cut) {
			cuts[cut]++;
			continue;
		}
		failed++;
		fprintf(stderr, "cycle %u of seed %u: cut at %s, stopped at %s\n",
			i, seed_of, cut_names[cut], at < 0 ? "no id" : cut_names[at]);
	}
	rdma_destroy_event_channel(ch);
	return NULL;
}

/*
 * The server: accept every request, answer a DREQ, destroy its end of a
 * connection as soon as it closes or fails.
 */
static void *server(void *arg)
{
	struct rdma_event_channel *ch = arg;
	struct rdma_conn_param param = {};
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	enum rdma_cm_event_type type;

	while (!stop || server_live) {
		if (poll(&pfd, 1, 100) <= 0 || rdma_get_cm_event(ch, &ev))
			continue;
		id = ev->id;
		type = ev->event;
		rdma_ack_cm_event(ev);
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			server_live++;
			param.qp_num = next_qpn++ & 0xffffff;
			if (rdma_accept(id, &param)) {
				rdma_destroy_id(id);
				server_live--;
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			rdma_disconnect(id);
			fallthrough;
		default:
			rdma_destroy_id(id);
			server_live--;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *sch;
	unsigned int threads, cycles, seed, i;
	struct rdma_cm_id *listener;
	pthread_t srv, *cli;

	if (argc != 6) {
		fprintf(stderr, "usage: %s ADDRESS PORT THREADS CYCLES SEED\n",
			argv[0]);
		return 2;
	}
	threads = atoi(argv[3]);
	cycles = atoi(argv[4]);
	seed = atoi(argv[5]);
	if (!threads || cycles > 0xffff || getaddrinfo(argv[1], argv[2], NULL,
						       &server_addr))
		die("arguments");
	sch = rdma_create_event_channel();
	if (!sch || rdma_create_id(sch, &listener, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listener, server_addr->ai_addr) ||
	    rdma_listen(listener, 64))
		die("listen");
	iwarp = listener->verbs &&
		listener->verbs->device->node_type == IBV_NODE_RNIC;
	pthread_create(&srv, NULL, server, sch);

	cli = calloc(threads, sizeof(*cli));
	for (i = 0; i < threads; i++)
		pthread_create(&cli[i], NULL, client,
			       (void *)(unsigned long)((cycles << 16) |
						       ((seed + i) & 0xffff)));
	for (i = 0; i < threads; i++)
		pthread_join(cli[i], NULL);
	stop = 1;
	pthread_join(srv, NULL);
	rdma_destroy_id(listener);
	rdma_destroy_event_channel(sch);

	printf("seed %u: %d ids created, %d destroyed\n", seed, created,
	       destroyed);
	printf("cut after: created %d, addr query %d, addr %d, route query %d,",
	       cuts[0], cuts[1], cuts[2], cuts[3]);
	printf(" route %d, REQ %d, connected %d, disconnected %d\n",
	       cuts[4], cuts[5], cuts[6], cuts[7]);
	if (created != destroyed)
		return 3;
	if (failed) {
		printf("%d cycles failed short of their cut\n", failed);
		return 1;
	}
	return 0;
}
