// SPDX-License-Identifier: GPL-2.0
/*
 * cm_bench memory: what an idle rdma_cm_id costs.  Two measures: the
 * growth of the slab counters while N ids exist (what the issue asks
 * for, but other allocations of the machine and KASAN's quarantine add
 * noise to it), and the bytes the slab allocator handed to the creating
 * task, seen on the kmalloc and kmem_cache_alloc tracepoints (exact, but
 * blind to what the CM allocates elsewhere, in a work item say).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>
#include <rdma/rdma_cm.h>
#include <trace/events/kmem.h>

#include "cm_bench.h"

/* The task whose allocations the probes count; NULL when none. */
static struct task_struct *cmb_mem_task;
static atomic64_t cmb_mem_req;
static atomic64_t cmb_mem_alloc;

/**
 * cmb_slab_bytes() - bytes in slab pages now, reclaimable or not
 *
 * Return: the machine-wide counters' sum (per-CPU deltas not folded in).
 */
s64 cmb_slab_bytes(void)
{
	return (s64)(global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
		     global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B)) *
	       PAGE_SIZE;
}

static void cmb_count(size_t req, size_t alloc)
{
	if (current != READ_ONCE(cmb_mem_task))
		return;
	atomic64_add(req, &cmb_mem_req);
	atomic64_add(alloc, &cmb_mem_alloc);
}

static void cmb_on_kmalloc(void *data, unsigned long site, const void *ptr,
			   size_t req, size_t alloc, gfp_t gfp, int node)
{
	cmb_count(req, alloc);
}

static void cmb_on_cache_alloc(void *data, unsigned long site,
			       const void *ptr, struct kmem_cache *s, gfp_t gfp,
			       int node)
{
	if (current == READ_ONCE(cmb_mem_task))
		cmb_count(kmem_cache_size(s), kmem_cache_size(s));
}

static int cmb_probes_on(void)
{
	int ret;

	atomic64_set(&cmb_mem_req, 0);
	atomic64_set(&cmb_mem_alloc, 0);
	WRITE_ONCE(cmb_mem_task, current);
	ret = register_trace_kmalloc(cmb_on_kmalloc, NULL);
	if (ret)
		return ret;
	ret = register_trace_kmem_cache_alloc(cmb_on_cache_alloc, NULL);
	if (ret) {
		unregister_trace_kmalloc(cmb_on_kmalloc, NULL);
		tracepoint_synchronize_unregister();
	}
	return ret;
}

static void cmb_probes_off(void)
{
	WRITE_ONCE(cmb_mem_task, NULL);
	unregister_trace_kmem_cache_alloc(cmb_on_cache_alloc, NULL);
	unregister_trace_kmalloc(cmb_on_kmalloc, NULL);
	tracepoint_synchronize_unregister();
}

static int cmb_noop_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;
}

/* Create @n ids into @ids; on error destroy those made. */
static int cmb_create_ids(struct net *net, struct rdma_cm_id **ids, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		ids[i] = rdma_create_id(net, cmb_noop_handler, NULL,
					RDMA_PS_TCP, IB_QPT_RC);
		if (IS_ERR(ids[i])) {
			int ret = PTR_ERR(ids[i]);

			while (i--)
				rdma_destroy_id(ids[i]);
			return ret;
		}
	}
	return 0;
}

/**
 * cmb_mem_idle() - the memory of @n idle ids, and their create and
 *	destroy times
 * @net: namespace of the ids
 * @n: how many
 * @buf: report lines "idle_slab_bytes_per_id", "idle_req_bytes_per_id",
 *	"idle_alloc_bytes_per_id", "create_us", "destroy_us"
 * @len: size of @buf
 *
 * Context: process; one caller at a time (the run lock of main.c).
 * Return: bytes written to @buf, or a negative errno.
 */
int cmb_mem_idle(struct net *net, u32 n, char *buf, size_t len)
{
	struct rdma_cm_id **ids;
	s64 before, grown;
	ktime_t t0, t1, t2;
	u32 i;
	int ret;

	if (!n || n > 10 * CMB_MAX_CONNS)
		return -EINVAL;
	ids = vmalloc_array(n, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	ret = cmb_probes_on();
	if (ret)
		goto out;
	before = cmb_slab_bytes();
	t0 = ktime_get();
	ret = cmb_create_ids(net, ids, n);
	t1 = ktime_get();
	grown = cmb_slab_bytes() - before;
	cmb_probes_off();
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		rdma_destroy_id(ids[i]);
	t2 = ktime_get();
	ret = scnprintf(buf, len,
			"idle_ids %u\nidle_slab_bytes_per_id %lld\nidle_req_bytes_per_id %lld\nidle_alloc_bytes_per_id %lld\nidle_create_us %lld\nidle_destroy_us %lld\n",
			n, div_s64(grown, n),
			div_s64(atomic64_read(&cmb_mem_req), n),
			div_s64(atomic64_read(&cmb_mem_alloc), n),
			ktime_us_delta(t1, t0), ktime_us_delta(t2, t1));
out:
	vfree(ids);
	return ret;
}
