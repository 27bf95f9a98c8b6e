// SPDX-License-Identifier: GPL-2.0
/*
 * The send-context ring: which Sends are in flight, in the order they
 * were posted.
 *
 * Only one Send in XRDMA_SIGNAL_EVERY asks for a completion.  Because a
 * QP completes Sends in order, a signalled completion means every Send
 * posted before it is done as well; retiring the ring up to that slot
 * frees their buffers in order.  The producer (the sender, under the
 * transport's send lock) moves @head, the consumer (a send completion's
 * handler, one at a time: send_cq.c) moves @tail; they share only the
 * two indices.
 */
#include <linux/errno.h>
#include <kunit/visibility.h>

#include "xrdma.h"

static unsigned int xrdma_ring_next(const struct xrdma_ring *ring,
				    unsigned int i)
{
	return i + 1 < ring->size ? i + 1 : 0;
}

/**
 * xrdma_ring_init() - set up an empty ring
 * @ring: the ring
 * @slots: how many Sends may be in flight at once, at least 1
 *
 * Context: any; the ring must not be in use.
 * Return: 0, or -EINVAL for no slots.
 */
int xrdma_ring_init(struct xrdma_ring *ring, unsigned int slots)
{
	if (!slots || slots >= UINT_MAX)
		return -EINVAL;
	/* One slot stays unused so that full and empty differ. */
	ring->size = slots + 1;
	ring->head = 0;
	ring->tail = 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_ring_init);

/**
 * xrdma_ring_get() - take the next free slot
 * @ring: the ring
 *
 * Context: the caller serializes producers (the send lock).
 * Return: the slot, or -ENOBUFS when every slot is in flight.
 */
int xrdma_ring_get(struct xrdma_ring *ring)
{
	unsigned int next = xrdma_ring_next(ring, ring->head);

	/* Pairs with the release in xrdma_ring_retire(). */
	if (next == smp_load_acquire(&ring->tail))
		return -ENOBUFS;
	ring->head = next;
	return next;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_ring_get);

/**
 * xrdma_ring_unget() - give back the slot xrdma_ring_get() returned last
 * @ring: the ring
 *
 * For a Send that could not be posted.  Context: as xrdma_ring_get(),
 * in the same critical section.
 */
void xrdma_ring_unget(struct xrdma_ring *ring)
{
	ring->head = ring->head ? ring->head - 1 : ring->size - 1;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_ring_unget);

/**
 * xrdma_ring_retire() - retire every slot up to and including one
 * @ring: the ring
 * @upto: the slot whose Send completed (signalled)
 * @fn: called for each retired slot, oldest first
 * @arg: passed to @fn
 *
 * Context: the caller serializes consumers (the send CQ's poll lock, or
 * the disconnect after the drain).
 * Return: how many slots were retired; 0 if @upto is not in flight.
 */
unsigned int xrdma_ring_retire(struct xrdma_ring *ring, unsigned int upto,
			       void (*fn)(void *arg, unsigned int slot),
			       void *arg)
{
	unsigned int tail = ring->tail, head = READ_ONCE(ring->head);
	unsigned int i = tail, n = 0;

	if (upto >= ring->size)
		return 0;
	/* @upto must lie in (tail, head]: walk there without passing head. */
	while (i != head) {
		i = xrdma_ring_next(ring, i);
		n++;
		if (i == upto)
			break;
	}
	if (i != upto || !n)
		return 0;
	i = tail;
	while (i != upto) {
		i = xrdma_ring_next(ring, i);
		fn(arg, i);
	}
	/* The slots are free only after @fn let go of them. */
	smp_store_release(&ring->tail, upto);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_ring_retire);

/**
 * xrdma_ring_in_use() - how many slots are in flight
 * @ring: the ring
 *
 * Context: any; the answer is a snapshot.
 * Return: the number of slots handed out and not retired.
 */
unsigned int xrdma_ring_in_use(const struct xrdma_ring *ring)
{
	unsigned int head = READ_ONCE(ring->head);
	unsigned int tail = READ_ONCE(ring->tail);

	return head >= tail ? head - tail : ring->size - tail + head;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_ring_in_use);
