// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Structural checks of received packets (kernel/core/pkt.c): each reason
 * for refusal, the lengths it reports, and a sweep over every opcode,
 * length and pad count, with buffers sized exactly (ASan catches any read
 * past the end).
 */
#include <stdlib.h>

#include "icrc.h"
#include "ktap.h"
#include "opcode.h"
#include "pkt.h"

/* A packet of @len bytes whose BTH says @opcode, @pad, @tver. */
static u8 *mk(u8 opcode, u8 pad, u8 tver, size_t len)
{
	struct sroce_bth bth = {
		.opcode = opcode, .pad = pad, .tver = tver,
		.pkey = 0xffff, .dqpn = 0x11, .psn = 0x22,
	};
	u8 *p = calloc(1, len ? len : 1);

	if (p && len >= SROCE_BTH_BYTES)
		sroce_bth_encode(&bth, p);
	return p;
}

static enum sroce_pkt_err parse(u8 opcode, u8 pad, u8 tver, size_t len,
				struct sroce_pkt *pkt)
{
	u8 *p = mk(opcode, pad, tver, len);
	enum sroce_pkt_err err = sroce_pkt_parse(p, len, pkt);

	free(p);
	return err;
}

static void test_refusals(void)
{
	static const struct {
		u8 opcode, pad, tver;
		size_t len;
		enum sroce_pkt_err want;
	} t[] = {
		{ SROCE_RC_SEND_ONLY, 0, 0, 0, SROCE_PKT_SHORT },
		{ SROCE_RC_SEND_ONLY, 0, 0, 15, SROCE_PKT_SHORT },
		{ SROCE_RC_SEND_ONLY, 0, 1, 16, SROCE_PKT_BAD_TVER },
		{ 0x1f, 0, 0, 64, SROCE_PKT_BAD_OPCODE },	/* RC reserved */
		{ 0x40, 0, 0, 64, SROCE_PKT_BAD_OPCODE },	/* RD */
		{ 0xc0, 0, 0, 64, SROCE_PKT_BAD_OPCODE },	/* vendor */
		{ SROCE_RC_SEND_ONLY, 0, 0, 16 + 3, SROCE_PKT_BAD_LENGTH },
		{ SROCE_RC_SEND_ONLY, 1, 0, 16, SROCE_PKT_BAD_LENGTH },
		{ SROCE_RC_SEND_ONLY, 3, 0, 16, SROCE_PKT_BAD_LENGTH },
		/* WRITE ONLY needs a RETH: 12 + 16 + ICRC */
		{ SROCE_RC_WRITE_ONLY, 0, 0, 12 + 15 + 4, SROCE_PKT_SHORT },
		/* an ACK carries no payload */
		{ SROCE_RC_ACKNOWLEDGE, 0, 0, 12 + 4 + 4 + 4, SROCE_PKT_BAD_LENGTH },
		{ SROCE_UD_SEND_ONLY, 0, 0, 12 + 7 + 4, SROCE_PKT_SHORT },
	};
	struct sroce_pkt pkt;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(parse(t[i].opcode, t[i].pad, t[i].tver, t[i].len,
			     &pkt) == t[i].want, "case %zu", i);
}

static void test_accepts(void)
{
	struct sroce_pkt pkt;

	/* SEND ONLY, 5 bytes of payload and 3 of pad */
	if (CHECK_EQ(parse(SROCE_RC_SEND_ONLY, 3, 0, 12 + 8 + 4, &pkt),
		     SROCE_PKT_OK)) {
		CHECK_EQ(pkt.paylen, 5u);
		CHECK_EQ(pkt.hdr_len, 12u);
		CHECK_EQ(pkt.bth.dqpn, 0x11u);
		CHECK_EQ(pkt.bth.psn, 0x22u);
	}
	/* an empty SEND ONLY */
	if (CHECK_EQ(parse(SROCE_RC_SEND_ONLY, 0, 0, 16, &pkt), SROCE_PKT_OK))
		CHECK_EQ(pkt.paylen, 0u);
	/* ACK: BTH + AETH + ICRC */
	if (CHECK_EQ(parse(SROCE_RC_ACKNOWLEDGE, 0, 0, 12 + 4 + 4, &pkt), SROCE_PKT_OK))
		CHECK(pkt.flags & SROCE_OPF_AETH);
	/* CNP: BTH + 16 reserved bytes + ICRC */
	if (CHECK_EQ(parse(SROCE_OPCODE_CNP, 0, 0, 12 + 16 + 4, &pkt),
		     SROCE_PKT_OK))
		CHECK_EQ(pkt.paylen, 0u);
	/* UD SEND ONLY with 4 KiB */
	if (CHECK_EQ(parse(SROCE_UD_SEND_ONLY, 0, 0, 12 + 8 + 4096 + 4, &pkt),
		     SROCE_PKT_OK))
		CHECK_EQ(pkt.paylen, 4096u);
}

/*
 * Every opcode byte, length 0..80 and pad 0..3: an accepted packet's parts
 * add up to its length, and acceptance matches the rules restated here.
 */
/*
 * The BTH's P_Key: sroce's port has only the default partition (IBTA
 * 10.9.1), so only its full (0xffff) and limited (0x7fff) members pass.
 */
static void test_pkey(void)
{
	static const struct {
		u16 pkey;
		bool ok;
	} t[] = {
		{ 0xffff, true }, { 0x7fff, true },
		{ 0x0000, false }, { 0x8000, false }, { 0x1234, false },
		{ 0xfffe, false }, { 0x7ffe, false }, { 0x8001, false },
	};
	struct sroce_bth bth = {
		.opcode = SROCE_RC_SEND_ONLY, .dqpn = 0x11, .psn = 0x22,
	};
	u8 p[16] = { 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct sroce_pkt pkt;
		enum sroce_pkt_err err;

		bth.pkey = t[i].pkey;
		sroce_bth_encode(&bth, p);
		err = sroce_pkt_parse(p, sizeof(p), &pkt);
		CHECKF(err == (t[i].ok ? SROCE_PKT_OK : SROCE_PKT_BAD_PKEY),
		       "P_Key 0x%04x: %d", t[i].pkey, err);
	}
}

static void test_sweep(void)
{
	unsigned int op, pad;
	size_t len;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_info(op);

		for (len = 0; len <= 80; len++) {
			for (pad = 0; pad < 4; pad++) {
				struct sroce_pkt pkt;
				enum sroce_pkt_err err;
				bool want = info && len >= info->hdr_len + 4u &&
					!((len - info->hdr_len - 4) & 3) &&
					pad <= len - info->hdr_len - 4 &&
					((info->flags & SROCE_OPF_PAYLOAD) ||
					 len == info->hdr_len + 4u);

				if (len < 16)
					want = false;
				err = parse(op, pad, 0, len, &pkt);
				if (!CHECKF((err == SROCE_PKT_OK) == want,
					    "op 0x%x len %zu pad %u err %d", op,
					    len, pad, err))
					return;
				if (err == SROCE_PKT_OK &&
				    !CHECKF(pkt.hdr_len + pkt.paylen + pad +
					    SROCE_ICRC_BYTES == len,
					    "op 0x%x len %zu", op, len))
					return;
			}
		}
	}
}

static const struct ktap_case cases[] = {
	{ "pkt_refusals", test_refusals },
	{ "pkt_accepts", test_accepts },
	{ "pkt_pkey_default_partition_only", test_pkey },
	{ "pkt_sweep_all_opcodes_lengths_pads", test_sweep },
};

int main(void)
{
	ktap_plan(ARRAY_SIZE(cases));
	ktap_run_cases(cases, ARRAY_SIZE(cases));
	return ktap_finish();
}
