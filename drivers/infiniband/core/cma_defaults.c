// SPDX-License-Identifier: GPL-2.0
/*
 * Per-port defaults of a device, set by the administrator through configfs
 * (cma_configfs.c): the RoCE mode, i.e. the GID type an id bound to the
 * port uses, and the type of service of RoCE ids that did not set one.
 * The strings are the in-box module's, which user space already writes.
 */

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "cma_priv.h"

#define CMA_MODE_V1	"IB/RoCE v1"
#define CMA_MODE_V2	"RoCE v2"

/**
 * cma_roce_mode_parse - the GID type a RoCE mode string names
 * @buf: what was written: "IB/RoCE v1" or "RoCE v2", one trailing newline
 *	allowed
 * @count: its length
 *
 * Context: any; a pure function of its arguments.
 * Return: IB_GID_TYPE_IB for "IB/RoCE v1" (a RoCE port makes it RoCEv1),
 * IB_GID_TYPE_ROCE_UDP_ENCAP for "RoCE v2", -EINVAL for anything else.
 */
int cma_roce_mode_parse(const char *buf, size_t count)
{
	size_t len = strnlen(buf, count);

	if (len && buf[len - 1] == '\n')
		len--;
	if (len == strlen(CMA_MODE_V1) && !memcmp(buf, CMA_MODE_V1, len))
		return IB_GID_TYPE_IB;
	if (len == strlen(CMA_MODE_V2) && !memcmp(buf, CMA_MODE_V2, len))
		return IB_GID_TYPE_ROCE_UDP_ENCAP;
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(cma_roce_mode_parse);

/**
 * cma_roce_mode_name - the RoCE mode string of a GID type
 * @gid_type: the GID type
 *
 * Context: any.
 * Return: "IB/RoCE v1" for IB and RoCEv1, "RoCE v2" for RoCEv2.
 */
const char *cma_roce_mode_name(enum ib_gid_type gid_type)
{
	return gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP ? CMA_MODE_V2 :
							CMA_MODE_V1;
}
EXPORT_SYMBOL_IF_KUNIT(cma_roce_mode_name);

/**
 * cma_roce_tos_parse - a type of service as written to configfs
 * @buf: a number from 0 to 255, decimal, octal (0...) or hex (0x...), one
 *	trailing newline allowed; NUL-terminated
 * @tos: set to the number
 *
 * Context: any; a pure function of its arguments.
 * Return: 0, -EINVAL for no number, -ERANGE for one above 255 (as the
 * in-box module answers).
 */
int cma_roce_tos_parse(const char *buf, u8 *tos)
{
	return kstrtou8(buf, 0, tos);
}
EXPORT_SYMBOL_IF_KUNIT(cma_roce_tos_parse);

/* The GID types @port supports, as a mask of BIT(enum ib_gid_type). */
/* One element of @size per port of @device, zeroed. */
static void *cma_port_array(struct ib_device *device, size_t size)
{
	return CMA_ALLOC(kcalloc(device->phys_port_cnt, size, GFP_KERNEL));
}

static unsigned long cma_port_gid_types(struct ib_device *device, u32 port)
{
	unsigned long types = 0;

	if (!rdma_protocol_roce(device, port))
		return BIT(IB_GID_TYPE_IB);
	if (rdma_protocol_roce_eth_encap(device, port))
		types |= BIT(IB_GID_TYPE_ROCE);
	if (rdma_protocol_roce_udp_encap(device, port))
		types |= BIT(IB_GID_TYPE_ROCE_UDP_ENCAP);
	return types;
}

/**
 * cma_defaults_alloc - give a new device its per-port defaults
 * @cma_dev: the device, not yet on the device list
 *
 * Each port starts with RoCEv2 where it has it, else the first GID type it
 * supports, and type of service 0, as in-box.
 *
 * Context: process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int cma_defaults_alloc(struct cma_device *cma_dev)
{
	struct ib_device *device = cma_dev->device;
	unsigned long types;
	u32 port;

	cma_dev->default_gid_type =
		cma_port_array(device, sizeof(*cma_dev->default_gid_type));
	cma_dev->default_roce_tos =
		cma_port_array(device, sizeof(*cma_dev->default_roce_tos));
	if (!cma_dev->default_gid_type || !cma_dev->default_roce_tos) {
		cma_defaults_free(cma_dev);
		return -ENOMEM;
	}
	rdma_for_each_port(device, port) {
		types = cma_port_gid_types(device, port);
		cma_dev->default_gid_type[port - rdma_start_port(device)] =
			types & BIT(IB_GID_TYPE_ROCE_UDP_ENCAP) ?
			IB_GID_TYPE_ROCE_UDP_ENCAP : __ffs(types);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_defaults_alloc);

/**
 * cma_defaults_free - free a device's per-port defaults
 * @cma_dev: the device, off the device list and with no id left
 *
 * Context: any.
 */
void cma_defaults_free(struct cma_device *cma_dev)
{
	kfree(cma_dev->default_gid_type);
	kfree(cma_dev->default_roce_tos);
	cma_dev->default_gid_type = NULL;
	cma_dev->default_roce_tos = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(cma_defaults_free);

/**
 * cma_default_gid_type - the GID type ids bound to a port use
 * @cma_dev: the device; the caller holds cma_lock or a reference
 * @port: a valid port of it
 *
 * Context: any.
 * Return: the port's default GID type.
 */
enum ib_gid_type cma_default_gid_type(struct cma_device *cma_dev, u32 port)
{
	return READ_ONCE(cma_dev->default_gid_type[port -
				rdma_start_port(cma_dev->device)]);
}
EXPORT_SYMBOL_IF_KUNIT(cma_default_gid_type);

/**
 * cma_default_roce_tos - the type of service of ids that set none
 * @cma_dev: the device; the caller holds cma_lock or a reference
 * @port: a valid port of it
 *
 * Context: any.
 * Return: the port's default type of service.
 */
u8 cma_default_roce_tos(struct cma_device *cma_dev, u32 port)
{
	return READ_ONCE(cma_dev->default_roce_tos[port -
				rdma_start_port(cma_dev->device)]);
}
EXPORT_SYMBOL_IF_KUNIT(cma_default_roce_tos);

/**
 * cma_set_default_gid_type - change the GID type of a port's new ids
 * @cma_dev: the device, on the device list
 * @port: the port
 * @gid_type: from cma_roce_mode_parse()
 *
 * IB_GID_TYPE_IB means RoCEv1 on a port that has it. Ids already bound
 * keep the GID they have.
 *
 * Context: process context; cma_lock held.
 * Return: 0, or -EINVAL for a port the device does not have or a GID type
 * the port does not support.
 */
int cma_set_default_gid_type(struct cma_device *cma_dev, u32 port,
			     enum ib_gid_type gid_type)
{
	struct ib_device *device = cma_dev->device;
	unsigned long types;

	lockdep_assert_held(&cma_lock);
	if (!rdma_is_port_valid(device, port))
		return -EINVAL;
	types = cma_port_gid_types(device, port);
	if (gid_type == IB_GID_TYPE_IB && (types & BIT(IB_GID_TYPE_ROCE)))
		gid_type = IB_GID_TYPE_ROCE;
	if (!(types & BIT(gid_type)))
		return -EINVAL;
	WRITE_ONCE(cma_dev->default_gid_type[port - rdma_start_port(device)],
		   gid_type);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_set_default_gid_type);

/**
 * cma_set_default_roce_tos - change the type of service of a port's ids
 * @cma_dev: the device, on the device list
 * @port: the port
 * @tos: the type of service for ids that did not set one
 *
 * Routes resolved from now on use it.
 *
 * Context: process context; cma_lock held.
 * Return: 0, or -EINVAL for a port the device does not have.
 */
int cma_set_default_roce_tos(struct cma_device *cma_dev, u32 port, u8 tos)
{
	struct ib_device *device = cma_dev->device;

	lockdep_assert_held(&cma_lock);
	if (!rdma_is_port_valid(device, port))
		return -EINVAL;
	WRITE_ONCE(cma_dev->default_roce_tos[port - rdma_start_port(device)],
		   tos);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cma_set_default_roce_tos);

/**
 * cma_find_device - the device of a given name
 * @name: the ib_core name of the device, e.g. "rxe0"
 *
 * Context: process context; cma_lock held, which keeps the answer valid.
 * Return: the device, or NULL if the CM has none of that name.
 */
struct cma_device *cma_find_device(const char *name)
{
	struct cma_device *cma_dev;

	lockdep_assert_held(&cma_lock);
	list_for_each_entry(cma_dev, &cma_devices, list)
		if (!strcmp(dev_name(&cma_dev->device->dev), name))
			return cma_dev;
	return NULL;
}
