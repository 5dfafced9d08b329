// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_comp: the RC requester's completer over a fuzzed set of outstanding
 * work requests and a fuzzed stream of events, driven as kernel/comp.c and
 * kernel/req.c drive the core: packets sent (nxt moves), responses
 * (ACKs, NAKs, RNR NAKs, READ responses, atomic ACKs, with any syndrome,
 * PSN and payload length) filtered by sroce_rc_comp_psn() and walked
 * through sroce_rc_comp_step() oldest WQE first, ACK timeouts; with the
 * retry budget and the send window updated as the engine updates them.
 *
 * Input: path MTU (0..4096), first PSN, retry_cnt, rnr_retry, the number
 * of WQEs (1..32) and each one's operation and length (edges or raw, at
 * most 2^31, and at most 2^23 PSNs in all); then events, 1..8 bytes each:
 * send packets, a response, a good answer to the oldest WQE, a timeout.
 *
 * Checked, besides ASan/UBSan: una never moves back and never passes nxt,
 * nxt - una <= 2^23; comp_psn's verdict agrees with PSN order; each step
 * is about the oldest WQE, with una inside it; a WQE completes only once
 * all its PSNs were sent, in posting order, never more than were posted;
 * a SEND or WRITE completes by an ACK (or a later response), a READ only
 * by its last response and an atomic only by its atomic ACK; READ data
 * lands in order, inside the WQE's buffer, and fills it exactly; a READ
 * or an atomic never moves una by an ACK or NAK; RNR waits what the timer
 * code says; errors carry an error status; credits decode; the window
 * stays in 8..128 and the retry counters within their attributes; a QP
 * fails after exactly retry_cnt resends (rnr_retry RNR NAKs, never for 7)
 * without progress, and a NAK during a resend starts no other;
 * a walk ends within the WQEs posted. A good responder's answer to the
 * oldest WQE (its ACK, READ responses or atomic ACK) completes it.
 */
#include <string.h>

#include "fuzz.h"
#include "hdr.h"
#include "opcode.h"
#include "pkt.h"
#include "psn.h"
#include "rc.h"

#define MAX_WQE 32

struct wqe {
	struct sroce_rc_wqe w;
	u32 npsn, last;
	u32 read_off;		/* READ: bytes placed so far */
};

struct req {
	u32 pmtu;		/* as given to the core */
	u32 mtu;		/* as the core uses it */
	struct wqe q[MAX_WQE];
	unsigned int nq;	/* posted */
	unsigned int head;	/* oldest not completed */
	unsigned int cur;	/* next to send */
	u32 cur_pkt;		/* its next packet */
	u32 una, nxt, window;
	struct sroce_rc_retry r;
	u8 retry_cnt, rnr_retry;	/* the attributes, as given */
	unsigned int retries, rnrs;	/* resends since the last progress */
	bool resending;
	bool dead;
};

static u32 pick_wqe_len(struct fz *f, u32 mtu)
{
	u8 sel = fz_u8(f);

	switch (sel % 8) {
	case 0: return sel >> 3;
	case 1: return mtu * (sel >> 3);
	case 2: return mtu * (sel >> 3) + 1;
	case 3: return mtu * (sel >> 3) - 1;
	case 4: return SROCE_RC_ATOMIC_BYTES;
	case 5: return fz_u16(f);
	case 6: return SROCE_RC_MAX_MSG - (sel >> 3);
	default: return fz_u32(f) & (SROCE_RC_MAX_MSG * 2 - 1);
	}
}

static void post(struct req *q, struct fz *f)
{
	u32 psn = q->una, total = 0;
	unsigned int i, n = fz_u8(f) % MAX_WQE + 1;

	for (i = 0; i < n; i++) {
		struct wqe *e = &q->q[q->nq];

		e->w.op = (enum sroce_rc_op)(fz_u8(f) % SROCE_RC_OP_COUNT);
		e->w.len = pick_wqe_len(f, q->mtu);
		if (e->w.len > SROCE_RC_MAX_MSG)
			e->w.len = SROCE_RC_MAX_MSG;
		/* req.c takes no multi-packet atomic; len is the buffer's. */
		if (e->w.op == SROCE_RC_OP_CMP_SWAP ||
		    e->w.op == SROCE_RC_OP_FETCH_ADD)
			e->w.len = SROCE_RC_ATOMIC_BYTES;
		e->npsn = sroce_rc_npsn(e->w.op, e->w.len, q->pmtu);
		FZ_ASSERT(e->npsn >= 1 && e->npsn <= SROCE_RC_MAX_INFLIGHT,
			  "op %d len %u takes %u PSNs", e->w.op, e->w.len,
			  e->npsn);
		/* The requester keeps nxt - una <= 2^23 (rc.h). */
		if (total + e->npsn > SROCE_RC_MAX_INFLIGHT)
			break;
		total += e->npsn;
		e->w.first_psn = psn;
		e->last = sroce_psn_add(psn, e->npsn - 1);
		e->read_off = 0;
		psn = sroce_psn_add(psn, e->npsn);
		q->nq++;
	}
}

/* req.c sends packet by packet; a READ or an atomic is one packet. */
static void send_some(struct req *q, unsigned int n)
{
	while (n-- && q->cur < q->nq) {
		struct wqe *e = &q->q[q->cur];
		bool rdatm = sroce_rc_op_rdatm(e->w.op);
		u32 npkts = rdatm ? 1 : sroce_rc_npkts(e->w.len, q->pmtu);
		u32 psn;

		if (++q->cur_pkt < npkts) {
			psn = sroce_psn_add(e->w.first_psn, q->cur_pkt);
		} else {
			psn = sroce_psn_add(e->w.first_psn, e->npsn);
			q->cur++;
			q->cur_pkt = 0;
		}
		if (sroce_psn_after(psn, q->nxt))
			q->nxt = psn;
	}
}

static void check_window(const struct req *q)
{
	FZ_ASSERT(q->window >= SROCE_RC_WINDOW_MIN &&
		  q->window <= SROCE_RC_WINDOW_MAX, "window %u", q->window);
	FZ_ASSERT(q->r.retry_left <= q->r.retry_cnt && q->r.retry_cnt <= 7 &&
		  q->r.rnr_left <= q->r.rnr_retry && q->r.rnr_retry <= 7,
		  "retry %u/%u rnr %u/%u", q->r.retry_left, q->r.retry_cnt,
		  q->r.rnr_left, q->r.rnr_retry);
}

static void retire(struct req *q, const struct wqe *e)
{
	FZ_ASSERT(q->head < q->nq && e == &q->q[q->head],
		  "completing WQE %ld, head %u of %u", (long)(e - q->q),
		  q->head, q->nq);
	FZ_ASSERT(sroce_psn_before(e->last, q->nxt),
		  "WQE %u completes, its last PSN %#x not sent (nxt %#x)",
		  q->head, e->last, q->nxt);
	FZ_ASSERT(q->una == sroce_psn_next(e->last),
		  "WQE %u completes at una %#x, its last PSN %#x", q->head,
		  q->una, e->last);
	if (e->w.op == SROCE_RC_OP_READ)
		FZ_ASSERT(e->read_off == e->w.len,
			  "READ of %u bytes completes with %u", e->w.len,
			  e->read_off);
	q->head++;
	if (q->cur < q->head) {
		/* Acknowledged while the cursor was rewound to it. */
		q->cur = q->head;
		q->cur_pkt = 0;
	}
}

/*
 * The retry budget: retry_cnt resends (timeouts and sequence NAKs, one per
 * resend) without progress, the next fails; as many RNR NAKs for
 * rnr_retry, or any number for 7; NAKs during a resend are ignored.
 */
static void retry_progress(struct req *q)
{
	sroce_rc_retry_progress(&q->r);
	q->retries = 0;
	q->rnrs = 0;
	q->resending = false;
}

static bool retry_act(struct req *q, enum sroce_rc_retry_act a,
		      const char *what)
{
	u8 cnt = q->retry_cnt > 7 ? 7 : q->retry_cnt;

	FZ_ASSERT(a == SROCE_RC_RETRY_GO || a == SROCE_RC_RETRY_IGNORE ||
		  a == SROCE_RC_RETRY_EXCEEDED, "%s: %d", what, a);
	if (a == SROCE_RC_RETRY_IGNORE)
		return true;
	if (a == SROCE_RC_RETRY_EXCEEDED) {
		FZ_ASSERT(q->retries == cnt, "%s: failed after %u of %u retries",
			  what, q->retries, cnt);
		return false;
	}
	FZ_ASSERT(++q->retries <= cnt, "%s: retry %u of %u", what, q->retries,
		  cnt);
	q->resending = true;
	return true;
}

static bool retry_timeout(struct req *q)
{
	return retry_act(q, sroce_rc_retry_timeout(&q->r), "timeout");
}

static bool retry_nak(struct req *q)
{
	bool was = q->resending;
	enum sroce_rc_retry_act a = sroce_rc_retry_nak(&q->r);

	FZ_ASSERT((a == SROCE_RC_RETRY_IGNORE) == was,
		  "NAK during a resend: %d, resending %d", a, was);
	return retry_act(q, a, "NAK");
}

static bool retry_rnr(struct req *q)
{
	u8 cnt = q->rnr_retry > 7 ? 7 : q->rnr_retry;
	enum sroce_rc_retry_act a = sroce_rc_retry_rnr(&q->r);

	if (a == SROCE_RC_RETRY_EXCEEDED) {
		FZ_ASSERT(cnt != SROCE_RC_RNR_INFINITE && q->rnrs == cnt,
			  "RNR: failed after %u of %u", q->rnrs, cnt);
		return false;
	}
	FZ_ASSERT(a == SROCE_RC_RETRY_GO &&
		  (cnt == SROCE_RC_RNR_INFINITE || ++q->rnrs <= cnt),
		  "RNR: %d, %u of %u", a, q->rnrs, cnt);
	q->resending = true;
	return true;
}

/* One step's decision, against the rules in rc.h */
static void check_step(struct req *q, struct wqe *e,
		       const struct sroce_pkt *p, u8 syn,
		       enum sroce_rc_comp_act act,
		       const struct sroce_rc_comp_out *o)
{
	bool rdatm = sroce_rc_op_rdatm(e->w.op);
	u32 moved = sroce_psn_sub(o->una, q->una);
	u8 type = sroce_aeth_syn_type(syn);

	FZ_ASSERT(moved <= sroce_psn_sub(q->nxt, q->una),
		  "una %#x -> %#x passes nxt %#x", q->una, o->una, q->nxt);
	FZ_ASSERT(moved <= sroce_psn_sub(sroce_psn_next(e->last), q->una),
		  "una %#x -> %#x passes the WQE's end %#x", q->una, o->una,
		  e->last);
	FZ_ASSERT(o->credits == SROCE_RC_CREDITS_UNLIMITED ||
		  (type == SROCE_AETH_ACK && !(p->flags & SROCE_OPF_READ) &&
		   o->credits == sroce_rc_credits(syn)),
		  "credits %u, syndrome %#x", o->credits, syn);

	switch (act) {
	case SROCE_RC_COMP_DONE:
		FZ_ASSERT(!rdatm || !moved, "op %d: una moved, act DONE",
			  e->w.op);
		FZ_ASSERT(!moved || o->una != sroce_psn_next(e->last),
			  "whole WQE acknowledged, act DONE");
		break;
	case SROCE_RC_COMP_COMPLETE:
		FZ_ASSERT(!rdatm, "op %d completed without its data", e->w.op);
		FZ_ASSERT(o->una == sroce_psn_next(e->last),
			  "COMPLETE with una %#x, WQE ends %#x", o->una, e->last);
		break;
	case SROCE_RC_COMP_READ:
		FZ_ASSERT(e->w.op == SROCE_RC_OP_READ &&
			  (p->flags & SROCE_OPF_READ) && p->bth.psn == q->una &&
			  o->una == sroce_psn_next(q->una),
			  "READ data for op %d at %#x, una %#x -> %#x", e->w.op,
			  p->bth.psn, q->una, o->una);
		FZ_ASSERT(o->offset == e->read_off,
			  "READ data at %u, %u placed so far", o->offset,
			  e->read_off);
		FZ_ASSERT(o->offset <= e->w.len &&
			  p->paylen <= e->w.len - o->offset &&
			  p->paylen <= q->mtu,
			  "READ data %u bytes at %u of %u", p->paylen, o->offset,
			  e->w.len);
		e->read_off += p->paylen;
		FZ_ASSERT(!!o->complete == (q->una == e->last) &&
			  (!o->complete || e->read_off == e->w.len),
			  "READ complete %u with %u of %u bytes", o->complete,
			  e->read_off, e->w.len);
		FZ_ASSERT(type == SROCE_AETH_ACK ||
			  (p->flags & SROCE_OPF_POS_MASK) == SROCE_OPF_MIDDLE,
			  "READ data with syndrome %#x", syn);
		/* A stream opens with FIRST or ONLY; LAST or ONLY ends it. */
		FZ_ASSERT((q->una != e->w.first_psn ||
			   (p->flags & SROCE_OPF_FIRST)) &&
			  !!(p->flags & SROCE_OPF_LAST) == (q->una == e->last) &&
			  p->paylen == sroce_rc_payload(e->w.len, q->pmtu,
							sroce_psn_sub(q->una,
								      e->w.first_psn)),
			  "READ response %#x (%u bytes) at %u of [%#x, %#x]",
			  p->bth.opcode, p->paylen, q->una, e->w.first_psn,
			  e->last);
		break;
	case SROCE_RC_COMP_ATOMIC:
		FZ_ASSERT((e->w.op == SROCE_RC_OP_CMP_SWAP ||
			   e->w.op == SROCE_RC_OP_FETCH_ADD) &&
			  (p->flags & SROCE_OPF_ATMACK) &&
			  type == SROCE_AETH_ACK &&
			  o->una == sroce_psn_next(e->last),
			  "atomic result for op %d, una %#x", e->w.op, o->una);
		break;
	case SROCE_RC_COMP_RETRY:
		FZ_ASSERT(!rdatm || !moved, "op %d: una moved, act RETRY",
			  e->w.op);
		break;
	case SROCE_RC_COMP_RNR:
		FZ_ASSERT(type == SROCE_AETH_RNR_NAK &&
			  o->rnr_usec == sroce_rnr_timer_usec(syn) &&
			  o->rnr_usec > 0 && (!rdatm || !moved),
			  "RNR: syndrome %#x wait %u", syn, o->rnr_usec);
		break;
	case SROCE_RC_COMP_ERROR:
		FZ_ASSERT(o->status != SROCE_WC_SUCCESS &&
			  o->status <= SROCE_WC_GENERAL_ERR &&
			  (!rdatm || !moved), "ERROR with status %d",
			  o->status);
		break;
	default:
		FZ_ASSERT(0, "act %d", act);
	}
}

/* sroce_comp_walk(): the response against the WQEs, oldest first */
static void walk(struct req *q, const struct sroce_pkt *p, u8 syn)
{
	unsigned int steps = 0;

	while (q->head < q->nq) {
		struct wqe *e = &q->q[q->head];
		struct sroce_rc_comp_out o;
		enum sroce_rc_comp_act act;

		if (!sroce_psn_before(e->w.first_psn, q->nxt))
			return;
		FZ_ASSERT(++steps <= q->nq, "walk of %u steps over %u WQEs",
			  steps, q->nq);
		FZ_ASSERT(sroce_psn_in_window(q->una, e->w.first_psn, e->npsn),
			  "una %#x outside the oldest WQE [%#x, %#x]", q->una,
			  e->w.first_psn, e->last);
		memset(&o, 0x5a, sizeof(o));
		act = sroce_rc_comp_step(p, syn, q->una, &e->w, q->pmtu, &o);
		check_step(q, e, p, syn, act, &o);
		if (o.una != q->una) {
			q->window = sroce_rc_window_ack(q->window,
							sroce_psn_sub(o.una,
								      q->una));
			q->una = o.una;
			retry_progress(q);
		}
		switch (act) {
		case SROCE_RC_COMP_DONE:
			return;
		case SROCE_RC_COMP_COMPLETE:
			retire(q, e);
			continue;
		case SROCE_RC_COMP_READ:
		case SROCE_RC_COMP_ATOMIC:
			if (act == SROCE_RC_COMP_ATOMIC || o.complete)
				retire(q, e);
			return;
		case SROCE_RC_COMP_RETRY: {
			bool was = q->resending;

			if (!retry_nak(q))
				q->dead = true;
			else if (!was)		/* a new resend: GO */
				q->window = sroce_rc_window_loss(q->window,
								 false);
			return;
		}
		case SROCE_RC_COMP_RNR:
			if (!retry_rnr(q))
				q->dead = true;
			return;
		default:
			q->dead = true;
			return;
		}
	}
}

static const u8 resp_ops[] = {
	SROCE_RC_READ_RESPONSE_FIRST, SROCE_RC_READ_RESPONSE_MIDDLE,
	SROCE_RC_READ_RESPONSE_LAST, SROCE_RC_READ_RESPONSE_ONLY,
	SROCE_RC_ACKNOWLEDGE, SROCE_RC_ATOMIC_ACKNOWLEDGE,
};

static void response(struct req *q, struct fz *f)
{
	u8 sel = fz_u8(f), psel = fz_u8(f), syn = fz_u8(f);
	const struct wqe *e = &q->q[q->head < q->nq ? q->head : q->nq - 1];
	enum sroce_rc_window win;
	struct sroce_pkt p;
	u32 k;

	memset(&p, 0, sizeof(p));
	p.bth.opcode = resp_ops[sel % sizeof(resp_ops)];
	switch (psel % 5) {
	case 0:
		p.bth.psn = sroce_psn_add(q->una, psel >> 3);
		break;
	case 1:
		p.bth.psn = sroce_psn_add(q->nxt, -1U - (psel >> 3));
		break;
	case 2:
		p.bth.psn = sroce_psn_add(e->last, (u32)(int8_t)fz_u8(f));
		break;
	case 3:
		p.bth.psn = q->q[fz_u8(f) % q->nq].last;
		break;
	default:
		p.bth.psn = fz_u24(f);
	}
	p.flags = sroce_opcode_flags(p.bth.opcode);
	p.hdr_len = sroce_opcode_hdr_len(p.bth.opcode);
	if (p.flags & SROCE_OPF_PAYLOAD) {
		/* The right size for the PSN's place in its WQE, or not */
		for (k = q->head; k < q->nq; k++) {
			if (sroce_psn_in_window(p.bth.psn, q->q[k].w.first_psn,
						q->q[k].npsn)) {
				e = &q->q[k];
				break;
			}
		}
		k = sroce_psn_sub(p.bth.psn, e->w.first_psn);
		p.paylen = sroce_rc_payload(e->w.len, q->pmtu, k);
		switch (sel >> 4) {
		case 0:
			p.paylen += 1;
			break;
		case 1:
			p.paylen -= 1;
			break;
		case 2:
			p.paylen = fz_u16(f) & 0x3fff;
			break;
		default:
			break;
		}
		p.bth.pad = -p.paylen & 3;
	}

	win = sroce_rc_comp_psn(p.bth.psn, q->una, q->nxt);
	FZ_ASSERT(win == (sroce_psn_sub(p.bth.psn, q->una) <
			  sroce_psn_sub(q->nxt, q->una) ? SROCE_RC_WIN_VALID :
			  sroce_psn_before(p.bth.psn, q->una) ?
			  SROCE_RC_WIN_STALE : SROCE_RC_WIN_INVALID),
		  "psn %#x una %#x nxt %#x: window %d", p.bth.psn, q->una,
		  q->nxt, win);
	if (win != SROCE_RC_WIN_VALID)
		return;
	walk(q, &p, syn);
}

/*
 * A good responder's answer to the oldest WQE, once it is all sent: an ACK
 * of its last PSN, its READ responses from una on (as a new READ or as a
 * replay of the original, when una is inside it), or its atomic ACK. It
 * must complete the WQE, with nothing else.
 */
static void good_answer(struct req *q, u8 how)
{
	struct wqe *e = &q->q[q->head];
	unsigned int head = q->head;
	struct sroce_pkt p;
	u32 n = e->npsn, k;

	if (!sroce_psn_before(e->last, q->nxt))
		return;
	memset(&p, 0, sizeof(p));
	if (!sroce_rc_op_rdatm(e->w.op) || e->w.op != SROCE_RC_OP_READ) {
		p.bth.opcode = sroce_rc_op_rdatm(e->w.op) ?
			       SROCE_RC_ATOMIC_ACKNOWLEDGE :
			       SROCE_RC_ACKNOWLEDGE;
		p.bth.psn = e->last;
		p.flags = sroce_opcode_flags(p.bth.opcode);
		p.hdr_len = sroce_opcode_hdr_len(p.bth.opcode);
		walk(q, &p, sroce_rc_ack_syn(how & 1 ? 7 :
					     SROCE_RC_CREDITS_UNLIMITED));
	} else {
		u32 k0 = sroce_psn_sub(q->una, e->w.first_psn);

		for (k = k0; k < n && !q->dead; k++) {
			/* how & 1: answered as a new READ for the rest */
			bool first = k == 0 || (k == k0 && (how & 1));
			bool last = k == n - 1;

			p.bth.opcode = first ? (last ?
				SROCE_RC_READ_RESPONSE_ONLY :
				SROCE_RC_READ_RESPONSE_FIRST) :
				(last ? SROCE_RC_READ_RESPONSE_LAST :
				 SROCE_RC_READ_RESPONSE_MIDDLE);
			p.bth.psn = sroce_psn_add(e->w.first_psn, k);
			p.flags = sroce_opcode_flags(p.bth.opcode);
			p.hdr_len = sroce_opcode_hdr_len(p.bth.opcode);
			p.paylen = sroce_rc_payload(e->w.len, q->pmtu, k);
			p.bth.pad = -p.paylen & 3;
			walk(q, &p, SROCE_AETH_CREDIT_INVALID);
			if (k - k0 > 16)
				return;		/* a long READ: enough */
		}
	}
	FZ_ASSERT(!q->dead && q->head == head + 1,
		  "op %d of %u bytes at [%#x, %#x] not completed by a good answer (head %u -> %u)",
		  e->w.op, e->w.len, e->w.first_psn, e->last, head, q->head);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct req q;
	unsigned int n;
	u32 una0;

	memset(&q, 0, sizeof(q));
	q.pmtu = fz_u16(&f) % 4097;
	q.mtu = q.pmtu < SROCE_RC_MIN_PMTU ? SROCE_RC_MIN_PMTU : q.pmtu;
	q.una = q.nxt = fz_u24(&f);
	q.window = SROCE_RC_WINDOW_MAX;
	q.retry_cnt = fz_u8(&f) & 15;
	q.rnr_retry = fz_u8(&f) & 15;
	sroce_rc_retry_init(&q.r, q.retry_cnt, q.rnr_retry);
	post(&q, &f);

	for (n = 0; f.n && !q.dead && q.head < q.nq && n < 4096; n++) {
		u8 ev = fz_u8(&f);

		una0 = q.una;
		switch (ev & 3) {
		case 0:
			send_some(&q, (ev >> 2) + 1);
			break;
		case 2:
			if (ev & 4) {
				good_answer(&q, ev >> 3);
				break;
			}
			response(&q, &f);
			break;
		case 3:
			/* sroce_comp_timer(): nothing came back in time */
			if (q.una == q.nxt)
				break;
			q.window = sroce_rc_window_loss(q.window, true);
			if (!retry_timeout(&q))
				q.dead = true;
			break;
		default:
			response(&q, &f);
			break;
		}
		check_window(&q);
		FZ_ASSERT(sroce_psn_valid(q.una) && sroce_psn_valid(q.nxt) &&
			  sroce_psn_sub(q.una, una0) <=
			  sroce_psn_sub(q.nxt, una0) &&
			  sroce_psn_sub(q.nxt, q.una) <= SROCE_RC_MAX_INFLIGHT,
			  "una %#x -> %#x, nxt %#x", una0, q.una, q.nxt);
		FZ_ASSERT(q.head <= q.nq && q.head <= q.cur,
			  "completed %u of %u posted, %u sent", q.head, q.nq,
			  q.cur);
	}
	return 0;
}
