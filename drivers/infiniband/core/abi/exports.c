// SPDX-License-Identifier: GPL-2.0
/*
 * The symbols the in-box 6.1 rdma_cm.ko exports, exported from one place
 * so that each carries the in-box module's symbol version (CRC).
 *
 * With CONFIG_MODVERSIONS every module that imports rdma_destroy_id, say,
 * records the CRC it saw in the kernel's Module.symvers, and refuses to
 * load against an exporter whose CRC differs ("disagrees about version of
 * symbol"). genksyms computes that CRC from the exported declaration with
 * every type it reaches expanded as far as the exporting translation unit
 * can see: a struct that is only forward-declared counts differently
 * from one whose body is visible. struct ib_device, reached from most
 * prototypes, points to types that only ib_core's private headers
 * define. So the CRCs match the distribution's only when the exporting
 * unit sees exactly what the in-box drivers/infiniband/core/cma.c sees:
 * its include list, private headers included.
 *
 * Those private headers are read from the kernel source of the target
 * kernel at build time (KSRC, see the top Makefile); they are not part of
 * this tree. Without them the module still builds and works, but the
 * kernel's own consumers (rdma_ucm, nvme-rdma, rpcrdma...) built with
 * MODVERSIONS will not load on it. scripts/check-symvers compares every
 * CRC with the distribution's Module.symvers.
 *
 * The functions themselves, and their kernel-doc, live with their
 * concern: cma_id.c, cma_bind.c, cma_conn.c and so on. This file is the
 * one place that follows the in-box cma.c of a given kernel version: a
 * later kernel gets its include list here.
 *
 * rdma_res_to_id() is not exported: it hands out the in-tree private
 * struct rdma_id_private, which this module does not have, and nothing
 * outside the in-tree rdma_cm and ib_core's restrack code calls it.
 */

/* The include list of the in-box 6.1 cma.c, in its order. */
#include <linux/completion.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/rbtree.h>
#include <linux/igmp.h>
#include <linux/xarray.h>
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <linux/module.h>
#include <net/route.h>

#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netevent.h>
#include <net/tcp.h>
#include <net/ipv6.h>
#include <net/ip_fib.h>
#include <net/ip6_route.h>

#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>
#include <rdma/rdma_netlink.h>
#include <rdma/ib.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/iw_cm.h>

#ifdef CMA_INBOX_PRIVATE_HEADERS
#include "core_priv.h"
#include "cma_priv.h"
#include "cma_trace.h"
#endif

/* cma_id.c: creation, destruction, the handler mutex */
EXPORT_SYMBOL(__rdma_create_kernel_id);
EXPORT_SYMBOL(rdma_create_user_id);
EXPORT_SYMBOL(rdma_destroy_id);
EXPORT_SYMBOL(rdma_lock_handler);
EXPORT_SYMBOL(rdma_unlock_handler);

/* cma_msg.c: names of events and reject reasons */
EXPORT_SYMBOL(rdma_event_msg);
EXPORT_SYMBOL(rdma_reject_msg);

/* cma_bind.c: local addresses and their options */
EXPORT_SYMBOL(rdma_bind_addr);
EXPORT_SYMBOL(rdma_set_afonly);
EXPORT_SYMBOL(rdma_set_reuseaddr);

/* cma_resolve.c and cma_route.c: address and route resolution */
EXPORT_SYMBOL(rdma_resolve_addr);
EXPORT_SYMBOL(rdma_resolve_route);
EXPORT_SYMBOL(rdma_set_ib_path);
EXPORT_SYMBOL(rdma_set_service_type);
EXPORT_SYMBOL(rdma_read_gids);

/* cma_hdr.c: the CM service ID */
EXPORT_SYMBOL(rdma_get_service_id);

/* cma_qp.c: the id's QP and its attributes */
EXPORT_SYMBOL(rdma_create_qp);
EXPORT_SYMBOL(rdma_destroy_qp);
EXPORT_SYMBOL(rdma_init_qp_attr);
EXPORT_SYMBOL(rdma_set_ack_timeout);
EXPORT_SYMBOL(rdma_set_min_rnr_timer);

/* cma_listen.c and cma_conn.c: listening and the connection handshake */
EXPORT_SYMBOL(rdma_listen);
EXPORT_SYMBOL(rdma_connect);
EXPORT_SYMBOL(rdma_connect_locked);
EXPORT_SYMBOL(rdma_connect_ece);
EXPORT_SYMBOL(rdma_accept);
EXPORT_SYMBOL(rdma_accept_ece);
EXPORT_SYMBOL(rdma_reject);
EXPORT_SYMBOL(rdma_consumer_reject_data);
EXPORT_SYMBOL(rdma_notify);
EXPORT_SYMBOL(rdma_disconnect);

/* cma_iw.c: the iWARP CM id under an id */
EXPORT_SYMBOL(rdma_iw_cm_id);

/* cma_mcast.c: multicast groups */
EXPORT_SYMBOL(rdma_join_multicast);
EXPORT_SYMBOL(rdma_leave_multicast);
