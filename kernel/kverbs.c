// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kverbs.c: verbs for kernel consumers. With them the RDMA core marks the
 * device kverbs_provider, and the MAD layer (QP1), the IB CM and the RDMA
 * CM attach to it.
 *
 * A kernel QP, SRQ or CQ has the same rings as a user one, in kernel
 * memory only (no mmap entry). post_send, post_recv and post_srq_recv
 * write each work request into its ring exactly as the provider does
 * (uapi/rdma/sroce-abi.h), and poll_cq reads CQEs back into ib_wcs, so
 * the engines cannot tell kernel queues from user ones.
 *
 * Kernel consumers post from any context, the MAD layer with interrupts
 * off, while the requester sleeps to allocate and takes the QP's locks
 * with bottom halves off. So posting only fills the ring under the leaf
 * lock post_lock and queues the QP's send work (doorbell.c), holding a QP
 * reference, which rings the doorbell in process context: destroy_qp
 * stops it before it waits for the references.
 *
 * Addresses in SGEs are kernel virtual addresses: sroce has no DMA device,
 * so ib_dma_map_*() returns them (ib_uses_virt_dma()), and the PD's
 * local_dma_lkey names a DMA MR (sroce_get_dma_mr()) that covers them.
 */
#include <rdma/sroce-abi.h>

#include "av.h"
#include "cq.h"
#include "device.h"
#include "doorbell.h"
#include "kverbs.h"
#include "mr.h"
#include "qp.h"
#include "req.h"
#include "srq.h"

/* Called by sroce_create_qp() for every QP. */
void sroce_kverbs_qp_init(struct sroce_qp *qp)
{
	spin_lock_init(&qp->post_lock);
}

/* Ring the doorbell of a kernel QP from its send work; any context. */
static void sroce_kverbs_kick(struct sroce_qp *qp)
{
	sroce_req_defer(qp);
}

/*
 * Free slots of a ring the kernel produces into and consumes from; its
 * post_lock held. Both indices are the kernel's own.
 */
static u32 sroce_kverbs_room(const struct sroce_queue *q)
{
	/* Pairs with the consumer's release: it is done with those slots. */
	u32 used = READ_ONCE(q->ring->prod) - smp_load_acquire(&q->ring->cons);

	return used > sroce_queue_entries(q) ? 0 :
	       sroce_queue_entries(q) - used;
}

static void sroce_kverbs_publish(struct sroce_queue *q, u32 n)
{
	/* The WQEs are written before the consumer can see them. */
	smp_store_release(&q->ring->prod, READ_ONCE(q->ring->prod) + n);
}

static void *sroce_kverbs_next_slot(const struct sroce_queue *q, u32 n)
{
	return sroce_queue_slot(q, READ_ONCE(q->ring->prod) + n);
}

/* The WQE opcode of @op on a QP of @type, or -1: as the provider's. */
static int sroce_kverbs_opcode(enum ib_qp_type type, enum ib_wr_opcode op)
{
	bool rc = type == IB_QPT_RC, uc = type == IB_QPT_UC;

	switch (op) {
	case IB_WR_SEND:
		return IB_UVERBS_WR_SEND;
	case IB_WR_SEND_WITH_IMM:
		return IB_UVERBS_WR_SEND_WITH_IMM;
	case IB_WR_RDMA_WRITE:
		return rc || uc ? IB_UVERBS_WR_RDMA_WRITE : -1;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return rc || uc ? IB_UVERBS_WR_RDMA_WRITE_WITH_IMM : -1;
	case IB_WR_SEND_WITH_INV:
		return rc ? IB_UVERBS_WR_SEND_WITH_INV : -1;
	case IB_WR_RDMA_READ:
		return rc ? IB_UVERBS_WR_RDMA_READ : -1;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return rc ? IB_UVERBS_WR_ATOMIC_CMP_AND_SWP : -1;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return rc ? IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD : -1;
	case IB_WR_LOCAL_INV:
		return rc || uc ? IB_UVERBS_WR_LOCAL_INV : -1;
	case IB_WR_REG_MR:
		return rc || uc ? SROCE_KWR_REG_MR : -1;
	default:
		return -1;	/* BIND_MW, LSO, ...: not supported */
	}
}

static u32 sroce_kverbs_send_flags(int flags)
{
	return (flags & IB_SEND_FENCE ? SROCE_SEND_FENCE : 0) |
	       (flags & IB_SEND_SIGNALED ? SROCE_SEND_SIGNALED : 0) |
	       (flags & IB_SEND_SOLICITED ? SROCE_SEND_SOLICITED : 0) |
	       (flags & IB_SEND_INLINE ? SROCE_SEND_INLINE : 0);
}

/*
 * Check @wr against the QP's caps and encode it into @slot.
 * Return: 0 or -EINVAL, with nothing written.
 */
static int sroce_kverbs_write_send(struct sroce_qp *qp, void *slot,
				   const struct ib_send_wr *wr)
{
	bool ud = qp->ibqp.qp_type == IB_QPT_UD ||
		  qp->ibqp.qp_type == IB_QPT_GSI;
	/*
	 * In the error state every request is flushed unread: take any
	 * opcode, so that ib_drain_sq()'s RDMA WRITE (no AH) drains UD too.
	 */
	bool flush = READ_ONCE(qp->state) == IB_QPS_ERR;
	enum ib_qp_type type = flush ? IB_QPT_RC :
			       ud ? IB_QPT_UD : qp->ibqp.qp_type;
	int op = sroce_kverbs_opcode(type, wr->opcode);
	struct sroce_send_wqe w = {};
	u8 *p = (u8 *)slot + sizeof(w);
	u64 len = 0;
	int i;

	if (op < 0 || wr->num_sge < 0 || wr->num_sge > qp->max_send_sge)
		return -EINVAL;
	if ((op == IB_UVERBS_WR_LOCAL_INV || op == SROCE_KWR_REG_MR) &&
	    (wr->num_sge || (wr->send_flags & IB_SEND_INLINE)))
		return -EINVAL;
	if (op == SROCE_KWR_REG_MR && !flush &&
	    (reg_wr(wr)->mr->device != qp->ibqp.device ||
	     to_smr(reg_wr(wr)->mr)->kind != SROCE_MR_FAST))
		return -EINVAL;
	if (ud && !flush && !ud_wr(wr)->ah)
		return -EINVAL;
	if ((op == IB_UVERBS_WR_ATOMIC_CMP_AND_SWP ||
	     op == IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD) &&
	    (atomic_wr(wr)->remote_addr & 7))
		return -EINVAL;
	if (wr->send_flags & IB_SEND_INLINE) {
		if (op != IB_UVERBS_WR_SEND && op != IB_UVERBS_WR_SEND_WITH_IMM &&
		    op != IB_UVERBS_WR_SEND_WITH_INV &&
		    op != IB_UVERBS_WR_RDMA_WRITE &&
		    op != IB_UVERBS_WR_RDMA_WRITE_WITH_IMM)
			return -EINVAL;
		for (i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		if (len > qp->max_inline)
			return -EINVAL;
	}

	w.wr_id = wr->wr_id;
	w.opcode = op;
	w.send_flags = sroce_kverbs_send_flags(wr->send_flags);
	if (qp->sq_sig_all)
		w.send_flags |= SROCE_SEND_SIGNALED;
	if (op == IB_UVERBS_WR_SEND_WITH_IMM ||
	    op == IB_UVERBS_WR_RDMA_WRITE_WITH_IMM)
		w.ex.imm_data = wr->ex.imm_data;
	else if (op == IB_UVERBS_WR_SEND_WITH_INV ||
		 op == IB_UVERBS_WR_LOCAL_INV)
		w.ex.invalidate_rkey = wr->ex.invalidate_rkey;

	switch (op) {
	case IB_UVERBS_WR_RDMA_WRITE:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
	case IB_UVERBS_WR_RDMA_READ:
		w.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		w.wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case SROCE_KWR_REG_MR: {
		/* The range as map_mr_sg() and its user left it, now. */
		struct sroce_fast_reg reg = {
			.iova = reg_wr(wr)->mr->iova,
			.length = reg_wr(wr)->mr->length,
			.key = reg_wr(wr)->key,
			.access = reg_wr(wr)->access,
		};

		static_assert(sizeof(reg) <= sizeof(w.wr));
		memcpy(&w.wr, &reg, sizeof(reg));
		break;
	}
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		w.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		w.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		w.wr.atomic.swap = atomic_wr(wr)->swap;
		w.wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	default:
		if (ud && ud_wr(wr)->ah) {
			/* The requester checks the number and the PD. */
			w.wr.ud.ah = to_sah(ud_wr(wr)->ah)->num;
			w.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
			w.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		}
		break;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		/* Inline data is at kernel virtual addresses, never mapped. */
		w.inline_len = len;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		struct sroce_sge *sge = (struct sroce_sge *)p;

		w.num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
	}
	memcpy(slot, &w, sizeof(w));
	return 0;
}

/**
 * sroce_kverbs_post_send() - post_send on a kernel QP
 * @qp: the QP
 * @wr: a chain of work requests
 * @bad_wr: set to the first one not posted
 *
 * Any context. Posting before RTS is an error; the requests before the
 * first one that fails its checks (-EINVAL) or finds the ring full
 * (-ENOMEM) are posted. In the error state they are flushed.
 *
 * Return: 0 or a negative errno.
 */
int sroce_kverbs_post_send(struct sroce_qp *qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	unsigned long flags;
	u32 room, n = 0;
	int err = 0;

	if (!wr)
		return 0;
	if (READ_ONCE(qp->state) < IB_QPS_RTS) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->post_lock, flags);
	room = sroce_kverbs_room(&qp->sq);
	for (; wr; wr = wr->next, n++) {
		err = n < room ? sroce_kverbs_write_send(qp,
				sroce_kverbs_next_slot(&qp->sq, n), wr) :
				-ENOMEM;
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	if (n)
		sroce_kverbs_publish(&qp->sq, n);
	spin_unlock_irqrestore(&qp->post_lock, flags);

	if (n)
		sroce_kverbs_kick(qp);
	return err;
}

static void sroce_kverbs_write_recv(void *slot, const struct ib_recv_wr *wr)
{
	struct sroce_recv_wqe w = {
		.wr_id = wr->wr_id,
		.num_sge = wr->num_sge,
	};
	struct sroce_sge *sge = (struct sroce_sge *)((u8 *)slot + sizeof(w));
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	memcpy(slot, &w, sizeof(w));
}

/* Post a chain of receives to @q; return the number posted. */
static u32 sroce_kverbs_post_rq(struct sroce_queue *q, spinlock_t *lock,
				u32 max_sge, const struct ib_recv_wr *wr,
				const struct ib_recv_wr **bad_wr, int *err)
{
	unsigned long flags;
	u32 room, n = 0;

	*err = 0;
	spin_lock_irqsave(lock, flags);
	room = sroce_kverbs_room(q);
	for (; wr; wr = wr->next, n++) {
		if (wr->num_sge < 0 || wr->num_sge > max_sge)
			*err = -EINVAL;
		else if (n >= room)
			*err = -ENOMEM;
		if (*err) {
			*bad_wr = wr;
			break;
		}
		sroce_kverbs_write_recv(sroce_kverbs_next_slot(q, n), wr);
	}
	if (n)
		sroce_kverbs_publish(q, n);
	spin_unlock_irqrestore(lock, flags);
	return n;
}

/**
 * sroce_kverbs_post_recv() - post_recv on a kernel QP
 * @qp: the QP
 * @wr: a chain of work requests
 * @bad_wr: set to the first one not posted
 *
 * Any context. Receives may be posted from INIT on; in the error state
 * they are flushed (by the send work, whose doorbell flushes both queues).
 *
 * Return: 0, -EINVAL (RESET, an SRQ, too many SGEs) or -ENOMEM (full).
 */
int sroce_kverbs_post_recv(struct sroce_qp *qp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	int err;

	if (!wr)
		return 0;
	if (READ_ONCE(qp->state) == IB_QPS_RESET || qp->ibqp.srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/* The doorbell of a QP in error flushes both queues. */
	if (sroce_kverbs_post_rq(&qp->rq, &qp->post_lock, qp->max_recv_sge,
				 wr, bad_wr, &err) &&
	    READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_kverbs_kick(qp);
	return err;
}

/**
 * sroce_post_srq_recv() - post_srq_recv: receives to a kernel SRQ
 * @ibsrq: the SRQ
 * @wr: a chain of work requests
 * @bad_wr: set to the first one not posted
 *
 * Any context. User SRQs post through their ring.
 * Return: 0, -EINVAL (too many SGEs), -ENOMEM (full) or -EOPNOTSUPP.
 */
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int err;

	if (srq->rq.mmap)
		return -EOPNOTSUPP;
	sroce_kverbs_post_rq(&srq->rq, &srq->post_lock, srq->max_sge, wr,
			     bad_wr, &err);
	return err;
}

/*
 * The QP a completion is for. QPs are freed only an RCU grace period after
 * their number goes (sroce_destroy_qp()), so the lookup is safe; the
 * pointer is the consumer's own QP, which it keeps until it is done with
 * the CQ. A QP already destroyed, or not on this CQ, gives NULL.
 */
static struct ib_qp *sroce_kverbs_wc_qp(struct sroce_cq *cq, u32 qpn)
{
	struct sroce_dev *sdev = to_sdev(cq->ibcq.device);
	struct ib_qp *ibqp = NULL;
	struct sroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&sdev->qp_xa, qpn);
	if (qp && (qp->ibqp.send_cq == &cq->ibcq ||
		   qp->ibqp.recv_cq == &cq->ibcq))
		ibqp = &qp->ibqp;
	rcu_read_unlock();
	return ibqp;
}

/* A CQE (ibv values) as the kernel's ib_wc. */
static void sroce_kverbs_wc(struct sroce_cq *cq, const struct sroce_cqe *cqe,
			    struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->qp = sroce_kverbs_wc_qp(cq, cqe->qp_num);
	wc->src_qp = cqe->src_qp;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	wc->port_num = 1;
	if (cqe->wc_flags & SROCE_WC_GRH)
		wc->wc_flags |= IB_WC_GRH;
	if (cqe->wc_flags & SROCE_WC_WITH_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = (__force __be32)cqe->ex;
	} else if (cqe->wc_flags & SROCE_WC_WITH_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = cqe->ex;
	}
}

/**
 * sroce_poll_cq() - poll_cq: completions of a kernel CQ
 * @ibcq: the CQ
 * @num: at most this many
 * @wc: filled in
 *
 * Any context. User CQs are polled by the provider through their ring.
 * Return: the number of completions, or -EOPNOTSUPP.
 */
int sroce_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_queue *q = &cq->q;
	unsigned long flags;
	int n = 0;
	u32 cons;

	if (q->mmap)
		return -EOPNOTSUPP;

	/* The producers hold the same lock: cq->q.index is stable. */
	spin_lock_irqsave(&cq->lock, flags);
	cons = READ_ONCE(q->ring->cons);
	for (; n < num && cons != q->index; n++, cons++)
		sroce_kverbs_wc(cq, sroce_queue_slot(q, cons), &wc[n]);
	/* Pairs with sroce_queue_room(): the slots are free again. */
	smp_store_release(&q->ring->cons, cons);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}
