// SPDX-License-Identifier: GPL-2.0
/*
 * Socket addresses as the CM sees them: IPv4 and IPv6 with a port, and
 * AF_IB (a GID with a P_Key), whose "port" is the low 16 bits of its
 * service ID. Pure functions of their arguments, so KUnit tests them
 * directly.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>
#include <rdma/ib.h>
#include <rdma/rdma_cm.h>

#include "cma_priv.h"

/**
 * cma_addr_size - length of a socket address of a family the CM supports
 * @addr: the address; only its family is read
 *
 * Context: any.
 * Return: the size of a struct sockaddr_in, sockaddr_in6 or sockaddr_ib,
 * or 0 for any other family.
 */
size_t cma_addr_size(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_size);

/**
 * cma_addr_any - is @addr a wildcard, or a loopback address?
 * @addr: an IPv4, IPv6 or AF_IB address
 *
 * Loopback counts as "any": it resolves to whichever device serves it,
 * as in-box.
 *
 * Context: any.
 * Return: true for 0.0.0.0, ::, 127.0.0.0/8 and ::1, and for the GIDs ::
 * and ::1.
 */
bool cma_addr_any(const struct sockaddr *addr)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
	const struct sockaddr_ib *ib = (const struct sockaddr_ib *)addr;

	switch (addr->sa_family) {
	case AF_INET:
		return ipv4_is_zeronet(in->sin_addr.s_addr) ||
		       ipv4_is_loopback(in->sin_addr.s_addr);
	case AF_INET6:
		return ipv6_addr_any(&in6->sin6_addr) ||
		       ipv6_addr_loopback(&in6->sin6_addr);
	case AF_IB:
		return ib_addr_any(&ib->sib_addr) ||
		       ib_addr_loopback(&ib->sib_addr);
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_any);

/**
 * cma_addr_equal - do two addresses name the same host address?
 * @a: an IPv4, IPv6 or AF_IB address
 * @b: another
 *
 * Ports are ignored, and so are an AF_IB address's P_Key and service ID:
 * the GID is the address. IPv6 link-local addresses are equal only with
 * the same scope.
 *
 * Context: any.
 * Return: true if @a and @b are of one family and the same address.
 */
bool cma_addr_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;

	if (a->sa_family != b->sa_family)
		return false;

	switch (a->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	case AF_INET6:
		if (!ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr))
			return false;
		return !(ipv6_addr_type(&a6->sin6_addr) & IPV6_ADDR_LINKLOCAL) ||
		       a6->sin6_scope_id == b6->sin6_scope_id;
	case AF_IB:
		return !ib_addr_cmp(&((const struct sockaddr_ib *)a)->sib_addr,
				    &((const struct sockaddr_ib *)b)->sib_addr);
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_equal);

/**
 * cma_addr_port - the port of an address, in host order
 * @addr: an IPv4, IPv6 or AF_IB address
 *
 * An AF_IB address's port is the low 16 bits of its service ID, where its
 * mask covers them.
 *
 * Context: any.
 * Return: the port, 0 when unset or for another family.
 */
u16 cma_addr_port(const struct sockaddr *addr)
{
	const struct sockaddr_ib *ib = (const struct sockaddr_ib *)addr;

	switch (addr->sa_family) {
	case AF_INET:
		return ntohs(((const struct sockaddr_in *)addr)->sin_port);
	case AF_INET6:
		return ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
	case AF_IB:
		return be64_to_cpu(ib->sib_sid & ib->sib_sid_mask) & 0xffff;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_port);

/**
 * cma_addr_set_port - set the port of an address
 * @addr: an IPv4, IPv6 or AF_IB address
 * @port: the port, in host order
 *
 * An AF_IB address keeps the port space its service ID names (the bits
 * under RDMA_IB_IP_PS_MASK that its mask covers), takes @port in the low
 * 16 bits, and is then fully specified: its mask becomes all ones.
 *
 * Context: any.
 */
void cma_addr_set_port(struct sockaddr *addr, u16 port)
{
	struct sockaddr_ib *ib = (struct sockaddr_ib *)addr;
	u64 sid;

	switch (addr->sa_family) {
	case AF_INET:
		((struct sockaddr_in *)addr)->sin_port = htons(port);
		break;
	case AF_INET6:
		((struct sockaddr_in6 *)addr)->sin6_port = htons(port);
		break;
	case AF_IB:
		sid = be64_to_cpu(ib->sib_sid & ib->sib_sid_mask);
		ib->sib_sid = cpu_to_be64((sid & RDMA_IB_IP_PS_MASK) | port);
		ib->sib_sid_mask = cpu_to_be64(~0ULL);
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_set_port);

/**
 * cma_addr_check - validate an address a consumer passed in
 * @addr: the address
 *
 * Context: any.
 * Return: 0, -EINVAL for a NULL @addr, -EAFNOSUPPORT for a family other
 * than AF_INET, AF_INET6 and AF_IB, -EINVAL for an IPv6 link-local address
 * without a scope (the interface it lives on).
 */
int cma_addr_check(const struct sockaddr *addr)
{
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;

	if (!addr)
		return -EINVAL;
	if (!cma_addr_size(addr))
		return -EAFNOSUPPORT;
	if (addr->sa_family == AF_INET6 &&
	    (ipv6_addr_type(&in6->sin6_addr) & IPV6_ADDR_LINKLOCAL) &&
	    !in6->sin6_scope_id)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_check);
