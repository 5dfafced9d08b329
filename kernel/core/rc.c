// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc.c: the pure decisions of the reliable connected transport (IBTA vol. 1
 * ch. 9.7): segmentation, the responder's PSN and request checks, the
 * completer's reading of responses, the retry budget, timers, ACK
 * coalescing, MSN and credits. Every policy choice is written down where it
 * is made; rxe (drivers/infiniband/sw/rxe) and ConnectX are the references
 * for behaviour the specification leaves open.
 */
#include "psn.h"
#include "rc.h"

#define NO SROCE_OPCODE_NONE
/* RC opcodes by operation and position (sroce_rc_opcode()) */
const u8 sroce_rc_opcode_table[SROCE_RC_OP_COUNT][4] = {
	[SROCE_RC_OP_SEND] = { SROCE_RC_SEND_FIRST, SROCE_RC_SEND_MIDDLE,
			       SROCE_RC_SEND_LAST, SROCE_RC_SEND_ONLY },
	[SROCE_RC_OP_SEND_IMM] = { SROCE_RC_SEND_FIRST, SROCE_RC_SEND_MIDDLE,
				   SROCE_RC_SEND_LAST_IMM,
				   SROCE_RC_SEND_ONLY_IMM },
	[SROCE_RC_OP_SEND_INV] = { SROCE_RC_SEND_FIRST, SROCE_RC_SEND_MIDDLE,
				   SROCE_RC_SEND_LAST_INV,
				   SROCE_RC_SEND_ONLY_INV },
	[SROCE_RC_OP_WRITE] = { SROCE_RC_WRITE_FIRST, SROCE_RC_WRITE_MIDDLE,
				SROCE_RC_WRITE_LAST, SROCE_RC_WRITE_ONLY },
	[SROCE_RC_OP_WRITE_IMM] = { SROCE_RC_WRITE_FIRST,
				    SROCE_RC_WRITE_MIDDLE,
				    SROCE_RC_WRITE_LAST_IMM,
				    SROCE_RC_WRITE_ONLY_IMM },
	[SROCE_RC_OP_READ] = { NO, NO, NO, SROCE_RC_READ_REQUEST },
	[SROCE_RC_OP_CMP_SWAP] = { NO, NO, NO, SROCE_RC_COMPARE_SWAP },
	[SROCE_RC_OP_FETCH_ADD] = { NO, NO, NO, SROCE_RC_FETCH_ADD },
};

#undef NO

/**
 * sroce_rc_atomic_ok() - is this an atomic the transport can carry?
 * @va: the remote virtual address
 * @len: the data length: the requester's local buffer, or
 *       SROCE_RC_ATOMIC_BYTES on the responder, which checks the MR range
 *       [@va, @va + 8) itself
 *
 * Atomics work on one naturally aligned 64-bit word. A
 * responder answers a misaligned one with NAK invalid request (as rxe).
 *
 * Return: true if @va is 8-byte aligned and @len is 8.
 */
bool sroce_rc_atomic_ok(u64 va, u32 len)
{
	return !(va & (SROCE_RC_ATOMIC_BYTES - 1)) &&
	       len == SROCE_RC_ATOMIC_BYTES;
}

/**
 * sroce_rc_resp_check() - the transport checks of an expected request
 * @msg: the message in progress
 * @pkt: the packet, as sroce_pkt_parse() found it
 * @reth_len: the RETH DMA length if the packet has a RETH, else ignored
 * @pmtu: path MTU in bytes
 * @qpt: the QP type, RC or UC
 *
 * In order: an opcode of another transport, or no request at all, is
 * dropped silently (header validation, as rxe does); an opcode out of
 * sequence (a MIDDLE or LAST with no message open, a FIRST or ONLY while
 * one is) is an invalid request; FIRST and MIDDLE payloads must be exactly
 * @pmtu, LAST payloads 1..@pmtu and ONLY payloads 0..@pmtu; a WRITE's RETH
 * length must match its packets (FIRST: more than @pmtu, ONLY: the payload,
 * MIDDLE: more than @pmtu still due, LAST: exactly what is due) and no
 * message, WRITE, READ or SEND, may exceed 2^31 bytes (a SEND's length is
 * known only as its packets come: none of them may take it past that). On
 * RC those get NAK invalid
 * request (class C: the responder QP goes to error); on UC the message is
 * dropped silently (class D).
 *
 * Not checked here: access rights (sroce_rc_access()), atomic alignment
 * (sroce_rc_atomic_ok()), the receive buffer's length, keys and MR ranges,
 * and the READ/atomic resource limit; those need the engine's objects.
 *
 * Return: the verdict.
 */
enum sroce_rc_req_verdict sroce_rc_resp_check(const struct sroce_rc_resp_msg *msg,
					      const struct sroce_pkt *pkt,
					      u32 reth_len, u32 pmtu,
					      enum sroce_qp_type qpt)
{
	enum sroce_rc_req_verdict bad = qpt == SROCE_QPT_RC ?
		SROCE_RC_REQ_NAK_INVALID : SROCE_RC_REQ_DROP;
	u32 f = pkt->flags, pos = f & SROCE_OPF_POS_MASK;
	u8 op = pkt->bth.opcode;

	pmtu = sroce_rc_pmtu(pmtu);
	if ((qpt != SROCE_QPT_RC && qpt != SROCE_QPT_UC) ||
	    !sroce_opcode_valid_for_qpt(op, qpt) || !(f & SROCE_OPF_REQ))
		return SROCE_RC_REQ_DROP;
	if (!sroce_opcode_seq_ok(msg->opcode, op))
		return bad;

	if (pos == SROCE_OPF_FIRST || pos == SROCE_OPF_MIDDLE) {
		if (pkt->paylen != pmtu)
			return bad;
	} else if (pkt->paylen > pmtu ||
		   (pos == SROCE_OPF_LAST && !pkt->paylen)) {
		return bad;
	}

	if ((f & (SROCE_OPF_WRITE | SROCE_OPF_READ)) && (f & SROCE_OPF_RETH) &&
	    reth_len > SROCE_RC_MAX_MSG)
		return bad;
	if ((f & SROCE_OPF_SEND) && pos != SROCE_OPF_FIRST &&
	    pos != SROCE_OPF_ONLY &&
	    msg->sent + pkt->paylen > SROCE_RC_MAX_MSG)
		return bad;
	if (!(f & SROCE_OPF_WRITE))
		return SROCE_RC_REQ_OK;
	switch (pos) {
	case SROCE_OPF_FIRST:
		return reth_len > pmtu ? SROCE_RC_REQ_OK : bad;
	case SROCE_OPF_ONLY:
		return reth_len == pkt->paylen ? SROCE_RC_REQ_OK : bad;
	case SROCE_OPF_MIDDLE:
		return msg->resid > pmtu ? SROCE_RC_REQ_OK : bad;
	default:
		return msg->resid == pkt->paylen ? SROCE_RC_REQ_OK : bad;
	}
}

/**
 * sroce_rc_resp_accept() - a checked request was executed: update state
 * @msg: the message in progress, updated
 * @pkt: the packet
 * @reth_len: the RETH DMA length if the packet has a RETH, else ignored
 * @pmtu: path MTU in bytes
 *
 * Call only after sroce_rc_resp_check() said OK and the request was carried
 * out (not for an RNR NAK or an error). The engine then advances epsn by the
 * return value and, for RC, the MSN with sroce_rc_msn_next().
 *
 * Return: the PSNs the packet takes: 1, or for a READ request the number of
 * response packets.
 */
u32 sroce_rc_resp_accept(struct sroce_rc_resp_msg *msg,
			 const struct sroce_pkt *pkt, u32 reth_len, u32 pmtu)
{
	u32 f = pkt->flags;

	if (sroce_opcode_in_progress(pkt->bth.opcode)) {
		if (f & SROCE_OPF_WRITE)
			msg->resid = ((f & SROCE_OPF_RETH) ? reth_len :
				      msg->resid) - pkt->paylen;
		if (f & SROCE_OPF_SEND)
			msg->sent = ((f & SROCE_OPF_FIRST) ? 0 : msg->sent) +
				    pkt->paylen;
		msg->opcode = pkt->bth.opcode;
	} else {
		sroce_rc_resp_msg_reset(msg);
	}
	if (f & SROCE_OPF_READ)
		return sroce_rc_npkts(reth_len, pmtu);
	return 1;
}

/**
 * sroce_rc_access() - the remote access right a request needs
 * @opcode: the request's opcode
 *
 * Every packet of a WRITE needs REMOTE_WRITE, a READ request REMOTE_READ,
 * an atomic REMOTE_ATOMIC; sends need none. The engine tests the QP's and
 * the MR's access flags. A missing right is a remote access error (NAK
 * remote access error on RC, as ConnectX; rxe answers a QP without the
 * right with NAK invalid request), a silent drop on UC.
 *
 * Return: SROCE_ACCESS_REMOTE_* bits, 0 for none.
 */
u32 sroce_rc_access(u8 opcode)
{
	u32 f = sroce_opcode_flags(opcode);

	if (!(f & SROCE_OPF_REQ))
		return 0;
	if (f & SROCE_OPF_WRITE)
		return SROCE_ACCESS_REMOTE_WRITE;
	if (f & SROCE_OPF_READ)
		return SROCE_ACCESS_REMOTE_READ;
	if (f & SROCE_OPF_ATOMIC)
		return SROCE_ACCESS_REMOTE_ATOMIC;
	return 0;
}

/**
 * sroce_rc_ack_now() - should the responder send an ACK for this request?
 * @verdict: what sroce_rc_resp_psn() said
 * @pkt: the request, accepted if @verdict is EXPECTED; pkt->more says
 *       that the responder takes another request of this QP next
 * @unacked: requests accepted since the last ACK, NAK or response the
 *           responder sent, this one included; the engine zeroes it
 *           whenever it sends any of those
 * @owed: one of those before this one asked, and its ACK was left to a
 *        later answer (coalesced); the engine clears it with @unacked
 * @every_n: also ACK after this many unacknowledged packets; 0 for never
 *
 * Policy: a new SEND or WRITE packet is ACKed when it asks (AckReq, which
 * sroce's requester sets where someone may wait for the message and every
 * N packets, and rxe's at the end of every message), or after @every_n
 * unacknowledged packets; other packets are coalesced into a later ACK,
 * as rxe's responder does (IBTA leaves the requester to ask for what it
 * needs). So is one that pkt->more follows, while fewer than
 * SROCE_RC_ACK_COALESCE are unacknowledged: whatever the next request
 * gets (an ACK, a NAK, a READ response or an atomic ACK) covers this one
 * too, as a NIC's coalesced ACKs do; if this one asked, the next gets an
 * ACK whether it asks or not (@owed). A duplicate SEND or WRITE is ACKed
 * at once, with PSN epsn - 1, since its first ACK was evidently lost or
 * the requester probes for one (C9-105, as rxe). An atomic is always
 * answered at once, by an atomic ACK, new or duplicate. A READ gets no
 * plain ACK: its responses carry the AETH. UC has no ACKs. NAKs are sent
 * when they arise and are no business of this function, nor are dropped
 * packets.
 *
 * Return: true to send the ACK (the atomic ACK for an atomic) now.
 */
bool sroce_rc_ack_now(enum sroce_rc_psn_verdict verdict,
		      const struct sroce_pkt *pkt, u32 unacked, bool owed,
		      u32 every_n)
{
	u32 f = pkt->flags;

	if (!(f & SROCE_OPF_REQ) || (f & SROCE_OPF_READ) ||
	    (pkt->bth.opcode & SROCE_OPCODE_TRANSPORT_MASK) != SROCE_OPCODE_RC)
		return false;
	if (f & SROCE_OPF_ATOMIC)
		return verdict == SROCE_RC_PSN_EXPECTED ||
		       verdict == SROCE_RC_PSN_DUPLICATE;
	if (verdict == SROCE_RC_PSN_DUPLICATE)
		return true;
	if (verdict != SROCE_RC_PSN_EXPECTED)
		return false;
	if (pkt->more && unacked < SROCE_RC_ACK_COALESCE)
		return false;
	return pkt->bth.ackreq || owed || (every_n && unacked >= every_n);
}

/* IBTA's credit count encoding; code 31 means "invalid" */
static const u16 rc_credit_count[31] = {
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
	12288, 16384, 24576, 32768,
};

/**
 * sroce_rc_credits() - decode an ACK's credit count code
 * @code: the 5-bit value of an ACK syndrome; higher bits ignored
 *
 * Return: the receive WQEs the responder advertises, or
 * SROCE_RC_CREDITS_UNLIMITED for code 31 (no end-to-end flow control).
 */
u32 sroce_rc_credits(u8 code)
{
	code &= SROCE_AETH_VALUE_MASK;
	if (code == SROCE_AETH_CREDIT_INVALID)
		return SROCE_RC_CREDITS_UNLIMITED;
	return rc_credit_count[code];
}

/**
 * sroce_rc_ack_syn() - the AETH syndrome of an ACK
 * @credits: receive WQEs available, or SROCE_RC_CREDITS_UNLIMITED when the
 *           responder does no end-to-end flow control
 *
 * Rounds down to the largest encodable count, so a responder never
 * advertises more than it has. sroce advertises no credits (it uses an SRQ
 * or does not track them), so it passes SROCE_RC_CREDITS_UNLIMITED and gets
 * code 31, "invalid", as rxe does (AETH_ACK_UNLIMITED); requesters then send
 * without waiting for credits.
 *
 * Return: the syndrome byte.
 */
u8 sroce_rc_ack_syn(u32 credits)
{
	u8 code = 0;

	if (credits == SROCE_RC_CREDITS_UNLIMITED)
		return sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID);
	while (code + 1 < (u8)SROCE_AETH_CREDIT_INVALID &&
	       rc_credit_count[code + 1] <= credits)
		code++;
	return sroce_aeth_syn_ack(code);
}

/**
 * sroce_rc_aeth_decode() - what an AETH syndrome asks of the requester
 * @syndrome: the syndrome byte
 * @info: filled with the credits, RNR delay or error status
 *
 * NAK codes map to statuses as in rxe and ConnectX: invalid request to
 * REM_INV_REQ_ERR, remote access to REM_ACCESS_ERR, remote operational to
 * REM_OP_ERR, invalid RD request (RD only, never right on RC) to
 * REM_INV_RD_REQ_ERR. A reserved NAK code or syndrome type is an answer no
 * responder should give: BAD_RESP_ERR (rxe says REM_OP_ERR).
 *
 * Return: the kind of answer.
 */
enum sroce_rc_aeth_kind sroce_rc_aeth_decode(u8 syndrome,
					     struct sroce_rc_aeth_info *info)
{
	u8 value = sroce_aeth_syn_value(syndrome);

	info->credits = SROCE_RC_CREDITS_UNLIMITED;
	info->rnr_usec = 0;
	info->status = SROCE_WC_SUCCESS;
	switch (sroce_aeth_syn_type(syndrome)) {
	case SROCE_AETH_ACK:
		info->credits = sroce_rc_credits(value);
		return SROCE_RC_AETH_ACK;
	case SROCE_AETH_RNR_NAK:
		info->rnr_usec = sroce_rnr_timer_usec(value);
		return SROCE_RC_AETH_RNR;
	case SROCE_AETH_NAK:
		break;
	default:
		info->status = SROCE_WC_BAD_RESP_ERR;
		return SROCE_RC_AETH_FATAL;
	}
	switch (value) {
	case SROCE_NAK_PSN_SEQ_ERR:
		return SROCE_RC_AETH_SEQ_ERR;
	case SROCE_NAK_INVALID_REQ:
		info->status = SROCE_WC_REM_INV_REQ_ERR;
		break;
	case SROCE_NAK_REM_ACCESS_ERR:
		info->status = SROCE_WC_REM_ACCESS_ERR;
		break;
	case SROCE_NAK_REM_OP_ERR:
		info->status = SROCE_WC_REM_OP_ERR;
		break;
	case SROCE_NAK_INVALID_RD_REQ:
		info->status = SROCE_WC_REM_INV_RD_REQ_ERR;
		break;
	default:
		info->status = SROCE_WC_BAD_RESP_ERR;
		break;
	}
	return SROCE_RC_AETH_FATAL;
}

/* A READ response for packet k of @wqe: right place, right size, an ACK? */
static bool rc_read_resp_ok(const struct sroce_pkt *pkt, u8 syndrome,
			    const struct sroce_rc_wqe *wqe, u32 k, u32 n,
			    u32 pmtu)
{
	u32 pos = pkt->flags & SROCE_OPF_POS_MASK;

	/*
	 * The response ending the READ must be LAST or ONLY, and only it.
	 * The first must open a stream (FIRST or ONLY). A later one may be
	 * MIDDLE/LAST, or FIRST/ONLY too: a READ resent for its missing part
	 * is answered as a new READ by some responders and as a replay (the
	 * opcodes of the original) by others, such as rxe.
	 */
	if (!(pos & SROCE_OPF_LAST) != (k < n - 1))
		return false;
	if (!k && !(pos & SROCE_OPF_FIRST))
		return false;
	if (pkt->paylen != sroce_rc_payload(wqe->len, pmtu, k))
		return false;
	return pos == SROCE_OPF_MIDDLE ||
	       sroce_aeth_syn_type(syndrome) == SROCE_AETH_ACK;
}

/**
 * sroce_rc_comp_step() - what a response means for the oldest outstanding
 *                        work request
 * @pkt: the response (ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE or READ_RESPONSE_*)
 *       whose PSN sroce_rc_comp_psn() found VALID
 * @syndrome: its AETH syndrome (ignored for READ_RESPONSE_MIDDLE)
 * @una: the oldest unacknowledged PSN; for the WQE it lies in
 *       [first_psn, last PSN of @wqe]
 * @wqe: the oldest outstanding work request
 * @pmtu: path MTU in bytes
 * @out: the details; out->una is always set
 *
 * The engine calls this in a loop over its outstanding WQEs, oldest first,
 * moving to the next after COMPLETE, until anything else comes back. A
 * change of out->una is forward progress (sroce_rc_retry_progress()).
 *
 * Rules (IBTA 9.7, rxe's check_psn/check_ack):
 *  - A response about a PSN past this WQE implicitly acknowledges it, if
 *    it is a SEND or WRITE (coalesced ACKs, NAKs, and READ responses or
 *    atomic ACKs for later requests all do). A READ or atomic cannot be
 *    acknowledged without its data: its response was lost, so resend from
 *    una at once (an "implied NAK") rather than wait for the timer.
 *  - ACK at PSN p in this SEND/WRITE: acknowledges it up to p; p at its
 *    last PSN completes it. A plain ACK about a READ or atomic is the
 *    implied NAK again.
 *  - NAKs at PSN p in this WQE acknowledge what comes before p (nothing
 *    of a READ or atomic) and are for this WQE: RNR waits and resends from
 *    p, sequence error resends from p, the others complete it with an
 *    error status.
 *  - A READ response must be for this READ, at exactly una (in order;
 *    one past una means a response was lost or is late: it is dropped, and
 *    the timer or a later implied NAK resends, as rxe does), with the
 *    position and payload sroce_rc_payload() gives and an ACK syndrome. An
 *    atomic ACK must be for this atomic with an ACK syndrome. Anything else
 *    is a broken responder: BAD_RESP_ERR.
 *
 * Return: the action.
 */
enum sroce_rc_comp_act sroce_rc_comp_step(const struct sroce_pkt *pkt,
					  u8 syndrome, u32 una,
					  const struct sroce_rc_wqe *wqe,
					  u32 pmtu,
					  struct sroce_rc_comp_out *out)
{
	u32 n = sroce_rc_npsn(wqe->op, wqe->len, pmtu);
	u32 last = sroce_psn_add(wqe->first_psn, n - 1);
	bool rdatm = sroce_rc_op_rdatm(wqe->op);
	u32 psn = pkt->bth.psn, f = pkt->flags;
	struct sroce_rc_aeth_info info;
	u32 k;

	out->una = una;
	out->offset = 0;
	out->complete = 0;
	out->credits = SROCE_RC_CREDITS_UNLIMITED;
	out->rnr_usec = 0;
	out->status = SROCE_WC_SUCCESS;

	if (!(f & SROCE_OPF_RESP) || sroce_psn_before(psn, una))
		return SROCE_RC_COMP_DONE;
	if (sroce_psn_after(psn, last)) {
		if (rdatm)
			return SROCE_RC_COMP_RETRY;
		out->una = sroce_psn_next(last);
		return SROCE_RC_COMP_COMPLETE;
	}

	if (f & SROCE_OPF_READ) {
		k = sroce_psn_sub(psn, wqe->first_psn);
		if (wqe->op == SROCE_RC_OP_READ && psn != una)
			return SROCE_RC_COMP_DONE;
		if (wqe->op != SROCE_RC_OP_READ ||
		    !rc_read_resp_ok(pkt, syndrome, wqe, k, n, pmtu))
			goto bad_resp;
		out->una = sroce_psn_next(psn);
		out->offset = k * sroce_rc_pmtu(pmtu);
		out->complete = psn == last;
		return SROCE_RC_COMP_READ;
	}
	if (f & SROCE_OPF_ATOMIC) {
		if (!rdatm || wqe->op == SROCE_RC_OP_READ ||
		    sroce_aeth_syn_type(syndrome) != SROCE_AETH_ACK)
			goto bad_resp;
		out->una = sroce_psn_next(psn);
		return SROCE_RC_COMP_ATOMIC;
	}

	switch (sroce_rc_aeth_decode(syndrome, &info)) {
	case SROCE_RC_AETH_ACK:
		out->credits = info.credits;
		if (rdatm)
			return SROCE_RC_COMP_RETRY;
		out->una = sroce_psn_next(psn);
		return psn == last ? SROCE_RC_COMP_COMPLETE :
				     SROCE_RC_COMP_DONE;
	case SROCE_RC_AETH_RNR:
		out->una = rdatm ? una : psn;
		out->rnr_usec = info.rnr_usec;
		return SROCE_RC_COMP_RNR;
	case SROCE_RC_AETH_SEQ_ERR:
		out->una = rdatm ? una : psn;
		return SROCE_RC_COMP_RETRY;
	default:
		out->una = rdatm ? una : psn;
		out->status = info.status;
		return SROCE_RC_COMP_ERROR;
	}

bad_resp:
	out->status = SROCE_WC_BAD_RESP_ERR;
	return SROCE_RC_COMP_ERROR;
}

/**
 * sroce_rc_retry_init() - fill a retry budget from the QP's attributes
 * @r: the budget
 * @retry_cnt: the QP's retry_cnt, 0..7 (larger values count as 7)
 * @rnr_retry: the QP's rnr_retry, 0..7, 7 meaning no limit (larger: 7)
 */
void sroce_rc_retry_init(struct sroce_rc_retry *r, u8 retry_cnt,
			 u8 rnr_retry)
{
	r->retry_cnt = retry_cnt > 7 ? 7 : retry_cnt;
	r->rnr_retry = rnr_retry > 7 ? 7 : rnr_retry;
	sroce_rc_retry_progress(r);
}

/**
 * sroce_rc_retry_progress() - the window moved: restore the budget
 * @r: the budget
 *
 * IBTA counts retries per operation; like rxe and ConnectX, sroce restores
 * both counters whenever an acknowledgment moves una forward, so only
 * retries without progress in between add up to a failure. It also ends
 * the current resend, so a new NAK may start another.
 */
void sroce_rc_retry_progress(struct sroce_rc_retry *r)
{
	r->retry_left = r->retry_cnt;
	r->rnr_left = r->rnr_retry;
	r->retrying = 0;
}

/**
 * sroce_rc_retry_timeout() - the local ACK timer expired
 * @r: the budget
 *
 * A timeout always resends (even during a resend, which it evidently lost)
 * and costs one retry. retry_cnt N allows N timeouts without progress; the
 * next fails. Unlike rxe, retry_cnt 7 is 7 retries, not infinite: only
 * rnr_retry has an infinite value in IBTA.
 *
 * Return: GO, or EXCEEDED: complete the WQE with SROCE_WC_RETRY_EXC_ERR.
 */
enum sroce_rc_retry_act sroce_rc_retry_timeout(struct sroce_rc_retry *r)
{
	if (!r->retry_left)
		return SROCE_RC_RETRY_EXCEEDED;
	r->retry_left--;
	r->retrying = 1;
	return SROCE_RC_RETRY_GO;
}

/**
 * sroce_rc_retry_nak() - a NAK sequence error or an implied NAK arrived
 * @r: the budget
 *
 * Costs a retry like a timeout (IBTA: retry_cnt covers sequence errors;
 * rxe does the same), but only the first NAK of a resend does: the others
 * are about packets the resend is already sending again (rxe's
 * started_retry).
 *
 * Return: GO, IGNORE, or EXCEEDED: complete the WQE with
 * SROCE_WC_RETRY_EXC_ERR.
 */
enum sroce_rc_retry_act sroce_rc_retry_nak(struct sroce_rc_retry *r)
{
	if (r->retrying)
		return SROCE_RC_RETRY_IGNORE;
	return sroce_rc_retry_timeout(r);
}

/**
 * sroce_rc_retry_rnr() - an RNR NAK arrived
 * @r: the budget
 *
 * rnr_retry 7 never runs out. The wait that follows counts as a resend
 * under way, so that a NAK sequence error for the same PSN (from a
 * responder that NAKs the packets behind its RNR NAK) does not cut the wait
 * short. The engine stops the ACK timer while it waits.
 *
 * Return: GO (wait, then resend), or EXCEEDED: complete the WQE with
 * SROCE_WC_RNR_RETRY_EXC_ERR.
 */
enum sroce_rc_retry_act sroce_rc_retry_rnr(struct sroce_rc_retry *r)
{
	if (r->rnr_retry != SROCE_RC_RNR_INFINITE) {
		if (!r->rnr_left)
			return SROCE_RC_RETRY_EXCEEDED;
		r->rnr_left--;
	}
	r->retrying = 1;
	return SROCE_RC_RETRY_GO;
}

/**
 * sroce_rc_window_ack() - the send window after an acknowledgment
 * @window: the requester's window in PSNs (unacknowledged PSNs it may
 *          have in flight), SROCE_RC_WINDOW_MIN..SROCE_RC_WINDOW_MAX
 * @acked: PSNs the acknowledgment moved una by
 *
 * Not IBTA: a software NIC's defence against the receive queues of the
 * host it runs on (a veth peer drops what exceeds netdev_max_backlog, 1000
 * packets per CPU, shared by every QP). The window grows by what was
 * acknowledged, so it doubles each round trip up to the maximum, as TCP's
 * slow start; losses shrink it (sroce_rc_window_loss()). Without this,
 * QPs that lose their windows together resend them together, lose them
 * again, and run out of retries.
 *
 * Return: the new window.
 */
u32 sroce_rc_window_ack(u32 window, u32 acked)
{
	if (window < SROCE_RC_WINDOW_MIN)
		window = SROCE_RC_WINDOW_MIN;
	if (acked >= SROCE_RC_WINDOW_MAX ||
	    window + acked >= SROCE_RC_WINDOW_MAX)
		return SROCE_RC_WINDOW_MAX;
	return window + acked;
}

/**
 * sroce_rc_window_loss() - the send window after a loss
 * @window: the window in PSNs
 * @timeout: the loss was found by the ACK timer (else by a NAK sequence
 *           error or an implied NAK)
 *
 * A NAK halves the window; a timeout, which means nothing at all came
 * back for a whole timeout, restarts it from the minimum.
 *
 * Return: the new window, at least SROCE_RC_WINDOW_MIN.
 */
u32 sroce_rc_window_loss(u32 window, bool timeout)
{
	if (timeout || window / 2 < SROCE_RC_WINDOW_MIN)
		return SROCE_RC_WINDOW_MIN;
	return window / 2;
}

/**
 * sroce_rc_ack_timeout_ns() - the local ACK timeout
 * @timeout: the QP's 5-bit timeout attribute
 *
 * IBTA 9.7.6: 4.096 us * 2^@timeout, 0 meaning no timer. Two caps:
 * codes below SROCE_RC_TIMEOUT_MIN_CODE (8, 1.048576 ms) count as 8, since
 * a software NIC's round trip includes softirq and scheduling delays of
 * that order, and shorter timers would resend (and use up retry_cnt) on a
 * healthy link; rxe rounds up to a jiffy, 1 to 10 ms. Codes above 31 do not
 * fit the field and count as 31 (2^31 * 4.096 us, about 2.4 hours), not
 * as infinite. Long timeouts are left alone: long-haul links use them.
 *
 * Return: nanoseconds, 0 for no timer.
 */
u64 sroce_rc_ack_timeout_ns(u8 timeout)
{
	if (!timeout)
		return 0;
	if (timeout < SROCE_RC_TIMEOUT_MIN_CODE)
		timeout = SROCE_RC_TIMEOUT_MIN_CODE;
	if (timeout > SROCE_RC_TIMEOUT_MAX_CODE)
		timeout = SROCE_RC_TIMEOUT_MAX_CODE;
	return 4096ULL << timeout;
}
