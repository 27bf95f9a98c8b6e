// SPDX-License-Identifier: GPL-2.0
/*
 * Developer views under /sys/kernel/debug/rdma_cm/ (no ABI promise):
 *   devices  the RDMA devices the CM tracks, one line per port
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "cma_priv.h"

static struct dentry *cma_debugfs_root;

static int cma_devices_open_show(struct seq_file *m, void *unused)
{
	cma_devices_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cma_devices_open);

/**
 * cma_debugfs_init - create the debugfs views
 *
 * Failure to create them is not an error: the CM works without them.
 *
 * Context: process context, module init.
 */
void cma_debugfs_init(void)
{
	cma_debugfs_root = debugfs_create_dir("rdma_cm", NULL);
	debugfs_create_file("devices", 0444, cma_debugfs_root, NULL,
			    &cma_devices_open_fops);
}

/**
 * cma_debugfs_exit - remove the debugfs views
 *
 * Context: process context, module exit.
 */
void cma_debugfs_exit(void)
{
	debugfs_remove_recursive(cma_debugfs_root);
}
