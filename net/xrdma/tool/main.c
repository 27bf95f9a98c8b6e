// SPDX-License-Identifier: GPL-2.0
/*
 * xrping.ko: the configfs subsystem and its two groups, servers/ and
 * tests/, in which the user makes objects with mkdir.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "xrping.h"

static const struct xrdma_opts xrping_default_opts = {
	.depth = 16,
	.inline_size = 4096,
	.timeout_ms = 5000,
};

static struct config_item *xrping_make_server(struct config_group *group,
					      const char *name)
{
	struct xrping_server *srv;

	srv = kzalloc(sizeof(*srv), GFP_KERNEL);
	if (!srv)
		return ERR_PTR(-ENOMEM);
	mutex_init(&srv->lock);
	spin_lock_init(&srv->peers_lock);
	spin_lock_init(&srv->xinfo_lock);
	INIT_LIST_HEAD(&srv->peers);
	srv->port = XRPING_DEFAULT_PORT;
	srv->opts = xrping_default_opts;
	config_item_init_type_name(&srv->item, name, &xrping_server_type);
	return &srv->item;
}

static struct config_item *xrping_make_test(struct config_group *group,
					    const char *name)
{
	struct xrping_test *t;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return ERR_PTR(-ENOMEM);
	mutex_init(&t->lock);
	t->params.port = XRPING_DEFAULT_PORT;
	t->params.size = 64;
	t->params.count = 1000;
	t->params.conns = 1;
	t->params.window = 1;
	t->params.chain = 1;
	t->params.opts = xrping_default_opts;
	config_item_init_type_name(&t->item, name, &xrping_test_type);
	return &t->item;
}

static struct configfs_group_operations xrping_servers_ops = {
	.make_item = xrping_make_server,
};

static struct configfs_group_operations xrping_tests_ops = {
	.make_item = xrping_make_test,
};

static const struct config_item_type xrping_servers_type = {
	.ct_group_ops = &xrping_servers_ops,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type xrping_tests_type = {
	.ct_group_ops = &xrping_tests_ops,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type xrping_root_type = {
	.ct_owner = THIS_MODULE,
};

static struct config_group xrping_servers;
static struct config_group xrping_tests;

static struct configfs_subsystem xrping_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "xrping",
			.ci_type = &xrping_root_type,
		},
	},
};

static int __init xrping_init(void)
{
	int rc;

	config_group_init(&xrping_subsys.su_group);
	mutex_init(&xrping_subsys.su_mutex);
	config_group_init_type_name(&xrping_servers, "servers",
				    &xrping_servers_type);
	configfs_add_default_group(&xrping_servers, &xrping_subsys.su_group);
	config_group_init_type_name(&xrping_tests, "tests",
				    &xrping_tests_type);
	configfs_add_default_group(&xrping_tests, &xrping_subsys.su_group);
	rc = configfs_register_subsystem(&xrping_subsys);
	if (rc)
		pr_err("cannot register the configfs subsystem: %d\n", rc);
	return rc;
}

static void __exit xrping_exit(void)
{
	configfs_unregister_subsystem(&xrping_subsys);
}

module_init(xrping_init);
module_exit(xrping_exit);
MODULE_DESCRIPTION("xrping: a ping-pong test tool on xrdma, driven by configfs");
MODULE_LICENSE("GPL");
