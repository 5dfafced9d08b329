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
#include "verbs.h"

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
	/* Older providers know only mi. */
	if (udata && udata->outlen < offsetofend(typeof(resp), mi))
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
	kref_init(&cq->ref);
	init_completion(&cq->free);

	if (udata) {
		cq->ibuc = &rdma_udata_to_drv_context(udata,
						      struct sroce_ucontext,
						      ibuc)->ibuc;
		err = xa_alloc_cyclic(&sdev->cq_xa, &cq->cqn, cq,
				      XA_LIMIT(1, SROCE_MAX_CQ), &sdev->cq_next,
				      GFP_KERNEL);
		if (err < 0)
			goto err_queue;
		resp.cqn = cq->cqn;
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err)
			goto err_xa;
	}
	return 0;

err_xa:
	xa_erase(&sdev->cq_xa, cq->cqn);
	synchronize_rcu();
	sroce_cq_put(cq);
	wait_for_completion(&cq->free);
err_queue:
	sroce_queue_destroy(&cq->q);
err_count:
	atomic_dec(&sdev->num_cq);
	return err;
}

static void sroce_cq_release(struct kref *ref)
{
	complete(&container_of(ref, struct sroce_cq, ref)->free);
}

/**
 * sroce_cq_get() - find a user CQ by number
 * @sdev: the device
 * @cqn: its number (struct sroce_create_cq_resp)
 *
 * Any context. Return: the CQ with a reference, or NULL.
 */
struct sroce_cq *sroce_cq_get(struct sroce_dev *sdev, u32 cqn)
{
	struct sroce_cq *cq;

	rcu_read_lock();
	cq = xa_load(&sdev->cq_xa, cqn);
	if (cq && !kref_get_unless_zero(&cq->ref))
		cq = NULL;
	rcu_read_unlock();
	return cq;
}

void sroce_cq_put(struct sroce_cq *cq)
{
	kref_put(&cq->ref, sroce_cq_release);
}

/*
 * The core destroys a CQ only when no QP or SRQ uses it any more; a
 * doorbell file may still have found it by number: wait for it.
 */
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	if (cq->cqn) {
		xa_erase(&to_sdev(ibcq->device)->cq_xa, cq->cqn);
		/* The core frees the CQ on return: let lookups end. */
		synchronize_rcu();
	}
	sroce_cq_put(cq);
	wait_for_completion(&cq->free);
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
