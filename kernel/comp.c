// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * comp.c: the completer. ACKs, NAKs, RDMA READ responses and atomic ACKs
 * are handled in the softirq that received them: core/rc.c decides what
 * each means for the oldest outstanding WQE, this file carries it out
 * (completions, READ data and atomic results into the local buffers,
 * resends through the requester), and runs the QP's one timer, which is
 * the local ACK timer, the probe for the ACK of a tail sent without
 * AckReq (req.c), or, after an RNR NAK, the RNR wait.
 */
#include <linux/skbuff.h>
#include <linux/udp.h>

#include "comp.h"
#include "core/hdr.h"
#include "core/opcode.h"
#include "core/pkt.h"
#include "core/psn.h"
#include "counters.h"
#include "cq.h"
#include "device.h"
#include "doorbell.h"
#include "mr.h"
#include "mrio.h"
#include "qp.h"
#include "recv.h"
#include "req.h"

static struct sroce_sq_wqe *sroce_comp_wqe(struct sroce_qp *qp, u32 idx)
{
	return &qp->req.wqe[idx & (sroce_queue_entries(&qp->sq) - 1)];
}

static void sroce_comp_retire_one(struct sroce_qp *qp, struct sroce_sq_wqe *e,
				  enum ib_wc_status status)
{
	struct sroce_req *rq = &qp->req;
	bool sent = rq->head != rq->cur;
	struct sroce_cqe cqe = {
		.wr_id = e->w.wr_id,
		.status = status,
		.opcode = sroce_wc_opcode(e->w.opcode),
		.byte_len = e->len,
		.qp_num = qp->ibqp.qp_num,
	};

	if (sent && sroce_rc_op_rdatm(e->op))
		rq->rd_atomic--;
	rq->head++;
	/*
	 * The slot is the provider's again, before the completion says so:
	 * an application that posts as soon as it polls the completion must
	 * find the room (the CQE is built from our copy of the WQE).
	 */
	smp_store_release(&qp->sq.ring->cons, rq->head);
	if (status != IB_WC_SUCCESS || qp->sq_sig_all ||
	    (e->w.send_flags & SROCE_SEND_SIGNALED)) {
		sroce_cq_post(to_scq(qp->ibqp.send_cq), &cqe, false);
		WRITE_ONCE(qp->streak, 0);	/* its poster may wait for it */
	}
	if (!sent) {
		/* Acknowledged while the cursor was rewound to it. */
		rq->cur = rq->head;
		rq->cur_pkt = 0;
		rq->psn = rq->head == qp->sq.index ? rq->next_psn :
			  sroce_comp_wqe(qp, rq->head)->first_psn;
		rq->unasked = 0;
	}
}

/**
 * sroce_comp_retire_done() - complete the local operations that ran
 * @qp: the QP; sq_lock held
 *
 * A local operation (req.h) that ran behind WQEs still unacknowledged
 * completes once they have: now, if they have.
 */
void sroce_comp_retire_done(struct sroce_qp *qp)
{
	struct sroce_req *rq = &qp->req;

	while (rq->head != rq->cur) {
		struct sroce_sq_wqe *e = sroce_comp_wqe(qp, rq->head);

		if (!e->local || !e->done)
			break;
		sroce_comp_retire_one(qp, e, IB_WC_SUCCESS);
	}
}

/**
 * sroce_comp_retire() - complete the oldest WQE and free its ring slot
 * @qp: the QP; sq_lock held
 * @e: the WQE at qp->req.head
 * @status: its completion status
 *
 * A successful WQE completes only if signaled; a failed one always does.
 * The local operations that ran behind it complete with it.
 */
void sroce_comp_retire(struct sroce_qp *qp, struct sroce_sq_wqe *e,
		       enum ib_wc_status status)
{
	sroce_comp_retire_one(qp, e, status);
	sroce_comp_retire_done(qp);
}

/**
 * sroce_comp_failed() - must the QP go to the error state?
 * @qp: the QP; sq_lock held
 *
 * When the requester stopped on a failed WQE (its status set, or
 * rq->failed) and every WQE before it has completed, complete it with its
 * status.
 *
 * Return: true when the caller must call sroce_qp_error() (without locks).
 */
bool sroce_comp_failed(struct sroce_qp *qp)
{
	struct sroce_req *rq = &qp->req;
	struct sroce_sq_wqe *e;

	/*
	 * Once: between our caller's unlock and the QP reaching the error
	 * state, another context (a packet on another CPU, the doorbell) may
	 * ask again, and must not complete the next WQE with an error of its
	 * own: it is flushed.
	 */
	if (rq->failed_done || rq->head != rq->cur)
		return false;
	if (!rq->failed && (rq->head == qp->sq.index ||
			    !sroce_comp_wqe(qp, rq->head)->status))
		return false;
	rq->failed = true;
	if (rq->head != qp->sq.index) {
		e = sroce_comp_wqe(qp, rq->head);
		sroce_comp_retire(qp, e, e->status ?: IB_WC_LOC_QP_OP_ERR);
	}
	sroce_req_disarm(qp);
	rq->failed_done = true;
	return true;
}

/* Fail the oldest WQE with @status; the QP goes to error. */
static void sroce_comp_fatal(struct sroce_qp *qp, enum ib_wc_status status)
{
	struct sroce_req *rq = &qp->req;

	if (status == IB_WC_RETRY_EXC_ERR || status == IB_WC_RNR_RETRY_EXC_ERR)
		sroce_count(&to_sdev(qp->ibqp.device)->counters,
			    SROCE_CNT_RC_RETRY_EXC);

	rq->failed = true;
	if (rq->head != qp->sq.index) {
		/* Only the WQE completes with the error: the rest flush. */
		rq->cur = rq->head;
		sroce_comp_wqe(qp, rq->head)->status = status;
	}
}

/*
 * READ response data or an atomic result into the WQE's local buffers;
 * @crc as for sroce_mr_copy_skb().
 */
static int sroce_comp_place(struct sroce_qp *qp, struct sroce_sq_wqe *e,
			    u32 off, struct sk_buff *skb,
			    const struct sroce_pkt *pkt, u32 *crc)
{
	const u8 *slot = sroce_queue_slot(&qp->sq, qp->req.head) +
			 sizeof(e->w);
	struct sroce_sge *sge = qp->req.sge;	/* sq_lock held */
	struct sroce_sgl l = {
		.sdev = to_sdev(qp->ibqp.device),
		.pd = qp->ibqp.pd,
		.sge = sge,
		.num = e->w.num_sge,
	};
	unsigned int at = sizeof(struct udphdr) + pkt->hdr_len;

	memcpy(sge, slot, e->w.num_sge * sizeof(sge[0]));
	if (pkt->flags & SROCE_OPF_ATMACK) {
		struct sroce_atmack ack;
		u8 raw[SROCE_ATMACK_BYTES];
		u64 orig;

		if (skb_copy_bits(skb, at - SROCE_ATMACK_BYTES, raw,
				  sizeof(raw)))
			return -EFAULT;
		sroce_atmack_decode(raw, &ack);
		orig = ack.orig;
		return sroce_sgl_copy(&l, 0, &orig, sizeof(orig),
				      SROCE_TO_MR);
	}
	return sroce_sgl_copy_skb(&l, off, skb, at, pkt->paylen, crc);
}

/*
 * Is @pkt the READ response the oldest WQE waits for next? Only then may
 * its ICRC wait for the copy (recv.c): core/rc.c takes it as the READ's
 * (or refuses it as a broken response), and nothing moves before it is
 * placed. sq_lock held.
 */
static bool sroce_comp_in_line(struct sroce_qp *qp,
			       const struct sroce_pkt *pkt)
{
	struct sroce_req *rq = &qp->req;
	const struct sroce_sq_wqe *e;

	if (rq->head == qp->sq.index)
		return false;
	e = sroce_comp_wqe(qp, rq->head);
	return !e->status && e->op == SROCE_RC_OP_READ &&
	       pkt->bth.psn == rq->una &&
	       sroce_psn_before(e->first_psn, rq->nxt);
}

/*
 * A READ response whose ICRC is due, in line: placed as its ICRC is
 * computed, then checked, before the walk moves anything. Return: false
 * to drop it (corrupt); else *@err is the placement's result.
 */
static bool sroce_comp_place_due(struct sroce_qp *qp, struct sroce_sq_wqe *e,
				 enum sroce_rc_comp_act act,
				 const struct sroce_rc_comp_out *out,
				 struct sk_buff *skb,
				 const struct sroce_pkt *pkt, int *err)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	u32 crc;

	*err = 0;
	if (act != SROCE_RC_COMP_READ)
		return sroce_rcv_crc_late(sdev, skb, pkt);
	crc = sroce_rcv_crc_payload(skb, pkt);
	*err = sroce_comp_place(qp, e, out->offset, skb, pkt, &crc);
	if (*err)
		return sroce_rcv_crc_late(sdev, skb, pkt);
	return sroce_rcv_crc_end(sdev, skb, sizeof(struct udphdr) +
				 pkt->hdr_len + pkt->paylen, crc);
}

/*
 * What the response means for the WQEs from the oldest on. *@due: the
 * packet's ICRC is still to be checked (sroce_comp_in_line()); cleared
 * once it is. Return: the status to fail the oldest WQE with, or
 * IB_WC_SUCCESS.
 */
static enum ib_wc_status sroce_comp_walk(struct sroce_qp *qp,
					 struct sk_buff *skb,
					 const struct sroce_pkt *pkt,
					 u8 syndrome, bool *resend, bool *due)
{
	struct sroce_req *rq = &qp->req;

	while (rq->head != qp->sq.index) {
		struct sroce_sq_wqe *e = sroce_comp_wqe(qp, rq->head);
		struct sroce_rc_wqe rw = {
			.op = e->op,
			.first_psn = e->first_psn,
			.len = e->len,
		};
		struct sroce_rc_comp_out out;
		enum sroce_rc_comp_act act;
		bool placed = false;
		int err = 0;

		if (e->status || !sroce_psn_before(e->first_psn, rq->nxt))
			return IB_WC_SUCCESS;
		act = sroce_rc_comp_step(pkt, syndrome, rq->una, &rw, rq->mtu,
					 &out);
		if (*due) {
			/* Dropped as corrupt: as if it had never come. */
			if (!sroce_comp_place_due(qp, e, act, &out, skb, pkt,
						  &err))
				return IB_WC_SUCCESS;
			placed = act == SROCE_RC_COMP_READ;
			*due = false;
		}
		if (out.una != rq->una) {
			rq->una = out.una;
			sroce_rc_retry_progress(&rq->retry);
		}
		switch (act) {
		case SROCE_RC_COMP_DONE:
			return IB_WC_SUCCESS;
		case SROCE_RC_COMP_COMPLETE:
			sroce_comp_retire(qp, e, IB_WC_SUCCESS);
			continue;
		case SROCE_RC_COMP_READ:
		case SROCE_RC_COMP_ATOMIC:
			if (!placed)
				err = sroce_comp_place(qp, e, out.offset, skb,
						       pkt, NULL);
			if (err)
				return IB_WC_LOC_PROT_ERR;
			if (act == SROCE_RC_COMP_ATOMIC || out.complete)
				sroce_comp_retire(qp, e, IB_WC_SUCCESS);
			return IB_WC_SUCCESS;
		case SROCE_RC_COMP_RETRY:
			if (pkt->flags & SROCE_OPF_AETH &&
			    sroce_aeth_syn_type(syndrome) == SROCE_AETH_NAK)
				sroce_count(&to_sdev(qp->ibqp.device)->counters,
					    SROCE_CNT_RC_SEQ_NAK_RCVD);
			switch (sroce_rc_retry_nak(&rq->retry)) {
			case SROCE_RC_RETRY_GO:
				rq->window = sroce_rc_window_loss(rq->window,
								  false);
				*resend = true;
				return IB_WC_SUCCESS;
			case SROCE_RC_RETRY_IGNORE:
				return IB_WC_SUCCESS;
			default:
				return IB_WC_RETRY_EXC_ERR;
			}
		case SROCE_RC_COMP_RNR:
			sroce_count(&to_sdev(qp->ibqp.device)->counters,
				    SROCE_CNT_RC_RNR_NAK_RCVD);
			if (sroce_rc_retry_rnr(&rq->retry) ==
			    SROCE_RC_RETRY_EXCEEDED)
				return IB_WC_RNR_RETRY_EXC_ERR;
			*resend = true;
			rq->rnr_wait = true;
			sroce_req_arm(qp, (u64)out.rnr_usec * NSEC_PER_USEC);
			return IB_WC_SUCCESS;
		default:
			return (enum ib_wc_status)out.status;
		}
	}
	return IB_WC_SUCCESS;
}

/**
 * sroce_comp_rcv() - a response for an RC QP arrived
 * @sdev: the device
 * @qp: the QP, referenced by the caller
 * @skb: data at the UDP header, checked by sroce_rcv(); not consumed
 * @pkt: what sroce_pkt_parse() found
 */
void sroce_comp_rcv(struct sroce_dev *sdev, struct sroce_qp *qp,
		    struct sk_buff *skb, const struct sroce_pkt *pkt)
{
	struct sroce_req *rq = &qp->req;
	bool due = pkt->crc_due;
	enum ib_wc_status status;
	bool resend = false, failed;
	u8 syndrome = 0;
	u32 una;

	if (pkt->flags & SROCE_OPF_AETH) {
		struct sroce_aeth aeth;
		u8 raw[SROCE_AETH_BYTES];
		int at = sroce_opcode_hdr_offset(pkt->bth.opcode,
						 SROCE_OPF_AETH);

		if (at < 0 || skb_copy_bits(skb, sizeof(struct udphdr) + at,
					    raw, sizeof(raw))) {
			sroce_rcv_crc_late(sdev, skb, pkt);	/* counted */
			return;
		}
		sroce_aeth_decode(raw, &aeth);
		syndrome = aeth.syndrome;
	}

	spin_lock(&qp->sq_lock);
	if (READ_ONCE(qp->state) != IB_QPS_RTS &&
	    READ_ONCE(qp->state) != IB_QPS_SQD) {
		spin_unlock(&qp->sq_lock);
		if (sroce_rcv_crc_late(sdev, skb, pkt))
			sroce_count(&sdev->counters, SROCE_CNT_RX_QP_STATE);
		return;
	}
	if (sroce_rc_comp_psn(pkt->bth.psn, rq->una, rq->nxt) !=
	    SROCE_RC_WIN_VALID) {
		spin_unlock(&qp->sq_lock);
		/* a duplicate or a stray: nothing to do (but count it) */
		sroce_rcv_crc_late(sdev, skb, pkt);
		return;
	}
	if (due && !sroce_comp_in_line(qp, pkt)) {
		if (!sroce_rcv_crc_late(sdev, skb, pkt)) {
			spin_unlock(&qp->sq_lock);
			return;
		}
		due = false;
	}

	sroce_req_taker_begin(qp);
	una = rq->una;
	status = sroce_comp_walk(qp, skb, pkt, syndrome, &resend, &due);
	if (status != IB_WC_SUCCESS)
		sroce_comp_fatal(qp, status);
	else if (resend || sroce_psn_before(rq->psn, rq->una))
		sroce_req_seek(qp, rq->una);

	if (!rq->failed && !rq->rnr_wait && rq->una != una) {
		/* Progress: the timer restarts, or stops when all is ACKed. */
		sroce_req_disarm(qp);
		rq->window = sroce_rc_window_ack(rq->window,
						 sroce_psn_sub(rq->una, una));
	}
	sroce_req_taker_end(qp);
	failed = sroce_comp_failed(qp);
	spin_unlock(&qp->sq_lock);
	if (failed)
		sroce_qp_error(qp);
}

/**
 * sroce_comp_probe() - the probe timer fired: ask for the tail's ACK
 * @qp: the QP; sq_lock held
 *
 * The newest packet went without AckReq and no ACK has covered it. If
 * nothing was sent since the probe was armed, the cursor goes back to
 * that packet, which sroce_req_send() resends asking (the responder ACKs
 * it as a duplicate, or as new if the first was lost; C9-105). If
 * something was sent, the stream goes on and asks soon; if a resend is
 * under way, it asks when it reaches the newest packet. Neither counts
 * against the retry budget: the ACK timeout runs from the probe on.
 */
static void sroce_comp_probe(struct sroce_qp *qp)
{
	struct sroce_req *rq = &qp->req;

	if (rq->una == rq->nxt || !rq->unasked || rq->psn != rq->nxt ||
	    rq->nxt != rq->probe_nxt)
		return;
	sroce_count(&to_sdev(qp->ibqp.device)->counters,
		    SROCE_CNT_RC_ACK_PROBES);
	sroce_req_seek(qp, sroce_psn_sub(rq->nxt, 1));
}

/**
 * sroce_comp_timer() - the ACK timeout, the probe or the RNR wait is over
 * @t: the QP's timer, which held a reference on it
 */
void sroce_comp_timer(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, req.timer);
	struct sroce_req *rq = &qp->req;
	bool failed = false, armed;

	spin_lock_bh(&qp->sq_lock);
	if (timer_pending(&rq->timer))
		goto out;	/* armed again meanwhile, with a reference */
	if (rq->armed && !rq->dying && time_before(jiffies, rq->due)) {
		/* Restarted since it was set: wait on, keeping the reference. */
		mod_timer(&rq->timer, rq->due);
		spin_unlock_bh(&qp->sq_lock);
		return;
	}
	armed = rq->armed;
	rq->armed = false;
	if (!armed || rq->dying || READ_ONCE(qp->state) != IB_QPS_RTS ||
	    rq->failed)
		goto out;
	if (rq->rnr_wait) {
		rq->rnr_wait = false;
	} else if (rq->probe) {
		rq->probe = false;
		sroce_comp_probe(qp);
	} else if (rq->una != rq->nxt) {
		sroce_count(&to_sdev(qp->ibqp.device)->counters,
			    SROCE_CNT_RC_TIMEOUTS);
		rq->window = sroce_rc_window_loss(rq->window, true);
		if (sroce_rc_retry_timeout(&rq->retry) ==
		    SROCE_RC_RETRY_EXCEEDED)
			sroce_comp_fatal(qp, IB_WC_RETRY_EXC_ERR);
		else
			sroce_req_seek(qp, rq->una);
	}
	sroce_req_send(qp);
	failed = sroce_comp_failed(qp);
out:
	spin_unlock_bh(&qp->sq_lock);
	if (failed)
		sroce_qp_error(qp);
	sroce_qp_put(qp);
}

/**
 * sroce_comp_flush() - the QP is in the error state: flush the send queue
 * @qp: an RC or UC QP; qp->lock and sq_lock held
 *
 * Every WQE not completed yet completes with IB_WC_WR_FLUSH_ERR, the ones
 * taken from the ring (from our copies) and then those still only in it.
 */
void sroce_comp_flush(struct sroce_qp *qp)
{
	struct sroce_req *rq = &qp->req;
	struct sroce_cqe cqe = {
		.status = IB_WC_WR_FLUSH_ERR,
		.qp_num = qp->ibqp.qp_num,
	};
	/* Pairs with the provider's release of prod: WQEs written. */
	u32 prod = smp_load_acquire(&qp->sq.ring->prod);

	sroce_req_disarm(qp);
	rq->failed = true;
	rq->rnr_wait = false;
	for (; rq->head != qp->sq.index; rq->head++) {
		struct sroce_sq_wqe *e = sroce_comp_wqe(qp, rq->head);

		cqe.wr_id = e->w.wr_id;
		cqe.opcode = sroce_wc_opcode(e->w.opcode);
		sroce_cq_post(to_scq(qp->ibqp.send_cq), &cqe, false);
	}
	if (prod - rq->head > sroce_queue_entries(&qp->sq))
		prod = rq->head;	/* a broken ring: nothing to read */
	for (; rq->head != prod; rq->head++) {
		const struct sroce_send_wqe *w =
			sroce_queue_slot(&qp->sq, rq->head);

		cqe.wr_id = READ_ONCE(w->wr_id);
		cqe.opcode = sroce_wc_opcode(READ_ONCE(w->opcode));
		sroce_cq_post(to_scq(qp->ibqp.send_cq), &cqe, false);
	}
	qp->sq.index = rq->head;
	rq->cur = rq->head;
	rq->cur_pkt = 0;
	rq->rd_atomic = 0;
	/* Our reads of the slots happen before the provider reuses them. */
	smp_store_release(&qp->sq.ring->cons, rq->head);
}
