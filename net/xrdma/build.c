// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma.ko is compiled as this one translation unit, as the scheduler
 * builds kernel/sched/build_policy.c: each file below keeps its one
 * concern, and the compiler sees them all at once.  A message's path
 * crosses most of them (recv.c, credits.c, pool.c, hdr.c, ring.c,
 * send.c), in small functions; built apart, every one of those stayed
 * a call.  Built together, the 64 B ping-pong over rxe on Debian's
 * kernel went from 1.22 to 1.16-1.17 of the verbs floor
 * (Documentation/benchmarks.rst, "One translation unit").
 *
 * Each file includes what it uses, as when they were built apart.
 */
#include "main.c"
#include "xprt.c"
#include "ep.c"
#include "qp.c"
#include "connect.c"
#include "disconnect.c"
#include "listen.c"
#include "send.c"
#include "recv.c"
#include "ring.c"
#include "credits.c"
#include "pool.c"
#include "frwr.c"
#include "frwr_count.c"
#include "rdma.c"
#include "hdr.c"
#include "chunk.c"
#include "land.c"
#include "wr_wait.c"
#include "cq.c"
#include "send_cq.c"
