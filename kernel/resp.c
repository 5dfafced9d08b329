// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * resp.c: the responder, in the softirq that received the packet.
 *
 * UD: a SEND ONLY (with immediate) takes the next receive WQE of the QP
 * (or its SRQ), whose buffers get the 40-byte GRH area the verbs promise
 * (an IPv4 header sits in its last 20 bytes, as on ConnectX and rxe) and
 * then the payload. Datagrams the QP cannot take (wrong Q_Key, no WQE
 * posted, not ready) are dropped and counted, as the IBTA prescribes; one
 * that does not fit the WQE's buffers completes it with a length error
 * and the QP lives on. A CE-marked one that the QP accepts makes it send
 * its source QP a CNP.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <rdma/ib_mad.h>

#include "core/hdr.h"
#include "core/opcode.h"
#include "core/pkt.h"
#include "cc.h"
#include "counters.h"
#include "cq.h"
#include "device.h"
#include "mr.h"
#include "mrio.h"
#include "qp.h"
#include "resp.h"
#include "srq.h"

#define SROCE_GRH_BYTES	40

/* Take the next receive WQE of @q (its lock held); how many are left. */
static int sroce_resp_take_from(struct sroce_queue *q, u32 max_sge,
				struct sroce_rwqe *r)
{
	int n = sroce_queue_pending(q);
	const u8 *slot;

	if (n <= 0)
		return -1;
	slot = sroce_queue_slot(q, q->index);
	memcpy(&r->w, slot, sizeof(r->w));
	if (r->w.num_sge > max_sge)
		r->w.num_sge = U32_MAX;		/* refused by the caller */
	else
		memcpy(r->sge, slot + sizeof(r->w),
		       r->w.num_sge * sizeof(r->sge[0]));
	sroce_queue_consume(q, 1);
	return n - 1;
}

/**
 * sroce_resp_take() - take the next receive WQE of a QP or of its SRQ
 * @qp: the QP
 * @r: the copy
 *
 * An SRQ whose limit is armed and now has fewer WQEs than the limit
 * raises IB_EVENT_SRQ_LIMIT_REACHED, once: the limit disarms.
 *
 * Return: true if there was one.
 */
bool sroce_resp_take(struct sroce_qp *qp, struct sroce_rwqe *r)
{
	struct sroce_srq *srq;
	bool event = false;
	int left;

	if (!qp->ibqp.srq) {
		spin_lock(&qp->rq_lock);
		left = sroce_resp_take_from(&qp->rq, qp->max_recv_sge, r);
		spin_unlock(&qp->rq_lock);
		return left >= 0;
	}
	srq = to_ssrq(qp->ibqp.srq);
	spin_lock(&srq->lock);
	left = sroce_resp_take_from(&srq->rq, srq->max_sge, r);
	if (left >= 0 && srq->limit && left < srq->limit) {
		srq->limit = 0;
		event = true;
	}
	spin_unlock(&srq->lock);
	if (event && srq->ibsrq.event_handler) {
		struct ib_event ev = {
			.device = srq->ibsrq.device,
			.element.srq = &srq->ibsrq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	return left >= 0;
}

/*
 * Scatter the 40-byte GRH area @grh, then @len bytes at @off of @skb, over
 * the WQE's buffers. Return: IB_WC_SUCCESS or the error status.
 */
static enum ib_wc_status sroce_resp_scatter(struct sroce_qp *qp,
					    const struct sroce_rwqe *r,
					    struct sk_buff *skb,
					    unsigned int off, u32 len,
					    u8 *grh)
{
	struct sroce_sgl l = {
		.sdev = to_sdev(qp->ibqp.device),
		.pd = qp->ibqp.pd,
		.sge = r->sge,
		.num = r->w.num_sge,
	};
	int err;

	if (r->w.num_sge == U32_MAX)
		return IB_WC_LOC_QP_OP_ERR;
	err = sroce_sgl_copy(&l, 0, grh, SROCE_GRH_BYTES, SROCE_TO_MR);
	if (!err)
		err = sroce_sgl_copy_skb(&l, SROCE_GRH_BYTES, skb, off, len,
					 NULL);
	if (err == -ENOSPC)
		return IB_WC_LOC_LEN_ERR;
	return err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
}

static void sroce_resp_grh(struct sk_buff *skb, u8 *grh)
{
	memset(grh, 0, SROCE_GRH_BYTES);
	if (skb->protocol == htons(ETH_P_IPV6))
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
	else
		memcpy(grh + 20, ip_hdr(skb), sizeof(struct iphdr));
}

/*
 * The sl of a datagram's completion: its RoCE packet type, as ConnectX
 * reports it there (mlx5's roce_packet_type): 2 for RoCE v2 over IPv4, 1
 * over IPv6. RoCE has no service levels; software written for ConnectX
 * reads this to find the IP header in the GRH area (UCX's UD transport
 * before 1.19 drops every datagram whose sl says IPv6 when it is not).
 */
static u8 sroce_resp_pkt_type(const struct sk_buff *skb)
{
	return skb->protocol == htons(ETH_P_IPV6) ? 1 : 2;
}

/**
 * sroce_resp_ud_qp() - deliver a UD SEND ONLY (with immediate) to a QP
 * @sdev: the device
 * @qp: the destination, referenced by the caller
 * @skb: data at the UDP header, checked by sroce_rcv(); not consumed
 * @pkt: what sroce_pkt_parse() found
 */
void sroce_resp_ud_qp(struct sroce_dev *sdev, struct sroce_qp *qp,
		      struct sk_buff *skb, const struct sroce_pkt *pkt)
{
	const u8 *hdr = skb->data + sizeof(struct udphdr);
	struct sroce_counters *c = &sdev->counters;
	struct sroce_cqe cqe = {};
	struct sroce_deth deth;
	struct sroce_rwqe *r;
	u8 grh[SROCE_GRH_BYTES];

	if (qp->ibqp.qp_type != IB_QPT_UD && qp->ibqp.qp_type != IB_QPT_GSI) {
		sroce_count(c, SROCE_CNT_RX_NO_QP);
		return;
	}
	if (READ_ONCE(qp->state) != IB_QPS_RTR &&
	    READ_ONCE(qp->state) != IB_QPS_RTS) {
		sroce_count(c, SROCE_CNT_RX_QP_STATE);
		return;
	}
	sroce_deth_decode(hdr + SROCE_BTH_BYTES, &deth);
	if (deth.qkey != READ_ONCE(qp->qkey)) {
		sroce_count(c, SROCE_CNT_RX_QKEY);
		return;
	}
	/* A CE-marked datagram to this QP (not to a group) asks for a CNP. */
	if (sroce_qp_has_cc(qp) && pkt->bth.dqpn == qp->ibqp.qp_num &&
	    sroce_cc_skb_ce(skb))
		sroce_cc_rcv_ce_ud(sdev, qp, skb, deth.sqpn);
	/*
	 * QP1's buffers hold one MAD: anything longer must neither use one
	 * up nor move QP1 to error, which would end the device's CM.
	 */
	if (qp->ibqp.qp_type == IB_QPT_GSI && pkt->paylen > IB_MGMT_MAD_SIZE) {
		sroce_count(c, SROCE_CNT_RX_MAD_LENGTH);
		return;
	}
	r = kmalloc(sizeof(*r), GFP_ATOMIC);
	if (!r) {
		sroce_count(c, SROCE_CNT_RX_NO_WQE);
		return;
	}

	if (!sroce_resp_take(qp, r)) {
		sroce_count(c, SROCE_CNT_RX_NO_WQE);
		kfree(r);
		return;
	}

	sroce_resp_grh(skb, grh);
	cqe.wr_id = r->w.wr_id;
	cqe.status = sroce_resp_scatter(qp, r, skb,
					sizeof(struct udphdr) + pkt->hdr_len,
					pkt->paylen, grh);
	kfree(r);
	cqe.opcode = IB_WC_RECV;
	cqe.byte_len = SROCE_GRH_BYTES + pkt->paylen;
	cqe.qp_num = qp->ibqp.qp_num;
	cqe.src_qp = deth.sqpn;
	cqe.sl = sroce_resp_pkt_type(skb);
	cqe.wc_flags = SROCE_WC_GRH;
	if (pkt->flags & SROCE_OPF_IMMDT) {
		memcpy(&cqe.ex, hdr + SROCE_BTH_BYTES + SROCE_DETH_BYTES,
		       sizeof(cqe.ex));
		cqe.wc_flags |= SROCE_WC_WITH_IMM;
	}
	sroce_cq_post(to_scq(qp->ibqp.recv_cq), &cqe, pkt->bth.se);
	/*
	 * A datagram that does not fit its receive buffer ends only that
	 * WQE (IBV_WC_LOC_LEN_ERR), as on hns: the sender is anyone who can
	 * reach the port and name the QP and its Q_Key, and must not end the
	 * QP. A receive WQE the QP's owner broke (a bad lkey or SGE list)
	 * moves the QP to error.
	 */
	if (cqe.status != IB_WC_SUCCESS && cqe.status != IB_WC_LOC_LEN_ERR)
		sroce_qp_error(qp);
}

/**
 * sroce_resp_ud() - a UD SEND ONLY (with immediate) to one QP arrived
 * @sdev: the device
 * @skb: data at the UDP header, checked by sroce_rcv(); not consumed
 * @pkt: what sroce_pkt_parse() found
 */
void sroce_resp_ud(struct sroce_dev *sdev, struct sk_buff *skb,
		   const struct sroce_pkt *pkt)
{
	struct sroce_qp *qp = sroce_qp_get(sdev, pkt->bth.dqpn);

	if (!qp) {
		sroce_count(&sdev->counters, SROCE_CNT_RX_NO_QP);
		return;
	}
	sroce_resp_ud_qp(sdev, qp, skb, pkt);
	sroce_qp_put(qp);
}
