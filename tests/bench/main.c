// SPDX-License-Identifier: GPL-2.0
/*
 * cm_bench: how fast an RDMA CM sets connections up and tears them down,
 * and what an id costs, measured through the exported rdma_cm API of
 * 6.1 only, so that the same module runs against the in-box rdma_cm and
 * against ours.
 *
 *   insmod cm_bench.ko addr=10.0.0.1 port=7480
 *   echo "seq 100" > /sys/kernel/debug/cm_bench/run
 *   cat /sys/kernel/debug/cm_bench/run
 *
 * A write runs one measurement to its end and fails with its error;
 * a read returns the last one's report, one "key value..." per line.
 * Measurements: "seq N" (N connections one after another), "storm N"
 * (N at once, step by step), "idle N" (N ids created, counted, freed),
 * "floor N" (N connections one after another made with the IB CM
 * directly, RoCE or InfiniBand only).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/inet.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "cm_bench.h"

#define CMB_REPORT_LEN	4096
#define CMB_CMD_LEN	64

static char *addr = "10.0.0.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "address the listener binds and the clients connect to, IPv4 or IPv6 (default 10.0.0.1)");

static ushort port = 7480;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "the listener's port (default 7480)");

unsigned int cmb_timeout_s = 120;
module_param_named(timeout, cmb_timeout_s, uint, 0444);
MODULE_PARM_DESC(timeout, "seconds a step may take before the run fails (default 120)");

/* One measurement at a time; the last report. */
static DEFINE_MUTEX(cmb_lock);
static char *cmb_report;
static struct dentry *cmb_dir;

static int cmb_parse_addr(struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (inet_pton_with_scope(&init_net, AF_UNSPEC, addr, NULL, ss)) {
		pr_err("addr=%s is no IPv4 or IPv6 address\n", addr);
		return -EINVAL;
	}
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	return 0;
}

/* "ok" lines common to seq and storm, then the steps. */
static int cmb_report_run(struct cmb_run *run, const char *mode, s64 total,
			  char *buf, size_t len)
{
	int n;

	n = scnprintf(buf, len,
		      "mode %s\nn %u\naddr %pISc\ndevice %s\ntotal_us %lld\n",
		      mode, run->n, &run->addr,
		      dev_name(&run->listen->device->dev),
		      div_s64(total, NSEC_PER_USEC));
	return n + cmb_report_steps(run, buf + n, len - n);
}

enum cmb_mode {
	CMB_SEQ,
	CMB_STORM,
	CMB_FLOOR,
};

static const char *const cmb_mode_names[] = {
	[CMB_SEQ] = "seq",
	[CMB_STORM] = "storm",
	[CMB_FLOOR] = "floor",
};

static int cmb_do_run(enum cmb_mode mode, u32 n, char *buf, size_t len)
{
	bool storm = mode == CMB_STORM;
	struct sockaddr_storage ss;
	struct cmb_run *run;
	s64 mem = 0;
	int ret, w;

	ret = cmb_parse_addr(&ss);
	if (ret)
		return ret;
	run = cmb_run_alloc(&ss, n);
	if (IS_ERR(run))
		return PTR_ERR(run);
	ret = mode == CMB_FLOOR ? cmb_floor_setup(run) : 0;
	if (!ret)
		ret = storm ? cmb_run_storm(run, &mem) : cmb_run_seq(run);
	if (!ret) {
		w = cmb_report_run(run, cmb_mode_names[mode],
				   cmb_span_ns(run, CMB_CREATE, CMB_DESTROY),
				   buf, len);
		if (storm)
			w += scnprintf(buf + w, len - w,
				       "setup_us %lld\naccept_us %lld\nteardown_us %lld\nestablished_slab_bytes_per_conn %lld\n",
				       div_s64(cmb_span_ns(run, CMB_CREATE,
							   CMB_ESTAB),
					       NSEC_PER_USEC),
				       div_s64(cmb_accept_ns(run),
					       NSEC_PER_USEC),
				       div_s64(cmb_span_ns(run, CMB_DISC,
							   CMB_DESTROY),
					       NSEC_PER_USEC),
				       div_s64(mem, n));
		ret = w;
	}
	cmb_run_free(run);
	return ret;
}

/* Run the command "MODE N"; the report goes to cmb_report. */
static int cmb_command(char *cmd)
{
	char mode[16];
	u32 n;
	int ret;

	if (sscanf(cmd, "%15s %u", mode, &n) != 2) {
		pr_err("'%s': want 'seq N', 'storm N', 'floor N' or 'idle N'\n", cmd);
		return -EINVAL;
	}
	cmb_report[0] = '\0';
	if (!strcmp(mode, "seq"))
		ret = cmb_do_run(CMB_SEQ, n, cmb_report, CMB_REPORT_LEN);
	else if (!strcmp(mode, "storm"))
		ret = cmb_do_run(CMB_STORM, n, cmb_report, CMB_REPORT_LEN);
	else if (!strcmp(mode, "floor"))
		ret = cmb_do_run(CMB_FLOOR, n, cmb_report, CMB_REPORT_LEN);
	else if (!strcmp(mode, "idle"))
		ret = cmb_mem_idle(&init_net, n, cmb_report, CMB_REPORT_LEN);
	else
		ret = -EINVAL;
	if (ret < 0) {
		pr_err("'%s' failed: %d\n", cmd, ret);
		scnprintf(cmb_report, CMB_REPORT_LEN, "error %d\n", ret);
	}
	return ret < 0 ? ret : 0;
}

static ssize_t cmb_run_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char cmd[CMB_CMD_LEN];
	int ret;

	if (!count || count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	strim(cmd);
	mutex_lock(&cmb_lock);
	ret = cmb_command(cmd);
	mutex_unlock(&cmb_lock);
	return ret ? ret : count;
}

static ssize_t cmb_run_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&cmb_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, cmb_report,
				      strlen(cmb_report));
	mutex_unlock(&cmb_lock);
	return ret;
}

static const struct file_operations cmb_run_fops = {
	.owner = THIS_MODULE,
	.read = cmb_run_read,
	.write = cmb_run_write,
	.llseek = default_llseek,
};

static int __init cmb_init(void)
{
	struct sockaddr_storage ss;
	int ret;

	ret = cmb_parse_addr(&ss);
	if (ret)
		return ret;
	cmb_report = kzalloc(CMB_REPORT_LEN, GFP_KERNEL);
	if (!cmb_report)
		return -ENOMEM;
	cmb_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0600, cmb_dir, NULL, &cmb_run_fops);
	return 0;
}

static void __exit cmb_exit(void)
{
	debugfs_remove_recursive(cmb_dir);
	kfree(cmb_report);
}

module_init(cmb_init);
module_exit(cmb_exit);

MODULE_DESCRIPTION("RDMA CM connection setup, teardown and memory benchmark");
MODULE_LICENSE("GPL");
