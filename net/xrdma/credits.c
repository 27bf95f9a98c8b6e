// SPDX-License-Identifier: GPL-2.0
/*
 * Credit-based flow control.
 *
 * Each end posts receives and tells the other, in the header of every
 * message it sends, how many it has posted since the connection began.
 * A message may be sent only while the peer has posted more receives
 * than we have sent messages.  Cumulative counts make a lost or stale
 * update harmless: a newer one always supersedes it.  Until the peer's
 * first message arrives we assume one receive, as xprtrdma does.
 */
#include <kunit/visibility.h>

#include "xrdma.h"

/**
 * xrdma_credits_init() - the state of a new connection
 * @cr: the credit state
 * @max: the most credits the peer may grant at once (our SQ depth)
 *
 * Context: the connection is not in use yet.
 */
void xrdma_credits_init(struct xrdma_credits *cr, u32 max)
{
	cr->granted = 1;
	cr->sent = 0;
	cr->posted = 0;
	cr->announced = 0;
	cr->max = max ? max : 1;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_credits_init);

/**
 * xrdma_credits_avail() - how many messages may be sent now
 * @cr: the credit state
 *
 * Context: under the send lock.
 * Return: the credits left.
 */
u32 xrdma_credits_avail(const struct xrdma_credits *cr)
{
	s32 left = (s32)(cr->granted - cr->sent);

	return left > 0 ? left : 0;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_credits_avail);

/**
 * xrdma_credits_take() - use one credit for a message about to be sent
 * @cr: the credit state
 *
 * Context: under the send lock.
 * Return: true if a credit was taken, false if there is none.
 */
bool xrdma_credits_take(struct xrdma_credits *cr)
{
	if (!xrdma_credits_avail(cr))
		return false;
	cr->sent++;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_credits_take);

/**
 * xrdma_credits_grant() - take in the count a peer's message carried
 * @cr: the credit state
 * @peer_posted: the peer's receives posted, cumulative
 *
 * An older count than the one we have is ignored; a grant of more than
 * @cr->max outstanding credits, which a correct peer cannot make, is cut
 * down to @cr->max.
 *
 * Context: under the send lock.
 */
void xrdma_credits_grant(struct xrdma_credits *cr, u32 peer_posted)
{
	if ((s32)(peer_posted - cr->granted) <= 0)
		return;
	if (peer_posted - cr->sent > cr->max)
		peer_posted = cr->sent + cr->max;
	if ((s32)(peer_posted - cr->granted) > 0)
		cr->granted = peer_posted;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_credits_grant);

/**
 * xrdma_credits_posted() - count receives just posted
 * @cr: the credit state
 * @n: how many
 *
 * Context: under the send lock.
 */
void xrdma_credits_posted(struct xrdma_credits *cr, u32 n)
{
	cr->posted += n;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_credits_posted);

/**
 * xrdma_credits_announce() - the count to put in an outgoing header
 * @cr: the credit state
 *
 * Context: under the send lock, with the message about to be posted.
 * Return: our receives posted so far, now known to the peer.
 */
u32 xrdma_credits_announce(struct xrdma_credits *cr)
{
	cr->announced = cr->posted;
	return cr->posted;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_credits_announce);

/**
 * xrdma_credits_unannounced() - receives posted the peer does not know of
 * @cr: the credit state
 *
 * Context: under the send lock, or for a snapshot (the receive path's
 * xrdma_recv_credit_check()).
 * Return: the number; when it grows large and we have nothing to send,
 * a credit update keeps a one-way stream going.
 */
u32 xrdma_credits_unannounced(const struct xrdma_credits *cr)
{
	return cr->posted - cr->announced;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_credits_unannounced);
