// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: behaviour of the in-box 6.1 CM that a consumer can see, each
 * piece read from its cma.c and checked here against ours.
 */

#include <linux/delay.h>
#include <linux/in.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_user_sa.h>

#include "cma_test.h"

/* rdma_set_ack_timeout(): RC and XRC initiators, the senders, only. */
static void fid_ack_timeout_qp_types(struct kunit *test)
{
	static const struct {
		enum rdma_ucm_port_space ps;
		enum ib_qp_type type;
		int ack, rnr;
	} cases[] = {
		{ RDMA_PS_TCP, IB_QPT_RC, 0, 0 },
		{ RDMA_PS_TCP, IB_QPT_XRC_INI, 0, -EINVAL },
		{ RDMA_PS_TCP, IB_QPT_XRC_TGT, -EINVAL, 0 },
		{ RDMA_PS_TCP, IB_QPT_UC, -EINVAL, -EINVAL },
		{ RDMA_PS_UDP, IB_QPT_UD, -EINVAL, -EINVAL },
	};
	struct cma_test_consumer c;
	struct rdma_cm_id *id;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		id = cma_test_new_id(test, &c, cases[i].ps, cases[i].type);
		KUNIT_EXPECT_EQ_MSG(test, cases[i].ack,
				    rdma_set_ack_timeout(id, 14),
				    "QP type %d", cases[i].type);
		KUNIT_EXPECT_EQ_MSG(test, cases[i].rnr,
				    rdma_set_min_rnr_timer(id, 12),
				    "QP type %d", cases[i].type);
		rdma_destroy_id(id);
	}
}

/**
 * struct fid_setter - a consumer's setter, run on another thread
 * @work: runs @set on @id
 * @done: completed once @set returned
 * @id: the id
 * @set: the setter
 */
struct fid_setter {
	struct work_struct work;
	struct completion done;
	struct rdma_cm_id *id;
	void (*set)(struct rdma_cm_id *id);
};

static void fid_setter_work(struct work_struct *work)
{
	struct fid_setter *s = container_of(work, struct fid_setter, work);

	s->set(s->id);
	complete(&s->done);
}

/*
 * Wait until the setter either returned or sleeps on @m; true for the
 * latter. It is polled: nothing tells when a task joins a mutex's queue.
 * The poll sleeps, so that a waiter spinning on us as the owner gives
 * up and queues.
 */
static bool fid_waits_on(struct fid_setter *s, struct mutex *m)
{
	unsigned long end = jiffies + 10 * HZ;

	while (time_before(jiffies, end)) {
		if (completion_done(&s->done))
			return false;
		if (!list_empty(&m->wait_list))
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

static void fid_set_ack_timeout(struct rdma_cm_id *id)
{
	rdma_set_ack_timeout(id, 14);
}

static void fid_set_min_rnr_timer(struct rdma_cm_id *id)
{
	rdma_set_min_rnr_timer(id, 12);
}

static void fid_set_service_type(struct rdma_cm_id *id)
{
	rdma_set_service_type(id, 0x20);
}

/* The setter must wait while the CM holds the QP mutex, then write. */
static void fid_check_setter(struct kunit *test,
			     void (*set)(struct rdma_cm_id *id),
			     const char *name)
{
	struct cma_test_consumer c;
	struct fid_setter s = { .set = set };
	struct cma_id *cid;

	s.id = cma_test_new_id(test, &c, RDMA_PS_TCP, IB_QPT_RC);
	cid = to_cma_id(s.id);
	INIT_WORK_ONSTACK(&s.work, fid_setter_work);
	init_completion(&s.done);

	mutex_lock(&cid->qp_mutex);
	queue_work(system_unbound_wq, &s.work);
	KUNIT_EXPECT_TRUE_MSG(test, fid_waits_on(&s, &cid->qp_mutex),
			      "%s wrote without the QP mutex", name);
	mutex_unlock(&cid->qp_mutex);
	KUNIT_EXPECT_TRUE(test, cma_test_wait(&s.done));
	flush_work(&s.work);
	destroy_work_on_stack(&s.work);
	rdma_destroy_id(s.id);
}

static void fid_setters_take_qp_mutex(struct kunit *test)
{
	fid_check_setter(test, fid_set_ack_timeout, "rdma_set_ack_timeout");
	fid_check_setter(test, fid_set_min_rnr_timer, "rdma_set_min_rnr_timer");
	fid_check_setter(test, fid_set_service_type, "rdma_set_service_type");
}

/* A path record to tell apart by its destination LID. */
static struct sa_path_rec fid_path(u32 flags, u32 dlid)
{
	struct sa_path_rec rec = { .rec_type = SA_PATH_REC_TYPE_IB,
				   .flags = flags };

	sa_path_set_dlid(&rec, dlid);
	return rec;
}

/* The path records of ibacm's answers: the primary and each direction. */
static void fid_path_sort(struct kunit *test)
{
	struct sa_path_rec recs[] = {
		fid_path(IB_PATH_INBOUND, 10),
		fid_path(IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL,
			 11),
		fid_path(IB_PATH_OUTBOUND, 12),
	};
	struct cma_paths paths;

	cma_path_sort(recs, ARRAY_SIZE(recs), &paths);
	KUNIT_EXPECT_PTR_EQ(test, &recs[1], paths.primary);
	KUNIT_EXPECT_PTR_EQ(test, &recs[0], paths.inbound);
	KUNIT_EXPECT_PTR_EQ(test, &recs[2], paths.outbound);

	/* The SA's own answer: one record, no flags. */
	recs[0].flags = 0;
	cma_path_sort(recs, 1, &paths);
	KUNIT_EXPECT_PTR_EQ(test, &recs[0], paths.primary);
	KUNIT_EXPECT_NULL(test, paths.inbound);
	KUNIT_EXPECT_NULL(test, paths.outbound);
}

/* A backend whose queries never answer: the test answers for it. */
static int fid_no_query(struct cma_id *cid, struct sa_path_rec *rec,
			ib_sa_comp_mask mask, unsigned long timeout_ms)
{
	return 0;
}

static void fid_no_cancel(struct cma_id *cid)
{
}

static const struct cma_path_ops fid_path_ops = {
	.query	= fid_no_query,
	.cancel	= fid_no_cancel,
};

/* An id with a path query in flight, on rxe0 in the guest (or skipped). */
static struct rdma_cm_id *fid_querying_id(struct kunit *test,
					  struct cma_test_consumer *c)
{
	struct rdma_cm_id *id = cma_test_bound_id(test, c, RDMA_PS_TCP,
						  IB_QPT_RC);
	struct cma_id *cid = to_cma_id(id);

	KUNIT_ASSERT_TRUE(test, cma_transition(cid, RDMA_CM_ADDR_BOUND,
					       RDMA_CM_ADDR_QUERY));
	KUNIT_ASSERT_TRUE(test, cma_transition(cid, RDMA_CM_ADDR_QUERY,
					       RDMA_CM_ADDR_RESOLVED));
	KUNIT_ASSERT_TRUE(test, cma_transition(cid, RDMA_CM_ADDR_RESOLVED,
					       RDMA_CM_ROUTE_QUERY));
	KUNIT_ASSERT_EQ(test, 0, cma_path_query(cid, 1000));
	return id;
}

static u32 fid_dlid(struct sa_path_rec *rec)
{
	return rec ? be32_to_cpu(sa_path_get_dlid(rec)) : 0;
}

/* The route keeps the SA's inbound and outbound paths; a REQ sends them. */
static void fid_route_inbound_outbound(struct kunit *test)
{
	struct sa_path_rec recs[] = {
		fid_path(IB_PATH_INBOUND, 10),
		fid_path(IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL,
			 11),
		fid_path(IB_PATH_OUTBOUND, 12),
	};
	struct cma_test_consumer c;
	struct rdma_cm_id *id;

	cma_set_path_ops(&fid_path_ops);
	id = fid_querying_id(test, &c);
	cma_path_done_recs(to_cma_id(id), 0, recs, ARRAY_SIZE(recs));
	/* The answer is delivered from cma_wq. */
	flush_workqueue(cma_wq);
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ROUTE_RESOLVED, c.event.event);
	KUNIT_EXPECT_EQ(test, 11U, fid_dlid(id->route.path_rec));
	KUNIT_EXPECT_EQ(test, 1U, id->route.num_pri_alt_paths);
	KUNIT_EXPECT_EQ(test, 10U, fid_dlid(id->route.path_rec_inbound));
	KUNIT_EXPECT_EQ(test, 12U, fid_dlid(id->route.path_rec_outbound));

	/* Without a primary path there is no route, as in-box means. */
	KUNIT_ASSERT_TRUE(test, cma_transition(to_cma_id(id),
					       RDMA_CM_ROUTE_RESOLVED,
					       RDMA_CM_ADDR_RESOLVED));
	KUNIT_ASSERT_TRUE(test, cma_transition(to_cma_id(id),
					       RDMA_CM_ADDR_RESOLVED,
					       RDMA_CM_ROUTE_QUERY));
	KUNIT_ASSERT_EQ(test, 0, cma_path_query(to_cma_id(id), 1000));
	cma_path_done_recs(to_cma_id(id), 0, recs, 1);
	flush_workqueue(cma_wq);
	KUNIT_EXPECT_EQ(test, RDMA_CM_EVENT_ROUTE_ERROR, c.event.event);
	KUNIT_EXPECT_EQ(test, -EINVAL, c.event.status);
	rdma_destroy_id(id);
	cma_set_path_ops(NULL);
}

/* The active side's REQ: primary, alternate, inbound and outbound. */
static void fid_req_paths(struct kunit *test)
{
	struct sa_path_rec paths[2] = { fid_path(0, 1), fid_path(0, 2) };
	struct sa_path_rec in = fid_path(IB_PATH_INBOUND, 3);
	struct sa_path_rec out = fid_path(IB_PATH_OUTBOUND, 4);
	struct rdma_route route = { .path_rec = paths,
				    .path_rec_inbound = &in,
				    .path_rec_outbound = &out,
				    .num_pri_alt_paths = 2 };
	struct ib_cm_req_param req = {};

	cma_ib_req_paths(&req, &route);
	KUNIT_EXPECT_PTR_EQ(test, &paths[0], req.primary_path);
	KUNIT_EXPECT_PTR_EQ(test, &paths[1], req.alternate_path);
	KUNIT_EXPECT_PTR_EQ(test, &in, req.primary_path_inbound);
	KUNIT_EXPECT_PTR_EQ(test, &out, req.primary_path_outbound);

	memset(&req, 0, sizeof(req));
	route.num_pri_alt_paths = 1;
	route.path_rec_inbound = NULL;
	route.path_rec_outbound = NULL;
	cma_ib_req_paths(&req, &route);
	KUNIT_EXPECT_PTR_EQ(test, &paths[0], req.primary_path);
	KUNIT_EXPECT_NULL(test, req.alternate_path);
	KUNIT_EXPECT_NULL(test, req.primary_path_inbound);
	KUNIT_EXPECT_NULL(test, req.primary_path_outbound);
}

/* The passive side's route: the REQ's alternate path too. */
static void fid_req_route_alternate(struct kunit *test)
{
	struct sa_path_rec primary = fid_path(0, 5), alt = fid_path(0, 6);
	struct rdma_route route = {};
	union ib_gid dgid;

	primary.dgid.raw[15] = 0x42;
	KUNIT_ASSERT_EQ(test, 0, cma_req_route(&route, &primary, &alt));
	KUNIT_EXPECT_EQ(test, 2U, route.num_pri_alt_paths);
	KUNIT_EXPECT_EQ(test, 5U, fid_dlid(&route.path_rec[0]));
	if (route.num_pri_alt_paths == 2)
		KUNIT_EXPECT_EQ(test, 6U, fid_dlid(&route.path_rec[1]));
	rdma_addr_get_dgid(&route.addr.dev_addr, &dgid);
	KUNIT_EXPECT_EQ(test, 0x42, dgid.raw[15]);
	kfree(route.path_rec);

	memset(&route, 0, sizeof(route));
	KUNIT_ASSERT_EQ(test, 0, cma_req_route(&route, &primary, NULL));
	KUNIT_EXPECT_EQ(test, 1U, route.num_pri_alt_paths);
	kfree(route.path_rec);
}

static struct sockaddr_in fid_addr4(u32 addr, u16 port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET,
				     .sin_port = htons(port),
				     .sin_addr.s_addr = htonl(addr) };
}

/*
 * A port in use: -EADDRINUSE at the same address, -EADDRNOTAVAIL where a
 * wildcard is in the way, as in-box (cma_check_port()).
 */
static void fid_bind_errnos(struct kunit *test)
{
	struct cma_test_consumer c, c2;
	struct rdma_cm_id *x, *y;
	struct sockaddr_in a;
	u16 port;

	x = cma_test_bound_id(test, &c, RDMA_PS_TCP, IB_QPT_RC);
	port = cma_addr_port((struct sockaddr *)&x->route.addr.src_addr);
	y = cma_test_new_id(test, &c2, RDMA_PS_TCP, IB_QPT_RC);
	a = fid_addr4(0x0a000001, port);
	KUNIT_EXPECT_EQ(test, -EADDRINUSE,
			rdma_bind_addr(y, (struct sockaddr *)&a));
	a = fid_addr4(0, port);
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL,
			rdma_bind_addr(y, (struct sockaddr *)&a));
	rdma_destroy_id(y);
	rdma_destroy_id(x);
}

/*
 * rdma_listen() turns reuseaddr off, as in-box: an id with reuseaddr that
 * could share the port before cannot once the first listens.
 */
static void fid_listen_clears_reuseaddr(struct kunit *test)
{
	struct cma_test_consumer c, c2;
	struct rdma_cm_id *x, *y;
	struct sockaddr_in a = fid_addr4(0, 0);

	x = cma_test_new_id(test, &c, RDMA_PS_TCP, IB_QPT_RC);
	y = cma_test_new_id(test, &c2, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_EQ(test, 0, rdma_set_reuseaddr(x, 1));
	KUNIT_ASSERT_EQ(test, 0, rdma_set_reuseaddr(y, 1));
	KUNIT_ASSERT_EQ(test, 0, rdma_bind_addr(x, (struct sockaddr *)&a));
	a.sin_port = htons(cma_addr_port((struct sockaddr *)
					 &x->route.addr.src_addr));
	KUNIT_ASSERT_EQ(test, 0, rdma_listen(x, 1));
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL,
			rdma_bind_addr(y, (struct sockaddr *)&a));
	rdma_destroy_id(y);
	rdma_destroy_id(x);
}

static struct kunit_case fid_cases[] = {
	KUNIT_CASE(fid_ack_timeout_qp_types),
	KUNIT_CASE(fid_setters_take_qp_mutex),
	KUNIT_CASE(fid_path_sort),
	KUNIT_CASE(fid_route_inbound_outbound),
	KUNIT_CASE(fid_req_paths),
	KUNIT_CASE(fid_req_route_alternate),
	KUNIT_CASE(fid_bind_errnos),
	KUNIT_CASE(fid_listen_clears_reuseaddr),
	{}
};

/* A test that skipped or failed may have left its path backend. */
static void fid_exit(struct kunit *test)
{
	cma_set_path_ops(NULL);
}

static struct kunit_suite fid_suite = {
	.name = "rdma_cm_fidelity",
	.exit = fid_exit,
	.test_cases = fid_cases,
};

/* An id as far as the CM header cares: its addresses. */
static struct cma_id *fid_hdr_id(struct kunit *test)
{
	struct cma_id *cid = kunit_kzalloc(test, sizeof(*cid), GFP_KERNEL);
	struct sockaddr_in src = fid_addr4(0x0a000001, 5000);
	struct sockaddr_in dst = fid_addr4(0x0a000002, 7471);

	KUNIT_ASSERT_NOT_NULL(test, cid);
	memcpy(cma_src_addr(cid), &src, sizeof(src));
	memcpy(cma_dst_addr(cid), &dst, sizeof(dst));
	return cid;
}

static bool fid_all_zero(const u8 *p, size_t n)
{
	return !memchr_inv(p, 0, n);
}

/*
 * NULL private data with a length: the REQ carries the header and that
 * many zeros, as in-box (which copies only data it was given).
 */
static void fid_hdr_null_private_data(struct kunit *test)
{
	struct rdma_conn_param param = { .private_data_len = 10 };
	struct sockaddr_storage src, dst;
	struct cma_id *cid = fid_hdr_id(test);
	u8 *buf;
	u8 len;

	buf = cma_hdr_with_data(cid, &param, IB_CM_REQ_PRIVATE_DATA_SIZE,
				&len);
	KUNIT_ASSERT_FALSE(test, IS_ERR(buf));
	KUNIT_EXPECT_EQ(test, CMA_HDR_SIZE + 10, len);
	KUNIT_EXPECT_EQ(test, 0, cma_hdr_decode(buf, &src, &dst));
	KUNIT_EXPECT_TRUE(test, fid_all_zero(buf + CMA_HDR_SIZE, 10));
	kfree(buf);

	/* Still bounded by what fits behind the header. */
	param.private_data_len = IB_CM_REQ_PRIVATE_DATA_SIZE - CMA_HDR_SIZE + 1;
	buf = cma_hdr_with_data(cid, &param, IB_CM_REQ_PRIVATE_DATA_SIZE,
				&len);
	KUNIT_EXPECT_EQ(test, -EINVAL, PTR_ERR_OR_ZERO(buf));
}

static struct kunit_case fid_hdr_cases[] = {
	KUNIT_CASE(fid_hdr_null_private_data),
	{}
};

/* Last: before its fix, this one oopses. */
static struct kunit_suite fid_hdr_suite = {
	.name = "rdma_cm_fidelity_hdr",
	.test_cases = fid_hdr_cases,
};

kunit_test_suites(&fid_suite, &fid_hdr_suite);
