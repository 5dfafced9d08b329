// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * srq.c: shared receive queues: a receive ring several QPs consume from,
 * with the limit event (IB_EVENT_SRQ_LIMIT_REACHED) armed by modify_srq.
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

/* Only the limit can change; growing an SRQ is not supported. */
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	if (attr->srq_limit > sroce_queue_entries(&srq->rq))
		return -EINVAL;
	spin_lock_bh(&srq->lock);
	srq->limit = attr->srq_limit;
	spin_unlock_bh(&srq->lock);
	return 0;
}

int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	attr->max_wr = sroce_queue_entries(&srq->rq);
	attr->max_sge = srq->max_sge;
	spin_lock_bh(&srq->lock);
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
