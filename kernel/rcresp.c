// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rcresp.c: the responder of RC and UC QPs, in the softirq that received
 * the request. core/rc.c classifies the PSN and checks the request; this
 * file checks keys and rights against the MRs, places SEND and WRITE data,
 * executes READs and atomics, and answers: ACKs (coalesced: at message
 * ends, when asked, and for duplicates), NAKs with the IBTA syndromes, READ
 * responses and atomic ACKs, the last two also again for duplicates from
 * the responder resources.
 *
 * Errors (IBTA 9.9.3): an RC request that is invalid, lacks access, or
 * fails in the receive buffer is NAKed and the QP goes to the error state;
 * on UC such a message is dropped (a failed receive buffer completes in
 * error all the same).
 */
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <rdma/ib_mad.h>

#include "core/hdr.h"
#include "core/opcode.h"
#include "core/pkt.h"
#include "core/psn.h"
#include "counters.h"
#include "cq.h"
#include "device.h"
#include "mr.h"
#include "qp.h"
#include "rcresp.h"
#include "resp.h"
#include "xmit.h"

/* How a request ended */
enum sroce_rr {
	SROCE_RR_OK,			/* executed */
	SROCE_RR_DROP,			/* dropped, no answer */
	SROCE_RR_RNR,			/* no receive WQE: RNR NAK */
	SROCE_RR_INVALID,		/* NAK invalid request, error */
	SROCE_RR_ACCESS,		/* NAK remote access error, error */
	SROCE_RR_OP,			/* NAK remote operational error, error */
};

/* The extension headers of a request */
struct sroce_rr_hdrs {
	struct sroce_reth reth;
	struct sroce_atmeth atm;
	u32 imm;			/* as on the wire */
	u32 inv_rkey;
};

/**
 * sroce_rcresp_init() - allocate the responder resources of an RC or UC QP
 * @qp: the new QP
 *
 * Return: 0 or -ENOMEM.
 */
int sroce_rcresp_init(struct sroce_qp *qp)
{
	qp->resp.res = kcalloc(SROCE_MAX_RD_ATOMIC, sizeof(*qp->resp.res),
			       GFP_KERNEL);
	return qp->resp.res ? 0 : -ENOMEM;
}

void sroce_rcresp_cleanup(struct sroce_qp *qp)
{
	kfree(qp->resp.res);
}

/**
 * sroce_rcresp_start() - the QP enters RTR: expect rq_psn
 * @qp: the QP; qp->lock held
 */
void sroce_rcresp_start(struct sroce_qp *qp)
{
	struct sroce_resp *rs = &qp->resp;

	spin_lock(&qp->resp_lock);
	rs->epsn = qp->rq_psn;
	rs->msn = 0;
	rs->unacked = 0;
	rs->nak_sent = false;
	rs->have_wqe = false;
	rs->msg.opcode = SROCE_OPCODE_NONE;
	rs->msg.resid = 0;
	rs->recv_off = 0;
	rs->res_next = 0;
	memset(rs->res, 0, SROCE_MAX_RD_ATOMIC * sizeof(*rs->res));
	spin_unlock(&qp->resp_lock);
}

/* Send an ACK, a NAK or an atomic ACK (@orig) for @psn. */
static void sroce_rcresp_ack(struct sroce_qp *qp, u32 psn, u8 syndrome,
			     const u64 *orig)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	u32 len = SROCE_BTH_BYTES + SROCE_AETH_BYTES +
		  (orig ? SROCE_ATMACK_BYTES : 0);
	struct sroce_bth bth = {
		.opcode = orig ? SROCE_RC_ATOMIC_ACKNOWLEDGE :
				 SROCE_RC_ACKNOWLEDGE,
		.pkey = IB_DEFAULT_PKEY_FULL,
		.dqpn = qp->dest_qpn,
		.psn = psn,
	};
	struct sroce_aeth aeth = {
		.syndrome = syndrome,
		.msn = qp->resp.msn,
	};
	struct sk_buff *skb;

	skb = sroce_skb_alloc(sdev, &qp->av, len, GFP_ATOMIC);
	if (!skb)
		return;		/* the requester's timer covers it */
	sroce_bth_encode(&bth, skb->data);
	sroce_aeth_encode(&aeth, skb->data + SROCE_BTH_BYTES);
	if (orig) {
		struct sroce_atmack ack = { .orig = *orig };

		sroce_atmack_encode(&ack, skb->data + SROCE_BTH_BYTES +
				    SROCE_AETH_BYTES);
	}
	qp->resp.unacked = 0;
	sroce_qp_xmit(qp, &qp->av, skb);
}

static void sroce_rcresp_nak(struct sroce_qp *qp, u32 psn,
			     enum sroce_nak_code code)
{
	sroce_rcresp_ack(qp, psn, sroce_aeth_syn_nak(code), NULL);
}

/*
 * Answer an RDMA READ of @len bytes at @va with response packets from
 * @psn on. The caller checked the range; the MR is looked up again.
 */
static void sroce_rcresp_read(struct sroce_qp *qp, u32 psn, u64 va,
			      u32 rkey, u32 len)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	u32 n = sroce_rc_npkts(len, qp->mtu), k;
	struct sroce_mr *mr = NULL;

	if (len) {
		mr = sroce_mr_get(sdev, rkey);
		if (!mr)
			return;
	}
	for (k = 0; k < n; k++) {
		u32 paylen = sroce_rc_payload(len, qp->mtu, k);
		struct sroce_bth bth = {
			.pkey = IB_DEFAULT_PKEY_FULL,
			.dqpn = qp->dest_qpn,
			.psn = sroce_psn_add(psn, k),
			.pad = -paylen & 3,
		};
		struct sroce_aeth aeth = {
			.syndrome = sroce_rc_ack_syn(SROCE_RC_CREDITS_UNLIMITED),
			.msn = qp->resp.msn,
		};
		struct sk_buff *skb;
		u32 hdr;

		if (n == 1)
			bth.opcode = SROCE_RC_READ_RESPONSE_ONLY;
		else if (!k)
			bth.opcode = SROCE_RC_READ_RESPONSE_FIRST;
		else if (k == n - 1)
			bth.opcode = SROCE_RC_READ_RESPONSE_LAST;
		else
			bth.opcode = SROCE_RC_READ_RESPONSE_MIDDLE;
		hdr = sroce_opcode_hdr_len(bth.opcode);
		skb = sroce_skb_alloc(sdev, &qp->av, hdr + paylen + bth.pad,
				      GFP_ATOMIC);
		if (!skb)
			break;	/* the requester asks again for the rest */
		sroce_bth_encode(&bth, skb->data);
		if (hdr > SROCE_BTH_BYTES)
			sroce_aeth_encode(&aeth, skb->data + SROCE_BTH_BYTES);
		if (paylen)
			sroce_mr_copy(mr, va, skb->data + hdr, paylen,
				      SROCE_FROM_MR);
		memset(skb->data + hdr + paylen, 0, bth.pad);
		va += paylen;
		sroce_qp_xmit(qp, &qp->av, skb);
	}
	if (mr)
		sroce_mr_put(mr);
	qp->resp.unacked = 0;
}

/* Is [@va, @va + @len) of the MR named @rkey open to this access? */
static bool sroce_rcresp_range_ok(struct sroce_qp *qp, u32 rkey, u64 va,
				  u64 len, int access)
{
	struct sroce_mr *mr;
	bool ok;

	mr = sroce_mr_get(to_sdev(qp->ibqp.device), rkey);
	if (!mr)
		return false;
	ok = !sroce_mr_check(mr, qp->ibqp.pd, va, len, access);
	sroce_mr_put(mr);
	return ok;
}

/* Keep a READ or atomic for its duplicates, in place of the oldest. */
static struct sroce_res *sroce_rcresp_res(struct sroce_qp *qp, u8 op,
					  u32 psn, u32 npsn)
{
	struct sroce_resp *rs = &qp->resp;
	struct sroce_res *res = &rs->res[rs->res_next++ %
					 qp->max_dest_rd_atomic];

	res->op = op + 1;
	res->psn = psn;
	res->npsn = npsn;
	res->orig = 0;
	return res;
}

/* Complete the receive WQE being filled. */
static void sroce_rcresp_complete(struct sroce_qp *qp,
				  enum ib_wc_status status, u32 opcode,
				  u32 len, const struct sroce_pkt *pkt,
				  const struct sroce_rr_hdrs *h)
{
	struct sroce_resp *rs = &qp->resp;
	struct sroce_cqe cqe = {
		.wr_id = rs->wqe.w.wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = len,
		.qp_num = qp->ibqp.qp_num,
		.src_qp = qp->dest_qpn,
	};

	if (status == IB_WC_SUCCESS && (pkt->flags & SROCE_OPF_IMMDT)) {
		cqe.ex = h->imm;
		cqe.wc_flags |= SROCE_WC_WITH_IMM;
	} else if (status == IB_WC_SUCCESS && (pkt->flags & SROCE_OPF_IETH)) {
		cqe.ex = h->inv_rkey;
		cqe.wc_flags |= SROCE_WC_WITH_INV;
	}
	rs->have_wqe = false;
	sroce_cq_post(to_scq(qp->ibqp.recv_cq), &cqe,
		      status == IB_WC_SUCCESS && pkt->bth.se);
}

/* A receive WQE for the message, or false: none posted. */
static bool sroce_rcresp_wqe(struct sroce_qp *qp)
{
	struct sroce_resp *rs = &qp->resp;

	if (rs->have_wqe)
		return true;
	if (!sroce_resp_take(qp, &rs->wqe))
		return false;
	rs->have_wqe = true;
	rs->recv_off = 0;
	return true;
}

static enum sroce_rr sroce_rcresp_send(struct sroce_qp *qp,
				       struct sk_buff *skb,
				       const struct sroce_pkt *pkt,
				       const struct sroce_rr_hdrs *h)
{
	struct sroce_resp *rs = &qp->resp;
	struct sroce_sgl l = {
		.sdev = to_sdev(qp->ibqp.device),
		.pd = qp->ibqp.pd,
		.sge = rs->wqe.sge,
		.num = rs->wqe.w.num_sge,
	};
	int err;

	if (!sroce_rcresp_wqe(qp))
		return SROCE_RR_RNR;
	if (pkt->flags & SROCE_OPF_FIRST)
		rs->recv_off = 0;	/* also after a UC message was cut */
	if (rs->wqe.w.num_sge == U32_MAX) {
		sroce_rcresp_complete(qp, IB_WC_LOC_QP_OP_ERR, IB_WC_RECV, 0,
				      pkt, h);
		return SROCE_RR_OP;
	}
	l.num = rs->wqe.w.num_sge;
	err = sroce_sgl_copy_skb(&l, rs->recv_off, skb,
				 sizeof(struct udphdr) + pkt->hdr_len,
				 pkt->paylen);
	if (err) {
		bool len = err == -ENOSPC;

		sroce_rcresp_complete(qp, len ? IB_WC_LOC_LEN_ERR :
				      IB_WC_LOC_PROT_ERR, IB_WC_RECV, 0, pkt, h);
		return len ? SROCE_RR_INVALID : SROCE_RR_OP;
	}
	rs->recv_off += pkt->paylen;
	if (pkt->flags & SROCE_OPF_LAST)
		sroce_rcresp_complete(qp, IB_WC_SUCCESS, IB_WC_RECV,
				      rs->recv_off, pkt, h);
	return SROCE_RR_OK;
}

static enum sroce_rr sroce_rcresp_write(struct sroce_qp *qp,
					struct sk_buff *skb,
					const struct sroce_pkt *pkt,
					const struct sroce_rr_hdrs *h)
{
	struct sroce_resp *rs = &qp->resp;
	struct sroce_mr *mr;
	int err;

	if (pkt->flags & SROCE_OPF_RETH) {
		if (h->reth.len &&
		    !sroce_rcresp_range_ok(qp, h->reth.rkey, h->reth.va,
					   h->reth.len,
					   IB_ACCESS_REMOTE_WRITE))
			return SROCE_RR_ACCESS;
		rs->write_va = h->reth.va;
		rs->write_rkey = h->reth.rkey;
		rs->write_len = h->reth.len;
	}
	/* With immediate data, the message needs a receive WQE. */
	if ((pkt->flags & SROCE_OPF_IMMDT) && !sroce_rcresp_wqe(qp))
		return SROCE_RR_RNR;
	if (pkt->paylen) {
		mr = sroce_mr_get(to_sdev(qp->ibqp.device), rs->write_rkey);
		if (!mr)
			return SROCE_RR_ACCESS;
		err = sroce_mr_check(mr, qp->ibqp.pd, rs->write_va,
				     pkt->paylen, IB_ACCESS_REMOTE_WRITE);
		if (!err)
			err = sroce_mr_copy_skb(mr, rs->write_va, skb,
						sizeof(struct udphdr) +
						pkt->hdr_len, pkt->paylen);
		sroce_mr_put(mr);
		if (err)
			return SROCE_RR_ACCESS;
		rs->write_va += pkt->paylen;
	}
	if (pkt->flags & SROCE_OPF_IMMDT)
		sroce_rcresp_complete(qp, IB_WC_SUCCESS,
				      IB_WC_RECV_RDMA_WITH_IMM, rs->write_len,
				      pkt, h);
	return SROCE_RR_OK;
}

static enum sroce_rr sroce_rcresp_read_req(struct sroce_qp *qp,
					   const struct sroce_pkt *pkt,
					   const struct sroce_rr_hdrs *h)
{
	if (!qp->max_dest_rd_atomic)
		return SROCE_RR_INVALID;
	if (h->reth.len &&
	    !sroce_rcresp_range_ok(qp, h->reth.rkey, h->reth.va, h->reth.len,
				   IB_ACCESS_REMOTE_READ))
		return SROCE_RR_ACCESS;
	sroce_rcresp_res(qp, SROCE_RC_OP_READ, pkt->bth.psn,
			 sroce_rc_npkts(h->reth.len, qp->mtu));
	return SROCE_RR_OK;
}

static enum sroce_rr sroce_rcresp_atomic(struct sroce_qp *qp,
					 const struct sroce_pkt *pkt,
					 const struct sroce_rr_hdrs *h,
					 u64 *orig)
{
	bool cmp_swap = pkt->bth.opcode == SROCE_RC_COMPARE_SWAP;
	struct sroce_mr *mr;
	int err;

	if (!qp->max_dest_rd_atomic ||
	    !sroce_rc_atomic_ok(h->atm.va, SROCE_RC_ATOMIC_BYTES))
		return SROCE_RR_INVALID;
	mr = sroce_mr_get(to_sdev(qp->ibqp.device), h->atm.rkey);
	if (!mr)
		return SROCE_RR_ACCESS;
	err = sroce_mr_check(mr, qp->ibqp.pd, h->atm.va, SROCE_RC_ATOMIC_BYTES,
			     IB_ACCESS_REMOTE_ATOMIC);
	if (!err)
		err = sroce_mr_atomic(mr, h->atm.va, cmp_swap,
				      cmp_swap ? h->atm.compare :
				      h->atm.swap_add, h->atm.swap_add, orig);
	sroce_mr_put(mr);
	if (err)
		return err == -EINVAL ? SROCE_RR_INVALID : SROCE_RR_ACCESS;
	sroce_rcresp_res(qp, cmp_swap ? SROCE_RC_OP_CMP_SWAP :
			 SROCE_RC_OP_FETCH_ADD, pkt->bth.psn, 1)->orig = *orig;
	return SROCE_RR_OK;
}

/*
 * A duplicate request: ACK a SEND or WRITE again, answer a READ or an
 * atomic again from its resource (a READ for the part it asks), drop
 * anything else.
 */
static void sroce_rcresp_dup(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			     const struct sroce_rr_hdrs *h)
{
	struct sroce_resp *rs = &qp->resp;
	u32 psn = pkt->bth.psn, i;

	if (!(pkt->flags & (SROCE_OPF_READ | SROCE_OPF_ATOMIC))) {
		sroce_rcresp_ack(qp, sroce_psn_add(rs->epsn, SROCE_PSN_MASK),
				 sroce_rc_ack_syn(SROCE_RC_CREDITS_UNLIMITED),
				 NULL);
		return;
	}
	for (i = 0; i < qp->max_dest_rd_atomic; i++) {
		struct sroce_res *res = &rs->res[i];

		if (!res->op || !sroce_psn_in_window(psn, res->psn, res->npsn))
			continue;
		if ((pkt->flags & SROCE_OPF_ATOMIC) &&
		    res->op != SROCE_RC_OP_READ + 1 && res->psn == psn) {
			sroce_rcresp_ack(qp, psn,
					 sroce_rc_ack_syn(SROCE_RC_CREDITS_UNLIMITED),
					 &res->orig);
			return;
		}
		if ((pkt->flags & SROCE_OPF_READ) &&
		    res->op == SROCE_RC_OP_READ + 1 &&
		    sroce_psn_sub(psn, res->psn) +
		    sroce_rc_npkts(h->reth.len, qp->mtu) <= res->npsn &&
		    (!h->reth.len ||
		     sroce_rcresp_range_ok(qp, h->reth.rkey, h->reth.va,
					   h->reth.len, IB_ACCESS_REMOTE_READ))) {
			sroce_rcresp_read(qp, psn, h->reth.va, h->reth.rkey,
					  h->reth.len);
			return;
		}
	}
}

/* Where a header the opcode has (its flag is set) starts. */
static unsigned int rr_off(u8 opcode, u32 hdr)
{
	return sroce_opcode_hdr_offset(opcode, hdr);
}

static void sroce_rcresp_hdrs(struct sk_buff *skb, const struct sroce_pkt *pkt,
			      struct sroce_rr_hdrs *h)
{
	const u8 *bth = skb->data + sizeof(struct udphdr);
	u8 op = pkt->bth.opcode;

	memset(h, 0, sizeof(*h));
	/* sroce_rcv() pulled every header into the linear area. */
	if (pkt->flags & SROCE_OPF_RETH)
		sroce_reth_decode(bth + rr_off(op, SROCE_OPF_RETH), &h->reth);
	if (pkt->flags & SROCE_OPF_ATMETH)
		sroce_atmeth_decode(bth + rr_off(op, SROCE_OPF_ATMETH),
				    &h->atm);
	if (pkt->flags & SROCE_OPF_IMMDT)
		memcpy(&h->imm, bth + rr_off(op, SROCE_OPF_IMMDT),
		       sizeof(h->imm));
	if (pkt->flags & SROCE_OPF_IETH) {
		struct sroce_ieth ieth;

		sroce_ieth_decode(bth + rr_off(op, SROCE_OPF_IETH), &ieth);
		h->inv_rkey = ieth.rkey;
	}
}

static enum sroce_rr sroce_rcresp_exec(struct sroce_qp *qp,
				       struct sk_buff *skb,
				       const struct sroce_pkt *pkt,
				       const struct sroce_rr_hdrs *h,
				       u64 *orig)
{
	u32 need = sroce_rc_access(pkt->bth.opcode);

	if (need & ~qp->access)
		return SROCE_RR_ACCESS;
	if (pkt->flags & SROCE_OPF_SEND)
		return sroce_rcresp_send(qp, skb, pkt, h);
	if (pkt->flags & SROCE_OPF_WRITE)
		return sroce_rcresp_write(qp, skb, pkt, h);
	if (pkt->flags & SROCE_OPF_READ)
		return sroce_rcresp_read_req(qp, pkt, h);
	return sroce_rcresp_atomic(qp, pkt, h, orig);
}

/* The request is carried out: move on, and answer it if due. */
static void sroce_rcresp_accepted(struct sroce_qp *qp,
				  const struct sroce_pkt *pkt,
				  const struct sroce_rr_hdrs *h, u64 orig)
{
	struct sroce_resp *rs = &qp->resp;
	u32 psn = pkt->bth.psn;

	rs->epsn = sroce_psn_add(rs->epsn,
				 sroce_rc_resp_accept(&rs->msg, pkt,
						      h->reth.len, qp->mtu));
	rs->msn = sroce_rc_msn_next(rs->msn, pkt->bth.opcode);
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return;
	rs->unacked++;
	if (pkt->flags & SROCE_OPF_READ)
		sroce_rcresp_read(qp, psn, h->reth.va, h->reth.rkey,
				  h->reth.len);
	else if (pkt->flags & SROCE_OPF_ATOMIC)
		sroce_rcresp_ack(qp, psn,
				 sroce_rc_ack_syn(SROCE_RC_CREDITS_UNLIMITED),
				 &orig);
	else if (sroce_rc_ack_now(SROCE_RC_PSN_EXPECTED, pkt, rs->unacked,
				  0))
		sroce_rcresp_ack(qp, psn,
				 sroce_rc_ack_syn(SROCE_RC_CREDITS_UNLIMITED),
				 NULL);
}

/*
 * Returns false to drop the packet; for UC, restarts at a new message
 * after lost packets.
 */
static bool sroce_rcresp_psn(struct sroce_qp *qp, const struct sroce_pkt *pkt,
			     const struct sroce_rr_hdrs *h)
{
	struct sroce_resp *rs = &qp->resp;

	if (qp->ibqp.qp_type == IB_QPT_UC) {
		if (pkt->bth.psn == rs->epsn)
			return true;
		/* Packets were lost: the message in progress is gone. */
		rs->msg.opcode = SROCE_OPCODE_NONE;
		rs->msg.resid = 0;
		if (!(pkt->flags & SROCE_OPF_FIRST))
			return false;
		rs->epsn = pkt->bth.psn;
		return true;
	}
	switch (sroce_rc_resp_psn(pkt->bth.psn, rs->epsn, &rs->nak_sent)) {
	case SROCE_RC_PSN_EXPECTED:
		return true;
	case SROCE_RC_PSN_DUPLICATE:
		sroce_count(&to_sdev(qp->ibqp.device)->counters,
			    SROCE_CNT_RC_DUP_REQ);
		sroce_rcresp_dup(qp, pkt, h);
		return false;
	case SROCE_RC_PSN_NAK_SEQ:
		sroce_count(&to_sdev(qp->ibqp.device)->counters,
			    SROCE_CNT_RC_SEQ_NAK_SENT);
		sroce_rcresp_nak(qp, rs->epsn, SROCE_NAK_PSN_SEQ_ERR);
		return false;
	default:
		return false;
	}
}

/**
 * sroce_rcresp_rcv() - a request for an RC or UC QP arrived
 * @sdev: the device
 * @qp: the QP, referenced by the caller, of the opcode's transport
 * @skb: data at the UDP header, checked by sroce_rcv(); not consumed
 * @pkt: what sroce_pkt_parse() found
 */
void sroce_rcresp_rcv(struct sroce_dev *sdev, struct sroce_qp *qp,
		      struct sk_buff *skb, const struct sroce_pkt *pkt)
{
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct sroce_resp *rs = &qp->resp;
	enum sroce_rc_req_verdict v;
	struct sroce_rr_hdrs h;
	enum sroce_rr rr;
	u64 orig = 0;

	if (state != IB_QPS_RTR && state != IB_QPS_RTS &&
	    state != IB_QPS_SQD && state != IB_QPS_SQE) {
		sroce_count(&sdev->counters, SROCE_CNT_RX_QP_STATE);
		return;
	}
	sroce_rcresp_hdrs(skb, pkt, &h);

	spin_lock(&qp->resp_lock);
	if (!sroce_rcresp_psn(qp, pkt, &h))
		goto out;
	v = sroce_rc_resp_check(&rs->msg, pkt, h.reth.len, qp->mtu,
				rc ? SROCE_QPT_RC : SROCE_QPT_UC);
	if (v == SROCE_RC_REQ_DROP) {
		sroce_count(&sdev->counters, SROCE_CNT_RX_UNHANDLED);
		goto out;
	}
	rr = v == SROCE_RC_REQ_OK ?
	     sroce_rcresp_exec(qp, skb, pkt, &h, &orig) : SROCE_RR_INVALID;
	switch (rr) {
	case SROCE_RR_OK:
		sroce_rcresp_accepted(qp, pkt, &h, orig);
		goto out;
	case SROCE_RR_RNR:
		sroce_count(&sdev->counters, SROCE_CNT_RX_NO_WQE);
		if (rc) {
			sroce_count(&sdev->counters, SROCE_CNT_RC_RNR_NAK_SENT);
			rs->nak_sent = true;
			sroce_rcresp_ack(qp, rs->epsn,
					 sroce_aeth_syn_rnr(qp->min_rnr_timer),
					 NULL);
		} else {
			/* UC: the message is dropped; so is its rest. */
			rs->msg.opcode = SROCE_OPCODE_NONE;
			rs->msg.resid = 0;
		}
		goto out;
	default:
		break;
	}
	if (!rc) {
		/* UC: drop the message, unless its receive WQE failed. */
		rs->msg.opcode = SROCE_OPCODE_NONE;
		rs->msg.resid = 0;
		if (rr != SROCE_RR_OP && !(rr == SROCE_RR_INVALID &&
					   (pkt->flags & SROCE_OPF_SEND)))
			goto out;
	} else {
		sroce_rcresp_nak(qp, rs->epsn,
				 rr == SROCE_RR_INVALID ? SROCE_NAK_INVALID_REQ :
				 rr == SROCE_RR_ACCESS ?
				 SROCE_NAK_REM_ACCESS_ERR : SROCE_NAK_REM_OP_ERR);
	}
	spin_unlock(&qp->resp_lock);
	sroce_qp_error_event(qp, rr == SROCE_RR_INVALID ? IB_EVENT_QP_REQ_ERR :
			     rr == SROCE_RR_ACCESS ? IB_EVENT_QP_ACCESS_ERR :
			     SROCE_EVENT_NONE);
	return;
out:
	spin_unlock(&qp->resp_lock);
}

/**
 * sroce_rcresp_flush() - the QP is in the error state
 * @qp: the QP; qp->lock and resp_lock held
 *
 * A receive WQE a SEND was placing into completes with
 * IB_WC_WR_FLUSH_ERR, before those still in the ring.
 */
void sroce_rcresp_flush(struct sroce_qp *qp)
{
	struct sroce_resp *rs = &qp->resp;
	struct sroce_cqe cqe = {
		.wr_id = rs->wqe.w.wr_id,
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp_num = qp->ibqp.qp_num,
	};

	if (!rs->have_wqe)
		return;
	rs->have_wqe = false;
	sroce_cq_post(to_scq(qp->ibqp.recv_cq), &cqe, false);
}
