/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kverbs.h: verbs for kernel consumers (the MAD layer, the CMs, ULPs):
 * work requests into the rings, completions out of them.
 */
#ifndef SROCE_KVERBS_H
#define SROCE_KVERBS_H

#include <rdma/ib_verbs.h>

struct sroce_qp;

void sroce_kverbs_qp_init(struct sroce_qp *qp);
int sroce_kverbs_post_send(struct sroce_qp *qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr);
int sroce_kverbs_post_recv(struct sroce_qp *qp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr);

int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);
int sroce_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);

#endif /* SROCE_KVERBS_H */
