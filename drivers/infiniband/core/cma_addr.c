// SPDX-License-Identifier: GPL-2.0
/*
 * Socket addresses as the CM sees them: IPv4 and IPv6, with a port.
 * Pure functions of their arguments, so KUnit tests them directly.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>

#include "cma_priv.h"

/**
 * cma_addr_size - length of a socket address of a family the CM supports
 * @addr: the address; only its family is read
 *
 * Context: any.
 * Return: sizeof(struct sockaddr_in) or sizeof(struct sockaddr_in6), or 0
 * for any other family.
 */
size_t cma_addr_size(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_size);

/**
 * cma_addr_any - is @addr a wildcard, or a loopback address?
 * @addr: an IPv4 or IPv6 address
 *
 * Loopback counts as "any": it resolves to whichever device serves it,
 * as in-box.
 *
 * Context: any.
 * Return: true for 0.0.0.0, ::, 127.0.0.0/8 and ::1.
 */
bool cma_addr_any(const struct sockaddr *addr)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;

	switch (addr->sa_family) {
	case AF_INET:
		return ipv4_is_zeronet(in->sin_addr.s_addr) ||
		       ipv4_is_loopback(in->sin_addr.s_addr);
	case AF_INET6:
		return ipv6_addr_any(&in6->sin6_addr) ||
		       ipv6_addr_loopback(&in6->sin6_addr);
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_any);

/**
 * cma_addr_equal - do two addresses name the same host address?
 * @a: an IPv4 or IPv6 address
 * @b: another
 *
 * Ports are ignored. IPv6 link-local addresses are equal only with the
 * same scope.
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
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_equal);

/**
 * cma_addr_port - the port of an address, in host order
 * @addr: an IPv4 or IPv6 address
 *
 * Context: any.
 * Return: the port, 0 when unset or for another family.
 */
u16 cma_addr_port(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ntohs(((const struct sockaddr_in *)addr)->sin_port);
	case AF_INET6:
		return ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_addr_port);

/**
 * cma_addr_set_port - set the port of an address
 * @addr: an IPv4 or IPv6 address
 * @port: the port, in host order
 *
 * Context: any.
 */
void cma_addr_set_port(struct sockaddr *addr, u16 port)
{
	switch (addr->sa_family) {
	case AF_INET:
		((struct sockaddr_in *)addr)->sin_port = htons(port);
		break;
	case AF_INET6:
		((struct sockaddr_in6 *)addr)->sin6_port = htons(port);
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
 * than AF_INET and AF_INET6, -EINVAL for an IPv6 link-local address
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
