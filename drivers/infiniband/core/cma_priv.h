/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations shared by the files of the connection manager.
 *
 * Locking, from outermost to innermost (Documentation/design.rst):
 *   rtnl  >  listener's handler_mutex  >  child's handler_mutex
 *         >  cma_lock  >  cma_id.qp_mutex  >  cma_id.lock (a spinlock,
 *   held only to read or change the state and the multicast list)
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
#include <rdma/ib.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ext.h>

struct dentry;

struct cma_path_answer;
struct cma_port;
struct iw_cm_event;
struct seq_file;

/**
 * struct cma_device - an RDMA device the CM can use
 * @device: the ib_core device
 * @list: entry on the list of devices, under cma_lock
 * @ids: the ids bound to the device (cma_id.device_entry), under cma_lock
 * @refcount: one for the device list, one per id bound to the device
 * @released: completed when @refcount drops to zero
 * @default_gid_type: per port (from rdma_start_port()), the GID type new
 *	ids bound to it use; written under cma_lock, read with READ_ONCE()
 * @default_roce_tos: per port, the type of service of RoCE ids that set
 *	none; as @default_gid_type
 * @unroutable_reqs: per port (from rdma_start_port()), the requests
 *	dropped because they could not have come through the netdev they
 *	arrived on (cma_req_routable()); under cma_lock
 */
struct cma_device {
	struct ib_device *device;
	struct list_head list;
	struct list_head ids;
	refcount_t refcount;
	struct completion released;
	enum ib_gid_type *default_gid_type;
	u8 *default_roce_tos;
	unsigned long unroutable_reqs[];
};

/**
 * struct cma_id - the CM's side of an rdma_cm_id
 * @id: what the consumer sees; it must stay first for nobody's sake but
 *	readability, container_of() finds the rest
 * @lock: protects @state; taken with interrupts off, never held across
 *	anything that sleeps
 * @state: where the id is in its life, changed only by cma_transition()
 *	and cma_enter()
 * @state_since: jiffies when @state was last written, under @lock
 * @handler_mutex: serialises every call of @id.event_handler, and the
 *	consumer's rdma_lock_handler() sections
 * @refcount: one for the consumer until it destroys the id, one for each
 *	queued work item and in-flight callback that may touch the id
 * @released: completed when @refcount drops to zero; destroy waits for it
 * @handle: stable number of the id, its index in the table of live ids
 * @pid: the creating process, for ids created on behalf of user space
 * @owner: the creating module, or the creating task's name for user ids
 * @cma_dev: the device the id is bound to, a reference; set once, under
 *	the handler mutex or before the id is visible
 * @device_entry: on @cma_dev's list of ids, under cma_lock
 * @port: the port the id owns in its port space, under cma_lock
 * @port_entry: on @port's list of owners, under cma_lock
 * @listens: a listener's per-device listens (struct cma_dev_listen),
 *	under cma_lock
 * @listen_any_entry: a wildcard listener's entry on the list that devices
 *	added later are offered to, under cma_lock
 * @backlog: what rdma_listen() was given
 * @mcs: the multicast groups the id joined (struct cma_mc), under @lock
 * @neigh_entry: on the list of RoCE ids whose peer's neighbour entry is
 *	watched, under cma_neigh_lock (cma_netevent.c)
 * @ib: the IB CM id of a connection; set under the handler mutex
 * @iw: the iWARP CM id of a connection; set under the handler mutex
 * @qp_mutex: serialises changes of @id.qp against the CM's own
 *	modifications of the QP
 * @seq_num: the starting packet sequence number (24 bits) of our side
 * @qp_num: our QP number, from the QP or from the consumer's parameters
 * @ece: enhanced connection establishment options to send
 * @srq: our QP uses a shared receive queue
 * @reuseaddr: rdma_set_reuseaddr()
 * @afonly: IPv6 ids do not take IPv4 connections
 * @afonly_set: @afonly was chosen by rdma_set_afonly()
 * @tos_set: @tos was chosen by rdma_set_service_type()
 * @timeout_set: @timeout was chosen by rdma_set_ack_timeout()
 * @min_rnr_timer_set: @min_rnr_timer was chosen by rdma_set_min_rnr_timer()
 * @addr_query_pending: rdma_resolve_ip() was called and its callback has
 *	not started: destruction must cancel it (the callback clears it
 *	first thing, so a destruction from the callback does not wait for
 *	itself); the query holds a reference on the id, dropped by the
 *	callback when it is done or by the cancel if it never ran
 * @addr_query_used: rdma_resolve_ip() was called on the id once: a new
 *	call cancels the request before (cma_resolve.c)
 * @rep_sent: the passive side has sent its REP
 * @release_work: finishes a destruction decided on cma_wq (see
 *	cma_destroy_handler_unlock_deferred())
 * @tos: type of service for RoCE traffic
 * @service_recs: what rdma_resolve_ib_service() found, owned; set under
 *	the handler mutex
 * @nr_service_recs: how many
 * @service_query_pending: a service record query holds a reference on
 *	the id; destruction asks the backend to end it
 * @path_query_pending: a path record query holds a reference on the id;
 *	destruction asks the backend to end it
 * @path_query: ib_sa's handle of that query
 * @path_query_id: and its number
 * @path_answer: where that query's answer goes to be delivered from
 *	cma_wq; the query owns it, then the answer
 * @node_type: rdma_restrict_node_type(): the node type of the devices the
 *	id may bind to, 0 for any; under cma_lock
 * @qkey: a UD id's qkey, 0 until set; set once, by cmpxchg (see
 *	cma_set_qkey())
 * @timeout: the QP's local ACK timeout
 * @min_rnr_timer: the QP's minimal RNR NAK timer
 * @listen_iw: a listener bound to an iWARP device: its iw_cm listen
 *	there, which rdma_iw_cm_id() answers with as in-box; written under
 *	cma_lock, read without it
 */
struct cma_id {
	struct rdma_cm_id id;
	spinlock_t lock;		/* protects state */
	enum rdma_cm_state state;
	unsigned long state_since;
	struct mutex handler_mutex;	/* serialises event handlers */
	refcount_t refcount;
	struct completion released;
	u32 handle;
	pid_t pid;
	char owner[TASK_COMM_LEN];

	struct cma_device *cma_dev;
	struct list_head device_entry;
	struct cma_port *port;
	struct hlist_node port_entry;
	struct list_head listens;
	struct list_head listen_any_entry;
	int backlog;
	struct list_head mcs;
	struct list_head neigh_entry;

	struct ib_cm_id *ib;
	struct iw_cm_id *iw;
	struct iw_cm_id *listen_iw;
	struct mutex qp_mutex;		/* protects id.qp */
	u32 seq_num;
	u32 qp_num;
	struct rdma_ucm_ece ece;
	/* Not bitfields: they are written under different locks. */
	bool srq;
	bool reuseaddr;
	bool afonly;
	bool afonly_set;
	bool tos_set;
	bool timeout_set;
	bool min_rnr_timer_set;
	bool addr_query_pending;
	bool addr_query_used;
	bool rep_sent;
	bool service_query_pending;
	bool path_query_pending;
	struct ib_sa_query *path_query;
	int path_query_id;
	struct cma_path_answer *path_answer;
	struct rdma_ib_service_rec *service_recs;
	unsigned int nr_service_recs;
	u32 qkey;
	u8 tos;
	u8 node_type;
	u8 timeout;
	u8 min_rnr_timer;
	struct work_struct release_work;
};

static inline struct cma_id *to_cma_id(struct rdma_cm_id *id)
{
	return container_of(id, struct cma_id, id);
}

extern struct mutex cma_lock;
extern struct list_head cma_devices;
extern struct workqueue_struct *cma_wq;

/* cma_state.c */
bool cma_state_allows(enum rdma_cm_state from, enum rdma_cm_state to);
const char *cma_state_name(enum rdma_cm_state state);
enum rdma_cm_state cma_state(struct cma_id *cid);
bool cma_transition(struct cma_id *cid, enum rdma_cm_state from,
		    enum rdma_cm_state to);
enum rdma_cm_state cma_enter(struct cma_id *cid, enum rdma_cm_state to);

static inline struct sockaddr *cma_src_addr(struct cma_id *cid)
{
	return (struct sockaddr *)&cid->id.route.addr.src_addr;
}

static inline struct sockaddr *cma_dst_addr(struct cma_id *cid)
{
	return (struct sockaddr *)&cid->id.route.addr.dst_addr;
}

static inline struct net *cma_id_net(struct cma_id *cid)
{
	return cid->id.route.addr.dev_addr.net;
}

/* cma_id.c */
struct cma_id *cma_id_alloc(struct net *net, rdma_cm_event_handler handler,
			    void *context, enum rdma_ucm_port_space ps,
			    enum ib_qp_type qp_type, enum rdma_cm_state state,
			    const char *owner);
void cma_id_get(struct cma_id *cid);
void cma_id_put(struct cma_id *cid);
void cma_destroy_handler_unlock(struct cma_id *cid);
void cma_destroy_child(struct cma_id *cid);
void cma_destroy_handler_unlock_deferred(struct cma_id *cid);
void cma_id_flush_releases(void);
int cma_ids_init(void);
void cma_ids_exit(void);
unsigned long cma_id_count(void);
struct cma_id *cma_id_next(unsigned long *handle);

/* cma_event.c */
int cma_deliver(struct cma_id *cid, struct rdma_cm_event *event);
int cma_deliver_unlock(struct cma_id *cid, struct rdma_cm_event *event);
void cma_deliver_put_unlock(struct cma_id *cid, struct rdma_cm_event *event);
int cma_queue_event(struct cma_id *cid, enum rdma_cm_state from,
		    enum rdma_cm_state to, const struct rdma_cm_event *event);
int cma_queue_event_gfp(struct cma_id *cid, enum rdma_cm_state from,
			enum rdma_cm_state to,
			const struct rdma_cm_event *event, gfp_t gfp);

/* cma_netevent.c */
void cma_neigh_watch(struct cma_id *cid);
void cma_neigh_unwatch(struct cma_id *cid);
int cma_netevent_init(void);
void cma_netevent_exit(void);

/* cma_addr.c */
size_t cma_addr_size(const struct sockaddr *addr);
bool cma_addr_any(const struct sockaddr *addr);
bool cma_addr_equal(const struct sockaddr *a, const struct sockaddr *b);
u16 cma_addr_port(const struct sockaddr *addr);
void cma_addr_set_port(struct sockaddr *addr, u16 port);
int cma_addr_check(const struct sockaddr *addr);

/* cma_port.c */
int cma_ports_init(void);
void cma_ports_exit(void);
int cma_port_bind(struct cma_id *cid);
void cma_port_release(struct cma_id *cid);
int cma_port_claim_for_listen(struct cma_id *cid);
int cma_ib_claim_port_space(struct sockaddr_ib *sib,
			    enum rdma_ucm_port_space id_ps);
enum rdma_ucm_port_space cma_addr_port_space(const struct sockaddr *src,
					     enum rdma_ucm_port_space id_ps);
struct hlist_head *cma_port_owners(struct net *net,
				   enum rdma_ucm_port_space ps, u16 num);

/* cma_bind.c */
int cma_bind(struct cma_id *cid, const struct sockaddr *src,
	     const struct sockaddr *dst);
void cma_unbind(struct cma_id *cid);

/* cma_resolve.c */
void cma_cancel_addr_query(struct cma_id *cid);

/* cma_device.c */
int cma_devices_init(void);
void cma_devices_exit(void);
int cma_acquire_dev(struct cma_id *cid);
int cma_acquire_loopback_dev(struct cma_id *cid);
int cma_acquire_ib_dev(struct cma_id *cid);
int cma_attach_dev(struct cma_id *cid, struct ib_device *device, u32 port,
		   const struct ib_gid_attr *sgid_attr);
void cma_release_dev(struct cma_id *cid);
void cma_device_get(struct cma_device *cma_dev);
void cma_device_put(struct cma_device *cma_dev);
bool cma_dev_allowed(struct cma_id *cid, struct ib_device *device);
void cma_devices_show(struct seq_file *m);
void cma_device_count_unroutable(struct ib_device *device, u32 port);

/* cma_origin.c */
bool cma_req_routable(struct net_device *ndev, const struct sockaddr *peer,
		      const struct sockaddr *self);

/* cma_defaults.c */
int cma_roce_mode_parse(const char *buf, size_t count);
const char *cma_roce_mode_name(enum ib_gid_type gid_type);
int cma_roce_tos_parse(const char *buf, u8 *tos);
int cma_defaults_alloc(struct cma_device *cma_dev);
void cma_defaults_free(struct cma_device *cma_dev);
enum ib_gid_type cma_default_gid_type(struct cma_device *cma_dev, u32 port);
u8 cma_default_roce_tos(struct cma_device *cma_dev, u32 port);
int cma_set_default_gid_type(struct cma_device *cma_dev, u32 port,
			     enum ib_gid_type gid_type);
int cma_set_default_roce_tos(struct cma_device *cma_dev, u32 port, u8 tos);
struct cma_device *cma_find_device(const char *name);

/* cma_configfs.c */
int cma_configfs_init(void);
void cma_configfs_exit(void);

/* cma_listen.c */
void cma_listen_device_added(struct cma_device *cma_dev,
			     struct list_head *todo);
int cma_listens_make(struct list_head *todo);
bool cma_dev_listener(struct cma_id *cid);
void cma_listen_device_removed(struct cma_device *cma_dev,
			       struct list_head *dead);
void cma_listens_destroy(struct list_head *dead);
void cma_listen_stop(struct cma_id *cid);
struct cma_id *cma_find_listener(struct net *net, enum rdma_ucm_port_space ps,
				 u16 port, const struct sockaddr *dst,
				 struct ib_device *device);

/* cma_qp.c */
int cma_qp_to_rtr(struct cma_id *cid, const struct rdma_conn_param *param);
int cma_qp_to_rts(struct cma_id *cid, const struct rdma_conn_param *param);
int cma_qp_to_err(struct cma_id *cid);

/* cma_hdr.c */
#define CMA_HDR_SIZE	36
int cma_hdr_encode(void *buf, const struct sockaddr *src,
		   const struct sockaddr *dst);
void *cma_hdr_with_data(struct cma_id *cid,
			const struct rdma_conn_param *param, u8 room, u8 *len);
int cma_hdr_decode(const void *buf, struct sockaddr_storage *src,
		   struct sockaddr_storage *dst);
__be64 cma_service_id(enum rdma_ucm_port_space ps, u16 port);
__be64 cma_addr_service_id(enum rdma_ucm_port_space ps,
			   const struct sockaddr *addr);
u8 cma_hdr_len(const struct sockaddr *addr);
void cma_ib_req_addrs(const struct sa_path_rec *path, __be64 sid,
		      struct sockaddr_storage *src,
		      struct sockaddr_storage *dst);
int cma_service_id_split(__be64 sid, enum rdma_ucm_port_space *ps,
			 u16 *port);

/* cma_ib.c */
int cma_ib_connect(struct cma_id *cid, const struct rdma_conn_param *param);
int cma_ib_accept(struct cma_id *cid, const struct rdma_conn_param *param);
int cma_ib_complete_connect(struct cma_id *cid);
int cma_ib_listen(struct cma_id *cid, struct ib_device *device,
		  struct ib_cm_id **cm_id);
void cma_ib_req_paths(struct ib_cm_req_param *req, struct rdma_route *route);
int cma_req_route(struct rdma_route *route, const struct sa_path_rec *primary,
		  const struct sa_path_rec *alt);

/* cma_sidr.c */
int cma_set_qkey(struct cma_id *cid, u32 qkey);
int cma_sidr_connect(struct cma_id *cid, const struct rdma_conn_param *param);
int cma_sidr_reply(struct cma_id *cid, enum ib_cm_sidr_status status,
		   u32 qkey, const void *pdata, u8 len);
void cma_sidr_req_event(struct rdma_cm_event *event,
			const struct ib_cm_event *ev, u8 offset);

/* cma_mcast.c */
void cma_mc_mgid(const struct sockaddr *addr, enum ib_gid_type gid_type,
		 union ib_gid *mgid);
void cma_mc_leave_all(struct cma_id *cid);

/* cma_iw.c */
int cma_iw_connect(struct cma_id *cid, const struct rdma_conn_param *param);
int cma_iw_accept(struct cma_id *cid, const struct rdma_conn_param *param);
int cma_iw_listen(struct cma_id *cid, struct ib_device *device,
		  struct iw_cm_id **cm_id);
int cma_iw_init_qp_attr(struct cma_id *cid, struct ib_qp_attr *attr,
			int *mask);
int cma_iw_handler(struct iw_cm_id *iw, struct iw_cm_event *ev);

/**
 * struct cma_id_view - a snapshot of one id, for the listing of ids
 * @handle: the id's handle
 * @state: its state
 * @src: its source address, AF_UNSPEC when none
 * @dst: its destination address, AF_UNSPEC when none
 * @ps: its port space
 * @qp_type: its QP type
 * @qp_num: its QP number, 0 when it has none
 * @dev: the name of the device it is bound to, "" when none
 * @port: the device port it is bound to
 * @owner: the module or task that created it
 * @pid: the process that created it, 0 for kernel ids
 * @age_ms: milliseconds since it entered @state
 * @tos: its type of service: its own, or else its RoCE port's default
 */
struct cma_id_view {
	u32 handle;
	enum rdma_cm_state state;
	struct sockaddr_storage src;
	struct sockaddr_storage dst;
	enum rdma_ucm_port_space ps;
	enum ib_qp_type qp_type;
	u32 qp_num;
	char dev[IB_DEVICE_NAME_MAX];
	u32 port;
	char owner[TASK_COMM_LEN];
	pid_t pid;
	unsigned int age_ms;
	u8 tos;
};

/* cma_view.c */
#define CMA_ID_VIEW_HEADER \
	"# id state src dst ps qp_type qpn dev port owner pid age_ms tos\n"
void cma_id_view_take(struct cma_id *cid, struct cma_id_view *v);
int cma_id_view_format(char *buf, size_t size, const struct cma_id_view *v);

/* cma_service.c */

/**
 * typedef cma_service_done_t - the end of an IB service record query
 * @cid: the id the query was for
 * @status: 0, or why the query failed (-EINTR once cancelled)
 * @recs: the records found, kmalloc()ed; the callee owns them (even on
 *	failure, when they may be NULL)
 * @n: how many
 *
 * Called exactly once for each query started, in process context, with
 * no lock held.
 */
typedef void (*cma_service_done_t)(struct cma_id *cid, int status,
				   struct rdma_ib_service_rec *recs,
				   unsigned int n);

/**
 * struct cma_sa_ops - how IB service records are looked up
 * @query: start a query for @ibs on @cid's device and port; 0 and @done
 *	is called later, or an error and it never is
 * @cancel: have a query of @cid's in flight end soon (with -EINTR); it
 *	may already have ended
 */
struct cma_sa_ops {
	int (*query)(struct cma_id *cid, const struct rdma_ucm_ib_service *ibs,
		     cma_service_done_t done);
	void (*cancel)(struct cma_id *cid);
};

void cma_set_sa_ops(const struct cma_sa_ops *ops);

/**
 * struct cma_path_ops - how InfiniBand path records are looked up
 * @query: start a query for @rec's components in @mask on @cid's device
 *	and port; 0 and cma_path_done() is called later, or an error and
 *	it never is
 * @cancel: have a query of @cid's in flight end soon (with -EINTR); it
 *	may already have ended
 */
struct cma_path_ops {
	int (*query)(struct cma_id *cid, struct sa_path_rec *rec,
		     ib_sa_comp_mask mask, unsigned long timeout_ms);
	void (*cancel)(struct cma_id *cid);
};

/**
 * struct cma_mc_sa_ops - how InfiniBand multicast groups are joined
 * @join: join as @rec's components in @mask say on @cid's device and
 *	port; @answer gets the SA's answer, now or later, with @context in
 *	the returned join's context
 * @leave: leave, once no answer is being delivered
 * @member: the record of a group @cid's port is a member of, from the SA's
 *	cache (the IPoIB broadcast group, for RDMA_PS_IPOIB's qkey)
 */
struct cma_mc_sa_ops {
	struct ib_sa_multicast *(*join)(struct cma_id *cid,
					struct ib_sa_mcmember_rec *rec,
					ib_sa_comp_mask mask,
					int (*answer)(int status,
						      struct ib_sa_multicast *m),
					void *context);
	void (*leave)(struct ib_sa_multicast *m);
	int (*member)(struct cma_id *cid, union ib_gid *mgid,
		      struct ib_sa_mcmember_rec *rec);
};

/* cma_mcast.c, InfiniBand */
void cma_set_mc_sa_ops(const struct cma_mc_sa_ops *ops);
void cma_mc_ib_mgid(const struct sockaddr *addr, const unsigned char *broadcast,
		    enum rdma_ucm_port_space ps, union ib_gid *mgid);
ib_sa_comp_mask cma_mc_ib_request(struct rdma_dev_addr *dev_addr,
				  const struct sockaddr *addr,
				  enum rdma_ucm_port_space ps, u8 join_state,
				  u32 qkey, struct ib_sa_mcmember_rec *rec);
int cma_mc_ib_broadcast_qkey(struct cma_id *cid, u32 *qkey);
int cma_mc_join_ib(struct rdma_cm_id *id, struct sockaddr *addr,
		   u8 join_state, void *context);

/* cma_path.c */
void cma_set_path_ops(const struct cma_path_ops *ops);
ib_sa_comp_mask cma_path_request(struct rdma_dev_addr *dev_addr,
				 const struct sockaddr *dst,
				 enum rdma_ucm_port_space ps, u8 tos,
				 struct sa_path_rec *rec);
void cma_path_done(struct cma_id *cid, int status, struct sa_path_rec *rec);

/**
 * struct cma_paths - the paths of an SA answer, by purpose
 * @primary: the path the connection takes
 * @inbound: the primary path's inbound direction, or NULL
 * @outbound: its outbound direction, or NULL
 */
struct cma_paths {
	const struct sa_path_rec *primary;
	const struct sa_path_rec *inbound;
	const struct sa_path_rec *outbound;
};

void cma_path_sort(const struct sa_path_rec *recs, int n,
		   struct cma_paths *paths);
void cma_path_done_recs(struct cma_id *cid, int status,
			const struct sa_path_rec *recs, int n);
int cma_path_query(struct cma_id *cid, unsigned long timeout_ms);
void cma_cancel_path_query(struct cma_id *cid);
extern struct ib_sa_client cma_sa_client;
void cma_path_init(void);
void cma_path_exit(void);
void cma_cancel_service_query(struct cma_id *cid);

/* cma_fault.c */
#ifdef CONFIG_FAULT_INJECTION
int cma_fail_call(const char *call);
void cma_fault_debugfs_init(struct dentry *root);
#else
static inline int cma_fail_call(const char *call)
{
	return 0;
}

static inline void cma_fault_debugfs_init(struct dentry *root)
{
}
#endif

/*
 * Every fallible call the CM makes out (IB CM, iw_cm, verbs, address
 * resolution) and every allocation on its connection paths goes through
 * one of these, so that fault injection can fail it (cma_fault.c): the
 * call is then not made and -ENOMEM (or NULL) is what it returned.
 */
#define CMA_CALL(call)		(cma_fail_call(#call) ?: (call))
#define CMA_CALL_PTR(call)	(cma_fail_call(#call) ? ERR_PTR(-ENOMEM) : (call))
#define CMA_ALLOC(alloc)	(cma_fail_call(#alloc) ? NULL : (alloc))

/* cma_debugfs.c */
void cma_debugfs_init(void);
void cma_debugfs_exit(void);

#endif /* _CMA_PRIV_H */
