/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rcread.h: the RC responder's answers to RDMA READs.
 */
#ifndef SROCE_RCREAD_H
#define SROCE_RCREAD_H

#include <linux/types.h>

struct sroce_qp;

void sroce_rcread_init(struct sroce_qp *qp);
bool sroce_rcread_burst(struct sroce_qp *qp);
void sroce_rcread_start(struct sroce_qp *qp, u32 psn, u64 va, u32 rkey,
			u32 len);

#endif /* SROCE_RCREAD_H */
