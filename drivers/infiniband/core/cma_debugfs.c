// SPDX-License-Identifier: GPL-2.0
/*
 * Developer views under /sys/kernel/debug/rdma_cm/ (no ABI promise):
 *   devices  the RDMA devices the CM tracks, one line per port, with the
 *            requests dropped there for their origin
 *   ids      every live id, one line each (cma_view.c)
 *   fail_calls/  fault injection into the calls the CM makes (cma_fault.c)
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

/* Room for one line of the listing of ids; see cma_view.c. */
#define CMA_ID_LINE_MAX		384

/* What a reader of the listing of ids keeps between lines. */
struct cma_ids_reader {
	struct cma_id_view view;
	char line[CMA_ID_LINE_MAX];
};

/*
 * Position 0 is the header, position n + 1 the first id whose handle is
 * at least n. Each id the iterator hands out carries a reference, let go
 * when the iterator moves past it or stops: a destroyed id stays in
 * memory while a line is made of it, and is freed after.
 */
static void *cma_ids_find(loff_t *pos)
{
	unsigned long handle = *pos - 1;
	struct cma_id *cid;

	cid = cma_id_next(&handle);
	*pos = handle + 1;
	return cid;
}

static void *cma_ids_start(struct seq_file *m, loff_t *pos)
{
	return *pos ? cma_ids_find(pos) : SEQ_START_TOKEN;
}

static void *cma_ids_next(struct seq_file *m, void *v, loff_t *pos)
{
	if (v != SEQ_START_TOKEN) {
		*pos = ((struct cma_id *)v)->handle + 2ULL;
		cma_id_put(v);
	} else {
		*pos = 1;
	}
	return cma_ids_find(pos);
}

static void cma_ids_stop(struct seq_file *m, void *v)
{
	if (v && v != SEQ_START_TOKEN)
		cma_id_put(v);
}

static int cma_ids_show(struct seq_file *m, void *v)
{
	struct cma_ids_reader *r = m->private;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, CMA_ID_VIEW_HEADER);
		return 0;
	}
	cma_id_view_take(v, &r->view);
	if (cma_id_view_format(r->line, sizeof(r->line), &r->view) < 0)
		return -ENOSPC;
	seq_puts(m, r->line);
	return 0;
}

static const struct seq_operations cma_ids_seq_ops = {
	.start	= cma_ids_start,
	.next	= cma_ids_next,
	.stop	= cma_ids_stop,
	.show	= cma_ids_show,
};

static int cma_ids_open(struct inode *inode, struct file *file)
{
	return seq_open_private(file, &cma_ids_seq_ops,
				sizeof(struct cma_ids_reader));
}

static const struct file_operations cma_ids_fops = {
	.owner		= THIS_MODULE,
	.open		= cma_ids_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release_private,
};

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
	debugfs_create_file("ids", 0444, cma_debugfs_root, NULL,
			    &cma_ids_fops);
	cma_fault_debugfs_init(cma_debugfs_root);
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
