/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations shared by the files of the connection manager.
 *
 * Locking, from outermost to innermost (Documentation/design.rst):
 *   rtnl  >  cma_lock  >  listener's handler_mutex  >  child's handler_mutex
 *   handler_mutex  >  cma_id.lock (a spinlock, held only to read or
 *   change the state)
 */
#ifndef _CMA_PRIV_H
#define _CMA_PRIV_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ext.h>

struct seq_file;

/**
 * struct cma_device - an RDMA device the CM can use
 * @device: the ib_core device
 * @list: entry on the list of devices, under cma_lock
 * @refcount: one for the device list, one per id bound to the device
 * @released: completed when @refcount drops to zero
 */
struct cma_device {
	struct ib_device *device;
	struct list_head list;
	refcount_t refcount;
	struct completion released;
};

/**
 * struct cma_id - the CM's side of an rdma_cm_id
 * @id: what the consumer sees; it must stay first for nobody's sake but
 *	readability, container_of() finds the rest
 * @lock: protects @state; taken with interrupts off, never held across
 *	anything that sleeps
 * @state: where the id is in its life, changed only by cma_transition()
 *	and cma_enter()
 * @handler_mutex: serialises every call of @id.event_handler, and the
 *	consumer's rdma_lock_handler() sections
 * @refcount: one for the consumer until it destroys the id, one for each
 *	queued work item and in-flight callback that may touch the id
 * @released: completed when @refcount drops to zero; destroy waits for it
 * @handle: stable number of the id, its index in the table of live ids
 * @pid: the creating process, for ids created on behalf of user space
 * @owner: the creating module, or the creating task's name for user ids
 */
struct cma_id {
	struct rdma_cm_id id;
	spinlock_t lock;		/* protects state */
	enum rdma_cm_state state;
	struct mutex handler_mutex;	/* serialises event handlers */
	refcount_t refcount;
	struct completion released;
	u32 handle;
	pid_t pid;
	char owner[TASK_COMM_LEN];
};

static inline struct cma_id *to_cma_id(struct rdma_cm_id *id)
{
	return container_of(id, struct cma_id, id);
}

extern struct mutex cma_lock;
extern struct workqueue_struct *cma_wq;

/* cma_state.c */
bool cma_state_allows(enum rdma_cm_state from, enum rdma_cm_state to);
const char *cma_state_name(enum rdma_cm_state state);
enum rdma_cm_state cma_state(struct cma_id *cid);
bool cma_transition(struct cma_id *cid, enum rdma_cm_state from,
		    enum rdma_cm_state to);
enum rdma_cm_state cma_enter(struct cma_id *cid, enum rdma_cm_state to);

/* cma_id.c */
void cma_id_get(struct cma_id *cid);
void cma_id_put(struct cma_id *cid);
void cma_destroy_handler_unlock(struct cma_id *cid);
unsigned long cma_id_count(void);

/* cma_event.c */
int cma_deliver(struct cma_id *cid, struct rdma_cm_event *event);
int cma_queue_event(struct cma_id *cid, enum rdma_cm_state from,
		    enum rdma_cm_state to, const struct rdma_cm_event *event);

/* cma_device.c */
int cma_devices_init(void);
void cma_devices_exit(void);
void cma_device_put(struct cma_device *cma_dev);

void cma_devices_show(struct seq_file *m);

/* cma_debugfs.c */
void cma_debugfs_init(void);
void cma_debugfs_exit(void);

#endif /* _CMA_PRIV_H */
