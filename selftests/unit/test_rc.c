// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reliable connected transport's decisions (kernel/core/rc.c), the
 * requester's and the responder's: table-driven cases for each function,
 * PSN wraparound, boundary sizes, every operation at every position.
 * test_rc_comp.c has the completer's, the retry budget's and the timers';
 * test_rc_sim.c runs them together over a lossy wire.
 */
#include "ktap.h"
#include "rc_util.h"

/* -- segmentation ------------------------------------------------------ */

static void test_npkts(void)
{
	static const struct { u32 len, pmtu, want; } t[] = {
		{ 0, 256, 1 },			/* 0 bytes: one packet */
		{ 1, 256, 1 },
		{ 255, 256, 1 },		/* pmtu - 1 */
		{ 256, 256, 1 },		/* pmtu */
		{ 257, 256, 2 },		/* pmtu + 1 */
		{ 512, 256, 2 },		/* exact multiple */
		{ 513, 256, 3 },
		{ 4095, 4096, 1 },
		{ 4096, 4096, 1 },
		{ 4097, 4096, 2 },
		{ 3 * 1024, 1024, 3 },
		{ 0x80000000u, 256, 0x800000 },	/* 2^31 at the smallest MTU */
		{ 0xffffffffu, 256, 0x1000000 },	/* no wrap in the sum */
		{ 0xffffffffu, 4096, 0x100000 },
		{ 100, 0, 1 },			/* bad pmtu taken as 256 */
		{ 300, 0, 2 },
		{ 300, 100, 2 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_rc_npkts(t[i].len, t[i].pmtu) == t[i].want,
		       "npkts(%u, %u) = %u, want %u", t[i].len, t[i].pmtu,
		       sroce_rc_npkts(t[i].len, t[i].pmtu), t[i].want);
}

static void test_payload(void)
{
	static const struct { u32 len, pmtu, i, want; } t[] = {
		{ 0, 256, 0, 0 },
		{ 0, 256, 1, 0 },
		{ 1, 256, 0, 1 },
		{ 255, 256, 0, 255 },
		{ 256, 256, 0, 256 },
		{ 256, 256, 1, 0 },
		{ 257, 256, 0, 256 },
		{ 257, 256, 1, 1 },
		{ 512, 256, 1, 256 },		/* last of an exact multiple */
		{ 1000, 256, 0, 256 },
		{ 1000, 256, 2, 256 },
		{ 1000, 256, 3, 232 },
		{ 1000, 256, 4, 0 },
		{ 1000, 256, 0xffffffffu, 0 },
		{ 0xffffffffu, 256, 0xffffff, 255 },
		{ 0xffffffffu, 256, 0xfffffe, 256 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_rc_payload(t[i].len, t[i].pmtu, t[i].i) ==
		       t[i].want, "payload(%u, %u, %u) = %u, want %u",
		       t[i].len, t[i].pmtu, t[i].i,
		       sroce_rc_payload(t[i].len, t[i].pmtu, t[i].i),
		       t[i].want);
}

static void test_npsn(void)
{
	static const struct {
		enum sroce_rc_op op;
		u32 len, pmtu, want;
	} t[] = {
		{ SROCE_RC_OP_SEND, 1000, 256, 4 },
		{ SROCE_RC_OP_SEND, 0, 256, 1 },
		{ SROCE_RC_OP_WRITE_IMM, 512, 256, 2 },
		{ SROCE_RC_OP_READ, 0, 256, 1 },
		{ SROCE_RC_OP_READ, 256, 256, 1 },
		{ SROCE_RC_OP_READ, 257, 256, 2 },	/* response packets */
		{ SROCE_RC_OP_READ, 0x80000000u, 4096, 0x80000 },
		{ SROCE_RC_OP_CMP_SWAP, 8, 256, 1 },
		{ SROCE_RC_OP_FETCH_ADD, 100000, 256, 1 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_rc_npsn(t[i].op, t[i].len, t[i].pmtu) == t[i].want,
		       "case %zu: %u", i,
		       sroce_rc_npsn(t[i].op, t[i].len, t[i].pmtu));
}

/* Every operation at every position for RC, UC and UD, against the spec's
 * numbers written out (not the enum), then the position and extension
 * headers each produced opcode has in the opcode table.
 */
static void test_opcode_all(void)
{
	/* FIRST, MIDDLE, LAST, ONLY */
	static const u8 rc[SROCE_RC_OP_COUNT][4] = {
		[SROCE_RC_OP_SEND] = { 0x00, 0x01, 0x02, 0x04 },
		[SROCE_RC_OP_SEND_IMM] = { 0x00, 0x01, 0x03, 0x05 },
		[SROCE_RC_OP_SEND_INV] = { 0x00, 0x01, 0x15, 0x16 },
		[SROCE_RC_OP_WRITE] = { 0x06, 0x07, 0x08, 0x0a },
		[SROCE_RC_OP_WRITE_IMM] = { 0x06, 0x07, 0x09, 0x0b },
		[SROCE_RC_OP_READ] = { NONE, NONE, NONE, 0x0c },
		[SROCE_RC_OP_CMP_SWAP] = { NONE, NONE, NONE, 0x13 },
		[SROCE_RC_OP_FETCH_ADD] = { NONE, NONE, NONE, 0x14 },
	};
	static const u8 uc[SROCE_RC_OP_COUNT][4] = {
		[SROCE_RC_OP_SEND] = { 0x20, 0x21, 0x22, 0x24 },
		[SROCE_RC_OP_SEND_IMM] = { 0x20, 0x21, 0x23, 0x25 },
		[SROCE_RC_OP_SEND_INV] = { NONE, NONE, NONE, NONE },
		[SROCE_RC_OP_WRITE] = { 0x26, 0x27, 0x28, 0x2a },
		[SROCE_RC_OP_WRITE_IMM] = { 0x26, 0x27, 0x29, 0x2b },
		[SROCE_RC_OP_READ] = { NONE, NONE, NONE, NONE },
		[SROCE_RC_OP_CMP_SWAP] = { NONE, NONE, NONE, NONE },
		[SROCE_RC_OP_FETCH_ADD] = { NONE, NONE, NONE, NONE },
	};
	static const bool pos_first[4] = { true, false, false, true };
	static const bool pos_last[4] = { false, false, true, true };
	static const u32 pos_flag[4] = { SROCE_OPF_FIRST, SROCE_OPF_MIDDLE,
					 SROCE_OPF_LAST, SROCE_OPF_ONLY };
	unsigned int op, pos;

	for (op = 0; op < SROCE_RC_OP_COUNT; op++) {
		for (pos = 0; pos < 4; pos++) {
			bool fi = pos_first[pos], la = pos_last[pos];
			u8 o[3], want[3] = { rc[op][pos], uc[op][pos], NONE };
			int q;

			o[0] = sroce_rc_opcode(SROCE_QPT_RC, op, fi, la);
			o[1] = sroce_rc_opcode(SROCE_QPT_UC, op, fi, la);
			o[2] = sroce_rc_opcode(SROCE_QPT_UD, op, fi, la);
			for (q = 0; q < 3; q++) {
				u32 f = sroce_opcode_flags(o[q]);

				CHECKF(o[q] == want[q],
				       "qpt %d op %u pos %u: 0x%x, want 0x%x",
				       q, op, pos, o[q], want[q]);
				if (o[q] == NONE)
					continue;
				CHECKF((f & SROCE_OPF_POS_MASK) ==
				       pos_flag[pos], "0x%x pos", o[q]);
				CHECKF(f & SROCE_OPF_REQ, "0x%x req", o[q]);
				/* IMM and INV only at the end */
				if (f & (SROCE_OPF_IMMDT | SROCE_OPF_IETH))
					CHECKF(la, "0x%x: IMM/INV early",
					       o[q]);
			}
		}
	}
	/* unknown operation */
	CHECK_EQ(sroce_rc_opcode(SROCE_QPT_RC, SROCE_RC_OP_COUNT, true, true),
		 NONE);
	CHECK_EQ(sroce_rc_opcode(SROCE_QPT_RC, 200, false, false), NONE);
	CHECK_EQ(sroce_rc_opcode(7, SROCE_RC_OP_SEND, true, true), NONE);
}

static void test_ackreq(void)
{
	static const struct {
		enum sroce_qp_type qpt;
		bool last, want, force;
		u32 sent, every_n;
		bool ask;
	} t[] = {
		/* end of a message someone waits for */
		{ SROCE_QPT_RC, true, true, false, 0, 0, true },
		/* end of one nobody waits for: left to a later ACK */
		{ SROCE_QPT_RC, true, false, false, 0, 0, false },
		{ SROCE_QPT_RC, true, false, false, 30, 32, false },
		{ SROCE_QPT_RC, true, false, false, 31, 32, true },
		{ SROCE_QPT_RC, false, true, false, 0, 0, false },
		{ SROCE_QPT_RC, false, false, false, 1000, 0, false }, /* N = 0 */
		{ SROCE_QPT_RC, false, false, false, 2, 4, false },
		{ SROCE_QPT_RC, false, false, false, 3, 4, true }, /* 4th packet */
		{ SROCE_QPT_RC, false, false, false, 4, 4, true },
		{ SROCE_QPT_RC, false, false, false, 0, 1, true }, /* N = 1 */
		/* forced: the window fills, or the newest packet again */
		{ SROCE_QPT_RC, false, false, true, 0, 0, true },
		{ SROCE_QPT_RC, true, false, true, 1, 32, true },
		{ SROCE_QPT_UC, false, false, true, 0, 0, false },
		{ SROCE_QPT_UC, true, true, false, 0, 0, false }, /* UC: never */
		{ SROCE_QPT_UC, false, false, false, 100, 4, false },
		{ SROCE_QPT_UD, true, true, true, 0, 0, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_rc_ackreq(t[i].qpt, t[i].last, t[i].want,
				       t[i].force, t[i].sent,
				       t[i].every_n) == t[i].ask,
		       "case %zu", i);
}

static void test_atomic_ok(void)
{
	static const struct { u64 va; u32 len; bool want; } t[] = {
		{ 0, 8, true },
		{ 8, 8, true },
		{ 0x1000, 8, true },
		{ 0xfffffffffffffff8ull, 8, true },
		{ 1, 8, false },
		{ 4, 8, false },
		{ 7, 8, false },
		{ 0xfffffffffffffffcull, 8, false },
		{ 0, 4, false },
		{ 0, 16, false },
		{ 0, 0, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_rc_atomic_ok(t[i].va, t[i].len) == t[i].want,
		       "va 0x%llx len %u", (unsigned long long)t[i].va,
		       t[i].len);
}

/* Segment messages of many sizes and feed the packets to the responder's
 * checks: every packet must pass, the payloads must add up, and the
 * responder's state must end where a message ends.
 */
static void test_segment_roundtrip(void)
{
	static const u32 pmtus[] = { 256, 512, 1024, 4096 };
	static const enum sroce_rc_op ops[] = {
		SROCE_RC_OP_SEND, SROCE_RC_OP_SEND_IMM, SROCE_RC_OP_SEND_INV,
		SROCE_RC_OP_WRITE, SROCE_RC_OP_WRITE_IMM,
	};
	size_t m, o;
	u32 d;

	for (m = 0; m < ARRAY_SIZE(pmtus); m++) {
		u32 mtu = pmtus[m];
		u32 lens[] = { 0, 1, mtu - 1, mtu, mtu + 1, 2 * mtu - 1,
			       2 * mtu, 2 * mtu + 1, 5 * mtu, 7 * mtu + 3 };

		for (o = 0; o < ARRAY_SIZE(ops); o++) {
			for (d = 0; d < ARRAY_SIZE(lens); d++) {
				struct sroce_rc_resp_msg msg = { .opcode = NONE };
				u32 len = lens[d], n, i, sum = 0;

				n = sroce_rc_npkts(len, mtu);
				for (i = 0; i < n; i++) {
					u8 opc = sroce_rc_opcode(SROCE_QPT_RC,
								 ops[o], !i,
								 i == n - 1);
					u32 pl = sroce_rc_payload(len, mtu, i);
					struct sroce_pkt p = mkpkt(opc, i, pl,
								   false);

					int v;

					sum += pl;
					v = sroce_rc_resp_check(&msg, &p, len,
								mtu,
								SROCE_QPT_RC);
					if (!CHECKF(v == SROCE_RC_REQ_OK,
						    "op %d len %u mtu %u pkt %u",
						    ops[o], len, mtu, i))
						break;
					v = sroce_rc_resp_accept(&msg, &p, len,
								 mtu);
					CHECK_EQ(v, 1);
				}
				CHECKF(sum == len, "len %u sum %u", len, sum);
				CHECK_EQ(msg.opcode, NONE);
				CHECK_EQ(msg.resid, 0);
			}
		}
	}
}

/* -- responder --------------------------------------------------------- */

static void test_resp_psn_table(void)
{
	static const struct {
		u32 psn, epsn;
		bool nak_in;
		enum sroce_rc_psn_verdict want;
		bool nak_out;
	} t[] = {
		{ 100, 100, false, SROCE_RC_PSN_EXPECTED, false },
		{ 100, 100, true, SROCE_RC_PSN_EXPECTED, false },  /* clears */
		{ 99, 100, false, SROCE_RC_PSN_DUPLICATE, false },
		{ 99, 100, true, SROCE_RC_PSN_DUPLICATE, true },   /* kept */
		{ 101, 100, false, SROCE_RC_PSN_NAK_SEQ, true },
		{ 101, 100, true, SROCE_RC_PSN_DROP, true },
		/* the 2^23 window, both ways */
		{ 100 - H, 100, false, SROCE_RC_PSN_DUPLICATE, false },
		{ 100 + H, 100, false, SROCE_RC_PSN_DUPLICATE, false },
		{ 100 + H - 1, 100, false, SROCE_RC_PSN_NAK_SEQ, true },
		{ 101 - H, 100, false, SROCE_RC_PSN_DUPLICATE, false },
		/* wraparound at 2^24 */
		{ M, 0, false, SROCE_RC_PSN_DUPLICATE, false },
		{ 0, M, false, SROCE_RC_PSN_NAK_SEQ, true },
		{ 1, M, true, SROCE_RC_PSN_DROP, true },
		{ 0, 0, true, SROCE_RC_PSN_EXPECTED, false },
		{ M - 5, 2, false, SROCE_RC_PSN_DUPLICATE, false },
		{ 2, M - 5, false, SROCE_RC_PSN_NAK_SEQ, true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		bool nak = t[i].nak_in;
		enum sroce_rc_psn_verdict v;

		v = sroce_rc_resp_psn(t[i].psn & M, t[i].epsn, &nak);
		CHECKF(v == t[i].want && nak == t[i].nak_out,
		       "psn 0x%x epsn 0x%x nak %d: %d/%d, want %d/%d",
		       t[i].psn & M, t[i].epsn, t[i].nak_in, v, nak,
		       t[i].want, t[i].nak_out);
	}
}

/* A gap gets exactly one NAK until the expected PSN comes back */
static void test_resp_psn_nak_once(void)
{
	static const struct {
		u32 psn;
		enum sroce_rc_psn_verdict want;
	} seq[] = {
		{ 12, SROCE_RC_PSN_NAK_SEQ },	/* 10 and 11 lost */
		{ 13, SROCE_RC_PSN_DROP },
		{ 14, SROCE_RC_PSN_DROP },
		{ 9, SROCE_RC_PSN_DUPLICATE },
		{ 15, SROCE_RC_PSN_DROP },
		{ 10, SROCE_RC_PSN_EXPECTED },	/* resend arrives */
		{ 12, SROCE_RC_PSN_NAK_SEQ },	/* 11 lost again: new NAK */
		{ 11, SROCE_RC_PSN_EXPECTED },
	};
	bool nak = false;
	u32 epsn = 10;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(seq); i++) {
		enum sroce_rc_psn_verdict v;

		v = sroce_rc_resp_psn(seq[i].psn, epsn, &nak);
		CHECKF(v == seq[i].want, "step %zu: psn %u epsn %u: %d",
		       i, seq[i].psn, epsn, v);
		if (v == SROCE_RC_PSN_EXPECTED)
			epsn++;
	}
}

static void test_resp_check(void)
{
	enum { RC = SROCE_QPT_RC, UC = SROCE_QPT_UC, UD = SROCE_QPT_UD };
	enum { OK = SROCE_RC_REQ_OK, NAKI = SROCE_RC_REQ_NAK_INVALID,
	       DROP = SROCE_RC_REQ_DROP };
	static const struct {
		int qpt;
		u8 prev;
		u32 resid;
		u8 opcode;
		u32 paylen, reth;
		int want;
	} t[] = {
		/* payload sizes (pmtu 1024) */
		{ RC, NONE, 0, 0x04, 0, 0, OK },	/* SEND ONLY, empty */
		{ RC, NONE, 0, 0x04, 1023, 0, OK },
		{ RC, NONE, 0, 0x04, 1024, 0, OK },
		{ RC, NONE, 0, 0x04, 1025, 0, NAKI },
		{ RC, NONE, 0, 0x00, 1024, 0, OK },	/* FIRST = pmtu */
		{ RC, NONE, 0, 0x00, 1023, 0, NAKI },
		{ RC, NONE, 0, 0x00, 1025, 0, NAKI },
		{ RC, NONE, 0, 0x00, 0, 0, NAKI },
		{ RC, 0x00, 0, 0x01, 1024, 0, OK },	/* MIDDLE = pmtu */
		{ RC, 0x01, 0, 0x01, 1023, 0, NAKI },
		{ RC, 0x01, 0, 0x01, 1025, 0, NAKI },
		{ RC, 0x01, 0, 0x02, 1, 0, OK },	/* LAST 1..pmtu */
		{ RC, 0x01, 0, 0x02, 1024, 0, OK },
		{ RC, 0x01, 0, 0x02, 0, 0, NAKI },
		{ RC, 0x00, 0, 0x02, 1025, 0, NAKI },
		{ RC, 0x00, 0, 0x03, 8, 0, OK },	/* LAST with IMM */
		{ RC, 0x00, 0, 0x15, 8, 0, OK },	/* LAST with INV */
		{ RC, NONE, 0, 0x16, 8, 0, OK },	/* ONLY with INV */
		/* opcode sequence */
		{ RC, NONE, 0, 0x01, 1024, 0, NAKI },	/* MIDDLE, none open */
		{ RC, NONE, 0, 0x02, 10, 0, NAKI },	/* LAST, none open */
		{ RC, 0x00, 0, 0x00, 1024, 0, NAKI },	/* FIRST while open */
		{ RC, 0x00, 0, 0x04, 10, 0, NAKI },	/* ONLY while open */
		{ RC, 0x00, 0, 0x07, 1024, 0, NAKI },	/* WRITE MID in SEND */
		{ RC, 0x06, 2000, 0x01, 1024, 0, NAKI },  /* SEND MID in WRITE */
		{ RC, 0x06, 2000, 0x0c, 0, 10, NAKI },	/* READ in WRITE */
		{ RC, 0x07, 2000, 0x14, 0, 0, NAKI },	/* atomic in WRITE */
		{ RC, 0x00, 0, 0x09, 10, 0, NAKI },	/* WRITE LAST IMM in SEND */
		/* RETH length of writes */
		{ RC, NONE, 0, 0x0a, 100, 100, OK },	/* ONLY = payload */
		{ RC, NONE, 0, 0x0a, 0, 0, OK },
		{ RC, NONE, 0, 0x0a, 100, 101, NAKI },
		{ RC, NONE, 0, 0x0a, 100, 99, NAKI },
		{ RC, NONE, 0, 0x0b, 1024, 1024, OK },
		{ RC, NONE, 0, 0x06, 1024, 1025, OK },	/* FIRST > pmtu */
		{ RC, NONE, 0, 0x06, 1024, 1024, NAKI },  /* should be ONLY */
		{ RC, NONE, 0, 0x06, 1024, 0x80000000u, OK },
		{ RC, NONE, 0, 0x06, 1024, 0x80000001u, NAKI },  /* > 2^31 */
		{ RC, 0x06, 1025, 0x07, 1024, 0, OK },	/* more after it */
		{ RC, 0x06, 1024, 0x07, 1024, 0, NAKI },  /* should be LAST */
		{ RC, 0x07, 1, 0x08, 1, 0, OK },	/* LAST = what is due */
		{ RC, 0x07, 2, 0x08, 1, 0, NAKI },
		{ RC, 0x07, 1, 0x08, 2, 0, NAKI },
		{ RC, 0x07, 1024, 0x08, 1024, 0, OK },
		{ RC, 0x06, 10, 0x09, 10, 0, OK },
		/* READ and atomics */
		{ RC, NONE, 0, 0x0c, 0, 0, OK },
		{ RC, NONE, 0, 0x0c, 0, 0x80000000u, OK },
		{ RC, NONE, 0, 0x0c, 0, 0x80000001u, NAKI },
		{ RC, NONE, 0, 0x13, 0, 0, OK },
		{ RC, NONE, 0, 0x14, 0, 0, OK },
		/* not requests of this transport: drop */
		{ RC, NONE, 0, 0x24, 10, 0, DROP },	/* UC SEND ONLY */
		{ RC, NONE, 0, 0x64, 10, 0, DROP },	/* UD SEND ONLY */
		{ RC, NONE, 0, 0x11, 0, 0, DROP },	/* ACKNOWLEDGE */
		{ RC, NONE, 0, 0x10, 10, 0, DROP },	/* READ RESPONSE */
		{ RC, NONE, 0, 0x81, 0, 0, DROP },	/* CNP */
		{ RC, NONE, 0, 0x1f, 0, 0, DROP },	/* reserved */
		/* UC: the same errors, dropped silently */
		{ UC, NONE, 0, 0x24, 10, 0, OK },
		{ UC, NONE, 0, 0x20, 1024, 0, OK },
		{ UC, 0x20, 0, 0x21, 1024, 0, OK },
		{ UC, 0x21, 0, 0x23, 1, 0, OK },
		{ UC, NONE, 0, 0x2a, 10, 10, OK },
		{ UC, NONE, 0, 0x26, 1024, 3000, OK },
		{ UC, 0x26, 1976, 0x27, 1024, 0, OK },
		{ UC, 0x27, 952, 0x28, 952, 0, OK },
		{ UC, NONE, 0, 0x21, 1024, 0, DROP },	/* MIDDLE, none open */
		{ UC, NONE, 0, 0x20, 1000, 0, DROP },	/* short FIRST */
		{ UC, NONE, 0, 0x24, 1025, 0, DROP },
		{ UC, NONE, 0, 0x26, 1024, 1024, DROP },
		{ UC, NONE, 0, 0x2a, 10, 11, DROP },
		{ UC, 0x27, 952, 0x28, 951, 0, DROP },
		{ UC, NONE, 0, 0x04, 10, 0, DROP },	/* RC opcode */
		{ UC, NONE, 0, 0x0c, 0, 0, DROP },	/* READ on UC */
		{ UC, NONE, 0, 0x14, 0, 0, DROP },
		/* UD QPs have no RC/UC checks */
		{ UD, NONE, 0, 0x64, 10, 0, DROP },
		{ UD, NONE, 0, 0x04, 10, 0, DROP },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct sroce_rc_resp_msg msg = { .opcode = t[i].prev,
						 .resid = t[i].resid };
		struct sroce_pkt p = mkpkt(t[i].opcode, 5, t[i].paylen, false);
		int v = sroce_rc_resp_check(&msg, &p, t[i].reth, 1024,
					    t[i].qpt);

		CHECKF(v == t[i].want, "case %zu: %d, want %d", i, v,
		       t[i].want);
	}
}

/*
 * A SEND may not exceed 2^31 bytes (IBTA 9.4: the largest message), any
 * more than a WRITE or a READ: the responder's count of what it placed
 * must never wrap. A SEND of exactly 2^31 bytes at PMTU 1024 is a FIRST,
 * 2^21 - 2 MIDDLEs and a full LAST; one byte more is invalid.
 */
static void test_resp_send_max(void)
{
	enum { MIDDLES = (1u << 21) - 2 };
	struct sroce_rc_resp_msg msg = { .opcode = NONE };
	struct sroce_pkt p;
	u32 i, psn = 0;
	int v;

	p = mkpkt(SROCE_RC_SEND_FIRST, psn++, 1024, false);
	CHECK_EQ(sroce_rc_resp_check(&msg, &p, 0, 1024, SROCE_QPT_RC),
		 SROCE_RC_REQ_OK);
	sroce_rc_resp_accept(&msg, &p, 0, 1024);
	p = mkpkt(SROCE_RC_SEND_MIDDLE, 0, 1024, false);
	for (i = 0; i < MIDDLES; i++) {
		v = sroce_rc_resp_check(&msg, &p, 0, 1024, SROCE_QPT_RC);
		if (!CHECKF(v == SROCE_RC_REQ_OK, "MIDDLE %u: %d", i, v))
			return;
		sroce_rc_resp_accept(&msg, &p, 0, 1024);
	}
	/* 2^31 - 1024 placed: a full LAST ends exactly at 2^31 ... */
	p = mkpkt(SROCE_RC_SEND_LAST, 0, 1024, false);
	CHECK_EQ(sroce_rc_resp_check(&msg, &p, 0, 1024, SROCE_QPT_RC),
		 SROCE_RC_REQ_OK);
	/* ... one more MIDDLE leaves no room for any LAST */
	p = mkpkt(SROCE_RC_SEND_MIDDLE, 0, 1024, false);
	CHECK_EQ(sroce_rc_resp_check(&msg, &p, 0, 1024, SROCE_QPT_RC),
		 SROCE_RC_REQ_OK);
	sroce_rc_resp_accept(&msg, &p, 0, 1024);
	p = mkpkt(SROCE_RC_SEND_LAST, 0, 1, false);
	CHECK_EQ(sroce_rc_resp_check(&msg, &p, 0, 1024, SROCE_QPT_RC),
		 SROCE_RC_REQ_NAK_INVALID);
	p = mkpkt(SROCE_RC_SEND_MIDDLE, 0, 1024, false);
	CHECK_EQ(sroce_rc_resp_check(&msg, &p, 0, 1024, SROCE_QPT_RC),
		 SROCE_RC_REQ_NAK_INVALID);
	CHECK_EQ(sroce_rc_resp_check(&msg, &p, 0, 1024, SROCE_QPT_UC),
		 SROCE_RC_REQ_DROP);
	/* a new message starts from nothing */
	msg = (struct sroce_rc_resp_msg){ .opcode = NONE };
	p = mkpkt(SROCE_RC_SEND_ONLY, 0, 1024, false);
	CHECK_EQ(sroce_rc_resp_check(&msg, &p, 0, 1024, SROCE_QPT_RC),
		 SROCE_RC_REQ_OK);
}

static void test_resp_accept(void)
{
	struct sroce_rc_resp_msg msg = { .opcode = NONE };
	struct sroce_pkt p;

	p = mkpkt(SROCE_RC_WRITE_FIRST, 0, 256, false);
	CHECK_EQ(sroce_rc_resp_accept(&msg, &p, 600, 256), 1);
	CHECK_EQ(msg.opcode, SROCE_RC_WRITE_FIRST);
	CHECK_EQ(msg.resid, 344);
	p = mkpkt(SROCE_RC_WRITE_MIDDLE, 1, 256, false);
	CHECK_EQ(sroce_rc_resp_check(&msg, &p, 0, 256, SROCE_QPT_RC),
		 SROCE_RC_REQ_OK);		/* 344 due: a MIDDLE fits */
	CHECK_EQ(sroce_rc_resp_accept(&msg, &p, 0xdead, 256), 1);
	CHECK_EQ(msg.opcode, SROCE_RC_WRITE_MIDDLE);
	CHECK_EQ(msg.resid, 88);		/* RETH ignored on MIDDLE */
	p = mkpkt(SROCE_RC_WRITE_LAST, 2, 88, false);
	CHECK_EQ(sroce_rc_resp_check(&msg, &p, 0, 256, SROCE_QPT_RC),
		 SROCE_RC_REQ_OK);
	CHECK_EQ(sroce_rc_resp_accept(&msg, &p, 0, 256), 1);
	CHECK_EQ(msg.opcode, NONE);
	CHECK_EQ(msg.resid, 0);

	/* a READ request takes one PSN per response packet */
	p = mkpkt(SROCE_RC_READ_REQUEST, 3, 0, false);
	CHECK_EQ(sroce_rc_resp_accept(&msg, &p, 600, 256), 3);
	CHECK_EQ(sroce_rc_resp_accept(&msg, &p, 0, 256), 1);
	CHECK_EQ(sroce_rc_resp_accept(&msg, &p, 512, 256), 2);
	CHECK_EQ(sroce_rc_resp_accept(&msg, &p, 0x80000000u, 4096), 0x80000);
	CHECK_EQ(msg.opcode, NONE);

	p = mkpkt(SROCE_RC_SEND_FIRST, 4, 256, false);
	CHECK_EQ(sroce_rc_resp_accept(&msg, &p, 0, 256), 1);
	CHECK_EQ(msg.opcode, SROCE_RC_SEND_FIRST);
	CHECK_EQ(msg.resid, 0);
	p = mkpkt(SROCE_RC_SEND_LAST_INV, 5, 1, false);
	CHECK_EQ(sroce_rc_resp_accept(&msg, &p, 0, 256), 1);
	CHECK_EQ(msg.opcode, NONE);
	p = mkpkt(SROCE_RC_FETCH_ADD, 6, 0, false);
	CHECK_EQ(sroce_rc_resp_accept(&msg, &p, 0, 256), 1);
	CHECK_EQ(msg.opcode, NONE);
	p = mkpkt(SROCE_UC_WRITE_FIRST, 7, 256, false);
	CHECK_EQ(sroce_rc_resp_accept(&msg, &p, 1000, 256), 1);
	CHECK_EQ(msg.opcode, SROCE_UC_WRITE_FIRST);
	CHECK_EQ(msg.resid, 744);
}

static void test_access(void)
{
	unsigned int op;

	/* the kernel's IB_ACCESS_REMOTE_* values */
	CHECK_EQ(SROCE_ACCESS_REMOTE_WRITE, 2);
	CHECK_EQ(SROCE_ACCESS_REMOTE_READ, 4);
	CHECK_EQ(SROCE_ACCESS_REMOTE_ATOMIC, 8);

	for (op = 0; op < 256; op++) {
		u32 want = 0;

		if ((op >= 0x06 && op <= 0x0b) || (op >= 0x26 && op <= 0x2b))
			want = SROCE_ACCESS_REMOTE_WRITE;
		else if (op == 0x0c)
			want = SROCE_ACCESS_REMOTE_READ;
		else if (op == 0x13 || op == 0x14)
			want = SROCE_ACCESS_REMOTE_ATOMIC;
		CHECKF(sroce_rc_access(op) == want, "op 0x%x: 0x%x want 0x%x",
		       op, sroce_rc_access(op), want);
	}
}

static void test_ack_now(void)
{
	enum { EXP = SROCE_RC_PSN_EXPECTED, DUP = SROCE_RC_PSN_DUPLICATE,
	       NAKS = SROCE_RC_PSN_NAK_SEQ, DRP = SROCE_RC_PSN_DROP };
	static const struct {
		int v;
		u8 opcode;
		bool ackreq, more;
		u32 unacked, every_n;
		bool want;
	} t[] = {
		{ EXP, 0x00, false, false, 1, 4, false },	/* FIRST, coalesce */
		{ EXP, 0x00, true, false, 1, 4, true },	/* AckReq */
		{ EXP, 0x01, false, false, 3, 4, false },
		{ EXP, 0x01, false, false, 4, 4, true },	/* every N */
		{ EXP, 0x01, false, false, 5, 4, true },
		{ EXP, 0x01, false, false, 1000, 0, false },	/* N = 0: off */
		/* a message's end unasked: coalesced, as rxe */
		{ EXP, 0x02, false, false, 1, 0, false },
		{ EXP, 0x04, false, false, 1, 0, false },
		{ EXP, 0x05, false, false, 63, 64, false },
		{ EXP, 0x0a, false, false, 64, 64, true },
		{ EXP, 0x04, true, false, 1, 64, true },	/* asked */
		{ EXP, 0x07, false, false, 2, 64, false },
		{ EXP, 0x09, false, false, 2, 64, false },
		{ EXP, 0x09, true, false, 2, 64, true },
		{ DUP, 0x01, false, false, 0, 64, true },	/* duplicates: at once */
		{ DUP, 0x06, false, false, 0, 0, true },
		{ DUP, 0x04, false, false, 0, 0, true },
		{ EXP, 0x0c, true, false, 1, 1, false },	/* READ: responses */
		{ DUP, 0x0c, true, false, 1, 1, false },
		{ EXP, 0x14, false, false, 1, 0, true },	/* atomic ACK */
		{ DUP, 0x13, false, false, 0, 0, true },
		{ NAKS, 0x04, true, false, 1, 1, false },	/* NAK sent instead */
		{ DRP, 0x04, true, false, 1, 1, false },
		{ NAKS, 0x14, true, false, 1, 1, false },
		{ EXP, 0x24, true, false, 1, 1, false },	/* UC: no ACKs */
		{ EXP, 0x22, false, false, 1, 0, false },
		{ EXP, 0x11, true, false, 1, 1, false },	/* not a request */
		{ EXP, 0x10, true, false, 1, 1, false },
		/* another request follows: coalesce up to 16 */
		{ EXP, 0x04, true, true, 1, 0, false },
		{ EXP, 0x0a, true, true, 15, 4, false },
		{ EXP, 0x02, false, true, 15, 0, false },
		{ EXP, 0x04, true, true, 16, 0, true },
		{ EXP, 0x01, false, true, 16, 0, false },	/* never asked */
		{ EXP, 0x01, false, true, 16, 8, true },
		{ DUP, 0x04, true, true, 0, 0, true },	/* still at once */
		{ EXP, 0x14, false, true, 1, 0, true },
		{ EXP, 0x0c, true, true, 1, 1, false },
		{ EXP, 0x24, true, true, 20, 1, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct sroce_pkt p = mkpkt(t[i].opcode, 1, 0, t[i].ackreq);

		p.more = t[i].more;
		CHECKF(sroce_rc_ack_now(t[i].v, &p, t[i].unacked, false,
					t[i].every_n) == t[i].want,
		       "case %zu", i);
	}
}

/* An ACK asked for and coalesced is owed: the next request gets it. */
static void test_ack_owed(void)
{
	enum { EXP = SROCE_RC_PSN_EXPECTED, DUP = SROCE_RC_PSN_DUPLICATE,
	       NAKS = SROCE_RC_PSN_NAK_SEQ };
	static const struct {
		int v;
		u8 opcode;
		bool more, owed;
		bool want;
	} t[] = {
		{ EXP, 0x0a, false, true, true },	/* unasked, but owed */
		{ EXP, 0x0a, false, false, false },
		{ EXP, 0x06, false, true, true },	/* even mid-message */
		{ EXP, 0x0a, true, true, false },	/* still coalesced */
		{ EXP, 0x04, true, true, false },
		{ EXP, 0x0c, false, true, false },	/* READ: responses */
		{ EXP, 0x24, false, true, false },	/* UC: never */
		{ NAKS, 0x0a, false, true, false },	/* the NAK answers */
		{ DUP, 0x0a, false, false, true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct sroce_pkt p = mkpkt(t[i].opcode, 1, 0, false);

		p.more = t[i].more;
		CHECKF(sroce_rc_ack_now(t[i].v, &p, 2, t[i].owed, 64) ==
		       t[i].want, "case %zu", i);
	}
}

static void test_msn(void)
{
	static const struct { u32 msn; u8 opcode; u32 want; } t[] = {
		{ 5, 0x00, 5 },		/* SEND FIRST */
		{ 5, 0x01, 5 },
		{ 5, 0x02, 6 },		/* SEND LAST */
		{ 5, 0x04, 6 },
		{ 5, 0x16, 6 },
		{ 5, 0x07, 5 },		/* WRITE MIDDLE */
		{ 5, 0x0b, 6 },
		{ 5, 0x0c, 6 },		/* READ request: at once (C9-148) */
		{ 5, 0x13, 6 },
		{ 5, 0x14, 6 },
		{ 5, 0x11, 5 },		/* ACK: not a request */
		{ 5, 0x10, 5 },
		{ 5, 0xff, 5 },
		{ M, 0x04, 0 },		/* 24-bit wrap */
		{ M, 0x00, M },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_rc_msn_next(t[i].msn, t[i].opcode) == t[i].want,
		       "msn %u op 0x%x", t[i].msn, t[i].opcode);
}

static void test_credits(void)
{
	static const u32 counts[31] = {
		0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768,
	};
	static const struct { u32 credits; u8 syn; } t[] = {
		{ SROCE_RC_CREDITS_UNLIMITED, 0x1f },	/* as rxe */
		{ 0, 0x00 },
		{ 1, 0x01 },
		{ 5, 0x04 },			/* round down: never promise */
		{ 6, 0x05 },
		{ 7, 0x05 },
		{ 32767, 0x1d },
		{ 32768, 0x1e },
		{ 100000, 0x1e },
		{ 0xfffffffeu, 0x1e },
	};
	unsigned int c;
	size_t i;

	for (c = 0; c < 31; c++) {
		CHECKF(sroce_rc_credits(c) == counts[c], "code %u", c);
		CHECKF(sroce_rc_ack_syn(counts[c]) == c, "count %u",
		       counts[c]);
	}
	CHECK_EQ(sroce_rc_credits(31), SROCE_RC_CREDITS_UNLIMITED);
	CHECK_EQ(sroce_rc_credits(0x20 | 3), 3);	/* type bits ignored */
	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_rc_ack_syn(t[i].credits) == t[i].syn,
		       "credits %u: 0x%x", t[i].credits,
		       sroce_rc_ack_syn(t[i].credits));
}

static const struct ktap_case cases[] = {
	{ "rc_npkts", test_npkts },
	{ "rc_payload", test_payload },
	{ "rc_npsn", test_npsn },
	{ "rc_opcode_every_op_and_position", test_opcode_all },
	{ "rc_ackreq", test_ackreq },
	{ "rc_atomic_ok", test_atomic_ok },
	{ "rc_segment_roundtrip", test_segment_roundtrip },
	{ "rc_resp_psn", test_resp_psn_table },
	{ "rc_resp_psn_nak_once", test_resp_psn_nak_once },
	{ "rc_resp_check", test_resp_check },
	{ "rc_resp_send_max_2_31", test_resp_send_max },
	{ "rc_resp_accept", test_resp_accept },
	{ "rc_access", test_access },
	{ "rc_ack_now", test_ack_now },
	{ "rc_ack_owed", test_ack_owed },
	{ "rc_msn", test_msn },
	{ "rc_credits", test_credits },
};

int main(void)
{
	ktap_plan(ARRAY_SIZE(cases));
	ktap_run_cases(cases, ARRAY_SIZE(cases));
	return ktap_finish();
}
