// SPDX-License-Identifier: GPL-2.0
/*
 * Device removal with ids in every state, through librdmacm and rdma_ucm:
 *
 *   hotplug_states ADDRESS PORT DEAD-ADDRESS [CONNECTIONS]
 *
 * On the device of ADDRESS it makes ids in each state an id can hold on
 * a device: bound, address resolved, route resolved, listening,
 * connecting (to DEAD-ADDRESS, which never answers), connected (both
 * ends; CONNECTIONS of them, default 1) and joined to a multicast group;
 * beside them, an idle id and a
 * wildcard listener, which are on no device. It prints "ready"; the
 * caller then removes the device. Every id on the device must get
 * exactly one DEVICE_REMOVAL, and is destroyed at once; the idle id and
 * the wildcard listener get none. Exits 0 when that held.
 */
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

#include "ucma_test.h"

static struct rdma_event_channel *ch;

struct tracked {
	struct rdma_cm_id *id;
	const char *what;
	int on_device;
	int removed;
};

static struct tracked *ids;
static int nr_ids, max_ids, nr_removed;
/* QP numbers for QP-less connections: the IB CM refuses duplicates. */
static unsigned int next_qpn = 1;

static struct rdma_cm_id *track(struct rdma_cm_id *id, const char *what,
				int on_device)
{
	if (nr_ids == max_ids) {
		fprintf(stderr, "too many ids\n");
		exit(2);
	}
	ids[nr_ids].id = id;
	ids[nr_ids].what = what;
	ids[nr_ids].on_device = on_device;
	nr_ids++;
	return id;
}

static struct tracked *find(struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < nr_ids; i++)
		if (ids[i].id == id)
			return &ids[i];
	return NULL;
}

/* Wait for @want on @id (a new id for CONNECT_REQUEST), acked. */
static struct rdma_cm_id *wait_event(struct rdma_cm_id *id,
				     enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = poll_event(ch, 5000);
	struct rdma_cm_id *got;

	if (!ev || ev->event != want ||
	    (want != RDMA_CM_EVENT_CONNECT_REQUEST && ev->id != id)) {
		fprintf(stderr, "FAIL: setup got %s, want %s\n",
			ev ? rdma_event_str(ev->event) : "nothing",
			rdma_event_str(want));
		exit(1);
	}
	got = ev->id;
	rdma_ack_cm_event(ev);
	return got;
}

static struct rdma_cm_id *new_id(enum rdma_port_space ps)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, ps))
		die("rdma_create_id");
	return id;
}

static struct rdma_cm_id *resolved(struct sockaddr *dst, int route)
{
	struct rdma_cm_id *id = new_id(RDMA_PS_TCP);

	if (rdma_resolve_addr(id, NULL, dst, 2000))
		die("rdma_resolve_addr");
	wait_event(id, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (route) {
		if (rdma_resolve_route(id, 2000))
			die("rdma_resolve_route");
		wait_event(id, RDMA_CM_EVENT_ROUTE_RESOLVED);
	}
	return id;
}

static struct rdma_cm_id *listener(struct sockaddr *addr)
{
	struct rdma_cm_id *id = new_id(RDMA_PS_TCP);

	if (rdma_bind_addr(id, addr) || rdma_listen(id, 4))
		die("listen");
	return id;
}

/* A connection to a listener at @dst, set up without QPs: both ends. */
static void make_connection(struct sockaddr *dst)
{
	struct rdma_conn_param param = { .qp_num = next_qpn++ };
	struct rdma_cm_id *cli = resolved(dst, 1), *srv;

	if (rdma_connect(cli, &param))
		die("rdma_connect");
	srv = wait_event(NULL, RDMA_CM_EVENT_CONNECT_REQUEST);
	param.qp_num = next_qpn++;
	if (rdma_accept(srv, &param))
		die("rdma_accept");
	wait_event(cli, RDMA_CM_EVENT_CONNECT_RESPONSE);
	if (rdma_establish(cli))
		die("rdma_establish");
	wait_event(srv, RDMA_CM_EVENT_ESTABLISHED);
	track(cli, "connected, active", 1);
	track(srv, "connected, passive", 1);
}

static struct addrinfo *addr(const char *host, const char *port)
{
	struct addrinfo *ai;

	if (getaddrinfo(host, port, NULL, &ai))
		die("getaddrinfo");
	return ai;
}

static void make_ids(char **argv, int conns)
{
	struct rdma_conn_param param = { .qp_num = 1, .retry_count = 7 };
	struct addrinfo *here = addr(argv[1], argv[2]);
	struct addrinfo *any = addr("0.0.0.0", "7497");
	struct addrinfo *dead = addr(argv[3], argv[2]);
	struct addrinfo *group = addr("239.1.2.6", NULL);
	struct addrinfo *bind_here = addr(argv[1], "0");
	struct rdma_cm_id *id;

	track(new_id(RDMA_PS_TCP), "idle", 0);
	track(listener(any->ai_addr), "wildcard listener", 0);

	id = new_id(RDMA_PS_TCP);
	if (rdma_bind_addr(id, bind_here->ai_addr))
		die("rdma_bind_addr");
	track(id, "bound", 1);
	track(resolved(here->ai_addr, 0), "address resolved", 1);
	track(resolved(here->ai_addr, 1), "route resolved", 1);
	track(listener(here->ai_addr), "listener", 1);
	while (conns--)
		make_connection(here->ai_addr);

	id = track(resolved(dead->ai_addr, 1), "connecting", 1);
	if (rdma_connect(id, &param))
		die("rdma_connect");

	id = new_id(RDMA_PS_UDP);
	if (rdma_bind_addr(id, bind_here->ai_addr) ||
	    rdma_join_multicast(id, group->ai_addr, NULL))
		die("join");
	wait_event(id, RDMA_CM_EVENT_MULTICAST_JOIN);
	track(id, "joined", 1);
}

/* Every id on the device gets one DEVICE_REMOVAL; it is destroyed then. */
static int collect_removals(void)
{
	struct rdma_cm_event *ev;
	struct tracked *t;
	int left = 0, i;

	for (i = 0; i < nr_ids; i++)
		left += ids[i].on_device;
	while (left) {
		ev = poll_event(ch, 30000);
		if (!ev) {
			fprintf(stderr, "FAIL: %d ids got no DEVICE_REMOVAL\n",
				left);
			return 1;
		}
		t = find(ev->id);
		if (nr_ids < 16)
			printf("%s on %s\n", rdma_event_str(ev->event),
			       t ? t->what : "an unknown id");
		if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL) {
			rdma_ack_cm_event(ev);
			continue;
		}
		rdma_ack_cm_event(ev);
		if (!t || !t->on_device || t->removed++) {
			fprintf(stderr, "FAIL: DEVICE_REMOVAL not expected\n");
			return 1;
		}
		rdma_destroy_id(t->id);
		nr_removed++;
		left--;
	}
	ev = poll_event(ch, 2000);
	if (ev) {
		fprintf(stderr, "FAIL: %s after the removal\n",
			rdma_event_str(ev->event));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int conns = argc > 4 ? atoi(argv[4]) : 1;
	int i;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s ADDRESS PORT DEAD-ADDRESS [CONNECTIONS]\n",
			argv[0]);
		return 2;
	}
	max_ids = 8 + 2 * conns;
	ids = calloc(max_ids, sizeof(*ids));
	ch = rdma_create_event_channel();
	if (!ids || !ch)
		die("setup");
	make_ids(argv, conns);
	printf("ready: %d ids\n", nr_ids);
	fflush(stdout);
	if (collect_removals())
		return 1;
	for (i = 0; i < nr_ids; i++)
		if (!ids[i].on_device)
			rdma_destroy_id(ids[i].id);
	printf("ok: each of the %d ids on the device got DEVICE_REMOVAL once\n",
	       nr_removed);
	return 0;
}
