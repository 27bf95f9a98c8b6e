// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection into the CM's calls out: each fallible IB CM, iw_cm,
 * verbs and address-resolution call, and each allocation on the
 * connection paths, is made through CMA_CALL(), CMA_CALL_PTR() or
 * CMA_ALLOC() (cma_priv.h). When the kernel's fault-injection framework
 * says so, the call is not made and fails with -ENOMEM (NULL for an
 * allocation); this reaches the asynchronous paths (IB CM and iw_cm
 * callbacks, work items) that failslab's task filter and fail-nth do
 * not.
 *
 * The knobs are the framework's, in /sys/kernel/debug/rdma_cm/fail_calls/
 * (probability, interval, times, space, verbose, task-filter: see
 * Documentation/fault-injection/fault-injection.rst in the kernel); the
 * file "injected" there counts the failures made. Built only with
 * CONFIG_FAULT_INJECTION; without it the gates compile to nothing.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fault-inject.h>

#include "cma_priv.h"
#include "cma_trace.h"

static DECLARE_FAULT_ATTR(cma_fail_calls);
static atomic_t cma_fail_injected = ATOMIC_INIT(0);

/**
 * cma_fail_call - whether fault injection fails this call
 * @call: the call, as written, for the trace
 *
 * Context: any; does not sleep.
 * Return: -ENOMEM if the call is to fail, else 0.
 */
int cma_fail_call(const char *call)
{
	if (!should_fail(&cma_fail_calls, 1))
		return 0;
	atomic_inc(&cma_fail_injected);
	trace_cm_fault(call);
	return -ENOMEM;
}

/**
 * cma_fault_debugfs_init - the fault-injection knobs in debugfs
 * @root: the CM's debugfs directory
 *
 * Without CONFIG_FAULT_INJECTION_DEBUG_FS there are none: the attributes
 * keep their defaults, which never fail a call.
 *
 * Context: process context, module init.
 */
void cma_fault_debugfs_init(struct dentry *root)
{
	struct dentry *dir;

	dir = fault_create_debugfs_attr("fail_calls", root, &cma_fail_calls);
	if (!IS_ERR(dir))
		debugfs_create_atomic_t("injected", 0444, dir,
					&cma_fail_injected);
}
