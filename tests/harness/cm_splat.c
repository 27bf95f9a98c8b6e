// SPDX-License-Identifier: GPL-2.0
/*
 * Deliberate kernel reports, one kind per load, for the self-test of the
 * harness's splat detector (scripts/splat-match, used by scripts/vm):
 *
 *   insmod cm_splat.ko kind=warn      a WARN
 *   insmod cm_splat.ko kind=lockdep   an AB-BA order between two mutexes
 *   insmod cm_splat.ko kind=kasan     a read of freed memory
 *   insmod cm_splat.ko kind=kmemleak  allocations nothing points to
 *   insmod cm_splat.ko kind=hung      a thread blocked until rmmod
 *
 * None of them deadlocks or corrupts anything: the lockdep pair is taken
 * one order after the other, never concurrently; the freed object is only
 * read; the hung thread waits on a completion that unloading completes.
 */

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *kind = "warn";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "warn, lockdep, kasan, kmemleak or hung");

static DEFINE_MUTEX(splat_a);
static DEFINE_MUTEX(splat_b);

static void splat_lockdep(void)
{
	mutex_lock(&splat_a);
	mutex_lock(&splat_b);
	mutex_unlock(&splat_b);
	mutex_unlock(&splat_a);

	mutex_lock(&splat_b);
	mutex_lock(&splat_a);
	mutex_unlock(&splat_a);
	mutex_unlock(&splat_b);
}

static void splat_kasan(void)
{
	char *p = kmalloc(32, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	/* READ_ONCE, so that the compiler keeps the read. */
	pr_info("cm_splat: read after free: %d\n", READ_ONCE(p[8]));
}

#define SPLAT_LEAKS 4

static void splat_kmemleak(void)
{
	int i;

	/* Several objects, so that one stale copy of a pointer left in a
	 * register or on a stack cannot hide them all from the scan.
	 */
	for (i = 0; i < SPLAT_LEAKS; i++)
		if (!kmalloc(128, GFP_KERNEL))
			break;
}

static DECLARE_COMPLETION(splat_release);
static struct task_struct *splat_thread;

static int splat_hung_fn(void *unused)
{
	/* Uninterruptible, so the hung task detector counts it. */
	wait_for_completion(&splat_release);
	return 0;
}

static int splat_hung(void)
{
	splat_thread = kthread_run(splat_hung_fn, NULL, "cm_splat_hung");
	if (IS_ERR(splat_thread)) {
		int ret = PTR_ERR(splat_thread);

		splat_thread = NULL;
		return ret;
	}
	get_task_struct(splat_thread);
	return 0;
}

static int __init cm_splat_init(void)
{
	if (!strcmp(kind, "warn"))
		WARN(1, "cm_splat: deliberate warning, the harness must catch it\n");
	else if (!strcmp(kind, "lockdep"))
		splat_lockdep();
	else if (!strcmp(kind, "kasan"))
		splat_kasan();
	else if (!strcmp(kind, "kmemleak"))
		splat_kmemleak();
	else if (!strcmp(kind, "hung"))
		return splat_hung();
	else
		return -EINVAL;
	return 0;
}
module_init(cm_splat_init);

static void __exit cm_splat_exit(void)
{
	if (!splat_thread)
		return;
	complete(&splat_release);
	kthread_stop(splat_thread);
	put_task_struct(splat_thread);
}
module_exit(cm_splat_exit);

MODULE_DESCRIPTION("Deliberate kernel reports for the test harness's self-test");
MODULE_LICENSE("GPL");
