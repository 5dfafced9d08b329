/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * comp.h: the completer of RC (and UC) send queues.
 */
#ifndef SROCE_COMP_H
#define SROCE_COMP_H

#include <linux/timer.h>
#include <rdma/ib_verbs.h>

struct sk_buff;
struct sroce_dev;
struct sroce_pkt;
struct sroce_qp;
struct sroce_sq_wqe;

void sroce_comp_rcv(struct sroce_dev *sdev, struct sroce_qp *qp,
		    struct sk_buff *skb, const struct sroce_pkt *pkt);
void sroce_comp_retire_done(struct sroce_qp *qp);
void sroce_comp_retire(struct sroce_qp *qp, struct sroce_sq_wqe *e,
		       enum ib_wc_status status);
bool sroce_comp_failed(struct sroce_qp *qp);
void sroce_comp_timer(struct timer_list *t);
void sroce_comp_flush(struct sroce_qp *qp);

#endif /* SROCE_COMP_H */
