// SPDX-License-Identifier: GPL-2.0
/*
 * The id state machine: which transitions exist, and the two helpers that
 * every other file uses to make one. Nothing else writes cma_id.state.
 */

#include "cma_priv.h"
#include "cma_trace.h"

#define S(state) BIT(RDMA_CM_##state)

/* Every live state may end in device removal or destruction. */
#define ANY_END (S(DEVICE_REMOVAL) | S(DESTROYING))

/*
 * cma_next[from] is the set of states an id in @from may move to. The
 * backward edges are the error paths: a failed bind, address or route
 * resolution, listen or connect puts the id back where the call found it.
 */
static const u16 cma_next[RDMA_CM_NR_STATES] = {
	[RDMA_CM_IDLE]		 = S(ADDR_BOUND) | ANY_END,
	[RDMA_CM_ADDR_BOUND]	 = S(IDLE) | S(ADDR_QUERY) | S(LISTEN) |
				   S(ADDRINFO_QUERY) | ANY_END,
	[RDMA_CM_ADDR_QUERY]	 = S(ADDR_BOUND) | S(ADDR_RESOLVED) | ANY_END,
	[RDMA_CM_ADDR_RESOLVED]	 = S(ADDR_BOUND) | S(ROUTE_QUERY) |
				   S(ROUTE_RESOLVED) | ANY_END,
	[RDMA_CM_ROUTE_QUERY]	 = S(ADDR_RESOLVED) | S(ROUTE_RESOLVED) |
				   ANY_END,
	[RDMA_CM_ROUTE_RESOLVED] = S(ADDR_RESOLVED) | S(CONNECT) | ANY_END,
	[RDMA_CM_CONNECT]	 = S(ROUTE_RESOLVED) | S(DISCONNECT) | ANY_END,
	[RDMA_CM_DISCONNECT]	 = ANY_END,
	[RDMA_CM_LISTEN]	 = S(ADDR_BOUND) | ANY_END,
	[RDMA_CM_DEVICE_REMOVAL] = S(DESTROYING),
	[RDMA_CM_DESTROYING]	 = 0,
	[RDMA_CM_ADDRINFO_QUERY] = S(ADDR_BOUND) | S(ADDRINFO_RESOLVED) |
				   ANY_END,
	[RDMA_CM_ADDRINFO_RESOLVED] = S(ADDR_QUERY) | ANY_END,
};

static const char * const cma_state_names[RDMA_CM_NR_STATES] = {
	[RDMA_CM_IDLE]		 = "IDLE",
	[RDMA_CM_ADDR_QUERY]	 = "ADDR_QUERY",
	[RDMA_CM_ADDR_RESOLVED]	 = "ADDR_RESOLVED",
	[RDMA_CM_ROUTE_QUERY]	 = "ROUTE_QUERY",
	[RDMA_CM_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RDMA_CM_CONNECT]	 = "CONNECT",
	[RDMA_CM_DISCONNECT]	 = "DISCONNECT",
	[RDMA_CM_ADDR_BOUND]	 = "ADDR_BOUND",
	[RDMA_CM_LISTEN]	 = "LISTEN",
	[RDMA_CM_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[RDMA_CM_DESTROYING]	 = "DESTROYING",
	[RDMA_CM_ADDRINFO_QUERY] = "ADDRINFO_QUERY",
	[RDMA_CM_ADDRINFO_RESOLVED] = "ADDRINFO_RESOLVED",
};

static bool cma_state_valid(enum rdma_cm_state state)
{
	return (unsigned int)state < RDMA_CM_NR_STATES;
}

/**
 * cma_state_allows - is @from -> @to an edge of the state machine?
 * @from: current state
 * @to: proposed next state
 *
 * Context: any; a pure function of its arguments.
 * Return: true if an id may move from @from to @to.
 */
bool cma_state_allows(enum rdma_cm_state from, enum rdma_cm_state to)
{
	return cma_state_valid(from) && cma_state_valid(to) &&
	       (cma_next[from] & BIT(to));
}
EXPORT_SYMBOL_IF_KUNIT(cma_state_allows);

/**
 * cma_state_name - printable name of a state
 * @state: the state
 *
 * Context: any.
 * Return: the state's name as in enum rdma_cm_state, without the prefix.
 */
const char *cma_state_name(enum rdma_cm_state state)
{
	return cma_state_valid(state) ? cma_state_names[state] : "UNKNOWN";
}
EXPORT_SYMBOL_IF_KUNIT(cma_state_name);

/**
 * cma_state - snapshot of an id's state
 * @cid: the id
 *
 * Context: any. The state may change as soon as this returns unless the
 * caller holds @cid's handler mutex and the change would need it.
 * Return: the state @cid was in.
 */
enum rdma_cm_state cma_state(struct cma_id *cid)
{
	return READ_ONCE(cid->state);
}
EXPORT_SYMBOL_IF_KUNIT(cma_state);

/**
 * cma_transition - move an id from one given state to another
 * @cid: the id
 * @from: the state @cid must be in
 * @to: the state to move it to
 *
 * The compare and the exchange happen under @cid->lock, so two racing
 * callers cannot both leave the same state. Asking for an edge the state
 * machine does not have is a bug in this module, and warns.
 *
 * Context: any; takes @cid->lock with interrupts off.
 * Return: true if @cid was in @from and is now in @to.
 */
bool cma_transition(struct cma_id *cid, enum rdma_cm_state from,
		    enum rdma_cm_state to)
{
	unsigned long flags;
	bool moved = false;

	if (WARN_ON_ONCE(!cma_state_allows(from, to)))
		return false;

	spin_lock_irqsave(&cid->lock, flags);
	if (cid->state == from) {
		WRITE_ONCE(cid->state, to);
		WRITE_ONCE(cid->state_since, jiffies);
		moved = true;
	}
	spin_unlock_irqrestore(&cid->lock, flags);
	if (moved)
		trace_cm_state(cid->handle, from, to);
	return moved;
}
EXPORT_SYMBOL_IF_KUNIT(cma_transition);

/**
 * cma_enter - move an id to @to from whatever state it is in
 * @cid: the id
 * @to: the state to move it to, in practice DEVICE_REMOVAL or DESTROYING
 *
 * The move only happens if the state machine has the edge, so an id that
 * is already being destroyed stays so.
 *
 * Context: any; takes @cid->lock with interrupts off.
 * Return: the state @cid was in before the call.
 */
enum rdma_cm_state cma_enter(struct cma_id *cid, enum rdma_cm_state to)
{
	enum rdma_cm_state old;
	unsigned long flags;

	bool moved;

	spin_lock_irqsave(&cid->lock, flags);
	old = cid->state;
	moved = cma_state_allows(old, to);
	if (moved) {
		WRITE_ONCE(cid->state, to);
		WRITE_ONCE(cid->state_since, jiffies);
	}
	spin_unlock_irqrestore(&cid->lock, flags);
	if (moved)
		trace_cm_state(cid->handle, old, to);
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(cma_enter);
