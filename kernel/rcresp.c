// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rcresp.c: the responder of RC and UC QPs, in the softirq that received
 * the request. core/rc.c classifies the PSN and checks the request; this
 * file checks keys and rights against the MRs, places SEND and WRITE data,
 * executes READs and atomics, and answers: ACKs (coalesced: when asked,
 * every 64 packets unasked, and for duplicates), NAKs with the IBTA
 * syndromes, READ responses (rcread.c) and atomic ACKs, the last two also
 * again for duplicates from the responder resources. While a READ is
 * answered by the tasklet, later requests wait in a backlog.
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
#include "mrio.h"
#include "mw.h"
#include "qp.h"
#include "rcread.h"
#include "rcresp.h"
#include "recv.h"
#include "resp.h"
#include "xmit.h"

/* How a request ended */
enum sroce_rr {
	SROCE_RR_OK,			/* executed */
	SROCE_RR_DROP,			/* corrupt (late ICRC), dropped */
	SROCE_RR_RNR,			/* no receive WQE: RNR NAK */
	SROCE_RR_INVALID,		/* NAK invalid request, error */
	SROCE_RR_ACCESS,		/* NAK remote access error, error */
	SROCE_RR_OP,			/* NAK remote operational error, error */
};

/* Requests queued behind a READ being answered, at most */
#define SROCE_RESP_BACKLOG	512

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
	skb_queue_head_init(&qp->resp.backlog);
	tasklet_setup(&qp->resp.task, sroce_rcresp_task);
	sroce_rcread_init(qp);
	qp->resp.res = kcalloc(SROCE_MAX_RD_ATOMIC, sizeof(*qp->resp.res),
			       GFP_KERNEL_ACCOUNT);
	return qp->resp.res ? 0 : -ENOMEM;
}

/* After the last reference: the tasklet has let go of the QP. */
void sroce_rcresp_cleanup(struct sroce_qp *qp)
{
	tasklet_kill(&qp->resp.task);	/* and returned */
	skb_queue_purge(&qp->resp.backlog);
	kfree(qp->resp.res);
}

/**
 * sroce_rcresp_stop() - the QP is dying: a paced READ stops waiting
 * @qp: the QP; qp->dying is set
 *
 * The tasklet the timer would have scheduled runs now, sees the QP dying
 * and lets go of it.
 */
void sroce_rcresp_stop(struct sroce_qp *qp)
{
	if (hrtimer_cancel(&qp->resp.pacer))
		tasklet_schedule(&qp->resp.task);
}

/* Forget the READ being answered and the requests waiting behind it. */
static void sroce_rcresp_abort(struct sroce_resp *rs)
{
	rs->rd.n = rs->rd.k;
	__skb_queue_purge(&rs->backlog);
}

/**
 * sroce_rcresp_reset() - the QP enters RESET: forget what was under way
 * @qp: the QP; qp->lock and resp_lock held
 *
 * A READ being answered sends nothing more, the requests behind it are
 * dropped, and a receive WQE a SEND was placing into is discarded with
 * the rest of the ring.
 */
void sroce_rcresp_reset(struct sroce_qp *qp)
{
	sroce_rcresp_abort(&qp->resp);
	qp->resp.have_wqe = false;
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
	rs->owed = false;
	rs->nak_sent = false;
	rs->have_wqe = false;
	sroce_rc_resp_msg_reset(&rs->msg);
	rs->recv_off = 0;
	rs->res_next = 0;
	memset(rs->res, 0, SROCE_MAX_RD_ATOMIC * sizeof(*rs->res));
	sroce_rcresp_abort(rs);
	spin_unlock(&qp->resp_lock);
}

/* Send an ACK, a NAK or an atomic ACK (@orig) for @psn. */
static void sroce_rcresp_ack(struct sroce_qp *qp, u32 psn, u8 syndrome,
			     const u64 *orig)
{
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

	skb = sroce_qp_skb_alloc(qp, len);
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
	qp->resp.owed = false;
	sroce_qp_xmit(qp, &qp->av, skb);
}

static void sroce_rcresp_nak(struct sroce_qp *qp, u32 psn,
			     enum sroce_nak_code code)
{
	sroce_rcresp_ack(qp, psn, sroce_aeth_syn_nak(code), NULL);
}

/* What @rkey opens at [@va, @va + @len) for this access (mw.c) */
static int sroce_rcresp_rkey(struct sroce_qp *qp, u32 rkey, u64 va, u64 len,
			     int access, struct sroce_rkey_ref *ref)
{
	return sroce_rkey_get(to_sdev(qp->ibqp.device), qp->ibqp.pd,
			      qp->ibqp.qp_num, rkey, va, len, access, ref);
}

/* Is [@va, @va + @len) of what @rkey names open to this access? */
static bool sroce_rcresp_range_ok(struct sroce_qp *qp, u32 rkey, u64 va,
				  u64 len, int access)
{
	struct sroce_rkey_ref ref;

	if (sroce_rcresp_rkey(qp, rkey, va, len, access, &ref))
		return false;
	sroce_rkey_put(&ref);
	return true;
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

/*
 * A request whose ICRC is still due (recv.c) ends other than by its copy:
 * check it first, so that only an intact packet gets an answer.
 */
static enum sroce_rr sroce_rcresp_fail(struct sroce_qp *qp,
				       struct sk_buff *skb,
				       const struct sroce_pkt *pkt,
				       enum sroce_rr rr)
{
	if (!sroce_rcv_crc_late(to_sdev(qp->ibqp.device), skb, pkt))
		return SROCE_RR_DROP;
	return rr;
}

/* A SEND fails in its receive WQE, which completes with @status. */
static enum sroce_rr sroce_rcresp_recv_fail(struct sroce_qp *qp,
					    struct sk_buff *skb,
					    const struct sroce_pkt *pkt,
					    const struct sroce_rr_hdrs *h,
					    enum ib_wc_status status,
					    enum sroce_rr rr)
{
	rr = sroce_rcresp_fail(qp, skb, pkt, rr);
	if (rr != SROCE_RR_DROP)
		sroce_rcresp_complete(qp, status, IB_WC_RECV, 0, pkt, h);
	return rr;
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
	unsigned int off = sizeof(struct udphdr) + pkt->hdr_len;
	u32 crc;
	int err;

	if (!sroce_rcresp_wqe(qp))
		return sroce_rcresp_fail(qp, skb, pkt, SROCE_RR_RNR);
	if (pkt->flags & SROCE_OPF_FIRST)
		rs->recv_off = 0;	/* also after a UC message was cut */
	if (rs->wqe.w.num_sge == U32_MAX)
		return sroce_rcresp_recv_fail(qp, skb, pkt, h,
					      IB_WC_LOC_QP_OP_ERR, SROCE_RR_OP);
	l.num = rs->wqe.w.num_sge;
	crc = pkt->crc_due ? sroce_rcv_crc_payload(skb, pkt) : 0;
	err = sroce_sgl_copy_skb(&l, rs->recv_off, skb, off, pkt->paylen,
				 pkt->crc_due ? &crc : NULL);
	if (err == -ENOSPC)
		return sroce_rcresp_recv_fail(qp, skb, pkt, h,
					      IB_WC_LOC_LEN_ERR,
					      SROCE_RR_INVALID);
	if (err)
		return sroce_rcresp_recv_fail(qp, skb, pkt, h,
					      IB_WC_LOC_PROT_ERR, SROCE_RR_OP);
	/* Copied as its ICRC was computed: now check it (recv.c). */
	if (pkt->crc_due &&
	    !sroce_rcv_crc_end(l.sdev, skb, off + pkt->paylen, crc))
		return SROCE_RR_DROP;
	rs->recv_off += pkt->paylen;
	if (!(pkt->flags & SROCE_OPF_LAST))
		return SROCE_RR_OK;
	/*
	 * With invalidate: the key closes before the receive completes; a
	 * key that cannot be invalidated here is an invalid request (IBTA
	 * 9.9.3 class J; the receive WQE completes with the error, as rxe's).
	 */
	if ((pkt->flags & SROCE_OPF_IETH) &&
	    sroce_key_invalidate(l.sdev, qp->ibqp.pd, qp->ibqp.qp_num,
				 h->inv_rkey, true)) {
		sroce_rcresp_complete(qp, IB_WC_REM_INV_REQ_ERR, IB_WC_RECV,
				      rs->recv_off, pkt, h);
		return SROCE_RR_INVALID;
	}
	sroce_rcresp_complete(qp, IB_WC_SUCCESS, IB_WC_RECV, rs->recv_off,
			      pkt, h);
	return SROCE_RR_OK;
}

static enum sroce_rr sroce_rcresp_write(struct sroce_qp *qp,
					struct sk_buff *skb,
					const struct sroce_pkt *pkt,
					const struct sroce_rr_hdrs *h)
{
	struct sroce_resp *rs = &qp->resp;
	struct sroce_rkey_ref ref;
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
		unsigned int off = sizeof(struct udphdr) + pkt->hdr_len;
		u32 crc = pkt->crc_due ? sroce_rcv_crc_payload(skb, pkt) : 0;

		err = sroce_rcresp_rkey(qp, rs->write_rkey, rs->write_va,
					pkt->paylen, IB_ACCESS_REMOTE_WRITE,
					&ref);
		if (!err) {
			err = sroce_mr_copy_skb(ref.mr, rs->write_va, skb, off,
						pkt->paylen,
						pkt->crc_due ? &crc : NULL);
			sroce_rkey_put(&ref);
		}
		if (err)
			return sroce_rcresp_fail(qp, skb, pkt, SROCE_RR_ACCESS);
		/* Copied as its ICRC was computed: now check it (recv.c). */
		if (pkt->crc_due &&
		    !sroce_rcv_crc_end(to_sdev(qp->ibqp.device), skb,
				       off + pkt->paylen, crc))
			return SROCE_RR_DROP;
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
	struct sroce_rkey_ref ref;
	int err;

	if (!qp->max_dest_rd_atomic ||
	    !sroce_rc_atomic_ok(h->atm.va, SROCE_RC_ATOMIC_BYTES))
		return SROCE_RR_INVALID;
	err = sroce_rcresp_rkey(qp, h->atm.rkey, h->atm.va,
				SROCE_RC_ATOMIC_BYTES, IB_ACCESS_REMOTE_ATOMIC,
				&ref);
	if (err)
		return SROCE_RR_ACCESS;
	err = sroce_mr_atomic(ref.mr, h->atm.va, cmp_swap,
			      cmp_swap ? h->atm.compare : h->atm.swap_add,
			      h->atm.swap_add, orig);
	sroce_rkey_put(&ref);
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
			sroce_rcread_start(qp, psn, h->reth.va, h->reth.rkey,
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
		return sroce_rcresp_fail(qp, skb, pkt, SROCE_RR_ACCESS);
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
		sroce_rcread_start(qp, psn, h->reth.va, h->reth.rkey,
				   h->reth.len);
	else if (pkt->flags & SROCE_OPF_ATOMIC)
		sroce_rcresp_ack(qp, psn,
				 sroce_rc_ack_syn(SROCE_RC_CREDITS_UNLIMITED),
				 &orig);
	else if (sroce_rc_ack_now(SROCE_RC_PSN_EXPECTED, pkt, rs->unacked,
				  rs->owed, SROCE_RC_ACK_UNASKED))
		sroce_rcresp_ack(qp, psn,
				 sroce_rc_ack_syn(SROCE_RC_CREDITS_UNLIMITED),
				 NULL);
	else
		rs->owed |= pkt->bth.ackreq;	/* the next answer's */
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
		sroce_rc_resp_msg_reset(&rs->msg);
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

static bool sroce_rcresp_state_ok(struct sroce_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);

	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

/*
 * Take one request; resp_lock held. Returns true when the QP must go to
 * the error state, with the asynchronous event in @event.
 */
static bool sroce_rcresp_take(struct sroce_dev *sdev, struct sroce_qp *qp,
			      struct sk_buff *skb, const struct sroce_pkt *pkt,
			      int *event)
{
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	struct sroce_resp *rs = &qp->resp;
	enum sroce_rc_req_verdict v;
	struct sroce_rr_hdrs h;
	enum sroce_rr rr;
	u64 orig = 0;

	sroce_rcresp_hdrs(skb, pkt, &h);
	if (!sroce_rcresp_psn(qp, pkt, &h))
		return false;
	v = sroce_rc_resp_check(&rs->msg, pkt, h.reth.len, qp->mtu,
				rc ? SROCE_QPT_RC : SROCE_QPT_UC);
	if (v != SROCE_RC_REQ_OK && !sroce_rcv_crc_late(sdev, skb, pkt))
		return false;
	if (v == SROCE_RC_REQ_DROP) {
		sroce_count(&sdev->counters, SROCE_CNT_RX_UNHANDLED);
		return false;
	}
	rr = v == SROCE_RC_REQ_OK ?
	     sroce_rcresp_exec(qp, skb, pkt, &h, &orig) : SROCE_RR_INVALID;
	switch (rr) {
	case SROCE_RR_OK:
		sroce_rcresp_accepted(qp, pkt, &h, orig);
		return false;
	case SROCE_RR_DROP:
		return false;
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
			sroce_rc_resp_msg_reset(&rs->msg);
		}
		return false;
	default:
		break;
	}
	if (!rc) {
		/* UC: drop the message, unless its receive WQE failed. */
		sroce_rc_resp_msg_reset(&rs->msg);
		if (rr != SROCE_RR_OP && !(rr == SROCE_RR_INVALID &&
					   (pkt->flags & SROCE_OPF_SEND)))
			return false;
	} else {
		sroce_rcresp_nak(qp, rs->epsn,
				 rr == SROCE_RR_INVALID ? SROCE_NAK_INVALID_REQ :
				 rr == SROCE_RR_ACCESS ?
				 SROCE_NAK_REM_ACCESS_ERR : SROCE_NAK_REM_OP_ERR);
	}
	*event = rr == SROCE_RR_INVALID ? IB_EVENT_QP_REQ_ERR :
		 rr == SROCE_RR_ACCESS ? IB_EVENT_QP_ACCESS_ERR :
		 SROCE_EVENT_NONE;
	return true;
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
	struct sroce_resp *rs = &qp->resp;
	struct sroce_pkt checked;
	int event;
	bool err;

	spin_lock(&qp->resp_lock);
	/*
	 * Under the lock: modify_qp changes what the responder uses, and
	 * RESET stops it, under this lock too.
	 */
	if (!sroce_rcresp_state_ok(qp)) {
		spin_unlock(&qp->resp_lock);
		if (sroce_rcv_crc_late(sdev, skb, pkt))
			sroce_count(&sdev->counters, SROCE_CNT_RX_QP_STATE);
		return;
	}
	/*
	 * The ICRC may wait for the copy only for the very packet the
	 * responder expects next, taken now: the PSN check then changes
	 * nothing, and the copy goes to the cursor (recv.c).
	 */
	if (pkt->crc_due && (rs->busy || rs->nak_sent ||
			     pkt->bth.psn != rs->epsn)) {
		if (!sroce_rcv_crc_late(sdev, skb, pkt)) {
			spin_unlock(&qp->resp_lock);
			return;
		}
		checked = *pkt;
		checked.crc_due = false;
		pkt = &checked;
	}
	if (READ_ONCE(qp->streak))
		WRITE_ONCE(qp->streak, 0);	/* its peer talks: no stream */
	/*
	 * Behind a READ being answered, requests wait in line; but a READ
	 * asked for again (the requester timed out or lost a response) is
	 * answered again now, from its resource, in place of the rest.
	 */
	if (rs->busy && !(pkt->bth.opcode == SROCE_RC_READ_REQUEST &&
			  sroce_psn_before(pkt->bth.psn, rs->epsn))) {
		if (skb_queue_len(&rs->backlog) < SROCE_RESP_BACKLOG)
			__skb_queue_tail(&rs->backlog, skb_get(skb));
		else
			sroce_count(&sdev->counters, SROCE_CNT_RX_BACKLOG);
		spin_unlock(&qp->resp_lock);
		return;
	}
	err = sroce_rcresp_take(sdev, qp, skb, pkt, &event);
	spin_unlock(&qp->resp_lock);
	if (err)
		sroce_qp_error_event(qp, event);
}

/* A request that waited in the backlog; resp_lock held, maybe dropped. */
static void sroce_rcresp_take_late(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	unsigned int udp = sizeof(struct udphdr);
	struct sroce_pkt pkt;
	int event;

	/* It was parsed on arrival; parse it again (same verdict). */
	if (sroce_pkt_parse(skb->data + udp, skb->len - udp, &pkt) !=
	    SROCE_PKT_OK)
		return;
	if (!sroce_rcresp_state_ok(qp)) {
		sroce_count(&sdev->counters, SROCE_CNT_RX_QP_STATE);
		return;
	}
	if (sroce_rcresp_take(sdev, qp, skb, &pkt, &event)) {
		spin_unlock(&qp->resp_lock);
		sroce_qp_error_event(qp, event);
		spin_lock(&qp->resp_lock);
	}
}

/*
 * The tasklet of a busy responder: the next burst of the READ being
 * answered, or else the next request that waited; then again, after the
 * softirqs before it (the receiver on this CPU takes each burst before
 * the next). It holds a QP reference until it is idle; destroy makes it
 * stop at once.
 */
void sroce_rcresp_task(struct tasklet_struct *t)
{
	struct sroce_qp *qp = from_tasklet(qp, t, resp.task);
	struct sroce_resp *rs = &qp->resp;
	struct sk_buff *skb;

	spin_lock(&qp->resp_lock);
	if (!rs->busy) {	/* a pacer that fired after the READ ended */
		spin_unlock(&qp->resp_lock);
		return;
	}
	if (READ_ONCE(qp->dying))
		sroce_rcresp_abort(rs);
	if (rs->rd.k < rs->rd.n) {
		if (sroce_rcread_burst(qp)) {
			spin_unlock(&qp->resp_lock);
			return;	/* the pacer schedules it again */
		}
	} else {
		skb = __skb_dequeue(&rs->backlog);
		if (!skb) {
			rs->busy = false;
			spin_unlock(&qp->resp_lock);
			sroce_qp_put(qp);
			return;
		}
		sroce_rcresp_take_late(qp, skb);
		consume_skb(skb);
	}
	spin_unlock(&qp->resp_lock);
	tasklet_schedule(t);	/* with the reference */
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

	sroce_rcresp_abort(rs);
	if (!rs->have_wqe)
		return;
	rs->have_wqe = false;
	sroce_cq_post(to_scq(qp->ibqp.recv_cq), &cqe, false);
}
