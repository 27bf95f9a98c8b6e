// SPDX-License-Identifier: GPL-2.0
/*
 * The message header on the wire, apart from the verbs so that KUnit
 * can check it: a fixed part (credits, flags, inline length), then the
 * optional DONE key, CHUNK descriptor, PUSHED length and LAND descriptor
 * the flags announce.  The decoder trusts nothing the peer sent: unknown
 * flags, a header longer than the Send, a payload past its end, a chunk
 * or pushed payload that is empty, too large, comes with inline bytes
 * or with the other, or a landing buffer too small for any message
 * that is not inline, make the message malformed.
 *
 * Between devices with immediate data (not iWARP) a message with a
 * payload and no optional field leaves its header out: the immediate
 * data carries the credits, the completion's byte count the length, so
 * a payload of a whole number of MTUs takes no packet more.
 *
 * Also here: when a message leaves the inline path for a chunk.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "xrdma.h"

/**
 * xrdma_hdr_size() - bytes of a header with the given flags
 * @flags: XRDMA_HDR_* (unknown bits are ignored)
 *
 * Context: any.
 * Return: the size of the fixed part plus the fields @flags announce.
 */
u32 xrdma_hdr_size(u32 flags)
{
	u32 size = sizeof(struct xrdma_hdr);

	if (flags & XRDMA_HDR_DONE)
		size += sizeof(__be32);
	if (flags & XRDMA_HDR_CHUNK)
		size += sizeof(struct xrdma_hdr_chunk);
	if (flags & XRDMA_HDR_PUSHED)
		size += sizeof(struct xrdma_hdr_pushed);
	if (flags & XRDMA_HDR_LAND)
		size += sizeof(struct xrdma_hdr_chunk);
	return size;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_hdr_size);

/* A descriptor of registered memory (CHUNK, LAND); returns its end. */
static u8 *xrdma_hdr_put_remote(u8 *at, const struct xrdma_remote *rem)
{
	struct xrdma_hdr_chunk ch = {
		.addr = cpu_to_be64(rem->addr),
		.rkey = cpu_to_be32(rem->rkey),
		.len = cpu_to_be32(rem->len),
	};

	memcpy(at, &ch, sizeof(ch));
	return at + sizeof(ch);
}

static const u8 *xrdma_hdr_get_remote(const u8 *at, struct xrdma_remote *rem)
{
	struct xrdma_hdr_chunk ch;

	memcpy(&ch, at, sizeof(ch));
	rem->addr = be64_to_cpu(ch.addr);
	rem->rkey = be32_to_cpu(ch.rkey);
	rem->len = be32_to_cpu(ch.len);
	return at + sizeof(ch);
}

/**
 * xrdma_hdr_encode() - write a header
 * @buf: at least XRDMA_HDR_MAX bytes
 * @msg: what it says; fields its flags do not announce are not written
 *
 * Context: any.
 * Return: the header's length; the inline payload goes right after it.
 */
u32 xrdma_hdr_encode(void *buf, const struct xrdma_msg *msg)
{
	struct xrdma_hdr *hdr = buf;
	struct xrdma_hdr_pushed pu;
	u8 *at = (u8 *)(hdr + 1);
	__be32 done;

	hdr->credits = cpu_to_be32(msg->credits);
	hdr->flags = cpu_to_be32(msg->flags);
	hdr->len = cpu_to_be32(msg->len);
	if (msg->flags & XRDMA_HDR_DONE) {
		done = cpu_to_be32(msg->done);
		memcpy(at, &done, sizeof(done));
		at += sizeof(done);
	}
	if (msg->flags & XRDMA_HDR_CHUNK)
		at = xrdma_hdr_put_remote(at, &msg->chunk);
	if (msg->flags & XRDMA_HDR_PUSHED) {
		pu.rkey = cpu_to_be32(msg->pushed.rkey);
		pu.len = cpu_to_be32(msg->pushed.len);
		memcpy(at, &pu, sizeof(pu));
		at += sizeof(pu);
	}
	if (msg->flags & XRDMA_HDR_LAND)
		at = xrdma_hdr_put_remote(at, &msg->land);
	return at - (u8 *)buf;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_hdr_encode);

/* A payload not in the Send (@away: chunked or pushed) is a whole
 * message for the user, nothing inline, not both ways at once.
 */
static int xrdma_hdr_check_away(const struct xrdma_msg *msg,
				const struct xrdma_remote *away, u32 other)
{
	if (!(msg->flags & XRDMA_HDR_DATA) || msg->len ||
	    (msg->flags & other))
		return -EPROTO;
	if (!away->len || away->len > XRDMA_MAX_SEND)
		return -EPROTO;
	return 0;
}

/* The fixed part says what follows; is it consistent? */
static int xrdma_hdr_check(const struct xrdma_msg *msg, u32 size,
			   u32 byte_len)
{
	if (msg->flags & ~XRDMA_HDR_FLAGS)
		return -EPROTO;
	if (byte_len < size || msg->len > byte_len - size)
		return -EPROTO;
	/* A landing buffer takes any message too large to go inline. */
	if ((msg->flags & XRDMA_HDR_LAND) && msg->land.len < XRDMA_MAX_SEND)
		return -EPROTO;
	if (msg->flags & XRDMA_HDR_CHUNK)
		return xrdma_hdr_check_away(msg, &msg->chunk, XRDMA_HDR_PUSHED);
	if (msg->flags & XRDMA_HDR_PUSHED)
		return xrdma_hdr_check_away(msg, &msg->pushed, XRDMA_HDR_CHUNK);
	return 0;
}

/**
 * xrdma_hdr_decode() - read and check a received header
 * @buf: the received bytes
 * @byte_len: how many arrived
 * @msg: filled in; fields the flags do not announce are zero
 *
 * Context: any.
 * Return: the header's length (the inline payload follows it), or
 * -EPROTO for a malformed header.
 */
int xrdma_hdr_decode(const void *buf, u32 byte_len, struct xrdma_msg *msg)
{
	const struct xrdma_hdr *hdr = buf;
	struct xrdma_hdr_pushed pu;
	const u8 *at;
	__be32 done;
	u32 size;
	int rc;

	memset(msg, 0, sizeof(*msg));
	if (byte_len < sizeof(*hdr))
		return -EPROTO;
	msg->credits = be32_to_cpu(hdr->credits);
	msg->flags = be32_to_cpu(hdr->flags);
	msg->len = be32_to_cpu(hdr->len);
	size = xrdma_hdr_size(msg->flags);
	if (byte_len < size)
		return -EPROTO;
	at = (const u8 *)(hdr + 1);
	if (msg->flags & XRDMA_HDR_DONE) {
		memcpy(&done, at, sizeof(done));
		msg->done = be32_to_cpu(done);
		at += sizeof(done);
	}
	if (msg->flags & XRDMA_HDR_CHUNK)
		at = xrdma_hdr_get_remote(at, &msg->chunk);
	if (msg->flags & XRDMA_HDR_PUSHED) {
		memcpy(&pu, at, sizeof(pu));
		msg->pushed.rkey = be32_to_cpu(pu.rkey);
		msg->pushed.len = be32_to_cpu(pu.len);
		at += sizeof(pu);
	}
	if (msg->flags & XRDMA_HDR_LAND)
		xrdma_hdr_get_remote(at, &msg->land);
	rc = xrdma_hdr_check(msg, size, byte_len);
	return rc ? rc : size;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_hdr_decode);

/**
 * xrdma_hdr_imm_ok() - may a message travel with its header as immediate
 *	data?
 * @msg: its header
 *
 * Context: any.
 * Return: true for a payload and no optional field.
 */
bool xrdma_hdr_imm_ok(const struct xrdma_msg *msg)
{
	return msg->flags == XRDMA_HDR_DATA && msg->len;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_hdr_imm_ok);

/**
 * xrdma_hdr_encode_imm() - the immediate data that stands for a header
 * @msg: a header xrdma_hdr_imm_ok() accepts
 *
 * Context: any.
 * Return: its credits, in network order.
 */
__be32 xrdma_hdr_encode_imm(const struct xrdma_msg *msg)
{
	return cpu_to_be32(msg->credits);
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_hdr_encode_imm);

/**
 * xrdma_hdr_decode_imm() - the header of a Send with immediate data
 * @imm: the immediate data, in network order
 * @byte_len: the bytes the Send carried, all of them payload
 * @msg: filled in
 *
 * Context: any.
 * Return: 0, the header's length in the buffer; -EPROTO for a Send
 * with no payload.
 */
int xrdma_hdr_decode_imm(__be32 imm, u32 byte_len, struct xrdma_msg *msg)
{
	memset(msg, 0, sizeof(*msg));
	if (!byte_len)
		return -EPROTO;
	msg->credits = be32_to_cpu(imm);
	msg->flags = XRDMA_HDR_DATA;
	msg->len = byte_len;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_hdr_decode_imm);

/**
 * xrdma_send_chunked() - must a message go as a chunk?
 * @len: its length
 * @inline_send: the largest Send the peer takes, header room included
 *	(XRDMA_HDR_MAX is kept for the header)
 *
 * Context: any.
 * Return: true when @len bytes do not fit inline.
 */
bool xrdma_send_chunked(u32 len, u32 inline_send)
{
	if (inline_send < XRDMA_HDR_MAX)
		return true;
	return len > inline_send - XRDMA_HDR_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(xrdma_send_chunked);
