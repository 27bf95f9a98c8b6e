// SPDX-License-Identifier: GPL-2.0
/*
 * xrping tests: mkdir tests/NAME, write the options, write 1 to run
 * (the write returns when the test is over), read results.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "xrping.h"

static struct xrping_test *to_test(struct config_item *item)
{
	return container_of(item, struct xrping_test, item);
}

static ssize_t xrping_test_addr_show(struct config_item *item, char *page)
{
	return xrping_show_addr(&to_test(item)->params.addr, page);
}

static ssize_t xrping_test_addr_store(struct config_item *item,
				      const char *page, size_t count)
{
	struct xrping_test *t = to_test(item);
	int rc;

	mutex_lock(&t->lock);
	rc = xrping_parse_addr(page, count, &t->params.addr);
	mutex_unlock(&t->lock);
	return rc ? rc : count;
}

static ssize_t xrping_test_uint_show(struct config_item *item, char *page,
				     u32 *(*field)(struct xrping_test *t))
{
	return sysfs_emit(page, "%u\n", *field(to_test(item)));
}

static ssize_t xrping_test_uint_store(struct config_item *item,
				      const char *page, size_t count,
				      u32 min, u32 max,
				      u32 *(*field)(struct xrping_test *t))
{
	struct xrping_test *t = to_test(item);
	u32 v;
	int rc;

	rc = xrping_parse_uint(page, min, max, &v);
	if (rc)
		return rc;
	mutex_lock(&t->lock);
	*field(t) = v;
	mutex_unlock(&t->lock);
	return count;
}

/* A numeric option: its field, and the bounds a write must respect. */
#define XRPING_TEST_UINT(name, member, min, max)			\
static u32 *xrping_test_##name##_field(struct xrping_test *t)		\
{									\
	return &t->params.member;					\
}									\
static ssize_t xrping_test_##name##_show(struct config_item *item,	\
					 char *page)			\
{									\
	return xrping_test_uint_show(item, page,			\
				     xrping_test_##name##_field);	\
}									\
static ssize_t xrping_test_##name##_store(struct config_item *item,	\
					  const char *page, size_t count) \
{									\
	return xrping_test_uint_store(item, page, count, min, max,	\
				      xrping_test_##name##_field);	\
}									\
CONFIGFS_ATTR(xrping_test_, name)

XRPING_TEST_UINT(port, port, 1, 65535);
XRPING_TEST_UINT(size, size, 1, XRPING_MAX_SIZE);
XRPING_TEST_UINT(count, count, 1, XRPING_MAX_COUNT);
XRPING_TEST_UINT(conns, conns, 1, XRPING_MAX_CONNS);
XRPING_TEST_UINT(window, window, 1, XRDMA_MAX_DEPTH);
XRPING_TEST_UINT(chain, chain, 0, 1);
XRPING_TEST_UINT(depth, opts.depth, XRDMA_MIN_DEPTH, XRDMA_MAX_DEPTH);
XRPING_TEST_UINT(inline_size, opts.inline_size, XRDMA_MIN_INLINE,
		 XRDMA_MAX_INLINE);
XRPING_TEST_UINT(timeout_ms, opts.timeout_ms, 1, 60000);
XRPING_TEST_UINT(reconnect_ms, opts.reconnect_ms, 0, 60000);

/**
 * struct xrping_names - the values a named option takes
 * @names: their names, by value
 * @n: how many
 */
struct xrping_names {
	const char *const *names;
	u32 n;
};

static const struct xrping_names xrping_test_op_names = {
	.names = xrping_op_names,
	.n = XRPING_NR_OPS,
};

static const struct xrping_names xrping_test_mode_names = {
	.names = xrping_mode_names,
	.n = XRPING_NR_MODES,
};

static u32 *xrping_test_op_field(struct xrping_test *t)
{
	return &t->params.op;
}

static u32 *xrping_test_mode_field(struct xrping_test *t)
{
	return &t->params.mode;
}

/* A named option (op, mode): one of its names, stored as the index. */
static ssize_t xrping_test_name_show(struct config_item *item, char *page,
				     const struct xrping_names *names,
				     u32 *(*field)(struct xrping_test *t))
{
	u32 v = *field(to_test(item));

	return sysfs_emit(page, "%s\n", v < names->n ? names->names[v] : "?");
}

static ssize_t xrping_test_name_store(struct config_item *item,
				      const char *page, size_t count,
				      const struct xrping_names *names,
				      u32 *(*field)(struct xrping_test *t))
{
	struct xrping_test *t = to_test(item);
	int i = __sysfs_match_string(names->names, names->n, page);

	if (i < 0)
		return -EINVAL;
	mutex_lock(&t->lock);
	*field(t) = i;
	mutex_unlock(&t->lock);
	return count;
}

#define XRPING_TEST_NAME(name)						\
static ssize_t xrping_test_##name##_show(struct config_item *item,	\
					 char *page)			\
{									\
	return xrping_test_name_show(item, page,			\
				     &xrping_test_##name##_names,	\
				     xrping_test_##name##_field);	\
}									\
static ssize_t xrping_test_##name##_store(struct config_item *item,	\
					  const char *page, size_t count) \
{									\
	return xrping_test_name_store(item, page, count,		\
				      &xrping_test_##name##_names,	\
				      xrping_test_##name##_field);	\
}									\
CONFIGFS_ATTR(xrping_test_, name)

XRPING_TEST_NAME(op);
XRPING_TEST_NAME(mode);

static int xrping_test_check(const struct xrping_params *p)
{
	if (p->addr.ss_family == AF_UNSPEC)
		return -EDESTADDRREQ;
	/* The floor runs SENDs and WRITEs only, of any size. */
	if (p->mode == XRPING_MODE_FLOOR)
		return p->op == XRPING_OP_READ || p->conns > 1 ||
		       p->opts.reconnect_ms ? -EINVAL : 0;
	/* A stale key is tried with one WRITE. */
	if (p->mode == XRPING_MODE_STALE && p->op != XRPING_OP_WRITE)
		return -EINVAL;
	/* Above the inline size a Send is a chunk the server pulls; an
	 * echo of one needs a chunk slot there, which our DONE for its
	 * previous echo gives back, so half the slots bound the window
	 * (duplex runs with a window of the depth).
	 */
	if (p->op == XRPING_OP_SEND && p->size > p->opts.inline_size &&
	    (p->mode == XRPING_MODE_DUPLEX ? p->opts.depth : p->window) >
	    XRDMA_MAX_CHUNKS / 2)
		return -EINVAL;
	/* The RDMA and one-way runs use one connection and no reconnect. */
	if ((p->op != XRPING_OP_SEND || p->mode == XRPING_MODE_BW) &&
	    (p->conns > 1 || p->opts.reconnect_ms))
		return -EINVAL;
	/* More would leave echoes waiting for credits we cannot grant. */
	if (p->window > p->opts.depth)
		return -EINVAL;
	/* A message lost with its connection is sent again: one at a time. */
	if (p->opts.reconnect_ms && p->window > 1)
		return -EINVAL;
	return 0;
}

/* @p becomes what the run really used. */
static void xrping_test_dispatch(struct xrping_params *p,
				 struct xrping_result *res)
{
	if (p->mode == XRPING_MODE_FLOOR) {
		xrping_run_floor(p, res);
	} else if (p->op != XRPING_OP_SEND) {
		xrping_run_rdma(p, res);
	} else if (p->mode == XRPING_MODE_BW) {
		xrping_run_send_bw(p, res);
	} else if (p->mode == XRPING_MODE_DUPLEX) {
		/* Echoes stream back while the messages stream out: a
		 * full window keeps both directions busy at once.
		 */
		p->window = p->opts.depth;
		xrping_run(p, res);
	} else {
		xrping_run(p, res);
	}
}

static ssize_t xrping_test_run_store(struct config_item *item,
				     const char *page, size_t count)
{
	struct xrping_test *t = to_test(item);
	bool go;
	int rc;

	rc = kstrtobool(page, &go);
	if (rc)
		return rc;
	if (!go)
		return -EINVAL;
	mutex_lock(&t->lock);
	/* The last run's results go now: a refused run has none to show. */
	t->ran = false;
	rc = xrping_test_check(&t->params);
	t->refused = rc;
	if (!rc) {
		xrping_set_port(&t->params.addr, t->params.port);
		t->ran_params = t->params;
		xrping_test_dispatch(&t->ran_params, &t->result);
		t->ran = true;
		rc = t->result.rc;
	}
	mutex_unlock(&t->lock);
	return rc ? rc : count;
}

static ssize_t xrping_test_results_show(struct config_item *item,
					char *page)
{
	struct xrping_test *t = to_test(item);
	ssize_t len;

	mutex_lock(&t->lock);
	if (t->ran)
		len = xrping_format(&t->ran_params, &t->result, page);
	else if (t->refused)
		len = sysfs_emit(page, "status refused\nerror %d\n",
				 t->refused);
	else
		len = sysfs_emit(page, "status none\n");
	mutex_unlock(&t->lock);
	return len;
}

CONFIGFS_ATTR(xrping_test_, addr);
CONFIGFS_ATTR_WO(xrping_test_, run);
CONFIGFS_ATTR_RO(xrping_test_, results);

static struct configfs_attribute *xrping_test_attrs[] = {
	&xrping_test_attr_addr,
	&xrping_test_attr_port,
	&xrping_test_attr_size,
	&xrping_test_attr_count,
	&xrping_test_attr_conns,
	&xrping_test_attr_window,
	&xrping_test_attr_chain,
	&xrping_test_attr_depth,
	&xrping_test_attr_inline_size,
	&xrping_test_attr_timeout_ms,
	&xrping_test_attr_reconnect_ms,
	&xrping_test_attr_op,
	&xrping_test_attr_mode,
	&xrping_test_attr_run,
	&xrping_test_attr_results,
	NULL,
};

static void xrping_test_release(struct config_item *item)
{
	struct xrping_test *t = to_test(item);

	mutex_destroy(&t->lock);
	kfree(t);
}

static struct configfs_item_operations xrping_test_item_ops = {
	.release = xrping_test_release,
};

const struct config_item_type xrping_test_type = {
	.ct_item_ops = &xrping_test_item_ops,
	.ct_attrs = xrping_test_attrs,
	.ct_owner = THIS_MODULE,
};
