// SPDX-License-Identifier: GPL-2.0
/*
 * cm_diff - the scenarios of the differential harness, from user space
 * through librdmacm and rdma_ucm.
 *
 * Each scenario drives a few ids through the calls its table row names
 * and prints what a consumer sees: every call's return (0 or the errno's
 * name) and every event's type, status, private data and the fields a
 * consumer reads. The same binary runs once on the in-box rdma_cm and
 * once on ours; tests/diff/compare tells the two records apart. Only
 * what is legitimately random is normalised: ephemeral ports print as
 * "eph", a QP number as "peer" when it is the peer QP's own, timings
 * are never printed.
 *
 * Every id has its own event channel (a new connection's id is migrated
 * to one), and the scenario waits on one id at a time in a fixed order,
 * so the record does not depend on which of two ids heard first.
 *
 *   cm_diff [--list] [--only PREFIX[,PREFIX...]] RXE4 RXE6 SIW4 SIW6
 *
 * Exit 0 when every scenario ran (whatever it recorded), 2 when a set-up
 * step the harness itself needs failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Every scenario gets its own ports: PORT_BASE + 4 * its number + 0..3. */
#define PORT_BASE	20000
#define PORT_END	29999
#define EV_MS		5000	/* an event that should come */
#define QUIET_MS	300	/* an event that should not come */
#define RESOLVE_MS	2000
#define SCEN_S		120	/* the longest a scenario may take, in s */
#define FAKE_QPN	0x1234	/* connect without a QP: RoCE only */
#define PDATA_SEED	0x40

enum dev { RXE, SIW, NDEVS };
enum fam { V4, V6, NFAMS };

static const char *const dev_name[NDEVS] = { "rxe", "siw" };
static const char *const fam_name[NFAMS] = { "4", "6" };
static const char *dev_addr[NDEVS][NFAMS];

static const char *only;
static bool list_only;
static unsigned int nr_scen;
static unsigned short port0;	/* this scenario's first port */

struct ep {
	char name[16];
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	bool has_qp;
	unsigned int peer_qpn;	/* the QP number the peer should report */
};

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* One line of the record. */
static void rec(const char *fmt, ...)
{
	va_list ap;

	fputs("  ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const char *err_name(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

/* Record a call's outcome; returns it. */
static int call(const char *who, const char *what, int ret)
{
	rec("%s %s = %s", who, what, ret ? err_name(errno) : "0");
	return ret;
}

static const char *port_str(unsigned short port, char *buf)
{
	if (!port)
		return "0";
	if (port >= PORT_BASE && port <= PORT_END)
		snprintf(buf, 16, "p%u", port - port0);
	else if (port < 1024)
		snprintf(buf, 16, "%u", port);
	else
		return "eph";
	return buf;
}

static void addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN], p[16];

	if (!sa || sa->sa_family == AF_UNSPEC) {
		snprintf(buf, len, "none");
		return;
	}
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%s", a,
			 port_str(ntohs(in->sin_port), p));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%s", a,
			 port_str(ntohs(in6->sin6_port), p));
	} else {
		snprintf(buf, len, "family%u", sa->sa_family);
	}
}

/* The id's addresses, port space and device, as a consumer reads them. */
static void rec_id(const struct ep *e)
{
	char src[80], dst[80];
	struct rdma_cm_id *id = e->id;

	addr_str(rdma_get_local_addr(id), src, sizeof(src));
	addr_str(rdma_get_peer_addr(id), dst, sizeof(dst));
	rec("%s id src=%s dst=%s ps=0x%x qpt=%d dev=%s port=%u", e->name,
	    src, dst, id->ps, id->qp_type,
	    id->verbs ? ibv_get_device_name(id->verbs->device) : "none",
	    id->port_num);
}

static void hex(char *buf, const void *data, unsigned int len)
{
	const unsigned char *p = data;
	unsigned int i, nz = len;

	/* Trailing zeros (IB's fixed-size padding) are only counted. */
	while (nz && !p[nz - 1])
		nz--;
	for (i = 0; i < nz; i++)
		sprintf(buf + 2 * i, "%02x", p[i]);
	sprintf(buf + 2 * nz, "+%uz", len - nz);
}

static void fill(void *buf, unsigned int len, unsigned int seed)
{
	unsigned char *p = buf;
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed + i * 7) | 1;	/* no zero */
}

static void rec_conn(const struct ep *e, const struct rdma_conn_param *c)
{
	char q[16];

	if (e->peer_qpn && c->qp_num == e->peer_qpn)
		snprintf(q, sizeof(q), "peer");
	else
		snprintf(q, sizeof(q), "0x%x", c->qp_num);
	rec("%s   conn resp=%u init=%u flow=%u retry=%u rnr=%u srq=%u qpn=%s",
	    e->name, c->responder_resources, c->initiator_depth,
	    c->flow_control, c->retry_count, c->rnr_retry_count, c->srq, q);
}

static void rec_ud(const struct ep *e, const struct rdma_ud_param *u)
{
	char gid[INET6_ADDRSTRLEN];
	const struct ibv_ah_attr *ah = &u->ah_attr;
	char q[16];

	inet_ntop(AF_INET6, ah->grh.dgid.raw, gid, sizeof(gid));
	if (e->peer_qpn && u->qp_num == e->peer_qpn)
		snprintf(q, sizeof(q), "peer");
	else
		snprintf(q, sizeof(q), "0x%x", u->qp_num);
	rec("%s   ud qpn=%s qkey=0x%x dlid=%u sl=%u port=%u", e->name, q,
	    u->qkey, ah->dlid, ah->sl, ah->port_num);
	/* RoCEv2's flow label hashes the ports, one of them ephemeral */
	rec("%s   ah global=%u dgid=%s hop=%u tclass=%u flow=%s", e->name,
	    ah->is_global, gid, ah->grh.hop_limit, ah->grh.traffic_class,
	    ah->grh.flow_label ? "set" : "0");
}

static bool is_conn_event(int type)
{
	return type == RDMA_CM_EVENT_CONNECT_REQUEST ||
	       type == RDMA_CM_EVENT_CONNECT_RESPONSE ||
	       type == RDMA_CM_EVENT_ESTABLISHED;
}

static bool is_ud(const struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN)
		return true;
	return ev->id->qp_type == IBV_QPT_UD &&
	       (ev->event == RDMA_CM_EVENT_ESTABLISHED ||
		ev->event == RDMA_CM_EVENT_CONNECT_REQUEST);
}

/*
 * The next event on @e within @ms, recorded; "none" if there is none.
 * A CONNECT_REQUEST's new id is given back in @newid (the caller owns
 * it), others are acked here. Returns the event type or -1.
 */
static int wait_ev(struct ep *e, int ms, struct rdma_cm_id **newid)
{
	struct pollfd pfd = { .fd = e->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	char pd[2 * 256 + 16] = "-";
	int type;

	if (poll(&pfd, 1, ms) <= 0) {
		rec("%s ev none", e->name);
		return -1;
	}
	if (rdma_get_cm_event(e->ch, &ev))
		die("rdma_get_cm_event");
	type = ev->event;
	if (is_ud(ev)) {
		if (ev->param.ud.private_data)
			hex(pd, ev->param.ud.private_data,
			    ev->param.ud.private_data_len);
	} else if (ev->param.conn.private_data) {
		hex(pd, ev->param.conn.private_data,
		    ev->param.conn.private_data_len);
	}
	rec("%s ev %s status=%d pdata=%s", e->name, rdma_event_str(type),
	    ev->status, pd);
	if (is_ud(ev))
		rec_ud(e, &ev->param.ud);
	else if (is_conn_event(type))
		rec_conn(e, &ev->param.conn);
	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		struct ep tmp = { .id = ev->id };

		snprintf(tmp.name, sizeof(tmp.name), "%.8s+", e->name);
		rec_id(&tmp);
		if (newid)
			*newid = ev->id;
		else
			rdma_destroy_id(ev->id);
	} else if (type == RDMA_CM_EVENT_ADDR_RESOLVED ||
		   type == RDMA_CM_EVENT_ROUTE_RESOLVED ||
		   type == RDMA_CM_EVENT_ESTABLISHED) {
		rec_id(e);
	}
	rdma_ack_cm_event(ev);
	return type;
}

static struct ep *ep_new(const char *name, enum rdma_port_space ps)
{
	struct ep *e = calloc(1, sizeof(*e));

	if (!e)
		die("calloc");
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->ch = rdma_create_event_channel();
	if (!e->ch)
		die("rdma_create_event_channel");
	if (rdma_create_id(e->ch, &e->id, e, ps))
		die("rdma_create_id");
	return e;
}

/* Wrap a CONNECT_REQUEST's id, on a channel of its own. */
static struct ep *ep_adopt(const char *name, struct rdma_cm_id *id)
{
	struct ep *e = calloc(1, sizeof(*e));

	if (!e)
		die("calloc");
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->ch = rdma_create_event_channel();
	if (!e->ch)
		die("rdma_create_event_channel");
	if (rdma_migrate_id(id, e->ch))
		die("rdma_migrate_id");
	e->id = id;
	return e;
}

/* A real QP on the id's device: iWARP needs one to connect. */
static int ep_qp(struct ep *e, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};

	if (!e->id->verbs)
		return -1;
	e->pd = ibv_alloc_pd(e->id->verbs);
	if (!e->pd)
		die("ibv_alloc_pd");
	e->cq = ibv_create_cq(e->id->verbs, 8, NULL, NULL, 0);
	if (!e->cq)
		die("ibv_create_cq");
	attr.send_cq = e->cq;
	attr.recv_cq = e->cq;
	if (rdma_create_qp(e->id, e->pd, &attr))
		die("rdma_create_qp");
	e->has_qp = true;
	return 0;
}

static void ep_free(struct ep *e)
{
	if (!e)
		return;
	if (e->has_qp)
		rdma_destroy_qp(e->id);
	if (e->id && rdma_destroy_id(e->id))
		die("rdma_destroy_id");
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	rdma_destroy_event_channel(e->ch);
	free(e);
}

/* @ss := @text with @port; "any4", "any6" and "lo4" name the obvious. */
static void mkaddr(struct sockaddr_storage *ss, const char *text,
		   unsigned short port)
{
	struct sockaddr_in *in = (void *)ss;
	struct sockaddr_in6 *in6 = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	if (!strcmp(text, "any4"))
		text = "0.0.0.0";
	else if (!strcmp(text, "any6"))
		text = "::";
	else if (!strcmp(text, "lo4"))
		text = "127.0.0.1";
	else if (!strcmp(text, "lo6"))
		text = "::1";
	if (inet_pton(AF_INET, text, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
	} else if (inet_pton(AF_INET6, text, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
	} else {
		fprintf(stderr, "bad address %s\n", text);
		exit(2);
	}
}

/* @name starts with one of the comma-separated prefixes of --only. */
static bool selected(const char *name)
{
	const char *p = only, *end;

	if (!only)
		return true;
	for (; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ',');
		if (end > p && !strncmp(name, p, end - p))
			return true;
	}
	return false;
}

/*
 * Start scenario @fmt...: true in a child process that runs it and ends
 * in done(); false in the parent, which waits for the child and records
 * its death if it did not end well, and when the scenario is not
 * selected. So one scenario that crashes librdmacm costs that scenario
 * only, and every scenario starts with librdmacm and the ids fresh.
 */
static bool scen(const char *fmt, ...)
{
	char name[160];
	va_list ap;
	pid_t pid;
	int st;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (!selected(name))
		return false;
	port0 = PORT_BASE + 4 * (nr_scen % 2000);
	nr_scen++;
	printf("== %s\n", name);
	fflush(stdout);
	if (list_only)
		return false;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		alarm(SCEN_S);	/* a scenario that hangs dies of SIGALRM */
		return true;
	}
	if (waitpid(pid, &st, 0) < 0)
		die("waitpid");
	if (WIFSIGNALED(st))
		rec("died of signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st))
		rec("exit %d", WEXITSTATUS(st));
	return false;
}

static void done(void)
{
	fflush(stdout);
	_exit(0);
}

/* ---- building blocks ---------------------------------------------- */

static int bind_to(struct ep *e, const char *addr, unsigned short port)
{
	struct sockaddr_storage ss;
	char what[96];

	mkaddr(&ss, addr, port);
	snprintf(what, sizeof(what), "bind(%s,%s)", addr,
		 port ? (port < 1024 ? "low" : "p") : "0");
	return call(e->name, what, rdma_bind_addr(e->id, (void *)&ss));
}

static int resolve(struct ep *e, const char *src, const char *dst,
		   unsigned short port, int ms)
{
	struct sockaddr_storage s, d;
	char what[96];

	mkaddr(&d, dst, port);
	if (src)
		mkaddr(&s, src, 0);
	snprintf(what, sizeof(what), "resolve_addr(%s,%s,%d)",
		 src ? src : "-", dst, ms);
	return call(e->name, what, rdma_resolve_addr(e->id,
			src ? (void *)&s : NULL, (void *)&d, ms));
}

/* Resolve address and route to @dst:@port; true when both resolved. */
static bool reach(struct ep *e, const char *dst, unsigned short port)
{
	if (resolve(e, NULL, dst, port, RESOLVE_MS) ||
	    wait_ev(e, EV_MS, NULL) != RDMA_CM_EVENT_ADDR_RESOLVED)
		return false;
	if (call(e->name, "resolve_route", rdma_resolve_route(e->id,
							      RESOLVE_MS)) ||
	    wait_ev(e, EV_MS, NULL) != RDMA_CM_EVENT_ROUTE_RESOLVED)
		return false;
	return true;
}

static struct ep *listener(const char *addr, unsigned short port,
			   enum rdma_port_space ps, int backlog)
{
	struct ep *l = ep_new("L", ps);

	if (bind_to(l, addr, port) ||
	    call(l->name, "listen", rdma_listen(l->id, backlog))) {
		ep_free(l);
		return NULL;
	}
	return l;
}

static int connect_len(struct ep *c, unsigned int len)
{
	unsigned char pd[256];
	struct rdma_conn_param p = {
		.responder_resources = 2, .initiator_depth = 3,
		.retry_count = 6, .rnr_retry_count = 5,
		.private_data = len ? pd : NULL, .private_data_len = len,
		.qp_num = FAKE_QPN,
	};
	char what[32];

	fill(pd, sizeof(pd), PDATA_SEED);
	snprintf(what, sizeof(what), "connect(pdata %u)", len);
	return call(c->name, what, rdma_connect(c->id, &p));
}

static int accept_len(struct ep *s, unsigned int len)
{
	unsigned char pd[256];
	struct rdma_conn_param p = {
		.responder_resources = 1, .initiator_depth = 2,
		.rnr_retry_count = 4,
		.private_data = len ? pd : NULL, .private_data_len = len,
		.qp_num = FAKE_QPN,
	};
	char what[32];

	fill(pd, sizeof(pd), PDATA_SEED + 0x20);
	snprintf(what, sizeof(what), "accept(pdata %u)", len);
	return call(s->name, what, rdma_accept(s->id, &p));
}

static int reject_len(struct ep *s, unsigned int len)
{
	unsigned char pd[256];
	char what[32];

	fill(pd, sizeof(pd), PDATA_SEED + 0x10);
	snprintf(what, sizeof(what), "reject(pdata %u)", len);
	return call(s->name, what, rdma_reject(s->id, len ? pd : NULL, len));
}

/*
 * A client reaches @d/@f's address on port p0 with @len bytes of private
 * data; the listener's new id is returned in *@srvp (NULL if none came).
 * Both have QPs, the peers' QP numbers noted for the record.
 */
static struct ep *start_conn(struct ep *l, enum dev d, enum fam f,
			     unsigned int len, struct ep **srvp)
{
	struct rdma_cm_id *nid = NULL;
	struct ep *c = ep_new("C", RDMA_PS_TCP), *s;

	*srvp = NULL;
	if (!reach(c, dev_addr[d][f], port0))
		return c;
	ep_qp(c, IBV_QPT_RC);
	/* The request carries the client's QP number */
	l->peer_qpn = c->id->qp->qp_num;
	if (connect_len(c, len))
		return c;
	if (wait_ev(l, EV_MS, &nid) != RDMA_CM_EVENT_CONNECT_REQUEST)
		return c;
	s = ep_adopt("S", nid);
	ep_qp(s, IBV_QPT_RC);
	s->peer_qpn = c->id->qp->qp_num;
	c->peer_qpn = s->id->qp->qp_num;
	*srvp = s;
	return c;
}

/* A connection, both sides ESTABLISHED; false if it did not get there. */
static bool connected(struct ep *l, enum dev d, enum fam f, struct ep **cp,
		      struct ep **sp)
{
	*cp = start_conn(l, d, f, 8, sp);
	if (!*sp || accept_len(*sp, 8))
		return false;
	if (wait_ev(*cp, EV_MS, NULL) != RDMA_CM_EVENT_ESTABLISHED)
		return false;
	return wait_ev(*sp, EV_MS, NULL) == RDMA_CM_EVENT_ESTABLISHED;
}

/* ---- families ------------------------------------------------------ */

/* The states an id is brought to for the API x state matrix. */
enum mstate { M_IDLE, M_BOUND, M_BOUND_ANY, M_ADDR, M_ROUTE, M_LISTEN,
	      M_LISTEN_ANY, M_ERRADDR, NMSTATES };
static const char *const mstate_name[NMSTATES] = {
	"idle", "bound", "bound_any", "addr", "route", "listen",
	"listen_any", "addr_error",
};

enum mcall { C_BIND, C_BIND_ANY, C_RESOLVE, C_RESOLVE_ROUTE, C_LISTEN,
	     C_CONNECT, C_ACCEPT, C_REJECT, C_DISCONNECT, C_JOIN, C_LEAVE,
	     C_TOS, C_REUSE, C_AFONLY, C_ACK_TIMEOUT, C_INIT_QP_ATTR, C_NOTIFY,
	     NMCALLS };
static const char *const mcall_name[NMCALLS] = {
	"bind", "bind_any", "resolve_addr", "resolve_route", "listen",
	"connect", "accept", "reject", "disconnect", "join", "leave", "tos",
	"reuseaddr", "afonly", "ack_timeout", "init_qp_attr", "notify",
};

/* An address on no device's subnet that the guest routes nowhere. */
static const char *const unroutable[NFAMS] = { "192.0.2.1", "2001:db8::1" };

static bool to_state(struct ep *e, enum mstate st, enum dev d, enum fam f)
{
	const char *any = f == V4 ? "any4" : "any6";

	switch (st) {
	case M_IDLE:
		return true;
	case M_BOUND:
		return !bind_to(e, dev_addr[d][f], port0);
	case M_BOUND_ANY:
		return !bind_to(e, any, port0);
	case M_ADDR:
		return !resolve(e, NULL, dev_addr[d][f], port0 + 1,
				RESOLVE_MS) &&
		       wait_ev(e, EV_MS, NULL) == RDMA_CM_EVENT_ADDR_RESOLVED;
	case M_ROUTE:
		return reach(e, dev_addr[d][f], port0 + 1);
	case M_LISTEN:
		return !bind_to(e, dev_addr[d][f], port0) &&
		       !call(e->name, "listen", rdma_listen(e->id, 2));
	case M_LISTEN_ANY:
		return !bind_to(e, any, port0) &&
		       !call(e->name, "listen", rdma_listen(e->id, 2));
	case M_ERRADDR:
		return !resolve(e, dev_addr[d][f], unroutable[f], port0 + 1,
				RESOLVE_MS) &&
		       wait_ev(e, EV_MS, NULL) >= 0;
	default:
		return false;
	}
}

static int m_join(struct ep *e, enum fam f)
{
	struct sockaddr_storage g;

	mkaddr(&g, f == V4 ? "239.1.1.7" : "ff0e::107", 0);
	return call(e->name, "join", rdma_join_multicast(e->id,
							 (void *)&g, e));
}

static int m_leave(struct ep *e, enum fam f)
{
	struct sockaddr_storage g;

	mkaddr(&g, f == V4 ? "239.1.1.7" : "ff0e::107", 0);
	return call(e->name, "leave", rdma_leave_multicast(e->id,
							   (void *)&g));
}

/* Do @c on @e; true when an event may follow (it succeeded, async). */
static bool do_call(struct ep *e, enum mcall c, enum dev d, enum fam f)
{
	const char *any = f == V4 ? "any4" : "any6";
	struct ibv_qp_attr qa;
	int one = 1, mask, ret;
	unsigned char tos = 32;
	unsigned char ack = 14;

	/*
	 * librdmacm reads the id's device before it issues these: on an id
	 * without one it would crash, so the CM is never asked.
	 */
	if (!e->id->verbs && (c == C_CONNECT || c == C_ACCEPT ||
			      c == C_DISCONNECT || c == C_RESOLVE_ROUTE)) {
		rec("%s %s not issued: no device", e->name, mcall_name[c]);
		return false;
	}
	switch (c) {
	case C_BIND:
		return bind_to(e, dev_addr[d][f], port0 + 2), false;
	case C_BIND_ANY:
		return bind_to(e, any, 0), false;
	case C_RESOLVE:
		return !resolve(e, NULL, dev_addr[d][f], port0 + 1,
				RESOLVE_MS);
	case C_RESOLVE_ROUTE:
		return !call(e->name, "resolve_route",
			     rdma_resolve_route(e->id, RESOLVE_MS));
	case C_LISTEN:
		return call(e->name, "listen", rdma_listen(e->id, 1)), false;
	case C_CONNECT:
		return !connect_len(e, 0);
	case C_ACCEPT:
		return !accept_len(e, 0);
	case C_REJECT:
		return reject_len(e, 0), false;
	case C_DISCONNECT:
		return !call(e->name, "disconnect", rdma_disconnect(e->id));
	case C_JOIN:
		return !m_join(e, f);
	case C_LEAVE:
		return m_leave(e, f), false;
	case C_TOS:
		call(e->name, "set_option(tos)",
		     rdma_set_option(e->id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
				     &tos, sizeof(tos)));
		return false;
	case C_REUSE:
		call(e->name, "set_option(reuseaddr)",
		     rdma_set_option(e->id, RDMA_OPTION_ID,
				     RDMA_OPTION_ID_REUSEADDR, &one,
				     sizeof(one)));
		return false;
	case C_AFONLY:
		call(e->name, "set_option(afonly)",
		     rdma_set_option(e->id, RDMA_OPTION_ID,
				     RDMA_OPTION_ID_AFONLY, &one, sizeof(one)));
		return false;
	case C_ACK_TIMEOUT:
		call(e->name, "set_option(ack_timeout)",
		     rdma_set_option(e->id, RDMA_OPTION_ID,
				     RDMA_OPTION_ID_ACK_TIMEOUT, &ack,
				     sizeof(ack)));
		return false;
	case C_INIT_QP_ATTR:
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_INIT;
		ret = rdma_init_qp_attr(e->id, &qa, &mask);
		call(e->name, "init_qp_attr(INIT)", ret);
		if (!ret)
			rec("%s   qp_attr mask=0x%x pkey=%u port=%u access=0x%x",
			    e->name, mask, qa.pkey_index, qa.port_num,
			    qa.qp_access_flags);
		return false;
	case C_NOTIFY:
		call(e->name, "notify", rdma_notify(e->id,
						    IBV_EVENT_COMM_EST));
		return false;
	default:
		return false;
	}
}

/*
 * Every call in every state (that needs no connection), per device and
 * family: the return, and the event a successful asynchronous call gives.
 */
static void matrix_one(enum dev d, enum fam f, enum mstate st, enum mcall c)
{
	struct ep *e;

	if (!scen("matrix/%s%s/%s/%s", dev_name[d], fam_name[f],
		  mstate_name[st], mcall_name[c]))
		return;
	e = ep_new("A", RDMA_PS_TCP);
	if (to_state(e, st, d, f) && do_call(e, c, d, f))
		wait_ev(e, EV_MS, NULL);
	ep_free(e);
	done();
}

static void fam_matrix(void)
{
	enum mstate st;
	enum mcall c;
	enum dev d;
	enum fam f;

	for (d = 0; d < NDEVS; d++)
		for (f = 0; f < NFAMS; f++)
			for (st = 0; st < NMSTATES; st++)
				for (c = 0; c < NMCALLS; c++)
					matrix_one(d, f, st, c);
}

/* The states and calls of a connection for the matrix. */
enum cstate { CS_CONN_ACTIVE, CS_CONN_PASSIVE, CS_REQUEST, CS_CONNECTING,
	      CS_DISC_ACTIVE, NCSTATES };
static const char *const cstate_name[NCSTATES] = {
	"established_active", "established_passive", "request",
	"connecting", "disconnected",
};

static void conn_matrix_one(enum dev d, enum fam f, enum cstate st,
			    enum mcall c)
{
	struct ep *l, *cl = NULL, *sv = NULL, *target;
	bool async;

	/*
	 * A REJ (the in-box accept's way out too) from REQ_SENT leaves ib_cm
	 * retrying the REQ, and the destroy waits for that, 100 s.
	 */
	if (st == CS_CONNECTING && (c == C_ACCEPT || c == C_REJECT))
		return;
	if (!scen("connmatrix/%s%s/%s/%s", dev_name[d], fam_name[f],
		  cstate_name[st], mcall_name[c]))
		return;
	l = listener(dev_addr[d][f], port0, RDMA_PS_TCP, 2);
	if (!l)
		goto end;
	switch (st) {
	case CS_CONN_ACTIVE:
	case CS_CONN_PASSIVE:
	case CS_DISC_ACTIVE:
		if (!connected(l, d, f, &cl, &sv))
			goto out;
		if (st == CS_DISC_ACTIVE) {
			call("C", "disconnect", rdma_disconnect(cl->id));
			wait_ev(cl, EV_MS, NULL);
			wait_ev(sv, EV_MS, NULL);
		}
		target = st == CS_CONN_PASSIVE ? sv : cl;
		break;
	case CS_REQUEST:
		cl = start_conn(l, d, f, 8, &sv);
		if (!sv)
			goto out;
		target = sv;
		break;
	case CS_CONNECTING:
		cl = start_conn(l, d, f, 8, &sv);
		if (!sv)
			goto out;
		target = cl;
		break;
	default:
		goto out;
	}
	async = do_call(target, c, d, f);
	if (c == C_ACCEPT && target == sv && async) {
		/* librdmacm answers the REP only when the client reads it */
		wait_ev(cl, EV_MS, NULL);
		wait_ev(sv, EV_MS, NULL);
		goto out;
	}
	if (c == C_DISCONNECT && async) {
		/* IB: the peer's DREP ends the wait, and it sends none */
		wait_ev(target == cl ? sv : cl, EV_MS, NULL);
		goto out;
	}
	if (async)
		wait_ev(target, EV_MS, NULL);
	/* What the call did to the other side. */
	if (c == C_DISCONNECT || c == C_REJECT || c == C_ACCEPT)
		wait_ev(target == cl ? sv : cl, QUIET_MS, NULL);
out:
	/*
	 * The request's id first: its REJ ends the client's wait at once,
	 * where destroying an iWARP client still waiting for the MPA reply
	 * takes siw half a minute.
	 */
	ep_free(sv);
	ep_free(cl);
	ep_free(l);
end:
	done();
}

static void fam_conn_matrix(void)
{
	static const enum mcall calls[] = {
		C_BIND, C_RESOLVE, C_RESOLVE_ROUTE, C_LISTEN, C_CONNECT,
		C_ACCEPT, C_REJECT, C_DISCONNECT, C_INIT_QP_ATTR, C_NOTIFY,
	};
	enum cstate st;
	unsigned int i;
	enum dev d;
	enum fam f;

	for (d = 0; d < NDEVS; d++)
		for (f = 0; f < NFAMS; f++)
			for (st = 0; st < NCSTATES; st++)
				for (i = 0; i < ARRAY_SIZE(calls); i++)
					conn_matrix_one(d, f, st, calls[i]);
}

/* Two binds to one port: the second's verdict, then listen on both. */
static const char *const bind_kinds[] = { "rxe4", "any4", "rxe6", "any6" };

static const char *bind_addr(unsigned int k)
{
	if (k == 0)
		return dev_addr[RXE][V4];
	if (k == 2)
		return dev_addr[RXE][V6];
	return bind_kinds[k];
}

static void set_int(struct ep *e, const char *what, int opt, int val)
{
	call(e->name, what, rdma_set_option(e->id, RDMA_OPTION_ID, opt, &val,
					    sizeof(val)));
}

/* @af: 0 leaves the first id's afonly alone, 1 sets it 0, 2 sets it 1. */
static void bind_one(unsigned int a, unsigned int b, bool reuse,
		     bool listen1, unsigned int af)
{
	struct ep *x, *y;

	if (!scen("bind/%s-%s/reuse%u/%s%s", bind_kinds[a], bind_kinds[b],
		  reuse, listen1 ? "listen" : "bound",
		  af ? (af == 1 ? "/afonly0" : "/afonly1") : ""))
		return;
	x = ep_new("X", RDMA_PS_TCP);
	y = ep_new("Y", RDMA_PS_TCP);
	if (reuse) {
		set_int(x, "reuseaddr", RDMA_OPTION_ID_REUSEADDR, 1);
		set_int(y, "reuseaddr", RDMA_OPTION_ID_REUSEADDR, 1);
	}
	if (af)
		set_int(x, "afonly", RDMA_OPTION_ID_AFONLY, af - 1);
	if (!bind_to(x, bind_addr(a), port0) && listen1)
		call("X", "listen", rdma_listen(x->id, 1));
	if (!bind_to(y, bind_addr(b), port0))
		call("Y", "listen", rdma_listen(y->id, 1));
	ep_free(y);
	ep_free(x);
	done();
}

static void fam_bind(void)
{
	unsigned int a, b, reuse, listen1, af;

	for (a = 0; a < 4; a++)
		for (b = 0; b < 4; b++)
			for (reuse = 0; reuse < 2; reuse++)
				for (listen1 = 0; listen1 < 2; listen1++)
					/* afonly only matters for any6 */
					for (af = 0; af < (a == 3 ? 3 : 1); af++)
						bind_one(a, b, reuse, listen1, af);
}

/* Ports: ephemeral, privileged, the same port in two port spaces. */
static void fam_ports(void)
{
	static const enum rdma_port_space ps[] = {
		RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IPOIB, RDMA_PS_IB,
	};
	unsigned int i, j;
	enum fam f;

	for (f = 0; f < NFAMS; f++) {
		const char *a = dev_addr[RXE][f];

		if (scen("ports/%s/ephemeral-listen", fam_name[f])) {
			struct ep *x = ep_new("X", RDMA_PS_TCP);

			bind_to(x, a, 0);
			call("X", "listen", rdma_listen(x->id, 1));
			rec_id(x);
			ep_free(x);
			done();
		}
		if (scen("ports/%s/privileged", fam_name[f])) {
			struct ep *x = ep_new("X", RDMA_PS_TCP);

			bind_to(x, a, 999);
			rec_id(x);
			ep_free(x);
			done();
		}
		if (scen("ports/%s/listen-unbound", fam_name[f])) {
			struct ep *x = ep_new("X", RDMA_PS_TCP);

			call("X", "listen", rdma_listen(x->id, 1));
			rec_id(x);
			ep_free(x);
			done();
		}
		for (i = 0; i < ARRAY_SIZE(ps); i++)
			for (j = 0; j < ARRAY_SIZE(ps); j++) {
				struct ep *x, *y;

				if (!scen("ports/%s/ps%x-ps%x", fam_name[f],
					  ps[i], ps[j]))
					continue;
				x = ep_new("X", ps[i]);
				y = ep_new("Y", ps[j]);
				bind_to(x, a, port0);
				bind_to(y, a, port0);
				rec_id(y);
				ep_free(y);
				ep_free(x);
				done();
			}
	}
}

/* Address resolution: where it goes, what fails, reissues. */
static void fam_resolve(void)
{
	enum dev d;
	enum fam f;

	for (f = 0; f < NFAMS; f++) {
		const char *lo = f == V4 ? "lo4" : "lo6";
		const char *any = f == V4 ? "any4" : "any6";
		const char *other = f == V4 ? dev_addr[RXE][V6] :
					      dev_addr[RXE][V4];
		struct ep *e;

		if (scen("resolve/%s/unroutable", fam_name[f])) {
			e = ep_new("A", RDMA_PS_TCP);
			if (!resolve(e, NULL, unroutable[f], port0, 1000))
				wait_ev(e, EV_MS, NULL);
			ep_free(e);
			done();
		}
		if (scen("resolve/%s/loopback", fam_name[f])) {
			e = ep_new("A", RDMA_PS_TCP);
			if (!resolve(e, NULL, lo, port0, 1000))
				wait_ev(e, EV_MS, NULL);
			ep_free(e);
			done();
		}
		if (scen("resolve/%s/any", fam_name[f])) {
			e = ep_new("A", RDMA_PS_TCP);
			if (!resolve(e, NULL, any, port0, 1000))
				wait_ev(e, EV_MS, NULL);
			ep_free(e);
			done();
		}
		if (scen("resolve/%s/family-mismatch", fam_name[f])) {
			e = ep_new("A", RDMA_PS_TCP);
			if (!resolve(e, dev_addr[RXE][f], other, port0, 1000))
				wait_ev(e, EV_MS, NULL);
			ep_free(e);
			done();
		}
		if (scen("resolve/%s/reissue-after-error", fam_name[f])) {
			e = ep_new("A", RDMA_PS_TCP);
			if (!resolve(e, dev_addr[RXE][f], unroutable[f], port0,
				     1000))
				wait_ev(e, EV_MS, NULL);
			if (!resolve(e, NULL, dev_addr[RXE][f], port0, 1000))
				wait_ev(e, EV_MS, NULL);
			ep_free(e);
			done();
		}
		if (scen("resolve/%s/twice-resolved", fam_name[f])) {
			e = ep_new("A", RDMA_PS_TCP);
			if (!resolve(e, NULL, dev_addr[RXE][f], port0, 1000))
				wait_ev(e, EV_MS, NULL);
			resolve(e, NULL, dev_addr[RXE][f], port0, 1000);
			ep_free(e);
			done();
		}
		if (scen("resolve/%s/route-timeout0", fam_name[f])) {
			e = ep_new("A", RDMA_PS_TCP);
			if (!resolve(e, NULL, dev_addr[RXE][f], port0, 1000))
				wait_ev(e, EV_MS, NULL);
			if (!call("A", "resolve_route(0)",
				  rdma_resolve_route(e->id, 0)))
				wait_ev(e, EV_MS, NULL);
			ep_free(e);
			done();
		}
		/*
		 * A bind refused for its port after the address chose siw0,
		 * then a resolution from a wildcard to rxe0's address. In-box
		 * keeps the refused bind's interface in the id and resolves
		 * through it, onto siw0 (accepted.txt); IPv6 only, where that
		 * needs no neighbour, so both CMs leave the tables alike.
		 */
		if (f == V6 && scen("resolve/%s/after-failed-bind",
				    fam_name[f])) {
			struct ep *l = listener(dev_addr[SIW][f], port0,
						RDMA_PS_TCP, 1);

			e = ep_new("A", RDMA_PS_TCP);
			if (l && bind_to(e, dev_addr[SIW][f], port0) &&
			    !resolve(e, NULL, dev_addr[RXE][f], port0 + 1,
				     1000))
				wait_ev(e, EV_MS, NULL);
			ep_free(e);
			ep_free(l);
			done();
		}
		for (d = 0; d < NDEVS; d++) {
			if (scen("resolve/%s%s/src-other-device", dev_name[d],
				 fam_name[f])) {
				e = ep_new("A", RDMA_PS_TCP);
				if (!resolve(e, dev_addr[d][f],
					     dev_addr[!d][f], port0, 1000))
					wait_ev(e, EV_MS, NULL);
				ep_free(e);
				done();
			}
			if (scen("resolve/%s%s/udp-ps", dev_name[d],
				 fam_name[f])) {
				e = ep_new("A", RDMA_PS_UDP);
				if (!resolve(e, NULL, dev_addr[d][f], port0,
					     1000))
					wait_ev(e, EV_MS, NULL);
				ep_free(e);
				done();
			}
		}
	}
}

/* The sizes a message's private data is tried with, per transport. */
static const unsigned int req_sizes[NDEVS][4] = {
	{ 0, 1, 56, 57 }, { 0, 1, 255, 256 },
};

static const unsigned int rep_sizes[NDEVS][4] = {
	{ 0, 1, 196, 197 }, { 0, 1, 255, 256 },
};

static const unsigned int rej_sizes[NDEVS][4] = {
	{ 0, 1, 148, 149 }, { 0, 1, 255, 256 },
};

/* Connect, then the listener's answer: accept or reject, @len bytes. */
static void conn_answer(enum dev d, enum fam f, unsigned int req,
			int rep, int rej)
{
	struct ep *l = listener(dev_addr[d][f], port0, RDMA_PS_TCP, 2);
	struct ep *c = NULL, *s = NULL;

	if (!l)
		return;
	c = start_conn(l, d, f, req, &s);
	if (!s)
		goto out;
	if (rej >= 0) {
		if (reject_len(s, rej))
			goto out;
		wait_ev(c, EV_MS, NULL);
	} else {
		/* A failed accept is the client's REJECTED, as in-box. */
		if (accept_len(s, rep)) {
			wait_ev(c, EV_MS, NULL);
			goto out;
		}
		wait_ev(c, EV_MS, NULL);
		wait_ev(s, EV_MS, NULL);
		call("C", "disconnect", rdma_disconnect(c->id));
		wait_ev(c, EV_MS, NULL);
		wait_ev(s, EV_MS, NULL);
	}
out:
	ep_free(c);
	ep_free(s);
	ep_free(l);
}

static void fam_pdata(void)
{
	unsigned int i;
	enum dev d;
	enum fam f;

	for (d = 0; d < NDEVS; d++)
		for (f = 0; f < NFAMS; f++)
			for (i = 0; i < 4; i++) {
				if (scen("pdata/%s%s/connect-%u", dev_name[d],
					 fam_name[f], req_sizes[d][i])) {
					conn_answer(d, f, req_sizes[d][i], 0,
						    -1);
					done();
				}
				if (scen("pdata/%s%s/accept-%u", dev_name[d],
					 fam_name[f], rep_sizes[d][i])) {
					conn_answer(d, f, 4, rep_sizes[d][i],
						    -1);
					done();
				}
				if (scen("pdata/%s%s/reject-%u", dev_name[d],
					 fam_name[f], rej_sizes[d][i])) {
					conn_answer(d, f, 4, 0,
						    rej_sizes[d][i]);
					done();
				}
			}
}

enum disc { D_CLIENT, D_SERVER, D_BOTH, D_DESTROY_CLIENT, D_DESTROY_SERVER,
	    D_TIMEWAIT, NDISC };
static const char *const disc_name[NDISC] = {
	"client", "server", "both", "destroy-client", "destroy-server",
	"timewait",
};

static void disc_one(enum dev d, enum fam f, enum disc how)
{
	struct ep *l = listener(dev_addr[d][f], port0, RDMA_PS_TCP, 2);
	struct ep *c = NULL, *s = NULL;

	if (!l)
		return;
	if (!connected(l, d, f, &c, &s))
		goto out;
	switch (how) {
	case D_CLIENT:
	case D_TIMEWAIT:
		/* IB: the DREP that ends the client's wait is the server's */
		call("C", "disconnect", rdma_disconnect(c->id));
		wait_ev(s, EV_MS, NULL);
		call("S", "disconnect", rdma_disconnect(s->id));
		wait_ev(c, EV_MS, NULL);
		if (how == D_TIMEWAIT) {
			wait_ev(c, 20000, NULL);
			wait_ev(s, 20000, NULL);
		}
		break;
	case D_SERVER:
		call("S", "disconnect", rdma_disconnect(s->id));
		wait_ev(c, EV_MS, NULL);
		call("C", "disconnect", rdma_disconnect(c->id));
		wait_ev(s, EV_MS, NULL);
		break;
	case D_BOTH:
		call("C", "disconnect", rdma_disconnect(c->id));
		call("S", "disconnect", rdma_disconnect(s->id));
		wait_ev(c, EV_MS, NULL);
		wait_ev(s, EV_MS, NULL);
		break;
	case D_DESTROY_CLIENT:
		ep_free(c);
		c = NULL;
		rec("C destroyed");
		wait_ev(s, EV_MS, NULL);
		break;
	case D_DESTROY_SERVER:
		ep_free(s);
		s = NULL;
		rec("S destroyed");
		wait_ev(c, EV_MS, NULL);
		break;
	default:
		break;
	}
out:
	ep_free(c);
	ep_free(s);
	ep_free(l);
}

static void fam_disconnect(void)
{
	enum disc how;
	enum dev d;
	enum fam f;

	for (d = 0; d < NDEVS; d++)
		for (f = 0; f < NFAMS; f++)
			for (how = 0; how < NDISC; how++) {
				/* iWARP has no time wait event */
				if (how == D_TIMEWAIT && d == SIW)
					continue;
				if (!scen("disconnect/%s%s/%s", dev_name[d],
					  fam_name[f], disc_name[how]))
					continue;
				disc_one(d, f, how);
				done();
			}
}

/* A listener of backlog 1 with one request taken, then a second. */
static void backlog1(enum dev d, enum fam f)
{
	struct ep *l = listener(dev_addr[d][f], port0, RDMA_PS_TCP, 1);
	struct rdma_cm_id *nid = NULL;
	struct ep *c, *s, *c2, *s2 = NULL;

	if (!l)
		return;
	c = start_conn(l, d, f, 4, &s);
	c2 = ep_new("C2", RDMA_PS_TCP);
	if (reach(c2, dev_addr[d][f], port0)) {
		ep_qp(c2, IBV_QPT_RC);
		l->peer_qpn = c2->id->qp->qp_num;
		if (!connect_len(c2, 4) &&
		    wait_ev(l, QUIET_MS, &nid) == RDMA_CM_EVENT_CONNECT_REQUEST)
			s2 = ep_adopt("S2", nid);
	}
	if (s && !accept_len(s, 0)) {
		wait_ev(c, EV_MS, NULL);
		wait_ev(s, EV_MS, NULL);
	}
	ep_free(s2);
	ep_free(c2);
	ep_free(c);
	ep_free(s);
	ep_free(l);
}

/* Connections that do not happen, and a listener's backlog. */
static void fam_noconn(void)
{
	enum dev d;
	enum fam f;

	for (d = 0; d < NDEVS; d++)
		for (f = 0; f < NFAMS; f++) {
			struct ep *c, *s, *l;

			if (scen("noconn/%s%s/no-listener", dev_name[d],
				 fam_name[f])) {
				c = ep_new("C", RDMA_PS_TCP);
				if (reach(c, dev_addr[d][f], port0)) {
					ep_qp(c, IBV_QPT_RC);
					if (!connect_len(c, 4))
						wait_ev(c, EV_MS, NULL);
				}
				ep_free(c);
				done();
			}
			if (scen("noconn/%s%s/request-destroyed", dev_name[d],
				 fam_name[f])) {
				l = listener(dev_addr[d][f], port0,
					     RDMA_PS_TCP, 2);
				if (l) {
					c = start_conn(l, d, f, 4, &s);
					if (s) {
						ep_free(s);
						rec("S destroyed");
						wait_ev(c, EV_MS, NULL);
					}
					ep_free(c);
					ep_free(l);
				}
				done();
			}
			if (scen("noconn/%s%s/listener-destroyed",
				 dev_name[d], fam_name[f])) {
				l = listener(dev_addr[d][f], port0,
					     RDMA_PS_TCP, 2);
				if (l) {
					c = start_conn(l, d, f, 4, &s);
					ep_free(l);
					rec("L destroyed");
					if (s && !accept_len(s, 0)) {
						wait_ev(c, EV_MS, NULL);
						wait_ev(s, EV_MS, NULL);
					}
					ep_free(c);
					ep_free(s);
				}
				done();
			}
			if (scen("noconn/%s%s/backlog1", dev_name[d],
				 fam_name[f])) {
				backlog1(d, f);
				done();
			}
		}
}

/* UD: SIDR on RoCE, accepted, rejected with private data, no listener. */
static void fam_ud(void)
{
	static const int rej[] = { -1, 0, 1, 136, 137 };
	unsigned int i;
	enum fam f;

	for (f = 0; f < NFAMS; f++) {
		for (i = 0; i < ARRAY_SIZE(rej); i++) {
			struct ep *l, *c, *s;
			struct rdma_cm_id *nid = NULL;

			if (!scen("ud/rxe%s/%s-%d", fam_name[f],
				  rej[i] < 0 ? "accept" : "reject",
				  rej[i] < 0 ? 0 : rej[i]))
				continue;
			l = listener(dev_addr[RXE][f], port0, RDMA_PS_UDP, 2);
			c = ep_new("C", RDMA_PS_UDP);
			if (l && reach(c, dev_addr[RXE][f], port0)) {
				ep_qp(c, IBV_QPT_UD);
				l->peer_qpn = c->id->qp->qp_num;
				if (!connect_len(c, 8) &&
				    wait_ev(l, EV_MS, &nid) ==
				    RDMA_CM_EVENT_CONNECT_REQUEST) {
					s = ep_adopt("S", nid);
					ep_qp(s, IBV_QPT_UD);
					c->peer_qpn = s->id->qp->qp_num;
					if (rej[i] < 0)
						accept_len(s, 0);
					else
						reject_len(s, rej[i]);
					wait_ev(c, EV_MS, NULL);
					ep_free(s);
				}
			}
			ep_free(c);
			ep_free(l);
			done();
		}
		if (scen("ud/rxe%s/no-listener", fam_name[f])) {
			struct ep *c = ep_new("C", RDMA_PS_UDP);

			if (reach(c, dev_addr[RXE][f], port0)) {
				ep_qp(c, IBV_QPT_UD);
				if (!connect_len(c, 8))
					wait_ev(c, 30000, NULL);
			}
			ep_free(c);
			done();
		}
	}
}

/* Multicast joins and leaves, UDP port space. */
static void fam_mcast(void)
{
	enum dev d;
	enum fam f;

	for (d = 0; d < NDEVS; d++)
		for (f = 0; f < NFAMS; f++) {
			struct ep *e;

			if (scen("mcast/%s%s/join-leave", dev_name[d],
				 fam_name[f])) {
				e = ep_new("M", RDMA_PS_UDP);
				if (!bind_to(e, dev_addr[d][f], 0) &&
				    !m_join(e, f)) {
					wait_ev(e, EV_MS, NULL);
					m_leave(e, f);
				}
				ep_free(e);
				done();
			}
			if (scen("mcast/%s%s/join-twice", dev_name[d],
				 fam_name[f])) {
				e = ep_new("M", RDMA_PS_UDP);
				if (!bind_to(e, dev_addr[d][f], 0) &&
				    !m_join(e, f)) {
					wait_ev(e, EV_MS, NULL);
					if (!m_join(e, f))
						wait_ev(e, EV_MS, NULL);
				}
				ep_free(e);
				done();
			}
			if (scen("mcast/%s%s/leave-twice", dev_name[d],
				 fam_name[f])) {
				e = ep_new("M", RDMA_PS_UDP);
				if (!bind_to(e, dev_addr[d][f], 0) &&
				    !m_join(e, f)) {
					wait_ev(e, EV_MS, NULL);
					m_leave(e, f);
					m_leave(e, f);
				}
				ep_free(e);
				done();
			}
			if (scen("mcast/%s%s/join-resolved", dev_name[d],
				 fam_name[f])) {
				e = ep_new("M", RDMA_PS_UDP);
				if (!resolve(e, NULL, dev_addr[d][f], port0,
					     1000) &&
				    wait_ev(e, EV_MS, NULL) ==
				    RDMA_CM_EVENT_ADDR_RESOLVED &&
				    !m_join(e, f))
					wait_ev(e, EV_MS, NULL);
				ep_free(e);
				done();
			}
			if (scen("mcast/%s%s/join-destroy", dev_name[d],
				 fam_name[f])) {
				e = ep_new("M", RDMA_PS_UDP);
				if (!bind_to(e, dev_addr[d][f], 0))
					m_join(e, f);
				ep_free(e);
				done();
			}
		}
}

static const struct {
	const char *name;
	void (*run)(void);
} families[] = {
	{ "bind", fam_bind },
	{ "ports", fam_ports },
	{ "resolve", fam_resolve },
	{ "matrix", fam_matrix },
	{ "connmatrix", fam_conn_matrix },
	{ "pdata", fam_pdata },
	{ "disconnect", fam_disconnect },
	{ "noconn", fam_noconn },
	{ "ud", fam_ud },
	{ "mcast", fam_mcast },
};

int main(int argc, char **argv)
{
	unsigned int i;
	int a = 1;

	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "--list"))
			list_only = true;
		else if (!strcmp(argv[a], "--only") && a + 1 < argc)
			only = argv[++a];
		else
			break;
	}
	if (argc - a != 4) {
		fprintf(stderr, "usage: cm_diff [--list] [--only PREFIX,...] %s\n",
			"RXE4 RXE6 SIW4 SIW6");
		return 2;
	}
	dev_addr[RXE][V4] = argv[a];
	dev_addr[RXE][V6] = argv[a + 1];
	dev_addr[SIW][V4] = argv[a + 2];
	dev_addr[SIW][V6] = argv[a + 3];
	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * librdmacm opens and queries every device once, on first use: do
	 * that here, not in each scenario's process, where it would cost
	 * more than most scenarios do.
	 */
	if (!list_only)
		rdma_free_devices(rdma_get_devices(NULL));
	for (i = 0; i < ARRAY_SIZE(families); i++)
		families[i].run();
	fprintf(stderr, "%u scenarios\n", nr_scen);
	return 0;
}
