// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * req.c: the requester. The provider rings the doorbell (doorbell.c)
 * after filling the send ring; the kernel turns the new WQEs into packets
 * in that same system call, and sends the rest (a window's worth at a
 * time) from the softirq in which the ACKs arrive (comp.c).
 *
 * UD: one packet per WQE, completed when handed to the network, as on
 * hardware; the QP's rate paces them (cc.c), as it paces RC and UC.
 * UC: a message is segmented at the path MTU and completed when its last
 * packet is sent. RC: the same, plus RDMA READ and atomics; a WQE
 * completes when acknowledged (comp.c), and go-back-N resends from the
 * oldest unacknowledged PSN after a NAK or the ACK timeout.
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>

#include "av.h"
#include "cc.h"
#include "comp.h"
#include "core/hdr.h"
#include "core/opcode.h"
#include "core/psn.h"
#include "core/sgl.h"
#include "cq.h"
#include "device.h"
#include "doorbell.h"
#include "mr.h"
#include "mrio.h"
#include "mw.h"
#include "qp.h"
#include "req.h"
#include "xmit.h"

/* Ask for an ACK at least this often inside long messages. */
#define SROCE_REQ_ACKREQ_EVERY	32

/*
 * A tail sent without AckReq is probed for its ACK after this part of the
 * ACK timeout (timers tick in jiffies: up to a tick more). A millisecond
 * fired within the gaps of a poster serving many QPs, several times a
 * second per QP, and cut its rate (performance.rst).
 */
#define SROCE_REQ_PROBE_DIV	4

/* An RC QP's window goes out in one pass (doorbell.h). */
static_assert(SROCE_REQ_BUDGET >= SROCE_RC_WINDOW_MAX);

/* A send WQE copied out of the ring, never read twice from there. */
struct sroce_swqe {
	struct sroce_send_wqe w;
	struct sroce_sge sge[SROCE_MAX_SGE];
};

static void sroce_req_complete(struct sroce_qp *qp,
			       const struct sroce_send_wqe *w,
			       enum ib_wc_status status)
{
	struct sroce_cqe cqe = {
		.wr_id = w->wr_id,
		.status = status,
		.opcode = sroce_wc_opcode(w->opcode),
		.qp_num = qp->ibqp.qp_num,
	};

	if (status == IB_WC_SUCCESS && !qp->sq_sig_all &&
	    !(w->send_flags & SROCE_SEND_SIGNALED))
		return;
	sroce_cq_post(to_scq(qp->ibqp.send_cq), &cqe, false);
}

/* Copy the WQE at the consumer index out of the ring and check its shape. */
static int sroce_req_fetch(struct sroce_qp *qp, struct sroce_swqe *s)
{
	const u8 *slot = sroce_queue_slot(&qp->sq, qp->sq.index);
	u32 room = qp->sq.stride - sizeof(s->w);

	memcpy(&s->w, slot, sizeof(s->w));
	if (s->w.send_flags & SROCE_SEND_INLINE)
		return s->w.inline_len > min(room, qp->max_inline) ?
			-EINVAL : 0;
	if (s->w.num_sge > qp->max_send_sge)
		return -EINVAL;
	memcpy(s->sge, slot + sizeof(s->w), s->w.num_sge * sizeof(s->sge[0]));
	return 0;
}

static u64 sroce_swqe_len(const struct sroce_send_wqe *w,
			  const struct sroce_sge *sge)
{
	u64 len = 0;
	u32 i;

	if (w->send_flags & SROCE_SEND_INLINE)
		return w->inline_len;
	for (i = 0; i < w->num_sge; i++)
		len += sge[i].length;
	return len;
}

/*
 * Gather @len bytes at message offset @off of the WQE in ring slot @idx,
 * whose checked header is @w: from its inline data, or from its SGE list,
 * read from the ring once more and checked against the MRs again. They
 * are copied to @buf, or, with @skb, added to it as the MRs' pages.
 * Return: IB_WC_SUCCESS or the error status.
 */
static enum ib_wc_status sroce_req_gather(struct sroce_qp *qp, u32 idx,
					  const struct sroce_send_wqe *w,
					  u32 off, u8 *buf, struct sk_buff *skb,
					  u32 len)
{
	const u8 *slot = sroce_queue_slot(&qp->sq, idx) + sizeof(*w);
	struct sroce_sge *sge = qp->req.sge;
	struct sroce_sgl l = {
		.sdev = to_sdev(qp->ibqp.device),
		.pd = qp->ibqp.pd,
		.sge = sge,
		.num = w->num_sge,
	};
	int err;

	if (!len)
		return IB_WC_SUCCESS;
	if (w->send_flags & SROCE_SEND_INLINE) {
		/* The length was checked against the slot when fetched. */
		memcpy(buf, slot + off, len);
		return IB_WC_SUCCESS;
	}
	memcpy(sge, slot, w->num_sge * sizeof(sge[0]));
	if (skb)
		err = sroce_sgl_attach(&l, off, skb, len);
	else
		err = sroce_sgl_copy(&l, off, buf, len, SROCE_FROM_MR);
	if (err == -ENOSPC)
		return IB_WC_LOC_LEN_ERR;
	if (err == -E2BIG || err == -ENOMEM)
		return IB_WC_LOC_QP_OP_ERR;
	return err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
}

/* One UD SEND (with immediate): IB_WC_SUCCESS or the error status. */
static enum ib_wc_status sroce_req_ud_one(struct sroce_qp *qp,
					  const struct sroce_swqe *s)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	bool imm = s->w.opcode == IB_UVERBS_WR_SEND_WITH_IMM;
	u64 len = sroce_swqe_len(&s->w, s->sge);
	enum ib_wc_status status;
	struct sroce_bth bth = {};
	struct sroce_deth deth = {};
	struct sk_buff *skb;
	struct sroce_av av;
	u32 hdr, pad;
	u8 *p;

	if (s->w.opcode != IB_UVERBS_WR_SEND && !imm)
		return IB_WC_LOC_QP_OP_ERR;
	if (!sroce_ah_find(sdev, s->w.wr.ud.ah, qp->ibqp.pd, &av))
		return IB_WC_LOC_QP_OP_ERR;
	if (len > ib_mtu_enum_to_int(sroce_active_mtu(sdev->ndev)))
		return IB_WC_LOC_LEN_ERR;

	hdr = SROCE_BTH_BYTES + SROCE_DETH_BYTES + (imm ? SROCE_IMMDT_BYTES : 0);
	pad = -len & 3;
	skb = sroce_skb_alloc(sdev, &av, hdr + len + pad, GFP_ATOMIC);
	if (!skb)
		return IB_WC_LOC_QP_OP_ERR;
	p = skb->data;

	bth.opcode = imm ? SROCE_UD_SEND_ONLY_IMM : SROCE_UD_SEND_ONLY;
	bth.se = !!(s->w.send_flags & SROCE_SEND_SOLICITED);
	bth.pad = pad;
	bth.pkey = IB_DEFAULT_PKEY_FULL;
	bth.dqpn = s->w.wr.ud.remote_qpn;
	bth.psn = qp->sq_psn;
	sroce_bth_encode(&bth, p);
	/* A Q_Key with the high bit set means: use the QP's own. */
	deth.qkey = (s->w.wr.ud.remote_qkey & 0x80000000) ?
		    qp->qkey : s->w.wr.ud.remote_qkey;
	deth.sqpn = qp->ibqp.qp_num;
	sroce_deth_encode(&deth, p + SROCE_BTH_BYTES);
	if (imm)
		memcpy(p + SROCE_BTH_BYTES + SROCE_DETH_BYTES, &s->w.ex.imm_data,
		       SROCE_IMMDT_BYTES);

	status = sroce_req_gather(qp, qp->sq.index, &s->w, 0, p + hdr, NULL,
				  len);
	if (status != IB_WC_SUCCESS) {
		kfree_skb(skb);
		return status;
	}
	memset(p + hdr + len, 0, pad);
	qp->sq_psn = sroce_psn_next(qp->sq_psn);
	if (sroce_qp_has_cc(qp))
		sroce_cc_sent(qp, &av, hdr + len + pad);
	/* A datagram lost on the way is not an error of the sender. */
	sroce_qp_xmit(qp, &av, skb);
	return IB_WC_SUCCESS;
}

/**
 * sroce_req_ud_init() - allocate the send state of a new UD or GSI QP
 * @qp: the QP
 *
 * Return: 0 or -ENOMEM.
 */
int sroce_req_ud_init(struct sroce_qp *qp)
{
	qp->req.ud = kmalloc(sizeof(*qp->req.ud), GFP_KERNEL_ACCOUNT);
	return qp->req.ud ? 0 : -ENOMEM;
}

/*
 * Send the posted WQEs of a UD or GSI QP, as far as a UD QP's pacer lets
 * it (it resumes the rest) and SROCE_REQ_BUDGET at most (the send work
 * sends the rest); sq_lock held, bottom halves off. Return: false when
 * the QP must go to error.
 */
static bool sroce_req_ud(struct sroce_qp *qp)
{
	bool paced = sroce_qp_has_cc(qp);
	struct sroce_swqe *s = qp->req.ud;
	int n = sroce_queue_pending(&qp->sq);
	unsigned int sent = 0;

	if (n < 0)
		return false;
	while (n-- > 0 && READ_ONCE(qp->state) == IB_QPS_RTS) {
		enum ib_wc_status status = IB_WC_LOC_QP_OP_ERR;

		if (paced && !sroce_cc_may_send(qp))
			break;
		if (sent++ == SROCE_REQ_BUDGET) {
			sroce_req_defer(qp);	/* the rest, later */
			break;
		}
		if (!sroce_req_fetch(qp, s))
			status = sroce_req_ud_one(qp, s);
		/* The slot is free before the completion says so (comp.c). */
		sroce_queue_consume(&qp->sq, 1);
		sroce_req_complete(qp, &s->w, status);
		if (status != IB_WC_SUCCESS)
			return false;
	}
	return true;
}

/* -- RC and UC ---------------------------------------------------------- */

/**
 * sroce_req_init() - allocate the send state of a new RC or UC QP
 * @qp: the QP, its send ring allocated
 *
 * Return: 0 or -ENOMEM.
 */
int sroce_req_init(struct sroce_qp *qp)
{
	struct sroce_req *rq = &qp->req;

	rq->wqe = kvcalloc(sroce_queue_entries(&qp->sq), sizeof(*rq->wqe),
			   SROCE_GFP_USER_BIG);
	if (!rq->wqe)
		return -ENOMEM;
	timer_setup(&rq->timer, sroce_comp_timer, 0);
	return 0;
}

/* Free the send state of any QP; the timers are stopped (sroce_req_stop()). */
void sroce_req_cleanup(struct sroce_qp *qp)
{
	kvfree(qp->req.wqe);
	kfree(qp->req.ud);
}

/**
 * sroce_req_start() - the QP enters RTS from RTR: start from sq_psn
 * @qp: the QP; qp->lock held
 */
void sroce_req_start(struct sroce_qp *qp)
{
	struct sroce_req *rq = &qp->req;

	spin_lock(&qp->sq_lock);
	rq->head = qp->sq.index;
	rq->cur = qp->sq.index;
	rq->cur_pkt = 0;
	rq->psn = qp->sq_psn;
	rq->next_psn = qp->sq_psn;
	rq->una = qp->sq_psn;
	rq->nxt = qp->sq_psn;
	rq->rd_atomic = 0;
	rq->unasked = 0;
	rq->mtu = qp->mtu;
	rq->window = SROCE_RC_WINDOW_MAX;
	rq->timeout_ns = sroce_rc_ack_timeout_ns(qp->timeout);
	sroce_rc_retry_init(&rq->retry, qp->retry_cnt, qp->rnr_retry);
	rq->rnr_wait = false;
	rq->probe = false;
	rq->armed = false;
	rq->failed = false;
	rq->failed_done = false;
	spin_unlock(&qp->sq_lock);
}

/**
 * sroce_req_update() - RTS (or SQD) to RTS changed the retry attributes
 * @qp: the QP; qp->lock held
 *
 * A new timeout applies from the next time the timer is armed; new retry
 * counts start a fresh budget.
 */
void sroce_req_update(struct sroce_qp *qp)
{
	struct sroce_req *rq = &qp->req;

	spin_lock(&qp->sq_lock);
	rq->timeout_ns = sroce_rc_ack_timeout_ns(qp->timeout);
	sroce_rc_retry_init(&rq->retry, qp->retry_cnt, qp->rnr_retry);
	spin_unlock(&qp->sq_lock);
}

/**
 * sroce_req_arm() - (re)start the QP's timer
 * @qp: the QP; sq_lock held
 * @ns: from now
 *
 * The timer is due @ns from now. A timer still pending from before is
 * moved only if it would fire late; one that fires early finds @due ahead
 * and waits again (sroce_comp_timer()). So a busy QP, whose every ACK
 * restarts the timer, seldom takes the timer base's lock, which disables
 * interrupts. A pending timer holds a reference on the QP.
 */
void sroce_req_arm(struct sroce_qp *qp, u64 ns)
{
	struct sroce_req *rq = &qp->req;
	unsigned long due = jiffies + nsecs_to_jiffies(ns) + 1;

	rq->probe = false;
	if (rq->dying)
		return;
	rq->due = due;
	rq->armed = true;
	/* Every mod_timer() of this timer holds sq_lock. */
	if (timer_pending(&rq->timer) && !time_before(due, rq->timer.expires))
		return;
	if (!mod_timer(&rq->timer, due))
		kref_get(&qp->ref);
}

/*
 * Stop the timer; sq_lock held. If it is pending, it is left to fire for
 * nothing (or to be armed again before then), as sroce_req_arm() says.
 */
void sroce_req_disarm(struct sroce_qp *qp)
{
	qp->req.probe = false;
	qp->req.armed = false;
}

/**
 * sroce_req_stop() - the QP is being destroyed: stop its timers for good
 * @qp: the QP, of any type; no lock held
 */
void sroce_req_stop(struct sroce_qp *qp)
{
	spin_lock_bh(&qp->sq_lock);
	qp->req.dying = true;
	spin_unlock_bh(&qp->sq_lock);
	if (sroce_qp_connected(qp) && del_timer_sync(&qp->req.timer))
		sroce_qp_put(qp);
	sroce_cc_qp_stop(qp);
}

static enum sroce_rc_op sroce_req_op(u32 opcode)
{
	switch (opcode) {
	case IB_UVERBS_WR_SEND:
		return SROCE_RC_OP_SEND;
	case IB_UVERBS_WR_SEND_WITH_IMM:
		return SROCE_RC_OP_SEND_IMM;
	case IB_UVERBS_WR_SEND_WITH_INV:
		return SROCE_RC_OP_SEND_INV;
	case IB_UVERBS_WR_RDMA_WRITE:
		return SROCE_RC_OP_WRITE;
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		return SROCE_RC_OP_WRITE_IMM;
	case IB_UVERBS_WR_RDMA_READ:
		return SROCE_RC_OP_READ;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
		return SROCE_RC_OP_CMP_SWAP;
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		return SROCE_RC_OP_FETCH_ADD;
	default:
		return SROCE_RC_OP_COUNT;
	}
}

/* Which local operation the WQE opcode @opcode is, if any. */
static enum sroce_local_op sroce_req_local(struct sroce_qp *qp, u32 opcode)
{
	if (opcode == IB_UVERBS_WR_LOCAL_INV)
		return SROCE_LOCAL_INV;
	if (opcode == IB_UVERBS_WR_BIND_MW)
		return SROCE_LOCAL_BIND;
	if (opcode == SROCE_KWR_REG_MR && !sroce_qp_is_user(qp))
		return SROCE_LOCAL_REG;
	return SROCE_LOCAL_NONE;
}

static enum sroce_qp_type sroce_req_qpt(struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC ? SROCE_QPT_RC : SROCE_QPT_UC;
}

/*
 * Take the next WQE from the ring into e, check it, and give it its PSNs.
 * A WQE that cannot be sent gets an error status; it completes with it
 * when every WQE before it has.
 */
static void sroce_req_take(struct sroce_qp *qp, struct sroce_sq_wqe *e)
{
	struct sroce_req *rq = &qp->req;
	const u8 *slot = sroce_queue_slot(&qp->sq, qp->sq.index);
	u32 room = qp->sq.stride - sizeof(e->w);
	struct sroce_sge *sge = rq->sge;
	u64 len = 0;

	memcpy(&e->w, slot, sizeof(e->w));
	e->op = sroce_req_op(e->w.opcode);
	e->status = IB_WC_SUCCESS;
	e->local = sroce_req_local(qp, e->w.opcode);
	e->done = false;
	if (e->local) {
		/* No data: it takes no PSN, and its length is 0. */
		if (e->w.num_sge || (e->w.send_flags & SROCE_SEND_INLINE))
			e->status = IB_WC_LOC_QP_OP_ERR;
		e->len = 0;
		e->npsn = 0;
		e->first_psn = rq->next_psn;
		qp->sq.index++;
		return;
	}
	if (e->w.send_flags & SROCE_SEND_INLINE) {
		if (e->w.inline_len > min(room, qp->max_inline) ||
		    sroce_rc_op_rdatm(e->op))
			e->status = IB_WC_LOC_QP_OP_ERR;
		e->w.num_sge = 0;
		len = e->w.inline_len;
	} else if (e->w.num_sge > qp->max_send_sge) {
		e->status = IB_WC_LOC_QP_OP_ERR;
	} else {
		memcpy(sge, slot + sizeof(e->w),
		       e->w.num_sge * sizeof(sge[0]));
		len = sroce_swqe_len(&e->w, sge);
	}
	if (sroce_rc_opcode(sroce_req_qpt(qp), e->op, true, true) ==
	    SROCE_OPCODE_NONE)
		e->status = IB_WC_LOC_QP_OP_ERR;
	else if (len > SROCE_RC_MAX_MSG)
		e->status = IB_WC_LOC_LEN_ERR;
	else if ((e->op == SROCE_RC_OP_CMP_SWAP ||
		  e->op == SROCE_RC_OP_FETCH_ADD) &&
		 len != SROCE_RC_ATOMIC_BYTES)
		e->status = IB_WC_LOC_LEN_ERR;
	e->len = e->status ? 0 : len;
	e->npsn = sroce_rc_npsn(e->op, e->len, rq->mtu);
	e->first_psn = rq->next_psn;
	if (!e->status)
		rq->next_psn = sroce_psn_add(rq->next_psn, e->npsn);
	qp->sq.index++;
}

/*
 * May the payload of this packet, @paylen bytes at message offset @off of
 * the WQE in slot @idx, go as the MRs' own pages rather than a copy
 * (sroce_sgl_attach())? For an RC QP, where a WQE completes only once the
 * peer has acknowledged its data, so a packet still on its way never reads
 * a buffer its owner took back; not for a few bytes, which are cheaper to
 * copy. Each SGE the packet touches adds two fragments at most (a packet's
 * payload is at most a page), and the trailer one: the SGEs are counted
 * from the lengths in the ring, which the gather reads and checks again
 * (a user who changes them meanwhile gets IB_WC_LOC_QP_OP_ERR).
 */
static bool sroce_req_zerocopy(struct sroce_qp *qp, u32 idx,
			       const struct sroce_send_wqe *w, u32 off,
			       u32 paylen)
{
	const struct sroce_sge *sge;
	u32 i, n, touched = 0;
	u64 skip = off, at;

	if (qp->ibqp.qp_type != IB_QPT_RC ||
	    (w->send_flags & SROCE_SEND_INLINE) ||
	    paylen < SROCE_ZEROCOPY_MIN)
		return false;
	if (w->num_sge <= SROCE_ZEROCOPY_SGES)
		return true;
	sge = (const void *)(sroce_queue_slot(&qp->sq, idx) + sizeof(*w));
	for (i = 0; i < w->num_sge && paylen; i++) {
		/* Only the lengths count here: no address is checked. */
		sroce_sge_piece(0, READ_ONCE(sge[i].length), &skip, paylen,
				&at, &n);
		if (n && ++touched > SROCE_ZEROCOPY_SGES)
			return false;
		paylen -= n;
	}
	return true;
}

/* Is @psn inside the RC send window, rq->window PSNs from una? */
static bool sroce_req_in_window(const struct sroce_req *rq, u32 psn)
{
	return sroce_psn_sub(psn, rq->una) < rq->window;
}

/*
 * May someone be waiting for the message @e to be acknowledged? Its
 * poster, if its WR is signaled or the QP does not stream; the requester,
 * for a READ or an atomic (their responses are their ACKs), or when it
 * has no timer to probe with (timeout 0).
 */
static bool sroce_req_want_ack(const struct sroce_qp *qp,
			       const struct sroce_sq_wqe *e)
{
	return (e->w.send_flags & SROCE_SEND_SIGNALED) || qp->sq_sig_all ||
	       READ_ONCE(qp->streak) <= SROCE_STREAM_DOORBELLS ||
	       sroce_rc_op_rdatm(e->op) || !qp->req.timeout_ns;
}

/* Header bytes of one request packet after the BTH. */
static u32 sroce_req_ext_len(u8 opcode)
{
	return sroce_opcode_hdr_len(opcode) - SROCE_BTH_BYTES;
}

/*
 * Build and send packet k of the WQE in slot @idx. Return: IB_WC_SUCCESS,
 * or the WQE's error status (nothing was sent).
 */
static enum ib_wc_status sroce_req_packet(struct sroce_qp *qp, u32 idx,
					  struct sroce_sq_wqe *e, u32 k)
{
	enum sroce_qp_type qpt = sroce_req_qpt(qp);
	struct sroce_req *rq = &qp->req;
	u32 mtu = rq->mtu, npkts = sroce_rc_npkts(e->len, mtu);
	bool rdatm = sroce_rc_op_rdatm(e->op);
	bool first = rdatm || !k, last = rdatm || k == npkts - 1;
	u32 paylen = rdatm ? 0 : sroce_rc_payload(e->len, mtu, k);
	u32 pad = -paylen & 3, off;
	enum ib_wc_status status;
	struct sroce_bth bth = {};
	struct sk_buff *skb;
	bool zc, force;
	u8 opcode, *p;

	opcode = sroce_rc_opcode(qpt, e->op, first, last);
	off = SROCE_BTH_BYTES + sroce_req_ext_len(opcode);
	zc = sroce_req_zerocopy(qp, idx, &e->w, k * mtu, paylen);
	skb = sroce_qp_skb_alloc(qp, off + (zc ? 0 : paylen + pad));
	if (!skb)
		return IB_WC_LOC_QP_OP_ERR;
	p = skb->data;

	bth.opcode = opcode;
	bth.se = last && (e->w.send_flags & SROCE_SEND_SOLICITED);
	bth.pad = pad;
	bth.pkey = IB_DEFAULT_PKEY_FULL;
	bth.dqpn = qp->dest_qpn;
	bth.psn = rq->psn;
	/* Forced: the window is full, or the newest packet goes again. */
	force = !sroce_req_in_window(rq, sroce_psn_next(rq->psn)) ||
		(sroce_psn_before(rq->psn, rq->nxt) &&
		 sroce_psn_next(rq->psn) == rq->nxt);
	bth.ackreq = sroce_rc_ackreq(qpt, last, sroce_req_want_ack(qp, e),
				     force, rq->unasked,
				     SROCE_REQ_ACKREQ_EVERY);
	sroce_bth_encode(&bth, p);
	p += SROCE_BTH_BYTES;

	if (sroce_opcode_flags(opcode) & SROCE_OPF_RETH) {
		struct sroce_reth reth = {
			.va = e->w.wr.rdma.remote_addr,
			.rkey = e->w.wr.rdma.rkey,
			.len = e->len,
		};

		/* A READ resent for its missing part asks only for that. */
		if (e->op == SROCE_RC_OP_READ) {
			reth.va += (u64)k * mtu;
			reth.len -= k * mtu;
		}
		sroce_reth_encode(&reth, p);
		p += SROCE_RETH_BYTES;
	}
	if (sroce_opcode_flags(opcode) & SROCE_OPF_ATMETH) {
		struct sroce_atmeth atm = {
			.va = e->w.wr.atomic.remote_addr,
			.rkey = e->w.wr.atomic.rkey,
			.swap_add = e->op == SROCE_RC_OP_CMP_SWAP ?
				    e->w.wr.atomic.swap :
				    e->w.wr.atomic.compare_add,
			.compare = e->w.wr.atomic.compare_add,
		};

		sroce_atmeth_encode(&atm, p);
		p += SROCE_ATMETH_BYTES;
	}
	if (sroce_opcode_flags(opcode) & SROCE_OPF_IMMDT) {
		memcpy(p, &e->w.ex.imm_data, SROCE_IMMDT_BYTES);
		p += SROCE_IMMDT_BYTES;
	}
	if (sroce_opcode_flags(opcode) & SROCE_OPF_IETH) {
		struct sroce_ieth ieth = { .rkey = e->w.ex.invalidate_rkey };

		sroce_ieth_encode(&ieth, p);
		p += SROCE_IETH_BYTES;
	}

	status = sroce_req_gather(qp, idx, &e->w, k * mtu, p, zc ? skb : NULL,
				  paylen);
	if (status == IB_WC_SUCCESS && zc && sroce_skb_end_frags(skb, pad))
		status = IB_WC_LOC_QP_OP_ERR;
	if (status != IB_WC_SUCCESS) {
		kfree_skb(skb);
		return status;
	}
	if (!zc)
		memset(p + paylen, 0, pad);
	rq->unasked = bth.ackreq ? 0 : rq->unasked + 1;
	sroce_cc_sent(qp, &qp->av, skb->len);
	/* A packet lost on the way is resent after the ACK timeout. */
	sroce_qp_xmit(qp, &qp->av, skb);
	return IB_WC_SUCCESS;
}

/* May the next packet go now? */
static bool sroce_req_may_send(struct sroce_qp *qp, struct sroce_sq_wqe *e)
{
	struct sroce_req *rq = &qp->req;
	bool room = qp->ibqp.qp_type == IB_QPT_UC ||
		    sroce_req_in_window(rq, rq->psn);

	if (rq->cur_pkt)
		return room;
	if (sroce_rc_op_rdatm(e->op) &&
	    rq->rd_atomic >= max_t(u32, qp->max_rd_atomic, 1))
		return false;
	if ((e->w.send_flags & SROCE_SEND_FENCE) && rq->rd_atomic)
		return false;
	return rq->cur == rq->head || room;
}

/*
 * Run the local operation at the cursor, unless it already ran (the
 * cursor came back to it for a resend) and move past it. A LOCAL_INV
 * waits until every WQE before it has completed (so none of them is
 * resent through a closed key: the fence IBTA 10.8.3.3 lets a user ask
 * for, always, as rxe does), and a fenced one for READs and atomics.
 * Return: false when it waits, or failed (rq->failed).
 */
static bool sroce_req_run_local(struct sroce_qp *qp, struct sroce_sq_wqe *e)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_req *rq = &qp->req;
	int err;

	if (!e->done) {
		if ((e->local == SROCE_LOCAL_INV && rq->cur != rq->head) ||
		    ((e->w.send_flags & SROCE_SEND_FENCE) && rq->rd_atomic))
			return false;
		if (e->local == SROCE_LOCAL_INV) {
			err = sroce_key_invalidate(sdev, qp->ibqp.pd,
						   qp->ibqp.qp_num,
						   e->w.ex.invalidate_rkey,
						   false);
		} else if (e->local == SROCE_LOCAL_BIND) {
			err = sroce_mw_bind(sdev, qp->ibqp.pd,
					    qp->ibqp.qp_num, &e->w);
		} else {
			struct sroce_fast_reg reg;

			memcpy(&reg, &e->w.wr, sizeof(reg));
			err = sroce_mr_fast_reg(sdev, qp->ibqp.pd, &reg);
		}
		if (err) {
			e->status = e->local == SROCE_LOCAL_BIND ?
				    IB_WC_MW_BIND_ERR : IB_WC_LOC_QP_OP_ERR;
			return false;
		}
		e->done = true;
	}
	rq->cur++;
	sroce_comp_retire_done(qp);
	return true;
}

/**
 * sroce_req_send() - send what may be sent
 * @qp: an RC or UC QP; sq_lock held, bottom halves off
 *
 * Takes new WQEs from the ring, sends packets from the cursor until the
 * window (RC: rq->window unacknowledged PSNs, a READ or a WQE at the head
 * of the queue may always start; UC has none), the READ/atomic limit or
 * a fence stops it, SROCE_REQ_BUDGET packets at most (the QP's send work
 * sends the rest: sroce_req_defer()), and keeps the ACK
 * timer running while anything is unacknowledged. On UC each WQE
 * completes when its last packet is sent. A WQE that fails locally (its
 * status set) is as far as the requester goes: what was sent before it is
 * still resent and timed as ever, and once all of that is acknowledged
 * the failed WQE completes with its status (sroce_comp_failed()).
 */
void sroce_req_send(struct sroce_qp *qp)
{
	struct sroce_req *rq = &qp->req;
	u32 mask = sroce_queue_entries(&qp->sq) - 1;
	bool uc = qp->ibqp.qp_type == IB_QPT_UC;
	unsigned int sent = 0;

	while (!rq->failed && !rq->rnr_wait &&
	       READ_ONCE(qp->state) == IB_QPS_RTS) {
		struct sroce_sq_wqe *e;
		enum ib_wc_status status;
		u32 npkts;

		if (rq->cur == qp->sq.index) {
			/* The WQEs are written before prod is. */
			u32 prod = smp_load_acquire(&qp->sq.ring->prod);

			if (prod == qp->sq.index)
				break;
			if (prod - rq->head > mask + 1) {
				/* Userspace broke its ring. */
				rq->failed = true;
				break;
			}
			sroce_req_take(qp, &rq->wqe[qp->sq.index & mask]);
		}
		e = &rq->wqe[rq->cur & mask];
		if (e->status)
			break;		/* failed: sroce_comp_failed() */
		if (e->local) {
			if (sent++ == SROCE_REQ_BUDGET) {
				sroce_req_defer(qp);
				break;
			}
			if (!sroce_req_run_local(qp, e))
				break;
			continue;
		}
		if (!sroce_req_may_send(qp, e) || !sroce_cc_may_send(qp))
			break;
		if (sent++ == SROCE_REQ_BUDGET) {
			sroce_req_defer(qp);	/* the rest, later */
			break;
		}

		status = sroce_req_packet(qp, rq->cur, e, rq->cur_pkt);
		if (status != IB_WC_SUCCESS) {
			e->status = status;
			break;
		}
		npkts = sroce_rc_op_rdatm(e->op) ? 1 :
			sroce_rc_npkts(e->len, rq->mtu);
		if (++rq->cur_pkt < npkts) {
			rq->psn = sroce_psn_next(rq->psn);
		} else {
			if (sroce_rc_op_rdatm(e->op))
				rq->rd_atomic++;
			rq->psn = sroce_psn_add(e->first_psn, e->npsn);
			rq->cur++;
			rq->cur_pkt = 0;
		}
		if (sroce_psn_after(rq->psn, rq->nxt))
			rq->nxt = rq->psn;
		if (uc && !rq->cur_pkt) {
			rq->una = rq->psn;
			sroce_comp_retire(qp, e, IB_WC_SUCCESS);
		}
	}
	if (!uc && !rq->rnr_wait && rq->timeout_ns && rq->una != rq->nxt &&
	    !rq->armed) {
		/* What went last did not ask: probe for its ACK soon. */
		bool probe = rq->unasked;

		sroce_req_arm(qp, probe ? rq->timeout_ns / SROCE_REQ_PROBE_DIV :
					  rq->timeout_ns);
		rq->probe = probe;
		rq->probe_nxt = rq->nxt;
	}
}

/**
 * sroce_req_resume() - send what may be sent, for any QP type
 * @qp: the QP; sq_lock held, bottom halves off
 *
 * Return: true when the QP must go to error (sroce_qp_error()).
 */
bool sroce_req_resume(struct sroce_qp *qp)
{
	if (!sroce_qp_connected(qp))
		return !sroce_req_ud(qp);
	sroce_req_send(qp);
	return sroce_comp_failed(qp);
}

/**
 * sroce_req_seek() - move the send cursor to a PSN
 * @qp: the QP; sq_lock held
 * @psn: the PSN to send next: una, after a NAK, a timeout, an RNR NAK, or
 *	 when ACKs overtook the cursor
 */
void sroce_req_seek(struct sroce_qp *qp, u32 psn)
{
	struct sroce_req *rq = &qp->req;
	u32 mask = sroce_queue_entries(&qp->sq) - 1;
	u32 idx = rq->head, rd = 0;

	for (; idx != qp->sq.index; idx++) {
		struct sroce_sq_wqe *e = &rq->wqe[idx & mask];
		u32 end = sroce_psn_add(e->first_psn, e->npsn);

		/* A local operation that ran is not run again. */
		if (e->local && !e->status) {
			if (!e->done)
				break;
			continue;
		}
		if (e->status || sroce_psn_before(psn, end))
			break;
		if (sroce_rc_op_rdatm(e->op))
			rd++;
	}
	rq->cur = idx;
	rq->cur_pkt = 0;
	rq->psn = psn;
	if (idx != qp->sq.index && !rq->wqe[idx & mask].status) {
		struct sroce_sq_wqe *e = &rq->wqe[idx & mask];

		/* A READ's "packet" is where its resent request starts. */
		if (sroce_psn_after(psn, e->first_psn))
			rq->cur_pkt = sroce_psn_sub(psn, e->first_psn);
		else
			rq->psn = e->first_psn;
	}
	rq->rd_atomic = rd;
	rq->unasked = 0;
}
