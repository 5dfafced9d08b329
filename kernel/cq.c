// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cq.c: completion queues. The kernel produces CQEs into the ring, from
 * whatever context completes the work (system call or softirq); the
 * provider polls them without a system call.
 */
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include "cq.h"
#include "device.h"

static int sroce_cq_ring_init(struct sroce_queue *q, int cqe,
			      struct ib_udata *udata,
			      struct sroce_mmap_info *mi)
{
	if (cqe < 1 || cqe > SROCE_MAX_CQE)
		return -EINVAL;
	return sroce_queue_init(q, udata, cqe, sizeof(struct sroce_cqe), mi);
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    SROCE_CREATE_CQ_ARG arg)
{
	struct ib_udata *udata = sroce_create_cq_udata(arg);
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_create_cq_resp resp = {};
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_cq) > SROCE_MAX_CQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&cq->lock);
	err = sroce_cq_ring_init(&cq->q, attr->cqe, udata, &resp.mi);
	if (err)
		goto err_count;
	ibcq->cqe = sroce_queue_entries(&cq->q);

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_queue;
	}
	return 0;

err_queue:
	sroce_queue_destroy(&cq->q);
err_count:
	atomic_dec(&sdev->num_cq);
	return err;
}

/* The core destroys a CQ only when no QP or SRQ uses it any more. */
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	sroce_queue_destroy(&cq->q);
	atomic_dec(&to_sdev(ibcq->device)->num_cq);
	return 0;
}

/*
 * Move the unpolled CQEs into a new ring. Producers are held off by the
 * lock; the provider holds its own CQ lock around the call, so it does not
 * poll the old ring meanwhile.
 */
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_resize_cq_resp resp = {};
	struct sroce_queue old, q;
	unsigned long flags;
	u32 pending, i;
	int err;

	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = sroce_cq_ring_init(&q, cqe, udata, &resp.mi);
	if (err)
		return err;

	spin_lock_irqsave(&cq->lock, flags);
	pending = sroce_queue_entries(&cq->q) - sroce_queue_room(&cq->q);
	if (pending > sroce_queue_entries(&q)) {
		spin_unlock_irqrestore(&cq->lock, flags);
		sroce_queue_destroy(&q);
		return -EINVAL;
	}
	for (i = 0; i < pending; i++)
		memcpy(sroce_queue_slot(&q, i),
		       sroce_queue_slot(&cq->q, cq->q.index - pending + i),
		       sizeof(struct sroce_cqe));
	sroce_queue_produce(&q, pending);
	old = cq->q;
	cq->q = q;
	ibcq->cqe = sroce_queue_entries(&q);
	spin_unlock_irqrestore(&cq->lock, flags);

	sroce_queue_destroy(&old);
	if (udata)
		return ib_copy_to_udata(udata, &resp, sizeof(resp));
	return 0;
}

int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	int missed = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_NEXT_COMP;
	else if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_SOLICITED;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    sroce_queue_room(&cq->q) != sroce_queue_entries(&cq->q))
		missed = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return missed;
}

/**
 * sroce_cq_post() - add one completion, and raise its event if armed
 * @cq: the CQ
 * @cqe: the completion
 * @solicited: the completion is for a solicited message
 *
 * Any context. A full CQ is an overflow: the CQE is lost and the consumer
 * gets IB_EVENT_CQ_ERR (once).
 *
 * Return: 0, or -ENOSPC on overflow.
 */
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};
	unsigned long flags;
	bool notify, report = false;

	spin_lock_irqsave(&cq->lock, flags);
	if (!sroce_queue_room(&cq->q)) {
		report = !cq->overflow;
		cq->overflow = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (report && cq->ibcq.event_handler)
			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		return -ENOSPC;
	}
	memcpy(sroce_queue_slot(&cq->q, cq->q.index), cqe, sizeof(*cqe));
	sroce_queue_produce(&cq->q, 1);
	notify = cq->notify == IB_CQ_NEXT_COMP ||
		 (cq->notify == IB_CQ_SOLICITED && solicited);
	if (notify)
		cq->notify = 0;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}
