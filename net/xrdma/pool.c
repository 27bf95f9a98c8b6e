// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer pools: the request (send) and reply (receive) buffers of a
 * transport.  The memory is allocated once and kept across reconnects;
 * the DMA mapping belongs to a connection's device and is made when the
 * connection is set up and undone when it is torn down, so a device can
 * go away and another take its place.  A request buffer can be lent to
 * the user, who writes a message in it (xrdma_send_buf_get()); the end
 * of a connection leaves a lent buffer with its holder.
 */
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "xrdma.h"

/**
 * xrdma_pool_create() - allocate a pool of free buffers
 * @pool: the pool
 * @count: how many buffers, at least 1
 * @size: bytes in each, at least 1
 * @dir: DMA direction for xrdma_pool_map()
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for an empty pool, or -ENOMEM with nothing
 * allocated.
 */
int xrdma_pool_create(struct xrdma_pool *pool, unsigned int count,
		      size_t size, enum dma_data_direction dir)
{
	unsigned int i;

	if (!count || !size)
		return -EINVAL;
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->free);
	pool->count = 0;
	pool->nfree = 0;
	pool->size = size;
	pool->dir = dir;
	pool->dev = NULL;
	pool->bufs = kcalloc(count, sizeof(*pool->bufs), GFP_KERNEL);
	if (!pool->bufs)
		return -ENOMEM;
	for (i = 0; i < count; i++) {
		pool->bufs[i].data = kmalloc(size, GFP_KERNEL);
		if (!pool->bufs[i].data)
			goto out_free;
		pool->bufs[i].index = i;
		pool->bufs[i].pool = pool;
		pool->count++;
	}
	xrdma_pool_reset(pool);
	return 0;

out_free:
	xrdma_pool_destroy(pool);
	return -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_pool_create);

/**
 * xrdma_pool_destroy() - free a pool's memory
 * @pool: the pool, unmapped
 *
 * Context: process context; nothing may use the buffers any more.
 */
void xrdma_pool_destroy(struct xrdma_pool *pool)
{
	unsigned int i;

	WARN_ON_ONCE(pool->dev);
	for (i = 0; i < pool->count; i++)
		kfree(pool->bufs[i].data);
	kfree(pool->bufs);
	pool->bufs = NULL;
	pool->count = 0;
	pool->nfree = 0;
	INIT_LIST_HEAD(&pool->free);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_pool_destroy);

static struct xrdma_buf *xrdma_pool_take(struct xrdma_pool *pool, bool lend)
{
	struct xrdma_buf *buf;

	spin_lock(&pool->lock);
	buf = list_first_entry_or_null(&pool->free, struct xrdma_buf, node);
	if (buf) {
		list_del_init(&buf->node);
		buf->lent = lend;
		pool->nfree--;
	}
	spin_unlock(&pool->lock);
	return buf;
}

/**
 * xrdma_pool_get() - take a free buffer
 * @pool: the pool
 *
 * Context: any; takes the pool's spinlock.
 * Return: the buffer, or NULL when none is free.
 */
struct xrdma_buf *xrdma_pool_get(struct xrdma_pool *pool)
{
	return xrdma_pool_take(pool, false);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_pool_get);

/**
 * xrdma_pool_lend() - take a free buffer for the user to hold
 * @pool: the pool
 *
 * A lent buffer stays out of the pool across xrdma_pool_reset(), which
 * would otherwise free it under its holder, until xrdma_pool_mark_lent()
 * says otherwise or xrdma_pool_put() takes it back.
 *
 * Context: any; takes the pool's spinlock.
 * Return: the buffer, or NULL when none is free.
 */
struct xrdma_buf *xrdma_pool_lend(struct xrdma_pool *pool)
{
	return xrdma_pool_take(pool, true);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_pool_lend);

/**
 * xrdma_pool_mark_lent() - say whether a buffer in use is the user's
 * @pool: the pool it came from
 * @buf: the buffer, not free
 * @lent: false when a work request is about to carry it (a reset then
 *	frees it, as any buffer in use), true when that fell through
 *
 * Context: any; takes the pool's spinlock.
 */
void xrdma_pool_mark_lent(struct xrdma_pool *pool, struct xrdma_buf *buf,
			  bool lent)
{
	spin_lock(&pool->lock);
	buf->lent = lent;
	spin_unlock(&pool->lock);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_pool_mark_lent);

/**
 * xrdma_pool_put() - give a buffer back
 * @pool: the pool it came from
 * @buf: the buffer, lent or not
 *
 * Context: any; takes the pool's spinlock.
 */
void xrdma_pool_put(struct xrdma_pool *pool, struct xrdma_buf *buf)
{
	if (WARN_ON_ONCE(buf->pool != pool || !list_empty(&buf->node)))
		return;
	spin_lock(&pool->lock);
	buf->lent = false;
	list_add(&buf->node, &pool->free);
	pool->nfree++;
	spin_unlock(&pool->lock);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_pool_put);

/**
 * xrdma_pool_reset() - make every buffer free again
 * @pool: the pool
 *
 * For the end of a connection, once its QP is gone: whatever a WR held
 * is free now.  A buffer lent to the user stays with the user.
 *
 * Context: no work request may use the buffers.
 */
void xrdma_pool_reset(struct xrdma_pool *pool)
{
	struct xrdma_buf *buf;
	unsigned int i;

	spin_lock(&pool->lock);
	INIT_LIST_HEAD(&pool->free);
	pool->nfree = 0;
	for (i = 0; i < pool->count; i++) {
		buf = &pool->bufs[i];
		if (buf->lent)
			continue;
		list_add_tail(&buf->node, &pool->free);
		pool->nfree++;
	}
	spin_unlock(&pool->lock);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_pool_reset);

/**
 * xrdma_pool_nfree() - how many buffers are free
 * @pool: the pool
 *
 * Context: any.
 * Return: the number, a snapshot.
 */
unsigned int xrdma_pool_nfree(struct xrdma_pool *pool)
{
	return READ_ONCE(pool->nfree);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_pool_nfree);

/**
 * xrdma_pool_map() - DMA-map every buffer for a device
 * @pool: the pool, unmapped
 * @dev: the device of the new connection
 *
 * Context: process context.
 * Return: 0, or -ENOMEM with nothing left mapped.
 */
int xrdma_pool_map(struct xrdma_pool *pool, struct ib_device *dev)
{
	struct xrdma_buf *buf;
	unsigned int i;

	for (i = 0; i < pool->count; i++) {
		buf = &pool->bufs[i];
		buf->dma = ib_dma_map_single(dev, buf->data, pool->size,
					     pool->dir);
		if (ib_dma_mapping_error(dev, buf->dma))
			goto out_unmap;
	}
	pool->dev = dev;
	return 0;

out_unmap:
	while (i--)
		ib_dma_unmap_single(dev, pool->bufs[i].dma, pool->size,
				    pool->dir);
	return -ENOMEM;
}

/**
 * xrdma_pool_unmap() - undo xrdma_pool_map()
 * @pool: the pool; nothing may be posted from it
 *
 * Context: process context.  Harmless on an unmapped pool.
 */
void xrdma_pool_unmap(struct xrdma_pool *pool)
{
	unsigned int i;

	if (!pool->dev)
		return;
	for (i = 0; i < pool->count; i++)
		ib_dma_unmap_single(pool->dev, pool->bufs[i].dma, pool->size,
				    pool->dir);
	pool->dev = NULL;
}
