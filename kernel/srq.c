// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * srq.c: shared receive queues: a receive ring several QPs consume from,
 * with the limit event (IB_EVENT_SRQ_LIMIT_REACHED) armed by modify_srq,
 * which also resizes the ring.
 */
#include <rdma/uverbs_ioctl.h>
#include <rdma/sroce-abi.h>

#include "device.h"
#include "qp.h"
#include "srq.h"

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_create_srq_resp resp = {};
	struct ib_srq_attr *attr = &init->attr;
	u32 stride;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	if (!attr->max_wr || attr->max_wr > SROCE_MAX_SRQ_WR ||
	    attr->max_sge > SROCE_MAX_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_srq) > SROCE_MAX_SRQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&srq->lock);
	spin_lock_init(&srq->post_lock);
	stride = sizeof(struct sroce_recv_wqe) +
		 max_t(u32, attr->max_sge, 1) * sizeof(struct sroce_sge);
	err = sroce_queue_init(&srq->rq, udata, attr->max_wr, stride,
			       &resp.mi);
	if (err)
		goto err_count;
	srq->max_sge = min_t(u32, (srq->rq.stride -
				   sizeof(struct sroce_recv_wqe)) /
				  sizeof(struct sroce_sge), SROCE_MAX_SGE);
	srq->limit = attr->srq_limit;
	attr->max_wr = sroce_queue_entries(&srq->rq);
	attr->max_sge = srq->max_sge;

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_queue;
	}
	return 0;

err_queue:
	sroce_queue_destroy(&srq->rq);
err_count:
	atomic_dec(&sdev->num_srq);
	return err;
}

/*
 * Move the WQEs not yet taken into the new ring @q, at its start, and make
 * it the SRQ's. Responders are held off by the lock, kernel producers by
 * post_lock; the provider holds its own SRQ lock around the call, so it
 * does not post to the old ring meanwhile. On success @q holds the old
 * ring, for the caller to destroy.
 */
static int sroce_srq_swap(struct sroce_srq *srq, struct sroce_queue *q,
			  u32 limit)
{
	struct sroce_queue old;
	unsigned long flags;
	int pending, i;

	spin_lock_bh(&srq->lock);
	spin_lock_irqsave(&srq->post_lock, flags);
	pending = sroce_queue_pending(&srq->rq);
	if (pending < 0 || pending > sroce_queue_entries(q) ||
	    limit > sroce_queue_entries(q)) {
		spin_unlock_irqrestore(&srq->post_lock, flags);
		spin_unlock_bh(&srq->lock);
		return -EINVAL;
	}
	for (i = 0; i < pending; i++)
		memcpy(sroce_queue_slot(q, i),
		       sroce_queue_slot(&srq->rq, srq->rq.index + i),
		       srq->rq.stride);
	/* Nobody sees the new ring yet: prod is ours to set this once. */
	q->ring->prod = pending;
	old = srq->rq;
	srq->rq = *q;
	*q = old;
	srq->limit = limit;
	spin_unlock_irqrestore(&srq->post_lock, flags);
	spin_unlock_bh(&srq->lock);
	return 0;
}

/* Resize to @max_wr; a user SRQ learns the new ring at @mi_addr. */
static int sroce_srq_resize(struct sroce_srq *srq, u32 max_wr, u32 limit,
			    struct ib_udata *udata, u64 mi_addr)
{
	struct sroce_mmap_info mi = {};
	struct sroce_queue q;
	int err;

	if (!max_wr || max_wr > SROCE_MAX_SRQ_WR)
		return -EINVAL;
	err = sroce_queue_init(&q, udata, max_wr, srq->rq.stride, &mi);
	if (err)
		return err;
	/* Before the swap: a resize the provider cannot follow fails. */
	if (udata && copy_to_user(u64_to_user_ptr(mi_addr), &mi, sizeof(mi)))
		err = -EFAULT;
	else
		err = sroce_srq_swap(srq, &q, limit);
	sroce_queue_destroy(&q);
	return err;
}

/*
 * The limit (IB_SRQ_LIMIT) arms IB_EVENT_SRQ_LIMIT_REACHED; IB_SRQ_MAX_WR
 * resizes the ring, to any size that holds the WQEs not yet taken and
 * the limit.
 */
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_modify_srq_cmd cmd = {};
	u32 limit;
	int err;

	if (mask & ~(IB_SRQ_LIMIT | IB_SRQ_MAX_WR))
		return -EOPNOTSUPP;
	if (mask & IB_SRQ_MAX_WR) {
		if (udata) {
			err = ib_copy_from_udata(&cmd, udata,
						 min(udata->inlen,
						     sizeof(cmd)));
			if (err)
				return err;
			if (!cmd.mi_addr)
				return -EOPNOTSUPP;
		}
		spin_lock_bh(&srq->lock);
		limit = mask & IB_SRQ_LIMIT ? attr->srq_limit : srq->limit;
		spin_unlock_bh(&srq->lock);
		return sroce_srq_resize(srq, attr->max_wr, limit, udata,
					cmd.mi_addr);
	}

	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	err = 0;
	spin_lock_bh(&srq->lock);
	if (attr->srq_limit > sroce_queue_entries(&srq->rq))
		err = -EINVAL;
	else
		srq->limit = attr->srq_limit;
	spin_unlock_bh(&srq->lock);
	return err;
}

int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	attr->max_sge = srq->max_sge;
	spin_lock_bh(&srq->lock);
	attr->max_wr = sroce_queue_entries(&srq->rq);
	attr->srq_limit = srq->limit;
	spin_unlock_bh(&srq->lock);
	return 0;
}

/* The core destroys an SRQ only when no QP uses it. */
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	sroce_queue_destroy(&srq->rq);
	atomic_dec(&to_sdev(ibsrq->device)->num_srq);
	return 0;
}
