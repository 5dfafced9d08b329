// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * req.c: the requester. The provider rings the doorbell (a POST_SEND
 * command with no work requests) after filling the send ring; the kernel
 * turns the new WQEs into packets in that same system call.
 *
 * UD sends are done: one packet per WQE, completed when handed to the
 * network, as on hardware. RC and UC (reliable delivery, segmentation,
 * RDMA and atomics) are not there yet: their doorbell fails with
 * EOPNOTSUPP.
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>

#include "av.h"
#include "core/hdr.h"
#include "core/opcode.h"
#include "core/psn.h"
#include "cq.h"
#include "device.h"
#include "kverbs.h"
#include "mr.h"
#include "qp.h"
#include "req.h"
#include "xmit.h"

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

static u32 sroce_swqe_len(const struct sroce_swqe *s)
{
	u64 len = 0;
	u32 i;

	if (s->w.send_flags & SROCE_SEND_INLINE)
		return s->w.inline_len;
	for (i = 0; i < s->w.num_sge; i++)
		len += s->sge[i].length;
	return len > U32_MAX ? U32_MAX : len;
}

/* Gather the payload into @buf; IB_WC_SUCCESS or the error status. */
static enum ib_wc_status sroce_req_gather(struct sroce_qp *qp,
					  const struct sroce_swqe *s, u8 *buf)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	u32 i;

	if (s->w.send_flags & SROCE_SEND_INLINE) {
		memcpy(buf, sroce_queue_slot(&qp->sq, qp->sq.index) +
		       sizeof(s->w), s->w.inline_len);
		return IB_WC_SUCCESS;
	}
	for (i = 0; i < s->w.num_sge; i++) {
		const struct sroce_sge *g = &s->sge[i];
		struct sroce_mr *mr;

		if (!g->length)
			continue;
		mr = sroce_mr_get(sdev, g->lkey);
		if (!mr)
			return IB_WC_LOC_PROT_ERR;
		if (sroce_mr_check(mr, qp->ibqp.pd, g->addr, g->length, 0)) {
			sroce_mr_put(mr);
			return IB_WC_LOC_PROT_ERR;
		}
		sroce_mr_copy(mr, g->addr, buf, g->length, SROCE_FROM_MR);
		sroce_mr_put(mr);
		buf += g->length;
	}
	return IB_WC_SUCCESS;
}

/* The AV of AH number @num if it is in the QP's PD. */
static bool sroce_req_ah(struct sroce_qp *qp, u32 num, struct sroce_av *av)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_ah *ah;
	bool found = false;

	xa_lock(&sdev->ah_xa);
	ah = xa_load(&sdev->ah_xa, num);
	if (ah && ah->ibah.pd == qp->ibqp.pd) {
		*av = ah->av;
		found = true;
	}
	xa_unlock(&sdev->ah_xa);
	return found;
}

/* One UD SEND (with immediate): IB_WC_SUCCESS or the error status. */
static enum ib_wc_status sroce_req_ud_one(struct sroce_qp *qp,
					  const struct sroce_swqe *s)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	bool imm = s->w.opcode == IB_UVERBS_WR_SEND_WITH_IMM;
	u32 len = sroce_swqe_len(s), hdr, pad;
	enum ib_wc_status status;
	struct sroce_bth bth = {};
	struct sroce_deth deth = {};
	struct sk_buff *skb;
	struct sroce_av av;
	u8 *p;

	if (s->w.opcode != IB_UVERBS_WR_SEND && !imm)
		return IB_WC_LOC_QP_OP_ERR;
	if (!sroce_req_ah(qp, s->w.wr.ud.ah, &av))
		return IB_WC_LOC_QP_OP_ERR;
	if (len > ib_mtu_enum_to_int(sroce_active_mtu(sdev->ndev)))
		return IB_WC_LOC_LEN_ERR;

	hdr = SROCE_BTH_BYTES + SROCE_DETH_BYTES + (imm ? SROCE_IMMDT_BYTES : 0);
	pad = -len & 3;
	skb = sroce_skb_alloc(sdev, &av, hdr + len + pad, GFP_KERNEL);
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

	status = sroce_req_gather(qp, s, p + hdr);
	if (status != IB_WC_SUCCESS) {
		kfree_skb(skb);
		return status;
	}
	memset(p + hdr + len, 0, pad);
	qp->sq_psn = sroce_psn_next(qp->sq_psn);
	/* A datagram lost on the way is not an error of the sender. */
	sroce_xmit(sdev, &av, sroce_sport(qp->ibqp.qp_num), skb);
	return IB_WC_SUCCESS;
}

/* Send every posted WQE of a UD QP; false when the QP must go to error. */
static bool sroce_req_ud(struct sroce_qp *qp)
{
	struct sroce_swqe *s;
	bool ok = true;
	int n;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return true;	/* the WQEs stay posted for the next doorbell */

	spin_lock_bh(&qp->sq_lock);
	n = sroce_queue_pending(&qp->sq);
	if (n < 0)
		ok = false;
	while (ok && n-- > 0 && READ_ONCE(qp->state) == IB_QPS_RTS) {
		enum ib_wc_status status = IB_WC_LOC_QP_OP_ERR;

		if (!sroce_req_fetch(qp, s))
			status = sroce_req_ud_one(qp, s);
		sroce_req_complete(qp, &s->w, status);
		sroce_queue_consume(&qp->sq, 1);
		ok = status == IB_WC_SUCCESS;
	}
	spin_unlock_bh(&qp->sq_lock);
	kfree(s);
	return ok;
}

/**
 * sroce_req_doorbell() - send what is posted on a QP's send ring
 * @qp: the QP; process context, no locks held
 *
 * Run in the system call of a user QP's doorbell, and from a work item for
 * kernel QPs (kverbs.c). In the error state, what was posted to either
 * queue is flushed.
 *
 * Return: 0, or -EOPNOTSUPP for what is not there yet.
 */
int sroce_req_doorbell(struct sroce_qp *qp)
{
	if (READ_ONCE(qp->state) == IB_QPS_ERR) {
		/* In the error state, what was just posted is flushed. */
		sroce_qp_error(qp);
		return 0;
	}
	if (qp->ibqp.qp_type != IB_QPT_UD && qp->ibqp.qp_type != IB_QPT_GSI)
		return -EOPNOTSUPP;
	if (!sroce_req_ud(qp))
		sroce_qp_error(qp);
	return 0;
}

/**
 * sroce_post_send() - post_send: the doorbell of a user QP, or work
 *	requests to a kernel QP
 * @ibqp: the QP
 * @wr: NULL for a user QP, which posts through the ring
 * @bad_wr: for kernel QPs, the first work request not posted
 *
 * Return: 0 or a negative errno.
 */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	if (!qp->user)
		return sroce_kverbs_post_send(qp, wr, bad_wr);
	if (wr)
		return -EOPNOTSUPP;
	return sroce_req_doorbell(qp);
}

/**
 * sroce_post_recv() - post_recv: the receive doorbell of a user QP, rung
 *	only in the error state, or work requests to a kernel QP
 * @ibqp: the QP
 * @wr: NULL for a user QP, which posts through the ring
 * @bad_wr: for kernel QPs, the first work request not posted
 *
 * Receives posted to a QP in the error state are flushed at once.
 * Return: 0 or a negative errno.
 */
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	if (!qp->user)
		return sroce_kverbs_post_recv(qp, wr, bad_wr);
	if (wr)
		return -EOPNOTSUPP;
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_qp_error(qp);
	return 0;
}
