// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast lifetimes, through librdmacm and rdma_ucm:
 *
 *   mc_race ADDRESS GROUP COUNT   COUNT times each: join and leave at
 *                                 once, before the join's event; join
 *                                 and destroy the id at once; join, wait
 *                                 for MULTICAST_JOIN, leave
 *   mc_removal ADDRESS GROUP      join, print "ready" once joined, then
 *                                 expect DEVICE_REMOVAL (the caller
 *                                 removes the device) and destroy the id
 *
 * The program is installed under both names and chooses by argv[0].
 * Exits 0 when every event was the expected one; the kernel's debug
 * checks (KASAN, kmemleak) judge the rest.
 */
#include <libgen.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

#include "ucma_test.h"

static struct rdma_event_channel *ch;
static struct addrinfo *local, *group;

/* The next event within @ms milliseconds, which must be @want. */
static struct rdma_cm_event *expect(enum rdma_cm_event_type want, int ms)
{
	struct rdma_cm_event *ev = poll_event(ch, ms);

	if (!ev || ev->event != want) {
		fprintf(stderr, "FAIL: got %s (status %d), want %s\n",
			ev ? rdma_event_str(ev->event) : "nothing",
			ev ? ev->status : 0, rdma_event_str(want));
		exit(1);
	}
	return ev;
}

/* A UD id bound to the local address. */
static struct rdma_cm_id *bound_id(void)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
		die("rdma_create_id");
	if (rdma_bind_addr(id, local->ai_addr))
		die("rdma_bind_addr");
	return id;
}

static void join(struct rdma_cm_id *id)
{
	if (rdma_join_multicast(id, group->ai_addr, NULL))
		die("rdma_join_multicast");
}

/* Nothing may be left in the channel: a left group sends no event. */
static void expect_quiet(void)
{
	struct rdma_cm_event *ev = poll_event(ch, 200);

	if (!ev)
		return;
	fprintf(stderr, "FAIL: stray %s\n", rdma_event_str(ev->event));
	exit(1);
}

static int mc_race(int count)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int i;

	for (i = 0; i < count; i++) {
		id = bound_id();
		join(id);
		if (rdma_leave_multicast(id, group->ai_addr))
			die("rdma_leave_multicast");
		rdma_destroy_id(id);

		id = bound_id();
		join(id);
		rdma_destroy_id(id);

		id = bound_id();
		join(id);
		ev = expect(RDMA_CM_EVENT_MULTICAST_JOIN, 5000);
		rdma_ack_cm_event(ev);
		if (rdma_leave_multicast(id, group->ai_addr))
			die("rdma_leave_multicast");
		rdma_destroy_id(id);
	}
	expect_quiet();
	printf("ok: %d rounds of join-leave, join-destroy, join-event-leave\n",
	       count);
	return 0;
}

static int mc_removal(void)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	id = bound_id();
	join(id);
	ev = expect(RDMA_CM_EVENT_MULTICAST_JOIN, 5000);
	rdma_ack_cm_event(ev);
	printf("ready\n");
	fflush(stdout);

	ev = expect(RDMA_CM_EVENT_DEVICE_REMOVAL, 30000);
	rdma_ack_cm_event(ev);
	rdma_destroy_id(id);
	printf("ok: DEVICE_REMOVAL with a group joined, id destroyed\n");
	return 0;
}

int main(int argc, char **argv)
{
	int removal = !strcmp(basename(argv[0]), "mc_removal");

	if (argc != (removal ? 3 : 4)) {
		fprintf(stderr, "usage: mc_race ADDRESS GROUP COUNT\n");
		fprintf(stderr, "       mc_removal ADDRESS GROUP\n");
		return 2;
	}
	if (getaddrinfo(argv[1], NULL, NULL, &local) ||
	    getaddrinfo(argv[2], NULL, NULL, &group))
		die("getaddrinfo");
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	return removal ? mc_removal() : mc_race(atoi(argv[3]));
}
