// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reliable connected transport's decisions (kernel/core/rc.c), the
 * completer's: the window of valid response PSNs, AETH syndromes, what a
 * response means for the oldest WQE (implicit ACKs included), and the
 * retry budget, ACK timeout and send window. test_rc.c has the
 * requester's and the responder's.
 */
#include "ktap.h"
#include "rc_util.h"

/* -- completer --------------------------------------------------------- */

static void test_comp_psn(void)
{
	enum { V = SROCE_RC_WIN_VALID, S = SROCE_RC_WIN_STALE,
	       I = SROCE_RC_WIN_INVALID };
	static const struct { u32 psn, una, nxt; int want; } t[] = {
		{ 99, 100, 110, S },		/* oldest - 1: duplicate */
		{ 100, 100, 110, V },		/* oldest */
		{ 109, 100, 110, V },		/* next - 1 */
		{ 110, 100, 110, I },		/* next: never sent */
		{ 111, 100, 110, I },
		{ 100 - H, 100, 110, S },	/* half way round: behind */
		{ 100 + H - 1, 100, 110, I },
		{ 50, 50, 50, I },		/* empty window */
		{ 49, 50, 50, S },
		/* across the wrap */
		{ M - 2, M - 1, 3, S },
		{ M - 1, M - 1, 3, V },
		{ M, M - 1, 3, V },
		{ 0, M - 1, 3, V },
		{ 2, M - 1, 3, V },
		{ 3, M - 1, 3, I },
		{ M, 0, 1, S },
		{ 0, 0, 1, V },
		{ 1, 0, 1, I },
		/* the largest window: 2^23 PSNs */
		{ 100 + H - 1, 100, 100 + H, V },
		{ 100 + H, 100, 100 + H, S },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF((int)sroce_rc_comp_psn(t[i].psn & M, t[i].una & M,
					      t[i].nxt & M) == t[i].want,
		       "psn 0x%x una 0x%x nxt 0x%x: %d, want %d",
		       t[i].psn & M, t[i].una & M, t[i].nxt & M,
		       sroce_rc_comp_psn(t[i].psn & M, t[i].una & M,
					 t[i].nxt & M), t[i].want);
}

static void test_aeth_decode(void)
{
	static const int nak_status[] = {
		-1, SROCE_WC_REM_INV_REQ_ERR, SROCE_WC_REM_ACCESS_ERR,
		SROCE_WC_REM_OP_ERR, SROCE_WC_REM_INV_RD_REQ_ERR,
	};
	unsigned int syn;

	for (syn = 0; syn < 128; syn++) {
		struct sroce_rc_aeth_info info;
		unsigned int v = syn & 0x1f;
		int k = sroce_rc_aeth_decode(syn, &info);

		switch (syn >> 5) {
		case 0:
			CHECKF(k == SROCE_RC_AETH_ACK &&
			       info.credits == sroce_rc_credits(v),
			       "syn 0x%x", syn);
			break;
		case 1:
			CHECKF(k == SROCE_RC_AETH_RNR &&
			       info.rnr_usec == sroce_rnr_timer_usec(v),
			       "syn 0x%x", syn);
			break;
		case 2:		/* reserved type */
			CHECKF(k == SROCE_RC_AETH_FATAL &&
			       info.status == SROCE_WC_BAD_RESP_ERR,
			       "syn 0x%x", syn);
			break;
		default:
			if (v == 0)
				CHECKF(k == SROCE_RC_AETH_SEQ_ERR, "0x%x", syn);
			else if (v < ARRAY_SIZE(nak_status))
				CHECKF(k == SROCE_RC_AETH_FATAL &&
				       (int)info.status == nak_status[v],
				       "syn 0x%x", syn);
			else
				CHECKF(k == SROCE_RC_AETH_FATAL &&
				       info.status == SROCE_WC_BAD_RESP_ERR,
				       "syn 0x%x", syn);
		}
	}
	/* spot values, independent of the helpers */
	{
		struct sroce_rc_aeth_info info;

		CHECK_EQ(sroce_rc_aeth_decode(0x1f, &info), SROCE_RC_AETH_ACK);
		CHECK_EQ(info.credits, SROCE_RC_CREDITS_UNLIMITED);
		CHECK_EQ(sroce_rc_aeth_decode(0x05, &info), SROCE_RC_AETH_ACK);
		CHECK_EQ(info.credits, 6);
		CHECK_EQ(sroce_rc_aeth_decode(0x21, &info), SROCE_RC_AETH_RNR);
		CHECK_EQ(info.rnr_usec, 10);
		CHECK_EQ(sroce_rc_aeth_decode(0x20, &info), SROCE_RC_AETH_RNR);
		CHECK_EQ(info.rnr_usec, 655360);
		CHECK_EQ(sroce_rc_aeth_decode(0x60, &info),
			 SROCE_RC_AETH_SEQ_ERR);
	}
}

static void test_wc_status_values(void)
{
	/* enum ib_wc_status, include/rdma/ib_verbs.h */
	CHECK_EQ(SROCE_WC_SUCCESS, 0);
	CHECK_EQ(SROCE_WC_LOC_LEN_ERR, 1);
	CHECK_EQ(SROCE_WC_LOC_QP_OP_ERR, 2);
	CHECK_EQ(SROCE_WC_LOC_EEC_OP_ERR, 3);
	CHECK_EQ(SROCE_WC_LOC_PROT_ERR, 4);
	CHECK_EQ(SROCE_WC_WR_FLUSH_ERR, 5);
	CHECK_EQ(SROCE_WC_MW_BIND_ERR, 6);
	CHECK_EQ(SROCE_WC_BAD_RESP_ERR, 7);
	CHECK_EQ(SROCE_WC_LOC_ACCESS_ERR, 8);
	CHECK_EQ(SROCE_WC_REM_INV_REQ_ERR, 9);
	CHECK_EQ(SROCE_WC_REM_ACCESS_ERR, 10);
	CHECK_EQ(SROCE_WC_REM_OP_ERR, 11);
	CHECK_EQ(SROCE_WC_RETRY_EXC_ERR, 12);
	CHECK_EQ(SROCE_WC_RNR_RETRY_EXC_ERR, 13);
	CHECK_EQ(SROCE_WC_LOC_RDD_VIOL_ERR, 14);
	CHECK_EQ(SROCE_WC_REM_INV_RD_REQ_ERR, 15);
	CHECK_EQ(SROCE_WC_REM_ABORT_ERR, 16);
	CHECK_EQ(SROCE_WC_INV_EECN_ERR, 17);
	CHECK_EQ(SROCE_WC_INV_EEC_STATE_ERR, 18);
	CHECK_EQ(SROCE_WC_FATAL_ERR, 19);
	CHECK_EQ(SROCE_WC_RESP_TIMEOUT_ERR, 20);
	CHECK_EQ(SROCE_WC_GENERAL_ERR, 21);
}

#define SEND SROCE_RC_OP_SEND
#define WRITE SROCE_RC_OP_WRITE
#define READ SROCE_RC_OP_READ
#define FADD SROCE_RC_OP_FETCH_ADD
#define DONE SROCE_RC_COMP_DONE
#define COMPL SROCE_RC_COMP_COMPLETE
#define RDATA SROCE_RC_COMP_READ
#define ATOM SROCE_RC_COMP_ATOMIC
#define RETRY SROCE_RC_COMP_RETRY
#define RNRW SROCE_RC_COMP_RNR
#define ERR SROCE_RC_COMP_ERROR

/* One response against one WQE (pmtu 256) */
static void test_comp_step(void)
{
	static const struct {
		int op;
		u32 first, len, una;
		u8 opcode;
		u32 psn, paylen;
		u8 syn;
		int act;
		u32 una_out;
		int status;
		u32 offset;
		u8 complete;
	} t[] = {
		/* SEND at 100..103 (1000 bytes) */
		{ SEND, 100, 1000, 100, 0x11, 101, 0, ACK31, DONE, 102, 0, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 100, 0, ACK31, DONE, 101, 0, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 103, 0, ACK31, COMPL, 104, 0, 0, 0 },
		{ SEND, 100, 1000, 102, 0x11, 103, 0, ACK31, COMPL, 104, 0, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 200, 0, ACK31, COMPL, 104, 0, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 99, 0, ACK31, DONE, 100, 0, 0, 0 },
		{ SEND, 100, 1000, 102, 0x11, 101, 0, ACK31, DONE, 102, 0, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 102, 0, NAK(0), RETRY, 102, 0, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 100, 0, NAK(0), RETRY, 100, 0, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 104, 0, NAK(0), COMPL, 104, 0, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 100, 0, RNR(1), RNRW, 100, 0, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 103, 0, RNR(1), RNRW, 103, 0, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 101, 0, NAK(1), ERR, 101,
		  SROCE_WC_REM_INV_REQ_ERR, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 100, 0, NAK(2), ERR, 100,
		  SROCE_WC_REM_ACCESS_ERR, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 100, 0, NAK(3), ERR, 100,
		  SROCE_WC_REM_OP_ERR, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 100, 0, NAK(4), ERR, 100,
		  SROCE_WC_REM_INV_RD_REQ_ERR, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 100, 0, NAK(9), ERR, 100,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		{ SEND, 100, 1000, 100, 0x11, 100, 0, 0x40, ERR, 100,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		/* implicit ACK by a later READ response or atomic ACK */
		{ SEND, 100, 1000, 100, 0x10, 104, 0, ACK31, COMPL, 104, 0, 0, 0 },
		{ SEND, 100, 1000, 101, 0x0d, 104, 256, ACK31, COMPL, 104, 0, 0, 0 },
		{ SEND, 100, 1000, 100, 0x12, 104, 0, ACK31, COMPL, 104, 0, 0, 0 },
		/* a READ response or atomic ACK with a SEND's PSN */
		{ SEND, 100, 1000, 100, 0x0d, 102, 256, ACK31, ERR, 100,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		{ SEND, 100, 1000, 100, 0x12, 100, 0, ACK31, ERR, 100,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		/* not a response */
		{ SEND, 100, 1000, 100, 0x04, 100, 0, ACK31, DONE, 100, 0, 0, 0 },
		{ WRITE, 10, 0, 10, 0x11, 10, 0, ACK31, COMPL, 11, 0, 0, 0 },

		/* READ of 600 bytes at 200..202 */
		{ READ, 200, 600, 200, 0x0d, 200, 256, ACK31, RDATA, 201,
		  0, 0, 0 },
		{ READ, 200, 600, 201, 0x0e, 201, 256, 0, RDATA, 202,
		  0, 256, 0 },
		{ READ, 200, 600, 202, 0x0f, 202, 88, ACK31, RDATA, 203,
		  0, 512, 1 },
		{ READ, 200, 600, 201, 0x0e, 202, 256, 0, DONE, 201, 0, 0, 0 },
		{ READ, 200, 600, 201, 0x0f, 202, 88, 0, DONE, 201, 0, 0, 0 },
		{ READ, 200, 600, 201, 0x0d, 200, 256, ACK31, DONE, 201, 0, 0, 0 },
		{ READ, 200, 600, 202, 0x0f, 202, 87, ACK31, ERR, 202,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		{ READ, 200, 600, 202, 0x0e, 202, 88, 0, ERR, 202,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		{ READ, 200, 600, 201, 0x0f, 201, 256, ACK31, ERR, 201,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		{ READ, 200, 600, 200, 0x0e, 200, 256, 0, ERR, 200,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		{ READ, 200, 600, 200, 0x10, 200, 256, ACK31, ERR, 200,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		/* a resent READ answered as a new one, or as a replay */
		{ READ, 200, 600, 201, 0x0d, 201, 256, ACK31, RDATA, 202,
		  0, 256, 0 },
		{ READ, 200, 600, 202, 0x10, 202, 88, ACK31, RDATA, 203,
		  0, 512, 1 },
		{ READ, 200, 600, 200, 0x0d, 200, 256, NAK(2), ERR, 200,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		/* implied NAKs: past the READ, or a plain ACK about it */
		{ READ, 200, 600, 200, 0x11, 203, 0, ACK31, RETRY, 200, 0, 0, 0 },
		{ READ, 200, 600, 201, 0x11, 201, 0, ACK31, RETRY, 201, 0, 0, 0 },
		{ READ, 200, 600, 201, 0x10, 205, 256, ACK31, RETRY, 201, 0, 0, 0 },
		{ READ, 200, 600, 201, 0x12, 203, 0, ACK31, RETRY, 201, 0, 0, 0 },
		{ READ, 200, 600, 200, 0x11, 210, 0, NAK(0), RETRY, 200, 0, 0, 0 },
		/* NAKs within the READ ack nothing of it */
		{ READ, 200, 600, 200, 0x11, 200, 0, NAK(0), RETRY, 200, 0, 0, 0 },
		{ READ, 200, 600, 200, 0x11, 201, 0, NAK(0), RETRY, 200, 0, 0, 0 },
		{ READ, 200, 600, 200, 0x11, 200, 0, NAK(2), ERR, 200,
		  SROCE_WC_REM_ACCESS_ERR, 0, 0 },
		{ READ, 200, 600, 200, 0x12, 200, 0, ACK31, ERR, 200,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		/* zero-length READ: one empty ONLY response */
		{ READ, 300, 0, 300, 0x10, 300, 0, ACK31, RDATA, 301, 0, 0, 1 },
		{ READ, 300, 0, 300, 0x10, 300, 4, ACK31, ERR, 300,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		{ READ, 300, 256, 300, 0x10, 300, 256, ACK31, RDATA, 301,
		  0, 0, 1 },

		/* FETCH_ADD at 400 */
		{ FADD, 400, 8, 400, 0x12, 400, 0, ACK31, ATOM, 401, 0, 0, 0 },
		{ FADD, 400, 8, 400, 0x12, 400, 0, NAK(3), ERR, 400,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		{ FADD, 400, 8, 400, 0x11, 400, 0, ACK31, RETRY, 400, 0, 0, 0 },
		{ FADD, 400, 8, 400, 0x11, 401, 0, ACK31, RETRY, 400, 0, 0, 0 },
		{ FADD, 400, 8, 400, 0x10, 400, 0, ACK31, ERR, 400,
		  SROCE_WC_BAD_RESP_ERR, 0, 0 },
		{ FADD, 400, 8, 400, 0x11, 400, 0, NAK(3), ERR, 400,
		  SROCE_WC_REM_OP_ERR, 0, 0 },
		{ FADD, 400, 8, 400, 0x11, 400, 0, RNR(14), RNRW, 400, 0, 0, 0 },
		{ FADD, 400, 8, 400, 0x12, 399, 0, ACK31, DONE, 400, 0, 0, 0 },

		/* across the 2^24 wrap: SEND at M-1, M, 0, 1 */
		{ SEND, M - 1, 1000, M - 1, 0x11, 0, 0, ACK31, DONE, 1, 0, 0, 0 },
		{ SEND, M - 1, 1000, M - 1, 0x11, 1, 0, ACK31, COMPL, 2, 0, 0, 0 },
		{ SEND, M - 1, 1000, 0, 0x11, 5, 0, ACK31, COMPL, 2, 0, 0, 0 },
		{ SEND, M - 1, 1000, 0, 0x11, M, 0, ACK31, DONE, 0, 0, 0, 0 },
		{ SEND, M - 1, 1000, M, 0x11, 0, 0, NAK(0), RETRY, 0, 0, 0, 0 },
		{ READ, M, 512, 0, 0x0f, 0, 256, ACK31, RDATA, 1, 0, 256, 1 },
		{ READ, M, 512, M, 0x11, 1, 0, ACK31, RETRY, M, 0, 0, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct sroce_rc_wqe w = { (enum sroce_rc_op)t[i].op,
					  t[i].first, t[i].len };
		struct sroce_pkt p = mkpkt(t[i].opcode, t[i].psn, t[i].paylen,
					   false);
		struct sroce_rc_comp_out out;
		int a = sroce_rc_comp_step(&p, t[i].syn, t[i].una, &w, 256,
					   &out);

		CHECKF(a == t[i].act && out.una == t[i].una_out &&
		       (int)out.status == t[i].status &&
		       (a != RDATA || (out.offset == t[i].offset &&
				       out.complete == t[i].complete)),
		       "case %zu: act %d una 0x%x status %d off %u c %d",
		       i, a, out.una, out.status, out.offset, out.complete);
	}

	/* credits and RNR delay come out too */
	{
		struct sroce_rc_wqe w = { SEND, 100, 1000 };
		struct sroce_pkt p = mkpkt(0x11, 101, 0, false);
		struct sroce_rc_comp_out out;

		CHECK_EQ(sroce_rc_comp_step(&p, 0x05, 100, &w, 256, &out),
			 DONE);
		CHECK_EQ(out.credits, 6);
		CHECK_EQ(sroce_rc_comp_step(&p, RNR(14), 100, &w, 256, &out),
			 RNRW);
		CHECK_EQ(out.rnr_usec, 1280);
		CHECK_EQ(out.una, 101);
	}
}

/* The engine's loop: walk WQEs, oldest first, until not COMPLETE */
static int comp_walk(const struct sroce_rc_wqe *w, size_t nw, size_t *head,
		     u32 *una, const struct sroce_pkt *p, u8 syn,
		     struct sroce_rc_comp_out *out)
{
	int a = DONE;

	while (*head < nw) {
		a = sroce_rc_comp_step(p, syn, *una, &w[*head], 256, out);
		*una = out->una;
		if (a != COMPL)
			break;
		(*head)++;
	}
	return a;
}

/* Implicit acknowledgment across WQEs, as the engine's loop sees it */
static void test_comp_walk(void)
{
	/* SEND 10..11, WRITE 12, READ 13..14, SEND 15 */
	static const struct sroce_rc_wqe w[] = {
		{ SEND, 10, 300 }, { WRITE, 12, 5 }, { READ, 13, 400 },
		{ SEND, 15, 1 },
	};
	struct sroce_rc_comp_out out;
	struct sroce_pkt p;
	size_t head = 0;
	u32 una = 10;

	/* the READ's first response acknowledges the SEND and the WRITE */
	p = mkpkt(SROCE_RC_READ_RESPONSE_FIRST, 13, 256, false);
	CHECK_EQ(comp_walk(w, 4, &head, &una, &p, ACK31, &out), RDATA);
	CHECK_EQ(head, 2);
	CHECK_EQ(una, 14);
	CHECK_EQ(out.offset, 0);
	CHECK(!out.complete);
	/* a duplicate of it is stale now */
	CHECK_EQ(sroce_rc_comp_psn(13, una, 16), SROCE_RC_WIN_STALE);
	/* the ACK for the last SEND arrives before the READ's end: the
	 * READ response was lost, resend from 14
	 */
	p = mkpkt(SROCE_RC_ACKNOWLEDGE, 15, 0, false);
	CHECK_EQ(comp_walk(w, 4, &head, &una, &p, ACK31, &out), RETRY);
	CHECK_EQ(head, 2);
	CHECK_EQ(una, 14);
	/* the resent READ's answer, as a new READ (ONLY) */
	p = mkpkt(SROCE_RC_READ_RESPONSE_ONLY, 14, 144, false);
	CHECK_EQ(comp_walk(w, 4, &head, &una, &p, ACK31, &out), RDATA);
	CHECK(out.complete);
	CHECK_EQ(out.offset, 256);
	head++;			/* the engine completes the READ */
	CHECK_EQ(una, 15);
	p = mkpkt(SROCE_RC_ACKNOWLEDGE, 15, 0, false);
	CHECK_EQ(comp_walk(w, 4, &head, &una, &p, ACK31, &out), COMPL);
	CHECK_EQ(head, 4);
	CHECK_EQ(una, 16);

	/* a NAK sequence error in the WRITE acks the SEND before it */
	head = 0;
	una = 10;
	p = mkpkt(SROCE_RC_ACKNOWLEDGE, 12, 0, false);
	CHECK_EQ(comp_walk(w, 4, &head, &una, &p, NAK(0), &out), RETRY);
	CHECK_EQ(head, 1);
	CHECK_EQ(una, 12);
	/* an RNR NAK for the last SEND: the READ before it lost its data */
	p = mkpkt(SROCE_RC_ACKNOWLEDGE, 15, 0, false);
	CHECK_EQ(comp_walk(w, 4, &head, &una, &p, RNR(3), &out), RETRY);
	CHECK_EQ(head, 2);
	CHECK_EQ(una, 13);
}

/* -- retries and timers ------------------------------------------------ */

static void test_retry(void)
{
	struct sroce_rc_retry r;
	unsigned int i;

	/* retry_cnt N: N resends without progress, then failure */
	for (i = 0; i <= 7; i++) {
		unsigned int k;

		sroce_rc_retry_init(&r, i, 0);
		for (k = 0; k < i; k++)
			CHECKF(sroce_rc_retry_timeout(&r) == SROCE_RC_RETRY_GO,
			       "retry_cnt %u timeout %u", i, k);
		CHECKF(sroce_rc_retry_timeout(&r) == SROCE_RC_RETRY_EXCEEDED,
		       "retry_cnt %u", i);
	}
	/* progress restores */
	sroce_rc_retry_init(&r, 2, 0);
	CHECK_EQ(sroce_rc_retry_timeout(&r), SROCE_RC_RETRY_GO);
	CHECK_EQ(sroce_rc_retry_timeout(&r), SROCE_RC_RETRY_GO);
	sroce_rc_retry_progress(&r);
	CHECK_EQ(sroce_rc_retry_timeout(&r), SROCE_RC_RETRY_GO);
	CHECK_EQ(sroce_rc_retry_timeout(&r), SROCE_RC_RETRY_GO);
	CHECK_EQ(sroce_rc_retry_timeout(&r), SROCE_RC_RETRY_EXCEEDED);

	/* NAKs: one resend at a time, each costing a retry */
	sroce_rc_retry_init(&r, 2, 0);
	CHECK_EQ(sroce_rc_retry_nak(&r), SROCE_RC_RETRY_GO);
	CHECK_EQ(sroce_rc_retry_nak(&r), SROCE_RC_RETRY_IGNORE);
	CHECK_EQ(sroce_rc_retry_nak(&r), SROCE_RC_RETRY_IGNORE);
	CHECK_EQ(sroce_rc_retry_timeout(&r), SROCE_RC_RETRY_GO);
	CHECK_EQ(sroce_rc_retry_nak(&r), SROCE_RC_RETRY_IGNORE);
	CHECK_EQ(sroce_rc_retry_timeout(&r), SROCE_RC_RETRY_EXCEEDED);
	sroce_rc_retry_progress(&r);
	CHECK_EQ(sroce_rc_retry_nak(&r), SROCE_RC_RETRY_GO);
	sroce_rc_retry_init(&r, 0, 0);
	CHECK_EQ(sroce_rc_retry_nak(&r), SROCE_RC_RETRY_EXCEEDED);

	/* RNR: rnr_retry N, with 7 never running out */
	for (i = 0; i < 7; i++) {
		unsigned int k;

		sroce_rc_retry_init(&r, 0, i);
		for (k = 0; k < i; k++)
			CHECKF(sroce_rc_retry_rnr(&r) == SROCE_RC_RETRY_GO,
			       "rnr_retry %u rnr %u", i, k);
		CHECKF(sroce_rc_retry_rnr(&r) == SROCE_RC_RETRY_EXCEEDED,
		       "rnr_retry %u", i);
	}
	sroce_rc_retry_init(&r, 0, 7);
	for (i = 0; i < 100000; i++)
		if (!CHECKF(sroce_rc_retry_rnr(&r) == SROCE_RC_RETRY_GO,
			    "rnr %u", i))
			break;
	/* an RNR wait is a resend under way; timeouts are separate */
	CHECK_EQ(sroce_rc_retry_nak(&r), SROCE_RC_RETRY_IGNORE);
	CHECK_EQ(sroce_rc_retry_timeout(&r), SROCE_RC_RETRY_EXCEEDED);
	sroce_rc_retry_init(&r, 1, 1);
	CHECK_EQ(sroce_rc_retry_rnr(&r), SROCE_RC_RETRY_GO);
	CHECK_EQ(sroce_rc_retry_rnr(&r), SROCE_RC_RETRY_EXCEEDED);
	CHECK_EQ(sroce_rc_retry_timeout(&r), SROCE_RC_RETRY_GO);
	sroce_rc_retry_progress(&r);
	CHECK_EQ(sroce_rc_retry_rnr(&r), SROCE_RC_RETRY_GO);

	/* out-of-range attributes count as 7 */
	sroce_rc_retry_init(&r, 200, 9);
	CHECK_EQ(r.retry_cnt, 7);
	CHECK_EQ(r.rnr_retry, 7);
}

static void test_ack_timeout(void)
{
	static const struct { u8 code; u64 want; } t[] = {
		{ 0, 0 },			/* no timer */
		{ 1, 1048576 },			/* floor: code 8 */
		{ 7, 1048576 },
		{ 8, 1048576 },			/* 4.096 us << 8 */
		{ 9, 2097152 },
		{ 14, 67108864 },		/* 67.1 ms */
		{ 18, 1073741824 },		/* 1.07 s */
		{ 31, 8796093022208ull },	/* 2.4 hours */
		{ 32, 8796093022208ull },	/* too big for 5 bits */
		{ 255, 8796093022208ull },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		CHECKF(sroce_rc_ack_timeout_ns(t[i].code) == t[i].want,
		       "code %u: %llu", t[i].code, (unsigned long long)
		       sroce_rc_ack_timeout_ns(t[i].code));
}

static void test_window(void)
{
	u32 w = SROCE_RC_WINDOW_MAX, rounds = 0;

	CHECK_EQ(sroce_rc_window_loss(w, false), SROCE_RC_WINDOW_MAX / 2);
	CHECK_EQ(sroce_rc_window_loss(w, true), SROCE_RC_WINDOW_MIN);
	CHECK_EQ(sroce_rc_window_loss(SROCE_RC_WINDOW_MIN, false),
		 SROCE_RC_WINDOW_MIN);
	CHECK_EQ(sroce_rc_window_loss(0, false), SROCE_RC_WINDOW_MIN);
	CHECK_EQ(sroce_rc_window_ack(0, 0), SROCE_RC_WINDOW_MIN);
	CHECK_EQ(sroce_rc_window_ack(SROCE_RC_WINDOW_MAX, 1),
		 SROCE_RC_WINDOW_MAX);
	CHECK_EQ(sroce_rc_window_ack(10, 0xffffffffu), SROCE_RC_WINDOW_MAX);
	CHECK_EQ(sroce_rc_window_ack(10, 5), 15);
	/* From the minimum, a window acknowledged whole doubles. */
	for (w = SROCE_RC_WINDOW_MIN; w < SROCE_RC_WINDOW_MAX; rounds++) {
		u32 next = sroce_rc_window_ack(w, w);

		CHECK(next == 2 * w || next == SROCE_RC_WINDOW_MAX);
		w = next;
	}
	CHECK(rounds == 4);	/* 8 -> 16 -> 32 -> 64 -> 128 */
}

static const struct ktap_case cases[] = {
	{ "rc_comp_psn_window", test_comp_psn },
	{ "rc_aeth_decode", test_aeth_decode },
	{ "rc_wc_status_values", test_wc_status_values },
	{ "rc_comp_step", test_comp_step },
	{ "rc_comp_walk_implicit_ack", test_comp_walk },
	{ "rc_retry_budget", test_retry },
	{ "rc_ack_timeout", test_ack_timeout },
	{ "rc_send_window", test_window },
};

int main(void)
{
	ktap_plan(ARRAY_SIZE(cases));
	ktap_run_cases(cases, ARRAY_SIZE(cases));
	return ktap_finish();
}
