// SPDX-License-Identifier: GPL-2.0
/*
 * What the CM puts on the wire on top of the IB CM: the 36-byte header in
 * front of the consumer's private data in a REQ, and the service ID that
 * names the port space and port being connected to.
 *
 * Header layout (all fields big-endian):
 *   byte 0      version, 0
 *   byte 1      IP version in bits 7:4 (4 or 6)
 *   bytes 2-3   the active side's source port
 *   bytes 4-19  source address
 *   bytes 20-35 destination address
 * An IPv4 address takes the last 4 bytes of its 16, after 12 zeros.
 *
 * An AF_IB connection has no header: its service ID is the consumer's
 * own, and the private data is all the consumer's.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib.h>

#include "cma_priv.h"

struct cma_hdr {
	u8 version;
	u8 ip_version;
	__be16 port;
	struct in6_addr src;
	struct in6_addr dst;
} __packed;

static_assert(sizeof(struct cma_hdr) == CMA_HDR_SIZE);

#define CMA_HDR_VERSION	0

static void cma_hdr_put_addr(struct in6_addr *slot,
			     const struct sockaddr *addr)
{
	memset(slot, 0, sizeof(*slot));
	if (addr->sa_family == AF_INET)
		slot->s6_addr32[3] =
			((const struct sockaddr_in *)addr)->sin_addr.s_addr;
	else
		*slot = ((const struct sockaddr_in6 *)addr)->sin6_addr;
}

static void cma_hdr_get_addr(struct sockaddr_storage *ss, int family,
			     const struct in6_addr *slot, __be16 port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = slot->s6_addr32[3];
		in->sin_port = port;
	} else {
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = *slot;
		in6->sin6_port = port;
	}
}

/**
 * cma_hdr_encode - write the CM header of a connection request
 * @buf: CMA_HDR_SIZE bytes at the start of the REQ's private data
 * @src: the active side's address and port
 * @dst: the address being connected to
 *
 * Context: any.
 * Return: 0, or -EAFNOSUPPORT unless both addresses are of one family,
 * AF_INET or AF_INET6.
 */
int cma_hdr_encode(void *buf, const struct sockaddr *src,
		   const struct sockaddr *dst)
{
	struct cma_hdr *hdr = buf;

	if (src->sa_family != dst->sa_family || !cma_addr_size(src))
		return -EAFNOSUPPORT;

	hdr->version = CMA_HDR_VERSION;
	hdr->ip_version = (src->sa_family == AF_INET ? 4 : 6) << 4;
	hdr->port = htons(cma_addr_port(src));
	cma_hdr_put_addr(&hdr->src, src);
	cma_hdr_put_addr(&hdr->dst, dst);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_hdr_encode);

/**
 * cma_hdr_len - how much of a request's private data is the CM header
 * @addr: an address of the connection (either end; they share a family)
 *
 * Context: any.
 * Return: CMA_HDR_SIZE, or 0 for AF_IB.
 */
u8 cma_hdr_len(const struct sockaddr *addr)
{
	return addr->sa_family == AF_IB ? 0 : CMA_HDR_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(cma_hdr_len);

/**
 * cma_hdr_with_data - the private data of a request: our header (none for
 *	AF_IB), then the consumer's data
 * @cid: the id, its addresses resolved
 * @param: the consumer's parameters; their private data follows the header
 *	(NULL private data with a length: that many zero bytes)
 * @room: how much private data the request carries at most
 * @len: set to the length of the result
 *
 * Context: process context; may sleep.
 * Return: a buffer the caller frees with kfree(), or ERR_PTR(-EINVAL) if
 * the consumer's data does not fit behind the header, ERR_PTR(-ENOMEM),
 * or the error of cma_hdr_encode().
 */
void *cma_hdr_with_data(struct cma_id *cid,
			const struct rdma_conn_param *param, u8 room, u8 *len)
{
	u8 hdr_len = cma_hdr_len(cma_dst_addr(cid));
	void *buf;
	int ret;

	if (param->private_data_len > room - hdr_len)
		return ERR_PTR(-EINVAL);
	*len = hdr_len + param->private_data_len;
	/* A byte at least: kzalloc(0) is not a buffer to hand on. */
	buf = CMA_ALLOC(kzalloc(max_t(u8, *len, 1), GFP_KERNEL));
	if (!buf)
		return ERR_PTR(-ENOMEM);
	if (hdr_len) {
		ret = cma_hdr_encode(buf, cma_src_addr(cid), cma_dst_addr(cid));
		if (ret) {
			kfree(buf);
			return ERR_PTR(ret);
		}
	}
	/* No data but a length: that many zeros go, as in-box. */
	if (param->private_data && param->private_data_len)
		memcpy(buf + hdr_len, param->private_data,
		       param->private_data_len);
	return buf;
}
EXPORT_SYMBOL_IF_KUNIT(cma_hdr_with_data);

/**
 * cma_hdr_decode - read the CM header of a connection request
 * @buf: CMA_HDR_SIZE bytes from the peer
 * @src: the active side's address and port
 * @dst: the address it connects to, port 0 (the service ID has it)
 *
 * Context: any.
 * Return: 0, or -EINVAL for an unknown version or IP version, or an IPv4
 * address whose first 12 bytes are not zero.
 */
int cma_hdr_decode(const void *buf, struct sockaddr_storage *src,
		   struct sockaddr_storage *dst)
{
	const struct cma_hdr *hdr = buf;
	int family;

	if (hdr->version != CMA_HDR_VERSION)
		return -EINVAL;

	switch (hdr->ip_version >> 4) {
	case 4:
		if (hdr->src.s6_addr32[0] | hdr->src.s6_addr32[1] |
		    hdr->src.s6_addr32[2] | hdr->dst.s6_addr32[0] |
		    hdr->dst.s6_addr32[1] | hdr->dst.s6_addr32[2])
			return -EINVAL;
		family = AF_INET;
		break;
	case 6:
		family = AF_INET6;
		break;
	default:
		return -EINVAL;
	}

	cma_hdr_get_addr(src, family, &hdr->src, hdr->port);
	cma_hdr_get_addr(dst, family, &hdr->dst, 0);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_hdr_decode);

/**
 * cma_service_id - the IB CM service ID of a port in a port space
 * @ps: the port space
 * @port: the port
 *
 * Context: any.
 * Return: (@ps << 16) | @port, big-endian.
 */
__be64 cma_service_id(enum rdma_ucm_port_space ps, u16 port)
{
	return cpu_to_be64(((u64)ps << 16) | port);
}
EXPORT_SYMBOL_IF_KUNIT(cma_service_id);

/**
 * cma_service_id_split - the port space and port a service ID names
 * @sid: the service ID of an incoming request
 * @ps: the port space
 * @port: the port
 *
 * Context: any.
 * Return: 0, or -EINVAL if @sid is not in one of the CM's port spaces.
 */
int cma_service_id_split(__be64 sid, enum rdma_ucm_port_space *ps, u16 *port)
{
	u64 id = be64_to_cpu(sid);

	switch (id >> 16) {
	case RDMA_PS_TCP:
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
	case RDMA_PS_IB:
		*ps = id >> 16;
		*port = id & 0xffff;
		return 0;
	}
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(cma_service_id_split);

/**
 * cma_addr_service_id - the service ID a connection to an address uses
 * @ps: the port space of the id
 * @addr: the address connected to or listened on
 *
 * Context: any.
 * Return: an AF_IB address's own service ID, else cma_service_id() of
 * @ps and @addr's port.
 */
__be64 cma_addr_service_id(enum rdma_ucm_port_space ps,
			   const struct sockaddr *addr)
{
	if (addr->sa_family == AF_IB)
		return ((const struct sockaddr_ib *)addr)->sib_sid;
	return cma_service_id(ps, cma_addr_port(addr));
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_service_id);

/**
 * rdma_get_service_id - the IB CM service ID an id uses for an address
 * @id: the id; its port space is used
 * @addr: an IPv4 or IPv6 address, whose port is used, or an AF_IB one,
 *	whose service ID is the answer
 *
 * Context: any.
 * Return: the service ID, big-endian.
 */
__be64 rdma_get_service_id(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return cma_addr_service_id(id->ps, addr);
}
