// SPDX-License-Identifier: GPL-2.0
/*
 * ucma_fuzz - random sequences of rdma_ucm commands, as syzkaller sends
 * them, against the CM underneath the in-box rdma_ucm.
 *
 * Several threads share two /dev/infiniband/rdma_cm files and a table of
 * the ids they created. Each thread draws its operations from its own
 * generator, seeded from --seed and its number, so a thread's sequence of
 * choices is reproducible; the interleaving of the threads is not. Most
 * operations are the next sensible step for the id they pick (bind,
 * resolve the address, the route, connect, listen, accept what arrives),
 * the rest are any command on any id, with some arguments made wrong.
 * Events are read with poll() and a non-blocking GET_EVENT, and move the
 * ids along. Now and then a file is closed with its ids alive, and ids
 * migrate between the two files.
 *
 * The kernel is the oracle: the program only fails when the device cannot
 * be opened or a thread cannot start; splats and leaks are for the
 * harness to find. It prints the seed and, per command, how often it was
 * issued, how often it succeeded, and the events received.
 *
 * --diff is the differential mode of tests/diff: one thread, and after
 * each command the events it set off are collected until the files stay
 * quiet (--settle-ms, default 50; an asynchronous command that succeeded
 * first waits up to FZ_FIRST_MS for its first event), sorted by file and
 * id so that the order two ids heard in does not matter, and fed to the
 * table before the next choice. Standard output is then the record
 * tests/diff/compare reads: each command with its target and result,
 * each event, in sections of FZ_DIFF_SECTION steps; the statistics go to
 * standard error. The same seed on two CMs makes the same choices for as
 * long as the CMs answer alike.
 *
 *   ucma_fuzz [--seed N] [--ops N] [--threads N] [--verbose] [--reject-any]
 *	       [--diff] [--settle-ms N]
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_user_cm.h>

#define FZ_DEV		"/dev/infiniband/rdma_cm"
#define FZ_NFILES	2
#define FZ_NIDS		48
#define FZ_NMCS		16
#define FZ_PORT0	19000	/* ports FZ_PORT0 .. FZ_PORT0 + FZ_NPORTS - 1 */
#define FZ_NPORTS	2
#define FZ_MAX_THREADS	32
#define FZ_NEVENTS	32	/* beyond the largest event number */
#define FZ_DIFF_SECTION	250	/* --diff: steps per section of the record */
#define FZ_FIRST_MS	2500	/* --diff: wait for an async command's event */
#define FZ_DIFF_EVENTS	256	/* --diff: events one settling collects */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* enum rdma_cm_event_type, the numbers rdma_ucm reports. */
enum {
	FZ_EV_ADDR_RESOLVED,
	FZ_EV_ADDR_ERROR,
	FZ_EV_ROUTE_RESOLVED,
	FZ_EV_ROUTE_ERROR,
	FZ_EV_CONNECT_REQUEST,
	FZ_EV_CONNECT_RESPONSE,
	FZ_EV_CONNECT_ERROR,
	FZ_EV_UNREACHABLE,
	FZ_EV_REJECTED,
	FZ_EV_ESTABLISHED,
	FZ_EV_DISCONNECTED,
	FZ_EV_DEVICE_REMOVAL,
	FZ_EV_MULTICAST_JOIN,
	FZ_EV_MULTICAST_ERROR,
	FZ_EV_ADDR_CHANGE,
	FZ_EV_TIMEWAIT_EXIT,
};

/* What the fuzzer believes an id has reached; events move it on. */
enum fz_stage {
	FZ_NEW,		/* created */
	FZ_BOUND,	/* bind succeeded */
	FZ_RESOLVING,	/* resolve_addr issued */
	FZ_ADDR,	/* ADDR_RESOLVED */
	FZ_ROUTING,	/* resolve_route issued */
	FZ_ROUTE,	/* ROUTE_RESOLVED */
	FZ_CONNECTING,	/* connect issued */
	FZ_LISTENING,	/* listen succeeded */
	FZ_REQUEST,	/* born from a CONNECT_REQUEST, not answered */
	FZ_CONNECTED,	/* ESTABLISHED or CONNECT_RESPONSE */
	FZ_DONE,	/* disconnected, rejected, unreachable, an error */
};

struct fz_id {
	bool used;
	int file;
	__u32 id;
	__u16 ps;
	enum fz_stage stage;
	bool passive;	/* born from a CONNECT_REQUEST */
	bool busy;	/* a CONNECT, ACCEPT or REJECT is in flight on it */
	unsigned long gen;	/* tells a reused entry from the old one */
};

struct fz_mc {
	bool used;
	int file;
	__u32 id;
};

/*
 * A file descriptor, replaced by a fresh one when closed. A thread may
 * still write to the old number after the close: the write then fails,
 * or reaches whichever rdma_cm file got the number next (this program
 * opens nothing else), which is fair game for a fuzzer. No lock, so a
 * close that waits for the kernel holds up only its own thread.
 */
struct fz_file {
	int fd;
};

static int fz_fd(int file);

/* The commands, plus the fuzzer's own operations after them. */
enum {
	FZ_OP_CLOSE = RDMA_USER_CM_CMD_JOIN_MCAST + 1,
	FZ_NOPS,
};

static const char * const fz_op_names[FZ_NOPS] = {
	[RDMA_USER_CM_CMD_CREATE_ID] = "create_id",
	[RDMA_USER_CM_CMD_DESTROY_ID] = "destroy_id",
	[RDMA_USER_CM_CMD_BIND_IP] = "bind_ip",
	[RDMA_USER_CM_CMD_RESOLVE_IP] = "resolve_ip",
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE] = "resolve_route",
	[RDMA_USER_CM_CMD_QUERY_ROUTE] = "query_route",
	[RDMA_USER_CM_CMD_CONNECT] = "connect",
	[RDMA_USER_CM_CMD_LISTEN] = "listen",
	[RDMA_USER_CM_CMD_ACCEPT] = "accept",
	[RDMA_USER_CM_CMD_REJECT] = "reject",
	[RDMA_USER_CM_CMD_DISCONNECT] = "disconnect",
	[RDMA_USER_CM_CMD_INIT_QP_ATTR] = "init_qp_attr",
	[RDMA_USER_CM_CMD_GET_EVENT] = "get_event",
	[RDMA_USER_CM_CMD_GET_OPTION] = "get_option",
	[RDMA_USER_CM_CMD_SET_OPTION] = "set_option",
	[RDMA_USER_CM_CMD_NOTIFY] = "notify",
	[RDMA_USER_CM_CMD_JOIN_IP_MCAST] = "join_ip_mcast",
	[RDMA_USER_CM_CMD_LEAVE_MCAST] = "leave_mcast",
	[RDMA_USER_CM_CMD_MIGRATE_ID] = "migrate_id",
	[RDMA_USER_CM_CMD_QUERY] = "query",
	[RDMA_USER_CM_CMD_BIND] = "bind",
	[RDMA_USER_CM_CMD_RESOLVE_ADDR] = "resolve_addr",
	[RDMA_USER_CM_CMD_JOIN_MCAST] = "join_mcast",
	[FZ_OP_CLOSE] = "close_file",
};

/* Relative weights of the operations drawn at random. */
static const unsigned int fz_op_weight[FZ_NOPS] = {
	[RDMA_USER_CM_CMD_CREATE_ID] = 8,
	[RDMA_USER_CM_CMD_DESTROY_ID] = 5,
	[RDMA_USER_CM_CMD_BIND_IP] = 2,
	[RDMA_USER_CM_CMD_RESOLVE_IP] = 2,
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE] = 4,
	[RDMA_USER_CM_CMD_QUERY_ROUTE] = 2,
	[RDMA_USER_CM_CMD_CONNECT] = 4,
	[RDMA_USER_CM_CMD_LISTEN] = 4,
	[RDMA_USER_CM_CMD_ACCEPT] = 3,
	[RDMA_USER_CM_CMD_REJECT] = 2,
	[RDMA_USER_CM_CMD_DISCONNECT] = 3,
	[RDMA_USER_CM_CMD_INIT_QP_ATTR] = 2,
	[RDMA_USER_CM_CMD_GET_EVENT] = 12,
	[RDMA_USER_CM_CMD_GET_OPTION] = 1,
	[RDMA_USER_CM_CMD_SET_OPTION] = 4,
	[RDMA_USER_CM_CMD_NOTIFY] = 1,
	[RDMA_USER_CM_CMD_JOIN_IP_MCAST] = 1,
	[RDMA_USER_CM_CMD_LEAVE_MCAST] = 2,
	[RDMA_USER_CM_CMD_MIGRATE_ID] = 2,
	[RDMA_USER_CM_CMD_QUERY] = 3,
	[RDMA_USER_CM_CMD_BIND] = 5,
	[RDMA_USER_CM_CMD_RESOLVE_ADDR] = 6,
	[RDMA_USER_CM_CMD_JOIN_MCAST] = 2,
	[FZ_OP_CLOSE] = 1,
};

static struct fz_file fz_files[FZ_NFILES];
static struct fz_id fz_ids[FZ_NIDS];
static struct fz_mc fz_mcs[FZ_NMCS];
static pthread_mutex_t fz_table_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long fz_gen;	/* under fz_table_lock */

static unsigned long fz_issued[FZ_NOPS], fz_ok[FZ_NOPS];
static unsigned long fz_usecs[FZ_NOPS], fz_max_usecs[FZ_NOPS];
/* The most frequent failure of each command: its errno and count. */
#define FZ_NERRNO	140
static unsigned long fz_errnos[FZ_NOPS][FZ_NERRNO];
static unsigned long fz_events[FZ_NEVENTS];
static unsigned long fz_ops_left;
static bool fz_verbose;
static bool fz_reject_any;
static bool fz_diff;
static int fz_settle_ms = 50;
static unsigned long fz_step;
/* For --verbose: what the calling thread is working on. */
static __thread __u32 fz_cur_id;
static __thread int fz_cur_file;

struct fz_thread {
	pthread_t thread;
	unsigned int n;
	__u64 rng;
};

/* A user pointer as the commands carry it. */
static __u64 fz_ptr(const void *p)
{
	return (unsigned long)p;
}

static void fz_count(unsigned long *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* xorshift64*: small, fast and the same everywhere. */
static __u64 fz_rand(struct fz_thread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545f4914f6cdd1dULL;
}

static unsigned int fz_below(struct fz_thread *t, unsigned int n)
{
	return n ? (unsigned int)(fz_rand(t) % n) : 0;
}

/* True with probability @pct percent. */
static bool fz_chance(struct fz_thread *t, unsigned int pct)
{
	return fz_below(t, 100) < pct;
}

/* The guest's addresses, a wildcard, a loopback and one nobody has. */
static const char * const fz_addrs4[] = {
	"10.0.0.1", "10.0.0.2", "0.0.0.0", "127.0.0.1", "10.0.0.9",
};

static const char * const fz_addrs6[] = {
	"fd00::1", "fd00::2", "::", "::1", "fd00::9",
};

static const char * const fz_groups4[] = { "239.1.2.3", "239.1.2.4" };
static const char * const fz_groups6[] = { "ff0e::1:2:3", "ff0e::1:2:4" };

static __u16 fz_port(struct fz_thread *t)
{
	if (fz_chance(t, 10))
		return 0;
	return FZ_PORT0 + fz_below(t, FZ_NPORTS);
}

/*
 * Fill @ss with an address: mostly one of the guest's, sometimes a
 * wildcard, a loopback or an unreachable one. Returns its size.
 */
/*
 * --diff: never the last address, on the link but answered by no one.
 * Whether its resolution times out or fails depends on how far ARP or
 * ND got for it, which depends on how long each CM's run has taken: the
 * sequences would part on the clock, not on the CMs.
 */
static __u16 fz_addr(struct fz_thread *t, struct sockaddr_storage *ss,
		     bool wildcard_ok)
{
	unsigned int n = wildcard_ok ? (fz_diff ? 4 : 5) : 2;
	unsigned int i;

	/* Mostly rxe0's: RoCE connects to itself, siw wants a real QP. */
	if (fz_chance(t, 60))
		i = 0;
	else
		i = fz_chance(t, 60) ? 1 : fz_below(t, n);

	memset(ss, 0, sizeof(*ss));
	if (fz_chance(t, 65)) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(fz_port(t));
		inet_pton(AF_INET, fz_addrs4[i], &in->sin_addr);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(fz_port(t));
	inet_pton(AF_INET6, fz_addrs6[i], &in6->sin6_addr);
	return sizeof(*in6);
}

/*
 * --diff: IPv4 groups only. On RoCEv2 the in-box rdma_cm refuses an IPv6
 * group with -ENOTSUPP and ours joins it (tests/diff/accepted.txt, the
 * entry for mcast/rxe6): the sequences would part there.
 */
static __u16 fz_group(struct fz_thread *t, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (fz_chance(t, 60) || fz_diff) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		inet_pton(AF_INET, fz_groups4[fz_below(t, 2)], &in->sin_addr);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	in6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, fz_groups6[fz_below(t, 2)], &in6->sin6_addr);
	return sizeof(*in6);
}

/*
 * Make an argument wrong now and then: a size, a family, garbage. Never
 * a response pointer: the kernel would write where it points.
 */
static void fz_mangle(struct fz_thread *t, void *body, size_t len)
{
	unsigned char *p = body;

	if (!len || !fz_chance(t, 5))
		return;
	p[fz_below(t, len)] = (unsigned char)fz_rand(t);
}

static unsigned long fz_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000UL + ts.tv_nsec / 1000;
}

/* Account @us microseconds spent in @op. */
static void fz_time(unsigned int op, unsigned long us)
{
	unsigned long max;

	__atomic_fetch_add(&fz_usecs[op], us, __ATOMIC_RELAXED);
	max = __atomic_load_n(&fz_max_usecs[op], __ATOMIC_RELAXED);
	while (us > max &&
	       !__atomic_compare_exchange_n(&fz_max_usecs[op], &max, us, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/*
 * Send one command: the header, then @body of @len bytes. Returns 0 or a
 * negative errno; counts it under @op, with its time and its errno.
 */
static int fz_cmd(int fd, unsigned int op, void *body, __u16 len, __u16 out)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		unsigned char body[512];
	} buf;
	unsigned long start;
	ssize_t ret;
	int err;

	buf.hdr.cmd = op;
	buf.hdr.in = len;
	buf.hdr.out = out;
	memcpy(buf.body, body, len);
	fz_count(&fz_issued[op]);
	start = fz_now_us();
	ret = write(fd, &buf, sizeof(buf.hdr) + len);
	err = errno;
	fz_time(op, fz_now_us() - start);
	if (fz_verbose)
		fprintf(stderr, "file %d id %u %s: %s, %lu us\n", fz_cur_file,
			fz_cur_id, fz_op_names[op],
			ret < 0 ? strerrorname_np(err) : "ok",
			fz_now_us() - start);
	if (fz_diff && op != RDMA_USER_CM_CMD_GET_EVENT)
		printf("  %lu %s file %d id %u = %s\n", fz_step, fz_op_names[op],
		       fz_cur_file, fz_cur_id,
		       ret < 0 ? strerrorname_np(err) ?: "?" : "0");
	if (ret < 0) {
		fz_count(&fz_errnos[op][err < FZ_NERRNO ? err : 0]);
		return -err;
	}
	fz_count(&fz_ok[op]);
	return 0;
}

/* A live id of the table, or -1. Under fz_table_lock. */
static int fz_pick_id(struct fz_thread *t)
{
	unsigned int i, start = fz_below(t, FZ_NIDS);

	for (i = 0; i < FZ_NIDS; i++) {
		unsigned int k = (start + i) % FZ_NIDS;

		if (fz_ids[k].used)
			return (int)k;
	}
	return -1;
}

/* Record a new id; forgotten (leaked to the file) if the table is full. */
static void fz_add_id(int file, __u32 id, __u16 ps, enum fz_stage stage)
{
	unsigned int i;

	pthread_mutex_lock(&fz_table_lock);
	for (i = 0; i < FZ_NIDS; i++) {
		if (!fz_ids[i].used) {
			fz_ids[i] = (struct fz_id){ true, file, id, ps, stage,
						    stage == FZ_REQUEST, false,
						    ++fz_gen };
			break;
		}
	}
	pthread_mutex_unlock(&fz_table_lock);
}

static struct fz_id *fz_find_id(int file, __u32 id)
{
	unsigned int i;

	for (i = 0; i < FZ_NIDS; i++)
		if (fz_ids[i].used && fz_ids[i].file == file &&
		    fz_ids[i].id == id)
			return &fz_ids[i];
	return NULL;
}

static void fz_set_stage(int file, __u32 id, enum fz_stage stage)
{
	struct fz_id *e;

	pthread_mutex_lock(&fz_table_lock);
	e = fz_find_id(file, id);
	if (e)
		e->stage = stage;
	pthread_mutex_unlock(&fz_table_lock);
}

static void fz_forget_id(int file, __u32 id)
{
	struct fz_id *e;

	pthread_mutex_lock(&fz_table_lock);
	e = fz_find_id(file, id);
	if (e)
		e->used = false;
	pthread_mutex_unlock(&fz_table_lock);
}

/* Which command moves an id in @stage on. */
static unsigned int fz_next_op(struct fz_thread *t, enum fz_stage stage)
{
	switch (stage) {
	case FZ_NEW:
		return fz_chance(t, 50) ? RDMA_USER_CM_CMD_BIND :
					  RDMA_USER_CM_CMD_RESOLVE_ADDR;
	case FZ_BOUND:
		return fz_chance(t, 50) ? RDMA_USER_CM_CMD_LISTEN :
					  RDMA_USER_CM_CMD_RESOLVE_ADDR;
	case FZ_ADDR:
		return fz_chance(t, 85) ? RDMA_USER_CM_CMD_RESOLVE_ROUTE :
					  RDMA_USER_CM_CMD_JOIN_MCAST;
	case FZ_ROUTE:
		return RDMA_USER_CM_CMD_CONNECT;
	case FZ_REQUEST:
		return fz_chance(t, 75) ? RDMA_USER_CM_CMD_ACCEPT :
					  RDMA_USER_CM_CMD_REJECT;
	case FZ_CONNECTED:
		return fz_chance(t, 50) ? RDMA_USER_CM_CMD_DISCONNECT :
					  RDMA_USER_CM_CMD_ACCEPT;
	case FZ_DONE:
		return RDMA_USER_CM_CMD_DESTROY_ID;
	default:
		return RDMA_USER_CM_CMD_GET_EVENT;
	}
}

static unsigned int fz_random_op(struct fz_thread *t)
{
	unsigned int total = 0, op, r;

	for (op = 0; op < FZ_NOPS; op++)
		total += fz_op_weight[op];
	r = fz_below(t, total);
	for (op = 0; r >= fz_op_weight[op]; op++)
		r -= fz_op_weight[op];
	return op;
}

struct fz_target {
	int file;	/* index in fz_files */
	__u32 id;	/* the id, or a made-up one */
	__u16 ps;
	enum fz_stage stage;	/* the entry's when chosen */
	int busy;	/* the entry marked busy, or -1 */
	unsigned long gen;	/* its generation */
};

static bool fz_sets_up(unsigned int op)
{
	return op == RDMA_USER_CM_CMD_CONNECT ||
	       op == RDMA_USER_CM_CMD_ACCEPT || op == RDMA_USER_CM_CMD_REJECT;
}

/* The CONNECT, ACCEPT or REJECT on @tg's entry is over. */
static void fz_unbusy(const struct fz_target *tg)
{
	if (tg->busy < 0)
		return;
	pthread_mutex_lock(&fz_table_lock);
	if (fz_ids[tg->busy].gen == tg->gen)
		fz_ids[tg->busy].busy = false;
	pthread_mutex_unlock(&fz_table_lock);
}

/*
 * Would a REJECT or an ACCEPT on this id leave the IB CM retrying a MAD
 * of its own? ib_send_cm_rej() from REQ_SENT or REP_SENT does not cancel
 * the REQ or REP still being retried, and the IB CM id stays referenced
 * until the retries run out (about 100 s); destroying it waits that
 * long, with the in-box rdma_cm as with ours. An ACCEPT there sends the
 * same REJ: the IB CM refuses the REP, and rdma_accept() then rejects
 * the peer. Unless --reject-any, either becomes a DISCONNECT, to keep
 * runs short.
 */
static bool fz_stalls(const struct fz_id *e)
{
	return e->stage == FZ_CONNECTING ||
	       (e->stage == FZ_CONNECTED && e->passive);
}

/* A command fz_stalls() may spare, kept off ids the table did not pick. */
static bool fz_may_stall(unsigned int op)
{
	return !fz_reject_any && (op == RDMA_USER_CM_CMD_REJECT ||
				  op == RDMA_USER_CM_CMD_ACCEPT);
}

/*
 * Choose the operation and the id it acts on. Most of the time: an id of
 * the table and its next step; otherwise any command, on an id of the
 * table or (rarely) a number that names none.
 */
static unsigned int fz_choose(struct fz_thread *t, struct fz_target *tg)
{
	unsigned int op = fz_random_op(t);
	int k;

	tg->busy = -1;
	pthread_mutex_lock(&fz_table_lock);
	k = fz_pick_id(t);
	if (k >= 0) {
		tg->file = fz_ids[k].file;
		tg->id = fz_ids[k].id;
		tg->ps = fz_ids[k].ps;
		tg->stage = fz_ids[k].stage;
		if (fz_chance(t, 65))
			op = fz_next_op(t, fz_ids[k].stage);
		if (fz_may_stall(op) && fz_stalls(&fz_ids[k]))
			op = RDMA_USER_CM_CMD_DISCONNECT;
		/*
		 * One of these at a time per id, so that a REJECT or ACCEPT
		 * does not race the CONNECT or ACCEPT fz_stalls() is about.
		 */
		if (fz_sets_up(op) && !fz_reject_any) {
			if (fz_ids[k].busy) {
				op = RDMA_USER_CM_CMD_GET_EVENT;
			} else {
				fz_ids[k].busy = true;
				tg->busy = k;
				tg->gen = fz_ids[k].gen;
			}
		}
	} else {
		tg->file = (int)fz_below(t, FZ_NFILES);
		tg->id = fz_below(t, 64);
		tg->ps = RDMA_PS_TCP;
		tg->stage = FZ_NEW;
		if (op != FZ_OP_CLOSE)
			op = RDMA_USER_CM_CMD_CREATE_ID;
	}
	pthread_mutex_unlock(&fz_table_lock);
	/*
	 * rdma_ucm numbers ids from 0 in both files: a small number may name
	 * an id of the other file or one the table did not pick. Not for a
	 * REJECT or an ACCEPT, which must not reach an id fz_stalls() spares.
	 */
	if (fz_chance(t, 3)) {
		tg->id = (__u32)fz_rand(t) & 0xff;
		if (fz_may_stall(op))
			tg->id |= 0x10000;
	}
	if (op == RDMA_USER_CM_CMD_CREATE_ID ||
	    op == RDMA_USER_CM_CMD_GET_EVENT || op == FZ_OP_CLOSE)
		tg->file = (int)fz_below(t, FZ_NFILES);
	return op;
}

static void fz_op_create(struct fz_thread *t, int fd, int file)
{
	static const __u16 ps[] = {
		RDMA_PS_TCP, RDMA_PS_TCP, RDMA_PS_TCP, RDMA_PS_UDP,
		RDMA_PS_IB, RDMA_PS_IPOIB,
	};
	struct rdma_ucm_create_id_resp resp = {};
	struct rdma_ucm_create_id cmd = {};

	cmd.uid = fz_rand(t);
	cmd.ps = ps[fz_below(t, ARRAY_SIZE(ps))];
	/* RC for TCP and IB, UD for UDP and IPoIB; rarely anything. */
	cmd.qp_type = (cmd.ps == RDMA_PS_UDP || cmd.ps == RDMA_PS_IPOIB) ?
		      4 : 2;
	if (fz_chance(t, 5))
		cmd.qp_type = (__u8)fz_below(t, 12);
	fz_mangle(t, &cmd, sizeof(cmd));
	cmd.response = fz_ptr(&resp);
	if (!fz_cmd(fd, RDMA_USER_CM_CMD_CREATE_ID, &cmd, sizeof(cmd),
		    sizeof(resp))) {
		if (fz_diff)
			printf("  %lu   new id %u\n", fz_step, resp.id);
		fz_add_id(file, resp.id, cmd.ps, FZ_NEW);
	}
}

static void fz_op_destroy(int fd, int file, __u32 id)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id cmd = {};

	cmd.response = fz_ptr(&resp);
	cmd.id = id;
	if (!fz_cmd(fd, RDMA_USER_CM_CMD_DESTROY_ID, &cmd, sizeof(cmd),
		    sizeof(resp)))
		fz_forget_id(file, id);
}

/*
 * --diff: destroy at once an id whose bind was refused once its address
 * had chosen an interface (the port taken, no RDMA device there, or the
 * IPoIB port space on an Ethernet device, -EINVAL). The in-box rdma_cm
 * keeps that interface in the id and routes the id's next resolution
 * through it, a bug ours does not copy (tests/diff/accepted.txt,
 * resolve/6/after-failed-bind): the two sequences would part there.
 */
static void fz_diff_drop_refused(int fd, int file, __u32 id, __u16 ps,
				 int ret)
{
	if (fz_diff && (ret == -EADDRINUSE || ret == -EADDRNOTAVAIL ||
			ret == -ENODEV || ret == -EACCES ||
			(ret == -EINVAL && ps == RDMA_PS_IPOIB)))
		fz_op_destroy(fd, file, id);
}

static void fz_op_bind(struct fz_thread *t, int fd, int file, __u32 id,
		       __u16 ps)
{
	struct rdma_ucm_bind cmd = {};
	int ret;

	cmd.id = id;
	cmd.addr_size = fz_addr(t, (struct sockaddr_storage *)&cmd.addr,
				true);
	fz_mangle(t, &cmd, sizeof(cmd));
	ret = fz_cmd(fd, RDMA_USER_CM_CMD_BIND, &cmd, sizeof(cmd), 0);
	if (!ret)
		fz_set_stage(file, id, FZ_BOUND);
	fz_diff_drop_refused(fd, file, id, ps, ret);
}

/* The old command: an IPv4 or IPv6 address in a sockaddr_in6. */
static void fz_op_bind_ip(struct fz_thread *t, int fd, int file, __u32 id,
			  __u16 ps)
{
	struct sockaddr_storage ss;
	struct rdma_ucm_bind_ip cmd = {};

	cmd.id = id;
	memcpy(&cmd.addr, &ss, fz_addr(t, &ss, true));
	fz_diff_drop_refused(fd, file, id, ps,
			     fz_cmd(fd, RDMA_USER_CM_CMD_BIND_IP, &cmd,
				    sizeof(cmd), 0));
}

static __u32 fz_timeout(struct fz_thread *t)
{
	return fz_chance(t, 5) ? 0 : 100 + fz_below(t, 1900);
}

static void fz_op_resolve_addr(struct fz_thread *t, int fd, int file,
			       __u32 id, __u16 ps)
{
	struct rdma_ucm_resolve_addr cmd = {};
	int ret;

	cmd.id = id;
	cmd.timeout_ms = fz_timeout(t);
	if (fz_chance(t, 40))
		cmd.src_size = fz_addr(t, (struct sockaddr_storage *)
				       &cmd.src_addr, true);
	cmd.dst_size = fz_addr(t, (struct sockaddr_storage *)&cmd.dst_addr,
			       fz_chance(t, 20));
	fz_mangle(t, &cmd, sizeof(cmd));
	ret = fz_cmd(fd, RDMA_USER_CM_CMD_RESOLVE_ADDR, &cmd, sizeof(cmd), 0);
	if (!ret)
		fz_set_stage(file, id, FZ_RESOLVING);
	/* An IDLE id is bound first, to the source given or a wildcard. */
	fz_diff_drop_refused(fd, file, id, ps, ret);
}

static void fz_op_resolve_ip(struct fz_thread *t, int fd, __u32 id)
{
	struct sockaddr_storage ss;
	struct rdma_ucm_resolve_ip cmd = {};

	cmd.id = id;
	cmd.timeout_ms = fz_timeout(t);
	memcpy(&cmd.dst_addr, &ss, fz_addr(t, &ss, false));
	fz_cmd(fd, RDMA_USER_CM_CMD_RESOLVE_IP, &cmd, sizeof(cmd), 0);
}

static void fz_op_resolve_route(struct fz_thread *t, int fd, int file,
				__u32 id)
{
	struct rdma_ucm_resolve_route cmd = {};

	cmd.id = id;
	cmd.timeout_ms = fz_timeout(t);
	if (!fz_cmd(fd, RDMA_USER_CM_CMD_RESOLVE_ROUTE, &cmd, sizeof(cmd), 0))
		fz_set_stage(file, id, FZ_ROUTING);
}

static void fz_conn_param(struct fz_thread *t,
			  struct rdma_ucm_conn_param *p)
{
	unsigned int i;

	p->qp_num = (__u32)fz_rand(t) & 0xffffff;
	p->private_data_len = (__u8)(fz_chance(t, 90) ? fz_below(t, 57) :
					fz_rand(t));
	for (i = 0; i < p->private_data_len; i++)
		p->private_data[i] = (__u8)i;
	p->responder_resources = (__u8)fz_below(t, 8);
	p->initiator_depth = (__u8)fz_below(t, 8);
	p->retry_count = (__u8)fz_below(t, 8);
	p->rnr_retry_count = (__u8)fz_below(t, 8);
	p->srq = fz_chance(t, 10);
	p->valid = !fz_chance(t, 5);
}

static void fz_op_connect(struct fz_thread *t, int fd, int file, __u32 id)
{
	struct rdma_ucm_connect cmd = {};

	cmd.id = id;
	fz_conn_param(t, &cmd.conn_param);
	if (fz_chance(t, 10)) {
		cmd.ece.vendor_id = (__u32)fz_rand(t);
		cmd.ece.attr_mod = (__u32)fz_rand(t);
	}
	fz_mangle(t, &cmd, sizeof(cmd));
	if (!fz_cmd(fd, RDMA_USER_CM_CMD_CONNECT, &cmd, sizeof(cmd), 0))
		fz_set_stage(file, id, FZ_CONNECTING);
}

static void fz_op_listen(struct fz_thread *t, int fd, int file, __u32 id)
{
	struct rdma_ucm_listen cmd = {};

	cmd.id = id;
	/* A full backlog drops requests silently: the peer retries. */
	cmd.backlog = fz_chance(t, 10) ? (__u32)fz_rand(t) : fz_below(t, 8);
	if (!fz_cmd(fd, RDMA_USER_CM_CMD_LISTEN, &cmd, sizeof(cmd), 0))
		fz_set_stage(file, id, FZ_LISTENING);
}

static void fz_op_accept(struct fz_thread *t, int fd, int file, __u32 id)
{
	struct rdma_ucm_accept cmd = {};

	cmd.uid = fz_rand(t);
	cmd.id = id;
	fz_conn_param(t, &cmd.conn_param);
	fz_mangle(t, &cmd, sizeof(cmd));
	if (!fz_cmd(fd, RDMA_USER_CM_CMD_ACCEPT, &cmd, sizeof(cmd), 0))
		fz_set_stage(file, id, FZ_CONNECTED);
}

static void fz_op_reject(struct fz_thread *t, int fd, int file, __u32 id)
{
	struct rdma_ucm_reject cmd = {};

	cmd.id = id;
	/* 0 (the default), consumer defined, or anything. */
	cmd.reason = (__u8)(fz_chance(t, 80) ? fz_below(t, 2) * 28 :
			    fz_rand(t));
	cmd.private_data_len = (__u8)fz_below(t, 80);
	if (!fz_cmd(fd, RDMA_USER_CM_CMD_REJECT, &cmd, sizeof(cmd), 0))
		fz_set_stage(file, id, FZ_DONE);
}

static void fz_op_simple(struct fz_thread *t, int fd, unsigned int op,
			 __u32 id)
{
	union {
		struct rdma_ucm_disconnect disc;
		struct rdma_ucm_notify notify;
	} cmd = {};
	__u16 len = sizeof(cmd.disc);

	if (op == RDMA_USER_CM_CMD_NOTIFY) {
		cmd.notify.id = id;
		cmd.notify.event = fz_below(t, 20);
		len = sizeof(cmd.notify);
	} else {
		cmd.disc.id = id;
	}
	fz_cmd(fd, op, &cmd, len, 0);
}

static void fz_op_query(struct fz_thread *t, int fd, unsigned int op,
			__u32 id)
{
	/* Room for the largest answer: QUERY_PATH with a few paths. */
	static __thread unsigned char resp[1024];
	struct rdma_ucm_query cmd = {};
	__u16 out = sizeof(resp);

	cmd.response = fz_ptr(resp);
	cmd.id = id;
	cmd.option = fz_below(t, 4);
	if (fz_chance(t, 10))
		out = (__u16)fz_below(t, 64);
	fz_cmd(fd, op, &cmd, sizeof(cmd), out);
}

static void fz_op_init_qp_attr(struct fz_thread *t, int fd, __u32 id)
{
	static __thread struct ib_uverbs_qp_attr resp;
	struct rdma_ucm_init_qp_attr cmd = {};

	cmd.response = fz_ptr(&resp);
	cmd.id = id;
	cmd.qp_state = fz_below(t, 8);
	fz_cmd(fd, RDMA_USER_CM_CMD_INIT_QP_ATTR, &cmd, sizeof(cmd),
	       sizeof(resp));
}

static void fz_op_set_option(struct fz_thread *t, int fd, __u32 id)
{
	struct ib_path_rec_data path[2] = {};
	struct rdma_ucm_set_option cmd = {};
	int val = (int)fz_below(t, 2);
	__u8 byte = (__u8)fz_rand(t);
	unsigned int i;

	/*
	 * An ACK timeout is 5 bits: both CMs take any byte, and the IB CM
	 * computes its MAD timeouts from it with 1 << (value - 8), which
	 * overflows past 39 and makes retries last (nearly) forever.
	 */
	if (fz_chance(t, 95))
		byte &= 0x1f;

	cmd.id = id;
	cmd.level = fz_chance(t, 80) ? RDMA_OPTION_ID : RDMA_OPTION_IB;
	if (cmd.level == RDMA_OPTION_ID) {
		cmd.optname = fz_below(t, 5);
		if (cmd.optname == RDMA_OPTION_ID_TOS ||
		    cmd.optname == RDMA_OPTION_ID_ACK_TIMEOUT) {
			cmd.optval = fz_ptr(&byte);
			cmd.optlen = sizeof(byte);
		} else {
			cmd.optval = fz_ptr(&val);
			cmd.optlen = sizeof(val);
		}
	} else {
		cmd.optname = fz_chance(t, 90) ? RDMA_OPTION_IB_PATH :
						 fz_below(t, 4);
		for (i = 0; i < 16; i++)
			path[0].path_rec[i] = (__u32)fz_rand(t);
		path[0].flags = fz_chance(t, 80) ? IB_PATH_GMP |
				IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL :
				(__u32)fz_rand(t);
		cmd.optval = fz_ptr(path);
		cmd.optlen = sizeof(path[0]) * (1 + fz_below(t, 2));
	}
	if (fz_chance(t, 5))
		cmd.optlen = fz_below(t, 300);
	fz_cmd(fd, RDMA_USER_CM_CMD_SET_OPTION, &cmd, sizeof(cmd), 0);
}

static void fz_op_get_option(int fd, __u32 id)
{
	struct rdma_ucm_set_option cmd = { .id = id };

	fz_cmd(fd, RDMA_USER_CM_CMD_GET_OPTION, &cmd, sizeof(cmd), 0);
}

static void fz_add_mc(int file, __u32 id)
{
	unsigned int i;

	pthread_mutex_lock(&fz_table_lock);
	for (i = 0; i < FZ_NMCS; i++) {
		if (!fz_mcs[i].used) {
			fz_mcs[i] = (struct fz_mc){ true, file, id };
			break;
		}
	}
	pthread_mutex_unlock(&fz_table_lock);
}

static void fz_op_join(struct fz_thread *t, int fd, int file, unsigned int op,
		       __u32 id)
{
	struct rdma_ucm_create_id_resp resp = {};
	union {
		struct rdma_ucm_join_mcast join;
		struct rdma_ucm_join_ip_mcast join_ip;
	} cmd = {};
	struct sockaddr_storage ss;
	__u16 len;

	if (op == RDMA_USER_CM_CMD_JOIN_MCAST) {
		cmd.join.uid = fz_rand(t);
		cmd.join.id = id;
		cmd.join.addr_size = fz_group(t, (struct sockaddr_storage *)
					      &cmd.join.addr);
		cmd.join.join_flags = (__u16)(fz_chance(t, 90) ?
					      fz_below(t, 2) : fz_below(t, 8));
		len = sizeof(cmd.join);
	} else {
		cmd.join_ip.uid = fz_rand(t);
		cmd.join_ip.id = id;
		memcpy(&cmd.join_ip.addr, &ss, fz_group(t, &ss));
		len = sizeof(cmd.join_ip);
	}
	fz_mangle(t, &cmd, len);
	/* The same offset in both: a pointer is never mangled. */
	cmd.join.response = fz_ptr(&resp);
	if (!fz_cmd(fd, op, &cmd, len, sizeof(resp))) {
		if (fz_diff)
			printf("  %lu   new mc %u\n", fz_step, resp.id);
		fz_add_mc(file, resp.id);
	}
}

static void fz_op_leave(struct fz_thread *t, int fd, int file)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id cmd = {};
	int k = -1;
	unsigned int i;

	pthread_mutex_lock(&fz_table_lock);
	for (i = 0; i < FZ_NMCS; i++)
		if (fz_mcs[i].used && fz_mcs[i].file == file)
			k = (int)i;
	if (k >= 0)
		cmd.id = fz_mcs[k].id;
	pthread_mutex_unlock(&fz_table_lock);
	if (k < 0)
		cmd.id = fz_below(t, 16);
	cmd.response = fz_ptr(&resp);
	if (!fz_cmd(fd, RDMA_USER_CM_CMD_LEAVE_MCAST, &cmd, sizeof(cmd),
		    sizeof(resp)) && k >= 0) {
		pthread_mutex_lock(&fz_table_lock);
		fz_mcs[k].used = false;
		pthread_mutex_unlock(&fz_table_lock);
	}
}

/* Move an id to the other file. */
static void fz_op_migrate(int file, __u32 id)
{
	struct rdma_ucm_migrate_resp resp = {};
	struct rdma_ucm_migrate_id cmd = {};
	int to = (file + 1) % FZ_NFILES;
	struct fz_id *e;

	cmd.response = fz_ptr(&resp);
	cmd.id = id;
	cmd.fd = (__u32)fz_fd(file);
	if (fz_cmd(fz_fd(to), RDMA_USER_CM_CMD_MIGRATE_ID, &cmd,
		   sizeof(cmd), sizeof(resp)))
		return;
	pthread_mutex_lock(&fz_table_lock);
	e = fz_find_id(file, id);
	if (e)
		e->file = to;
	pthread_mutex_unlock(&fz_table_lock);
}

/* Where an event leaves the id it is for. */
static void fz_event_stage(int file, const struct rdma_ucm_event_resp *ev)
{
	switch (ev->event) {
	case FZ_EV_ADDR_RESOLVED:
		fz_set_stage(file, ev->id, FZ_ADDR);
		break;
	case FZ_EV_ADDR_ERROR:
		fz_set_stage(file, ev->id, FZ_BOUND);
		break;
	case FZ_EV_ROUTE_RESOLVED:
		fz_set_stage(file, ev->id, FZ_ROUTE);
		break;
	case FZ_EV_ROUTE_ERROR:
		fz_set_stage(file, ev->id, FZ_ADDR);
		break;
	case FZ_EV_CONNECT_REQUEST:
		/* A new id, on the listener's file. */
		fz_add_id(file, ev->id, RDMA_PS_TCP, FZ_REQUEST);
		break;
	case FZ_EV_CONNECT_RESPONSE:
	case FZ_EV_ESTABLISHED:
		fz_set_stage(file, ev->id, FZ_CONNECTED);
		break;
	case FZ_EV_MULTICAST_JOIN:
	case FZ_EV_MULTICAST_ERROR:
		break;
	default:
		fz_set_stage(file, ev->id, FZ_DONE);
		break;
	}
}

/* --diff: an event taken while settling, and the file it came from. */
struct fz_diff_event {
	int file;
	struct rdma_ucm_event_resp resp;
};

/* By file and id only, and stable: one id's events keep their order. */
static int fz_diff_cmp(const void *a, const void *b)
{
	const struct fz_diff_event *x = a, *y = b;

	if (x->file != y->file)
		return x->file - y->file;
	if (x->resp.id != y->resp.id)
		return x->resp.id < y->resp.id ? -1 : 1;
	return 0;
}

/* Take every event queued on @file into @evs; returns the new count. */
static unsigned int fz_diff_take(int file, struct fz_diff_event *evs,
				 unsigned int n)
{
	struct rdma_ucm_get_event cmd = {};

	while (n < FZ_DIFF_EVENTS) {
		evs[n].file = file;
		memset(&evs[n].resp, 0, sizeof(evs[n].resp));
		cmd.response = fz_ptr(&evs[n].resp);
		if (fz_cmd(fz_fd(file), RDMA_USER_CM_CMD_GET_EVENT, &cmd,
			   sizeof(cmd), sizeof(evs[n].resp)))
			break;
		n++;
	}
	return n;
}

/*
 * --diff: collect the events of the last command: wait up to @first_ms
 * for one, then until the files stay quiet for fz_settle_ms; record them
 * in a fixed order and move the table on.
 */
static void fz_diff_settle(int first_ms)
{
	static struct fz_diff_event evs[FZ_DIFF_EVENTS];
	struct pollfd pfd[FZ_NFILES];
	unsigned int n = 0, i, seq[FZ_DIFF_EVENTS];
	int wait = first_ms, f;

	for (;;) {
		for (f = 0; f < FZ_NFILES; f++)
			pfd[f] = (struct pollfd){ .fd = fz_fd(f),
						  .events = POLLIN };
		if (poll(pfd, FZ_NFILES, wait) <= 0 || n == FZ_DIFF_EVENTS)
			break;
		for (f = 0; f < FZ_NFILES; f++)
			n = fz_diff_take(f, evs, n);
		wait = fz_settle_ms;
	}
	/* qsort is not stable: the arrival index breaks ties. */
	for (i = 0; i < n; i++)
		seq[i] = i;
	for (i = 1; i < n; i++) {
		struct fz_diff_event e = evs[i];
		unsigned int k = i, s = seq[i];

		while (k && fz_diff_cmp(&evs[k - 1], &e) > 0) {
			evs[k] = evs[k - 1];
			seq[k] = seq[k - 1];
			k--;
		}
		evs[k] = e;
		seq[k] = s;
	}
	for (i = 0; i < n; i++) {
		const struct rdma_ucm_event_resp *r = &evs[i].resp;

		printf("  %lu   event file %d id %u %u status %d\n", fz_step,
		       evs[i].file, r->id, r->event, (int)r->status);
		fz_count(&fz_events[r->event < FZ_NEVENTS ? r->event :
				    FZ_NEVENTS - 1]);
		fz_event_stage(evs[i].file, r);
	}
}

/* Commands that can set off events, here or at a peer. */
static bool fz_diff_async(unsigned int op)
{
	switch (op) {
	case RDMA_USER_CM_CMD_RESOLVE_IP:
	case RDMA_USER_CM_CMD_RESOLVE_ADDR:
	case RDMA_USER_CM_CMD_RESOLVE_ROUTE:
	case RDMA_USER_CM_CMD_CONNECT:
	case RDMA_USER_CM_CMD_ACCEPT:
	case RDMA_USER_CM_CMD_REJECT:
	case RDMA_USER_CM_CMD_DISCONNECT:
	case RDMA_USER_CM_CMD_JOIN_IP_MCAST:
	case RDMA_USER_CM_CMD_JOIN_MCAST:
		return true;
	default:
		return false;
	}
}

/*
 * An ACCEPT refused after the state check rejects the peer all the same
 * (as in-box): on an id that heard a CONNECT_REQUEST or a CONNECT_RESPONSE
 * a failed ACCEPT can set off the peer's REJECTED.
 */
static bool fz_diff_rejects_peer(unsigned int op, const struct fz_target *tg)
{
	return op == RDMA_USER_CM_CMD_ACCEPT &&
	       (tg->stage == FZ_REQUEST || tg->stage == FZ_CONNECTED);
}

/* Does destroying an id at @stage tell its peer (a REJ, a DREQ)? */
static bool fz_stage_has_peer(enum fz_stage stage)
{
	return stage == FZ_CONNECTING || stage == FZ_REQUEST ||
	       stage == FZ_CONNECTED;
}

/* Does closing @file destroy an id whose peer hears of it? */
static bool fz_file_has_peer(int file)
{
	bool ret = false;
	unsigned int i;

	pthread_mutex_lock(&fz_table_lock);
	for (i = 0; i < FZ_NIDS; i++)
		if (fz_ids[i].used && fz_ids[i].file == file &&
		    fz_stage_has_peer(fz_ids[i].stage))
			ret = true;
	pthread_mutex_unlock(&fz_table_lock);
	return ret;
}

/* Wait a little for an event on @file and take it, without blocking. */
static void fz_op_get_event(struct fz_thread *t, int fd, int file)
{
	struct rdma_ucm_event_resp resp;
	struct rdma_ucm_get_event cmd = {};
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, (int)fz_below(t, 6)) <= 0)
		return;
	memset(&resp, 0, sizeof(resp));
	cmd.response = fz_ptr(&resp);
	if (fz_cmd(fd, RDMA_USER_CM_CMD_GET_EVENT, &cmd, sizeof(cmd),
		   sizeof(resp)))
		return;
	fz_count(&fz_events[resp.event < FZ_NEVENTS ? resp.event :
			    FZ_NEVENTS - 1]);
	if (fz_verbose)
		fprintf(stderr, "file %d id %u event %u status %d\n", file,
			resp.id, resp.event, (int)resp.status);
	fz_event_stage(file, &resp);
}

static int fz_open(void)
{
	return open(FZ_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

static int fz_fd(int file)
{
	return __atomic_load_n(&fz_files[file].fd, __ATOMIC_SEQ_CST);
}

/*
 * Close a file with whatever ids it holds and open another: rdma_ucm
 * destroys them all. The table forgets them.
 */
static void fz_op_close(int file)
{
	unsigned long start;
	unsigned int i;
	int old, fd;

	fz_count(&fz_issued[FZ_OP_CLOSE]);
	fd = fz_open();
	if (fd < 0)
		return;
	old = __atomic_exchange_n(&fz_files[file].fd, fd, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&fz_table_lock);
	for (i = 0; i < FZ_NIDS; i++)
		if (fz_ids[i].file == file)
			fz_ids[i].used = false;
	for (i = 0; i < FZ_NMCS; i++)
		if (fz_mcs[i].file == file)
			fz_mcs[i].used = false;
	pthread_mutex_unlock(&fz_table_lock);
	start = fz_now_us();
	close(old);
	fz_time(FZ_OP_CLOSE, fz_now_us() - start);
	fz_count(&fz_ok[FZ_OP_CLOSE]);
}

static void fz_dispatch(struct fz_thread *t, unsigned int op,
			const struct fz_target *tg)
{
	int fd = fz_fd(tg->file), file = tg->file;

	if (fd < 0)
		return;
	fz_cur_id = tg->id;
	fz_cur_file = file;
	switch (op) {
	case RDMA_USER_CM_CMD_CREATE_ID:
		fz_op_create(t, fd, file);
		break;
	case RDMA_USER_CM_CMD_DESTROY_ID:
		fz_op_destroy(fd, file, tg->id);
		break;
	case RDMA_USER_CM_CMD_BIND_IP:
		fz_op_bind_ip(t, fd, file, tg->id, tg->ps);
		break;
	case RDMA_USER_CM_CMD_RESOLVE_IP:
		fz_op_resolve_ip(t, fd, tg->id);
		break;
	case RDMA_USER_CM_CMD_RESOLVE_ROUTE:
		fz_op_resolve_route(t, fd, file, tg->id);
		break;
	case RDMA_USER_CM_CMD_QUERY_ROUTE:
	case RDMA_USER_CM_CMD_QUERY:
		fz_op_query(t, fd, op, tg->id);
		break;
	case RDMA_USER_CM_CMD_CONNECT:
		fz_op_connect(t, fd, file, tg->id);
		break;
	case RDMA_USER_CM_CMD_LISTEN:
		fz_op_listen(t, fd, file, tg->id);
		break;
	case RDMA_USER_CM_CMD_ACCEPT:
		fz_op_accept(t, fd, file, tg->id);
		break;
	case RDMA_USER_CM_CMD_REJECT:
		fz_op_reject(t, fd, file, tg->id);
		break;
	case RDMA_USER_CM_CMD_DISCONNECT:
	case RDMA_USER_CM_CMD_NOTIFY:
		fz_op_simple(t, fd, op, tg->id);
		break;
	case RDMA_USER_CM_CMD_INIT_QP_ATTR:
		fz_op_init_qp_attr(t, fd, tg->id);
		break;
	case RDMA_USER_CM_CMD_GET_EVENT:
		fz_op_get_event(t, fd, file);
		break;
	case RDMA_USER_CM_CMD_GET_OPTION:
		fz_op_get_option(fd, tg->id);
		break;
	case RDMA_USER_CM_CMD_SET_OPTION:
		fz_op_set_option(t, fd, tg->id);
		break;
	case RDMA_USER_CM_CMD_JOIN_IP_MCAST:
	case RDMA_USER_CM_CMD_JOIN_MCAST:
		fz_op_join(t, fd, file, op, tg->id);
		break;
	case RDMA_USER_CM_CMD_LEAVE_MCAST:
		fz_op_leave(t, fd, file);
		break;
	case RDMA_USER_CM_CMD_MIGRATE_ID:
		fz_op_migrate(file, tg->id);
		break;
	case RDMA_USER_CM_CMD_BIND:
		fz_op_bind(t, fd, file, tg->id, tg->ps);
		break;
	case RDMA_USER_CM_CMD_RESOLVE_ADDR:
		fz_op_resolve_addr(t, fd, file, tg->id, tg->ps);
		break;
	}
}

static bool fz_take_op(void)
{
	unsigned long left = __atomic_load_n(&fz_ops_left, __ATOMIC_RELAXED);

	do {
		if (!left)
			return false;
	} while (!__atomic_compare_exchange_n(&fz_ops_left, &left, left - 1,
					      false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	/* A sign of life in long runs, on standard error. */
	if (left % 10000 == 0)
		fprintf(stderr, "ucma_fuzz: %lu operations to go\n", left);
	return true;
}

/*
 * --diff: one step: the section header every FZ_DIFF_SECTION steps, the
 * command (events are only taken while settling), then its events.
 */
static void fz_diff_step(struct fz_thread *t, unsigned int op,
			 const struct fz_target *tg)
{
	unsigned long ok = fz_ok[op];
	/* A destroy the peer hears of: wait for the peer's event too. */
	bool tells = op == FZ_OP_CLOSE ? fz_file_has_peer(tg->file) :
		     op == RDMA_USER_CM_CMD_DESTROY_ID &&
		     fz_stage_has_peer(tg->stage);

	if (fz_step % FZ_DIFF_SECTION == 0)
		printf("== fuzz/steps-%05lu\n", fz_step);
	if (op == FZ_OP_CLOSE) {
		printf("  %lu close_file file %d\n", fz_step, tg->file);
		fz_op_close(tg->file);
	} else if (op != RDMA_USER_CM_CMD_GET_EVENT) {
		fz_dispatch(t, op, tg);
	}
	if (fz_ok[op] != ok ? fz_diff_async(op) || tells :
			      fz_diff_rejects_peer(op, tg))
		fz_diff_settle(FZ_FIRST_MS);
	else
		fz_diff_settle(0);
	fz_step++;
}

static void *fz_thread_main(void *arg)
{
	struct fz_thread *t = arg;
	struct fz_target tg;
	unsigned int op;

	while (fz_take_op()) {
		op = fz_choose(t, &tg);
		if (fz_diff)
			fz_diff_step(t, op, &tg);
		else if (op == FZ_OP_CLOSE)
			fz_op_close(tg.file);
		else
			fz_dispatch(t, op, &tg);
		fz_unbusy(&tg);
	}
	return NULL;
}

static void fz_report(unsigned long long seed, unsigned long ops,
		      unsigned int threads, double secs)
{
	unsigned long issued = 0, ok = 0, events = 0;
	unsigned int op, e, top;

	printf("  %-14s %8s %8s %10s %10s %s\n", "command", "issued", "ok",
	       "total ms", "max ms", "most frequent errno");
	for (op = 0; op < FZ_NOPS; op++) {
		issued += fz_issued[op];
		ok += fz_ok[op];
		for (top = 0, e = 1; e < FZ_NERRNO; e++)
			if (fz_errnos[op][e] > fz_errnos[op][top])
				top = e;
		printf("  %-14s %8lu %8lu %10lu %10lu", fz_op_names[op],
		       fz_issued[op], fz_ok[op], fz_usecs[op] / 1000,
		       fz_max_usecs[op] / 1000);
		if (fz_errnos[op][top])
			printf(" %s (%lu)", strerrorname_np(top) ?: "?",
			       fz_errnos[op][top]);
		printf("\n");
	}
	for (op = 0; op < FZ_NEVENTS; op++) {
		if (!fz_events[op])
			continue;
		events += fz_events[op];
		printf("  event %-8u %8lu\n", op, fz_events[op]);
	}
	printf("ucma_fuzz: seed %llu, %lu operations in %u threads: ",
	       seed, ops, threads);
	printf("%lu commands, %lu ok, %lu events, %.1f s\n", issued, ok,
	       events, secs);
}

static void fz_usage(void)
{
	fprintf(stderr,
		"usage: ucma_fuzz [--seed N] [--ops N] [--threads N] [--verbose] [--reject-any] [--diff] [--settle-ms N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct fz_thread threads[FZ_MAX_THREADS] = {};
	unsigned long long seed = (unsigned long long)time(NULL);
	unsigned long ops = 10000;
	unsigned int nthreads = 4, i;
	struct timespec t0, t1;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--verbose")) {
			fz_verbose = true;
			continue;
		}
		if (!strcmp(argv[a], "--reject-any")) {
			fz_reject_any = true;
			continue;
		}
		if (!strcmp(argv[a], "--diff")) {
			fz_diff = true;
			continue;
		}
		if (a + 1 >= argc)
			fz_usage();
		if (!strcmp(argv[a], "--seed"))
			seed = strtoull(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--ops"))
			ops = strtoul(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--threads"))
			nthreads = (unsigned int)strtoul(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--settle-ms"))
			fz_settle_ms = (int)strtoul(argv[++a], NULL, 0);
		else
			fz_usage();
	}
	if (!nthreads || nthreads > FZ_MAX_THREADS)
		fz_usage();
	/* One thread, and the statistics (timings) off the record. */
	if (fz_diff) {
		nthreads = 1;
		setvbuf(stdout, NULL, _IOLBF, 0);
	}

	printf("ucma_fuzz: seed %llu, ops %lu, threads %u\n", seed, ops,
	       nthreads);
	fflush(stdout);
	for (i = 0; i < FZ_NFILES; i++) {
		fz_files[i].fd = fz_open();
		if (fz_files[i].fd < 0) {
			perror(FZ_DEV);
			return 1;
		}
	}

	fz_ops_left = ops;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < nthreads; i++) {
		threads[i].n = i;
		/* Never zero, different for every thread. */
		threads[i].rng = (seed + 1) * 0x9e3779b97f4a7c15ULL ^
				 ((__u64)(i + 1) << 32) ^ (i + 1);
		if (!threads[i].rng)
			threads[i].rng = 1;
		if (pthread_create(&threads[i].thread, NULL, fz_thread_main,
				   &threads[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(threads[i].thread, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	/* rdma_ucm destroys what is left. */
	for (i = 0; i < FZ_NFILES; i++)
		if (fz_files[i].fd >= 0)
			close(fz_files[i].fd);
	if (fz_diff) {
		fflush(stdout);
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			return 1;
	}
	fz_report(seed, ops, nthreads, (double)(t1.tv_sec - t0.tv_sec) +
		  (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
