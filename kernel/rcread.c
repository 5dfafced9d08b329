// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rcread.c: the RC responder's answers to RDMA READs. A READ is answered
 * from the MR as it is when each burst leaves: the first burst in the
 * softirq that received the request, the rest by the responder's tasklet
 * (rcresp.c), a burst per run, so that a large READ cannot keep one
 * softirq busy. DCQCN's rate (cc.c) may hold a burst back; the pacer then
 * schedules the tasklet when the rate lets it go on.
 */
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/skbuff.h>
#include <rdma/ib_mad.h>

#include "cc.h"
#include "core/hdr.h"
#include "core/opcode.h"
#include "core/psn.h"
#include "core/rc.h"
#include "device.h"
#include "mr.h"
#include "mrio.h"
#include "mw.h"
#include "qp.h"
#include "rcread.h"
#include "xmit.h"

/* READ responses that leave at once (then the softirqs before the next) */
#define SROCE_READ_BURST	64

/* The QP's rate lets a held-back READ go on. */
static enum hrtimer_restart sroce_rcread_pacer_fire(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, resp.pacer);

	tasklet_schedule(&qp->resp.task);
	return HRTIMER_NORESTART;
}

/**
 * sroce_rcread_init() - set up the pacer of a new RC or UC QP
 * @qp: the QP
 */
void sroce_rcread_init(struct sroce_qp *qp)
{
	hrtimer_init(&qp->resp.pacer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	qp->resp.pacer.function = sroce_rcread_pacer_fire;
}

/**
 * sroce_rcread_burst() - send the next responses of the READ being answered
 * @qp: the QP; resp_lock held
 *
 * Sends up to a burst, as the QP's rate allows. The MR is looked up and
 * checked again for each burst: once it is deregistered or invalidated,
 * the rest is not sent (the requester's timer ends the READ).
 *
 * Return: true when the rate held the READ back: the pacer is armed (the
 * caller is busy) to schedule the tasklet.
 */
bool sroce_rcread_burst(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_rd *rd = &qp->resp.rd;
	struct sroce_rkey_ref ref = {};
	struct sroce_mr *mr = NULL;
	u32 end = min(rd->n, rd->k + SROCE_READ_BURST);
	bool paced = false;
	u64 when;

	/* The key may have been invalidated, or opened again. */
	if (rd->len && sroce_rkey_get(sdev, qp->ibqp.pd, qp->ibqp.qp_num,
				      rd->rkey, rd->va,
				      rd->len - (u64)rd->k * rd->mtu,
				      IB_ACCESS_REMOTE_READ, &ref)) {
		rd->n = rd->k;
		return false;
	}
	mr = ref.mr;
	for (; rd->k < end; rd->k++) {
		u32 paylen = sroce_rc_payload(rd->len, rd->mtu, rd->k);
		struct sroce_bth bth = {
			.pkey = IB_DEFAULT_PKEY_FULL,
			.dqpn = qp->dest_qpn,
			.psn = sroce_psn_add(rd->psn, rd->k),
			.pad = -paylen & 3,
		};
		struct sroce_aeth aeth = {
			.syndrome = sroce_rc_ack_syn(SROCE_RC_CREDITS_UNLIMITED),
			.msn = qp->resp.msn,
		};
		struct sk_buff *skb;
		bool zc;
		u32 hdr;

		if (!READ_ONCE(qp->dying) &&
		    !sroce_cc_resp_may_send(qp, &when)) {
			hrtimer_start(&qp->resp.pacer, ns_to_ktime(when),
				      HRTIMER_MODE_ABS_SOFT);
			paced = true;
			break;
		}
		if (rd->n == 1)
			bth.opcode = SROCE_RC_READ_RESPONSE_ONLY;
		else if (!rd->k)
			bth.opcode = SROCE_RC_READ_RESPONSE_FIRST;
		else if (rd->k == rd->n - 1)
			bth.opcode = SROCE_RC_READ_RESPONSE_LAST;
		else
			bth.opcode = SROCE_RC_READ_RESPONSE_MIDDLE;
		hdr = sroce_opcode_hdr_len(bth.opcode);
		/* The MR's pages go by reference (design.rst, zero copy). */
		zc = paylen >= SROCE_ZEROCOPY_MIN;
		skb = sroce_qp_skb_alloc(qp, hdr + (zc ? 0 : paylen + bth.pad));
		if (skb && zc &&
		    (sroce_mr_attach(mr, rd->va, skb, paylen) ||
		     sroce_skb_end_frags(skb, bth.pad))) {
			kfree_skb(skb);
			skb = NULL;
		}
		if (!skb) {
			rd->n = rd->k;	/* the requester asks again */
			break;
		}
		sroce_bth_encode(&bth, skb->data);
		if (hdr > SROCE_BTH_BYTES)
			sroce_aeth_encode(&aeth, skb->data + SROCE_BTH_BYTES);
		if (paylen && !zc)
			sroce_mr_copy(mr, rd->va, skb->data + hdr, paylen,
				      SROCE_FROM_MR);
		if (!zc)
			memset(skb->data + hdr + paylen, 0, bth.pad);
		rd->va += paylen;
		sroce_cc_sent(qp, &qp->av, skb->len);
		sroce_qp_xmit(qp, &qp->av, skb);
	}
	sroce_rkey_put(&ref);
	return paced;
}

/**
 * sroce_rcread_start() - answer an RDMA READ
 * @qp: the QP; resp_lock held
 * @psn: the PSN of the first response
 * @va: where the READ starts; the caller checked the range
 * @rkey: its MR's key
 * @len: its length in bytes
 *
 * The first burst leaves now; the tasklet sends the rest, with a QP
 * reference while it is busy.
 */
void sroce_rcread_start(struct sroce_qp *qp, u32 psn, u64 va, u32 rkey,
			u32 len)
{
	struct sroce_resp *rs = &qp->resp;
	bool paced;

	rs->rd = (struct sroce_rd){
		.psn = psn,
		.va = va,
		.rkey = rkey,
		.len = len,
		.mtu = qp->mtu,
		.n = sroce_rc_npkts(len, qp->mtu),
	};
	paced = sroce_rcread_burst(qp);
	rs->unacked = 0;
	rs->owed = false;
	if (rs->rd.k < rs->rd.n && !rs->busy) {
		rs->busy = true;
		kref_get(&qp->ref);
		if (!paced)
			tasklet_schedule(&rs->task);
	}
}
