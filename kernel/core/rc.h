/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rc.h: the pure decisions of the reliable connected transport (IBTA vol. 1
 * ch. 9.7), and the parts of them the unreliable connected transport shares.
 *
 * The engines (requester, responder, completer) keep every piece of state;
 * these functions take plain values, return a decision, and at most update
 * the small state structs defined here, which the engines own and lock.
 * Nothing here allocates, locks, sleeps or touches an skb.
 *
 * Words used throughout:
 *   pmtu  path MTU in bytes (256..4096). Values below 256, the smallest IBTA
 *         MTU, are taken as 256, so that a bad value cannot divide by zero.
 *   epsn  the responder's expected PSN.
 *   una   the requester's oldest PSN not yet acknowledged (for an RDMA READ
 *         partly answered: the PSN of the next READ response it waits for).
 *   nxt   one past the highest PSN the requester has ever sent. A go-back-N
 *         rewinds the requester's send cursor, not nxt, so responses to the
 *         first transmission stay acceptable.
 *
 * The requester must keep nxt - una <= 2^23 (SROCE_RC_MAX_INFLIGHT), or
 * neither side can tell an old PSN from a new one (psn.h orders PSNs by the
 * shorter way round the 2^24 circle).
 */
#ifndef SROCE_CORE_RC_H
#define SROCE_CORE_RC_H

#include "core_types.h"
#include "hdr.h"
#include "opcode.h"
#include "pkt.h"
#include "psn.h"

#define SROCE_RC_MIN_PMTU	256
#define SROCE_RC_MAX_MSG	0x80000000U	/* 2^31 bytes, IBTA's limit */
#define SROCE_RC_MAX_INFLIGHT	0x800000U	/* PSNs: the 2^23 half circle */
#define SROCE_RC_ATOMIC_BYTES	8
#define SROCE_RC_CREDITS_UNLIMITED	0xffffffffU

/*
 * Completion status of a work request. The values are those of the kernel's
 * enum ib_wc_status (include/rdma/ib_verbs.h, checked against 6.1), so the
 * glue can pass them through; it BUILD_BUG_ON()s every one of them.
 */
enum sroce_wc_status {
	SROCE_WC_SUCCESS		= 0,
	SROCE_WC_LOC_LEN_ERR		= 1,
	SROCE_WC_LOC_QP_OP_ERR		= 2,
	SROCE_WC_LOC_EEC_OP_ERR		= 3,
	SROCE_WC_LOC_PROT_ERR		= 4,
	SROCE_WC_WR_FLUSH_ERR		= 5,
	SROCE_WC_MW_BIND_ERR		= 6,
	SROCE_WC_BAD_RESP_ERR		= 7,
	SROCE_WC_LOC_ACCESS_ERR		= 8,
	SROCE_WC_REM_INV_REQ_ERR	= 9,
	SROCE_WC_REM_ACCESS_ERR		= 10,
	SROCE_WC_REM_OP_ERR		= 11,
	SROCE_WC_RETRY_EXC_ERR		= 12,
	SROCE_WC_RNR_RETRY_EXC_ERR	= 13,
	SROCE_WC_LOC_RDD_VIOL_ERR	= 14,
	SROCE_WC_REM_INV_RD_REQ_ERR	= 15,
	SROCE_WC_REM_ABORT_ERR		= 16,
	SROCE_WC_INV_EECN_ERR		= 17,
	SROCE_WC_INV_EEC_STATE_ERR	= 18,
	SROCE_WC_FATAL_ERR		= 19,
	SROCE_WC_RESP_TIMEOUT_ERR	= 20,
	SROCE_WC_GENERAL_ERR		= 21,
};

/*
 * Remote access rights a request needs. The values are the kernel's
 * IB_ACCESS_REMOTE_WRITE, _READ and _ATOMIC (= IB_UVERBS_ACCESS_*), so they
 * can be tested directly against a QP's or an MR's access flags.
 */
enum sroce_rc_access {
	SROCE_ACCESS_REMOTE_WRITE	= 1 << 1,
	SROCE_ACCESS_REMOTE_READ	= 1 << 2,
	SROCE_ACCESS_REMOTE_ATOMIC	= 1 << 3,
};

/* What a send work request asks the transport to do */
enum sroce_rc_op {
	SROCE_RC_OP_SEND,
	SROCE_RC_OP_SEND_IMM,
	SROCE_RC_OP_SEND_INV,		/* RC only */
	SROCE_RC_OP_WRITE,
	SROCE_RC_OP_WRITE_IMM,
	SROCE_RC_OP_READ,		/* RC only */
	SROCE_RC_OP_CMP_SWAP,		/* RC only */
	SROCE_RC_OP_FETCH_ADD,		/* RC only */
	SROCE_RC_OP_COUNT,
};

/* A READ or an atomic: one request packet, answered with data. */
static inline bool sroce_rc_op_rdatm(enum sroce_rc_op op)
{
	return op == SROCE_RC_OP_READ || op == SROCE_RC_OP_CMP_SWAP ||
	       op == SROCE_RC_OP_FETCH_ADD;
}

/* -- Requester: segmentation ------------------------------------------- */

/*
 * The functions every packet meets are inline here; the rest are in rc.c.
 * Path MTUs below the smallest IBTA MTU are taken as that.
 */
static inline u32 sroce_rc_pmtu(u32 pmtu)
{
	return pmtu < SROCE_RC_MIN_PMTU ? SROCE_RC_MIN_PMTU : pmtu;
}

/* RC opcodes by operation and position: FIRST, MIDDLE, LAST, ONLY (rc.c) */
extern const u8 sroce_rc_opcode_table[SROCE_RC_OP_COUNT][4];

/**
 * sroce_rc_npkts() - packets needed to carry a message
 * @len: message length in bytes
 * @pmtu: path MTU in bytes
 *
 * A message of 0 bytes still takes one packet (an ONLY with no payload).
 *
 * Return: ceil(@len / @pmtu), at least 1.
 */
static inline u32 sroce_rc_npkts(u32 len, u32 pmtu)
{
	pmtu = sroce_rc_pmtu(pmtu);
	/* no len + pmtu - 1: it would wrap for len near 2^32 */
	if (!len)
		return 1;
	return len / pmtu + (len % pmtu != 0);
}

/**
 * sroce_rc_payload() - payload bytes of one packet of a message
 * @len: message length in bytes
 * @pmtu: path MTU in bytes
 * @i: index of the packet in the message, from 0
 *
 * Every packet but the last carries exactly @pmtu bytes (FIRST and MIDDLE
 * payloads are PMTU); the last carries the rest, 1..@pmtu bytes, or 0 for
 * an empty message. The same split serves RDMA READ responses.
 *
 * Return: the payload length, 0 for @i past the last packet.
 */
static inline u32 sroce_rc_payload(u32 len, u32 pmtu, u32 i)
{
	u32 n = sroce_rc_npkts(len, pmtu);

	pmtu = sroce_rc_pmtu(pmtu);
	if (i >= n)
		return 0;
	if (i < n - 1)
		return pmtu;
	return len - (n - 1) * pmtu;
}

/**
 * sroce_rc_npsn() - PSNs a work request takes
 * @op: the operation
 * @len: its length in bytes
 * @pmtu: path MTU in bytes
 *
 * A SEND or WRITE takes one PSN per packet. An RDMA READ request is one
 * packet but takes one PSN per READ response packet, sroce_rc_npkts(@len)
 * (IBTA 9.7), so the next request's PSN skips past them. An atomic takes
 * one.
 *
 * Return: the number of PSNs, at least 1.
 */
static inline u32 sroce_rc_npsn(enum sroce_rc_op op, u32 len, u32 pmtu)
{
	if (op == SROCE_RC_OP_CMP_SWAP || op == SROCE_RC_OP_FETCH_ADD)
		return 1;
	return sroce_rc_npkts(len, pmtu);
}

/**
 * sroce_rc_opcode() - the opcode of one request packet
 * @qpt: SROCE_QPT_RC or SROCE_QPT_UC
 * @op: the operation
 * @first: the packet is the first of its message
 * @last: the packet is the last of its message
 *
 * Immediate data and invalidate ride only on the LAST or ONLY packet; the
 * FIRST and MIDDLE packets are those of the plain operation. A READ request
 * and an atomic are always one ONLY-like packet. UC has the SEND and WRITE
 * opcodes at RC's plus 0x20, and no SEND with invalidate, READ or atomics.
 *
 * Return: the opcode, or SROCE_OPCODE_NONE for an operation the QP type
 * lacks, a multi-packet READ or atomic, or an unknown @op or @qpt.
 */
static inline u8 sroce_rc_opcode(enum sroce_qp_type qpt,
				 enum sroce_rc_op op, bool first, bool last)
{
	unsigned int pos = first ? (last ? 3 : 0) : (last ? 2 : 1);
	u8 opcode;

	if ((unsigned int)op >= SROCE_RC_OP_COUNT)
		return SROCE_OPCODE_NONE;
	opcode = sroce_rc_opcode_table[op][pos];
	if (qpt == SROCE_QPT_RC)
		return opcode;
	if (qpt != SROCE_QPT_UC || op == SROCE_RC_OP_SEND_INV ||
	    opcode == SROCE_OPCODE_NONE || sroce_rc_op_rdatm(op))
		return SROCE_OPCODE_NONE;
	return opcode | SROCE_OPCODE_UC;
}

/**
 * sroce_rc_ackreq() - should a request packet set AckReq?
 * @qpt: the QP type
 * @last: the packet ends its message (LAST or ONLY, READ, atomic)
 * @want: the requester wants this message acknowledged as soon as it
 *        arrives: its WR is signaled, or is a READ or an atomic, or the QP
 *        does not stream (its poster may be waiting for it)
 * @force: ask whatever the rest says: the packet fills the requester's
 *         window (it sends nothing more until an ACK comes), or it is the
 *         newest packet sent, resent to ask for the ACK of a tail sent
 *         unasked (a window of 8 after a timeout, in a message of 64
 *         packets, or a probe)
 * @sent: packets sent without AckReq since the last one with it
 * @every_n: also ask every @every_n packets; 0 for never
 *
 * Policy: ask at the end of every message that someone may be waiting
 * for, so that it completes without waiting for the next; every @every_n
 * packets, so that the window keeps moving and the ring's slots come back
 * (as rxe, which asks every 64 packets); and when forced. An unsignaled
 * message of a streaming QP is left to a later ACK: the poster learns of
 * it only through a later signaled WR, whose ACK covers it. The requester
 * must then make sure an ACK comes for what it sent last without asking
 * (req.c resends that packet, asking, when its probe timer fires).
 * UC has no ACKs; its AckReq stays clear.
 *
 * Return: true to set AckReq.
 */
static inline bool sroce_rc_ackreq(enum sroce_qp_type qpt, bool last,
				   bool want, bool force, u32 sent,
				   u32 every_n)
{
	if (qpt != SROCE_QPT_RC)
		return false;
	return (last && want) || force || (every_n && sent + 1 >= every_n);
}

bool sroce_rc_atomic_ok(u64 va, u32 len);

/* -- Responder --------------------------------------------------------- */

/* Where a request's PSN stands against the expected PSN */
enum sroce_rc_psn_verdict {
	SROCE_RC_PSN_EXPECTED,		/* psn == epsn: check and execute */
	SROCE_RC_PSN_DUPLICATE,		/* earlier: ACK again or replay */
	SROCE_RC_PSN_NAK_SEQ,		/* later: send NAK PSN seq error(epsn) */
	SROCE_RC_PSN_DROP,		/* later, and a NAK was sent already */
};

/**
 * sroce_rc_resp_psn() - classify a request PSN against the expected PSN
 * @psn: the request's PSN
 * @epsn: the responder's expected PSN
 * @nak_sent: in/out, the engine's "a NAK for @epsn was sent" flag; start
 *            false. Set it also when sending an RNR NAK: until the NAKed PSN
 *            comes back, later packets are dropped without another NAK.
 *
 * Earlier PSNs (up to 2^23 back) are duplicates, later ones (up to 2^23 - 1
 * ahead) mean a packet was lost: the first such gets a NAK PSN sequence
 * error carrying @epsn, later ones are dropped until @epsn arrives (IBTA
 * 9.7: one NAK per gap; rxe's sent_psn_nak). The expected PSN clears
 * the flag.
 *
 * Return: what to do with the packet.
 */
static inline enum sroce_rc_psn_verdict
sroce_rc_resp_psn(u32 psn, u32 epsn, bool *nak_sent)
{
	s32 d = sroce_psn_cmp(psn, epsn);

	if (d < 0)
		return SROCE_RC_PSN_DUPLICATE;
	if (d == 0) {
		*nak_sent = false;
		return SROCE_RC_PSN_EXPECTED;
	}
	if (*nak_sent)
		return SROCE_RC_PSN_DROP;
	*nak_sent = true;
	return SROCE_RC_PSN_NAK_SEQ;
}

/**
 * struct sroce_rc_resp_msg - the responder's message in progress
 * @opcode: opcode of the last packet accepted if it left a message open
 *          (FIRST or MIDDLE), SROCE_OPCODE_NONE between messages; start
 *          with SROCE_OPCODE_NONE
 * @resid: RDMA WRITE bytes still due in the open message (0 otherwise)
 * @sent: SEND bytes accepted in the open message (0 otherwise): a SEND
 *        may not pass 2^31 bytes, the largest message, any more than a
 *        WRITE or a READ
 *
 * Changed only by sroce_rc_resp_accept(). On UC, an engine that loses a
 * packet of a message (PSN != epsn) resets it to SROCE_OPCODE_NONE, so that
 * the rest of the message is dropped and the next FIRST or ONLY packet
 * starts afresh (epsn is then taken from that packet), as rxe does.
 */
struct sroce_rc_resp_msg {
	u8 opcode;
	u32 resid;
	u32 sent;
};

/* No message open: between messages, or after one was cut (UC). */
static inline void sroce_rc_resp_msg_reset(struct sroce_rc_resp_msg *msg)
{
	msg->opcode = SROCE_OPCODE_NONE;
	msg->resid = 0;
	msg->sent = 0;
}

/*
 * What to do with a request whose PSN was expected. On UC, DROP also drops
 * the rest of the message: the engine resets its sroce_rc_resp_msg.
 */
enum sroce_rc_req_verdict {
	SROCE_RC_REQ_OK,		/* go on: access, resources, execute */
	SROCE_RC_REQ_NAK_INVALID,	/* RC: NAK invalid request, QP error */
	SROCE_RC_REQ_DROP,		/* drop silently, no NAK */
};

enum sroce_rc_req_verdict sroce_rc_resp_check(const struct sroce_rc_resp_msg *msg,
					      const struct sroce_pkt *pkt,
					      u32 reth_len, u32 pmtu,
					      enum sroce_qp_type qpt);
u32 sroce_rc_resp_accept(struct sroce_rc_resp_msg *msg,
			 const struct sroce_pkt *pkt, u32 reth_len, u32 pmtu);
u32 sroce_rc_access(u8 opcode);

/* A request followed by another of its QP waits for at most this many. */
#define SROCE_RC_ACK_COALESCE	16	/* packets */
/* The responder ACKs unasked requests after this many. */
#define SROCE_RC_ACK_UNASKED	64	/* packets */

bool sroce_rc_ack_now(enum sroce_rc_psn_verdict verdict,
		      const struct sroce_pkt *pkt, u32 unacked, bool owed,
		      u32 every_n);
/**
 * sroce_rc_msn_next() - the responder's MSN after accepting a request
 * @msn: the MSN so far
 * @opcode: the request's opcode
 *
 * The MSN counts completed request messages (IBTA 9.7): it advances on
 * the LAST or ONLY packet of a SEND or WRITE, on an atomic, and on an RDMA
 * READ request as soon as it is accepted (C9-148, as rxe), modulo 2^24.
 *
 * Return: the new MSN.
 */
static inline u32 sroce_rc_msn_next(u32 msn, u8 opcode)
{
	u32 f = sroce_opcode_flags(opcode);

	if ((f & SROCE_OPF_REQ) && (f & SROCE_OPF_LAST))
		return (msn + 1) & SROCE_MSN_MASK;
	return msn & SROCE_MSN_MASK;
}

u8 sroce_rc_ack_syn(u32 credits);
u32 sroce_rc_credits(u8 code);

/* -- Completer --------------------------------------------------------- */

/* Where a response's PSN stands against the window [una, nxt) */
enum sroce_rc_window {
	SROCE_RC_WIN_VALID,		/* in the window: process it */
	SROCE_RC_WIN_STALE,		/* before una: a duplicate, ignore */
	SROCE_RC_WIN_INVALID,		/* at or beyond nxt: never sent, ignore */
};

/**
 * sroce_rc_comp_psn() - where a response's PSN falls in the window
 * @psn: the response's PSN
 * @una: oldest unacknowledged PSN
 * @nxt: one past the highest PSN ever sent
 *
 * Return: VALID for [@una, @nxt); STALE for PSNs before @una (a duplicate
 * ACK carries @una - 1); INVALID for @nxt and beyond, which were never sent.
 */
static inline enum sroce_rc_window
sroce_rc_comp_psn(u32 psn, u32 una, u32 nxt)
{
	if (sroce_psn_in_window(psn, una, sroce_psn_sub(nxt, una)))
		return SROCE_RC_WIN_VALID;
	if (sroce_psn_before(psn, una))
		return SROCE_RC_WIN_STALE;
	return SROCE_RC_WIN_INVALID;
}

/* What an AETH syndrome asks of the requester */
enum sroce_rc_aeth_kind {
	SROCE_RC_AETH_ACK,		/* acknowledged; credits */
	SROCE_RC_AETH_RNR,		/* receiver not ready: wait, resend */
	SROCE_RC_AETH_SEQ_ERR,		/* PSN sequence error: go back N */
	SROCE_RC_AETH_FATAL,		/* complete with status, QP to error */
};

/**
 * struct sroce_rc_aeth_info - an AETH syndrome, decoded
 * @credits: ACK: credits granted, SROCE_RC_CREDITS_UNLIMITED for code 31
 * @rnr_usec: RNR NAK: the least time to wait before resending
 * @status: FATAL: the status of the work request the NAK is for
 */
struct sroce_rc_aeth_info {
	u32 credits;
	u32 rnr_usec;
	enum sroce_wc_status status;
};

enum sroce_rc_aeth_kind sroce_rc_aeth_decode(u8 syndrome,
					     struct sroce_rc_aeth_info *info);

/**
 * struct sroce_rc_wqe - an outstanding send work request, as the completer
 *                       sees it
 * @op: what it does
 * @first_psn: the PSN of its first packet
 * @len: its length in bytes (for atomics, anything)
 */
struct sroce_rc_wqe {
	enum sroce_rc_op op;
	u32 first_psn;
	u32 len;
};

/* What one response means for the oldest outstanding work request */
enum sroce_rc_comp_act {
	SROCE_RC_COMP_DONE,	/* nothing more for this packet */
	SROCE_RC_COMP_COMPLETE,	/* WQE acknowledged: complete, call again */
	SROCE_RC_COMP_READ,	/* READ data at offset; maybe completes it */
	SROCE_RC_COMP_ATOMIC,	/* atomic result: completes the WQE */
	SROCE_RC_COMP_RETRY,	/* resend from una (sroce_rc_retry_nak()) */
	SROCE_RC_COMP_RNR,	/* wait rnr_usec, resend from una */
	SROCE_RC_COMP_ERROR,	/* complete with status, QP to error */
};

/**
 * struct sroce_rc_comp_out - the details of a completer decision
 * @una: the new oldest unacknowledged PSN (the old one if no progress)
 * @offset: READ: where in the WQE's data the payload goes
 * @complete: READ: this response is the last; complete the WQE
 * @credits: the credits an ACK granted, SROCE_RC_CREDITS_UNLIMITED if none
 *           were advertised or the packet was no plain ACK
 * @rnr_usec: RNR: the least time to wait
 * @status: ERROR: the WQE's completion status
 */
struct sroce_rc_comp_out {
	u32 una;
	u32 offset;
	u8 complete;
	u32 credits;
	u32 rnr_usec;
	enum sroce_wc_status status;
};

enum sroce_rc_comp_act sroce_rc_comp_step(const struct sroce_pkt *pkt,
					  u8 syndrome, u32 una,
					  const struct sroce_rc_wqe *wqe,
					  u32 pmtu,
					  struct sroce_rc_comp_out *out);

/* -- Retry budget ------------------------------------------------------ */

/**
 * struct sroce_rc_retry - what is left of a QP's retries
 * @retry_cnt: the QP's retry_cnt attribute, 0..7
 * @rnr_retry: the QP's rnr_retry attribute, 0..7; 7 means no limit
 * @retry_left: timeouts and sequence NAKs still allowed
 * @rnr_left: RNR NAKs still allowed (unused when @rnr_retry is 7)
 * @retrying: a resend is under way; further NAKs do not start another one
 *
 * Fill with sroce_rc_retry_init(); the other fields are the functions'.
 */
struct sroce_rc_retry {
	u8 retry_cnt;
	u8 rnr_retry;
	u8 retry_left;
	u8 rnr_left;
	u8 retrying;
};

/* What to do about a timeout or a NAK */
enum sroce_rc_retry_act {
	SROCE_RC_RETRY_GO,		/* resend from una */
	SROCE_RC_RETRY_IGNORE,		/* a resend is under way already */
	SROCE_RC_RETRY_EXCEEDED,	/* complete with error, QP to error */
};

#define SROCE_RC_RNR_INFINITE	7

void sroce_rc_retry_init(struct sroce_rc_retry *r, u8 retry_cnt,
			 u8 rnr_retry);
enum sroce_rc_retry_act sroce_rc_retry_timeout(struct sroce_rc_retry *r);
enum sroce_rc_retry_act sroce_rc_retry_nak(struct sroce_rc_retry *r);
enum sroce_rc_retry_act sroce_rc_retry_rnr(struct sroce_rc_retry *r);
void sroce_rc_retry_progress(struct sroce_rc_retry *r);

/* -- Send window ------------------------------------------------------- */

#define SROCE_RC_WINDOW_MIN	8	/* PSNs */
#define SROCE_RC_WINDOW_MAX	128

u32 sroce_rc_window_ack(u32 window, u32 acked);
u32 sroce_rc_window_loss(u32 window, bool timeout);

/* -- Timers ------------------------------------------------------------ */

#define SROCE_RC_TIMEOUT_MIN_CODE	8	/* 4.096 us << 8 = 1.048576 ms */
#define SROCE_RC_TIMEOUT_MAX_CODE	31

u64 sroce_rc_ack_timeout_ns(u8 timeout);

#endif /* SROCE_CORE_RC_H */
