// SPDX-License-Identifier: GPL-2.0
/*
 * The per-port defaults in configfs, laid out as in-box so that existing
 * tools keep working:
 *
 *   mkdir /sys/kernel/config/rdma_cm/<device>
 *   /sys/kernel/config/rdma_cm/<device>/ports/<port>/default_roce_mode
 *   /sys/kernel/config/rdma_cm/<device>/ports/<port>/default_roce_tos
 *
 * A device's directory names it; it holds no reference. Each access looks
 * the device up by name under cma_lock and answers -ENODEV once it is gone
 * (or the port does not exist on a new device of that name: -EINVAL).
 */

#include <linux/configfs.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "cma_priv.h"

struct cma_cfs_dev;

/**
 * struct cma_cfs_port - the directory of one port
 * @num: the port's number
 * @dev: the device directory it is in
 * @group: its configfs group, holding the two attributes
 */
struct cma_cfs_port {
	u32 num;
	struct cma_cfs_dev *dev;
	struct config_group group;
};

/**
 * struct cma_cfs_dev - the directory of one device, made by mkdir
 * @name: the device's name
 * @group: the directory <device>
 * @ports_group: the directory <device>/ports
 * @ports: one directory per port, freed with @ports_group
 */
struct cma_cfs_dev {
	char name[IB_DEVICE_NAME_MAX];
	struct config_group group;
	struct config_group ports_group;
	struct cma_cfs_port *ports;
};

static struct cma_cfs_port *to_cfs_port(struct config_item *item)
{
	return container_of(to_config_group(item), struct cma_cfs_port, group);
}

/* The device of @port's directory, with cma_lock held, or NULL. */
static struct cma_device *cma_cfs_lock_device(struct cma_cfs_port *port)
{
	mutex_lock(&cma_lock);
	return cma_find_device(port->dev->name);
}

static ssize_t default_roce_mode_show(struct config_item *item, char *buf)
{
	struct cma_cfs_port *port = to_cfs_port(item);
	struct cma_device *cma_dev = cma_cfs_lock_device(port);
	enum ib_gid_type gid_type;
	ssize_t ret = -ENODEV;

	if (cma_dev) {
		ret = -EINVAL;
		if (rdma_is_port_valid(cma_dev->device, port->num)) {
			gid_type = cma_default_gid_type(cma_dev, port->num);
			ret = sysfs_emit(buf, "%s\n",
					 cma_roce_mode_name(gid_type));
		}
	}
	mutex_unlock(&cma_lock);
	return ret;
}

static ssize_t default_roce_mode_store(struct config_item *item,
				       const char *buf, size_t count)
{
	struct cma_cfs_port *port = to_cfs_port(item);
	struct cma_device *cma_dev;
	int gid_type, ret;

	gid_type = cma_roce_mode_parse(buf, count);
	if (gid_type < 0)
		return gid_type;
	cma_dev = cma_cfs_lock_device(port);
	ret = cma_dev ? cma_set_default_gid_type(cma_dev, port->num, gid_type) :
			-ENODEV;
	mutex_unlock(&cma_lock);
	return ret ?: count;
}

static ssize_t default_roce_tos_show(struct config_item *item, char *buf)
{
	struct cma_cfs_port *port = to_cfs_port(item);
	struct cma_device *cma_dev = cma_cfs_lock_device(port);
	ssize_t ret = -ENODEV;

	if (cma_dev) {
		ret = -EINVAL;
		if (rdma_is_port_valid(cma_dev->device, port->num))
			ret = sysfs_emit(buf, "%u\n",
					 cma_default_roce_tos(cma_dev,
							      port->num));
	}
	mutex_unlock(&cma_lock);
	return ret;
}

static ssize_t default_roce_tos_store(struct config_item *item,
				      const char *buf, size_t count)
{
	struct cma_cfs_port *port = to_cfs_port(item);
	struct cma_device *cma_dev;
	int ret;
	u8 tos;

	ret = cma_roce_tos_parse(buf, &tos);
	if (ret)
		return ret;
	cma_dev = cma_cfs_lock_device(port);
	ret = cma_dev ? cma_set_default_roce_tos(cma_dev, port->num, tos) :
			-ENODEV;
	mutex_unlock(&cma_lock);
	return ret ?: count;
}

CONFIGFS_ATTR(, default_roce_mode);
CONFIGFS_ATTR(, default_roce_tos);

static struct configfs_attribute *cma_cfs_port_attrs[] = {
	&attr_default_roce_mode,
	&attr_default_roce_tos,
	NULL,
};

static const struct config_item_type cma_cfs_port_type = {
	.ct_attrs	= cma_cfs_port_attrs,
	.ct_owner	= THIS_MODULE,
};

/* The ports directory goes after its port directories, so they go first. */
static void cma_cfs_ports_release(struct config_item *item)
{
	struct cma_cfs_dev *dev = container_of(to_config_group(item),
					       struct cma_cfs_dev, ports_group);

	kfree(dev->ports);
	dev->ports = NULL;
}

static struct configfs_item_operations cma_cfs_ports_ops = {
	.release	= cma_cfs_ports_release,
};

static const struct config_item_type cma_cfs_ports_type = {
	.ct_item_ops	= &cma_cfs_ports_ops,
	.ct_owner	= THIS_MODULE,
};

/* The device directory goes last: every directory in it holds it. */
static void cma_cfs_dev_release(struct config_item *item)
{
	kfree(container_of(to_config_group(item), struct cma_cfs_dev, group));
}

static struct configfs_item_operations cma_cfs_dev_ops = {
	.release	= cma_cfs_dev_release,
};

static const struct config_item_type cma_cfs_dev_type = {
	.ct_item_ops	= &cma_cfs_dev_ops,
	.ct_owner	= THIS_MODULE,
};

/* The range of ports of the device called @name: -ENODEV if none. */
static int cma_cfs_port_range(const char *name, u32 *first, u32 *last)
{
	struct cma_device *cma_dev;
	int ret = -ENODEV;

	mutex_lock(&cma_lock);
	cma_dev = cma_find_device(name);
	if (cma_dev) {
		*first = rdma_start_port(cma_dev->device);
		*last = rdma_end_port(cma_dev->device);
		ret = 0;
	}
	mutex_unlock(&cma_lock);
	return ret;
}

static void cma_cfs_add_ports(struct cma_cfs_dev *dev, u32 first, u32 last)
{
	struct cma_cfs_port *port;
	char num[11];
	u32 i;

	for (i = 0; i <= last - first; i++) {
		port = &dev->ports[i];
		port->num = first + i;
		port->dev = dev;
		snprintf(num, sizeof(num), "%u", port->num);
		config_group_init_type_name(&port->group, num,
					    &cma_cfs_port_type);
		configfs_add_default_group(&port->group, &dev->ports_group);
	}
}

/* mkdir rdma_cm/<device>: the device must be one the CM has. */
static struct config_group *cma_cfs_make_dev(struct config_group *parent,
					     const char *name)
{
	struct cma_cfs_dev *dev;
	u32 first, last;
	int ret;

	if (strlen(name) >= IB_DEVICE_NAME_MAX)
		return ERR_PTR(-ENODEV);
	ret = cma_cfs_port_range(name, &first, &last);
	if (ret)
		return ERR_PTR(ret);

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->ports = kcalloc(last - first + 1, sizeof(*dev->ports),
			     GFP_KERNEL);
	if (!dev->ports) {
		kfree(dev);
		return ERR_PTR(-ENOMEM);
	}
	strscpy(dev->name, name, sizeof(dev->name));
	config_group_init_type_name(&dev->group, name, &cma_cfs_dev_type);
	config_group_init_type_name(&dev->ports_group, "ports",
				    &cma_cfs_ports_type);
	cma_cfs_add_ports(dev, first, last);
	configfs_add_default_group(&dev->ports_group, &dev->group);
	return &dev->group;
}

/* rmdir rdma_cm/<device>: the default groups go, then the directory. */
static void cma_cfs_drop_dev(struct config_group *parent,
			     struct config_item *item)
{
	struct cma_cfs_dev *dev = container_of(to_config_group(item),
					       struct cma_cfs_dev, group);

	configfs_remove_default_groups(&dev->ports_group);
	configfs_remove_default_groups(&dev->group);
	config_item_put(item);
}

static struct configfs_group_operations cma_cfs_root_ops = {
	.make_group	= cma_cfs_make_dev,
	.drop_item	= cma_cfs_drop_dev,
};

static const struct config_item_type cma_cfs_root_type = {
	.ct_group_ops	= &cma_cfs_root_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem cma_cfs_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "rdma_cm",
			.ci_type	= &cma_cfs_root_type,
		},
	},
};

/**
 * cma_configfs_init - register /sys/kernel/config/rdma_cm
 *
 * Context: process context, module init.
 * Return: 0 or the error of configfs_register_subsystem().
 */
int cma_configfs_init(void)
{
	int ret;

	config_group_init(&cma_cfs_subsys.su_group);
	mutex_init(&cma_cfs_subsys.su_mutex);
	ret = configfs_register_subsystem(&cma_cfs_subsys);
	if (ret)
		mutex_destroy(&cma_cfs_subsys.su_mutex);
	return ret;
}

/**
 * cma_configfs_exit - unregister /sys/kernel/config/rdma_cm
 *
 * Every device directory holds a reference on the module, so none is
 * left when this runs.
 *
 * Context: process context, module exit.
 */
void cma_configfs_exit(void)
{
	configfs_unregister_subsystem(&cma_cfs_subsys);
	mutex_destroy(&cma_cfs_subsys.su_mutex);
}
