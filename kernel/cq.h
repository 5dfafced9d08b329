/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cq.h: completion queues.
 */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

/*
 * CQEs per CQ: twice what libfabric's ofi_rxm asks of one at its
 * defaults ((128 + 128) WRs x 1024 peers: 262,144), in a ring of 32 MiB
 * (64-byte slots). A resize copies the CQEs not yet polled with
 * interrupts off.
 */
#define SROCE_MAX_CQE	((1 << 19) - 1)
#define SROCE_MAX_CQ	0x10000

struct sroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* the producer side and notify */
	struct sroce_queue q;
	u8 notify;			/* armed: IB_CQ_SOLICITED/NEXT_COMP */
	bool overflow;			/* IB_EVENT_CQ_ERR reported */

	/* A user CQ is found by number in cq_xa, with a reference. */
	u32 cqn;			/* 0: a kernel CQ, not numbered */
	const struct ib_ucontext *ibuc;	/* only compared */
	struct kref ref;
	struct completion free;
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    SROCE_CREATE_CQ_ARG arg);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

struct sroce_dev;
struct sroce_cq *sroce_cq_get(struct sroce_dev *sdev, u32 cqn);
void sroce_cq_put(struct sroce_cq *cq);

int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited);

#endif /* SROCE_CQ_H */
