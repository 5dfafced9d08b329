// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qp.c: queue pairs: creation with their rings, the modify state machine
 * (transitions checked by ib_modify_qp_is_ok()), query, flush, destroy.
 *
 * A QP is found by number in the device's qp_xa with a reference
 * (sroce_qp_get()); destroy removes the number first, then waits for the
 * references to go, so an engine never works on a destroyed QP.
 */
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/sroce-abi.h>

#include "core/psn.h"
#include "core/rc.h"
#include "comp.h"
#include "cq.h"
#include "device.h"
#include "doorbell.h"
#include "kverbs.h"
#include "mcast.h"
#include "qp.h"
#include "verbs.h"
#include "xmit.h"

#define SROCE_QP_ATTR_MASK						\
	(IB_QP_STATE | IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS |		\
	 IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY | IB_QP_AV |	\
	 IB_QP_PATH_MTU | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |		\
	 IB_QP_RNR_RETRY | IB_QP_RQ_PSN | IB_QP_MAX_QP_RD_ATOMIC |	\
	 IB_QP_MIN_RNR_TIMER | IB_QP_SQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |\
	 IB_QP_DEST_QPN | IB_QP_EN_SQD_ASYNC_NOTIFY)

static int sroce_qp_check_caps(const struct ib_qp_cap *cap, bool srq)
{
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	if (!srq && (cap->max_recv_wr > SROCE_MAX_QP_WR ||
		     cap->max_recv_sge > SROCE_MAX_SGE))
		return -EINVAL;
	return 0;
}

/* Allocate the rings and report what was granted in @cap. */
static int sroce_qp_init_queues(struct sroce_qp *qp, struct ib_qp_cap *cap,
				bool srq, struct ib_udata *udata,
				struct sroce_create_qp_resp *resp)
{
	u32 room, stride;
	int err;

	room = max_t(u32, cap->max_send_sge * sizeof(struct sroce_sge),
		     cap->max_inline_data);
	stride = sizeof(struct sroce_send_wqe) + room;
	err = sroce_queue_init(&qp->sq, udata, max_t(u32, cap->max_send_wr, 1),
			       stride, &resp->sq);
	if (err)
		return err;
	room = qp->sq.stride - sizeof(struct sroce_send_wqe);
	qp->max_send_sge = min_t(u32, room / sizeof(struct sroce_sge),
				 SROCE_MAX_SGE);
	qp->max_inline = min_t(u32, room, SROCE_MAX_INLINE);
	cap->max_send_wr = sroce_queue_entries(&qp->sq);
	cap->max_send_sge = qp->max_send_sge;
	cap->max_inline_data = qp->max_inline;

	if (srq) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		return 0;
	}
	stride = sizeof(struct sroce_recv_wqe) +
		 max_t(u32, cap->max_recv_sge, 1) * sizeof(struct sroce_sge);
	err = sroce_queue_init(&qp->rq, udata, max_t(u32, cap->max_recv_wr, 1),
			       stride, &resp->rq);
	if (err) {
		sroce_queue_destroy(&qp->sq);
		return err;
	}
	room = qp->rq.stride - sizeof(struct sroce_recv_wqe);
	qp->max_recv_sge = min_t(u32, room / sizeof(struct sroce_sge),
				 SROCE_MAX_SGE);
	cap->max_recv_wr = sroce_queue_entries(&qp->rq);
	cap->max_recv_sge = qp->max_recv_sge;
	return 0;
}

static void sroce_qp_destroy_queues(struct sroce_qp *qp)
{
	if (qp->rq.ring)
		sroce_queue_destroy(&qp->rq);
	sroce_queue_destroy(&qp->sq);
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_create_qp_resp resp = {};
	bool gsi = init->qp_type == IB_QPT_GSI;
	bool srq = init->srq;
	u32 qpn;
	int err;

	/* QP1, the GSI QP, is the MAD layer's: kernel only. */
	if (gsi ? !!udata : init->qp_type != IB_QPT_RC &&
	    init->qp_type != IB_QPT_UC && init->qp_type != IB_QPT_UD)
		return -EOPNOTSUPP;
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = sroce_qp_check_caps(&init->cap, srq);
	if (err)
		return err;
	if (atomic_inc_return(&sdev->num_qp) > SROCE_MAX_QP) {
		err = -ENOMEM;
		goto err_count;
	}

	kref_init(&qp->ref);
	init_completion(&qp->free);
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->resp_lock);
	spin_lock_init(&qp->rq_lock);
	qp->state = IB_QPS_RESET;
	if (udata)
		qp->ibuc = &rdma_udata_to_drv_context(udata,
						      struct sroce_ucontext,
						      ibuc)->ibuc;
	sroce_kverbs_qp_init(qp);
	sroce_req_work_init(qp);
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->path_mtu = IB_MTU_1024;

	err = sroce_qp_init_queues(qp, &init->cap, srq, udata, &resp);
	if (err)
		goto err_count;
	sroce_cc_qp_init(qp);
	if (init->qp_type == IB_QPT_RC || init->qp_type == IB_QPT_UC) {
		err = sroce_route_init(qp);
		if (!err)
			err = sroce_req_init(qp);
		if (!err) {
			err = sroce_rcresp_init(qp);
			if (err)
				sroce_req_cleanup(qp);
		}
	} else {
		err = sroce_req_ud_init(qp);
	}
	if (err)
		goto err_queues_only;

	qpn = SROCE_GSI_QPN;
	if (gsi)
		err = xa_insert(&sdev->qp_xa, qpn, qp, GFP_KERNEL);
	else
		err = xa_alloc_cyclic(&sdev->qp_xa, &qpn, qp,
				      XA_LIMIT(SROCE_MIN_QPN, SROCE_QPN_MAX),
				      &sdev->qp_next, GFP_KERNEL);
	if (err < 0)
		goto err_queues;
	ibqp->qp_num = qpn;

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_qpn;
	}
	return 0;

err_qpn:
	xa_erase(&sdev->qp_xa, qpn);
err_queues:
	if (init->qp_type == IB_QPT_RC || init->qp_type == IB_QPT_UC)
		sroce_rcresp_cleanup(qp);
	sroce_req_cleanup(qp);
err_queues_only:
	sroce_route_fini(qp);
	sroce_qp_destroy_queues(qp);
err_count:
	atomic_dec(&sdev->num_qp);
	return err;
}

/* core/rc.h speaks in its own copies of these enums: keep them equal. */
static_assert((int)SROCE_WC_SUCCESS == (int)IB_WC_SUCCESS);
static_assert((int)SROCE_WC_LOC_LEN_ERR == (int)IB_WC_LOC_LEN_ERR);
static_assert((int)SROCE_WC_LOC_QP_OP_ERR == (int)IB_WC_LOC_QP_OP_ERR);
static_assert((int)SROCE_WC_LOC_PROT_ERR == (int)IB_WC_LOC_PROT_ERR);
static_assert((int)SROCE_WC_WR_FLUSH_ERR == (int)IB_WC_WR_FLUSH_ERR);
static_assert((int)SROCE_WC_BAD_RESP_ERR == (int)IB_WC_BAD_RESP_ERR);
static_assert((int)SROCE_WC_REM_INV_REQ_ERR == (int)IB_WC_REM_INV_REQ_ERR);
static_assert((int)SROCE_WC_REM_ACCESS_ERR == (int)IB_WC_REM_ACCESS_ERR);
static_assert((int)SROCE_WC_REM_OP_ERR == (int)IB_WC_REM_OP_ERR);
static_assert((int)SROCE_WC_RETRY_EXC_ERR == (int)IB_WC_RETRY_EXC_ERR);
static_assert((int)SROCE_WC_RNR_RETRY_EXC_ERR ==
	      (int)IB_WC_RNR_RETRY_EXC_ERR);
static_assert((int)SROCE_WC_GENERAL_ERR == (int)IB_WC_GENERAL_ERR);
static_assert((int)SROCE_ACCESS_REMOTE_WRITE == (int)IB_ACCESS_REMOTE_WRITE);
static_assert((int)SROCE_ACCESS_REMOTE_READ == (int)IB_ACCESS_REMOTE_READ);
static_assert((int)SROCE_ACCESS_REMOTE_ATOMIC ==
	      (int)IB_ACCESS_REMOTE_ATOMIC);

u32 sroce_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_UVERBS_WR_RDMA_WRITE:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_UVERBS_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_UVERBS_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case SROCE_KWR_REG_MR:
		return IB_WC_REG_MR;	/* kernel CQs only */
	case IB_UVERBS_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

/*
 * Complete every posted WQE of @q with IB_WC_WR_FLUSH_ERR, as the verbs
 * require of a QP in the error state (error completions are generated
 * for unsignaled work requests too). qp->lock held.
 */
static void sroce_qp_flush_queue(struct sroce_qp *qp, struct sroce_queue *q,
				 struct sroce_cq *cq, bool send)
{
	struct sroce_cqe cqe = {
		.status = IB_WC_WR_FLUSH_ERR,
		.qp_num = qp->ibqp.qp_num,
	};
	int n = sroce_queue_pending(q);
	int i;

	if (n < 0)
		n = sroce_queue_entries(q);
	for (i = 0; i < n; i++) {
		const void *slot = sroce_queue_slot(q, q->index + i);

		if (send) {
			const struct sroce_send_wqe *w = slot;

			cqe.wr_id = READ_ONCE(w->wr_id);
			cqe.opcode = sroce_wc_opcode(READ_ONCE(w->opcode));
		} else {
			const struct sroce_recv_wqe *w = slot;

			cqe.wr_id = READ_ONCE(w->wr_id);
			cqe.opcode = IB_WC_RECV;
		}
		sroce_cq_post(cq, &cqe, false);
	}
	sroce_queue_consume(q, n);
}

static void sroce_qp_flush(struct sroce_qp *qp)
{
	bool ud = !sroce_qp_connected(qp);

	/* Tell the provider that receives it posts now need a doorbell. */
	WRITE_ONCE(qp->sq.ring->flags, SROCE_RING_ERR);
	if (qp->rq.ring)
		WRITE_ONCE(qp->rq.ring->flags, SROCE_RING_ERR);
	/* Our flag store is seen before we read prod (uapi header). */
	smp_mb();

	spin_lock(&qp->sq_lock);
	if (ud)
		sroce_qp_flush_queue(qp, &qp->sq, to_scq(qp->ibqp.send_cq),
				     true);
	else
		sroce_comp_flush(qp);
	spin_lock(&qp->resp_lock);
	if (!ud)
		sroce_rcresp_flush(qp);
	spin_lock(&qp->rq_lock);
	if (!qp->ibqp.srq)
		sroce_qp_flush_queue(qp, &qp->rq, to_scq(qp->ibqp.recv_cq),
				     false);
	spin_unlock(&qp->rq_lock);
	spin_unlock(&qp->resp_lock);
	spin_unlock(&qp->sq_lock);
}

/* Forget everything posted: RESET empties the queues. qp->lock held. */
static void sroce_qp_reset(struct sroce_qp *qp)
{
	int n;

	WRITE_ONCE(qp->sq.ring->flags, 0);
	if (qp->rq.ring)
		WRITE_ONCE(qp->rq.ring->flags, 0);
	spin_lock(&qp->sq_lock);
	n = sroce_queue_pending(&qp->sq);
	sroce_queue_consume(&qp->sq, n < 0 ? 0 : n);
	if (sroce_qp_connected(qp)) {
		sroce_req_disarm(qp);
		qp->req.head = qp->sq.index;
		qp->req.cur = qp->sq.index;
		qp->req.failed = false;
	}
	spin_lock(&qp->resp_lock);
	if (sroce_qp_connected(qp))
		sroce_rcresp_reset(qp);
	spin_unlock(&qp->resp_lock);
	spin_lock(&qp->rq_lock);
	if (!qp->ibqp.srq) {
		n = sroce_queue_pending(&qp->rq);
		sroce_queue_consume(&qp->rq, n < 0 ? 0 : n);
	}
	spin_unlock(&qp->rq_lock);
	spin_unlock(&qp->sq_lock);
}

/*
 * A QP on an SRQ that enters the error state will take no more WQEs from
 * it: IB_EVENT_QP_LAST_WQE_REACHED tells its user (IBTA 11.6.3.2).
 */
static void sroce_qp_last_wqe(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_QP_LAST_WQE_REACHED,
	};

	if (qp->ibqp.srq && qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * sroce_qp_error_event() - move a QP to the error state, flush it, tell
 *	its user
 * @qp: the QP; no QP lock held
 * @type: the affiliated asynchronous event to raise (enum ib_event_type),
 *	or SROCE_EVENT_NONE: an
 *	error a completion reports (a failed send or receive WQE) raises
 *	none, as on ConnectX; a responder's invalid request
 *	(IB_EVENT_QP_REQ_ERR) or access violation (IB_EVENT_QP_ACCESS_ERR)
 *	does. A QP on an SRQ also gets IB_EVENT_QP_LAST_WQE_REACHED.
 *
 * Any context: the engines call it from softirq after dropping their locks
 * (no engine ever holds another QP's locks; see xmit.c on loopback).
 */
void sroce_qp_error_event(struct sroce_qp *qp, int type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = (enum ib_event_type)type,
	};
	bool was, dying;

	spin_lock_bh(&qp->lock);
	was = qp->state == IB_QPS_ERR;
	dying = qp->dying;
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	sroce_qp_flush(qp);
	spin_unlock_bh(&qp->lock);
	if (was || dying || !qp->ibqp.event_handler)
		return;
	if (type != SROCE_EVENT_NONE)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	sroce_qp_last_wqe(qp);
}

/**
 * sroce_qp_error() - sroce_qp_error_event() with no event of its own
 * @qp: the QP; no QP lock held
 */
void sroce_qp_error(struct sroce_qp *qp)
{
	sroce_qp_error_event(qp, SROCE_EVENT_NONE);
}

/**
 * sroce_qp_get() - find a QP by number
 * @sdev: the device
 * @qpn: its number
 *
 * Any context. Return: the QP with a reference, or NULL.
 */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&sdev->qp_xa, qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

/* Validate everything before changing anything. */
static int sroce_qp_check_attr(struct sroce_qp *qp, struct ib_qp_attr *attr,
			       int mask, struct sroce_av *av)
{
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_QPN_MAX)
		return -EINVAL;
	/* QP1 takes only MADs: the GSI Q_Key. */
	if ((mask & IB_QP_QKEY) && qp->ibqp.qp_type == IB_QPT_GSI &&
	    attr->qkey != IB_QP1_QKEY)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC |
				       IB_ACCESS_LOCAL_WRITE)))
		return -EINVAL;
	if (mask & IB_QP_AV)
		return sroce_av_from_attr(av, &attr->ah_attr, false);
	return 0;
}

/*
 * The engines read the attributes under their own locks (sq_lock, the
 * requester's; resp_lock, the responder's): change them under both, so
 * that a pass sees one set or the other, never half of each. @rtr: the
 * QP enters RTR, and a connected QP takes its path MTU (its port's
 * active MTU at most) from here on.
 */
static void sroce_qp_apply_attr(struct sroce_qp *qp, struct ib_qp_attr *attr,
				int mask, const struct sroce_av *av, bool rtr)
{
	struct net_device *ndev = to_sdev(qp->ibqp.device)->ndev;

	spin_lock(&qp->sq_lock);
	spin_lock(&qp->resp_lock);
	if (mask & IB_QP_QKEY)
		WRITE_ONCE(qp->qkey, attr->qkey);
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_AV) {
		qp->av = *av;
		sroce_route_reset(qp);
	}
	if (mask & IB_QP_PATH_MTU)
		qp->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_RQ_PSN)
		qp->rq_psn = attr->rq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	if (rtr && sroce_qp_connected(qp))
		qp->mtu = ib_mtu_enum_to_int(min(qp->path_mtu,
						 sroce_active_mtu(ndev)));
	spin_unlock(&qp->resp_lock);
	spin_unlock(&qp->sq_lock);
}

int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state cur, new;
	bool last_wqe = false;
	struct sroce_av av;
	int err;

	if (mask & ~SROCE_QP_ATTR_MASK)
		return -EOPNOTSUPP;
	if (udata && udata->inlen)
		return -EINVAL;

	spin_lock_bh(&qp->lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new = mask & IB_QP_STATE ? attr->qp_state : cur;
	err = -EINVAL;
	if (cur != qp->state ||
	    !ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask))
		goto out;
	err = sroce_qp_check_attr(qp, attr, mask, &av);
	if (err)
		goto out;

	sroce_qp_apply_attr(qp, attr, mask, &av,
			    cur == IB_QPS_INIT && new == IB_QPS_RTR);
	if (sroce_qp_connected(qp) && cur == IB_QPS_INIT &&
	    new == IB_QPS_RTR)
		sroce_rcresp_start(qp);
	if (sroce_qp_has_cc(qp) && cur == IB_QPS_INIT && new == IB_QPS_RTR)
		sroce_cc_qp_start(qp);
	if (sroce_qp_connected(qp) && cur == IB_QPS_RTR &&
	    new == IB_QPS_RTS)
		sroce_req_start(qp);
	else if (sroce_qp_connected(qp) && new == IB_QPS_RTS)
		sroce_req_update(qp);
	/* The attributes before the state (sroce_rcv_addr_ok()). */
	smp_store_release(&qp->state, new);
	if (new == IB_QPS_RESET)
		sroce_qp_reset(qp);
	else if (new == IB_QPS_ERR)
		sroce_qp_flush(qp);
	last_wqe = new == IB_QPS_ERR && cur != IB_QPS_ERR;
out:
	spin_unlock_bh(&qp->lock);
	if (last_wqe)
		sroce_qp_last_wqe(qp);
	return err;
}

int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));

	spin_lock_bh(&qp->lock);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mtu = qp->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = qp->qkey;
	attr->rq_psn = qp->rq_psn;
	attr->sq_psn = qp->sq_psn;
	attr->dest_qp_num = qp->dest_qpn;
	attr->qp_access_flags = qp->access;
	sroce_av_to_attr(&qp->av, &attr->ah_attr);
	attr->port_num = 1;
	attr->sq_draining = qp->sq_draining;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	spin_unlock_bh(&qp->lock);

	attr->cap.max_send_wr = sroce_queue_entries(&qp->sq);
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_inline_data = qp->max_inline;
	if (!ibqp->srq) {
		attr->cap.max_recv_wr = sroce_queue_entries(&qp->rq);
		attr->cap.max_recv_sge = qp->max_recv_sge;
	}
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
			    IB_SIGNAL_REQ_WR;
	return 0;
}

static void sroce_qp_release(struct kref *ref)
{
	complete(&container_of(ref, struct sroce_qp, ref)->free);
}

void sroce_qp_put(struct sroce_qp *qp)
{
	kref_put(&qp->ref, sroce_qp_release);
}

int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);

	spin_lock_bh(&qp->lock);
	qp->dying = true;
	spin_unlock_bh(&qp->lock);
	xa_erase(&sdev->qp_xa, ibqp->qp_num);
	sroce_mcast_qp_gone(qp);
	sroce_req_stop(qp);
	sroce_req_work_stop(qp);
	if (sroce_qp_connected(qp))
		sroce_rcresp_stop(qp);
	/* The core frees the QP on return: let lookups that found it end. */
	synchronize_rcu();
	kref_put(&qp->ref, sroce_qp_release);
	wait_for_completion(&qp->free);
	if (sroce_qp_connected(qp))
		sroce_rcresp_cleanup(qp);
	sroce_req_cleanup(qp);
	sroce_route_fini(qp);
	sroce_qp_destroy_queues(qp);
	atomic_dec(&sdev->num_qp);
	return 0;
}
