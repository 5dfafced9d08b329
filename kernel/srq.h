/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * srq.h: shared receive queues.
 */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

#define SROCE_MAX_SRQ		0x10000
#define SROCE_MAX_SRQ_WR	0x4000

struct sroce_srq {
	struct ib_srq ibsrq;
	spinlock_t lock;		/* consumers (responders) and limit */
	struct sroce_queue rq;
	u32 max_sge;
	u32 limit;			/* armed when non-zero */
	spinlock_t post_lock;		/* kernel SRQs: the producer */
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

#endif /* SROCE_SRQ_H */
