// SPDX-License-Identifier: GPL-2.0
/*
 * The arithmetic of an FRWR pool, apart from the verbs so that KUnit can
 * check it: how many MRs exist, how many are free, when the refill work
 * must run and how many it may make without passing the cap; and the
 * key an MR gets at its next registration.
 *
 * An MR is counted in @total from the moment its making is reserved, so
 * two makers never pass @max between them; a reservation that did not
 * produce its MR is given back.
 */
#include <linux/errno.h>
#include <kunit/visibility.h>

#include "xrdma.h"

/**
 * xrdma_frwr_count_init() - an empty pool's arithmetic
 * @c: the counts
 * @target: free MRs the refill work aims for
 * @low: the refill work is due when fewer than this are free
 * @max: the most MRs there may be
 *
 * Context: any.
 * Return: 0, or -EINVAL unless 0 < @low <= @target <= @max.
 */
int xrdma_frwr_count_init(struct xrdma_frwr_count *c, unsigned int target,
			  unsigned int low, unsigned int max)
{
	if (!low || low > target || target > max)
		return -EINVAL;
	c->total = 0;
	c->free = 0;
	c->target = target;
	c->low = low;
	c->max = max;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_frwr_count_init);

/**
 * xrdma_frwr_count_take() - one free MR leaves for a registration
 * @c: the counts
 *
 * Context: under the pool's mutex.
 * Return: false when none is free.
 */
bool xrdma_frwr_count_take(struct xrdma_frwr_count *c)
{
	if (!c->free)
		return false;
	c->free--;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_frwr_count_take);

/**
 * xrdma_frwr_count_give() - an MR came back, invalidated, ready again
 * @c: the counts
 *
 * Context: under the pool's mutex.
 */
void xrdma_frwr_count_give(struct xrdma_frwr_count *c)
{
	if (c->free < c->total)
		c->free++;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_frwr_count_give);

/**
 * xrdma_frwr_count_lose() - an MR that was taken is gone for good
 * @c: the counts
 *
 * For an MR in an unknown state (a failed registration or
 * invalidation) or one whose connection ended while lent out.
 *
 * Context: under the pool's mutex.
 */
void xrdma_frwr_count_lose(struct xrdma_frwr_count *c)
{
	if (c->total > c->free)
		c->total--;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_frwr_count_lose);

/**
 * xrdma_frwr_count_low() - is the refill work due?
 * @c: the counts
 *
 * Context: under the pool's mutex.
 * Return: true when fewer than @low are free and the cap leaves room.
 */
bool xrdma_frwr_count_low(const struct xrdma_frwr_count *c)
{
	return c->free < c->low && c->total < c->max;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_frwr_count_low);

/**
 * xrdma_frwr_count_reserve() - reserve the making of MRs
 * @c: the counts
 * @want: how many the caller would like to make
 *
 * Context: under the pool's mutex.
 * Return: how many it may make, at most @want, within the cap; each is
 * counted in @total until xrdma_frwr_count_made() settles it.
 */
unsigned int xrdma_frwr_count_reserve(struct xrdma_frwr_count *c,
				      unsigned int want)
{
	unsigned int room = c->max - c->total;

	if (want > room)
		want = room;
	c->total += want;
	return want;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_frwr_count_reserve);

/**
 * xrdma_frwr_count_made() - settle a reservation
 * @c: the counts
 * @made: MRs made and now free
 * @reserved: what xrdma_frwr_count_reserve() granted, at least @made
 *
 * Context: under the pool's mutex.
 */
void xrdma_frwr_count_made(struct xrdma_frwr_count *c, unsigned int made,
			   unsigned int reserved)
{
	if (made > reserved)
		made = reserved;
	c->total -= reserved - made;
	c->free += made;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_frwr_count_made);

/**
 * xrdma_frwr_next_rkey() - the key of an MR's next registration
 * @rkey: its current key
 *
 * Only the low byte, the part the consumer owns, changes; the index in
 * the upper bytes stays, as the device requires.  A peer holding an old
 * key is refused once the MR was registered again, until the byte
 * comes round after 256 registrations.
 *
 * Context: any.
 * Return: the new key.
 */
u32 xrdma_frwr_next_rkey(u32 rkey)
{
	return (rkey & ~0xffU) | ib_inc_rkey(rkey);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_frwr_next_rkey);
