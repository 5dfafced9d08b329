// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Transport header encoders/decoders (kernel/core/hdr.[ch]): byte-exact
 * wire images written by hand from the IBTA layouts, round trips with
 * boundary values, field isolation, masking of over-wide values.
 */
#include "ktap.h"
#include "hdr.h"

#define GUARD 0xa5	/* bytes around a header must stay untouched */

static bool bytes_eq(const u8 *got, const u8 *want, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			ktap_diag("byte %zu: got 0x%02x want 0x%02x", i,
				  got[i], want[i]);
			return false;
		}
	}
	return true;
}

static bool guards_ok(const u8 *buf, size_t hdr_len, size_t total)
{
	size_t i;

	for (i = hdr_len; i < total; i++)
		if (buf[i] != GUARD)
			return false;
	return true;
}

static void test_sizes(void)
{
	CHECK_EQ(SROCE_BTH_BYTES, 12);
	CHECK_EQ(SROCE_RETH_BYTES, 16);
	CHECK_EQ(SROCE_AETH_BYTES, 4);
	CHECK_EQ(SROCE_ATMETH_BYTES, 28);
	CHECK_EQ(SROCE_ATMACK_BYTES, 8);
	CHECK_EQ(SROCE_DETH_BYTES, 8);
	CHECK_EQ(SROCE_IMMDT_BYTES, 4);
	CHECK_EQ(SROCE_IETH_BYTES, 4);
	CHECK_EQ(SROCE_CNP_BYTES, 28);
	CHECK_EQ(SROCE_OPCODE_CNP, 0x81);
	CHECK_EQ(SROCE_ROCEV2_PORT, 4791);
}

static void test_accessors(void)
{
	static const u8 w[8] = { 0x01, 0x23, 0x45, 0x67,
				 0x89, 0xab, 0xcd, 0xef };
	u8 b[10];

	CHECK_EQ(sroce_get_be16(w), 0x0123);
	CHECK_EQ(sroce_get_be24(w), 0x012345);
	CHECK_EQ(sroce_get_be32(w), 0x01234567);
	CHECK_EQ(sroce_get_be64(w), 0x0123456789abcdefULL);
	CHECK_EQ(sroce_get_be32(w + 4), 0x89abcdef);	/* top bit set */

	memset(b, GUARD, sizeof(b));
	sroce_put_be64(b, 0x0123456789abcdefULL);
	CHECK(bytes_eq(b, w, 8) && guards_ok(b, 8, sizeof(b)));
	memset(b, GUARD, sizeof(b));
	sroce_put_be32(b, 0x89abcdef);
	CHECK(bytes_eq(b, w + 4, 4) && guards_ok(b, 4, sizeof(b)));
	memset(b, GUARD, sizeof(b));
	sroce_put_be24(b, 0x234567);
	CHECK(bytes_eq(b, w + 1, 3) && guards_ok(b, 3, sizeof(b)));
	memset(b, GUARD, sizeof(b));
	sroce_put_be16(b, 0xcdef);
	CHECK(bytes_eq(b, w + 6, 2) && guards_ok(b, 2, sizeof(b)));
}

/* ---- BTH ---- */

static bool bth_eq(const struct sroce_bth *a, const struct sroce_bth *b)
{
	return a->opcode == b->opcode && a->se == b->se && a->mig == b->mig &&
	       a->pad == b->pad && a->tver == b->tver && a->pkey == b->pkey &&
	       a->fecn == b->fecn && a->becn == b->becn &&
	       a->resv6 == b->resv6 && a->dqpn == b->dqpn &&
	       a->ackreq == b->ackreq && a->resv7 == b->resv7 &&
	       a->psn == b->psn;
}

static const struct sroce_bth bth_max = {
	.opcode = 0xff, .se = 1, .mig = 1, .pad = 3, .tver = 15,
	.pkey = 0xffff, .fecn = 1, .becn = 1, .resv6 = 0x3f,
	.dqpn = 0xffffff, .ackreq = 1, .resv7 = 0x7f, .psn = 0xffffff,
};

static void test_bth_wire(void)
{
	const struct sroce_bth bth = {
		.opcode = 0x0a, .se = 1, .pad = 3, .pkey = 0x8001, .becn = 1,
		.dqpn = 0x123456, .ackreq = 1, .psn = 0xabcdef,
	};
	static const u8 want[12] = {
		0x0a,			/* RC RDMA WRITE ONLY */
		0xb0,			/* SE, M=0, PadCnt 3, TVer 0 */
		0x80, 0x01,		/* P_Key */
		0x40,			/* FECN 0, BECN 1, resv6 0 */
		0x12, 0x34, 0x56,	/* DestQP */
		0x80,			/* AckReq, resv7 0 */
		0xab, 0xcd, 0xef,	/* PSN */
	};
	u8 buf[16];
	struct sroce_bth got;

	memset(buf, GUARD, sizeof(buf));
	sroce_bth_encode(&bth, buf);
	CHECK(bytes_eq(buf, want, sizeof(want)));
	CHECK(guards_ok(buf, 12, sizeof(buf)));
	sroce_bth_decode(want, &got);
	CHECK(bth_eq(&got, &bth));
	CHECK_EQ(sroce_bth_get_opcode(want), 0x0a);
	CHECK_EQ(sroce_bth_get_pad(want), 3);
	CHECK_EQ(sroce_bth_get_dqpn(want), 0x123456);
	CHECK_EQ(sroce_bth_get_psn(want), 0xabcdef);
}

static void test_bth_boundaries(void)
{
	static const struct sroce_bth zero;
	struct sroce_bth got;
	u8 buf[12];
	size_t i;
	int f;

	sroce_bth_encode(&zero, buf);
	for (i = 0; i < 12; i++)
		CHECKF(buf[i] == 0, "byte %zu", i);
	sroce_bth_decode(buf, &got);
	CHECK(bth_eq(&got, &zero));

	sroce_bth_encode(&bth_max, buf);
	for (i = 0; i < 12; i++)
		CHECKF(buf[i] == 0xff, "byte %zu", i);
	sroce_bth_decode(buf, &got);
	CHECK(bth_eq(&got, &bth_max));

	/* each field alone at its maximum: exactly its own bits */
	for (f = 0; f < 13; f++) {
		struct sroce_bth b = zero;
		static const u8 bits[13][12] = {
			{ 0xff },
			{ 0, 0x80 }, { 0, 0x40 }, { 0, 0x30 }, { 0, 0x0f },
			{ 0, 0, 0xff, 0xff },
			{ 0, 0, 0, 0, 0x80 }, { 0, 0, 0, 0, 0x40 },
			{ 0, 0, 0, 0, 0x3f },
			{ 0, 0, 0, 0, 0, 0xff, 0xff, 0xff },
			{ 0, 0, 0, 0, 0, 0, 0, 0, 0x80 },
			{ 0, 0, 0, 0, 0, 0, 0, 0, 0x7f },
			{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff },
		};

		switch (f) {
		case 0:
			b.opcode = 0xff;
			break;
		case 1:
			b.se = 1;
			break;
		case 2:
			b.mig = 1;
			break;
		case 3:
			b.pad = 3;
			break;
		case 4:
			b.tver = 15;
			break;
		case 5:
			b.pkey = 0xffff;
			break;
		case 6:
			b.fecn = 1;
			break;
		case 7:
			b.becn = 1;
			break;
		case 8:
			b.resv6 = 0x3f;
			break;
		case 9:
			b.dqpn = 0xffffff;
			break;
		case 10:
			b.ackreq = 1;
			break;
		case 11:
			b.resv7 = 0x7f;
			break;
		case 12:
			b.psn = 0xffffff;
			break;
		}
		sroce_bth_encode(&b, buf);
		CHECKF(bytes_eq(buf, bits[f], 12), "field %d", f);
		sroce_bth_decode(buf, &got);
		CHECKF(bth_eq(&got, &b), "field %d", f);
	}
}

static void test_bth_masking(void)
{
	const struct sroce_bth wide = {
		.opcode = 0x04, .se = 2, .mig = 0x80, .pad = 7, .tver = 0x1f,
		.pkey = 0x1234, .fecn = 0x10, .becn = 0, .resv6 = 0xff,
		.dqpn = 0xff123456, .ackreq = 0xff, .resv7 = 0xff,
		.psn = 0x01000001,
	};
	static const u8 want[12] = {
		0x04, 0xff, 0x12, 0x34, 0xbf, 0x12, 0x34, 0x56,
		0xff, 0x00, 0x00, 0x01,
	};
	u8 buf[12];

	sroce_bth_encode(&wide, buf);
	CHECK(bytes_eq(buf, want, 12));
}

static void test_bth_random(void)
{
	int i;

	for (i = 0; i < 10000; i++) {
		u8 wire[12], again[12];
		struct sroce_bth b;

		ktap_rand_bytes(wire, sizeof(wire));
		sroce_bth_decode(wire, &b);
		sroce_bth_encode(&b, again);
		if (!CHECK(bytes_eq(again, wire, 12)))
			break;
	}
}

/* ---- extension headers ---- */

static void test_reth(void)
{
	const struct sroce_reth r = {
		.va = 0x0102030405060708ULL, .rkey = 0x90a0b0c0,
		.len = 0x00100000,
	};
	static const u8 want[16] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	/* VA */
		0x90, 0xa0, 0xb0, 0xc0,				/* R_Key */
		0x00, 0x10, 0x00, 0x00,				/* DMA len */
	};
	const struct sroce_reth edge[] = {
		{ 0, 0, 0 },
		{ ~0ULL, ~0U, ~0U },
		{ 1ULL << 63, 1U << 31, 1U << 31 },
		{ 1, 1, 1 },
	};
	struct sroce_reth got;
	u8 buf[20];
	size_t i;

	memset(buf, GUARD, sizeof(buf));
	sroce_reth_encode(&r, buf);
	CHECK(bytes_eq(buf, want, 16) && guards_ok(buf, 16, sizeof(buf)));
	sroce_reth_decode(want, &got);
	CHECK(got.va == r.va && got.rkey == r.rkey && got.len == r.len);
	for (i = 0; i < ARRAY_SIZE(edge); i++) {
		sroce_reth_encode(&edge[i], buf);
		sroce_reth_decode(buf, &got);
		CHECKF(got.va == edge[i].va && got.rkey == edge[i].rkey &&
		       got.len == edge[i].len, "edge %zu", i);
	}
}

static void test_aeth(void)
{
	const struct sroce_aeth a = { .syndrome = 0x61, .msn = 0xfedcba };
	static const u8 want[4] = { 0x61, 0xfe, 0xdc, 0xba };
	const struct sroce_aeth edge[] = {
		{ 0, 0 }, { 0xff, 0xffffff }, { 0x1f, 1 }, { 0x80, 0x800000 },
	};
	struct sroce_aeth got;
	u8 buf[8];
	size_t i;

	memset(buf, GUARD, sizeof(buf));
	sroce_aeth_encode(&a, buf);
	CHECK(bytes_eq(buf, want, 4) && guards_ok(buf, 4, sizeof(buf)));
	sroce_aeth_decode(want, &got);
	CHECK(got.syndrome == a.syndrome && got.msn == a.msn);
	for (i = 0; i < ARRAY_SIZE(edge); i++) {
		sroce_aeth_encode(&edge[i], buf);
		sroce_aeth_decode(buf, &got);
		CHECKF(got.syndrome == edge[i].syndrome &&
		       got.msn == edge[i].msn, "edge %zu", i);
	}
	/* the MSN is 24 bits: a wider value must not spill into byte 0 */
	memset(buf, GUARD, sizeof(buf));
	sroce_aeth_encode(&(struct sroce_aeth){ 0x00, 0x12345678 }, buf);
	CHECK(bytes_eq(buf, (const u8[]){ 0x00, 0x34, 0x56, 0x78 }, 4));
	CHECK(guards_ok(buf, 4, sizeof(buf)));
}

static void test_atmeth(void)
{
	const struct sroce_atmeth a = {
		.va = 0x1122334455667788ULL, .rkey = 0x99aabbcc,
		.swap_add = 0x0102030405060708ULL,
		.compare = 0xf1f2f3f4f5f6f7f8ULL,
	};
	static const u8 want[28] = {
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* VA */
		0x99, 0xaa, 0xbb, 0xcc,				/* R_Key */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	/* swap/add */
		0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,	/* compare */
	};
	const struct sroce_atmeth edge[] = {
		{ 0, 0, 0, 0 }, { ~0ULL, ~0U, ~0ULL, ~0ULL },
		{ 8, 1, 1ULL << 63, 1 },
	};
	struct sroce_atmeth got;
	u8 buf[32];
	size_t i;

	memset(buf, GUARD, sizeof(buf));
	sroce_atmeth_encode(&a, buf);
	CHECK(bytes_eq(buf, want, 28) && guards_ok(buf, 28, sizeof(buf)));
	sroce_atmeth_decode(want, &got);
	CHECK(got.va == a.va && got.rkey == a.rkey &&
	      got.swap_add == a.swap_add && got.compare == a.compare);
	for (i = 0; i < ARRAY_SIZE(edge); i++) {
		sroce_atmeth_encode(&edge[i], buf);
		sroce_atmeth_decode(buf, &got);
		CHECKF(got.va == edge[i].va && got.rkey == edge[i].rkey &&
		       got.swap_add == edge[i].swap_add &&
		       got.compare == edge[i].compare, "edge %zu", i);
	}
}

static void test_atmack(void)
{
	static const u8 want[8] = { 0xde, 0xad, 0xbe, 0xef,
				    0x00, 0x00, 0x00, 0x01 };
	static const u64 edge[] = { 0, ~0ULL, 1ULL << 63, 1 };
	struct sroce_atmack got;
	u8 buf[12];
	size_t i;

	memset(buf, GUARD, sizeof(buf));
	sroce_atmack_encode(&(struct sroce_atmack){ 0xdeadbeef00000001ULL },
			    buf);
	CHECK(bytes_eq(buf, want, 8) && guards_ok(buf, 8, sizeof(buf)));
	for (i = 0; i < ARRAY_SIZE(edge); i++) {
		sroce_atmack_encode(&(struct sroce_atmack){ edge[i] }, buf);
		sroce_atmack_decode(buf, &got);
		CHECKF(got.orig == edge[i], "edge %zu", i);
	}
}

static void test_deth(void)
{
	const struct sroce_deth d = {
		.qkey = 0x80010203, .resv = 0, .sqpn = 0x000001,
	};
	static const u8 want[8] = {
		0x80, 0x01, 0x02, 0x03,		/* Q_Key */
		0x00,				/* reserved */
		0x00, 0x00, 0x01,		/* SrcQP */
	};
	const struct sroce_deth edge[] = {
		{ 0, 0, 0 }, { ~0U, 0xff, 0xffffff }, { 1, 0x80, 0x800000 },
	};
	struct sroce_deth got;
	u8 buf[12];
	size_t i;

	memset(buf, GUARD, sizeof(buf));
	sroce_deth_encode(&d, buf);
	CHECK(bytes_eq(buf, want, 8) && guards_ok(buf, 8, sizeof(buf)));
	sroce_deth_decode(want, &got);
	CHECK(got.qkey == d.qkey && got.resv == d.resv && got.sqpn == d.sqpn);
	for (i = 0; i < ARRAY_SIZE(edge); i++) {
		sroce_deth_encode(&edge[i], buf);
		sroce_deth_decode(buf, &got);
		CHECKF(got.qkey == edge[i].qkey && got.resv == edge[i].resv &&
		       got.sqpn == edge[i].sqpn, "edge %zu", i);
	}
	/* a 32-bit source QPN is cut to 24 bits, the reserved byte kept */
	sroce_deth_encode(&(struct sroce_deth){ 0, 0, 0xab123456 }, buf);
	CHECK(bytes_eq(buf + 4, (const u8[]){ 0x00, 0x12, 0x34, 0x56 }, 4));
}

static void test_immdt_ieth(void)
{
	static const u32 edge[] = { 0, ~0U, 0x80000000u, 1, 0x12345678 };
	struct sroce_immdt im;
	struct sroce_ieth ie;
	u8 buf[8];
	size_t i;

	memset(buf, GUARD, sizeof(buf));
	sroce_immdt_encode(&(struct sroce_immdt){ 0x12345678 }, buf);
	CHECK(bytes_eq(buf, (const u8[]){ 0x12, 0x34, 0x56, 0x78 }, 4));
	CHECK(guards_ok(buf, 4, sizeof(buf)));
	memset(buf, GUARD, sizeof(buf));
	sroce_ieth_encode(&(struct sroce_ieth){ 0xcafef00d }, buf);
	CHECK(bytes_eq(buf, (const u8[]){ 0xca, 0xfe, 0xf0, 0x0d }, 4));
	CHECK(guards_ok(buf, 4, sizeof(buf)));
	for (i = 0; i < ARRAY_SIZE(edge); i++) {
		sroce_immdt_encode(&(struct sroce_immdt){ edge[i] }, buf);
		sroce_immdt_decode(buf, &im);
		CHECKF(im.imm == edge[i], "edge %zu", i);
		sroce_ieth_encode(&(struct sroce_ieth){ edge[i] }, buf);
		sroce_ieth_decode(buf, &ie);
		CHECKF(ie.rkey == edge[i], "edge %zu", i);
	}
}

static void test_aeth_syndromes(void)
{
	static const u8 want[] = {
		0x00, 0x1f, 0x32, 0x3f, 0x60, 0x61, 0x62, 0x63, 0x64,
	};
	u8 got[ARRAY_SIZE(want)];
	size_t i;

	got[0] = sroce_aeth_syn_ack(0);
	got[1] = sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID);
	got[2] = sroce_aeth_syn_rnr(0x12);
	got[3] = sroce_aeth_syn_rnr(0xff);	/* value cut to 5 bits */
	got[4] = sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR);
	got[5] = sroce_aeth_syn_nak(SROCE_NAK_INVALID_REQ);
	got[6] = sroce_aeth_syn_nak(SROCE_NAK_REM_ACCESS_ERR);
	got[7] = sroce_aeth_syn_nak(SROCE_NAK_REM_OP_ERR);
	got[8] = sroce_aeth_syn_nak(SROCE_NAK_INVALID_RD_REQ);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		CHECKF(got[i] == want[i], "case %zu: 0x%02x want 0x%02x",
		       i, got[i], want[i]);

	CHECK_EQ(sroce_aeth_syn_type(0x1f), SROCE_AETH_ACK);
	CHECK_EQ(sroce_aeth_syn_type(0x2c), SROCE_AETH_RNR_NAK);
	CHECK_EQ(sroce_aeth_syn_type(0x41), SROCE_AETH_RESERVED);
	CHECK_EQ(sroce_aeth_syn_type(0x63), SROCE_AETH_NAK);
	CHECK_EQ(sroce_aeth_syn_type(0xe3), SROCE_AETH_NAK);	/* bit 7 */
	CHECK_EQ(sroce_aeth_syn_value(0x63), SROCE_NAK_REM_OP_ERR);
	CHECK_EQ(sroce_aeth_syn_value(0x2c), 0x0c);
	CHECK_EQ(sroce_aeth_syn_value(0xff), 0x1f);
}

/* IBTA vol. 1 table 45 (RNR timer field encoding), in milliseconds */
static void test_rnr_timer(void)
{
	static const char * const ms[32] = {
		"655.36", "0.01", "0.02", "0.03", "0.04", "0.06", "0.08",
		"0.12", "0.16", "0.24", "0.32", "0.48", "0.64", "0.96", "1.28",
		"1.92", "2.56", "3.84", "5.12", "7.68", "10.24", "15.36",
		"20.48", "30.72", "40.96", "61.44", "81.92", "122.88",
		"163.84", "245.76", "327.68", "491.52",
	};
	int c;

	for (c = 0; c < 32; c++) {
		char buf[16];
		u32 us = sroce_rnr_timer_usec(c);

		snprintf(buf, sizeof(buf), "%u.%02u", us / 1000,
			 us % 1000 / 10);
		CHECKF(!strcmp(buf, ms[c]) && us % 10 == 0,
		       "code %d: %u us, want %s ms", c, us, ms[c]);
	}
	CHECK_EQ(sroce_rnr_timer_usec(0x21), 10);	/* 5 bits only */
}

/*
 * A CNP captured from a ConnectX-4 Lx (scapy test/contrib/roce.uts): the
 * BTH and the 16 reserved bytes, between the UDP header and the ICRC.
 */
static void test_cnp_build(void)
{
	static const u8 cx4[SROCE_CNP_BYTES] = {
		0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18,
		0x00, 0x00, 0x00, 0x00,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct sroce_bth bth;
	u8 buf[SROCE_CNP_BYTES + 4];

	memset(buf, GUARD, sizeof(buf));
	CHECK_EQ(sroce_cnp_build(buf, 0xffff, 0x118), SROCE_CNP_BYTES);
	CHECK(bytes_eq(buf, cx4, sizeof(cx4)));
	CHECK(guards_ok(buf, SROCE_CNP_BYTES, sizeof(buf)));
	sroce_bth_decode(cx4, &bth);
	CHECK(bth.opcode == SROCE_OPCODE_CNP && bth.becn && !bth.fecn &&
	      bth.dqpn == 0x118 && bth.psn == 0 && bth.pkey == 0xffff);
}

static const struct ktap_case cases[] = {
	{ "hdr_sizes", test_sizes },
	{ "hdr_be_accessors", test_accessors },
	{ "hdr_bth_wire_bytes", test_bth_wire },
	{ "hdr_bth_boundaries_and_field_isolation", test_bth_boundaries },
	{ "hdr_bth_encode_masks_wide_values", test_bth_masking },
	{ "hdr_bth_random_wire_roundtrip", test_bth_random },
	{ "hdr_reth", test_reth },
	{ "hdr_aeth", test_aeth },
	{ "hdr_atmeth", test_atmeth },
	{ "hdr_atmack", test_atmack },
	{ "hdr_deth", test_deth },
	{ "hdr_immdt_ieth", test_immdt_ieth },
	{ "hdr_aeth_syndromes", test_aeth_syndromes },
	{ "hdr_rnr_timer_codes", test_rnr_timer },
	{ "hdr_cnp_build_matches_cx4lx_capture", test_cnp_build },
};

int main(void)
{
	ktap_plan(ARRAY_SIZE(cases));
	ktap_run_cases(cases, ARRAY_SIZE(cases));
	return ktap_finish();
}
