// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_resp: the RC/UC responder's decisions over a fuzzed stream of
 * requests, driven as kernel/rcresp.c drives them: the PSN against the
 * expected PSN (sroce_rc_resp_psn(), or UC's resynchronisation), the
 * transport checks (sroce_rc_resp_check()), the execution's outcome
 * (fuzzed: done, RNR, access or operational error), then
 * sroce_rc_resp_accept(), the MSN and the ACK decision.
 *
 * Input: QP type (bit 0: UC), path MTU (0..4096; below 256 counts as 256),
 * the initial expected PSN; then events: mostly one request each, opcode
 * (any that sroce_pkt_parse() accepts), PSN (at, near, or far from the
 * expected one), payload length and RETH length (each picked near the
 * interesting edges or raw), AckReq and the execution's outcome.
 *
 * Checked, besides ASan/UBSan: sroce_rc_resp_check()'s verdict against a
 * model of the rules in its comment; every PSN stays in 24 bits; the PSN
 * verdict agrees with PSN order and at most one NAK goes out per gap;
 * duplicates and out-of-order requests change no state but the NAK flag;
 * an accepted packet follows its message's opcodes (same transport and
 * kind, FIRST ... MIDDLE ... LAST), has the payload its position allows,
 * and a WRITE message writes exactly its RETH length, never a byte past it
 * (the remaining count never wraps); a READ takes 1..2^23 PSNs, as many
 * as its responses; an atomic needs one aligned 8-byte word; the MSN
 * moves by one per completed message; UC sends no ACK, a READ no plain
 * ACK. A message built by sroce's own requester
 * (sroce_rc_opcode(), sroce_rc_payload()) is accepted packet by packet;
 * an ACK never advertises more credits than the responder has.
 */
#include <string.h>

#include "fuzz.h"
#include "hdr.h"
#include "opcode.h"
#include "pkt.h"
#include "psn.h"
#include "rc.h"

static u8 valid_ops[256];
static unsigned int nvalid;

static void init_ops(void)
{
	unsigned int op;

	if (nvalid)
		return;
	for (op = 0; op < 256; op++)
		if (sroce_opcode_valid(op))
			valid_ops[nvalid++] = op;
}

/* A value near an edge, or raw */
static u32 pick_len(struct fz *f, u32 pmtu, u32 other)
{
	u8 sel = fz_u8(f);
	u32 k = fz_u8(f);

	switch (sel % 10) {
	case 0: return pmtu;
	case 1: return pmtu - 1;
	case 2: return pmtu + 1;
	case 3: return 0;
	case 4: return other;
	case 5: return k * pmtu + (sel >> 4);
	case 6: return SROCE_RC_MAX_MSG - (sel >> 4) + 8;
	case 7: return 0xffffffffU - (sel >> 4);
	case 8: return fz_u16(f);
	default: return fz_u32(f);
	}
}

/* The responder's state, as struct sroce_resp keeps it */
struct resp {
	bool uc, nak_sent, dead;
	u32 pmtu, epsn, msn;
	struct sroce_rc_resp_msg msg;
	/* the model: the message in progress, as accepted */
	u8 first_op;		/* opcode that opened it, NONE if none */
	u32 wlen, written;	/* WRITE: RETH length, bytes so far */
	unsigned int naks;	/* NAKs since the expected PSN last came */
};

static void msg_reset(struct resp *s)
{
	sroce_rc_resp_msg_reset(&s->msg);
	s->first_op = SROCE_OPCODE_NONE;
}

/* PSN stage; false: dropped (duplicate, NAKed, or lost UC message) */
static bool resp_psn(struct resp *s, const struct sroce_pkt *p)
{
	enum sroce_rc_psn_verdict v;
	bool before = s->nak_sent;
	s32 d = sroce_psn_cmp(p->bth.psn, s->epsn);

	if (s->uc) {
		if (p->bth.psn == s->epsn)
			return true;
		msg_reset(s);
		if (!(p->flags & SROCE_OPF_FIRST))
			return false;
		s->epsn = p->bth.psn;
		return true;
	}
	v = sroce_rc_resp_psn(p->bth.psn, s->epsn, &s->nak_sent);
	switch (v) {
	case SROCE_RC_PSN_EXPECTED:
		FZ_ASSERT(d == 0 && !s->nak_sent, "EXPECTED for psn %#x epsn %#x",
			  p->bth.psn, s->epsn);
		s->naks = 0;
		return true;
	case SROCE_RC_PSN_DUPLICATE:
		FZ_ASSERT(d < 0 && s->nak_sent == before,
			  "DUPLICATE for psn %#x epsn %#x", p->bth.psn, s->epsn);
		FZ_ASSERT(sroce_rc_ack_now(v, p, 1, false, 0) ==
			  !!((p->flags & SROCE_OPF_REQ) &&
			     !(p->flags & SROCE_OPF_READ) &&
			     (p->bth.opcode & 0xe0) == 0),
			  "duplicate opcode %#x: ACK decision", p->bth.opcode);
		return false;
	case SROCE_RC_PSN_NAK_SEQ:
		FZ_ASSERT(d > 0 && !before && s->nak_sent,
			  "NAK_SEQ for psn %#x epsn %#x, flag was %d",
			  p->bth.psn, s->epsn, before);
		FZ_ASSERT(++s->naks == 1, "%u NAKs for one gap at %#x",
			  s->naks, s->epsn);
		return false;
	case SROCE_RC_PSN_DROP:
		FZ_ASSERT(d > 0 && before && s->nak_sent,
			  "DROP for psn %#x epsn %#x, flag was %d", p->bth.psn,
			  s->epsn, before);
		return false;
	}
	FZ_ASSERT(0, "verdict %d", v);
	return false;
}

/*
 * The verdict sroce_rc_resp_check() should give, from the rules in its
 * comment, against the model's message in progress.
 */
static enum sroce_rc_req_verdict ref_check(const struct resp *s,
					   const struct sroce_pkt *p,
					   u32 reth_len, u32 pmtu)
{
	enum sroce_rc_req_verdict bad = s->uc ? SROCE_RC_REQ_DROP :
					SROCE_RC_REQ_NAK_INVALID;
	u32 f = p->flags, pos = f & SROCE_OPF_POS_MASK;
	u32 same = SROCE_OPF_KIND_MASK | SROCE_OPF_REQ;
	u32 due = s->wlen - s->written;
	u8 op = p->bth.opcode;

	if (!(f & SROCE_OPF_REQ) ||
	    (op & 0xe0) != (s->uc ? SROCE_OPCODE_UC : SROCE_OPCODE_RC))
		return SROCE_RC_REQ_DROP;
	if (pos & SROCE_OPF_FIRST) {
		if (s->first_op != SROCE_OPCODE_NONE)
			return bad;
	} else if (s->first_op == SROCE_OPCODE_NONE ||
		   (sroce_opcode_flags(s->first_op) & same) != (f & same)) {
		return bad;
	}
	if (pos == SROCE_OPF_FIRST || pos == SROCE_OPF_MIDDLE) {
		if (p->paylen != pmtu)
			return bad;
	} else if (p->paylen > pmtu || (pos == SROCE_OPF_LAST && !p->paylen)) {
		return bad;
	}
	if ((f & SROCE_OPF_RETH) && reth_len > SROCE_RC_MAX_MSG)
		return bad;
	if (f & SROCE_OPF_WRITE) {
		if (pos == SROCE_OPF_FIRST && reth_len <= pmtu)
			return bad;
		if (pos == SROCE_OPF_ONLY && reth_len != p->paylen)
			return bad;
		if (pos == SROCE_OPF_MIDDLE && due <= pmtu)
			return bad;
		if (pos == SROCE_OPF_LAST && due != p->paylen)
			return bad;
	}
	return SROCE_RC_REQ_OK;
}

/* What an accepted packet must look like, and the model's bookkeeping */
static void resp_accepted(struct resp *s, const struct sroce_pkt *p,
			  u32 reth_len, u32 pmtu)
{
	u32 f = p->flags, pos = f & SROCE_OPF_POS_MASK;
	u32 same = SROCE_OPF_KIND_MASK | SROCE_OPF_REQ;
	u8 op = p->bth.opcode;
	u32 npsn, msn;

	FZ_ASSERT(f & SROCE_OPF_REQ, "accepted non-request %#x", op);
	FZ_ASSERT((op & 0xe0) == (s->uc ? 0x20 : 0x00),
		  "accepted opcode %#x on %s", op, s->uc ? "UC" : "RC");
	if (pos & SROCE_OPF_FIRST) {
		FZ_ASSERT(s->first_op == SROCE_OPCODE_NONE,
			  "opcode %#x starts a message inside one", op);
		s->first_op = op;
		s->wlen = reth_len;
		s->written = 0;
	} else {
		u32 ff = sroce_opcode_flags(s->first_op);

		FZ_ASSERT(s->first_op != SROCE_OPCODE_NONE,
			  "opcode %#x continues no message", op);
		FZ_ASSERT((ff & same) == (f & same) &&
			  (s->first_op & 0xe0) == (op & 0xe0),
			  "opcode %#x continues a message opened by %#x", op,
			  s->first_op);
	}
	if (pos & SROCE_OPF_LAST)
		FZ_ASSERT(p->paylen <= pmtu && (pos == SROCE_OPF_ONLY ||
						p->paylen),
			  "opcode %#x with %u bytes, pmtu %u", op, p->paylen,
			  pmtu);
	else
		FZ_ASSERT(p->paylen == pmtu, "opcode %#x with %u bytes, pmtu %u",
			  op, p->paylen, pmtu);

	if (f & SROCE_OPF_WRITE) {
		FZ_ASSERT(s->wlen <= SROCE_RC_MAX_MSG &&
			  p->paylen <= s->wlen - s->written,
			  "WRITE of %u bytes writes %u at %u", s->wlen,
			  p->paylen, s->written);
		s->written += p->paylen;
		if (pos & SROCE_OPF_LAST)
			FZ_ASSERT(s->written == s->wlen,
				  "WRITE of %u bytes ended after %u", s->wlen,
				  s->written);
	}
	if (f & (SROCE_OPF_READ | SROCE_OPF_ATOMIC))
		FZ_ASSERT(pos == SROCE_OPF_ONLY, "opcode %#x", op);
	if (f & SROCE_OPF_READ)
		FZ_ASSERT(reth_len <= SROCE_RC_MAX_MSG, "READ of %u bytes",
			  reth_len);

	msn = sroce_rc_msn_next(s->msn, op);
	npsn = sroce_rc_resp_accept(&s->msg, p, reth_len, s->pmtu);
	FZ_ASSERT(msn == ((s->msn + !!(pos & SROCE_OPF_LAST)) &
			  SROCE_MSN_MASK), "MSN %#x after %#x", msn, s->msn);
	s->msn = msn;
	if (f & SROCE_OPF_READ) {
		u32 lastlen = sroce_rc_payload(reth_len, s->pmtu, npsn - 1);

		FZ_ASSERT(npsn >= 1 && npsn <= SROCE_RC_MAX_INFLIGHT &&
			  npsn == sroce_rc_npkts(reth_len, s->pmtu),
			  "READ of %u bytes takes %u PSNs", reth_len, npsn);
		/* Its responses: full packets, then the rest, nothing more. */
		FZ_ASSERT(lastlen <= pmtu && (lastlen || !reth_len) &&
			  (u64)(npsn - 1) * pmtu + lastlen == reth_len &&
			  sroce_rc_payload(reth_len, s->pmtu, npsn) == 0 &&
			  (npsn == 1 ||
			   sroce_rc_payload(reth_len, s->pmtu, 0) == pmtu),
			  "READ of %u bytes: %u responses, last %u", reth_len,
			  npsn, lastlen);
	} else {
		FZ_ASSERT(npsn == 1, "opcode %#x takes %u PSNs", op, npsn);
	}
	if (f & SROCE_OPF_ATOMIC) {
		/* rcresp.c: one aligned 8-byte word, or NAK invalid request */
		u64 va = (u64)reth_len << 32 | s->epsn << 3 | (p->bth.psn & 7);

		FZ_ASSERT(sroce_rc_access(op) == SROCE_ACCESS_REMOTE_ATOMIC,
			  "atomic access");
		FZ_ASSERT(sroce_rc_atomic_ok(va, SROCE_RC_ATOMIC_BYTES) ==
			  !(va & 7) && (sroce_rc_atomic_ok(va, reth_len) ==
					(!(va & 7) && reth_len == 8)),
			  "atomic at %#llx, %u bytes", (unsigned long long)va,
			  reth_len);
	}
	s->epsn = sroce_psn_add(s->epsn, npsn);
	s->naks = 0;

	if (pos & SROCE_OPF_LAST) {
		s->first_op = SROCE_OPCODE_NONE;
		FZ_ASSERT(s->msg.opcode == SROCE_OPCODE_NONE && !s->msg.resid,
			  "message state %#x/%u after its end", s->msg.opcode,
			  s->msg.resid);
	} else {
		FZ_ASSERT(s->msg.opcode == op &&
			  sroce_opcode_in_progress(s->msg.opcode),
			  "message state %#x after %#x", s->msg.opcode, op);
		FZ_ASSERT(!(f & SROCE_OPF_WRITE) ||
			  (s->msg.resid == s->wlen - s->written &&
			   s->msg.resid > 0),
			  "WRITE resid %u, model %u", s->msg.resid,
			  s->wlen - s->written);
	}
	FZ_ASSERT(sroce_rc_ack_now(SROCE_RC_PSN_EXPECTED, p, 1, false, 0) ==
		  ((!s->uc && !(f & SROCE_OPF_READ) && p->bth.ackreq) ||
		   (f & SROCE_OPF_ATOMIC)), "ACK decision for %#x", op);
}

static void resp_one(struct resp *s, struct fz *f)
{
	u8 op = valid_ops[fz_u8(f) % nvalid], psel = fz_u8(f);
	u8 ctl = fz_u8(f);
	u32 pmtu = s->pmtu < SROCE_RC_MIN_PMTU ? SROCE_RC_MIN_PMTU : s->pmtu;
	enum sroce_rc_req_verdict v;
	struct sroce_pkt p;
	u32 reth_len;
	s32 delta;

	memset(&p, 0, sizeof(p));
	p.bth.opcode = op;
	p.bth.ackreq = ctl & 1;
	switch (psel & 3) {
	case 0:
		p.bth.psn = s->epsn;
		break;
	case 1:
		delta = (int8_t)fz_u8(f);
		p.bth.psn = sroce_psn_add(s->epsn, (u32)delta);
		break;
	case 2:
		p.bth.psn = sroce_psn_add(s->epsn, SROCE_PSN_HALF +
					  (u32)(int8_t)fz_u8(f));
		break;
	default:
		p.bth.psn = fz_u24(f);
		break;
	}
	/* What sroce_pkt_parse() gives: table flags, a UDP-sized payload */
	p.flags = sroce_opcode_flags(op);
	p.hdr_len = sroce_opcode_hdr_len(op);
	p.paylen = pick_len(f, pmtu, s->uc ? 0 : s->msg.resid);
	if (!(p.flags & SROCE_OPF_PAYLOAD))
		p.paylen = 0;
	else if (p.paylen > 0xffff - p.hdr_len - 4)
		p.paylen &= 0x3fff;
	p.bth.pad = -p.paylen & 3;
	reth_len = pick_len(f, pmtu, p.paylen);

	if (!(p.flags & SROCE_OPF_REQ) ||
	    (op & 0xe0) != (s->uc ? SROCE_OPCODE_UC : SROCE_OPCODE_RC)) {
		/* recv.c sends it elsewhere; the check must drop it. */
		FZ_ASSERT(sroce_rc_resp_check(&s->msg, &p, reth_len, s->pmtu,
					      s->uc ? SROCE_QPT_UC :
					      SROCE_QPT_RC) ==
			  SROCE_RC_REQ_DROP, "opcode %#x on %s not dropped", op,
			  s->uc ? "UC" : "RC");
		FZ_ASSERT(sroce_rc_resp_check(&s->msg, &p, reth_len, s->pmtu,
					      (enum sroce_qp_type)(ctl % 7 + 2)) ==
			  SROCE_RC_REQ_DROP, "opcode %#x, QP type %u", op,
			  ctl % 7 + 2);
		return;
	}
	if (!resp_psn(s, &p))
		return;
	v = sroce_rc_resp_check(&s->msg, &p, reth_len, s->pmtu,
				s->uc ? SROCE_QPT_UC : SROCE_QPT_RC);
	FZ_ASSERT(v == ref_check(s, &p, reth_len, pmtu),
		  "verdict %d, the rules say %d: opcode %#x on %s, %u bytes, RETH %u, pmtu %u, open %#x, due %u",
		  v, ref_check(s, &p, reth_len, pmtu), op, s->uc ? "UC" : "RC",
		  p.paylen, reth_len, pmtu, s->first_op, s->wlen - s->written);
	if (v != SROCE_RC_REQ_OK) {
		if (s->uc)
			msg_reset(s);
		else
			s->dead = true;		/* NAK invalid request */
		return;
	}
	switch ((ctl >> 1) & 7) {
	case 1:		/* no receive WQE: RNR NAK, or UC drops the message */
		if (s->uc) {
			msg_reset(s);
		} else {
			s->nak_sent = true;
			s->naks = 1;	/* it counts as the gap's NAK */
		}
		return;
	case 2:		/* access or operational error */
		if (s->uc)
			msg_reset(s);
		else
			s->dead = true;
		return;
	default:
		break;
	}
	resp_accepted(s, &p, reth_len, pmtu);
}

/*
 * A message as sroce's requester builds it (sroce_rc_opcode(),
 * sroce_rc_payload(), sroce_rc_ackreq()), sent in order between messages:
 * the responder must accept every packet of it.
 */
static void resp_own_message(struct resp *s, struct fz *f)
{
	enum sroce_qp_type qpt = s->uc ? SROCE_QPT_UC : SROCE_QPT_RC;
	enum sroce_rc_op op = (enum sroce_rc_op)(fz_u8(f) % SROCE_RC_OP_COUNT);
	u32 pmtu = s->pmtu < SROCE_RC_MIN_PMTU ? SROCE_RC_MIN_PMTU : s->pmtu;
	u32 len = fz_u16(f) % (16 * pmtu + 1), n, i, sent = 0;
	u8 every = fz_u8(f) % 8;
	bool want = fz_u8(f) & 1;

	if (s->msg.opcode != SROCE_OPCODE_NONE)
		return;
	if (sroce_rc_opcode(qpt, op, true, true) == SROCE_OPCODE_NONE) {
		FZ_ASSERT(s->uc && (op == SROCE_RC_OP_SEND_INV ||
				    sroce_rc_op_rdatm(op)),
			  "no opcode for op %d on %s", op, s->uc ? "UC" : "RC");
		return;
	}
	if (op == SROCE_RC_OP_CMP_SWAP || op == SROCE_RC_OP_FETCH_ADD)
		len = SROCE_RC_ATOMIC_BYTES;
	n = sroce_rc_op_rdatm(op) ? 1 : sroce_rc_npkts(len, s->pmtu);
	for (i = 0; i < n; i++) {
		bool first = !i, last = i == n - 1;
		struct sroce_pkt p;
		enum sroce_rc_req_verdict v;
		bool nak = s->nak_sent;

		memset(&p, 0, sizeof(p));
		p.bth.opcode = sroce_rc_opcode(qpt, op, first, last);
		p.bth.psn = s->epsn;
		p.bth.ackreq = sroce_rc_ackreq(qpt, last, want, false, sent,
					       every);
		sent = p.bth.ackreq ? 0 : sent + 1;
		p.flags = sroce_opcode_flags(p.bth.opcode);
		p.hdr_len = sroce_opcode_hdr_len(p.bth.opcode);
		p.paylen = sroce_rc_op_rdatm(op) ? 0 :
			   sroce_rc_payload(len, s->pmtu, i);
		p.bth.pad = -p.paylen & 3;
		FZ_ASSERT(p.flags && !!(p.flags & SROCE_OPF_FIRST) == first &&
			  !!(p.flags & SROCE_OPF_LAST) == last &&
			  (!p.bth.ackreq || !s->uc),
			  "op %d packet %u of %u: opcode %#x", op, i, n,
			  p.bth.opcode);
		if (!s->uc) {
			FZ_ASSERT(sroce_rc_resp_psn(p.bth.psn, s->epsn, &nak) ==
				  SROCE_RC_PSN_EXPECTED, "own packet's PSN");
			s->nak_sent = false;
			s->naks = 0;
		}
		v = sroce_rc_resp_check(&s->msg, &p, len, s->pmtu, qpt);
		FZ_ASSERT(v == SROCE_RC_REQ_OK,
			  "own op %d of %u bytes, packet %u of %u (opcode %#x, %u bytes, pmtu %u): verdict %d",
			  op, len, i, n, p.bth.opcode, p.paylen, pmtu, v);
		resp_accepted(s, &p, len, pmtu);
	}
}

/* The responder's ACK syndrome: never more credits than there are */
static void resp_credits(u32 credits)
{
	u8 syn = sroce_rc_ack_syn(credits);
	u8 code = syn & SROCE_AETH_VALUE_MASK;

	FZ_ASSERT(sroce_aeth_syn_type(syn) == SROCE_AETH_ACK && !(syn & 0x80),
		  "ACK syndrome %#x", syn);
	if (credits == SROCE_RC_CREDITS_UNLIMITED) {
		FZ_ASSERT(code == SROCE_AETH_CREDIT_INVALID, "code %u", code);
		return;
	}
	FZ_ASSERT(code < SROCE_AETH_CREDIT_INVALID &&
		  sroce_rc_credits(code) <= credits &&
		  (code == SROCE_AETH_CREDIT_INVALID - 1 ||
		   sroce_rc_credits(code + 1) > credits),
		  "%u credits encoded as code %u (%u)", credits, code,
		  sroce_rc_credits(code));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct resp s;
	unsigned int n;

	init_ops();
	memset(&s, 0, sizeof(s));
	s.uc = fz_u8(&f) & 1;
	s.pmtu = fz_u16(&f) % 4097;
	s.epsn = fz_u24(&f);
	s.msn = fz_u24(&f);
	msg_reset(&s);
	for (n = 0; f.n && !s.dead && n < 4096; n++) {
		u8 ev = fz_u8(&f);

		if (ev < 0xe0)
			resp_one(&s, &f);
		else if (ev < 0xf0)
			resp_own_message(&s, &f);
		else
			resp_credits(fz_u32(&f));
		FZ_ASSERT(sroce_psn_valid(s.epsn) && s.msn <= SROCE_MSN_MASK,
			  "epsn %#x msn %#x", s.epsn, s.msn);
		FZ_ASSERT(s.msg.opcode == SROCE_OPCODE_NONE ||
			  sroce_opcode_in_progress(s.msg.opcode),
			  "message state %#x", s.msg.opcode);
		FZ_ASSERT((s.msg.opcode == SROCE_OPCODE_NONE) ==
			  (s.first_op == SROCE_OPCODE_NONE),
			  "message state %#x, model %#x", s.msg.opcode,
			  s.first_op);
	}
	return 0;
}
