// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing and printing of xrping's configfs attribute values.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "xrping.h"

/**
 * xrping_parse_addr() - an IPv4 or IPv6 address, as written by a user
 * @page: the text, optionally ending in a newline
 * @len: its length
 * @ss: gets the address with port 0
 *
 * Context: any.
 * Return: 0, or -EINVAL for anything but one address.
 */
int xrping_parse_addr(const char *page, size_t len,
		      struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const char *end;

	if (len && page[len - 1] == '\n')
		len--;
	if (!len)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (in4_pton(page, len, (u8 *)&sin->sin_addr, -1, &end) &&
	    end == page + len) {
		sin->sin_family = AF_INET;
		return 0;
	}
	if (in6_pton(page, len, (u8 *)&sin6->sin6_addr, -1, &end) &&
	    end == page + len) {
		sin6->sin6_family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

/**
 * xrping_show_addr() - print an address attribute
 * @ss: the address, or AF_UNSPEC for none
 * @page: the attribute's page
 *
 * Context: any.
 * Return: the length written.
 */
int xrping_show_addr(const struct sockaddr_storage *ss, char *page)
{
	if (ss->ss_family == AF_INET)
		return sysfs_emit(page, "%pI4\n",
				  &((struct sockaddr_in *)ss)->sin_addr);
	if (ss->ss_family == AF_INET6)
		return sysfs_emit(page, "%pI6c\n",
				  &((struct sockaddr_in6 *)ss)->sin6_addr);
	return sysfs_emit(page, "\n");
}

/**
 * xrping_set_port() - put a port into an address
 * @ss: the address
 * @port: the port, host order
 *
 * Context: any.
 */
void xrping_set_port(struct sockaddr_storage *ss, u16 port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/**
 * xrping_parse_uint() - an unsigned number within bounds
 * @page: the text
 * @min: the smallest allowed
 * @max: the largest allowed
 * @val: gets the number
 *
 * Context: any.
 * Return: 0, -EINVAL for no number, -ERANGE out of bounds.
 */
int xrping_parse_uint(const char *page, u32 min, u32 max, u32 *val)
{
	u32 v;
	int rc;

	rc = kstrtou32(page, 0, &v);
	if (rc)
		return rc;
	if (v < min || v > max)
		return -ERANGE;
	*val = v;
	return 0;
}
