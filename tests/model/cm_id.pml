/*
 * SPDX-License-Identifier: GPL-2.0
 *
 * The life of one rdma_cm id, as drivers/infiniband/core/ implements it:
 * its state machine (cma_state.c), its handler mutex, its reference count
 * and release (cma_id.c), queued event delivery on the ordered cma_wq
 * (cma_event.c), address resolution through ib_core with a cancellable
 * callback (cma_resolve.c), route resolution (cma_route.c), the IB CM's
 * callbacks on a connection (cma_ib.c), a multicast join event
 * (cma_mcast.c) and device removal (cma_device.c), all racing one
 * rdma_destroy_id() or a handler that returns non-zero.
 *
 * README.rst in this directory maps each process and variable to the code.
 *
 * Checked:
 *  - no invalid end state: nothing blocks forever (a deadlock, or a wait
 *    for a reference or a callback that never comes);
 *  - no event is delivered once rdma_destroy_id() has returned, nor to an
 *    id in DESTROYING, nor without the handler mutex;
 *  - the id's memory is never touched after it is freed, it is freed
 *    once, with a zero count, and when everything has stopped it has been
 *    freed; the device it was bound to is let go of the same way;
 *  - every state change is an edge of the table in cma_state.c.
 *
 * Seeded bugs, each of which must make spin report an error (run
 * --selftest): -DBUG_PENDING_RACE (an address query that holds no
 * reference, its pending flag read without a lock: the code before the
 * fix this model found),
 * -DBUG_NO_WORK_REF (a queued event takes no reference),
 * -DBUG_NO_FENCE (rdma_destroy_id() marks DESTROYING without the handler
 * mutex), -DBUG_KEEP_IB (a CM callback's verdict leaves cid->ib set, so
 * the release waits for the callback it runs in), -DBUG_REMOVAL_NO_REF
 * (device removal delivers without a reference).
 */

/* enum rdma_cm_state, the in-box numbers. */
#define IDLE		0
#define ADDR_QUERY	1
#define ADDR_RESOLVED	2
#define ROUTE_QUERY	3
#define ROUTE_RESOLVED	4
#define CONNECT		5
#define DISCONNECT	6
#define ADDR_BOUND	7
#define LISTEN		8
#define DEVICE_REMOVAL	9
#define DESTROYING	10
#define NR_STATES	11

#define S(x)		(1 << (x))
#define ANY_END		(S(DEVICE_REMOVAL) | S(DESTROYING))
#define ALLOWS(f, t)	((nxt[f] & S(t)) != 0)

/* Work items on cma_wq. */
#define K_EVENT		1
#define K_MC		2

/* A work item or an ib_core address request: where it is in its life. */
#define W_NONE		0
#define W_QUEUED	1
#define W_RUNNING	2
#define W_DONE		3
#define W_CANCELLED	4

short nxt[NR_STATES];		/* cma_next[] */

/* struct cma_id */
byte st = IDLE;			/* state, under the spinlock (atomic here) */
byte hm;			/* handler_mutex: owner's _pid + 1, 0 free */
byte ref = 1;			/* refcount: the consumer's */
bool released;			/* the completion: refcount reached zero */
bool freed;			/* kfree(cid) happened */
byte frees;			/* how many times */
bool pending;			/* addr_query_pending */
bool attached;			/* cma_dev != NULL */
bool on_list;			/* on cma_dev->ids (device_entry) */
bool ib_ptr;			/* cid->ib != NULL */
bool mc_listed;			/* a group on cid->mcs */

/* The world around it. */
byte cl;			/* cma_lock */
bool dev_listed = true;		/* the device is on cma_devices */
byte dev_ref = 1;		/* cma_device.refcount: the list's */
bool dev_freed;
byte areq = W_NONE;		/* ib_core's addr_req for our query */
bool ib_live;			/* the IB CM's cm_id exists */
bool ib_running;		/* an IB CM callback on it is running */
byte mcw = W_NONE;		/* the multicast join's work item */
chan wq = [4] of { byte, byte, byte };	/* cma_wq: kind, from, to */
bool wq_busy;			/* its worker is inside an item */

/* The consumer (its own state, under its own lock). */
byte col;			/* the consumer's lock */
bool c_busy = true;		/* still calling the API on the id */
bool c_destroying;		/* decided to call rdma_destroy_id() */
bool killed;			/* its handler returned non-zero */
bool destroy_returned;		/* rdma_destroy_id() returned */

inline touch()
{
	assert(!freed)
}

inline lock(m)
{
	touch();
	atomic { m == 0 -> m = _pid + 1 }
}

inline unlock(m)
{
	assert(m == _pid + 1);
	m = 0
}

/* Locks of the world and of the consumer: not in the id's memory. */
inline glock(m)
{
	atomic { m == 0 -> m = _pid + 1 }
}

/* cma_transition() */
inline transition(from, to, ok)
{
	assert(ALLOWS(from, to));
	atomic {
		touch();
		if
		:: st == from -> st = to; ok = true
		:: else -> ok = false
		fi
	}
}

/* cma_enter(): returns the old state in @old. */
inline enter(to, old)
{
	atomic {
		touch();
		old = st;
		if
		:: ALLOWS(old, to) -> st = to
		:: else
		fi
	}
}

inline get()
{
	atomic { touch(); assert(ref > 0); ref++ }
}

/* cma_id_put(): the last one completes cid->released. */
inline put()
{
	atomic {
		touch();
		assert(ref > 0);
		ref--;
		if
		:: ref == 0 -> released = true
		:: else
		fi
	}
}

inline dev_put()
{
	atomic { assert(!dev_freed && dev_ref > 0); dev_ref-- }
}

/*
 * The consumer's event handler, called by cma_deliver(). It may ask for
 * the id's destruction (return 1) only while the consumer is neither
 * using the id nor destroying it: the consumer learns of it under its own
 * lock and does not touch the id again.
 */
inline handler(v)
{
	glock(col);
	if
	:: !c_busy && !c_destroying -> killed = true; v = 1
	:: v = 0
	fi;
	unlock(col)
}

/* cma_deliver() */
inline deliver(v)
{
	assert(hm == _pid + 1);
	touch();
	assert(st != DESTROYING);
	assert(!destroy_returned);
	handler(v)
}

/* cma_queue_event() */
inline queue_event(from, to)
{
#ifndef BUG_NO_WORK_REF
	get();
#endif
	wq ! K_EVENT, from, to
}

/*
 * cma_cancel_addr_query() with ib_core's rdma_addr_cancel(). The flag is
 * read without the handler mutex; the query's reference keeps the id alive
 * for a callback that has cleared it.
 */
inline cancel_addr_query(p)
{
	touch();
	p = pending;
	if
	:: p ->
		/* Off ib_core's list before it ran, or wait for the run. */
		atomic {
			if
			:: areq == W_QUEUED -> areq = W_CANCELLED
			:: else
			fi
		};
		areq != W_RUNNING;
		touch();
#ifndef BUG_PENDING_RACE
		if
		:: pending -> pending = false; put()
		:: else
		fi
#else
		skip
#endif
	:: else
	fi
}

/* The reference an address query holds (none before the fix). */
inline query_get()
{
#ifndef BUG_PENDING_RACE
	get()
#else
	skip
#endif
}

inline query_put()
{
#ifndef BUG_PENDING_RACE
	put()
#else
	skip
#endif
}

/* cma_mc_leave_all(): cancel_work_sync() on the join event's work. */
inline mc_leave_all()
{
	touch();
	if
	:: mc_listed ->
		mc_listed = false;
		atomic {
			if
			:: mcw == W_QUEUED -> mcw = W_CANCELLED
			:: else
			fi
		};
		mcw != W_RUNNING
	:: else
	fi
}

/* cma_unbind() -> cma_release_dev() */
inline unbind()
{
	touch();
	if
	:: attached ->
		glock(cl);
		on_list = false;
		unlock(cl);
		attached = false;
		dev_put()
	:: else
	fi
}

/* cma_attach(), under cma_lock, to a listed device */
inline attach()
{
	assert(cl == _pid + 1 && dev_listed);
	dev_ref++;
	attached = true;
	on_list = true
}

/* cma_id_release() */
inline id_release(p)
{
	cancel_addr_query(p);
	mc_leave_all();
	touch();
	if
	:: ib_ptr ->
		/* ib_destroy_cm_id(): waits for a running callback. */
		ib_live = false;
		!ib_running
	:: else
	fi;
	unbind();
	put();
	released;
	atomic {
		assert(!freed && ref == 0 && frees == 0);
		frees++;
		freed = true
	}
}

/* cma_destroy_handler_unlock(): called with hm held. */
inline destroy_handler_unlock(old, p)
{
	assert(hm == _pid + 1);
	enter(DESTROYING, old);
	unlock(hm);
	id_release(p)
}

/* cma_release_work() on rdma_cm_release */
proctype release_work()
{
	bool p;

	id_release(p)
}

/* cma_destroy_handler_unlock_deferred(): from cma_wq, hm held. */
inline destroy_deferred(old)
{
	assert(hm == _pid + 1);
	enter(DESTROYING, old);
	unlock(hm);
	run release_work()
}

/* cma_event_work_handler() */
inline event_work(from, to)
{
	lock(hm);
	if
	:: from == to -> ok = (st == from)
	:: else -> transition(from, to, ok)
	fi;
	v = 0;
	if
	:: ok -> deliver(v)
	:: else
	fi;
	if
	:: v ->
#ifndef BUG_NO_WORK_REF
		put();
#endif
		destroy_deferred(old)
	:: else ->
		unlock(hm);
#ifndef BUG_NO_WORK_REF
		put()
#else
		skip
#endif
	fi
}

/* cma_mc_work(): holds no reference; the release cancels it instead. */
inline mc_work()
{
	atomic {
		if
		:: mcw == W_QUEUED -> mcw = W_RUNNING
		:: else
		fi
	};
	if
	:: mcw == W_RUNNING ->
		lock(hm);
		v = 0;
		if
		:: st != DESTROYING && st != DEVICE_REMOVAL -> deliver(v)
		:: else
		fi;
		if
		:: v -> destroy_deferred(old)
		:: else -> unlock(hm)
		fi;
		mcw = W_DONE
	:: else
	fi
}

/* cma_wq: an ordered workqueue, one item at a time, in order. */
proctype cma_wq_worker()
{
	byte kind, from, to, old;
	bool ok, v;

end:	do
	:: atomic { wq ? kind, from, to -> wq_busy = true };
		if
		:: kind == K_EVENT -> event_work(from, to)
		:: kind == K_MC -> mc_work()
		fi;
		wq_busy = false
	od
}

/* cma_addr_resolved(), run by ib_core's address workqueue. */
proctype addr_cb()
{
	byte old;
	bool ok, v, status, p;

	atomic {
		if
		:: areq == W_QUEUED -> areq = W_RUNNING
		:: else -> goto gone	/* cancelled before it ran */
		fi
	};
	lock(hm);
	pending = false;
	transition(ADDR_QUERY, ADDR_RESOLVED, ok);
	if
	:: !ok -> goto out
	:: else
	fi;
	/* Neighbour resolution succeeded, or not. */
	if
	:: status = false
	:: status = true
	fi;
	if
	:: !status && !attached ->	/* cma_acquire_dev() */
		glock(cl);
		if
		:: dev_listed -> attach()
		:: else -> status = true
		fi;
		unlock(cl)
	:: else
	fi;
	if
	:: status ->
		transition(ADDR_RESOLVED, ADDR_BOUND, ok);
		if
		:: !ok -> goto out
		:: else
		fi
	:: else
	fi;
	deliver(v);
	if
	:: v -> query_put(); destroy_handler_unlock(old, p); goto done
	:: else
	fi;
out:
	unlock(hm);
	query_put();
done:
	areq = W_DONE;		/* ib_core frees its request afterwards */
gone:
	skip
}

/* cma_ib_handler(), run by the IB CM for the connection's cm_id. */
proctype ib_cb()
{
	byte n, old;
	bool ok, v, expected, p;

	do
	:: atomic { n < 2 && ib_live && !ib_running -> ib_running = true; n++ };
		lock(hm);
		if
		:: st == CONNECT ->	/* REP, REJ, or a DREQ */
			expected = true;
			if
			:: transition(CONNECT, DISCONNECT, ok)
			:: skip
			fi
		:: st == DISCONNECT -> expected = true	/* TIMEWAIT_EXIT */
		:: else -> expected = false
		fi;
		v = 0;
		if
		:: expected -> deliver(v)
		:: else
		fi;
		if
		:: v ->		/* cma_deliver_unlock(): the IB CM destroys its id */
#ifndef BUG_KEEP_IB
			ib_ptr = false;
#endif
			destroy_handler_unlock(old, p);
			atomic { ib_running = false; ib_live = false };
			break
		:: else -> unlock(hm); ib_running = false
		fi
	:: else -> break
	od
}

/* ib_client .remove: cma_remove_device() for the id's device. */
proctype remover()
{
	byte old;
	bool v, p, have;

	glock(cl);
	dev_listed = false;
	unlock(cl);

	/* cma_device_notify_removal() */
	glock(cl);
	have = on_list;
	if
	:: have ->
		on_list = false;
#ifndef BUG_REMOVAL_NO_REF
		get();
#endif
		skip
	:: else
	fi;
	unlock(cl);
	if
	:: have ->	/* cma_deliver_removal() */
		lock(hm);
		enter(DEVICE_REMOVAL, old);
		v = 0;
		if
		:: old != DESTROYING -> deliver(v)
		:: else
		fi;
		if
		:: v ->
#ifndef BUG_REMOVAL_NO_REF
			put();
#endif
			destroy_handler_unlock(old, p)
		:: else ->
			unlock(hm);
#ifndef BUG_REMOVAL_NO_REF
			put()
#else
			skip
#endif
		fi
	:: else
	fi;

	dev_put();
	dev_ref == 0;		/* wait_for_completion(&cma_dev->released) */
	dev_freed = true
}

/* rdma_resolve_addr(): bind if IDLE, then resolve. */
inline resolve_addr()
{
	transition(IDLE, ADDR_BOUND, ok);
	if
	:: ok -> transition(ADDR_BOUND, ADDR_QUERY, ok)
	:: else
	fi;
	if
	:: ok ->
		if
		:: /* a wildcard or loopback destination */
			glock(cl);
			if
			:: dev_listed && !attached -> attach(); unlock(cl);
				queue_event(ADDR_QUERY, ADDR_RESOLVED)
			:: else -> unlock(cl);
				transition(ADDR_QUERY, ADDR_BOUND, ok)
			fi
		:: /* rdma_resolve_ip() */
			query_get();
			pending = true;
			if
			:: areq = W_QUEUED; run addr_cb()
			:: pending = false;	/* it failed */
				query_put();
				transition(ADDR_QUERY, ADDR_BOUND, ok)
			fi
		fi
	:: else
	fi
}

/* rdma_resolve_route() on RoCE */
inline resolve_route()
{
	transition(ADDR_RESOLVED, ROUTE_QUERY, ok);
	if
	:: ok -> queue_event(ROUTE_QUERY, ROUTE_RESOLVED)
	:: else
	fi
}

/* rdma_connect(): the handler mutex around rdma_connect_locked() */
inline connect()
{
	lock(hm);
	transition(ROUTE_RESOLVED, CONNECT, ok);
	if
	:: ok -> ib_ptr = true; ib_live = true; run ib_cb()
	:: else
	fi;
	unlock(hm)
}

/* rdma_join_multicast() */
inline join()
{
	touch();
	if
	:: attached && (st == ADDR_BOUND || st == ADDR_RESOLVED) && !mc_listed ->
		mc_listed = true;
		mcw = W_QUEUED;
		wq ! K_MC, 0, 0
	:: else
	fi
}

/* rdma_destroy_id() */
inline destroy_id()
{
#ifdef BUG_NO_FENCE
	enter(DESTROYING, old);
	id_release(p);
#else
	lock(hm);
	destroy_handler_unlock(old, p);
#endif
	destroy_returned = true
}

/*
 * The consumer: some API calls in any order, each at most once (a call
 * in the wrong state fails as the code's state checks make it), then
 * rdma_destroy_id() unless its handler asked for destruction first.
 */
proctype consumer()
{
	byte old;
	bool ok, p, did_addr, did_route, did_conn, did_mc;

	do
	:: !did_addr -> did_addr = true; resolve_addr()
	:: !did_route -> did_route = true; resolve_route()
	:: !did_conn -> did_conn = true; connect()
	:: !did_mc -> did_mc = true; join()
	:: break
	od;

	glock(col);
	c_busy = false;
	unlock(col);
	/* Here the handler may return non-zero. */
	glock(col);
	if
	:: !killed -> c_destroying = true
	:: else
	fi;
	unlock(col);
	if
	:: c_destroying -> destroy_id()
	:: else
	fi
}

init {
	atomic {
		nxt[IDLE] = S(ADDR_BOUND) | ANY_END;
		nxt[ADDR_BOUND] = S(IDLE) | S(ADDR_QUERY) | S(LISTEN) |
				  ANY_END;
		nxt[ADDR_QUERY] = S(ADDR_BOUND) | S(ADDR_RESOLVED) | ANY_END;
		nxt[ADDR_RESOLVED] = S(ADDR_BOUND) | S(ROUTE_QUERY) |
				     S(ROUTE_RESOLVED) | ANY_END;
		nxt[ROUTE_QUERY] = S(ADDR_RESOLVED) | S(ROUTE_RESOLVED) |
				   ANY_END;
		nxt[ROUTE_RESOLVED] = S(ADDR_RESOLVED) | S(CONNECT) | ANY_END;
		nxt[CONNECT] = S(ROUTE_RESOLVED) | S(DISCONNECT) | ANY_END;
		nxt[DISCONNECT] = ANY_END;
		nxt[LISTEN] = S(ADDR_BOUND) | ANY_END;
		nxt[DEVICE_REMOVAL] = S(DESTROYING);
		nxt[DESTROYING] = 0;

		run cma_wq_worker();
		run consumer();
		if
		:: run remover()
		:: skip
		fi
	};
	/* Everything but the idle worker has stopped. */
	atomic { _nr_pr == 2 && len(wq) == 0 && !wq_busy };
	assert(freed && frees == 1);
	assert(areq != W_RUNNING && mcw != W_RUNNING && !mc_listed);
	assert(!ib_live && !ib_running);
	assert(dev_freed || dev_ref == 1)
}
