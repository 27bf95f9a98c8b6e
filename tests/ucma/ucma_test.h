/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the librdmacm test programs of this folder share.
 */
#ifndef UCMA_TEST_H
#define UCMA_TEST_H

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <rdma/rdma_cma.h>

/* A setup step failed: name it and exit 2, which is not a verdict. */
static inline void die(const char *what)
{
	perror(what);
	exit(2);
}

/* The next event on @ch within @ms milliseconds, not acked, or NULL. */
static inline struct rdma_cm_event *poll_event(struct rdma_event_channel *ch,
					       int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) <= 0)
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event");
	return ev;
}

#endif /* UCMA_TEST_H */
