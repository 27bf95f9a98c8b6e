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
XRPING_TEST_UINT(size, size, 1, XRDMA_MAX_INLINE);
XRPING_TEST_UINT(count, count, 1, XRPING_MAX_COUNT);
XRPING_TEST_UINT(conns, conns, 1, XRPING_MAX_CONNS);
XRPING_TEST_UINT(window, window, 1, XRDMA_MAX_DEPTH);
XRPING_TEST_UINT(depth, opts.depth, XRDMA_MIN_DEPTH, XRDMA_MAX_DEPTH);
XRPING_TEST_UINT(inline_size, opts.inline_size, XRDMA_MIN_INLINE,
		 XRDMA_MAX_INLINE);
XRPING_TEST_UINT(timeout_ms, opts.timeout_ms, 1, 60000);
XRPING_TEST_UINT(reconnect_ms, opts.reconnect_ms, 0, 60000);

static int xrping_test_check(const struct xrping_params *p)
{
	if (p->addr.ss_family == AF_UNSPEC)
		return -EDESTADDRREQ;
	if (p->size > p->opts.inline_size)
		return -EMSGSIZE;
	/* More would leave echoes waiting for credits we cannot grant. */
	if (p->window > p->opts.depth)
		return -EINVAL;
	/* A message lost with its connection is sent again: one at a time. */
	if (p->opts.reconnect_ms && p->window > 1)
		return -EINVAL;
	return 0;
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
	rc = xrping_test_check(&t->params);
	if (!rc) {
		xrping_set_port(&t->params.addr, t->params.port);
		xrping_run(&t->params, &t->result);
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
		len = xrping_format(&t->params, &t->result, page);
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
	&xrping_test_attr_depth,
	&xrping_test_attr_inline_size,
	&xrping_test_attr_timeout_ms,
	&xrping_test_attr_reconnect_ms,
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
