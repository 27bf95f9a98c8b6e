// SPDX-License-Identifier: GPL-2.0
/*
 * The data pattern every xrping message and buffer carries, which
 * depends on the message's number so that a stale or misplaced message
 * shows, and the framing of control messages.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "xrping.h"

const char *const xrping_op_names[XRPING_NR_OPS] = {
	[XRPING_OP_SEND] = "send",
	[XRPING_OP_WRITE] = "write",
	[XRPING_OP_READ] = "read",
};

const char *const xrping_mode_names[XRPING_NR_MODES] = {
	[XRPING_MODE_PINGPONG] = "pingpong",
	[XRPING_MODE_BW] = "bw",
	[XRPING_MODE_DUPLEX] = "duplex",
	[XRPING_MODE_FLOOR] = "floor",
	[XRPING_MODE_STALE] = "stale",
};

static u8 xrping_byte(u32 seq, u32 i)
{
	return (u8)((seq + 1) * 0x9d + i * 13 + (seq >> 8));
}

/**
 * xrping_fill() - fill a buffer with the pattern of a message
 * @buf: the buffer
 * @size: its length
 * @seq: the message's number
 *
 * Context: any.
 */
void xrping_fill(u8 *buf, u32 size, u32 seq)
{
	u32 i;

	for (i = 0; i < size; i++)
		buf[i] = xrping_byte(seq, i);
}

/**
 * xrping_valid() - does a buffer hold the pattern of a message?
 * @buf: the buffer
 * @len: the bytes in it
 * @size: the bytes expected
 * @seq: the message's number
 *
 * Context: any.
 * Return: true if @len is @size and every byte matches.
 */
bool xrping_valid(const u8 *buf, u32 len, u32 size, u32 seq)
{
	u32 i;

	if (len != size)
		return false;
	for (i = 0; i < size; i++)
		if (buf[i] != xrping_byte(seq, i))
			return false;
	return true;
}

/**
 * xrping_ctl_parse() - is a message a control message?
 * @data: the message
 * @len: its length
 * @ctl: gets a copy if it is
 *
 * Context: any.
 * Return: true for a control message.
 */
bool xrping_ctl_parse(const void *data, u32 len, struct xrping_ctl *ctl)
{
	if (len != sizeof(*ctl))
		return false;
	memcpy(ctl, data, sizeof(*ctl));
	return le32_to_cpu(ctl->magic) == XRPING_CTL_MAGIC;
}

/**
 * xrping_ctl_init() - start a control message
 * @ctl: the message
 * @cmd: its command (with XRPING_CTL_REPLY for a reply)
 * @seq: the pattern number
 * @len: the length
 *
 * Context: any.
 */
void xrping_ctl_init(struct xrping_ctl *ctl, u32 cmd, u32 seq, u32 len)
{
	memset(ctl, 0, sizeof(*ctl));
	ctl->magic = cpu_to_le32(XRPING_CTL_MAGIC);
	ctl->cmd = cpu_to_le32(cmd);
	ctl->seq = cpu_to_le32(seq);
	ctl->len = cpu_to_le32(len);
}
