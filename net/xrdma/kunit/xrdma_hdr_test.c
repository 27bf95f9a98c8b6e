// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_hdr: the message header on the wire (each optional field, DONE,
 * CHUNK, PUSHED and LAND, round-trips, its size follows the flags,
 * every malformed header the peer could send is refused), the header
 * carried as immediate data, and the choice between a Send and a chunk
 * at the inline size.
 */
#include "xrdma.h"
#include "xrdma_kunit.h"

static void hdr_sizes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xrdma_hdr_size(0), 12U);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_size(XRDMA_HDR_DATA), 12U);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_size(XRDMA_HDR_DONE), 16U);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_size(XRDMA_HDR_DATA | XRDMA_HDR_CHUNK),
			28U);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_size(XRDMA_HDR_DATA | XRDMA_HDR_PUSHED),
			20U);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_size(XRDMA_HDR_LAND), 28U);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_size(XRDMA_HDR_FLAGS), 56U);
	/* Every buffer has room for a header with every field. */
	KUNIT_EXPECT_EQ(test, (u32)XRDMA_HDR_MAX, 56U);
}

static void hdr_roundtrip_inline(struct kunit *test)
{
	struct xrdma_msg in = {
		.credits = 0xfffffffe,
		.flags = XRDMA_HDR_DATA | XRDMA_HDR_DONE,
		.len = 5,
		.done = 0x12345678,
	};
	struct xrdma_msg out;
	u8 buf[XRDMA_HDR_MAX + 5] = {};
	u32 hlen;

	hlen = xrdma_hdr_encode(buf, &in);
	KUNIT_ASSERT_EQ(test, hlen, 16U);
	/* Big endian on the wire, the DONE key right after the fixed part. */
	KUNIT_EXPECT_EQ(test, buf[0], 0xff);
	KUNIT_EXPECT_EQ(test, buf[3], 0xfe);
	KUNIT_EXPECT_EQ(test, buf[12], 0x12);
	KUNIT_EXPECT_EQ(test, buf[15], 0x78);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_decode(buf, hlen + 5, &out), 16);
	KUNIT_EXPECT_EQ(test, out.credits, in.credits);
	KUNIT_EXPECT_EQ(test, out.flags, in.flags);
	KUNIT_EXPECT_EQ(test, out.len, 5U);
	KUNIT_EXPECT_EQ(test, out.done, in.done);
	KUNIT_EXPECT_EQ(test, out.chunk.len, 0U);
}

/* A descriptor of registered memory (CHUNK, LAND) came through whole. */
static void hdr_expect_remote(struct kunit *test,
			      const struct xrdma_remote *got,
			      const struct xrdma_remote *want)
{
	KUNIT_EXPECT_EQ(test, got->addr, want->addr);
	KUNIT_EXPECT_EQ(test, got->rkey, want->rkey);
	KUNIT_EXPECT_EQ(test, got->len, want->len);
}

static void hdr_roundtrip_chunk(struct kunit *test)
{
	struct xrdma_msg in = {
		.credits = 7,
		.flags = XRDMA_HDR_DATA | XRDMA_HDR_DONE | XRDMA_HDR_CHUNK,
		.done = 0xabcdef01,
		.chunk = { .addr = 0x1122334455667788ULL, .rkey = 0x99aabbcc,
			   .len = XRDMA_MAX_SEND },
	};
	struct xrdma_msg out;
	u8 buf[XRDMA_HDR_MAX];
	u32 hlen;

	hlen = xrdma_hdr_encode(buf, &in);
	KUNIT_ASSERT_EQ(test, hlen, 32U);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_decode(buf, hlen, &out), 32);
	KUNIT_EXPECT_EQ(test, out.done, in.done);
	hdr_expect_remote(test, &out.chunk, &in.chunk);
	/* Without DONE the chunk follows the fixed part directly. */
	in.flags = XRDMA_HDR_DATA | XRDMA_HDR_CHUNK;
	hlen = xrdma_hdr_encode(buf, &in);
	KUNIT_ASSERT_EQ(test, hlen, 28U);
	KUNIT_EXPECT_EQ(test, buf[12], 0x11);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_decode(buf, hlen, &out), 28);
	KUNIT_EXPECT_EQ(test, out.done, 0U);
	KUNIT_EXPECT_EQ(test, out.chunk.addr, in.chunk.addr);
}

static void hdr_roundtrip_push(struct kunit *test)
{
	struct xrdma_msg in = {
		.credits = 3,
		.flags = XRDMA_HDR_DATA | XRDMA_HDR_DONE | XRDMA_HDR_PUSHED |
			 XRDMA_HDR_LAND,
		.done = 0x0badcafe,
		.pushed = { .rkey = 0x01020304, .len = 65537 },
		.land = { .addr = 0x8877665544332211ULL, .rkey = 0x55667788,
			  .len = XRDMA_MAX_SEND },
	};
	struct xrdma_msg out;
	u8 buf[XRDMA_HDR_MAX];
	u32 hlen;

	hlen = xrdma_hdr_encode(buf, &in);
	KUNIT_ASSERT_EQ(test, hlen, 40U);
	/* DONE, then PUSHED (key, length), then LAND. */
	KUNIT_EXPECT_EQ(test, buf[16], 0x01);
	KUNIT_EXPECT_EQ(test, buf[23], 0x01);
	KUNIT_EXPECT_EQ(test, buf[24], 0x88);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_decode(buf, hlen, &out), 40);
	KUNIT_EXPECT_EQ(test, out.flags, in.flags);
	KUNIT_EXPECT_EQ(test, out.done, in.done);
	KUNIT_EXPECT_EQ(test, out.pushed.rkey, in.pushed.rkey);
	KUNIT_EXPECT_EQ(test, out.pushed.len, in.pushed.len);
	hdr_expect_remote(test, &out.land, &in.land);
	KUNIT_EXPECT_EQ(test, out.chunk.len, 0U);
	/* A landing buffer rides on any Send, a bare credit update too. */
	in.flags = XRDMA_HDR_LAND;
	hlen = xrdma_hdr_encode(buf, &in);
	KUNIT_ASSERT_EQ(test, hlen, 28U);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_decode(buf, hlen, &out), 28);
	KUNIT_EXPECT_EQ(test, out.land.rkey, in.land.rkey);
	KUNIT_EXPECT_EQ(test, out.pushed.len, 0U);
}

/* Encode @in, then decode @n bytes of it. */
static int hdr_try(const struct xrdma_msg *in, u32 n)
{
	struct xrdma_msg out;
	u8 buf[XRDMA_HDR_MAX + 16] = {};

	xrdma_hdr_encode(buf, in);
	return xrdma_hdr_decode(buf, n, &out);
}

/* A payload away from the Send (chunked or pushed; @len is its length
 * in @m, whose header is @n bytes) is neither empty nor larger than a
 * message may be.
 */
static void hdr_expect_away_len(struct kunit *test, struct xrdma_msg *m,
				u32 *len, u32 n)
{
	*len = 0;
	KUNIT_EXPECT_EQ(test, hdr_try(m, n), -EPROTO);
	*len = XRDMA_MAX_SEND + 1;
	KUNIT_EXPECT_EQ(test, hdr_try(m, n), -EPROTO);
	*len = XRDMA_MAX_SEND;
	KUNIT_EXPECT_EQ(test, hdr_try(m, n), (int)n);
}

static void hdr_malformed(struct kunit *test)
{
	struct xrdma_msg m = { .flags = XRDMA_HDR_DATA, .len = 4 };
	struct xrdma_msg c = {
		.flags = XRDMA_HDR_DATA | XRDMA_HDR_CHUNK,
		.chunk = { .addr = 4096, .rkey = 1, .len = 65537 },
	};

	/* Shorter than the fixed part. */
	KUNIT_EXPECT_EQ(test, hdr_try(&m, 11), -EPROTO);
	/* A payload past the end of the Send, and one that just fits. */
	KUNIT_EXPECT_EQ(test, hdr_try(&m, 15), -EPROTO);
	KUNIT_EXPECT_EQ(test, hdr_try(&m, 16), 12);
	/* A flag nobody defined. */
	m.flags |= 0x80;
	KUNIT_EXPECT_EQ(test, hdr_try(&m, 16), -EPROTO);
	/* A DONE cut short. */
	m.flags = XRDMA_HDR_DONE;
	m.len = 0;
	KUNIT_EXPECT_EQ(test, hdr_try(&m, 14), -EPROTO);
	KUNIT_EXPECT_EQ(test, hdr_try(&m, 16), 16);
	/* A chunk cut short, and whole. */
	KUNIT_EXPECT_EQ(test, hdr_try(&c, 27), -EPROTO);
	KUNIT_EXPECT_EQ(test, hdr_try(&c, 28), 28);
	/* A chunk with inline bytes too. */
	c.len = 1;
	KUNIT_EXPECT_EQ(test, hdr_try(&c, 29), -EPROTO);
	c.len = 0;
	/* A chunk that is no message for the user. */
	c.flags = XRDMA_HDR_CHUNK;
	KUNIT_EXPECT_EQ(test, hdr_try(&c, 28), -EPROTO);
	c.flags = XRDMA_HDR_DATA | XRDMA_HDR_CHUNK;
	hdr_expect_away_len(test, &c, &c.chunk.len, 28);
}

static void hdr_malformed_push(struct kunit *test)
{
	struct xrdma_msg p = {
		.flags = XRDMA_HDR_DATA | XRDMA_HDR_PUSHED,
		.pushed = { .rkey = 9, .len = 65537 },
	};
	struct xrdma_msg l = {
		.flags = XRDMA_HDR_LAND,
		.land = { .addr = 4096, .rkey = 2, .len = XRDMA_MAX_SEND },
	};

	KUNIT_EXPECT_EQ(test, hdr_try(&p, 19), -EPROTO);
	KUNIT_EXPECT_EQ(test, hdr_try(&p, 20), 20);
	/* Pushed and inline bytes, pushed and chunked, pushed to nobody. */
	p.len = 1;
	KUNIT_EXPECT_EQ(test, hdr_try(&p, 21), -EPROTO);
	p.len = 0;
	p.flags |= XRDMA_HDR_CHUNK;
	p.chunk.len = 1;
	KUNIT_EXPECT_EQ(test, hdr_try(&p, 36), -EPROTO);
	p.flags = XRDMA_HDR_PUSHED;
	KUNIT_EXPECT_EQ(test, hdr_try(&p, 20), -EPROTO);
	p.flags = XRDMA_HDR_DATA | XRDMA_HDR_PUSHED;
	hdr_expect_away_len(test, &p, &p.pushed.len, 20);

	/* A landing buffer cut short, and one too small for a message. */
	KUNIT_EXPECT_EQ(test, hdr_try(&l, 27), -EPROTO);
	KUNIT_EXPECT_EQ(test, hdr_try(&l, 28), 28);
	l.land.len = XRDMA_MAX_SEND - 1;
	KUNIT_EXPECT_EQ(test, hdr_try(&l, 28), -EPROTO);
}

static void hdr_chunk_threshold(struct kunit *test)
{
	u32 limit = 65536 + XRDMA_HDR_MAX;

	KUNIT_EXPECT_FALSE(test, xrdma_send_chunked(0, limit));
	KUNIT_EXPECT_FALSE(test, xrdma_send_chunked(1, limit));
	KUNIT_EXPECT_FALSE(test, xrdma_send_chunked(65536, limit));
	KUNIT_EXPECT_TRUE(test, xrdma_send_chunked(65537, limit));
	KUNIT_EXPECT_TRUE(test, xrdma_send_chunked(XRDMA_MAX_SEND, limit));
	/* The smallest inline size both ends may agree on. */
	KUNIT_EXPECT_FALSE(test, xrdma_send_chunked(64, 64 + XRDMA_HDR_MAX));
	KUNIT_EXPECT_TRUE(test, xrdma_send_chunked(65, 64 + XRDMA_HDR_MAX));
	/* No room even for the header: everything is a chunk. */
	KUNIT_EXPECT_TRUE(test, xrdma_send_chunked(0, XRDMA_HDR_MAX - 1));
}

static void hdr_imm(struct kunit *test)
{
	struct xrdma_msg msg = {
		.credits = 0x89abcdef,
		.flags = XRDMA_HDR_DATA,
		.len = 4096,
	}, got;

	/* Only a payload with no optional field goes as immediate data. */
	KUNIT_EXPECT_TRUE(test, xrdma_hdr_imm_ok(&msg));
	msg.flags |= XRDMA_HDR_DONE;
	KUNIT_EXPECT_FALSE(test, xrdma_hdr_imm_ok(&msg));
	msg.flags = XRDMA_HDR_CHUNK;
	KUNIT_EXPECT_FALSE(test, xrdma_hdr_imm_ok(&msg));
	msg.flags = XRDMA_HDR_DATA | XRDMA_HDR_PUSHED;
	KUNIT_EXPECT_FALSE(test, xrdma_hdr_imm_ok(&msg));
	msg.flags = XRDMA_HDR_DATA | XRDMA_HDR_LAND;
	KUNIT_EXPECT_FALSE(test, xrdma_hdr_imm_ok(&msg));
	msg.flags = 0;		/* a bare credit update */
	KUNIT_EXPECT_FALSE(test, xrdma_hdr_imm_ok(&msg));
	msg.flags = XRDMA_HDR_DATA;
	msg.len = 0;
	KUNIT_EXPECT_FALSE(test, xrdma_hdr_imm_ok(&msg));

	/* The credits travel whole; the length is the Send's. */
	msg.len = 4096;
	KUNIT_ASSERT_EQ(test, xrdma_hdr_decode_imm(xrdma_hdr_encode_imm(&msg),
						   4096, &got), 0);
	KUNIT_EXPECT_EQ(test, got.credits, 0x89abcdefU);
	KUNIT_EXPECT_EQ(test, got.flags, (u32)XRDMA_HDR_DATA);
	KUNIT_EXPECT_EQ(test, got.len, 4096U);
	KUNIT_EXPECT_EQ(test, got.done, 0U);
	KUNIT_EXPECT_EQ(test, xrdma_hdr_decode_imm(cpu_to_be32(1), 1, &got),
			0);
	KUNIT_EXPECT_EQ(test, got.len, 1U);
	/* An empty Send with immediate data is no message. */
	KUNIT_EXPECT_EQ(test, xrdma_hdr_decode_imm(cpu_to_be32(1), 0, &got),
			-EPROTO);
}

static struct kunit_case xrdma_hdr_cases[] = {
	KUNIT_CASE(hdr_sizes),
	KUNIT_CASE(hdr_roundtrip_inline),
	KUNIT_CASE(hdr_roundtrip_chunk),
	KUNIT_CASE(hdr_roundtrip_push),
	KUNIT_CASE(hdr_malformed),
	KUNIT_CASE(hdr_malformed_push),
	KUNIT_CASE(hdr_chunk_threshold),
	KUNIT_CASE(hdr_imm),
	{}
};

struct kunit_suite xrdma_hdr_suite = {
	.name = "xrdma_hdr",
	.test_cases = xrdma_hdr_cases,
};
