// SPDX-License-Identifier: GPL-2.0
/*
 * xrping servers: mkdir servers/NAME, write addr (and port, depth,
 * inline_size), then 1 to enable; every message received is sent back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "xrping.h"

static struct xrping_server *to_server(struct config_item *item)
{
	return container_of(item, struct xrping_server, item);
}

/* Runs in the receive CQ's work item of an accepted transport: a
 * control request is answered, a message for a sink is taken, anything
 * else is echoed, from the buffer it arrived in where it can be.
 */
static void xrping_echo(struct xrdma_xprt *xprt, const void *data, u32 len)
{
	struct xrping_server *srv = xrdma_xprt_priv(xprt);
	struct xrping_ctl ctl;

	if (xrping_ctl_parse(data, len, &ctl)) {
		xrping_server_ctl(srv, xprt, &ctl);
		return;
	}
	if (xrping_server_sink(srv, xprt, data, len))
		return;
	if (xrdma_send_received(xprt, data, len))
		atomic64_inc(&srv->errors);
	else
		atomic64_inc(&srv->echoed);
}

static const struct xrdma_ops xrping_server_ops = {
	.recv = xrping_echo,
	.closed = xrping_server_closed,
};

static ssize_t xrping_server_addr_show(struct config_item *item, char *page)
{
	return xrping_show_addr(&to_server(item)->addr, page);
}

/* Attributes change only while the server is disabled. */
static ssize_t xrping_server_store(struct xrping_server *srv,
				   const char *page, size_t count,
				   int (*set)(struct xrping_server *srv,
					      const char *page, size_t count))
{
	int rc = -EBUSY;

	mutex_lock(&srv->lock);
	if (!srv->lsn)
		rc = set(srv, page, count);
	mutex_unlock(&srv->lock);
	return rc ? rc : count;
}

static int xrping_server_set_addr(struct xrping_server *srv,
				  const char *page, size_t count)
{
	return xrping_parse_addr(page, count, &srv->addr);
}

static ssize_t xrping_server_addr_store(struct config_item *item,
					const char *page, size_t count)
{
	return xrping_server_store(to_server(item), page, count,
				   xrping_server_set_addr);
}

static ssize_t xrping_server_port_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", to_server(item)->port);
}

static int xrping_server_set_port(struct xrping_server *srv,
				  const char *page, size_t count)
{
	u32 v;
	int rc = xrping_parse_uint(page, 1, 65535, &v);

	if (!rc)
		srv->port = v;
	return rc;
}

static ssize_t xrping_server_port_store(struct config_item *item,
					const char *page, size_t count)
{
	return xrping_server_store(to_server(item), page, count,
				   xrping_server_set_port);
}

static ssize_t xrping_server_depth_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", to_server(item)->opts.depth);
}

static int xrping_server_set_depth(struct xrping_server *srv,
				   const char *page, size_t count)
{
	return xrping_parse_uint(page, XRDMA_MIN_DEPTH, XRDMA_MAX_DEPTH,
				 &srv->opts.depth);
}

static ssize_t xrping_server_depth_store(struct config_item *item,
					 const char *page, size_t count)
{
	return xrping_server_store(to_server(item), page, count,
				   xrping_server_set_depth);
}

static ssize_t xrping_server_inline_size_show(struct config_item *item,
					      char *page)
{
	return sysfs_emit(page, "%u\n", to_server(item)->opts.inline_size);
}

static int xrping_server_set_inline(struct xrping_server *srv,
				    const char *page, size_t count)
{
	return xrping_parse_uint(page, XRDMA_MIN_INLINE, XRDMA_MAX_INLINE,
				 &srv->opts.inline_size);
}

static ssize_t xrping_server_inline_size_store(struct config_item *item,
					       const char *page, size_t count)
{
	return xrping_server_store(to_server(item), page, count,
				   xrping_server_set_inline);
}

static ssize_t xrping_server_enable_show(struct config_item *item,
					 char *page)
{
	return sysfs_emit(page, "%d\n", !!READ_ONCE(to_server(item)->lsn));
}

static int xrping_server_start(struct xrping_server *srv)
{
	struct xrdma_listener *lsn;

	lockdep_assert_held(&srv->lock);
	if (srv->lsn)
		return 0;
	if (srv->addr.ss_family == AF_UNSPEC)
		return -EDESTADDRREQ;
	xrping_set_port(&srv->addr, srv->port);
	lsn = xrdma_listen(current->nsproxy->net_ns,
			   (struct sockaddr *)&srv->addr, &srv->opts,
			   &xrping_server_ops, srv);
	if (IS_ERR(lsn))
		return PTR_ERR(lsn);
	WRITE_ONCE(srv->lsn, lsn);
	return 0;
}

static void xrping_server_stop(struct xrping_server *srv)
{
	lockdep_assert_held(&srv->lock);
	if (!srv->lsn)
		return;
	xrdma_listener_destroy(srv->lsn);
	WRITE_ONCE(srv->lsn, NULL);
}

static ssize_t xrping_server_enable_store(struct config_item *item,
					  const char *page, size_t count)
{
	struct xrping_server *srv = to_server(item);
	bool on;
	int rc;

	rc = kstrtobool(page, &on);
	if (rc)
		return rc;
	mutex_lock(&srv->lock);
	if (on)
		rc = xrping_server_start(srv);
	else
		xrping_server_stop(srv);
	mutex_unlock(&srv->lock);
	return rc ? rc : count;
}

static ssize_t xrping_server_stats_show(struct config_item *item, char *page)
{
	struct xrping_server *srv = to_server(item);
	unsigned int accepted = 0;
	struct xrdma_info x;
	int at;

	mutex_lock(&srv->lock);
	if (srv->lsn)
		accepted = xrdma_listener_count(srv->lsn);
	mutex_unlock(&srv->lock);
	spin_lock(&srv->xinfo_lock);
	x = srv->xinfo;
	spin_unlock(&srv->xinfo_lock);
	at = sysfs_emit(page,
			"accepted %u\nechoed %lld\nerrors %lld\nregistered %lld\nverified %lld\nbad %lld\nsunk %lld\n",
			accepted, atomic64_read(&srv->echoed),
			atomic64_read(&srv->errors),
			atomic64_read(&srv->registered),
			atomic64_read(&srv->verified),
			atomic64_read(&srv->bad),
			atomic64_read(&srv->sunk));
	return at + sysfs_emit_at(page, at,
				  "chunks_sent %llu\nchunks_received %llu\npushes_sent %llu\npushes_received %llu\nsends_inv %llu\nsends_imm %llu\nsends_received %llu\nmr_remote_invs %llu\nmr_invs_skipped %llu\nmr_invs %llu\nsend_cq_rescued %llu\n",
				  x.chunks_sent, x.chunks_received, x.pushes_sent,
				  x.pushes_received, x.sends_inv, x.sends_imm,
				  x.sends_received, x.mr_remote_invs,
				  x.mr_invs_skipped, x.mr_invs, x.send_cq_rescued);
}

CONFIGFS_ATTR(xrping_server_, addr);
CONFIGFS_ATTR(xrping_server_, port);
CONFIGFS_ATTR(xrping_server_, depth);
CONFIGFS_ATTR(xrping_server_, inline_size);
CONFIGFS_ATTR(xrping_server_, enable);
CONFIGFS_ATTR_RO(xrping_server_, stats);

static struct configfs_attribute *xrping_server_attrs[] = {
	&xrping_server_attr_addr,
	&xrping_server_attr_port,
	&xrping_server_attr_depth,
	&xrping_server_attr_inline_size,
	&xrping_server_attr_enable,
	&xrping_server_attr_stats,
	NULL,
};

static void xrping_server_release(struct config_item *item)
{
	struct xrping_server *srv = to_server(item);

	mutex_lock(&srv->lock);
	xrping_server_stop(srv);
	mutex_unlock(&srv->lock);
	mutex_destroy(&srv->lock);
	kfree(srv);
}

static struct configfs_item_operations xrping_server_item_ops = {
	.release = xrping_server_release,
};

const struct config_item_type xrping_server_type = {
	.ct_item_ops = &xrping_server_item_ops,
	.ct_attrs = xrping_server_attrs,
	.ct_owner = THIS_MODULE,
};
